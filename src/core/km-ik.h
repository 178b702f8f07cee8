/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <gio/gio.h>

#include "km-math.h"
#include "km-skeleton.h"

G_BEGIN_DECLS

/*
 * The inverse-kinematics solver: plain data in, plain data out. Nothing here keeps global
 * state or touches GObjects other than the (immutable, atomically ref-counted) skeleton,
 * so a problem may be copied on the main thread and solved on any worker (STYLE.md,
 * "Threading rule"). Units: metres and radians; joint vectors are the skeleton's DOF
 * vectors (a spherical joint is its three euler XYZ angles, see km-math.h).
 */

#define KM_IK_ERROR (km_ik_error_quark ())

typedef enum
{
  /* The problem itself is unusable: bad effector or base index, non-finite target. */
  KM_IK_ERROR_INVALID,
} KmIkError;

/* Defaults that km_ik_problem_new() fills in. */
#define KM_IK_DEFAULT_POSITION_TOLERANCE    1e-6   /* m */
#define KM_IK_DEFAULT_ORIENTATION_TOLERANCE 1e-6   /* rad */
#define KM_IK_DEFAULT_ORIENTATION_WEIGHT    0.5    /* m per rad */
#define KM_IK_DEFAULT_MAX_ITERATIONS        2000   /* over all restarts together */
#define KM_IK_DEFAULT_MAX_RESTARTS          100

/* Whether a solved frame's residuals (@pos_err in m, @rot_err in rad, the latter counted
 * where the chain is solved for @orientation) missed its target by the default tolerances:
 * what the time bar marks and the solve's message counts. */
static inline gboolean
km_ik_residual_missed (double   pos_err,
                       double   rot_err,
                       gboolean orientation)
{
  return pos_err > KM_IK_DEFAULT_POSITION_TOLERANCE
         || (orientation && rot_err > KM_IK_DEFAULT_ORIENTATION_TOLERANCE);
}

typedef struct _KmIkProblem KmIkProblem;

/**
 * KmIkAnalyticFunc:
 * @problem: the problem being solved (its seed is the starting point)
 * @target: the effector's target pose, in the same world frame as @problem->target
 * @q: (inout) (array): @problem->n_dof values; on entry the seed, on return the answer
 * @user_data: @problem->analytic_data
 *
 * The hook for analytic solvers (a body handler's custom joint path). It may run on any
 * thread and must use only its arguments. It writes a full DOF vector; the solver projects
 * it into the joint limits and verifies it with forward kinematics, so a wrong or partial
 * answer costs time, never correctness.
 *
 * Returns: %TRUE when @q holds a candidate answer
 */
typedef gboolean (*KmIkAnalyticFunc) (const KmIkProblem *problem,
                                      const KmTransform *target,
                                      double            *q,
                                      gpointer           user_data);

/*
 * One IK problem. Fill it in after km_ik_problem_new(); every field may be changed between
 * solves (the solver reads it, never writes it).
 *
 * The moving DOFs are those of the joints on the path from the effector up to, but not
 * including, @base (up to and including the root when @base is -1), and the masters of
 * linked (mimic) joints on it wherever they are (unless above @base), with every follower of
 * a moving master. Every other DOF keeps its @seed value, so a branching tree works and other
 * branches stay put.
 */
struct _KmIkProblem
{
  KmSkeleton       *skeleton;              /* owned reference */
  guint             n_dof;                 /* km_skeleton_get_n_dof (skeleton) */
  int               effector;              /* topological joint index */
  int               base;                  /* topological joint index, or -1 for the root */
  KmTransform       root_pose;             /* where the skeleton stands in the world */
  KmTransform       target;                /* effector pose wanted, world frame */
  KmVec3            effector_offset;       /* the point @target is for, in the effector
                                            * joint's frame (a tool point); zero by default:
                                            * the joint's origin. The orientation stays the
                                            * joint's. */
  double            position_weight;       /* 1 by default; only its ratio to the next matters */
  double            orientation_weight;    /* m per rad; 0 = position only */
  double            position_tolerance;    /* m */
  double            orientation_tolerance; /* rad */
  guint             max_iterations;        /* all restarts together, per solve */
  guint             max_restarts;          /* random restarts within the limits when stalled */
  guint64           random_seed;           /* restarts are deterministic for a given seed */
  double           *seed;                  /* (array length=n_dof) owned, the starting pose */
  KmIkAnalyticFunc  analytic;              /* (nullable) tried first when set */
  gpointer          analytic_data;         /* shared, not copied, by km_ik_problem_copy() */
  gboolean          continuous;            /* the seed is the previous frame of a motion: only
                                            * answers on its branch (what
                                            * km_ik_solve_trajectory() does); FALSE by default */
};

