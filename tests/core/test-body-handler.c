/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib.h>
#include <glib/gstdio.h>

#include "km-animation.h"
#include "km-body-handler.h"
#include "km-body-item.h"
#include "km-cnoid.h"
#include "km-format.h"
#include "km-ik.h"
#include "km-ik-job.h"
#include "km-targets-json.h"
#include "km-project.h"

/* KM_TEST_HANDLER_DIR (src/handlers in the build tree) and KM_TEST_MODULE_DIR (the
 * tests' own modules) come from tests/meson.build. */

/* km_cnoid_load_full does not take the bytes: the caller keeps and frees them. */
static KmProject *
load_text (const char  *path,
           const char  *text,
           GError     **error)
{
  g_autoptr(GBytes) bytes = g_bytes_new (text, strlen (text));

  return km_cnoid_load_full (path, bytes, NULL, error);
}

static KmSkeleton *
load_model (const char *name)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", name, NULL);
  const KmFormat *format = NULL;
  gpointer result = km_format_load_file (path, NULL, &format, &error);

  g_assert_no_error (error);
  g_assert_nonnull (result);
  g_assert_cmpint (format->kind, ==, KM_FILE_KIND_MODEL);
  return result;
}

static KmSkeleton *
tiny_skeleton (const char *handler)
{
  g_autoptr(KmSkeletonBuilder) b = km_skeleton_builder_new ();
  g_autoptr(GError) error = NULL;
  guint j;
  KmSkeleton *skel;

  km_skeleton_builder_set_root_name (b, "root");
  km_skeleton_builder_add_joint (b, "root", KM_JOINT_FIXED, NULL);
  j = km_skeleton_builder_add_joint (b, "hinge", KM_JOINT_REVOLUTE, "root");
  km_skeleton_builder_set_axis (b, j, km_vec3 (0, 0, 1));
  km_skeleton_builder_add_body_handler (b, handler);
  skel = km_skeleton_builder_build (b, NULL, &error);
  g_assert_no_error (error);
  return skel;
}

static const KmBodyHandlerReport *
attach_one (KmBodyHandlerLoader  *loader,
            const char           *handler,
            KmBodyHandlerSet    **set_out)
{
  g_autoptr(KmSkeleton) skel = tiny_skeleton (handler);
  KmBodyHandlerSet *set = km_body_handler_loader_attach (loader, skel, NULL, NULL);

  g_assert_cmpuint (km_body_handler_set_get_n_reports (set), ==, 1);
  *set_out = set;
  return km_body_handler_set_get_report (set, 0);
}

static void
test_abi_mismatch (void)
{
  g_autoptr(KmBodyHandlerLoader) loader = km_body_handler_loader_new ();
  g_autoptr(KmBodyHandlerSet) set = NULL;
  const KmBodyHandlerReport *r = attach_one (loader, "MismatchHandler", &set);
  g_autofree char *path = g_build_filename (KM_TEST_MODULE_DIR, "MismatchHandler.so", NULL);

  g_assert_cmpint (r->status, ==, KM_BODY_HANDLER_FAILED);
  g_assert_cmpstr (r->path, ==, path);
  g_assert_nonnull (strstr (r->message, "failed: ABI mismatch"));
  g_assert_nonnull (strstr (r->message, "built for body-handler ABI version 999, this "
                                        "Kinema provides version 1"));
  g_assert_nonnull (strstr (r->message, "numeric IK"));
  g_assert_cmpuint (km_body_handler_set_get_n_attached (set), ==, 0);
  g_assert_false (km_body_handler_set_is_attached (set, "MismatchHandler"));
}

static void
test_untrusted_refused (void)
{
  g_autoptr(KmBodyHandlerLoader) loader = km_body_handler_loader_new ();
  g_autofree char *abs_path = g_build_filename (KM_TEST_HANDLER_DIR,
                                                "ClosedLinkSampleHandler", NULL);
  const char *refused[] = { abs_path, "../handlers/ClosedLinkSampleHandler",
                            "sub/ClosedLinkSampleHandler", "bad name", ".hidden", "" };

  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      g_autoptr(KmBodyHandlerSet) set = NULL;
      const KmBodyHandlerReport *r = attach_one (loader, refused[i], &set);

      g_assert_cmpint (r->status, ==, KM_BODY_HANDLER_REFUSED);
      g_assert_null (r->path);
      g_assert_nonnull (strstr (r->message, "refused"));
      g_assert_nonnull (strstr (r->message, refused[i]));
    }

  /* Not on the search path at all. */
  {
    g_autoptr(KmBodyHandlerSet) set = NULL;
    const KmBodyHandlerReport *r = attach_one (loader, "NoSuchHandler", &set);

    g_assert_cmpint (r->status, ==, KM_BODY_HANDLER_NOT_FOUND);
    g_assert_nonnull (strstr (r->message, "not found: no NoSuchHandler.so in the trusted"));
    g_assert_nonnull (strstr (r->message, KM_TEST_HANDLER_DIR));
  }

  /* The user allowed that one file: it loads (and fails initialize on this model). */
  {
    g_autoptr(KmBodyHandlerSet) set = NULL;
    g_autofree char *file = g_strconcat (abs_path, ".so", NULL);
    const KmBodyHandlerReport *r;

    km_body_handler_loader_allow_file (loader, file);
    r = attach_one (loader, abs_path, &set);
    g_assert_cmpint (r->status, ==, KM_BODY_HANDLER_FAILED);
    g_assert_cmpstr (r->path, ==, file);
    g_assert_nonnull (strstr (r->message, "failed to initialize on root: J0 is not found."));
  }

  /* A relative path, with paths allowed, resolves against the model's directory. */
  {
    g_autoptr(KmSkeleton) skel = tiny_skeleton ("handlers/ClosedLinkSampleHandler");
    g_autoptr(KmBodyHandlerSet) set = NULL;
    g_autofree char *parent = g_path_get_dirname (KM_TEST_HANDLER_DIR);

    km_body_handler_loader_set_allow_paths (loader, TRUE);
    set = km_body_handler_loader_attach (loader, skel, NULL, parent);
    g_assert_cmpint (km_body_handler_set_get_report (set, 0)->status, ==,
                     KM_BODY_HANDLER_FAILED);
  }
}

/* A model opened by a relative path has a relative directory (the CLI's
 * "kinema-cli info dir/model.json"): it means the current directory, and a handler path
 * in the model is refused or resolved, never a crash. */
