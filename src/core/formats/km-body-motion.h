/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <gio/gio.h>

#include "km-animation.h"
#include "km-error.h"
#include "km-format.h"
#include "km-math.h"
#include "km-skeleton.h"

G_BEGIN_DECLS

/*
 * Choreonoid's body motion (`.seq`, sometimes `.yaml`; format CHOREONOID-BODY-MOTION-YAML,
 * BodyMotionItem): joint values and link poses sampled at a constant frame rate, as a
 * PoseSeqItem's generated motion, a simulation's result or a recorded motion.
 *
 *   type: CompositeSeq              (Choreonoid 1.x: BodyMotion)
 *   content: BodyMotion             (1.x: none, or purpose: BodyMotion)
 *   formatVersion: 2.0              (1.0, 2.0; older files have none)
 *   frameRate: 100                  (frames per second, > 0)
 *   numFrames: 1331
 *   components:
 *     - type: MultiValueSeq
 *       content: JointDisplacement  (1.x: JointPosition; also under `purpose`)
 *       frameRate: 100              (optional; must be the motion's)
 *       numFrames: 1331             (the length of `frames`)
 *       numParts: 29                (values per frame, one per Choreonoid joint id)
 *       frames: [ [ q0, q1, … ], … ]  (rad for revolute joints, m for prismatic)
 *     - type: MultiSE3Seq           (1.x: MultiAffine3Seq)
 *       content: LinkPosition
 *       numParts: 1                 (links; part 0 is the root link)
 *       format: XYZQWXYZ            (x, y, z in m, then the quaternion w, x, y, z), or
 *                                   XYZRPY (x, y, z, then roll, pitch, yaw in rad)
 *       frames: [ [ [ x, y, z, … ], … ], … ]  (per frame, one list per part, world)
 *     - type: Vector3Seq …          (ZMPSeq and any other component: kept verbatim)
 *
 * A bare top-level `type: MultiValueSeq` (older Choreonoid's joint-only motions) is a
 * motion with joint values only. Errors are KM_PARSE_ERROR "FILE:LINE:COLUMN: what was
 * expected" at the offending value; sizes are bounded (KM_BODY_MOTION_MAX_*, and the YAML
 * reader's node limit).
 *
 * KmBodyMotion is immutable, reference-counted plain data.
 */

#define KM_TYPE_BODY_MOTION (km_body_motion_get_type ())

/* The `format` value of BodyMotionItem's file reference. */
#define KM_BODY_MOTION_FORMAT "CHOREONOID-BODY-MOTION-YAML"

#define KM_BODY_MOTION_MAX_FRAMES 1000001   /* as KM_ANIMATION_MAX_FRAMES */
#define KM_BODY_MOTION_MAX_PARTS  10000     /* joints or links per frame */
/* The least frame rate read or written, a frame every 1000 s: a positive rate as small as
 * 1e-320 (denormal) made a motion's duration, frames / rate, infinite or absurd (1e300 s)
 * and its frame times meaningless, and no motion is sampled that slowly. At this rate the
 * longest motion (KM_BODY_MOTION_MAX_FRAMES) lasts about 32 years: finite, its frame
 * times exact to well under a microsecond. */
#define KM_BODY_MOTION_MIN_RATE   1e-3      /* frames per second */
#define KM_BODY_MOTION_MAX_RATE   1e6       /* frames per second */

typedef struct _KmBodyMotion KmBodyMotion;

GType               km_body_motion_get_type         (void) G_GNUC_CONST;

/* 0 … 100: does @data look like a body motion (`type: CompositeSeq` with
 * `content: BodyMotion`, `type: BodyMotion`, or a joint `MultiValueSeq`)? */
int                 km_body_motion_sniff            (const char          *data,
                                                     gsize                length);
KmBodyMotion       *km_body_motion_load             (const char          *path,
                                                     GBytes              *contents,
                                                     GError             **error);
KmBodyMotion       *km_body_motion_load_file        (const char          *path,
                                                     GError             **error);
KmBodyMotion       *km_body_motion_ref              (KmBodyMotion        *self);
void                km_body_motion_unref            (KmBodyMotion        *self);

/* `formatVersion`, 0 when the file has none. */
double              km_body_motion_get_format_version (const KmBodyMotion *self);
double              km_body_motion_get_frame_rate   (const KmBodyMotion  *self);
guint               km_body_motion_get_n_frames     (const KmBodyMotion  *self);
/* (n_frames - 1) / frame_rate, in s; 0 for fewer than two frames. */
double              km_body_motion_get_duration     (const KmBodyMotion  *self);
/* Values per frame of the joint component (0 without one). */
guint               km_body_motion_get_n_joints     (const KmBodyMotion  *self);
/* The joint values of @frame, in joint-id order (rad, m); NULL without joints. */
const double       *km_body_motion_get_joint_frame  (const KmBodyMotion  *self,
                                                     guint                frame);
/* Links of the link-position component (0 without one). */
guint               km_body_motion_get_n_links      (const KmBodyMotion  *self);
/* The world pose of link @link (0: the root link) at @frame; FALSE out of range. */
gboolean            km_body_motion_get_link_pose    (const KmBodyMotion  *self,
                                                     guint                frame,
                                                     guint                link,
                                                     KmTransform         *pose);
