/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#ifdef GDK_WINDOWING_X11
#include <gdk/x11/gdkx.h>
#endif

#include "km-document.h"
#include "km-document-edit.h"
#include "km-graph-axis.h"
#include "km-graph-view.h"
#include "km-skeleton.h"

#include "test-app-util.h"
#include "km-test-tmp.h"

/*
 * What a user sees in the Graph tab, under Xvfb: the keyframe marks below the curves stand
 * out from the background they are drawn on (the theme's), like the time bar's ticks; the
 * time axis spans the time bar's range, the motion's last pose held past its end, so that
 * the cursor never leaves the graph; a joint limited on one side only has its band.
 */

/* The graph's margin (km-graph-view.c), where the plot starts. */
#define GRAPH_MARGIN 8.0

typedef struct
{
  GtkWindow   *window;
  KmDocument  *document;
  KmGraphView *graph_view;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  f->document = km_document_new ();
  g_assert_true (km_document_load_defaults (f->document, &error));
  g_assert_no_error (error);
  f->window = GTK_WINDOW (gtk_window_new ());
  f->graph_view = KM_GRAPH_VIEW (km_graph_view_new ());
  gtk_widget_set_size_request (GTK_WIDGET (f->graph_view), 600, 160);
  gtk_window_set_child (f->window, GTK_WIDGET (f->graph_view));
  km_graph_view_set_document (f->graph_view, f->document);
  gtk_window_present (f->window);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  test_app_spin_for (100);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  gtk_window_destroy (f->window);
  test_app_spin ();
  g_assert_finalize_object (f->document);
}

/* Luminance (0..1) of the pixel at (@x, @y) of a B,G,R,A premultiplied download. */
static double
luma_at (const guint8 *pixels,
         int           w,
         int           x,
         int           y)
{
  const guint8 *p = pixels + ((gsize) y * w + x) * 4;

  return (0.0722 * p[0] + 0.7152 * p[1] + 0.2126 * p[2]) / 255.0;
}

static void
test_keyframe_marks_visible (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree guint8 *pixels = NULL;
  double x, y, mark, background;
  int w, h;

  /* The built-in example keys frame 80 (its second keyframe). */
  g_assert_true (km_graph_view_get_keyframe_point (f->graph_view, 80, &x, &y));
  /* Over the window's background, as the user sees it. */
  pixels = test_app_render_widget (GTK_WIDGET (f->graph_view), &w, &h);
  g_assert_cmpint (w, >=, 600);

  /* The middle of the mark, against the background beside it (between two marks). */
  mark = luma_at (pixels, w, (int) round (x), (int) round (y) + 1);
  background = luma_at (pixels, w, (int) round (x) + 20, (int) round (y) + 1);
  g_test_message ("mark %.3f background %.3f", mark, background);
  g_assert_cmpfloat (fabs (mark - background), >, 0.4);
}

/* The graph as the user sees it, over a white window: B,G,R,A premultiplied, w × h. */
static guint8 *
render_graph (Fixture *f,
              int     *w_out,
              int     *h_out)
{
  return test_app_render_widget (GTK_WIDGET (f->graph_view), w_out, h_out);
}

static gboolean
pixel_is (const guint8 *pixels,
          int           w,
          int           x,
          int           y,
          guint8        r,
          guint8        g,
          guint8        b)
{
  const guint8 *p = pixels + ((gsize) y * w + x) * 4;

  return p[0] == b && p[1] == g && p[2] == r;
}

/* Whether the pixel at (@x, @y) is about (@r, @g, @b): the thin curves of all joints are
 * anti-aliased, few of their pixels exactly so. */
static gboolean
pixel_near (const guint8 *pixels,
            int           w,
            int           x,
            int           y,
            guint8        r,
            guint8        g,
            guint8        b)
{
  const guint8 *p = pixels + ((gsize) y * w + x) * 4;

  return abs (p[0] - b) <= 32 && abs (p[1] - g) <= 32 && abs (p[2] - r) <= 32;
}

/* @colour as 8-bit sRGB, as drawn. */
static void
rgba_to_rgb (const GdkRGBA *colour,
             guint8        *r,
             guint8        *g,
             guint8        *b)
{
  *r = (guint8) round (colour->red * 255);
  *g = (guint8) round (colour->green * 255);
  *b = (guint8) round (colour->blue * 255);
}

/* Whether the pixel at (@x, @y) is (@r, @g, @b) drawn over the limit band, if only partly:
 * a thin curve's anti-aliased edge, which blends into the band. */
static gboolean
pixel_over_band (const guint8 *pixels,
                 int           w,
                 int           x,
                 int           y,
                 guint8        r,
                 guint8        g,
                 guint8        b)
{
  static const guint8 band[3] = { KM_GRAPH_BAND_RGB };
  const guint8 *p = pixels + ((gsize) y * w + x) * 4;
  double pc[3] = { p[2] - band[0], p[1] - band[1], p[0] - band[2] };
  double cc[3] = { r - band[0], g - band[1], b - band[2] };
  double t, off = 0;

  /* How far from the band towards the colour, and how far off that line. */
  t = (pc[0] * cc[0] + pc[1] * cc[1] + pc[2] * cc[2])
      / (cc[0] * cc[0] + cc[1] * cc[1] + cc[2] * cc[2]);
  for (guint i = 0; i < 3; i++)
    off = MAX (off, fabs (pc[i] - t * cc[i]));
  return t >= 0.3 && off <= 12;
}

/* How many pixels of column @x have the colour of DOF @dof's curve. */
static guint
curve_pixels_in_column (KmGraphView  *graph_view,
                        guint         dof,
                        const guint8 *pixels,
                        int           w,
                        int           h,
                        int           x)
{
  GdkRGBA colour;
  guint8 r, g, b;
  guint n = 0;

  km_graph_view_get_curve_color (graph_view, dof, &colour);
  rgba_to_rgb (&colour, &r, &g, &b);
  for (int y = 0; y < h; y++)
    if (pixel_is (pixels, w, x, y, r, g, b))
      n++;
  return n;
}

