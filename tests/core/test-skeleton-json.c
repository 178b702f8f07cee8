/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib.h>
#include <glib/gstdio.h>

#include "km-defaults.h"
#include "km-error.h"
#include "km-skeleton-edit.h"
#include "km-skeleton-json.h"

#include "test-util.h"
#include "km-test-tmp.h"

static KmSkeleton *
load_fixture (const char  *name,
              GError     **error)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", name, NULL);
  g_autofree char *text = NULL;
  gsize length;

  g_assert_true (g_file_get_contents (path, &text, &length, NULL));
  return km_skeleton_json_load (name, text, length, error);
}

static void
test_skeleton_json_spec_example (void)
{
  g_autoptr(GBytes) bytes = km_defaults_get_skeleton_json ();
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = NULL;
  g_autoptr(GString) info = g_string_new (NULL);
  const KmJoint *shoulder, *elbow, *piston;
  gsize length;
  const char *data = g_bytes_get_data (bytes, &length);

  skel = km_skeleton_json_load ("skeleton.json", data, length, &error);
  g_assert_no_error (error);
  g_assert_nonnull (skel);
  g_assert_cmpuint (km_skeleton_get_n_joints (skel), ==, 5);
  g_assert_cmpuint (km_skeleton_get_n_dof (skel), ==, 5);
  g_assert_cmpstr (km_skeleton_get_root_name (skel), ==, "Root");
  g_assert_cmpstr (km_skeleton_get_joint (skel, 4)->name, ==, "EndEffector");

  shoulder = km_skeleton_get_joint (skel, 1);
  g_assert_cmpstr (shoulder->name, ==, "Shoulder");
  g_assert_cmpint (shoulder->type, ==, KM_JOINT_SPHERICAL);
  g_assert_cmpfloat (shoulder->offset.y, ==, 1.5);
  g_assert_true (shoulder->limits[0].limited);
  g_assert_cmpfloat (shoulder->limits[0].min, ==, -3.14);
  g_assert_false (shoulder->limits[1].limited);
  g_assert_cmpfloat (shoulder->limits[2].max, ==, 0.5);
  g_assert_false (shoulder->has_rotation);

  elbow = km_skeleton_get_joint (skel, 2);
  g_assert_cmpint (elbow->type, ==, KM_JOINT_REVOLUTE);
  g_assert_cmpint (elbow->parent, ==, 1);
  g_assert_cmpfloat (elbow->axis.x, ==, 1.0);
  g_assert_cmpfloat (elbow->limits[0].max, ==, 2.5);
  piston = km_skeleton_get_joint (skel, 3);
  g_assert_cmpint (piston->type, ==, KM_JOINT_PRISMATIC);
  g_assert_cmpfloat (piston->offset.z, ==, 1.0);

  /* Same file from tests/data's copy of data/. */
  g_assert_true (km_format_skeleton_json.sniff (data, length) > 50);
  km_skeleton_json_describe (skel, info);
  g_assert_cmpstr (info->str, ==,
                   "joint=Root type=fixed parent=- dof=0 axis=- limits=-\n"
                   "joint=Shoulder type=spherical parent=Root dof=3 axis=- "
                   "limits=-3.14:3.14,-,-0.5:0.5\n"
                   "joint=Elbow type=revolute parent=Shoulder dof=1 axis=1,0,0 limits=0:2.5\n"
                   "joint=Piston type=prismatic parent=Elbow dof=1 axis=0,0,1 limits=0:0.5\n"
                   "joint=EndEffector type=fixed parent=Piston dof=0 axis=- limits=-\n"
                   "joints=5 dof=5\n");
}

static void
test_skeleton_json_reversed (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = load_fixture ("skeleton-reversed.json", &error);
  const char *order[] = { "Root", "Shoulder", "Elbow", "Piston", "EndEffector" };

  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (order); i++)
    {
      const KmJoint *j = km_skeleton_get_joint (skel, i);

      g_assert_cmpstr (j->name, ==, order[i]);
      g_assert_cmpint (j->parent, ==, (int) i - 1);
      g_assert_cmpuint (j->file_index, ==, 4 - i);
    }
}

static void
test_skeleton_json_extras (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(KmSkeleton) skel = NULL;
  const char * const *handlers;
  const KmJoint *shoulder, *elbow, *hand;

  test_util_push_warnings (warnings);
  skel = load_fixture ("skeleton-extras.json", &error);
  test_util_pop_warnings (warnings);
  g_assert_no_error (error);

  /* Unknown keys: a warning each, at the key, the file still loads. */
  g_assert_cmpuint (warnings->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (warnings, 0), ==,
                   "skeleton-extras.json:4:3: unknown key “comment” ignored");
  g_assert_cmpstr (g_ptr_array_index (warnings, 1), ==,
                   "skeleton-extras.json:10:49: unknown key “colour” ignored");

  /* Unicode names; the root omits "parent". */
  g_assert_cmpuint (km_skeleton_get_n_joints (skel), ==, 4);
  g_assert_cmpstr (km_skeleton_get_root_name (skel), ==, "ルート");
  g_assert_cmpint (km_skeleton_find_joint (skel, "肘"), ==, 2);

  handlers = km_skeleton_get_body_handlers (skel);
  g_assert_cmpstr (handlers[0], ==, "ArmHandler");
  g_assert_cmpstr (handlers[1], ==, "GripHandler");
  g_assert_null (handlers[2]);

  shoulder = km_skeleton_get_joint (skel, 1);
  g_assert_true (shoulder->has_rotation);
  g_assert_cmpfloat_with_epsilon (shoulder->rotation.w, sqrt (0.5), 1e-12);
  g_assert_cmpfloat_with_epsilon (shoulder->rotation.z, sqrt (0.5), 1e-12);
  g_assert_false (shoulder->limits[0].limited);

  /* The axis is normalised on load. */
  elbow = km_skeleton_get_joint (skel, 2);
  g_assert_cmpfloat (elbow->axis.y, ==, 1.0);
  g_assert_cmpfloat (elbow->limits[0].min, ==, -1.5);

  hand = km_skeleton_get_joint (skel, 3);
  g_assert_true (hand->has_rotation);
  g_assert_cmpfloat (hand->rotation.w, ==, 1.0);

  /* A single handler name as a string. */
  {
    const char *text = "{\"root_name\": \"R\", \"body_handlers\": \"OneHandler\", \"joints\": "
                       "[{\"name\": \"R\", \"type\": \"fixed\", \"offset\": [0, 0, 0]}]}";
    g_autoptr(KmSkeleton) one = km_skeleton_json_load ("t.json", text, strlen (text), &error);

    g_assert_no_error (error);
    g_assert_cmpstr (km_skeleton_get_body_handlers (one)[0], ==, "OneHandler");
    g_assert_null (km_skeleton_get_body_handlers (one)[1]);
  }
}

typedef struct
{
  const char *joints;   /* joints after the root joint R */
  const char *marker;   /* the offending value: the error's column is where it starts */
  const char *message;  /* start of the message after "t.json:1:COL: " */
} InvalidCase;

