/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include <glib.h>

#include "km-body-item.h"
#include "km-body-writer.h"
#include "km-cnoid.h"
#include "km-error.h"
#include "km-format.h"
#include "km-openhrp.h"
#include "km-urdf-writer.h"

#include "test-util.h"

#define EPS 1e-9
#define assert_vec(v, x, y, z) test_util_assert_vec3 ((v), (x), (y), (z), EPS)

static KmSkeleton *
load_fixture (const char *name,
              GPtrArray  *warnings)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "openhrp", name, NULL);
  g_autoptr(GError) error = NULL;
  gsize length;
  g_autofree char *data = test_util_read_file (path, &length);
  KmSkeleton *skel;

  test_util_push_warnings (warnings);
  skel = km_openhrp_load (path, data, length, &error);
  test_util_pop_warnings (warnings);
  g_assert_no_error (error);
  g_assert_nonnull (skel);
  return skel;
}

static const char *
parent_name (KmSkeleton    *skel,
             const KmJoint *j)
{
  return j->parent < 0 ? NULL : km_skeleton_get_joint (skel, j->parent)->name;
}

static void
test_arm (void)
{
  g_autoptr(KmSkeleton) skel = load_fixture ("arm.wrl", NULL);
  const KmJoint *base, *j1, *j2, *j3, *tool;

  g_assert_cmpuint (km_skeleton_get_n_joints (skel), ==, 5);
  g_assert_cmpuint (km_skeleton_get_n_dof (skel), ==, 4);
  g_assert_false (km_skeleton_has_free_root (skel));
  base = test_util_joint (skel, "BASE");
  j1 = test_util_joint (skel, "J1");
  j2 = test_util_joint (skel, "J2");
  j3 = test_util_joint (skel, "J3");
  tool = test_util_joint (skel, "TOOL");

  g_assert_cmpint (base->type, ==, KM_JOINT_FIXED);
  g_assert_cmpint (base->parent, ==, -1);
  assert_vec (base->offset, 0, 0, 0.1);
  g_assert_false (base->has_rotation);

  /* Letter axis, both limits, jointId. */
  g_assert_cmpint (j1->type, ==, KM_JOINT_REVOLUTE);
  g_assert_cmpstr (parent_name (skel, j1), ==, "BASE");
  assert_vec (j1->axis, 0, 0, 1);
  assert_vec (j1->offset, 0, 0, 0.2);
  g_assert_true (j1->limits[0].limited);
  g_assert_cmpfloat (j1->limits[0].min, ==, -1.5);
  g_assert_cmpfloat (j1->limits[0].max, ==, 1.5);
  g_assert_cmpint (j1->joint_id, ==, 0);

  /* Vector axis, a rotation, only the first ulimit value counts. */
  g_assert_cmpint (j2->type, ==, KM_JOINT_REVOLUTE);
  g_assert_cmpstr (parent_name (skel, j2), ==, "J1");
  assert_vec (j2->axis, 0, 1, 0);
  assert_vec (j2->offset, 0, 0, 0.3);
  g_assert_true (j2->has_rotation);
  g_assert_cmpfloat_with_epsilon (j2->rotation.w, cos (G_PI / 4), EPS);
  g_assert_cmpfloat_with_epsilon (j2->rotation.x, sin (G_PI / 4), EPS);
  g_assert_cmpfloat_with_epsilon (j2->rotation.y, 0, EPS);
  g_assert_cmpfloat_with_epsilon (j2->rotation.z, 0, EPS);
  g_assert_cmpfloat (j2->limits[0].min, ==, -0.5);
  g_assert_cmpfloat (j2->limits[0].max, ==, 2.0);

  /* "-X", no limits. */
  g_assert_cmpstr (parent_name (skel, j3), ==, "J2");
  assert_vec (j3->axis, -1, 0, 0);
  assert_vec (j3->offset, 0.4, 0, 0);
  g_assert_false (j3->limits[0].limited);
  g_assert_cmpint (j3->joint_id, ==, 2);

  /* Slide with jointAxis omitted: the PROTO's default "Z". */
  g_assert_cmpint (tool->type, ==, KM_JOINT_PRISMATIC);
  g_assert_cmpstr (parent_name (skel, tool), ==, "J3");
  assert_vec (tool->axis, 0, 0, 1);
  assert_vec (tool->offset, 0, 0, 0.05);
  g_assert_cmpfloat (tool->limits[0].min, ==, 0);
  g_assert_cmpfloat (tool->limits[0].max, ==, 0.1);
  g_assert_cmpint (tool->joint_id, ==, 3);

  /* Shapes: the BASE segment's box, J1's cylinder, none on the others. */
  {
    guint n;
    KmShape * const *shapes = km_skeleton_get_shapes (skel, km_skeleton_find_joint (skel, "BASE"),
                                                      &n);

    g_assert_cmpuint (n, ==, 1);
    g_assert_cmpint (shapes[0]->type, ==, KM_SHAPE_BOX);
    assert_vec (shapes[0]->size, 0.2, 0.2, 0.1);
    shapes = km_skeleton_get_shapes (skel, km_skeleton_find_joint (skel, "J1"), &n);
    g_assert_cmpuint (n, ==, 1);
    g_assert_cmpint (shapes[0]->type, ==, KM_SHAPE_CYLINDER);
    km_skeleton_get_shapes (skel, km_skeleton_find_joint (skel, "J3"), &n);
    g_assert_cmpuint (n, ==, 0);
  }
}

/* World pose of TOOL at q = (0.5, 0.3, 0.2, 0.04), computed by hand as
 * T(0,0,.1)·T(0,0,.2)·Rz(q1)·T(0,0,.3)·Rx(90°)·Ry(q2)·T(.4,0,0)·R−x(q3)·T(0,0,.05+q4). */
