/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-ik"

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "km-ik.h"
#include "km-ik-srs.h"

/*
 * Inverse kinematics by damped least squares (Levenberg-Marquardt), double precision.
 *
 * Units: metres and radians. The error of a pose is e = (p_target - p, r) where r is the
 * world-frame rotation vector with R_target = exp([r]) · R. Rows are weighted by
 * position_weight and orientation_weight (metres per radian), so the merit is
 * E = ½ |W e|² in square metres.
 *
 * One iteration: forward kinematics along the path from the base to the effector gives the
 * 6 × n Jacobian J (n = the path's DOFs, a few dozen at most); the step is
 * dq = Jᵀ (J Jᵀ + λ I)⁻¹ W e, a 6 × 6 Cholesky solve whatever n is. The damping
 * λ = μ (E + w̄) follows Sugihara (2011): large far away (robust), w̄ near the solution
 * (fast), and μ grows whenever a step would increase E (the step is then rejected).
 *
 * Joint limits are exact: every trial q is projected into the limits, and a 1-DOF joint that
 * sits on a limit and is pushed outwards is taken out of the step (its column zeroed) and the
 * step is recomputed, so the remaining joints do the work. A spherical joint moves by a
 * rotation-vector increment in its own frame (three orthonormal Jacobian columns, so no
 * gimbal lock in the solver) and is converted back to the euler XYZ angles nearest to the
 * previous ones that respect the per-axis limits.
 *
 * Convergence: position error ≤ position_tolerance and rotation error ≤
 * orientation_tolerance (position only when orientation_weight is 0). An attempt stalls when
 * μ explodes or E stops shrinking; the solver then restarts from a random configuration
 * within the limits (a PRNG seeded from random_seed: same input, same output), at most
 * max_restarts times and half of max_iterations (the first three restarts stay within
 * 0.1-0.3 rad of the seed, for continuity along a trajectory). When nothing converges (an
 * unreachable target, or a chain with fewer than six DOF), the rest of the budget goes to
 * the attempt with the least weighted error: a patient descent, then position priority
 * (position by DLS, orientation in the null space of the position task), then position
 * alone if a limit blocked it. The answer is the closest reachable pose found, with honest
 * residuals, never NaN.
 *
 * Linked (mimic) joints, q_f = ratio · q_m + offset: a follower is no variable of its own.
 * Its Jacobian column is folded into its master's (J_m += ratio · J_f) and it never joins a
 * step; every trial configuration sets it from its master (a follower whose master is off
 * the path keeps its seed value). A master's range is narrowed so that each of its
 * followers, on the path or not, stays within its own limits (mimic_range), and the answer
 * goes through km_skeleton_apply_mimic(), so the coupling holds exactly.
 *
 * Redundant chains (more active DOFs than task rows) also get a small null-space pull of
 * joints in the outer quarters of their range back inwards while the error is between
 * 0.1 mm and 5 cm, which keeps warm-started trajectories away from their limits.
 *
 * Motions (continuous: the seed is the previous frame's answer) keep to the seed's branch.
 * The warm descent comes first; when it stalls, the same from the seed in short steps (at
 * most CONT_MAX_STEP per joint and iteration, a trust region), then sub-targets from the
 * seed's pose, for a revolute joint with more than a turn of range that ran into its limit
 * the same pose a turn further inside, restarts near the seed, the position-priority fit;
 * far restarts last. A converged answer that moved a joint more than CONT_JUMP is kept only
 * until one nearer to the seed converges. A chain with fewer than six DOFs whose seed
 * misses the orientation by far more than one frame explains (CONT_UNREACHED) follows the
 * best fit from the seed: position met, then orientation steps in the null space of the
 * position, each joint within CONT_FIT_RADIUS of the seed (where the fit has two local
 * optima the motion stays on the seed's and slides, never jumps), until a step gains less
 * than CONT_FIT_STALL; a short descent checks whether the orientation has come back in
 * reach. No restarts there: they cannot find an orientation that does not exist.
 *
 * Building with -DKM_IK_TRACE prints, for every motion frame, the stage that produced the
 * answer, its largest joint motion from the seed, the seed's distance to the nearest limit
 * and the smallest singular value of the weighted Jacobian at the seed and at the answer
 * (on stderr, lines starting with IKTRACE).
 *
 * Nothing is allocated per iteration: the per-solve workspace lives on the stack for paths
 * of up to KM_IK_STACK_DOF DOFs and is allocated once per solve beyond that.
 */

#define KM_IK_STACK_DOF     32
#define KM_IK_STACK_JOINTS  64
#define W_BAR               1e-9   /* floor of the damping, m² */
#define EULER_AT_LIMIT      1e-6   /* rad: a spherical angle this near its limit is on it */
#define MU_MAX              1e8
#define STEP_ERROR_MAX      1.0    /* the step sees at most this weighted error, m */
#define ATTEMPT_ITERATIONS  60     /* a local attempt that needs more is stalled */
#define PRIORITY_ITERATIONS 100  /* outer iterations of the orientation fit */
#define REFINE_ITERATIONS   200
#define FIT_STARTS          4    /* local minima of the restarts the orientation fit starts from */
#define FIT_STARTS_APART    0.1  /* rad or m: minima nearer than this are one */
#define WRAP_GAP            0.05 /* rad: a range this near a whole turn nearly wraps */
#define NULL_RADIUS         0.05   /* m: the null-space pull acts only this close */
#define NULL_FLOOR          1e-4   /* m: and stops here, so convergence stays fast */
#define NULL_GAIN           0.2    /* per iteration, of the excursion past the quarter */
#define CONT_JUMP           0.5    /* rad or m: a motion's answer moved no joint further */
#define CONT_MAX_STEP       0.2    /* rad or m: a motion's largest joint step per iteration */
#define CONT_UNREACHED      0.2    /* rad: a seed missing the orientation by more had missed it */
#define CONT_FIT_RADIUS     0.25   /* rad or m: a motion's fit moves no joint further per frame */
#define CONT_FIT_STALL      1e-6   /* relative orientation gain that ends a motion's fit */
#define CONT_REACH_ITERS    6      /* a fit's quick check that the orientation is back in reach */
#define MOMENTUM_GAIN       0.5    /* a trajectory extrapolates half the last frame's step */

G_DEFINE_QUARK (km-ik-error-quark, km_ik_error)

typedef struct
{
  KmJointType type;
  gboolean    has_frame;
  KmMat3      frame;
  KmVec3      offset;
  KmVec3      axis;
  int         var;            /* first path variable, -1 when the joint has no DOF */
} PathJoint;

typedef struct
{
  const KmIkProblem *problem;
  KmTransform        prefix;  /* world pose of the parent of path[0] */
  KmTransform        target;
  PathJoint         *path;
  guint              n_path;
  guint              n_var;
  guint              n_rows;  /* 6, or 3 when position only */
  int               *var_dof; /* full DOF index of every path variable */
  double            *lo, *hi;
  /* Per variable, filled by forward kinematics: a world axis and a world point. */
  KmVec3            *axis_w;
  KmVec3            *point_w;
  gboolean          *is_rot;
  double            *col;     /* n_var × 6 weighted Jacobian columns */
  gboolean          *active;
  gboolean          *held;    /* the orientation fit keeps these free on their limit */
  double            *grad;    /* the orientation fit's projected gradient, per variable */
  gboolean          *single;  /* a revolute or prismatic variable (not a spherical angle) */
  gboolean          *euler;   /* spherical angles whose columns are euler rates (see path_fk) */
  gboolean          *euler_fk;/* the same, as the last path_fk found it */
  /* Linked (mimic) joints: m_lead is the master's path variable, -1 for a free variable,
   * -2 for a follower whose master is off the path (a constant); the follower's value is
   * m_ratio · master + m_offset (m_offset alone for a constant). */
  int               *m_lead;
  double            *m_ratio, *m_offset;
  gboolean           has_mimic;
  double            *q, *q_trial, *q_best, *dq, *q_save, *q_ref;
  double             wp, wo;
  gboolean           pull;    /* the null-space pull away from the limits is allowed */
  double             pos_scale; /* of the position tolerance, for convergence */
  gboolean           euler_ok;  /* spherical angles on a limit may use euler-rate columns */
  gboolean           keep_branch; /* a spherical joint never jumps to its other euler branch */
  double             max_step;  /* largest |dq| of one iteration; 0 = unbounded */
  const double      *anchor;    /* a motion's orientation fit stays near this (the seed) */
  double             fit_stall; /* relative rotation gain that ends the orientation fit */
  guint64            rng;
  guint              iterations;
  GCancellable      *cancellable;
  gboolean           cancelled;
#ifdef KM_IK_TRACE
  const char        *stage;   /* which stage produced the answer */
#endif
} Work;

#ifdef KM_IK_TRACE
#define TRACE_STAGE(s) (w.stage = (s))
#else
#define TRACE_STAGE(s) ((void) 0)
#endif

typedef struct
{
  double pos_err;
  double rot_err;
  double merit;               /* weighted error norm, m */
} Eval;

static double
safe_norm3 (KmVec3 v)
{
  double m = MAX (fabs (v.x), MAX (fabs (v.y), fabs (v.z)));

  if (!(m > 0.0))
    return 0.0;
  if (!isfinite (m))
    return G_MAXDOUBLE;
  v = km_vec3_scale (v, 1.0 / m);
  return m * sqrt (km_vec3_dot (v, v));
}

static guint64
rng_next (guint64 *state)
{
  /* splitmix64 */
  guint64 z = (*state += G_GUINT64_CONSTANT (0x9e3779b97f4a7c15));

  z = (z ^ (z >> 30)) * G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * G_GUINT64_CONSTANT (0x94d049bb133111eb);
  return z ^ (z >> 31);
}

static double
rng_uniform (guint64 *state)
{
  return (rng_next (state) >> 11) * (1.0 / 9007199254740992.0);
}

static double
wrap_near (double x,
           double ref)
{
  return x + 2 * G_PI * nearbyint ((ref - x) / (2 * G_PI));
}

static double
limit_violation (double x,
                 double lo,
                 double hi)
{
  return x < lo ? lo - x : x > hi ? x - hi : 0.0;
}

/* The euler XYZ angles of @m nearest to @e (in and out), preferring the branch that
 * respects the limits unless @keep_branch (then the nearest, clamped); continuous through
 * gimbal lock, where only a ± c is defined. */
static void
euler_nearest (const KmMat3 *m,
               double       *e,
               const double *lo,
               const double *hi,
               gboolean      keep_branch)
{
  double sb = CLAMP (m->m[0][2], -1.0, 1.0);
  double cb = hypot (m->m[0][0], m->m[0][1]);
  double cand[2][3];
  double best_cost = INFINITY;
  int best = 0;

  if (cb > 1e-9)
    {
      double a = atan2 (-m->m[1][2], m->m[2][2]);
      double b = atan2 (sb, cb);
      double c = atan2 (-m->m[0][1], m->m[0][0]);

      cand[0][0] = a, cand[0][1] = b, cand[0][2] = c;
      cand[1][0] = a + G_PI, cand[1][1] = G_PI - b, cand[1][2] = c + G_PI;
    }
  else
    {
      double s = atan2 (m->m[1][0], m->m[1][1]);
      double a = e[0];

      /* b = +π/2: a + c = s;  b = -π/2: c - a = s. */
      cand[0][0] = a, cand[0][1] = sb > 0 ? G_PI_2 : -G_PI_2;
      cand[0][2] = sb > 0 ? s - a : s + a;
      memcpy (cand[1], cand[0], sizeof cand[0]);
    }

  for (int k = 0; k < 2; k++)
    {
      double cost = 0.0, viol = 0.0;

      for (int i = 0; i < 3; i++)
        {
          cand[k][i] = wrap_near (cand[k][i], e[i]);
          cost += (cand[k][i] - e[i]) * (cand[k][i] - e[i]);
          viol += limit_violation (cand[k][i], lo[i], hi[i]);
        }
      if (!keep_branch)
        cost += 1e6 * viol;
      if (cost < best_cost)
        {
          best_cost = cost;
          best = k;
        }
    }
  for (int i = 0; i < 3; i++)
    e[i] = CLAMP (cand[best][i], lo[i], hi[i]);
}

static inline void
mat3_mul_into (const KmMat3 *a,
               const KmMat3 *b,
               KmMat3       *out)
{
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++)
      out->m[r][c] = a->m[r][0] * b->m[0][c] + a->m[r][1] * b->m[1][c] + a->m[r][2] * b->m[2][c];
}

/* Forward kinematics along the path; fills the per-variable axes and points. */
static void
path_fk (Work         *w,
         const double *q,
         KmTransform  *eff)
{
  KmTransform t = w->prefix;

  for (guint k = 0; k < w->n_path; k++)
    {
      const PathJoint *pj = &w->path[k];
      KmMat3 r, motion;

      t.pos = km_transform_apply (&t, pj->offset);
      if (pj->has_frame)
        mat3_mul_into (&t.rot, &pj->frame, &r);
      else
        r = t.rot;

      switch (pj->type)
        {
        case KM_JOINT_REVOLUTE:
          w->axis_w[pj->var] = km_mat3_mul_vec3 (&r, pj->axis);
          w->point_w[pj->var] = t.pos;
          km_mat3_from_axis_angle (pj->axis, q[pj->var], &motion);
          mat3_mul_into (&r, &motion, &t.rot);
          break;
        case KM_JOINT_PRISMATIC:
          w->axis_w[pj->var] = km_mat3_mul_vec3 (&r, pj->axis);
          w->point_w[pj->var] = t.pos;
          t.pos = km_vec3_add (t.pos, km_vec3_scale (w->axis_w[pj->var], q[pj->var]));
          t.rot = r;
          break;
        case KM_JOINT_SPHERICAL:
          {
            const double *e = &q[pj->var];
            gboolean on_limit = FALSE;

            km_mat3_from_euler_xyz (km_vec3 (e[0], e[1], e[2]), &motion);
            mat3_mul_into (&r, &motion, &t.rot);
            for (int i = 0; i < 3 && w->euler_ok; i++)
              on_limit |= e[i] <= w->lo[pj->var + i] + EULER_AT_LIMIT
                          || e[i] >= w->hi[pj->var + i] - EULER_AT_LIMIT;
            if (on_limit)
              {
                /* An angle on its limit (or a hair inside, where a body-axis step would
                 * carry it through and be clamped back), in the position-priority fit:
                 * the columns are the euler rates (x, then y after Rx, then z after
                 * Rx·Ry), so that the limit joins the active set like a revolute joint's.
                 * Elsewhere the body axes, free of gimbal lock, whose steps may also
                 * switch to the other euler branch (which the free descent uses to get
                 * out of a limit). */
                KmMat3 rx, rxy, ry;

                km_mat3_from_axis_angle (km_vec3 (1, 0, 0), e[0], &rx);
                km_mat3_from_axis_angle (km_vec3 (0, 1, 0), e[1], &ry);
                mat3_mul_into (&r, &rx, &rxy);
                w->axis_w[pj->var] = km_vec3 (r.m[0][0], r.m[1][0], r.m[2][0]);
                w->axis_w[pj->var + 1] = km_vec3 (rxy.m[0][1], rxy.m[1][1], rxy.m[2][1]);
                mat3_mul_into (&rxy, &ry, &rx);
                w->axis_w[pj->var + 2] = km_vec3 (rx.m[0][2], rx.m[1][2], rx.m[2][2]);
              }
            else
              for (int i = 0; i < 3; i++)
                w->axis_w[pj->var + i] = km_vec3 (t.rot.m[0][i], t.rot.m[1][i], t.rot.m[2][i]);
            for (int i = 0; i < 3; i++)
              {
                w->point_w[pj->var + i] = t.pos;
                w->euler_fk[pj->var + i] = on_limit;
              }
          }
          break;
        case KM_JOINT_FIXED:
        case KM_JOINT_FREE:
        default:
          t.rot = r;
          break;
        }
    }
  *eff = t;
}

