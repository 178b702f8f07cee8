/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <string.h>
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#ifdef GDK_WINDOWING_X11
#include <gdk/x11/gdkx.h>
#endif

#include "km-body-item.h"
#include "km-document-skeleton.h"
#include "km-ik-targets-item.h"
#include "km-item-tree.h"
#include "km-message.h"
#include "km-pose-seq-item.h"
#include "km-project.h"
#include "km-skeleton-edit.h"
#include "km-time-bar.h"
#include "km-window.h"

#include "test-app-util.h"
#include "km-test-tmp.h"

/*
 * Choreonoid's SR1WalkEdit.cnoid (a pose sequence playing on SR1) in the editor, on the
 * independent review's findings: undoing the delete of the body restores it as it was
 * (current body, joints, playback, selection, modified mark), and K does not turn the
 * read-only pose sequence into an IK solve; a skeleton edit (renaming a joint) keeps the
 * current frame while the pose sequence (or a body motion) is built again for the edited
 * model.
 */

typedef struct
{
  KmWindow   *window;
  KmDocument *document;
} Fixture;

static gboolean
pose_seq_playing (gpointer data)
{
  Fixture *f = data;
  KmItem *body = km_document_get_body_item (f->document);
  KmAnimation *animation = km_document_get_animation (f->document);

  if (body == NULL || animation == NULL)
    return FALSE;
  for (guint i = 0; i < km_item_get_n_children (body); i++)
    {
      KmItem *child = km_item_get_child (body, i);

      for (guint k = 0; k < km_item_get_n_children (child); k++)
        if (KM_IS_POSE_SEQ_ITEM (km_item_get_child (child, k))
            && km_pose_seq_item_get_animation (KM_POSE_SEQ_ITEM (km_item_get_child (child, k)))
               == animation)
          return TRUE;
    }
  return FALSE;
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "share",
                                                 "project", "SR1WalkEdit.cnoid", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);

  f->window = km_window_new (NULL);
  gtk_window_set_default_size (GTK_WINDOW (f->window), 800, 600);
  f->document = km_window_get_document (f->window);
  g_assert_true (test_app_open_file (f->window, file));
  gtk_window_present (GTK_WINDOW (f->window));
  g_assert_true (test_app_wait_until (pose_seq_playing, f, 20000));
  test_app_spin ();
  g_assert_false (km_document_get_modified (f->document));
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_object_add_weak_pointer (G_OBJECT (f->window), (gpointer *) &f->window);
  gtk_window_destroy (GTK_WINDOW (f->window));
  test_app_spin ();
  g_assert_null (f->window);
}

/* Delete SR1 (selected in the tree), then undo: SR1 is the current body again, with its
 * joints, its pose sequence playing over its 2659 frames, selected, and the project
 * unmodified; redo deletes it again and marks the project modified. */
static void
test_undo_delete_body (Fixture       *f,
                       gconstpointer  data)
{
  KmItem *body = km_document_get_body_item (f->document);
  KmSkeleton *skeleton = km_document_get_skeleton (f->document);
  g_autoptr(GPtrArray) items = g_ptr_array_new ();
  guint n_frames = km_document_get_n_frames (f->document);
  GListModel *selected;

  g_assert_nonnull (body);
  g_assert_cmpstr (km_item_get_name (body), ==, "SR1");
  g_assert_nonnull (skeleton);
  g_assert_cmpuint (n_frames, ==, 2659);
  km_project_select (km_document_get_project (f->document), body, FALSE);
  test_app_spin ();

  g_ptr_array_add (items, body);
  km_document_remove_items (f->document, items);
  test_app_spin ();
  /* The floor is the body shown now: it has no movable joints. */
  g_assert_true (km_document_get_body_item (f->document) != body);
  g_assert_true (km_document_get_skeleton (f->document) != skeleton);
  g_assert_true (km_document_get_modified (f->document));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.undo", NULL));
  g_assert_true (test_app_wait_until (pose_seq_playing, f, 20000));
  test_app_spin ();
  g_assert_true (km_document_get_body_item (f->document) == body);
  g_assert_true (km_document_get_skeleton (f->document) == skeleton);
  g_assert_cmpuint (km_document_get_n_frames (f->document), ==, n_frames);
  g_assert_cmpuint (km_document_get_n_pose_keys (f->document), >, 0);
  g_assert_false (km_document_get_modified (f->document));
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (f->window)), ==,
                   "SR1WalkEdit.cnoid — Kinema");
  selected = km_project_get_selection (km_document_get_project (f->document));
  g_assert_cmpuint (g_list_model_get_n_items (selected), ==, 1);
  {
    g_autoptr(KmItem) item = g_list_model_get_item (selected, 0);

    g_assert_true (item == body);
  }

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.redo", NULL));
  test_app_spin ();
  g_assert_true (km_document_get_body_item (f->document) != body);
  g_assert_true (km_document_get_modified (f->document));
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (f->window)), ==,
                   "SR1WalkEdit.cnoid* — Kinema");
  km_document_set_modified (f->document, FALSE);
}

