/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

/*
 * LinearActuatorSampleHandler — a displacement-presentation sample: the revolute joint
 * `boom` is driven by a linear actuator (a hydraulic cylinder), so it is shown and
 * edited as the actuator's length in millimetres instead of an angle.
 *
 * The cylinder is pinned to the base at distance BASE_ARM from the joint axis and to the
 * boom at distance BOOM_ARM; at joint angle θ the angle between the two arms is
 * θ + REST_ANGLE, so by the law of cosines
 *   L(θ) = sqrt (b² + c² − 2·b·c·cos (θ + REST_ANGLE)).
 * L grows monotonically while θ + REST_ANGLE stays within (0, π), which the joint's limits
 * must guarantee (initialize() checks it), so the shown value converts back uniquely.
 * Model: tests/data/linear-actuator-arm.json.
 */

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "km-body-handler-abi.h"

#define BASE_ARM   0.30          /* m */
#define BOOM_ARM   0.10          /* m */
#define REST_ANGLE (M_PI / 2.0)  /* between the arms at θ = 0 */

typedef struct
{
  int    joint;
  double lower;
  double upper;
} LinearActuator;

static double
length_mm (double angle)
{
  return 1000.0 * sqrt (BASE_ARM * BASE_ARM + BOOM_ARM * BOOM_ARM -
                        2.0 * BASE_ARM * BOOM_ARM * cos (angle + REST_ANGLE));
}

static int
actuator_initialize (void                        *instance,
                     const KmBodyHandlerSkeleton *skeleton,
                     KmBodyHandlerLogFunc         log,
                     void                        *log_data)
{
  LinearActuator *self = instance;

  self->joint = -1;
  for (unsigned j = 0; j < skeleton->n_joints; j++)
    if (strcmp (skeleton->joints[j].name, "boom") == 0)
      self->joint = (int) j;
  if (self->joint < 0)
    {
      log (log_data, KM_BODY_HANDLER_LOG_ERROR, "boom is not found.");
      return 0;
    }
  if (skeleton->joints[self->joint].type != KM_BODY_HANDLER_JOINT_REVOLUTE)
    {
      log (log_data, KM_BODY_HANDLER_LOG_ERROR, "boom is not a revolute joint.");
      return 0;
    }
  self->lower = skeleton->joints[self->joint].lower;
  self->upper = skeleton->joints[self->joint].upper;
  if (!(self->lower + REST_ANGLE > 0.0) || !(self->upper + REST_ANGLE < M_PI))
    {
      log (log_data, KM_BODY_HANDLER_LOG_ERROR,
           "boom's limits let the actuator pass its dead centre; they must keep the "
           "joint within (-90°, 90°).");
      return 0;
    }
  return 1;
}

static int
actuator_presents (const void *instance,
                   int         joint)
{
  const LinearActuator *self = instance;

  return joint == self->joint;
}

static int
actuator_get_unit_kind (const void *instance,
                        int         joint)
{
  return KM_BODY_HANDLER_UNIT_LENGTH;
}

static const char *
actuator_get_unit_label (const void *instance,
                         int         joint)
{
  return "mm";
}

static double
actuator_to_shown (const void *instance,
                   int         joint,
                   double      value)
{
  return length_mm (value);
}

static int
actuator_from_shown (const void *instance,
                     int         joint,
                     double      shown,
                     double     *value)
{
  double l = shown / 1000.0;
  double c = (BASE_ARM * BASE_ARM + BOOM_ARM * BOOM_ARM - l * l) /
             (2.0 * BASE_ARM * BOOM_ARM);

  if (!(c >= -1.0 && c <= 1.0))
    return 0;
  *value = acos (c) - REST_ANGLE;
  return 1;
}

static void
actuator_get_shown_range (const void *instance,
                          int         joint,
                          double     *min,
                          double     *max)
{
  const LinearActuator *self = instance;

  *min = length_mm (self->lower);
  *max = length_mm (self->upper);
}

static const KmBodyHandlerPresentationIface actuator_presentation = {
  .struct_size = sizeof (KmBodyHandlerPresentationIface),
  .presents = actuator_presents,
  .get_unit_kind = actuator_get_unit_kind,
  .get_unit_label = actuator_get_unit_label,
  .to_shown = actuator_to_shown,
  .from_shown = actuator_from_shown,
  .get_shown_range = actuator_get_shown_range,
};

static const KmBodyHandlerClass actuator_class = {
  .abi_version = KM_BODY_HANDLER_ABI_VERSION,
  .struct_size = sizeof (KmBodyHandlerClass),
  .name = "LinearActuatorSampleHandler",
  .instance_size = sizeof (LinearActuator),
  .initialize = actuator_initialize,
  .presentation = &actuator_presentation,
};

KM_BODY_HANDLER_DEFINE (actuator_class)
