/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include "km-motion-file-item.h"
#include "km-pose-seq.h"

G_BEGIN_DECLS

/*
 * Choreonoid's pose sequence item (`PoseSeq/PoseSeqItem`): `file` (or the older
 * `filename`) names a `.pseq` file, `format: POSE-SEQ-YAML` (km-pose-seq.h). A read-only
 * KmMotionFileItem: its body is its nearest ancestor body item (in Choreonoid projects it
 * sits below a BodyMotionControllerItem), the file is only read, and the item's data is
 * written back exactly as it was read. A file that cannot be read leaves the item without
 * a sequence (a warning and the item's problem say why); the project still loads.
 *
 * The animation is built from the sequence by km_pose_seq_item_build (or on a worker
 * thread, km_pose_seq_item_build_async: the editor's way), and again after the body's
 * model or the frame rate changes, at the frame rate set with
 * km_pose_seq_item_set_frame_rate (default 100 fps). Joints no key lists keep the body's
 * joint values at that moment.
 */

#define KM_TYPE_POSE_SEQ_ITEM (km_pose_seq_item_get_type ())

#define KM_POSE_SEQ_ITEM_DEFAULT_FRAME_RATE 100.0

G_DECLARE_FINAL_TYPE (KmPoseSeqItem, km_pose_seq_item, KM, POSE_SEQ_ITEM, KmMotionFileItem)

/* A new item for the sequence @pose_seq read from @path (File → Open of a bare `.pseq`):
 * its data names @path, so a project saved with it refers to the file. */
KmItem      *km_pose_seq_item_new_for_file   (const char    *path,
                                              KmPoseSeq     *pose_seq);
/* The `file` value as written, or NULL. */
const char  *km_pose_seq_item_get_file       (KmPoseSeqItem *self);
/* The sequence read, or NULL when none could be read. */
KmPoseSeq   *km_pose_seq_item_get_pose_seq   (KmPoseSeqItem *self);
/* The nearest ancestor body item, or NULL. */
KmItem      *km_pose_seq_item_get_body       (KmPoseSeqItem *self);
double       km_pose_seq_item_get_frame_rate (KmPoseSeqItem *self);
void         km_pose_seq_item_set_frame_rate (KmPoseSeqItem *self,
                                              double         frame_rate);
/* The interpolated motion for the body's model, or NULL (not built, no sequence, no body
 * model). */
KmAnimation *km_pose_seq_item_get_animation  (KmPoseSeqItem *self);
gboolean     km_pose_seq_item_build          (KmPoseSeqItem *self,
                                              GError       **error);
void         km_pose_seq_item_build_async    (KmPoseSeqItem       *self,
                                              GCancellable        *cancellable,
                                              GAsyncReadyCallback  callback,
                                              gpointer             user_data);
gboolean     km_pose_seq_item_build_finish   (KmPoseSeqItem *self,
                                              GAsyncResult  *result,
                                              GError       **error);
gboolean     km_pose_seq_item_get_building   (KmPoseSeqItem *self);
/* The world pose of the body's root at @frame of that animation. */
gboolean     km_pose_seq_item_get_root_pose  (KmPoseSeqItem *self,
                                              guint          frame,
                                              KmTransform   *pose);

G_END_DECLS
