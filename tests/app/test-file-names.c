/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <string.h>
#include <glib/gstdio.h>
#include <gtk/gtk.h>

#include "km-document-skeleton.h"
#include "km-joint-inspector.h"
#include "km-message.h"
#include "km-window.h"

#include "test-app-util.h"
#include "km-test-tmp.h"

/*
 * File names that are not UTF-8 (Linux names are bytes) are shown by their display names
 * (U+FFFD for what is not UTF-8) wherever they reach a label, a tooltip, markup or the
 * window's title: never raw, which Pango and GTK warn about ("Invalid UTF-8 string passed
 * to pango_layout_set_text()", "Failed to set text … from markup") and show nothing for.
 * Warnings are fatal in these tests (g_test_init()), so any such warning fails them.
 */

/* "arm", two bytes that are no UTF-8, a tab, "x.json". */
#define ODD_NAME "arm\xff\xfe\tx.json"
#define ODD_SHOWN "arm\xef\xbf\xbd\xef\xbf\xbd"   /* "arm" and two U+FFFD */

static KmJointInspector *
inspector (KmWindow *window)
{
  GtkWidget *found = test_app_find_widget (GTK_WIDGET (window), KM_TYPE_JOINT_INSPECTOR);

  g_assert_nonnull (found);
  return KM_JOINT_INSPECTOR (found);
}

static gboolean
inspector_idle (gpointer data)
{
  g_autoptr(GFile) file = NULL;

  g_object_get (inspector (data), "saving-file", &file, NULL);
  return file == NULL;
}

/* Every message in Messages is UTF-8 (they are shown in labels). */
static void
assert_messages_utf8 (KmDocument *document)
{
  GListModel *messages = km_document_get_messages (document);

  for (guint i = 0; i < g_list_model_get_n_items (messages); i++)
    {
      g_autoptr(KmMessage) message = g_list_model_get_item (messages, i);

      g_assert_true (g_utf8_validate (km_message_get_text (message), -1, NULL));
    }
}

/* The spinner's tooltip while @window writes or reads @what: the file's display name. */
static void
assert_spinner_names (KmWindow   *window,
                      const char *verb)
{
  GtkWidget *spinner = test_app_find_widget (GTK_WIDGET (window), GTK_TYPE_SPINNER);
  const char *tooltip;

  g_assert_nonnull (spinner);
  tooltip = gtk_widget_get_tooltip_text (spinner);
  g_assert_nonnull (tooltip);
  g_assert_true (g_utf8_validate (tooltip, -1, NULL));
  g_assert_true (g_str_has_prefix (tooltip, verb));
  g_assert_nonnull (strstr (tooltip, ODD_SHOWN));
}

/* Review finding: `kinema "$(printf '/tmp/x/arm\xff\xfe\tx.json')"` warned from Pango on
 * opening and from GTK on Skeleton → Save Skeleton, and the spinner lost its tooltip. */
static void
test_non_utf8_model_name (void)
{
  g_autofree char *dir = km_test_make_tmp_dir ("km-file-names-XXXXXX");
  g_autofree char *path = g_build_filename (dir, ODD_NAME, NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  KmWindow *window = test_app_example_window (900, 600);
  KmDocument *document = km_window_get_document (window);
  const char *title;

  g_assert_true (test_app_wait_idle_solve (document, 20000));
  g_assert_true (km_document_save_skeleton (document, file, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));

  /* Opening: the spinner names the file while it is read. */
  g_assert_true (km_window_open_file (window, file));
  assert_spinner_names (window, "Opening ");
  g_assert_true (test_app_wait_loaded (window));
  document = km_window_get_document (window);
  g_assert_true (test_app_wait_idle_solve (document, 20000));
  test_app_spin_for (100);
  title = gtk_window_get_title (GTK_WINDOW (window));
  g_assert_nonnull (title);
  g_assert_true (g_utf8_validate (title, -1, NULL));
  g_assert_true (g_utf8_validate (km_document_get_title (document), -1, NULL));
  assert_messages_utf8 (document);

  /* Skeleton → Save Skeleton writes it back, named by the spinner meanwhile. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "skeleton.save", NULL));
  g_assert_false (inspector_idle (window));
  assert_spinner_names (window, "Saving ");
  g_assert_true (test_app_wait_until (inspector_idle, window, 20000));
  test_app_spin_for (100);
  assert_messages_utf8 (document);

  test_app_destroy_window (&window, &document);
  km_test_remove_tree (dir);
}

int
main (int    argc,
      char **argv)
{
  test_app_init (&argc, &argv);

  g_test_add_func ("/kinema/FileNames/non-utf8-model-name", test_non_utf8_model_name);
  return g_test_run ();
}
