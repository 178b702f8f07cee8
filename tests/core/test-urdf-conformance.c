/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

/*
 * The URDF reader against urdfdom (the ROS reference parser): the files in
 * tests/data/urdf-conformance/ and the error cases below hold what urdfdom reads, accepts
 * and refuses, and where Kinema is stricter on purpose (km-urdf.h).
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
load_file (const char *name,
           GPtrArray  *warnings)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "urdf-conformance",
                                                 name, NULL);
  g_autofree char *data = NULL;
  g_autoptr(GError) error = NULL;
  KmSkeleton *skel;
  gsize length;

  g_assert_true (g_file_get_contents (path, &data, &length, NULL));
  g_assert_cmpint (km_urdf_sniff (data, length), >, 50);
  km_parse_warnings_push (collect_warning, warnings);
  skel = km_urdf_load (name, data, length, NULL, &error);
  km_parse_warnings_pop ();
  g_assert_no_error (error);
  g_assert_nonnull (skel);
  return skel;
}

static KmSkeleton *
load_text (const char  *text,
           GPtrArray   *warnings,
           GError     **error)
{
  KmSkeleton *skel;

  km_parse_warnings_push (collect_warning, warnings);
  skel = km_urdf_load ("t.urdf", text, strlen (text), NULL, error);
  km_parse_warnings_pop ();
  return skel;
}

static void
assert_error (const char *text,
              const char *expected)
{
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = load_text (text, warnings, &error);

  g_assert_null (skel);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_INVALID);
  g_assert_cmpstr (error->message, ==, expected);
}

static void
assert_warnings (GPtrArray          *warnings,
                 const char * const *expected)
{
  guint n = g_strv_length ((char **) expected);

  for (guint i = 0; i < MIN (n, warnings->len); i++)
    g_assert_cmpstr (g_ptr_array_index (warnings, i), ==, expected[i]);
  g_assert_cmpuint (warnings->len, ==, n);
}

static const KmJoint *
joint (const KmSkeleton *skel,
       const char       *name)
{
  int index = km_skeleton_find_joint (skel, name);

  if (index < 0)
    g_error ("no joint “%s”", name);
  return km_skeleton_get_joint (skel, (guint) index);
}

static void
assert_vec3 (KmVec3 v,
             double x,
             double y,
             double z)
{
  g_assert_cmpfloat_with_epsilon (v.x, x, 1e-9);
  g_assert_cmpfloat_with_epsilon (v.y, y, 1e-9);
  g_assert_cmpfloat_with_epsilon (v.z, z, 1e-9);
}

/* q and -q are the same rotation. */
static void
assert_quat (KmQuat q,
             double w,
             double x,
             double y,
             double z)
{
  double sign = q.w * w + q.x * x + q.y * y + q.z * z < 0 ? -1 : 1;

  g_assert_cmpfloat_with_epsilon (sign * q.w, w, 1e-9);
  g_assert_cmpfloat_with_epsilon (sign * q.x, x, 1e-9);
  g_assert_cmpfloat_with_epsilon (sign * q.y, y, 1e-9);
  g_assert_cmpfloat_with_epsilon (sign * q.z, z, 1e-9);
}

static void
assert_limits (const KmJoint *j,
               gboolean       limited,
               double         min,
               double         max)
{
  g_assert_cmpint (j->limits[0].limited, ==, limited);
  if (limited)
    {
      g_assert_cmpfloat_with_epsilon (j->limits[0].min, min, 1e-12);
      g_assert_cmpfloat_with_epsilon (j->limits[0].max, max, 1e-12);
    }
}

static const char *
parent_name (const KmSkeleton *skel,
             const KmJoint    *j)
{
  g_assert_cmpint (j->parent, >=, 0);
  return km_skeleton_get_joint (skel, (guint) j->parent)->name;
}

