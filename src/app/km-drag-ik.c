/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-drag-ik"

#include "config.h"

#include <string.h>

#include "km-drag-ik.h"

#include "km-body-handler.h"
#include "km-ik-job.h"

/*
 * The IK problem of an interactive move of a joint to a pose typed or dragged (the 3-D
 * view's gizmo, the Pose tab's End Effector fields): one place, so that both move the
 * body alike.
 */

/**
 * km_drag_ik_request:
 * @solver: where to solve
 * @document: the document whose pose shown is the start (its body, root pose, targets and
 *   body handlers)
 * @joint: the joint moved (topological index)
 * @position_only: whether only @joint's position is aimed (a free or arrow drag, not the
 *   ring); ignored for the document's end effector, which aims as its targets do
 * @target: where @joint goes, in the world the scene draws; for the end effector the pose
 *   of the point its targets are for (km_document_get_effector_point())
 *
 * Asks @solver for the pose that puts @joint at @target, starting from the pose shown.
 */
void
km_drag_ik_request (KmDragSolver      *solver,
                    KmDocument        *document,
                    int                joint,
                    gboolean           position_only,
                    const KmTransform *target)
{
  KmSkeleton *skeleton;
  KmTargetTrack *targets;
  KmBodyHandlerSet *handlers;
  KmBodyHandlerIkHook *hook = NULL;
  const KmJoint *tip;
  gboolean effector, through_parent;
  const double *q;
  KmIkProblem *problem;
  guint n_dof;

  g_return_if_fail (KM_IS_DRAG_SOLVER (solver));
  g_return_if_fail (KM_IS_DOCUMENT (document));
  g_return_if_fail (target != NULL);

  skeleton = km_document_get_skeleton (document);
  g_return_if_fail (skeleton != NULL);
  g_return_if_fail (joint >= 0 && (guint) joint < km_skeleton_get_n_joints (skeleton));

  targets = km_document_get_targets (document);
  handlers = km_document_get_body_handlers (document);
  tip = km_skeleton_get_joint (skeleton, (guint) joint);
  effector = joint == km_document_get_effector (document);

  /* A joint other than the end effector moved by its position: only its origin is aimed,
   * and its own DOF cannot move that. Aimed as the point at its offset in its parent's
   * frame (where Translate(offset) puts it), the joint's own DOF and everything below keep
   * their values instead of swinging freely (restarts would move them). A child of the
   * root is aimed as before. */
  through_parent = !effector && position_only
                   && tip->parent >= 0
                   && km_skeleton_get_joint (skeleton, (guint) tip->parent)->parent >= 0;
  q = km_document_get_pose (document, &n_dof);
  problem = km_ik_problem_new (skeleton, through_parent ? tip->parent : joint);
  if (through_parent)
    {
      problem->effector_offset = tip->offset;
      problem->orientation_weight = 0.0;
    }
  memcpy (problem->seed, q, n_dof * sizeof (double));
  /* The target is in the world the scene draws: stand the skeleton where it is drawn (a
   * pose sequence moves the root), else the answer puts the effector off by the root's
   * move, and the body jumps. */
  km_document_get_root_pose (document, &problem->root_pose);
  problem->target = *target;
  /* The end effector aims the point its targets are for (a tool point, maybe position
   * only), as the Solve action does: @target is that point. */
  if (effector && targets != NULL)
    km_ik_problem_use_track (problem, targets);
  /* Warm start from the pose on screen: the answer stays on its branch and comes quickly. */
  problem->continuous = TRUE;
  problem->max_iterations = 200;
  problem->max_restarts = 4;
  /* The body's handlers first, like the Solve action; the solver keeps the hook alive
   * with the problem. */
  if (handlers != NULL && km_body_handler_set_get_n_attached (handlers) > 0)
    {
      hook = km_body_handler_ik_hook_new (handlers, KM_BODY_HANDLER_CONFIGURATION_NEAREST);
      if (!km_body_handler_ik_hook_install (hook, problem))
        g_clear_pointer (&hook, km_body_handler_ik_hook_free);
    }
  km_drag_solver_request_full (solver, problem, hook,
                               hook != NULL ? (GDestroyNotify) km_body_handler_ik_hook_free
                                            : NULL);
}
