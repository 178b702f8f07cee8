/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-ik"

#include "config.h"

#include <math.h>
#include <string.h>

#include "km-ik-srs.h"

/*
 * Spherical-revolute-spherical arms in closed form, by the Paden-Kahan subproblems on the
 * product of exponentials: the arm's forward kinematics is
 * exp(ξ₁q₁)⋯exp(ξ₇q₇)·T₀, with ξᵢ the joint axes in the zero configuration (world frame)
 * and T₀ the effector's zero-configuration pose. The axes of joints 1-3 meet in the
 * shoulder S and those of joints 5-7 in the wrist W, so for a target T:
 *   - the wrist goes to W_T = T·W_e (W in the effector's frame);
 *   - the elbow q₄ sets the distance |S W| (subproblem 3: two solutions);
 *   - the shoulder rotation R_s turns the elbow's wrist onto W_T: every rotation that does is
 *     Rot(Ŵ_T − S, ψ)·R₀, one for each arm angle ψ; R_s = Rot(a₁,q₁)Rot(a₂,q₂)Rot(a₃,q₃)
 *     (subproblem 2 on a₃, then subproblem 1: two solutions);
 *   - the wrist rotation is what remains of the target's orientation (two solutions).
 * Eight families (elbow, shoulder, wrist sign), each a circle of arm angles. Axes that only
 * nearly meet (the iiwa's have 0.44 mm offsets) are taken at the point nearest to them all:
 * the answers are then seeds within a fraction of a millimetre, which the numerical solver
 * finishes.
 *
 * Routing (km_ik_srs_route): over a motion, a shortest path through the frames × families ×
 * SRS_PSI_STEPS arm angles. One frame's configuration may follow another's when both are
 * within the limits and no joint moves more than SRS_STEP_MAX; except that a spherical group
 * near its singularity in both (outer axes within SRS_EDGE_NEAR of aligned) is held to that
 * only in its middle joint and the combination of its outer two that the singularity
 * leaves determined: the other combination turns fast there for a small turn of the arm
 * angle, and two families meet (the track then passes through, see km-ik.c). Candidates:
 * the same family within SRS_PSI_REACH arm-angle steps, the other families next to the
 * same arm angle, and, where none of those follows on, every configuration reached so far
 * (the arm angle's reference turns fast where the wrist points opposite its zero-
 * configuration direction). The cost is the sum of squared joint steps, plus SRS_JUMP_COST
 * for every frame that cannot follow on from any configuration of the previous one (a
 * jump, only where the sampled solution set offers no continuous way), plus, at frame 0, a pull
 * towards the caller's answer there; or, where the caller keeps that answer as frame 0 (its
 * seed, which met the target), the cost of the step from it, as if it were a frame before: a
 * route that follows on from the pose kept wherever one does (a sample of the arm angle next to
 * it, through a singular group as SRS_EDGE_NEAR allows), not the nearest configuration on
 * another branch (SRS_FIRST_PULL, only where none follows on). Nodes within SRS_CHECK_STRAIGHT
 * of the stretched elbow go through the caller's check (a short numerical solve): there the
 * closed form of a nearly-SRS arm misjudges what the arm reaches. Deterministic; memory: two
 * bytes per node and frame for the way back.
 *
 * Speed (the route is the same): each frame's nodes and checks depend on that frame alone,
 * so blocks of SRS_BLOCK frames are prepared on several threads, the next block while the
 * shortest path goes through this one. Transitions that cannot be finite are skipped by an
 * exact pre-test: every finite step holds the elbow and both middle joints to SRS_STEP_MAX,
 * so a family whose range of them (over the frame's arm angles) lies further than that from
 * another's cannot follow it (the other families' candidates mostly, away from the
 * singularities). The groups' alignments are computed only where a step needs them.
 */

#define SRS_ARM_JOINTS     7
#define SRS_PSI_STEPS      72      /* arm angles per family: every 5° */
#define SRS_NODES          (KM_IK_SRS_FAMILIES * SRS_PSI_STEPS)
#define SRS_PSI_REACH      2       /* arm-angle steps per frame within a family */
#define SRS_STEP_MAX       0.45    /* rad: the largest joint step between frames of a route */
#define SRS_EDGE_NEAR      0.99    /* cosine: a group this near its singularity may pass it */
#define SRS_JUMP_COST      1e4
#define SRS_FIRST_PULL     10.0    /* per rad² away from the caller's frame-0 answer */
/* ... and, where the caller keeps that answer and no sample follows on from it, a jump's
 * cost on top (SRS_JUMP_COST). */
#define SRS_CHECK_STRAIGHT 0.1     /* rad: nodes this near the stretched elbow are checked */
#define SRS_AXIS_TOL       0.01    /* of |SW|: how far an axis may pass by its joint point */
#define SRS_REACH_SLACK    1e-2    /* of the elbow's cosine: the stretched elbow, nearly */
#define SRS_MAX_FRAMES     200000  /* longer motions are not routed (memory) */
#define SRS_BLOCK          32      /* frames whose nodes are prepared at a time */
#define SRS_RING           (2 * SRS_BLOCK + 1) /* frames held: frame k at k % SRS_RING */
#define SRS_MAX_THREADS    8       /* that prepare them */
#define SRS_NO_WAY         0xffffu
#define SRS_JUMPED         0x8000u

/* A spherical group's axes w1, w2, w3 and what decompose() needs of them alone. */
typedef struct
{
  KmVec3 w1, w2, w3;
  double c, den;                     /* w1·w2, c² − 1 */
  KmVec3 cr;                         /* w1 × w2 */
  double cr2, w2p, pp2;              /* cr·cr, w2·w3, w3·w3 */
  KmVec3 p_across;                   /* w3's part across w2 */
  KmVec3 y, y_across;                /* unit, across w3; its part across w3 */
} Spherical;

