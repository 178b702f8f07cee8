/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-graph-view"

#include "config.h"

#include <math.h>
#include <glib/gi18n.h>

#include "km-graph-view.h"
#include "km-document-edit.h"

/*
 * The selected joint's DOF values over the solved animation (all DOFs, thinner, when no
 * joint is selected), each on its limit band, with the target keyframes marked along the
 * bottom and the current frame as a cursor. The time axis is the time bar's range, which
 * reaches past the motion (KmDocument:timeline-frames): there the motion's last pose
 * holds, and so does each curve, so that the cursor is always on the graph. A DOF limited
 * on one side only gets a band from its finite limit to the edge of the plot on the
 * allowed side; the value axis spans a finite stretch of its range (km_range_span).
 * Clicking or dragging sets the current frame; dragging a keyframe's mark moves that
 * keyframe to another frame (one undo step).
 * Drawn with cairo: a few thousand segments at most, well within a frame. With nothing to
 * plot (no body, or a body without DOFs) a centred hint says so over the theme's background,
 * rather than a blank page.
 */

#define MARGIN 8.0
#define KEY_MARK 5.0
/* How close (pixels) a press must come to a keyframe's mark to grab it. */
#define KEY_PICK 6.0
/* How much of a range open on one side the value axis shows, at least (half of it about
 * the DOF's neutral value, km_range_seed): a turn, or a metre. */
#define OPEN_SPAN_ANGLE G_PI
#define OPEN_SPAN_LENGTH 0.5
/* The part of that stretch shown beyond the finite limit, outside the band. */
#define OPEN_SPAN_ROOM 0.1

struct _KmGraphView
{
  GtkWidget       parent_instance;

  /* Template widgets */
  GtkDrawingArea *area;
  GtkLabel       *hint;

  /* Owned */
  KmDocument     *document;
  GSignalGroup   *document_signals;

  /* A keyframe mark being dragged: from which frame (-1: none), and where it would land. */
  int             key_from;
  guint           key_to;
};

enum {
  PROP_0,
  PROP_DOCUMENT,
  N_PROPS
};

G_DEFINE_FINAL_TYPE (KmGraphView, km_graph_view, GTK_TYPE_WIDGET)

static GParamSpec *properties[N_PROPS];

static void
set_rgb (cairo_t *cr,
         guint    r,
         guint    g,
         guint    b)
{
  cairo_set_source_rgb (cr, r / 255.0, g / 255.0, b / 255.0);
}

static void
curve_rgb (cairo_t *cr,
           guint    index)
{
  static const guint8 rgb[3][3] = {
    { KM_GRAPH_CURVE_0_RGB }, { KM_GRAPH_CURVE_1_RGB }, { KM_GRAPH_CURVE_2_RGB },
  };

  set_rgb (cr, rgb[index % 3][0], rgb[index % 3][1], rgb[index % 3][2]);
}

/* The frames along the time axis: the time bar's range. */
static guint
n_frames (KmGraphView *self)
{
  return self->document ? MAX (km_document_get_timeline_frames (self->document), 1) : 1;
}

/* Whether DOF @dof of @skeleton is a length (a prismatic joint's), not an angle. */
static gboolean
dof_is_linear (KmSkeleton *skeleton,
               guint       dof)
{
  for (guint i = 0; i < km_skeleton_get_n_joints (skeleton); i++)
    {
      const KmJoint *j = km_skeleton_get_joint (skeleton, i);

      if (j->n_dof > 0 && j->dof_index >= 0 && dof >= (guint) j->dof_index
          && dof < (guint) j->dof_index + j->n_dof)
        return j->type == KM_JOINT_PRISMATIC;
    }
  return FALSE;
}

/* The finite stretch of [@lower, @upper] the value axis shows: all of it when both ends
 * are finite, a stretch from the finite end inwards when one is, none when neither is. */
