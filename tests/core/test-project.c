/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include "km-body-item.h"
#include "km-folder-item.h"
#include "km-project.h"
#include "km-unknown-item.h"

static void
count_cb (gpointer  object,
          GParamSpec *pspec,
          gpointer  user_data)
{
  (*(guint *) user_data)++;
}

static void
items_changed_cb (GListModel *model,
                  guint       position,
                  guint       removed,
                  guint       added,
                  gpointer    user_data)
{
  (*(guint *) user_data)++;
}

static void
test_item_tree (void)
{
  g_autoptr(KmItem) root = km_folder_item_new ();
  g_autoptr(KmItem) a = km_folder_item_new ();
  g_autoptr(KmItem) b = km_body_item_new ();
  guint names = 0;
  guint changes = 0;

  g_signal_connect (a, "notify::name", G_CALLBACK (count_cb), &names);
  g_signal_connect (root, "items-changed", G_CALLBACK (items_changed_cb), &changes);
  km_item_set_name (a, "A");
  km_item_set_name (a, "A");
  g_assert_cmpuint (names, ==, 1);

  km_item_append_child (root, a);
  km_item_insert_child (root, 0, b);
  g_assert_cmpuint (changes, ==, 2);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (root)), ==, 2);
  g_assert_true (km_item_get_child (root, 0) == b);
  g_assert_true (km_item_get_parent (a) == root);
  g_assert_cmpint (km_item_get_index (a), ==, 1);
  g_assert_cmpstr (km_item_get_plugin_name (b), ==, "Body");
  g_assert_cmpstr (km_item_get_class_name (b), ==, "BodyItem");

  km_item_set_id (a, 7);
  g_assert_true (km_item_find_by_id (root, 7) == a);
  km_item_remove_child (root, a);
  g_assert_null (km_item_get_parent (a));
  g_assert_null (km_item_find_by_id (root, 7));
  g_assert_cmpuint (changes, ==, 3);
}

typedef struct
{
  double *target;
  double  old_value;
  double  new_value;
} SetValue;

static void
set_redo (gpointer data)
{
  SetValue *s = data;

  *s->target = s->new_value;
}

static void
set_undo (gpointer data)
{
  SetValue *s = data;

  *s->target = s->old_value;
}

static gboolean
set_merge (gpointer data,
           gpointer next)
{
  ((SetValue *) data)->new_value = ((SetValue *) next)->new_value;
  return TRUE;
}

static void
drag (KmProject *project,
      double    *value,
      double     to)
{
  SetValue *s = g_new0 (SetValue, 1);

  s->target = value;
  s->old_value = *value;
  s->new_value = to;
  km_project_push_command (project, "Drag", set_redo, set_undo, set_merge, "drag", s, g_free);
}

static void
test_undo (void)
{
  g_autoptr(KmProject) project = km_project_new ();
  g_autoptr(KmItem) item = km_folder_item_new ();
  KmItem *root = km_project_get_root_item (project);
  double value = 0;
  guint modified = 0;

  g_signal_connect (project, "notify::modified", G_CALLBACK (count_cb), &modified);
  g_assert_false (km_project_get_modified (project));

  km_project_insert_item (project, root, 0, item);
  g_assert_cmpuint (km_item_get_n_children (root), ==, 1);
  g_assert_true (km_project_get_modified (project));
  g_assert_cmpuint (modified, ==, 1);
  km_project_rename_item (project, item, "Renamed");
  km_project_check_item (project, item, TRUE);
  g_assert_true (km_item_get_checked (item));

  /* a drag merges into one step */
  drag (project, &value, 1);
  drag (project, &value, 2);
  drag (project, &value, 3);
  g_assert_cmpfloat (value, ==, 3);
  g_assert_true (km_project_undo (project));
  g_assert_cmpfloat (value, ==, 0);
  g_assert_true (km_project_redo (project));
  g_assert_cmpfloat (value, ==, 3);
  km_project_close_merge (project);
  drag (project, &value, 4);
  g_assert_true (km_project_undo (project));
  g_assert_cmpfloat (value, ==, 3);

  km_project_set_clean (project);
  g_assert_false (km_project_get_modified (project));
  g_assert_true (km_project_undo (project));           /* drag */
  g_assert_true (km_project_get_modified (project));
  g_assert_true (km_project_redo (project));
  g_assert_false (km_project_get_modified (project));

  g_assert_true (km_project_undo (project));
  g_assert_true (km_project_undo (project));           /* check */
  g_assert_false (km_item_get_checked (item));
  g_assert_true (km_project_undo (project));           /* rename */
  g_assert_cmpstr (km_item_get_name (item), ==, "");
  g_assert_true (km_project_undo (project));           /* insert */
  g_assert_cmpuint (km_item_get_n_children (root), ==, 0);
  g_assert_false (km_project_can_undo (project));
  g_assert_true (km_project_redo (project));
  g_assert_true (km_item_get_parent (item) == root);

  km_project_remove_item (project, item);
  g_assert_null (km_item_get_parent (item));
  /* the clean state was in the dropped redo branch: modified for good */
  g_assert_true (km_project_get_modified (project));
  g_assert_false (km_project_can_redo (project));
  g_assert_true (km_project_undo (project));
  g_assert_true (km_item_get_parent (item) == root);
}

