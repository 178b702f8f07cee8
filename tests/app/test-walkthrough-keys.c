/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <math.h>
#include <string.h>
#include <gtk/gtk.h>

#include "km-application.h"
#include "km-camera.h"
#include "km-document.h"
#include "km-item-tree.h"
#include "km-joint-panel.h"
#include "km-scene-view.h"
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

static void
press (Fixture    *f,
       const char *key)
{
  test_app_real_keys (GTK_WIDGET (f->window), NULL, "key", "--delay", "60", key, NULL);
}

static void
assert_looks_down (KmSceneView *view)
{
  g_assert_cmpfloat (km_camera_get_forward (km_scene_view_get_camera (view)).z, <, -0.99);
}

/* Review rev23b-gui A: the view keys (1, 3, 7, 5, f, a) work wherever the focus is in the
 * window, as the time bar's keys and Esc do (a tree row has it at start-up, the list view
 * has no type-ahead that takes digits), once per press in the scene view itself, and not
 * in text: a digit typed into a number field is text. */
static void
test_view_keys_anywhere (Fixture       *f,
                         gconstpointer  data)
{
  GtkWidget *tree = km_window_get_item_tree (f->window);
  GtkWidget *list = test_app_find_widget (tree, GTK_TYPE_LIST_VIEW);
  KmSceneView *view = KM_SCENE_VIEW (km_window_get_scene_view (f->window));
  KmJointPanel *panel = KM_JOINT_PANEL (km_window_get_joint_panel (f->window));
  const KmCamera *camera = km_scene_view_get_camera (view);
  KmCamera before, moved;
  GtkWidget *spin;

  if (!test_app_real_input_or_skip (GTK_WIDGET (f->window)))
    return;

  g_assert_nonnull (list);
  g_assert_true (gtk_widget_grab_focus (list));
  g_assert_true (focus_in (f, tree));
  g_assert_cmpfloat (km_camera_get_forward (camera).z, >, -0.99);
  press (f, "7");
  assert_looks_down (view);
  press (f, "1");
  g_assert_cmpfloat (fabs (km_camera_get_forward (camera).z), <, 1e-6);
  press (f, "3");
  g_assert_cmpfloat (fabs (km_camera_get_forward (camera).z), <, 1e-6);
  g_assert_false (km_scene_view_get_orthographic (view));
  press (f, "5");
  g_assert_true (km_scene_view_get_orthographic (view));
  g_assert_true (focus_in (f, tree));

  /* Frame all (a) and the selection (f) from the tree too. */
  moved = *camera;
  km_camera_zoom (&moved, 0.2);
  km_scene_view_set_camera (view, &moved);
  press (f, "a");
  g_assert_cmpfloat (camera->distance, >, 2.0 * moved.distance);
  before = *camera;
  km_document_set_selected_joint (f->document, 3);
  test_app_spin ();
  g_assert_true (gtk_widget_grab_focus (list));
  press (f, "f");
  g_assert_cmpfloat (camera->distance, <, before.distance);
  g_assert_true (focus_in (f, tree));

  /* In the scene view: one toggle per press. */
  g_assert_true (gtk_widget_grab_focus (GTK_WIDGET (view)));
  press (f, "5");
  g_assert_false (km_scene_view_get_orthographic (view));
  press (f, "7");
  assert_looks_down (view);

  /* A number field takes digits and letters as text. */
  press (f, "1");
  before = *camera;
  g_assert_cmpuint (km_joint_panel_get_n_rows (panel), >, 1);
  spin = find_for_adjustment (GTK_WIDGET (panel), GTK_TYPE_SPIN_BUTTON,
                              km_joint_panel_get_adjustment (panel, 1));
  g_assert_nonnull (spin);
  g_assert_true (gtk_widget_grab_focus (spin));
  test_app_real_keys (GTK_WIDGET (f->window), NULL, "key", "--delay", "60", "Home", "7", "5",
                      "a", NULL);
  g_assert_true (g_str_has_prefix (gtk_editable_get_text (GTK_EDITABLE (spin)), "75a"));
  g_assert_false (km_scene_view_get_orthographic (view));
  g_assert_cmpfloat (km_camera_get_forward (camera).z, ==, km_camera_get_forward (&before).z);
  g_assert_cmpfloat (camera->distance, ==, before.distance);
  test_app_real_keys (GTK_WIDGET (f->window), NULL, "key", "--delay", "60", "Escape", NULL);
}