static gboolean
limit_span (double    lower,
            double    upper,
            gboolean  linear,
            double   *from,
            double   *to)
{
  if (isfinite (lower) && isfinite (upper))
    {
      *from = lower;
      *to = upper;
      return TRUE;
    }
  if (!isfinite (lower) && !isfinite (upper))
    return FALSE;
  km_range_span (lower, upper, km_range_seed (lower, upper, linear),
                 linear ? OPEN_SPAN_LENGTH : OPEN_SPAN_ANGLE, from, to);
  /* A little room past the finite end, so that the band's edge shows where it is. */
  if (isfinite (lower))
    *from -= OPEN_SPAN_ROOM * (*to - *from);
  else
    *to += OPEN_SPAN_ROOM * (*to - *from);
  return isfinite (*from) && isfinite (*to);
}

static void
draw_cb (GtkDrawingArea *area,
         cairo_t        *cr,
         int             width,
         int             height,
         gpointer        user_data)
{
  KmGraphView *self = KM_GRAPH_VIEW (user_data);
  KmSkeleton *skeleton;
  KmAnimation *animation;
  KmTargetTrack *targets;
  guint first_dof = 0, n_dof, n_anim = 0, total_dof;
  double *lower, *upper, lo = INFINITY, hi = -INFINITY, plot_h = height - 2 * MARGIN - KEY_MARK;
  double cursor;
  int joint;

  if (self->document == NULL || (skeleton = km_document_get_skeleton (self->document)) == NULL
      || plot_h <= 1 || width <= 2 * MARGIN)
    return;

  total_dof = km_skeleton_get_n_dof (skeleton);
  n_dof = total_dof;
  joint = km_document_get_selected_joint (self->document);
  if (joint >= 0 && (guint) joint < km_skeleton_get_n_joints (skeleton)
      && km_skeleton_get_joint (skeleton, joint)->n_dof > 0)
    {
      const KmJoint *j = km_skeleton_get_joint (skeleton, joint);

      first_dof = j->dof_index;
      n_dof = j->n_dof;
    }
  if (n_dof == 0)
    return;

  animation = km_document_get_animation (self->document);
  if (animation != NULL && km_animation_get_n_dof (animation) == total_dof)
    n_anim = km_animation_get_n_frames (animation);

  lower = g_new (double, total_dof);
  upper = g_new (double, total_dof);
  km_skeleton_get_dof_limits (skeleton, lower, upper);
  for (guint d = first_dof; d < first_dof + n_dof; d++)
    {
      double from, to;

      if (limit_span (lower[d], upper[d], dof_is_linear (skeleton, d), &from, &to))
        lo = MIN (lo, from), hi = MAX (hi, to);
    }
  for (guint f = 0; f < n_anim; f++)
    {
      const double *q = km_animation_get_frame (animation, f);

      for (guint d = first_dof; q != NULL && d < first_dof + n_dof; d++)
        if (isfinite (q[d]))
          lo = MIN (lo, q[d]), hi = MAX (hi, q[d]);
    }
  if (!isfinite (lo) || !isfinite (hi))
    lo = -1, hi = 1;
  if (hi - lo < 1e-9)
    lo -= 0.5, hi += 0.5;

#define Y_OF(v) (MARGIN + (hi - (v)) / (hi - lo) * plot_h)

  /* Limit bands first, so curves lie on top: an open end reaches the plot's edge. */
  set_rgb (cr, KM_GRAPH_BAND_RGB);
  for (guint d = first_dof; d < first_dof + n_dof; d++)
    if (isfinite (lower[d]) || isfinite (upper[d]))
      {
        double top = isfinite (upper[d]) ? Y_OF (upper[d]) : MARGIN;
        double bottom = isfinite (lower[d]) ? Y_OF (lower[d]) : MARGIN + plot_h;

        top = CLAMP (top, MARGIN, MARGIN + plot_h);
        bottom = CLAMP (bottom, MARGIN, MARGIN + plot_h);
        if (bottom > top)
          {
            cairo_rectangle (cr, MARGIN, top, width - 2 * MARGIN, bottom - top);
            cairo_fill (cr);
          }
      }

  cairo_set_line_width (cr, n_dof == total_dof && n_dof > 3 ? 1.0 : 2.0);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
  for (guint d = first_dof; d < first_dof + n_dof && n_anim > 0; d++)
    {
      gboolean started = FALSE;

      for (guint f = 0; f < n_anim; f++)
        {
          const double *q = km_animation_get_frame (animation, f);
          double x = km_graph_view_x_for_frame (self, f);

          if (q == NULL || !isfinite (q[d]))
            {
              started = FALSE;
              continue;
            }
          if (started)
            cairo_line_to (cr, x, Y_OF (q[d]));
          else
            cairo_move_to (cr, x, Y_OF (q[d]));
          started = TRUE;
        }
      /* Past the motion its last pose holds, to the end of the time bar's range. */
      if (started && n_anim < n_frames (self))
        {
          double y;

          cairo_get_current_point (cr, NULL, &y);
          cairo_line_to (cr, km_graph_view_x_for_frame (self, n_frames (self) - 1), y);
        }
      curve_rgb (cr, d - first_dof);
      cairo_stroke (cr);
    }
#undef Y_OF

  targets = km_document_get_targets (self->document);
  if (targets != NULL)
    {
      const KmTargetKeyframe *keys;
      GdkRGBA color;
      guint n = 0;

      keys = km_target_track_get_keyframes (targets, &n);
      /* Below the plot, on the theme's background: in its text colour, as the time bar's
       * ticks (a fixed light grey all but vanished on a light theme). */
      gtk_style_context_get_color (gtk_widget_get_style_context (GTK_WIDGET (area)), &color);
      gdk_cairo_set_source_rgba (cr, &color);
      for (guint i = 0; i < n; i++)
        {
          /* The one being dragged is drawn where it would land. */
          double x = km_graph_view_x_for_frame (self, (int) keys[i].frame == self->key_from
                                                      ? self->key_to : keys[i].frame);

          cairo_move_to (cr, x, height - MARGIN - KEY_MARK);
          cairo_line_to (cr, x + KEY_MARK, height - MARGIN);
          cairo_line_to (cr, x - KEY_MARK, height - MARGIN);
          cairo_close_path (cr);
        }
      cairo_fill (cr);
    }

  set_rgb (cr, KM_GRAPH_CURSOR_RGB);
  cursor = round (km_graph_view_x_for_frame (self, km_document_get_current_frame (self->document)));
  cairo_rectangle (cr, cursor - 1, 0, 2, height);
  cairo_fill (cr);

  g_free (lower);
  g_free (upper);
}

