/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <math.h>
#include <glib.h>
#include <gio/gio.h>

#include "km-ik.h"

G_BEGIN_DECLS

/* What the single-pose solver (km-ik.c) and the motion solver (km-ik-motion.c) share. */

#define KM_IK_CONT_JUMP 0.5 /* rad or m: a motion's answer moved no joint further */
/* ... nor further than this share of its range: 0.499 m is a whole stroke of a 0.5 m
 * prismatic joint, a jump however far below KM_IK_CONT_JUMP it lies. */
#define KM_IK_JUMP_RANGE_SHARE 0.5
/* A motion's step (km_ik_jump_distance()) of at least KM_IK_SPIKE_STEP that is more than
 * KM_IK_SPIKE_RATIO times the steps next to it is a jump too, for the frame's report
 * (KmIkSolution.jumped) though not for the motion's search: a velocity spike, as where a
 * pose kept at frame 0 sits on a singularity's self-motion and frame 1 is at the one
 * configuration that the motion's targets lead to (0.32 rad in one frame of a UR5's wrist
 * against 0.017 rad in the steps after it). */
#define KM_IK_SPIKE_STEP  0.1
#define KM_IK_SPIKE_RATIO 4.0

/* Whether a motion's step @step into a frame (km_ik_jump_distance()) is reported as a jump:
 * over KM_IK_CONT_JUMP, or a spike against @around, the larger of the steps next to it
 * (negative: none known). */
static inline gboolean
km_ik_step_is_jump (double step,
                    double around)
{
  return step > KM_IK_CONT_JUMP ||
         (step >= KM_IK_SPIKE_STEP && around >= 0.0 && step > KM_IK_SPIKE_RATIO * around);
}
/* rad: a whole turn of a joint that brings its value this much nearer the seed is taken
 * off (a solve adds no turn that its seed did not have); not one that only rounding makes
 * nearer, half a turn off either way. */
#define KM_IK_TURN_GAIN 1e-6

/* Per DOF, what a change of it counts for against KM_IK_CONT_JUMP (and against a motion's
 * other per-frame bounds): 1 where the range is wide (KM_IK_CONT_JUMP /
 * KM_IK_JUMP_RANGE_SHARE, 1 rad or m, or more; unlimited; none), more where it is
 * narrower, so that KM_IK_JUMP_RANGE_SHARE of the range counts as KM_IK_CONT_JUMP. */
static inline void
km_ik_jump_scales (const double *lo,
                   const double *hi,
                   guint         n_dof,
                   double       *scale)
{
  for (guint i = 0; i < n_dof; i++)
    {
      double share = KM_IK_JUMP_RANGE_SHARE * (hi[i] - lo[i]);

      scale[i] = isfinite (share) && share > 0.0 && share < KM_IK_CONT_JUMP
                 ? KM_IK_CONT_JUMP / share : 1.0;
    }
}

/* The largest change of one DOF between @a and @b, weighted by km_ik_jump_scales(): a jump
 * when above KM_IK_CONT_JUMP. */
static inline double
km_ik_jump_distance (const double *a,
                     const double *b,
                     const double *scale,
                     guint         n_dof)
{
  double d = 0.0;

  for (guint i = 0; i < n_dof; i++)
    d = MAX (d, fabs (a[i] - b[i]) * scale[i]);
  return d;
}

/* splitmix64: the solver's deterministic random numbers. */
static inline guint64
km_ik_rng_next (guint64 *state)
{
  guint64 z = (*state += G_GUINT64_CONSTANT (0x9e3779b97f4a7c15));

  z = (z ^ (z >> 30)) * G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * G_GUINT64_CONSTANT (0x94d049bb133111eb);
  return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static inline double
km_ik_rng_uniform (guint64 *state)
{
  return (km_ik_rng_next (state) >> 11) * (1.0 / 9007199254740992.0);
}

/* lo + u (hi - lo) for finite @lo ≤ @hi and @u in [0, 1): a value of the range, also where
 * hi - lo overflows (limits of ±1e308), which would give inf or NaN. */
static inline double
km_ik_lerp_range (double lo,
                  double hi,
                  double u)
{
  double span = hi - lo;

  return isfinite (span) ? lo + u * span : (1.0 - u) * lo + u * hi;
}

/* Every number of @t is finite. */
static inline gboolean
km_ik_target_is_finite (const KmTransform *t)
{
  if (!km_vec3_is_finite (t->pos))
    return FALSE;
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++)
      if (!isfinite (t->rot.m[r][c]))
        return FALSE;
  return TRUE;
}

/* One pose of @p, @target instead of p->target, from @seed (@continuous: the seed is the
 * previous frame's answer of a motion), restarts drawn from @random_seed. A motion's
 * orientation fit, where the pose cannot be met, moves no joint further than @fit_radius
 * (rad or m; 0: a default) from where it met the position. */
gboolean km_ik_solve_seeded (const KmIkProblem *p,
                             const KmTransform *target,
                             const double      *seed,
                             guint64            random_seed,
                             gboolean           continuous,
                             double             fit_radius,
                             KmIkSolution      *out,
                             GCancellable      *cancellable,
                             GError           **error);

/* km_ik_solve_seeded() from @seed as a motion's frame (continuous, random seed
 * p->random_seed), for a check whether the pose is met near @seed: where the warm descent
 * spends all of p->max_iterations without converging, the answer is where it stopped (not
 * converged), without the motion search's further stages, which have no iterations left
 * to descend with. Any other solve is km_ik_solve_seeded()'s. Without cancellation; FALSE
 * on an invalid problem or target. */
gboolean km_ik_solve_local (const KmIkProblem *p,
                            const KmTransform *target,
                            const double      *seed,
                            double             fit_radius,
                            KmIkSolution      *out);

/*
 * KmIkReviseFunc:
 * @first_frame: index into the trajectory's targets
 * @user_data: user data
 *
 * Called on the solving thread by km_ik_solve_trajectory_stream() when frames it handed
 * over are replaced: those from @first_frame on come again, in order.
 */
typedef void (*KmIkReviseFunc) (guint    first_frame,
                                gpointer user_data);

gboolean km_ik_solve_trajectory_stream (const KmIkProblem *problem,
                                        const KmTransform *targets,
                                        guint              n_frames,
                                        KmIkFrameFunc      frame_done,
                                        KmIkReviseFunc     revise,
                                        KmIkProgressFunc   progress,
                                        gpointer           user_data,
                                        GCancellable      *cancellable,
                                        GError           **error);

G_END_DECLS
