/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

/* Choreonoid body files in the styles real models use (tests/data/body-styles/): format
 * 1.0 and 2.0, camelCase and snake_case, degrees and radians, anchors and merge keys,
 * devices, SubBody and ContinuousTrack nodes, mesh resources with units and axes. */

#include "config.h"

#include <math.h>
#include <string.h>

#include "km-body.h"
#include "km-error.h"

#include "test-util.h"

#define DEG (G_PI / 180.0)
#define EPS 1e-6
#define assert_vec3(v, x, y, z) test_util_assert_vec3 ((v), (x), (y), (z), EPS)

static KmSkeleton *
load_style (const char  *name,
            GPtrArray   *warnings,
            GError     **error)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "body-styles", name, NULL);
  KmSkeleton *skel;
  int sniff;

  skel = test_util_body_load_file (path, &sniff, warnings, error);
  g_assert_cmpint (sniff, ==, 95);
  return skel;
}

static KmSkeleton *
load_ok (const char *name,
         GPtrArray  *warnings)
{
  g_autoptr(GError) error = NULL;
  KmSkeleton *skel = load_style (name, warnings, &error);

  g_assert_no_error (error);
  g_assert_nonnull (skel);
  return skel;
}

static KmShape * const *
shapes (const KmSkeleton *skel,
        const char       *name,
        guint             expected)
{
  guint n = 0;
  KmShape * const *s = km_skeleton_get_shapes (skel, km_skeleton_find_joint (skel, name), &n);

  if (n != expected)
    g_error ("joint %s: %u shapes, expected %u", name, n, expected);
  return s;
}

static void
assert_revolute (const KmSkeleton *skel,
                 const char       *name,
                 KmVec3            axis,
                 gboolean          limited,
                 double            lower,
                 double            upper)
{
  const KmJoint *j = test_util_joint (skel, name);

  g_assert_cmpint (j->type, ==, KM_JOINT_REVOLUTE);
  assert_vec3 (j->axis, axis.x, axis.y, axis.z);
  g_assert_cmpint (j->limits[0].limited, ==, limited);
  if (limited)
    {
      g_assert_cmpfloat_with_epsilon (j->limits[0].min, lower, EPS);
      g_assert_cmpfloat_with_epsilon (j->limits[0].max, upper, EPS);
    }
}

/* A point of a shape's own frame in its joint's frame. */
static KmVec3
shape_point (const KmShape *s,
             KmVec3         p)
{
  KmVec3 scaled = km_vec3 (p.x * s->scale.x, p.y * s->scale.y, p.z * s->scale.z);

  return km_transform_apply (&s->transform, scaled);
}

/* The bounding box of a mesh shape's vertices in its joint's frame. */
static void
mesh_bounds (const KmShape *s,
             KmVec3        *lo,
             KmVec3        *hi)
{
  const float *v = km_mesh_get_vertices (s->mesh);
  guint n = km_mesh_get_n_vertices (s->mesh);

  g_assert_cmpint (s->type, ==, KM_SHAPE_MESH);
  *lo = km_vec3 (INFINITY, INFINITY, INFINITY);
  *hi = km_vec3 (-INFINITY, -INFINITY, -INFINITY);
  for (guint i = 0; i < n; i++)
    {
      KmVec3 p = shape_point (s, km_vec3 (v[i * 3], v[i * 3 + 1], v[i * 3 + 2]));

      lo->x = MIN (lo->x, p.x), lo->y = MIN (lo->y, p.y), lo->z = MIN (lo->z, p.z);
      hi->x = MAX (hi->x, p.x), hi->y = MAX (hi->y, p.y), hi->z = MAX (hi->z, p.z);
    }
}

static void
assert_color (const KmShape *s,
              double         r,
              double         g,
              double         b,
              double         a)
{
  g_assert_cmpfloat_with_epsilon (s->color.r, r, 1e-6);
  g_assert_cmpfloat_with_epsilon (s->color.g, g, 1e-6);
  g_assert_cmpfloat_with_epsilon (s->color.b, b, 1e-6);
  g_assert_cmpfloat_with_epsilon (s->color.a, a, 1e-6);
}

