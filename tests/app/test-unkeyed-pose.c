/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gstdio.h>
#include <gtk/gtk.h>

#include "km-body-item.h"
#include "km-camera.h"
#include "km-document.h"
#include "km-document-edit.h"
#include "km-ik-targets-item.h"
#include "km-layout-state.h"
#include "km-targets-json.h"
#include "km-scene-view.h"
#include "km-time-bar.h"
#include "km-window.h"
#include "km-yaml.h"

#include "test-app-util.h"
#include "km-test-tmp.h"

/*
 * A pose dragged in edit mode (or set in the Pose tab) that differs from the motion at the
 * current frame is not keyed: changing the frame replaces it with the motion's pose. The
 * time bar shows it (the Set Keyframe button is highlighted and says so), K keys it, and
 * the first frame change that replaces it says so in the messages. Undoing the drag after
 * that goes back to the frame it was made at, so that undo and redo show what they change.
 */

#define UNKEYED_TOOLTIP "Pose not keyed"
#define REPLACED_TEXT "was not keyed"

typedef struct
{
  GtkWindow  *window;
  KmDocument *document;
  KmTimeBar  *time_bar;
  GtkWidget  *set_keyframe;
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
  g_assert_nonnull (km_document_get_animation (f->document));
  f->set_keyframe = test_app_find_action (GTK_WIDGET (f->time_bar), GTK_TYPE_BUTTON,
                                          "time.set-keyframe");
  g_assert_nonnull (f->set_keyframe);
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

/* What the time bar shows: the Set Keyframe button highlighted, its tooltip saying why. */
static gboolean
shows_unkeyed (Fixture *f)
{
  const char *tooltip = gtk_widget_get_tooltip_text (f->set_keyframe);
  gboolean highlighted = gtk_widget_has_css_class (f->set_keyframe, "suggested-action");
  gboolean says = tooltip != NULL && strstr (tooltip, UNKEYED_TOOLTIP) != NULL;

  g_assert_true (highlighted == says);
  return highlighted;
}

/* A copy of the pose shown now (free with g_free). */
static double *
copy_pose (Fixture *f)
{
  guint n_dof;
  const double *q = km_document_get_pose (f->document, &n_dof);

  return g_memdup2 (q, n_dof * sizeof (double));
}

static gboolean
pose_is (Fixture      *f,
         const double *expected)
{
  guint n_dof;
  const double *q = km_document_get_pose (f->document, &n_dof);

  for (guint i = 0; i < n_dof; i++)
    if (fabs (q[i] - expected[i]) > 1e-12)
      return FALSE;
  return TRUE;
}

/* What a drag in the scene does: km_document_set_pose with the IK's answer, then the edit
 * closes. The first DOF turns by 0.3 rad (towards the middle of its range). Returns the
 * dragged pose. */
static double *
drag (Fixture *f)
{
  g_autofree double *q = copy_pose (f);
  guint n_dof;
  double lower, upper;

  km_document_get_pose (f->document, &n_dof);
  g_assert_cmpuint (n_dof, >, 0);
  g_assert_true (km_document_get_dof_range (f->document, 0, &lower, &upper));
  q[0] += q[0] < (lower + upper) / 2 ? 0.3 : -0.3;
  km_document_set_pose (f->document, q, n_dof);
  km_document_close_edit (f->document);
  test_app_spin ();
  g_assert_true (pose_is (f, q));
  return g_steal_pointer (&q);
}

static guint
replaced_messages (Fixture *f)
{
  return test_app_count_messages (f->document, G_LOG_LEVEL_INFO, REPLACED_TEXT, NULL);
}

/* Drag → the time bar shows the pose unkeyed; K keys it: a keyframe at that frame, and the
 * pose is no longer unkeyed (nor said to be replaced once the new motion shows). */
static void
test_key_clears (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree double *dragged = NULL;
  KmTargetTrack *targets;

  km_document_set_current_frame (f->document, 10);
  test_app_spin ();
  targets = km_document_get_targets (f->document);
  g_assert_cmpint (km_target_track_find_keyframe (targets, 10), <, 0);
  g_assert_false (shows_unkeyed (f));

  dragged = drag (f);
  g_assert_true (shows_unkeyed (f));
  g_assert_true (km_document_get_modified (f->document));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->time_bar), "time.set-keyframe",
                                             NULL));
  test_app_spin ();
  g_assert_false (shows_unkeyed (f));
  targets = km_document_get_targets (f->document);
  g_assert_cmpint (km_target_track_find_keyframe (targets, 10), >=, 0);

  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_false (shows_unkeyed (f));
  g_assert_cmpuint (replaced_messages (f), ==, 0);
}

