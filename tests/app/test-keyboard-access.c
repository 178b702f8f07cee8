/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <math.h>
#include <string.h>
#include <locale.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <gtk/gtk.h>

#include "km-application.h"
#include "km-document.h"
#include "km-graph-view.h"
#include "km-joint-inspector.h"
#include "km-joint-panel.h"
#include "km-message-view.h"
#include "km-skeleton.h"
#include "km-time-bar.h"
#include "km-window.h"

#include "test-app-util.h"

/*
 * Keyboard access and labels (a reviewer's findings), with real key presses (xdotool, through
 * the X server) in a window of the application on the built-in example: Tab goes on past the
 * time bar; the Motion menu's keyframe and playback items and their Ctrl accelerators work from
 * a text field; the Messages list is one Tab stop; the Skeleton tab names shape types for
 * people; the graph's last time label ends inside the graph.
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
  km_time_bar_set_playing (f->time_bar, FALSE);
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

static GtkWidget *
focus_of (Fixture *f)
{
  return gtk_root_get_focus (GTK_ROOT (f->window));
}

static void
press (Fixture    *f,
       const char *key)
{
  test_app_real_keys (GTK_WIDGET (f->window), NULL, "key", "--delay", "60", key, NULL);
}

/* The time bar's button for @action ("time.delete-keyframe"). */
static GtkWidget *
time_bar_button (Fixture    *f,
                 const char *action)
{
  GtkWidget *button = test_app_find_action (GTK_WIDGET (f->time_bar), GTK_TYPE_BUTTON, action);

  g_assert_nonnull (button);
  return button;
}

/* From the time bar's last button (Delete Keyframe at a keyed frame, Set Keyframe where its
 * neighbour is insensitive), Tab leaves the time bar and goes on round the window: the
 * header bar comes again. */
static void
tab_leaves (Fixture   *f,
            GtkWidget *last)
{
  GtkWidget *header = gtk_window_get_titlebar (GTK_WINDOW (f->window));
  gboolean left = FALSE, header_reached = FALSE;

  g_assert_true (gtk_widget_grab_focus (last));
  g_assert_true (gtk_widget_grab_focus (last));
  gtk_window_set_focus_visible (GTK_WINDOW (f->window), TRUE);
  for (guint i = 0; i < 40 && !header_reached; i++)
    {
      GtkWidget *focus;

      press (f, "Tab");
      focus = focus_of (f);
      g_assert_nonnull (focus);
      if (!gtk_widget_is_ancestor (focus, GTK_WIDGET (f->time_bar)))
        left = TRUE;
      if (header != NULL && gtk_widget_is_ancestor (focus, header))
        header_reached = TRUE;
    }
  g_assert_true (left);
  if (header != NULL)
    g_assert_true (header_reached);
}

/* Finding 1: Tab was stuck on the time bar's last button ("−", or "+" at a frame without
 * a keyframe). */
static void
test_tab_past_time_bar (Fixture       *f,
                        gconstpointer  data)
{
  if (!test_app_real_input_or_skip (GTK_WIDGET (f->window)))
    return;

  km_document_set_current_frame (f->document, 0);     /* the example keys frame 0 */
  test_app_spin ();
  g_assert_true (has_keyframe (f, 0));
  tab_leaves (f, time_bar_button (f, "time.delete-keyframe"));

  km_document_set_current_frame (f->document, 3);
  test_app_spin ();
  g_assert_false (has_keyframe (f, 3));
  tab_leaves (f, time_bar_button (f, "time.set-keyframe"));
}

/* The first spin button at or below @root that edits @adjustment. */
static GtkWidget *
find_spin_for (GtkWidget     *root,
               GtkAdjustment *adjustment)
{
  if (GTK_IS_SPIN_BUTTON (root)
      && gtk_spin_button_get_adjustment (GTK_SPIN_BUTTON (root)) == adjustment)
    return root;
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_spin_for (child, adjustment);

      if (found != NULL)
        return found;
    }
  return NULL;
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