/* K (a real key press) while the pose sequence plays: no IK targets item, no solve, the
 * pose sequence still plays, nothing to undo, and the message view says why. */
static void
test_key_on_pose_seq (Fixture       *f,
                      gconstpointer  data)
{
#ifdef GDK_WINDOWING_X11
  g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *xdotool = g_find_program_in_path ("xdotool");
  KmItem *body = km_document_get_body_item (f->document);
  KmAnimation *animation = km_document_get_animation (f->document);
  guint n_children = km_item_get_n_children (body);

  if (!GDK_IS_X11_DISPLAY (gtk_widget_get_display (GTK_WIDGET (f->window))) || xdotool == NULL)
    {
      g_test_skip ("needs X11 and xdotool");
      return;
    }
  g_assert_false (km_document_can_undo (f->document));
  km_document_set_current_frame (f->document, 400);
  test_app_spin ();

  g_ptr_array_add (args, g_strdup ("windowfocus"));
  g_ptr_array_add (args, g_strdup ("--sync"));
  g_ptr_array_add (args, g_strdup_printf ("%lu", (gulong) gdk_x11_surface_get_xid (
                                            gtk_native_get_surface (GTK_NATIVE (f->window)))));
  g_ptr_array_add (args, g_strdup ("key"));
  g_ptr_array_add (args, g_strdup ("k"));
  test_app_xdotool (GTK_WIDGET (f->window), args);
  test_app_spin_for (100);

  g_assert_true (test_app_has_message (f->document, G_LOG_LEVEL_WARNING, "read-only", NULL));
  g_assert_false (km_document_get_solving (f->document));
  g_assert_null (km_document_get_targets (f->document));
  g_assert_null (km_item_find_child_by_type (body, KM_TYPE_IK_TARGETS_ITEM));
  g_assert_cmpuint (km_item_get_n_children (body), ==, n_children);
  g_assert_true (km_document_get_animation (f->document) == animation);
  g_assert_cmpuint (km_document_get_n_frames (f->document), ==, 2659);
  g_assert_false (km_document_can_undo (f->document));
  g_assert_false (km_document_get_modified (f->document));
#else
  g_test_skip ("needs X11");
#endif
}

static void
count_notify (guint *count)
{
  (*count)++;
}

/* Rename LARM_ELBOW at frame 826, past the 300 frames the time bar spans without a motion:
 * while the pose sequence is built again for the renamed model, and once it plays, the
 * current frame stays where it was; so it does on undo and redo. */
static void
test_rename_keeps_frame (Fixture       *f,
                         gconstpointer  data)
{
  KmSkeleton *skeleton = km_document_get_skeleton (f->document);
  int joint = km_skeleton_find_joint (skeleton, "LARM_ELBOW");
  g_autoptr(KmSkeleton) edited = NULL;
  g_autoptr(GError) error = NULL;
  guint n_frames = km_document_get_n_frames (f->document);
  guint changes = 0;

  g_assert_cmpint (joint, >=, 0);
  g_assert_cmpuint (n_frames, >, 826);
  km_document_set_current_frame (f->document, 826);
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 826);
  g_signal_connect_swapped (f->document, "notify::current-frame", G_CALLBACK (count_notify),
                            &changes);

  edited = km_skeleton_edit_set_name (skeleton, (guint) joint, "LARM_ELBOW2", &error);
  g_assert_no_error (error);
  g_assert_true (km_document_edit_skeleton (f->document, edited, "Rename Joint", NULL));
  g_assert_true (km_document_get_skeleton (f->document) == edited);
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 826);
  g_assert_true (test_app_wait_until (pose_seq_playing, f, 20000));
  test_app_spin ();
  g_assert_cmpuint (km_document_get_n_frames (f->document), ==, n_frames);
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 826);

  g_assert_true (km_document_undo (f->document));
  g_assert_true (km_document_get_skeleton (f->document) == skeleton);
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 826);
  g_assert_true (test_app_wait_until (pose_seq_playing, f, 20000));
  test_app_spin ();
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 826);

  g_assert_true (km_document_redo (f->document));
  g_assert_true (km_document_get_skeleton (f->document) == edited);
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 826);
  g_assert_true (test_app_wait_until (pose_seq_playing, f, 20000));
  test_app_spin ();
  g_assert_cmpuint (km_document_get_n_frames (f->document), ==, n_frames);
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 826);
  g_assert_cmpuint (changes, ==, 0);
  g_signal_handlers_disconnect_by_data (f->document, &changes);
  km_document_set_modified (f->document, FALSE);
}

