/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <glib-object.h>

#include "km-skeleton.h"

G_BEGIN_DECLS

#define KM_TYPE_ANIMATION (km_animation_get_type ())

/* Bound on frames, the same as KM_TARGET_TRACK_MAX_FRAME + 1. */
#define KM_ANIMATION_MAX_FRAMES 1000001

/*
 * A channel is one joint with degrees of freedom as animation.json stores it. Its values
 * occupy n_dof consecutive entries of a frame row starting at dof_index: revolute (angle,
 * rad), prismatic (displacement, m) or spherical (euler XYZ intrinsic, rad, 3 values).
 * For an animation built for a skeleton the channels are the skeleton's DOF joints in
 * topological order and a frame row is exactly the skeleton's state vector (`q` of
 * km_skeleton_forward_kinematics); `joint` is then the joint's index, -1 otherwise.
 */
typedef struct
{
  char        *name;
  KmJointType  type;
  guint        dof_index;
  guint        n_dof;
  int          joint;
} KmAnimationChannel;

/* Residuals summary of a solved animation (metres, radians). */
typedef struct
{
  guint  n_frames;
  double mean_pos_err;
  double max_pos_err;
  double mean_rot_err;
  double max_rot_err;
} KmAnimationStats;

/*
 * A keyframe of the target track that a solved motion misses although its target can be
 * met: solved on its own (cold, km_ik_solve()), a pose reaches the keyframe's position and,
 * where orientation is a goal, its orientation; the motion, which keeps position first on
 * every frame and never jumps, comes to that frame on another branch (km_ik_find_missed_keys()).
 * Errors in metres and radians.
 */
typedef struct
{
  guint  frame;
  double pos_err;       /* the motion's residuals at @frame */
  double rot_err;
  double key_pos_err;   /* the residuals of the pose that meets the keyframe */
  double key_rot_err;
} KmAnimationKeyMiss;

/*
 * KmAnimation: per-frame joint values for frames 0 .. n_frames - 1, plus optional per-frame
 * residuals (position error in m, orientation error in rad) when it was solved.
 *
 * Reference counted plain data. It is mutable (km_animation_set_frame) while one owner
 * fills it, e.g. a worker thread building a result; once it is shared (handed to the main
 * thread, stored in a project) treat it as read-only. It is not locked. One exception:
 * the editor's main thread fills in the residuals of a solved animation read from a file
 * (which has none) once a worker has measured them; no worker reads residuals of an
 * animation the document shows (saves and exports copy it on the main thread first). The
 * same goes for its missed keyframes (km_animation_set_missed_keys()): derived data, set
 * by whoever solved or measured the motion, copied with it, never saved; and for the
 * frames the solve jumped to (km_animation_set_jumped()).
 */
typedef struct _KmAnimation KmAnimation;

GType                km_animation_get_type               (void) G_GNUC_CONST;

KmAnimation         *km_animation_new                    (KmSkeleton               *skeleton,
                                                          guint                     n_frames);
KmAnimation         *km_animation_new_for_channels       (const KmAnimationChannel *channels,
                                                          guint                     n_channels,
                                                          guint                     n_frames);
KmAnimation         *km_animation_copy                   (const KmAnimation        *self);
KmAnimation         *km_animation_remap                  (const KmAnimation        *self,
                                                          KmSkeleton               *skeleton,
                                                          const int                *dof_map);
KmAnimation         *km_animation_ref                    (KmAnimation              *self);
void                 km_animation_unref                  (KmAnimation              *self);

KmSkeleton          *km_animation_get_skeleton           (const KmAnimation        *self);
guint                km_animation_get_n_frames           (const KmAnimation        *self);
guint                km_animation_get_n_dof              (const KmAnimation        *self);
guint                km_animation_get_n_channels         (const KmAnimation        *self);
const KmAnimationChannel *km_animation_get_channel       (const KmAnimation        *self,
                                                          guint                     index);
int                  km_animation_find_channel           (const KmAnimation        *self,
                                                          const char               *name);
double               km_animation_get_frame_rate         (const KmAnimation        *self);
void                 km_animation_set_frame_rate         (KmAnimation              *self,
                                                          double                    frame_rate);

const double        *km_animation_get_frame              (const KmAnimation        *self,
                                                          guint                     frame);
void                 km_animation_set_frame              (KmAnimation              *self,
                                                          guint                     frame,
                                                          const double             *values);

gboolean             km_animation_has_residuals          (const KmAnimation        *self);
gboolean             km_animation_get_residual           (const KmAnimation        *self,
                                                          guint                     frame,
                                                          double                   *pos_err,
                                                          double                   *rot_err);
void                 km_animation_set_residual           (KmAnimation              *self,
                                                          guint                     frame,
                                                          double                    pos_err,
                                                          double                    rot_err);
gboolean             km_animation_get_jumped             (const KmAnimation        *self,
                                                          guint                     frame);
void                 km_animation_set_jumped             (KmAnimation              *self,
                                                          guint                     frame,
                                                          gboolean                  jumped);
guint                km_animation_get_n_jumps            (const KmAnimation        *self);
double               km_animation_get_step               (const KmAnimation        *self,
                                                          guint                     frame,
                                                          guint                    *dof);
KmJointType          km_animation_get_dof_type           (const KmAnimation        *self,
                                                          guint                     dof);
void                 km_animation_get_stats              (const KmAnimation        *self,
                                                          KmAnimationStats         *stats);

gboolean             km_animation_get_keys_checked       (const KmAnimation        *self);
const KmAnimationKeyMiss *km_animation_get_missed_keys   (const KmAnimation        *self,
                                                          guint                    *n_missed);
const KmAnimationKeyMiss *km_animation_find_missed_key   (const KmAnimation        *self,
                                                          guint                     frame);
void                 km_animation_set_missed_keys        (KmAnimation              *self,
                                                          const KmAnimationKeyMiss *missed,
                                                          guint                     n_missed);
guint                km_animation_get_unchecked_keys     (const KmAnimation        *self);
void                 km_animation_set_unchecked_keys     (KmAnimation              *self,
                                                          guint                     n_unchecked);

gboolean             km_animation_equal                  (const KmAnimation        *a,
                                                          const KmAnimation        *b,
                                                          double                    epsilon);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KmAnimation, km_animation_unref)

G_END_DECLS
