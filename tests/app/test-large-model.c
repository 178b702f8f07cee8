/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <gtk/gtk.h>

#include "km-document-skeleton.h"
#include "km-item-row.h"
#include "km-item-tree.h"
#include "km-joint-panel.h"
#include "km-skeleton-edit.h"
#include "km-skeleton-outline.h"
#include "km-window.h"

#include "test-app-util.h"
#include "km-test-tmp.h"

/*
 * A large model in the window's side panels, under Xvfb: a generated skeleton of N_JOINTS
 * revolute joints in a deep branching tree (each joint's parent one of the five joints
 * before it), as bench-open-large opens. The Skeleton tab's outline and the item tree open
 * with its first levels expanded, not all its joints (rows expanded by the thousand kept the
 * window from drawing), with the path to a joint selected later expanded; the outline's
 * rows build their tooltips when asked (query-tooltip), not as each row is made. A small
 * model (the built-in example) still opens fully expanded, and a row collapsed by hand
 * stays so across an edit. The Pose tab's list is given a large model's rows a few at a
 * time, the main loop running between them.
 */

#define N_JOINTS 3000

typedef struct
{
  KmWindow          *window;
  KmDocument        *document;
  KmSkeletonOutline *outline;
  KmItemTree        *tree;
  char              *dir;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  gboolean large = GPOINTER_TO_INT (data);

  /* As `kinema FILE` does: the built-in example, then the file opened in its window. */
  f->window = test_app_example_window (1280, 800);
  f->document = km_window_get_document (f->window);
  f->tree = KM_ITEM_TREE (km_window_get_item_tree (f->window));
  f->outline = KM_SKELETON_OUTLINE (test_app_find_widget (GTK_WIDGET (f->window),
                                                          KM_TYPE_SKELETON_OUTLINE));
  g_assert_nonnull (f->outline);
  if (large)
    {
      g_autofree char *path = NULL;
      g_autoptr(GFile) file = NULL;

      f->dir = km_test_make_tmp_dir ("km-large-model-XXXXXX");
      path = g_build_filename (f->dir, "tree.json", NULL);
      test_app_write_tree (path, N_JOINTS);
      file = g_file_new_for_path (path);
      g_assert_true (test_app_open_file (f->window, file));
      g_assert_cmpuint (km_skeleton_get_n_joints (km_document_get_skeleton (f->document)), ==,
                        N_JOINTS);
    }
  g_assert_true (test_app_wait_idle_solve (f->document, 60000));
  test_app_spin ();
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  test_app_destroy_window (&f->window, &f->document);
  if (f->dir != NULL)
    km_test_remove_tree (f->dir);
  g_free (f->dir);
}

static KmSkeleton *
skeleton (Fixture *f)
{
  return km_document_get_skeleton (f->document);
}

static GListModel *
outline_rows (Fixture *f)
{
  return km_skeleton_outline_get_rows (f->outline);
}

/* The outline's row of joint @name, or NULL (a collapsed row above it). */
static GtkTreeListRow *
outline_row (Fixture    *f,
             const char *name)
{
  for (guint i = 0; i < g_list_model_get_n_items (outline_rows (f)); i++)
    {
      g_autoptr(GtkTreeListRow) row = g_list_model_get_item (outline_rows (f), i);
      g_autoptr(GtkStringObject) item = gtk_tree_list_row_get_item (row);

      if (g_strcmp0 (gtk_string_object_get_string (item), name) == 0)
        return g_steal_pointer (&row);
    }
  return NULL;
}

/* The current body's joint rows in the item tree; *@selected_joint set to the joint of the
 * selected one, or -1. */
static guint
tree_joint_rows (Fixture *f,
                 int     *selected_joint)
{
  GtkSelectionModel *model = km_item_tree_get_selection_model (f->tree);
  guint n = 0;

  *selected_joint = -1;
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (model)); i++)
    {
      g_autoptr(GtkTreeListRow) row = g_list_model_get_item (G_LIST_MODEL (model), i);
      g_autoptr(KmItemRow) item_row = gtk_tree_list_row_get_item (row);

      if (km_item_row_get_joint (item_row) < 0)
        continue;
      n++;
      if (gtk_selection_model_is_selected (model, i))
        *selected_joint = km_item_row_get_joint (item_row);
    }
  return n;
}

