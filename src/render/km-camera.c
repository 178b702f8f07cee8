/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-camera"

#include "config.h"

#include <math.h>

#include "km-camera.h"

/* Keep the eye off the poles, where the Z-up look-at basis degenerates. */
#define PITCH_LIMIT (G_PI / 2 - 0.01)
#define MIN_DISTANCE 0.01
#define MAX_DISTANCE 1.0e4
/* The part of the view's half height and half width that a framed box may use: the rest
 * is a margin, so that a model's top and foot do not touch the edges. */
#define FRAME_FILL 0.9
/* The smallest sphere framed (metres of radius): a lone joint is not zoomed onto. */
#define FRAME_MIN_RADIUS 0.1

G_DEFINE_BOXED_TYPE (KmCamera, km_camera, km_camera_copy, km_camera_free)

KmCamera *
km_camera_new (void)
{
  KmCamera *self = g_new0 (KmCamera, 1);

  km_camera_reset (self);
  return self;
}

KmCamera *
km_camera_copy (const KmCamera *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return g_memdup2 (self, sizeof *self);
}

void
km_camera_free (KmCamera *self)
{
  g_free (self);
}

/**
 * km_camera_reset:
 *
 * A three-quarter perspective view from the front right, slightly above, looking at a
 * point one metre above the origin from five metres away.
 */
void
km_camera_reset (KmCamera *self)
{
  g_return_if_fail (self != NULL);

  self->target = km_vec3 (0.0, 0.0, 1.0);
  self->yaw = G_PI / 4;
  self->pitch = 0.45;
  self->distance = 5.0;
  self->fov_y = 40.0 * G_PI / 180.0;
  self->orthographic = FALSE;
}

/* Turns the eye about the target to a standard view; target and distance stay. */
void
km_camera_set_view (KmCamera     *self,
                    KmCameraView  view)
{
  g_return_if_fail (self != NULL);

  switch (view)
    {
    case KM_CAMERA_VIEW_FRONT:
      /* At a model's face: Choreonoid's models face +X. */
      self->yaw = 0.0;
      self->pitch = 0.0;
      break;
    case KM_CAMERA_VIEW_RIGHT:
      /* The side on the front view's right (+Y, the model's left side). */
      self->yaw = G_PI / 2;
      self->pitch = 0.0;
      break;
    case KM_CAMERA_VIEW_TOP:
      /* Just short of the pole: the look-at basis needs a horizontal component. */
      self->yaw = -G_PI / 2;
      self->pitch = PITCH_LIMIT;
      break;
    default:
      g_return_if_reached ();
    }
}

/* The unit viewing direction, from the eye towards the target. */
KmVec3
km_camera_get_forward (const KmCamera *self)
{
  g_return_val_if_fail (self != NULL, km_vec3 (0, 0, -1));

  return km_vec3 (-cos (self->pitch) * cos (self->yaw),
                  -cos (self->pitch) * sin (self->yaw),
                  -sin (self->pitch));
}

/* The unit up direction of the view: world Z made orthogonal to the forward direction. */
KmVec3
km_camera_get_up (const KmCamera *self)
{
  g_return_val_if_fail (self != NULL, km_vec3 (0, 0, 1));

  return km_vec3 (-sin (self->pitch) * cos (self->yaw),
                  -sin (self->pitch) * sin (self->yaw),
                  cos (self->pitch));
}

/**
 * km_camera_look_from:
 * @eye: where the eye is
 * @direction: where it looks (any length but zero)
 * @distance: how far ahead of the eye the orbit target lies
 *
 * Places the camera at @eye looking along @direction, as Choreonoid stores its cameras
 * (the roll is always zero: the camera keeps world Z up). The pitch is kept off the poles
 * and the distance within the zoom range, so the eye can move a little from @eye for a
 * direction straight up or down. Field of view and projection stay.
 *
 * Returns: %FALSE (and the camera unchanged) when a value is not finite or @direction is
 *   zero
 */
