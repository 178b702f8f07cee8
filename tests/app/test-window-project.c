/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <math.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#ifdef GDK_WINDOWING_X11
#include <gdk/x11/gdkx.h>
#endif

#include "km-body-item.h"
#include "km-document-edit.h"
#include "km-document-skeleton.h"
#include "km-ik-targets-item.h"
#include "km-item-row.h"
#include "km-item-tree.h"
#include "km-joint-panel.h"
#include "km-layout-state.h"
#include "km-message.h"
#include "km-scene-view.h"
#include "km-targets-json.h"
#include "km-time-bar.h"
#include "km-window.h"
#include "km-yaml.h"

#include "test-app-util.h"
#include "km-test-tmp.h"

/*
 * The editor window over a KmProject, under Xvfb: undo and redo of joint edits (one step
 * for a slider drag), Save As and reload, the modified mark in the title, the
 * unsaved-changes question on close, and the item tree (a .cnoid project's items, an
 * unknown item greyed, rename and an undoable delete).
 */

typedef struct
{
  KmWindow   *window;
  KmDocument *document;
  KmItemTree *tree;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  f->window = test_app_example_window (900, 600);
  f->document = km_window_get_document (f->window);
  f->tree = KM_ITEM_TREE (km_window_get_item_tree (f->window));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  test_app_destroy_window (&f->window, &f->document);
}

static const char *
title (Fixture *f)
{
  return gtk_window_get_title (GTK_WINDOW (f->window));
}

static double
dof (Fixture *f,
     guint    i)
{
  return km_document_get_pose (f->document, NULL)[i];
}

static const double *
state (KmItem *body)
{
  g_assert_true (KM_IS_BODY_ITEM (body));
  return km_body_item_get_joint_state (KM_BODY_ITEM (body), NULL);
}

static void
test_undo_joint_edit (Fixture       *f,
                      gconstpointer  data)
{
  double before = dof (f, 3);
  double value = before > 1.0 ? before - 0.5 : before + 0.5;

  g_assert_cmpstr (title (f), ==, "Kinema");
  g_assert_false (km_document_can_undo (f->document));
  g_assert_false (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.undo", NULL)
                  && km_document_get_modified (f->document));

  km_document_set_dof_value (f->document, 3, value);
  g_assert_cmpfloat_with_epsilon (dof (f, 3), value, 1e-12);
  g_assert_true (km_document_get_modified (f->document));
  g_assert_cmpstr (title (f), ==, "Untitled* — Kinema");
  g_assert_true (km_document_can_undo (f->document));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.undo", NULL));
  g_assert_cmpfloat_with_epsilon (dof (f, 3), before, 1e-12);
  g_assert_false (km_document_get_modified (f->document));
  g_assert_cmpstr (title (f), ==, "Kinema");
  g_assert_true (km_document_can_redo (f->document));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.redo", NULL));
  g_assert_cmpfloat_with_epsilon (dof (f, 3), value, 1e-12);
  g_assert_cmpstr (title (f), ==, "Untitled* — Kinema");
  g_assert_cmpfloat_with_epsilon (state (km_document_get_body_item (f->document))[3], value, 1e-12);
}

/* Ten slider values in a row are one undo step; a closed edit starts the next. */
static void
test_merged_slider_drag (Fixture       *f,
                         gconstpointer  data)
{
  KmJointPanel *panel = KM_JOINT_PANEL (km_window_get_joint_panel (f->window));
  GtkAdjustment *elbow = km_joint_panel_get_adjustment (panel, 3);
  double before = dof (f, 3);

  g_assert_nonnull (elbow);
  for (int i = 1; i <= 10; i++)
    gtk_adjustment_set_value (elbow, 10.0 * i);
  g_assert_cmpfloat_with_epsilon (dof (f, 3), 100.0 * G_PI / 180.0, 1e-9);
  km_document_close_edit (f->document);
  km_document_set_dof_value (f->document, 2, 0.25);

  g_assert_true (km_document_undo (f->document));
  g_assert_cmpfloat_with_epsilon (dof (f, 3), 100.0 * G_PI / 180.0, 1e-9);
  g_assert_true (km_document_undo (f->document));
  g_assert_cmpfloat_with_epsilon (dof (f, 3), before, 1e-12);
  g_assert_cmpfloat_with_epsilon (gtk_adjustment_get_value (elbow), before * 180.0 / G_PI, 1e-9);
  g_assert_false (km_document_can_undo (f->document));
  g_assert_false (km_document_get_modified (f->document));
}

/* Every row of the tree, as "depth:name" lines; the current body's joints as
 * "depth:@name" with @joints, else left out. */
static char *
tree_rows_with_joints (Fixture  *f,
                       gboolean  joints)
{
  GListModel *rows = G_LIST_MODEL (km_item_tree_get_selection_model (f->tree));
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(GtkTreeListRow) row = g_list_model_get_item (rows, i);
      g_autoptr(KmItemRow) item_row = gtk_tree_list_row_get_item (row);

      g_autofree char *name = NULL;

      if (km_item_row_get_joint (item_row) >= 0 && !joints)
        continue;
      g_object_get (item_row, "name", &name, NULL);
      /* a joint of the current body: "depth:@name" */
      g_string_append_printf (out, "%u:%s%s\n", gtk_tree_list_row_get_depth (row),
                              km_item_row_get_joint (item_row) >= 0 ? "@" : "", name);
    }
  return g_string_free (out, FALSE);
}

static char *
tree_rows (Fixture *f)
{
  return tree_rows_with_joints (f, FALSE);
}

static guint
row_of (Fixture    *f,
        const char *name)
{
  GListModel *rows = G_LIST_MODEL (km_item_tree_get_selection_model (f->tree));

  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(GtkTreeListRow) row = g_list_model_get_item (rows, i);
      g_autoptr(KmItemRow) item_row = gtk_tree_list_row_get_item (row);

      if (km_item_row_get_joint (item_row) < 0
          && g_strcmp0 (km_item_get_name (km_item_row_get_item (item_row)), name) == 0)
        return i;
    }
  g_assert_not_reached ();
}

/* The row of the current body's joint @name. */
static guint
joint_row_of (Fixture    *f,
              const char *name)
{
  GListModel *rows = G_LIST_MODEL (km_item_tree_get_selection_model (f->tree));

  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(GtkTreeListRow) row = g_list_model_get_item (rows, i);
      g_autoptr(KmItemRow) item_row = gtk_tree_list_row_get_item (row);
      g_autofree char *row_name = NULL;

      g_object_get (item_row, "name", &row_name, NULL);
      if (km_item_row_get_joint (item_row) >= 0 && g_strcmp0 (row_name, name) == 0)
        return i;
    }
  g_assert_not_reached ();
}

static KmItemRow *
item_row_at (Fixture *f,
             guint    position)
{
  g_autoptr(GtkTreeListRow) row =
    g_list_model_get_item (G_LIST_MODEL (km_item_tree_get_selection_model (f->tree)), position);

  return gtk_tree_list_row_get_item (row);
}

static void
open_fixture (Fixture    *f,
              const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);

  g_assert_true (test_app_open_file (f->window, file));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  test_app_spin ();
}

typedef struct
{
  int         fd;
  const char *text;
} PipeWriter;

static gpointer
write_pipe (gpointer data)
{
  PipeWriter *writer = data;
  gsize length = strlen (writer->text);

  for (gsize done = 0; done < length;)
    {
      gssize n = write (writer->fd, writer->text + done, length - done);

      g_assert_cmpint (n, >, 0);
      done += (gsize) n;
    }
  return NULL;
}

/* A project given as a named pipe (`kinema fifo.cnoid`): the window reads nothing of it
 * on the main thread. The review found the window frozen in open(2) while the pipe had no
 * writer, and with one, its text read by the check whether it is a project, leaving the
 * load nothing. With a writer it opens; with unsaved work the question comes first,
 * without reading the pipe. */
static void
test_open_pipe (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *source_dir = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema",
                                                       NULL);
  g_autofree char *dir = km_test_make_tmp_dir ("km-window-pipe-XXXXXX");
  g_autofree char *fifo = g_build_filename (dir, "pipe.cnoid", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (fifo);
  g_autofree char *text = NULL;
  g_autoptr(GThread) thread = NULL;
  PipeWriter writer = { -1, NULL };
  const char *names[] = { "arm.json", "targets.json" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *from = g_build_filename (source_dir, names[i], NULL);
      g_autofree char *to = g_build_filename (dir, names[i], NULL);
      g_autofree char *contents = NULL;
      gsize length = 0;

      g_assert_true (g_file_get_contents (from, &contents, &length, NULL));
      g_assert_true (g_file_set_contents (to, contents, (gssize) length, NULL));
    }
  {
    g_autofree char *arm = g_build_filename (source_dir, "arm.cnoid", NULL);

    g_assert_true (g_file_get_contents (arm, &text, NULL, NULL));
  }
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);

  /* With unsaved work: asked first, nothing read (no writer: a read would never end). */
  km_document_set_dof_value (f->document, 3, 0.5);
  g_assert_true (km_document_get_modified (f->document));
  g_assert_false (km_window_open_file (f->window, file));
  g_assert_nonnull (km_window_get_question (f->window));
  gtk_window_close (km_window_get_question (f->window));
  test_app_spin ();
  g_assert_true (km_document_undo (f->document));
  g_assert_false (km_document_get_modified (f->document));

  /* A writer (read and write: opening it waits for no reader) that ends once its text is
   * in and the load has the pipe open (a pipe's text goes with its last writer when no
   * reader has it open): the load reads all of it. Written first, since the editor waits
   * for no writer: a pipe with nothing in it is refused at once. */
  writer.fd = open (fifo, O_RDWR | O_CLOEXEC);
  g_assert_cmpint (writer.fd, >=, 0);
  writer.text = text;
  thread = g_thread_new ("writer", write_pipe, &writer);
  g_thread_join (g_steal_pointer (&thread));
  g_assert_true (km_window_open_file (f->window, file));
  {
    gint64 end = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;

    while (test_app_count_opened (fifo) < 2 && g_get_monotonic_time () < end)
      g_usleep (1000);
    g_assert_cmpuint (test_app_count_opened (fifo), >=, 2);
  }
  close (writer.fd);
  g_assert_true (test_app_wait_loaded (f->window));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  /* The pipe's project shows, as a project without a file: there is nothing on disk to
   * save back to or to compare with (Save said the file had changed on disk). It is
   * unsaved work, and Save asks where to save it. */
  g_assert_cmpstr (km_item_get_name (km_document_get_body_item (f->document)), ==, "Arm");
  g_assert_null (km_document_get_file (f->document));
  g_assert_null (km_document_get_file_identity (f->document));
  g_assert_true (km_document_get_modified (f->document));
  g_assert_cmpstr (title (f), ==, "Untitled* — Kinema");
  g_assert_true (test_app_has_message (f->document, G_LOG_LEVEL_INFO, fifo,
                                       " is not a regular file: the project opened from it is "
                                       "untitled, and Save asks where to save it.", NULL));
  if (test_app_have_chooser_schema ())
    {
      /* (GTK warns of the chooser's search icon, whose MIME type the isolated
       * XDG_DATA_DIRS hide: no failure here; criticals still are.) */
      GLogLevelFlags fatal = g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);

      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.save", NULL));
      g_assert_true (test_app_wait_until (test_app_chooser_shown, NULL, 10000));
      G_GNUC_BEGIN_IGNORE_DEPRECATIONS
      g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (test_app_find_chooser ())), ==,
                       "Save Project As");
      gtk_dialog_response (GTK_DIALOG (test_app_find_chooser ()), GTK_RESPONSE_CANCEL);
      G_GNUC_END_IGNORE_DEPRECATIONS
      g_assert_true (test_app_wait_until (test_app_chooser_gone, NULL, 10000));
      test_app_spin ();
      g_log_set_always_fatal (fatal);
      g_assert_false (km_window_get_saving (f->window));
    }
  else
    g_test_message ("GTK's file chooser schema is not installed: Save As not opened");
  /* Saved as a file (what Save As writes), it is that file's project from then on. */
  {
    g_autofree char *saved = g_build_filename (dir, "saved.cnoid", NULL);
    g_autoptr(GFile) saved_file = g_file_new_for_path (saved);
    g_autoptr(KmDocument) reopened = km_document_new ();
    g_autoptr(GError) error = NULL;

    g_assert_true (km_document_save (f->document, saved_file, &error));
    g_assert_no_error (error);
    g_assert_true (g_file_equal (km_document_get_file (f->document), saved_file));
    g_assert_false (km_document_get_modified (f->document));
    g_assert_cmpstr (title (f), ==, "saved.cnoid — Kinema");
    g_assert_true (km_document_import_file (reopened, saved_file, &error));
    g_assert_no_error (error);
    g_assert_cmpstr (km_item_get_name (km_document_get_body_item (reopened)), ==, "Arm");
    g_assert_true (test_app_wait_idle_solve (reopened, 20000));
  }

  g_unlink (fifo);
  km_test_remove_tree (dir);
}