/* Format 1.0, camelCase, degrees, RigidBody/Visual elements, resources with `node`. */
static void
test_arm_v1 (void)
{
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(KmSkeleton) skel = load_ok ("arm-v1-camel.body", warnings);
  static const char * const names[] = { "J1", "J2", "J3", "J4", "J5", "J6", "J7" };
  static const double range[] = { 177, 91, 174, 137, 255, 165, 255 };
  static const KmVec3 axes[] = { { 0, 0, 1 }, { 0, 1, 0 }, { 0, 0, 1 }, { 0, -1, 0 },
                                 { 0, 0, 1 }, { 1, 0, 0 }, { 0, 0, 1 } };
  KmShape * const *s;
  KmMat3 r;

  g_assert_cmpuint (km_skeleton_get_n_joints (skel), ==, 8);
  g_assert_cmpuint (km_skeleton_get_n_dof (skel), ==, 7);
  g_assert_false (km_skeleton_has_free_root (skel));
  g_assert_cmpstr (km_skeleton_get_root_name (skel), ==, "BASE");
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      assert_revolute (skel, names[i], axes[i], TRUE, -range[i] * DEG, range[i] * DEG);
      g_assert_cmpint (test_util_joint (skel, names[i])->joint_id, ==, (int) i);
    }
  assert_vec3 (test_util_joint (skel, "J1")->offset, 0, 0, 0.2);
  /* A list of translations is summed. */
  assert_vec3 (test_util_joint (skel, "J3")->offset, 0, 0, 0.45);
  /* [[1,0,0,90],[0,0,1,90]] = Rx(90°)·Rz(90°): X goes to Z, Y to -X. */
  g_assert_true (test_util_joint (skel, "J5")->has_rotation);
  km_mat3_from_quat (test_util_joint (skel, "J5")->rotation, &r);
  assert_vec3 (km_mat3_mul_vec3 (&r, km_vec3 (1, 0, 0)), 0, 0, 1);
  assert_vec3 (km_mat3_mul_vec3 (&r, km_vec3 (0, 1, 0)), -1, 0, 0);

  /* STL under RigidBody/Visual/resource. */
  s = shapes (skel, "BASE", 1);
  g_assert_cmpint (s[0]->type, ==, KM_SHAPE_MESH);
  g_assert_cmpuint (km_mesh_get_n_triangles (s[0]->mesh), ==, 2);
  /* RigidBody > Transform(0,0,0.1; Rx 90°) > Shape: the +Y cylinder stands along Z. */
  s = shapes (skel, "J1", 1);
  g_assert_cmpint (s[0]->type, ==, KM_SHAPE_CYLINDER);
  g_assert_cmpfloat_with_epsilon (s[0]->radius, 0.06, EPS);
  g_assert_cmpfloat_with_epsilon (s[0]->height, 0.2, EPS);
  assert_vec3 (shape_point (s[0], km_vec3 (0, 0.1, 0)), 0, 0, 0.2);
  assert_color (s[0], 0.9, 0.9, 0.9, 1);
  /* Resource with node: the DEF'd Transform of the VRML file, its colour kept. */
  s = shapes (skel, "J2", 1);
  g_assert_cmpint (s[0]->type, ==, KM_SHAPE_BOX);
  assert_vec3 (s[0]->size, 0.08, 0.08, 0.3);
  assert_vec3 (shape_point (s[0], KM_VEC3_ZERO), 0, 0, 0.15);
  assert_color (s[0], 0.2, 0.4, 0.8, 1);
  /* ForceSensor: no shape; Visual resource shorthand: the OBJ quad. */
  s = shapes (skel, "J7", 1);
  g_assert_cmpuint (km_mesh_get_n_triangles (s[0]->mesh), ==, 2);
  test_util_assert_warning (warnings, "ForceSensor devices are not modelled");
  g_assert_cmpuint (warnings->len, ==, 1);
}

