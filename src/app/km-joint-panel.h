/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <gtk/gtk.h>

#include "km-document.h"

G_BEGIN_DECLS

#define KM_TYPE_JOINT_PANEL (km_joint_panel_get_type ())

G_DECLARE_FINAL_TYPE (KmJointPanel, km_joint_panel, KM, JOINT_PANEL, GtkWidget)

GtkWidget     *km_joint_panel_new            (void);
KmDocument    *km_joint_panel_get_document   (KmJointPanel *self);
void           km_joint_panel_set_document   (KmJointPanel *self,
                                              KmDocument   *document);
guint          km_joint_panel_get_n_rows     (KmJointPanel *self);
GtkAdjustment *km_joint_panel_get_adjustment (KmJointPanel *self,
                                              guint         dof);
const char    *km_joint_panel_get_unit       (KmJointPanel *self,
                                              guint         dof);
const char    *km_joint_panel_get_row_tooltip (KmJointPanel *self,
                                               GtkWidget    *widget);

G_END_DECLS