/* The time axis is the time bar's (10 s here, past the example's 8 s motion): its last
 * frame is at the plot's right end, the cursor stays on the graph there, and the curves
 * hold the motion's last pose up to it. */
static void
test_axis_spans_time_bar (Fixture       *f,
                          gconstpointer  data)
{
  guint n_frames = km_document_get_n_frames (f->document);
  guint last = km_document_get_timeline_frames (f->document) - 1;
  KmSkeleton *skeleton = km_document_get_skeleton (f->document);
  int elbow = km_skeleton_find_joint (skeleton, "Elbow");
  g_autofree guint8 *pixels = NULL;
  graphene_rect_t plot;
  double x, y, held, right;
  int w, h, cursor_pixels = 0;

  g_assert_cmpuint (last, >, n_frames);
  w = gtk_widget_get_width (GTK_WIDGET (f->graph_view));
  /* The plot ends at the margin, or at the lengths' axis when there is one. */
  g_assert_true (km_graph_view_get_plot_area (f->graph_view, &plot));
  right = plot.origin.x + plot.size.width;
  g_assert_cmpfloat (right, <=, w - GRAPH_MARGIN);
  g_assert_cmpfloat_with_epsilon (km_graph_view_x_for_frame (f->graph_view, last), right, 0.5);
  g_assert_cmpfloat (km_graph_view_x_for_frame (f->graph_view, n_frames - 1), <, right - 50);
  g_assert_cmpuint (km_graph_view_frame_at (f->graph_view, w - GRAPH_MARGIN), ==, last);
  g_assert_cmpuint (km_graph_view_frame_at (f->graph_view, w), ==, last);
  g_assert_true (km_graph_view_get_keyframe_point (f->graph_view, last, &x, &y));
  g_assert_false (km_graph_view_get_keyframe_point (f->graph_view, last + 1, &x, &y));

  /* One joint's curve, drawn thick enough for its exact colour. */
  km_document_set_selected_joint (f->document, elbow);
  km_document_set_current_frame (f->document, last);
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, last);
  test_app_spin_for (50);
  pixels = render_graph (f, &w, &h);

  x = round (km_graph_view_x_for_frame (f->graph_view, last));
  for (int col = (int) x - 2; col <= (int) x + 1; col++)
    if (col >= 0 && col < w && pixel_is (pixels, w, col, h / 2, KM_GRAPH_CURSOR_RGB))
      cursor_pixels++;
  g_assert_cmpint (cursor_pixels, >, 0);

  /* Halfway between the motion's end and the range's. */
  held = round (km_graph_view_x_for_frame (f->graph_view, (n_frames - 1 + last) / 2.0));
  g_assert_cmpuint (curve_pixels_in_column (f->graph_view,
                                            km_skeleton_get_joint (skeleton, elbow)->dof_index,
                                            pixels, w, h, (int) held), >, 0);
}

/* A hinge limited below only ([0, +∞]) and one limited above only ([-∞, 0.5]). */
static const char one_sided_json[] =
  "{\n"
  "  \"root_name\": \"Root\",\n"
  "  \"joints\": [\n"
  "    { \"name\": \"Root\", \"type\": \"fixed\", \"offset\": [0, 0, 0], \"parent\": null },\n"
  "    { \"name\": \"Low\", \"type\": \"revolute\", \"offset\": [0, 0, 1], \"parent\": \"Root\",\n"
  "      \"axis\": [1, 0, 0], \"limits\": [0.0, null] },\n"
  "    { \"name\": \"High\", \"type\": \"revolute\", \"offset\": [0, 0, 1], \"parent\": \"Low\",\n"
  "      \"axis\": [1, 0, 0], \"limits\": [null, 0.5] },\n"
  "    { \"name\": \"Tip\", \"type\": \"fixed\", \"offset\": [0, 0, 1], \"parent\": \"High\" }\n"
  "  ]\n"
  "}\n";

/* Whether the band colour is at column @x, row @y. */
static gboolean
band_at (const guint8 *pixels,
         int           w,
         int           x,
         int           y)
{
  return pixel_is (pixels, w, x, y, KM_GRAPH_BAND_RGB);
}

/* A joint limited on one side only has a band from its finite limit to the plot's edge on
 * the open side, on a finite value axis. */