/* A .cnoid project shows its body and its items; Save As and reload keep the joint values. */
static void
test_save_as_reload (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *arm = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema",
                                                "arm.cnoid", NULL);
  g_autofree char *dir = km_test_make_tmp_dir ("km-window-project-XXXXXX");
  g_autofree char *copy = g_build_filename (dir, "arm-copy.cnoid", NULL);
  g_autoptr(GFile) copy_file = g_file_new_for_path (copy);
  g_autoptr(KmDocument) reloaded = km_document_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *rows = NULL;
  g_autofree double *saved = NULL;
  guint n_dof;

  open_fixture (f, arm);
  g_assert_cmpstr (title (f), ==, "arm.cnoid — Kinema");
  g_assert_cmpstr (km_item_get_name (km_document_get_body_item (f->document)), ==, "Arm");
  rows = tree_rows (f);
  g_assert_cmpstr (rows, ==,
                   "0:World\n1:Arm\n2:Targets\n2:Targets from a file\n2:Motion\n");
  g_free (rows);
  rows = tree_rows_with_joints (f, TRUE);
  g_assert_cmpstr (rows, ==,
                   "0:World\n1:Arm\n2:@Root\n2:@Shoulder\n2:@Elbow\n2:@Piston\n2:@EndEffector\n"
                   "2:Targets\n2:Targets from a file\n2:Motion\n");
  /* joint_displacements: [ 10, 20, 30, 45, 0.25 ] (degrees, the piston in metres) */
  g_assert_cmpfloat_with_epsilon (state (km_document_get_body_item (f->document))[3],
                                  45.0 * G_PI / 180.0, 1e-9);

  km_document_set_dof_value (f->document, 3, 0.7);
  g_assert_cmpfloat_with_epsilon (state (km_document_get_body_item (f->document))[3], 0.7, 1e-12);
  g_assert_cmpstr (title (f), ==, "arm.cnoid* — Kinema");
  g_assert_true (km_document_save (f->document, copy_file, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (title (f), ==, "arm-copy.cnoid — Kinema");
  g_assert_false (km_document_get_modified (f->document));
  km_document_get_pose (f->document, &n_dof);
  g_assert_cmpuint (n_dof, ==, 5);
  saved = g_memdup2 (state (km_document_get_body_item (f->document)), n_dof * sizeof (double));

  g_assert_true (km_document_import_file (reloaded, copy_file, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_wait_idle_solve (reloaded, 20000));
  for (guint i = 0; i < n_dof; i++)
    g_assert_cmpfloat_with_epsilon (state (km_document_get_body_item (reloaded))[i], saved[i], 1e-9);
  g_assert_false (km_document_get_modified (reloaded));
}

/* The built-in example saves with its model beside it and opens again. */
static void
test_save_example (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *dir = km_test_make_tmp_dir ("km-example-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "example.cnoid", NULL);
  g_autofree char *model = g_build_filename (dir, "skeleton.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(KmDocument) reloaded = km_document_new ();
  g_autoptr(GError) error = NULL;

  km_document_set_dof_value (f->document, 1, 0.3);
  g_assert_true (km_document_save (f->document, file, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_test (model, G_FILE_TEST_IS_REGULAR));
  g_assert_cmpstr (title (f), ==, "example.cnoid — Kinema");

  g_assert_true (km_document_import_file (reloaded, file, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_wait_idle_solve (reloaded, 20000));
  g_assert_nonnull (km_document_get_skeleton (reloaded));
  g_assert_cmpuint (km_skeleton_get_n_joints (km_document_get_skeleton (reloaded)), ==, 5);
  g_assert_nonnull (km_document_get_targets (reloaded));
  g_assert_cmpfloat_with_epsilon (state (km_document_get_body_item (reloaded))[1], 0.3, 1e-9);
}


static void
assert_vec3_near (KmVec3 a,
                  KmVec3 b,
                  double epsilon)
{
  g_assert_cmpfloat_with_epsilon (a.x, b.x, epsilon);
  g_assert_cmpfloat_with_epsilon (a.y, b.y, epsilon);
  g_assert_cmpfloat_with_epsilon (a.z, b.z, epsilon);
}

static void
assert_camera_equal (const KmCamera *a,
                     const KmCamera *b)
{
  assert_vec3_near (a->target, b->target, 1e-9);
  g_assert_cmpfloat_with_epsilon (a->yaw, b->yaw, 1e-9);
  g_assert_cmpfloat_with_epsilon (a->pitch, b->pitch, 1e-9);
  g_assert_cmpfloat_with_epsilon (a->distance, b->distance, 1e-9);
  g_assert_cmpfloat_with_epsilon (a->fov_y, b->fov_y, 1e-9);
  g_assert_cmpint (a->orthographic, ==, b->orthographic);
}

/* File → Save writes the camera into `views` and the time bar into `toolbars` with
 * Choreonoid's keys; opening the file again brings both back. */
static void
test_layout_round_trip (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *arm = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema",
                                                "arm.cnoid", NULL);
  g_autofree char *dir = km_test_make_tmp_dir ("km-window-project-XXXXXX");
  g_autofree char *copy = g_build_filename (dir, "arm-layout.cnoid", NULL);
  g_autoptr(GFile) copy_file = g_file_new_for_path (copy);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  KmSceneView *view = KM_SCENE_VIEW (km_window_get_scene_view (f->window));
  KmTimeBar *bar = KM_TIME_BAR (km_window_get_time_bar (f->window));
  KmCamera camera;
  KmCamera saved;
  guint frame;

  open_fixture (f, arm);
  g_assert_true (km_document_save (f->document, copy_file, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (km_document_get_n_frames (f->document), >, 5);

  camera = *km_scene_view_get_camera (view);
  camera.target = km_vec3 (0.1, -0.2, 0.7);
  camera.yaw = -2.0;
  camera.pitch = 0.3;
  camera.distance = 2.25;
  camera.fov_y = 0.6;
  camera.orthographic = TRUE;
  km_scene_view_set_camera (view, &camera);
  saved = *km_scene_view_get_camera (view);
  frame = km_document_get_n_frames (f->document) / 2;
  km_document_set_current_frame (f->document, frame);
  km_time_bar_set_speed (bar, 2.0);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.save", NULL));
  g_assert_true (test_app_wait_saved (f->window));
  g_assert_true (g_file_get_contents (copy, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "class: SceneView"));
  g_assert_nonnull (strstr (text, "camera: [ System, Orthographic ]\n          is_current: true"));
  g_assert_nonnull (strstr (text, "  \"TimeBar\":\n    current_time: "));
  g_assert_nonnull (strstr (text, "    playback_speed_ratio: 2\n"));

  /* Elsewhere, then back by opening the saved file */
  km_scene_view_reset_camera (view);
  km_scene_view_set_orthographic (view, FALSE);
  km_document_set_current_frame (f->document, 0);
  km_time_bar_set_speed (bar, 1.0);
  open_fixture (f, copy);
  g_assert_cmpstr (title (f), ==, "arm-layout.cnoid — Kinema");
  assert_camera_equal (km_scene_view_get_camera (view), &saved);
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, frame);
  g_assert_cmpfloat (km_time_bar_get_speed (bar), ==, 2.0);
  g_assert_false (km_document_get_modified (f->document));

  /* Opened before the window is shown (a file on the command line): the same camera once
   * the view has its size (which the field of view depends on, for a wide view). */
  {
    KmWindow *second = km_window_new (NULL);
    KmSceneView *second_view = KM_SCENE_VIEW (km_window_get_scene_view (second));
    gint64 end;

    gtk_window_set_default_size (GTK_WINDOW (second), 900, 600);
    g_assert_true (test_app_open_file (second, copy_file));
    gtk_window_present (GTK_WINDOW (second));
    end = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
    while ((km_scene_view_get_n_renders (second_view) == 0
            || km_document_get_solving (km_window_get_document (second)))
           && gtk_gl_area_get_error (GTK_GL_AREA (second_view)) == NULL
           && g_get_monotonic_time () < end)
      if (!g_main_context_iteration (NULL, FALSE))
        g_usleep (2000);
    assert_camera_equal (km_scene_view_get_camera (second_view), &saved);
    gtk_window_destroy (GTK_WINDOW (second));
    test_app_spin ();
  }
}

/* A project whose body is in a sub-project (Choreonoid's SubProjectItem): an edit of the
 * sub-project's targets is saved to the sub-project's own file, Messages names both files
 * written, the document is clean, and the project opens again with the edit. The time bar
 * starts at the project's own time, not at the sub-project's. */
static void
test_sub_project_save (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *arm = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema",
                                                "arm.cnoid", NULL);
  g_autofree char *dir = km_test_make_tmp_dir ("km-window-sub-XXXXXX");
  g_autofree char *main_path = g_build_filename (dir, "main.cnoid", NULL);
  g_autofree char *part_path = g_build_filename (dir, "part.cnoid", NULL);
  g_autoptr(GFile) main_file = g_file_new_for_path (main_path);
  g_autoptr(GError) error = NULL;
  g_autofree char *arm_text = NULL;
  g_autofree char *part_text = NULL;
  g_autofree char *text = NULL;
  KmTargetTrack *targets;
  const char *names[] = { "arm.json", "targets.json" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *from = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema",
                                                     names[i], NULL);
      g_autofree char *to = g_build_filename (dir, names[i], NULL);
      g_autofree char *contents = NULL;
      gsize length;

      g_assert_true (g_file_get_contents (from, &contents, &length, NULL));
      g_assert_true (g_file_set_contents (to, contents, length, NULL));
    }
  /* The sub-project is at 0.5 s (frame 12 at 24 frames a second), the project at 0.25 s. */
  g_assert_true (g_file_get_contents (arm, &arm_text, NULL, NULL));
  part_text = g_strconcat (arm_text,
                           "toolbars:\n"
                           "  \"TimeBar\":\n"
                           "    current_time: 0.5\n"
                           "    frame_rate: 24\n", NULL);
  g_assert_true (g_file_set_contents (part_path, part_text, -1, NULL));
  test_app_write_sub_project_main (main_path, "part.cnoid",
                                   "toolbars:\n"
                                   "  \"TimeBar\":\n"
                                   "    current_time: 0.25\n"
                                   "    frame_rate: 24\n");

  open_fixture (f, main_path);
  g_assert_cmpstr (km_item_get_name (km_document_get_body_item (f->document)), ==, "Arm");
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 6);
  targets = km_document_get_targets (f->document);
  g_assert_cmpuint (km_target_track_get_n_keyframes (targets), ==, 2);

  g_assert_true (km_document_delete_keyframe (f->document, 12));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_true (km_document_get_modified (f->document));
  g_assert_true (km_document_save (f->document, main_file, &error));
  g_assert_no_error (error);
  g_assert_false (km_document_get_modified (f->document));
  g_assert_cmpstr (title (f), ==, "main.cnoid — Kinema");
  g_assert_true (test_app_has_message (f->document, G_LOG_LEVEL_INFO, "Saved ", part_path,
                                       NULL));
  g_assert_true (test_app_has_message (f->document, G_LOG_LEVEL_INFO, "Saved ", main_path,
                                       NULL));

  g_assert_true (g_file_get_contents (part_path, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "{ frame: 0, pos: [ 0, 1.5, 3.5 ]"));
  g_assert_null (strstr (text, "{ frame: 12, pos:"));
  /* The project still only refers to the sub-project. */
  g_clear_pointer (&text, g_free);
  g_assert_true (g_file_get_contents (main_path, &text, NULL, NULL));
  g_assert_null (strstr (text, "IKTargetsItem"));
  g_assert_nonnull (strstr (text, "file: \"part.cnoid\""));

  /* Opened again: the edit is there, and the time is the project's. */
  km_document_set_current_frame (f->document, 0);
  open_fixture (f, main_path);
  g_assert_cmpstr (title (f), ==, "main.cnoid — Kinema");
  targets = km_document_get_targets (f->document);
  g_assert_cmpuint (km_target_track_get_n_keyframes (targets), ==, 1);
  g_assert_cmpuint (km_target_track_get_keyframe (targets, 0)->frame, ==, 0);
  g_assert_false (km_document_get_modified (f->document));

  /* A key added past the end of the motion and saved there (rev16-gui finding 1's second
   * case): the project opens again at that frame. (It used to open at the sub-project's
   * last frame: the key was not saved, so the motion ended before the saved time.) */
  km_document_set_current_frame (f->document, 48);
  g_assert_true (km_document_set_keyframe (f->document, 48));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_cmpuint (km_document_get_n_frames (f->document), ==, 49);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.save", NULL));
  g_assert_true (test_app_wait_saved (f->window));
  g_assert_false (km_document_get_modified (f->document));
  km_document_set_current_frame (f->document, 0);
  open_fixture (f, main_path);
  targets = km_document_get_targets (f->document);
  g_assert_cmpuint (km_target_track_get_n_keyframes (targets), ==, 2);
  g_assert_cmpuint (km_target_track_get_keyframe (targets, 1)->frame, ==, 48);
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 48);
  km_test_remove_tree (dir);
}

/* The body named @name below the project's World. */
static KmItem *
world_body (Fixture    *f,
            const char *name)
{
  KmItem *root = km_project_get_root_item (km_document_get_project (f->document));
  KmItem *world = km_item_find_child_by_name (root, "World");
  KmItem *body;

  g_assert_nonnull (world);
  body = km_item_find_child_by_name (world, name);
  g_assert_true (KM_IS_BODY_ITEM (body));
  return body;
}

/* The frame rate of @body's IK targets. */
static double
targets_rate (KmItem *body)
{
  KmItem *item = km_item_find_child_by_type (body, KM_TYPE_IK_TARGETS_ITEM);

  g_assert_nonnull (item);
  g_assert_nonnull (km_ik_targets_item_get_track (KM_IK_TARGETS_ITEM (item)));
  return km_target_track_get_frame_rate (km_ik_targets_item_get_track (KM_IK_TARGETS_ITEM (item)));
}

static void
show_body (Fixture    *f,
           const char *name)
{
  km_document_set_current_body (f->document, world_body (f, name));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  test_app_spin ();
  g_assert_true (km_document_get_body_item (f->document) == world_body (f, name));
}

/* A project of three bodies on arm.json in @arm_dir: First (targets at 60 frames a
 * second, current), Second (at 24) and Third (no motion); with @time_bar, the project's
 * time bar runs at 50. */
static char *
rates_project_text (const char *arm_dir,
                    gboolean    time_bar)
{
  g_autofree char *items = g_strdup_printf (
    "items:\n"
    "  id: 0\n  name: \"RootItem\"\n  plugin: Base\n  class: RootItem\n"
    "  is_builtin_item: true\n"
    "  children:\n"
    "    -\n      id: 1\n      name: \"World\"\n      plugin: Body\n"
    "      class: WorldItem\n      is_checked: true\n"
    "      children:\n"
    "        -\n          id: 2\n          name: \"First\"\n"
    "          plugin: Body\n          class: BodyItem\n          is_checked: true\n"
    "          data:\n            file: \"%s/arm.json\"\n"
    "            format: SKELETON-JSON\n            fix_root: true\n"
    "          children:\n"
    "            -\n              id: 3\n              name: \"Targets\"\n"
    "              plugin: Kinema\n              class: IKTargetsItem\n"
    "              data:\n                effector: \"EndEffector\"\n"
    "                frame_rate: 60\n"
    "                keyframes:\n"
    "                  - { frame: 0, pos: [ 0, 1.5, 3.5 ], euler: [ 0, 0, 0 ] }\n"
    "                  - { frame: 30, pos: [ 0.5, 1.5, 3 ], euler: [ 0, 90, 0 ] }\n"
    "        -\n          id: 4\n          name: \"Second\"\n"
    "          plugin: Body\n          class: BodyItem\n          is_checked: true\n"
    "          data:\n            file: \"%s/arm.json\"\n"
    "            format: SKELETON-JSON\n            fix_root: true\n"
    "          children:\n"
    "            -\n              id: 5\n              name: \"Targets\"\n"
    "              plugin: Kinema\n              class: IKTargetsItem\n"
    "              data:\n                effector: \"EndEffector\"\n"
    "                frame_rate: 24\n"
    "                keyframes:\n"
    "                  - { frame: 0, pos: [ 0, 1.5, 3.5 ], euler: [ 0, 0, 0 ] }\n"
    "                  - { frame: 12, pos: [ 0.5, 1.5, 3 ], euler: [ 0, 90, 0 ] }\n"
    "        -\n          id: 6\n          name: \"Third\"\n"
    "          plugin: Body\n          class: BodyItem\n          is_checked: true\n"
    "          data:\n            file: \"%s/arm.json\"\n"
    "            format: SKELETON-JSON\n            fix_root: true\n",
    arm_dir, arm_dir, arm_dir);

  return g_strconcat (items, time_bar ?
    "Body:\n"
    "  \"BodySelectionManager\":\n"
    "    current_body_item: 2\n"
    "toolbars:\n"
    "  \"TimeBar\":\n"
    "    current_time: 0\n"
    "    min_time: 0\n"
    "    max_time: 10\n"
    "    frame_rate: 50\n"
    "    playback_frame_rate: 60\n"
    "    playback_speed_ratio: 1\n" : "", NULL);
}

/* A project's time bar rate is its own: saved while a body whose IK targets run at another
 * rate is current, the project keeps its TimeBar `frame_rate` (it used to take the current
 * body's targets' rate, so a body without a motion of its own played at that rate once the
 * file was opened again), and each body's targets keep theirs. */
static void
test_save_keeps_time_bar_rate (Fixture       *f,
                               gconstpointer  data)
{
  g_autofree char *arm_dir = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema", NULL);
  g_autofree char *dir = km_test_make_tmp_dir ("km-window-rate-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "rates.cnoid", NULL);
  g_autofree char *contents = NULL;
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  KmTimeBarState bar;

  contents = rates_project_text (arm_dir, TRUE);
  g_file_set_contents (path, contents, -1, &error);
  g_assert_no_error (error);
  open_fixture (f, path);

  g_assert_cmpstr (km_item_get_name (km_document_get_body_item (f->document)), ==, "First");
  g_assert_cmpfloat (km_document_get_frame_rate (f->document), ==, 60);
  /* A body without a motion of its own shows the project's rate. */
  show_body (f, "Third");
  g_assert_cmpfloat (km_document_get_frame_rate (f->document), ==, 50);
  /* The body saved with: its targets run at 24 frames a second. */
  show_body (f, "Second");
  g_assert_cmpfloat (km_document_get_frame_rate (f->document), ==, 24);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.save", NULL));
  g_assert_true (test_app_wait_saved (f->window));
  g_assert_false (km_document_get_modified (f->document));
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "  \"TimeBar\":\n"));
  g_assert_null (strstr (text, "\n    frame_rate: 24\n"));
  g_assert_nonnull (strstr (text, "\n    frame_rate: 50\n"));

  /* Opened again: the time bar's rate is the project's, each body's targets keep theirs,
   * and the body without a motion plays at the project's rate. */
  open_fixture (f, path);
  g_assert_true (km_layout_state_get_time_bar (km_document_get_project (f->document), &bar));
  g_assert_cmpfloat (bar.frame_rate, ==, 50);
  g_assert_cmpfloat (targets_rate (world_body (f, "First")), ==, 60);
  g_assert_cmpfloat (targets_rate (world_body (f, "Second")), ==, 24);
  show_body (f, "Third");
  g_assert_cmpfloat (km_document_get_frame_rate (f->document), ==, 50);
  show_body (f, "Second");
  g_assert_cmpfloat (km_document_get_frame_rate (f->document), ==, 24);
  show_body (f, "First");
  g_assert_cmpfloat (km_document_get_frame_rate (f->document), ==, 60);
  km_test_remove_tree (dir);
}

/* Choreonoid's own project opens with its camera (eye, direction, up as the file has them). */
static void
test_layout_choreonoid_camera (Fixture       *f,
                               gconstpointer  data)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "share",
                                                 "project", "ClosedLinkSample.cnoid", NULL);
  KmSceneView *view = KM_SCENE_VIEW (km_window_get_scene_view (f->window));
  const KmCamera *camera;
  KmVec3 direction = km_vec3 (-0.650101, -0.716069, -0.254193);

  open_fixture (f, path);
  camera = km_scene_view_get_camera (view);
  g_assert_false (camera->orthographic);
  assert_vec3_near (km_camera_get_eye (camera), km_vec3 (0.817133, 0.834253, 0.399377), 1e-6);
  assert_vec3_near (km_camera_get_forward (camera),
                    km_vec3_scale (direction, 1.0 / km_vec3_length (direction)), 1e-6);
  assert_vec3_near (km_camera_get_up (camera), km_vec3 (-0.170863, -0.188201, 0.967154), 1e-5);
}