/* Finding 2: after a value typed into a Pose field and Return, K was text ("k30.0"), and
 * Set Keyframe, Delete Keyframe and Play were in no menu, with no accelerator a text field
 * leaves alone. Now the Motion menu has them, with Ctrl+K, Ctrl+Shift+K and Ctrl+P. */
static void
test_keyframe_accels_in_field (Fixture       *f,
                               gconstpointer  data)
{
  GMenuModel *menubar = gtk_application_get_menubar (GTK_APPLICATION (f->app));
  KmJointPanel *panel = KM_JOINT_PANEL (km_window_get_joint_panel (f->window));
  GtkWidget *spin;

  if (!test_app_real_input_or_skip (GTK_WIDGET (f->window)))
    return;

  g_assert_nonnull (menubar);
  g_assert_true (menu_has_action (menubar, "win.set-keyframe"));
  g_assert_true (menu_has_action (menubar, "win.delete-keyframe"));
  g_assert_true (menu_has_action (menubar, "win.toggle-playback"));

  km_document_set_current_frame (f->document, 3);
  test_app_spin ();
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_false (has_keyframe (f, 3));
  g_assert_cmpuint (km_joint_panel_get_n_rows (panel), >, 1);
  spin = find_spin_for (GTK_WIDGET (panel), km_joint_panel_get_adjustment (panel, 1));
  g_assert_nonnull (spin);
  g_assert_true (gtk_widget_grab_focus (spin));
  test_app_real_keys (GTK_WIDGET (f->window), NULL, "key", "--delay", "60", "ctrl+a", NULL);
  test_app_real_keys (GTK_WIDGET (f->window), NULL, "type", "--delay", "60", "30", NULL);
  test_app_real_keys (GTK_WIDGET (f->window), NULL, "key", "--delay", "60", "Return", NULL);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_true (focus_of (f) != NULL && gtk_widget_is_ancestor (focus_of (f), spin));

  press (f, "ctrl+k");
  g_assert_true (has_keyframe (f, 3));
  g_assert_null (strchr (gtk_editable_get_text (GTK_EDITABLE (spin)), 'k'));
  press (f, "ctrl+shift+k");
  g_assert_false (has_keyframe (f, 3));
  g_assert_null (strchr (gtk_editable_get_text (GTK_EDITABLE (spin)), 'K'));

  g_assert_false (km_time_bar_get_playing (f->time_bar));
  press (f, "ctrl+p");
  g_assert_true (km_time_bar_get_playing (f->time_bar));
  press (f, "ctrl+p");
  g_assert_false (km_time_bar_get_playing (f->time_bar));
  g_assert_null (strchr (gtk_editable_get_text (GTK_EDITABLE (spin)), 'p'));
  g_assert_true (focus_of (f) != NULL && gtk_widget_is_ancestor (focus_of (f), spin));
  g_assert_true (gtk_window_is_active (GTK_WINDOW (f->window)));

  /* The menu items do the same (playback moved the frame on). */
  km_document_set_current_frame (f->document, 3);
  test_app_spin ();
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.set-keyframe", NULL));
  test_app_spin ();
  g_assert_true (has_keyframe (f, 3));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.delete-keyframe",
                                             NULL));
  test_app_spin ();
  g_assert_false (has_keyframe (f, 3));
}

static void
read_text_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  char **text = user_data;

  *text = gdk_clipboard_read_text_finish (GDK_CLIPBOARD (source), result, NULL);
  if (*text == NULL)
    *text = g_strdup ("");
}

static gboolean
is_set (gpointer data)
{
  return *(char **) data != NULL;
}

/* The text on @widget's clipboard ("" for none). */
static char *
clipboard_text (GtkWidget *widget)
{
  char *text = NULL;

  gdk_clipboard_read_text_async (gtk_widget_get_clipboard (widget), NULL, read_text_cb, &text);
  g_assert_true (test_app_wait_until (is_set, &text, 5000));
  return text;
}

