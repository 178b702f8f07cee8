/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

/*
 * UR5AnalyticIkHandler — closed-form inverse kinematics for Universal Robots' 6-DOF arms
 * (UR3/UR5/UR10 share the structure), as a custom joint path from the arm's base to
 * `tool0`.
 *
 * The model must have the UR joint names (shoulder_pan, shoulder_lift, elbow, wrist_1,
 * wrist_2, wrist_3, tool0) in one serial chain. initialize() reads the DH lengths
 * d1, a2, a3, d4, d5, d6 from the joint offsets and then checks the model against the DH
 * chain by forward kinematics at several poses, so a model of another shape is refused
 * with a message instead of getting wrong answers.
 *
 * The solution is the standard one for this structure (shoulder from the wrist-centre
 * plane, wrist from the tool axis, the three parallel joints as a planar 2R arm plus a
 * sum): up to 8 configurations, index = 4·shoulder + 2·wrist + elbow where
 *   shoulder 0 "left" / 1 "right"   the two roots for shoulder_pan,
 *   wrist    0 "no flip" / 1 "flip"  wrist_2 ≥ 0 / < 0 (before unwrapping),
 *   elbow    0 "up" / 1 "down"      elbow ≥ 0 / < 0 (before unwrapping).
 * Every joint is then unwrapped by multiples of 2π to the value nearest the seed within
 * its limits, so along a trajectory "nearest configuration" stays continuous.
 * On the wrist singularity (wrist_2 = 0) wrist_3 keeps the seed's value.
 */

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "km-body-handler-abi.h"

#define N_JOINTS 6
#define N_CONFIGS 8
#define CHECK_TOLERANCE 1e-9
#define SOLVE_TOLERANCE 1e-6
#define ZERO 1e-12

typedef struct
{
  double r[9];   /* row-major rotation */
  double p[3];
} Pose;

typedef struct
{
  int    joint[N_JOINTS + 1];  /* the six joints and tool0 */
  int    dof[N_JOINTS];
  double lower[N_JOINTS];
  double upper[N_JOINTS];
  int    parent;               /* the chain's base: shoulder_pan's parent */
  int    pre_fixed;            /* every joint above shoulder_pan is fixed */
  Pose   pre;                  /* root frame → parent frame, when pre_fixed */
  double d1, a2, a3, d4, d5, d6;
  double k[9];                 /* tool0 rotation = R06 · k */
  const KmBodyHandlerSkeleton *skeleton;
} UR5;

static const char * const joint_names[N_JOINTS + 1] = {
  "shoulder_pan", "shoulder_lift", "elbow", "wrist_1", "wrist_2", "wrist_3", "tool0",
};

static const char * const config_names[N_CONFIGS] = {
  "shoulder left, wrist no flip, elbow up",
  "shoulder left, wrist no flip, elbow down",
  "shoulder left, wrist flip, elbow up",
  "shoulder left, wrist flip, elbow down",
  "shoulder right, wrist no flip, elbow up",
  "shoulder right, wrist no flip, elbow down",
  "shoulder right, wrist flip, elbow up",
  "shoulder right, wrist flip, elbow down",
};

/* Small pose algebra. */

static void
pose_identity (Pose *t)
{
  memset (t, 0, sizeof *t);
  t->r[0] = t->r[4] = t->r[8] = 1.0;
}

static void
mat_mul (const double *a,
         const double *b,
         double       *out)
{
  double m[9];

  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      m[i * 3 + j] = a[i * 3] * b[j] + a[i * 3 + 1] * b[3 + j] + a[i * 3 + 2] * b[6 + j];
  memcpy (out, m, sizeof m);
}

static void
mat_transpose (const double *a,
               double       *out)
{
  double m[9];

  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      m[j * 3 + i] = a[i * 3 + j];
  memcpy (out, m, sizeof m);
}

/* out = a · b */
static void
pose_mul (const Pose *a,
          const Pose *b,
          Pose       *out)
{
  Pose t;

  mat_mul (a->r, b->r, t.r);
  for (int i = 0; i < 3; i++)
    t.p[i] = a->r[i * 3] * b->p[0] + a->r[i * 3 + 1] * b->p[1] + a->r[i * 3 + 2] * b->p[2] +
             a->p[i];
  *out = t;
}

static void
pose_inverse (const Pose *a,
              Pose       *out)
{
  Pose t;

  mat_transpose (a->r, t.r);
  for (int i = 0; i < 3; i++)
    t.p[i] = -(t.r[i * 3] * a->p[0] + t.r[i * 3 + 1] * a->p[1] + t.r[i * 3 + 2] * a->p[2]);
  *out = t;
}

