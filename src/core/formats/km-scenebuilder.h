/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <glib.h>

#include "km-error.h"
#include "km-format.h"
#include "km-skeleton.h"

G_BEGIN_DECLS

/*
 * Scenebuilder XML (specs/scenebuilder.md) → KmSkeleton.
 *
 * The whole scene is built first as Scenebuilder builds it (attr contexts, sticky default
 * units, names and de-duplication, paths with the parent as base, module/import by path
 * and by file, for/var, link), then mapped to a kinematic tree (section 8):
 *
 * - Every body is a link. Joints (hinge, slider, balljoint, fixjoint, universaljoint) join
 *   the sock body (parent) to the plug body (child); the tree is grown breadth-first from
 *   the root of each connected group (auto_tree bodies, else bodies that are never a plug,
 *   preferring dynamical="false", then document order). A body's parent joint is the first
 *   joint in document order that plugs it; a body reached twice or a joint closing a cycle
 *   is left out as a loop closure; a joint met from its plug side is inverted (q negated);
 *   freejoint between bodies is dropped. Each case is a warning.
 * - Skeleton joints are named after the Scenebuilder joint element (the root after its
 *   body): the bare name when it is unique, else the path below the document element
 *   ("wheel_fl/axle"). A joint's frame has the orientation of its child body and its
 *   origin at the plug connector, so a hinge's axis is the plug connector's z axis in the
 *   body (equal to the sock's z in the parent at q = 0) and the body frame is the joint
 *   frame shifted by the plug position (body_offset). A balljoint keeps the sock
 *   connector's frame (its euler XYZ angles are about the sock's axes).
 * - One root body: it is the skeleton's root joint, fixed at its world pose when
 *   dynamical="false" (or stationary), a free root otherwise. Several: a fixed root named
 *   after the document element holds each root body as a fixed joint at its world pose
 *   (a floating one with a warning).
 * - Gears become mimic (linked) joints of the skeleton (KmJoint.mimic; section 6.2: a
 *   velocity gear takes its offset from the initial positions) and are listed in
 *   KmScenebuilderModel.gears; a gear whose down joint is already driven, or that would
 *   chain with another gear, is left out with a warning. The initial configuration is made
 *   to satisfy the couplings.
 * - ik elements become IK targets (KmScenebuilderModel.ik_targets); through the registry
 *   (km_format_load_model_file) each is a KmTargetTrack in KmModelExtras: its effector
 *   joint, the end connector as its effector offset (position-only unless enable_rot)
 *   and one keyframe at frame 0 (KmScenebuilderIk.effector_target).
 * - Display shapes: box, sphere, cylinder and capsule attached by <attach> become
 *   KmShapes of the body's joint (colour from the vmat); meshes are left out with a
 *   warning.
 *
 * Physics-only elements (pmat, gravity, contact_group, light, camera, sensors, motors,
 * spring, mates, ikjoint/iksync/ikcom) and unknown elements (DiMP planner settings) are
 * skipped with one warning per element name, through km_parse_warning; an attribute
 * Scenebuilder does not know is noted once per element name and attribute.
 *
 * Only XML syntax errors (in the file or a file it imports), an unreadable or too large
 * file, an unknown document element, a scene without any <body> and the resource limits
 * below fail the load (specs/scenebuilder.md 1.7). Everything else is a warning
 * "FILE:LINE:COLUMN: …" at the offending value, once per place in the file, and the load
 * goes on: an invalid value keeps the attribute's default (an inherited <attr> value
 * invalid for one element type says so); a path that names nothing, or a reference to the
 * wrong kind of element, leaves out the joint, gear, IK target or attach that needs it (an
 * attach's vmat: the default colour); a gear type other than pos or vel leaves the gear
 * out; an import whose module or file is missing, that imports itself, or that has both
 * or neither of path and filename imports nothing. str32 values (gear type, colorname,
 * unit_*) are cut to 31 bytes, names, paths and file names to 255, at a character
 * boundary, with a warning. An <import>'s path, filename and name come from an <attr> like
 * any other attribute; its own path or filename wins over an inherited other one. A UTF-8
 * byte-order mark is ignored (it does not count as a column); CRLF line ends are fine.
 *
 * What the skeleton cannot hold is repaired the same way, never a failed load: a trn or
 * slider pos beyond ±KM_SCENEBUILDER_MAX_LENGTH metres is an invalid value (the default
 * stays), so that no pose composed from them overflows; a gear that would put its joint
 * out of that range or at a non-finite position is left out. A skeleton joint whose name
 * (its path, above) would be longer than KM_SKELETON_MAX_NAME bytes is named after the
 * last levels of the path that fit, and a name that another skeleton joint already has
 * (names with '/', a universal joint's "_y"/"_x" halves) gets the first free number, as
 * Scenebuilder renames siblings ("j1"); each with a warning at the element. If the
 * skeleton builder still refuses the tree, the error names the element of the refused
 * joint.
 *
 * Values are read as Scenebuilder reads them, with warnings where that is probably not
 * what was meant: a unit inside parentheses while the default unit of the value's
 * dimension is not SI ("(10mm)" with mm as the default is 10 µm; once per value, at the
 * real expression holding it), a default unit that leaked from an earlier scope (once per
 * unit, at the first value converted with it), and a jointed body whose own trn or rot
 * disagrees with forward kinematics at q = pos by more than 1e-6 m or rad (once per load,
 * at the first such body, naming it and by how much; only what the body states is
 * compared). An <attach> whose shape is not a shape is skipped, one whose vmat is not a
 * <vmat> keeps the default colour, each with a warning.
 */

