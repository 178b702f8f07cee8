/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <glib-object.h>
#include <cglm/cglm.h>

#include "km-math.h"

G_BEGIN_DECLS

#define KM_TYPE_CAMERA (km_camera_get_type ())

/*
 * An orbit camera in Kinema's Z-up world (metres). The eye sits on a sphere of radius
 * `distance` around `target`: `yaw` turns about world Z (0 = looking from +X towards the
 * target), `pitch` lifts the eye above the XY plane. Angles in radians.
 *
 * `fov_y` is the field of view across the view's shorter side (Choreonoid's and VRML's
 * fieldOfView): the vertical one in a view at least as wide as it is tall, the horizontal
 * one in a narrower view. It does not depend on the view's shape; the vertical angle the
 * view is drawn with does (km_camera_get_vertical_fov), so a camera read from a project
 * and written back is the same whatever the view's size was meanwhile.
 *
 * An orthographic camera shows the same height at the target's depth as the perspective
 * one (2 · distance · tan (vertical fov / 2)), so toggling keeps the target's size on
 * screen, and zooming still changes `distance`.
 */
typedef struct
{
  KmVec3   target;
  double   yaw;
  double   pitch;
  double   distance;
  double   fov_y;        /* field of view across the shorter side, radians */
  gboolean orthographic;
} KmCamera;

/* The standard views (keys 1, 3 and 7, as Blender's numpad), for a model facing +X, the
 * Choreonoid convention (X forward, Y left, Z up): front looks at its face, along -X (from
 * +X, +Y to the right); right, the side to the right of the front view, looks along -Y
 * (from +Y: the model's left, Choreonoid's left view, +X to the left); top looks down -Z
 * with +X to the right and +Y up. */
typedef enum
{
  KM_CAMERA_VIEW_FRONT,
  KM_CAMERA_VIEW_RIGHT,
  KM_CAMERA_VIEW_TOP,
} KmCameraView;

GType       km_camera_get_type       (void) G_GNUC_CONST;
KmCamera   *km_camera_new            (void);
KmCamera   *km_camera_copy           (const KmCamera *self);
void        km_camera_free           (KmCamera       *self);

void        km_camera_reset          (KmCamera       *self);
KmVec3      km_camera_get_eye        (const KmCamera *self);
void        km_camera_orbit          (KmCamera       *self,
                                      double          d_yaw,
                                      double          d_pitch);
void        km_camera_zoom           (KmCamera       *self,
                                      double          factor);
void        km_camera_pan            (KmCamera       *self,
                                      double          dx_pixels,
                                      double          dy_pixels,
                                      int             viewport_width,
                                      int             viewport_height);
double      km_camera_get_vertical_fov (const KmCamera *self,
                                      double          aspect);
void        km_camera_set_view       (KmCamera       *self,
                                      KmCameraView    view);
KmVec3      km_camera_get_forward    (const KmCamera *self);
KmVec3      km_camera_get_up         (const KmCamera *self);
gboolean    km_camera_look_from      (KmCamera       *self,
                                      KmVec3          eye,
                                      KmVec3          direction,
                                      double          distance);
void        km_camera_frame_box      (KmCamera       *self,
                                      KmVec3          min,
                                      KmVec3          max,
                                      double          aspect);
void        km_camera_get_view       (const KmCamera *self,
                                      mat4            out);
void        km_camera_get_projection (const KmCamera *self,
                                      double          aspect,
                                      mat4            out);
gboolean    km_camera_project        (const KmCamera *self,
                                      KmVec3          world,
                                      int             width,
                                      int             height,
                                      double         *x,
                                      double         *y);
void        km_camera_ray            (const KmCamera *self,
                                      double          x,
                                      double          y,
                                      int             width,
                                      int             height,
                                      KmVec3         *origin,
                                      KmVec3         *direction);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KmCamera, km_camera_free)

G_END_DECLS
