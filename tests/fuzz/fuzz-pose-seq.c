/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 *
 * libFuzzer target: the Choreonoid pose sequence reader (km-pose-seq.h), and the
 * interpolation of what it reads onto a small chain whose joints have Choreonoid ids 0-2
 * and whose links are named as SR1's (WAIST, a foot), so ikLinks can take part.
 */

#include "config.h"

#include <string.h>

#include "fuzz-common.h"
#include "km-pose-seq.h"
#include "km-skeleton.h"

static KmSkeleton *chain;

static KmSkeleton *
build_chain (void)
{
  static const char * const names[] = { "HIP", "KNEE", "LLEG_ANKLE_R" };
  KmSkeletonBuilder *builder = km_skeleton_builder_new ();
  const char *parent = NULL;
  KmSkeleton *skeleton;

  km_skeleton_builder_add_joint (builder, "WAIST", KM_JOINT_FIXED, NULL);
  parent = "WAIST";
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      guint j = km_skeleton_builder_add_joint (builder, names[i], KM_JOINT_REVOLUTE, parent);

      km_skeleton_builder_set_offset (builder, j, km_vec3 (0, 0, -0.3));
      km_skeleton_builder_set_axis (builder, j, km_vec3 (0, 1, 0));
      km_skeleton_builder_set_limit (builder, j, 0, -2.5, 2.5);
      km_skeleton_builder_set_joint_id (builder, j, (int) i);
      parent = names[i];
    }
  skeleton = km_skeleton_builder_build (builder, NULL, NULL);
  km_skeleton_builder_free (builder);
  g_assert (skeleton != NULL);
  return skeleton;
}

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  fuzz_init_logging ();
  chain = build_chain ();
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GBytes) bytes = g_bytes_new (data, size);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmPoseSeq) seq = NULL;
  g_autoptr(GString) out = g_string_new (NULL);
  double rest[3] = { 0, 0, 0 };

  (void) km_pose_seq_sniff ((const char *) data, size);
  seq = km_pose_seq_load ("fuzz.pseq", bytes, &error);
  g_assert ((seq == NULL) != (error == NULL));
  if (seq == NULL)
    return 0;
  km_pose_seq_describe (seq, out);
  /* A short motion at a low rate: the interpolation and the foot IK, bounded. */
  if (km_pose_seq_get_duration (seq) <= 20)
    {
      g_autoptr(GError) interpolate_error = NULL;
      g_autofree KmTransform *roots = NULL;
      KmAnimation *animation = km_pose_seq_interpolate (seq, chain, rest, NULL, 5, &roots, NULL,
                                                        &interpolate_error);

      g_assert ((animation == NULL) != (interpolate_error == NULL));
      if (animation != NULL)
        km_animation_unref (animation);
    }
  return 0;
}