#define ROOT_JOINT "{\"name\": \"R\", \"type\": \"fixed\", \"offset\": [0, 0, 0], \"parent\": null}"

static const InvalidCase invalid_joint_cases[] = {
  { ", {\"type\": \"fixed\", \"offset\": [0, 0, 0], \"parent\": \"R\"}",
    "{\"type\"", "expected the required key “name”" },
  { ", {\"name\": 7, \"type\": \"fixed\", \"offset\": [0, 0, 0], \"parent\": \"R\"}",
    "7", "expected a string for “name”, found a number" },
  { ", {\"name\": \"\", \"type\": \"fixed\", \"offset\": [0, 0, 0], \"parent\": \"R\"}",
    "\"\"", "a joint name must be" },
  { ", {\"name\": \"A\", \"offset\": [0, 0, 0], \"parent\": \"R\"}",
    "{\"name\": \"A\"", "expected the required key “type”" },
  { ", {\"name\": \"A\", \"type\": \"hinge\", \"offset\": [0, 0, 0], \"parent\": \"R\"}",
    "\"hinge\"", "expected “fixed”, “revolute”, “prismatic” or “spherical”" },
  { ", {\"name\": \"A\", \"type\": \"fixed\", \"parent\": \"R\"}",
    "{\"name\": \"A\"", "expected the required key “offset”" },
  { ", {\"name\": \"A\", \"type\": \"fixed\", \"offset\": [0, 0], \"parent\": \"R\"}",
    "[0, 0]", "expected an array of 3 numbers for “offset”" },
  { ", {\"name\": \"A\", \"type\": \"fixed\", \"offset\": [0, true, 0], \"parent\": \"R\"}",
    "true", "expected a number, found a boolean" },
  { ", {\"name\": \"A\", \"type\": \"fixed\", \"offset\": \"up\", \"parent\": \"R\"}",
    "\"up\"", "expected an array of 3 numbers for “offset”" },
  { ", {\"name\": \"A\", \"type\": \"fixed\", \"offset\": [0, 0, 0]}",
    "{\"name\": \"A\"", "expected the required key “parent”" },
  { ", {\"name\": \"A\", \"type\": \"fixed\", \"offset\": [0, 0, 0], \"parent\": 3}",
    "3}", "expected a joint name or null for “parent”, found a number" },
  { ", {\"name\": \"A\", \"type\": \"fixed\", \"offset\": [0, 0, 0], \"parent\": \"Nope\"}",
    "\"Nope\"", "unknown parent “Nope”" },
  { ", {\"name\": \"A\", \"type\": \"fixed\", \"offset\": [0, 0, 0], \"parent\": \"A\"}",
    "\"A\"}", "joint “A” is its own parent" },
  { ", {\"name\": \"A\", \"type\": \"fixed\", \"offset\": [0, 0, 0], \"parent\": \"B\"}"
    ", {\"name\": \"B\", \"type\": \"fixed\", \"offset\": [0, 0, 0], \"parent\": \"A\"}",
    "\"B\"}", "joint “A” is part of a cycle" },
  { ", {\"name\": \"A\", \"type\": \"fixed\", \"offset\": [0, 0, 0], \"parent\": null}",
    "null}", "joint “A” has no parent, but “R” is the root" },
  { ", {\"name\": \"R\", \"type\": \"fixed\", \"offset\": [0, 0, 0], \"parent\": \"R\"}",
    "\"R\", \"type\": \"fixed\", \"offset\": [0, 0, 0], \"parent\": \"R\"",
    "duplicate joint name “R”" },
  { ", {\"name\": \"A\", \"type\": \"revolute\", \"offset\": [0, 0, 0], \"parent\": \"R\"}",
    "{\"name\": \"A\"", "expected the required key “axis”" },
  { ", {\"name\": \"A\", \"type\": \"prismatic\", \"offset\": [0, 0, 0], \"parent\": \"R\", "
    "\"axis\": [0, 0, 0]}",
    "[0, 0, 0]}", "the axis of joint “A” must not be zero" },
  { ", {\"name\": \"A\", \"type\": \"revolute\", \"offset\": [0, 0, 0], \"parent\": \"R\", "
    "\"axis\": [1, 0]}",
    "[1, 0]", "expected an array of 3 numbers for “axis”" },
  { ", {\"name\": \"A\", \"type\": \"revolute\", \"offset\": [0, 0, 0], \"parent\": \"R\", "
    "\"axis\": [1, 0, 0], \"limits\": [1]}",
    "[1]", "expected [min, max] or null for “limits”" },
  { ", {\"name\": \"A\", \"type\": \"revolute\", \"offset\": [0, 0, 0], \"parent\": \"R\", "
    "\"axis\": [1, 0, 0], \"limits\": [0, \"x\"]}",
    "\"x\"", "expected a number, found a string" },
  { ", {\"name\": \"A\", \"type\": \"revolute\", \"offset\": [0, 0, 0], \"parent\": \"R\", "
    "\"axis\": [1, 0, 0], \"limits\": [2, 1]}",
    "[2, 1]", "limits must be [min, max] with min ≤ max" },
  { ", {\"name\": \"A\", \"type\": \"spherical\", \"offset\": [0, 0, 0], \"parent\": \"R\", "
    "\"limits\": [[0, 1], null]}",
    "[[0, 1], null]", "expected null or an array of three [min, max] or null" },
  { ", {\"name\": \"A\", \"type\": \"spherical\", \"offset\": [0, 0, 0], \"parent\": \"R\", "
    "\"limits\": [0, 1, 2]}",
    "0, 1, 2]", "expected [min, max] or null" },
  { ", {\"name\": \"A\", \"type\": \"spherical\", \"offset\": [0, 0, 0], \"parent\": \"R\", "
    "\"limits\": [null, [3, -3], null]}",
    "[3, -3]", "limits must be [min, max] with min ≤ max" },
  { ", {\"name\": \"A\", \"type\": \"fixed\", \"offset\": [0, 0, 0], \"parent\": \"R\", "
    "\"quaternion\": [0, 0, 0, 0]}",
    "[0, 0, 0, 0]", "expected a non-zero quaternion [w, x, y, z] for “quaternion”" },
  { ", {\"name\": \"A\", \"type\": \"fixed\", \"offset\": [0, 0, 0], \"parent\": \"R\", "
    "\"quaternion\": [1, 0, 0]}",
    "[1, 0, 0]}", "expected an array of 4 numbers for “quaternion”" },
  { ", 5", "5]", "expected an object, found a number" },
  { ", {\"name\": \"A\", \"type\": \"fixed\", \"offset\": [0, 0, 1e999], \"parent\": \"R\"}",
    "1e999", "expected a finite number" },
  { ", {\"name\": \"A\", \"type\": \"fixed\", \"offset\": [0, 0, NaN], \"parent\": \"R\"}",
    "NaN", "expected a value" },
  { ", {\"name\": \"A\", \"type\": \"fixed\", \"offset\": [0, 0, 0], \"parent\": \"R\",}",
    "}]}", "expected a key in double quotes (JSON allows no trailing comma)" },
  { ", {\"name\": \"A\", \"name\": \"B\", \"type\": \"fixed\", \"offset\": [0, 0, 0], "
    "\"parent\": \"R\"}",
    "\"name\": \"B\"", "expected a unique key, but “name” appears twice" },
};

