/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <glib/gstdio.h>
#include <gtk/gtk.h>

#include "km-body-item.h"
#include "km-body-motion-item.h"
#include "km-cnoid.h"
#include "km-document-edit.h"
#include "km-document-skeleton.h"
#include "km-ik-animation-item.h"
#include "km-ik-targets-item.h"
#include "km-item-row.h"
#include "km-item-tree.h"
#include "km-layout-state.h"
#include "km-time-bar.h"
#include "km-message.h"
#include "km-pose-seq-item.h"
#include "km-scene-view.h"
#include "km-skeleton-edit.h"
#include "km-window.h"

#include "test-app-util.h"
#include "km-test-tmp.h"

/*
 * Choreonoid's SR1WalkEdit.cnoid opened in the editor: its pose sequence (below a
 * BodyMotionControllerItem, below SR1) is what the time bar plays, at the project's time
 * bar rate (200 fps), over the whole sequence, and SR1 takes each key's pose at the key's
 * time, its waist where the key puts it.
 */

typedef struct
{
  KmWindow    *window;
  KmDocument  *document;
  KmSceneView *view;
  guint        renders;
} Opened;

static gboolean
rendered (gpointer data)
{
  Opened *o = data;

  return km_scene_view_get_n_renders (o->view) > o->renders
         && gtk_widget_get_width (GTK_WIDGET (o->view)) > 0;
}

static int
dof_of_joint_id (KmSkeleton *skeleton,
                 int         id)
{
  for (guint j = 0; j < km_skeleton_get_n_joints (skeleton); j++)
    if (km_skeleton_get_joint (skeleton, j)->joint_id == id)
      return km_skeleton_get_joint (skeleton, j)->dof_index;
  g_assert_not_reached ();
  return -1;
}

static KmItem *
tree_pose_seq_item (KmWindow *window)
{
  KmItemTree *tree = KM_ITEM_TREE (km_window_get_item_tree (window));
  GListModel *rows = G_LIST_MODEL (km_item_tree_get_selection_model (tree));

  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(GtkTreeListRow) row = g_list_model_get_item (rows, i);
      g_autoptr(KmItemRow) item_row = gtk_tree_list_row_get_item (row);

      if (KM_IS_POSE_SEQ_ITEM (km_item_row_get_item (item_row)))
        return km_item_row_get_item (item_row);
    }
  return NULL;
}

/* The scene at @frame, once drawn. */
static GdkTexture *
grab_at (Opened *o,
         guint   frame)
{
  /* A frame drawn after the last change: GTK 4.18 has no picture of a GL area whose
   * render is still pending. */
  o->renders = km_scene_view_get_n_renders (o->view);
  if (km_document_get_current_frame (o->document) != frame)
    km_document_set_current_frame (o->document, frame);
  else
    gtk_gl_area_queue_render (GTK_GL_AREA (o->view));
  g_assert_true (test_app_wait_until (rendered, o, 10000));
  test_app_spin ();
  return km_scene_view_grab_texture (o->view);
}

static guint
n_pixels_differing (GdkTexture *a,
                    GdkTexture *b)
{
  int w = gdk_texture_get_width (a), h = gdk_texture_get_height (a);
  g_autofree guint8 *pa = g_malloc ((gsize) w * h * 4);
  g_autofree guint8 *pb = g_malloc ((gsize) w * h * 4);
  guint n = 0;

  g_assert_cmpint (gdk_texture_get_width (b), ==, w);
  g_assert_cmpint (gdk_texture_get_height (b), ==, h);
  gdk_texture_download (a, pa, (gsize) w * 4);
  gdk_texture_download (b, pb, (gsize) w * 4);
  for (gsize i = 0; i < (gsize) w * h; i++)
    n += abs (pa[4 * i] - pb[4 * i]) + abs (pa[4 * i + 1] - pb[4 * i + 1])
         + abs (pa[4 * i + 2] - pb[4 * i + 2]) > 30;
  return n;
}

/* Whether the document plays a pose sequence: its animation is built on a worker thread. */
static gboolean
pose_seq_playing (gpointer data)
{
  Opened *o = data;
  KmItem *item = tree_pose_seq_item (o->window);

  return item != NULL && km_document_get_animation (o->document) != NULL
         && km_document_get_animation (o->document)
            == km_pose_seq_item_get_animation (KM_POSE_SEQ_ITEM (item));
}

/* SR1WalkEdit.cnoid in a window, drawn once, its pose sequence playing. */
static void
open_walk (Opened *o)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "share",
                                                 "project", "SR1WalkEdit.cnoid", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);

  o->window = km_window_new (NULL);
  gtk_window_set_default_size (GTK_WINDOW (o->window), 800, 600);
  o->document = km_window_get_document (o->window);
  o->view = KM_SCENE_VIEW (km_window_get_scene_view (o->window));
  g_assert_true (test_app_open_file (o->window, file));
  gtk_window_present (GTK_WINDOW (o->window));
  g_assert_true (test_app_wait_until (rendered, o, 20000));
  g_assert_true (test_app_wait_until (pose_seq_playing, o, 20000));
  test_app_spin ();
}

