/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <math.h>
#include <string.h>
#include <gio/gio.h>

#include "km-ik.h"
#include "km-ik-srs.h"
#include "km-skeleton-json.h"

/*
 * The closed form of spherical-revolute-spherical arms (KUKA LBR iiwa: tests/data/
 * bench-iiwa7.json, the benchmark chain) and the routed trajectory solve it makes possible.
 */

static KmSkeleton *
load_chain (const char *name)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", name, NULL);
  g_autofree char *data = NULL;
  g_autoptr (GError) error = NULL;
  gsize length;
  KmSkeleton *skel;

  g_assert_true (g_file_get_contents (path, &data, &length, &error));
  g_assert_no_error (error);
  skel = km_skeleton_json_load (path, data, length, &error);
  g_assert_no_error (error);
  g_assert_nonnull (skel);
  return skel;
}

static KmIkProblem *
problem_for (const char *name)
{
  g_autoptr (KmSkeleton) skel = load_chain (name);

  return km_ik_problem_new (skel, km_skeleton_get_default_effector (skel));
}

static void
pose_of (const KmIkProblem *p,
         const double      *q,
         KmTransform       *pose)
{
  g_autofree KmTransform *world = g_new (KmTransform, km_skeleton_get_n_joints (p->skeleton));

  km_skeleton_forward_kinematics (p->skeleton, q, &p->root_pose, world);
  *pose = world[p->effector];
}

static void
test_recognises (void)
{
  g_autoptr (KmIkProblem) iiwa = problem_for ("bench-iiwa7.json");
  g_autoptr (KmIkProblem) ur5 = problem_for ("bench-ur5.json");
  g_autoptr (KmIkProblem) seed5 = problem_for ("bench-seed5.json");
  g_autoptr (KmIkSrs) srs = km_ik_srs_new (iiwa);
  g_autoptr (KmIkSrs) none_ur5 = km_ik_srs_new (ur5);
  g_autoptr (KmIkSrs) none_seed5 = km_ik_srs_new (seed5);
  g_autoptr (KmIkSrs) short_arm = NULL;

  g_assert_nonnull (srs);
  g_assert_null (none_ur5);
  g_assert_null (none_seed5);
  /* Up to the sixth joint only: six DOFs, no SRS arm. */
  iiwa->effector = km_skeleton_find_joint (iiwa->skeleton, "joint_a6");
  short_arm = km_ik_srs_new (iiwa);
  g_assert_null (short_arm);
}

/* Every configuration within the limits is one of the eight families at some arm angle, and
 * every family's configuration reaches the pose (within the iiwa's 0.44 mm offsets). */
static void
test_closed_form (void)
{
  g_autoptr (KmIkProblem) p = problem_for ("bench-iiwa7.json");
  g_autoptr (KmIkSrs) srs = km_ik_srs_new (p);
  g_autoptr (GRand) rand = g_rand_new_with_seed (7);
  g_autofree double *lo = g_new (double, p->n_dof);
  g_autofree double *hi = g_new (double, p->n_dof);
  g_autofree double *q = g_new (double, p->n_dof);
  g_autofree double *c = g_new (double, p->n_dof);

  g_assert_nonnull (srs);
  km_skeleton_get_dof_limits (p->skeleton, lo, hi);
  for (guint t = 0; t < 40; t++)
    {
      KmTransform target;
      double nearest = INFINITY;
      guint n_valid = 0;

      for (guint d = 0; d < p->n_dof; d++)
        q[d] = g_rand_double_range (rand, lo[d], hi[d]);
      pose_of (p, q, &target);
      for (guint f = 0; f < KM_IK_SRS_FAMILIES; f++)
        for (guint i = 0; i < 360; i++)
          {
            KmTransform reached;
            double d = 0.0;

            if (!km_ik_srs_config (srs, &target, f, -G_PI + 2 * G_PI * i / 360, c))
              continue;
            n_valid++;
            pose_of (p, c, &reached);
            g_assert_cmpfloat (km_vec3_length (km_vec3_sub (reached.pos, target.pos)), <, 2e-3);
            g_assert_cmpfloat (km_mat3_rotation_angle (&reached.rot, &target.rot), <, 5e-3);
            for (guint k = 0; k < p->n_dof; k++)
              {
                g_assert_cmpfloat (c[k], >=, lo[k]);
                g_assert_cmpfloat (c[k], <=, hi[k]);
                d = MAX (d, fabs (c[k] - q[k]));
              }
            nearest = MIN (nearest, d);
          }
      g_assert_cmpuint (n_valid, >, 0);
      g_assert_cmpfloat (nearest, <, 0.1);
    }
}