static void
test_one_sided_limit_band (Fixture       *f,
                           gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-graph-XXXXXX");
  g_autofree char *path = NULL;
  g_autoptr(GFile) file = NULL;
  KmSkeleton *skeleton;
  graphene_rect_t plot;
  int w, h;

  path = g_build_filename (dir, "one-sided.json", NULL);
  g_assert_true (g_file_set_contents (path, one_sided_json, -1, &error));
  g_assert_no_error (error);
  file = g_file_new_for_path (path);
  g_assert_true (km_document_import_file (f->document, file, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  skeleton = km_document_get_skeleton (f->document);
  g_assert_nonnull (skeleton);
  g_assert_cmpint (km_skeleton_find_joint (skeleton, "Low"), >=, 0);

  for (guint i = 0; i < 2; i++)
    {
      const char *name = i == 0 ? "Low" : "High";
      g_autofree guint8 *pixels = NULL;
      int top_row, bottom_row, x;

      km_document_set_selected_joint (f->document, km_skeleton_find_joint (skeleton, name));
      test_app_spin_for (50);
      pixels = render_graph (f, &w, &h);
      g_assert_true (km_graph_view_get_plot_area (f->graph_view, &plot));
      x = w / 3;
      top_row = (int) ceil (plot.origin.y) + 1;
      bottom_row = (int) floor (plot.origin.y + plot.size.height) - 2;
      g_test_message ("%s: band at top %d, bottom %d", name,
                      band_at (pixels, w, x, top_row), band_at (pixels, w, x, bottom_row));
      /* The open end reaches the plot's edge; the finite one lies inside the plot. */
      if (i == 0)
        {
          g_assert_true (band_at (pixels, w, x, top_row));
          g_assert_false (band_at (pixels, w, x, bottom_row));
        }
      else
        {
          g_assert_false (band_at (pixels, w, x, top_row));
          g_assert_true (band_at (pixels, w, x, bottom_row));
        }
    }

  g_unlink (path);
  g_rmdir (dir);
}

/* The names the legend lists, joined with "|". */
static char *
legend_text (Fixture *f)
{
  g_auto(GStrv) names = km_graph_view_dup_legend_names (f->graph_view);

  return g_strjoinv ("|", names);
}

static void
assert_value_labels (Fixture    *f,
                     const char *expected)
{
  g_auto(GStrv) labels = km_graph_view_dup_value_labels (f->graph_view);
  g_autofree char *text = g_strjoinv ("|", labels);

  g_assert_cmpstr (text, ==, expected);
}

/* With no joint selected, the legend names every curve (a spherical joint's per axis), each
 * beside a swatch of its curve's colour, the colours all different; the curve is in the plot
 * in that colour. */
static void
test_legend_names_and_colours (Fixture       *f,
                               gconstpointer  data)
{
  g_autofree char *text = NULL;
  g_autofree guint8 *pixels = NULL;
  graphene_rect_t plot;
  GdkRGBA colours[8];
  guint n = 0;
  int w, h;

  km_document_set_selected_joint (f->document, -1);
  test_app_spin_for (50);
  text = legend_text (f);
  g_assert_cmpstr (text, ==, "Shoulder X|Shoulder Y|Shoulder Z|Elbow|Piston");

  pixels = render_graph (f, &w, &h);
  g_assert_true (km_graph_view_get_plot_area (f->graph_view, &plot));
  for (guint i = 0; i < 5; i++)
    {
      graphene_rect_t swatch;
      guint8 r, g, b;
      guint in_plot = 0;
      int cx, cy;

      g_assert_true (km_graph_view_get_legend_swatch (f->graph_view, i, &swatch, &colours[i]));
      n++;
      /* Above the plot, not on it. */
      g_assert_cmpfloat (swatch.origin.y + swatch.size.height, <=, plot.origin.y);
      r = (guint8) round (colours[i].red * 255);
      g = (guint8) round (colours[i].green * 255);
      b = (guint8) round (colours[i].blue * 255);
      cx = (int) (swatch.origin.x + swatch.size.width / 2);
      cy = (int) (swatch.origin.y + swatch.size.height / 2);
      g_test_message ("swatch %u at %d,%d: %02x%02x%02x", i, cx, cy, r, g, b);
      g_assert_true (pixel_is (pixels, w, cx, cy, r, g, b));
      for (int y = (int) plot.origin.y; y < (int) (plot.origin.y + plot.size.height); y++)
        for (int x = (int) plot.origin.x; x < (int) (plot.origin.x + plot.size.width); x++)
          in_plot += pixel_near (pixels, w, x, y, r, g, b);
      g_assert_cmpuint (in_plot, >, 20);
      for (guint j = 0; j < i; j++)
        g_assert_false (gdk_rgba_equal (&colours[i], &colours[j]));
    }
  g_assert_cmpuint (n, ==, 5);
  g_assert_false (km_graph_view_get_legend_swatch (f->graph_view, 5, NULL, NULL));

  /* A selected joint: its own curves only, named. */
  km_document_set_selected_joint (f->document,
                                  km_skeleton_find_joint (km_document_get_skeleton (f->document),
                                                          "Shoulder"));
  test_app_spin_for (50);
  g_clear_pointer (&text, g_free);
  text = legend_text (f);
  g_assert_cmpstr (text, ==, "Shoulder X|Shoulder Y|Shoulder Z");
}

/* The value axis: the selected joint's span (its limits here), top, middle and bottom, in
 * the angle or length unit the preferences name; the time axis has a few ticks in seconds. */
static void
test_value_axis_units (Fixture       *f,
                       gconstpointer  data)
{
  KmSkeleton *skeleton = km_document_get_skeleton (f->document);
  g_auto(GStrv) times = NULL;

  km_document_set_selected_joint (f->document, km_skeleton_find_joint (skeleton, "Elbow"));
  test_app_spin_for (50);
  /* The example's elbow is limited to [0, 2.5] rad. */
  assert_value_labels (f, "143 °|72 °|0 °");
  g_object_set (f->graph_view, "angle-unit", "radians", NULL);
  assert_value_labels (f, "2.50 rad|1.25 rad|0.00 rad");

  /* The piston: [0, 0.5] m. */
  km_document_set_selected_joint (f->document, km_skeleton_find_joint (skeleton, "Piston"));
  assert_value_labels (f, "0.50 m|0.25 m|0.00 m");
  g_object_set (f->graph_view, "length-unit", "millimetres", NULL);
  assert_value_labels (f, "500 mm|250 mm|0 mm");

  times = km_graph_view_dup_time_labels (f->graph_view);
  g_assert_cmpuint (g_strv_length (times), >=, 3);
  g_assert_cmpstr (times[0], ==, "0 s");
  for (guint i = 0; times[i] != NULL; i++)
    g_assert_true (g_str_has_suffix (times[i], " s"));
}

/* The labels of the graph's axis on @side, joined with "|". */
static void
assert_axis_labels (Fixture         *f,
                    GtkPositionType  side,
                    const char      *expected)
{
  g_auto(GStrv) labels = km_graph_view_dup_axis_labels (f->graph_view, side);
  g_autofree char *text = g_strjoinv ("|", labels);

  g_assert_cmpstr (text, ==, expected);
}

/* With angles and lengths on one plot (no joint selected: the shoulder and the elbow turn,
 * the piston slides), each kind has an axis of its own: the angles on the left in the angle
 * unit, the lengths on the right in the length unit, each with its own span; and each curve
 * is drawn against its own axis: the piston's across the lengths' span, not squeezed into
 * the angles' (where half a metre would be as high as half a radian). One kind alone keeps
 * the one axis on the left. */
static void
test_mixed_axes (Fixture       *f,
                 gconstpointer  data)
{
  KmSkeleton *skeleton = km_document_get_skeleton (f->document);
  KmAnimation *animation = km_document_get_animation (f->document);
  int piston = km_skeleton_find_joint (skeleton, "Piston");
  guint dof = km_skeleton_get_joint (skeleton, piston)->dof_index;
  guint n_dof = km_skeleton_get_n_dof (skeleton), n_anim, n_columns = 0, n_on_scale = 0;
  g_autofree double *lower = g_new (double, n_dof);
  g_autofree double *upper = g_new (double, n_dof);
  g_autofree guint8 *pixels = NULL;
  graphene_rect_t plot;
  GdkRGBA colour;
  guint8 r, g, b;
  double lo, hi, vmin = INFINITY, vmax = -INFINITY, x0, step;
  int w, h;

  km_document_set_selected_joint (f->document, -1);
  test_app_spin_for (50);

  /* The angles on the left: the shoulder's [-3.14, 3.14] rad, in degrees only. */
  assert_value_labels (f, "180 °|0 °|-180 °");
  g_assert_true (km_graph_view_get_axis_range (f->graph_view, GTK_POS_LEFT, &lo, &hi));
  g_assert_cmpfloat (lo, <=, -3.14);
  g_assert_cmpfloat (hi, >=, 3.14);

  /* The lengths on the right: the piston's [0, 0.5] m. */
  assert_axis_labels (f, GTK_POS_RIGHT, "0.50 m|0.25 m|0.00 m");
  g_assert_true (km_graph_view_get_axis_range (f->graph_view, GTK_POS_RIGHT, &lo, &hi));
  g_assert_cmpfloat_with_epsilon (lo, 0.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (hi, 0.5, 1e-9);

  g_object_set (f->graph_view, "angle-unit", "radians", "length-unit", "millimetres", NULL);
  assert_axis_labels (f, GTK_POS_LEFT, "3.14 rad|0.00 rad|-3.14 rad");
  assert_axis_labels (f, GTK_POS_RIGHT, "500 mm|250 mm|0 mm");
  g_object_set (f->graph_view, "angle-unit", "degrees", "length-unit", "metres", NULL);
  test_app_spin_for (50);

  /* The piston's curve, column by column, where the lengths' axis puts its value: its span
   * is the piston's limits, [0, 0.5] m, from the plot's bottom to its top. (Where it rests
   * on a limit, its line straddles the plot's edge: those columns are left out.) */
  km_skeleton_get_dof_limits (skeleton, lower, upper);
  g_assert_cmpfloat (lower[dof], ==, 0.0);
  g_assert_cmpfloat (upper[dof], ==, 0.5);
  n_anim = km_animation_get_n_frames (animation);
  for (guint i = 0; i < n_anim; i++)
    {
      double v = km_animation_get_frame (animation, i)[dof];

      vmin = MIN (vmin, v);
      vmax = MAX (vmax, v);
    }
  g_test_message ("piston from %.3f to %.3f m", vmin, vmax);
  /* It moves, and within its limits (else the span would reach further). */
  g_assert_cmpfloat (vmax - vmin, >, 0.1);
  g_assert_cmpfloat (vmin, >=, 0.0);
  g_assert_cmpfloat (vmax, <=, 0.5);

  pixels = render_graph (f, &w, &h);
  g_assert_true (km_graph_view_get_plot_area (f->graph_view, &plot));
  g_assert_true (km_graph_view_get_legend_swatch (f->graph_view, dof, NULL, &colour));
  rgba_to_rgb (&colour, &r, &g, &b);
  x0 = km_graph_view_x_for_frame (f->graph_view, 0);
  step = km_graph_view_x_for_frame (f->graph_view, 1) - x0;
  for (int x = (int) ceil (x0) + 2; x < (int) km_graph_view_x_for_frame (f->graph_view, n_anim - 1) - 2;
       x++)
    {
      /* The frames either side of the column: the curve runs between their values. */
      guint before = (guint) floor ((x + 0.5 - x0) / step);
      double v0 = km_animation_get_frame (animation, before)[dof];
      double v1 = km_animation_get_frame (animation, before + 1)[dof];
      double y0 = plot.origin.y + (0.5 - MAX (v0, v1)) / 0.5 * plot.size.height;
      double y1 = plot.origin.y + (0.5 - MIN (v0, v1)) / 0.5 * plot.size.height;
      gboolean found = FALSE;

      if (MIN (v0, v1) < 0.02 || MAX (v0, v1) > 0.48)
        continue;
      for (int y = MAX ((int) y0 - 2, 0); y <= MIN ((int) y1 + 2, h - 1) && !found; y++)
        found = pixel_over_band (pixels, w, x, y, r, g, b);
      n_columns++;
      n_on_scale += found;
    }
  g_test_message ("piston curve on the lengths' scale in %u of %u columns", n_on_scale,
                  n_columns);
  g_assert_cmpuint (n_columns, >, 50);
  g_assert_cmpuint (n_on_scale, >=, n_columns * 19 / 20);

  /* The elbow alone: one axis, on the left, in degrees; none on the right. */
  km_document_set_selected_joint (f->document, km_skeleton_find_joint (skeleton, "Elbow"));
  test_app_spin_for (50);
  assert_axis_labels (f, GTK_POS_LEFT, "143 °|72 °|0 °");
  assert_axis_labels (f, GTK_POS_RIGHT, "");
  g_assert_false (km_graph_view_get_axis_range (f->graph_view, GTK_POS_RIGHT, &lo, &hi));
  /* The piston alone: its lengths on the left. */
  km_document_set_selected_joint (f->document, piston);
  test_app_spin_for (50);
  assert_axis_labels (f, GTK_POS_LEFT, "0.50 m|0.25 m|0.00 m");
  assert_axis_labels (f, GTK_POS_RIGHT, "");
}

/* A curve keeps its colour: a joint shown alone (selected, or picked in the legend) is drawn
 * in the colour its DOFs have in the legend of all joints, not in the palette's first. */
static void
test_isolated_joint_keeps_colour (Fixture       *f,
                                  gconstpointer  data)
{
  KmSkeleton *skeleton = km_document_get_skeleton (f->document);
  static const char *joints[] = { "Elbow", "Piston", "Shoulder" };
  GdkRGBA full[5];

  km_document_set_selected_joint (f->document, -1);
  test_app_spin_for (50);
  for (guint d = 0; d < G_N_ELEMENTS (full); d++)
    {
      GdkRGBA colour;

      g_assert_true (km_graph_view_get_legend_swatch (f->graph_view, d, NULL, &full[d]));
      km_graph_view_get_curve_color (f->graph_view, d, &colour);
      g_assert_true (gdk_rgba_equal (&colour, &full[d]));
    }

  for (guint i = 0; i < G_N_ELEMENTS (joints); i++)
    {
      int joint = km_skeleton_find_joint (skeleton, joints[i]);
      const KmJoint *j = km_skeleton_get_joint (skeleton, joint);
      g_autofree guint8 *pixels = NULL;
      graphene_rect_t plot;
      int w, h;

      km_document_set_selected_joint (f->document, joint);
      test_app_spin_for (50);
      pixels = render_graph (f, &w, &h);
      g_assert_true (km_graph_view_get_plot_area (f->graph_view, &plot));
      for (guint k = 0; k < j->n_dof; k++)
        {
          guint d = j->dof_index + k;
          GdkRGBA swatch;
          guint8 r, g, b;
          guint in_plot = 0;

          /* Its legend entry, and its curve. */
          g_assert_true (km_graph_view_get_legend_swatch (f->graph_view, k, NULL, &swatch));
          g_assert_true (gdk_rgba_equal (&swatch, &full[d]));
          rgba_to_rgb (&full[d], &r, &g, &b);
          for (int y = (int) plot.origin.y; y < (int) (plot.origin.y + plot.size.height); y++)
            for (int x = (int) plot.origin.x; x < (int) (plot.origin.x + plot.size.width); x++)
              in_plot += pixel_is (pixels, w, x, y, r, g, b);
          g_test_message ("%s DOF %u: %u pixels of %02x%02x%02x", joints[i], k, in_plot, r, g, b);
          g_assert_cmpuint (in_plot, >, 20);
        }
    }
}

/* Clicks at (@x, @y) of the graph with real input. */
static void
click_graph (Fixture *f,
             double   x,
             double   y)
{
#ifdef GDK_WINDOWING_X11
  GtkWidget *graph = GTK_WIDGET (f->graph_view);
  g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);

  test_app_add_pointer_move_to (args, graph, x, y);
  g_ptr_array_add (args, g_strdup ("click"));
  g_ptr_array_add (args, g_strdup ("1"));
  test_app_xdotool (graph, args);
#endif
}

/* Clicking a legend entry selects its joint (and leaves the time alone); clicking the
 * selected joint's entry shows every joint again. */
static void
test_legend_click_selects (Fixture       *f,
                           gconstpointer  data)
{
  KmSkeleton *skeleton = km_document_get_skeleton (f->document);
  graphene_rect_t swatch;
  guint frame;

  if (g_find_program_in_path ("xdotool") == NULL
      || !GDK_IS_X11_DISPLAY (gtk_widget_get_display (GTK_WIDGET (f->window))))
    {
      g_test_skip ("needs xdotool on X11");
      return;
    }
  km_document_set_selected_joint (f->document, -1);
  km_document_set_current_frame (f->document, 30);
  test_app_spin_for (50);
  frame = km_document_get_current_frame (f->document);
  /* Piston, the fifth entry. */
  g_assert_true (km_graph_view_get_legend_swatch (f->graph_view, 4, &swatch, NULL));
  click_graph (f, swatch.origin.x + swatch.size.width / 2, swatch.origin.y + swatch.size.height / 2);
  g_assert_cmpint (km_document_get_selected_joint (f->document), ==,
                   km_skeleton_find_joint (skeleton, "Piston"));
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, frame);

  test_app_spin_for (50);
  g_assert_true (km_graph_view_get_legend_swatch (f->graph_view, 0, &swatch, NULL));
  click_graph (f, swatch.origin.x + swatch.size.width / 2, swatch.origin.y + swatch.size.height / 2);
  g_assert_cmpint (km_document_get_selected_joint (f->document), ==, -1);
}

/* Imports tests/data/@name into the fixture's document, with no joint selected. */
static void
import_data (Fixture    *f,
             const char *name)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = NULL;
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", name, NULL);

  file = g_file_new_for_path (path);
  g_assert_true (km_document_import_file (f->document, file, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  km_document_set_selected_joint (f->document, -1);
  test_app_spin_for (100);
}

/* With many curves (SR1's 29 joints) each still has a colour of its own, the first ones the
 * fixed curve colours, so that the legend (and its "+N more" list) identifies every curve. */
static void
test_legend_many_colours (Fixture       *f,
                          gconstpointer  data)
{
  static const guint8 fixed[][3] = {
    { KM_GRAPH_CURVE_0_RGB }, { KM_GRAPH_CURVE_1_RGB }, { KM_GRAPH_CURVE_2_RGB },
    { KM_GRAPH_CURVE_3_RGB }, { KM_GRAPH_CURVE_4_RGB }, { KM_GRAPH_CURVE_5_RGB },
  };
  g_auto(GStrv) names = NULL;
  g_autofree GdkRGBA *colours = NULL;
  guint n;

  import_data (f, "choreonoid/SR1.body");
  names = km_graph_view_dup_legend_names (f->graph_view);
  n = g_strv_length (names);
  g_assert_cmpuint (n, >, 12);
  colours = g_new0 (GdkRGBA, n);
  for (guint i = 0; i < n; i++)
    {
      km_graph_view_get_legend_swatch (f->graph_view, i, NULL, &colours[i]);
      g_assert_cmpfloat (colours[i].alpha, ==, 1.0);
      if (i < G_N_ELEMENTS (fixed))
        {
          g_assert_cmpint ((int) round (colours[i].red * 255), ==, fixed[i][0]);
          g_assert_cmpint ((int) round (colours[i].green * 255), ==, fixed[i][1]);
          g_assert_cmpint ((int) round (colours[i].blue * 255), ==, fixed[i][2]);
        }
      /* Not merely different: apart by more than a rounding (8-bit steps, all channels). */
      for (guint j = 0; j < i; j++)
        {
          double d = fabs (colours[i].red - colours[j].red)
                     + fabs (colours[i].green - colours[j].green)
                     + fabs (colours[i].blue - colours[j].blue);

          if (d * 255 < 30)
            g_error ("curves %u (%s) and %u (%s) have about the same colour", i, names[i], j,
                     names[j]);
        }
    }
}

/* A press anywhere in the legend never sets the time: not between entries, not on
 * "+N more", which lists every curve (swatch and name) instead; picking one shows only
 * that joint, as its legend entry would. */
static void
test_legend_click_never_seeks (Fixture       *f,
                               gconstpointer  data)
{
  KmSkeleton *skeleton;
  g_auto(GStrv) names = NULL;
  graphene_rect_t swatch, more;
  GtkWidget *popover = NULL, *list = NULL;
  guint frame, n_more, n_rows = 0;
  double x, y;

  if (g_find_program_in_path ("xdotool") == NULL
      || !GDK_IS_X11_DISPLAY (gtk_widget_get_display (GTK_WIDGET (f->window))))
    {
      g_test_skip ("needs xdotool on X11");
      return;
    }
  import_data (f, "choreonoid/SR1.body");
  skeleton = km_document_get_skeleton (f->document);
  names = km_graph_view_dup_legend_names (f->graph_view);
  km_document_set_current_frame (f->document, 30);
  test_app_spin_for (50);
  frame = km_document_get_current_frame (f->document);

  /* Between the first two entries: the gap before the second one's swatch. */
  g_assert_true (km_graph_view_get_legend_swatch (f->graph_view, 1, &swatch, NULL));
  x = swatch.origin.x - 4;
  y = swatch.origin.y + swatch.size.height / 2;
  g_assert_cmpuint (km_graph_view_frame_at (f->graph_view, x), !=, frame);
  click_graph (f, x, y);
  test_app_spin_for (50);
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, frame);
  g_assert_cmpint (km_document_get_selected_joint (f->document), ==, -1);

  n_more = km_graph_view_get_legend_more (f->graph_view, &more);
  g_assert_cmpuint (n_more, >, 0);
  x = more.origin.x + more.size.width / 2;
  g_assert_cmpuint (km_graph_view_frame_at (f->graph_view, x), !=, frame);
  click_graph (f, x, more.origin.y + more.size.height / 2);
  test_app_spin_for (200);
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, frame);
  g_assert_cmpint (km_document_get_selected_joint (f->document), ==, -1);

  for (GtkWidget *c = gtk_widget_get_first_child (GTK_WIDGET (f->graph_view)); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    if (GTK_IS_POPOVER (c))
      popover = c;
  g_assert_nonnull (popover);
  g_assert_true (gtk_widget_get_visible (popover));
  for (GtkWidget *c = popover; c != NULL && list == NULL; c = gtk_widget_get_first_child (c))
    if (GTK_IS_LIST_BOX (c))
      list = c;
  g_assert_nonnull (list);
  while (gtk_list_box_get_row_at_index (GTK_LIST_BOX (list), n_rows) != NULL)
    n_rows++;
  g_assert_cmpuint (n_rows, ==, g_strv_length (names));

  /* A curve the legend had no room for. */
  g_signal_emit_by_name (gtk_list_box_get_row_at_index (GTK_LIST_BOX (list), n_rows - 1),
                         "activate");
  test_app_spin_for (100);
  g_assert_cmpint (km_document_get_selected_joint (f->document), ==,
                   km_skeleton_find_joint (skeleton, names[n_rows - 1]));
  g_assert_false (gtk_widget_get_visible (popover));
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, frame);
}

