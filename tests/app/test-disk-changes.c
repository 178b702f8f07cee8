/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <gtk/gtk.h>

#include "km-animation-json.h"
#include "km-body-item.h"
#include "km-document-edit.h"
#include "km-document-private.h"
#include "km-document-skeleton.h"
#include "km-format.h"
#include "km-ik-animation-item.h"
#include "km-ik-targets-item.h"
#include "km-skeleton-edit.h"
#include "km-skeleton-json.h"
#include "km-targets-json.h"
#include "km-window.h"

#include "test-app-util.h"

/*
 * Changes another program makes to the open project's file, under Xvfb: Save does not
 * write over them unasked (the question offers Overwrite, Reload, Cancel), Save As to the
 * same file neither, nor Save for Choreonoid, and a bar says so while the window is open,
 * but not after Kinema's own saves. Likewise for a sub-project's file that Save would
 * write, and a bar for the files the project's items were read from (a targets file here),
 * with Reload.
 */

typedef struct
{
  KmWindow   *window;
  KmDocument *document;
  char       *dir;
  char       *path;
  GFile      *file;
  char       *ours;     /* the file as the setup saved it */
} Fixture;

/* The second keyframe as the example has it, and as another program leaves it. */
#define OUR_KEY   "{ frame: 80, pos: [ 1, 1, 1 ]"
#define THEIR_KEY "{ frame: 80, pos: [ 1.25, 1, 1 ]"

static char *
read_file (const char *path)
{
  char *text = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  return text;
}

/* The example saved as p3.cnoid: the document's file, clean. */
static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  f->window = test_app_example_window (900, 600);
  f->document = km_window_get_document (f->window);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));

  f->dir = g_dir_make_tmp ("km-disk-XXXXXX", &error);
  g_assert_no_error (error);
  f->path = g_build_filename (f->dir, "p3.cnoid", NULL);
  f->file = g_file_new_for_path (f->path);
  g_assert_true (km_document_save (f->document, f->file, &error));
  g_assert_no_error (error);
  g_assert_false (km_document_get_modified (f->document));
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (f->window)), ==, "p3.cnoid — Kinema");
  f->ours = read_file (f->path);
  g_assert_nonnull (strstr (f->ours, OUR_KEY));
}

static void
remove_tree (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *p = g_build_filename (dir, name, NULL);

      if (g_file_test (p, G_FILE_TEST_IS_DIR) && !g_file_test (p, G_FILE_TEST_IS_SYMLINK))
        remove_tree (p);
      else
        g_unlink (p);
    }
  g_rmdir (dir);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  test_app_destroy_window (&f->window, &f->document);
  remove_tree (f->dir);
  g_free (f->dir);
  g_free (f->path);
  g_free (f->ours);
  g_object_unref (f->file);
}

/* What `sed -i` on the project does: another program moves the second keyframe, and the
 * file's time is later than Kinema's write. Returns the text it left. */
static char *
change_behind_our_back (Fixture *f)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) text = g_string_new (f->ours);
  guint64 mtime;

  g_assert_cmpuint (g_string_replace (text, OUR_KEY, THEIR_KEY, 1), ==, 1);
  g_assert_true (g_file_set_contents (f->path, text->str, text->len, &error));
  g_assert_no_error (error);
  mtime = (guint64) (g_get_real_time () / G_USEC_PER_SEC) + 10;
  g_assert_true (g_file_set_attribute_uint64 (f->file, G_FILE_ATTRIBUTE_TIME_MODIFIED, mtime,
                                              G_FILE_QUERY_INFO_NONE, NULL, &error));
  g_assert_no_error (error);
  return g_string_free (g_steal_pointer (&text), FALSE);
}

/* The x of the second keyframe of the document's targets. */
static double
second_key_x (Fixture *f)
{
  KmTargetTrack *targets = km_document_get_targets (f->document);

  g_assert_nonnull (targets);
  g_assert_cmpuint (km_target_track_get_n_keyframes (targets), >, 1);
  return km_target_track_get_keyframe (targets, 1)->position.x;
}

/* Save (Ctrl+S), then the main loop until the save is over. */
static void
press_save (Fixture *f)
{
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.save", NULL));
  g_assert_true (test_app_wait_saved (f->window));
  test_app_spin ();
}

/* The question asked, with its primary text containing @text. */
static GtkDialog *
question_saying (Fixture    *f,
                 const char *text)
{
  GtkWindow *question = km_window_get_question (f->window);
  g_autofree char *primary = NULL;

  g_assert_true (GTK_IS_MESSAGE_DIALOG (question));
  g_object_get (question, "text", &primary, NULL);
  g_assert_nonnull (strstr (primary, text));
  return GTK_DIALOG (question);
}

static gboolean
bar_revealed (gpointer window)
{
  return gtk_revealer_get_reveal_child (GTK_REVEALER (km_window_get_disk_change_bar (window)));
}

/* Save finds the file changed: nothing is written, the question is asked, and Cancel
 * leaves both the file and the document as they are. */
static void
test_save_asks (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *theirs = change_behind_our_back (f);
  g_autofree char *after = NULL;
  g_autofree char *again = NULL;

  press_save (f);
  after = read_file (f->path);
  g_assert_cmpstr (after, ==, theirs);
  gtk_dialog_response (question_saying (f, "“p3.cnoid” has changed on disk since Kinema "
                                        "last read or saved it."),
                       GTK_RESPONSE_CANCEL);
  g_assert_null (km_window_get_question (f->window));
  g_assert_true (test_app_has_message (f->document, G_LOG_LEVEL_WARNING,
                                       "“p3.cnoid” has changed on disk", NULL));
  g_assert_cmpfloat (second_key_x (f), ==, 1.0);

  /* Asked again: the file is still theirs. */
  press_save (f);
  again = read_file (f->path);
  g_assert_cmpstr (again, ==, theirs);
  gtk_dialog_response (question_saying (f, "has changed on disk"), GTK_RESPONSE_CANCEL);
}

/* Overwrite writes our version; the next Save asks nothing. */
static void
test_overwrite (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *theirs = change_behind_our_back (f);
  g_autofree char *after = NULL;

  km_document_set_dof_value (f->document, 1, 0.3);
  press_save (f);
  gtk_dialog_response (question_saying (f, "has changed on disk"), GTK_RESPONSE_ACCEPT);
  g_assert_true (km_window_get_saving (f->window));
  g_assert_true (test_app_wait_saved (f->window));
  after = read_file (f->path);
  g_assert_nonnull (strstr (after, OUR_KEY));
  g_assert_null (strstr (after, THEIR_KEY));
  g_assert_false (km_document_get_modified (f->document));

  km_document_set_dof_value (f->document, 1, 0.1);
  press_save (f);
  g_assert_null (km_window_get_question (f->window));
  g_assert_false (km_document_get_modified (f->document));
}

/* Reload reads their file: their keyframe, unsaved changes dropped, the file untouched. */
static void
test_reload (Fixture       *f,
             gconstpointer  data)
{
  g_autofree char *theirs = change_behind_our_back (f);
  g_autofree char *after = NULL;

  km_document_set_dof_value (f->document, 1, 0.3);
  g_assert_true (km_document_get_modified (f->document));
  press_save (f);
  gtk_dialog_response (question_saying (f, "has changed on disk"), GTK_RESPONSE_REJECT);
  g_assert_null (km_window_get_question (f->window));
  g_assert_true (test_app_wait_loaded (f->window));
  g_assert_cmpfloat (second_key_x (f), ==, 1.25);
  g_assert_false (km_document_get_modified (f->document));
  after = read_file (f->path);
  g_assert_cmpstr (after, ==, theirs);

  /* What was read is what the file is: Save writes without asking. */
  km_document_set_dof_value (f->document, 1, 0.1);
  press_save (f);
  g_assert_null (km_window_get_question (f->window));
  g_assert_false (km_document_get_modified (f->document));
}

/* Save As to the project's own file (another GFile of the same path) counts as Save;
 * another file is written. */
static void
test_save_as_same_path (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *theirs = change_behind_our_back (f);
  g_autofree char *after = NULL;
  g_autofree char *other_path = g_build_filename (f->dir, "other.cnoid", NULL);
  g_autoptr(GFile) same = g_file_new_for_path (f->path);
  g_autoptr(GFile) other = g_file_new_for_path (other_path);
  g_autoptr(GError) error = NULL;

  g_assert_true (same != f->file);
  g_assert_false (km_document_save (f->document, same, &error));
  g_assert_error (error, KM_DOCUMENT_ERROR, KM_DOCUMENT_ERROR_CHANGED_ON_DISK);
  after = read_file (f->path);
  g_assert_cmpstr (after, ==, theirs);
  g_clear_error (&error);

  g_assert_true (km_document_save (f->document, other, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_equal (km_document_get_file (f->document), other));
  g_unlink (other_path);
}

/* A file removed behind our back: Save asks whether to write it again. */
static void
test_save_deleted (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *after = NULL;

  g_assert_cmpint (g_unlink (f->path), ==, 0);
  press_save (f);
  g_assert_false (g_file_test (f->path, G_FILE_TEST_EXISTS));
  gtk_dialog_response (question_saying (f, "“p3.cnoid” was deleted or moved"),
                       GTK_RESPONSE_ACCEPT);
  g_assert_true (test_app_wait_saved (f->window));
  after = read_file (f->path);
  g_assert_nonnull (strstr (after, OUR_KEY));
  g_assert_null (km_window_get_question (f->window));
}

/* The bar: not after our own save, but after another program's change, with Reload. */
static void
test_bar (Fixture       *f,
          gconstpointer  data)
{
  GtkWidget *bar = km_window_get_disk_change_bar (f->window);
  GtkWidget *reload;
  g_autofree char *theirs = NULL;

  g_assert_true (GTK_IS_REVEALER (bar));
  g_assert_false (bar_revealed (f->window));

  /* Our own save: the monitor sees the file replaced, which is no change of theirs. */
  km_document_set_dof_value (f->document, 1, 0.3);
  press_save (f);
  g_assert_false (km_document_get_modified (f->document));
  test_app_spin_for (1500);
  g_assert_false (bar_revealed (f->window));
  g_assert_false (test_app_has_message (f->document, 0, "changed on disk", NULL));

  g_free (f->ours);
  f->ours = read_file (f->path);
  theirs = change_behind_our_back (f);
  g_assert_true (test_app_wait_until (bar_revealed, f->window, 10000));
  g_assert_true (test_app_has_message (f->document, G_LOG_LEVEL_WARNING,
                                       "the project file changed on disk", NULL));
  g_assert_nonnull (test_app_find_label (bar, "The project file changed on disk."));

  reload = test_app_find_action (bar, GTK_TYPE_BUTTON, "win.reload-project");
  g_assert_nonnull (reload);
  g_assert_true (gtk_widget_get_visible (reload));
  g_signal_emit_by_name (reload, "clicked");
  g_assert_true (test_app_wait_loaded (f->window));
  g_assert_cmpfloat (second_key_x (f), ==, 1.25);
  g_assert_false (bar_revealed (f->window));
  test_app_spin_for (500);
  g_assert_false (bar_revealed (f->window));
}

/* ---- Save for Choreonoid -------------------------------------------------------------- */

static void
copies_saved_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  gboolean *done = user_data;

  g_assert_false (km_document_save_with_body_copies_finish (KM_DOCUMENT (source), result, NULL));
  *done = TRUE;
}

/* The Skeleton tab's Save for Choreonoid to the project's own file, as its file chooser
 * answers it: it fails, the question is asked. */
static void
save_for_choreonoid (Fixture *f)
{
  gboolean done = FALSE;

  km_document_save_with_body_copies_async (f->document, f->file, NULL, copies_saved_cb, &done);
  g_assert_true (test_app_wait_flag (&done, 20000));
  test_app_spin ();
}

static gboolean
file_is_ours (gpointer data)
{
  Fixture *f = data;
  g_autofree char *text = NULL;

  return !km_document_get_saving (f->document)
         && g_file_get_contents (f->path, &text, NULL, NULL)
         && strstr (text, OUR_KEY) != NULL;
}

/* Asked as Save asks; Cancel leaves their file, Overwrite writes ours. */
static void
test_choreonoid_asks (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *theirs = change_behind_our_back (f);
  g_autofree char *after = NULL;

  save_for_choreonoid (f);
  after = read_file (f->path);
  g_assert_cmpstr (after, ==, theirs);
  gtk_dialog_response (question_saying (f, "“p3.cnoid” has changed on disk since Kinema "
                                        "last read or saved it."),
                       GTK_RESPONSE_CANCEL);
  g_assert_null (km_window_get_question (f->window));
  g_free (after);
  after = read_file (f->path);
  g_assert_cmpstr (after, ==, theirs);

  save_for_choreonoid (f);
  gtk_dialog_response (question_saying (f, "has changed on disk"), GTK_RESPONSE_ACCEPT);
  g_assert_true (test_app_wait_until (file_is_ours, f, 20000));
  test_app_spin_for (200);
  g_assert_null (km_window_get_question (f->window));
  g_assert_true (test_app_has_message (f->document, G_LOG_LEVEL_INFO, "Saved", NULL));
}

