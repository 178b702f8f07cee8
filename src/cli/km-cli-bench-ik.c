/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "kinema-cli"

#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <glib/gi18n.h>

#include "km-cli.h"
#include "km-cli-commands.h"
#include "km-animation.h"
#include "km-animation-json.h"
#include "km-body-handler.h"
#include "km-error.h"
#include "km-format.h"
#include "km-ik.h"
#include "km-target-track.h"

/*
 * kinema-cli bench-ik CHAIN TARGETS --mode cold|warm|trajectory: the output line of
 * ../shared/bench/README.md. Success is judged by the skeleton's own forward kinematics,
 * independently of the solver's verdict.
 *
 * cold and warm are exactly the bench protocol ("How to solve them"), one km_ik_solve() per
 * frame, only that call timed: cold from the mid-range seed, warm with frame k seeded by the
 * solver's own answer to frame k−1 and nothing else (problem->continuous set after frame 0,
 * which only keeps the solver on that answer's branch).
 *
 * trajectory is the product's motion solve, not the bench protocol: one
 * km_ik_solve_trajectory() call over all frames (frame 0 from the mid-range seed), which may
 * also use earlier answers (momentum: an extrapolation from frames k−2 and k−1). Its
 * mean_us is the whole call's wall-clock time over the frames: the honest cost per frame,
 * branch searches included. The solve hands frames over in bursts (a frame is final only
 * once no branch search can revise it any more), so there is no time per frame: median_us
 * and p99_us say `na` (the bench format's word for a value a solver does not have, as for
 * mean_iters), the keys kept so that lines still compare by key. mean_iters counts the
 * iterations of the answers kept, not those of the tracks a branch search tried and
 * dropped. Its line says
 * mode=trajectory and carries the same keys as warm (flips, fail_runs, longest_fail_run), so
 * the two can be compared honestly side by side; KDL has no such mode.
 *
 * A chain that names body handlers gets them as `solve` does (the trusted folders, and
 * --handler-dir, which bench-ik takes with --share-dir as every command that reads models
 * does): linked joints, and a handler's analytic IK, which the solve then tries first.
 * What became of each is said on stderr as `solve` says it.
 *
 * warm and trajectory lines also say turn_flips, a key of Kinema's own (the bench allows more
 * keys): how many of the flips are whole turns of revolute joints and nothing else (see
 * is_turn_flip()), so that a reader can tell those apart from jumps to another branch.
 */

#define SUCCESS_POS 1e-4   /* m */
#define SUCCESS_ROT 1e-3   /* rad */
#define FLIP_STEP   0.5    /* rad or m between consecutive warm frames */

/* Whether the step from @prev to @q is a flip (some variable moved more than FLIP_STEP). */
static gboolean
is_flip (const double *prev,
         const double *q,
         guint         n_dof)
{
  for (guint d = 0; d < n_dof; d++)
    if (fabs (q[d] - prev[d]) > FLIP_STEP)
      return TRUE;
  return FALSE;
}

/* Whether a flip from @prev to @q is whole turns of revolute joints and nothing else: with
 * each revolute variable's step taken modulo 2π it would not be a flip. The arm then ends in
 * the pose it left, but its motors still turn a full circle in one frame. A joint with a range
 * over 2π (a UR5's ±2π) must do that where its value, started on the other turn than the
 * motion needs, meets a limit: no answer within the limits avoids it. */
static gboolean
is_turn_flip (const double   *prev,
              const double   *q,
              const gboolean *revolute,
              guint           n_dof)
{
  for (guint d = 0; d < n_dof; d++)
    {
      double step = q[d] - prev[d];

      if (revolute[d])
        step -= 2.0 * G_PI * round (step / (2.0 * G_PI));
      if (fabs (step) > FLIP_STEP)
        return FALSE;
    }
  return TRUE;
}

/* Which of @skel's variables are revolute joints' angles. */
static gboolean *
revolute_dofs (const KmSkeleton *skel)
{
  gboolean *revolute = g_new0 (gboolean, MAX (km_skeleton_get_n_dof (skel), 1));

  for (guint j = 0; j < km_skeleton_get_n_joints (skel); j++)
    {
      const KmJoint *joint = km_skeleton_get_joint (skel, j);

      if (joint->type == KM_JOINT_REVOLUTE)
        revolute[joint->dof_index] = TRUE;
    }
  return revolute;
}