/* SR1WalkEdit.cnoid's SceneView, up to its perspective camera's keys, and that camera's
 * field of view and place. */
#define SR1_SCENE_VIEW_CAMERAS \
  "views:\n" \
  "  - id: 4\n" \
  "    plugin: Base\n" \
  "    class: SceneView\n" \
  "    state:\n" \
  "      cameras:\n" \
  "        - camera: [ System, Perspective ]\n"
#define SR1_PERSPECTIVE_PLACE \
  "          fieldOfView: 0.6978\n" \
  "          eye: [ 2.38053, 1.54674, 1.10801 ]\n" \
  "          direction: [ -0.82064, -0.55381, -0.140871 ]\n" \
  "          up: [ -0.116769, -0.0788013, 0.990028 ]\n"

/* Choreonoid's older camelCase keys (SR1WalkEdit.cnoid's SceneView and TimeBar). */
static void
test_layout_camel_case (void)
{
  static const char text[] =
    SR1_SCENE_VIEW_CAMERAS
    "          isCurrent: true\n"
    SR1_PERSPECTIVE_PLACE
    "        - camera: [ System, Orthographic ]\n"
    "          orthoHeight: 20\n"
    "toolbars:\n"
    "  \"TimeBar\":\n"
    "    minTime: 0\n"
    "    maxTime: 15\n"
    "    frameRate: 200\n"
    "    playbackFrameRate: 50\n"
    "    currentTime: 1.5\n"
    "    speedScale: 0.5\n";
  g_autoptr(KmProject) project = km_project_new ();
  g_autoptr(KmYamlNode) sections = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) out = g_string_new (NULL);
  KmTimeBarState state;
  KmCamera camera;

  sections = km_yaml_parse ("layout.cnoid", text, sizeof text - 1, NULL, &error);
  g_assert_no_error (error);
  km_project_set_sections (project, sections);

  km_camera_reset (&camera);
  g_assert_true (km_layout_state_get_camera (project, &camera));
  g_assert_false (camera.orthographic);
  assert_vec3_near (km_camera_get_eye (&camera), km_vec3 (2.38053, 1.54674, 1.10801), 1e-6);
  /* As the file states it: the angle across the shorter side, whatever the view's shape */
  g_assert_cmpfloat (camera.fov_y, ==, 0.6978);
  g_assert_true (km_layout_state_get_time_bar (project, &state));
  g_assert_cmpfloat (state.current_time, ==, 1.5);
  g_assert_cmpfloat (state.max_time, ==, 15.0);
  g_assert_cmpfloat (state.frame_rate, ==, 200.0);
  g_assert_cmpfloat (state.playback_frame_rate, ==, 50.0);
  g_assert_cmpfloat (state.playback_speed_ratio, ==, 0.5);

  /* Written back in the spelling the file has, the orthographic camera made current */
  camera.orthographic = TRUE;
  km_layout_state_set_camera (project, &camera);
  state.current_time = 2.0;
  km_layout_state_set_time_bar (project, &state);
  km_yaml_emit (km_project_get_sections (project), out);
  g_assert_null (strstr (out->str, "is_current"));
  g_assert_null (strstr (out->str, "current_time"));
  g_assert_nonnull (strstr (out->str, "camera: [ System, Orthographic ]\n          orthoHeight: "));
  g_assert_nonnull (strstr (out->str, "    currentTime: 2\n"));
  g_assert_nonnull (strstr (out->str, "    speedScale: 0.5\n"));
  /* The parsed tree the project had first is not changed */
  {
    KmYamlNode *views = km_yaml_mapping_lookup (sections, "views");
    KmYamlNode *state_node = km_yaml_mapping_lookup (km_yaml_sequence_get (views, 0), "state");
    KmYamlNode *cameras = km_yaml_mapping_lookup (state_node, "cameras");

    g_assert_nonnull (km_yaml_mapping_lookup (km_yaml_sequence_get (cameras, 0), "isCurrent"));
    g_assert_null (km_yaml_mapping_lookup (km_yaml_sequence_get (cameras, 1), "isCurrent"));
  }
  {
    KmCamera back;

    km_camera_reset (&back);
    g_assert_true (km_layout_state_get_camera (project, &back));
    g_assert_true (back.orthographic);
    assert_camera_equal (&back, &camera);
  }
}

/* A current orthographic camera keeps the file's orthoHeight whatever the view's shape
 * between open and save: read in a tall view, written from a wide one, it used to become
 * half of what the file had (20 became 10). */
static void
test_layout_ortho_height_kept (void)
{
  static const char text[] =
    SR1_SCENE_VIEW_CAMERAS
    SR1_PERSPECTIVE_PLACE
    "        - camera: [ System, Orthographic ]\n"
    "          isCurrent: true\n"
    "          orthoHeight: 20\n";
  g_autoptr(KmProject) project = km_project_new ();
  g_autoptr(KmYamlNode) sections = NULL;
  g_autoptr(GError) error = NULL;
  KmYamlNode *entry;
  KmCamera camera;
  double height;

  sections = km_yaml_parse ("ortho.cnoid", text, sizeof text - 1, NULL, &error);
  g_assert_no_error (error);
  km_project_set_sections (project, sections);

  km_camera_reset (&camera);
  g_assert_true (km_layout_state_get_camera (project, &camera));
  g_assert_true (camera.orthographic);
  km_layout_state_set_camera (project, &camera);
  entry = km_yaml_sequence_get (
    km_yaml_mapping_lookup (km_yaml_mapping_lookup (
      km_yaml_sequence_get (km_yaml_mapping_lookup (km_project_get_sections (project), "views"),
                            0), "state"), "cameras"), 1);
  g_assert_true (km_yaml_scalar_to_double (km_yaml_mapping_lookup (entry, "orthoHeight"),
                                           &height));
  g_assert_cmpfloat_with_epsilon (height, 20.0, 1e-9);
}

typedef struct
{
  GtkWidget *view;
  int        height;
} SizeWait;

static void
set_flag_cb (gpointer data)
{
  *(gboolean *) data = TRUE;
}

static gboolean
view_height_changed (gpointer data)
{
  SizeWait *wait = data;
  int height = gtk_widget_get_height (wait->view);

  return height > 0 && height != wait->height;
}

/* A project's field of view is kept as the file states it: opened while the scene view
 * has one shape, saved after it has another (a bar shown as it loaded, the window or a
 * pane resized), the file still has the same fieldOfView. It used to be turned into a
 * vertical angle at the shape the view had as the project loaded and written back at the
 * shape it had when saved (0.6978 became 0.6346 after a Recover). */