/*
 * The answer to one problem. @q is owned by the solution (g_malloc) and always holds
 * @n_dof finite values within the joint limits, linked (mimic) joints set exactly from
 * their masters (km_skeleton_apply_mimic()).
 */
typedef struct
{
  double   *q;              /* (array length=n_dof) */
  guint     n_dof;
  double    pos_err;        /* m, |p - p_target| */
  double    rot_err;        /* rad, angle of R_targetᵀ · R */
  guint     iterations;     /* over all restarts */
  guint     restarts;
  gboolean  converged;      /* both errors within the tolerances */
  gboolean  within_limits;  /* always TRUE for the solver's own answers; kept for callers */
  gboolean  jumped;         /* a motion's frame (km_ik_solve_trajectory()) that jumped from
                             * the frame before: a joint moved further than the solver's
                             * continuity allows, or much further than in the steps around
                             * it (a pose kept at frame 0 that the motion cannot follow on
                             * from); FALSE for a single solve */
} KmIkSolution;

/**
 * KmIkFrameFunc:
 * @frame: index into the trajectory's targets
 * @solution: that frame's answer; valid only during the call
 * @user_data: user data
 *
 * Called on the solving thread for every frame of km_ik_solve_trajectory(), in frame order,
 * once the frame is final (a branch search may hold frames back, so they come in bursts).
 */
typedef void (*KmIkFrameFunc) (guint               frame,
                               const KmIkSolution *solution,
                               gpointer            user_data);

/**
 * KmIkProgressFunc:
 * @fraction: the part of the work done, 0 … 1
 * @user_data: user data
 *
 * Called on the solving thread as km_ik_solve_trajectory_full() advances.
 */
typedef void (*KmIkProgressFunc) (double   fraction,
                                  gpointer user_data);

GQuark        km_ik_error_quark            (void);

KmIkProblem  *km_ik_problem_new            (KmSkeleton         *skeleton,
                                            int                 effector);
KmIkProblem  *km_ik_problem_copy           (const KmIkProblem  *problem);
void          km_ik_problem_free           (KmIkProblem        *problem);
void          km_ik_problem_set_target     (KmIkProblem        *problem,
                                            KmVec3              position,
                                            const KmMat3       *rotation);
gboolean      km_ik_problem_has_effector_offset (const KmIkProblem *problem);
guint         km_ik_problem_get_moved_dofs (const KmIkProblem  *problem,
                                            gboolean           *moving);
void          km_ik_effector_point         (const KmIkProblem  *problem,
                                            const KmTransform  *joint,
                                            KmTransform        *out);

KmIkSolution *km_ik_solution_new           (guint               n_dof);
void          km_ik_solution_init          (KmIkSolution       *solution,
                                            guint               n_dof);
void          km_ik_solution_clear         (KmIkSolution       *solution);
void          km_ik_solution_free          (KmIkSolution       *solution);
void          km_ik_solution_copy_into     (const KmIkSolution *src,
                                            KmIkSolution       *dest);

gboolean      km_ik_solve                  (const KmIkProblem  *problem,
                                            KmIkSolution       *out,
                                            GCancellable       *cancellable,
                                            GError            **error);
gboolean      km_ik_solve_trajectory       (const KmIkProblem  *problem,
                                            const KmTransform  *targets,
                                            guint               n_frames,
                                            KmIkSolution       *out,
                                            KmIkFrameFunc       frame_done,
                                            gpointer            user_data,
                                            GCancellable       *cancellable,
                                            GError            **error);

gboolean      km_ik_solve_trajectory_full  (const KmIkProblem  *problem,
                                            const KmTransform  *targets,
                                            guint               n_frames,
                                            KmIkSolution       *out,
                                            KmIkFrameFunc       frame_done,
                                            KmIkProgressFunc    progress,
                                            gpointer            user_data,
                                            GCancellable       *cancellable,
                                            GError            **error);

void          km_ik_measure                (const KmIkProblem  *problem,
                                            const double       *q,
                                            double             *pos_err,
                                            double             *rot_err);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KmIkProblem, km_ik_problem_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (KmIkSolution, km_ik_solution_free)

G_END_DECLS