static void
assert_rejected_at (const char *text,
                    guint       line,
                    guint       column,
                    const char *message)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = km_skeleton_json_load ("t.json", text, strlen (text), &error);
  g_autofree char *expected = g_strdup_printf ("t.json:%u:%u: %s", line, column, message);

  g_assert_null (skel);
  g_assert_nonnull (error);
  g_assert_true (error->domain == KM_PARSE_ERROR);
  if (!g_str_has_prefix (error->message, expected))
    g_error ("for %s\n  got      “%s”\n  expected “%s…”", text, error->message, expected);
}

static void
test_skeleton_json_invalid_joints (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (invalid_joint_cases); i++)
    {
      const InvalidCase *c = &invalid_joint_cases[i];
      g_autofree char *text = g_strconcat ("{\"root_name\": \"R\", \"joints\": [" ROOT_JOINT,
                                           c->joints, "]}", NULL);
      const char *at = strstr (text + strlen ("{\"root_name\": \"R\", \"joints\": ["
                                              ROOT_JOINT), c->marker);

      g_assert_nonnull (at);
      assert_rejected_at (text, 1, (guint) (at - text) + 1, c->message);
    }
}

static void
test_skeleton_json_invalid_top (void)
{
  assert_rejected_at ("[]", 1, 1, "expected an object, found an array");
  assert_rejected_at ("{\"joints\": [" ROOT_JOINT "]}", 1, 1,
                      "expected the required key “root_name”");
  assert_rejected_at ("{\"root_name\": 5, \"joints\": [" ROOT_JOINT "]}", 1, 15,
                      "expected a string for “root_name”, found a number");
  assert_rejected_at ("{\"root_name\": \"X\", \"joints\": [" ROOT_JOINT "]}", 1, 15,
                      "the root joint “X” is not among the joints");
  assert_rejected_at ("{\"root_name\": \"R\"}", 1, 1, "expected the required key “joints”");
  assert_rejected_at ("{\"root_name\": \"R\", \"joints\": []}", 1, 30,
                      "expected at least one joint in “joints”");
  assert_rejected_at ("{\"root_name\": \"R\", \"joints\": {}}", 1, 30,
                      "expected an array for “joints”, found an object");
  assert_rejected_at ("{\"root_name\": \"R\", \"body_handlers\": 5, \"joints\": [" ROOT_JOINT "]}",
                      1, 37, "expected a name or a list of names for “body_handlers”");
  assert_rejected_at ("{\"root_name\": \"R\", \"body_handlers\": [\"a\", 1], \"joints\": ["
                      ROOT_JOINT "]}", 1, 43, "expected a string, found a number");
  /* The root joint must not have a parent. */
  assert_rejected_at ("{\"root_name\": \"A\", \"joints\": [" ROOT_JOINT ", {\"name\": \"A\", "
                      "\"type\": \"fixed\", \"offset\": [0, 0, 0], \"parent\": \"R\"}]}",
                      1, 162, "the root joint “A” must not have a parent");
  /* Multi-byte characters before the error count one column each. */
  assert_rejected_at ("{\"root_name\": \"日本\", \"joints\": [{\"name\": \"日本\", \"type\": \"fixed\", "
                      "\"offset\": [0, 0, 0], \"parent\": null}, {\"name\": \"腕\", \"type\": "
                      "\"revolute\", \"offset\": [0, 0, 0], \"parent\": \"日本\", \"axis\": "
                      "[0, 0, 0]}]}", 1, 181, "the axis of joint “腕” must not be zero");
  assert_rejected_at ("", 1, 1, "empty file");
  assert_rejected_at (" \n \n", 1, 1, "empty file");
}

static void
test_skeleton_json_invalid_files (void)
{
  struct
  {
    const char *name;
    const char *message;
  } cases[] = {
    { "skeleton-bad-parent.json", "skeleton-bad-parent.json:21:17: unknown parent “Shoulderr”" },
    { "skeleton-bad-axis.json",
      "skeleton-bad-axis.json:30:15: the axis of joint “Piston” must not be zero" },
    { "skeleton-bad-limits.json",
      "skeleton-bad-limits.json:15:39: limits must be [min, max] with min ≤ max" },
    { "skeleton-bad-cycle.json",
      "skeleton-bad-cycle.json:37:17: joint “LoopA” is part of a cycle and cannot be reached "
      "from the root" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(KmSkeleton) skel = load_fixture (cases[i].name, &error);

      g_assert_null (skel);
      g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_INVALID);
      g_assert_cmpstr (error->message, ==, cases[i].message);
    }
}

static void
test_skeleton_json_depth_bomb (void)
{
  gsize n = 200000;
  g_autofree char *text = g_malloc (n + 20);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = NULL;

  strcpy (text, "{\"joints\": ");
  memset (text + strlen (text), '[', n);
  skel = km_skeleton_json_load ("t.json", text, n + strlen ("{\"joints\": "), &error);
  g_assert_null (skel);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT);
  g_assert_cmpstr (error->message, ==, "t.json:1:523: nesting deeper than 512 levels");
}

static void
assert_round_trip (KmSkeleton *skel)
{
  g_autofree char *text = km_skeleton_json_to_string (skel);
  g_autofree char *text2 = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) again = km_skeleton_json_load ("written.json", text, strlen (text),
                                                       &error);

  g_assert_no_error (error);
  /* km_skeleton_equal compares rotations by angle (acos), which cannot resolve below ~1e-8. */
  g_assert_true (km_skeleton_equal (skel, again, 1e-7));
  for (guint i = 0; i < km_skeleton_get_n_joints (skel); i++)
    {
      const KmJoint *a = km_skeleton_get_joint (skel, i);
      const KmJoint *b = km_skeleton_get_joint (again, i);

      g_assert_true (a->has_rotation == b->has_rotation);
      /* Numbers are written exactly; only re-normalisation may move the last bit. */
      g_assert_cmpmem (&a->offset, sizeof a->offset, &b->offset, sizeof b->offset);
      g_assert_cmpmem (a->limits, sizeof a->limits, b->limits, sizeof b->limits);
      g_assert_cmpfloat_with_epsilon (a->axis.x, b->axis.x, 1e-15);
      g_assert_cmpfloat_with_epsilon (a->axis.y, b->axis.y, 1e-15);
      g_assert_cmpfloat_with_epsilon (a->axis.z, b->axis.z, 1e-15);
      g_assert_cmpfloat_with_epsilon (a->rotation.w, b->rotation.w, 1e-15);
      g_assert_cmpfloat_with_epsilon (a->rotation.x, b->rotation.x, 1e-15);
      g_assert_cmpfloat_with_epsilon (a->rotation.y, b->rotation.y, 1e-15);
      g_assert_cmpfloat_with_epsilon (a->rotation.z, b->rotation.z, 1e-15);
    }
  /* Writing is deterministic: a second round gives the same text. */
  text2 = km_skeleton_json_to_string (again);
  g_assert_cmpstr (text, ==, text2);
}