static guint
depth (Fixture *f,
       int      joint)
{
  guint d = 0;

  for (int j = km_skeleton_get_joint (skeleton (f), (guint) joint)->parent; j >= 0;
       j = km_skeleton_get_joint (skeleton (f), (guint) j)->parent)
    d++;
  return d;
}

/* A large model opens with at most KM_JOINT_TREE_ROWS joint rows in the outline and the
 * item tree; the deepest joint, once selected, gets a row in both, its ancestors expanded
 * (each of which has at most five children in this tree). */
static void
test_large_opens_collapsed (Fixture       *f,
                            gconstpointer  data)
{
  int last = 0;
  g_autoptr(GtkTreeListRow) row = NULL;
  guint n_outline, n_tree;
  int selected;

  /* The deepest joint. */
  for (guint j = 1; j < N_JOINTS; j++)
    if (depth (f, (int) j) > depth (f, last))
      last = (int) j;

  n_outline = g_list_model_get_n_items (outline_rows (f));
  n_tree = tree_joint_rows (f, &selected);
  g_test_message ("outline %u rows, item tree %u joint rows of %u joints", n_outline, n_tree,
                  N_JOINTS);
  g_assert_cmpuint (n_outline, >, 1);
  g_assert_cmpuint (n_outline, <=, KM_JOINT_TREE_ROWS);
  g_assert_cmpuint (n_tree, >, 1);
  g_assert_cmpuint (n_tree, <=, KM_JOINT_TREE_ROWS);
  g_assert_cmpuint (depth (f, last), >, 100);

  km_document_set_selected_joint (f->document, last);
  test_app_spin ();
  row = outline_row (f, km_skeleton_get_joint (skeleton (f), (guint) last)->name);
  g_assert_nonnull (row);
  g_assert_cmpuint (gtk_single_selection_get_selected (GTK_SINGLE_SELECTION (outline_rows (f))),
                    ==, gtk_tree_list_row_get_position (row));
  g_assert_cmpuint (gtk_tree_list_row_get_depth (row), ==, depth (f, last));
  n_outline = g_list_model_get_n_items (outline_rows (f));
  n_tree = tree_joint_rows (f, &selected);
  g_test_message ("with %s selected (depth %u): outline %u rows, item tree %u joint rows",
                  km_skeleton_get_joint (skeleton (f), (guint) last)->name, depth (f, last),
                  n_outline, n_tree);
  g_assert_cmpint (selected, ==, last);
  g_assert_cmpuint (n_outline, <=, KM_JOINT_TREE_ROWS + 5 * depth (f, last));
  g_assert_cmpuint (n_tree, <=, KM_JOINT_TREE_ROWS + 5 * depth (f, last));
  g_assert_cmpuint (n_outline, <, N_JOINTS);
}

/* What the outline expanded in one body is forgotten when another is shown: the large tree
 * with its deepest joint selected (the path to it expanded), then the same file opened
 * again, with no joint selected, opens as the first time did, with at most
 * KM_JOINT_TREE_ROWS rows (the rows expanded before were kept by name, past the limit).
 * Before that, the example (other names) and then the large tree: the same limit. */