static void
test_relative_model_dir (void)
{
  g_autoptr(KmBodyHandlerLoader) loader = km_body_handler_loader_new ();
  g_autoptr(KmSkeleton) skel = tiny_skeleton ("handlers/ClosedLinkSampleHandler");
  g_autofree char *saved = g_get_current_dir ();
  g_autofree char *parent = g_path_get_dirname (KM_TEST_HANDLER_DIR);
  g_autofree char *grandparent = g_path_get_dirname (parent);
  g_autofree char *relative = g_path_get_basename (parent);
  g_autofree char *expected = g_build_filename (KM_TEST_HANDLER_DIR,
                                                "ClosedLinkSampleHandler.so", NULL);

  g_assert_cmpint (g_chdir (grandparent), ==, 0);

  /* Paths not allowed: refused, with the reason. */
  {
    g_autoptr(KmBodyHandlerSet) set = km_body_handler_loader_attach (loader, skel, NULL,
                                                                     relative);
    const KmBodyHandlerReport *r = km_body_handler_set_get_report (set, 0);

    g_assert_cmpint (r->status, ==, KM_BODY_HANDLER_REFUSED);
    g_assert_nonnull (strstr (r->message, "may name a handler only by its name"));
  }
  /* "." (what g_path_get_dirname gives for a bare file name) also works. */
  {
    g_autoptr(KmBodyHandlerSet) set = km_body_handler_loader_attach (loader, skel, NULL, ".");

    g_assert_cmpint (km_body_handler_set_get_report (set, 0)->status, ==,
                     KM_BODY_HANDLER_REFUSED);
  }
  /* Paths allowed: the relative directory resolves against the current one. */
  {
    g_autoptr(KmBodyHandlerSet) set = NULL;
    const KmBodyHandlerReport *r;

    km_body_handler_loader_set_allow_paths (loader, TRUE);
    set = km_body_handler_loader_attach (loader, skel, NULL, relative);
    r = km_body_handler_set_get_report (set, 0);
    g_assert_cmpint (r->status, ==, KM_BODY_HANDLER_FAILED);
    g_assert_cmpstr (r->path, ==, expected);
  }

  g_assert_cmpint (g_chdir (saved), ==, 0);
}

/* FK of @end under @q, from the skeleton itself. */
static void
fk_joint (KmSkeleton   *skel,
          const double *q,
          int           joint,
          KmTransform  *out)
{
  g_autofree KmTransform *world = g_new (KmTransform, km_skeleton_get_n_joints (skel));

  km_skeleton_forward_kinematics (skel, q, NULL, world);
  *out = world[joint];
}

static double
pose_diff (const KmTransform *a,
           const KmTransform *b)
{
  return MAX (km_vec3_length (km_vec3_sub (a->pos, b->pos)),
              km_mat3_rotation_angle (&a->rot, &b->rot));
}

static void
test_ur5_configurations (void)
{
  g_autoptr(KmSkeleton) skel = load_model ("ur5-analytic.json");
  g_autoptr(KmBodyHandlerSet) set = km_body_handler_loader_attach (
    km_body_handler_loader_get_default (), skel, NULL, NULL);
  int tool = km_skeleton_find_joint (skel, "tool0");
  guint n_dof = km_skeleton_get_n_dof (skel);
  g_autoptr(GRand) rand = g_rand_new_with_seed (7);
  guint solved = 0, total = 0;
  guint histogram[9] = { 0 };
  g_autoptr(GString) desc = g_string_new (NULL);

  g_assert_true (km_body_handler_set_is_attached (set, "UR5AnalyticIkHandler"));
  km_body_handler_set_describe (set, desc);
  g_assert_true (g_str_has_prefix (desc->str, "handler UR5AnalyticIkHandler: attached "
                                              "(joint-path) from "));
  g_assert_true (km_body_handler_set_covers_path (set, -1, tool));
  g_assert_true (km_body_handler_set_covers_path (set, 0, tool));
  g_assert_false (km_body_handler_set_covers_path (set, 2, tool));
  g_assert_false (km_body_handler_set_covers_path (set, -1, tool - 1));
  g_assert_cmpuint (km_body_handler_set_get_n_configurations (set, -1, tool), ==, 8);
  g_assert_cmpstr (km_body_handler_set_get_configuration_name (set, -1, tool, 5), ==,
                   "shoulder right, wrist no flip, elbow down");
  g_assert_null (km_body_handler_set_get_configuration_name (set, -1, tool, 8));

  for (guint t = 0; t < 200; t++)
    {
      double q[6], seed[6];
      KmTransform target;
      int own;
      guint here = 0;
      gboolean found_own = FALSE;

      for (guint d = 0; d < n_dof; d++)
        q[d] = g_rand_double_range (rand, -G_PI, G_PI);
      fk_joint (skel, q, tool, &target);
      own = km_body_handler_set_get_configuration (set, -1, tool, q);
      g_assert_cmpint (own, >=, 0);
      g_assert_cmpint (own, <, 8);

      for (int c = 0; c < 8; c++)
        {
          KmTransform reached;
          int got;

          memset (seed, 0, sizeof seed);
          got = km_body_handler_set_solve_path (set, -1, tool, NULL, &target, c, seed);
          total++;
          if (got < 0)
            continue;
          solved++;
          here++;
          g_assert_cmpint (got, ==, c);
          fk_joint (skel, seed, tool, &reached);
          g_assert_cmpfloat (pose_diff (&reached, &target), <, 1e-9);
          g_assert_true (km_skeleton_within_limits (skel, seed, 0.0));
          g_assert_cmpint (km_body_handler_set_get_configuration (set, -1, tool, seed), ==, c);
          if (c == own)
            {
              found_own = TRUE;
              for (guint d = 0; d < n_dof; d++)
                g_assert_cmpfloat (fabs (remainder (seed[d] - q[d], 2 * G_PI)), <, 1e-7);
            }
        }
      g_assert_true (found_own);
      /* Configurations vanish in elbow pairs (the other shoulder cannot reach). */
      g_assert_cmpuint (here % 2, ==, 0);
      histogram[here]++;
    }
  g_test_message ("targets with 2/4/6/8 configurations: %u/%u/%u/%u", histogram[2],
                  histogram[4], histogram[6], histogram[8]);
  g_test_message ("%u of %u configurations solved", solved, total);
  /* Most random poses of a UR5 have all 8 configurations (here 159 of 200). */
  g_assert_cmpuint (solved, >=, total * 85 / 100);
  g_assert_cmpuint (histogram[8], >=, 150);

  /* Unreachable: no configuration, and q untouched. */
  {
    KmTransform far;
    double q[6] = { 0.1, 0.2, 0.3, 0.4, 0.5, 0.6 };

    km_transform_identity (&far);
    far.pos = km_vec3 (3.0, 0.0, 0.0);
    g_assert_cmpint (km_body_handler_set_solve_path (set, -1, tool, NULL, &far,
                                                     KM_BODY_HANDLER_CONFIGURATION_NEAREST,
                                                     q), ==, -1);
    g_assert_cmpfloat (q[5], ==, 0.6);
  }
}

