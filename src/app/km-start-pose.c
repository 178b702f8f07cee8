/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-start-pose"

#include "config.h"

#include <math.h>
#include <glib/gi18n.h>

#include "km-start-pose.h"

/* A DOF clamped by less than this was within its limits up to rounding: not worth a word. */
#define MOVED_EPSILON 1e-12

/* Whether @initial_q (nullable) is a pose the file states (a .body file's
 * joint_displacement, a scene's joint pos), not the rest pose a file without one gives
 * (km_skeleton_dup_mimic_rest_pose: 0, linked joints at their offsets). */
static gboolean
states_pose (const KmSkeleton *skeleton,
             const double     *initial_q)
{
  g_autofree double *rest = NULL;

  if (initial_q == NULL)
    return FALSE;
  rest = km_skeleton_dup_mimic_rest_pose (skeleton);
  for (guint d = 0; d < km_skeleton_get_n_dof (skeleton); d++)
    if (initial_q[d] != (rest != NULL ? rest[d] : 0.0))
      return TRUE;
  return FALSE;
}

/**
 * km_start_pose_describe_clamp:
 * @skeleton: the model just opened
 * @initial_q: (nullable) (array): the pose its file states (KmModelExtras.initial_q, with
 *   km_skeleton_get_n_dof() values), or %NULL
 * @q: (array): its start pose, km_skeleton_get_n_dof() values
 *
 * Where the joint limits clamp the start pose of a model opened in the editor whose file
 * states no pose (a URDF has no place for one: every joint starts at 0, outside a range
 * such as the Franka Panda joint4's −176° to −4°), linked joints following their masters:
 * what the Pose tab shows and an edit or a solve starts from. A pose the file states is
 * left to its loader, which warns about a value outside its range (kept, as Choreonoid
 * keeps it).
 *
 * Returns: (transfer full) (nullable): the joints clamped and to what, for the Messages
 *   ("elbow −4.0°, slide 100.0 mm"), or %NULL when the pose is within the limits
 */
char *
km_start_pose_describe_clamp (const KmSkeleton *skeleton,
                              const double     *initial_q,
                              const double     *q)
{
  static const char *axis_names[] = { "X", "Y", "Z" };
  guint n_dof;
  g_autofree double *clamped = NULL;
  g_autoptr(GString) list = NULL;

  g_return_val_if_fail (skeleton != NULL, NULL);

  n_dof = km_skeleton_get_n_dof (skeleton);
  if (n_dof == 0 || states_pose (skeleton, initial_q))
    return NULL;
  g_return_val_if_fail (q != NULL, NULL);

  clamped = g_memdup2 (q, n_dof * sizeof (double));
  km_skeleton_clamp (skeleton, clamped);
  km_skeleton_apply_mimic (skeleton, clamped);
  for (guint d = 0; d < n_dof; d++)
    {
      const KmJoint *joint;
      guint axis;
      g_autofree char *name = NULL;
      g_autofree char *value = NULL;

      if (fabs (clamped[d] - q[d]) <= MOVED_EPSILON)
        continue;
      joint = km_skeleton_get_joint (skeleton, (guint) km_skeleton_get_dof_joint (skeleton, d));
      axis = d - (guint) joint->dof_index;
      name = joint->n_dof > 1 && axis < G_N_ELEMENTS (axis_names)
             ? g_strdup_printf ("%s %s", joint->name, axis_names[axis])
             : g_strdup (joint->name);
      if (joint->type == KM_JOINT_PRISMATIC)
        /* Translators: a joint clamped into its limits and its value there in millimetres, an
         * entry of the list in “…: start pose outside the joint limits …” */
        value = g_strdup_printf (_("%s %.1f mm"), name, clamped[d] * 1000.0);
      else
        /* Translators: a joint clamped into its limits and its angle there in degrees, an entry
         * of the list in “…: start pose outside the joint limits …” */
        value = g_strdup_printf (_("%s %.1f°"), name, clamped[d] * 180.0 / G_PI);
      if (list == NULL)
        list = g_string_new (value);
      else
        /* Translators: between two entries of the list of joints clamped into their limits */
        g_string_append_printf (list, "%s%s", C_("list separator", ", "), value);
    }
  return list != NULL ? g_string_free (g_steal_pointer (&list), FALSE) : NULL;
}