static void
test_skeleton_json_round_trip (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) spec = load_fixture ("skeleton-reversed.json", &error);
  g_autoptr(KmSkeleton) extras = NULL;
  g_autoptr(KmSkeletonBuilder) builder = km_skeleton_builder_new ();
  g_autoptr(KmSkeleton) built = NULL;
  g_autofree char *text = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(KmSkeleton) saved = NULL;
  g_autofree char *saved_text = NULL;
  gsize saved_length;
  guint j;

  g_assert_no_error (error);
  assert_round_trip (spec);

  test_util_push_warnings (warnings);
  extras = load_fixture ("skeleton-extras.json", &error);
  test_util_pop_warnings (warnings);
  g_assert_no_error (error);
  assert_round_trip (extras);

  /* Awkward numbers, names needing escapes, a free root. */
  km_skeleton_builder_set_root_name (builder, "base \"quoted\"");
  j = km_skeleton_builder_add_joint (builder, "base \"quoted\"", KM_JOINT_FREE, NULL);
  km_skeleton_builder_set_offset (builder, j, km_vec3 (0.1, 1.0 / 3.0, -1e-300));
  j = km_skeleton_builder_add_joint (builder, "back\\slash\ttab", KM_JOINT_REVOLUTE,
                                     "base \"quoted\"");
  km_skeleton_builder_set_offset (builder, j, km_vec3 (M_PI, 2.0 / 3.0, 1e300));
  km_skeleton_builder_set_axis (builder, j, km_vec3 (1, 1, 1));
  km_skeleton_builder_set_limit (builder, j, 0, -M_PI / 7.0, 0.3);
  km_skeleton_builder_set_rotation (builder, j, km_quat_normalize ((KmQuat) { 0.3, 0.1, -0.7, 0.2 }));
  j = km_skeleton_builder_add_joint (builder, "s", KM_JOINT_SPHERICAL, "back\\slash\ttab");
  km_skeleton_builder_set_limit (builder, j, 1, -0.1, 0.1);
  km_skeleton_builder_add_body_handler (builder, "H");
  built = km_skeleton_builder_build (builder, NULL, &error);
  g_assert_no_error (error);
  assert_round_trip (built);

  text = km_skeleton_json_to_string (built);
  g_assert_nonnull (strstr (text, "\"type\": \"free\""));
  g_assert_nonnull (strstr (text, "\"limits\": [null, [-0.1, 0.1], null]"));
  g_assert_nonnull (strstr (text, "\"parent\": null"));
  g_assert_nonnull (strstr (text, "\"body_handlers\": [\"H\"]"));

  /* The spec example has no quaternion and unlimited joints write null. */
  g_clear_pointer (&text, g_free);
  text = km_skeleton_json_to_string (spec);
  g_assert_null (strstr (text, "quaternion"));
  g_assert_null (strstr (text, "body_handlers"));
  g_assert_nonnull (strstr (text, "\"limits\": [[-3.14, 3.14], null, [-0.5, 0.5]]"));

  dir = km_test_make_tmp_dir ("km-skeleton-json-XXXXXX");
  path = g_build_filename (dir, "saved-skeleton.json", NULL);
  g_assert_true (km_skeleton_json_save (extras, path, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &saved_text, &saved_length, NULL));
  saved = km_skeleton_json_load (path, saved_text, saved_length, &error);
  g_assert_no_error (error);
  g_assert_true (km_skeleton_equal (extras, saved, 1e-7));
}

/* Limits with an open end (limited on one side only) are written [null, max] or [min, null]
 * and read back exactly; [null, null] reads as no limit. */
static void
test_skeleton_json_one_sided (void)
{
  static const char text[] =
    "{\"root_name\": \"r\", \"joints\": ["
    "{\"name\": \"r\", \"type\": \"fixed\", \"offset\": [0, 0, 0], \"parent\": null},"
    "{\"name\": \"a\", \"type\": \"revolute\", \"offset\": [0, 0, 1], \"parent\": \"r\","
    " \"axis\": [0, 0, 1], \"limits\": [null, 0.5]},"
    "{\"name\": \"b\", \"type\": \"prismatic\", \"offset\": [0, 0, 1], \"parent\": \"a\","
    " \"axis\": [1, 0, 0], \"limits\": [-0.1, null]},"
    "{\"name\": \"c\", \"type\": \"revolute\", \"offset\": [0, 0, 1], \"parent\": \"b\","
    " \"axis\": [0, 1, 0], \"limits\": [null, null]},"
    "{\"name\": \"s\", \"type\": \"spherical\", \"offset\": [0, 0, 1], \"parent\": \"c\","
    " \"limits\": [[-1, null], null, [null, 2]]}]}";
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = km_skeleton_json_load ("t.json", text, strlen (text), &error);
  g_autoptr(GString) described = g_string_new (NULL);
  g_autofree char *written = NULL;
  const KmJoint *j;

  g_assert_no_error (error);
  j = km_skeleton_get_joint (skel, (guint) km_skeleton_find_joint (skel, "a"));
  g_assert_true (j->limits[0].limited);
  g_assert_cmpfloat (j->limits[0].min, ==, -INFINITY);
  g_assert_cmpfloat (j->limits[0].max, ==, 0.5);
  j = km_skeleton_get_joint (skel, (guint) km_skeleton_find_joint (skel, "b"));
  g_assert_cmpfloat (j->limits[0].min, ==, -0.1);
  g_assert_cmpfloat (j->limits[0].max, ==, INFINITY);
  j = km_skeleton_get_joint (skel, (guint) km_skeleton_find_joint (skel, "c"));
  g_assert_false (j->limits[0].limited);
  j = km_skeleton_get_joint (skel, (guint) km_skeleton_find_joint (skel, "s"));
  g_assert_cmpfloat (j->limits[0].max, ==, INFINITY);
  g_assert_false (j->limits[1].limited);
  g_assert_cmpfloat (j->limits[2].min, ==, -INFINITY);

  assert_round_trip (skel);
  written = km_skeleton_json_to_string (skel);
  g_assert_nonnull (strstr (written, "\"limits\": [null, 0.5]"));
  g_assert_nonnull (strstr (written, "\"limits\": [-0.1, null]"));
  g_assert_nonnull (strstr (written, "\"limits\": [[-1, null], null, [null, 2]]"));
  km_skeleton_json_describe (skel, described);
  g_assert_nonnull (strstr (described->str, "joint=a type=revolute parent=r dof=1 axis=0,0,1 "
                                            "limits=-inf:0.5"));
  g_assert_nonnull (strstr (described->str, "limits=-1:inf,-,-inf:2"));
}

/* A limited revolute joint with a velocity limit (as a URDF gives it) retyped spherical
 * keeps its limit on X and Y/Z unlimited; the file must keep all three, not drop them
 * because the joint also has a max_velocity. */
