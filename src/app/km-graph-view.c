/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-graph-view"

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n.h>

#include "km-graph-view.h"
#include "km-document-edit.h"
#include "km-graph-axis.h"
#include "km-units.h"

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
 *
 * Around the plot, in the theme's text colour and font (Pango): a legend along the top
 * naming each curve beside a swatch of its colour (wrapping onto a few rows, then summing up
 * the rest; clicking an entry shows only that joint, clicking the shown joint's shows all of
 * them again), the value axis on the left (the top, middle and bottom of the span, in the
 * units the preferences name; with angles and lengths on one plot, an axis for each: the
 * angles on the left, the lengths on the right, each curve drawn against its own, see
 * km-graph-axis.c; a joint a body handler presents is plotted as the Pose tab shows it, in
 * the handler's unit, see PlotDof), and the time in seconds along the bottom, as the time bar counts it.
 * Everything is placed by compute_layout(), which the drawing, the hit tests and the
 * functions tests use all share.
 *
 * DOF d of the body is always drawn in curve colour d (curve_rgba), with other joints' curves
 * or alone: a curve is known by its colour.
 */

#define MARGIN 8.0
/* The legend's colour swatch, the room between it and its name, and between entries. */
#define SWATCH 10.0
#define SWATCH_GAP 4.0
#define ENTRY_GAP 12.0
/* Between the legend and the plot. */
#define LEGEND_GAP 4.0
/* Below the time labels. */
#define BOTTOM_MARGIN 2.0
/* Between the time axis' outer labels and the widget's sides (half the margin). */
#define TIME_LABEL_INSET (MARGIN / 2)
/* How much the legend's "+N more" is dimmed. */
#define DIM_ALPHA 0.55
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
  char           *angle_unit;
  char           *length_unit;

  /* A keyframe mark being dragged: from which frame (-1: none), and where it would land. */
  int             key_from;
  guint           key_to;
  /* The press was in the legend: the drag that follows does not seek. */
  gboolean        legend_press;
  /* ... on its "+N more": the release lists every curve in more_popover. */
  gboolean        more_press;
  GtkWidget      *more_popover;
};

enum {
  PROP_0,
  PROP_DOCUMENT,
  PROP_ANGLE_UNIT,
  PROP_LENGTH_UNIT,
  N_PROPS
};

/* A curve's legend entry. */
typedef struct
{
  char            *name;
  int              joint;
  guint            colour;    /* index into the curve colours */
  gboolean         shown;     /* laid out (else summed up in the "more" entry) */
  graphene_rect_t  swatch;
  graphene_rect_t  box;       /* swatch and name: what a click hits */
  PangoLayout     *layout;
} Entry;

/* The value axes, by the kind of value they hold. */
enum
{
  AXIS_ANGLES,
  AXIS_LENGTHS,
  AXIS_OTHERS,   /* a body handler's own unit */
  N_AXES
};

/* How a plotted DOF is drawn: in the unit the Pose tab shows it in. A DOF a body handler
 * presents in a length or angle unit (an actuator's length in mm) is drawn as that length or
 * angle (to_shown, then in metres or radians) on that kind's axis; one it presents in a
 * unit of its own, as the shown number on the third axis; any other as its value. */
typedef struct
{
  guint            axis;               /* AXIS_… */
  gboolean         presented;
  KmUnit           unit;               /* the Pose tab's */
  double           lower, upper;       /* its limits on its axis' scale */
} PlotDof;

/* What is plotted, and where everything goes (compute_layout). */
typedef struct
{
  guint            first_dof, n_dof;
  gboolean         selected;           /* one joint's DOFs, not all */
  /* The value axes: angles', lengths' and the handlers' own units' (each used when some
   * plotted DOF is of its kind). */
  KmGraphAxis      axes[N_AXES];
  PlotDof         *dofs;               /* n_dof of them, from first_dof */
  GArray          *entries;            /* of Entry */
  guint            n_more;             /* entries not shown */
  PangoLayout     *more;               /* their summary, or NULL */
  graphene_rect_t  more_box;
  double           legend_bottom;      /* a press above this (and the plot) is the legend's */
  PangoLayout     *time_labels[32];
  double           time_x[32];
  guint            n_times;
  double           time_h;
  graphene_rect_t  plot;
  double           marks_y;            /* the top of the keyframe marks, below the plot */
} Layout;

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

#define N_COLOURS 6
/* The golden angle, in turns: hues stepped by it never repeat and stay far apart. */
#define GOLDEN_TURN 0.381966

/* Curve @index's colour: the fixed ones first, then hues stepped by the golden angle, in
 * alternating strong and pale shades, so that every curve of a many-jointed body has its own
 * colour (the legend names it by colour). Mid-bright shades read on light and dark themes.
 * Rounded to 8 bits, as drawn, so that a swatch's pixels equal its colour. */
static void
curve_rgba (guint    index,
            GdkRGBA *rgba)
{
  static const guint8 rgb[N_COLOURS][3] = {
    { KM_GRAPH_CURVE_0_RGB }, { KM_GRAPH_CURVE_1_RGB }, { KM_GRAPH_CURVE_2_RGB },
    { KM_GRAPH_CURVE_3_RGB }, { KM_GRAPH_CURVE_4_RGB }, { KM_GRAPH_CURVE_5_RGB },
  };
  float r, g, b;

  if (index < N_COLOURS)
    {
      const guint8 *c = rgb[index];

      *rgba = (GdkRGBA) { c[0] / 255.0f, c[1] / 255.0f, c[2] / 255.0f, 1.0f };
      return;
    }
  index -= N_COLOURS;
  /* Start between the fixed red and orange hues. */
  gtk_hsv_to_rgb (fmodf (0.04f + index * GOLDEN_TURN, 1.0f),
                  index % 2 == 0 ? 0.85f : 0.55f,
                  index % 2 == 0 ? 0.80f : 0.95f, &r, &g, &b);
  *rgba = (GdkRGBA) { roundf (r * 255) / 255.0f, roundf (g * 255) / 255.0f,
                      roundf (b * 255) / 255.0f, 1.0f };
}

/* The frames along the time axis: the time bar's range. */
static guint
n_frames (KmGraphView *self)
{
  return self->document ? MAX (km_document_get_timeline_frames (self->document), 1) : 1;
}

/* The frames of @animation that are plotted: all of them, but while a solve streams its
 * frames into it only those solved so far (they come in frame order, each with its
 * residual): the rows after them are not a motion yet (zeros), so the curves end at the
 * last frame solved rather than drop to 0 there. */