/* The reviewer's steps: at frame 15 an edit (a typed joint value, or a drag), K, undo
 * twice, redo twice. The redone key keys the redone pose again: the motion it brings
 * replaces nothing unkeyed, so nothing says so. */
static void
redo_key_says_nothing (Fixture  *f,
                       gboolean  typed)
{
  g_autofree double *edited = NULL;
  KmTargetTrack *targets;

  km_document_set_current_frame (f->document, 15);
  test_app_spin ();
  if (typed)
    {
      g_autofree double *q = copy_pose (f);
      double lower, upper;

      g_assert_true (km_document_get_dof_range (f->document, 0, &lower, &upper));
      km_document_set_dof_value (f->document, 0,
                                 q[0] + (q[0] < (lower + upper) / 2 ? 0.3 : -0.3));
      km_document_close_edit (f->document);
      test_app_spin ();
      edited = copy_pose (f);
    }
  else
    edited = drag (f);
  g_assert_true (shows_unkeyed (f));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->time_bar), "time.set-keyframe",
                                             NULL));
  test_app_spin ();
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_false (shows_unkeyed (f));

  g_assert_true (km_document_undo (f->document));
  test_app_spin ();
  g_assert_true (km_document_undo (f->document));
  test_app_spin ();
  g_assert_true (km_document_redo (f->document));
  test_app_spin ();
  g_assert_true (pose_is (f, edited));
  g_assert_true (shows_unkeyed (f));
  g_assert_true (km_document_redo (f->document));
  test_app_spin ();
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));

  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 15);
  targets = km_document_get_targets (f->document);
  g_assert_cmpint (km_target_track_find_keyframe (targets, 15), >=, 0);
  g_assert_false (shows_unkeyed (f));
  g_assert_cmpuint (replaced_messages (f), ==, 0);
  g_assert_cmpuint (test_app_count_messages (f->document, G_LOG_LEVEL_INFO, "dragged", NULL),
                    ==, 0);
}

static void
test_redo_key_typed (Fixture       *f,
                     gconstpointer  data)
{
  redo_key_says_nothing (f, TRUE);
}

static void
test_redo_key_dragged (Fixture       *f,
                       gconstpointer  data)
{
  redo_key_says_nothing (f, FALSE);
}

/* Undoing K alone brings back what was there before it: no keyframe at that frame, and
 * the edited pose shown, unkeyed, at its frame (the time bar says so again), even when
 * the frame moved on after K. Redo keys it again, silently. @wait: K's solve finished
 * before the undo (else it still runs). */
static void
undo_key_unkeys (Fixture  *f,
                 gboolean  wait,
                 gboolean  move_on)
{
  g_autofree double *dragged = NULL;
  KmTargetTrack *targets;
  guint frame = G_MAXUINT;

  km_document_set_current_frame (f->document, 12);
  test_app_spin ();
  dragged = drag (f);
  g_assert_true (shows_unkeyed (f));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->time_bar), "time.set-keyframe",
                                             NULL));
  test_app_spin ();
  g_assert_false (shows_unkeyed (f));
  g_assert_cmpint (km_target_track_find_keyframe (km_document_get_targets (f->document), 12),
                   >=, 0);
  if (wait)
    g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  if (move_on)
    {
      km_document_set_current_frame (f->document, 30);
      test_app_spin ();
    }

  g_assert_true (km_document_undo (f->document));
  test_app_spin ();
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  targets = km_document_get_targets (f->document);
  g_assert_cmpint (km_target_track_find_keyframe (targets, 12), <, 0);
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 12);
  g_assert_true (pose_is (f, dragged));
  g_assert_true (km_document_get_pose_unkeyed (f->document, &frame));
  g_assert_cmpuint (frame, ==, 12);
  g_assert_true (shows_unkeyed (f));
  g_assert_cmpuint (replaced_messages (f), ==, 0);

  g_assert_true (km_document_redo (f->document));
  test_app_spin ();
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  targets = km_document_get_targets (f->document);
  g_assert_cmpint (km_target_track_find_keyframe (targets, 12), >=, 0);
  g_assert_false (shows_unkeyed (f));
  g_assert_cmpuint (replaced_messages (f), ==, 0);

  /* And undo again, as often as the user goes back and forth. */
  g_assert_true (km_document_undo (f->document));
  test_app_spin ();
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_true (pose_is (f, dragged));
  g_assert_true (shows_unkeyed (f));
}

static void
test_undo_key_unkeys (Fixture       *f,
                      gconstpointer  data)
{
  undo_key_unkeys (f, TRUE, FALSE);
}

static void
test_undo_key_solving_unkeys (Fixture       *f,
                              gconstpointer  data)
{
  undo_key_unkeys (f, FALSE, FALSE);
}