/* Anchors, aliases, merge keys, import (mapping and list), elements keyed by type. */
static void
test_humanoid_anchors (void)
{
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(KmSkeleton) skel = load_ok ("humanoid-anchors.body", warnings);
  KmShape * const *s;

  g_assert_cmpuint (km_skeleton_get_n_joints (skel), ==, 6);
  g_assert_cmpuint (km_skeleton_get_n_dof (skel), ==, 4);
  g_assert_true (km_skeleton_has_free_root (skel));
  g_assert_cmpstr (km_skeleton_get_root_name (skel), ==, "WAIST");
  assert_vec3 (test_util_joint (skel, "WAIST")->offset, 0, 0, 0.25);
  /* jointRange: 150 (one number) through a merge key and through import. */
  assert_revolute (skel, "R_HIP_Y", km_vec3 (0, 0, -1), TRUE, -150 * DEG, 150 * DEG);
  assert_revolute (skel, "R_HIP_R", km_vec3 (1, 0, 0), TRUE, -150 * DEG, 150 * DEG);
  /* The link's own range wins over the imported one; the axis letter in lower case. */
  assert_revolute (skel, "R_KNEE_P", km_vec3 (0, -1, 0), TRUE, 0, 130 * DEG);
  assert_revolute (skel, "L_HIP_Y", km_vec3 (0, 0, -1), TRUE, -150 * DEG, 150 * DEG);
  g_assert_cmpint (test_util_joint (skel, "HEAD")->type, ==, KM_JOINT_FIXED);
  /* jointId: -1 means no id (was an error). */
  g_assert_cmpint (test_util_joint (skel, "HEAD")->joint_id, ==, -1);
  g_assert_cmpint (test_util_joint (skel, "R_KNEE_P")->joint_id, ==, 2);

  s = shapes (skel, "WAIST", 1);
  g_assert_cmpint (s[0]->type, ==, KM_SHAPE_BOX);
  assert_color (s[0], 0.8, 0, 0, 0.5);
  s = shapes (skel, "R_HIP_Y", 1);
  assert_vec3 (s[0]->size, 0.02, 0.04, 0.03);
  assert_vec3 (shape_point (s[0], KM_VEC3_ZERO), 0, 0, -0.01);
  assert_color (s[0], 0.1, 0.1, 0.1, 1);
  s = shapes (skel, "R_HIP_R", 1);
  assert_vec3 (shape_point (s[0], KM_VEC3_ZERO), 0, 0, 0);
  /* `<<: *SERVO` plus a translation of its own. */
  s = shapes (skel, "R_KNEE_P", 1);
  g_assert_cmpint (s[0]->type, ==, KM_SHAPE_BOX);
  assert_vec3 (shape_point (s[0], KM_VEC3_ZERO), 0, 0, -0.03);
  /* The camera's sphere is drawn where the camera is. */
  s = shapes (skel, "HEAD", 1);
  g_assert_cmpint (s[0]->type, ==, KM_SHAPE_SPHERE);
  assert_vec3 (shape_point (s[0], KM_VEC3_ZERO), 0.03, 0, 0);
  g_assert_cmpuint (warnings->len, ==, 1);
}

/* Format 1.0 in radians: nothing converted; slide joints in metres; infinite ranges. */
static void
test_radian_v1 (void)
{
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(KmSkeleton) skel = load_ok ("radian-v1.body", warnings);
  const KmJoint *lift;
  KmMat3 r;

  g_assert_cmpuint (km_skeleton_get_n_joints (skel), ==, 5);
  g_assert_cmpuint (km_skeleton_get_n_dof (skel), ==, 4);
  lift = test_util_joint (skel, "LIFT");
  g_assert_cmpint (lift->type, ==, KM_JOINT_PRISMATIC);
  g_assert_true (lift->limits[0].limited);
  g_assert_cmpfloat_with_epsilon (lift->limits[0].min, 0, EPS);
  g_assert_cmpfloat_with_epsilon (lift->limits[0].max, 0.2, EPS);
  assert_revolute (skel, "PAN", km_vec3 (0, 0, 1), TRUE, -1.5, 1.5);
  km_mat3_from_quat (test_util_joint (skel, "PAN")->rotation, &r);
  assert_vec3 (km_mat3_mul_vec3 (&r, km_vec3 (1, 0, 0)), 0, 1, 0);
  assert_revolute (skel, "WHEEL_L", km_vec3 (0, 1, 0), FALSE, 0, 0);
  /* [ -.inf, .inf ] (was an error: “expected a number”). */
  assert_revolute (skel, "WHEEL_R", km_vec3 (0, 1, 0), FALSE, 0, 0);
  shapes (skel, "WHEEL_L", 1);
  g_assert_cmpuint (warnings->len, ==, 0);
}

/* Format 2.0, snake_case: pseudo continuous tracks, Extrusion and ElevationGrid in
 * snake_case keys, devices with shapes, Collision not drawn. */