/* In a narrow graph the legend wraps or gives way: its entries stay inside the widget,
 * above the plot, and never overlap. */
static void
test_legend_narrow (Fixture       *f,
                    gconstpointer  data)
{
  graphene_rect_t boxes[8], plot;
  guint n = 0;

  km_document_set_selected_joint (f->document, -1);
  gtk_widget_set_size_request (GTK_WIDGET (f->graph_view), 150, 160);
  gtk_window_set_default_size (f->window, 150, 160);
  test_app_spin_for (200);
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (f->graph_view)), <, 200);
  g_assert_true (km_graph_view_get_plot_area (f->graph_view, &plot));
  g_assert_cmpfloat (plot.size.height, >, 40);
  for (guint i = 0; i < 5; i++)
    if (km_graph_view_get_legend_swatch (f->graph_view, i, &boxes[n], NULL))
      {
        g_assert_cmpfloat (boxes[n].origin.x, >=, 0);
        g_assert_cmpfloat (boxes[n].origin.x + boxes[n].size.width, <=,
                           gtk_widget_get_width (GTK_WIDGET (f->graph_view)));
        g_assert_cmpfloat (boxes[n].origin.y + boxes[n].size.height, <=, plot.origin.y);
        for (guint j = 0; j < n; j++)
          g_assert_false (graphene_rect_intersection (&boxes[n], &boxes[j], NULL));
        n++;
      }
  g_assert_cmpuint (n, >=, 1);
}

