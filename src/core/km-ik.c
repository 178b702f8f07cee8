/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-ik"

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "km-ik.h"
#include "km-ik-private.h"
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
 * 6 × n Jacobian J (n = the path's DOFs and its linked joints' masters off the path, a few
 * dozen at most); the step is dq = Jᵀ (J Jᵀ + λ I)⁻¹ W e, a 6 × 6 Cholesky solve whatever n
 * is. The damping λ = μ (E + w̄) follows Sugihara (2011): large far away (robust), w̄ near
 * the solution (fast), and μ grows whenever a step would increase E (the step is then
 * rejected). The step sees at most STEP_ERROR_MAX of the error, which keeps the rotations'
 * linearisation sane; a step along a long prismatic travel (a rail, a mobile base's virtual
 * slides) is then extended while E keeps falling (extend_step()), so that a target
 * hundreds of kilometres down an unlimited slide takes a few iterations, not one per metre.
 * Where the columns' lengths differ by many orders of magnitude (a turn ahead of such a
 * slide, 1e8 m out: a lever of 1e8 m against the slide's 1), the step equilibrates them
 * first, or J Jᵀ would lose the short ones in its rounding (dls_step()).
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
 * 0.1-0.3 rad of the seed, for continuity along a trajectory); a target whose position is
 * provably beyond reach (beyond_reach()) stops them after FAR_NO_GAIN restarts without a
 * gain, since none can converge. When nothing converges (an unreachable target, or a chain
 * with fewer than six DOF), the rest of the budget goes to the attempt with the least
 * weighted error: a patient descent, then position priority (position by DLS, orientation
 * in the null space of the position task), then position alone if a limit blocked it. The answer is the closest reachable pose found, with honest
 * residuals, never NaN. A model whose forward kinematics overflows at the seed (joint
 * origins of 1e308 m, each finite, their sum not) has no honest residual: the solve fails
 * with KM_IK_ERROR_INVALID; a trial that overflows counts as infinitely far.
 *
 * Linked (mimic) joints, q_f = ratio · q_m + offset: a follower is no variable of its own.
 * Its Jacobian column is folded into its master's (J_m += ratio · J_f) and it never joins a
 * step; every trial configuration sets it from its master. A master off the path (on
 * another branch, as a parallel gripper's other finger or a rack's pinion) of a follower on
 * it is a variable all the same, after the path's own: it has no column of its own, only
 * the sum of ratio · J_f over its followers on the path, and otherwise steps, restarts,
 * keeps to the trust region and counts in a motion's jumps like any other. Only a master
 * above the base, which is fixed, leaves its follower constant. A master's range is
 * narrowed so that each of its followers, on the path or not, stays within its own limits
 * (km_skeleton_get_mimic_range()), and the answer (every variable's value, masters off the
 * path included) goes through km_skeleton_apply_mimic(), so the coupling holds exactly;
 * joints off the path that are no such master keep their seed values.
 *
 * Redundant chains (more active DOFs than task rows) also get a small null-space pull of
 * joints in the outer quarters of their range back inwards while the error is between
 * 0.1 mm and 5 cm, which keeps warm-started trajectories away from their limits (not of a
 * joint whose column is zero: it moves nothing aimed).
 *
 * Motions (continuous: the seed is the previous frame's answer) keep to the seed's branch.
 * The warm descent comes first; when it stalls, the same from the seed in short steps (at
 * most CONT_MAX_STEP per joint and iteration, a trust region), then sub-targets from the
 * seed's pose, for a revolute joint with more than a turn of range that ran into its limit
 * the same pose a turn further inside, restarts near the seed, the position-priority fit;
 * far restarts last. A converged answer that moved a joint more than KM_IK_CONT_JUMP is kept only
 * until one nearer to the seed converges. A chain with fewer than six DOFs whose seed
 * misses the orientation by far more than one frame explains (CONT_UNREACHED) follows the
 * best fit from the seed: position met (where it cannot be, the closest position the seed
 * leads to, unless a limit holds it there), then orientation steps in the null space of
 * the position, a descent that keeps every joint within the frame's fit radius of where
 * the position was met (the motion's: twice as far as the target turns, within 0.05 and
 * KM_IK_CONT_JUMP / 2; CONT_FIT_RADIUS alone). The radius is a box that the fit treats as
 * limits: a step that would leave it is cut short, not thrown away, so the fit follows the
 * best fit as the target moves (it once stood still, a wrist joint bit-identical for 15
 * frames while the error grew to π, then jumped). A descent never gains height, so it
 * cannot cross a valley of the orientation error: where the fit has two local optima the
 * motion stays on the seed's and slides, never jumps; where the best fit runs off faster
 * than the radius, as when the orientation error nears π, the motion follows it over
 * several frames at that speed rather than popping. The fit ends when a step gains less
 * than CONT_FIT_STALL; a short descent checks whether the orientation has come back in
 * reach. No restarts there: they cannot find an orientation that does not exist. Nor for a
 * target further away than the path reaches at all (the triangle inequality over its links
 * and prismatic travels from its first moving joint, beyond_reach): the warm descent and
 * the position-priority fit from the seed only, since no restart can converge and their
 * answers would only jump.
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
#define EQUILIBRATE         1e10   /* squared ratio of the longest active column to the
                                    * shortest beyond which the step equilibrates them */
#define COLUMN_FLOOR        1e-6   /* m²: a column that moves the effector less (squared,
                                    * per rad or m, position weight 1: a lever under 1 mm)
                                    * takes no part in equilibrating, so that only levers
                                    * over 100 m ever set it off */
#define EXTEND_TURN         0.5    /* rad: a long slide's extended step turns no joint further */
#define ATTEMPT_ITERATIONS  60     /* a local attempt that needs more is stalled */
#define PRIORITY_ITERATIONS 100  /* outer iterations of the orientation fit */
#define REFINE_ITERATIONS   200
#define FIT_STARTS          4    /* local minima of the restarts the orientation fit starts from */
#define FIT_STARTS_APART    0.1  /* rad or m: minima nearer than this are one */
#define FAR_NO_GAIN         3    /* restarts without a gain that end those of a target beyond
                                  * reach (30 otherwise) */
#define WRAP_GAP            0.05 /* rad: a range this near a whole turn nearly wraps */
#define NULL_RADIUS         0.05   /* m: the null-space pull acts only this close */
#define NULL_FLOOR          1e-4   /* m: and stops here, so convergence stays fast */
#define NULL_GAIN           0.2    /* per iteration, of the excursion past the quarter */
#define CONT_MAX_STEP       0.2    /* rad or m: a motion's largest joint step per iteration */
#define CONT_UNREACHED      0.2    /* rad: a seed missing the orientation by more had missed it */
#define CONT_FIT_RADIUS     0.05   /* rad or m: a motion's fit moves no joint further per frame,
                                    * unless the motion says how far (km_ik_solve_seeded) */
#define CONT_FIT_STALL      1e-6   /* relative orientation gain that ends a motion's fit */
#define CONT_REACH_ITERS    6      /* a fit's quick check that the orientation is back in reach */

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
  gboolean           has_tool;  /* problem->effector_offset is not zero */
  KmVec3             tool;      /* problem->effector_offset */
  PathJoint         *path;
  guint              n_path;
  guint              n_var;
  guint              n_path_var; /* the path's own variables come first; masters off the path
                                  * of followers on it after them (n_path_var .. n_var-1) */
  guint              n_rows;  /* 6, or 3 when position only */
  int               *var_dof; /* full DOF index of every variable */
  double            *lo, *hi;
  /* Per variable, filled by forward kinematics: a world axis and a world point. */
  KmVec3            *axis_w;
  KmVec3            *point_w;
  gboolean          *is_rot;
  double            *col;     /* n_var × 6 weighted Jacobian columns */
  gboolean          *active;
  gboolean          *held;    /* the orientation fit keeps these free on their limit */
  double            *grad;    /* the orientation fit's projected gradient, per variable */
  double            *jump_scale; /* per variable: km_ik_jump_scales() of lo, hi */
  gboolean          *single;  /* a revolute or prismatic variable (not a spherical angle) */
  gboolean          *euler;   /* spherical angles whose columns are euler rates (see path_fk) */
  gboolean          *euler_fk;/* the same, as the last path_fk found it */
  /* Linked (mimic) joints: m_lead is the master's variable (on the path or after it), -1
   * for a free variable, -2 for a follower whose master is fixed (above the base: a
   * constant); the follower's value is m_ratio · master + m_offset (m_offset alone for a
   * constant). */
  int               *m_lead;
  double            *m_ratio, *m_offset;
  gboolean           has_mimic;
  double            *q, *q_trial, *q_best, *dq, *q_save, *q_ref;
  double            *lo_save, *hi_save; /* the limits, while a motion's fit narrows them */
  double             wp, wo;
  gboolean           pull;    /* the null-space pull away from the limits is allowed */
  double             pos_scale; /* of the position tolerance, for convergence */
  gboolean           euler_ok;  /* spherical angles on a limit may use euler-rate columns */
  gboolean           keep_branch; /* a spherical joint never jumps to its other euler branch */
  double             max_step;  /* largest |dq| of one iteration; 0 = unbounded */
  const double      *anchor;    /* a motion's orientation fit stays near this (the seed) */
  double             fit_stall; /* relative rotation gain that ends the orientation fit */
  gboolean           fit_closest; /* a motion's fit also where the position cannot be met */
  double             fit_radius;  /* how far a motion's fit moves a joint (fit_box()) */
  gboolean           local_only;  /* km_ik_solve_local(): a motion search that has spent its
                                   * iterations on its warm descent stops there */
  guint64            rng;
  guint              iterations;
  GCancellable      *cancellable;
  gboolean           cancelled;