static void
test_skeleton_json_spherical_partly_limited (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeletonBuilder) builder = km_skeleton_builder_new ();
  g_autoptr(KmSkeleton) built = NULL;
  g_autoptr(KmSkeleton) retyped = NULL;
  g_autoptr(KmSkeleton) again = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  g_autofree char *text = NULL;
  gsize length;
  const KmJoint *a, *b;
  guint j;

  km_skeleton_builder_set_root_name (builder, "base");
  km_skeleton_builder_add_joint (builder, "base", KM_JOINT_FIXED, NULL);
  j = km_skeleton_builder_add_joint (builder, "j2", KM_JOINT_REVOLUTE, "base");
  km_skeleton_builder_set_offset (builder, j, km_vec3 (0, 0, 0.3));
  km_skeleton_builder_set_axis (builder, j, km_vec3 (0, 1, 0));
  km_skeleton_builder_set_limit (builder, j, 0, -1.5, 1.5);
  km_skeleton_builder_set_max_effort (builder, j, 20);
  km_skeleton_builder_set_max_velocity (builder, j, 2);
  built = km_skeleton_builder_build (builder, NULL, &error);
  g_assert_no_error (error);
  retyped = km_skeleton_edit_set_type (built, j, KM_JOINT_SPHERICAL, &error);
  g_assert_no_error (error);
  a = km_skeleton_get_joint (retyped, j);
  g_assert_true (a->limits[0].limited);
  g_assert_false (a->limits[1].limited);
  g_assert_false (a->limits[2].limited);

  dir = km_test_make_tmp_dir ("km-skeleton-json-XXXXXX");
  path = g_build_filename (dir, "sph.json", NULL);
  g_assert_true (km_skeleton_json_save (retyped, path, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &text, &length, NULL));
  g_assert_nonnull (strstr (text, "\"limits\": [[-1.5, 1.5], null, null]"));
  again = km_skeleton_json_load (path, text, length, &error);
  g_assert_no_error (error);
  b = km_skeleton_get_joint (again, (guint) km_skeleton_find_joint (again, "j2"));
  g_assert_cmpint (b->type, ==, KM_JOINT_SPHERICAL);
  g_assert_cmpmem (a->limits, sizeof a->limits, b->limits, sizeof b->limits);
  g_assert_cmpfloat (b->max_velocity, ==, 2);
  assert_round_trip (retyped);
}

/* Kinema's "mimic" extension: read, applied, described, written and read back. */
static void
test_skeleton_json_mimic (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = load_fixture ("skeleton-mimic.json", &error);
  g_autoptr(KmSkeleton) again = NULL;
  g_autoptr(GString) info = g_string_new (NULL);
  g_autofree char *text = NULL;
  const KmJoint *rack, *idler;
  double q[4] = { 0 };

  g_assert_no_error (error);
  g_assert_true (km_skeleton_has_mimic (skel));
  rack = km_skeleton_get_joint (skel, (guint) km_skeleton_find_joint (skel, "Rack"));
  idler = km_skeleton_get_joint (skel, (guint) km_skeleton_find_joint (skel, "Idler"));
  g_assert_cmpint (rack->mimic, ==, km_skeleton_find_joint (skel, "Pinion"));
  g_assert_cmpfloat (rack->mimic_ratio, ==, 0.02);
  g_assert_cmpfloat (rack->mimic_offset, ==, 0.01);
  /* ratio and offset default to 1 and 0; only the ratio is given here */
  g_assert_cmpint (idler->mimic, ==, km_skeleton_find_joint (skel, "Pinion"));
  g_assert_cmpfloat (idler->mimic_ratio, ==, -0.5);
  g_assert_cmpfloat (idler->mimic_offset, ==, 0.0);
  /* "mimic": null is an independent joint */
  g_assert_cmpint (km_skeleton_get_joint (skel, (guint) km_skeleton_find_joint (skel, "Free"))->mimic,
                   ==, -1);

  /* DOF order = topological order: Pinion, Free, Rack, Idler (preorder) — look them up. */
  q[km_skeleton_get_joint (skel, (guint) km_skeleton_find_joint (skel, "Pinion"))->dof_index] = 2.0;
  km_skeleton_apply_mimic (skel, q);
  g_assert_cmpfloat_with_epsilon (q[rack->dof_index], 0.05, 1e-15);
  g_assert_cmpfloat_with_epsilon (q[idler->dof_index], -1.0, 1e-15);

  km_skeleton_json_describe (skel, info);
  g_assert_nonnull (strstr (info->str, "joint=Rack type=prismatic parent=Base dof=1 axis=1,0,0 "
                                       "limits=-0.1:0.1 mimic=Pinion*0.02+0.01\n"));
  g_assert_nonnull (strstr (info->str, "joint=Idler type=revolute parent=Base dof=1 axis=0,1,0 "
                                       "limits=- mimic=Pinion*-0.5+0\n"));
  g_assert_nonnull (strstr (info->str, "joint=Free type=revolute parent=Pinion dof=1 axis=0,0,1 "
                                       "limits=-\n"));

  text = km_skeleton_json_to_string (skel);
  g_assert_nonnull (strstr (text, "\"mimic\": {\n"));
  g_assert_nonnull (strstr (text, "\"joint\": \"Pinion\",\n"));
  again = km_skeleton_json_load ("written.json", text, strlen (text), &error);
  g_assert_no_error (error);
  g_assert_true (km_skeleton_equal (skel, again, 0));
  for (guint i = 0; i < km_skeleton_get_n_joints (skel); i++)
    {
      const KmJoint *a = km_skeleton_get_joint (skel, i);
      const KmJoint *b = km_skeleton_get_joint (again, i);

      g_assert_cmpint (a->mimic, ==, b->mimic);
      g_assert_cmpfloat (a->mimic_ratio, ==, b->mimic_ratio);
      g_assert_cmpfloat (a->mimic_offset, ==, b->mimic_offset);
    }
  assert_round_trip (skel);
}

/* A bad "mimic" fails at the offending value, line and column. Line 4 holds B's mimic,
 * line 6 C's; every joint sits on a line of its own. */
static const struct
{
  const char *b_mimic;
  const char *c_mimic;
  guint       line;
  guint       column;
  const char *message;
} bad_mimic_cases[] = {
  { "\"A\"", "null", 4, 101,
    "expected null or an object {\"joint\": NAME, \"ratio\": R, \"offset\": O} for “mimic”, "
    "found a string" },
  { "{\"ratio\": 2}", "null", 4, 101, "expected the required key “joint”" },
  { "{\"joint\": 3}", "null", 4, 111, "expected a string" },
  { "{\"joint\": \"A\", \"ratio\": \"two\"}", "null", 4, 125, "expected a number" },
  { "{\"joint\": \"A\", \"offset\": [1]}", "null", 4, 126, "expected a number" },
  { "{\"joint\": \"Nope\"}", "null", 4, 111, "joint “B” follows an unknown joint “Nope”" },
  { "{\"joint\": \"B\"}", "null", 4, 111, "joint “B” cannot follow itself" },
  { "{\"joint\": \"F\"}", "null", 4, 111,
    "only revolute and prismatic joints can be linked (“B” follows “F”)" },
  { "{\"joint\": \"A\"}", "{\"joint\": \"B\"}", 6, 111,
    "joint “C” follows “B”, which follows another joint itself" },
};

