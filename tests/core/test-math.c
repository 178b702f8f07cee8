/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <math.h>

#include "km-math.h"

static void
assert_mat3_close (const KmMat3 *a,
                   const KmMat3 *b,
                   double        eps)
{
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      g_assert_cmpfloat_with_epsilon (a->m[i][j], b->m[i][j], eps);
}

/* Intrinsic XYZ means R = Rx · Ry · Rz: check against the product of elementary rotations. */
static void
test_euler_is_intrinsic_xyz (void)
{
  KmVec3 e = km_vec3 (0.3, -0.7, 1.1);
  KmMat3 rx, ry, rz, rxy, expected, got;

  km_mat3_from_axis_angle (km_vec3 (1, 0, 0), e.x, &rx);
  km_mat3_from_axis_angle (km_vec3 (0, 1, 0), e.y, &ry);
  km_mat3_from_axis_angle (km_vec3 (0, 0, 1), e.z, &rz);
  km_mat3_mul (&rx, &ry, &rxy);
  km_mat3_mul (&rxy, &rz, &expected);
  km_mat3_from_euler_xyz (e, &got);
  assert_mat3_close (&got, &expected, 1e-12);

  km_mat3_from_quat (km_quat_from_euler_xyz (e), &got);
  assert_mat3_close (&got, &expected, 1e-12);
}

/* scipy: Rotation.from_euler('XYZ', [90, 0, 45], degrees=True).as_quat() → x,y,z,w. */
static void
test_euler_reference_value (void)
{
  KmQuat q = km_quat_from_euler_xyz (km_vec3 (G_PI_2, 0, G_PI_4));

  g_assert_cmpfloat_with_epsilon (q.x, 0.65328148, 1e-8);
  g_assert_cmpfloat_with_epsilon (q.y, -0.27059805, 1e-8);
  g_assert_cmpfloat_with_epsilon (q.z, 0.27059805, 1e-8);
  g_assert_cmpfloat_with_epsilon (q.w, 0.65328148, 1e-8);
}

static void
test_round_trips (void)
{
  GRand *rand = g_rand_new_with_seed (42);

  for (int i = 0; i < 10000; i++)
    {
      KmVec3 e = km_vec3 (g_rand_double_range (rand, -G_PI, G_PI),
                          g_rand_double_range (rand, -G_PI_2, G_PI_2),
                          g_rand_double_range (rand, -G_PI, G_PI));
      KmMat3 m, m2;
      KmQuat q, q2;
      KmVec3 e2, axis;
      double angle;

      km_mat3_from_euler_xyz (e, &m);
      e2 = km_mat3_to_euler_xyz (&m);
      km_mat3_from_euler_xyz (e2, &m2);
      assert_mat3_close (&m, &m2, 1e-9);

      q = km_mat3_to_quat (&m);
      km_mat3_from_quat (q, &m2);
      assert_mat3_close (&m, &m2, 1e-12);

      q2 = km_quat_from_euler_xyz (e);
      g_assert_cmpfloat (km_quat_angle_between (q, q2), <, 1e-9);
      g_assert_cmpfloat (km_quat_angle_between (q, km_quat_from_euler_xyz (km_quat_to_euler_xyz (q))), <, 1e-9);

      km_quat_to_axis_angle (q, &axis, &angle);
      g_assert_cmpfloat (km_quat_angle_between (q, km_quat_from_axis_angle (axis, angle)), <, 1e-9);
    }
  g_rand_free (rand);
}

/* At cos(y) = 0 only x ± z is determined; the extraction must still reproduce the matrix. */
static void
test_gimbal_lock (void)
{
  const double ys[] = { G_PI_2, -G_PI_2 };

  for (guint i = 0; i < G_N_ELEMENTS (ys); i++)
    {
      KmMat3 m, m2;
      KmVec3 e;

      km_mat3_from_euler_xyz (km_vec3 (0.4, ys[i], -0.9), &m);
      e = km_mat3_to_euler_xyz (&m);
      g_assert_true (km_vec3_is_finite (e));
      km_mat3_from_euler_xyz (e, &m2);
      assert_mat3_close (&m, &m2, 1e-9);
    }
}

static void
test_slerp (void)
{
  KmQuat a = KM_QUAT_IDENTITY;
  KmQuat b = km_quat_from_axis_angle (km_vec3 (0, 0, 1), G_PI_2);
  KmQuat mid = km_quat_slerp (a, b, 0.5);
  KmQuat neg_b = { -b.w, -b.x, -b.y, -b.z };

  g_assert_cmpfloat_with_epsilon (km_quat_angle_between (mid, km_quat_from_axis_angle (km_vec3 (0, 0, 1), G_PI_4)), 0, 1e-12);
  /* Shortest arc: -b is the same rotation, so the midpoint must not go the long way round. */
  mid = km_quat_slerp (a, neg_b, 0.5);
  g_assert_cmpfloat_with_epsilon (km_quat_angle_between (mid, km_quat_from_axis_angle (km_vec3 (0, 0, 1), G_PI_4)), 0, 1e-12);
  g_assert_cmpfloat_with_epsilon (km_quat_angle_between (km_quat_slerp (a, b, 0), a), 0, 1e-12);
  g_assert_cmpfloat_with_epsilon (km_quat_angle_between (km_quat_slerp (a, b, 1), b), 0, 1e-12);
}

static void
test_rotation_error (void)
{
  KmMat3 a, b;
  KmVec3 e;

  km_mat3_from_axis_angle (km_vec3 (0, 1, 0), 0.2, &a);
  km_mat3_from_axis_angle (km_vec3 (0, 1, 0), 0.9, &b);
  e = km_mat3_rotation_error (&a, &b);
  g_assert_cmpfloat_with_epsilon (e.x, 0, 1e-12);
  g_assert_cmpfloat_with_epsilon (e.y, 0.7, 1e-12);
  g_assert_cmpfloat_with_epsilon (e.z, 0, 1e-12);
  g_assert_cmpfloat_with_epsilon (km_mat3_rotation_angle (&b, &a), 0.7, 1e-12);
}