static void
test_layout_fov_kept_on_resize (Fixture       *f,
                                gconstpointer  data)
{
  g_autofree char *arm = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema",
                                                "arm.cnoid", NULL);
  g_autofree char *dir = km_test_make_tmp_dir ("km-window-fov-XXXXXX");
  g_autofree char *copy = g_build_filename (dir, "arm-fov.cnoid", NULL);
  g_autoptr(GFile) copy_file = g_file_new_for_path (copy);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  KmSceneView *view = KM_SCENE_VIEW (km_window_get_scene_view (f->window));
  SizeWait wait = { GTK_WIDGET (view), 0 };
  KmCamera camera;
  int width;

  /* A copy whose perspective camera has Choreonoid's default field of view */
  open_fixture (f, arm);
  camera = *km_scene_view_get_camera (view);
  camera.fov_y = 0.6978;
  camera.orthographic = FALSE;
  km_layout_state_set_camera (km_document_get_project (f->document), &camera);
  g_assert_true (km_document_save (f->document, copy_file, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (copy, &text, NULL, NULL));
  {
    /* The value stated in the file, whatever the writer made of it */
    g_autoptr(GRegex) fov = g_regex_new ("field_of_view: [^\n]*", 0, 0, NULL);
    g_autofree char *stated = g_regex_replace_literal (fov, text, -1, 0,
                                                       "field_of_view: 0.6978", 0, NULL);

    g_assert_nonnull (strstr (stated, "\n          field_of_view: 0.6978\n"));
    g_assert_true (g_file_set_contents (copy, stated, -1, NULL));
  }
  g_clear_pointer (&text, g_free);

  open_fixture (f, copy);
  width = gtk_widget_get_width (GTK_WIDGET (view));
  wait.height = gtk_widget_get_height (GTK_WIDGET (view));
  g_assert_cmpint (width, >, 0);
  g_assert_cmpint (wait.height, >, 0);

  /* Another shape before the save: taller (the window grows to fit) */
  gtk_widget_set_size_request (GTK_WIDGET (view), -1, wait.height + 150);
  g_assert_true (test_app_wait_until (view_height_changed, &wait, 5000));
  test_app_spin ();
  g_test_message ("view %d x %d, then %d x %d", width, wait.height,
                  gtk_widget_get_width (GTK_WIDGET (view)),
                  gtk_widget_get_height (GTK_WIDGET (view)));
  g_assert_cmpfloat (km_scene_view_get_camera (view)->fov_y, ==, 0.6978);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.save", NULL));
  g_assert_true (test_app_wait_saved (f->window));
  g_assert_true (g_file_get_contents (copy, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "\n          field_of_view: 0.6978\n"));

  gtk_widget_set_size_request (GTK_WIDGET (view), -1, -1);
  km_test_remove_tree (dir);
}

/* Orthographic (key 5) in one project; the next project opened without a camera of its own
 * (the built-in example) comes up in the default perspective view, as Reset Camera gives,
 * not in the projection the last one was left in. */
static void
test_layout_new_project_perspective (Fixture       *f,
                                     gconstpointer  data)
{
  KmSceneView *view = KM_SCENE_VIEW (km_window_get_scene_view (f->window));
  gboolean notified = FALSE;
  gulong id;

  km_scene_view_set_orthographic (view, TRUE);
  g_assert_true (km_scene_view_get_camera (view)->orthographic);
  id = g_signal_connect_swapped (view, "notify::orthographic",
                                 G_CALLBACK (set_flag_cb), &notified);
  g_assert_true (km_window_open_example (f->window));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  test_app_spin ();
  g_signal_handler_disconnect (view, id);
  g_assert_false (km_scene_view_get_camera (view)->orthographic);
  g_assert_true (notified);

  /* Within one project the projection chosen stays (a body added is framed in it). */
  km_scene_view_set_orthographic (view, TRUE);
  g_assert_nonnull (km_document_new_skeleton (f->document, "Root"));
  test_app_spin ();
  g_assert_true (km_scene_view_get_camera (view)->orthographic);
}

static void
window_destroyed_cb (gpointer data)
{
  *(gboolean *) data = TRUE;
}

/* Closing with unsaved changes asks: Cancel keeps the window, Discard closes it. */
static void
test_close_question (void)
{
  KmWindow *window = km_window_new (NULL);
  KmDocument *document = km_window_get_document (window);
  gboolean destroyed = FALSE;
  GtkWindow *question;

  g_object_ref (document);
  g_signal_connect_swapped (window, "destroy", G_CALLBACK (window_destroyed_cb), &destroyed);
  g_assert_true (km_window_open_example (window));
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (test_app_wait_idle_solve (document, 20000));
  km_document_set_dof_value (document, 1, 0.3);

  gtk_window_close (GTK_WINDOW (window));
  test_app_spin ();
  g_assert_false (destroyed);
  question = km_window_get_question (window);
  g_assert_true (GTK_IS_DIALOG (question));
  gtk_dialog_response (GTK_DIALOG (question), GTK_RESPONSE_CANCEL);
  test_app_spin ();
  g_assert_false (destroyed);
  g_assert_null (km_window_get_question (window));
  g_assert_true (km_document_get_modified (document));

  /* New asks too; Cancel keeps the project. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.new", NULL));
  g_assert_nonnull (km_window_get_question (window));
  gtk_dialog_response (GTK_DIALOG (km_window_get_question (window)), GTK_RESPONSE_CANCEL);
  g_assert_nonnull (km_document_get_skeleton (document));

  gtk_window_close (GTK_WINDOW (window));
  test_app_spin ();
  question = km_window_get_question (window);
  g_assert_nonnull (question);
  gtk_dialog_response (GTK_DIALOG (question), GTK_RESPONSE_REJECT);
  test_app_spin ();
  g_assert_true (destroyed);

  g_assert_true (test_app_wait_idle_solve (document, 20000));
  g_assert_finalize_object (document);
}

/* An item Kinema does not know is listed greyed, with a tooltip saying it is kept. */
static void
test_unknown_item (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *arm_dir = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema", NULL);
  g_autofree char *dir = km_test_make_tmp_dir ("km-window-project-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "unknown.cnoid", NULL);
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(KmItemRow) unknown = NULL;
  g_autoptr(KmItemRow) world = NULL;

  contents = g_strdup_printf ("items:\n"
                              "  id: 0\n  name: \"RootItem\"\n  plugin: Base\n  class: RootItem\n"
                              "  children:\n"
                              "    -\n      id: 1\n      name: \"World\"\n      plugin: Body\n"
                              "      class: WorldItem\n      is_checked: true\n"
                              "      children:\n"
                              "        -\n          id: 2\n          name: \"Arm\"\n"
                              "          plugin: Body\n          class: BodyItem\n"
                              "          data:\n            file: \"%s/arm.json\"\n"
                              "            format: SKELETON-JSON\n"
                              "        -\n          id: 3\n          name: \"Sim\"\n"
                              "          plugin: Body\n          class: AISTSimulatorItem\n"
                              "          data:\n            time_step: 0.001\n",
                              arm_dir);
  g_file_set_contents (path, contents, -1, &error);
  g_assert_no_error (error);
  open_fixture (f, path);

  unknown = item_row_at (f, row_of (f, "Sim"));
  g_assert_false (km_item_row_get_known (unknown));
  g_assert_nonnull (strstr (km_item_row_get_tooltip (unknown), "Body/AISTSimulatorItem"));
  g_assert_nonnull (strstr (km_item_row_get_tooltip (unknown), "kept"));
  world = item_row_at (f, row_of (f, "World"));
  g_assert_true (km_item_row_get_known (world));
}

/* The top rows of the tree as "name" or "name!" (marked failed), separated by commas. */
static char *
top_rows (Fixture *f)
{
  GListModel *rows = G_LIST_MODEL (km_item_tree_get_selection_model (f->tree));
  g_autoptr(GString) text = g_string_new (NULL);

  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(GtkTreeListRow) row = g_list_model_get_item (rows, i);
      g_autoptr(KmItemRow) item_row = gtk_tree_list_row_get_item (row);

      if (gtk_tree_list_row_get_depth (row) > 0 || km_item_row_get_joint (item_row) >= 0)
        continue;
      g_string_append_printf (text, "%s%s%s", text->len > 0 ? "," : "",
                              km_item_get_name (km_item_row_get_item (item_row)),
                              g_strcmp0 (km_item_row_get_icon_name (item_row),
                                         "dialog-warning-symbolic") == 0 ? "!" : "");
    }
  return g_string_free (g_steal_pointer (&text), FALSE);
}

/* A project whose top item cannot be read shows that item in the tree, marked, with the
 * reason in its tooltip (as Messages has it), rather than an empty tree: a body written
 * as the top item whose model is missing, and a RootItem whose children are malformed
 * (kept verbatim, saved back unchanged). A project file Kinema cannot read at all opens
 * nothing: the project open before stays, and Messages says why. */
static void
test_unreadable_root (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *dir = km_test_make_tmp_dir ("km-root-XXXXXX");
  g_autofree char *body_top = g_build_filename (dir, "body-top.cnoid", NULL);
  g_autofree char *bad_children = g_build_filename (dir, "bad-children.cnoid", NULL);
  g_autofree char *bad_items = g_build_filename (dir, "bad-items.cnoid", NULL);
  g_autofree char *rows = NULL;
  g_autofree char *before = NULL;
  g_autoptr(KmItemRow) row = NULL;
  g_autoptr(GFile) file = NULL;

  g_assert_true (g_file_set_contents (body_top,
                                      "items:\n  id: 0\n  name: \"B\"\n  plugin: Body\n"
                                      "  class: BodyItem\n  data:\n    file: \"nope.body\"\n"
                                      "    format: CHOREONOID-BODY\n", -1, NULL));
  g_assert_true (g_file_set_contents (bad_children,
                                      "items:\n  id: 0\n  name: \"RootItem\"\n  plugin: Base\n"
                                      "  class: RootItem\n  children: 7\n", -1, NULL));
  g_assert_true (g_file_set_contents (bad_items, "items: 3\n", -1, NULL));

  open_fixture (f, body_top);
  g_assert_true (test_app_has_message (f->document, G_LOG_LEVEL_WARNING, "nope.body", NULL));
  rows = top_rows (f);
  g_assert_cmpstr (rows, ==, "B!");
  row = item_row_at (f, 0);
  g_assert_nonnull (strstr (km_item_row_get_tooltip (row), "nope.body"));
  g_clear_object (&row);
  g_clear_pointer (&rows, g_free);

  open_fixture (f, bad_children);
  g_assert_true (test_app_has_message (f->document, G_LOG_LEVEL_WARNING, "expected a list",
                                       NULL));
  rows = top_rows (f);
  g_assert_cmpstr (rows, ==, "RootItem!");
  row = item_row_at (f, 0);
  g_assert_nonnull (strstr (km_item_row_get_tooltip (row), "could not be read"));
  g_clear_object (&row);
  g_clear_pointer (&rows, g_free);

  /* Nothing readable: what was open stays. */
  open_fixture (f, body_top);
  before = top_rows (f);
  file = g_file_new_for_path (bad_items);
  if (km_window_open_file (f->window, file))
    g_assert_true (test_app_wait_loaded (f->window));
  test_app_spin ();
  g_assert_true (test_app_has_message (f->document, G_LOG_LEVEL_CRITICAL, "bad-items.cnoid:1:8",
                                       NULL)
                 || test_app_has_message (f->document, G_LOG_LEVEL_WARNING,
                                          "bad-items.cnoid:1:8", NULL));
  rows = top_rows (f);
  g_assert_cmpstr (rows, ==, before);
  g_assert_true (g_str_has_suffix (gtk_window_get_title (GTK_WINDOW (f->window)),
                                   "body-top.cnoid — Kinema"));
}

/* F2's action renames through the popover entry; the rename is undoable. */
static void
test_tree_rename (Fixture       *f,
                  gconstpointer  data)
{
  GtkSelectionModel *selection = km_item_tree_get_selection_model (f->tree);
  GtkEditable *entry = km_item_tree_get_rename_entry (f->tree);
  g_autoptr(KmItemRow) row = NULL;
  KmItem *body;

  test_app_spin ();
  row = item_row_at (f, row_of (f, "Body"));
  body = km_item_row_get_item (row);
  g_assert_true (gtk_selection_model_select_item (selection, row_of (f, "Body"), TRUE));
  g_assert_true (g_list_model_get_n_items (km_project_get_selection (km_document_get_project (f->document))) == 1);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->tree), "tree.rename", NULL));
  g_assert_cmpstr (gtk_editable_get_text (entry), ==, "Body");
  gtk_editable_set_text (entry, "Robot");
  g_signal_emit_by_name (entry, "activate");
  g_assert_cmpstr (km_item_get_name (body), ==, "Robot");
  g_assert_true (km_document_get_modified (f->document));
  g_assert_cmpstr (km_item_get_name (km_item_row_get_item (item_row_at (f, 1))), ==, "Robot");

  g_assert_true (km_document_undo (f->document));
  g_assert_cmpstr (km_item_get_name (body), ==, "Body");
  g_assert_false (km_document_get_modified (f->document));
}

/* Delete through the tree removes the selected item from the project, undoably. */
static void
test_tree_delete (Fixture       *f,
                  gconstpointer  data)
{
  GtkSelectionModel *selection = km_item_tree_get_selection_model (f->tree);
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autofree char *restored = NULL;
  KmItem *body = km_document_get_body_item (f->document);

  test_app_spin ();
  before = tree_rows (f);
  g_assert_cmpstr (before, ==, "0:World\n1:Body\n2:IK Targets\n2:Solved Animation\n");
  g_assert_nonnull (km_document_get_targets (f->document));

  g_assert_true (gtk_selection_model_select_item (selection, row_of (f, "IK Targets"), TRUE));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->tree), "tree.delete", NULL));
  test_app_spin ();
  after = tree_rows (f);
  g_assert_cmpstr (after, ==, "0:World\n1:Body\n2:Solved Animation\n");
  g_assert_cmpuint (km_item_get_n_children (body), ==, 1);
  g_assert_null (km_document_get_targets (f->document));
  g_assert_true (km_document_get_modified (f->document));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.undo", NULL));
  test_app_spin ();
  restored = tree_rows (f);
  g_assert_cmpstr (restored, ==, before);
  g_assert_true (KM_IS_IK_TARGETS_ITEM (km_item_get_child (body, 0)));
  g_assert_nonnull (km_document_get_targets (f->document));
  g_assert_false (km_document_get_modified (f->document));

  /* Checking through the tree is an edit too. */
  g_assert_true (gtk_selection_model_select_item (selection, row_of (f, "Body"), TRUE));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->tree), "tree.uncheck", NULL));
  g_assert_false (km_item_get_checked (body));
  g_assert_true (km_document_undo (f->document));
  g_assert_true (km_item_get_checked (body));
}

