/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <gtk/gtk.h>

#include "km-application.h"
#include "km-document.h"
#include "km-item-tree.h"
#include "km-joint-panel.h"
#include "km-time-bar.h"
#include "km-window.h"

#include "test-app-util.h"

/*
 * The editor's keyboard, with real key presses (xdotool, through the X server) in a window
 * of the application, on the built-in example: copying and pasting keyframes by keyboard
 * (no accelerator may be an Alt+letter the menu bar takes for a menu), and the time bar's
 * keys wherever the focus is, except in text.
 */

typedef struct
{
  KmApplication *app;
  KmWindow      *window;
  KmDocument    *document;
  KmTimeBar     *time_bar;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  f->app = km_application_new ();
  g_application_set_flags (G_APPLICATION (f->app), G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (f->app), NULL, &error));
  g_assert_no_error (error);
  f->window = km_window_new (GTK_APPLICATION (f->app));
  gtk_window_set_default_size (GTK_WINDOW (f->window), 1000, 700);
  g_assert_true (km_window_open_example (f->window));
  gtk_window_present (GTK_WINDOW (f->window));
  f->document = g_object_ref (km_window_get_document (f->window));
  f->time_bar = KM_TIME_BAR (km_window_get_time_bar (f->window));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  test_app_spin_for (100);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  km_document_set_modified (f->document, FALSE);
  gtk_window_destroy (GTK_WINDOW (f->window));
  test_app_spin ();
  g_assert_true (test_app_unref_and_wait_finalized (f->document, 5000));
  g_clear_object (&f->app);
}

static gboolean
has_keyframe (Fixture *f,
              guint    frame)
{
  KmTargetTrack *targets = km_document_get_targets (f->document);

  return targets != NULL && km_target_track_find_keyframe (targets, frame) >= 0;
}

/* Whether @model (a menu) or one of its submenus has an item for @action. */
static gboolean
menu_has_action (GMenuModel *model,
                 const char *action)
{
  for (int i = 0; i < g_menu_model_get_n_items (model); i++)
    {
      g_autofree char *name = NULL;
      g_autoptr(GMenuLinkIter) links = NULL;
      const char *link;
      GMenuModel *sub;

      if (g_menu_model_get_item_attribute (model, i, G_MENU_ATTRIBUTE_ACTION, "s", &name)
          && g_strcmp0 (name, action) == 0)
        return TRUE;
      links = g_menu_model_iterate_item_links (model, i);
      while (g_menu_link_iter_get_next (links, &link, &sub))
        {
          gboolean found = menu_has_action (sub, action);

          g_object_unref (sub);
          if (found)
            return TRUE;
        }
    }
  return FALSE;
}

/* The letters the menu bar's mnemonics take with Alt (_File, _Edit, …), lower case. */
static char *
menubar_mnemonics (GMenuModel *menubar)
{
  GString *letters = g_string_new (NULL);

  for (int i = 0; i < g_menu_model_get_n_items (menubar); i++)
    {
      g_autofree char *label = NULL;
      const char *mark;

      g_assert_true (g_menu_model_get_item_attribute (menubar, i, G_MENU_ATTRIBUTE_LABEL, "s",
                                                      &label));
      mark = strchr (label, '_');
      g_assert_nonnull (mark);
      g_string_append_c (letters, g_ascii_tolower (mark[1]));
    }
  return g_string_free (letters, FALSE);
}

/* Ctrl+Shift+C copies the keyframe at the current frame, Ctrl+Shift+V pastes it at
 * another; the Motion menu has both, and no accelerator is an Alt+letter of a menu. */
