/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <gtk/gtk.h>

#include "km-animation.h"
#include "km-animation-json.h"
#include "km-autosave.h"
#include "km-body-motion.h"
#include "km-defaults.h"
#include "km-body-item.h"
#include "km-format.h"
#include "km-document-skeleton.h"
#include "km-ik-animation-item.h"
#include "km-ik-targets-item.h"
#include "km-layout-state.h"
#include "km-message.h"
#include "km-skeleton-edit.h"
#include "km-window.h"

#include "test-app-util.h"
#include "km-test-tmp.h"

/*
 * Saving off the UI thread, under Xvfb: Save returns before the file is written
 * (KmWindow:saving), the modified flag clears only for the state written, an edit made
 * meanwhile keeps the document modified, a failed save leaves the old file and runs
 * nothing that waited for it, closing waits for the save, the main loop keeps running
 * while a 10,000-frame animation is written, and the autosave and Save Item As write on a
 * worker thread as well.
 */

typedef struct
{
  KmWindow   *window;
  KmDocument *document;
  char       *dir;
  char       *path;
  GFile      *file;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  f->window = test_app_example_window (900, 600);
  f->document = km_window_get_document (f->window);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));

  f->dir = g_dir_make_tmp ("km-save-XXXXXX", &error);
  g_assert_no_error (error);
  f->path = g_build_filename (f->dir, "project.cnoid", NULL);
  f->file = g_file_new_for_path (f->path);
}

static void
remove_tree (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  g_chmod (dir, 0755);
  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *p = g_build_filename (dir, name, NULL);

      g_unlink (p);
    }
  g_rmdir (dir);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  if (f->window != NULL)
    {
      test_app_destroy_window (&f->window, &f->document);
    }
  remove_tree (f->dir);
  g_free (f->dir);
  g_free (f->path);
  g_object_unref (f->file);
}

static char *
read_file (const char *path)
{
  char *text = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  return text;
}

/* The newest message in the document's log. */
static const char *
last_message (KmDocument     *document,
              GLogLevelFlags *level)
{
  GListModel *messages = km_document_get_messages (document);
  guint n = g_list_model_get_n_items (messages);
  g_autoptr(KmMessage) message = NULL;

  g_assert_cmpuint (n, >, 0);
  message = g_list_model_get_item (messages, n - 1);
  if (level != NULL)
    *level = km_message_get_level (message);
  /* The log keeps the message alive after this reference goes. */
  return km_message_get_text (message);
}

/* The project has a file (saved once, synchronously) and an unsaved joint edit. */
static char *
save_then_edit (Fixture *f)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (km_document_save (f->document, f->file, &error));
  g_assert_no_error (error);
  g_assert_false (km_document_get_modified (f->document));
  km_document_set_dof_value (f->document, 1, 0.3);
  g_assert_true (km_document_get_modified (f->document));
  return read_file (f->path);
}

/* Save returns at once; the flag clears when the file is written, not before. */
static void
test_save_clears_modified_when_written (Fixture       *f,
                                        gconstpointer  data)
{
  g_autofree char *before = save_then_edit (f);
  g_autofree char *after = NULL;
  g_autofree char *expected = g_strdup_printf ("Saved %s.", f->path);
  GListModel *messages = km_document_get_messages (f->document);
  guint n_messages = g_list_model_get_n_items (messages);
  GLogLevelFlags level;

  g_assert_false (km_window_get_saving (f->window));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.save", NULL));
  g_assert_true (km_window_get_saving (f->window));
  g_assert_true (km_document_get_saving (f->document));
  g_assert_true (km_document_get_modified (f->document));
  g_assert_true (g_str_has_suffix (gtk_window_get_title (GTK_WINDOW (f->window)),
                                   "project.cnoid* — Kinema"));
  /* A second Save does not start a second write of the same file. */
  gtk_widget_activate_action (GTK_WIDGET (f->window), "win.save", NULL);
  gtk_widget_activate_action (GTK_WIDGET (f->window), "win.save-as", NULL);
  g_assert_true (km_window_get_saving (f->window));

  g_assert_true (test_app_wait_saved (f->window));
  g_assert_false (km_document_get_saving (f->document));
  g_assert_false (km_document_get_modified (f->document));
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (f->window)), ==, "project.cnoid — Kinema");
  after = read_file (f->path);
  g_assert_cmpstr (after, !=, before);
  g_assert_cmpstr (last_message (f->document, &level), ==, expected);
  g_assert_cmpint (level, ==, G_LOG_LEVEL_INFO);
  /* That is all: no second save, not even a refused one. */
  g_assert_cmpuint (g_list_model_get_n_items (messages), ==, n_messages + 1);

  /* Saving is possible again. */
  km_document_set_dof_value (f->document, 1, 0.1);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.save", NULL));
  g_assert_true (km_window_get_saving (f->window));
  g_assert_true (test_app_wait_saved (f->window));
  g_assert_false (km_document_get_modified (f->document));
}

/* The state written is the one clean afterwards: an edit made meanwhile stays unsaved,
 * and undoing it is back at the saved state. */
static void
test_edit_while_saving (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *before = save_then_edit (f);
  g_autofree char *written = NULL;

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.save", NULL));
  g_assert_true (km_window_get_saving (f->window));
  km_document_set_dof_value (f->document, 2, 0.4);
  g_assert_true (km_document_get_modified (f->document));

  g_assert_true (test_app_wait_saved (f->window));
  g_assert_true (km_document_get_modified (f->document));
  g_assert_true (g_str_has_suffix (gtk_window_get_title (GTK_WINDOW (f->window)), "* — Kinema"));
  written = read_file (f->path);
  g_assert_cmpstr (written, !=, before);

  /* One undo takes back the edit made while writing (it did not merge into the saved
   * step): the document is at the state written, so unmodified. */
  g_assert_true (km_document_undo (f->document));
  g_assert_false (km_document_get_modified (f->document));
  g_assert_true (km_document_undo (f->document));
  g_assert_true (km_document_get_modified (f->document));
}

/* Writes fail from now on: the folder is read-only, and for root (whom permissions do not
 * stop) files may not grow past a few bytes. */
static void
make_writes_fail (Fixture       *f,
                  struct rlimit *saved)
{
  g_assert_cmpint (g_chmod (f->dir, 0555), ==, 0);
  g_assert_cmpint (getrlimit (RLIMIT_FSIZE, saved), ==, 0);
  if (geteuid () == 0)
    {
      struct rlimit small = { 16, saved->rlim_max };

      signal (SIGXFSZ, SIG_IGN);
      g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &small), ==, 0);
    }
}

static void
let_writes_succeed (Fixture             *f,
                    const struct rlimit *saved)
{
  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, saved), ==, 0);
  g_assert_cmpint (g_chmod (f->dir, 0755), ==, 0);
}

static void
window_destroyed_cb (gpointer data)
{
  *(gboolean *) data = TRUE;
}

/* Close → Save in the question, and the save fails: the old file is intact, the error is
 * in the log, and the window stays open with the work unsaved. */
static void
test_failed_save_keeps_window (Fixture       *f,
                               gconstpointer  data)
{
  g_autofree char *before = save_then_edit (f);
  g_autofree char *after = NULL;
  g_autofree char *expected = g_strdup_printf ("%s: cannot write the file: ", f->path);
  g_autoptr(GDir) dir = NULL;
  gboolean destroyed = FALSE;
  struct rlimit saved;
  GLogLevelFlags level;
  const char *name;
  guint n_files = 0;

  g_signal_connect_swapped (f->window, "destroy", G_CALLBACK (window_destroyed_cb), &destroyed);
  gtk_window_close (GTK_WINDOW (f->window));
  test_app_spin ();
  g_assert_nonnull (km_window_get_question (f->window));

  make_writes_fail (f, &saved);
  gtk_dialog_response (GTK_DIALOG (km_window_get_question (f->window)), GTK_RESPONSE_ACCEPT);
  g_assert_true (km_window_get_saving (f->window));
  g_assert_false (destroyed);
  g_assert_true (test_app_wait_saved (f->window));
  let_writes_succeed (f, &saved);
  test_app_spin ();

  g_assert_false (destroyed);
  g_assert_null (km_window_get_question (f->window));
  g_assert_true (km_document_get_modified (f->document));
  after = read_file (f->path);
  g_assert_cmpstr (after, ==, before);
  g_assert_nonnull (strstr (last_message (f->document, &level), expected));
  g_assert_cmpint (level, ==, G_LOG_LEVEL_WARNING);
  /* No temporary file is left beside it. */
  dir = g_dir_open (f->dir, 0, NULL);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_assert_true (g_str_equal (name, "project.cnoid") || g_str_equal (name, "skeleton.json"));
      n_files++;
    }
  g_assert_cmpuint (n_files, ==, 2);

  /* The next Save works, and the document is clean then. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.save", NULL));
  g_assert_true (test_app_wait_saved (f->window));
  g_assert_false (km_document_get_modified (f->document));
  g_assert_false (destroyed);
  g_signal_handlers_disconnect_by_func (f->window, window_destroyed_cb, &destroyed);
}

static gboolean
is_true (gpointer flag)
{
  return *(gboolean *) flag;
}

/* The widget under @widget that has the style class @name, or NULL. */
static GtkWidget *
find_with_class (GtkWidget  *widget,
                 const char *name)
{
  if (gtk_widget_has_css_class (widget, name))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_with_class (child, name);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The child of @bar of @type (the first one, depth first), or NULL. */
static GtkWidget *
find_child_of_type (GtkWidget *bar,
                    GType      type)
{
  for (GtkWidget *child = gtk_widget_get_first_child (bar); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = G_TYPE_CHECK_INSTANCE_TYPE (child, type)
                         ? child : find_child_of_type (child, type);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* Fails a Save (Ctrl+S): the bar says so and why, and offers Save As, whose button opens
 * the Save As dialog. Messages keeps its line, the project stays modified; the bar goes
 * once a save succeeds, or when dismissed. */
static void
test_failed_save_shows_bar (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *before = save_then_edit (f);
  GtkWidget *bar = find_with_class (GTK_WIDGET (f->window), "save-failed-bar");
  GtkWidget *label;
  GtkWidget *button = NULL;
  g_autofree char *reason = NULL;
  struct rlimit saved;
  GLogLevelFlags level;
  const char *text;

  g_assert_nonnull (bar);
  g_assert_false (gtk_widget_get_visible (bar));

  make_writes_fail (f, &saved);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.save", NULL));
  g_assert_true (test_app_wait_saved (f->window));
  let_writes_succeed (f, &saved);
  test_app_spin ();

  /* Messages has its line as before, and the work is unsaved. */
  reason = g_strdup (last_message (f->document, &level));
  g_assert_cmpint (level, ==, G_LOG_LEVEL_WARNING);
  g_assert_nonnull (strstr (reason, "cannot write the file: "));
  g_assert_true (km_document_get_modified (f->document));
  /* The bar shows, in the window, and says that the project was not saved, and why. */
  g_assert_true (gtk_widget_get_visible (bar));
  g_assert_true (gtk_widget_get_mapped (bar));
  label = find_child_of_type (bar, GTK_TYPE_LABEL);
  g_assert_nonnull (label);
  text = gtk_label_get_text (GTK_LABEL (label));
  g_assert_true (g_str_has_prefix (text, "The project was not saved: "));
  g_assert_true (g_str_has_suffix (text, reason));
  /* Its Save As button */
  for (GtkWidget *child = gtk_widget_get_first_child (bar); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_BUTTON (child)
        && g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (child)), "win.save-as") == 0)
      button = child;
  g_assert_nonnull (button);
  g_assert_cmpstr (gtk_button_get_label (GTK_BUTTON (button)), ==, "Save _As…");
  g_assert_true (gtk_widget_is_sensitive (button));
  g_assert_true (gtk_widget_get_mapped (button));
  /* Given any width, it asks no more height than given none: else GTK says it "reports a
   * minimum height of 47, but minimum height for width of 1048576 is 48", and widgets
   * overlap (the baselines of its buttons, one pixel apart, made it so). */
  for (int width = 600; width <= 1 << 20; width *= 4)
    {
      int height_for_none, height_for_width;

      gtk_widget_measure (bar, GTK_ORIENTATION_VERTICAL, -1, &height_for_none, NULL, NULL,
                          NULL);
      gtk_widget_measure (bar, GTK_ORIENTATION_VERTICAL, width, &height_for_width, NULL,
                          NULL, NULL);
      if (width >= gtk_widget_get_width (bar))
        g_assert_cmpint (height_for_width, <=, height_for_none);
    }

  /* It opens the Save As dialog (where GTK's file chooser can run), whose Cancel leaves
   * the bar. */
  if (test_app_have_chooser_schema ())
    {
      /* The chooser's search icon is an SVG, which gdk-pixbuf tells by the MIME database
       * that the isolated XDG_DATA_DIRS hide: GTK warns that it is missing, which is no
       * failure here (criticals still are). */
      GLogLevelFlags fatal = g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);

      g_assert_null (test_app_find_chooser ());
      g_assert_true (gtk_widget_activate (button));
      g_assert_true (test_app_wait_until (test_app_chooser_shown, NULL, 10000));
      G_GNUC_BEGIN_IGNORE_DEPRECATIONS
      g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (test_app_find_chooser ())), ==,
                       "Save Project As");
      gtk_dialog_response (GTK_DIALOG (test_app_find_chooser ()), GTK_RESPONSE_CANCEL);
      G_GNUC_END_IGNORE_DEPRECATIONS
      g_assert_true (test_app_wait_until (test_app_chooser_gone, NULL, 10000));
      test_app_spin ();
      g_log_set_always_fatal (fatal);
      g_assert_true (gtk_widget_get_visible (bar));
    }
  else
    g_test_message ("GTK's file chooser schema is not installed: Save As not opened");

  /* A save that succeeds takes the bar away. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.save", NULL));
  g_assert_true (test_app_wait_saved (f->window));
  g_assert_false (km_document_get_modified (f->document));
  g_assert_false (gtk_widget_get_visible (bar));

  /* Failing again, it shows again; its close button dismisses it. */
  km_document_set_dof_value (f->document, 1, 0.2);
  make_writes_fail (f, &saved);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.save", NULL));
  g_assert_true (test_app_wait_saved (f->window));
  let_writes_succeed (f, &saved);
  g_assert_true (gtk_widget_get_visible (bar));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.dismiss-save-failed",
                                             NULL));
  g_assert_false (gtk_widget_get_visible (bar));
  g_assert_true (km_document_get_modified (f->document));
}

/* The failed-save bar's button that saves again elsewhere (it names an action that is not
 * the close button's). */
static GtkWidget *
bar_retry_button (GtkWidget *bar)
{
  for (GtkWidget *child = gtk_widget_get_first_child (bar); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_BUTTON (child) && gtk_actionable_get_action_name (GTK_ACTIONABLE (child)) != NULL
        && g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (child)),
                      "win.dismiss-save-failed") != 0)
      return child;
  return NULL;
}