/* Finding 3: every line of the Messages pane was a Tab stop of its own (its selectable
 * label), the first one without a focus ring. Now the list is one Tab stop: Tab enters it on
 * a row that shows the ring, the arrows go from row to row, Tab leaves it. */
static void
test_messages_one_tab_stop (Fixture       *f,
                            gconstpointer  data)
{
  GtkWidget *view, *clear, *list, *row, *focus;

  if (!test_app_real_input_or_skip (GTK_WIDGET (f->window)))
    return;

  g_object_set (f->window, "show-messages", TRUE, NULL);
  km_document_clear_messages (f->document);
  for (guint i = 0; i < 6; i++)
    km_document_log (f->document, G_LOG_LEVEL_MESSAGE, "line %u of the test", i);
  test_app_spin_for (200);
  view = test_app_find_widget (GTK_WIDGET (f->window), KM_TYPE_MESSAGE_VIEW);
  g_assert_nonnull (view);
  g_assert_true (gtk_widget_get_mapped (view));
  clear = test_app_find_action (view, GTK_TYPE_BUTTON, "messages.clear");
  list = test_app_find_widget (view, GTK_TYPE_LIST_VIEW);
  g_assert_nonnull (clear);
  g_assert_nonnull (list);

  g_assert_true (gtk_widget_grab_focus (clear));
  press (f, "Tab");
  focus = focus_of (f);
  g_assert_nonnull (focus);
  g_assert_true (gtk_widget_is_ancestor (focus, list));
  g_assert_false (GTK_IS_LABEL (focus));
  g_assert_true (gtk_widget_get_state_flags (focus) & GTK_STATE_FLAG_FOCUS_VISIBLE);
  row = focus;
  {
    g_autofree guint8 *ring = NULL, *plain = NULL;
    int w, h, w2, h2;

    test_app_spin_for (100);
    ring = test_app_render_widget (row, &w, &h);
    gtk_window_set_focus_visible (GTK_WINDOW (f->window), FALSE);
    test_app_spin_for (100);
    plain = test_app_render_widget (row, &w2, &h2);
    gtk_window_set_focus_visible (GTK_WINDOW (f->window), TRUE);
    g_assert_cmpint (w, ==, w2);
    g_assert_cmpint (h, ==, h2);
    /* The row with the focus shows it (a ring, or a tint) while the keyboard moves it. */
    g_assert_true (memcmp (ring, plain, (gsize) w * h * 4) != 0);
  }

  /* ↓ goes to another line, within the list. */
  press (f, "Down");
  focus = focus_of (f);
  g_assert_nonnull (focus);
  g_assert_true (gtk_widget_is_ancestor (focus, list));
  g_assert_true (focus != row);
  g_assert_false (GTK_IS_LABEL (focus));

  /* One Tab leaves the list (and the pane: nothing follows it there). */
  press (f, "Tab");
  focus = focus_of (f);
  g_assert_nonnull (focus);
  g_assert_false (gtk_widget_is_ancestor (focus, list));

  /* Shift+Tab comes back into it, and the next one goes back to the Clear button. */
  press (f, "shift+Tab");
  focus = focus_of (f);
  g_assert_true (focus != NULL && gtk_widget_is_ancestor (focus, list));
  press (f, "shift+Tab");
  g_assert_true (focus_of (f) == clear);

  /* A line's text is still selectable with the pointer (to copy a part of it). */
  {
    g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
    GtkWidget *text = test_app_find_label (list, "line 5 of the test");
    int start = 0, end = 0;

    g_assert_nonnull (text);
    g_assert_true (gtk_widget_get_mapped (text));
    test_app_add_pointer_move_to (args, text, 1, gtk_widget_get_height (text) / 2.0);
    g_ptr_array_add (args, g_strdup ("mousedown"));
    g_ptr_array_add (args, g_strdup ("1"));
    test_app_add_pointer_move_to (args, text, 30, gtk_widget_get_height (text) / 2.0);
    test_app_add_pointer_move_to (args, text, 40, gtk_widget_get_height (text) / 2.0);
    g_ptr_array_add (args, g_strdup ("mouseup"));
    g_ptr_array_add (args, g_strdup ("1"));
    test_app_xdotool (GTK_WIDGET (f->window), args);
    g_assert_true (gtk_label_get_selection_bounds (GTK_LABEL (text), &start, &end));
    g_assert_cmpint (end - start, >, 0);
  }

  /* Ctrl+C in the list copies the selected text, else the line of the row with the focus. */
  g_assert_true (gtk_widget_grab_focus (clear));
  press (f, "Tab");
  g_assert_true (gtk_widget_is_ancestor (focus_of (f), list));
  {
    g_autofree char *copied = NULL;

    press (f, "ctrl+c");
    copied = clipboard_text (list);
    g_assert_cmpstr (copied, !=, "");
    g_assert_true (g_str_has_prefix ("line 5 of the test", copied));
  }
  gtk_label_select_region (GTK_LABEL (test_app_find_label (list, "line 5 of the test")), 0, 0);
  {
    g_autofree char *copied = NULL;

    press (f, "ctrl+c");
    copied = clipboard_text (list);
    g_assert_true (g_regex_match_simple ("^[0-9:]+ .+: line [0-9] of the test$", copied, 0, 0));
  }
}