/* Pixels darker than the window's white in @rect of a w × h download: text drawn there. */
static guint
count_ink (const guint8          *pixels,
           int                    w,
           int                    h,
           const graphene_rect_t *rect)
{
  guint n = 0;

  for (int y = MAX ((int) rect->origin.y, 0); y < MIN ((int) (rect->origin.y + rect->size.height), h);
       y++)
    for (int x = MAX ((int) rect->origin.x, 0);
         x < MIN ((int) (rect->origin.x + rect->size.width), w); x++)
      n += luma_at (pixels, w, x, y) < 0.5;
  return n;
}

/* At the side pane's default width (300 px) both value axes are drawn (the review found
 * neither there, only from 580 px): compact, the top and bottom values with the unit once
 * between them, in gutters beside the plot; wide again, the full labels come back. */
static void
test_axes_narrow (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree guint8 *pixels = NULL;
  graphene_rect_t plot, gutter;
  double lo, hi;
  int w, h;

  km_document_set_selected_joint (f->document, -1);
  g_object_set (f->graph_view, "angle-unit", "radians", "length-unit", "millimetres", NULL);
  gtk_widget_set_size_request (GTK_WIDGET (f->graph_view), 300, 240);
  gtk_window_set_default_size (f->window, 300, 240);
  test_app_spin_for (200);
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (f->graph_view)), ==, 300);

  assert_axis_labels (f, GTK_POS_LEFT, "3.14|rad|-3.14");
  assert_axis_labels (f, GTK_POS_RIGHT, "500|mm|0");
  g_assert_true (km_graph_view_get_axis_range (f->graph_view, GTK_POS_LEFT, &lo, &hi));
  g_assert_true (km_graph_view_get_axis_range (f->graph_view, GTK_POS_RIGHT, &lo, &hi));

  /* Gutters either side of the plot, which keeps most of the width. */
  g_assert_true (km_graph_view_get_plot_area (f->graph_view, &plot));
  g_test_message ("plot from %.0f to %.0f of 300 px", plot.origin.x,
                  plot.origin.x + plot.size.width);
  g_assert_cmpfloat (plot.origin.x, >, GRAPH_MARGIN + 10);
  g_assert_cmpfloat (plot.origin.x + plot.size.width, <, 300 - GRAPH_MARGIN - 10);
  g_assert_cmpfloat (plot.size.width, >=, 200);

  /* And the labels are drawn in them. */
  pixels = render_graph (f, &w, &h);
  gutter = GRAPHENE_RECT_INIT (0, plot.origin.y, plot.origin.x - 1, plot.size.height);
  g_assert_cmpuint (count_ink (pixels, w, h, &gutter), >, 30);
  gutter = GRAPHENE_RECT_INIT (plot.origin.x + plot.size.width + 1, plot.origin.y,
                            w - (plot.origin.x + plot.size.width + 1), plot.size.height);
  g_assert_cmpuint (count_ink (pixels, w, h, &gutter), >, 30);

  /* One kind alone: one compact axis, on the left. */
  km_document_set_selected_joint (f->document,
                                  km_skeleton_find_joint (km_document_get_skeleton (f->document),
                                                          "Elbow"));
  test_app_spin_for (50);
  g_assert_true (km_graph_view_get_plot_area (f->graph_view, &plot));
  g_assert_cmpfloat (plot.origin.x, >, GRAPH_MARGIN + 10);
  assert_axis_labels (f, GTK_POS_RIGHT, "");
  {
    g_auto(GStrv) labels = km_graph_view_dup_axis_labels (f->graph_view, GTK_POS_LEFT);

    g_assert_cmpuint (g_strv_length (labels), ==, 3);
    g_assert_true (strstr (labels[0], "rad") != NULL || strcmp (labels[1], "rad") == 0);
  }

  /* Wide again: the full labels. */
  km_document_set_selected_joint (f->document, -1);
  gtk_widget_set_size_request (GTK_WIDGET (f->graph_view), 600, 240);
  gtk_window_set_default_size (f->window, 600, 240);
  test_app_spin_for (200);
  assert_axis_labels (f, GTK_POS_LEFT, "3.14 rad|0.00 rad|-3.14 rad");
  assert_axis_labels (f, GTK_POS_RIGHT, "500 mm|250 mm|0 mm");
}