static void
test_transform (void)
{
  KmTransform a, b, ab, inv, id;
  KmVec3 p;
  mat4 m;

  km_transform_from_pos_quat (km_vec3 (1, 2, 3), km_quat_from_axis_angle (km_vec3 (0, 0, 1), G_PI_2), &a);
  km_transform_from_pos_quat (km_vec3 (1, 0, 0), KM_QUAT_IDENTITY, &b);
  km_transform_mul (&a, &b, &ab);
  /* b's origin (1,0,0) turned 90° about Z is (0,1,0), then moved by (1,2,3). */
  g_assert_cmpfloat_with_epsilon (ab.pos.x, 1, 1e-12);
  g_assert_cmpfloat_with_epsilon (ab.pos.y, 3, 1e-12);
  g_assert_cmpfloat_with_epsilon (ab.pos.z, 3, 1e-12);

  km_transform_inverse (&a, &inv);
  km_transform_mul (&inv, &a, &id);
  p = km_transform_apply (&id, km_vec3 (5, 6, 7));
  g_assert_cmpfloat_with_epsilon (p.x, 5, 1e-12);
  g_assert_cmpfloat_with_epsilon (p.y, 6, 1e-12);
  g_assert_cmpfloat_with_epsilon (p.z, 7, 1e-12);

  km_transform_to_mat4 (&a, m);
  g_assert_cmpfloat_with_epsilon (m[3][0], 1, 1e-6);
  g_assert_cmpfloat_with_epsilon (m[0][1], 1, 1e-6); /* column 0 = image of X = +Y */
}

static void
test_mat3_inverse (void)
{
  KmMat3 a = { { { 2, -1, 0.5 }, { 0.3, 4, 1 }, { -1, 0.2, 3 } } }, inv, prod;
  KmMat3 singular = { { { 1, 2, 3 }, { 2, 4, 6 }, { 0, 1, 1 } } }, untouched = a;
  KmMat3 nan_m = { { { NAN, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } } };

  g_assert_true (km_mat3_inverse (&a, &inv));
  km_mat3_mul (&a, &inv, &prod);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      g_assert_cmpfloat_with_epsilon (prod.m[i][j], i == j ? 1.0 : 0.0, 1e-12);
  /* In place. */
  g_assert_true (km_mat3_inverse (&untouched, &untouched));
  g_assert_cmpfloat_with_epsilon (untouched.m[1][2], inv.m[1][2], 1e-15);
  /* Singular or not finite: FALSE, the output left alone. */
  untouched = a;
  g_assert_false (km_mat3_inverse (&singular, &untouched));
  g_assert_cmpfloat (untouched.m[0][0], ==, 2.0);
  g_assert_false (km_mat3_inverse (&nan_m, &untouched));
  g_assert_cmpfloat (untouched.m[0][0], ==, 2.0);
}

/* An axis of any finite magnitude has a direction: scaled by its largest component
 * before squaring, so neither 1e200² (overflow) nor 1e-170² (underflow) makes it zero;
 * only a zero or non-finite vector has none. */
static void
test_vec3_direction (void)
{
  const KmVec3 axes[] = { { 0, 0, 1e200 }, { 0, 0, 1e-170 }, { 0, 0, -4e-320 },
                          { 1e308, 0, 1e308 }, { 3, 4, 0 } };
  const KmVec3 units[] = { { 0, 0, 1 }, { 0, 0, 1 }, { 0, 0, -1 },
                           { G_SQRT2 / 2, 0, G_SQRT2 / 2 }, { 0.6, 0.8, 0 } };
  const KmVec3 none[] = { { 0, 0, 0 }, { 0, NAN, 1 }, { INFINITY, 0, 0 } };

  for (guint i = 0; i < G_N_ELEMENTS (axes); i++)
    {
      KmVec3 unit = KM_VEC3_ZERO;
      KmVec3 n = km_vec3_normalize (axes[i]);

      g_assert_true (km_vec3_direction (axes[i], &unit));
      g_assert_cmpfloat_with_epsilon (unit.x, units[i].x, 1e-15);
      g_assert_cmpfloat_with_epsilon (unit.y, units[i].y, 1e-15);
      g_assert_cmpfloat_with_epsilon (unit.z, units[i].z, 1e-15);
      g_assert_cmpfloat_with_epsilon (km_vec3_length (n), 1.0, 1e-15);
    }
  for (guint i = 0; i < G_N_ELEMENTS (none); i++)
    {
      KmVec3 unit;
      KmVec3 n = km_vec3_normalize (none[i]);

      g_assert_false (km_vec3_direction (none[i], &unit));
      g_assert_true (n.x == 0 && n.y == 0 && n.z == 0);
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/kinema/Math/euler-intrinsic-xyz", test_euler_is_intrinsic_xyz);
  g_test_add_func ("/kinema/Math/euler-reference", test_euler_reference_value);
  g_test_add_func ("/kinema/Math/round-trips", test_round_trips);
  g_test_add_func ("/kinema/Math/gimbal-lock", test_gimbal_lock);
  g_test_add_func ("/kinema/Math/slerp", test_slerp);
  g_test_add_func ("/kinema/Math/rotation-error", test_rotation_error);
  g_test_add_func ("/kinema/Math/transform", test_transform);
  g_test_add_func ("/kinema/Math/mat3-inverse", test_mat3_inverse);
  g_test_add_func ("/kinema/Math/vec3-direction", test_vec3_direction);

  return g_test_run ();
}
