/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <gtk/gtk.h>

#include "km-camera.h"
#include "km-document.h"
#include "km-drag-solver.h"

G_BEGIN_DECLS

#define KM_TYPE_SCENE_VIEW (km_scene_view_get_type ())

G_DECLARE_FINAL_TYPE (KmSceneView, km_scene_view, KM, SCENE_VIEW, GtkGLArea)

GtkWidget      *km_scene_view_new                 (void);
KmDocument     *km_scene_view_get_document        (KmSceneView    *self);
void            km_scene_view_set_document        (KmSceneView    *self,
                                                   KmDocument     *document);
const KmCamera *km_scene_view_get_camera          (KmSceneView    *self);
void            km_scene_view_set_camera          (KmSceneView    *self,
                                                   const KmCamera *camera);
void            km_scene_view_reset_camera        (KmSceneView    *self);
gboolean        km_scene_view_get_show_joint_axes (KmSceneView    *self);
void            km_scene_view_set_show_joint_axes (KmSceneView    *self,
                                                   gboolean        show);
guint           km_scene_view_get_n_renders       (KmSceneView    *self);
GdkTexture     *km_scene_view_grab_texture        (KmSceneView    *self);
gboolean        km_scene_view_get_edit_mode       (KmSceneView    *self);
void            km_scene_view_set_edit_mode       (KmSceneView    *self,
                                                   gboolean        edit_mode);
int             km_scene_view_get_ik_tip          (KmSceneView    *self);
void            km_scene_view_set_ik_tip          (KmSceneView    *self,
                                                   int             joint);
int             km_scene_view_get_hover_joint     (KmSceneView    *self);
KmDragSolver   *km_scene_view_get_drag_solver     (KmSceneView    *self);
const gint64   *km_scene_view_get_drag_latencies  (KmSceneView    *self,
                                                   guint          *n);
gboolean        km_scene_view_get_orthographic    (KmSceneView    *self);
void            km_scene_view_set_orthographic    (KmSceneView    *self,
                                                   gboolean        orthographic);
void            km_scene_view_frame               (KmSceneView    *self,
                                                   int             joint);
double          km_scene_view_get_marker_radius   (KmSceneView    *self);
double          km_scene_view_get_grid_scale      (KmSceneView    *self);

G_END_DECLS