static void
test_skeleton_json_bad_mimic (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (bad_mimic_cases); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "{\"root_name\": \"R\", \"joints\": [\n"
        "  {\"name\": \"R\", \"type\": \"fixed\", \"offset\": [0, 0, 0]},\n"
        "  {\"name\": \"A\", \"type\": \"revolute\", \"offset\": [0, 0, 0], \"parent\": \"R\", \"axis\": [0, 0, 1]},\n"
        "  {\"name\": \"B\", \"type\": \"revolute\", \"offset\": [0, 0, 0], \"parent\": \"A\", \"axis\": [0, 0, 1], \"mimic\": %s},\n"
        "  {\"name\": \"F\", \"type\": \"fixed\", \"offset\": [0, 0, 0], \"parent\": \"B\"},\n"
        "  {\"name\": \"C\", \"type\": \"revolute\", \"offset\": [0, 0, 0], \"parent\": \"F\", \"axis\": [0, 0, 1], \"mimic\": %s}\n"
        "]}\n", bad_mimic_cases[i].b_mimic, bad_mimic_cases[i].c_mimic);

      assert_rejected_at (text, bad_mimic_cases[i].line, bad_mimic_cases[i].column,
                          bad_mimic_cases[i].message);
    }
}

/* A linked joint whose limits its master's range cannot meet (the solver would have to put
 * it outside them) is refused at its "mimic" joint value; so is a zero ratio whose offset is
 * outside them. */
static void
test_skeleton_json_unreachable_mimic (void)
{
  static const struct
  {
    const char *b_limits;
    const char *b_mimic;
    guint       column;
    const char *message;
  } cases[] = {
    { "[5, 6]", "{\"joint\": \"a\", \"ratio\": 1, \"offset\": 0}", 129,
      "expected limits of “b” that it can reach following “a”: with ratio 1 and offset 0 it "
      "moves within [-1, 1], outside its limits [5, 6]" },
    { "[5, 6]", "{\"joint\": \"a\", \"ratio\": 0, \"offset\": 7}", 129,
      "expected limits of “b” that it can reach following “a”: with ratio 0 it stays at its "
      "offset 7, outside its limits [5, 6]" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "{\"root_name\": \"r\", \"joints\": [\n"
        "  {\"name\": \"r\", \"type\": \"fixed\", \"offset\": [0, 0, 0]},\n"
        "  {\"name\": \"a\", \"type\": \"revolute\", \"offset\": [0, 0, 0], \"parent\": \"r\", \"axis\": [0, 0, 1], \"limits\": [-1, 1]},\n"
        "  {\"name\": \"b\", \"type\": \"revolute\", \"offset\": [0, 0, 0], \"parent\": \"a\", \"axis\": [0, 0, 1], \"limits\": %s, \"mimic\": %s}\n"
        "]}\n", cases[i].b_limits, cases[i].b_mimic);

      assert_rejected_at (text, 4, cases[i].column, cases[i].message);
    }
}

/* convert's writer option: a free root is written fixed at its initial pose, with a note. */
static void
test_skeleton_json_fix_free_root (void)
{
  g_autoptr(KmSkeletonBuilder) builder = km_skeleton_builder_new ();
  g_autoptr(KmSkeleton) built = NULL;
  g_autoptr(KmSkeleton) again = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *plain = NULL;
  g_autofree char *fixed = NULL;
  const KmJoint *root;
  KmQuat rotation = km_quat_normalize ((KmQuat) { 0.9, 0.1, 0.2, -0.3 });
  guint j;

  j = km_skeleton_builder_add_joint (builder, "Waist", KM_JOINT_FREE, NULL);
  km_skeleton_builder_set_offset (builder, j, km_vec3 (0.1, -0.2, 0.7135));
  km_skeleton_builder_set_rotation (builder, j, rotation);
  j = km_skeleton_builder_add_joint (builder, "Hip", KM_JOINT_REVOLUTE, "Waist");
  km_skeleton_builder_set_axis (builder, j, km_vec3 (0, 1, 0));
  built = km_skeleton_builder_build (builder, NULL, &error);
  g_assert_no_error (error);

  plain = km_skeleton_json_to_string_full (built, KM_SKELETON_JSON_WRITE_DEFAULT, notes);
  g_assert_nonnull (strstr (plain, "\"type\": \"free\""));
  g_assert_cmpuint (notes->len, ==, 0);

  fixed = km_skeleton_json_to_string_full (built, KM_SKELETON_JSON_WRITE_FIX_FREE_ROOT, notes);
  g_assert_null (strstr (fixed, "\"type\": \"free\""));
  g_assert_cmpuint (notes->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (notes, 0), ==,
                   "the free root “Waist” is fixed at its initial pose (skeleton.json has no "
                   "floating base)");
  again = km_skeleton_json_load ("fixed.json", fixed, strlen (fixed), &error);
  g_assert_no_error (error);
  g_assert_false (km_skeleton_has_free_root (again));
  root = km_skeleton_get_joint (again, 0);
  g_assert_cmpint (root->type, ==, KM_JOINT_FIXED);
  g_assert_cmpfloat (root->offset.x, ==, 0.1);
  g_assert_cmpfloat (root->offset.y, ==, -0.2);
  g_assert_cmpfloat (root->offset.z, ==, 0.7135);
  g_assert_cmpfloat (km_quat_angle_between (root->rotation, rotation), <, 1e-7);
  g_assert_cmpuint (km_skeleton_get_n_dof (again), ==, 1);
}

static void
test_skeleton_json_describe_free_root (void)
{
  const char *text = "{\"root_name\": \"B\", \"joints\": [{\"name\": \"B\", \"type\": \"free\", "
                     "\"offset\": [0, 0, 0]}, {\"name\": \"J\", \"type\": \"prismatic\", "
                     "\"offset\": [0, 0, 0], \"parent\": \"B\", \"axis\": [0, 0, -2]}]}";
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = km_skeleton_json_load ("t.json", text, strlen (text), &error);
  g_autoptr(GString) info = g_string_new (NULL);

  g_assert_no_error (error);
  km_format_skeleton_json.describe (skel, info);
  g_assert_cmpstr (info->str, ==,
                   "joint=B type=free parent=- dof=0 axis=- limits=-\n"
                   "joint=J type=prismatic parent=B dof=1 axis=0,0,-1 limits=-\n"
                   "joints=2 dof=1 free_root=1\n");
}

/* A file that lists a child before its parent has as default end effector its last leaf in
 * file order, which the preorder (parents first) may not list last. The writer lists the
 * joints parents first with that leaf last, so that the written file has the same default
 * effector, and writes that file again as it is. */