static void
pose_error (const Work        *w,
            const KmTransform *eff,
            KmVec3            *ep,
            KmVec3            *er,
            Eval              *ev)
{
  *ep = km_vec3_sub (w->target.pos, eff->pos);
  *er = w->n_rows == 6 || ev != NULL ? km_mat3_rotation_error (&eff->rot, &w->target.rot)
                                     : KM_VEC3_ZERO;
  if (ev != NULL)
    {
      double a = safe_norm3 (*ep) * w->wp;
      double b = w->n_rows == 6 ? safe_norm3 (*er) * w->wo : 0.0;

      ev->pos_err = safe_norm3 (*ep);
      ev->rot_err = safe_norm3 (*er);
      ev->merit = hypot (a, b);
    }
}

static gboolean
eval_converged (const Work *w,
                const Eval *ev)
{
  const KmIkProblem *p = w->problem;

  return ev->pos_err <= p->position_tolerance * w->pos_scale &&
         (w->n_rows == 3 || ev->rot_err <= p->orientation_tolerance);
}

/* Position first; among equal positions (or positions within tolerance) the better rotation. */
static gboolean
eval_better (const Work *w,
             const Eval *a,
             const Eval *b)
{
  double tol = w->problem->position_tolerance;
  gboolean a_ok = a->pos_err <= tol, b_ok = b->pos_err <= tol;

  if (a_ok != b_ok)
    return a_ok;
  if (!a_ok && fabs (a->pos_err - b->pos_err) > 1e-12 * (1.0 + b->pos_err))
    return a->pos_err < b->pos_err;
  if (w->n_rows == 3)
    return a->pos_err < b->pos_err;
  return a->rot_err < b->rot_err;
}

/* Cholesky factor of the n × n SPD matrix a (n ≤ 6), in place; FALSE if not SPD. */
static gboolean
cholesky_factor (double a[6][6],
                 guint  n)
{
  for (guint j = 0; j < n; j++)
    {
      double d = a[j][j];

      for (guint k = 0; k < j; k++)
        d -= a[j][k] * a[j][k];
      if (!(d > 0.0) || !isfinite (d))
        return FALSE;
      d = sqrt (d);
      a[j][j] = d;
      for (guint i = j + 1; i < n; i++)
        {
          double s = a[i][j];

          for (guint k = 0; k < j; k++)
            s -= a[i][k] * a[j][k];
          a[i][j] = s / d;
        }
    }
  return TRUE;
}

static void
cholesky_solve (double  a[6][6],
                double *b,
                guint   n)
{
  for (guint i = 0; i < n; i++)
    {
      for (guint k = 0; k < i; k++)
        b[i] -= a[i][k] * b[k];
      b[i] /= a[i][i];
    }
  for (guint i = n; i-- > 0;)
    {
      for (guint k = i + 1; k < n; k++)
        b[i] -= a[k][i] * b[k];
      b[i] /= a[i][i];
    }
}

/* Weighted Jacobian columns (6 rows each) from the last path_fk. */
static void
build_columns (Work        *w,
               KmVec3       p_eff)
{
  for (guint v = 0; v < w->n_var; v++)
    {
      double *c = &w->col[v * 6];
      KmVec3 a = w->axis_w[v];

      w->euler[v] = w->euler_fk[v];
      if (w->is_rot[v])
        {
          KmVec3 lin = km_vec3_cross (a, km_vec3_sub (p_eff, w->point_w[v]));

          c[0] = lin.x * w->wp, c[1] = lin.y * w->wp, c[2] = lin.z * w->wp;
          c[3] = a.x * w->wo, c[4] = a.y * w->wo, c[5] = a.z * w->wo;
        }
      else
        {
          c[0] = a.x * w->wp, c[1] = a.y * w->wp, c[2] = a.z * w->wp;
          c[3] = c[4] = c[5] = 0.0;
        }
    }
  /* A follower moves with its master: its column joins the master's (never active itself). */
  if (w->has_mimic)
    for (guint v = 0; v < w->n_var; v++)
      if (w->m_lead[v] >= 0)
        for (int i = 0; i < 6; i++)
          w->col[w->m_lead[v] * 6 + i] += w->m_ratio[v] * w->col[v * 6 + i];
}

/* Sets every follower of @q from its master (or to its constant). */
static void
enforce_mimic (const Work *w,
               double     *q)
{
  if (!w->has_mimic)
    return;
  for (guint v = 0; v < w->n_var; v++)
    if (w->m_lead[v] >= 0)
      q[v] = w->m_ratio[v] * q[w->m_lead[v]] + w->m_offset[v];
    else if (w->m_lead[v] == -2)
      q[v] = w->m_offset[v];
}

/*
 * dq = Jᵀ (J Jᵀ + λ I)⁻¹ e over the active columns, rows 0..n_rows-1, plus, for redundant
 * chains, a null-space motion that pulls joints in the outer quarters of their range back
 * inwards (only undamped: with a large λ the projector is no longer one). That keeps a warm-started trajectory from drifting into its limits, where it
 * would lose the track.
 */
static gboolean
dls_step (Work         *w,
          const double *q,
          const double *e,
          double        lambda,
          gboolean      allow_null)
{
  double a[6][6] = { { 0 } };
  double y[6], u[6] = { 0 };
  guint m = w->n_rows, n_active = 0;
  gboolean use_null = FALSE;
  double e_norm = 0.0;

  for (guint i = 0; i < m; i++)
    e_norm += e[i] * e[i];
  e_norm = sqrt (e_norm);

  for (guint v = 0; v < w->n_var; v++)
    {
      const double *c = &w->col[v * 6];

      if (!w->active[v])
        continue;
      n_active++;
      for (guint i = 0; i < m; i++)
        for (guint j = 0; j <= i; j++)
          a[i][j] += c[i] * c[j];
    }
  for (guint i = 0; i < m; i++)
    {
      a[i][i] += lambda;
      for (guint j = 0; j < i; j++)
        a[j][i] = a[i][j];
      y[i] = e[i];
    }
  if (!cholesky_factor (a, m))
    return FALSE;
  cholesky_solve (a, y, m);

  if (allow_null && n_active > m && e_norm < NULL_RADIUS && e_norm > NULL_FLOOR)
    for (guint v = 0; v < w->n_var; v++)
      {
        double z = 0.0;

        if (w->active[v] && w->is_rot[v] && isfinite (w->hi[v] - w->lo[v]))
          {
            double mid = 0.5 * (w->lo[v] + w->hi[v]), quarter = 0.25 * (w->hi[v] - w->lo[v]);
            double d = q[v] - mid;

            if (d > quarter)
              z = -NULL_GAIN * (d - quarter);
            else if (d < -quarter)
              z = -NULL_GAIN * (d + quarter);
          }
        w->q_trial[v] = z;
        if (z != 0.0)
          {
            const double *c = &w->col[v * 6];

            use_null = TRUE;
            for (guint i = 0; i < m; i++)
              u[i] += c[i] * z;
          }
      }
  if (use_null)
    cholesky_solve (a, u, m);

  for (guint v = 0; v < w->n_var; v++)
    {
      const double *c = &w->col[v * 6];
      double s = 0.0;

      if (w->active[v])
        {
          for (guint i = 0; i < m; i++)
            s += c[i] * (y[i] - (use_null ? u[i] : 0.0));
          if (use_null)
            s += w->q_trial[v];
        }
      w->dq[v] = s;
    }
  return TRUE;
}

/* Applies dq to q into q_trial, projected into the limits. */
static void
apply_step (Work         *w,
            const double *q,
            const double *dq,
            double       *q_trial)
{
  for (guint k = 0; k < w->n_path; k++)
    {
      const PathJoint *pj = &w->path[k];
      int v = pj->var;

      if (v < 0)
        continue;
      if (pj->type == KM_JOINT_SPHERICAL && w->euler[v])
        {
          for (int i = 0; i < 3; i++)
            {
              double x = q[v + i] + dq[v + i];

              q_trial[v + i] = CLAMP (isfinite (x) ? x : q[v + i], w->lo[v + i], w->hi[v + i]);
            }
        }
      else if (pj->type == KM_JOINT_SPHERICAL)
        {
          KmMat3 r, inc, r2;
          KmVec3 d = km_vec3 (dq[v], dq[v + 1], dq[v + 2]);
          double angle = km_vec3_length (d);

          km_mat3_from_euler_xyz (km_vec3 (q[v], q[v + 1], q[v + 2]), &r);
          /* The increment is in world axes (the columns were R's columns); in the
           * joint's motion frame that is exp([d]) applied on the right of R. */
          if (angle > 1e-300 && isfinite (angle))
            {
              km_mat3_from_axis_angle (km_vec3_scale (d, 1.0 / angle), angle, &inc);
              mat3_mul_into (&r, &inc, &r2);
            }
          else
            r2 = r;
          memcpy (&q_trial[v], &q[v], 3 * sizeof (double));
          euler_nearest (&r2, &q_trial[v], &w->lo[v], &w->hi[v],
                         w->keep_branch || w->euler_ok);
        }
      else
        {
          double x = q[v] + dq[v];

          if (!isfinite (x))
            x = q[v];
          q_trial[v] = CLAMP (x, w->lo[v], w->hi[v]);
        }
    }
  enforce_mimic (w, q_trial);
}

/* Which 1-DOF columns sit on a limit with the step pushing outwards. */
static gboolean
freeze_blocked (Work         *w,
                const double *q)
{
  gboolean changed = FALSE;

  for (guint v = 0; v < w->n_var; v++)
    {
      if (!w->active[v] || w->held[v]
          || !(w->euler_ok ? w->single[v] || w->euler[v] : w->is_rot[v]))
        continue;
      if ((q[v] <= w->lo[v] && w->dq[v] < 0) || (q[v] >= w->hi[v] && w->dq[v] > 0))
        {
          w->active[v] = FALSE;
          changed = TRUE;
        }
    }
  return changed;
}

/* A trust region for motions: the step shrinks (keeping its direction) until no joint
 * moves more than max_step, so that a near-singular direction cannot throw the chain onto
 * another branch in one iteration. */
static void
bound_step (Work *w)
{
  double m = 0.0;

  if (!(w->max_step > 0))
    return;
  for (guint v = 0; v < w->n_var; v++)
    m = MAX (m, fabs (w->dq[v]));
  if (m > w->max_step)
    for (guint v = 0; v < w->n_var; v++)
      w->dq[v] *= w->max_step / m;
}

static void
error_vector (const Work *w,
              KmVec3      ep,
              KmVec3      er,
              double     *e)
{
  double n;

  e[0] = ep.x * w->wp, e[1] = ep.y * w->wp, e[2] = ep.z * w->wp;
  e[3] = er.x * w->wo, e[4] = er.y * w->wo, e[5] = er.z * w->wo;
  /* A target far out of reach only sets the direction; this keeps E finite and steps sane. */
  n = hypot (safe_norm3 (km_vec3 (e[0], e[1], e[2])), safe_norm3 (km_vec3 (e[3], e[4], e[5])));
  if (n > STEP_ERROR_MAX)
    for (int i = 0; i < 6; i++)
      e[i] *= STEP_ERROR_MAX / n;
}

static gboolean
tick (Work *w)
{
  w->iterations++;
  if (w->cancellable != NULL && g_cancellable_is_cancelled (w->cancellable))
    w->cancelled = TRUE;
  return !w->cancelled && w->iterations <= w->problem->max_iterations;
}

/* One local LM descent from w->q (in place). Returns the evaluation of the final w->q. */
static Eval
descend (Work     *w,
         guint     max_local,
         gboolean  patient)
{
  KmTransform eff;
  KmVec3 ep, er;
  Eval ev, trial;
  double e[6], mu = 1.0, last_check;
  guint local = 0;
  gboolean moved = TRUE;

  path_fk (w, w->q, &eff);
  pose_error (w, &eff, &ep, &er, &ev);
  last_check = ev.merit;

  while (!eval_converged (w, &ev) && local < max_local && tick (w))
    {
      double merit_c, lambda;
      guint v;

      local++;
      error_vector (w, ep, er, e);
      merit_c = 0.0;
      for (int i = 0; i < 6; i++)
        merit_c += e[i] * e[i];
      lambda = mu * (0.5 * merit_c + W_BAR);
      if (moved)
        build_columns (w, eff.pos);
      moved = FALSE;
      for (v = 0; v < w->n_var; v++)
        w->active[v] = w->m_lead[v] == -1;
      if (!dls_step (w, w->q, e, lambda, w->pull && mu <= 1.0))
        break;
      for (int round = 0; round < 3 && freeze_blocked (w, w->q); round++)
        if (!dls_step (w, w->q, e, lambda, w->pull && mu <= 1.0))
          break;
      bound_step (w);
      apply_step (w, w->q, w->dq, w->q_trial);

      {
        KmTransform eff_t;
        KmVec3 ep_t, er_t;

        path_fk (w, w->q_trial, &eff_t);
        pose_error (w, &eff_t, &ep_t, &er_t, &trial);
        if (trial.merit < ev.merit)
          {
            memcpy (w->q, w->q_trial, w->n_var * sizeof (double));
            eff = eff_t, ep = ep_t, er = er_t, ev = trial;
            mu = MAX (mu * 0.25, 1e-3);
            moved = TRUE;
          }
        else
          {
            /* The columns of w->q are still valid: retry with more damping. */
            mu *= 8.0;
            if (mu > MU_MAX)
              break;
          }
      }

      /* Slow progress means a local minimum or a limit wall: give up on this start. */
      if (local % 10 == 0)
        {
          if (ev.merit > (patient ? 1.0 - 1e-9 : 0.5) * last_check)
            break;
          last_check = ev.merit;
        }
    }
  return ev;
}

/* The largest joint motion between @q and @sp (path variables). */
static double
seed_distance (const Work   *w,
               const double *q,
               const double *sp)
{
  double d = 0.0;

  for (guint v = 0; v < w->n_var; v++)
    d = MAX (d, fabs (q[v] - sp[v]));
  return d;
}

/* 3 × 3 symmetric inverse by cofactors; FALSE when singular. */
static gboolean
inverse3 (double a[3][3],
          double inv[3][3])
{
  KmMat3 m;

  memcpy (m.m, a, sizeof m.m);
  if (!km_mat3_inverse (&m, &m))
    return FALSE;
  memcpy (inv, m.m, sizeof m.m);
  return TRUE;
}

/* The full evaluation (position and orientation) of w->q. */
static Eval
evaluate (Work *w)
{
  KmTransform eff;
  KmVec3 ep, er;
  Eval ev;

  path_fk (w, w->q, &eff);
  pose_error (w, &eff, &ep, &er, &ev);
  return ev;
}

/* Position alone from w->q (in place), without the null-space pull, which would fight the
 * orientation fit. Returns the full evaluation. */