/* The row of @list at or above @widget (NULL for none). */
static GtkWidget *
message_row_of (GtkWidget *list,
                GtkWidget *widget)
{
  for (GtkWidget *w = widget; w != NULL && w != list; w = gtk_widget_get_parent (w))
    if (gtk_widget_get_parent (w) == list)
      return w;
  return NULL;
}

/* The text of the last label at or below @widget (a message row's message). */
static const char *
last_label_text (GtkWidget *widget)
{
  const char *text = GTK_IS_LABEL (widget) ? gtk_label_get_text (GTK_LABEL (widget)) : NULL;

  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      const char *below = last_label_text (child);

      if (below != NULL)
        text = below;
    }
  return text;
}

/* Whether @row is wholly in view in the Messages list's scrolled window. */
static gboolean
row_wholly_in_view (GtkWidget *row)
{
  GtkWidget *scroller = gtk_widget_get_ancestor (row, GTK_TYPE_SCROLLED_WINDOW);
  graphene_rect_t bounds;

  return scroller != NULL && gtk_widget_get_mapped (row) && gtk_widget_get_child_visible (row)
         && gtk_widget_compute_bounds (row, scroller, &bounds)
         && bounds.origin.y >= -0.5
         && bounds.origin.y + bounds.size.height <= gtk_widget_get_height (scroller) + 0.5;
}

/* Shows the Messages pane with @n lines ("line 0 of the test"…) and returns its list. */
static GtkWidget *
show_messages (Fixture *f,
               guint    n)
{
  GtkWidget *view;

  g_object_set (f->window, "show-messages", TRUE, NULL);
  km_document_clear_messages (f->document);
  for (guint i = 0; i < n; i++)
    km_document_log (f->document, G_LOG_LEVEL_MESSAGE, "line %u of the test", i);
  test_app_spin_for (300);
  view = test_app_find_widget (GTK_WIDGET (f->window), KM_TYPE_MESSAGE_VIEW);
  g_assert_nonnull (view);
  g_assert_true (gtk_widget_get_mapped (view));
  return test_app_find_widget (view, GTK_TYPE_LIST_VIEW);
}

/* A reviewer's finding: a click on a line of Messages left the keyboard focus where it was
 * (in a spin button, whose value ↓ then changed; Ctrl+C copied nothing). Now the click
 * focuses the line's row: ↓ goes to the next line, Ctrl+C copies it; a drag still selects
 * text. */
