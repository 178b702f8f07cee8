/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <string.h>
#include <glib.h>
#include <glib/gstdio.h>

#include "km-animation.h"
#include "km-cnoid.h"
#include "km-ik-animation-item.h"
#include "km-item.h"
#include "km-project.h"
#include "km-yaml.h"

#include "test-util.h"
#include "km-test-tmp.h"

/*
 * A project save in two halves: the tree made on the project's thread (cheap: an
 * animation's frames are a deferred node over a copy), its text on another thread (the
 * frames built and formatted there), byte for byte what km_cnoid_to_string and
 * km_cnoid_save write.
 */

/* ---- Deferred nodes ------------------------------------------------------------------ */

typedef struct
{
  guint    n_values;
  guint    expanded;    /* times built */
  gboolean freed;
} Numbers;

static KmYamlNode *
build_numbers (gpointer data)
{
  Numbers *numbers = data;
  KmYamlNode *list = km_yaml_node_new_sequence (KM_YAML_STYLE_FLOW);

  for (guint i = 0; i < numbers->n_values; i++)
    km_yaml_sequence_append (list, km_yaml_node_new_number (i / 4.0));
  numbers->expanded++;
  return list;
}

static void
numbers_freed (gpointer data)
{
  ((Numbers *) data)->freed = TRUE;
}

/* The same document with the deferred node built in place. */
static KmYamlNode *
document (KmYamlNode *values)
{
  KmYamlNode *root = km_yaml_node_new_mapping (KM_YAML_STYLE_BLOCK);
  KmYamlNode *inner = km_yaml_node_new_sequence (KM_YAML_STYLE_FLOW);

  km_yaml_mapping_append (root, "name", km_yaml_node_new_string ("deferred"));
  km_yaml_mapping_append (root, "values", km_yaml_node_ref (values));
  km_yaml_sequence_append (inner, km_yaml_node_new_int (1));
  km_yaml_sequence_append (inner, km_yaml_node_ref (values));
  km_yaml_mapping_append (root, "nested", inner);
  return root;
}

static void
test_deferred_emit (void)
{
  Numbers numbers = { .n_values = 12 };
  g_autoptr(KmYamlNode) deferred = km_yaml_node_new_deferred (KM_YAML_SEQUENCE, build_numbers,
                                                              &numbers, numbers_freed);
  g_autoptr(KmYamlNode) built = build_numbers (&numbers);
  g_autoptr(KmYamlNode) with_deferred = document (deferred);
  g_autoptr(KmYamlNode) with_built = document (built);
  g_autoptr(KmYamlNode) copy = NULL;
  g_autofree char *expected = km_yaml_emit_to_string (with_built, NULL);
  g_autofree char *text = NULL;

  numbers.expanded = 0;
  g_assert_true (km_yaml_node_is_deferred (deferred));
  g_assert_false (km_yaml_node_is_deferred (built));
  /* Nothing is built before it is written; the accessors see an empty sequence. */
  g_assert_cmpint (km_yaml_node_get_kind (deferred), ==, KM_YAML_SEQUENCE);
  g_assert_cmpuint (km_yaml_node_get_length (deferred), ==, 0);
  g_assert_cmpuint (numbers.expanded, ==, 0);

  /* Written as what it builds, in block and in flow context (wrapped after ten values). */
  text = km_yaml_emit_to_string (with_deferred, NULL);
  g_assert_cmpstr (text, ==, expected);
  g_assert_nonnull (strstr (text, "values: [\n  0, 0.25,"));
  g_assert_nonnull (strstr (text, "nested: [ 1, [\n    0, 0.25,"));
  /* Built each time it is written: once as a block value, twice inside a flow collection
   * (whether it fits flow style is checked first). */
  g_assert_cmpuint (numbers.expanded, ==, 3);

  /* Equal to what it builds; a copy is the built tree, which may be changed. */
  g_assert_true (km_yaml_node_equal (with_deferred, with_built));
  g_assert_true (km_yaml_node_equal (deferred, built));
  copy = km_yaml_node_copy (deferred);
  g_assert_false (km_yaml_node_is_deferred (copy));
  g_assert_cmpuint (km_yaml_node_get_length (copy), ==, 12);
  km_yaml_sequence_append (copy, km_yaml_node_new_int (7));
  g_assert_cmpuint (km_yaml_node_get_length (copy), ==, 13);

  /* Its data goes with the last reference. */
  g_clear_pointer (&with_deferred, km_yaml_node_unref);
  g_assert_false (numbers.freed);
  g_clear_pointer (&deferred, km_yaml_node_unref);
  g_assert_true (numbers.freed);
}

static void
test_deferred_refuses_changes (void)
{
  Numbers numbers = { .n_values = 3 };
  g_autoptr(KmYamlNode) deferred = km_yaml_node_new_deferred (KM_YAML_SEQUENCE, build_numbers,
                                                              &numbers, NULL);
  g_autoptr(KmYamlNode) map = km_yaml_node_new_deferred (KM_YAML_MAPPING, build_numbers,
                                                         &numbers, NULL);
  /* (Refused, so not taken.) */
  g_autoptr(KmYamlNode) item = km_yaml_node_new_int (1);

  g_test_expect_message ("km-yaml", G_LOG_LEVEL_CRITICAL, "*expand == NULL*");
  km_yaml_sequence_append (deferred, item);
  g_test_assert_expected_messages ();
  g_test_expect_message ("km-yaml", G_LOG_LEVEL_CRITICAL, "*expand == NULL*");
  km_yaml_mapping_set (map, "key", item);
  g_test_assert_expected_messages ();
  g_assert_cmpuint (km_yaml_node_get_length (deferred), ==, 0);
  g_assert_cmpuint (km_yaml_node_get_length (map), ==, 0);
  g_assert_cmpuint (numbers.expanded, ==, 0);
}

