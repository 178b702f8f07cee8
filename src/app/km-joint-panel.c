/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-joint-panel"

#include "config.h"

#include <math.h>
#include <glib/gi18n.h>

#include "km-configuration-bar.h"
#include "km-effector-fields.h"
#include "km-joint-panel.h"
#include "km-list-scroll.h"

#include "km-number-field.h"
#include "km-scroll-guard.h"
#include "km-units.h"

/*
 * One row per DOF of the document's body: name, a slider over the limits, a spin button,
 * the unit. The document holds radians and metres. A joint a body handler presents is
 * shown in the handler's unit (to_shown / from_shown); every other joint in the units the
 * preferences name (angle-unit, length-unit). An unlimited DOF's slider shows a window a
 * slider can still be used over, ±180° or ±1 m about a multiple of 180° (1 m) near the
 * value, moved along when the value reaches an end of it or leaves it (not during a drag of
 * that slider); its field shows and takes any finite value (km_number_field_set_open). A
 * DOF limited on one side only gets as wide a range (a turn, 2 m) from its finite end
 * inwards (km_range_span), e.g. [0.5 rad - 360°, 0.5 rad].
 *
 * A pointer drag of a slider (press to release) is one undo step however long it pauses
 * (km_document_close_edit and km_document_hold_edit at the press, km_document_release_edit
 * at the release), as a drag in the 3-D view is.
 *
 * Selection is one thing: pressing a joint's row makes it the document's selected joint, and the selected joint's name shows in bold.
 * A joint selected elsewhere (the scene, the item tree, a project opened with one) has its
 * first row scrolled into view, without taking the focus (scroll_to_row).
 *
 * Tab and Shift+Tab in a field move to the next and the previous row's field (Shift+Tab on a
 * slider to the previous row's field), scrolling it into view: GTK 4.8's list view does not
 * move the focus past the rows in view, which left the rows below them out of the
 * keyboard's reach (the Tab went on to the widgets after the list). From the last row's
 * field Tab, and from the first row's Shift+Tab, go on as GTK's focus chain does.
 *
 * The spin buttons are number fields (km-number-field.c): text that is no number is refused
 * with the reason under the row (gone once the user types again or the value changes); a
 * number outside the row's range is set to its nearest end, and the same place says so.
 * Leaving a field as it shows the value is no edit, and text typed but not yet entered
 * stays while the pose changes under it (the current frame changes).
 *
 * The rows are a GtkListView over the DOFs' adjustments: a model with thousands of joints
 * gets widgets only for the rows around the visible ones, which the list binds to other
 * DOFs as it scrolls (a widget set per DOF kept the window from drawing for many seconds
 * while such a model was opened). What a row shows therefore lives in Row, not in its
 * widgets: the name, the limits, the reason a typed value was refused.
 *
 * The list is given a new skeleton's DOFs FILL_CHUNK_ROWS at a time, the first ones at once
 * and the others from an idle callback, one chunk per main loop iteration, until it has
 * FILL_WIDGET_ROWS of them, then the rest at once: GTK 4.8's list view makes and binds
 * widgets for some 200 rows past the first whatever its height, which took a few hundred
 * milliseconds in one go on opening a large model. Everything but the list view's model
 * (the adjustments, the rows, km_joint_panel_get_n_rows) has every DOF at once. Only a list
 * scrolled to its top is filled so: one scrolled further down (a skeleton edit, a unit
 * changed in the preferences) is given all its rows at once and stays where it was, which
 * a list cut to its first chunk would not (GTK moves the view to the row that many rows
 * in proportion).
 */

#define FILL_CHUNK_ROWS  8
#define FILL_WIDGET_ROWS 256

#define UNLIMITED_ANGLE G_PI
#define UNLIMITED_LENGTH 1.0

#define ROW_WIDGETS_KEY "km-joint-panel-row"
#define TOOLTIP_ROW_KEY "km-joint-panel-tooltip-row"   /* on a row's widget: its RowWidgets */

/* The widgets of one list row, made once (factory_setup_cb) and shown for one DOF at a
 * time (factory_bind_cb). */
typedef struct
{
  guint      dof;          /* the DOF shown, G_MAXUINT while none is */
  GtkWidget *name;         /* in a stack with @bold, its width copy (header_allocate) */
  GtkWidget *bold;
  GtkWidget *caption;      /* the limits */
  GtkWidget *slider;
  GtkWidget *spin;
  GtkWidget *unit;
  GtkWidget *error;        /* why a typed value was refused, under the row */
} RowWidgets;

typedef struct
{
  int          joint;
  gboolean     presented;   /* a body handler converts; otherwise shown = value * scale */
  double       scale;
  const char  *unit;        /* static or interned */
  char        *name;        /* the joint's name, with the axis for a ball joint's DOF */
  char        *limits;      /* the caption and the tooltips ("Limits: …", "Unlimited") */
  double       step;
  guint        digits;
  gboolean     open;        /* unlimited: the adjustment's range is a window, @half each way */
  double       half;
  KmQuantity   quantity;    /* what the spin button takes typed: in @field_scale units … */
  double       field_scale;
  const char  *field_unit;  /* … of @field_unit */
  char        *error;       /* why a typed value was refused, or NULL */
  RowWidgets  *widgets;     /* borrowed: the list row showing the DOF, NULL when none does */
} Row;

struct _KmJointPanel
{
  GtkWidget       parent_instance;

  /* Template widgets */
  GtkStack       *stack;
  GtkListView    *list_view;
  KmConfigurationBar *configuration_bar;

  /* Owned */
  KmDocument     *document;
  GSignalGroup   *document_signals;
  GPtrArray      *adjustments;     /* GtkAdjustment, one per DOF, in display units */
  GListStore     *items;           /* the same adjustments: the list view's items */
  GArray         *rows;            /* Row, one per DOF */
  char           *angle_unit;
  char           *length_unit;
  int             unit_chars;      /* the unit column's width: its longest unit */
  guint           dragged;         /* the DOF whose slider the pointer drags, or G_MAXUINT */
  guint           fill_idle;       /* gives @items the next chunk of @adjustments */
  guint           scroll_dof;      /* the row to bring into view (scroll_to_row), or G_MAXUINT */
  gboolean        scroll_focus;    /* … and whose field then takes the focus */
  KmAfterPaint    scroll;          /* whose step brings it into view (scroll_step) */
  gboolean        pressing;        /* a press on a row selects its joint (row_pressed_cb) */

  gboolean        updating;
};