static Eval
restore_position (Work  *w,
                  guint  max_local)
{
  guint rows = w->n_rows;
  gboolean pull = w->pull;

  /* Then a little further inside the tolerance (an iteration or two where the convergence
   * is quadratic), so that an independent forward kinematics agrees. */
  w->n_rows = 3;
  w->pull = FALSE;
  if (descend (w, max_local, TRUE).pos_err <= w->problem->position_tolerance)
    {
      w->pos_scale = 1e-3;
      descend (w, 3, TRUE);
    }
  w->n_rows = rows;
  w->pull = pull;
  w->pos_scale = 1.0;
  return evaluate (w);
}

/*
 * The orientation step in the null space of the position task, over the active columns:
 * dq = N (J₂N)ᵀ ((J₂N)(J₂N)ᵀ + λ I)⁻¹ e₂ with N = I - J₁ᵀ (J₁J₁ᵀ)⁻¹ J₁ (floored at W_BAR)
 * and λ = μ · trace/3. Rows 0-2 of the columns are position, 3-5 orientation. Every inverse
 * is 3 × 3. Returns the norm of the projected gradient (J₂N)ᵀ e₂, or -1 when singular;
 * w->grad holds its components, for every column.
 */
static double
null_step (Work         *w,
           const double *e2,
           double        mu)
{
  double a1[3][3] = { { 0 } }, in[3][3], c21[3][3] = { { 0 } }, b[3][3];
  double a2[3][3] = { { 0 } }, i2[3][3], y2[3], t1[3] = { 0 }, t2[3];
  double g2 = 0.0, lambda;

  for (guint v = 0; v < w->n_var; v++)
    {
      const double *c = &w->col[v * 6];

      if (!w->active[v])
        continue;
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
          {
            a1[i][j] += c[i] * c[j];
            c21[i][j] += c[3 + i] * c[j];
          }
    }
  for (int i = 0; i < 3; i++)
    a1[i][i] += W_BAR;
  if (!inverse3 (a1, in))
    return -1.0;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      b[i][j] = c21[i][0] * in[0][j] + c21[i][1] * in[1][j] + c21[i][2] * in[2][j];

  /* J₂N column by column; A₂ and the gradient (also of the frozen columns, for the
   * fit's test of which limits really hold). */
  for (guint v = 0; v < w->n_var; v++)
    {
      const double *c = &w->col[v * 6];
      double n[3], g = 0.0;

      for (int i = 0; i < 3; i++)
        {
          n[i] = c[3 + i] - (b[i][0] * c[0] + b[i][1] * c[1] + b[i][2] * c[2]);
          g += n[i] * e2[i];
        }
      w->grad[v] = g;
      if (!w->active[v])
        continue;
      g2 += g * g;
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
          a2[i][j] += n[i] * n[j];
    }
  lambda = mu * ((a2[0][0] + a2[1][1] + a2[2][2]) / 3.0 + 1e-12);
  for (int i = 0; i < 3; i++)
    a2[i][i] += lambda;
  if (!inverse3 (a2, i2))
    return -1.0;
  for (int i = 0; i < 3; i++)
    y2[i] = i2[i][0] * e2[0] + i2[i][1] * e2[1] + i2[i][2] * e2[2];

  for (guint v = 0; v < w->n_var; v++)
    {
      const double *c = &w->col[v * 6];
      double d = 0.0;

      if (w->active[v])
        for (int i = 0; i < 3; i++)
          d += (c[3 + i] - (b[i][0] * c[0] + b[i][1] * c[1] + b[i][2] * c[2])) * y2[i];
      w->dq[v] = d;
      for (int i = 0; i < 3; i++)
        t1[i] += c[i] * d;
    }
  /* Project once more (the step above is in the null space up to the floor). */
  for (int i = 0; i < 3; i++)
    t2[i] = in[i][0] * t1[0] + in[i][1] * t1[1] + in[i][2] * t1[2];
  for (guint v = 0; v < w->n_var; v++)
    {
      const double *c = &w->col[v * 6];

      if (w->active[v])
        w->dq[v] -= c[0] * t2[0] + c[1] * t2[1] + c[2] * t2[2];
    }
  return sqrt (g2);
}

/*
 * The orientation fit froze the joints its Gauss-Newton step pushed out through a limit.
 * That step is not the gradient: at a stationary point over the others, a frozen joint
 * whose gradient points back inside, by more than @threshold, is not held by its limit,
 * and the fit would stop short of the best one (away from a stationary point the gradient
 * says nothing about the limit). Holds such joints free from now on (the damping then
 * turns the step inwards); returns whether any was.
 */
static gboolean
release_pulled_inward (Work   *w,
                       double  threshold)
{
  gboolean released = FALSE;

  for (guint v = 0; v < w->n_var; v++)
    {
      if (w->active[v] || w->held[v] || w->m_lead[v] != -1)
        continue;
      if ((w->q[v] <= w->lo[v] && w->grad[v] > threshold)
          || (w->q[v] >= w->hi[v] && w->grad[v] < -threshold))
        {
          w->held[v] = TRUE;
          released = TRUE;
        }
    }
  return released;
}

/*
 * Position priority from w->q (in place): meet the position (position alone, with the
 * active set of the limits), then fit the orientation in what freedom is left. Each outer
 * iteration takes a damped orientation step in the null space of the position task (joints
 * on a limit and pushed outwards are taken out of it) and meets the position again from
 * there; the result is kept only when the position is met and the rotation error shrank.
 * It stops at the best fit: when the projected orientation gradient vanishes, or no step
 * gains any more. Needs n_rows == 6.
 */
static Eval
fit_priority (Work  *w,
              guint  max_outer)
{
  const double tol = w->problem->position_tolerance;
  Eval ev;
  double mu = 1e-3, threshold;
  guint outside = 0;

  memset (w->held, 0, w->n_var * sizeof (gboolean));
  w->euler_ok = TRUE;
  ev = restore_position (w, REFINE_ITERATIONS);
  if (ev.pos_err > tol)
    {
      w->euler_ok = FALSE;
      return ev;
    }

  for (guint it = 0; it < max_outer && !eval_converged (w, &ev) && !w->cancelled; it++)
    {
      KmTransform eff;
      KmVec3 ep, er;
      Eval trial;
      double e2[3], g = -1.0;

      path_fk (w, w->q, &eff);
      pose_error (w, &eff, &ep, &er, NULL);
      e2[0] = er.x * w->wo, e2[1] = er.y * w->wo, e2[2] = er.z * w->wo;
      build_columns (w, eff.pos);
      for (guint v = 0; v < w->n_var; v++)
        w->active[v] = w->m_lead[v] == -1;
      g = null_step (w, e2, mu);
      for (int round = 0; round < 3 && g >= 0 && freeze_blocked (w, w->q); round++)
        g = null_step (w, e2, mu);
      /* Stationary over the free joints (to a thousandth of its pull), a frozen joint
       * pulled back inside takes part again; else a stationary point of the orientation
       * on the position's manifold is the best fit. */
      threshold = 1e-2 * w->fit_stall * (1.0 + ev.rot_err * w->wo);
      if (g >= 0 && release_pulled_inward (w, MAX (threshold, 1e3 * g)))
        continue;
      if (!(g > threshold))
        break;

      memcpy (w->q_save, w->q, w->n_var * sizeof (double));
      bound_step (w);
      apply_step (w, w->q_save, w->dq, w->q);
      trial = restore_position (w, 30);
      if (w->anchor != NULL && seed_distance (w, w->q, w->anchor) > CONT_FIT_RADIUS)
        {
          /* Out of a motion's trust region: shorter steps, and at its edge the next frame
           * goes on from here. */
          memcpy (w->q, w->q_save, w->n_var * sizeof (double));
          mu *= 8.0;
          if (++outside > 3)
            break;
          continue;
        }
      if (w->anchor != NULL && trial.pos_err <= tol &&
          ev.rot_err - trial.rot_err <= w->fit_stall * (1.0 + ev.rot_err))
        {
          /* A motion: no gain worth another step. */
          if (trial.rot_err < ev.rot_err)
            ev = trial;
          else
            memcpy (w->q, w->q_save, w->n_var * sizeof (double));
          break;
        }
      if (trial.pos_err <= tol && trial.rot_err < ev.rot_err)
        {
          gboolean stalled = ev.rot_err - trial.rot_err <= w->fit_stall * (1.0 + ev.rot_err);

          ev = trial;
          mu = MAX (mu * 0.25, 1e-9);
          if (stalled)
            break;
        }
      else
        {
          memcpy (w->q, w->q_save, w->n_var * sizeof (double));
          mu *= 8.0;
          if (mu > 1e6)
            break;
        }
    }
  memset (w->held, 0, w->n_var * sizeof (gboolean));
  w->euler_ok = FALSE;
  return ev;
}

static void
random_start (Work         *w,
              const double *seed,
              guint         attempt)
{
  /* The first restarts stay near the seed (continuity along a trajectory); then anywhere. */
  double spread = attempt <= 3 ? 0.1 * attempt : -1.0;

  for (guint v = 0; v < w->n_var; v++)
    {
      double lo = w->lo[v], hi = w->hi[v], u = rng_uniform (&w->rng);

      if (spread > 0)
        {
          w->q[v] = CLAMP (seed[v] + (2 * u - 1) * spread, lo, hi);
        }
      else if (isfinite (lo) && isfinite (hi))
        w->q[v] = lo + u * (hi - lo);
      else
        {
          /* Unlimited: a turn around the seed (angles) or ±1 m (prismatic). */
          double x = seed[v] + (2 * u - 1) * (w->is_rot[v] ? G_PI : 1.0);

          w->q[v] = CLAMP (x, lo, hi);
        }
    }
  enforce_mimic (w, w->q);
}

/* In a motion: w->q (evaluated as @ev) becomes the answer when it converged nearer to the
 * seed @sp than the answer so far (@best, @best_dist). */
static gboolean
keep_nearest (Work         *w,
              const Eval   *ev,
              const double *sp,
              Eval         *best,
              double       *best_dist)
{
  double d;

  if (!eval_converged (w, ev))
    return FALSE;
  d = seed_distance (w, w->q, sp);
  if (d >= *best_dist)
    return FALSE;
  *best = *ev;
  *best_dist = d;
  memcpy (w->q_best, w->q, w->n_var * sizeof (double));
  return TRUE;
}

static gboolean
target_is_finite (const KmTransform *t)
{
  if (!km_vec3_is_finite (t->pos))
    return FALSE;
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++)
      if (!isfinite (t->rot.m[r][c]))
        return FALSE;
  return TRUE;
}

static void
ensure_solution (KmIkSolution *out,
                 guint         n_dof)
{
  if (out->q == NULL || out->n_dof != n_dof)
    {
      g_free (out->q);
      out->q = g_new0 (double, MAX (n_dof, 1));
      out->n_dof = n_dof;
    }
}

#ifdef KM_IK_TRACE
/* Smallest singular value of the weighted 6 × n Jacobian at @q (Jacobi on J Jᵀ). */
static double
trace_sigma_min (Work         *w,
                 const double *q)
{
  KmTransform eff;
  double a[6][6] = { { 0 } }, m = INFINITY;

  path_fk (w, q, &eff);
  build_columns (w, eff.pos);
  for (guint v = 0; v < w->n_var; v++)
    for (int i = 0; i < 6; i++)
      for (int j = 0; j < 6; j++)
        a[i][j] += w->col[v * 6 + i] * w->col[v * 6 + j];
  for (int sweep = 0; sweep < 50; sweep++)
    for (int p = 0; p < 6; p++)
      for (int r = p + 1; r < 6; r++)
        {
          double th, c, sn;

          if (fabs (a[p][r]) < 1e-300)
            continue;
          th = 0.5 * atan2 (2 * a[p][r], a[r][r] - a[p][p]);
          c = cos (th), sn = sin (th);
          for (int k = 0; k < 6; k++)
            {
              double x = a[k][p], y = a[k][r];

              a[k][p] = c * x - sn * y, a[k][r] = sn * x + c * y;
            }
          for (int k = 0; k < 6; k++)
            {
              double x = a[p][k], y = a[r][k];

              a[p][k] = c * x - sn * y, a[r][k] = sn * x + c * y;
            }
        }
  for (int i = 0; i < 6; i++)
    m = MIN (m, a[i][i]);
  return sqrt (MAX (m, 0.0));
}

static void
trace_answer (Work         *w,
              const double *sp,
              const Eval   *best)
{
  double d = 0.0, margin = INFINITY;
  int dv = -1;

  for (guint v = 0; v < w->n_var; v++)
    {
      if (fabs (w->q_best[v] - sp[v]) > d)
        d = fabs (w->q_best[v] - sp[v]), dv = (int) v;
      margin = MIN (margin, MIN (sp[v] - w->lo[v], w->hi[v] - sp[v]));
    }
  g_printerr ("IKTRACE stage=%s dmax=%.3f var=%d seed_margin=%.3f seed_sigma=%.4f "
              "ans_sigma=%.4f pos=%.2e rot=%.2e it=%u\n",
              w->stage, d, dv, margin, trace_sigma_min (w, sp), trace_sigma_min (w, w->q_best),
              best->pos_err, best->rot_err, w->iterations);
}
#endif

/*
 * The range of the 1-DOF joint @m (its own limits, or unlimited) narrowed so that every
 * joint linked to it (mimic) stays within its own limits: for q_f = r · q_m + o that is
 * q_m within (limits_f − o) / r, rounded inwards so that the follower computed back from a
 * bound is inside. When no value satisfies them all, the master's own range.
 */
static void
mimic_range (const KmJoint *joints,
             guint          n_joints,
             int            m,
             double        *lo,
             double        *hi)
{
  const KmJoint *mj = &joints[m];
  double a = mj->limits[0].limited ? mj->limits[0].min : -INFINITY;
  double b = mj->limits[0].limited ? mj->limits[0].max : INFINITY;
  double own_a = a, own_b = b;

  for (guint t = 0; t < n_joints; t++)
    {
      const KmJoint *f = &joints[t];
      double r = f->mimic_ratio, o = f->mimic_offset, flo, fhi, x, y;

      if (f->mimic != m || !f->limits[0].limited || !(r != 0.0) || !isfinite (r))
        continue;
      flo = f->limits[0].min;
      fhi = f->limits[0].max;
      x = (flo - o) / r;
      y = (fhi - o) / r;
      if (x > y)
        {
          double tmp = x;

          x = y, y = tmp;
        }
      for (int i = 0; i < 8 && (r * x + o < flo || r * x + o > fhi); i++)
        x = nextafter (x, INFINITY);
      for (int i = 0; i < 8 && (r * y + o < flo || r * y + o > fhi); i++)
        y = nextafter (y, -INFINITY);
      a = MAX (a, x);
      b = MIN (b, y);
    }
  if (!(a <= b))
    a = own_a, b = own_b;
  *lo = a;
  *hi = b;
}

/* Solves for @target from @seed (n_dof values, may alias out->q). */
/*
 * The lowest local minima of a solve's restarts (their merit), at most FIT_STARTS of them
 * and FIT_STARTS_APART apart: where the pose cannot be met, the orientation fit starts
 * from each, since the lowest merit need not lie in the basin of the best fit (the merit
 * weighs position against orientation; the fit puts position first).
 */
