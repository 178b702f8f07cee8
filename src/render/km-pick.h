/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <glib.h>

#include "km-camera.h"
#include "km-skeleton.h"

G_BEGIN_DECLS

/*
 * Picking against exactly what the renderer draws: joint spheres of the radius the caller
 * draws them at (km_renderer_view_marker_radius() for the scene's
 * KmRenderScene.model_extent and camera) and bone
 * cylinders of 0.45 times that, and the manipulator gizmo's handles. Pixel coordinates are the widget's logical pixels, 0,0 at the top left.
 */

/* The fraction of the joint radius that a bone cylinder has (shared with the renderer). */
#define KM_PICK_BONE_RADIUS_FACTOR 0.45

typedef enum
{
  KM_GIZMO_NONE = 0,
  KM_GIZMO_MOVE_X,
  KM_GIZMO_MOVE_Y,
  KM_GIZMO_MOVE_Z,
  KM_GIZMO_ROTATE_X,
  KM_GIZMO_ROTATE_Y,
  KM_GIZMO_ROTATE_Z,
} KmGizmoHandle;

/* The gizmo: three arrows of length `size` along the world axes from `centre`, and three
 * rings of radius 0.8 × `size` about them; with `translate_only` the arrows alone (the rings
 * are neither drawn nor picked). With `show_axis`, a line along the unit vector `axis`
 * through `centre` is drawn too (a joint's axis); it is not a handle. Zero-initialise it. */
typedef struct
{
  KmVec3   centre;
  double   size;
  gboolean translate_only;
  gboolean show_axis;
  KmVec3   axis;
} KmGizmo;

#define KM_GIZMO_RING_SEGMENTS 64
/* Arrows begin at this fraction of `size` from the centre. */
#define KM_GIZMO_ARROW_START 0.3
/* How close (logical pixels) the pointer must come to a handle to pick it. */
#define KM_GIZMO_PICK_PIXELS 7.0

int            km_pick_joint           (const KmSkeleton  *skeleton,
                                        const KmTransform *joint_world,
                                        double             joint_radius,
                                        KmVec3             origin,
                                        KmVec3             direction,
                                        double            *distance);

double         km_gizmo_size_for_view  (const KmCamera    *camera,
                                        KmVec3             centre);
KmVec3         km_gizmo_axis           (KmGizmoHandle      handle);
void           km_gizmo_arrow          (const KmGizmo     *gizmo,
                                        KmGizmoHandle      handle,
                                        KmVec3            *base,
                                        KmVec3            *tip);
KmVec3         km_gizmo_ring_point     (const KmGizmo     *gizmo,
                                        KmGizmoHandle      handle,
                                        guint              segment);
KmGizmoHandle  km_gizmo_pick           (const KmGizmo     *gizmo,
                                        const KmCamera    *camera,
                                        int                width,
                                        int                height,
                                        double             x,
                                        double             y);

gboolean       km_ray_plane            (KmVec3             origin,
                                        KmVec3             direction,
                                        KmVec3             plane_point,
                                        KmVec3             plane_normal,
                                        KmVec3            *hit);
double         km_ray_line_param       (KmVec3             origin,
                                        KmVec3             direction,
                                        KmVec3             line_point,
                                        KmVec3             line_direction);

G_END_DECLS