static void
test_tank_v2 (void)
{
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(KmSkeleton) skel = load_ok ("tank-v2.body", warnings);
  KmShape * const *s, * const *s2;
  KmVec3 lo, hi;

  g_assert_cmpuint (km_skeleton_get_n_joints (skel), ==, 6);
  g_assert_cmpuint (km_skeleton_get_n_dof (skel), ==, 2);
  assert_revolute (skel, "TURRET_Y", km_vec3 (0, 0, -1), FALSE, 0, 0);
  assert_revolute (skel, "TURRET_P", km_vec3 (0, -1, 0), TRUE, -10 * DEG, 45 * DEG);
  g_assert_cmpint (test_util_joint (skel, "TRACK_L")->type, ==, KM_JOINT_FIXED);
  g_assert_cmpint (test_util_joint (skel, "TRACK_R")->type, ==, KM_JOINT_FIXED);
  g_assert_cmpint (test_util_joint (skel, "TURRET_P")->joint_id, ==, 1);

  s = shapes (skel, "CHASSIS", 1);   /* the Visual box; the Collision box is not drawn */
  assert_color (s[0], 0, 0.6, 0, 1);
  shapes (skel, "TURRET_Y", 2);
  shapes (skel, "TURRET_P", 2);      /* barrel and the spot light's housing */

  /* The snake_case cross_section is used (was ignored: the default ±1 square). */
  s = shapes (skel, "TRACK_L", 1);
  mesh_bounds (s[0], &lo, &hi);
  assert_vec3 (lo, -0.3, -0.04, -0.08);
  assert_vec3 (hi, 0.3, 0.04, 0.08);
  assert_color (s[0], 0.2, 0.2, 0.2, 1);
  /* The aliased elements share their mesh. */
  s2 = shapes (skel, "TRACK_R", 1);
  g_assert_true (s2[0]->mesh == s[0]->mesh);

  /* snake_case ElevationGrid (was skipped: “expected xDimension”). */
  s = shapes (skel, "GROUND", 1);
  g_assert_cmpuint (km_mesh_get_n_vertices (s[0]->mesh), ==, 6);
  g_assert_cmpuint (km_mesh_get_n_triangles (s[0]->mesh), ==, 4);
  mesh_bounds (s[0], &lo, &hi);
  assert_vec3 (lo, 0, 0, 0);
  assert_vec3 (hi, 1.0, 0.2, 0.25);

  test_util_assert_warning (warnings, "tank-v2.body:108:17: a pseudo continuous track");
  test_util_assert_warning (warnings, "tank-v2.body:131:16: a pseudo continuous track");
  test_util_assert_warning (warnings, "SpotLight devices are not modelled");
  for (guint i = 0; i < warnings->len; i++)
    g_assert_null (strstr (g_ptr_array_index (warnings, i), "skipped)"));
}

/* Choreonoid 1.x: the `crawler` joint type (was an error), camelCase Extrusion with an
 * orientation in degrees (was ignored). */
static void
test_legacy_crawler (void)
{
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(KmSkeleton) skel = load_ok ("legacy-crawler.body", warnings);
  KmShape * const *s;
  KmVec3 lo, hi;

  g_assert_cmpuint (km_skeleton_get_n_joints (skel), ==, 3);
  g_assert_cmpint (test_util_joint (skel, "CRAWLER_L")->type, ==, KM_JOINT_FIXED);
  assert_vec3 (test_util_joint (skel, "CRAWLER_L")->offset, 0, 0.13, 0);
  /* The outline (x ±0.1, z ±0.03) turned 90° about the spine (Y): x ±0.03, z ±0.1. */
  s = shapes (skel, "CRAWLER_L", 1);
  mesh_bounds (s[0], &lo, &hi);
  assert_vec3 (lo, -0.03, -0.03, -0.1);
  assert_vec3 (hi, 0.03, 0.03, 0.1);
  s = shapes (skel, "FIELD", 1);
  g_assert_cmpuint (km_mesh_get_n_triangles (s[0]->mesh), ==, 2);
  test_util_assert_warning (warnings, "legacy-crawler.body:19:16: a pseudo continuous");
  g_assert_cmpuint (warnings->len, ==, 1);
}

/* SubBody links (were an error): prefixes, suffixes, joint id offsets, the root's keys
 * from the SubBody node, resources relative to the sub-body's own file. */
