/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <string.h>
#include <gtk/gtk.h>

#include "km-document-skeleton.h"
#include "km-item-row.h"
#include "km-item-tree.h"
#include "km-window.h"

#include "test-app-util.h"
#include "km-test-tmp.h"

/*
 * The Items tree indents only where the skeleton branches, under Xvfb. A serial chain (an
 * arm, a snake) was indented one level per joint, so a 7-DOF arm's or a 16-joint snake's
 * last joints were pushed off the side panel and their names cut short. Now the root
 * joint's serial run is flat under the body; the children of a joint with several (branch
 * heads) are indented one level under it, and each head's own run is listed in the head's
 * row, flat there, so each branch (an arm, a leg) is one collapsible row.
 */

#define N_CHAIN 16

typedef struct
{
  KmWindow   *window;
  KmDocument *document;
  KmItemTree *tree;
  char       *dir;
} Fixture;

/* A chain: "base" (fixed), then N_CHAIN revolute joints, each the only child of the one
 * before. */
static void
write_chain (const char *path)
{
  g_autoptr(GString) json = g_string_new ("{\"root_name\": \"base\", \"joints\": "
                                          "[{\"name\": \"base\", \"type\": \"fixed\", "
                                          "\"offset\": [0, 0, 0]}");

  for (guint i = 1; i <= N_CHAIN; i++)
    {
      g_autofree char *parent = i == 1 ? g_strdup ("base")
                                       : g_strdup_printf ("segment_%02u_joint", i - 1);

      g_string_append_printf (json, ", {\"name\": \"segment_%02u_joint\", \"type\": \"revolute\", "
                              "\"parent\": \"%s\", \"offset\": [0, 0, 0.05], "
                              "\"axis\": [0, %u, %u], \"limits\": [-1.5, 1.5]}", i, parent,
                              i % 2, (i + 1) % 2);
    }
  g_string_append (json, "]}");
  g_assert_true (g_file_set_contents (path, json->str, (gssize) json->len, NULL));
}

/* A Y: base, trunk, hip (two children), a left run of three and a right run of two. */
static void
write_y (const char *path)
{
  static const char * const joints[][2] = {
    { "trunk", "base" }, { "hip", "trunk" },
    { "left_a", "hip" }, { "left_b", "left_a" }, { "left_c", "left_b" },
    { "right_a", "hip" }, { "right_b", "right_a" },
  };
  g_autoptr(GString) json = g_string_new ("{\"root_name\": \"base\", \"joints\": "
                                          "[{\"name\": \"base\", \"type\": \"fixed\", "
                                          "\"offset\": [0, 0, 0]}");

  for (guint i = 0; i < G_N_ELEMENTS (joints); i++)
    g_string_append_printf (json, ", {\"name\": \"%s\", \"type\": \"revolute\", "
                            "\"parent\": \"%s\", \"offset\": [0, 0.05, 0.05], "
                            "\"axis\": [0, 1, 0], \"limits\": [-1.5, 1.5]}",
                            joints[i][0], joints[i][1]);
  g_string_append (json, "]}");
  g_assert_true (g_file_set_contents (path, json->str, (gssize) json->len, NULL));
}

/* Opens the chain (@data FALSE) or the Y (TRUE), in a window of the default size. */
static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autofree char *path = NULL;
  g_autoptr(GFile) file = NULL;

  f->dir = km_test_make_tmp_dir ("km-flat-chains-XXXXXX");
  path = g_build_filename (f->dir, "skeleton.json", NULL);
  if (GPOINTER_TO_INT (data))
    write_y (path);
  else
    write_chain (path);
  file = g_file_new_for_path (path);

  f->window = km_window_new (NULL);
  f->document = km_window_get_document (f->window);
  f->tree = KM_ITEM_TREE (km_window_get_item_tree (f->window));
  gtk_window_present (GTK_WINDOW (f->window));
  g_assert_true (test_app_open_file (f->window, file));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  test_app_spin ();
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  test_app_destroy_window (&f->window, &f->document);
  km_test_remove_tree (f->dir);
  g_free (f->dir);
}

