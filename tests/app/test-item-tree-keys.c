/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <gtk/gtk.h>

#include "km-document-skeleton.h"
#include "km-item-row.h"
#include "km-item-tree.h"
#include "km-window.h"

#include "test-app-util.h"

/*
 * The item tree's context menu from the keyboard, under Xvfb with real key presses: the
 * arrows move to a row, Shift+F10 or the Menu key opens the menu a right-click on that row
 * gives (the joint menu on a joint's row, the item menu on an item's), pointing at the row;
 * its entries are reached with the arrows and Return, and Escape closes it with the focus
 * back on the row. The menu opened only on a right-click (a review finding).
 */

typedef struct
{
  KmWindow   *window;
  KmDocument *document;
  KmItemTree *tree;
  GtkWidget  *list;
  char       *entry;   /* focused_entry's */
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  f->window = test_app_example_window (900, 600);
  f->document = km_window_get_document (f->window);
  f->tree = KM_ITEM_TREE (km_window_get_item_tree (f->window));
  f->list = test_app_find_widget (GTK_WIDGET (f->tree), GTK_TYPE_LIST_VIEW);
  g_assert_nonnull (f->list);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  test_app_spin ();
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  km_document_set_modified (f->document, FALSE);
  g_clear_pointer (&f->entry, g_free);
  test_app_destroy_window (&f->window, &f->document);
}

static GListModel *
rows (Fixture *f)
{
  return G_LIST_MODEL (km_item_tree_get_selection_model (f->tree));
}

/* The list position of the row of joint @joint, or of @item's row (@joint -1). */
static guint
position_of (Fixture *f,
             KmItem  *item,
             int      joint)
{
  for (guint i = 0; i < g_list_model_get_n_items (rows (f)); i++)
    {
      g_autoptr(GtkTreeListRow) row = g_list_model_get_item (rows (f), i);
      g_autoptr(KmItemRow) item_row = gtk_tree_list_row_get_item (row);

      if (km_item_row_get_joint (item_row) == joint
          && (joint >= 0 || km_item_row_get_item (item_row) == item))
        return i;
    }
  g_assert_not_reached ();
}

/* The row (its expander) that has the keyboard focus, or NULL. */
static GtkTreeExpander *
focused_expander (Fixture *f)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (f->window));

  if (focus == NULL || !gtk_widget_is_ancestor (focus, f->list))
    return NULL;
  for (GtkWidget *w = focus; w != NULL && w != f->list; w = gtk_widget_get_parent (w))
    if (GTK_IS_TREE_EXPANDER (w))
      return GTK_TREE_EXPANDER (w);
  for (GtkWidget *w = focus; w != NULL; w = gtk_widget_get_first_child (w))
    if (GTK_IS_TREE_EXPANDER (w))
      return GTK_TREE_EXPANDER (w);
  return NULL;
}

static int
focused_position (Fixture *f)
{
  GtkTreeExpander *expander = focused_expander (f);
  GtkTreeListRow *row = expander != NULL ? gtk_tree_expander_get_list_row (expander) : NULL;

  return row != NULL ? (int) gtk_tree_list_row_get_position (row) : -1;
}

/* Moves the keyboard focus to the row at @position with the arrows, as a user does. */
static void
arrow_to (Fixture *f,
          guint    position)
{
  int here;

  g_assert_true (gtk_widget_grab_focus (f->list));
  test_app_spin ();
  here = focused_position (f);
  g_assert_cmpint (here, >=, 0);
  for (; here < (int) position; here++)
    test_app_real_keys (GTK_WIDGET (f->window), NULL, "key", "Down", NULL);
  for (; here > (int) position; here--)
    test_app_real_keys (GTK_WIDGET (f->window), NULL, "key", "Up", NULL);
  g_assert_cmpint (focused_position (f), ==, (int) position);
}

static GtkPopover *
context_menu (Fixture *f)
{
  GtkWidget *menu = test_app_find_widget (GTK_WIDGET (f->tree), GTK_TYPE_POPOVER_MENU);

  g_assert_nonnull (menu);
  return GTK_POPOVER (menu);
}