static void
close_window (Opened *o)
{
  g_object_add_weak_pointer (G_OBJECT (o->window), (gpointer *) &o->window);
  gtk_window_destroy (GTK_WINDOW (o->window));
  test_app_spin ();
  g_assert_null (o->window);
}

static void
test_play_walk (void)
{
  g_autoptr(GdkTexture) at_start = NULL;
  g_autoptr(GdkTexture) at_key = NULL;
  Opened o = { NULL, };
  KmSkeleton *skeleton;
  KmPoseSeq *seq;
  const KmPoseSeqKey *key;
  const KmTransform *world;
  const double *pose;
  KmItem *item;
  guint n_dof = 0;
  guint differing;

  open_walk (&o);

  /* The tree shows the pose sequence item, and it is what plays. */
  item = tree_pose_seq_item (o.window);
  g_assert_nonnull (item);
  g_assert_null (km_item_get_problem (item));
  seq = km_pose_seq_item_get_pose_seq (KM_POSE_SEQ_ITEM (item));
  g_assert_nonnull (seq);
  g_assert_true (km_document_get_animation (o.document)
                 == km_pose_seq_item_get_animation (KM_POSE_SEQ_ITEM (item)));
  /* The time bar's frameRate is 200, and the range covers the 13.29 s sequence. */
  g_assert_cmpfloat (km_document_get_frame_rate (o.document), ==, 200);
  g_assert_cmpuint (km_document_get_n_frames (o.document), ==, 2659);

  /* Its key poses are the time bar's keyframes: Page Down goes to the next one. */
  g_assert_cmpuint (km_document_get_n_pose_keys (o.document), ==, km_pose_seq_get_n_keys (seq));
  g_assert_cmpuint (km_document_get_pose_key_frame (o.document, 2), ==, 1002);
  g_assert_cmpint (km_document_find_keyframe_near (o.document, 0, 1), ==,
                   (int) round (km_pose_seq_get_key (seq, 1)->time * 200));
  g_assert_true (gtk_widget_activate_action (km_window_get_time_bar (o.window),
                                             "time.next-keyframe", NULL));
  g_assert_cmpuint (km_document_get_current_frame (o.document), ==,
                    (guint) round (km_pose_seq_get_key (seq, 1)->time * 200));
  g_assert_true (gtk_widget_activate_action (km_window_get_time_bar (o.window),
                                             "time.previous-keyframe", NULL));
  g_assert_cmpuint (km_document_get_current_frame (o.document), ==, 0);

  at_start = grab_at (&o, 0);

  /* Key 2 is at 5.01 s, frame 1002: its joints have its values, the waist its place. */
  key = km_pose_seq_get_key (seq, 2);
  g_assert_cmpfloat (key->time, ==, 5.01);
  at_key = grab_at (&o, 1002);
  skeleton = km_document_get_skeleton (o.document);
  pose = km_document_get_pose (o.document, &n_dof);
  g_assert_cmpuint (n_dof, ==, km_skeleton_get_n_dof (skeleton));
  for (guint j = 0; j < key->n_joints; j++)
    g_assert_cmpfloat (pose[dof_of_joint_id (skeleton, key->joints[j])], ==, key->q[j]);
  g_assert_cmpfloat (pose[dof_of_joint_id (skeleton, 0)], ==, -0.104999768);
  world = km_document_get_joint_world (o.document, NULL);
  g_assert_cmpstr (km_skeleton_get_joint (skeleton, 0)->name, ==, "WAIST");
  g_assert_cmpfloat_with_epsilon (world[0].pos.x, 0.0484073025, 1e-9);
  g_assert_cmpfloat_with_epsilon (world[0].pos.y, 0.0609281633, 1e-9);
  g_assert_cmpfloat_with_epsilon (world[0].pos.z, 0.65863289, 1e-9);

  /* And the scene shows it: SR1 stepped and leaned between the two. */
  differing = n_pixels_differing (at_start, at_key);
  g_test_message ("%u pixels differ between 0 s and 5.01 s", differing);
  g_assert_cmpuint (differing, >, 500);

  close_window (&o);
}

/* Which animation plays for a body with several: the one picked in the item tree, else
 * the body's own solved IK animation, else the first below it (the pose sequence). */
