/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <glib/gstdio.h>
#include <gtk/gtk.h>

#include "km-body-item.h"
#include "km-document-skeleton.h"
#include "km-file-chooser-folder.h"
#include "km-ik-animation-item.h"
#include "km-ik-targets-item.h"
#include "km-window.h"

#include "km-test-tmp.h"
#include "test-app-util.h"

/*
 * File dialogs start in the folder users expect, not in the working directory: an item's
 * own folder, else the project's; Open in the project's folder, else the one a file was
 * last opened from.
 */

typedef struct
{
  char  *dir;         /* holds p.cnoid, sub/targets.json, models/arm.json */
  char  *sub;
  char  *models;
  GFile *project;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  f->dir = km_test_make_tmp_dir ("km-folder-XXXXXX");
  f->sub = g_build_filename (f->dir, "sub", NULL);
  f->models = g_build_filename (f->dir, "models", NULL);
  g_assert_cmpint (g_mkdir (f->sub, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (f->models, 0755), ==, 0);
  {
    g_autofree char *path = g_build_filename (f->dir, "p.cnoid", NULL);

    f->project = g_file_new_for_path (path);
  }
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  km_test_remove_tree (f->dir);
  g_free (f->dir);
  g_free (f->sub);
  g_free (f->models);
  g_object_unref (f->project);
}

static void
assert_folder (GFile      *folder,
               const char *path)
{
  g_autoptr(GFile) expected = g_file_new_for_path (path);
  g_autofree char *got = folder != NULL ? g_file_get_path (folder) : NULL;

  g_assert_cmpstr (got, ==, path);
  g_assert_true (g_file_equal (folder, expected));
}

/* The example's project: its skeleton saved to models/arm.json, its targets to
 * sub/targets.json (which the project then names relatively), the project to p.cnoid. */
static void
save_example (Fixture    *f,
              KmDocument *document)
{
  g_autofree char *arm = g_build_filename (f->models, "arm.json", NULL);
  g_autofree char *targets = g_build_filename (f->sub, "targets.json", NULL);
  g_autoptr(GFile) arm_file = g_file_new_for_path (arm);
  g_autoptr(GFile) targets_file = g_file_new_for_path (targets);
  g_autoptr(GError) error = NULL;
  KmItem *item;

  g_assert_true (km_document_save_skeleton (document, arm_file, &error));
  g_assert_no_error (error);
  item = km_item_find_child_by_type (km_document_get_body_item (document),
                                     KM_TYPE_IK_TARGETS_ITEM);
  g_assert_nonnull (item);
  g_assert_true (km_document_save_item (document, item, targets_file, &error));
  g_assert_no_error (error);
  km_ik_targets_item_set_file (KM_IK_TARGETS_ITEM (item), "sub/targets.json", NULL);
  g_assert_true (km_document_save (document, f->project, &error));
  g_assert_no_error (error);
}

/* Nothing known (the built-in example, never saved): no folder, the dialog's own choice;
 * Open then goes where a file was last opened from. */
static void
test_unsaved (Fixture       *f,
              gconstpointer  data)
{
  g_autoptr(KmDocument) document = km_document_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) last = g_file_new_for_path (f->sub);
  g_autoptr(GFile) gone = g_file_new_for_path ("/nonexistent/km-folder");
  GFile *folder;

  g_assert_true (km_document_load_defaults (document, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_wait_idle_solve (document, 20000));

  g_assert_null (km_file_chooser_folder_for_project (document));
  /* The example's "skeleton.json" is its embedded model, in no folder. */
  g_assert_null (km_file_chooser_folder_for_item (document,
                                                  km_document_get_body_item (document)));
  g_assert_null (km_file_chooser_folder_for_item (document, NULL));
  g_assert_null (km_file_chooser_folder_for_open (document, NULL));
  g_assert_null (km_file_chooser_folder_for_open (document, gone));
  folder = km_file_chooser_folder_for_open (document, last);
  assert_folder (folder, f->sub);
  g_clear_object (&folder);

  km_document_cancel_solve (document);
  test_app_spin ();
  g_assert_finalize_object (g_steal_pointer (&document));
}

/* A project reopened from its file: each item's own folder (as the project names its file,
 * also relatively), the project's for an item without a file and for Open. */
static void
test_reopened (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(KmDocument) document = km_document_new ();
  g_autoptr(KmDocument) reopened = km_document_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) last = g_file_new_for_path (f->sub);
  g_autofree char *targets_path = g_build_filename (f->sub, "targets.json", NULL);
  KmItem *body, *targets, *animation;
  GFile *folder;

  g_assert_true (km_document_load_defaults (document, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_wait_idle_solve (document, 20000));
  save_example (f, document);
  /* The file it was just saved to. */
  folder = km_file_chooser_folder_for_item (document, km_document_get_body_item (document));
  assert_folder (folder, f->models);
  g_clear_object (&folder);

  g_assert_true (km_document_import_file (reopened, f->project, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_wait_idle_solve (reopened, 20000));
  body = km_document_get_body_item (reopened);
  targets = km_item_find_child_by_type (body, KM_TYPE_IK_TARGETS_ITEM);
  animation = km_item_find_child_by_type (body, KM_TYPE_IK_ANIMATION_ITEM);
  g_assert_nonnull (targets);
  g_assert_nonnull (animation);
  g_assert_cmpstr (km_ik_targets_item_get_file (KM_IK_TARGETS_ITEM (targets)), ==,
                   "sub/targets.json");
  g_assert_null (km_item_get_file (animation));

  folder = km_file_chooser_folder_for_project (reopened);
  assert_folder (folder, f->dir);
  g_clear_object (&folder);
  folder = km_file_chooser_folder_for_item (reopened, body);
  assert_folder (folder, f->models);
  g_clear_object (&folder);
  folder = km_file_chooser_folder_for_item (reopened, targets);
  assert_folder (folder, f->sub);
  g_clear_object (&folder);
  folder = km_file_chooser_folder_for_item (reopened, animation);
  assert_folder (folder, f->dir);
  g_clear_object (&folder);
  /* The project's folder before the one last opened from. */
  folder = km_file_chooser_folder_for_open (reopened, last);
  assert_folder (folder, f->dir);
  g_clear_object (&folder);

  /* An item's folder that is gone: the project's. */
  g_assert_cmpint (g_unlink (targets_path), ==, 0);
  g_assert_cmpint (g_rmdir (f->sub), ==, 0);
  folder = km_file_chooser_folder_for_item (reopened, targets);
  assert_folder (folder, f->dir);
  g_clear_object (&folder);

  km_document_cancel_solve (document);
  km_document_cancel_solve (reopened);
  test_app_spin ();
  g_assert_finalize_object (g_steal_pointer (&document));
  g_assert_finalize_object (g_steal_pointer (&reopened));
}

/* A project made by opening a model and never saved: Save Project As starts where the
 * model is, not in the working directory. */
static void
test_unsaved_import (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(KmDocument) example = km_document_new ();
  g_autoptr(KmDocument) document = km_document_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *arm = g_build_filename (f->models, "arm.json", NULL);
  g_autoptr(GFile) arm_file = g_file_new_for_path (arm);
  GFile *folder;

  g_assert_true (km_document_load_defaults (example, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_wait_idle_solve (example, 20000));
  g_assert_true (km_document_save_skeleton (example, arm_file, &error));
  g_assert_no_error (error);

  g_assert_true (km_document_import_file (document, arm_file, &error));
  g_assert_no_error (error);
  test_app_spin ();
  g_assert_null (km_document_get_file (document));
  folder = km_file_chooser_folder_for_project (document);
  assert_folder (folder, f->models);
  g_clear_object (&folder);
  /* An item without a file of its own: the project's folder, which is the model's. */
  folder = km_file_chooser_folder_for_item (document, NULL);
  assert_folder (folder, f->models);
  g_clear_object (&folder);

  km_document_cancel_solve (example);
  km_document_cancel_solve (document);
  test_app_spin ();
  g_assert_finalize_object (g_steal_pointer (&example));
  g_assert_finalize_object (g_steal_pointer (&document));
}

/* ---- The real dialogs ------------------------------------------------------------------ */

G_GNUC_BEGIN_IGNORE_DEPRECATIONS

/* GtkFileChooserNative without a portal (as under Xvfb) shows a GtkFileChooserDialog. */
static GtkFileChooser *
find_chooser (void)
{
  GtkWidget *dialog = test_app_find_chooser ();

  return dialog != NULL ? GTK_FILE_CHOOSER (dialog) : NULL;
}

static gboolean
chooser_has_folder (gpointer data)
{
  g_autoptr(GFile) folder = gtk_file_chooser_get_current_folder (find_chooser ());

  return folder != NULL;
}

/* Activates @action on @window, and returns the folder the dialog it opens starts in. */
static GFile *
dialog_folder (KmWindow   *window,
               const char *action)
{
  GFile *folder;

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), action, NULL));
  g_assert_true (test_app_wait_until (test_app_chooser_shown, NULL, 10000));
  /* (the chooser loads its folder in the background) */
  test_app_wait_until (chooser_has_folder, NULL, 5000);
  folder = gtk_file_chooser_get_current_folder (find_chooser ());
  return folder;
}