enum {
  PROP_0,
  PROP_ANGLE_UNIT,
  PROP_DOCUMENT,
  PROP_LENGTH_UNIT,
  N_PROPS
};

G_DEFINE_FINAL_TYPE (KmJointPanel, km_joint_panel, GTK_TYPE_WIDGET)

static GParamSpec *properties[N_PROPS];

static KmBodyHandlerSet *
get_handlers (KmJointPanel *self)
{
  return self->document ? km_document_get_body_handlers (self->document) : NULL;
}

static double
to_shown (KmJointPanel *self,
          const Row    *row,
          double        value)
{
  KmBodyHandlerSet *handlers = get_handlers (self);

  if (row->presented && handlers != NULL)
    return km_body_handler_set_to_shown (handlers, row->joint, value);
  return value * row->scale;
}

static gboolean
from_shown (KmJointPanel *self,
            const Row    *row,
            double        shown,
            double       *value)
{
  KmBodyHandlerSet *handlers = get_handlers (self);

  if (row->presented && handlers != NULL)
    return km_body_handler_set_from_shown (handlers, row->joint, shown, value);
  *value = shown / row->scale;
  return TRUE;
}

static void
adjustment_value_changed_cb (KmJointPanel  *self,
                             GtkAdjustment *adjustment)
{
  guint dof = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (adjustment), "km-dof"));
  double value;

  if (self->updating || self->document == NULL || dof >= self->rows->len)
    return;

  if (from_shown (self, &g_array_index (self->rows, Row, dof),
                  gtk_adjustment_get_value (adjustment), &value))
    km_document_set_dof_value (self->document, dof, value);
}

static void
row_clear (Row *row)
{
  g_clear_pointer (&row->name, g_free);
  g_clear_pointer (&row->limits, g_free);
  g_clear_pointer (&row->error, g_free);
}

/* The list row @widget (a row's widget or one of its children) belongs to, or NULL. */
static RowWidgets *
row_widgets_of (GtkWidget *widget)
{
  for (; widget != NULL; widget = gtk_widget_get_parent (widget))
    {
      RowWidgets *widgets = g_object_get_data (G_OBJECT (widget), ROW_WIDGETS_KEY);

      if (widgets != NULL)
        return widgets;
    }
  return NULL;
}

/* The Row @widget shows, or NULL. */
static Row *
row_of (KmJointPanel *self,
        GtkWidget    *widget)
{
  RowWidgets *widgets = row_widgets_of (widget);

  if (widgets == NULL || widgets->dof >= self->rows->len)
    return NULL;
  return &g_array_index (self->rows, Row, widgets->dof);
}

static void
show_heading (RowWidgets *widgets,
              gboolean    selected)
{
  if (selected)
    gtk_widget_add_css_class (widgets->name, "heading");
  else
    gtk_widget_remove_css_class (widgets->name, "heading");
}

/* Frames to wait for a row to be made and laid out before giving up scrolling to it. */
#define SCROLL_MAX_FRAMES 60

/* A KmListRowPosition: the DOF a row widget of the list shows. */
static guint
row_dof (GtkWidget *child,
         gpointer   user_data)
{
  KmJointPanel *self = user_data;
  GtkWidget *box = gtk_widget_get_first_child (child);
  RowWidgets *widgets = box != NULL ? g_object_get_data (G_OBJECT (box), ROW_WIDGETS_KEY)
                                    : NULL;

  return widgets != NULL && widgets->dof < self->rows->len ? widgets->dof
                                                           : GTK_INVALID_LIST_POSITION;
}

/* Brings the row of self->scroll_dof into view, whole, and gives its field the focus when
 * self->scroll_focus says so; done once it is in view (km-list-scroll.c: GTK 4.8 has no
 * gtk_list_view_scroll_to). Only from a frame's ::after-paint (self->scroll), when the list
 * has just been laid out: rows given to it since its last layout (fill_chunk, a new
 * skeleton) have no height yet. */
static KmAfterPaintStep
scroll_step (gpointer user_data)
{
  KmJointPanel *self = user_data;
  GtkWidget *list_view = GTK_WIDGET (self->list_view);
  guint dof = self->scroll_dof;
  graphene_rect_t bounds;
  KmListRowNear near;

  /* Rows the list has not been given yet (fill_chunk) are not waited for in frames. */
  if (dof < self->rows->len
      && (dof >= g_list_model_get_n_items (G_LIST_MODEL (self->items))
          || gtk_widget_get_height (list_view) <= 0))
    return KM_AFTER_PAINT_WAIT;
  if (gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (self->list_view)) == NULL
      || dof >= self->rows->len)
    return KM_AFTER_PAINT_DONE;
  if (km_list_view_find_row (list_view, dof, row_dof, self, &bounds, &near) != NULL)
    {
      RowWidgets *widgets = g_array_index (self->rows, Row, dof).widgets;

      if (self->scroll_focus && widgets != NULL && widgets->dof == dof)
        {
          gtk_widget_grab_focus (widgets->spin);
          self->scroll_focus = FALSE;
        }
      return km_list_view_show_bounds (list_view, &bounds) ? KM_AFTER_PAINT_DONE
                                                           : KM_AFTER_PAINT_AGAIN;
    }
  /* Far from the rows the list made. */
  km_list_view_bring_near (list_view, dof, &near);
  return KM_AFTER_PAINT_AGAIN;
}

static void
scroll_done (gpointer user_data)
{
  KmJointPanel *self = user_data;

  self->scroll_dof = G_MAXUINT;
}

/* Brings the row of @dof into view (and gives its field the focus, if @focus) once the list
 * has laid it out (the list may not have been given it yet, see the top). A field the list
 * shows takes the focus at once, so that what is typed next goes to it. */
static void
scroll_to_row (KmJointPanel *self,
               guint         dof,
               gboolean      focus)
{
  RowWidgets *widgets = dof < self->rows->len ? g_array_index (self->rows, Row, dof).widgets
                                              : NULL;

  self->scroll_dof = dof;
  self->scroll_focus = focus;
  if (focus && widgets != NULL && widgets->dof == dof && gtk_widget_get_mapped (widgets->spin))
    {
      gtk_widget_grab_focus (widgets->spin);
      self->scroll_focus = FALSE;
    }
  km_after_paint_start (&self->scroll);
}

