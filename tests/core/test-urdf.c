/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gstdio.h>

#include "km-error.h"
#include "km-format.h"
#include "km-mesh-loader.h"
#include "km-scenebuilder.h"
#include "km-urdf.h"
#include "km-urdf-writer.h"

#include "km-test-tmp.h"

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

/* urdfdom accepts these files: they load, with one warning that starts with @expected. */
static void
assert_warning (const char *text,
                const char *expected)
{
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = load_text (text, warnings, &error);

  g_assert_no_error (error);
  g_assert_nonnull (skel);
  g_assert_cmpuint (warnings->len, ==, 1);
  if (!g_str_has_prefix (g_ptr_array_index (warnings, 0), expected))
    g_error ("expected “%s…”, got “%s”", expected, (char *) g_ptr_array_index (warnings, 0));
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

    /* The missing mesh is a warning; the link keeps the reference as written, without a
     * mesh (nothing is drawn). */
    shapes = km_skeleton_get_shapes (skel, km_skeleton_find_joint (skel, "wrist_2_joint"), &n);
    g_assert_cmpuint (n, ==, 1);
    g_assert_cmpint (shapes[0]->type, ==, KM_SHAPE_MESH);
    g_assert_null (shapes[0]->mesh);
    g_assert_cmpstr (shapes[0]->uri, ==, "package://kinema_arm/meshes/missing.stl");
    g_assert_null (shapes[0]->material);
  }
  g_assert_true (has_warning (warnings, "missing.stl"));
  g_assert_true (has_warning (warnings, "ur5.urdf:73:39: "));
}

/* The cube of tests/data/kinema_arm/meshes, named package://kinema_arm/…, is found through
 * @paths: the link gets its one shape. */
