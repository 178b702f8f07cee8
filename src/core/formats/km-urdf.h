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
 * Joint types: revolute and prismatic with <limit lower upper> (radians / metres; lower and
 * upper default to 0; effort and velocity are not read, so a <limit> without them is
 * taken; a missing <limit>, which urdfdom refuses, leaves the joint unlimited with a
 * warning, and so does lower > upper, which urdfdom takes as it is); continuous is an
 * unlimited revolute joint (its <limit> is not used); fixed is fixed. floating and planar
 * have no KmJoint counterpart: when the parent is the root link, the root becomes a free
 * joint (its pose is the state's root pose; a planar joint's freedom is widened to a free
 * root) and the joint itself fixed; deeper in the tree the joint is fixed at its origin.
 * Each case is reported through km_parse_warning. An unknown type is an error.
 *
 * <mimic joint multiplier offset> (defaults 1 and 0) makes the joint a linked joint of the
 * skeleton (KmJoint.mimic): q = multiplier · q[joint] + offset. A mimic of a mimic follows
 * the last master with the combined multiplier and offset (a warning). urdfdom does not
 * check mimic names: a mimic of an unknown joint, and the mimics of a cycle, are ignored
 * with a warning (those joints move on their own); so is a mimic on or of a fixed,
 * floating or planar joint.
 *
 * Geometry: <origin xyz rpy> (rpy are extrinsic X, Y, Z rotations: R = Rz(yaw)·Ry(pitch)·
 * Rx(roll)) or, as in urdfdom 4, <origin xyz quat_xyzw> (normalised; both rpy and
 * quat_xyzw is an error); a missing xyz or orientation is zero. <axis xyz> (default 1 0 0,
 * normalised) is read for revolute, continuous and prismatic joints only (urdfdom skips it
 * for fixed and floating ones; a planar joint's normal is not used). Numbers are decimal with optional sign and exponent ("+1", "1e-3", ".5"),
 * separated by any white space; hexadecimal, commas, inf and nan are errors. Visual <box>,
 * <sphere>, <cylinder> (URDF cylinders run along Z: the shape is turned so that Kinema's
 * +Y cylinder lies on Z) and <mesh filename scale> (STL, OBJ, VRML through km-mesh-loader;
 * COLLADA is not read); the first shape of a <geometry> is used. Mesh file names:
 * "package://PKG/PATH" is looked up as PKG/PATH under each package path, then in the
 * directories above the URDF file that are called PKG; "file://" URIs and relative paths
 * are taken relative to the URDF file. A mesh that cannot be found or read is a warning
 * and the model loads without it. Materials follow urdfdom's assignMaterial: a visual's
 * <material name> that names a robot-level <material> (defined anywhere in the file) or
 * one defined with a colour in an earlier link's visual takes that colour, even over the
 * visual's own <color>; an unknown name with a <color rgba> defines it for later links;
 * a material without a name, or a second robot-level one of the same name (urdfdom
 * refuses that), is ignored with a warning. Collision and inertial elements,
 * transmissions, gazebo, ros2_control and leftover xacro elements are not read.
 *
 * As in urdfdom, a joint's first <origin>, <axis>, <limit>, <parent>, <child> and <mimic>
 * and a visual's first <origin>, <material> and <color> are read; later ones are ignored
 * (with a warning for joints). A value inside a <visual> or <material> that cannot be read
 * (a bad number, a size not above zero, an rgba outside 0…1) is a warning at the value and
 * the visual, or the colour, is left out: urdfdom loads such files too. A bad value in a
 * joint is an error. The version attribute of <robot> is read as 1.0 (1.0 and 1.1
 * silently, anything else with a warning; urdfdom 3 refuses versions other than 1.0).
 * Links and joints have separate names in URDF: when a joint has the root link's name,
 * the root joint is called ROOT_root (a warning).
 *
 * Stricter than urdfdom, on purpose: a revolute, continuous or prismatic joint whose axis
 * is zero or missing its xyz (urdfdom keeps a zero axis, and KDL then divides by its
 * length); a link that is the child of two joints (urdfdom lets the later joint win, which
 * is not a tree); links or joints forming a cycle; a <link> without a name.
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
  /* FALSE does not read mesh files: each mesh is kept as its reference (KmShape.uri),
   * without warnings, and draws nothing. */
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
