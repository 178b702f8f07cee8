/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gstdio.h>

#include "km-body.h"
#include "km-body-item.h"
#include "km-body-writer.h"
#include "km-cnoid.h"
#include "km-error.h"
#include "km-format.h"
#include "km-skeleton-edit.h"
#include "km-urdf.h"
#include "km-urdf-writer.h"
#include "km-yaml.h"

#include "test-util.h"
#include "km-test-tmp.h"

#define DEG (G_PI / 180.0)
#define assert_vec3(v, x, y, z) test_util_assert_vec3 ((v), (x), (y), (z), 1e-9)

static KmSkeleton *
load_fixture (const char  *name,
              GPtrArray   *warnings,
              GError     **error)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "choreonoid", name, NULL);
  KmSkeleton *skel;
  int sniff;

  skel = test_util_body_load_file (path, &sniff, warnings, error);
  g_assert_cmpint (sniff, >=, 90);
  return skel;
}

static void
test_sr1 (void)
{
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = load_fixture ("SR1.body", warnings, &error);
  g_autofree KmTransform *world = NULL;
  g_autofree double *q = NULL;
  const KmJoint *j;
  KmShape * const *shapes;
  guint n;

  g_assert_no_error (error);
  /* 30 links: the free WAIST and 29 revolute joints with ids 0 … 28. */
  g_assert_cmpuint (km_skeleton_get_n_joints (skel), ==, 30);
  g_assert_cmpuint (km_skeleton_get_n_dof (skel), ==, 29);
  g_assert_true (km_skeleton_has_free_root (skel));
  g_assert_cmpstr (km_skeleton_get_root_name (skel), ==, "WAIST");

  j = test_util_joint (skel, "LARM_SHOULDER_R");
  g_assert_cmpint (j->type, ==, KM_JOINT_REVOLUTE);
  g_assert_cmpstr (km_skeleton_get_joint (skel, j->parent)->name, ==, "LARM_SHOULDER_P");
  g_assert_cmpint (j->joint_id, ==, 20);
  assert_vec3 (j->axis, 1, 0, 0);
  g_assert_cmpfloat_with_epsilon (j->limits[0].min, -45 * DEG, 1e-12);
  g_assert_cmpfloat_with_epsilon (j->limits[0].max, 180 * DEG, 1e-12);
  /* No joint_axis: Choreonoid's default Z. */
  assert_vec3 (test_util_joint (skel, "CHEST")->axis, 0, 0, 1);
  g_assert_cmpfloat_with_epsilon (test_util_joint (skel, "RLEG_KNEE")->limits[0].max, 150 * DEG,
                                  1e-12);
  g_assert_cmpint (test_util_joint (skel, "RLEG_HIP_R")->joint_id, ==, 0);

  /* Zero pose, by hand: ankle = (0, 0.09, 0.7135 - 0.3535 - 0.3); wrist = (0, 0.21,
   * 0.7135 + 0.176 + 0.35 - 0.263 - 0.247). */
  world = g_new (KmTransform, km_skeleton_get_n_joints (skel));
  q = g_new0 (double, km_skeleton_get_n_dof (skel));
  km_skeleton_forward_kinematics (skel, q, NULL, world);
  assert_vec3 (world[km_skeleton_find_joint (skel, "LLEG_ANKLE_R")].pos, 0, 0.09, 0.06);
  assert_vec3 (world[km_skeleton_find_joint (skel, "LARM_WRIST_R")].pos, 0, 0.21, 0.7295);

  /* Shapes: two boxes on the waist (its sensors draw nothing). */
  shapes = km_skeleton_get_shapes (skel, 0, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpint (shapes[0]->type, ==, KM_SHAPE_BOX);
  g_assert_cmpfloat (shapes[1]->size.z, ==, 0.111);
  g_assert_cmpfloat_with_epsilon (shapes[1]->transform.pos.z, 0.0955, 1e-12);
  /* WAIST_R: a cylinder (along +Y) turned 90° about Z, so its axis is -X. */
  shapes = km_skeleton_get_shapes (skel, km_skeleton_find_joint (skel, "WAIST_R"), &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpint (shapes[0]->type, ==, KM_SHAPE_CYLINDER);
  g_assert_cmpfloat (shapes[0]->radius, ==, 0.025);
  assert_vec3 (km_mat3_mul_vec3 (&shapes[0]->transform.rot, km_vec3 (0, 1, 0)), -1, 0, 0);
  g_assert_cmpfloat_with_epsilon (shapes[0]->color.g, 0.8, 1e-6);
  /* CHEST: four shapes and the two cameras' cylinders. */
  km_skeleton_get_shapes (skel, km_skeleton_find_joint (skel, "CHEST"), &n);
  g_assert_cmpuint (n, ==, 6);
  /* The aliased Group of the right foot. */
  km_skeleton_get_shapes (skel, km_skeleton_find_joint (skel, "RLEG_ANKLE_R"), &n);
  g_assert_cmpuint (n, ==, 2);

  /* One warning per device type. */
  g_assert_cmpuint (warnings->len, ==, 5);
  test_util_assert_warning (warnings, "SR1.body:34:15: AccelerationSensor");
  test_util_assert_warning (warnings, "Camera");
}

static void
test_closed_link (void)
{
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = load_fixture ("ClosedLinkSample.body", warnings, &error);
  KmTransform world[4];
  double q[3] = { 0 };
  const char * const *handlers;

  g_assert_no_error (error);
  g_assert_cmpuint (km_skeleton_get_n_joints (skel), ==, 4);
  g_assert_cmpuint (km_skeleton_get_n_dof (skel), ==, 3);
  g_assert_false (km_skeleton_has_free_root (skel));
  handlers = km_skeleton_get_body_handlers (skel);
  g_assert_cmpstr (handlers[0], ==, "ClosedLinkSampleHandler");
  g_assert_null (handlers[1]);
  /* WAIST turned -90° about X: its +Z is world +Y. */
  km_skeleton_forward_kinematics (skel, q, NULL, world);
  assert_vec3 (world[km_skeleton_find_joint (skel, "J0")].pos, 0, 0.12, 0);
  assert_vec3 (world[km_skeleton_find_joint (skel, "J1")].pos, 0, 0.16, -0.1);
  test_util_assert_warning (warnings, "ClosedLinkSample.body:137:3: extra joints");
}

static void
test_floor (void)
{
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = load_fixture ("floor.body", warnings, &error);
  KmShape * const *shapes;
  guint n;

  g_assert_no_error (error);
  g_assert_cmpuint (km_skeleton_get_n_joints (skel), ==, 1);
  g_assert_cmpuint (km_skeleton_get_n_dof (skel), ==, 0);
  assert_vec3 (km_skeleton_get_joint (skel, 0)->offset, 0, 0, -0.1);
  shapes = km_skeleton_get_shapes (skel, 0, &n);
  g_assert_cmpuint (n, ==, 1);
  assert_vec3 (shapes[0]->size, 10, 10, 0.2);
  g_assert_cmpfloat (shapes[0]->color.b, ==, 1.0f);
  g_assert_cmpfloat (shapes[0]->color.r, ==, 0.0f);
  g_assert_cmpuint (warnings->len, ==, 0);
}

static void
test_features (void)
{
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = load_fixture ("features.body", warnings, &error);
  const KmJoint *j;
  KmShape * const *shapes;
  guint n;
  KmVec3 v;

  g_assert_no_error (error);
  /* IGNORED is a Skip node. */
  g_assert_cmpuint (km_skeleton_get_n_joints (skel), ==, 5);
  g_assert_cmpuint (km_skeleton_get_n_dof (skel), ==, 3);
  g_assert_true (km_skeleton_has_free_root (skel));
  g_assert_cmpstr (km_skeleton_get_body_handlers (skel)[1], ==, "SecondHandler");

  j = test_util_joint (skel, "BASE");
  assert_vec3 (j->offset, 1, 2, 0.5);                 /* summed */
  /* Rz(90°) · Rx(90°), left to right: local +Y → Rz (0, 0, 1)… → +Z; local +X → +Y. */
  {
    KmMat3 r;

    km_mat3_from_quat (j->rotation, &r);
    assert_vec3 (km_mat3_mul_vec3 (&r, km_vec3 (1, 0, 0)), 0, 1, 0);
    assert_vec3 (km_mat3_mul_vec3 (&r, km_vec3 (0, 1, 0)), 0, 0, 1);
  }

  j = test_util_joint (skel, "ARM"); /* from the import: -Y, ±0.5 rad */
  assert_vec3 (j->axis, 0, -1, 0);
  g_assert_cmpfloat (j->limits[0].min, ==, -0.5);
  g_assert_cmpfloat (j->limits[0].max, ==, 0.5);
  j = test_util_joint (skel, "SLIDER");
  g_assert_cmpint (j->type, ==, KM_JOINT_PRISMATIC);
  assert_vec3 (j->axis, 0, 0, 1);
  g_assert_true (j->limits[0].limited);                /* [ -0.1, unlimited ]: one side */
  g_assert_cmpfloat (j->limits[0].min, ==, -0.1);
  g_assert_cmpfloat (j->limits[0].max, ==, INFINITY);
  j = test_util_joint (skel, "WHEEL");
  assert_vec3 (j->axis, 1, 0, 0);
  g_assert_false (j->limits[0].limited);
  g_assert_cmpint (test_util_joint (skel, "TRACK")->type, ==, KM_JOINT_FIXED);

  /* BASE: the capsule (Visual) and the scaled cone (RigidBody); not the collision box. */
  shapes = km_skeleton_get_shapes (skel, 0, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpint (shapes[0]->type, ==, KM_SHAPE_CAPSULE);
  g_assert_cmpfloat (shapes[0]->height, ==, 0.3);
  g_assert_cmpfloat_with_epsilon (shapes[0]->color.b, 0.6, 1e-6);
  g_assert_cmpfloat (shapes[0]->color.a, ==, 0.5f);
  g_assert_cmpint (shapes[1]->type, ==, KM_SHAPE_CONE);
  g_assert_cmpfloat_with_epsilon (shapes[1]->scale.x, 2, 1e-12);
  assert_vec3 (shapes[1]->transform.pos, 0, 0, 1);

  /* ARM: face set (2 triangles), the aliased triangle mesh twice (one KmMesh), the STL in
   * millimetres, and the missing file kept as written (a reference without a mesh). The
   * negative radius and the unknown node are skipped. */
  shapes = km_skeleton_get_shapes (skel, km_skeleton_find_joint (skel, "ARM"), &n);
  g_assert_cmpuint (n, ==, 5);
  g_assert_cmpint (shapes[4]->type, ==, KM_SHAPE_MESH);
  g_assert_null (shapes[4]->mesh);
  g_assert_cmpstr (shapes[4]->uri, ==, "../meshes/not-there.stl");
  g_assert_cmpuint (km_mesh_get_n_triangles (shapes[0]->mesh), ==, 2);
  g_assert_true (shapes[1]->mesh == shapes[2]->mesh);
  g_assert_cmpuint (km_mesh_get_n_triangles (shapes[3]->mesh), ==, 12);
  g_assert_cmpfloat_with_epsilon (shapes[3]->scale.x, 0.001, 1e-12);
  assert_vec3 (shapes[3]->transform.pos, 0, 0, 0.25);
  v = km_mat3_mul_vec3 (&shapes[3]->transform.rot, km_vec3 (0, 0, 1));
  assert_vec3 (v, 0, 0, 1);

  test_util_assert_warning (warnings, "not-there.stl");
  test_util_assert_warning (warnings, "features.body:63:43: expected a number that is not "
                                      "negative");
  test_util_assert_warning (warnings, "features.body:64:15: unknown element type “Hologram”");
  test_util_assert_warning (warnings, "ForceSensor");
  g_assert_false (test_util_has_warning (warnings, "one unlimited end"));
  test_util_assert_warning (warnings, "pseudo continuous track");
  test_util_assert_warning (warnings, "features.body:86:3: extra joints");
}

static void
assert_error (const char *text,
              const char *expected)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(KmSkeleton) skel = NULL;

  test_util_push_warnings (warnings);
  skel = km_body_load ("t.body", text, strlen (text), NULL, &error);
  test_util_pop_warnings (warnings);
  g_assert_null (skel);
  g_assert_error (error, KM_PARSE_ERROR, error->code);
  if (!g_str_has_prefix (error->message, expected))
    g_error ("expected “%s…”, got “%s”", expected, error->message);
}

#define HEAD "format: ChoreonoidBody\nformat_version: 2.0\nlinks:\n"

/* A link's `import` list: the link's own keys first, then the later mappings over the
 * earlier ones (Choreonoid's StdBodyLoader inserts the list from its end, and an insert
 * never replaces a key), so a shared description can be narrowed after it. The first one
 * used to win: the knee kept the shared ±120°. */
static void
test_import_list_order (void)
{
  static const char text[] =
    "format: ChoreonoidBody\nformat_version: 2.0\nangle_unit: degree\n"
    "common: &Common { jointType: revolute, jointAxis: Y, jointRange: [ -120, 120 ] }\n"
    "links:\n"
    "  - name: ROOT\n"
    "    jointType: free\n"
    "  - name: KNEE\n"
    "    parent: ROOT\n"
    "    import: [ *Common, { jointRange: [ 0, 150 ], jointAxis: X } ]\n"
    "  - name: HIP\n"
    "    parent: KNEE\n"
    "    jointAxis: Z\n"
    "    import: [ *Common, { jointAxis: X } ]\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = km_body_load ("t.body", text, strlen (text), NULL, &error);
  const KmJoint *j;

  g_assert_no_error (error);
  j = test_util_joint (skel, "KNEE");
  g_assert_cmpint (j->type, ==, KM_JOINT_REVOLUTE);
  assert_vec3 (j->axis, 1, 0, 0);
  g_assert_cmpfloat_with_epsilon (j->limits[0].min, 0.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (j->limits[0].max, 150.0 * G_PI / 180.0, 1e-12);
  /* The link's own key before any import. */
  j = test_util_joint (skel, "HIP");
  assert_vec3 (j->axis, 0, 0, 1);
  g_assert_cmpfloat_with_epsilon (j->limits[0].max, 120.0 * G_PI / 180.0, 1e-12);
}

/* Radians too large to write in degrees (past some 3e306: a valid URDF or skeleton.json
 * may state 1e307) are no longer written as infinities: a range end is written unlimited,
 * a velocity limit left out, each with a note, and the text reads back. Before, the range
 * came back unlimited without a word and the velocity, written as .inf, did not read back. */
static void
test_beyond_degrees (void)
{
  static const char text[] =
    "format: ChoreonoidBody\nformat_version: 1.0\nangle_unit: radian\nlinks:\n"
    "  - name: A\n"
    "  - name: B\n    parent: A\n    joint_type: revolute\n    joint_axis: Z\n"
    "    joint_range: [ -1e307, 0.5 ]\n    max_joint_velocity: 1e307\n"
    "  - name: C\n    parent: B\n    joint_type: revolute\n    joint_axis: Z\n"
    "    joint_range: [ -1, 1 ]\n    max_joint_velocity: 2\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(KmSkeleton) skel = km_body_load ("big.body", text, strlen (text), NULL, &error);
  g_autoptr(KmSkeleton) back = NULL;
  g_autofree char *written = NULL;
  gboolean range_noted = FALSE, velocity_noted = FALSE;

  g_assert_no_error (error);
  g_assert_cmpfloat (test_util_joint (skel, "B")->limits[0].min, ==, -1e307);
  written = km_body_to_string (skel, notes);
  for (guint i = 0; i < notes->len; i++)
    {
      const char *note = g_ptr_array_index (notes, i);

      range_noted |= strstr (note, "“B”: a range end too large") != NULL;
      velocity_noted |= strstr (note, "“B”: a velocity limit too large") != NULL;
      g_assert_null (strstr (note, "“C”"));
    }
  g_assert_true (range_noted);
  g_assert_true (velocity_noted);
  back = km_body_load ("back.body", written, strlen (written), NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (test_util_joint (back, "B")->limits[0].min, ==, -INFINITY);
  g_assert_cmpfloat_with_epsilon (test_util_joint (back, "B")->limits[0].max, 0.5, 1e-12);
  g_assert_false (isfinite (test_util_joint (back, "B")->max_velocity));
  g_assert_cmpfloat_with_epsilon (test_util_joint (back, "C")->max_velocity, 2, 1e-12);
}

/* `links` may be a mapping keyed by node type (specs/choreonoid-body.md, "Top level"), each
 * value one node or a list of them; it reads as the list would. A node whose own `type`
 * differs from its key is an error at that type. Before, any mapping was refused ("expected
 * a list"). */
static void
test_links_keyed_by_type (void)
{
  static const char keyed[] =
    "format: ChoreonoidBody\nformat_version: 2.0\nlinks:\n"
    "  Link:\n"
    "    - { name: A, joint_type: fixed }\n"
    "    - { name: B, parent: A, joint_type: revolute, joint_axis: Z, translation: [ 0, 0, 0.5 ] }\n"
    "  Skip: { name: S }\n";
  static const char listed[] =
    "format: ChoreonoidBody\nformat_version: 2.0\nlinks:\n"
    "  - { name: A, joint_type: fixed }\n"
    "  - { name: B, parent: A, joint_type: revolute, joint_axis: Z, translation: [ 0, 0, 0.5 ] }\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) from_keyed = km_body_load ("k.body", keyed, strlen (keyed), NULL, &error);
  g_autoptr(KmSkeleton) from_list = NULL;

  g_assert_no_error (error);
  from_list = km_body_load ("l.body", listed, strlen (listed), NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (km_skeleton_get_n_joints (from_keyed), ==, 2);
  g_assert_true (km_skeleton_equal (from_keyed, from_list, 0));

  assert_error ("format: ChoreonoidBody\nformat_version: 2.0\nlinks:\n"
                "  Link: { name: A, type: SubBody }\n",
                "t.body:4:26: expected type Link");
  assert_error ("format: ChoreonoidBody\nformat_version: 2.0\nlinks:\n"
                "  Link: [ 1 ]\n",
                "t.body:4:11: expected a mapping");
}


/* A range with one unlimited end keeps the other (limited on one side only), without a
 * warning, and the writer writes it back so. */
static void
test_one_sided_range (void)
{
  static const char text[] =
    HEAD "  - name: A\n"
    "  - name: B\n    parent: A\n    joint_type: revolute\n"
    "    joint_range: [ unlimited, 28.64788975654116 ]\n"
    "  - name: C\n    parent: B\n    joint_type: prismatic\n    joint_range: [ -0.1, .inf ]\n"
    "  - name: D\n    parent: C\n    joint_type: revolute\n"
    "    joint_range: [ -unlimited, unlimited ]\n"
    "  - name: E\n    parent: D\n    joint_type: revolute\n    joint_range: [ -.inf, .inf ]\n"
    "  - name: F\n    parent: E\n    joint_type: revolute\n    joint_range: [ unlimited, -unlimited ]\n"
    "  - name: G\n    parent: F\n    joint_type: revolute\n    joint_range: [ -.inf, 5 ]\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(KmSkeleton) skel = NULL;
  g_autoptr(KmSkeleton) back = NULL;
  g_autofree char *written = NULL;

  test_util_push_warnings (warnings);
  skel = km_body_load ("t.body", text, strlen (text), NULL, &error);
  test_util_pop_warnings (warnings);
  g_assert_no_error (error);
  test_util_assert_no_warnings (warnings);
  g_assert_true (test_util_joint (skel, "B")->limits[0].limited);
  g_assert_cmpfloat (test_util_joint (skel, "B")->limits[0].min, ==, -INFINITY);
  g_assert_cmpfloat_with_epsilon (test_util_joint (skel, "B")->limits[0].max, 0.5, 1e-12);
  g_assert_true (test_util_joint (skel, "C")->limits[0].limited);
  g_assert_cmpfloat (test_util_joint (skel, "C")->limits[0].min, ==, -0.1);
  g_assert_cmpfloat (test_util_joint (skel, "C")->limits[0].max, ==, INFINITY);
  g_assert_false (test_util_joint (skel, "D")->limits[0].limited);
  g_assert_false (test_util_joint (skel, "E")->limits[0].limited);
  g_assert_false (test_util_joint (skel, "F")->limits[0].limited);
  g_assert_true (test_util_joint (skel, "G")->limits[0].limited);
  g_assert_cmpfloat (test_util_joint (skel, "G")->limits[0].min, ==, -INFINITY);
  g_assert_cmpfloat_with_epsilon (test_util_joint (skel, "G")->limits[0].max, G_PI * 5 / 180,
                                  1e-12);

  written = km_body_to_string (skel, notes);
  for (guint i = 0; i < notes->len; i++)
    g_assert_null (strstr (g_ptr_array_index (notes, i), "one side"));
  g_assert_nonnull (strstr (written, "[ \"unlimited\", 28.6"));
  g_assert_nonnull (strstr (written, "[ -0.1, \"unlimited\" ]"));
  test_util_push_warnings (warnings);
  back = km_body_load ("back.body", written, strlen (written), NULL, &error);
  test_util_pop_warnings (warnings);
  g_assert_no_error (error);
  test_util_assert_no_warnings (warnings);
  g_assert_cmpfloat (test_util_joint (back, "B")->limits[0].min, ==, -INFINITY);
  g_assert_cmpfloat_with_epsilon (test_util_joint (back, "B")->limits[0].max, 0.5, 1e-12);
  g_assert_cmpfloat (test_util_joint (back, "C")->limits[0].min, ==, -0.1);
  g_assert_cmpfloat (test_util_joint (back, "C")->limits[0].max, ==, INFINITY);
  g_assert_false (test_util_joint (back, "D")->limits[0].limited);
}

/* Choreonoid addresses joints by id (pose sequences, joint_displacements): written, a joint
 * keeps its id, whatever the DOF order; one without gets the next after the largest. */
static void
test_joint_ids_kept (void)
{
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = load_fixture ("SR1.body", warnings, &error);
  g_autoptr(KmSkeleton) edited = NULL;
  g_autoptr(KmSkeleton) back = NULL;
  g_autofree char *written = NULL;
  int added = -1;

  g_assert_no_error (error);
  /* SR1 lists its legs (ids 0 … 12) after the chest and arms (13 … 28). */
  g_assert_cmpint (km_skeleton_get_joint (skel, 1)->joint_id, !=,
                   km_skeleton_get_joint (skel, 1)->dof_index);
  edited = km_skeleton_edit_add_child (skel, (guint) km_skeleton_find_joint (skel, "CHEST"),
                                       "HEAD_Y", KM_JOINT_REVOLUTE, km_vec3 (0, 0, 0.3), &added,
                                       &error);
  g_assert_no_error (error);
  g_assert_cmpint (km_skeleton_get_joint (edited, (guint) added)->joint_id, ==, -1);

  written = km_body_to_string (edited, notes);
  g_assert_cmpuint (notes->len, ==, 0);
  test_util_push_warnings (warnings);
  back = km_body_load ("back.body", written, strlen (written), NULL, &error);
  test_util_pop_warnings (warnings);
  g_assert_no_error (error);
  g_assert_cmpuint (km_skeleton_get_n_joints (back), ==, km_skeleton_get_n_joints (edited));
  for (guint i = 0; i < km_skeleton_get_n_joints (skel); i++)
    {
      const KmJoint *j = km_skeleton_get_joint (skel, i);

      g_assert_cmpint (test_util_joint (back, j->name)->joint_id, ==, j->joint_id);
    }
  g_assert_cmpint (test_util_joint (back, "HEAD_Y")->joint_id, ==, 29);
}

/* Joints without an id get new ones in link order, after the largest; an id an earlier
 * joint has already is not written twice; a spherical joint's links get ids of their own. */
static void
test_joint_ids_new (void)
{
  static const char text[] =
    HEAD "  - name: A\n    joint_type: fixed\n"
    "  - name: B\n    parent: A\n    joint_type: revolute\n    joint_id: 5\n"
    "  - name: C\n    parent: B\n    joint_type: prismatic\n"
    "  - name: D\n    parent: C\n    joint_type: revolute\n    joint_id: 5\n"
    "  - name: E\n    parent: D\n    joint_type: fixed\n    joint_id: 2\n"
    "  - name: F\n    parent: E\n    joint_type: revolute\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(KmSkeleton) skel = NULL;
  g_autoptr(KmSkeleton) spherical = NULL;
  g_autoptr(KmSkeleton) back = NULL;
  g_autofree char *written = NULL;

  test_util_push_warnings (warnings);
  skel = km_body_load ("t.body", text, strlen (text), NULL, &error);
  g_assert_no_error (error);
  spherical = km_skeleton_edit_set_type (skel, (guint) km_skeleton_find_joint (skel, "F"),
                                         KM_JOINT_SPHERICAL, &error);
  g_assert_no_error (error);
  written = km_body_to_string (spherical, notes);
  back = km_body_load ("back.body", written, strlen (written), NULL, &error);
  test_util_pop_warnings (warnings);
  g_assert_no_error (error);
  g_assert_cmpint (test_util_joint (back, "A")->joint_id, ==, -1);
  g_assert_cmpint (test_util_joint (back, "B")->joint_id, ==, 5);
  g_assert_cmpint (test_util_joint (back, "C")->joint_id, ==, 6);
  g_assert_cmpint (test_util_joint (back, "D")->joint_id, ==, 7);
  g_assert_cmpint (test_util_joint (back, "E")->joint_id, ==, 2);
  g_assert_cmpint (test_util_joint (back, "F_x")->joint_id, ==, 8);
  g_assert_cmpint (test_util_joint (back, "F_y")->joint_id, ==, 9);
  g_assert_cmpint (test_util_joint (back, "F")->joint_id, ==, 10);
  /* The spherical joint's note and the duplicate's, and nothing else renumbered. */
  g_assert_cmpuint (notes->len, ==, 2);
  test_util_assert_warning (notes, "1 joint has the joint id of an earlier one: it is written "
                            "with a new id, or none when it has no DOF (“D” has 5, like “B”)");
}

/* A .body file without a top-level `name` names its model after the file's stem, as
 * Choreonoid does (choreonoid-body.md: "model name (default: file stem)"), not after its
 * root link (rev19-cli finding 5); the writers then write that name (<robot name>, .body
 * name:). A `name` is kept as it is. */
static void
test_model_name_default (void)
{
  static const char unnamed[] = HEAD "  - name: ROOT\n  - name: B\n    parent: ROOT\n"
                                "    joint_type: revolute\n";
  static const char named[] = "format: ChoreonoidBody\nformat_version: 2.0\nname: Given\n"
                              "links:\n  - name: ROOT\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = NULL;
  g_autoptr(KmSkeleton) other = NULL;
  g_autoptr(KmSkeleton) dotted = NULL;
  g_autoptr(KmSkeleton) given = NULL;
  g_autofree char *urdf = NULL;
  g_autofree char *body = NULL;

  skel = km_body_load ("models/my-robot.body", unnamed, strlen (unnamed), NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (km_skeleton_get_model_name (skel), ==, "my-robot");
  urdf = km_urdf_to_string (skel, NULL);
  g_assert_nonnull (strstr (urdf, "<robot name=\"my-robot\">"));
  body = km_body_to_string (skel, NULL);
  g_assert_nonnull (strstr (body, "\nname: \"my-robot\"\n"));

  other = km_body_load ("/x/arm.v2.yaml", unnamed, strlen (unnamed), NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (km_skeleton_get_model_name (other), ==, "arm.v2");
  dotted = km_body_load ("robot", unnamed, strlen (unnamed), NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (km_skeleton_get_model_name (dotted), ==, "robot");

  given = km_body_load ("models/my-robot.body", named, strlen (named), NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (km_skeleton_get_model_name (given), ==, "Given");
}

static void
test_errors (void)
{
  assert_error ("format: Other\nformat_version: 1.0\nlinks: []\n",
                "t.body:1:9: expected “ChoreonoidBody”");
  assert_error ("model_file: robot.wrl\n", "t.body:1:13: wrapper body files");
  assert_error ("format: ChoreonoidBody\nformat_version: 3.0\nlinks: []\n",
                "t.body:2:17: expected a format version below 2.1");
  assert_error ("format: ChoreonoidBody\nformat_version: 2.0\nangle_unit: radian\nlinks: []\n",
                "t.body:3:13: format version 2.0 uses degrees only");
  /* At the unit, whichever key comes first (the version is right, the unit is not). */
  assert_error ("format: ChoreonoidBody\nangle_unit: radian\nformat_version: 2.0\nlinks: []\n",
                "t.body:2:13: format version 2.0 uses degrees only");
  assert_error (HEAD "  - name: A\n  - name: B\n    parent: A\n    joint_type: spiral\n",
                "t.body:7:17: expected a joint type");
  assert_error (HEAD "  - name: A\n  - name: B\n    parent: C\n",
                "t.body:6:13: unknown parent “C”");
  assert_error (HEAD "  - name: A\n  - name: B\n    parent: A\n    joint_type: revolute\n"
                "    joint_range: [ 10, -10 ]\n", "t.body:8:18: expected lower ≤ upper");
  /* Reversed with infinities too: a YAML infinity has its sign (rev19-cli finding 6);
   * `unlimited` has none, its place says which way (test_one_sided_range). */
  assert_error (HEAD "  - name: A\n  - name: B\n    parent: A\n    joint_type: revolute\n"
                "    joint_range: [ .inf, 5 ]\n", "t.body:8:18: expected lower ≤ upper");
  assert_error (HEAD "  - name: A\n  - name: B\n    parent: A\n    joint_type: revolute\n"
                "    joint_range: [ .inf, -.inf ]\n", "t.body:8:18: expected lower ≤ upper");
  assert_error (HEAD "  - name: A\n  - name: B\n    parent: A\n    joint_type: revolute\n"
                "    joint_range: [ 5, -.inf ]\n", "t.body:8:18: expected lower ≤ upper");
  assert_error (HEAD "  - name: A\n  - name: B\n    parent: A\n    joint_type: revolute\n"
                "    joint_axis: [ 0, 0, 0 ]\n", "t.body:8:17: the axis of joint “B”");
  assert_error (HEAD "  - name: A\n  - name: B\n    parent: A\n    joint_axis: W\n",
                "t.body:7:17: expected a joint axis");
  assert_error (HEAD "  - name: A\n  - name: A\n", "t.body:5:11: duplicate joint name");
  assert_error (HEAD "  - name: A\n  - name: B\n    parent: A\n    joint_type: free\n",
                "t.body:7:17: expected a joint type other than “free” for a link that has a "
                "parent");
  assert_error ("format: ChoreonoidBody\nformat_version: 2.0\nroot_link: X\nlinks:\n"
                "  - name: A\n", "t.body:3:12: the root joint “X”");
  assert_error (HEAD "  - name: A\n    translation: [ 1, 2 ]\n", "t.body:5:18: expected");
  assert_error (HEAD "  - name: A\n    inertia: [ 1, 2, 3 ]\n", "t.body:5:14: expected 9 inertia");
  /* A YAML syntax error comes from the YAML reader, with its position. */
  assert_error (HEAD "  - name: [ A\n", "t.body:");
}

static void
test_sniff (void)
{
  static const char body[] = "format: ChoreonoidBody\nformat_version: 1.0\n";
  static const char links[] = "name: x\nlinks:\n  - name: a\n";
  static const char other[] = "items:\n  - a\n";

  g_assert_cmpint (km_body_sniff (body, sizeof body - 1), ==, 95);
  g_assert_cmpint (km_body_sniff (links, sizeof links - 1), ==, 60);
  g_assert_cmpint (km_body_sniff (other, sizeof other - 1), ==, 0);
}

/* A Resource uri relative to its .body file names the same file wherever the model is
 * saved: relative to the new folder ("../" where needed), unchanged in the model's own
 * folder; a sub-body's from the sub-body's folder; ${SHARE}/… and URLs as written. The
 * model is given relative to the working folder, as on a command line. */
static void
test_rebased_resources (void)
{
  static const char body[] =
    HEAD "  - name: BASE\n    joint_type: fixed\n    elements:\n"
    "      - type: Resource\n        uri: \"meshes/tri.stl\"\n"
    "      - type: Resource\n        uri: \"${SHARE}/model/x.wrl\"\n"
    "      - type: Resource\n        uri: \"package://pkg/arm.dae\"\n"
    "  - type: SubBody\n    uri: parts/arm.body\n    parent: BASE\n    prefix: \"L_\"\n";
  static const char arm[] =
    HEAD "  - name: ARM\n    joint_type: fixed\n    elements:\n"
    "      - type: Resource\n        uri: \"meshes/arm.stl\"\n";
  static const char stl[] =
    "solid t\nfacet normal 0 0 1\n outer loop\n  vertex 0 0 0\n  vertex 1 0 0\n"
    "  vertex 0 1 0\n endloop\nendfacet\nendsolid t\n";
  const KmBodyOptions references = { FALSE };
  g_autofree char *cwd = g_get_current_dir ();
  g_autofree char *top = km_test_make_tmp_dir ("kinema-body-rebase-XXXXXX");
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = NULL;
  g_autoptr(KmSkeleton) back = NULL;
  g_autofree char *as_read = NULL;
  g_autofree char *text = NULL;
  KmShape * const *shapes;
  guint n = 0;
  int sniff;

  g_assert_cmpint (g_chdir (top), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents ("model/meshes", 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents ("model/parts/meshes", 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents ("other", 0755), ==, 0);
  g_assert_true (g_file_set_contents ("model/r.body", body, -1, NULL));
  g_assert_true (g_file_set_contents ("model/parts/arm.body", arm, -1, NULL));
  g_assert_true (g_file_set_contents ("model/meshes/tri.stl", stl, -1, NULL));
  g_assert_true (g_file_set_contents ("model/parts/meshes/arm.stl", stl, -1, NULL));

  skel = km_body_load ("model/r.body", body, strlen (body), &references, &error);
  g_assert_no_error (error);
  as_read = km_body_to_string (skel, NULL);
  g_assert_nonnull (strstr (as_read, "uri: \"meshes/tri.stl\"\n"));
  g_assert_nonnull (strstr (as_read, "uri: \"meshes/arm.stl\"\n"));

  /* Into the model's folder: the text as written, but for the sub-body's reference, which
   * now leads from the body file's folder where the sub-body's links are written. */
  g_assert_true (km_body_save (skel, "model/same.body", NULL, &error));
  g_assert_no_error (error);
  text = test_util_read_file ("model/same.body", NULL);
  {
    g_autoptr(GString) expected = g_string_new (as_read);

    g_string_replace (expected, "uri: \"meshes/arm.stl\"", "uri: \"parts/meshes/arm.stl\"",
                      1);
    g_assert_cmpstr (text, ==, expected->str);
  }

  /* Into another folder: from there, the same files. */
  g_assert_true (km_body_save (skel, "other/r.body", NULL, &error));
  g_assert_no_error (error);
  g_clear_pointer (&text, g_free);
  text = test_util_read_file ("other/r.body", NULL);
  g_assert_nonnull (strstr (text, "uri: \"../model/meshes/tri.stl\"\n"));
  g_assert_nonnull (strstr (text, "uri: \"../model/parts/meshes/arm.stl\"\n"));
  g_assert_nonnull (strstr (text, "uri: \"${SHARE}/model/x.wrl\"\n"));
  g_assert_nonnull (strstr (text, "uri: \"package://pkg/arm.dae\"\n"));

  /* Read back from there with its meshes: both found (the ${SHARE} one is not set). */
  g_setenv ("KINEMA_CHOREONOID_SHARE", top, TRUE);
  back = test_util_body_load_file ("other/r.body", &sniff, warnings, &error);
  g_unsetenv ("KINEMA_CHOREONOID_SHARE");
  g_assert_cmpint (g_chdir (cwd), ==, 0);
  g_assert_no_error (error);
  g_assert_false (test_util_has_warning (warnings, "tri.stl"));
  g_assert_false (test_util_has_warning (warnings, "arm.stl"));
  shapes = km_skeleton_get_shapes (back, 0, &n);
  g_assert_cmpuint (n, >=, 1);
  g_assert_nonnull (shapes[0]->mesh);
  shapes = km_skeleton_get_shapes (back, 1, &n);
  g_assert_cmpuint (n, >=, 1);
  g_assert_nonnull (shapes[0]->mesh);
}

static const char tri_stl[] =
  "solid t\nfacet normal 0 0 1\n outer loop\n  vertex 0 0 0\n  vertex 1 0 0\n"
  "  vertex 0 1 0\n endloop\nendfacet\nendsolid t\n";

/* Removes @dir and what is in it (the files and folders a test made). */
static void
remove_dir (const char *dir)
{
  g_autoptr(GDir) handle = g_dir_open (dir, 0, NULL);
  const char *name;

  while (handle != NULL && (name = g_dir_read_name (handle)) != NULL)
    {
      g_autofree char *child = g_build_filename (dir, name, NULL);

      if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
        remove_dir (child);
      else
        g_unlink (child);
    }
  g_rmdir (dir);
}

/* A Resource `uri: "package://PKG/PATH"` is found as the URDF reader finds it (here: PKG
 * two levels below a KINEMA_PACKAGE_PATH entry, a ROS workspace's src/REPOSITORY/PKG),
 * keeps its uri as written (a URDF export names the same package file), and one of a
 * package that is nowhere is a warning at the uri, not a failure: kept as a reference. */
static void
test_package_resources (void)
{
  static const char body[] =
    HEAD "  - name: BASE\n    joint_type: fixed\n    elements:\n"
    "      - type: Resource\n        uri: \"package://pkg/meshes/tri.stl\"\n"
    "      - type: Resource\n        uri: \"package://nopkg/meshes/tri.stl\"\n";
  g_autofree char *cwd = g_get_current_dir ();
  g_autofree char *top = km_test_make_tmp_dir ("kinema-body-package-XXXXXX");
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = NULL;
  g_autofree char *urdf = NULL;
  KmShape * const *shapes;
  guint n = 0;

  g_assert_cmpint (g_chdir (top), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents ("ws/src/repo/pkg/meshes", 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents ("model", 0755), ==, 0);
  g_assert_true (g_file_set_contents ("ws/src/repo/pkg/meshes/tri.stl", tri_stl, -1, NULL));
  g_assert_true (g_file_set_contents ("model/r.body", body, -1, NULL));
  g_setenv ("KINEMA_PACKAGE_PATH", "ws", TRUE);
  skel = test_util_body_load_file ("model/r.body", NULL, warnings, &error);
  g_unsetenv ("KINEMA_PACKAGE_PATH");
  g_assert_cmpint (g_chdir (cwd), ==, 0);
  remove_dir (top);
  g_assert_no_error (error);

  shapes = km_skeleton_get_shapes (skel, 0, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_nonnull (shapes[0]->mesh);
  g_assert_cmpuint (km_mesh_get_n_triangles (shapes[0]->mesh), ==, 1);
  g_assert_cmpstr (shapes[0]->uri, ==, "package://pkg/meshes/tri.stl");
  g_assert_null (shapes[0]->uri_dir);
  g_assert_null (shapes[1]->mesh);
  g_assert_cmpstr (shapes[1]->uri, ==, "package://nopkg/meshes/tri.stl");
  for (guint i = 0; i < warnings->len; i++)
    g_test_message ("warning: %s", (char *) warnings->pdata[i]);
  g_assert_cmpuint (warnings->len, ==, 1);
  test_util_assert_warning (warnings, "model/r.body:10:14: cannot find mesh "
                                      "“package://nopkg/meshes/tri.stl”");

  urdf = km_urdf_to_string (skel, notes);
  g_assert_nonnull (strstr (urdf, "<mesh filename=\"package://pkg/meshes/tri.stl\"/>"));
  g_assert_nonnull (strstr (urdf, "<mesh filename=\"package://nopkg/meshes/tri.stl\"/>"));
}

/* The notes of @notes that name a package:// mesh written as a path. */
static guint
count_path_notes (GPtrArray *notes)
{
  guint n = 0;

  for (guint i = 0; i < notes->len; i++)
    if (strstr (notes->pdata[i], "is written as a path") != NULL)
      n++;
  return n;
}

/* A package:// mesh found because the model lies in its package (PKG/urdf/robot.urdf)
 * keeps its name in a .body saved where the name still leads to the same file without
 * any package path (inside PKG); saved elsewhere it is written as a path to the file,
 * with one note, so that the saved file finds its meshes without KINEMA_PACKAGE_PATH (and
 * in Choreonoid, which cannot resolve package://): also where the name would lead to
 * another file (a folder with its own meshes/box.stl), and for a .body read from inside
 * the package. A mesh that was not found keeps its name. */
static void
test_package_mesh_saved_elsewhere (void)
{
  static const char urdf[] =
    "<robot name='r'>\n"
    "  <link name='base'>\n"
    "    <visual><geometry><mesh filename='package://pkg/meshes/box.stl'/></geometry>"
    "</visual>\n"
    "    <visual><geometry><mesh filename='package://nopkg/meshes/gone.stl'/></geometry>"
    "</visual>\n"
    "  </link>\n"
    "  <link name='arm'>\n"
    "    <visual><geometry><mesh filename='package://pkg/meshes/box.stl'/></geometry>"
    "</visual>\n"
    "  </link>\n"
    "  <joint name='arm' type='fixed'><parent link='base'/><child link='arm'/></joint>\n"
    "</robot>\n";
  g_autofree char *top = km_test_make_tmp_dir ("kinema-body-pkg-XXXXXX");
  g_autofree char *model = g_build_filename (top, "ws", "pkg", "urdf", "robot.urdf", NULL);
  g_autofree char *inside = g_build_filename (top, "ws", "pkg", "robot.body", NULL);
  g_autofree char *outside = g_build_filename (top, "out", "robot.body", NULL);
  g_autofree char *other = g_build_filename (top, "other", "robot.body", NULL);
  g_autofree char *again = g_build_filename (top, "again", "robot.body", NULL);
  g_autofree char *ros = g_strdup (g_getenv ("ROS_PACKAGE_PATH"));
  g_autofree char *cwd = g_get_current_dir ();
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  KmUrdfOptions options = { NULL, TRUE };
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = NULL;
  g_autoptr(KmSkeleton) back = NULL;
  g_autoptr(KmSkeleton) reread = NULL;
  g_autofree char *text = NULL;
  KmShape * const *shapes;
  guint n = 0;

  g_unsetenv ("KINEMA_PACKAGE_PATH");
  g_unsetenv ("ROS_PACKAGE_PATH");
  g_assert_cmpint (g_chdir (top), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents ("ws/pkg/urdf", 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents ("ws/pkg/meshes", 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents ("out", 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents ("other/meshes", 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents ("again", 0755), ==, 0);
  g_assert_true (g_file_set_contents ("ws/pkg/meshes/box.stl", tri_stl, -1, NULL));
  /* Another file the name leads to from other/: not the mesh the model read. */
  g_assert_true (g_file_set_contents ("other/meshes/box.stl", tri_stl, -1, NULL));
  g_assert_true (g_file_set_contents ("ws/pkg/urdf/robot.urdf", urdf, -1, NULL));
  g_assert_cmpint (g_chdir (cwd), ==, 0);

  test_util_push_warnings (warnings);
  skel = km_urdf_load (model, urdf, strlen (urdf), &options, &error);
  test_util_pop_warnings (warnings);
  g_assert_no_error (error);
  g_assert_cmpuint (warnings->len, ==, 1);   /* nopkg */
  g_ptr_array_set_size (warnings, 0);
  g_assert_nonnull (km_skeleton_get_shapes (skel, 0, &n)[0]->mesh);

  /* (a) Inside the package: the name leads to the same file. */
  g_assert_true (km_body_save (skel, inside, notes, &error));
  g_assert_no_error (error);
  text = test_util_read_file (inside, NULL);
  g_assert_nonnull (strstr (text, "uri: \"package://pkg/meshes/box.stl\"\n"));
  g_assert_nonnull (strstr (text, "uri: \"package://nopkg/meshes/gone.stl\"\n"));
  g_assert_cmpuint (count_path_notes (notes), ==, 0);
  g_clear_pointer (&text, g_free);

  /* (b) Elsewhere: a path from the saved file's folder, one note for the two links. */
  g_assert_true (km_body_save (skel, outside, notes, &error));
  g_assert_no_error (error);
  text = test_util_read_file (outside, NULL);
  g_test_message ("%s", text);
  g_assert_null (strstr (text, "package://pkg/"));
  g_assert_nonnull (strstr (text, "uri: \"../ws/pkg/meshes/box.stl\"\n"));
  g_assert_nonnull (strstr (text, "uri: \"package://nopkg/meshes/gone.stl\"\n"));
  g_assert_cmpuint (count_path_notes (notes), ==, 1);
  g_assert_true (test_util_has_warning (notes, "package:// mesh “package://pkg/meshes/box.stl” "
                                               "is written as a path: the saved file lies "
                                               "outside package “pkg”"));
  g_clear_pointer (&text, g_free);
  g_ptr_array_set_size (notes, 0);

  /* Where the name would find another file. */
  g_assert_true (km_body_save (skel, other, notes, &error));
  g_assert_no_error (error);
  text = test_util_read_file (other, NULL);
  g_assert_nonnull (strstr (text, "uri: \"../ws/pkg/meshes/box.stl\"\n"));
  g_assert_cmpuint (count_path_notes (notes), ==, 1);
  g_clear_pointer (&text, g_free);
  g_ptr_array_set_size (notes, 0);

  /* Read back without a package path: the meshes are found. */
  back = test_util_body_load_file (outside, NULL, warnings, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (warnings->len, ==, 1);   /* nopkg */
  g_ptr_array_set_size (warnings, 0);
  shapes = km_skeleton_get_shapes (back, 0, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_nonnull (shapes[0]->mesh);
  g_assert_null (shapes[1]->mesh);
  g_assert_cmpstr (shapes[1]->uri, ==, "package://nopkg/meshes/gone.stl");
  g_assert_nonnull (km_skeleton_get_shapes (back, 1, &n)[0]->mesh);

  /* A .body read from inside the package, saved elsewhere: the same rule. */
  reread = test_util_body_load_file (inside, NULL, warnings, &error);
  g_assert_no_error (error);
  g_assert_nonnull (km_skeleton_get_shapes (reread, 0, &n)[0]->mesh);
  g_assert_true (km_body_save (reread, again, notes, &error));
  g_assert_no_error (error);
  text = test_util_read_file (again, NULL);
  g_assert_nonnull (strstr (text, "uri: \"../ws/pkg/meshes/box.stl\"\n"));
  g_assert_cmpuint (count_path_notes (notes), ==, 1);

  remove_dir (top);
  if (ros != NULL)
    g_setenv ("ROS_PACKAGE_PATH", ros, TRUE);
}

/* A loaded Resource keeps its uri, placed as the Resource places the file (its Transform
 * keys and length unit), once for all the file's shapes; one with a `node` is a part of
 * the file, which URDF cannot name: KmShape.uri_node says so, and the URDF export leaves
 * it out with a note naming the node and the file rather than draw the whole file. */
static void
test_resource_node (void)
{
  static const char body[] =
    HEAD "  - name: BASE\n    joint_type: fixed\n    elements:\n"
    "      - type: Resource\n        uri: \"parts.wrl\"\n        node: A\n"
    "  - name: ARM\n    parent: BASE\n    joint_type: fixed\n    elements:\n"
    "      - type: Resource\n        uri: \"parts.wrl\"\n        translation: [ 0, 0, 1 ]\n"
    "        metadata: { length_unit: millimeter }\n";
  static const char wrl[] =
    "#VRML V2.0 utf8\n"
    "DEF A Shape { geometry IndexedFaceSet { coord Coordinate { point [ 0 0 0, 1 0 0, 0 1 0 ] }"
    " coordIndex [ 0 1 2 -1 ] } }\n"
    "DEF B Shape { geometry IndexedFaceSet { coord Coordinate { point [ 0 0 1, 1 0 1, 0 1 1 ] }"
    " coordIndex [ 0 1 2 -1 ] } }\n";
  g_autofree char *cwd = g_get_current_dir ();
  g_autofree char *top = km_test_make_tmp_dir ("kinema-body-node-XXXXXX");
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = NULL;
  g_autofree char *urdf = NULL;
  KmShape * const *shapes;
  guint n = 0;
  const char *mesh;

  g_assert_cmpint (g_chdir (top), ==, 0);
  g_assert_true (g_file_set_contents ("r.body", body, -1, NULL));
  g_assert_true (g_file_set_contents ("parts.wrl", wrl, -1, NULL));
  skel = test_util_body_load_file ("r.body", NULL, warnings, &error);
  g_assert_cmpint (g_chdir (cwd), ==, 0);
  remove_dir (top);
  g_assert_no_error (error);
  test_util_assert_no_warnings (warnings);

  shapes = km_skeleton_get_shapes (skel, 0, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_nonnull (shapes[0]->mesh);
  g_assert_cmpstr (shapes[0]->uri, ==, "parts.wrl");
  g_assert_cmpstr (shapes[0]->uri_node, ==, "A");
  shapes = km_skeleton_get_shapes (skel, 1, &n);
  g_assert_cmpuint (n, ==, 2);
  for (guint i = 0; i < n; i++)
    {
      g_assert_cmpstr (shapes[i]->uri, ==, "parts.wrl");
      g_assert_null (shapes[i]->uri_node);
      g_assert_cmpuint (shapes[i]->uri_part, ==, i);
      assert_vec3 (shapes[i]->uri_transform.pos, 0, 0, 1);
      assert_vec3 (shapes[i]->uri_scale, 0.001, 0.001, 0.001);
    }

  urdf = km_urdf_to_string (skel, notes);
  /* The whole file once, for ARM; nothing for BASE's node. */
  mesh = strstr (urdf, "<mesh filename=\"parts.wrl\" scale=\"0.001 0.001 0.001\"/>");
  g_assert_nonnull (mesh);
  {
    g_auto(GStrv) parts = g_strsplit (urdf, "<mesh", -1);

    g_assert_cmpuint (g_strv_length (parts), ==, 2);
  }
  g_assert_true (strstr (urdf, "<link name=\"ARM\">") < mesh);
  g_assert_nonnull (strstr (urdf, "<origin xyz=\"0 0 1\""));
  for (guint i = 0; i < notes->len; i++)
    g_test_message ("note: %s", (char *) notes->pdata[i]);
  g_assert_true (test_util_has_warning (notes, "node “A” of a mesh file: the mesh "
                                               "“parts.wrl” of link “BASE” is left out"));
  g_assert_false (test_util_has_warning (notes, "no inline"));
}

/* A Resource that names a node of a mesh file that was not loaded is written back with
 * its `node`: without it Choreonoid would draw the whole file. */
static void
test_unloaded_resource_node (void)
{
  static const char body[] =
    HEAD "  - name: BASE\n    joint_type: fixed\n    elements:\n"
    "      - type: Resource\n        uri: \"missing.wrl\"\n        node: A\n"
    "      - type: Resource\n        uri: \"missing.wrl\"\n";
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = NULL;
  g_autoptr(KmSkeleton) back = NULL;
  g_autofree char *written = NULL;
  KmShape * const *shapes;
  guint n = 0;

  test_util_push_warnings (warnings);
  skel = km_body_load ("t.body", body, strlen (body), NULL, &error);
  test_util_pop_warnings (warnings);
  g_assert_no_error (error);
  shapes = km_skeleton_get_shapes (skel, 0, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_null (shapes[0]->mesh);
  g_assert_cmpstr (shapes[0]->uri_node, ==, "A");
  g_assert_null (shapes[1]->uri_node);

  written = km_body_to_string (skel, NULL);
  g_assert_nonnull (strstr (written, "uri: \"missing.wrl\"\n"));
  {
    g_auto(GStrv) parts = g_strsplit (written, "node:", -1);

    g_assert_cmpuint (g_strv_length (parts), ==, 2);
  }
  test_util_push_warnings (warnings);
  back = km_body_load ("back.body", written, strlen (written), NULL, &error);
  test_util_pop_warnings (warnings);
  g_assert_no_error (error);
  shapes = km_skeleton_get_shapes (back, 0, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpstr (shapes[0]->uri, ==, "missing.wrl");
  g_assert_cmpstr (shapes[0]->uri_node, ==, "A");
  g_assert_null (shapes[1]->uri_node);
}

/* A Resource whose mesh is not loaded (not found, or meshes not read) keeps the colour
 * its Shape's appearance gives it (diffuse and transparency), and is written back with
 * that appearance, as a loaded mesh's is: .body to .body keeps it. A reference in the
 * default colour (no appearance) gets none. */
static void
test_unloaded_resource_color (void)
{
  static const char body[] =
    HEAD "  - name: BASE\n    joint_type: fixed\n    elements:\n"
    "      - type: Shape\n"
    "        geometry: { type: Resource, uri: not-here.stl }\n"
    "        appearance: { material: { diffuse: [ 1, 0, 0 ], transparency: 0.25 } }\n"
    "      - type: Transform\n        translation: [ 0, 0, 1 ]\n        elements:\n"
    "          - type: Shape\n"
    "            geometry: { type: Resource, uri: \"package://no_such_package/m.stl\", "
    "node: A }\n"
    "            appearance: { material: { diffuse: [ 0, 0.5, 0 ] } }\n"
    "      - type: Resource\n        uri: plain-not-here.stl\n";
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-body-color-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "bot.body", NULL);

  /* Meshes looked for (and not found), then not read at all. */
  for (guint pass = 0; pass < 2; pass++)
    {
      KmBodyOptions options = { .load_meshes = pass == 0 };
      g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
      g_autoptr(GError) error = NULL;
      g_autoptr(KmSkeleton) skel = NULL;
      g_autoptr(KmSkeleton) back = NULL;
      g_autofree char *written = NULL;
      g_autofree char *again = NULL;
      KmShape * const *shapes;
      guint n = 0;

      test_util_push_warnings (warnings);
      skel = km_body_load (path, body, strlen (body), &options, &error);
      test_util_pop_warnings (warnings);
      g_assert_no_error (error);
      shapes = km_skeleton_get_shapes (skel, 0, &n);
      g_assert_cmpuint (n, ==, 3);
      g_assert_null (shapes[0]->mesh);
      g_assert_cmpfloat (shapes[0]->color.a, ==, 0.75f);

      written = km_body_to_string (skel, NULL);
      {
        g_auto(GStrv) parts = g_strsplit (written, "appearance:", -1);

        if (g_strv_length (parts) != 3)
          g_error ("expected two appearances in:\n%s", written);
      }
      g_assert_nonnull (strstr (written, "transparency: 0.25"));

      /* Read back as it was read: the same colours, the same places. */
      test_util_push_warnings (warnings);
      back = km_body_load (path, written, strlen (written), &options, &error);
      test_util_pop_warnings (warnings);
      g_assert_no_error (error);
      shapes = km_skeleton_get_shapes (back, 0, &n);
      g_assert_cmpuint (n, ==, 3);
      g_assert_cmpfloat (shapes[0]->color.r, ==, 1.0f);
      g_assert_cmpfloat (shapes[0]->color.g, ==, 0.0f);
      g_assert_cmpfloat (shapes[0]->color.a, ==, 0.75f);
      g_assert_cmpfloat (shapes[1]->color.r, ==, 0.0f);
      g_assert_cmpfloat (shapes[1]->color.g, ==, 0.5f);
      g_assert_cmpfloat (shapes[1]->color.a, ==, 1.0f);
      g_assert_cmpstr (shapes[1]->uri_node, ==, "A");
      assert_vec3 (shapes[1]->transform.pos, 0, 0, 1);
      g_assert_cmpfloat (shapes[2]->color.r, ==, KM_COLOR_DEFAULT.r);
      g_assert_cmpfloat (shapes[2]->color.g, ==, KM_COLOR_DEFAULT.g);
      g_assert_cmpfloat (shapes[2]->color.b, ==, KM_COLOR_DEFAULT.b);
      g_assert_cmpfloat (shapes[2]->color.a, ==, KM_COLOR_DEFAULT.a);
      again = km_body_to_string (back, NULL);
      g_assert_cmpstr (again, ==, written);
    }
  g_rmdir (dir);
}

/* A spherical joint with a joint id (an edited .body joint) in a project's
 * joint_displacements: laid out as km_body_save writes the joint (three revolute links,
 * the first with its id, the other two with new ids after the largest, in link order),
 * so that the project saved with the edited model reads back into the .body file saved
 * from it: every DOF gets its own value back, and the joints after it keep their ids'
 * places. */
static void
test_spherical_joint_id_displacements (void)
{
  static const char model[] =
    "format: ChoreonoidBody\nformat_version: 2.0\nangle_unit: degree\nlinks:\n"
    "  - name: R\n    joint_type: free\n"
    "  - name: A\n    parent: R\n    joint_type: revolute\n    joint_id: 0\n"
    "  - name: S\n    parent: A\n    joint_type: revolute\n    joint_id: 1\n"
    "  - name: B\n    parent: S\n    joint_type: revolute\n    joint_id: 2\n"
    "  - name: C\n    parent: B\n    joint_type: revolute\n";
  static const char project_text[] =
    "items:\n  id: 0\n  name: \"RootItem\"\n  plugin: Base\n  class: RootItem\n"
    "  children:\n    -\n      id: 1\n      name: \"Body\"\n      plugin: Body\n"
    "      class: BodyItem\n      data:\n        schema: 2\n        file: \"model.body\"\n"
    "        format: CHOREONOID-BODY\n";
  /* degrees: A, S (x, y, z), B, C */
  static const double degrees[] = { 10, 20, 30, 40, 50, 60 };
  g_autofree char *tmp = km_test_make_tmp_dir ("kinema-sph-id-XXXXXX");
  g_autofree char *root = g_canonicalize_filename (tmp, NULL);
  g_autofree char *model_path = g_build_filename (root, "model.body", NULL);
  g_autofree char *edited_path = g_build_filename (root, "edited.body", NULL);
  g_autofree char *project_path = g_build_filename (root, "p.cnoid", NULL);
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = NULL;
  g_autoptr(KmSkeleton) sph = NULL;
  g_autoptr(KmSkeleton) written = NULL;
  g_autoptr(KmProject) project = NULL;
  g_autoptr(KmProject) back = NULL;
  g_autofree double *q = NULL;
  g_autofree int *map = NULL;
  g_autofree char *text = NULL;
  KmItem *body;
  const double *q_back;
  guint n_dof, n_back;

  g_assert_true (g_file_set_contents (model_path, model, -1, NULL));
  g_assert_true (g_file_set_contents (project_path, project_text, -1, NULL));
  skel = test_util_body_load_file (model_path, NULL, warnings, &error);
  g_assert_no_error (error);
  sph = km_skeleton_edit_set_type (skel, km_skeleton_find_joint (skel, "S"),
                                   KM_JOINT_SPHERICAL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (test_util_joint (sph, "S")->joint_id, ==, 1);
  g_assert_true (km_body_save (sph, edited_path, NULL, &error));
  g_assert_no_error (error);

  /* The project with the edited model and a pose, saved. */
  project = km_cnoid_load (project_path, &error);
  g_assert_no_error (error);
  body = km_item_get_child (km_project_get_root_item (project), 0);
  g_assert_true (KM_IS_BODY_ITEM (body));
  km_body_item_set_model (KM_BODY_ITEM (body), edited_path, "CHOREONOID-BODY", sph);
  n_dof = km_skeleton_get_n_dof (sph);
  g_assert_cmpuint (n_dof, ==, 6);
  q = g_new0 (double, n_dof);
  q[test_util_joint (sph, "A")->dof_index] = degrees[0] * G_PI / 180;
  for (guint d = 0; d < 3; d++)
    q[test_util_joint (sph, "S")->dof_index + d] = degrees[1 + d] * G_PI / 180;
  q[test_util_joint (sph, "B")->dof_index] = degrees[4] * G_PI / 180;
  q[test_util_joint (sph, "C")->dof_index] = degrees[5] * G_PI / 180;
  km_body_item_set_joint_state (KM_BODY_ITEM (body), q, n_dof);
  text = test_util_cnoid_to_string (project, project_path);
  g_assert_true (g_file_set_contents (project_path, text, -1, NULL));
  /* By id: A (0), S about X (1), B (2); then S about Y and Z and C, the new ids. */
  {
    static const double expected[] = { 10, 20, 50, 30, 40, 60 };
    const char *c = strstr (text, "joint_displacements: [");

    g_assert_nonnull (c);
    c += strlen ("joint_displacements: [");
    for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
      {
        char *end;

        g_assert_cmpfloat_with_epsilon (g_ascii_strtod (c, &end), expected[i], 1e-9);
        c = end;
        while (*c == ',' || *c == ' ')
          c++;
      }
    g_assert_cmpint (*c, ==, ']');
  }

  /* Read back: the model is the .body file now, each value where its id says. */
  back = km_cnoid_load (project_path, &error);
  g_assert_no_error (error);
  body = km_item_get_child (km_project_get_root_item (back), 0);
  g_assert_null (km_item_get_problem (body));
  written = km_skeleton_ref (km_body_item_get_skeleton (KM_BODY_ITEM (body)));
  map = km_body_map_dofs (sph, written);
  g_assert_nonnull (map);
  q_back = km_body_item_get_joint_state (KM_BODY_ITEM (body), &n_back);
  g_assert_cmpuint (n_back, ==, n_dof);
  for (guint k = 0; k < n_back; k++)
    g_assert_cmpfloat_with_epsilon (q_back[k], q[map[k]], 1e-12);
  remove_dir (root);
}

/* The error of a SubBody file run from @dir, loaded as @name (relative to @dir). */
static char *
error_in (const char *dir,
          const char *name)
{
  g_autofree char *cwd = g_get_current_dir ();
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = NULL;
  int sniff;

  g_assert_cmpint (g_chdir (dir), ==, 0);
  skel = test_util_body_load_file (name, &sniff, warnings, &error);
  g_assert_cmpint (g_chdir (cwd), ==, 0);
  g_assert_null (skel);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_INVALID);
  return g_strdup (error->message);
}

/* DESIGN.md, "Error locations": inside a SubBody file, the innermost file first (named
 * relative to how the including file was given), then "included from FILE:LINE:COLUMN"
 * lines out to the body file. */
static void
test_sub_body_error_chain (void)
{
  g_autofree char *dir = g_test_build_filename (G_TEST_DIST, "data", "include-chain", NULL);
  g_autofree char *data = g_test_build_filename (G_TEST_DIST, "data", NULL);
  g_autofree char *message = NULL;

  /* Read while the SubBody's links are read. */
  message = error_in (dir, "outer-subbody.body");
  g_assert_cmpstr (message, ==, "bad-axis.body:10:17: expected a joint axis: [x, y, z] or X, "
                                "Y, Z, -X, -Y, -Z\n"
                                "included from outer-subbody.body:7:10");
  g_clear_pointer (&message, g_free);
  message = error_in (dir, "nested-subbody.body");
  g_assert_cmpstr (message, ==, "bad-axis.body:10:17: expected a joint axis: [x, y, z] or X, "
                                "Y, Z, -X, -Y, -Z\n"
                                "included from outer-subbody.body:7:10\n"
                                "included from nested-subbody.body:7:10");
  g_clear_pointer (&message, g_free);
  /* The path as given: joined to the including file's folder. */
  message = error_in (data, "include-chain/outer-subbody.body");
  g_assert_cmpstr (message, ==, "include-chain/bad-axis.body:10:17: expected a joint axis: "
                                "[x, y, z] or X, Y, Z, -X, -Y, -Z\n"
                                "included from include-chain/outer-subbody.body:7:10");
  g_clear_pointer (&message, g_free);
  /* Found when the skeleton is built (a name clash), after the sub-body was read. */
  message = error_in (dir, "dup-outer.body");
  g_assert_cmpstr (message, ==, "parts/dup-inner.body:6:11: duplicate joint name “L_J”\n"
                                "included from dup-outer.body:10:10");
  g_clear_pointer (&message, g_free);
  /* A key of the SubBody node itself is in the including file: no chain. */
  message = error_in (dir, "override-outer.body");
  g_assert_cmpstr (message, ==, "override-outer.body:9:18: expected a list of 3 numbers");
}

/* The shapes of joint @joint of @a and @b are the same meshes, placed and coloured alike. */
static void
assert_same_meshes (const KmSkeleton *a,
                    const KmSkeleton *b,
                    guint             joint)
{
  guint na = 0, nb = 0;
  KmShape * const *sa = km_skeleton_get_shapes (a, joint, &na);
  KmShape * const *sb = km_skeleton_get_shapes (b, joint, &nb);

  g_assert_cmpuint (na, ==, nb);
  g_assert_cmpuint (na, >, 0);
  for (guint s = 0; s < na; s++)
    {
      guint nv;

      g_assert_nonnull (sa[s]->mesh);
      g_assert_nonnull (sb[s]->mesh);
      g_assert_nonnull (sb[s]->uri);
      nv = km_mesh_get_n_vertices (sa[s]->mesh);
      g_assert_cmpuint (km_mesh_get_n_vertices (sb[s]->mesh), ==, nv);
      g_assert_cmpuint (km_mesh_get_n_triangles (sb[s]->mesh), ==,
                        km_mesh_get_n_triangles (sa[s]->mesh));
      g_assert_cmpmem (km_mesh_get_vertices (sa[s]->mesh), 3 * nv * sizeof (float),
                       km_mesh_get_vertices (sb[s]->mesh), 3 * nv * sizeof (float));
      test_util_assert_vec3 (sb[s]->transform.pos, sa[s]->transform.pos.x,
                             sa[s]->transform.pos.y, sa[s]->transform.pos.z, 1e-9);
      test_util_assert_vec3 (sb[s]->scale, sa[s]->scale.x, sa[s]->scale.y, sa[s]->scale.z,
                             1e-9);
      g_assert_cmpfloat_with_epsilon (sb[s]->color.r, sa[s]->color.r, 1e-6);
      g_assert_cmpfloat_with_epsilon (sb[s]->color.g, sa[s]->color.g, 1e-6);
      g_assert_cmpfloat_with_epsilon (sb[s]->color.b, sa[s]->color.b, 1e-6);
    }
}

/* A mesh read from a file is written as a Resource of that file, whether or not it was
 * loaded, never as its triangles (a model of large meshes became a .body too large to
 * read back, and the reference was lost for the URDF export): a relative path leading to
 * the same file from the saved file (a package:// name too, saved outside its package:
 * test_package_mesh_saved_elsewhere), placed and scaled as the model placed it, with the
 * colour the model gives it. Read back, the same meshes. */
static void
test_mesh_file_references (void)
{
  static const char urdf[] =
    "<robot name='r'>\n"
    "  <link name='base'>\n"
    "    <visual><origin xyz='0 0 1'/>\n"
    "      <geometry><mesh filename='package://meshes/tetra-ascii.stl' scale='2 2 2'/>"
    "</geometry></visual>\n"
    "  </link>\n"
    "  <link name='arm'>\n"
    "    <visual><geometry><mesh filename='cube-binary.stl'/></geometry>\n"
    "      <material name='red'><color rgba='1 0 0 1'/></material></visual>\n"
    "  </link>\n"
    "  <joint name='j' type='revolute'><parent link='base'/><child link='arm'/>\n"
    "    <axis xyz='0 0 1'/><limit lower='-1' upper='1' effort='1' velocity='1'/></joint>\n"
    "</robot>\n";
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "meshes", "refs.urdf",
                                                 NULL);
  g_autofree char *top = km_test_make_tmp_dir ("kinema-body-refs-XXXXXX");
  g_autofree char *out = g_build_filename (top, "r.body", NULL);
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  KmUrdfOptions options = { NULL, TRUE };
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = NULL;
  g_autoptr(KmSkeleton) back = NULL;
  g_autofree char *text = NULL;
  guint n = 0;

  test_util_push_warnings (warnings);
  skel = km_urdf_load (path, urdf, strlen (urdf), &options, &error);
  test_util_pop_warnings (warnings);
  g_assert_no_error (error);
  test_util_assert_no_warnings (warnings);
  g_assert_nonnull (km_skeleton_get_shapes (skel, 0, &n)[0]->mesh);

  g_assert_true (km_body_save (skel, out, notes, &error));
  g_assert_no_error (error);
  text = test_util_read_file (out, NULL);
  g_test_message ("%s", text);
  g_assert_null (strstr (text, "TriangleMesh"));
  g_assert_null (strstr (text, "package://"));
  g_assert_nonnull (strstr (text, "meshes/tetra-ascii.stl\"\n"));
  g_assert_true (test_util_has_warning (notes, "package:// mesh "
                                               "“package://meshes/tetra-ascii.stl” is "
                                               "written as a path"));
  g_assert_nonnull (strstr (text, "scale: [ 2, 2, 2 ]\n"));
  g_assert_nonnull (strstr (text, "meshes/cube-binary.stl\""));
  g_assert_nonnull (strstr (text, "diffuse: [ 1, 0, 0 ]"));

  back = test_util_body_load_file (out, NULL, warnings, &error);
  remove_dir (top);
  g_assert_no_error (error);
  test_util_assert_no_warnings (warnings);
  assert_same_meshes (skel, back, 0);
  assert_same_meshes (skel, back, 1);
  g_assert_true (g_str_has_suffix (km_skeleton_get_shapes (back, 0, &n)[0]->uri,
                                   "meshes/tetra-ascii.stl"));
  g_assert_true (g_str_has_suffix (km_skeleton_get_shapes (back, 1, &n)[0]->uri,
                                   "meshes/cube-binary.stl"));
}

/* A joint id an earlier link has is a warning at the later one (Choreonoid warns too); the
 * model still loads. */
static void
test_duplicate_joint_id (void)
{
  static const char body[] =
    HEAD "  - name: A\n    joint_type: free\n"
    "  - name: B\n    parent: A\n    joint_type: revolute\n    joint_id: 5\n"
    "  - name: C\n    parent: B\n    joint_type: revolute\n    jointId: 5\n";
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = NULL;

  test_util_push_warnings (warnings);
  skel = km_body_load ("t.body", body, strlen (body), NULL, &error);
  test_util_pop_warnings (warnings);
  g_assert_no_error (error);
  g_assert_nonnull (skel);
  g_assert_cmpuint (warnings->len, ==, 1);
  test_util_assert_warning (warnings, "t.body:13:14: joint id 5 of “C” is the id of "
                                      "“B” too");
}

/* Element nodes Choreonoid rejects are warnings that say so, and the model loads without
 * them: a Visual inside a Collision (or the other way round), an unknown element type
 * without is_optional, a key whose nested type disagrees. An unknown type with is_optional
 * is Choreonoid's warning. */
static void
test_rejected_elements (void)
{
  static const char nested[] =
    HEAD "  - name: R\n    joint_type: fixed\n    elements:\n"
    "      - type: Visual\n        elements:\n"
    "          - type: Collision\n"
    "            elements: { type: Shape, geometry: { type: Box, size: [1,1,1] } }\n"
    "      - type: Collision\n        elements:\n"
    "          - type: Transform\n            elements:\n"
    "              - type: Visual\n"
    "                elements: { type: Shape, geometry: { type: Sphere, radius: 1 } }\n"
    "      - type: Visual\n"
    "        elements: { type: Shape, geometry: { type: Box, size: [2,2,2] } }\n";
  static const char unknown[] =
    HEAD "  - name: R\n    joint_type: fixed\n    elements:\n"
    "      - type: FancyThing\n        foo: 1\n"
    "      - type: OtherThing\n        is_optional: true\n";
  static const char mismatch[] =
    HEAD "  - name: R\n    joint_type: fixed\n    elements:\n"
    "      Shape:\n        type: Transform\n        geometry: { type: Box, size: [1,1,1] }\n";
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = NULL;
  KmShape * const *shapes;
  guint n = 0;

  test_util_push_warnings (warnings);
  skel = km_body_load ("t.body", nested, strlen (nested), NULL, &error);
  test_util_pop_warnings (warnings);
  g_assert_no_error (error);
  for (guint i = 0; i < warnings->len; i++)
    g_test_message ("warning: %s", (char *) warnings->pdata[i]);
  g_assert_cmpuint (warnings->len, ==, 2);
  test_util_assert_warning (warnings, "t.body:9:19: a Collision node inside a Visual "
                                      "node, which Choreonoid rejects");
  test_util_assert_warning (warnings, "t.body:15:23: a Visual node inside a Collision "
                                      "node, which Choreonoid rejects");
  /* The Visual's own box is drawn. */
  shapes = km_skeleton_get_shapes (skel, 0, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpfloat (shapes[0]->size.x, ==, 2);
  g_clear_pointer (&skel, km_skeleton_unref);

  g_ptr_array_set_size (warnings, 0);
  test_util_push_warnings (warnings);
  skel = km_body_load ("t.body", unknown, strlen (unknown), NULL, &error);
  test_util_pop_warnings (warnings);
  g_assert_no_error (error);
  g_assert_cmpuint (warnings->len, ==, 2);
  test_util_assert_warning (warnings, "t.body:7:15: unknown element type “FancyThing”; "
                                      "the element is skipped (Choreonoid would not load the "
                                      "model: the node has no “is_optional: true”)");
  /* Optional: Choreonoid skips it too. */
  test_util_assert_warning (warnings, "t.body:9:15: unknown element type “OtherThing”");
  g_assert_false (test_util_has_warning (warnings, "OtherThing”; the element is skipped ("));
  g_clear_pointer (&skel, km_skeleton_unref);

  g_ptr_array_set_size (warnings, 0);
  test_util_push_warnings (warnings);
  skel = km_body_load ("t.body", mismatch, strlen (mismatch), NULL, &error);
  test_util_pop_warnings (warnings);
  g_assert_no_error (error);
  g_assert_cmpuint (warnings->len, ==, 1);
  test_util_assert_warning (warnings, "t.body:8:15: the type does not match the key "
                                      "“Shape”; the element is skipped (Choreonoid would not "
                                      "load the model)");
}

/* A wrapper body file (model_file, no format) is recognised by its content, so that it
 * gets the clear message without --format. */
static void
test_sniff_wrapper (void)
{
  static const char wrapper[] = "model_file: robot.wrl\nlinkInfo:\n  A: { mass: 1 }\n";
  static const char camel[] = "# wrapper\nmodelFile: robot.wrl\n";

  g_assert_cmpint (km_body_sniff (wrapper, sizeof wrapper - 1), >, 0);
  g_assert_cmpint (km_body_sniff (camel, sizeof camel - 1), >, 0);
  g_assert_true (km_format_detect (wrapper, sizeof wrapper - 1) == &km_format_choreonoid_body);
  g_assert_true (km_format_detect (camel, sizeof camel - 1) == &km_format_choreonoid_body);
  /* Which then says what it is (test_errors). */
  assert_error (wrapper, "t.body:1:13: wrapper body files (model_file) are not supported");
}

/* A link's joint_displacement (camelCase too; the old joint_angle always in the angle
 * unit) is the pose the body starts at: in degrees (or the file's radians) for a
 * revolute joint, in metres for a prismatic one, given as the model's initial pose. */
static void
test_joint_displacement (void)
{
  static const char text[] =
    HEAD "  - { name: R, joint_type: free }\n"
    "  - { name: J, parent: R, joint_type: revolute, joint_axis: x, joint_range: 90, "
    "joint_displacement: 30 }\n"
    "  - { name: P, parent: J, joint_type: prismatic, joint_axis: -z, joint_range: 0.3, "
    "joint_displacement: 0.1 }\n"
    "  - { name: K, parent: P, joint_type: revolute, jointDisplacement: -45 }\n"
    "  - { name: L, parent: K, joint_type: revolute, joint_angle: 12.5 }\n"
    "  - { name: M, parent: L, joint_type: revolute }\n"
    "  - { name: F, parent: M, joint_type: fixed, joint_displacement: 0 }\n";
  static const char radians[] =
    "format: ChoreonoidBody\nformat_version: 1.0\nangle_unit: radian\nlinks:\n"
    "  - { name: A }\n"
    "  - { name: B, parent: A, joint_type: revolute, joint_displacement: 0.5 }\n";
  static const char zero[] =
    HEAD "  - { name: A }\n  - { name: B, parent: A, joint_type: revolute, "
    "joint_displacement: 0 }\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(KmSkeleton) skel = NULL;
  g_autoptr(KmSkeleton) other = NULL;
  g_autoptr(KmModelExtras) extras = NULL;
  g_autofree double *q = NULL;
  g_autofree double *q_radians = NULL;
  g_autofree double *q_zero = NULL;
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-body-pose-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "pose.body", NULL);
  const KmFormat *format = NULL;
  KmSkeleton *loaded;

  test_util_push_warnings (warnings);
  skel = km_body_load_with_pose ("t.body", text, strlen (text), NULL, &q, &error);
  test_util_pop_warnings (warnings);
  g_assert_no_error (error);
  test_util_assert_no_warnings (warnings);
  g_assert_nonnull (q);
  g_assert_cmpfloat (q[test_util_joint (skel, "J")->dof_index], ==, 30 * DEG);
  g_assert_cmpfloat (q[test_util_joint (skel, "P")->dof_index], ==, 0.1);
  g_assert_cmpfloat (q[test_util_joint (skel, "K")->dof_index], ==, -45 * DEG);
  g_assert_cmpfloat (q[test_util_joint (skel, "L")->dof_index], ==, 12.5 * DEG);
  g_assert_cmpfloat (q[test_util_joint (skel, "M")->dof_index], ==, 0);

  other = km_body_load_with_pose ("r.body", radians, strlen (radians), NULL, &q_radians,
                                  &error);
  g_assert_no_error (error);
  g_assert_nonnull (q_radians);
  g_assert_cmpfloat (q_radians[test_util_joint (other, "B")->dof_index], ==, 0.5);
  g_clear_pointer (&other, km_skeleton_unref);
  /* All zeros is the zero pose: none stated. */
  other = km_body_load_with_pose ("z.body", zero, strlen (zero), NULL, &q_zero, &error);
  g_assert_no_error (error);
  g_assert_null (q_zero);

  /* As a model file: the pose is the model's initial pose (kinema-cli info, import). */
  g_assert_true (g_file_set_contents (path, text, -1, &error));
  loaded = km_format_load_model_file (path, NULL, &format, &extras, &error);
  g_assert_no_error (error);
  g_assert_true (format == &km_format_choreonoid_body);
  g_assert_cmpuint (extras->n_initial_q, ==, km_skeleton_get_n_dof (skel));
  for (guint k = 0; k < extras->n_initial_q; k++)
    g_assert_cmpfloat (extras->initial_q[k], ==, q[k]);
  format->free_result (loaded);
  g_unlink (path);
  g_rmdir (dir);
}

/* A joint displacement Kinema cannot use is a located warning, not an error; one outside
 * the range is kept (as Choreonoid keeps it), with a warning. */
static void
test_joint_displacement_warnings (void)
{
  static const char text[] =
    HEAD "  - name: A\n    joint_displacement: 5\n"
    "  - name: B\n    parent: A\n    joint_type: revolute\n    joint_range: [ -90, 90 ]\n"
    "    joint_displacement: 120\n"
    "  - name: C\n    parent: B\n    joint_type: prismatic\n    joint_displacement: fast\n"
    "  - name: D\n    parent: C\n    joint_type: prismatic\n    joint_displacement: [ 1 ]\n"
    "  - name: E\n    parent: D\n    joint_type: prismatic\n    joint_range: [ 0, unlimited ]\n"
    "    joint_displacement: -0.5\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(KmSkeleton) skel = NULL;
  g_autofree double *q = NULL;

  test_util_push_warnings (warnings);
  skel = km_body_load_with_pose ("t.body", text, strlen (text), NULL, &q, &error);
  test_util_pop_warnings (warnings);
  g_assert_no_error (error);
  g_assert_cmpuint (warnings->len, ==, 5);
  test_util_assert_warning (warnings, "t.body:5:25: the joint displacement of “A” is ignored: "
                            "the link has no revolute or prismatic joint");
  test_util_assert_warning (warnings, "t.body:10:25: the joint displacement of “B” (120) is "
                            "outside its joint range [-90, 90]; it is kept");
  test_util_assert_warning (warnings, "t.body:14:25: the joint displacement of “C” is "
                            "ignored: expected a finite number");
  test_util_assert_warning (warnings, "t.body:18:25: the joint displacement of “D” is "
                            "ignored");
  test_util_assert_warning (warnings, "t.body:23:25: the joint displacement of “E” (-0.5) is "
                            "outside its joint range [0, unlimited]");
  g_assert_nonnull (q);
  g_assert_cmpfloat (q[test_util_joint (skel, "B")->dof_index], ==, 120 * DEG);
  g_assert_cmpfloat (q[test_util_joint (skel, "C")->dof_index], ==, 0);
  g_assert_cmpfloat (q[test_util_joint (skel, "D")->dof_index], ==, 0);
  g_assert_cmpfloat (q[test_util_joint (skel, "E")->dof_index], ==, -0.5);
}

/* Whether some double d gives @value as the .body reader converts degrees (d × DEG): not
 * every radian double has one (a tenth or so between 0.56 and 1 rad have none). */
static gboolean
has_degree_double (double value)
{
  double d = value / DEG;

  for (int k = 0; k < 8; k++)
    d = nextafter (d, -INFINITY);
  for (int k = 0; k <= 16; k++, d = nextafter (d, INFINITY))
    if (d * DEG == value)
      return TRUE;
  return FALSE;
}

/* The radians the reader makes of the degrees km_format_scaled_number() writes for
 * @value are @value exactly where a double in degrees gives it, else one ulp away; the
 * text is the shortest that does so (not longer than that of the quotient). */
static void
assert_degrees_read_back (double value)
{
  char text[G_ASCII_DTOSTR_BUF_SIZE], quotient[G_ASCII_DTOSTR_BUF_SIZE];
  double back;

  km_format_scaled_number (value, KM_FORMAT_RADIANS_PER_DEGREE, text, sizeof text);
  back = g_ascii_strtod (text, NULL) * DEG;
  if (has_degree_double (value))
    {
      if (back != value)
        g_error ("%.17g rad written as %s° reads back as %.17g", value, text, back);
    }
  else
    g_assert_true (back == nextafter (value, -INFINITY) || back == nextafter (value, INFINITY));
  km_yaml_format_number (value / DEG, quotient, sizeof quotient);
  if (back == g_ascii_strtod (quotient, NULL) * DEG)
    g_assert_cmpuint (strlen (text), <=, strlen (quotient));
}

/* Angles go through degrees in a .body file: the writer picks the degree text that the
 * reader takes back to the same radians (0.8 rad was 45.836623610465864°, which reads
 * back as 0.8000000000000002), for ranges, displacements and velocities alike; other
 * values are written as they are. */
static void
test_degrees_round_trip (void)
{
  g_autoptr(GArray) values = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(KmSkeletonBuilder) builder = km_skeleton_builder_new ();
  g_autoptr(KmSkeleton) skel = NULL;
  g_autoptr(KmSkeleton) back = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *written = NULL;
  g_autofree char *plain = NULL;
  g_autofree double *q = NULL;
  g_autofree double *q_back = NULL;
  char text[G_ASCII_DTOSTR_BUF_SIZE];
  guint n_exact = 0;
  double v;

  v = 0.8;
  g_array_append_val (values, v);
  for (int k = -31; k <= 31; k++)
    {
      v = 0.1 * k;
      g_array_append_val (values, v);
    }
  for (int k = 1; k <= 7; k++)
    {
      v = k * G_PI / 7;
      g_array_append_val (values, v);
      v = -v;
      g_array_append_val (values, v);
    }
  v = G_PI / 2;
  g_array_append_val (values, v);
  for (int k = 0; k < 300; k++)
    {
      v = g_test_rand_double_range (-2 * G_PI, 2 * G_PI);
      g_array_append_val (values, v);
    }
  v = 1e-7;
  g_array_append_val (values, v);

  for (guint i = 0; i < values->len; i++)
    assert_degrees_read_back (g_array_index (values, double, i));
  km_format_scaled_number (0.8, KM_FORMAT_RADIANS_PER_DEGREE, text, sizeof text);
  g_assert_cmpstr (text, ==, "45.83662361046586");
  km_format_scaled_number (30 * DEG, KM_FORMAT_RADIANS_PER_DEGREE, text, sizeof text);
  g_assert_cmpstr (text, ==, "30");
  km_format_scaled_number (-0.0, KM_FORMAT_RADIANS_PER_DEGREE, text, sizeof text);
  g_assert_cmpstr (text, ==, "0");
  km_format_scaled_number (0.1, 1, text, sizeof text);
  g_assert_cmpstr (text, ==, "0.1");
  km_format_scaled_number (-INFINITY, KM_FORMAT_RADIANS_PER_DEGREE, text, sizeof text);
  g_assert_cmpstr (text, ==, "-.inf");

  /* Through the writer and the reader: joint k has the range [v, |v| + 1], the
   * displacement v and the velocity |v| + 0.5; a prismatic joint keeps its metres. */
  km_skeleton_builder_add_joint (builder, "base", KM_JOINT_FIXED, NULL);
  for (guint i = 0; i < values->len; i++)
    {
      g_autofree char *name = g_strdup_printf ("j%u", i);
      g_autofree char *parent = i > 0 ? g_strdup_printf ("j%u", i - 1) : g_strdup ("base");
      guint joint;

      v = g_array_index (values, double, i);
      joint = km_skeleton_builder_add_joint (builder, name, KM_JOINT_REVOLUTE, parent);
      km_skeleton_builder_set_axis (builder, joint, km_vec3 (0, 0, 1));
      km_skeleton_builder_set_limit (builder, joint, 0, v, fabs (v) + 1);
      km_skeleton_builder_set_max_velocity (builder, joint, fabs (v) + 0.5);
    }
  km_skeleton_builder_set_axis (builder, km_skeleton_builder_add_joint (builder, "slide",
                                                                      KM_JOINT_PRISMATIC,
                                                                      "base"),
                                km_vec3 (1, 0, 0));
  skel = km_skeleton_builder_build (builder, NULL, &error);
  g_assert_no_error (error);
  q = g_new0 (double, km_skeleton_get_n_dof (skel));
  for (guint i = 0; i < values->len; i++)
    {
      g_autofree char *name = g_strdup_printf ("j%u", i);

      q[test_util_joint (skel, name)->dof_index] = g_array_index (values, double, i);
    }
  q[test_util_joint (skel, "slide")->dof_index] = 0.3;

  plain = km_body_to_string (skel, NULL);
  g_assert_null (strstr (plain, "joint_displacement"));
  written = km_body_to_string_with_pose (skel, q, NULL);
  g_assert_nonnull (strstr (written, "joint_range: [ 45.83662361046586, "));
  g_assert_nonnull (strstr (written, "joint_displacement: 45.83662361046586\n"));
  g_assert_null (strstr (written, "45.836623610465864"));
  g_assert_nonnull (strstr (written, "joint_displacement: 0.3\n"));
  test_util_push_warnings (warnings);
  back = km_body_load_with_pose ("back.body", written, strlen (written), NULL, &q_back, &error);
  test_util_pop_warnings (warnings);
  g_assert_no_error (error);
  test_util_assert_no_warnings (warnings);
  g_assert_nonnull (q_back);
  for (guint i = 0; i < values->len; i++)
    {
      g_autofree char *name = g_strdup_printf ("j%u", i);
      const KmJoint *a = test_util_joint (skel, name);
      const KmJoint *b = test_util_joint (back, name);
      double want[3] = { a->limits[0].min, a->limits[0].max, a->max_velocity };
      double got[3] = { b->limits[0].min, b->limits[0].max, b->max_velocity };

      v = g_array_index (values, double, i);
      for (guint k = 0; k < 3; k++)
        if (has_degree_double (want[k]))
          g_assert_cmpfloat (got[k], ==, want[k]);
        else
          g_assert_cmpfloat (fabs (got[k] - want[k]), <=, 2.5e-16 * MAX (fabs (want[k]), 1));
      if (has_degree_double (v))
        {
          g_assert_cmpfloat (q_back[b->dof_index], ==, v);
          n_exact++;
        }
      else
        g_assert_true (q_back[b->dof_index] == nextafter (v, -INFINITY) ||
                       q_back[b->dof_index] == nextafter (v, INFINITY));
    }
  g_assert_cmpfloat (q_back[test_util_joint (back, "slide")->dof_index], ==, 0.3);
  /* Most values have their degree double: the sweep says something. */
  g_assert_cmpuint (n_exact, >, values->len * 8 / 10);
}

/* A link's joint_name (Choreonoid's Link::jointName()) names its joint; the link keeps
 * its name, which `parent` refers to (here from a link listed before it). The joint is the
 * end effector by either name, and the writers keep both names apart. */
static void
test_joint_name (void)
{
  static const char text[] =
    HEAD "  - name: BASE\n"
    "  - name: C\n    parent: A\n    jointName: C_J\n    joint_type: prismatic\n"
    "    joint_id: 1\n    joint_displacement: 0.25\n"
    "  - name: A\n    parent: BASE\n    joint_name: A_JOINT\n    joint_type: revolute\n"
    "    joint_axis: Y\n    joint_id: 0\n    joint_range: [ -90, 90 ]\n"
    "    joint_displacement: 30\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(KmSkeleton) skel = NULL;
  g_autoptr(KmSkeleton) back = NULL;
  g_autofree double *q = NULL;
  g_autofree double *q_back = NULL;
  g_autofree char *written = NULL;
  g_autofree char *urdf = NULL;
  const KmJoint *a, *c;

  test_util_push_warnings (warnings);
  skel = km_body_load_with_pose ("t.body", text, strlen (text), NULL, &q, &error);
  test_util_pop_warnings (warnings);
  g_assert_no_error (error);
  test_util_assert_no_warnings (warnings);
  g_assert_cmpint (km_skeleton_find_joint (skel, "A"), <, 0);
  g_assert_cmpint (km_skeleton_find_joint (skel, "C"), <, 0);
  a = test_util_joint (skel, "A_JOINT");
  c = test_util_joint (skel, "C_J");
  g_assert_cmpstr (km_joint_get_link_name (a), ==, "A");
  g_assert_cmpstr (km_joint_get_link_name (c), ==, "C");
  g_assert_null (test_util_joint (skel, "BASE")->link_name);
  g_assert_cmpstr (km_skeleton_get_joint (skel, (guint) c->parent)->name, ==, "A_JOINT");
  g_assert_cmpstr (km_skeleton_get_joint (skel, (guint) a->parent)->name, ==, "BASE");
  g_assert_cmpint (a->type, ==, KM_JOINT_REVOLUTE);
  assert_vec3 (a->axis, 0, 1, 0);
  g_assert_cmpint (a->joint_id, ==, 0);
  g_assert_cmpfloat_with_epsilon (a->limits[0].max, 90 * DEG, 1e-12);
  g_assert_cmpint (c->joint_id, ==, 1);
  /* The file order is kept: the displacements stay with their joints. */
  g_assert_cmpuint (c->file_index, ==, 1);
  g_assert_nonnull (q);
  g_assert_cmpfloat_with_epsilon (q[a->dof_index], 30 * DEG, 1e-12);
  g_assert_cmpfloat (q[c->dof_index], ==, 0.25);
  g_assert_cmpint (km_skeleton_find_effector (skel, "A_JOINT"), ==,
                   km_skeleton_find_joint (skel, "A_JOINT"));
  g_assert_cmpint (km_skeleton_find_effector (skel, "A"), ==,
                   km_skeleton_find_joint (skel, "A_JOINT"));

  /* .body → .body: the link is named, its joint_name written, parents are link names. */
  written = km_body_to_string_with_pose (skel, q, NULL);
  g_assert_nonnull (strstr (written, "name: \"A\"\n    joint_name: \"A_JOINT\"\n    parent: \"BASE\"\n"));
  g_assert_nonnull (strstr (written, "name: \"C\"\n    joint_name: \"C_J\"\n    parent: \"A\"\n"));
  g_assert_null (strstr (written, "name: \"BASE\"\n    joint_name"));
  test_util_push_warnings (warnings);
  back = km_body_load_with_pose ("back.body", written, strlen (written), NULL, &q_back, &error);
  test_util_pop_warnings (warnings);
  g_assert_no_error (error);
  test_util_assert_no_warnings (warnings);
  g_assert_true (km_skeleton_equal (skel, back, 1e-12));
  g_assert_cmpstr (km_joint_get_link_name (test_util_joint (back, "A_JOINT")), ==, "A");
  g_assert_cmpstr (km_joint_get_link_name (test_util_joint (back, "C_J")), ==, "C");
  g_assert_cmpfloat (q_back[test_util_joint (back, "C_J")->dof_index], ==, 0.25);

  /* URDF has room for both. */
  urdf = km_urdf_to_string (skel, NULL);
  g_assert_nonnull (strstr (urdf, "<joint name=\"A_JOINT\" type=\"revolute\">"));
  g_assert_nonnull (strstr (urdf, "<link name=\"A\""));
  g_assert_null (strstr (urdf, "<joint name=\"A\""));

  /* Joint names are unique among the joints: a link's name is its joint's without one. */
  assert_error (HEAD "  - name: A\n    joint_name: J\n  - name: B\n    parent: A\n"
                "    joint_name: J\n",
                "t.body:8:17: expected a joint name no other joint has, found “J”");
  assert_error (HEAD "  - name: A\n  - name: B\n    parent: A\n    jointName: A\n",
                "t.body:7:16: expected a joint name no other joint has, found “A”");
  assert_error (HEAD "  - name: A\n    joint_name: B\n  - name: B\n    parent: A\n",
                "t.body:6:11: duplicate joint name “B”");
  assert_error (HEAD "  - name: A\n  - name: B\n    parent: A\n    joint_name: [ J ]\n",
                "t.body:7:17: expected");
  assert_error (HEAD "  - name: A\n  - name: B\n    parent: A\n    joint_name: ''\n",
                "t.body:7:17: a joint name must be between");
}

/* Where two links would have the same name (a joint's link named like another joint's, as
 * a skeleton.json may say), each link is named after its joint, as before joint_name was
 * written, and the link names are left out with a note. */
static void
test_joint_name_link_clash (void)
{
  g_autoptr(KmSkeletonBuilder) builder = km_skeleton_builder_new ();
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = NULL;
  g_autoptr(KmSkeleton) back = NULL;
  g_autofree char *written = NULL;
  guint y;

  km_skeleton_builder_add_joint (builder, "X", KM_JOINT_FIXED, NULL);
  y = km_skeleton_builder_add_joint (builder, "Y", KM_JOINT_REVOLUTE, "X");
  km_skeleton_builder_set_axis (builder, y, km_vec3 (0, 0, 1));
  km_skeleton_builder_set_link_name (builder, y, "X");
  skel = km_skeleton_builder_build (builder, NULL, &error);
  g_assert_no_error (error);
  written = km_body_to_string (skel, notes);
  g_assert_null (strstr (written, "joint_name"));
  g_assert_nonnull (strstr (written, "name: \"Y\"\n    parent: \"X\"\n"));
  g_assert_cmpuint (notes->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (notes, 0), ==, "a .body link is named after its joint: "
                   "the link “X” of joint “Y” is written as “Y”");
  back = km_body_load ("back.body", written, strlen (written), NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (km_skeleton_find_joint (back, "Y"), >=, 0);
}

/* A body switched to its own file or format (km_body_item_set_model with the strings it
 * returns) keeps them: they were read after being freed, and a body switched to
 * "skeleton.json" saved its format as "skeleton.json", which no reader knows. */
static void
test_set_model_own_strings (void)
{
  g_autoptr(KmItem) body = km_body_item_new ();
  KmBodyItem *item = KM_BODY_ITEM (body);

  km_body_item_set_model (item, "/models/arm.json", "SKELETON-JSON", NULL);
  km_body_item_set_model (item, km_body_item_get_file (item), km_body_item_get_format (item),
                          NULL);
  g_assert_cmpstr (km_body_item_get_file (item), ==, "/models/arm.json");
  g_assert_cmpstr (km_body_item_get_format (item), ==, "SKELETON-JSON");
  km_body_item_set_model (item, "skeleton.json", km_body_item_get_format (item), NULL);
  g_assert_cmpstr (km_body_item_get_file (item), ==, "skeleton.json");
  g_assert_cmpstr (km_body_item_get_format (item), ==, "SKELETON-JSON");
}

/* Linked (mimic) joints survive a .body: the writer gives a follower Kinema's
 * kinema_mimic (offset in degrees for a revolute joint), the loader links it again. Before,
 * a follower was written as an independent joint. */
static const char mimic_urdf[] =
  "<robot name=\"gripper\">\n"
  "  <link name=\"base\"/><link name=\"l1\"/><link name=\"l2\"/><link name=\"l3\"/>\n"
  "  <link name=\"l4\"/><link name=\"l5\"/>\n"
  "  <joint name=\"a\" type=\"revolute\"><parent link=\"base\"/><child link=\"l1\"/>"
  "<axis xyz=\"0 0 1\"/><limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/></joint>\n"
  "  <joint name=\"b\" type=\"revolute\"><parent link=\"l1\"/><child link=\"l2\"/>"
  "<origin xyz=\"0.1 0 0\"/><axis xyz=\"0 1 0\"/>"
  "<limit lower=\"-3\" upper=\"3\" effort=\"1\" velocity=\"1\"/>"
  "<mimic joint=\"a\" multiplier=\"-2\" offset=\"0.1\"/></joint>\n"
  "  <joint name=\"p\" type=\"prismatic\"><parent link=\"base\"/><child link=\"l3\"/>"
  "<origin xyz=\"0 0.2 0\"/><axis xyz=\"1 0 0\"/>"
  "<limit lower=\"0\" upper=\"0.04\" effort=\"1\" velocity=\"1\"/></joint>\n"
  "  <joint name=\"q\" type=\"prismatic\"><parent link=\"base\"/><child link=\"l4\"/>"
  "<origin xyz=\"0 -0.2 0\"/><axis xyz=\"-1 0 0\"/>"
  "<limit lower=\"-0.1\" upper=\"0.1\" effort=\"1\" velocity=\"1\"/>"
  "<mimic joint=\"p\" multiplier=\"0.5\" offset=\"-0.01\"/></joint>\n"
  "  <joint name=\"r\" type=\"prismatic\"><parent link=\"l2\"/><child link=\"l5\"/>"
  "<axis xyz=\"0 0 1\"/><limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/>"
  "<mimic joint=\"a\" multiplier=\"0.05\"/></joint>\n"
  "</robot>\n";

static void
assert_same_mimics (const KmSkeleton *a,
                    const KmSkeleton *b)
{
  g_assert_cmpuint (km_skeleton_get_n_joints (a), ==, km_skeleton_get_n_joints (b));
  for (guint i = 0; i < km_skeleton_get_n_joints (a); i++)
    {
      const KmJoint *x = km_skeleton_get_joint (a, i);
      int k = km_skeleton_find_joint (b, x->name);
      const KmJoint *y;

      g_assert_cmpint (k, >=, 0);
      y = km_skeleton_get_joint (b, (guint) k);
      g_assert_cmpint (x->mimic < 0, ==, y->mimic < 0);
      if (x->mimic < 0)
        continue;
      g_assert_cmpstr (km_skeleton_get_joint (a, (guint) x->mimic)->name, ==,
                       km_skeleton_get_joint (b, (guint) y->mimic)->name);
      g_assert_cmpfloat_with_epsilon (x->mimic_ratio, y->mimic_ratio, 1e-12);
      g_assert_cmpfloat_with_epsilon (x->mimic_offset, y->mimic_offset, 1e-12);
    }
}

static void
test_mimic_round_trip (void)
{
  KmUrdfOptions urdf_options = { NULL, FALSE };
  KmBodyOptions options = { .load_meshes = FALSE };
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(KmSkeleton) urdf = km_urdf_load ("g.urdf", mimic_urdf, strlen (mimic_urdf),
                                             &urdf_options, &error);
  g_autofree char *text = NULL;
  g_autofree char *again = NULL;
  g_autoptr(KmSkeleton) back = NULL;
  g_autoptr(KmSkeleton) back2 = NULL;
  g_autofree double *q = NULL;
  g_autofree double *q_back = NULL;
  int b;

  g_assert_no_error (error);
  g_assert_true (km_skeleton_has_mimic (urdf));
  text = km_body_to_string (urdf, notes);
  for (guint n = 0; n < notes->len; n++)
    g_assert_null (strstr (g_ptr_array_index (notes, n), "follows"));
  /* The follower's offset in degrees, as the file's other angles. */
  b = km_skeleton_find_joint (urdf, "b");
  g_assert_nonnull (strstr (text, "kinema_mimic: { joint: \"a\", multiplier: -2, offset: "));
  back = km_body_load ("g.body", text, strlen (text), &options, &error);
  g_assert_no_error (error);
  g_assert_nonnull (back);
  g_assert_true (km_skeleton_equal (urdf, back, 1e-12));
  assert_same_mimics (urdf, back);
  g_assert_cmpfloat_with_epsilon (km_skeleton_get_joint (back, (guint) km_skeleton_find_joint (
                                    back, "b"))->mimic_offset, 0.1, 1e-15);
  g_assert_cmpfloat_with_epsilon (km_skeleton_get_joint (urdf, (guint) b)->mimic_offset, 0.1,
                                  1e-15);
  /* Every joint value follows as before. */
  q = km_skeleton_dup_mimic_rest_pose (urdf);
  q_back = km_skeleton_dup_mimic_rest_pose (back);
  q[km_skeleton_get_joint (urdf, (guint) km_skeleton_find_joint (urdf, "a"))->dof_index] = 0.3;
  q[km_skeleton_get_joint (urdf, (guint) km_skeleton_find_joint (urdf, "p"))->dof_index] = 0.03;
  memcpy (q_back, q, km_skeleton_get_n_dof (urdf) * sizeof (double));
  km_skeleton_apply_mimic (urdf, q);
  km_skeleton_apply_mimic (back, q_back);
  for (guint d = 0; d < km_skeleton_get_n_dof (urdf); d++)
    g_assert_cmpfloat_with_epsilon (q[d], q_back[d], 1e-12);
  /* And once more: the text is stable. */
  again = km_body_to_string (back, NULL);
  back2 = km_body_load ("g.body", again, strlen (again), &options, &error);
  g_assert_no_error (error);
  assert_same_mimics (urdf, back2);
}

/* A hand-written kinema_mimic without joint_name keys: the leader by its link name, the
 * offset in the file's angle unit, the multiplier 1 by default. */
static void
test_mimic_read (void)
{
  static const char text[] =
    HEAD
    "  - { name: base, joint_type: fixed }\n"
    "  - { name: a, parent: base, joint_type: revolute, joint_range: [ -90, 90 ] }\n"
    "  - name: b\n"
    "    parent: a\n"
    "    joint_type: revolute\n"
    "    kinema_mimic: { joint: a, offset: 10 }\n"
    "  - name: c\n"
    "    parent: base\n"
    "    joint_type: prismatic\n"
    "    kinema_mimic: { joint: a, multiplier: 0.25, offset: 0.5 }\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = km_body_load ("t.body", text, strlen (text), NULL, &error);
  const KmJoint *b, *c;

  g_assert_no_error (error);
  b = km_skeleton_get_joint (skel, (guint) km_skeleton_find_joint (skel, "b"));
  c = km_skeleton_get_joint (skel, (guint) km_skeleton_find_joint (skel, "c"));
  g_assert_cmpint (b->mimic, >=, 0);
  g_assert_cmpint (c->mimic, >=, 0);
  g_assert_cmpstr (km_skeleton_get_joint (skel, (guint) b->mimic)->name, ==, "a");
  g_assert_cmpfloat (b->mimic_ratio, ==, 1.0);
  g_assert_cmpfloat_with_epsilon (b->mimic_offset, 10 * G_PI / 180, 1e-15);
  g_assert_cmpstr (km_skeleton_get_joint (skel, (guint) c->mimic)->name, ==, "a");
  g_assert_cmpfloat (c->mimic_ratio, ==, 0.25);
  g_assert_cmpfloat (c->mimic_offset, ==, 0.5);
}

static void
test_mimic_errors (void)
{
#define TWO "  - { name: base, joint_type: fixed }\n" \
            "  - { name: a, parent: base, joint_type: revolute }\n"
  assert_error (HEAD TWO "  - { name: b, parent: a, joint_type: revolute, kinema_mimic: 3 }\n",
                "t.body:6:63: expected a mapping");
  assert_error (HEAD TWO "  - { name: b, parent: a, joint_type: revolute,"
                " kinema_mimic: { joint: [ a ] } }\n", "t.body:6:72: expected a string");
  assert_error (HEAD TWO "  - { name: b, parent: a, joint_type: revolute,"
                " kinema_mimic: { multiplier: 2 } }\n", "t.body:6:63: missing key “joint”");
  assert_error (HEAD TWO "  - { name: b, parent: a, joint_type: revolute,"
                " kinema_mimic: { joint: a, multiplier: two } }\n",
                "t.body:6:87: expected a finite number");
  assert_error (HEAD TWO "  - { name: b, parent: a, joint_type: revolute,"
                " kinema_mimic: { joint: a, offset: .inf } }\n",
                "t.body:6:83: expected a finite number");
  assert_error (HEAD TWO "  - { name: b, parent: a, joint_type: revolute,"
                " kinema_mimic: { joint: a, ratio: 2 } }\n",
                "t.body:6:75: expected joint, multiplier or offset");
  assert_error (HEAD TWO "  - { name: b, parent: a, joint_type: revolute,"
                " kinema_mimic: { joint: nosuch } }\n",
                "t.body:6:72: joint “b” follows an unknown joint “nosuch”");
  assert_error (HEAD TWO "  - { name: b, parent: a, joint_type: fixed,"
                " kinema_mimic: { joint: a } }\n",
                "t.body:6:69: only revolute and prismatic joints can be linked");
  /* A leader that follows another joint, and a cycle. */
  assert_error (HEAD TWO "  - { name: b, parent: a, joint_type: revolute,"
                " kinema_mimic: { joint: a } }\n"
                "  - { name: c, parent: b, joint_type: revolute,"
                " kinema_mimic: { joint: b } }\n",
                "t.body:7:72: joint “c” follows “b”, which follows another joint itself");
  assert_error (HEAD TWO "  - { name: b, parent: a, joint_type: revolute,"
                " kinema_mimic: { joint: c } }\n"
                "  - { name: c, parent: b, joint_type: revolute,"
                " kinema_mimic: { joint: b } }\n",
                "t.body:6:72: joint “b” follows “c”, which follows another joint itself");
  /* With joint names, the leader is named by its joint's. */
  assert_error (HEAD TWO "  - { name: b, joint_name: B, parent: a, joint_type: revolute,"
                " kinema_mimic: { joint: nosuch } }\n",
                "t.body:6:87: joint “B” follows an unknown joint “nosuch”");
#undef TWO
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/kinema/Body/sr1", test_sr1);
  g_test_add_func ("/kinema/Body/import-list-order", test_import_list_order);
  g_test_add_func ("/kinema/Body/set-model-own-strings", test_set_model_own_strings);
  g_test_add_func ("/kinema/Body/closed-link", test_closed_link);
  g_test_add_func ("/kinema/Body/floor", test_floor);
  g_test_add_func ("/kinema/Body/features", test_features);
  g_test_add_func ("/kinema/Body/errors", test_errors);
  g_test_add_func ("/kinema/Body/mimic-round-trip", test_mimic_round_trip);
  g_test_add_func ("/kinema/Body/mimic-read", test_mimic_read);
  g_test_add_func ("/kinema/Body/mimic-errors", test_mimic_errors);
  g_test_add_func ("/kinema/Body/model-name-default", test_model_name_default);
  g_test_add_func ("/kinema/Body/one-sided-range", test_one_sided_range);
  g_test_add_func ("/kinema/Body/sniff", test_sniff);
  g_test_add_func ("/kinema/Body/sub-body-error-chain", test_sub_body_error_chain);
  g_test_add_func ("/kinema/Body/rebased-resources", test_rebased_resources);
  g_test_add_func ("/kinema/Body/package-resources", test_package_resources);
  g_test_add_func ("/kinema/Body/package-mesh-saved-elsewhere",
                   test_package_mesh_saved_elsewhere);
  g_test_add_func ("/kinema/Body/resource-node", test_resource_node);
  g_test_add_func ("/kinema/Body/unloaded-resource-node", test_unloaded_resource_node);
  g_test_add_func ("/kinema/Body/unloaded-resource-color", test_unloaded_resource_color);
  g_test_add_func ("/kinema/Body/spherical-joint-id-displacements",
                   test_spherical_joint_id_displacements);
  g_test_add_func ("/kinema/Body/joint-ids-kept", test_joint_ids_kept);
  g_test_add_func ("/kinema/Body/joint-ids-new", test_joint_ids_new);
  g_test_add_func ("/kinema/Body/mesh-file-references", test_mesh_file_references);
  g_test_add_func ("/kinema/Body/duplicate-joint-id", test_duplicate_joint_id);
  g_test_add_func ("/kinema/Body/rejected-elements", test_rejected_elements);
  g_test_add_func ("/kinema/Body/sniff-wrapper", test_sniff_wrapper);
  g_test_add_func ("/kinema/Body/joint-displacement", test_joint_displacement);
  g_test_add_func ("/kinema/Body/joint-displacement-warnings",
                   test_joint_displacement_warnings);
  g_test_add_func ("/kinema/Body/degrees-round-trip", test_degrees_round_trip);
  g_test_add_func ("/kinema/Body/joint-name", test_joint_name);
  g_test_add_func ("/kinema/Body/links-keyed-by-type", test_links_keyed_by_type);
  g_test_add_func ("/kinema/Body/beyond-degrees", test_beyond_degrees);
  g_test_add_func ("/kinema/Body/joint-name-link-clash", test_joint_name_link_clash);

  return g_test_run ();
}