static void
test_copy_paste_keyframe_keys (Fixture       *f,
                               gconstpointer  data)
{
  GMenuModel *menubar = gtk_application_get_menubar (GTK_APPLICATION (f->app));
  g_autofree char *mnemonics = NULL;
  g_auto(GStrv) actions = NULL;

  if (!test_app_real_input_or_skip (GTK_WIDGET (f->window)))
    return;

  g_assert_nonnull (menubar);
  mnemonics = menubar_mnemonics (menubar);
  g_assert_cmpstr (mnemonics, ==, "fevkmh");
  g_assert_true (menu_has_action (menubar, "win.copy-keyframe"));
  g_assert_true (menu_has_action (menubar, "win.paste-keyframe"));
  actions = gtk_application_list_action_descriptions (GTK_APPLICATION (f->app));
  for (guint i = 0; actions[i] != NULL; i++)
    {
      g_auto(GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (f->app),
                                                                     actions[i]);

      for (guint a = 0; accels[a] != NULL; a++)
        {
          guint key;
          GdkModifierType mods;

          g_assert_true (gtk_accelerator_parse (accels[a], &key, &mods));
          if ((mods & GDK_ALT_MASK) && !(mods & (GDK_CONTROL_MASK | GDK_SUPER_MASK)))
            g_assert_null (strchr (mnemonics, (int) gdk_keyval_to_lower (key)));
        }
    }

  km_document_set_current_frame (f->document, 0);     /* the example keys frames 0, 80, … */
  test_app_spin ();
  g_assert_true (has_keyframe (f, 0));
  g_assert_false (has_keyframe (f, 3));
  g_assert_false (km_time_bar_get_has_clipboard (f->time_bar));

  test_app_real_keys (GTK_WIDGET (f->window), NULL,
                      "key", "--delay", "60", "ctrl+shift+c", "Right", "Right", "Right",
                      "ctrl+shift+v", NULL);
  g_assert_true (km_time_bar_get_has_clipboard (f->time_bar));
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 3);
  g_assert_true (has_keyframe (f, 3));
  /* No menu opened on the way: the window still has the keyboard focus. */
  g_assert_true (gtk_window_is_active (GTK_WINDOW (f->window)));

  /* Motion → Paste Keyframe does the same. */
  km_document_set_current_frame (f->document, 5);
  test_app_spin ();
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.paste-keyframe",
                                             NULL));
  test_app_spin ();
  g_assert_true (has_keyframe (f, 5));
}

/* The first widget of @type at or below @root that shows (or edits) @adjustment. */
static GtkWidget *
find_for_adjustment (GtkWidget     *root,
                     GType          type,
                     GtkAdjustment *adjustment)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (root, type))
    {
      GtkAdjustment *shown = GTK_IS_RANGE (root) ? gtk_range_get_adjustment (GTK_RANGE (root))
                             : gtk_spin_button_get_adjustment (GTK_SPIN_BUTTON (root));

      if (shown == adjustment)
        return root;
    }
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_for_adjustment (child, type, adjustment);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* With a Pose-tab slider focused, ←/→/End step the time bar and leave the joint alone;
 * in the slider's spin entry they edit the text. */
static void
test_timebar_keys_with_slider_focus (Fixture       *f,
                                     gconstpointer  data)
{
  KmJointPanel *panel = KM_JOINT_PANEL (km_window_get_joint_panel (f->window));
  GtkAdjustment *adjustment;
  GtkWidget *slider, *spin;
  double value;
  guint n_frames = km_document_get_n_frames (f->document);

  if (!test_app_real_input_or_skip (GTK_WIDGET (f->window)))
    return;

  g_assert_cmpuint (km_joint_panel_get_n_rows (panel), >, 1);
  adjustment = km_joint_panel_get_adjustment (panel, 1);
  slider = find_for_adjustment (GTK_WIDGET (panel), GTK_TYPE_SCALE, adjustment);
  spin = find_for_adjustment (GTK_WIDGET (panel), GTK_TYPE_SPIN_BUTTON, adjustment);
  g_assert_nonnull (slider);
  g_assert_nonnull (spin);
  g_assert_cmpuint (n_frames, >, 10);

  km_document_set_current_frame (f->document, 1);
  test_app_spin ();
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  value = gtk_adjustment_get_value (adjustment);
  km_document_close_edit (f->document);
  g_assert_false (km_document_can_undo (f->document));

  g_assert_true (gtk_widget_grab_focus (slider));
  test_app_real_keys (GTK_WIDGET (f->window), NULL,
                      "key", "--delay", "60", "Right", "Right", "Right", NULL);
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 4);
  g_assert_true (gtk_widget_has_focus (slider));
  /* End: the end of the time bar's range, which runs past the motion's last frame. */
  test_app_real_keys (GTK_WIDGET (f->window), NULL, "key", "--delay", "60", "End", NULL);
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==,
                    km_document_get_timeline_frames (f->document) - 1);
  g_assert_cmpuint (km_document_get_timeline_frames (f->document), >, n_frames);
  test_app_real_keys (GTK_WIDGET (f->window), NULL, "key", "--delay", "60", "Home", NULL);
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 0);
  /* Frame 0 plays the solved pose there: the joint follows the frame, not the keys. */
  km_document_set_current_frame (f->document, 1);
  test_app_spin ();
  g_assert_cmpfloat_with_epsilon (gtk_adjustment_get_value (adjustment), value, 1e-9);
  g_assert_false (km_document_can_undo (f->document));

  /* In the spin entry the keys move the text cursor; a letter is text, not a keyframe. */
  g_assert_true (gtk_widget_grab_focus (spin));
  test_app_real_keys (GTK_WIDGET (f->window), NULL,
                      "key", "--delay", "60", "End", "Left", "Home", NULL);
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 1);
  g_assert_false (has_keyframe (f, 1));
  test_app_real_keys (GTK_WIDGET (f->window), NULL, "key", "--delay", "60", "k", NULL);
  g_assert_false (has_keyframe (f, 1));
  g_assert_true (g_str_has_prefix (gtk_editable_get_text (GTK_EDITABLE (spin)), "k"));
  test_app_real_keys (GTK_WIDGET (f->window), NULL, "key", "--delay", "60", "BackSpace", NULL);
}