static guint
plotted_frames (KmGraphView *self,
                KmAnimation *animation)
{
  guint n = km_animation_get_n_frames (animation), solved = 0;

  if (!km_document_get_solving (self->document) || !km_animation_has_residuals (animation))
    return n;
  while (solved < n && km_animation_get_residual (animation, solved, NULL, NULL))
    solved++;
  return solved;
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
entry_clear (gpointer data)
{
  Entry *entry = data;

  g_free (entry->name);
  g_clear_object (&entry->layout);
}

static void
layout_clear (Layout *l)
{
  g_clear_pointer (&l->entries, g_array_unref);
  g_clear_object (&l->more);
  for (guint a = 0; a < N_AXES; a++)
    km_graph_axis_clear (&l->axes[a]);
  g_clear_pointer (&l->dofs, g_free);
  for (guint i = 0; i < l->n_times; i++)
    g_clear_object (&l->time_labels[i]);
  l->n_times = 0;
}

/* The joint that DOF @dof of @skeleton belongs to, and its index. */
static const KmJoint *
joint_of_dof (KmSkeleton *skeleton,
              guint       dof,
              int        *index)
{
  *index = km_skeleton_get_dof_joint (skeleton, dof);
  return km_skeleton_get_joint (skeleton, (guint) *index);
}

/* The axis plotted DOF @dof is drawn against. */
static const KmGraphAxis *
axis_of (const Layout *l,
         guint         dof)
{
  return &l->axes[l->dofs[dof - l->first_dof].axis];
}

/* The axis on @side: with one kind of value plotted, its axis is on the left, none on the
 * right; with two, the first (angles, lengths, a handler's own unit) is on the left and the
 * other on the right. (A third kind, rare, is drawn against a span of its own, unlabelled;
 * the legend names its curves.) */
static const KmGraphAxis *
axis_on (const Layout    *l,
         GtkPositionType  side)
{
  guint n = 0;

  if (side != GTK_POS_LEFT && side != GTK_POS_RIGHT)
    return NULL;
  for (guint a = 0; a < N_AXES; a++)
    if (l->axes[a].used && n++ == (side == GTK_POS_LEFT ? 0 : 1))
      return &l->axes[a];
  return NULL;
}

/* A DOF's value on its axis' scale (see PlotDof). */
static double
plot_value (KmGraphView   *self,
            const PlotDof *dof,
            int            joint,
            double         value)
{
  KmBodyHandlerSet *handlers = km_document_get_body_handlers (self->document);

  if (!dof->presented || handlers == NULL)
    return value;
  return km_body_handler_set_to_shown (handlers, joint, value) / dof->unit.scale;
}

/* How DOF @d of @skeleton is plotted: as the Pose tab shows it (km-joint-panel.c). */
static void
plot_dof (KmGraphView *self,
          KmSkeleton  *skeleton,
          guint        d,
          double       lower,
          double       upper,
          PlotDof     *dof)
{
  KmBodyHandlerSet *handlers = km_document_get_body_handlers (self->document);
  int index = km_skeleton_get_dof_joint (skeleton, d);
  const KmJoint *joint = km_skeleton_get_joint (skeleton, (guint) index);
  KmJointPresentation presentation;
  gboolean linear = joint->type == KM_JOINT_PRISMATIC;

  *dof = (PlotDof) { linear ? AXIS_LENGTHS : AXIS_ANGLES, FALSE,
                     linear ? km_unit_for_length (self->length_unit)
                            : km_unit_for_angle (self->angle_unit),
                     lower, upper };
  if (handlers == NULL || joint->n_dof != 1
      || !km_body_handler_set_get_presentation (handlers, index, &presentation))
    return;

  dof->presented = TRUE;
  if (km_unit_for_symbol (presentation.unit_label, &linear, &dof->unit))
    dof->axis = linear ? AXIS_LENGTHS : AXIS_ANGLES;
  else
    {
      double span = fabs (presentation.shown_max - presentation.shown_min);
      double step = span > 0.0 ? pow (10.0, floor (log10 (span / 100.0))) : 1.0;

      /* The Pose tab's digits for the range (km-joint-panel.c). */
      dof->axis = AXIS_OTHERS;
      dof->unit = (KmUnit) { 1.0, g_intern_string (presentation.unit_label),
                             step >= 1.0 ? 0 : (guint) MIN (6.0, -floor (log10 (step))),
                             step };
    }
  dof->lower = MIN (presentation.shown_min, presentation.shown_max) / dof->unit.scale;
  dof->upper = MAX (presentation.shown_min, presentation.shown_max) / dof->unit.scale;
}

/* The plotted DOFs and the stretch of values each kind's axis spans (document units). */
static gboolean
compute_span (KmGraphView *self,
              Layout      *l)
{
  KmSkeleton *skeleton = km_document_get_skeleton (self->document);
  KmAnimation *animation = km_document_get_animation (self->document);
  guint total_dof = km_skeleton_get_n_dof (skeleton), n_anim = 0;
  g_autofree double *lower = NULL;
  g_autofree double *upper = NULL;
  int joint = km_document_get_selected_joint (self->document);

  l->first_dof = 0;
  l->n_dof = total_dof;
  if (joint >= 0 && (guint) joint < km_skeleton_get_n_joints (skeleton)
      && km_skeleton_get_joint (skeleton, joint)->n_dof > 0)
    {
      const KmJoint *j = km_skeleton_get_joint (skeleton, joint);

      l->first_dof = j->dof_index;
      l->n_dof = j->n_dof;
      l->selected = TRUE;
    }
  if (l->n_dof == 0)
    return FALSE;

  if (animation != NULL && km_animation_get_n_dof (animation) == total_dof)
    n_anim = plotted_frames (self, animation);
  lower = g_new (double, total_dof);
  upper = g_new (double, total_dof);
  km_skeleton_get_dof_limits (skeleton, lower, upper);
  for (guint a = 0; a < N_AXES; a++)
    km_graph_axis_init (&l->axes[a], a != AXIS_ANGLES);
  l->dofs = g_new (PlotDof, l->n_dof);
  for (guint d = l->first_dof; d < l->first_dof + l->n_dof; d++)
    {
      PlotDof *dof = &l->dofs[d - l->first_dof];
      int index = km_skeleton_get_dof_joint (skeleton, d);
      KmGraphAxis *axis;
      double from, to;

      plot_dof (self, skeleton, d, lower[d], upper[d], dof);
      axis = &l->axes[dof->axis];
      axis->used = TRUE;
      km_graph_axis_use_unit (axis, dof->unit);
      if (limit_span (dof->lower, dof->upper, dof->axis != AXIS_ANGLES, &from, &to))
        km_graph_axis_include (axis, from, to);
      for (guint f = 0; f < n_anim; f++)
        {
          const double *q = km_animation_get_frame (animation, f);

          if (q != NULL && isfinite (q[d]))
            {
              double v = plot_value (self, dof, index, q[d]);

              km_graph_axis_include (axis, v, v);
            }
        }
    }
  for (guint a = 0; a < N_AXES; a++)
    km_graph_axis_finish (&l->axes[a]);
  return TRUE;
}

/* The legend's entries, in rows from the top left; those that do not fit in @max_rows rows
 * are summed up at the end. Returns the legend's height. */
static double
layout_legend (KmGraphView *self,
               Layout      *l,
               double       width,
               int          max_rows)
{
  static const char *axis_names[] = { "X", "Y", "Z" };
  KmSkeleton *skeleton = km_document_get_skeleton (self->document);
  double avail = width - 2 * MARGIN, x = MARGIN, row_h = SWATCH, right;
  int row = 0, rows = 0, th;
  guint n_shown = 0;

  l->entries = g_array_new (FALSE, TRUE, sizeof (Entry));
  g_array_set_clear_func (l->entries, entry_clear);
  for (guint d = l->first_dof; d < l->first_dof + l->n_dof; d++)
    {
      Entry entry = { NULL, -1, d, FALSE };
      const KmJoint *j = joint_of_dof (skeleton, d, &entry.joint);

      if (j->n_dof > 1)
        /* Translators: a joint name and the euler axis (X, Y or Z) of one of its rotations */
        entry.name = g_strdup_printf (_("%s %s"), j->name, axis_names[(d - j->dof_index) % 3]);
      else
        entry.name = g_strdup (j->name);
      entry.layout = gtk_widget_create_pango_layout (GTK_WIDGET (self->area), entry.name);
      pango_layout_set_ellipsize (entry.layout, PANGO_ELLIPSIZE_END);
      if (l->selected)
        {
          PangoAttrList *attrs = pango_attr_list_new ();

          pango_attr_list_insert (attrs, pango_attr_weight_new (PANGO_WEIGHT_BOLD));
          pango_layout_set_attributes (entry.layout, attrs);
          pango_attr_list_unref (attrs);
        }
      g_array_append_val (l->entries, entry);
    }
  if (l->entries->len == 0 || avail < SWATCH + SWATCH_GAP + 8)
    return 0;

  pango_layout_get_pixel_size (g_array_index (l->entries, Entry, 0).layout, NULL, &th);
  row_h = MAX (row_h, th);
  for (guint i = 0; i < l->entries->len; i++)
    {
      Entry *e = &g_array_index (l->entries, Entry, i);
      double ew;
      int tw;

      /* A name too long for a row of its own gives way. */
      pango_layout_get_pixel_size (e->layout, &tw, NULL);
      if (SWATCH + SWATCH_GAP + tw > avail)
        {
          pango_layout_set_width (e->layout, (int) ((avail - SWATCH - SWATCH_GAP) * PANGO_SCALE));
          pango_layout_get_pixel_size (e->layout, &tw, NULL);
        }
      ew = SWATCH + SWATCH_GAP + tw;
      if (x > MARGIN && x + ew > MARGIN + avail)
        row++, x = MARGIN;
      if (row >= max_rows)
        break;
      e->shown = TRUE;
      e->box = GRAPHENE_RECT_INIT (x, MARGIN + row * (row_h + 2), ew, row_h);
      e->swatch = GRAPHENE_RECT_INIT (x, e->box.origin.y + round ((row_h - SWATCH) / 2),
                                      SWATCH, SWATCH);
      x += ew + ENTRY_GAP;
      rows = row + 1;
      n_shown++;
    }

  /* The rest, summed up at the end of the last row: entries give way to it from the end. */
  l->n_more = l->entries->len - n_shown;
  while (l->n_more > 0)
    {
      g_autofree char *text = NULL;
      Entry *last = n_shown > 0 ? &g_array_index (l->entries, Entry, n_shown - 1) : NULL;
      int mw, mh;

      /* Translators: at the end of the graph's legend, how many curves it has no room for */
      text = g_strdup_printf (ngettext ("+%u more", "+%u more", l->n_more), l->n_more);
      g_clear_object (&l->more);
      l->more = gtk_widget_create_pango_layout (GTK_WIDGET (self->area), text);
      pango_layout_set_ellipsize (l->more, PANGO_ELLIPSIZE_END);
      pango_layout_set_width (l->more, (int) (avail * PANGO_SCALE));
      pango_layout_get_pixel_size (l->more, &mw, &mh);
      right = last != NULL && last->box.origin.y >= MARGIN + (max_rows - 1) * (row_h + 2) - 0.5
              ? last->box.origin.x + last->box.size.width + ENTRY_GAP : MARGIN;
      if (right + mw <= MARGIN + avail || right == MARGIN)
        {
          double y = right == MARGIN ? MARGIN + (max_rows - 1) * (row_h + 2)
                                     : last->box.origin.y;

          l->more_box = GRAPHENE_RECT_INIT (right, y, mw, row_h);
          rows = max_rows;
          break;
        }
      last->shown = FALSE;
      n_shown--;
      l->n_more++;
    }
  return rows * (row_h + 2) - 2;
}

/* The time axis' labels, in seconds as the time bar counts them, at a round step that
 * leaves room between them (km_graph_axis_time_step). */
static void
layout_times (KmGraphView *self,
              Layout      *l,
              double       width)
{
  double rate = km_document_get_frame_rate (self->document);
  double last = MAX (n_frames (self), 2) - 1, total, step = 0, prev_right = -INFINITY;
  g_autofree char *widest = NULL;
  PangoLayout *probe;
  int lw;

  if (!(rate > 0))
    return;
  total = (n_frames (self) - 1) / rate;
  /* Translators: a time on the graph's time axis, in seconds ("2 s", "0.5 s") */
  widest = g_strdup_printf (_("%.*f s"), total < 10 ? 1 : 0, total);
  probe = gtk_widget_create_pango_layout (GTK_WIDGET (self->area), widest);
  pango_layout_get_pixel_size (probe, &lw, NULL);
  g_object_unref (probe);
  /* At any length of motion: a day's has labels as an eight-second one does. */
  step = km_graph_axis_time_step (total, l->plot.size.width, lw + 2 * ENTRY_GAP);

  for (guint k = 0; l->n_times < G_N_ELEMENTS (l->time_labels); k++)
    {
      double t = k * step, x;
      g_autofree char *text = NULL;
      PangoLayout *layout;
      int tw;

      if (t > total + 1e-9 || (k > 0 && step == 0))
        break;
      text = g_strdup_printf (_("%.*f s"), step < 1 && step > 0 ? 1 : 0, t);
      layout = gtk_widget_create_pango_layout (GTK_WIDGET (self->area), text);
      pango_layout_get_pixel_size (layout, &tw, NULL);
      x = l->plot.origin.x + t * rate / last * l->plot.size.width - tw / 2.0;
      /* The first and the last label stay a little inside the graph: drawn, the glyphs can
       * come out a pixel or two wider than measured, and the last one ("10 秒") lost its
       * last character at the edge. */
      x = CLAMP (x, TIME_LABEL_INSET, width - tw - TIME_LABEL_INSET);
      if (x < prev_right + SWATCH_GAP)
        {
          g_object_unref (layout);
          continue;
        }
      prev_right = x + tw;
      l->time_x[l->n_times] = x;
      l->time_labels[l->n_times++] = layout;
    }
}

/* Where everything goes in a @width × @height graph. Returns FALSE when there is nothing
 * to plot; the plot then still has its place, spanning the widget. */
static gboolean
compute_layout (KmGraphView *self,
                int          width,
                int          height,
                Layout      *l)
{
  double top = MARGIN, bottom, left_gutter, right_gutter;
  const KmGraphAxis *left, *right;
  PangoLayout *probe;
  int th;

  memset (l, 0, sizeof *l);
  l->plot = GRAPHENE_RECT_INIT (MARGIN, MARGIN, MAX (width - 2 * MARGIN, 1.0),
                                MAX (height - 2 * MARGIN - KEY_MARK, 1.0));
  l->marks_y = height - MARGIN - KEY_MARK;
  if (self->document == NULL || km_document_get_skeleton (self->document) == NULL
      || !compute_span (self, l))
    return FALSE;

  /* The legend takes at most a quarter of the height, and one row at least. */
  top += layout_legend (self, l, width,
                        CLAMP ((int) ((height - 2 * MARGIN) / 4 / (SWATCH + 8)), 1, 3));
  if (top > MARGIN)
    top += LEGEND_GAP;
  l->legend_bottom = top;

  /* The time labels under the keyframe marks, if the plot keeps some height. */
  probe = gtk_widget_create_pango_layout (GTK_WIDGET (self->area), "0");
  pango_layout_get_pixel_size (probe, NULL, &th);
  g_object_unref (probe);
  bottom = height - BOTTOM_MARGIN - th - 1;
  if (bottom - KEY_MARK - top < 3 * th)
    bottom = height - MARGIN;
  else
    l->time_h = th;
  l->marks_y = bottom - KEY_MARK;

  /* The value labels' columns, left and right of the plot, within a third of the width:
   * with their units; in a narrower graph (the side pane's default width) compact, the
   * unit written once per axis; a graph narrower still keeps its width for the curves. */
  left = axis_on (l, GTK_POS_LEFT);
  right = axis_on (l, GTK_POS_RIGHT);
  left_gutter = right_gutter = 0;
  for (guint compact = 0; compact < 2; compact++)
    {
      /* Each axis in its DOFs' unit where they agree on one (a body handler's mm), else
       * in the preferences'. */
      KmUnit fallback[N_AXES] = {
        km_unit_for_angle (self->angle_unit), km_unit_for_length (self->length_unit),
        { 1.0, "", 2, 0.01 },
      };

      for (guint a = 0; a < N_AXES; a++)
        if (&l->axes[a] == left || &l->axes[a] == right)
          km_graph_axis_layout_labels (&l->axes[a], GTK_WIDGET (self->area),
                                       km_graph_axis_get_unit (&l->axes[a], fallback[a]),
                                       compact);
      left_gutter = left->gutter;
      right_gutter = right != NULL ? right->gutter : 0;
      if (left_gutter + right_gutter <= width / 3.0)
        break;
      for (guint a = 0; a < N_AXES; a++)
        km_graph_axis_drop_labels (&l->axes[a]);
      left_gutter = right_gutter = 0;
    }

  l->plot = GRAPHENE_RECT_INIT (MARGIN + left_gutter, top,
                                MAX (width - 2 * MARGIN - left_gutter - right_gutter, 1.0),
                                MAX (l->marks_y - top, 1.0));
  if (l->time_h > 0)
    layout_times (self, l, width);
  return TRUE;
}

/* The column of @frame in @l's plot: the time axis spans the time bar's range. */
static double
x_of (KmGraphView  *self,
      const Layout *l,
      double        frame)
{
  double last = MAX (n_frames (self), 2) - 1;

  return l->plot.origin.x + frame / last * l->plot.size.width;
}

static void
draw_text (cairo_t     *cr,
           PangoLayout *layout,
           double       x,
           double       y)
{
  cairo_move_to (cr, x, y);
  pango_cairo_show_layout (cr, layout);
}

/* A curve of more frames than the plot has columns is drawn a column at a time: the first,
 * lowest, highest and last of its values there, four points a pixel wide, so that a motion
 * of a million frames is a path of a few thousand segments (cairo strokes a path of a
 * million sub-pixel segments as nothing at all), and its extremes still show. */
typedef struct
{
  gboolean by_column;
  gboolean open;
  int      index;
  double   x, first, lo, hi, last;
} Column;

static void
column_flush (cairo_t  *cr,
              Column   *column,
              gboolean *started)
{
  if (!column->open)
    return;
  if (*started)
    cairo_line_to (cr, column->x, column->first);
  else
    cairo_move_to (cr, column->x, column->first);
  cairo_line_to (cr, column->x, column->lo);
  cairo_line_to (cr, column->x, column->hi);
  cairo_line_to (cr, column->x, column->last);
  column->open = FALSE;
  *started = TRUE;
}

static void
column_add (cairo_t  *cr,
            Column   *column,
            double    x,
            double    y,
            gboolean *started)
{
  int index = (int) floor (x);

  if (column->open && index == column->index)
    {
      column->lo = MIN (column->lo, y);
      column->hi = MAX (column->hi, y);
      column->last = y;
      return;
    }
  column_flush (cr, column, started);
  *column = (Column) { TRUE, TRUE, index, x, y, y, y, y };
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
  guint n_anim = 0, total_dof;
  double plot_top, plot_bottom;
  double cursor;
  GdkRGBA fg;
  Layout l;

  if (!compute_layout (self, width, height, &l) || l.plot.size.height <= 1
      || width <= 2 * MARGIN)
    {
      layout_clear (&l);
      return;
    }

  skeleton = km_document_get_skeleton (self->document);
  total_dof = km_skeleton_get_n_dof (skeleton);
  animation = km_document_get_animation (self->document);
  if (animation != NULL && km_animation_get_n_dof (animation) == total_dof)
    n_anim = plotted_frames (self, animation);
  gtk_style_context_get_color (gtk_widget_get_style_context (GTK_WIDGET (area)), &fg);

  plot_top = l.plot.origin.y;
  plot_bottom = plot_top + l.plot.size.height;

  /* Limit bands first, so curves lie on top: an open end reaches the plot's edge. Each DOF
   * is drawn against its own kind's axis. */
  set_rgb (cr, KM_GRAPH_BAND_RGB);
  for (guint d = l.first_dof; d < l.first_dof + l.n_dof; d++)
    if (isfinite (l.dofs[d - l.first_dof].lower) || isfinite (l.dofs[d - l.first_dof].upper))
      {
        const PlotDof *dof = &l.dofs[d - l.first_dof];
        const KmGraphAxis *axis = axis_of (&l, d);
        double top = isfinite (dof->upper) ? km_graph_axis_y (axis, &l.plot, dof->upper)
                                           : plot_top;
        double bottom = isfinite (dof->lower) ? km_graph_axis_y (axis, &l.plot, dof->lower)
                                              : plot_bottom;

        top = CLAMP (top, plot_top, plot_bottom);
        bottom = CLAMP (bottom, plot_top, plot_bottom);
        if (bottom > top)
          {
            cairo_rectangle (cr, l.plot.origin.x, top, l.plot.size.width, bottom - top);
            cairo_fill (cr);
          }
      }

  cairo_set_line_width (cr, !l.selected && l.n_dof > 3 ? 1.0 : 2.0);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
  for (guint d = l.first_dof; d < l.first_dof + l.n_dof && n_anim > 0; d++)
    {
      const KmGraphAxis *axis = axis_of (&l, d);
      const PlotDof *dof = &l.dofs[d - l.first_dof];
      int joint = km_skeleton_get_dof_joint (skeleton, d);
      gboolean started = FALSE;
      /* More frames than the plot has columns (a long motion's): a column at a time. */
      Column column = { n_anim > 2 * l.plot.size.width, FALSE, };
      GdkRGBA colour;

      for (guint f = 0; f < n_anim; f++)
        {
          const double *q = km_animation_get_frame (animation, f);
          double x = x_of (self, &l, f), y;

          if (q == NULL || !isfinite (q[d]))
            {
              column_flush (cr, &column, &started);
              started = FALSE;
              continue;
            }
          y = km_graph_axis_y (axis, &l.plot, plot_value (self, dof, joint, q[d]));
          if (column.by_column)
            column_add (cr, &column, x, y, &started);
          else if (started)
            cairo_line_to (cr, x, y);
          else
            cairo_move_to (cr, x, y);
          started = started || !column.by_column;
        }
      column_flush (cr, &column, &started);
      /* Past the motion its last pose holds, to the end of the time bar's range (a motion
       * still being solved ends at its last frame solved). */
      if (started && n_anim == km_animation_get_n_frames (animation)
          && n_anim < n_frames (self))
        {
          double y;

          cairo_get_current_point (cr, NULL, &y);
          cairo_line_to (cr, x_of (self, &l, n_frames (self) - 1), y);
        }
      curve_rgba (d, &colour);
      gdk_cairo_set_source_rgba (cr, &colour);
      cairo_stroke (cr);
    }

  /* The value axes: each span's top, middle and bottom, each by a tick. */
  km_graph_axis_draw (axis_on (&l, GTK_POS_LEFT), cr, &l.plot, GTK_POS_LEFT, &fg);
  if (axis_on (&l, GTK_POS_RIGHT) != NULL)
    km_graph_axis_draw (axis_on (&l, GTK_POS_RIGHT), cr, &l.plot, GTK_POS_RIGHT, &fg);

  /* The legend: a swatch of each curve's colour, and its name. */
  for (guint i = 0; i < l.entries->len; i++)
    {
      Entry *e = &g_array_index (l.entries, Entry, i);
      GdkRGBA colour;
      int th;

      if (!e->shown)
        continue;
      curve_rgba (e->colour, &colour);
      gdk_cairo_set_source_rgba (cr, &colour);
      cairo_rectangle (cr, e->swatch.origin.x, e->swatch.origin.y, SWATCH, SWATCH);
      cairo_fill (cr);
      pango_layout_get_pixel_size (e->layout, NULL, &th);
      gdk_cairo_set_source_rgba (cr, &fg);
      draw_text (cr, e->layout, e->box.origin.x + SWATCH + SWATCH_GAP,
                 e->box.origin.y + (e->box.size.height - th) / 2);
    }
  if (l.more != NULL)
    {
      cairo_set_source_rgba (cr, fg.red, fg.green, fg.blue, fg.alpha * DIM_ALPHA);
      draw_text (cr, l.more, l.more_box.origin.x, l.more_box.origin.y);
    }

  gdk_cairo_set_source_rgba (cr, &fg);
  for (guint i = 0; i < l.n_times; i++)
    draw_text (cr, l.time_labels[i], l.time_x[i], l.marks_y + KEY_MARK + 1);

  targets = km_document_get_targets (self->document);
  if (targets != NULL)
    {
      const KmTargetKeyframe *keys;
      guint n = 0;

      keys = km_target_track_get_keyframes (targets, &n);
      /* Below the plot, on the theme's background: in its text colour, as the time bar's
       * ticks (a fixed light grey all but vanished on a light theme). */
      gdk_cairo_set_source_rgba (cr, &fg);
      for (guint i = 0; i < n; i++)
        {
          /* The one being dragged is drawn where it would land. */
          double x = x_of (self, &l, (int) keys[i].frame == self->key_from
                                     ? self->key_to : keys[i].frame);

          cairo_move_to (cr, x, l.marks_y);
          cairo_line_to (cr, x + KEY_MARK, l.marks_y + KEY_MARK);
          cairo_line_to (cr, x - KEY_MARK, l.marks_y + KEY_MARK);
          cairo_close_path (cr);
        }
      cairo_fill (cr);
    }

  set_rgb (cr, KM_GRAPH_CURSOR_RGB);
  cursor = round (x_of (self, &l, km_document_get_current_frame (self->document)));
  cairo_rectangle (cr, cursor - 1, plot_top, 2, l.marks_y + KEY_MARK - plot_top);
  cairo_fill (cr);

  layout_clear (&l);
}

/* The legend entry at (@x, @y), or NULL; @l holds it. */
static Entry *
entry_at (Layout *l,
          double  x,
          double  y)
{
  for (guint i = 0; l->entries != NULL && i < l->entries->len; i++)
    {
      Entry *e = &g_array_index (l->entries, Entry, i);

      if (e->shown && graphene_rect_contains_point (&e->box, &GRAPHENE_POINT_INIT (x, y)))
        return e;
    }
  return NULL;
}

/* Whether (@x, @y) is in the legend's rows, entries or not: a press there never seeks. */
static gboolean
in_legend (Layout *l,
           double  x,
           double  y)
{
  return l->legend_bottom > MARGIN && y < l->legend_bottom && y < l->plot.origin.y;
}

/* Whether (@x, @y) is on the legend's "+N more". */
static gboolean
on_more (Layout *l,
         double  x,
         double  y)
{
  return l->more != NULL && graphene_rect_contains_point (&l->more_box, &GRAPHENE_POINT_INIT (x, y));
}

static void
area_layout (KmGraphView *self,
             Layout      *l)
{
  compute_layout (self, gtk_widget_get_width (GTK_WIDGET (self->area)),
                  gtk_widget_get_height (GTK_WIDGET (self->area)), l);
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
  const KmTargetKeyframe *keys;
  double best = KEY_PICK;
  guint n = 0;
  int found = -1;
  Layout l;

  if (targets == NULL)
    return -1;
  area_layout (self, &l);
  if (y >= l.marks_y - KEY_PICK && y <= l.marks_y + KEY_MARK + KEY_PICK)
    {
      keys = km_target_track_get_keyframes (targets, &n);
      for (guint i = 0; i < n; i++)
        {
          double d = fabs (x_of (self, &l, keys[i].frame) - x);

          if (d <= best)
            best = d, found = (int) keys[i].frame;
        }
    }
  layout_clear (&l);
  return found;
}

static void
swatch_draw_cb (GtkDrawingArea *area,
                cairo_t        *cr,
                int             width,
                int             height,
                gpointer        data)
{
  gdk_cairo_set_source_rgba (cr, data);
  cairo_paint (cr);
}

/* A curve picked from the list: as its legend entry would do. */
static void
more_row_activated_cb (KmGraphView   *self,
                       GtkListBoxRow *row,
                       GtkListBox    *list)
{
  int joint = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (row), "joint"));

  gtk_popover_popdown (GTK_POPOVER (self->more_popover));
  if (self->document != NULL)
    km_document_set_selected_joint (self->document,
                                    km_document_get_selected_joint (self->document) == joint
                                    ? -1 : joint);
}