static void
test_singularities (void)
{
  g_autoptr (KmIkProblem) p = problem_for ("bench-iiwa7.json");
  g_autoptr (KmIkSrs) srs = km_ik_srs_new (p);
  double q[7] = { 0.3, 0.05, -0.4, 0.8, 0.2, 0.9, 0.1 };

  /* Shoulder: joint_a2 near 0 aligns joint_a1 and joint_a3. */
  g_assert_true (km_ik_srs_near_singular (srs, 0, q, 0.1));
  g_assert_false (km_ik_srs_near_singular (srs, 0, q, 0.01));
  km_ik_srs_cross (srs, 0, q);
  g_assert_cmpfloat_with_epsilon (q[1], -0.05, 1e-9);
  g_assert_cmpfloat_with_epsilon (q[0], 0.3, 1e-12);
  /* Wrist: joint_a6 at 0.9 is far from it. */
  g_assert_false (km_ik_srs_near_singular (srs, 1, q, 0.1));
  q[5] = -0.02;
  g_assert_true (km_ik_srs_near_singular (srs, 1, q, 0.1));
  km_ik_srs_cross (srs, 1, q);
  g_assert_cmpfloat_with_epsilon (q[5], 0.02, 1e-9);
  /* Elbow: stretched near joint_a4 = 0 (the 0.44 mm offsets move it by less than 1 mrad). */
  g_assert_false (km_ik_srs_near_singular (srs, 2, q, 0.1));
  q[3] = 0.04;
  g_assert_true (km_ik_srs_near_singular (srs, 2, q, 0.1));
  km_ik_srs_cross (srs, 2, q);
  g_assert_cmpfloat_with_epsilon (q[3], -0.04, 3e-3);
  /* Mirrored within the limits. */
  q[1] = 2.09;
  km_ik_srs_cross (srs, 0, q);
  g_assert_cmpfloat_with_epsilon (q[1], -2.09, 1e-9);
}

/*
 * The benchmark's warm motion (../shared/bench/targets/iiwa7-warm.json), frames 0-999: each
 * joint follows 0.9 · limit · sin(w k + φ), so the motion passes exactly through shoulder,
 * wrist and elbow singularities, and hugs the limits. Tracked branch by branch, the solve
 * had to jump near frame 958 (the shoulder's family chosen near frame 670 runs joint_a3 into
 * its limit); routed, it is continuous from end to end.
 */
static const double motion_w[7] = {
  0.003850297299850436, 0.005472876586258073, 0.005680212715582877, 0.005723112154982489,
  0.0042685402722014735, 0.006359105219812302, 0.006526937862699772,
};
static const double motion_phase[7] = {
  1.874487807526342, 2.6221621595410025, 4.019987816585729, -1.021930433899183,
  -0.7224915957673894, 1.3588418003636913, 3.1179648944639293,
};

/* What a routed solve reported, in order. */
typedef struct
{
  GArray *progress;          /* doubles */
  guint   frames;            /* frames handed over */
  guint   before_first;      /* progress reports before the first frame */
  double  first_shown;       /* the progress shown when the first frame came */
} Reports;

static void
on_progress (double   fraction,
             gpointer user_data)
{
  Reports *r = user_data;

  g_array_append_val (r->progress, fraction);
  if (r->frames == 0)
    {
      r->before_first++;
      r->first_shown = fraction;
    }
}

static void
on_frame (guint               frame,
          const KmIkSolution *solution,
          gpointer            user_data)
{
  Reports *r = user_data;

  g_assert_cmpuint (frame, ==, r->frames);
  r->frames++;
}

/* Routed, the frames come only at the end; the progress moves all along, rising to 1. */
static void
assert_progress (const Reports *r,
                 guint          n_frames)
{
  g_assert_cmpuint (r->frames, ==, n_frames);
  g_assert_cmpuint (r->before_first, >=, 50);
  g_assert_cmpfloat (r->first_shown, >=, 0.99);
  for (guint i = 1; i < r->progress->len; i++)
    g_assert_cmpfloat (g_array_index (r->progress, double, i), >,
                       g_array_index (r->progress, double, i - 1));
  g_assert_cmpfloat (g_array_index (r->progress, double, 0), >, 0.0);
  g_assert_cmpfloat (g_array_index (r->progress, double, r->progress->len - 1), ==, 1.0);
  g_assert_cmpuint (r->progress->len, <=, 501);
}

static void
test_route_continuous (void)
{
  g_autoptr (KmIkProblem) p = problem_for ("bench-iiwa7.json");
  g_autoptr (GError) error = NULL;
  const guint n = 1000;
  g_autofree KmTransform *targets = g_new (KmTransform, n);
  g_autofree KmIkSolution *out = g_new0 (KmIkSolution, n);
  g_autofree double *lo = g_new (double, p->n_dof);
  g_autofree double *hi = g_new (double, p->n_dof);
  g_autofree double *q = g_new (double, p->n_dof);
  double largest = 0.0;
  Reports reports = { g_array_new (FALSE, FALSE, sizeof (double)), 0, 0, 0.0 };

  km_skeleton_get_dof_limits (p->skeleton, lo, hi);
  for (guint k = 0; k < n; k++)
    {
      for (guint d = 0; d < p->n_dof; d++)
        q[d] = 0.9 * hi[d] * sin (motion_w[d] * k + motion_phase[d]);
      pose_of (p, q, &targets[k]);
    }
  km_skeleton_get_mid_range (p->skeleton, p->seed);
  g_assert_true (km_ik_solve_trajectory_full (p, targets, n, out, on_frame, on_progress,
                                              &reports, NULL, &error));
  g_assert_no_error (error);
  assert_progress (&reports, n);
  g_array_unref (reports.progress);
  for (guint k = 0; k < n; k++)
    {
      g_assert_true (out[k].converged);
      g_assert_true (km_skeleton_within_limits (p->skeleton, out[k].q, 0.0));
      if (k > 0)
        for (guint d = 0; d < p->n_dof; d++)
          largest = MAX (largest, fabs (out[k].q[d] - out[k - 1].q[d]));
    }
  /* No joint moves more than the benchmark's flip threshold between frames. */
  g_assert_cmpfloat (largest, <=, 0.5);
  for (guint k = 0; k < n; k++)
    km_ik_solution_clear (&out[k]);
}