static void
test_sub_body (void)
{
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(KmSkeleton) skel = load_ok ("sub-body.body", warnings);
  const KmJoint *base;
  KmShape * const *s;
  KmMat3 r;

  g_assert_cmpuint (km_skeleton_get_n_joints (skel), ==, 10);
  g_assert_cmpuint (km_skeleton_get_n_dof (skel), ==, 7);
  g_assert_cmpstr (km_skeleton_get_root_name (skel), ==, "BASE");
  base = test_util_joint (skel, "R_ARM_BASE");
  g_assert_cmpint (base->type, ==, KM_JOINT_FIXED);   /* free in its own file */
  g_assert_cmpstr (km_skeleton_get_joint (skel, base->parent)->name, ==, "BASE");
  assert_vec3 (base->offset, 0.1, -0.15, 0.1);
  km_mat3_from_quat (base->rotation, &r);
  assert_vec3 (km_mat3_mul_vec3 (&r, km_vec3 (1, 0, 0)), 0, -1, 0);
  g_assert_cmpint (test_util_joint (skel, "FLIPPER")->joint_id, ==, 0);
  g_assert_cmpint (test_util_joint (skel, "R_SHOULDER")->joint_id, ==, 1);
  g_assert_cmpint (test_util_joint (skel, "R_ELBOW")->joint_id, ==, 2);
  g_assert_cmpint (test_util_joint (skel, "R_FINGER")->joint_id, ==, 3);
  g_assert_cmpint (test_util_joint (skel, "L_SHOULDER_2")->joint_id, ==, 4);
  g_assert_cmpint (test_util_joint (skel, "L_FINGER_2")->joint_id, ==, 6);
  g_assert_cmpstr (km_skeleton_get_joint (skel,
                                          test_util_joint (skel, "L_ELBOW_2")->parent)->name,
                   ==, "L_SHOULDER_2");
  assert_vec3 (test_util_joint (skel, "L_ARM_BASE_2")->offset, 0.1, 0.15, 0.1);
  g_assert_false (test_util_joint (skel, "L_ARM_BASE_2")->has_rotation);
  assert_revolute (skel, "R_SHOULDER", km_vec3 (0, 0, -1), FALSE, 0, 0);
  assert_revolute (skel, "L_ELBOW_2", km_vec3 (0, 1, 0), TRUE, -150 * DEG, 150 * DEG);
  g_assert_cmpint (test_util_joint (skel, "R_FINGER")->type, ==, KM_JOINT_PRISMATIC);
  g_assert_cmpfloat_with_epsilon (test_util_joint (skel, "R_FINGER")->limits[0].max, 0.04, EPS);
  s = shapes (skel, "R_ARM_BASE", 1);
  g_assert_cmpint (s[0]->type, ==, KM_SHAPE_CYLINDER);
  /* "link.wrl" is found next to parts/gripper-arm.body. */
  s = shapes (skel, "L_SHOULDER_2", 1);
  g_assert_cmpint (s[0]->type, ==, KM_SHAPE_BOX);
  g_assert_cmpuint (warnings->len, ==, 0);
}

static void
test_sub_body_loop (void)
{
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = load_style ("sub-body-loop.body", warnings, &error);

  g_assert_null (skel);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_INVALID);
  g_assert_true (g_str_has_suffix (error->message, "sub-body-loop.body:8:10: the sub-body "
                                   "“./sub-body-loop.body” includes itself"));
}

/* A ContinuousTrack node (was an error) is one fixed link; Skip links are left out. */
static void
test_continuous_track (void)
{
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(KmSkeleton) skel = load_ok ("continuous-track.body", warnings);
  KmShape * const *s;

  g_assert_cmpuint (km_skeleton_get_n_joints (skel), ==, 3);
  g_assert_cmpint (km_skeleton_find_joint (skel, "UNUSED"), ==, -1);
  g_assert_cmpint (test_util_joint (skel, "TRACK")->type, ==, KM_JOINT_FIXED);
  assert_vec3 (test_util_joint (skel, "TRACK")->offset, 0, 0.2, 0);
  s = shapes (skel, "TRACK", 1);
  g_assert_cmpint (s[0]->type, ==, KM_SHAPE_BOX);
  assert_revolute (skel, "ARM", km_vec3 (0, 0, 1), TRUE, -45 * DEG, 45 * DEG);
  test_util_assert_warning (warnings, "continuous-track.body:15:11: a continuous track is "
                                      "read as one fixed link");
}

