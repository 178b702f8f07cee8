/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <glib.h>

#include "km-skeleton.h"

G_BEGIN_DECLS

/*
 * Edits of a skeleton's structure and joint values (DESIGN.md: "an edit builds a new one").
 *
 * Every edit is a pure function: it reads @skeleton (never changes it) and returns a new
 * skeleton, or %NULL with a KM_SKELETON_EDIT_ERROR whose message is a reason a field can
 * show ("duplicate joint name “x”", "the axis must not be zero", …). Joints are addressed by
 * their topological index in @skeleton (km_skeleton_get_joint()); in the result, indices
 * may change, so find a joint again by name (km_skeleton_find_joint()) or use the
 * @out_joint arguments. Joints keep their names, so km_skeleton_edit_map_state() carries
 * joint values over to the new skeleton.
 *
 * Units: metres and radians, as in KmJoint. "At zero" means at all joint values 0 with the
 * identity root pose; the edits that move a joint in the tree (reparent, delete, insert)
 * keep the world pose at zero of every joint that survives.
 *
 * Shapes stay with their joint through every edit. Deleting a joint drops its own shapes.
 * Duplicating copies the shapes (shared references: shapes are immutable). Mirroring
 * mirrors them: primitives get the mirrored placement (a cone flipped so its apex mirrors),
 * meshes get mirrored vertices with reversed winding, and a mesh file that was not loaded
 * (KmShape.uri) a mirrored scale.
 *
 * Link names (KmJoint.link_name) stay with their joint; a renamed joint keeps its link's
 * name. A duplicated or mirrored copy gets the link name made unique among the links
 * ("NAME_2", …), mirrored left/right like joint names (km_skeleton_edit_mirror_name()).
 */

#define KM_SKELETON_EDIT_ERROR (km_skeleton_edit_error_quark ())

typedef enum
{
  KM_SKELETON_EDIT_ERROR_UNKNOWN_JOINT,   /* index out of range */
  KM_SKELETON_EDIT_ERROR_BAD_NAME,        /* empty or too long */
  KM_SKELETON_EDIT_ERROR_DUPLICATE_NAME,
  KM_SKELETON_EDIT_ERROR_BAD_TYPE,        /* e.g. "free" for a joint that is not the root */
  KM_SKELETON_EDIT_ERROR_CYCLE,           /* a parent inside the joint's own subtree */
  KM_SKELETON_EDIT_ERROR_ROOT,            /* not possible on the root (delete, reparent) */
  KM_SKELETON_EDIT_ERROR_ZERO_AXIS,
  KM_SKELETON_EDIT_ERROR_BAD_LIMITS,      /* min > max, NaN, or no such axis */
  KM_SKELETON_EDIT_ERROR_BAD_VALUE,       /* not finite, zero quaternion */
  KM_SKELETON_EDIT_ERROR_FAILED,          /* the rebuilt skeleton was refused (message says why) */
} KmSkeletonEditError;

/* The mirror plane of km_skeleton_edit_mirror(), through the origin of the skeleton's frame
 * (the world at the identity root pose). XZ mirrors Y → −Y (left/right for a robot that
 * faces +X with Z up, Choreonoid's convention). */
typedef enum
{
  KM_MIRROR_PLANE_XZ,
  KM_MIRROR_PLANE_YZ,
  KM_MIRROR_PLANE_XY,
} KmMirrorPlane;

GQuark      km_skeleton_edit_error_quark   (void);

KmSkeleton *km_skeleton_edit_set_name      (const KmSkeleton  *skeleton,
                                            guint              joint,
                                            const char        *name,
                                            GError           **error);
KmSkeleton *km_skeleton_edit_set_type      (const KmSkeleton  *skeleton,
                                            guint              joint,
                                            KmJointType        type,
                                            GError           **error);
KmSkeleton *km_skeleton_edit_set_parent    (const KmSkeleton  *skeleton,
                                            guint              joint,
                                            guint              parent,
                                            GError           **error);
KmSkeleton *km_skeleton_edit_set_offset    (const KmSkeleton  *skeleton,
                                            guint              joint,
                                            KmVec3             offset,
                                            GError           **error);
KmSkeleton *km_skeleton_edit_set_rotation  (const KmSkeleton  *skeleton,
                                            guint              joint,
                                            KmQuat             rotation,
                                            GError           **error);
KmSkeleton *km_skeleton_edit_set_axis      (const KmSkeleton  *skeleton,
                                            guint              joint,
                                            KmVec3             axis,
                                            GError           **error);
KmSkeleton *km_skeleton_edit_set_limit     (const KmSkeleton  *skeleton,
                                            guint              joint,
                                            guint              axis_index,
                                            gboolean           limited,
                                            double             min,
                                            double             max,
                                            GError           **error);
KmSkeleton *km_skeleton_edit_set_mimic     (const KmSkeleton  *skeleton,
                                            guint              joint,
                                            int                master,
                                            double             ratio,
                                            double             offset,
                                            GError           **error);
KmSkeleton *km_skeleton_edit_add_child     (const KmSkeleton  *skeleton,
                                            guint              parent,
                                            const char        *name,
                                            KmJointType        type,
                                            KmVec3             offset,
                                            int               *out_joint,
                                            GError           **error);
KmSkeleton *km_skeleton_edit_insert_parent (const KmSkeleton  *skeleton,
                                            guint              joint,
                                            const char        *name,
                                            KmJointType        type,
                                            int               *out_joint,
                                            GError           **error);
KmSkeleton *km_skeleton_edit_delete        (const KmSkeleton  *skeleton,
                                            guint              joint,
                                            GError           **error);
KmSkeleton *km_skeleton_edit_duplicate     (const KmSkeleton  *skeleton,
                                            guint              joint,
                                            int               *out_joint,
                                            GError           **error);
KmSkeleton *km_skeleton_edit_mirror        (const KmSkeleton  *skeleton,
                                            guint              joint,
                                            KmMirrorPlane      plane,
                                            int               *out_joint,
                                            GError           **error);

char       *km_skeleton_edit_mirror_name   (const char        *name);
guint       km_skeleton_edit_map_state     (const KmSkeleton  *old_skeleton,
                                            const double      *old_q,
                                            const KmSkeleton  *new_skeleton,
                                            double            *new_q);

G_END_DECLS
