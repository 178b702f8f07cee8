/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <glib.h>

#include "km-format.h"
#include "km-skeleton.h"

G_BEGIN_DECLS

/*
 * URDF (ROS Unified Robot Description Format) → KmSkeleton.
 *
 * Naming: the root link becomes the root joint (named after the link, type fixed); every
 * URDF <joint> becomes one KmJoint named after the joint (the names users know from ROS
 * tools, IK setups and recorded motions), carrying its child link's visuals. So
 * km_skeleton_find_joint (skel, "shoulder_pan_joint") works, and a link's frame is the
 * frame of the joint that ends in it.
 *
 * Joint types: revolute and prismatic with <limit lower upper> (radians / metres; a missing
 * <limit> leaves the joint unlimited, with a warning); continuous is an unlimited revolute
 * joint; fixed is fixed. floating and planar have no KmJoint counterpart: when the parent
 * is the root link, the root becomes a free joint (its pose is the state's root pose; a
 * planar joint's freedom is widened to a free root) and the joint itself fixed; deeper in
 * the tree the joint is fixed at its origin. Each case is reported through
 * km_parse_warning. An unknown type is an error.
 *
 * <mimic joint multiplier offset> (defaults 1 and 0) makes the joint a linked joint of the
 * skeleton (KmJoint.mimic): q = multiplier · q[joint] + offset. A mimic of a mimic follows
 * the last master with the combined multiplier and offset (a warning); a cycle, an unknown
 * joint or a second <mimic> is an error; a mimic on or of a fixed, floating or planar joint
 * is ignored with a warning.
 *
 * Geometry: <origin xyz rpy> (rpy are extrinsic X, Y, Z rotations: R = Rz(yaw)·Ry(pitch)·
 * Rx(roll)), <axis xyz> (default 1 0 0). Visual <box>, <sphere>, <cylinder> (URDF
 * cylinders run along Z: the shape is turned so that Kinema's +Y cylinder lies on Z) and
 * <mesh filename scale> (STL, OBJ, VRML through km-mesh-loader; COLLADA is not read).
 * Mesh file names: "package://PKG/PATH" is looked up as PKG/PATH under each package
 * path, then in the directories above the URDF file that are called PKG; "file://" URIs
 * and relative paths are taken relative to the URDF file. A mesh that cannot be found or
 * read is a warning and the model loads without it. Materials: <color rgba> inline or by
 * name from a robot-level <material>. Collision and inertial elements, transmissions and
 * gazebo extensions are not read.
 *
 * The XML is read with GMarkup after stripping a UTF-8 byte-order mark; entities other
 * than XML's five and character references are refused by GMarkup itself, nesting is
 * bounded, and every error is "FILE:LINE:COLUMN: …" at the offending value.
 */

#define KM_URDF_MAX_SIZE  ((gsize) 64 * 1024 * 1024)
#define KM_URDF_MAX_DEPTH 64

typedef struct
{
  /* NULL-terminated directories to look up package:// URIs in, or NULL. The registry's
   * loader uses $KINEMA_PACKAGE_PATH and then $ROS_PACKAGE_PATH (colon-separated). */
  const char * const *package_paths;
  /* FALSE skips mesh files altogether (a mesh is then a warning-free omission). */
  gboolean            load_meshes;
} KmUrdfOptions;

KmSkeleton   *km_urdf_load    (const char           *path,
                               const char           *data,
                               gsize                 length,
                               const KmUrdfOptions  *options,
                               GError              **error);
int           km_urdf_sniff   (const char           *data,
                               gsize                 length);

extern const KmFormat km_format_urdf;

G_END_DECLS
