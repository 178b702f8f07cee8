/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include "km-body-motion.h"
#include "km-motion-file-item.h"

G_BEGIN_DECLS

/*
 * Choreonoid's body motion item (`Body/BodyMotionItem`): `file` (or the older `filename`)
 * names a `.seq` file, `format: CHOREONOID-BODY-MOTION-YAML` (older projects: `yaml` or
 * none; km-body-motion.h). A read-only KmMotionFileItem: the file is only read, and the
 * item's data is written back exactly as it was read.
 *
 * A file that cannot be read leaves the item without a motion; one that does not fit the
 * body (no body above the item, joint ids the body lacks) loads with a warning naming the
 * file. The project loads either way.
 *
 * The animation is built on first use for the body's current model, at the frame rate set
 * with km_body_motion_item_set_frame_rate (0, the default: the file's own), sampling the
 * motion by time. Joint values map by Choreonoid joint id; joints the motion lacks keep
 * the body's joint values; the root follows the motion's root link (LinkPosition part 0)
 * when it has one.
 */

#define KM_TYPE_BODY_MOTION_ITEM (km_body_motion_item_get_type ())

G_DECLARE_FINAL_TYPE (KmBodyMotionItem, km_body_motion_item, KM, BODY_MOTION_ITEM,
                      KmMotionFileItem)

/* A new item for @motion read from @path: its data names @path, so a project saved with
 * it refers to the file. */
KmItem       *km_body_motion_item_new_for_file   (const char       *path,
                                                  KmBodyMotion     *motion);
/* The `file` value as written, or NULL. */
const char   *km_body_motion_item_get_file       (KmBodyMotionItem *self);
/* The motion read, or NULL when none could be read. */
KmBodyMotion *km_body_motion_item_get_motion     (KmBodyMotionItem *self);
/* The nearest ancestor body item, or NULL. */
KmItem       *km_body_motion_item_get_body       (KmBodyMotionItem *self);
/* A warning naming the file when the motion does not fit its body (no body above the item,
 * joint ids the body's model lacks, none at all that it has), else NULL. */
char         *km_body_motion_item_check_fit      (KmBodyMotionItem *self);
/* The frame rate the animation is built at: the one set, else the file's (0 without a
 * motion). */
double        km_body_motion_item_get_frame_rate (KmBodyMotionItem *self);
/* @frame_rate: frames per second, or 0 for the file's own. */
void          km_body_motion_item_set_frame_rate (KmBodyMotionItem *self,
                                                  double            frame_rate);
/* The motion sampled for the body's model (built now if needed), or NULL (no motion, no
 * body model, nothing in the motion to play). */
KmAnimation  *km_body_motion_item_get_animation  (KmBodyMotionItem *self);
/* The world pose of the body's root at @frame of that animation; FALSE when the motion
 * has no link positions. */
gboolean      km_body_motion_item_get_root_pose  (KmBodyMotionItem *self,
                                                  guint             frame,
                                                  KmTransform      *pose);

G_END_DECLS