/* Reload reads their file. */
static void
test_choreonoid_reload (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *theirs = change_behind_our_back (f);
  g_autofree char *after = NULL;

  save_for_choreonoid (f);
  gtk_dialog_response (question_saying (f, "has changed on disk"), GTK_RESPONSE_REJECT);
  g_assert_true (test_app_wait_loaded (f->window));
  g_assert_cmpfloat (second_key_x (f), ==, 1.25);
  after = read_file (f->path);
  g_assert_cmpstr (after, ==, theirs);
}

/* ---- A sub-project's file -------------------------------------------------------------- */

/* main.cnoid in the fixture's folder, including part.cnoid (the arm project of the test
 * data, with its files), open in the window with an edit in the sub-project (a keyframe of
 * its targets deleted), not saved. Sets @part_path and @part_text (as read). */
static void
open_sub_project (Fixture  *f,
                  char    **part_path,
                  char    **part_text)
{
  g_autofree char *main_path = g_build_filename (f->dir, "main.cnoid", NULL);
  g_autoptr(GFile) main_file = g_file_new_for_path (main_path);

  test_app_copy_arm_project (f->dir, "part.cnoid");
  test_app_write_sub_project_main (main_path, "part.cnoid", NULL);
  *part_path = g_build_filename (f->dir, "part.cnoid", NULL);
  *part_text = read_file (*part_path);

  g_assert_true (test_app_open_file (f->window, main_file));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  test_app_spin ();
  g_assert_true (g_file_equal (km_document_get_file (f->document), main_file));
  g_assert_cmpstr (km_item_get_name (km_document_get_body_item (f->document)), ==, "Arm");
  g_assert_cmpuint (km_target_track_get_n_keyframes (km_document_get_targets (f->document)),
                    ==, 2);
  g_assert_true (km_document_delete_keyframe (f->document, 12));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_true (km_document_get_modified (f->document));
}

/* What another program makes of the sub-project: the body renamed. Returns that text. */
static char *
change_sub_behind_our_back (const char *part_path,
                            const char *part_text)
{
  g_autoptr(GString) text = g_string_new (part_text);

  g_assert_cmpuint (g_string_replace (text, "name: \"Arm\"", "name: \"Their arm\"", 1), ==, 1);
  g_assert_true (g_file_set_contents (part_path, text->str, text->len, NULL));
  return g_string_free (g_steal_pointer (&text), FALSE);
}

/* Save finds the sub-project's file changed: nothing is written (neither file), the
 * question is asked (the message names the sub-project's file), Cancel leaves all as it
 * was; asked again, Overwrite writes our sub-project over theirs, and the next Save asks
 * nothing. */
static void
test_sub_project_asks (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *part_path = NULL;
  g_autofree char *part_text = NULL;
  g_autofree char *theirs = NULL;
  g_autofree char *main_path = g_build_filename (f->dir, "main.cnoid", NULL);
  g_autofree char *main_text = NULL;
  g_autofree char *after = NULL;

  open_sub_project (f, &part_path, &part_text);
  main_text = read_file (main_path);
  theirs = change_sub_behind_our_back (part_path, part_text);

  press_save (f);
  /* The question names the file that changed, not the project that includes it. */
  gtk_dialog_response (question_saying (f, "The sub-project “part.cnoid” has changed on disk "
                                        "since Kinema last read or saved it."),
                       GTK_RESPONSE_CANCEL);
  g_assert_null (km_window_get_question (f->window));
  g_assert_true (test_app_has_message (f->document, G_LOG_LEVEL_WARNING,
                                       "The sub-project “part.cnoid” has changed on disk",
                                       NULL));
  after = read_file (part_path);
  g_assert_cmpstr (after, ==, theirs);
  g_free (after);
  after = read_file (main_path);
  g_assert_cmpstr (after, ==, main_text);
  g_assert_true (km_document_get_modified (f->document));
  g_assert_false (test_app_has_message (f->document, G_LOG_LEVEL_INFO, "Saved ", part_path,
                                        NULL));
  g_assert_false (test_app_has_message (f->document, G_LOG_LEVEL_INFO, "Saved ", main_path,
                                        NULL));

  press_save (f);
  gtk_dialog_response (question_saying (f, "has changed on disk"), GTK_RESPONSE_ACCEPT);
  g_assert_true (test_app_wait_saved (f->window));
  test_app_spin ();
  g_assert_null (km_window_get_question (f->window));
  g_free (after);
  after = read_file (part_path);
  g_assert_nonnull (strstr (after, "name: \"Arm\""));
  g_assert_null (strstr (after, "Their arm"));
  g_assert_null (strstr (after, "{ frame: 12,"));
  g_assert_false (km_document_get_modified (f->document));

  /* Our own write is no change of theirs. */
  km_document_set_current_frame (f->document, 24);
  g_assert_true (km_document_set_keyframe (f->document, 24));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  press_save (f);
  g_assert_null (km_window_get_question (f->window));
  g_assert_false (km_document_get_modified (f->document));
  g_free (after);
  after = read_file (part_path);
  g_assert_nonnull (strstr (after, "{ frame: 24,"));
}

/* Reload reads their sub-project, dropping the unsaved edit; the file stays theirs. Then
 * the sub-project's file is removed: Save asks whether to write it again, and does. */
static void
test_sub_project_reload_deleted (Fixture       *f,
                                 gconstpointer  data)
{
  g_autofree char *part_path = NULL;
  g_autofree char *part_text = NULL;
  g_autofree char *theirs = NULL;
  g_autofree char *after = NULL;

  open_sub_project (f, &part_path, &part_text);
  theirs = change_sub_behind_our_back (part_path, part_text);
  press_save (f);
  gtk_dialog_response (question_saying (f, "has changed on disk"), GTK_RESPONSE_REJECT);
  g_assert_true (test_app_wait_loaded (f->window));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_cmpstr (km_item_get_name (km_document_get_body_item (f->document)), ==,
                   "Their arm");
  g_assert_cmpuint (km_target_track_get_n_keyframes (km_document_get_targets (f->document)),
                    ==, 2);
  g_assert_false (km_document_get_modified (f->document));
  after = read_file (part_path);
  g_assert_cmpstr (after, ==, theirs);

  g_assert_true (km_document_delete_keyframe (f->document, 12));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_cmpint (g_unlink (part_path), ==, 0);
  press_save (f);
  g_assert_false (g_file_test (part_path, G_FILE_TEST_EXISTS));
  g_assert_true (test_app_has_message (f->document, G_LOG_LEVEL_WARNING,
                                       "The sub-project “part.cnoid” was deleted or moved",
                                       NULL));
  gtk_dialog_response (question_saying (f, "was deleted or moved"), GTK_RESPONSE_ACCEPT);
  g_assert_true (test_app_wait_saved (f->window));
  test_app_spin ();
  g_assert_null (km_window_get_question (f->window));
  g_free (after);
  after = read_file (part_path);
  g_assert_nonnull (strstr (after, "name: \"Their arm\""));
  g_assert_null (strstr (after, "{ frame: 12,"));
  g_assert_false (km_document_get_modified (f->document));
}

/* ---- The files the items were read from ------------------------------------------------ */

