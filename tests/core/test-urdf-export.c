/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib.h>
#include <glib/gstdio.h>

#include "km-body.h"
#include "km-body-writer.h"
#include "km-skeleton-edit.h"
#include "km-skeleton-json.h"
#include "km-urdf.h"
#include "km-urdf-writer.h"
#include "test-util.h"
#include "km-test-tmp.h"

/*
 * Link names and mesh references through the writers: URDF link names are the frames ROS
 * tools refer to, and a mesh that was not found locally stays as the file wrote it.
 */

/* The UR10 (tests/data/review/ur10.urdf): every link with its joint, as the file has them. */
static const struct
{
  const char *joint;
  const char *link;
  const char *mesh;   /* the visual's mesh, NULL when the link has no visual */
} ur10[] = {
  { "world", "world", NULL },
  { "world_joint", "base_link", "Base" },
  { "shoulder_pan_joint", "shoulder_link", "Shoulder" },
  { "shoulder_lift_joint", "upper_arm_link", "UpperArm" },
  { "elbow_joint", "forearm_link", "Forearm" },
  { "wrist_1_joint", "wrist_1_link", "Wrist1" },
  { "wrist_2_joint", "wrist_2_link", "Wrist2" },
  { "wrist_3_joint", "wrist_3_link", "Wrist3" },
  { "ee_fixed_joint", "ee_link", NULL },
};

/* Each joint of the UR10 as km_urdf_to_string() writes it: names, parent and child links,
 * origin, axis and limits as in the file, effort and velocity included. */
static const char *const ur10_joints[] = {
  "  <joint name=\"world_joint\" type=\"fixed\">\n"
  "    <parent link=\"world\"/>\n"
  "    <child link=\"base_link\"/>\n"
  "    <origin xyz=\"0 0 0\" rpy=\"0 0 0\"/>\n"
  "  </joint>\n",
  "  <joint name=\"shoulder_pan_joint\" type=\"revolute\">\n"
  "    <parent link=\"base_link\"/>\n"
  "    <child link=\"shoulder_link\"/>\n"
  "    <origin xyz=\"0 0 0.1273\" rpy=\"0 0 0\"/>\n"
  "    <axis xyz=\"0 0 1\"/>\n"
  "    <limit lower=\"-3.14159265\" upper=\"3.14159265\" effort=\"330\" velocity=\"2.16\"/>\n"
  "  </joint>\n",
  "  <joint name=\"shoulder_lift_joint\" type=\"revolute\">\n"
  "    <parent link=\"shoulder_link\"/>\n"
  "    <child link=\"upper_arm_link\"/>\n"
  "    <origin xyz=\"0 0.220941 0\" rpy=\"0 1.570796325 0\"/>\n"
  "    <axis xyz=\"0 1 0\"/>\n"
  "    <limit lower=\"-3.14159265\" upper=\"3.14159265\" effort=\"330\" velocity=\"2.16\"/>\n"
  "  </joint>\n",
  "  <joint name=\"elbow_joint\" type=\"revolute\">\n"
  "    <parent link=\"upper_arm_link\"/>\n"
  "    <child link=\"forearm_link\"/>\n"
  "    <origin xyz=\"0 -0.1719 0.612\" rpy=\"0 0 0\"/>\n"
  "    <axis xyz=\"0 1 0\"/>\n"
  "    <limit lower=\"-3.14159265\" upper=\"3.14159265\" effort=\"150\" velocity=\"3.15\"/>\n"
  "  </joint>\n",
  "  <joint name=\"wrist_1_joint\" type=\"revolute\">\n"
  "    <parent link=\"forearm_link\"/>\n"
  "    <child link=\"wrist_1_link\"/>\n"
  "    <origin xyz=\"0 0 0.5723\" rpy=\"0 1.570796325 0\"/>\n"
  "    <axis xyz=\"0 1 0\"/>\n"
  "    <limit lower=\"-3.14159265\" upper=\"3.14159265\" effort=\"54\" velocity=\"3.2\"/>\n"
  "  </joint>\n",
  "  <joint name=\"wrist_2_joint\" type=\"revolute\">\n"
  "    <parent link=\"wrist_1_link\"/>\n"
  "    <child link=\"wrist_2_link\"/>\n"
  "    <origin xyz=\"0 0.1149 0\" rpy=\"0 0 0\"/>\n"
  "    <axis xyz=\"0 0 1\"/>\n"
  "    <limit lower=\"-3.14159265\" upper=\"3.14159265\" effort=\"54\" velocity=\"3.2\"/>\n"
  "  </joint>\n",
  "  <joint name=\"wrist_3_joint\" type=\"revolute\">\n"
  "    <parent link=\"wrist_2_link\"/>\n"
  "    <child link=\"wrist_3_link\"/>\n"
  "    <origin xyz=\"0 0 0.1157\" rpy=\"0 0 0\"/>\n"
  "    <axis xyz=\"0 1 0\"/>\n"
  "    <limit lower=\"-3.14159265\" upper=\"3.14159265\" effort=\"54\" velocity=\"3.2\"/>\n"
  "  </joint>\n",
  "  <joint name=\"ee_fixed_joint\" type=\"fixed\">\n"
  "    <parent link=\"wrist_3_link\"/>\n"
  "    <child link=\"ee_link\"/>\n"
  "    <origin xyz=\"0 0.0922 0\" rpy=\"0 0 1.570796325\"/>\n"
  "  </joint>\n",
};

static KmSkeleton *
load_urdf_text (const char *path,
                const char *text,
                gboolean    load_meshes,
                GPtrArray  *warnings)
{
  g_autoptr(GError) error = NULL;
  KmUrdfOptions options = { NULL, load_meshes };
  KmSkeleton *skel;

  test_util_push_warnings (warnings);
  skel = km_urdf_load (path, text, strlen (text), &options, &error);
  test_util_pop_warnings (warnings);
  g_assert_no_error (error);
  g_assert_nonnull (skel);
  return skel;
}

static KmSkeleton *
load_ur10 (GPtrArray *warnings)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "review", "ur10.urdf",
                                                 NULL);
  g_autofree char *text = test_util_read_file (path, NULL);

  return load_urdf_text (path, text, TRUE, warnings);
}

static char *
mesh_uri (const char *name)
{
  return g_strdup_printf ("package://ur_description/meshes/ur10/visual/%s.dae", name);
}

/* The model has the UR10's joints and links, and each visual as a reference of its mesh. */
static void
assert_ur10_model (const KmSkeleton *skel,
                   gboolean          link_names)
{
  g_assert_cmpuint (km_skeleton_get_n_joints (skel), ==, G_N_ELEMENTS (ur10));
  for (guint i = 0; i < G_N_ELEMENTS (ur10); i++)
    {
      int k = km_skeleton_find_joint (skel, ur10[i].joint);
      const KmJoint *j;
      KmShape * const *shapes;
      guint n = 0;

      g_assert_cmpint (k, >=, 0);
      j = km_skeleton_get_joint (skel, (guint) k);
      g_assert_cmpstr (km_joint_get_link_name (j), ==, link_names ? ur10[i].link : ur10[i].joint);
      shapes = km_skeleton_get_shapes (skel, (guint) k, &n);
      if (ur10[i].mesh == NULL)
        {
          g_assert_cmpuint (n, ==, 0);
          continue;
        }
      {
        g_autofree char *uri = mesh_uri (ur10[i].mesh);

        g_assert_cmpuint (n, ==, 1);
        g_assert_cmpint (shapes[0]->type, ==, KM_SHAPE_MESH);
        g_assert_null (shapes[0]->mesh);
        g_assert_cmpstr (shapes[0]->uri, ==, uri);
        test_util_assert_vec3 (shapes[0]->scale, 1, 1, 1, 1e-12);
        test_util_assert_vec3 (shapes[0]->transform.pos, 0, 0, 0, 1e-12);
      }
    }
  /* The root link is "world" (the root joint, which URDF does not have, is named after it). */
  g_assert_cmpstr (km_skeleton_get_root_name (skel), ==, "world");
  g_assert_null (km_skeleton_get_joint (skel, 0)->link_name);
}

/* tests/data/review/ur10.urdf, meshes not found: URDF → URDF keeps every link name, joint
 * name, origin, axis and limit, and the 7 package:// visuals as written. */
static void
test_ur10_urdf (void)
{
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(KmSkeleton) skel = load_ur10 (warnings);
  g_autoptr(KmSkeleton) again = NULL;
  g_autofree char *text = NULL;
  g_autofree char *text_again = NULL;

  /* The 7 meshes are not found (no package path): a warning each, and references kept. */
  test_util_assert_warning (warnings, "ur10.urdf:33:25: cannot find mesh "
                                      "“package://ur_description/meshes/ur10/visual/Base.dae”");
  assert_ur10_model (skel, TRUE);

  text = km_urdf_to_string (skel, notes);
  g_assert_cmpuint (notes->len, ==, 0);
  /* The robot keeps its name, not the root link's ("world"). */
  g_assert_nonnull (strstr (text, "<robot name=\"ur10\">\n"));
  g_assert_cmpstr (km_skeleton_get_model_name (skel), ==, "ur10");
  for (guint i = 0; i < G_N_ELEMENTS (ur10_joints); i++)
    if (strstr (text, ur10_joints[i]) == NULL)
      g_error ("expected in the URDF:\n%s\ngot:\n%s", ur10_joints[i], text);
  for (guint i = 0; i < G_N_ELEMENTS (ur10); i++)
    {
      g_autofree char *link = NULL;

      if (ur10[i].mesh == NULL)
        link = g_strdup_printf ("  <link name=\"%s\"/>\n", ur10[i].link);
      else
        {
          g_autofree char *uri = mesh_uri (ur10[i].mesh);

          link = g_strdup_printf ("  <link name=\"%s\">\n"
                                  "    <visual>\n"
                                  "      <origin xyz=\"0 0 0\" rpy=\"0 0 0\"/>\n"
                                  "      <geometry><mesh filename=\"%s\"/></geometry>\n"
                                  "    </visual>\n"
                                  "  </link>\n", ur10[i].link, uri);
        }
      if (strstr (text, link) == NULL)
        g_error ("expected in the URDF:\n%s\ngot:\n%s", link, text);
    }
  /* No link is named after a joint. */
  g_assert_null (strstr (text, "<link name=\"world_joint\""));
  g_assert_null (strstr (text, "<link name=\"shoulder_pan_joint\""));

  /* Read back: the same model, written the same way. */
  g_ptr_array_set_size (warnings, 0);
  again = load_urdf_text ("again.urdf", text, TRUE, warnings);
  test_util_assert_warning (warnings, "again.urdf:12:33: cannot find mesh "
                                      "“package://ur_description/meshes/ur10/visual/Base.dae”");
  assert_ur10_model (again, TRUE);
  g_assert_true (km_skeleton_equal (skel, again, 1e-12));
  text_again = km_urdf_to_string (again, NULL);
  g_assert_cmpstr (text_again, ==, text);
}

/* URDF → skeleton.json → URDF keeps the link names (Kinema's "link" extension); URDF →
 * .body → URDF cannot (a .body link is its joint: noted) but keeps the joint names and the
 * mesh references. */
