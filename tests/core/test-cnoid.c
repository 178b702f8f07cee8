/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <utime.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "km-body-item.h"
#include "km-cnoid.h"
#include "km-error.h"
#include "km-folder-item.h"
#include "km-format.h"
#include "km-ik-animation-item.h"
#include "km-ik-targets-item.h"
#include "km-math.h"
#include "km-pose-seq-item.h"
#include "km-sub-project-item.h"
#include "km-unknown-item.h"
#include "km-world-item.h"
#include "km-yaml.h"

#include "test-util.h"
#include "km-test-tmp.h"

/* km_cnoid_load_full does not take the bytes: the caller keeps and frees them. */
static KmProject *
load_text (const char  *path,
           const char  *text,
           GError     **error)
{
  g_autoptr(GBytes) bytes = g_bytes_new (text, strlen (text));

  return km_cnoid_load_full (path, bytes, NULL, error);
}

static char *
data_path (const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "data", "cnoid", name, NULL);
}

static char *
describe (KmProject *project)
{
  GString *out = g_string_new (NULL);

  km_cnoid_describe (project, out);
  return g_string_free (out, FALSE);
}

static const char *
summary_line (const char *description)
{
  const char *last = description;

  for (const char *p = description; p[0] != '\0'; p++)
    if (p[0] == '\n' && p[1] != '\0')
      last = p + 1;
  return last;
}

/* Trailing spaces (Choreonoid's older writer leaves them after "key:" and "-"). */
static char *
strip_trailing_spaces (const char *text)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    g_strchomp (lines[i]);
  return g_strjoinv ("\n", lines);
}

static KmYamlNode *
parse_text (const char *text)
{
  g_autoptr(GError) error = NULL;
  KmYamlNode *node = km_yaml_parse ("text", text, strlen (text), NULL, &error);

  g_assert_no_error (error);
  return node;
}

static void
test_fixtures_load (void)
{
  static const struct { const char *file; const char *summary; guint n_messages; } cases[] = {
    { "share/project/ClosedLinkSample.cnoid", "items=9 unknown=5 bodies=1\n", 5 },
    { "share/project/SR1Walk.cnoid", "items=14 unknown=9 bodies=2\n", 9 },
    { "share/project/SR1WalkEdit.cnoid", "items=7 unknown=2 bodies=2\n", 2 },
    { "kinema/arm.cnoid", "items=6 unknown=0 bodies=1\n", 0 },
    { "kinema/broken.cnoid", "items=9 unknown=2 bodies=3\n", 5 },
    { "sub/main.cnoid", "items=3 unknown=0 bodies=0\n", 1 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = data_path (cases[i].file);
      g_autoptr(KmProject) project = test_util_load_cnoid (path);
      g_autofree char *text = describe (project);
      GPtrArray *messages = km_project_get_messages (project);
      guint n = 0;

      g_test_message ("%s", path);
      g_assert_cmpstr (summary_line (text), ==, cases[i].summary);
      /* Model loaders' own warnings (SR1's sensors, "SR1.body:…" with "included from"
       * the project) come on top of ours. */
      for (guint m = 0; m < messages->len; m++)
        {
          const char *message = g_ptr_array_index (messages, m);
          g_autofree char *first = g_strndup (message, strcspn (message, "\n"));

          if (g_str_has_prefix (message, path) ||
              (strstr (message, "included from") != NULL && strstr (first, ".body:") == NULL))
            n++;
        }
      g_assert_cmpuint (n, ==, cases[i].n_messages);
      g_assert_false (km_project_get_modified (project));
    }
}

static void
test_choreonoid_bodies (void)
{
  g_autofree char *path = data_path ("share/project/SR1Walk.cnoid");
  g_autofree char *edit_path = data_path ("share/project/SR1WalkEdit.cnoid");
  g_autoptr(KmProject) project = test_util_load_cnoid (path);
  g_autoptr(KmProject) edit = test_util_load_cnoid (edit_path);
  KmItem *sr1 = test_util_find_item (km_project_get_root_item (project), "SR1");
  KmItem *sr1_edit = test_util_find_item (km_project_get_root_item (edit), "SR1");
  const double *q, *q_edit;
  guint n, n_edit;
  KmTransform pose;

  g_assert_true (KM_IS_BODY_ITEM (sr1));
  g_assert_nonnull (km_body_item_get_skeleton (KM_BODY_ITEM (sr1)));
  g_assert_null (km_item_get_problem (sr1));
  q = km_body_item_get_joint_state (KM_BODY_ITEM (sr1), &n);
  g_assert_cmpuint (n, ==, 29);
  /* joint_displacements are degrees: the 4th value (id 3) is 4.50001° */
  g_assert_cmpfloat_with_epsilon (q[km_skeleton_get_joint (km_body_item_get_skeleton (KM_BODY_ITEM (sr1)),
                                                           km_skeleton_find_joint (km_body_item_get_skeleton (KM_BODY_ITEM (sr1)),
                                                                                   "RLEG_KNEE"))->dof_index],
                                  4.50001 * G_PI / 180, 1e-12);
  km_body_item_get_root_pose (KM_BODY_ITEM (sr1), &pose);
  g_assert_cmpfloat (pose.pos.z, ==, 0.7135);
  g_assert_true (km_project_get_current_body (project) == sr1);

  /* The older file: jointDisplacements in degrees, rootPosition, rootAttitude. */
  q_edit = km_body_item_get_joint_state (KM_BODY_ITEM (sr1_edit), &n_edit);
  g_assert_cmpuint (n_edit, ==, 29);
  for (guint i = 0; i < n; i++)
    g_assert_cmpfloat_with_epsilon (q[i], q_edit[i], 1e-12);
  km_body_item_get_root_pose (KM_BODY_ITEM (sr1_edit), &pose);
  g_assert_cmpfloat (pose.pos.x, ==, 9.14417338e-06);
  g_assert_cmpfloat (pose.rot.m[0][2], ==, -1.38777878e-17);
  g_assert_true (km_project_get_current_body (edit) == sr1_edit);
}

/* Load → save → load: the same tree and sections; the text as the original up to the
 * whitespace Choreonoid's older writer produced. */
static void
test_round_trip (void)
{
  static const struct { const char *file; gboolean identical; } cases[] = {
    { "share/project/ClosedLinkSample.cnoid", TRUE },
    { "share/project/SR1Walk.cnoid", FALSE },
    { "share/project/SR1WalkEdit.cnoid", FALSE },
    { "kinema/arm.cnoid", TRUE },
    { "kinema/broken.cnoid", TRUE },
    { "sub/main.cnoid", TRUE },
  };
  g_autofree char *dir = km_test_make_tmp_dir ("cnoid-XXXXXX");

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = data_path (cases[i].file);
      g_autofree char *base = g_path_get_basename (path);
      g_autofree char *out = g_build_filename (dir, base, NULL);
      g_autoptr(KmProject) project = test_util_load_cnoid (path);
      g_autoptr(KmProject) again = NULL;
      g_autoptr(KmYamlNode) original_tree = NULL;
      g_autoptr(KmYamlNode) saved_tree = NULL;
      g_autoptr(GError) error = NULL;
      g_autofree char *original = test_util_read_file (path, NULL);
      g_autofree char *saved = NULL;
      g_autofree char *saved2 = NULL;
      g_autofree char *text1 = describe (project);
      g_autofree char *text2 = NULL;

      g_test_message ("%s", path);
      /* Written as if saved over the original, so that relative references (arm.json,
       * part.cnoid) stay as they are; saving into another folder re-bases them (see
       * test_save_elsewhere). */
      saved = test_util_cnoid_to_string (project, path);
      if (cases[i].identical)
        g_assert_cmpstr (saved, ==, original);
      else
        {
          g_autofree char *stripped = strip_trailing_spaces (original);

          if (strstr (cases[i].file, "Edit") == NULL)
            g_assert_cmpstr (saved, ==, stripped);
        }
      original_tree = parse_text (original);
      saved_tree = parse_text (saved);
      g_assert_true (km_yaml_node_equal (original_tree, saved_tree));

      /* Reload from the original's folder (relative paths), compare the models. */
      again = load_text (path, saved, &error);
      g_assert_no_error (error);
      text2 = describe (again);
      g_assert_cmpstr (text1, ==, text2);
      g_assert_true (km_yaml_node_equal (km_project_get_sections (project),
                                         km_project_get_sections (again)));
      /* A file we wrote saves byte-identically, and so does a real save of it. */
      saved2 = test_util_cnoid_to_string (again, path);
      g_assert_cmpstr (saved2, ==, saved);
      g_assert_true (km_cnoid_save (again, out, &error));
      g_assert_no_error (error);
      g_assert_true (g_file_test (out, G_FILE_TEST_IS_REGULAR));
      g_unlink (out);
    }
  g_rmdir (dir);
}

static void
test_sections_kept (void)
{
  g_autofree char *path = data_path ("share/project/SR1WalkEdit.cnoid");
  g_autoptr(KmProject) project = test_util_load_cnoid (path);
  KmYamlNode *sections = km_project_get_sections (project);
  static const char * const keys[] = {
    "items", "views", "toolbars", "Body", "Media", "viewAreas", "layoutOfToolBars"
  };
  g_autofree char *text = NULL;

  g_assert_cmpuint (km_yaml_node_get_length (sections), ==, G_N_ELEMENTS (keys));
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    g_assert_cmpstr (km_yaml_node_get_scalar (km_yaml_mapping_get_key (sections, i), NULL), ==,
                     keys[i]);

  /* Layout only when "save layout" is on. */
  km_project_set_save_layout (project, FALSE);
  text = test_util_cnoid_to_string (project, path);
  g_assert_null (strstr (text, "viewAreas:"));
  g_assert_null (strstr (text, "layoutOfToolBars:"));
  g_assert_nonnull (strstr (text, "    class: PythonConsoleView\n"));
  g_assert_nonnull (strstr (text, "  \"PulseAudioManager\":\n    keepStreamConnection: false\n"));
  g_assert_nonnull (strstr (text, "                  class: PoseSeqItem\n"));
  g_assert_true (g_str_has_prefix (text, "items:\n  id: 0\n  name: \"Root\"\n"));
}

/* What Kinema keeps of a project is written with the layout it was read with: block
 * scalars stay block scalars (in a body item's unknown keys too), and the lists of an item
 * or a view it does not know keep their rows. The lists of an item Kinema writes (the
 * body's pose, and Choreonoid's lists beside it) are written as they always were, rows in
 * the file or not, edited or not. */
static void
test_kept_layout (void)
{
  static const char * const kept[] = {
    "            note: |\n"
    "              Zero pose.\n"
    "\n"
    "                (as calibrated)\n"
    "            attitude_offset: [ 1, 0, 0, 0, 1, 0, 0, 0, 1 ]\n",
    "          data:\n"
    "            rotation: [ 1, 0, 0,\n"
    "                        0, 1, 0,\n"
    "                        0, 0, 1 ]\n"
    "            script: >-\n"
    "              kept as it is\n"
    "            pose: !!str |+\n"
    "              a\n"
    "\n",
    "    state:\n"
    "      text: |\n"
    "        line 1\n"
    "        line 2\n",
  };
  g_autofree char *path = data_path ("kinema/arm.cnoid");
  g_autofree char *arm = test_util_read_file (path, NULL);
  g_autoptr(GString) source = g_string_new (arm);
  g_autoptr(KmProject) project = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *edited = NULL;
  double q[5] = { 0.1, 0.2, 0.3, 0.4, 0.05 };
  KmBodyItem *body;
  gsize at;

  /* the body's own values in rows, a kept key of its own in each of the kept layouts */
  g_assert_cmpuint (g_string_replace (source, "            root_translation: [ 0, 0, 0.5 ]\n",
                                      "            root_translation: [ 0, 0,\n"
                                      "                                0.5 ]\n", 1), ==, 1);
  at = strstr (source->str, "            fix_root: true\n") - source->str;
  g_string_insert (source, at, kept[0]);
  g_assert_cmpuint (g_string_replace (source, "attitude_offset: [ 1, 0, 0, 0, 1, 0, 0, 0, 1 ]\n",
                                      "attitude_offset: [ \n"
                                      "              1, 0, 0, \n"
                                      "              0, 1, 0, \n"
                                      "              0, 0, 1 ]\n", 1), ==, 1);
  /* an item of a plugin Kinema does not know */
  at = strstr (source->str, "views:\n") - source->str;
  g_string_insert (source, at,
                   "        -\n"
                   "          id: 7\n"
                   "          name: \"Sensor\"\n"
                   "          plugin: Foo\n"
                   "          class: FooItem\n");
  at = strstr (source->str, "views:\n") - source->str;
  g_string_insert (source, at, kept[1]);
  /* a view Kinema does not know */
  at = strstr (source->str, "Body:\n") - source->str;
  g_string_insert (source, at,
                   "  -\n"
                   "    id: 7\n"
                   "    plugin: Foo\n"
                   "    class: FooView\n");
  at = strstr (source->str, "Body:\n") - source->str;
  g_string_insert (source, at, kept[2]);

  project = load_text (path, source->str, &error);
  g_assert_no_error (error);
  text = test_util_cnoid_to_string (project, path);
  for (guint i = 0; i < G_N_ELEMENTS (kept); i++)
    g_assert_nonnull (strstr (text, kept[i]));
  g_assert_nonnull (strstr (text, "            root_translation: [ 0, 0, 0.5 ]\n"));

  /* edited: its own values as before, what it keeps as it was */
  body = KM_BODY_ITEM (test_util_find_item (km_project_get_root_item (project), "Arm"));
  km_body_item_set_joint_state (body, q, 5);
  edited = test_util_cnoid_to_string (project, path);
  g_assert_nonnull (strstr (edited, "            root_translation: [ 0, 0, 0.5 ]\n"));
  g_assert_nonnull (strstr (edited, "            joint_displacements: [ "));
  g_assert_null (strstr (edited, "            joint_displacements: [ 10, 20, 30, 45, 0.25 ]\n"));
  for (guint i = 0; i < G_N_ELEMENTS (kept); i++)
    g_assert_nonnull (strstr (edited, kept[i]));
}

static void
test_optional_plugins_blank_line (void)
{
  g_autofree char *path = data_path ("share/project/SR1Walk.cnoid");
  g_autoptr(KmProject) project = test_util_load_cnoid (path);
  g_autofree char *text = km_cnoid_to_string (project, path, NULL, NULL);

  g_assert_true (g_str_has_prefix (text, "optional_plugins: [ PhysX, MuJoCo, ODE, AGXDynamics ]\n"
                                         "\nitems:\n"));
}

static void
test_references (void)
{
  g_autofree char *path = data_path ("kinema/arm.cnoid");
  g_autoptr(KmProject) project = test_util_load_cnoid (path);
  g_autoptr(KmProject) again = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(KmYamlNode) ref = parse_text ("[ 2, \"Targets\" ]");
  g_autoptr(KmYamlNode) bad = parse_text ("[ 2, \"Nothing\" ]");
  g_autoptr(KmYamlNode) id = parse_text ("2");
  g_autoptr(KmItem) folder = km_folder_item_new ();
  g_autoptr(KmItem) folder2 = km_folder_item_new ();
  KmItem *root = km_project_get_root_item (project);
  KmItem *world = km_item_get_child (root, 0);
  KmItem *arm = test_util_find_item (root, "Arm");
  g_autofree char *text = NULL;
  KmYamlNode *views;
  KmYamlNode *state;

  g_assert_true (km_cnoid_resolve_reference (root, ref) == test_util_find_item (root, "Targets"));
  g_assert_null (km_cnoid_resolve_reference (root, bad));
  g_assert_true (km_cnoid_resolve_reference (root, id) == arm);
  g_assert_true (km_project_get_current_body (project) == arm);

  /* Insert before the referenced items and remove one: the references still hold, the new
   * items get ids above any ever read (4 is not reused). */
  km_item_set_name (folder, "New");
  km_item_set_name (folder2, "Newer");
  km_project_insert_item (project, world, 0, folder);
  km_project_remove_item (project, test_util_find_item (root, "Targets from a file"));
  km_project_insert_item (project, arm, 0, folder2);
  g_assert_true (km_project_get_modified (project));
  text = test_util_cnoid_to_string (project, path);
  again = load_text (path, text, &error);
  g_assert_no_error (error);
  root = km_project_get_root_item (again);
  g_assert_cmpint (km_item_get_id (test_util_find_item (root, "New")), ==, 6);
  g_assert_cmpint (km_item_get_id (test_util_find_item (root, "Newer")), ==, 7);
  g_assert_null (km_project_find_item_by_id (again, 4));
  views = km_yaml_mapping_lookup (km_project_get_sections (again), "views");
  state = km_yaml_mapping_lookup (km_yaml_sequence_get (views, 1), "state");
  g_assert_true (km_cnoid_resolve_reference (root, km_yaml_mapping_lookup (state,
                                                                           "current_body_item")) ==
                 test_util_find_item (root, "Arm"));
  g_assert_true (km_cnoid_resolve_reference (root, km_yaml_mapping_lookup (state, "target_item")) ==
                 test_util_find_item (root, "Targets"));
  g_assert_true (km_project_get_current_body (again) == test_util_find_item (root, "Arm"));
  g_assert_cmpuint (km_project_get_messages (again)->len, ==, 0);
}

/* The body current when the project is saved is the one it opens with: the Body
 * section's BodySelectionManager names it (rewritten where the file named another, added
 * where there was none and the first body is not it). */
