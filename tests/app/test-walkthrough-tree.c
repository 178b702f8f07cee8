/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <string.h>
#include <gtk/gtk.h>
#ifdef GDK_WINDOWING_X11
#include <gdk/x11/gdkx.h>
#endif

#include "km-folder-item.h"
#include "km-ik-targets-item.h"
#include "km-item-row.h"
#include "km-item-tree.h"
#include "km-message.h"
#include "km-window.h"

#include "test-app-util.h"

/*
 * What a user sees in the item tree of the built-in example, under Xvfb: the labels of the
 * rows the tree shows (not only the items' names) after the edits the README lists.
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
  test_app_spin ();
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_object_add_weak_pointer (G_OBJECT (f->window), (gpointer *) &f->window);
  gtk_window_destroy (GTK_WINDOW (f->window));
  test_app_spin ();
  g_assert_null (f->window);
}

/* Appends the text of every GtkLabel at or below @widget to @labels. */
static void
collect_labels (GtkWidget *widget,
                GString   *labels)
{
  if (!gtk_widget_get_mapped (widget))
    return;
  if (GTK_IS_LABEL (widget))
    g_string_append_printf (labels, "%s\n", gtk_label_get_text (GTK_LABEL (widget)));
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    collect_labels (child, labels);
}

/* "name:1" (checked) or "name:0" for each item row the tree shows with a check box. */
static void
collect_checks (GtkWidget *widget,
                GString   *checks)
{
  GtkWidget *check = NULL;
  GtkWidget *label = NULL;

  if (!gtk_widget_get_mapped (widget))
    return;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      if (GTK_IS_CHECK_BUTTON (child) && gtk_widget_get_mapped (child))
        check = child;
      else if (GTK_IS_LABEL (child))
        label = child;
      collect_checks (child, checks);
    }
  if (check != NULL && label != NULL)
    g_string_append_printf (checks, "%s:%d\n", gtk_label_get_text (GTK_LABEL (label)),
                            gtk_check_button_get_active (GTK_CHECK_BUTTON (check)));
}

static char *
shown_checks (Fixture *f)
{
  GString *checks = g_string_new (NULL);

  test_app_spin ();
  collect_checks (GTK_WIDGET (f->tree), checks);
  return g_string_free (checks, FALSE);
}

/* The labels the tree shows, one a line, top to bottom. */
static char *
shown_labels (Fixture *f)
{
  GString *labels = g_string_new (NULL);

  test_app_spin ();
  collect_labels (GTK_WIDGET (f->tree), labels);
  return g_string_free (labels, FALSE);
}

static guint
position_of (Fixture    *f,
             const char *name)
{
  GListModel *model = G_LIST_MODEL (km_item_tree_get_selection_model (f->tree));

  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(GtkTreeListRow) row = g_list_model_get_item (model, i);
      g_autoptr(KmItemRow) item_row = gtk_tree_list_row_get_item (row);
      g_autofree char *row_name = NULL;

      g_object_get (item_row, "name", &row_name, NULL);
      if (g_strcmp0 (row_name, name) == 0)
        return i;
    }
  g_assert_not_reached ();
}

/* F2 on the body, a new name, Enter: the row reads the new name, and again the old one
 * after undo. */
static void
test_rename_shows (Fixture       *f,
                   gconstpointer  data)
{
  GtkSelectionModel *selection = km_item_tree_get_selection_model (f->tree);
  GtkEditable *entry = km_item_tree_get_rename_entry (f->tree);
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autofree char *undone = NULL;

  before = shown_labels (f);
  g_assert_nonnull (strstr (before, "\nBody\n"));
  g_assert_true (gtk_selection_model_select_item (selection, position_of (f, "Body"), TRUE));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->tree), "tree.rename", NULL));
  gtk_editable_set_text (entry, "Arm");
  g_signal_emit_by_name (entry, "activate");

  after = shown_labels (f);
  g_assert_null (strstr (after, "\nBody\n"));
  g_assert_nonnull (strstr (after, "\nArm\n"));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.undo", NULL));
  undone = shown_labels (f);
  g_assert_cmpstr (undone, ==, before);
}