/* The bar after a save of another kind than the project's failed: it shows, says
 * @prefix then @reason (which names the file), and its button (labelled @label) names
 * @action, the Save As of that kind. */
static void
assert_bar_shows (Fixture    *f,
                  const char *prefix,
                  const char *reason,
                  const char *action,
                  const char *label)
{
  GtkWidget *bar = find_with_class (GTK_WIDGET (f->window), "save-failed-bar");
  GtkWidget *button = bar_retry_button (bar);
  g_autofree char *expected = g_strconcat (prefix, reason, NULL);

  g_assert_true (gtk_widget_get_visible (bar));
  g_assert_true (gtk_widget_get_mapped (bar));
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (find_child_of_type (bar, GTK_TYPE_LABEL))), ==,
                   expected);
  g_assert_nonnull (button);
  g_assert_cmpstr (gtk_actionable_get_action_name (GTK_ACTIONABLE (button)), ==, action);
  g_assert_cmpstr (gtk_button_get_label (GTK_BUTTON (button)), ==, label);
  g_assert_true (gtk_widget_get_mapped (button));
}

/* A Skeleton tab save of each kind: the file it writes (in the fixture's folder), what the
 * bar says when it fails, and its button. */
typedef struct
{
  const char *name;
  const char *prefix;
  const char *action;
  const char *label;
} SkeletonSaveCase;

static const SkeletonSaveCase skeleton_save_cases[] = {
  { "saved.json", "The skeleton was not saved: ", "skeleton.save-as", "Save Skeleton _As…" },
  { "saved.body", "The skeleton was not exported: ", "skeleton.export-body",
    "Export as Choreonoid _Body…" },
  { "saved.urdf", "The skeleton was not exported: ", "skeleton.export-urdf", "Export as _URDF…" },
  { "project.cnoid", "The project was not saved for Choreonoid: ",
    "skeleton.save-project-with-body", "Save for _Choreonoid…" },
};

typedef struct
{
  gboolean  done;
  gboolean  ok;
  GError   *error;
} SaveResult;

static void
skeleton_case_saved_cb (GObject      *source,
                        GAsyncResult *result,
                        gpointer      user_data)
{
  SaveResult *r = user_data;

  r->ok = test_app_document_finish (KM_DOCUMENT (source), result, &r->error);
  r->done = TRUE;
}

static void
start_skeleton_case (Fixture    *f,
                     guint       i,
                     GFile      *file,
                     SaveResult *r)
{
  if (i == 0)
    km_document_save_skeleton_async (f->document, file, NULL, skeleton_case_saved_cb, r);
  else if (i == 1 || i == 2)
    km_document_export_skeleton_async (f->document,
                                       i == 1 ? KM_SKELETON_EXPORT_BODY : KM_SKELETON_EXPORT_URDF,
                                       file, NULL, skeleton_case_saved_cb, r);
  else
    km_document_save_with_body_copies_async (f->document, file, NULL, skeleton_case_saved_cb, r);
}

/* Save Skeleton, Export as .body and as URDF, and Save for Choreonoid fail: the file that
 * was there is intact, and the window's bar says what was not saved and why (naming the
 * file), with that kind's Save As; the same save, once it works, takes the bar away. */
static void
test_failed_skeleton_saves_show_bar (Fixture       *f,
                                     gconstpointer  data)
{
  GtkWidget *bar = find_with_class (GTK_WIDGET (f->window), "save-failed-bar");

  for (guint i = 0; i < G_N_ELEMENTS (skeleton_save_cases); i++)
    {
      const SkeletonSaveCase *c = &skeleton_save_cases[i];
      g_autofree char *path = g_build_filename (f->dir, c->name, NULL);
      g_autoptr(GFile) file = g_file_new_for_path (path);
      g_autofree char *before = NULL;
      g_autofree char *after = NULL;
      const char *prefix = "The project was not saved: ";
      const char *reason;
      SaveResult r = { 0, };
      struct rlimit saved;

      g_test_message ("%s", c->action);
      if (i == 3)
        {
          /* The project is there, and a new copy of the body is to be written beside it. */
          g_free (save_then_edit (f));
        }
      else
        g_assert_true (g_file_set_contents (path, "the file of before\n", -1, NULL));
      before = read_file (path);

      make_writes_fail (f, &saved);
      start_skeleton_case (f, i, file, &r);
      g_assert_true (test_app_wait_flag (&r.done, 20000));
      let_writes_succeed (f, &saved);
      test_app_spin ();

      g_assert_false (r.ok);
      g_assert_nonnull (r.error);
      after = read_file (path);
      g_assert_cmpstr (after, ==, before);
      /* The reason names the file (for Save for Choreonoid, the copy beside the project it
       * could not write). */
      g_assert_nonnull (strstr (r.error->message, i == 3 ? f->dir : path));
      g_assert_nonnull (strstr (r.error->message, ": cannot write the file: "));
      reason = g_str_has_prefix (r.error->message, prefix) ? r.error->message + strlen (prefix)
                                                           : r.error->message;
      assert_bar_shows (f, c->prefix, reason, c->action, c->label);
      g_assert_true (gtk_widget_is_sensitive (bar_retry_button (bar)));

      /* The same save, working: the bar goes. */
      g_clear_error (&r.error);
      r.done = FALSE;
      start_skeleton_case (f, i, file, &r);
      g_assert_true (test_app_wait_flag (&r.done, 20000));
      g_assert_no_error (r.error);
      g_assert_true (r.ok);
      test_app_spin ();
      g_assert_false (gtk_widget_get_visible (bar));
    }
}

static gboolean
bar_is_visible (gpointer data)
{
  return gtk_widget_get_visible (GTK_WIDGET (data));
}

static gboolean
bar_is_hidden (gpointer data)
{
  return !gtk_widget_get_visible (GTK_WIDGET (data));
}

/* Fills in the chooser shown: @name (a new file: no question whether to replace it) in
 * @dir; and accepts. */
static void
choose_in_chooser (const char *dir,
                   const char *name)
{
  GtkWidget *chooser = test_app_find_chooser ();
  g_autoptr(GFile) folder = g_file_new_for_path (dir);
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr(GFile) chosen = NULL;

  g_assert_nonnull (chooser);
  /* (The chooser answers once it has loaded its folder, which it does in the background.) */
  test_app_spin_for (300);
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  g_assert_true (gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (chooser), folder, NULL));
  test_app_spin_for (300);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), name);
  test_app_spin_for (300);
  chosen = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
  g_assert_nonnull (chosen);
  g_assert_cmpstr (g_file_peek_path (chosen), ==, path);
  gtk_dialog_response (GTK_DIALOG (chooser), GTK_RESPONSE_ACCEPT);
  G_GNUC_END_IGNORE_DEPRECATIONS
}

/* Save Item As fails (the chosen file cannot be written): nothing is left there (the
 * project file is intact), the bar names the item and says why (naming the file), and its
 * Save Item As opens the dialog again for that item, also when another one is selected
 * now. (A new file: GTK's question whether to replace one does not answer to
 * gtk_dialog_response here.) */
static void
test_failed_save_item_shows_bar (Fixture       *f,
                                 gconstpointer  data)
{
  GtkWidget *bar = find_with_class (GTK_WIDGET (f->window), "save-failed-bar");
  KmProject *project = km_document_get_project (f->document);
  KmItem *body = km_document_get_body_item (f->document);
  g_autofree char *path = g_build_filename (f->dir, "item.json", NULL);
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autofree char *reason = NULL;
  g_autofree char *prefix = NULL;
  GLogLevelFlags fatal;
  GLogLevelFlags level;
  struct rlimit saved;

  if (!test_app_have_chooser_schema ())
    {
      g_test_skip ("GTK's file chooser schema is not installed");
      return;
    }
  /* (As in test_failed_save_shows_bar: GTK's missing SVG loader is no failure here.) */
  fatal = g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);
  g_free (save_then_edit (f));
  before = read_file (f->path);
  km_project_select (project, body, FALSE);
  test_app_spin ();

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.save-item-as", NULL));
  g_assert_true (test_app_wait_until (test_app_chooser_shown, NULL, 10000));
  make_writes_fail (f, &saved);
  choose_in_chooser (f->dir, "item.json");
  g_assert_true (test_app_wait_until (bar_is_visible, bar, 20000));
  let_writes_succeed (f, &saved);
  g_assert_true (test_app_wait_until (test_app_chooser_gone, NULL, 10000));
  test_app_spin ();

  after = read_file (f->path);
  g_assert_cmpstr (after, ==, before);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  reason = g_strdup (last_message (f->document, &level));
  g_assert_cmpint (level, ==, G_LOG_LEVEL_WARNING);
  g_assert_nonnull (strstr (reason, path));
  prefix = g_strdup_printf ("“%s” was not saved: ", km_item_get_name (body));
  assert_bar_shows (f, prefix, reason, "win.retry-failed-save", "_Save Item As…");

  /* Another item selected: the button still saves the one that failed. */
  km_project_select (project, km_item_get_child (body, 0), FALSE);
  test_app_spin ();
  g_assert_true (gtk_widget_activate (bar_retry_button (bar)));
  g_assert_true (test_app_wait_until (test_app_chooser_shown, NULL, 10000));
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (test_app_find_chooser ())), ==,
                   "Save Item As");
  G_GNUC_END_IGNORE_DEPRECATIONS
  choose_in_chooser (f->dir, "item.json");
  g_assert_true (test_app_wait_until (test_app_chooser_gone, NULL, 10000));
  /* It works now: the bar goes, and the file holds the body's skeleton. */
  g_assert_true (test_app_wait_until (bar_is_hidden, bar, 20000));
  g_free (after);
  after = read_file (path);
  g_assert_nonnull (strstr (after, "joints"));
  g_log_set_always_fatal (fatal);
}

/* This thread's bytes read so far (Linux's per-thread I/O accounting), or -1. */
static gint64
thread_read_bytes (void)
{
  g_autofree char *text = NULL;
  const char *rchar;

  if (!g_file_get_contents ("/proc/thread-self/io", &text, NULL, NULL)
      || (rchar = strstr (text, "rchar: ")) == NULL)
    return -1;
  return g_ascii_strtoll (rchar + strlen ("rchar: "), NULL, 10);
}

/* Save for Choreonoid picks its copies' names on the worker: a file beside the project
 * that has the copy's name is read there to tell whether it is a copy of Kinema's (its
 * stamp hashes the whole file), not on the main thread. Not one (no stamp), it stays as
 * it is, and the copy takes the next name. */
static void
test_save_for_choreonoid_reads_on_worker (Fixture       *f,
                                          gconstpointer  data)
{
  g_autofree char *taken = g_build_filename (f->dir, "skeleton.body", NULL);
  g_autofree char *numbered = g_build_filename (f->dir, "skeleton-2.body", NULL);
  gsize size = 8 * 1024 * 1024;
  g_autofree char *big = g_malloc (size);
  g_autofree char *after = NULL;
  gsize after_size = 0;
  SaveResult r = { 0, };
  gint64 read_before;
  gint64 read_after;

  g_free (save_then_edit (f));
  memset (big, '#', size);
  big[size - 1] = '\n';
  g_assert_true (g_file_set_contents (taken, big, size, NULL));
  if ((read_before = thread_read_bytes ()) < 0)
    {
      g_test_skip ("No per-thread I/O accounting");
      return;
    }
  km_document_save_with_body_copies_async (f->document, f->file, NULL, skeleton_case_saved_cb,
                                           &r);
  read_after = thread_read_bytes ();
  g_assert_cmpint (read_after - read_before, <, (gint64) size / 8);

  g_assert_true (test_app_wait_flag (&r.done, 20000));
  g_assert_no_error (r.error);
  g_assert_true (r.ok);
  g_assert_true (g_file_get_contents (taken, &after, &after_size, NULL));
  g_assert_true (after_size == size && memcmp (after, big, size) == 0);
  g_assert_true (g_file_test (numbered, G_FILE_TEST_IS_REGULAR));
  g_assert_cmpstr (km_body_item_get_file (KM_BODY_ITEM (km_document_get_body_item (f->document))),
                   ==, numbered);
}

/* A project without a motion (a body and nothing else): the time bar shows its 10 s, and
 * the TimeBar state a save writes for Choreonoid spans them (it used to say max_time: 0,
 * the end of a single frame). Opened again, the time bar shows the same range. (The time
 * is moved before the save: a project without a TimeBar only gets one for something the
 * user changed that it holds, test_save_no_time_bar_stays_without.) */
static void
test_save_without_motion_time_range (Fixture       *f,
                                     gconstpointer  data)
{
  g_autofree char *arm_dir = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema", NULL);
  g_autofree char *project = g_strdup_printf (
    "items:\n"
    "  id: 0\n  name: \"RootItem\"\n  plugin: Base\n  class: RootItem\n"
    "  is_builtin_item: true\n"
    "  children:\n"
    "    -\n      id: 1\n      name: \"World\"\n      plugin: Body\n"
    "      class: WorldItem\n      is_checked: true\n"
    "      children:\n"
    "        -\n          id: 2\n          name: \"Still\"\n"
    "          plugin: Body\n          class: BodyItem\n          is_checked: true\n"
    "          data:\n            file: \"%s/arm.json\"\n"
    "            format: SKELETON-JSON\n            fix_root: true\n",
    arm_dir);
  g_autofree char *text = NULL;
  g_autofree char *expected = NULL;
  g_autoptr(GError) error = NULL;
  KmTimeBarState state;
  double rate, shown_end;
  guint timeline_frames;

  g_file_set_contents (f->path, project, -1, &error);
  g_assert_no_error (error);
  g_assert_true (test_app_open_file (f->window, f->file));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  test_app_spin ();
  g_assert_cmpstr (km_item_get_name (km_document_get_body_item (f->document)), ==, "Still");
  g_assert_cmpuint (km_document_get_n_frames (f->document), ==, 1);
  /* What the time bar shows: its upper end (km-time-bar.c, document_range_changed_cb) */
  rate = km_document_get_frame_rate (f->document);
  timeline_frames = km_document_get_timeline_frames (f->document);
  shown_end = (timeline_frames - 1) / rate;
  g_assert_cmpfloat_with_epsilon (shown_end, 10.0, 1e-9);

  km_document_set_dof_value (f->document, 1, 0.3);
  km_document_set_current_frame (f->document, (guint) round (2 * rate));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.save", NULL));
  g_assert_true (test_app_wait_saved (f->window));
  g_assert_false (km_document_get_modified (f->document));
  text = read_file (f->path);
  g_assert_null (strstr (text, "max_time: 0\n"));
  expected = g_strdup_printf ("\n    max_time: %g\n", shown_end);
  g_assert_nonnull (strstr (text, expected));

  /* Opened again: the state says so, and the time bar shows the same range. */
  g_assert_true (test_app_open_file (f->window, f->file));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  test_app_spin ();
  g_assert_true (km_layout_state_get_time_bar (km_document_get_project (f->document), &state));
  g_assert_cmpfloat_with_epsilon (state.max_time, shown_end, 1e-9);
  g_assert_cmpfloat (state.min_time, ==, 0.0);
  g_assert_cmpuint (km_document_get_timeline_frames (f->document), ==, timeline_frames);
  g_assert_cmpfloat (km_document_get_frame_rate (f->document), ==, rate);
}