/* "+N more" lists every curve, each beside its swatch, under the legend: the legend
 * cannot show them all, and so cannot name the curves' colours. */
static void
show_more (KmGraphView *self,
           Layout      *l)
{
  GtkWidget *list = gtk_list_box_new ();
  GtkWidget *scrolled = gtk_scrolled_window_new ();

  gtk_list_box_set_selection_mode (GTK_LIST_BOX (list), GTK_SELECTION_NONE);
  gtk_list_box_set_activate_on_single_click (GTK_LIST_BOX (list), TRUE);
  for (guint i = 0; i < l->entries->len; i++)
    {
      Entry *e = &g_array_index (l->entries, Entry, i);
      GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, (int) SWATCH_GAP + 2);
      GtkWidget *swatch = gtk_drawing_area_new ();
      GtkWidget *label = gtk_label_new (e->name);
      GtkWidget *row = gtk_list_box_row_new ();
      GdkRGBA colour;

      curve_rgba (e->colour, &colour);
      gtk_drawing_area_set_content_width (GTK_DRAWING_AREA (swatch), (int) SWATCH);
      gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (swatch), (int) SWATCH);
      gtk_widget_set_valign (swatch, GTK_ALIGN_CENTER);
      gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (swatch), swatch_draw_cb,
                                      gdk_rgba_copy (&colour), (GDestroyNotify) gdk_rgba_free);
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_box_append (GTK_BOX (box), swatch);
      gtk_box_append (GTK_BOX (box), label);
      gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), box);
      g_object_set_data (G_OBJECT (row), "joint", GINT_TO_POINTER (e->joint));
      gtk_list_box_append (GTK_LIST_BOX (list), row);
    }
  g_signal_connect_swapped (list, "row-activated", G_CALLBACK (more_row_activated_cb), self);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled), GTK_POLICY_NEVER,
                                  GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (scrolled), TRUE);
  gtk_scrolled_window_set_max_content_height (GTK_SCROLLED_WINDOW (scrolled), 360);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), list);

  if (self->more_popover == NULL)
    {
      self->more_popover = gtk_popover_new ();
      gtk_widget_set_parent (self->more_popover, GTK_WIDGET (self));
    }
  gtk_popover_set_child (GTK_POPOVER (self->more_popover), scrolled);
  /* The area fills the view (a bin), so its coordinates are the view's. */
  gtk_popover_set_pointing_to (GTK_POPOVER (self->more_popover),
                               &(GdkRectangle) { (int) l->more_box.origin.x,
                                                 (int) l->more_box.origin.y,
                                                 (int) l->more_box.size.width,
                                                 (int) l->more_box.size.height });
  gtk_popover_popup (GTK_POPOVER (self->more_popover));
}