static void
test_skeleton_json_default_effector_kept (void)
{
  const struct
  {
    const char *text;
    const char *effector;
  } cases[] = {
    /* The spec's order (R, A, E1, B, E2) would make E2 the last leaf. */
    { "{\"root_name\":\"R\",\"joints\":["
      "{\"name\":\"R\",\"type\":\"fixed\",\"offset\":[0,0,0]},"
      "{\"name\":\"E2\",\"type\":\"fixed\",\"parent\":\"B\",\"offset\":[0,0,0.2]},"
      "{\"name\":\"A\",\"type\":\"revolute\",\"parent\":\"R\",\"offset\":[0,0,0.1],\"axis\":[0,1,0]},"
      "{\"name\":\"E1\",\"type\":\"fixed\",\"parent\":\"A\",\"offset\":[0,0,0.3]},"
      "{\"name\":\"B\",\"type\":\"revolute\",\"parent\":\"A\",\"offset\":[0.1,0,0],\"axis\":[0,1,0]}"
      "]}", "E1" },
    /* Two levels: the branch X holds the effector Xb but comes first below R. */
    { "{\"root_name\":\"R\",\"joints\":["
      "{\"name\":\"R\",\"type\":\"fixed\",\"offset\":[0,0,0]},"
      "{\"name\":\"Xa\",\"type\":\"revolute\",\"parent\":\"X\",\"offset\":[0,0,1],\"axis\":[1,0,0]},"
      "{\"name\":\"X\",\"type\":\"revolute\",\"parent\":\"R\",\"offset\":[0,0,1],\"axis\":[0,1,0]},"
      "{\"name\":\"Ya\",\"type\":\"fixed\",\"parent\":\"Y\",\"offset\":[0,1,0]},"
      "{\"name\":\"Y\",\"type\":\"spherical\",\"parent\":\"R\",\"offset\":[1,0,0]},"
      "{\"name\":\"Xb\",\"type\":\"prismatic\",\"parent\":\"X\",\"offset\":[0,0,2],\"axis\":[0,0,1]}"
      "]}", "Xb" },
    /* Parents first but not in preorder: written in file order, so that it reads back
     * with the same topological (and DOF) order; the preorder would make B the last leaf. */
    { "{\"root_name\":\"R\",\"joints\":["
      "{\"name\":\"R\",\"type\":\"fixed\",\"offset\":[0,0,0]},"
      "{\"name\":\"A\",\"type\":\"revolute\",\"parent\":\"R\",\"offset\":[0,0,1],\"axis\":[0,1,0]},"
      "{\"name\":\"B\",\"type\":\"revolute\",\"parent\":\"R\",\"offset\":[1,0,0],\"axis\":[1,0,0]},"
      "{\"name\":\"A1\",\"type\":\"prismatic\",\"parent\":\"A\",\"offset\":[0,0,1],\"axis\":[0,0,1]}"
      "]}", "A1" },
  };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(KmSkeleton) skel = km_skeleton_json_load ("t.json", cases[c].text,
                                                          strlen (cases[c].text), &error);
      g_autoptr(KmSkeleton) again = NULL;
      g_autofree char *text = NULL;
      g_autofree char *text2 = NULL;
      int effector;

      g_assert_no_error (error);
      effector = km_skeleton_get_default_effector (skel);
      g_assert_cmpstr (km_skeleton_get_joint (skel, (guint) effector)->name, ==,
                       cases[c].effector);
      text = km_skeleton_json_to_string (skel);
      again = km_skeleton_json_load ("written.json", text, strlen (text), &error);
      g_assert_no_error (error);
      effector = km_skeleton_get_default_effector (again);
      g_assert_cmpstr (km_skeleton_get_joint (again, (guint) effector)->name, ==,
                       cases[c].effector);
      g_assert_cmpuint (km_skeleton_get_n_joints (again), ==, km_skeleton_get_n_joints (skel));
      g_assert_cmpuint (km_skeleton_get_n_dof (again), ==, km_skeleton_get_n_dof (skel));
      /* Parents first: every joint after its parent. */
      for (guint i = 0; i < km_skeleton_get_n_joints (again); i++)
        {
          const KmJoint *j = km_skeleton_get_joint (again, i);

          if (j->parent >= 0)
            g_assert_cmpuint (km_skeleton_get_joint (again, (guint) j->parent)->file_index, <,
                              j->file_index);
        }
      text2 = km_skeleton_json_to_string (again);
      g_assert_cmpstr (text2, ==, text);
      if (c == 2)
        {
          g_assert_true (km_skeleton_equal (skel, again, 0));
          for (guint i = 0; i < km_skeleton_get_n_joints (again); i++)
            g_assert_cmpuint (km_skeleton_get_joint (again, i)->file_index, ==,
                              km_skeleton_get_joint (skel, i)->file_index);
        }
    }
}

/* Written over the skeleton.json it was read from, an edited skeleton keeps the keys the
 * reader does not interpret: the top level's (values as read, nested ones too) and each
 * joint's (with the joint of the same name; a deleted joint's go with it), once. Deleted
 * or replaced by no JSON since it was read, the keys of the text as read, given
 * (km_skeleton_json_save_over_text); gone, the plain text; no JSON, the plain text with a
 * note. */