static void
test_picked_source (void)
{
  Opened o = { NULL, };
  KmProject *project;
  KmItem *pose_seq, *body, *solved;
  g_autoptr(KmAnimation) animation = NULL;

  open_walk (&o);
  project = km_document_get_project (o.document);
  pose_seq = tree_pose_seq_item (o.window);
  g_assert_nonnull (pose_seq);
  body = km_pose_seq_item_get_body (KM_POSE_SEQ_ITEM (pose_seq));
  g_assert_true (km_document_get_animation (o.document)
                 == km_pose_seq_item_get_animation (KM_POSE_SEQ_ITEM (pose_seq)));

  /* A solved IK animation of SR1 (as a solve leaves one) is what plays once there. */
  animation = km_animation_new (km_document_get_skeleton (o.document), 30);
  solved = km_ik_animation_item_new ();
  km_ik_animation_item_set_animation (KM_IK_ANIMATION_ITEM (solved), animation);
  km_item_append_child (body, solved);
  km_project_select (project, body, FALSE);
  test_app_spin ();
  g_assert_true (km_document_get_animation (o.document) == animation);

  /* Picking the pose sequence in the tree plays it; picking something else goes back. */
  km_project_select (project, pose_seq, FALSE);
  test_app_spin ();
  g_assert_true (km_document_get_animation (o.document)
                 == km_pose_seq_item_get_animation (KM_POSE_SEQ_ITEM (pose_seq)));
  g_assert_cmpuint (km_document_get_n_frames (o.document), ==, 2659);
  km_project_clear_selection (project);
  test_app_spin ();
  g_assert_true (km_document_get_animation (o.document) == animation);
  g_assert_cmpuint (km_document_get_n_frames (o.document), ==, 30);

  close_window (&o);
}

/* Whether no pose sequence plays: the document's key poses and its animation source are
 * gone. */
static void
assert_no_pose_keys (Opened *o)
{
  g_assert_cmpuint (km_document_get_n_pose_keys (o->document), ==, 0);
}

/* The walk replaced by the built-in example: its key poses leave the time bar at once and
 * stay gone while the example's first solve streams in and after it (the solve's animation
 * is not the walk's), and Page Down steps to the example's own keyframes (0, 80, …). */
static void
test_replaced_project_forgets_keys (void)
{
  Opened o = { NULL, };

  open_walk (&o);
  g_assert_cmpuint (km_document_get_n_pose_keys (o.document), >, 0);

  g_assert_true (km_window_open_example (o.window));
  assert_no_pose_keys (&o);
  g_assert_true (km_document_get_solving (o.document)
                 || km_document_get_animation (o.document) != NULL);
  test_app_spin ();
  assert_no_pose_keys (&o);
  g_assert_true (test_app_wait_idle_solve (o.document, 20000));
  g_assert_nonnull (km_document_get_animation (o.document));
  assert_no_pose_keys (&o);

  km_document_set_current_frame (o.document, 0);
  g_assert_true (gtk_widget_activate_action (km_window_get_time_bar (o.window),
                                             "time.next-keyframe", NULL));
  g_assert_cmpuint (km_document_get_current_frame (o.document), ==, 80);

  close_window (&o);
}

/* The walk discarded for a new project, where a new skeleton gets a keyframe: the solve of
 * that skeleton shows no key pose of the walk. */
static void
test_new_project_forgets_keys (void)
{
  Opened o = { NULL, };
  g_autoptr(GError) error = NULL;
  KmItem *body;

  open_walk (&o);
  km_document_new_project (o.document);
  assert_no_pose_keys (&o);
  body = km_document_new_skeleton (o.document, "Root");
  g_assert_nonnull (body);
  for (guint i = 0; i < 3; i++)
    {
      KmSkeleton *skeleton = km_document_get_skeleton (o.document);
      g_autoptr(KmSkeleton) next = NULL;

      next = km_skeleton_edit_add_child (skeleton, km_skeleton_get_n_joints (skeleton) - 1,
                                         NULL, KM_JOINT_REVOLUTE, km_vec3 (0.2, 0, 0), NULL,
                                         &error);
      g_assert_no_error (error);
      g_assert_true (km_document_edit_skeleton (o.document, next, "Add Joint", NULL));
    }
  g_assert_true (test_app_wait_idle_solve (o.document, 20000));
  assert_no_pose_keys (&o);

  km_document_set_current_frame (o.document, km_document_get_timeline_frames (o.document) - 1);
  g_assert_true (km_document_set_keyframe (o.document,
                                           km_document_get_current_frame (o.document)));
  assert_no_pose_keys (&o);
  g_assert_true (test_app_wait_idle_solve (o.document, 20000));
  g_assert_nonnull (km_document_get_animation (o.document));
  assert_no_pose_keys (&o);

  close_window (&o);
}

/* A bare .pseq opened with File → Open goes below the current body as a pose sequence item,
 * picked so that it plays, undoably; a saved project refers to the file and reads it back.
 * Without a body it is refused, naming the file. */