static void
seek (KmGraphView *self,
      double       x)
{
  if (self->document != NULL)
    km_document_set_current_frame (self->document, km_graph_view_frame_at (self, x));
}

/* The keyframe whose mark is nearest (@x, @y), within KEY_PICK pixels; -1 for none. */
static int
keyframe_at (KmGraphView *self,
             double       x,
             double       y)
{
  KmTargetTrack *targets = self->document ? km_document_get_targets (self->document) : NULL;
  double height = gtk_widget_get_height (GTK_WIDGET (self->area)), best = KEY_PICK;
  const KmTargetKeyframe *keys;
  guint n = 0;
  int found = -1;

  if (targets == NULL || y < height - MARGIN - KEY_MARK - KEY_PICK)
    return -1;
  keys = km_target_track_get_keyframes (targets, &n);
  for (guint i = 0; i < n; i++)
    {
      double d = fabs (km_graph_view_x_for_frame (self, keys[i].frame) - x);

      if (d <= best)
        best = d, found = (int) keys[i].frame;
    }
  return found;
}

/* A press on a keyframe's mark grabs it; anywhere else it sets the time. */
static void
drag_begin_cb (KmGraphView    *self,
               double          x,
               double          y,
               GtkGestureDrag *gesture)
{
  self->key_from = keyframe_at (self, x, y);
  if (self->key_from >= 0)
    {
      self->key_to = (guint) self->key_from;
      gtk_widget_queue_draw (GTK_WIDGET (self->area));
    }
  else
    seek (self, x);
}