static void
document_selected_joint_cb (KmJointPanel *self)
{
  int joint = self->document ? km_document_get_selected_joint (self->document) : -1;
  guint first = G_MAXUINT;

  /* Only the rows shown have widgets. */
  for (guint d = 0; d < self->rows->len; d++)
    {
      const Row *row = &g_array_index (self->rows, Row, d);

      if (row->joint == joint && first == G_MAXUINT)
        first = d;
      if (row->widgets != NULL)
        show_heading (row->widgets, row->joint == joint);
    }
  /* Selected elsewhere: its row shown (a row pressed is in view, and may be dragged). A
   * pending move of the focus (Tab) goes first. */
  if (first != G_MAXUINT && !self->pressing
      && !(self->scroll_dof != G_MAXUINT && self->scroll_focus))
    scroll_to_row (self, first, FALSE);
}

/* A press on a row's widgets selects its joint (the press is not taken). The focus does not:
 * the window's first focus lands on a slider without the user choosing a joint. */
static void
row_pressed_cb (GtkGestureClick *gesture,
                int              n_press,
                double           x,
                double           y,
                KmJointPanel    *self)
{
  GtkWidget *widget = gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (gesture));
  const Row *row = row_of (self, widget);

  if (self->document != NULL && row != NULL)
    {
      self->pressing = TRUE;
      km_document_set_selected_joint (self->document, row->joint);
      self->pressing = FALSE;
    }
}

/* Tab in a row's field, Shift+Tab in its field or slider: the next or the previous row's
 * field, scrolled into view (see the top). */
static gboolean
row_key_pressed_cb (GtkEventControllerKey *controller,
                    guint                  keyval,
                    guint                  keycode,
                    GdkModifierType        state,
                    KmJointPanel          *self)
{
  GtkWidget *widget = gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (controller));
  RowWidgets *widgets = row_widgets_of (widget);
  gboolean backward;
  guint dof;

  if (keyval != GDK_KEY_Tab && keyval != GDK_KEY_KP_Tab && keyval != GDK_KEY_ISO_Left_Tab)
    return GDK_EVENT_PROPAGATE;
  if ((state & (GDK_CONTROL_MASK | GDK_ALT_MASK | GDK_SUPER_MASK)) != 0
      || widgets == NULL || widgets->dof >= self->rows->len)
    return GDK_EVENT_PROPAGATE;
  backward = keyval == GDK_KEY_ISO_Left_Tab || (state & GDK_SHIFT_MASK) != 0;
  if (!backward && widget != widgets->spin)
    return GDK_EVENT_PROPAGATE;
  if (backward ? widgets->dof == 0 : widgets->dof + 1 >= self->rows->len)
    return GDK_EVENT_PROPAGATE;
  dof = backward ? widgets->dof - 1 : widgets->dof + 1;
  scroll_to_row (self, dof, TRUE);
  return GDK_EVENT_STOP;
}

static void
watch_row_keys (KmJointPanel *self,
                GtkWidget    *widget)
{
  GtkEventController *keys = gtk_event_controller_key_new ();

  g_signal_connect_object (keys, "key-pressed", G_CALLBACK (row_key_pressed_cb), self, 0);
  gtk_widget_add_controller (widget, keys);
}

static void
watch_row_widget (KmJointPanel *self,
                  GtkWidget    *widget)
{
  GtkGesture *click = gtk_gesture_click_new ();

  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (click), 0);
  gtk_event_controller_set_propagation_phase (GTK_EVENT_CONTROLLER (click), GTK_PHASE_CAPTURE);
  g_signal_connect_object (click, "pressed", G_CALLBACK (row_pressed_cb), self, 0);
  gtk_widget_add_controller (widget, GTK_EVENT_CONTROLLER (click));
}

static void
show_row_error (RowWidgets *widgets,
                const char *reason)
{
  gtk_label_set_text (GTK_LABEL (widgets->error), reason != NULL ? reason : "");
  gtk_widget_set_visible (widgets->error, reason != NULL);
}

static void
show_error (KmJointPanel *self,
            guint         dof,
            const char   *reason)
{
  Row *row;

  if (dof >= self->rows->len)
    return;
  row = &g_array_index (self->rows, Row, dof);
  if (row->error == NULL && reason == NULL)
    return;
  g_free (row->error);
  row->error = g_strdup (reason);
  if (row->widgets != NULL)
    show_row_error (row->widgets, reason);
}

static void
field_refused_cb (GtkSpinButton *spin,
                  const char    *reason,
                  gpointer       user_data)
{
  RowWidgets *widgets = row_widgets_of (GTK_WIDGET (spin));

  if (widgets != NULL)
    show_error (user_data, widgets->dof, reason);
}

/* The user types a new value: the refused one is gone, and so is its reason. */
static void
field_typed_cb (GtkSpinButton *spin,
                gpointer       user_data)
{
  RowWidgets *widgets = row_widgets_of (GTK_WIDGET (spin));

  if (widgets != NULL)
    show_error (user_data, widgets->dof, NULL);
}

/* An unlimited DOF's adjustment shows @shown in a window of ±half about the multiple of
 * half nearest it, moved only when @shown is at an end of the one it has or beyond it (or
 * a typed value widened it, km_number_field_set_open), and not while its slider is
 * dragged (the thumb stays under the pointer). Returns whether it set the value. */
static gboolean
place_window (KmJointPanel  *self,
              guint          dof,
              GtkAdjustment *adjustment,
              double         shown)
{
  const Row *row = &g_array_index (self->rows, Row, dof);
  double lower = gtk_adjustment_get_lower (adjustment);
  double upper = gtk_adjustment_get_upper (adjustment);
  double centre;

  if (!row->open || dof == self->dragged || !isfinite (shown)
      || (shown > lower && shown < upper && upper - lower <= 2.0 * row->half * (1.0 + 1e-9)))
    return FALSE;
  centre = round (shown / row->half) * row->half;
  gtk_adjustment_configure (adjustment, shown, centre - row->half, centre + row->half,
                            gtk_adjustment_get_step_increment (adjustment),
                            gtk_adjustment_get_page_increment (adjustment), 0.0);
  return TRUE;
}

static void
document_pose_changed_cb (KmJointPanel *self)
{
  const double *pose;
  guint n_dof;

  if (self->document == NULL)
    return;

  pose = km_document_get_pose (self->document, &n_dof);
  self->updating = TRUE;
  for (guint d = 0; d < MIN (n_dof, self->adjustments->len); d++)
    {
      GtkAdjustment *adjustment = g_ptr_array_index (self->adjustments, d);
      double shown = to_shown (self, &g_array_index (self->rows, Row, d), pose[d]);

      /* A refusal's reason was about the value the row showed then. */
      if (shown != gtk_adjustment_get_value (adjustment))
        show_error (self, d, NULL);
      if (!place_window (self, d, adjustment, shown))
        gtk_adjustment_set_value (adjustment, shown);
    }
  self->updating = FALSE;
}