static void
axis_angle (const double *axis,
            double        angle,
            double       *r)
{
  double c = cos (angle), s = sin (angle), v = 1.0 - c;
  double x = axis[0], y = axis[1], z = axis[2];

  r[0] = c + x * x * v;     r[1] = x * y * v - z * s; r[2] = x * z * v + y * s;
  r[3] = y * x * v + z * s; r[4] = c + y * y * v;     r[5] = y * z * v - x * s;
  r[6] = z * x * v - y * s; r[7] = z * y * v + x * s; r[8] = c + z * z * v;
}

static void
quat_to_mat (const double *q,
             double       *r)
{
  double w = q[0], x = q[1], y = q[2], z = q[3];

  r[0] = 1 - 2 * (y * y + z * z); r[1] = 2 * (x * y - w * z);     r[2] = 2 * (x * z + w * y);
  r[3] = 2 * (x * y + w * z);     r[4] = 1 - 2 * (x * x + z * z); r[5] = 2 * (y * z - w * x);
  r[6] = 2 * (x * z - w * y);     r[7] = 2 * (y * z + w * x);     r[8] = 1 - 2 * (x * x + y * y);
}

/* The joint's local transform at value q (revolute or fixed). */
static void
joint_local (const KmBodyHandlerJoint *j,
             double                    q,
             Pose                     *out)
{
  Pose motion;

  pose_identity (out);
  memcpy (out->p, j->offset, sizeof out->p);
  quat_to_mat (j->rotation, out->r);
  if (j->type == KM_BODY_HANDLER_JOINT_REVOLUTE)
    {
      pose_identity (&motion);
      axis_angle (j->axis, q, motion.r);
      pose_mul (out, &motion, out);
    }
}

/* Model FK from the parent of shoulder_pan to tool0. */
static void
chain_fk (const UR5    *self,
          const double *q6,
          Pose         *out)
{
  pose_identity (out);
  for (int i = 0; i <= N_JOINTS; i++)
    {
      Pose local;

      joint_local (&self->skeleton->joints[self->joint[i]], i < N_JOINTS ? q6[i] : 0.0, &local);
      pose_mul (out, &local, out);
    }
}

/* Standard DH FK: the flange pose T06. */
static void
dh_fk (const UR5    *self,
       const double *q6,
       Pose         *out)
{
  const double d[N_JOINTS] = { self->d1, 0, 0, self->d4, self->d5, self->d6 };
  const double a[N_JOINTS] = { 0, self->a2, self->a3, 0, 0, 0 };
  const double alpha[N_JOINTS] = { M_PI / 2, 0, 0, M_PI / 2, -M_PI / 2, 0 };

  pose_identity (out);
  for (int i = 0; i < N_JOINTS; i++)
    {
      double ct = cos (q6[i]), st = sin (q6[i]), ca = cos (alpha[i]), sa = sin (alpha[i]);
      Pose t = { { ct, -st * ca, st * sa,
                   st, ct * ca, -ct * sa,
                   0, sa, ca },
                 { a[i] * ct, a[i] * st, d[i] } };

      pose_mul (out, &t, out);
    }
}

static double
pose_distance (const Pose *a,
               const Pose *b)
{
  double e = 0.0;

  for (int i = 0; i < 9; i++)
    e = fmax (e, fabs (a->r[i] - b->r[i]));
  for (int i = 0; i < 3; i++)
    e = fmax (e, fabs (a->p[i] - b->p[i]));
  return e;
}

static int
find_joint (const KmBodyHandlerSkeleton *skeleton,
            const char                  *name)
{
  for (unsigned j = 0; j < skeleton->n_joints; j++)
    if (strcmp (skeleton->joints[j].name, name) == 0)
      return (int) j;
  return -1;
}

static int
fail (KmBodyHandlerLogFunc  log,
      void                 *log_data,
      const char           *message)
{
  log (log_data, KM_BODY_HANDLER_LOG_ERROR, message);
  return 0;
}