static void
test_ur5_switching (void)
{
  g_autoptr(KmSkeleton) skel = load_model ("ur5-analytic.json");
  g_autoptr(KmBodyHandlerSet) set = km_body_handler_loader_attach (
    km_body_handler_loader_get_default (), skel, NULL, NULL);
  int tool = km_skeleton_find_joint (skel, "tool0");
  const double start[6] = { 0.4, -1.2, 1.5, -1.8, -1.5, 0.3 };
  double q[6], prev[6];
  KmTransform target, reached;
  int own, other;

  fk_joint (skel, start, tool, &target);
  own = km_body_handler_set_get_configuration (set, -1, tool, start);
  g_assert_cmpint (own, >=, 0);

  /* Nearest to the seed: the seed itself. */
  memcpy (q, start, sizeof q);
  g_assert_cmpint (km_body_handler_set_solve_path (set, -1, tool, NULL, &target,
                                                   KM_BODY_HANDLER_CONFIGURATION_NEAREST, q),
                   ==, own);
  for (guint d = 0; d < 6; d++)
    g_assert_cmpfloat_with_epsilon (q[d], start[d], 1e-9);

  /* Switch the elbow: same pose, another configuration, and nearest then keeps it. */
  other = own ^ 1;
  g_assert_cmpint (km_body_handler_set_solve_path (set, -1, tool, NULL, &target, other, q),
                   ==, other);
  fk_joint (skel, q, tool, &reached);
  g_assert_cmpfloat (pose_diff (&reached, &target), <, 1e-9);
  g_assert_cmpfloat (fabs (q[2] - start[2]), >, 0.5);
  g_assert_cmpint (km_body_handler_set_get_configuration (set, -1, tool, q), ==, other);

  /* The same in a world where the arm stands elsewhere, from base_link's frame. */
  {
    KmTransform root_pose, world_target;
    double q2[6] = { 0 };

    km_transform_from_pos_quat (km_vec3 (1.0, -2.0, 0.5),
                                km_quat_from_axis_angle (km_vec3 (0.6, 0.0, 0.8), 0.7),
                                &root_pose);
    km_transform_mul (&root_pose, &target, &world_target);
    g_assert_cmpint (km_body_handler_set_solve_path (set, 0, tool, &root_pose, &world_target,
                                                     other, q2), ==, other);
    for (guint d = 0; d < 6; d++)
      g_assert_cmpfloat_with_epsilon (remainder (q2[d] - q[d], 2 * G_PI), 0.0, 1e-9);
  }

  /* A trajectory from there, nearest each frame: continuous, same configuration. */
  memcpy (prev, q, sizeof prev);
  for (guint f = 1; f <= 60; f++)
    {
      KmTransform step = target;

      step.pos = km_vec3_add (target.pos, km_vec3 (0.003 * f, -0.002 * f, 0.001 * f));
      g_assert_cmpint (km_body_handler_set_solve_path (set, -1, tool, NULL, &step,
                                                       KM_BODY_HANDLER_CONFIGURATION_NEAREST,
                                                       q), ==, other);
      for (guint d = 0; d < 6; d++)
        g_assert_cmpfloat (fabs (q[d] - prev[d]), <, 0.1);
      memcpy (prev, q, sizeof prev);
    }

  /* Through the IK hook: km_ik_solve uses the handler's answer for the chosen
   * configuration, then verifies it. */
  {
    g_autoptr(KmIkProblem) p = km_ik_problem_new (skel, tool);
    g_autoptr(KmBodyHandlerIkHook) hook = km_body_handler_ik_hook_new (set, other);
    g_autoptr(GError) error = NULL;
    KmIkSolution s;
    double expect[6] = { 0 };

    km_ik_problem_set_target (p, target.pos, &target.rot);
    g_assert_true (km_body_handler_ik_hook_install (hook, p));
    km_ik_solution_init (&s, p->n_dof);
    g_assert_true (km_ik_solve (p, &s, NULL, &error));
    g_assert_no_error (error);
    g_assert_true (s.converged);
    g_assert_cmpint (km_body_handler_set_solve_path (set, -1, tool, NULL, &target, other,
                                                     expect), ==, other);
    for (guint d = 0; d < 6; d++)
      g_assert_cmpfloat_with_epsilon (s.q[d], expect[d], 1e-9);
    km_ik_solution_clear (&s);

    /* Unreachable: the handler has no answer and the numeric solver takes over. */
    km_ik_problem_set_target (p, km_vec3 (3.0, 0.0, 0.0), NULL);
    km_ik_solution_init (&s, p->n_dof);
    g_assert_true (km_ik_solve (p, &s, NULL, &error));
    g_assert_no_error (error);
    g_assert_false (s.converged);
    g_assert_cmpuint (s.iterations, >, 0);
    km_ik_solution_clear (&s);
  }
}

/* A solve from a seed adds no whole turn that the seed did not have. An editor review
 * solved review/ur5-targets.json (three keyframes, the analytic IK attached, NEAREST) from
 * the all-zero pose, the arm stretched out, as the editor seeds it, and got shoulder_lift
 * 358°, elbow 269°, wrist_1 −267° at frame 0: the same pose as −1.9°, −91.4°, 93.3°, whole
 * turns off the seed, which the motion's branch search had started from (it turns joints
 * of more than a turn of range). The handler itself picks, of its 8 configurations with each
 * joint on the turn nearest the seed within the limits, the one nearest the seed. */
