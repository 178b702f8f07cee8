/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <math.h>
#include <gtk/gtk.h>

#include "km-document.h"
#include "km-graph-view.h"

#include "test-app-util.h"

/*
 * What a user sees in the Graph tab, under Xvfb: the keyframe marks below the curves stand
 * out from the background they are drawn on (the theme's), like the time bar's ticks.
 */

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
  GtkWidget *graph = GTK_WIDGET (f->graph_view);
  g_autoptr(GdkPaintable) paintable = NULL;
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  g_autofree guint8 *pixels = NULL;
  g_autoptr(GskRenderer) renderer = gsk_cairo_renderer_new ();
  g_autoptr(GError) error = NULL;
  GtkSnapshot *snapshot;
  double x, y, mark, background;
  int w, h;

  g_assert_true (gsk_renderer_realize (renderer, NULL, &error));
  g_assert_no_error (error);
  w = gtk_widget_get_width (graph);
  h = gtk_widget_get_height (graph);
  g_assert_cmpint (w, >=, 600);
  /* The built-in example keys frame 80 (its second keyframe). */
  g_assert_true (km_graph_view_get_keyframe_point (f->graph_view, 80, &x, &y));

  paintable = gtk_widget_paintable_new (graph);
  snapshot = gtk_snapshot_new ();
  /* The window's background under the graph, as the user sees it */
  gtk_snapshot_append_color (snapshot, &(GdkRGBA) { 1, 1, 1, 1 },
                             &GRAPHENE_RECT_INIT (0, 0, w, h));
  gdk_paintable_snapshot (paintable, snapshot, w, h);
  node = gtk_snapshot_free_to_node (snapshot);
  texture = gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, w, h));
  pixels = g_malloc ((gsize) w * h * 4);
  gdk_texture_download (texture, pixels, (gsize) w * 4);
  gsk_renderer_unrealize (renderer);

  /* The middle of the mark, against the background beside it (between two marks). */
  mark = luma_at (pixels, w, (int) round (x), (int) round (y) + 1);
  background = luma_at (pixels, w, (int) round (x) + 20, (int) round (y) + 1);
  g_test_message ("mark %.3f background %.3f", mark, background);
  g_assert_cmpfloat (fabs (mark - background), >, 0.4);
}

int
main (int    argc,
      char **argv)
{
  test_app_init (&argc, &argv);

  g_test_add ("/kinema/Walkthrough/graph/keyframe-marks-visible", Fixture, NULL,
              fixture_setup, test_keyframe_marks_visible, fixture_teardown);
  return g_test_run ();
}