/* Review finding 11: F2 on a joint's row renames the joint (the Skeleton tab's Rename
 * Joint, one undoable step): the row and the skeleton have the new name, and the old one
 * again after undo. A name another joint has is refused with a message, and nothing
 * changes. */
static void
test_rename_joint (Fixture       *f,
                   gconstpointer  data)
{
  GtkSelectionModel *selection = km_item_tree_get_selection_model (f->tree);
  GtkEditable *entry = km_item_tree_get_rename_entry (f->tree);
  GtkWidget *popover = gtk_widget_get_ancestor (GTK_WIDGET (entry), GTK_TYPE_POPOVER);
  KmSkeleton *skeleton;
  int elbow;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autofree char *undone = NULL;

  before = shown_labels (f);
  g_assert_nonnull (strstr (before, "\nElbow\n"));
  elbow = km_skeleton_find_joint (km_document_get_skeleton (f->document), "Elbow");
  g_assert_cmpint (elbow, >=, 0);
  g_assert_true (gtk_selection_model_select_item (selection, position_of (f, "Elbow"), TRUE));
  g_assert_cmpint (km_document_get_selected_joint (f->document), ==, elbow);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->tree), "tree.rename", NULL));
  test_app_spin ();
  g_assert_true (gtk_widget_get_visible (popover));
  g_assert_cmpstr (gtk_editable_get_text (entry), ==, "Elbow");

  /* Another joint's name: refused, said why, the popover stays for another try. */
  gtk_editable_set_text (entry, "Shoulder");
  g_signal_emit_by_name (entry, "activate");
  g_assert_true (gtk_widget_get_visible (popover));
  g_assert_cmpint (km_skeleton_find_joint (km_document_get_skeleton (f->document), "Elbow"),
                   ==, elbow);
  g_assert_true (test_app_has_message (f->document, 0, "Shoulder", NULL));

  gtk_editable_set_text (entry, "Forearm");
  g_signal_emit_by_name (entry, "activate");
  test_app_spin ();
  g_assert_false (gtk_widget_get_visible (popover));
  skeleton = km_document_get_skeleton (f->document);
  g_assert_cmpint (km_skeleton_find_joint (skeleton, "Forearm"), ==, elbow);
  g_assert_cmpint (km_skeleton_find_joint (skeleton, "Elbow"), <, 0);
  after = shown_labels (f);
  g_assert_null (strstr (after, "\nElbow\n"));
  g_assert_nonnull (strstr (after, "\nForearm\n"));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.undo", NULL));
  undone = shown_labels (f);
  g_assert_cmpstr (undone, ==, before);
  g_assert_cmpint (km_skeleton_find_joint (km_document_get_skeleton (f->document), "Elbow"),
                   ==, elbow);
}

/* Review finding 8: the rows of items Kinema knows have no tooltip (it was the item's
 * class, "Kinema/IKTargetsItem", over the row below); a joint's row says whose joint it
 * is, in words. */
static void
test_row_tooltips (Fixture       *f,
                   gconstpointer  data)
{
  GListModel *model = G_LIST_MODEL (km_item_tree_get_selection_model (f->tree));
  guint n_items = 0, n_joints = 0;

  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(GtkTreeListRow) row = g_list_model_get_item (model, i);
      g_autoptr(KmItemRow) item_row = gtk_tree_list_row_get_item (row);
      g_autofree char *name = NULL;

      g_object_get (item_row, "name", &name, NULL);
      if (km_item_row_get_joint (item_row) >= 0)
        {
          g_autofree char *expected = g_strdup_printf ("Joint “%s” of Body", name);

          g_assert_cmpstr (km_item_row_get_tooltip (item_row), ==, expected);
          n_joints++;
        }
      else
        {
          g_test_message ("%s: %s", name, km_item_row_get_tooltip (item_row));
          g_assert_null (km_item_row_get_tooltip (item_row));
          n_items++;
        }
    }
  /* World, Body, IK Targets, Solved Animation; the arm's joints. */
  g_assert_cmpuint (n_items, >=, 4);
  g_assert_cmpuint (n_joints, >=, 3);
}