static void
test_ur5_nearest_seed (void)
{
  g_autoptr(KmSkeleton) skel = load_model ("ur5-analytic.json");
  g_autoptr(KmBodyHandlerSet) set = km_body_handler_loader_attach (
    km_body_handler_loader_get_default (), skel, NULL, NULL);
  g_autofree char *targets_path = g_test_build_filename (G_TEST_DIST, "data", "review",
                                                         "ur5-targets.json", NULL);
  int tool = km_skeleton_find_joint (skel, "tool0");
  g_autoptr(KmIkProblem) p = km_ik_problem_new (skel, tool);
  g_autoptr(KmBodyHandlerIkHook) hook =
    km_body_handler_ik_hook_new (set, KM_BODY_HANDLER_CONFIGURATION_NEAREST);
  g_autoptr(KmTargetTrack) track = NULL;
  g_autoptr(KmAnimation) animation = NULL;
  g_autoptr(GRand) rand = g_rand_new_with_seed (23);
  g_autoptr(GError) error = NULL;
  KmIkSolution s = { 0 };
  const double *q0;
  double lo[6], hi[6];
  KmVec3 pos;
  KmQuat rot;

  g_assert_cmpuint (p->n_dof, ==, 6);
  km_skeleton_get_dof_limits (skel, lo, hi);
  track = km_targets_json_load_file (targets_path, &error);
  g_assert_no_error (error);
  g_assert_true (km_body_handler_ik_hook_install (hook, p));
  memset (p->seed, 0, p->n_dof * sizeof (double));

  /* Frame 0 alone. */
  g_assert_true (km_target_track_sample (track, 0, &pos, &rot));
  km_transform_from_pos_quat (pos, rot, &p->target);
  km_ik_solution_init (&s, p->n_dof);
  g_assert_true (km_ik_solve (p, &s, NULL, NULL));
  g_assert_true (s.converged);
  for (guint d = 0; d < 6; d++)
    g_assert_cmpfloat (fabs (s.q[d]), <=, G_PI + 1e-6);

  /* The motion, as the editor and `kinema-cli solve` solve it. */
  animation = km_ik_solve_track (p, track, 0, km_target_track_get_last_frame (track), NULL,
                                 NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  q0 = km_animation_get_frame (animation, 0);
  g_test_message ("frame 0: %g %g %g %g %g %g", q0[0], q0[1], q0[2], q0[3], q0[4], q0[5]);
  for (guint d = 0; d < 6; d++)
    g_assert_cmpfloat (fabs (q0[d]), <=, G_PI + 1e-6);
  for (guint f = 0; f <= km_target_track_get_last_frame (track); f++)
    g_assert_true (km_skeleton_within_limits (skel, km_animation_get_frame (animation, f), 0.0));

  /* The handler: random seeds and targets, no configuration nearer the seed. */
  for (guint t = 0; t < 200; t++)
    {
      double seed[6], pose[6], q[6], best = G_MAXDOUBLE, got = 0.0;
      KmTransform target;

      for (guint d = 0; d < 6; d++)
        {
          pose[d] = g_rand_double_range (rand, -G_PI, G_PI);
          seed[d] = g_rand_double_range (rand, -2 * G_PI, 2 * G_PI);
        }
      fk_joint (skel, pose, tool, &target);
      memcpy (q, seed, sizeof q);
      g_assert_cmpint (km_body_handler_set_solve_path (set, -1, tool, NULL, &target,
                                                       KM_BODY_HANDLER_CONFIGURATION_NEAREST,
                                                       q), >=, 0);
      for (guint d = 0; d < 6; d++)
        {
          got += (q[d] - seed[d]) * (q[d] - seed[d]);
          /* Each joint on the turn nearest its seed value within the limits. */
          for (int turn = -1; turn <= 1; turn += 2)
            {
              double x = q[d] + turn * 2 * G_PI;

              if (x >= lo[d] && x <= hi[d])
                g_assert_cmpfloat (fabs (x - seed[d]), >=, fabs (q[d] - seed[d]) - 1e-9);
            }
        }
      for (int k = 0; k < 8; k++)
        {
          double cand[6], dist = 0.0;

          memcpy (cand, seed, sizeof cand);
          if (km_body_handler_set_solve_path (set, -1, tool, NULL, &target, k, cand) != k)
            continue;
          for (guint d = 0; d < 6; d++)
            dist += (cand[d] - seed[d]) * (cand[d] - seed[d]);
          best = MIN (best, dist);
        }
      g_assert_cmpfloat (got, <=, best + 1e-9);
    }
  km_ik_solution_clear (&s);
}

static void
check_closed_loop (KmSkeleton   *skel,
                   const double *q)
{
  int j1 = km_skeleton_find_joint (skel, "J1");
  int j3 = km_skeleton_find_joint (skel, "J3");
  KmTransform w1, w3;
  KmVec3 p1, p3, axis, d;

  /* The model's extraJoints hinge: J1 [0.2, 0, 0] meets J3 [0, 0.1, 0]. */
  fk_joint (skel, q, j1, &w1);
  fk_joint (skel, q, j3, &w3);
  p1 = km_vec3_add (w1.pos, km_mat3_mul_vec3 (&w1.rot, km_vec3 (0.2, 0, 0)));
  p3 = km_vec3_add (w3.pos, km_mat3_mul_vec3 (&w3.rot, km_vec3 (0, 0.1, 0)));
  /* Both lie on the hinge's axis (z of J1, 0.04 m apart along it). */
  axis = km_mat3_mul_vec3 (&w1.rot, km_vec3 (0, 0, 1));
  d = km_vec3_sub (p1, p3);
  d = km_vec3_sub (d, km_vec3_scale (axis, km_vec3_dot (d, axis)));
  g_assert_cmpfloat (km_vec3_length (d), <, 1e-12);
}

static void
test_linked_joints (void)
{
  g_autoptr(KmSkeleton) skel = load_model ("choreonoid/ClosedLinkSample.body");
  g_autoptr(KmBodyHandlerSet) set = km_body_handler_loader_attach (
    km_body_handler_loader_get_default (), skel, NULL, NULL);
  const char *names[3] = { "J0", "J1", "J3" };
  int dof[3];
  guint n_dof = km_skeleton_get_n_dof (skel);
  g_autofree double *q = g_new0 (double, n_dof);

  g_assert_true (km_body_handler_set_is_attached (set, "ClosedLinkSampleHandler"));
  g_assert_cmpint (km_body_handler_set_get_report (set, 0)->ifaces, ==,
                   KM_BODY_HANDLER_IFACE_LINKED_JOINTS);
  g_assert_true (km_body_handler_set_has_linked_joints (set));
  g_assert_false (km_body_handler_set_covers_path (set, -1, 1));
  for (guint i = 0; i < 3; i++)
    {
      int j = km_skeleton_find_joint (skel, names[i]);

      g_assert_true (km_body_handler_set_is_linked_joint (set, j));
      dof[i] = km_skeleton_get_joint (skel, j)->dof_index;
    }
  g_assert_false (km_body_handler_set_is_linked_joint (set, 0));

  for (guint m = 0; m < 3; m++)
    {
      double v = 0.2 + 0.15 * m;
      double sign[3] = { 1, -1, 1 };

      g_assert_true (km_body_handler_set_apply_linked (set, km_skeleton_find_joint (skel, names[m]),
                                                       v * sign[m], q));
      for (guint i = 0; i < 3; i++)
        g_assert_cmpfloat_with_epsilon (q[dof[i]], v * sign[i], 1e-15);
      check_closed_loop (skel, q);
    }

  /* Re-sync from J0 after the values drifted apart. */
  q[dof[0]] = -0.4;
  q[dof[1]] = 1.0;
  q[dof[2]] = 0.0;
  g_assert_true (km_body_handler_set_apply_linked (set, -1, 0.0, q));
  g_assert_cmpfloat (q[dof[1]], ==, 0.4);
  g_assert_cmpfloat (q[dof[2]], ==, -0.4);
  check_closed_loop (skel, q);
}

static void
test_clone (void)
{
  g_autoptr(KmSkeleton) skel = load_model ("choreonoid/ClosedLinkSample.body");
  KmBodyHandlerSet *set = km_body_handler_loader_attach (
    km_body_handler_loader_get_default (), skel, NULL, NULL);
  g_autoptr(KmBodyHandlerSet) copy = km_body_handler_set_clone (set);
  int j3 = km_skeleton_find_joint (skel, "J3");
  guint n_dof = km_skeleton_get_n_dof (skel);
  g_autofree double *a = g_new0 (double, n_dof);
  g_autofree double *b = g_new0 (double, n_dof);

  g_assert_true (copy != set);
  g_assert_true (km_body_handler_set_get_skeleton (copy) == skel);
  g_assert_cmpuint (km_body_handler_set_get_n_attached (copy), ==, 1);

  /* Each works on its own vectors, and the copy outlives the original. */
  km_body_handler_set_apply_linked (set, j3, 0.5, a);
  km_body_handler_set_unref (set);
  g_assert_true (km_body_handler_set_apply_linked (copy, j3, -0.25, b));
  g_assert_cmpfloat (a[km_skeleton_get_joint (skel, j3)->dof_index], ==, 0.5);
  g_assert_cmpfloat (b[km_skeleton_get_joint (skel, j3)->dof_index], ==, -0.25);
  check_closed_loop (skel, b);
  g_assert_true (km_body_handler_set_is_attached (copy, "ClosedLinkSampleHandler"));
}

typedef struct
{
  KmBodyHandlerSet *linked;   /* this thread's clone */
  KmBodyHandlerSet *ur5;      /* shared: joint paths are read-only */
  KmSkeleton       *closed;
  KmSkeleton       *arm;
  guint             seed;
  gboolean          ok;
} Worker;

static gpointer
worker_run (gpointer data)
{
  Worker *w = data;
  int j3 = km_skeleton_find_joint (w->closed, "J3");
  int j0 = km_skeleton_find_joint (w->closed, "J0");
  int tool = km_skeleton_find_joint (w->arm, "tool0");
  double q[3] = { 0 };

  w->ok = TRUE;
  for (guint i = 0; i < 300; i++)
    {
      double v = 0.001 * (i + w->seed);
      double arm_q[6] = { v, -1.0, 1.2, -0.5, 0.7, v };
      double seed[6] = { 0 };
      KmTransform target, reached;

      km_body_handler_set_apply_linked (w->linked, j3, v, q);
      w->ok &= q[km_skeleton_get_joint (w->closed, j0)->dof_index] == v;
      fk_joint (w->arm, arm_q, tool, &target);
      w->ok &= km_body_handler_set_solve_path (w->ur5, -1, tool, NULL, &target,
                                               KM_BODY_HANDLER_CONFIGURATION_NEAREST,
                                               seed) >= 0;
      fk_joint (w->arm, seed, tool, &reached);
      w->ok &= pose_diff (&reached, &target) < 1e-9;
    }
  return NULL;
}

/* Clones on worker threads and one shared set for joint paths, all at once. */
static void
test_threads (void)
{
  g_autoptr(KmSkeleton) closed = load_model ("choreonoid/ClosedLinkSample.body");
  g_autoptr(KmSkeleton) arm = load_model ("ur5-analytic.json");
  g_autoptr(KmBodyHandlerSet) linked = km_body_handler_loader_attach (
    km_body_handler_loader_get_default (), closed, NULL, NULL);
  g_autoptr(KmBodyHandlerSet) ur5 = km_body_handler_loader_attach (
    km_body_handler_loader_get_default (), arm, NULL, NULL);
  Worker workers[4];
  GThread *threads[4];

  for (guint i = 0; i < G_N_ELEMENTS (workers); i++)
    {
      workers[i] = (Worker) { km_body_handler_set_clone (linked), ur5, closed, arm, i * 7,
                              FALSE };
      threads[i] = g_thread_new ("handler-worker", worker_run, &workers[i]);
    }
  for (guint i = 0; i < G_N_ELEMENTS (workers); i++)
    {
      g_thread_join (threads[i]);
      g_assert_true (workers[i].ok);
      km_body_handler_set_unref (workers[i].linked);
    }
}

static void
test_presentation (void)
{
  g_autoptr(KmSkeleton) skel = load_model ("linear-actuator-arm.json");
  g_autoptr(KmBodyHandlerSet) set = km_body_handler_loader_attach (
    km_body_handler_loader_get_default (), skel, NULL, NULL);
  int boom = km_skeleton_find_joint (skel, "boom");
  KmJointPresentation p;
  double v;

  g_assert_true (km_body_handler_set_is_attached (set, "LinearActuatorSampleHandler"));
  g_assert_true (km_body_handler_set_get_presentation (set, boom, &p));
  g_assert_cmpint (p.kind, ==, KM_BODY_HANDLER_UNIT_LENGTH);
  g_assert_cmpstr (p.unit_label, ==, "mm");
  /* sqrt (0.3² + 0.1² − 2·0.3·0.1·cos (π/2 ∓ 1.2)) in mm */
  g_assert_cmpfloat_with_epsilon (p.shown_min, 1000 * sqrt (0.1 - 0.06 * sin (1.2)), 1e-9);
  g_assert_cmpfloat_with_epsilon (p.shown_max, 1000 * sqrt (0.1 + 0.06 * sin (1.2)), 1e-9);
  g_assert_cmpfloat_with_epsilon (km_body_handler_set_to_shown (set, boom, 0.0),
                                  316.22776601683796, 1e-9);
  for (double a = -1.2; a <= 1.2; a += 0.05)
    {
      double shown = km_body_handler_set_to_shown (set, boom, a);

      g_assert_true (km_body_handler_set_from_shown (set, boom, shown, &v));
      g_assert_cmpfloat_with_epsilon (v, a, 1e-9);
    }
  g_assert_false (km_body_handler_set_from_shown (set, boom, 5000.0, &v));
  g_assert_false (km_body_handler_set_from_shown (set, boom, NAN, &v));

  /* A joint nobody presents: degrees over its limits. */
  {
    g_autoptr(KmSkeleton) ur5 = load_model ("ur5-analytic.json");
    g_autoptr(KmBodyHandlerSet) other = km_body_handler_loader_attach (
      km_body_handler_loader_get_default (), ur5, NULL, NULL);

    g_assert_false (km_body_handler_set_get_presentation (other, 1, &p));
    g_assert_cmpint (p.kind, ==, KM_BODY_HANDLER_UNIT_ANGLE);
    g_assert_cmpstr (p.unit_label, ==, "deg");
    g_assert_cmpfloat_with_epsilon (p.shown_max, 360.0, 1e-9);
    g_assert_cmpfloat_with_epsilon (km_body_handler_set_to_shown (other, 1, G_PI / 2), 90.0,
                                    1e-12);
    g_assert_true (km_body_handler_set_from_shown (other, 1, 45.0, &v));
    g_assert_cmpfloat_with_epsilon (v, G_PI / 4, 1e-12);
  }
}

static KmItem *
find_body (KmItem *item)
{
  if (KM_IS_BODY_ITEM (item))
    return item;
  for (guint i = 0; i < km_item_get_n_children (item); i++)
    {
      KmItem *found = find_body (km_item_get_child (item, i));

      if (found != NULL)
        return found;
    }
  return NULL;
}

static void
test_cnoid_project (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "share",
                                                 "project", "ClosedLinkSample.cnoid", NULL);
  g_autoptr(KmProject) project = km_cnoid_load (path, &error);
  KmItem *body;
  KmBodyHandlerSet *set;
  KmSkeleton *skel;
  g_autofree double *q = NULL;

  g_assert_no_error (error);
  body = find_body (km_project_get_root_item (project));
  g_assert_nonnull (body);
  set = km_body_item_get_body_handlers (KM_BODY_ITEM (body));
  g_assert_nonnull (set);
  g_assert_cmpuint (km_body_handler_set_get_n_reports (set), ==, 1);
  g_assert_cmpint (km_body_handler_set_get_report (set, 0)->status, ==,
                   KM_BODY_HANDLER_ATTACHED);
  g_assert_nonnull (strstr (km_body_handler_set_get_report (set, 0)->message,
                            "Body handler ClosedLinkSampleHandler has been loaded to "
                            "WAIST."));
  skel = km_body_item_get_skeleton (KM_BODY_ITEM (body));
  g_assert_true (km_body_handler_set_get_skeleton (set) == skel);
  q = g_new0 (double, km_skeleton_get_n_dof (skel));
  g_assert_true (km_body_handler_set_apply_linked (set, km_skeleton_find_joint (skel, "J1"),
                                                   0.3, q));
  check_closed_loop (skel, q);
}