static void
test_arm_forward_kinematics (void)
{
  g_autoptr(KmSkeleton) skel = load_fixture ("arm.wrl", NULL);
  static const double expected_pos[3] = { 0.341957789358, 0.225488729925, 0.617880239772 };
  static const double expected_rot[3][3] = {
    { 0.696706709347, -0.142516654521, 0.703056729101 },
    { 0.7173560909, 0.138414255706, -0.682818960389 },
    { 0.0, 0.980066577841, 0.198669330795 },
  };
  const char *names[] = { "J1", "J2", "J3", "TOOL" };
  const double values[] = { 0.5, 0.3, 0.2, 0.04 };
  guint n = km_skeleton_get_n_joints (skel);
  g_autofree KmTransform *world = g_new (KmTransform, n);
  double q[4] = { 0 };
  KmTransform identity;
  int tool = km_skeleton_find_joint (skel, "TOOL"), j2 = km_skeleton_find_joint (skel, "J2");

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    q[test_util_joint (skel, names[i])->dof_index] = values[i];
  km_transform_identity (&identity);
  km_skeleton_forward_kinematics (skel, q, &identity, world);
  assert_vec (world[j2].pos, 0, 0, 0.6);
  for (int r = 0; r < 3; r++)
    {
      g_assert_cmpfloat_with_epsilon ((&world[tool].pos.x)[r], expected_pos[r], 1e-9);
      for (int c = 0; c < 3; c++)
        g_assert_cmpfloat_with_epsilon (world[tool].rot.m[r][c], expected_rot[r][c], 1e-9);
    }
}