/* A save that fails puts back the clean state it moved (km_project_set_clean when it
 * began): the steps made meanwhile stay, and the state from before is clean again unless
 * the history no longer holds it. */
static void
test_restore_clean_state (void)
{
  g_autoptr(KmProject) project = km_project_new ();
  double value = 0;
  guint64 clean;

  g_assert_cmpuint (km_project_get_clean_state (project), !=, 0);
  drag (project, &value, 1);
  km_project_set_clean (project);
  km_project_close_merge (project);
  drag (project, &value, 2);
  g_assert_true (km_project_get_modified (project));

  /* A save begins at 2, a step is made while it runs, the save fails. */
  clean = km_project_get_clean_state (project);
  km_project_set_clean (project);
  drag (project, &value, 3);
  km_project_restore_clean_state (project, clean);
  g_assert_true (km_project_get_modified (project));
  g_assert_true (km_project_undo (project));
  g_assert_true (km_project_get_modified (project));
  g_assert_true (km_project_undo (project));
  g_assert_cmpfloat (value, ==, 1);
  g_assert_false (km_project_get_modified (project));
  g_assert_true (km_project_redo (project));
  g_assert_true (km_project_redo (project));

  /* Undone below the clean state and edited meanwhile: that state is gone. */
  clean = km_project_get_clean_state (project);
  km_project_set_clean (project);
  g_assert_true (km_project_undo (project));
  g_assert_true (km_project_undo (project));
  g_assert_true (km_project_undo (project));
  g_assert_cmpfloat (value, ==, 0);
  drag (project, &value, 5);
  km_project_restore_clean_state (project, clean);
  g_assert_true (km_project_get_modified (project));
  g_assert_true (km_project_undo (project));
  g_assert_true (km_project_get_modified (project));

  /* No clean state to put back. */
  km_project_restore_clean_state (project, 0);
  g_assert_true (km_project_get_modified (project));
}

static void
test_unknown (void)
{
  static const char text[] = "id: 4\nname: \"Sim\"\nplugin: ODE\nclass: ODESimulatorItem\n"
                             "is_checked: true\ndata:\n  time_step: 0.002\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(KmYamlNode) node = km_yaml_parse ("p.cnoid", text, sizeof text - 1, NULL, &error);
  g_autoptr(KmItem) item = NULL;

  g_assert_no_error (error);
  item = km_unknown_item_new (node, TRUE);
  g_assert_cmpstr (km_item_get_plugin_name (item), ==, "ODE");
  g_assert_cmpstr (km_item_get_class_name (item), ==, "ODESimulatorItem");
  g_assert_cmpstr (km_item_get_name (item), ==, "Sim");
  g_assert_cmpint (km_item_get_id (item), ==, 4);
  g_assert_true (km_item_get_checked (item));
  g_assert_true (km_unknown_item_get_node (KM_UNKNOWN_ITEM (item)) == node);
}

/* Path variables: ${SHARE} is the share folder; ${PROGRAM_TOP} is Choreonoid's install
 * prefix, the folder above it (PREFIX/share/choreonoid-2.2 installed, TOP/share in a build
 * tree), not Kinema's own; both unset without a share folder. */
static void
test_path_variables (void)
{
  KmItemIo io = { .dir = "/work/projects" };
  g_autoptr(GError) error = NULL;
  g_autofree char *a = NULL, *b = NULL, *c = NULL, *d = NULL;

  io.share_dir = "/usr/local/share/choreonoid-2.2";
  a = km_item_io_expand_path (&io, "${PROGRAM_TOP}/lib/choreonoid-2.2/x.so", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (a, ==, "/usr/local/lib/choreonoid-2.2/x.so");
  b = km_item_io_expand_path (&io, "${SHARE}/model/SR1/SR1.body", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (b, ==, "/usr/local/share/choreonoid-2.2/model/SR1/SR1.body");

  io.share_dir = "/src/choreonoid/share/";
  c = km_item_io_expand_path (&io, "${PROGRAM_TOP}/bin/choreonoid", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (c, ==, "/src/choreonoid/bin/choreonoid");

  io.share_dir = NULL;
  d = km_item_io_expand_path (&io, "${PROGRAM_TOP}/x", &error);
  g_assert_null (d);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/kinema/Item/tree", test_item_tree);
  g_test_add_func ("/kinema/Project/undo", test_undo);
  g_test_add_func ("/kinema/Project/restore-clean-state", test_restore_clean_state);
  g_test_add_func ("/kinema/UnknownItem/verbatim", test_unknown);
  g_test_add_func ("/kinema/ItemIo/path-variables", test_path_variables);

  return g_test_run ();
}