static void
test_undo_key_elsewhere_unkeys (Fixture       *f,
                                gconstpointer  data)
{
  undo_key_unkeys (f, TRUE, TRUE);
}

/* Undoing the drag (at its frame) clears the state, silently. */
static void
test_undo_clears (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree double *before = copy_pose (f);
  g_autofree double *dragged = drag (f);

  g_assert_true (shows_unkeyed (f));
  g_assert_true (km_document_undo (f->document));
  test_app_spin ();
  g_assert_false (shows_unkeyed (f));
  g_assert_true (pose_is (f, before));

  /* Redo shows the dragged pose again, still not keyed. */
  g_assert_true (km_document_redo (f->document));
  test_app_spin ();
  g_assert_true (pose_is (f, dragged));
  g_assert_true (shows_unkeyed (f));
  g_assert_cmpuint (replaced_messages (f), ==, 0);
}

/* The reviewer's steps: drag at frame 0, Right, Left. The first frame change replaces the
 * pose and says so once; the second says nothing more. */
static void
test_frame_change_replaces (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree double *before = copy_pose (f);
  g_autofree double *dragged = drag (f);
  g_autofree char *frame_text = g_strdup_printf (" %u ", 0u);

  g_assert_true (shows_unkeyed (f));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->time_bar), "time.step-forward",
                                             NULL));
  test_app_spin ();
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 1);
  g_assert_false (shows_unkeyed (f));
  g_assert_cmpuint (replaced_messages (f), ==, 1);
  g_assert_true (test_app_has_message (f->document, G_LOG_LEVEL_INFO, REPLACED_TEXT,
                                       frame_text, NULL));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->time_bar), "time.step-backward",
                                             NULL));
  test_app_spin ();
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 0);
  g_assert_true (pose_is (f, before));
  g_assert_false (shows_unkeyed (f));
  g_assert_cmpuint (replaced_messages (f), ==, 1);
}

/* Undo after the frame moved on goes back to the frame of the drag, and shows the pose from
 * before it there; redo shows the dragged pose at that frame again (unkeyed, so K can key
 * it). */
static void
test_undo_after_frame_change (Fixture       *f,
                              gconstpointer  data)
{
  g_autofree double *before = NULL;
  g_autofree double *dragged = NULL;

  km_document_set_current_frame (f->document, 5);
  test_app_spin ();
  before = copy_pose (f);
  dragged = drag (f);
  km_document_set_current_frame (f->document, 40);
  test_app_spin ();
  g_assert_false (pose_is (f, before));
  g_assert_cmpuint (replaced_messages (f), ==, 1);

  g_assert_true (km_document_undo (f->document));
  test_app_spin ();
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 5);
  g_assert_true (pose_is (f, before));
  g_assert_false (shows_unkeyed (f));

  g_assert_true (km_document_redo (f->document));
  test_app_spin ();
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 5);
  g_assert_true (pose_is (f, dragged));
  g_assert_true (shows_unkeyed (f));
  /* Going back to the drag's frame replaced nothing unkeyed: no new message. */
  g_assert_cmpuint (replaced_messages (f), ==, 1);
}

/* Drags at two frames in quick succession (no pause to end the first) are two undo steps,
 * each undone at its own frame. */
static void
test_drags_at_two_frames_are_two_steps (Fixture       *f,
                                        gconstpointer  data)
{
  g_autofree double *before_0 = copy_pose (f);
  g_autofree double *dragged_0 = NULL;
  g_autofree double *before_3 = NULL;
  g_autofree double *dragged_3 = NULL;
  g_autofree double *q = copy_pose (f);
  guint n_dof;

  km_document_get_pose (f->document, &n_dof);
  q[0] += 0.2;
  km_document_set_pose (f->document, q, n_dof);     /* no close_edit: still one drag… */
  dragged_0 = copy_pose (f);
  km_document_set_current_frame (f->document, 3);   /* …but at another frame now */
  before_3 = copy_pose (f);
  memcpy (q, before_3, n_dof * sizeof (double));
  q[0] += 0.2;
  km_document_set_pose (f->document, q, n_dof);
  km_document_close_edit (f->document);
  dragged_3 = copy_pose (f);

  g_assert_true (km_document_undo (f->document));
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 3);
  g_assert_true (pose_is (f, before_3));
  g_assert_true (km_document_undo (f->document));
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 0);
  g_assert_true (pose_is (f, before_0));
  g_assert_true (km_document_redo (f->document));
  g_assert_true (pose_is (f, dragged_0));
  g_assert_true (km_document_redo (f->document));
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 3);
  g_assert_true (pose_is (f, dragged_3));
}

/* A drag while the motion plays stops playback: the next frame would replace the pose, and
 * every frame it passed would make the drag another edit and another message. */