/* Unchecking the body and undoing it: the body's check box follows both times. */
static void
test_check_shows (Fixture       *f,
                  gconstpointer  data)
{
  GtkSelectionModel *selection = km_item_tree_get_selection_model (f->tree);
  g_autofree char *before = NULL;
  g_autofree char *unchecked = NULL;
  g_autofree char *undone = NULL;

  /* Joint rows have no check box */
  before = shown_checks (f);
  g_assert_nonnull (strstr (before, "World:1\nBody:1\n"));
  g_assert_null (strstr (before, "Root:"));
  g_assert_true (gtk_selection_model_select_item (selection, position_of (f, "Body"), TRUE));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->tree), "tree.uncheck", NULL));
  unchecked = shown_checks (f);
  g_assert_nonnull (strstr (unchecked, "World:1\nBody:0\n"));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.undo", NULL));
  undone = shown_checks (f);
  g_assert_cmpstr (undone, ==, before);
}

/* Appends "text=accel" for every menu entry at or below @widget. */
static void
collect_menu_entries (GtkWidget *widget,
                      GString   *entries)
{
  if (g_strcmp0 (G_OBJECT_TYPE_NAME (widget), "GtkModelButton") == 0)
    {
      g_autofree char *text = NULL;
      g_autofree char *accel = NULL;

      g_object_get (widget, "text", &text, "accel", &accel, NULL);
      g_string_append_printf (entries, "%s=%s\n", text, accel ? accel : "");
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    collect_menu_entries (child, entries);
}

/* The context menu names the keys the tree takes: Delete for Delete, not the keypad's. */
static void
test_context_menu_accels (Fixture       *f,
                          gconstpointer  data)
{
  GtkSelectionModel *selection = km_item_tree_get_selection_model (f->tree);
  GtkWidget *menu = NULL;
  g_autoptr(GString) entries = g_string_new (NULL);

  g_assert_true (gtk_selection_model_select_item (selection, position_of (f, "Body"), TRUE));
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (f->tree)); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_POPOVER_MENU (child))
      menu = child;
  g_assert_nonnull (menu);
  gtk_popover_popup (GTK_POPOVER (menu));
  test_app_spin ();
  collect_menu_entries (menu, entries);
  gtk_popover_popdown (GTK_POPOVER (menu));
  g_test_message ("%s", entries->str);
  g_assert_nonnull (strstr (entries->str, "Delete=Delete\n"));
  g_assert_null (strstr (entries->str, "KP_Delete"));
}

/* "Check" and "Uncheck" of the open context menu, with their sensitivity: "Check=1\n…". */
static char *
check_entries (Fixture *f)
{
  GtkWidget *menu = NULL;
  g_autoptr(GPtrArray) buttons = g_ptr_array_new ();
  GString *entries = g_string_new (NULL);

  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (f->tree)); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_POPOVER_MENU (child))
      menu = child;
  g_assert_nonnull (menu);
  gtk_popover_popup (GTK_POPOVER (menu));
  test_app_spin ();
  /* Depth first through the menu's model buttons. */
  g_ptr_array_add (buttons, menu);
  while (buttons->len > 0)
    {
      GtkWidget *widget = g_ptr_array_steal_index (buttons, buttons->len - 1);

      if (g_strcmp0 (G_OBJECT_TYPE_NAME (widget), "GtkModelButton") == 0)
        {
          g_autofree char *text = NULL;

          g_object_get (widget, "text", &text, NULL);
          /* (the label's mnemonic underline left out) */
          if (text != NULL && text[0] == '_')
            memmove (text, text + 1, strlen (text));
          if (g_strcmp0 (text, "Check") == 0 || g_strcmp0 (text, "Uncheck") == 0)
            g_string_append_printf (entries, "%s=%d\n", text,
                                    gtk_widget_is_sensitive (widget));
        }
      for (GtkWidget *child = gtk_widget_get_last_child (widget); child != NULL;
           child = gtk_widget_get_prev_sibling (child))
        g_ptr_array_add (buttons, child);
    }
  gtk_popover_popdown (GTK_POPOVER (menu));
  test_app_spin ();
  return g_string_free (entries, FALSE);
}