/* Duplicate copies the body with its children (model and joint state too), undoably. */
static void
test_tree_duplicate (Fixture       *f,
                     gconstpointer  data)
{
  GtkSelectionModel *selection = km_item_tree_get_selection_model (f->tree);
  KmItem *body = km_document_get_body_item (f->document);
  KmItem *world = km_item_get_parent (body);
  g_autofree char *rows = NULL;
  KmItem *copy;

  test_app_spin ();
  km_document_set_dof_value (f->document, 2, 0.4);
  g_assert_true (gtk_selection_model_select_item (selection, row_of (f, "Body"), TRUE));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->tree), "tree.duplicate", NULL));
  test_app_spin ();
  rows = tree_rows (f);
  g_assert_cmpstr (rows, ==, "0:World\n1:Body\n2:IK Targets\n2:Solved Animation\n"
                             "1:Body (copy)\n2:IK Targets\n2:Solved Animation\n");
  copy = km_item_get_child (world, 1);
  g_assert_true (KM_IS_BODY_ITEM (copy));
  g_assert_true (km_body_item_get_skeleton (KM_BODY_ITEM (copy))
                 == km_body_item_get_skeleton (KM_BODY_ITEM (body)));
  g_assert_cmpfloat_with_epsilon (state (copy)[2], 0.4, 1e-12);
  g_assert_nonnull (km_ik_targets_item_get_track (KM_IK_TARGETS_ITEM (km_item_get_child (copy, 0))));

  g_assert_true (km_document_undo (f->document));
  g_assert_cmpuint (km_item_get_n_children (world), ==, 1);
}

/* Save Item As writes the targets item's track as targets.json. */
static void
test_save_item (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *dir = km_test_make_tmp_dir ("km-window-project-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "saved-targets.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmTargetTrack) track = NULL;
  KmItem *targets = km_item_get_child (km_document_get_body_item (f->document), 0);
  KmItem *world = km_item_get_parent (km_document_get_body_item (f->document));

  g_assert_true (km_document_save_item (f->document, targets, file, &error));
  g_assert_no_error (error);
  track = km_targets_json_load_file (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (km_target_track_get_n_keyframes (track), ==,
                    km_target_track_get_n_keyframes (km_document_get_targets (f->document)));
  g_assert_false (km_document_get_modified (f->document));

  g_assert_false (km_document_save_item (f->document, world, file, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
}

/* Moving refuses what an item's new parent cannot take. */
static void
test_tree_move (Fixture       *f,
                gconstpointer  data)
{
  KmItem *body = km_document_get_body_item (f->document);
  KmItem *world = km_item_get_parent (body);
  KmItem *targets = km_item_get_child (body, 0);

  g_assert_false (km_document_move_item (f->document, targets, world, 0));
  g_assert_false (km_document_move_item (f->document, world, body, 0));
  g_assert_false (km_document_can_undo (f->document));

  g_assert_true (km_document_move_item (f->document, targets, body, 2));
  g_assert_true (km_item_get_child (body, 1) == targets);
  g_assert_true (km_document_undo (f->document));
  g_assert_true (km_item_get_child (body, 0) == targets);
}


static void
xdotool_done_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  g_subprocess_wait_check_finish (G_SUBPROCESS (object), result, &error);
  g_assert_no_error (error);
  *(gboolean *) user_data = TRUE;
}

/* A real click (xdotool, through the X server) in the middle of @widget. */
static gboolean
real_click (Fixture   *f,
            GtkWidget *widget)
{
  g_autofree char *xdotool = g_find_program_in_path ("xdotool");
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *xid = NULL;
  g_autofree char *x = NULL;
  g_autofree char *y = NULL;
  double tx, ty, sx, sy;
  gboolean done = FALSE;
  GdkSurface *surface;

  if (xdotool == NULL || !GDK_IS_X11_DISPLAY (gtk_widget_get_display (widget)))
    return FALSE;
  g_assert_true (gtk_widget_translate_coordinates (widget, GTK_WIDGET (f->window),
                                                   gtk_widget_get_width (widget) / 2.0,
                                                   gtk_widget_get_height (widget) / 2.0,
                                                   &tx, &ty));
  gtk_native_get_surface_transform (GTK_NATIVE (f->window), &sx, &sy);
  surface = gtk_native_get_surface (GTK_NATIVE (f->window));
  xid = g_strdup_printf ("%lu", (gulong) gdk_x11_surface_get_xid (surface));
  x = g_strdup_printf ("%ld", lround (tx + sx));
  y = g_strdup_printf ("%ld", lround (ty + sy));
  process = g_subprocess_new (G_SUBPROCESS_FLAGS_NONE, &error, xdotool, "mousemove", "--window",
                              xid, x, y, "sleep", "0.05", "click", "1", NULL);
  g_assert_no_error (error);
  g_subprocess_wait_check_async (process, NULL, xdotool_done_cb, &done);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
  return TRUE;
}

static gboolean
wait_selected_joint (KmDocument *document,
                     int         joint,
                     guint       ms)
{
  gint64 end = g_get_monotonic_time () + ms * 1000;

  while (km_document_get_selected_joint (document) != joint && g_get_monotonic_time () < end)
    if (!g_main_context_iteration (NULL, FALSE))
      g_usleep (2000);
  return km_document_get_selected_joint (document) == joint;
}

/* The selected rows, as tree_rows writes them. */
static char *
selected_rows (Fixture *f)
{
  GtkSelectionModel *selection = km_item_tree_get_selection_model (f->tree);
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (selection)); i++)
    {
      g_autoptr(KmItemRow) row = NULL;
      g_autofree char *name = NULL;

      if (!gtk_selection_model_is_selected (selection, i))
        continue;
      row = item_row_at (f, i);
      g_object_get (row, "name", &name, NULL);
      g_string_append_printf (out, "%s%s\n", km_item_row_get_joint (row) >= 0 ? "@" : "", name);
    }
  return g_string_free (out, FALSE);
}

static char *
project_selection (Fixture *f)
{
  GListModel *selection = km_project_get_selection (km_document_get_project (f->document));
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < g_list_model_get_n_items (selection); i++)
    {
      g_autoptr(KmItem) item = g_list_model_get_item (selection, i);

      g_string_append_printf (out, "%s\n", km_item_get_name (item));
    }
  return g_string_free (out, FALSE);
}

/* Selection is one thing: a joint selected in the scene (the document), in the tree or in
 * the joint panel is the same joint everywhere; an item selected in the tree is no joint. */
static void
test_selection_sync (Fixture       *f,
                     gconstpointer  data)
{
  GtkSelectionModel *selection = km_item_tree_get_selection_model (f->tree);
  KmJointPanel *panel = KM_JOINT_PANEL (km_window_get_joint_panel (f->window));
  KmSkeleton *skeleton = km_document_get_skeleton (f->document);
  const char *elbow = km_skeleton_get_joint (skeleton, 2)->name;
  const char *shoulder = km_skeleton_get_joint (skeleton, 1)->name;
  g_autofree char *rows = NULL;
  g_autofree char *expected = NULL;
  GtkWidget *label;

  rows = tree_rows_with_joints (f, TRUE);
  /* (a serial chain: its joints at one depth) */
  g_assert_cmpstr (rows, ==, "0:World\n1:Body\n2:@Root\n2:@Shoulder\n2:@Elbow\n2:@Piston\n"
                             "2:@EndEffector\n2:IK Targets\n2:Solved Animation\n");

  /* As the scene does when a joint is clicked */
  km_document_set_selected_joint (f->document, 2);
  g_free (rows);
  rows = selected_rows (f);
  expected = g_strdup_printf ("@%s\n", elbow);
  g_assert_cmpstr (rows, ==, expected);
  g_free (rows);
  rows = project_selection (f);
  g_assert_cmpstr (rows, ==, "Body\n");
  label = test_app_find_label (GTK_WIDGET (panel), elbow);
  g_assert_nonnull (label);
  g_assert_true (gtk_widget_has_css_class (label, "heading"));

  /* In the tree */
  g_assert_true (gtk_selection_model_select_item (selection, joint_row_of (f, shoulder), TRUE));
  g_assert_cmpint (km_document_get_selected_joint (f->document), ==, 1);
  g_assert_false (gtk_widget_has_css_class (label, "heading"));
  {
    /* a spherical joint: three rows, X, Y and Z */
    g_autofree char *shoulder_x = g_strdup_printf ("%s X", shoulder);

    g_assert_true (gtk_widget_has_css_class (test_app_find_label (GTK_WIDGET (panel), shoulder_x),
                                             "heading"));
  }

  /* An item is no joint */
  g_assert_true (gtk_selection_model_select_item (selection, row_of (f, "IK Targets"), TRUE));
  g_assert_cmpint (km_document_get_selected_joint (f->document), ==, -1);
  g_free (rows);
  rows = project_selection (f);
  g_assert_cmpstr (rows, ==, "IK Targets\n");
  km_document_set_selected_joint (f->document, -1);
  g_free (rows);
  rows = selected_rows (f);
  g_assert_cmpstr (rows, ==, "IK Targets\n");

  /* A real click on the elbow's name in the joint panel */
  {
    gint64 end = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;

    while (gtk_widget_get_width (label) == 0 && g_get_monotonic_time () < end)
      if (!g_main_context_iteration (NULL, FALSE))
        g_usleep (2000);
    g_test_message ("label %dx%d", gtk_widget_get_width (label), gtk_widget_get_height (label));
  }
  if (!real_click (f, label))
    {
      g_test_skip ("no xdotool or no X11: the joint panel click is not tested");
      return;
    }
  g_assert_true (wait_selected_joint (f->document, 2, 5000));
  g_free (rows);
  rows = selected_rows (f);
  g_assert_cmpstr (rows, ==, expected);
}

/* The other end of a model file that is a named pipe, for a Reload: held open (a read of
 * the pipe ends only once it is closed) until the main loop was seen to run while the file
 * was being read, or at most 20 s: Reload used to read on the main thread, which could not
 * run meanwhile (the test would hang but for this). */
typedef struct
{
  int      fd;
  GMutex   lock;
  GCond    cond;
  gboolean loop_ran;
  gboolean closed;
  gboolean closed_after_loop;   /* closed because the main loop ran */
} HeldPipe;

static gpointer
close_pipe_once_loop_ran (gpointer data)
{
  HeldPipe *held = data;
  gint64 end = g_get_monotonic_time () + 20 * G_TIME_SPAN_SECOND;

  g_mutex_lock (&held->lock);
  while (!held->loop_ran && g_cond_wait_until (&held->cond, &held->lock, end))
    ;
  held->closed_after_loop = held->loop_ran;
  close (held->fd);
  held->closed = TRUE;
  g_mutex_unlock (&held->lock);
  return NULL;
}

static gboolean
note_loop_ran (gpointer data)
{
  HeldPipe *held = data;

  g_mutex_lock (&held->lock);
  held->loop_ran = TRUE;
  g_cond_signal (&held->cond);
  g_mutex_unlock (&held->lock);
  return G_SOURCE_REMOVE;
}

/* What is in the pipe @fd (of @held) and not read yet; 0 once the pipe is closed. */
static int
pipe_unread (HeldPipe *held)
{
  int n = 0;

  g_mutex_lock (&held->lock);
  if (held->closed || ioctl (held->fd, FIONREAD, &n) < 0)
    n = 0;
  g_mutex_unlock (&held->lock);
  return n;
}

/* Reload reads the file on a worker: the window keeps running while a model file is read
 * (here a named pipe whose writer has not finished), and the body is swapped once it is
 * read. Review: Reload read and parsed the model (up to 256 MiB of meshes, or a whole
 * sub-project) on the main thread. */
