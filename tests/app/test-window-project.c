/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <math.h>
#include <string.h>
#include <gtk/gtk.h>

#include "km-body-item.h"
#include "km-ik-targets-item.h"
#include "km-item-row.h"
#include "km-item-tree.h"
#include "km-joint-panel.h"
#include "km-targets-json.h"
#include "km-window.h"

#include "test-app-util.h"

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
  f->window = km_window_new (NULL);
  gtk_window_set_default_size (GTK_WINDOW (f->window), 900, 600);
  f->document = km_window_get_document (f->window);
  f->tree = KM_ITEM_TREE (km_window_get_item_tree (f->window));
  g_assert_true (km_window_open_example (f->window));
  gtk_window_present (GTK_WINDOW (f->window));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_object_add_weak_pointer (G_OBJECT (f->document), (gpointer *) &f->document);
  g_object_add_weak_pointer (G_OBJECT (f->window), (gpointer *) &f->window);
  /* Discard whatever a test left unsaved: destroying does not ask. */
  gtk_window_destroy (GTK_WINDOW (f->window));
  test_app_spin ();
  g_assert_null (f->window);
  g_assert_null (f->document);
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

/* Every row of the tree, as "depth:name" lines. */
static char *
tree_rows (Fixture *f)
{
  GListModel *rows = G_LIST_MODEL (km_item_tree_get_selection_model (f->tree));
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(GtkTreeListRow) row = g_list_model_get_item (rows, i);
      g_autoptr(KmItemRow) item_row = gtk_tree_list_row_get_item (row);

      g_string_append_printf (out, "%u:%s\n", gtk_tree_list_row_get_depth (row),
                              km_item_get_name (km_item_row_get_item (item_row)));
    }
  return g_string_free (out, FALSE);
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

      if (g_strcmp0 (km_item_get_name (km_item_row_get_item (item_row)), name) == 0)
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

  g_assert_true (km_window_open_file (f->window, file));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  test_app_spin ();
}

/* A .cnoid project shows its body and its items; Save As and reload keep the joint values. */
static void
test_save_as_reload (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *arm = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema",
                                                "arm.cnoid", NULL);
  g_autofree char *copy = g_build_filename (g_get_tmp_dir (), "arm-copy.cnoid", NULL);
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
  g_autofree char *dir = g_build_filename (g_get_tmp_dir (), "example", NULL);
  g_autofree char *path = g_build_filename (dir, "example.cnoid", NULL);
  g_autofree char *model = g_build_filename (dir, "skeleton.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(KmDocument) reloaded = km_document_new ();
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
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
  g_autofree char *path = g_build_filename (g_get_tmp_dir (), "unknown.cnoid", NULL);
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
  g_autofree char *path = g_build_filename (g_get_tmp_dir (), "saved-targets.json", NULL);
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

int
main (int    argc,
      char **argv)
{
  g_setenv ("GSK_RENDERER", "cairo", FALSE);
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  gtk_init ();

  g_test_add ("/kinema/Window/undo-joint-edit", Fixture, NULL,
              fixture_setup, test_undo_joint_edit, fixture_teardown);
  g_test_add ("/kinema/Window/merged-slider-drag", Fixture, NULL,
              fixture_setup, test_merged_slider_drag, fixture_teardown);
  g_test_add ("/kinema/Window/save-as-reload", Fixture, NULL,
              fixture_setup, test_save_as_reload, fixture_teardown);
  g_test_add ("/kinema/Window/save-example", Fixture, NULL,
              fixture_setup, test_save_example, fixture_teardown);
  g_test_add_func ("/kinema/Window/close-question", test_close_question);
  g_test_add ("/kinema/ItemTree/unknown-item", Fixture, NULL,
              fixture_setup, test_unknown_item, fixture_teardown);
  g_test_add ("/kinema/ItemTree/rename", Fixture, NULL,
              fixture_setup, test_tree_rename, fixture_teardown);
  g_test_add ("/kinema/ItemTree/delete", Fixture, NULL,
              fixture_setup, test_tree_delete, fixture_teardown);
  g_test_add ("/kinema/ItemTree/duplicate", Fixture, NULL,
              fixture_setup, test_tree_duplicate, fixture_teardown);
  g_test_add ("/kinema/ItemTree/save-item", Fixture, NULL,
              fixture_setup, test_save_item, fixture_teardown);
  g_test_add ("/kinema/ItemTree/move", Fixture, NULL,
              fixture_setup, test_tree_move, fixture_teardown);
  return g_test_run ();
}