/* A press on a legend entry shows only its joint (or, the shown joint's, all of them); on
 * "+N more" its release lists every curve; elsewhere in the legend it does nothing. On a
 * keyframe's mark it grabs it; anywhere else it sets the time. */
static void
drag_begin_cb (KmGraphView    *self,
               double          x,
               double          y,
               GtkGestureDrag *gesture)
{
  Layout l;
  Entry *entry;

  area_layout (self, &l);
  entry = entry_at (&l, x, y);
  self->legend_press = entry != NULL || in_legend (&l, x, y);
  self->more_press = on_more (&l, x, y);
  if (entry != NULL)
    km_document_set_selected_joint (self->document, l.selected ? -1 : entry->joint);
  layout_clear (&l);
  if (self->legend_press)
    {
      self->key_from = -1;
      return;
    }

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

  if (self->legend_press || !gtk_gesture_drag_get_start_point (gesture, &x, &y))
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

  if (self->more_press && fabs (dx) < 8 && fabs (dy) < 8)
    {
      Layout l;

      area_layout (self, &l);
      if (l.more != NULL)
        show_more (self, &l);
      layout_clear (&l);
    }
  self->legend_press = FALSE;
  self->more_press = FALSE;
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
  self->legend_press = FALSE;
  self->more_press = FALSE;
  gtk_widget_queue_draw (GTK_WIDGET (self->area));
}

