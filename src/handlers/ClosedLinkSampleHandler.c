/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

/*
 * ClosedLinkSampleHandler — the linked-joint handler Choreonoid's ClosedLinkSample.body
 * names (share/model/misc/ClosedLinkSample.body). Its links form a parallelogram:
 * J0 (at the origin) and J3 (0.2 m away) are cranks of equal length 0.1 m, and J1 at
 * J0's tip carries the 0.2 m coupler that closes the loop at J3's tip (the model's
 * `extraJoints` hinge). Keeping the coupler parallel to the base means J3 = J0 and
 * J1 = −J0, whichever of the three joints is moved.
 *
 * Built only against the public ABI header, like any third-party handler.
 */

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "km-body-handler-abi.h"

typedef struct
{
  const KmBodyHandlerSkeleton *skeleton;
  int                          joint[3];  /* J0, J1, J3 */
  int                          dof[3];
} ClosedLink;

static int
closed_link_initialize (void                        *instance,
                        const KmBodyHandlerSkeleton *skeleton,
                        KmBodyHandlerLogFunc         log,
                        void                        *log_data)
{
  static const char * const names[3] = { "J0", "J1", "J3" };
  ClosedLink *self = instance;

  self->skeleton = skeleton;
  for (int i = 0; i < 3; i++)
    {
      self->joint[i] = -1;
      for (unsigned j = 0; j < skeleton->n_joints; j++)
        if (strcmp (skeleton->joints[j].name, names[i]) == 0)
          self->joint[i] = (int) j;
      if (self->joint[i] < 0)
        {
          char message[64];

          snprintf (message, sizeof message, "%s is not found.", names[i]);
          log (log_data, KM_BODY_HANDLER_LOG_ERROR, message);
          return 0;
        }
      if (skeleton->joints[self->joint[i]].type != KM_BODY_HANDLER_JOINT_REVOLUTE)
        {
          char message[64];

          snprintf (message, sizeof message, "%s is not a revolute joint.", names[i]);
          log (log_data, KM_BODY_HANDLER_LOG_ERROR, message);
          return 0;
        }
      self->dof[i] = skeleton->joints[self->joint[i]].dof_index;
    }
  return 1;
}

static int
closed_link_is_linked (const void *instance,
                       int         joint)
{
  const ClosedLink *self = instance;

  return joint >= 0 && (joint == self->joint[0] || joint == self->joint[1] ||
                        joint == self->joint[2]);
}

static int
closed_link_update (void   *instance,
                    int     master,
                    double  value,
                    double *q)
{
  ClosedLink *self = instance;
  double *q0 = &q[self->dof[0]];
  double *q1 = &q[self->dof[1]];
  double *q3 = &q[self->dof[2]];

  if (master == -1 || master == self->joint[0])
    {
      if (master != -1)
        *q0 = value;
      *q1 = -*q0;
      *q3 = *q0;
    }
  else if (master == self->joint[1])
    {
      *q1 = value;
      *q0 = -*q1;
      *q3 = *q0;
    }
  else if (master == self->joint[2])
    {
      *q3 = value;
      *q0 = *q3;
      *q1 = -*q3;
    }
  else
    return 0;
  return 1;
}

static const KmBodyHandlerLinkedJointsIface closed_link_linked_joints = {
  .struct_size = sizeof (KmBodyHandlerLinkedJointsIface),
  .is_linked = closed_link_is_linked,
  .update = closed_link_update,
};

static const KmBodyHandlerClass closed_link_class = {
  .abi_version = KM_BODY_HANDLER_ABI_VERSION,
  .struct_size = sizeof (KmBodyHandlerClass),
  .name = "ClosedLinkSampleHandler",
  .instance_size = sizeof (ClosedLink),
  .initialize = closed_link_initialize,
  .clone = NULL,     /* plain data: a byte copy is a full clone */
  .finalize = NULL,
  .linked_joints = &closed_link_linked_joints,
};

KM_BODY_HANDLER_DEFINE (closed_link_class)
