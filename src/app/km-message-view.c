/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-message-view"

#include "config.h"

#include <glib/gi18n.h>

#include "km-message-view.h"
#include "km-message.h"

struct _KmMessageView
{
  GtkWidget          parent_instance;

  /* Template widgets */
  GtkListView       *list_view;
  GtkScrolledWindow *scroller;
  GtkWidget         *empty_label;   /* instead of the list while it is empty */

  /* Owned */
  KmDocument        *document;
  GSignalGroup      *messages_signals;
  GtkWidget         *last_row;      /* weak: the row that had the focus last */
};

enum {
  PROP_0,
  PROP_DOCUMENT,
  N_PROPS
};

G_DEFINE_FINAL_TYPE (KmMessageView, km_message_view, GTK_TYPE_WIDGET)

static GParamSpec *properties[N_PROPS];

static void
scroll_to_end_cb (gpointer data)
{
  g_autoptr(KmMessageView) self = data;
  GtkAdjustment *adj = gtk_scrolled_window_get_vadjustment (self->scroller);

  gtk_adjustment_set_value (adj, gtk_adjustment_get_upper (adj));
}

/* Follow the newest message, once the list has measured it. */
static void
messages_items_changed_cb (KmMessageView *self,
                           guint          position,
                           guint          removed,
                           guint          added,
                           GListModel    *model)
{
  gboolean any = g_list_model_get_n_items (model) > 0;

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "messages.clear", any);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "messages.copy", any);
  gtk_widget_set_visible (GTK_WIDGET (self->scroller), any);
  gtk_widget_set_visible (self->empty_label, !any);
  if (added > 0)
    g_idle_add_once (scroll_to_end_cb, g_object_ref (self));
}

static void
clear_action (GtkWidget  *widget,
              const char *action_name,
              GVariant   *parameter)
{
  KmMessageView *self = KM_MESSAGE_VIEW (widget);

  if (self->document != NULL)
    km_document_clear_messages (self->document);
}

static void
copy_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  KmMessageView *self = KM_MESSAGE_VIEW (widget);
  g_autoptr(GString) text = g_string_new (NULL);
  GListModel *messages;

  if (self->document == NULL)
    return;

  messages = km_document_get_messages (self->document);
  for (guint i = 0; i < g_list_model_get_n_items (messages); i++)
    {
      g_autoptr(KmMessage) message = g_list_model_get_item (messages, i);
      g_autofree char *line = km_message_to_string (message);

      g_string_append (text, line);
      g_string_append_c (text, '\n');
    }
  gdk_clipboard_set_text (gtk_widget_get_clipboard (widget), text->str);
}

/* The first row of the list that is wholly in view (else the last one partly in view), to
 * take the focus as Tab comes into the list. */
static GtkWidget *
row_in_view (KmMessageView *self)
{
  GtkWidget *scroller = GTK_WIDGET (self->scroller);
  int height = gtk_widget_get_height (scroller);
  GtkWidget *partly = NULL;

  for (GtkWidget *row = gtk_widget_get_first_child (GTK_WIDGET (self->list_view)); row != NULL;
       row = gtk_widget_get_next_sibling (row))
    {
      graphene_rect_t bounds;

      if (!gtk_widget_get_focusable (row) || !gtk_widget_get_child_visible (row)
          || !gtk_widget_compute_bounds (row, scroller, &bounds))
        continue;
      if (bounds.origin.y >= 0 && bounds.origin.y + bounds.size.height <= height)
        return row;
      if (bounds.origin.y + bounds.size.height > 0 && bounds.origin.y < height)
        partly = row;
    }
  return partly;
}

/* The row of the list at or above @widget (NULL where @widget is in none). */
static GtkWidget *
row_of (KmMessageView *self,
        GtkWidget     *widget)
{
  GtkWidget *list = GTK_WIDGET (self->list_view);

  for (GtkWidget *w = widget; w != NULL && w != list; w = gtk_widget_get_parent (w))
    if (gtk_widget_get_parent (w) == list)
      return w;
  return NULL;
}