static void
assert_package_mesh_found (const char * const *paths)
{
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

/* A mesh file of a URDF given by a bare name is named in messages as the user would name
 * it ("meshes/bad.stl", not "./meshes/bad.stl"), and found from the working folder. */
static void
test_mesh_message_paths (void)
{
  static const char urdf[] =
    "<robot name='r'>\n"
    "  <link name='base'>\n"
    "    <visual><geometry><mesh filename='meshes/bad.stl'/></geometry></visual>\n"
    "    <visual><geometry><mesh filename='./meshes/tri.stl'/></geometry></visual>\n"
    "  </link>\n"
    "</robot>\n";
  static const char tri[] =
    "solid t\nfacet normal 0 0 1\n outer loop\n  vertex 0 0 0\n  vertex 1 0 0\n"
    "  vertex 0 1 0\n endloop\nendfacet\nendsolid t\n";
  static const char bad[] = "solid t\nfacet normal 0 0 1\n outer loop\n  vertex 0 0 x\n";
  g_autofree char *cwd = g_get_current_dir ();
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-urdf-paths-XXXXXX");
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = NULL;
  KmUrdfOptions options = { NULL, TRUE };
  KmShape * const *shapes;
  const char *message;
  guint n = 0;

  g_assert_cmpint (g_chdir (dir), ==, 0);
  g_assert_cmpint (g_mkdir ("meshes", 0755), ==, 0);
  g_assert_true (g_file_set_contents ("meshes/tri.stl", tri, -1, NULL));
  g_assert_true (g_file_set_contents ("meshes/bad.stl", bad, -1, NULL));
  km_parse_warnings_push (collect_warning, warnings);
  skel = km_urdf_load ("r.urdf", urdf, strlen (urdf), &options, &error);
  km_parse_warnings_pop ();
  g_assert_cmpint (g_chdir (cwd), ==, 0);
  g_assert_no_error (error);
  g_assert_cmpuint (warnings->len, ==, 1);
  message = g_ptr_array_index (warnings, 0);
  if (!g_str_has_prefix (message, "r.urdf:3:39: mesh “meshes/bad.stl” is not drawn: "
                                  "meshes/bad.stl:4:14: "))
    g_error ("got “%s”", message);
  shapes = km_skeleton_get_shapes (skel, 0, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_null (shapes[0]->mesh);
  g_assert_nonnull (shapes[1]->mesh);
}

static void
test_package_paths (void)
{
  g_autofree char *dir = g_test_build_filename (G_TEST_DIST, "data", NULL);
  const char *paths[] = { dir, NULL };

  assert_package_mesh_found (paths);
}

/* A ROS workspace on the package path keeps its packages in src/REPOSITORY/PACKAGE: here
 * the package path is tests/, and the package tests/data/kinema_arm. */
static void
test_package_in_workspace (void)
{
  const char *paths[] = { "/nonexistent-kinema-path", g_test_get_dir (G_TEST_DIST), NULL };

  assert_package_mesh_found (paths);
}

/* A package folder under another name (a repository cloned as itself): the mesh is found
 * in the first folder above the URDF that has the path after the package name. */
static void
test_package_renamed_folder (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "kinema_arm", "urdf",
                                                 "renamed.urdf", NULL);
  static const char text[] =
    "<robot name='p'><link name='a'><visual><geometry>"
    "<mesh filename='package://arm_description/meshes/cube.stl'/></geometry></visual>"
    "</link></robot>";
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = NULL;
  KmShape * const *shapes;
  guint n;

  km_parse_warnings_push (collect_warning, warnings);
  skel = km_urdf_load (path, text, strlen (text), NULL, &error);
  km_parse_warnings_pop ();
  g_assert_no_error (error);
  g_assert_cmpuint (warnings->len, ==, 0);
  shapes = km_skeleton_get_shapes (skel, 0, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpint (shapes[0]->type, ==, KM_SHAPE_MESH);
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
  /* Not well-formed: an end tag that closes another element than the open one, at its
   * start, saying which end tag was expected. */
  assert_error ("<robot name='r'>\n  <link name='a'>\n</robot>",
                "t.urdf:3:1: expected “</link>” instead of “</robot>”");
  assert_error ("<robt/>", "t.urdf:1:1: expected <robot>");
  /* A second document element: located, and the first one's name is not leaked (ASan). */
  assert_error ("<robot name='a'/>\n<robot name='b'/>\n",
                "t.urdf:2:1: a second document element <robot> after the first one ended");
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
  /* A xacro file given as URDF: the message says what to do. */
  assert_error ("<robot name='r' xmlns:xacro='http://www.ros.org/wiki/xacro'>\n"
                "<link name='a'/><link name='b'/>\n"
                "<joint name='j' type='revolute'><parent link='a'/><child link='b'/>\n"
                "  <origin xyz='0 0 ${len}'/></joint></robot>",
                "t.urdf:4:16: expected numbers in “xyz”, found a xacro expression: "
                "expand the file with xacro first");
  assert_error ("<robot name='r'><link name='a'/><link name='b'/>\n"
                "<joint name='j' type='revolute'><parent link='a'/><child link='b'/>\n"
                "  <axis xyz='0 0 0'/></joint></robot>",
                "t.urdf:3:14: the axis of joint “j” must not be zero");
  /* Inverted limits are refused as skeleton.json and .body refuse them (they once left the
   * joint unlimited with a warning: a typo gave the IK every position), at the attribute:
   * lower, else upper (lower defaults to 0). */
  assert_error ("<robot name='r'><link name='a'/><link name='b'/>\n"
                "<joint name='j' type='revolute'><parent link='a'/><child link='b'/>\n"
                "  <limit lower='1' upper='-1'/></joint></robot>",
                "t.urdf:3:17: expected lower ≤ upper");
  assert_error ("<robot name='r'><link name='a'/><link name='b'/>\n"
                "<joint name='j' type='prismatic'><parent link='a'/><child link='b'/>\n"
                "  <limit effort='1' upper='-0.5'/></joint></robot>",
                "t.urdf:3:28: expected lower ≤ upper");
  assert_error ("<robot name='r'><link name='a'/><link name='b'/></robot>",
                "t.urdf:1:45: expected one root link");
  assert_warning ("<robot name='r'><link name='a'><visual><geometry>\n"
                  "<box size='1 1'/></geometry></visual></link></robot>",
                  "t.urdf:2:12: expected 3 finite numbers separated by spaces in “size”; "
                  "the visual is left out");
  assert_error ("<robot name='r'><link name='ä'/><link name='ä'/></robot>",
                "t.urdf:1:45: duplicate link name");
  /* Entities beyond XML's five are refused by GMarkup. */
  assert_error ("<!DOCTYPE r [<!ENTITY a 'aaaa'>]><robot name='&a;'/>", "t.urdf:1:");
}

/* A DOCTYPE with an internal subset is still URDF (the sniffer skips the subset), and is
 * refused where its declarations are: entities are never expanded (a "billion laughs" of
 * nested entities would be one way to exhaust memory). A subset of comments only
 * declares nothing and loads; a DOCTYPE inside the document element is refused. */
static void
test_doctype_internal_subset (void)
{
  static const char entity[] =
    "<?xml version=\"1.0\"?>\n"
    "<!DOCTYPE robot [ <!ENTITY len \"0.5\"> ]>\n"
    "<robot name=\"x\"><link name=\"a\"/><link name=\"b\"/>\n"
    "<joint name=\"j\" type=\"fixed\"><parent link=\"a\"/><child link=\"b\"/>"
    "<origin xyz=\"0 0 &len;\"/></joint></robot>\n";
  static const char subset[] =
    "<!DOCTYPE robot [\n  <!-- a ] and a > in a comment -->\n]>\n<robot name='x'/>";
  static const char quoted[] =
    "<!DOCTYPE robot SYSTEM \"urdf[1].dtd\">\n<robot name='x'><link name='a'/></robot>";
  static const char comment[] =
    "<!DOCTYPE robot [ <!-- note --> ]>\n<robot name='x'><link name='a'/></robot>";
  static const char element[] =
    "<!DOCTYPE robot [\n  <!-- note -->\n  <!ELEMENT robot ANY>\n]>\n<robot name='x'/>";
  static const char late[] =
    "<robot name='x'><link name='a'/>\n"
    "  <!DOCTYPE robot [ <!ENTITY n 'a'> ]>\n</robot>";
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = NULL;

  g_assert_cmpint (km_urdf_sniff (entity, strlen (entity)), >, 50);
  g_assert_cmpint (km_urdf_sniff (subset, strlen (subset)), >, 50);
  g_assert_cmpint (km_urdf_sniff (quoted, strlen (quoted)), >, 50);
  g_assert_cmpint (km_urdf_sniff (comment, strlen (comment)), >, 50);
  assert_error (entity, "t.urdf:2:19: expected no entity declarations: an internal DTD "
                        "subset (“<!DOCTYPE … [ … ]>”) is not supported");
  assert_error (element, "t.urdf:3:3: expected no declarations in an internal DTD subset "
                         "(“<!DOCTYPE … [ … ]>”), found “<!ELEMENT”");
  /* GMarkup would end the DOCTYPE at the comment's '>'. */
  assert_error (subset, "t.urdf:2:18: expected no “<” or “>” in a DOCTYPE's comments and "
                        "quoted values");
  assert_error (late, "t.urdf:2:3: expected no DOCTYPE inside or after the document "
                      "element");
  /* A bracket in a quoted system identifier is no subset. */
  skel = load_text (quoted, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (skel);
  g_clear_pointer (&skel, km_skeleton_unref);
  /* Comments only: no declaration, nothing to refuse. */
  skel = load_text (comment, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (skel);
  g_assert_cmpstr (km_skeleton_get_root_name (skel), ==, "a");
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

static const char mimic_urdf[] =
  "<robot name='g'><link name='base'/><link name='l'/><link name='r'/><link name='t'/>\n"
  "<joint name='left' type='prismatic'><parent link='base'/><child link='l'/><axis xyz='0 1 0'/><limit lower='0' upper='0.04'/></joint>\n"
  "<joint name='right' type='prismatic'><parent link='base'/><child link='r'/><axis xyz='0 1 0'/><limit lower='-0.04' upper='0'/>\n"
  "  <mimic joint='left' multiplier='-1' offset='0.001'/></joint>\n"
  "<joint name='tip' type='continuous'><parent link='r'/><child link='t'/><axis xyz='0 0 1'/>\n"
  "  <mimic joint='right' multiplier='2' offset='0.1'/></joint>\n"
  "<link name='f'/><joint name='f' type='fixed'><parent link='t'/><child link='f'/>\n"
  "  <mimic joint='left'/></joint>\n"
  "</robot>\n";

static void
assert_mimic (const KmSkeleton *skel,
              const char       *name,
              const char       *master,
              double            ratio,
              double            offset)
{
  const KmJoint *j = km_skeleton_get_joint (skel, (guint) km_skeleton_find_joint (skel, name));

  g_assert_cmpint (j->mimic, ==, km_skeleton_find_joint (skel, master));
  g_assert_cmpfloat_with_epsilon (j->mimic_ratio, ratio, 1e-15);
  g_assert_cmpfloat_with_epsilon (j->mimic_offset, offset, 1e-15);
}

static void
test_mimic (void)
{
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = load_text (mimic_urdf, warnings, &error);
  g_autoptr(KmSkeleton) again = NULL;
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *text = NULL;

  g_assert_no_error (error);
  g_assert_true (km_skeleton_has_mimic (skel));
  assert_mimic (skel, "right", "left", -1, 0.001);
  /* tip mimics right, which mimics left: tip = 2·(−left + 0.001) + 0.1 */
  assert_mimic (skel, "tip", "left", -2, 0.102);
  g_assert_cmpint (km_skeleton_get_joint (skel, (guint) km_skeleton_find_joint (skel, "left"))->mimic,
                   ==, -1);
  g_assert_cmpint (km_skeleton_get_joint (skel, (guint) km_skeleton_find_joint (skel, "f"))->mimic,
                   ==, -1);
  g_assert_cmpuint (warnings->len, ==, 2);
  g_assert_true (has_warning (warnings, "t.urdf:6:17: joint “tip” mimics “right”, which mimics "
                                        "another joint: it follows “left”"));
  g_assert_true (has_warning (warnings, "t.urdf:8:17: <mimic> links only revolute, continuous "
                                        "and prismatic joints; joint “f” moves on its own"));

  /* Written back: <mimic> on each follower, read to the same couplings. */
  text = km_urdf_to_string (skel, notes);
  g_assert_nonnull (strstr (text, "<mimic joint=\"left\" multiplier=\"-1\" offset=\"0.001\"/>"));
  /* 0.1 + 2 · 0.001 is 0.10200000000000001 in binary; written so that it reads back. */
  g_assert_nonnull (strstr (text, "<mimic joint=\"left\" multiplier=\"-2\" offset=\"0.102"));
  again = km_urdf_load ("w.urdf", text, strlen (text), NULL, &error);
  g_assert_no_error (error);
  g_assert_true (km_skeleton_equal (skel, again, 1e-12));
  assert_mimic (again, "right", "left", -1, 0.001);
  assert_mimic (again, "tip", "left", -2, 0.102);
}

static void
test_mimic_errors (void)
{
  static const char head[] =
    "<robot name='g'><link name='base'/><link name='l'/><link name='r'/>\n"
    "<joint name='left' type='revolute'><parent link='base'/><child link='l'/><limit lower='-1' upper='1'/>\n";
  g_autofree char *unknown = g_strconcat (head,
    "  <mimic joint='nope'/></joint>\n"
    "<joint name='right' type='continuous'><parent link='base'/><child link='r'/></joint></robot>", NULL);
  g_autofree char *cycle = g_strconcat (head,
    "  <mimic joint='right'/></joint>\n"
    "<joint name='right' type='continuous'><parent link='base'/><child link='r'/>\n"
    "  <mimic joint='left'/></joint></robot>", NULL);
  g_autofree char *itself = g_strconcat (head,
    "  <mimic joint='left'/></joint>\n"
    "<joint name='right' type='continuous'><parent link='base'/><child link='r'/></joint></robot>", NULL);
  g_autofree char *twice = g_strconcat (head,
    "  <mimic joint='right'/><mimic joint='right'/></joint>\n"
    "<joint name='right' type='continuous'><parent link='base'/><child link='r'/></joint></robot>", NULL);
  g_autofree char *bad_number = g_strconcat (head,
    "  <mimic joint='right' multiplier='two'/></joint>\n"
    "<joint name='right' type='continuous'><parent link='base'/><child link='r'/></joint></robot>", NULL);
  g_autofree char *no_joint = g_strconcat (head,
    "  <mimic multiplier='2'/></joint>\n"
    "<joint name='right' type='continuous'><parent link='base'/><child link='r'/></joint></robot>", NULL);

  /* urdfdom does not check <mimic> names and reads the first <mimic>: these load. */
  assert_warning (unknown, "t.urdf:3:17: joint “left” mimics “nope”, which is not a joint; "
                           "it moves on its own");
  assert_warning (itself, "t.urdf:3:17: the <mimic> joints of “left” form a cycle; it moves "
                          "on its own");
  assert_warning (twice, "t.urdf:3:25: a second <mimic> in joint “left” is ignored");
  {
    g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
    g_autoptr(GError) error = NULL;
    g_autoptr(KmSkeleton) skel = load_text (cycle, warnings, &error);

    g_assert_no_error (error);
    g_assert_cmpuint (warnings->len, ==, 2);
    g_assert_cmpstr (g_ptr_array_index (warnings, 0), ==,
                     "t.urdf:3:17: the <mimic> joints of “left” form a cycle; it moves on its own");
    g_assert_cmpstr (g_ptr_array_index (warnings, 1), ==,
                     "t.urdf:5:17: the <mimic> joints of “right” form a cycle; it moves on its own");
    g_assert_false (km_skeleton_has_mimic (skel));
  }
  assert_error (bad_number, "t.urdf:3:36: ");
  assert_error (no_joint, "t.urdf:3:3: ");

  /* A joint whose limits its master's range cannot meet (urdfdom would move it outside
   * them) loses its link, with a warning: it keeps its limits and moves on its own. */
  {
    g_autofree char *unreachable = g_strconcat (head,
      "</joint>\n"
      "<joint name='right' type='revolute'><parent link='base'/><child link='r'/><limit lower='5' upper='6'/>\n"
      "  <mimic joint='left'/></joint></robot>", NULL);
    g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
    g_autoptr(GError) error = NULL;
    g_autoptr(KmSkeleton) skel = load_text (unreachable, warnings, &error);
    const KmJoint *right;

    g_assert_no_error (error);
    g_assert_cmpuint (warnings->len, ==, 1);
    g_assert_cmpstr (g_ptr_array_index (warnings, 0), ==,
                     "t.urdf:5:17: expected limits of “right” that it can reach following "
                     "“left”: with ratio 1 and offset 0 it moves within [-1, 1], outside its "
                     "limits [5, 6]; joint “right” moves on its own");
    g_assert_false (km_skeleton_has_mimic (skel));
    right = km_skeleton_get_joint (skel, (guint) km_skeleton_find_joint (skel, "right"));
    g_assert_cmpint (right->mimic, ==, -1);
    g_assert_true (right->limits[0].limited);
    g_assert_cmpfloat (right->limits[0].min, ==, 5.0);
    g_assert_cmpfloat (right->limits[0].max, ==, 6.0);
  }
}

/* A long chain of mimics (each joint resolved once): every joint follows the first one. */
static void
test_mimic_chain (void)
{
  GString *text = g_string_new ("<robot name='c'><link name='l0'/>\n");
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = NULL;
  const guint n = 2000;
  const KmJoint *last;

  for (guint i = 1; i <= n; i++)
    {
      g_string_append_printf (text, "<link name='l%u'/><joint name='j%u' type='continuous'>"
                              "<parent link='l%u'/><child link='l%u'/>", i, i, i - 1, i);
      if (i > 1)
        g_string_append_printf (text, "<mimic joint='j%u' offset='0.5'/>", i - 1);
      g_string_append (text, "</joint>\n");
    }
  g_string_append (text, "</robot>\n");
  km_parse_warnings_push (collect_warning, warnings);
  skel = km_urdf_load ("chain.urdf", text->str, text->len, NULL, &error);
  km_parse_warnings_pop ();
  g_assert_no_error (error);
  /* j2 follows j1 directly; j3 … jn through a chain (one warning each). */
  g_assert_cmpuint (warnings->len, ==, n - 2);
  last = km_skeleton_get_joint (skel, (guint) km_skeleton_find_joint (skel, "j2000"));
  g_assert_cmpint (last->mimic, ==, km_skeleton_find_joint (skel, "j1"));
  g_assert_cmpfloat (last->mimic_ratio, ==, 1.0);
  g_assert_cmpfloat_with_epsilon (last->mimic_offset, 0.5 * (n - 1), 1e-9);
  g_string_free (text, TRUE);
}

/* urdfdom reads the first shape of a <geometry>; DART's primitive_geometry.urdf has three. */
static void
test_geometry_first_shape (void)
{
  const char *text =
    "<robot name='r'>\n"
    "<link name='base'><visual><geometry>\n"
    "  <sphere radius='0.5'/>\n"
    "  <cylinder radius='1' length='1'/>\n"
    "  <box size='1 1 1'/>\n"
    "</geometry></visual></link>\n"
    "</robot>\n";
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = load_text (text, warnings, &error);
  KmShape * const *shapes;
  guint n;

  g_assert_no_error (error);
  shapes = km_skeleton_get_shapes (skel, 0, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpint (shapes[0]->type, ==, KM_SHAPE_SPHERE);
  g_assert_cmpfloat (shapes[0]->radius, ==, 0.5);
  g_assert_cmpuint (warnings->len, ==, 2);
  g_assert_true (has_warning (warnings, "t.urdf:4:3: <geometry> has more than one shape; <cylinder>"));
  g_assert_true (has_warning (warnings, "t.urdf:5:3: <geometry> has more than one shape; <box>"));
}

/* km_format_load_file reads UTF-16 (with its byte order mark, LE or BE) as the same text
 * in UTF-8: detected as URDF, errors at the same line and column. */
static void
test_utf16 (void)
{
  static const char urdf[] =
    "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n"
    "<robot name=\"r\">\n"
    "  <link name=\"a\"/><link name=\"b\"/>\n"
    "  <joint name=\"j\" type=\"revolute\"><parent link=\"a\"/><child link=\"b\"/>\n"
    "    <limit lower=\"LOWER\" upper=\"1\" effort=\"1\" velocity=\"1\"/></joint>\n"
    "</robot>\n";
  const char *encodings[] = { "UTF-16LE", "UTF-16BE" };
  const char *boms[] = { "\xFF\xFE", "\xFE\xFF" };
  g_autofree char *dir = km_test_make_tmp_dir ("km-urdf-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "r.urdf", NULL);

  for (guint e = 0; e < G_N_ELEMENTS (encodings); e++)
    for (guint bad = 0; bad < 2; bad++)
      {
        g_autoptr(GString) text = g_string_new (urdf);
        g_autoptr(GError) error = NULL;
        g_autofree char *converted = NULL;
        g_autofree char *data = NULL;
        const KmFormat *format = NULL;
        gpointer result;
        gsize length;

        g_string_replace (text, "LOWER", bad ? "é" : "-1", 1);
        converted = g_convert (text->str, -1, encodings[e], "UTF-8", NULL, &length, NULL);
        g_assert_nonnull (converted);
        data = g_malloc (length + 2);
        memcpy (data, boms[e], 2);
        memcpy (data + 2, converted, length);
        g_assert_true (g_file_set_contents (path, data, (gssize) length + 2, NULL));

        result = km_format_load_file (path, NULL, &format, &error);
        if (bad)
          {
            g_autofree char *expected = g_strdup_printf ("%s:5:19: ", path);

            g_assert_null (result);
            g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_INVALID);
            g_assert_true (g_str_has_prefix (error->message, expected));
          }
        else
          {
            g_assert_no_error (error);
            g_assert_nonnull (result);
            g_assert_cmpstr (format->name, ==, "URDF");
            g_assert_cmpuint (km_skeleton_get_n_dof (result), ==, 1);
            format->free_result (result);
          }
      }
}

/* The syntax error loader @f (0: URDF, 1: Collada, 2: Scenebuilder, as the roots robot,
 * COLLADA and scene) gives for @text, read as @path (asserted to be one). */
static GError *
xml_syntax_error (guint       f,
                  const char *path,
                  const char *text,
                  gsize       length)
{
  GError *error = NULL;
  gpointer result;

  if (f == 0)
    result = km_urdf_load (path, text, length, NULL, &error);
  else if (f == 1)
    result = km_mesh_load_collada (path, text, length, &error);
  else
    result = km_scenebuilder_load (path, text, length, &error);
  g_assert_null (result);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_SYNTAX);
  return error;
}

/* Where GMarkup stops on XML that is not well-formed, in every XML loader (URDF, COLLADA,
 * Scenebuilder): the character it stopped at, or just past the last one at the end of the
 * text, in characters, on the first line as on the others (GMarkup counts a line's '\n' as
 * the next line's first column). ROOT is each format's document element. */
static void
test_xml_error_positions (void)
{
  static const struct
  {
    const char *text;
    guint       line;
    guint       column;   /* as written, with ROOT: on line 1 it moves with the root */
  } cases[] = {
    /* the end, inside an attribute value: line 3 has 15 characters */
    { "<ROOT name=\"r\">\n  <link name=\"a\"/>\n  <link name=\"b", 3, 16 },
    { "<ROOT name=\"r", 1, 14 },
    /* at an unquoted value */
    { "<ROOT name='r'>\n  <link name=a/>\n</ROOT>", 2, 14 },
    { "<ROOT name=r/>", 1, 12 },
    /* characters, not bytes */
    { "<ROOT name='r'>\n  <link name='\xc3\xa9' x=y/>\n</ROOT>", 2, 20 },
    /* the end, on an empty last line */
    { "<ROOT name='r'>\n  <link name='a'>\n", 3, 1 },
    /* a name GMarkup does not take: at its start, not after it where GMarkup stopped */
    { "<ROOT name='r'>\n  <link 1name='a'/>\n</ROOT>", 2, 9 },
    { "<ROOT name='r'>\n  <link name='a' na@me='b'/>\n</ROOT>", 2, 18 },
    { "<ROOT name='r'>\n  <link name='\xc3\xa9'  2y = 'b'/>\n</ROOT>", 2, 19 },
    { "<ROOT name='r'>\n  <link 1name\n  ='a'/>\n</ROOT>", 2, 9 },
    { "<ROOT name='r'>\n  <li%nk name='a'/>\n</ROOT>", 2, 4 },
    { "<ROOT name='r'>\n  <1link/>\n</ROOT>", 2, 4 },
    /* a stray '<': at it, not where GMarkup stopped (the next line, or past a name) */
    { "<ROOT name='r'>\n  <link name='a' <\n</ROOT>", 2, 18 },
    { "<ROOT name='r'>\n  <link name='a' <x='1'/>\n</ROOT>", 2, 18 },
    { "<ROOT name='r'>\n  <link name='a'/> a < b\n</ROOT>", 2, 22 },
    /* a byte of no UTF-8: at it, not past the value or text it is in */
    { "<ROOT name='r'>\n  <link name='ok\xff" "x'/>\n</ROOT>", 2, 17 },
    { "<ROOT name='r'>\n  <link name='\xc3\xa9\xc3\xa9\xe9'/>\n</ROOT>", 2, 17 },
    { "<ROOT name='r'>\n  <link name='a'/> caf\xe9\n</ROOT>", 2, 23 },
  };
  static const char *const roots[] = { "robot", "COLLADA", "scene" };
  static const char *const paths[] = { "t.urdf", "t.dae", "t.xml" };
  /* Lines ended as on Windows and old Macs too: the same positions. */
  static const char *const line_ends[] = { "\n", "\r\n", "\r" };

  for (guint i = 0; i < G_N_ELEMENTS (cases) * G_N_ELEMENTS (line_ends); i++)
    for (guint f = 0; f < G_N_ELEMENTS (roots); f++)
      {
        guint c = i / G_N_ELEMENTS (line_ends);
        g_autoptr(GString) text = g_string_new (cases[c].text);
        guint column = cases[c].column + (cases[c].line == 1 ? strlen (roots[f]) - 4 : 0);
        g_autofree char *expected = g_strdup_printf ("%s:%u:%u: ", paths[f], cases[c].line,
                                                     column);
        g_autoptr(GError) error = NULL;

        g_string_replace (text, "ROOT", roots[f], 0);
        g_string_replace (text, "\n", line_ends[i % G_N_ELEMENTS (line_ends)], 0);
        g_test_message ("%s", text->str);
        error = xml_syntax_error (f, paths[f], text->str, text->len);
        if (!g_str_has_prefix (error->message, expected))
          g_error ("expected “%s…”, got “%s”", expected, error->message);
      }
}

/* An attribute given twice is not well-formed XML (GMarkup takes it, passing both), in
 * every XML loader: refused at the second one's name. */
static void
test_xml_duplicate_attributes (void)
{
  static const struct
  {
    const char *text;
    const char *name;
    guint       line;
    guint       column;
  } cases[] = {
    { "<ROOT name='r'>\n  <link name='a' name='b'/>\n</ROOT>", "name", 2, 18 },
    { "<ROOT name='r'>\n  <link\n    name='a'\n    name = 'a'/>\n</ROOT>", "name", 4, 5 },
    /* more than a few attributes; the same name in a value is no attribute */
    { "<ROOT name='r'>\n  <x a='1' b='2' c='3' d='4' e=' b=' f='6' g='7' h='8' i='9' "
      "b='x'/>\n</ROOT>", "b", 2, 62 },
    { "<ROOT name='r' name='s'/>", "name", 1, 16 },
  };
  static const char *const roots[] = { "robot", "COLLADA", "scene" };
  static const char *const paths[] = { "t.urdf", "t.dae", "t.xml" };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    for (guint f = 0; f < G_N_ELEMENTS (roots); f++)
      {
        g_autoptr(GString) text = g_string_new (cases[c].text);
        guint column = cases[c].column + (cases[c].line == 1 ? strlen (roots[f]) - 4 : 0);
        g_autofree char *expected = g_strdup_printf ("%s:%u:%u: attribute “%s” is given twice",
                                                     paths[f], cases[c].line, column,
                                                     cases[c].name);
        g_autoptr(GError) error = NULL;

        g_string_replace (text, "ROOT", roots[f], 0);
        g_test_message ("%s", text->str);
        error = xml_syntax_error (f, paths[f], text->str, text->len);
        g_assert_cmpstr (error->message, ==, expected);
      }

  /* URDF's own: the reviewer's <origin> */
  assert_error ("<robot name='r'>\n <link name='a'>\n  <visual><origin xyz='1 0 0' "
                "xyz='2 0 0'/></visual>\n </link>\n</robot>",
                "t.urdf:3:31: attribute “xyz” is given twice");
}

/* A literal '<' in an attribute value is not well-formed XML (GMarkup takes it), in every
 * XML loader: refused at that '<'; "&lt;" is fine. */
static void
test_xml_lt_in_attribute (void)
{
  static const char *const roots[] = { "robot", "COLLADA", "scene" };
  static const char *const paths[] = { "t.urdf", "t.dae", "t.xml" };

  for (guint f = 0; f < G_N_ELEMENTS (roots); f++)
    {
      g_autofree char *text = g_strdup_printf ("<%s name='r'>\n  <!-- <x a='<'/> -->\n"
                                               "  <joint name=\"a&lt;b\" type=\"a<b\"/>\n"
                                               "</%s>", roots[f], roots[f]);
      g_autofree char *expected = g_strdup_printf ("%s:3:31: expected “&lt;” instead of “<” "
                                                   "in an attribute value", paths[f]);
      g_autoptr(GError) error = NULL;

      g_test_message ("%s", text);
      error = xml_syntax_error (f, paths[f], text, strlen (text));
      g_assert_cmpstr (error->message, ==, expected);
    }
}

/* Lines that end in a lone CR (old Mac files): an error or a warning is on its line, not
 * on line 1 at a column as large as its offset. */
static void
test_cr_line_ends (void)
{
  static const char bad_child[] =
    "<robot name=\"r\">\r  <link name=\"a\"/>\r  <link name=\"b\"/>\r"
    "  <joint name=\"j\" type=\"revolute\">\r    <parent link=\"a\"/>\r"
    "    <child link=\"c\"/>\r  </joint>\r</robot>\r";
  static const char truncated[] =
    "<robot name=\"r\">\r  <link name=\"a\"/>\r  <link name=\"b\"/>\r"
    "  <joint name=\"j\" type=\"revolute\">\r    <parent link=\"a\"/>\r"
    "    <child link=\"b\"/>\r  </joint>\r</robot\r";
  static const char limits[] =
    "<robot name='r'><link name='a'/><link name='b'/>\r\r"
    "<joint name='j' type='revolute'><parent link='a'/><child link='b'/>\r"
    "  <limit lower='1' upper='-1'/></joint></robot>";

  assert_error (bad_child, "t.urdf:6:18: expected the name of a link, “c” is none");
  assert_error (truncated, "t.urdf:9:1: expected well-formed XML: ");
  assert_error (limits, "t.urdf:4:17: expected lower ≤ upper");
}

/* A name with a control character in GMarkup's message is escaped C-style (as names in
 * every message are), in every XML loader: the message stays one line. */
static void
test_xml_control_char_name (void)
{
  static const char *const roots[] = { "robot", "COLLADA", "scene" };
  static const char *const paths[] = { "t.urdf", "t.dae", "t.xml" };

  for (guint f = 0; f < G_N_ELEMENTS (roots); f++)
    {
      g_autofree char *text = g_strdup_printf ("<%s name='r'>\n  <link n\001me='a'/>\n"
                                               "</%s>\n", roots[f], roots[f]);
      g_autofree char *expected = g_strdup_printf ("%s:2:9: ", paths[f]);
      g_autoptr(GError) error = NULL;

      error = xml_syntax_error (f, paths[f], text, strlen (text));
      if (!g_str_has_prefix (error->message, expected)
          || strstr (error->message, "n\\x01me") == NULL)
        g_error ("expected “%sn\\x01me…”, got “%s”", expected, error->message);
      for (const char *c = error->message; *c != '\0'; c++)
        g_assert_cmpint ((guchar) *c, >=, 0x20);
    }
}

/* A file whose document element is <robot> is URDF's, an empty <robot/> too: the format
 * is detected and says what is missing (not "not a file Kinema can read"), in UTF-16 as
 * in UTF-8. */
static void
test_empty_robot (void)
{
  static const char *const texts[] = {
    "<robot/>",
    "<?xml version=\"1.0\"?>\n  <robot/>\n",
    "<robot\n/>",
  };
  static const guint lines[] = { 1, 2, 1 };
  static const guint columns[] = { 1, 3, 1 };
  g_autofree char *dir = km_test_make_tmp_dir ("km-urdf-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "r.urdf", NULL);

  for (guint t = 0; t < G_N_ELEMENTS (texts); t++)
    for (guint utf16 = 0; utf16 < 2; utf16++)
      {
        g_autoptr(GError) error = NULL;
        g_autofree char *expected = g_strdup_printf ("%s:%u:%u: expected at least one <link> "
                                                     "in <robot>", path, lines[t], columns[t]);
        const KmFormat *format = NULL;

        g_assert_cmpint (km_urdf_sniff (texts[t], strlen (texts[t])), >, 50);
        if (utf16)
          {
            gsize length = 0;
            g_autofree char *converted = g_convert (texts[t], -1, "UTF-16LE", "UTF-8", NULL,
                                                    &length, NULL);
            g_autofree char *data = g_malloc (length + 2);

            memcpy (data, "\xFF\xFE", 2);
            memcpy (data + 2, converted, length);
            g_assert_true (g_file_set_contents (path, data, (gssize) length + 2, NULL));
          }
        else
          g_assert_true (g_file_set_contents (path, texts[t], -1, NULL));
        g_assert_null (km_format_load_file (path, NULL, &format, &error));
        g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_INVALID);
        g_assert_cmpstr (error->message, ==, expected);
      }
  g_assert_cmpint (km_urdf_sniff ("<robotic/>", 10), ==, 0);
}

/* Collisions, transmissions, Gazebo extensions and ros2_control blocks are not modelled:
 * one warning per kind and file, at the first element, with the count, in the order of
 * the file; <inertial> and unknown elements are skipped without one. */
static void
test_unmodelled_elements (void)
{
  static const char text[] =
    "<robot name='r'>\n"
    "  <link name='a'><inertial/><collision/><collision/></link>\n"
    "  <gazebo reference='a'/>\n"
    "  <link name='b'><collision><geometry><box size='1 1 1'/></geometry></collision></link>\n"
    "  <joint name='j' type='fixed'><parent link='a'/><child link='b'/></joint>\n"
    "  <transmission name='t'><type>x</type></transmission>\n"
    "  <gazebo/>\n"
    "  <ros2_control name='c'/>\n"
    "</robot>\n";
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = load_text (text, warnings, &error);

  g_assert_no_error (error);
  g_assert_nonnull (skel);
  for (guint i = 0; i < warnings->len; i++)
    g_test_message ("warning: %s", (char *) warnings->pdata[i]);
  g_assert_cmpuint (warnings->len, ==, 4);
  g_assert_cmpstr (warnings->pdata[0], ==, "t.urdf:2:29: 3 <collision> elements are not "
                                           "modelled; they are skipped (the first is here)");
  g_assert_cmpstr (warnings->pdata[1], ==, "t.urdf:3:3: 2 <gazebo> elements are not "
                                           "modelled; they are skipped (the first is here)");
  g_assert_cmpstr (warnings->pdata[2], ==, "t.urdf:6:3: 1 <transmission> element is not "
                                           "modelled; it is skipped");
  g_assert_cmpstr (warnings->pdata[3], ==, "t.urdf:8:3: 1 <ros2_control> element is not "
                                           "modelled; it is skipped");
}

/* A follower's mimic offset holds from the start: the model's initial pose (what the
 * body, the solver and a .body export start at) has the follower at ratio × master +
 * offset with its master at 0, for URDF and for skeleton.json alike; a model whose links
 * move nothing at the zero pose states none. */
static void
test_mimic_offset_initial_pose (void)
{
  static const char urdf[] =
    "<robot name=\"bot\">"
    "<link name=\"base\"/><link name=\"l1\"/><link name=\"tool\"/><link name=\"f\"/>"
    "<joint name=\"j1\" type=\"continuous\"><parent link=\"base\"/><child link=\"l1\"/>"
    "<axis xyz=\"0 0 1\"/></joint>"
    "<joint name=\"wrist\" type=\"continuous\"><parent link=\"l1\"/><child link=\"tool\"/>"
    "<axis xyz=\"0 0 1\"/><mimic joint=\"j1\" multiplier=\"-0.5\" offset=\"0.1\"/></joint>"
    "<joint name=\"grip\" type=\"prismatic\"><parent link=\"l1\"/><child link=\"f\"/>"
    "<axis xyz=\"0 1 0\"/><limit lower=\"0\" upper=\"0.04\" effort=\"1\" velocity=\"1\"/>"
    "<mimic joint=\"j1\" multiplier=\"1\"/></joint>"
    "</robot>";
  static const char plain[] =
    "<robot name=\"p\"><link name=\"a\"/><link name=\"b\"/>"
    "<joint name=\"j\" type=\"continuous\"><parent link=\"a\"/><child link=\"b\"/>"
    "<axis xyz=\"0 0 1\"/></joint></robot>";
  g_autofree char *dir = km_test_make_tmp_dir ("km-urdf-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "bot.urdf", NULL);
  g_autofree char *plain_path = g_build_filename (dir, "plain.urdf", NULL);
  g_autofree char *json = g_test_build_filename (G_TEST_DIST, "data", "skeleton-mimic.json", NULL);
  g_autoptr(GError) error = NULL;
  const KmFormat *format = NULL;
  KmModelExtras *extras = NULL;
  KmSkeleton *skel;
  const KmJoint *j1, *wrist, *grip, *rack;

  g_assert_true (g_file_set_contents (path, urdf, -1, NULL));
  g_assert_true (g_file_set_contents (plain_path, plain, -1, NULL));

  skel = km_format_load_model_file (path, NULL, &format, &extras, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (format->name, ==, "URDF");
  g_assert_nonnull (extras->initial_q);
  g_assert_cmpuint (extras->n_initial_q, ==, km_skeleton_get_n_dof (skel));
  j1 = km_skeleton_get_joint (skel, (guint) km_skeleton_find_joint (skel, "j1"));
  wrist = km_skeleton_get_joint (skel, (guint) km_skeleton_find_joint (skel, "wrist"));
  grip = km_skeleton_get_joint (skel, (guint) km_skeleton_find_joint (skel, "grip"));
  g_assert_cmpfloat (extras->initial_q[j1->dof_index], ==, 0);
  g_assert_cmpfloat (extras->initial_q[wrist->dof_index], ==, -0.5 * 0 + 0.1);
  g_assert_cmpfloat (extras->initial_q[grip->dof_index], ==, 0);
  km_model_extras_free (extras);
  km_skeleton_unref (skel);

  skel = km_format_load_model_file (plain_path, NULL, &format, &extras, &error);
  g_assert_no_error (error);
  g_assert_null (extras->initial_q);
  km_model_extras_free (extras);
  km_skeleton_unref (skel);

  /* skeleton.json's "mimic": Rack = 0.02 × Pinion + 0.01. */
  skel = km_format_load_model_file (json, NULL, &format, &extras, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (format->name, ==, "SKELETON-JSON");
  g_assert_nonnull (extras->initial_q);
  rack = km_skeleton_get_joint (skel, (guint) km_skeleton_find_joint (skel, "Rack"));
  g_assert_cmpfloat_with_epsilon (extras->initial_q[rack->dof_index], 0.01, 1e-15);
  km_model_extras_free (extras);
  km_skeleton_unref (skel);

  km_test_remove_tree (dir);
}

/* A number too small for a double is a finite number: strtod reads it as a subnormal (or
 * zero) and reports ERANGE, which used to refuse it ("expected 3 finite numbers…", "expected
 * a finite number in “lower”") where .body and skeleton.json read it. One too large is
 * still refused, or left out where an effort or velocity. */
static void
test_subnormal_numbers (void)
{
  static const char text[] =
    "<robot name='r'><link name='a'/><link name='b'/>\n"
    "<joint name='j' type='revolute'><parent link='a'/><child link='b'/>\n"
    "  <origin xyz='1e-310 0 2.2250738585072014e-308' rpy='0 -1e-320 0'/>\n"
    "  <axis xyz='0 0 1'/>\n"
    "  <limit lower='-4e-320' upper='4.9e-324' effort='1e-400' velocity='3e-310'/>"
    "</joint></robot>";
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = load_text (text, warnings, &error);
  const KmJoint *j;

  g_assert_no_error (error);
  g_assert_nonnull (skel);
  g_assert_cmpuint (warnings->len, ==, 0);
  j = km_skeleton_get_joint (skel, 1);
  g_assert_cmpfloat (j->offset.x, ==, 1e-310);
  g_assert_cmpfloat (j->offset.z, ==, 2.2250738585072014e-308);
  g_assert_true (j->limits[0].limited);
  g_assert_cmpfloat (j->limits[0].min, ==, -4e-320);
  g_assert_cmpfloat (j->limits[0].max, ==, 4.9e-324);
  g_assert_cmpfloat (j->limits[0].max, >, 0);
  g_assert_cmpfloat (j->max_effort, ==, 0);
  g_assert_cmpfloat (j->max_velocity, ==, 3e-310);

  /* Too large: refused, as before. */
  assert_error ("<robot name='r'><link name='a'/><link name='b'/>\n"
                "<joint name='j' type='revolute'><parent link='a'/><child link='b'/>\n"
                "  <origin xyz='1e309 0 0'/></joint></robot>",
                "t.urdf:3:16: expected 3 finite numbers");
  assert_error ("<robot name='r'><link name='a'/><link name='b'/>\n"
                "<joint name='j' type='revolute'><parent link='a'/><child link='b'/>\n"
                "  <limit lower='-1e400' upper='1'/></joint></robot>",
                "t.urdf:3:17: expected a finite number in “lower”");
  assert_warning ("<robot name='r'><link name='a'/><link name='b'/>\n"
                  "<joint name='j' type='revolute'><parent link='a'/><child link='b'/>\n"
                  "  <limit lower='-1' upper='1' effort='-1e309'/></joint></robot>",
                  "t.urdf:3:");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/kinema/Urdf/ur5", test_ur5);
  g_test_add_func ("/kinema/Urdf/mesh-message-paths", test_mesh_message_paths);
  g_test_add_func ("/kinema/Urdf/package-paths", test_package_paths);
  g_test_add_func ("/kinema/Urdf/package-renamed-folder", test_package_renamed_folder);
  g_test_add_func ("/kinema/Urdf/package-in-workspace", test_package_in_workspace);
  g_test_add_func ("/kinema/Urdf/rpy", test_rpy);
  g_test_add_func ("/kinema/Urdf/floating", test_floating);
  g_test_add_func ("/kinema/Urdf/errors", test_errors);
  g_test_add_func ("/kinema/Urdf/subnormal-numbers", test_subnormal_numbers);
  g_test_add_func ("/kinema/Urdf/doctype-internal-subset", test_doctype_internal_subset);
  g_test_add_func ("/kinema/Urdf/geometry-first-shape", test_geometry_first_shape);
  g_test_add_func ("/kinema/Urdf/deep", test_deep);
  g_test_add_func ("/kinema/Urdf/mimic", test_mimic);
  g_test_add_func ("/kinema/Urdf/mimic-errors", test_mimic_errors);
  g_test_add_func ("/kinema/Urdf/mimic-chain", test_mimic_chain);
  g_test_add_func ("/kinema/Urdf/utf16", test_utf16);
  g_test_add_func ("/kinema/Urdf/xml-error-positions", test_xml_error_positions);
  g_test_add_func ("/kinema/Urdf/xml-duplicate-attributes", test_xml_duplicate_attributes);
  g_test_add_func ("/kinema/Urdf/xml-lt-in-attribute", test_xml_lt_in_attribute);
  g_test_add_func ("/kinema/Urdf/cr-line-ends", test_cr_line_ends);
  g_test_add_func ("/kinema/Urdf/xml-control-char-name", test_xml_control_char_name);
  g_test_add_func ("/kinema/Urdf/empty-robot", test_empty_robot);
  g_test_add_func ("/kinema/Urdf/unmodelled-elements", test_unmodelled_elements);
  g_test_add_func ("/kinema/Urdf/mimic-offset-initial-pose", test_mimic_offset_initial_pose);

  return g_test_run ();
}
