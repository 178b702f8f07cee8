/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <glib/gstdio.h>
#include <gtk/gtk.h>

#include "km-joint-panel.h"
#include "test-app-util.h"
#include "km-test-tmp.h"

/*
 * Opening a large model in the window (review 17, finding 4): a generated skeleton.json
 * with N revolute joints in a deep branching tree (each joint's parent one of the five
 * joints before it) is opened in a window showing the built-in example, as
 * `kinema FILE` does. The main loop's longest stall from the open to the first frame drawn
 * with the model is what the user sees as a frozen window. Prints
 * `open_ms=… longest_stall_ms=… joints=N`; never fails on timing. Needs an X display (run
 * under xvfb-run, like the GUI tests); exits 77 (skipped) without one.
 *
 * Options: --joints N (default 3000), or a skeleton file to open instead.
 */

#define SKIP 77

static gint64 last_tick;
static gint64 longest_stall;

/* Runs whenever the main loop is free: the gap between two runs is a stall. */
static gboolean
tick_cb (gpointer data)
{
  gint64 now = g_get_monotonic_time ();

  longest_stall = MAX (longest_stall, now - last_tick);
  last_tick = now;
  return G_SOURCE_CONTINUE;
}

static void
after_paint_cb (GdkFrameClock *clock,
                gboolean      *painted)
{
  *painted = TRUE;
}

int
main (int   argc,
      char *argv[])
{
  guint n_joints = 3000;
  const char *given = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  g_autoptr(GFile) file = NULL;
  KmWindow *window;
  KmJointPanel *panel;
  GdkFrameClock *clock;
  gboolean painted = FALSE;
  gint64 start;
  guint tick;

  if (!gtk_init_check ())
    return SKIP;
  for (int i = 1; i < argc; i++)
    if (g_strcmp0 (argv[i], "--joints") == 0 && i + 1 < argc)
      {
        int n = atoi (argv[++i]);

        n_joints = (guint) MAX (2, n);
      }
    else
      given = argv[i];

  dir = km_test_make_tmp_dir ("kinema-bench-open-XXXXXX");
  if (given != NULL)
    path = g_strdup (given);
  else
    {
      path = g_build_filename (dir, "tree.json", NULL);
      test_app_write_tree (path, n_joints);
    }
  file = g_file_new_for_path (path);

  /* As `kinema FILE` does: a new window, the file opened in it. */
  window = km_window_new (NULL);
  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  gtk_window_present (GTK_WINDOW (window));
  test_app_spin_for (500);
  clock = gtk_widget_get_frame_clock (GTK_WIDGET (window));
  g_signal_connect (clock, "after-paint", G_CALLBACK (after_paint_cb), &painted);

  tick = g_timeout_add_full (G_PRIORITY_HIGH, 2, tick_cb, NULL, NULL);
  start = last_tick = g_get_monotonic_time ();
  if (!km_window_open_file (window, file) || !test_app_wait_loaded (window))
    g_error ("%s was not opened", path);
  /* The first frame drawn with the model in it. */
  painted = FALSE;
  gtk_widget_queue_draw (GTK_WIDGET (window));
  while (!painted)
    g_main_context_iteration (NULL, TRUE);
  tick_cb (NULL);
  panel = KM_JOINT_PANEL (km_window_get_joint_panel (window));
  if (given == NULL && km_joint_panel_get_n_rows (panel) != n_joints - 1)
    g_error ("%s was not opened: %u DOFs", path, km_joint_panel_get_n_rows (panel));
  printf ("open_ms=%.0f longest_stall_ms=%.0f joints=%u\n",
          (g_get_monotonic_time () - start) / 1000.0, longest_stall / 1000.0,
          given != NULL ? 0 : n_joints);
  g_source_remove (tick);
  g_signal_handlers_disconnect_by_data (clock, &painted);

  gtk_window_destroy (GTK_WINDOW (window));
  km_test_remove_tree (dir);
  return 0;
}