static int
compare_double (gconstpointer a,
                gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

/* Loads @path through the loader registry (its type from its content, as every command
 * does) and checks it is of @kind; NULL with @error otherwise: "FILE:1:1: expected …", as
 * `solve` says it, told from the content before the load where it can be
 * (km_cli_check_kind(): a project given for targets is not loaded in full). */
static gpointer
load_kind (const char  *path,
           KmFileKind   kind,
           GError     **error)
{
  const KmFormat *format = NULL;
  gpointer result;

  if (!km_cli_check_kind (path, kind, error))
    return NULL;
  result = km_format_load_model_file_full (path, NULL, km_cli_load_options (), &format, NULL,
                                           error);
  if (result == NULL)
    return NULL;
  if (format->kind != kind)
    {
      km_cli_set_kind_error (path, kind, format, error);
      format->free_result (result);
      return NULL;
    }
  return result;
}

/* Linear interpolation between order statistics of the sorted @v. */
static double
quantile (const double *v,
          guint         n,
          double        p)
{
  double pos = p * (n - 1);
  guint lo = (guint) floor (pos);

  if (n == 0)
    return 0.0;
  if (lo + 1 >= n)
    return v[n - 1];
  return v[lo] + (pos - lo) * (v[lo + 1] - v[lo]);
}

static double
now_us (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

/* Prints @key and @value in @format, in C form whatever the locale (a decimal point). */
static void
print_number (const char *key,
              const char *format,
              double      value)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];

  printf ("%s%s", key, g_ascii_formatd (buffer, sizeof buffer, format, value));
}