/* A pointer press on a slider to its release: one undo step, however long the pointer
 * rests meanwhile; the slider's window (place_window) stays put until the release. */
static gboolean
slider_event_cb (GtkEventControllerLegacy *controller,
                 GdkEvent                 *event,
                 KmJointPanel             *self)
{
  GtkWidget *slider = gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (controller));
  GdkEventType type = gdk_event_get_event_type (event);
  RowWidgets *widgets;
  guint dof;

  if (self->document == NULL)
    return GDK_EVENT_PROPAGATE;
  if (type == GDK_BUTTON_PRESS || type == GDK_TOUCH_BEGIN)
    {
      widgets = row_widgets_of (slider);
      if (self->dragged != G_MAXUINT || widgets == NULL || widgets->dof >= self->rows->len)
        return GDK_EVENT_PROPAGATE;
      self->dragged = widgets->dof;
      /* As a drag in the 3-D view: nothing before it merges into its step, and no pause
       * ends the step before the release does. */
      km_document_close_edit (self->document);
      km_document_hold_edit (self->document, self);
    }
  else if ((type == GDK_BUTTON_RELEASE || type == GDK_TOUCH_END || type == GDK_TOUCH_CANCEL
            || type == GDK_GRAB_BROKEN) && self->dragged != G_MAXUINT)
    {
      dof = self->dragged;
      self->dragged = G_MAXUINT;
      km_document_release_edit (self->document, self);
      if (dof < self->adjustments->len)
        {
          GtkAdjustment *adjustment = g_ptr_array_index (self->adjustments, dof);

          self->updating = TRUE;
          place_window (self, dof, adjustment, gtk_adjustment_get_value (adjustment));
          self->updating = FALSE;
        }
    }
  return GDK_EVENT_PROPAGATE;
}

static void
watch_slider_drag (KmJointPanel *self,
                   GtkWidget    *slider)
{
  GtkEventController *legacy = gtk_event_controller_legacy_new ();

  gtk_event_controller_set_propagation_phase (legacy, GTK_PHASE_CAPTURE);
  g_signal_connect_object (legacy, "event", G_CALLBACK (slider_event_cb), self, 0);
  gtk_widget_add_controller (slider, legacy);
}

/*
 * A row's header: the joint's name, then its limits (the caption). The name comes first:
 * it gets its natural width and the caption the rest of the line, right-aligned, when the
 * caption fits there whole; otherwise the caption goes on a line of its own under the name,
 * right-aligned above the spin button. Each is ellipsized only when even a line of its own
 * is too short: the name in the middle (a joint's suffix, _P, _R, _Y, tells it from its
 * neighbours), the caption at its start (the numbers stay). The name label shares a stack
 * with a bold copy that is never shown: the stack is as wide as the name in bold (selected,
 * .heading), so that selecting a joint never moves the caption to the other line.
 */
#define HEADER_SPACING 6

static GtkSizeRequestMode
header_request_mode (GtkWidget *header)
{
  return GTK_SIZE_REQUEST_HEIGHT_FOR_WIDTH;
}

static void
header_children (GtkWidget  *header,
                 GtkWidget **name,
                 GtkWidget **caption)
{
  *name = gtk_widget_get_first_child (header);
  *caption = gtk_widget_get_next_sibling (*name);
}

/* Whether name and caption fit side by side, each whole, in @width (any, when -1). */
static gboolean
header_one_line (GtkWidget *header,
                 int        width)
{
  GtkWidget *name, *caption;
  int name_nat, caption_nat;

  if (width < 0)
    return TRUE;
  header_children (header, &name, &caption);
  gtk_widget_measure (name, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &name_nat, NULL, NULL);
  gtk_widget_measure (caption, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &caption_nat, NULL, NULL);
  return name_nat + HEADER_SPACING + caption_nat <= width;
}

static void
header_measure (GtkWidget      *header,
                GtkOrientation  orientation,
                int             for_size,
                int            *minimum,
                int            *natural,
                int            *minimum_baseline,
                int            *natural_baseline)
{
  GtkWidget *name, *caption;
  int name_min, name_nat, caption_min, caption_nat;

  header_children (header, &name, &caption);
  gtk_widget_measure (name, orientation, -1, &name_min, &name_nat, NULL, NULL);
  gtk_widget_measure (caption, orientation, -1, &caption_min, &caption_nat, NULL, NULL);
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      /* Least: one above the other, each ellipsized. */
      *minimum = MAX (name_min, caption_min);
      *natural = name_nat + HEADER_SPACING + caption_nat;
    }
  else if (header_one_line (header, for_size))
    {
      *minimum = MAX (name_min, caption_min);
      *natural = MAX (name_nat, caption_nat);
    }
  else
    {
      *minimum = name_min + caption_min;
      *natural = name_nat + caption_nat;
    }
}

static void
header_place (GtkWidget *header,
              GtkWidget *child,
              int        x,
              int        y,
              int        width,
              int        height)
{
  if (gtk_widget_get_direction (header) == GTK_TEXT_DIR_RTL)
    x = gtk_widget_get_width (header) - x - width;
  gtk_widget_size_allocate (child, &(GtkAllocation) { x, y, width, height }, -1);
}

static void
header_allocate (GtkWidget *header,
                 int        width,
                 int        height,
                 int        baseline)
{
  GtkWidget *name, *caption;
  int name_nat, name_height;

  header_children (header, &name, &caption);
  if (header_one_line (header, width))
    {
      gtk_widget_measure (name, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &name_nat, NULL, NULL);
      header_place (header, name, 0, 0, name_nat, height);
      header_place (header, caption, name_nat + HEADER_SPACING, 0,
                    width - name_nat - HEADER_SPACING, height);
    }
  else
    {
      gtk_widget_measure (name, GTK_ORIENTATION_VERTICAL, -1, NULL, &name_height, NULL, NULL);
      name_height = MIN (name_height, height);
      header_place (header, name, 0, 0, width, name_height);
      header_place (header, caption, 0, name_height, width, height - name_height);
    }
}

/* A row's name label; @bold: the header's width copy (see above), never shown. */
static GtkWidget *
name_label_new (gboolean bold)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), 0.0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_MIDDLE);
  if (bold)
    gtk_widget_add_css_class (label, "heading");
  return label;
}

static gboolean
row_query_tooltip_cb (GtkWidget    *widget,
                      int           x,
                      int           y,
                      gboolean      keyboard_mode,
                      GtkTooltip   *tooltip,
                      KmJointPanel *self)
{
  const char *text = km_joint_panel_get_row_tooltip (self, widget);

  if (text == NULL)
    return FALSE;
  gtk_tooltip_set_text (tooltip, text);
  return TRUE;
}