static void
test_drag_stops_playback (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree double *first = NULL;
  guint frame, n_messages;

  km_document_set_current_frame (f->document, 20);
  km_time_bar_set_playing (f->time_bar, TRUE);
  g_assert_true (km_time_bar_get_playing (f->time_bar));
  test_app_spin_for (100);
  n_messages = test_app_count_messages (f->document, G_LOG_LEVEL_INFO, REPLACED_TEXT, NULL);

  first = drag (f);
  g_assert_false (km_time_bar_get_playing (f->time_bar));
  g_assert_true (km_document_get_pose_unkeyed (f->document, &frame));
  /* Playback had run on; the pose stays, the time does not move past it. */
  test_app_spin_for (300);
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, frame);
  g_assert_true (pose_is (f, first));
  g_assert_true (shows_unkeyed (f));
  g_assert_cmpuint (test_app_count_messages (f->document, G_LOG_LEVEL_INFO, REPLACED_TEXT,
                                             NULL), ==, n_messages);
}

/* What the project writes for @item. */
static KmYamlNode *
store_item (Fixture *f,
            KmItem  *item)
{
  g_auto(KmDocumentItemIo) io = { 0 };

  km_document_item_io_init (f->document, &io);
  return km_item_store (item, &io.io);
}

static KmItem *
shown_targets_item (Fixture *f)
{
  KmItem *item = km_item_find_child_by_type (km_document_get_body_item (f->document),
                                             KM_TYPE_IK_TARGETS_ITEM);

  g_assert_nonnull (item);
  g_assert_true (km_ik_targets_item_get_track (KM_IK_TARGETS_ITEM (item))
                 == km_document_get_targets (f->document));
  return item;
}

/* The reviewer's steps on targets read from a file (kinema skeleton.json targets.json):
 * at frame 110 a typed joint value, K, undo. The undo gives the item back as it was: it
 * refers to its file again (Reload works, a save writes `file`), and redo and undo go
 * back and forth between the keyed targets and the file's. */
static void
test_undo_key_keeps_file (Fixture       *f,
                          gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-unkeyed-XXXXXX");
  g_autofree char *path = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(KmYamlNode) stored_before = NULL;
  g_autoptr(KmYamlNode) stored_undone = NULL;
  g_autofree char *file_before = NULL;
  g_autofree double *q = NULL;
  KmTargetTrack *track_before;
  KmItem *item;
  double lower, upper;

  path = g_build_filename (dir, "targets.json", NULL);
  g_assert_true (km_targets_json_save (km_document_get_targets (f->document), path, &error));
  g_assert_no_error (error);
  file = g_file_new_for_path (path);
  g_assert_true (km_document_import_file (f->document, file, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  item = shown_targets_item (f);
  g_assert_nonnull (km_ik_targets_item_get_file (KM_IK_TARGETS_ITEM (item)));
  file_before = g_strdup (km_ik_targets_item_get_file (KM_IK_TARGETS_ITEM (item)));
  track_before = km_ik_targets_item_get_track (KM_IK_TARGETS_ITEM (item));
  stored_before = store_item (f, item);

  km_document_set_current_frame (f->document, 110);
  test_app_spin ();
  q = copy_pose (f);
  g_assert_true (km_document_get_dof_range (f->document, 0, &lower, &upper));
  km_document_set_dof_value (f->document, 0, q[0] + (q[0] < (lower + upper) / 2 ? 0.3 : -0.3));
  km_document_close_edit (f->document);
  test_app_spin ();
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->time_bar), "time.set-keyframe",
                                             NULL));
  test_app_spin ();
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_true (shown_targets_item (f) == item);
  g_assert_cmpint (km_target_track_find_keyframe (km_document_get_targets (f->document), 110),
                   >=, 0);

  for (guint i = 0; i < 2; i++)
    {
      g_assert_true (km_document_undo (f->document));
      test_app_spin ();
      g_assert_true (test_app_wait_idle_solve (f->document, 20000));
      g_assert_true (shown_targets_item (f) == item);
      g_assert_true (km_ik_targets_item_get_track (KM_IK_TARGETS_ITEM (item)) == track_before);
      g_assert_cmpstr (km_ik_targets_item_get_file (KM_IK_TARGETS_ITEM (item)), ==, file_before);
      stored_undone = store_item (f, item);
      g_assert_true (km_yaml_node_equal (stored_undone, stored_before));
      g_clear_pointer (&stored_undone, km_yaml_node_unref);

      g_assert_true (km_document_redo (f->document));
      test_app_spin ();
      g_assert_true (test_app_wait_idle_solve (f->document, 20000));
      g_assert_cmpint (km_target_track_find_keyframe (km_document_get_targets (f->document),
                                                      110), >=, 0);
    }

  g_unlink (path);
  g_rmdir (dir);
}

