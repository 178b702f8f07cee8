/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <glib-object.h>

#include "km-math.h"

G_BEGIN_DECLS

#define KM_TYPE_TARGET_TRACK (km_target_track_get_type ())
#define KM_TARGET_TRACK_ERROR (km_target_track_error_quark ())

/* Bounds that keep hostile files from allocating without bound: a solved animation has one
 * row per frame from 0 to the last keyframe (about 9 hours at 30 fps). */
#define KM_TARGET_TRACK_MAX_FRAME 1000000
#define KM_TARGET_TRACK_DEFAULT_FRAME_RATE 30.0

typedef enum
{
  KM_TARGET_TRACK_ERROR_DUPLICATE_FRAME,
  KM_TARGET_TRACK_ERROR_BAD_VALUE,
} KmTargetTrackError;

/*
 * One keyframe for the end effector: world position in metres and world orientation as a
 * unit quaternion [w, x, y, z] (targets.json stores euler XYZ degrees; the reader converts).
 */
typedef struct
{
  guint  frame;
  KmVec3 position;
  KmQuat orientation;
} KmTargetKeyframe;

/*
 * KmTargetTrack is immutable and atomically reference counted, like KmSkeleton: once built
 * it never changes, so any thread may read it without locks and a worker may keep a
 * reference. Keyframes are sorted by frame, frames are unique. An edit (the editor's "set
 * keyframe", "delete keyframe") builds a new track with the km_target_track_with_*()
 * functions; whoever owns the current track (KmProject) swaps it and notifies.
 *
 * A track may name its end effector (targets.json's `effector`); NULL means the skeleton's
 * default effector (the last leaf joint in file order). It may also name a base joint
 * (km_target_track_with_base()): the joints from the effector up to, not including, the
 * base move; NULL: up to the root. The base is never the named effector (given as the base,
 * it means none). frame_rate is frames per second (default 30); time = frame / frame_rate.
 *
 * The keyframes are for the effector joint's origin, or for a point fixed in its frame (the
 * effector offset: a tool point, a Scenebuilder end connector); a position-only track
 * targets that point's position alone (its orientations only show the effector's).
 *
 * A keyframe may carry what Kinema does not interpret (a targets.json keyframe's other
 * members: "comment", "time", a tool's name, …) as an opaque text, the JSON object of
 * those members, which a rewrite of the file writes back (km_target_track_get_extra()).
 * It belongs to the keyframe's frame: it stays when the keyframe there is replaced and
 * goes with the keyframe deleted; every other edit keeps it.
 *
 * A keyframe read from a file may also keep the euler XYZ angles the file gave it, in
 * degrees (km_target_track_with_eulers()), so that a rewrite writes the user's own triple,
 * the same numbers, rather than an equivalent one recomputed from the rotation (a
 * different triple for the same rotation, and not the same doubles). They are the
 * keyframe's only while it has, bit for bit, the rotation they were read as: an edit that
 * changes its rotation drops them (km_target_track_get_euler()).
 */
typedef struct _KmTargetTrack KmTargetTrack;

GQuark               km_target_track_error_quark         (void);
GType                km_target_track_get_type            (void) G_GNUC_CONST;

KmTargetTrack       *km_target_track_new                 (const KmTargetKeyframe *keyframes,
                                                          guint                   n_keyframes,
                                                          const char             *effector,
                                                          double                  frame_rate,
                                                          GError                **error);
KmTargetTrack       *km_target_track_ref                 (KmTargetTrack          *self);
void                 km_target_track_unref               (KmTargetTrack          *self);

guint                km_target_track_get_n_keyframes     (const KmTargetTrack    *self);
const KmTargetKeyframe *km_target_track_get_keyframe     (const KmTargetTrack    *self,
                                                          guint                   index);
const KmTargetKeyframe *km_target_track_get_keyframes    (const KmTargetTrack    *self,
                                                          guint                  *n_keyframes);
int                  km_target_track_find_keyframe       (const KmTargetTrack    *self,
                                                          guint                   frame);
guint                km_target_track_get_first_frame     (const KmTargetTrack    *self);
guint                km_target_track_get_last_frame      (const KmTargetTrack    *self);
const char          *km_target_track_get_effector        (const KmTargetTrack    *self);
double               km_target_track_get_frame_rate      (const KmTargetTrack    *self);
KmVec3               km_target_track_get_effector_offset (const KmTargetTrack    *self);
gboolean             km_target_track_has_effector_offset (const KmTargetTrack    *self);
gboolean             km_target_track_get_position_only   (const KmTargetTrack    *self);

gboolean             km_target_track_sample              (const KmTargetTrack    *self,
                                                          double                  frame,
                                                          KmVec3                 *position,
                                                          KmQuat                 *orientation);

KmTargetTrack       *km_target_track_with_keyframe       (const KmTargetTrack    *self,
                                                          const KmTargetKeyframe *keyframe);
KmTargetTrack       *km_target_track_without_keyframe    (const KmTargetTrack    *self,
                                                          guint                   frame);
KmTargetTrack       *km_target_track_with_effector       (const KmTargetTrack    *self,
                                                          const char             *effector);
KmTargetTrack       *km_target_track_with_frame_rate     (const KmTargetTrack    *self,
                                                          double                  frame_rate);
KmTargetTrack       *km_target_track_with_tool           (const KmTargetTrack    *self,
                                                          KmVec3                  effector_offset,
                                                          gboolean                position_only);

KmTargetTrack       *km_target_track_with_base           (const KmTargetTrack    *self,
                                                          const char             *base);
const char          *km_target_track_get_base            (const KmTargetTrack    *self);

KmTargetTrack       *km_target_track_with_extras         (const KmTargetTrack    *self,
                                                          GHashTable             *extras);
const char          *km_target_track_get_extra           (const KmTargetTrack    *self,
                                                          guint                   frame);

KmTargetTrack       *km_target_track_with_eulers         (const KmTargetTrack    *self,
                                                          const KmVec3           *degrees);
gboolean             km_target_track_get_euler           (const KmTargetTrack    *self,
                                                          guint                   index,
                                                          KmVec3                 *degrees);

gboolean             km_target_track_equal               (const KmTargetTrack    *a,
                                                          const KmTargetTrack    *b,
                                                          double                  epsilon);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KmTargetTrack, km_target_track_unref)

G_END_DECLS
