/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

/*
 * bench-body-handler MODEL TARGETS [N] — the UR5 analytic body handler against the
 * numeric solver on the shared cold targets (../shared/bench/README.md: each frame from
 * the mid-range seed, success judged by independent forward kinematics). Prints one
 * `solver=… chain=… …` line per solver:
 *   UR5Analytic   the handler's custom joint path alone (nearest configuration)
 *   IK+handler    km_ik_solve with the handler's hook (analytic first, verified)
 *   IK            km_ik_solve, numeric only (first N targets, default 1000)
 * best_batch_us: the best of three batches over all targets, per solve (the per-solve
 * figures use a microsecond clock). Never fails on timing. KINEMA_BODYHANDLER_PATH must reach UR5AnalyticIkHandler.so.
 */

#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-glib/json-glib.h>

#include "km-body-handler.h"
#include "km-format.h"
#include "km-ik.h"

typedef enum { ANALYTIC, HOOKED, NUMERIC } Mode;

static int
cmp_double (const void *a,
            const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

static void
run (const char         *solver,
     Mode                mode,
     KmSkeleton         *skel,
     KmBodyHandlerSet   *set,
     const KmTransform  *targets,
     guint               n,
     const char         *targets_path)
{
  int tool = km_skeleton_get_default_effector (skel);
  guint n_dof = km_skeleton_get_n_dof (skel);
  g_autoptr(KmIkProblem) problem = km_ik_problem_new (skel, tool);
  g_autoptr(KmBodyHandlerIkHook) hook = km_body_handler_ik_hook_new (set, KM_BODY_HANDLER_CONFIGURATION_NEAREST);
  g_autofree double *times = g_new (double, MAX (n, 1));
  g_autofree double *q = g_new (double, n_dof);
  g_autofree KmTransform *world = g_new (KmTransform, km_skeleton_get_n_joints (skel));
  guint success = 0, success_jl = 0;
  double sum = 0.0, iters = 0.0, best_batch = G_MAXDOUBLE;
  KmIkSolution sol;

  if (mode == HOOKED)
    km_body_handler_ik_hook_install (hook, problem);
  km_ik_solution_init (&sol, n_dof);
  for (guint i = 0; i < n; i++)
    {
      gint64 t0, t1;

      memset (q, 0, n_dof * sizeof (double));
      problem->target = targets[i];
      t0 = g_get_monotonic_time ();
      if (mode == ANALYTIC)
        km_body_handler_set_solve_path (set, -1, tool, NULL, &targets[i],
                                        KM_BODY_HANDLER_CONFIGURATION_NEAREST, q);
      else
        {
          km_ik_solve (problem, &sol, NULL, NULL);
          memcpy (q, sol.q, n_dof * sizeof (double));
          iters += sol.iterations;
        }
      t1 = g_get_monotonic_time ();
      times[i] = (double) (t1 - t0);
      sum += times[i];
      km_skeleton_forward_kinematics (skel, q, NULL, world);
      if (km_vec3_length (km_vec3_sub (world[tool].pos, targets[i].pos)) < 1e-4 &&
          km_mat3_rotation_angle (&world[tool].rot, &targets[i].rot) < 1e-3)
        {
          success++;
          if (km_skeleton_within_limits (skel, q, 1e-9))
            success_jl++;
        }
    }
  /* The machine may be shared: also the best of three untimed-per-solve batches. */
  for (guint r = 0; r < 3; r++)
    {
      gint64 t0 = g_get_monotonic_time ();

      for (guint i = 0; i < n; i++)
        {
          memset (q, 0, n_dof * sizeof (double));
          problem->target = targets[i];
          if (mode == ANALYTIC)
            km_body_handler_set_solve_path (set, -1, tool, NULL, &targets[i],
                                            KM_BODY_HANDLER_CONFIGURATION_NEAREST, q);
          else
            km_ik_solve (problem, &sol, NULL, NULL);
        }
      best_batch = MIN (best_batch, (double) (g_get_monotonic_time () - t0) / n);
    }
  km_ik_solution_clear (&sol);
  qsort (times, n, sizeof (double), cmp_double);
  /* Microsecond clock: mean over all solves is the meaningful figure below 1 µs. */
  printf ("solver=%s chain=ur5 dof=%u n=%u mode=cold success=%.4f success_jl=%.4f "
          "median_us=%.3f mean_us=%.3f p99_us=%.3f mean_iters=%.2f best_batch_us=%.3f "
          "targets=%s\n",
          solver, n_dof, n, (double) success / n, (double) success_jl / n,
          times[n / 2], sum / n, times[MIN (n - 1, n * 99 / 100)], iters / n, best_batch, targets_path);
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(KmSkeleton) skel = NULL;
  g_autoptr(KmBodyHandlerSet) set = NULL;
  g_autofree KmTransform *targets = NULL;
  const KmFormat *format = NULL;
  JsonArray *array;
  guint n, n_numeric;

  if (argc < 3)
    {
      fprintf (stderr, "usage: %s MODEL TARGETS [N_NUMERIC]\n", argv[0]);
      return 2;
    }
  skel = km_format_load_file (argv[1], NULL, &format, &error);
  if (skel == NULL || format->kind != KM_FILE_KIND_MODEL)
    {
      fprintf (stderr, "%s\n", error != NULL ? error->message : "not a model");
      return 1;
    }
  set = km_body_handler_loader_attach (km_body_handler_loader_get_default (), skel, NULL, NULL);
  for (guint i = 0; i < km_body_handler_set_get_n_reports (set); i++)
    {
      g_auto(GStrv) lines = g_strsplit (km_body_handler_set_get_report (set, i)->message,
                                        "\n", -1);

      for (guint l = 0; lines[l] != NULL; l++)
        printf ("# %s\n", lines[l]);
    }
  if (!json_parser_load_from_file (parser, argv[2], &error) ||
      !JSON_NODE_HOLDS_ARRAY (json_parser_get_root (parser)))
    {
      fprintf (stderr, "%s: %s\n", argv[2], error != NULL ? error->message : "not a list");
      return 1;
    }
  array = json_node_get_array (json_parser_get_root (parser));
  n = json_array_get_length (array);
  targets = g_new (KmTransform, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    {
      JsonObject *o = json_array_get_object_element (array, i);
      JsonArray *p = json_object_get_array_member (o, "pos");
      JsonArray *e = json_object_get_array_member (o, "euler");
      KmVec3 euler = km_vec3 (km_deg_to_rad (json_array_get_double_element (e, 0)),
                              km_deg_to_rad (json_array_get_double_element (e, 1)),
                              km_deg_to_rad (json_array_get_double_element (e, 2)));

      targets[i].pos = km_vec3 (json_array_get_double_element (p, 0),
                                json_array_get_double_element (p, 1),
                                json_array_get_double_element (p, 2));
      km_mat3_from_euler_xyz (euler, &targets[i].rot);
    }
  n_numeric = argc > 3 ? (guint) MIN (strtoul (argv[3], NULL, 10), n) : MIN (n, 1000);

  run ("UR5Analytic", ANALYTIC, skel, set, targets, n, argv[2]);
  run ("IK+handler", HOOKED, skel, set, targets, n, argv[2]);
  run ("IK", NUMERIC, skel, set, targets, n_numeric, argv[2]);
  return 0;
}