/* A check that turns down some of the nodes near the stretched elbow, deterministically. */
static gboolean
reject_some (guint         frame,
             const double *q,
             gpointer      user_data)
{
  gint *n_checked = user_data;

  /* The route checks from several threads. */
  g_atomic_int_inc (n_checked);
  return frame % 3 != 0 || q[0] < 0.0;
}

/*
 * The route's pre-tests (which family may follow which at all) only skip transitions that
 * cost infinitely much: over frames 550-949 of the benchmark's motion (shoulder, wrist and
 * elbow singularities, the limits), the route is the same, to the bit, as the one that
 * evaluates every transition; and also where a check turns nodes down.
 */
static void
test_route_pretest_exact (void)
{
  g_autoptr (KmIkProblem) p = problem_for ("bench-iiwa7.json");
  g_autoptr (KmIkSrs) srs = km_ik_srs_new (p);
  const guint first = 550, n = 400;
  g_autofree KmTransform *targets = g_new (KmTransform, n);
  g_autofree double *lo = g_new (double, p->n_dof);
  g_autofree double *hi = g_new (double, p->n_dof);
  g_autofree double *q = g_new (double, p->n_dof);
  g_autofree double *fast = g_new (double, (gsize) n * p->n_dof);
  g_autofree double *full = g_new (double, (gsize) n * p->n_dof);

  g_assert_nonnull (srs);
  km_skeleton_get_dof_limits (p->skeleton, lo, hi);
  for (guint k = 0; k < n; k++)
    {
      for (guint d = 0; d < p->n_dof; d++)
        q[d] = 0.9 * hi[d] * sin (motion_w[d] * (first + k) + motion_phase[d]);
      pose_of (p, q, &targets[k]);
    }
  for (guint d = 0; d < p->n_dof; d++)
    q[d] = 0.9 * hi[d] * sin (motion_w[d] * first + motion_phase[d]);
  for (guint with_check = 0; with_check < 2; with_check++)
    {
      guint jumps[2];
      gint checked[2] = { 0, 0 };

      for (guint e = 0; e < 2; e++)
        {
          km_ik_srs_set_exhaustive (srs, e == 1);
          g_assert_true (km_ik_srs_route (srs, targets, n, q, FALSE, e == 0 ? fast : full,
                                          &jumps[e], with_check ? reject_some : NULL,
                                          &checked[e], NULL, NULL, NULL));
        }
      g_assert_cmpuint (jumps[0], ==, jumps[1]);
      g_assert_cmpint (checked[0], ==, checked[1]);
      if (with_check)
        g_assert_cmpint (checked[0], >, 0);
      g_assert_cmpmem (fast, (gsize) n * p->n_dof * sizeof (double),
                       full, (gsize) n * p->n_dof * sizeof (double));
    }
}

/* A cancelled solve of an SRS arm stops in its routing, with the cancellation. */
static void
test_route_cancel (void)
{
  g_autoptr (KmIkProblem) p = problem_for ("bench-iiwa7.json");
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (GError) error = NULL;
  KmTransform targets[3];
  KmIkSolution out[3] = { { 0 } };
  double q[7] = { 0.1, 0.5, 0.2, 1.0, 0.3, 0.4, 0.5 };

  for (guint k = 0; k < 3; k++)
    {
      q[0] += 0.01;
      pose_of (p, q, &targets[k]);
    }
  g_cancellable_cancel (cancellable);
  g_assert_false (km_ik_solve_trajectory (p, targets, 3, out, NULL, NULL, cancellable, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  for (guint k = 0; k < 3; k++)
    km_ik_solution_clear (&out[k]);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/kinema/IkSrs/recognises", test_recognises);
  g_test_add_func ("/kinema/IkSrs/closed-form", test_closed_form);
  g_test_add_func ("/kinema/IkSrs/singularities", test_singularities);
  g_test_add_func ("/kinema/IkSrs/route-continuous", test_route_continuous);
  g_test_add_func ("/kinema/IkSrs/route-pretest-exact", test_route_pretest_exact);
  g_test_add_func ("/kinema/IkSrs/route-cancel", test_route_cancel);
  return g_test_run ();
}