struct _KmIkSrs
{
  KmSkeleton *skeleton;
  guint       n_dof;
  int         dof[SRS_ARM_JOINTS];   /* state index of each arm joint */
  KmVec3      axis[SRS_ARM_JOINTS];  /* zero configuration, world */
  KmVec3      point[SRS_ARM_JOINTS];
  double      lo[SRS_ARM_JOINTS], hi[SRS_ARM_JOINTS];
  KmVec3      shoulder, wrist;       /* zero configuration, world */
  KmVec3      wrist_in_effector;
  KmMat3      effector_rot0;
  double      singular[2];           /* where each group's middle joint aligns its outer axes */
  double      straight;              /* the elbow angle that stretches the arm */
  /* Subproblem 3 for the elbow, target-independent: W − p₄, the axial distance of W and S,
   * their distances from the axis, and the elbow angle that lines them up. */
  KmVec3      elbow_wrist;
  double      elbow_along, elbow_lu, elbow_lv, elbow_zero;
  double     *base;                  /* n_dof: every DOF off the arm, the arm at zero */
  KmMat3      effector_rot0t;        /* effector_rot0 transposed */
  Spherical   group[2];              /* shoulder, wrist */
  double      psi_cos[SRS_PSI_STEPS], psi_sin[SRS_PSI_STEPS]; /* of the sampled arm angles */
  gboolean    exhaustive;            /* the route tries every transition (tests) */
};

/* The elbow's part of a target, shared by all arm angles. */
typedef struct
{
  gboolean ok;
  double   q4;
  KmVec3   to;                       /* unit: shoulder towards the target's wrist */
  KmMat3   r0;                       /* a shoulder rotation that gets the wrist there */
  KmMat3   r4;                       /* the elbow's rotation */
} Elbow;

/* Subproblem 1: the angle about unit @w that turns @p onto @q (their parts across w). */
static double
subproblem1 (KmVec3 w,
             KmVec3 p,
             KmVec3 q)
{
  KmVec3 pp = km_vec3_sub (p, km_vec3_scale (w, km_vec3_dot (w, p)));
  KmVec3 qq = km_vec3_sub (q, km_vec3_scale (w, km_vec3_dot (w, q)));

  return atan2 (km_vec3_dot (w, km_vec3_cross (pp, qq)), km_vec3_dot (pp, qq));
}

/* subproblem1() with @p's part across @w given. */
static double
subproblem1_across (KmVec3 w,
                    KmVec3 pp,
                    KmVec3 q)
{
  KmVec3 qq = km_vec3_sub (q, km_vec3_scale (w, km_vec3_dot (w, q)));

  return atan2 (km_vec3_dot (w, km_vec3_cross (pp, qq)), km_vec3_dot (pp, qq));
}

/* rotate() by the angle whose cosine and sine are @c and @s. */
static KmVec3
rotate_cs (KmVec3 axis,
           double c,
           double s,
           KmVec3 v)
{
  return km_vec3_add (km_vec3_add (km_vec3_scale (v, c), km_vec3_scale (km_vec3_cross (axis, v), s)),
                      km_vec3_scale (axis, km_vec3_dot (axis, v) * (1 - c)));
}

static KmVec3
rotate (KmVec3 axis,
        double angle,
        KmVec3 v)
{
  return rotate_cs (axis, cos (angle), sin (angle), v);
}

static void
spherical_init (Spherical *sp,
                KmVec3     w1,
                KmVec3     w2,
                KmVec3     w3)
{
  KmVec3 y = km_vec3_cross (w3, w2);

  sp->w1 = w1, sp->w2 = w2, sp->w3 = w3;
  sp->c = km_vec3_dot (w1, w2);
  sp->den = sp->c * sp->c - 1.0;
  sp->cr = km_vec3_cross (w1, w2);
  sp->cr2 = km_vec3_dot (sp->cr, sp->cr);
  sp->w2p = km_vec3_dot (w2, w3);
  sp->pp2 = km_vec3_dot (w3, w3);
  sp->p_across = km_vec3_sub (w3, km_vec3_scale (w2, km_vec3_dot (w2, w3)));
  if (km_vec3_length (y) < 0.1)
    y = km_vec3_cross (w3, w1);
  sp->y = km_vec3_normalize (y);
  sp->y_across = km_vec3_sub (sp->y, km_vec3_scale (w3, km_vec3_dot (w3, sp->y)));
}

/*
 * @r as Rot(w1, t1)·Rot(w2, t2)·Rot(w3, t3), both solutions: subproblem 2 (Rot(w1, t1)·
 * Rot(w2, t2)·w3 = R·w3, two solutions, equal at a singularity), then subproblem 1 for t3.
 * @cs (nullable): the cosine and sine of t1 and t2 of each. FALSE when there is none.
 */
static gboolean
decompose (const Spherical *sp,
           const KmMat3    *r,
           double           t[2][3],
           double           cs[2][2][2])
{
  KmVec3 q = km_mat3_mul_vec3 (r, sp->w3), ry;
  double w1q, alpha, beta, g2, g;

  if (fabs (sp->den) < 1e-9)
    return FALSE;
  w1q = km_vec3_dot (sp->w1, q);
  alpha = (sp->c * sp->w2p - w1q) / sp->den;
  beta = (sp->c * w1q - sp->w2p) / sp->den;
  g2 = (sp->pp2 - alpha * alpha - beta * beta - 2 * alpha * beta * sp->c) / sp->cr2;
  if (g2 < -1e-9)
    return FALSE;
  g = sqrt (MAX (g2, 0.0));
  /* Rot(w3, t3)·y = (Rot(w1, t1)·Rot(w2, t2))ᵀ·R·y */
  ry = km_mat3_mul_vec3 (r, sp->y);
  for (int k = 0; k < 2; k++)
    {
      KmVec3 z = km_vec3_add (km_vec3_add (km_vec3_scale (sp->w1, alpha),
                                           km_vec3_scale (sp->w2, beta)),
                              km_vec3_scale (sp->cr, k == 0 ? g : -g));
      KmVec3 z_across = km_vec3_sub (z, km_vec3_scale (sp->w1, km_vec3_dot (sp->w1, z)));
      double t1 = subproblem1_across (sp->w1, z_across, q);
      double t2 = subproblem1_across (sp->w2, sp->p_across, z);
      /* libm's cosine is even and its sine odd to the bit: these turns by −t1 and −t2 are
       * the same as rotate()'s, and the caller's rotations by t1 and t2 reuse them. */
      double c1 = cos (t1), s1 = sin (t1), c2 = cos (t2), s2 = sin (t2);
      KmVec3 back = rotate_cs (sp->w2, c2, -s2, rotate_cs (sp->w1, c1, -s1, ry));

      t[k][0] = t1;
      t[k][1] = t2;
      t[k][2] = subproblem1_across (sp->w3, sp->y_across, back);
      if (cs != NULL)
        {
          cs[k][0][0] = c1, cs[k][0][1] = s1;
          cs[k][1][0] = c2, cs[k][1][1] = s2;
        }
    }
  return TRUE;
}

