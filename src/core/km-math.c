/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-math"

#include "config.h"

#include <math.h>

#include "km-math.h"

KmVec3
km_vec3_normalize (KmVec3 a)
{
  KmVec3 unit;

  return km_vec3_direction (a, &unit) ? unit : KM_VEC3_ZERO;
}

gboolean
km_vec3_direction (KmVec3  a,
                   KmVec3 *unit)
{
  double largest = fmax (fabs (a.x), fmax (fabs (a.y), fabs (a.z)));
  KmVec3 scaled;
  double len;

  if (!isfinite (a.x) || !isfinite (a.y) || !isfinite (a.z) || largest == 0.0)
    return FALSE;
  /* By the largest component first (divided: 1 / largest overflows for a subnormal one),
   * so that no square overflows or underflows to zero; the length is then in [1, √3]. */
  scaled = km_vec3 (a.x / largest, a.y / largest, a.z / largest);
  len = km_vec3_length (scaled);
  *unit = km_vec3_scale (scaled, 1.0 / len);
  return TRUE;
}

void
km_mat3_identity (KmMat3 *out)
{
  *out = (KmMat3) { { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } } };
}

void
km_mat3_mul (const KmMat3 *a,
             const KmMat3 *b,
             KmMat3       *out)
{
  KmMat3 r;

  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      r.m[i][j] = a->m[i][0] * b->m[0][j] + a->m[i][1] * b->m[1][j] + a->m[i][2] * b->m[2][j];
  *out = r;
}

void
km_mat3_transpose (const KmMat3 *a,
                   KmMat3       *out)
{
  KmMat3 r;

  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      r.m[i][j] = a->m[j][i];
  *out = r;
}

/**
 * km_mat3_inverse:
 * @a: a matrix
 * @out: (out): its inverse (may alias @a)
 *
 * By cofactors.
 *
 * Returns: FALSE (and @out untouched) when @a is singular or not finite
 */
/* Whether @m is a rotation as a file writes one: M·Mᵀ within @tolerance of the identity in
 * every entry (files keep a few digits), and a determinant above 0 (not a reflection). */
gboolean
km_mat3_is_rotation (const KmMat3 *m,
                     double        tolerance)
{
  KmMat3 mt, p;

  km_mat3_transpose (m, &mt);
  km_mat3_mul (m, &mt, &p);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      if (!(fabs (p.m[i][j] - (i == j ? 1.0 : 0.0)) <= tolerance))
        return FALSE;
  return m->m[0][0] * (m->m[1][1] * m->m[2][2] - m->m[1][2] * m->m[2][1]) -
         m->m[0][1] * (m->m[1][0] * m->m[2][2] - m->m[1][2] * m->m[2][0]) +
         m->m[0][2] * (m->m[1][0] * m->m[2][1] - m->m[1][1] * m->m[2][0]) > 0;
}

gboolean
km_mat3_inverse (const KmMat3 *a,
                 KmMat3       *out)
{
  const double (*m)[3] = a->m;
  KmMat3 inv;
  double det;

  inv.m[0][0] = m[1][1] * m[2][2] - m[1][2] * m[2][1];
  inv.m[0][1] = m[0][2] * m[2][1] - m[0][1] * m[2][2];
  inv.m[0][2] = m[0][1] * m[1][2] - m[0][2] * m[1][1];
  inv.m[1][0] = m[1][2] * m[2][0] - m[1][0] * m[2][2];
  inv.m[1][1] = m[0][0] * m[2][2] - m[0][2] * m[2][0];
  inv.m[1][2] = m[0][2] * m[1][0] - m[0][0] * m[1][2];
  inv.m[2][0] = m[1][0] * m[2][1] - m[1][1] * m[2][0];
  inv.m[2][1] = m[0][1] * m[2][0] - m[0][0] * m[2][1];
  inv.m[2][2] = m[0][0] * m[1][1] - m[0][1] * m[1][0];
  det = m[0][0] * inv.m[0][0] + m[0][1] * inv.m[1][0] + m[0][2] * inv.m[2][0];
  if (!(fabs (det) > 1e-300) || !isfinite (det))
    return FALSE;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      inv.m[i][j] /= det;
  *out = inv;
  return TRUE;
}