/* The time axis' step (km_graph_axis_time_step) at any length of motion: at least three
 * labels, each with its room, on the plot of a graph 560 pixels wide, from half a second to
 * a third of a year. Review finding: a 33,333 s motion (a million frames at 30 fps) got no
 * step at all, only "0 s". */
static void
test_time_step_any_length (void)
{
  static const double totals[] = { 0.5, 8, 480, 4000, 33333.3, 3 * 86400.0, 1e7 };
  const double width = 560, room = 74;

  for (guint i = 0; i < G_N_ELEMENTS (totals); i++)
    {
      double step = km_graph_axis_time_step (totals[i], width, room);

      g_test_message ("%g s: step %g s", totals[i], step);
      g_assert_cmpfloat (step, >, 0);
      g_assert_cmpfloat (width * step / totals[i], >=, room);
      g_assert_cmpfloat (floor (totals[i] / step) + 1, >=, 3);
    }
  /* Round steps: the 33,333 s motion's is two hours. */
  g_assert_cmpfloat (km_graph_axis_time_step (33333.3, width, room), ==, 7200);
  /* No room for even two labels: none but "0 s". */
  g_assert_cmpfloat (km_graph_axis_time_step (8, 50, room), ==, 0);
  g_assert_cmpfloat (km_graph_axis_time_step (0, width, room), ==, 0);
}