static gboolean
edit_mode (Fixture *f)
{
  gboolean on = FALSE;

  g_object_get (f->window, "edit-mode", &on, NULL);
  return on;
}

static gboolean
focus_in (Fixture   *f,
          GtkWidget *widget)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (f->window));

  return focus != NULL && (focus == widget || gtk_widget_is_ancestor (focus, widget));
}

static void
press_escape (Fixture *f)
{
  test_app_real_keys (GTK_WIDGET (f->window), NULL, "key", "--delay", "60", "Escape", NULL);
}

/* Review finding 3: Esc toggles edit mode while the item tree has the focus (as at
 * start-up, and after Space), once (not twice) in the scene view, and not in text, in the
 * tree's rename field (Esc cancels the rename) or in a popover. */
static void
test_escape_edit_mode_anywhere (Fixture       *f,
                                gconstpointer  data)
{
  GtkWidget *tree = km_window_get_item_tree (f->window);
  GtkWidget *list = test_app_find_widget (tree, GTK_TYPE_LIST_VIEW);
  GtkWidget *scene = km_window_get_scene_view (f->window);
  KmJointPanel *panel = KM_JOINT_PANEL (km_window_get_joint_panel (f->window));
  GtkEditable *rename = km_item_tree_get_rename_entry (KM_ITEM_TREE (tree));
  GtkWidget *popover = gtk_widget_get_ancestor (GTK_WIDGET (rename), GTK_TYPE_POPOVER);
  GtkWidget *spin;

  if (!test_app_real_input_or_skip (GTK_WIDGET (f->window)))
    return;

  g_assert_nonnull (list);
  g_assert_false (edit_mode (f));
  g_assert_true (gtk_widget_grab_focus (list));
  g_assert_true (focus_in (f, tree));
  press_escape (f);
  g_assert_true (edit_mode (f));
  g_assert_true (focus_in (f, tree));
  press_escape (f);
  g_assert_false (edit_mode (f));

  /* Space starts and stops playback; the focus stays in the tree. */
  test_app_real_keys (GTK_WIDGET (f->window), NULL, "key", "--delay", "60", "space", "space",
                      NULL);
  g_assert_true (focus_in (f, tree));
  press_escape (f);
  g_assert_true (edit_mode (f));

  /* The scene view: one toggle per press. */
  g_assert_true (gtk_widget_grab_focus (scene));
  press_escape (f);
  g_assert_false (edit_mode (f));
  press_escape (f);
  g_assert_true (edit_mode (f));

  /* F2's rename field: Esc closes it and leaves edit mode alone. */
  g_assert_true (gtk_selection_model_select_item (
    km_item_tree_get_selection_model (KM_ITEM_TREE (tree)), 1, TRUE));
  g_assert_true (gtk_widget_activate_action (tree, "tree.rename", NULL));
  test_app_spin ();
  g_assert_true (gtk_widget_get_visible (popover));
  press_escape (f);
  g_assert_false (gtk_widget_get_visible (popover));
  g_assert_true (edit_mode (f));

  /* A text field keeps Esc (it brings back the value). */
  g_assert_cmpuint (km_joint_panel_get_n_rows (panel), >, 1);
  spin = find_for_adjustment (GTK_WIDGET (panel), GTK_TYPE_SPIN_BUTTON,
                              km_joint_panel_get_adjustment (panel, 1));
  g_assert_nonnull (spin);
  g_assert_true (gtk_widget_grab_focus (spin));
  press_escape (f);
  g_assert_true (edit_mode (f));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.edit-mode", NULL));
  g_assert_false (edit_mode (f));
}

int
main (int    argc,
      char **argv)
{
  test_app_init (&argc, &argv);

  g_test_add ("/kinema/Walkthrough/keys/copy-paste-keyframe", Fixture, NULL,
              fixture_setup, test_copy_paste_keyframe_keys, fixture_teardown);
  g_test_add ("/kinema/Walkthrough/keys/timebar-keys-with-slider-focus", Fixture, NULL,
              fixture_setup, test_timebar_keys_with_slider_focus, fixture_teardown);
  g_test_add ("/kinema/Walkthrough/keys/escape-edit-mode-anywhere", Fixture, NULL,
              fixture_setup, test_escape_edit_mode_anywhere, fixture_teardown);
  return g_test_run ();
}