gboolean
km_camera_look_from (KmCamera *self,
                     KmVec3    eye,
                     KmVec3    direction,
                     double    distance)
{
  double length;
  KmVec3 forward;

  g_return_val_if_fail (self != NULL, FALSE);

  length = km_vec3_length (direction);
  if (!isfinite (eye.x) || !isfinite (eye.y) || !isfinite (eye.z) || !isfinite (length)
      || length < 1e-12 || !isfinite (distance))
    return FALSE;

  forward = km_vec3_scale (direction, 1.0 / length);
  self->distance = CLAMP (distance, MIN_DISTANCE, MAX_DISTANCE);
  self->pitch = CLAMP (asin (CLAMP (-forward.z, -1.0, 1.0)), -PITCH_LIMIT, PITCH_LIMIT);
  if (hypot (forward.x, forward.y) > 1e-9)
    self->yaw = atan2 (-forward.y, -forward.x);
  forward = km_camera_get_forward (self);
  self->target = km_vec3_add (eye, km_vec3_scale (forward, self->distance));
  return TRUE;
}

KmVec3
km_camera_get_eye (const KmCamera *self)
{
  KmVec3 dir;

  g_return_val_if_fail (self != NULL, KM_VEC3_ZERO);

  dir = km_vec3 (cos (self->pitch) * cos (self->yaw),
                 cos (self->pitch) * sin (self->yaw),
                 sin (self->pitch));
  return km_vec3_add (self->target, km_vec3_scale (dir, self->distance));
}

void
km_camera_orbit (KmCamera *self,
                 double    d_yaw,
                 double    d_pitch)
{
  g_return_if_fail (self != NULL);

  if (!isfinite (d_yaw) || !isfinite (d_pitch))
    return;

  self->yaw = remainder (self->yaw + d_yaw, 2 * G_PI);
  self->pitch = CLAMP (self->pitch + d_pitch, -PITCH_LIMIT, PITCH_LIMIT);
}

/* factor > 1 moves the eye away, < 1 closer. */
void
km_camera_zoom (KmCamera *self,
                double    factor)
{
  g_return_if_fail (self != NULL);

  if (!isfinite (factor) || factor <= 0.0)
    return;

  self->distance = CLAMP (self->distance * factor, MIN_DISTANCE, MAX_DISTANCE);
}

static void
camera_basis (const KmCamera *self,
              KmVec3         *right,
              KmVec3         *up,
              KmVec3         *forward)
{
  KmVec3 eye = km_camera_get_eye (self);

  *forward = km_vec3_normalize (km_vec3_sub (self->target, eye));
  *right = km_vec3_normalize (km_vec3_cross (*forward, km_vec3 (0, 0, 1)));
  *up = km_vec3_cross (*right, *forward);
}

/**
 * km_camera_get_vertical_fov:
 * @aspect: the view's width / height (non-positive: 1)
 *
 * The vertical field of view a view of that shape is drawn with: `fov_y` (the angle across
 * the shorter side) in a view at least as wide as it is tall, wider in a narrower one.
 *
 * Returns: radians
 */
double
km_camera_get_vertical_fov (const KmCamera *self,
                            double          aspect)
{
  g_return_val_if_fail (self != NULL, 0.0);

  if (!isfinite (aspect) || aspect <= 0.0)
    aspect = 1.0;
  return aspect >= 1.0 ? self->fov_y : 2.0 * atan (tan (self->fov_y / 2) / aspect);
}

/* Moves the target so that the point under the pointer follows it (at the target's depth). */
void
km_camera_pan (KmCamera *self,
               double    dx_pixels,
               double    dy_pixels,
               int       viewport_width,
               int       viewport_height)
{
  KmVec3 right, up, forward;
  double metres_per_pixel, fov;

  g_return_if_fail (self != NULL);

  if (viewport_width <= 0 || viewport_height <= 0 || !isfinite (dx_pixels)
      || !isfinite (dy_pixels))
    return;

  camera_basis (self, &right, &up, &forward);
  fov = km_camera_get_vertical_fov (self, (double) viewport_width / viewport_height);
  metres_per_pixel = 2.0 * self->distance * tan (fov / 2) / viewport_height;
  self->target = km_vec3_add (self->target,
                              km_vec3_add (km_vec3_scale (right, -dx_pixels * metres_per_pixel),
                                           km_vec3_scale (up, dy_pixels * metres_per_pixel)));
}

/* The distance from the target at which the box's @corners (relative to the target) are
 * all in view within the fill: across within @tan_x, up within @tan_y of the depth (the
 * distance in an orthographic view). */