/* Review finding (rev23b-gui 3): the context menu of a checked item offered Check and
 * Uncheck, both enabled. Only the one that changes something is, also after an Uncheck
 * and its undo (the selection unchanged). */
static void
test_context_menu_check_state (Fixture       *f,
                               gconstpointer  data)
{
  GtkSelectionModel *selection = km_item_tree_get_selection_model (f->tree);
  g_autofree char *checked = NULL;
  g_autofree char *unchecked = NULL;
  g_autofree char *undone = NULL;

  g_assert_true (gtk_selection_model_select_item (selection, position_of (f, "Body"), TRUE));
  checked = check_entries (f);
  g_assert_cmpstr (checked, ==, "Check=0\nUncheck=1\n");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->tree), "tree.uncheck", NULL));
  unchecked = check_entries (f);
  g_assert_cmpstr (unchecked, ==, "Check=1\nUncheck=0\n");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.undo", NULL));
  undone = check_entries (f);
  g_assert_cmpstr (undone, ==, "Check=0\nUncheck=1\n");
}

/* Reload on the built-in example's body says where it read it from: the embedded
 * example, not a skeleton.json. */
static void
test_reload_example_says_builtin (Fixture       *f,
                                  gconstpointer  data)
{
  GtkSelectionModel *selection = km_item_tree_get_selection_model (f->tree);
  GListModel *messages = km_document_get_messages (f->document);
  g_autoptr(KmMessage) last = NULL;

  g_assert_true (gtk_selection_model_select_item (selection, position_of (f, "Body"), TRUE));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->tree), "tree.reload", NULL));
  g_assert_true (test_app_wait_reloaded (GTK_WIDGET (f->tree)));
  test_app_spin ();
  last = g_list_model_get_item (messages, g_list_model_get_n_items (messages) - 1);
  g_assert_cmpstr (km_message_get_text (last), ==,
                   "Reloaded “Body” from the built-in example.");
}

/* Reload of a model the project names through ${SHARE} says where it read it from as
 * every message shows a file: the real path, not "${SHARE}/model/SR1/SR1.body" (review
 * rev18-gui finding 9). */
static void
test_reload_share_model_says_path (Fixture       *f,
                                   gconstpointer  data)
{
  g_autofree char *project = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "share",
                                                    "project", "SR1Walk.cnoid", NULL);
  g_autofree char *model = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "share",
                                                  "model", "SR1", "SR1.body", NULL);
  g_autoptr(GFile) project_file = g_file_new_for_path (project);
  GtkSelectionModel *selection = km_item_tree_get_selection_model (f->tree);
  GListModel *messages = km_document_get_messages (f->document);
  g_autoptr(KmMessage) last = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *expected = NULL;

  g_assert_true (km_document_import_file (f->document, project_file, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  test_app_spin ();
  g_assert_cmpstr (km_item_get_file (km_document_get_body_item (f->document)), ==,
                   "${SHARE}/model/SR1/SR1.body");
  g_assert_true (gtk_selection_model_select_item (selection, position_of (f, "SR1"), TRUE));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->tree), "tree.reload", NULL));
  g_assert_true (test_app_wait_reloaded (GTK_WIDGET (f->tree)));
  test_app_spin ();
  last = g_list_model_get_item (messages, g_list_model_get_n_items (messages) - 1);
  expected = g_strdup_printf ("Reloaded “SR1” from %s.", model);
  g_assert_cmpstr (km_message_get_text (last), ==, expected);
}