static void
test_current_body_saved (void)
{
  static const char *body_sections[] = {
    "",
    "Body:\n  \"BodySelectionManager\":\n    current_body_item: 2\n",
    "Body: ~\n",
    "Body:\n  BodySelectionManager: ~\n",
  };
  static const char *items =
    "items:\n  id: 0\n  name: \"RootItem\"\n  plugin: Base\n  class: RootItem\n"
    "  children:\n"
    "    -\n      id: 2\n      name: \"First\"\n      plugin: Body\n      class: BodyItem\n"
    "      data:\n        file: \"arm.json\"\n        format: SKELETON-JSON\n"
    "    -\n      id: 3\n      name: \"Second\"\n      plugin: Body\n      class: BodyItem\n"
    "      data:\n        file: \"arm.json\"\n        format: SKELETON-JSON\n";

  for (guint k = 0; k < G_N_ELEMENTS (body_sections); k++)
    {
      g_autofree char *path = data_path ("kinema/current.cnoid");
      g_autofree char *text = g_strconcat (items, body_sections[k], NULL);
      g_autofree char *saved = NULL;
      g_autofree char *resaved = NULL;
      g_autoptr(GError) error = NULL;
      g_autoptr(KmProject) project = load_text (path, text, &error);
      g_autoptr(KmProject) again = NULL;
      KmItem *root;

      g_assert_no_error (error);
      root = km_project_get_root_item (project);
      g_assert_true (km_project_get_current_body (project) == test_util_find_item (root, "First"));
      /* Unchanged, a file without the section is written without it. */
      saved = test_util_cnoid_to_string (project, path);
      g_assert_true ((strstr (saved, "BodySelectionManager") != NULL) == (k == 1 || k == 3));

      km_project_set_current_body (project, test_util_find_item (root, "Second"));
      resaved = test_util_cnoid_to_string (project, path);
      again = load_text (path, resaved, &error);
      g_assert_no_error (error);
      g_assert_true (km_project_get_current_body (again) ==
                     test_util_find_item (km_project_get_root_item (again), "Second"));
      g_assert_cmpuint (km_project_get_messages (again)->len, ==, 0);
    }
}

static void
test_dangling_reference (void)
{
  const char *text =
    "items:\n  id: 0\n  name: \"RootItem\"\n  plugin: Base\n  class: RootItem\n"
    "Body:\n  \"BodySelectionManager\":\n    current_body_item: 9\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(KmProject) project =
    load_text ("dangling.cnoid", text, &error);

  g_assert_no_error (error);
  g_assert_true (test_util_has_message (project, "dangling.cnoid:8:24: “current_body_item” "
                                                 "refers to an item that is not in the project"));
}

static void
test_sub_project (void)
{
  g_autofree char *path = data_path ("sub/main.cnoid");
  g_autofree char *part = data_path ("sub/part.cnoid");
  g_autoptr(KmProject) project = test_util_load_cnoid (path);
  g_autofree char *expected = g_strdup_printf ("%s:17:19: “is_checked” is ignored: expected "
                                               "true or false\n"
                                               "included from %s:14:15", part, path);
  g_autofree char *text = NULL;
  KmItem *root = km_project_get_root_item (project);
  KmItem *sub = km_item_get_child (root, 0);

  g_assert_true (KM_IS_SUB_PROJECT_ITEM (sub));
  g_assert_cmpuint (km_item_get_n_children (sub), ==, 2);
  g_assert_cmpstr (km_item_get_name (km_item_get_child (sub, 0)), ==, "Part folder");
  /* (a bad optional value of its header is ignored: header-bad-values) */
  g_assert_true (KM_IS_FOLDER_ITEM (km_item_get_child (sub, 1)));
  g_assert_false (km_item_get_checked (km_item_get_child (sub, 1)));
  g_assert_true (test_util_has_message (project, expected));
  /* The sub-project's ids do not shadow the parent's. */
  g_assert_cmpstr (km_item_get_name (km_project_find_item_by_id (project, 2)), ==, "After");

  /* The parent file does not carry the sub-project's items or layout. */
  text = test_util_cnoid_to_string (project, path);
  g_assert_null (strstr (text, "Part folder"));
  g_assert_null (strstr (text, "view_areas"));
}

static void
test_sub_project_recursion (void)
{
  g_autofree char *a = data_path ("sub/loop-a.cnoid");
  g_autofree char *b = data_path ("sub/loop-b.cnoid");
  g_autoptr(KmProject) project = test_util_load_cnoid (a);
  g_autofree char *expected =
    g_strdup_printf ("%s:13:15: the sub-project “loop-a.cnoid” includes itself; it is not "
                     "loaded again\nincluded from %s:13:15", b, a);
  KmItem *again;

  g_assert_true (test_util_has_message (project, expected));
  g_assert_cmpuint (km_project_get_messages (project)->len, ==, 1);
  again = test_util_find_item (km_project_get_root_item (project), "A again");
  g_assert_nonnull (again);
  g_assert_cmpuint (km_item_get_n_children (again), ==, 0);
  g_assert_true (g_str_has_prefix (km_item_get_problem (again), "the sub-project"));
}

static void
test_broken_items (void)
{
  g_autofree char *path = data_path ("kinema/broken.cnoid");
  g_autoptr(KmProject) project = test_util_load_cnoid (path);
  /* (a bad file reference fails the item; a bad optional value does not: bad-values) */
  g_autofree char *m1 = g_strdup_printf ("%s:20:17: expected a string", path);
  g_autofree char *m2 = g_strdup_printf ("%s:48:15: no reader for the model format “COLLADA” "
                                         "yet; the body is kept but not shown", path);
  g_autofree char *m3 = g_strdup_printf ("%s:57:17: “Base/FolderItem” data schema 3 is newer "
                                         "than 1 that Kinema knows; loading what can be read",
                                         path);
  g_autofree char *m4 = g_strdup_printf ("%s:64:17: body item schema 3 is newer than 2; "
                                         "loading what can be read", path);
  KmItem *root = km_project_get_root_item (project);
  KmItem *broken = test_util_find_item (root, "Broken");
  KmItem *missing = test_util_find_item (root, "Missing model");
  KmItem *unregistered = test_util_find_item (root, "Unregistered format");
  KmItem *newer = test_util_find_item (root, "Newer body");
  const double *raw;
  guint n;

  g_assert_true (test_util_has_message (project, m1));
  g_assert_true (test_util_has_message (project, m2));
  g_assert_true (test_util_has_message (project, m3));
  g_assert_true (test_util_has_message (project, m4));
  g_assert_true (KM_IS_UNKNOWN_ITEM (broken));
  g_assert_true (km_unknown_item_get_verbatim_children (KM_UNKNOWN_ITEM (broken)));
  g_assert_cmpint (km_item_get_id (broken), ==, 2);
  g_assert_true (km_item_get_checked (test_util_find_item (root, "After")));
  g_assert_cmpuint (km_item_get_n_children (root), ==, 7);

  g_assert_true (KM_IS_BODY_ITEM (missing));
  g_assert_nonnull (km_item_get_problem (missing));
  raw = km_body_item_get_raw_displacements (KM_BODY_ITEM (missing), &n);
  g_assert_cmpuint (n, ==, 3);
  g_assert_cmpfloat (raw[2], ==, 3);
  g_assert_true (KM_IS_BODY_ITEM (unregistered));
  g_assert_nonnull (km_item_get_problem (unregistered));
  g_assert_nonnull (km_body_item_get_skeleton (KM_BODY_ITEM (newer)));
}

/* A malformed optional value of a BodyItem's data is ignored with a warning where it is,
 * and the body still loads ("restoring as much as possible", the project file spec):
 * root_rotation of 5 numbers, or of 9 that are no rotation, a bad joint_displacements,
 * fix_root, joint values that do not fit the model (Choreonoid sets those listed); root_rotation of 9 numbers is a rotation matrix (as Choreonoid's rootAttitude,
 * whose rounding noise is accepted). Saved unchanged, the data is as it was; changed, the
 * state is written and the item's other keys kept. */
static void
test_body_bad_values (void)
{
  static const char head[] =
    "items:\n"
    "  id: 0\n"
    "  plugin: Base\n"
    "  class: RootItem\n"
    "  children:\n"
    "    - id: 1\n"
    "      plugin: Body\n"
    "      class: BodyItem\n"
    "      name: A\n"
    "      data:\n"
    "        file: \"arm.json\"\n"
    "        format: SKELETON-JSON\n";
  static const struct
  {
    const char *data;
    const char *message;   /* at line 13, or NULL */
    double      rot[9];
  } cases[] = {
    { "        root_rotation: [ 0, 0, 1, 90, 5 ]\n"
      "        root_translation: [ 1, 2, 3 ]\n"
      "        joint_displacements: [ 10, 20, 30, 45, 0.25 ]\n"
      "        my_plugin_key: kept\n",
      "13:24: “root_rotation” is ignored: expected a list of 4 numbers (an axis and an angle "
      "in degrees) or 9 (a rotation matrix)", { 1, 0, 0, 0, 1, 0, 0, 0, 1 } },
    { "        root_rotation: [ 0, -1, 0, 1, 0, 0, 0, 0, 1 ]\n"
      "        root_translation: [ 1, 2, 3 ]\n"
      "        joint_displacements: [ 10, 20, 30, 45, 0.25 ]\n"
      "        my_plugin_key: kept\n",
      NULL, { 0, -1, 0, 1, 0, 0, 0, 0, 1 } },
    { "        root_rotation: [ 0, -1, 0, 1, 0, 0, 0, 0, 2 ]\n"
      "        root_translation: [ 1, 2, 3 ]\n"
      "        joint_displacements: [ 10, 20, 30, 45, 0.25 ]\n"
      "        my_plugin_key: kept\n",
      "13:24: “root_rotation” is ignored: its 9 numbers are not a rotation matrix",
      { 1, 0, 0, 0, 1, 0, 0, 0, 1 } },
    { "        rootAttitude: [ 1, -0, -1.38777878e-17, 0, 1, -0, 1.38777878e-17, 0, 1 ]\n"
      "        root_translation: [ 1, 2, 3 ]\n"
      "        joint_displacements: [ 10, 20, 30, 45, 0.25 ]\n"
      "        my_plugin_key: kept\n",
      NULL, { 1, 0, 0, 0, 1, 0, 0, 0, 1 } },
    { "        fix_root: maybe\n"
      "        root_translation: [ 1, 2, 3 ]\n"
      "        joint_displacements: [ 10, 20, 30, 45, 0.25 ]\n"
      "        my_plugin_key: kept\n",
      "13:19: “fix_root” is ignored: expected true or false", { 1, 0, 0, 0, 1, 0, 0, 0, 1 } },
    { "        kinema_selected_joint: [ Elbow ]\n"
      "        root_translation: [ 1, 2, 3 ]\n"
      "        joint_displacements: [ 10, 20, 30, 45, 0.25 ]\n"
      "        my_plugin_key: kept\n",
      "13:32: “kinema_selected_joint” is ignored: expected a string",
      { 1, 0, 0, 0, 1, 0, 0, 0, 1 } },
    { "        joint_displacements: [ 10, 20, 30 ]\n"
      "        root_translation: [ 1, 2, 3 ]\n"
      "        my_plugin_key: kept\n",
      "13:30: “joint_displacements” lists 3 values where the model has 5; joints it does not "
      "list keep the model’s pose, values past the model’s are ignored", { 1, 0, 0, 0, 1, 0, 0, 0, 1 } },
    { "        jointDisplacements: [ 10, 20, 30, 45, 0.25, 7 ]\n"
      "        root_translation: [ 1, 2, 3 ]\n"
      "        my_plugin_key: kept\n",
      "13:29: “jointDisplacements” lists 6 values where the model has 5; joints it does not "
      "list keep the model’s pose, values past the model’s are ignored", { 1, 0, 0, 0, 1, 0, 0, 0, 1 } },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = data_path ("kinema/bad-values.cnoid");
      g_autofree char *text = g_strconcat (head, cases[i].data, NULL);
      g_autofree char *saved = NULL;
      g_autoptr(KmProject) project = NULL;
      g_autoptr(GError) error = NULL;
      KmItem *body;
      KmTransform pose;
      const double *q;
      double q2[5];

      g_test_message ("case %u", i);
      project = load_text (path, text, &error);
      g_assert_no_error (error);
      body = test_util_find_item (km_project_get_root_item (project), "A");
      g_assert_true (KM_IS_BODY_ITEM (body));
      g_assert_nonnull (km_body_item_get_skeleton (KM_BODY_ITEM (body)));
      g_assert_null (km_item_get_problem (body));
      if (cases[i].message != NULL)
        {
          g_autofree char *message = g_strdup_printf ("%s:%s", path, cases[i].message);

          g_assert_true (test_util_has_message (project, message));
          g_assert_cmpuint (km_project_get_messages (project)->len, ==, 1);
        }
      else
        g_assert_cmpuint (km_project_get_messages (project)->len, ==, 0);
      km_body_item_get_root_pose (KM_BODY_ITEM (body), &pose);
      test_util_assert_vec3 (pose.pos, 1, 2, 3, 1e-12);
      for (guint r = 0; r < 3; r++)
        for (guint c = 0; c < 3; c++)
          g_assert_cmpfloat_with_epsilon (pose.rot.m[r][c], cases[i].rot[3 * r + c], 1e-9);
      q = km_body_item_get_joint_state (KM_BODY_ITEM (body), NULL);
      g_assert_cmpfloat_with_epsilon (q[0], 10 * G_PI / 180, 1e-12);

      /* Unchanged: the data as it was, the bad value too (Choreonoid ignores it as well). */
      saved = test_util_cnoid_to_string (project, path);
      g_assert_nonnull (strstr (saved, cases[i].data));
      g_clear_pointer (&saved, g_free);

      /* Changed: the state written from the model, the other keys kept. */
      memcpy (q2, q, sizeof q2);
      q2[0] = 0;
      km_body_item_set_joint_state (KM_BODY_ITEM (body), q2, 5);
      saved = test_util_cnoid_to_string (project, path);
      g_assert_nonnull (strstr (saved, "        my_plugin_key: kept\n"));
      g_assert_nonnull (strstr (saved, "        root_translation: [ 1, 2, 3 ]\n"));
      g_assert_nonnull (strstr (saved, "        joint_displacements: [ 0, 20, "));
      g_assert_nonnull (strstr (saved, "        root_rotation: [ "));
      g_assert_null (strstr (saved, "90, 5 ]"));
      g_assert_null (strstr (saved, "fix_root: maybe"));
      g_assert_null (strstr (saved, "kinema_selected_joint"));
      g_assert_null (km_body_item_get_selected_joint (KM_BODY_ITEM (body)));
    }
}

/* A malformed optional value of an item's header (is_checked, is_selected, id, name) is
 * ignored with a warning at the value, as one of its data is: the body still loads, with
 * the default (unchecked, no id: a new one when saved, unused by the other items). Saved,
 * the header is the item's own state: no `is_checked: maybe`, a new id in place of the
 * bad one, and the file reads back without a warning. */