/* @widget of @widgets' row has a tooltip for whichever DOF the row shows, asked for when
 * GTK shows it (km_joint_panel_get_row_tooltip): setting a tooltip's text asks the display
 * where the pointer is (a round trip to the X server), for every row the list binds. */
static void
add_row_tooltip (KmJointPanel *self,
                 RowWidgets   *widgets,
                 GtkWidget    *widget)
{
  g_object_set_data (G_OBJECT (widget), TOOLTIP_ROW_KEY, widgets);
  gtk_widget_set_has_tooltip (widget, TRUE);
  g_signal_connect_object (widget, "query-tooltip", G_CALLBACK (row_query_tooltip_cb), self, 0);
}

/* The widgets of a list row, for whichever DOF the list shows in it (factory_bind_cb). */
static void
factory_setup_cb (GtkSignalListItemFactory *factory,
                  GtkListItem              *item,
                  KmJointPanel             *self)
{
  RowWidgets *widgets = g_new0 (RowWidgets, 1);
  GtkWidget *box, *header, *names, *line;

  widgets->dof = G_MAXUINT;
  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  gtk_widget_set_margin_start (box, 12);
  gtk_widget_set_margin_end (box, 12);
  gtk_widget_set_margin_top (box, 8);
  gtk_widget_set_margin_bottom (box, 2);
  g_object_set_data_full (G_OBJECT (box), ROW_WIDGETS_KEY, widgets, g_free);

  /* A box for its children's sake; header_allocate() lays them out. */
  header = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  gtk_widget_set_layout_manager (header, gtk_custom_layout_new (header_request_mode,
                                                                header_measure,
                                                                header_allocate));
  gtk_box_append (GTK_BOX (box), header);
  watch_row_widget (self, header);

  names = gtk_stack_new ();
  widgets->name = name_label_new (FALSE);
  widgets->bold = name_label_new (TRUE);
  gtk_stack_add_named (GTK_STACK (names), widgets->name, "name");
  gtk_stack_add_named (GTK_STACK (names), widgets->bold, "width");
  gtk_stack_set_visible_child (GTK_STACK (names), widgets->name);
  gtk_box_append (GTK_BOX (header), names);
  add_row_tooltip (self, widgets, widgets->name);

  /* The name first, then the limits (header_allocate()); each whole in its tooltip. */
  widgets->caption = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (widgets->caption), 1.0);
  gtk_label_set_ellipsize (GTK_LABEL (widgets->caption), PANGO_ELLIPSIZE_START);
  gtk_widget_add_css_class (widgets->caption, "dim-label");
  gtk_widget_add_css_class (widgets->caption, "caption");
  gtk_box_append (GTK_BOX (header), widgets->caption);
  add_row_tooltip (self, widgets, widgets->caption);

  line = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  gtk_box_append (GTK_BOX (box), line);

  widgets->slider = gtk_scale_new (GTK_ORIENTATION_HORIZONTAL, NULL);
  gtk_scale_set_draw_value (GTK_SCALE (widgets->slider), FALSE);
  gtk_widget_set_hexpand (widgets->slider, TRUE);
  gtk_box_append (GTK_BOX (line), widgets->slider);
  watch_row_widget (self, widgets->slider);
  watch_row_keys (self, widgets->slider);
  watch_slider_drag (self, widgets->slider);
  km_scroll_guard_attach (widgets->slider);
  add_row_tooltip (self, widgets, widgets->slider);

  widgets->spin = gtk_spin_button_new (NULL, 1.0, 0);
  km_number_field_attach (GTK_SPIN_BUTTON (widgets->spin), field_refused_cb, field_typed_cb,
                          self);
  gtk_editable_set_width_chars (GTK_EDITABLE (widgets->spin), 6);
  gtk_box_append (GTK_BOX (line), widgets->spin);
  watch_row_widget (self, widgets->spin);
  watch_row_keys (self, widgets->spin);
  km_scroll_guard_attach (widgets->spin);
  add_row_tooltip (self, widgets, widgets->spin);

  widgets->unit = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (widgets->unit), 0.0);
  gtk_box_append (GTK_BOX (line), widgets->unit);

  widgets->error = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (widgets->error), 0.0);
  gtk_label_set_wrap (GTK_LABEL (widgets->error), TRUE);
  gtk_widget_add_css_class (widgets->error, "error");
  gtk_widget_add_css_class (widgets->error, "caption");
  gtk_widget_set_visible (widgets->error, FALSE);
  gtk_box_append (GTK_BOX (box), widgets->error);

  gtk_list_item_set_activatable (item, FALSE);
  gtk_list_item_set_selectable (item, FALSE);
  gtk_list_item_set_child (item, box);
}

static void
factory_bind_cb (GtkSignalListItemFactory *factory,
                 GtkListItem              *item,
                 KmJointPanel             *self)
{
  RowWidgets *widgets = g_object_get_data (G_OBJECT (gtk_list_item_get_child (item)),
                                           ROW_WIDGETS_KEY);
  GtkAdjustment *adjustment = gtk_list_item_get_item (item);
  guint dof = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (adjustment), "km-dof"));
  GtkSpinButton *spin = GTK_SPIN_BUTTON (widgets->spin);
  int selected = self->document ? km_document_get_selected_joint (self->document) : -1;
  Row *row;

  if (dof >= self->rows->len)
    return;
  row = &g_array_index (self->rows, Row, dof);
  widgets->dof = dof;
  row->widgets = widgets;

  gtk_label_set_text (GTK_LABEL (widgets->name), row->name);
  gtk_label_set_text (GTK_LABEL (widgets->bold), row->name);
  show_heading (widgets, row->joint == selected);
  gtk_label_set_text (GTK_LABEL (widgets->caption), row->limits);

  gtk_range_set_adjustment (GTK_RANGE (widgets->slider), adjustment);
  gtk_accessible_update_property (GTK_ACCESSIBLE (widgets->slider),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, row->name, -1);

  /* The field's unit and name first: configuring it shows the value in them. */
  km_number_field_set_unit (spin, row->quantity, row->field_scale, row->field_unit);
  km_number_field_set_name (spin, row->name);
  km_number_field_set_open (spin, row->open);
  gtk_spin_button_configure (spin, adjustment, row->step, row->digits);
  gtk_accessible_update_property (GTK_ACCESSIBLE (widgets->spin),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, row->name, -1);

  gtk_label_set_text (GTK_LABEL (widgets->unit), row->unit);
  gtk_label_set_width_chars (GTK_LABEL (widgets->unit), self->unit_chars);
  show_row_error (widgets, row->error);
}