/* A Choreonoid user's TimeBar: a time past a short motion's end, a range longer than the
 * motion, a min_time, and a frame rate of its own. */
#define SAVED_TIME_BAR \
  "toolbars:\n" \
  "  \"TimeBar\":\n" \
  "    current_time: 1.5\n" \
  "    min_time: 0.5\n" \
  "    max_time: 30\n" \
  "    frame_rate: 100\n" \
  "    playback_frame_rate: 60\n" \
  "    playback_speed_ratio: 1\n"

/* Writes @text as f->path and opens it in the window. */
static void
open_project_text (Fixture    *f,
                   const char *text)
{
  g_autoptr(GError) error = NULL;

  g_file_set_contents (f->path, text, -1, &error);
  g_assert_no_error (error);
  g_assert_true (test_app_open_file (f->window, f->file));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  test_app_spin ();
  g_assert_false (km_document_get_modified (f->document));
}

/* File → Save with no edit; the file's text. */
static char *
save_unedited (Fixture *f)
{
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.save", NULL));
  g_assert_true (test_app_wait_saved (f->window));
  g_assert_false (km_document_get_modified (f->document));
  return read_file (f->path);
}

/* The time bar shows the project's saved range (30 s, longer than its motion) at its
 * saved time (1.5 s, past the motion's end). */
static void
assert_saved_time_bar_shown (Fixture *f)
{
  double rate = km_document_get_frame_rate (f->document);

  g_assert_cmpuint (km_document_get_timeline_frames (f->document) - 1, ==,
                    (guint) round (30 * rate));
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, (guint) round (1.5 * rate));
}

/* A project of one body, "Still" (the arm of data/cnoid/kinema, its root fixed, no
 * motion), with @tail (the project's toolbars, or "") after its items. */
static char *
still_arm_project (const char *tail)
{
  g_autofree char *arm = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema",
                                                "arm.json", NULL);

  return g_strdup_printf (
    "items:\n"
    "  id: 0\n  name: \"RootItem\"\n  plugin: Base\n  class: RootItem\n"
    "  is_builtin_item: true\n"
    "  children:\n"
    "    -\n      id: 1\n      name: \"Still\"\n"
    "      plugin: Body\n      class: BodyItem\n      is_checked: true\n"
    "      data:\n        file: \"%s\"\n"
    "        format: SKELETON-JSON\n        fix_root: true\n"
    "%s", arm, tail);
}

/* Review rev25 defect 1: a project with a body and no motion, opened and saved with no edit,
 * writes the TimeBar it read (it wrote current_time 0, min_time 0 and max_time 10: the
 * time was clamped to the motion's single frame and the range replaced by the time bar's
 * 10 s); the time bar shows the saved range meanwhile. */
static void
test_save_keeps_time_bar_without_motion (Fixture       *f,
                                         gconstpointer  data)
{
  g_autofree char *project = still_arm_project (SAVED_TIME_BAR);
  g_autofree char *text = NULL;

  open_project_text (f, project);
  g_assert_cmpuint (km_document_get_n_frames (f->document), ==, 1);
  g_assert_cmpfloat (km_document_get_frame_rate (f->document), ==, 100);
  assert_saved_time_bar_shown (f);

  text = save_unedited (f);
  g_assert_nonnull (strstr (text, "\n" SAVED_TIME_BAR));

  /* Opened again: the same. */
  open_project_text (f, text);
  assert_saved_time_bar_shown (f);
}

/* The same with a short body motion (0.08 s of SR1 at 50 frames a second): the time is not
 * clamped to the motion's end (it became 0.08) and the saved range is not replaced by the
 * motion's (it became 0.08 too). */
static void
test_save_keeps_time_bar_short_motion (Fixture       *f,
                                       gconstpointer  data)
{
  g_autofree char *body = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "share",
                                                 "model", "SR1", "SR1.body", NULL);
  g_autofree char *seq = g_test_build_filename (G_TEST_DIST, "data", "body-motion",
                                                "sr1-walk.seq", NULL);
  g_autofree char *project = g_strdup_printf (
    "items:\n"
    "  id: 0\n  name: \"Root\"\n  plugin: Base\n  class: RootItem\n"
    "  children:\n"
    "    -\n      id: 1\n      name: \"SR1\"\n"
    "      plugin: Body\n      class: BodyItem\n      is_checked: true\n"
    "      data:\n        file: \"%s\"\n        format: CHOREONOID-BODY\n"
    "      children:\n"
    "        -\n          id: 2\n          name: \"walk\"\n"
    "          plugin: Body\n          class: BodyMotionItem\n"
    "          data:\n            file: \"%s\"\n"
    "            format: CHOREONOID-BODY-MOTION-YAML\n"
    SAVED_TIME_BAR, body, seq);
  g_autofree char *text = NULL;
  double rate;

  open_project_text (f, project);
  g_assert_nonnull (km_document_get_animation (f->document));
  rate = km_document_get_frame_rate (f->document);
  g_assert_cmpuint (km_document_get_n_frames (f->document), >, 1);
  g_assert_cmpfloat ((km_document_get_n_frames (f->document) - 1) / rate, <, 1.5);
  assert_saved_time_bar_shown (f);

  text = save_unedited (f);
  g_assert_nonnull (strstr (text, "\n" SAVED_TIME_BAR));
}

/* A project without a TimeBar (Choreonoid's ClosedLinkSample.cnoid has no `toolbars`)
 * saved with no edit gets none (it got one at 30 frames a second, which changed
 * Choreonoid's frame rate for it), nor for an edit that is not of the time bar's state; it
 * gets one once the time is moved. */
static void
test_save_no_time_bar_stays_without (Fixture       *f,
                                     gconstpointer  data)
{
  g_autofree char *project = still_arm_project ("");
  g_autofree char *text = NULL;
  g_autofree char *edited = NULL;
  g_autofree char *moved = NULL;
  g_autofree char *expected = NULL;

  open_project_text (f, project);
  text = save_unedited (f);
  g_assert_null (strstr (text, "TimeBar"));
  g_assert_null (strstr (text, "toolbars"));

  km_document_set_dof_value (f->document, 1, 0.3);
  edited = save_unedited (f);
  g_assert_null (strstr (edited, "TimeBar"));

  km_document_set_current_frame (f->document, 15);
  moved = save_unedited (f);
  g_assert_nonnull (strstr (moved, "  \"TimeBar\":\n"));
  expected = g_strdup_printf ("\n    current_time: %g\n",
                              15 / km_document_get_frame_rate (f->document));
  g_assert_nonnull (strstr (moved, expected));
}

/* A TimeBar whose min_time lies past the range Kinema writes (no max_time, and the time at
 * 0; or the file's own min_time above its max_time) is written with min_time 0, Kinema's
 * own start: kept as read, it gave Choreonoid a range that ends before it begins (rev25-code
 * 5). A min_time within the range stays as read (the tests above). */
static void
test_save_min_time_within_range (Fixture       *f,
                                 gconstpointer  data)
{
  g_autofree char *project = still_arm_project ("toolbars:\n"
                                                "  \"TimeBar\":\n"
                                                "    min_time: 20\n"
                                                "    frame_rate: 100\n");
  g_autofree char *text = NULL;
  KmTimeBarState state;

  open_project_text (f, project);
  text = save_unedited (f);
  g_assert_true (km_layout_state_get_time_bar (km_document_get_project (f->document), &state));
  g_assert_cmpfloat (state.min_time, <=, state.current_time);
  g_assert_cmpfloat (state.min_time, <=, state.max_time);
  g_assert_nonnull (strstr (text, "\n    min_time: 0\n"));
}

/* Close → Save: the window closes once the file is written. Closing while a Save runs
 * waits for it too. */
static void
test_close_waits_for_save (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *before = save_then_edit (f);
  g_autofree char *after = NULL;
  g_autoptr(KmDocument) document = g_object_ref (f->document);
  gboolean destroyed = FALSE;

  g_signal_connect_swapped (f->window, "destroy", G_CALLBACK (window_destroyed_cb), &destroyed);
  gtk_window_close (GTK_WINDOW (f->window));
  test_app_spin ();
  gtk_dialog_response (GTK_DIALOG (km_window_get_question (f->window)), GTK_RESPONSE_ACCEPT);
  g_assert_true (km_window_get_saving (f->window));
  g_assert_false (destroyed);
  /* Closed again while writing: still waits, and asks nothing. */
  gtk_window_close (GTK_WINDOW (f->window));
  g_assert_false (destroyed);
  g_assert_null (km_window_get_question (f->window));

  g_assert_true (test_app_wait_until (is_true, &destroyed, 20000));
  f->window = NULL;
  f->document = NULL;
  g_assert_false (km_document_get_modified (document));
  after = read_file (f->path);
  g_assert_cmpstr (after, !=, before);
  g_assert_true (test_app_wait_idle_solve (document, 20000));
}

static void
skeleton_saved_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  gboolean *done = user_data;

  km_document_save_skeleton_finish (KM_DOCUMENT (source), result, NULL);
  *done = TRUE;
}

/* Closing while a Skeleton tab file is written waits for it, then closes as any close
 * does (asking about the unsaved project: the body refers to the file now, a step); the
 * process never ends in the middle of that write. */