/* Every primitive, face sets, scale, meta nodes, and mesh resources with metadata. */
static void
test_shapes (void)
{
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(KmSkeleton) skel = load_ok ("shapes.body", warnings);
  static const KmShapeType frame_types[] = {
    KM_SHAPE_BOX, KM_SHAPE_SPHERE, KM_SHAPE_CAPSULE, KM_SHAPE_CONE, KM_SHAPE_CYLINDER,
    KM_SHAPE_MESH, KM_SHAPE_MESH, KM_SHAPE_CYLINDER,
  };
  KmShape * const *s;
  KmVec3 lo, hi;

  g_assert_cmpuint (km_skeleton_get_n_joints (skel), ==, 2);
  s = shapes (skel, "FRAME", G_N_ELEMENTS (frame_types));
  for (guint i = 0; i < G_N_ELEMENTS (frame_types); i++)
    g_assert_cmpint (s[i]->type, ==, frame_types[i]);
  assert_vec3 (shape_point (s[1], KM_VEC3_ZERO), 0.3, 0, 0);
  /* The capsule turned by Rx(90°): its +Y end points along +Z. */
  assert_vec3 (shape_point (s[2], km_vec3 (0, 0.05, 0)), 0, 0.3, 0.05);
  g_assert_cmpfloat_with_epsilon (s[3]->height, 0.06, EPS);
  /* scale [1, 2, 1]: the disc's radius doubles along Y. */
  assert_vec3 (shape_point (s[4], km_vec3 (0, 0, 0.1)), -0.3, 0, 0.1);
  assert_vec3 (shape_point (s[4], km_vec3 (0, 0.005, 0)), -0.3, 0.01, 0);
  g_assert_cmpuint (km_mesh_get_n_triangles (s[5]->mesh), ==, 2);   /* the -1-closed quad */
  g_assert_cmpuint (km_mesh_get_n_triangles (s[6]->mesh), ==, 1);
  assert_vec3 (shape_point (s[7], KM_VEC3_ZERO), 0.15, 0.15, 0.03);   /* the rotor */

  s = shapes (skel, "MESHES", 6);
  g_assert_cmpint (s[0]->type, ==, KM_SHAPE_BOX);
  assert_vec3 (shape_point (s[0], KM_VEC3_ZERO), 1, 0, 0.15);
  g_assert_cmpint (s[1]->type, ==, KM_SHAPE_MESH);
  /* A texture-only appearance keeps the mesh's own colour (was reset to grey). */
  g_assert_cmpint (s[2]->type, ==, KM_SHAPE_BOX);
  assert_color (s[2], 0.2, 0.4, 0.8, 1);
  /* A material colour replaces it. */
  assert_color (s[3], 1, 1, 0, 1);
  /* Millimetres, Y up: (0, 100, 0) mm ends at (0, 0, 0.1) m; both metadata spellings. */
  mesh_bounds (s[4], &lo, &hi);
  assert_vec3 (lo, 0, 0, 0);
  assert_vec3 (hi, 0.1, 0, 0.1);
  mesh_bounds (s[5], &lo, &hi);
  assert_vec3 (lo, 0, 0, 1);
  assert_vec3 (hi, 0.1, 0, 1.1);

  test_util_assert_warning (warnings, "RotorDevice devices are not modelled");
  test_util_assert_warning (warnings, "unknown element type “PropellerBlur”");
  g_assert_cmpuint (warnings->len, ==, 3);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/kinema/BodyStyles/arm-v1-camel", test_arm_v1);
  g_test_add_func ("/kinema/BodyStyles/humanoid-anchors", test_humanoid_anchors);
  g_test_add_func ("/kinema/BodyStyles/radian-v1", test_radian_v1);
  g_test_add_func ("/kinema/BodyStyles/tank-v2", test_tank_v2);
  g_test_add_func ("/kinema/BodyStyles/legacy-crawler", test_legacy_crawler);
  g_test_add_func ("/kinema/BodyStyles/sub-body", test_sub_body);
  g_test_add_func ("/kinema/BodyStyles/sub-body-loop", test_sub_body_loop);
  g_test_add_func ("/kinema/BodyStyles/continuous-track", test_continuous_track);
  g_test_add_func ("/kinema/BodyStyles/shapes", test_shapes);

  return g_test_run ();
}
