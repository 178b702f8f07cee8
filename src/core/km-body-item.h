/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include "km-item.h"
#include "km-body-handler.h"
#include "km-skeleton.h"

G_BEGIN_DECLS

/*
 * A body in the world (`Body/BodyItem`): a model file loaded through the loader registry,
 * plus its state. Data keys (DESIGN.md, "Body item keys"): `file`, `format`,
 * `current_base_link`, `root_translation` (older `rootPosition`), `root_rotation`
 * (axis-angle [x, y, z, angle_deg]; older `rootAttitude`, a row-major 3×3),
 * `joint_displacements` (degrees for rotations; prismatic in metres from `schema: 2`, in
 * "degrees" under schema 1; older `jointPositions` in radians and metres) and `fix_root`;
 * Kinema's own `kinema_pose_unkeyed` (km_body_item_get_pose_unkeyed) and
 * `kinema_selected_joint` (km_body_item_get_selected_joint), which Choreonoid ignores.
 * Joint values are in joint-id order for models with joint ids (joints without one after
 * them), DOF order otherwise.
 *
 * A body whose file is missing or whose format has no reader keeps its data, reports
 * the reason as its problem, and is written back unchanged.
 */

#define KM_TYPE_BODY_ITEM (km_body_item_get_type ())
#define KM_BODY_ITEM_SCHEMA 2

G_DECLARE_FINAL_TYPE (KmBodyItem, km_body_item, KM, BODY_ITEM, KmItem)

KmItem        *km_body_item_new                   (void);
/* The `file` value as written (with its variable or relative), and the format name. */
const char    *km_body_item_get_file              (KmBodyItem        *self);
const char    *km_body_item_get_format            (KmBodyItem        *self);
const char    *km_body_item_model_file_format     (const char        *format,
                                                   const char        *path);
void           km_body_item_set_model             (KmBodyItem        *self,
                                                   const char        *file,
                                                   const char        *format,
                                                   KmSkeleton        *skeleton);
KmSkeleton    *km_body_item_get_skeleton          (KmBodyItem        *self);
/* The text the model was read from (KmModelExtras.text), in the format named @format,
 * kept for a save that finds the model file gone; NULL when none is. */
void           km_body_item_set_model_text        (KmBodyItem        *self,
                                                   const char        *format,
                                                   GBytes            *text);
GBytes        *km_body_item_get_model_text        (KmBodyItem        *self,
                                                   const char       **format);
/* The checksum of the bytes the model was read from (KmModelExtras.checksum), kept with
 * the body for the check a save makes before writing its file back; NULL when none is. */
void           km_body_item_set_model_checksum    (KmBodyItem        *self,
                                                   const char        *checksum);
const char    *km_body_item_get_model_checksum    (KmBodyItem        *self);
void           km_body_item_set_model_pose        (KmBodyItem        *self,
                                                   KmSkeleton        *skeleton,
                                                   const double      *q);
double        *km_body_item_dup_model_pose        (KmBodyItem        *self,
                                                   const KmSkeleton  *skeleton);
KmBodyHandlerSet *km_body_item_get_body_handlers   (KmBodyItem        *self);
/* DOF values in radians and metres (km_skeleton_get_n_dof of the skeleton). */
const double  *km_body_item_get_joint_state       (KmBodyItem        *self,
                                                   guint             *n_dof);
void           km_body_item_set_joint_state       (KmBodyItem        *self,
                                                   const double      *q,
                                                   guint              n_dof);
void           km_body_item_get_root_pose         (KmBodyItem        *self,
                                                   KmTransform       *pose);
void           km_body_item_set_root_pose         (KmBodyItem        *self,
                                                   const KmTransform *pose);
gboolean       km_body_item_get_pose_unkeyed      (KmBodyItem        *self);
void           km_body_item_set_pose_unkeyed      (KmBodyItem        *self,
                                                   gboolean           unkeyed);
const char    *km_body_item_get_selected_joint    (KmBodyItem        *self);
void           km_body_item_set_selected_joint    (KmBodyItem        *self,
                                                   const char        *name);
gboolean       km_body_item_get_fix_root          (KmBodyItem        *self);
void           km_body_item_set_fix_root          (KmBodyItem        *self,
                                                   gboolean           fix_root);
const char    *km_body_item_get_current_base_link (KmBodyItem        *self);
void           km_body_item_set_current_base_link (KmBodyItem        *self,
                                                   const char        *link);
/* The `joint_displacements` values as read (the file's units), for a body whose model
 * could not be loaded. */
const double  *km_body_item_get_raw_displacements (KmBodyItem       *self,
                                                   guint             *n);

G_END_DECLS