/* The turn of @x inside [lo, hi] nearest to their middle (km_range_seed: 0 when unlimited,
 * near the finite end of a range limited on one side only); FALSE when none is inside. */
static gboolean
fit_limits (double *x,
            double  lo,
            double  hi)
{
  double mid = km_range_seed (lo, hi, FALSE);
  double y = *x + 2 * G_PI * nearbyint ((mid - *x) / (2 * G_PI));

  for (int k = 0; k < 3; k++)
    {
      double z = y + (k == 0 ? 0.0 : k == 1 ? -2 * G_PI : 2 * G_PI);

      if (z >= lo - 1e-12 && z <= hi + 1e-12)
        {
          *x = CLAMP (z, lo, hi);
          return TRUE;
        }
    }
  *x = y;
  return FALSE;
}

/* The point nearest to three lines (least squares); FALSE when they are parallel. */
static gboolean
nearest_point (const KmVec3 *axis,
               const KmVec3 *point,
               KmVec3       *out)
{
  KmMat3 a = { { { 0 } } };
  KmVec3 b = KM_VEC3_ZERO;

  /* Σ (I − d dᵀ) x = Σ (I − d dᵀ) p */
  for (int i = 0; i < 3; i++)
    {
      double d[3] = { axis[i].x, axis[i].y, axis[i].z };
      double p[3] = { point[i].x, point[i].y, point[i].z };
      double r[3] = { 0, 0, 0 };

      for (int row = 0; row < 3; row++)
        for (int c = 0; c < 3; c++)
          {
            double m = (row == c ? 1.0 : 0.0) - d[row] * d[c];

            a.m[row][c] += m;
            r[row] += m * p[c];
          }
      b = km_vec3_add (b, km_vec3 (r[0], r[1], r[2]));
    }
  if (!km_mat3_inverse (&a, &a))
    return FALSE;
  *out = km_mat3_mul_vec3 (&a, b);
  return km_vec3_is_finite (*out);
}

static double
line_distance (KmVec3 axis,
               KmVec3 point,
               KmVec3 x)
{
  KmVec3 d = km_vec3_sub (x, point);

  return km_vec3_length (km_vec3_sub (d, km_vec3_scale (axis, km_vec3_dot (axis, d))));
}

/**
 * km_ik_srs_new:
 * @problem: a problem
 *
 * The closed form of @problem's arm: its path from the base to the effector has exactly
 * seven DOFs, all revolute joints without links (mimic), and the axes of the first three
 * and of the last three meet (within SRS_AXIS_TOL of the shoulder-wrist distance) in two
 * distinct points that the fourth axis passes by, and the target is for the effector
 * joint's origin (no effector offset). DOFs off the path keep @problem's seed.
 *
 * Returns: (transfer full) (nullable): the arm, or %NULL when it is no such arm
 */
KmIkSrs *
km_ik_srs_new (const KmIkProblem *problem)
{
  const KmSkeleton *skel = problem->skeleton;
  const KmJoint *joints = km_skeleton_get_joints (skel);
  guint n_joints = km_skeleton_get_n_joints (skel), n_arm = 0;
  int arm[SRS_ARM_JOINTS];
  g_autofree KmTransform *world = NULL;
  g_autoptr (KmIkSrs) srs = NULL;
  double sw;

  /* The closed form is for the wrist's frame; a target for a tool point off it (an
   * effector offset) is left to the numeric solver. */
  if (problem->effector < 0 || (guint) problem->effector >= n_joints
      || km_ik_problem_has_effector_offset (problem))
    return NULL;
  for (int j = problem->effector; j >= 0 && j != problem->base; j = joints[j].parent)
    {
      if (joints[j].n_dof == 0)
        continue;
      if (joints[j].type != KM_JOINT_REVOLUTE || joints[j].mimic >= 0 || n_arm == SRS_ARM_JOINTS)
        return NULL;
      arm[SRS_ARM_JOINTS - 1 - n_arm++] = j;
    }
  if (n_arm != SRS_ARM_JOINTS || km_skeleton_has_mimic (skel))
    return NULL;

  srs = g_new0 (KmIkSrs, 1);
  srs->skeleton = km_skeleton_ref ((KmSkeleton *) skel);
  srs->n_dof = problem->n_dof;
  srs->base = g_memdup2 (problem->seed, MAX (problem->n_dof, 1) * sizeof (double));
  for (guint i = 0; i < SRS_ARM_JOINTS; i++)
    srs->base[joints[arm[i]].dof_index] = 0.0;
  world = g_new (KmTransform, n_joints);
  km_skeleton_forward_kinematics (skel, srs->base, &problem->root_pose, world);
  for (guint i = 0; i < SRS_ARM_JOINTS; i++)
    {
      const KmJoint *j = &joints[arm[i]];

      srs->dof[i] = j->dof_index;
      srs->axis[i] = km_vec3_normalize (km_mat3_mul_vec3 (&world[arm[i]].rot, j->axis));
      srs->point[i] = world[arm[i]].pos;
      srs->lo[i] = j->limits[0].limited ? j->limits[0].min : -INFINITY;
      srs->hi[i] = j->limits[0].limited ? j->limits[0].max : INFINITY;
    }
  if (!nearest_point (&srs->axis[0], &srs->point[0], &srs->shoulder) ||
      !nearest_point (&srs->axis[4], &srs->point[4], &srs->wrist))
    return NULL;
  sw = km_vec3_length (km_vec3_sub (srs->wrist, srs->shoulder));
  if (!(sw > 1e-6))
    return NULL;
  for (guint i = 0; i < 3; i++)
    if (line_distance (srs->axis[i], srs->point[i], srs->shoulder) > SRS_AXIS_TOL * sw ||
        line_distance (srs->axis[4 + i], srs->point[4 + i], srs->wrist) > SRS_AXIS_TOL * sw)
      return NULL;
  /* The elbow must move the wrist: its axis passes by both points. */
  if (line_distance (srs->axis[3], srs->point[3], srs->shoulder) < SRS_AXIS_TOL * sw ||
      line_distance (srs->axis[3], srs->point[3], srs->wrist) < SRS_AXIS_TOL * sw)
    return NULL;
  /* Consecutive axes of a spherical group must not be parallel (subproblem 2). */
  for (guint i = 0; i < 2; i++)
    if (fabs (km_vec3_dot (srs->axis[i], srs->axis[i + 1])) > 0.99 ||
        fabs (km_vec3_dot (srs->axis[4 + i], srs->axis[5 + i])) > 0.99)
      return NULL;
  for (guint g = 0; g < 2; g++)
    {
      /* Rot(a₂, θ)·a₃ parallel to a₁ (or opposed: the nearer of the two). */
      double t = subproblem1 (srs->axis[4 * g + 1], srs->axis[4 * g + 2], srs->axis[4 * g]);

      srs->singular[g] = t;
    }
  {
    /* The elbow in subproblem 3's terms: the wrist and the shoulder across its axis. */
    KmVec3 a = srs->axis[3], p = srs->point[3];
    KmVec3 u = km_vec3_sub (srs->wrist, p), v = km_vec3_sub (srs->shoulder, p);
    double ua = km_vec3_dot (a, u), va = km_vec3_dot (a, v);
    KmVec3 u1 = km_vec3_sub (u, km_vec3_scale (a, ua)), v1 = km_vec3_sub (v, km_vec3_scale (a, va));

    srs->elbow_wrist = u;
    srs->elbow_along = ua - va;
    srs->elbow_lu = km_vec3_length (u1);
    srs->elbow_lv = km_vec3_length (v1);
    srs->elbow_zero = atan2 (km_vec3_dot (a, km_vec3_cross (u1, v1)), km_vec3_dot (u1, v1));
    /* |S W| is largest where the elbow turns u' opposite v'. */
    srs->straight = remainder (srs->elbow_zero + G_PI, 2 * G_PI);
  }
  srs->effector_rot0 = world[problem->effector].rot;
  km_mat3_transpose (&srs->effector_rot0, &srs->effector_rot0t);
  spherical_init (&srs->group[0], srs->axis[0], srs->axis[1], srs->axis[2]);
  spherical_init (&srs->group[1], srs->axis[4], srs->axis[5], srs->axis[6]);
  for (guint i = 0; i < SRS_PSI_STEPS; i++)
    {
      double psi = -G_PI + 2 * G_PI * i / SRS_PSI_STEPS;

      srs->psi_cos[i] = cos (psi);
      srs->psi_sin[i] = sin (psi);
    }
  srs->wrist_in_effector = km_mat3_transpose_mul_vec3 (&world[problem->effector].rot,
                                                       km_vec3_sub (srs->wrist, world[problem->effector].pos));
  return g_steal_pointer (&srs);
}