static double
fit_distance (const KmCamera *self,
              const KmVec3    corners[8],
              KmVec3          right,
              KmVec3          up,
              KmVec3          forward,
              double          tan_x,
              double          tan_y)
{
  double distance = MIN_DISTANCE;

  for (guint c = 0; c < 8; c++)
    {
      double x = fabs (km_vec3_dot (corners[c], right));
      double y = fabs (km_vec3_dot (corners[c], up));
      /* How far beyond the target the corner lies: a perspective view sees a corner nearer
       * the eye larger; an orthographic one does not. */
      double z = self->orthographic ? 0.0 : km_vec3_dot (corners[c], forward);

      distance = MAX (distance, x / tan_x - z);
      distance = MAX (distance, y / tan_y - z);
      if (!self->orthographic)
        distance = MAX (distance, -1.05 * z);   /* never behind the eye */
    }
  return distance;
}

/**
 * km_camera_frame_box:
 * @min: lower corner of a world-space box
 * @max: upper corner
 * @aspect: the view's width / height (non-positive: 1)
 *
 * Keeps the viewing direction and moves the camera so that the box's bounding sphere fits
 * the view: the field of view across its shorter side (the horizontal one where the view is
 * narrower than it is tall, the scene pane beside the item tree and joint panel, which
 * would otherwise cut off the sides of wide models: a floor, outstretched arms). Where that
 * leaves a corner of the box at the edge of the view or beyond it, every corner is fitted
 * instead, with a margin, in the camera's projection, and the box's image centred: a
 * perspective view sees a tall model's top, nearer the eye, larger than its foot, and the
 * sphere alone let a 1.6 m pole touch the top edge and a 12 m chain run out of the view.
 * A box smaller than a 20 cm sphere is framed as that sphere.
 */
void
km_camera_frame_box (KmCamera *self,
                     KmVec3    min,
                     KmVec3    max,
                     double    aspect)
{
  KmVec3 right, up, forward, half, corners[8];
  double tan_y, tan_x, half_angle, sphere;

  g_return_if_fail (self != NULL);

  if (!km_vec3_is_finite (min) || !km_vec3_is_finite (max))
    return;
  if (!isfinite (aspect) || aspect <= 0.0)
    aspect = 1.0;

  self->target = km_vec3_scale (km_vec3_add (min, max), 0.5);
  half = km_vec3_scale (km_vec3_sub (max, min), 0.5);
  if (km_vec3_length (half) < FRAME_MIN_RADIUS)
    {
      double least = FRAME_MIN_RADIUS / sqrt (3.0);

      half = km_vec3 (MAX (fabs (half.x), least), MAX (fabs (half.y), least),
                      MAX (fabs (half.z), least));
    }

  forward = km_camera_get_forward (self);
  up = km_camera_get_up (self);
  right = km_vec3_cross (forward, up);
  tan_y = tan (km_camera_get_vertical_fov (self, aspect) / 2) * FRAME_FILL;
  tan_x = tan_y * aspect;
  for (guint c = 0; c < 8; c++)
    corners[c] = km_vec3 (c & 1 ? half.x : -half.x, c & 2 ? half.y : -half.y,
                          c & 4 ? half.z : -half.z);

  /* The whole bounding sphere in view, as models of about their own height and width have
   * always been framed (a tighter fit cut off heads and feet). */
  half_angle = MAX (self->fov_y / 2, 1e-6);   /* across the shorter side */
  sphere = km_vec3_length (half) / sin (half_angle);
  if (sphere >= fit_distance (self, corners, right, up, forward, tan_x, tan_y))
    {
      self->distance = CLAMP (sphere, MIN_DISTANCE, MAX_DISTANCE);
      return;
    }

  /* In perspective the box's centre is not the middle of its image: move the target
   * across the view until it is (a few steps converge), then fit at that place. */
  for (guint step = 0; step < (self->orthographic ? 0 : 4); step++)
    {
      double distance = fit_distance (self, corners, right, up, forward, tan_x, tan_y);
      double lo_x = G_MAXDOUBLE, hi_x = -G_MAXDOUBLE, lo_y = G_MAXDOUBLE, hi_y = -G_MAXDOUBLE;
      KmVec3 shift;

      for (guint c = 0; c < 8; c++)
        {
          double depth = distance + km_vec3_dot (corners[c], forward);
          double x = km_vec3_dot (corners[c], right) / depth;
          double y = km_vec3_dot (corners[c], up) / depth;

          lo_x = MIN (lo_x, x), hi_x = MAX (hi_x, x);
          lo_y = MIN (lo_y, y), hi_y = MAX (hi_y, y);
        }
      shift = km_vec3_add (km_vec3_scale (right, distance * (lo_x + hi_x) / 2),
                           km_vec3_scale (up, distance * (lo_y + hi_y) / 2));
      self->target = km_vec3_add (self->target, shift);
      for (guint c = 0; c < 8; c++)
        corners[c] = km_vec3_sub (corners[c], shift);
    }
  /* Farther than the fit only shrinks the image about its middle. */
  self->distance = CLAMP (MAX (fit_distance (self, corners, right, up, forward, tan_x, tan_y),
                               sphere),
                          MIN_DISTANCE, MAX_DISTANCE);
}