typedef struct
{
  double q[FIT_STARTS][KM_IK_STACK_DOF];
  double merit[FIT_STARTS];
  guint  n;
} FitStarts;

static void
fit_starts_offer (FitStarts  *starts,
                  const Work *w,
                  double      merit)
{
  guint at = starts->n;

  if (w->n_var > KM_IK_STACK_DOF || !isfinite (merit))
    return;
  for (guint i = 0; i < starts->n; i++)
    if (seed_distance (w, w->q, starts->q[i]) < FIT_STARTS_APART)
      {
        if (merit >= starts->merit[i])
          return;
        /* The same minimum, lower: it moves up from its place. */
        memmove (&starts->q[i], &starts->q[i + 1], (starts->n - i - 1) * sizeof starts->q[0]);
        memmove (&starts->merit[i], &starts->merit[i + 1],
                 (starts->n - i - 1) * sizeof starts->merit[0]);
        starts->n--;
        break;
      }
  for (at = 0; at < starts->n && starts->merit[at] <= merit; at++)
    ;
  if (at >= FIT_STARTS)
    return;
  if (starts->n == FIT_STARTS)
    starts->n--;
  memmove (&starts->q[at + 1], &starts->q[at], (starts->n - at) * sizeof starts->q[0]);
  memmove (&starts->merit[at + 1], &starts->merit[at], (starts->n - at) * sizeof starts->merit[0]);
  memcpy (starts->q[at], w->q, w->n_var * sizeof (double));
  starts->merit[at] = merit;
  starts->n++;
}

static gboolean
solve_one (const KmIkProblem *p,
           const KmTransform *target,
           const double      *seed,
           guint64            random_seed,
           gboolean           continuous,
           KmIkSolution      *out,
           GCancellable      *cancellable,
           GError           **error)
{
  const KmSkeleton *skel = p->skeleton;
  const KmJoint *joints = km_skeleton_get_joints (skel);
  guint n_joints = km_skeleton_get_n_joints (skel);
  int stack_idx[KM_IK_STACK_JOINTS];
  PathJoint stack_path[KM_IK_STACK_JOINTS];
  double stack_d[KM_IK_STACK_DOF * 17];
  KmVec3 stack_v[KM_IK_STACK_DOF * 2];
  int stack_i[KM_IK_STACK_DOF * 8];
  g_autofree int *heap_idx = NULL;
  g_autofree PathJoint *heap_path = NULL;
  g_autofree double *heap_d = NULL;
  g_autofree KmVec3 *heap_v = NULL;
  g_autofree int *heap_i = NULL;
  int *idx;
  guint depth = 0, first = 0, n_var = 0, attempts = 0, n_same = 0, no_gain = 0;
  Work w = { 0 };
  Eval best, best_merit;
  double *q_merit;
  gboolean pos_met = FALSE;
  FitStarts fit_starts = { .n = 0 };

  ensure_solution (out, p->n_dof);
  if (out->q != seed)
    memcpy (out->q, seed, p->n_dof * sizeof (double));
  km_skeleton_clamp (skel, out->q);
  w.has_mimic = km_skeleton_has_mimic (skel);
  if (w.has_mimic)
    {
      /* Masters within the ranges that keep their followers within limits; then the
       * coupling exact. */
      for (guint t = 0; t < n_joints; t++)
        if (joints[t].mimic >= 0 && joints[t].mimic < (int) n_joints &&
            joints[joints[t].mimic].dof_index >= 0)
          {
            double lo, hi;
            int d = joints[joints[t].mimic].dof_index;

            mimic_range (joints, n_joints, joints[t].mimic, &lo, &hi);
            out->q[d] = CLAMP (out->q[d], lo, hi);
          }
      km_skeleton_apply_mimic (skel, out->q);
    }
  out->iterations = 0;
  out->restarts = 0;
  out->converged = FALSE;
  out->within_limits = TRUE;
  out->pos_err = out->rot_err = G_MAXDOUBLE;

  if (p->effector < 0 || (guint) p->effector >= n_joints ||
      p->base < -1 || p->base >= (int) n_joints)
    {
      g_set_error (error, KM_IK_ERROR, KM_IK_ERROR_INVALID,
                   _("the end effector or the base is not a joint of the skeleton"));
      return FALSE;
    }
  if (!target_is_finite (target) || !target_is_finite (&p->root_pose))
    {
      g_set_error (error, KM_IK_ERROR, KM_IK_ERROR_INVALID,
                   _("the target pose is not a finite number"));
      return FALSE;
    }

  /* The path: ancestors of the effector, root first. */
  for (int j = p->effector; j >= 0; j = joints[j].parent)
    depth++;
  idx = depth <= KM_IK_STACK_JOINTS ? stack_idx : (heap_idx = g_new (int, depth));
  {
    guint k = depth;

    for (int j = p->effector; j >= 0; j = joints[j].parent)
      idx[--k] = j;
  }
  if (p->base >= 0)
    {
      while (first < depth && idx[first] != p->base)
        first++;
      if (first == depth)
        {
          g_set_error (error, KM_IK_ERROR, KM_IK_ERROR_INVALID,
                       _("the base joint is not an ancestor of the end effector"));
          return FALSE;
        }
      first++;
    }

  w.problem = p;
  w.cancellable = cancellable;
  w.target = *target;
  w.wp = p->position_weight > 0 && isfinite (p->position_weight) ? p->position_weight : 1.0;
  w.wo = isfinite (p->orientation_weight) ? MAX (p->orientation_weight, 0.0) : 0.0;
  w.n_rows = w.wo > 0 ? 6 : 3;
  w.rng = random_seed;
  w.pull = TRUE;
  w.pos_scale = 1.0;
  w.keep_branch = continuous;
  w.fit_stall = 1e-10;

  w.prefix = p->root_pose;
  for (guint k = 0; k < first; k++)
    {
      const KmJoint *j = &joints[idx[k]];
      KmTransform local, tmp;

      km_joint_local_transform (j, j->dof_index >= 0 ? &out->q[j->dof_index] : NULL, &local);
      km_transform_mul (&w.prefix, &local, &tmp);
      w.prefix = tmp;
    }

  w.n_path = depth - first;
  for (guint k = first; k < depth; k++)
    n_var += joints[idx[k]].n_dof;
  w.n_var = n_var;
  if (w.n_path <= KM_IK_STACK_JOINTS && n_var <= KM_IK_STACK_DOF)
    {
      w.path = stack_path;
      w.col = stack_d;
      w.axis_w = stack_v;
      w.var_dof = stack_i;
    }
  else
    {
      w.path = heap_path = g_new (PathJoint, MAX (w.n_path, 1));
      w.col = heap_d = g_new (double, MAX (n_var, 1) * 17);
      w.axis_w = heap_v = g_new (KmVec3, MAX (n_var, 1) * 2);
      w.var_dof = heap_i = g_new (int, MAX (n_var, 1) * 8);
    }
  /* col: 6 per var; then lo, hi, q, q_trial, q_best, dq, q_save, q_ref, m_ratio,
   * m_offset, grad: 11 more. Ints: var_dof, is_rot, active, single, euler, euler_fk, m_lead,
   * held. */
  w.lo = w.col + 6 * n_var;
  w.hi = w.lo + n_var;
  w.q = w.hi + n_var;
  w.q_trial = w.q + n_var;
  w.q_best = w.q_trial + n_var;
  w.dq = w.q_best + n_var;
  w.q_save = w.dq + n_var;
  w.q_ref = w.q_save + n_var;
  w.m_ratio = w.q_ref + n_var;
  w.m_offset = w.m_ratio + n_var;
  w.grad = w.m_offset + n_var;
  w.point_w = w.axis_w + n_var;
  w.is_rot = w.var_dof + n_var;
  w.active = w.is_rot + n_var;
  w.single = w.active + n_var;
  w.euler = w.single + n_var;
  w.euler_fk = w.euler + n_var;
  w.m_lead = w.euler_fk + n_var;
  w.held = w.m_lead + n_var;
  memset (w.held, 0, n_var * sizeof (gboolean));

  {
    guint v = 0;

    for (guint k = 0; k < w.n_path; k++)
      {
        const KmJoint *j = &joints[idx[first + k]];
        PathJoint *pj = &w.path[k];

        pj->type = j->type;
        pj->has_frame = j->has_rotation;
        km_mat3_from_quat (j->rotation, &pj->frame);
        pj->offset = j->offset;
        pj->axis = j->axis;
        pj->var = j->n_dof > 0 ? (int) v : -1;
        for (guint d = 0; d < j->n_dof; d++, v++)
          {
            w.var_dof[v] = j->dof_index + (int) d;
            w.lo[v] = j->limits[d].limited ? j->limits[d].min : -INFINITY;
            w.hi[v] = j->limits[d].limited ? j->limits[d].max : INFINITY;
            w.is_rot[v] = j->type != KM_JOINT_PRISMATIC;
            w.single[v] = j->type == KM_JOINT_REVOLUTE || j->type == KM_JOINT_PRISMATIC;
            w.euler[v] = w.euler_fk[v] = FALSE;
            w.q[v] = out->q[w.var_dof[v]];
            w.m_lead[v] = -1;
            w.m_ratio[v] = 0.0;
            w.m_offset[v] = 0.0;
            if (w.has_mimic && w.single[v])
              mimic_range (joints, n_joints, idx[first + k], &w.lo[v], &w.hi[v]);
          }
      }
    /* Followers: with their master's path variable, or constant when it is off the path. */
    for (guint k = 0; w.has_mimic && k < w.n_path; k++)
      {
        const KmJoint *j = &joints[idx[first + k]];
        int fv = w.path[k].var;

        if (j->mimic < 0 || fv < 0 || j->n_dof != 1)
          continue;
        w.m_lead[fv] = -2;
        w.m_offset[fv] = w.q[fv];
        for (guint k2 = 0; k2 < w.n_path; k2++)
          if (idx[first + k2] == j->mimic && w.path[k2].var >= 0 &&
              joints[j->mimic].n_dof == 1 && joints[j->mimic].mimic < 0)
            {
              w.m_lead[fv] = w.path[k2].var;
              w.m_ratio[fv] = j->mimic_ratio;
              w.m_offset[fv] = j->mimic_offset;
            }
      }
    enforce_mimic (&w, w.q);
  }

  if (p->analytic != NULL)
    {
      g_autofree double *scratch = g_memdup2 (out->q, p->n_dof * sizeof (double));

      if (p->analytic (p, target, scratch, p->analytic_data))
        {
          km_skeleton_clamp (skel, scratch);
          for (guint v = 0; v < n_var; v++)
            w.q_trial[v] = CLAMP (scratch[w.var_dof[v]], w.lo[v], w.hi[v]);
          enforce_mimic (&w, w.q_trial);
          {
            KmTransform eff;
            KmVec3 ep, er;
            Eval ea, es;

            path_fk (&w, w.q, &eff);
            pose_error (&w, &eff, &ep, &er, &es);
            path_fk (&w, w.q_trial, &eff);
            pose_error (&w, &eff, &ep, &er, &ea);
            if (ea.merit <= es.merit)
              memcpy (w.q, w.q_trial, n_var * sizeof (double));
          }
        }
    }

  /* The seed's own path values, for restarts around it. */
  memcpy (w.q_best, w.q, n_var * sizeof (double));
  for (guint v = 0; v < n_var; v++)
    w.dq[v] = 0.0;
  {
    double seed_path[KM_IK_STACK_DOF];
    g_autofree double *seed_heap = NULL;
    double *sp = n_var <= KM_IK_STACK_DOF ? seed_path
                                          : (seed_heap = g_new (double, n_var));
    double merit_best_q[KM_IK_STACK_DOF];
    g_autofree double *merit_heap = NULL;
    gboolean restart = TRUE;

    q_merit = n_var <= KM_IK_STACK_DOF ? merit_best_q : (merit_heap = g_new (double, n_var));
    memcpy (sp, w.q, n_var * sizeof (double));
    best = best_merit = (Eval) { G_MAXDOUBLE, G_MAXDOUBLE, G_MAXDOUBLE };

    if (continuous)
      {
        /* A motion: answers near the seed's branch first. The warm descent (patiently when
         * it stalls, as near a singularity); continuation (sub-targets from the seed's pose
         * to the target, ever finer); restarts close to the seed; for a pose that cannot be
         * met, the best position-priority fit from the seed. Every step is bounded
         * (max_step), and a converged answer that jumped (a joint moved more than
         * CONT_JUMP) is kept only until a nearer one converges. Far restarts only when
         * nothing converged near, and then the converged answer nearest to the seed wins. */
        double best_dist = INFINITY;
        Eval ev;

        if (n_var < 6 && w.n_rows == 6)
          {
            /* Too few DOFs for every pose: when the seed misses the orientation by far
             * more than one frame of motion explains, the orientation has been out of
             * reach, and the motion follows the best fit (position met, orientation
             * gradient on the position's manifold zero) from the seed on; no restart can
             * find an orientation that does not exist. */
            KmTransform from;

            path_fk (&w, sp, &from);
            if (km_mat3_rotation_angle (&from.rot, &target->rot) > CONT_UNREACHED)
              {
                /* Continuity over the last digits of a fit that cannot be met anyway:
                 * the fit stays near the seed (where the fit has two branches, on the
                 * seed's), and stops when a step gains little. */
                w.anchor = sp;
                w.fit_stall = CONT_FIT_STALL;
                w.max_step = CONT_MAX_STEP;
                ev = fit_priority (&w, PRIORITY_ITERATIONS);
                w.anchor = NULL;
                w.fit_stall = 1e-10;
                w.max_step = 0.0;
                if (ev.pos_err <= p->position_tolerance && !w.cancelled)
                  {
                    best = ev;
                    TRACE_STAGE ("fit-first");
                    memcpy (w.q_best, w.q, n_var * sizeof (double));
                    if (!eval_converged (&w, &ev))
                      {
                        /* Unless the orientation has come back within reach: one quick
                         * descent (it stalls at once where it cannot be met). */
                        ev = descend (&w, CONT_REACH_ITERS, FALSE);
                        if (eval_converged (&w, &ev) && seed_distance (&w, w.q, sp) <= CONT_JUMP)
                          {
                            best = ev;
                            TRACE_STAGE ("fit-first-met");
                            memcpy (w.q_best, w.q, n_var * sizeof (double));
                          }
                      }
                    attempts = 1;
                    restart = FALSE;
                    goto motion_done;
                  }
                memcpy (w.q, sp, n_var * sizeof (double));
              }
          }
        ev = descend (&w, ATTEMPT_ITERATIONS, FALSE);
        if (!eval_converged (&w, &ev) && !w.cancelled)
          ev = descend (&w, REFINE_ITERATIONS, TRUE);
        if (!eval_converged (&w, &ev) && !w.cancelled)
          {
            /* Again from the seed in short steps (a trust region), which cannot be thrown
             * along a near-singular direction onto another branch or into a limit. */
            Eval unbounded = ev;

            memcpy (w.q_trial, w.q, n_var * sizeof (double));
            memcpy (w.q, sp, n_var * sizeof (double));
            w.max_step = CONT_MAX_STEP;
            ev = descend (&w, REFINE_ITERATIONS, TRUE);
            if (!eval_converged (&w, &ev) && !eval_better (&w, &ev, &unbounded))
              {
                memcpy (w.q, w.q_trial, n_var * sizeof (double));
                ev = unbounded;
              }
          }
        attempts = 1;
        best = best_merit = ev;
        TRACE_STAGE ("warm");
        memcpy (w.q_best, w.q, n_var * sizeof (double));
        memcpy (q_merit, w.q, n_var * sizeof (double));
        if (eval_converged (&w, &ev))
          best_dist = seed_distance (&w, w.q, sp);
        if (best_dist > CONT_JUMP && !w.cancelled)
          {
            KmTransform from;
            KmVec3 rv;
            double angle;

            path_fk (&w, sp, &from);
            rv = km_mat3_rotation_error (&from.rot, &target->rot);
            angle = safe_norm3 (rv);
            for (guint n_sub = 4; n_sub <= 64 && best_dist > CONT_JUMP && !w.cancelled;
                 n_sub *= 4)
              {
                memcpy (w.q, sp, n_var * sizeof (double));
                for (guint k = 1; k <= n_sub && !w.cancelled; k++)
                  {
                    double t = (double) k / n_sub;

                    w.target.pos = km_vec3_add (from.pos, km_vec3_scale (km_vec3_sub (target->pos, from.pos), t));
                    if (angle > 1e-12 && k < n_sub)
                      {
                        KmMat3 inc;

                        km_mat3_from_axis_angle (km_vec3_scale (rv, 1.0 / angle), t * angle, &inc);
                        mat3_mul_into (&inc, &from.rot, &w.target.rot);
                      }
                    else
                      w.target.rot = target->rot;
                    ev = descend (&w, ATTEMPT_ITERATIONS, FALSE);
                    if (!eval_converged (&w, &ev))
                      break;
                  }
                w.target = *target;
                ev = evaluate (&w);
                attempts++;
                if (keep_nearest (&w, &ev, sp, &best, &best_dist))
                  TRACE_STAGE ("subtargets");
              }
            if (best_dist > CONT_JUMP && !w.cancelled)
              {
                /* A revolute joint with more than a turn of range that ran into a limit:
                 * the same pose a turn further inside keeps every other joint continuous
                 * (and leaves the joint its full room). */
                gboolean wrapped = FALSE;

                memcpy (w.q, sp, n_var * sizeof (double));
                for (guint v = 0; v < n_var; v++)
                  if (w.single[v] && w.is_rot[v] && w.hi[v] - w.lo[v] > 2 * G_PI)
                    {
                      if (sp[v] - w.lo[v] < CONT_JUMP)
                        w.q[v] += 2 * G_PI, wrapped = TRUE;
                      else if (w.hi[v] - sp[v] < CONT_JUMP)
                        w.q[v] -= 2 * G_PI, wrapped = TRUE;
                    }
                if (wrapped)
                  {
                    enforce_mimic (&w, w.q);
                    /* Measured from the wrapped seed: the turn itself is no jump. */
                    memcpy (w.q_ref, w.q, n_var * sizeof (double));
                    ev = descend (&w, ATTEMPT_ITERATIONS, FALSE);
                    attempts++;
                    if (eval_converged (&w, &ev) && seed_distance (&w, w.q, w.q_ref) < best_dist)
                      {
                        best = ev;
                        best_dist = seed_distance (&w, w.q, w.q_ref);
                        memcpy (w.q_best, w.q, n_var * sizeof (double));
                        TRACE_STAGE ("wrap");
                      }
                  }
              }
            for (guint k = 1; k <= 3 && best_dist > CONT_JUMP && !w.cancelled; k++)
              {
                random_start (&w, sp, k);
                ev = descend (&w, ATTEMPT_ITERATIONS, FALSE);
                attempts++;
                if (keep_nearest (&w, &ev, sp, &best, &best_dist))
                  TRACE_STAGE ("near");
              }
            if (!eval_converged (&w, &best) && !w.cancelled && w.n_rows == 6)
              {
                /* From the seed itself: the weighted descent may have drifted to another
                 * branch, trading position for orientation. */
                memcpy (w.q, sp, n_var * sizeof (double));
                ev = fit_priority (&w, PRIORITY_ITERATIONS);
                /* Continuity first: it wins whenever it meets the position, even over a
                 * better orientation that the drifted descent found elsewhere. */
                if (ev.pos_err <= p->position_tolerance || eval_better (&w, &ev, &best))
                  {
                    best = ev;
                    TRACE_STAGE ("fit");
                    memcpy (w.q_best, w.q, n_var * sizeof (double));
                  }
              }
          }
        restart = best_dist > CONT_JUMP && !w.cancelled;
        if (restart)
          {
            /* Far restarts; only a converged answer nearer to the seed replaces the
             * current one. */
            guint n_conv = 0;
            Eval near = best;

            /* Free steps first; when nothing converges, the same starts in short steps. */
            for (guint pass = 0; pass < 2 && n_conv == 0 && !w.cancelled; pass++)
              {
                w.max_step = pass == 0 ? 0.0 : CONT_MAX_STEP;
                for (guint k = 0; k < (n_var < 6 ? 10u : 30u) && n_conv < 3 && !w.cancelled &&
                                  w.iterations < p->max_iterations; k++)
                  {
                    random_start (&w, sp, 4 + k);
                    ev = descend (&w, ATTEMPT_ITERATIONS, FALSE);
                    attempts++;
                    n_conv += eval_converged (&w, &ev);
                    if (keep_nearest (&w, &ev, sp, &best, &best_dist))
                      TRACE_STAGE ("far");
                  }
              }
            /* Nothing converged: the position must still be met when it can be. */
            restart = !eval_converged (&w, &best) && near.pos_err > p->position_tolerance &&
                      !w.cancelled;
            if (restart)
              random_start (&w, sp, 4);
          }
      motion_done:
        w.max_step = 0.0;
      }

    while (restart)
      {
        Eval ev = descend (&w, ATTEMPT_ITERATIONS, FALSE);

        if (attempts == 0 || eval_better (&w, &ev, &best))
          {
            if (attempts > 3 && fabs (ev.merit - best.merit) <= 1e-9 * (1 + best.merit))
              n_same++;
            best = ev;
            TRACE_STAGE ("fallback");
            memcpy (w.q_best, w.q, n_var * sizeof (double));
          }
        else if (attempts > 3 && fabs (ev.merit - best.merit) <= 1e-9 * (1 + best.merit))
          n_same++;
        if (ev.merit < best_merit.merit * (1 - 1e-6))
          no_gain = 0;
        else
          no_gain++;
        if (ev.merit < best_merit.merit)
          {
            best_merit = ev;
            memcpy (q_merit, w.q, n_var * sizeof (double));
          }
        fit_starts_offer (&fit_starts, &w, ev.merit);
        attempts++;
        if (ev.pos_err <= p->position_tolerance)
          pos_met = TRUE;
        if (eval_converged (&w, &best) || w.cancelled ||
            w.iterations >= p->max_iterations / 2 ||
            attempts > p->max_restarts || no_gain >= 30 ||
            (n_var < 6 && (n_same >= 3 || (pos_met && attempts > 30))))
          break;
        random_start (&w, sp, attempts);
      }

    /* A joint stopped on a limit that nearly meets its other limit a turn away (a range of
     * almost 2π, as ±3.14): the pose may lie just across that gap, which no descent crosses.
     * Once more from the other limit, the rest as it was. */
    for (guint v = 0; v < n_var && !continuous && !eval_converged (&w, &best) && !w.cancelled;
         v++)
      {
        double range = w.hi[v] - w.lo[v], other;
        Eval ev;

        if (!w.is_rot[v] || w.m_lead[v] != -1 || !(fabs (range - 2 * G_PI) < WRAP_GAP))
          continue;
        if (w.q_best[v] >= w.hi[v])
          other = w.lo[v];
        else if (w.q_best[v] <= w.lo[v])
          other = w.hi[v];
        else
          continue;
        memcpy (w.q, w.q_best, n_var * sizeof (double));
        w.q[v] = other;
        ev = descend (&w, ATTEMPT_ITERATIONS, FALSE);
        if (ev.merit < best_merit.merit)
          {
            best_merit = ev;
            memcpy (q_merit, w.q, n_var * sizeof (double));
          }
        if (eval_better (&w, &ev, &best))
          {
            best = ev;
            TRACE_STAGE ("wrap-gap");
            memcpy (w.q_best, w.q, n_var * sizeof (double));
          }
      }

    if (!eval_converged (&w, &best) && !w.cancelled && (!continuous || restart))
      {
        Eval ev;

        /* Out of reach, or orientation out of reach: converge patiently to the closest
         * pose, then meet the position and fit the orientation in what freedom is left. */
        memcpy (w.q, q_merit, n_var * sizeof (double));
        ev = descend (&w, REFINE_ITERATIONS, TRUE);
        if (w.n_rows == 6 && !w.cancelled)
          {
            Eval fit;

            ev = fit_priority (&w, PRIORITY_ITERATIONS);
            /* The position cannot be met from there: from random starts then; when it is
             * out of reach, the closest position wins (kept in q_merit meanwhile). */
            memcpy (q_merit, w.q, n_var * sizeof (double));
            for (guint k = 0; k < 8 && !w.cancelled && ev.pos_err > p->position_tolerance; k++)
              {
                random_start (&w, sp, 4);
                fit = fit_priority (&w, PRIORITY_ITERATIONS);
                if (eval_better (&w, &fit, &ev))
                  {
                    ev = fit;
                    memcpy (q_merit, w.q, n_var * sizeof (double));
                  }
              }
            /* The other low minima of the restarts, when the position is met: their fits
             * may reach a better orientation. */
            for (guint i = 1; i < fit_starts.n && !w.cancelled
                              && ev.pos_err <= p->position_tolerance; i++)
              {
                memcpy (w.q, fit_starts.q[i], n_var * sizeof (double));
                descend (&w, REFINE_ITERATIONS, TRUE);
                fit = fit_priority (&w, PRIORITY_ITERATIONS);
                if (eval_better (&w, &fit, &ev))
                  {
                    ev = fit;
                    memcpy (q_merit, w.q, n_var * sizeof (double));
                  }
              }
            memcpy (w.q, q_merit, n_var * sizeof (double));
          }
        if (eval_better (&w, &ev, &best))
          {
            best = ev;
            TRACE_STAGE ("refine");
            memcpy (w.q_best, w.q, n_var * sizeof (double));
          }
      }
#ifdef KM_IK_TRACE
    if (continuous)
      trace_answer (&w, sp, &best);
#endif
  }

  for (guint v = 0; v < n_var; v++)
    out->q[w.var_dof[v]] = w.q_best[v];
  /* Followers off the path move with their masters too. */
  km_skeleton_apply_mimic (skel, out->q);
  out->iterations = w.iterations;
  out->restarts = attempts > 0 ? attempts - 1 : 0;
  out->pos_err = best.pos_err;
  out->rot_err = best.rot_err;
  out->converged = eval_converged (&w, &best);
  out->within_limits = km_skeleton_within_limits (skel, out->q, 0.0);

  if (w.cancelled)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, _("The solve was cancelled"));
      return FALSE;
    }
  return TRUE;
}