/* Whether @row shows, at least in part, in the scrolled window. */
static gboolean
row_shows (KmMessageView *self,
           GtkWidget     *row)
{
  GtkWidget *scroller = GTK_WIDGET (self->scroller);
  graphene_rect_t bounds;

  return gtk_widget_get_mapped (row) && gtk_widget_get_child_visible (row)
         && gtk_widget_compute_bounds (row, scroller, &bounds)
         && bounds.origin.y + bounds.size.height > 0
         && bounds.origin.y < gtk_widget_get_height (scroller);
}

/* Scrolls the list so that all of @row is in view (its top, where it is taller). */
static void
scroll_row_into_view (KmMessageView *self,
                      GtkWidget     *row)
{
  GtkAdjustment *adj = gtk_scrolled_window_get_vadjustment (self->scroller);
  int height = gtk_widget_get_height (GTK_WIDGET (self->scroller));
  graphene_rect_t bounds;
  double top, bottom;

  if (!gtk_widget_compute_bounds (row, GTK_WIDGET (self->scroller), &bounds))
    return;
  top = bounds.origin.y;
  bottom = top + bounds.size.height;
  if (top < 0)
    gtk_adjustment_set_value (adj, gtk_adjustment_get_value (adj) + top);
  else if (bottom > height)
    gtk_adjustment_set_value (adj, gtk_adjustment_get_value (adj) + MIN (top, bottom - height));
}

/*
 * Tab comes into the list: to the row that had the focus last, while it is in view, else to
 * the first row in view, scrolled wholly into view. (GTK 4.8's list view goes back to its
 * focus row even where that is scrolled away, out of sight, or, where it had none, keeps the
 * focus where it was.)
 */
static gboolean
enter_list (KmMessageView *self)
{
  GtkWidget *row = self->last_row;

  if (row == NULL || gtk_widget_get_parent (row) != GTK_WIDGET (self->list_view)
      || !gtk_widget_get_focusable (row) || !row_shows (self, row))
    row = row_in_view (self);
  if (row == NULL || !gtk_widget_grab_focus (row))
    return FALSE;
  scroll_row_into_view (self, row);
  return TRUE;
}

/* Keeps the row with the focus, to come back to. */
static void
focus_widget_changed_cb (KmMessageView *self,
                         GParamSpec    *pspec,
                         GtkRoot       *root)
{
  GtkWidget *row = row_of (self, gtk_root_get_focus (root));

  if (row != NULL)
    g_set_weak_pointer (&self->last_row, row);
}

static void
km_message_view_root (GtkWidget *widget)
{
  GTK_WIDGET_CLASS (km_message_view_parent_class)->root (widget);
  g_signal_connect_object (gtk_widget_get_root (widget), "notify::focus-widget",
                           G_CALLBACK (focus_widget_changed_cb), widget, G_CONNECT_SWAPPED);
}

static void
km_message_view_unroot (GtkWidget *widget)
{
  g_signal_handlers_disconnect_by_func (gtk_widget_get_root (widget), focus_widget_changed_cb,
                                        widget);
  GTK_WIDGET_CLASS (km_message_view_parent_class)->unroot (widget);
}

/*
 * The list of messages is one Tab stop: Tab comes to one of its rows (the lines' texts take
 * no focus), ↑/↓ go from row to row, and Tab leaves the list (GtkListView does that from a
 * row). GTK 4.8's list view makes every row a Tab stop; the view leads Tab itself: the
 * buttons above the list, then the list, and back.
 */
