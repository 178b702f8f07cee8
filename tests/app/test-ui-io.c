/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <gtk/gtk.h>

#include "km-animation.h"
#include "km-application.h"
#include "km-autosave.h"
#include "km-body-item.h"
#include "km-cnoid.h"
#include "km-defaults.h"
#include "km-document-edit.h"
#include "km-document-private.h"
#include "km-document-skeleton.h"
#include "km-format.h"
#include "km-ik-animation-item.h"
#include "km-ik-targets-item.h"
#include "km-joint-inspector.h"
#include "km-message.h"
#include "km-skeleton-edit.h"
#include "km-sub-project-item.h"
#include "km-targets-json.h"
#include "km-window.h"

#include "test-app-util.h"
#include "km-test-tmp.h"

/*
 * The UI thread never waits on file work, under Xvfb: a project save with a 10,000-frame
 * animation writes the bytes km_cnoid_save writes while the main loop keeps running; the
 * Skeleton tab's saves and exports write on a worker thread, one at a time; a recovery
 * reads the autosave on a worker thread. Every check is on the order of events, none on
 * the clock.
 */

typedef struct
{
  KmWindow   *window;
  KmDocument *document;
  char       *dir;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  f->window = test_app_example_window (900, 600);
  f->document = km_window_get_document (f->window);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  f->dir = g_dir_make_tmp ("km-ui-io-XXXXXX", NULL);
  g_assert_nonnull (f->dir);
}

static void
destroy_window (KmWindow **window)
{
  KmDocument *document = km_window_get_document (*window);

  g_assert_true (test_app_wait_idle_solve (document, 20000));
  g_object_add_weak_pointer (G_OBJECT (document), (gpointer *) &document);
  g_object_add_weak_pointer (G_OBJECT (*window), (gpointer *) window);
  gtk_window_destroy (GTK_WINDOW (*window));
  test_app_spin ();
  g_assert_null (*window);
  g_assert_null (document);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  destroy_window (&f->window);
  km_test_remove_tree (f->dir);
  g_free (f->dir);
}

static char *
read_file (const char *path,
           gsize      *length)
{
  char *text = NULL;

  g_assert_true (g_file_get_contents (path, &text, length, NULL));
  return text;
}

/* Counts main-loop dispatches (at the default priority, as an async result's). */
static gboolean
tick_cb (gpointer data)
{
  (*(guint *) data)++;
  return G_SOURCE_CONTINUE;
}

typedef struct
{
  guint   *ticks;
  guint    ticks_at_done;   /* what *ticks was when the result came */
  gboolean done;
  gboolean ok;
  GError  *error;
} Result;

static void
result_clear (Result *r)
{
  g_clear_error (&r->error);
}

/* Takes the result of any of the document's calls these tests make. */
static void
done_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  Result *r = user_data;

  r->ok = test_app_document_finish (KM_DOCUMENT (source), result, &r->error);
  if (r->ticks != NULL)
    r->ticks_at_done = *r->ticks;
  r->done = TRUE;
}

/* ---- 1. A big project save ----------------------------------------------------------- */

#define N_FRAMES 10000

/* The async save of a project with a 10,000-frame animation writes what km_cnoid_save
 * writes, byte for byte; the main loop dispatches other sources before the result comes. */
static void
test_big_save_bytes (Fixture       *f,
                     gconstpointer  data)
{
  KmSkeleton *skeleton = km_document_get_skeleton (f->document);
  guint n_dof = km_skeleton_get_n_dof (skeleton);
  g_autoptr(KmAnimation) animation = km_animation_new (skeleton, N_FRAMES);
  g_autoptr(KmItem) item = km_ik_animation_item_new ();
  g_autofree double *q = g_new0 (double, n_dof);
  g_autofree char *path = g_build_filename (f->dir, "big.cnoid", NULL);
  g_autofree char *sync_path = g_build_filename (f->dir, "big-sync.cnoid", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autofree char *expected = NULL;
  g_autofree char *written = NULL;
  g_autofree char *sync_written = NULL;
  g_autoptr(GError) error = NULL;
  gsize expected_length = 0, written_length = 0, sync_length = 0;
  guint ticks = 0;
  Result r = { .ticks = &ticks };
  guint tick_id;

  for (guint frame = 0; frame < N_FRAMES; frame++)
    {
      for (guint i = 0; i < n_dof; i++)
        q[i] = 1e-4 * frame + 0.01 * i + 1.0 / 3.0;
      km_animation_set_frame (animation, frame, q);
    }
  km_ik_animation_item_set_animation (KM_IK_ANIMATION_ITEM (item), animation);
  km_item_set_name (item, "Long Animation");
  km_item_append_child (km_document_get_body_item (f->document), item);
  expected = km_cnoid_to_string (km_document_get_project (f->document), path, &expected_length,
                                 &error);
  g_assert_no_error (error);

  tick_id = g_idle_add_full (G_PRIORITY_DEFAULT, tick_cb, &ticks, NULL);
  km_document_save_async (f->document, file, NULL, done_cb, &r);
  g_assert_false (r.done);
  g_assert_true (km_document_get_saving (f->document));
  g_assert_cmpuint (ticks, ==, 0);
  g_assert_true (test_app_wait_flag (&r.done, 30000));
  g_source_remove (tick_id);
  g_assert_no_error (r.error);
  g_assert_true (r.ok);
  /* The result came after the main loop had run other sources. */
  g_assert_cmpuint (r.ticks_at_done, >=, 1);
  g_assert_false (km_document_get_modified (f->document));

  written = read_file (path, &written_length);
  g_assert_cmpuint (written_length, ==, expected_length);
  g_assert_true (memcmp (written, expected, expected_length) == 0);
  g_assert_nonnull (strstr (written, "- { frame: 9999, joints: "));

  /* The synchronous save writes the same bytes (the same folder, the ids now kept). */
  g_assert_true (km_cnoid_save (km_document_get_project (f->document), sync_path, &error));
  g_assert_no_error (error);
  sync_written = read_file (sync_path, &sync_length);
  g_assert_cmpuint (sync_length, ==, written_length);
  g_assert_true (memcmp (sync_written, written, written_length) == 0);
  result_clear (&r);
}

/* ---- 2. The Skeleton tab's saves ------------------------------------------------------ */

static KmJointInspector *
inspector (Fixture *f)
{
  GtkWidget *widget = test_app_find_widget (GTK_WIDGET (f->window), KM_TYPE_JOINT_INSPECTOR);

  g_assert_nonnull (widget);
  return KM_JOINT_INSPECTOR (widget);
}

static GFile *
inspector_saving_file (Fixture *f)
{
  GFile *file = NULL;

  g_object_get (inspector (f), "saving-file", &file, NULL);
  return file;
}

static gboolean
inspector_idle (gpointer data)
{
  g_autoptr(GFile) file = inspector_saving_file (data);

  return file == NULL;
}

static gboolean
action_enabled (Fixture    *f,
                const char *name)
{
  GActionGroup *group = km_joint_inspector_get_actions (inspector (f));

  return g_action_group_get_action_enabled (group, name);
}

/* Moves the first joint's child: the skeleton differs from its file. */
static void
edit_skeleton (Fixture *f,
               double   x)
{
  g_autoptr(GError) error = NULL;
  KmSkeleton *skeleton = km_document_get_skeleton (f->document);
  KmVec3 offset = km_skeleton_get_joint (skeleton, 1)->offset;
  g_autoptr(KmSkeleton) edited = NULL;

  offset.x = x;
  edited = km_skeleton_edit_set_offset (skeleton, 1, offset, &error);
  g_assert_no_error (error);
  g_assert_true (km_document_edit_skeleton (f->document, edited, "Move Joint", NULL));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
}

static KmSkeleton *
load_model (const char *path,
            const char *format_name)
{
  g_autoptr(GError) error = NULL;
  const KmFormat *format = NULL;
  gpointer result = km_format_load_model_file (path, format_name, &format, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (result);
  g_assert_cmpint (format->kind, ==, KM_FILE_KIND_MODEL);
  return result;
}

/* A project reopened from its file names its skeleton.json relative to its folder: the
 * Skeleton tab's Save writes that file back without asking where (no Save As dialog), and
 * the project still names it as it did. */
static void
test_skeleton_save_reopened (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *project_path = g_build_filename (f->dir, "p.cnoid", NULL);
  g_autofree char *skeleton_path = g_build_filename (f->dir, "skeleton.json", NULL);
  g_autoptr(GFile) project_file = g_file_new_for_path (project_path);
  g_autoptr(GFile) skeleton_file = g_file_new_for_path (skeleton_path);
  g_autoptr(GFile) saving = NULL;
  g_autoptr(GFile) own = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) loaded = NULL;
  guint n_toplevels;
  KmItem *body;

  edit_skeleton (f, 0.125);
  g_assert_true (km_document_save (f->document, project_file, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_test (skeleton_path, G_FILE_TEST_IS_REGULAR));

  g_assert_true (test_app_open_file (f->window, project_file));
  f->document = km_window_get_document (f->window);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  body = km_document_get_body_item (f->document);
  g_assert_true (KM_IS_BODY_ITEM (body));
  g_assert_cmpstr (km_body_item_get_file (KM_BODY_ITEM (body)), ==, "skeleton.json");
  own = km_document_dup_skeleton_file (f->document);
  g_assert_nonnull (own);
  g_assert_true (g_file_equal (own, skeleton_file));

  edit_skeleton (f, 0.25);
  n_toplevels = g_list_model_get_n_items (gtk_window_get_toplevels ());
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "skeleton.save", NULL));
  saving = inspector_saving_file (f);
  g_assert_nonnull (saving);
  g_assert_true (g_file_equal (saving, skeleton_file));
  g_assert_true (test_app_wait_until (inspector_idle, f, 20000));
  g_assert_cmpuint (g_list_model_get_n_items (gtk_window_get_toplevels ()), ==, n_toplevels);

  g_assert_false (km_document_get_skeleton_modified (f->document));
  g_assert_cmpstr (km_body_item_get_file (KM_BODY_ITEM (body)), ==, "skeleton.json");
  g_assert_cmpstr (km_project_get_undo_label (km_document_get_project (f->document)), ==,
                   "Move Joint");
  loaded = load_model (skeleton_path, "SKELETON-JSON");
  g_assert_cmpfloat_with_epsilon (km_skeleton_get_joint (loaded, 1)->offset.x, 0.25, 1e-12);
}

/* Save Skeleton writes on a worker thread: the document takes the file in only once it
 * is written; meanwhile the tab's save actions are off, the window's spinner says what is
 * saved, and another save is refused. */
static void
test_skeleton_save_async (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *path = g_build_filename (f->dir, "arm.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFile) saving = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) loaded = NULL;
  GtkWidget *spinner;
  const char *tooltip;
  guint ticks = 0;
  guint ticks_at_start;
  guint tick_id;

  /* The body's model is a skeleton.json of the user's: Save writes it back. */
  g_assert_true (km_document_save_skeleton (f->document, file, &error));
  g_assert_no_error (error);
  edit_skeleton (f, 0.125);
  g_assert_true (km_document_get_skeleton_modified (f->document));
  g_assert_true (action_enabled (f, "save"));

  tick_id = g_idle_add_full (G_PRIORITY_DEFAULT, tick_cb, &ticks, NULL);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "skeleton.save", NULL));
  ticks_at_start = ticks;
  /* Not written yet as far as the document knows: that happens on the main loop. */
  g_assert_true (km_document_get_skeleton_modified (f->document));
  saving = inspector_saving_file (f);
  g_assert_nonnull (saving);
  g_assert_true (g_file_equal (saving, file));
  g_assert_true (g_file_equal (km_document_get_skeleton_saving_file (f->document), file));
  g_assert_false (action_enabled (f, "save"));
  g_assert_false (action_enabled (f, "export-urdf"));
  g_assert_false (action_enabled (f, "save-project-with-body"));
  spinner = test_app_find_widget (GTK_WIDGET (f->window), GTK_TYPE_SPINNER);
  g_assert_nonnull (spinner);
  g_assert_true (gtk_widget_get_visible (spinner));
  tooltip = gtk_widget_get_tooltip_text (spinner);
  g_assert_cmpstr (tooltip, ==, "Saving arm.json…");

  g_assert_true (test_app_wait_until (inspector_idle, f, 20000));
  g_source_remove (tick_id);
  g_assert_cmpuint (ticks, >, ticks_at_start);
  g_assert_false (km_document_get_skeleton_modified (f->document));
  g_assert_null (km_document_get_skeleton_saving_file (f->document));
  g_assert_true (action_enabled (f, "save"));
  g_assert_false (gtk_widget_get_visible (spinner));

  loaded = load_model (path, "SKELETON-JSON");
  g_assert_true (km_skeleton_equal (loaded, km_document_get_skeleton (f->document), 1e-12));
  g_assert_cmpfloat_with_epsilon (km_skeleton_get_joint (loaded, 1)->offset.x, 0.125, 1e-12);
}

/* A project save writes the edited skeleton on its worker too: right after the call the
 * body refers to the file the skeleton goes to, which is not there yet; once the save is
 * done it holds the edited skeleton and the document is unmodified. A save that cannot
 * write the skeleton puts the body back on its old file, its skeleton still edited. */
