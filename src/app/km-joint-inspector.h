/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <gtk/gtk.h>

#include "km-document.h"

G_BEGIN_DECLS

#define KM_TYPE_JOINT_INSPECTOR (km_joint_inspector_get_type ())

G_DECLARE_FINAL_TYPE (KmJointInspector, km_joint_inspector, KM, JOINT_INSPECTOR, GtkWidget)

GtkWidget    *km_joint_inspector_new          (void);
KmDocument   *km_joint_inspector_get_document (KmJointInspector *self);
void          km_joint_inspector_set_document (KmJointInspector *self,
                                               KmDocument       *document);
GActionGroup *km_joint_inspector_get_actions  (KmJointInspector *self);
void          km_joint_inspector_save_project_with_body (KmJointInspector *self,
                                                         GFile            *file);
const char   *km_joint_inspector_get_length_unit (KmJointInspector *self);
int           km_joint_inspector_get_split_height (KmJointInspector *self);
void          km_joint_inspector_set_split_height (KmJointInspector *self,
                                                   int               height);
void          km_joint_inspector_set_length_unit (KmJointInspector *self,
                                                  const char       *length_unit);

G_END_DECLS