static void
factory_unbind_cb (GtkSignalListItemFactory *factory,
                   GtkListItem              *item,
                   KmJointPanel             *self)
{
  RowWidgets *widgets = g_object_get_data (G_OBJECT (gtk_list_item_get_child (item)),
                                           ROW_WIDGETS_KEY);

  if (widgets->dof < self->rows->len
      && g_array_index (self->rows, Row, widgets->dof).widgets == widgets)
    g_array_index (self->rows, Row, widgets->dof).widgets = NULL;
  widgets->dof = G_MAXUINT;
}

/* How a DOF without a presenting handler is shown: its scale, unit and spin digits. */
static void
default_unit (KmJointPanel  *self,
              gboolean       angular,
              Row           *row,
              guint         *digits,
              double        *step)
{
  KmUnit unit = angular ? km_unit_for_angle (self->angle_unit)
                        : km_unit_for_length (self->length_unit);

  row->scale = unit.scale;
  row->unit = unit.symbol;
  *digits = unit.digits;
  *step = unit.step;
}

/* The Row and the adjustment of a DOF (the list row's widgets are bound to them). */
static GtkAdjustment *
make_row (KmJointPanel  *self,
          guint          dof,
          int            joint_index,
          const KmJoint *joint,
          guint          axis,
          Row           *row)
{
  static const char *axis_names[] = { "X", "Y", "Z" };
  KmBodyHandlerSet *handlers = get_handlers (self);
  gboolean angular = joint->type != KM_JOINT_PRISMATIC;
  const KmLimit *limit = &joint->limits[axis];
  KmJointPresentation presentation;
  double lower, upper, step;
  gboolean has_lower, has_upper;
  guint digits;
  GtkAdjustment *adjustment;

  *row = (Row) { joint_index, FALSE, 1.0 };

  /* Linked (mimic) joints: a master's range narrowed so its followers stay within theirs,
   * a follower's the image of its master's (what km_document_set_dof_value enforces). */
  if (self->document == NULL || !km_document_get_dof_range (self->document, dof, &lower, &upper))
    {
      lower = limit->limited ? limit->min : -INFINITY;
      upper = limit->limited ? limit->max : INFINITY;
    }
  has_lower = isfinite (lower);
  has_upper = isfinite (upper);
  row->open = !has_lower && !has_upper;
  if (!has_lower || !has_upper)
    km_range_span (lower, upper, 0.0, angular ? UNLIMITED_ANGLE : UNLIMITED_LENGTH, &lower,
                   &upper);

  if (handlers != NULL && joint->n_dof == 1
      && km_body_handler_set_get_presentation (handlers, joint_index, &presentation))
    {
      row->presented = TRUE;
      row->open = FALSE;
      row->unit = g_intern_string (presentation.unit_label);
      lower = presentation.shown_min;
      upper = presentation.shown_max;
      step = (upper - lower) > 0.0 ? pow (10.0, floor (log10 ((upper - lower) / 100.0))) : 1.0;
      digits = step >= 1.0 ? 0 : (guint) MIN (6.0, -floor (log10 (step)));
    }
  else
    {
      default_unit (self, angular, row, &digits, &step);
      lower *= row->scale;
      upper *= row->scale;
      row->half = (angular ? UNLIMITED_ANGLE : UNLIMITED_LENGTH) * row->scale;
    }
  row->step = step;
  row->digits = digits;

  adjustment = gtk_adjustment_new (lower, lower, upper, step, step * 10.0, 0.0);
  g_object_set_data (G_OBJECT (adjustment), "km-dof", GUINT_TO_POINTER (dof));
  /* Not g_signal_connect_object: each such handler is a closure the panel keeps a list of,
   * added to and searched one by one (thousands of DOFs). The panel lets go of its
   * adjustments' handlers itself (drop_adjustments). */
  g_signal_connect_swapped (adjustment, "value-changed",
                            G_CALLBACK (adjustment_value_changed_cb), self);

  if (joint->n_dof > 1)
    /* Translators: a joint name and the euler axis (X, Y or Z) of one of its rotations */
    row->name = g_strdup_printf (_("%s %s"), joint->name, axis_names[axis]);
  else
    row->name = g_strdup (joint->name);

  /* Never "-0.000": a range narrowed by a mimic multiplier of −1 may end at −0. */
  lower = km_number_field_shown_value (lower, digits);
  upper = km_number_field_shown_value (upper, digits);
  if (row->presented || (has_lower && has_upper))
    /* Translators: joint limits: the lower value, the upper value, then their unit */
    row->limits = g_strdup_printf (_("Limits: %.*f to %.*f %s"), (int) digits, lower,
                                   (int) digits, upper, row->unit);
  else if (has_lower)
    /* Translators: a joint limited on one side only: its lowest value, then the unit */
    row->limits = g_strdup_printf (_("Limits: %.*f or more %s"), (int) digits, lower, row->unit);
  else if (has_upper)
    /* Translators: a joint limited on one side only: its highest value, then the unit */
    row->limits = g_strdup_printf (_("Limits: %.*f or less %s"), (int) digits, upper, row->unit);
  else
    row->limits = g_strdup (_("Unlimited"));

  if (row->presented)
    {
      KmUnit known;
      gboolean linear;

      /* A handler's unit Kinema knows (mm, deg, …) takes the others of its kind typed
       * ("0.3 m"), as the built-in fields do; its own unit, only plain numbers and itself. */
      if (km_unit_for_symbol (row->unit, &linear, &known))
        {
          row->quantity = linear ? KM_QUANTITY_LENGTH : KM_QUANTITY_ANGLE;
          row->field_scale = known.scale;
        }
      else
        {
          row->quantity = KM_QUANTITY_NONE;
          row->field_scale = 1.0;
        }
    }
  else
    {
      row->quantity = angular ? KM_QUANTITY_ANGLE : KM_QUANTITY_LENGTH;
      row->field_scale = row->scale;
    }
  row->field_unit = row->unit;
  return adjustment;
}

/* Empties self->adjustments; a list row may keep showing one a little longer, which then
 * no longer edits the document. */
static void
drop_adjustments (KmJointPanel *self)
{
  for (guint d = 0; d < self->adjustments->len; d++)
    g_signal_handlers_disconnect_by_func (g_ptr_array_index (self->adjustments, d),
                                          adjustment_value_changed_cb, self);
  g_ptr_array_set_size (self->adjustments, 0);
}