/* The same with a body motion (.seq) of 20 s on SR1, which is sampled again for the
 * renamed model at once. */
static void
test_rename_keeps_frame_body_motion (void)
{
  g_autofree char *model = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "share", "model",
                                                  "SR1", "SR1.body", NULL);
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-seq-XXXXXX");
  g_autofree char *seq = g_build_filename (dir, "long.seq", NULL);
  g_autoptr(GFile) model_file = g_file_new_for_path (model);
  g_autoptr(GFile) seq_file = g_file_new_for_path (seq);
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) edited = NULL;
  KmWindow *window = km_window_new (NULL);
  KmDocument *document = km_window_get_document (window);
  KmSkeleton *skeleton;
  guint n_frames, frame, changes = 0;

  g_string_append (text, "type: CompositeSeq\ncontent: BodyMotion\nformatVersion: 2.0\n"
                         "frameRate: 50\nnumFrames: 1000\ncomponents:\n  -\n"
                         "    type: MultiValueSeq\n    content: JointDisplacement\n"
                         "    frameRate: 50\n    numFrames: 1000\n    numParts: 4\n"
                         "    frames:\n");
  for (guint f = 0; f < 1000; f++)
    g_string_append_printf (text, "      - [ 0, 0, 0, %.4f ]\n", f * 0.0001);
  g_assert_true (g_file_set_contents (seq, text->str, -1, &error));
  g_assert_no_error (error);

  gtk_window_set_default_size (GTK_WINDOW (window), 800, 600);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (test_app_open_file (window, model_file));
  g_assert_true (test_app_open_file (window, seq_file));
  test_app_spin ();
  g_assert_nonnull (km_document_get_animation (document));
  n_frames = km_document_get_n_frames (document);
  g_assert_cmpuint (n_frames, >, 400);
  frame = n_frames - 10;
  km_document_set_current_frame (document, frame);
  g_assert_cmpuint (km_document_get_current_frame (document), ==, frame);
  g_signal_connect_swapped (document, "notify::current-frame", G_CALLBACK (count_notify),
                            &changes);

  skeleton = km_document_get_skeleton (document);
  edited = km_skeleton_edit_set_name (skeleton, (guint) km_skeleton_find_joint (skeleton,
                                                                                "WAIST_P"),
                                      "WP2", &error);
  g_assert_no_error (error);
  g_assert_true (km_document_edit_skeleton (document, edited, "Rename Joint", NULL));
  test_app_spin ();
  g_assert_true (km_document_get_skeleton (document) == edited);
  g_assert_nonnull (km_document_get_animation (document));
  g_assert_cmpuint (km_document_get_n_frames (document), ==, n_frames);
  g_assert_cmpuint (km_document_get_current_frame (document), ==, frame);
  g_assert_true (km_document_undo (document));
  test_app_spin ();
  g_assert_true (km_document_get_skeleton (document) == skeleton);
  g_assert_cmpuint (km_document_get_current_frame (document), ==, frame);
  g_assert_true (km_document_redo (document));
  test_app_spin ();
  g_assert_cmpuint (km_document_get_current_frame (document), ==, frame);
  g_assert_cmpuint (changes, ==, 0);
  g_signal_handlers_disconnect_by_data (document, &changes);

  g_assert_true (test_app_wait_idle_solve (document, 20000));
  km_document_set_modified (document, FALSE);
  gtk_window_destroy (GTK_WINDOW (window));
  test_app_spin ();
  g_unlink (seq);
  g_rmdir (dir);
}

/* Copies the folder @from into @to, recursively. */
static void
copy_tree (const char *from,
           const char *to)
{
  g_autoptr(GDir) dir = g_dir_open (from, 0, NULL);
  const char *name;

  g_assert_nonnull (dir);
  g_assert_cmpint (g_mkdir_with_parents (to, 0700), ==, 0);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *source = g_build_filename (from, name, NULL);
      g_autofree char *target = g_build_filename (to, name, NULL);
      g_autofree char *contents = NULL;
      gsize length;

      if (g_file_test (source, G_FILE_TEST_IS_DIR))
        {
          copy_tree (source, target);
          continue;
        }
      g_assert_true (g_file_get_contents (source, &contents, &length, NULL));
      g_assert_true (g_file_set_contents (target, contents, (gssize) length, NULL));
    }
}