/* ---- Saved and opened again ------------------------------------------------------- */

static gboolean
document_pose_is (KmDocument   *document,
                  const double *expected,
                  double        tolerance)
{
  guint n_dof;
  const double *q = km_document_get_pose (document, &n_dof);

  for (guint i = 0; i < n_dof; i++)
    if (fabs (q[i] - expected[i]) > tolerance)
      return FALSE;
  return TRUE;
}

/* Saves the project to a new file in @dir with the time bar at the current frame (what the
 * window stores before a save, km_layout_state_store), and opens that file in a new
 * document (as `kinema FILE` does: the time it was saved at comes with it). */
static KmDocument *
save_and_reopen (Fixture    *f,
                 const char *dir)
{
  g_autofree char *path = g_build_filename (dir, "pose.cnoid", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  KmProject *project = km_document_get_project (f->document);
  KmDocument *reopened;
  KmTimeBarState state;

  km_layout_state_get_time_bar (project, &state);
  state.frame_rate = km_document_get_project_frame_rate (f->document);
  state.current_time = km_document_get_current_frame (f->document)
                       / km_document_get_frame_rate (f->document);
  km_layout_state_set_time_bar (project, &state);
  g_assert_true (km_document_save (f->document, file, &error));
  g_assert_no_error (error);
  g_assert_false (km_document_get_modified (f->document));

  reopened = km_document_new ();
  g_assert_true (km_document_import_file (reopened, file, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_wait_idle_solve (reopened, 20000));
  g_assert_nonnull (km_document_get_animation (reopened));
  return reopened;
}

/* The reviewer's steps: at frame 40 Elbow typed as 1.0 rad (the motion has 2.5 there),
 * not keyed; saved (the title goes clean), opened again. The project opens showing what
 * was saved: frame 40, the typed pose, still unkeyed (the time bar says so), and nothing
 * said to be replaced; the next frame change replaces it, and says so, as before. */
static void
test_save_reopen_unkeyed (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-unkeyed-XXXXXX");
  g_autofree double *edited = NULL;
  g_autofree double *motion = NULL;
  g_autoptr(KmDocument) reopened = NULL;
  KmSkeleton *skeleton = km_document_get_skeleton (f->document);
  int elbow = km_skeleton_find_joint (skeleton, "Elbow");
  guint dof, frame = G_MAXUINT;

  g_assert_cmpint (elbow, >=, 0);
  dof = (guint) km_skeleton_get_joint (skeleton, (guint) elbow)->dof_index;
  km_document_set_current_frame (f->document, 40);
  test_app_spin ();
  motion = copy_pose (f);
  g_assert_cmpfloat (fabs (motion[dof] - 1.0), >, 0.1);
  km_document_set_dof_value (f->document, dof, 1.0);
  km_document_close_edit (f->document);
  test_app_spin ();
  g_assert_true (shows_unkeyed (f));
  edited = copy_pose (f);
  g_assert_cmpfloat_with_epsilon (edited[dof], 1.0, 1e-12);

  reopened = save_and_reopen (f, dir);
  g_assert_cmpuint (km_document_get_current_frame (reopened), ==, 40);
  g_assert_true (document_pose_is (reopened, edited, 1e-9));
  g_assert_true (km_document_get_pose_unkeyed (reopened, &frame));
  g_assert_cmpuint (frame, ==, 40);
  g_assert_false (km_document_get_modified (reopened));
  g_assert_cmpuint (test_app_count_messages (reopened, G_LOG_LEVEL_INFO, REPLACED_TEXT, NULL),
                    ==, 0);
  /* The time bar shows it unkeyed, as before the save. */
  km_time_bar_set_document (f->time_bar, reopened);
  test_app_spin ();
  g_assert_true (shows_unkeyed (f));

  /* As before the save: the next frame shows the motion, and says what it replaced. */
  km_document_set_current_frame (reopened, 41);
  test_app_spin ();
  g_assert_false (shows_unkeyed (f));
  g_assert_cmpuint (test_app_count_messages (reopened, G_LOG_LEVEL_INFO, REPLACED_TEXT, NULL),
                    ==, 1);
  km_document_set_current_frame (reopened, 40);
  test_app_spin ();
  g_assert_true (document_pose_is (reopened, motion, 1e-9));
  km_time_bar_set_document (f->time_bar, f->document);
  g_assert_true (test_app_wait_idle_solve (reopened, 20000));

  km_test_remove_tree (dir);
}

/* Saved at frame 40 with nothing unkeyed there, the project opens showing the motion at
 * frame 40, unkeyed nowhere: with no joint edit at all (@data "plain"), after a typed value
 * keyed at frame 10 ("keyed": the body's joint state is that value, which the motion
 * at 40 does not give), or after one at frame 10 that the frame change replaced
 * ("replaced"). */
static void
test_save_reopen_motion (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-unkeyed-XXXXXX");
  g_autofree double *motion = NULL;
  g_autoptr(KmDocument) reopened = NULL;

  if (g_strcmp0 (data, "plain") != 0)
    {
      km_document_set_current_frame (f->document, 10);
      test_app_spin ();
      g_free (drag (f));
      g_assert_true (shows_unkeyed (f));
      if (g_strcmp0 (data, "keyed") == 0)
        {
          g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->time_bar),
                                                     "time.set-keyframe", NULL));
          test_app_spin ();
          g_assert_true (test_app_wait_idle_solve (f->document, 20000));
        }
    }
  km_document_set_current_frame (f->document, 40);
  test_app_spin ();
  g_assert_false (shows_unkeyed (f));
  motion = copy_pose (f);

  reopened = save_and_reopen (f, dir);
  g_assert_cmpuint (km_document_get_current_frame (reopened), ==, 40);
  g_assert_true (document_pose_is (reopened, motion, 1e-9));
  g_assert_false (km_document_get_pose_unkeyed (reopened, NULL));
  g_assert_false (km_document_get_modified (reopened));
  g_assert_cmpuint (test_app_count_messages (reopened, G_LOG_LEVEL_INFO, REPLACED_TEXT, NULL),
                    ==, 0);

  km_test_remove_tree (dir);
}

