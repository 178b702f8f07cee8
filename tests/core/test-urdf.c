/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "km-error.h"
#include "km-urdf.h"

static void
collect_warning (const char *message,
                 gpointer    user_data)
{
  g_ptr_array_add (user_data, g_strdup (message));
}

static KmSkeleton *
load_text (const char  *text,
           GPtrArray   *warnings,
           GError     **error)
{
  KmSkeleton *skel;

  if (warnings)
    km_parse_warnings_push (collect_warning, warnings);
  skel = km_urdf_load ("t.urdf", text, strlen (text), NULL, error);
  if (warnings)
    km_parse_warnings_pop ();
  return skel;
}

static void
assert_error (const char *text,
              const char *expected)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = load_text (text, NULL, &error);

  g_assert_null (skel);
  g_assert_error (error, KM_PARSE_ERROR, error->code);
  if (!g_str_has_prefix (error->message, expected))
    g_error ("expected “%s…”, got “%s”", expected, error->message);
}

static gboolean
has_warning (GPtrArray  *warnings,
             const char *words)
{
  for (guint i = 0; i < warnings->len; i++)
    if (strstr (g_ptr_array_index (warnings, i), words) != NULL)
      return TRUE;
  return FALSE;
}

static void
test_ur5 (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "kinema_arm", "urdf",
                                                 "ur5.urdf", NULL);
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = NULL;
  g_autofree char *data = NULL;
  const KmJoint *j;
  KmTransform world[8];
  double q[6] = { 0 };
  gsize length;
  int ee;

  g_assert_true (g_file_get_contents (path, &data, &length, NULL));
  g_assert_cmpint (km_urdf_sniff (data, length), >, 50);
  km_parse_warnings_push (collect_warning, warnings);
  skel = km_urdf_load (path, data, length, NULL, &error);
  km_parse_warnings_pop ();
  g_assert_no_error (error);

  g_assert_cmpuint (km_skeleton_get_n_joints (skel), ==, 8);
  g_assert_cmpuint (km_skeleton_get_n_dof (skel), ==, 6);
  g_assert_cmpstr (km_skeleton_get_root_name (skel), ==, "base_link");
  g_assert_false (km_skeleton_has_free_root (skel));

  j = km_skeleton_get_joint (skel, km_skeleton_find_joint (skel, "shoulder_lift_joint"));
  g_assert_cmpint (j->type, ==, KM_JOINT_REVOLUTE);
  g_assert_cmpstr (km_skeleton_get_joint (skel, j->parent)->name, ==, "shoulder_pan_joint");
  g_assert_cmpfloat (j->axis.y, ==, 1.0);
  g_assert_true (j->limits[0].limited);
  g_assert_cmpfloat_with_epsilon (j->limits[0].min, -2 * G_PI, 1e-9);
  j = km_skeleton_get_joint (skel, km_skeleton_find_joint (skel, "elbow_joint"));
  g_assert_cmpfloat_with_epsilon (j->limits[0].max, G_PI, 1e-9);
  j = km_skeleton_get_joint (skel, km_skeleton_find_joint (skel, "wrist_3_joint"));
  g_assert_cmpint (j->type, ==, KM_JOINT_REVOLUTE);   /* continuous */
  g_assert_false (j->limits[0].limited);
  j = km_skeleton_get_joint (skel, km_skeleton_find_joint (skel, "ee_fixed_joint"));
  g_assert_cmpint (j->type, ==, KM_JOINT_FIXED);

  /* The UR5's well-known zero pose: the tool flange at (0.81725, 0.19145, -0.005491). */
  ee = km_skeleton_find_joint (skel, "ee_fixed_joint");
  km_skeleton_forward_kinematics (skel, q, NULL, world);
  g_assert_cmpfloat_with_epsilon (world[ee].pos.x, 0.81725, 1e-6);
  g_assert_cmpfloat_with_epsilon (world[ee].pos.y, 0.19145, 1e-6);
  g_assert_cmpfloat_with_epsilon (world[ee].pos.z, -0.005491, 1e-6);
  /* Pan by 90°: (x, y) → (-y, x). */
  q[km_skeleton_get_joint (skel, km_skeleton_find_joint (skel, "shoulder_pan_joint"))->dof_index]
    = G_PI / 2;
  km_skeleton_forward_kinematics (skel, q, NULL, world);
  g_assert_cmpfloat_with_epsilon (world[ee].pos.x, -0.19145, 1e-6);
  g_assert_cmpfloat_with_epsilon (world[ee].pos.y, 0.81725, 1e-6);

  /* Shapes: the base cylinder along Z, 5 cm long, ur_blue by name. */
  {
    guint n;
    KmShape * const *shapes = km_skeleton_get_shapes (skel, 0, &n);
    KmVec3 axis;

    g_assert_cmpuint (n, ==, 1);
    g_assert_cmpint (shapes[0]->type, ==, KM_SHAPE_CYLINDER);
    g_assert_cmpfloat (shapes[0]->radius, ==, 0.06);
    g_assert_cmpfloat (shapes[0]->height, ==, 0.05);
    axis = km_mat3_mul_vec3 (&shapes[0]->transform.rot, km_vec3 (0, 1, 0));
    g_assert_cmpfloat_with_epsilon (axis.z, 1, 1e-12);
    g_assert_cmpfloat_with_epsilon (shapes[0]->transform.pos.z, 0.025, 1e-12);
    g_assert_cmpfloat_with_epsilon (shapes[0]->color.b, 0.8, 1e-6);

    shapes = km_skeleton_get_shapes (skel, km_skeleton_find_joint (skel, "shoulder_pan_joint"),
                                     &n);
    g_assert_cmpuint (n, ==, 1);
    g_assert_cmpint (shapes[0]->type, ==, KM_SHAPE_BOX);
    g_assert_cmpfloat (shapes[0]->size.z, ==, 0.14);
    g_assert_cmpfloat (shapes[0]->color.r, ==, 0.5f);

    /* package:// found by walking up to the directory called kinema_arm; scaled. */
    shapes = km_skeleton_get_shapes (skel, km_skeleton_find_joint (skel, "shoulder_lift_joint"),
                                     &n);
    g_assert_cmpuint (n, ==, 1);
    g_assert_cmpint (shapes[0]->type, ==, KM_SHAPE_MESH);
    g_assert_cmpuint (km_mesh_get_n_triangles (shapes[0]->mesh), ==, 12);
    g_assert_cmpfloat_with_epsilon (shapes[0]->scale.z, 0.425, 1e-12);
    g_assert_cmpfloat_with_epsilon (shapes[0]->transform.pos.z, 0.2125, 1e-12);

    /* A relative OBJ with two materials: two shapes. */
    shapes = km_skeleton_get_shapes (skel, km_skeleton_find_joint (skel, "elbow_joint"), &n);
    g_assert_cmpuint (n, ==, 2);
    g_assert_cmpfloat (shapes[1]->color.g, ==, 1.0f);

    /* The missing mesh is a warning; the link just has no shape. */
    shapes = km_skeleton_get_shapes (skel, km_skeleton_find_joint (skel, "wrist_2_joint"), &n);
    g_assert_null (shapes);
    g_assert_cmpuint (n, ==, 0);
  }
  g_assert_true (has_warning (warnings, "missing.stl"));
  g_assert_true (has_warning (warnings, "ur5.urdf:73:39: "));
}