static void
test_humanoid (void)
{
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(KmSkeleton) skel = load_fixture ("humanoid.wrl", warnings);
  const KmJoint *waist, *lleg, *rleg, *chest, *head;
  KmShape * const *shapes;
  guint n;

  g_assert_cmpuint (km_skeleton_get_n_joints (skel), ==, 5);
  g_assert_true (km_skeleton_has_free_root (skel));
  waist = test_util_joint (skel, "WAIST");
  lleg = test_util_joint (skel, "LLEG");
  rleg = test_util_joint (skel, "RLEG");
  chest = test_util_joint (skel, "CHEST");
  head = test_util_joint (skel, "HEAD");
  g_assert_cmpint (waist->type, ==, KM_JOINT_FREE);
  g_assert_cmpint (waist->parent, ==, -1);
  assert_vec (waist->offset, 0, 0, 0.7);

  g_assert_cmpstr (parent_name (skel, lleg), ==, "WAIST");
  assert_vec (lleg->axis, 0, 1, 0);
  assert_vec (lleg->offset, 0, 0.1, -0.1);
  g_assert_cmpfloat (lleg->limits[0].min, ==, -2);
  g_assert_cmpfloat (lleg->limits[0].max, ==, 1);
  /* jointAxis omitted: this file's PROTO declares SFVec3f jointAxis 0 1 0. */
  assert_vec (rleg->axis, 0, 1, 0);
  assert_vec (rleg->offset, 0, -0.1, -0.1);
  g_assert_false (rleg->limits[0].limited);
  g_assert_cmpint (chest->type, ==, KM_JOINT_PRISMATIC);
  assert_vec (chest->axis, 0, 0, 1);
  g_assert_cmpfloat (chest->limits[0].min, ==, -0.05);
  /* HEAD sits in a Transform among CHEST's children: 0.2 + its own 0.1. */
  g_assert_cmpstr (parent_name (skel, head), ==, "CHEST");
  assert_vec (head->offset, 0, 0, 0.3);

  /* WAIST: the box with its Transform folded in (0 0 0.1, 90° about Z). */
  shapes = km_skeleton_get_shapes (skel, km_skeleton_find_joint (skel, "WAIST"), &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpint (shapes[0]->type, ==, KM_SHAPE_BOX);
  assert_vec (shapes[0]->transform.pos, 0, 0, 0.1);
  g_assert_cmpfloat_with_epsilon (shapes[0]->transform.rot.m[0][1], -1, 1e-9);
  g_assert_cmpfloat_with_epsilon (shapes[0]->transform.rot.m[1][0], 1, 1e-9);
  g_assert_cmpfloat_with_epsilon (shapes[0]->color.b, 1, 1e-6);
  g_assert_cmpfloat_with_epsilon (shapes[0]->color.r, 0, 1e-6);

  /* LLEG: the Inline mesh file's box, its own Transform (0 0 -0.2) under the one in the
   * joint's children (0.01 0 0). */
  shapes = km_skeleton_get_shapes (skel, km_skeleton_find_joint (skel, "LLEG"), &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpint (shapes[0]->type, ==, KM_SHAPE_BOX);
  assert_vec (shapes[0]->size, 0.1, 0.1, 0.4);
  assert_vec (shapes[0]->transform.pos, 0.01, 0, -0.2);
  g_assert_cmpfloat_with_epsilon (shapes[0]->color.r, 1, 1e-6);

  km_skeleton_get_shapes (skel, km_skeleton_find_joint (skel, "RLEG"), &n);
  g_assert_cmpuint (n, ==, 0);

  /* CHEST: a sphere, and a box scaled by 2 at 0 0 0.3 (Group and Transform folded). */
  shapes = km_skeleton_get_shapes (skel, km_skeleton_find_joint (skel, "CHEST"), &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpint (shapes[0]->type, ==, KM_SHAPE_SPHERE);
  g_assert_cmpfloat (shapes[0]->radius, ==, 0.1);
  g_assert_cmpint (shapes[1]->type, ==, KM_SHAPE_BOX);
  assert_vec (shapes[1]->transform.pos, 0, 0, 0.3);
  assert_vec (km_vec3 (shapes[1]->size.x * shapes[1]->scale.x,
                       shapes[1]->size.y * shapes[1]->scale.y,
                       shapes[1]->size.z * shapes[1]->scale.z), 0.2, 0.2, 0.2);

  /* Sensors are skipped silently; the unknown Marker once (two instances). */
  for (guint i = 0; i < warnings->len; i++)
    g_test_message ("warning: %s", (char *) g_ptr_array_index (warnings, i));
  g_assert_cmpuint (warnings->len, ==, 1);
  g_assert_true (g_str_has_suffix (g_ptr_array_index (warnings, 0),
                                   "humanoid.wrl:154:16: Marker nodes in a Joint are not read; "
                                   "skipped"));
}

static const char header[] =
  "#VRML V2.0 utf8\n"
  "PROTO Joint [ exposedField SFString jointType \"\" exposedField MFNode children [ ]\n"
  "  exposedField SFString jointAxis \"Z\" exposedField SFVec3f translation 0 0 0\n"
  "  exposedField MFFloat ulimit [ ] exposedField MFFloat llimit [ ] exposedField SFInt32 "
  "jointId -1 ] { Group { } }\n";

static void
check_error (const char *body,
             const char *expected)
{
  g_autofree char *text = g_strconcat (header, body, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = km_openhrp_load ("bad.wrl", text, strlen (text), &error);

  g_assert_null (skel);
  g_assert_error (error, KM_PARSE_ERROR, error->code);
  g_assert_cmpstr (error->message, ==, expected);
}

static void
test_errors (void)
{
  /* Lines 1-4 are the header. */
  check_error ("DEF R Joint {\n  jointType \"rotor\"\n}\n",
               "bad.wrl:6:13: expected a jointType “free”, “fixed”, “rotate”, “slide”, "
               "“crawler” or “pseudoContinuousTrack”");
  check_error ("DEF R Joint { jointType \"rotate\"\n  jointAxis \"W\" }\n",
               "bad.wrl:6:13: expected a jointAxis “X”, “Y”, “Z” (or “-X”, “-Y”, “-Z”) or "
               "three numbers, not all zero");
  check_error ("DEF R Joint { jointType \"slide\" jointAxis 0 0 0 }\n",
               "bad.wrl:5:43: expected a jointAxis “X”, “Y”, “Z” (or “-X”, “-Y”, “-Z”) or "
               "three numbers, not all zero");
  check_error ("DEF R Joint { jointType \"fixed\"\n translation 0 0 }\n",
               "bad.wrl:6:14: expected translation to be 3 numbers (x y z)");
  check_error ("DEF R Joint { jointType \"rotate\" ulimit [ \"a\" ] llimit [ 0 ] }\n",
               "bad.wrl:5:41: expected ulimit to be a list of numbers");
  check_error ("DEF R Joint { jointType \"rotate\" ulimit [ 0 ] llimit [ 1 ] }\n",
               "bad.wrl:5:54: expected llimit 1 not to exceed ulimit 0");
  check_error ("DEF R Joint { jointType \"rotate\" translation 0 0 1x }\n",
               "bad.wrl:5:50: expected a finite number");
  /* jointType omitted: the PROTO's default "" is no type; the message points at the node. */
  check_error ("PROTO Humanoid [ exposedField MFNode humanoidBody [ ] ] { Group { } }\n"
               "DEF H Humanoid { humanoidBody [\n  DEF R Joint { } ] }\n",
               "bad.wrl:7:9: expected a jointType “free”, “fixed”, “rotate”, “slide”, "
               "“crawler” or “pseudoContinuousTrack”");
  check_error ("DEF R Joint { jointType \"free\" children [\n"
               "  DEF A Joint { jointType \"fixed\" }\n  USE A ] }\n",
               "bad.wrl:6:9: expected each Joint once in the tree, “A” is used again");
  check_error ("DEF H Humanoid { humanoidBody [ ] }\n",
               "bad.wrl:5:7: expected a declaration “PROTO Humanoid [ … ] { … }” earlier in "
               "the file");
  check_error ("DEF R Joint { jointType \"free\" children [ DEF S Segment { } ] }\n",
               "bad.wrl:5:49: expected a declaration “PROTO Segment [ … ] { … }” earlier in "
               "the file");
  check_error ("Transform { }\n",
               "bad.wrl:1:1: expected a Humanoid node (or a Joint) of the OpenHRP model format");
  check_error ("DEF R Joint { jointType \"free\" children [\n"
               "  Transform { scale 2 2 2 children DEF A Joint { jointType \"fixed\" } } ] }\n",
               "bad.wrl:6:3: a Transform above Joint “A” scales or shears it; expected only "
               "translation and rotation");
  check_error ("DEF R Joint { jointType \"free\" children [\n"
               "  DEF A Joint { jointType \"fixed\" } DEF A Joint { jointType \"fixed\" } ] }\n",
               "bad.wrl:6:41: duplicate joint name “A”");
}

/* A word where the field's type (from the PROTO, or a built-in node's) wants a number fails
 * at that word, and so do NaN and infinities in any spelling: they used to be read as the
 * next field's name and fail later, somewhere else, with “expected “{””. */
static void
test_not_a_number (void)
{
  check_error ("DEF R Joint { jointType \"rotate\"\n  translation 0 0 NaN\n  ulimit [ 1 ] }\n",
               "bad.wrl:6:19: expected a finite number");
  check_error ("DEF R Joint { jointType \"rotate\" translation 0 0 abc ulimit [ 1 ] }\n",
               "bad.wrl:5:50: expected a finite number");
  /* (a value cut short by the next field: the reader names the field and its size) */
  check_error ("DEF R Joint { jointType \"rotate\" translation 0 0 ulimit [ 1 ] }\n",
               "bad.wrl:5:46: expected translation to be 3 numbers (x y z)");
  check_error ("DEF R Joint { jointType \"rotate\" translation inf 0 0 }\n",
               "bad.wrl:5:46: expected a finite number");
  check_error ("DEF R Joint { jointType \"rotate\" ulimit [ nan ] llimit [ 0 ] }\n",
               "bad.wrl:5:43: expected a finite number");
  check_error ("DEF R Joint { jointType \"rotate\" ulimit [ INF ] llimit [ 0 ] }\n",
               "bad.wrl:5:43: expected a finite number");
  check_error ("DEF R Joint { jointType \"rotate\" ulimit [ Infinity ] llimit [ 0 ] }\n",
               "bad.wrl:5:43: expected a finite number");
  check_error ("DEF R Joint { jointType \"rotate\" ulimit [ abc ] llimit [ 0 ] }\n",
               "bad.wrl:5:43: expected a finite number");
  check_error ("DEF R Joint { jointType \"rotate\" ulimit [ 1 abc ] llimit [ 0 ] }\n",
               "bad.wrl:5:45: expected a finite number");
  check_error ("DEF R Joint { jointType \"rotate\" ulimit -Infinity llimit [ 0 ] }\n",
               "bad.wrl:5:41: expected a finite number");
  /* A PROTO's default values are typed as well. */
  check_error ("PROTO Segment [ exposedField SFFloat mass nan ] { Group { } }\n"
               "DEF R Joint { jointType \"free\" }\n",
               "bad.wrl:5:43: expected a finite number");
  /* Built-in nodes' numeric fields: a Transform, a Box. */
  check_error ("DEF R Joint { jointType \"free\" children [\n"
               "  Transform { translation 0 nan 0 } ] }\n",
               "bad.wrl:6:29: expected a finite number");
  check_error ("DEF R Joint { jointType \"free\" children [\n"
               "  Transform { rotation 0 0 1 x children [ ] } ] }\n",
               "bad.wrl:6:30: expected a finite number");
  check_error ("DEF R Joint { jointType \"free\" children [\n"
               "  Shape { geometry Box { size [ 1 abc 1 ] } } ] }\n",
               "bad.wrl:6:35: expected a finite number");
}

/* Hexadecimal floats, which g_ascii_strtod reads but VRML has no syntax for, fail where
 * they stand, in a field of a PROTO, of a built-in node and in a PROTO's default; a
 * hexadecimal integer is VRML's only in an integer field (SFInt32). */
static void
test_hexadecimal (void)
{
  static const char body[] =
    "DEF R Joint { jointType \"rotate\" jointId 0x1F }\n";
  g_autofree char *text = g_strconcat (header, body, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = NULL;

  check_error ("DEF R Joint { jointType \"rotate\" translation 0 0 0x1p3 }\n",
               "bad.wrl:5:50: expected a finite number");
  check_error ("DEF R Joint { jointType \"rotate\" translation 0x1p3 0 0 }\n",
               "bad.wrl:5:46: expected a finite number");
  check_error ("DEF R Joint { jointType \"rotate\" ulimit [ 1 -0X1.8P1 ] llimit [ 0 ] }\n",
               "bad.wrl:5:45: expected a finite number");
  /* (an integer in hexadecimal is no float either) */
  check_error ("DEF R Joint { jointType \"rotate\" ulimit [ 0x10 ] llimit [ 0 ] }\n",
               "bad.wrl:5:43: expected a finite number");
  check_error ("DEF R Joint { jointType \"free\" children [\n"
               "  Transform { translation 0 0x1p-2 0 } ] }\n",
               "bad.wrl:6:29: expected a finite number");
  check_error ("PROTO Segment [ exposedField SFFloat mass 0x1p0 ] { Group { } }\n"
               "DEF R Joint { jointType \"free\" }\n",
               "bad.wrl:5:43: expected a finite number");
  check_error ("DEF R Joint { jointType \"rotate\" jointId 0x1p3 }\n",
               "bad.wrl:5:42: expected a finite number");

  skel = km_openhrp_load ("hex.wrl", text, strlen (text), &error);
  g_assert_no_error (error);
  g_assert_cmpint (test_util_joint (skel, "R")->joint_id, ==, 31);
}

/* jointId is an integer, -1 (the PROTO's usual default) for none: a fraction, or a number
 * beyond an int, fails at the value instead of leaving the joint without an id. */
static void
test_joint_id (void)
{
  static const char message[] =
    "expected jointId to be a non-negative integer up to 2147483647 (or -1 for none)";
  static const struct
  {
    const char *value;
    guint       column;
  } bad[] = {
    { "1.5", 42 }, { "1e30", 42 }, { "99999999999", 42 }, { "2147483648", 42 },
    { "-2", 42 }, { "[ 1 2 ]", 42 }, { "\"3\"", 42 },
  };
  static const struct
  {
    const char *value;
    int         id;
  } good[] = {
    { "0", 0 }, { "7", 7 }, { "2147483647", G_MAXINT }, { "-1", -1 }, { "4.0", 4 },
    { "", -1 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *body = g_strdup_printf ("DEF R Joint { jointType \"rotate\" jointId %s "
                                               "}\n", bad[i].value);
      g_autofree char *want = g_strdup_printf ("bad.wrl:5:%u: %s", bad[i].column, message);

      g_test_message ("jointId %s", bad[i].value);
      check_error (body, want);
    }
  for (guint i = 0; i < G_N_ELEMENTS (good); i++)
    {
      g_autofree char *text = g_strdup_printf ("%sDEF R Joint { jointType \"rotate\" %s%s }\n",
                                               header, *good[i].value ? "jointId " : "",
                                               good[i].value);
      g_autoptr(GError) error = NULL;
      g_autoptr(KmSkeleton) skel = km_openhrp_load ("id.wrl", text, strlen (text), &error);

      g_test_message ("jointId %s", good[i].value);
      g_assert_no_error (error);
      g_assert_cmpint (test_util_joint (skel, "R")->joint_id, ==, good[i].id);
    }
}

/* A word where the field's type (from the PROTO) wants a quoted string fails at that word:
 * it used to be taken for a node's type name, and failed at the next token (the next
 * line's), with “expected “{””. */
static void
test_unquoted_string (void)
{
  check_error ("DEF R Joint { jointType \"rotate\"\n  jointAxis Y\n  ulimit [ 1 ] }\n",
               "bad.wrl:6:13: expected jointAxis to be a string in double quotes");
  check_error ("DEF R Joint { jointType rotate\n  jointAxis \"Y\" }\n",
               "bad.wrl:5:25: expected jointType to be a string in double quotes");
  check_error ("DEF R Joint { jointType \"rotate\" jointAxis -Z }\n",
               "bad.wrl:5:44: expected jointAxis to be a string in double quotes");
  /* (an MFString's items, and a PROTO's default) */
  check_error ("PROTO Segment [ exposedField MFString names [ \"a\" b ] ] { Group { } }\n"
               "DEF R Joint { jointType \"free\" }\n",
               "bad.wrl:5:51: expected names to be a string in double quotes");
  /* The value left out, the next field's name where it should be. */
  check_error ("DEF R Joint { jointType \"rotate\" jointAxis\n  ulimit [ 1 ] }\n",
               "bad.wrl:6:3: expected jointAxis to be a string in double quotes");
}

/* The model's name is the Humanoid's, as Choreonoid's VRML loader names the body: its
 * name field, else its DEF name; without a Humanoid, the file's stem. Never the root
 * Joint's name. */
static void
test_model_name (void)
{
  static const char *const humanoid[] = {
    "PROTO Humanoid [ exposedField SFString name \"\" exposedField MFNode humanoidBody [ ] ]"
    " { Group { } }\nDEF H Humanoid { name \"robot\" humanoidBody [\n"
    "  DEF BASE Joint { jointType \"fixed\" } ] }\n",
    "PROTO Humanoid [ exposedField SFString name \"\" exposedField MFNode humanoidBody [ ] ]"
    " { Group { } }\nDEF H Humanoid { humanoidBody [\n"
    "  DEF BASE Joint { jointType \"fixed\" } ] }\n",
    "DEF BASE Joint { jointType \"fixed\" }\n",
  };
  static const char *const expected[] = { "robot", "H", "arm-only" };

  for (guint i = 0; i < G_N_ELEMENTS (humanoid); i++)
    {
      g_autofree char *text = g_strconcat (header, humanoid[i], NULL);
      g_autoptr(GError) error = NULL;
      g_autoptr(KmSkeleton) skel = km_openhrp_load ("dir/arm-only.wrl", text, strlen (text),
                                                    &error);

      g_assert_no_error (error);
      g_assert_cmpstr (km_skeleton_get_joint (skel, 0)->name, ==, "BASE");
      g_assert_cmpstr (km_skeleton_get_model_name (skel), ==, expected[i]);
    }
  {
    g_autoptr(KmSkeleton) arm = load_fixture ("arm.wrl", NULL);
    g_autoptr(KmSkeleton) small = load_fixture ("humanoid.wrl", NULL);

    g_assert_cmpstr (km_skeleton_get_model_name (arm), ==, "arm");
    g_assert_cmpstr (km_skeleton_get_model_name (small), ==, "small");
  }
}

/* A Transform that only rotates (PA10.wrl's rotation 1 0 0 1.5708) leaves a scale a few
 * ulps from 1 when its matrix is taken apart again; the writers wrote it as
 * "scale: [ 1, 0.9999999999999999, 0.9999999999999999 ]" (and URDF sizes scaled by it).
 * A scale that close to 1 is 1: none written, the sizes as given. */
static void
test_rotation_not_scaled (void)
{
  g_autofree char *text = g_strconcat (header,
                                       "DEF R Joint { jointType \"fixed\" children [\n"
                                       "  Transform { rotation 1 0 0 1.5708 children [\n"
                                       "    Shape { geometry Box { size 0.2 0.3 0.4 } } ] } ] }\n",
                                       NULL);
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = km_openhrp_load ("rot.wrl", text, strlen (text), &error);
  g_autofree char *body = NULL;
  g_autofree char *urdf = NULL;

  g_assert_no_error (error);
  body = km_body_to_string (skel, notes);
  if (strstr (body, "scale") != NULL || strstr (body, "0.9999") != NULL)
    g_error ("%s", body);
  g_assert_nonnull (strstr (body, "rotation"));
  urdf = km_urdf_to_string (skel, notes);
  if (strstr (urdf, "<box size=\"0.2 0.3 0.4\"/>") == NULL)
    g_error ("%s", urdf);
}

/* One of llimit and ulimit: the other side is open, as in Choreonoid's VRML loader (its
 * missing end is the largest float), and the given end holds. */
static void
test_one_sided_limit (void)
{
  g_autofree char *text = g_strconcat (header,
                                       "DEF R Joint { jointType \"fixed\" children [\n"
                                       "  DEF A Joint { jointType \"rotate\" ulimit [ 0.5 ] }\n"
                                       "  DEF B Joint { jointType \"slide\" llimit [ -0.1 ] } ] }\n",
                                       NULL);
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = NULL;
  const KmJoint *a, *b;

  test_util_push_warnings (warnings);
  skel = km_openhrp_load ("one.wrl", text, strlen (text), &error);
  test_util_pop_warnings (warnings);
  g_assert_no_error (error);
  g_assert_cmpuint (warnings->len, ==, 0);
  a = km_skeleton_get_joint (skel, km_skeleton_find_joint (skel, "A"));
  b = km_skeleton_get_joint (skel, km_skeleton_find_joint (skel, "B"));
  g_assert_true (a->limits[0].limited);
  g_assert_true (isinf (a->limits[0].min) && a->limits[0].min < 0);
  g_assert_cmpfloat (a->limits[0].max, ==, 0.5);
  g_assert_true (b->limits[0].limited);
  g_assert_cmpfloat (b->limits[0].min, ==, -0.1);
  g_assert_true (isinf (b->limits[0].max) && b->limits[0].max > 0);
}

/* Joints nested deeper than the parser's bound fail cleanly, with no crash. */
static void
test_deep (void)
{
  g_autoptr(GString) text = g_string_new (header);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = NULL;

  for (int i = 0; i < 500; i++)
    g_string_append_printf (text, "DEF J%d Joint { jointType \"rotate\" children [\n", i);
  skel = km_openhrp_load ("deep.wrl", text->str, text->len, &error);
  g_assert_null (skel);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT);

  /* Groups that USE the one below twice, 40 levels: 2^40 nodes in a Joint's children. */
  g_clear_error (&error);
  g_string_assign (text, header);
  g_string_append (text, "DEF G0 Group { children Shape { geometry Box { } } }\n");
  for (int i = 1; i <= 40; i++)
    g_string_append_printf (text, "DEF G%d Group { children [ USE G%d USE G%d ] }\n", i, i - 1,
                            i - 1);
  g_string_append (text, "DEF R Joint { jointType \"free\" children [ USE G40 ] }\n");
  skel = km_openhrp_load ("laughs.wrl", text->str, text->len, &error);
  g_assert_null (skel);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT);
}

/* Every prefix of the arm, and the arm with bytes changed: a skeleton or an error, never
 * both, never a crash (for the sanitizer builds). */
static void
test_damaged (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "openhrp", "arm.wrl",
                                                 NULL);
  static const char replacements[] = "{}[]\"#0-.eXUSEDEF \n";
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  gsize length;
  g_autofree char *data = test_util_read_file (path, &length);
  GRand *rand = g_rand_new_with_seed (7);

  test_util_push_warnings (warnings);
  for (gsize n = 0; n < length; n += 4)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(KmSkeleton) skel = km_openhrp_load ("cut.wrl", data, n, &error);

      g_assert_true ((skel == NULL) != (error == NULL));
    }
  for (guint i = 0; i < 800; i++)
    {
      g_autofree char *copy = g_memdup2 (data, length);
      g_autoptr(GError) error = NULL;
      g_autoptr(KmSkeleton) skel = NULL;

      for (int k = 0; k < 3; k++)
        copy[g_rand_int_range (rand, 0, (gint32) length)] =
          replacements[g_rand_int_range (rand, 0, sizeof replacements - 1)];
      skel = km_openhrp_load ("changed.wrl", copy, length, &error);
      g_assert_true ((skel == NULL) != (error == NULL));
    }
  test_util_pop_warnings (warnings);
  g_rand_free (rand);
}

/* A UTF-8 byte order mark (Windows Notepad saves one) is skipped, as every other reader
 * skips it: it was read as a node's type, and the file failed at the first token after
 * the header comment, 4:1 “expected “{””. Columns of the first line count from after it. */
static void
test_byte_order_mark (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "openhrp",
                                                 "humanoid.wrl", NULL);
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = NULL;
  gsize length;
  g_autofree char *data = test_util_read_file (path, &length);
  g_autofree char *marked = g_strconcat ("\xef\xbb\xbf", data, NULL);
  static const struct
  {
    const char *text;
    const char *error;
  } first_line[] = {
    { "\xef\xbb\xbfTransform { }\n",
      "bom.wrl:1:1: expected a Humanoid node (or a Joint) of the OpenHRP model format" },
    { "\xef\xbb\xbf" "DEF R Joint { }\n",
      "bom.wrl:1:7: expected a declaration “PROTO Joint [ … ] { … }” earlier in the file" },
    { "\xef\xbb\xbf  Group { children [ Transform ] }\n", "bom.wrl:1:32: expected “{”" },
  };

  g_assert_true (km_format_detect (marked, length + 3) == &km_format_openhrp);
  test_util_push_warnings (warnings);
  skel = km_openhrp_load (path, marked, length + 3, &error);
  test_util_pop_warnings (warnings);
  g_assert_no_error (error);
  g_assert_cmpuint (km_skeleton_get_n_joints (skel), ==, 5);
  g_assert_true (km_skeleton_has_free_root (skel));
  g_assert_cmpint (test_util_joint (skel, "HEAD")->parent, ==,
                   km_skeleton_find_joint (skel, "CHEST"));
  /* Located as without the mark. */
  g_assert_cmpuint (warnings->len, ==, 1);
  g_assert_true (g_str_has_suffix (g_ptr_array_index (warnings, 0),
                                   "humanoid.wrl:154:16: Marker nodes in a Joint are not read; "
                                   "skipped"));

  for (guint i = 0; i < G_N_ELEMENTS (first_line); i++)
    {
      g_autoptr(GError) line_error = NULL;
      g_autoptr(KmSkeleton) none = km_openhrp_load ("bom.wrl", first_line[i].text,
                                                    strlen (first_line[i].text), &line_error);

      g_assert_null (none);
      g_assert_error (line_error, KM_PARSE_ERROR, line_error->code);
      g_assert_cmpstr (line_error->message, ==, first_line[i].error);
    }
}

/* @text (ASCII) in UTF-16 @encoding after its byte order mark, @length set. */
static char *
to_utf16 (const char *text,
          const char *encoding,
          gsize      *length)
{
  gsize written = 0;
  g_autofree char *converted = g_convert (text, -1, encoding, "UTF-8", NULL, &written, NULL);
  char *out = g_malloc (written + 2);

  g_assert_nonnull (converted);
  memcpy (out, g_str_equal (encoding, "UTF-16LE") ? "\xff\xfe" : "\xfe\xff", 2);
  memcpy (out + 2, converted, written);
  *length = written + 2;
  return out;
}

/* UTF-16 models (with their byte order mark, LE or BE, as some Windows exporters write)
 * were not read at all: detected and read as the same model as in UTF-8, their messages
 * at the same line:column. One that does not convert fails where it goes wrong. */
static void
test_utf16 (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "openhrp",
                                                 "humanoid.wrl", NULL);
  gsize length;
  g_autofree char *data = test_util_read_file (path, &length);
  g_autoptr(GPtrArray) plain_warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(KmSkeleton) plain = load_fixture ("humanoid.wrl", plain_warnings);
  static const char * const encodings[] = { "UTF-16LE", "UTF-16BE" };

  for (guint e = 0; e < G_N_ELEMENTS (encodings); e++)
    {
      g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
      g_autoptr(GError) error = NULL;
      g_autoptr(KmSkeleton) skel = NULL;
      gsize n;
      g_autofree char *text = to_utf16 (data, encodings[e], &n);
      g_autofree char *expected = NULL;
      const char *line5;
      gsize unit;

      g_test_message ("%s", encodings[e]);
      g_assert_true (km_format_detect (text, n) == &km_format_openhrp);
      test_util_push_warnings (warnings);
      skel = km_openhrp_load (path, text, n, &error);
      test_util_pop_warnings (warnings);
      g_assert_no_error (error);
      g_assert_true (km_skeleton_equal (skel, plain, 0));
      g_assert_cmpuint (warnings->len, ==, plain_warnings->len);
      for (guint i = 0; i < warnings->len; i++)
        g_assert_cmpstr (g_ptr_array_index (warnings, i), ==,
                         g_ptr_array_index (plain_warnings, i));
      g_clear_pointer (&skel, km_skeleton_unref);

      /* A lone high surrogate at line 5's third character (the text is ASCII: a byte of
       * it is a code unit). */
      line5 = data;
      for (int i = 0; i < 4; i++)
        line5 = strchr (line5, '\n') + 1;
      unit = 1 + (gsize) (line5 - data) + 2;
      text[2 * unit + (e == 0)] = (char) 0xd8;
      text[2 * unit + (e != 0)] = 0;
      expected = g_strdup_printf ("%s:5:3: expected %s text after the byte order mark: ",
                                  path, encodings[e]);
      skel = km_openhrp_load (path, text, n, &error);
      g_assert_null (skel);
      g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_SYNTAX);
      if (!g_str_has_prefix (error->message, expected))
        g_error ("expected “%s…”, got “%s”", expected, error->message);
    }
}