/* Gives the list the next chunk of the adjustments (see the top), or the rest of them once it
 * has FILL_WIDGET_ROWS. Returns whether some are still to come. */
static gboolean
fill_chunk (KmJointPanel *self)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->items));
  guint left = self->adjustments->len - MIN (n, self->adjustments->len);
  guint add = n >= FILL_WIDGET_ROWS ? left : MIN (left, FILL_CHUNK_ROWS);

  if (add > 0)
    {
      self->updating = TRUE;
      g_list_store_splice (self->items, n, 0, self->adjustments->pdata + n, add);
      self->updating = FALSE;
    }
  return n + add < self->adjustments->len;
}

static gboolean
fill_idle_cb (gpointer data)
{
  KmJointPanel *self = data;

  if (fill_chunk (self))
    return G_SOURCE_CONTINUE;
  self->fill_idle = 0;
  return G_SOURCE_REMOVE;
}

/* A slider drag that ends without its release (the document, the panel or the
 * dragged slider's row goes: GTK sends the release to no one). */
static void
end_drag (KmJointPanel *self)
{
  if (self->dragged == G_MAXUINT)
    return;
  self->dragged = G_MAXUINT;
  if (self->document != NULL)
    km_document_release_edit (self->document, self);
}

static void
document_skeleton_changed_cb (KmJointPanel *self)
{
  KmSkeleton *skeleton = self->document ? km_document_get_skeleton (self->document) : NULL;
  guint n_dof = skeleton ? km_skeleton_get_n_dof (skeleton) : 0;
  g_autoptr(GPtrArray) adjustments = g_ptr_array_new_full (n_dof, g_object_unref);
  guint n_old = g_list_model_get_n_items (G_LIST_MODEL (self->items));
  guint n_first = n_dof;
  GtkAdjustment *scroll;

  end_drag (self);
  /* A row to be shown was one of the old DOFs (the selected joint's is asked for below). */
  self->scroll_dof = G_MAXUINT;
  km_after_paint_cancel (&self->scroll);

  /* The rows shown now show nothing until the list binds them anew. */
  for (guint d = 0; d < self->rows->len; d++)
    {
      Row *row = &g_array_index (self->rows, Row, d);

      if (row->widgets != NULL)
        row->widgets->dof = G_MAXUINT;
    }
  g_array_set_size (self->rows, 0);

  g_array_set_size (self->rows, n_dof);
  self->unit_chars = 2;
  for (guint d = 0; d < n_dof; d++)
    {
      int joint_index = km_skeleton_get_dof_joint (skeleton, d);
      const KmJoint *joint = km_skeleton_get_joint (skeleton, joint_index);
      Row *row = &g_array_index (self->rows, Row, d);

      g_ptr_array_add (adjustments, g_object_ref_sink (make_row (self, d, joint_index, joint,
                                                                 d - (guint) joint->dof_index,
                                                                 row)));
      self->unit_chars = MAX (self->unit_chars, (int) g_utf8_strlen (row->unit, -1));
    }

  /* One items-changed for the list with the first chunk (or every row, scrolled down: see
   * the top), whose rows then show the new adjustments; the other chunks later
   * (fill_chunk). */
  drop_adjustments (self);
  g_ptr_array_extend_and_steal (self->adjustments, g_steal_pointer (&adjustments));
  g_clear_handle_id (&self->fill_idle, g_source_remove);
  scroll = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (self->list_view));
  if (scroll == NULL || gtk_adjustment_get_value (scroll) <= gtk_adjustment_get_lower (scroll))
    n_first = MIN (self->adjustments->len, FILL_CHUNK_ROWS);
  self->updating = TRUE;
  g_list_store_splice (self->items, 0, n_old, self->adjustments->pdata, n_first);
  self->updating = FALSE;
  if (n_first < self->adjustments->len)
    self->fill_idle = g_idle_add (fill_idle_cb, self);
  gtk_stack_set_visible_child_name (self->stack, n_dof > 0 ? "rows" : "empty");
  document_pose_changed_cb (self);
  document_selected_joint_cb (self);
}

static void
set_unit (KmJointPanel *self,
          char        **field,
          const char   *unit,
          guint         prop_id)
{
  if (g_strcmp0 (*field, unit) == 0)
    return;
  g_free (*field);
  *field = g_strdup (unit);
  document_skeleton_changed_cb (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[prop_id]);
}

static void
km_joint_panel_dispose (GObject *object)
{
  KmJointPanel *self = (KmJointPanel *) object;
  GtkWidget *child;

  end_drag (self);
  g_clear_handle_id (&self->fill_idle, g_source_remove);
  km_after_paint_clear (&self->scroll);
  if (self->document_signals != NULL)
    g_signal_group_set_target (self->document_signals, NULL);
  g_clear_object (&self->document_signals);
  g_clear_object (&self->document);
  gtk_widget_dispose_template (GTK_WIDGET (self), KM_TYPE_JOINT_PANEL);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  g_clear_object (&self->items);
  if (self->adjustments != NULL)
    drop_adjustments (self);
  g_clear_pointer (&self->adjustments, g_ptr_array_unref);
  g_clear_pointer (&self->rows, g_array_unref);

  G_OBJECT_CLASS (km_joint_panel_parent_class)->dispose (object);
}

static void
km_joint_panel_finalize (GObject *object)
{
  KmJointPanel *self = (KmJointPanel *) object;

  g_free (self->angle_unit);
  g_free (self->length_unit);

  G_OBJECT_CLASS (km_joint_panel_parent_class)->finalize (object);
}

