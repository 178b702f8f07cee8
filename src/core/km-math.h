/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <math.h>
#include <glib.h>
#include <cglm/cglm.h>

G_BEGIN_DECLS

/*
 * Conventions (every other file relies on these; change nothing here lightly):
 *
 * - Kinematics run in double precision. cglm is single precision, which is too coarse for a
 *   solver that meets positions to 1e-6 m at arm's length, so the core keeps its own small
 *   double types and converts to cglm (km_transform_to_mat4) only for drawing.
 * - KmVec3 is a column vector; KmMat3 is row-major: m[r][c]. A rotation matrix maps local
 *   coordinates to parent coordinates: p_parent = R · p_local + t.
 * - KmQuat is stored w, x, y, z, the order every Kinema file writes ([w, x, y, z]). cglm's
 *   `versor` is x, y, z, w: use km_quat_to_versor / km_quat_from_versor at that boundary.
 * - Euler XYZ is intrinsic: rotate about X, then about the rotated Y, then about the twice
 *   rotated Z, so R = Rx(x) · Ry(y) · Rz(z) (scipy's from_euler ('XYZ', ...)). Radians,
 *   except where a file format says degrees.
 * - Axis-angle is a unit axis and an angle in radians (right-handed).
 * - A KmTransform is a rigid pose: rotation then translation, T · p = R p + t.
 *   km_transform_mul (a, b) is a · b: first b, then a (parent · child).
 */

typedef struct
{
  double x, y, z;
} KmVec3;

typedef struct
{
  double w, x, y, z;
} KmQuat;

typedef struct
{
  double m[3][3];
} KmMat3;

typedef struct
{
  KmMat3 rot;
  KmVec3 pos;
} KmTransform;

#define KM_VEC3_ZERO ((KmVec3) { 0.0, 0.0, 0.0 })
#define KM_QUAT_IDENTITY ((KmQuat) { 1.0, 0.0, 0.0, 0.0 })

static inline KmVec3
km_vec3 (double x, double y, double z)
{
  return (KmVec3) { x, y, z };
}

static inline KmVec3
km_vec3_add (KmVec3 a, KmVec3 b)
{
  return (KmVec3) { a.x + b.x, a.y + b.y, a.z + b.z };
}

static inline KmVec3
km_vec3_sub (KmVec3 a, KmVec3 b)
{
  return (KmVec3) { a.x - b.x, a.y - b.y, a.z - b.z };
}

static inline KmVec3
km_vec3_scale (KmVec3 a, double s)
{
  return (KmVec3) { a.x * s, a.y * s, a.z * s };
}

static inline double
km_vec3_dot (KmVec3 a, KmVec3 b)
{
  return a.x * b.x + a.y * b.y + a.z * b.z;
}

static inline KmVec3
km_vec3_cross (KmVec3 a, KmVec3 b)
{
  return (KmVec3) { a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x };
}

static inline double
km_vec3_length (KmVec3 a)
{
  return sqrt (km_vec3_dot (a, a));
}

static inline gboolean
km_vec3_is_finite (KmVec3 a)
{
  return isfinite (a.x) && isfinite (a.y) && isfinite (a.z);
}

static inline KmVec3
km_mat3_mul_vec3 (const KmMat3 *m, KmVec3 v)
{
  return (KmVec3) {
    m->m[0][0] * v.x + m->m[0][1] * v.y + m->m[0][2] * v.z,
    m->m[1][0] * v.x + m->m[1][1] * v.y + m->m[1][2] * v.z,
    m->m[2][0] * v.x + m->m[2][1] * v.y + m->m[2][2] * v.z,
  };
}

/* Rᵀ · v: a parent-frame vector expressed in the local frame. */
static inline KmVec3
km_mat3_transpose_mul_vec3 (const KmMat3 *m, KmVec3 v)
{
  return (KmVec3) {
    m->m[0][0] * v.x + m->m[1][0] * v.y + m->m[2][0] * v.z,
    m->m[0][1] * v.x + m->m[1][1] * v.y + m->m[2][1] * v.z,
    m->m[0][2] * v.x + m->m[1][2] * v.y + m->m[2][2] * v.z,
  };
}

static inline KmVec3
km_transform_apply (const KmTransform *t, KmVec3 p)
{
  return km_vec3_add (km_mat3_mul_vec3 (&t->rot, p), t->pos);
}

/* @a scaled to unit length; zero for a zero or non-finite @a. Robust for any finite
 * magnitude: scaled by its largest component before squaring, so [0,0,1e200] and
 * [0,0,1e-170] (whose squares overflow or underflow) give [0,0,1]. */
KmVec3      km_vec3_normalize            (KmVec3             a);
/* Every loader's axis check: TRUE with @a's direction in @unit (km_vec3_normalize())
 * when @a is finite and not zero, however large or small; FALSE otherwise. */
gboolean    km_vec3_direction            (KmVec3             a,
                                          KmVec3            *unit);

void        km_mat3_identity             (KmMat3            *out);
void        km_mat3_mul                  (const KmMat3      *a,
                                          const KmMat3      *b,
                                          KmMat3            *out);
void        km_mat3_transpose            (const KmMat3      *a,
                                          KmMat3            *out);
gboolean    km_mat3_inverse              (const KmMat3      *a,
                                          KmMat3            *out);
void        km_mat3_from_axis_angle      (KmVec3             axis,
                                          double             angle,
                                          KmMat3            *out);
void        km_mat3_from_euler_xyz       (KmVec3             euler,
                                          KmMat3            *out);
KmVec3      km_mat3_to_euler_xyz         (const KmMat3      *m);
void        km_mat3_from_quat            (KmQuat             q,
                                          KmMat3            *out);
KmQuat      km_mat3_to_quat              (const KmMat3      *m);
gboolean    km_mat3_is_rotation          (const KmMat3      *m,
                                          double             tolerance);
double      km_mat3_rotation_angle       (const KmMat3      *a,
                                          const KmMat3      *b);
KmVec3      km_mat3_rotation_error       (const KmMat3      *current,
                                          const KmMat3      *target);

double      km_quat_length               (KmQuat             q);
KmQuat      km_quat_normalize            (KmQuat             q);
KmQuat      km_quat_mul                  (KmQuat             a,
                                          KmQuat             b);
KmQuat      km_quat_conjugate            (KmQuat             q);
KmQuat      km_quat_from_axis_angle      (KmVec3             axis,
                                          double             angle);
void        km_quat_to_axis_angle        (KmQuat             q,
                                          KmVec3            *axis,
                                          double            *angle);
KmQuat      km_quat_from_euler_xyz       (KmVec3             euler);
KmVec3      km_quat_to_euler_xyz         (KmQuat             q);
KmQuat      km_quat_slerp                (KmQuat             a,
                                          KmQuat             b,
                                          double             t);
double      km_quat_angle_between        (KmQuat             a,
                                          KmQuat             b);
void        km_quat_to_versor            (KmQuat             q,
                                          versor             out);
KmQuat      km_quat_from_versor          (const versor       v);

void        km_transform_identity        (KmTransform       *out);
void        km_transform_mul             (const KmTransform *a,
                                          const KmTransform *b,
                                          KmTransform       *out);
void        km_transform_inverse         (const KmTransform *a,
                                          KmTransform       *out);
void        km_transform_from_pos_quat   (KmVec3             pos,
                                          KmQuat             rot,
                                          KmTransform       *out);
void        km_transform_to_mat4         (const KmTransform *t,
                                          mat4               out);

double      km_deg_to_rad                (double             deg);
double      km_rad_to_deg                (double             rad);

G_END_DECLS