static void
test_reopen_forgets_expansion (Fixture       *f,
                               gconstpointer  data)
{
  g_autofree char *path = g_build_filename (f->dir, "tree.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  int last = 0;
  guint n_outline;

  g_assert_cmpuint (g_list_model_get_n_items (outline_rows (f)), <=, KM_JOINT_TREE_ROWS);
  for (guint j = 1; j < N_JOINTS; j++)
    if (depth (f, (int) j) > depth (f, last))
      last = (int) j;
  km_document_set_selected_joint (f->document, last);
  test_app_spin ();
  g_assert_cmpuint (g_list_model_get_n_items (outline_rows (f)), >, KM_JOINT_TREE_ROWS);

  g_assert_true (test_app_open_file (f->window, file));
  g_assert_true (test_app_wait_idle_solve (f->document, 60000));
  test_app_spin ();
  n_outline = g_list_model_get_n_items (outline_rows (f));
  g_test_message ("reopened: outline %u rows, joint %d selected", n_outline,
                  km_document_get_selected_joint (f->document));
  g_assert_cmpint (km_document_get_selected_joint (f->document), <=, 0);
  g_assert_cmpuint (n_outline, >, 1);
  g_assert_cmpuint (n_outline, <=, KM_JOINT_TREE_ROWS);
}

/* The outline's rows set no tooltip text (each would ask the display where the pointer is
 * as the row is made): the list builds a row's tooltip, the joint's whole name, when asked. */
static void
test_outline_tooltips_lazy (Fixture       *f,
                            gconstpointer  data)
{
  GtkWidget *list_view = test_app_find_widget (GTK_WIDGET (f->outline), GTK_TYPE_LIST_VIEW);
  guint n_labels = 0;

  g_assert_nonnull (list_view);
  g_assert_true (gtk_widget_get_has_tooltip (list_view));
  for (GtkWidget *child = gtk_widget_get_first_child (list_view); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *label = test_app_find_widget (child, GTK_TYPE_LABEL);
      const char *text;

      if (label == NULL)
        continue;
      text = gtk_label_get_text (GTK_LABEL (label));
      if (*text == '\0')
        continue;   /* a row widget the list keeps unbound */
      n_labels++;
      g_assert_null (gtk_widget_get_tooltip_text (label));
      g_assert_cmpstr (km_skeleton_outline_get_row_tooltip (f->outline, label), ==, text);
    }
  g_test_message ("%u rows made", n_labels);
  g_assert_cmpuint (n_labels, >, 1);
  g_assert_null (km_skeleton_outline_get_row_tooltip (f->outline, list_view));
}

/* The built-in example opens with every joint's row, in the outline and in the item tree;
 * a row collapsed by hand stays collapsed across an edit of the skeleton. */
static void
test_small_opens_expanded (Fixture       *f,
                           gconstpointer  data)
{
  guint n_joints = km_skeleton_get_n_joints (skeleton (f));
  g_autoptr(KmSkeleton) edited = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GtkTreeListRow) row = NULL;
  g_autoptr(GtkTreeListRow) again = NULL;
  const char *name = NULL;
  int selected;

  g_assert_cmpuint (n_joints, >=, 3);
  g_assert_cmpuint (g_list_model_get_n_items (outline_rows (f)), ==, n_joints);
  g_assert_cmpuint (tree_joint_rows (f, &selected), ==, n_joints);

  /* A joint with children, below the root. */
  for (guint j = 1; j < n_joints && name == NULL; j++)
    if (km_skeleton_get_joint (skeleton (f), j)->subtree_end > j + 1)
      name = km_skeleton_get_joint (skeleton (f), j)->name;
  g_assert_nonnull (name);
  km_document_set_selected_joint (f->document, -1);
  row = outline_row (f, name);
  g_assert_nonnull (row);
  g_assert_true (gtk_tree_list_row_get_expanded (row));
  gtk_tree_list_row_set_expanded (row, FALSE);
  g_assert_cmpuint (g_list_model_get_n_items (outline_rows (f)), <, n_joints);

  edited = km_skeleton_edit_set_name (skeleton (f), 0, "Renamed", &error);
  g_assert_no_error (error);
  g_assert_true (km_document_edit_skeleton (f->document, edited, "Rename Joint", "Renamed"));
  test_app_spin ();
  again = outline_row (f, name);
  g_assert_nonnull (again);
  g_assert_false (gtk_tree_list_row_get_expanded (again));
  g_assert_nonnull (outline_row (f, "Renamed"));
}

/* Most rows the Pose tab's list may be given in one go while it has fewer than
 * PANEL_WIDGET_ROWS (GTK 4.8's list view makes widgets for some 200 rows past the first). */
#define PANEL_CHUNK_MAX   16
#define PANEL_WIDGET_ROWS 200

typedef struct
{
  GListModel *model;        /* the joint panel's list's */
  guint       n_changes;    /* items-changed with rows added */
  guint       most_added;   /* most rows one of them added below PANEL_WIDGET_ROWS */
  gboolean    loop_ran;     /* the G_PRIORITY_HIGH idle added at the last one has run */
  gboolean    back_to_back; /* rows were added with no return to the main loop in between */
  guint       n_at_skeleton; /* rows the list had when the document's skeleton was set */
} PanelFill;

static gboolean
loop_ran_cb (gpointer data)
{
  ((PanelFill *) data)->loop_ran = TRUE;
  return G_SOURCE_REMOVE;
}