/* A drag at frame 10 that the step to frame 11 replaced is gone from the saved file too:
 * the body's joint state (joint_displacements, the pose Choreonoid opens the body in) is
 * the motion's pose that replaced it, not the discarded drag. Undo and redo still bring
 * the drag back, at its frame. */
static void
test_replaced_edit_not_saved (Fixture       *f,
                              gconstpointer  data)
{
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-unkeyed-XXXXXX");
  g_autofree double *dragged = NULL;
  g_autofree double *motion = NULL;
  g_autoptr(KmDocument) reopened = NULL;
  const double *saved;
  guint n_dof, n_saved = 0;

  km_document_set_current_frame (f->document, 10);
  test_app_spin ();
  dragged = drag (f);
  g_assert_true (shows_unkeyed (f));
  km_document_set_current_frame (f->document, 11);
  test_app_spin ();
  g_assert_false (shows_unkeyed (f));
  motion = copy_pose (f);
  km_document_get_pose (f->document, &n_dof);

  reopened = save_and_reopen (f, dir);
  saved = km_body_item_get_joint_state (KM_BODY_ITEM (km_document_get_body_item (reopened)),
                                        &n_saved);
  g_assert_cmpuint (n_saved, ==, n_dof);
  for (guint i = 0; i < n_dof; i++)
    g_assert_cmpfloat_with_epsilon (saved[i], motion[i], 1e-9);
  g_assert_false (km_document_get_pose_unkeyed (reopened, NULL));

  /* The drag is still one undo step, and redo shows it again where it was made. */
  g_assert_true (km_document_undo (f->document));
  g_assert_true (km_document_redo (f->document));
  test_app_spin ();
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 10);
  g_assert_true (pose_is (f, dragged));
  g_assert_true (shows_unkeyed (f));

  km_test_remove_tree (dir);
}

/* At frame 15 (between keys), joint 1 typed 0.3 rad away from the motion's value (Return
 * in the Pose tab), not keyed; returns the motion's pose there in *@motion and the typed
 * pose. */
static double *
type_unkeyed_at_15 (KmDocument  *document,
                    double     **motion)
{
  guint n_dof;
  const double *q;
  double lower, upper, value;

  km_document_set_current_frame (document, 15);
  test_app_spin ();
  g_assert_cmpuint (km_document_get_current_frame (document), ==, 15);
  q = km_document_get_pose (document, &n_dof);
  g_assert_cmpuint (n_dof, >, 1);
  *motion = g_memdup2 (q, n_dof * sizeof (double));
  g_assert_true (km_document_get_dof_range (document, 1, &lower, &upper));
  value = q[1] + (q[1] < (lower + upper) / 2 ? 0.3 : -0.3);
  km_document_set_dof_value (document, 1, value);
  km_document_close_edit (document);
  test_app_spin ();
  g_assert_true (km_document_get_pose_unkeyed (document, NULL));
  q = km_document_get_pose (document, &n_dof);
  g_assert_cmpfloat_with_epsilon (q[1], value, 1e-12);
  return g_memdup2 (q, n_dof * sizeof (double));
}