static GListModel *
rows (Fixture *f)
{
  return G_LIST_MODEL (km_item_tree_get_selection_model (f->tree));
}

static char *
row_name (KmItemRow *row)
{
  char *name = NULL;

  g_object_get (row, "name", &name, NULL);
  return name;
}

/* The current body's joint rows in the list, as "depth:name" lines relative to the body. */
static char *
joint_rows (Fixture *f)
{
  GString *out = g_string_new (NULL);
  KmItem *body = km_document_get_body_item (f->document);
  guint body_depth = 0;

  for (guint i = 0; i < g_list_model_get_n_items (rows (f)); i++)
    {
      g_autoptr(GtkTreeListRow) row = g_list_model_get_item (rows (f), i);
      g_autoptr(KmItemRow) item_row = gtk_tree_list_row_get_item (row);
      g_autofree char *name = row_name (item_row);

      if (km_item_row_get_joint (item_row) < 0)
        {
          if (km_item_row_get_item (item_row) == body)
            body_depth = gtk_tree_list_row_get_depth (row);
          continue;
        }
      g_string_append_printf (out, "%u:%s\n", gtk_tree_list_row_get_depth (row) - body_depth,
                              name);
    }
  return g_string_free (out, FALSE);
}

/* The row of joint @name (a full reference), or NULL when it is not in the list. */
static GtkTreeListRow *
joint_row (Fixture    *f,
           const char *name)
{
  for (guint i = 0; i < g_list_model_get_n_items (rows (f)); i++)
    {
      g_autoptr(GtkTreeListRow) row = g_list_model_get_item (rows (f), i);
      g_autoptr(KmItemRow) item_row = gtk_tree_list_row_get_item (row);
      g_autofree char *joint_name = row_name (item_row);

      if (km_item_row_get_joint (item_row) >= 0 && g_strcmp0 (joint_name, name) == 0)
        return g_steal_pointer (&row);
    }
  return NULL;
}