static void
test_open_bare_pose_seq (void)
{
  g_autofree char *model = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "share", "model",
                                                  "SR1", "SR1.body", NULL);
  g_autofree char *pseq = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "share",
                                                 "project", "motion", "SR1",
                                                 "SR1WalkPattern2.pseq", NULL);
  g_autoptr(GFile) model_file = g_file_new_for_path (model);
  g_autoptr(GFile) pseq_file = g_file_new_for_path (pseq);
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-pseq-XXXXXX");
  g_autofree char *saved = g_build_filename (dir, "walk.cnoid", NULL);
  g_autoptr(GFile) saved_file = g_file_new_for_path (saved);
  g_autofree char *text = NULL;
  g_autoptr(KmProject) reloaded = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(KmDocument) empty = NULL;
  Opened o = { NULL, };
  KmItem *item, *body, *found;
  KmPoseSeq *seq;
  const KmPoseSeqKey *key;
  const double *pose;
  KmSkeleton *skeleton;
  guint frame, n_dof = 0;

  o.window = km_window_new (NULL);
  gtk_window_set_default_size (GTK_WINDOW (o.window), 800, 600);
  o.document = km_window_get_document (o.window);
  o.view = KM_SCENE_VIEW (km_window_get_scene_view (o.window));
  gtk_window_present (GTK_WINDOW (o.window));
  g_assert_true (test_app_open_file (o.window, model_file));
  body = km_document_get_body_item (o.document);
  g_assert_cmpstr (km_item_get_name (body), ==, "SR1.body");

  g_assert_true (test_app_open_file (o.window, pseq_file));
  g_assert_true (test_app_wait_until (pose_seq_playing, &o, 20000));
  item = tree_pose_seq_item (o.window);
  g_assert_true (km_item_get_parent (item) == body);
  g_assert_cmpstr (km_item_get_name (item), ==, "SR1WalkPattern2.pseq");
  g_assert_cmpstr (km_pose_seq_item_get_file (KM_POSE_SEQ_ITEM (item)), ==, pseq);
  seq = km_pose_seq_item_get_pose_seq (KM_POSE_SEQ_ITEM (item));
  g_assert_cmpuint (km_pose_seq_get_n_keys (seq), ==, 15);

  /* It plays: at key 2 SR1 has the key's joint values. */
  key = km_pose_seq_get_key (seq, 2);
  frame = (guint) round (key->time * km_document_get_frame_rate (o.document));
  km_document_set_current_frame (o.document, frame);
  test_app_spin ();
  skeleton = km_document_get_skeleton (o.document);
  pose = km_document_get_pose (o.document, &n_dof);
  g_assert_cmpuint (n_dof, ==, km_skeleton_get_n_dof (skeleton));
  for (guint j = 0; j < key->n_joints; j++)
    g_assert_cmpfloat_with_epsilon (pose[dof_of_joint_id (skeleton, key->joints[j])],
                                    key->q[j], 1e-9);

  /* Saved, the project names the file (in the portable form the writer picks) and reads it
   * back. */
  km_document_save_async (o.document, saved_file, NULL, NULL, NULL);
  g_assert_true (test_app_wait_document_saved (o.document));
  g_assert_true (g_file_get_contents (saved, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "class: PoseSeqItem"));
  g_assert_nonnull (strstr (text, "SR1WalkPattern2.pseq\"\n"));
  g_assert_nonnull (strstr (text, "format: POSE-SEQ-YAML"));
  reloaded = km_cnoid_load (saved, &error);
  g_assert_no_error (error);
  found = test_app_find_item (km_project_get_root_item (reloaded), KM_TYPE_POSE_SEQ_ITEM);
  g_assert_nonnull (found);
  g_assert_true (KM_IS_BODY_ITEM (km_item_get_parent (found)));
  g_assert_nonnull (km_pose_seq_item_get_pose_seq (KM_POSE_SEQ_ITEM (found)));
  g_assert_null (km_item_get_problem (found));

  /* Undo takes it away again. */
  g_object_ref (item);
  g_assert_true (km_document_undo (o.document));
  test_app_spin ();
  g_assert_null (km_item_get_parent (item));
  g_object_unref (item);
  g_assert_null (tree_pose_seq_item (o.window));

  close_window (&o);

  /* Without a body there is nothing to play it on. */
  empty = km_document_new ();
  km_document_new_project (empty);
  g_assert_false (km_document_import_file (empty, pseq_file, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_nonnull (strstr (error->message, "SR1WalkPattern2.pseq: there is no body"));

  g_unlink (saved);
  g_rmdir (dir);
}

/* A bare Choreonoid body motion (.seq) opened with File → Open goes below the current body,
 * picked so that it plays, resampled to the time bar's frame rate (its own is 50 fps); undo
 * takes it away. Without a body it is refused, naming the file. */
static void
test_open_bare_body_motion (void)
{
  g_autofree char *model = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "share", "model",
                                                  "SR1", "SR1.body", NULL);
  g_autofree char *seq = g_test_build_filename (G_TEST_DIST, "data", "body-motion",
                                                "sr1-walk.seq", NULL);
  g_autoptr(GFile) model_file = g_file_new_for_path (model);
  g_autoptr(GFile) seq_file = g_file_new_for_path (seq);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmDocument) empty = NULL;
  Opened o = { NULL, };
  KmItem *item, *body;
  KmSkeleton *skeleton;
  const double *pose;
  guint n_dof = 0;

  o.window = km_window_new (NULL);
  gtk_window_set_default_size (GTK_WINDOW (o.window), 800, 600);
  o.document = km_window_get_document (o.window);
  o.view = KM_SCENE_VIEW (km_window_get_scene_view (o.window));
  gtk_window_present (GTK_WINDOW (o.window));
  g_assert_true (test_app_open_file (o.window, model_file));
  body = km_document_get_body_item (o.document);

  g_assert_true (test_app_open_file (o.window, seq_file));
  test_app_spin ();
  item = test_app_find_item (km_project_get_root_item (km_document_get_project (o.document)),
                    KM_TYPE_BODY_MOTION_ITEM);
  g_assert_nonnull (item);
  g_assert_true (km_item_get_parent (item) == body);
  g_assert_cmpstr (km_item_get_name (item), ==, "sr1-walk.seq");

  /* Joint id 3 goes 0, 0.2, … 0.8 over the file's frames at 50 fps; at the time bar's frames
   * it is sampled linearly by time. */
  for (guint frame = 0; frame <= 3; frame++)
    {
      double t = frame / km_document_get_frame_rate (o.document);

      km_document_set_current_frame (o.document, frame);
      test_app_spin ();
      skeleton = km_document_get_skeleton (o.document);
      pose = km_document_get_pose (o.document, &n_dof);
      g_assert_cmpuint (n_dof, ==, km_skeleton_get_n_dof (skeleton));
      g_assert_cmpfloat_with_epsilon (pose[dof_of_joint_id (skeleton, 3)],
                                      0.2 * MIN (t * 50.0, 4.0), 1e-9);
    }

  g_object_ref (item);
  g_assert_true (km_document_undo (o.document));
  test_app_spin ();
  g_assert_null (km_item_get_parent (item));
  g_object_unref (item);
  close_window (&o);

  empty = km_document_new ();
  km_document_new_project (empty);
  g_assert_false (km_document_import_file (empty, seq_file, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_nonnull (strstr (error->message, "sr1-walk.seq: there is no body"));
}

/* A window showing SR1.body, drawn. */
static void
open_sr1 (Opened *o)
{
  g_autofree char *model = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "share", "model",
                                                  "SR1", "SR1.body", NULL);
  g_autoptr(GFile) model_file = g_file_new_for_path (model);

  o->window = km_window_new (NULL);
  gtk_window_set_default_size (GTK_WINDOW (o->window), 800, 600);
  o->document = km_window_get_document (o->window);
  o->view = KM_SCENE_VIEW (km_window_get_scene_view (o->window));
  gtk_window_present (GTK_WINDOW (o->window));
  g_assert_true (test_app_open_file (o->window, model_file));
}

