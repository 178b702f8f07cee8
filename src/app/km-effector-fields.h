/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <gtk/gtk.h>

#include "km-document.h"
#include "km-ik.h"
#include "km-math.h"

G_BEGIN_DECLS

#define KM_TYPE_EFFECTOR_FIELDS (km_effector_fields_get_type ())

G_DECLARE_FINAL_TYPE (KmEffectorFields, km_effector_fields, KM, EFFECTOR_FIELDS, GtkWidget)

GtkWidget  *km_effector_fields_new             (void);
KmDocument *km_effector_fields_get_document    (KmEffectorFields *self);
void        km_effector_fields_set_document    (KmEffectorFields *self,
                                                KmDocument       *document);
const char *km_effector_fields_get_length_unit (KmEffectorFields *self);
void        km_effector_fields_set_length_unit (KmEffectorFields *self,
                                                const char       *length_unit);
gboolean    km_effector_fields_get_busy        (KmEffectorFields *self);
char       *km_effector_fields_describe_miss   (const KmIkSolution *solution,
                                                gboolean            orientation);

/* Roll, pitch and yaw (radians) of a rotation, R = Rz(yaw) · Ry(pitch) · Rx(roll), and back. */
KmVec3      km_effector_fields_rpy_from_mat3   (const KmMat3     *rot);
void        km_effector_fields_mat3_from_rpy   (KmVec3            rpy,
                                                KmMat3           *rot);

G_END_DECLS