int
km_cli_bench_ik (int    argc,
                 char **argv)
{
  g_autofree char *mode = NULL;
  g_autofree char *output = NULL;
  int limit = G_MININT;   /* not given: every frame */
  GOptionEntry entries[] = {
    { "mode", 0, 0, G_OPTION_ARG_STRING, &mode,
      N_("cold (mid-range seed), warm (the bench protocol: the previous answer only) or "
         "trajectory (the product's trajectory solve, which also extrapolates)"), "MODE" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, N_("Also write the timed solutions as animation.json"), "ANIMATION" },
    { "limit", 0, 0, G_OPTION_ARG_INT, &limit, N_("Solve only the first N frames"), "N" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (_("CHAIN TARGETS"));
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = NULL;
  g_autoptr(KmTargetTrack) track = NULL;
  g_autoptr(KmIkProblem) problem = NULL;
  g_autoptr(KmAnimation) animation = NULL;
  g_autoptr(KmBodyHandlerSet) handlers = NULL;
  g_autoptr(KmBodyHandlerIkHook) ik_hook = NULL;
  g_autofree char *chain = NULL;
  g_autofree char *shown_chain = NULL;
  g_autofree char *shown_targets = NULL;
  g_autofree char *shown_name = NULL;
  g_autofree char *field_targets = NULL;
  g_autofree double *times = NULL;
  g_autofree double *mid = NULL;
  g_autofree double *prev = NULL;
  g_autofree gboolean *revolute = NULL;
  g_autofree KmTransform *world = NULL;
  g_autofree KmTransform *targets = NULL;
  g_autofree KmIkSolution *answers = NULL;
  const KmTargetKeyframe *keys;
  KmIkSolution sol = { 0 };
  gboolean warm, trajectory;
  guint n, n_keys, n_ok = 0, n_ok_jl = 0, flips = 0, turn_flips = 0, fail_runs = 0;
  guint run = 0, longest = 0;
  double iterations = 0.0, total = 0.0;
  int effector;
  int ret;

  g_option_context_set_summary (context, _("Benchmark the IK solver on a chain and a target file "
                                           "(../shared/bench/README.md)."));
  g_option_context_set_description (context,
    _("cold and warm follow the bench protocol: one solve per frame, from the mid-range seed "
      "(cold) or from the solver's own answer to the previous frame and nothing else (warm).\n"
      "trajectory runs the product's trajectory solve (as kinema-cli solve does) over all "
      "frames, frame 0 from the mid-range seed; it may also use older answers (it "
      "extrapolates the motion from the last two), so it is not the bench's warm protocol. "
      "Its mean_us is that one call's time over the frames; it hands frames over in "
      "bursts, so it has no time per frame: its median_us and p99_us are na.\n"
      "A chain that names body handlers gets them as kinema-cli solve does (from the "
      "trusted folders and --handler-dir): a handler's analytic IK is tried first.\n"));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  km_cli_add_model_options (context);
  if ((ret = km_cli_parse_options (context, &argc, &argv)) >= 0)
    return ret;
  if (argc != 3)
    return km_cli_usage_error (context, _("expected a chain and a target file"));
  if (mode == NULL || (!g_str_equal (mode, "cold") && !g_str_equal (mode, "warm") &&
                       !g_str_equal (mode, "trajectory")))
    return km_cli_usage_error (context, _("--mode must be cold, warm or trajectory"));
  /* A count of frames: 0 or less would time nothing (or, as it once did, everything). */
  if (limit != G_MININT && limit < 1)
    return km_cli_usage_error (context, _("--limit must be a positive number"));
  /* The animation goes neither over the chain or the targets nor over a file of another
   * kind (as `solve` refuses them), checked before the benchmark runs. */
  if (output != NULL)
    {
      const char *inputs[] = { argv[1], argv[2] };
      guint kinds = KM_CLI_KIND_BIT (KM_FILE_KIND_ANIMATION);
      g_autofree char *message = km_cli_check_output_name (output, kinds, NULL,
                                                           KM_FILE_KIND_ANIMATION);

      if (message == NULL)
        message = km_cli_check_output_file (output, kinds, inputs, G_N_ELEMENTS (inputs));
      if (message != NULL)
        return km_cli_usage_error (NULL, message);
    }
  trajectory = g_str_equal (mode, "trajectory");
  /* Both are motions: flips and fail runs are counted. */
  warm = g_str_equal (mode, "warm") || trajectory;

  /* Load warnings (the bench chains' top-level "comment" key) in the CLI's own form. Any
   * model format the loaders know, recognised by its content. */
  km_parse_warnings_push (km_cli_print_warning, NULL);
  skel = load_kind (argv[1], KM_FILE_KIND_MODEL, &error);
  if (skel != NULL)
    track = load_kind (argv[2], KM_FILE_KIND_TARGETS, &error);
  km_parse_warnings_pop ();
  if (skel == NULL || track == NULL)
    {
      fprintf (stderr, "%s\n", error->message);
      return KM_CLI_EXIT_INVALID;
    }

  /* Files as every message and key=value line shows them (one line each). */
  shown_chain = km_parse_shown_file (argv[1]);
  shown_targets = km_parse_shown_file (argv[2]);
  if (!km_cli_check_model_moves (skel, argv[1], NULL))
    return KM_CLI_EXIT_INVALID;
  /* The bench protocol's motions are one target per frame, frames 0 .. N − 1. Keyframes
   * with frames between them (an editor's targets file) are independent targets, timed cold;
   * warm, they would be tracked across the gaps as if consecutive, and an animation (-o)
   * would have the frames between them unsolved. */
  keys = km_target_track_get_keyframes (track, &n_keys);
  for (guint i = 0; i < n_keys && (warm || output != NULL); i++)
    if (keys[i].frame != i)
      {
        g_autofree char *what = i == 0
          ? g_strdup_printf (_("the first target is for frame %u"), keys[i].frame)
          : g_strdup_printf (_("frame %u follows frame %u"), keys[i].frame, keys[i - 1].frame);

        g_autofree char *message =
          g_strdup_printf (_("expected one target per frame, frames 0, 1, 2, … in order, for "
                             "a motion (--mode warm or trajectory) or an animation (-o), but "
                             "%s (keyframed targets are solved with `kinema-cli solve`)"),
                           what);

        /* At that keyframe's frame number in the file, as a loader says it. */
        km_cli_print_keyframe_error (argv[2], keys[i].frame, message);
        return KM_CLI_EXIT_INVALID;
      }

  /* The effector the targets name, looked up and said as `solve` does: at its value in the
   * targets file, FILE:LINE:COLUMN. */
  if (km_target_track_get_effector (track) != NULL)
    {
      effector = km_cli_find_track_effector (skel, track, argv[2], argv[1], &error);
      if (effector < 0)
        {
          if (error->domain == KM_PARSE_ERROR)
            fprintf (stderr, "%s\n", error->message);
          else
            fprintf (stderr, "%s: %s\n", shown_targets, error->message);
          return KM_CLI_EXIT_INVALID;
        }
    }
  else
    {
      effector = km_skeleton_get_default_effector (skel);
      if (effector < 0)
        {
          g_autofree char *location = km_cli_model_location (argv[1], NULL);

          /* About the whole model: at FILE:1:1. The prefix is never translated. */
          fprintf (stderr, "%s: %s\n", location, _("the model has no end effector"));
          return KM_CLI_EXIT_INVALID;
        }
    }

  /* The chain's body handlers, as `solve` attaches them (relative paths from its folder). */
  {
    g_autofree char *model_dir = g_path_get_dirname (argv[1]);

    handlers = km_body_handler_loader_attach (km_body_handler_loader_get_default (), skel,
                                              NULL, model_dir);
    km_cli_print_handler_reports (handlers, shown_chain);
    ik_hook = km_body_handler_ik_hook_new (handlers, KM_BODY_HANDLER_CONFIGURATION_NEAREST);
  }

  n = limit != G_MININT ? MIN ((guint) limit, n_keys) : n_keys;
  problem = km_ik_problem_new (skel, effector);
  km_body_handler_ik_hook_install (ik_hook, problem);
  times = g_new0 (double, MAX (n, 1));
  mid = g_new (double, MAX (problem->n_dof, 1));
  prev = g_new0 (double, MAX (problem->n_dof, 1));
  revolute = revolute_dofs (skel);
  world = g_new (KmTransform, km_skeleton_get_n_joints (skel));
  km_skeleton_get_mid_range (skel, mid);
  /* Warm frames after the first are a motion: the solver keeps to the previous answer's
   * branch, as km_ik_solve_trajectory() does (frame 0 starts from the mid-range seed). */
  km_ik_solution_init (&sol, problem->n_dof);
  if (output != NULL && n > 0)
    animation = km_animation_new (skel, keys[n - 1].frame + 1);

  /* A model whose forward kinematics overflows at the seed is refused, by the solver and
   * here before anything is timed, said of the model at FILE:1:1 as `solve` says it
   * (km_cli_seed_pose_is_finite()): no benchmark line of failures for it. */
  memcpy (problem->seed, mid, problem->n_dof * sizeof (double));
  if (!trajectory && n > 0 && !km_cli_seed_pose_is_finite (problem))
    {
      g_autofree char *location = km_cli_model_location (argv[1], NULL);

      km_transform_from_pos_quat (keys[0].position, keys[0].orientation, &problem->target);
      if (!km_ik_solve (problem, &sol, NULL, &error))
        {
          fprintf (stderr, "%s: %s\n", location, error->message);
          km_ik_solution_clear (&sol);
          return KM_CLI_EXIT_INVALID;
        }
      g_clear_error (&error);
    }

  if (trajectory && n > 0)
    {
      double t0;

      /* One call over all frames, timed as a whole (see the top comment). */
      targets = g_new (KmTransform, n);
      answers = g_new0 (KmIkSolution, n);
      for (guint i = 0; i < n; i++)
        km_transform_from_pos_quat (keys[i].position, keys[i].orientation, &targets[i]);
      memcpy (problem->seed, mid, problem->n_dof * sizeof (double));
      problem->continuous = FALSE;
      t0 = now_us ();
      if (!km_ik_solve_trajectory (problem, targets, n, answers, NULL, NULL, NULL, &error))
        {
          if (!km_cli_seed_pose_is_finite (problem))
            {
              g_autofree char *location = km_cli_model_location (argv[1], NULL);

              /* The model, refused as `solve` refuses it. */
              fprintf (stderr, "%s: %s\n", location, error->message);
            }
          else
            fprintf (stderr, "kinema-cli: %s: %s\n", shown_targets, error->message);
          for (guint i = 0; i < n; i++)
            km_ik_solution_clear (&answers[i]);
          km_ik_solution_clear (&sol);
          return KM_CLI_EXIT_INVALID;
        }
      total = now_us () - t0;
    }

  for (guint i = 0; i < n; i++)
    {
      KmTransform target;
      double t0, pe, re;
      gboolean ok;

      km_transform_from_pos_quat (keys[i].position, keys[i].orientation, &target);
      if (trajectory)
        {
          /* Already solved and timed: judge the answer the same way. */
          km_ik_solution_copy_into (&answers[i], &sol);
          km_ik_solution_clear (&answers[i]);
        }
      else
        {
          problem->target = target;
          memcpy (problem->seed, warm && i > 0 ? sol.q : mid, problem->n_dof * sizeof (double));
          problem->continuous = warm && i > 0;

          t0 = now_us ();
          km_ik_solve (problem, &sol, NULL, NULL);
          times[i] = now_us () - t0;
        }

      km_skeleton_forward_kinematics (skel, sol.q, NULL, world);
      pe = km_vec3_length (km_vec3_sub (world[effector].pos, target.pos));
      re = km_mat3_rotation_angle (&world[effector].rot, &target.rot);
      ok = pe < SUCCESS_POS && re < SUCCESS_ROT;
      n_ok += ok;
      n_ok_jl += ok && km_skeleton_within_limits (skel, sol.q, 1e-9);
      iterations += sol.iterations;
      if (!trajectory)
        total += times[i];

      if (warm)
        {
          if (i > 0 && is_flip (prev, sol.q, problem->n_dof))
            {
              flips++;
              turn_flips += is_turn_flip (prev, sol.q, revolute, problem->n_dof);
            }
          if (!ok)
            {
              fail_runs += run == 0;
              run++;
              longest = MAX (longest, run);
            }
          else
            run = 0;
          memcpy (prev, sol.q, problem->n_dof * sizeof (double));
        }
      if (animation != NULL)
        {
          km_animation_set_frame (animation, keys[i].frame, sol.q);
          km_animation_set_residual (animation, keys[i].frame, pe, re);
        }
    }

  /* The file's name without its extension: "ur5" for ur5.json or ur5.urdf. */
  chain = g_path_get_basename (argv[1]);
  if (strrchr (chain, '.') != NULL && strrchr (chain, '.') != chain)
    *strrchr (chain, '.') = '\0';
  qsort (times, n, sizeof (double), compare_double);
  /* Both names one field each, as solve's targets= (km_format_append_field(): one line,
   * no space). Numbers in C form whatever the locale (g_ascii_formatd(), as `solve` writes
   * its line): key=value lines are never localised. */
  shown_name = km_format_dup_field (chain);
  field_targets = km_format_dup_field (argv[2]);
  printf ("solver=kinema chain=%s dof=%u n=%u mode=%s", shown_name,
          km_ik_problem_get_moved_dofs (problem, NULL), n, mode);
  print_number (" success=", "%.4f", n ? (double) n_ok / n : 0.0);
  print_number (" success_jl=", "%.4f", n ? (double) n_ok_jl / n : 0.0);
  /* Trajectory mode has no time per frame (see the top comment). */
  if (trajectory)
    printf (" median_us=na");
  else
    print_number (" median_us=", "%.2f", quantile (times, n, 0.5));
  print_number (" mean_us=", "%.2f", n ? total / n : 0.0);
  if (trajectory)
    printf (" p99_us=na");
  else
    print_number (" p99_us=", "%.2f", quantile (times, n, 0.99));
  print_number (" mean_iters=", "%.1f", n ? iterations / n : 0.0);
  if (warm)
    printf (" flips=%u turn_flips=%u fail_runs=%u longest_fail_run=%u", flips, turn_flips,
            fail_runs, longest);
  printf (" targets=%s\n", field_targets);
  km_ik_solution_clear (&sol);

  if (animation != NULL && !km_animation_json_save (animation, output, &error))
    {
      km_cli_print_write_error (output, error);
      return KM_CLI_EXIT_INVALID;
    }
  return KM_CLI_EXIT_OK;
}