/**
 * km_ik_problem_new:
 * @skeleton: the skeleton (a reference is taken)
 * @effector: topological index of the end effector, or -1 for the default effector
 *
 * A problem with the defaults: base = root, identity root pose, the target at the
 * effector's pose in the mid-range configuration, mid-range seed, the KM_IK_DEFAULT_*
 * tolerances, weights and budgets, random_seed 0, no analytic hook.
 *
 * Returns: (transfer full): a new problem
 */
KmIkProblem *
km_ik_problem_new (KmSkeleton *skeleton,
                   int         effector)
{
  KmIkProblem *p;
  g_autofree KmTransform *world = NULL;

  g_return_val_if_fail (skeleton != NULL, NULL);

  p = g_new0 (KmIkProblem, 1);
  p->skeleton = km_skeleton_ref (skeleton);
  p->n_dof = km_skeleton_get_n_dof (skeleton);
  p->effector = effector >= 0 ? effector : km_skeleton_get_default_effector (skeleton);
  p->base = -1;
  km_transform_identity (&p->root_pose);
  p->position_weight = 1.0;
  p->orientation_weight = KM_IK_DEFAULT_ORIENTATION_WEIGHT;
  p->position_tolerance = KM_IK_DEFAULT_POSITION_TOLERANCE;
  p->orientation_tolerance = KM_IK_DEFAULT_ORIENTATION_TOLERANCE;
  p->max_iterations = KM_IK_DEFAULT_MAX_ITERATIONS;
  p->max_restarts = KM_IK_DEFAULT_MAX_RESTARTS;
  p->seed = g_new0 (double, MAX (p->n_dof, 1));
  km_skeleton_get_mid_range (skeleton, p->seed);

  world = g_new (KmTransform, km_skeleton_get_n_joints (skeleton));
  km_skeleton_forward_kinematics (skeleton, p->seed, NULL, world);
  if (p->effector >= 0 && (guint) p->effector < km_skeleton_get_n_joints (skeleton))
    p->target = world[p->effector];
  else
    km_transform_identity (&p->target);
  return p;
}

/**
 * km_ik_problem_copy:
 *
 * A deep copy (the seed is copied, the skeleton referenced, analytic_data shared), for
 * handing to a worker thread.
 *
 * Returns: (transfer full): the copy
 */
KmIkProblem *
km_ik_problem_copy (const KmIkProblem *problem)
{
  KmIkProblem *p;

  g_return_val_if_fail (problem != NULL, NULL);

  p = g_memdup2 (problem, sizeof *p);
  p->skeleton = km_skeleton_ref (problem->skeleton);
  p->seed = g_memdup2 (problem->seed, MAX (problem->n_dof, 1) * sizeof (double));
  return p;
}

void
km_ik_problem_free (KmIkProblem *problem)
{
  if (problem == NULL)
    return;
  g_clear_pointer (&problem->skeleton, km_skeleton_unref);
  g_free (problem->seed);
  g_free (problem);
}

/**
 * km_ik_problem_set_target:
 * @position: world position, metres
 * @rotation: (nullable): world orientation; %NULL keeps the current one
 */
void
km_ik_problem_set_target (KmIkProblem  *problem,
                          KmVec3        position,
                          const KmMat3 *rotation)
{
  g_return_if_fail (problem != NULL);

  problem->target.pos = position;
  if (rotation != NULL)
    problem->target.rot = *rotation;
}

/**
 * km_ik_solution_new:
 *
 * Returns: (transfer full): a solution with @n_dof zeroed values
 */
KmIkSolution *
km_ik_solution_new (guint n_dof)
{
  KmIkSolution *s = g_new0 (KmIkSolution, 1);

  km_ik_solution_init (s, n_dof);
  return s;
}

/* Initialises a caller-allocated (e.g. stack) solution; release with km_ik_solution_clear(). */
void
km_ik_solution_init (KmIkSolution *solution,
                     guint         n_dof)
{
  g_return_if_fail (solution != NULL);

  memset (solution, 0, sizeof *solution);
  solution->q = g_new0 (double, MAX (n_dof, 1));
  solution->n_dof = n_dof;
  solution->within_limits = TRUE;
}

void
km_ik_solution_clear (KmIkSolution *solution)
{
  g_return_if_fail (solution != NULL);

  g_clear_pointer (&solution->q, g_free);
  solution->n_dof = 0;
}