static void
test_messages_click_focuses_line (Fixture       *f,
                                  gconstpointer  data)
{
  KmJointPanel *panel = KM_JOINT_PANEL (km_window_get_joint_panel (f->window));
  GtkWidget *list, *spin, *text, *focus;
  double value;

  if (!test_app_real_input_or_skip (GTK_WIDGET (f->window)))
    return;

  list = show_messages (f, 6);
  g_assert_nonnull (list);
  g_assert_cmpuint (km_joint_panel_get_n_rows (panel), >, 1);
  spin = find_spin_for (GTK_WIDGET (panel), km_joint_panel_get_adjustment (panel, 1));
  g_assert_nonnull (spin);
  g_assert_true (gtk_widget_grab_focus (spin));
  value = gtk_spin_button_get_value (GTK_SPIN_BUTTON (spin));

  /* The last line but one: the pane follows the newest, so it and the last are in view. */
  text = test_app_find_label (list, "line 4 of the test");
  g_assert_nonnull (text);
  g_assert_true (row_wholly_in_view (message_row_of (list, text)));
  {
    g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);

    test_app_add_pointer_move_to (args, text, 20, gtk_widget_get_height (text) / 2.0);
    g_ptr_array_add (args, g_strdup ("click"));
    g_ptr_array_add (args, g_strdup ("1"));
    test_app_xdotool (GTK_WIDGET (f->window), args);
    test_app_spin_for (100);
  }
  focus = focus_of (f);
  g_assert_nonnull (focus);
  g_assert_true (gtk_widget_is_ancestor (focus, list));
  g_assert_true (message_row_of (list, focus) == message_row_of (list, text));

  press (f, "Down");
  focus = focus_of (f);
  g_assert_true (focus != NULL && gtk_widget_is_ancestor (focus, list));
  g_assert_cmpstr (last_label_text (message_row_of (list, focus)), ==, "line 5 of the test");
  g_assert_cmpfloat (gtk_spin_button_get_value (GTK_SPIN_BUTTON (spin)), ==, value);
  {
    g_autofree char *copied = NULL;

    press (f, "ctrl+c");
    copied = clipboard_text (list);
    g_assert_true (g_regex_match_simple ("^[0-9:]+ .+: line 5 of the test$", copied, 0, 0));
  }

  /* A drag in a line still selects its text, and Ctrl+C copies that. */
  g_assert_true (gtk_widget_grab_focus (spin));
  {
    g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
    int start = 0, end = 0;

    test_app_add_pointer_move_to (args, text, 1, gtk_widget_get_height (text) / 2.0);
    g_ptr_array_add (args, g_strdup ("mousedown"));
    g_ptr_array_add (args, g_strdup ("1"));
    test_app_add_pointer_move_to (args, text, 30, gtk_widget_get_height (text) / 2.0);
    test_app_add_pointer_move_to (args, text, 40, gtk_widget_get_height (text) / 2.0);
    g_ptr_array_add (args, g_strdup ("mouseup"));
    g_ptr_array_add (args, g_strdup ("1"));
    test_app_xdotool (GTK_WIDGET (f->window), args);
    test_app_spin_for (100);
    g_assert_true (gtk_label_get_selection_bounds (GTK_LABEL (text), &start, &end));
    g_assert_cmpint (end - start, >, 0);
  }
  g_assert_true (focus_of (f) != NULL && gtk_widget_is_ancestor (focus_of (f), list));
  {
    g_autofree char *copied = NULL;

    press (f, "ctrl+c");
    copied = clipboard_text (list);
    g_assert_cmpstr (copied, !=, "");
    g_assert_true (g_str_has_prefix ("line 4 of the test", copied));
  }
  g_assert_cmpfloat (gtk_spin_button_get_value (GTK_SPIN_BUTTON (spin)), ==, value);
}

static gboolean
scrolled_to_end (gpointer data)
{
  GtkAdjustment *adj = data;

  return gtk_adjustment_get_value (adj) > 0
         && gtk_adjustment_get_value (adj) + gtk_adjustment_get_page_size (adj)
            >= gtk_adjustment_get_upper (adj) - 0.5;
}