void
km_mat3_from_axis_angle (KmVec3  axis,
                         double  angle,
                         KmMat3 *out)
{
  double c = cos (angle), s = sin (angle), t = 1.0 - c;
  double x = axis.x, y = axis.y, z = axis.z;

  out->m[0][0] = t * x * x + c;
  out->m[0][1] = t * x * y - s * z;
  out->m[0][2] = t * x * z + s * y;
  out->m[1][0] = t * x * y + s * z;
  out->m[1][1] = t * y * y + c;
  out->m[1][2] = t * y * z - s * x;
  out->m[2][0] = t * x * z - s * y;
  out->m[2][1] = t * y * z + s * x;
  out->m[2][2] = t * z * z + c;
}

void
km_mat3_from_euler_xyz (KmVec3  e,
                        KmMat3 *out)
{
  double ca = cos (e.x), sa = sin (e.x);
  double cb = cos (e.y), sb = sin (e.y);
  double cc = cos (e.z), sc = sin (e.z);

  /* Rx(a) · Ry(b) · Rz(c), multiplied out. */
  out->m[0][0] = cb * cc;
  out->m[0][1] = -cb * sc;
  out->m[0][2] = sb;
  out->m[1][0] = ca * sc + sa * sb * cc;
  out->m[1][1] = ca * cc - sa * sb * sc;
  out->m[1][2] = -sa * cb;
  out->m[2][0] = sa * sc - ca * sb * cc;
  out->m[2][1] = sa * cc + ca * sb * sc;
  out->m[2][2] = ca * cb;
}

KmVec3
km_mat3_to_euler_xyz (const KmMat3 *m)
{
  double sb = CLAMP (m->m[0][2], -1.0, 1.0);
  double b = asin (sb);

  /* Away from gimbal lock the first and last angles are unique (with b in [-π/2, π/2]).
   * At lock (cos b = 0) only a ± c is determined; we put it all in a and set c = 0. */
  if (fabs (sb) < 1.0 - 1e-12)
    return km_vec3 (atan2 (-m->m[1][2], m->m[2][2]), b, atan2 (-m->m[0][1], m->m[0][0]));

  if (sb > 0)
    return km_vec3 (atan2 (m->m[1][0], m->m[1][1]), G_PI_2, 0.0);
  return km_vec3 (atan2 (-m->m[1][0], m->m[1][1]), -G_PI_2, 0.0);
}

void
km_mat3_from_quat (KmQuat  q,
                   KmMat3 *out)
{
  double w = q.w, x = q.x, y = q.y, z = q.z;

  out->m[0][0] = 1 - 2 * (y * y + z * z);
  out->m[0][1] = 2 * (x * y - w * z);
  out->m[0][2] = 2 * (x * z + w * y);
  out->m[1][0] = 2 * (x * y + w * z);
  out->m[1][1] = 1 - 2 * (x * x + z * z);
  out->m[1][2] = 2 * (y * z - w * x);
  out->m[2][0] = 2 * (x * z - w * y);
  out->m[2][1] = 2 * (y * z + w * x);
  out->m[2][2] = 1 - 2 * (x * x + y * y);
}