void
km_ik_solution_free (KmIkSolution *solution)
{
  if (solution == NULL)
    return;
  km_ik_solution_clear (solution);
  g_free (solution);
}

/* Copies @src into @dest, (re)allocating dest->q as needed. */
void
km_ik_solution_copy_into (const KmIkSolution *src,
                          KmIkSolution       *dest)
{
  double *q;

  g_return_if_fail (src != NULL && dest != NULL);

  ensure_solution (dest, src->n_dof);
  q = dest->q;
  *dest = *src;
  dest->q = q;
  memcpy (dest->q, src->q, MAX (src->n_dof, 1) * sizeof (double));
}

/**
 * km_ik_solve:
 * @problem: the problem; only read, so one problem may be solved on several threads
 * @out: (out caller-allocates): the answer; out->q is (re)allocated when it does not hold
 *   @problem->n_dof values (a zero-filled KmIkSolution is fine)
 * @cancellable: (nullable): polled once per iteration
 *
 * Solves one pose from @problem->seed. Even on failure @out holds a finite configuration
 * within the limits (the best found, or the clamped seed) and its residuals.
 *
 * Returns: %TRUE when the solver ran (check out->converged for success); %FALSE with
 *   KM_IK_ERROR_INVALID for an unusable problem, or G_IO_ERROR_CANCELLED
 */