static void
test_tree_reload_off_main_thread (Fixture       *f,
                                  gconstpointer  data)
{
  g_autofree char *dir = km_test_make_tmp_dir ("km-reload-pipe-XXXXXX");
  g_autofree char *project = g_build_filename (dir, "arm.cnoid", NULL);
  g_autofree char *model = g_build_filename (dir, "arm.json", NULL);
  g_autofree char *regular = g_build_filename (dir, "arm-regular.json", NULL);
  g_autofree char *text = NULL;
  const char *names[] = { "arm.cnoid", "arm.json", "targets.json" };
  GtkSelectionModel *selection = km_item_tree_get_selection_model (f->tree);
  HeldPipe held = { -1, };
  g_autoptr(GThread) thread = NULL;
  g_autoptr(KmItem) old_body = NULL;
  KmItem *body;
  gint64 end;
  int keep;

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *from = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema",
                                                     names[i], NULL);
      g_autofree char *to = g_build_filename (dir, names[i], NULL);
      g_autofree char *contents = NULL;
      gsize length;

      g_assert_true (g_file_get_contents (from, &contents, &length, NULL));
      g_assert_true (g_file_set_contents (to, contents, length, NULL));
    }
  open_fixture (f, project);
  old_body = g_object_ref (km_document_get_body_item (f->document));
  g_assert_true (gtk_selection_model_select_item (selection, row_of (f, "Arm"), TRUE));

  /* From here to the Reload the main loop does not run: nothing else (the file watch)
   * can have opened the pipe, whose text is the Reload's alone. */
  g_assert_true (g_file_get_contents (model, &text, NULL, NULL));
  g_assert_cmpint (g_unlink (model), ==, 0);
  g_assert_cmpint (mkfifo (model, 0600), ==, 0);
  held.fd = open (model, O_RDWR | O_CLOEXEC);
  g_assert_cmpint (held.fd, >=, 0);
  /* (less than a pipe holds: written at once) */
  g_assert_cmpint (write (held.fd, text, strlen (text)), ==, (gssize) strlen (text));
  g_mutex_init (&held.lock);
  g_cond_init (&held.cond);
  thread = g_thread_new ("held-pipe", close_pipe_once_loop_ran, &held);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->tree), "tree.reload", NULL));
  /* The worker reads the text, then waits for the pipe's end. */
  end = g_get_monotonic_time () + 20 * G_TIME_SPAN_SECOND;
  while (pipe_unread (&held) > 0 && g_get_monotonic_time () < end)
    g_usleep (1000);
  g_assert_true (km_item_tree_get_reloading (f->tree));
  g_assert_true (km_document_get_body_item (f->document) == old_body);
  /* The main loop runs while the file is read; then the pipe ends. */
  g_idle_add (note_loop_ran, &held);
  g_assert_true (test_app_wait_reloaded (GTK_WIDGET (f->tree)));
  g_thread_join (g_steal_pointer (&thread));
  g_assert_true (held.closed_after_loop);
  body = km_document_get_body_item (f->document);
  g_assert_true (body != old_body);
  g_assert_cmpuint (km_item_get_n_children (body), ==, 3);
  g_assert_true (test_app_has_message (f->document, G_LOG_LEVEL_INFO, "Reloaded “Arm”",
                                       NULL));
  g_assert_true (km_document_undo (f->document));
  g_assert_true (km_document_get_body_item (f->document) == old_body);

  /* The model is a regular file again; a reader the file watch may have started on the
   * pipe meanwhile sees its end. */
  keep = open (model, O_RDWR | O_CLOEXEC);
  g_assert_cmpint (keep, >=, 0);
  g_assert_true (g_file_set_contents (regular, text, -1, NULL));
  g_assert_cmpint (g_rename (regular, model), ==, 0);
  close (keep);
  g_mutex_clear (&held.lock);
  g_cond_clear (&held.cond);
}

/* Reload reads an item's file again as one undoable step, keeping its place; a file that
 * is gone leaves the item as it was and says so. */
static void
test_tree_reload (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *dir = km_test_make_tmp_dir ("km-reload-XXXXXX");
  g_autofree char *project = g_build_filename (dir, "arm.cnoid", NULL);
  g_autofree char *targets_path = g_build_filename (dir, "targets.json", NULL);
  GtkSelectionModel *selection = km_item_tree_get_selection_model (f->tree);
  const char *names[] = { "arm.cnoid", "arm.json", "targets.json" };
  g_autoptr(KmItem) old_targets = NULL;
  g_autoptr(KmItem) old_body = NULL;
  KmItem *body, *fresh;
  g_autofree char *rows = NULL;
  g_autofree char *rows_after = NULL;
  GListModel *messages;

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *from = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema",
                                                     names[i], NULL);
      g_autofree char *to = g_build_filename (dir, names[i], NULL);
      g_autofree char *contents = NULL;
      gsize length;

      g_assert_true (g_file_get_contents (from, &contents, &length, NULL));
      g_assert_true (g_file_set_contents (to, contents, length, NULL));
    }
  open_fixture (f, project);
  rows = tree_rows (f);
  body = km_document_get_body_item (f->document);
  old_body = g_object_ref (body);
  old_targets = g_object_ref (km_item_get_child (body, 1));
  g_assert_cmpstr (km_item_get_name (old_targets), ==, "Targets from a file");

  /* Embedded targets have no file */
  g_assert_true (gtk_selection_model_select_item (selection, row_of (f, "Targets"), TRUE));
  g_assert_false (gtk_widget_activate_action (GTK_WIDGET (f->tree), "tree.reload", NULL)
                  && km_document_get_modified (f->document));

  g_assert_true (gtk_selection_model_select_item (selection, row_of (f, "Targets from a file"),
                                                  TRUE));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->tree), "tree.reload", NULL));
  g_assert_true (test_app_wait_reloaded (GTK_WIDGET (f->tree)));
  fresh = km_item_get_child (body, 1);
  g_assert_true (fresh != old_targets);
  g_assert_cmpstr (km_item_get_name (fresh), ==, "Targets from a file");
  g_assert_cmpuint (km_target_track_get_n_keyframes (km_ik_targets_item_get_track (KM_IK_TARGETS_ITEM (fresh))),
                    ==,
                    km_target_track_get_n_keyframes (km_ik_targets_item_get_track (KM_IK_TARGETS_ITEM (old_targets))));
  rows_after = tree_rows (f);
  g_assert_cmpstr (rows_after, ==, rows);
  g_assert_true (km_document_get_modified (f->document));
  g_assert_true (km_document_undo (f->document));
  g_assert_true (km_item_get_child (body, 1) == old_targets);
  g_assert_false (km_document_get_modified (f->document));

  /* The body: its model read again, its joint values kept, its children moved over */
  g_assert_true (gtk_selection_model_select_item (selection, row_of (f, "Arm"), TRUE));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->tree), "tree.reload", NULL));
  g_assert_true (test_app_wait_reloaded (GTK_WIDGET (f->tree)));
  body = km_document_get_body_item (f->document);
  g_assert_true (body != old_body);
  g_assert_cmpuint (km_item_get_n_children (body), ==, 3);
  g_assert_cmpuint (km_item_get_n_children (old_body), ==, 0);
  g_assert_cmpfloat_with_epsilon (state (body)[3], 45.0 * G_PI / 180.0, 1e-9);
  g_assert_true (km_document_undo (f->document));
  g_assert_true (km_document_get_body_item (f->document) == old_body);
  g_assert_cmpuint (km_item_get_n_children (old_body), ==, 3);

  /* Saved into another folder, the items' references stay relative to the folder the
   * project was read from: Reload and Duplicate still find their files there. */
  {
    g_autofree char *elsewhere = g_build_filename (dir, "elsewhere", NULL);
    g_autofree char *saved = g_build_filename (elsewhere, "arm.cnoid", NULL);
    g_autoptr(GFile) saved_file = g_file_new_for_path (saved);
    g_autoptr(GError) error = NULL;
    g_autoptr(GPtrArray) items = g_ptr_array_new ();
    KmItem *targets;

    g_assert_cmpint (g_mkdir_with_parents (elsewhere, 0700), ==, 0);
    g_assert_true (km_document_save (f->document, saved_file, &error));
    g_assert_no_error (error);
    body = km_document_get_body_item (f->document);
    g_assert_true (gtk_selection_model_select_item (selection, row_of (f, "Targets from a file"),
                                                    TRUE));
    g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->tree), "tree.reload", NULL));
    g_assert_true (test_app_wait_reloaded (GTK_WIDGET (f->tree)));
    targets = km_item_get_child (body, 1);
    g_assert_true (targets != old_targets);
    g_assert_null (km_item_get_problem (targets));
    g_assert_cmpuint (km_target_track_get_n_keyframes (km_ik_targets_item_get_track (KM_IK_TARGETS_ITEM (targets))),
                      ==,
                      km_target_track_get_n_keyframes (km_ik_targets_item_get_track (KM_IK_TARGETS_ITEM (old_targets))));
    g_ptr_array_add (items, targets);
    km_document_duplicate_items (f->document, items);
    g_assert_cmpstr (km_item_get_name (km_item_get_child (body, 2)), ==,
                     "Targets from a file (copy)");
    g_assert_null (km_item_get_problem (km_item_get_child (body, 2)));
    g_assert_nonnull (km_ik_targets_item_get_track (KM_IK_TARGETS_ITEM (km_item_get_child (body, 2))));
    g_assert_true (km_document_undo (f->document));
    g_assert_true (km_document_undo (f->document));
    g_assert_true (km_item_get_child (body, 1) == old_targets);
  }

  /* A file that is gone */
  g_assert_cmpint (g_unlink (targets_path), ==, 0);
  messages = km_document_get_messages (f->document);
  g_assert_true (gtk_selection_model_select_item (selection, row_of (f, "Targets from a file"),
                                                  TRUE));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->tree), "tree.reload", NULL));
  g_assert_true (test_app_wait_reloaded (GTK_WIDGET (f->tree)));
  g_assert_true (km_item_get_child (old_body, 1) == old_targets);
  g_assert_false (km_document_get_modified (f->document));
  {
    g_autoptr(KmMessage) last = g_list_model_get_item (messages, g_list_model_get_n_items (messages) - 1);

    g_assert_nonnull (strstr (km_message_get_text (last), "Could not reload “Targets from a file”"));
  }
}

/* Opening a Scenebuilder scene in the editor: its ik element becomes an IK targets item
 * under the body (effector and keyframe from the scene), which the solver then uses; its
 * gears are linked joints, and moving the driving joint moves the driven ones. */