/* What the item tree's Delete does with the body's row selected. */
static void
delete_body (KmDocument *document)
{
  g_autoptr(GPtrArray) items = g_ptr_array_new ();
  KmItem *body = km_document_get_body_item (document);

  g_assert_nonnull (body);
  g_ptr_array_add (items, body);
  km_document_remove_items (document, items);
  test_app_spin ();
  g_assert_true (km_document_get_body_item (document) != body);
}

/* Review rev23-gui finding 2: the body deleted and the delete undone comes back as it was:
 * the pose typed at frame 15 and not keyed shows again there, still unkeyed (the time bar
 * says so, a save says so, K keys it), and nothing says it was replaced; the next undo
 * takes the typed value back, visibly. */
static void
test_undo_delete_keeps_unkeyed (Fixture       *f,
                                gconstpointer  data)
{
  g_autofree double *motion = NULL;
  g_autofree double *edited = type_unkeyed_at_15 (f->document, &motion);
  KmItem *body = km_document_get_body_item (f->document);
  guint frame = G_MAXUINT;

  g_assert_true (shows_unkeyed (f));
  delete_body (f->document);
  g_assert_false (shows_unkeyed (f));

  g_assert_true (km_document_undo (f->document));
  test_app_spin ();
  g_assert_true (km_document_get_body_item (f->document) == body);
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 15);
  g_assert_true (pose_is (f, edited));
  g_assert_true (km_document_get_pose_unkeyed (f->document, &frame));
  g_assert_cmpuint (frame, ==, 15);
  g_assert_true (shows_unkeyed (f));
  g_assert_true (km_body_item_get_pose_unkeyed (KM_BODY_ITEM (body)));
  g_assert_cmpuint (replaced_messages (f), ==, 0);

  /* The next undo is the typed value's: it goes, on screen. */
  g_assert_true (km_document_undo (f->document));
  test_app_spin ();
  g_assert_true (pose_is (f, motion));
  g_assert_false (shows_unkeyed (f));
  g_assert_false (km_document_get_modified (f->document));

  /* Redone twice and the delete undone again: the same; K keys it. */
  g_assert_true (km_document_redo (f->document));
  g_assert_true (km_document_redo (f->document));
  test_app_spin ();
  g_assert_true (km_document_get_body_item (f->document) != body);
  g_assert_true (km_document_undo (f->document));
  test_app_spin ();
  g_assert_true (pose_is (f, edited));
  g_assert_true (shows_unkeyed (f));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->time_bar), "time.set-keyframe",
                                             NULL));
  test_app_spin ();
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_false (shows_unkeyed (f));
  g_assert_cmpuint (replaced_messages (f), ==, 0);
}

static gboolean
allocated (gpointer widget)
{
  return gtk_widget_get_width (widget) > 0 && gtk_widget_get_height (widget) > 0;
}

static void
assert_same_camera (const KmCamera *a,
                    const KmCamera *b)
{
  g_assert_cmpint (a->orthographic, ==, b->orthographic);
  g_assert_cmpfloat_with_epsilon (a->yaw, b->yaw, 1e-9);
  g_assert_cmpfloat_with_epsilon (a->pitch, b->pitch, 1e-9);
  g_assert_cmpfloat_with_epsilon (a->distance, b->distance, 1e-9);
  g_assert_cmpfloat_with_epsilon (a->fov_y, b->fov_y, 1e-9);
  g_assert_cmpfloat_with_epsilon (a->target.x, b->target.x, 1e-9);
  g_assert_cmpfloat_with_epsilon (a->target.y, b->target.y, 1e-9);
  g_assert_cmpfloat_with_epsilon (a->target.z, b->target.z, 1e-9);
}

/* The same in the window: deleting the body and undoing that leave the camera where it
 * was (README: the view frames a model by itself only when it is first shown), whether
 * the view framed it or the user placed it; the body comes back with its unkeyed pose. */