static void
drag_update_cb (KmGraphView    *self,
                double          dx,
                double          dy,
                GtkGestureDrag *gesture)
{
  double x, y;

  if (!gtk_gesture_drag_get_start_point (gesture, &x, &y))
    return;
  if (self->key_from < 0)
    {
      seek (self, x + dx);
      return;
    }
  self->key_to = km_graph_view_frame_at (self, x + dx);
  gtk_widget_queue_draw (GTK_WIDGET (self->area));
}

static void
drag_end_cb (KmGraphView    *self,
             double          dx,
             double          dy,
             GtkGestureDrag *gesture)
{
  int from = self->key_from;

  if (from >= 0 && self->document != NULL)
    {
      drag_update_cb (self, dx, dy, gesture);
      self->key_from = -1;
      if (self->key_to != (guint) from
          && km_document_move_keyframe (self->document, (guint) from, self->key_to))
        km_document_set_current_frame (self->document, self->key_to);
    }
  self->key_from = -1;
  gtk_widget_queue_draw (GTK_WIDGET (self->area));
}

/* A grab ends without moving anything (another gesture took over, or the widget went). */
static void
drag_cancel_cb (KmGraphView      *self,
                GdkEventSequence *sequence,
                GtkGesture       *gesture)
{
  self->key_from = -1;
  gtk_widget_queue_draw (GTK_WIDGET (self->area));
}

/* The hint over the plot when there is nothing to plot (draw_cb then draws nothing). */
static void
update_hint (KmGraphView *self)
{
  KmSkeleton *skeleton = self->document ? km_document_get_skeleton (self->document) : NULL;
  const char *text = NULL;

  if (self->document != NULL && skeleton == NULL)
    text = _("No body to plot");
  else if (skeleton != NULL && km_skeleton_get_n_dof (skeleton) == 0)
    text = _("No movable joints to plot");
  if (text != NULL)
    gtk_label_set_text (self->hint, text);
  gtk_widget_set_visible (GTK_WIDGET (self->hint), text != NULL);
}

static void
queue_draw_cb (KmGraphView *self)
{
  gtk_widget_queue_draw (GTK_WIDGET (self->area));
}

static void
km_graph_view_dispose (GObject *object)
{
  KmGraphView *self = (KmGraphView *) object;

  if (self->document_signals != NULL)
    g_signal_group_set_target (self->document_signals, NULL);
  g_clear_object (&self->document_signals);
  g_clear_object (&self->document);
  gtk_widget_dispose_template (GTK_WIDGET (self), KM_TYPE_GRAPH_VIEW);

  G_OBJECT_CLASS (km_graph_view_parent_class)->dispose (object);
}