static gboolean
km_message_view_focus (GtkWidget        *widget,
                       GtkDirectionType  direction)
{
  KmMessageView *self = KM_MESSAGE_VIEW (widget);
  GtkWidget *list = GTK_WIDGET (self->list_view);
  GtkWidget *above = gtk_widget_get_prev_sibling (GTK_WIDGET (self->scroller));
  GtkRoot *root = gtk_widget_get_root (widget);
  GtkWidget *focus = root != NULL ? gtk_root_get_focus (root) : NULL;
  gboolean within = focus != NULL && gtk_widget_is_ancestor (focus, widget);

  if ((direction != GTK_DIR_TAB_FORWARD && direction != GTK_DIR_TAB_BACKWARD)
      || !gtk_widget_is_drawable (list))
    return GTK_WIDGET_CLASS (km_message_view_parent_class)->focus (widget, direction);
  /* From a row (GTK 4.8's list view would go on to the next row): out of the list, to the
   * buttons above it or on past the view. */
  if (focus != NULL && gtk_widget_is_ancestor (focus, list))
    return direction == GTK_DIR_TAB_BACKWARD && above != NULL
           && gtk_widget_child_focus (above, direction);

  /* Forward: the buttons (from the first, or on from the one with the focus), the list. */
  if (direction == GTK_DIR_TAB_FORWARD)
    return (above != NULL && gtk_widget_child_focus (above, direction))
           || enter_list (self);
  /* Backward from a button: the one before it, else on out of the view. */
  if (within)
    return above != NULL && gtk_widget_child_focus (above, direction);
  /* Backward from below: the list, then the buttons. */
  return enter_list (self)
         || (above != NULL && gtk_widget_child_focus (above, direction));
}

/*
 * A press on a line focuses its row, so that the keys that follow go to the list (↑/↓,
 * Ctrl+C) rather than to where the focus was: the line's text takes the press (a drag selects
 * in it) but, taking no focus, it keeps GTK's row from taking the focus either. This comes
 * before the text, and claims nothing: the drag still selects.
 */
static void
list_pressed_cb (KmMessageView   *self,
                 int              n_press,
                 double           x,
                 double           y,
                 GtkGestureClick *gesture)
{
  GtkWidget *list = GTK_WIDGET (self->list_view);
  GtkWidget *row = row_of (self, gtk_widget_pick (list, x, y, GTK_PICK_DEFAULT));

  if (row != NULL && gtk_widget_get_focusable (row) && !gtk_widget_has_focus (row))
    gtk_widget_grab_focus (row);
}

/* The labels of @widget and below, in order, into @labels. */
static void
collect_labels (GtkWidget *widget,
                GPtrArray *labels)
{
  if (GTK_IS_LABEL (widget))
    g_ptr_array_add (labels, widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    collect_labels (child, labels);
}

/*
 * Ctrl+C in the list: the text selected in a line (the lines' texts take no focus, so their
 * own Ctrl+C cannot), else the line of the row with the focus, as Copy All Messages writes
 * it ("12:00:01 Warning: …").
 */
static void
copy_line_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  KmMessageView *self = KM_MESSAGE_VIEW (widget);
  GtkWidget *list = GTK_WIDGET (self->list_view);
  GtkRoot *root = gtk_widget_get_root (widget);
  GtkWidget *focus = root != NULL ? gtk_root_get_focus (root) : NULL;
  g_autoptr(GPtrArray) labels = g_ptr_array_new ();
  GtkWidget *row;
  int start, end;

  collect_labels (list, labels);
  for (guint i = 0; i < labels->len; i++)
    if (gtk_label_get_selection_bounds (labels->pdata[i], &start, &end))
      {
        const char *text = gtk_label_get_text (labels->pdata[i]);
        const char *from = g_utf8_offset_to_pointer (text, start);
        g_autofree char *part = g_strndup (from, g_utf8_offset_to_pointer (text, end) - from);

        gdk_clipboard_set_text (gtk_widget_get_clipboard (widget), part);
        return;
      }

  row = row_of (self, focus);
  if (row == NULL)
    return;
  g_ptr_array_set_size (labels, 0);
  collect_labels (row, labels);
  if (labels->len == 3)
    {
      g_autofree char *line = g_strdup_printf ("%s %s: %s",
                                               gtk_label_get_text (labels->pdata[0]),
                                               gtk_label_get_text (labels->pdata[1]),
                                               gtk_label_get_text (labels->pdata[2]));

      gdk_clipboard_set_text (gtk_widget_get_clipboard (widget), line);
    }
}