void
km_camera_get_view (const KmCamera *self,
                    mat4            out)
{
  KmVec3 eye;
  vec3 e, t, up = { 0.0f, 0.0f, 1.0f };

  g_return_if_fail (self != NULL);

  eye = km_camera_get_eye (self);
  e[0] = eye.x, e[1] = eye.y, e[2] = eye.z;
  t[0] = self->target.x, t[1] = self->target.y, t[2] = self->target.z;
  glm_lookat (e, t, up, out);
}

void
km_camera_get_projection (const KmCamera *self,
                          double          aspect,
                          mat4            out)
{
  double fov;

  g_return_if_fail (self != NULL);

  if (!isfinite (aspect) || aspect <= 0.0)
    aspect = 1.0;

  fov = km_camera_get_vertical_fov (self, aspect);
  if (self->orthographic)
    {
      double half_h = self->distance * tan (fov / 2);
      double half_w = half_h * aspect;
      double depth = self->distance * 100.0 + 100.0;

      /* The near plane lies behind the eye: nothing the perspective view shows is cut. */
      glm_ortho ((float) -half_w, (float) half_w, (float) -half_h, (float) half_h,
                 (float) -depth, (float) depth, out);
      return;
    }
  glm_perspective ((float) fov, (float) aspect,
                   (float) (self->distance * 0.01), (float) (self->distance * 100.0 + 100.0),
                   out);
}

/**
 * km_camera_project:
 * @x: (out): pixel column, 0 at the left
 * @y: (out): pixel row, 0 at the top
 *
 * Returns: %FALSE when the point is behind the eye
 */
gboolean
km_camera_project (const KmCamera *self,
                   KmVec3          world,
                   int             width,
                   int             height,
                   double         *x,
                   double         *y)
{
  mat4 view, proj, vp;
  vec4 p = { (float) world.x, (float) world.y, (float) world.z, 1.0f }, clip;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (width > 0 && height > 0, FALSE);

  km_camera_get_view (self, view);
  km_camera_get_projection (self, (double) width / height, proj);
  glm_mat4_mul (proj, view, vp);
  glm_mat4_mulv (vp, p, clip);
  if (clip[3] <= 0.0f)
    return FALSE;

  *x = (clip[0] / clip[3] * 0.5 + 0.5) * width;
  *y = (0.5 - clip[1] / clip[3] * 0.5) * height;
  return TRUE;
}

/**
 * km_camera_ray:
 * @x: pixel column, 0 at the left
 * @y: pixel row, 0 at the top
 * @origin: (out): the eye; for an orthographic camera, a point on the pixel's ray behind
 *   everything the view shows
 * @direction: (out): unit direction through the pixel, for picking
 */
void
km_camera_ray (const KmCamera *self,
               double          x,
               double          y,
               int             width,
               int             height,
               KmVec3         *origin,
               KmVec3         *direction)
{
  KmVec3 right, up, forward;
  double half_h, half_w, nx, ny;

  g_return_if_fail (self != NULL);
  g_return_if_fail (width > 0 && height > 0);

  camera_basis (self, &right, &up, &forward);
  half_h = tan (km_camera_get_vertical_fov (self, (double) width / height) / 2);
  half_w = half_h * width / height;
  nx = (2.0 * x / width - 1.0) * half_w;
  ny = (1.0 - 2.0 * y / height) * half_h;

  if (self->orthographic)
    {
      double depth = self->distance * 100.0 + 100.0;
      KmVec3 offset = km_vec3_add (km_vec3_scale (right, nx * self->distance),
                                   km_vec3_scale (up, ny * self->distance));

      *origin = km_vec3_add (km_vec3_add (km_camera_get_eye (self), offset),
                             km_vec3_scale (forward, -depth));
      *direction = forward;
      return;
    }

  *origin = km_camera_get_eye (self);
  *direction = km_vec3_normalize (km_vec3_add (forward,
                                               km_vec3_add (km_vec3_scale (right, nx),
                                                            km_vec3_scale (up, ny))));
}