/* A project's body item adds handlers the model file does not name, and keeps the key. */
/* A project whose joint values break the body's linked joints opens with them re-synced
 * from the values it lists (J1 = -J0, J3 = J0), as Choreonoid sets a body's state. */
static void
test_cnoid_project_linked (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "share",
                                                 "project", "ClosedLinkSample.cnoid", NULL);
  g_autofree char *text = NULL;
  g_autofree char *broken = NULL;
  g_autoptr(KmProject) project = NULL;
  KmItem *body;
  KmSkeleton *skel;
  const double *q;
  int d0, d1, d3;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "joint_displacements: [ -45, 45, -45 ]"));
  {
    g_auto(GStrv) parts = g_strsplit (text, "joint_displacements: [ -45, 45, -45 ]", 2);

    broken = g_strjoinv ("joint_displacements: [ -30, 0, 0 ]", parts);
  }
  project = load_text (path, broken, &error);
  g_assert_no_error (error);
  body = find_body (km_project_get_root_item (project));
  skel = km_body_item_get_skeleton (KM_BODY_ITEM (body));
  q = km_body_item_get_joint_state (KM_BODY_ITEM (body), NULL);
  d0 = km_skeleton_get_joint (skel, km_skeleton_find_joint (skel, "J0"))->dof_index;
  d1 = km_skeleton_get_joint (skel, km_skeleton_find_joint (skel, "J1"))->dof_index;
  d3 = km_skeleton_get_joint (skel, km_skeleton_find_joint (skel, "J3"))->dof_index;
  g_assert_cmpfloat_with_epsilon (q[d0], -30.0 * G_PI / 180.0, 1e-12);
  g_assert_cmpfloat (q[d1], ==, -q[d0]);
  g_assert_cmpfloat (q[d3], ==, q[d0]);
  check_closed_loop (skel, q);
}