static KmItem *
body_motion_item (Opened *o)
{
  return test_app_find_item (km_project_get_root_item (km_document_get_project (o->document)),
                    KM_TYPE_BODY_MOTION_ITEM);
}

static void
open_test_file (Opened     *o,
                const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);

  g_assert_true (test_app_open_file (o->window, file));
  test_app_spin ();
}

/* While a body motion plays, K (a keyframe at the current frame), Shift+K and a keyframe
 * drag change nothing: the motion still plays, no IK targets come, and Messages names the
 * motion that plays. */
static void
test_body_motion_read_only (void)
{
  g_autofree char *seq = g_test_build_filename (G_TEST_DIST, "data", "body-motion",
                                                "sr1-walk.seq", NULL);
  KmTargetKeyframe keyframe = { .frame = 2, .orientation = { 1, 0, 0, 0 } };
  Opened o = { NULL, };
  KmAnimation *animation;
  KmItem *item, *body;
  guint n_children;

  open_sr1 (&o);
  open_test_file (&o, seq);
  item = body_motion_item (&o);
  body = km_document_get_body_item (o.document);
  animation = km_document_get_animation (o.document);
  g_assert_nonnull (animation);
  g_assert_true (animation == km_body_motion_item_get_animation (KM_BODY_MOTION_ITEM (item)));
  n_children = km_item_get_n_children (body);
  km_document_set_current_frame (o.document, 2);
  test_app_spin ();

  g_assert_false (km_document_set_keyframe (o.document, 2));
  g_assert_false (km_document_put_keyframe (o.document, &keyframe));
  g_assert_true (test_app_has_message (o.document, G_LOG_LEVEL_WARNING, "“sr1-walk.seq”",
                                       "body motion", "read-only", NULL));
  test_app_spin ();
  g_assert_null (km_document_get_targets (o.document));
  g_assert_null (km_item_find_child_by_type (body, KM_TYPE_IK_TARGETS_ITEM));
  g_assert_cmpuint (km_item_get_n_children (body), ==, n_children);
  g_assert_false (km_document_get_solving (o.document));
  g_assert_true (km_document_get_animation (o.document) == animation);

  close_window (&o);
}

/* Writes a 200 fps body motion of @n_frames frames whose joint id 3 is 0.001 per frame
 * (the others 0) to @path. */
static void
write_200fps_seq (const char *path,
                  guint       n_frames)
{
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(GError) error = NULL;

  g_string_append_printf (text,
                          "type: CompositeSeq\ncontent: BodyMotion\nformatVersion: 2.0\n"
                          "frameRate: 200\nnumFrames: %u\ncomponents:\n  -\n"
                          "    type: MultiValueSeq\n    content: JointDisplacement\n"
                          "    frameRate: 200\n    numFrames: %u\n    numParts: 4\n"
                          "    frames:\n", n_frames, n_frames);
  for (guint f = 0; f < n_frames; f++)
    g_string_append_printf (text, "      - [ 0, 0, 0, %.3f ]\n", f * 0.001);
  g_assert_true (g_file_set_contents (path, text->str, -1, &error));
  g_assert_no_error (error);
}