void
km_ik_srs_free (KmIkSrs *srs)
{
  if (srs == NULL)
    return;
  km_skeleton_unref (srs->skeleton);
  g_free (srs->base);
  g_free (srs);
}

/* Elbow @e (0 or 1) for @target. */
static Elbow
elbow_for (const KmIkSrs     *srs,
           const KmTransform *target,
           int                e)
{
  Elbow out = { FALSE };
  KmVec3 wt = km_transform_apply (target, srs->wrist_in_effector);
  KmVec3 a = srs->axis[3], p = srs->point[3];
  double d = km_vec3_length (km_vec3_sub (wt, srs->shoulder));
  double d2 = d * d - srs->elbow_along * srs->elbow_along;
  double lu = srs->elbow_lu, lv = srs->elbow_lv;
  double c, angle;
  KmVec3 w4, from, axis;

  if (!(lu > 1e-9 && lv > 1e-9) || d2 < 0 || !km_vec3_is_finite (wt))
    return out;
  /* A little out of reach is the stretched (or folded) elbow: where the arm only nearly is
   * SRS, the model's reach differs from the arm's by its offsets. */
  c = (lu * lu + lv * lv - d2) / (2 * lu * lv);
  if (c > 1 + SRS_REACH_SLACK || c < -1 - SRS_REACH_SLACK)
    return out;
  out.q4 = srs->elbow_zero + (e == 0 ? 1 : -1) * acos (CLAMP (c, -1.0, 1.0));
  w4 = km_vec3_add (p, rotate (a, out.q4, srs->elbow_wrist));
  from = km_vec3_sub (w4, srs->shoulder);
  out.to = km_vec3_sub (wt, srs->shoulder);
  if (!(km_vec3_length (from) > 1e-9 && km_vec3_length (out.to) > 1e-9))
    return out;
  from = km_vec3_normalize (from);
  out.to = km_vec3_normalize (out.to);
  axis = km_vec3_cross (from, out.to);
  angle = atan2 (km_vec3_length (axis), km_vec3_dot (from, out.to));
  if (km_vec3_length (axis) < 1e-12)
    {
      /* Parallel or opposite: any axis across them. */
      axis = km_vec3_cross (from, fabs (from.x) < 0.9 ? km_vec3 (1, 0, 0) : km_vec3 (0, 1, 0));
    }
  km_mat3_from_axis_angle (km_vec3_normalize (axis), angle, &out.r0);
  km_mat3_from_axis_angle (srs->axis[3], out.q4, &out.r4);
  out.ok = TRUE;
  return out;
}

/* km_mat3_mul() (the same sums, in the same order), @out not aliasing @a or @b. */
static inline void
mat3_mul (const KmMat3 *a,
          const KmMat3 *b,
          KmMat3       *out)
{
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      out->m[i][j] = a->m[i][0] * b->m[0][j] + a->m[i][1] * b->m[1][j] + a->m[i][2] * b->m[2][j];
}

/* aᵀ·b, as km_mat3_mul() of the transpose would sum it; @out not aliasing @a or @b. */
static inline void
mat3_transpose_mul (const KmMat3 *a,
                    const KmMat3 *b,
                    KmMat3       *out)
{
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      out->m[i][j] = a->m[0][i] * b->m[0][j] + a->m[1][i] * b->m[1][j] + a->m[2][i] * b->m[2][j];
}

