/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include "km-item.h"
#include "km-target-track.h"

G_BEGIN_DECLS

/*
 * The IK targets of a body (`Kinema/IKTargetsItem`, a child of a BodyItem; DESIGN.md "Our
 * project items"). Its data is either a file reference, `file` (path variables and paths
 * relative to the project allowed) with `format: KINEMA-TARGETS-JSON`, or inline:
 *
 *   effector: "Hand"           (optional: the skeleton's default effector otherwise)
 *   frame_rate: 30             (optional, frames per second, also with a file)
 *   keyframes:
 *     - { frame: 0, pos: [ 0.3, 0, 0.5 ], euler: [ 0, 90, 0 ] }
 *
 * `pos` in metres (world), `euler` in degrees, intrinsic XYZ, as in targets.json. A file
 * that cannot be read leaves the item without a track and says why (km_item_get_problem);
 * its data is written back unchanged. A new or edited track is written inline until
 * km_ik_targets_item_set_file names the file it was saved to.
 */

#define KM_TYPE_IK_TARGETS_ITEM (km_ik_targets_item_get_type ())

G_DECLARE_FINAL_TYPE (KmIkTargetsItem, km_ik_targets_item, KM, IK_TARGETS_ITEM, KmItem)

KmItem        *km_ik_targets_item_new       (void);
/* The `file` value as written (with its variable or relative), NULL when inline. */
const char    *km_ik_targets_item_get_file  (KmIkTargetsItem *self);
/* The track, or NULL when none could be read. */
KmTargetTrack *km_ik_targets_item_get_track (KmIkTargetsItem *self);
/* Replaces the track; the item is written inline from now on. */
void           km_ik_targets_item_set_track (KmIkTargetsItem *self,
                                             KmTargetTrack   *track);
/* The item is written as a reference to @file (as it should appear in the project) in
 * @format (NULL: KINEMA-TARGETS-JSON), e.g. after the track was saved there. */
void           km_ik_targets_item_set_file  (KmIkTargetsItem *self,
                                             const char      *file,
                                             const char      *format);

/* What the item holds and how it is written: its track, file reference, whether it
 * changed since it was read, its problem. An edit takes it before changing the item, and
 * its undo puts it back, so that the item is again exactly as it was (a file it was read
 * from is its file again, and it is written as read). */
typedef struct _KmIkTargetsItemState KmIkTargetsItemState;

KmIkTargetsItemState *km_ik_targets_item_save_state    (KmIkTargetsItem            *self);
void                  km_ik_targets_item_restore_state (KmIkTargetsItem            *self,
                                                        const KmIkTargetsItemState *state);
void                  km_ik_targets_item_state_free    (KmIkTargetsItemState       *state);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KmIkTargetsItemState, km_ik_targets_item_state_free)

G_END_DECLS