/* The tree's row of @item. */
static GtkTreeListRow *
row_of_item (Fixture *f,
             KmItem  *item)
{
  GListModel *model = G_LIST_MODEL (km_item_tree_get_selection_model (f->tree));

  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(GtkTreeListRow) row = g_list_model_get_item (model, i);
      g_autoptr(KmItemRow) item_row = gtk_tree_list_row_get_item (row);

      if (km_item_row_get_item (item_row) == item && km_item_row_get_joint (item_row) < 0)
        return g_steal_pointer (&row);
    }
  g_assert_not_reached ();
}

/* Only rows with something below them get an expander: a childless item has none until
 * it gets a child, and loses it with its last one; a body has its joints. */
static void
test_expanders (Fixture       *f,
                gconstpointer  data)
{
  KmItem *root = km_project_get_root_item (km_document_get_project (f->document));
  g_autoptr(KmItem) folder = km_folder_item_new ();
  g_autoptr(KmItem) child = km_folder_item_new ();
  GtkTreeListRow *row;

  km_item_set_name (folder, "Empty");
  km_item_append_child (root, folder);
  test_app_spin ();
  row = row_of_item (f, folder);
  g_assert_false (gtk_tree_list_row_is_expandable (row));
  g_object_unref (row);
  row = row_of_item (f, km_document_get_body_item (f->document));
  g_assert_true (gtk_tree_list_row_is_expandable (row));
  g_object_unref (row);

  /* Selected, it stays so as it gets its first child. */
  km_project_select (km_document_get_project (f->document), folder, FALSE);
  test_app_spin ();
  km_item_append_child (folder, child);
  test_app_spin ();
  row = row_of_item (f, folder);
  g_assert_true (gtk_tree_list_row_is_expandable (row));
  g_assert_true (gtk_selection_model_is_selected (km_item_tree_get_selection_model (f->tree),
                                                  gtk_tree_list_row_get_position (row)));
  gtk_tree_list_row_set_expanded (row, TRUE);
  g_object_unref (row);
  test_app_spin ();
  row = row_of_item (f, child);
  g_assert_false (gtk_tree_list_row_is_expandable (row));
  g_object_unref (row);

  km_item_remove_child (folder, child);
  test_app_spin ();
  row = row_of_item (f, folder);
  g_assert_false (gtk_tree_list_row_is_expandable (row));
  g_object_unref (row);
  km_item_remove_child (root, folder);
}