/* Frames of the streamed motion solved so far (in frame order, each with its residual). */
static guint
solved_frames (KmDocument *document)
{
  KmAnimation *animation = km_document_get_animation (document);
  guint n = 0;

  while (animation != NULL && n < km_animation_get_n_frames (animation)
         && km_animation_get_residual (animation, n, NULL, NULL))
    n++;
  return n;
}

static gboolean
some_solved (gpointer data)
{
  Fixture *f = data;

  return !km_document_get_solving (f->document) || solved_frames (f->document) >= 500;
}

/* Review finding: while a motion of a million frames is solved, the frames not solved yet
 * were drawn at 0, so each curve dropped to zero at the progress point and ran along it to
 * the end. The curves end at the last frame solved; and the time axis (33,333 s) has
 * labels along it, not "0 s" alone. */
static void
test_long_solve_curve_ends (Fixture       *f,
                            gconstpointer  data)
{
  KmTargetTrack *targets = km_document_get_targets (f->document);
  KmSkeleton *skeleton = km_document_get_skeleton (f->document);
  int elbow = km_skeleton_find_joint (skeleton, "Elbow");
  guint dof = km_skeleton_get_joint (skeleton, elbow)->dof_index;
  KmTargetKeyframe far = *km_target_track_get_keyframe (targets, 0);
  g_autofree guint8 *pixels = NULL;
  g_auto(GStrv) times = NULL;
  g_autofree char *joined = NULL;
  graphene_rect_t plot;
  guint solved, drawn_after = 0;
  double end;
  int w, h;

  km_document_set_selected_joint (f->document, elbow);
  far.frame = 1000000;
  g_assert_true (km_document_put_keyframe (f->document, &far));
  g_assert_true (km_document_get_solving (f->document));
  g_assert_true (test_app_wait_until (some_solved, f, 20000));
  g_assert_true (km_document_get_solving (f->document));
  test_app_spin_for (50);

  /* Frames stream in on the main thread: none come while the graph is rendered. */
  solved = solved_frames (f->document);
  pixels = render_graph (f, &w, &h);
  g_test_message ("%u frames solved of %u", solved, far.frame + 1);
  g_assert_true (km_graph_view_get_plot_area (f->graph_view, &plot));
  end = km_graph_view_x_for_frame (f->graph_view, solved);
  /* The rest of the time axis is not solved yet: far more than the frames solved. */
  g_assert_cmpfloat (end, <, plot.origin.x + plot.size.width / 2);
  for (int x = (int) ceil (end) + 3; x < plot.origin.x + plot.size.width - 1; x++)
    drawn_after += curve_pixels_in_column (f->graph_view, dof, pixels, w, h, x);
  g_assert_cmpuint (drawn_after, ==, 0);
  /* The frames solved are drawn. */
  g_assert_cmpuint (curve_pixels_in_column (f->graph_view, dof, pixels, w, h,
                                            (int) plot.origin.x + 1), >, 0);

  times = km_graph_view_dup_time_labels (f->graph_view);
  joined = g_strjoinv ("|", times);
  g_test_message ("time labels: %s", joined);
  g_assert_cmpuint (g_strv_length (times), >=, 3);
  g_assert_cmpstr (times[0], ==, "0 s");

  km_document_cancel_solve (f->document);
  g_assert_false (km_document_get_solving (f->document));
}