static void
test_import_scenebuilder (void)
{
  g_autofree char *arm = g_test_build_filename (G_TEST_DIST, "data", "scenebuilder",
                                                "arm2_mm_deg.xml", NULL);
  g_autofree char *gears = g_test_build_filename (G_TEST_DIST, "data", "scenebuilder",
                                                  "slider_gear.xml", NULL);
  g_autoptr(GFile) arm_file = g_file_new_for_path (arm);
  g_autoptr(GFile) gears_file = g_file_new_for_path (gears);
  g_autoptr(KmDocument) document = km_document_new ();
  g_autoptr(GError) error = NULL;
  KmSkeleton *skeleton;
  KmItem *targets_item;
  KmTargetTrack *track;
  const KmJoint *rack, *idler;
  const double *pose;
  int pinion;

  g_assert_true (km_document_import_file (document, arm_file, &error));
  g_assert_no_error (error);
  targets_item = km_item_find_child_by_type (km_document_get_body_item (document),
                                             KM_TYPE_IK_TARGETS_ITEM);
  g_assert_nonnull (targets_item);
  track = km_ik_targets_item_get_track (KM_IK_TARGETS_ITEM (targets_item));
  g_assert_cmpstr (km_target_track_get_effector (track), ==, "elbow");
  g_assert_cmpuint (km_target_track_get_n_keyframes (track), ==, 1);
  g_assert_cmpint (km_document_get_effector (document), ==,
                   km_skeleton_find_joint (km_document_get_skeleton (document), "elbow"));
  /* The arm starts at the scene's q0 (30°, −45°), where the solve for its target starts. */
  skeleton = km_document_get_skeleton (document);
  pose = km_body_item_get_joint_state (KM_BODY_ITEM (km_document_get_body_item (document)), NULL);
  g_assert_cmpfloat_with_epsilon (pose[km_skeleton_get_joint (skeleton, (guint) km_skeleton_find_joint (skeleton, "shoulder"))->dof_index],
                                  G_PI / 6, 1e-12);
  g_assert_cmpfloat_with_epsilon (pose[km_skeleton_get_joint (skeleton, (guint) km_skeleton_find_joint (skeleton, "elbow"))->dof_index],
                                  -G_PI / 4, 1e-12);
  g_assert_true (test_app_wait_idle_solve (document, 20000));

  /* The item is named as the scene names the target, not after the file. */
  g_assert_cmpstr (km_item_get_name (targets_item), ==, "reach");

  g_assert_true (km_document_import_file (document, gears_file, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_wait_idle_solve (document, 20000));
  skeleton = km_document_get_skeleton (document);
  pinion = km_skeleton_find_joint (skeleton, "pinion_joint");
  rack = km_skeleton_get_joint (skeleton, (guint) km_skeleton_find_joint (skeleton, "rack_joint"));
  idler = km_skeleton_get_joint (skeleton, (guint) km_skeleton_find_joint (skeleton, "idler_joint"));
  g_assert_cmpint (pinion, >=, 0);
  g_assert_cmpint (rack->mimic, ==, pinion);
  g_assert_cmpint (idler->mimic, ==, pinion);

  /* The body starts at the scene's pos values, its geared joints following the pinion,
   * and the body item keeps that state (what a save writes). */
  pose = km_document_get_pose (document, NULL);
  g_assert_cmpfloat_with_epsilon (pose[km_skeleton_get_joint (skeleton, (guint) pinion)->dof_index],
                                  0.5, 1e-12);
  g_assert_cmpfloat_with_epsilon (pose[rack->dof_index], 0.02 * 0.5 + 0.01, 1e-12);
  g_assert_cmpfloat_with_epsilon (pose[idler->dof_index],
                                  idler->mimic_ratio * 0.5 + idler->mimic_offset, 1e-12);
  pose = km_body_item_get_joint_state (KM_BODY_ITEM (km_document_get_body_item (document)), NULL);
  g_assert_cmpfloat_with_epsilon (pose[km_skeleton_get_joint (skeleton, (guint) pinion)->dof_index],
                                  0.5, 1e-12);
  g_assert_cmpfloat_with_epsilon (pose[rack->dof_index], 0.02 * 0.5 + 0.01, 1e-12);

  km_document_set_dof_value (document,
                             (guint) km_skeleton_get_joint (skeleton, (guint) pinion)->dof_index,
                             1.0);
  pose = km_document_get_pose (document, NULL);
  g_assert_cmpfloat_with_epsilon (pose[rack->dof_index], 0.02 * 1.0 + 0.01, 1e-12);
  g_assert_cmpfloat_with_epsilon (pose[idler->dof_index],
                                  idler->mimic_ratio * 1.0 + idler->mimic_offset, 1e-12);

  /* Moving the rack moves the pinion, but never past the pinion's limits (±π): asking for
   * 0.1 m would need 4.5 rad. */
  km_document_close_edit (document);
  km_document_set_dof_value (document, (guint) rack->dof_index, 0.1);
  pose = km_document_get_pose (document, NULL);
  g_assert_cmpfloat_with_epsilon (pose[km_skeleton_get_joint (skeleton, (guint) pinion)->dof_index],
                                  G_PI, 1e-9);
  g_assert_cmpfloat_with_epsilon (pose[rack->dof_index], 0.02 * G_PI + 0.01, 1e-9);
  km_document_cancel_solve (document);
  test_app_spin ();
}

/* Targets keyed for an end effector the body does not have still move its default end
 * effector (the last leaf joint), but the user is told, once, rather than seeing the
 * wrong joint follow the targets without a word. So is a base the body does not have
 * (@data "base"): the whole chain then moves. */
static void
test_unknown_effector_warns (gconstpointer data)
{
  static const char effector_json[] =
    "[ { \"frame\": 0, \"pos\": [0.3, 0.2, 1.2], \"euler\": [0, 0, 0], \"effector\": \"Wrist\" },\n"
    "  { \"frame\": 10, \"pos\": [0.2, 0.3, 1.1], \"euler\": [0, 0, 0], \"effector\": \"Wrist\" } ]\n";
  static const char base_json[] =
    "[ { \"frame\": 0, \"pos\": [0.3, 0.2, 1.2], \"euler\": [0, 0, 0], \"base\": \"Wrist\" },\n"
    "  { \"frame\": 10, \"pos\": [0.2, 0.3, 1.1], \"euler\": [0, 0, 0], \"base\": \"Wrist\" } ]\n";
  gboolean base = g_strcmp0 (data, "base") == 0;
  g_autoptr(KmDocument) document = km_document_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-effector-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "wrist.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  KmSkeleton *skeleton;
  const char *said;

  g_assert_true (km_document_load_defaults (document, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_wait_idle_solve (document, 20000));
  g_assert_false (test_app_has_message (document, 0, "Wrist", NULL));
  g_assert_true (g_file_set_contents (path, base ? base_json : effector_json, -1, &error));
  g_assert_no_error (error);

  g_assert_true (km_document_import_file (document, file, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_wait_idle_solve (document, 20000));
  skeleton = km_document_get_skeleton (document);
  g_assert_cmpint (km_document_get_effector (document), ==,
                   km_skeleton_get_default_effector (skeleton));
  said = base ? "whole chain" : km_skeleton_get_joint (skeleton,
                                                       (guint) km_skeleton_get_default_effector (skeleton))->name;
  g_assert_true (test_app_has_message (document, G_LOG_LEVEL_WARNING, "Wrist", said, NULL));

  /* Said once, not again on every change of the targets. */
  km_document_set_current_frame (document, 5);
  g_assert_true (km_document_set_keyframe (document, 5));
  g_assert_true (test_app_wait_idle_solve (document, 20000));
  g_assert_cmpuint (test_app_count_messages (document, 0, "Wrist", NULL), ==, 1);
}

/* Targets whose base is a joint of the body but not above their end effector are solved
 * with the whole chain, as a base the body lacks is (kinema-cli solve refuses both): the
 * editor says so once, for the end effector itself (@data "effector") and for a joint on
 * another branch ("branch"); a base above the effector ("ancestor") is used, silently. */
static void
test_unusable_base_warns (gconstpointer data)
{
  static const char skeleton_json[] =
    "{ \"root_name\": \"Root\", \"joints\": [\n"
    "  { \"name\": \"Root\", \"type\": \"fixed\", \"offset\": [0, 0, 0], \"parent\": null },\n"
    "  { \"name\": \"Turn\", \"type\": \"revolute\", \"offset\": [0, 0, 0.5],\n"
    "    \"parent\": \"Root\", \"axis\": [0, 0, 1], \"limits\": [-3, 3] },\n"
    "  { \"name\": \"Side\", \"type\": \"revolute\", \"offset\": [0.2, 0, 0],\n"
    "    \"parent\": \"Turn\", \"axis\": [0, 1, 0], \"limits\": [-1, 1] },\n"
    "  { \"name\": \"Lift\", \"type\": \"revolute\", \"offset\": [0, 0, 0.5],\n"
    "    \"parent\": \"Turn\", \"axis\": [0, 1, 0], \"limits\": [-2, 2] },\n"
    "  { \"name\": \"Bend\", \"type\": \"revolute\", \"offset\": [0, 0, 0.5],\n"
    "    \"parent\": \"Lift\", \"axis\": [0, 1, 0], \"limits\": [-2, 2] },\n"
    "  { \"name\": \"Tip\", \"type\": \"fixed\", \"offset\": [0, 0, 0.3], \"parent\": \"Bend\" }\n"
    "] }\n";
  const char *base = g_strcmp0 (data, "effector") == 0 ? "Tip"
                     : g_strcmp0 (data, "branch") == 0 ? "Side" : "Lift";
  gboolean usable = g_strcmp0 (data, "ancestor") == 0;
  g_autoptr(KmDocument) document = km_document_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-base-XXXXXX");
  g_autofree char *model_path = g_build_filename (dir, "branched.json", NULL);
  g_autofree char *targets_path = g_build_filename (dir, "targets.json", NULL);
  g_autofree char *targets_json = NULL;
  g_autoptr(GFile) model = g_file_new_for_path (model_path);
  g_autoptr(GFile) targets = g_file_new_for_path (targets_path);
  KmSkeleton *skeleton;

  /* (A targets file that names its effector as its base is refused as it is read: this
   * one leaves the effector to the model, its last leaf, Tip.) */
  const char *effector = usable || g_strcmp0 (data, "branch") == 0
                         ? "\"effector\": \"Tip\", " : "";

  targets_json = g_strdup_printf (
    "[ { \"frame\": 0, \"pos\": [0.3, 0.2, 1.2], \"euler\": [0, 0, 0], "
    "%s\"base\": \"%s\" },\n"
    "  { \"frame\": 10, \"pos\": [0.2, 0.3, 1.1], \"euler\": [0, 0, 0], "
    "%s\"base\": \"%s\" } ]\n", effector, base, effector, base);
  g_assert_true (g_file_set_contents (model_path, skeleton_json, -1, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_set_contents (targets_path, targets_json, -1, &error));
  g_assert_no_error (error);
  g_assert_true (km_document_import_file (document, model, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_wait_idle_solve (document, 20000));
  g_assert_true (km_document_import_file (document, targets, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_wait_idle_solve (document, 20000));
  skeleton = km_document_get_skeleton (document);
  g_assert_nonnull (skeleton);
  g_assert_cmpint (km_document_get_effector (document), ==,
                   km_skeleton_find_joint (skeleton, "Tip"));

  if (usable)
    g_assert_cmpuint (test_app_count_messages (document, G_LOG_LEVEL_WARNING, "base", NULL),
                      ==, 0);
  else
    {
      g_assert_true (test_app_has_message (document, G_LOG_LEVEL_WARNING, base, "whole chain",
                                           NULL));
      /* Said once, not again on every change of the targets. */
      km_document_set_current_frame (document, 5);
      g_assert_true (km_document_set_keyframe (document, 5));
      g_assert_true (test_app_wait_idle_solve (document, 20000));
      g_assert_cmpuint (test_app_count_messages (document, G_LOG_LEVEL_WARNING, "whole chain",
                                                 NULL), ==, 1);
    }
  g_unlink (model_path);
  g_unlink (targets_path);
  g_rmdir (dir);
}

/* A skeleton.json of the user's, which is no model of the built-in example. */
static const char foreign_skeleton_json[] =
  "{ \"root_name\": \"Base\", \"joints\": [\n"
  "  { \"name\": \"Base\", \"type\": \"fixed\", \"offset\": [0, 0, 0], \"parent\": null },\n"
  "  { \"name\": \"Swing\", \"type\": \"revolute\", \"offset\": [0, 0, 1], \"parent\": \"Base\",\n"
  "    \"axis\": [0, 0, 1], \"limits\": [-1.0, 1.0] } ] }\n";

/* Reloading the built-in example's body reads the embedded example again: neither a
 * skeleton.json of the user's in the working directory (which would pass for the
 * example) nor the lack of one there changes its model. */
static void
test_reload_example_body (void)
{
  g_autoptr(KmDocument) document = km_document_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *cwd = g_get_current_dir ();
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-reload-XXXXXX");
  g_autofree char *foreign = NULL;
  KmItem *body;
  KmSkeleton *example;

  g_assert_true (km_document_load_defaults (document, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_wait_idle_solve (document, 20000));
  body = km_document_get_body_item (document);
  example = km_body_item_get_skeleton (KM_BODY_ITEM (body));
  g_assert_cmpint (km_skeleton_find_joint (example, "Piston"), >=, 0);

  g_assert_cmpint (g_chdir (dir), ==, 0);
  foreign = g_build_filename (dir, "skeleton.json", NULL);
  g_assert_true (g_file_set_contents (foreign, foreign_skeleton_json, -1, &error));
  g_assert_no_error (error);

  /* Duplicate copies the example's model too. */
  {
    g_autoptr(GPtrArray) items = g_ptr_array_new ();
    KmItem *copy;

    g_ptr_array_add (items, body);
    km_document_duplicate_items (document, items);
    copy = km_item_get_child (km_item_get_parent (body), (guint) km_item_get_index (body) + 1);
    g_assert_true (KM_IS_BODY_ITEM (copy));
    g_assert_cmpint (km_skeleton_find_joint (km_body_item_get_skeleton (KM_BODY_ITEM (copy)),
                                             "Piston"), >=, 0);
    g_assert_true (km_document_undo (document));
  }

  for (guint i = 0; i < 2; i++)
    {
      g_autoptr(KmItem) fresh = km_document_reread_item (document, body, &error);
      KmSkeleton *skeleton;

      g_assert_no_error (error);
      g_assert_nonnull (fresh);
      g_assert_true (KM_IS_BODY_ITEM (fresh));
      skeleton = km_body_item_get_skeleton (KM_BODY_ITEM (fresh));
      g_assert_nonnull (skeleton);
      g_assert_cmpint (km_skeleton_find_joint (skeleton, "Swing"), <, 0);
      g_assert_cmpint (km_skeleton_find_joint (skeleton, "Piston"), >=, 0);
      g_assert_cmpuint (km_skeleton_get_n_dof (skeleton), ==, km_skeleton_get_n_dof (example));
      g_assert_nonnull (g_object_get_data (G_OBJECT (fresh), "km-embedded-model"));
      g_assert_cmpstr (km_item_get_name (fresh), ==, km_item_get_name (body));
      /* Then without any skeleton.json there. */
      g_unlink (foreign);
    }
  /* The user's file is left alone (it was removed by the test itself). */
  g_assert_false (g_file_test (foreign, G_FILE_TEST_EXISTS));

  g_assert_cmpint (g_chdir (cwd), ==, 0);
  g_assert_true (test_app_wait_idle_solve (document, 20000));
}

/* Reload in the item tree on the built-in example's body, with a skeleton.json of the
 * user's in the working directory: the body keeps the example's model and joint values. */
static void
test_tree_reload_example_body (Fixture       *f,
                               gconstpointer  data)
{
  GtkSelectionModel *selection = km_item_tree_get_selection_model (f->tree);
  g_autoptr(GError) error = NULL;
  g_autofree char *cwd = g_get_current_dir ();
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-reload-XXXXXX");
  g_autofree char *foreign = NULL;
  g_autofree double *before = NULL;
  KmItem *body = km_document_get_body_item (f->document);
  KmItem *fresh;
  KmSkeleton *skeleton;
  guint n_dof;

  n_dof = km_skeleton_get_n_dof (km_body_item_get_skeleton (KM_BODY_ITEM (body)));
  km_document_set_dof_value (f->document, 0, 0.3);
  km_document_close_edit (f->document);
  before = g_memdup2 (state (body), n_dof * sizeof (double));

  g_assert_cmpint (g_chdir (dir), ==, 0);
  foreign = g_build_filename (dir, "skeleton.json", NULL);
  g_assert_true (g_file_set_contents (foreign, foreign_skeleton_json, -1, &error));
  g_assert_no_error (error);

  g_assert_true (gtk_selection_model_select_item (selection, row_of (f, km_item_get_name (body)),
                                                  TRUE));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->tree), "tree.reload", NULL));
  g_assert_true (test_app_wait_reloaded (GTK_WIDGET (f->tree)));
  test_app_spin ();
  fresh = km_document_get_body_item (f->document);
  g_assert_true (fresh != body);
  skeleton = km_body_item_get_skeleton (KM_BODY_ITEM (fresh));
  g_assert_cmpint (km_skeleton_find_joint (skeleton, "Swing"), <, 0);
  g_assert_cmpint (km_skeleton_find_joint (skeleton, "Piston"), >=, 0);
  g_assert_cmpuint (km_skeleton_get_n_dof (skeleton), ==, n_dof);
  g_assert_true (km_document_get_skeleton (f->document) == skeleton);
  for (guint i = 0; i < n_dof; i++)
    g_assert_cmpfloat_with_epsilon (state (fresh)[i], before[i], 1e-9);
  g_assert_nonnull (g_object_get_data (G_OBJECT (fresh), "km-embedded-model"));

  g_assert_cmpint (g_chdir (cwd), ==, 0);
}

/* A project without a time bar of its own keeps the rate it opened with (its first
 * body's) as its time bar rate, whichever body is current when it is saved, and shows a
 * body without a motion of its own at it. */
static void
test_new_project_rate_stays (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *arm_dir = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema", NULL);
  g_autofree char *dir = km_test_make_tmp_dir ("km-window-rate-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "rates.cnoid", NULL);
  g_autofree char *contents = rates_project_text (arm_dir, FALSE);
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, contents, -1, &error);
  g_assert_no_error (error);
  open_fixture (f, path);
  g_assert_cmpfloat (km_document_get_frame_rate (f->document), ==, 60);
  g_assert_cmpfloat (km_document_get_project_frame_rate (f->document), ==, 60);
  show_body (f, "Second");
  g_assert_cmpfloat (km_document_get_frame_rate (f->document), ==, 24);
  g_assert_cmpfloat (km_document_get_project_frame_rate (f->document), ==, 60);
  /* A body with no motion of its own plays at that rate now, as it will once the project,
   * saved with it, is opened again (it played at the default 30 before). */
  show_body (f, "Third");
  g_assert_cmpfloat (km_document_get_frame_rate (f->document), ==, 60);
  km_test_remove_tree (dir);
}

static char *
time_bar_text (KmWindow *window)
{
  return g_strdup (test_app_frame_label_below (km_window_get_time_bar (window)));
}

/* Review finding (window #1): `kinema SR1.body` (a model opened into the empty window a
 * file starts with) is where the history starts: Ctrl+Z does not take the body away and
 * leave an empty window. A model imported after it is an undoable step, and its undo
 * gives the time bar back its range. */
static void
test_open_model_starts_history (void)
{
  g_autofree char *sr1 = g_test_build_filename (G_TEST_DIST, "data", "choreonoid", "SR1.body",
                                                NULL);
  g_autofree char *arms = g_test_build_filename (G_TEST_DIST, "data", "urdf-two-arms.urdf",
                                                 NULL);
  g_autoptr(GFile) sr1_file = g_file_new_for_path (sr1);
  g_autoptr(GFile) arms_file = g_file_new_for_path (arms);
  KmWindow *window = km_window_new (NULL);
  KmDocument *document = km_window_get_document (window);
  g_autofree char *title_opened = NULL;
  g_autofree char *frames_opened = NULL;
  g_autofree char *frames_now = NULL;
  guint timeline_frames;
  KmItem *body;

  gtk_window_set_default_size (GTK_WINDOW (window), 900, 600);
  gtk_window_present (GTK_WINDOW (window));
  test_app_spin ();
  g_assert_true (test_app_open_file (window, sr1_file));
  g_assert_true (test_app_wait_idle_solve (document, 20000));
  test_app_spin ();
  body = km_document_get_body_item (document);
  g_assert_nonnull (body);
  title_opened = g_strdup (gtk_window_get_title (GTK_WINDOW (window)));
  /* (An unmodified project without a file is titled as the empty window is.) */
  g_assert_cmpstr (title_opened, ==, "Kinema");
  timeline_frames = km_document_get_timeline_frames (document);
  frames_opened = time_bar_text (window);
  g_assert_nonnull (frames_opened);

  /* It is what the user opened, not an edit (review 25, #6): the project is unmodified,
   * the title has no asterisk, and closing would not ask to save. */
  g_assert_false (km_document_get_modified (document));
  g_assert_null (strchr (title_opened, '*'));

  /* Nothing to undo: Ctrl+Z leaves the body, the title and the time bar as they are. */
  g_assert_false (km_document_can_undo (document));
  for (guint i = 0; i < 3; i++)
    gtk_widget_activate_action (GTK_WIDGET (window), "win.undo", NULL);
  test_app_spin ();
  g_assert_true (km_document_get_body_item (document) == body);
  g_assert_nonnull (km_document_get_skeleton (document));
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, title_opened);
  g_assert_false (km_document_get_modified (document));

  /* A model imported into the project that has content is a step to undo. */
  g_assert_true (test_app_open_file (window, arms_file));
  g_assert_true (test_app_wait_idle_solve (document, 20000));
  test_app_spin ();
  g_assert_true (km_document_get_body_item (document) != body);
  g_assert_true (km_document_can_undo (document));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.undo", NULL));
  test_app_spin ();
  g_assert_true (km_document_get_body_item (document) == body);
  g_assert_false (km_document_can_undo (document));
  g_assert_cmpuint (km_document_get_timeline_frames (document), ==, timeline_frames);
  frames_now = time_bar_text (window);
  g_assert_cmpstr (frames_now, ==, frames_opened);

  test_app_destroy_window (&window, &document);
}

/* Review 25, #6: a model that brings IK targets (a Scenebuilder scene's <ik>), opened
 * into an empty window, is solved as it opens; the project stays unmodified all the same. */
static void
test_open_model_with_targets_unmodified (void)
{
  g_autofree char *scene = g_test_build_filename (G_TEST_DIST, "data", "scenebuilder",
                                                  "arm2_mm_deg.xml", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (scene);
  KmWindow *window = km_window_new (NULL);
  KmDocument *document = km_window_get_document (window);

  gtk_window_set_default_size (GTK_WINDOW (window), 900, 600);
  gtk_window_present (GTK_WINDOW (window));
  test_app_spin ();
  g_assert_true (test_app_open_file (window, file));
  g_assert_true (test_app_wait_idle_solve (document, 20000));
  test_app_spin ();
  g_assert_nonnull (km_document_get_body_item (document));
  g_assert_false (km_document_get_modified (document));
  g_assert_false (km_document_can_undo (document));
  g_assert_null (strchr (gtk_window_get_title (GTK_WINDOW (window)), '*'));
  test_app_destroy_window (&window, &document);
}

/* Review finding: `kinema model.json targets.json` (a targets file opened right after the
 * model into an empty window) opens unmodified, as the model alone does: no asterisk,
 * nothing to undo, also once the targets are solved. A targets file opened after an edit
 * is a step to undo, and leaves the project modified. */
static void
test_open_model_and_targets_unmodified (void)
{
  g_autofree char *model = g_test_build_filename (G_TEST_DIST, "data", "ik-orient-arm6.json",
                                                  NULL);
  g_autofree char *targets = g_test_build_filename (G_TEST_DIST, "data",
                                                    "ik-orient-arm6-targets.json", NULL);
  g_autoptr(GFile) model_file = g_file_new_for_path (model);
  g_autoptr(GFile) targets_file = g_file_new_for_path (targets);
  KmWindow *window = km_window_new (NULL);
  KmDocument *document = km_window_get_document (window);

  gtk_window_set_default_size (GTK_WINDOW (window), 900, 600);
  gtk_window_present (GTK_WINDOW (window));
  test_app_spin ();
  g_assert_true (test_app_open_file (window, model_file));
  g_assert_true (test_app_wait_idle_solve (document, 20000));
  g_assert_true (test_app_open_file (window, targets_file));
  g_assert_true (test_app_wait_idle_solve (document, 20000));
  test_app_spin ();
  g_assert_nonnull (km_document_get_targets (document));
  g_assert_nonnull (km_document_get_animation (document));
  g_assert_false (km_document_get_modified (document));
  g_assert_false (km_document_can_undo (document));
  g_assert_null (strchr (gtk_window_get_title (GTK_WINDOW (window)), '*'));

  /* After an edit, another targets file is an edit too. */
  km_document_set_current_frame (document, 0);
  km_document_set_dof_value (document, 0, km_document_get_pose (document, NULL)[0] + 0.2);
  km_document_close_edit (document);
  g_assert_true (km_document_undo (document));
  g_assert_false (km_document_get_modified (document));
  g_assert_true (test_app_open_file (window, targets_file));
  g_assert_true (test_app_wait_idle_solve (document, 20000));
  test_app_spin ();
  g_assert_true (km_document_get_modified (document));
  g_assert_true (km_document_can_undo (document));
  test_app_destroy_window (&window, &document);
}

/* Importing a model into the example (a project with content) stays undoable, and its
 * undo gives the time bar back the example's frames. */
static void
test_import_undo_time_bar (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *sr1 = g_test_build_filename (G_TEST_DIST, "data", "choreonoid", "SR1.body",
                                                NULL);
  KmItem *body = km_document_get_body_item (f->document);
  guint n_frames = km_document_get_n_frames (f->document);
  guint timeline_frames = km_document_get_timeline_frames (f->document);
  g_autofree char *frames_before = NULL;
  g_autofree char *frames_after = NULL;

  test_app_spin ();
  frames_before = time_bar_text (f->window);
  g_assert_nonnull (frames_before);
  g_assert_cmpuint (n_frames, >, 1);
  open_fixture (f, sr1);
  g_assert_true (km_document_get_body_item (f->document) != body);
  g_assert_cmpuint (km_document_get_n_frames (f->document), ==, 1);
  g_assert_true (km_document_can_undo (f->document));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.undo", NULL));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  test_app_spin ();
  g_assert_true (km_document_get_body_item (f->document) == body);
  g_assert_cmpuint (km_document_get_n_frames (f->document), ==, n_frames);
  g_assert_cmpuint (km_document_get_timeline_frames (f->document), ==, timeline_frames);
  frames_after = time_bar_text (f->window);
  g_assert_cmpstr (frames_after, ==, frames_before);
}

int
main (int    argc,
      char **argv)
{
  test_app_init (&argc, &argv);

  g_test_add_func ("/kinema/Window/reload-example-body", test_reload_example_body);
  g_test_add_func ("/kinema/Window/open-model-with-targets-unmodified",
                   test_open_model_with_targets_unmodified);
  g_test_add_func ("/kinema/Window/open-model-and-targets-unmodified",
                   test_open_model_and_targets_unmodified);
  g_test_add ("/kinema/Window/tree-reload-example-body", Fixture, NULL,
              fixture_setup, test_tree_reload_example_body, fixture_teardown);
  g_test_add ("/kinema/Window/undo-joint-edit", Fixture, NULL,
              fixture_setup, test_undo_joint_edit, fixture_teardown);
  g_test_add ("/kinema/Window/merged-slider-drag", Fixture, NULL,
              fixture_setup, test_merged_slider_drag, fixture_teardown);
  g_test_add ("/kinema/Window/save-as-reload", Fixture, NULL,
              fixture_setup, test_save_as_reload, fixture_teardown);
  g_test_add ("/kinema/Window/save-example", Fixture, NULL,
              fixture_setup, test_save_example, fixture_teardown);
  g_test_add_func ("/kinema/Window/close-question", test_close_question);
  g_test_add_func ("/kinema/Window/import-scenebuilder", test_import_scenebuilder);
  g_test_add_func ("/kinema/Window/open-model-starts-history", test_open_model_starts_history);
  g_test_add ("/kinema/Window/import-undo-time-bar", Fixture, NULL,
              fixture_setup, test_import_undo_time_bar, fixture_teardown);
  g_test_add_data_func ("/kinema/Window/unknown-effector-warns", "effector",
                        test_unknown_effector_warns);
  g_test_add_data_func ("/kinema/Window/unknown-base-warns", "base",
                        test_unknown_effector_warns);
  g_test_add_data_func ("/kinema/Window/unusable-base-warns/effector", "effector",
                        test_unusable_base_warns);
  g_test_add_data_func ("/kinema/Window/unusable-base-warns/branch", "branch",
                        test_unusable_base_warns);
  g_test_add_data_func ("/kinema/Window/unusable-base-warns/ancestor", "ancestor",
                        test_unusable_base_warns);
  g_test_add ("/kinema/LayoutState/round-trip", Fixture, NULL,
              fixture_setup, test_layout_round_trip, fixture_teardown);
  g_test_add ("/kinema/LayoutState/choreonoid-camera", Fixture, NULL,
              fixture_setup, test_layout_choreonoid_camera, fixture_teardown);
  g_test_add_func ("/kinema/LayoutState/camel-case", test_layout_camel_case);
  g_test_add_func ("/kinema/LayoutState/ortho-height-kept", test_layout_ortho_height_kept);
  g_test_add ("/kinema/LayoutState/fov-kept-on-resize", Fixture, NULL,
              fixture_setup, test_layout_fov_kept_on_resize, fixture_teardown);
  g_test_add ("/kinema/LayoutState/new-project-perspective", Fixture, NULL,
              fixture_setup, test_layout_new_project_perspective, fixture_teardown);
  g_test_add ("/kinema/Window/sub-project-save", Fixture, NULL,
              fixture_setup, test_sub_project_save, fixture_teardown);
  g_test_add ("/kinema/LayoutState/save-keeps-time-bar-rate", Fixture, NULL,
              fixture_setup, test_save_keeps_time_bar_rate, fixture_teardown);
  g_test_add ("/kinema/LayoutState/new-project-rate-stays", Fixture, NULL,
              fixture_setup, test_new_project_rate_stays, fixture_teardown);
  g_test_add ("/kinema/ItemTree/unknown-item", Fixture, NULL,
              fixture_setup, test_unknown_item, fixture_teardown);
  g_test_add ("/kinema/ItemTree/unreadable-root", Fixture, NULL,
              fixture_setup, test_unreadable_root, fixture_teardown);
  g_test_add ("/kinema/ItemTree/rename", Fixture, NULL,
              fixture_setup, test_tree_rename, fixture_teardown);
  g_test_add ("/kinema/ItemTree/delete", Fixture, NULL,
              fixture_setup, test_tree_delete, fixture_teardown);
  g_test_add ("/kinema/ItemTree/duplicate", Fixture, NULL,
              fixture_setup, test_tree_duplicate, fixture_teardown);
  g_test_add ("/kinema/ItemTree/save-item", Fixture, NULL,
              fixture_setup, test_save_item, fixture_teardown);
  g_test_add ("/kinema/Window/project/open-pipe", Fixture, NULL,
              fixture_setup, test_open_pipe, fixture_teardown);
  g_test_add ("/kinema/ItemTree/move", Fixture, NULL,
              fixture_setup, test_tree_move, fixture_teardown);
  g_test_add ("/kinema/ItemTree/reload", Fixture, NULL,
              fixture_setup, test_tree_reload, fixture_teardown);
  g_test_add ("/kinema/ItemTree/reload-off-main-thread", Fixture, NULL,
              fixture_setup, test_tree_reload_off_main_thread, fixture_teardown);
  g_test_add ("/kinema/ItemTree/selection-sync", Fixture, NULL,
              fixture_setup, test_selection_sync, fixture_teardown);
  return g_test_run ();
}