/* The trusted folders change on the main thread (a preference) while a project load walks
 * them on a worker: the loader guards them. Under ASan / TSan the unguarded array's
 * reallocation under a reader was a use-after-free / race. */
static gpointer
add_directories_thread (gpointer data)
{
  KmBodyHandlerLoader *loader = data;

  for (guint i = 0; i < 2000; i++)
    {
      g_autofree char *dir = g_strdup_printf ("/nonexistent/kinema-%u", i);

      km_body_handler_loader_add_directory (loader, dir);
    }
  return NULL;
}

static void
test_loader_threads (void)
{
  g_autoptr(KmBodyHandlerLoader) loader = km_body_handler_loader_new ();
  GThread *thread = g_thread_new ("add-directories", add_directories_thread, loader);
  guint n = 0;

  for (guint i = 0; i < 500; i++)
    {
      g_auto(GStrv) dirs = km_body_handler_loader_get_directories (loader);

      g_assert_cmpuint (g_strv_length (dirs), >=, n);
      n = g_strv_length (dirs);
    }
  g_thread_join (thread);
  {
    g_auto(GStrv) dirs = km_body_handler_loader_get_directories (loader);

    g_assert_cmpstr (dirs[1999], ==, "/nonexistent/kinema-1999");
  }
}

static void
test_cnoid_extra_handlers (void)
{
  static const char text[] =
    "items:\n"
    "  id: 0\n"
    "  name: \"RootItem\"\n"
    "  plugin: Base\n"
    "  class: RootItem\n"
    "  children:\n"
    "    -\n"
    "      id: 1\n"
    "      name: \"UR5\"\n"
    "      plugin: Body\n"
    "      class: BodyItem\n"
    "      data:\n"
    "        file: \"bench-ur5.json\"\n"
    "        format: SKELETON-JSON\n"
    "        extra_body_handlers: [ UR5AnalyticIkHandler, \"/tmp/Evil\" ]\n";
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "extra.cnoid", NULL);
  g_autoptr(KmProject) project =
    load_text (path, text, &error);
  g_autofree char *saved = NULL;
  KmItem *body;
  KmBodyHandlerSet *set;
  KmSkeleton *skel;

  g_assert_no_error (error);
  body = find_body (km_project_get_root_item (project));
  g_assert_nonnull (body);
  set = km_body_item_get_body_handlers (KM_BODY_ITEM (body));
  skel = km_body_item_get_skeleton (KM_BODY_ITEM (body));
  g_assert_true (km_skeleton_get_body_handlers (skel) == NULL ||
                 km_skeleton_get_body_handlers (skel)[0] == NULL);
  g_assert_cmpuint (km_body_handler_set_get_n_reports (set), ==, 2);
  g_assert_true (km_body_handler_set_is_attached (set, "UR5AnalyticIkHandler"));
  g_assert_cmpint (km_body_handler_set_get_report (set, 1)->status, ==,
                   KM_BODY_HANDLER_REFUSED);
  g_assert_true (km_body_handler_set_covers_path (set, -1,
                                                  km_skeleton_find_joint (skel, "tool0")));
  saved = km_cnoid_to_string (project, path, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (saved, "extra_body_handlers: [ UR5AnalyticIkHandler, "));

  /* A key of the wrong kind is an error of that item, not a crash. */
  {
    g_autofree char *bad = g_strdup (text);
    g_autoptr(KmProject) other = NULL;
    g_autoptr(GError) error2 = NULL;
    char *at = strstr (bad, "[ UR5AnalyticIkHandler");

    memcpy (at, "{ a: b }              ", strlen ("{ a: b }              "));
    other = load_text (path, bad, &error2);
    if (other != NULL)
      {
        KmItem *b2 = find_body (km_project_get_root_item (other));

        g_assert_true (b2 == NULL || km_body_item_get_body_handlers (KM_BODY_ITEM (b2)) == NULL);
      }
  }
}

static void
test_extra_handlers (void)
{
  g_autoptr(KmSkeleton) skel = load_model ("choreonoid/ClosedLinkSample.body");
  const char * const extra[] = { "NoSuchHandler", "ClosedLinkSampleHandler", NULL };
  g_autoptr(KmBodyHandlerSet) set = km_body_handler_loader_attach (
    km_body_handler_loader_get_default (), skel, extra, NULL);
  g_autoptr(GString) out = g_string_new (NULL);

  /* The duplicate is attached once; the missing one is reported. */
  g_assert_cmpuint (km_body_handler_set_get_n_reports (set), ==, 2);
  g_assert_cmpuint (km_body_handler_set_get_n_attached (set), ==, 1);
  km_body_handler_set_describe (set, out);
  g_assert_true (g_str_has_prefix (out->str, "handler ClosedLinkSampleHandler: attached "
                                             "(linked-joints) from "));
  g_assert_nonnull (strstr (out->str, "\nhandler NoSuchHandler: not found: Body handler "
                                      "NoSuchHandler not found: no NoSuchHandler.so"));
  g_assert_true (g_str_has_suffix (out->str, "plain joint values).\n"));
}

/* Linked output is checked as IK answers are (BadLinkHandler writes NaN into "b" and 5 rad
 * into "c", limited to ±1): NaN keeps the value before the update, 5 is clamped to 1. */
static void
test_linked_output_checked (void)
{
  g_autoptr(KmSkeletonBuilder) b = km_skeleton_builder_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = NULL;
  g_autoptr(KmBodyHandlerSet) set = NULL;
  const char *names[] = { "a", "b", "c" };
  double q[3] = { 0.0, 0.25, 0.5 };

  km_skeleton_builder_set_root_name (b, "root");
  km_skeleton_builder_add_joint (b, "root", KM_JOINT_FIXED, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      guint j = km_skeleton_builder_add_joint (b, names[i], KM_JOINT_REVOLUTE,
                                               i == 0 ? "root" : names[i - 1]);

      km_skeleton_builder_set_axis (b, j, km_vec3 (0, 0, 1));
      km_skeleton_builder_set_limit (b, j, 0, -1.0, 1.0);
    }
  km_skeleton_builder_add_body_handler (b, "BadLinkHandler");
  skel = km_skeleton_builder_build (b, NULL, &error);
  g_assert_no_error (error);
  set = km_body_handler_loader_attach (km_body_handler_loader_get_default (), skel, NULL, NULL);
  g_assert_true (km_body_handler_set_is_attached (set, "BadLinkHandler"));

  g_assert_true (km_body_handler_set_apply_linked (set, km_skeleton_find_joint (skel, "a"),
                                                   0.75, q));
  g_assert_cmpfloat (q[0], ==, 0.75);
  g_assert_cmpfloat (q[1], ==, 0.25);
  g_assert_cmpfloat (q[2], ==, 1.0);

  /* The re-sync of every linked joint (a solved frame, a drag answer) likewise. */
  q[2] = -0.5;
  g_assert_true (km_body_handler_set_apply_linked (set, -1, 0.0, q));
  g_assert_cmpfloat (q[0], ==, 0.75);
  g_assert_cmpfloat (q[1], ==, 0.25);
  g_assert_cmpfloat (q[2], ==, 1.0);
  g_assert_false (km_body_handler_set_apply_linked (set, -1, 0.0, q));

  /* A value no handler wrote is left alone, even past its limit (a project's value, kept
   * with a warning): the review found every joint clamped by a re-sync at load. */
  q[0] = 3.0;
  km_body_handler_set_apply_linked (set, -1, 0.0, q);
  g_assert_cmpfloat (q[0], ==, 3.0);
}