/* A copy of the test data's Choreonoid share folder, whose files may change. */
typedef struct
{
  KmWindow   *window;
  KmDocument *document;
  char       *dir;
  char       *pseq;
  char       *body;
} CopyFixture;

static void
copy_fixture_setup (CopyFixture   *f,
                    gconstpointer  data)
{
  g_autofree char *share = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "share", NULL);
  g_autofree char *copy = NULL;
  g_autofree char *project = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;

  f->dir = km_test_make_tmp_dir ("kinema-reload-XXXXXX");
  /* (${SHARE} is the "share" folder above the project's) */
  copy = g_build_filename (f->dir, "share", NULL);
  copy_tree (share, copy);
  project = g_build_filename (copy, "project", "SR1WalkEdit.cnoid", NULL);
  f->pseq = g_build_filename (copy, "project", "motion", "SR1", "SR1WalkPattern2.pseq", NULL);
  f->body = g_build_filename (copy, "model", "SR1", "SR1.body", NULL);
  file = g_file_new_for_path (project);

  f->window = km_window_new (NULL);
  gtk_window_set_default_size (GTK_WINDOW (f->window), 800, 600);
  f->document = km_window_get_document (f->window);
  g_assert_true (test_app_open_file (f->window, file));
  gtk_window_present (GTK_WINDOW (f->window));
  g_assert_true (test_app_wait_until (pose_seq_playing, f, 20000));
  test_app_spin ();
}

static void
copy_fixture_teardown (CopyFixture   *f,
                       gconstpointer  data)
{
  test_app_destroy_window (&f->window, &f->document);
  km_test_remove_tree (f->dir);
  g_free (f->dir);
  g_free (f->pseq);
  g_free (f->body);
}

/* Appends a comment line to @path: the same content, another file. */
static void
touch_file (const char *path)
{
  g_autofree char *contents = NULL;
  g_autofree char *changed = NULL;

  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  changed = g_strconcat (contents, "# changed by another program\n", NULL);
  g_assert_true (g_file_set_contents (path, changed, -1, NULL));
}

/* The body's pose sequence (below its controller). */
static KmItem *
pose_seq_item (KmDocument *document)
{
  KmItem *body = km_document_get_body_item (document);

  for (guint i = 0; i < km_item_get_n_children (body); i++)
    {
      KmItem *child = km_item_get_child (body, i);

      for (guint k = 0; k < km_item_get_n_children (child); k++)
        if (KM_IS_POSE_SEQ_ITEM (km_item_get_child (child, k)))
          return km_item_get_child (child, k);
    }
  g_assert_not_reached ();
}

/* Reload on @item in the item tree. */
static void
reload_item (CopyFixture *f,
             KmItem      *item)
{
  km_project_select (km_document_get_project (f->document), item, FALSE);
  test_app_spin ();
  g_assert_true (gtk_widget_activate_action (km_window_get_item_tree (f->window), "tree.reload",
                                             NULL));
  g_assert_true (test_app_wait_reloaded (km_window_get_item_tree (f->window)));
}

/* Reload the pose sequence, and then the body, at frame 1591, past the 300 frames the time
 * bar spans without a motion, their files changed on disk: the current frame stays while
 * the pose sequence is built again and once it plays; so it does on undo and redo. */
static void
test_reload_keeps_frame (CopyFixture   *f,
                         gconstpointer  data)
{
  KmItem *items[2];
  guint n_frames = km_document_get_n_frames (f->document);

  g_assert_cmpuint (n_frames, ==, 2659);
  touch_file (f->pseq);
  touch_file (f->body);
  items[0] = pose_seq_item (f->document);
  items[1] = km_document_get_body_item (f->document);
  for (guint i = 0; i < G_N_ELEMENTS (items); i++)
    {
      KmItem *old = items[i];

      km_document_set_current_frame (f->document, 1591);
      g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 1591);
      reload_item (f, old);
      g_assert_true ((i == 0 ? pose_seq_item (f->document) : km_document_get_body_item (f->document))
                     != old);
      g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 1591);
      g_assert_true (test_app_wait_until (pose_seq_playing, f, 20000));
      test_app_spin ();
      g_assert_cmpuint (km_document_get_n_frames (f->document), ==, n_frames);
      g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 1591);

      g_assert_true (km_document_undo (f->document));
      g_assert_true ((i == 0 ? pose_seq_item (f->document) : km_document_get_body_item (f->document))
                     == old);
      g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 1591);
      g_assert_true (test_app_wait_until (pose_seq_playing, f, 20000));
      test_app_spin ();
      g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 1591);

      g_assert_true (km_document_redo (f->document));
      g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 1591);
      g_assert_true (test_app_wait_until (pose_seq_playing, f, 20000));
      test_app_spin ();
      g_assert_cmpuint (km_document_get_n_frames (f->document), ==, n_frames);
      g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 1591);
    }
  km_document_set_modified (f->document, FALSE);
}