static void
test_undo_delete_keeps_camera (void)
{
  KmWindow *window = test_app_example_window (1100, 700);
  KmDocument *document = km_window_get_document (window);
  KmSceneView *view = KM_SCENE_VIEW (km_window_get_scene_view (window));
  g_autofree double *motion = NULL;
  g_autofree double *edited = NULL;
  KmCamera shown, placed;
  const double *q;
  guint n_dof;

  g_assert_true (test_app_wait_until (allocated, view, 10000));
  g_assert_true (test_app_wait_idle_solve (document, 20000));
  test_app_spin ();
  edited = type_unkeyed_at_15 (document, &motion);
  test_app_spin ();
  shown = *km_scene_view_get_camera (view);

  /* Framed by the view. */
  delete_body (document);
  assert_same_camera (km_scene_view_get_camera (view), &shown);
  g_assert_true (km_document_undo (document));
  test_app_spin ();
  assert_same_camera (km_scene_view_get_camera (view), &shown);
  q = km_document_get_pose (document, &n_dof);
  g_assert_true (memcmp (q, edited, n_dof * sizeof (double)) == 0);
  g_assert_true (km_document_get_pose_unkeyed (document, NULL));

  /* Placed by the user. */
  placed = shown;
  km_camera_orbit (&placed, 0.3, 0.1);
  km_camera_zoom (&placed, 0.7);
  km_scene_view_set_camera (view, &placed);
  g_assert_true (km_document_redo (document));
  test_app_spin ();
  g_assert_null (km_document_get_skeleton (document));
  assert_same_camera (km_scene_view_get_camera (view), &placed);
  g_assert_true (km_document_undo (document));
  test_app_spin ();
  assert_same_camera (km_scene_view_get_camera (view), &placed);

  g_assert_true (test_app_wait_idle_solve (document, 20000));
  km_document_set_modified (document, FALSE);
  gtk_window_destroy (GTK_WINDOW (window));
  test_app_spin ();
}

int
main (int    argc,
      char **argv)
{
  test_app_init (&argc, &argv);

  g_test_add ("/kinema/UnkeyedPose/drag-stops-playback", Fixture, NULL,
              fixture_setup, test_drag_stops_playback, fixture_teardown);
  g_test_add ("/kinema/UnkeyedPose/key-clears", Fixture, NULL,
              fixture_setup, test_key_clears, fixture_teardown);
  g_test_add ("/kinema/UnkeyedPose/redo-key-typed", Fixture, NULL,
              fixture_setup, test_redo_key_typed, fixture_teardown);
  g_test_add ("/kinema/UnkeyedPose/redo-key-dragged", Fixture, NULL,
              fixture_setup, test_redo_key_dragged, fixture_teardown);
  g_test_add ("/kinema/UnkeyedPose/undo-key-unkeys", Fixture, NULL,
              fixture_setup, test_undo_key_unkeys, fixture_teardown);
  g_test_add ("/kinema/UnkeyedPose/undo-key-solving-unkeys", Fixture, NULL,
              fixture_setup, test_undo_key_solving_unkeys, fixture_teardown);
  g_test_add ("/kinema/UnkeyedPose/undo-key-elsewhere-unkeys", Fixture, NULL,
              fixture_setup, test_undo_key_elsewhere_unkeys, fixture_teardown);
  g_test_add ("/kinema/UnkeyedPose/undo-clears", Fixture, NULL,
              fixture_setup, test_undo_clears, fixture_teardown);
  g_test_add ("/kinema/UnkeyedPose/frame-change-replaces", Fixture, NULL,
              fixture_setup, test_frame_change_replaces, fixture_teardown);
  g_test_add ("/kinema/UnkeyedPose/undo-after-frame-change", Fixture, NULL,
              fixture_setup, test_undo_after_frame_change, fixture_teardown);
  g_test_add ("/kinema/UnkeyedPose/drags-at-two-frames-are-two-steps", Fixture, NULL,
              fixture_setup, test_drags_at_two_frames_are_two_steps, fixture_teardown);
  g_test_add ("/kinema/UnkeyedPose/undo-key-keeps-file", Fixture, NULL,
              fixture_setup, test_undo_key_keeps_file, fixture_teardown);
  g_test_add ("/kinema/UnkeyedPose/save-reopen-unkeyed", Fixture, NULL,
              fixture_setup, test_save_reopen_unkeyed, fixture_teardown);
  g_test_add ("/kinema/UnkeyedPose/save-reopen-motion/plain", Fixture, "plain",
              fixture_setup, test_save_reopen_motion, fixture_teardown);
  g_test_add ("/kinema/UnkeyedPose/save-reopen-motion/keyed", Fixture, "keyed",
              fixture_setup, test_save_reopen_motion, fixture_teardown);
  g_test_add ("/kinema/UnkeyedPose/save-reopen-motion/replaced", Fixture, "replaced",
              fixture_setup, test_save_reopen_motion, fixture_teardown);
  g_test_add ("/kinema/UnkeyedPose/replaced-edit-not-saved", Fixture, NULL,
              fixture_setup, test_replaced_edit_not_saved, fixture_teardown);
  g_test_add ("/kinema/UnkeyedPose/undo-delete-keeps-unkeyed", Fixture, NULL,
              fixture_setup, test_undo_delete_keeps_unkeyed, fixture_teardown);
  g_test_add_func ("/kinema/UnkeyedPose/undo-delete-keeps-camera",
                   test_undo_delete_keeps_camera);

  return g_test_run ();
}
