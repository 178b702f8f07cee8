/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

/*
 * A linked-joints handler that misbehaves, for the test that Kinema checks linked output
 * as it checks IK answers: moving joint "a" writes NaN into "b" and a value far outside
 * the limits into "c". Built a second time with -DKM_TEST_SMALL_TABLE as
 * SmallTableHandler, whose class table states a struct_size smaller than the ABI's.
 */

#include <math.h>
#include <string.h>

#include "km-body-handler-abi.h"

typedef struct
{
  int a, b, c;   /* DOF indices */
} BadLink;

static int
find_dof (const KmBodyHandlerSkeleton *skeleton,
          const char                  *name)
{
  for (unsigned i = 0; i < skeleton->n_joints; i++)
    if (strcmp (skeleton->joints[i].name, name) == 0)
      return skeleton->joints[i].dof_index;
  return -1;
}

static int
bad_link_initialize (void                        *instance,
                     const KmBodyHandlerSkeleton *skeleton,
                     KmBodyHandlerLogFunc         log,
                     void                        *log_data)
{
  BadLink *self = instance;

  self->a = find_dof (skeleton, "a");
  self->b = find_dof (skeleton, "b");
  self->c = find_dof (skeleton, "c");
  if (self->a < 0 || self->b < 0 || self->c < 0)
    {
      log (log_data, KM_BODY_HANDLER_LOG_ERROR, "needs joints a, b and c");
      return 0;
    }
  return 1;
}

static int
bad_link_is_linked (const void *instance,
                    int         joint)
{
  (void) instance;
  return joint >= 1 && joint <= 3;
}

static int
bad_link_update (void   *instance,
                 int     master,
                 double  value,
                 double *q)
{
  BadLink *self = instance;

  (void) master;
  (void) value;
  q[self->b] = NAN;
  q[self->c] = 5.0;
  return 1;
}

static const KmBodyHandlerLinkedJointsIface bad_link_linked = {
  .struct_size = sizeof (KmBodyHandlerLinkedJointsIface),
  .is_linked = bad_link_is_linked,
  .update = bad_link_update,
};

static const KmBodyHandlerClass bad_link_class = {
  .abi_version = KM_BODY_HANDLER_ABI_VERSION,
#ifdef KM_TEST_SMALL_TABLE
  .struct_size = offsetof (KmBodyHandlerClass, presentation),
  .name = "SmallTableHandler",
#else
  .struct_size = sizeof (KmBodyHandlerClass),
  .name = "BadLinkHandler",
#endif
  .instance_size = sizeof (BadLink),
  .initialize = bad_link_initialize,
  .linked_joints = &bad_link_linked,
};

KM_BODY_HANDLER_DEFINE (bad_link_class)
