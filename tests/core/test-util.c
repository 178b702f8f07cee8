/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include "test-util.h"

/* The spec's example (data/skeleton.json), built directly: Root(fixed) →
 * Shoulder(spherical) → Elbow(revolute) → Piston(prismatic) → EndEffector(fixed). */
KmSkeleton *
test_util_example_skeleton (void)
{
  g_autoptr(KmSkeletonBuilder) builder = km_skeleton_builder_new ();
  g_autoptr(GError) error = NULL;
  KmSkeleton *skeleton;
  guint j;

  km_skeleton_builder_set_root_name (builder, "Root");
  km_skeleton_builder_add_joint (builder, "Root", KM_JOINT_FIXED, NULL);
  j = km_skeleton_builder_add_joint (builder, "Shoulder", KM_JOINT_SPHERICAL, "Root");
  km_skeleton_builder_set_offset (builder, j, km_vec3 (0, 1.5, 0));
  km_skeleton_builder_set_limit (builder, j, 0, -3.14, 3.14);
  km_skeleton_builder_set_limit (builder, j, 2, -0.5, 0.5);
  j = km_skeleton_builder_add_joint (builder, "Elbow", KM_JOINT_REVOLUTE, "Shoulder");
  km_skeleton_builder_set_offset (builder, j, km_vec3 (0, 0, 2));
  km_skeleton_builder_set_axis (builder, j, km_vec3 (1, 0, 0));
  km_skeleton_builder_set_limit (builder, j, 0, 0, 2.5);
  j = km_skeleton_builder_add_joint (builder, "Piston", KM_JOINT_PRISMATIC, "Elbow");
  km_skeleton_builder_set_offset (builder, j, km_vec3 (0, 0, 1));
  km_skeleton_builder_set_axis (builder, j, km_vec3 (0, 0, 1));
  km_skeleton_builder_set_limit (builder, j, 0, 0, 0.5);
  j = km_skeleton_builder_add_joint (builder, "EndEffector", KM_JOINT_FIXED, "Piston");
  km_skeleton_builder_set_offset (builder, j, km_vec3 (0, 0, 0.5));

  skeleton = km_skeleton_builder_build (builder, NULL, &error);
  g_assert_no_error (error);
  return skeleton;
}
