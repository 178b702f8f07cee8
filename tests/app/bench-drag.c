/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#ifdef GDK_WINDOWING_X11
#include <gdk/x11/gdkx.h>
#endif

#include "km-scene-view.h"

#include "test-app-util.h"
#include "km-test-tmp.h"

/*
 * Drag latency (issue 7): the tip of a generated 30-DOF chain is dragged in the scene view
 * with real pointer input (xdotool, which uses XTEST) while the view repaints; each IK
 * answer's time from the motion event's request to the pose on the document is collected.
 * Prints `drag_latency_p95_us=… drag_latency_p50_us=… events=N` (N answers measured) and
 * never fails on timing. Needs an X display with GL (run under xvfb-run, like the GUI
 * tests); exits 77 (skipped) without one.
 *
 * Options: --drags N (default 6), --steps N moves per drag (default 40).
 */

#define SKIP 77

static gboolean done;

static gboolean
not_solving (gpointer data)
{
  return !km_document_get_solving (data);
}

static gboolean
rendered (gpointer data)
{
  return km_scene_view_get_n_renders (data) > 0
         || gtk_gl_area_get_error (GTK_GL_AREA (data)) != NULL;
}

static gboolean
drag_idle (gpointer data)
{
  return !km_drag_solver_get_busy (km_scene_view_get_drag_solver (data));
}

static gboolean
input_done (gpointer data)
{
  return done;
}

static void
xdotool_done_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  if (!g_subprocess_wait_check_finish (G_SUBPROCESS (object), result, &error))
    g_printerr ("xdotool: %s\n", error->message);
  done = TRUE;
}

/* A press at (x0, y0), @steps moves to (x1, y1), a release; scene view coordinates. */
static gboolean
real_drag (GtkWindow   *window,
           GtkWidget   *view,
           const char  *xdotool,
           double       x0,
           double       y0,
           double       x1,
           double       y1,
           guint        steps)
{
#ifdef GDK_WINDOWING_X11
  g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;
  GdkSurface *surface = gtk_native_get_surface (GTK_NATIVE (window));
  double sx, sy;

  gtk_native_get_surface_transform (GTK_NATIVE (window), &sx, &sy);
  g_ptr_array_add (args, g_strdup (xdotool));
  for (guint s = 0; s <= steps; s++)
    {
      double x = x0 + (x1 - x0) * s / steps, y = y0 + (y1 - y0) * s / steps, tx, ty;

      if (!gtk_widget_translate_coordinates (view, GTK_WIDGET (window), x, y, &tx, &ty))
        return FALSE;
      g_ptr_array_add (args, g_strdup ("mousemove"));
      g_ptr_array_add (args, g_strdup ("--window"));
      g_ptr_array_add (args, g_strdup_printf ("%lu", (gulong) gdk_x11_surface_get_xid (surface)));
      g_ptr_array_add (args, g_strdup_printf ("%ld", lround (tx + sx)));
      g_ptr_array_add (args, g_strdup_printf ("%ld", lround (ty + sy)));
      g_ptr_array_add (args, g_strdup ("sleep"));
      g_ptr_array_add (args, g_strdup ("0.012"));
      if (s == 0)
        {
          g_ptr_array_add (args, g_strdup ("mousedown"));
          g_ptr_array_add (args, g_strdup ("1"));
        }
    }
  g_ptr_array_add (args, g_strdup ("mouseup"));
  g_ptr_array_add (args, g_strdup ("1"));
  g_ptr_array_add (args, NULL);
  process = g_subprocess_newv ((const char * const *) args->pdata, G_SUBPROCESS_FLAGS_NONE,
                               &error);
  if (process == NULL)
    return FALSE;
  done = FALSE;
  g_subprocess_wait_check_async (process, NULL, xdotool_done_cb, NULL);
  return test_app_wait_until (input_done, NULL, 60000);
#else
  return FALSE;
#endif
}

static char *
chain_json (guint n)
{
  GString *json = g_string_new ("{ \"root_name\": \"Root\", \"joints\": [\n"
                                "  { \"name\": \"Root\", \"type\": \"fixed\", "
                                "\"offset\": [0, 0, 0], \"parent\": null }");

  for (guint i = 1; i <= n; i++)
    {
      g_autofree char *parent = i == 1 ? g_strdup ("Root") : g_strdup_printf ("J%u", i - 1);

      g_string_append_printf (json, ",\n  { \"name\": \"J%u\", \"type\": \"revolute\", "
                              "\"offset\": [0, 0, %s], \"parent\": \"%s\", "
                              "\"axis\": [%d, %d, 0], \"limits\": [-1.2, 1.2] }",
                              i, i == 1 ? "0" : "0.1", parent, i % 2, (i + 1) % 2);
    }
  g_string_append_printf (json, ",\n  { \"name\": \"Tip\", \"type\": \"fixed\", "
                          "\"offset\": [0, 0, 0.1], \"parent\": \"J%u\" }\n] }\n", n);
  return g_string_free (json, FALSE);
}