static void
test_header_bad_values (void)
{
  static const char text[] =
    "items:\n"
    "  id: 0\n"
    "  plugin: Base\n"
    "  class: RootItem\n"
    "  children:\n"
    "    - { id: 1, is_checked: maybe, name: A, plugin: Body, class: BodyItem, "
    "data: { file: \"arm.json\", format: SKELETON-JSON } }\n"
    "    - { id: 1.5, name: B, plugin: Body, class: BodyItem, "
    "data: { file: \"arm.json\", format: SKELETON-JSON } }\n"
    "    - { id: -5, name: C, is_selected: 3, plugin: Body, class: WorldItem }\n"
    "    - { id: 99999999999999999999, name: D, isBuiltinItem: x, plugin: Base, "
    "class: FolderItem }\n"
    "    - { id: 2, name: [ E ], plugin: Base, class: FolderItem }\n";
  static const char * const expected[] = {
    "6:28: “is_checked” is ignored: expected true or false",
    "7:13: “id” is ignored: expected an integer",
    "8:13: “id” is ignored: expected an item id ≥ 0",
    "8:39: “is_selected” is ignored: expected true or false",
    "9:13: “id” is ignored: expected an integer",
    "9:59: “isBuiltinItem” is ignored: expected true or false",
    "10:22: “name” is ignored: expected a string",
  };
  g_autofree char *path = data_path ("kinema/bad-header.cnoid");
  g_autoptr(KmProject) project = NULL;
  g_autoptr(KmProject) again = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *saved = NULL;
  KmItem *root;
  KmItem *a, *b;
  gint64 ids[6];

  project = load_text (path, text, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      g_autofree char *message = g_strdup_printf ("%s:%s", path, expected[i]);

      g_test_message ("%s", message);
      g_assert_true (test_util_has_message (project, message));
    }
  g_assert_cmpuint (km_project_get_messages (project)->len, ==, G_N_ELEMENTS (expected));
  root = km_project_get_root_item (project);
  g_assert_cmpuint (km_item_get_n_children (root), ==, 5);
  a = test_util_find_item (root, "A");
  b = test_util_find_item (root, "B");
  g_assert_true (KM_IS_BODY_ITEM (a));
  g_assert_nonnull (km_body_item_get_skeleton (KM_BODY_ITEM (a)));
  g_assert_false (km_item_get_checked (a));
  g_assert_cmpint (km_item_get_id (a), ==, 1);
  g_assert_true (KM_IS_BODY_ITEM (b));
  g_assert_nonnull (km_body_item_get_skeleton (KM_BODY_ITEM (b)));
  g_assert_cmpint (km_item_get_id (b), ==, -1);
  g_assert_true (KM_IS_WORLD_ITEM (test_util_find_item (root, "C")));
  g_assert_true (KM_IS_FOLDER_ITEM (test_util_find_item (root, "D")));
  g_assert_false (km_item_get_builtin (test_util_find_item (root, "D")));
  g_assert_true (KM_IS_FOLDER_ITEM (km_item_get_child (root, 4)));
  g_assert_cmpint (km_item_get_id (km_item_get_child (root, 4)), ==, 2);
  for (guint i = 0; i < km_item_get_n_children (root); i++)
    g_assert_false (KM_IS_UNKNOWN_ITEM (km_item_get_child (root, i)));

  saved = test_util_cnoid_to_string (project, path);
  g_assert_null (strstr (saved, "maybe"));
  g_assert_null (strstr (saved, "1.5"));
  g_assert_null (strstr (saved, "-5"));
  g_assert_null (strstr (saved, "99999999999999999999"));
  g_assert_null (strstr (saved, "is_selected"));
  g_assert_null (strstr (saved, "isBuiltinItem"));
  again = load_text (path, saved, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (km_project_get_messages (again)->len, ==, 0);
  root = km_project_get_root_item (again);
  ids[0] = km_item_get_id (root);
  for (guint i = 0; i < 5; i++)
    ids[i + 1] = km_item_get_id (km_item_get_child (root, i));
  /* Every item has its own id; the two that kept theirs still have them. */
  g_assert_cmpint (ids[0], ==, 0);
  g_assert_cmpint (ids[1], ==, 1);
  g_assert_cmpint (ids[5], ==, 2);
  for (guint i = 0; i < 6; i++)
    {
      g_assert_cmpint (ids[i], >=, 0);
      for (guint j = 0; j < i; j++)
        g_assert_cmpint (ids[i], !=, ids[j]);
    }
  g_assert_true (KM_IS_BODY_ITEM (test_util_find_item (root, "B")));
  g_assert_cmpstr (km_item_get_name (km_item_get_child (root, 4)), ==, "");
}

/* A project of one body item, "A", reading arm.json beside it: its data's last key follows. */
#define ARM_BODY_PROJECT \
  "items:\n" \
  "  id: 0\n" \
  "  plugin: Base\n" \
  "  class: RootItem\n" \
  "  children:\n" \
  "    - id: 1\n" \
  "      plugin: Body\n" \
  "      class: BodyItem\n" \
  "      name: A\n" \
  "      data:\n" \
  "        file: \"arm.json\"\n" \
  "        format: SKELETON-JSON\n"

/* Kinema's kinema_selected_joint: the editor's selected joint, by name, read and written
 * back. Setting it alone writes the data as read with it (nothing else rewritten); a
 * changed state writes it with the state; none removes the key. */
static void
test_selected_joint_key (void)
{
  static const char text[] =
    ARM_BODY_PROJECT
    "        kinema_selected_joint: Elbow\n"
    "        my_plugin_key: kept\n";
  g_autofree char *path = data_path ("kinema/selected.cnoid");
  g_autoptr(KmProject) project = NULL;
  g_autoptr(KmProject) again = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *saved = NULL;
  KmBodyItem *body;
  double q[5] = { 0.5, 0, 0, 0, 0 };

  project = load_text (path, text, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (km_project_get_messages (project)->len, ==, 0);
  body = KM_BODY_ITEM (test_util_find_item (km_project_get_root_item (project), "A"));
  g_assert_cmpstr (km_body_item_get_selected_joint (body), ==, "Elbow");

  /* Unchanged: as read. */
  saved = test_util_cnoid_to_string (project, path);
  g_assert_nonnull (strstr (saved, "        kinema_selected_joint: Elbow\n"
                                   "        my_plugin_key: kept\n"));
  g_clear_pointer (&saved, g_free);

  /* The selection alone: the data as read, with the new name. */
  km_body_item_set_selected_joint (body, "Shoulder");
  saved = test_util_cnoid_to_string (project, path);
  g_test_message ("%s", saved);
  g_assert_nonnull (strstr (saved, "        kinema_selected_joint: \"Shoulder\"\n"
                                   "        my_plugin_key: kept\n"));
  g_assert_null (strstr (saved, "Elbow"));
  g_assert_null (strstr (saved, "root_translation"));
  again = load_text (path, saved, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (km_body_item_get_selected_joint (KM_BODY_ITEM (
                     test_util_find_item (km_project_get_root_item (again), "A"))), ==, "Shoulder");
  g_clear_object (&again);
  g_clear_pointer (&saved, g_free);

  /* With a changed state: written with it. */
  km_body_item_set_joint_state (body, q, 5);
  saved = test_util_cnoid_to_string (project, path);
  g_assert_nonnull (strstr (saved, "        kinema_selected_joint: \"Shoulder\"\n"));
  g_assert_nonnull (strstr (saved, "        joint_displacements: "));
  g_assert_nonnull (strstr (saved, "        my_plugin_key: kept\n"));
  g_clear_pointer (&saved, g_free);

  /* None: no key. */
  km_body_item_set_selected_joint (body, NULL);
  g_assert_null (km_body_item_get_selected_joint (body));
  saved = test_util_cnoid_to_string (project, path);
  g_assert_null (strstr (saved, "kinema_selected_joint"));
  again = load_text (path, saved, &error);
  g_assert_no_error (error);
  g_assert_null (km_body_item_get_selected_joint (KM_BODY_ITEM (
                   test_util_find_item (km_project_get_root_item (again), "A"))));
}

/* A joint value set in degrees (−30°, held as km_deg_to_rad (−30) radians, as the editor
 * converts what is typed) is written as the shortest degree text that reads back to the
 * same radians, as the .body writer writes its degrees: "-30", not the
 * "-29.999999999999996" that radians × 180 / π gives; 0.8 rad is "45.83662361046586"
 * (the plain quotient 45.836623610465864 reads back an ulp off). Prismatic values stay in
 * metres. Read back, each value is the same double. */
static void
test_joint_values_shortest (void)
{
  static const char text[] =
    ARM_BODY_PROJECT
    "        joint_displacements: [ 10, 20, 30, 45, 0.25 ]\n";
  g_autofree char *path = data_path ("kinema/shortest.cnoid");
  g_autoptr(KmProject) project = NULL;
  g_autoptr(KmProject) again = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *saved = NULL;
  double q[5];
  const double *q2;
  KmItem *body;
  guint n = 0;

  q[0] = km_deg_to_rad (-30);
  q[1] = 0.8;
  q[2] = km_deg_to_rad (30);
  q[3] = km_deg_to_rad (-30);
  q[4] = 0.1;
  project = load_text (path, text, &error);
  g_assert_no_error (error);
  body = test_util_find_item (km_project_get_root_item (project), "A");
  g_assert_true (KM_IS_BODY_ITEM (body));
  km_body_item_set_joint_state (KM_BODY_ITEM (body), q, 5);
  saved = test_util_cnoid_to_string (project, path);
  g_test_message ("%s", saved);
  g_assert_nonnull (strstr (saved, "        joint_displacements: "
                                   "[ -30, 45.83662361046586, 30, -30, 0.1 ]\n"));

  again = load_text (path, saved, &error);
  g_assert_no_error (error);
  body = test_util_find_item (km_project_get_root_item (again), "A");
  q2 = km_body_item_get_joint_state (KM_BODY_ITEM (body), &n);
  g_assert_cmpuint (n, ==, 5);
  for (guint i = 0; i < 5; i++)
    g_assert_cmpmem (&q2[i], sizeof (double), &q[i], sizeof (double));
}

/* An item without "class" fails to load and is kept verbatim (DESIGN.md): written back
 * without a class key, not with an invented `class: ""`; one without "plugin" likewise. */
static void
test_no_class_kept (void)
{
  static const char text[] =
    "items:\n"
    "  id: 0\n"
    "  name: \"Root\"\n"
    "  plugin: Base\n"
    "  class: RootItem\n"
    "  children:\n"
    "    -\n"
    "      id: 3\n"
    "      name: \"noclass\"\n"
    "      plugin: Base\n"
    "    -\n"
    "      id: 4\n"
    "      name: \"noplugin\"\n"
    "      class: FolderItem\n";
  g_autofree char *path = data_path ("kinema/noclass.cnoid");
  g_autoptr(KmProject) project = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *saved = NULL;

  project = load_text (path, text, &error);
  g_assert_no_error (error);
  saved = test_util_cnoid_to_string (project, path);
  g_assert_cmpstr (saved, ==, text);
}

/* A body file that is there but cannot be read (a folder) is reported as the other
 * errors inside a file a project names are (DESIGN.md, "Error locations"): the file's
 * own location first, then "included from" where the project names it, not the inner
 * location inline after the project's. A missing file likewise (it was
 * "p.cnoid:7:72: nope.body:1:1: cannot read the file"), and so are the warnings of a
 * model the project loads (they had no "included from" line at all). */
static void
test_unreadable_body_located (void)
{
  g_autofree char *dir = km_test_make_tmp_dir ("cnoid-unreadable-XXXXXX");
  g_autofree char *folder = g_build_filename (dir, "model", NULL);
  g_autofree char *path = g_build_filename (dir, "p.cnoid", NULL);
  g_autofree char *folder_message = g_strdup_printf (
    "%s:1:1: cannot read the file: %s\nincluded from %s:6:72", folder, g_strerror (EISDIR),
    path);
  g_autofree char *missing_message = g_strdup_printf (
    "%s/nope.body:1:1: cannot read the file: %s\nincluded from %s:7:72", dir,
    g_strerror (ENOENT), path);
  g_autofree char *warned = g_build_filename (dir, "w.body", NULL);
  g_autofree char *warning_message = g_strdup_printf (
    "%s:8:17: AccelerationSensor devices are not modelled; skipped (their shapes are "
    "drawn)\nincluded from %s:8:72", warned, path);
  g_autoptr(KmProject) project = NULL;
  KmItem *body;

  g_assert_cmpint (g_mkdir (folder, 0755), ==, 0);
  g_assert_true (g_file_set_contents (warned,
    "format: ChoreonoidBody\nformat_version: 2.0\nname: w\nlinks:\n  - name: ROOT\n"
    "    joint_type: fixed\n    elements:\n      - { type: AccelerationSensor, name: acc }\n",
    -1, NULL));
  g_assert_true (g_file_set_contents (path,
    "items:\n"
    "  id: 0\n"
    "  plugin: Base\n"
    "  class: RootItem\n"
    "  children:\n"
    "    - { id: 1, name: \"y\", plugin: Body, class: BodyItem, data: { file: \"model\" } }\n"
    "    - { id: 2, name: \"z\", plugin: Body, class: BodyItem, data: { file: \"nope.body\" } }\n"
    "    - { id: 3, name: \"w\", plugin: Body, class: BodyItem, data: { file: \"w.body\" } }\n",
    -1, NULL));
  project = test_util_load_cnoid (path);
  for (guint i = 0; i < km_project_get_messages (project)->len; i++)
    g_test_message ("%s", (char *) g_ptr_array_index (km_project_get_messages (project), i));
  g_assert_true (test_util_has_message (project, folder_message));
  g_assert_true (test_util_has_message (project, missing_message));
  g_assert_true (test_util_has_message (project, warning_message));
  g_assert_cmpuint (km_project_get_messages (project)->len, ==, 3);
  /* The item's problem: the first line. */
  body = test_util_find_item (km_project_get_root_item (project), "y");
  g_assert_true (g_str_has_prefix (km_item_get_problem (body), folder));
  g_assert_null (strchr (km_item_get_problem (body), '\n'));
  body = test_util_find_item (km_project_get_root_item (project), "z");
  g_assert_true (g_str_has_prefix (km_item_get_problem (body), dir));
  g_assert_null (strchr (km_item_get_problem (body), '\n'));
  g_assert_cmpint (g_unlink (path), ==, 0);
  g_assert_cmpint (g_unlink (warned), ==, 0);
  g_assert_cmpint (g_rmdir (folder), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

static void
test_skeleton_body (void)
{
  g_autofree char *path = data_path ("kinema/arm.cnoid");
  g_autoptr(KmProject) project = test_util_load_cnoid (path);
  KmItem *root = km_project_get_root_item (project);
  KmBodyItem *arm = KM_BODY_ITEM (test_util_find_item (root, "Arm"));
  KmIkTargetsItem *targets = KM_IK_TARGETS_ITEM (test_util_find_item (root, "Targets"));
  KmIkTargetsItem *from_file =
    KM_IK_TARGETS_ITEM (test_util_find_item (root, "Targets from a file"));
  KmIkAnimationItem *motion = KM_IK_ANIMATION_ITEM (test_util_find_item (root, "Motion"));
  static const double expected[] = { 10, 20, 30, 45 };
  const KmTargetKeyframe *key;
  KmTargetTrack *track;
  KmAnimation *animation;
  KmTransform pose;
  const double *q;
  KmQuat r;
  guint n;

  g_assert_nonnull (km_body_item_get_skeleton (arm));
  q = km_body_item_get_joint_state (arm, &n);
  g_assert_cmpuint (n, ==, 5);
  for (guint i = 0; i < 4; i++)
    g_assert_cmpfloat_with_epsilon (q[i], expected[i] * G_PI / 180, 1e-15);
  g_assert_cmpfloat (q[4], ==, 0.25);   /* prismatic in metres under schema 2 */
  km_body_item_get_root_pose (arm, &pose);
  g_assert_cmpfloat (pose.pos.z, ==, 0.5);
  g_assert_cmpfloat_with_epsilon (pose.rot.m[1][0], 1, 1e-15);   /* 90° about z */
  g_assert_true (km_body_item_get_fix_root (arm));

  track = km_ik_targets_item_get_track (targets);
  g_assert_nonnull (track);
  g_assert_cmpuint (km_target_track_get_n_keyframes (track), ==, 2);
  g_assert_cmpstr (km_target_track_get_effector (track), ==, "EndEffector");
  g_assert_cmpfloat (km_target_track_get_frame_rate (track), ==, 24);
  key = km_target_track_get_keyframe (track, 1);
  g_assert_cmpuint (key->frame, ==, 12);
  g_assert_cmpfloat (key->position.x, ==, 0.5);
  r = km_quat_from_euler_xyz (km_vec3 (0, G_PI / 2, 0));
  g_assert_cmpfloat_with_epsilon (fabs (key->orientation.w * r.w + key->orientation.x * r.x +
                                        key->orientation.y * r.y + key->orientation.z * r.z),
                                  1, 1e-12);

  g_assert_cmpstr (km_ik_targets_item_get_file (from_file), ==, "targets.json");
  g_assert_cmpstr (km_item_get_file (KM_ITEM (from_file)), ==, "targets.json");
  track = km_ik_targets_item_get_track (from_file);
  g_assert_nonnull (track);
  g_assert_cmpuint (km_target_track_get_last_frame (track), ==, 10);

  animation = km_ik_animation_item_get_animation (motion);
  g_assert_nonnull (animation);
  g_assert_cmpuint (km_animation_get_n_frames (animation), ==, 2);
  g_assert_cmpfloat (km_animation_get_frame_rate (animation), ==, 24);
  g_assert_true (km_animation_get_skeleton (animation) == km_body_item_get_skeleton (arm));
  q = km_animation_get_frame (animation, 1);
  g_assert_cmpfloat (q[1], ==, 0.2);    /* Shoulder euler y */
  g_assert_cmpfloat (q[3], ==, 0.6);    /* Elbow */
  g_assert_cmpfloat (q[4], ==, 0.2);    /* Piston */
}

static void
test_edits_saved (void)
{
  g_autofree char *path = data_path ("kinema/arm.cnoid");
  g_autoptr(KmProject) project = test_util_load_cnoid (path);
  g_autoptr(KmProject) again = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(KmTargetTrack) track = NULL;
  g_autoptr(KmAnimation) animation = NULL;
  KmItem *root = km_project_get_root_item (project);
  KmBodyItem *arm = KM_BODY_ITEM (test_util_find_item (root, "Arm"));
  KmItem *targets = km_ik_targets_item_new ();
  KmItem *motion = km_ik_animation_item_new ();
  KmTargetKeyframe keys[] = {
    { 3, { 0.25, 1, 2 }, { 1, 0, 0, 0 } },
    { 7, { 0.5, 1, 2 }, { M_SQRT1_2, 0, 0, M_SQRT1_2 } },
    { 9, { 0.5, 1, 2 }, { 1, 0, 0, 0 } },
  };
  double q[5] = { 0.1, 0.2, 0.3, 0.4, 0.05 };
  g_autofree char *text = NULL;
  KmItem *root2;

  keys[2].orientation = km_quat_from_euler_xyz (km_vec3 (0, 0, km_deg_to_rad (-120)));
  km_body_item_set_joint_state (arm, q, 5);
  track = km_target_track_new (keys, G_N_ELEMENTS (keys), "Elbow", 60, &error);
  g_assert_no_error (error);
  km_ik_targets_item_set_track (KM_IK_TARGETS_ITEM (targets), track);
  km_item_set_name (targets, "New targets");
  km_item_append_child (KM_ITEM (arm), targets);
  animation = km_animation_new (km_body_item_get_skeleton (arm), 3);
  km_animation_set_frame (animation, 2, q);
  km_ik_animation_item_set_animation (KM_IK_ANIMATION_ITEM (motion), animation);
  km_item_set_name (motion, "New motion");
  km_item_append_child (KM_ITEM (arm), motion);
  g_object_unref (targets);
  g_object_unref (motion);

  text = test_util_cnoid_to_string (project, path);
  g_assert_nonnull (strstr (text, "            schema: 2\n"));
  g_assert_nonnull (strstr (text, "                frame_rate: 60\n"));
  g_assert_nonnull (strstr (text, "                  - { frame: 7, pos: [ 0.5, 1, 2 ], euler: [ 0, 0, 90"));
  /* The angles from the rotation: the shortest degrees that read back as the same
   * radians, as the .body writer writes them ("-120", not "-119.99999999999999"). */
  g_assert_nonnull (strstr (text, "                  - { frame: 9, pos: [ 0.5, 1, 2 ], "
                                  "euler: [ 0, 0, -120 ] }\n"));
  again = load_text (path, text, &error);
  g_assert_no_error (error);
  root2 = km_project_get_root_item (again);
  {
    KmBodyItem *arm2 = KM_BODY_ITEM (test_util_find_item (root2, "Arm"));
    KmTargetTrack *track2 =
      km_ik_targets_item_get_track (KM_IK_TARGETS_ITEM (test_util_find_item (root2,
                                                                             "New targets")));
    KmAnimation *animation2 =
      km_ik_animation_item_get_animation (
        KM_IK_ANIMATION_ITEM (test_util_find_item (root2, "New motion")));
    const double *q2 = km_body_item_get_joint_state (arm2, NULL);

    for (guint i = 0; i < 5; i++)
      g_assert_cmpfloat_with_epsilon (q2[i], q[i], 1e-12);
    g_assert_true (km_target_track_equal (track, track2, 1e-12));
    g_assert_true (km_animation_equal (animation, animation2, 1e-12));
  }
  g_assert_cmpuint (km_project_get_messages (again)->len, ==, 0);
}

/* A long solved animation in a project: its inline frames are some 26 YAML nodes a frame
 * for the arm's 5 values, over the reader's node limit from 161,000 frames (4.25 M values,
 * 850,000 frames, load as well but take two minutes to write and read here); the project
 * reopens with the same frames (they are read as a table, see km-cnoid.c), is saved again
 * from what was read, and an error in a late frame is where it was. */
static void
test_long_animation (void)
{
  const char *preload = g_getenv ("LD_PRELOAD");
  g_autofree char *path = data_path ("kinema/arm.cnoid");
  g_autoptr(KmProject) project = test_util_load_cnoid (path);
  g_autoptr(KmProject) again = NULL;
  g_autoptr(KmProject) third = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(KmAnimation) animation = NULL;
  g_autofree char *text = NULL;
  g_autofree char *text2 = NULL;
  g_autofree char *bad = NULL;
  KmItem *root = km_project_get_root_item (project);
  KmBodyItem *arm = KM_BODY_ITEM (test_util_find_item (root, "Arm"));
  KmItem *motion = km_ik_animation_item_new ();
  KmAnimation *animation2;
  guint n_frames = 170000;   /* 4.4 M nodes as a tree (0.85 M values) */
  const guint checked[] = { 0, 1, 2345, 123457, 169999 };
  char *at;

  /* Under AddressSanitizer or valgrind the reading takes minutes: the same reading with
   * fewer frames, under the node limit. */
#if defined(__SANITIZE_ADDRESS__)
  n_frames = 3000;
#endif
  if (preload != NULL && strstr (preload, "vgpreload") != NULL)
    n_frames = 3000;

  animation = km_animation_new (km_body_item_get_skeleton (arm), n_frames);
  for (guint f = 0; f < n_frames; f++)
    {
      double q[5];

      for (guint k = 0; k < 5; k++)
        q[k] = (f % 1000) * 0.001 + k + (f / 1000) * 1e-7;
      km_animation_set_frame (animation, f, q);
    }
  km_animation_set_frame_rate (animation, 1000);
  km_ik_animation_item_set_animation (KM_IK_ANIMATION_ITEM (motion), animation);
  km_item_set_name (motion, "Long motion");
  km_item_append_child (KM_ITEM (arm), motion);
  g_object_unref (motion);

  text = test_util_cnoid_to_string (project, path);
  again = load_text (path, text, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (km_project_get_messages (again)->len, ==, 0);
  animation2 = km_ik_animation_item_get_animation (
    KM_IK_ANIMATION_ITEM (test_util_find_item (km_project_get_root_item (again), "Long motion")));
  g_assert_nonnull (animation2);
  g_assert_cmpuint (km_animation_get_n_frames (animation2), ==, n_frames);
  g_assert_cmpfloat (km_animation_get_frame_rate (animation2), ==, 1000);
  for (guint i = 0; i < G_N_ELEMENTS (checked); i++)
    {
      guint f = MIN (checked[i], n_frames - 1);
      const double *a = km_animation_get_frame (animation, f);
      const double *b = km_animation_get_frame (animation2, f);

      for (guint k = 0; k < 5; k++)
        g_assert_cmpfloat (a[k], ==, b[k]);
    }

  /* Saved unchanged: the frames are written again from the animation, not lost. */
  text2 = test_util_cnoid_to_string (again, path);
  g_assert_cmpstr (text2, ==, text);

  /* A bad value in the last frame: the error of a tree, at its place. */
  bad = g_strdup (text);
  at = g_strrstr (bad, "angle: ");
  g_assert_nonnull (at);
  memcpy (at + strlen ("angle: "), "x", 1);
  {
    g_autoptr(GError) local = NULL;
    g_autofree char *prefix = NULL;
    guint line = 1, column = 1;

    for (const char *c = bad; c < at + strlen ("angle: "); c++)
      if (*c == '\n')
        line++, column = 1;
      else
        column++;
    prefix = g_strdup_printf ("%s:%u:%u: expected a finite number", path, line, column);
    third = load_text (path, bad, &local);
    if (third != NULL)
      {
        /* Under the node limit: the item is kept as it is, the error reported. */
        g_assert_cmpuint (km_project_get_messages (third)->len, >=, 1);
        g_assert_true (g_str_has_prefix (g_ptr_array_index (km_project_get_messages (third), 0),
                                         prefix));
      }
    else
      {
        /* Over it, the project cannot be kept as a tree: the frame's error, not the limit. */
        g_assert_nonnull (local);
        g_assert_true (g_str_has_prefix (local->message, prefix));
      }
  }
}

/* Adds to @arm (the 5-joint arm of kinema/arm.cnoid) an IK animation item of @n_frames
 * frames, frame f joint k at f * 1e-5 + k, called @name (nullable: none given). */
static void
add_long_motion (KmBodyItem *arm,
                 guint       n_frames,
                 const char *name)
{
  g_autoptr(KmAnimation) animation = km_animation_new (km_body_item_get_skeleton (arm),
                                                        n_frames);
  KmItem *motion = km_ik_animation_item_new ();

  for (guint f = 0; f < n_frames; f++)
    {
      double q[5];

      for (guint k = 0; k < 5; k++)
        q[k] = f * 1e-5 + k;
      km_animation_set_frame (animation, f, q);
    }
  km_ik_animation_item_set_animation (KM_IK_ANIMATION_ITEM (motion), animation);
  if (name != NULL)
    km_item_set_name (motion, name);
  km_item_append_child (KM_ITEM (arm), motion);
  g_object_unref (motion);
}

/* A long animation is written a frame at a time: saving a project with 100,000 inline
 * frames (2.6 M nodes as a tree, gigabytes at a million frames) holds a few nodes of the
 * frames at once, read again from what was written and whatever the frames were read as. */
static void
test_long_animation_memory (void)
{
  g_autofree char *path = data_path ("kinema/arm.cnoid");
  g_autoptr(KmProject) project = test_util_load_cnoid (path);
  g_autoptr(KmProject) again = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *text2 = NULL;
  g_autofree char *last = NULL;
  KmItem *root = km_project_get_root_item (project);
  KmBodyItem *arm = KM_BODY_ITEM (test_util_find_item (root, "Arm"));
  guint n_frames = 100000;
  guint live;
  guint peak;

#if defined(__SANITIZE_ADDRESS__)
  n_frames = 10000;
#endif
  add_long_motion (arm, n_frames, "Long motion");

  /* The frames built as a tree would be 26 nodes a frame; the rest of the project is a
   * few hundred. */
  km_yaml_node_get_counts (&live, NULL);
  km_yaml_node_reset_peak ();
  text = test_util_cnoid_to_string (project, path);
  km_yaml_node_get_counts (NULL, &peak);
  g_test_message ("nodes alive at once while writing: %u", peak - live);
  g_assert_cmpuint (peak - live, <, 2000);
  last = g_strdup_printf ("\n                  - { frame: %u, joints: ", n_frames - 1);
  g_assert_nonnull (strstr (text, last));

  /* Read again (as a table) and saved unchanged: the same text, the same way. */
  again = load_text (path, text, &error);
  g_assert_no_error (error);
  km_yaml_node_get_counts (&live, NULL);
  km_yaml_node_reset_peak ();
  text2 = test_util_cnoid_to_string (again, path);
  km_yaml_node_get_counts (NULL, &peak);
  g_assert_cmpuint (peak - live, <, 2000);
  g_assert_cmpstr (text2, ==, text);
}

/* The items of a generated sequence that note, as each is built, the size of the file a
 * save into @dir is writing (its temporary file, "NAME.XXXXXX"); nothing while @dir is
 * NULL. */
typedef struct
{
  const char *dir;
  const char *name;
  GArray     *sizes;   /* goffset, one for each item built */
  guint       n_built;
} DiskProbe;

static KmYamlNode *
disk_probe_item (gpointer data,
                 guint    index)
{
  DiskProbe *probe = data;
  g_autoptr(GDir) dir = NULL;
  g_autofree char *prefix = NULL;
  goffset size = -1;
  const char *name;

  probe->n_built++;
  if (probe->dir == NULL)
    return km_yaml_node_new_int (index);
  prefix = g_strconcat (probe->name, ".", NULL);
  dir = g_dir_open (probe->dir, 0, NULL);
  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    if (g_str_has_prefix (name, prefix))
      {
        g_autofree char *path = g_build_filename (probe->dir, name, NULL);
        GStatBuf st;

        g_assert_cmpint (size, ==, -1);
        g_assert_cmpint (g_stat (path, &st), ==, 0);
        size = st.st_size;
      }
  g_assert_cmpint (size, >=, 0);
  g_array_append_val (probe->sizes, size);
  return km_yaml_node_new_int (index);
}

/* km_cnoid_save() writes a long animation's project as it makes it (km_cnoid_tree_save()):
 * the bytes km_cnoid_tree_to_string() makes, with a few nodes alive at once, and the
 * text goes to the file as it is made: a probe put in the root item after its children
 * (and the long animation) finds all but at most two buffers of the text before it in
 * the file already. */
static void
test_long_animation_saved (void)
{
  g_autofree char *path = data_path ("kinema/arm.cnoid");
  g_autoptr(KmProject) project = test_util_load_cnoid (path);
  g_autoptr(KmYamlNode) tree = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-cnoid-XXXXXX");
  g_autofree char *saved = g_build_filename (dir, "arm.cnoid", NULL);
  g_autofree char *copy = g_build_filename (dir, "copy.cnoid", NULL);
  g_autofree char *text = NULL;
  g_autofree char *written = NULL;
  g_autofree char *written_copy = NULL;
  KmItem *root = km_project_get_root_item (project);
  KmBodyItem *arm = KM_BODY_ITEM (test_util_find_item (root, "Arm"));
  g_autoptr(KmYamlNode) probed = NULL;
  g_autoptr(GArray) sizes = g_array_new (FALSE, FALSE, sizeof (goffset));
  DiskProbe probe = { NULL, "copy.cnoid", sizes, 0 };
  const char *probe_at;
  guint n_frames = 20000;
  gsize length = 0;
  guint live;
  guint peak;

  add_long_motion (arm, n_frames, NULL);

  tree = km_cnoid_build_tree (project, copy, NULL);
  /* The same tree with the probe last in the root item (the nodes shared, not changed). */
  {
    KmYamlNode *items = km_yaml_node_new_mapping (KM_YAML_STYLE_BLOCK);
    KmYamlNode *old_items = km_yaml_mapping_lookup (tree, "items");

    probed = km_yaml_node_new_mapping (KM_YAML_STYLE_BLOCK);
    g_assert_cmpint (km_yaml_node_get_kind (old_items), ==, KM_YAML_MAPPING);
    for (guint i = 0; i < km_yaml_node_get_length (old_items); i++)
      km_yaml_mapping_append_node (items, km_yaml_node_ref (km_yaml_mapping_get_key (old_items, i)),
                                   km_yaml_node_ref (km_yaml_mapping_get_value (old_items, i)));
    km_yaml_mapping_append (items, "probe",
                            km_yaml_node_new_generated (10, disk_probe_item, &probe, NULL));
    for (guint i = 0; i < km_yaml_node_get_length (tree); i++)
      {
        KmYamlNode *key = km_yaml_mapping_get_key (tree, i);

        km_yaml_mapping_append_node (probed, km_yaml_node_ref (key),
                                     g_strcmp0 (km_yaml_node_get_scalar (key, NULL), "items") == 0
                                     ? km_yaml_node_ref (items)
                                     : km_yaml_node_ref (km_yaml_mapping_get_value (tree, i)));
      }
    km_yaml_node_unref (items);
  }
  text = km_cnoid_tree_to_string (probed, &length);
  g_assert_cmpuint (length, >, 16 * KM_FORMAT_SINK_BUFFER_SIZE);
  probe_at = strstr (text, "\n  probe:\n");
  g_assert_nonnull (probe_at);
  g_assert_cmpuint (probe_at - text, >, 16 * KM_FORMAT_SINK_BUFFER_SIZE);
  km_yaml_node_get_counts (&live, NULL);
  km_yaml_node_reset_peak ();
  probe.dir = dir;
  g_assert_true (km_cnoid_tree_save (probed, "# head\n", copy, 0666, &error));
  g_assert_no_error (error);
  probe.dir = NULL;
  km_yaml_node_get_counts (NULL, &peak);
  g_assert_cmpuint (peak - live, <, 2000);
  g_assert_cmpuint (probe.sizes->len, ==, 10);
  for (guint i = 0; i < probe.sizes->len; i++)
    g_assert_cmpint (g_array_index (probe.sizes, goffset, i) + 2 * KM_FORMAT_SINK_BUFFER_SIZE,
                     >=, (goffset) strlen ("# head\n") + (probe_at - text));
  g_assert_true (g_file_get_contents (copy, &written_copy, NULL, NULL));
  g_assert_true (g_str_has_prefix (written_copy, "# head\n"));
  g_assert_cmpstr (written_copy + strlen ("# head\n"), ==, text);

  /* Onto a full disk the save stops at the first write that fails: the rest of the text
   * (the probe and what follows) is not made. */
  if (g_file_test ("/dev/full", G_FILE_TEST_EXISTS))
    {
      probe.n_built = 0;
      g_assert_false (km_cnoid_tree_save (probed, NULL, "/dev/full", 0666, &error));
      g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOSPC);
      g_clear_error (&error);
      g_assert_cmpuint (probe.n_built, ==, 0);
    }

  g_clear_pointer (&text, g_free);
  text = km_cnoid_to_string (project, saved, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (km_cnoid_save (project, saved, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (saved, &written, NULL, NULL));
  g_assert_cmpstr (written, ==, text);
  g_unlink (saved);
  g_unlink (copy);
  g_rmdir (dir);
}

/* `frames` after a `frame_rate` in another item's data (here an unknown one, kept as it
 * is) are no IK animation's: the project is read again as a tree, and nothing is lost. */
static void
test_frames_not_animation (void)
{
  static const char text[] =
    "items:\n"
    "  id: 0\n  name: Root\n  plugin: Base\n  class: RootItem\n"
    "  children:\n"
    "    - id: 1\n      name: Other\n      plugin: Foo\n      class: BarItem\n"
    "      data:\n        frame_rate: 10\n        frames: [ 1, 2, [ 3 ] ]\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(KmProject) project = load_text ("p.cnoid", text, &error);
  g_autofree char *saved = NULL;

  g_assert_no_error (error);
  saved = km_cnoid_to_string (project, "p.cnoid", NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (saved, "frames: [ 1, 2, [ 3 ] ]"));
}

/* Save As into another folder: relative references (known and unknown items alike) must
 * still reach the same files, also on a second save from the same loaded project. */
static void
test_save_elsewhere (void)
{
  g_autofree char *path = data_path ("kinema/arm.cnoid");
  g_autofree char *tmp = km_test_make_tmp_dir ("kinema-cnoid-XXXXXX");
  g_autofree char *first = g_build_filename (tmp, "first.cnoid", NULL);
  g_autofree char *second = g_build_filename (tmp, "second.cnoid", NULL);
  g_autoptr(KmProject) project = test_util_load_cnoid (path);
  g_autoptr(GError) error = NULL;
  const char *saved[] = { first, second };

  g_assert_true (km_cnoid_save (project, first, &error));
  g_assert_no_error (error);
  g_assert_true (km_cnoid_save (project, second, &error));
  g_assert_no_error (error);

  for (guint i = 0; i < G_N_ELEMENTS (saved); i++)
    {
      g_autoptr(KmProject) again = test_util_load_cnoid (saved[i]);
      KmItem *root = km_project_get_root_item (again);
      KmItem *arm = test_util_find_item (root, "Arm");
      KmItem *from_file = test_util_find_item (root, "Targets from a file");

      g_assert_null (km_item_get_problem (arm));
      g_assert_nonnull (km_body_item_get_skeleton (KM_BODY_ITEM (arm)));
      g_assert_null (km_item_get_problem (from_file));
      g_assert_nonnull (km_ik_targets_item_get_track (KM_IK_TARGETS_ITEM (from_file)));
      g_unlink (saved[i]);
    }
  g_rmdir (tmp);
}

/* ---- File references written for the folder the project is saved in ---- */

static void
put_file (const char *root,
          const char *relative,
          const char *contents)
{
  g_autofree char *path = g_build_filename (root, relative, NULL);
  g_autofree char *dir = g_path_get_dirname (path);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (path, contents, -1, NULL));
}

static void
make_parent (const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
}

static void
copy_to (const char *from,
         const char *root,
         const char *relative)
{
  g_autofree char *text = test_util_read_file (from, NULL);

  put_file (root, relative, text);
}

/* The arm model and its targets (tests/data/cnoid/kinema) under @root/@folder. */
static void
put_models (const char *root,
            const char *folder)
{
  g_autofree char *arm = data_path ("kinema/arm.json");
  g_autofree char *targets = data_path ("kinema/targets.json");
  g_autofree char *arm_to = g_build_filename (folder, "arm.json", NULL);
  g_autofree char *targets_to = g_build_filename (folder, "targets.json", NULL);

  copy_to (arm, root, arm_to);
  copy_to (targets, root, targets_to);
}

/* A project with the arm (@body), targets from a file (@targets) and an item Kinema does
 * not know, with its file (@pose_seq). */
static char *
paths_project (const char *body,
               const char *targets,
               const char *pose_seq)
{
  return g_strdup_printf ("items:\n"
                          "  id: 0\n"
                          "  name: \"RootItem\"\n"
                          "  plugin: Base\n"
                          "  class: RootItem\n"
                          "  is_builtin_item: true\n"
                          "  children:\n"
                          "    -\n"
                          "      id: 1\n"
                          "      name: \"Arm\"\n"
                          "      plugin: Body\n"
                          "      class: BodyItem\n"
                          "      data:\n"
                          "        file: \"%s\"\n"
                          "        format: SKELETON-JSON\n"
                          "      children:\n"
                          "        -\n"
                          "          id: 2\n"
                          "          name: \"Targets\"\n"
                          "          plugin: Kinema\n"
                          "          class: IKTargetsItem\n"
                          "          data:\n"
                          "            file: \"%s\"\n"
                          "            format: KINEMA-TARGETS-JSON\n"
                          "        -\n"
                          "          id: 3\n"
                          "          name: \"Walk\"\n"
                          "          plugin: PoseSeq\n"
                          "          class: PoseSeqItem\n"
                          "          data:\n"
                          "            filename: \"%s\"\n"
                          "            format: POSE-SEQ-YAML\n",
                          body, targets, pose_seq);
}

/* The file @reference names in the project @project_path, as the reader resolves it. */
static char *
resolve_in (const char *project_path,
            const char *share,
            const char *reference)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_path_get_dirname (project_path);
  KmItemIo io = { .file = project_path, .dir = dir, .share_dir = share };
  char *path = km_item_io_expand_path (&io, reference, &error);

  g_assert_no_error (error);
  return path;
}

/* The project at @path (read with ${SHARE} @share) has the arm loaded from @arm, its
 * targets from @targets and names @pose_seq for the pose sequence (canonical paths). */
static void
assert_paths_project (const char *path,
                      const char *share,
                      const char *arm,
                      const char *targets,
                      const char *pose_seq)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(KmProject) project = km_cnoid_load_full (path, NULL, share, &error);
  KmItem *root;
  KmItem *body;
  KmItem *from_file;
  KmItem *walk;
  g_autofree char *arm_read = NULL;
  g_autofree char *targets_read = NULL;
  g_autofree char *pose_seq_read = NULL;

  g_assert_no_error (error);
  root = km_project_get_root_item (project);
  body = test_util_find_item (root, "Arm");
  from_file = test_util_find_item (root, "Targets");
  walk = test_util_find_item (root, "Walk");
  /* The one message: the stand-in pose sequence file is found but holds no pose sequence. */
  g_assert_cmpuint (km_project_get_messages (project)->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (km_project_get_messages (project), 0),
                            "walk.pseq:1:1: "));
  g_assert_null (km_item_get_problem (body));
  g_assert_nonnull (km_body_item_get_skeleton (KM_BODY_ITEM (body)));
  g_assert_null (km_item_get_problem (from_file));
  g_assert_nonnull (km_ik_targets_item_get_track (KM_IK_TARGETS_ITEM (from_file)));

  arm_read = resolve_in (path, share, km_body_item_get_file (KM_BODY_ITEM (body)));
  targets_read = resolve_in (path, share,
                             km_ik_targets_item_get_file (KM_IK_TARGETS_ITEM (from_file)));
  pose_seq_read = resolve_in (path, share, km_pose_seq_item_get_file (KM_POSE_SEQ_ITEM (walk)));
  g_assert_cmpstr (arm_read, ==, arm);
  g_assert_cmpstr (targets_read, ==, targets);
  g_assert_cmpstr (pose_seq_read, ==, pose_seq);
}

/* Saved into another folder, a project whose models lie in a sibling folder refers to
 * them with "../": the folders moved together, it still finds them. */
static void
test_save_sibling_folder (void)
{
  g_autofree char *tmp = km_test_make_tmp_dir ("cnoid-paths-XXXXXX");
  g_autofree char *root = g_canonicalize_filename (tmp, NULL);
  g_autofree char *moved_tmp = km_test_make_tmp_dir ("cnoid-moved-XXXXXX");
  g_autofree char *moved = g_canonicalize_filename (moved_tmp, NULL);
  g_autofree char *targets_abs = g_build_filename (root, "models", "targets.json", NULL);
  g_autofree char *text_in = paths_project ("../models/arm.json", targets_abs,
                                            "../motion/walk.pseq");
  g_autofree char *source = g_build_filename (root, "project", "arm.cnoid", NULL);
  g_autofree char *saved = g_build_filename (root, "saved", "arm.cnoid", NULL);
  g_autofree char *moved_project = g_build_filename (moved, "saved", "arm.cnoid", NULL);
  g_autofree char *text = NULL;
  g_autofree char *in_place = NULL;
  g_autoptr(KmProject) project = NULL;
  g_autoptr(GError) error = NULL;

  put_models (root, "models");
  put_file (root, "motion/walk.pseq", "# a pose sequence\n");
  put_file (root, "project/arm.cnoid", text_in);
  make_parent (saved);
  project = test_util_load_cnoid (source);
  g_assert_nonnull (km_body_item_get_skeleton (KM_BODY_ITEM (
    test_util_find_item (km_project_get_root_item (project), "Arm"))));

  g_assert_true (km_cnoid_save (project, saved, &error));
  g_assert_no_error (error);
  text = test_util_read_file (saved, NULL);
  g_assert_nonnull (strstr (text, "        file: \"../models/arm.json\"\n"));
  /* The absolute reference too: Save As writes every reference for the new place. */
  g_assert_nonnull (strstr (text, "            file: \"../models/targets.json\"\n"));
  g_assert_nonnull (strstr (text, "            filename: \"../motion/walk.pseq\"\n"));
  g_assert_null (strstr (text, root));
  /* In memory the items keep their references as read: they stay relative to the folder
   * the project came from, which is what reading an item's file again must use. */
  {
    g_autofree char *source_dir = g_path_get_dirname (source);
    g_autofree char *reference_dir = km_cnoid_reference_dir (project);

    g_assert_cmpstr (km_project_get_file (project), ==, saved);
    g_assert_cmpstr (reference_dir, ==, source_dir);
  }
  /* Saved where it was read from, the references stay as they were read. */
  in_place = test_util_cnoid_to_string (project, source);
  g_assert_cmpstr (in_place, ==, text_in);

  /* Both folders moved to another root, the old one gone: the copy still finds all. */
  {
    g_autofree char *arm = g_build_filename (moved, "models", "arm.json", NULL);
    g_autofree char *targets = g_build_filename (moved, "models", "targets.json", NULL);
    g_autofree char *pose_seq = g_build_filename (moved, "motion", "walk.pseq", NULL);

    copy_to (saved, moved, "saved/arm.cnoid");
    put_models (moved, "models");
    put_file (moved, "motion/walk.pseq", "# a pose sequence\n");
    km_test_remove_tree (root);
    g_assert_false (g_file_test (root, G_FILE_TEST_EXISTS));
    assert_paths_project (moved_project, NULL, arm, targets, pose_seq);
  }

  /* A file inside the new folder is relative without "../" (as Choreonoid writes it). */
  {
    g_autofree char *arm = g_build_filename (moved, "saved", "models", "arm.json", NULL);
    g_autofree char *targets = g_build_filename (moved, "models", "targets.json", NULL);
    g_autofree char *pose_seq = g_build_filename (moved, "motion", "walk.pseq", NULL);
    g_autofree char *deeper = g_build_filename (moved, "saved", "deeper", "arm.cnoid", NULL);
    g_autoptr(KmProject) inside = NULL;
    g_autofree char *inside_text = NULL;

    put_models (moved, "saved/models");
    g_clear_pointer (&text_in, g_free);
    text_in = paths_project (arm, "../models/targets.json", "../motion/walk.pseq");
    put_file (moved, "saved/arm.cnoid", text_in);
    inside = test_util_load_cnoid (moved_project);
    make_parent (deeper);
    g_assert_true (km_cnoid_save (inside, deeper, &error));
    g_assert_no_error (error);
    inside_text = test_util_read_file (deeper, NULL);
    g_assert_nonnull (strstr (inside_text, "        file: \"../models/arm.json\"\n"));
    g_assert_nonnull (strstr (inside_text, "            file: \"../../models/targets.json\"\n"));
    g_assert_nonnull (strstr (inside_text, "            filename: \"../../motion/walk.pseq\"\n"));
    assert_paths_project (deeper, NULL, arm, targets, pose_seq);

    /* Saved at the top of the moved tree: every file is inside its folder. */
    g_clear_pointer (&deeper, g_free);
    g_clear_pointer (&inside_text, g_free);
    deeper = g_build_filename (moved, "top.cnoid", NULL);
    g_assert_true (km_cnoid_save (inside, deeper, &error));
    g_assert_no_error (error);
    inside_text = test_util_read_file (deeper, NULL);
    g_assert_nonnull (strstr (inside_text, "        file: \"saved/models/arm.json\"\n"));
    g_assert_nonnull (strstr (inside_text, "            file: \"models/targets.json\"\n"));
    g_assert_nonnull (strstr (inside_text, "            filename: \"motion/walk.pseq\"\n"));
    assert_paths_project (deeper, NULL, arm, targets, pose_seq);
  }
  km_test_remove_tree (moved);
}

/* "../" only climbs to a folder worth moving as a whole: not out of the home folder (a
 * file in it, from a project outside it, is then ${HOME}/…; test-cnoid-paths has the
 * rest), not to a top-level folder such as /tmp (then absolute), and not through a
 * symbolic link, where Choreonoid's ".." is not the lexical parent. Within the home
 * folder it climbs as far as $HOME itself. */
static void
test_save_climb_limits (void)
{
  g_autofree char *home = g_canonicalize_filename (g_get_home_dir (), NULL);
  g_autofree char *tmp = km_test_make_tmp_dir ("cnoid-paths-XXXXXX");
  g_autofree char *root = g_canonicalize_filename (tmp, NULL);
  g_autofree char *other_tmp = km_test_make_tmp_dir ("cnoid-other-XXXXXX");
  g_autofree char *other = g_canonicalize_filename (other_tmp, NULL);
  g_autofree char *home_arm = g_build_filename (home, "models", "arm.json", NULL);
  g_autofree char *home_targets = g_build_filename (home, "models", "targets.json", NULL);
  g_autofree char *pose_seq = g_build_filename (root, "motion", "walk.pseq", NULL);
  g_autofree char *text_in = paths_project ("../models/arm.json", "../models/targets.json",
                                            pose_seq);
  g_autofree char *source = g_build_filename (home, "project", "arm.cnoid", NULL);
  g_autofree char *saved = g_build_filename (home, "elsewhere", "arm.cnoid", NULL);
  g_autofree char *in_other = g_build_filename (other, "arm.cnoid", NULL);
  g_autofree char *text = NULL;
  g_autoptr(KmProject) project = NULL;
  g_autoptr(GError) error = NULL;

  /* The temporary folders are not inside the (test's) home folder. */
  g_assert_null (strstr (root, home));
  put_models (home, "models");
  put_file (home, "project/arm.cnoid", text_in);
  put_file (root, "motion/walk.pseq", "# a pose sequence\n");
  project = test_util_load_cnoid (source);

  /* Home folder → home folder: "../models/…", up to the home folder and no further. */
  make_parent (saved);
  g_assert_true (km_cnoid_save (project, saved, &error));
  g_assert_no_error (error);
  text = test_util_read_file (saved, NULL);
  g_assert_nonnull (strstr (text, "        file: \"../models/arm.json\"\n"));
  g_assert_nonnull (strstr (text, "            file: \"../models/targets.json\"\n"));
  assert_paths_project (saved, NULL, home_arm, home_targets, pose_seq);
  g_clear_pointer (&text, g_free);

  /* Two temporary folders, both outside the home folder, have only the temporary folder
   * in common: a top-level one (/tmp) is no folder to climb to, and the pose sequence
   * stays absolute; a deeper one (TMPDIR=/var/tmp) is, though it holds the test's home
   * folder (G_TEST_OPTION_ISOLATE_DIRS): neither file is inside that. The models, in the
   * home folder, are ${HOME}/… from outside it. */
  g_assert_true (km_cnoid_save (project, in_other, &error));
  g_assert_no_error (error);
  text = test_util_read_file (in_other, NULL);
  {
    g_autofree char *tmp_dir = g_canonicalize_filename (g_get_tmp_dir (), NULL);
    g_autofree char *tmp_parent = g_path_get_dirname (tmp_dir);
    g_autofree char *climbed = g_strdup_printf ("../%s/motion/walk.pseq",
                                                root + strlen (tmp_dir) + 1);
    g_autofree char *expected = g_strdup_printf ("            filename: \"%s\"\n",
                                                 strcmp (tmp_parent, "/") == 0 ? pose_seq
                                                                               : climbed);

    g_assert_true (g_str_has_prefix (root, tmp_dir));
    g_assert_nonnull (strstr (text, expected));
    g_assert_nonnull (strstr (text, "        file: \"${HOME}/models/arm.json\"\n"));
  }
  assert_paths_project (in_other, NULL, home_arm, home_targets, pose_seq);
  g_clear_pointer (&text, g_free);

  /* A folder reached through a link: ROOT/link is ROOT/real/deep, so "../motion" from
   * there is ROOT/real/motion on the file system, not ROOT/motion. */
  {
    g_autofree char *real = g_build_filename (root, "real", "deep", NULL);
    g_autofree char *link = g_build_filename (root, "link", NULL);
    g_autofree char *linked = g_build_filename (link, "arm.cnoid", NULL);
    g_autofree char *expected = g_strdup_printf ("            filename: \"%s\"\n", pose_seq);

    g_assert_cmpint (g_mkdir_with_parents (real, 0755), ==, 0);
    g_assert_cmpint (symlink (real, link), ==, 0);
    g_assert_true (km_cnoid_save (project, linked, &error));
    g_assert_no_error (error);
    text = test_util_read_file (linked, NULL);
    g_assert_nonnull (strstr (text, expected));
    assert_paths_project (linked, NULL, home_arm, home_targets, pose_seq);
  }
  km_test_remove_tree (root);
  km_test_remove_tree (other);
}

/* ${SHARE}/… (and ${PROGRAM_TOP}/…) references survive a Save As into another folder as
 * they were read, though "../" would reach the same files, while ${SHARE} resolves from
 * the new place (KINEMA_CHOREONOID_SHARE, or the share folder given to the load); files
 * under the share folder referenced otherwise become ${SHARE}/… (as Choreonoid writes
 * them). ${SHARE} found only from the old place (the share/ above share/project/) is
 * not kept: the reader of the moved file would not know it. */
static void
test_save_share_round_trip (void)
{
  g_autofree char *tmp = km_test_make_tmp_dir ("cnoid-paths-XXXXXX");
  g_autofree char *root = g_canonicalize_filename (tmp, NULL);
  g_autofree char *share = g_build_filename (root, "share", NULL);
  g_autofree char *arm = g_build_filename (share, "model", "arm", "arm.json", NULL);
  g_autofree char *targets = g_build_filename (share, "model", "arm", "targets.json", NULL);
  g_autofree char *pose_seq = g_build_filename (share, "motion", "walk.pseq", NULL);
  g_autofree char *text_in = paths_project ("${SHARE}/model/arm/arm.json", targets,
                                            "../motion/walk.pseq");
  g_autofree char *top_text = paths_project ("${PROGRAM_TOP}/share/model/arm/arm.json",
                                             "${SHARE}/model/arm/targets.json",
                                             "${SHARE}/motion/walk.pseq");
  g_autofree char *source = g_build_filename (share, "project", "arm.cnoid", NULL);
  g_autofree char *saved = g_build_filename (root, "elsewhere", "arm.cnoid", NULL);
  g_autofree char *text = NULL;
  g_autofree char *in_place = NULL;
  g_autoptr(KmProject) project = NULL;
  g_autoptr(GError) error = NULL;

  g_unsetenv ("KINEMA_CHOREONOID_SHARE");
  put_models (share, "model/arm");
  put_file (share, "motion/walk.pseq", "# a pose sequence\n");
  put_file (share, "project/arm.cnoid", text_in);
  make_parent (saved);
  /* ${SHARE}: the share/ above the project's share/project/ folder. */
  project = test_util_load_cnoid (source);
  in_place = test_util_cnoid_to_string (project, source);
  g_assert_cmpstr (in_place, ==, text_in);

  /* Moved out of share/project/, with no share folder set: ${SHARE} would not resolve
   * there, so the files are reached with "../" (the next rule that leads to them). */
  g_assert_true (km_cnoid_save (project, saved, &error));
  g_assert_no_error (error);
  text = test_util_read_file (saved, NULL);
  g_assert_nonnull (strstr (text, "        file: \"../share/model/arm/arm.json\"\n"));
  g_assert_nonnull (strstr (text, "            file: \"../share/model/arm/targets.json\"\n"));
  g_assert_nonnull (strstr (text, "            filename: \"../share/motion/walk.pseq\"\n"));
  assert_paths_project (saved, NULL, arm, targets, pose_seq);
  g_clear_object (&project);
  g_clear_pointer (&text, g_free);

  /* The share folder given to the load holds wherever the project goes: kept. */
  project = km_cnoid_load_full (source, NULL, share, &error);
  g_assert_no_error (error);
  g_assert_true (km_cnoid_save (project, saved, &error));
  g_assert_no_error (error);
  text = test_util_read_file (saved, NULL);
  g_assert_nonnull (strstr (text, "        file: \"${SHARE}/model/arm/arm.json\"\n"));
  g_assert_nonnull (strstr (text, "            file: \"${SHARE}/model/arm/targets.json\"\n"));
  g_assert_nonnull (strstr (text, "            filename: \"${SHARE}/motion/walk.pseq\"\n"));
  assert_paths_project (saved, share, arm, targets, pose_seq);
  g_clear_object (&project);
  g_clear_pointer (&text, g_free);

  /* So does KINEMA_CHOREONOID_SHARE (the editor's preference sets it). */
  g_setenv ("KINEMA_CHOREONOID_SHARE", share, TRUE);
  project = test_util_load_cnoid (source);
  g_assert_true (km_cnoid_save (project, saved, &error));
  g_assert_no_error (error);
  text = test_util_read_file (saved, NULL);
  g_assert_nonnull (strstr (text, "        file: \"${SHARE}/model/arm/arm.json\"\n"));
  g_assert_nonnull (strstr (text, "            file: \"${SHARE}/model/arm/targets.json\"\n"));
  g_assert_nonnull (strstr (text, "            filename: \"${SHARE}/motion/walk.pseq\"\n"));
  assert_paths_project (saved, share, arm, targets, pose_seq);
  g_clear_object (&project);
  g_clear_pointer (&text, g_free);

  /* The variable each reference was read with is kept. */
  put_file (share, "project/top.cnoid", top_text);
  g_clear_pointer (&source, g_free);
  source = g_build_filename (share, "project", "top.cnoid", NULL);
  project = test_util_load_cnoid (source);
  g_assert_true (km_cnoid_save (project, saved, &error));
  g_assert_no_error (error);
  text = test_util_read_file (saved, NULL);
  g_assert_cmpstr (text, ==, top_text);
  assert_paths_project (saved, share, arm, targets, pose_seq);
  g_unsetenv ("KINEMA_CHOREONOID_SHARE");
  km_test_remove_tree (root);
}

/* ${PROGRAM_TOP} is Choreonoid's install prefix, not any folder above a share folder: a
 * Save As keeps a project's own files (a sibling of its folder) relative, as without a
 * share folder, though the share folder given (ROOT/share) makes ROOT the program top;
 * ${PROGRAM_TOP}/… is for files "../" does not reach, under a share folder shaped like
 * an installation's (PREFIX/share/choreonoid-X.Y), and never from one of another shape. */
static void
test_save_program_top (void)
{
  g_autofree char *tmp = km_test_make_tmp_dir ("cnoid-paths-XXXXXX");
  g_autofree char *root = g_canonicalize_filename (tmp, NULL);
  g_autofree char *moved_tmp = km_test_make_tmp_dir ("cnoid-moved-XXXXXX");
  g_autofree char *moved = g_canonicalize_filename (moved_tmp, NULL);
  g_autofree char *share = g_build_filename (root, "share", NULL);
  g_autofree char *odd_share = g_build_filename (root, "cnoid-data", NULL);
  g_autofree char *installed = g_build_filename (root, "inst", "share", "choreonoid-2.2", NULL);
  g_autofree char *arm = g_build_filename (root, "robots", "arm.json", NULL);
  g_autofree char *targets = g_build_filename (root, "robots", "targets.json", NULL);
  g_autofree char *pose_seq = g_build_filename (root, "robots", "walk.pseq", NULL);
  g_autofree char *inst_arm = g_build_filename (root, "inst", "robots", "arm.json", NULL);
  g_autofree char *inst_targets = g_build_filename (root, "inst", "robots", "targets.json",
                                                    NULL);
  g_autofree char *inst_pose_seq = g_build_filename (root, "inst", "robots", "walk.pseq",
                                                     NULL);
  g_autofree char *text_in = paths_project ("../../robots/arm.json",
                                            "../../robots/targets.json",
                                            "../../robots/walk.pseq");
  g_autofree char *inst_in = paths_project ("../../inst/robots/arm.json",
                                            "../../inst/robots/targets.json",
                                            "../../inst/robots/walk.pseq");
  g_autofree char *source = g_build_filename (root, "projects", "a", "arm.cnoid", NULL);
  g_autofree char *inst_source = g_build_filename (root, "projects", "a", "inst.cnoid", NULL);
  g_autofree char *saved = g_build_filename (root, "projects", "b", "arm.cnoid", NULL);
  g_autofree char *moved_project = g_build_filename (moved, "b", "arm.cnoid", NULL);
  g_autofree char *text = NULL;
  g_autoptr(KmProject) project = NULL;
  g_autoptr(GError) error = NULL;

  g_unsetenv ("KINEMA_CHOREONOID_SHARE");
  put_models (root, "robots");
  put_file (root, "robots/walk.pseq", "# a pose sequence\n");
  put_models (root, "inst/robots");
  put_file (root, "inst/robots/walk.pseq", "# a pose sequence\n");
  g_assert_cmpint (g_mkdir_with_parents (share, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (odd_share, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (installed, 0755), ==, 0);
  put_file (root, "projects/a/arm.cnoid", text_in);
  put_file (root, "projects/a/inst.cnoid", inst_in);
  make_parent (saved);
  make_parent (moved_project);

  /* ROOT/share: the project's own files stay relative, not ${PROGRAM_TOP}/robots/…. */
  project = km_cnoid_load_full (source, NULL, share, &error);
  g_assert_no_error (error);
  g_assert_true (km_cnoid_save (project, saved, &error));
  g_assert_no_error (error);
  text = test_util_read_file (saved, NULL);
  g_assert_cmpstr (text, ==, text_in);
  assert_paths_project (saved, share, arm, targets, pose_seq);
  g_clear_object (&project);
  g_clear_pointer (&text, g_free);

  /* A share folder not shaped like Choreonoid's has no program top: moved where "../"
   * does not reach, the files are absolute, not ${PROGRAM_TOP}/robots/…. */
  {
    g_autofree char *dir = g_path_get_dirname (source);
    KmItemIo io = { .file = source, .dir = dir, .share_dir = odd_share };
    g_autofree char *expanded = km_item_io_expand_path (&io, "${PROGRAM_TOP}/robots", &error);

    g_assert_null (expanded);
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
    g_clear_error (&error);
  }
  project = km_cnoid_load_full (source, NULL, odd_share, &error);
  g_assert_no_error (error);
  g_assert_true (km_cnoid_save (project, moved_project, &error));
  g_assert_no_error (error);
  text = test_util_read_file (moved_project, NULL);
  g_assert_null (strstr (text, "PROGRAM_TOP"));
  {
    g_autofree char *expected = g_strdup_printf ("        file: \"%s\"\n", arm);

    g_assert_nonnull (strstr (text, expected));
  }
  assert_paths_project (moved_project, odd_share, arm, targets, pose_seq);
  g_clear_object (&project);
  g_clear_pointer (&text, g_free);

  /* Under an installation (ROOT/inst/share/choreonoid-2.2), where "../" does not reach:
   * ${PROGRAM_TOP}/…. */
  project = km_cnoid_load_full (inst_source, NULL, installed, &error);
  g_assert_no_error (error);
  g_assert_true (km_cnoid_save (project, moved_project, &error));
  g_assert_no_error (error);
  text = test_util_read_file (moved_project, NULL);
  g_assert_nonnull (strstr (text, "        file: \"${PROGRAM_TOP}/robots/arm.json\"\n"));
  g_assert_nonnull (strstr (text, "            filename: \"${PROGRAM_TOP}/robots/walk.pseq\"\n"));
  assert_paths_project (moved_project, installed, inst_arm, inst_targets, inst_pose_seq);
  g_clear_object (&project);
  g_clear_pointer (&text, g_free);

  /* An installation one level below the root (/tmp/share/choreonoid-…: the program top is
   * /tmp) does not claim every file in /tmp: moved where "../" does not reach, the
   * project's files are absolute, not ${PROGRAM_TOP}/cnoid-paths-…/robots/…. */
  {
    gboolean made_share = !g_file_test ("/tmp/share", G_FILE_TEST_EXISTS);
    g_autofree char *shallow = g_strdup ("/tmp/share/choreonoid-XXXXXX");
    g_autofree char *expected = g_strdup_printf ("        file: \"%s\"\n", arm);

    g_assert_cmpint (g_mkdir_with_parents ("/tmp/share", 0755), ==, 0);
    g_assert_nonnull (g_mkdtemp (shallow));
    project = km_cnoid_load_full (source, NULL, shallow, &error);
    g_assert_no_error (error);
    g_assert_true (km_cnoid_save (project, moved_project, &error));
    g_assert_no_error (error);
    text = test_util_read_file (moved_project, NULL);
    g_assert_null (strstr (text, "PROGRAM_TOP"));
    g_assert_nonnull (strstr (text, expected));
    assert_paths_project (moved_project, shallow, arm, targets, pose_seq);
    g_rmdir (shallow);
    if (made_share)
      g_rmdir ("/tmp/share");
  }

  km_test_remove_tree (root);
  km_test_remove_tree (moved);
}

/* Schema 2 stores prismatic joints in metres; schema 1 (and no schema) converted them like
 * revolute joints, in "degrees" (DESIGN.md, body item keys). The same metres must come
 * out of both. */
static void
test_schema_1_joint_values (void)
{
  g_autofree char *path = data_path ("kinema/arm.cnoid");
  g_autofree char *text = test_util_read_file (path, NULL);
  static const struct { const char *schema; const char *piston; } cases[] = {
    { "schema: 2", "0.25" },
    { "schema: 1", "14.32394487827058" },  /* 0.25 rad expressed in degrees */
    { "", "14.32394487827058" },
  };

  g_assert_nonnull (strstr (text, "schema: 2"));
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GString) variant = g_string_new (text);
      g_autoptr(KmProject) project = NULL;
      g_autofree char *values = g_strdup_printf ("[ 10, 20, 30, 45, %s ]", cases[i].piston);
      KmBodyItem *arm;
      const double *q;
      guint n;

      g_string_replace (variant, "schema: 2", cases[i].schema, 1);
      g_string_replace (variant, "[ 10, 20, 30, 45, 0.25 ]", values, 1);
      project = load_text (path, variant->str, &error);
      g_assert_no_error (error);
      arm = KM_BODY_ITEM (test_util_find_item (km_project_get_root_item (project), "Arm"));
      q = km_body_item_get_joint_state (arm, &n);
      g_assert_cmpuint (n, ==, 5);
      g_assert_cmpfloat_with_epsilon (q[3], 45 * G_PI / 180, 1e-12);  /* revolute: degrees */
      g_assert_cmpfloat_with_epsilon (q[4], 0.25, 1e-12);              /* prismatic: metres */
    }
}

static void
collect_warning (const char *message,
                 gpointer    user_data)
{
  g_ptr_array_add (user_data, g_strdup (message));
}

/* Loaded as the editor and kinema-cli load a file (the format registry, its warnings
 * collected), a body file that is missing is said once: handed to the listener, the
 * warning is not also left among the project's messages, which the editor shows too. */
static void
test_missing_body_warned_once (void)
{
  g_autofree char *path = data_path ("kinema/missing-body.cnoid");
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  const KmFormat *format = NULL;
  KmProject *project;
  guint n;

  km_parse_warnings_push (collect_warning, warnings);
  project = km_format_load_model_file (path, NULL, &format, NULL, &error);
  km_parse_warnings_pop ();
  g_assert_no_error (error);
  g_assert_true (format == &km_format_cnoid);
  n = warnings->len + km_project_get_messages (project)->len;
  for (guint i = 0; i < warnings->len; i++)
    g_test_message ("warning: %s", (char *) g_ptr_array_index (warnings, i));
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpuint (warnings->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (warnings, 0),
                            "nope.body:1:1: cannot read the file"));
  format->free_result (project);

  /* Read directly, the project holds it, once. */
  project = test_util_load_cnoid (path);
  g_assert_cmpuint (km_project_get_messages (project)->len, ==, 1);
  g_object_unref (project);
}

/* A hand-written project whose RootItem lacks "plugin": a warning, and its items load
 * below the root all the same (not the whole tree kept unread, with nothing to show). */
static void
test_root_without_plugin (void)
{
  g_autofree char *path = data_path ("kinema/root-no-plugin.cnoid");
  g_autoptr(KmProject) project = test_util_load_cnoid (path);
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  KmItem *root = km_project_get_root_item (project);
  KmItem *body;

  g_assert_false (KM_IS_UNKNOWN_ITEM (root));
  g_assert_cmpstr (km_item_get_class_name (root), ==, "RootItem");
  g_assert_cmpuint (km_item_get_n_children (root), ==, 1);
  body = test_util_find_item (root, "Arm");
  g_assert_nonnull (body);
  g_assert_true (KM_IS_BODY_ITEM (body));
  g_assert_nonnull (km_body_item_get_skeleton (KM_BODY_ITEM (body)));
  g_assert_cmpuint (km_project_get_messages (project)->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (km_project_get_messages (project), 0),
                            "root-no-plugin.cnoid:2:3: missing key “plugin”"));

  /* Saved, the root says its plugin. */
  text = km_cnoid_to_string (project, path, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (text, "plugin: Base"));
}

static void
test_bad_files (void)
{
  static const struct { const char *text; const char *message; } cases[] = {
    { "items: [ 1,\n", "bad.cnoid:2:1:" },
    { "views: []\n", "bad.cnoid:1:1: missing key “items”" },
    { "items: 3\n", "bad.cnoid:1:8: expected a mapping" },
    { "- items\n", "bad.cnoid:1:1: expected a project: a mapping with “items”" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(KmProject) project =
        load_text ("bad.cnoid", cases[i].text, &error);

      g_assert_null (project);
      g_assert_nonnull (error);
      g_test_message ("%s", error->message);
      g_assert_true (g_str_has_prefix (error->message, cases[i].message));
    }
}

static void
test_failed_save (void)
{
  g_autofree char *path = data_path ("kinema/arm.cnoid");
  g_autofree char *dir = km_test_make_tmp_dir ("cnoid-XXXXXX");
  g_autofree char *file = g_build_filename (dir, "a-file", NULL);
  g_autofree char *under_file = g_build_filename (file, "x.cnoid", NULL);
  g_autofree char *target = g_build_filename (dir, "old.cnoid", NULL);
  g_autoptr(KmProject) project = test_util_load_cnoid (path);
  g_autoptr(GError) error = NULL;
  g_autofree char *after = NULL;

  g_assert_true (g_file_set_contents (file, "old contents\n", -1, NULL));
  g_assert_true (g_file_set_contents (target, "old project\n", -1, NULL));

  /* The parent is a file. */
  g_assert_false (km_cnoid_save (project, under_file, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  /* The target is a directory. */
  g_assert_false (km_cnoid_save (project, dir, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  g_assert_cmpstr (km_project_get_file (project), ==, path);

  /* A write that fails half-way (the file size limit is hit): the old file stays. */
  if (g_test_subprocess ())
    {
      struct rlimit limit = { 64, 64 };

      signal (SIGXFSZ, SIG_IGN);
      g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &limit), ==, 0);
      g_assert_false (km_cnoid_save (project, target, &error));
      g_assert_nonnull (error);
      /* This run's own folder (the parent checks the one it made). */
      g_unlink (target);
      g_unlink (file);
      g_rmdir (dir);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  after = test_util_read_file (target, NULL);
  g_assert_cmpstr (after, ==, "old project\n");
  {
    g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
    guint n = 0;

    while (g_dir_read_name (d) != NULL)
      n++;
    g_assert_cmpuint (n, ==, 2);   /* no temporary file left behind */
  }
  g_unlink (target);
  g_unlink (file);
  g_rmdir (dir);
}

static void
test_format (void)
{
  g_autofree char *path = data_path ("share/project/SR1Walk.cnoid");
  g_autofree char *body = data_path ("share/model/SR1/SR1.body");
  g_autofree char *text = test_util_read_file (path, NULL);
  g_autofree char *body_text = test_util_read_file (body, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) out = g_string_new (NULL);
  const KmFormat *format = NULL;
  gpointer result;

  g_assert_true (km_format_detect (text, strlen (text)) == &km_format_cnoid);
  g_assert_true (km_format_detect (body_text, strlen (body_text)) != &km_format_cnoid);
  g_assert_true (km_format_lookup ("CNOID-PROJECT") == &km_format_cnoid);
  result = km_format_load_file (path, NULL, &format, &error);
  g_assert_no_error (error);
  g_assert_true (format == &km_format_cnoid);
  format->describe (result, out);
  format->free_result (result);
  g_assert_true (g_str_has_prefix (out->str, "0 Base/RootItem \"RootItem\"\n"
                                             "  1 Body/WorldItem \"World\"\n"
                                             "    2 Body/BodyItem \"SR1\"\n"
                                             "      3 Body/SimpleControllerItem "
                                             "\"SR1WalkController\" [verbatim]\n"));
  g_assert_true (g_str_has_suffix (out->str, "items=14 unknown=9 bodies=2\n"));
}

static void
test_share_dir (void)
{
  g_autofree char *path = data_path ("share/project/SR1Walk.cnoid");
  g_autofree char *share = data_path ("share");
  g_autofree char *found = km_cnoid_find_share_dir (path);
  g_autofree char *canonical = g_canonicalize_filename (share, NULL);
  g_autofree char *none = km_cnoid_find_share_dir ("/tmp/x.cnoid");

  g_assert_cmpstr (found, ==, canonical);
  g_assert_null (none);
  g_setenv ("KINEMA_CHOREONOID_SHARE", "/opt/choreonoid/share", TRUE);
  g_free (found);
  found = km_cnoid_find_share_dir (path);
  g_assert_cmpstr (found, ==, "/opt/choreonoid/share");
  g_unsetenv ("KINEMA_CHOREONOID_SHARE");
}

/* A project kept anywhere finds an installed Choreonoid's share folder: the newest
 * choreonoid-X.Y with a model/ folder in the system data folders. */
static void
test_share_dir_installed (void)
{
  /* G_TEST_OPTION_ISOLATE_DIRS gives this test its own $XDG_DATA_DIRS. */
  const char *system = g_get_system_data_dirs ()[0];
  const char *versions[] = { "choreonoid-1.7", "choreonoid-2.9", "choreonoid-2.10" };
  g_autofree char *empty = g_build_filename (system, "choreonoid-3.0", NULL);
  g_autofree char *expected = g_build_filename (system, "choreonoid-2.10", NULL);
  g_autofree char *found = NULL;

  g_assert_null (km_cnoid_find_share_dir ("/tmp/x.cnoid"));
  for (guint i = 0; i < G_N_ELEMENTS (versions); i++)
    {
      g_autofree char *model = g_build_filename (system, versions[i], "model", NULL);

      g_assert_cmpint (g_mkdir_with_parents (model, 0755), ==, 0);
    }
  /* Without model/ it is not a share folder. */
  g_assert_cmpint (g_mkdir_with_parents (empty, 0755), ==, 0);
  found = km_cnoid_find_share_dir ("/tmp/x.cnoid");
  g_assert_cmpstr (found, ==, expected);
}

/* The project @name, loaded from @dir (@name relative to it). */
static KmProject *
load_in (const char *dir,
         const char *name)
{
  g_autofree char *cwd = g_get_current_dir ();
  KmProject *project;

  g_assert_cmpint (g_chdir (dir), ==, 0);
  project = test_util_load_cnoid (name);
  g_assert_cmpint (g_chdir (cwd), ==, 0);
  return project;
}

/* DESIGN.md, "Error locations": an error in a body model a project (or a sub-project of
 * it) names comes first, named as the user knows it (relative to how the project was
 * given), then one "included from FILE:LINE:COLUMN" line per file out to the one opened. */
static void
test_included_error_chain (void)
{
  g_autofree char *dir = g_test_build_filename (G_TEST_DIST, "data", "include-chain", NULL);
  g_autofree char *data = g_test_build_filename (G_TEST_DIST, "data", NULL);
  g_autofree char *absolute = NULL;
  g_autofree char *expected = NULL;
  g_autoptr(KmProject) project = NULL;
  KmItem *body;

  project = load_in (dir, "proj-sub.cnoid");
  g_assert_cmpuint (km_project_get_messages (project)->len, ==, 1);
  g_assert_true (test_util_has_message (project, "bad-axis.body:10:17: expected a joint "
                                                 "axis: [x, y, z] or X, Y, Z, -X, -Y, -Z\n"
                                                 "included from proj-badbody.cnoid:17:19\n"
                                                 "included from proj-sub.cnoid:12:19"));
  /* The body is kept, not shown; its problem is the first line. */
  body = test_util_find_item (km_project_get_root_item (project), "ロボ");
  g_assert_nonnull (body);
  g_assert_null (km_body_item_get_skeleton (KM_BODY_ITEM (body)));
  g_assert_cmpstr (km_item_get_problem (body), ==,
                   "bad-axis.body:10:17: expected a joint axis: [x, y, z] or X, Y, Z, -X, -Y, -Z");
  g_clear_object (&project);

  /* "sub/../bad-axis.body" named as the file it is. */
  project = load_in (dir, "sub/proj-up.cnoid");
  g_assert_true (test_util_has_message (project, "bad-axis.body:10:17: expected a joint "
                                                 "axis: [x, y, z] or X, Y, Z, -X, -Y, -Z\n"
                                                 "included from sub/proj-up.cnoid:12:15"));
  g_clear_object (&project);

  project = load_in (data, "include-chain/proj-badbody.cnoid");
  g_assert_cmpuint (km_project_get_messages (project)->len, ==, 1);
  g_assert_true (test_util_has_message (project,
                                        "include-chain/bad-axis.body:10:17: expected a joint "
                                        "axis: [x, y, z] or X, Y, Z, -X, -Y, -Z\n"
                                        "included from include-chain/proj-badbody.cnoid:17:19"));
  g_clear_object (&project);

  /* Given as an absolute path: every file absolute. */
  absolute = g_canonicalize_filename (dir, NULL);
  expected = g_strdup_printf ("%s/bad-axis.body:10:17: expected a joint axis: [x, y, z] or X, "
                              "Y, Z, -X, -Y, -Z\n"
                              "included from %s/proj-badbody.cnoid:17:19\n"
                              "included from %s/proj-sub.cnoid:12:19", absolute, absolute,
                              absolute);
  g_clear_pointer (&dir, g_free);
  dir = g_build_filename (absolute, "proj-sub.cnoid", NULL);
  project = test_util_load_cnoid (dir);
  g_assert_true (test_util_has_message (project, expected));
}

/* The same for the motion files a project names (IK targets, an IK animation, a pose
 * sequence): the file's own location first, as the user knows the file ("./x" as "x"),
 * then "included from" where the project names it; each item's problem is the first
 * line. */
static void
test_included_motion_errors (void)
{
  static const struct
  {
    const char *item;
    const char *first;
    const char *included_from;
  } files[] = {
    { "Targets", "bad-targets.json:3:25: expected an array of 3 numbers for “pos”",
      "proj-motion.cnoid:20:19" },
    { "Motion", "bad-animation.json:3:149: expected a number for “angle”, found a string",
      "proj-motion.cnoid:27:19" },
    { "Walk", "bad.pseq:4:11: expected a finite number", "proj-motion.cnoid:33:19" },
  };
  g_autofree char *dir = g_test_build_filename (G_TEST_DIST, "data", "include-chain", NULL);
  g_autofree char *data = g_test_build_filename (G_TEST_DIST, "data", NULL);
  const char *prefixes[] = { "", "include-chain/" };

  for (guint p = 0; p < G_N_ELEMENTS (prefixes); p++)
    {
      g_autoptr(KmProject) project = p == 0 ? load_in (dir, "proj-motion.cnoid")
                                            : load_in (data, "include-chain/proj-motion.cnoid");

      g_assert_cmpuint (km_project_get_messages (project)->len, ==, G_N_ELEMENTS (files));
      for (guint i = 0; i < G_N_ELEMENTS (files); i++)
        {
          g_autofree char *first = g_strconcat (prefixes[p], files[i].first, NULL);
          g_autofree char *expected = g_strdup_printf ("%s\nincluded from %s%s", first,
                                                       prefixes[p], files[i].included_from);
          KmItem *item = test_util_find_item (km_project_get_root_item (project), files[i].item);

          g_assert_true (test_util_has_message (project, expected));
          g_assert_nonnull (item);
          g_assert_cmpstr (km_item_get_problem (item), ==, first);
        }
    }
}

/* Checks that @line starts with a location that reads back (km_parse_read_location()) to
 * @file at @line_number:@column; returns what follows it. */
static const char *
assert_location (const char *line,
                 const char *file,
                 guint       line_number,
                 guint       column)
{
  g_autofree char *found = NULL;
  KmSourcePos pos;
  const char *rest;

  if (!km_parse_read_location (line, &found, &pos, &rest))
    g_error ("no location in “%s”", line);
  g_assert_cmpstr (found, ==, file);
  g_assert_cmpuint (pos.line, ==, line_number);
  g_assert_cmpuint (pos.column, ==, column);
  return rest;
}

/* DESIGN.md, "Error locations": in a project whose folder's name holds a colon, a space,
 * a line break and a byte of no valid UTF-8, every line of an error from inside a
 * sub-project, the "included from" line that names the project opened too, reads back
 * (km_parse_read_location()) to the file, line and column; the message is valid UTF-8. */
static void
test_included_escaped_names (void)
{
  static const char project_text[] =
    "items:\n"
    "  id: 0\n"
    "  name: \"Root\"\n"
    "  plugin: Base\n"
    "  class: RootItem\n"
    "  children:\n"
    "    - id: 1\n"
    "      name: \"Sub\"\n"
    "      plugin: Base\n"
    "      class: SubProjectItem\n"
    "      data:\n"
    "        filename: \"proj-badbody.cnoid\"\n"
    "        format: PROJECT\n";
  static const char * const copied[] = { "proj-badbody.cnoid", "bad-axis.body" };
  g_autofree char *tmp = km_test_make_tmp_dir ("cnoid-escaped-XXXXXX");
  g_autofree char *dir = g_build_filename (tmp, "p:r j\ne\xff", NULL);
  g_autofree char *path = g_build_filename (dir, "proj-sub.cnoid", NULL);
  g_autofree char *sub = g_build_filename (dir, "proj-badbody.cnoid", NULL);
  g_autofree char *body = g_build_filename (dir, "bad-axis.body", NULL);
  g_autoptr(KmProject) project = NULL;
  g_auto(GStrv) lines = NULL;
  GPtrArray *messages;
  const char *rest;

  g_assert_cmpint (g_mkdir (dir, 0755), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (copied); i++)
    {
      g_autofree char *source = g_test_build_filename (G_TEST_DIST, "data", "include-chain",
                                                       copied[i], NULL);
      g_autofree char *target = g_build_filename (dir, copied[i], NULL);
      gsize length;
      g_autofree char *text = test_util_read_file (source, &length);

      g_assert_true (g_file_set_contents (target, text, (gssize) length, NULL));
    }
  g_assert_true (g_file_set_contents (path, project_text, -1, NULL));
  project = test_util_load_cnoid (path);
  messages = km_project_get_messages (project);
  g_assert_cmpuint (messages->len, ==, 1);
  g_test_message ("%s", (char *) messages->pdata[0]);
  g_assert_true (g_utf8_validate (messages->pdata[0], -1, NULL));
  lines = g_strsplit (messages->pdata[0], "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 3);
  rest = assert_location (lines[0], body, 10, 17);
  g_assert_true (g_str_has_prefix (rest, "expected a joint axis"));
  g_assert_true (g_str_has_prefix (lines[1], "included from "));
  assert_location (lines[1] + strlen ("included from "), sub, 17, 19);
  g_assert_true (g_str_has_prefix (lines[2], "included from "));
  assert_location (lines[2] + strlen ("included from "), path, 12, 19);
  for (guint i = 0; i < G_N_ELEMENTS (copied); i++)
    {
      g_autofree char *target = g_build_filename (dir, copied[i], NULL);

      g_unlink (target);
    }
  g_unlink (path);
  g_rmdir (dir);
}

/* A malformed optional value of a body item in a project whose name holds a colon, a
 * space, a line break and a stray byte: the warning is located once, at the value, and
 * says what the value's reader says without its location. */
static void
test_bad_value_escaped_name (void)
{
  static const char text[] =
    ARM_BODY_PROJECT
    "        fix_root: maybe\n";
  g_autofree char *path = data_path ("kinema/b:a d\nv\xff.cnoid");
  g_autoptr(KmProject) project = NULL;
  g_autoptr(GError) error = NULL;
  GPtrArray *messages;
  const char *rest;

  project = load_text (path, text, &error);
  g_assert_no_error (error);
  messages = km_project_get_messages (project);
  g_assert_cmpuint (messages->len, ==, 1);
  g_test_message ("%s", (char *) messages->pdata[0]);
  g_assert_true (g_utf8_validate (messages->pdata[0], -1, NULL));
  rest = assert_location (messages->pdata[0], path, 13, 19);
  g_assert_cmpstr (rest, ==, "“fix_root” is ignored: expected true or false");
}

/* Targets opened from a file are written as a reference to it (DESIGN.md: "An item with
 * a file writes the file reference"); once edited, inline and without the file, which a
 * project save does not rewrite. */
static void
test_targets_file_reference (void)
{
  static const char text_in[] =
    "items:\n"
    "  id: 0\n"
    "  name: \"RootItem\"\n"
    "  plugin: Base\n"
    "  class: RootItem\n"
    "  children:\n"
    "    -\n"
    "      id: 1\n"
    "      name: \"Arm\"\n"
    "      plugin: Body\n"
    "      class: BodyItem\n"
    "      data:\n"
    "        file: \"arm.json\"\n"
    "        format: SKELETON-JSON\n";
  g_autofree char *tmp = km_test_make_tmp_dir ("cnoid-targets-XXXXXX");
  g_autofree char *root = g_canonicalize_filename (tmp, NULL);
  g_autofree char *path = g_build_filename (root, "arm.cnoid", NULL);
  g_autofree char *targets_path = g_build_filename (root, "targets.json", NULL);
  g_autofree char *text = NULL;
  g_autoptr(KmProject) project = NULL;
  g_autoptr(KmProject) again = NULL;
  g_autoptr(GError) error = NULL;
  const KmFormat *format = NULL;
  KmTargetTrack *track;
  KmItem *body, *item;
  guint n_keys;

  put_models (root, ".");
  put_file (root, "arm.cnoid", text_in);
  project = test_util_load_cnoid (path);
  body = test_util_find_item (km_project_get_root_item (project), "Arm");
  track = km_format_load_file (targets_path, NULL, &format, &error);
  g_assert_no_error (error);
  g_assert_cmpint (format->kind, ==, KM_FILE_KIND_TARGETS);
  n_keys = km_target_track_get_n_keyframes (track);
  g_assert_cmpuint (n_keys, >, 1);

  /* As a front end imports a targets file. */
  item = km_ik_targets_item_new ();
  km_item_set_name (item, "Targets");
  km_ik_targets_item_set_track (KM_IK_TARGETS_ITEM (item), track);
  km_ik_targets_item_set_file (KM_IK_TARGETS_ITEM (item), targets_path, format->name);
  km_item_append_child (body, item);
  g_object_unref (item);
  text = test_util_cnoid_to_string (project, path);
  g_assert_nonnull (strstr (text, "          class: IKTargetsItem\n"
                                  "          data:\n"
                                  "            file: \"targets.json\"\n"
                                  "            format: KINEMA-TARGETS-JSON\n"));
  g_assert_null (strstr (text, "keyframes"));
  again = load_text (path, text, &error);
  g_assert_no_error (error);
  item = test_util_find_item (km_project_get_root_item (again), "Targets");
  g_assert_null (km_item_get_problem (item));
  g_assert_cmpuint (km_target_track_get_n_keyframes (
                      km_ik_targets_item_get_track (KM_IK_TARGETS_ITEM (item))), ==, n_keys);
  g_clear_pointer (&text, g_free);

  /* Edited: inline, the file left as it is. */
  item = test_util_find_item (km_project_get_root_item (project), "Targets");
  km_ik_targets_item_set_track (KM_IK_TARGETS_ITEM (item), track);
  text = test_util_cnoid_to_string (project, path);
  g_assert_null (strstr (text, "targets.json"));
  g_assert_nonnull (strstr (text, "            keyframes:\n"));

  km_target_track_unref (track);
  km_test_remove_tree (root);
}

/* joint_displacements follow Choreonoid's joint array: a value for each joint id up to the
 * largest (a fixed joint's with an id, a dummy's for an id no joint has), then the joints
 * without an id. Read so, and written back so. */
static void
test_joint_id_gaps (void)
{
  static const char model[] =
    "format: ChoreonoidBody\nformat_version: 2.0\nangle_unit: degree\nlinks:\n"
    "  - name: R\n    joint_type: free\n"
    "  - name: A\n    parent: R\n    joint_type: revolute\n    joint_id: 0\n"
    "  - name: F\n    parent: A\n    joint_type: fixed\n    joint_id: 1\n"
    "  - name: B\n    parent: F\n    joint_type: revolute\n    joint_id: 3\n"
    "  - name: C\n    parent: B\n    joint_type: revolute\n";
  static const char text_in[] =
    "items:\n"
    "  id: 0\n"
    "  name: \"RootItem\"\n"
    "  plugin: Base\n"
    "  class: RootItem\n"
    "  children:\n"
    "    -\n"
    "      id: 1\n"
    "      name: \"Gaps\"\n"
    "      plugin: Body\n"
    "      class: BodyItem\n"
    "      data:\n"
    "        schema: 2\n"
    "        file: \"gaps.body\"\n"
    "        format: CHOREONOID-BODY\n"
    "        joint_displacements: [ 10, 0, 0, 30, 40 ]\n";
  g_autofree char *tmp = km_test_make_tmp_dir ("cnoid-gaps-XXXXXX");
  g_autofree char *root = g_canonicalize_filename (tmp, NULL);
  g_autofree char *path = g_build_filename (root, "gaps.cnoid", NULL);
  g_autofree char *text = NULL;
  g_autoptr(KmProject) project = NULL;
  g_autofree double *q2 = NULL;
  const char *line;
  KmItem *body;
  KmSkeleton *skel;
  const double *q;
  guint n;

  put_file (root, "gaps.body", model);
  put_file (root, "gaps.cnoid", text_in);
  project = test_util_load_cnoid (path);
  body = test_util_find_item (km_project_get_root_item (project), "Gaps");
  g_assert_null (km_item_get_problem (body));
  skel = km_body_item_get_skeleton (KM_BODY_ITEM (body));
  q = km_body_item_get_joint_state (KM_BODY_ITEM (body), &n);
  g_assert_cmpuint (n, ==, 3);
  g_assert_cmpfloat_with_epsilon (q[test_util_joint (skel, "A")->dof_index], 10 * G_PI / 180,
                                  1e-12);
  g_assert_cmpfloat_with_epsilon (q[test_util_joint (skel, "B")->dof_index], 30 * G_PI / 180,
                                  1e-12);
  g_assert_cmpfloat_with_epsilon (q[test_util_joint (skel, "C")->dof_index], 40 * G_PI / 180,
                                  1e-12);

  /* Changed, the state is written from the joints. */
  q2 = g_memdup2 (q, n * sizeof (double));
  q2[test_util_joint (skel, "C")->dof_index] = 50 * G_PI / 180;
  km_body_item_set_joint_state (KM_BODY_ITEM (body), q2, n);
  text = test_util_cnoid_to_string (project, path);
  line = strstr (text, "joint_displacements: [ 10, 0, 0, ");
  g_assert_nonnull (line);
  /* (30° comes back as 29.999999999999996) */
  g_assert_true (g_str_has_prefix (strchr (line, '\n') - strlen (", 50 ]"), ", 50 ]"));
}

/* A body item starts at the pose its model file states (a .body's joint_displacement), as
 * Choreonoid starts a body at its file's initial pose; the project's joint_displacements
 * then set the joints it lists. */
static void
test_body_model_pose (void)
{
  static const char head[] =
    "items:\n"
    "  id: 0\n"
    "  name: Root\n"
    "  plugin: Base\n"
    "  class: RootItem\n"
    "  children:\n"
    "    -\n"
    "      id: 1\n"
    "      plugin: Body\n"
    "      class: BodyItem\n"
    "      name: A\n"
    "      data:\n"
    "        schema: 2\n"
    "        file: \"posed.body\"\n"
    "        format: CHOREONOID-BODY\n";
  static const struct
  {
    const char *data;
    double      q[2];
  } cases[] = {
    { "", { 30 * G_PI / 180, 0.1 } },
    { "        joint_displacements: [ -45, 0.2 ]\n", { -45 * G_PI / 180, 0.2 } },
    { "        joint_displacements: [ 10 ]\n", { 10 * G_PI / 180, 0.1 } },
  };
  g_autofree char *dir = km_test_make_tmp_dir ("cnoid-pose-XXXXXX");
  g_autofree char *body_path = g_build_filename (dir, "posed.body", NULL);
  g_autofree char *path = g_build_filename (dir, "posed.cnoid", NULL);
  g_autofree char *model = g_test_build_filename (G_TEST_DIST, "data", "choreonoid",
                                                  "posed.body", NULL);
  g_autofree char *body = NULL;

  /* The model beside the project, as the project names it. */
  g_assert_true (g_file_get_contents (model, &body, NULL, NULL));
  g_assert_true (g_file_set_contents (body_path, body, -1, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = g_strconcat (head, cases[i].data, NULL);
      g_autoptr(KmProject) project = NULL;
      g_autoptr(GError) error = NULL;
      const double *q;
      KmItem *item;
      guint n_dof = 0;

      g_test_message ("case %u", i);
      project = load_text (path, text, &error);
      g_assert_no_error (error);
      item = test_util_find_item (km_project_get_root_item (project), "A");
      g_assert_true (KM_IS_BODY_ITEM (item));
      q = km_body_item_get_joint_state (KM_BODY_ITEM (item), &n_dof);
      g_assert_cmpuint (n_dof, ==, 2);
      g_assert_cmpfloat_with_epsilon (q[0], cases[i].q[0], 1e-12);
      g_assert_cmpfloat_with_epsilon (q[1], cases[i].q[1], 1e-12);
    }
  g_unlink (body_path);
  g_rmdir (dir);
}

/* Sub-projects (Choreonoid's SubProjectItem): a save writes a changed one back to its own
 * file, with what Kinema does not read kept; an unchanged one is not rewritten; a failed
 * write leaves both files as they were. */

static const char sub_main_text[] =
  "items:\n"
  "  id: 0\n"
  "  name: \"RootItem\"\n"
  "  plugin: Base\n"
  "  class: RootItem\n"
  "  is_builtin_item: true\n"
  "  children:\n"
  "    -\n"
  "      id: 1\n"
  "      name: \"Robot part\"\n"
  "      plugin: Base\n"
  "      class: SubProjectItem\n"
  "      data:\n"
  "        file: \"sub/part.cnoid\"\n"
  "    -\n"
  "      id: 2\n"
  "      name: \"Main folder\"\n"
  "      plugin: Base\n"
  "      class: FolderItem\n";

static char *
sub_part_text (guint padding)
{
  g_autofree char *pad = g_strnfill (padding, 'x');

  return g_strdup_printf (
    "items:\n"
    "  id: 0\n"
    "  name: \"RootItem\"\n"
    "  plugin: Base\n"
    "  class: RootItem\n"
    "  is_builtin_item: true\n"
    "  children:\n"
    "    -\n"
    "      id: 1\n"
    "      name: \"Folder\"\n"
    "      plugin: Base\n"
    "      class: FolderItem\n"
    "      children:\n"
    "        -\n"
    "          id: 2\n"
    "          name: \"Extra\"\n"
    "          plugin: Base\n"
    "          class: FolderItem\n"
    "    -\n"
    "      id: 3\n"
    "      name: \"Mystery\"\n"
    "      plugin: Other\n"
    "      class: ThingItem\n"
    "      data:\n"
    "        keep: [ 1, 2 ]\n"
    "        pad: \"%s\"\n"
    "toolbars:\n"
    "  \"TimeBar\":\n"
    "    current_time: 6\n", pad);
}

typedef struct
{
  char *dir;
  char *main_path;
  char *part_path;
  char *part_text;
} SubFixture;

static void
sub_fixture_init (SubFixture *f,
                  guint       padding)
{
  g_autofree char *sub = NULL;

  f->dir = km_test_make_tmp_dir ("kinema-subproj-XXXXXX");
  sub = g_build_filename (f->dir, "sub", NULL);
  g_assert_cmpint (g_mkdir (sub, 0755), ==, 0);
  f->main_path = g_build_filename (f->dir, "main.cnoid", NULL);
  f->part_path = g_build_filename (sub, "part.cnoid", NULL);
  f->part_text = sub_part_text (padding);
  g_assert_true (g_file_set_contents (f->main_path, sub_main_text, -1, NULL));
  g_assert_true (g_file_set_contents (f->part_path, f->part_text, -1, NULL));
}

static void
sub_fixture_clear (SubFixture *f)
{
  km_test_remove_tree (f->dir);
  g_free (f->dir);
  g_free (f->main_path);
  g_free (f->part_path);
  g_free (f->part_text);
}

static KmItem *
sub_child (KmProject  *project,
           const char *name)
{
  KmItem *sub = km_project_find_item_by_id (project, 1);

  g_assert_true (KM_IS_SUB_PROJECT_ITEM (sub));
  return km_item_find_child_by_name (sub, name);
}

static void
test_sub_project_edit_saved (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(KmProject) project = NULL;
  g_autoptr(KmProject) again = NULL;
  g_autofree char *part = NULL;
  g_autofree char *main_text = NULL;
  SubFixture f;
  KmItem *folder;

  sub_fixture_init (&f, 8);
  project = km_cnoid_load (f.main_path, &error);
  g_assert_no_error (error);
  folder = sub_child (project, "Folder");
  g_assert_nonnull (folder);
  km_project_rename_item (project, folder, "Renamed");
  km_project_remove_item (project, km_item_find_child_by_name (folder, "Extra"));
  g_assert_true (km_project_get_modified (project));

  g_assert_true (km_cnoid_save (project, f.main_path, &error));
  g_assert_no_error (error);
  g_assert_false (km_project_get_modified (project));

  part = test_util_read_file (f.part_path, NULL);
  g_assert_nonnull (strstr (part, "      id: 1\n      name: \"Renamed\"\n"));
  g_assert_null (strstr (part, "Extra"));
  /* What Kinema does not read is kept, with the sub-project's own sections. */
  g_assert_nonnull (strstr (part, "      plugin: Other\n      class: ThingItem\n"));
  g_assert_nonnull (strstr (part, "        keep: [ 1, 2 ]\n"));
  g_assert_nonnull (strstr (part, "    current_time: 6\n"));
  main_text = test_util_read_file (f.main_path, NULL);
  g_assert_cmpstr (main_text, ==, sub_main_text);

  again = km_cnoid_load (f.main_path, &error);
  g_assert_no_error (error);
  g_assert_nonnull (sub_child (again, "Renamed"));
  g_assert_null (sub_child (again, "Folder"));
  g_assert_cmpuint (km_item_get_n_children (sub_child (again, "Renamed")), ==, 0);
  sub_fixture_clear (&f);
}

static void
test_sub_project_unchanged_kept (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(KmProject) project = NULL;
  g_autofree char *part = NULL;
  struct utimbuf old = { 1000000000, 1000000000 };
  GStatBuf st;
  SubFixture f;

  sub_fixture_init (&f, 8);
  g_assert_cmpint (g_utime (f.part_path, &old), ==, 0);
  project = km_cnoid_load (f.main_path, &error);
  g_assert_no_error (error);
  /* Only the project itself is edited. */
  km_project_rename_item (project, km_project_find_item_by_id (project, 2), "Edited");
  g_assert_true (km_cnoid_save (project, f.main_path, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_stat (f.part_path, &st), ==, 0);
  g_assert_cmpint (st.st_mtime, ==, 1000000000);
  part = test_util_read_file (f.part_path, NULL);
  g_assert_cmpstr (part, ==, f.part_text);
  sub_fixture_clear (&f);
}

static void
test_sub_project_write_fails (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(KmProject) project = NULL;
  g_autofree char *part = NULL;
  g_autofree char *main_text = NULL;
  struct rlimit limit, saved;
  SubFixture f;
  gboolean ok;

  /* The sub-project is larger than the limit, the project smaller. */
  sub_fixture_init (&f, 8192);
  project = km_cnoid_load (f.main_path, &error);
  g_assert_no_error (error);
  km_project_rename_item (project, sub_child (project, "Folder"), "Renamed");
  km_project_rename_item (project, km_project_find_item_by_id (project, 2), "Edited");

  signal (SIGXFSZ, SIG_IGN);
  g_assert_cmpint (getrlimit (RLIMIT_FSIZE, &saved), ==, 0);
  limit = saved;
  limit.rlim_cur = 4096;
  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &limit), ==, 0);
  ok = km_cnoid_save (project, f.main_path, &error);
  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &saved), ==, 0);
  signal (SIGXFSZ, SIG_DFL);

  g_assert_false (ok);
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "part.cnoid"));
  g_assert_true (km_project_get_modified (project));
  part = test_util_read_file (f.part_path, NULL);
  g_assert_cmpstr (part, ==, f.part_text);
  main_text = test_util_read_file (f.main_path, NULL);
  g_assert_cmpstr (main_text, ==, sub_main_text);
  sub_fixture_clear (&f);
}

/* Save As into another folder: the project still refers to the same sub-project file. */
static void
test_sub_project_save_as_elsewhere (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(KmProject) project = NULL;
  g_autoptr(KmProject) again = NULL;
  g_autofree char *other = NULL;
  g_autofree char *moved = NULL;
  g_autofree char *part = NULL;
  SubFixture f;

  sub_fixture_init (&f, 8);
  other = g_build_filename (f.dir, "other", NULL);
  g_assert_cmpint (g_mkdir (other, 0755), ==, 0);
  moved = g_build_filename (other, "moved.cnoid", NULL);
  project = km_cnoid_load (f.main_path, &error);
  g_assert_no_error (error);
  km_project_rename_item (project, sub_child (project, "Folder"), "Renamed");
  g_assert_true (km_cnoid_save (project, moved, &error));
  g_assert_no_error (error);
  part = test_util_read_file (f.part_path, NULL);
  g_assert_nonnull (strstr (part, "\"Renamed\""));

  again = km_cnoid_load (moved, &error);
  g_assert_no_error (error);
  g_assert_nonnull (sub_child (again, "Renamed"));
  g_assert_nonnull (sub_child (again, "Mystery"));
  sub_fixture_clear (&f);
}

/* Two sub-project items naming the same file: the file is written once, with the edit
 * made in either copy; different edits in the two copies fail the save with a message
 * (neither is written). */
static void
test_sub_project_twice (void)
{
  static const char twice_text[] =
    "items:\n"
    "  id: 0\n"
    "  name: \"RootItem\"\n"
    "  plugin: Base\n"
    "  class: RootItem\n"
    "  is_builtin_item: true\n"
    "  children:\n"
    "    -\n"
    "      id: 1\n"
    "      name: \"A\"\n"
    "      plugin: Base\n"
    "      class: SubProjectItem\n"
    "      data:\n"
    "        file: \"sub/part.cnoid\"\n"
    "    -\n"
    "      id: 2\n"
    "      name: \"B\"\n"
    "      plugin: Base\n"
    "      class: SubProjectItem\n"
    "      data:\n"
    "        file: \"sub/../sub/part.cnoid\"\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(KmProject) project = NULL;
  g_autofree char *part = NULL;
  g_autofree char *part2 = NULL;
  SubFixture f;
  KmItem *a, *b;

  sub_fixture_init (&f, 8);
  g_assert_true (g_file_set_contents (f.main_path, twice_text, -1, NULL));
  project = km_cnoid_load (f.main_path, &error);
  g_assert_no_error (error);
  a = km_item_find_child_by_name (km_project_find_item_by_id (project, 1), "Folder");
  b = km_item_find_child_by_name (km_project_find_item_by_id (project, 2), "Folder");
  g_assert_nonnull (a);
  g_assert_nonnull (b);
  g_assert_true (a != b);

  /* Edited in the second copy only: written with that edit. */
  km_project_rename_item (project, b, "From B");
  g_assert_true (km_cnoid_save (project, f.main_path, &error));
  g_assert_no_error (error);
  part = test_util_read_file (f.part_path, NULL);
  g_assert_nonnull (strstr (part, "\"From B\""));

  /* The same edit in both: fine. */
  km_project_rename_item (project, a, "Same");
  km_project_rename_item (project, b, "Same");
  g_assert_true (km_cnoid_save (project, f.main_path, &error));
  g_assert_no_error (error);
  g_free (part);
  part = test_util_read_file (f.part_path, NULL);
  g_assert_nonnull (strstr (part, "\"Same\""));

  /* Different edits: refused, and the project stays modified. */
  km_project_rename_item (project, a, "One");
  km_project_rename_item (project, b, "Other");
  g_assert_false (km_cnoid_save (project, f.main_path, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "part.cnoid"));
  g_assert_nonnull (strstr (error->message, "more than once"));
  g_assert_true (km_project_get_modified (project));
  /* (refused before anything is written: the file is as the last save left it) */
  part2 = test_util_read_file (f.part_path, NULL);
  g_assert_nonnull (strstr (part2, "\"Same\""));
  g_assert_null (strstr (part2, "\"One\""));
  g_assert_null (strstr (part2, "\"Other\""));
  sub_fixture_clear (&f);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_unsetenv ("KINEMA_CHOREONOID_SHARE");

  g_test_add_func ("/kinema/Cnoid/fixtures-load", test_fixtures_load);
  g_test_add_func ("/kinema/Cnoid/share-dir-installed", test_share_dir_installed);
  g_test_add_func ("/kinema/Cnoid/choreonoid-bodies", test_choreonoid_bodies);
  g_test_add_func ("/kinema/Cnoid/round-trip", test_round_trip);
  g_test_add_func ("/kinema/Cnoid/sub-project-edit-saved", test_sub_project_edit_saved);
  g_test_add_func ("/kinema/Cnoid/sub-project-unchanged-kept", test_sub_project_unchanged_kept);
  g_test_add_func ("/kinema/Cnoid/sub-project-write-fails", test_sub_project_write_fails);
  g_test_add_func ("/kinema/Cnoid/sub-project-save-as-elsewhere",
                   test_sub_project_save_as_elsewhere);
  g_test_add_func ("/kinema/Cnoid/sub-project-twice", test_sub_project_twice);
  g_test_add_func ("/kinema/Cnoid/body-model-pose", test_body_model_pose);
  g_test_add_func ("/kinema/Cnoid/sections-kept", test_sections_kept);
  g_test_add_func ("/kinema/Cnoid/kept-layout", test_kept_layout);
  g_test_add_func ("/kinema/Cnoid/optional-plugins", test_optional_plugins_blank_line);
  g_test_add_func ("/kinema/Cnoid/references", test_references);
  g_test_add_func ("/kinema/Cnoid/current-body-saved", test_current_body_saved);
  g_test_add_func ("/kinema/Cnoid/dangling-reference", test_dangling_reference);
  g_test_add_func ("/kinema/Cnoid/sub-project", test_sub_project);
  g_test_add_func ("/kinema/Cnoid/sub-project-recursion", test_sub_project_recursion);
  g_test_add_func ("/kinema/Cnoid/broken-items", test_broken_items);
  g_test_add_func ("/kinema/Cnoid/body-bad-values", test_body_bad_values);
  g_test_add_func ("/kinema/Cnoid/header-bad-values", test_header_bad_values);
  g_test_add_func ("/kinema/Cnoid/selected-joint-key", test_selected_joint_key);
  g_test_add_func ("/kinema/Cnoid/skeleton-body", test_skeleton_body);
  g_test_add_func ("/kinema/Cnoid/joint-values-shortest", test_joint_values_shortest);
  g_test_add_func ("/kinema/Cnoid/no-class-kept", test_no_class_kept);
  g_test_add_func ("/kinema/Cnoid/unreadable-body-located", test_unreadable_body_located);
  g_test_add_func ("/kinema/Cnoid/edits-saved", test_edits_saved);
  g_test_add_func ("/kinema/Cnoid/long-animation", test_long_animation);
  g_test_add_func ("/kinema/Cnoid/long-animation-memory", test_long_animation_memory);
  g_test_add_func ("/kinema/Cnoid/long-animation-saved", test_long_animation_saved);
  g_test_add_func ("/kinema/Cnoid/frames-not-animation", test_frames_not_animation);
  g_test_add_func ("/kinema/Cnoid/save-elsewhere", test_save_elsewhere);
  g_test_add_func ("/kinema/Cnoid/save-sibling-folder", test_save_sibling_folder);
  g_test_add_func ("/kinema/Cnoid/save-climb-limits", test_save_climb_limits);
  g_test_add_func ("/kinema/Cnoid/save-share-round-trip", test_save_share_round_trip);
  g_test_add_func ("/kinema/Cnoid/save-program-top", test_save_program_top);
  g_test_add_func ("/kinema/Cnoid/schema-1-joint-values", test_schema_1_joint_values);
  g_test_add_func ("/kinema/Cnoid/bad-files", test_bad_files);
  g_test_add_func ("/kinema/Cnoid/missing-body-warned-once", test_missing_body_warned_once);
  g_test_add_func ("/kinema/Cnoid/root-without-plugin", test_root_without_plugin);
  g_test_add_func ("/kinema/Cnoid/failed-save", test_failed_save);
  g_test_add_func ("/kinema/Cnoid/format", test_format);
  g_test_add_func ("/kinema/Cnoid/share-dir", test_share_dir);
  g_test_add_func ("/kinema/Cnoid/included-error-chain", test_included_error_chain);
  g_test_add_func ("/kinema/Cnoid/included-motion-errors", test_included_motion_errors);
  g_test_add_func ("/kinema/Cnoid/included-escaped-names", test_included_escaped_names);
  g_test_add_func ("/kinema/Cnoid/bad-value-escaped-name", test_bad_value_escaped_name);
  g_test_add_func ("/kinema/Cnoid/targets-file-reference", test_targets_file_reference);
  g_test_add_func ("/kinema/Cnoid/joint-id-gaps", test_joint_id_gaps);
  return g_test_run ();
}
