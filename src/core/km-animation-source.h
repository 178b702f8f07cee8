/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include "km-animation.h"
#include "km-item.h"
#include "km-math.h"

G_BEGIN_DECLS

/*
 * KmAnimationSource: an item that provides a KmAnimation for its body, the body being its
 * nearest ancestor KmBodyItem. The solved IK animation (KmIkAnimationItem) and Choreonoid's
 * pose sequence (KmPoseSeqItem) implement it, so the editor plays either the same way.
 *
 * get_animation returns the animation (frames in the body skeleton's DOF order), or NULL
 * when the item has none. get_root_pose is optional: the root pose at a frame (the
 * `root_pose` argument of km_skeleton_forward_kinematics, in world coordinates), for
 * animations that move the floating base (a walk); without it, or when it returns FALSE,
 * the root stays where the editor draws the body.
 */

#define KM_TYPE_ANIMATION_SOURCE (km_animation_source_get_type ())

G_DECLARE_INTERFACE (KmAnimationSource, km_animation_source, KM, ANIMATION_SOURCE, KmItem)

struct _KmAnimationSourceInterface
{
  GTypeInterface g_iface;

  KmAnimation *(*get_animation) (KmAnimationSource *self);
  gboolean     (*get_root_pose) (KmAnimationSource *self,
                                 guint              frame,
                                 KmTransform       *pose);
};

KmAnimation *km_animation_source_get_animation (KmAnimationSource *self);
gboolean     km_animation_source_get_root_pose (KmAnimationSource *self,
                                                guint              frame,
                                                KmTransform       *pose);
/* The first source below @body (depth first, in tree order, not below another body item)
 * that has an animation; NULL when none. */
KmAnimationSource *km_animation_source_find    (KmItem            *body);

G_END_DECLS