/* A reviewer's finding: Tab into Messages went to a line scrolled out of view (no focus to
 * be seen), and ↓ then jumped to the top line. Now Tab comes to the first line in view (or
 * the one it left, while that is in view), which shows the ring; ↓ goes on to the next. */
static void
test_messages_tab_enters_in_view (Fixture       *f,
                                  gconstpointer  data)
{
  GtkWidget *view, *clear, *list, *focus, *row;
  GtkAdjustment *adj;
  const char *line;
  guint n = 0;

  if (!test_app_real_input_or_skip (GTK_WIDGET (f->window)))
    return;

  list = show_messages (f, 40);
  view = test_app_find_widget (GTK_WIDGET (f->window), KM_TYPE_MESSAGE_VIEW);
  clear = test_app_find_action (view, GTK_TYPE_BUTTON, "messages.clear");
  g_assert_nonnull (clear);
  adj = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (gtk_widget_get_ancestor (
                                               list, GTK_TYPE_SCROLLED_WINDOW)));
  /* Scrolled to the newest line, away from the first. */
  g_assert_true (test_app_wait_until (scrolled_to_end, adj, 5000));

  g_assert_true (gtk_widget_grab_focus (clear));
  press (f, "Tab");
  focus = focus_of (f);
  g_assert_true (focus != NULL && gtk_widget_is_ancestor (focus, list));
  row = message_row_of (list, focus);
  g_assert_nonnull (row);
  g_assert_true (row_wholly_in_view (row));
  g_assert_true (gtk_widget_get_state_flags (focus) & GTK_STATE_FLAG_FOCUS_VISIBLE);
  line = last_label_text (row);
  g_assert_true (g_str_has_prefix (line, "line "));
  n = (guint) g_ascii_strtoull (line + strlen ("line "), NULL, 10);
  g_assert_cmpuint (n, <, 39);

  /* ↓ goes on to the next line. */
  press (f, "Down");
  focus = focus_of (f);
  g_assert_true (focus != NULL && gtk_widget_is_ancestor (focus, list));
  row = message_row_of (list, focus);
  g_assert_true (row_wholly_in_view (row));
  {
    g_autofree char *next = g_strdup_printf ("line %u of the test", n + 1);

    g_assert_cmpstr (last_label_text (row), ==, next);
  }

  /* Out and back: the line left, still in view. */
  press (f, "Tab");
  g_assert_false (focus_of (f) != NULL && gtk_widget_is_ancestor (focus_of (f), list));
  press (f, "shift+Tab");
  focus = focus_of (f);
  g_assert_true (focus != NULL && gtk_widget_is_ancestor (focus, list));
  g_assert_true (message_row_of (list, focus) == row);

  /* Scrolled away from the line left, Tab comes to the first line in view: the top one. */
  g_assert_true (gtk_widget_grab_focus (clear));
  gtk_adjustment_set_value (adj, 0);
  test_app_spin_for (200);
  press (f, "Tab");
  focus = focus_of (f);
  g_assert_true (focus != NULL && gtk_widget_is_ancestor (focus, list));
  row = message_row_of (list, focus);
  g_assert_true (row_wholly_in_view (row));
  g_assert_cmpstr (last_label_text (row), ==, "line 0 of the test");
  press (f, "Down");
  g_assert_cmpstr (last_label_text (message_row_of (list, focus_of (f))), ==,
                   "line 1 of the test");
}

/* Whether a label at or below @root has a line that begins with @word and goes on with
 * nothing or a space (a shape: "cylinder", "box “base”"). */
static gboolean
has_line_starting (GtkWidget  *root,
                   const char *word)
{
  if (GTK_IS_LABEL (root))
    {
      g_auto(GStrv) lines = g_strsplit (gtk_label_get_text (GTK_LABEL (root)), "\n", -1);

      for (guint i = 0; lines[i] != NULL; i++)
        if (g_str_has_prefix (lines[i], word)
            && (lines[i][strlen (word)] == '\0' || lines[i][strlen (word)] == ' '))
          return TRUE;
    }
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (has_line_starting (child, word))
      return TRUE;
  return FALSE;
}

