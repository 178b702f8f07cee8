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
 * previous frame's answer of a motion), restarts drawn from @random_seed. */
gboolean km_ik_solve_seeded (const KmIkProblem *p,
                             const KmTransform *target,
                             const double      *seed,
                             guint64            random_seed,
                             gboolean           continuous,
                             KmIkSolution      *out,
                             GCancellable      *cancellable,
                             GError           **error);

G_END_DECLS