static void
test_package_paths (void)
{
  g_autofree char *dir = g_test_build_filename (G_TEST_DIST, "data", NULL);
  const char *paths[] = { dir, NULL };
  KmUrdfOptions options = { paths, TRUE };
  static const char text[] =
    "<robot name='p'><link name='a'><visual><geometry>"
    "<mesh filename='package://kinema_arm/meshes/cube.stl'/></geometry></visual></link>"
    "</robot>";
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = km_urdf_load ("/nowhere/p.urdf", text, strlen (text), &options,
                                             &error);
  guint n;

  g_assert_no_error (error);
  g_assert_nonnull (km_skeleton_get_shapes (skel, 0, &n));
  g_assert_cmpuint (n, ==, 1);
}

/* rpy is extrinsic X, Y, Z: Rz(y)·Ry(p)·Rx(r). */
static void
test_rpy (void)
{
  static const char text[] =
    "\xef\xbb\xbf<?xml version='1.0'?>\r\n<robot name='r'>\r\n<link name='a'/><link name='b'/>\r\n"
    "<joint name='j' type='fixed'><parent link='a'/><child link='b'/>"
    "<origin xyz='1 2 3' rpy='0.3 -0.5 1.1'/></joint></robot>\r\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = load_text (text, NULL, &error);
  KmMat3 rx, ry, rz, tmp, expected, got;
  const KmJoint *j;

  g_assert_no_error (error);
  j = km_skeleton_get_joint (skel, 1);
  g_assert_cmpstr (j->name, ==, "j");
  km_mat3_from_axis_angle (km_vec3 (1, 0, 0), 0.3, &rx);
  km_mat3_from_axis_angle (km_vec3 (0, 1, 0), -0.5, &ry);
  km_mat3_from_axis_angle (km_vec3 (0, 0, 1), 1.1, &rz);
  km_mat3_mul (&ry, &rx, &tmp);
  km_mat3_mul (&rz, &tmp, &expected);
  km_mat3_from_quat (j->rotation, &got);
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++)
      g_assert_cmpfloat_with_epsilon (got.m[r][c], expected.m[r][c], 1e-12);
  g_assert_cmpfloat (j->offset.z, ==, 3);
}