/* How many pixels of the view's outermost columns and rows differ between @a and @b. */
static guint
edge_pixels_differing (const guint8 *a,
                       const guint8 *b,
                       int           width,
                       int           height)
{
  guint n = 0;

  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++)
      {
        const guint8 *p = a + ((gsize) y * width + x) * 4, *q = b + ((gsize) y * width + x) * 4;

        if ((x < 2 || y < 2 || x >= width - 2 || y >= height - 2) && memcmp (p, q, 3) != 0)
          n++;
      }
  return n;
}

/* Review rev23b-gui A: Tab reaching the scene view shows a focus ring about it, which the
 * view's focus from a click does not, and which no exported image has. */
static void
test_scene_focus_ring (Fixture       *f,
                       gconstpointer  data)
{
  GtkWidget *tree = km_window_get_item_tree (f->window);
  GtkWidget *list = test_app_find_widget (tree, GTK_TYPE_LIST_VIEW);
  GtkWidget *view = km_window_get_scene_view (f->window);
  g_autofree guint8 *plain = NULL, *ring = NULL;
  g_autoptr(GdkTexture) plain_image = NULL, ring_image = NULL;
  g_autofree guint8 *plain_bytes = NULL, *ring_bytes = NULL;
  int width, height;
  gsize size;
  guint i;

  if (!test_app_real_input_or_skip (GTK_WIDGET (f->window)))
    return;

  /* Focus given without the keyboard: no ring. */
  g_assert_true (gtk_widget_grab_focus (view));
  gtk_window_set_focus_visible (GTK_WINDOW (f->window), FALSE);
  test_app_spin_for (100);
  plain = test_app_render_widget (view, &width, &height);
  plain_image = km_scene_view_grab_texture (KM_SCENE_VIEW (view));

  /* Tab from the tree until the view has the focus. */
  g_assert_true (gtk_widget_grab_focus (list));
  for (i = 0; i < 60 && !gtk_widget_has_focus (view); i++)
    press (f, "Tab");
  g_assert_true (gtk_widget_has_focus (view));
  g_assert_true (gtk_widget_get_state_flags (view) & GTK_STATE_FLAG_FOCUS_VISIBLE);
  test_app_spin_for (100);
  ring = test_app_render_widget (view, &width, &height);
  g_assert_cmpuint (edge_pixels_differing (plain, ring, width, height), >,
                    (guint) (width + height));

  /* The image of the scene (Export Image) has none. */
  ring_image = km_scene_view_grab_texture (KM_SCENE_VIEW (view));
  size = (gsize) gdk_texture_get_width (ring_image) * gdk_texture_get_height (ring_image) * 4;
  g_assert_cmpint (gdk_texture_get_width (ring_image), ==, gdk_texture_get_width (plain_image));
  g_assert_cmpint (gdk_texture_get_height (ring_image), ==, gdk_texture_get_height (plain_image));
  plain_bytes = g_malloc (size);
  ring_bytes = g_malloc (size);
  gdk_texture_download (plain_image, plain_bytes, (gsize) gdk_texture_get_width (plain_image) * 4);
  gdk_texture_download (ring_image, ring_bytes, (gsize) gdk_texture_get_width (ring_image) * 4);
  g_assert_true (memcmp (plain_bytes, ring_bytes, size) == 0);
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
  g_test_add ("/kinema/Walkthrough/keys/view-keys-anywhere", Fixture, NULL,
              fixture_setup, test_view_keys_anywhere, fixture_teardown);
  g_test_add ("/kinema/Walkthrough/keys/scene-focus-ring", Fixture, NULL,
              fixture_setup, test_scene_focus_ring, fixture_teardown);
  return g_test_run ();
}
