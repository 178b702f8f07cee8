/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "km-body.h"
#include "km-error.h"
#include "km-shape.h"
#include "km-yaml.h"

#include "test-util.h"

/*
 * YAML's merge key (`<<: *base`, `<<: [ *a, *b ]`), which Choreonoid's models use to share
 * link settings: keys come from the merged mappings unless the mapping has its own, the
 * earlier merged mapping first; a nest of merge lists stays cheap to look up in.
 */

static KmYamlNode *
parse (const char *text)
{
  g_autoptr(GError) error = NULL;
  KmYamlNode *root = km_yaml_parse ("t.yaml", text, strlen (text), NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (root);
  return root;
}

static const char *
scalar (const KmYamlNode *mapping,
        const char       *key)
{
  KmYamlNode *value = km_yaml_mapping_lookup (mapping, key);

  return value ? km_yaml_node_get_scalar (value, NULL) : NULL;
}

static void
test_lookup (void)
{
  KmYamlNode *root = parse ("a: &A { x: 1, y: 2, n: { m: 3 } }\n"
                            "b: &B { y: 20, z: 30 }\n"
                            "one: { <<: *A, x: 10 }\n"
                            "list: { <<: [ *B, *A ], w: 0 }\n"
                            "deep: { <<: { <<: *B } }\n"
                            "bad: { <<: 5, x: 7 }\n");
  KmYamlNode *one = km_yaml_mapping_lookup (root, "one");
  KmYamlNode *list = km_yaml_mapping_lookup (root, "list");

  /* Own keys win; the rest come from the merged mapping, nested values included. */
  g_assert_cmpstr (scalar (one, "x"), ==, "10");
  g_assert_cmpstr (scalar (one, "y"), ==, "2");
  g_assert_cmpstr (scalar (km_yaml_mapping_lookup (one, "n"), "m"), ==, "3");
  g_assert_null (scalar (one, "z"));
  /* In a list the earlier mapping wins. */
  g_assert_cmpstr (scalar (list, "y"), ==, "20");
  g_assert_cmpstr (scalar (list, "x"), ==, "1");
  g_assert_cmpstr (scalar (list, "z"), ==, "30");
  g_assert_cmpstr (scalar (list, "w"), ==, "0");
  /* A merged mapping may merge in turn; a merge of no mapping adds nothing. */
  g_assert_cmpstr (scalar (km_yaml_mapping_lookup (root, "deep"), "z"), ==, "30");
  g_assert_cmpstr (scalar (km_yaml_mapping_lookup (root, "bad"), "x"), ==, "7");
  g_assert_null (scalar (km_yaml_mapping_lookup (root, "bad"), "y"));
  km_yaml_node_unref (root);
}

/* Seven levels of eight-way merge lists (as many as the parser's expansion limit lets
 * through): a missing key would visit 8^7 mappings on each lookup. */
static void
test_lookup_bounded (void)
{
  GString *text = g_string_new ("l0: &l0 { v: 0 }\n");
  KmYamlNode *root, *top;
  gint64 start;

  for (int i = 1; i <= 7; i++)
    g_string_append_printf (text, "l%d: &l%d { <<: [ *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, "
                            "*l%d, *l%d ] }\n", i, i, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1,
                            i - 1, i - 1);
  root = parse (text->str);
  top = km_yaml_mapping_lookup (root, "l7");
  g_assert_nonnull (top);
  start = g_get_monotonic_time ();
  for (int i = 0; i < 1000; i++)
    g_assert_null (km_yaml_mapping_lookup (top, "missing"));
  g_assert_cmpint (g_get_monotonic_time () - start, <, 2 * G_USEC_PER_SEC);
  /* Within the budget a merged key is still found. */
  g_assert_cmpstr (scalar (km_yaml_mapping_lookup (root, "l3"), "v"), ==, "0");
  km_yaml_node_unref (root);
  g_string_free (text, TRUE);
}

/* A Choreonoid body whose links take parent, joint and shapes from merged mappings. */
static void
test_body (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "choreonoid",
                                                 "merge-keys.body", NULL);
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  KmSkeleton *skel;
  const KmJoint *left, *right;
  KmShape * const *shapes;
  guint n_shapes = 0;

  skel = test_util_body_load_file (path, NULL, warnings, &error);
  g_assert_no_error (error);
  g_assert_nonnull (skel);
  test_util_assert_no_warnings (warnings);

  g_assert_cmpuint (km_skeleton_get_n_joints (skel), ==, 3);
  g_assert_cmpuint (km_skeleton_get_n_dof (skel), ==, 2);
  left = test_util_joint (skel, "LEFT");
  right = test_util_joint (skel, "RIGHT");
  g_assert_cmpint (left->parent, ==, km_skeleton_find_joint (skel, "BASE"));
  g_assert_cmpint (right->parent, ==, km_skeleton_find_joint (skel, "BASE"));
  g_assert_cmpint (left->type, ==, KM_JOINT_REVOLUTE);
  g_assert_cmpfloat_with_epsilon (left->axis.y, 1.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (left->limits[0].min, -30 * G_PI / 180, 1e-12);
  g_assert_cmpfloat_with_epsilon (left->limits[0].max, 60 * G_PI / 180, 1e-12);
  g_assert_cmpfloat_with_epsilon (left->offset.y, 0.5, 1e-12);
  /* RIGHT: the axis from the first merged mapping, its own range over the merged one. */
  g_assert_cmpfloat_with_epsilon (right->axis.z, 1.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (right->limits[0].min, -10 * G_PI / 180, 1e-12);
  g_assert_cmpfloat_with_epsilon (right->limits[0].max, 10 * G_PI / 180, 1e-12);
  g_assert_cmpfloat_with_epsilon (right->offset.y, -0.5, 1e-12);

  shapes = km_skeleton_get_shapes (skel, km_skeleton_find_joint (skel, "RIGHT"), &n_shapes);
  g_assert_cmpuint (n_shapes, ==, 1);
  g_assert_cmpint (shapes[0]->type, ==, KM_SHAPE_BOX);
  g_assert_cmpfloat_with_epsilon (shapes[0]->size.z, 0.3, 1e-12);
  g_assert_cmpfloat_with_epsilon (shapes[0]->color.b, 1.0, 1e-6);
  km_skeleton_unref (skel);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/kinema/Yaml/merge-key", test_lookup);
  g_test_add_func ("/kinema/Yaml/merge-key-bounded", test_lookup_bounded);
  g_test_add_func ("/kinema/Body/merge-key", test_body);
  return g_test_run ();
}