static void
test_floating (void)
{
  static const char text[] =
    "<robot name='r'><link name='world'/><link name='base'/><link name='tool'/>\n"
    "<joint name='float' type='floating'><parent link='world'/><child link='base'/></joint>\n"
    "<joint name='slide' type='planar'><parent link='base'/><child link='tool'/></joint>\n"
    "<joint name='p' type='prismatic'><parent link='tool'/><child link='x'/>"
    "<axis xyz='0 0 2'/><limit lower='-0.1' upper='0.2'/></joint><link name='x'/></robot>";
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = load_text (text, warnings, &error);
  const KmJoint *p;

  g_assert_no_error (error);
  g_assert_true (km_skeleton_has_free_root (skel));
  g_assert_cmpuint (km_skeleton_get_n_dof (skel), ==, 1);
  g_assert_cmpint (km_skeleton_get_joint (skel, 1)->type, ==, KM_JOINT_FIXED);
  g_assert_cmpint (km_skeleton_get_joint (skel, 2)->type, ==, KM_JOINT_FIXED);
  p = km_skeleton_get_joint (skel, 3);
  g_assert_cmpint (p->type, ==, KM_JOINT_PRISMATIC);
  g_assert_cmpfloat (p->axis.z, ==, 1.0);     /* normalized */
  g_assert_cmpfloat (p->limits[0].max, ==, 0.2);
  g_assert_cmpuint (warnings->len, ==, 2);
  g_assert_true (has_warning (warnings, "t.urdf:2:27: "));
  g_assert_true (has_warning (warnings, "t.urdf:3:27: "));
}

static void
test_errors (void)
{
  /* Not well-formed: GMarkup's position. */
  assert_error ("<robot name='r'>\n  <link name='a'>\n</robot>", "t.urdf:3:");
  assert_error ("<robt/>", "t.urdf:1:1: expected <robot>");
  assert_error ("<robot name='r'>\n <link name='a'/>\n <link name='b'/>\n"
                " <joint name='j' type='spiral'><parent link='a'/><child link='b'/></joint>\n"
                "</robot>", "t.urdf:4:24: expected a joint type");
  assert_error ("<robot name='r'>\n <link name='a'/>\n <link name='b'/>\n"
                " <joint name='j' type='fixed'><parent link='a'/><child link='c'/></joint>"
                "</robot>", "t.urdf:4:62: expected the name of a link, “c” is none");
  assert_error ("<robot name='r'><link name='a'/><link name='b'/>\n"
                "<joint name='j' type='revolute'><parent link='a'/><child link='b'/>\n"
                "  <axis xyz='0 0 nope'/></joint></robot>",
                "t.urdf:3:14: expected 3 finite numbers");
  assert_error ("<robot name='r'><link name='a'/><link name='b'/>\n"
                "<joint name='j' type='revolute'><parent link='a'/><child link='b'/>\n"
                "  <axis xyz='0 0 0'/></joint></robot>",
                "t.urdf:3:14: the axis of joint “j” must not be zero");
  assert_error ("<robot name='r'><link name='a'/><link name='b'/>\n"
                "<joint name='j' type='revolute'><parent link='a'/><child link='b'/>\n"
                "  <limit lower='1' upper='-1'/></joint></robot>",
                "t.urdf:3:17: limits must be");
  assert_error ("<robot name='r'><link name='a'/><link name='b'/></robot>",
                "t.urdf:1:45: expected one root link");
  assert_error ("<robot name='r'><link name='a'><visual><geometry>\n"
                "<box size='1 1'/></geometry></visual></link></robot>",
                "t.urdf:2:12: expected 3 finite numbers");
  assert_error ("<robot name='r'><link name='ä'/><link name='ä'/></robot>",
                "t.urdf:1:45: duplicate link name");
  /* Entities beyond XML's five are refused by GMarkup. */
  assert_error ("<!DOCTYPE r [<!ENTITY a 'aaaa'>]><robot name='&a;'/>", "t.urdf:1:");
}

static void
test_deep (void)
{
  GString *s = g_string_new ("<robot name='r'><link name='a'><visual>");
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = NULL;

  /* Skipped subtrees may nest as they like; read ones are bounded. */
  for (int i = 0; i < 100000; i++)
    g_string_append (s, "<x>");
  skel = km_urdf_load ("d.urdf", s->str, s->len, NULL, &error);
  g_assert_null (skel);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_SYNTAX);
  g_string_free (s, TRUE);
  g_assert_cmpint (km_urdf_sniff ("<?xml version='1.0'?>\n<robot name='x'>", 35), >, 0);
  g_assert_cmpint (km_urdf_sniff ("<scene/>", 8), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/kinema/Urdf/ur5", test_ur5);
  g_test_add_func ("/kinema/Urdf/package-paths", test_package_paths);
  g_test_add_func ("/kinema/Urdf/rpy", test_rpy);
  g_test_add_func ("/kinema/Urdf/floating", test_floating);
  g_test_add_func ("/kinema/Urdf/errors", test_errors);
  g_test_add_func ("/kinema/Urdf/deep", test_deep);

  return g_test_run ();
}