/* ---- The project's tree ------------------------------------------------------------ */

#define N_FRAMES 2000
#define N_JOINTS 5

static double
joint_value (guint frame,
             guint joint)
{
  return 1e-4 * frame + 0.01 * joint + 1.0 / 3.0;
}

static KmAnimation *
make_animation (void)
{
  return test_util_revolute_animation (N_JOINTS, N_FRAMES, joint_value);
}

static KmProject *
make_project (KmAnimation *animation)
{
  KmProject *project = km_project_new ();
  g_autoptr(KmItem) item = km_ik_animation_item_new ();

  km_item_set_name (item, "Solved Animation");
  km_ik_animation_item_set_animation (KM_IK_ANIMATION_ITEM (item), animation);
  km_item_append_child (km_project_get_root_item (project), item);
  return project;
}

typedef struct
{
  KmYamlNode *tree;
  char       *text;
  gsize       length;
} Emit;

static gpointer
emit_thread (gpointer data)
{
  Emit *emit = data;

  emit->text = km_cnoid_tree_to_string (emit->tree, &emit->length);
  return NULL;
}

/* The frames of the tree's first item (items → children → data → frames). */
static KmYamlNode *
tree_frames (KmYamlNode *tree)
{
  KmYamlNode *children = km_yaml_mapping_lookup (km_yaml_mapping_lookup (tree, "items"),
                                                 "children");

  g_assert_nonnull (children);
  return km_yaml_mapping_lookup (km_yaml_mapping_lookup (km_yaml_sequence_get (children, 0),
                                                         "data"), "frames");
}

static void
test_tree_text_on_worker (void)
{
  g_autoptr(KmAnimation) animation = make_animation ();
  g_autoptr(KmProject) project = make_project (animation);
  g_autoptr(GHashTable) ids = NULL;
  g_autofree char *dir = km_test_make_tmp_dir ("km-save-tree-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "project.cnoid", NULL);
  g_autofree char *expected = NULL;
  g_autofree char *saved = NULL;
  g_autoptr(GError) error = NULL;
  double changed[N_JOINTS] = { 9, 9, 9, 9, 9 };
  gsize expected_length = 0, saved_length = 0;
  Emit emit = { NULL, };
  GThread *thread;

  expected = km_cnoid_to_string (project, path, &expected_length, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (expected, "- { frame: 1999, joints: { \"joint1\": { type: revolute, "
                                      "angle: 0.5332333333333333 }"));

  /* The project's thread makes the tree: the frames are not built there. */
  emit.tree = km_cnoid_build_tree (project, path, &ids);
  g_assert_nonnull (emit.tree);
  g_assert_cmpuint (g_hash_table_size (ids), ==, 2);
  g_assert_true (km_yaml_node_is_deferred (tree_frames (emit.tree)));

  /* The animation changes in place meanwhile (as a solve streaming frames into it would):
   * the tree holds the animation as it was. */
  km_animation_set_frame (animation, 0, changed);

  /* Another thread makes the text: byte for byte what km_cnoid_to_string made. */
  thread = g_thread_new ("emit", emit_thread, &emit);
  g_thread_join (thread);
  g_assert_cmpuint (emit.length, ==, expected_length);
  g_assert_true (memcmp (emit.text, expected, expected_length) == 0);
  g_assert_null (strstr (emit.text, "angle: 9 "));

  /* km_cnoid_save writes the same bytes (the animation as it is now). */
  g_assert_true (km_cnoid_save (project, path, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &saved, &saved_length, &error));
  g_assert_no_error (error);
  g_clear_pointer (&expected, g_free);
  expected = km_cnoid_to_string (project, path, &expected_length, NULL);
  g_assert_cmpuint (saved_length, ==, expected_length);
  g_assert_true (memcmp (saved, expected, expected_length) == 0);
  g_assert_nonnull (strstr (saved, "angle: 9 }"));

  /* The synchronous store still builds the frames at once. */
  {
    KmItem *item = km_item_get_child (km_project_get_root_item (project), 0);
    KmItemIo io = { .file = path, .dir = dir };
    g_autoptr(KmYamlNode) data = km_item_store (item, &io);

    g_assert_false (km_yaml_node_is_deferred (km_yaml_mapping_lookup (data, "frames")));
    g_assert_cmpuint (km_yaml_node_get_length (km_yaml_mapping_lookup (data, "frames")), ==,
                      N_FRAMES);
  }

  km_yaml_node_unref (emit.tree);
  g_free (emit.text);
  g_unlink (path);
  g_rmdir (dir);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/kinema/YamlNode/deferred-emit", test_deferred_emit);
  g_test_add_func ("/kinema/YamlNode/deferred-refuses-changes", test_deferred_refuses_changes);
  g_test_add_func ("/kinema/Cnoid/tree-text-on-worker", test_tree_text_on_worker);
  return g_test_run ();
}