/* km_mat3_from_axis_angle() from the angle's cosine @c and sine @s. */
static void
axis_angle_cs (KmVec3  axis,
               double  c,
               double  s,
               KmMat3 *out)
{
  double t = 1.0 - c;
  double x = axis.x, y = axis.y, z = axis.z;

  out->m[0][0] = t * x * x + c;
  out->m[0][1] = t * x * y - s * z;
  out->m[0][2] = t * x * z + s * y;
  out->m[1][0] = t * x * y + s * z;
  out->m[1][1] = t * y * y + c;
  out->m[1][2] = t * y * z - s * x;
  out->m[2][0] = t * x * z - s * y;
  out->m[2][1] = t * y * z + s * x;
  out->m[2][2] = t * z * z + c;
}

/*
 * The eight families' arm values at the arm angle whose cosine and sine are @psi_c and
 * @psi_s (ok[f] when within the limits). With @only_valid, a family's values are filled only
 * when it lies within the limits (the route needs no others).
 */
static void
arm_at (const KmIkSrs     *srs,
        const KmTransform *target,
        const Elbow        elbow[2],
        double             psi_c,
        double             psi_s,
        gboolean           only_valid,
        double             q[KM_IK_SRS_FAMILIES][SRS_ARM_JOINTS],
        gboolean           ok[KM_IK_SRS_FAMILIES])
{
  for (guint f = 0; f < KM_IK_SRS_FAMILIES; f++)
    ok[f] = FALSE;
  for (int e = 0; e < 2; e++)
    {
      KmMat3 spin, rs;
      double sh[2][3], sh_cs[2][2][2], q4;
      gboolean elbow_in;

      if (!elbow[e].ok)
        continue;
      q4 = elbow[e].q4;
      elbow_in = fit_limits (&q4, srs->lo[3], srs->hi[3]);
      if (only_valid && !elbow_in)
        continue;
      axis_angle_cs (elbow[e].to, psi_c, psi_s, &spin);
      mat3_mul (&spin, &elbow[e].r0, &rs);
      if (!decompose (&srs->group[0], &rs, sh, sh_cs))
        continue;
      for (int s = 0; s < 2; s++)
        {
          KmMat3 r1, r2, r3, t, arm, rem, rw;
          double wr[2][3], x0[3];
          gboolean in = elbow_in;

          for (guint i = 0; i < 3; i++)
            {
              x0[i] = sh[s][i];
              in &= fit_limits (&x0[i], srs->lo[i], srs->hi[i]);
            }
          if (only_valid && !in)
            continue;
          axis_angle_cs (srs->axis[0], sh_cs[s][0][0], sh_cs[s][0][1], &r1);
          axis_angle_cs (srs->axis[1], sh_cs[s][1][0], sh_cs[s][1][1], &r2);
          km_mat3_from_axis_angle (srs->axis[2], sh[s][2], &r3);
          mat3_mul (&r1, &r2, &t);
          mat3_mul (&t, &r3, &arm);
          mat3_mul (&arm, &elbow[e].r4, &t);
          mat3_transpose_mul (&t, &target->rot, &rem);
          mat3_mul (&rem, &srs->effector_rot0t, &rw);
          if (!decompose (&srs->group[1], &rw, wr, NULL))
            continue;
          for (int w = 0; w < 2; w++)
            {
              guint f = (guint) e | (guint) s << 1 | (guint) w << 2;
              double *x = q[f];
              gboolean fin = in;

              x[0] = x0[0], x[1] = x0[1], x[2] = x0[2], x[3] = q4;
              x[4] = wr[w][0], x[5] = wr[w][1], x[6] = wr[w][2];
              for (guint i = 4; i < SRS_ARM_JOINTS; i++)
                fin &= fit_limits (&x[i], srs->lo[i], srs->hi[i]);
              ok[f] = fin;
            }
        }
    }
}

/**
 * km_ik_srs_config:
 * @q: (array): n_dof values: every DOF off the arm from the problem's seed, the arm's from
 *   family @family (0 .. KM_IK_SRS_FAMILIES − 1) at arm angle @psi
 *
 * Returns: whether that configuration exists and lies within the limits (@q is filled
 *   either way when it exists)
 */
gboolean
km_ik_srs_config (const KmIkSrs     *srs,
                  const KmTransform *target,
                  guint              family,
                  double             psi,
                  double            *q)
{
  Elbow elbow[2];
  double arm[KM_IK_SRS_FAMILIES][SRS_ARM_JOINTS];
  gboolean ok[KM_IK_SRS_FAMILIES];

  g_return_val_if_fail (srs != NULL && target != NULL && q != NULL, FALSE);
  g_return_val_if_fail (family < KM_IK_SRS_FAMILIES, FALSE);

  elbow[0] = elbow_for (srs, target, 0);
  elbow[1] = elbow_for (srs, target, 1);
  arm_at (srs, target, elbow, cos (psi), sin (psi), FALSE, arm, ok);
  memcpy (q, srs->base, srs->n_dof * sizeof (double));
  for (guint i = 0; i < SRS_ARM_JOINTS; i++)
    q[srs->dof[i]] = arm[family][i];
  return ok[family];
}

/* A node of the route: one family at one arm angle of one frame. */
typedef struct
{
  double   q[SRS_ARM_JOINTS];
  double   align[2];                /* cosine between each group's outer axes, NAN until
                                     * needed (see node_align) */
  gboolean valid;
} Node;

/* What the route keeps of one frame: its nodes, and per family the range of the joints
 * that every step holds to SRS_STEP_MAX, the elbow and each group's middle joint (empty,
 * lo > hi, where a family has no node within the limits). */
#define SRS_HELD 3
static const guint srs_held[SRS_HELD] = { 1, 3, 5 };

typedef struct
{
  Node   nodes[SRS_NODES];
  double lo[KM_IK_SRS_FAMILIES][SRS_HELD], hi[KM_IK_SRS_FAMILIES][SRS_HELD];
} Frame;

/* How near group @g (joints g .. g + 2) of @q is to its singularity: the cosine between its
 * first axis and its third as the first two turn it (±1 at the singularity). */
static double
group_alignment (const KmIkSrs *srs,
                 const double  *q,
                 guint          g)
{
  KmVec3 a3 = rotate (srs->axis[g], q[g], rotate (srs->axis[g + 1], q[g + 1], srs->axis[g + 2]));

  return km_vec3_dot (srs->axis[g], a3);
}