gboolean
km_ik_solve (const KmIkProblem *problem,
             KmIkSolution      *out,
             GCancellable      *cancellable,
             GError           **error)
{
  g_return_val_if_fail (problem != NULL, FALSE);
  g_return_val_if_fail (problem->skeleton != NULL, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return solve_one (problem, &problem->target, problem->seed, problem->random_seed,
                    problem->continuous, out, cancellable, error);
}

/* The largest change of one DOF between @a and @b. */
static double
dof_distance (const double *a,
              const double *b,
              guint         n_dof)
{
  double d = 0.0;

  for (guint i = 0; i < n_dof; i++)
    d = MAX (d, fabs (a[i] - b[i]));
  return d;
}

/*
 * Momentum: the seed for frame k extrapolated from the answers to frames k−2 (@before) and
 * k−1 (@last), q_{k−1} + MOMENTUM_GAIN · (q_{k−1} − q_{k−2}), clamped into the limits.
 * FALSE (no extrapolation) when the motion stood still or its last step was a jump (a
 * joint moved more than CONT_JUMP): a jump is no velocity to continue.
 */
static gboolean
momentum_seed (const KmIkProblem *problem,
               const double      *before,
               const double      *last,
               double            *ahead)
{
  double step = dof_distance (last, before, problem->n_dof);

  if (!(step > 0.0) || step > CONT_JUMP)
    return FALSE;
  for (guint i = 0; i < problem->n_dof; i++)
    ahead[i] = last[i] + MOMENTUM_GAIN * (last[i] - before[i]);
  km_skeleton_clamp (problem->skeleton, ahead);
  return TRUE;
}

/*
 * Trajectories: a motion tracked frame by frame (motion_frame), with a branch search that
 * looks ahead. Where the track jumps at frame k (some DOF moves more than CONT_JUMP between
 * frames, as when a joint runs into its limit on the branch the motion started on), the
 * segment from its first frame s is tracked again from other starts, and the track that
 * jumps latest wins. The starts, in this order:
 *   - the answer the motion jumped to, then answers to frame k from TRAJ_JUMP_STARTS starts
 *     within the limits, each tracked backwards to s; where such a track itself jumps
 *     before s, the motion so far slides into it instead (merge_tracks: a redundant
 *     chain's self-motion, no jump);
 *   - the track so far again from s, and from TRAJ_PULL_LATE frames before the jump,
 *     drifting towards the middle of the ranges (traj_pulls);
 *   - in the first search of a segment only: s's answer with every revolute joint that has
 *     more than a turn of range (finite limits) turned by 2π towards its middle, then each
 *     such joint alone; answers to s's target from TRAJ_RANDOM_STARTS starts within the
 *     limits (through the analytic hook when the problem has one).
 * Each is tracked forwards until it jumps, at most TRAJ_WINDOW frames past k. Bounded work:
 * at most TRAJ_MAX_CANDIDATES starts per search and TRAJ_MAX_ROUNDS searches per segment,
 * and none once the jump is more than TRAJ_WINDOW frames past s. When no start gets past
 * k, the jump stands and a new segment begins at k, on the track through frame k that goes
 * furthest (Motion.fb). A search revises frames back to s only, so frames are final (and
 * handed to the caller) once they lie before the current segment or more than TRAJ_WINDOW
 * frames behind the track.
 */
#define TRAJ_WINDOW          4096  /* frames a search may look back, and ahead */
#define TRAJ_MAX_CANDIDATES  40    /* starts tracked per search */
#define TRAJ_MAX_ROUNDS      4     /* searches per segment */
#define TRAJ_RANDOM_STARTS   12    /* starts within the limits at s, first search only */
#define TRAJ_JUMP_STARTS     20    /* starts within the limits at the frame that jumped */
#define TRAJ_SAME            0.05  /* rad or m: starts nearer than this are one */
#define TRAJ_MERGE_STEP      0.1   /* rad or m per frame: how fast one track slides into another */
#define TRAJ_PULL_LATE       150   /* frames before a jump where a late drift starts */

/*
 * Routing (SRS arms, see km-ik-srs.c): before a motion is tracked, a shortest path through its
 * whole solution set (eight families × arm angles per frame) that no joint leaves by more
 * than a step per frame wherever such a path exists; the track then follows that route
 * (route_frame), which decides ahead of time the things a frame-by-frame track cannot know:
 * on which side of a singularity to pass and which family to be in when a joint's limit
 * comes, hundreds of frames later. Where the route passes a singularity of a spherical group
 * (its outer axes within ROUTE_ZONE_ANGLE of aligned, or a route step above ROUTE_ZONE_STEP)
 * its samples of the fast-turning joints mean little, so the track heads straight for where
 * the route comes out, on the branch it comes out on, passing through the singularity from
 * a seed mirrored through it when the group is within ROUTE_CROSS_ANGLE of it. Route nodes
 * near the stretched elbow are checked by a short solve (ROUTE_CHECK_ITERATIONS, converging
 * within ROUTE_CHECK_NEAR), since the closed form of a nearly-SRS arm misjudges its reach
 * there. A track that loses its route drifts back towards it by ROUTE_PULL per frame; a
 * jump it still makes goes to the branch search as before.
 */
#define ROUTE_ZONE_ANGLE       0.0245 /* rad */
#define ROUTE_ZONE_STEP        0.3    /* rad or m */
#define ROUTE_CROSS_ANGLE      0.1    /* rad */
#define ROUTE_CHECK_ITERATIONS 30
#define ROUTE_CHECK_NEAR       0.3    /* rad or m */
#define ROUTE_PULL             0.05   /* rad or m per frame */
#define ROUTE_ON               0.05   /* rad or m: an answer this near the route follows it */
/* Progress of an SRS arm's solve: the plain track's share when a routed pass may follow,
 * and the route's share of the routed pass (measured on iiwa7, 10 000 frames: 3 s of plain
 * track, 8 s of routing, 0.5 s of tracking the route). */
#define PLAIN_PROGRESS_SHARE   0.25
#define ROUTE_PROGRESS_SHARE   0.9

/* Where a solve reports its progress: the part [from, to] of the whole that this pass is;
 * *shown is the last fraction reported, shared by the passes of one solve. */
typedef struct
{
  KmIkProgressFunc func;
  gpointer         data;
  double           from, to;
  double          *shown;
} Progress;

/* Reports @done (0 … 1) of @progress's pass when it moved the whole by a step worth telling
 * (1/500) or finished it; never backwards. */
static void
progress_report (const Progress *progress,
                 double          done)
{
  double fraction;

  if (progress == NULL || progress->func == NULL)
    return;
  fraction = progress->from + (progress->to - progress->from) * CLAMP (done, 0.0, 1.0);
  if (fraction <= *progress->shown || (fraction - *progress->shown < 0.002 && done < 1.0))
    return;
  *progress->shown = fraction;
  progress->func (fraction, progress->data);
}

/* rad or m per frame: drifts of a track towards the middle of the ranges that a search tries */
static const double traj_pulls[] = { 0.01, 0.03 };

typedef struct
{
  const KmIkProblem *problem;
  const KmTransform *targets;
  guint              n_dof;
  GCancellable      *cancellable;
  KmIkSolution       plain;   /* scratch of motion_frame */
  double            *ahead;   /* n_dof: the extrapolated seed */
  double            *start;   /* n_dof: a search's start */
  double            *tried;   /* TRAJ_MAX_CANDIDATES × n_dof: a search's starts so far */
  guint              n_seen;  /* how many of them are recorded */
  double            *lo, *hi; /* n_dof limits */
  double            *mid;     /* n_dof: the middle of the ranges */
  double             pull;    /* > 0: motion_frame drifts this far towards mid per frame */
  const KmIkSrs     *srs;     /* an SRS arm's closed form (the caller's), or NULL */
  double            *route;   /* n_frames × n_dof: where its motion goes, or NULL */
  guint             *route_exit; /* per frame: the first frame from there on where the route
                                  * is clear of singular stretches */
  double            *goal;    /* n_dof: where route_frame() heads */
  const Progress    *routing; /* the route's part of the progress, or NULL */
  /* A search's fallback: of the tracks through the frame that jumped, the one that goes
   * furthest (valid from that frame to fb_stop, which jumped when fb_jumped), whether or not
   * it reaches back to the segment's start. */
  KmIkSolution      *fb;
  guint              fb_stop;
  gboolean           fb_jumped;
  gboolean          *turns;   /* n_dof: on the path, revolute, more than a turn of range */
  gboolean          *on_path; /* n_dof: a DOF that the solve moves */
} Motion;

/* KmIkSrsCheck: a short local solve from @q (no restarts) converges near it. */
static gboolean
route_check (guint         frame,
             const double *q,
             gpointer      user_data)
{
  Motion *m = user_data;
  KmIkProblem local = *m->problem;

  local.max_iterations = ROUTE_CHECK_ITERATIONS;
  local.max_restarts = 0;
  local.analytic = NULL;
  if (!solve_one (&local, &m->targets[frame], q, local.random_seed, TRUE, &m->plain, NULL, NULL))
    return FALSE;
  return m->plain.converged && dof_distance (m->plain.q, q, m->n_dof) < ROUTE_CHECK_NEAR;
}

/*
 * Frame @k of a routed motion (see ROUTE_ZONE_ANGLE): of the converged answers within
 * CONT_JUMP of @last, the one nearest to where the route goes. Tried from the route's own
 * configuration (or, through a singular stretch, the way straight towards where the route
 * comes out of it), from @last, from half and a quarter of the way there, and, near a
 * singularity of the shoulder, the wrist or the elbow, from @last mirrored through it (how a
 * motion passes through into the other family). *@found is FALSE when none follows on.
 */
static gboolean
route_frame (Motion             *m,
             guint               k,
             const KmIkSolution *last,
             KmIkSolution       *s,
             gboolean           *found,
             GError            **error)
{
  guint n_dof = m->n_dof, exit = m->route_exit[k];
  const double *out = &m->route[(gsize) exit * n_dof];
  double best_key = INFINITY;

  if (exit > k)
    for (guint d = 0; d < n_dof; d++)
      m->goal[d] = last->q[d] + (out[d] - last->q[d]) / (double) (exit - k + 1);
  else
    memcpy (m->goal, out, n_dof * sizeof (double));

  for (guint c = 0; c < 4 + KM_IK_SRS_SINGULARITIES; c++)
    {
      const double *seed = c == 0 ? m->goal : last->q;
      double key;

      if (c == 2 || c == 3)
        {
          double t = c == 2 ? 0.5 : 0.25;

          if (best_key < 1e-3)
            continue;
          for (guint d = 0; d < n_dof; d++)
            m->ahead[d] = last->q[d] + t * (m->goal[d] - last->q[d]);
          seed = m->ahead;
        }
      else if (c >= 4)
        {
          if (!km_ik_srs_near_singular (m->srs, c - 4, last->q, ROUTE_CROSS_ANGLE))
            continue;
          memcpy (m->ahead, last->q, n_dof * sizeof (double));
          km_ik_srs_cross (m->srs, c - 4, m->ahead);
          seed = m->ahead;
        }
      if (!solve_one (m->problem, &m->targets[k], seed, m->problem->random_seed + k, TRUE,
                      &m->plain, m->cancellable, error))
        return FALSE;
      if (!m->plain.converged || dof_distance (m->plain.q, last->q, n_dof) > CONT_JUMP)
        continue;
      /* Through a singular stretch, the branch the route comes out on counts first. */
      key = dof_distance (m->plain.q, m->goal, n_dof);
      if (exit > k)
        key = km_ik_srs_branch_distance (m->srs, m->plain.q, out) +
              0.1 * dof_distance (m->plain.q, last->q, n_dof);
      if (key < best_key)
        {
          best_key = key;
          km_ik_solution_copy_into (&m->plain, s);
        }
      /* On the route (outside singular stretches): nothing to choose. */
      if (c == 0 && exit == k && best_key < ROUTE_ON)
        break;
    }
  *found = isfinite (best_key);
  return TRUE;
}

/*
 * The route of an SRS arm's motion over frames 0 .. @n − 1 (see ROUTE_ZONE_ANGLE), from
 * @first (the answer to frame 0) on, for the arm's closed form @srs; m->route and
 * m->route_exit, or both NULL when the motion cannot be routed or its route jumps
 * @max_jumps times or more (then it cannot do better than the plain track). FALSE only
 * when cancelled.
 */
static void
route_progress_cb (double   fraction,
                   gpointer user_data)
{
  Motion *m = user_data;

  progress_report (m->routing, fraction);
}

static gboolean
motion_route (Motion             *m,
              const KmIkSrs      *srs,
              guint               n,
              const KmIkSolution *first,
              guint               max_jumps)
{
  guint n_dof = m->n_dof, jumps;
  double *route;
  guint *exit;

  m->srs = srs;
  if (n < 2)
    return TRUE;
  route = g_new (double, (gsize) n * n_dof);
  if (!km_ik_srs_route (m->srs, m->targets, n, first->q, route, &jumps, route_check, m,
                        route_progress_cb, m, m->cancellable) || jumps >= max_jumps)
    {
      g_free (route);
      return !g_cancellable_is_cancelled (m->cancellable);
    }
  exit = g_new (guint, n);
  for (guint f = n; f-- > 0;)
    {
      const double *rq = &route[(gsize) f * n_dof];
      gboolean singular = km_ik_srs_near_singular (m->srs, 0, rq, ROUTE_ZONE_ANGLE) ||
                          km_ik_srs_near_singular (m->srs, 1, rq, ROUTE_ZONE_ANGLE) ||
                          (f > 0 && dof_distance (rq, rq - n_dof, n_dof) > ROUTE_ZONE_STEP) ||
                          (f + 1 < n && dof_distance (rq, rq + n_dof, n_dof) > ROUTE_ZONE_STEP);

      exit[f] = singular && f + 1 < n ? exit[f + 1] : f;
    }
  m->route = route;
  m->route_exit = exit;
  return TRUE;
}

/*
 * Frame @k of a motion, warm-started from @last (the answer to the neighbouring frame the
 * motion comes from). With @before (the answer one further back, or %NULL) an extrapolated
 * seed is tried first (momentum: @last + MOMENTUM_GAIN · (@last − @before), not after a jump
 * nor after a frame that did not converge): its answer stands when it converged within
 * CONT_JUMP of @last; otherwise the frame is solved from @last as well and the converged
 * answer nearer to it wins (the plain one when neither converged). Random seed
 * problem->random_seed + k. A routed motion (m->route) goes where its route goes
 * (route_frame) and falls back to the above, drifting back towards the route, only where
 * that does not follow on.
 */
static gboolean
motion_frame (Motion             *m,
              guint               k,
              const double       *before,
              const KmIkSolution *last,
              KmIkSolution       *s,
              GError            **error)
{
  const KmIkProblem *problem = m->problem;
  guint64 random_seed = problem->random_seed + k;
  guint n_dof = m->n_dof;
  gboolean ok;

  gboolean ahead;

  if (m->route != NULL)
    {
      gboolean found;

      if (!route_frame (m, k, last, s, &found, error))
        return FALSE;
      if (found)
        return TRUE;
    }
  ahead = before != NULL && last->converged &&
          momentum_seed (problem, before, last->q, m->ahead);

  if (m->pull > 0.0 || m->route != NULL)
    {
      /* A search's track that drifts through its self-motion towards the middle; a routed
       * motion that lost its route, back towards it. */
      const double *to = m->route != NULL ? &m->route[(gsize) k * n_dof] : m->mid;
      double rate = m->route != NULL ? ROUTE_PULL : m->pull;

      if (!ahead)
        memcpy (m->ahead, last->q, n_dof * sizeof (double));
      for (guint d = 0; d < n_dof; d++)
        if (m->on_path[d] && isfinite (to[d]))
          m->ahead[d] += CLAMP (to[d] - m->ahead[d], -rate, rate);
      km_skeleton_clamp (problem->skeleton, m->ahead);
      ahead = TRUE;
    }
  if (!ahead)
    return solve_one (problem, &m->targets[k], last->q, random_seed, TRUE, s, m->cancellable,
                      error);

  /* The extrapolated seed first: at a singular crossing it lies on the motion's own side,
   * where the previous answer alone is ambiguous. */
  ok = solve_one (problem, &m->targets[k], m->ahead, random_seed, TRUE, s, m->cancellable,
                  error);
  if (ok && !(s->converged && dof_distance (s->q, last->q, n_dof) <= CONT_JUMP))
    {
      ok = solve_one (problem, &m->targets[k], last->q, random_seed, TRUE, &m->plain,
                      m->cancellable, error);
      if (ok)
        {
          guint iterations = s->iterations + m->plain.iterations;
          guint restarts = s->restarts + m->plain.restarts + 1;

          if (!s->converged ||
              (m->plain.converged &&
               dof_distance (m->plain.q, last->q, n_dof) <= dof_distance (s->q, last->q, n_dof)))
            km_ik_solution_copy_into (&m->plain, s);
          s->iterations = iterations;
          s->restarts = restarts;
        }
    }
  return ok;
}

static gboolean
motion_jumped (const Motion       *m,
               const KmIkSolution *a,
               const KmIkSolution *b)
{
  return dof_distance (a->q, b->q, m->n_dof) > CONT_JUMP;
}

/*
 * Tracks @buf forwards from frame @from (already solved) up to @limit. @stop is the first
 * frame that jumped (solved and stored, @jumped set) or @limit. @momentum: buf[from − 1] is
 * part of the same motion.
 */
static gboolean
track_forward (Motion       *m,
               KmIkSolution *buf,
               guint         from,
               guint         limit,
               gboolean      momentum,
               guint        *stop,
               gboolean     *jumped,
               GError      **error)
{
  *jumped = FALSE;
  for (guint k = from + 1; k < limit; k++)
    {
      const double *before = k >= 2 && (k - 1 > from || momentum) ? buf[k - 2].q : NULL;

      if (!motion_frame (m, k, before, &buf[k - 1], &buf[k], error))
        {
          *stop = k;
          return FALSE;
        }
      if (motion_jumped (m, &buf[k - 1], &buf[k]))
        {
          *stop = k;
          *jumped = TRUE;
          return TRUE;
        }
    }
  *stop = limit;
  return TRUE;
}

/* Tracks @buf backwards from frame @from (already solved) down to @to. @first: the earliest
 * frame reached without a jump (@to when none jumped). */
static gboolean
track_backward (Motion       *m,
                KmIkSolution *buf,
                guint         from,
                guint         to,
                guint        *first,
                GError      **error)
{
  *first = from;
  for (guint k = from; k-- > to;)
    {
      const double *before = k + 2 <= from ? buf[k + 2].q : NULL;

      if (!motion_frame (m, k, before, &buf[k + 1], &buf[k], error))
        return FALSE;
      if (motion_jumped (m, &buf[k + 1], &buf[k]))
        return TRUE;
      *first = k;
    }
  return TRUE;
}

/*
 * Merges the track @cur (from frame @s, jumped at @k) into the branch that @buf holds from
 * frame @a to @k (tracked backwards from the jump): from frame a + 1 on, each frame is solved
 * from the previous transition frame moved towards buf's answer by at most TRAJ_MERGE_STEP
 * per DOF, so that a redundant chain slides through its self-motion from one to the other
 * instead of jumping, until it is within TRAJ_SAME of buf's answer (before frame k).
 * *@merged when that worked without a jump; buf then holds cur[s .. a], the transition, and
 * its own frames after it.
 */
static gboolean
merge_tracks (Motion       *m,
              KmIkSolution *cur,
              KmIkSolution *buf,
              guint         s,
              guint         a,
              guint         k,
              gboolean     *merged,
              GError      **error)
{
  guint n = m->n_dof;

  *merged = FALSE;
  for (guint f = a + 1; f < k; f++)
    {
      const double *prev = f == a + 1 ? cur[a].q : buf[f - 1].q;

      for (guint d = 0; d < n; d++)
        m->start[d] = prev[d] + CLAMP (buf[f].q[d] - prev[d], -TRAJ_MERGE_STEP, TRAJ_MERGE_STEP);
      if (!solve_one (m->problem, &m->targets[f], m->start, m->problem->random_seed + f, TRUE,
                      &m->plain, m->cancellable, error))
        return FALSE;
      if ((cur[f].converged && !m->plain.converged) ||
          dof_distance (m->plain.q, prev, n) > CONT_JUMP)
        return TRUE;
      if (dof_distance (m->plain.q, buf[f].q, n) < TRAJ_SAME)
        {
          /* Arrived: buf's own frames follow. */
          if (dof_distance (m->plain.q, buf[f + 1].q, n) > CONT_JUMP)
            return TRUE;
          km_ik_solution_copy_into (&m->plain, &buf[f]);
          for (guint g = s; g <= a; g++)
            km_ik_solution_copy_into (&cur[g], &buf[g]);
          *merged = TRUE;
          return TRUE;
        }
      km_ik_solution_copy_into (&m->plain, &buf[f]);
    }
  return TRUE;
}

/*
 * Start @c of a search at a frame whose current answer is @q, into m->start: 0 every
 * turnable joint turned by 2π towards its middle, 1 .. n_dof that DOF alone, then random
 * configurations of the path within the limits. FALSE when start @c does not exist (no joint
 * to turn, or the turn leaves the limits).
 */
static gboolean
search_start (Motion       *m,
              const double *q,
              guint         c,
              guint64      *rng)
{
  guint n = m->n_dof;
  gboolean any = FALSE;

  memcpy (m->start, q, n * sizeof (double));
  if (c <= n)
    {
      for (guint d = 0; d < n; d++)
        if (m->turns[d] && (c == 0 || c == d + 1))
          {
            double x = q[d] > 0.5 * (m->lo[d] + m->hi[d]) ? q[d] - 2 * G_PI : q[d] + 2 * G_PI;

            if (x >= m->lo[d] && x <= m->hi[d])
              m->start[d] = x, any = TRUE;
          }
      return any;
    }
  for (guint d = 0; d < n; d++)
    if (m->on_path[d])
      {
        double u = rng_uniform (rng), lo = m->lo[d], hi = m->hi[d];

        if (isfinite (lo) && isfinite (hi))
          m->start[d] = lo + u * (hi - lo);
        else
          m->start[d] = CLAMP (q[d] + (2 * u - 1) * G_PI, lo, hi);
      }
  return TRUE;
}

/* A search's start @q is new: not within TRAJ_SAME of one recorded (m->n_seen of them);
 * then it is recorded and counts as tried. Starts that a search tries without recording
 * them only count in @n_tried, so only recorded starts are ever compared. */
static gboolean
start_is_new (Motion       *m,
              const double *q,
              guint        *n_tried)
{
  for (guint i = 0; i < m->n_seen; i++)
    if (dof_distance (q, &m->tried[i * m->n_dof], m->n_dof) < TRAJ_SAME)
      return FALSE;
  if (m->n_seen < TRAJ_MAX_CANDIDATES && *n_tried < TRAJ_MAX_CANDIDATES)
    {
      memcpy (&m->tried[m->n_seen++ * m->n_dof], q, m->n_dof * sizeof (double));
      (*n_tried)++;
    }
  return TRUE;
}

/*
 * The branch search of the segment that starts at frame @s, whose track @cur jumped at frame
 * @k (see the comment above TRAJ_WINDOW). Candidate tracks go to *@alt, the best so far to
 * *@best (the two are swapped as needed); when one gets past @k it replaces cur[s ..] and
 * @reach is its end: the frame where it jumped (@jumped) or @horizon.
 */
static gboolean
branch_search (Motion        *m,
               KmIkSolution  *cur,
               KmIkSolution **alt,
               KmIkSolution **best,
               guint          s,
               guint          k,
               guint          horizon,
               gboolean       first_round,
               guint         *reach,
               gboolean      *jumped,
               GError       **error)
{
  guint best_reach = k, n_tried = 0, stop, last, first;
  gboolean best_jumped = TRUE, jmp, ok;
  guint64 rng = m->problem->random_seed ^ (G_GUINT64_CONSTANT (0x9e3779b97f4a7c15) * (s + 1));
  guint n_starts = m->n_dof + 1 + TRAJ_RANDOM_STARTS;
  KmIkSolution *tmp;

  m->n_seen = 0;
  start_is_new (m, cur[s].q, &n_tried);
  m->fb_stop = 0;

  /* The branch the motion jumped to, then other answers to frame k, each followed back to
   * s; or, where that does not reach that far, merged into from the track so far (see
   * merge_tracks). The best of those that do neither is the fallback. */
  for (guint c = 0; c <= TRAJ_JUMP_STARTS && n_tried < TRAJ_MAX_CANDIDATES &&
                    (best_jumped || best_reach < horizon); c++)
    {
      gboolean merged;

      if (c == 0)
        km_ik_solution_copy_into (&cur[k], &(*alt)[k]);
      else
        {
          search_start (m, cur[k].q, m->n_dof + c, &rng);
          if (!solve_one (m->problem, &m->targets[k], m->start, m->problem->random_seed + k,
                          FALSE, &(*alt)[k], m->cancellable, error))
            return FALSE;
          if ((cur[k].converged && !(*alt)[k].converged) ||
              dof_distance ((*alt)[k].q, cur[k].q, m->n_dof) < TRAJ_SAME ||
              dof_distance ((*alt)[k].q, cur[k - 1].q, m->n_dof) <= CONT_JUMP)
            continue;
          n_tried++;
        }
      if (!track_backward (m, *alt, k, s, &first, error))
        return FALSE;
      if (first == s ? !start_is_new (m, (*alt)[s].q, &n_tried) : first == k)
        continue;
      merged = first == s;
      if (!track_forward (m, *alt, k, horizon, TRUE, &stop, &jmp, error))
        return FALSE;
      if (stop > best_reach && !merged &&
          !merge_tracks (m, cur, *alt, s, first, k, &merged, error))
        return FALSE;
      if (stop > best_reach && merged)
        {
          best_reach = stop, best_jumped = jmp;
          tmp = *alt, *alt = *best, *best = tmp;
        }
      else if (stop > m->fb_stop)
        {
          m->fb_stop = stop, m->fb_jumped = jmp;
          tmp = *alt, *alt = m->fb, m->fb = tmp;
        }
    }
  /* The track so far again, drifting towards the middle of the ranges: from s, and from
   * TRAJ_PULL_LATE frames before the jump. */
  for (guint c = 0; c < 2 * G_N_ELEMENTS (traj_pulls) && n_tried < TRAJ_MAX_CANDIDATES &&
                    (best_jumped || best_reach < horizon); c++)
    {
      guint from = c % 2 == 0 ? s : MAX (s, k > TRAJ_PULL_LATE ? k - TRAJ_PULL_LATE : 0);

      if (c % 2 == 1 && from == s)
        continue;
      n_tried++;
      for (guint f = s; f <= from; f++)
        km_ik_solution_copy_into (&cur[f], &(*alt)[f]);
      m->pull = traj_pulls[c / 2];
      ok = track_forward (m, *alt, from, horizon, from > s, &stop, &jmp, error);
      m->pull = 0.0;
      if (!ok)
        return FALSE;
      if (stop > best_reach)
        {
          best_reach = stop, best_jumped = jmp;
          tmp = *alt, *alt = *best, *best = tmp;
        }
    }
  if (!first_round)
    n_starts = 0;

  for (guint c = 0; c < n_starts && n_tried < TRAJ_MAX_CANDIDATES &&
                    (best_jumped || best_reach < horizon); c++)
    {
      gboolean turn = c <= m->n_dof;

      if (!search_start (m, cur[s].q, c, &rng))
        continue;
      /* A turn is the same pose: kept on its branch. A random start goes where it goes. */
      if (!solve_one (m->problem, &m->targets[s], m->start, m->problem->random_seed + s, turn,
                      &(*alt)[s], m->cancellable, error))
        return FALSE;
      if ((cur[s].converged && !(*alt)[s].converged) || !start_is_new (m, (*alt)[s].q, &n_tried))
        continue;
      if (!track_forward (m, *alt, s, horizon, FALSE, &stop, &jmp, error))
        return FALSE;
      if (stop > best_reach)
        {
          best_reach = stop, best_jumped = jmp;
          tmp = *alt, *alt = *best, *best = tmp;
        }
    }

  *reach = best_reach;
  *jumped = best_jumped;
  if (best_reach == k)
    return TRUE;
  last = best_jumped ? best_reach : best_reach - 1;
  for (guint f = s; f <= last; f++)
    km_ik_solution_copy_into (&(*best)[f], &cur[f]);
  return TRUE;
}

/* Hands frames @from .. @to − 1 of @cur to the caller; FALSE when cancelled meanwhile. */
static gboolean
motion_emit (KmIkSolution  *cur,
             guint          from,
             guint          to,
             KmIkSolution  *out,
             KmIkFrameFunc  frame_done,
             gpointer       user_data,
             GCancellable  *cancellable,
             GError       **error)
{
  for (guint f = from; f < to; f++)
    {
      if (out != NULL)
        km_ik_solution_copy_into (&cur[f], &out[f]);
      if (frame_done != NULL)
        frame_done (f, &cur[f], user_data);
      /* The last two stay: the motion goes on from them. */
      if (f + 2 < to)
        km_ik_solution_clear (&cur[f]);
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;
    }
  return TRUE;
}

/* How many frames of @motion moved a DOF more than CONT_JUMP from the frame before. */
static guint
count_jumps (const KmIkSolution *motion,
             guint               n_frames)
{
  guint jumps = 0;

  for (guint f = 1; f < n_frames; f++)
    jumps += dof_distance (motion[f].q, motion[f - 1].q, motion[f].n_dof) > CONT_JUMP;
  return jumps;
}

/* km_ik_solve_trajectory() without its choice: plain (@srs NULL) or routed along the
 * closed form @srs of the problem's arm, where a route that jumps @max_route_jumps times or
 * more is not followed: then *@routed is FALSE and nothing is solved. */
static gboolean
solve_motion (const KmIkProblem *problem,
              const KmTransform *targets,
              guint              n_frames,
              KmIkSolution      *out,
              KmIkFrameFunc      frame_done,
              gpointer           user_data,
              const Progress    *progress,
              const KmIkSrs     *srs,
              guint              max_route_jumps,
              gboolean          *routed,
              GCancellable      *cancellable,
              GError           **error)
{
  Motion m = { 0 };
  const KmJoint *joints;
  KmIkSolution *bufs[4] = { NULL };
  KmIkSolution *cur, *alt, *best;
  guint n_dof, n_valid = 0, seg = 0, valid = 1, rounds = 0, emitted = 0;
  gboolean ok, pending = FALSE, searched;
  Progress routing, tracking;  /* a routed pass's two parts: routing, then tracking */

  if (n_frames == 0)
    return TRUE;
  n_dof = problem->n_dof;
  /* Frames up to the first unusable target are solved; that one reports the error. */
  while (n_valid < n_frames && target_is_finite (&targets[n_valid]))
    n_valid++;

  m.problem = problem;
  m.targets = targets;
  m.n_dof = n_dof;
  m.cancellable = cancellable;
  m.ahead = g_new (double, MAX (n_dof, 1) * (7 + TRAJ_MAX_CANDIDATES));
  m.start = m.ahead + MAX (n_dof, 1);
  m.lo = m.start + MAX (n_dof, 1);
  m.hi = m.lo + MAX (n_dof, 1);
  m.mid = m.hi + MAX (n_dof, 1);
  m.goal = m.mid + MAX (n_dof, 1);
  m.tried = m.goal + MAX (n_dof, 1);
  m.turns = g_new0 (gboolean, MAX (n_dof, 1) * 2);
  m.on_path = m.turns + MAX (n_dof, 1);
  km_skeleton_get_dof_limits (problem->skeleton, m.lo, m.hi);
  km_skeleton_get_mid_range (problem->skeleton, m.mid);
  joints = km_skeleton_get_joints (problem->skeleton);
  if (problem->effector >= 0 &&
      (guint) problem->effector < km_skeleton_get_n_joints (problem->skeleton))
    for (int j = problem->effector; j >= 0 && j != problem->base; j = joints[j].parent)
      for (guint d = 0; d < joints[j].n_dof; d++)
        {
          int dof = joints[j].dof_index + (int) d;

          m.on_path[dof] = joints[j].mimic < 0;
          m.turns[dof] = m.on_path[dof] && joints[j].type == KM_JOINT_REVOLUTE &&
                         isfinite (m.lo[dof]) && isfinite (m.hi[dof]) &&
                         m.hi[dof] - m.lo[dof] > 2 * G_PI;
        }
  for (guint i = 0; i < G_N_ELEMENTS (bufs); i++)
    bufs[i] = g_new0 (KmIkSolution, MAX (n_valid, 1));
  cur = bufs[0], alt = bufs[1], best = bufs[2], m.fb = bufs[3];

  /* Frame 0 starts from the problem's seed, not from a motion (unless the problem says so):
   * it gets the best answer wherever it is. */
  ok = n_valid == 0 ||
       solve_one (problem, &targets[0], problem->seed, problem->random_seed,
                  problem->continuous, &cur[0], cancellable, error);
  /* An SRS arm: routed through its whole solution set, frame 0 from the route's start. */
  if (routed != NULL)
    *routed = FALSE;
  if (ok && srs != NULL && n_valid >= 2)
    {
      if (progress != NULL)
        {
          routing = tracking = *progress;
          routing.to = tracking.from =
            progress->from + (progress->to - progress->from) * ROUTE_PROGRESS_SHARE;
          m.routing = &routing;
          progress = &tracking;
        }
      ok = motion_route (&m, srs, n_valid, &cur[0], max_route_jumps);
      progress_report (m.routing, 1.0);
      if (!ok)
        g_cancellable_set_error_if_cancelled (cancellable, error);
      else if (m.route != NULL)
        ok = solve_one (problem, &targets[0], m.route, problem->random_seed, TRUE, &cur[0],
                        cancellable, error);
      if (routed != NULL)
        *routed = ok && m.route != NULL;
      if (ok && m.route == NULL)
        goto done; /* nothing to gain over the plain track */
    }
  while (ok && n_valid > 0)
    {
      progress_report (progress, (double) valid / n_valid);
      if (!pending)
        {
          if (valid >= n_valid)
            break;
          ok = motion_frame (&m, valid, valid >= 2 ? cur[valid - 2].q : NULL, &cur[valid - 1],
                             &cur[valid], error);
          if (!ok)
            break;
          pending = motion_jumped (&m, &cur[valid - 1], &cur[valid]);
          valid++;
        }
      if (pending)
        {
          guint k = valid - 1;

          searched = FALSE;
          if (k - seg <= TRAJ_WINDOW && rounds < TRAJ_MAX_ROUNDS)
            {
              guint reach;
              gboolean jumped;

              rounds++;
              searched = TRUE;
              ok = branch_search (&m, cur, &alt, &best, seg, k, MIN (n_valid, k + TRAJ_WINDOW),
                                  rounds == 1, &reach, &jumped, error);
              if (!ok)
                break;
              if (reach > k)
                {
                  valid = jumped ? reach + 1 : reach;
                  pending = jumped;
                  continue;
                }
            }
          /* No start gets further: the jump stands, a new segment begins, with the track
           * through frame k that goes furthest. */
          if (searched && m.fb_stop > k)
            {
              guint last = m.fb_jumped ? m.fb_stop : m.fb_stop - 1;

              for (guint f = k; f <= last; f++)
                km_ik_solution_copy_into (&m.fb[f], &cur[f]);
              valid = last + 1;
            }
          seg = k;
          rounds = 0;
          pending = searched && m.fb_stop > k && m.fb_jumped;
        }
      /* Frames before the segment are final, and all of them once no search can reach back
       * to the segment's start. */
      {
        guint final = valid - seg > TRAJ_WINDOW ? valid : seg;

        if (final > emitted)
          {
            ok = motion_emit (cur, emitted, final, out, frame_done, user_data, cancellable,
                              error);
            emitted = final;
          }
      }
    }
  if (ok)
    ok = motion_emit (cur, emitted, n_valid, out, frame_done, user_data, cancellable, error);
  if (ok && n_valid < n_frames)
    {
      /* Reports the unusable target (and leaves the clamped seed in its frame). */
      KmIkSolution *s = out != NULL ? &out[n_valid] : &m.plain;

      ok = solve_one (problem, &targets[n_valid],
                      n_valid > 0 ? (out != NULL ? out[n_valid - 1].q : problem->seed)
                                  : problem->seed,
                      problem->random_seed + n_valid, n_valid > 0 || problem->continuous, s,
                      cancellable, error);
    }
  else if (!ok && emitted == 0 && valid == 1 && out != NULL && cur[0].q != NULL &&
           !g_cancellable_is_cancelled (cancellable))
    {
      /* An unusable problem: frame 0 holds the clamped seed, as km_ik_solve() leaves it. */
      km_ik_solution_copy_into (&cur[0], &out[0]);
    }

done:
  for (guint i = 0; i < G_N_ELEMENTS (bufs); i++)
    {
      for (guint f = 0; f < MAX (n_valid, 1); f++)
        km_ik_solution_clear (&bufs[i][f]);
      g_free (bufs[i]);
    }
  km_ik_solution_clear (&m.plain);
  g_free (m.ahead);
  g_free (m.turns);
  g_free (m.route);
  g_free (m.route_exit);
  return ok;
}

/**
 * km_ik_solve_trajectory:
 * @problem: the problem; its target is ignored, its seed starts frame 0
 * @targets: (array length=n_frames): the effector's world pose for every frame
 * @out: (nullable) (array length=n_frames): zero-filled or initialised solutions, one per
 *   frame; %NULL when @frame_done consumes the frames
 * @frame_done: (nullable) (scope call): called for every frame in order, on this thread
 *
 * Solves the frames as one continuous motion. Frame 0 starts from problem->seed as
 * km_ik_solve() would (continuous only when the problem says so); frame k is warm-started
 * from the answer to frame k − 1 with problem->continuous set, which keeps the motion on one
 * branch, after an extrapolated seed (momentum from frames k − 2 and k − 1, see
 * motion_frame). Where the motion would jump (a DOF moving more than CONT_JUMP between
 * frames), a branch search looks for a start at the segment's first frame whose track goes
 * further without a jump (see TRAJ_WINDOW above): so frame 0 keeps the seed's answer
 * whenever that can be tracked without a jump, and a jump remains only where no start tried
 * avoids it. Frames are final, and reach @out and @frame_done in order, once no search can
 * revise them any more (at most TRAJ_WINDOW frames behind the track, all at the end for
 * shorter motions). Frame k uses random seed problem->random_seed + k for its restarts.
 * Deterministic. Costs the same as frame-by-frame tracking where no frame jumps; a search
 * costs up to TRAJ_MAX_CANDIDATES tracks of a few thousand frames. Holds four solutions per
 * frame while it runs.
 *
 * A spherical-revolute-spherical arm (see km-ik-srs.c) is tracked as above first, all frames
 * held back; where that leaves a jump and the route through the arm's whole solution set
 * (see ROUTE_ZONE_ANGLE) jumps fewer times, the motion is solved again along that route,
 * and the one with fewer jumps is handed over, after the whole motion is solved
 * (km_ik_solve_trajectory_full() reports the progress meanwhile).
 *
 * Returns: %FALSE on an invalid problem or target (the frames before it are handed over) or
 *   when cancelled (G_IO_ERROR_CANCELLED; the frames handed over so far stand)
 */
gboolean
km_ik_solve_trajectory (const KmIkProblem *problem,
                        const KmTransform *targets,
                        guint              n_frames,
                        KmIkSolution      *out,
                        KmIkFrameFunc      frame_done,
                        gpointer           user_data,
                        GCancellable      *cancellable,
                        GError           **error)
{
  return km_ik_solve_trajectory_full (problem, targets, n_frames, out, frame_done, NULL,
                                      user_data, cancellable, error);
}

/**
 * km_ik_solve_trajectory_full:
 * @progress: (nullable) (scope call): called on this thread as the solve advances, with the
 *   fraction of the work done (0 … 1, rising, 1 last)
 * @user_data: data for @frame_done and @progress
 *
 * km_ik_solve_trajectory() that also reports its progress. Frames may be held back until
 * the end (see there); the progress moves all the same, at most about 500 times a solve.
 *
 * Returns: as km_ik_solve_trajectory()
 */
gboolean
km_ik_solve_trajectory_full (const KmIkProblem *problem,
                             const KmTransform *targets,
                             guint              n_frames,
                             KmIkSolution      *out,
                             KmIkFrameFunc      frame_done,
                             KmIkProgressFunc   progress,
                             gpointer           user_data,
                             GCancellable      *cancellable,
                             GError           **error)
{
  g_autoptr (KmIkSrs) srs = NULL;
  KmIkSolution *motions[2] = { NULL };
  guint jumps[2] = { 0, 0 }, pick = 0;
  gboolean ok = TRUE;
  double shown = 0.0;
  Progress passes[2] = {
    { progress, user_data, 0.0, 1.0, &shown },
    { progress, user_data, 1.0, 1.0, &shown },
  };

  g_return_val_if_fail (problem != NULL, FALSE);
  g_return_val_if_fail (problem->skeleton != NULL, FALSE);
  g_return_val_if_fail (targets != NULL || n_frames == 0, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (n_frames >= 2)
    srs = km_ik_srs_new (problem);
  if (srs == NULL)
    return solve_motion (problem, targets, n_frames, out, frame_done, user_data, &passes[0],
                         NULL, 0, NULL, cancellable, error);

  /* The plain track; where it jumps, the routed one when its route jumps fewer times. Both
   * passes may run: the plain one counts as the first part of the work, the rest goes to the
   * routed one if it runs. */
  passes[0].to = passes[1].from = PLAIN_PROGRESS_SHARE;
  for (guint r = 0; r < 2 && ok && (r == 0 || jumps[0] > 0); r++)
    {
      gboolean routed = FALSE;

      motions[r] = g_new0 (KmIkSolution, n_frames);
      ok = solve_motion (problem, targets, n_frames, motions[r], NULL, NULL, &passes[r],
                         r == 0 ? NULL : srs, jumps[0], &routed, cancellable, NULL);
      if (ok && r == 1 && !routed)
        break;
      if (ok)
        jumps[r] = count_jumps (motions[r], n_frames);
      if (ok && r == 1 && jumps[1] < jumps[0])
        pick = 1;
    }
  if (ok)
    for (guint f = 0; f < n_frames && ok; f++)
      {
        if (out != NULL)
          km_ik_solution_copy_into (&motions[pick][f], &out[f]);
        if (frame_done != NULL)
          frame_done (f, &motions[pick][f], user_data);
        ok = !g_cancellable_set_error_if_cancelled (cancellable, error);
      }
  if (ok)
    progress_report (&passes[1], 1.0);
  for (guint r = 0; r < 2; r++)
    if (motions[r] != NULL)
      {
        for (guint f = 0; f < n_frames; f++)
          km_ik_solution_clear (&motions[r][f]);
        g_free (motions[r]);
      }
  if (ok || (error != NULL && *error != NULL))
    return ok;
  /* An unusable target or a cancellation on the way: the plain solve reports it as usual. */
  return solve_motion (problem, targets, n_frames, out, frame_done, user_data, NULL, NULL, 0,
                       NULL, cancellable, error);
}

/**
 * km_ik_measure:
 * @q: (array): @problem->n_dof values
 * @pos_err: (out) (optional): metres
 * @rot_err: (out) (optional): radians
 *
 * The residuals of @q for @problem's target, by the skeleton's own forward kinematics
 * (independent of the solver's path kinematics).
 */
void
km_ik_measure (const KmIkProblem *problem,
               const double      *q,
               double            *pos_err,
               double            *rot_err)
{
  g_autofree KmTransform *world = NULL;
  const KmTransform *eff;

  g_return_if_fail (problem != NULL && q != NULL);
  g_return_if_fail (problem->effector >= 0 &&
                    (guint) problem->effector < km_skeleton_get_n_joints (problem->skeleton));

  world = g_new (KmTransform, km_skeleton_get_n_joints (problem->skeleton));
  km_skeleton_forward_kinematics (problem->skeleton, q, &problem->root_pose, world);
  eff = &world[problem->effector];
  if (pos_err != NULL)
    *pos_err = safe_norm3 (km_vec3_sub (problem->target.pos, eff->pos));
  if (rot_err != NULL)
    *rot_err = km_mat3_rotation_angle (&eff->rot, &problem->target.rot);
}