/* Finding 4: the Skeleton tab listed a joint's shapes by their file-format names
 * ("cylinder / box / box", untranslated); it names them for people ("Cylinder"),
 * translatably. */
static void
test_shape_names (Fixture       *f,
                  gconstpointer  data)
{
  GtkWidget *inspector = test_app_find_widget (GTK_WIDGET (f->window), KM_TYPE_JOINT_INSPECTOR);
  g_autoptr(GFile) file = g_file_new_for_path (g_test_get_filename (G_TEST_DIST, "data",
                                                                   "urdf-conformance",
                                                                   "materials.urdf", NULL));
  KmSkeleton *skeleton;
  static const char * const raw[] = { "box", "sphere", "cylinder", "cone", "capsule", "mesh" };
  static const char * const shown[] = { "Box", "Sphere", "Cylinder", "Cone", "Capsule", "Mesh" };
  guint n_named = 0;

  g_assert_nonnull (inspector);
  km_document_set_modified (f->document, FALSE);
  g_assert_true (test_app_open_file (f->window, file));
  g_assert_true (test_app_wait_loaded (f->window));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  skeleton = km_document_get_skeleton (f->document);
  g_assert_nonnull (skeleton);
  for (guint j = 0; j < km_skeleton_get_n_joints (skeleton); j++)
    {
      guint n_shapes = 0;

      km_skeleton_get_shapes (skeleton, j, &n_shapes);
      km_document_set_selected_joint (f->document, (int) j);
      test_app_spin ();
      for (guint i = 0; i < G_N_ELEMENTS (raw); i++)
        {
          g_assert_false (has_line_starting (inspector, raw[i]));
          if (n_shapes > 0 && has_line_starting (inspector, shown[i]))
            n_named++;
        }
    }
  g_assert_cmpuint (n_named, >, 0);
  test_app_spin_for (500);   /* the recently used files are written */
}

/* Whether column @x of rows [@y0, @y1) of a B,G,R,A premultiplied @w-wide image has ink:
 * a pixel darker than the white it was drawn over. */
static gboolean
column_has_ink (const guint8 *pixels,
                int           w,
                int           x,
                int           y0,
                int           y1)
{
  for (int y = y0; y < y1; y++)
    {
      const guint8 *p = pixels + ((gsize) y * w + x) * 4;

      if (p[0] < 160 || p[1] < 160 || p[2] < 160)
        return TRUE;
    }
  return FALSE;
}

/* Finding 5: in Japanese the graph's last time label ("10 秒") lost its 秒 at the right
 * edge. With the Japanese catalogue (po/ja.po, compiled here), the last label's text ends
 * inside the graph: its last columns are blank. */