#ifdef KM_IK_TRACE
  const char        *stage;   /* which stage produced the answer */
#endif
} Work;

#ifdef KM_IK_TRACE
#define TRACE_STAGE(w, s) ((w)->stage = (s))
#else
#define TRACE_STAGE(w, s) ((void) 0)
#endif

typedef struct
{
  double pos_err;
  double rot_err;
  double merit;               /* weighted error norm, m */
} Eval;

/* |v| without overflow; G_MAXDOUBLE for a vector that is not finite (infinite or NaN:
 * forward kinematics that overflowed), never 0 for one. */
static double
safe_norm3 (KmVec3 v)
{
  double m = MAX (fabs (v.x), MAX (fabs (v.y), fabs (v.z)));

  if (!km_vec3_is_finite (v))
    return G_MAXDOUBLE;
  if (!(m > 0.0))
    return 0.0;
  v = km_vec3_scale (v, 1.0 / m);
  return m * sqrt (km_vec3_dot (v, v));
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
  /* The effector point: the Jacobian's columns and the errors use it alike. Zero offset:
   * nothing composed, so the arithmetic stays that of the joint's origin. */
  if (w->has_tool)
    t.pos = km_transform_apply (&t, w->tool);
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

/* In a motion, whether @a (an answer far from the seed) is worth a jump from @b (the best
 * answer near it): it meets the pose where @b does not, or it comes closer to the target's
 * position by more than the tolerance. Continuity comes before a better orientation, as in
 * motion_fit_from_seed(); and a gain within the tolerance is noise of the descent, which,
 * chased, makes a motion that cannot meet its targets (just out of reach) jump from one far
 * minimum to another. */
static gboolean
eval_clearly_better (const Work *w,
                     const Eval *a,
                     const Eval *b)
{
  if (eval_converged (w, a) != eval_converged (w, b))
    return eval_converged (w, a);
  return a->pos_err < b->pos_err - w->problem->position_tolerance;
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
  for (guint v = 0; v < w->n_path_var; v++)
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
  /* A master off the path moves the effector only through its followers on the path. */
  for (guint v = w->n_path_var; v < w->n_var; v++)
    {
      w->euler[v] = FALSE;
      memset (&w->col[v * 6], 0, 6 * sizeof (double));
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

/* |J_v|² over rows 0..@m-1. */
static double
column_norm2 (const Work *w,
              guint       v,
              guint       m)
{
  const double *c = &w->col[v * 6];
  double n2 = 0.0;

  for (guint i = 0; i < m; i++)
    n2 += c[i] * c[i];
  return n2;
}

/* Whether |J_v|² = @n2 counts in equilibrating: a revolute joint whose axis runs through, or
 * within a millimetre of, the effector point has a position column of about 1e-17 or
 * little more where the orientation is not solved for; scaled to unit length, it would
 * take huge turns for nothing. */
static gboolean
column_moves (const Work *w,
              double      n2)
{
  return n2 > COLUMN_FLOOR * w->wp * w->wp && isfinite (n2);
}

/* An equilibrated step's weight of column @v, 1/|J_v|² (0 for a column that moves nothing,
 * whose plain step is next to nothing too). */
static double
column_weight (const Work *w,
               guint       v,
               guint       m)
{
  double n2 = column_norm2 (w, v, m);

  return column_moves (w, n2) ? 1.0 / n2 : 0.0;
}

/*
 * dq = Jᵀ (J Jᵀ + λ I)⁻¹ e over the active columns, rows 0..n_rows-1, plus, for redundant
 * chains, a null-space motion that pulls joints in the outer quarters of their range back
 * inwards (only undamped: with a large λ the projector is no longer one). That keeps a warm-started trajectory from drifting into its limits, where it
 * would lose the track.
 *
 * Far out along a long slide, a revolute joint before it has a column as long as its lever
 * (1e8 m down a turning slide: 1e8), the slide's is 1: J Jᵀ then holds both 1e16 and 1,
 * and its rounding (1e16 · 2⁻⁵³, about 1) drowns the slide's direction, so that the step
 * along it is noise and the solve fails. Where the active columns' squared lengths differ
 * by more than EQUILIBRATE, every column is scaled to unit length first (the weighted
 * least-norm step dq = D² Jᵀ (J D² Jᵀ + λ I)⁻¹ e, D = diag (1/|J_v|), and the null-space
 * pull projected in the same metric): each joint's step is then measured by what it moves
 * the effector, and J D² Jᵀ is as well conditioned as the directions are. Ordinary chains
 * (columns within a few orders of magnitude) never get there, and keep the plain step.
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
  gboolean use_null = FALSE, equilibrate;
  double e_norm = 0.0, c_max = 0.0, c_min = INFINITY;

  for (guint i = 0; i < m; i++)
    e_norm += e[i] * e[i];
  e_norm = sqrt (e_norm);

  for (guint v = 0; v < w->n_var; v++)
    if (w->active[v])
      {
        double n2 = column_norm2 (w, v, m);

        if (column_moves (w, n2))
          c_max = MAX (c_max, n2), c_min = MIN (c_min, n2);
      }
  equilibrate = c_max > EQUILIBRATE * c_min;

  for (guint v = 0; v < w->n_var; v++)
    {
      const double *c = &w->col[v * 6];
      double sc;

      if (!w->active[v])
        continue;
      n_active++;
      sc = equilibrate ? column_weight (w, v, m) : 1.0;
      for (guint i = 0; i < m; i++)
        for (guint j = 0; j <= i; j++)
          a[i][j] += c[i] * c[j] * sc;
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

        /* (Not a joint that moves nothing aimed: a column of zeros is no part of the task,
         * and pulling it would only turn what lies beyond it.) */
        if (w->active[v] && w->is_rot[v] && isfinite (w->hi[v] - w->lo[v])
            && column_moves (w, column_norm2 (w, v, m)))
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
          if (equilibrate)
            s *= column_weight (w, v, m);
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
  for (guint v = w->n_path_var; v < w->n_var; v++)
    {
      double x = q[v] + dq[v];

      q_trial[v] = CLAMP (isfinite (x) ? x : q[v], w->lo[v], w->hi[v]);
    }
  enforce_mimic (w, q_trial);
}

/*
 * Which columns sit on a limit with the step pushing outwards: revolute ones and a spherical
 * joint's (its euler rates where the orientation fit allows them, else its rotation-vector
 * columns against the angles' limits); prismatic ones in the orientation fit and with
 * @slides. A slide on its limit that stays in the step loses its part of the step to the
 * projection, and what is left is no descent direction for the other joints: steps are
 * rejected and the damping grows. The patient descents, which settle an answer that does not
 * converge, pass @slides: a target closer than the arm folds (its slide on the shortest)
 * once ended 0.1-0.2 mm short of the closest fit that way. The restarts' short descents
 * keep their dynamics (their minima decide which restart converges; seed5's figures).
 */
static gboolean
freeze_blocked (Work         *w,
                const double *q,
                gboolean      slides)
{
  gboolean changed = FALSE;

  for (guint v = 0; v < w->n_var; v++)
    {
      if (!w->active[v] || w->held[v]
          || !(w->euler_ok ? w->single[v] || w->euler[v]
                           : w->is_rot[v] || (slides && w->single[v])))
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

/* Fills @e, the weighted error the step sees; returns how many times larger the whole
 * error is (1 when it was not cut down to STEP_ERROR_MAX). */
static double
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
  if (!(n > STEP_ERROR_MAX))
    return 1.0;
  for (int i = 0; i < 6; i++)
    e[i] *= STEP_ERROR_MAX / n;
  return n / STEP_ERROR_MAX;
}

/* Whether the step w->dq moves a prismatic variable that has room for more than a cut-down
 * step (STEP_ERROR_MAX of weighted error) in its direction: a rail, a gantry or a mobile
 * base's virtual joint, whose travel the cut makes crawl. */
static gboolean
step_along_long_travel (const Work   *w,
                        const double *q)
{
  double room = STEP_ERROR_MAX / w->wp;

  for (guint v = 0; v < w->n_var; v++)
    if (!w->is_rot[v] && w->m_lead[v] == -1 &&
        ((w->dq[v] > 0 && w->hi[v] - q[v] > room) || (w->dq[v] < 0 && q[v] - w->lo[v] > room)))
      return TRUE;
  return FALSE;
}

/*
 * The error was cut down to STEP_ERROR_MAX, and the step just taken (w->dq, to w->q,
 * evaluated as *ev) moved a long prismatic travel: the cut keeps the linearisation of the
 * rotations sane, but makes a target hundreds of metres down a rail take hundreds of
 * iterations (and the stall test gives up long before). Along a prismatic axis the position
 * is linear in the joint value, so the step is taken again, doubled each time, from each
 * better point, while the merit keeps falling and the steps together stay within the whole
 * error (@ratio times the cut one). Its rotations grow with it up to EXTEND_TURN in all:
 * enough to swing a long slide round (whose turns the cut makes tiny), not so much that an
 * arm on a rail, whose turn helps the carriage a little, spins round and round. Each trial
 * is checked as any step is.
 */
static void
extend_step (Work        *w,
             double       ratio,
             KmTransform *eff,
             KmVec3      *ep,
             KmVec3      *er,
             Eval        *ev)
{
  double taken = 1.0, k = 1.0, turn = 0.0, rot = 1.0, rot_room;
  gboolean rejected = FALSE;

  for (guint v = 0; v < w->n_var; v++)
    if (w->is_rot[v])
      turn = MAX (turn, fabs (w->dq[v]));
  /* Multiples of the step's rotations still allowed (1 taken). */
  rot_room = turn > 0.0 ? EXTEND_TURN / turn - 1.0 : 0.0;

  while (taken + k <= ratio && step_along_long_travel (w, w->q))
    {
      KmTransform eff_t;
      KmVec3 ep_t, er_t;
      Eval trial;
      double rot_next = CLAMP (rot_room, 0.0, k);

      /* The prismatic parts are k times the step now, the rotations rot times. */
      for (guint v = 0; v < w->n_var; v++)
        if (w->is_rot[v])
          w->dq[v] = rot > 0.0 ? w->dq[v] * (rot_next / rot) : 0.0;
      rot = rot_next;
      apply_step (w, w->q, w->dq, w->q_trial);
      path_fk (w, w->q_trial, &eff_t);
      pose_error (w, &eff_t, &ep_t, &er_t, &trial);
      if (!(trial.merit < ev->merit))
        {
          rejected = TRUE;
          break;
        }
      memcpy (w->q, w->q_trial, w->n_var * sizeof (double));
      *eff = eff_t, *ep = ep_t, *er = er_t, *ev = trial;
      taken += k;
      rot_room -= rot;
      k *= 2.0;
      for (guint v = 0; v < w->n_var; v++)
        if (!w->is_rot[v])
          w->dq[v] *= 2.0;
    }
  /* The columns are built from the last forward kinematics: that of w->q. */
  if (rejected)
    path_fk (w, w->q, eff);
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
      double merit_c, lambda, ratio;
      guint v;

      local++;
      ratio = error_vector (w, ep, er, e);
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
      for (int round = 0; round < 3 && freeze_blocked (w, w->q, patient); round++)
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
            if (ratio > 2.0 && !(w->max_step > 0))
              extend_step (w, ratio, &eff, &ep, &er, &ev);
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

/* The largest joint motion between @q and @sp (path variables), in rad or m: what a
 * motion's fit may move per frame (its trust region) and what its steps gain per. */
static double
step_length (const Work   *w,
             const double *q,
             const double *sp)
{
  double d = 0.0;

  for (guint v = 0; v < w->n_var; v++)
    d = MAX (d, fabs (q[v] - sp[v]));
  return d;
}

/* The same, each joint's motion measured against its range (km_ik_jump_distance()): what a
 * motion's jump (above KM_IK_CONT_JUMP) is measured in, so that a joint of narrow range
 * (a short prismatic stroke) crossing it in one frame is one. */
static double
seed_distance (const Work   *w,
               const double *q,
               const double *sp)
{
  return km_ik_jump_distance (q, sp, w->jump_scale, w->n_var);
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

/* Whether a free variable of w->q is on one of its limits. */
static gboolean
any_on_limit (const Work *w)
{
  for (guint v = 0; v < w->n_var; v++)
    if (w->m_lead[v] == -1 && (w->q[v] <= w->lo[v] || w->q[v] >= w->hi[v]))
      return TRUE;
  return FALSE;
}

/*
 * A motion's fit (w->anchor set) moves no joint further than w->fit_radius from where
 * the position was met (w->q_ref): for its span the range of every free variable is narrowed
 * to that box, which the fit then treats as it treats any limit (a step is projected into it,
 * a joint on its edge and pushed outwards drops out of the step, the damping turns the step
 * along the edge). So a step that would leave the box is cut short instead of thrown away,
 * and the fit keeps descending within it: a descent that never gains height cannot cross a
 * valley of the orientation error onto another branch, and at the edge of the box the next
 * frame goes on from there. @narrow: narrow (TRUE) or give back the limits (FALSE).
 */
static void
fit_box (Work     *w,
         gboolean  narrow)
{
  for (guint v = 0; v < w->n_var; v++)
    {
      if (!narrow)
        {
          w->lo[v] = w->lo_save[v];
          w->hi[v] = w->hi_save[v];
          continue;
        }
      w->lo_save[v] = w->lo[v];
      w->hi_save[v] = w->hi[v];
      if (w->m_lead[v] != -1)
        continue;
      w->lo[v] = MAX (w->lo[v], MIN (w->q_ref[v] - w->fit_radius, w->q_ref[v]));
      w->hi[v] = MIN (w->hi[v], MAX (w->q_ref[v] + w->fit_radius, w->q_ref[v]));
    }
}

/*
 * Position priority from w->q (in place): meet the position (position alone, with the
 * active set of the limits), then fit the orientation in what freedom is left. Each outer
 * iteration takes a damped orientation step in the null space of the position task (joints
 * on a limit and pushed outwards are taken out of it) and meets the position again from
 * there; the result is kept only when the position is met and the rotation error shrank.
 * It stops at the best fit: when the projected orientation gradient vanishes, or no step
 * gains any more. Needs n_rows == 6.
 *
 * A motion's fit (w->anchor set) stays within the box of fit_box() around where the
 * position was met. With w->fit_closest, where the position cannot be met at all and no
 * limit holds it where it stopped (a limit may cut off a branch that comes closer), it
 * fits the orientation at the closest position the seed leads to (a step is kept when it
 * leaves the position no further off than that, to the tolerance): a joint that only turns
 * the effector (a wrist's last axis) still follows the orientation then.
 */
static Eval
fit_priority (Work  *w,
              guint  max_outer)
{
  const double tol = w->problem->position_tolerance;
  gboolean boxed = w->anchor != NULL;
  Eval ev;
  double mu = 1e-3, threshold, pos_ok = tol;

  memset (w->held, 0, w->n_var * sizeof (gboolean));
  w->euler_ok = TRUE;
  ev = restore_position (w, REFINE_ITERATIONS);
  if (boxed && w->fit_closest && ev.pos_err > tol && isfinite (ev.pos_err) && !any_on_limit (w))
    pos_ok = ev.pos_err + tol;
  if (ev.pos_err > pos_ok)
    {
      w->euler_ok = FALSE;
      return ev;
    }
  if (boxed)
    {
      memcpy (w->q_ref, w->q, w->n_var * sizeof (double));
      fit_box (w, TRUE);
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
      for (int round = 0; round < 3 && g >= 0 && freeze_blocked (w, w->q, TRUE); round++)
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
      if (trial.pos_err <= pos_ok && trial.rot_err < ev.rot_err)
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
  if (boxed)
    fit_box (w, FALSE);
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
      double lo = w->lo[v], hi = w->hi[v], u = km_ik_rng_uniform (&w->rng);

      if (spread > 0)
        {
          w->q[v] = CLAMP (seed[v] + (2 * u - 1) * spread, lo, hi);
        }
      else if (isfinite (lo) && isfinite (hi))
        w->q[v] = km_ik_lerp_range (lo, hi, u);
      else if (!isfinite (lo) && !isfinite (hi))
        /* Unlimited: a turn around the seed (angles) or ±1 m (prismatic). */
        w->q[v] = seed[v] + (2 * u - 1) * (w->is_rot[v] ? G_PI : 1.0);
      else
        {
          /* Limited on one side only: the same span, slid inside the range, so that its
           * finite end is not drawn more often than any other value. */
          double a, b;

          km_range_span (lo, hi, seed[v], w->is_rot[v] ? G_PI : 1.0, &a, &b);
          w->q[v] = a + u * (b - a);
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
    if (step_length (w, w->q, starts->q[i]) < FIT_STARTS_APART)
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

/*
 * One solve's search, stage by stage: the answer so far (best, its values in w->q_best),
 * the lowest merit any attempt reached (best_merit, its values in q_merit) and how many
 * attempts were made.
 */
typedef struct
{
  const double *seed;         /* n_var: the seed's path values */
  Eval          best;
  Eval          best_merit;
  double       *q_merit;      /* n_var */
  guint         attempts;
  gboolean      restart;      /* restarts from random starts are still to come */
  gboolean      beyond;       /* the target's position is beyond reach (beyond_reach()) */
  FitStarts     fit_starts;
} Search;

/* w->q, evaluated as @ev, becomes the answer. */
static void
take_answer (Work       *w,
             Search     *s,
             const Eval *ev)
{
  s->best = *ev;
  memcpy (w->q_best, w->q, w->n_var * sizeof (double));
}

/* @out's values: @seed, clamped into the limits, with linked joints coupled exactly (each
 * master within the range that keeps its followers within theirs). */
static void
seed_within_limits (const KmSkeleton *skel,
                    const double     *seed,
                    guint             n_dof,
                    KmIkSolution     *out)
{
  const KmJoint *joints = km_skeleton_get_joints (skel);
  guint n_joints = km_skeleton_get_n_joints (skel);

  if (out->q != seed)
    memcpy (out->q, seed, n_dof * sizeof (double));
  km_skeleton_clamp (skel, out->q);
  if (!km_skeleton_has_mimic (skel))
    return;
  for (guint t = 0; t < n_joints; t++)
    if (joints[t].mimic >= 0 && joints[t].mimic < (int) n_joints &&
        joints[joints[t].mimic].dof_index >= 0)
      {
        double lo, hi;
        int d = joints[joints[t].mimic].dof_index;

        km_skeleton_get_mimic_range (skel, (guint) joints[t].mimic, &lo, &hi);
        out->q[d] = CLAMP (out->q[d], lo, hi);
      }
  km_skeleton_apply_mimic (skel, out->q);
}

/* Points the per-variable arrays of @w into @d (18 doubles per variable), @v (2 vectors)
 * and @i (8 ints). */
static void
work_lay_out (Work   *w,
              double *d,
              KmVec3 *v,
              int    *i)
{
  guint n = w->n_var;

  /* Doubles: col (6 per variable), lo, hi, q, q_trial, q_best, dq, q_save, q_ref, m_ratio,
   * m_offset, grad, jump_scale, lo_save, hi_save. Vectors: axis_w, point_w. Ints: var_dof, is_rot, active, single, euler,
   * euler_fk, m_lead, held. */
  w->col = d;
  w->lo = w->col + 6 * n;
  w->hi = w->lo + n;
  w->q = w->hi + n;
  w->q_trial = w->q + n;
  w->q_best = w->q_trial + n;
  w->dq = w->q_best + n;
  w->q_save = w->dq + n;
  w->q_ref = w->q_save + n;
  w->m_ratio = w->q_ref + n;
  w->m_offset = w->m_ratio + n;
  w->grad = w->m_offset + n;
  w->jump_scale = w->grad + n;
  w->lo_save = w->jump_scale + n;
  w->hi_save = w->lo_save + n;
  w->axis_w = v;
  w->point_w = w->axis_w + n;
  w->var_dof = i;
  w->is_rot = w->var_dof + n;
  w->active = w->is_rot + n;
  w->single = w->active + n;
  w->euler = w->single + n;
  w->euler_fk = w->euler + n;
  w->m_lead = w->euler_fk + n;
  w->held = w->m_lead + n;
  memset (w->held, 0, n * sizeof (gboolean));
}

/* Whether joint @j is one of @idx's @n joints. */
static gboolean
joint_among (const int *idx,
             guint      n,
             int        j)
{
  for (guint k = 0; k < n; k++)
    if (idx[k] == j)
      return TRUE;
  return FALSE;
}

/* The master of @follower when it is a variable of the solve although off the path: a
 * 1-DOF independent joint that is no ancestor of the effector (@idx: all @depth of them,
 * root first; those above the base are fixed, so their followers are constants). -1
 * otherwise. */
static int
off_path_master (const KmJoint *joints,
                 const int     *idx,
                 guint          depth,
                 int            follower)
{
  const KmJoint *j = &joints[follower];

  if (j->mimic < 0 || j->n_dof != 1 || joints[j->mimic].n_dof != 1 ||
      joints[j->mimic].mimic >= 0 || joints[j->mimic].dof_index < 0 ||
      joint_among (idx, depth, j->mimic))
    return -1;
  return j->mimic;
}

/* The number of joints from the root down to @effector, itself included. */
static guint
path_depth (const KmJoint *joints,
            int            effector)
{
  guint depth = 0;

  for (int j = effector; j >= 0; j = joints[j].parent)
    depth++;
  return depth;
}

/* The path of @p: fills @idx (path_depth() entries) with the effector's ancestors, root
 * first, and sets @first to the index of the first joint below the base (0 without one).
 * FALSE when the base is no ancestor of the effector. */
static gboolean
lay_out_path (const KmIkProblem *p,
              const KmJoint     *joints,
              int               *idx,
              guint              depth,
              guint             *first)
{
  guint k = depth;

  for (int j = p->effector; j >= 0; j = joints[j].parent)
    idx[--k] = j;
  *first = 0;
  if (p->base < 0)
    return TRUE;
  while (*first < depth && idx[*first] != p->base)
    (*first)++;
  if (*first == depth)
    return FALSE;
  (*first)++;
  return TRUE;
}

/* How many variables the masters off the path of the path's followers add (each once). */
static guint
count_off_path_masters (const KmJoint *joints,
                        const int     *idx,
                        guint          depth,
                        guint          first)
{
  guint n = 0;

  for (guint k = first; k < depth; k++)
    {
      int m = off_path_master (joints, idx, depth, idx[k]);
      gboolean seen = FALSE;

      for (guint k2 = first; k2 < k && m >= 0 && !seen; k2++)
        seen = joints[idx[k2]].n_dof == 1 && joints[idx[k2]].mimic == m;
      n += m >= 0 && !seen;
    }
  return n;
}

/* The variable of @master, off the path, after the path's own (*n_used of them so far):
 * the one it already has, or a new one with its value from @q and its narrowed range. */
static int
off_path_variable (Work         *w,
                   int           master,
                   const double *q,
                   guint        *n_used)
{
  const KmJoint *mj = &km_skeleton_get_joints (w->problem->skeleton)[master];
  guint v;

  for (v = w->n_path_var; v < *n_used; v++)
    if (w->var_dof[v] == mj->dof_index)
      return (int) v;
  g_assert (*n_used < w->n_var);
  v = (*n_used)++;
  w->var_dof[v] = mj->dof_index;
  km_skeleton_get_mimic_range (w->problem->skeleton, (guint) master, &w->lo[v], &w->hi[v]);
  w->is_rot[v] = mj->type != KM_JOINT_PRISMATIC;
  w->single[v] = TRUE;
  w->euler[v] = w->euler_fk[v] = FALSE;
  w->axis_w[v] = w->point_w[v] = KM_VEC3_ZERO;
  w->q[v] = q[mj->dof_index];
  w->m_lead[v] = -1;
  w->m_ratio[v] = 0.0;
  w->m_offset[v] = 0.0;
  return (int) v;
}

/* Fills @w's path and variables from the joints @idx[@first …] (w->n_path of them, root
 * first; @idx[0 … @first-1] lie above the base), their values from @q (all DOFs) and their
 * limits; linked joints follow their master's variable, which for a master off the path
 * comes after the path's own (it moves the effector through its followers), or stay
 * constant when their master lies above the base. */
static void
work_load_path (Work         *w,
                const int    *idx,
                guint         first,
                const double *q)
{
  const KmJoint *joints = km_skeleton_get_joints (w->problem->skeleton);
  const int *path = idx + first;
  guint v = 0;

  for (guint k = 0; k < w->n_path; k++)
    {
      const KmJoint *j = &joints[path[k]];
      PathJoint *pj = &w->path[k];

      pj->type = j->type;
      pj->has_frame = j->has_rotation;
      km_mat3_from_quat (j->rotation, &pj->frame);
      pj->offset = j->offset;
      pj->axis = j->axis;
      pj->var = j->n_dof > 0 ? (int) v : -1;
      for (guint d = 0; d < j->n_dof; d++, v++)
        {
          w->var_dof[v] = j->dof_index + (int) d;
          w->lo[v] = j->limits[d].limited ? j->limits[d].min : -INFINITY;
          w->hi[v] = j->limits[d].limited ? j->limits[d].max : INFINITY;
          w->is_rot[v] = j->type != KM_JOINT_PRISMATIC;
          w->single[v] = j->type == KM_JOINT_REVOLUTE || j->type == KM_JOINT_PRISMATIC;
          w->euler[v] = w->euler_fk[v] = FALSE;
          w->q[v] = q[w->var_dof[v]];
          w->m_lead[v] = -1;
          w->m_ratio[v] = 0.0;
          w->m_offset[v] = 0.0;
          if (w->has_mimic && w->single[v])
            km_skeleton_get_mimic_range (w->problem->skeleton, (guint) path[k], &w->lo[v],
                                         &w->hi[v]);
        }
    }
  w->n_path_var = v;
  for (guint k = 0; w->has_mimic && k < w->n_path; k++)
    {
      const KmJoint *j = &joints[path[k]];
      int fv = w->path[k].var, mv = -1;

      if (j->mimic < 0 || fv < 0 || j->n_dof != 1)
        continue;
      w->m_lead[fv] = -2;
      w->m_offset[fv] = w->q[fv];
      for (guint k2 = 0; k2 < w->n_path; k2++)
        if (path[k2] == j->mimic && w->path[k2].var >= 0 &&
            joints[j->mimic].n_dof == 1 && joints[j->mimic].mimic < 0)
          mv = w->path[k2].var;
      if (mv < 0 && off_path_master (joints, idx, first + w->n_path, path[k]) >= 0)
        mv = off_path_variable (w, j->mimic, q, &v);
      if (mv >= 0)
        {
          w->m_lead[fv] = mv;
          w->m_ratio[fv] = j->mimic_ratio;
          w->m_offset[fv] = j->mimic_offset;
        }
    }
  g_assert (v == w->n_var);
  km_ik_jump_scales (w->lo, w->hi, w->n_var, w->jump_scale);
  enforce_mimic (w, w->q);
}

/* The problem's analytic solver (a body handler's): its answer replaces the seed in w->q
 * when it is no worse, unless the seed already meets the target: that one is kept as it
 * is, as the numeric search keeps it, however much nearer the hook's answer is (a closed
 * form picks one branch, and Solve on a pose that is right must not flip an elbow).
 * @q: all DOFs, the seed (within the limits). */
static void
try_analytic (Work              *w,
              const KmTransform *target,
              const double      *q)
{
  const KmIkProblem *p = w->problem;
  g_autofree double *scratch = g_memdup2 (q, p->n_dof * sizeof (double));
  KmTransform eff;
  KmVec3 ep, er;
  Eval ea, es;
  KmTransform joint_target = *target;

  /* The hook solves for the joint's frame: where it is when the effector point is on the
   * target with the target's orientation (the comparison below keeps only a better answer,
   * so a position-only target's arbitrary orientation costs nothing). */
  if (w->has_tool)
    joint_target.pos = km_vec3_sub (target->pos, km_mat3_mul_vec3 (&target->rot, w->tool));
  if (!p->analytic (p, &joint_target, scratch, p->analytic_data))
    return;
  path_fk (w, w->q, &eff);
  pose_error (w, &eff, &ep, &er, &es);
  if (eval_converged (w, &es))
    return;
  km_skeleton_clamp (p->skeleton, scratch);
  for (guint v = 0; v < w->n_var; v++)
    w->q_trial[v] = CLAMP (scratch[w->var_dof[v]], w->lo[v], w->hi[v]);
  enforce_mimic (w, w->q_trial);
  path_fk (w, w->q_trial, &eff);
  pose_error (w, &eff, &ep, &er, &ea);
  if (ea.merit <= es.merit)
    memcpy (w->q, w->q_trial, w->n_var * sizeof (double));
}

/*
 * A motion whose chain has too few DOFs for every pose: when the seed misses the orientation
 * by far more than one frame of motion explains, the orientation has been out of reach, and
 * the motion follows the best fit (position met, orientation gradient on the position's
 * manifold zero) from the seed on; no restart can find an orientation that does not exist.
 * Where the position cannot be met either, the fit at the closest position the seed leads
 * to, unless a limit holds it there (the search goes on then: another branch may come
 * closer). TRUE when that fit is the answer.
 */
static gboolean
motion_follow_fit (Work              *w,
                   Search            *s,
                   const KmTransform *target)
{
  const KmIkProblem *p = w->problem;
  KmTransform from;
  Eval ev;

  path_fk (w, s->seed, &from);
  if (km_mat3_rotation_angle (&from.rot, &target->rot) <= CONT_UNREACHED)
    return FALSE;
  /* Continuity over the last digits of a fit that cannot be met anyway: the fit stays near
   * the seed (where the fit has two branches, on the seed's), and stops when a step gains
   * little. */
  w->anchor = s->seed;
  w->fit_stall = CONT_FIT_STALL;
  w->max_step = CONT_MAX_STEP;
  w->fit_closest = TRUE;
  ev = fit_priority (w, PRIORITY_ITERATIONS);
  w->anchor = NULL;
  w->fit_closest = FALSE;
  w->fit_stall = 1e-10;
  w->max_step = 0.0;
  if ((ev.pos_err > p->position_tolerance && (!isfinite (ev.pos_err) || any_on_limit (w)))
      || w->cancelled)
    {
      memcpy (w->q, s->seed, w->n_var * sizeof (double));
      return FALSE;
    }
  if (!eval_converged (w, &ev))
    {
      Eval fit = ev;
      g_autofree double *q_fit = g_memdup2 (w->q, w->n_var * sizeof (double));

      /* Unless the orientation is within reach after all (a fast frame, or a wrist that
       * can turn the tip every way): one quick descent (it stalls at once where it cannot
       * be met). */
      ev = descend (w, CONT_REACH_ITERS, FALSE);
      if (eval_converged (w, &ev) && seed_distance (w, w->q, s->seed) > KM_IK_CONT_JUMP)
        {
          /* Met, but further than a frame's step: the motion's own search (continuation
           * from the seed, the nearest answer) decides, as for a chain of six. */
          memcpy (w->q, s->seed, w->n_var * sizeof (double));
          return FALSE;
        }
      if (!eval_converged (w, &ev))
        {
          memcpy (w->q, q_fit, w->n_var * sizeof (double));
          ev = fit;
        }
    }
  take_answer (w, s, &ev);
  TRACE_STAGE (w, eval_converged (w, &ev) ? "fit-first-met" : "fit-first");
  s->attempts = 1;
  return TRUE;
}

/* A motion's first attempt: the warm descent from the seed, patiently when it stalls (as
 * near a singularity), then again in short steps (a trust region), which cannot be thrown
 * along a near-singular direction onto another branch or into a limit. */
static Eval
motion_descend (Work   *w,
                Search *s)
{
  Eval ev = descend (w, ATTEMPT_ITERATIONS, FALSE);

  if (!eval_converged (w, &ev) && !w->cancelled)
    ev = descend (w, REFINE_ITERATIONS, TRUE);
  if (!eval_converged (w, &ev) && !w->cancelled)
    {
      Eval unbounded = ev;

      /* Kept in q_save: descend() writes its trials into q_trial. */
      memcpy (w->q_save, w->q, w->n_var * sizeof (double));
      memcpy (w->q, s->seed, w->n_var * sizeof (double));
      w->max_step = CONT_MAX_STEP;
      ev = descend (w, REFINE_ITERATIONS, TRUE);
      if (!eval_converged (w, &ev) && !eval_better (w, &ev, &unbounded))
        {
          memcpy (w->q, w->q_save, w->n_var * sizeof (double));
          ev = unbounded;
        }
    }
  return ev;
}

/* Continuation: sub-targets from the seed's pose to @target, ever finer, each met by a
 * descent from the one before. */
static void
motion_subtargets (Work              *w,
                   Search            *s,
                   const KmTransform *target,
                   double            *best_dist)
{
  KmTransform from;
  KmVec3 rv;
  double angle;
  Eval ev;

  path_fk (w, s->seed, &from);
  rv = km_mat3_rotation_error (&from.rot, &target->rot);
  angle = safe_norm3 (rv);
  for (guint n_sub = 4; n_sub <= 64 && *best_dist > KM_IK_CONT_JUMP && !w->cancelled; n_sub *= 4)
    {
      memcpy (w->q, s->seed, w->n_var * sizeof (double));
      for (guint k = 1; k <= n_sub && !w->cancelled; k++)
        {
          double t = (double) k / n_sub;

          w->target.pos = km_vec3_add (from.pos, km_vec3_scale (km_vec3_sub (target->pos, from.pos), t));
          if (angle > 1e-12 && k < n_sub)
            {
              KmMat3 inc;

              km_mat3_from_axis_angle (km_vec3_scale (rv, 1.0 / angle), t * angle, &inc);
              mat3_mul_into (&inc, &from.rot, &w->target.rot);
            }
          else
            w->target.rot = target->rot;
          ev = descend (w, ATTEMPT_ITERATIONS, FALSE);
          if (!eval_converged (w, &ev))
            break;
        }
      w->target = *target;
      ev = evaluate (w);
      s->attempts++;
      if (keep_nearest (w, &ev, s->seed, &s->best, best_dist))
        TRACE_STAGE (w, "subtargets");
    }
}

/* A revolute joint with more than a turn of range that ran into a limit: the same pose a
 * turn further inside keeps every other joint continuous (and leaves the joint its full
 * room). */
static void
motion_turn_inside (Work   *w,
                    Search *s,
                    double *best_dist)
{
  const double *sp = s->seed;
  gboolean turned = FALSE;
  Eval ev;

  memcpy (w->q, sp, w->n_var * sizeof (double));
  /* (Not a master off the path: a turn of it turns its followers by ratio · 2π.) */
  for (guint v = 0; v < w->n_path_var; v++)
    if (w->single[v] && w->is_rot[v] && w->hi[v] - w->lo[v] > 2 * G_PI)
      {
        if (sp[v] - w->lo[v] < KM_IK_CONT_JUMP)
          w->q[v] += 2 * G_PI, turned = TRUE;
        else if (w->hi[v] - sp[v] < KM_IK_CONT_JUMP)
          w->q[v] -= 2 * G_PI, turned = TRUE;
      }
  if (!turned)
    return;
  enforce_mimic (w, w->q);
  /* Measured from the turned seed: the turn itself is no jump. */
  memcpy (w->q_ref, w->q, w->n_var * sizeof (double));
  ev = descend (w, ATTEMPT_ITERATIONS, FALSE);
  s->attempts++;
  if (eval_converged (w, &ev) && seed_distance (w, w->q, w->q_ref) < *best_dist)
    {
      take_answer (w, s, &ev);
      *best_dist = seed_distance (w, w->q, w->q_ref);
      TRACE_STAGE (w, "wrap");
    }
}

/* Far restarts; only a converged answer nearer to the seed replaces the current one. Free
 * steps first; when nothing converges, the same starts in short steps. FALSE when the
 * restarts of a plain solve must still follow: nothing converged and the position was not
 * met, which it must be when it can be. */
static gboolean
motion_restart_far (Work   *w,
                    Search *s,
                    double *best_dist)
{
  const KmIkProblem *p = w->problem;
  guint n_conv = 0;
  Eval near = s->best, ev;

  for (guint pass = 0; pass < 2 && n_conv == 0 && !w->cancelled; pass++)
    {
      w->max_step = pass == 0 ? 0.0 : CONT_MAX_STEP;
      for (guint k = 0; k < (w->n_var < 6 ? 10u : 30u) && n_conv < 3 && !w->cancelled &&
                        w->iterations < p->max_iterations; k++)
        {
          random_start (w, s->seed, 4 + k);
          ev = descend (w, ATTEMPT_ITERATIONS, FALSE);
          s->attempts++;
          n_conv += eval_converged (w, &ev);
          if (keep_nearest (w, &ev, s->seed, &s->best, best_dist))
            TRACE_STAGE (w, "far");
        }
    }
  if (!eval_converged (w, &s->best) && near.pos_err > p->position_tolerance && !w->cancelled)
    {
      random_start (w, s->seed, 4);
      return FALSE;
    }
  return TRUE;
}

/* The longest travel of path joint @k when it is prismatic (none when it has no limit: an
 * infinite reach), else 0. */
static double
joint_travel (const Work *w,
              guint       k)
{
  const PathJoint *pj = &w->path[k];

  if (pj->type != KM_JOINT_PRISMATIC || pj->var < 0)
    return 0.0;
  return MAX (fabs (w->lo[pj->var]), fabs (w->hi[pj->var])) * safe_norm3 (pj->axis);
}

/*
 * Whether no configuration can bring the effector point to the target's position: it lies
 * further from where the path can start than the path reaches. Everything above the first
 * joint that moves (k0) is fixed, so its origin P0 is too; the next origin P1 (or the
 * effector point when k0 is the last joint) lies on a circle about k0's axis (revolute), on
 * a sphere about P0 (spherical), or within the prismatic travel of P0. From P1 on, the
 * reach is bounded by the triangle inequality: the distances between consecutive joint
 * origins, each prismatic joint's longest travel (none when one is unlimited) and the
 * effector offset. The target is out of reach when its distance from that circle or sphere
 * (from P0 for a prismatic k0, with k0's travel added to the reach) exceeds the reach.
 * Sound, not exact: FALSE says nothing (joint limits, which the bound ignores, may well
 * keep the target out of reach). Used only to skip restarts that could never converge.
 */
static gboolean
beyond_reach (const Work *w)
{
  KmTransform t = w->prefix;
  const PathJoint *pj0;
  double reach = w->has_tool ? safe_norm3 (w->tool) : 0.0, dist;
  KmVec3 p0, o1, d;
  KmMat3 r;
  guint k0;

  for (k0 = 0; k0 < w->n_path && w->path[k0].var < 0; k0++)
    {
      const PathJoint *pj = &w->path[k0];
      KmMat3 tmp;

      t.pos = km_transform_apply (&t, pj->offset);
      if (pj->has_frame)
        {
          mat3_mul_into (&t.rot, &pj->frame, &tmp);
          t.rot = tmp;
        }
    }
  if (k0 >= w->n_path)
    return FALSE;
  pj0 = &w->path[k0];
  p0 = km_transform_apply (&t, pj0->offset);
  if (pj0->has_frame)
    mat3_mul_into (&t.rot, &pj0->frame, &r);
  else
    r = t.rot;

  /* The reach from P1 on: its own travel and what follows it. */
  if (k0 + 1 < w->n_path)
    {
      o1 = w->path[k0 + 1].offset;
      reach += joint_travel (w, k0 + 1);
      for (guint k = k0 + 2; k < w->n_path; k++)
        reach += safe_norm3 (w->path[k].offset) + joint_travel (w, k);
    }
  else
    {
      o1 = w->has_tool ? w->tool : KM_VEC3_ZERO;
      reach = 0.0;
    }
  d = km_vec3_sub (w->target.pos, p0);
  switch (pj0->type)
    {
    case KM_JOINT_REVOLUTE:
      {
        /* P1 = P0 + r · Rot(axis, q) · o1: a circle about the world axis a through P0. */
        KmVec3 a = km_mat3_mul_vec3 (&r, pj0->axis), v = km_mat3_mul_vec3 (&r, o1);
        double la = safe_norm3 (a), h0, h, rad;

        if (!(la > 0.0) || !isfinite (la))
          return FALSE;
        a = km_vec3_scale (a, 1.0 / la);
        h0 = km_vec3_dot (v, a);
        rad = safe_norm3 (km_vec3_sub (v, km_vec3_scale (a, h0)));
        h = km_vec3_dot (d, a) - h0;
        dist = hypot (h, safe_norm3 (km_vec3_sub (d, km_vec3_scale (a, km_vec3_dot (d, a))))
                         - rad);
      }
      break;
    case KM_JOINT_SPHERICAL:
      dist = fabs (safe_norm3 (d) - safe_norm3 (o1));
      break;
    default:
      /* Prismatic (or anything else): from P0, with its travel and o1 in the reach. */
      dist = safe_norm3 (d);
      reach += safe_norm3 (o1) + joint_travel (w, k0);
      break;
    }
  if (!isfinite (reach) || !isfinite (dist))
    return FALSE;
  return dist > reach * (1.0 + 1e-9) + w->problem->position_tolerance;
}

/* A motion's position-priority fit from the seed itself (the weighted descent may have
 * drifted to another branch, trading position for orientation), for a pose not met.
 * Continuity first: it wins whenever it meets the position, even over a better orientation
 * that the drifted descent found elsewhere. */
static void
motion_fit_from_seed (Work   *w,
                      Search *s)
{
  Eval ev;

  if (eval_converged (w, &s->best) || w->cancelled || w->n_rows != 6)
    return;
  memcpy (w->q, s->seed, w->n_var * sizeof (double));
  w->anchor = s->seed;
  w->fit_stall = CONT_FIT_STALL;
  w->max_step = CONT_MAX_STEP;
  w->fit_closest = TRUE;
  ev = fit_priority (w, PRIORITY_ITERATIONS);
  w->anchor = NULL;
  w->fit_closest = FALSE;
  w->fit_stall = 1e-10;
  w->max_step = 0.0;
  if (ev.pos_err <= w->problem->position_tolerance || eval_better (w, &ev, &s->best))
    {
      take_answer (w, s, &ev);
      TRACE_STAGE (w, "fit");
    }
}

/*
 * A motion (continuous: the seed is the previous frame's answer): answers near the seed's
 * branch first. The warm descent (patiently when it stalls, as near a singularity);
 * continuation (sub-targets from the seed's pose to the target, ever finer); a turn inside
 * for a joint with more than a turn of range; restarts close to the seed; for a pose that
 * cannot be met, the best position-priority fit from the seed. Every step is bounded
 * (max_step), and a converged answer that jumped (a joint moved more than KM_IK_CONT_JUMP)
 * is kept only until a nearer one converges. Far restarts only when nothing converged near,
 * and then the converged answer nearest to the seed wins. Sets s->restart when the plain
 * restarts must still follow.
 */
static void
motion_search (Work              *w,
               Search            *s,
               const KmTransform *target)
{
  double best_dist = INFINITY;
  Eval ev;

  s->restart = FALSE;
  if (w->n_var < 6 && w->n_rows == 6 && motion_follow_fit (w, s, target))
    return;
  ev = motion_descend (w, s);
  s->attempts = 1;
  take_answer (w, s, &ev);
  s->best_merit = ev;
  TRACE_STAGE (w, "warm");
  if (w->local_only && !eval_converged (w, &ev) && w->iterations >= w->problem->max_iterations)
    {
      /* A local check (km_ik_solve_local()) whose descent spent every iteration: what
       * follows has none left, so its starts (continuation, turns, restarts) stay where
       * they lie and its orientation fits step without the position being restored. */
      s->restart = FALSE;
      return;
    }
  memcpy (s->q_merit, w->q, w->n_var * sizeof (double));
  if (eval_converged (w, &ev))
    best_dist = seed_distance (w, w->q, s->seed);
  if (!eval_converged (w, &ev) && !w->cancelled && beyond_reach (w))
    {
      /* Nothing converges anywhere: continuation, restarts and far searches cannot help,
       * and far answers would only break the motion. */
      motion_fit_from_seed (w, s);
      return;
    }
  if (best_dist > KM_IK_CONT_JUMP && !w->cancelled)
    {
      motion_subtargets (w, s, target, &best_dist);
      if (best_dist > KM_IK_CONT_JUMP && !w->cancelled)
        motion_turn_inside (w, s, &best_dist);
      for (guint k = 1; k <= 3 && best_dist > KM_IK_CONT_JUMP && !w->cancelled; k++)
        {
          random_start (w, s->seed, k);
          ev = descend (w, ATTEMPT_ITERATIONS, FALSE);
          s->attempts++;
          if (keep_nearest (w, &ev, s->seed, &s->best, &best_dist))
            TRACE_STAGE (w, "near");
        }
      motion_fit_from_seed (w, s);
    }
  if (best_dist > KM_IK_CONT_JUMP && !w->cancelled)
    s->restart = !motion_restart_far (w, s, &best_dist);
}

/* Restarts of a chain with fewer than six DOFs stop once the same minimum has come back this
 * often: the orientation is then most likely one the chain cannot take. Three was too few:
 * seed5 with its spherical shoulder written as three revolute joints (as a .body or URDF
 * has it) came back three times to a minimum 2.5 rad off on 14 of the 10,000 bench cold
 * targets, which other starts meet; at ten, one is left 0.008 rad off, at about the same
 * iterations (40.1 → 41.1 a target; 1687 → 1710 for targets no pose meets). */
#define SAME_MINIMUM_STOP 10

/* Restarts from random starts within the limits until one converges or the budget is spent
 * (half of max_iterations, max_restarts attempts, 30 without a gain of merit; a chain with
 * fewer than six DOFs also stops when the same minimum keeps coming back). w->q is the first
 * start. A target beyond reach (s->beyond, a proof that no attempt can converge) stops after
 * FAR_NO_GAIN restarts without a gain: the restarts cannot find it, and what they still
 * contribute, the lowest merit that fit_unreachable() starts from, the closest position
 * being searched there with restarts of its own (which decide the answer: a restart's
 * weighted minimum trades position for orientation, the closest position wins). */
static void
restart_search (Work   *w,
                Search *s)
{
  const KmIkProblem *p = w->problem;
  guint n_same = 0, no_gain = 0;
  gboolean pos_met = FALSE;

  for (;;)
    {
      Eval ev = descend (w, ATTEMPT_ITERATIONS, FALSE);
      gboolean same = s->attempts > 3 && fabs (ev.merit - s->best.merit) <= 1e-9 * (1 + s->best.merit);

      if (s->attempts == 0 || eval_better (w, &ev, &s->best))
        {
          n_same += same;
          take_answer (w, s, &ev);
          TRACE_STAGE (w, "fallback");
        }
      else
        n_same += same;
      if (ev.merit < s->best_merit.merit * (1 - 1e-6))
        no_gain = 0;
      else
        no_gain++;
      if (ev.merit < s->best_merit.merit)
        {
          s->best_merit = ev;
          memcpy (s->q_merit, w->q, w->n_var * sizeof (double));
        }
      fit_starts_offer (&s->fit_starts, w, ev.merit);
      s->attempts++;
      if (ev.pos_err <= p->position_tolerance)
        pos_met = TRUE;
      if (eval_converged (w, &s->best) || w->cancelled ||
          w->iterations >= p->max_iterations / 2 ||
          s->attempts > p->max_restarts || no_gain >= 30 ||
          (s->beyond && no_gain >= FAR_NO_GAIN) ||
          (w->n_var < 6 && (n_same >= SAME_MINIMUM_STOP || (pos_met && s->attempts > 30))))
        return;
      random_start (w, s->seed, s->attempts);
    }
}

/* A joint stopped on a limit that nearly meets its other limit a turn away (a range of almost
 * 2π, as ±3.14): the pose may lie just across that gap, which no descent crosses. Once more
 * from the other limit, the rest as it was. */
static void
cross_wrap_gaps (Work   *w,
                 Search *s)
{
  for (guint v = 0; v < w->n_var && !eval_converged (w, &s->best) && !w->cancelled; v++)
    {
      double range = w->hi[v] - w->lo[v], other;
      Eval ev;

      if (!w->is_rot[v] || w->m_lead[v] != -1 || !(fabs (range - 2 * G_PI) < WRAP_GAP))
        continue;
      if (w->q_best[v] >= w->hi[v])
        other = w->lo[v];
      else if (w->q_best[v] <= w->lo[v])
        other = w->hi[v];
      else
        continue;
      memcpy (w->q, w->q_best, w->n_var * sizeof (double));
      w->q[v] = other;
      enforce_mimic (w, w->q);
      ev = descend (w, ATTEMPT_ITERATIONS, FALSE);
      if (ev.merit < s->best_merit.merit)
        {
          s->best_merit = ev;
          memcpy (s->q_merit, w->q, w->n_var * sizeof (double));
        }
      if (eval_better (w, &ev, &s->best))
        {
          take_answer (w, s, &ev);
          TRACE_STAGE (w, "wrap-gap");
        }
    }
}

/* A revolute joint with a turn or more of range (continuous, or wider than 2π) has the
 * same pose a whole turn further on: of those equivalent values of @q (path variables), the
 * one nearest @seed's (all DOFs) within the limits, so that a solve never adds a turn that
 * its seed did not have, whichever stage found the answer; except a turn away from a limit
 * that the seed is next to. Not for a linked joint: a turn of a master turns its followers
 * by ratio · 2π, another pose. */
static void
turn_nearest_seed (const Work   *w,
                   double       *q,
                   const double *seed)
{
  for (guint v = 0; v < w->n_path_var; v++)
    {
      double lo = w->lo[v], hi = w->hi[v], s = seed[w->var_dof[v]], x;
      gboolean leads = FALSE;

      if (!w->single[v] || !w->is_rot[v] || w->m_lead[v] != -1 || !(hi - lo >= 2 * G_PI) ||
          !isfinite (q[v]) || !isfinite (s))
        continue;
      for (guint u = 0; w->has_mimic && u < w->n_var && !leads; u++)
        leads = w->m_lead[u] == (int) v;
      /* A seed on the edge of its range that a turn further inside answers keeps that turn
       * (motion_turn_inside()): the joint keeps its room. */
      if (leads || (s - lo < KM_IK_CONT_JUMP && q[v] > s + G_PI) ||
          (hi - s < KM_IK_CONT_JUMP && q[v] < s - G_PI))
        continue;
      x = wrap_near (q[v], s);
      if (x < lo)
        x += 2 * G_PI;
      else if (x > hi)
        x -= 2 * G_PI;
      if (x >= lo && x <= hi && fabs (x - s) < fabs (q[v] - s) - KM_IK_TURN_GAIN)
        q[v] = x;
    }
}

/* Out of reach, or orientation out of reach: converge patiently to the closest pose, then
 * meet the position and fit the orientation in what freedom is left. */
static void
fit_unreachable (Work   *w,
                 Search *s)
{
  const KmIkProblem *p = w->problem;
  Eval ev;

  memcpy (w->q, s->q_merit, w->n_var * sizeof (double));
  ev = descend (w, REFINE_ITERATIONS, TRUE);
  if (w->n_rows == 6 && !w->cancelled)
    {
      Eval fit;

      ev = fit_priority (w, PRIORITY_ITERATIONS);
      /* The position cannot be met from there: from random starts then; when it is out of
       * reach, the closest position wins (kept in q_merit meanwhile). */
      memcpy (s->q_merit, w->q, w->n_var * sizeof (double));
      for (guint k = 0; k < 8 && !w->cancelled && ev.pos_err > p->position_tolerance; k++)
        {
          random_start (w, s->seed, 4);
          fit = fit_priority (w, PRIORITY_ITERATIONS);
          if (eval_better (w, &fit, &ev))
            {
              ev = fit;
              memcpy (s->q_merit, w->q, w->n_var * sizeof (double));
            }
        }
      /* The other low minima of the restarts, when the position is met: their fits may
       * reach a better orientation. */
      for (guint i = 1; i < s->fit_starts.n && !w->cancelled
                        && ev.pos_err <= p->position_tolerance; i++)
        {
          memcpy (w->q, s->fit_starts.q[i], w->n_var * sizeof (double));
          descend (w, REFINE_ITERATIONS, TRUE);
          fit = fit_priority (w, PRIORITY_ITERATIONS);
          if (eval_better (w, &fit, &ev))
            {
              ev = fit;
              memcpy (s->q_merit, w->q, w->n_var * sizeof (double));
            }
        }
      memcpy (w->q, s->q_merit, w->n_var * sizeof (double));
    }
  if (eval_better (w, &ev, &s->best))
    {
      take_answer (w, s, &ev);
      TRACE_STAGE (w, "refine");
    }
}

/* Whether the effector's pose at w->q is finite: joint offsets of 1e308 are each finite,
 * but their sum is not, and no solve of such a model can give honest residuals. */
static gboolean
seed_pose_is_finite (Work *w)
{
  KmTransform eff;

  path_fk (w, w->q, &eff);
  return km_ik_target_is_finite (&eff);
}

static gboolean
values_are_finite (const double *q,
                   guint         n)
{
  for (guint v = 0; v < n; v++)
    if (!isfinite (q[v]))
      return FALSE;
  return TRUE;
}

/* Solves for @target from @seed (n_dof values, may alias out->q); @local_only: see
 * km_ik_solve_local(). */
static gboolean
solve_seeded (const KmIkProblem *p,
              const KmTransform *target,
              const double      *seed,
              guint64            random_seed,
              gboolean           continuous,
              gboolean           local_only,
              double             fit_radius,
              KmIkSolution      *out,
              GCancellable      *cancellable,
              GError           **error)
{
  const KmSkeleton *skel = p->skeleton;
  const KmJoint *joints = km_skeleton_get_joints (skel);
  guint n_joints = km_skeleton_get_n_joints (skel);
  int stack_idx[KM_IK_STACK_JOINTS];
  PathJoint stack_path[KM_IK_STACK_JOINTS];
  double stack_d[KM_IK_STACK_DOF * 20];
  KmVec3 stack_v[KM_IK_STACK_DOF * 2];
  int stack_i[KM_IK_STACK_DOF * 8];
  double stack_seed[KM_IK_STACK_DOF];
  double stack_merit[KM_IK_STACK_DOF];
  double stack_near[KM_IK_STACK_DOF];
  g_autofree int *heap_idx = NULL;
  g_autofree PathJoint *heap_path = NULL;
  g_autofree double *heap_d = NULL;
  g_autofree KmVec3 *heap_v = NULL;
  g_autofree int *heap_i = NULL;
  g_autofree double *heap_seed = NULL;
  g_autofree double *heap_merit = NULL;
  g_autofree double *heap_near = NULL;
  int *idx;
  guint depth = 0, first = 0, n_var = 0;
  Work w = { 0 };
  Search s;
  Eval near = { G_MAXDOUBLE, G_MAXDOUBLE, G_MAXDOUBLE };
  double *sp, *q_near = NULL;

  ensure_solution (out, p->n_dof);
  seed_within_limits (skel, seed, p->n_dof, out);
  out->iterations = 0;
  out->restarts = 0;
  out->converged = FALSE;
  out->within_limits = TRUE;
  out->jumped = FALSE;
  out->pos_err = out->rot_err = G_MAXDOUBLE;

  if (p->effector < 0 || (guint) p->effector >= n_joints ||
      p->base < -1 || p->base >= (int) n_joints)
    {
      g_set_error (error, KM_IK_ERROR, KM_IK_ERROR_INVALID,
                   _("the end effector or the base is not a joint of the skeleton"));
      return FALSE;
    }
  if (!km_ik_target_is_finite (target) || !km_ik_target_is_finite (&p->root_pose)
      || !km_vec3_is_finite (p->effector_offset))
    {
      g_set_error (error, KM_IK_ERROR, KM_IK_ERROR_INVALID,
                   _("the target pose is not a finite number"));
      return FALSE;
    }

  /* The path: ancestors of the effector, root first. */
  depth = path_depth (joints, p->effector);
  idx = depth <= KM_IK_STACK_JOINTS ? stack_idx : (heap_idx = g_new (int, depth));
  if (!lay_out_path (p, joints, idx, depth, &first))
    {
      g_set_error (error, KM_IK_ERROR, KM_IK_ERROR_INVALID,
                   _("the base joint is not an ancestor of the end effector"));
      return FALSE;
    }

  w.problem = p;
  w.cancellable = cancellable;
  w.target = *target;
  w.has_tool = km_ik_problem_has_effector_offset (p);
  w.tool = p->effector_offset;
  w.wp = p->position_weight > 0 && isfinite (p->position_weight) ? p->position_weight : 1.0;
  w.wo = isfinite (p->orientation_weight) ? MAX (p->orientation_weight, 0.0) : 0.0;
  w.n_rows = w.wo > 0 ? 6 : 3;
  w.rng = random_seed;
  w.pull = TRUE;
  w.pos_scale = 1.0;
  w.keep_branch = continuous;
  w.fit_stall = 1e-10;
  w.fit_radius = fit_radius > 0 && isfinite (fit_radius) ? fit_radius : CONT_FIT_RADIUS;
  w.has_mimic = km_skeleton_has_mimic (skel);
  w.local_only = local_only;

  /* The joints above the base are fixed: their pose is the path's prefix. */
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
  if (w.has_mimic)
    n_var += count_off_path_masters (joints, idx, depth, first);
  w.n_var = n_var;
  if (w.n_path <= KM_IK_STACK_JOINTS && n_var <= KM_IK_STACK_DOF)
    {
      w.path = stack_path;
      work_lay_out (&w, stack_d, stack_v, stack_i);
      sp = stack_seed;
      s.q_merit = stack_merit;
      q_near = stack_near;
    }
  else
    {
      w.path = heap_path = g_new (PathJoint, MAX (w.n_path, 1));
      work_lay_out (&w, heap_d = g_new (double, MAX (n_var, 1) * 20),
                    heap_v = g_new (KmVec3, MAX (n_var, 1) * 2),
                    heap_i = g_new (int, MAX (n_var, 1) * 8));
      sp = heap_seed = g_new (double, MAX (n_var, 1));
      s.q_merit = heap_merit = g_new (double, MAX (n_var, 1));
      q_near = heap_near = g_new (double, MAX (n_var, 1));
    }
  work_load_path (&w, idx, first, out->q);
  if (!seed_pose_is_finite (&w))
    {
      g_set_error (error, KM_IK_ERROR, KM_IK_ERROR_INVALID,
                   _("the model is too large: its forward kinematics overflows (joint "
                     "offsets or prismatic travels add up to more than 1e308 m)"));
      return FALSE;
    }
  if (p->analytic != NULL)
    try_analytic (&w, target, out->q);

  /* The seed's own path values, for restarts around it. */
  memcpy (w.q_best, w.q, n_var * sizeof (double));
  for (guint v = 0; v < n_var; v++)
    w.dq[v] = 0.0;
  memcpy (sp, w.q, n_var * sizeof (double));
  s.seed = sp;
  s.best = s.best_merit = (Eval) { G_MAXDOUBLE, G_MAXDOUBLE, G_MAXDOUBLE };
  s.attempts = 0;
  s.restart = TRUE;
  s.beyond = FALSE;
  s.fit_starts.n = 0;

  if (continuous)
    {
      motion_search (&w, &s, target);
      w.max_step = 0.0;
    }
  if (continuous && s.restart)
    {
      /* What the search near the seed found, which the far answers must clearly beat. */
      near = s.best;
      memcpy (q_near, w.q_best, n_var * sizeof (double));
    }
  if (s.restart)
    {
      s.beyond = beyond_reach (&w);
      restart_search (&w, &s);
    }
  if (!continuous)
    cross_wrap_gaps (&w, &s);
  if (!eval_converged (&w, &s.best) && !w.cancelled && (!continuous || s.restart))
    fit_unreachable (&w, &s);
  if (continuous && s.restart && !w.cancelled &&
      seed_distance (&w, w.q_best, sp) > KM_IK_CONT_JUMP &&
      !eval_clearly_better (&w, &s.best, &near))
    {
      s.best = near;
      memcpy (w.q_best, q_near, n_var * sizeof (double));
      TRACE_STAGE (&w, "kept-near");
    }
#ifdef KM_IK_TRACE
  if (continuous)
    trace_answer (&w, sp, &s.best);
#endif

  if (!values_are_finite (w.q_best, n_var))
    {
      /* Never an answer that is no number (no search keeps one, but a caller writes it
       * out): the seed then, with its residuals. */
      memcpy (w.q, sp, n_var * sizeof (double));
      s.best = evaluate (&w);
      memcpy (w.q_best, sp, n_var * sizeof (double));
    }
  /* (out->q still holds the seed, within the limits.) */
  turn_nearest_seed (&w, w.q_best, out->q);
  for (guint v = 0; v < n_var; v++)
    out->q[w.var_dof[v]] = w.q_best[v];
  /* Followers off the path move with their masters too. */
  km_skeleton_apply_mimic (skel, out->q);
  out->iterations = w.iterations;
  out->restarts = s.attempts > 0 ? s.attempts - 1 : 0;
  out->pos_err = s.best.pos_err;
  out->rot_err = s.best.rot_err;
  out->converged = eval_converged (&w, &s.best);
  out->within_limits = km_skeleton_within_limits (skel, out->q, 0.0);

  if (w.cancelled)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, _("The solve was cancelled"));
      return FALSE;
    }
  return TRUE;
}

gboolean
km_ik_solve_seeded (const KmIkProblem *p,
                    const KmTransform *target,
                    const double      *seed,
                    guint64            random_seed,
                    gboolean           continuous,
                    double             fit_radius,
                    KmIkSolution      *out,
                    GCancellable      *cancellable,
                    GError           **error)
{
  return solve_seeded (p, target, seed, random_seed, continuous, FALSE, fit_radius, out,
                       cancellable, error);
}

gboolean
km_ik_solve_local (const KmIkProblem *p,
                   const KmTransform *target,
                   const double      *seed,
                   double             fit_radius,
                   KmIkSolution      *out)
{
  return solve_seeded (p, target, seed, p->random_seed, TRUE, TRUE, fit_radius, out, NULL,
                       NULL);
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

/* TRUE when @problem's target is for a point off the effector joint's origin. */
gboolean
km_ik_problem_has_effector_offset (const KmIkProblem *problem)
{
  g_return_val_if_fail (problem != NULL, FALSE);

  return problem->effector_offset.x != 0.0 || problem->effector_offset.y != 0.0
         || problem->effector_offset.z != 0.0;
}

/**
 * km_ik_problem_get_moved_dofs:
 * @moving: (out caller-allocates) (array) (nullable): @problem->n_dof flags, set for each
 *   DOF a solve of @problem may move
 *
 * The DOFs a solve moves, by the solver's own rules (see #KmIkProblem): the path's from the
 * effector up to the base, the masters off the path of linked (mimic) joints on it, and
 * every follower of a moving master. Every other DOF keeps its seed value.
 *
 * Returns: how many independent DOFs (the solve's variables, not followers) it moves; 0 for
 *   an effector or base that is no joint of the skeleton or no ancestor of the effector
 */
guint
km_ik_problem_get_moved_dofs (const KmIkProblem *problem,
                              gboolean          *moving)
{
  const KmJoint *joints;
  guint n_joints, depth = 0, first = 0, n = 0;
  g_autofree int *idx = NULL;

  g_return_val_if_fail (problem != NULL, 0);

  if (moving != NULL)
    memset (moving, 0, problem->n_dof * sizeof (gboolean));
  joints = km_skeleton_get_joints (problem->skeleton);
  n_joints = km_skeleton_get_n_joints (problem->skeleton);
  if (problem->effector < 0 || (guint) problem->effector >= n_joints
      || problem->base < -1 || problem->base >= (int) n_joints)
    return 0;

  /* The path, root first, as km_ik_solve_seeded() lays it out. */
  depth = path_depth (joints, problem->effector);
  idx = g_new (int, depth);
  if (!lay_out_path (problem, joints, idx, depth, &first))
    return 0;

  for (guint k = first; k < depth; k++)
    {
      const KmJoint *j = &joints[idx[k]];

      /* A follower is no variable of its own: it moves with its master, below. */
      if (j->mimic >= 0 && j->n_dof == 1)
        continue;
      n += j->n_dof;
      for (guint d = 0; moving != NULL && j->dof_index >= 0 && d < j->n_dof; d++)
        moving[j->dof_index + (int) d] = TRUE;
    }
  if (!km_skeleton_has_mimic (problem->skeleton))
    return n;
  n += count_off_path_masters (joints, idx, depth, first);
  if (moving != NULL)
    {
      for (guint k = first; k < depth; k++)
        {
          int m = off_path_master (joints, idx, depth, idx[k]);

          if (m >= 0)
            moving[joints[m].dof_index] = TRUE;
        }
      /* The followers of the moving masters, on the path or not; one whose master stays
       * (above the base) stays too. */
      for (guint t = 0; t < n_joints; t++)
        if (joints[t].mimic >= 0 && joints[t].n_dof == 1 && joints[t].dof_index >= 0
            && joints[joints[t].mimic].dof_index >= 0
            && moving[joints[joints[t].mimic].dof_index])
          moving[joints[t].dof_index] = TRUE;
    }
  return n;
}

/**
 * km_ik_effector_point:
 * @joint: the effector joint's world pose
 * @out: (out): the pose whose position @problem's target is for: @joint moved by
 *   @problem->effector_offset in its own frame (@joint itself when that is zero)
 */
void
km_ik_effector_point (const KmIkProblem *problem,
                      const KmTransform *joint,
                      KmTransform       *out)
{
  g_return_if_fail (problem != NULL && joint != NULL && out != NULL);

  *out = *joint;
  if (km_ik_problem_has_effector_offset (problem))
    out->pos = km_transform_apply (joint, problem->effector_offset);
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
 * within the limits (the best found, or the clamped seed) and its residuals. A revolute joint
 * with a turn or more of range (a continuous one too) answers, of its values whole turns
 * apart, the one nearest the seed within the limits: no turn that the seed did not have
 * (unless the seed is next to a limit and the turn gives the joint room).
 *
 * Returns: %TRUE when the solver ran (check out->converged for success); %FALSE with
 *   KM_IK_ERROR_INVALID for an unusable problem (also a model whose forward kinematics
 *   overflows), or G_IO_ERROR_CANCELLED
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

  return km_ik_solve_seeded (problem, &problem->target, problem->seed, problem->random_seed,
                    problem->continuous, 0.0, out, cancellable, error);
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
  KmTransform point;

  g_return_if_fail (problem != NULL && q != NULL);
  g_return_if_fail (problem->effector >= 0 &&
                    (guint) problem->effector < km_skeleton_get_n_joints (problem->skeleton));

  world = g_new (KmTransform, km_skeleton_get_n_joints (problem->skeleton));
  km_skeleton_forward_kinematics (problem->skeleton, q, &problem->root_pose, world);
  km_ik_effector_point (problem, &world[problem->effector], &point);
  eff = &point;
  if (pos_err != NULL)
    *pos_err = safe_norm3 (km_vec3_sub (problem->target.pos, eff->pos));
  if (rot_err != NULL)
    *rot_err = km_mat3_rotation_angle (&eff->rot, &problem->target.rot);
}