/* Node @n's alignment of group @which (0 shoulder, 1 wrist), computed once. */
static double
node_align (const KmIkSrs *srs,
            Node          *n,
            guint          which)
{
  if (isnan (n->align[which]))
    n->align[which] = group_alignment (srs, n->q, 4 * which);
  return n->align[which];
}

/* All nodes of one frame (only those within the limits are filled). */
static void
frame_nodes (const KmIkSrs     *srs,
             const KmTransform *target,
             Frame             *frame)
{
  Elbow elbow[2] = { elbow_for (srs, target, 0), elbow_for (srs, target, 1) };

  for (guint f = 0; f < KM_IK_SRS_FAMILIES; f++)
    for (guint h = 0; h < SRS_HELD; h++)
      frame->lo[f][h] = INFINITY, frame->hi[f][h] = -INFINITY;
  for (guint i = 0; i < SRS_PSI_STEPS; i++)
    {
      double arm[KM_IK_SRS_FAMILIES][SRS_ARM_JOINTS];
      gboolean ok[KM_IK_SRS_FAMILIES];

      arm_at (srs, target, elbow, srs->psi_cos[i], srs->psi_sin[i], TRUE, arm, ok);
      for (guint f = 0; f < KM_IK_SRS_FAMILIES; f++)
        {
          Node *n = &frame->nodes[f * SRS_PSI_STEPS + i];

          n->valid = ok[f];
          if (ok[f])
            {
              memcpy (n->q, arm[f], sizeof arm[f]);
              n->align[0] = n->align[1] = NAN;
              for (guint h = 0; h < SRS_HELD; h++)
                {
                  frame->lo[f][h] = MIN (frame->lo[f][h], n->q[srs_held[h]]);
                  frame->hi[f][h] = MAX (frame->hi[f][h], n->q[srs_held[h]]);
                }
            }
        }
    }
}

/* Near the stretched elbow the closed form of an arm that only nearly is SRS says little
 * about what the arm itself reaches: each such node of frame @k is tried. */
static void
frame_check (const KmIkSrs *srs,
             guint          k,
             Frame         *frame,
             KmIkSrsCheck   check,
             gpointer       check_data)
{
  double *q = g_alloca (srs->n_dof * sizeof (double));

  for (guint n = 0; n < SRS_NODES; n++)
    {
      Node *node = &frame->nodes[n];

      if (!node->valid ||
          fabs (remainder (node->q[3] - srs->straight, 2 * G_PI)) >= SRS_CHECK_STRAIGHT)
        continue;
      memcpy (q, srs->base, srs->n_dof * sizeof (double));
      for (guint j = 0; j < SRS_ARM_JOINTS; j++)
        q[srs->dof[j]] = node->q[j];
      node->valid = check (k, q, check_data);
    }
}

/* A block of frames whose nodes are prepared (and checked) by several threads: each frame
 * on its own, the same whichever thread does it. The route prepares the next block while it
 * goes through this one. */
typedef struct
{
  const KmIkSrs     *srs;
  const KmTransform *targets;
  Frame             *ring;           /* SRS_RING frames: frame k at k % SRS_RING */
  guint              first, n;       /* the block: frames first .. first + n − 1 */
  gint               next;           /* the next of them to prepare (atomic) */
  KmIkSrsCheck       check;
  gpointer           check_data;
  GThread           *threads[SRS_MAX_THREADS];
  guint              n_threads;      /* of them started */
} Prepare;

static gpointer
prepare_frames (gpointer data)
{
  Prepare *p = data;

  for (;;)
    {
      guint i = (guint) g_atomic_int_add (&p->next, 1), k;
      Frame *frame;

      if (i >= p->n)
        break;
      k = p->first + i;
      frame = &p->ring[k % SRS_RING];
      frame_nodes (p->srs, &p->targets[k], frame);
      if (p->check != NULL)
        frame_check (p->srs, k, frame, p->check, p->check_data);
    }
  return NULL;
}

/* Starts preparing frames @first .. @first + @n − 1 on @n_threads − 1 threads besides this
 * one (which joins in at prepare_finish()). */
static void
prepare_start (Prepare *p,
               guint    first,
               guint    n,
               guint    n_threads)
{
  p->first = first;
  p->n = n;
  g_atomic_int_set (&p->next, 0);
  p->n_threads = MIN (n_threads - 1, n);
  for (guint t = 0; t < p->n_threads; t++)
    p->threads[t] = g_thread_try_new ("km-srs-route", prepare_frames, p, NULL);
}

/* Waits for @p's threads; with @help, this thread prepares what is left of the block first
 * (without, what is left is abandoned). */
static void
prepare_finish (Prepare  *p,
                gboolean  help)
{
  if (help)
    prepare_frames (p);
  else
    g_atomic_int_set (&p->next, (gint) p->n);
  for (guint t = 0; t < p->n_threads; t++)
    if (p->threads[t] != NULL)
      g_thread_join (p->threads[t]);
  p->n_threads = 0;
}

/*
 * Whether @b may follow @a, and at what cost (the sum of squared joint steps): no joint
 * moves more than SRS_STEP_MAX; except in a spherical group that is near its singularity in
 * both (its outer axes within SRS_NEAR_SINGULAR of aligned), where only the middle angle and
 * the sum (or, axes opposed, the difference) of the outer two are held to it: their other
 * combination is what a small turn of the arm angle changes fast there, and where two
 * families meet. The motion then passes the singularity continuously, on either side or
 * through it (the local solver between the frames finds that way).
 */
static double
group_step (const KmIkSrs *srs,
            Node          *a,
            Node          *b,
            guint          g,
            guint          which)
{
  double d = 0.0, d2 = 0.0, sign, mid, det, align_a, align_b;

  /* The middle joint is held to SRS_STEP_MAX either way. */
  mid = fabs (a->q[g + 1] - b->q[g + 1]);
  if (mid > SRS_STEP_MAX)
    return INFINITY;
  for (guint i = g; i < g + 3; i++)
    {
      double x = fabs (a->q[i] - b->q[i]);

      d = MAX (d, x);
      d2 += x * x;
    }
  if (d <= SRS_STEP_MAX)
    return d2;
  align_a = node_align (srs, a, which);
  if (fabs (align_a) < SRS_EDGE_NEAR)
    return INFINITY;
  align_b = node_align (srs, b, which);
  if (fabs (align_b) < SRS_EDGE_NEAR || (align_a > 0) != (align_b > 0))
    return INFINITY;
  sign = align_a > 0 ? 1.0 : -1.0;
  det = fabs ((a->q[g] + sign * a->q[g + 2]) - (b->q[g] + sign * b->q[g + 2]));
  if (det > SRS_STEP_MAX)
    return INFINITY;
  return mid * mid + det * det;
}