/* The label showing joint @name in the list view's rows, or NULL (no widget for it). */
static GtkWidget *
find_name_label (GtkWidget  *widget,
                 const char *name)
{
  if (GTK_IS_TREE_EXPANDER (widget))
    {
      GtkTreeListRow *row = gtk_tree_expander_get_list_row (GTK_TREE_EXPANDER (widget));
      g_autoptr(KmItemRow) item_row = row != NULL ? gtk_tree_list_row_get_item (row) : NULL;
      g_autofree char *row_text = item_row != NULL ? row_name (item_row) : NULL;

      if (item_row == NULL || km_item_row_get_joint (item_row) < 0
          || g_strcmp0 (row_text, name) != 0)
        return NULL;
    }
  if (GTK_IS_LABEL (widget) && g_strcmp0 (gtk_label_get_label (GTK_LABEL (widget)), name) == 0
      && gtk_widget_get_ancestor (widget, GTK_TYPE_TREE_EXPANDER) != NULL)
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_name_label (child, name);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* Where the label of joint @name starts, in the list view's coordinates. */
static double
label_x (Fixture    *f,
         const char *name)
{
  GtkWidget *list = test_app_find_widget (GTK_WIDGET (f->tree), GTK_TYPE_LIST_VIEW);
  GtkWidget *label = find_name_label (list, name);
  graphene_rect_t bounds;

  g_assert_nonnull (label);
  g_assert_true (gtk_widget_compute_bounds (label, list, &bounds));
  return bounds.origin.x;
}

typedef struct
{
  Fixture    *f;
  const char *name;
} LabelWait;

/* Whether the label of a joint is laid out in view (the list scrolls to a joint selected
 * elsewhere once it has laid the row out). */
static gboolean
label_in_view (gpointer data)
{
  LabelWait *wait = data;
  GtkWidget *list = test_app_find_widget (GTK_WIDGET (wait->f->tree), GTK_TYPE_LIST_VIEW);
  GtkWidget *label = find_name_label (list, wait->name);
  graphene_rect_t bounds;

  return label != NULL && gtk_widget_get_mapped (label) && gtk_widget_get_width (label) > 0
         && gtk_widget_compute_bounds (label, list, &bounds) && bounds.origin.y >= 0
         && bounds.origin.y + bounds.size.height <= gtk_widget_get_height (list);
}

/* Every joint of the chain is listed at the root joint's depth, its label at the same
 * indentation; the last one's name is shown whole in the default window. */
static void
test_chain_is_flat (Fixture       *f,
                    gconstpointer  data)
{
  KmSkeleton *skeleton = km_document_get_skeleton (f->document);
  g_autoptr(GString) expected = g_string_new ("1:base\n");
  g_autofree char *lines = joint_rows (f);
  g_autofree char *last = g_strdup_printf ("segment_%02u_joint", N_CHAIN);
  g_autoptr(GtkTreeListRow) row = NULL;
  GtkWidget *list = test_app_find_widget (GTK_WIDGET (f->tree), GTK_TYPE_LIST_VIEW);
  GtkWidget *label;
  int natural = 0;
  double base_x;
  guint n_shown = 0;

  g_assert_cmpuint (km_skeleton_get_n_joints (skeleton), ==, N_CHAIN + 1);
  for (guint i = 1; i <= N_CHAIN; i++)
    g_string_append_printf (expected, "1:segment_%02u_joint\n", i);
  g_assert_cmpstr (lines, ==, expected->str);

  /* No joint of a chain has an expander: nothing is hidden under it. */
  row = joint_row (f, "segment_08_joint");
  g_assert_nonnull (row);
  g_assert_false (gtk_tree_list_row_is_expandable (row));

  /* The last joint selected (as the scene does) is brought into view, selected. */
  km_document_set_selected_joint (f->document, km_skeleton_find_joint (skeleton, last));
  g_assert_true (test_app_wait_until (label_in_view, &(LabelWait) { f, last }, 5000));
  test_app_spin ();
  g_clear_object (&row);
  row = joint_row (f, last);
  g_assert_nonnull (row);
  g_assert_true (gtk_selection_model_is_selected (km_item_tree_get_selection_model (f->tree),
                                                  gtk_tree_list_row_get_position (row)));

  /* Every chain joint's label that has a widget starts where the last one's does. */
  base_x = label_x (f, last);
  for (guint i = 1; i < N_CHAIN; i++)
    {
      g_autofree char *name = g_strdup_printf ("segment_%02u_joint", i);

      if (find_name_label (list, name) == NULL)
        continue;
      n_shown++;
      g_assert_cmpfloat (label_x (f, name), ==, base_x);
    }
  g_assert_cmpuint (n_shown, >=, 2);

  /* The whole name fits: the label got at least its natural width. */
  label = find_name_label (list, last);
  g_assert_nonnull (label);
  gtk_widget_measure (label, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &natural, NULL, NULL);
  g_test_message ("%s: %d px wide, %d px natural, at x %.0f", last,
                  gtk_widget_get_width (label), natural, label_x (f, last));
  g_assert_cmpint (natural, >, 0);
  g_assert_cmpint (gtk_widget_get_width (label), >=, natural);
}

/* Only branching indents, and each branch is a row of its own: base, trunk and hip in one
 * run under the body; the hip's children, the heads of its branches, one level under it;
 * and each head's run in the head's row, flat there. With every branch's run flat at the
 * hip's children's level (as it was), the left run went straight on into right_a with
 * nothing to show where one branch ends and the next begins. The hip's row collapses its
 * branches, a head's row its run, and a joint selected in a collapsed branch opens it
 * again; a selected row selects its joint. */
static void
test_branches_indent (Fixture       *f,
                      gconstpointer  data)
{
  KmSkeleton *skeleton = km_document_get_skeleton (f->document);
  GtkSelectionModel *selection = km_item_tree_get_selection_model (f->tree);
  g_autofree char *lines = joint_rows (f);
  g_autoptr(GtkTreeListRow) hip = NULL;
  g_autoptr(GtkTreeListRow) left_a = NULL;
  g_autoptr(GtkTreeListRow) right_a = NULL;
  g_autoptr(GtkTreeListRow) row = NULL;
  g_autoptr(GtkTreeListRow) parent = NULL;
  g_autofree char *collapsed = NULL;

  g_assert_cmpstr (lines, ==,
                   "1:base\n1:trunk\n1:hip\n2:left_a\n3:left_b\n3:left_c\n"
                   "2:right_a\n3:right_b\n");
  g_assert_cmpfloat (label_x (f, "trunk"), ==, label_x (f, "base"));
  g_assert_cmpfloat (label_x (f, "left_a"), >, label_x (f, "hip"));
  g_assert_cmpfloat (label_x (f, "left_b"), >, label_x (f, "left_a"));
  g_assert_cmpfloat (label_x (f, "left_c"), ==, label_x (f, "left_b"));
  g_assert_cmpfloat (label_x (f, "right_a"), ==, label_x (f, "left_a"));
  g_assert_cmpfloat (label_x (f, "right_b"), ==, label_x (f, "left_b"));

  hip = joint_row (f, "hip");
  g_assert_true (gtk_tree_list_row_is_expandable (hip));
  g_assert_true (gtk_tree_list_row_get_expanded (hip));
  left_a = joint_row (f, "left_a");
  g_assert_true (gtk_tree_list_row_is_expandable (left_a));
  g_assert_true (gtk_tree_list_row_get_expanded (left_a));
  parent = gtk_tree_list_row_get_parent (left_a);
  g_assert_true (parent == hip);
  g_clear_object (&parent);
  row = joint_row (f, "left_c");
  parent = gtk_tree_list_row_get_parent (row);
  g_assert_true (parent == left_a);
  g_assert_false (gtk_tree_list_row_is_expandable (row));
  g_clear_object (&parent);
  g_clear_object (&row);
  right_a = joint_row (f, "right_a");
  g_assert_true (gtk_tree_list_row_is_expandable (right_a));
  row = joint_row (f, "right_b");
  parent = gtk_tree_list_row_get_parent (row);
  g_assert_true (parent == right_a);
  g_clear_object (&parent);
  g_clear_object (&row);
  row = joint_row (f, "trunk");
  g_assert_false (gtk_tree_list_row_is_expandable (row));
  g_clear_object (&row);

  /* A branch collapses on its own: where it ends, the next one begins */
  gtk_tree_list_row_set_expanded (left_a, FALSE);
  collapsed = joint_rows (f);
  g_assert_cmpstr (collapsed, ==, "1:base\n1:trunk\n1:hip\n2:left_a\n2:right_a\n3:right_b\n");
  g_clear_pointer (&collapsed, g_free);
  g_clear_object (&left_a);

  gtk_tree_list_row_set_expanded (hip, FALSE);
  collapsed = joint_rows (f);
  g_assert_cmpstr (collapsed, ==, "1:base\n1:trunk\n1:hip\n");

  km_document_set_selected_joint (f->document, km_skeleton_find_joint (skeleton, "left_c"));
  test_app_spin ();
  g_assert_true (gtk_tree_list_row_get_expanded (hip));
  left_a = joint_row (f, "left_a");
  g_assert_nonnull (left_a);
  g_assert_true (gtk_tree_list_row_get_expanded (left_a));
  row = joint_row (f, "left_c");
  g_assert_nonnull (row);
  g_assert_true (gtk_selection_model_is_selected (selection, gtk_tree_list_row_get_position (row)));
  g_clear_object (&row);

  row = joint_row (f, "right_b");
  g_assert_nonnull (row);
  g_assert_true (gtk_selection_model_select_item (selection, gtk_tree_list_row_get_position (row),
                                                  TRUE));
  g_assert_cmpint (km_document_get_selected_joint (f->document), ==,
                   km_skeleton_find_joint (skeleton, "right_b"));
}

int
main (int    argc,
      char **argv)
{
  test_app_init (&argc, &argv);

  g_test_add ("/kinema/ItemTree/flat-chains/chain-is-flat", Fixture, GINT_TO_POINTER (FALSE),
              fixture_setup, test_chain_is_flat, fixture_teardown);
  g_test_add ("/kinema/ItemTree/flat-chains/branches-indent", Fixture, GINT_TO_POINTER (TRUE),
              fixture_setup, test_branches_indent, fixture_teardown);

  return g_test_run ();
}