/* The joint values at @time (s), linearly interpolated between the two nearest frames
 * (clamped to the first and last frame). @q: n_joints values. FALSE without joints. */
gboolean            km_body_motion_sample_joints    (const KmBodyMotion  *self,
                                                     double               time,
                                                     double              *q);
/* The world pose of link @link at @time: position linear, rotation slerped between the
 * two nearest frames (clamped). FALSE without that link. */
gboolean            km_body_motion_sample_link      (const KmBodyMotion  *self,
                                                     double               time,
                                                     guint                link,
                                                     KmTransform         *pose);
/* `kinema-cli info`: one line per component, then
 * "frames=N frame_rate=R duration=S joints=J links=L components=C". */
void                km_body_motion_describe         (const KmBodyMotion  *self,
                                                     GString             *out);
/* The file again: the header and every component in their order and with their keys,
 * the joint and link frames written from the values read (links in the format they were
 * read in), every other component verbatim. */
char               *km_body_motion_to_string        (const KmBodyMotion  *self,
                                                     gsize               *length);

/*
 * Building a body motion from an animation Kinema solved, for Choreonoid to play
 * (km_body_motion_new_from_animation): the result is a version 2.0 CompositeSeq with two
 * components, `JointDisplacement` (one value per Choreonoid joint id, rad or m) and
 * `LinkPosition` (the root link only, XYZQWXYZ, world coordinates), at the frame rate
 * given, one frame per animation frame.
 *
 * Which joint id carries which DOF is the numbering that km_body_to_string() (km-body-
 * writer.c, `kinema-cli convert --to CHOREONOID-BODY`) gives the model, so that the motion
 * plays on the .body Choreonoid has for it:
 * - a joint keeps its own id (KmJoint.joint_id); an id an earlier joint already has, or
 *   one above KM_SKELETON_MAX_JOINTS, counts as none;
 * - joints with DOF and no id (a skeleton.json model, a joint added in the editor) get
 *   the next ids after the largest one, in link order, so a model without ids is written
 *   in DOF order (as a project's `joint_displacements` are);
 * - a spherical joint, which Choreonoid does not have, is the three revolute joints about
 *   X, Y and Z that the .body writer makes of it: its euler XYZ angles (rad) are three
 *   joint values, under its own id (if any) and two new ones. Played on the model as
 *   Kinema loaded it (a .body file has no spherical joint), they are the same motion;
 * - a linked (mimic) follower is written with the value it follows at (the .body writer
 *   writes followers as independent joints); ids without a joint of DOF (gaps, a fixed
 *   joint with an id) hold 0.
 * The root link's pose is @root_pose (the body's place in the world, NULL: identity) times
 * the first joint's transform, as a BodyMotionItem reads it back; a spherical root
 * contributes only its X rotation (the other two are joint values of the links below it).
 */
KmBodyMotion       *km_body_motion_new_from_animation (const KmSkeleton  *skeleton,
                                                     const KmAnimation   *animation,
                                                     double               frame_rate,
                                                     const KmTransform   *root_pose,
                                                     GError             **error);
/*
 * Whether Kinema could read back (km_body_motion_load_file()) the body motion that
 * km_body_motion_new_from_animation() makes of @n_frames frames for @skeleton at
 * @frame_rate: at most KM_BODY_MOTION_MAX_FRAMES frames, KM_FORMAT_MAX_FILE_SIZE bytes
 * and KM_YAML_DEFAULT_MAX_VALUES numbers and lists in its frames, counted as the reader
 * counts them (per frame: its list of joint values and each value, its list of links, the
 * root link's list and its 7 numbers). The size counts every number at its shortest, so
 * only what certainly cannot be read is refused, before anything is solved (`kinema-cli
 * solve -o X.seq`); km_body_motion_save() checks the motion and its text themselves.
 * Else @error, KM_PARSE_ERROR_LIMIT for the caller to locate: "a body motion of N frames
 * for this model would be larger than Kinema reads back (…)", or the one of
 * km_body_motion_new_from_animation() for a model with too many joint values.
 */
gboolean            km_body_motion_check_size       (KmSkeleton          *skeleton,
                                                     double               frame_rate,
                                                     guint64              n_frames,
                                                     GError             **error);
/* km_body_motion_to_string() written to @path atomically, as it is made (never whole in
 * memory: km_format_save_stream()). A motion Kinema could not read back (more frames,
 * bytes, or numbers and lists than km_body_motion_check_size() allows) is refused, the
 * file left as it was and nothing written to standard output, a pipe or a device (whose
 * text is made twice: measured, then written): the error, located at @path, as
 * km_body_motion_check_size() says it. */
gboolean            km_body_motion_save             (const KmBodyMotion  *self,
                                                     const char          *path,
                                                     GError             **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KmBodyMotion, km_body_motion_unref)

/* The registry's row (km-format.h): KM_FILE_KIND_BODY_MOTION, name KM_BODY_MOTION_FORMAT. */
extern const KmFormat km_format_body_motion;

G_END_DECLS