static int
ur5_initialize (void                        *instance,
                const KmBodyHandlerSkeleton *skeleton,
                KmBodyHandlerLogFunc         log,
                void                        *log_data)
{
  UR5 *self = instance;
  const KmBodyHandlerJoint *j;
  Pose dh0, chain0;
  double r06t[9];

  self->skeleton = skeleton;
  for (int i = 0; i <= N_JOINTS; i++)
    {
      char message[96];

      self->joint[i] = find_joint (skeleton, joint_names[i]);
      if (self->joint[i] < 0)
        {
          snprintf (message, sizeof message, "joint %s is not found.", joint_names[i]);
          return fail (log, log_data, message);
        }
      j = &skeleton->joints[self->joint[i]];
      if (i > 0 && j->parent != self->joint[i - 1])
        {
          snprintf (message, sizeof message, "joint %s is not the child of %s.",
                    joint_names[i], joint_names[i - 1]);
          return fail (log, log_data, message);
        }
      if (i < N_JOINTS && (j->type != KM_BODY_HANDLER_JOINT_REVOLUTE || j->n_dof != 1))
        {
          snprintf (message, sizeof message, "joint %s is not revolute.", joint_names[i]);
          return fail (log, log_data, message);
        }
      if (i < N_JOINTS)
        {
          self->dof[i] = j->dof_index;
          self->lower[i] = j->lower;
          self->upper[i] = j->upper;
        }
    }
  if (skeleton->joints[self->joint[N_JOINTS]].type != KM_BODY_HANDLER_JOINT_FIXED)
    return fail (log, log_data, "joint tool0 is not fixed.");

  self->parent = skeleton->joints[self->joint[0]].parent;
  self->pre_fixed = 1;
  pose_identity (&self->pre);
  for (int p = self->parent; p >= 0; p = skeleton->joints[p].parent)
    {
      Pose local;

      if (skeleton->joints[p].type != KM_BODY_HANDLER_JOINT_FIXED)
        self->pre_fixed = 0;
      joint_local (&skeleton->joints[p], 0.0, &local);
      pose_mul (&local, &self->pre, &self->pre);
    }

  /* DH lengths from the offsets of the zero pose (joint i turns through o_{i-1}). */
  self->d1 = skeleton->joints[self->joint[1]].offset[2];
  self->a2 = skeleton->joints[self->joint[2]].offset[0];
  self->a3 = skeleton->joints[self->joint[3]].offset[0];
  self->d4 = -skeleton->joints[self->joint[4]].offset[1];
  self->d5 = -skeleton->joints[self->joint[5]].offset[2];
  self->d6 = -skeleton->joints[self->joint[6]].offset[1];
  if (fabs (self->a2) < 1e-6 || fabs (self->a3) < 1e-6 || fabs (self->d6) < 1e-6)
    return fail (log, log_data, "the arm's link lengths do not fit the UR structure.");

  {
    static const double zero[N_JOINTS] = { 0 };

    dh_fk (self, zero, &dh0);
    chain_fk (self, zero, &chain0);
    mat_transpose (dh0.r, r06t);
    mat_mul (r06t, chain0.r, self->k);
  }

  /* The model must be this DH chain at every pose, not only at zero. */
  for (int t = 0; t < 16; t++)
    {
      double q6[N_JOINTS];
      Pose dh, chain;

      for (int i = 0; i < N_JOINTS; i++)
        q6[i] = sin (1.7 * t + 2.3 * i + 0.4) * 3.0;
      dh_fk (self, q6, &dh);
      mat_mul (dh.r, self->k, dh.r);
      chain_fk (self, q6, &chain);
      if (pose_distance (&dh, &chain) > CHECK_TOLERANCE)
        return fail (log, log_data,
                     "the model's kinematics do not match a UR-type DH chain "
                     "(axes or offsets differ).");
    }
  return 1;
}

static int
ur5_covers (const void *instance,
            int         base,
            int         end)
{
  const UR5 *self = instance;

  return end == self->joint[N_JOINTS] &&
         (base == self->parent || (base == -1 && self->pre_fixed));
}

static unsigned
ur5_get_n_configurations (const void *instance,
                          int         base,
                          int         end)
{
  return N_CONFIGS;
}

static const char *
ur5_get_configuration_name (const void *instance,
                            int         base,
                            int         end,
                            unsigned    index)
{
  return index < N_CONFIGS ? config_names[index] : NULL;
}

static double
wrap (double a)
{
  a = fmod (a, 2.0 * M_PI);
  if (a > M_PI)
    a -= 2.0 * M_PI;
  else if (a < -M_PI)
    a += 2.0 * M_PI;
  return a;
}

/* The value a + 2πk nearest to seed within [lower, upper]; 0 when there is none. */
static int
unwrap (double  a,
        double  seed,
        double  lower,
        double  upper,
        double *out)
{
  double best = 0.0;
  int found = 0;
  double base = a + 2.0 * M_PI * nearbyint ((seed - a) / (2.0 * M_PI));

  for (int k = -2; k <= 2; k++)
    {
      double v = base + 2.0 * M_PI * k;

      if (v < lower - 1e-12 || v > upper + 1e-12)
        continue;
      if (!found || fabs (v - seed) < fabs (best - seed))
        best = v, found = 1;
    }
  if (found)
    *out = fmin (fmax (best, lower), upper);
  return found;
}

