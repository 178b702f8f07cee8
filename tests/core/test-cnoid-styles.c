/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

/* Choreonoid projects in the styles the different Choreonoid versions and plugins write
 * (tests/data/cnoid-styles/): every body shown with its state, every item and key Kinema
 * does not interpret kept, and the file written back without loss. */

#include "config.h"

#include <math.h>
#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "km-body-item.h"
#include "km-cnoid.h"
#include "km-folder-item.h"
#include "km-sub-project-item.h"
#include "km-unknown-item.h"
#include "km-world-item.h"

#include "test-util.h"
#include "km-test-tmp.h"

static char *
style_path (const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "data", "cnoid-styles", name, NULL);
}

/* ${SHARE} for every project here: the share folder of the Choreonoid fixtures. */
static char *
share_dir (void)
{
  return g_test_build_filename (G_TEST_DIST, "data", "cnoid", "share", NULL);
}

static KmProject *
load_style (const char *name)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = style_path (name);
  g_autofree char *share = share_dir ();
  KmProject *project = km_cnoid_load_full (path, NULL, share, &error);

  g_assert_no_error (error);
  g_assert_nonnull (project);
  return project;
}

static KmProject *
load_text (const char *path,
           const char *text,
           const char *share)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = g_bytes_new (text, strlen (text));
  KmProject *project = km_cnoid_load_full (path, bytes, share, &error);

  g_assert_no_error (error);
  g_assert_nonnull (project);
  return project;
}

static char *
describe (KmProject *project)
{
  GString *out = g_string_new (NULL);

  km_cnoid_describe (project, out);
  return g_string_free (out, FALSE);
}

static gboolean
has_message (KmProject  *project,
             const char *needle)
{
  GPtrArray *messages = km_project_get_messages (project);

  for (guint i = 0; i < messages->len; i++)
    if (strstr (g_ptr_array_index (messages, i), needle) != NULL)
      return TRUE;
  return FALSE;
}

static KmBodyItem *
body (KmProject *project,
      gint64     id)
{
  KmItem *item = km_project_find_item_by_id (project, id);

  g_assert_nonnull (item);
  g_assert_true (KM_IS_BODY_ITEM (item));
  return KM_BODY_ITEM (item);
}

/* The joint value (radians or metres) of the joint @name. */
static double
joint_value (KmBodyItem *item,
             const char *name)
{
  KmSkeleton *skeleton = km_body_item_get_skeleton (item);
  const double *q;
  guint n;
  int j;

  g_assert_nonnull (skeleton);
  j = km_skeleton_find_joint (skeleton, name);
  g_assert_cmpint (j, >=, 0);
  q = km_body_item_get_joint_state (item, &n);
  g_assert_cmpint (km_skeleton_get_joint (skeleton, j)->dof_index, >=, 0);
  g_assert_cmpint (km_skeleton_get_joint (skeleton, j)->dof_index, <, n);
  return q[km_skeleton_get_joint (skeleton, j)->dof_index];
}

static void
assert_root (KmBodyItem *item,
             double      x,
             double      y,
             double      z,
             const double rot[9])
{
  KmTransform pose;

  km_body_item_get_root_pose (item, &pose);
  g_assert_cmpfloat_with_epsilon (pose.pos.x, x, 1e-12);
  g_assert_cmpfloat_with_epsilon (pose.pos.y, y, 1e-12);
  g_assert_cmpfloat_with_epsilon (pose.pos.z, z, 1e-12);
  for (guint r = 0; r < 3; r++)
    for (guint c = 0; c < 3; c++)
      g_assert_cmpfloat_with_epsilon (pose.rot.m[r][c], rot[3 * r + c], 1e-12);
}

/* Saves @project to a new file in a temporary copy of the project's folder layout (next
 * to the original, so relative references stay the same) and returns the text. */
static char *
save_next_to (KmProject  *project,
              const char *name)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = style_path (name);
  char *text;

  g_assert_true (km_cnoid_save (project, path, &error));
  g_assert_no_error (error);
  text = test_util_read_file (path, NULL);
  g_assert_cmpint (g_unlink (path), ==, 0);
  return text;
}

/* Choreonoid 1.x: camelCase keys, modelFile, rootAttitude as a matrix, jointPositions in
 * radians in joint-id order, viewAreas/layoutOfToolBars, "key: " with trailing spaces. */