#define KM_SCENEBUILDER_MAX_SIZE     ((gsize) 64 * 1024 * 1024)
#define KM_SCENEBUILDER_MAX_DEPTH    64
#define KM_SCENEBUILDER_MAX_OBJECTS  100000
#define KM_SCENEBUILDER_MAX_IMPORTS  16
/* The largest length (metres) a trn or a slider position may have, and the largest slider
 * position a gear may give: far beyond any real scene, and small enough that no
 * composition of them (at most 64 levels per file × 17 files of nested frames, at most
 * 100 000 joints) overflows, not even squared by the IK solver. */
#define KM_SCENEBUILDER_MAX_LENGTH   1e100

typedef struct
{
  char    *name;          /* the gear element's name */
  int      up;            /* skeleton joint indices */
  int      down;
  gboolean position;      /* type="pos"; otherwise a velocity coupling */
  double   ratio;         /* down = ratio · up + offset, in the skeleton's q (SI) */
  double   offset;        /* for velocity gears: taken from the initial positions */
} KmScenebuilderGear;

typedef struct
{
  char        *name;
  int          effector;        /* skeleton joint index */
  KmTransform  effector_offset; /* the end connector in that joint's frame */
  KmTransform  target;          /* world frame, at the initial configuration */
  int          base;            /* skeleton joint index: ref's body's joint, which the
                                 * chain stops below (5.14), or -1 (the root) */
  gboolean     enable_position;
  gboolean     enable_orientation;
  /* What a KmTargetTrack keyframe holds, for the point effector_offset.pos of the effector
   * joint's frame (the track's effector offset): the end connector's target position, and
   * the joint frame's orientation when the connector has the target's (enabled
   * orientation: target.rot · effector_offset.rot⁻¹), else the joint's orientation at the
   * initial configuration (a position-only track: not a target). */
  KmTransform  effector_target;
  char        *file;            /* where the ik element is (messages about it) */
  KmSourcePos  pos;
} KmScenebuilderIk;

typedef struct
{
  KmSkeleton  *skeleton;
  double      *initial_q;       /* n_dof values: pos of every joint */
  /* Per skeleton joint (topological order): */
  char       **body_paths;      /* the body's path below the document element, NULL-terminated */
  KmTransform *body_offsets;    /* the body frame in the joint frame */
  KmLimit     *velocity_limits; /* vrange (1-DOF joints), unlimited otherwise */
  double      *effort_limits;   /* flim, INFINITY when none */
  GPtrArray   *gears;           /* KmScenebuilderGear: those that became mimic joints */
  GPtrArray   *ik_targets;      /* KmScenebuilderIk */
} KmScenebuilderModel;

KmScenebuilderModel *km_scenebuilder_load       (const char           *path,
                                                 const char           *data,
                                                 gsize                 length,
                                                 GError              **error);
void                 km_scenebuilder_model_free (KmScenebuilderModel  *model);
int                  km_scenebuilder_sniff      (const char           *data,
                                                 gsize                 length);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KmScenebuilderModel, km_scenebuilder_model_free)

extern const KmFormat km_format_scenebuilder;

G_END_DECLS