static void
test_ur10_other_formats (void)
{
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(KmSkeleton) skel = load_ur10 (warnings);
  g_autoptr(KmSkeleton) from_json = NULL;
  g_autoptr(KmSkeleton) from_body = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *json = NULL;
  g_autofree char *body = NULL;
  g_autofree char *urdf = NULL;
  g_autofree char *urdf_from_json = NULL;

  json = km_skeleton_json_to_string (skel);
  g_assert_nonnull (strstr (json, "\"name\": \"shoulder_pan_joint\""));
  g_assert_nonnull (strstr (json, "\"link\": \"shoulder_link\""));
  /* No key for a link of the joint's own name (the root). */
  g_assert_null (strstr (json, "\"link\": \"world\""));
  from_json = km_skeleton_json_load ("t.json", json, strlen (json), &error);
  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (ur10); i++)
    g_assert_cmpstr (km_joint_get_link_name (test_util_joint (from_json, ur10[i].joint)), ==,
                     ur10[i].link);
  urdf = km_urdf_to_string (skel, NULL);
  urdf_from_json = km_urdf_to_string (from_json, NULL);
  /* skeleton.json has no shapes: the links are the same, without visuals. */
  for (guint i = 0; i < G_N_ELEMENTS (ur10_joints); i++)
    g_assert_nonnull (strstr (urdf_from_json, ur10_joints[i]));

  /* A link keeps its name, its joint's is the link's joint_name (nothing is left out). */
  body = km_body_to_string (skel, notes);
  g_assert_cmpuint (notes->len, ==, 0);
  g_assert_nonnull (strstr (body, "    name: \"shoulder_link\"\n"
                                  "    joint_name: \"shoulder_pan_joint\"\n"
                                  "    parent: \"base_link\"\n"));
  g_assert_nonnull (strstr (body, "        type: \"Resource\"\n"
                                  "        uri: \"package://ur_description/meshes/ur10/visual/"
                                  "Shoulder.dae\"\n"));
  test_util_push_warnings (warnings);
  from_body = km_body_load ("t.body", body, strlen (body), NULL, &error);
  test_util_pop_warnings (warnings);
  g_assert_no_error (error);
  /* The references are not found relative to t.body either: kept again. */
  test_util_assert_warning (warnings, "t.body:");
  assert_ur10_model (from_body, TRUE);

  /* And back to URDF: the joints, links and visuals are the same. */
  g_clear_pointer (&urdf, g_free);
  urdf = km_urdf_to_string (from_body, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (ur10_joints); i++)
    g_assert_nonnull (strstr (urdf, ur10_joints[i]));
  g_assert_nonnull (strstr (urdf, "<mesh filename=\"package://ur_description/meshes/ur10/"
                                  "visual/Wrist3.dae\"/>"));
}

/* A visual whose mesh is not found keeps its origin, scale and material, and is written
 * back as it was, also when meshes are not read at all; a .body Resource too. */