/* Over a legend entry, what a click on it does; elsewhere, what the graph is. */
static gboolean
query_tooltip_cb (KmGraphView *self,
                  int          x,
                  int          y,
                  gboolean     keyboard,
                  GtkTooltip  *tooltip)
{
  g_autofree char *text = NULL;
  Entry *entry;
  Layout l;

  if (keyboard)
    return FALSE;
  area_layout (self, &l);
  entry = entry_at (&l, x, y);
  if (entry != NULL && l.selected)
    text = g_strdup (_("Show all joints"));
  else if (entry != NULL)
    {
      KmSkeleton *skeleton = km_document_get_skeleton (self->document);

      /* Translators: tooltip of a joint's entry in the graph's legend */
      text = g_strdup_printf (_("Show only %s"), km_skeleton_get_joint (skeleton, entry->joint)->name);
    }
  else if (on_more (&l, x, y))
    text = g_strdup (_("List every curve, to pick one"));
  else if (!in_legend (&l, x, y))
    text = g_strdup (_("Joint values over time; click to set the time"));
  layout_clear (&l);
  if (text == NULL)
    return FALSE;
  gtk_tooltip_set_text (tooltip, text);
  return TRUE;
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
  g_clear_pointer (&self->more_popover, gtk_widget_unparent);
  gtk_widget_dispose_template (GTK_WIDGET (self), KM_TYPE_GRAPH_VIEW);

  G_OBJECT_CLASS (km_graph_view_parent_class)->dispose (object);
}