/* Numbers, origins, axes, limits, mimic defaults, first-of-each rules, ignored elements. */
static void
test_values (void)
{
  static const char * const expected[] = {
    "values.urdf:46:5: a second <origin> in joint “first_wins” is ignored",
    "values.urdf:48:5: a second <axis> in joint “first_wins” is ignored",
    "values.urdf:50:5: a second <limit> in joint “first_wins” is ignored",
    /* one warning per kind and file, at the first, before the tree is built */
    "values.urdf:71:3: 1 <gazebo> element is not modelled; it is skipped",
    "values.urdf:74:3: 1 <transmission> element is not modelled; it is skipped",
    "values.urdf:79:3: 1 <ros2_control> element is not modelled; it is skipped",
    "values.urdf:52:37: floating joint “floating_axis” is not the base of the tree: it is "
      "fixed at its origin",
    "values.urdf:57:35: planar joint “planar_axis” is not the base of the tree: it is "
      "fixed at its origin",
    NULL
  };
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(KmSkeleton) skel = load_file ("values.urdf", warnings);
  const KmJoint *j;
  double phi = 0.1 / 2, the = 0.2 / 2, psi = 0.3 / 2;
  double s = sqrt (0.5);

  assert_warnings (warnings, expected);
  g_assert_cmpuint (km_skeleton_get_n_joints (skel), ==, 9);
  g_assert_cmpuint (km_skeleton_get_n_dof (skel), ==, 5);
  j = km_skeleton_get_joint (skel, 0);
  g_assert_cmpstr (j->name, ==, "base");
  g_assert_cmpint (j->type, ==, KM_JOINT_FIXED);

  /* "1e-3 +2 -.5"; rpy across a tab and a line break; the axis normalised. */
  j = joint (skel, "numbers");
  g_assert_cmpint (j->type, ==, KM_JOINT_REVOLUTE);
  g_assert_cmpstr (parent_name (skel, j), ==, "base");
  assert_vec3 (j->offset, 0.001, 2, -0.5);
  /* urdfdom's Rotation::setFromRPY (fixed axes: Rz(yaw)·Ry(pitch)·Rx(roll)). */
  assert_quat (j->rotation,
               cos (phi) * cos (the) * cos (psi) + sin (phi) * sin (the) * sin (psi),
               sin (phi) * cos (the) * cos (psi) - cos (phi) * sin (the) * sin (psi),
               cos (phi) * sin (the) * cos (psi) + sin (phi) * cos (the) * sin (psi),
               cos (phi) * cos (the) * sin (psi) - sin (phi) * sin (the) * cos (psi));
  assert_vec3 (j->axis, 0, 0, 1);
  assert_limits (j, TRUE, -1.5, 2.5);

  /* Only rpy: no offset. Continuous: the default axis, limits ignored. */
  j = joint (skel, "only_rpy");
  g_assert_cmpint (j->type, ==, KM_JOINT_REVOLUTE);
  g_assert_cmpstr (parent_name (skel, j), ==, "numbers");
  assert_vec3 (j->offset, 0, 0, 0);
  assert_quat (j->rotation, s, 0, 0, s);
  assert_vec3 (j->axis, 1, 0, 0);
  assert_limits (j, FALSE, 0, 0);

  /* Only xyz: no rotation. <limit> with effort and velocity only: lower = upper = 0. */
  j = joint (skel, "only_xyz");
  g_assert_cmpint (j->type, ==, KM_JOINT_PRISMATIC);
  assert_vec3 (j->offset, 0, 0, 0.25);
  g_assert_false (j->has_rotation);
  assert_vec3 (j->axis, 0, 1, 0);
  assert_limits (j, TRUE, 0, 0);

  /* quat_xyzw (urdfdom 4), normalised; the <axis/> of a fixed joint is not read. */
  j = joint (skel, "quat");
  g_assert_cmpint (j->type, ==, KM_JOINT_FIXED);
  assert_vec3 (j->offset, 1, 0, 0);
  assert_quat (j->rotation, s, 0, 0, s);

  /* <mimic joint=…> alone: multiplier 1, offset 0. */
  j = joint (skel, "mimic_defaults");
  g_assert_cmpint (j->mimic, ==, km_skeleton_find_joint (skel, "numbers"));
  g_assert_cmpfloat (j->mimic_ratio, ==, 1.0);
  g_assert_cmpfloat (j->mimic_offset, ==, 0.0);

  /* The first <origin>, <axis>, <limit>. */
  j = joint (skel, "first_wins");
  assert_vec3 (j->offset, 0, 0, 1);
  assert_vec3 (j->axis, 0, 1, 0);
  assert_limits (j, TRUE, -0.5, 0.5);

  /* The axis of floating and planar joints is not read (not even a bad one). */
  j = joint (skel, "floating_axis");
  g_assert_cmpint (j->type, ==, KM_JOINT_FIXED);
  g_assert_cmpstr (parent_name (skel, j), ==, "first_wins");
  j = joint (skel, "planar_axis");
  g_assert_cmpint (j->type, ==, KM_JOINT_FIXED);
  g_assert_cmpstr (parent_name (skel, j), ==, "floating_axis");
}