/* Old Mac files end lines with a lone CR, a line end in VRML97 as LF is: the
 * "#VRML V2.0 utf8" header comment swallowed a whole CR-only file, which failed at 1:1
 * "expected a Humanoid node". Converted to CR (or CRLF) line ends, a model loads as with
 * LF, and its messages are located at the same line:column. */
static char *
with_line_ends (const char *data,
                const char *line_end)
{
  g_auto(GStrv) lines = g_strsplit (data, "\n", -1);

  return g_strjoinv (line_end, lines);
}

static void
test_cr_line_ends (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "openhrp",
                                                 "humanoid.wrl", NULL);
  gsize length;
  g_autofree char *data = test_util_read_file (path, &length);
  static const char *const line_ends[] = { "\r", "\r\n" };
  g_autofree char *lf_message = NULL;

  g_assert_null (strchr (data, '\r'));

  /* The first jointType "rotate" (line 157, LLEG) made one no model reads. */
  {
    g_autoptr(GString) bad = g_string_new (data);
    g_autoptr(GError) error = NULL;
    g_autoptr(KmSkeleton) skel = NULL;

    g_assert_cmpint (g_string_replace (bad, "\"rotate\"", "\"rotor\"", 1), ==, 1);
    skel = km_openhrp_load ("cr.wrl", bad->str, bad->len, &error);
    g_assert_null (skel);
    g_assert_error (error, KM_PARSE_ERROR, error->code);
    g_assert_true (g_str_has_prefix (error->message, "cr.wrl:157:21: "));
    lf_message = g_strdup (error->message);
  }

  for (guint i = 0; i < G_N_ELEMENTS (line_ends); i++)
    {
      g_autofree char *text = with_line_ends (data, line_ends[i]);
      g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
      g_autoptr(GError) error = NULL;
      g_autoptr(KmSkeleton) skel = NULL;
      g_autoptr(GString) bad = g_string_new (text);
      g_autoptr(KmSkeleton) none = NULL;

      g_test_message ("line ends %s", i == 0 ? "CR" : "CRLF");
      test_util_push_warnings (warnings);
      skel = km_openhrp_load (path, text, strlen (text), &error);
      test_util_pop_warnings (warnings);
      g_assert_no_error (error);
      g_assert_cmpuint (km_skeleton_get_n_joints (skel), ==, 5);
      g_assert_true (km_skeleton_has_free_root (skel));
      g_assert_cmpint (test_util_joint (skel, "HEAD")->parent, ==,
                       km_skeleton_find_joint (skel, "CHEST"));
      g_assert_cmpuint (warnings->len, ==, 1);
      g_assert_true (g_str_has_suffix (g_ptr_array_index (warnings, 0),
                                       "humanoid.wrl:154:16: Marker nodes in a Joint are not "
                                       "read; skipped"));

      g_assert_cmpint (g_string_replace (bad, "\"rotate\"", "\"rotor\"", 1), ==, 1);
      none = km_openhrp_load ("cr.wrl", bad->str, bad->len, &error);
      g_assert_null (none);
      g_assert_error (error, KM_PARSE_ERROR, error->code);
      g_assert_cmpstr (error->message, ==, lf_message);
    }
}

