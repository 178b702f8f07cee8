/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <gtk/gtk.h>

#include "km-document.h"
#include "km-window.h"
#include "km-test-tmp.h"
#include "test-app-util.h"

/*
 * A model's start pose outside its joints' limits (a URDF states none: every joint starts
 * at 0, outside the Franka Panda joint4's range [-176°, -4°]) is clamped to them in the
 * editor (the Pose tab, edits, solves), and the Messages say so when the model is opened,
 * naming the joints clamped and to what (review: it was clamped silently).
 */

static void
test_urdf_start_pose_clamped (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data",
                                                 "urdf-start-outside-limits.urdf", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  KmWindow *window = km_window_new (NULL);
  KmDocument *document = km_window_get_document (window);
  const double *pose;
  guint n_dof = 0;

  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (test_app_open_file (window, file));
  test_app_spin ();

  g_assert_nonnull (km_document_get_skeleton (document));
  /* The body's state stays what the file gives (0), as before: the limits clamp it where
   * the Pose tab shows it and an edit or a solve starts from it. */
  pose = km_document_get_pose (document, &n_dof);
  g_assert_cmpuint (n_dof, ==, 3);
  g_assert_cmpfloat (pose[1], ==, 0.0);

  /* One warning names the two joints clamped and to what; the joint within its limits is
   * not named. */
  g_assert_cmpuint (test_app_count_messages (document, G_LOG_LEVEL_WARNING, "elbow", "-4.0°",
                                             "slide", "100.0 mm", NULL), ==, 1);
  g_assert_cmpuint (test_app_count_messages (document, 0, "shoulder", NULL), ==, 0);

  /* Still what the user opened: nothing to save or undo. */
  g_assert_false (km_document_get_modified (document));
  g_assert_false (km_document_can_undo (document));

  test_app_destroy_window (&window, &document);
}

/* A start pose within the limits: nothing to say. */
static void
test_urdf_start_pose_within (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "urdf-arm-gripper.urdf",
                                                 NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  KmWindow *window = km_window_new (NULL);
  KmDocument *document = km_window_get_document (window);

  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (test_app_open_file (window, file));
  test_app_spin ();
  g_assert_nonnull (km_document_get_skeleton (document));
  g_assert_cmpuint (test_app_count_messages (document, G_LOG_LEVEL_WARNING, "limits", NULL),
                    ==, 0);

  test_app_destroy_window (&window, &document);
}

/* A pose the file states (a .body file's joint_displacement) is kept as stated, outside the
 * limits too, as Choreonoid keeps it: the loader's warning says so, no second one. */
static void
test_stated_pose_kept (void)
{
  g_autofree char *dir = km_test_make_tmp_dir ("km-start-pose-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "stated.body", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  KmWindow *window = km_window_new (NULL);
  KmDocument *document = km_window_get_document (window);
  const double *pose;
  guint n_dof = 0;

  g_file_set_contents (path,
                       "format: ChoreonoidBody\n"
                       "format_version: 2.0\n"
                       "name: stated\n"
                       "links:\n"
                       "  - { name: base, joint_type: fixed }\n"
                       "  - { name: J1, parent: base, joint_type: revolute, joint_axis: Z,\n"
                       "      joint_id: 0, joint_range: [ -90, 90 ], joint_displacement: 120 }\n",
                       -1, &error);
  g_assert_no_error (error);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (test_app_open_file (window, file));
  test_app_spin ();
  pose = km_document_get_pose (document, &n_dof);
  g_assert_cmpuint (n_dof, ==, 1);
  g_assert_cmpfloat_with_epsilon (pose[0], 120.0 * G_PI / 180.0, 1e-9);
  g_assert_cmpuint (test_app_count_messages (document, G_LOG_LEVEL_WARNING, "J1",
                                             "outside its joint range", NULL), ==, 1);
  g_assert_cmpuint (test_app_count_messages (document, 0, "at their nearest limit", NULL), ==, 0);

  test_app_destroy_window (&window, &document);
  km_test_remove_tree (dir);
}

int
main (int    argc,
      char **argv)
{
  test_app_init (&argc, &argv);

  g_test_add_func ("/start-pose/urdf-clamped", test_urdf_start_pose_clamped);
  g_test_add_func ("/start-pose/urdf-within", test_urdf_start_pose_within);
  g_test_add_func ("/start-pose/stated-pose-kept", test_stated_pose_kept);
  return g_test_run ();
}