/* SR1 with IK targets (K: the time bar at the targets' 30 fps), then a 200 fps body motion
 * opened: it plays in real time on that time bar, resampled at 30 fps, over its whole
 * duration. */
static void
test_body_motion_rate_with_targets (void)
{
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-seq-XXXXXX");
  g_autofree char *seq = g_build_filename (dir, "wave-200fps.seq", NULL);
  Opened o = { NULL, };
  KmSkeleton *skeleton;
  KmItem *item;
  const double *pose;

  write_200fps_seq (seq, 400);   /* 1.995 s */
  open_sr1 (&o);
  g_assert_true (km_document_set_keyframe (o.document, 0));
  g_assert_true (test_app_wait_idle_solve (o.document, 20000));
  test_app_spin ();
  g_assert_nonnull (km_document_get_targets (o.document));
  g_assert_cmpfloat (km_document_get_frame_rate (o.document), ==, 30);

  open_test_file (&o, seq);
  item = body_motion_item (&o);
  g_assert_nonnull (item);
  g_assert_true (km_document_get_animation (o.document)
                 == km_body_motion_item_get_animation (KM_BODY_MOTION_ITEM (item)));
  g_assert_cmpfloat (km_document_get_frame_rate (o.document), ==, 30);
  g_assert_cmpfloat (km_animation_get_frame_rate (km_document_get_animation (o.document)), ==,
                     30);
  /* 1.995 s at 30 fps: frames 0 … 59 */
  g_assert_cmpuint (km_document_get_n_frames (o.document), >=, 60);
  g_assert_cmpuint (km_document_get_timeline_frames (o.document), >=, 60);

  /* Frame 50 is 50/30 s: the file's frame 333.3, joint id 3 at 0.3333. */
  km_document_set_current_frame (o.document, 50);
  test_app_spin ();
  skeleton = km_document_get_skeleton (o.document);
  pose = km_document_get_pose (o.document, NULL);
  g_assert_cmpfloat_with_epsilon (pose[dof_of_joint_id (skeleton, 3)], 50.0 / 30.0 * 0.2,
                                  1e-9);

  close_window (&o);
  g_unlink (seq);
  g_rmdir (dir);
}

/* File → Open of a .seq that does not fit the body says so, naming the file: joint ids
 * the body lacks, and clearly when none of them maps (the built-in example has no
 * Choreonoid joint ids). */
static void
test_body_motion_fit_warning (void)
{
  g_autofree char *extra = g_test_build_filename (G_TEST_DIST, "data", "body-motion",
                                                  "sr1-extra-ids.seq", NULL);
  g_autofree char *seq = g_test_build_filename (G_TEST_DIST, "data", "body-motion",
                                                "sr1-walk.seq", NULL);
  Opened o = { NULL, };
  KmWindow *example;

  open_sr1 (&o);
  open_test_file (&o, extra);
  g_assert_nonnull (body_motion_item (&o));
  g_assert_true (test_app_has_message (o.document, G_LOG_LEVEL_WARNING, extra,
                                       "have no joint in", "SR1.body", NULL));
  close_window (&o);

  example = test_app_example_window (800, 600);
  o.window = example;
  o.document = km_window_get_document (example);
  g_assert_true (test_app_wait_idle_solve (o.document, 20000));
  open_test_file (&o, seq);
  g_assert_nonnull (body_motion_item (&o));
  g_assert_true (test_app_has_message (o.document, G_LOG_LEVEL_WARNING, seq,
                                       "none of the motion's 29", "no joint of the body moves",
                                       NULL));
  close_window (&o);
}

/* The one row of the item tree that shows @item, selected alone. */
static void
select_in_tree (KmWindow *window,
                KmItem   *item)
{
  KmItemTree *tree = KM_ITEM_TREE (km_window_get_item_tree (window));
  GtkSelectionModel *rows = km_item_tree_get_selection_model (tree);

  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (rows)); i++)
    {
      g_autoptr(GtkTreeListRow) row = g_list_model_get_item (G_LIST_MODEL (rows), i);
      g_autoptr(KmItemRow) item_row = gtk_tree_list_row_get_item (row);

      if (km_item_row_get_item (item_row) == item && km_item_row_get_joint (item_row) < 0)
        {
          g_assert_true (gtk_selection_model_select_item (rows, i, TRUE));
          test_app_spin ();
          return;
        }
    }
  g_assert_not_reached ();
}

