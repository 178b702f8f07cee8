/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-pick"

#include "config.h"

#include <math.h>

#include "km-pick.h"

/* Nearest t > 0 where the ray enters the sphere, or INFINITY. */
static double
ray_sphere (KmVec3 origin,
            KmVec3 dir,
            KmVec3 centre,
            double radius)
{
  KmVec3 oc = km_vec3_sub (origin, centre);
  double b = km_vec3_dot (oc, dir);
  double c = km_vec3_dot (oc, oc) - radius * radius;
  double disc = b * b - c, s, t;

  if (disc < 0)
    return INFINITY;
  s = sqrt (disc);
  t = -b - s;
  if (t < 0)
    t = -b + s;
  return t >= 0 ? t : INFINITY;
}

/* Nearest t > 0 where the ray hits the finite cylinder a–b of @radius (side only). */
static double
ray_cylinder (KmVec3 origin,
              KmVec3 dir,
              KmVec3 a,
              KmVec3 b,
              double radius)
{
  KmVec3 axis = km_vec3_sub (b, a);
  double len = km_vec3_length (axis);
  KmVec3 u, oc, d_perp, oc_perp;
  double qa, qb, qc, disc, s, best = INFINITY;

  if (!(len > 1e-12))
    return INFINITY;
  u = km_vec3_scale (axis, 1.0 / len);
  oc = km_vec3_sub (origin, a);
  d_perp = km_vec3_sub (dir, km_vec3_scale (u, km_vec3_dot (dir, u)));
  oc_perp = km_vec3_sub (oc, km_vec3_scale (u, km_vec3_dot (oc, u)));
  qa = km_vec3_dot (d_perp, d_perp);
  qb = 2 * km_vec3_dot (d_perp, oc_perp);
  qc = km_vec3_dot (oc_perp, oc_perp) - radius * radius;
  if (qa < 1e-18)
    return INFINITY;
  disc = qb * qb - 4 * qa * qc;
  if (disc < 0)
    return INFINITY;
  s = sqrt (disc);
  for (int k = 0; k < 2; k++)
    {
      double t = (-qb + (k == 0 ? -s : s)) / (2 * qa);
      double h;

      if (t < 0)
        continue;
      h = km_vec3_dot (km_vec3_add (oc, km_vec3_scale (dir, t)), u);
      if (h >= 0 && h <= len && t < best)
        best = t;
    }
  return best;
}

/**
 * km_pick_joint:
 * @direction: unit vector
 * @distance: (out) (optional): ray parameter of the hit
 *
 * The joint whose sphere, or whose bone (the cylinder from its parent to it), the ray meets
 * first. A bone picks its child joint: that is the joint a drag on the bone turns in FK.
 *
 * Returns: the topological joint index, or -1 when the ray meets nothing
 */
int
km_pick_joint (const KmSkeleton  *skeleton,
               const KmTransform *joint_world,
               double             joint_radius,
               KmVec3             origin,
               KmVec3             direction,
               double            *distance)
{
  double best_t = INFINITY;
  int best = -1;

  g_return_val_if_fail (skeleton != NULL, -1);
  g_return_val_if_fail (joint_world != NULL, -1);

  for (guint i = 0; i < km_skeleton_get_n_joints (skeleton); i++)
    {
      const KmJoint *j = km_skeleton_get_joint (skeleton, i);
      double t = ray_sphere (origin, direction, joint_world[i].pos, joint_radius);

      /* Spheres win over the bones that enter them, so compare with a tiny bias. */
      if (t < best_t + 1e-9)
        best_t = t, best = (int) i;
      if (j->parent >= 0)
        {
          t = ray_cylinder (origin, direction, joint_world[j->parent].pos, joint_world[i].pos,
                            joint_radius * KM_PICK_BONE_RADIUS_FACTOR);
          if (t < best_t - 1e-9)
            {
              /* A bone belongs to the joint that turns it: its parent's motion moves it. */
              best_t = t;
              best = j->parent;
            }
        }
    }
  if (distance != NULL)
    *distance = best_t;
  return isfinite (best_t) ? best : -1;
}

/* About a ninth of the view's height, wherever the camera is. */
double
km_gizmo_size_for_view (const KmCamera *camera,
                        KmVec3          centre)
{
  double d;

  g_return_val_if_fail (camera != NULL, 0.1);

  /* An orthographic view has the same scale at every depth: the target's. */
  d = camera->orthographic ? camera->distance
                           : km_vec3_length (km_vec3_sub (km_camera_get_eye (camera), centre));
  return MAX (d * tan (camera->fov_y / 2) * 0.25, 1e-4);
}

KmVec3
km_gizmo_axis (KmGizmoHandle handle)
{
  switch (handle)
    {
    case KM_GIZMO_MOVE_X:
    case KM_GIZMO_ROTATE_X:
      return km_vec3 (1, 0, 0);
    case KM_GIZMO_MOVE_Y:
    case KM_GIZMO_ROTATE_Y:
      return km_vec3 (0, 1, 0);
    case KM_GIZMO_MOVE_Z:
    case KM_GIZMO_ROTATE_Z:
      return km_vec3 (0, 0, 1);
    case KM_GIZMO_NONE:
    default:
      return km_vec3 (0, 0, 0);
    }
}