/*
 * All 8 solutions for the flange pose t (DH frame). valid[c] says which exist; sol in
 * radians wrapped to (−π, π]. q6_seed is used on the wrist singularity.
 */
static void
solve_all (const UR5  *self,
           const Pose *t,
           double      q6_seed,
           double      sol[N_CONFIGS][N_JOINTS],
           int         valid[N_CONFIGS])
{
  const double *T = t->r;
  double T00 = T[0], T01 = T[1], T02 = T[2], T03 = t->p[0];
  double T10 = T[3], T11 = T[4], T12 = T[5], T13 = t->p[1];
  double T20 = T[6], T21 = T[7], T22 = T[8], T23 = t->p[2];
  double d1 = self->d1, a2 = self->a2, a3 = self->a3, d4 = self->d4, d5 = self->d5;
  double d6 = self->d6;
  double A = d6 * T12 - T13;
  double B = d6 * T02 - T03;
  double R = A * A + B * B;
  double q1[2];

  for (int c = 0; c < N_CONFIGS; c++)
    valid[c] = 0;
  if (R < ZERO || fabs (d4) > sqrt (R) * (1.0 + 1e-12))
    return;
  {
    double ac = acos (fmin (1.0, fmax (-1.0, d4 / sqrt (R))));
    double at = atan2 (-B, A);

    q1[0] = wrap (ac + at);
    q1[1] = wrap (-ac + at);
  }

  for (int i = 0; i < 2; i++)
    {
      double c1 = cos (q1[i]), s1 = sin (q1[i]);
      double numer = T03 * s1 - T13 * c1 - d4;
      double c5 = numer / d6;
      double q5[2];

      if (fabs (c5) > 1.0 + 1e-9)
        continue;
      c5 = fmin (1.0, fmax (-1.0, c5));
      q5[0] = acos (c5);
      q5[1] = -q5[0];

      for (int j = 0; j < 2; j++)
        {
          double s5 = sin (q5[j]);
          double q6, c6, s6, x04x, x04y, p13x, p13y, c3;

          if (fabs (s5) < 1e-10)
            q6 = q6_seed;
          else
            q6 = atan2 ((s5 > 0 ? -1.0 : 1.0) * (T01 * s1 - T11 * c1),
                        (s5 > 0 ? 1.0 : -1.0) * (T00 * s1 - T10 * c1));
          c6 = cos (q6);
          s6 = sin (q6);
          c5 = cos (q5[j]);
          x04x = -s5 * (T02 * c1 + T12 * s1) - c5 * (s6 * (T01 * c1 + T11 * s1) -
                                                    c6 * (T00 * c1 + T10 * s1));
          x04y = c5 * (T20 * c6 - T21 * s6) - T22 * s5;
          p13x = d5 * (s6 * (T00 * c1 + T10 * s1) + c6 * (T01 * c1 + T11 * s1)) -
                 d6 * (T02 * c1 + T12 * s1) + T03 * c1 + T13 * s1;
          p13y = T23 - d1 - d6 * T22 + d5 * (T21 * c6 + T20 * s6);
          c3 = (p13x * p13x + p13y * p13y - a2 * a2 - a3 * a3) / (2.0 * a2 * a3);
          if (fabs (c3) > 1.0 + 1e-9)
            continue;
          c3 = fmin (1.0, fmax (-1.0, c3));

          for (int k = 0; k < 2; k++)
            {
              double q3 = k == 0 ? acos (c3) : -acos (c3);
              double s3 = sin (q3);
              double q2 = atan2 ((a2 + a3 * c3) * p13y - a3 * s3 * p13x,
                                 (a2 + a3 * c3) * p13x + a3 * s3 * p13y);
              double c23 = cos (q2 + q3), s23 = sin (q2 + q3);
              double q4 = atan2 (c23 * x04y - s23 * x04x, x04x * c23 + x04y * s23);
              int c = i * 4 + j * 2 + k;

              sol[c][0] = q1[i];
              sol[c][1] = wrap (q2);
              sol[c][2] = wrap (q3);
              sol[c][3] = wrap (q4);
              sol[c][4] = wrap (q5[j]);
              sol[c][5] = wrap (q6);
              valid[c] = 1;
            }
        }
    }
}