/* Every frame of a solved motion goes through the linked joints (what `solve` and the
 * editor's solved frames use): ClosedLinkSample's J1 = -J0 and J3 = J0. */
static void
test_linked_frames (void)
{
  g_autoptr(KmSkeleton) skel = load_model ("choreonoid/ClosedLinkSample.body");
  g_autoptr(KmBodyHandlerSet) set = km_body_handler_loader_attach (
    km_body_handler_loader_get_default (), skel, NULL, NULL);
  g_autoptr(KmAnimation) animation = km_animation_new (skel, 4);
  guint n_dof = km_skeleton_get_n_dof (skel);
  int d0 = km_skeleton_get_joint (skel, km_skeleton_find_joint (skel, "J0"))->dof_index;
  int d1 = km_skeleton_get_joint (skel, km_skeleton_find_joint (skel, "J1"))->dof_index;
  int d3 = km_skeleton_get_joint (skel, km_skeleton_find_joint (skel, "J3"))->dof_index;
  g_autofree double *row = g_new0 (double, n_dof);

  for (guint f = 0; f < 4; f++)
    {
      row[d0] = -0.1 * (f + 1);
      row[d1] = 0.0;
      row[d3] = 0.0;
      km_animation_set_frame (animation, f, row);
    }
  /* Frames 1 and 2 only. */
  g_assert_cmpuint (km_body_handler_set_apply_linked_frames (set, animation, 1, 2), ==, 2);
  g_assert_cmpfloat (km_animation_get_frame (animation, 0)[d3], ==, 0.0);
  g_assert_cmpfloat (km_animation_get_frame (animation, 3)[d3], ==, 0.0);
  for (guint f = 1; f < 3; f++)
    {
      const double *v = km_animation_get_frame (animation, f);

      g_assert_cmpfloat (v[d1], ==, -v[d0]);
      g_assert_cmpfloat (v[d3], ==, v[d0]);
    }
  /* Clipped to the animation; nothing left to change. */
  g_assert_cmpuint (km_body_handler_set_apply_linked_frames (set, animation, 1, 100), ==, 1);
  g_assert_cmpuint (km_body_handler_set_apply_linked_frames (set, animation, 1, 100), ==, 0);
}

/* A solved motion's residuals follow the linked re-sync (what `solve`'s stats and the
 * editor's red marks read): each changed frame is measured again by forward kinematics,
 * a frame without a residual keeps none, and a missed keyframe takes its frame's new
 * residuals. The solver's were of the pose before J1 = -J0 turned the effector J1. */
static void
test_linked_solved_residuals (void)
{
  g_autoptr(KmSkeleton) skel = load_model ("choreonoid/ClosedLinkSample.body");
  g_autoptr(KmBodyHandlerSet) set = km_body_handler_loader_attach (
    km_body_handler_loader_get_default (), skel, NULL, NULL);
  g_autofree char *targets_path = g_test_build_filename (G_TEST_DIST, "data",
                                                         "closedlink-targets.json", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmTargetTrack) track = km_targets_json_load_file (targets_path, &error);
  g_autoptr(KmIkProblem) problem = km_ik_problem_new (skel, km_skeleton_find_joint (skel, "J1"));
  g_autoptr(KmAnimation) animation = km_animation_new (skel, 11);
  guint n_dof = km_skeleton_get_n_dof (skel);
  int d0 = km_skeleton_get_joint (skel, km_skeleton_find_joint (skel, "J0"))->dof_index;
  int d1 = km_skeleton_get_joint (skel, km_skeleton_find_joint (skel, "J1"))->dof_index;
  g_autofree double *row = g_new0 (double, n_dof);
  g_autofree double *before = NULL;
  g_autofree double *after = NULL;
  KmAnimationKeyMiss key = { 0 };
  const KmAnimationKeyMiss *missed;
  gboolean moved = FALSE;
  guint n_missed;

  g_assert_no_error (error);
  for (guint f = 0; f < 11; f++)
    {
      row[d0] = -0.03 * f;
      row[d1] = 0.5;
      km_animation_set_frame (animation, f, row);
    }
  /* The solver's residuals, of its pose; frame 0 is a seed row without one. */
  before = km_ik_measure_track (problem, track, animation, NULL);
  for (guint f = 1; f < 11; f++)
    km_animation_set_residual (animation, f, before[2 * f], before[2 * f + 1]);
  key.frame = 10;
  key.pos_err = before[20];
  key.rot_err = before[21];
  km_animation_set_missed_keys (animation, &key, 1);

  g_assert_cmpuint (km_body_handler_set_apply_linked_solved (set, problem, track, animation,
                                                             0, 11), ==, 11);
  after = km_ik_measure_track (problem, track, animation, NULL);
  g_assert_false (km_animation_get_residual (animation, 0, NULL, NULL));
  for (guint f = 1; f < 11; f++)
    {
      double pos_err, rot_err;

      g_assert_true (km_animation_get_residual (animation, f, &pos_err, &rot_err));
      g_assert_cmpfloat (pos_err, ==, after[2 * f]);
      g_assert_cmpfloat (rot_err, ==, after[2 * f + 1]);
      if (fabs (rot_err - before[2 * f + 1]) > 1e-3)
        moved = TRUE;
    }
  g_assert_true (moved);  /* the re-sync did turn the effector */
  missed = km_animation_get_missed_keys (animation, &n_missed);
  if (km_ik_residual_missed (after[20], after[21], TRUE))
    {
      g_assert_cmpuint (n_missed, ==, 1);
      g_assert_cmpfloat (missed[0].pos_err, ==, after[20]);
      g_assert_cmpfloat (missed[0].rot_err, ==, after[21]);
    }
  else
    g_assert_cmpuint (n_missed, ==, 0);
  /* In sync now: nothing changes, nothing is measured. */
  g_assert_cmpuint (km_body_handler_set_apply_linked_solved (set, problem, track, animation,
                                                             0, 11), ==, 0);
}

/* Solves for @effector's point @offset (position only) reaching where it is in the pose
 * J0 = @angle (J1 = -J0, J3 = J0), from the zero pose, with the body's IK hook installed
 * as every consumer does; the answer is re-synced as the CLI's and the editor's are. */