/* Whether @menu offers @action (in any section). */
static gboolean
menu_has_action (GMenuModel *menu,
                 const char *action)
{
  for (int i = 0; i < g_menu_model_get_n_items (menu); i++)
    {
      g_autofree char *name = NULL;
      g_autoptr(GMenuModel) section = g_menu_model_get_item_link (menu, i, G_MENU_LINK_SECTION);

      if (g_menu_model_get_item_attribute (menu, i, G_MENU_ATTRIBUTE_ACTION, "s", &name)
          && g_str_equal (name, action))
        return TRUE;
      if (section != NULL && menu_has_action (section, action))
        return TRUE;
    }
  return FALSE;
}

/* Presses @key on the focused row: the menu shows, offers @action, points at the row and
 * has the keyboard focus. */
static void
press_for_menu (Fixture    *f,
                const char *key,
                const char *action)
{
  GtkPopover *menu = context_menu (f);
  GtkTreeExpander *expander = focused_expander (f);
  GtkWidget *focus;
  GdkRectangle rect;
  graphene_rect_t bounds;

  g_assert_nonnull (expander);
  g_object_ref (expander);
  test_app_real_keys (GTK_WIDGET (f->window), NULL, "key", key, NULL);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (menu)));
  g_assert_true (menu_has_action (gtk_popover_menu_get_menu_model (GTK_POPOVER_MENU (menu)),
                                  action));
  focus = gtk_root_get_focus (GTK_ROOT (f->window));
  g_assert_nonnull (focus);
  g_assert_true (gtk_widget_is_ancestor (focus, GTK_WIDGET (menu)));
  g_assert_true (gtk_popover_get_pointing_to (menu, &rect));
  g_assert_true (gtk_widget_compute_bounds (GTK_WIDGET (expander), GTK_WIDGET (f->tree),
                                            &bounds));
  g_assert_cmpint (rect.y, >=, (int) bounds.origin.y - 1);
  g_assert_cmpint (rect.y + rect.height, <=, (int) (bounds.origin.y + bounds.size.height) + 1);
  g_assert_cmpint (rect.height, >=, (int) bounds.size.height - 1);
  g_object_unref (expander);
}

/* The text of the menu entry that has the focus (owned by the fixture), or NULL. */
static const char *
focused_entry (Fixture *f)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (f->window));

  g_clear_pointer (&f->entry, g_free);
  if (focus != NULL && g_object_class_find_property (G_OBJECT_GET_CLASS (focus), "text"))
    g_object_get (focus, "text", &f->entry, NULL);
  return f->entry;
}

/* Shift+F10 on the end effector's parent joint's row opens the joint menu there; Escape
 * closes it, the focus back on the row; the Menu key opens it again, and Use as End
 * Effector is reached with the keyboard. */
static void
test_joint_row_menu (Fixture       *f,
                     gconstpointer  data)
{
  KmSkeleton *skeleton = km_document_get_skeleton (f->document);
  int effector = km_document_get_effector (f->document);
  gboolean edit_mode = FALSE, edit_mode_after = FALSE;
  int joint;
  guint position;

  if (!test_app_real_input_or_skip (GTK_WIDGET (f->window)))
    return;
  g_assert_cmpint (effector, >=, 0);
  joint = km_skeleton_get_joint (skeleton, (guint) effector)->parent;
  g_assert_cmpint (joint, >, 0);
  position = position_of (f, NULL, joint);
  arrow_to (f, position);

  press_for_menu (f, "shift+F10", "tree.use-as-effector");

  g_object_get (f->window, "edit-mode", &edit_mode, NULL);
  test_app_real_keys (GTK_WIDGET (f->window), NULL, "key", "Escape", NULL);
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (context_menu (f))));
  g_assert_cmpint (focused_position (f), ==, (int) position);
  /* (the window's Esc, which turns the edit mode on and off, does not see it) */
  g_object_get (f->window, "edit-mode", &edit_mode_after, NULL);
  g_assert_cmpint (edit_mode_after, ==, edit_mode);

  press_for_menu (f, "Menu", "tree.use-as-effector");
  /* The first entry has the focus (Rename…); the next is Use as End Effector. */
  g_assert_cmpstr (focused_entry (f), ==, "Rename…");
  test_app_real_keys (GTK_WIDGET (f->window), NULL, "key", "Down", NULL);
  g_assert_cmpstr (focused_entry (f), ==, "Use as End Effector");
  test_app_real_keys (GTK_WIDGET (f->window), NULL, "key", "Return", NULL);
  test_app_spin ();
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (context_menu (f))));
  g_assert_cmpint (km_document_get_effector (f->document), ==, joint);
}

