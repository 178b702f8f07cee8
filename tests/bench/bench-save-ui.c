/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

/*
 * bench-save-ui: the main-thread part of saving a project that embeds a 10,000-frame,
 * 5-DOF IK animation (the editor's budget: well under a frame, 16 ms), against the part
 * a worker thread does. Prints one key=value line:
 *   frames=N bytes=B ui_ms=… worker_ms=… store_ms=… format_ms=… emit_ms=…
 * ui_ms is km_cnoid_build_tree (what km_document_save_async does on the main thread),
 * worker_ms km_cnoid_tree_to_string of that tree; store_ms, format_ms and emit_ms break
 * the animation's own share down: building its whole node tree (as the synchronous
 * store does), formatting its numbers alone, and emitting that tree. Each is the best of
 * a few runs. Never fails on timing (a meson benchmark); exits 1 only when the text the
 * tree gives differs from km_cnoid_to_string's.
 */

#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <glib.h>

#include "km-animation.h"
#include "km-cnoid.h"
#include "km-ik-animation-item.h"
#include "km-item.h"
#include "km-project.h"
#include "km-yaml.h"

#include "test-util.h"

#define N_FRAMES 10000
#define N_JOINTS 5
#define N_RUNS   5

/* Solver output: full-precision angles, as a solve gives them. */
static double
joint_value (guint frame,
             guint joint)
{
  return sin (frame * 0.001 * (joint + 1)) * (1.0 + joint / 7.0);
}

static KmAnimation *
make_animation (void)
{
  return test_util_revolute_animation (N_JOINTS, N_FRAMES, joint_value);
}

static double
elapsed_ms (gint64 since)
{
  return (g_get_monotonic_time () - since) / 1000.0;
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(KmProject) project = km_project_new ();
  g_autoptr(KmAnimation) animation = make_animation ();
  g_autoptr(KmItem) item = km_ik_animation_item_new ();
  g_autofree char *expected = NULL;
  KmItemIo io = { .file = "bench.cnoid", .dir = "." };
  double ui = G_MAXDOUBLE, worker = G_MAXDOUBLE, store = G_MAXDOUBLE;
  double format = G_MAXDOUBLE, emit = G_MAXDOUBLE;
  gsize length = 0;
  gboolean same = TRUE;

  km_item_set_name (item, "Solved Animation");
  km_ik_animation_item_set_animation (KM_IK_ANIMATION_ITEM (item), animation);
  km_item_append_child (km_project_get_root_item (project), item);
  expected = km_cnoid_to_string (project, "bench.cnoid", &length, NULL);

  for (guint run = 0; run < N_RUNS; run++)
    {
      g_autoptr(GHashTable) ids = NULL;
      g_autoptr(KmYamlNode) tree = NULL;
      g_autoptr(KmYamlNode) data = NULL;
      g_autofree char *text = NULL;
      g_autofree char *data_text = NULL;
      char buffer[G_ASCII_DTOSTR_BUF_SIZE];
      gsize text_length = 0;
      gint64 t;

      t = g_get_monotonic_time ();
      tree = km_cnoid_build_tree (project, "bench.cnoid", &ids);
      ui = MIN (ui, elapsed_ms (t));

      t = g_get_monotonic_time ();
      text = km_cnoid_tree_to_string (tree, &text_length);
      worker = MIN (worker, elapsed_ms (t));
      same = same && text_length == length && memcmp (text, expected, length) == 0;

      t = g_get_monotonic_time ();
      data = km_item_store (item, &io);
      store = MIN (store, elapsed_ms (t));

      t = g_get_monotonic_time ();
      for (guint f = 0; f < N_FRAMES; f++)
        for (guint c = 0; c < N_JOINTS; c++)
          km_yaml_format_number (km_animation_get_frame (animation, f)[c], buffer,
                                 sizeof buffer);
      format = MIN (format, elapsed_ms (t));

      t = g_get_monotonic_time ();
      data_text = km_yaml_emit_to_string (data, NULL);
      emit = MIN (emit, elapsed_ms (t));
    }

  printf ("frames=%u bytes=%zu ui_ms=%.2f worker_ms=%.1f store_ms=%.1f format_ms=%.1f "
          "emit_ms=%.1f\n", N_FRAMES, length, ui, worker, store, format, emit);
  if (!same)
    fprintf (stderr, "the tree's text differs from km_cnoid_to_string's\n");
  return same ? 0 : 1;
}