static double
node_step_cost (const KmIkSrs *srs,
                Node          *a,
                Node          *b)
{
  double e = fabs (a->q[3] - b->q[3]), shoulder;

  if (e > SRS_STEP_MAX)
    return INFINITY;
  shoulder = group_step (srs, a, b, 0, 0);
  if (shoulder == INFINITY)
    return INFINITY;
  return e * e + shoulder + group_step (srs, a, b, 4, 1);
}

/**
 * km_ik_srs_route:
 * @targets: (array length=n_frames): the effector's world pose per frame
 * @first: (array): n_dof values, the caller's answer to frame 0 (the route starts near it)
 * @keep_first: the caller keeps @first as frame 0: the route's frame 0 follows on from it
 *   (a step of the route) wherever a sample does, the nearest sample otherwise
 * @route: (array): n_frames × n_dof values, out: the routed configuration of every frame
 *   (seeds for the numerical solver)
 * @n_jumps: (out): frames where the route could not follow on continuously
 * @check: (nullable) (scope call): tells whether a configuration near the stretched elbow
 *   is one the arm really reaches
 * @progress: (nullable) (scope call): the fraction of the frames routed, now and then
 *
 * Returns: FALSE when the motion cannot be routed (too long, a frame without any
 *   configuration within the limits, or cancelled); @route is then undefined
 */
gboolean
km_ik_srs_route (const KmIkSrs     *srs,
                 const KmTransform *targets,
                 guint              n_frames,
                 const double      *first,
                 gboolean           keep_first,
                 double            *route,
                 guint             *n_jumps,
                 KmIkSrsCheck       check,
                 gpointer           check_data,
                 KmIkProgressFunc   progress,
                 gpointer           progress_data,
                 GCancellable      *cancellable)
{
  g_autofree guint16 *back = NULL;
  g_autofree Frame *frames = NULL;
  g_autofree double *cost = NULL;
  g_autofree guint16 *reached = NULL;
  Prepare blocks[2] = { { 0 } };
  guint n_threads = CLAMP (g_get_num_processors (), 1, SRS_MAX_THREADS);
  guint n_reached = 0;
  gboolean ok = TRUE;
  double start[SRS_ARM_JOINTS];
  Node start_node;
  guint end = 0;

  g_return_val_if_fail (srs != NULL && n_jumps != NULL, FALSE);
  *n_jumps = 0;
  if (n_frames == 0 || n_frames > SRS_MAX_FRAMES)
    return FALSE;

  back = g_new (guint16, (gsize) n_frames * SRS_NODES);
  frames = g_new (Frame, SRS_RING);
  for (guint b = 0; b < 2; b++)
    {
      blocks[b].srs = srs;
      blocks[b].targets = targets;
      blocks[b].ring = frames;
      blocks[b].check = check;
      blocks[b].check_data = check_data;
    }
  cost = g_new (double, 2 * SRS_NODES);
  reached = g_new (guint16, SRS_NODES);
  for (guint i = 0; i < SRS_ARM_JOINTS; i++)
    start[i] = start_node.q[i] = first[srs->dof[i]];
  start_node.align[0] = start_node.align[1] = NAN;
  start_node.valid = TRUE;

  for (guint k = 0; k < n_frames; k++)
    {
      Frame *cur_frame = &frames[k % SRS_RING];
      Frame *prev_frame = &frames[(k + SRS_RING - 1) % SRS_RING];
      Node *cur = cur_frame->nodes, *prev = prev_frame->nodes;
      gboolean follows[KM_IK_SRS_FAMILIES][KM_IK_SRS_FAMILIES];
      double *c = &cost[(k % 2) * SRS_NODES], *pc = &cost[((k + 1) % 2) * SRS_NODES];
      guint16 *bk = &back[(gsize) k * SRS_NODES];
      double best_prev = INFINITY;
      guint best_node = 0;
      gboolean any = FALSE;

      if ((k & 255) == 0 && cancellable != NULL && g_cancellable_is_cancelled (cancellable))
        {
          ok = FALSE;
          break;
        }
      if ((k & 63) == 0 && k > 0 && progress != NULL)
        progress ((double) k / n_frames, progress_data);
      if (k % SRS_BLOCK == 0)
        {
          /* This block's frames, and the next block's started meanwhile. */
          guint b = k / SRS_BLOCK;

          if (cancellable != NULL && g_cancellable_is_cancelled (cancellable))
            {
              ok = FALSE;
              break;
            }
          if (k == 0)
            prepare_start (&blocks[0], 0, MIN (SRS_BLOCK, n_frames), n_threads);
          prepare_finish (&blocks[b % 2], TRUE);
          if (k + SRS_BLOCK < n_frames)
            prepare_start (&blocks[(b + 1) % 2], k + SRS_BLOCK,
                           MIN (SRS_BLOCK, n_frames - k - SRS_BLOCK), n_threads);
        }
      /* Which family may follow which at all: node_step_cost() is infinite between nodes
       * whose elbow or middle joints are further apart than SRS_STEP_MAX, so between
       * families whose ranges of them are (an exact test, it only skips infinite costs). */
      for (guint f2 = 0; f2 < KM_IK_SRS_FAMILIES; f2++)
        for (guint f = 0; f < KM_IK_SRS_FAMILIES; f++)
          {
            gboolean may = k > 0;

            for (guint h = 0; h < SRS_HELD && may && !srs->exhaustive; h++)
              may = cur_frame->lo[f][h] - prev_frame->hi[f2][h] <= SRS_STEP_MAX &&
                    prev_frame->lo[f2][h] - cur_frame->hi[f][h] <= SRS_STEP_MAX;
            follows[f2][f] = may;
          }
      n_reached = 0;
      if (k > 0)
        for (guint n = 0; n < SRS_NODES; n++)
          if (isfinite (pc[n]))
            {
              reached[n_reached++] = (guint16) n;
              if (pc[n] < best_prev)
                best_prev = pc[n], best_node = n;
            }

      for (guint n = 0; n < SRS_NODES; n++)
        {
          guint f = n / SRS_PSI_STEPS, i = n % SRS_PSI_STEPS;
          double best = INFINITY;
          guint16 from = SRS_NO_WAY;

          c[n] = INFINITY;
          bk[n] = SRS_NO_WAY;
          if (!cur[n].valid)
            continue;
          any = TRUE;
          if (k == 0)
            {
              double d2 = 0.0;

              for (guint j = 0; j < SRS_ARM_JOINTS; j++)
                d2 += (cur[n].q[j] - start[j]) * (cur[n].q[j] - start[j]);
              c[n] = SRS_FIRST_PULL * d2;
              if (keep_first)
                {
                  double step = node_step_cost (srs, &start_node, &cur[n]);

                  c[n] = isfinite (step) ? step : SRS_JUMP_COST + c[n];
                }
              continue;
            }
          for (guint f2 = 0; f2 < KM_IK_SRS_FAMILIES; f2++)
            {
              int reach = f2 == f ? SRS_PSI_REACH : 1;

              /* Exact: node_step_cost() is infinite between these (the elbow steps too far). */
              if (!follows[f2][f])
                continue;
              for (int di = -reach; di <= reach; di++)
                {
                  guint i2 = (i + SRS_PSI_STEPS + di) % SRS_PSI_STEPS, m = f2 * SRS_PSI_STEPS + i2;
                  double x;

                  if (!(pc[m] < best))
                    continue;
                  x = pc[m] + node_step_cost (srs, &prev[m], &cur[n]);
                  if (x < best)
                    best = x, from = (guint16) m;
                }
            }
          if (from == SRS_NO_WAY)
            {
              /* Where the arm angle's reference turns fast (the wrist passing opposite the
               * zero configuration's direction), any arm angle of the previous frame. */
              for (guint r = 0; r < n_reached; r++)
                {
                  guint m = reached[r];
                  double x;

                  if (!follows[m / SRS_PSI_STEPS][f])
                    continue;
                  x = pc[m] + node_step_cost (srs, &prev[m], &cur[n]);

                  if (x < best)
                    best = x, from = (guint16) m;
                }
            }
          if (from == SRS_NO_WAY && isfinite (best_prev))
            best = best_prev + SRS_JUMP_COST, from = (guint16) (best_node | SRS_JUMPED);
          c[n] = best;
          bk[n] = from;
        }
      if (!any)
        {
          ok = FALSE;
          break;
        }
    }
  for (guint b = 0; b < 2; b++)
    prepare_finish (&blocks[b], FALSE);
  if (!ok)
    return FALSE;

  {
    double *c = &cost[((n_frames - 1) % 2) * SRS_NODES], best = INFINITY;

    for (guint n = 0; n < SRS_NODES; n++)
      if (c[n] < best)
        best = c[n], end = n;
    if (!isfinite (best))
      return FALSE;
  }
  for (guint k = n_frames; k-- > 0;)
    {
      guint16 b = back[(gsize) k * SRS_NODES + end];
      double *q = &route[(gsize) k * srs->n_dof];

      km_ik_srs_config (srs, &targets[k], end / SRS_PSI_STEPS,
                        -G_PI + 2 * G_PI * (end % SRS_PSI_STEPS) / SRS_PSI_STEPS, q);
      if (k == 0)
        break;
      if (b == SRS_NO_WAY)
        return FALSE;
      if (b & SRS_JUMPED)
        (*n_jumps)++;
      end = b & ~SRS_JUMPED;
    }
  return TRUE;
}