/* On the body's row the item menu opens, and Uncheck reached with the keyboard hides the
 * body (Space plays the motion wherever the focus is, so it is not the check box's key). */
static void
test_item_row_menu (Fixture       *f,
                    gconstpointer  data)
{
  KmItem *body = km_document_get_body_item (f->document);

  if (!test_app_real_input_or_skip (GTK_WIDGET (f->window)))
    return;
  g_assert_nonnull (body);
  g_assert_true (km_item_get_checked (body));
  arrow_to (f, position_of (f, body, -1));

  press_for_menu (f, "shift+F10", "tree.uncheck");
  /* Up from the first entry wraps to the last: Uncheck (Check is disabled: the body is
   * checked). */
  g_assert_cmpstr (focused_entry (f), ==, "Rename…");
  test_app_real_keys (GTK_WIDGET (f->window), NULL, "key", "Up", NULL);
  g_assert_cmpstr (focused_entry (f), ==, "Uncheck");
  test_app_real_keys (GTK_WIDGET (f->window), NULL, "key", "Return", NULL);
  test_app_spin ();
  g_assert_false (km_item_get_checked (body));
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (context_menu (f))));
  g_assert_cmpint (focused_position (f), ==, (int) position_of (f, body, -1));
  g_assert_true (km_document_undo (f->document));
  g_assert_true (km_item_get_checked (body));
}

/* Rename… chosen from a menu opened with the keyboard: the rename entry keeps the focus
 * (the menu's closing gives the row the focus back only where nothing else took it). */
static void
test_rename_from_menu (Fixture       *f,
                       gconstpointer  data)
{
  GtkEditable *entry = km_item_tree_get_rename_entry (f->tree);
  KmItem *body = km_document_get_body_item (f->document);
  GtkWidget *focus;

  if (!test_app_real_input_or_skip (GTK_WIDGET (f->window)))
    return;
  arrow_to (f, position_of (f, body, -1));
  press_for_menu (f, "Menu", "tree.rename");
  g_assert_cmpstr (focused_entry (f), ==, "Rename…");
  test_app_real_keys (GTK_WIDGET (f->window), NULL, "key", "Return", NULL);
  test_app_spin ();
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (context_menu (f))));
  focus = gtk_root_get_focus (GTK_ROOT (f->window));
  g_assert_nonnull (focus);
  g_assert_true (focus == GTK_WIDGET (entry) || gtk_widget_is_ancestor (focus, GTK_WIDGET (entry)));
  g_assert_cmpstr (gtk_editable_get_text (entry), ==, km_item_get_name (body));
  test_app_real_keys (GTK_WIDGET (f->window), NULL, "key", "Escape", NULL);
}

int
main (int    argc,
      char **argv)
{
  test_app_init (&argc, &argv);

  g_test_add ("/kinema/ItemTree/keys/joint-row-menu", Fixture, NULL,
              fixture_setup, test_joint_row_menu, fixture_teardown);
  g_test_add ("/kinema/ItemTree/keys/item-row-menu", Fixture, NULL,
              fixture_setup, test_item_row_menu, fixture_teardown);
  g_test_add ("/kinema/ItemTree/keys/rename-from-menu", Fixture, NULL,
              fixture_setup, test_rename_from_menu, fixture_teardown);

  return g_test_run ();
}