/* The first widget at or below @widget whose type is named @type_name, if mapped. */
static GtkWidget *
find_mapped (GtkWidget  *widget,
             const char *type_name)
{
  if (!gtk_widget_get_mapped (widget))
    return NULL;
  if (strcmp (G_OBJECT_TYPE_NAME (widget), type_name) == 0)
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_mapped (child, type_name);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The row widget (its GtkTreeExpander) with the tooltip @text, at or below @widget. The
 * tree builds a row's tooltip when GTK asks for it (query-tooltip), from its KmItemRow. */
static GtkWidget *
find_tooltip_row (GtkWidget  *widget,
                  const char *text)
{
  if (GTK_IS_TREE_EXPANDER (widget) && gtk_widget_get_mapped (widget))
    {
      GtkTreeListRow *row = gtk_tree_expander_get_list_row (GTK_TREE_EXPANDER (widget));
      g_autoptr(KmItemRow) item_row = row != NULL ? gtk_tree_list_row_get_item (row) : NULL;

      if (item_row != NULL && g_strcmp0 (km_item_row_get_tooltip (item_row), text) == 0)
        return widget;
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_tooltip_row (child, text);

      if (found != NULL)
        return found;
    }
  return NULL;
}


/* A row's tooltip, shown by hovering before a right click, is not left on top of the
 * context menu the click opens; it comes back once the menu is closed. */
static void
test_context_menu_hides_tooltip (Fixture       *f,
                                 gconstpointer  data)
{
#ifdef GDK_WINDOWING_X11
  GtkWidget *window = GTK_WIDGET (f->window);
  KmItem *targets = km_item_find_child_by_type (km_document_get_body_item (f->document),
                                                KM_TYPE_IK_TARGETS_ITEM);
  GtkWidget *row = NULL;
  GtkWidget *list_view = test_app_find_widget (GTK_WIDGET (f->tree), GTK_TYPE_LIST_VIEW);
  GtkWidget *menu = NULL;
  g_autoptr(GPtrArray) hover = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) click = g_ptr_array_new_with_free_func (g_free);

  if (!GDK_IS_X11_DISPLAY (gtk_widget_get_display (window)))
    {
      g_test_skip ("needs X11 for real pointer input");
      return;
    }
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (f->tree)); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_POPOVER_MENU (child))
      menu = child;
  g_assert_nonnull (menu);
  /* A row with a tooltip: an item that cannot be used says why. */
  g_assert_nonnull (targets);
  km_item_set_problem (targets, "its file is gone");
  test_app_spin ();
  row = find_tooltip_row (GTK_WIDGET (f->tree), "its file is gone");
  g_assert_nonnull (row);
  gtk_window_present (GTK_WINDOW (window));
  test_app_spin_for (200);

  /* Hovering shows the tooltip (the test sees tooltips at all). */
  test_app_add_pointer_move (hover, row);
  g_ptr_array_add (hover, g_strdup ("sleep"));
  g_ptr_array_add (hover, g_strdup ("1.2"));
  test_app_xdotool (window, hover);
  test_app_spin_for (300);
  g_assert_nonnull (find_mapped (window, "GtkTooltipWindow"));

  /* The right click opens the menu and takes the tooltip away. */
  g_ptr_array_add (click, g_strdup ("click"));
  g_ptr_array_add (click, g_strdup ("3"));
  g_ptr_array_add (click, g_strdup ("sleep"));
  g_ptr_array_add (click, g_strdup ("1.2"));
  test_app_xdotool (window, click);
  test_app_spin_for (300);
  g_assert_true (gtk_widget_get_mapped (menu));
  g_assert_null (find_mapped (window, "GtkTooltipWindow"));

  gtk_popover_popdown (GTK_POPOVER (menu));
  test_app_spin ();
  g_assert_true (gtk_widget_get_has_tooltip (list_view));
#else
  g_test_skip ("needs X11 for real pointer input");
#endif
}

int
main (int    argc,
      char **argv)
{
  test_app_init (&argc, &argv);
  g_test_add ("/kinema/Walkthrough/tree/rename-shows", Fixture, NULL, fixture_setup,
              test_rename_shows, fixture_teardown);
  g_test_add ("/kinema/Walkthrough/tree/rename-joint", Fixture, NULL, fixture_setup,
              test_rename_joint, fixture_teardown);
  g_test_add ("/kinema/Walkthrough/tree/row-tooltips", Fixture, NULL, fixture_setup,
              test_row_tooltips, fixture_teardown);
  g_test_add ("/kinema/Walkthrough/tree/check-shows", Fixture, NULL, fixture_setup,
              test_check_shows, fixture_teardown);
  g_test_add ("/kinema/Walkthrough/tree/context-menu-accels", Fixture, NULL, fixture_setup,
              test_context_menu_accels, fixture_teardown);
  g_test_add ("/kinema/Walkthrough/tree/context-menu-check-state", Fixture, NULL,
              fixture_setup, test_context_menu_check_state, fixture_teardown);
  g_test_add ("/kinema/Walkthrough/tree/reload-example-says-builtin", Fixture, NULL,
              fixture_setup, test_reload_example_says_builtin, fixture_teardown);
  g_test_add ("/kinema/Walkthrough/tree/reload-share-model-says-path", Fixture, NULL,
              fixture_setup, test_reload_share_model_says_path, fixture_teardown);
  g_test_add ("/kinema/Walkthrough/tree/context-menu-hides-tooltip", Fixture, NULL,
              fixture_setup, test_context_menu_hides_tooltip, fixture_teardown);
  g_test_add ("/kinema/Walkthrough/tree/expanders", Fixture, NULL, fixture_setup,
              test_expanders, fixture_teardown);
  return g_test_run ();
}