static void
test_last_time_label_fits (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = NULL, *mo_dir = NULL, *mo = NULL, *old_locale = NULL;
  g_autofree guint8 *pixels = NULL;
  g_auto(GStrv) labels = NULL;
  const char *po = g_test_get_filename (G_TEST_DIST, "..", "po", "ja.po", NULL);
  g_autofree char *msgfmt = g_find_program_in_path ("msgfmt");
  KmDocument *document;
  GtkWindow *window;
  KmGraphView *graph;
  graphene_rect_t plot;
  int status = 0, w, h, blank = 0;
  guint n;

  if (msgfmt == NULL)
    {
      g_test_skip ("msgfmt is not installed");
      return;
    }
  old_locale = g_strdup (setlocale (LC_MESSAGES, NULL));
  if (setlocale (LC_MESSAGES, "ja_JP.UTF-8") == NULL)
    {
      g_test_skip ("no ja_JP.UTF-8 locale");
      return;
    }
  dir = g_dir_make_tmp ("kinema-ja-XXXXXX", &error);
  g_assert_no_error (error);
  mo_dir = g_build_filename (dir, "ja", "LC_MESSAGES", NULL);
  g_assert_cmpint (g_mkdir_with_parents (mo_dir, 0700), ==, 0);
  mo = g_build_filename (mo_dir, GETTEXT_PACKAGE ".mo", NULL);
  {
    const char *argv[] = { msgfmt, "-o", mo, po, NULL };

    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL,
                                 NULL, &status, &error));
    g_assert_no_error (error);
    g_assert_cmpint (status, ==, 0);
  }
  bindtextdomain (GETTEXT_PACKAGE, dir);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
  g_setenv ("LANGUAGE", "ja", TRUE);

  document = km_document_new ();
  g_assert_true (km_document_load_defaults (document, &error));
  g_assert_no_error (error);
  window = GTK_WINDOW (gtk_window_new ());
  graph = KM_GRAPH_VIEW (km_graph_view_new ());
  gtk_widget_set_size_request (GTK_WIDGET (graph), 140, 200);
  gtk_window_set_child (window, GTK_WIDGET (graph));
  km_graph_view_set_document (graph, document);
  gtk_window_present (window);
  g_assert_true (test_app_wait_idle_solve (document, 20000));
  test_app_spin_for (200);

  labels = km_graph_view_dup_time_labels (graph);
  n = g_strv_length (labels);
  g_assert_cmpuint (n, >, 1);
  g_assert_nonnull (strstr (labels[n - 1], "秒"));
  g_assert_true (km_graph_view_get_plot_area (graph, &plot));
  pixels = test_app_render_widget (GTK_WIDGET (graph), &w, &h);
  /* The labels' row, under the plot and its keyframe marks. */
  for (int x = w - 1; x >= 0 && !column_has_ink (pixels, w, x,
                                                 (int) (plot.origin.y + plot.size.height) + 6,
                                                 h); x--)
    blank++;
  g_assert_cmpint (blank, >=, 2);

  gtk_window_destroy (window);
  test_app_spin ();
  g_assert_true (test_app_unref_and_wait_finalized (document, 5000));
  g_unsetenv ("LANGUAGE");
  setlocale (LC_MESSAGES, old_locale);
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  {
    g_autofree char *ja = g_build_filename (dir, "ja", NULL);

    g_assert_cmpint (g_remove (mo), ==, 0);
    g_assert_cmpint (g_rmdir (mo_dir), ==, 0);
    g_assert_cmpint (g_rmdir (ja), ==, 0);
    g_assert_cmpint (g_rmdir (dir), ==, 0);
  }
}

int
main (int    argc,
      char **argv)
{
  test_app_init (&argc, &argv);

  /* First: it opens a file, which goes into the recently used files. GTK keeps them in the
   * data folder of the first test (G_TEST_OPTION_ISOLATE_DIRS), gone after it. */
  g_test_add ("/kinema/KeyboardAccess/labels/shape-names", Fixture, NULL,
              fixture_setup, test_shape_names, fixture_teardown);
  g_test_add ("/kinema/KeyboardAccess/keys/tab-past-time-bar", Fixture, NULL,
              fixture_setup, test_tab_past_time_bar, fixture_teardown);
  g_test_add ("/kinema/KeyboardAccess/keys/keyframe-accels-in-field", Fixture, NULL,
              fixture_setup, test_keyframe_accels_in_field, fixture_teardown);
  g_test_add ("/kinema/KeyboardAccess/keys/messages-one-tab-stop", Fixture, NULL,
              fixture_setup, test_messages_one_tab_stop, fixture_teardown);
  g_test_add ("/kinema/KeyboardAccess/keys/messages-click-focuses-line", Fixture, NULL,
              fixture_setup, test_messages_click_focuses_line, fixture_teardown);
  g_test_add ("/kinema/KeyboardAccess/keys/messages-tab-enters-in-view", Fixture, NULL,
              fixture_setup, test_messages_tab_enters_in_view, fixture_teardown);
  g_test_add_func ("/kinema/KeyboardAccess/labels/last-time-label-fits", test_last_time_label_fits);
  return g_test_run ();
}