static void
test_save_edited_skeleton_async (Fixture       *f,
                                 gconstpointer  data)
{
  g_autofree char *path = g_build_filename (f->dir, "edited.cnoid", NULL);
  g_autofree char *skeleton_path = g_build_filename (f->dir, "skeleton.json", NULL);
  g_autofree char *bad_dir = g_build_filename (f->dir, "missing", NULL);
  g_autofree char *bad_path = g_build_filename (bad_dir, "edited.cnoid", NULL);
  g_autofree char *bad_skeleton_path = g_build_filename (bad_dir, "skeleton.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFile) bad_file = g_file_new_for_path (bad_path);
  g_autoptr(KmSkeleton) loaded = NULL;
  g_autofree char *project_text = NULL;
  g_autofree char *old_file = NULL;
  KmBodyItem *body = KM_BODY_ITEM (km_document_get_body_item (f->document));
  guint ticks = 0;
  Result r = { .ticks = &ticks }, failed = { .ticks = &ticks };

  old_file = g_strdup (km_body_item_get_file (body));
  edit_skeleton (f, 0.375);
  g_assert_true (km_document_get_skeleton_modified (f->document));
  g_assert_true (km_document_get_modified (f->document));

  /* The skeleton cannot be written: the save fails and the body is as it was. */
  km_document_save_async (f->document, bad_file, NULL, done_cb, &failed);
  g_assert_false (failed.done);
  g_assert_cmpstr (km_body_item_get_file (body), ==, bad_skeleton_path);
  g_assert_true (test_app_wait_flag (&failed.done, 20000));
  g_assert_false (failed.ok);
  g_assert_nonnull (failed.error);
  g_assert_false (g_file_test (bad_path, G_FILE_TEST_EXISTS));
  g_assert_cmpstr (km_body_item_get_file (body), ==, old_file);
  g_assert_true (km_document_get_skeleton_modified (f->document));
  g_assert_true (km_document_get_modified (f->document));

  km_document_save_async (f->document, file, NULL, done_cb, &r);
  /* Returned before the worker wrote anything, the body already on its new file. */
  g_assert_false (r.done);
  g_assert_true (km_document_get_saving (f->document));
  g_assert_false (g_file_test (skeleton_path, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_cmpstr (km_body_item_get_file (body), ==, skeleton_path);
  g_assert_cmpstr (km_body_item_get_format (body), ==, "SKELETON-JSON");

  g_assert_true (test_app_wait_flag (&r.done, 20000));
  g_assert_no_error (r.error);
  g_assert_true (r.ok);
  g_assert_false (km_document_get_saving (f->document));
  g_assert_false (km_document_get_modified (f->document));
  g_assert_false (km_document_get_skeleton_modified (f->document));
  g_assert_cmpstr (km_body_item_get_file (body), ==, skeleton_path);

  loaded = load_model (skeleton_path, "SKELETON-JSON");
  g_assert_true (km_skeleton_equal (loaded, km_document_get_skeleton (f->document), 1e-12));
  g_assert_cmpfloat_with_epsilon (km_skeleton_get_joint (loaded, 1)->offset.x, 0.375, 1e-12);
  project_text = read_file (path, NULL);
  g_assert_nonnull (strstr (project_text, "skeleton.json"));
  result_clear (&r);
  result_clear (&failed);
}

/* One Skeleton tab save at a time: a second one fails with G_IO_ERROR_PENDING and writes
 * nothing; an export writes the model the file format reads back. */
static void
test_skeleton_one_at_a_time (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *urdf_path = g_build_filename (f->dir, "arm.urdf", NULL);
  g_autofree char *json_path = g_build_filename (f->dir, "second.json", NULL);
  g_autoptr(GFile) urdf = g_file_new_for_path (urdf_path);
  g_autoptr(GFile) json = g_file_new_for_path (json_path);
  g_autoptr(KmSkeleton) loaded = NULL;
  guint ticks = 0;
  Result first = { .ticks = &ticks };
  Result second = { .ticks = &ticks };
  guint tick_id;

  tick_id = g_idle_add_full (G_PRIORITY_DEFAULT, tick_cb, &ticks, NULL);
  km_document_export_skeleton_async (f->document, KM_SKELETON_EXPORT_URDF, urdf, NULL,
                                     done_cb, &first);
  km_document_save_skeleton_async (f->document, json, NULL, done_cb, &second);
  g_assert_false (first.done);
  g_assert_false (second.done);
  g_assert_true (test_app_wait_flag (&first.done, 20000));
  g_assert_true (test_app_wait_flag (&second.done, 20000));
  g_source_remove (tick_id);

  g_assert_no_error (first.error);
  g_assert_true (first.ok);
  g_assert_cmpuint (first.ticks_at_done, >=, 1);
  g_assert_error (second.error, G_IO_ERROR, G_IO_ERROR_PENDING);
  g_assert_false (second.ok);
  g_assert_false (g_file_test (json_path, G_FILE_TEST_EXISTS));

  /* The spherical shoulder is three revolute joints in URDF. */
  loaded = load_model (urdf_path, "URDF");
  g_assert_cmpuint (km_skeleton_get_n_joints (km_document_get_skeleton (f->document)), ==, 5);
  g_assert_cmpuint (km_skeleton_get_n_joints (loaded), ==, 7);
  g_assert_cmpint (km_skeleton_find_joint (loaded, "Elbow"), >=, 0);
  /* The export left the body's model as it was. */
  g_assert_null (km_document_dup_skeleton_file (f->document));
  result_clear (&first);
  result_clear (&second);
}

/* The example arm with its spherical shoulder made revolute (a spherical joint has no .body
 * equivalent), saved as the skeleton.json @json, which its body then refers to. */
static KmBodyItem *
arm_saved_as_json (Fixture *f,
                   GFile   *json)
{
  g_autoptr(GError) error = NULL;
  KmSkeleton *edited;

  edited = km_skeleton_edit_set_type (km_document_get_skeleton (f->document), 1,
                                      KM_JOINT_REVOLUTE, &error);
  g_assert_no_error (error);
  g_assert_true (km_document_edit_skeleton (f->document, edited, "Change Joint Type", NULL));
  km_skeleton_unref (edited);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_true (km_document_save_skeleton (f->document, json, &error));
  g_assert_no_error (error);
  return KM_BODY_ITEM (km_document_get_body_item (f->document));
}

/* Save Project with Body Copies writes the .body copy, then the project, on a worker
 * thread; the body refers to the copy, and the project file says so. */
static void
test_save_with_body_copies_async (Fixture       *f,
                                  gconstpointer  data)
{
  g_autofree char *json_path = g_build_filename (f->dir, "arm.json", NULL);
  g_autofree char *project_path = g_build_filename (f->dir, "arm.cnoid", NULL);
  g_autofree char *body_path = g_build_filename (f->dir, "arm.body", NULL);
  g_autoptr(GFile) json = g_file_new_for_path (json_path);
  g_autoptr(GFile) project = g_file_new_for_path (project_path);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) loaded = NULL;
  g_autofree char *text = NULL;
  KmBodyItem *body;
  guint ticks = 0;
  Result r = { .ticks = &ticks };
  Result refused = { NULL, };
  guint tick_id;

  body = arm_saved_as_json (f, json);

  tick_id = g_idle_add_full (G_PRIORITY_DEFAULT, tick_cb, &ticks, NULL);
  km_document_save_with_body_copies_async (f->document, project, NULL, done_cb, &r);
  g_assert_cmpstr (km_body_item_get_format (body), ==, "SKELETON-JSON");
  /* The project save waits for this one. */
  km_document_save_with_body_copies_async (f->document, project, NULL, done_cb,
                                           &refused);
  g_assert_true (test_app_wait_flag (&r.done, 20000));
  g_assert_true (test_app_wait_flag (&refused.done, 20000));
  g_source_remove (tick_id);
  g_assert_no_error (r.error);
  g_assert_true (r.ok);
  g_assert_cmpuint (r.ticks_at_done, >=, 1);
  g_assert_error (refused.error, G_IO_ERROR, G_IO_ERROR_PENDING);

  g_assert_cmpstr (km_body_item_get_format (body), ==, "CHOREONOID-BODY");
  g_assert_cmpstr (km_body_item_get_file (body), ==, body_path);
  g_assert_false (km_document_get_modified (f->document));
  g_assert_false (km_document_get_saving (f->document));
  loaded = load_model (body_path, "CHOREONOID-BODY");
  g_assert_true (km_skeleton_equal (loaded, km_document_get_skeleton (f->document), 1e-9));
  text = read_file (project_path, NULL);
  g_assert_nonnull (strstr (text, "file: \"arm.body\""));

  /* One step: undo points the body back at its skeleton.json. */
  g_assert_true (km_document_undo (f->document));
  g_assert_cmpstr (km_body_item_get_file (body), ==, json_path);
  result_clear (&r);
  result_clear (&refused);
}

/* Save for Choreonoid beside a model of the user's that has the copy's name (arm.body):
 * the user's file stays as it was, the copy gets another name (arm-2.body). Saved again
 * after an undo (the body copied again), the copy of this project is written again where
 * it is, not to a third file; the user's file is still untouched. */
static void
test_body_copy_keeps_users_file (Fixture       *f,
                                 gconstpointer  data)
{
  static const char users[] = "# The user's own arm model\nformat: ChoreonoidBody\n";
  g_autofree char *json_path = g_build_filename (f->dir, "arm.json", NULL);
  g_autofree char *project_path = g_build_filename (f->dir, "arm.cnoid", NULL);
  g_autofree char *users_path = g_build_filename (f->dir, "arm.body", NULL);
  g_autofree char *copy_path = g_build_filename (f->dir, "arm-2.body", NULL);
  g_autofree char *third_path = g_build_filename (f->dir, "arm-3.body", NULL);
  g_autoptr(GFile) json = g_file_new_for_path (json_path);
  g_autoptr(GFile) project = g_file_new_for_path (project_path);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  KmBodyItem *body;

  body = arm_saved_as_json (f, json);
  g_assert_true (g_file_set_contents (users_path, users, -1, &error));
  g_assert_no_error (error);

  g_assert_true (km_document_save_with_body_copies (f->document, project, &error));
  g_assert_no_error (error);
  text = read_file (users_path, NULL);
  g_assert_cmpstr (text, ==, users);
  g_clear_pointer (&text, g_free);
  g_assert_cmpstr (km_body_item_get_format (body), ==, "CHOREONOID-BODY");
  g_assert_cmpstr (km_body_item_get_file (body), ==, copy_path);
  g_assert_true (g_file_test (copy_path, G_FILE_TEST_IS_REGULAR));
  text = read_file (project_path, NULL);
  g_assert_nonnull (strstr (text, "file: \"arm-2.body\""));
  g_clear_pointer (&text, g_free);

  /* Saved again as it is: the body refers to its copy, nothing new is written. */
  g_assert_true (km_document_save_with_body_copies (f->document, project, &error));
  g_assert_no_error (error);
  g_assert_false (g_file_test (third_path, G_FILE_TEST_EXISTS));

  /* Undone, the body refers to arm.json again: copied again, to the same copy. */
  g_assert_true (km_document_undo (f->document));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_cmpstr (km_body_item_get_file (body), ==, json_path);
  g_assert_true (km_document_save_with_body_copies (f->document, project, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (km_body_item_get_file (body), ==, copy_path);
  g_assert_false (g_file_test (third_path, G_FILE_TEST_EXISTS));
  text = read_file (users_path, NULL);
  g_assert_cmpstr (text, ==, users);
  g_clear_pointer (&text, g_free);

  /* Another program's file where the copy was: not the project's copy any more. */
  g_assert_true (km_document_undo (f->document));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_true (g_file_set_contents (copy_path, users, -1, &error));
  g_assert_no_error (error);
  g_assert_true (km_document_save_with_body_copies (f->document, project, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (km_body_item_get_file (body), ==, third_path);
  text = read_file (copy_path, NULL);
  g_assert_cmpstr (text, ==, users);
}

/* Whether @body's model is the file @path (its file name may be relative to the project). */
static gboolean
body_file_is (KmItem     *body,
              const char *path)
{
  const char *file = km_body_item_get_file (KM_BODY_ITEM (body));
  g_autofree char *base = g_path_get_basename (path);

  return g_strcmp0 (file, path) == 0 || g_strcmp0 (file, base) == 0;
}

/* Save for Choreonoid in a later run of the editor (a new document opening the project
 * that refers to the skeleton.json): the copy the earlier run wrote is known as this
 * project's by its stamp and written again, not beside it as arm-2.body. Once another
 * program changed it, it is the user's: the next copy gets another name and it stays. */
static void
test_body_copy_next_run (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree char *json_path = g_build_filename (f->dir, "arm.json", NULL);
  g_autofree char *kinema_path = g_build_filename (f->dir, "arm-kinema.cnoid", NULL);
  g_autofree char *project_path = g_build_filename (f->dir, "arm.cnoid", NULL);
  g_autofree char *copy_path = g_build_filename (f->dir, "arm.body", NULL);
  g_autofree char *second_path = g_build_filename (f->dir, "arm-2.body", NULL);
  g_autoptr(GFile) json = g_file_new_for_path (json_path);
  g_autoptr(GFile) kinema = g_file_new_for_path (kinema_path);
  g_autoptr(GFile) project = g_file_new_for_path (project_path);
  g_autoptr(GError) error = NULL;
  g_autofree char *changed = NULL;
  g_autofree char *text = NULL;

  arm_saved_as_json (f, json);
  g_assert_true (km_document_save (f->document, kinema, &error));
  g_assert_no_error (error);
  g_assert_true (km_document_save_with_body_copies (f->document, project, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_test (copy_path, G_FILE_TEST_IS_REGULAR));

  for (guint run = 0; run < 2; run++)
    {
      g_autoptr(KmDocument) next = km_document_new ();
      KmItem *body;

      g_assert_true (km_document_import_file (next, kinema, &error));
      g_assert_no_error (error);
      g_assert_true (test_app_wait_idle_solve (next, 20000));
      body = km_document_get_body_item (next);
      g_assert_true (body_file_is (body, json_path));
      g_assert_true (km_document_save_with_body_copies (next, project, &error));
      g_assert_no_error (error);
      g_assert_true (body_file_is (body, copy_path));
      g_assert_false (g_file_test (second_path, G_FILE_TEST_EXISTS));
      text = read_file (project_path, NULL);
      g_assert_nonnull (strstr (text, "file: \"arm.body\""));
      g_clear_pointer (&text, g_free);
    }

  /* Changed by another program: the user's now. */
  text = read_file (copy_path, NULL);
  changed = g_strconcat (text, "# mass checked by hand\n", NULL);
  g_clear_pointer (&text, g_free);
  g_assert_true (g_file_set_contents (copy_path, changed, -1, &error));
  g_assert_no_error (error);
  {
    g_autoptr(KmDocument) next = km_document_new ();
    KmItem *body;

    g_assert_true (km_document_import_file (next, kinema, &error));
    g_assert_no_error (error);
    g_assert_true (test_app_wait_idle_solve (next, 20000));
    g_assert_true (km_document_save_with_body_copies (next, project, &error));
    g_assert_no_error (error);
    body = km_document_get_body_item (next);
    g_assert_true (body_file_is (body, second_path));
  }
  text = read_file (copy_path, NULL);
  g_assert_cmpstr (text, ==, changed);
}

/* ---- 3. Recovery ----------------------------------------------------------------------- */

static gboolean
loaded_cb (gpointer window)
{
  return !km_window_get_loading (window);
}

/* Recovering an autosave reads it on a worker thread: the bar's answer returns at once,
 * the window is loading (its spinner says what) until the project is replaced, and the
 * autosave is gone once it is. */
static void
test_recovery_async (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *path = g_build_filename (f->dir, "autosave-7-0.cnoid", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  GtkWidget *bar = km_window_get_recovery_bar (f->window);
  KmProject *before = km_document_get_project (f->document);
  GtkWidget *spinner;
  const char *tooltip;
  double value;

  /* Unsaved work, autosaved. */
  value = km_document_get_pose (f->document, NULL)[0] + 0.25;
  km_document_set_dof_value (f->document, 0, value);
  value = km_body_item_get_joint_state (KM_BODY_ITEM (km_document_get_body_item (f->document)),
                                        NULL)[0];
  g_assert_true (km_document_write_autosave (f->document, path, &error));
  g_assert_no_error (error);
  km_document_set_dof_value (f->document, 0, value - 0.5);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));

  km_window_offer_recovery (f->window, file);
  gtk_info_bar_response (GTK_INFO_BAR (bar), GTK_RESPONSE_ACCEPT);
  /* Nothing replaced yet: the file is read on a worker thread. */
  g_assert_true (km_document_get_project (f->document) == before);
  g_assert_true (km_window_get_loading (f->window));
  spinner = test_app_find_widget (GTK_WIDGET (f->window), GTK_TYPE_SPINNER);
  tooltip = gtk_widget_get_tooltip_text (spinner);
  g_assert_cmpstr (tooltip, ==, "Opening autosave-7-0.cnoid…");

  g_assert_true (test_app_wait_until (loaded_cb, f->window, 20000));
  g_assert_true (km_document_get_project (f->document) != before);
  g_assert_cmpfloat_with_epsilon (km_body_item_get_joint_state (KM_BODY_ITEM (km_document_get_body_item (f->document)),
                                                                NULL)[0], value, 1e-9);
  g_assert_true (km_document_get_modified (f->document));
  g_assert_null (km_document_get_file (f->document));
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
}

/* A recovery comes back at the frame the work was at when it was autosaved (the window
 * stores its time in the project before each autosave), not at frame 0. */
static void
test_recovery_keeps_time (Fixture       *f,
                          gconstpointer  data)
{
  KmAutosave *autosave = km_window_get_autosave (f->window);
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  guint frame = km_document_get_n_frames (f->document) / 2;

  g_assert_cmpuint (frame, >, 0);
  /* Unsaved work at @frame, autosaved. */
  km_document_set_current_frame (f->document, frame);
  km_document_set_dof_value (f->document, 0, km_document_get_pose (f->document, NULL)[0] + 0.25);
  g_assert_true (km_autosave_save_now (autosave, &error));
  g_assert_no_error (error);
  file = g_file_new_for_path (km_autosave_get_path (autosave));
  g_assert_true (g_file_query_exists (file, NULL));
  km_document_set_current_frame (f->document, 0);

  km_window_offer_recovery (f->window, file);
  gtk_info_bar_response (GTK_INFO_BAR (km_window_get_recovery_bar (f->window)),
                         GTK_RESPONSE_ACCEPT);
  g_assert_true (test_app_wait_until (loaded_cb, f->window, 20000));
  g_assert_true (km_document_get_modified (f->document));
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, frame);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
}

/* A pose edited at a frame and not keyed there (the reviewer's: Elbow typed as 1.0 rad at
 * frame 40), autosaved and recovered: the recovery shows it again at that frame, still
 * unkeyed, and says nothing of it being replaced by the motion. */
static void
test_recovery_keeps_unkeyed_pose (Fixture       *f,
                                  gconstpointer  data)
{
  KmAutosave *autosave = km_window_get_autosave (f->window);
  KmSkeleton *skeleton = km_document_get_skeleton (f->document);
  int elbow = km_skeleton_find_joint (skeleton, "Elbow");
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree double *edited = NULL;
  const double *q;
  guint n_dof = 0, dof, replaced, frame = G_MAXUINT;

  g_assert_cmpint (elbow, >=, 0);
  dof = (guint) km_skeleton_get_joint (skeleton, (guint) elbow)->dof_index;
  km_document_set_current_frame (f->document, 40);
  km_document_set_dof_value (f->document, dof, 1.0);
  km_document_close_edit (f->document);
  g_assert_true (km_document_get_pose_unkeyed (f->document, NULL));
  q = km_document_get_pose (f->document, &n_dof);
  edited = g_memdup2 (q, n_dof * sizeof (double));
  g_assert_true (km_autosave_save_now (autosave, &error));
  g_assert_no_error (error);
  file = g_file_new_for_path (km_autosave_get_path (autosave));
  /* (This says the pose was replaced, once.) */
  km_document_set_current_frame (f->document, 0);
  replaced = test_app_count_messages (f->document, G_LOG_LEVEL_INFO, "was not keyed", NULL);
  g_assert_cmpuint (replaced, ==, 1);

  km_window_offer_recovery (f->window, file);
  gtk_info_bar_response (GTK_INFO_BAR (km_window_get_recovery_bar (f->window)),
                         GTK_RESPONSE_ACCEPT);
  g_assert_true (test_app_wait_until (loaded_cb, f->window, 20000));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  test_app_spin ();
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 40);
  q = km_document_get_pose (f->document, &n_dof);
  for (guint i = 0; i < n_dof; i++)
    g_assert_cmpfloat_with_epsilon (q[i], edited[i], 1e-9);
  g_assert_true (km_document_get_pose_unkeyed (f->document, &frame));
  g_assert_cmpuint (frame, ==, 40);
  g_assert_cmpuint (test_app_count_messages (f->document, G_LOG_LEVEL_INFO, "was not keyed",
                                             NULL), ==, replaced);
}

static int
find_joint (KmDocument *document,
            const char *name)
{
  int joint = km_skeleton_find_joint (km_document_get_skeleton (document), name);

  g_assert_cmpint (joint, >=, 0);
  return joint;
}

/* The selected joint is view state the project keeps (the body's kinema_selected_joint):
 * selecting one leaves the project clean; Save writes it, and the project opens with it
 * selected again; an autosave writes it too, and the recovery selects it again. */
static void
test_selected_joint_kept (Fixture       *f,
                          gconstpointer  data)
{
  KmAutosave *autosave = km_window_get_autosave (f->window);
  g_autofree char *path = g_build_filename (f->dir, "selected.cnoid", NULL);
  g_autofree char *copy_path = g_build_filename (f->dir, "selected-copy.cnoid", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFile) copy = g_file_new_for_path (copy_path);
  g_autoptr(GFile) autosave_file = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  int elbow = find_joint (f->document, "Elbow");
  int shoulder = find_joint (f->document, "Shoulder");

  g_assert_false (km_document_get_modified (f->document));
  km_document_set_selected_joint (f->document, elbow);
  test_app_spin ();
  g_assert_false (km_document_get_modified (f->document));
  g_assert_true (km_document_save (f->document, file, &error));
  g_assert_no_error (error);
  text = read_file (path, NULL);
  g_assert_nonnull (strstr (text, "kinema_selected_joint: \"Elbow\"\n"));
  g_assert_true (g_file_copy (file, copy, G_FILE_COPY_NONE, NULL, NULL, NULL, &error));
  g_assert_no_error (error);

  /* Opened again (another file's copy, so that it is a real open): Elbow selected. */
  km_document_set_selected_joint (f->document, shoulder);
  g_assert_true (test_app_open_file (f->window, copy));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  test_app_spin ();
  g_assert_cmpint (km_document_get_selected_joint (f->document), ==,
                   find_joint (f->document, "Elbow"));
  g_assert_false (km_document_get_modified (f->document));

  /* Unsaved work with Shoulder selected, autosaved, then another selection: the recovery
   * selects Shoulder. */
  km_document_set_dof_value (f->document, 0, km_document_get_pose (f->document, NULL)[0] + 0.25);
  km_document_close_edit (f->document);
  km_document_set_selected_joint (f->document, find_joint (f->document, "Shoulder"));
  g_assert_true (km_autosave_save_now (autosave, &error));
  g_assert_no_error (error);
  autosave_file = g_file_new_for_path (km_autosave_get_path (autosave));
  km_document_set_selected_joint (f->document, -1);

  km_window_offer_recovery (f->window, autosave_file);
  gtk_info_bar_response (GTK_INFO_BAR (km_window_get_recovery_bar (f->window)),
                         GTK_RESPONSE_ACCEPT);
  g_assert_true (test_app_wait_until (loaded_cb, f->window, 20000));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  test_app_spin ();
  g_assert_true (km_document_get_modified (f->document));
  g_assert_cmpint (km_document_get_selected_joint (f->document), ==,
                   find_joint (f->document, "Shoulder"));
}

/* A name no joint of the body has (a project edited elsewhere) selects nothing, and is
 * no error. */
static void
test_selected_joint_unknown (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *path = g_build_filename (f->dir, "selected.cnoid", NULL);
  g_autofree char *other = g_build_filename (f->dir, "other.cnoid", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFile) other_file = g_file_new_for_path (other);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_autoptr(GString) replaced = NULL;

  km_document_set_selected_joint (f->document, find_joint (f->document, "Elbow"));
  g_assert_true (km_document_save (f->document, file, &error));
  g_assert_no_error (error);
  text = read_file (path, NULL);
  replaced = g_string_new (text);
  g_assert_cmpuint (g_string_replace (replaced, "kinema_selected_joint: \"Elbow\"",
                                      "kinema_selected_joint: NoSuchJoint", 0), ==, 1);
  g_assert_true (g_file_set_contents (other, replaced->str, -1, &error));
  g_assert_no_error (error);
  km_document_set_selected_joint (f->document, -1);
  g_assert_true (test_app_open_file (f->window, other_file));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  test_app_spin ();
  g_assert_nonnull (km_document_get_skeleton (f->document));
  g_assert_cmpint (km_document_get_selected_joint (f->document), ==, -1);
  g_assert_cmpuint (test_app_count_messages (f->document, 0, "NoSuchJoint", NULL), ==, 0);
}

/* km_document_recover_async changes nothing when cancelled, and a file that is no project
 * is an error that names it. */
static void
test_recover_cancel_and_errors (Fixture       *f,
                                gconstpointer  data)
{
  g_autofree char *path = g_build_filename (f->dir, "autosave.cnoid", NULL);
  g_autofree char *bad_path = g_build_filename (f->dir, "bad.cnoid", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFile) bad = g_file_new_for_path (bad_path);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  KmProject *before = km_document_get_project (f->document);
  Result cancelled = { NULL, };
  Result failed = { NULL, };
  Result recovered = { NULL, };

  g_assert_true (km_document_write_autosave (f->document, path, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_set_contents (bad_path, "items: [ 1, \n", -1, NULL));

  km_document_recover_async (f->document, file, cancellable, done_cb, &cancelled);
  g_cancellable_cancel (cancellable);
  g_assert_true (test_app_wait_flag (&cancelled.done, 20000));
  g_assert_error (cancelled.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_true (km_document_get_project (f->document) == before);

  km_document_recover_async (f->document, bad, NULL, done_cb, &failed);
  g_assert_true (test_app_wait_flag (&failed.done, 20000));
  g_assert_false (failed.ok);
  g_assert_nonnull (failed.error);
  g_assert_true (g_str_has_prefix (failed.error->message, bad_path));
  g_assert_true (km_document_get_project (f->document) == before);

  km_document_recover_async (f->document, file, NULL, done_cb, &recovered);
  g_assert_true (km_document_get_project (f->document) == before);
  g_assert_true (test_app_wait_flag (&recovered.done, 20000));
  g_assert_no_error (recovered.error);
  g_assert_true (recovered.ok);
  g_assert_true (km_document_get_project (f->document) != before);
  g_assert_true (km_document_get_modified (f->document));
  g_assert_nonnull (km_document_get_skeleton (f->document));
  result_clear (&cancelled);
  result_clear (&failed);
  result_clear (&recovered);
}

/* A project save that has written the edited skeleton's new file and then cannot write
 * the project removes that file again: the body is back on its old one and nothing refers
 * to it (the next save would pick another name beside it). */
static void
test_failed_save_removes_copies (Fixture       *f,
                                 gconstpointer  data)
{
  g_autofree char *path = g_build_filename (f->dir, "edited.cnoid", NULL);
  g_autofree char *skeleton_path = g_build_filename (f->dir, "skeleton.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  KmBodyItem *body = KM_BODY_ITEM (km_document_get_body_item (f->document));
  g_autofree char *old_file = g_strdup (km_body_item_get_file (body));
  Result r = { NULL, };

  edit_skeleton (f, 0.25);
  /* The project cannot be put where a folder is. */
  g_assert_cmpint (g_mkdir (path, 0755), ==, 0);
  km_document_save_async (f->document, file, NULL, done_cb, &r);
  g_assert_cmpstr (km_body_item_get_file (body), ==, skeleton_path);
  g_assert_true (test_app_wait_flag (&r.done, 20000));
  g_assert_false (r.ok);
  g_assert_nonnull (r.error);
  g_assert_cmpstr (km_body_item_get_file (body), ==, old_file);
  g_assert_true (km_document_get_skeleton_modified (f->document));
  g_assert_true (km_document_get_modified (f->document));
  g_assert_false (g_file_test (skeleton_path, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (path, G_FILE_TEST_IS_DIR));
  result_clear (&r);
}

/* The body's model is a skeleton.json of the user's, which a save writes back: when the
 * project cannot be written, that file is as it was (the old project refers to it). */
static void
test_failed_save_keeps_skeleton_file (Fixture       *f,
                                      gconstpointer  data)
{
  g_autofree char *path = g_build_filename (f->dir, "edited.cnoid", NULL);
  g_autofree char *json_path = g_build_filename (f->dir, "arm.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFile) json = g_file_new_for_path (json_path);
  g_autoptr(GError) error = NULL;
  g_autoptr(GDir) dir = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  KmBodyItem *body;
  Result r = { NULL, };
  const char *name;

  /* A body of its own on the file (the example's is the built-in model). */
  g_assert_true (km_document_save_skeleton (f->document, json, &error));
  g_assert_no_error (error);
  g_assert_true (km_document_import_file (f->document, json, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  body = KM_BODY_ITEM (km_document_get_body_item (f->document));
  g_assert_cmpstr (km_body_item_get_file (body), ==, json_path);
  before = read_file (json_path, NULL);
  edit_skeleton (f, 0.25);
  g_assert_cmpint (g_mkdir (path, 0755), ==, 0);
  km_document_save_async (f->document, file, NULL, done_cb, &r);
  g_assert_true (test_app_wait_flag (&r.done, 20000));
  g_assert_false (r.ok);
  g_assert_nonnull (r.error);
  after = read_file (json_path, NULL);
  g_assert_cmpstr (after, ==, before);
  g_assert_cmpstr (km_body_item_get_file (body), ==, json_path);
  g_assert_true (km_document_get_skeleton_modified (f->document));
  /* Nothing else is left beside it. */
  dir = g_dir_open (f->dir, 0, NULL);
  while ((name = g_dir_read_name (dir)) != NULL)
    g_assert_true (g_str_equal (name, "arm.json") || g_str_equal (name, "edited.cnoid"));

  /* Saved where it can be: the file has the edit. */
  g_rmdir (path);
  result_clear (&r);
  memset (&r, 0, sizeof r);
  km_document_save_async (f->document, file, NULL, done_cb, &r);
  g_assert_true (test_app_wait_flag (&r.done, 20000));
  g_assert_no_error (r.error);
  g_clear_pointer (&after, g_free);
  after = read_file (json_path, NULL);
  g_assert_cmpstr (after, !=, before);
  g_assert_false (km_document_get_skeleton_modified (f->document));
  result_clear (&r);
}

/* An edit made while a project save writes the edited skeleton, and the save then fails:
 * the undo history does not keep the file that was never written (undo and redo put the
 * body on its own file, its skeleton edited), and the document is modified as it would be
 * without the save (undone to the state saved last, it is clean). */
static void
test_failed_save_keeps_history (Fixture       *f,
                                gconstpointer  data)
{
  g_autofree char *path = g_build_filename (f->dir, "saved.cnoid", NULL);
  g_autofree char *bad_dir = g_build_filename (f->dir, "missing", NULL);
  g_autofree char *bad_path = g_build_filename (bad_dir, "edited.cnoid", NULL);
  g_autofree char *bad_skeleton_path = g_build_filename (bad_dir, "skeleton.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFile) bad_file = g_file_new_for_path (bad_path);
  g_autoptr(GError) error = NULL;
  KmBodyItem *body = KM_BODY_ITEM (km_document_get_body_item (f->document));
  g_autofree char *old_file = NULL;
  double x = km_skeleton_get_joint (km_document_get_skeleton (f->document), 1)->offset.x;
  Result failed = { NULL, };

  g_assert_true (km_document_save (f->document, file, &error));
  g_assert_no_error (error);
  g_assert_false (km_document_get_modified (f->document));
  /* Saved, the example's body refers to the skeleton.json beside the project, which the
   * next save writes back to (where it is, not beside the project saved to). */
  old_file = g_strdup (km_body_item_get_file (body));
  g_assert_true (g_str_has_prefix (old_file, f->dir));
  edit_skeleton (f, 0.375);
  km_document_save_async (f->document, bad_file, NULL, done_cb, &failed);
  g_assert_cmpstr (km_body_item_get_file (body), ==, old_file);
  g_assert_cmpstr (km_body_item_get_file (body), !=, bad_skeleton_path);
  /* (Recorded before the save's result, which comes on the main loop.) */
  edit_skeleton (f, 0.5);
  g_assert_true (test_app_wait_flag (&failed.done, 20000));
  g_assert_false (failed.ok);
  g_assert_cmpstr (km_body_item_get_file (body), ==, old_file);
  g_assert_true (km_document_get_skeleton_modified (f->document));

  g_assert_true (km_document_undo (f->document));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_cmpfloat_with_epsilon (km_skeleton_get_joint (km_document_get_skeleton (f->document),
                                                         1)->offset.x, 0.375, 1e-12);
  g_assert_cmpstr (km_body_item_get_file (body), ==, old_file);
  g_assert_true (km_document_get_skeleton_modified (f->document));
  g_assert_true (km_document_get_modified (f->document));
  g_assert_true (km_document_redo (f->document));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_cmpstr (km_body_item_get_file (body), ==, old_file);
  g_assert_true (km_document_get_skeleton_modified (f->document));

  /* Back at the state saved before: clean, on its own file. */
  g_assert_true (km_document_undo (f->document));
  g_assert_true (km_document_undo (f->document));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_cmpfloat_with_epsilon (km_skeleton_get_joint (km_document_get_skeleton (f->document),
                                                         1)->offset.x, x, 1e-12);
  g_assert_cmpstr (km_body_item_get_file (body), ==, old_file);
  g_assert_false (km_document_get_skeleton_modified (f->document));
  g_assert_false (km_document_get_modified (f->document));
  result_clear (&failed);
}

/* A skeleton.json of the user's that a project save cannot write back (the disk is full):
 * the error names that file, not the temporary one beside it the write went to. */
static void
test_write_back_error_names_file (Fixture       *f,
                                  gconstpointer  data)
{
  g_autofree char *path = g_build_filename (f->dir, "edited.cnoid", NULL);
  g_autofree char *json_path = g_build_filename (f->dir, "arm.json", NULL);
  g_autofree char *expected = g_strdup_printf ("%s: cannot write the file: ", json_path);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFile) json = g_file_new_for_path (json_path);
  g_autoptr(GError) error = NULL;
  g_autoptr(GDir) dir = NULL;
  struct rlimit saved, small;
  Result r = { NULL, };
  const char *name;

  g_assert_true (km_document_save_skeleton (f->document, json, &error));
  g_assert_no_error (error);
  g_assert_true (km_document_import_file (f->document, json, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  edit_skeleton (f, 0.25);

  /* Files may not grow past a few bytes until the save is over. */
  g_assert_cmpint (getrlimit (RLIMIT_FSIZE, &saved), ==, 0);
  small = (struct rlimit) { 16, saved.rlim_max };
  signal (SIGXFSZ, SIG_IGN);
  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &small), ==, 0);
  km_document_save_async (f->document, file, NULL, done_cb, &r);
  g_assert_true (test_app_wait_flag (&r.done, 20000));
  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &saved), ==, 0);
  signal (SIGXFSZ, SIG_DFL);

  g_assert_false (r.ok);
  g_assert_nonnull (r.error);
  g_test_message ("%s", r.error->message);
  g_assert_true (g_str_has_prefix (r.error->message, expected));
  g_assert_null (strstr (r.error->message, "arm.json."));
  /* Nothing is left beside it. */
  dir = g_dir_open (f->dir, 0, NULL);
  while ((name = g_dir_read_name (dir)) != NULL)
    g_assert_cmpstr (name, ==, "arm.json");
  result_clear (&r);
}

/* ---- 4. Autosaves that hold every edit -------------------------------------------------- */

/* A .body model names a mesh relative to its folder: the edited skeleton's copy beside the
 * autosave names it so that it leads to the same file from there. */
static void
test_autosave_body_copy_references (Fixture       *f,
                                    gconstpointer  data)
{
  static const char model[] =
    "format: ChoreonoidBody\nformat_version: 2.0\nangle_unit: degree\nname: Robot\n"
    "root_link: Base\nlinks:\n"
    "  - name: Base\n    joint_type: fixed\n"
    "    elements:\n      - type: Resource\n        uri: \"meshes/base.stl\"\n"
    "  - name: Arm\n    parent: Base\n    joint_type: revolute\n    joint_id: 0\n"
    "    joint_axis: Z\n    translation: [ 0, 0, 0.1 ]\n    joint_range: [ -90, 90 ]\n";
  g_autofree char *model_dir = g_build_filename (f->dir, "model", NULL);
  g_autofree char *model_path = g_build_filename (model_dir, "robot.body", NULL);
  g_autofree char *mesh = g_build_filename (model_dir, "meshes", "base.stl", NULL);
  g_autofree char *path = g_build_filename (f->dir, "autosave-9-2.cnoid", NULL);
  g_autofree char *models = g_strconcat (path, ".models", NULL);
  g_autoptr(GFile) model_file = g_file_new_for_path (model_path);
  g_autoptr(GError) error = NULL;
  g_autoptr(GDir) dir = NULL;
  g_autoptr(KmSkeleton) copy = NULL;
  g_autofree char *copy_dir = NULL;
  g_autofree char *copy_path = NULL;
  g_autofree char *text = NULL;
  g_autofree char *resolved = NULL;
  KmShape * const *shapes;
  guint n_shapes = 0;
  Result r = { NULL, };

  g_assert_cmpint (g_mkdir (model_dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (model_path, model, -1, NULL));
  g_assert_true (km_document_import_file (f->document, model_file, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  edit_skeleton (f, 0.25);

  km_document_write_autosave_async (f->document, path, NULL, done_cb, &r);
  g_assert_true (test_app_wait_flag (&r.done, 20000));
  g_assert_no_error (r.error);
  g_assert_true (r.ok);
  dir = g_dir_open (models, 0, NULL);
  g_assert_nonnull (dir);
  copy_dir = g_build_filename (models, g_dir_read_name (dir), NULL);
  copy_path = g_build_filename (copy_dir, "1.body", NULL);
  text = read_file (copy_path, NULL);
  g_test_message ("%s", text);
  g_assert_null (strstr (text, "\"meshes/base.stl\""));

  /* Read from there, it names that file. */
  copy = load_model (copy_path, "CHOREONOID-BODY");
  shapes = km_skeleton_get_shapes (copy, 0, &n_shapes);
  g_assert_cmpuint (n_shapes, ==, 1);
  resolved = g_canonicalize_filename (shapes[0]->uri, copy_dir);
  g_assert_cmpstr (resolved, ==, mesh);
  result_clear (&r);
}

/* Recovers the autosave at @path into the fixture's document. */
static void
recover (Fixture    *f,
         const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  Result r = { NULL, };

  km_document_recover_async (f->document, file, NULL, done_cb, &r);
  g_assert_true (test_app_wait_flag (&r.done, 20000));
  g_assert_no_error (r.error);
  g_assert_true (r.ok);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
}

/* The recovered body has the edited skeleton, on the file it had, still to be saved. */
static void
assert_recovered_edit (Fixture    *f,
                       const char *old_file,
                       const char *old_format,
                       double      x)
{
  KmBodyItem *body = KM_BODY_ITEM (km_document_get_body_item (f->document));
  KmSkeleton *skeleton = km_document_get_skeleton (f->document);

  g_assert_nonnull (skeleton);
  g_assert_cmpfloat_with_epsilon (km_skeleton_get_joint (skeleton, 1)->offset.x, x, 1e-9);
  g_assert_cmpstr (km_body_item_get_file (body), ==, old_file);
  g_assert_cmpstr (km_body_item_get_format (body), ==, old_format);
  g_assert_true (km_document_get_skeleton_modified (f->document));
  g_assert_true (km_document_get_modified (f->document));
}

/* A skeleton edited and not saved is written beside the autosave, which refers to it:
 * the recovered body has the edit, back on the file it had and still to be saved, and
 * the copies beside the autosave go once it is recovered. */
static void
test_autosave_keeps_skeleton_edit (Fixture       *f,
                                   gconstpointer  data)
{
  g_autofree char *path = g_build_filename (f->dir, "autosave-9-0.cnoid", NULL);
  g_autofree char *models = g_strconcat (path, ".models", NULL);
  KmBodyItem *body = KM_BODY_ITEM (km_document_get_body_item (f->document));
  g_autofree char *old_file = g_strdup (km_body_item_get_file (body));
  g_autofree char *old_format = g_strdup (km_body_item_get_format (body));
  g_autofree char *text = NULL;
  Result r = { NULL, };

  edit_skeleton (f, 0.375);
  km_document_write_autosave_async (f->document, path, NULL, done_cb, &r);
  g_assert_true (test_app_wait_flag (&r.done, 20000));
  g_assert_no_error (r.error);
  g_assert_true (r.ok);
  /* The document still refers to its own file. */
  g_assert_cmpstr (km_body_item_get_file (body), ==, old_file);
  g_assert_true (km_document_get_skeleton_modified (f->document));
  text = read_file (path, NULL);
  g_assert_nonnull (strstr (text, "autosave-9-0.cnoid.models/"));
  g_assert_true (g_file_test (models, G_FILE_TEST_IS_DIR));

  /* Edited again: the recovered skeleton is the one autosaved. */
  edit_skeleton (f, 0.5);
  recover (f, path);
  assert_recovered_edit (f, old_file, old_format, 0.375);
  g_assert_false (g_file_test (models, G_FILE_TEST_EXISTS));
  result_clear (&r);
}

/* The built-in example, autosaved and recovered, is the example still: Save As puts its
 * model beside the project under the name a save of the example gives it, and refers to
 * it there, not to the autosave's folder. The autosave keeps the model in its own folder
 * (which goes with it), never in the folder all autosaves share. */
static void
test_recover_example_then_save (Fixture       *f,
                                gconstpointer  data)
{
  g_autofree char *autosave_dir = g_build_filename (f->dir, "autosave", NULL);
  g_autofree char *path = g_build_filename (autosave_dir, "autosave-9-3.cnoid", NULL);
  g_autofree char *models = g_strconcat (path, ".models", NULL);
  g_autofree char *shared = g_build_filename (autosave_dir, "skeleton.json", NULL);
  g_autofree char *project_dir = g_build_filename (f->dir, "x", NULL);
  g_autofree char *project = g_build_filename (project_dir, "rec.cnoid", NULL);
  g_autofree char *beside = g_build_filename (project_dir, "skeleton.json", NULL);
  g_autoptr(GFile) project_file = g_file_new_for_path (project);
  g_autoptr(GBytes) example = km_defaults_get_skeleton_json ();
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *model = NULL;
  gsize length = 0;
  KmBodyItem *body;

  g_assert_cmpint (g_mkdir_with_parents (autosave_dir, 0700), ==, 0);
  km_document_set_dof_value (f->document, 1, 0.3);
  g_assert_true (km_document_write_autosave (f->document, path, &error));
  g_assert_no_error (error);
  g_assert_false (g_file_test (shared, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (models, G_FILE_TEST_IS_DIR));
  text = read_file (path, NULL);
  g_assert_nonnull (strstr (text, "autosave-9-3.cnoid.models/"));
  /* The document's body is the example's still. */
  body = KM_BODY_ITEM (km_document_get_body_item (f->document));
  g_assert_cmpstr (km_body_item_get_file (body), ==, "skeleton.json");

  recover (f, path);
  g_assert_false (g_file_test (models, G_FILE_TEST_EXISTS));
  body = KM_BODY_ITEM (km_document_get_body_item (f->document));
  g_assert_cmpstr (km_body_item_get_file (body), ==, "skeleton.json");
  g_assert_true (km_document_get_modified (f->document));

  g_assert_cmpint (g_mkdir_with_parents (project_dir, 0700), ==, 0);
  g_assert_true (km_document_save (f->document, project_file, &error));
  g_assert_no_error (error);
  g_clear_pointer (&text, g_free);
  text = read_file (project, NULL);
  g_assert_null (strstr (text, "autosave"));
  g_assert_nonnull (strstr (text, "file: \"skeleton.json\""));
  model = read_file (beside, &length);
  g_assert_cmpuint (length, ==, g_bytes_get_size (example));
  g_assert_true (memcmp (model, g_bytes_get_data (example, NULL), length) == 0);
  g_assert_false (g_file_test (shared, G_FILE_TEST_EXISTS));
}

/* The built-in example (an Untitled project), its pose edited, autosaved and recovered
 * into a new document, then saved as a project: the project names the body's model in
 * its real format (SKELETON-JSON), so that it opens again with the body and the edit. */
static void
test_recover_example_save_reopen (Fixture       *f,
                                  gconstpointer  data)
{
  g_autofree char *autosave_dir = g_build_filename (f->dir, "autosave", NULL);
  g_autofree char *path = g_build_filename (autosave_dir, "autosave-9-7.cnoid", NULL);
  g_autofree char *project = g_build_filename (f->dir, "r.cnoid", NULL);
  g_autoptr(GFile) autosave_file = g_file_new_for_path (path);
  g_autoptr(GFile) project_file = g_file_new_for_path (project);
  g_autoptr(KmDocument) recovered = km_document_new ();
  g_autoptr(KmDocument) reopened = km_document_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *autosave_text = NULL;
  g_autofree char *text = NULL;
  KmItem *body;
  const double *q;
  guint n_dof = 0;
  double edited;
  Result r = { NULL, };

  g_assert_null (km_document_get_file (f->document));
  g_assert_cmpint (g_mkdir_with_parents (autosave_dir, 0700), ==, 0);
  km_document_set_dof_value (f->document, 1, 0.3);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  q = km_document_get_pose (f->document, &n_dof);
  g_assert_cmpuint (n_dof, >, 1);
  edited = q[1];
  g_assert_cmpfloat_with_epsilon (edited, 0.3, 1e-9);
  g_assert_true (km_document_write_autosave (f->document, path, &error));
  g_assert_no_error (error);
  autosave_text = read_file (path, NULL);
  g_assert_nonnull (strstr (autosave_text, "format: SKELETON-JSON"));

  km_document_recover_async (recovered, autosave_file, NULL, done_cb, &r);
  g_assert_true (test_app_wait_flag (&r.done, 20000));
  g_assert_no_error (r.error);
  g_assert_true (r.ok);
  g_assert_true (test_app_wait_idle_solve (recovered, 20000));
  body = km_document_get_body_item (recovered);
  g_assert_nonnull (body);
  g_assert_cmpstr (km_body_item_get_file (KM_BODY_ITEM (body)), ==, "skeleton.json");
  g_assert_cmpstr (km_body_item_get_format (KM_BODY_ITEM (body)), ==, "SKELETON-JSON");

  /* Save As. */
  g_assert_true (km_document_save (recovered, project_file, &error));
  g_assert_no_error (error);
  text = read_file (project, NULL);
  g_assert_nonnull (strstr (text, "format: SKELETON-JSON"));
  g_assert_null (strstr (text, "format: skeleton.json"));

  /* Opened again: the body is there, with the edit. */
  g_assert_true (km_document_import_file (reopened, project_file, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_wait_idle_solve (reopened, 20000));
  body = km_document_get_body_item (reopened);
  g_assert_nonnull (body);
  g_assert_null (km_item_get_problem (body));
  g_assert_nonnull (km_document_get_skeleton (reopened));
  g_assert_cmpstr (km_body_item_get_format (KM_BODY_ITEM (body)), ==, "SKELETON-JSON");
  /* (The body's joint values: the pose shown is the solved animation's at the frame.) */
  q = km_body_item_get_joint_state (KM_BODY_ITEM (body), &n_dof);
  g_assert_nonnull (q);
  g_assert_cmpuint (n_dof, >, 1);
  g_assert_cmpfloat_with_epsilon (q[1], edited, 1e-9);
  g_assert_true (test_app_wait_idle_solve (recovered, 20000));
  result_clear (&r);
}

/* An autosave taken while a project save runs, which fails: the body refers meanwhile to
 * the file the save writes its skeleton to (never written), but the autosave refers to
 * its own copy, so recovering it gives the edit back. */
static void
test_autosave_during_failed_save (Fixture       *f,
                                  gconstpointer  data)
{
  g_autofree char *path = g_build_filename (f->dir, "autosave-9-1.cnoid", NULL);
  g_autofree char *bad_dir = g_build_filename (f->dir, "missing", NULL);
  g_autofree char *bad_path = g_build_filename (bad_dir, "edited.cnoid", NULL);
  g_autofree char *bad_skeleton_path = g_build_filename (bad_dir, "skeleton.json", NULL);
  g_autoptr(GFile) bad_file = g_file_new_for_path (bad_path);
  KmBodyItem *body = KM_BODY_ITEM (km_document_get_body_item (f->document));
  g_autofree char *old_file = g_strdup (km_body_item_get_file (body));
  g_autofree char *old_format = g_strdup (km_body_item_get_format (body));
  g_autofree char *text = NULL;
  Result saved = { NULL, }, autosaved = { NULL, };

  edit_skeleton (f, 0.375);
  km_document_save_async (f->document, bad_file, NULL, done_cb, &saved);
  g_assert_cmpstr (km_body_item_get_file (body), ==, bad_skeleton_path);
  km_document_write_autosave_async (f->document, path, NULL, done_cb, &autosaved);
  g_assert_cmpstr (km_body_item_get_file (body), ==, bad_skeleton_path);
  g_assert_true (test_app_wait_flag (&saved.done, 20000));
  g_assert_true (test_app_wait_flag (&autosaved.done, 20000));
  g_assert_false (saved.ok);
  g_assert_no_error (autosaved.error);
  g_assert_true (autosaved.ok);
  g_assert_cmpstr (km_body_item_get_file (body), ==, old_file);
  text = read_file (path, NULL);
  g_assert_null (strstr (text, "missing"));

  recover (f, path);
  assert_recovered_edit (f, old_file, old_format, 0.375);
  result_clear (&saved);
  result_clear (&autosaved);
}

/* The motion the current body's animation item holds. */
static KmAnimation *
item_animation (Fixture *f)
{
  KmItem *item = km_item_find_child_by_type (km_document_get_body_item (f->document),
                                             KM_TYPE_IK_ANIMATION_ITEM);

  g_assert_nonnull (item);
  return km_ik_animation_item_get_animation (KM_IK_ANIMATION_ITEM (item));
}

/* Reloading the targets of the current body (their file changed on disk: the second
 * keyframe moved) solves them again, as a keyframe edit does, and says so; undo gives
 * back the targets and the motion of before, redo the reloaded ones and their motion. */
static void
test_reload_targets_solves (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *path = g_build_filename (f->dir, "targets.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmTargetTrack) moved = NULL;
  KmTargetTrack *track_before;
  KmAnimation *animation_before;
  KmAnimation *animation_after;
  KmTargetKeyframe key;
  KmItem *item;
  guint n_solved;

  g_assert_true (km_targets_json_save (km_document_get_targets (f->document), path, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_open_file (f->window, file));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  item = km_item_find_child_by_type (km_document_get_body_item (f->document),
                                     KM_TYPE_IK_TARGETS_ITEM);
  g_assert_nonnull (km_ik_targets_item_get_file (KM_IK_TARGETS_ITEM (item)));
  track_before = km_document_get_targets (f->document);
  animation_before = item_animation (f);
  g_assert_nonnull (animation_before);

  key = *km_target_track_get_keyframe (track_before, 1);
  key.position.x -= 0.05;
  moved = km_target_track_with_keyframe (track_before, &key);
  g_assert_true (km_targets_json_save (moved, path, &error));
  g_assert_no_error (error);

  n_solved = test_app_count_messages (f->document, G_LOG_LEVEL_INFO, "Solved", NULL);
  km_project_select (km_document_get_project (f->document), item, FALSE);
  test_app_spin ();
  g_assert_true (gtk_widget_activate_action (km_window_get_item_tree (f->window), "tree.reload",
                                             NULL));
  g_assert_true (test_app_wait_reloaded (km_window_get_item_tree (f->window)));
  test_app_spin ();
  g_assert_true (km_document_get_targets (f->document) != track_before);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_cmpuint (test_app_count_messages (f->document, G_LOG_LEVEL_INFO, "Solved", NULL),
                    ==, n_solved + 1);
  animation_after = item_animation (f);
  g_assert_true (animation_after != animation_before);
  g_assert_true (km_document_get_animation (f->document) == animation_after);

  g_assert_true (km_document_undo (f->document));
  test_app_spin ();
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_true (km_document_get_targets (f->document) == track_before);
  g_assert_true (item_animation (f) == animation_before);
  g_assert_true (km_document_get_animation (f->document) == animation_before);

  g_assert_true (km_document_redo (f->document));
  test_app_spin ();
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_true (km_document_get_targets (f->document) != track_before);
  g_assert_true (item_animation (f) == animation_after);
  g_assert_true (km_document_get_animation (f->document) == animation_after);
}


/* ---- 5. Sub-projects in an autosave, ${SHARE} after Save As ----------------------------- */

/* A project's text: for each of @names, a sub-project item so named that refers to the
 * file of @files at the same place. */
static char *
project_with_sub_projects (const char * const *names,
                           const char * const *files)
{
  GString *text = g_string_new ("items:\n"
                                "  id: 0\n"
                                "  name: \"RootItem\"\n"
                                "  plugin: Base\n"
                                "  class: RootItem\n"
                                "  is_builtin_item: true\n"
                                "  children:\n");

  for (guint i = 0; names[i] != NULL; i++)
    g_string_append_printf (text,
                            "    -\n"
                            "      id: %u\n"
                            "      name: \"%s\"\n"
                            "      plugin: Base\n"
                            "      class: SubProjectItem\n"
                            "      data:\n"
                            "        file: \"%s\"\n", i + 1, names[i], files[i]);
  return g_string_free (text, FALSE);
}

static void
write_test_file (const char *dir,
                 const char *name,
                 const char *text)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);

  g_assert_true (g_file_set_contents (path, text, -1, NULL));
}

/* The first sub-project item named @name under @item, or NULL. */
static KmItem *
find_sub_project (KmItem     *item,
                  const char *name)
{
  if (KM_IS_SUB_PROJECT_ITEM (item) && g_strcmp0 (km_item_get_name (item), name) == 0)
    return item;
  for (guint i = 0; i < km_item_get_n_children (item); i++)
    {
      KmItem *found = find_sub_project (km_item_get_child (item, i), name);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The file the sub-project item @name of @document's project refers to. */
static const char *
sub_project_file (KmDocument *document,
                  const char *name)
{
  KmItem *item = find_sub_project (km_project_get_root_item (km_document_get_project (document)),
                                   name);

  g_assert_nonnull (item);
  return km_sub_project_item_get_file (KM_SUB_PROJECT_ITEM (item));
}

/* An edit inside a sub-project (here one nested in another) is autosaved in a copy of each
 * sub-project on the way, which the autosave refers to; an unchanged sub-project is referred
 * to in its own file. Recovered into another document, the edit is there, the sub-project
 * items refer to their own files again and the copies are gone; Save writes the edit to the
 * sub-project's own file, and leaves the others as they were. */
static void
test_autosave_keeps_sub_project_edit (Fixture       *f,
                                      gconstpointer  data)
{
  static const char * const names[] = { "arm.json", "targets.json" };
  static const char * const main_names[] = { "Outer", "Plain", NULL };
  static const char * const main_files[] = { "outer.cnoid", "plain.cnoid", NULL };
  static const char * const outer_names[] = { "Robot part", NULL };
  /* @data: the inner sub-project's file name (a GKeyFile group name cannot hold "[]"). */
  const char *part = data != NULL ? data : "part.cnoid";
  const char * const outer_files[] = { part, NULL };
  static const char plain[] =
    "items:\n  id: 0\n  name: \"RootItem\"\n  plugin: Base\n  class: RootItem\n"
    "  is_builtin_item: true\n  children:\n"
    "    -\n      id: 1\n      name: \"Notes\"\n      plugin: Base\n      class: FolderItem\n";
  g_autofree char *arm = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema",
                                                "arm.cnoid", NULL);
  g_autofree char *arm_text = read_file (arm, NULL);
  g_autofree char *main_text = project_with_sub_projects (main_names, main_files);
  g_autofree char *outer_text = project_with_sub_projects (outer_names, outer_files);
  g_autofree char *main_path = g_build_filename (f->dir, "main.cnoid", NULL);
  g_autofree char *outer_path = g_build_filename (f->dir, "outer.cnoid", NULL);
  g_autofree char *part_path = g_build_filename (f->dir, part, NULL);
  g_autofree char *plain_path = g_build_filename (f->dir, "plain.cnoid", NULL);
  g_autofree char *autosave_dir = g_build_filename (f->dir, "autosave", NULL);
  g_autofree char *path = g_build_filename (autosave_dir, "autosave-9-5.cnoid", NULL);
  g_autofree char *models = g_strconcat (path, ".models", NULL);
  g_autoptr(GFile) main_file = g_file_new_for_path (main_path);
  g_autoptr(GFile) autosave_file = g_file_new_for_path (path);
  g_autoptr(KmDocument) recovered = km_document_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *autosave_text = NULL;
  g_autofree char *plain_file = NULL;
  g_autofree char *saved_main = NULL;
  g_autofree char *saved_part = NULL;
  g_autofree char *saved_outer = NULL;
  g_autofree char *saved_plain = NULL;
  Result r = { NULL, };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *from = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema",
                                                     names[i], NULL);
      g_autofree char *contents = read_file (from, NULL);

      write_test_file (f->dir, names[i], contents);
    }
  write_test_file (f->dir, part, arm_text);
  write_test_file (f->dir, "outer.cnoid", outer_text);
  write_test_file (f->dir, "plain.cnoid", plain);
  write_test_file (f->dir, "main.cnoid", main_text);

  /* The edit: a keyframe of the targets in part.cnoid, inside outer.cnoid, deleted. */
  g_assert_true (km_document_import_file (f->document, main_file, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_cmpstr (km_item_get_name (km_document_get_body_item (f->document)), ==, "Arm");
  g_assert_cmpuint (km_target_track_get_n_keyframes (km_document_get_targets (f->document)),
                    ==, 2);
  g_assert_true (km_document_delete_keyframe (f->document, 12));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));

  g_assert_true (km_document_write_autosave (f->document, path, &error));
  g_assert_no_error (error);
  autosave_text = read_file (path, NULL);
  g_test_message ("%s", autosave_text);
  /* Outer refers to its copy (numbered, in the autosave's .models folder), Plain to its
   * own file. */
  {
    g_auto(GStrv) around_copies = g_strsplit (autosave_text, ".models/", -1);

    g_assert_cmpuint (g_strv_length (around_copies), ==, 2);   /* one reference */
  }
  g_assert_null (strstr (autosave_text, "outer.cnoid\""));
  g_assert_nonnull (strstr (autosave_text, "plain.cnoid\""));
  /* The document is as it was: its sub-project items refer to their files. */
  g_assert_cmpstr (sub_project_file (f->document, "Outer"), ==, "outer.cnoid");

  km_document_recover_async (recovered, autosave_file, NULL, done_cb, &r);
  g_assert_true (test_app_wait_flag (&r.done, 20000));
  g_assert_no_error (r.error);
  g_assert_true (r.ok);
  g_assert_true (test_app_wait_idle_solve (recovered, 20000));

  /* The edit is there, on the files it belongs to, still to be saved; the copies are gone. */
  g_assert_cmpuint (km_target_track_get_n_keyframes (km_document_get_targets (recovered)),
                    ==, 1);
  g_assert_cmpstr (sub_project_file (recovered, "Outer"), ==, outer_path);
  g_assert_cmpstr (sub_project_file (recovered, "Robot part"), ==, part_path);
  /* (As the autosave refers to it, from its folder.) */
  plain_file = g_canonicalize_filename (sub_project_file (recovered, "Plain"), autosave_dir);
  g_assert_cmpstr (plain_file, ==, plain_path);
  g_assert_true (km_document_get_modified (recovered));
  g_assert_true (g_file_equal (km_document_get_file (recovered), main_file));
  g_assert_false (g_file_test (models, G_FILE_TEST_EXISTS));

  /* Save writes the edit to part.cnoid, each sub-project still referred to as it was. */
  g_assert_true (km_document_save (recovered, main_file, &error));
  g_assert_no_error (error);
  saved_part = read_file (part_path, NULL);
  g_assert_null (strstr (saved_part, "frame: 12"));
  g_assert_nonnull (strstr (saved_part, "frame: 0"));
  g_assert_nonnull (strstr (saved_part, "file: \"arm.json\""));
  saved_main = read_file (main_path, NULL);
  g_assert_nonnull (strstr (saved_main, "file: \"outer.cnoid\""));
  g_assert_nonnull (strstr (saved_main, "file: \"plain.cnoid\""));
  saved_outer = read_file (outer_path, NULL);
  g_assert_cmpstr (saved_outer, ==, outer_text);
  saved_plain = read_file (plain_path, NULL);
  g_assert_cmpstr (saved_plain, ==, plain);
  g_assert_false (km_document_get_modified (recovered));
  result_clear (&r);
}

/* A body in a sub-project that lives in another folder, its skeleton edited: the autosave
 * notes the model file it refers to relative to the sub-project's folder, not the main
 * project's, so that the recovered body and the next Save go to the user's file there. */
static void
test_autosave_sub_project_body_folder (Fixture       *f,
                                       gconstpointer  data)
{
  static const char * const names[] = { "arm.json", "targets.json" };
  static const char * const main_names[] = { "Part", NULL };
  static const char * const main_files[] = { "parts/part.cnoid", NULL };
  g_autofree char *arm = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema",
                                                "arm.cnoid", NULL);
  g_autofree char *arm_text = read_file (arm, NULL);
  g_autofree char *main_text = project_with_sub_projects (main_names, main_files);
  g_autofree char *parts = g_build_filename (f->dir, "parts", NULL);
  g_autofree char *model_path = g_build_filename (parts, "arm.json", NULL);
  g_autofree char *wrong_path = g_build_filename (f->dir, "arm.json", NULL);
  g_autofree char *main_path = g_build_filename (f->dir, "main.cnoid", NULL);
  g_autofree char *autosave_dir = g_build_filename (f->dir, "autosave", NULL);
  g_autofree char *path = g_build_filename (autosave_dir, "autosave-9-6.cnoid", NULL);
  g_autoptr(GFile) main_file = g_file_new_for_path (main_path);
  g_autoptr(GFile) autosave_file = g_file_new_for_path (path);
  g_autoptr(KmDocument) recovered = km_document_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) saved = NULL;
  g_autofree char *body_file = NULL;
  KmItem *body;
  Result r = { NULL, };

  g_assert_cmpint (g_mkdir_with_parents (parts, 0700), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *from = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema",
                                                     names[i], NULL);
      g_autofree char *contents = read_file (from, NULL);

      write_test_file (parts, names[i], contents);
    }
  write_test_file (parts, "part.cnoid", arm_text);
  write_test_file (f->dir, "main.cnoid", main_text);

  g_assert_true (km_document_import_file (f->document, main_file, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_cmpstr (km_item_get_name (km_document_get_body_item (f->document)), ==, "Arm");
  edit_skeleton (f, 0.25);
  g_assert_true (km_document_write_autosave (f->document, path, &error));
  g_assert_no_error (error);

  km_document_recover_async (recovered, autosave_file, NULL, done_cb, &r);
  g_assert_true (test_app_wait_flag (&r.done, 20000));
  g_assert_no_error (r.error);
  g_assert_true (r.ok);
  g_assert_true (test_app_wait_idle_solve (recovered, 20000));

  /* The recovered body refers to the model in the sub-project's folder, edited. */
  body = km_document_get_body_item (recovered);
  g_assert_cmpstr (km_item_get_name (body), ==, "Arm");
  body_file = g_canonicalize_filename (km_body_item_get_file (KM_BODY_ITEM (body)), parts);
  g_assert_cmpstr (body_file, ==, model_path);
  g_assert_cmpfloat (km_skeleton_get_joint (km_body_item_get_skeleton (KM_BODY_ITEM (body)),
                                            1)->offset.x, ==, 0.25);

  /* Saved: the edit goes to that file, none to the main project's folder. */
  g_assert_true (km_document_save (recovered, main_file, &error));
  g_assert_no_error (error);
  g_assert_false (g_file_test (wrong_path, G_FILE_TEST_EXISTS));
  saved = km_format_load_model_file (model_path, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (km_skeleton_get_joint (saved, 1)->offset.x, ==, 0.25);
  result_clear (&r);
}

/* The warnings among @document's messages that hold @text. */
static guint
count_warnings (KmDocument *document,
                const char *text)
{
  GListModel *messages = km_document_get_messages (document);
  guint n = 0;

  for (guint i = 0; i < g_list_model_get_n_items (messages); i++)
    {
      g_autoptr(KmMessage) message = g_list_model_get_item (messages, i);

      if (km_message_get_level (message) == G_LOG_LEVEL_WARNING
          && strstr (km_message_get_text (message), text) != NULL)
        n++;
    }
  return n;
}

/* A project in a share folder's project/ folder reads ${SHARE}/… from there. Saved there,
 * it says nothing; saved elsewhere (Save As), where no share folder is found, those
 * references are written as absolute paths, and the Messages view says so and why, once:
 * a later save to that file writes them so again, unsaid. */
static void
test_save_as_share_warning (Fixture       *f,
                            gconstpointer  data)
{
  static const char project[] =
    "items:\n  id: 0\n  name: \"RootItem\"\n  plugin: Base\n  class: RootItem\n"
    "  is_builtin_item: true\n  children:\n"
    "    -\n      id: 1\n      name: \"World\"\n      plugin: Body\n      class: WorldItem\n"
    "      children:\n"
    "        -\n          id: 2\n          name: \"Arm\"\n          plugin: Body\n"
    "          class: BodyItem\n          data:\n"
    "            file: \"${SHARE}/model/arm.json\"\n            format: SKELETON-JSON\n";
  static const char warning[] = "1 file reference was written as an absolute path, not ${SHARE}";
  g_autofree char *model_dir = g_build_filename (f->dir, "share", "model", NULL);
  g_autofree char *project_dir = g_build_filename (f->dir, "share", "project", NULL);
  g_autofree char *project_path = g_build_filename (project_dir, "robot.cnoid", NULL);
  g_autofree char *model_path = g_build_filename (model_dir, "arm.json", NULL);
  g_autofree char *arm = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema",
                                                "arm.json", NULL);
  g_autofree char *arm_text = read_file (arm, NULL);
  /* Not below the same folder as the share folder: no "../" leads there. */
  g_autofree char *elsewhere = g_dir_make_tmp ("km-ui-io-XXXXXX", NULL);
  g_autofree char *copy_path = g_build_filename (elsewhere, "robot.cnoid", NULL);
  g_autoptr(GFile) project_file = g_file_new_for_path (project_path);
  g_autoptr(GFile) copy_file = g_file_new_for_path (copy_path);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *quoted = NULL;

  /* (Unset after threads started would be unsafe.) */
  if (g_getenv ("KINEMA_CHOREONOID_SHARE") != NULL)
    {
      g_test_skip ("KINEMA_CHOREONOID_SHARE gives every place a share folder");
      g_rmdir (elsewhere);
      return;
    }
  g_assert_cmpint (g_mkdir_with_parents (model_dir, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (project_dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (model_path, arm_text, -1, NULL));
  g_assert_true (g_file_set_contents (project_path, project, -1, NULL));
  g_assert_true (km_document_import_file (f->document, project_file, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_nonnull (km_document_get_skeleton (f->document));

  /* Saved where it was read: ${SHARE} stays, nothing said. */
  km_document_clear_messages (f->document);
  g_assert_true (km_document_save (f->document, project_file, &error));
  g_assert_no_error (error);
  text = read_file (project_path, NULL);
  g_assert_nonnull (strstr (text, "file: \"${SHARE}/model/arm.json\""));
  g_assert_cmpuint (count_warnings (f->document, "${SHARE}"), ==, 0);

  /* Save As elsewhere: the path of the file, said once. */
  g_assert_true (km_document_save (f->document, copy_file, &error));
  g_assert_no_error (error);
  g_clear_pointer (&text, g_free);
  text = read_file (copy_path, NULL);
  quoted = g_strdup_printf ("file: \"%s\"", model_path);
  g_assert_nonnull (strstr (text, quoted));
  g_assert_cmpuint (count_warnings (f->document, warning), ==, 1);

  km_document_clear_messages (f->document);
  g_assert_true (km_document_save (f->document, copy_file, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (count_warnings (f->document, "${SHARE}"), ==, 0);

  g_unlink (copy_path);
  g_rmdir (elsewhere);
}

/* A model outside the home folder saved with a project inside it (Save As into the home
 * folder): no relative path leads there without climbing out of the home folder, so its
 * path is written as absolute, and the Messages view says so and why (the editor used to
 * write it silently). */
static void
test_save_as_out_of_home_warning (Fixture       *f,
                                  gconstpointer  data)
{
  static const char warning[] = "would climb out of the home folder";
  g_autofree char *arm = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema",
                                                "arm.json", NULL);
  g_autofree char *arm_text = read_file (arm, NULL);
  g_autofree char *model_dir = g_build_filename (f->dir, "models", NULL);
  g_autofree char *model_path = g_build_filename (model_dir, "arm.json", NULL);
  g_autofree char *project_dir = g_build_filename (g_get_home_dir (), "km-out-of-home", NULL);
  g_autofree char *project_path = g_build_filename (project_dir, "robot.cnoid", NULL);
  g_autoptr(GFile) model_file = g_file_new_for_path (model_path);
  g_autoptr(GFile) project_file = g_file_new_for_path (project_path);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *quoted = NULL;

  /* The test's own folder must lie outside the (test's own) home folder. */
  g_assert_false (g_str_has_prefix (f->dir, g_get_home_dir ()));
  g_assert_cmpint (g_mkdir_with_parents (model_dir, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (project_dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (model_path, arm_text, -1, NULL));
  g_assert_true (km_document_import_file (f->document, model_file, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));

  km_document_clear_messages (f->document);
  g_assert_true (km_document_save (f->document, project_file, &error));
  g_assert_no_error (error);
  text = read_file (project_path, NULL);
  quoted = g_strdup_printf ("file: \"%s\"", model_path);
  g_assert_nonnull (strstr (text, quoted));
  g_assert_cmpuint (count_warnings (f->document, warning), ==, 1);

  g_unlink (project_path);
  g_rmdir (project_dir);
}

/* ---- 6. Display shapes in an autosave ------------------------------------------------ */

/* A URDF robot with a box, a cylinder and a mesh (beside it, under meshes/) and what
 * Kinema does not model (an inertial). */
static const char shapes_urdf[] =
  "<?xml version=\"1.0\"?>\n"
  "<robot name=\"arm\">\n"
  "  <link name=\"base\"><visual><geometry><box size=\"0.2 0.2 0.1\"/></geometry></visual>"
  "<inertial><mass value=\"2.5\"/><inertia ixx=\"0.1\" ixy=\"0\" ixz=\"0\" iyy=\"0.1\" "
  "iyz=\"0\" izz=\"0.1\"/></inertial></link>\n"
  "  <link name=\"upper\"><visual><geometry><cylinder radius=\"0.03\" length=\"0.3\"/>"
  "</geometry></visual></link>\n"
  "  <link name=\"tip\"><visual><geometry><mesh filename=\"meshes/tip.stl\"/></geometry>"
  "</visual></link>\n"
  "  <joint name=\"j1\" type=\"revolute\"><parent link=\"base\"/><child link=\"upper\"/>"
  "<origin xyz=\"0 0 0.1\"/><axis xyz=\"0 0 1\"/>"
  "<limit lower=\"-2\" upper=\"2\" effort=\"5\" velocity=\"2\"/></joint>\n"
  "  <joint name=\"j2\" type=\"revolute\"><parent link=\"upper\"/><child link=\"tip\"/>"
  "<origin xyz=\"0 0 0.3\"/><axis xyz=\"0 1 0\"/>"
  "<limit lower=\"-2\" upper=\"2\" effort=\"5\" velocity=\"2\"/></joint>\n"
  "</robot>\n";

static const char tip_stl[] =
  "solid tip\n facet normal 0 0 1\n  outer loop\n   vertex 0 0 0\n   vertex 0.05 0 0\n"
  "   vertex 0 0.05 0\n  endloop\n endfacet\nendsolid tip\n";

/* Per joint, its type and what skeleton.json has no place for: its id and its display
 * shapes' kinds, a mesh with the file it was read from (NULL: not loaded). */
static char *
shapes_signature (const KmSkeleton *skeleton)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < km_skeleton_get_n_joints (skeleton); i++)
    {
      const KmJoint *joint = km_skeleton_get_joint (skeleton, i);
      KmShape * const *shapes;
      guint n = 0;

      shapes = km_skeleton_get_shapes (skeleton, i, &n);
      g_string_append_printf (text, "%s type %d id %d:", joint->name, (int) joint->type,
                              joint->joint_id);
      for (guint s = 0; s < n; s++)
        {
          g_string_append_printf (text, " %d", (int) shapes[s]->type);
          if (shapes[s]->type == KM_SHAPE_MESH)
            g_string_append_printf (text, "(%s)",
                                    shapes[s]->mesh != NULL ? shapes[s]->uri_file : "NULL");
        }
      g_string_append_c (text, '\n');
    }
  return g_string_free (text, FALSE);
}

typedef struct
{
  const char *dir;
  const char *path;
  KmBodyItem *found;
} BodyScan;

static void
find_body_cb (gpointer item,
              gpointer user_data)
{
  BodyScan *scan = user_data;
  g_autofree char *path = NULL;

  if (!KM_IS_BODY_ITEM (item) || km_body_item_get_file (item) == NULL)
    return;
  path = g_canonicalize_filename (km_body_item_get_file (item), scan->dir);
  if (strcmp (path, scan->path) == 0)
    scan->found = item;
}

/* The body of @document's project that refers to @path (relative references are to
 * @dir). An imported model is a body beside the example's. */
static KmBodyItem *
find_body (KmDocument *document,
           const char *dir,
           const char *path)
{
  BodyScan scan = { dir, path, NULL };

  km_item_foreach (km_project_get_root_item (km_document_get_project (document)),
                   find_body_cb, &scan);
  g_assert_nonnull (scan.found);
  return scan.found;
}

typedef enum
{
  SHAPES_URDF,            /* a URDF opened as such */
  SHAPES_URDF_AS_BODY,    /* a URDF a .cnoid refers to as Choreonoid does (CHOREONOID-BODY) */
  SHAPES_VRML,            /* an OpenHRP VRML model, which Kinema reads and does not write */
} ShapesModel;

/* An edited body whose model has display shapes and joint ids (@data: a ShapesModel),
 * autosaved and recovered into a new document, has them all still, with the edit, back on
 * its own file in its own format; Save then writes it as the user's own format does. */
static void
test_autosave_keeps_shapes (Fixture       *f,
                            gconstpointer  data)
{
  ShapesModel kind = GPOINTER_TO_INT (data);
  g_autofree char *model_dir = g_build_filename (f->dir, "model", NULL);
  g_autofree char *mesh_dir = g_build_filename (model_dir, "meshes", NULL);
  g_autofree char *mesh_path = g_build_filename (mesh_dir, "tip.stl", NULL);
  g_autofree char *model_path = g_build_filename (model_dir,
                                                  kind == SHAPES_VRML ? "arm.wrl" : "arm.urdf",
                                                  NULL);
  g_autofree char *project_path = g_build_filename (f->dir, "robot.cnoid", NULL);
  g_autofree char *autosave_dir = g_build_filename (f->dir, "autosave", NULL);
  g_autofree char *path = g_build_filename (autosave_dir, "autosave-9-7.cnoid", NULL);
  g_autofree char *models = g_strconcat (path, ".models", NULL);
  g_autoptr(GFile) model_file = g_file_new_for_path (model_path);
  g_autoptr(GFile) project_file = g_file_new_for_path (project_path);
  g_autoptr(GFile) autosave_file = g_file_new_for_path (path);
  g_autoptr(KmDocument) recovered = km_document_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *got = NULL;
  g_autofree char *old_format = NULL;
  KmBodyItem *body;
  KmSkeleton *skeleton;
  Result r = { NULL, };

  g_assert_cmpint (g_mkdir_with_parents (mesh_dir, 0700), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (autosave_dir, 0700), ==, 0);
  if (kind == SHAPES_VRML)
    {
      g_autofree char *from = g_test_build_filename (G_TEST_DIST, "data", "openhrp", "arm.wrl",
                                                     NULL);
      g_autofree char *contents = read_file (from, NULL);

      write_test_file (model_dir, "arm.wrl", contents);
    }
  else
    {
      write_test_file (model_dir, "arm.urdf", shapes_urdf);
      write_test_file (mesh_dir, "tip.stl", tip_stl);
    }
  if (kind == SHAPES_URDF_AS_BODY)
    {
      static const char project[] =
        "items:\n  id: 0\n  name: \"RootItem\"\n  plugin: Base\n  class: RootItem\n"
        "  is_builtin_item: true\n  children:\n"
        "    -\n      id: 1\n      name: \"Arm\"\n      plugin: Body\n"
        "      class: BodyItem\n      data:\n"
        "        file: \"model/arm.urdf\"\n        format: CHOREONOID-BODY\n";

      write_test_file (f->dir, "robot.cnoid", project);
      g_assert_true (km_document_import_file (f->document, project_file, &error));
    }
  else
    g_assert_true (km_document_import_file (f->document, model_file, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  body = KM_BODY_ITEM (km_document_get_body_item (f->document));
  g_assert_true (find_body (f->document, f->dir, model_path) == body);
  old_format = g_strdup (km_body_item_get_format (body));
  edit_skeleton (f, 0.125);
  expected = shapes_signature (km_document_get_skeleton (f->document));
  g_test_message ("%s", expected);
  /* Exported (Skeleton tab), a URDF model is written over its file, also one named under
   * CHOREONOID-BODY: what Kinema does not model stays; as .body, it is a plain .body. */
  if (kind != SHAPES_VRML)
    {
      g_autofree char *urdf_path = g_build_filename (f->dir, "export.urdf", NULL);
      g_autofree char *body_path = g_build_filename (f->dir, "export.body", NULL);
      g_autoptr(GFile) urdf_file = g_file_new_for_path (urdf_path);
      g_autoptr(GFile) body_file = g_file_new_for_path (body_path);
      g_autofree char *urdf_text = NULL;

      g_assert_true (km_document_export_skeleton (f->document, KM_SKELETON_EXPORT_URDF,
                                                  urdf_file, &error));
      g_assert_no_error (error);
      urdf_text = read_file (urdf_path, NULL);
      g_assert_nonnull (strstr (urdf_text, "<mass value=\"2.5\"/>"));
      g_assert_true (km_document_export_skeleton (f->document, KM_SKELETON_EXPORT_BODY,
                                                  body_file, &error));
      g_assert_no_error (error);
    }
  if (kind == SHAPES_VRML)
    g_assert_nonnull (strstr (expected, "id 0: 2\n"));   /* J1, its cylinder */
  else
    g_assert_nonnull (strstr (expected, mesh_path));

  g_assert_true (km_document_write_autosave (f->document, path, &error));
  g_assert_no_error (error);
  km_document_recover_async (recovered, autosave_file, NULL, done_cb, &r);
  g_assert_true (test_app_wait_flag (&r.done, 20000));
  g_assert_no_error (r.error);
  g_assert_true (r.ok);
  g_assert_true (test_app_wait_idle_solve (recovered, 20000));
  g_assert_false (g_file_test (models, G_FILE_TEST_EXISTS));

  /* Back on the user's file, in its format, still to be saved; with the shapes (the mesh
   * read from its own file), the joint ids and the edit. */
  body = find_body (recovered, f->dir, model_path);
  g_assert_cmpstr (km_body_item_get_format (body), ==, old_format);
  skeleton = km_body_item_get_skeleton (body);
  got = shapes_signature (skeleton);
  g_assert_cmpstr (got, ==, expected);
  g_assert_cmpfloat_with_epsilon (km_skeleton_get_joint (skeleton, 1)->offset.x, 0.125, 1e-9);
  g_assert_true (km_document_get_modified (recovered));
  km_document_set_current_body (recovered, KM_ITEM (body));
  g_assert_true (km_document_get_skeleton_modified (recovered));

  /* Saved, a URDF model goes to a URDF copy beside the project: the user's file with the
   * edit, what Kinema does not model kept. (Kinema writes no VRML.) */
  if (kind != SHAPES_VRML)
    {
      g_autofree char *saved_dir = g_build_filename (f->dir, "saved", NULL);
      g_autofree char *saved_path = g_build_filename (saved_dir, "robot.cnoid", NULL);
      g_autofree char *copy_path = g_build_filename (saved_dir, "arm.urdf", NULL);
      g_autoptr(GFile) saved_file = g_file_new_for_path (saved_path);
      g_autoptr(KmSkeleton) copy = NULL;
      g_autofree char *copy_text = NULL;
      g_autofree char *copy_shapes = NULL;

      g_assert_cmpint (g_mkdir (saved_dir, 0700), ==, 0);
      g_assert_true (km_document_save (recovered, saved_file, &error));
      g_assert_no_error (error);
      copy_text = read_file (copy_path, NULL);
      g_assert_nonnull (strstr (copy_text, "<mass value=\"2.5\"/>"));
      copy = load_model (copy_path, "URDF");
      copy_shapes = shapes_signature (copy);
      g_assert_cmpstr (copy_shapes, ==, expected);
      g_assert_cmpfloat_with_epsilon (km_skeleton_get_joint (copy, 1)->offset.x, 0.125, 1e-9);
    }
  result_clear (&r);
}

/* ---- The application told to end ------------------------------------------------------ */

/* The built `kinema` (@program) started on the arm model (unsaved work, in a new window)
 * with its own folders under @home (state under @state), no session bus, and the extra
 * environment @env (NULL-terminated name, value pairs), on the test's display; returns
 * once it says the model is open, with its merged output in *@out. */
static GSubprocess *
spawn_kinema_on_arm (const char         *program,
                     const char         *home,
                     const char         *state,
                     const char * const *env,
                     GDataInputStream  **out)
{
  g_autofree char *model = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema",
                                                  "arm.json", NULL);
  g_autofree char *no_bus = g_strconcat ("unix:path=", home, "/no-bus", NULL);
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GError) error = NULL;
  GSubprocess *process;
  guint opened = 0;

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE
                                        | G_SUBPROCESS_FLAGS_STDERR_MERGE);
  g_subprocess_launcher_setenv (launcher, "HOME", home, TRUE);
  g_subprocess_launcher_setenv (launcher, "XDG_STATE_HOME", state, TRUE);
  g_subprocess_launcher_setenv (launcher, "XDG_CONFIG_HOME", home, TRUE);
  g_subprocess_launcher_setenv (launcher, "XDG_DATA_HOME", home, TRUE);
  g_subprocess_launcher_setenv (launcher, "XDG_CACHE_HOME", home, TRUE);
  /* (No session bus: the program runs as a plain, non-unique application.) */
  g_subprocess_launcher_setenv (launcher, "DBUS_SESSION_BUS_ADDRESS", no_bus, TRUE);
  g_subprocess_launcher_setenv (launcher, "G_MESSAGES_DEBUG", "km-document", TRUE);
  g_subprocess_launcher_setenv (launcher, "GSETTINGS_BACKEND", "memory", TRUE);
  for (guint i = 0; env != NULL && env[i] != NULL; i += 2)
    g_subprocess_launcher_setenv (launcher, env[i], env[i + 1], TRUE);
  /* The model twice: opened into the empty window it is no unsaved work, imported again
   * into that project it is. */
  process = g_subprocess_launcher_spawn (launcher, &error, program, model, model, NULL);
  g_assert_no_error (error);

  /* Once it says the model is open (the second time), its work is there (and its signal
   * handlers, installed at startup, long before). */
  *out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (process));
  while (opened < 2)
    {
      g_autofree char *line = g_data_input_stream_read_line_utf8 (*out, NULL, NULL, &error);

      g_assert_no_error (error);
      g_assert_nonnull (line);   /* (it ended first) */
      g_test_message ("kinema: %s", line);
      opened += strstr (line, "Opened ") != NULL;
    }
  return process;
}

/* The built `kinema`, told to end (SIGTERM, SIGINT, SIGHUP) with unsaved work: it ends
 * normally without asking, keeps the work autosaved for the next start, and removes its
 * lock file, as an orderly end does. Runs the program with its own folders, on the test's
 * display. */
static void
test_quit_signal_keeps_autosave (gconstpointer data)
{
  int signum = GPOINTER_TO_INT (data);
  g_autofree char *program = g_test_build_filename (G_TEST_BUILT, "..", "src", "app", "kinema",
                                                    NULL);
  g_autofree char *home = g_dir_make_tmp ("km-ui-io-quit-XXXXXX", NULL);
  g_autofree char *state = g_build_filename (home, "state", NULL);
  g_autofree char *dir = g_build_filename (state, "kinema", "autosave", NULL);
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GDataInputStream) out = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *autosave = NULL;
  g_autofree char *lock = NULL;
  g_autofree char *text = NULL;

  if (!g_file_test (program, G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("the kinema program is not built");
      km_test_remove_tree (home);
      return;
    }
  process = spawn_kinema_on_arm (program, home, state, NULL, &out);
  autosave = g_strdup_printf ("%s/autosave-%s-0.cnoid", dir,
                              g_subprocess_get_identifier (process));
  lock = g_strconcat (autosave, ".lock", NULL);
  g_assert_true (g_file_test (lock, G_FILE_TEST_IS_REGULAR));

  g_subprocess_send_signal (process, signum);
  /* (What it prints meanwhile is read, so that it never waits on a full pipe.) */
  for (;;)
    {
      g_autofree char *line = g_data_input_stream_read_line_utf8 (out, NULL, NULL, &error);

      g_assert_no_error (error);
      if (line == NULL)
        break;
      g_test_message ("kinema: %s", line);
    }
  g_assert_true (g_subprocess_wait (process, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (process));
  g_assert_cmpint (g_subprocess_get_exit_status (process), ==, 0);

  /* The work is kept for the next start; the lock is gone. */
  g_assert_false (g_file_test (lock, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (autosave, G_FILE_TEST_IS_REGULAR));
  text = read_file (autosave, NULL);
  g_assert_nonnull (strstr (text, "arm.json"));
  km_test_remove_tree (home);
}

static void
subprocess_ended_cb (GObject      *source,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  g_subprocess_wait_finish (G_SUBPROCESS (source), result, NULL);
  *(gboolean *) user_data = TRUE;
}

/* The names under @dir (and its folders) of temporary files of atomic saves
 * ("NAME.cnoid.XXXXXX", "NAME.json.XXXXXX"), joined with spaces. */
static void
find_temporaries (const char *dir,
                  GString    *found)
{
  g_autoptr(GDir) listing = g_dir_open (dir, 0, NULL);
  const char *name;

  while (listing != NULL && (name = g_dir_read_name (listing)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        find_temporaries (path, found);
      else if (g_regex_match_simple ("\\.(cnoid|json)\\.[A-Za-z0-9]{6}$", name, 0, 0))
        g_string_append_printf (found, " %s", name);
    }
}

/* The built `kinema`, told to end while the autosave it writes on the way out hangs (a
 * network file system gone away; here every rename() waits forever, hang-rename.c): a
 * second signal ends it at once, as it would have without Kinema's handler. Before, the
 * second signal was swallowed while the write was waited for, and only SIGKILL ended it.
 * The autosave's temporary file, written in full, is removed (before, it stayed). */
static void
test_second_quit_signal_ends_hung_write (void)
{
  g_autofree char *program = g_test_build_filename (G_TEST_BUILT, "..", "src", "app", "kinema",
                                                    NULL);
  g_autofree char *preload = g_test_build_filename (G_TEST_BUILT, "km-test-hang-rename.so",
                                                    NULL);
  g_autofree char *home = g_dir_make_tmp ("km-ui-io-hang-XXXXXX", NULL);
  g_autofree char *state = g_build_filename (home, "state", NULL);
  g_autofree char *when = g_build_filename (home, "hang-now", NULL);
  g_autofree char *mark = g_build_filename (home, "hung", NULL);
  /* (Only the autosave's writes hang: one elsewhere, such as GTK's list of recent files
   * written on the main thread, could stop the first signal from being handled at all.) */
  const char * const env[] = { "LD_PRELOAD", preload, "KM_TEST_HANG_WHEN", when,
                               "KM_TEST_HANG_MARK", mark, "KM_TEST_HANG_UNDER", state, NULL };
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GDataInputStream) out = NULL;
  gboolean ended = FALSE;
  gint64 deadline;
  g_autoptr(GString) temporaries = g_string_new (NULL);

  if (!g_file_test (program, G_FILE_TEST_IS_EXECUTABLE)
      || !g_file_test (preload, G_FILE_TEST_IS_REGULAR))
    {
      g_test_skip ("the kinema program or the preload module is not built");
      km_test_remove_tree (home);
      return;
    }
  process = spawn_kinema_on_arm (program, home, state, env, &out);

  /* From now on every write hangs; the first signal's autosave write is one. */
  g_assert_true (g_file_set_contents (when, "", 0, NULL));
  g_subprocess_send_signal (process, SIGTERM);
  deadline = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;
  while (!g_file_test (mark, G_FILE_TEST_EXISTS) && g_get_monotonic_time () < deadline)
    g_usleep (10 * 1000);
  g_assert_true (g_file_test (mark, G_FILE_TEST_EXISTS));

  /* The second signal ends it, within seconds (not at the deadline, by SIGKILL). */
  g_subprocess_send_signal (process, SIGTERM);
  g_subprocess_wait_async (process, NULL, subprocess_ended_cb, &ended);
  deadline = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;
  while (!ended && g_get_monotonic_time () < deadline)
    if (!g_main_context_iteration (NULL, FALSE))
      g_usleep (10 * 1000);
  if (!ended)
    {
      g_subprocess_force_exit (process);
      while (!ended)
        g_main_context_iteration (NULL, TRUE);
    }
  g_assert_true (g_subprocess_get_if_signaled (process));
  g_assert_cmpint (g_subprocess_get_term_sig (process), ==, SIGTERM);
  find_temporaries (state, temporaries);
  g_assert_cmpstr (temporaries->str, ==, "");
  km_test_remove_tree (home);
}

static gboolean
is_null (gpointer data)
{
  return *(gpointer *) data == NULL;
}

/* The temporary file that the subprocess of the test run by @pid writes for @signum. */
static char *
signal_temporary_path (pid_t pid,
                       int   signum)
{
  g_autofree char *name = g_strdup_printf ("km-ui-io-signal-%d-%d.cnoid.Q1X2Z3", (int) pid,
                                           signum);

  return g_build_filename (g_get_tmp_dir (), name, NULL);
}

/* A quit signal (@data) that comes after one the application handled, while it winds up
 * (its windows going, a save still under way): it ends Kinema at once and removes the
 * temporary file of that save, as a second signal while the first one's autosave hangs
 * does. Before, GLib gave the signal handled its default action back once the handler
 * had returned (when it freed the signal's source), so the second signal ended Kinema
 * without removing the temporary file. Runs in a subprocess, which the signal ends. */
static void
test_second_quit_signal_after_handled (gconstpointer data)
{
  int signum = GPOINTER_TO_INT (data);
  g_autofree char *temporary = NULL;
  gboolean left;

  if (g_test_subprocess ())
    {
      g_autoptr(KmApplication) app = km_application_new ();
      g_autoptr(GError) error = NULL;
      KmWindow *window;

      temporary = signal_temporary_path (getppid (), signum);
      g_application_set_flags (G_APPLICATION (app), G_APPLICATION_NON_UNIQUE);
      g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
      g_assert_no_error (error);
      window = km_window_new (GTK_APPLICATION (app));
      g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &window);

      /* The first signal is handled: the window goes, the main loop runs on. */
      raise (signum);
      g_assert_true (test_app_wait_until (is_null, &window, 20000));
      test_app_spin ();

      /* A save under way, then the second signal. */
      g_assert_true (g_file_set_contents (temporary, "half a project", -1, NULL));
      g_assert_cmpint (km_format_register_temporary (temporary), >=, 0);
      raise (signum);
      g_test_message ("still running after the second signal");
      return;
    }

  temporary = signal_temporary_path (getpid (), signum);
  g_test_trap_subprocess (NULL, 60 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_INHERIT_STDERR);
  /* Ended by the signal (a subprocess that returned would have passed). */
  g_test_trap_assert_failed ();
  g_test_trap_assert_stdout_unmatched ("*still running*");
  left = g_file_test (temporary, G_FILE_TEST_EXISTS);
  g_remove (temporary);
  g_assert_false (left);
}

/* @path holds a file @name. */
static void
put_file (const char *dir,
          const char *name)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_set_contents (path, "x", 1, &error));
  g_assert_no_error (error);
}

/* Review finding: removing an autosave's folder of copies removes a symbolic link in it
 * (or the folder itself as a link), never what it leads to: a folder of the user's, with
 * its files, stays. */
static void
test_autosave_models_links_not_followed (void)
{
  g_autofree char *dir = km_test_make_tmp_dir ("km-links-XXXXXX");
  g_autofree char *outside = g_build_filename (dir, "users-folder", NULL);
  g_autofree char *outside_file = g_build_filename (outside, "keep.json", NULL);
  g_autofree char *autosave = g_build_filename (dir, "work.cnoid", NULL);
  g_autofree char *models = _km_autosave_models_dir (autosave);
  g_autofree char *copy = g_build_filename (models, "copy", NULL);
  g_autofree char *link = g_build_filename (models, "link", NULL);
  g_autofree char *kept = g_build_filename (models, "kept", NULL);

  g_assert_cmpint (g_mkdir (outside, 0700), ==, 0);
  put_file (outside, "keep.json");
  g_assert_cmpint (g_mkdir (models, 0700), ==, 0);
  g_assert_cmpint (g_mkdir (copy, 0700), ==, 0);
  put_file (copy, "skeleton.json");
  g_assert_cmpint (g_mkdir (kept, 0700), ==, 0);

  /* The copies of the others than the one kept, a link among them. */
  g_assert_cmpint (symlink (outside, link), ==, 0);
  _km_autosave_remove_models (autosave, kept);
  g_assert_true (g_file_test (outside_file, G_FILE_TEST_IS_REGULAR));
  g_assert_false (g_file_test (link, G_FILE_TEST_IS_SYMLINK));
  g_assert_false (g_file_test (copy, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (kept, G_FILE_TEST_IS_DIR));

  /* All of them, a link inside. */
  g_assert_cmpint (symlink (outside, link), ==, 0);
  _km_autosave_remove_models (autosave, NULL);
  g_assert_true (g_file_test (outside_file, G_FILE_TEST_IS_REGULAR));
  g_assert_false (g_file_test (models, G_FILE_TEST_EXISTS));

  /* The folder itself a link. */
  g_assert_cmpint (symlink (outside, models), ==, 0);
  _km_autosave_remove_models (autosave, NULL);
  g_assert_true (g_file_test (outside_file, G_FILE_TEST_IS_REGULAR));
  g_assert_false (g_file_test (models, G_FILE_TEST_IS_SYMLINK));

  km_test_remove_tree (dir);
}

int
main (int    argc,
      char **argv)
{
  test_app_init (&argc, &argv);

  g_test_add ("/kinema/UiIo/reload-targets-solves", Fixture, NULL,
              fixture_setup, test_reload_targets_solves, fixture_teardown);
  g_test_add ("/kinema/UiIo/big-save-bytes", Fixture, NULL,
              fixture_setup, test_big_save_bytes, fixture_teardown);
  g_test_add ("/kinema/UiIo/skeleton-save-async", Fixture, NULL,
              fixture_setup, test_skeleton_save_async, fixture_teardown);
  g_test_add ("/kinema/UiIo/skeleton-save-reopened", Fixture, NULL,
              fixture_setup, test_skeleton_save_reopened, fixture_teardown);
  g_test_add ("/kinema/UiIo/skeleton-one-at-a-time", Fixture, NULL,
              fixture_setup, test_skeleton_one_at_a_time, fixture_teardown);
  g_test_add ("/kinema/UiIo/save-edited-skeleton-async", Fixture, NULL,
              fixture_setup, test_save_edited_skeleton_async, fixture_teardown);
  g_test_add ("/kinema/UiIo/save-with-body-copies-async", Fixture, NULL,
              fixture_setup, test_save_with_body_copies_async, fixture_teardown);
  g_test_add ("/kinema/UiIo/body-copy-keeps-users-file", Fixture, NULL,
              fixture_setup, test_body_copy_keeps_users_file, fixture_teardown);
  g_test_add ("/kinema/UiIo/body-copy-next-run", Fixture, NULL,
              fixture_setup, test_body_copy_next_run, fixture_teardown);
  g_test_add ("/kinema/UiIo/recovery-async", Fixture, NULL,
              fixture_setup, test_recovery_async, fixture_teardown);
  g_test_add ("/kinema/UiIo/recovery-keeps-time", Fixture, NULL,
              fixture_setup, test_recovery_keeps_time, fixture_teardown);
  g_test_add ("/kinema/UiIo/recovery-keeps-unkeyed-pose", Fixture, NULL,
              fixture_setup, test_recovery_keeps_unkeyed_pose, fixture_teardown);
  g_test_add ("/kinema/UiIo/selected-joint-kept", Fixture, NULL,
              fixture_setup, test_selected_joint_kept, fixture_teardown);
  g_test_add ("/kinema/UiIo/selected-joint-unknown", Fixture, NULL,
              fixture_setup, test_selected_joint_unknown, fixture_teardown);
  g_test_add ("/kinema/UiIo/recover-cancel-and-errors", Fixture, NULL,
              fixture_setup, test_recover_cancel_and_errors, fixture_teardown);
  g_test_add ("/kinema/UiIo/failed-save-removes-copies", Fixture, NULL,
              fixture_setup, test_failed_save_removes_copies, fixture_teardown);
  g_test_add ("/kinema/UiIo/failed-save-keeps-skeleton-file", Fixture, NULL,
              fixture_setup, test_failed_save_keeps_skeleton_file, fixture_teardown);
  g_test_add ("/kinema/UiIo/failed-save-keeps-history", Fixture, NULL,
              fixture_setup, test_failed_save_keeps_history, fixture_teardown);
  g_test_add ("/kinema/UiIo/write-back-error-names-file", Fixture, NULL,
              fixture_setup, test_write_back_error_names_file, fixture_teardown);
  g_test_add ("/kinema/UiIo/autosave-body-copy-references", Fixture, NULL,
              fixture_setup, test_autosave_body_copy_references, fixture_teardown);
  g_test_add ("/kinema/UiIo/autosave-keeps-skeleton-edit", Fixture, NULL,
              fixture_setup, test_autosave_keeps_skeleton_edit, fixture_teardown);
  g_test_add ("/kinema/UiIo/recover-example-then-save", Fixture, NULL,
              fixture_setup, test_recover_example_then_save, fixture_teardown);
  g_test_add ("/kinema/UiIo/recover-example-save-reopen", Fixture, NULL,
              fixture_setup, test_recover_example_save_reopen, fixture_teardown);
  g_test_add ("/kinema/UiIo/autosave-during-failed-save", Fixture, NULL,
              fixture_setup, test_autosave_during_failed_save, fixture_teardown);
  g_test_add ("/kinema/UiIo/autosave-keeps-sub-project-edit", Fixture, NULL,
              fixture_setup, test_autosave_keeps_sub_project_edit, fixture_teardown);
  g_test_add ("/kinema/UiIo/autosave-keeps-sub-project-edit-odd-name", Fixture, "part[1].cnoid",
              fixture_setup, test_autosave_keeps_sub_project_edit, fixture_teardown);
  g_test_add ("/kinema/Autosave/sub-project-body-folder", Fixture, NULL,
              fixture_setup, test_autosave_sub_project_body_folder, fixture_teardown);
  g_test_add ("/kinema/UiIo/save-as-share-warning", Fixture, NULL,
              fixture_setup, test_save_as_share_warning, fixture_teardown);
  g_test_add ("/kinema/UiIo/save-as-out-of-home-warning", Fixture, NULL,
              fixture_setup, test_save_as_out_of_home_warning, fixture_teardown);
  g_test_add ("/kinema/UiIo/autosave-keeps-shapes-urdf", Fixture,
              GINT_TO_POINTER (SHAPES_URDF),
              fixture_setup, test_autosave_keeps_shapes, fixture_teardown);
  g_test_add ("/kinema/UiIo/autosave-keeps-shapes-urdf-as-body", Fixture,
              GINT_TO_POINTER (SHAPES_URDF_AS_BODY),
              fixture_setup, test_autosave_keeps_shapes, fixture_teardown);
  g_test_add ("/kinema/UiIo/autosave-keeps-shapes-vrml", Fixture,
              GINT_TO_POINTER (SHAPES_VRML),
              fixture_setup, test_autosave_keeps_shapes, fixture_teardown);

  g_test_add_data_func ("/kinema/UiIo/sigterm-keeps-autosave", GINT_TO_POINTER (SIGTERM),
                        test_quit_signal_keeps_autosave);
  g_test_add_data_func ("/kinema/UiIo/sigint-keeps-autosave", GINT_TO_POINTER (SIGINT),
                        test_quit_signal_keeps_autosave);
  g_test_add_data_func ("/kinema/UiIo/sighup-keeps-autosave", GINT_TO_POINTER (SIGHUP),
                        test_quit_signal_keeps_autosave);
  g_test_add_func ("/kinema/UiIo/autosave-models-links-not-followed",
                   test_autosave_models_links_not_followed);
  g_test_add_func ("/kinema/UiIo/second-quit-signal-ends-hung-write",
                   test_second_quit_signal_ends_hung_write);
  g_test_add_data_func ("/kinema/UiIo/second-sigterm-after-handled", GINT_TO_POINTER (SIGTERM),
                        test_second_quit_signal_after_handled);
  g_test_add_data_func ("/kinema/UiIo/second-sigint-after-handled", GINT_TO_POINTER (SIGINT),
                        test_second_quit_signal_after_handled);
  g_test_add_data_func ("/kinema/UiIo/second-sighup-after-handled", GINT_TO_POINTER (SIGHUP),
                        test_second_quit_signal_after_handled);

  return g_test_run ();
}