static void
km_message_view_dispose (GObject *object)
{
  KmMessageView *self = (KmMessageView *) object;
  GtkWidget *child;

  if (self->messages_signals != NULL)
    g_signal_group_set_target (self->messages_signals, NULL);
  g_clear_object (&self->messages_signals);
  g_clear_object (&self->document);
  g_clear_weak_pointer (&self->last_row);
  gtk_widget_dispose_template (GTK_WIDGET (self), KM_TYPE_MESSAGE_VIEW);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);

  G_OBJECT_CLASS (km_message_view_parent_class)->dispose (object);
}

static void
km_message_view_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  KmMessageView *self = KM_MESSAGE_VIEW (object);

  switch (prop_id)
    {
    case PROP_DOCUMENT:
      g_value_set_object (value, self->document);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
km_message_view_set_property (GObject      *object,
                              guint         prop_id,
                              const GValue *value,
                              GParamSpec   *pspec)
{
  KmMessageView *self = KM_MESSAGE_VIEW (object);

  switch (prop_id)
    {
    case PROP_DOCUMENT:
      km_message_view_set_document (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
km_message_view_class_init (KmMessageViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = km_message_view_dispose;
  object_class->get_property = km_message_view_get_property;
  object_class->set_property = km_message_view_set_property;
  widget_class->focus = km_message_view_focus;
  widget_class->root = km_message_view_root;
  widget_class->unroot = km_message_view_unroot;

  properties[PROP_DOCUMENT] =
    g_param_spec_object ("document", NULL, NULL, KM_TYPE_DOCUMENT,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/kinema/Kinema/ui/km-message-view.ui");
  gtk_widget_class_bind_template_child (widget_class, KmMessageView, list_view);
  gtk_widget_class_bind_template_child (widget_class, KmMessageView, scroller);
  gtk_widget_class_bind_template_child (widget_class, KmMessageView, empty_label);

  gtk_widget_class_install_action (widget_class, "messages.clear", NULL, clear_action);
  gtk_widget_class_install_action (widget_class, "messages.copy", NULL, copy_action);
  gtk_widget_class_install_action (widget_class, "messages.copy-line", NULL, copy_line_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_c, GDK_CONTROL_MASK,
                                       "messages.copy-line", NULL);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "messageview");

  g_type_ensure (KM_TYPE_MESSAGE);
}

static void
km_message_view_init (KmMessageView *self)
{
  GtkGesture *press;

  gtk_widget_init_template (GTK_WIDGET (self));

  press = gtk_gesture_click_new ();
  gtk_event_controller_set_propagation_phase (GTK_EVENT_CONTROLLER (press), GTK_PHASE_CAPTURE);
  g_signal_connect_swapped (press, "pressed", G_CALLBACK (list_pressed_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self->list_view), GTK_EVENT_CONTROLLER (press));

  self->messages_signals = g_signal_group_new (G_TYPE_LIST_MODEL);
  g_signal_group_connect_swapped (self->messages_signals, "items-changed",
                                  G_CALLBACK (messages_items_changed_cb), self);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "messages.clear", FALSE);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "messages.copy", FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->scroller), FALSE);
}

GtkWidget *
km_message_view_new (void)
{
  return g_object_new (KM_TYPE_MESSAGE_VIEW, NULL);
}

KmDocument *
km_message_view_get_document (KmMessageView *self)
{
  g_return_val_if_fail (KM_IS_MESSAGE_VIEW (self), NULL);

  return self->document;
}

void
km_message_view_set_document (KmMessageView *self,
                              KmDocument    *document)
{
  GListModel *messages = NULL;
  g_autoptr(GtkNoSelection) selection = NULL;

  g_return_if_fail (KM_IS_MESSAGE_VIEW (self));
  g_return_if_fail (document == NULL || KM_IS_DOCUMENT (document));

  if (!g_set_object (&self->document, document))
    return;

  if (document != NULL)
    {
      messages = km_document_get_messages (document);
      selection = gtk_no_selection_new (g_object_ref (messages));
    }
  gtk_list_view_set_model (self->list_view, GTK_SELECTION_MODEL (selection));
  g_signal_group_set_target (self->messages_signals, messages);
  if (messages != NULL)
    messages_items_changed_cb (self, 0, 0, g_list_model_get_n_items (messages), messages);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DOCUMENT]);
}