static void
test_close_waits_for_skeleton_save (Fixture       *f,
                                    gconstpointer  data)
{
  g_autofree char *path = g_build_filename (f->dir, "arm.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(KmDocument) document = g_object_ref (f->document);
  gboolean destroyed = FALSE;
  gboolean done = FALSE;

  g_assert_false (km_document_get_modified (f->document));
  g_signal_connect_swapped (f->window, "destroy", G_CALLBACK (window_destroyed_cb), &destroyed);
  km_document_save_skeleton_async (f->document, file, NULL, skeleton_saved_cb, &done);
  gtk_window_close (GTK_WINDOW (f->window));
  g_assert_false (destroyed);
  g_assert_null (km_window_get_question (f->window));

  g_assert_true (test_app_wait_flag (&done, 20000));
  test_app_spin ();
  g_assert_false (destroyed);
  g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
  g_assert_true (km_document_get_modified (f->document));
  g_assert_nonnull (km_window_get_question (f->window));
  gtk_dialog_response (GTK_DIALOG (km_window_get_question (f->window)), GTK_RESPONSE_REJECT);
  g_assert_true (test_app_wait_until (is_true, &destroyed, 20000));
  f->window = NULL;
  f->document = NULL;
  g_assert_true (test_app_wait_idle_solve (document, 20000));
}

/* A Skeleton tab file that cannot be written: the close that waited for it does not
 * happen, and the messages show why. */
static void
test_close_after_failed_skeleton_save (Fixture       *f,
                                       gconstpointer  data)
{
  g_autofree char *path = g_build_filename (f->dir, "missing", "arm.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  gboolean destroyed = FALSE;
  gboolean done = FALSE;
  gboolean show_messages = FALSE;

  g_object_set (f->window, "show-messages", FALSE, NULL);
  g_signal_connect_swapped (f->window, "destroy", G_CALLBACK (window_destroyed_cb), &destroyed);
  km_document_save_skeleton_async (f->document, file, NULL, skeleton_saved_cb, &done);
  gtk_window_close (GTK_WINDOW (f->window));
  g_assert_false (destroyed);
  g_assert_true (test_app_wait_flag (&done, 20000));
  test_app_spin ();

  g_assert_false (destroyed);
  g_assert_null (km_window_get_question (f->window));
  g_object_get (f->window, "show-messages", &show_messages, NULL);
  g_assert_true (show_messages);
  g_signal_handlers_disconnect_by_func (f->window, window_destroyed_cb, &destroyed);
}

static gboolean
count_idle_cb (gpointer data)
{
  (*(guint *) data)++;
  return G_SOURCE_CONTINUE;
}

/* A 10,000-frame animation is written while the main loop keeps running. Prints how long
 * Save held the main thread (the project's text is made there) and how long the write
 * took on the worker. */
static void
test_main_loop_runs_while_saving (Fixture       *f,
                                  gconstpointer  data)
{
  KmSkeleton *skeleton = km_document_get_skeleton (f->document);
  guint n_dof = km_skeleton_get_n_dof (skeleton);
  g_autoptr(KmAnimation) animation = km_animation_new (skeleton, 10000);
  g_autoptr(KmItem) item = km_ik_animation_item_new ();
  g_autofree double *q = g_new0 (double, n_dof);
  g_autofree char *text = NULL;
  guint iterations = 0;
  gint64 start, returned, written;
  guint idle_id;

  for (guint frame = 0; frame < 10000; frame++)
    {
      for (guint i = 0; i < n_dof; i++)
        q[i] = 1e-4 * frame + 0.01 * i;
      km_animation_set_frame (animation, frame, q);
    }
  km_ik_animation_item_set_animation (KM_IK_ANIMATION_ITEM (item), animation);
  km_item_set_name (item, "Long Animation");
  km_item_append_child (km_document_get_body_item (f->document), item);
  {
    g_autoptr(GError) error = NULL;

    g_assert_true (km_document_save (f->document, f->file, &error));
    g_assert_no_error (error);
  }
  km_document_set_dof_value (f->document, 1, 0.3);

  /* At the default priority, as the save's completion: lower ones may starve while the
   * window redraws. */
  idle_id = g_idle_add_full (G_PRIORITY_DEFAULT, count_idle_cb, &iterations, NULL);
  start = g_get_monotonic_time ();
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.save", NULL));
  returned = g_get_monotonic_time ();
  g_assert_cmpuint (iterations, ==, 0);
  g_assert_true (test_app_wait_saved (f->window));
  written = g_get_monotonic_time ();
  g_source_remove (idle_id);

  g_test_message ("10000 frames x %u DOF: main thread %.1f ms, worker write %.1f ms, "
                  "%u main-loop iterations meanwhile", n_dof, (returned - start) / 1000.0,
                  (written - returned) / 1000.0, iterations);
  g_assert_cmpuint (iterations, >, 1);
  g_assert_false (km_document_get_modified (f->document));
  text = read_file (f->path);
  g_assert_nonnull (strstr (text, "Long Animation"));
  g_assert_nonnull (strstr (text, "frame: 9999"));
}

typedef struct
{
  gboolean  done;
  gboolean  ok;
  GError   *error;
} Result;

static void
autosave_done_cb (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  Result *r = user_data;

  r->ok = km_autosave_save_finish (KM_AUTOSAVE (source), result, &r->error);
  r->done = TRUE;
}

/* The autosave writes on a worker thread, one write at a time, and leaves the document's
 * file and modified flag alone. */
static void
test_autosave_async (Fixture       *f,
                     gconstpointer  data)
{
  KmAutosave *autosave = km_window_get_autosave (f->window);
  const char *path = km_autosave_get_path (autosave);
  g_autofree char *before = save_then_edit (f);
  g_autofree char *text = NULL;
  Result first = { 0, };
  Result second = { 0, };

  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  km_autosave_save_async (autosave, NULL, autosave_done_cb, &first);
  g_assert_true (km_autosave_get_writing (autosave));
  km_autosave_save_async (autosave, NULL, autosave_done_cb, &second);
  g_assert_true (test_app_wait_until (is_true, &second.done, 20000));
  g_assert_error (second.error, G_IO_ERROR, G_IO_ERROR_PENDING);
  g_clear_error (&second.error);
  g_assert_true (test_app_wait_until (is_true, &first.done, 20000));
  g_assert_no_error (first.error);
  g_assert_true (first.ok);
  g_assert_false (km_autosave_get_writing (autosave));

  text = read_file (path);
  g_assert_nonnull (strstr (text, "class: BodyItem"));
  g_assert_true (km_document_get_modified (f->document));
  g_assert_true (g_file_equal (km_document_get_file (f->document), f->file));

  /* Saved while an autosave is written: the autosave is gone once it is written. (The
   * result is cleared first: waiting on the refused call's would not wait for this one.) */
  second = (Result) { 0, };
  km_autosave_save_async (autosave, NULL, autosave_done_cb, &second);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.save", NULL));
  g_assert_true (test_app_wait_saved (f->window));
  g_assert_true (test_app_wait_until (is_true, &second.done, 20000));
  g_assert_no_error (second.error);
  g_assert_false (km_document_get_modified (f->document));
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
}

static void
autosave_gone_cb (gpointer  data,
                  GObject  *where_the_object_was)
{
  *(gboolean *) data = TRUE;
}

static gboolean
drop_autosave_cb (gpointer data)
{
  g_object_unref (data);
  return G_SOURCE_REMOVE;
}

/* Told to end while a timed autosave is written, Kinema keeps the work (km_autosave_keep);
 * the owner's reference may go while it waits for that write (a window destroyed meanwhile):
 * the autosave must stay alive until keep() is done with it, and keep its file. The review
 * found keep() going on with a freed autosave (read under valgrind; a critical here). */
static void
test_autosave_keep_outlives_owner (Fixture       *f,
                                   gconstpointer  data)
{
  g_autofree char *before = save_then_edit (f);
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  g_autofree char *text = NULL;
  KmAutosave *autosave = km_autosave_new (f->document);
  gboolean gone = FALSE;

  path = g_strdup (km_autosave_get_path (autosave));
  km_autosave_save_async (autosave, NULL, NULL, NULL);
  g_assert_true (km_autosave_get_writing (autosave));
  g_object_weak_ref (G_OBJECT (autosave), autosave_gone_cb, &gone);
  /* The owner lets go while keep() waits, before the write's end is dispatched. */
  g_idle_add_full (G_PRIORITY_HIGH, drop_autosave_cb, autosave, NULL);
  g_assert_true (km_autosave_keep (autosave, &error));
  g_assert_no_error (error);
  /* Gone (its lock with it) once keep() and its last write are done; the file is kept. */
  g_assert_true (test_app_wait_until (is_true, &gone, 20000));
  text = read_file (path);
  g_assert_nonnull (strstr (text, "class: BodyItem"));
  g_unlink (path);
}

/* The number of entries in the folder @path (-1: no folder). */
static int
count_entries (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  int n = 0;

  if (dir == NULL)
    return -1;
  while (g_dir_read_name (dir) != NULL)
    n++;
  return n;
}

/* A folder @name in @dir holding a folder with a file, as an autosave's skeleton copies. */
static char *
make_models (const char *dir,
             const char *name)
{
  char *models = g_build_filename (dir, name, NULL);
  g_autofree char *copies = g_build_filename (models, "1", NULL);
  g_autofree char *copy = g_build_filename (copies, "1.json", NULL);

  g_assert_cmpint (g_mkdir_with_parents (copies, 0700), ==, 0);
  g_assert_true (g_file_set_contents (copy, "{}", -1, NULL));
  return models;
}

/* Removes what make_models() made. */
static void
remove_models_tree (const char *models)
{
  g_autofree char *copies = g_build_filename (models, "1", NULL);
  g_autofree char *copy = g_build_filename (copies, "1.json", NULL);

  g_unlink (copy);
  g_rmdir (copies);
  g_rmdir (models);
}

/* An edited skeleton is kept beside the autosave, in a folder for each write that goes
 * once the next one is written, and with the autosave when it is discarded. Listing the
 * autosaves to recover removes the copies whose autosave is gone, unless the process that
 * wrote them runs. */
static void
test_autosave_skeleton_copies (Fixture       *f,
                               gconstpointer  data)
{
  KmAutosave *autosave = km_window_get_autosave (f->window);
  const char *path = km_autosave_get_path (autosave);
  g_autofree char *models = g_strconcat (path, ".models", NULL);
  g_autofree char *dir = km_autosave_get_directory ();
  KmSkeleton *skeleton = km_document_get_skeleton (f->document);
  KmVec3 offset = km_skeleton_get_joint (skeleton, 1)->offset;
  g_autoptr(KmSkeleton) edited = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) recovery = NULL;
  g_autofree char *orphan = NULL;
  g_autofree char *running = NULL;
  g_autofree char *listed = NULL;
  g_autofree char *listed_file = NULL;
  g_autofree char *orphan_name = NULL;
  g_autofree char *listed_name = NULL;
  g_autofree char *running_lock = NULL;
  int running_fd;
  pid_t child;

  offset.x = 0.25;
  edited = km_skeleton_edit_set_offset (skeleton, 1, offset, &error);
  g_assert_no_error (error);
  g_assert_true (km_document_edit_skeleton (f->document, edited, "Move Joint", NULL));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));

  g_assert_true (km_autosave_save_now (autosave, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_cmpint (count_entries (models), ==, 1);
  g_assert_true (km_autosave_save_now (autosave, &error));
  g_assert_no_error (error);
  g_assert_cmpint (count_entries (models), ==, 1);
  km_autosave_discard (autosave);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (models, G_FILE_TEST_EXISTS));

  /* A process that has ended (a child waited for), one that runs (its lock held, here by
   * this process through a descriptor of its own). */
  child = fork ();
  if (child == 0)
    _exit (0);
  g_assert_cmpint (child, >, 0);
  g_assert_cmpint (waitpid (child, NULL, 0), ==, child);
  orphan_name = g_strdup_printf ("autosave-%d-0.cnoid.models", (int) child);
  orphan = make_models (dir, orphan_name);
  running = make_models (dir, "autosave-1-0.cnoid.models");
  running_lock = g_build_filename (dir, "autosave-1-0.cnoid.lock", NULL);
  running_fd = open (running_lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  g_assert_cmpint (running_fd, >=, 0);
  g_assert_cmpint (flock (running_fd, LOCK_EX | LOCK_NB), ==, 0);
  /* (Without a lock file: its owner never made one, or the lock was released and
   * removed.) */
  listed_name = g_strdup_printf ("autosave-%d-1.cnoid.models", (int) child);
  listed = make_models (dir, listed_name);
  listed_file = g_strndup (listed, strlen (listed) - strlen (".models"));
  g_assert_true (g_file_set_contents (listed_file, "items: {}\n", -1, NULL));

  recovery = km_autosave_list_recovery ();
  g_assert_cmpuint (recovery->len, ==, 1);
  g_assert_false (g_file_test (orphan, G_FILE_TEST_EXISTS));
  g_assert_cmpint (count_entries (running), ==, 1);
  g_assert_cmpint (count_entries (listed), ==, 1);
  g_unlink (listed_file);
  remove_models_tree (listed);
  remove_models_tree (running);
  g_unlink (running_lock);
  close (running_fd);
}

/* Whether @files (of GFile) holds the file at @path. */
static gboolean
lists_path (GPtrArray  *files,
            const char *path)
{
  for (guint i = 0; i < files->len; i++)
    {
      g_autofree char *p = g_file_get_path (g_ptr_array_index (files, i));

      if (g_strcmp0 (p, path) == 0)
        return TRUE;
    }
  return FALSE;
}

/* Another Kinema that runs: a child process that holds the lock of its autosave
 * (autosave-ITS_ID-0.cnoid in @dir), as a live instance does, until @hold is closed. */
static pid_t
spawn_lock_holder (const char *dir,
                   int        *hold_write)
{
  int ready[2], hold[2];
  char byte;
  pid_t child;

  g_assert_cmpint (pipe (ready), ==, 0);
  g_assert_cmpint (pipe (hold), ==, 0);
  child = fork ();
  if (child == 0)
    {
      char lock[4096];
      int fd;

      /* Only async-signal-safe calls until _exit. */
      close (ready[0]);
      close (hold[1]);
      snprintf (lock, sizeof lock, "%s/autosave-%d-0.cnoid.lock", dir, (int) getpid ());
      fd = open (lock, O_RDWR | O_CREAT, 0600);
      if (fd < 0 || flock (fd, LOCK_EX | LOCK_NB) != 0)
        _exit (1);
      byte = 1;
      if (write (ready[1], &byte, 1) != 1)
        _exit (1);
      while (read (hold[0], &byte, 1) > 0)
        ;
      _exit (0);
    }
  g_assert_cmpint (child, >, 0);
  close (ready[1]);
  close (hold[0]);
  g_assert_cmpint (read (ready[0], &byte, 1), ==, 1);
  close (ready[0]);
  *hold_write = hold[1];
  return child;
}

/* The autosave of another Kinema that still runs is not offered for recovery, and listing
 * leaves it and its skeleton copies alone, although the process id in its name may be any
 * (ids are reused, and each Flatpak sandbox counts from 1): its lock is held. Once that
 * process has ended, the autosave is offered, and a claim keeps a third instance from
 * offering it as well. */
static void
test_autosave_live_owner (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *dir = km_autosave_get_directory ();
  g_autofree char *name = NULL;
  g_autofree char *path = NULL;
  g_autofree char *lock = NULL;
  g_autofree char *models = NULL;
  g_autofree char *models_name = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GPtrArray) recovery = NULL;
  int hold = -1;
  int status = 0;
  int fd;
  pid_t child;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  child = spawn_lock_holder (dir, &hold);
  name = g_strdup_printf ("autosave-%d-0.cnoid", (int) child);
  models_name = g_strconcat (name, ".models", NULL);
  path = g_build_filename (dir, name, NULL);
  lock = g_strconcat (path, ".lock", NULL);
  file = g_file_new_for_path (path);
  /* Its unsaved work: the copy of a skeleton, then the project. */
  models = g_strconcat (path, ".models", NULL);
  g_free (make_models (dir, models_name));
  g_assert_true (g_file_set_contents (path, "items: {}\n", -1, NULL));

  recovery = km_autosave_list_recovery ();
  g_assert_false (lists_path (recovery, path));
  g_assert_false (km_autosave_claim (file));
  g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_cmpint (count_entries (models), ==, 1);
  g_clear_pointer (&recovery, g_ptr_array_unref);

  /* The other Kinema ends (a crash looks the same: the kernel drops the lock). */
  close (hold);
  g_assert_cmpint (waitpid (child, &status, 0), ==, child);
  g_assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 0);
  recovery = km_autosave_list_recovery ();
  g_assert_true (lists_path (recovery, path));
  g_assert_cmpint (count_entries (models), ==, 1);
  g_assert_true (km_autosave_claim (file));
  /* Claimed: another instance finds its lock held, as a running owner's. */
  fd = open (lock, O_RDWR);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (flock (fd, LOCK_EX | LOCK_NB), !=, 0);
  close (fd);

  g_unlink (path);
  remove_models_tree (models);
}

/* A process with this one's id (reused) ended and left an autosave: it is offered, not
 * taken for this process's own, and this process's autosaves pick another name. */
static void
test_autosave_reused_pid (Fixture       *f,
                          gconstpointer  data)
{
  KmAutosave *first = km_autosave_new (f->document);
  g_autofree char *first_path = g_strdup (km_autosave_get_path (first));
  g_autofree char *dir = g_path_get_dirname (first_path);
  g_autofree char *left_name = NULL;
  g_autofree char *left = NULL;
  g_autoptr(GPtrArray) recovery = NULL;
  KmAutosave *second;
  int pid = 0, n = -1;

  g_assert_cmpint (sscanf (strrchr (first_path, '/'), "/autosave-%d-%d.cnoid", &pid, &n), ==, 2);
  g_assert_cmpint (pid, ==, (int) getpid ());
  g_object_unref (first);
  /* The name this process would give its next autosave. */
  left_name = g_strdup_printf ("autosave-%d-%d.cnoid", pid, n + 1);
  left = g_build_filename (dir, left_name, NULL);
  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (left, "items: {}\n", -1, NULL));

  second = km_autosave_new (f->document);
  g_assert_cmpstr (km_autosave_get_path (second), !=, left);
  recovery = km_autosave_list_recovery ();
  g_assert_true (lists_path (recovery, left));
  g_object_unref (second);
  g_assert_true (g_file_test (left, G_FILE_TEST_EXISTS));
  g_unlink (left);
}

/* A skeleton.json of the user's, not the built-in example's: a one-hinge arm. */
static const char foreign_skeleton[] =
  "{\n"
  "  \"root_name\": \"Base\",\n"
  "  \"joints\": [\n"
  "    { \"name\": \"Base\", \"type\": \"fixed\", \"offset\": [0, 0, 0], \"parent\": null },\n"
  "    { \"name\": \"Hinge\", \"type\": \"revolute\", \"offset\": [0, 0, 1],\n"
  "      \"parent\": \"Base\", \"axis\": [0, 0, 1] }\n"
  "  ]\n"
  "}\n";

/* Whether the file at @path holds the built-in example's model, byte for byte. */
static gboolean
holds_example_model (const char *path)
{
  g_autoptr(GBytes) model = km_defaults_get_skeleton_json ();
  g_autofree char *text = NULL;
  gsize length = 0;

  if (!g_file_get_contents (path, &text, &length, NULL))
    return FALSE;
  return length == g_bytes_get_size (model)
         && memcmp (text, g_bytes_get_data (model, NULL), length) == 0;
}

/* @path opened in a new document reads the built-in example: its five joints, its
 * animation of @n_frames frames, and no warning. */
static void
assert_reopens_example (const char *path,
                        guint       n_frames)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(KmDocument) reopened = km_document_new ();
  g_autoptr(GError) error = NULL;
  GListModel *messages = km_document_get_messages (reopened);
  KmAnimation *animation;

  g_assert_true (km_document_import_file (reopened, file, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_wait_idle_solve (reopened, 20000));
  g_assert_nonnull (km_document_get_skeleton (reopened));
  g_assert_cmpuint (km_skeleton_get_n_joints (km_document_get_skeleton (reopened)), ==, 5);
  g_assert_cmpuint (km_skeleton_get_n_dof (km_document_get_skeleton (reopened)), ==, 5);
  animation = km_document_get_animation (reopened);
  g_assert_nonnull (animation);
  g_assert_cmpuint (km_animation_get_n_frames (animation), ==, n_frames);
  for (guint i = 0; i < g_list_model_get_n_items (messages); i++)
    {
      g_autoptr(KmMessage) message = g_list_model_get_item (messages, i);

      if (km_message_get_level (message) == G_LOG_LEVEL_WARNING)
        g_error ("unexpected warning: %s", km_message_get_text (message));
    }
}