/* The GtkModelButton whose label has @text at or below @widget, or NULL. */
static GtkWidget *
find_menu_entry (GtkWidget  *widget,
                 const char *text)
{
  if (g_strcmp0 (G_OBJECT_TYPE_NAME (widget), "GtkModelButton") == 0)
    {
      g_autofree char *label = NULL;

      g_object_get (widget, "text", &label, NULL);
      if (label != NULL && strstr (label, text) != NULL)
        return widget;
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_menu_entry (child, text);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* Whether the item tree's context menu offers Save Item As (for the selection). */
static gboolean
save_item_as_offered (KmWindow *window)
{
  GtkWidget *tree = km_window_get_item_tree (window);
  GtkWidget *menu = NULL;
  GtkWidget *entry;
  gboolean offered;

  for (GtkWidget *child = gtk_widget_get_first_child (tree); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_POPOVER_MENU (child))
      menu = child;
  g_assert_nonnull (menu);
  gtk_popover_popup (GTK_POPOVER (menu));
  test_app_spin ();
  entry = find_menu_entry (menu, "Item As");
  g_assert_nonnull (entry);
  offered = gtk_widget_get_sensitive (entry);
  gtk_popover_popdown (GTK_POPOVER (menu));
  test_app_spin ();
  return offered;
}

/* Reload on a body motion reads its .seq again (one undoable step, no warning about a
 * missing body); Save Item As is not offered on it (the .seq is never written), as on a
 * pose sequence. */
static void
test_body_motion_reload_save_as (void)
{
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-seq-XXXXXX");
  g_autofree char *seq = g_build_filename (dir, "wave-200fps.seq", NULL);
  Opened o = { NULL, };
  KmItemTree *tree;
  KmItem *item, *fresh, *body;
  guint n_messages;

  write_200fps_seq (seq, 400);
  open_sr1 (&o);
  tree = KM_ITEM_TREE (km_window_get_item_tree (o.window));
  body = km_document_get_body_item (o.document);
  open_test_file (&o, seq);
  item = body_motion_item (&o);
  g_assert_cmpuint (km_body_motion_get_n_frames (km_body_motion_item_get_motion (
                      KM_BODY_MOTION_ITEM (item))), ==, 400);

  /* Nothing of its own to save: not offered (a body's model is). */
  select_in_tree (o.window, item);
  g_assert_false (save_item_as_offered (o.window));
  select_in_tree (o.window, body);
  g_assert_true (save_item_as_offered (o.window));
  select_in_tree (o.window, item);
  g_assert_false (save_item_as_offered (o.window));

  /* The file changes on disk; Reload reads it again. */
  write_200fps_seq (seq, 100);
  n_messages = g_list_model_get_n_items (km_document_get_messages (o.document));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (tree), "tree.reload", NULL));
  g_assert_true (test_app_wait_reloaded (GTK_WIDGET (tree)));
  test_app_spin ();
  fresh = body_motion_item (&o);
  g_assert_true (fresh != item);
  g_assert_true (km_item_get_parent (fresh) == body);
  g_assert_cmpuint (km_body_motion_get_n_frames (km_body_motion_item_get_motion (
                      KM_BODY_MOTION_ITEM (fresh))), ==, 100);
  g_assert_true (test_app_has_message (o.document, G_LOG_LEVEL_INFO, "Reloaded", seq, NULL));
  g_assert_false (test_app_has_message (o.document, G_LOG_LEVEL_WARNING, "no body item", NULL));
  g_assert_cmpuint (g_list_model_get_n_items (km_document_get_messages (o.document)), ==,
                    n_messages + 1);
  g_assert_true (km_document_undo (o.document));
  test_app_spin ();
  g_assert_true (body_motion_item (&o) == item);

  close_window (&o);
  g_unlink (seq);
  g_rmdir (dir);
}

/* Review finding 9: the file an item was read from, as messages show it (the item tree's
 * "Reloaded … from FILE."), is the real path: a project's "${SHARE}/model/SR1/SR1.body"
 * reads as the folder ${SHARE} stands for; a file of its own stays the path it is. */
static void
test_shown_item_file_expanded (void)
{
  g_autofree char *project = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "share",
                                                    "project", "SR1Walk.cnoid", NULL);
  g_autofree char *model = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "share",
                                                  "model", "SR1", "SR1.body", NULL);
  g_autoptr(GFile) project_file = g_file_new_for_path (project);
  g_autoptr(KmDocument) document = km_document_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *shown = NULL;
  g_autofree char *canonical = NULL;
  g_autofree char *expected = NULL;
  KmItem *body;

  g_assert_true (km_document_import_file (document, project_file, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_wait_idle_solve (document, 20000));
  body = km_document_get_body_item (document);
  g_assert_nonnull (body);
  g_assert_cmpstr (km_item_get_file (body), ==, "${SHARE}/model/SR1/SR1.body");
  shown = km_document_dup_shown_item_file (document, body);
  g_assert_nonnull (shown);
  g_assert_null (strstr (shown, "${"));
  g_assert_true (g_path_is_absolute (shown));
  canonical = g_canonicalize_filename (shown, NULL);
  expected = g_canonicalize_filename (model, NULL);
  g_assert_cmpstr (canonical, ==, expected);
  g_assert_null (km_document_dup_shown_item_file (document, km_project_get_root_item (
                   km_document_get_project (document))));
}

