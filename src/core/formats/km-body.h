/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <glib.h>

#include "km-format.h"
#include "km-skeleton.h"

G_BEGIN_DECLS

/*
 * Choreonoid body files (`.body`, YAML; ../shared/specs/choreonoid-body.md) → KmSkeleton.
 *
 * Each link becomes one KmJoint named after the link (the names .body users and their IK
 * setups know); `root_link` (default: the first link) is the root. Read: `format`
 * (ChoreonoidBody; wrapper files with `model_file` are refused), `format_version` (< 2.1),
 * `angle_unit` (degree by default), `name`, `links` with `parent`, `translation` (a list
 * of vectors is summed), `rotation` (axis-angle in the angle unit, or a list of them
 * multiplied left to right), `joint_type` (revolute, prismatic/slide, fixed, free;
 * pseudo_continuous_track and the 1.x name crawler are a track surface, read as fixed
 * with a warning),
 * `joint_axis` (vector or X, -Y, … in any case; Z when absent), `joint_id` (-1: none),
 * `joint_range` ([lower, upper] or ±u; revolute ranges in the angle unit, prismatic ones
 * in metres; an `unlimited` or ±.inf end leaves that side open: [unlimited, 0.5] is
 * limited on one side only, both ends unlimited is no limit), `joint_displacement` (the
 * joint's initial value, in the angle unit or metres like the range; the old `joint_angle`
 * always in the angle unit; km_body_load_with_pose() and the format's load_model give
 * the pose they state; a value that is not a number, or on a link without a revolute or
 * prismatic joint, is ignored with a warning, one outside the range is kept with a
 * warning), `import` (merged into the link), `body_handlers`, and Kinema's own
 * `kinema_mimic: { joint: LEADER, multiplier: M, offset: O }` (a linked joint, KmJoint.mimic:
 * LEADER a joint name, M 1 by default, O 0 by default in the angle unit or metres like
 * `joint_displacement`; Choreonoid ignores it).
 * Link nodes of `type: SubBody` read the links of another body file (`uri` relative to
 * the including file; `prefix`, `suffix`, `joint_id_offset`; the SubBody's `parent`,
 * `translation`, `joint_type`, … replace those of the sub-body's root link; nested
 * sub-bodies are read, a file that includes itself is an error). A `type:
 * ContinuousTrack` node is read as one fixed link with a warning (Choreonoid expands it
 * into track-shoe links). Velocity ranges, mass,
 * centre of mass and inertia are checked for shape but not kept (KmSkeleton has no
 * dynamics). Both snake_case and camelCase spellings are accepted.
 *
 * Display shapes from `elements`: Transform, Group, Shape, Visual, RigidBody, Resource
 * (`uri` relative to the body file, `${SHARE}` from KINEMA_CHOREONOID_SHARE and ${HOME};
 * `node` selects a DEF node of a VRML file; `metadata` length_unit millimeter/inch and
 * upper_axis Y), with Box, Sphere, Cylinder, Cone, Capsule (along +Y),
 * IndexedFaceSet/TriangleMesh, Extrusion (orientation angles in the angle unit),
 * ElevationGrid (snake_case or camelCase keys) and Resource geometry, and the diffuse
 * colour and transparency of `appearance.material` (a mesh resource keeps its own colours
 * unless the material gives one). Collision content is not drawn. Devices
 * (sensors, cameras, lights, …) are not modelled: one warning per device type, but the
 * shapes under them are drawn. An unknown node type, a bad geometry value or a mesh
 * file that cannot be read skips that element with a warning; the model still loads.
 * `extra_joints` (closed loops) are reported and left out. Warnings go to
 * km_parse_warning; errors are "FILE:LINE:COLUMN: …" at the offending value.
 */

typedef struct
{
  /* FALSE does not read mesh files: each Resource is kept as its uri (KmShape.uri),
   * without warnings, and draws nothing. */
  gboolean load_meshes;
} KmBodyOptions;

KmSkeleton   *km_body_load    (const char           *path,
                               const char           *data,
                               gsize                 length,
                               const KmBodyOptions  *options,
                               GError              **error);
KmSkeleton   *km_body_load_with_pose (const char           *path,
                                      const char           *data,
                                      gsize                 length,
                                      const KmBodyOptions  *options,
                                      double              **initial_q,
                                      GError              **error);
int           km_body_sniff   (const char           *data,
                               gsize                 length);

extern const KmFormat km_format_choreonoid_body;

G_END_DECLS