static void
assert_shape (const KmSkeleton *skel,
              const char       *joint_name,
              guint             index,
              KmShapeType       type,
              float             r,
              float             g,
              float             b,
              float             a)
{
  guint n = 0;
  KmShape * const *shapes = km_skeleton_get_shapes (skel,
                                                    (guint) km_skeleton_find_joint (skel,
                                                                                    joint_name),
                                                    &n);

  g_assert_cmpuint (index, <, n);
  g_assert_cmpint (shapes[index]->type, ==, type);
  g_assert_cmpfloat_with_epsilon (shapes[index]->color.r, r, 1e-6);
  g_assert_cmpfloat_with_epsilon (shapes[index]->color.g, g, 1e-6);
  g_assert_cmpfloat_with_epsilon (shapes[index]->color.b, b, 1e-6);
  g_assert_cmpfloat_with_epsilon (shapes[index]->color.a, a, 1e-6);
}

static guint
n_shapes (const KmSkeleton *skel,
          const char       *joint_name)
{
  guint n = 0;

  km_skeleton_get_shapes (skel, (guint) km_skeleton_find_joint (skel, joint_name), &n);
  return n;
}

/* urdfdom's assignMaterial: robot-level materials first (defined anywhere), then a named
 * material defined inside a visual, for the links after it. */
static void
test_materials (void)
{
  static const char * const expected[] = {
    "materials.urdf:48:37: <geometry> has more than one shape; <box> is ignored",
    "materials.urdf:68:19: material “blue” is defined twice; the first definition is used",
    "materials.urdf:74:3: a <material> without a “name” is ignored",
    "materials.urdf:18:5: 1 <collision> element is not modelled; it is skipped",
    NULL
  };
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(KmSkeleton) skel = load_file ("materials.urdf", warnings);
  KmColor d = KM_COLOR_DEFAULT;
  KmShape * const *shapes;
  guint n;

  assert_warnings (warnings, expected);
  g_assert_cmpuint (km_skeleton_get_n_joints (skel), ==, 4);
  g_assert_cmpstr (parent_name (skel, joint (skel, "j2")), ==, "j1");
  g_assert_cmpstr (parent_name (skel, joint (skel, "j3")), ==, "j2");

  /* Three visuals, collisions not read. "blue" is defined after its use; as a robot-level
   * material it wins over the visual's own green. */
  g_assert_cmpuint (n_shapes (skel, "base"), ==, 3);
  assert_shape (skel, "base", 0, KM_SHAPE_BOX, 0, 0, 1, 1);
  assert_shape (skel, "base", 1, KM_SHAPE_SPHERE, 1, 0, 0, 1);
  assert_shape (skel, "base", 2, KM_SHAPE_CYLINDER, 0, 0, 1, 1);
  shapes = km_skeleton_get_shapes (skel, 0, &n);
  assert_vec3 (shapes[0]->size, 1, 2, 3);
  assert_vec3 (shapes[1]->transform.pos, 0, 0, 1);
  g_assert_cmpfloat (shapes[1]->radius, ==, 0.5);

  /* "inline_red" was defined in base's visual; name="" with a colour; no material; a
   * texture-only material: the default colour. */
  g_assert_cmpuint (n_shapes (skel, "j1"), ==, 4);
  assert_shape (skel, "j1", 0, KM_SHAPE_BOX, 1, 0, 0, 1);
  assert_shape (skel, "j1", 1, KM_SHAPE_BOX, 0, 0.5f, 0, 0.25f);
  assert_shape (skel, "j1", 2, KM_SHAPE_BOX, d.r, d.g, d.b, d.a);
  assert_shape (skel, "j1", 3, KM_SHAPE_BOX, d.r, d.g, d.b, d.a);
  g_assert_cmpuint (n_shapes (skel, "j2"), ==, 0);

  /* A visual's first <origin>, shape, <material> and <color>. */
  g_assert_cmpuint (n_shapes (skel, "j3"), ==, 1);
  assert_shape (skel, "j3", 0, KM_SHAPE_SPHERE, 1, 0, 0, 1);
  shapes = km_skeleton_get_shapes (skel, (guint) km_skeleton_find_joint (skel, "j3"), &n);
  assert_vec3 (shapes[0]->transform.pos, 1, 0, 0);
}