static void
test_skeleton_json_save_over (void)
{
  static const char original[] =
    "{\n"
    "  \"comment\": \"DH source: \\\"UR5\\\", limits from the datasheet\",\n"
    "  \"root_name\": \"base\",\n"
    "  \"model_name\": \"ur\",\n"
    "  \"meta\": {\"version\": 3, \"tags\": [\"a\", null, true, 1.5e-3]},\n"
    "  \"joints\": [\n"
    "    { \"name\": \"base\", \"type\": \"fixed\", \"offset\": [0, 0, 0] },\n"
    "    { \"name\": \"shoulder\", \"type\": \"revolute\", \"offset\": [0, 0, 0.1],\n"
    "      \"parent\": \"base\", \"axis\": [0, 0, 1], \"limits\": [-1, 1],\n"
    "      \"dh\": {\"a\": 0, \"d\": 0.089159} },\n"
    "    { \"name\": \"elbow\", \"type\": \"revolute\", \"offset\": [0.4, 0, 0],\n"
    "      \"parent\": \"shoulder\", \"axis\": [0, 1, 0], \"limits\": null,\n"
    "      \"colour\": \"red\" },\n"
    "    { \"name\": \"tool\", \"type\": \"fixed\", \"offset\": [0.1, 0, 0],\n"
    "      \"parent\": \"elbow\", \"colour\": \"blue\" }\n"
    "  ],\n"
    "  \"z_last\": 12\n"
    "}\n";
  g_autofree char *dir = km_test_make_tmp_dir ("km-skeleton-json-over-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "ur.json", NULL);
  g_autofree char *gone = g_build_filename (dir, "gone.json", NULL);
  g_autofree char *other = g_build_filename (dir, "other.json", NULL);
  g_autofree char *text = NULL;
  g_autofree char *plain = NULL;
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) read = NULL;
  g_autoptr(KmSkeleton) moved = NULL;
  g_autoptr(KmSkeleton) edited = NULL;
  g_autoptr(KmSkeleton) saved = NULL;
  g_autoptr(GBytes) read_text = g_bytes_new_static (original, strlen (original));
  gsize length;

  g_assert_true (g_file_set_contents (path, original, -1, NULL));
  test_util_push_warnings (warnings);
  read = km_skeleton_json_load (path, original, strlen (original), &error);
  test_util_pop_warnings (warnings);
  g_assert_no_error (error);
  g_assert_cmpuint (warnings->len, ==, 6);

  moved = km_skeleton_edit_set_offset (read, (guint) km_skeleton_find_joint (read, "elbow"),
                                       km_vec3 (0.5, 0, 0), &error);
  g_assert_no_error (error);
  edited = km_skeleton_edit_delete (moved, (guint) km_skeleton_find_joint (moved, "tool"),
                                    &error);
  g_assert_no_error (error);
  g_assert_true (km_skeleton_json_save_over (edited, path, path, notes, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (notes->len, ==, 0);

  g_assert_true (g_file_get_contents (path, &text, &length, NULL));
  g_clear_pointer (&warnings, g_ptr_array_unref);
  warnings = g_ptr_array_new_with_free_func (g_free);
  test_util_push_warnings (warnings);
  saved = km_skeleton_json_load (path, text, length, &error);
  test_util_pop_warnings (warnings);
  g_assert_no_error (error);
  g_assert_true (km_skeleton_equal (saved, edited, 0));
  /* The top level's and the joints' unknown keys, each once ("colour" of elbow only). */
  g_assert_cmpuint (warnings->len, ==, 5);
  g_assert_nonnull (strstr (text, "\"comment\": \"DH source: \\\"UR5\\\", limits from the "
                                  "datasheet\""));
  g_assert_nonnull (strstr (text, "\"version\": 3"));
  g_assert_nonnull (strstr (text, "0.0015"));
  g_assert_nonnull (strstr (text, "\"d\": 0.089159"));
  g_assert_nonnull (strstr (text, "\"colour\": \"red\""));
  g_assert_null (strstr (text, "blue"));
  g_assert_nonnull (strstr (text, "\"z_last\": 12"));
  g_assert_nonnull (strstr (text, "\"offset\": [0.5, 0, 0]"));

  /* Gone: the plain text, nothing said. */
  g_assert_true (km_skeleton_json_save_over (edited, gone, other, notes, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (notes->len, ==, 0);
  plain = km_skeleton_json_to_string (edited);
  g_clear_pointer (&text, g_free);
  g_assert_true (g_file_get_contents (other, &text, NULL, NULL));
  g_assert_cmpstr (text, ==, plain);

  /* Deleted by another program since it was read: written again over the text as read,
   * with the keys as they were, nothing said. */
  g_assert_cmpint (g_remove (path), ==, 0);
  g_assert_true (km_skeleton_json_save_over_text (edited, path, read_text, path, notes,
                                                  &error));
  g_assert_no_error (error);
  g_assert_cmpuint (notes->len, ==, 0);
  g_clear_pointer (&text, g_free);
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "\"comment\": \"DH source: \\\"UR5\\\", limits from the "
                                  "datasheet\""));
  g_assert_nonnull (strstr (text, "\"colour\": \"red\""));
  g_assert_nonnull (strstr (text, "\"z_last\": 12"));

  /* Replaced by something that is no JSON: the same. */
  g_assert_true (g_file_set_contents (path, "{ \"root_name\": ", -1, NULL));
  g_assert_true (km_skeleton_json_save_over_text (edited, path, read_text, path, notes,
                                                  &error));
  g_assert_no_error (error);
  g_assert_cmpuint (notes->len, ==, 0);
  g_clear_pointer (&text, g_free);
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "\"colour\": \"red\""));
  g_assert_nonnull (strstr (text, "\"z_last\": 12"));

  /* No JSON, and no text given: the plain text, and a note. */
  g_assert_true (g_file_set_contents (other, "{ \"root_name\": ", -1, NULL));
  g_assert_true (km_skeleton_json_save_over (edited, other, other, notes, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (notes->len, ==, 1);
  g_clear_pointer (&text, g_free);
  g_assert_true (g_file_get_contents (other, &text, NULL, NULL));
  g_assert_cmpstr (text, ==, plain);

  km_test_remove_tree (dir);
}

static void
test_skeleton_json_sniff (void)
{
  const char *other = "{\"frames\": [{\"frame\": 0, \"joints\": {}}]}";
  const char *arr = "[{\"frame\": 0}]";
  const char *only_joints = "{\"joints\": []}";

  g_assert_cmpint (km_format_skeleton_json.sniff (other, strlen (other)), ==, 0);
  g_assert_cmpint (km_format_skeleton_json.sniff (arr, strlen (arr)), ==, 0);
  g_assert_cmpint (km_format_skeleton_json.sniff ("", 0), ==, 0);
  g_assert_cmpint (km_format_skeleton_json.sniff (only_joints, strlen (only_joints)), >, 0);
  g_assert_cmpstr (km_format_skeleton_json.name, ==, "SKELETON-JSON");
  g_assert_cmpint (km_format_skeleton_json.kind, ==, KM_FILE_KIND_MODEL);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/kinema/SkeletonJson/spec-example", test_skeleton_json_spec_example);
  g_test_add_func ("/kinema/SkeletonJson/reversed", test_skeleton_json_reversed);
  g_test_add_func ("/kinema/SkeletonJson/extras", test_skeleton_json_extras);
  g_test_add_func ("/kinema/SkeletonJson/invalid-joints", test_skeleton_json_invalid_joints);
  g_test_add_func ("/kinema/SkeletonJson/invalid-top", test_skeleton_json_invalid_top);
  g_test_add_func ("/kinema/SkeletonJson/invalid-files", test_skeleton_json_invalid_files);
  g_test_add_func ("/kinema/SkeletonJson/depth-bomb", test_skeleton_json_depth_bomb);
  g_test_add_func ("/kinema/SkeletonJson/round-trip", test_skeleton_json_round_trip);
  g_test_add_func ("/kinema/SkeletonJson/save-over", test_skeleton_json_save_over);
  g_test_add_func ("/kinema/SkeletonJson/describe-free-root", test_skeleton_json_describe_free_root);
  g_test_add_func ("/kinema/SkeletonJson/sniff", test_skeleton_json_sniff);
  g_test_add_func ("/kinema/SkeletonJson/mimic", test_skeleton_json_mimic);
  g_test_add_func ("/kinema/SkeletonJson/one-sided", test_skeleton_json_one_sided);
  g_test_add_func ("/kinema/SkeletonJson/spherical-partly-limited",
                   test_skeleton_json_spherical_partly_limited);
  g_test_add_func ("/kinema/SkeletonJson/bad-mimic", test_skeleton_json_bad_mimic);
  g_test_add_func ("/kinema/SkeletonJson/unreachable-mimic", test_skeleton_json_unreachable_mimic);
  g_test_add_func ("/kinema/SkeletonJson/fix-free-root", test_skeleton_json_fix_free_root);
  g_test_add_func ("/kinema/SkeletonJson/default-effector-kept",
                   test_skeleton_json_default_effector_kept);

  return g_test_run ();
}