/* Reload the body: the model's load warnings go to the message view, as on opening. */
static void
test_reload_body_warnings (CopyFixture   *f,
                           gconstpointer  data)
{
  KmItem *body = km_document_get_body_item (f->document);

  g_assert_cmpuint (test_app_count_messages (f->document, G_LOG_LEVEL_WARNING, "SR1.body:34:15:",
                                             "AccelerationSensor devices are not modelled",
                                             NULL), ==, 1);
  reload_item (f, body);
  g_assert_true (km_document_get_body_item (f->document) != body);
  g_assert_cmpuint (test_app_count_messages (f->document, G_LOG_LEVEL_WARNING, "SR1.body:34:15:",
                                             "AccelerationSensor devices are not modelled",
                                             NULL), ==, 2);
  g_assert_true (test_app_wait_until (pose_seq_playing, f, 20000));
  km_document_set_modified (f->document, FALSE);
}

/* Reload the pose sequence: it keeps its id, which the Pose Roll view refers to, so the
 * saved project reopens without a dangling reference. */
static void
test_reload_keeps_id (CopyFixture   *f,
                      gconstpointer  data)
{
  KmItem *old = pose_seq_item (f->document);
  gint64 id = km_item_get_id (old);
  g_autofree char *path = g_build_filename (f->dir, "share", "project", "SR1WalkEdit.cnoid",
                                            NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  g_assert_cmpint (id, ==, 4);
  touch_file (f->pseq);
  reload_item (f, old);
  g_assert_true (pose_seq_item (f->document) != old);
  g_assert_cmpint (km_item_get_id (pose_seq_item (f->document)), ==, id);
  g_assert_true (km_project_find_item_by_id (km_document_get_project (f->document), id)
                 == pose_seq_item (f->document));
  g_assert_true (test_app_wait_until (pose_seq_playing, f, 20000));

  g_assert_true (km_document_save (f->document, file, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "currentPoseSeqItem: 4\n"));
  g_assert_true (test_app_open_file (f->window, file));
  g_assert_true (test_app_wait_until (pose_seq_playing, f, 20000));
  g_assert_false (test_app_has_message (f->document, 0, "refers to an item that is not in the "
                                        "project", NULL));
  g_assert_cmpint (km_item_get_id (pose_seq_item (f->document)), ==, id);
}

int
main (int    argc,
      char **argv)
{
  test_app_init (&argc, &argv);

  g_test_add ("/kinema/PoseSeqReview/undo-delete-body", Fixture, NULL,
              fixture_setup, test_undo_delete_body, fixture_teardown);
  g_test_add ("/kinema/PoseSeqReview/key-on-pose-seq", Fixture, NULL,
              fixture_setup, test_key_on_pose_seq, fixture_teardown);
  g_test_add ("/kinema/PoseSeqReview/rename-keeps-frame", Fixture, NULL,
              fixture_setup, test_rename_keeps_frame, fixture_teardown);
  g_test_add_func ("/kinema/PoseSeqReview/rename-keeps-frame-body-motion",
                   test_rename_keeps_frame_body_motion);
  g_test_add ("/kinema/PoseSeqReview/reload-keeps-frame", CopyFixture, NULL,
              copy_fixture_setup, test_reload_keeps_frame, copy_fixture_teardown);
  g_test_add ("/kinema/PoseSeqReview/reload-body-warnings", CopyFixture, NULL,
              copy_fixture_setup, test_reload_body_warnings, copy_fixture_teardown);
  g_test_add ("/kinema/PoseSeqReview/reload-keeps-id", CopyFixture, NULL,
              copy_fixture_setup, test_reload_keeps_id, copy_fixture_teardown);
  return g_test_run ();
}