/* The targets item of the document whose file is @path, or NULL. */
static KmItem *
find_targets_item (KmItem     *item,
                   const char *name)
{
  if (KM_IS_IK_TARGETS_ITEM (item)
      && g_strcmp0 (km_ik_targets_item_get_file (KM_IK_TARGETS_ITEM (item)), NULL) != 0
      && g_str_has_suffix (km_ik_targets_item_get_file (KM_IK_TARGETS_ITEM (item)), name))
    return item;
  for (guint i = 0; i < km_item_get_n_children (item); i++)
    {
      KmItem *found = find_targets_item (km_item_get_child (item, i), name);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static KmItem *
targets_item (Fixture    *f,
              const char *name)
{
  return find_targets_item (km_project_get_root_item (km_document_get_project (f->document)),
                            name);
}

static double
item_second_key_x (Fixture    *f,
                   const char *name)
{
  KmItem *item = targets_item (f, name);
  KmTargetTrack *track;

  g_assert_nonnull (item);
  track = km_ik_targets_item_get_track (KM_IK_TARGETS_ITEM (item));
  g_assert_nonnull (track);
  return km_target_track_get_keyframe (track, 1)->position.x;
}

/* Writes the document's targets to @name in the project's folder and imports that file:
 * an item read from it. */
static void
import_targets (Fixture    *f,
                const char *name)
{
  g_autofree char *path = g_build_filename (f->dir, name, NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;

  g_assert_true (km_targets_json_save (km_document_get_targets (f->document), path, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_open_file (f->window, file));
  g_assert_nonnull (targets_item (f, name));
  g_assert_cmpfloat (item_second_key_x (f, name), ==, 1.0);
}

/* What an editor does to @name: its second keyframe's x becomes @x, written aside and
 * renamed over it. */
static void
change_targets_behind_our_back (Fixture    *f,
                                const char *name,
                                double      x)
{
  g_autofree char *path = g_build_filename (f->dir, name, NULL);
  g_autofree char *aside = g_strconcat (path, ".new", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmTargetTrack) track = km_targets_json_load_file (path, &error);
  g_autoptr(KmTargetTrack) theirs = NULL;
  KmTargetKeyframe key;

  g_assert_no_error (error);
  key = *km_target_track_get_keyframe (track, 1);
  key.position.x = x;
  theirs = km_target_track_with_keyframe (track, &key);
  g_assert_true (km_targets_json_save (theirs, aside, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_rename (aside, path), ==, 0);
}

/* The bar that says item files changed, through its Reload button. */
static GtkWidget *
item_bar (Fixture *f)
{
  GtkWidget *reload = test_app_find_action (GTK_WIDGET (f->window), GTK_TYPE_BUTTON,
                                            "win.reload-item-files");

  g_assert_nonnull (reload);
  return gtk_widget_get_ancestor (reload, GTK_TYPE_REVEALER);
}

static gboolean
item_bar_revealed (gpointer data)
{
  return gtk_revealer_get_reveal_child (GTK_REVEALER (item_bar (data)));
}

static gboolean
item_bar_hidden (gpointer data)
{
  return !item_bar_revealed (data);
}

static gboolean
bar_label_says_changed (gpointer data)
{
  Fixture *f = data;

  return item_bar_revealed (f)
         && test_app_find_label (item_bar (f), "“walk.json” changed on disk.") != NULL;
}

/* Another program changes a targets file: the bar names it, Reload reads it again (one
 * step to undo); Kinema's own Save Item As to the file shows nothing. */
static void
test_item_file_bar (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *path = g_build_filename (f->dir, "walk.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  GtkWidget *bar;
  GtkWidget *reload;

  import_targets (f, "walk.json");
  bar = item_bar (f);
  test_app_spin_for (1000);
  g_assert_false (item_bar_revealed (f));

  /* Our own write of the file: no change of theirs. */
  g_assert_true (km_document_save_item (f->document, targets_item (f, "walk.json"), file, &error));
  g_assert_no_error (error);
  test_app_spin_for (1500);
  g_assert_false (item_bar_revealed (f));

  change_targets_behind_our_back (f, "walk.json", 1.5);
  g_assert_true (test_app_wait_until (item_bar_revealed, f, 10000));
  g_assert_nonnull (test_app_find_label (bar, "“walk.json” changed on disk."));
  g_assert_true (test_app_has_message (f->document, G_LOG_LEVEL_WARNING, "walk.json changed on disk",
                                       NULL));
  g_assert_cmpfloat (item_second_key_x (f, "walk.json"), ==, 1.0);

  reload = test_app_find_action (bar, GTK_TYPE_BUTTON, "win.reload-item-files");
  g_signal_emit_by_name (reload, "clicked");
  g_assert_true (test_app_wait_reloaded (km_window_get_item_tree (f->window)));
  test_app_spin ();
  g_assert_cmpfloat (item_second_key_x (f, "walk.json"), ==, 1.5);
  g_assert_false (item_bar_revealed (f));
  test_app_spin_for (1500);
  g_assert_false (item_bar_revealed (f));

  /* One step. */
  km_document_undo (f->document);
  g_assert_cmpfloat (item_second_key_x (f, "walk.json"), ==, 1.0);
  km_document_redo (f->document);
  g_assert_cmpfloat (item_second_key_x (f, "walk.json"), ==, 1.5);

  /* Watched still, the reloaded item: their next change shows again. */
  change_targets_behind_our_back (f, "walk.json", 1.75);
  g_assert_true (test_app_wait_until (item_bar_revealed, f, 10000));
}

/* The animation item under the body that was read from @name, or NULL. */
static KmItem *
animation_item (Fixture    *f,
                const char *name)
{
  KmItem *body = km_document_get_body_item (f->document);

  for (guint i = 0; i < km_item_get_n_children (body); i++)
    {
      KmItem *child = km_item_get_child (body, i);
      const char *file;

      if (!KM_IS_IK_ANIMATION_ITEM (child))
        continue;
      file = km_ik_animation_item_get_file (KM_IK_ANIMATION_ITEM (child));
      if (file != NULL && g_str_has_suffix (file, name))
        return child;
    }
  return NULL;
}

/* The first joint value of the second frame of the motion read from @name. */
static double
item_second_frame_value (Fixture    *f,
                         const char *name)
{
  KmItem *item = animation_item (f, name);
  KmAnimation *animation;

  g_assert_nonnull (item);
  animation = km_ik_animation_item_get_animation (KM_IK_ANIMATION_ITEM (item));
  g_assert_nonnull (animation);
  g_assert_cmpuint (km_animation_get_n_frames (animation), >, 1);
  g_assert_cmpuint (km_animation_get_n_dof (animation), >, 0);
  return km_animation_get_frame (animation, 1)[0];
}

/* Writes the document's solved motion to @name in the project's folder and opens that
 * file: an animation item read from it, moved below the body's solved motion, which stays
 * the one shown (the one a solve of the body's targets writes to). Returns the first joint
 * value of its second frame. */
static double
open_animation (Fixture    *f,
                const char *name)
{
  g_autofree char *path = g_build_filename (f->dir, name, NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  KmAnimation *animation = km_document_get_animation (f->document);
  KmItem *body = km_document_get_body_item (f->document);
  KmItem *item;
  KmItem *shown;

  g_assert_nonnull (animation);
  g_assert_true (km_animation_json_save (animation, path, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_open_file (f->window, file));
  item = animation_item (f, name);
  g_assert_nonnull (item);
  g_assert_true (km_document_move_item (f->document, item, body, km_item_get_n_children (body)));
  shown = km_item_find_child_by_type (body, KM_TYPE_IK_ANIMATION_ITEM);
  g_assert_nonnull (shown);
  g_assert_true (shown != item);
  g_assert_true (animation_item (f, name) == item);
  return item_second_frame_value (f, name);
}

/* What another program does to the motion in @name: the first joint value of its second
 * frame becomes @value, written aside and renamed over it. */
static void
change_animation_behind_our_back (Fixture    *f,
                                  const char *name,
                                  double      value)
{
  g_autofree char *path = g_build_filename (f->dir, name, NULL);
  g_autofree char *aside = g_strconcat (path, ".new", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmAnimation) theirs = NULL;
  g_autofree double *values = NULL;
  guint n_dof;

  theirs = km_animation_json_load_file (path, km_document_get_skeleton (f->document), &error);
  g_assert_no_error (error);
  n_dof = km_animation_get_n_dof (theirs);
  values = g_memdup2 (km_animation_get_frame (theirs, 1), n_dof * sizeof (double));
  values[0] = value;
  km_animation_set_frame (theirs, 1, values);
  g_assert_true (km_animation_json_save (theirs, aside, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_rename (aside, path), ==, 0);
}

/* Two files changed (a targets file and a motion read from a file, items the body holds
 * at once): one bar with the count, Reload reads both. */
static void
test_item_files_bar (Fixture       *f,
                     gconstpointer  data)
{
  GtkWidget *reload;
  double ours;
  double theirs;

  ours = open_animation (f, "motion.json");
  theirs = ours + 0.25;
  import_targets (f, "walk.json");
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_cmpfloat_with_epsilon (item_second_frame_value (f, "motion.json"), ours, 1e-9);
  test_app_spin_for (500);
  g_assert_false (item_bar_revealed (f));

  change_targets_behind_our_back (f, "walk.json", 1.5);
  change_animation_behind_our_back (f, "motion.json", theirs);
  g_assert_true (test_app_wait_until (item_bar_revealed, f, 10000));
  /* (the second may come a moment after the first) */
  test_app_spin_for (1000);
  g_assert_nonnull (test_app_find_label (item_bar (f), "2 files of the project changed on disk."));
  g_assert_cmpfloat (item_second_key_x (f, "walk.json"), ==, 1.0);
  g_assert_cmpfloat_with_epsilon (item_second_frame_value (f, "motion.json"), ours, 1e-9);

  reload = test_app_find_action (item_bar (f), GTK_TYPE_BUTTON, "win.reload-item-files");
  g_signal_emit_by_name (reload, "clicked");
  g_assert_true (test_app_wait_reloaded (km_window_get_item_tree (f->window)));
  test_app_spin ();
  g_assert_cmpfloat (item_second_key_x (f, "walk.json"), ==, 1.5);
  g_assert_cmpfloat_with_epsilon (item_second_frame_value (f, "motion.json"), theirs, 1e-6);
  g_assert_false (item_bar_revealed (f));

  /* The reloaded targets' solve goes to the body's solved motion, not the file's. */
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  test_app_spin ();
  g_assert_cmpfloat_with_epsilon (item_second_frame_value (f, "motion.json"), theirs, 1e-6);
  test_app_spin_for (1000);
  g_assert_false (item_bar_revealed (f));
}

/* Another program rewrites a targets file just as Kinema saves the project (which does not
 * write that file): the change is not taken for the save's, the bar shows it. */
static void
test_item_file_changed_while_saving (Fixture       *f,
                                     gconstpointer  data)
{
  import_targets (f, "walk.json");
  test_app_spin_for (1000);
  g_assert_false (item_bar_revealed (f));

  km_document_set_dof_value (f->document, 1, 0.3);
  change_targets_behind_our_back (f, "walk.json", 1.5);
  press_save (f);
  g_assert_false (km_document_get_modified (f->document));
  g_assert_true (test_app_wait_until (item_bar_revealed, f, 10000));
  g_assert_nonnull (test_app_find_label (item_bar (f), "“walk.json” changed on disk."));
}

/* A targets file removed behind our back: the bar says so and offers no Reload. */
static void
test_item_file_deleted (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *path = g_build_filename (f->dir, "walk.json", NULL);
  GtkWidget *reload;

  import_targets (f, "walk.json");
  test_app_spin_for (1000);
  g_assert_false (item_bar_revealed (f));

  g_assert_cmpint (g_unlink (path), ==, 0);
  g_assert_true (test_app_wait_until (item_bar_revealed, f, 10000));
  g_assert_nonnull (test_app_find_label (item_bar (f), "“walk.json” was deleted or moved."));
  g_assert_true (test_app_has_message (f->document, G_LOG_LEVEL_WARNING,
                                       "walk.json was deleted or moved", NULL));
  reload = test_app_find_action (item_bar (f), GTK_TYPE_BUTTON, "win.reload-item-files");
  g_assert_false (gtk_widget_get_visible (reload));

  /* Written again: changed, Reload offered. */
  g_assert_true (km_targets_json_save (km_document_get_targets (f->document), path, NULL));
  change_targets_behind_our_back (f, "walk.json", 1.5);
  g_assert_true (test_app_wait_until (bar_label_says_changed, f, 10000));
  g_assert_true (gtk_widget_get_visible (reload));
  g_signal_emit_by_name (reload, "clicked");
  g_assert_true (test_app_wait_reloaded (km_window_get_item_tree (f->window)));
  test_app_spin ();
  g_assert_cmpfloat (item_second_key_x (f, "walk.json"), ==, 1.5);
  g_assert_false (item_bar_revealed (f));
}

/* The file's time set later, as `touch` does. */
static void
touch (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  guint64 mtime = (guint64) (g_get_real_time () / G_USEC_PER_SEC) + 10;

  g_assert_true (g_file_set_attribute_uint64 (file, G_FILE_ATTRIBUTE_TIME_MODIFIED, mtime,
                                              G_FILE_QUERY_INFO_NONE, NULL, &error));
  g_assert_no_error (error);
}

/* @text written aside and renamed over @path, as editors save: a new file. */
static void
write_over (const char *path,
            const char *text)
{
  g_autofree char *aside = g_strconcat (path, ".new", NULL);

  g_assert_true (g_file_set_contents (aside, text, -1, NULL));
  g_assert_cmpint (g_rename (aside, path), ==, 0);
}

/* The bar is about what an item's file holds, not its time: `touch`, the same bytes saved
 * again (a new file), or the file deleted and put back as it was show nothing; other
 * bytes do. A file shown deleted that comes back as it was is no longer shown. */
static void
test_item_file_same_content (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *path = g_build_filename (f->dir, "walk.json", NULL);
  g_autofree char *ours = NULL;
  g_autofree char *theirs = NULL;

  import_targets (f, "walk.json");
  test_app_spin_for (1000);
  g_assert_false (item_bar_revealed (f));
  ours = read_file (path);

  touch (path);
  test_app_spin_for (1500);
  g_assert_false (item_bar_revealed (f));

  write_over (path, ours);
  touch (path);
  test_app_spin_for (1500);
  g_assert_false (item_bar_revealed (f));

  /* Deleted and written again at once, as it was. */
  g_assert_cmpint (g_unlink (path), ==, 0);
  g_assert_true (g_file_set_contents (path, ours, -1, NULL));
  test_app_spin_for (1500);
  g_assert_false (item_bar_revealed (f));

  /* Deleted a while (the bar says so), then back as it was: nothing to reload. */
  g_assert_cmpint (g_unlink (path), ==, 0);
  g_assert_true (test_app_wait_until (item_bar_revealed, f, 10000));
  g_assert_nonnull (test_app_find_label (item_bar (f), "“walk.json” was deleted or moved."));
  write_over (path, ours);
  g_assert_true (test_app_wait_until (item_bar_hidden, f, 10000));
  test_app_spin_for (1000);
  g_assert_false (item_bar_revealed (f));

  /* Deleted, then written with other bytes: changed. */
  g_assert_cmpint (g_unlink (path), ==, 0);
  g_assert_true (test_app_wait_until (item_bar_revealed, f, 10000));
  theirs = g_strconcat (ours, "\n", NULL);
  write_over (path, theirs);
  g_assert_true (test_app_wait_until (bar_label_says_changed, f, 10000));
  g_assert_cmpfloat (item_second_key_x (f, "walk.json"), ==, 1.0);
}

/* A model file (skeleton.json) the body was read from, touched: no bar; its bytes
 * changed: the bar. */
static void
test_model_file_touched (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree char *path = g_build_filename (f->dir, "skeleton.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autofree char *ours = NULL;
  g_autofree char *theirs = NULL;

  g_assert_true (km_skeleton_json_save (km_document_get_skeleton (f->document), path, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_open_file (f->window, file));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  test_app_spin_for (1000);
  g_assert_false (item_bar_revealed (f));
  ours = read_file (path);

  touch (path);
  test_app_spin_for (1500);
  g_assert_false (item_bar_revealed (f));

  theirs = g_strconcat (ours, "\n", NULL);
  write_over (path, theirs);
  g_assert_true (test_app_wait_until (item_bar_revealed, f, 10000));
  g_assert_nonnull (test_app_find_label (item_bar (f), "“skeleton.json” changed on disk."));
}

/* Undoing a Reload brings back what the file no longer holds: the bar again; Redo what it
 * holds: no bar. */
static void
test_item_file_undo_reload (Fixture       *f,
                            gconstpointer  data)
{
  GtkWidget *reload;

  import_targets (f, "walk.json");
  test_app_spin_for (1000);
  change_targets_behind_our_back (f, "walk.json", 1.5);
  g_assert_true (test_app_wait_until (item_bar_revealed, f, 10000));
  reload = test_app_find_action (item_bar (f), GTK_TYPE_BUTTON, "win.reload-item-files");
  g_signal_emit_by_name (reload, "clicked");
  g_assert_true (test_app_wait_reloaded (km_window_get_item_tree (f->window)));
  test_app_spin ();
  g_assert_cmpfloat (item_second_key_x (f, "walk.json"), ==, 1.5);
  test_app_spin_for (1000);
  g_assert_false (item_bar_revealed (f));

  km_document_undo (f->document);
  g_assert_cmpfloat (item_second_key_x (f, "walk.json"), ==, 1.0);
  g_assert_true (test_app_wait_until (item_bar_revealed, f, 10000));
  g_assert_nonnull (test_app_find_label (item_bar (f), "“walk.json” changed on disk."));

  km_document_redo (f->document);
  g_assert_cmpfloat (item_second_key_x (f, "walk.json"), ==, 1.5);
  g_assert_true (test_app_wait_until (item_bar_hidden, f, 10000));
  test_app_spin_for (1000);
  g_assert_false (item_bar_revealed (f));
}

/* An animation.json opened with File → Open is tied to its file, as imported targets are:
 * the bar shows when another program changes it, and Reload reads it again. */
static void
test_animation_file_bar (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree char *path = g_build_filename (f->dir, "motion.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  KmAnimation *animation = km_document_get_animation (f->document);
  KmItem *body = km_document_get_body_item (f->document);
  KmItem *item = NULL;
  GtkWidget *reload;

  g_assert_nonnull (animation);
  g_assert_true (km_animation_json_save (animation, path, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_open_file (f->window, file));
  for (guint i = 0; i < km_item_get_n_children (body); i++)
    {
      KmItem *child = km_item_get_child (body, i);

      if (KM_IS_IK_ANIMATION_ITEM (child)
          && km_ik_animation_item_get_file (KM_IK_ANIMATION_ITEM (child)) != NULL)
        item = child;
    }
  g_assert_nonnull (item);
  g_assert_true (g_str_has_suffix (km_ik_animation_item_get_file (KM_IK_ANIMATION_ITEM (item)),
                                   "motion.json"));
  g_assert_cmpstr (km_item_get_file (item), !=, NULL);
  test_app_spin_for (1000);
  g_assert_false (item_bar_revealed (f));

  /* Another program writes the file anew (a line end more: other bytes, the same motion). */
  {
    g_autofree char *text = read_file (path);
    g_autofree char *theirs = g_strconcat (text, "\n", NULL);
    g_autofree char *aside = g_strconcat (path, ".new", NULL);

    g_assert_true (g_file_set_contents (aside, theirs, -1, NULL));
    g_assert_cmpint (g_rename (aside, path), ==, 0);
  }
  g_assert_true (test_app_wait_until (item_bar_revealed, f, 10000));
  g_assert_nonnull (test_app_find_label (item_bar (f), "“motion.json” changed on disk."));
  reload = test_app_find_action (item_bar (f), GTK_TYPE_BUTTON, "win.reload-item-files");
  g_signal_emit_by_name (reload, "clicked");
  g_assert_true (test_app_wait_reloaded (km_window_get_item_tree (f->window)));
  test_app_spin ();
  g_assert_false (item_bar_revealed (f));
  g_assert_true (km_item_get_parent (item) == NULL);
}


/* ---- The body's model file ------------------------------------------------------------ */

/* The project saved by the setup, opened again: its body read from skeleton.json beside it. */
static void
reopen (Fixture *f)
{
  g_assert_true (test_app_open_file (f->window, f->file));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_nonnull (km_document_get_skeleton (f->document));
  g_assert_false (km_document_get_modified (f->document));
  test_app_spin_for (500);
}

/* The skeleton.json at @path, or NULL. */
static KmSkeleton *
load_skeleton (const char  *path,
               GError     **error)
{
  g_autofree char *text = NULL;
  gsize length = 0;

  if (!g_file_get_contents (path, &text, &length, error))
    return NULL;
  return km_skeleton_json_load (path, text, length, error);
}

/* Whether @path holds the document's skeleton. */
static gboolean
holds_skeleton (Fixture    *f,
                const char *path)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) read = load_skeleton (path, &error);

  return read != NULL
         && km_skeleton_equal (read, km_document_get_skeleton (f->document), 1e-9);
}

/* The Elbow of @path (the example's model) moved to @z, as another program writes it:
 * aside, then renamed over it. */
static void
change_elbow_behind_our_back (const char *path,
                              double      z)
{
  g_autofree char *aside = g_strconcat (path, ".new", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skeleton = load_skeleton (path, &error);
  g_autoptr(KmSkeleton) theirs = NULL;
  int elbow;

  g_assert_no_error (error);
  elbow = km_skeleton_find_joint (skeleton, "Elbow");
  g_assert_cmpint (elbow, >=, 0);
  theirs = km_skeleton_edit_set_offset (skeleton, (guint) elbow, km_vec3 (0, 0, z), &error);
  g_assert_no_error (error);
  g_assert_true (km_skeleton_json_save (theirs, aside, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_rename (aside, path), ==, 0);
}

/* The body's skeleton.json deleted, or moved away, behind our back: Save writes the
 * skeleton the window shows back to it, with the project, and says so; the project reopens
 * with its body whole. */
static void
test_save_restores_model (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *model = g_build_filename (f->dir, "skeleton.json", NULL);
  g_autofree char *moved = g_build_filename (f->dir, "moved.json", NULL);
  g_autofree char *text = NULL;
  g_autofree char *theirs = NULL;
  guint n_dof;

  reopen (f);
  n_dof = km_skeleton_get_n_dof (km_document_get_skeleton (f->document));
  g_assert_cmpuint (n_dof, >, 0);
  g_assert_true (holds_skeleton (f, model));

  g_assert_cmpint (g_unlink (model), ==, 0);
  g_assert_true (test_app_wait_until (item_bar_revealed, f, 10000));
  press_save (f);
  g_assert_false (km_document_get_modified (f->document));
  g_assert_true (holds_skeleton (f, model));
  text = read_file (f->path);
  g_assert_nonnull (strstr (text, "file: \"skeleton.json\""));
  g_assert_true (test_app_has_message (f->document, G_LOG_LEVEL_INFO, "was missing",
                                       "skeleton.json", NULL));
  /* The file is back: the deleted bar goes. */
  g_assert_true (test_app_wait_until (item_bar_hidden, f, 10000));

  /* Reopened: the body, its joints and its motion. */
  reopen (f);
  g_assert_cmpuint (km_skeleton_get_n_dof (km_document_get_skeleton (f->document)), ==, n_dof);
  g_assert_nonnull (km_document_get_animation (f->document));

  /* Moved: the file goes back where the project says; the moved one is left as it is. */
  g_assert_cmpint (g_rename (model, moved), ==, 0);
  theirs = read_file (moved);
  g_assert_true (test_app_wait_until (item_bar_revealed, f, 10000));
  press_save (f);
  g_assert_true (holds_skeleton (f, model));
  g_clear_pointer (&text, g_free);
  text = read_file (moved);
  g_assert_cmpstr (text, ==, theirs);
  g_clear_pointer (&text, g_free);
  text = read_file (f->path);
  g_assert_nonnull (strstr (text, "file: \"skeleton.json\""));
  g_assert_null (strstr (text, "moved.json"));
  reopen (f);
  g_assert_cmpuint (km_skeleton_get_n_dof (km_document_get_skeleton (f->document)), ==, n_dof);
  g_unlink (moved);
}

/* How often @needle is in @text. */
static guint
count_of (const char *text,
          const char *needle)
{
  guint n = 0;

  for (const char *at = strstr (text, needle); at != NULL; at = strstr (at + 1, needle))
    n++;
  return n;
}

/* The Choreonoid SR1 model with a comment of the user's added, and a project referring
 * to it, in the fixture's folder, opened: the review rev23-gui, finding 1. Returns the
 * model's path and text. */
static char *
open_sr1_project (Fixture  *f,
                  char    **model_text)
{
  g_autofree char *from = g_test_build_filename (G_TEST_DIST, "data", "choreonoid", "SR1.body",
                                                 NULL);
  g_autofree char *model = g_build_filename (f->dir, "SR1.body", NULL);
  g_autofree char *project = g_build_filename (f->dir, "sr1.cnoid", NULL);
  g_autoptr(GFile) project_file = g_file_new_for_path (project);
  g_autofree char *original = read_file (from);
  g_autoptr(GString) text = g_string_new (original);

  g_assert_cmpuint (g_string_replace (text, "\nlinks:\n",
                                      "\n# The user's note: SR1 as Choreonoid 2.5 ships it\n"
                                      "links:\n", 1), ==, 1);
  g_assert_true (g_file_set_contents (model, text->str, text->len, NULL));
  g_assert_true (g_file_set_contents (project,
                                      "items:\n"
                                      "  id: 0\n"
                                      "  name: \"RootItem\"\n"
                                      "  plugin: Base\n"
                                      "  class: RootItem\n"
                                      "  is_builtin_item: true\n"
                                      "  children:\n"
                                      "    -\n"
                                      "      id: 1\n"
                                      "      name: \"SR1\"\n"
                                      "      plugin: Body\n"
                                      "      class: BodyItem\n"
                                      "      is_checked: true\n"
                                      "      data:\n"
                                      "        file: \"SR1.body\"\n"
                                      "        format: CHOREONOID-BODY\n", -1, NULL));
  g_assert_true (test_app_open_file (f->window, project_file));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_cmpstr (km_item_get_name (km_document_get_body_item (f->document)), ==, "SR1");
  g_assert_false (km_document_get_modified (f->document));
  test_app_spin_for (500);
  *model_text = g_string_free (g_steal_pointer (&text), FALSE);
  return g_steal_pointer (&model);
}

/* The offset of @joint of the document's skeleton moved to @offset, as the Skeleton tab
 * does. */
static void
edit_joint_offset (Fixture    *f,
                   const char *joint,
                   KmVec3      offset)
{
  KmSkeleton *skeleton = km_document_get_skeleton (f->document);
  int index = km_skeleton_find_joint (skeleton, joint);
  g_autoptr(KmSkeleton) edited = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (index, >=, 0);
  edited = km_skeleton_edit_set_offset (skeleton, (guint) index, offset, &error);
  g_assert_no_error (error);
  g_assert_true (km_document_edit_skeleton (f->document, edited, "Offset", NULL));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
}

/* A .body model deleted behind our back, then the skeleton edited and saved: the model
 * file written again is the text it held when read, with the edit: its mass, inertia,
 * sensors, anchors and the user's comment are still there (not the skeleton alone). */
static void
test_save_restores_body_model (Fixture       *f,
                               gconstpointer  data)
{
  g_autofree char *original = NULL;
  g_autofree char *model = open_sr1_project (f, &original);
  g_autofree char *project = g_build_filename (f->dir, "sr1.cnoid", NULL);
  g_autoptr(GFile) project_file = g_file_new_for_path (project);
  g_autofree char *text = NULL;
  KmSkeleton *skeleton;
  int elbow;

  g_assert_cmpuint (count_of (original, "mass:"), ==, 60);
  g_assert_cmpuint (count_of (original, "inertia:"), ==, 30);

  g_assert_cmpint (g_unlink (model), ==, 0);
  g_assert_true (test_app_wait_until (item_bar_revealed, f, 10000));
  edit_joint_offset (f, "RARM_ELBOW", km_vec3 (0, 0, -0.25));
  press_save (f);
  g_assert_false (km_document_get_modified (f->document));
  g_assert_true (test_app_has_message (f->document, G_LOG_LEVEL_INFO, "was missing",
                                       "SR1.body", NULL));

  text = read_file (model);
  g_assert_cmpuint (count_of (text, "mass:"), ==, 60);
  g_assert_cmpuint (count_of (text, "inertia:"), ==, 30);
  g_assert_nonnull (strstr (text, "# The user's note: SR1 as Choreonoid 2.5 ships it\n"));
  g_assert_nonnull (strstr (text, "type: AccelerationSensor"));
  g_assert_nonnull (strstr (text, "type: ForceSensor"));
  g_assert_nonnull (strstr (text, "elements: &CameraShape"));

  /* Reopened: the edit is in it. */
  g_assert_true (test_app_open_file (f->window, project_file));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  skeleton = km_document_get_skeleton (f->document);
  elbow = km_skeleton_find_joint (skeleton, "RARM_ELBOW");
  g_assert_cmpint (elbow, >=, 0);
  g_assert_cmpfloat_with_epsilon (km_skeleton_get_joint (skeleton, (guint) elbow)->offset.z,
                                  -0.25, 1e-12);
}

/* The Choreonoid SR1 model in @f's folder as a Choreonoid share has it (share/model/SR1/)
 * and a project in share/project/ referring to it as @reference (through ${SHARE}, or
 * relative to the project), opened: the review rev26-robust, findings 1 and 2. Returns the
 * model's path; @project its project's. */
static char *
open_share_project (Fixture     *f,
                    const char  *reference,
                    char       **project)
{
  g_autofree char *from = g_test_build_filename (G_TEST_DIST, "data", "choreonoid", "SR1.body",
                                                 NULL);
  g_autofree char *model_dir = g_build_filename (f->dir, "share", "model", "SR1", NULL);
  g_autofree char *project_dir = g_build_filename (f->dir, "share", "project", NULL);
  g_autofree char *model = g_build_filename (model_dir, "SR1.body", NULL);
  g_autofree char *text = read_file (from);
  g_autofree char *cnoid = NULL;
  g_autoptr(GFile) project_file = NULL;

  g_assert_cmpint (g_mkdir_with_parents (model_dir, 0700), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (project_dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (model, text, -1, NULL));
  *project = g_build_filename (project_dir, "real.cnoid", NULL);
  cnoid = g_strdup_printf ("items:\n"
                           "  id: 0\n"
                           "  name: \"RootItem\"\n"
                           "  plugin: Base\n"
                           "  class: RootItem\n"
                           "  is_builtin_item: true\n"
                           "  children:\n"
                           "    -\n"
                           "      id: 1\n"
                           "      name: \"SR1\"\n"
                           "      plugin: Body\n"
                           "      class: BodyItem\n"
                           "      is_checked: true\n"
                           "      data:\n"
                           "        file: \"%s\"\n"
                           "        format: CHOREONOID-BODY\n", reference);
  g_assert_true (g_file_set_contents (*project, cnoid, -1, NULL));
  project_file = g_file_new_for_path (*project);
  g_assert_true (test_app_open_file (f->window, project_file));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_cmpstr (km_item_get_name (km_document_get_body_item (f->document)), ==, "SR1");
  g_assert_false (km_document_get_modified (f->document));
  test_app_spin_for (500);
  return g_steal_pointer (&model);
}

/* A joint value changed (nothing structural): the project is modified. */
static void
change_joint_value (Fixture *f)
{
  guint n = km_skeleton_get_n_dof (km_document_get_skeleton (f->document));
  g_autofree double *q = g_new0 (double, n);

  g_assert_cmpuint (n, >, 0);
  q[0] = 0.25;
  km_document_set_joint_values (f->document, q, n);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_true (km_document_get_modified (f->document));
}

/* The SR1 model, in another folder than the project, moved away by another program, then a
 * joint value changed and Save: the model is written again where the project names it (the
 * text it held, its masses too), the project still names it there, and no copy goes beside
 * the project. Both through ${SHARE} (@data "${SHARE}/…") and relative to the project. */
static void
test_save_restores_model_elsewhere (Fixture       *f,
                                    gconstpointer  data)
{
  const char *reference = data;
  g_autofree char *project = NULL;
  g_autofree char *model = open_share_project (f, reference, &project);
  g_autofree char *moved = g_strconcat (model, ".moved", NULL);
  g_autofree char *project_dir = g_path_get_dirname (project);
  g_autofree char *beside = g_build_filename (project_dir, "SR1.body", NULL);
  g_autofree char *text = NULL;
  g_autofree char *reference_line = g_strdup_printf ("file: \"%s\"", reference);

  g_assert_cmpint (g_rename (model, moved), ==, 0);
  g_assert_true (test_app_wait_until (item_bar_revealed, f, 10000));
  change_joint_value (f);
  press_save (f);
  g_assert_false (km_document_get_modified (f->document));

  g_assert_false (g_file_test (beside, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (model, G_FILE_TEST_IS_REGULAR));
  text = read_file (model);
  g_assert_cmpuint (count_of (text, "mass:"), ==, 60);
  g_clear_pointer (&text, g_free);
  text = read_file (project);
  g_assert_nonnull (strstr (text, reference_line));
  g_assert_null (strstr (text, "file: \"SR1.body\""));
  g_assert_true (test_app_has_message (f->document, G_LOG_LEVEL_INFO, "was missing",
                                       model, NULL));
  g_assert_false (test_app_has_message (f->document, G_LOG_LEVEL_INFO, "saved as", NULL));
  g_unlink (moved);
}

/* The model's folder renamed too (an unmounted share): Save writes nothing, neither a copy
 * beside the project nor the project, and says why, naming the model; the document stays
 * modified. */
static void
test_save_model_folder_gone (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *project = NULL;
  g_autofree char *model = open_share_project (f, "${SHARE}/model/SR1/SR1.body", &project);
  g_autofree char *model_dir = g_path_get_dirname (model);
  g_autofree char *renamed = g_strconcat (model_dir, "-renamed", NULL);
  g_autofree char *project_dir = g_path_get_dirname (project);
  g_autofree char *beside = g_build_filename (project_dir, "SR1.body", NULL);
  g_autofree char *before = read_file (project);
  g_autofree char *after = NULL;
  g_autoptr(GFile) project_file = g_file_new_for_path (project);
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_rename (model_dir, renamed), ==, 0);
  test_app_spin_for (500);
  change_joint_value (f);
  g_assert_false (km_document_save (f->document, project_file, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, model));
  g_assert_true (km_document_get_modified (f->document));
  g_assert_false (g_file_test (beside, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (model, G_FILE_TEST_EXISTS));
  after = read_file (project);
  g_assert_cmpstr (after, ==, before);

  /* The folder back: Save writes the model in it again. */
  g_assert_cmpint (g_rename (renamed, model_dir), ==, 0);
  g_clear_error (&error);
  g_assert_true (km_document_save (f->document, project_file, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_test (model, G_FILE_TEST_IS_REGULAR));
  g_assert_false (g_file_test (beside, G_FILE_TEST_EXISTS));
}

/* The project's own folder renamed while open (the share with it), then Save over the
 * deleted file: the error names the project's file and folder, not a file the project never
 * referred to (share/project/SR1.body), and nothing is written. */
static void
test_save_project_folder_gone (Fixture       *f,
                               gconstpointer  data)
{
  g_autofree char *project = NULL;
  g_autofree char *model = open_share_project (f, "${SHARE}/model/SR1/SR1.body", &project);
  g_autofree char *share = g_build_filename (f->dir, "share", NULL);
  g_autofree char *renamed = g_build_filename (f->dir, "share-renamed", NULL);
  g_autofree char *project_dir = g_path_get_dirname (project);
  g_autoptr(GFile) project_file = g_file_new_for_path (project);
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_rename (share, renamed), ==, 0);
  change_joint_value (f);
  /* Said first: the project's file was deleted or moved. Save writes it there again. */
  g_assert_false (km_document_save (f->document, project_file, &error));
  g_assert_error (error, KM_DOCUMENT_ERROR, KM_DOCUMENT_ERROR_DELETED_ON_DISK);
  g_clear_error (&error);
  km_document_accept_disk_conflict (f->document);
  g_assert_false (km_document_save (f->document, project_file, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, project));
  g_assert_nonnull (strstr (error->message, project_dir));
  g_assert_null (strstr (error->message, "SR1.body"));
  g_assert_true (km_document_get_modified (f->document));
  g_assert_false (g_file_test (share, G_FILE_TEST_EXISTS));
}

/* How many files in @dir have names starting with @prefix. */
static guint
count_files (const char *dir,
             const char *prefix)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  guint n = 0;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    if (g_str_has_prefix (name, prefix))
      n++;
  return n;
}

/* The temporary file a save writes a skeleton.json of the user's to, before it replaces
 * it, is one a signal that ends the program removes (km_format_register_temporary), and
 * forgotten once the save is over. */
static void
test_save_temporary_registered (Fixture       *f,
                                gconstpointer  data)
{
  g_autofree char *model = g_build_filename (f->dir, "skeleton.json", NULL);
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  KmEditedSkeletons *edited;

  reopen (f);
  before = read_file (model);
  edit_joint_offset (f, "Elbow", km_vec3 (0, 0, 1.5));
  /* As a save does on its worker, up to the project's write. */
  edited = _km_document_take_edited_skeletons (f->document, f->path);
  g_assert_nonnull (edited);
  g_assert_true (_km_edited_skeletons_write (edited, warnings, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (count_files (f->dir, "skeleton.json."), ==, 1);
  /* What the signal handler does: the temporary file goes, the user's file stays. */
  g_assert_cmpuint (km_format_remove_temporary_files (), ==, 1);
  g_assert_cmpuint (count_files (f->dir, "skeleton.json."), ==, 0);
  after = read_file (model);
  g_assert_cmpstr (after, ==, before);
  _km_edited_skeletons_abort (edited);
  _km_document_edited_skeletons_done (f->document, edited, FALSE);
  _km_edited_skeletons_free (edited);
  g_assert_true (km_document_get_modified (f->document));

  /* A save that completes forgets it: nothing left for a signal to remove. */
  press_save (f);
  g_assert_false (km_document_get_modified (f->document));
  g_assert_cmpuint (km_format_remove_temporary_files (), ==, 0);
  g_assert_true (holds_skeleton (f, model));
}

/* A save that writes the project but then cannot replace the edited skeleton.json it
 * writes back (another program put a folder in its place while the save ran; a read-only
 * file system does the same): the error names the model file and says the project was
 * saved; the project's file is the document's as written (the next Save does not take it
 * for another program's change) and the document stays modified, the body edited, so that
 * the next save writes the model, which it does once it can. */
static void
test_save_model_not_replaced (Fixture       *f,
                              gconstpointer  data)
{
  g_autofree char *model = g_build_filename (f->dir, "skeleton.json", NULL);
  g_autofree char *identity = NULL;
  g_autoptr(GError) error = NULL;

  reopen (f);
  edit_joint_offset (f, "Elbow", km_vec3 (0, 0, 1.5));
  g_assert_true (km_document_get_modified (f->document));
  /* Where the skeleton.json was, a folder: written beside it, it cannot replace it. */
  g_assert_cmpint (g_unlink (model), ==, 0);
  g_assert_cmpint (g_mkdir (model, 0700), ==, 0);

  g_assert_false (km_document_save (f->document, f->file, &error));
  g_assert_error (error, KM_DOCUMENT_ERROR, KM_DOCUMENT_ERROR_MODELS_NOT_SAVED);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "The project was saved"));
  g_assert_nonnull (strstr (error->message, model));
  g_assert_true (g_file_test (model, G_FILE_TEST_IS_DIR));
  g_assert_cmpuint (count_files (f->dir, "skeleton.json."), ==, 0);
  /* The file written is the document's, as written. */
  identity = km_document_query_file_identity (f->file, NULL);
  g_assert_nonnull (identity);
  g_assert_cmpstr (km_document_get_file_identity (f->document), ==, identity);
  g_assert_true (g_file_equal (km_document_get_file (f->document), f->file));
  g_assert_true (km_document_get_modified (f->document));

  /* The folder gone: Save asks nothing, and writes the model. */
  g_assert_cmpint (g_rmdir (model), ==, 0);
  g_clear_error (&error);
  g_assert_true (km_document_save (f->document, f->file, &error));
  g_assert_no_error (error);
  g_assert_true (holds_skeleton (f, model));
  g_assert_false (km_document_get_modified (f->document));
}

/* Writes the example's skeleton.json (in @f's folder) to @path with a key Kinema does not
 * interpret, "comment": the user's note. */
static void
write_json_with_note (Fixture    *f,
                      const char *path)
{
  g_autofree char *model = g_build_filename (f->dir, "skeleton.json", NULL);
  g_autofree char *text = read_file (model);
  g_autoptr(GString) theirs = g_string_new (text);

  g_assert_cmpuint (g_string_replace (theirs, "{\n",
                                      "{\n  \"comment\": \"the user's note\",\n", 1), ==, 1);
  g_assert_true (g_file_set_contents (path, theirs->str, theirs->len, NULL));
}

/* The same for a skeleton.json with a key Kinema does not interpret: written again with it. */
static void
test_save_restores_json_unknown_keys (Fixture       *f,
                                      gconstpointer  data)
{
  g_autofree char *model = g_build_filename (f->dir, "skeleton.json", NULL);
  g_autofree char *text = NULL;

  write_json_with_note (f, model);
  reopen (f);

  g_assert_cmpint (g_unlink (model), ==, 0);
  g_assert_true (test_app_wait_until (item_bar_revealed, f, 10000));
  edit_joint_offset (f, "Elbow", km_vec3 (0, 0, 1.5));
  press_save (f);
  g_assert_false (km_document_get_modified (f->document));
  g_assert_true (holds_skeleton (f, model));
  text = read_file (model);
  g_assert_nonnull (strstr (text, "\"comment\": \"the user's note\""));
}

/* The same for a model opened on its own (an import, not a project's body) and deleted
 * before it was ever saved: the project saved then writes it again with its other keys. */
static void
test_save_restores_imported_json_keys (Fixture       *f,
                                       gconstpointer  data)
{
  g_autofree char *imported = g_build_filename (f->dir, "imported.json", NULL);
  g_autofree char *project = g_build_filename (f->dir, "imported.cnoid", NULL);
  g_autoptr(GFile) imported_file = g_file_new_for_path (imported);
  g_autoptr(GFile) project_file = g_file_new_for_path (project);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  write_json_with_note (f, imported);
  g_assert_true (test_app_open_file (f->window, imported_file));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_true (holds_skeleton (f, imported));

  g_assert_cmpint (g_unlink (imported), ==, 0);
  edit_joint_offset (f, "Elbow", km_vec3 (0, 0, 1.5));
  g_assert_true (km_document_save (f->document, project_file, &error));
  g_assert_no_error (error);
  g_assert_true (holds_skeleton (f, imported));
  text = read_file (imported);
  g_assert_nonnull (strstr (text, "\"comment\": \"the user's note\""));
}

/* After Save As of the built-in example (the setup's), its body refers to the skeleton.json
 * written beside the project, as when the project is reopened: a skeleton edit is written
 * back to it (no skeleton-2.json), and another program's change of it shows the bar. */
static void
test_saved_example_model_linked (Fixture       *f,
                                 gconstpointer  data)
{
  g_autofree char *model = g_build_filename (f->dir, "skeleton.json", NULL);
  g_autofree char *copy = g_build_filename (f->dir, "skeleton-2.json", NULL);
  g_autofree char *text = NULL;
  g_autoptr(KmSkeleton) edited = NULL;
  g_autoptr(GError) error = NULL;
  KmSkeleton *skeleton = km_document_get_skeleton (f->document);
  int elbow = km_skeleton_find_joint (skeleton, "Elbow");

  g_assert_true (holds_skeleton (f, model));
  test_app_spin_for (500);
  g_assert_false (item_bar_revealed (f));

  g_assert_cmpint (elbow, >=, 0);
  edited = km_skeleton_edit_set_offset (skeleton, (guint) elbow, km_vec3 (0, 0, 1.5), &error);
  g_assert_no_error (error);
  g_assert_true (km_document_edit_skeleton (f->document, edited, "Offset", NULL));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  press_save (f);
  g_assert_false (km_document_get_modified (f->document));
  g_assert_false (g_file_test (copy, G_FILE_TEST_EXISTS));
  g_assert_true (holds_skeleton (f, model));
  text = read_file (f->path);
  g_assert_nonnull (strstr (text, "file: \"skeleton.json\""));
  g_assert_null (strstr (text, "skeleton-2.json"));
  test_app_spin_for (1500);
  g_assert_false (item_bar_revealed (f));

  change_elbow_behind_our_back (model, 1.2);
  g_assert_true (test_app_wait_until (item_bar_revealed, f, 10000));
  g_assert_nonnull (test_app_find_label (item_bar (f), "“skeleton.json” changed on disk."));
}

/* A skeleton.json changed on disk and read again (the bar's Reload): the body's motion,
 * solved for the model of before, is solved again for the new one (the effector on its
 * targets); undo brings back the model and the motion of before, redo the new ones. */
static void
test_reload_model_resolves (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *model = g_build_filename (f->dir, "skeleton.json", NULL);
  g_autoptr(KmAnimation) before = NULL;
  g_autoptr(KmAnimation) solved = NULL;
  KmSkeleton *old_skeleton;
  KmAnimation *animation;
  GtkWidget *reload;

  reopen (f);
  old_skeleton = km_document_get_skeleton (f->document);
  animation = km_document_get_animation (f->document);
  g_assert_nonnull (animation);
  g_assert_true (km_animation_get_skeleton (animation) == NULL
                 || km_skeleton_equal (km_animation_get_skeleton (animation), old_skeleton,
                                       1e-9));
  before = km_animation_copy (animation);

  change_elbow_behind_our_back (model, 1.2);
  g_assert_true (test_app_wait_until (item_bar_revealed, f, 10000));
  reload = test_app_find_action (item_bar (f), GTK_TYPE_BUTTON, "win.reload-item-files");
  g_signal_emit_by_name (reload, "clicked");
  g_assert_true (test_app_wait_reloaded (km_window_get_item_tree (f->window)));
  test_app_spin ();
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_false (km_skeleton_equal (km_document_get_skeleton (f->document), old_skeleton,
                                     1e-9));
  animation = km_document_get_animation (f->document);
  g_assert_nonnull (animation);
  g_assert_false (km_animation_equal (animation, before, 1e-9));
  g_assert_nonnull (km_animation_get_skeleton (animation));
  g_assert_true (km_skeleton_equal (km_animation_get_skeleton (animation),
                                    km_document_get_skeleton (f->document), 1e-9));
  g_assert_true (km_document_get_modified (f->document));
  solved = km_animation_copy (animation);

  /* One step: the model and the motion of before, then the new ones again. */
  km_document_undo (f->document);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_true (km_skeleton_equal (km_document_get_skeleton (f->document), old_skeleton,
                                    1e-9));
  g_assert_true (km_animation_equal (km_document_get_animation (f->document), before, 1e-9));
  km_document_redo (f->document);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_true (km_animation_equal (km_document_get_animation (f->document), solved, 1e-9));
}

/* The project reopened (its body read from the skeleton.json beside it), then another
 * program changes that file (the Elbow moved, a key Kinema does not interpret added), the
 * bar for it dismissed with ×, and the body's skeleton edited in the window (Elbow offset):
 * a save would write the file back. Returns the text the other program left. */
static char *
change_model_before_save (Fixture    *f,
                          const char *model)
{
  g_autofree char *text = NULL;
  g_autoptr(GString) theirs = NULL;

  reopen (f);
  change_elbow_behind_our_back (model, 1.2);
  text = read_file (model);
  theirs = g_string_new (text);
  g_assert_cmpuint (g_string_replace (theirs, "{\n", "{\n  \"their_note\": 2,\n", 1), ==, 1);
  g_assert_true (g_file_set_contents (model, theirs->str, theirs->len, NULL));
  g_assert_true (test_app_wait_until (item_bar_revealed, f, 10000));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window),
                                             "win.dismiss-item-files-change", NULL));
  g_assert_false (item_bar_revealed (f));
  edit_joint_offset (f, "Elbow", km_vec3 (0, 0, 1.5));
  g_assert_true (km_document_get_modified (f->document));
  return g_string_free (g_steal_pointer (&theirs), FALSE);
}

/* The Elbow's offset z in the skeleton.json at @path. */
static double
elbow_z (const char *path)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skeleton = load_skeleton (path, &error);
  int elbow;

  g_assert_no_error (error);
  elbow = km_skeleton_find_joint (skeleton, "Elbow");
  g_assert_cmpint (elbow, >=, 0);
  return km_skeleton_get_joint (skeleton, (guint) elbow)->offset.z;
}

/* A model file another program changed since it was read: Save asks as for the project's
 * file, naming it; Cancel writes nothing (the model and the project stay as they are, the
 * document modified), and the next Save asks again. */
static void
test_model_file_asks (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *model = g_build_filename (f->dir, "skeleton.json", NULL);
  g_autofree char *theirs = change_model_before_save (f, model);
  g_autofree char *project = read_file (f->path);
  g_autofree char *after = NULL;
  g_autofree char *project_after = NULL;
  g_autofree char *again = NULL;

  press_save (f);
  gtk_dialog_response (question_saying (f, "“skeleton.json” has changed on disk since Kinema "
                                           "last read or saved it."),
                       GTK_RESPONSE_CANCEL);
  g_assert_null (km_window_get_question (f->window));
  after = read_file (model);
  g_assert_cmpstr (after, ==, theirs);
  project_after = read_file (f->path);
  g_assert_cmpstr (project_after, ==, project);
  g_assert_true (km_document_get_modified (f->document));
  g_assert_cmpfloat (km_skeleton_get_joint (km_document_get_skeleton (f->document),
                                            (guint) km_skeleton_find_joint (
                                              km_document_get_skeleton (f->document), "Elbow"))
                       ->offset.z, ==, 1.5);

  press_save (f);
  again = read_file (model);
  g_assert_cmpstr (again, ==, theirs);
  gtk_dialog_response (question_saying (f, "“skeleton.json” has changed on disk"),
                       GTK_RESPONSE_CANCEL);
  g_assert_true (km_document_get_modified (f->document));
}

/* Overwrite writes the user's version of the model over theirs (not even the keys Kinema
 * does not read come from theirs); the next Save asks nothing. */
static void
test_model_file_overwrite (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *model = g_build_filename (f->dir, "skeleton.json", NULL);
  g_autofree char *theirs = change_model_before_save (f, model);

  press_save (f);
  gtk_dialog_response (question_saying (f, "“skeleton.json” has changed on disk"),
                       GTK_RESPONSE_ACCEPT);
  g_assert_true (test_app_wait_saved (f->window));
  test_app_spin ();
  g_assert_null (km_window_get_question (f->window));
  g_assert_false (km_document_get_modified (f->document));
  g_assert_true (holds_skeleton (f, model));
  g_assert_cmpfloat (elbow_z (model), ==, 1.5);
  /* The user's version whole: no half of theirs (a key they added) folded in. */
  {
    g_autofree char *text = NULL;

    g_assert_true (g_file_get_contents (model, &text, NULL, NULL));
    g_assert_null (strstr (text, "their_note"));
  }

  /* Our own write: no question after it. */
  edit_joint_offset (f, "Elbow", km_vec3 (0, 0, 1.75));
  press_save (f);
  g_assert_null (km_window_get_question (f->window));
  g_assert_false (km_document_get_modified (f->document));
  g_assert_cmpfloat (elbow_z (model), ==, 1.75);
}

/* Reload reads their model (one undoable step, the edit dropped); no file is written, and
 * the next Save writes over what was read without asking. */
static void
test_model_file_reload (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *model = g_build_filename (f->dir, "skeleton.json", NULL);
  g_autofree char *theirs = change_model_before_save (f, model);
  g_autofree char *project = read_file (f->path);
  g_autofree char *after = NULL;
  g_autofree char *project_after = NULL;
  g_autofree char *text = NULL;

  press_save (f);
  gtk_dialog_response (question_saying (f, "“skeleton.json” has changed on disk"),
                       GTK_RESPONSE_REJECT);
  g_assert_true (test_app_wait_reloaded (km_window_get_item_tree (f->window)));
  test_app_spin ();
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_null (km_window_get_question (f->window));
  g_assert_true (holds_skeleton (f, model));
  after = read_file (model);
  g_assert_cmpstr (after, ==, theirs);
  project_after = read_file (f->path);
  g_assert_cmpstr (project_after, ==, project);

  edit_joint_offset (f, "Elbow", km_vec3 (0, 0, 1.75));
  press_save (f);
  g_assert_null (km_window_get_question (f->window));
  g_assert_false (km_document_get_modified (f->document));
  g_assert_cmpfloat (elbow_z (model), ==, 1.75);
  /* (their other key stays: it was in the version read) */
  text = read_file (model);
  g_assert_nonnull (strstr (text, "\"their_note\": 2"));
}

/* Another program changes the model file at @model (the Elbow moved), the bar for it is
 * dismissed, and the current body's skeleton is edited (Elbow offset): a save would write
 * the file back. Returns the text the other program left. */
static char *
change_model_then_edit (Fixture    *f,
                        const char *model)
{
  change_elbow_behind_our_back (model, 1.2);
  g_assert_true (test_app_wait_until (item_bar_revealed, f, 10000));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window),
                                             "win.dismiss-item-files-change", NULL));
  edit_joint_offset (f, "Elbow", km_vec3 (0, 0, 1.5));
  g_assert_true (km_document_get_modified (f->document));
  return read_file (model);
}

/* Save asks about @model (theirs: @theirs); Cancel leaves it theirs. */
static void
save_asks_about_model (Fixture    *f,
                       const char *model,
                       const char *theirs)
{
  g_autofree char *name = g_path_get_basename (model);
  g_autofree char *text = g_strdup_printf ("“%s” has changed on disk since Kinema last read "
                                           "or saved it.", name);
  g_autofree char *after = NULL;

  press_save (f);
  gtk_dialog_response (question_saying (f, text), GTK_RESPONSE_CANCEL);
  g_assert_null (km_window_get_question (f->window));
  after = read_file (model);
  g_assert_cmpstr (after, ==, theirs);
  g_assert_true (km_document_get_modified (f->document));
}

/* The built-in example saved as skeleton.json (the setup's Save As), not reopened: its
 * model file is checked like one read. */
static void
test_model_file_saved_example (Fixture       *f,
                               gconstpointer  data)
{
  g_autofree char *model = g_build_filename (f->dir, "skeleton.json", NULL);
  g_autofree char *theirs = NULL;

  test_app_spin_for (500);
  theirs = change_model_then_edit (f, model);
  save_asks_about_model (f, model, theirs);
}

/* Duplicates @document's current body and makes the copy current; returns the copy. */
static KmItem *
duplicate_current_body (KmDocument *document)
{
  g_autoptr(GPtrArray) items = g_ptr_array_new ();
  KmItem *body = km_document_get_body_item (document);
  KmItem *copy;

  g_ptr_array_add (items, body);
  km_document_duplicate_items (document, items);
  copy = km_item_get_child (km_item_get_parent (body), (guint) km_item_get_index (body) + 1);
  g_assert_true (KM_IS_BODY_ITEM (copy));
  km_document_set_current_body (document, copy);
  g_assert_true (test_app_wait_idle_solve (document, 20000));
  g_assert_true (km_document_get_body_item (document) == copy);
  return copy;
}

/* The body duplicated (both refer to skeleton.json); the copy's skeleton edited after
 * another program changed the file: checked like the original's. */
static void
test_model_file_duplicate (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *model = g_build_filename (f->dir, "skeleton.json", NULL);
  g_autofree char *theirs = NULL;

  reopen (f);
  duplicate_current_body (f->document);
  test_app_spin_for (500);
  theirs = change_model_then_edit (f, model);
  save_asks_about_model (f, model, theirs);
}

/* The body duplicated after another program changed its file: the original, read before
 * that change, is still checked against what it was read from. */
static void
test_model_file_duplicate_after_change (Fixture       *f,
                                        gconstpointer  data)
{
  g_autofree char *model = g_build_filename (f->dir, "skeleton.json", NULL);
  g_autoptr(GPtrArray) items = g_ptr_array_new ();
  g_autofree char *theirs = NULL;
  KmItem *body;

  reopen (f);
  body = km_document_get_body_item (f->document);
  change_elbow_behind_our_back (model, 1.2);
  g_assert_true (test_app_wait_until (item_bar_revealed, f, 10000));
  theirs = read_file (model);
  g_ptr_array_add (items, body);
  km_document_duplicate_items (f->document, items);
  test_app_spin_for (500);
  g_assert_true (km_document_get_body_item (f->document) == body);
  edit_joint_offset (f, "Elbow", km_vec3 (0, 0, 1.5));
  save_asks_about_model (f, model, theirs);
}

/* A body inside a sub-project in a folder of its own (part/part.cnoid, its model
 * part/arm.json), its skeleton.json changed by another program: checked like one of the
 * project's own. */
static void
test_model_file_sub_project (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *part_dir = g_build_filename (f->dir, "part", NULL);
  g_autofree char *main_path = g_build_filename (f->dir, "main.cnoid", NULL);
  g_autoptr(GFile) main_file = g_file_new_for_path (main_path);
  g_autofree char *model = g_build_filename (part_dir, "arm.json", NULL);
  g_autofree char *theirs = NULL;

  g_assert_cmpint (g_mkdir (part_dir, 0700), ==, 0);
  test_app_copy_arm_project (part_dir, "part.cnoid");
  test_app_write_sub_project_main (main_path, "part/part.cnoid", NULL);
  g_assert_true (test_app_open_file (f->window, main_file));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_cmpstr (km_item_get_name (km_document_get_body_item (f->document)), ==, "Arm");
  test_app_spin_for (500);
  theirs = change_model_then_edit (f, model);
  save_asks_about_model (f, model, theirs);
}

typedef struct
{
  gboolean    done;
  const char *model;   /* changed by another program once read, before the load is applied */
} OpenedNow;

static void
recovered_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  gboolean *done = user_data;
  g_autoptr(GError) error = NULL;

  g_assert_true (km_document_recover_finish (KM_DOCUMENT (source), result, &error));
  g_assert_no_error (error);
  *done = TRUE;
}

static void
opened_then_changed_cb (GObject      *source,
                        GAsyncResult *result,
                        gpointer      user_data)
{
  OpenedNow *opened = user_data;
  g_autoptr(GError) error = NULL;

  /* The worker has read the file; the load is not applied yet, nothing has looked at the
   * file again. */
  change_elbow_behind_our_back (opened->model, 1.2);
  g_assert_true (km_document_import_file_finish (KM_DOCUMENT (source), result, &error));
  g_assert_no_error (error);
  opened->done = TRUE;
}

/* The project opened again and its skeleton.json changed by another program between the
 * read and the load's being applied (so before the file watch's first look at it), then
 * the skeleton edited: Save asks, as for a change made later (the record of what the body
 * was read from is what the load read, not what the file held when the load was applied
 * or the watch first hashed it). */
static void
test_model_file_changed_at_open (Fixture       *f,
                                 gconstpointer  data)
{
  g_autofree char *model = g_build_filename (f->dir, "skeleton.json", NULL);
  g_autofree char *theirs = NULL;
  OpenedNow opened = { FALSE, model };

  km_document_import_file_async (f->document, f->file, NULL, opened_then_changed_cb, &opened);
  g_assert_true (test_app_wait_flag (&opened.done, 20000));
  theirs = read_file (model);
  g_assert_cmpfloat (elbow_z (model), ==, 1.2);
  edit_joint_offset (f, "Elbow", km_vec3 (0, 0, 1.5));
  g_assert_true (km_document_get_modified (f->document));
  save_asks_about_model (f, model, theirs);
  /* And the bar says it changed, once the watch looks. */
  g_assert_true (test_app_wait_until (item_bar_revealed, f, 10000));
}

/* Another program, while a project is read: it holds @fifo (the model of a body read after
 * the one of @model) open as its writer (@fd), waits until the reader opens it too, changes
 * @model meanwhile (its UTF-8 version @utf8, then written over @model in UTF-16), puts a
 * regular file with @text where @fifo was, then gives the reader @text. */
typedef struct
{
  const char *fifo;
  const char *model;
  const char *utf8;
  const char *text;
  int         fd;
  gboolean    fed;
} PipeFeeder;

/* Writes @text to @path in UTF-16 (LE, after its mark), aside then renamed over it. */
static void
write_utf16 (const char *path,
             const char *text)
{
  g_autofree char *aside = g_strconcat (path, ".utf16", NULL);
  g_autofree char *utf16 = NULL;
  g_autoptr(GString) marked = g_string_new_len ("\xFF\xFE", 2);
  gsize length = 0;

  utf16 = g_convert (text, -1, "UTF-16LE", "UTF-8", NULL, &length, NULL);
  g_assert_nonnull (utf16);
  g_string_append_len (marked, utf16, (gssize) length);
  g_assert_true (g_file_set_contents (aside, marked->str, (gssize) marked->len, NULL));
  g_assert_cmpint (g_rename (aside, path), ==, 0);
}

static gpointer
feed_pipe (gpointer data)
{
  PipeFeeder *feeder = data;
  g_autofree char *regular = g_strconcat (feeder->fifo, ".new", NULL);
  gint64 end = g_get_monotonic_time () + 20 * G_TIME_SPAN_SECOND;
  gsize left = strlen (feeder->text);
  const char *at = feeder->text;

  /* The reader opened it (besides the writer's own): it has read the first body's model. */
  while (test_app_count_opened (feeder->fifo) < 2 && g_get_monotonic_time () < end)
    g_usleep (1000);
  if (test_app_count_opened (feeder->fifo) < 2)
    return NULL;
  change_elbow_behind_our_back (feeder->utf8, 1.2);
  {
    g_autofree char *theirs = read_file (feeder->utf8);

    write_utf16 (feeder->model, theirs);
  }
  g_assert_true (g_file_set_contents (regular, feeder->text, -1, NULL));
  g_assert_cmpint (g_rename (regular, feeder->fifo), ==, 0);
  while (left > 0)
    {
      gssize n = write (feeder->fd, at, left);

      g_assert_cmpint (n, >, 0);
      at += n;
      left -= (gsize) n;
    }
  feeder->fed = TRUE;
  return NULL;
}

static void
imported_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  gboolean *done = user_data;
  g_autoptr(GError) error = NULL;

  g_assert_true (km_document_import_file_finish (KM_DOCUMENT (source), result, &error));
  g_assert_no_error (error);
  *done = TRUE;
}

/* The skeleton.json in UTF-16, changed by another program once its loader read it and
 * before the project's read was over (a later body's model still being read): Save asks.
 * What the body goes with is the checksum of the bytes its loader read, not of the file
 * hashed again after the read, as a UTF-16 file's used to be. */
static void
test_model_file_changed_while_read_utf16 (Fixture       *f,
                                          gconstpointer  data)
{
  g_autofree char *model = g_build_filename (f->dir, "skeleton.json", NULL);
  g_autofree char *utf8 = g_build_filename (f->dir, "skeleton-utf8.json", NULL);
  g_autofree char *fifo = g_build_filename (f->dir, "pipe.json", NULL);
  g_autofree char *text = read_file (model);
  g_autofree char *theirs = NULL;
  g_autofree char *after = NULL;
  gsize theirs_length = 0, after_length = 0;
  g_autoptr(GString) project = g_string_new (f->ours);
  g_autoptr(GThread) thread = NULL;
  const char *end;
  gboolean imported = FALSE;
  PipeFeeder feeder = { fifo, model, utf8, text, -1, FALSE };

  g_assert_true (g_file_set_contents (utf8, text, -1, NULL));
  write_utf16 (model, text);
  /* A second body, after the first, its model read from a pipe. */
  end = strstr (project->str, "\n  children:\n");
  g_assert_nonnull (end);
  end = strchr (end + 1, '\n');
  for (end = strchr (end + 1, '\n'); end != NULL && (end[1] == ' ' || end[1] == '\n');
       end = strchr (end + 1, '\n'))
    ;
  g_assert_nonnull (end);
  g_string_insert (project, end - project->str + 1,
                   "    -\n      id: 90\n      name: \"Other\"\n      plugin: Body\n"
                   "      class: BodyItem\n      data:\n        file: \"pipe.json\"\n"
                   "        format: SKELETON-JSON\n");
  g_assert_true (g_file_set_contents (f->path, project->str, -1, NULL));
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  /* (Read and write: so that opening it waits for no reader, and a writer is there.) */
  feeder.fd = open (fifo, O_RDWR | O_CLOEXEC);
  g_assert_cmpint (feeder.fd, >=, 0);

  thread = g_thread_new ("feeder", feed_pipe, &feeder);
  km_document_import_file_async (f->document, f->file, NULL, imported_cb, &imported);
  /* (The load runs on its worker meanwhile.) The writer's end once the feeder is done:
   * the end of the file, to the reader. */
  g_thread_join (g_steal_pointer (&thread));
  close (feeder.fd);
  g_assert_true (feeder.fed);
  g_assert_true (test_app_wait_flag (&imported, 20000));
  g_assert_cmpstr (km_item_get_name (km_document_get_body_item (f->document)), ==, "Body");
  g_assert_true (g_file_get_contents (model, &theirs, &theirs_length, NULL));
  g_assert_cmpfloat (elbow_z (utf8), ==, 1.2);
  edit_joint_offset (f, "Elbow", km_vec3 (0, 0, 1.5));
  g_assert_true (km_document_get_modified (f->document));
  save_asks_about_model (f, model, theirs);
  /* (All of it: UTF-16 has zero bytes) */
  g_assert_true (g_file_get_contents (model, &after, &after_length, NULL));
  g_assert_cmpmem (after, after_length, theirs, theirs_length);
}

/* Unsaved work autosaved (its skeleton edited), then the skeleton.json changed by another
 * program before the work is recovered (after a crash): Save of the recovered work asks
 * before writing over that change. The autosave keeps what the body was read from; the
 * recovered body used to go with what the file held when it was recovered. */
static void
test_model_file_changed_before_recovery (Fixture       *f,
                                         gconstpointer  data)
{
  g_autofree char *model = g_build_filename (f->dir, "skeleton.json", NULL);
  g_autofree char *autosave = g_build_filename (f->dir, "autosave-9-0.cnoid", NULL);
  g_autoptr(GFile) autosave_file = g_file_new_for_path (autosave);
  g_autoptr(GError) error = NULL;
  g_autofree char *theirs = NULL;
  gboolean recovered = FALSE;

  reopen (f);
  edit_joint_offset (f, "Elbow", km_vec3 (0, 0, 1.5));
  g_assert_true (km_document_write_autosave (f->document, autosave, &error));
  g_assert_no_error (error);
  change_elbow_behind_our_back (model, 1.2);
  theirs = read_file (model);
  km_document_recover_async (f->document, autosave_file, NULL, recovered_cb, &recovered);
  g_assert_true (test_app_wait_flag (&recovered, 20000));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  /* However long it takes: the watch looks at the file meanwhile. */
  test_app_spin_for (500);
  g_assert_cmpfloat (km_skeleton_get_joint (km_document_get_skeleton (f->document),
                                            (guint) km_skeleton_find_joint (
                                              km_document_get_skeleton (f->document), "Elbow"))
                       ->offset.z, ==, 1.5);
  g_assert_true (km_document_get_modified (f->document));
  save_asks_about_model (f, model, theirs);
}

/* The same in a document without a window (so without a file watch): the record the load
 * made is enough for km_document_save to refuse to write over the change. */
/* Edits the Elbow's offset of @document, which has no window, and saves it to @file: the
 * save is refused as changed on disk, and @model still holds @theirs. */
static void
windowless_save_refused (KmDocument *document,
                         GFile      *file,
                         const char *model,
                         const char *theirs)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *after = NULL;
  g_autoptr(KmSkeleton) edited = NULL;
  KmSkeleton *skeleton = km_document_get_skeleton (document);
  int elbow = km_skeleton_find_joint (skeleton, "Elbow");

  g_assert_cmpint (elbow, >=, 0);
  edited = km_skeleton_edit_set_offset (skeleton, (guint) elbow, km_vec3 (0, 0, 1.5), &error);
  g_assert_no_error (error);
  g_assert_true (km_document_edit_skeleton (document, edited, "Offset", NULL));
  g_assert_true (test_app_wait_idle_solve (document, 20000));

  g_assert_false (km_document_save (document, file, &error));
  g_assert_error (error, KM_DOCUMENT_ERROR, KM_DOCUMENT_ERROR_CHANGED_ON_DISK);
  g_assert_nonnull (strstr (error->message, "“skeleton.json” has changed on disk"));
  after = read_file (model);
  g_assert_cmpstr (after, ==, theirs);
  g_assert_true (km_document_get_modified (document));
  km_document_cancel_solve (document);
  g_assert_true (test_app_wait_idle_solve (document, 20000));
  test_app_spin ();
}

static void
test_model_file_changed_windowless (Fixture       *f,
                                    gconstpointer  data)
{
  g_autofree char *model = g_build_filename (f->dir, "skeleton.json", NULL);
  g_autoptr(KmDocument) document = km_document_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *theirs = NULL;

  g_assert_true (km_document_import_file (document, f->file, &error));
  g_assert_no_error (error);
  change_elbow_behind_our_back (model, 1.2);
  theirs = read_file (model);
  /* However long it takes: no watch is there to learn anything meanwhile. */
  test_app_spin_for (300);
  windowless_save_refused (document, f->file, model, theirs);
}

/* The same for a duplicated body of a document without a window: the copy reads the file
 * again and goes with what it read (it had no record, so no check, until a file watch
 * looked, and a document without a window has none). */
static void
test_model_file_duplicate_windowless (Fixture       *f,
                                      gconstpointer  data)
{
  g_autofree char *model = g_build_filename (f->dir, "skeleton.json", NULL);
  g_autoptr(KmDocument) document = km_document_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *theirs = NULL;

  g_assert_true (km_document_import_file (document, f->file, &error));
  g_assert_no_error (error);
  duplicate_current_body (document);
  change_elbow_behind_our_back (model, 1.2);
  theirs = read_file (model);
  windowless_save_refused (document, f->file, model, theirs);
}

static void
choreonoid_saved_cb (GObject      *source,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  gboolean *done = user_data;
  g_autoptr(GError) error = NULL;

  g_assert_true (km_document_save_with_body_copies_finish (KM_DOCUMENT (source), result,
                                                           &error));
  g_assert_no_error (error);
  *done = TRUE;
}

/* Save for Choreonoid with the model file changed on disk and the skeleton edited: it
 * writes the user's version to the .body copy and leaves their skeleton.json alone (it does
 * not write model files back), so it asks nothing; the project refers to the copy. */
static void
test_model_file_choreonoid (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *model = g_build_filename (f->dir, "skeleton.json", NULL);
  g_autofree char *copy = g_build_filename (f->dir, "skeleton.body", NULL);
  g_autofree char *theirs = change_model_before_save (f, model);
  g_autofree char *after = NULL;
  g_autofree char *project = NULL;
  gboolean done = FALSE;

  km_document_save_with_body_copies_async (f->document, f->file, NULL, choreonoid_saved_cb,
                                           &done);
  g_assert_true (test_app_wait_flag (&done, 20000));
  test_app_spin ();
  g_assert_null (km_window_get_question (f->window));
  g_assert_false (km_document_get_modified (f->document));
  after = read_file (model);
  g_assert_cmpstr (after, ==, theirs);
  g_assert_true (g_file_test (copy, G_FILE_TEST_EXISTS));
  project = read_file (f->path);
  g_assert_nonnull (strstr (project, "file: \"skeleton.body\""));
  g_assert_cmpfloat (km_skeleton_get_joint (km_document_get_skeleton (f->document),
                                            (guint) km_skeleton_find_joint (
                                              km_document_get_skeleton (f->document), "Elbow"))
                       ->offset.z, ==, 1.5);
}

int
main (int    argc,
      char **argv)
{
  test_app_init (&argc, &argv);

  g_test_add ("/kinema/Window/disk-changes/save-asks", Fixture, NULL,
              fixture_setup, test_save_asks, fixture_teardown);
  g_test_add ("/kinema/Window/disk-changes/overwrite", Fixture, NULL,
              fixture_setup, test_overwrite, fixture_teardown);
  g_test_add ("/kinema/Window/disk-changes/reload", Fixture, NULL,
              fixture_setup, test_reload, fixture_teardown);
  g_test_add ("/kinema/Window/disk-changes/save-as-same-path", Fixture, NULL,
              fixture_setup, test_save_as_same_path, fixture_teardown);
  g_test_add ("/kinema/Window/disk-changes/save-deleted", Fixture, NULL,
              fixture_setup, test_save_deleted, fixture_teardown);
  g_test_add ("/kinema/Window/disk-changes/bar", Fixture, NULL,
              fixture_setup, test_bar, fixture_teardown);
  g_test_add ("/kinema/Window/disk-changes/choreonoid-asks", Fixture, NULL,
              fixture_setup, test_choreonoid_asks, fixture_teardown);
  g_test_add ("/kinema/Window/disk-changes/choreonoid-reload", Fixture, NULL,
              fixture_setup, test_choreonoid_reload, fixture_teardown);
  g_test_add ("/kinema/Window/disk-changes/sub-project-asks", Fixture, NULL,
              fixture_setup, test_sub_project_asks, fixture_teardown);
  g_test_add ("/kinema/Window/disk-changes/sub-project-reload-deleted", Fixture, NULL,
              fixture_setup, test_sub_project_reload_deleted, fixture_teardown);
  g_test_add ("/kinema/Window/disk-changes/item-file-bar", Fixture, NULL,
              fixture_setup, test_item_file_bar, fixture_teardown);
  g_test_add ("/kinema/Window/disk-changes/item-files-bar", Fixture, NULL,
              fixture_setup, test_item_files_bar, fixture_teardown);
  g_test_add ("/kinema/Window/disk-changes/animation-file-bar", Fixture, NULL,
              fixture_setup, test_animation_file_bar, fixture_teardown);
  g_test_add ("/kinema/Window/disk-changes/item-file-changed-while-saving", Fixture, NULL,
              fixture_setup, test_item_file_changed_while_saving, fixture_teardown);
  g_test_add ("/kinema/Window/disk-changes/item-file-deleted", Fixture, NULL,
              fixture_setup, test_item_file_deleted, fixture_teardown);
  g_test_add ("/kinema/Window/disk-changes/item-file-same-content", Fixture, NULL,
              fixture_setup, test_item_file_same_content, fixture_teardown);
  g_test_add ("/kinema/Window/disk-changes/model-file-touched", Fixture, NULL,
              fixture_setup, test_model_file_touched, fixture_teardown);
  g_test_add ("/kinema/Window/disk-changes/item-file-undo-reload", Fixture, NULL,
              fixture_setup, test_item_file_undo_reload, fixture_teardown);
  g_test_add ("/kinema/Window/disk-changes/save-restores-model", Fixture, NULL,
              fixture_setup, test_save_restores_model, fixture_teardown);
  g_test_add ("/kinema/Window/disk-changes/save-restores-body-model", Fixture, NULL,
              fixture_setup, test_save_restores_body_model, fixture_teardown);
  g_test_add ("/kinema/Window/disk-changes/save-restores-share-model", Fixture,
              "${SHARE}/model/SR1/SR1.body", fixture_setup, test_save_restores_model_elsewhere,
              fixture_teardown);
  g_test_add ("/kinema/Window/disk-changes/save-restores-relative-model", Fixture,
              "../model/SR1/SR1.body", fixture_setup, test_save_restores_model_elsewhere,
              fixture_teardown);
  g_test_add ("/kinema/Window/disk-changes/save-model-not-replaced", Fixture, NULL,
              fixture_setup, test_save_model_not_replaced, fixture_teardown);
  g_test_add ("/kinema/Window/disk-changes/save-temporary-registered", Fixture, NULL,
              fixture_setup, test_save_temporary_registered, fixture_teardown);
  g_test_add ("/kinema/Window/disk-changes/save-model-folder-gone", Fixture, NULL,
              fixture_setup, test_save_model_folder_gone, fixture_teardown);
  g_test_add ("/kinema/Window/disk-changes/save-project-folder-gone", Fixture, NULL,
              fixture_setup, test_save_project_folder_gone, fixture_teardown);
  g_test_add ("/kinema/Window/disk-changes/save-restores-json-unknown-keys", Fixture, NULL,
              fixture_setup, test_save_restores_json_unknown_keys, fixture_teardown);
  g_test_add ("/kinema/Window/disk-changes/save-restores-imported-json-keys", Fixture, NULL,
              fixture_setup, test_save_restores_imported_json_keys, fixture_teardown);
  g_test_add ("/kinema/Window/disk-changes/saved-example-model-linked", Fixture, NULL,
              fixture_setup, test_saved_example_model_linked, fixture_teardown);
  g_test_add ("/kinema/Window/disk-changes/reload-model-resolves", Fixture, NULL,
              fixture_setup, test_reload_model_resolves, fixture_teardown);
  g_test_add ("/kinema/Window/disk-changes/model-file-asks", Fixture, NULL,
              fixture_setup, test_model_file_asks, fixture_teardown);
  g_test_add ("/kinema/Window/disk-changes/model-file-overwrite", Fixture, NULL,
              fixture_setup, test_model_file_overwrite, fixture_teardown);
  g_test_add ("/kinema/Window/disk-changes/model-file-reload", Fixture, NULL,
              fixture_setup, test_model_file_reload, fixture_teardown);
  g_test_add ("/kinema/Window/disk-changes/model-file-saved-example", Fixture, NULL,
              fixture_setup, test_model_file_saved_example, fixture_teardown);
  g_test_add ("/kinema/Window/disk-changes/model-file-duplicate", Fixture, NULL,
              fixture_setup, test_model_file_duplicate, fixture_teardown);
  g_test_add ("/kinema/Window/disk-changes/model-file-duplicate-after-change", Fixture, NULL,
              fixture_setup, test_model_file_duplicate_after_change, fixture_teardown);
  g_test_add ("/kinema/Window/disk-changes/model-file-sub-project", Fixture, NULL,
              fixture_setup, test_model_file_sub_project, fixture_teardown);
  g_test_add ("/kinema/Window/disk-changes/model-file-choreonoid", Fixture, NULL,
              fixture_setup, test_model_file_choreonoid, fixture_teardown);
  g_test_add ("/kinema/Window/disk-changes/model-file-changed-at-open", Fixture, NULL,
              fixture_setup, test_model_file_changed_at_open, fixture_teardown);
  g_test_add ("/kinema/Window/disk-changes/model-file-changed-while-read-utf16", Fixture,
              NULL, fixture_setup, test_model_file_changed_while_read_utf16, fixture_teardown);
  g_test_add ("/kinema/Window/disk-changes/model-file-changed-before-recovery", Fixture, NULL,
              fixture_setup, test_model_file_changed_before_recovery, fixture_teardown);
  g_test_add ("/kinema/Window/disk-changes/model-file-changed-windowless", Fixture, NULL,
              fixture_setup, test_model_file_changed_windowless, fixture_teardown);
  g_test_add ("/kinema/Window/disk-changes/model-file-duplicate-windowless", Fixture, NULL,
              fixture_setup, test_model_file_duplicate_windowless, fixture_teardown);
  return g_test_run ();
}
