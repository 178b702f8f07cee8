/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <gtk/gtk.h>

#include "km-document.h"
#include "km-time-bar.h"

#include "test-app-util.h"

/*
 * What a user sees in the time bar, under Xvfb: the playback speed menu marks the speed the
 * time bar plays at, from the start and after a change.
 */

typedef struct
{
  GtkWindow  *window;
  KmDocument *document;
  KmTimeBar  *time_bar;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  f->document = km_document_new ();
  g_assert_true (km_document_load_defaults (f->document, &error));
  g_assert_no_error (error);
  f->window = GTK_WINDOW (gtk_window_new ());
  f->time_bar = KM_TIME_BAR (km_time_bar_new ());
  gtk_window_set_child (f->window, GTK_WIDGET (f->time_bar));
  km_time_bar_set_document (f->time_bar, f->document);
  gtk_window_present (f->window);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  gtk_window_destroy (f->window);
  test_app_spin ();
  g_assert_finalize_object (f->document);
}

/* Appends the text of each checked menu entry at or below @widget, one a line. */
static void
collect_active_entries (GtkWidget *widget,
                        GString   *entries)
{
  if (g_strcmp0 (G_OBJECT_TYPE_NAME (widget), "GtkModelButton") == 0)
    {
      g_autofree char *text = NULL;
      gboolean active = FALSE;

      g_object_get (widget, "text", &text, "active", &active, NULL);
      if (active)
        g_string_append_printf (entries, "%s\n", text);
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    collect_active_entries (child, entries);
}

static char *
checked_speeds (Fixture *f)
{
  GtkWidget *button = test_app_find_widget (GTK_WIDGET (f->time_bar), GTK_TYPE_MENU_BUTTON);
  GtkPopover *popover;
  GString *entries = g_string_new (NULL);

  g_assert_nonnull (button);
  popover = gtk_menu_button_get_popover (GTK_MENU_BUTTON (button));
  g_assert_nonnull (popover);
  gtk_menu_button_popup (GTK_MENU_BUTTON (button));
  test_app_spin ();
  collect_active_entries (GTK_WIDGET (popover), entries);
  gtk_menu_button_popdown (GTK_MENU_BUTTON (button));
  test_app_spin ();
  return g_string_free (entries, FALSE);
}

static void
test_speed_menu_marks_speed (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *at_start = NULL;
  g_autofree char *changed = NULL;
  g_autofree char *back = NULL;

  g_assert_cmpfloat (km_time_bar_get_speed (f->time_bar), ==, 1.0);
  at_start = checked_speeds (f);
  g_assert_cmpstr (at_start, ==, "1×\n");

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->time_bar), "time.speed", "d", 2.0));
  g_assert_cmpfloat (km_time_bar_get_speed (f->time_bar), ==, 2.0);
  changed = checked_speeds (f);
  g_assert_cmpstr (changed, ==, "2×\n");

  km_time_bar_set_speed (f->time_bar, 1.0);
  back = checked_speeds (f);
  g_assert_cmpstr (back, ==, "1×\n");
}

/* Delete Keyframe (and Shift+K, and copy) act on the keyframe at the current frame: the
 * button is insensitive where there is none, and follows the frame and the keyframes. */
static void
test_delete_keyframe_follows_frame (Fixture       *f,
                                    gconstpointer  data)
{
  GtkWidget *delete = test_app_find_action (GTK_WIDGET (f->time_bar), GTK_TYPE_WIDGET, "time.delete-keyframe");

  g_assert_nonnull (delete);
  km_document_set_current_frame (f->document, 0);     /* the example keys frames 0, 80, … */
  test_app_spin ();
  g_assert_true (gtk_widget_get_sensitive (delete));

  km_document_set_current_frame (f->document, 1);
  test_app_spin ();
  g_assert_false (gtk_widget_get_sensitive (delete));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->time_bar), "time.set-keyframe",
                                             NULL));
  test_app_spin ();
  g_assert_true (gtk_widget_get_sensitive (delete));
}

int
main (int    argc,
      char **argv)
{
  test_app_init (&argc, &argv);

  g_test_add ("/kinema/Walkthrough/timebar/speed-menu-marks-speed", Fixture, NULL,
              fixture_setup, test_speed_menu_marks_speed, fixture_teardown);
  g_test_add ("/kinema/Walkthrough/timebar/delete-keyframe-follows-frame", Fixture, NULL,
              fixture_setup, test_delete_keyframe_follows_frame, fixture_teardown);
  return g_test_run ();
}
