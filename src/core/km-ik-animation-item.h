/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include "km-animation.h"
#include "km-item.h"

G_BEGIN_DECLS

/*
 * The solved animation of a body (`Kinema/IKAnimationItem`, a child of a BodyItem; DESIGN.md
 * "Our project items"). Its data is either a file reference, `file` with
 * `format: KINEMA-ANIMATION-JSON`, or inline `frames` in animation.json's shape (radians
 * and metres), one frame per line:
 *
 *   frame_rate: 30             (optional, frames per second, also with a file)
 *   solved_from_other_targets: true   (optional: the motion is not the solve of the body's
 *                                      targets, whose solve had not finished when it was
 *                                      written; its residuals are not measured)
 *   frames:
 *     - { frame: 0, joints: { "Elbow": { type: revolute, angle: 0.5 } } }
 *
 * With the parent body's skeleton loaded, joint names map to its DOFs (every DOF joint in
 * every frame); without one, the channels are the first frame's joints. A file that cannot
 * be read leaves the item without an animation and says why; its data is written back
 * unchanged. A new or edited animation is written inline until
 * km_ik_animation_item_set_file names the file it was saved to.
 */

#define KM_TYPE_IK_ANIMATION_ITEM (km_ik_animation_item_get_type ())

G_DECLARE_FINAL_TYPE (KmIkAnimationItem, km_ik_animation_item, KM, IK_ANIMATION_ITEM, KmItem)

KmItem      *km_ik_animation_item_new           (void);
/* The `file` value as written (with its variable or relative), NULL when inline. */
const char  *km_ik_animation_item_get_file      (KmIkAnimationItem *self);
/* The animation, or NULL when none could be read. Treat it as read-only. */
KmAnimation *km_ik_animation_item_get_animation (KmIkAnimationItem *self);
/* Replaces the animation (a reference is taken); written inline from now on. */
void         km_ik_animation_item_set_animation (KmIkAnimationItem *self,
                                                 KmAnimation       *animation);
/* Written as a reference to @file in @format (NULL: KINEMA-ANIMATION-JSON). */
void         km_ik_animation_item_set_file      (KmIkAnimationItem *self,
                                                 const char        *file,
                                                 const char        *format);
/* km_item_store() for a tree that is only written: the inline frames are built when it is
 * (on the thread that writes it; see km_yaml_node_new_deferred). */
KmYamlNode  *km_ik_animation_item_store_for_writing (KmIkAnimationItem *self,
                                                     KmItemIo          *io);
/* Whether the animation is known not to be solved from the targets the body has (written
 * as `solved_from_other_targets: true`, e.g. saved while their solve ran): its residuals
 * are not measured against them. Marking holds for the animation the item has now. */
gboolean     km_ik_animation_item_get_solved_from_other_targets (KmIkAnimationItem *self);
void         km_ik_animation_item_set_solved_from_other_targets (KmIkAnimationItem *self,
                                                                 gboolean           other);

G_END_DECLS
