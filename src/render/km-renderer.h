/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <gio/gio.h>

#include "km-camera.h"
#include "km-pick.h"
#include "km-skeleton.h"

G_BEGIN_DECLS

#define KM_RENDERER_ERROR (km_renderer_error_quark ())

typedef enum
{
  KM_RENDERER_ERROR_SHADER,
  KM_RENDERER_ERROR_RESOURCE,
} KmRendererError;

/* Colours (linear 0..1 RGB). A surface facing the eye is drawn in exactly these, so tests
 * and screenshots can find them. */
#define KM_RENDER_BACKGROUND_RGB   0.180f, 0.184f, 0.196f
#define KM_RENDER_JOINT_RGB        0.957f, 0.620f, 0.157f
#define KM_RENDER_SELECTED_RGB     0.337f, 0.706f, 1.000f
#define KM_RENDER_BONE_RGB         0.780f, 0.800f, 0.840f
#define KM_RENDER_EFFECTOR_RGB     0.902f, 0.235f, 0.294f
#define KM_RENDER_TARGET_RGB       0.180f, 0.800f, 0.443f
#define KM_RENDER_TRAJECTORY_RGB   0.945f, 0.843f, 0.310f
#define KM_RENDER_HOVER_RGB        1.000f, 1.000f, 1.000f
#define KM_RENDER_GIZMO_ACTIVE_RGB 1.000f, 0.930f, 0.000f
/* The opacity of the edited body's joints and bones drawn over its shapes. */
#define KM_RENDER_OVERLAY_ALPHA    0.45f

/* A posed body whose display shapes are drawn (bones instead when it has none). */
typedef struct
{
  const KmSkeleton  *skeleton;
  const KmTransform *joint_world;       /* one per joint */
} KmRenderBody;

/*
 * What to draw: borrowed pointers, valid for the duration of km_renderer_render(). World
 * coordinates are Z-up metres.
 *
 * `skeleton` is the body being edited: its joints and bones are drawn for picking, over
 * its shapes and translucent when it is also in `bodies` with shapes.
 */
typedef struct
{
  const KmRenderBody *bodies;           /* the checked bodies, the edited one included */
  guint              n_bodies;
  const KmSkeleton  *skeleton;          /* nullable: grid only */
  const KmTransform *joint_world;       /* one per joint, from km_skeleton_forward_kinematics */
  int                selected_joint;    /* -1 for none */
  int                effector;          /* -1 for none */
  gboolean           show_joint_axes;
  gboolean           has_target;
  KmTransform        target;            /* the effector's goal at the current time */
  const KmVec3      *trajectory;        /* the keyed path, drawn as a polyline */
  guint              n_trajectory;
  gboolean           has_hover;         /* hover_joint is what a click in edit mode would pick */
  int                hover_joint;
  /* The point the effector's targets are for where it is off the effector joint's origin
   * (a tool point, km_document_get_effector_point()): drawn in the effector's colour, joined
   * to the joint by a thin bone, the joint then marked as any other; white when hovered. */
  gboolean           has_tool_point;
  KmVec3             tool_point;
  gboolean           hover_tool_point;
  gboolean           has_gizmo;         /* draw the manipulator over everything */
  KmGizmo            gizmo;
  KmGizmoHandle      gizmo_hover;       /* drawn highlighted */
  /* The floor grid's size: 1 (or 0) for lines every 0.5 m out to 5 m, 0.1 for a tenth of
   * that (km_renderer_grid_scale_for()), so a model of centimetres stands on a grid it can
   * be measured against. */
  double             grid_scale;
  /* The size (diagonal, metres) of the model as framed, 0 when unknown: the joint markers
   * of a model under a metre are sized to it (km_renderer_marker_radius()); in the view,
   * they are never smaller than a few pixels (km_renderer_view_marker_radius()). */
  double             model_extent;
} KmRenderScene;

typedef struct _KmRenderer KmRenderer;

GQuark       km_renderer_error_quark   (void);
KmRenderer  *km_renderer_new           (gboolean              use_es,
                                        GError              **error);
void         km_renderer_free          (KmRenderer           *self);
void         km_renderer_render        (KmRenderer           *self,
                                        const KmRenderScene  *scene,
                                        const KmCamera       *camera,
                                        int                   width,
                                        int                   height);
double       km_renderer_joint_radius  (const KmSkeleton     *skeleton);
double       km_renderer_marker_radius (const KmSkeleton     *skeleton,
                                        double                extent);
double       km_renderer_view_marker_radius (const KmSkeleton *skeleton,
                                            double            extent,
                                            const KmCamera   *camera);
double       km_renderer_grid_scale_for (double               extent);
guint        km_renderer_get_n_cached_meshes (KmRenderer     *self);
guint        km_renderer_get_n_draw_calls (KmRenderer        *self);
guint        km_renderer_get_n_marker_vertices (KmRenderer   *self);
guint        km_renderer_get_n_degenerate_triangles (KmRenderer *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KmRenderer, km_renderer_free)

G_END_DECLS