/* Save As of the built-in example into a folder with a skeleton.json of the user's leaves
 * that file as it was and puts the example's model beside it under a free name, which the
 * project refers to (and the next save uses again); the project reopens as the example.
 * An autosave next to such a file leaves it alone as well, and reopens as the example. */
static void
test_save_example_beside_foreign_skeleton (Fixture       *f,
                                           gconstpointer  data)
{
  g_autofree char *foreign = g_build_filename (f->dir, "skeleton.json", NULL);
  g_autofree char *second = g_build_filename (f->dir, "skeleton-2.json", NULL);
  g_autofree char *third = g_build_filename (f->dir, "skeleton-3.json", NULL);
  KmAutosave *autosave = km_window_get_autosave (f->window);
  const char *autosave_path = km_autosave_get_path (autosave);
  g_autofree char *autosave_dir = g_path_get_dirname (autosave_path);
  g_autofree char *autosave_foreign = g_build_filename (autosave_dir, "skeleton.json", NULL);
  g_autofree char *autosave_second = g_build_filename (autosave_dir, "skeleton-2.json", NULL);
  g_autofree char *text = NULL;
  g_autofree char *after = NULL;
  g_autoptr(GError) error = NULL;
  guint n_frames;

  g_assert_nonnull (km_document_get_animation (f->document));
  n_frames = km_animation_get_n_frames (km_document_get_animation (f->document));
  g_assert_cmpuint (n_frames, >, 0);
  g_assert_true (g_file_set_contents (foreign, foreign_skeleton, -1, NULL));

  km_document_save_async (f->document, f->file, NULL, NULL, NULL);
  g_assert_true (test_app_wait_document_saved (f->document));
  g_assert_false (km_document_get_modified (f->document));
  after = read_file (foreign);
  g_assert_cmpstr (after, ==, foreign_skeleton);
  g_assert_true (holds_example_model (second));
  text = read_file (f->path);
  g_assert_nonnull (strstr (text, "skeleton-2.json"));
  g_assert_null (strstr (text, "skeleton.json"));
  assert_reopens_example (f->path, n_frames);

  /* Saved again: the copy there is the example's, and is used again. */
  km_document_set_dof_value (f->document, 1, 0.3);
  g_assert_true (km_document_save (f->document, f->file, &error));
  g_assert_no_error (error);
  g_clear_pointer (&after, g_free);
  after = read_file (foreign);
  g_assert_cmpstr (after, ==, foreign_skeleton);
  g_assert_false (g_file_test (third, G_FILE_TEST_EXISTS));
  g_clear_pointer (&text, g_free);
  text = read_file (f->path);
  g_assert_nonnull (strstr (text, "skeleton-2.json"));
  g_assert_null (strstr (text, "skeleton.json"));
  g_unlink (second);

  /* The autosave, beside a skeleton.json that is not the example's. */
  g_assert_cmpint (g_mkdir_with_parents (autosave_dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (autosave_foreign, foreign_skeleton, -1, NULL));
  km_document_set_dof_value (f->document, 1, 0.1);
  g_assert_true (km_autosave_save_now (autosave, &error));
  g_assert_no_error (error);
  g_clear_pointer (&after, g_free);
  after = read_file (autosave_foreign);
  g_assert_cmpstr (after, ==, foreign_skeleton);
  /* The autosave keeps the example's model in its own folder, not in the one all
   * autosaves share. */
  g_assert_false (g_file_test (autosave_second, G_FILE_TEST_EXISTS));
  g_clear_pointer (&text, g_free);
  text = read_file (autosave_path);
  g_assert_null (strstr (text, "skeleton-2.json"));
  g_assert_nonnull (strstr (text, ".cnoid.models/"));
  assert_reopens_example (autosave_path, n_frames);
  km_autosave_discard (autosave);
  g_unlink (autosave_foreign);
  g_unlink (autosave_second);
}

static void
item_done_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  Result *r = user_data;

  r->ok = km_document_save_item_finish (KM_DOCUMENT (source), result, &r->error);
  r->done = TRUE;
}

/* Save Item As writes the item's contents on a worker thread. */
static void
test_save_item_async (Fixture       *f,
                      gconstpointer  data)
{
  KmItem *body = km_document_get_body_item (f->document);
  KmItem *targets = km_item_find_child_by_type (body, KM_TYPE_IK_TARGETS_ITEM);
  g_autofree char *path = g_build_filename (f->dir, "targets.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autofree char *expected = g_strdup_printf ("Saved “%s” to %s.", km_item_get_name (targets),
                                               path);
  g_autofree char *text = NULL;
  Result r = { 0, };

  km_document_save_item_async (f->document, targets, file, NULL, item_done_cb, &r);
  g_assert_false (r.done);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_true (test_app_wait_until (is_true, &r.done, 20000));
  g_assert_no_error (r.error);
  g_assert_true (r.ok);
  text = read_file (path);
  g_assert_nonnull (strstr (text, "\"frame\": 240"));
  g_assert_cmpstr (last_message (f->document, NULL), ==, expected);

  /* An item that holds nothing to save fails, writing nothing. */
  memset (&r, 0, sizeof r);
  km_document_save_item_async (f->document, km_item_get_parent (body), file, NULL,
                               item_done_cb, &r);
  g_assert_true (test_app_wait_until (is_true, &r.done, 20000));
  g_assert_error (r.error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
  g_clear_error (&r.error);
}

/* Items take the ids a background save wrote them with, as after a synchronous save: the
 * next save writes the same ids, whatever was added before them meanwhile. */
static void
test_save_keeps_ids (Fixture       *f,
                     gconstpointer  data)
{
  KmItem *body = km_document_get_body_item (f->document);
  KmItem *child = km_item_get_child (body, 0);
  g_autofree char *text = NULL;
  g_autofree char *body_id = NULL;
  g_autofree char *child_id = NULL;

  g_assert_cmpint (km_item_get_id (body), <, 0);
  g_assert_cmpint (km_item_get_id (child), <, 0);
  km_document_save_async (f->document, f->file, NULL, NULL, NULL);
  g_assert_true (km_document_get_saving (f->document));
  g_assert_cmpint (km_item_get_id (body), <, 0);
  g_assert_true (test_app_wait_document_saved (f->document));
  g_assert_cmpint (km_item_get_id (body), >=, 0);
  g_assert_cmpint (km_item_get_id (child), >, km_item_get_id (body));
  text = read_file (f->path);
  body_id = g_strdup_printf ("id: %" G_GINT64_FORMAT "\n", km_item_get_id (body));
  child_id = g_strdup_printf ("id: %" G_GINT64_FORMAT "\n", km_item_get_id (child));
  g_assert_nonnull (strstr (text, body_id));
  g_assert_nonnull (strstr (text, child_id));
}

static void
export_done_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GError) error = NULL;
  gboolean *done = user_data;

  g_assert_true (km_document_export_animation_finish (KM_DOCUMENT (source), result, &error));
  g_assert_no_error (error);
  *done = TRUE;
}

/* Export Animation copies the animation and writes it on a worker: the call returns before
 * the document reports the file, which then holds every frame. */