static void
test_old_camelcase (void)
{
  g_autoptr(KmProject) project = load_style ("old-camelcase.cnoid");
  g_autoptr(KmProject) again = NULL;
  g_autofree char *description = describe (project);
  g_autofree char *text = NULL;
  g_autofree char *original = NULL;
  g_autofree char *path = style_path ("old-camelcase.cnoid");
  static const double rot_z90[9] = { 0, -1, 0, 1, 0, 0, 0, 0, 1 };
  static const double identity[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
  KmBodyItem *sr1;

  g_assert_cmpstr (description, ==,
                   "0 Base/RootItem \"Root\"\n"
                   "  1 Body/WorldItem \"World\"\n"
                   "    2 Body/BodyItem \"SR1\"\n"
                   "      3 Body/SimpleControllerItem \"SR1WalkController\" [verbatim]\n"
                   "      4 PoseSeq/PoseSeqItem \"SR1WalkPattern2\"\n"
                   "    5 Body/BodyItem \"Floor\"\n"
                   "    6 Body/AISTSimulatorItem \"AISTSimulator\" [verbatim]\n"
                   "      7 Body/GLVisionSimulatorItem \"GLVisionSimulator\" [verbatim]\n"
                   "items=8 unknown=3 bodies=2\n");
  g_assert_true (km_item_get_checked (km_project_find_item_by_id (project, 1)));
  sr1 = body (project, 2);
  g_assert_cmpstr (km_body_item_get_file (sr1), ==, "${SHARE}/model/SR1/SR1.body");
  g_assert_cmpstr (km_body_item_get_current_base_link (sr1), ==, "WAIST");
  assert_root (sr1, 0.5, -0.25, 0.7135, rot_z90);
  /* jointPositions: radians, the i-th value is the joint with joint_id i. */
  g_assert_cmpfloat_with_epsilon (joint_value (sr1, "RLEG_HIP_R"), 0.01, 1e-12);
  g_assert_cmpfloat_with_epsilon (joint_value (sr1, "RLEG_ANKLE_R"), 0.06, 1e-12);
  g_assert_cmpfloat_with_epsilon (joint_value (sr1, "LARM_SHOULDER_P"), 0.20, 1e-12);
  g_assert_cmpfloat_with_epsilon (joint_value (sr1, "CHEST"), 0.29, 1e-12);
  g_assert_nonnull (km_body_item_get_skeleton (body (project, 5)));
  assert_root (body (project, 5), 0, 0, -0.1, identity);
  /* BodySelectionManager's currentBodyItem. */
  g_assert_true (km_project_get_current_body (project) == KM_ITEM (sr1));

  /* Saved unchanged: the same items and keys, old spellings kept. */
  km_project_set_save_layout (project, TRUE);
  text = save_next_to (project, "old-camelcase-saved.cnoid");
  original = test_util_read_file (path, NULL);
  g_assert_nonnull (strstr (text, "            modelFile: \"${SHARE}/model/SR1/SR1.body\"\n"));
  g_assert_nonnull (strstr (text, "            rootAttitude: [ 0, -1, 0, 1, 0, 0, 0, 0, 1 ]\n"));
  g_assert_nonnull (strstr (text, "                filename: \"motion/SR1/SR1WalkPattern2.pseq\"\n"));
  g_assert_nonnull (strstr (text, "            2Dmode: false\n"));
  g_assert_nonnull (strstr (text, "\nviewAreas:\n"));
  g_assert_nonnull (strstr (text, "      - { name: \"KinematicsBar\", x: 454, priority: 0 }\n"));
  g_assert_nonnull (strstr (text, "        bodyItem: 5\n"));
  again = load_text (path, text, NULL);
  {
    g_autofree char *d2 = NULL;
    g_autofree char *share = share_dir ();

    g_clear_object (&again);
    again = load_text (path, text, share);
    d2 = describe (again);
    g_assert_cmpstr (d2, ==, description);
    assert_root (body (again, 2), 0.5, -0.25, 0.7135, rot_z90);
    g_assert_cmpfloat_with_epsilon (joint_value (body (again, 2), "CHEST"), 0.29, 1e-12);
  }
}

/* Choreonoid 2.x (TankJoystick, PA10Pickup style): optional_plugins, is_selected, a body
 * with schema 2, axis-angle root_rotation, a relative model path, a model that is not
 * there, composite and sub items, references from views and the Body section. */
static void
test_tank_style (void)
{
  g_autoptr(KmProject) project = load_style ("tank-style.cnoid");
  g_autofree char *path = style_path ("tank-style.cnoid");
  g_autofree char *original = test_util_read_file (path, NULL);
  g_autofree char *text = NULL;
  static const double rot_z90[9] = { 0, -1, 0, 1, 0, 0, 0, 0, 1 };
  static const double identity[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
  KmBodyItem *sr1;
  KmBodyItem *features;
  KmBodyItem *tank;

  sr1 = body (project, 2);
  assert_root (sr1, 1.5, -2, 0.7135, rot_z90);
  /* joint_displacements: degrees in joint-id order. */
  g_assert_cmpfloat_with_epsilon (joint_value (sr1, "RLEG_HIP_R"), G_PI / 180, 1e-12);
  g_assert_cmpfloat_with_epsilon (joint_value (sr1, "RARM_SHOULDER_P"), 7 * G_PI / 180, 1e-12);
  g_assert_cmpfloat_with_epsilon (joint_value (sr1, "WAIST_P"), 27 * G_PI / 180, 1e-12);

  /* Relative to the project; schema 2: a prismatic joint's value is metres. */
  features = body (project, 8);
  g_assert_nonnull (km_body_item_get_skeleton (features));
  assert_root (features, 0, 1, 0, identity);
  g_assert_true (km_body_item_get_fix_root (features));
  g_assert_cmpfloat_with_epsilon (joint_value (features, "ARM"), 10 * G_PI / 180, 1e-12);
  g_assert_cmpfloat_with_epsilon (joint_value (features, "SLIDER"), 0.25, 1e-12);
  g_assert_cmpfloat_with_epsilon (joint_value (features, "WHEEL"), -30 * G_PI / 180, 1e-12);
  /* BodySelectionManager names the second body. */
  g_assert_true (km_project_get_current_body (project) == KM_ITEM (features));

  /* A model that is not there: kept, not shown, reported in the missing file, included
   * from its `file` (DESIGN.md, "Error locations"). */
  tank = body (project, 9);
  g_assert_null (km_body_item_get_skeleton (tank));
  g_assert_nonnull (km_item_get_problem (KM_ITEM (tank)));
  g_assert_true (has_message (project, "\nincluded from "));
  g_assert_true (has_message (project, "tank-style.cnoid:141:19"));

  g_assert_true (KM_IS_UNKNOWN_ITEM (km_project_find_item_by_id (project, 4)));
  g_assert_true (KM_IS_UNKNOWN_ITEM (km_project_find_item_by_id (project, 6)));
  g_assert_true (KM_IS_UNKNOWN_ITEM (km_project_find_item_by_id (project, 15)));
  g_assert_true (km_item_get_parent (km_project_find_item_by_id (project, 15)) ==
                 km_project_get_root_item (project));
  /* Every reference resolves: no message about one. */
  g_assert_false (has_message (project, "refers to an item"));

  /* Unchanged: written back byte for byte (the file has Choreonoid 2's layout). */
  km_project_set_save_layout (project, TRUE);
  text = save_next_to (project, "tank-style-saved.cnoid");
  g_assert_cmpstr (text, ==, original);
}

/* Flow style from top to bottom, a %YAML directive, document markers, comments,
 * anchors and aliases (one body's data shared by two), non-ASCII names, `yes`. */
static void
test_flow_anchors (void)
{
  g_autoptr(KmProject) project = load_style ("flow-anchors.cnoid");
  g_autoptr(KmProject) again = NULL;
  g_autofree char *description = describe (project);
  g_autofree char *text = NULL;
  g_autofree char *path = style_path ("flow-anchors.cnoid");
  g_autofree char *share = share_dir ();
  static const double rot_y_minus90[9] = { 0, 0, -1, 0, 1, 0, 1, 0, 0 };
  static const double identity[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };

  g_assert_cmpstr (description, ==,
                   "0 Base/RootItem \"RootItem\"\n"
                   "  1 Body/WorldItem \"World\"\n"
                   "    2 Body/BodyItem \"SR1 copy A\"\n"
                   "    3 Body/BodyItem \"SR1 copy B\"\n"
                   "    4 Body/BodyItem \"日本語のボディ\"\n"
                   "    5 ODE/ODESimulatorItem \"ODE\" [verbatim]\n"
                   "items=6 unknown=1 bodies=3\n");
  g_assert_true (km_item_get_checked (km_project_find_item_by_id (project, 1)));
  for (gint64 id = 2; id <= 3; id++)
    {
      KmBodyItem *sr1 = body (project, id);

      assert_root (sr1, 0, 0, 0.7135, rot_y_minus90);
      g_assert_cmpfloat_with_epsilon (joint_value (sr1, "RLEG_HIP_R"), -10 * G_PI / 180, 1e-12);
      g_assert_cmpfloat_with_epsilon (joint_value (sr1, "RLEG_HIP_P"), 20 * G_PI / 180, 1e-12);
      g_assert_cmpfloat_with_epsilon (joint_value (sr1, "RLEG_HIP_Y"), 0, 1e-12);
    }
  /* An unquoted relative path; an all-zero axis is no rotation. */
  g_assert_nonnull (km_body_item_get_skeleton (body (project, 4)));
  assert_root (body (project, 4), 0, 0, 0.7135, identity);
  g_assert_true (km_project_get_current_body (project) == km_project_find_item_by_id (project, 3));

  /* Aliases are written out expanded; every value is still there. */
  text = save_next_to (project, "flow-anchors-saved.cnoid");
  g_assert_nonnull (strstr (text, "          data: { time_step: 0.001, collision_detector: "
                                  "AISTCollisionDetector, gravity: [ 0, 0, -9.8 ] }\n"));
  g_assert_nonnull (strstr (text, "toolbars: { \"TimeBar\": { current_time: 1.5, max_time: 10 } }\n"));
  g_assert_nonnull (strstr (text, "      is_checked: yes\n"));
  again = load_text (path, text, share);
  {
    g_autofree char *d2 = describe (again);

    g_assert_cmpstr (d2, ==, description);
    assert_root (body (again, 3), 0, 0, 0.7135, rot_y_minus90);
  }
}

/* A SubProjectItem (Choreonoid 2's `format: PROJECT`, `save_mode`) in a sub-folder whose
 * body names its model relative to the sub-project's own folder. */
static void
test_sub_project (void)
{
  g_autoptr(KmProject) project = load_style ("with-subproject.cnoid");
  g_autofree char *path = style_path ("with-subproject.cnoid");
  g_autofree char *original = test_util_read_file (path, NULL);
  g_autofree char *text = NULL;
  static const double identity[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
  KmItem *sub = km_project_find_item_by_id (project, 2);
  KmItem *floor;

  g_assert_true (KM_IS_SUB_PROJECT_ITEM (sub));
  g_assert_cmpuint (km_item_get_n_children (sub), ==, 2);
  floor = km_item_get_child (sub, 0);
  g_assert_true (KM_IS_BODY_ITEM (floor));
  g_assert_cmpstr (km_item_get_name (floor), ==, "Floor (sub)");
  g_assert_nonnull (km_body_item_get_skeleton (KM_BODY_ITEM (floor)));
  assert_root (KM_BODY_ITEM (floor), 0, 0, -0.25, identity);
  g_assert_true (KM_IS_UNKNOWN_ITEM (km_item_get_child (sub, 1)));
  g_assert_nonnull (km_body_item_get_skeleton (body (project, 3)));
  g_assert_true (has_message (project, "included from "));

  text = save_next_to (project, "with-subproject-saved.cnoid");
  g_assert_cmpstr (text, ==, original);
}

/* --share-dir given relative to the working directory, which is not the project's. */
static void
test_relative_share_dir (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(KmProject) project = NULL;
  g_autofree char *path = style_path ("tank-style.cnoid");
  g_autofree char *data_dir = g_test_build_filename (G_TEST_DIST, "data", NULL);
  g_autofree char *absolute = g_canonicalize_filename (path, NULL);
  g_autofree char *cwd = g_get_current_dir ();
  g_autofree char *text = NULL;

  g_assert_cmpint (g_chdir (data_dir), ==, 0);
  project = km_cnoid_load_full (absolute, NULL, "cnoid/share", &error);
  g_assert_no_error (error);
  g_assert_nonnull (km_body_item_get_skeleton (body (project, 2)));
  g_assert_nonnull (km_body_item_get_skeleton (body (project, 10)));
  g_assert_false (has_message (project, "SR1.body: cannot read"));
  /* Written back as ${SHARE}/…, as it was. */
  text = test_util_cnoid_to_string (project, absolute);
  g_assert_nonnull (strstr (text, "            file: \"${SHARE}/model/SR1/SR1.body\"\n"));
  g_assert_cmpint (g_chdir (cwd), ==, 0);
}

/* An edited Choreonoid 1.x body is written in today's keys, nothing else of it lost. */
static void
test_old_camelcase_edited (void)
{
  g_autoptr(KmProject) project = load_style ("old-camelcase.cnoid");
  g_autoptr(KmProject) again = NULL;
  g_autofree char *path = style_path ("old-camelcase.cnoid");
  g_autofree char *share = share_dir ();
  g_autofree char *text = NULL;
  g_autofree double *q = NULL;
  KmBodyItem *sr1 = body (project, 2);
  KmSkeleton *skeleton = km_body_item_get_skeleton (sr1);
  const double *state;
  guint n;
  int chest = km_skeleton_find_joint (skeleton, "CHEST");

  state = km_body_item_get_joint_state (sr1, &n);
  q = g_memdup2 (state, n * sizeof (double));
  q[km_skeleton_get_joint (skeleton, chest)->dof_index] = 0.5;
  km_body_item_set_joint_state (sr1, q, n);
  text = save_next_to (project, "old-camelcase-edited.cnoid");

  {
    /* SR1's data, up to its first child. */
    const char *start = strstr (text, "name: \"SR1\"");
    const char *end = start != NULL ? strstr (start, "name: \"SR1WalkController\"") : NULL;
    g_autofree char *sr1_text = NULL;

    g_assert_nonnull (end);
    sr1_text = g_strndup (start, end - start);
    g_assert_null (strstr (sr1_text, "jointPositions:"));
    g_assert_null (strstr (sr1_text, "modelFile:"));
    g_assert_null (strstr (sr1_text, "rootAttitude:"));
    g_assert_nonnull (strstr (sr1_text, "            schema: 2\n"));
    g_assert_nonnull (strstr (sr1_text, "            file: \"${SHARE}/model/SR1/SR1.body\"\n"));
    g_assert_nonnull (strstr (sr1_text, "            root_rotation: [ 0, 0, 1, 90 ]\n"));
    g_assert_nonnull (strstr (sr1_text, "            initialJointPositions: [\n"));
    g_assert_nonnull (strstr (sr1_text, "            isEditable: true\n"));
    g_assert_nonnull (strstr (sr1_text, "            selfCollisionDetection: false\n"));
  }
  /* The other body is untouched: its old keys stay. */
  g_assert_nonnull (strstr (text, "            modelFile: \"${SHARE}/model/misc/floor.body\"\n"));

  again = load_text (path, text, share);
  g_assert_cmpfloat_with_epsilon (joint_value (body (again, 2), "CHEST"), 0.5, 1e-9);
  g_assert_cmpfloat_with_epsilon (joint_value (body (again, 2), "RLEG_HIP_R"), 0.01, 1e-9);
  g_assert_cmpfloat_with_epsilon (joint_value (body (again, 2), "WAIST_R"), 0.28, 1e-9);
  {
    static const double rot_z90[9] = { 0, -1, 0, 1, 0, 0, 0, 0, 1 };

    assert_root (body (again, 2), 0.5, -0.25, 0.7135, rot_z90);
  }
}

/* A body whose model is not there keeps its joint values through an edit of its
 * position: radians (jointPositions) and schema-1 values are not taken for schema 2. */
static void
test_missing_model_edited (void)
{
  static const char text_in[] =
    "items:\n"
    "  id: 0\n"
    "  name: \"Root\"\n"
    "  plugin: Base\n"
    "  class: RootItem\n"
    "  children:\n"
    "    -\n"
    "      id: 1\n"
    "      name: \"PA10\"\n"
    "      plugin: Body\n"
    "      class: BodyItem\n"
    "      data:\n"
    "        modelFile: \"${SHARE}/model/PA10/PA10.body\"\n"
    "        rootPosition: [ 0, 0, 0 ]\n"
    "        jointPositions: [ 0.5, -1 ]\n";
  g_autoptr(KmProject) project = NULL;
  g_autoptr(KmProject) again = NULL;
  g_autofree char *path = style_path ("missing-model.cnoid");
  g_autofree char *share = share_dir ();
  g_autofree char *text = NULL;
  KmTransform pose;
  const double *raw;
  guint n;

  project = load_text (path, text_in, share);
  g_assert_null (km_body_item_get_skeleton (body (project, 1)));
  km_transform_identity (&pose);
  pose.pos.x = 2;
  km_body_item_set_root_pose (body (project, 1), &pose);
  text = test_util_cnoid_to_string (project, path);
  again = load_text (path, text, share);
  km_body_item_get_root_pose (body (again, 1), &pose);
  g_assert_cmpfloat (pose.pos.x, ==, 2);
  raw = km_body_item_get_raw_displacements (body (again, 1), &n);
  g_assert_cmpuint (n, ==, 2);
  /* As they were read: radians under jointPositions, no schema claimed. */
  g_assert_nonnull (strstr (text, "        jointPositions: [ 0.5, -1 ]\n"));
  g_assert_null (strstr (text, "joint_displacements"));
  g_assert_null (strstr (text, "schema:"));
  g_assert_cmpfloat (raw[0], ==, 0.5);
  g_assert_cmpfloat (raw[1], ==, -1);
}

/* The same for schema-1 joint_displacements: written without claiming schema 2, whose
 * prismatic values would mean something else. */
static void
test_missing_model_schema_1 (void)
{
  static const char text_in[] =
    "items:\n"
    "  id: 0\n"
    "  name: \"Root\"\n"
    "  plugin: Base\n"
    "  class: RootItem\n"
    "  children:\n"
    "    -\n"
    "      id: 1\n"
    "      name: \"Tank\"\n"
    "      plugin: Body\n"
    "      class: BodyItem\n"
    "      data:\n"
    "        file: \"${SHARE}/model/Tank/Tank.body\"\n"
    "        format: CHOREONOID-BODY\n"
    "        root_translation: [ 0, 0, 0 ]\n"
    "        root_rotation: [ 1, 0, 0, 0 ]\n"
    "        joint_displacements: [ 30, 5.72958 ]\n"
    "        fix_root: false\n";
  g_autoptr(KmProject) project = NULL;
  g_autofree char *path = style_path ("missing-model.cnoid");
  g_autofree char *share = share_dir ();
  g_autofree char *text = NULL;

  project = load_text (path, text_in, share);
  km_body_item_set_fix_root (body (project, 1), TRUE);
  text = test_util_cnoid_to_string (project, path);
  g_assert_null (strstr (text, "schema:"));
  g_assert_nonnull (strstr (text, "        joint_displacements: [ 30, 5.72958 ]\n"));
  g_assert_nonnull (strstr (text, "        fix_root: true\n"));
}

/* Models other than .body files: VRML under Choreonoid 1.x's format name and under
 * CHOREONOID-BODY (Choreonoid 2's body loader picks the reader by extension), URDF the
 * same way. */
static void
test_model_formats (void)
{
  g_autoptr(KmProject) project = load_style ("model-formats.cnoid");
  g_autofree char *path = style_path ("model-formats.cnoid");
  g_autofree char *original = test_util_read_file (path, NULL);
  g_autofree char *text = NULL;
  g_autofree char *description = describe (project);
  KmBodyItem *ur5;

  for (gint64 id = 2; id <= 5; id++)
    {
      g_assert_nonnull (km_body_item_get_skeleton (body (project, id)));
      g_assert_null (km_item_get_problem (km_project_find_item_by_id (project, id)));
    }
  g_assert_null (strstr (description, "[not shown]"));
  ur5 = body (project, 4);
  g_assert_cmpfloat_with_epsilon (joint_value (ur5, "shoulder_pan_joint"), G_PI / 2, 1e-12);
  g_assert_cmpfloat_with_epsilon (joint_value (ur5, "shoulder_lift_joint"), -G_PI / 4, 1e-12);
  g_assert_cmpfloat_with_epsilon (joint_value (ur5, "elbow_joint"), 0, 1e-12);
  g_assert_cmpstr (km_body_item_get_format (ur5), ==, "CHOREONOID-BODY");

  text = save_next_to (project, "model-formats-saved.cnoid");
  g_assert_cmpstr (text, ==, original);
}

/* Saved into another folder: every relative reference, the world's material table too,
 * still names the same file; ${SHARE} ones stay as they are. */
static void
test_save_elsewhere (void)
{
  g_autoptr(KmProject) project = load_style ("model-formats.cnoid");
  g_autoptr(KmProject) again = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = km_test_make_tmp_dir ("cnoid-styles-XXXXXX");
  g_autofree char *path = NULL;
  g_autofree char *text = NULL;
  g_autofree char *share = share_dir ();
  g_autofree char *humanoid = NULL;
  g_autofree char *canonical = NULL;
  g_autofree char *expected = NULL;

  path = g_build_filename (dir, "moved.cnoid", NULL);
  g_assert_true (km_cnoid_save (project, path, &error));
  g_assert_no_error (error);
  text = test_util_read_file (path, NULL);
  /* The share folder holds the material table: it becomes ${SHARE}/…. */
  g_assert_nonnull (strstr (text, "        default_material_table_file: "
                                  "\"${SHARE}/default/materials.yaml\"\n"));
  humanoid = g_test_build_filename (G_TEST_DIST, "data", "openhrp", "humanoid.wrl", NULL);
  canonical = g_canonicalize_filename (humanoid, NULL);

  again = km_cnoid_load_full (path, NULL, share, &error);
  g_assert_no_error (error);
  for (gint64 id = 2; id <= 5; id++)
    g_assert_nonnull (km_body_item_get_skeleton (body (again, id)));
  /* The model, outside the share folder: absolute, or "../" where the temporary folder
   * and the source tree have a folder worth climbing to in common; the same file. */
  {
    KmItemIo io = { .file = path, .dir = dir, .share_dir = share };

    expected = km_item_io_expand_path (&io, km_body_item_get_file (body (again, 2)), &error);
    g_assert_no_error (error);
    g_assert_cmpstr (expected, ==, canonical);
  }
  g_assert_cmpint (g_unlink (path), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

/* Choreonoid 1.x keeps the check marks in the item tree view's state (`checked: [ ids ]`):
 * the bodies it lists are shown, and the list is written back as it is, less the items
 * unchecked since. */
static void
test_view_checks (void)
{
  g_autoptr(KmProject) project = load_style ("old-camelcase.cnoid");
  g_autoptr(KmProject) again = NULL;
  g_autofree char *path = style_path ("old-camelcase.cnoid");
  g_autofree char *share = share_dir ();
  g_autofree char *text = NULL;
  static const gboolean checked[8] = { FALSE, TRUE, TRUE, FALSE, FALSE, TRUE, FALSE, FALSE };

  for (gint64 id = 0; id < 8; id++)
    g_assert_cmpint (km_item_get_checked (km_project_find_item_by_id (project, id)), ==,
                     checked[id]);

  text = test_util_cnoid_to_string (project, path);
  g_assert_null (strstr (text, "is_checked"));
  g_assert_null (strstr (text, "isChecked"));
  g_assert_nonnull (strstr (text, "      checked: [ 1, 2, 5 ]\n"));
  g_clear_pointer (&text, g_free);

  km_item_set_checked (km_project_find_item_by_id (project, 5), FALSE);
  km_item_set_checked (km_project_find_item_by_id (project, 6), TRUE);
  text = test_util_cnoid_to_string (project, path);
  g_assert_nonnull (strstr (text, "      checked: [ 1, 2 ]\n"));
  g_assert_nonnull (strstr (text, "          class: AISTSimulatorItem\n"
                                  "          is_checked: true\n"));
  again = load_text (path, text, share);
  g_assert_true (km_item_get_checked (km_project_find_item_by_id (again, 2)));
  g_assert_false (km_item_get_checked (km_project_find_item_by_id (again, 5)));
  g_assert_true (km_item_get_checked (km_project_find_item_by_id (again, 6)));
  g_clear_object (&again);
  g_clear_pointer (&text, g_free);

  /* A list naming an item that is gone: a new item does not take its id. */
  {
    static const char stale[] =
      "items:\n"
      "  id: 0\n"
      "  plugin: Base\n"
      "  class: RootItem\n"
      "views:\n"
      "  -\n"
      "    id: 1\n"
      "    plugin: Base\n"
      "    class: ItemTreeView\n"
      "    state:\n"
      "      checked: [ 4, [ 9, \"Sub\" ] ]\n";
    g_autoptr(KmProject) bare = load_text (path, stale, share);
    KmItem *folder = km_folder_item_new ();

    km_item_append_child (km_project_get_root_item (bare), folder);
    g_object_unref (folder);
    text = test_util_cnoid_to_string (bare, path);
    g_assert_nonnull (strstr (text, "    -\n      id: 10\n"));
    again = load_text (path, text, share);
    g_assert_false (km_item_get_checked (km_project_find_item_by_id (again, 10)));
  }
}

/* Choreonoid 2 marks the selected items `is_selected: true`: they are selected when
 * loaded, and the mark follows the selection when saved. */
static void
test_selection (void)
{
  g_autoptr(KmProject) project = load_style ("tank-style.cnoid");
  g_autoptr(KmProject) again = NULL;
  g_autoptr(GObject) first = NULL;
  g_autofree char *path = style_path ("tank-style.cnoid");
  g_autofree char *share = share_dir ();
  g_autofree char *text = NULL;
  GListModel *selection = km_project_get_selection (project);

  g_assert_cmpuint (g_list_model_get_n_items (selection), ==, 1);
  first = g_list_model_get_item (selection, 0);
  g_assert_true (first == G_OBJECT (km_project_find_item_by_id (project, 2)));
  g_clear_object (&first);

  km_project_select (project, km_project_find_item_by_id (project, 8), FALSE);
  text = test_util_cnoid_to_string (project, path);
  g_assert_nonnull (strstr (text, "          name: \"SR1\"\n"
                                  "          plugin: Body\n"
                                  "          class: BodyItem\n"
                                  "          is_checked: true\n"));
  g_assert_nonnull (strstr (text, "          name: \"Features\"\n"
                                  "          plugin: Body\n"
                                  "          class: BodyItem\n"
                                  "          is_selected: true\n"
                                  "          is_checked: true\n"));
  again = load_text (path, text, share);
  selection = km_project_get_selection (again);
  g_assert_cmpuint (g_list_model_get_n_items (selection), ==, 1);
  first = g_list_model_get_item (selection, 0);
  g_assert_true (first == G_OBJECT (km_project_find_item_by_id (again, 8)));
}

/* The items selected, by id (-1 for an item without one). */
static char *
selected_ids (KmProject *project)
{
  GListModel *selection = km_project_get_selection (project);
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < g_list_model_get_n_items (selection); i++)
    {
      g_autoptr(KmItem) item = g_list_model_get_item (selection, i);

      g_string_append_printf (out, "%s%" G_GINT64_FORMAT, i > 0 ? " " : "",
                              km_item_get_id (item));
    }
  return g_string_free (out, FALSE);
}

/* Choreonoid 1.x keeps the selection in the item tree view's state (`selected: [ ids ]`),
 * as it keeps the check marks: the items it lists are selected when loaded, and the list
 * is written back as it is, less the items no longer selected (items selected since get
 * `is_selected: true`). */
static void
test_view_selection (void)
{
  g_autoptr(KmProject) project = load_style ("old-camelcase.cnoid");
  g_autoptr(KmProject) again = NULL;
  g_autofree char *path = style_path ("old-camelcase.cnoid");
  g_autofree char *share = share_dir ();
  g_autofree char *ids = NULL;
  g_autofree char *text = NULL;

  ids = selected_ids (project);
  g_assert_cmpstr (ids, ==, "6");
  g_assert_false (km_project_get_modified (project));

  /* Unchanged: the list as it was, no mark in the items. */
  text = test_util_cnoid_to_string (project, path);
  g_assert_nonnull (strstr (text, "      selected: [ 6 ]\n"
                                  "      checked: [ 1, 2, 5 ]\n"));
  g_assert_null (strstr (text, "is_selected"));
  g_assert_null (strstr (text, "isSelected"));
  again = load_text (path, text, share);
  g_clear_pointer (&ids, g_free);
  ids = selected_ids (again);
  g_assert_cmpstr (ids, ==, "6");
  g_clear_object (&again);
  g_clear_pointer (&text, g_free);

  /* Selected again after a change: still the list's, written as it was. */
  km_project_clear_selection (project);
  km_project_select (project, km_project_find_item_by_id (project, 6), TRUE);
  text = test_util_cnoid_to_string (project, path);
  g_assert_nonnull (strstr (text, "      selected: [ 6 ]\n"));
  g_assert_null (strstr (text, "is_selected"));
  g_clear_pointer (&text, g_free);

  /* The SR1 body and the floor selected instead. */
  km_project_select (project, km_project_find_item_by_id (project, 2), FALSE);
  km_project_select (project, km_project_find_item_by_id (project, 5), TRUE);
  text = test_util_cnoid_to_string (project, path);
  g_assert_nonnull (strstr (text, "      selected: [ ]\n"
                                  "      checked: [ 1, 2, 5 ]\n"));
  g_assert_nonnull (strstr (text, "          name: \"SR1\"\n"
                                  "          plugin: Body\n"
                                  "          class: BodyItem\n"
                                  "          is_selected: true\n"));
  g_assert_nonnull (strstr (text, "          name: \"Floor\"\n"
                                  "          plugin: Body\n"
                                  "          class: BodyItem\n"
                                  "          is_selected: true\n"));
  g_assert_null (strstr (text, "          class: AISTSimulatorItem\n"
                               "          is_selected"));
  again = load_text (path, text, share);
  g_clear_pointer (&ids, g_free);
  ids = selected_ids (again);
  g_assert_cmpstr (ids, ==, "2 5");
  g_clear_object (&again);
  g_clear_pointer (&text, g_free);

  /* A list naming an item that is gone, or a sub-item by name. */
  {
    static const char listed[] =
      "items:\n"
      "  id: 0\n"
      "  plugin: Base\n"
      "  class: RootItem\n"
      "  children:\n"
      "    -\n"
      "      id: 1\n"
      "      name: \"Folder\"\n"
      "      plugin: Base\n"
      "      class: FolderItem\n"
      "      children:\n"
      "        -\n"
      "          id: 2\n"
      "          name: \"Inner\"\n"
      "          plugin: Base\n"
      "          class: FolderItem\n"
      "views:\n"
      "  -\n"
      "    id: 1\n"
      "    plugin: Base\n"
      "    class: ItemTreeView\n"
      "    state:\n"
      "      selected: [ 7, [ 1, \"Inner\" ] ]\n";
    g_autoptr(KmProject) bare = load_text (path, listed, share);
    KmItem *folder = km_folder_item_new ();

    g_clear_pointer (&ids, g_free);
    ids = selected_ids (bare);
    g_assert_cmpstr (ids, ==, "2");
    km_item_append_child (km_project_get_root_item (bare), folder);
    g_object_unref (folder);
    text = test_util_cnoid_to_string (bare, path);
    /* The stale 7 counts as used: the new folder does not become selected by it. */
    g_assert_nonnull (strstr (text, "    -\n      id: 8\n"));
    g_assert_nonnull (strstr (text, "      selected: [ 7, [ 1, \"Inner\" ] ]\n"));
    again = load_text (path, text, share);
    g_clear_pointer (&ids, g_free);
    ids = selected_ids (again);
    g_assert_cmpstr (ids, ==, "2");
  }
}

/* Without a BodySelectionManager, older Choreonoid's body bar names the current body. */
static void
test_body_bar_current (void)
{
  g_autofree char *path = style_path ("old-camelcase.cnoid");
  g_autofree char *share = share_dir ();
  g_autofree char *original = test_util_read_file (path, NULL);
  g_autofree char *text = NULL;
  g_autoptr(KmProject) project = NULL;
  char *manager = strstr (original, "  \"BodySelectionManager\": \n");
  char *bar = strstr (original, "    current: 2\n");

  /* The same project with the manager's section renamed and the bar naming the floor. */
  g_assert_nonnull (manager);
  g_assert_nonnull (bar);
  memcpy (manager + 3, "Other", 5);
  bar[13] = '5';
  project = load_text (path, original, share);
  g_assert_true (km_project_get_current_body (project) == km_project_find_item_by_id (project, 5));
}

/* Names Choreonoid allows (any text) survive a rename and a save: quotes, colons, a
 * comment sign, a line break, non-ASCII, a YAML keyword. */
static void
test_names (void)
{
  static const char * const names[] = {
    "a: \"b\" # c", "line\nbreak\ttab", "ロボット", "true", "- dash", "~", "*alias", "'",
    "${SHARE}", " padded ", "",
  };
  g_autoptr(KmProject) project = load_style ("tank-style.cnoid");
  g_autofree char *path = style_path ("tank-style.cnoid");
  g_autofree char *share = share_dir ();

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autoptr(KmProject) again = NULL;
      g_autofree char *text = NULL;

      km_item_set_name (km_project_find_item_by_id (project, 3), names[i]);
      km_item_set_name (km_project_find_item_by_id (project, 8), names[i]);
      text = test_util_cnoid_to_string (project, path);
      again = load_text (path, text, share);
      g_assert_cmpstr (km_item_get_name (km_project_find_item_by_id (again, 3)), ==, names[i]);
      g_assert_cmpstr (km_item_get_name (km_project_find_item_by_id (again, 8)), ==, names[i]);
      g_assert_nonnull (km_body_item_get_skeleton (body (again, 8)));
    }
}

/* Choreonoid 1.5 and older write `views` as a mapping from view names to states
 * (`"Items": {selected: [ ids ], checked: [ ids ]}`): the check marks and the selection
 * are read from there too, and written back in that form, less the items unchecked. */
static void
test_view_checks_mapping (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "include-chain",
                                                 "old1x.cnoid", NULL);
  g_autofree char *share = share_dir ();
  g_autoptr(GError) error = NULL;
  g_autoptr(KmProject) project = km_cnoid_load_full (path, NULL, share, &error);
  g_autoptr(KmProject) again = NULL;
  g_autofree char *text = NULL;
  KmItem *world, *sr1;
  g_autoptr(GObject) selected = NULL;
  KmTransform root;
  const double *q;
  guint n_dof;

  g_assert_no_error (error);
  world = km_project_find_item_by_id (project, 1);
  sr1 = km_project_find_item_by_id (project, 2);
  g_assert_true (km_item_get_checked (world));
  g_assert_true (km_item_get_checked (sr1));
  g_assert_cmpuint (g_list_model_get_n_items (km_project_get_selection (project)), ==, 1);
  selected = g_list_model_get_item (km_project_get_selection (project), 0);
  g_assert_true (selected == G_OBJECT (sr1));
  /* The rest of the 1.x body item: modelFile, rootPosition, rootAttitude, jointPositions
   * (radians, in joint-id order). */
  g_assert_nonnull (km_body_item_get_skeleton (KM_BODY_ITEM (sr1)));
  km_body_item_get_root_pose (KM_BODY_ITEM (sr1), &root);
  g_assert_cmpfloat (root.pos.z, ==, 0.7135);
  q = km_body_item_get_joint_state (KM_BODY_ITEM (sr1), &n_dof);
  g_assert_cmpuint (n_dof, ==, 29);
  g_assert_cmpfloat (q[km_skeleton_get_joint (km_body_item_get_skeleton (KM_BODY_ITEM (sr1)),
                                              km_skeleton_find_joint (
                                                km_body_item_get_skeleton (KM_BODY_ITEM (sr1)),
                                                "RLEG_HIP_P"))->dof_index], ==, -0.036652);

  /* Unchanged: written back as read, in the mapping form, with no is_checked. */
  text = test_util_cnoid_to_string (project, path);
  g_assert_null (strstr (text, "is_checked"));
  g_assert_nonnull (strstr (text, "views:\n  \"Items\":\n    selected: [ 2 ]\n"
                                  "    checked: [ 1, 2 ]\n    expanded: [ 1, 2 ]\n"));
  g_clear_pointer (&text, g_free);

  /* SR1 unchecked and not selected: dropped from the lists, still a mapping. */
  km_item_set_checked (sr1, FALSE);
  km_project_clear_selection (project);
  text = test_util_cnoid_to_string (project, path);
  g_assert_null (strstr (text, "is_checked"));
  g_assert_nonnull (strstr (text, "views:\n  \"Items\":\n    selected: [ ]\n"
                                  "    checked: [ 1 ]\n    expanded: [ 1, 2 ]\n"));
  again = load_text (path, text, share);
  g_assert_true (km_item_get_checked (km_project_find_item_by_id (again, 1)));
  g_assert_false (km_item_get_checked (km_project_find_item_by_id (again, 2)));
  g_assert_cmpuint (g_list_model_get_n_items (km_project_get_selection (again)), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/kinema/CnoidStyles/old-camelcase", test_old_camelcase);
  g_test_add_func ("/kinema/CnoidStyles/tank-style", test_tank_style);
  g_test_add_func ("/kinema/CnoidStyles/old-camelcase-edited", test_old_camelcase_edited);
  g_test_add_func ("/kinema/CnoidStyles/view-checks", test_view_checks);
  g_test_add_func ("/kinema/CnoidStyles/selection", test_selection);
  g_test_add_func ("/kinema/CnoidStyles/view-selection", test_view_selection);
  g_test_add_func ("/kinema/CnoidStyles/body-bar-current", test_body_bar_current);
  g_test_add_func ("/kinema/CnoidStyles/names", test_names);
  g_test_add_func ("/kinema/CnoidStyles/missing-model-edited", test_missing_model_edited);
  g_test_add_func ("/kinema/CnoidStyles/missing-model-schema-1", test_missing_model_schema_1);
  g_test_add_func ("/kinema/CnoidStyles/flow-anchors", test_flow_anchors);
  g_test_add_func ("/kinema/CnoidStyles/model-formats", test_model_formats);
  g_test_add_func ("/kinema/CnoidStyles/save-elsewhere", test_save_elsewhere);
  g_test_add_func ("/kinema/CnoidStyles/sub-project", test_sub_project);
  g_test_add_func ("/kinema/CnoidStyles/relative-share-dir", test_relative_share_dir);
  g_test_add_func ("/kinema/CnoidStyles/view-checks-mapping", test_view_checks_mapping);
  return g_test_run ();
}