static void
km_joint_panel_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  KmJointPanel *self = KM_JOINT_PANEL (object);

  switch (prop_id)
    {
    case PROP_ANGLE_UNIT:
      g_value_set_string (value, self->angle_unit);
      break;
    case PROP_DOCUMENT:
      g_value_set_object (value, self->document);
      break;
    case PROP_LENGTH_UNIT:
      g_value_set_string (value, self->length_unit);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
km_joint_panel_set_property (GObject      *object,
                             guint         prop_id,
                             const GValue *value,
                             GParamSpec   *pspec)
{
  KmJointPanel *self = KM_JOINT_PANEL (object);

  switch (prop_id)
    {
    case PROP_ANGLE_UNIT:
      set_unit (self, &self->angle_unit, g_value_get_string (value), PROP_ANGLE_UNIT);
      break;
    case PROP_DOCUMENT:
      km_joint_panel_set_document (self, g_value_get_object (value));
      break;
    case PROP_LENGTH_UNIT:
      set_unit (self, &self->length_unit, g_value_get_string (value), PROP_LENGTH_UNIT);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
km_joint_panel_class_init (KmJointPanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = km_joint_panel_dispose;
  object_class->finalize = km_joint_panel_finalize;
  object_class->get_property = km_joint_panel_get_property;
  object_class->set_property = km_joint_panel_set_property;

  /* "degrees" or "radians", "metres" or "millimetres": the nicks of the GSettings keys
   * angle-unit and length-unit, so the window binds them directly. */
  properties[PROP_ANGLE_UNIT] =
    g_param_spec_string ("angle-unit", NULL, NULL, "degrees",
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_LENGTH_UNIT] =
    g_param_spec_string ("length-unit", NULL, NULL, "metres",
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_DOCUMENT] =
    g_param_spec_object ("document", NULL, NULL, KM_TYPE_DOCUMENT,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (KM_TYPE_CONFIGURATION_BAR);
  g_type_ensure (KM_TYPE_EFFECTOR_FIELDS);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/kinema/Kinema/ui/km-joint-panel.ui");
  gtk_widget_class_bind_template_child (widget_class, KmJointPanel, stack);
  gtk_widget_class_bind_template_child (widget_class, KmJointPanel, list_view);
  gtk_widget_class_bind_template_child (widget_class, KmJointPanel, configuration_bar);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "jointpanel");
}

static void
km_joint_panel_init (KmJointPanel *self)
{
  GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
  GtkNoSelection *selection;

  gtk_widget_init_template (GTK_WIDGET (self));

  self->adjustments = g_ptr_array_new_with_free_func (g_object_unref);
  self->items = g_list_store_new (GTK_TYPE_ADJUSTMENT);
  self->rows = g_array_new (FALSE, TRUE, sizeof (Row));
  g_array_set_clear_func (self->rows, (GDestroyNotify) row_clear);
  self->angle_unit = g_strdup ("degrees");
  self->length_unit = g_strdup ("metres");
  self->unit_chars = 2;
  self->dragged = G_MAXUINT;
  self->scroll_dof = G_MAXUINT;

  g_signal_connect (factory, "setup", G_CALLBACK (factory_setup_cb), self);
  g_signal_connect (factory, "bind", G_CALLBACK (factory_bind_cb), self);
  g_signal_connect (factory, "unbind", G_CALLBACK (factory_unbind_cb), self);
  gtk_list_view_set_factory (self->list_view, factory);
  g_object_unref (factory);
  selection = gtk_no_selection_new (g_object_ref (G_LIST_MODEL (self->items)));
  gtk_list_view_set_model (self->list_view, GTK_SELECTION_MODEL (selection));
  g_object_unref (selection);
  /* The rows lie on the panel as the grid they replace did, not on a list's background. */
  gtk_widget_remove_css_class (GTK_WIDGET (self->list_view), "view");
  km_after_paint_init (&self->scroll, GTK_WIDGET (self->list_view), SCROLL_MAX_FRAMES,
                       scroll_step, scroll_done, self);

  self->document_signals = g_signal_group_new (KM_TYPE_DOCUMENT);
  g_signal_group_connect_swapped (self->document_signals, "notify::skeleton",
                                  G_CALLBACK (document_skeleton_changed_cb), self);
  g_signal_group_connect_swapped (self->document_signals, "notify::pose",
                                  G_CALLBACK (document_pose_changed_cb), self);
  g_signal_group_connect_swapped (self->document_signals, "notify::selected-joint",
                                  G_CALLBACK (document_selected_joint_cb), self);
}

GtkWidget *
km_joint_panel_new (void)
{
  return g_object_new (KM_TYPE_JOINT_PANEL, NULL);
}

KmDocument *
km_joint_panel_get_document (KmJointPanel *self)
{
  g_return_val_if_fail (KM_IS_JOINT_PANEL (self), NULL);

  return self->document;
}

void
km_joint_panel_set_document (KmJointPanel *self,
                             KmDocument   *document)
{
  g_return_if_fail (KM_IS_JOINT_PANEL (self));
  g_return_if_fail (document == NULL || KM_IS_DOCUMENT (document));

  if (document != self->document)
    end_drag (self);
  if (!g_set_object (&self->document, document))
    return;

  g_signal_group_set_target (self->document_signals, document);
  km_configuration_bar_set_document (self->configuration_bar, document);
  document_skeleton_changed_cb (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DOCUMENT]);
}

guint
km_joint_panel_get_n_rows (KmJointPanel *self)
{
  g_return_val_if_fail (KM_IS_JOINT_PANEL (self), 0);

  return self->adjustments->len;
}

/**
 * km_joint_panel_get_unit:
 *
 * Returns: (transfer none) (nullable): the unit a DOF's row is shown in ("°", "mm", …)
 */
const char *
km_joint_panel_get_unit (KmJointPanel *self,
                         guint         dof)
{
  g_return_val_if_fail (KM_IS_JOINT_PANEL (self), NULL);

  return dof < self->rows->len ? g_array_index (self->rows, Row, dof).unit : NULL;
}

/**
 * km_joint_panel_get_row_tooltip:
 * @widget: a widget of one of the panel's rows
 *
 * What @widget's tooltip says for the DOF its row shows (built when GTK asks for it, by
 * query-tooltip): the joint's whole name on the name, its limits on the limits caption,
 * the slider and the field.
 *
 * Returns: (transfer none) (nullable): the tooltip's text, or %NULL when @widget has none
 */
const char *
km_joint_panel_get_row_tooltip (KmJointPanel *self,
                                GtkWidget    *widget)
{
  RowWidgets *widgets;
  const Row *row;

  g_return_val_if_fail (KM_IS_JOINT_PANEL (self), NULL);
  g_return_val_if_fail (GTK_IS_WIDGET (widget), NULL);

  widgets = g_object_get_data (G_OBJECT (widget), TOOLTIP_ROW_KEY);
  if (widgets == NULL || widgets->dof >= self->rows->len)
    return NULL;
  row = &g_array_index (self->rows, Row, widgets->dof);
  return widget == widgets->name ? row->name : row->limits;
}

/**
 * km_joint_panel_get_adjustment:
 *
 * Returns: (transfer none) (nullable): the adjustment of a DOF's row, in display units
 */
GtkAdjustment *
km_joint_panel_get_adjustment (KmJointPanel *self,
                               guint         dof)
{
  g_return_val_if_fail (KM_IS_JOINT_PANEL (self), NULL);

  return dof < self->adjustments->len ? g_ptr_array_index (self->adjustments, dof) : NULL;
}