static int
compare_int64 (gconstpointer a,
               gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *xdotool = g_find_program_in_path ("xdotool");
  g_autofree char *json = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) all = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(KmDocument) document = NULL;
  guint n_drags = 6, steps = 40;
  KmSceneView *view;
  GtkWindow *window;
  int tip;

  for (int i = 1; i + 1 < argc; i++)
    {
      if (g_str_equal (argv[i], "--drags"))
        n_drags = (guint) CLAMP (atoi (argv[++i]), 1, 1000);
      else if (g_str_equal (argv[i], "--steps"))
        steps = (guint) CLAMP (atoi (argv[++i]), 1, 10000);
    }

  if (!gtk_init_check ())
    {
      printf ("bench-drag: skipped, no display\n");
      return SKIP;
    }
#ifdef GDK_WINDOWING_X11
  if (!GDK_IS_X11_DISPLAY (gdk_display_get_default ()))
#endif
    {
      printf ("bench-drag: skipped, not on X11\n");
      return SKIP;
    }
  if (xdotool == NULL)
    {
      printf ("bench-drag: skipped, xdotool is not installed\n");
      return SKIP;
    }

  dir = g_dir_make_tmp ("bench-drag-XXXXXX", &error);
  g_assert_no_error (error);
  path = g_build_filename (dir, "chain30.json", NULL);
  json = chain_json (30);
  g_file_set_contents (path, json, -1, &error);
  g_assert_no_error (error);

  document = km_document_new ();
  file = g_file_new_for_path (path);
  if (!km_document_import_file (document, file, &error))
    g_error ("%s", error->message);
  g_assert_true (test_app_wait_until (not_solving, document, 30000));
  g_assert_cmpuint (km_skeleton_get_n_dof (km_document_get_skeleton (document)), ==, 30);
  for (guint i = 0; i < 30; i++)
    km_document_set_dof_value (document, i, 0.1);
  km_document_close_edit (document);

  window = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_default_size (window, 720, 480);
  view = KM_SCENE_VIEW (km_scene_view_new ());
  gtk_window_set_child (window, GTK_WIDGET (view));
  km_scene_view_set_document (view, document);
  gtk_window_present (window);
  g_assert_true (test_app_wait_until (rendered, view, 10000));
  if (gtk_gl_area_get_error (GTK_GL_AREA (view)) != NULL)
    {
      printf ("bench-drag: skipped, no GL: %s\n",
              gtk_gl_area_get_error (GTK_GL_AREA (view))->message);
      gtk_window_destroy (window);
      km_test_remove_tree (dir);
      return SKIP;
    }
  km_scene_view_reset_camera (view);
  km_scene_view_set_camera (view, km_scene_view_get_camera (view));
  km_scene_view_set_edit_mode (view, TRUE);
  test_app_spin_for (200);

  tip = km_document_get_effector (document);
  g_assert_cmpint (tip, >=, 0);
  for (guint d = 0; d < n_drags; d++)
    {
      const KmCamera *camera = km_scene_view_get_camera (view);
      int w = gtk_widget_get_width (GTK_WIDGET (view)), h = gtk_widget_get_height (GTK_WIDGET (view));
      double x0, y0, angle = d * 2.4;
      const gint64 *lat;
      guint n = 0;

      g_assert_true (km_camera_project (camera, km_document_get_joint_world (document, NULL)[tip].pos,
                                        w, h, &x0, &y0));
      if (!real_drag (window, GTK_WIDGET (view), xdotool, x0, y0,
                      x0 + 45 * cos (angle), y0 + 45 * sin (angle), steps))
        g_error ("the drag did not run");
      g_assert_true (test_app_wait_until (drag_idle, view, 10000));
      lat = km_scene_view_get_drag_latencies (view, &n);
      g_array_append_vals (all, lat, n);
    }

  if (all->len == 0)
    g_error ("no IK answers were measured");
  g_array_sort (all, compare_int64);
  printf ("drag_latency_p95_us=%" G_GINT64_FORMAT " drag_latency_p50_us=%" G_GINT64_FORMAT
          " events=%u drag_latency_max_us=%" G_GINT64_FORMAT "\n",
          g_array_index (all, gint64, MIN (all->len - 1, all->len * 95 / 100)),
          g_array_index (all, gint64, all->len / 2), all->len,
          g_array_index (all, gint64, all->len - 1));

  gtk_window_destroy (window);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  km_test_remove_tree (dir);
  return 0;
}