KmQuat
km_mat3_to_quat (const KmMat3 *m)
{
  double tr = m->m[0][0] + m->m[1][1] + m->m[2][2];
  KmQuat q;

  /* Shepperd: divide by the largest of the four candidates, never by a small one. */
  if (tr > 0)
    {
      double s = sqrt (tr + 1.0) * 2;
      q = (KmQuat) { 0.25 * s, (m->m[2][1] - m->m[1][2]) / s, (m->m[0][2] - m->m[2][0]) / s,
                     (m->m[1][0] - m->m[0][1]) / s };
    }
  else if (m->m[0][0] > m->m[1][1] && m->m[0][0] > m->m[2][2])
    {
      double s = sqrt (1.0 + m->m[0][0] - m->m[1][1] - m->m[2][2]) * 2;
      q = (KmQuat) { (m->m[2][1] - m->m[1][2]) / s, 0.25 * s, (m->m[0][1] + m->m[1][0]) / s,
                     (m->m[0][2] + m->m[2][0]) / s };
    }
  else if (m->m[1][1] > m->m[2][2])
    {
      double s = sqrt (1.0 + m->m[1][1] - m->m[0][0] - m->m[2][2]) * 2;
      q = (KmQuat) { (m->m[0][2] - m->m[2][0]) / s, (m->m[0][1] + m->m[1][0]) / s, 0.25 * s,
                     (m->m[1][2] + m->m[2][1]) / s };
    }
  else
    {
      double s = sqrt (1.0 + m->m[2][2] - m->m[0][0] - m->m[1][1]) * 2;
      q = (KmQuat) { (m->m[1][0] - m->m[0][1]) / s, (m->m[0][2] + m->m[2][0]) / s,
                     (m->m[1][2] + m->m[2][1]) / s, 0.25 * s };
    }
  q = km_quat_normalize (q);
  if (q.w < 0)
    q = (KmQuat) { -q.w, -q.x, -q.y, -q.z };
  return q;
}

/* The angle of the rotation that takes a to b, in [0, π]. */
double
km_mat3_rotation_angle (const KmMat3 *a,
                        const KmMat3 *b)
{
  KmVec3 e = km_mat3_rotation_error (a, b);

  return km_vec3_length (e);
}

/* The rotation vector e (axis · angle, world frame) with target = exp([e]) · current. */
KmVec3
km_mat3_rotation_error (const KmMat3 *current,
                        const KmMat3 *target)
{
  KmMat3 ct, d;
  KmQuat q;
  KmVec3 v;
  double s, angle;

  km_mat3_transpose (current, &ct);
  km_mat3_mul (target, &ct, &d);
  q = km_mat3_to_quat (&d);
  v = km_vec3 (q.x, q.y, q.z);
  s = km_vec3_length (v);
  if (s < 1e-300)
    return KM_VEC3_ZERO;
  angle = 2.0 * atan2 (s, q.w);
  return km_vec3_scale (v, angle / s);
}