static void
km_graph_view_finalize (GObject *object)
{
  KmGraphView *self = (KmGraphView *) object;

  g_free (self->angle_unit);
  g_free (self->length_unit);

  G_OBJECT_CLASS (km_graph_view_parent_class)->finalize (object);
}

/* Sets the unit string at @field, notifying @prop and redrawing when it changes. */
static void
set_unit (KmGraphView  *self,
          char        **field,
          const char   *unit,
          guint         prop)
{
  if (g_strcmp0 (*field, unit) == 0)
    return;
  g_free (*field);
  *field = g_strdup (unit);
  gtk_widget_queue_draw (GTK_WIDGET (self->area));
  g_object_notify_by_pspec (G_OBJECT (self), properties[prop]);
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
    case PROP_ANGLE_UNIT:
      g_value_set_string (value, self->angle_unit);
      break;
    case PROP_LENGTH_UNIT:
      g_value_set_string (value, self->length_unit);
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
    case PROP_ANGLE_UNIT:
      set_unit (self, &self->angle_unit, g_value_get_string (value), PROP_ANGLE_UNIT);
      break;
    case PROP_LENGTH_UNIT:
      set_unit (self, &self->length_unit, g_value_get_string (value), PROP_LENGTH_UNIT);
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
  object_class->finalize = km_graph_view_finalize;
  object_class->get_property = km_graph_view_get_property;
  object_class->set_property = km_graph_view_set_property;

  properties[PROP_DOCUMENT] =
    g_param_spec_object ("document", NULL, NULL, KM_TYPE_DOCUMENT,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* The units of the value axis: the nicks of the GSettings keys angle-unit ("degrees",
   * "radians") and length-unit ("metres", "millimetres"), which the window binds. */
  properties[PROP_ANGLE_UNIT] =
    g_param_spec_string ("angle-unit", NULL, NULL, "degrees",
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_LENGTH_UNIT] =
    g_param_spec_string ("length-unit", NULL, NULL, "metres",
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
  self->angle_unit = g_strdup ("degrees");
  self->length_unit = g_strdup ("metres");
  g_signal_connect_swapped (self->area, "query-tooltip", G_CALLBACK (query_tooltip_cb), self);

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
 * bar's range, along the plot. */
double
km_graph_view_x_for_frame (KmGraphView *self,
                           double       frame)
{
  double x;
  Layout l;

  g_return_val_if_fail (KM_IS_GRAPH_VIEW (self), 0.0);

  area_layout (self, &l);
  x = x_of (self, &l, frame);
  layout_clear (&l);
  return x;
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
  Layout l;

  g_return_val_if_fail (KM_IS_GRAPH_VIEW (self), FALSE);
  g_return_val_if_fail (x != NULL && y != NULL, FALSE);

  if (frame >= n_frames (self))
    return FALSE;
  area_layout (self, &l);
  *x = x_of (self, &l, frame);
  *y = l.marks_y + KEY_MARK / 2;
  layout_clear (&l);
  return TRUE;
}

/* The frame nearest column @x, within the time bar's range. */
guint
km_graph_view_frame_at (KmGraphView *self,
                        double       x)
{
  double last, f;
  Layout l;

  g_return_val_if_fail (KM_IS_GRAPH_VIEW (self), 0);

  area_layout (self, &l);
  last = n_frames (self) - 1;
  f = round ((x - l.plot.origin.x) / l.plot.size.width * MAX (last, 1.0));
  layout_clear (&l);
  return (guint) CLAMP (f, 0.0, last);
}

/**
 * km_graph_view_get_plot_area:
 * @rect: (out): the plot, in widget coordinates
 *
 * Where the curves and their limit bands are drawn: below the legend, right of the value
 * labels, above the keyframe marks.
 *
 * Returns: whether anything is plotted there
 */
gboolean
km_graph_view_get_plot_area (KmGraphView     *self,
                             graphene_rect_t *rect)
{
  gboolean plotted;
  Layout l;

  g_return_val_if_fail (KM_IS_GRAPH_VIEW (self), FALSE);
  g_return_val_if_fail (rect != NULL, FALSE);

  area_layout (self, &l);
  plotted = l.entries != NULL;
  *rect = l.plot;
  layout_clear (&l);
  return plotted;
}

/**
 * km_graph_view_dup_legend_names:
 *
 * The legend's entries in order, one per curve ("Shoulder X", "Elbow"), including those it
 * has no room to show.
 *
 * Returns: (transfer full): a %NULL-terminated array, empty when nothing is plotted
 */
char **
km_graph_view_dup_legend_names (KmGraphView *self)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  Layout l;

  g_return_val_if_fail (KM_IS_GRAPH_VIEW (self), NULL);

  area_layout (self, &l);
  for (guint i = 0; l.entries != NULL && i < l.entries->len; i++)
    g_strv_builder_add (builder, g_array_index (l.entries, Entry, i).name);
  layout_clear (&l);
  return g_strv_builder_end (builder);
}

/**
 * km_graph_view_get_legend_swatch:
 * @index: the entry, as in km_graph_view_dup_legend_names()
 * @swatch: (out) (optional): where its colour swatch is drawn (widget coordinates); a click
 *   there selects its joint
 * @color: (out) (optional): its curve's colour
 *
 * Returns: %FALSE when there is no such entry, or the legend has no room to show it
 */
gboolean
km_graph_view_get_legend_swatch (KmGraphView     *self,
                                 guint            index,
                                 graphene_rect_t *swatch,
                                 GdkRGBA         *color)
{
  gboolean shown = FALSE;
  Layout l;

  g_return_val_if_fail (KM_IS_GRAPH_VIEW (self), FALSE);

  area_layout (self, &l);
  if (l.entries != NULL && index < l.entries->len)
    {
      Entry *e = &g_array_index (l.entries, Entry, index);

      shown = e->shown;
      if (swatch != NULL)
        *swatch = e->swatch;
      if (color != NULL)
        curve_rgba (e->colour, color);
    }
  layout_clear (&l);
  return shown;
}

/**
 * km_graph_view_get_legend_more:
 * @box: (out) (optional): where the legend's "+N more" is (widget coordinates); a click on
 *   it lists every curve
 *
 * Returns: how many entries the legend has no room for (0: no "+N more")
 */
guint
km_graph_view_get_legend_more (KmGraphView     *self,
                               graphene_rect_t *box)
{
  guint n;
  Layout l;

  g_return_val_if_fail (KM_IS_GRAPH_VIEW (self), 0);

  area_layout (self, &l);
  n = l.more != NULL ? l.n_more : 0;
  if (box != NULL)
    *box = l.more_box;
  layout_clear (&l);
  return n;
}

/* The texts of @layouts (@n of them, NULL ones skipped) as a string array. */
static char **
dup_texts (PangoLayout **layouts,
           guint         n)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  for (guint i = 0; i < n; i++)
    if (layouts[i] != NULL)
      g_strv_builder_add (builder, pango_layout_get_text (layouts[i]));
  return g_strv_builder_end (builder);
}

/**
 * km_graph_view_dup_axis_labels:
 * @side: %GTK_POS_LEFT or %GTK_POS_RIGHT
 *
 * The labels of the value axis on @side, top to bottom: the top, middle and bottom of its
 * span, in the unit of #KmGraphView:angle-unit or #KmGraphView:length-unit (or in the unit a
 * body handler shows all of the axis' joints in, as the Pose tab does). With one kind
 * of value plotted its axis is on the left; with angles and lengths, the angles' is on the
 * left and the lengths' on the right.
 *
 * Returns: (transfer full): a %NULL-terminated array, empty when there are none
 */
char **
km_graph_view_dup_axis_labels (KmGraphView     *self,
                               GtkPositionType  side)
{
  const KmGraphAxis *axis;
  char **texts;
  Layout l;

  g_return_val_if_fail (KM_IS_GRAPH_VIEW (self), NULL);

  area_layout (self, &l);
  axis = l.entries != NULL ? axis_on (&l, side) : NULL;
  texts = axis != NULL ? km_graph_axis_dup_labels (axis) : g_new0 (char *, 1);
  layout_clear (&l);
  return texts;
}

/**
 * km_graph_view_dup_value_labels:
 *
 * The left value axis' labels, as km_graph_view_dup_axis_labels() gives them.
 *
 * Returns: (transfer full): a %NULL-terminated array, empty when there are none
 */
char **
km_graph_view_dup_value_labels (KmGraphView *self)
{
  return km_graph_view_dup_axis_labels (self, GTK_POS_LEFT);
}

/**
 * km_graph_view_get_axis_range:
 * @side: %GTK_POS_LEFT or %GTK_POS_RIGHT
 * @lo: (out): the value at the plot's bottom on that axis' scale (radians or metres; for
 *   a body handler's own unit, in that unit)
 * @hi: (out): the value at its top
 *
 * The span of the value axis on @side (see km_graph_view_dup_axis_labels()): the curves of
 * its kind are drawn on that scale, @hi at the plot's top, @lo at its bottom.
 *
 * Returns: %FALSE when there is no axis on @side
 */
gboolean
km_graph_view_get_axis_range (KmGraphView     *self,
                              GtkPositionType  side,
                              double          *lo,
                              double          *hi)
{
  const KmGraphAxis *axis;
  Layout l;

  g_return_val_if_fail (KM_IS_GRAPH_VIEW (self), FALSE);
  g_return_val_if_fail (lo != NULL && hi != NULL, FALSE);

  area_layout (self, &l);
  axis = l.entries != NULL ? axis_on (&l, side) : NULL;
  if (axis != NULL)
    *lo = axis->lo, *hi = axis->hi;
  layout_clear (&l);
  return axis != NULL;
}

/**
 * km_graph_view_get_curve_color:
 * @dof: a DOF of the body
 * @color: (out): the colour of its curve
 *
 * The colour DOF @dof's curve and legend swatch are drawn in: always the same, whether it is
 * shown with the other joints' curves or alone.
 */
void
km_graph_view_get_curve_color (KmGraphView *self,
                               guint        dof,
                               GdkRGBA     *color)
{
  g_return_if_fail (KM_IS_GRAPH_VIEW (self));
  g_return_if_fail (color != NULL);

  curve_rgba (dof, color);
}

/**
 * km_graph_view_dup_time_labels:
 *
 * The time axis' labels, left to right, in seconds.
 *
 * Returns: (transfer full): a %NULL-terminated array, empty when there is no room for them
 */
char **
km_graph_view_dup_time_labels (KmGraphView *self)
{
  char **texts;
  Layout l;

  g_return_val_if_fail (KM_IS_GRAPH_VIEW (self), NULL);

  area_layout (self, &l);
  texts = dup_texts (l.time_labels, l.n_times);
  layout_clear (&l);
  return texts;
}