/* Mimics urdfdom does not check: a cycle moves on its own, and a joint that mimics one of
 * its joints follows that joint directly. */
static void
test_mimic_cycle (void)
{
  static const char text[] =
    "<robot name='m'><link name='r'/><link name='a'/><link name='b'/><link name='c'/>\n"
    "<joint name='a' type='continuous'><parent link='r'/><child link='a'/>"
    "<mimic joint='b' multiplier='3'/></joint>\n"
    "<joint name='b' type='continuous'><parent link='r'/><child link='b'/>"
    "<mimic joint='a'/></joint>\n"
    "<joint name='c' type='continuous'><parent link='r'/><child link='c'/>"
    "<mimic joint='b' multiplier='-2' offset='0.5'/></joint>\n"
    "</robot>";
  static const char * const expected[] = {
    "t.urdf:2:84: the <mimic> joints of “a” form a cycle; it moves on its own",
    "t.urdf:3:84: the <mimic> joints of “b” form a cycle; it moves on its own",
    NULL
  };
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = load_text (text, warnings, &error);
  const KmJoint *c;

  g_assert_no_error (error);
  assert_warnings (warnings, expected);
  g_assert_cmpint (joint (skel, "a")->mimic, ==, -1);
  g_assert_cmpint (joint (skel, "b")->mimic, ==, -1);
  c = joint (skel, "c");
  g_assert_cmpint (c->mimic, ==, km_skeleton_find_joint (skel, "b"));
  g_assert_cmpfloat (c->mimic_ratio, ==, -2.0);
  g_assert_cmpfloat (c->mimic_offset, ==, 0.5);
}

/* Files urdfdom loads while it complains: Kinema loads them too, with a warning at each
 * value, leaving out what cannot be read. */