static void
dialog_respond (int response)
{
  gtk_dialog_response (GTK_DIALOG (find_chooser ()), response);
  g_assert_true (test_app_wait_until (test_app_chooser_gone, NULL, 10000));
}

static gboolean
chooser_has_file (gpointer data)
{
  GtkFileChooser *chooser = find_chooser ();
  g_autoptr(GFile) file = chooser != NULL ? gtk_file_chooser_get_file (chooser) : NULL;

  return file != NULL && g_file_equal (file, data);
}

G_GNUC_END_IGNORE_DEPRECATIONS

static void
test_dialogs (Fixture       *f,
              gconstpointer  data)
{
  KmWindow *window = test_app_example_window (900, 600);
  KmDocument *document = km_window_get_document (window);
  GFile *folder;
  GLogLevelFlags fatal;

  /* The chooser's search icon is an SVG, which gdk-pixbuf tells by the MIME database that
   * the isolated XDG_DATA_DIRS hide: GTK warns that it is missing, which is no failure
   * here (criticals still are). */
  fatal = g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);
  g_assert_true (test_app_wait_idle_solve (document, 20000));
  if (!test_app_have_chooser_schema ())
    {
      test_app_destroy_window (&window, &document);
      g_log_set_always_fatal (fatal);
      g_test_skip ("GTK's file chooser schema is not installed");
      return;
    }
  save_example (f, document);

  folder = dialog_folder (window, "win.save-as");
  assert_folder (folder, f->dir);
  g_clear_object (&folder);
  dialog_respond (GTK_RESPONSE_CANCEL);

  folder = dialog_folder (window, "skeleton.save-as");
  assert_folder (folder, f->models);
  g_clear_object (&folder);
  dialog_respond (GTK_RESPONSE_CANCEL);

  folder = dialog_folder (window, "skeleton.save-project-with-body");
  assert_folder (folder, f->dir);
  g_clear_object (&folder);
  dialog_respond (GTK_RESPONSE_CANCEL);

  folder = dialog_folder (window, "win.open");
  assert_folder (folder, f->dir);
  g_clear_object (&folder);
  dialog_respond (GTK_RESPONSE_CANCEL);

  /* The example again (no folder): Open starts where nothing is known, then, once a
   * file was opened from it, in that folder. */
  g_assert_true (km_window_open_example (window));
  g_assert_true (test_app_wait_loaded (window));
  g_assert_null (km_document_get_file (km_window_get_document (window)));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.open", NULL));
  g_assert_true (test_app_wait_until (test_app_chooser_shown, NULL, 10000));
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  g_assert_true (gtk_file_chooser_set_file (find_chooser (), f->project, NULL));
  G_GNUC_END_IGNORE_DEPRECATIONS
  g_assert_true (test_app_wait_until (chooser_has_file, f->project, 10000));
  dialog_respond (GTK_RESPONSE_ACCEPT);
  g_assert_true (test_app_wait_loaded (window));
  document = km_window_get_document (window);
  g_assert_nonnull (km_document_get_file (document));
  g_assert_true (g_file_equal (km_document_get_file (document), f->project));

  g_assert_true (km_window_open_example (window));
  g_assert_true (test_app_wait_loaded (window));
  g_assert_null (km_document_get_file (km_window_get_document (window)));
  folder = dialog_folder (window, "win.open");
  assert_folder (folder, f->dir);
  g_clear_object (&folder);
  dialog_respond (GTK_RESPONSE_CANCEL);

  document = km_window_get_document (window);
  test_app_destroy_window (&window, &document);
  g_log_set_always_fatal (fatal);
}

int
main (int    argc,
      char **argv)
{
  test_app_use_system_schemas ();
  test_app_init (&argc, &argv);

  g_test_add ("/kinema/FileChooserFolder/unsaved", Fixture, NULL,
              fixture_setup, test_unsaved, fixture_teardown);
  g_test_add ("/kinema/FileChooserFolder/unsaved-import", Fixture, NULL,
              fixture_setup, test_unsaved_import, fixture_teardown);
  g_test_add ("/kinema/FileChooserFolder/reopened", Fixture, NULL,
              fixture_setup, test_reopened, fixture_teardown);
  g_test_add ("/kinema/FileChooserFolder/dialogs", Fixture, NULL,
              fixture_setup, test_dialogs, fixture_teardown);

  return g_test_run ();
}