static void
panel_rows_changed_cb (GListModel *model,
                       guint       position,
                       guint       removed,
                       guint       added,
                       PanelFill  *fill)
{
  if (added == 0)
    return;
  if (fill->n_changes > 0 && !fill->loop_ran)
    fill->back_to_back = TRUE;
  if (position < PANEL_WIDGET_ROWS)
    fill->most_added = MAX (fill->most_added, added);
  fill->n_changes++;
  fill->loop_ran = FALSE;
  g_idle_add_full (G_PRIORITY_HIGH, loop_ran_cb, fill, NULL);
}

static void
panel_skeleton_cb (KmDocument *document,
                   GParamSpec *pspec,
                   PanelFill  *fill)
{
  fill->n_at_skeleton = g_list_model_get_n_items (fill->model);
}

/* Opening a large model, the Pose tab's list gets its rows a chunk at a time, with the main
 * loop (a high-priority idle) running between chunks, until it has every DOF's. The
 * panel's own rows (adjustments) are all there at once. */
static void
test_panel_fills_in_chunks (Fixture       *f,
                            gconstpointer  data)
{
  KmJointPanel *panel = KM_JOINT_PANEL (km_window_get_joint_panel (f->window));
  GtkWidget *list_view = test_app_find_pose_list (GTK_WIDGET (panel));
  g_autofree char *path = NULL;
  g_autoptr(GFile) file = NULL;
  PanelFill fill = { 0 };

  g_assert_nonnull (list_view);
  fill.model = G_LIST_MODEL (gtk_list_view_get_model (GTK_LIST_VIEW (list_view)));
  f->dir = km_test_make_tmp_dir ("km-large-model-XXXXXX");
  path = g_build_filename (f->dir, "tree.json", NULL);
  test_app_write_tree (path, N_JOINTS);
  file = g_file_new_for_path (path);

  g_signal_connect (fill.model, "items-changed", G_CALLBACK (panel_rows_changed_cb), &fill);
  /* After the panel's own handler. */
  g_signal_connect_after (f->document, "notify::skeleton", G_CALLBACK (panel_skeleton_cb),
                          &fill);
  g_assert_true (test_app_open_file (f->window, file));
  g_assert_true (test_app_wait_idle_solve (f->document, 60000));
  test_app_spin ();
  g_signal_handlers_disconnect_by_data (fill.model, &fill);
  g_signal_handlers_disconnect_by_data (f->document, &fill);

  g_test_message ("%u items-changed, at most %u rows at once, %u when the skeleton was set",
                  fill.n_changes, fill.most_added, fill.n_at_skeleton);
  g_assert_cmpuint (km_joint_panel_get_n_rows (panel), ==, N_JOINTS - 1);
  g_assert_cmpuint (g_list_model_get_n_items (fill.model), ==, N_JOINTS - 1);
  g_assert_cmpuint (fill.n_at_skeleton, <=, PANEL_CHUNK_MAX);
  g_assert_cmpuint (fill.most_added, <=, PANEL_CHUNK_MAX);
  g_assert_cmpuint (fill.n_changes, >=, PANEL_WIDGET_ROWS / PANEL_CHUNK_MAX);
  g_assert_false (fill.back_to_back);
}

int
main (int    argc,
      char **argv)
{
  test_app_init (&argc, &argv);

  g_test_add ("/kinema/LargeModel/opens-collapsed", Fixture, GINT_TO_POINTER (TRUE),
              fixture_setup, test_large_opens_collapsed, fixture_teardown);
  g_test_add ("/kinema/LargeModel/reopen-forgets-expansion", Fixture, GINT_TO_POINTER (TRUE),
              fixture_setup, test_reopen_forgets_expansion, fixture_teardown);
  g_test_add ("/kinema/LargeModel/outline-tooltips-lazy", Fixture, GINT_TO_POINTER (TRUE),
              fixture_setup, test_outline_tooltips_lazy, fixture_teardown);
  g_test_add ("/kinema/LargeModel/panel-fills-in-chunks", Fixture, GINT_TO_POINTER (FALSE),
              fixture_setup, test_panel_fills_in_chunks, fixture_teardown);
  g_test_add ("/kinema/LargeModel/small-opens-expanded", Fixture, GINT_TO_POINTER (FALSE),
              fixture_setup, test_small_opens_expanded, fixture_teardown);

  return g_test_run ();
}
