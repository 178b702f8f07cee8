/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <gio/gio.h>

#include "km-animation.h"
#include "km-skeleton.h"
#include "km-target-track.h"

G_BEGIN_DECLS

#define KM_TYPE_DOCUMENT (km_document_get_type ())

G_DECLARE_FINAL_TYPE (KmDocument, km_document, KM, DOCUMENT, GObject)

/*
 * What the editor window shows: one body (a KmSkeleton and its pose), the IK targets of its
 * end effector, the solved animation, the current frame and the message log. Every view
 * observes it through properties and `notify`; no view talks to another. It is the app-side
 * stand-in for the core's KmProject and keeps the same vocabulary, so the views move over
 * unchanged when that arrives.
 *
 * Units: metres and radians; the pose is a flat DOF vector in the skeleton's DOF order.
 */

KmDocument        *km_document_new                (void);

gboolean           km_document_load_defaults      (KmDocument         *self,
                                                   GError            **error);
gboolean           km_document_import_file        (KmDocument         *self,
                                                   GFile              *file,
                                                   GError            **error);

KmSkeleton        *km_document_get_skeleton       (KmDocument         *self);
KmTargetTrack     *km_document_get_targets        (KmDocument         *self);
KmAnimation       *km_document_get_animation      (KmDocument         *self);
GFile             *km_document_get_file           (KmDocument         *self);
const char        *km_document_get_title          (KmDocument         *self);
gboolean           km_document_get_modified       (KmDocument         *self);
void               km_document_set_modified       (KmDocument         *self,
                                                   gboolean            modified);

const double      *km_document_get_pose           (KmDocument         *self,
                                                   guint              *n_dof);
void               km_document_set_dof_value      (KmDocument         *self,
                                                   guint               dof,
                                                   double              value);
const KmTransform *km_document_get_joint_world    (KmDocument         *self,
                                                   guint              *n_joints);
int                km_document_get_effector       (KmDocument         *self);
gboolean           km_document_get_target_pose    (KmDocument         *self,
                                                   KmTransform        *target);
const KmVec3      *km_document_get_trajectory     (KmDocument         *self,
                                                   guint              *n_points);
void               km_document_get_bounds         (KmDocument         *self,
                                                   KmVec3             *min,
                                                   KmVec3             *max);

int                km_document_get_selected_joint (KmDocument         *self);
void               km_document_set_selected_joint (KmDocument         *self,
                                                   int                 joint);

guint              km_document_get_current_frame  (KmDocument         *self);
void               km_document_set_current_frame  (KmDocument         *self,
                                                   guint               frame);
guint              km_document_get_n_frames       (KmDocument         *self);
double             km_document_get_frame_rate     (KmDocument         *self);

void               km_document_solve              (KmDocument         *self);
void               km_document_cancel_solve       (KmDocument         *self);
gboolean           km_document_get_solving        (KmDocument         *self);
double             km_document_get_solve_progress (KmDocument         *self);

GListModel        *km_document_get_messages       (KmDocument         *self);
void               km_document_log                (KmDocument         *self,
                                                   GLogLevelFlags      level,
                                                   const char         *format,
                                                   ...) G_GNUC_PRINTF (3, 4);
void               km_document_clear_messages     (KmDocument         *self);

G_END_DECLS