static void
solve_closed_link (KmSkeleton       *skel,
                   KmBodyHandlerSet *set,
                   const char       *effector,
                   KmVec3            offset,
                   double            angle,
                   double           *q)
{
  g_autoptr(KmBodyHandlerIkHook) hook = km_body_handler_ik_hook_new (
    set, KM_BODY_HANDLER_CONFIGURATION_NEAREST);
  g_autoptr(KmBodyHandlerSet) linked = km_body_handler_set_clone (set);
  int e = km_skeleton_find_joint (skel, effector);
  g_autoptr(KmIkProblem) problem = km_ik_problem_new (skel, e);
  guint n_dof = km_skeleton_get_n_dof (skel);
  g_autofree double *goal = g_new0 (double, n_dof);
  g_autoptr(GError) error = NULL;
  KmIkSolution s;
  KmTransform joint, tip;
  double pos_err, rot_err;

  g_assert_true (km_body_handler_set_apply_linked (linked, km_skeleton_find_joint (skel, "J0"),
                                                   angle, goal));
  problem->effector_offset = offset;
  problem->orientation_weight = 0.0;
  fk_joint (skel, goal, e, &joint);
  km_ik_effector_point (problem, &joint, &tip);
  problem->target = tip;
  memset (problem->seed, 0, n_dof * sizeof (double));
  /* No analytic path here: the hook has no analytic IK to offer. */
  g_assert_false (km_body_handler_ik_hook_install (hook, problem));

  km_ik_solution_init (&s, n_dof);
  g_assert_true (km_ik_solve (problem, &s, NULL, &error));
  g_assert_no_error (error);
  memcpy (q, s.q, n_dof * sizeof (double));
  km_ik_solution_clear (&s);
  km_body_handler_set_apply_linked (linked, -1, 0.0, q);
  km_ik_measure (problem, q, &pos_err, &rot_err);
  g_assert_cmpfloat (pos_err, <, 1e-6);
}

/* IK varies the masters that drive linked joints on the chain: J3's chain is J3 alone, but
 * J3 follows J0 (off the chain), so J0 has to move. It did not: the solver turned J3, the
 * re-sync put it back at J0's 0 and the target was missed by 2 · 0.1 · sin (0.25) m. */
static void
test_linked_ik (void)
{
  g_autoptr(KmSkeleton) skel = load_model ("choreonoid/ClosedLinkSample.body");
  g_autoptr(KmBodyHandlerSet) set = km_body_handler_loader_attach (
    km_body_handler_loader_get_default (), skel, NULL, NULL);
  guint n_dof = km_skeleton_get_n_dof (skel);
  g_autofree double *q = g_new0 (double, n_dof);
  int d0 = km_skeleton_get_joint (skel, km_skeleton_find_joint (skel, "J0"))->dof_index;
  int d1 = km_skeleton_get_joint (skel, km_skeleton_find_joint (skel, "J1"))->dof_index;
  int d3 = km_skeleton_get_joint (skel, km_skeleton_find_joint (skel, "J3"))->dof_index;

  /* J3's crank tip. */
  solve_closed_link (skel, set, "J3", km_vec3 (0, 0.1, 0), 0.5, q);
  g_assert_cmpfloat_with_epsilon (q[d0], 0.5, 1e-4);
  g_assert_cmpfloat (q[d3], ==, q[d0]);
  g_assert_cmpfloat (q[d1], ==, -q[d0]);
  check_closed_loop (skel, q);

  /* The coupler's far end, at the hinge: J0 and J1 on the chain, one DOF between them. */
  solve_closed_link (skel, set, "J1", km_vec3 (0.2, 0, 0), -0.7, q);
  g_assert_cmpfloat_with_epsilon (q[d0], -0.7, 1e-4);
  g_assert_cmpfloat (q[d1], ==, -q[d0]);
  check_closed_loop (skel, q);
}

/* A class table smaller than this ABI's says so (it was "incomplete … missing …"). */
static void
test_small_table (void)
{
  g_autoptr(KmBodyHandlerSet) set = NULL;
  const KmBodyHandlerReport *r = attach_one (km_body_handler_loader_get_default (),
                                             "SmallTableHandler", &set);

  g_assert_cmpint (r->status, ==, KM_BODY_HANDLER_FAILED);
  g_assert_nonnull (strstr (r->message, "class table is smaller"));
  g_assert_nonnull (strstr (r->message, "than this Kinema's body-handler ABI needs"));
  g_assert_null (strstr (r->message, "incomplete"));
}

/* A handler written in C++ with KM_BODY_HANDLER_DEFINE: its factory has C linkage. */
static void
test_cxx_handler (void)
{
  g_autoptr(KmBodyHandlerSet) set = NULL;
  const KmBodyHandlerReport *r;

  if (!KM_TEST_HAVE_CXX_HANDLER)
    {
      g_test_skip ("no C++ compiler");
      return;
    }
  r = attach_one (km_body_handler_loader_get_default (), "CxxHandler", &set);
  g_assert_cmpstr (r->message, !=, NULL);
  g_assert_cmpint (r->status, ==, KM_BODY_HANDLER_ATTACHED);
  g_assert_nonnull (strstr (r->message, "C++ handler initialized"));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  {
    g_autofree char *search = g_strjoin (G_SEARCHPATH_SEPARATOR_S, KM_TEST_HANDLER_DIR,
                                         KM_TEST_MODULE_DIR, NULL);

    g_setenv ("KINEMA_BODYHANDLER_PATH", search, TRUE);
  }
  g_test_add_func ("/kinema/BodyHandler/abi-mismatch", test_abi_mismatch);
  g_test_add_func ("/kinema/BodyHandler/untrusted-refused", test_untrusted_refused);
  g_test_add_func ("/kinema/BodyHandler/relative-model-dir", test_relative_model_dir);
  g_test_add_func ("/kinema/BodyHandler/ur5-configurations", test_ur5_configurations);
  g_test_add_func ("/kinema/BodyHandler/ur5-switching", test_ur5_switching);
  g_test_add_func ("/kinema/BodyHandler/ur5-nearest-seed", test_ur5_nearest_seed);
  g_test_add_func ("/kinema/BodyHandler/linked-joints", test_linked_joints);
  g_test_add_func ("/kinema/BodyHandler/clone", test_clone);
  g_test_add_func ("/kinema/BodyHandler/threads", test_threads);
  g_test_add_func ("/kinema/BodyHandler/presentation", test_presentation);
  g_test_add_func ("/kinema/BodyHandler/cnoid-project", test_cnoid_project);
  g_test_add_func ("/kinema/BodyHandler/extra-handlers", test_extra_handlers);
  g_test_add_func ("/kinema/BodyHandler/cnoid-extra-handlers", test_cnoid_extra_handlers);
  g_test_add_func ("/kinema/BodyHandler/linked-output-checked", test_linked_output_checked);
  g_test_add_func ("/kinema/BodyHandler/linked-frames", test_linked_frames);
  g_test_add_func ("/kinema/BodyHandler/linked-solved-residuals", test_linked_solved_residuals);
  g_test_add_func ("/kinema/BodyHandler/linked-ik", test_linked_ik);
  g_test_add_func ("/kinema/BodyHandler/cnoid-project-linked", test_cnoid_project_linked);
  g_test_add_func ("/kinema/BodyHandler/small-table", test_small_table);
  g_test_add_func ("/kinema/BodyHandler/loader-threads", test_loader_threads);
  g_test_add_func ("/kinema/BodyHandler/cxx-handler", test_cxx_handler);
  return g_test_run ();
}