double
km_quat_length (KmQuat q)
{
  return sqrt (q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
}

KmQuat
km_quat_normalize (KmQuat q)
{
  double n = km_quat_length (q);

  if (n <= 0.0 || !isfinite (n))
    return KM_QUAT_IDENTITY;
  return (KmQuat) { q.w / n, q.x / n, q.y / n, q.z / n };
}

KmQuat
km_quat_mul (KmQuat a,
             KmQuat b)
{
  return (KmQuat) {
    a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
    a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
    a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
    a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
  };
}

KmQuat
km_quat_conjugate (KmQuat q)
{
  return (KmQuat) { q.w, -q.x, -q.y, -q.z };
}

KmQuat
km_quat_from_axis_angle (KmVec3 axis,
                         double angle)
{
  double s = sin (angle / 2);
  KmVec3 n = km_vec3_normalize (axis);

  return (KmQuat) { cos (angle / 2), n.x * s, n.y * s, n.z * s };
}

void
km_quat_to_axis_angle (KmQuat  q,
                       KmVec3 *axis,
                       double *angle)
{
  double s;

  q = km_quat_normalize (q);
  if (q.w < 0)
    q = (KmQuat) { -q.w, -q.x, -q.y, -q.z };
  s = sqrt (q.x * q.x + q.y * q.y + q.z * q.z);
  if (s < 1e-15)
    {
      *axis = km_vec3 (1, 0, 0);
      *angle = 0.0;
      return;
    }
  *axis = km_vec3 (q.x / s, q.y / s, q.z / s);
  *angle = 2.0 * atan2 (s, q.w);
}

KmQuat
km_quat_from_euler_xyz (KmVec3 e)
{
  KmQuat qx = { cos (e.x / 2), sin (e.x / 2), 0, 0 };
  KmQuat qy = { cos (e.y / 2), 0, sin (e.y / 2), 0 };
  KmQuat qz = { cos (e.z / 2), 0, 0, sin (e.z / 2) };

  return km_quat_mul (km_quat_mul (qx, qy), qz);
}

KmVec3
km_quat_to_euler_xyz (KmQuat q)
{
  KmMat3 m;

  km_mat3_from_quat (km_quat_normalize (q), &m);
  return km_mat3_to_euler_xyz (&m);
}

KmQuat
km_quat_slerp (KmQuat a,
               KmQuat b,
               double t)
{
  double d = a.w * b.w + a.x * b.x + a.y * b.y + a.z * b.z;
  double wa, wb;

  /* Shortest arc: q and -q are the same rotation. */
  if (d < 0)
    {
      b = (KmQuat) { -b.w, -b.x, -b.y, -b.z };
      d = -d;
    }
  if (d > 0.9995)
    {
      wa = 1.0 - t;
      wb = t;
    }
  else
    {
      double theta = acos (CLAMP (d, -1.0, 1.0));
      double s = sin (theta);

      wa = sin ((1.0 - t) * theta) / s;
      wb = sin (t * theta) / s;
    }
  return km_quat_normalize ((KmQuat) { wa * a.w + wb * b.w, wa * a.x + wb * b.x,
                                       wa * a.y + wb * b.y, wa * a.z + wb * b.z });
}

double
km_quat_angle_between (KmQuat a,
                       KmQuat b)
{
  KmQuat d = km_quat_mul (km_quat_conjugate (km_quat_normalize (a)), km_quat_normalize (b));
  double s = sqrt (d.x * d.x + d.y * d.y + d.z * d.z);

  return 2.0 * atan2 (s, fabs (d.w));
}

void
km_quat_to_versor (KmQuat q,
                   versor out)
{
  out[0] = (float) q.x;
  out[1] = (float) q.y;
  out[2] = (float) q.z;
  out[3] = (float) q.w;
}

KmQuat
km_quat_from_versor (const versor v)
{
  return (KmQuat) { v[3], v[0], v[1], v[2] };
}

void
km_transform_identity (KmTransform *out)
{
  km_mat3_identity (&out->rot);
  out->pos = KM_VEC3_ZERO;
}

void
km_transform_mul (const KmTransform *a,
                  const KmTransform *b,
                  KmTransform       *out)
{
  KmTransform r;

  km_mat3_mul (&a->rot, &b->rot, &r.rot);
  r.pos = km_transform_apply (a, b->pos);
  *out = r;
}

void
km_transform_inverse (const KmTransform *a,
                      KmTransform       *out)
{
  KmTransform r;

  km_mat3_transpose (&a->rot, &r.rot);
  r.pos = km_vec3_scale (km_mat3_mul_vec3 (&r.rot, a->pos), -1.0);
  *out = r;
}

void
km_transform_from_pos_quat (KmVec3       pos,
                            KmQuat       rot,
                            KmTransform *out)
{
  km_mat3_from_quat (km_quat_normalize (rot), &out->rot);
  out->pos = pos;
}

void
km_transform_to_mat4 (const KmTransform *t,
                      mat4               out)
{
  /* cglm is column-major: out[column][row]. */
  for (int c = 0; c < 3; c++)
    {
      for (int r = 0; r < 3; r++)
        out[c][r] = (float) t->rot.m[r][c];
      out[c][3] = 0.0f;
    }
  out[3][0] = (float) t->pos.x;
  out[3][1] = (float) t->pos.y;
  out[3][2] = (float) t->pos.z;
  out[3][3] = 1.0f;
}

double
km_deg_to_rad (double deg)
{
  return deg * (G_PI / 180.0);
}

double
km_rad_to_deg (double rad)
{
  return rad * (180.0 / G_PI);
}