static void
test_export_animation_async (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *path = g_build_filename (f->dir, "motion.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autofree char *expected = g_strdup_printf ("Exported the animation to %s.", path);
  g_autoptr(KmAnimation) written = NULL;
  g_autoptr(GError) error = NULL;
  KmAnimation *animation = km_document_get_animation (f->document);
  gboolean done = FALSE;

  g_assert_nonnull (animation);
  km_document_export_animation_async (f->document, file, NULL, export_done_cb, &done);
  /* Nothing reported yet: that comes through the main loop once the file is written. */
  g_assert_cmpstr (last_message (f->document, NULL), !=, expected);
  g_assert_true (test_app_wait_flag (&done, 20000));
  g_assert_cmpstr (last_message (f->document, NULL), ==, expected);
  written = km_animation_json_load_file (path, km_document_get_skeleton (f->document), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (km_animation_get_n_frames (written), ==, km_animation_get_n_frames (animation));
}

static void
export_body_motion_done_cb (GObject      *source,
                            GAsyncResult *result,
                            gpointer      user_data)
{
  Result *r = user_data;

  r->ok = km_document_export_body_motion_finish (KM_DOCUMENT (source), result, &r->error);
  r->done = TRUE;
}

/* Export Body Motion writes the selected IK animation as a Choreonoid .seq on a worker:
 * every frame, the values in joint-id order (DOF order for the example's skeleton.json),
 * the root link. An item that holds no animation is refused. */
static void
test_export_body_motion (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree char *path = g_build_filename (f->dir, "motion.seq", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autofree char *expected = NULL;
  g_autoptr(KmBodyMotion) written = NULL;
  g_autoptr(GError) error = NULL;
  KmItem *body = km_document_get_body_item (f->document);
  KmItem *item = NULL;
  KmAnimation *animation;
  Result r = { 0, };
  guint n_dof;

  for (guint i = 0; i < km_item_get_n_children (body); i++)
    if (KM_IS_IK_ANIMATION_ITEM (km_item_get_child (body, i)))
      item = km_item_get_child (body, i);
  g_assert_nonnull (item);
  animation = km_ik_animation_item_get_animation (KM_IK_ANIMATION_ITEM (item));
  g_assert_nonnull (animation);
  n_dof = km_animation_get_n_dof (animation);
  expected = g_strdup_printf ("Exported “%s” as a body motion to %s.", km_item_get_name (item),
                              path);

  km_document_export_body_motion_async (f->document, item, file, NULL,
                                        export_body_motion_done_cb, &r);
  g_assert_true (test_app_wait_flag (&r.done, 20000));
  g_assert_no_error (r.error);
  g_assert_true (r.ok);
  g_assert_cmpstr (last_message (f->document, NULL), ==, expected);
  written = km_body_motion_load_file (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (km_body_motion_get_n_frames (written), ==,
                    km_animation_get_n_frames (animation));
  g_assert_cmpuint (km_body_motion_get_n_joints (written), ==, n_dof);
  g_assert_cmpuint (km_body_motion_get_n_links (written), ==, 1);
  g_assert_cmpfloat (km_body_motion_get_frame_rate (written), ==,
                     km_animation_get_frame_rate (animation));
  for (guint fr = 0; fr < km_animation_get_n_frames (animation); fr += 17)
    g_assert_cmpmem (km_body_motion_get_joint_frame (written, fr), n_dof * sizeof (double),
                     km_animation_get_frame (animation, fr), n_dof * sizeof (double));

  r = (Result) { 0, };
  km_document_export_body_motion_async (f->document, body, file, NULL,
                                        export_body_motion_done_cb, &r);
  g_assert_true (test_app_wait_flag (&r.done, 20000));
  g_assert_false (r.ok);
  g_assert_error (r.error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
  g_clear_error (&r.error);
}

/* Moves joint 1 of the current body's skeleton to x = @x, as one undoable step. */
static void
edit_offset (KmDocument *document,
             double      x)
{
  KmSkeleton *skeleton = km_document_get_skeleton (document);
  KmVec3 offset = km_skeleton_get_joint (skeleton, 1)->offset;
  g_autoptr(KmSkeleton) edited = NULL;
  g_autoptr(GError) error = NULL;

  offset.x = x;
  edited = km_skeleton_edit_set_offset (skeleton, 1, offset, &error);
  g_assert_no_error (error);
  g_assert_true (km_document_edit_skeleton (document, edited, "Move Joint", NULL));
  g_assert_true (test_app_wait_idle_solve (document, 20000));
}

/* The x offset of joint 1 in the model file at @path. */
static double
file_offset (const char *path)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(KmModelExtras) extras = NULL;
  const KmFormat *format = NULL;
  g_autoptr(KmSkeleton) skeleton = km_format_load_model_file (path, NULL, &format, &extras,
                                                              &error);

  g_assert_no_error (error);
  g_assert_nonnull (skeleton);
  return km_skeleton_get_joint (skeleton, 1)->offset.x;
}

static void
save_project (KmDocument *document,
              GFile      *file)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (km_document_save (document, file, &error));
  g_assert_no_error (error);
}

/* The review's case of Kinema's own model copies: SR1.body copied into ROOT/models and
 * imported; a project file ROOT/project/sr1.cnoid to save it with, beside which a save
 * writes the edited copy (SR1.body, or SR1-2.body when that name is taken). */
typedef struct
{
  char       *root;
  char       *model;
  char       *copy;
  char       *numbered;
  GFile      *project;
  KmBodyItem *body;
} OwnCopyCase;

/* As own_copy_case_import(), with the model tests/data/@folder/@name, which a save copies
 * to ROOT/project/@copy (@numbered when that name is taken). */
static OwnCopyCase
own_copy_case_import_model (KmDocument *document,
                            const char *folder,
                            const char *name,
                            const char *copy,
                            const char *numbered)
{
  OwnCopyCase c = { km_test_make_tmp_dir ("km-own-copy-XXXXXX"), };
  g_autofree char *models = g_build_filename (c.root, "models", NULL);
  g_autofree char *project_dir = g_build_filename (c.root, "project", NULL);
  g_autofree char *project_path = g_build_filename (project_dir, "sr1.cnoid", NULL);
  g_autofree char *fixture = g_test_build_filename (G_TEST_DIST, "data", folder, name, NULL);
  g_autofree char *text = NULL;
  g_autoptr(GFile) model_file = NULL;
  g_autoptr(GError) error = NULL;

  c.model = g_build_filename (models, name, NULL);
  c.copy = g_build_filename (project_dir, copy, NULL);
  c.numbered = g_build_filename (project_dir, numbered, NULL);
  c.project = g_file_new_for_path (project_path);
  g_assert_cmpint (g_mkdir_with_parents (models, 0700), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (project_dir, 0700), ==, 0);
  g_assert_true (g_file_get_contents (fixture, &text, NULL, NULL));
  g_assert_true (g_file_set_contents (c.model, text, -1, NULL));
  model_file = g_file_new_for_path (c.model);
  g_assert_true (km_document_import_file (document, model_file, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_wait_idle_solve (document, 20000));
  c.body = KM_BODY_ITEM (km_document_get_body_item (document));
  return c;
}

static OwnCopyCase
own_copy_case_import (KmDocument *document)
{
  return own_copy_case_import_model (document, "choreonoid", "SR1.body", "SR1.body",
                                     "SR1-2.body");
}

static void
own_copy_case_clear (OwnCopyCase *c)
{
  km_test_remove_tree (c->root);
  g_free (c->root);
  g_free (c->model);
  g_free (c->copy);
  g_free (c->numbered);
  g_clear_object (&c->project);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (OwnCopyCase, own_copy_case_clear)

/* An imported SR1.body, edited and saved with the project: the copy Kinema writes beside
 * the project is its own. An undo and a save remove it (no body refers to it, and the
 * file is as Kinema wrote it); the next edit's save writes SR1.body again, not SR1-2.body;
 * a later edit is saved to the same copy, and undoing it saves the copy back. */
static void
test_save_reuses_own_copy (Fixture       *f,
                           gconstpointer  data)
{
  g_auto(OwnCopyCase) c = own_copy_case_import (f->document);
  const char *model = c.model, *copy = c.copy, *numbered = c.numbered;
  GFile *project = c.project;
  KmBodyItem *body = c.body;
  double original;

  g_assert_cmpstr (km_body_item_get_file (body), ==, model);
  original = file_offset (model);

  edit_offset (f->document, 0.25);
  save_project (f->document, project);
  g_assert_cmpstr (km_body_item_get_file (body), ==, copy);
  g_assert_cmpfloat (file_offset (copy), ==, 0.25);

  /* Undone and saved: the project refers to the user's model again; Kinema's copy, which
   * nothing refers to, is gone. */
  g_assert_true (km_document_undo (f->document));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  save_project (f->document, project);
  g_assert_cmpstr (km_body_item_get_file (body), ==, model);
  g_assert_false (g_file_test (copy, G_FILE_TEST_EXISTS));

  /* Edited again: the copy has its name again, not a numbered one. */
  edit_offset (f->document, 0.5);
  save_project (f->document, project);
  g_assert_cmpstr (km_body_item_get_file (body), ==, copy);
  g_assert_false (g_file_test (numbered, G_FILE_TEST_EXISTS));
  g_assert_cmpfloat (file_offset (copy), ==, 0.5);

  /* A further edit goes to the same copy. */
  edit_offset (f->document, 0.75);
  save_project (f->document, project);
  g_assert_cmpstr (km_body_item_get_file (body), ==, copy);
  g_assert_false (g_file_test (numbered, G_FILE_TEST_EXISTS));
  g_assert_cmpfloat (file_offset (copy), ==, 0.75);

  /* Undone: the copy no longer holds that skeleton, so the save writes it back. */
  g_assert_true (km_document_undo (f->document));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  save_project (f->document, project);
  g_assert_cmpstr (km_body_item_get_file (body), ==, copy);
  g_assert_cmpfloat (file_offset (copy), ==, 0.5);
  g_assert_false (g_file_test (numbered, G_FILE_TEST_EXISTS));

  /* The user's model was never written. */
  g_assert_cmpfloat (file_offset (model), ==, original);
}

/* A copy Kinema wrote but another program changed since is not Kinema's any more: a save
 * neither writes over it nor removes it. */
static void
test_save_keeps_changed_copy (Fixture       *f,
                              gconstpointer  data)
{
  g_auto(OwnCopyCase) c = own_copy_case_import (f->document);
  const char *model = c.model, *copy = c.copy, *numbered = c.numbered;
  GFile *project = c.project;
  KmBodyItem *body = c.body;
  g_autofree char *text = NULL;
  g_autofree char *changed = NULL;
  g_autofree char *after = NULL;

  edit_offset (f->document, 0.25);
  save_project (f->document, project);
  g_assert_cmpstr (km_body_item_get_file (body), ==, copy);

  /* Another program edits the copy (a comment added), the body is edited again. */
  g_assert_true (g_file_get_contents (copy, &text, NULL, NULL));
  changed = g_strconcat (text, "# changed by hand\n", NULL);
  g_assert_true (g_file_set_contents (copy, changed, -1, NULL));
  edit_offset (f->document, 0.5);
  save_project (f->document, project);
  g_assert_cmpstr (km_body_item_get_file (body), ==, numbered);
  g_assert_true (g_file_get_contents (copy, &after, NULL, NULL));
  g_assert_cmpstr (after, ==, changed);
  g_clear_pointer (&after, g_free);

  /* Undone twice (to the user's model) and saved: the changed file stays. SR1-2.body is
   * Kinema's, which nothing refers to: it goes. */
  g_assert_true (km_document_undo (f->document));
  g_assert_true (km_document_undo (f->document));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  save_project (f->document, project);
  g_assert_cmpstr (km_body_item_get_file (body), ==, model);
  g_assert_true (g_file_get_contents (copy, &after, NULL, NULL));
  g_assert_cmpstr (after, ==, changed);
  g_assert_false (g_file_test (numbered, G_FILE_TEST_EXISTS));
}

/* What replace_copy_when_saving() puts in place of the copy, once. */
typedef struct
{
  const char *path;
  const char *text;
  gboolean    done;
} CopyReplacement;

/* The save is planned (it writes the copy where it is) and about to be written: another
 * program replaces the copy with a file of its own (a new file, renamed over it). */
static void
replace_copy_when_saving (KmDocument      *document,
                          GParamSpec      *pspec,
                          CopyReplacement *replacement)
{
  g_autoptr(GError) error = NULL;

  if (replacement->done || !km_document_get_saving (document))
    return;
  replacement->done = TRUE;
  g_assert_true (g_file_set_contents (replacement->path, replacement->text, -1, &error));
  g_assert_no_error (error);
}

/* Edits the body (offset 0.5) and saves @project while another program replaces the file at
 * @path with its own text (the file's with @suffix added, so that it still loads): the
 * file keeps that text. Returns the text. */
static char *
save_while_replaced (KmDocument *document,
                     GFile      *project,
                     const char *path,
                     const char *suffix)
{
  g_autofree char *text = NULL;
  g_autofree char *after = NULL;
  CopyReplacement replacement = { path, NULL, FALSE };
  char *users;
  gulong handler;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  users = g_strconcat (text, suffix, NULL);
  replacement.text = users;
  edit_offset (document, 0.5);
  handler = g_signal_connect (document, "notify::saving",
                              G_CALLBACK (replace_copy_when_saving), &replacement);
  save_project (document, project);
  g_signal_handler_disconnect (document, handler);
  g_assert_true (replacement.done);
  g_assert_true (g_file_get_contents (path, &after, NULL, NULL));
  g_assert_true (g_str_equal (after, users));
  return users;
}

/* Undoes both offset edits of a test below and saves @project again: the file at @path,
 * which another program replaced with @text, keeps it. */
static void
undo_edits_and_save (KmDocument *document,
                     GFile      *project,
                     const char *path,
                     const char *text)
{
  g_autofree char *after = NULL;

  g_assert_true (km_document_undo (document));
  g_assert_true (km_document_undo (document));
  g_assert_true (test_app_wait_idle_solve (document, 20000));
  save_project (document, project);
  g_assert_true (g_file_get_contents (path, &after, NULL, NULL));
  g_assert_true (g_str_equal (after, text));
}

/* A copy of Kinema's that another program replaces after the save was planned, right
 * before it is written: the save does not write over it; the edits go to a new copy. */
static void
test_save_keeps_copy_replaced_while_saving (Fixture       *f,
                                            gconstpointer  data)
{
  g_auto(OwnCopyCase) c = own_copy_case_import (f->document);
  const char *copy = c.copy, *numbered = c.numbered;
  KmBodyItem *body = c.body;
  g_autofree char *users = NULL;

  edit_offset (f->document, 0.25);
  save_project (f->document, c.project);
  g_assert_cmpstr (km_body_item_get_file (body), ==, copy);

  /* The user's own file: the copy with a comment, so that it loads. */
  users = save_while_replaced (f->document, c.project, copy, "# the user's own file\n");
  g_assert_cmpstr (km_body_item_get_file (body), ==, numbered);
  g_assert_cmpfloat (file_offset (numbered), ==, 0.5);
  g_assert_false (km_document_get_modified (f->document));

  /* Not Kinema's any more: a later save neither writes over it nor removes it. */
  undo_edits_and_save (f->document, c.project, copy, users);
}

/* How many display shapes @skeleton has. */
static guint
count_shapes (const KmSkeleton *skeleton)
{
  guint total = 0;

  for (guint i = 0; i < km_skeleton_get_n_joints (skeleton); i++)
    {
      guint n = 0;

      km_skeleton_get_shapes (skeleton, i, &n);
      total += n;
    }
  return total;
}

/* The same with a copy that is a skeleton.json (a Scenebuilder model, which Kinema does not
 * write, without display shapes, which would go to a .body copy): the body refers to it as
 * to a skeleton.json of the user's, yet the file another program put in its place is not
 * written over, by this save or a later one. */
static void
test_save_keeps_json_copy_replaced_while_saving (Fixture       *f,
                                                 gconstpointer  data)
{
  g_auto(OwnCopyCase) c = own_copy_case_import_model (f->document, "scenebuilder",
                                                      "slider_gear.xml", "slider_gear.json",
                                                      "slider_gear-2.json");
  const char *copy = c.copy;
  KmBodyItem *body = c.body;
  g_autofree char *users = NULL;
  const char *file;

  g_assert_cmpuint (count_shapes (km_document_get_skeleton (f->document)), ==, 0);
  edit_offset (f->document, 0.25);
  save_project (f->document, c.project);
  g_assert_cmpstr (km_body_item_get_file (body), ==, copy);

  /* The user's own file: the copy laid out otherwise, so that it loads. */
  users = save_while_replaced (f->document, c.project, copy, "\n\n");
  file = km_body_item_get_file (body);
  g_assert_cmpstr (file, !=, copy);
  g_assert_true (g_str_has_suffix (file, ".json"));
  g_assert_cmpfloat (file_offset (file), ==, 0.5);
  g_assert_false (km_document_get_modified (f->document));

  /* An undo takes the body back to that file: a later save still leaves it alone. */
  undo_edits_and_save (f->document, c.project, copy, users);
}

/* A skeleton.json of the user's, which a save writes back where it is, that another program
 * replaces once the save was planned: it is not written over; the save stops with the
 * changed-on-disk error, whose question (Overwrite, Reload, Cancel) the window asks, and
 * the project stays unsaved. (It used to pass the change over and write the edits to a
 * copy: the save came before the file watch's first look, the only record of what the
 * file held then; the record is now what the import read.) */
static void
test_save_keeps_users_json_replaced_while_saving (Fixture       *f,
                                                  gconstpointer  data)
{
  g_auto(OwnCopyCase) c = own_copy_case_import_model (f->document, ".", "bench-ur5.json",
                                                      "bench-ur5.json", "bench-ur5-2.json");
  KmBodyItem *body = c.body;
  g_autofree char *text = NULL;
  g_autofree char *users = NULL;
  g_autofree char *after = NULL;
  CopyReplacement replacement = { c.model, NULL, FALSE };
  g_autoptr(GError) error = NULL;
  gulong handler;

  g_assert_true (g_file_get_contents (c.model, &text, NULL, NULL));
  users = g_strconcat (text, "\n\n", NULL);
  replacement.text = users;
  edit_offset (f->document, 0.5);
  handler = g_signal_connect (f->document, "notify::saving",
                              G_CALLBACK (replace_copy_when_saving), &replacement);
  g_assert_false (km_document_save (f->document, c.project, &error));
  g_signal_handler_disconnect (f->document, handler);
  g_assert_true (replacement.done);
  g_assert_error (error, KM_DOCUMENT_ERROR, KM_DOCUMENT_ERROR_CHANGED_ON_DISK);
  g_assert_true (g_file_get_contents (c.model, &after, NULL, NULL));
  g_assert_true (g_str_equal (after, users));
  g_assert_cmpstr (km_body_item_get_file (body), ==, c.model);
  g_assert_true (km_document_get_modified (f->document));
}

/* A copy of Kinema's that no body of its project refers to any more but a body of another
 * open document does (it imported the copy) is not removed by a save. */
static void
test_save_keeps_copy_another_document_uses (Fixture       *f,
                                            gconstpointer  data)
{
  g_auto(OwnCopyCase) c = own_copy_case_import (f->document);
  g_autoptr(KmDocument) other = km_document_new ();
  g_autoptr(GFile) copy_file = NULL;
  g_autoptr(GError) error = NULL;
  KmBodyItem *body = c.body;

  edit_offset (f->document, 0.25);
  save_project (f->document, c.project);
  g_assert_cmpstr (km_body_item_get_file (body), ==, c.copy);

  copy_file = g_file_new_for_path (c.copy);
  g_assert_true (test_app_wait_idle_solve (other, 20000));
  g_assert_true (km_document_import_file (other, copy_file, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_wait_idle_solve (other, 20000));
  g_assert_cmpstr (km_body_item_get_file (KM_BODY_ITEM (km_document_get_body_item (other))),
                   ==, c.copy);

  /* Undone to the user's model and saved: the other document still shows the copy. */
  g_assert_true (km_document_undo (f->document));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  save_project (f->document, c.project);
  g_assert_cmpstr (km_body_item_get_file (body), ==, c.model);
  g_assert_true (g_file_test (c.copy, G_FILE_TEST_EXISTS));
}

/* Whether a message in @document's log contains @text. */
static gboolean
has_message_containing (KmDocument *document,
                        const char *text)
{
  GListModel *messages = km_document_get_messages (document);

  for (guint i = 0; i < g_list_model_get_n_items (messages); i++)
    {
      g_autoptr(KmMessage) message = g_list_model_get_item (messages, i);

      if (strstr (km_message_get_text (message), text) != NULL)
        return TRUE;
    }
  return FALSE;
}

/* Adds a revolute joint "Added" below the current body's default effector, as one step. */
static void
add_leaf (KmDocument *document)
{
  KmSkeleton *skeleton = km_document_get_skeleton (document);
  int leaf = km_skeleton_get_default_effector (skeleton);
  g_autoptr(KmSkeleton) edited = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (leaf, >=, 0);
  edited = km_skeleton_edit_add_child (skeleton, (guint) leaf, "Added", KM_JOINT_REVOLUTE,
                                       km_vec3 (0.05, 0, 0), NULL, &error);
  g_assert_no_error (error);
  g_assert_true (km_document_edit_skeleton (document, edited, "Add Joint", NULL));
  g_assert_true (test_app_wait_idle_solve (document, 20000));
}

/* Reads @project into a new document. */
static KmDocument *
reopen_project (GFile *project)
{
  KmDocument *reopened = km_document_new ();
  g_autoptr(GError) error = NULL;

  g_assert_true (km_document_import_file (reopened, project, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_wait_idle_solve (reopened, 20000));
  return reopened;
}

static void
close_reopened (KmDocument *reopened)
{
  km_document_cancel_solve (reopened);
  g_assert_true (test_app_wait_idle_solve (reopened, 20000));
  test_app_spin ();
  g_assert_finalize_object (reopened);
}

/* A model of a format Kinema reads but does not write (tests/data/@folder/@name), with
 * display shapes, edited and saved with the project: the edits go to a .body copy beside
 * the project (@copy_name), not a skeleton.json, which has no place for shapes or joint
 * ids, so that the reopened project shows the edited model with all its shapes and ids. */
static void
check_edited_model_keeps_shapes (Fixture    *f,
                                 const char *folder,
                                 const char *name,
                                 const char *copy_name)
{
  g_auto(OwnCopyCase) c = own_copy_case_import_model (f->document, folder, name, copy_name,
                                                      copy_name);
  g_autoptr(KmSkeleton) edited = NULL;
  KmDocument *reopened;
  KmSkeleton *skeleton;

  g_assert_cmpuint (count_shapes (km_document_get_skeleton (f->document)), >, 0);
  if (g_str_has_suffix (name, ".wrl"))
    g_assert_cmpuint (km_skeleton_count_joint_ids (km_document_get_skeleton (f->document)), >,
                      0);
  add_leaf (f->document);
  edited = km_skeleton_ref (km_document_get_skeleton (f->document));
  g_assert_cmpint (km_skeleton_find_joint (edited, "Added"), >=, 0);
  save_project (f->document, c.project);
  g_assert_cmpstr (km_body_item_get_file (c.body), ==, c.copy);
  g_assert_cmpstr (km_body_item_get_format (c.body), ==, "CHOREONOID-BODY");
  g_assert_true (g_file_test (c.copy, G_FILE_TEST_IS_REGULAR));
  g_assert_false (km_document_get_modified (f->document));
  /* Nothing said lost (the skeleton.json copy's "N display shapes are not saved"). */
  g_assert_false (has_message_containing (f->document, "not saved"));

  reopened = reopen_project (c.project);
  skeleton = km_document_get_skeleton (reopened);
  g_assert_nonnull (skeleton);
  g_assert_true (km_skeleton_equal (skeleton, edited, 1e-9));
  g_assert_cmpuint (count_shapes (skeleton), ==, count_shapes (edited));
  for (guint i = 0; i < km_skeleton_get_n_joints (edited); i++)
    {
      const KmJoint *before = km_skeleton_get_joint (edited, i);
      const KmJoint *after = km_skeleton_get_joint (skeleton, i);
      guint n_before = 0, n_after = 0;

      km_skeleton_get_shapes (edited, i, &n_before);
      km_skeleton_get_shapes (skeleton, i, &n_after);
      g_assert_cmpuint (n_after, ==, n_before);
      /* The ids the model had stay (a joint with DOF and none gets one: Choreonoid's). */
      if (before->joint_id >= 0)
        g_assert_cmpint (after->joint_id, ==, before->joint_id);
      else if (before->n_dof > 0)
        g_assert_cmpint (after->joint_id, >=, 0);
    }
  g_assert_cmpuint (km_skeleton_count_joint_ids (skeleton), >=,
                    km_skeleton_count_joint_ids (edited));
  close_reopened (reopened);
}

static void
test_save_edited_scenebuilder_keeps_shapes (Fixture       *f,
                                            gconstpointer  data)
{
  check_edited_model_keeps_shapes (f, "scenebuilder", "arm2_mm_deg.xml", "arm2_mm_deg.body");
}

static void
test_save_edited_vrml_keeps_shapes (Fixture       *f,
                                    gconstpointer  data)
{
  check_edited_model_keeps_shapes (f, "openhrp", "arm.wrl", "arm.body");
}

/* A Scenebuilder model with shapes and a gear (a linked joint), edited and saved with the
 * project: the edits go to a .body copy, which keeps both the shapes and the link (Kinema's
 * kinema_mimic key). It used to go to a skeleton.json copy, which lost the shapes. */
static void
test_save_edited_gear_model_keeps_link (Fixture       *f,
                                        gconstpointer  data)
{
  g_autofree char *root = km_test_make_tmp_dir ("km-gear-XXXXXX");
  g_autofree char *model = g_build_filename (root, "gear.xml", NULL);
  g_autofree char *project_path = g_build_filename (root, "gear.cnoid", NULL);
  g_autofree char *copy = g_build_filename (root, "gear.body", NULL);
  g_autoptr(GFile) model_file = g_file_new_for_path (model);
  g_autoptr(GFile) project = g_file_new_for_path (project_path);
  g_autoptr(KmSkeleton) edited = NULL;
  g_autoptr(GError) error = NULL;
  KmDocument *reopened;
  KmSkeleton *skeleton;
  KmBodyItem *body;
  int follower;
  static const char xml[] =
    "<namespace name=\"gear\">\n"
    "  <attr unit_length=\"mm\"/>\n"
    "  <box name=\"plate\" size=\"40 40 10\"/>\n"
    "  <body name=\"frame\" dynamical=\"false\">\n"
    "    <connector name=\"a\" trn=\"0 0 50\"/>\n"
    "    <connector name=\"b\" trn=\"100 0 50\"/>\n"
    "  </body>\n"
    "  <body name=\"wheel\"><connector name=\"c\"/></body>\n"
    "  <body name=\"idler\"><connector name=\"c\"/></body>\n"
    "  <attach connector=\"frame/a\" shape=\"plate\"/>\n"
    "  <hinge name=\"wheel_joint\" sock=\"frame/a\" plug=\"wheel/c\"/>\n"
    "  <hinge name=\"idler_joint\" sock=\"frame/b\" plug=\"idler/c\"/>\n"
    "  <gear name=\"belt\" up=\"wheel_joint\" down=\"idler_joint\" type=\"pos\" "
    "ratio=\"-0.5\"/>\n"
    "</namespace>\n";

  g_assert_true (g_file_set_contents (model, xml, -1, NULL));
  g_assert_true (km_document_import_file (f->document, model_file, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  body = KM_BODY_ITEM (km_document_get_body_item (f->document));
  g_assert_true (km_skeleton_has_mimic (km_document_get_skeleton (f->document)));
  g_assert_cmpuint (count_shapes (km_document_get_skeleton (f->document)), >, 0);

  add_leaf (f->document);
  edited = km_skeleton_ref (km_document_get_skeleton (f->document));
  save_project (f->document, project);
  g_assert_cmpstr (km_body_item_get_file (body), ==, copy);

  reopened = reopen_project (project);
  skeleton = km_document_get_skeleton (reopened);
  g_assert_true (km_skeleton_equal (skeleton, edited, 1e-9));
  follower = km_skeleton_find_joint (skeleton, "idler_joint");
  g_assert_cmpint (follower, >=, 0);
  g_assert_cmpint (km_skeleton_get_joint (skeleton, (guint) follower)->mimic, ==,
                   km_skeleton_find_joint (skeleton, "wheel_joint"));
  g_assert_cmpuint (count_shapes (skeleton), ==, count_shapes (edited));
  close_reopened (reopened);
  km_test_remove_tree (root);
}

/* Save for Choreonoid with a Scenebuilder model, which Choreonoid cannot load: a .body copy
 * beside the project, with the model's display shapes and joint ids, which the project
 * refers to as CHOREONOID-BODY and which loads back as the same skeleton; the XML file stays
 * as it was. */
static void
test_save_for_choreonoid_scenebuilder (Fixture       *f,
                                       gconstpointer  data)
{
  g_auto(OwnCopyCase) c = own_copy_case_import_model (f->document, "scenebuilder",
                                                      "arm2_mm_deg.xml", "arm2_mm_deg.body",
                                                      "arm2_mm_deg-2.body");
  g_autoptr(KmSkeleton) before = km_skeleton_ref (km_document_get_skeleton (f->document));
  g_autofree char *model_text = read_file (c.model);
  g_autofree char *project_path = g_file_get_path (c.project);
  g_autofree char *project_text = NULL;
  g_autofree char *model_after = NULL;
  g_autoptr(KmSkeleton) loaded = NULL;
  g_autoptr(GError) error = NULL;
  KmDocument *reopened;
  KmSkeleton *skeleton;

  g_assert_cmpstr (km_body_item_get_format (c.body), ==, "SCENEBUILDER-XML");
  g_assert_cmpuint (count_shapes (before), >, 0);
  g_assert_true (km_document_save_with_body_copies (f->document, c.project, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_test (c.copy, G_FILE_TEST_IS_REGULAR));
  g_assert_cmpstr (km_body_item_get_file (c.body), ==, c.copy);
  g_assert_cmpstr (km_body_item_get_format (c.body), ==, "CHOREONOID-BODY");
  g_assert_true (has_message_containing (f->document, "arm2_mm_deg.body"));

  project_text = read_file (project_path);
  g_assert_nonnull (strstr (project_text, "file: \"arm2_mm_deg.body\""));
  g_assert_nonnull (strstr (project_text, "format: CHOREONOID-BODY"));
  g_assert_null (strstr (project_text, "SCENEBUILDER-XML"));
  g_assert_null (strstr (project_text, "models/arm2_mm_deg.xml"));
  model_after = read_file (c.model);
  g_assert_cmpstr (model_after, ==, model_text);

  /* The copy loads as Choreonoid's .body, shapes and joint ids kept. */
  loaded = km_format_load_model_file (c.copy, "CHOREONOID-BODY", NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (km_skeleton_equal (loaded, before, 1e-9));
  g_assert_cmpuint (count_shapes (loaded), ==, count_shapes (before));
  g_assert_cmpuint (km_skeleton_count_joint_ids (loaded), >=,
                    km_skeleton_count_joint_ids (before));

  reopened = reopen_project (c.project);
  skeleton = km_document_get_skeleton (reopened);
  g_assert_nonnull (skeleton);
  g_assert_true (km_skeleton_equal (skeleton, before, 1e-9));
  g_assert_cmpuint (count_shapes (skeleton), ==, count_shapes (before));
  close_reopened (reopened);
}

/* A Scenebuilder model with a gear saved for Choreonoid: the .body copy keeps the link
 * (Kinema's own kinema_mimic key), so nothing is said about it, and the copy loads linked. */
static void
test_save_for_choreonoid_scenebuilder_gear (Fixture       *f,
                                            gconstpointer  data)
{
  g_auto(OwnCopyCase) c = own_copy_case_import_model (f->document, "scenebuilder",
                                                      "slider_gear.xml", "slider_gear.body",
                                                      "slider_gear-2.body");
  g_autoptr(GError) error = NULL;

  g_assert_true (km_skeleton_has_mimic (km_document_get_skeleton (f->document)));
  g_assert_true (km_document_save_with_body_copies (f->document, c.project, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_test (c.copy, G_FILE_TEST_IS_REGULAR));
  g_assert_cmpstr (km_body_item_get_format (c.body), ==, "CHOREONOID-BODY");
  g_assert_false (has_message_containing (f->document, "independent joint"));
  {
    g_autoptr(KmSkeleton) loaded = km_format_load_model_file (c.copy, "CHOREONOID-BODY", NULL,
                                                              NULL, &error);

    g_assert_no_error (error);
    g_assert_true (km_skeleton_has_mimic (loaded));
    g_assert_true (km_skeleton_equal (loaded, km_document_get_skeleton (f->document), 1e-9));
  }
}

/* An OpenHRP VRML model, which Choreonoid loads itself, saved for Choreonoid: no copy, the
 * project refers to the model file. */
static void
test_save_for_choreonoid_keeps_vrml (Fixture       *f,
                                     gconstpointer  data)
{
  g_auto(OwnCopyCase) c = own_copy_case_import_model (f->document, "openhrp", "arm.wrl",
                                                      "arm.body", "arm-2.body");
  g_autofree char *project_path = g_file_get_path (c.project);
  g_autofree char *project_text = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (km_document_save_with_body_copies (f->document, c.project, &error));
  g_assert_no_error (error);
  g_assert_false (g_file_test (c.copy, G_FILE_TEST_EXISTS));
  g_assert_cmpstr (km_body_item_get_file (c.body), ==, c.model);
  project_text = read_file (project_path);
  g_assert_nonnull (strstr (project_text, "arm.wrl"));
}

/* A skeleton.json of the user's with keys Kinema does not interpret (a "comment", a
 * joint's "colour"), edited and saved with the project, or saved from the Skeleton tab to
 * that file: written back with those keys and their values. */
static void
test_save_keeps_users_json_unknown_keys (Fixture       *f,
                                         gconstpointer  data)
{
  static const char json[] =
    "{\n"
    "  \"comment\": \"DH parameters from the datasheet; limits ±2π\",\n"
    "  \"root_name\": \"base\",\n"
    "  \"joints\": [\n"
    "    { \"name\": \"base\", \"type\": \"fixed\", \"offset\": [0, 0, 0] },\n"
    "    { \"name\": \"shoulder\", \"type\": \"revolute\", \"offset\": [0, 0, 0.1],\n"
    "      \"parent\": \"base\", \"axis\": [0, 0, 1], \"limits\": [-1, 1],\n"
    "      \"colour\": \"red\" },\n"
    "    { \"name\": \"tool\", \"type\": \"fixed\", \"offset\": [0.3, 0, 0],\n"
    "      \"parent\": \"shoulder\" }\n"
    "  ]\n"
    "}\n";
  g_autofree char *model = g_build_filename (f->dir, "arm.json", NULL);
  g_autoptr(GFile) model_file = g_file_new_for_path (model);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  KmBodyItem *body;

  g_assert_true (g_file_set_contents (model, json, -1, NULL));
  g_assert_true (km_document_import_file (f->document, model_file, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  body = KM_BODY_ITEM (km_document_get_body_item (f->document));
  g_assert_cmpstr (km_body_item_get_format (body), ==, "SKELETON-JSON");

  edit_offset (f->document, 0.25);
  save_project (f->document, f->file);
  g_assert_cmpstr (km_body_item_get_file (body), ==, model);
  g_assert_cmpfloat (file_offset (model), ==, 0.25);
  text = read_file (model);
  g_assert_nonnull (strstr (text, "\"comment\": \"DH parameters from the datasheet; "
                                  "limits ±2π\""));
  g_assert_nonnull (strstr (text, "\"colour\": \"red\""));

  /* The same for the Skeleton tab's Save to that file. */
  edit_offset (f->document, 0.5);
  g_assert_true (km_document_save_skeleton (f->document, model_file, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (file_offset (model), ==, 0.5);
  g_clear_pointer (&text, g_free);
  text = read_file (model);
  g_assert_nonnull (strstr (text, "\"comment\": \"DH parameters from the datasheet; "
                                  "limits ±2π\""));
  g_assert_nonnull (strstr (text, "\"colour\": \"red\""));
}

/* The start of a .cnoid project: its root item, whose children follow. */
#define ROOT_ITEM_HEAD \
  "items:\n" \
  "  id: 0\n" \
  "  name: \"RootItem\"\n" \
  "  plugin: Base\n" \
  "  class: RootItem\n" \
  "  is_builtin_item: true\n" \
  "  children:\n"

/* A body of a sub-project in another folder that refers to a copy of Kinema's relative to
 * the sub-project's folder: the copy is still referred to, and a save of the project does
 * not remove it. */
static void
test_save_keeps_copy_sub_project_uses (Fixture       *f,
                                       gconstpointer  data)
{
  g_auto(OwnCopyCase) c = own_copy_case_import (f->document);
  g_autofree char *sub_dir = g_build_filename (c.root, "parts", "arm", NULL);
  g_autofree char *sub_path = g_build_filename (sub_dir, "part.cnoid", NULL);
  g_autofree char *project_path = g_file_get_path (c.project);
  g_autofree char *sub_text = NULL;
  g_autofree char *project_text = NULL;
  g_autoptr(GError) error = NULL;

  edit_offset (f->document, 0.25);
  save_project (f->document, c.project);
  g_assert_cmpstr (km_body_item_get_file (c.body), ==, c.copy);

  /* The project now: the user's model, and a sub-project whose body is the copy. */
  g_assert_cmpint (g_mkdir_with_parents (sub_dir, 0700), ==, 0);
  sub_text = g_strdup (ROOT_ITEM_HEAD
                       "    -\n"
                       "      id: 1\n"
                       "      name: \"Copy\"\n"
                       "      plugin: Body\n"
                       "      class: BodyItem\n"
                       "      data:\n"
                       "        file: \"../../project/SR1.body\"\n"
                       "        format: CHOREONOID-BODY\n");
  g_assert_true (g_file_set_contents (sub_path, sub_text, -1, NULL));
  project_text = g_strdup (ROOT_ITEM_HEAD
                           "    -\n"
                           "      id: 1\n"
                           "      name: \"Model\"\n"
                           "      plugin: Body\n"
                           "      class: BodyItem\n"
                           "      data:\n"
                           "        file: \"../models/SR1.body\"\n"
                           "        format: CHOREONOID-BODY\n"
                           "    -\n"
                           "      id: 2\n"
                           "      name: \"Part\"\n"
                           "      plugin: Base\n"
                           "      class: SubProjectItem\n"
                           "      data:\n"
                           "        file: \"../parts/arm/part.cnoid\"\n");
  g_assert_true (g_file_set_contents (project_path, project_text, -1, NULL));
  g_assert_true (km_document_import_file (f->document, c.project, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));

  save_project (f->document, c.project);
  g_assert_true (g_file_test (c.copy, G_FILE_TEST_EXISTS));
  /* (Nor was the copy taken for missing, and written anew.) */
  g_assert_false (g_file_test (c.numbered, G_FILE_TEST_EXISTS));
}

/* Copies @name of tests/data/cnoid/kinema into @dir. */
static void
copy_arm_file (const char *dir,
               const char *name)
{
  g_autofree char *from = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema", name,
                                                 NULL);
  g_autofree char *to = g_build_filename (dir, name, NULL);
  g_autofree char *text = NULL;
  gsize length;

  g_assert_true (g_file_get_contents (from, &text, &length, NULL));
  g_assert_true (g_file_set_contents (to, text, (gssize) length, NULL));
}

/* The project's folder became a file after it was opened: the save fails, says why, and
 * the model it would have rewritten there (deleted, so written again) is not "removed"
 * with a warning on the way out (unlink there fails with ENOTDIR, as with ENOENT nothing
 * is there to remove). Warnings are fatal here. */
static void
test_save_into_folder_now_a_file (void)
{
  g_autofree char *root = km_test_make_tmp_dir ("km-gone-dir-XXXXXX");
  g_autofree char *dir = g_build_filename (root, "d", NULL);
  g_autofree char *moved = g_build_filename (root, "d2", NULL);
  g_autofree char *path = g_build_filename (dir, "arm.cnoid", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(KmDocument) document = km_document_new ();
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_mkdir (dir, 0700), ==, 0);
  copy_arm_file (dir, "arm.cnoid");
  copy_arm_file (dir, "arm.json");
  copy_arm_file (dir, "targets.json");
  g_assert_true (km_document_import_file (document, file, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_wait_idle_solve (document, 20000));

  g_assert_cmpint (g_rename (dir, moved), ==, 0);
  g_assert_true (g_file_set_contents (dir, "", 0, NULL));
  /* Save refuses first (the file is gone); then Save there again, as the window's question
   * lets the user. */
  g_assert_false (km_document_save (document, file, &error));
  g_clear_error (&error);
  g_assert_nonnull (km_document_get_disk_conflict (document));
  km_document_accept_disk_conflict (document);
  g_assert_false (km_document_save (document, file, &error));
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOTDIR);
  g_assert_true (g_file_test (dir, G_FILE_TEST_IS_REGULAR));

  g_assert_true (test_app_wait_idle_solve (document, 20000));
  g_unlink (dir);
  g_assert_cmpint (g_rename (moved, dir), ==, 0);
  km_test_remove_tree (root);
}

static gboolean
file_exists (gpointer path)
{
  return g_file_test (path, G_FILE_TEST_IS_REGULAR);
}

/* Save As on an untitled project suggests the body's model name (if any), and a name typed
 * without an extension gets the project's (.cnoid); likewise Save Item As a skeleton's
 * (.json). */
static void
test_save_as_adds_extension (Fixture       *f,
                             gconstpointer  data)
{
  KmItem *body = km_document_get_body_item (f->document);
  KmSkeleton *skeleton = km_body_item_get_skeleton (KM_BODY_ITEM (body));
  const char *model = km_skeleton_get_model_name (skeleton);
  g_autofree char *suggested = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *project = g_build_filename (f->dir, "ur5job.cnoid", NULL);
  g_autofree char *bare = g_build_filename (f->dir, "ur5job", NULL);
  g_autofree char *item = g_build_filename (f->dir, "myskel.json", NULL);
  g_autofree char *bare_item = g_build_filename (f->dir, "myskel", NULL);
  GLogLevelFlags fatal;

  if (!test_app_have_chooser_schema ())
    {
      g_test_skip ("GTK's file chooser schema is not installed");
      return;
    }
  /* (As in test_failed_save_shows_bar: GTK's missing SVG loader is no failure here.) */
  fatal = g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);
  g_assert_null (km_document_get_file (f->document));
  /* (The example's body has no model name: "Untitled" then.) */
  expected = model != NULL && model[0] != '\0' ? g_strconcat (model, ".cnoid", NULL)
                                                : g_strdup ("Untitled.cnoid");

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.save-as", NULL));
  g_assert_true (test_app_wait_until (test_app_chooser_shown, NULL, 10000));
  test_app_spin_for (300);
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  suggested = gtk_file_chooser_get_current_name (GTK_FILE_CHOOSER (test_app_find_chooser ()));
  G_GNUC_END_IGNORE_DEPRECATIONS
  g_assert_cmpstr (suggested, ==, expected);
  choose_in_chooser (f->dir, "ur5job");
  g_assert_true (test_app_wait_until (test_app_chooser_gone, NULL, 10000));
  g_assert_true (test_app_wait_saved (f->window));
  g_assert_nonnull (km_document_get_file (f->document));
  g_assert_cmpstr (g_file_peek_path (km_document_get_file (f->document)), ==, project);
  g_assert_true (g_file_test (project, G_FILE_TEST_IS_REGULAR));
  g_assert_false (g_file_test (bare, G_FILE_TEST_EXISTS));

  km_project_select (km_document_get_project (f->document), body, FALSE);
  test_app_spin ();
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.save-item-as", NULL));
  g_assert_true (test_app_wait_until (test_app_chooser_shown, NULL, 10000));
  choose_in_chooser (f->dir, "myskel");
  g_assert_true (test_app_wait_until (test_app_chooser_gone, NULL, 10000));
  g_assert_true (test_app_wait_until (file_exists, item, 20000));
  g_assert_false (g_file_test (bare_item, G_FILE_TEST_EXISTS));
  g_log_set_always_fatal (fatal);
}

int
main (int    argc,
      char **argv)
{
  test_app_use_system_schemas ();
  test_app_init (&argc, &argv);

  g_test_add_func ("/kinema/Window/save/into-folder-now-a-file",
                   test_save_into_folder_now_a_file);
  g_test_add ("/kinema/Window/save/clears-modified-when-written", Fixture, NULL,
              fixture_setup, test_save_clears_modified_when_written, fixture_teardown);
  g_test_add ("/kinema/Window/export-animation", Fixture, NULL,
              fixture_setup, test_export_animation_async, fixture_teardown);
  g_test_add ("/kinema/Window/export-body-motion", Fixture, NULL,
              fixture_setup, test_export_body_motion, fixture_teardown);
  g_test_add ("/kinema/Window/save/keeps-ids", Fixture, NULL,
              fixture_setup, test_save_keeps_ids, fixture_teardown);
  g_test_add ("/kinema/Window/save/edit-while-saving", Fixture, NULL,
              fixture_setup, test_edit_while_saving, fixture_teardown);
  g_test_add ("/kinema/Window/save/failure-keeps-window", Fixture, NULL,
              fixture_setup, test_failed_save_keeps_window, fixture_teardown);
  g_test_add ("/kinema/Window/save/failure-shows-bar", Fixture, NULL,
              fixture_setup, test_failed_save_shows_bar, fixture_teardown);
  g_test_add ("/kinema/Window/save/skeleton-failure-shows-bar", Fixture, NULL,
              fixture_setup, test_failed_skeleton_saves_show_bar, fixture_teardown);
  g_test_add ("/kinema/Window/save/adds-extension", Fixture, NULL,
              fixture_setup, test_save_as_adds_extension, fixture_teardown);
  g_test_add ("/kinema/Window/save/item-failure-shows-bar", Fixture, NULL,
              fixture_setup, test_failed_save_item_shows_bar, fixture_teardown);
  g_test_add ("/kinema/Window/save/for-choreonoid-reads-on-worker", Fixture, NULL,
              fixture_setup, test_save_for_choreonoid_reads_on_worker, fixture_teardown);
  g_test_add ("/kinema/Window/save/without-motion-time-range", Fixture, NULL,
              fixture_setup, test_save_without_motion_time_range, fixture_teardown);
  g_test_add ("/kinema/Window/save/keeps-time-bar-without-motion", Fixture, NULL,
              fixture_setup, test_save_keeps_time_bar_without_motion, fixture_teardown);
  g_test_add ("/kinema/Window/save/keeps-time-bar-short-motion", Fixture, NULL,
              fixture_setup, test_save_keeps_time_bar_short_motion, fixture_teardown);
  g_test_add ("/kinema/Window/save/no-time-bar-stays-without", Fixture, NULL,
              fixture_setup, test_save_no_time_bar_stays_without, fixture_teardown);
  g_test_add ("/kinema/Window/save/min-time-within-range", Fixture, NULL,
              fixture_setup, test_save_min_time_within_range, fixture_teardown);
  g_test_add ("/kinema/Window/save/close-waits", Fixture, NULL,
              fixture_setup, test_close_waits_for_save, fixture_teardown);
  g_test_add ("/kinema/Window/save/close-waits-for-skeleton", Fixture, NULL,
              fixture_setup, test_close_waits_for_skeleton_save, fixture_teardown);
  g_test_add ("/kinema/Window/save/close-after-failed-skeleton-save", Fixture, NULL,
              fixture_setup, test_close_after_failed_skeleton_save, fixture_teardown);
  g_test_add ("/kinema/Window/save/main-loop-runs", Fixture, NULL,
              fixture_setup, test_main_loop_runs_while_saving, fixture_teardown);
  g_test_add ("/kinema/Window/save/example-beside-foreign-skeleton", Fixture, NULL,
              fixture_setup, test_save_example_beside_foreign_skeleton, fixture_teardown);
  g_test_add ("/kinema/Autosave/async", Fixture, NULL,
              fixture_setup, test_autosave_async, fixture_teardown);
  g_test_add ("/kinema/Autosave/skeleton-copies", Fixture, NULL,
              fixture_setup, test_autosave_skeleton_copies, fixture_teardown);
  g_test_add ("/kinema/Autosave/keep-outlives-owner", Fixture, NULL,
              fixture_setup, test_autosave_keep_outlives_owner, fixture_teardown);
  g_test_add ("/kinema/Autosave/live-owner", Fixture, NULL,
              fixture_setup, test_autosave_live_owner, fixture_teardown);
  g_test_add ("/kinema/Autosave/reused-pid", Fixture, NULL,
              fixture_setup, test_autosave_reused_pid, fixture_teardown);
  g_test_add ("/kinema/Window/save/reuses-own-model-copy", Fixture, NULL,
              fixture_setup, test_save_reuses_own_copy, fixture_teardown);
  g_test_add ("/kinema/Window/save/keeps-changed-model-copy", Fixture, NULL,
              fixture_setup, test_save_keeps_changed_copy, fixture_teardown);
  g_test_add ("/kinema/Window/save/keeps-model-copy-replaced-while-saving", Fixture, NULL,
              fixture_setup, test_save_keeps_copy_replaced_while_saving, fixture_teardown);
  g_test_add ("/kinema/Window/save/keeps-json-model-copy-replaced-while-saving", Fixture, NULL,
              fixture_setup, test_save_keeps_json_copy_replaced_while_saving, fixture_teardown);
  g_test_add ("/kinema/Window/save/keeps-users-json-replaced-while-saving", Fixture, NULL,
              fixture_setup, test_save_keeps_users_json_replaced_while_saving, fixture_teardown);
  g_test_add ("/kinema/Window/save/keeps-model-copy-another-document-uses", Fixture, NULL,
              fixture_setup, test_save_keeps_copy_another_document_uses, fixture_teardown);
  g_test_add ("/kinema/Window/save/keeps-model-copy-sub-project-uses", Fixture, NULL,
              fixture_setup, test_save_keeps_copy_sub_project_uses, fixture_teardown);
  g_test_add ("/kinema/Window/save/edited-scenebuilder-keeps-shapes", Fixture, NULL,
              fixture_setup, test_save_edited_scenebuilder_keeps_shapes, fixture_teardown);
  g_test_add ("/kinema/Window/save/edited-vrml-keeps-shapes", Fixture, NULL,
              fixture_setup, test_save_edited_vrml_keeps_shapes, fixture_teardown);
  g_test_add ("/kinema/Window/save/edited-gear-model-keeps-link", Fixture, NULL,
              fixture_setup, test_save_edited_gear_model_keeps_link, fixture_teardown);
  g_test_add ("/kinema/Window/save/for-choreonoid-scenebuilder", Fixture, NULL,
              fixture_setup, test_save_for_choreonoid_scenebuilder, fixture_teardown);
  g_test_add ("/kinema/Window/save/for-choreonoid-scenebuilder-gear", Fixture, NULL,
              fixture_setup, test_save_for_choreonoid_scenebuilder_gear, fixture_teardown);
  g_test_add ("/kinema/Window/save/for-choreonoid-keeps-vrml", Fixture, NULL,
              fixture_setup, test_save_for_choreonoid_keeps_vrml, fixture_teardown);
  g_test_add ("/kinema/Window/save/keeps-users-json-unknown-keys", Fixture, NULL,
              fixture_setup, test_save_keeps_users_json_unknown_keys, fixture_teardown);
  g_test_add ("/kinema/Document/save-item-async", Fixture, NULL,
              fixture_setup, test_save_item_async, fixture_teardown);

  return g_test_run ();
}