static void
km_graph_view_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  KmGraphView *self = KM_GRAPH_VIEW (object);

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
km_graph_view_set_property (GObject      *object,
                            guint         prop_id,
                            const GValue *value,
                            GParamSpec   *pspec)
{
  KmGraphView *self = KM_GRAPH_VIEW (object);

  switch (prop_id)
    {
    case PROP_DOCUMENT:
      km_graph_view_set_document (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
km_graph_view_class_init (KmGraphViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = km_graph_view_dispose;
  object_class->get_property = km_graph_view_get_property;
  object_class->set_property = km_graph_view_set_property;

  properties[PROP_DOCUMENT] =
    g_param_spec_object ("document", NULL, NULL, KM_TYPE_DOCUMENT,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/kinema/Kinema/ui/km-graph-view.ui");
  gtk_widget_class_bind_template_child (widget_class, KmGraphView, area);
  gtk_widget_class_bind_template_child (widget_class, KmGraphView, hint);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "graphview");
}

static void
km_graph_view_init (KmGraphView *self)
{
  static const char *redraw_on[] = {
    "notify::animation", "notify::current-frame", "notify::n-frames", "notify::selected-joint",
    "notify::skeleton", "notify::solve-progress", "notify::targets", "notify::timeline-frames",
  };
  GtkGesture *gesture;

  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_drawing_area_set_draw_func (self->area, draw_cb, self, NULL);
  self->key_from = -1;

  /* One drag gesture: its press (drag-begin) also serves a plain click. */
  gesture = gtk_gesture_drag_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (gesture), GDK_BUTTON_PRIMARY);
  g_signal_connect_swapped (gesture, "drag-begin", G_CALLBACK (drag_begin_cb), self);
  g_signal_connect_swapped (gesture, "drag-update", G_CALLBACK (drag_update_cb), self);
  g_signal_connect_swapped (gesture, "drag-end", G_CALLBACK (drag_end_cb), self);
  g_signal_connect_swapped (gesture, "cancel", G_CALLBACK (drag_cancel_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self->area), GTK_EVENT_CONTROLLER (gesture));

  self->document_signals = g_signal_group_new (KM_TYPE_DOCUMENT);
  for (guint i = 0; i < G_N_ELEMENTS (redraw_on); i++)
    g_signal_group_connect_swapped (self->document_signals, redraw_on[i],
                                    G_CALLBACK (queue_draw_cb), self);
  g_signal_group_connect_swapped (self->document_signals, "notify::skeleton",
                                  G_CALLBACK (update_hint), self);
}

GtkWidget *
km_graph_view_new (void)
{
  return g_object_new (KM_TYPE_GRAPH_VIEW, NULL);
}

KmDocument *
km_graph_view_get_document (KmGraphView *self)
{
  g_return_val_if_fail (KM_IS_GRAPH_VIEW (self), NULL);

  return self->document;
}

void
km_graph_view_set_document (KmGraphView *self,
                            KmDocument  *document)
{
  g_return_if_fail (KM_IS_GRAPH_VIEW (self));
  g_return_if_fail (document == NULL || KM_IS_DOCUMENT (document));

  if (!g_set_object (&self->document, document))
    return;

  g_signal_group_set_target (self->document_signals, document);
  update_hint (self);
  gtk_widget_queue_draw (GTK_WIDGET (self->area));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DOCUMENT]);
}

/* The column (widget coordinates) where @frame is drawn: the time axis spans the time
 * bar's range. */
double
km_graph_view_x_for_frame (KmGraphView *self,
                           double       frame)
{
  double width, last;

  g_return_val_if_fail (KM_IS_GRAPH_VIEW (self), 0.0);

  width = gtk_widget_get_width (GTK_WIDGET (self->area));
  last = MAX (n_frames (self), 2) - 1;
  return MARGIN + frame / last * MAX (width - 2 * MARGIN, 1.0);
}

/**
 * km_graph_view_get_keyframe_point:
 * @x: (out): the column of the keyframe's mark
 * @y: (out): the row of its middle
 *
 * Where the mark of a keyframe at @frame is drawn (tests drag it with real input); for a
 * frame without a keyframe, where its mark would be.
 *
 * Returns: %FALSE when @frame is past the end of the time bar's range
 */
gboolean
km_graph_view_get_keyframe_point (KmGraphView *self,
                                  guint        frame,
                                  double      *x,
                                  double      *y)
{
  g_return_val_if_fail (KM_IS_GRAPH_VIEW (self), FALSE);
  g_return_val_if_fail (x != NULL && y != NULL, FALSE);

  if (frame >= n_frames (self))
    return FALSE;
  *x = km_graph_view_x_for_frame (self, frame);
  *y = gtk_widget_get_height (GTK_WIDGET (self->area)) - MARGIN - KEY_MARK / 2;
  return TRUE;
}

/* The frame nearest column @x, within the time bar's range. */
guint
km_graph_view_frame_at (KmGraphView *self,
                        double       x)
{
  double width, last, f;

  g_return_val_if_fail (KM_IS_GRAPH_VIEW (self), 0);

  width = MAX (gtk_widget_get_width (GTK_WIDGET (self->area)) - 2 * MARGIN, 1.0);
  last = n_frames (self) - 1;
  f = round ((x - MARGIN) / width * MAX (last, 1.0));
  return (guint) CLAMP (f, 0.0, last);
}