static void
test_lenient (void)
{
  static const char * const expected[] = {
    "lenient.urdf:3:32: URDF version “2.0” is not known; the file is read as version 1.0",
    "lenient.urdf:6:33: expected a positive number in “radius”; the visual is left out",
    "lenient.urdf:9:28: expected sizes that are not negative; the visual is left out",
    "lenient.urdf:12:20: expected 3 finite numbers separated by spaces in “xyz”; the visual "
      "is left out",
    "lenient.urdf:17:44: expected four numbers between 0 and 1 in “rgba”; the colour is "
      "left out",
    "lenient.urdf:21:32: expected a “rgba” attribute on <color>; the colour is left out",
    "lenient.urdf:24:17: geometry <capsule> is not supported; the visual is left out",
    "lenient.urdf:40:5: a second <parent> in joint “wrist” is ignored",
    "lenient.urdf:4:15: a joint is called “base” like the root link: the root is called "
      "“base_root”",
    "lenient.urdf:43:19: joint “wrist” mimics “gripper”, which is not a joint; it moves on "
      "its own",
    "lenient.urdf:17:23: material “rgb255” is not defined; the default colour is used",
    "lenient.urdf:21:23: material “nocolor” is not defined; the default colour is used",
    NULL
  };
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "urdf-conformance",
                                                 "lenient.urdf", NULL);
  g_autofree char *data = NULL;
  g_autoptr(KmSkeleton) skel = NULL;
  KmColor d = KM_COLOR_DEFAULT;
  const KmJoint *j;
  char *inverted;
  gsize length;

  /* One thing urdfdom takes that Kinema does not: joint “base”'s inverted limits (it once
   * left the joint unlimited with a warning; a typo must not give the IK every position).
   * Refused at the attribute as skeleton.json and .body refuse min > max; the rest of the
   * file is read with those limits the right way round (same length: same positions). */
  g_assert_true (g_file_get_contents (path, &data, &length, NULL));
  skel = km_urdf_load ("lenient.urdf", data, length, NULL, &error);
  g_assert_null (skel);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_INVALID);
  g_assert_cmpstr (error->message, ==, "lenient.urdf:36:19: expected lower ≤ upper");
  g_clear_error (&error);
  inverted = strstr (data, "lower=\"1\" upper=\"-1\"");
  g_assert_nonnull (inverted);
  memcpy (inverted, "lower=\"-1\" upper=\"1\"", strlen ("lower=\"-1\" upper=\"1\""));
  km_parse_warnings_push (collect_warning, warnings);
  skel = km_urdf_load ("lenient.urdf", data, length, NULL, &error);
  km_parse_warnings_pop ();
  g_assert_no_error (error);

  assert_warnings (warnings, expected);
  g_assert_cmpuint (km_skeleton_get_n_joints (skel), ==, 3);
  g_assert_cmpstr (km_skeleton_get_joint (skel, 0)->name, ==, "base_root");
  g_assert_cmpstr (km_skeleton_get_root_name (skel), ==, "base_root");

  /* Of seven visuals, the two with a bad colour and the good sphere are kept. */
  g_assert_cmpuint (n_shapes (skel, "base_root"), ==, 3);
  assert_shape (skel, "base_root", 0, KM_SHAPE_BOX, d.r, d.g, d.b, d.a);
  assert_shape (skel, "base_root", 1, KM_SHAPE_BOX, d.r, d.g, d.b, d.a);
  assert_shape (skel, "base_root", 2, KM_SHAPE_SPHERE, d.r, d.g, d.b, d.a);

  j = joint (skel, "base");
  g_assert_cmpstr (parent_name (skel, j), ==, "base_root");
  assert_limits (j, TRUE, -1, 1);
  j = joint (skel, "wrist");
  g_assert_cmpstr (parent_name (skel, j), ==, "base");
  g_assert_cmpint (j->mimic, ==, -1);
  assert_limits (j, TRUE, -1, 1);
}

static void
test_bom (void)
{
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(KmSkeleton) skel = load_file ("bom.urdf", warnings);

  g_assert_cmpuint (warnings->len, ==, 0);
  g_assert_cmpuint (km_skeleton_get_n_joints (skel), ==, 1);
  g_assert_cmpstr (km_skeleton_get_joint (skel, 0)->name, ==, "only");
  g_assert_cmpuint (n_shapes (skel, "only"), ==, 1);
}

#define TWO_LINKS "<robot name='r'><link name='a'/><link name='b'/>\n"
#define REVOLUTE  "<joint name='j' type='revolute'><parent link='a'/><child link='b'/>\n"