static void
test_detect (void)
{
  const char *files[][2] = {
    { "openhrp", "arm.wrl" }, { "openhrp", "humanoid.wrl" },
    { "openhrp", "leg.wrl" }, { "meshes", "scene.wrl" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", files[i][0],
                                                     files[i][1], NULL);
      gsize length;
      g_autofree char *data = test_util_read_file (path, &length);

      if (i < 2)
        g_assert_true (km_format_detect (data, length) == &km_format_openhrp);
      else
        g_assert_null (km_format_detect (data, length));
    }
  g_assert_true (km_format_lookup ("OpenHRP-VRML-MODEL") == &km_format_openhrp);
  g_assert_cmpint (km_openhrp_sniff ("#VRML V2.0 utf8\nShape { }", 25), ==, 0);
  g_assert_cmpint (km_openhrp_sniff ("PROTO Joint [ ]", 15), ==, 0);

  g_assert_null (km_openhrp_body_item_format ("CHOREONOID-BODY", "/a/HRP4C.WRL"));
  g_assert_cmpstr (km_openhrp_body_item_format ("CHOREONOID-BODY", "a.body"), ==,
                   "CHOREONOID-BODY");
  g_assert_cmpstr (km_openhrp_body_item_format ("URDF", "a.wrl"), ==, "URDF");
  g_assert_null (km_openhrp_body_item_format (NULL, "a.wrl"));
}