static void
test_missing_mesh (void)
{
  static const char urdf[] =
    "<robot name='r'>\n"
    "  <material name='blue'><color rgba='0 0 1 1'/></material>\n"
    "  <link name='base'/>\n"
    "  <link name='l_hand'>\n"
    "    <visual>\n"
    "      <origin xyz='0.1 0.2 0.3' rpy='0.5 0 0'/>\n"
    "      <geometry><mesh filename='meshes/not-here.stl' scale='0.001 0.002 0.003'/></geometry>\n"
    "      <material name='blue'/>\n"
    "    </visual>\n"
    "    <visual><geometry><box size='1 2 3'/></geometry></visual>\n"
    "  </link>\n"
    "  <joint name='l_wrist' type='revolute'>\n"
    "    <parent link='base'/><child link='l_hand'/>\n"
    "    <axis xyz='1 0 0'/><limit lower='-1' upper='1' effort='1' velocity='1'/>\n"
    "  </joint>\n"
    "</robot>\n";
  /* The rpy goes through a rotation matrix: 0.5 may come back 0.5000000000000001. */
  static const char origin[] =
    "  <link name=\"l_hand\">\n"
    "    <visual>\n"
    "      <origin xyz=\"0.1 0.2 0.3\" rpy=\"0.5";
  static const char visual[] =
    " 0 0\"/>\n"
    "      <geometry><mesh filename=\"meshes/not-here.stl\" scale=\"0.001 0.002 0.003\"/>"
    "</geometry>\n"
    "      <material name=\"blue\"><color rgba=\"0 0 1 1\"/></material>\n"
    "    </visual>\n"
    "    <visual>\n";
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-urdf-export-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "r.urdf", NULL);
  g_autoptr(KmSkeleton) skel = NULL;
  g_autoptr(KmSkeleton) unread = NULL;
  g_autoptr(KmSkeleton) from_body = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *body = NULL;
  KmShape * const *shapes;
  guint n = 0;

  skel = load_urdf_text (path, urdf, TRUE, warnings);
  test_util_assert_warning (warnings, "r.urdf:7:33: mesh “meshes/not-here.stl” is not drawn");
  shapes = km_skeleton_get_shapes (skel, 1, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpstr (shapes[0]->uri, ==, "meshes/not-here.stl");
  g_assert_cmpstr (shapes[0]->material, ==, "blue");
  test_util_assert_vec3 (shapes[0]->scale, 0.001, 0.002, 0.003, 1e-12);
  g_assert_cmpfloat (shapes[0]->color.b, ==, 1.0f);
  g_assert_cmpint (shapes[1]->type, ==, KM_SHAPE_BOX);
  g_assert_null (shapes[1]->uri);
  g_assert_cmpstr (km_joint_get_link_name (km_skeleton_get_joint (skel, 1)), ==, "l_hand");
  g_assert_cmpstr (km_joint_get_link_name (km_skeleton_get_joint (skel, 0)), ==, "base");

  text = km_urdf_to_string (skel, notes);
  g_assert_cmpuint (notes->len, ==, 0);
  if (strstr (text, origin) == NULL || strstr (strstr (text, origin), visual) == NULL)
    g_error ("expected in the URDF:\n%s…%s\ngot:\n%s", origin, visual, text);
  /* The box's material keeps no name of its own from the file: one is made up. */
  g_assert_nonnull (strstr (text, "<material name=\"l_hand_visual1\">"));

  /* Meshes not read at all: the same references, no warning. */
  g_ptr_array_set_size (warnings, 0);
  unread = load_urdf_text (path, urdf, FALSE, warnings);
  test_util_assert_no_warnings (warnings);
  g_clear_pointer (&text, g_free);
  text = km_urdf_to_string (unread, NULL);
  g_assert_nonnull (strstr (text, origin));
  g_assert_nonnull (strstr (strstr (text, origin), visual));

  /* .body: a Resource at the visual's place, in a Shape of the material's colour, read
   * back as the same reference. */
  body = km_body_to_string (skel, NULL);
  g_assert_nonnull (strstr (body, "geometry: { type: \"Resource\", "
                                  "uri: \"meshes/not-here.stl\" }\n"));
  g_assert_nonnull (strstr (body, "appearance: { material: { diffuse: [ 0, 0, 1 ] } }\n"));
  g_assert_nonnull (strstr (body, "scale: [ 0.001, 0.002, 0.003 ]\n"));
  test_util_push_warnings (warnings);
  from_body = km_body_load (path, body, strlen (body), NULL, &error);
  test_util_pop_warnings (warnings);
  g_assert_no_error (error);
  test_util_assert_warning (warnings, "mesh “meshes/not-here.stl” is not drawn");
  shapes = km_skeleton_get_shapes (from_body, 1, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpstr (shapes[0]->uri, ==, "meshes/not-here.stl");
  g_assert_null (shapes[0]->mesh);
  g_assert_cmpfloat (shapes[0]->color.b, ==, 1.0f);
  test_util_assert_vec3 (shapes[0]->scale, 0.001, 0.002, 0.003, 1e-12);
  test_util_assert_vec3 (shapes[0]->transform.pos, 0.1, 0.2, 0.3, 1e-12);
  {
    KmQuat q = km_mat3_to_quat (&shapes[0]->transform.rot);

    g_assert_cmpfloat (km_quat_angle_between (q, km_quat_from_axis_angle (km_vec3 (1, 0, 0), 0.5)),
                       <, 1e-9);
  }
  g_rmdir (dir);
}

/* A mesh that was found and loaded is written back as the reference the file has (once,
 * however many meshes the file holds), at the visual's origin and scale, with its
 * material; also after mirroring. Effort and velocity limits are kept (a continuous joint's
 * too), and placeholders stand for unknown ones; the robot keeps its name; numbers carry no
 * float noise. URDF → .body → URDF keeps the limits and the name, and the .body names the
 * mesh file (once), as the URDF placed and scaled it. */
static void
test_loaded_mesh (void)
{
  static const char urdf[] =
    "<robot name='my_robot'>\n"
    "  <link name='base'/>\n"
    "  <link name='l_hand'>\n"
    "    <visual>\n"
    "      <origin xyz='0.1 0.2 0.3' rpy='0.5 0 0'/>\n"
    "      <geometry><mesh filename='meshes/collada-nodes.dae' scale='0.001 0.002 0.003'/>"
    "</geometry>\n"
    "      <material name='blue'><color rgba='0 0 1 1'/></material>\n"
    "    </visual>\n"
    "  </link>\n"
    "  <link name='l_finger'/>\n"
    "  <link name='l_tip'/>\n"
    "  <joint name='l_wrist' type='revolute'>\n"
    "    <parent link='base'/><child link='l_hand'/>\n"
    "    <origin xyz='0 0 0' rpy='0.1 0.2 0.3'/>\n"
    "    <axis xyz='1 0 0'/><limit lower='-1' upper='1' effort='12.5' velocity='0.75'/>\n"
    "  </joint>\n"
    "  <joint name='l_finger_joint' type='continuous'>\n"
    "    <parent link='l_hand'/><child link='l_finger'/>\n"
    "    <axis xyz='0 0 1'/><limit effort='3' velocity='4'/>\n"
    "  </joint>\n"
    "  <joint name='l_tip_joint' type='prismatic'>\n"
    "    <parent link='l_finger'/><child link='l_tip'/>\n"
    "    <axis xyz='0 0 1'/><limit lower='0' upper='0.1'/>\n"
    "  </joint>\n"
    "</robot>\n";
  static const char visual[] =
    "    <visual>\n"
    "      <origin xyz=\"0.1 0.2 0.3\" rpy=\"0.5 0 0\"/>\n"
    "      <geometry><mesh filename=\"meshes/collada-nodes.dae\" scale=\"0.001 0.002 0.003\"/>"
    "</geometry>\n"
    "      <material name=\"blue\"><color rgba=\"0 0 1 1\"/></material>\n"
    "    </visual>\n";
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "loaded.urdf", NULL);
  g_autoptr(KmSkeleton) skel = NULL;
  g_autoptr(KmSkeleton) again = NULL;
  g_autoptr(KmSkeleton) mirrored = NULL;
  g_autoptr(KmSkeleton) from_body = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *text_again = NULL;
  g_autofree char *body = NULL;
  g_autofree char *from_body_text = NULL;
  const KmJoint *j;
  KmShape * const *shapes;
  guint n = 0;
  int copy = -1;

  skel = load_urdf_text (path, urdf, TRUE, warnings);
  /* The only warning is about the mesh file itself. */
  g_assert_cmpuint (warnings->len, ==, 1);
  test_util_assert_warning (warnings, "<lookat> transformations are ignored");
  g_assert_cmpstr (km_skeleton_get_model_name (skel), ==, "my_robot");
  shapes = km_skeleton_get_shapes (skel, 1, &n);
  g_assert_cmpuint (n, >=, 2);
  for (guint s = 0; s < n; s++)
    {
      g_assert_nonnull (shapes[s]->mesh);
      g_assert_cmpstr (shapes[s]->uri, ==, "meshes/collada-nodes.dae");
      g_assert_cmpuint (shapes[s]->uri_part, ==, s);
      test_util_assert_vec3 (shapes[s]->uri_scale, 0.001, 0.002, 0.003, 1e-15);
      test_util_assert_vec3 (shapes[s]->uri_transform.pos, 0.1, 0.2, 0.3, 1e-15);
    }
  j = test_util_joint (skel, "l_wrist");
  g_assert_cmpfloat (j->max_effort, ==, 12.5);
  g_assert_cmpfloat (j->max_velocity, ==, 0.75);
  j = test_util_joint (skel, "l_finger_joint");
  g_assert_false (j->limits[0].limited);
  g_assert_cmpfloat (j->max_effort, ==, 3);
  g_assert_cmpfloat (j->max_velocity, ==, 4);
  j = test_util_joint (skel, "l_tip_joint");
  g_assert_true (isnan (j->max_effort) && isnan (j->max_velocity));

  text = km_urdf_to_string (skel, notes);
  if (strstr (text, visual) == NULL)
    g_error ("expected in the URDF:\n%s\ngot:\n%s", visual, text);
  /* Once for the file, not once per mesh in it. */
  g_assert_null (strstr (strstr (text, visual) + strlen (visual), "collada-nodes.dae"));
  g_assert_nonnull (strstr (text, "<robot name=\"my_robot\">\n"));
  g_assert_nonnull (strstr (text, "<origin xyz=\"0 0 0\" rpy=\"0.1 0.2 0.3\"/>\n"
                                  "    <axis xyz=\"1 0 0\"/>\n"
                                  "    <limit lower=\"-1\" upper=\"1\" effort=\"12.5\" "
                                  "velocity=\"0.75\"/>\n"));
  g_assert_nonnull (strstr (text, "<joint name=\"l_finger_joint\" type=\"continuous\">"));
  g_assert_nonnull (strstr (text, "<limit effort=\"3\" velocity=\"4\"/>\n"));
  g_assert_nonnull (strstr (text, "<limit lower=\"0\" upper=\"0.1\" effort=\"10000\" "
                                  "velocity=\"1\"/>\n"));
  g_assert_cmpuint (notes->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (notes, 0), "“l_tip_joint”"));

  /* Read back: the same, written the same. */
  g_ptr_array_set_size (warnings, 0);
  again = load_urdf_text (path, text, TRUE, warnings);
  g_assert_cmpuint (warnings->len, ==, 1);
  g_assert_true (km_skeleton_equal (skel, again, 1e-12));
  text_again = km_urdf_to_string (again, NULL);
  g_assert_cmpstr (text_again, ==, text);

  /* Mirrored: the copy refers to the same file with a mirrored scale; the name stays. */
  mirrored = km_skeleton_edit_mirror (skel, 1, KM_MIRROR_PLANE_XZ, &copy, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (km_skeleton_get_model_name (mirrored), ==, "my_robot");
  g_assert_cmpfloat (km_skeleton_get_joint (mirrored, (guint) copy)->max_effort, ==, 12.5);
  g_assert_cmpfloat (km_skeleton_get_joint (mirrored, (guint) copy)->max_velocity, ==, 0.75);
  shapes = km_skeleton_get_shapes (mirrored, (guint) copy, &n);
  test_util_assert_vec3 (shapes[0]->uri_scale, 0.001, -0.002, 0.003, 1e-15);
  test_util_assert_vec3 (shapes[0]->uri_transform.pos, 0.1, -0.2, 0.3, 1e-15);
  g_clear_pointer (&text_again, g_free);
  text_again = km_urdf_to_string (mirrored, NULL);
  g_assert_nonnull (strstr (text_again, "<origin xyz=\"0.1 -0.2 0.3\" rpy=\"-0.5 0 0\"/>\n"
                                        "      <geometry><mesh filename=\"meshes/collada-nodes.dae\""
                                        " scale=\"0.001 -0.002 0.003\"/></geometry>\n"));

  /* .body: the mesh file (once, not its triangles), the limits (degrees per second) and
   * the name. */
  body = km_body_to_string (skel, NULL);
  g_assert_nonnull (strstr (body, "name: \"my_robot\"\n"));
  g_assert_null (strstr (body, "TriangleMesh"));
  g_assert_nonnull (strstr (body, "scale: [ 0.001, 0.002, 0.003 ]\n"));
  {
    static const char uri[] = "uri: \"meshes/collada-nodes.dae\"\n";
    const char *at = strstr (body, uri);

    /* Once for the file, not once per mesh in it. */
    g_assert_nonnull (at);
    g_assert_null (strstr (at + strlen (uri), "collada-nodes.dae"));
  }
  g_assert_nonnull (strstr (body, "max_joint_effort: 12.5\n"));
  g_assert_nonnull (strstr (body, "max_joint_velocity: 42.9718"));
  from_body = km_body_load ("r.body", body, strlen (body), NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (km_skeleton_get_model_name (from_body), ==, "my_robot");
  j = test_util_joint (from_body, "l_wrist");
  g_assert_cmpfloat_with_epsilon (j->max_velocity, 0.75, 1e-12);
  g_assert_cmpfloat (j->max_effort, ==, 12.5);
  from_body_text = km_urdf_to_string (from_body, NULL);
  g_assert_nonnull (strstr (from_body_text, "<robot name=\"my_robot\">\n"));
  g_assert_nonnull (strstr (from_body_text, "effort=\"12.5\" velocity=\"0.75\"/>\n"));
}

static const char one_triangle_stl[] =
  "solid t\n"
  "facet normal 0 0 1\n outer loop\n  vertex 0 0 0\n  vertex 1 0 0\n  vertex 0 1 0\n"
  " endloop\nendfacet\nendsolid t\n";

/* A file named as @path's visual, read back with its meshes: each mesh named in it
 * resolves from where it is (no "cannot find" or "not drawn" warning for the loaded one). */
static KmSkeleton *
load_urdf_file (const char *path,
                GPtrArray  *warnings)
{
  g_autofree char *text = test_util_read_file (path, NULL);

  return load_urdf_text (path, text, TRUE, warnings);
}

/* A relative mesh reference names the same file wherever the model is saved: relative to
 * the new folder ("../" where needed), unchanged in the model's own folder, and a
 * package:// name is kept as it is. km_urdf_to_string (no folder) writes it as read. */
static void
test_rebased_mesh (void)
{
  static const char urdf[] =
    "<robot name='r'>\n"
    "  <link name='base'>\n"
    "    <visual><geometry><mesh filename='meshes/tri.stl'/></geometry></visual>\n"
    "    <visual><geometry><mesh filename='./meshes/gone.stl'/></geometry></visual>\n"
    "    <visual><geometry><mesh filename='package://pkg/meshes/arm.dae'/></geometry>"
    "</visual>\n"
    "  </link>\n"
    "</robot>\n";
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autofree char *top = km_test_make_tmp_dir ("kinema-urdf-rebase-XXXXXX");
  g_autofree char *model_dir = g_build_filename (top, "model", NULL);
  g_autofree char *meshes = g_build_filename (model_dir, "meshes", NULL);
  g_autofree char *stl = g_build_filename (meshes, "tri.stl", NULL);
  g_autofree char *other_dir = g_build_filename (top, "other", "deeper", NULL);
  g_autofree char *path = g_build_filename (model_dir, "r.urdf", NULL);
  g_autofree char *same = g_build_filename (model_dir, "same.urdf", NULL);
  g_autofree char *other = g_build_filename (other_dir, "r.urdf", NULL);
  g_autoptr(KmSkeleton) skel = NULL;
  g_autoptr(KmSkeleton) back = NULL;
  g_autofree char *as_read = NULL;
  g_autofree char *text = NULL;
  KmShape * const *shapes;
  guint n = 0;

  g_assert_cmpint (g_mkdir_with_parents (meshes, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (other_dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (stl, one_triangle_stl, -1, NULL));
  g_assert_true (g_file_set_contents (path, urdf, -1, NULL));

  skel = load_urdf_file (path, warnings);
  shapes = km_skeleton_get_shapes (skel, 0, &n);
  g_assert_cmpuint (n, ==, 3);
  g_assert_nonnull (shapes[0]->mesh);
  g_assert_null (shapes[1]->mesh);
  g_assert_null (shapes[2]->mesh);
  as_read = km_urdf_to_string (skel, NULL);
  g_assert_nonnull (strstr (as_read, "<mesh filename=\"meshes/tri.stl\"/>"));
  g_assert_nonnull (strstr (as_read, "<mesh filename=\"./meshes/gone.stl\"/>"));

  /* Into the model's folder: the text as written. */
  g_assert_true (km_urdf_save (skel, same, NULL, &error));
  g_assert_no_error (error);
  text = test_util_read_file (same, NULL);
  g_assert_cmpstr (text, ==, as_read);

  /* Into another folder: from there, the same files. */
  g_assert_true (km_urdf_save (skel, other, NULL, &error));
  g_assert_no_error (error);
  g_clear_pointer (&text, g_free);
  text = test_util_read_file (other, NULL);
  g_assert_nonnull (strstr (text, "<mesh filename=\"../../model/meshes/tri.stl\"/>"));
  g_assert_nonnull (strstr (text, "<mesh filename=\"../../model/meshes/gone.stl\"/>"));
  g_assert_nonnull (strstr (text, "<mesh filename=\"package://pkg/meshes/arm.dae\"/>"));
  g_ptr_array_set_size (warnings, 0);
  back = load_urdf_file (other, warnings);
  g_assert_false (test_util_has_warning (warnings, "tri.stl"));
  shapes = km_skeleton_get_shapes (back, 0, &n);
  g_assert_cmpuint (n, ==, 3);
  g_assert_nonnull (shapes[0]->mesh);
  g_assert_cmpstr (shapes[0]->uri, ==, "../../model/meshes/tri.stl");

  /* Read back from there and saved into the model's folder again: as first written,
   * but for the "./" the canonical path has no more. */
  g_assert_true (km_urdf_save (back, same, NULL, &error));
  g_assert_no_error (error);
  g_clear_pointer (&text, g_free);
  text = test_util_read_file (same, NULL);
  g_assert_nonnull (strstr (text, "<mesh filename=\"meshes/tri.stl\"/>"));
  g_assert_nonnull (strstr (text, "<mesh filename=\"meshes/gone.stl\"/>"));

  /* Writing as text, without a folder: as the model wrote them. */
  g_clear_pointer (&text, g_free);
  text = km_urdf_to_string (back, NULL);
  g_assert_nonnull (strstr (text, "<mesh filename=\"../../model/meshes/tri.stl\"/>"));

  g_remove (same);
  g_remove (other);
  g_remove (path);
  g_remove (stl);
  g_rmdir (meshes);
  g_rmdir (model_dir);
  g_rmdir (other_dir);
  {
    g_autofree char *other_top = g_path_get_dirname (other_dir);

    g_rmdir (other_top);
  }
  g_rmdir (top);
}

/* A colour a .body gives a mesh (a Resource's appearance, which names no material) is
 * written as a material of a name of its own; a mesh without one keeps the file's
 * colours (no material). */
static void
test_body_mesh_color (void)
{
  static const char body[] =
    "format: ChoreonoidBody\n"
    "format_version: 2.0\n"
    "name: bot\n"
    "root_link: base\n"
    "links:\n"
    "  - name: base\n"
    "    joint_type: fixed\n"
    "    elements:\n"
    "      - type: Shape\n"
    "        geometry: { type: Resource, uri: tri.stl }\n"
    "        appearance: { material: { diffuse: [ 0, 0, 1 ] } }\n"
    "      - type: Shape\n"
    "        geometry: { type: Resource, uri: plain.stl }\n";
  KmBodyOptions options = { .load_meshes = TRUE };
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-urdf-color-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "bot.body", NULL);
  g_autofree char *tri = g_build_filename (dir, "tri.stl", NULL);
  g_autofree char *plain = g_build_filename (dir, "plain.stl", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = NULL;
  g_autoptr(KmSkeleton) back = NULL;
  g_autofree char *text = NULL;
  KmShape * const *shapes;
  guint n = 0;

  g_assert_true (g_file_set_contents (tri, one_triangle_stl, -1, NULL));
  g_assert_true (g_file_set_contents (plain, one_triangle_stl, -1, NULL));
  skel = km_body_load (path, body, strlen (body), &options, &error);
  g_assert_no_error (error);
  shapes = km_skeleton_get_shapes (skel, 0, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_nonnull (shapes[0]->mesh);
  g_assert_null (shapes[0]->material);

  text = km_urdf_to_string (skel, NULL);
  g_assert_nonnull (strstr (text, "<mesh filename=\"tri.stl\"/></geometry>\n"
                                  "      <material name=\"base_visual0\">"
                                  "<color rgba=\"0 0 1 1\"/></material>\n"));
  g_assert_nonnull (strstr (text, "<mesh filename=\"plain.stl\"/></geometry>\n"
                                  "    </visual>\n"));
  g_assert_null (strstr (text, "base_visual1"));

  /* Read back: the colour is there. */
  back = km_urdf_load ("bot.urdf", text, strlen (text),
                       &(KmUrdfOptions) { .package_paths = NULL, .load_meshes = FALSE },
                       &error);
  g_assert_no_error (error);
  shapes = km_skeleton_get_shapes (back, 0, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpfloat (shapes[0]->color.b, ==, 1);
  g_assert_cmpfloat (shapes[0]->color.r, ==, 0);

  g_remove (tri);
  g_remove (plain);
  g_rmdir (dir);
}

/* A .body Resource whose mesh is not loaded (not found, a package that is not there, or
 * meshes not read) keeps the colour its appearance gives it, and the URDF gets it as the
 * visual's material, as for a loaded mesh; one without an appearance gets no material. */
static void
test_body_missing_mesh_color (void)
{
  static const char body[] =
    "format: ChoreonoidBody\n"
    "format_version: 2.0\n"
    "name: bot\n"
    "root_link: base\n"
    "links:\n"
    "  - name: base\n"
    "    joint_type: fixed\n"
    "    elements:\n"
    "      - type: Shape\n"
    "        geometry: { type: Resource, uri: not-here.stl }\n"
    "        appearance: { material: { diffuse: [ 1, 0, 0 ], transparency: 0.25 } }\n"
    "      - type: Shape\n"
    "        geometry: { type: Resource, uri: \"package://no_such_package/m.stl\" }\n"
    "        appearance: { material: { diffuse: [ 0, 1, 0 ] } }\n"
    "      - type: Shape\n"
    "        geometry: { type: Resource, uri: plain-not-here.stl }\n";
  static const char *const expected[] = {
    "<mesh filename=\"not-here.stl\"/></geometry>\n"
    "      <material name=\"base_visual0\"><color rgba=\"1 0 0 0.75\"/></material>\n",
    "<mesh filename=\"package://no_such_package/m.stl\"/></geometry>\n"
    "      <material name=\"base_visual1\"><color rgba=\"0 1 0 1\"/></material>\n",
    "<mesh filename=\"plain-not-here.stl\"/></geometry>\n"
    "    </visual>\n",
  };
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-urdf-color-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "bot.body", NULL);

  /* Meshes looked for (and not found), then not read at all. */
  for (guint pass = 0; pass < 2; pass++)
    {
      gboolean load_meshes = pass == 0;
      KmBodyOptions options = { .load_meshes = load_meshes };
      g_autoptr(GError) error = NULL;
      g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
      g_autoptr(KmSkeleton) skel = NULL;
      g_autoptr(KmSkeleton) back = NULL;
      g_autofree char *text = NULL;
      KmShape * const *shapes;
      guint n = 0;

      g_ptr_array_set_size (warnings, 0);
      test_util_push_warnings (warnings);
      skel = km_body_load (path, body, strlen (body), &options, &error);
      test_util_pop_warnings (warnings);
      g_assert_no_error (error);
      if (load_meshes)
        {
          test_util_assert_warning (warnings, "mesh “not-here.stl” is not drawn");
          test_util_assert_warning (warnings, "cannot find mesh “package://no_such_package/m.stl”");
        }
      else
        test_util_assert_no_warnings (warnings);
      shapes = km_skeleton_get_shapes (skel, 0, &n);
      g_assert_cmpuint (n, ==, 3);
      for (guint i = 0; i < n; i++)
        {
          g_assert_cmpint (shapes[i]->type, ==, KM_SHAPE_MESH);
          g_assert_null (shapes[i]->mesh);
          g_assert_null (shapes[i]->material);
        }
      g_assert_cmpfloat (shapes[0]->color.r, ==, 1.0f);
      g_assert_cmpfloat (shapes[0]->color.g, ==, 0.0f);
      g_assert_cmpfloat (shapes[0]->color.a, ==, 0.75f);
      g_assert_cmpfloat (shapes[1]->color.g, ==, 1.0f);
      g_assert_cmpfloat (shapes[1]->color.r, ==, 0.0f);
      g_assert_cmpfloat (shapes[2]->color.r, ==, KM_COLOR_DEFAULT.r);

      text = km_urdf_to_string (skel, notes);
      g_assert_cmpuint (notes->len, ==, 0);
      for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
        if (strstr (text, expected[i]) == NULL)
          g_error ("expected in the URDF:\n%s\ngot:\n%s", expected[i], text);
      g_assert_null (strstr (text, "base_visual2"));

      /* Read back: the colours are there. */
      back = km_urdf_load ("bot.urdf", text, strlen (text),
                           &(KmUrdfOptions) { .package_paths = NULL, .load_meshes = FALSE },
                           &error);
      g_assert_no_error (error);
      shapes = km_skeleton_get_shapes (back, 0, &n);
      g_assert_cmpuint (n, ==, 3);
      g_assert_cmpfloat (shapes[0]->color.r, ==, 1.0f);
      g_assert_cmpfloat (shapes[0]->color.a, ==, 0.75f);
      g_assert_cmpfloat (shapes[1]->color.g, ==, 1.0f);
    }
  g_rmdir (dir);
}

/* Edits keep link names: a renamed joint keeps its link's, a duplicate gets "LINK_2", a
 * mirrored copy the mirrored name; a mirrored mesh reference a mirrored scale. */
static void
test_edits (void)
{
  static const char urdf[] =
    "<robot name='r'>\n"
    "  <link name='torso'/>\n"
    "  <link name='l_upper_arm_link'>\n"
    "    <visual><geometry><mesh filename='package://p/arm.dae' scale='1 2 3'/></geometry>"
    "</visual>\n"
    "  </link>\n"
    "  <link name='l_forearm_link'/>\n"
    "  <joint name='l_shoulder' type='revolute'>\n"
    "    <parent link='torso'/><child link='l_upper_arm_link'/><origin xyz='0 0.2 0'/>\n"
    "    <axis xyz='0 1 0'/><limit lower='-1' upper='1' effort='1' velocity='1'/>\n"
    "  </joint>\n"
    "  <joint name='l_elbow' type='revolute'>\n"
    "    <parent link='l_upper_arm_link'/><child link='l_forearm_link'/>\n"
    "    <origin xyz='0 0 -0.3'/>\n"
    "    <axis xyz='0 1 0'/><limit lower='0' upper='2' effort='1' velocity='1'/>\n"
    "  </joint>\n"
    "</robot>\n";
  g_autoptr(KmSkeleton) skel = load_urdf_text ("r.urdf", urdf, FALSE, NULL);
  g_autoptr(KmSkeleton) renamed = NULL;
  g_autoptr(KmSkeleton) duplicated = NULL;
  g_autoptr(KmSkeleton) mirrored = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  KmShape * const *shapes;
  guint n = 0;
  int copy = -1;

  renamed = km_skeleton_edit_set_name (skel, 1, "left_shoulder", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (test_util_joint (renamed, "left_shoulder")->link_name, ==,
                   "l_upper_arm_link");
  /* The root's link is the joint's own name: it follows a rename. */
  g_clear_pointer (&renamed, km_skeleton_unref);
  renamed = km_skeleton_edit_set_name (skel, 0, "body", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (km_joint_get_link_name (test_util_joint (renamed, "body")), ==, "body");

  duplicated = km_skeleton_edit_duplicate (skel, 1, &copy, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (km_skeleton_get_joint (duplicated, (guint) copy)->name, ==, "l_shoulder_2");
  g_assert_cmpstr (km_skeleton_get_joint (duplicated, (guint) copy)->link_name, ==,
                   "l_upper_arm_link_2");
  g_assert_cmpstr (test_util_joint (duplicated, "l_elbow_2")->link_name, ==,
                   "l_forearm_link_2");

  mirrored = km_skeleton_edit_mirror (skel, 1, KM_MIRROR_PLANE_XZ, &copy, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (km_skeleton_get_joint (mirrored, (guint) copy)->name, ==, "r_shoulder");
  g_assert_cmpstr (km_skeleton_get_joint (mirrored, (guint) copy)->link_name, ==,
                   "r_upper_arm_link");
  g_assert_cmpstr (test_util_joint (mirrored, "r_elbow")->link_name, ==, "r_forearm_link");
  shapes = km_skeleton_get_shapes (mirrored, (guint) copy, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpstr (shapes[0]->uri, ==, "package://p/arm.dae");
  test_util_assert_vec3 (shapes[0]->scale, 1, -2, 3, 1e-12);

  text = km_urdf_to_string (mirrored, NULL);
  g_assert_nonnull (strstr (text, "  <joint name=\"r_elbow\" type=\"revolute\">\n"
                                  "    <parent link=\"r_upper_arm_link\"/>\n"
                                  "    <child link=\"r_forearm_link\"/>\n"));
  g_assert_nonnull (strstr (text, "<mesh filename=\"package://p/arm.dae\" scale=\"1 -2 3\"/>"));
}

/* Link names the writer must change: two joints moving links of one name, a spherical
 * joint's dummy links, a placed root. */
static void
test_link_name_clashes (void)
{
  g_autoptr(KmSkeletonBuilder) b = km_skeleton_builder_new ();
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(KmSkeleton) skel = NULL;
  g_autoptr(KmSkeleton) back = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  guint j;

  km_skeleton_builder_add_joint (b, "root", KM_JOINT_FIXED, NULL);
  km_skeleton_builder_set_link_name (b, 0, "base_link");
  j = km_skeleton_builder_add_joint (b, "a", KM_JOINT_SPHERICAL, "root");
  km_skeleton_builder_set_link_name (b, j, "hand");
  km_skeleton_builder_set_offset (b, j, km_vec3 (0, 0, 1));
  j = km_skeleton_builder_add_joint (b, "b", KM_JOINT_FIXED, "root");
  km_skeleton_builder_set_link_name (b, j, "hand");
  /* Setting the joint's own name is the same as none. */
  j = km_skeleton_builder_add_joint (b, "c", KM_JOINT_FIXED, "b");
  km_skeleton_builder_set_link_name (b, j, "c");
  skel = km_skeleton_builder_build (b, NULL, &error);
  g_assert_no_error (error);
  g_assert_null (test_util_joint (skel, "c")->link_name);

  text = km_urdf_to_string (skel, notes);
  g_assert_nonnull (strstr (text, "  <link name=\"base_link\"/>\n"));
  g_assert_nonnull (strstr (text, "  <joint name=\"a_x\" type=\"continuous\">\n"
                                  "    <parent link=\"base_link\"/>\n"
                                  "    <child link=\"a_x\"/>\n"));
  g_assert_nonnull (strstr (text, "  <joint name=\"a\" type=\"continuous\">\n"
                                  "    <parent link=\"a_y\"/>\n"
                                  "    <child link=\"hand\"/>\n"));
  g_assert_nonnull (strstr (text, "  <joint name=\"b\" type=\"fixed\">\n"
                                  "    <parent link=\"base_link\"/>\n"
                                  "    <child link=\"hand_link\"/>\n"));
  g_assert_nonnull (strstr (text, "    <parent link=\"hand_link\"/>\n"
                                  "    <child link=\"c\"/>\n"));
  test_util_assert_warning (notes, "two links are called “hand”: the link of joint “b” is "
                                   "written as “hand_link”");
  back = load_urdf_text ("t.urdf", text, FALSE, NULL);
  g_assert_cmpstr (test_util_joint (back, "b")->link_name, ==, "hand_link");
  g_assert_cmpstr (test_util_joint (back, "a")->link_name, ==, "hand");
  g_assert_cmpstr (km_skeleton_get_root_name (back), ==, "base_link");

  /* An empty link name is refused by the builder. */
  {
    g_autoptr(KmSkeletonBuilder) bad = km_skeleton_builder_new ();
    g_autoptr(KmSkeleton) none = NULL;
    KmSkeletonProblem problem = { 0 };

    km_skeleton_builder_add_joint (bad, "root", KM_JOINT_FIXED, NULL);
    km_skeleton_builder_set_link_name (bad, 0, "");
    none = km_skeleton_builder_build (bad, &problem, &error);
    g_assert_null (none);
    g_assert_error (error, KM_SKELETON_ERROR, KM_SKELETON_ERROR_BAD_VALUE);
    g_assert_cmpint (problem.field, ==, KM_JOINT_FIELD_NAME);
  }
}

/* urdfdom refuses a revolute or prismatic joint without <limit lower upper>: an unlimited
 * revolute joint is continuous, every prismatic joint and every range open on one side gets
 * a <limit> that keeps the finite end and puts the open one a turn (revolute) or 1000 m
 * (prismatic) beyond it, with a note giving the value; read back, the finite ends are
 * the same. The placeholder note says only what was written. */
static void
test_open_ranges (void)
{
  g_autoptr(KmSkeletonBuilder) b = km_skeleton_builder_new ();
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(KmSkeleton) skel = NULL;
  g_autoptr(KmSkeleton) back = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  guint j;

  km_skeleton_builder_add_joint (b, "root", KM_JOINT_FIXED, NULL);
  j = km_skeleton_builder_add_joint (b, "up_to", KM_JOINT_REVOLUTE, "root");
  km_skeleton_builder_set_axis (b, j, km_vec3 (0, 0, 1));
  km_skeleton_builder_set_limit (b, j, 0, -INFINITY, 0.5);
  km_skeleton_builder_set_max_effort (b, j, 20);
  km_skeleton_builder_set_max_velocity (b, j, 2);
  j = km_skeleton_builder_add_joint (b, "from", KM_JOINT_PRISMATIC, "up_to");
  km_skeleton_builder_set_axis (b, j, km_vec3 (0, 0, 1));
  km_skeleton_builder_set_limit (b, j, 0, -0.1, INFINITY);
  km_skeleton_builder_set_max_effort (b, j, 30);
  j = km_skeleton_builder_add_joint (b, "slide", KM_JOINT_PRISMATIC, "from");
  km_skeleton_builder_set_axis (b, j, km_vec3 (0, 0, 1));
  km_skeleton_builder_set_max_velocity (b, j, 0.5);
  j = km_skeleton_builder_add_joint (b, "turn", KM_JOINT_REVOLUTE, "slide");
  km_skeleton_builder_set_axis (b, j, km_vec3 (0, 0, 1));
  km_skeleton_builder_set_max_effort (b, j, 5);
  km_skeleton_builder_set_max_velocity (b, j, 3);
  j = km_skeleton_builder_add_joint (b, "ball", KM_JOINT_SPHERICAL, "turn");
  km_skeleton_builder_set_limit (b, j, 1, 0.25, INFINITY);
  skel = km_skeleton_builder_build (b, NULL, &error);
  g_assert_no_error (error);

  text = km_urdf_to_string (skel, notes);
  for (guint i = 0; i < notes->len; i++)
    g_test_message ("note: %s", (char *) notes->pdata[i]);
  g_assert_nonnull (strstr (text, "  <joint name=\"up_to\" type=\"revolute\">\n"));
  g_assert_nonnull (strstr (text, "<limit lower=\"-5.783185307179586\" upper=\"0.5\" effort=\"20\" "
                                  "velocity=\"2\"/>"));
  g_assert_nonnull (strstr (text, "<limit lower=\"-0.1\" upper=\"999.9\" effort=\"30\" "
                                  "velocity=\"1\"/>"));
  g_assert_nonnull (strstr (text, "<limit lower=\"-1000\" upper=\"1000\" effort=\"10000\" "
                                  "velocity=\"0.5\"/>"));
  g_assert_nonnull (strstr (text, "  <joint name=\"turn\" type=\"continuous\">\n"));
  g_assert_nonnull (strstr (text, "<limit effort=\"5\" velocity=\"3\"/>"));
  g_assert_nonnull (strstr (text, "  <joint name=\"ball_x\" type=\"continuous\">\n"));
  g_assert_nonnull (strstr (text, "  <joint name=\"ball_y\" type=\"revolute\">\n"));
  g_assert_nonnull (strstr (text, "<limit lower=\"0.25\" upper=\"6.533185307179586\""));
  test_util_assert_warning (notes, "joint “up_to” is limited on one side only, which URDF cannot "
                                   "say: its open end is written as lower=\"-5.783185307179586\", "
                                   "a full turn beyond the other");
  test_util_assert_warning (notes, "joint “from” is limited on one side only, which URDF cannot "
                                   "say: its open end is written as upper=\"999.9\", 1000 m "
                                   "beyond the other");
  test_util_assert_warning (notes, "prismatic joint “slide” is unlimited, which URDF cannot say: "
                                   "it is written with lower=\"-1000\" upper=\"1000\"");
  test_util_assert_warning (notes, "joint “ball_y” is limited on one side only");
  g_assert_false (test_util_has_warning (notes, "ball_x”"));
  g_assert_false (test_util_has_warning (notes, "without <limit>"));
  /* One note per kind of placeholder, each saying only what it wrote. */
  test_util_assert_warning (notes, "1 joint (“from”) has no velocity limit, which URDF requires: "
                                   "written as velocity 1");
  test_util_assert_warning (notes, "1 joint (“slide”) has no effort limit, which URDF requires: "
                                   "written as effort 10000");
  test_util_assert_warning (notes, "1 joint (“ball_y”) has no effort and no velocity limit, "
                                   "which URDF requires: written as effort 10000 and velocity 1");
  g_assert_false (test_util_has_warning (notes, "“from”) has no effort"));
  g_assert_false (test_util_has_warning (notes, "“slide”) has no effort and"));

  back = load_urdf_text ("t.urdf", text, FALSE, NULL);
  g_assert_true (test_util_joint (back, "up_to")->limits[0].limited);
  g_assert_cmpfloat (test_util_joint (back, "up_to")->limits[0].max, ==, 0.5);
  g_assert_cmpfloat (test_util_joint (back, "from")->limits[0].min, ==, -0.1);
  g_assert_cmpfloat (test_util_joint (back, "slide")->limits[0].max, ==, 1000);
  g_assert_false (test_util_joint (back, "turn")->limits[0].limited);
  g_assert_cmpfloat (test_util_joint (back, "ball_y")->limits[0].min, ==, 0.25);
}

/* The reviewer's case (a slider with only an upper limit, as a .body says it): the URDF
 * has the <limit> urdfdom requires, and its upper limit is the model's. */
static void
test_open_range_body (void)
{
  static const char body[] =
    "format: ChoreonoidBody\nformat_version: 2.0\nlinks:\n"
    "  - name: WAIST\n    joint_type: free\n"
    "  - name: J2\n    parent: WAIST\n    joint_type: prismatic\n    joint_axis: Y\n"
    "    joint_range: [ unlimited, 0.2 ]\n";
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(KmSkeleton) skel = NULL;
  g_autoptr(KmSkeleton) back = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  skel = km_body_load ("t.body", body, strlen (body), NULL, &error);
  g_assert_no_error (error);
  text = km_urdf_to_string (skel, notes);
  g_assert_nonnull (strstr (text, "<limit lower=\"-999.8\" upper=\"0.2\" effort=\"10000\" "
                                  "velocity=\"1\"/>"));
  back = load_urdf_text ("t.urdf", text, FALSE, NULL);
  g_assert_cmpfloat (test_util_joint (back, "J2")->limits[0].max, ==, 0.2);
}

/* A name with a tab, a line feed or a carriage return: an XML reader turns each into a
 * space in an attribute value (attribute-value normalisation), so the writer escapes them
 * as character references, and the joints, links and mimic master keep their names. */
static void
test_control_char_names (void)
{
  g_autoptr(KmSkeletonBuilder) b = km_skeleton_builder_new ();
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(KmSkeleton) skel = NULL;
  g_autoptr(KmSkeleton) back = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  guint j;

  km_skeleton_builder_set_model_name (b, "robot\r\nname");
  km_skeleton_builder_add_joint (b, "root", KM_JOINT_FIXED, NULL);
  j = km_skeleton_builder_add_joint (b, "tab\there", KM_JOINT_REVOLUTE, "root");
  km_skeleton_builder_set_axis (b, j, km_vec3 (0, 0, 1));
  km_skeleton_builder_set_link_name (b, j, "link\nline");
  j = km_skeleton_builder_add_joint (b, "nl\nhere\r", KM_JOINT_REVOLUTE, "tab\there");
  km_skeleton_builder_set_axis (b, j, km_vec3 (0, 0, 1));
  km_skeleton_builder_set_mimic (b, j, "tab\there", 2, 0);
  skel = km_skeleton_builder_build (b, NULL, &error);
  g_assert_no_error (error);

  text = km_urdf_to_string (skel, notes);
  g_assert_nonnull (strstr (text, "<robot name=\"robot&#13;&#10;name\">"));
  g_assert_nonnull (strstr (text, "  <joint name=\"tab&#9;here\" type=\"continuous\">\n"
                                  "    <parent link=\"root\"/>\n"
                                  "    <child link=\"link&#10;line\"/>\n"));
  g_assert_nonnull (strstr (text, "  <joint name=\"nl&#10;here&#13;\" type=\"continuous\">\n"));
  g_assert_nonnull (strstr (text, "<mimic joint=\"tab&#9;here\""));
  /* Every raw control character left is a line end of the document's own. */
  g_assert_null (strchr (text, '\t'));
  g_assert_null (strchr (text, '\r'));
  g_assert_null (strstr (text, "\nline"));

  back = load_urdf_text ("t.urdf", text, FALSE, NULL);
  g_assert_cmpint (km_skeleton_find_joint (back, "tab\there"), >=, 0);
  g_assert_cmpint (km_skeleton_find_joint (back, "nl\nhere\r"), >=, 0);
  g_assert_cmpstr (test_util_joint (back, "tab\there")->link_name, ==, "link\nline");
  g_assert_cmpint (test_util_joint (back, "nl\nhere\r")->mimic, ==,
                   km_skeleton_find_joint (back, "tab\there"));
  g_assert_cmpstr (km_skeleton_get_model_name (back), ==, "robot\r\nname");
}

/* A name with a control character other than tab, line feed and carriage return (or
 * U+FFFF): XML 1.0 cannot hold it at all, not even as a character reference (&#x1; makes
 * the file unreadable to other tools; rev19-cli finding 2). The writer puts U+FFFD in its
 * place and says so in a note, once per name; the file reads back with those names. */
static void
test_unwritable_names (void)
{
  g_autoptr(KmSkeletonBuilder) b = km_skeleton_builder_new ();
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(KmSkeleton) skel = NULL;
  g_autoptr(KmSkeleton) back = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  guint j, n_notes = 0;

  km_skeleton_builder_set_model_name (b, "robot\x01");
  km_skeleton_builder_add_joint (b, "root", KM_JOINT_FIXED, NULL);
  j = km_skeleton_builder_add_joint (b, "a\x01" "b", KM_JOINT_REVOLUTE, "root");
  km_skeleton_builder_set_axis (b, j, km_vec3 (0, 0, 1));
  km_skeleton_builder_set_link_name (b, j, "link\x1f\x0b");
  j = km_skeleton_builder_add_joint (b, "c\xEF\xBF\xBF", KM_JOINT_REVOLUTE, "a\x01" "b");
  km_skeleton_builder_set_axis (b, j, km_vec3 (0, 0, 1));
  km_skeleton_builder_set_mimic (b, j, "a\x01" "b", 2, 0);
  skel = km_skeleton_builder_build (b, NULL, &error);
  g_assert_no_error (error);

  text = km_urdf_to_string (skel, notes);
  /* No such character, raw or as a reference. */
  for (guint c = 1; c < 0x20; c++)
    {
      g_autofree char *hex = g_strdup_printf ("&#x%x;", c);
      g_autofree char *hex_upper = g_strdup_printf ("&#x%X;", c);
      g_autofree char *dec = g_strdup_printf ("&#%u;", c);

      if (c == '\t' || c == '\n' || c == '\r')
        continue;
      g_assert_null (strchr (text, (int) c));
      g_assert_null (strstr (text, hex));
      g_assert_null (strstr (text, hex_upper));
      g_assert_null (strstr (text, dec));
    }
  g_assert_null (strstr (text, "\xEF\xBF\xBF"));
  g_assert_null (strstr (text, "&#xffff;"));
  g_assert_nonnull (strstr (text, "<robot name=\"robot\xEF\xBF\xBD\">"));
  g_assert_nonnull (strstr (text, "  <joint name=\"a\xEF\xBF\xBD" "b\" type=\"continuous\">\n"
                                  "    <parent link=\"root\"/>\n"
                                  "    <child link=\"link\xEF\xBF\xBD\xEF\xBF\xBD\"/>\n"));
  g_assert_nonnull (strstr (text, "<mimic joint=\"a\xEF\xBF\xBD" "b\""));
  g_assert_nonnull (strstr (text, "<joint name=\"c\xEF\xBF\xBD\""));
  /* One note per name so written (the joint's name, though written three times). */
  for (guint i = 0; i < notes->len; i++)
    {
      const char *note = g_ptr_array_index (notes, i);

      if (strstr (note, "XML cannot hold") == NULL)
        continue;
      n_notes++;
      if (strstr (note, "a\xEF\xBF\xBD" "b") != NULL)
        g_assert_cmpstr (note, ==, "“a\\x01b” holds characters that XML cannot hold: written "
                                   "as “a\xEF\xBF\xBD" "b”");
    }
  g_assert_cmpuint (n_notes, ==, 4);

  back = load_urdf_text ("t.urdf", text, FALSE, NULL);
  g_assert_cmpint (km_skeleton_find_joint (back, "a\xEF\xBF\xBD" "b"), >=, 0);
  g_assert_cmpint (test_util_joint (back, "c\xEF\xBF\xBD")->mimic, ==,
                   km_skeleton_find_joint (back, "a\xEF\xBF\xBD" "b"));
  g_assert_cmpstr (km_skeleton_get_model_name (back), ==, "robot\xEF\xBF\xBD");
}

/* Two names that differ only in characters XML cannot hold are written alike ("a\x01" and
 * "a\x02" both "a\uFFFD"): the replacement comes before names are made unique, so the
 * second is "a\uFFFD_2", as joint and as link, and the file reads back (it had duplicate
 * <joint> and <link> elements, "duplicate link name"; rev20 finding 2). */
static void
test_unwritable_names_unique (void)
{
  g_autoptr(KmSkeletonBuilder) b = km_skeleton_builder_new ();
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(KmSkeleton) skel = NULL;
  g_autoptr(KmSkeleton) back = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  gboolean noted = FALSE;
  guint j;

  km_skeleton_builder_add_joint (b, "root", KM_JOINT_FIXED, NULL);
  j = km_skeleton_builder_add_joint (b, "a\x01", KM_JOINT_REVOLUTE, "root");
  km_skeleton_builder_set_axis (b, j, km_vec3 (0, 0, 1));
  j = km_skeleton_builder_add_joint (b, "a\x02", KM_JOINT_REVOLUTE, "a\x01");
  km_skeleton_builder_set_axis (b, j, km_vec3 (0, 0, 1));
  km_skeleton_builder_set_mimic (b, j, "a\x01", 2, 0);
  skel = km_skeleton_builder_build (b, NULL, &error);
  g_assert_no_error (error);

  text = km_urdf_to_string (skel, notes);
  g_assert_nonnull (strstr (text, "  <joint name=\"a\xEF\xBF\xBD\" type=\"continuous\">\n"
                                  "    <parent link=\"root\"/>\n"
                                  "    <child link=\"a\xEF\xBF\xBD\"/>\n"));
  g_assert_nonnull (strstr (text, "  <joint name=\"a\xEF\xBF\xBD_2\" type=\"continuous\">\n"
                                  "    <parent link=\"a\xEF\xBF\xBD\"/>\n"
                                  "    <child link=\"a\xEF\xBF\xBD_2\"/>\n"));
  g_assert_nonnull (strstr (text, "<mimic joint=\"a\xEF\xBF\xBD\""));
  for (guint i = 0; i < notes->len; i++)
    if (g_str_equal (g_ptr_array_index (notes, i),
                     "“a\\x02” holds characters that XML cannot hold: written as "
                     "“a\xEF\xBF\xBD_2”"))
      noted = TRUE;
  g_assert_true (noted);

  back = load_urdf_text ("t.urdf", text, FALSE, NULL);
  g_assert_nonnull (back);
  g_assert_cmpuint (km_skeleton_get_n_joints (back), ==, 3);
  g_assert_cmpint (test_util_joint (back, "a\xEF\xBF\xBD_2")->mimic, ==,
                   km_skeleton_find_joint (back, "a\xEF\xBF\xBD"));
}

/* Numbers read back as the same double: 170° in radians is 2.9670597283903604, which
 * 15 significant digits (2.96705972839036) miss by an ulp, so a .body → URDF → .body
 * round trip changed the limits. */
static void
test_exact_numbers (void)
{
  static const double values[] = { 2.9670597283903604, 0.1 + 0.2, 1.0 / 3.0, 0.5,
                                   -2.0943951023931953, 1e-7 + 1e-23 };
  g_autoptr(KmSkeletonBuilder) b = km_skeleton_builder_new ();
  g_autoptr(KmSkeleton) skel = NULL;
  g_autoptr(KmSkeleton) back = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *again = NULL;
  const KmJoint *j, *k;

  km_skeleton_builder_add_joint (b, "root", KM_JOINT_FIXED, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      g_autofree char *name = g_strdup_printf ("j%u", i);
      g_autofree char *parent = i == 0 ? g_strdup ("root") : g_strdup_printf ("j%u", i - 1);
      guint n = km_skeleton_builder_add_joint (b, name, KM_JOINT_REVOLUTE, parent);

      km_skeleton_builder_set_axis (b, n, km_vec3 (0, 0, 1));
      km_skeleton_builder_set_offset (b, n, km_vec3 (values[i], 0, -values[i]));
      km_skeleton_builder_set_limit (b, n, 0, -fabs (values[i]), fabs (values[i]));
      km_skeleton_builder_set_max_effort (b, n, fabs (values[i]));
      km_skeleton_builder_set_max_velocity (b, n, fabs (values[i]) * 3);
    }
  skel = km_skeleton_builder_build (b, NULL, &error);
  g_assert_no_error (error);

  text = km_urdf_to_string (skel, NULL);
  g_assert_nonnull (strstr (text, "upper=\"2.9670597283903604\""));
  back = load_urdf_text ("t.urdf", text, FALSE, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      g_autofree char *name = g_strdup_printf ("j%u", i);

      j = test_util_joint (skel, name);
      k = test_util_joint (back, name);
      g_assert_cmpfloat (k->limits[0].min, ==, j->limits[0].min);
      g_assert_cmpfloat (k->limits[0].max, ==, j->limits[0].max);
      g_assert_cmpfloat (k->offset.x, ==, j->offset.x);
      g_assert_cmpfloat (k->offset.z, ==, j->offset.z);
      g_assert_cmpfloat (k->max_effort, ==, j->max_effort);
      g_assert_cmpfloat (k->max_velocity, ==, j->max_velocity);
    }
  /* What was read back is written as the same text. */
  again = km_urdf_to_string (back, NULL);
  g_assert_cmpstr (again, ==, text);
}

/* skeleton.json's "link": a name of 1 to KM_SKELETON_MAX_NAME bytes, the error at it. */
static void
test_json_link_errors (void)
{
  static const struct
  {
    const char *json;
    const char *error;
  } cases[] = {
    { "{\"root_name\": \"r\", \"joints\": [\n"
      "  {\"name\": \"r\", \"type\": \"fixed\", \"offset\": [0, 0, 0], \"link\": \"\"}]}",
      "t.json:2:63: a link name must be between 1 and 1024 bytes long" },
    { "{\"root_name\": \"r\", \"joints\": [\n"
      "  {\"name\": \"r\", \"type\": \"fixed\", \"offset\": [0, 0, 0], \"link\": 5}]}",
      "t.json:2:63: expected a string" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(KmSkeleton) skel = km_skeleton_json_load ("t.json", cases[i].json,
                                                          strlen (cases[i].json), &error);

      g_assert_null (skel);
      g_assert_nonnull (error);
      if (!g_str_has_prefix (error->message, cases[i].error))
        g_error ("expected “%s…”, got “%s”", cases[i].error, error->message);
    }
}

/* A package:// mesh that was found but that Kinema cannot read (a bad STL) is written into
 * a .body saved outside its package as a path to the file, as a mesh it read is: the saved
 * file is to find it without package paths, and Choreonoid cannot resolve package://.
 * From a URDF and from a .body (KINEMA_PACKAGE_PATH). A package:// mesh that was not
 * found keeps its name; URDF, whose readers resolve package://, keeps every name. */
static void
test_package_mesh_unreadable (void)
{
  static const char urdf[] =
    "<robot name='r'>\n"
    "  <link name='base'>\n"
    "    <visual><geometry><mesh filename='package://pkg/meshes/ok.stl'/></geometry></visual>\n"
    "    <visual><geometry><mesh filename='package://pkg/meshes/bad.stl'/></geometry></visual>\n"
    "    <visual><geometry><mesh filename='package://pkg/meshes/gone.stl'/></geometry>"
    "</visual>\n"
    "  </link>\n"
    "</robot>\n";
  static const char body[] =
    "format: ChoreonoidBody\n"
    "format_version: 2.0\n"
    "name: r\n"
    "root_link: base\n"
    "links:\n"
    "  - name: base\n"
    "    joint_type: fixed\n"
    "    elements:\n"
    "      - { type: Resource, uri: \"package://pkg/meshes/bad.stl\" }\n";
  /* An ASCII STL with a word where a number belongs. */
  static const char bad_stl[] =
    "solid t\nfacet normal 0 0 1\n outer loop\n  vertex 0 0 zero\n endloop\nendfacet\n"
    "endsolid t\n";
  g_autofree char *top = km_test_make_tmp_dir ("kinema-urdf-pkg-bad-XXXXXX");
  g_autofree char *ws = g_build_filename (top, "ws", NULL);
  g_autofree char *meshes = g_build_filename (ws, "src", "pkg", "meshes", NULL);
  g_autofree char *ok = g_build_filename (meshes, "ok.stl", NULL);
  g_autofree char *bad = g_build_filename (meshes, "bad.stl", NULL);
  g_autofree char *model_dir = g_build_filename (top, "model", NULL);
  g_autofree char *model = g_build_filename (model_dir, "r.urdf", NULL);
  g_autofree char *model_body = g_build_filename (model_dir, "r.body", NULL);
  g_autofree char *out_dir = g_build_filename (top, "out", NULL);
  g_autofree char *out = g_build_filename (out_dir, "r.body", NULL);
  g_autofree char *out_urdf = g_build_filename (out_dir, "r.urdf", NULL);
  g_autofree char *out2 = g_build_filename (out_dir, "r2.body", NULL);
  g_autofree char *kinema_path = g_strdup (g_getenv ("KINEMA_PACKAGE_PATH"));
  g_autofree char *ros_path = g_strdup (g_getenv ("ROS_PACKAGE_PATH"));
  const char *paths[] = { ws, NULL };
  KmUrdfOptions options = { paths, TRUE };
  KmBodyOptions body_options = { .load_meshes = TRUE };
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = NULL;
  g_autoptr(KmSkeleton) from_body = NULL;
  g_autofree char *text = NULL;
  KmShape * const *shapes;
  guint n = 0;

  g_assert_cmpint (g_mkdir_with_parents (meshes, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (model_dir, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (out_dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (ok, one_triangle_stl, -1, NULL));
  g_assert_true (g_file_set_contents (bad, bad_stl, -1, NULL));

  test_util_push_warnings (warnings);
  skel = km_urdf_load (model, urdf, strlen (urdf), &options, &error);
  test_util_pop_warnings (warnings);
  g_assert_no_error (error);
  test_util_assert_warning (warnings, "mesh “package://pkg/meshes/bad.stl” is not drawn");
  test_util_assert_warning (warnings, "cannot find mesh “package://pkg/meshes/gone.stl”");
  shapes = km_skeleton_get_shapes (skel, 0, &n);
  g_assert_cmpuint (n, ==, 3);
  g_assert_nonnull (shapes[0]->mesh);
  g_assert_null (shapes[1]->mesh);
  g_assert_null (shapes[2]->mesh);

  g_assert_true (km_body_save (skel, out, notes, &error));
  g_assert_no_error (error);
  text = test_util_read_file (out, NULL);
  g_test_message ("%s", text);
  g_assert_nonnull (strstr (text, "uri: \"../ws/src/pkg/meshes/ok.stl\"\n"));
  g_assert_nonnull (strstr (text, "uri: \"../ws/src/pkg/meshes/bad.stl\"\n"));
  g_assert_nonnull (strstr (text, "uri: \"package://pkg/meshes/gone.stl\"\n"));
  test_util_assert_warning (notes, "2 package:// meshes are written as paths: the saved file "
                                   "lies outside their packages");
  g_clear_pointer (&text, g_free);
  g_ptr_array_set_size (notes, 0);

  g_assert_true (km_urdf_save (skel, out_urdf, notes, &error));
  g_assert_no_error (error);
  text = test_util_read_file (out_urdf, NULL);
  g_assert_nonnull (strstr (text, "<mesh filename=\"package://pkg/meshes/ok.stl\"/>"));
  g_assert_nonnull (strstr (text, "<mesh filename=\"package://pkg/meshes/bad.stl\"/>"));
  g_clear_pointer (&text, g_free);

  /* A .body naming it, the package found through KINEMA_PACKAGE_PATH. */
  g_setenv ("KINEMA_PACKAGE_PATH", ws, TRUE);
  g_unsetenv ("ROS_PACKAGE_PATH");
  g_ptr_array_set_size (warnings, 0);
  test_util_push_warnings (warnings);
  from_body = km_body_load (model_body, body, strlen (body), &body_options, &error);
  test_util_pop_warnings (warnings);
  if (kinema_path != NULL)
    g_setenv ("KINEMA_PACKAGE_PATH", kinema_path, TRUE);
  else
    g_unsetenv ("KINEMA_PACKAGE_PATH");
  if (ros_path != NULL)
    g_setenv ("ROS_PACKAGE_PATH", ros_path, TRUE);
  g_assert_no_error (error);
  test_util_assert_warning (warnings, "mesh “package://pkg/meshes/bad.stl” is not drawn");
  g_assert_true (km_body_save (from_body, out2, NULL, &error));
  g_assert_no_error (error);
  text = test_util_read_file (out2, NULL);
  g_assert_nonnull (strstr (text, "uri: \"../ws/src/pkg/meshes/bad.stl\"\n"));

  g_remove (out);
  g_remove (out2);
  g_remove (out_urdf);
  g_remove (ok);
  g_remove (bad);
  g_rmdir (out_dir);
  g_rmdir (model_dir);
  g_rmdir (meshes);
  {
    g_autofree char *pkg = g_path_get_dirname (meshes);
    g_autofree char *src = g_path_get_dirname (pkg);

    g_rmdir (pkg);
    g_rmdir (src);
  }
  g_rmdir (ws);
  g_rmdir (top);
}

/* The default end effector and the DOF of the chain that moves it. */
static const char *
effector_chain (const KmSkeleton *skeleton,
                guint            *chain_dof)
{
  int e = km_skeleton_get_default_effector (skeleton);

  *chain_dof = 0;
  for (int j = e; j >= 0; j = km_skeleton_get_joint (skeleton, (guint) j)->parent)
    *chain_dof += km_skeleton_get_joint (skeleton, (guint) j)->n_dof;
  return km_skeleton_get_joint (skeleton, (guint) e)->name;
}

/* A skeleton that lists a child before its parent has as default end effector its last
 * leaf in file order (E1, moved by A alone): the URDF and .body writers, which list
 * parents first, list E1 last so that the written file has it too, not E2 (moved by A and
 * B). Also when a joint is renamed for XML ("E\x01" below B), whose renamed copy the URDF
 * writer writes. */
static void
test_default_effector_kept (void)
{
  const char *json =
    "{\"root_name\":\"R\",\"joints\":["
    "{\"name\":\"R\",\"type\":\"fixed\",\"offset\":[0,0,0]},"
    "{\"name\":\"E\\u0001\",\"type\":\"fixed\",\"parent\":\"B\",\"offset\":[0,0,0.2]},"
    "{\"name\":\"A\",\"type\":\"revolute\",\"parent\":\"R\",\"offset\":[0,0,0.1],\"axis\":[0,1,0]},"
    "{\"name\":\"E1\",\"type\":\"fixed\",\"parent\":\"A\",\"offset\":[0,0,0.3]},"
    "{\"name\":\"B\",\"type\":\"revolute\",\"parent\":\"A\",\"offset\":[0.1,0,0],\"axis\":[0,1,0]}"
    "]}";
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = km_skeleton_json_load ("t.json", json, strlen (json), &error);
  g_autofree char *urdf = NULL;
  g_autofree char *body = NULL;
  g_autoptr(KmSkeleton) from_urdf = NULL;
  g_autoptr(KmSkeleton) from_body = NULL;
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  KmUrdfOptions urdf_options = { NULL, FALSE };
  guint chain_dof = 0;

  g_assert_no_error (error);
  g_assert_cmpstr (effector_chain (skel, &chain_dof), ==, "E1");
  g_assert_cmpuint (chain_dof, ==, 1);

  urdf = km_urdf_to_string (skel, NULL);
  test_util_push_warnings (warnings);
  from_urdf = km_urdf_load ("t.urdf", urdf, strlen (urdf), &urdf_options, &error);
  test_util_pop_warnings (warnings);
  g_assert_no_error (error);
  g_assert_cmpstr (effector_chain (from_urdf, &chain_dof), ==, "E1");
  g_assert_cmpuint (chain_dof, ==, 1);

  body = km_body_to_string (skel, NULL);
  test_util_push_warnings (warnings);
  from_body = km_body_load ("t.body", body, strlen (body), NULL, &error);
  test_util_pop_warnings (warnings);
  g_assert_no_error (error);
  g_assert_cmpstr (effector_chain (from_body, &chain_dof), ==, "E1");
  g_assert_cmpuint (chain_dof, ==, 1);
}

/* Each joint of @a is where the joint of its name in @b is, at the initial pose (q = 0:
 * a free root has no variables of its own, its pose is the model's). */
static void
assert_same_initial_pose (const KmSkeleton *a,
                          const KmSkeleton *b)
{
  guint na = km_skeleton_get_n_joints (a), nb = km_skeleton_get_n_joints (b);
  g_autofree double *qa = g_new0 (double, km_skeleton_get_n_dof (a) + 1);
  g_autofree double *qb = g_new0 (double, km_skeleton_get_n_dof (b) + 1);
  g_autofree KmTransform *wa = g_new (KmTransform, na);
  g_autofree KmTransform *wb = g_new (KmTransform, nb);

  km_skeleton_forward_kinematics (a, qa, NULL, wa);
  km_skeleton_forward_kinematics (b, qb, NULL, wb);
  for (guint i = 0; i < na; i++)
    {
      int k = km_skeleton_find_joint (b, km_skeleton_get_joint (a, i)->name);

      g_assert_cmpint (k, >=, 0);
      g_assert_cmpfloat (km_vec3_length (km_vec3_sub (wa[i].pos, wb[k].pos)), <, 1e-12);
      g_assert_cmpfloat (km_mat3_rotation_angle (&wa[i].rot, &wb[k].rot), <, 1e-12);
    }
}

static gboolean
has_note (GPtrArray  *notes,
          const char *words)
{
  for (guint i = 0; i < notes->len; i++)
    if (strstr (g_ptr_array_index (notes, i), words) != NULL)
      return TRUE;
  return FALSE;
}

/* A free root is written the way the URDF reader reads one back (rev22 finding 4: it was
 * written as a fixed base, so .body → URDF → .body lost the floating base): a floating
 * joint from the root link. A free root placed in the world (a .body's root translation
 * and rotation, its initial pose) hangs by a floating joint of its name, with that pose as
 * the joint's origin, from a new base link; read back, that pattern is the free root at
 * the joint's origin again (same joints, same names), which is written back as the same
 * floating joint (URDF → URDF gives the same text). */
static void
test_free_root (void)
{
  static const char body[] =
    "format: ChoreonoidBody\nformat_version: 2.0\nangle_unit: degree\nname: mobile\n"
    "root_link: WAIST\nlinks:\n"
    "  - name: WAIST\n    joint_type: free\n    translation: [ 0.1, 0.2, 0.7 ]\n"
    "    rotation: [ 0, 0, 1, 30 ]\n"
    "  - name: ARM\n    parent: WAIST\n    joint_type: revolute\n    joint_axis: Y\n"
    "    joint_id: 0\n    translation: [ 0, 0, 0.3 ]\n    joint_range: [ -90, 90 ]\n"
    "  - name: TIP\n    parent: ARM\n    joint_type: fixed\n    translation: [ 0.2, 0, 0 ]\n";
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) original = NULL;
  g_autoptr(KmSkeleton) from_urdf = NULL;
  g_autoptr(KmSkeleton) again = NULL;
  g_autoptr(KmSkeleton) from_body = NULL;
  g_autofree char *urdf = NULL;
  g_autofree char *urdf_again = NULL;
  g_autofree char *body_again = NULL;

  test_util_push_warnings (warnings);
  original = km_body_load ("t.body", body, strlen (body), NULL, &error);
  test_util_pop_warnings (warnings);
  g_assert_no_error (error);
  g_assert_true (km_skeleton_has_free_root (original));

  urdf = km_urdf_to_string (original, notes);
  if (strstr (urdf, "<joint name=\"WAIST\" type=\"floating\">\n"
                    "    <parent link=\"WAIST_base\"/>\n"
                    "    <child link=\"WAIST\"/>\n"
                    "    <origin xyz=\"0.1 0.2 0.7\" rpy=\"0 0 0.523598775598299\"/>\n"
                    "  </joint>\n") == NULL)
    g_error ("%s", urdf);
  g_assert_false (has_note (notes, "fixed base"));
  /* Read back, Kinema's own pattern (an empty base link WAIST_base whose one joint is the
   * floating WAIST to link WAIST) is the free root WAIST at the joint's origin again: the
   * same joints (it was a free root WAIST_base and a fixed joint WAIST, one joint more). */
  g_ptr_array_set_size (warnings, 0);
  from_urdf = load_urdf_text ("t.urdf", urdf, FALSE, warnings);
  g_assert_cmpuint (warnings->len, ==, 0);
  g_assert_true (km_skeleton_has_free_root (from_urdf));
  g_assert_cmpuint (km_skeleton_get_n_joints (from_urdf), ==,
                    km_skeleton_get_n_joints (original));
  g_assert_cmpstr (km_skeleton_get_joint (from_urdf, 0)->name, ==, "WAIST");
  g_assert_cmpstr (km_skeleton_get_root_name (from_urdf), ==, "WAIST");
  g_assert_cmpint (km_skeleton_get_joint (from_urdf, 0)->type, ==, KM_JOINT_FREE);
  test_util_assert_vec3 (km_skeleton_get_joint (from_urdf, 0)->offset, 0.1, 0.2, 0.7, 1e-12);
  g_assert_cmpstr (km_skeleton_get_joint (from_urdf, 1)->name, ==, "ARM");
  g_assert_cmpint (km_skeleton_get_joint (from_urdf, 1)->parent, ==, 0);
  assert_same_initial_pose (original, from_urdf);

  /* Not quite that pattern (the base link has a visual, or the joint another name than
   * its link): read as before, the base link the free root and the joint fixed. */
  {
    static const char *const variants[][2] = {
      { "<link name=\"WAIST_base\"/>",
        "<link name=\"WAIST_base\"><visual><geometry><box size=\"1 1 1\"/></geometry>"
        "</visual></link>" },
      { "<joint name=\"WAIST\" type=\"floating\">", "<joint name=\"float\" type=\"floating\">" },
    };

    for (guint v = 0; v < G_N_ELEMENTS (variants); v++)
      {
        g_autoptr(GString) text = g_string_new (urdf);
        g_autoptr(KmSkeleton) other = NULL;

        g_assert_cmpuint (g_string_replace (text, variants[v][0], variants[v][1], 1), ==, 1);
        other = load_urdf_text ("t.urdf", text->str, FALSE, warnings);
        g_assert_true (km_skeleton_has_free_root (other));
        g_assert_cmpstr (km_skeleton_get_joint (other, 0)->name, ==, "WAIST_base");
        g_assert_cmpuint (km_skeleton_get_n_joints (other), ==,
                          km_skeleton_get_n_joints (original) + 1);
      }
  }

  /* URDF → URDF: the same text (with the same note on the base link), a free root
   * still. */
  g_ptr_array_set_size (notes, 0);
  urdf_again = km_urdf_to_string (from_urdf, notes);
  g_assert_cmpstr (urdf_again, ==, urdf);
  g_assert_cmpuint (notes->len, ==, 1);
  g_assert_true (has_note (notes, "new base link “WAIST_base”"));
  again = load_urdf_text ("t.urdf", urdf_again, FALSE, warnings);
  g_assert_true (km_skeleton_equal (again, from_urdf, 0.0));

  /* … → .body: the free root and the pose kept. */
  body_again = km_body_to_string (from_urdf, NULL);
  test_util_push_warnings (warnings);
  from_body = km_body_load ("t.body", body_again, strlen (body_again), NULL, &error);
  test_util_pop_warnings (warnings);
  g_assert_no_error (error);
  g_assert_true (km_skeleton_has_free_root (from_body));
  assert_same_initial_pose (original, from_body);
}

/* A URDF with a floating base (the usual world link and floating joint) is written back
 * with it, as it is (the joint a floating one again, no base link added), and written over
 * its file keeps the file (comments, inertials), which it did not while the writer wrote
 * a fixed base that the check then found to read back otherwise. */
static void
test_free_root_urdf (void)
{
  static const char urdf[] =
    "<?xml version=\"1.0\"?>\n"
    "<robot name=\"r\">\n"
    "  <!-- kept -->\n"
    "  <link name=\"world\"/>\n"
    "  <joint name=\"float\" type=\"floating\">\n"
    "    <parent link=\"world\"/>\n"
    "    <child link=\"base\"/>\n"
    "    <origin xyz=\"0 0 0.5\" rpy=\"0 0 0\"/>\n"
    "  </joint>\n"
    "  <link name=\"base\"><inertial><mass value=\"2\"/></inertial></link>\n"
    "  <joint name=\"arm\" type=\"revolute\">\n"
    "    <parent link=\"base\"/>\n"
    "    <child link=\"hand\"/>\n"
    "    <origin xyz=\"0 0 0.3\" rpy=\"0 0 0\"/>\n"
    "    <axis xyz=\"0 1 0\"/>\n"
    "    <limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/>\n"
    "  </joint>\n"
    "  <link name=\"hand\"/>\n"
    "</robot>\n";
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-urdf-free-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "r.urdf", NULL);
  g_autofree char *out = g_build_filename (dir, "out.urdf", NULL);
  g_autoptr(KmSkeleton) skel = NULL;
  g_autoptr(KmSkeleton) back = NULL;
  g_autofree char *text = NULL;
  g_autofree char *written = NULL;

  g_assert_true (g_file_set_contents (path, urdf, -1, NULL));
  skel = load_urdf_text (path, urdf, FALSE, warnings);
  g_assert_true (km_skeleton_has_free_root (skel));

  text = km_urdf_to_string (skel, notes);
  g_assert_cmpuint (notes->len, ==, 0);
  g_assert_nonnull (strstr (text, "<joint name=\"float\" type=\"floating\">\n"
                                  "    <parent link=\"world\"/>\n"
                                  "    <child link=\"base\"/>\n"
                                  "    <origin xyz=\"0 0 0.5\" rpy=\"0 0 0\"/>\n"));
  g_assert_null (strstr (text, "_base"));
  back = load_urdf_text (path, text, FALSE, warnings);
  g_assert_true (km_skeleton_equal (back, skel, 0.0));

  g_assert_true (km_urdf_save_over (skel, path, out, notes, &error));
  g_assert_no_error (error);
  for (guint i = 0; i < notes->len; i++)
    g_test_message ("note: %s", (char *) g_ptr_array_index (notes, i));
  g_assert_cmpuint (notes->len, ==, 0);
  g_assert_true (g_file_get_contents (out, &written, NULL, NULL));
  g_assert_cmpstr (written, ==, urdf);
  km_test_remove_tree (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/kinema/UrdfExport/ur10-urdf", test_ur10_urdf);
  g_test_add_func ("/kinema/UrdfExport/free-root", test_free_root);
  g_test_add_func ("/kinema/UrdfExport/free-root-urdf", test_free_root_urdf);
  g_test_add_func ("/kinema/UrdfExport/unwritable-names", test_unwritable_names);
  g_test_add_func ("/kinema/UrdfExport/unwritable-names-unique", test_unwritable_names_unique);
  g_test_add_func ("/kinema/UrdfExport/ur10-other-formats", test_ur10_other_formats);
  g_test_add_func ("/kinema/UrdfExport/missing-mesh", test_missing_mesh);
  g_test_add_func ("/kinema/UrdfExport/loaded-mesh", test_loaded_mesh);
  g_test_add_func ("/kinema/UrdfExport/rebased-mesh", test_rebased_mesh);
  g_test_add_func ("/kinema/UrdfExport/default-effector-kept", test_default_effector_kept);
  g_test_add_func ("/kinema/UrdfExport/body-mesh-color", test_body_mesh_color);
  g_test_add_func ("/kinema/UrdfExport/body-missing-mesh-color", test_body_missing_mesh_color);
  g_test_add_func ("/kinema/UrdfExport/package-mesh-unreadable", test_package_mesh_unreadable);
  g_test_add_func ("/kinema/UrdfExport/edits", test_edits);
  g_test_add_func ("/kinema/UrdfExport/link-name-clashes", test_link_name_clashes);
  g_test_add_func ("/kinema/UrdfExport/json-link-errors", test_json_link_errors);
  g_test_add_func ("/kinema/UrdfExport/open-ranges", test_open_ranges);
  g_test_add_func ("/kinema/UrdfExport/open-range-body", test_open_range_body);
  g_test_add_func ("/kinema/UrdfExport/control-char-names", test_control_char_names);
  g_test_add_func ("/kinema/UrdfExport/exact-numbers", test_exact_numbers);

  return g_test_run ();
}