/**
 * km_ik_srs_set_exhaustive:
 *
 * With @exhaustive, km_ik_srs_route() evaluates every candidate transition instead of
 * skipping those that its pre-tests show to be infinite: the same route, slower. For tests.
 */
void
km_ik_srs_set_exhaustive (KmIkSrs  *srs,
                          gboolean  exhaustive)
{
  g_return_if_fail (srs != NULL);
  srs->exhaustive = exhaustive;
}

/**
 * km_ik_srs_cross:
 * @q: (array): n_dof values near a singularity of spherical group @group (0 shoulder,
 *   1 wrist), out: the same with the group's middle joint mirrored about its singular angle
 *
 * A seed on the other side of the singularity, for a motion that passes through it into
 * the other family.
 */
void
km_ik_srs_cross (const KmIkSrs *srs,
                 guint          group,
                 double        *q)
{
  guint j;
  double about;
  int d;

  g_return_if_fail (srs != NULL && group < 3 && q != NULL);
  j = group == 2 ? 3 : 4 * group + 1;
  about = group == 2 ? srs->straight : srs->singular[group];
  d = srs->dof[j];
  q[d] = 2 * about - q[d];
  fit_limits (&q[d], srs->lo[j], srs->hi[j]);
  q[d] = CLAMP (q[d], srs->lo[j], srs->hi[j]);
}

/**
 * km_ik_srs_near_singular:
 *
 * Returns: whether spherical group @group (0 shoulder, 1 wrist) of @q is within
 *   SRS_NEAR_SINGULAR of its singularity
 */
gboolean
km_ik_srs_near_singular (const KmIkSrs *srs,
                         guint          group,
                         const double  *q,
                         double         within)
{
  double arm[SRS_ARM_JOINTS];

  g_return_val_if_fail (srs != NULL && group < 3 && q != NULL, FALSE);
  for (guint i = 0; i < SRS_ARM_JOINTS; i++)
    arm[i] = q[srs->dof[i]];
  if (group == 2)
    return fabs (remainder (arm[3] - srs->straight, 2 * G_PI)) < within;
  return fabs (group_alignment (srs, arm, 4 * group)) >= cos (within);
}

/**
 * km_ik_srs_branch_distance:
 *
 * Returns: how far apart @a and @b are in what tells the families apart: the largest
 *   difference of the elbow and the two middle joints
 */
double
km_ik_srs_branch_distance (const KmIkSrs *srs,
                           const double  *a,
                           const double  *b)
{
  double d = 0.0;

  g_return_val_if_fail (srs != NULL && a != NULL && b != NULL, INFINITY);
  for (guint i = 1; i < SRS_ARM_JOINTS; i += 2)
    d = MAX (d, fabs (a[srs->dof[i]] - b[srs->dof[i]]));
  return d;
}