static void
test_load_file (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "openhrp", "arm.wrl",
                                                 NULL);
  g_autoptr(GError) error = NULL;
  const KmFormat *format = NULL;
  g_autoptr(GString) out = g_string_new (NULL);
  KmSkeleton *skel = km_format_load_file (path, NULL, &format, &error);

  g_assert_no_error (error);
  g_assert_true (format == &km_format_openhrp);
  format->describe (skel, out);
  g_assert_nonnull (strstr (out->str, "joint=J2 type=revolute parent=J1 dof=1 axis=0,1,0 "
                                      "limits=-0.5:2\n"));
  g_assert_nonnull (strstr (out->str, "joints=5 dof=4"));
  format->free_result (skel);
}

static KmBodyItem *
find_body (KmItem     *item,
           const char *name)
{
  if (KM_IS_BODY_ITEM (item) && g_strcmp0 (km_item_get_name (item), name) == 0)
    return KM_BODY_ITEM (item);
  for (guint i = 0; i < km_item_get_n_children (item); i++)
    {
      KmBodyItem *found = find_body (km_item_get_child (item, i), name);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static void
test_project (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "openhrp",
                                                 "humanoid.cnoid", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmProject) project = km_cnoid_load (path, &error);
  GPtrArray *messages;
  KmBodyItem *small, *arm;

  g_assert_no_error (error);
  g_assert_nonnull (project);
  messages = km_project_get_messages (project);
  for (guint i = 0; i < messages->len; i++)
    g_test_message ("message: %s", (char *) g_ptr_array_index (messages, i));
  small = find_body (km_project_get_root_item (project), "small");
  arm = find_body (km_project_get_root_item (project), "arm");
  g_assert_nonnull (small);
  g_assert_nonnull (arm);
  /* "CHOREONOID-BODY" for a .wrl file, as Choreonoid writes it. */
  g_assert_nonnull (km_body_item_get_skeleton (small));
  g_assert_true (km_skeleton_has_free_root (km_body_item_get_skeleton (small)));
  g_assert_cmpint (km_skeleton_find_joint (km_body_item_get_skeleton (small), "HEAD"), >=, 0);
  /* Choreonoid 1.x's "OpenHRP-VRML-MODEL". */
  g_assert_nonnull (km_body_item_get_skeleton (arm));
  g_assert_cmpuint (km_skeleton_get_n_dof (km_body_item_get_skeleton (arm)), ==, 4);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/kinema/OpenHrp/arm", test_arm);
  g_test_add_func ("/kinema/OpenHrp/arm-forward-kinematics", test_arm_forward_kinematics);
  g_test_add_func ("/kinema/OpenHrp/humanoid", test_humanoid);
  g_test_add_func ("/kinema/OpenHrp/errors", test_errors);
  g_test_add_func ("/kinema/OpenHrp/not-a-number", test_not_a_number);
  g_test_add_func ("/kinema/OpenHrp/hexadecimal", test_hexadecimal);
  g_test_add_func ("/kinema/OpenHrp/joint-id", test_joint_id);
  g_test_add_func ("/kinema/OpenHrp/unquoted-string", test_unquoted_string);
  g_test_add_func ("/kinema/OpenHrp/one-sided-limit", test_one_sided_limit);
  g_test_add_func ("/kinema/OpenHrp/model-name", test_model_name);
  g_test_add_func ("/kinema/OpenHrp/rotation-not-scaled", test_rotation_not_scaled);
  g_test_add_func ("/kinema/OpenHrp/deep", test_deep);
  g_test_add_func ("/kinema/OpenHrp/damaged", test_damaged);
  g_test_add_func ("/kinema/OpenHrp/byte-order-mark", test_byte_order_mark);
  g_test_add_func ("/kinema/OpenHrp/utf16", test_utf16);
  g_test_add_func ("/kinema/OpenHrp/cr-line-ends", test_cr_line_ends);
  g_test_add_func ("/kinema/OpenHrp/detect", test_detect);
  g_test_add_func ("/kinema/OpenHrp/load-file", test_load_file);
  g_test_add_func ("/kinema/OpenHrp/project", test_project);

  return g_test_run ();
}