/* What urdfdom refuses is refused, at the offending value; and where Kinema is stricter. */
static void
test_errors (void)
{
  /* Numbers as C++ streams read them: no hexadecimal, no commas, no "inf". */
  assert_error (TWO_LINKS REVOLUTE "  <origin xyz='0x10 0 0'/></joint></robot>",
                "t.urdf:3:16: expected 3 finite numbers separated by spaces in “xyz”");
  assert_error (TWO_LINKS REVOLUTE "  <origin xyz='1,2,3'/></joint></robot>",
                "t.urdf:3:16: expected 3 finite numbers separated by spaces in “xyz”");
  assert_error (TWO_LINKS REVOLUTE "  <limit lower='-inf' upper='1'/></joint></robot>",
                "t.urdf:3:17: expected a finite number in “lower”");
  /* urdfdom 4: rpy or quat_xyzw, not both. */
  assert_error (TWO_LINKS REVOLUTE "  <origin rpy='0 0 0' quat_xyzw='0 0 0 1'/></joint></robot>",
                "t.urdf:3:34: expected either “rpy” or “quat_xyzw” on <origin>, not both");
  assert_error (TWO_LINKS REVOLUTE "  <origin quat_xyzw='0 0 0 0'/></joint></robot>",
                "t.urdf:3:22: expected a quaternion that is not zero in “quat_xyzw”");
  assert_error (TWO_LINKS REVOLUTE "  <origin quat_xyzw='0 0 1'/></joint></robot>",
                "t.urdf:3:22: expected 4 finite numbers separated by spaces in “quat_xyzw”");
  /* Stricter on purpose: a zero axis (urdfdom keeps it; KDL divides by its length). */
  assert_error (TWO_LINKS REVOLUTE "  <axis xyz='0 0 0'/></joint></robot>",
                "t.urdf:3:14: the axis of joint “j” must not be zero");
  assert_error (TWO_LINKS REVOLUTE "  <axis/></joint></robot>",
                "t.urdf:3:3: expected a “xyz” attribute on <axis>");
  /* As urdfdom: an unknown type, a missing link, two roots, a link without parent joint. */
  assert_error (TWO_LINKS "<joint name='j' type='Revolute'><parent link='a'/><child link='b'/>"
                "</joint></robot>",
                "t.urdf:2:23: expected a joint type revolute, continuous, prismatic, fixed, "
                "floating or planar, found “Revolute”");
  assert_error (TWO_LINKS "<joint name='j' type='fixed'><parent link='a'/><child link='c'/>"
                "</joint></robot>",
                "t.urdf:2:61: expected the name of a link, “c” is none");
  assert_error (TWO_LINKS "</robot>",
                "t.urdf:1:45: expected one root link, but neither “a” nor “b” is the child "
                "of a joint");
  assert_error (TWO_LINKS "<joint name='j' type='fixed'><parent link='a'/></joint></robot>",
                "t.urdf:2:14: expected <parent link=…> and <child link=…> in joint “j”");
  /* Stricter on purpose: urdfdom lets a second joint re-parent a link. */
  assert_error (TWO_LINKS "<joint name='j' type='fixed'><parent link='a'/><child link='b'/></joint>\n"
                "<joint name='k' type='fixed'><parent link='a'/><child link='b'/></joint></robot>",
                "t.urdf:3:61: link “b” is already the child of joint “j”");
  assert_error (TWO_LINKS "<joint name='j' type='fixed'><parent link='a'/><child link='b'/></joint>\n"
                "<joint name='j' type='fixed'><parent link='b'/><child link='c'/></joint>"
                "<link name='c'/></robot>",
                "t.urdf:3:14: duplicate joint name “j”");
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/kinema/UrdfConformance/values", test_values);
  g_test_add_func ("/kinema/UrdfConformance/materials", test_materials);
  g_test_add_func ("/kinema/UrdfConformance/lenient", test_lenient);
  g_test_add_func ("/kinema/UrdfConformance/mimic-cycle", test_mimic_cycle);
  g_test_add_func ("/kinema/UrdfConformance/bom", test_bom);
  g_test_add_func ("/kinema/UrdfConformance/errors", test_errors);
  return g_test_run ();
}