static void
target_to_dh (const UR5    *self,
              int           base,
              const double  pos[3],
              const double  rot[9],
              Pose         *out)
{
  Pose target;
  double kt[9];

  memcpy (target.r, rot, sizeof target.r);
  memcpy (target.p, pos, sizeof target.p);
  if (base == -1 && self->parent >= 0)
    {
      Pose pre_inv;

      pose_inverse (&self->pre, &pre_inv);
      pose_mul (&pre_inv, &target, &target);
    }
  /* tool0 rotation = R06 · k, so R06 = R · kᵀ. */
  mat_transpose (self->k, kt);
  mat_mul (target.r, kt, target.r);
  *out = target;
}

static int
ur5_solve (const void   *instance,
           int           base,
           int           end,
           const double  pos[3],
           const double  rot[9],
           int           configuration,
           double       *q)
{
  const UR5 *self = instance;
  double sol[N_CONFIGS][N_JOINTS];
  double cand[N_CONFIGS][N_JOINTS];
  double dist[N_CONFIGS];
  double best_q[N_JOINTS];
  int valid[N_CONFIGS];
  int best = -1;
  Pose t;

  if (!ur5_covers (instance, base, end) || configuration < -1 || configuration >= N_CONFIGS)
    return -1;
  target_to_dh (self, base, pos, rot, &t);
  solve_all (self, &t, q[self->dof[5]], sol, valid);

  for (int c = 0; c < N_CONFIGS; c++)
    {
      double d = 0.0;
      int ok = valid[c] && (configuration < 0 || configuration == c);

      for (int i = 0; ok && i < N_JOINTS; i++)
        {
          double seed = q[self->dof[i]];

          ok = unwrap (sol[c][i], seed, self->lower[i], self->upper[i], &cand[c][i]);
          d += (cand[c][i] - seed) * (cand[c][i] - seed);
        }
      dist[c] = ok ? d : HUGE_VAL;
    }
  /* Nearest first; reject what the limits or a near-singular pose spoiled. */
  for (int tries = 0; tries < N_CONFIGS && best < 0; tries++)
    {
      int c = -1;
      Pose check;

      for (int k = 0; k < N_CONFIGS; k++)
        if (dist[k] < HUGE_VAL && (c < 0 || dist[k] < dist[c]))
          c = k;
      if (c < 0)
        break;
      dh_fk (self, cand[c], &check);
      if (pose_distance (&check, &t) <= SOLVE_TOLERANCE)
        {
          best = c;
          memcpy (best_q, cand[c], sizeof best_q);
        }
      dist[c] = HUGE_VAL;
    }
  if (best < 0)
    return -1;
  for (int i = 0; i < N_JOINTS; i++)
    q[self->dof[i]] = best_q[i];
  return best;
}

static int
ur5_get_configuration (const void   *instance,
                       int           base,
                       int           end,
                       const double *q)
{
  const UR5 *self = instance;
  double q6[N_JOINTS];
  double sol[N_CONFIGS][N_JOINTS];
  int valid[N_CONFIGS];
  int found = -1;
  Pose t;

  if (!ur5_covers (instance, base, end))
    return -1;
  for (int i = 0; i < N_JOINTS; i++)
    q6[i] = q[self->dof[i]];
  dh_fk (self, q6, &t);
  solve_all (self, &t, q6[5], sol, valid);
  for (int c = 0; c < N_CONFIGS; c++)
    {
      int same = valid[c];

      for (int i = 0; same && i < N_JOINTS; i++)
        same = fabs (wrap (sol[c][i] - q6[i])) < 1e-6;
      if (same)
        {
          /* Two configurations with the same values: a singular pose. */
          if (found >= 0)
            return -1;
          found = c;
        }
    }
  return found;
}

static const KmBodyHandlerJointPathIface ur5_joint_path = {
  .struct_size = sizeof (KmBodyHandlerJointPathIface),
  .covers = ur5_covers,
  .get_n_configurations = ur5_get_n_configurations,
  .get_configuration_name = ur5_get_configuration_name,
  .solve = ur5_solve,
  .get_configuration = ur5_get_configuration,
};

static const KmBodyHandlerClass ur5_class = {
  .abi_version = KM_BODY_HANDLER_ABI_VERSION,
  .struct_size = sizeof (KmBodyHandlerClass),
  .name = "UR5AnalyticIkHandler",
  .instance_size = sizeof (UR5),
  .initialize = ur5_initialize,
  .joint_path = &ur5_joint_path,
};

KM_BODY_HANDLER_DEFINE (ur5_class)