/* Makes the document read its project again (the selection changed and put back). */
static void
sync_again (Opened *o)
{
  KmProject *project = km_document_get_project (o->document);
  GListModel *selection = km_project_get_selection (project);
  g_autoptr(GPtrArray) selected = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < g_list_model_get_n_items (selection); i++)
    g_ptr_array_add (selected, g_list_model_get_item (selection, i));
  km_project_select (project, km_project_get_root_item (project), FALSE);
  km_project_clear_selection (project);
  for (guint i = 0; i < selected->len; i++)
    km_project_select (project, g_ptr_array_index (selected, i), TRUE);
  test_app_spin ();
}

/* Review finding (rev19 #1): importing a model into SR1WalkEdit.cnoid (time bar at
 * 200 fps) keeps the project's frame rate, and undoing the import leaves the time bar as
 * it was: the same rate and range, and a save writes them. */
static void
test_import_undo_keeps_rate (void)
{
  g_autofree char *urdf = g_test_build_filename (G_TEST_DIST, "data", "urdf-two-arms.urdf",
                                                 NULL);
  g_autoptr(GFile) file = g_file_new_for_path (urdf);
  g_autoptr(GError) error = NULL;
  Opened o = { NULL, };
  KmProject *project;
  KmTimeBarState state;
  guint n_frames;

  open_walk (&o);
  project = km_document_get_project (o.document);
  g_assert_cmpfloat (km_document_get_frame_rate (o.document), ==, 200);
  n_frames = km_document_get_n_frames (o.document);

  g_assert_true (km_document_import_file (o.document, file, &error));
  g_assert_no_error (error);
  test_app_spin ();
  /* The imported body has no motion of its own: the project's rate stays. */
  g_assert_cmpfloat (km_document_get_frame_rate (o.document), ==, 200);
  /* What an autosave or a save stores meanwhile. */
  km_layout_state_store (project, o.view, KM_TIME_BAR (km_window_get_time_bar (o.window)));
  g_assert_true (km_layout_state_get_time_bar (project, &state));
  g_assert_cmpfloat (state.frame_rate, ==, 200);
  /* The project's sections changed under it (another rate there, as an older Kinema's save
   * of a body at a rate of its own left it): the project's pose sequence does not take that
   * rate, it keeps the one the project was read with. */
  state.frame_rate = 30;
  km_layout_state_set_time_bar (project, &state);
  sync_again (&o);
  g_assert_cmpfloat (km_document_get_frame_rate (o.document), ==, 200);

  g_assert_true (km_document_undo (o.document));
  test_app_spin ();
  g_assert_true (test_app_wait_until (pose_seq_playing, &o, 20000));
  g_assert_cmpfloat (km_document_get_frame_rate (o.document), ==, 200);
  g_assert_cmpuint (km_document_get_n_frames (o.document), ==, n_frames);
  km_layout_state_store (project, o.view, KM_TIME_BAR (km_window_get_time_bar (o.window)));
  g_assert_true (km_layout_state_get_time_bar (project, &state));
  g_assert_cmpfloat (state.frame_rate, ==, 200);
  /* The project's saved range (maxTime: 15), longer than the motion (it used to be
   * replaced by the motion's end, review rev25 defect 1). */
  g_assert_cmpfloat_with_epsilon (state.max_time, MAX (15.0, (n_frames - 1) / 200.0), 1e-9);

  close_window (&o);
}

int
main (int    argc,
      char **argv)
{
  test_app_init (&argc, &argv);

  {
    g_autofree char *share = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "share",
                                                    NULL);

    g_setenv ("KINEMA_CHOREONOID_SHARE", share, TRUE);
  }
  g_test_add_func ("/kinema/PoseSeqPlayback/play-walk", test_play_walk);
  g_test_add_func ("/kinema/PoseSeqPlayback/shown-item-file-expanded",
                   test_shown_item_file_expanded);
  g_test_add_func ("/kinema/PoseSeqPlayback/picked-source", test_picked_source);
  g_test_add_func ("/kinema/PoseSeqPlayback/replaced-project-forgets-keys",
                   test_replaced_project_forgets_keys);
  g_test_add_func ("/kinema/PoseSeqPlayback/new-project-forgets-keys",
                   test_new_project_forgets_keys);
  g_test_add_func ("/kinema/PoseSeqPlayback/open-bare-pose-seq", test_open_bare_pose_seq);
  g_test_add_func ("/kinema/PoseSeqPlayback/open-bare-body-motion", test_open_bare_body_motion);
  g_test_add_func ("/kinema/PoseSeqPlayback/body-motion-read-only", test_body_motion_read_only);
  g_test_add_func ("/kinema/PoseSeqPlayback/body-motion-rate-with-targets",
                   test_body_motion_rate_with_targets);
  g_test_add_func ("/kinema/PoseSeqPlayback/body-motion-fit-warning",
                   test_body_motion_fit_warning);
  g_test_add_func ("/kinema/PoseSeqPlayback/body-motion-reload-save-as",
                   test_body_motion_reload_save_as);
  g_test_add_func ("/kinema/PoseSeqPlayback/import-undo-keeps-rate",
                   test_import_undo_keeps_rate);
  return g_test_run ();
}