/* An arrow's shaft. It starts a little away from the centre, which stays free for the
 * unconstrained drag of the joint itself. */
void
km_gizmo_arrow (const KmGizmo *gizmo,
                KmGizmoHandle  handle,
                KmVec3        *base,
                KmVec3        *tip)
{
  KmVec3 axis = km_gizmo_axis (handle);

  *base = km_vec3_add (gizmo->centre, km_vec3_scale (axis, gizmo->size * KM_GIZMO_ARROW_START));
  *tip = km_vec3_add (gizmo->centre, km_vec3_scale (axis, gizmo->size));
}

/* Point @segment (mod KM_GIZMO_RING_SEGMENTS) of a rotation ring. */
KmVec3
km_gizmo_ring_point (const KmGizmo *gizmo,
                     KmGizmoHandle  handle,
                     guint          segment)
{
  double a = 2 * G_PI * (segment % KM_GIZMO_RING_SEGMENTS) / KM_GIZMO_RING_SEGMENTS;
  double r = 0.8 * gizmo->size, c = r * cos (a), s = r * sin (a);
  KmVec3 off;

  switch (handle)
    {
    case KM_GIZMO_ROTATE_X:
      off = km_vec3 (0, c, s);
      break;
    case KM_GIZMO_ROTATE_Y:
      off = km_vec3 (s, 0, c);
      break;
    case KM_GIZMO_ROTATE_Z:
    default:
      off = km_vec3 (c, s, 0);
      break;
    }
  return km_vec3_add (gizmo->centre, off);
}

static double
segment_distance (double ax,
                  double ay,
                  double bx,
                  double by,
                  double px,
                  double py)
{
  double dx = bx - ax, dy = by - ay, len2 = dx * dx + dy * dy, t;

  t = len2 > 0 ? CLAMP (((px - ax) * dx + (py - ay) * dy) / len2, 0.0, 1.0) : 0.0;
  return hypot (ax + t * dx - px, ay + t * dy - py);
}

/**
 * km_gizmo_pick:
 *
 * The handle whose drawn line passes nearest the pointer, within KM_GIZMO_PICK_PIXELS.
 */
KmGizmoHandle
km_gizmo_pick (const KmGizmo  *gizmo,
               const KmCamera *camera,
               int             width,
               int             height,
               double          x,
               double          y)
{
  KmGizmoHandle best = KM_GIZMO_NONE;
  double best_d = KM_GIZMO_PICK_PIXELS;

  g_return_val_if_fail (gizmo != NULL && camera != NULL, KM_GIZMO_NONE);

  if (width <= 0 || height <= 0)
    return KM_GIZMO_NONE;

  for (KmGizmoHandle h = KM_GIZMO_MOVE_X; h <= KM_GIZMO_MOVE_Z; h++)
    {
      KmVec3 base, tip;
      double bx, by, tx, ty, d;

      km_gizmo_arrow (gizmo, h, &base, &tip);
      if (!km_camera_project (camera, base, width, height, &bx, &by)
          || !km_camera_project (camera, tip, width, height, &tx, &ty))
        continue;
      d = segment_distance (bx, by, tx, ty, x, y);
      if (d < best_d)
        best_d = d, best = h;
    }
  for (KmGizmoHandle h = KM_GIZMO_ROTATE_X; h <= KM_GIZMO_ROTATE_Z && !gizmo->translate_only;
       h++)
    {
      double px = 0, py = 0;
      gboolean have_prev = FALSE;

      for (guint s = 0; s <= KM_GIZMO_RING_SEGMENTS; s++)
        {
          double qx, qy;

          if (!km_camera_project (camera, km_gizmo_ring_point (gizmo, h, s), width, height,
                                  &qx, &qy))
            {
              have_prev = FALSE;
              continue;
            }
          if (have_prev)
            {
              double d = segment_distance (px, py, qx, qy, x, y);

              if (d < best_d)
                best_d = d, best = h;
            }
          px = qx, py = qy, have_prev = TRUE;
        }
    }
  return best;
}

/* Where the ray meets the plane; FALSE when it runs parallel or the plane is behind. */
gboolean
km_ray_plane (KmVec3  origin,
              KmVec3  direction,
              KmVec3  plane_point,
              KmVec3  plane_normal,
              KmVec3 *hit)
{
  double denom = km_vec3_dot (direction, plane_normal), t;

  if (fabs (denom) < 1e-9)
    return FALSE;
  t = km_vec3_dot (km_vec3_sub (plane_point, origin), plane_normal) / denom;
  if (t < 0)
    return FALSE;
  *hit = km_vec3_add (origin, km_vec3_scale (direction, t));
  return TRUE;
}

/* The parameter s of the point line_point + s·line_direction nearest the ray. */
double
km_ray_line_param (KmVec3 origin,
                   KmVec3 direction,
                   KmVec3 line_point,
                   KmVec3 line_direction)
{
  KmVec3 w = km_vec3_sub (line_point, origin);
  double a = km_vec3_dot (line_direction, line_direction);
  double b = km_vec3_dot (line_direction, direction);
  double c = km_vec3_dot (direction, direction);
  double d = km_vec3_dot (line_direction, w);
  double e = km_vec3_dot (direction, w);
  double denom = a * c - b * b;

  if (fabs (denom) < 1e-12)
    return 0.0;
  return (b * e - c * d) / denom;
}