int
main (int    argc,
      char **argv)
{
  test_app_init (&argc, &argv);

  g_test_add ("/kinema/Walkthrough/graph/keyframe-marks-visible", Fixture, NULL,
              fixture_setup, test_keyframe_marks_visible, fixture_teardown);
  g_test_add ("/kinema/Walkthrough/graph/axis-spans-time-bar", Fixture, NULL,
              fixture_setup, test_axis_spans_time_bar, fixture_teardown);
  g_test_add ("/kinema/Walkthrough/graph/one-sided-limit-band", Fixture, NULL,
              fixture_setup, test_one_sided_limit_band, fixture_teardown);
  g_test_add ("/kinema/Walkthrough/graph/legend-names-and-colours", Fixture, NULL,
              fixture_setup, test_legend_names_and_colours, fixture_teardown);
  g_test_add ("/kinema/Walkthrough/graph/value-axis-units", Fixture, NULL,
              fixture_setup, test_value_axis_units, fixture_teardown);
  g_test_add ("/kinema/Walkthrough/graph/mixed-axes", Fixture, NULL,
              fixture_setup, test_mixed_axes, fixture_teardown);
  g_test_add ("/kinema/Walkthrough/graph/isolated-joint-keeps-colour", Fixture, NULL,
              fixture_setup, test_isolated_joint_keeps_colour, fixture_teardown);
  g_test_add ("/kinema/Walkthrough/graph/legend-click-selects", Fixture, NULL,
              fixture_setup, test_legend_click_selects, fixture_teardown);
  g_test_add ("/kinema/Walkthrough/graph/legend-many-colours", Fixture, NULL,
              fixture_setup, test_legend_many_colours, fixture_teardown);
  g_test_add ("/kinema/Walkthrough/graph/legend-click-never-seeks", Fixture, NULL,
              fixture_setup, test_legend_click_never_seeks, fixture_teardown);
  g_test_add ("/kinema/Walkthrough/graph/legend-narrow", Fixture, NULL,
              fixture_setup, test_legend_narrow, fixture_teardown);
  g_test_add ("/kinema/Walkthrough/graph/axes-narrow", Fixture, NULL,
              fixture_setup, test_axes_narrow, fixture_teardown);
  g_test_add_func ("/kinema/Walkthrough/graph/time-step-any-length", test_time_step_any_length);
  g_test_add ("/kinema/Walkthrough/graph/long-solve-curve-ends", Fixture, NULL,
              fixture_setup, test_long_solve_curve_ends, fixture_teardown);
  return g_test_run ();
}
