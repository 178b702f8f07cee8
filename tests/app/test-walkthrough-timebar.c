/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <math.h>
#include <string.h>
#include <gtk/gtk.h>

#include "km-document.h"
#include "km-body-item.h"
#include "km-document-edit.h"
#include "km-ik-animation-item.h"
#include "km-ik.h"
#include "km-ik-job.h"
#include "km-ik-targets-item.h"
#include "km-message.h"
#include "km-project.h"
#include "km-targets-json.h"
#include "km-time-bar.h"

#include "km-test-tmp.h"
#include "test-app-util.h"

/*
 * What a user sees in the time bar, under Xvfb: the playback speed menu marks the speed the
 * time bar plays at, from the start and after a change; on a newly imported model the time
 * bar reaches past the last keyframe, so that later frames can be keyed, and undoing the
 * keyframes leaves the model as imported; a solved project saved and opened again shows
 * the marks of the session that solved it, and solving it again changes nothing.
 */

typedef struct
{
  GtkWindow  *window;
  KmDocument *document;
  KmTimeBar  *time_bar;
  char       *dir;       /* a temporary folder the test's files are in, or NULL */
} Fixture;

/* A window for a time bar alone, wide enough for its whole frame text: at its natural
 * width it leaves the label nothing to spare, and a late allocation on a loaded machine
 * showed the short form ("300 / 300") that frame_label() does not look for. */
static GtkWindow *
time_bar_window (void)
{
  GtkWindow *window = GTK_WINDOW (gtk_window_new ());

  gtk_window_set_default_size (window, 1000, -1);
  return window;
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  f->document = km_document_new ();
  g_assert_true (km_document_load_defaults (f->document, &error));
  g_assert_no_error (error);
  f->window = time_bar_window ();
  f->time_bar = KM_TIME_BAR (km_time_bar_new ());
  gtk_window_set_child (f->window, GTK_WIDGET (f->time_bar));
  km_time_bar_set_document (f->time_bar, f->document);
  gtk_window_present (f->window);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
}

/* Shows @file imported into a new document in the time bar's window, once the solve that
 * opening it may start is over. */
static void
show_imported (Fixture *f,
               GFile   *file)
{
  g_autoptr(GError) error = NULL;

  f->document = km_document_new ();
  g_assert_true (km_document_import_file (f->document, file, &error));
  g_assert_no_error (error);
  f->window = time_bar_window ();
  f->time_bar = KM_TIME_BAR (km_time_bar_new ());
  gtk_window_set_child (f->window, GTK_WIDGET (f->time_bar));
  km_time_bar_set_document (f->time_bar, f->document);
  gtk_window_present (f->window);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
}

/* An imported model without targets or motion (the KR5 URDF), as a reviewer opens it. */
static void
fixture_setup_imported (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "dart", "KR5",
                                                 "KR5 sixx R650.urdf", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);

  show_imported (f, file);
  g_assert_null (km_document_get_targets (f->document));
  g_assert_null (km_document_get_animation (f->document));
}

/* A 7-DOF arm imported without targets or motion, its zero pose outside a joint's limits
 * as the Panda's is (the iiwa of the IK benchmark, its A4 limited to 0.3…2.0942 rad): Set
 * Keyframe's solve reaches the effector's pose with other joint values than shown. */
static void
fixture_setup_redundant (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *source = g_test_build_filename (G_TEST_DIST, "data", "bench-iiwa7.json",
                                                   NULL);
  g_autofree char *text = NULL;
  g_autoptr(GString) limited = NULL;
  g_autofree char *path = NULL;
  g_autoptr(GFile) file = NULL;
  char *a4;

  g_assert_true (g_file_get_contents (source, &text, NULL, NULL));
  limited = g_string_new (text);
  a4 = strstr (limited->str, "\"joint_a4\"");
  g_assert_nonnull (a4);
  a4 = strstr (a4, "[-2.0942, 2.0942]");
  g_assert_nonnull (a4);
  memcpy (a4, "[ 0.3000, 2.0942]", strlen ("[-2.0942, 2.0942]"));
  f->dir = km_test_make_tmp_dir ("km-limited-XXXXXX");
  path = g_build_filename (f->dir, "arm.json", NULL);
  g_assert_true (g_file_set_contents (path, limited->str, limited->len, &error));
  g_assert_no_error (error);
  file = g_file_new_for_path (path);

  show_imported (f, file);
  g_assert_null (km_document_get_animation (f->document));
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

/* After a cancelled solve: its worker holds the document until it has stopped. */
static void
fixture_teardown_cancelled (Fixture       *f,
                            gconstpointer  data)
{
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  gtk_window_destroy (f->window);
  test_app_spin ();
  g_assert_true (test_app_unref_and_wait_finalized (f->document, 20000));
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

static void
activate (Fixture    *f,
          const char *action)
{
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->time_bar), action, NULL));
  test_app_spin ();
}

static const char *
frame_label (Fixture *f)
{
  const char *text = test_app_frame_label_below (GTK_WIDGET (f->time_bar));

  g_assert_nonnull (text);
  return text;
}

/* Moves the first joint by @delta, so that the next keyframe differs. */
static void
move_first_joint (Fixture *f,
                  double   delta)
{
  const double *pose = km_document_get_pose (f->document, NULL);

  km_document_set_dof_value (f->document, 0, pose[0] + delta);
  km_document_close_edit (f->document);
}

/* A new model: K at frame 0, then stepping, End and the slider reach later frames (the
 * time bar spans 10 s, or the motion and one second more), where K adds a keyframe that
 * the motion extends to; past the motion its last pose holds. The motion itself (the
 * solved animation, what animation.json holds) ends at the last keyframe. */
static void
test_keys_past_the_motion (Fixture       *f,
                           gconstpointer  data)
{
  GtkWidget *scale = test_app_find_widget (GTK_WIDGET (f->time_bar), GTK_TYPE_SCALE);
  GtkAdjustment *adjustment = gtk_range_get_adjustment (GTK_RANGE (scale));
  KmAnimation *animation;
  const double *pose;
  guint n_dof;

  g_assert_cmpfloat (km_document_get_frame_rate (f->document), ==, 30.0);
  g_assert_cmpuint (km_document_get_n_frames (f->document), ==, 1);
  g_assert_cmpuint (km_document_get_timeline_frames (f->document), ==, 301);
  g_assert_cmpfloat (gtk_adjustment_get_upper (adjustment), ==, 300.0);

  activate (f, "time.set-keyframe");
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_nonnull (km_document_get_targets (f->document));
  g_assert_cmpuint (km_document_get_n_frames (f->document), ==, 1);

  activate (f, "time.step-forward");
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 1);
  activate (f, "time.go-to-end");
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 300);
  g_assert_nonnull (strstr (frame_label (f), "300 / 300"));
  activate (f, "time.step-forward");
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 300);
  activate (f, "time.go-to-start");
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 0);
  gtk_adjustment_set_value (adjustment, 60.0);
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 60);

  /* K at frame 60 extends the motion to it and solves it. */
  move_first_joint (f, 0.4);
  activate (f, "time.set-keyframe");
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_cmpuint (km_target_track_get_n_keyframes (km_document_get_targets (f->document)), ==, 2);
  g_assert_cmpuint (km_document_get_n_frames (f->document), ==, 61);
  animation = km_document_get_animation (f->document);
  g_assert_nonnull (animation);
  g_assert_cmpuint (km_animation_get_n_frames (animation), ==, 61);
  g_assert_cmpuint (km_document_get_timeline_frames (f->document), ==, 301);
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 60);

  /* Past the motion, its last pose holds. */
  km_document_set_current_frame (f->document, 250);
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 250);
  pose = km_document_get_pose (f->document, &n_dof);
  for (guint i = 0; i < n_dof; i++)
    g_assert_cmpfloat (pose[i], ==, km_animation_get_frame (animation, 60)[i]);

  /* A keyframe at the end of the range lengthens the range by a second past it. */
  activate (f, "time.go-to-end");
  move_first_joint (f, -0.8);
  activate (f, "time.set-keyframe");
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_cmpuint (km_document_get_n_frames (f->document), ==, 301);
  g_assert_cmpuint (km_animation_get_n_frames (km_document_get_animation (f->document)), ==, 301);
  g_assert_cmpuint (km_document_get_timeline_frames (f->document), ==, 331);
  test_app_spin ();
  g_assert_cmpfloat (gtk_adjustment_get_upper (adjustment), ==, 330.0);
}

static KmItem *
body_child (Fixture *f,
            GType    type)
{
  return km_item_find_child_by_type (km_document_get_body_item (f->document), type);
}

static guint
count_solved_messages (Fixture *f)
{
  GListModel *messages = km_document_get_messages (f->document);
  guint n = 0;

  for (guint i = 0; i < g_list_model_get_n_items (messages); i++)
    {
      g_autoptr(KmMessage) message = g_list_model_get_item (messages, i);

      if (g_str_has_prefix (km_message_get_text (message), "Solved "))
        n++;
    }
  return n;
}

/* K, move the effector, K again, then undo three times: the model is as imported (no
 * targets, no animation item) and no undo started a solve; redo brings both keyframes
 * and their solved motion back without solving again. */
static void
test_undo_first_keyframe (Fixture       *f,
                          gconstpointer  data)
{
  guint n_children = km_item_get_n_children (km_document_get_body_item (f->document));
  guint solved;

  activate (f, "time.set-keyframe");
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_nonnull (body_child (f, KM_TYPE_IK_TARGETS_ITEM));
  g_assert_nonnull (body_child (f, KM_TYPE_IK_ANIMATION_ITEM));
  move_first_joint (f, 0.4);
  activate (f, "time.set-keyframe");
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  solved = count_solved_messages (f);
  g_assert_cmpuint (solved, ==, 2);

  for (guint i = 0; i < 3; i++)
    {
      g_assert_true (km_document_undo (f->document));
      g_assert_false (km_document_get_solving (f->document));
      test_app_spin ();
      g_assert_false (km_document_get_solving (f->document));
    }
  g_assert_null (body_child (f, KM_TYPE_IK_TARGETS_ITEM));
  g_assert_null (body_child (f, KM_TYPE_IK_ANIMATION_ITEM));
  g_assert_cmpuint (km_item_get_n_children (km_document_get_body_item (f->document)), ==,
                    n_children);
  g_assert_null (km_document_get_targets (f->document));
  g_assert_null (km_document_get_animation (f->document));
  g_assert_cmpuint (count_solved_messages (f), ==, solved);

  for (guint i = 0; i < 3; i++)
    {
      g_assert_true (km_document_redo (f->document));
      g_assert_false (km_document_get_solving (f->document));
    }
  g_assert_nonnull (body_child (f, KM_TYPE_IK_ANIMATION_ITEM));
  g_assert_cmpuint (km_target_track_get_n_keyframes (km_document_get_targets (f->document)), ==, 1);
  g_assert_nonnull (km_document_get_animation (f->document));
  g_assert_cmpuint (count_solved_messages (f), ==, solved);
}

/* How many IK animation items the current body has. */
static guint
count_animation_items (Fixture *f)
{
  KmItem *body = km_document_get_body_item (f->document);
  guint n = 0;

  for (guint i = 0; i < km_item_get_n_children (body); i++)
    if (KM_IS_IK_ANIMATION_ITEM (km_item_get_child (body, i)))
      n++;
  return n;
}

/* The shown animation is a solve of the shown targets: as long as they are, and the same
 * motion of the end effector as a synchronous solve of them (the arm may reach a target
 * in another configuration, depending on the pose the solve starts from). */
static void
assert_animation_solves_targets (Fixture *f)
{
  KmTargetTrack *targets = km_document_get_targets (f->document);
  KmAnimation *animation = km_document_get_animation (f->document);
  KmSkeleton *skeleton = km_document_get_skeleton (f->document);
  int effector = km_document_get_effector (f->document);
  g_autoptr(KmIkProblem) problem = NULL;
  g_autoptr(KmAnimation) expected = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree KmTransform *world = g_new0 (KmTransform, km_skeleton_get_n_joints (skeleton));
  g_autofree KmTransform *world_expected = g_new0 (KmTransform, km_skeleton_get_n_joints (skeleton));
  const double *seed;
  guint n_dof = km_skeleton_get_n_dof (skeleton);
  guint n = 0;

  g_assert_nonnull (targets);
  g_assert_nonnull (animation);
  g_assert_cmpuint (km_animation_get_n_frames (animation), ==,
                    km_target_track_get_last_frame (targets) + 1);

  problem = km_ik_problem_new (skeleton, effector);
  seed = km_body_item_get_joint_state (KM_BODY_ITEM (km_document_get_body_item (f->document)), &n);
  if (seed != NULL && n == n_dof)
    memcpy (problem->seed, seed, n_dof * sizeof (double));
  expected = km_ik_solve_track (problem, targets, 0, km_target_track_get_last_frame (targets),
                                NULL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (km_animation_get_n_frames (expected), ==, km_animation_get_n_frames (animation));
  for (guint frame = 0; frame < km_animation_get_n_frames (animation); frame++)
    {
      km_skeleton_forward_kinematics (skeleton, km_animation_get_frame (animation, frame), NULL,
                                      world);
      km_skeleton_forward_kinematics (skeleton, km_animation_get_frame (expected, frame), NULL,
                                      world_expected);
      g_assert_cmpfloat_with_epsilon (world[effector].pos.x, world_expected[effector].pos.x, 1e-4);
      g_assert_cmpfloat_with_epsilon (world[effector].pos.y, world_expected[effector].pos.y, 1e-4);
      g_assert_cmpfloat_with_epsilon (world[effector].pos.z, world_expected[effector].pos.z, 1e-4);
    }
}

/* A reviewer's Panda: K on a model without motion, its solve done, then Ctrl+Z: the pose
 * shown before K comes back (not the solver's, which reaches the effector's pose another
 * way on a redundant arm), and the next joint edit starts from it. */
static void
test_undo_key_restores_pose (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree double *before = NULL;
  const double *pose;
  guint n_dof = 0;
  double differs = 0;

  pose = km_document_get_pose (f->document, &n_dof);
  g_assert_cmpuint (n_dof, ==, 7);
  before = g_memdup2 (pose, n_dof * sizeof (double));
  g_assert_false (km_document_get_pose_unkeyed (f->document, NULL));

  activate (f, "time.set-keyframe");
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_nonnull (km_document_get_animation (f->document));
  pose = km_document_get_pose (f->document, NULL);
  for (guint i = 0; i < n_dof; i++)
    differs = MAX (differs, fabs (pose[i] - before[i]));
  g_test_message ("the solve moved a joint by %g rad", differs);
  /* (What makes the test: the solver's pose is not the one keyed.) */
  g_assert_cmpfloat (differs, >, 1e-6);

  g_assert_true (km_document_undo (f->document));
  test_app_spin ();
  g_assert_null (km_document_get_targets (f->document));
  g_assert_null (km_document_get_animation (f->document));
  pose = km_document_get_pose (f->document, NULL);
  for (guint i = 0; i < n_dof; i++)
    g_assert_cmpfloat (pose[i], ==, before[i]);
  g_assert_false (km_document_get_pose_unkeyed (f->document, NULL));

  /* The next edit starts from it: joint 0 moved, the others as before K. */
  km_document_set_dof_value (f->document, 0, before[0] + 0.1);
  km_document_close_edit (f->document);
  pose = km_document_get_pose (f->document, NULL);
  for (guint i = 1; i < n_dof; i++)
    g_assert_cmpfloat (pose[i], ==, before[i]);
}

/* Keys frame 0 then frame 30 (a second keyframe), without running the main loop in
 * between: the first keyframe's solve never finishes. */
static void
key_twice_quickly (Fixture *f)
{
  g_assert_true (km_document_set_keyframe (f->document, 0));
  g_assert_true (km_document_get_solving (f->document));
  move_first_joint (f, 0.4);
  g_assert_true (km_document_set_keyframe (f->document, 30));
  g_assert_cmpuint (km_target_track_get_n_keyframes (km_document_get_targets (f->document)), ==, 2);
}

/* Undoing onto a keyframe whose solve never finished (the next keyframe cancelled it)
 * solves it: its targets never show without their motion. Redo and undo again leave one
 * animation item, and undoing everything leaves the model as imported. */
static void
test_undo_onto_unsolved_keyframe (Fixture       *f,
                                  gconstpointer  data)
{
  guint n_children = km_item_get_n_children (km_document_get_body_item (f->document));

  key_twice_quickly (f);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  assert_animation_solves_targets (f);

  g_assert_true (km_document_undo (f->document));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_cmpuint (km_target_track_get_n_keyframes (km_document_get_targets (f->document)), ==, 1);
  assert_animation_solves_targets (f);
  g_assert_cmpuint (count_animation_items (f), ==, 1);

  g_assert_true (km_document_redo (f->document));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_cmpuint (km_target_track_get_n_keyframes (km_document_get_targets (f->document)), ==, 2);
  assert_animation_solves_targets (f);
  g_assert_cmpuint (count_animation_items (f), ==, 1);

  /* Undo onto it again: its motion is back without another solve. */
  g_assert_true (km_document_undo (f->document));
  g_assert_false (km_document_get_solving (f->document));
  assert_animation_solves_targets (f);

  g_assert_true (km_document_undo (f->document));   /* the joint edit */
  g_assert_true (km_document_undo (f->document));   /* the first keyframe */
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_null (body_child (f, KM_TYPE_IK_TARGETS_ITEM));
  g_assert_null (body_child (f, KM_TYPE_IK_ANIMATION_ITEM));
  g_assert_cmpuint (km_item_get_n_children (km_document_get_body_item (f->document)), ==,
                    n_children);
  g_assert_null (km_document_get_animation (f->document));
}

/* The same after a cancelled solve: undoing onto a keyframe whose solve the user stopped
 * solves it again. */
static void
test_undo_onto_cancelled_keyframe (Fixture       *f,
                                   gconstpointer  data)
{
  g_assert_true (km_document_set_keyframe (f->document, 0));
  km_document_cancel_solve (f->document);
  test_app_spin ();
  move_first_joint (f, 0.4);
  g_assert_true (km_document_set_keyframe (f->document, 30));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));

  g_assert_true (km_document_undo (f->document));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  assert_animation_solves_targets (f);
  g_assert_cmpuint (count_animation_items (f), ==, 1);
}

/* Two keyframes, undo both, redo both, none of their solves finished meanwhile: once the
 * main loop is idle, one animation item holds the solve of the final targets. Also when
 * the first keyframe's solve finishes between the redos. */
static void
test_undo_redo_both_before_solves (Fixture       *f,
                                   gconstpointer  data)
{
  gboolean wait_between = GPOINTER_TO_INT (data);

  key_twice_quickly (f);
  if (wait_between)
    g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  for (guint i = 0; i < 3; i++)
    g_assert_true (km_document_undo (f->document));
  g_assert_null (km_document_get_targets (f->document));
  for (guint i = 0; i < 3; i++)
    {
      g_assert_true (km_document_redo (f->document));
      if (wait_between && i == 0)
        g_assert_true (test_app_wait_idle_solve (f->document, 20000));
    }
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  test_app_spin ();
  g_assert_cmpuint (km_target_track_get_n_keyframes (km_document_get_targets (f->document)), ==, 2);
  g_assert_cmpuint (count_animation_items (f), ==, 1);
  assert_animation_solves_targets (f);
}

/* Choreonoid's SR1, as a reviewer opens it: its default end effector keyed at frames 0
 * and 20 where it stands, and at frame 10 far out of reach, so that the frames around 10
 * miss their target. */
static void
fixture_setup_sr1 (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "choreonoid",
                                                 "SR1.body", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  const guint frames[] = { 0, 20, 10 };
  g_autofree gboolean *moving = NULL;
  const KmTransform *world;
  guint n_dof;
  int effector;

  show_imported (f, file);

  effector = km_document_get_effector (f->document);
  g_assert_cmpint (effector, >=, 0);
  /* The chain bent off its limits (SR1 stands with its knees straight, at a limit), so
   * that the reachable frames carry no limit mark. */
  n_dof = km_skeleton_get_n_dof (km_document_get_skeleton (f->document));
  moving = g_new0 (gboolean, n_dof);
  km_document_get_solved_dofs (f->document, moving);
  for (guint dof = 0; dof < n_dof; dof++)
    {
      double lower, upper;

      if (moving[dof] && km_document_get_dof_range (f->document, dof, &lower, &upper))
        km_document_set_dof_value (f->document, dof,
                                   isfinite (lower) && isfinite (upper) ? (lower + upper) / 2
                                                                        : 0.2);
    }
  km_document_close_edit (f->document);
  world = km_document_get_joint_world (f->document, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (frames); i++)
    {
      KmTargetKeyframe key;

      key.frame = frames[i];
      key.position = world[effector].pos;
      if (frames[i] == 10)
        key.position.z += 5.0;
      key.orientation = km_mat3_to_quat (&world[effector].rot);
      g_assert_true (km_document_put_keyframe (f->document, &key));
      g_assert_true (test_app_wait_idle_solve (f->document, 30000));
      world = km_document_get_joint_world (f->document, NULL);
    }
}

/* The time bar's marks of every frame of the motion. */
static GByteArray *
frame_marks (Fixture *f)
{
  GByteArray *marks = g_byte_array_new ();
  KmAnimation *animation = km_document_get_animation (f->document);

  g_assert_nonnull (animation);
  for (guint i = 0; i < km_animation_get_n_frames (animation); i++)
    {
      guint8 mark = km_time_bar_get_frame_marks (f->time_bar, i);

      g_byte_array_append (marks, &mark, 1);
    }
  return marks;
}

typedef struct
{
  Fixture    *f;
  GByteArray *expected;
} MarksWait;

static gboolean
marks_are (gpointer data)
{
  MarksWait *wait = data;
  g_autoptr(GByteArray) marks = NULL;

  if (km_document_get_solving (wait->f->document)
      || km_document_get_animation (wait->f->document) == NULL)
    return FALSE;
  marks = frame_marks (wait->f);
  return marks->len == wait->expected->len
         && memcmp (marks->data, wait->expected->data, marks->len) == 0;
}

/* Waits until the time bar marks @expected (residuals come from a worker), then asserts
 * it frame by frame (naming the first frame that differs). */
static void
assert_marks (Fixture    *f,
              GByteArray *expected)
{
  MarksWait wait = { f, expected };
  g_autoptr(GByteArray) marks = NULL;

  test_app_wait_until (marks_are, &wait, 10000);
  marks = frame_marks (f);
  g_assert_cmpuint (marks->len, ==, expected->len);
  for (guint i = 0; i < marks->len; i++)
    {
      if (marks->data[i] != expected->data[i])
        g_test_message ("frame %u: marks %u, expected %u", i, marks->data[i], expected->data[i]);
      g_assert_cmpuint (marks->data[i], ==, expected->data[i]);
    }
}

static guint
count_marked (GByteArray     *marks,
              KmTimeBarMarks  mark)
{
  guint n = 0;

  for (guint i = 0; i < marks->len; i++)
    if (marks->data[i] & mark)
      n++;
  return n;
}

/* Whether a DOF the solve does not move sits on one of its limits all along the motion
 * (SR1's elbows and knees at 0, one end of their range), which the session's limit marks
 * ignore. */
static gboolean
unmoved_dof_on_limit (Fixture *f)
{
  KmAnimation *animation = km_document_get_animation (f->document);
  guint n_dof = km_animation_get_n_dof (animation);
  g_autofree gboolean *moving = g_new0 (gboolean, n_dof);

  km_document_get_solved_dofs (f->document, moving);
  for (guint dof = 0; dof < n_dof; dof++)
    {
      double lower, upper, q = km_animation_get_frame (animation, 0)[dof];

      if (!moving[dof] && km_document_get_dof_range (f->document, dof, &lower, &upper)
          && (fabs (q - lower) < 1e-9 || fabs (q - upper) < 1e-9))
        return TRUE;
    }
  return FALSE;
}

/* Solve, save, reopen: the time bar marks what it marked in the session that solved and
 * saved the motion, though its residuals are not saved: the frames that miss their target
 * red (measured again), and limit marks only for the joints the solve moves (SR1 holds
 * joints the solve never moves at one end of their range). Then Solve on the project just
 * opened gives the same motion: no undo step, nothing unsaved, the same marks; a solve
 * that changes the motion (from a pose edited off the chain) still is a step. Messages
 * says how many frames miss their target once they are measured, as the solve did, and
 * only then: not again for the same motion shown again (solved again, undone back to). */
static void
test_reopen_keeps_marks (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = km_test_make_tmp_dir ("km-marks-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "sr1.cnoid", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GByteArray) session = frame_marks (f);
  g_autoptr(KmAnimation) opened = NULL;
  g_autofree char *missed = NULL;
  KmAnimation *solved;
  double value = 0.0;
  guint n_dof, n_missed;
  int unmoved = -1;

  n_missed = count_marked (session, KM_TIME_BAR_MARK_MISSED);
  missed = g_strdup_printf (n_missed == 1
                            ? "The solved motion has %u frames; %u does not reach its target "
                              "(largest position error "
                            : "The solved motion has %u frames; %u do not reach their target "
                              "(largest position error ", session->len, n_missed);
  g_assert_cmpuint (test_app_count_messages (f->document, 0, "The solved motion", NULL), ==, 0);
  g_assert_cmpuint (count_marked (session, KM_TIME_BAR_MARK_MISSED), >, 0);
  g_assert_cmpuint (count_marked (session, KM_TIME_BAR_MARK_MISSED), <, session->len);
  g_assert_cmpuint (count_marked (session, KM_TIME_BAR_MARK_AT_LIMIT), <, session->len);
  g_assert_true (unmoved_dof_on_limit (f));

  g_assert_true (km_document_save (f->document, file, &error));
  g_assert_no_error (error);
  g_assert_true (km_document_import_file (f->document, file, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_true (km_document_get_animation_solved (f->document));
  assert_marks (f, session);
  /* (logged before the time bar heard of the residuals) */
  g_assert_cmpuint (test_app_count_messages (f->document, G_LOG_LEVEL_WARNING, missed, NULL),
                    ==, 1);
  g_assert_true (unmoved_dof_on_limit (f));
  g_assert_false (km_document_get_modified (f->document));
  g_assert_false (km_document_can_undo (f->document));

  /* Solve again: the same motion, within the solver's tolerance. */
  opened = km_animation_ref (km_document_get_animation (f->document));
  km_document_solve (f->document);
  g_assert_true (test_app_wait_idle_solve (f->document, 30000));
  g_assert_false (km_document_get_modified (f->document));
  g_assert_false (km_document_can_undo (f->document));
  g_assert_true (km_document_get_animation (f->document) == opened);
  assert_marks (f, session);

  /* A joint the solve does not move, edited: the next solve keeps it there, a new motion. */
  n_dof = km_animation_get_n_dof (opened);
  {
    g_autofree gboolean *moving = g_new0 (gboolean, n_dof);

    km_document_get_solved_dofs (f->document, moving);
    for (guint dof = 0; dof < n_dof && unmoved < 0; dof++)
      {
        double lower, upper;

        if (!moving[dof] && km_document_get_dof_range (f->document, dof, &lower, &upper)
            && upper - lower > 0.5)
          {
            unmoved = (int) dof;
            value = km_animation_get_frame (opened, 0)[dof];
            value += value + 0.3 <= upper ? 0.3 : -0.3;
          }
      }
  }
  g_assert_cmpint (unmoved, >=, 0);
  km_document_set_dof_value (f->document, unmoved, value);
  km_document_close_edit (f->document);
  g_assert_true (km_document_save (f->document, file, &error));
  g_assert_no_error (error);
  g_assert_false (km_document_get_modified (f->document));
  km_document_solve (f->document);
  g_assert_true (test_app_wait_idle_solve (f->document, 30000));
  solved = km_document_get_animation (f->document);
  g_assert_true (solved != opened);
  g_assert_false (km_animation_equal (solved, opened, 1e-3));
  g_assert_true (km_document_get_modified (f->document));
  g_assert_cmpstr (km_project_get_undo_label (km_document_get_project (f->document)), ==,
                   "Solve");
  g_assert_true (km_document_undo (f->document));
  g_assert_true (km_document_get_animation (f->document) == opened);
  g_assert_false (km_document_get_modified (f->document));
  assert_marks (f, session);
  g_assert_cmpuint (test_app_count_messages (f->document, 0, "The solved motion", NULL), ==, 1);

  km_test_remove_tree (dir);
}

/* A keyframe moved onto another's frame replaces it, as one undo step, and Messages says
 * which was replaced and how to get it back (a drop that silently lost a key was
 * rev17-gui finding 2). The built-in example has keyframes at 0, 80, 160 and 240. */
static void
test_move_onto_keyframe_says_so (Fixture       *f,
                                 gconstpointer  data)
{
  KmTargetTrack *targets = km_document_get_targets (f->document);
  KmTargetKeyframe moved, replaced;
  guint n0 = km_target_track_get_n_keyframes (targets);

  g_assert_cmpint (km_target_track_find_keyframe (targets, 80), >=, 0);
  g_assert_cmpint (km_target_track_find_keyframe (targets, 160), >=, 0);
  moved = *km_target_track_get_keyframe (targets, (guint) km_target_track_find_keyframe (targets, 80));
  replaced = *km_target_track_get_keyframe (targets,
                                            (guint) km_target_track_find_keyframe (targets, 160));

  /* Onto a free frame: no word about replacing. */
  g_assert_true (km_document_move_keyframe (f->document, 80, 90));
  g_assert_cmpuint (test_app_count_messages (f->document, 0, "replaced", NULL), ==, 0);
  g_assert_true (km_document_undo (f->document));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));

  g_assert_true (km_document_move_keyframe (f->document, 80, 160));
  targets = km_document_get_targets (f->document);
  g_assert_cmpuint (km_target_track_get_n_keyframes (targets), ==, n0 - 1);
  g_assert_cmpint (km_target_track_find_keyframe (targets, 80), <, 0);
  g_assert_cmpfloat (km_target_track_get_keyframe (
                       targets, (guint) km_target_track_find_keyframe (targets, 160))->position.y,
                     ==, moved.position.y);
  g_assert_true (test_app_has_message (f->document, G_LOG_LEVEL_WARNING,
                                       "The keyframe at frame 160 was replaced by the one "
                                       "moved from frame 80 (Ctrl+Z brings it back).", NULL));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));

  /* One undo step brings both back. */
  g_assert_true (km_document_undo (f->document));
  targets = km_document_get_targets (f->document);
  g_assert_cmpuint (km_target_track_get_n_keyframes (targets), ==, n0);
  g_assert_cmpint (km_target_track_find_keyframe (targets, 80), >=, 0);
  g_assert_cmpfloat (km_target_track_get_keyframe (
                       targets, (guint) km_target_track_find_keyframe (targets, 160))->position.y,
                     ==, replaced.position.y);
}

/* rev17-gui's 3-joint arm: j1 about z, j2 and j3 about y, with no length past j3. */
static const char arm_urdf[] =
  "<?xml version=\"1.0\"?>\n"
  "<robot name=\"arm\">\n"
  "  <link name=\"base\"/>\n"
  "  <link name=\"l1\"/>\n"
  "  <link name=\"l2\"/>\n"
  "  <link name=\"tip\"/>\n"
  "  <joint name=\"j1\" type=\"revolute\"><parent link=\"base\"/><child link=\"l1\"/>"
  "<origin xyz=\"0 0 0.05\"/><axis xyz=\"0 0 1\"/>"
  "<limit lower=\"-3\" upper=\"3\" effort=\"5\" velocity=\"2\"/></joint>\n"
  "  <joint name=\"j2\" type=\"revolute\"><parent link=\"l1\"/><child link=\"l2\"/>"
  "<origin xyz=\"0 0 0.3\"/><axis xyz=\"0 1 0\"/>"
  "<limit lower=\"-2\" upper=\"2\" effort=\"5\" velocity=\"2\"/></joint>\n"
  "  <joint name=\"j3\" type=\"continuous\"><parent link=\"l2\"/><child link=\"tip\"/>"
  "<origin xyz=\"0 0 0.3\"/><axis xyz=\"0 1 0\"/></joint>\n"
  "</robot>\n";

/* The arm, written into a temporary folder and opened into a new document: no targets, no
 * motion. */
static void
fixture_setup_arm (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  g_autoptr(GFile) file = NULL;

  f->dir = km_test_make_tmp_dir ("km-arm-XXXXXX");
  path = g_build_filename (f->dir, "arm.urdf", NULL);
  file = g_file_new_for_path (path);
  g_assert_true (g_file_set_contents (path, arm_urdf, -1, &error));
  g_assert_no_error (error);
  show_imported (f, file);
  g_assert_null (km_document_get_animation (f->document));
}

static void
fixture_teardown_arm (Fixture       *f,
                      gconstpointer  data)
{
  fixture_teardown (f, data);
  km_test_remove_tree (f->dir);
  g_free (f->dir);
}

/* Sets the arm's j1 and j2 (degrees) and j3 = 0, as typed in the Pose tab. */
static void
pose_arm (Fixture *f,
          double   j1,
          double   j2)
{
  km_document_set_dof_value (f->document, 0, j1 * G_PI / 180.0);
  km_document_set_dof_value (f->document, 1, j2 * G_PI / 180.0);
  km_document_set_dof_value (f->document, 2, 0.0);
  km_document_close_edit (f->document);
}

static gboolean
frame_300_missed (gpointer data)
{
  Fixture *f = data;

  return km_time_bar_get_frame_marks (f->time_bar, 300) & KM_TIME_BAR_MARK_MISSED;
}

/* rev17-gui finding 3: the arm keyed with K at frame 0 and at 300 comes to 300 on the
 * mirror branch, 180° off the keyed pose, which a pose meets. Messages names the keyframe,
 * and the time bar marks it missed (the 3-DOF chain is not held to orientation, so its
 * residuals alone mark nothing there); frame 0, met, is not marked. Saved and opened again,
 * the motion is checked again: the same mark, the same line once more. */
static void
test_missed_keyframe_says_so (Fixture       *f,
                              gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *project = g_build_filename (f->dir, "arm.cnoid", NULL);
  g_autoptr(GFile) project_file = g_file_new_for_path (project);
  const char *line = "The keyframe at frame 300 can be met, but the motion reaches it ";
  const KmAnimationKeyMiss *miss;
  KmAnimation *animation;

  g_assert_cmpuint (km_document_get_timeline_frames (f->document), ==, 301);

  pose_arm (f, 30.0, 45.0);
  activate (f, "time.set-keyframe");
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  activate (f, "time.go-to-end");
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 300);
  pose_arm (f, -90.0, -60.0);
  activate (f, "time.set-keyframe");
  g_assert_true (test_app_wait_idle_solve (f->document, 30000));

  animation = km_document_get_animation (f->document);
  g_assert_nonnull (animation);
  g_assert_cmpuint (km_animation_get_n_frames (animation), ==, 301);
  miss = km_animation_find_missed_key (animation, 300);
  g_assert_nonnull (miss);
  g_assert_cmpfloat (miss->rot_err, >, 3.0);
  g_assert_null (km_animation_find_missed_key (animation, 0));
  g_assert_cmpuint (test_app_count_messages (f->document, G_LOG_LEVEL_WARNING, line,
                                             "° off (position ", " mm off): to stay continuous",
                                             NULL), ==, 1);
  g_assert_cmpuint (test_app_count_messages (f->document, 0, "The keyframe at frame 0 ", NULL),
                    ==, 0);
  test_app_spin ();
  g_assert_true (km_time_bar_get_frame_marks (f->time_bar, 300) & KM_TIME_BAR_MARK_MISSED);
  g_assert_false (km_time_bar_get_frame_marks (f->time_bar, 0) & KM_TIME_BAR_MARK_MISSED);

  /* Reopened: measured and checked again on the worker, said once more. */
  g_assert_true (km_document_save (f->document, project_file, &error));
  g_assert_no_error (error);
  g_assert_true (km_document_import_file (f->document, project_file, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_true (km_document_get_animation_solved (f->document));
  g_assert_true (test_app_wait_until (frame_300_missed, f, 20000));
  g_assert_false (km_time_bar_get_frame_marks (f->time_bar, 0) & KM_TIME_BAR_MARK_MISSED);
  g_assert_true (km_animation_get_keys_checked (km_document_get_animation (f->document)));
  g_assert_cmpuint (test_app_count_messages (f->document, G_LOG_LEVEL_WARNING, line, NULL),
                    ==, 2);
}

/* A UR5 (bench-ur5.json) opened into a new document: no targets, no motion. */
static void
fixture_setup_ur5 (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "bench-ur5.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);

  show_imported (f, file);
  g_assert_null (km_document_get_animation (f->document));
}

/* Sets the UR5's joints (degrees), as typed in the Pose tab. */
static void
pose_ur5 (Fixture      *f,
          const double  deg[6])
{
  for (guint d = 0; d < 6; d++)
    km_document_set_dof_value (f->document, d, deg[d] * G_PI / 180.0);
  km_document_close_edit (f->document);
}

/* A reviewer exported a UR5 motion whose step from frame 0 to 1 was 0.33 rad (9.5 rad/s at
 * 30 fps), with no mark and no message. Keyed with K at frame 0 at its wrist singularity
 * (wrist_2 = 0, the elbow at 45°), which frame 0 keeps exactly, and at frame 60 a little
 * further on, the wrist turns at frame 1: the time bar marks that frame (a purple bar along
 * the top of the strip, drawn there) and no other, and Messages names it once. */
static void
test_jump_says_so (Fixture       *f,
                   gconstpointer  data)
{
  static const double seed[6] = { 0, 0, 45, 0, 0, 0 };
  static const double away[6] = { 5, 5, 50, 5, 5, 5 };
  GtkWidget *strip = km_time_bar_get_strip (f->time_bar);
  g_autofree guint8 *pixels = NULL;
  KmAnimation *animation;
  double x, y, sx, sy;
  int width, height, column;
  guint n_purple = 0;

  pose_ur5 (f, seed);
  activate (f, "time.set-keyframe");
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  km_document_set_current_frame (f->document, 60);
  pose_ur5 (f, away);
  activate (f, "time.set-keyframe");
  g_assert_true (test_app_wait_idle_solve (f->document, 30000));

  animation = km_document_get_animation (f->document);
  g_assert_nonnull (animation);
  g_assert_cmpuint (km_animation_get_n_frames (animation), ==, 61);
  g_test_message ("frame 0→1: %g rad", km_animation_get_step (animation, 1, NULL));
  g_assert_true (km_animation_get_jumped (animation, 1));
  test_app_spin ();
  g_assert_true (km_time_bar_get_frame_marks (f->time_bar, 1) & KM_TIME_BAR_MARK_JUMPED);
  for (guint frame = 0; frame <= 60; frame++)
    if (frame != 1)
      g_assert_false (km_time_bar_get_frame_marks (f->time_bar, frame) & KM_TIME_BAR_MARK_JUMPED);
  g_assert_cmpuint (test_app_count_messages (f->document, G_LOG_LEVEL_WARNING,
                                             "The motion jumps at frame 1 (a joint moves ",
                                             " rad in one frame)", NULL), ==, 1);

  /* Drawn: purple at the top of frame 1's column, and at no frame of the motion's end. */
  test_app_spin_for (100);
  pixels = test_app_render_widget (strip, &width, &height);
  g_assert_true (km_time_bar_get_keyframe_point (f->time_bar, 1, &x, &y));
  g_assert_true (gtk_widget_translate_coordinates (GTK_WIDGET (f->time_bar), strip, x, y,
                                                   &sx, &sy));
  for (column = (int) sx - 6; column <= (int) sx + 6; column++)
    {
      const guint8 *p = pixels + (gsize) CLAMP (column, 0, width - 1) * 4;

      n_purple += abs (p[2] - 0x91) <= 2 && abs (p[1] - 0x41) <= 2 && abs (p[0] - 0xac) <= 2;
    }
  g_assert_cmpuint (n_purple, >=, 3);
  g_assert_true (km_time_bar_get_keyframe_point (f->time_bar, 60, &x, &y));
  g_assert_true (gtk_widget_translate_coordinates (GTK_WIDGET (f->time_bar), strip, x, y,
                                                   &sx, &sy));
  for (column = (int) sx - 6; column <= (int) sx + 6; column++)
    {
      const guint8 *p = pixels + (gsize) CLAMP (column, 0, width - 1) * 4;

      g_assert_false (abs (p[2] - 0x91) <= 2 && abs (p[1] - 0x41) <= 2
                      && abs (p[0] - 0xac) <= 2);
    }
}

static gboolean
streaming (gpointer data)
{
  Fixture *f = data;
  KmAnimation *animation = km_document_get_animation (f->document);
  double pos_err;

  return animation != NULL && km_animation_get_residual (animation, 0, &pos_err, NULL);
}

/* The time bar's Cancel of a running solve says in Messages how many frames were solved
 * and what shows now (the motion of before: the frames solved are dropped); a solve that
 * a newer edit supersedes says nothing. */
static void
test_cancel_solve_says_so (Fixture       *f,
                           gconstpointer  data)
{
  KmTargetTrack *targets = km_document_get_targets (f->document);
  KmAnimation *before = km_document_get_animation (f->document);
  KmTargetKeyframe far = *km_target_track_get_keyframe (targets, 0);
  g_autofree char *total = NULL;

  g_assert_nonnull (before);
  far.frame = 1000000;
  g_assert_true (km_document_put_keyframe (f->document, &far));
  g_assert_true (km_document_get_solving (f->document));
  g_assert_true (test_app_wait_until (streaming, f, 20000));
  g_assert_true (km_document_get_solving (f->document));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->time_bar), "time.cancel-solve",
                                             NULL));
  g_assert_false (km_document_get_solving (f->document));
  g_assert_true (km_document_get_animation (f->document) == before);
  total = g_strdup_printf (" of %u frames; the motion shown is the one from before the solve",
                           far.frame + 1);
  g_assert_cmpuint (test_app_count_messages (f->document, G_LOG_LEVEL_WARNING,
                                             "Solve cancelled after ", total, NULL), ==, 1);
  g_assert_cmpuint (test_app_count_messages (f->document, 0, "Solve cancelled after 0 of", NULL),
                    ==, 0);

  /* Superseded by an edit: no such line. */
  g_assert_true (km_document_undo (f->document));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_cmpuint (test_app_count_messages (f->document, 0, "Solve cancelled", NULL), ==, 1);
}

/* Solving, the progress shown, and no frame handed over yet. */
static gboolean
progress_without_frames (gpointer data)
{
  Fixture *f = data;
  KmAnimation *animation = km_document_get_animation (f->document);

  return !km_document_get_solving (f->document)
         || (animation != NULL && km_animation_get_residual (animation, 0, NULL, NULL))
         || km_document_get_solve_progress (f->document) >= 0.05;
}

/* Review finding (rev23b-gui 1): a motion of a few thousand frames is held back until it is
 * whole (a search may still change its frames) while the time bar's progress follows the
 * frames tracked. Cancelled half way, Messages said "after 0 of … frames" under a bar half
 * full: it says the progress the bar showed and that no frame was final yet. */
static void
test_cancel_held_back_solve_says_progress (Fixture       *f,
                                           gconstpointer  data)
{
  KmTargetTrack *targets = km_document_get_targets (f->document);
  KmAnimation *animation;
  KmTargetKeyframe far = *km_target_track_get_keyframe (targets, 0);
  g_autofree char *total = NULL;
  int percent;

  /* Out of reach: every frame is slow (restarts), and none is final before the end. */
  far.frame = 4000;
  far.position.x += 50.0;
  g_assert_true (km_document_put_keyframe (f->document, &far));
  g_assert_true (km_document_get_solving (f->document));
  g_assert_true (test_app_wait_until (progress_without_frames, f, 60000));
  animation = km_document_get_animation (f->document);
  if (!km_document_get_solving (f->document)
      || (animation != NULL && km_animation_get_residual (animation, 0, NULL, NULL)))
    {
      g_test_skip ("the solve ended or handed frames over before it could be cancelled");
      return;
    }
  percent = (int) floor (km_document_get_solve_progress (f->document) * 100.0);
  g_assert_cmpint (percent, >=, 5);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->time_bar), "time.cancel-solve",
                                             NULL));
  g_assert_false (km_document_get_solving (f->document));
  total = g_strdup_printf ("Solve cancelled at %d %% with 0 of %u frames final (the solver "
                           "holds frames back", percent, far.frame + 1);
  g_assert_cmpuint (test_app_count_messages (f->document, G_LOG_LEVEL_WARNING, total, NULL),
                    ==, 1);
  g_assert_cmpuint (test_app_count_messages (f->document, 0, "after 0 of", NULL), ==, 0);
}

/* The iiwa7 benchmark chain (an SRS arm) with the first @n_frames of the benchmark's warm
 * targets (../shared/bench/targets/iiwa7-warm.json, one frame a line), or FALSE with the
 * test skipped when the shared folder is not there. */
static gboolean
setup_iiwa_solve (Fixture *f,
                  guint    n_frames)
{
  g_autofree char *chain = g_test_build_filename (G_TEST_DIST, "data", "bench-iiwa7.json",
                                                  NULL);
  g_autoptr(GFile) chain_file = g_file_new_for_path (chain);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmTargetTrack) track = NULL;
  g_autofree KmTargetKeyframe *keys = g_new0 (KmTargetKeyframe, n_frames);
  g_autofree KmTransform *world = NULL;
  g_autofree double *lower = NULL;
  g_autofree double *upper = NULL;
  g_autofree double *q = NULL;
  KmSkeleton *skeleton;
  guint n_dof;
  int effector;

  f->document = km_document_new ();
  g_assert_true (km_document_import_file (f->document, chain_file, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));

  /* A smooth motion within the limits, as the bench's warm files are made: each joint
   * c + a sin (w k + phi), a = 0.45 of its range, under 0.02 rad a frame; its forward
   * kinematics are the targets. */
  skeleton = km_document_get_skeleton (f->document);
  n_dof = km_skeleton_get_n_dof (skeleton);
  effector = km_skeleton_get_default_effector (skeleton);
  g_assert_cmpint (effector, >=, 0);
  lower = g_new (double, n_dof);
  upper = g_new (double, n_dof);
  q = g_new (double, n_dof);
  world = g_new (KmTransform, km_skeleton_get_n_joints (skeleton));
  km_skeleton_get_dof_limits (skeleton, lower, upper);
  for (guint k = 0; k < n_frames; k++)
    {
      for (guint d = 0; d < n_dof; d++)
        {
          double a = 0.45 * (upper[d] - lower[d]);

          q[d] = 0.5 * (lower[d] + upper[d])
                 + a * sin ((0.015 / a) * (1.0 + 0.13 * d) * k + 0.7 * d);
        }
      km_skeleton_forward_kinematics (skeleton, q, NULL, world);
      keys[k].frame = k;
      keys[k].position = world[effector].pos;
      keys[k].orientation = km_mat3_to_quat (&world[effector].rot);
    }
  track = km_target_track_new (keys, n_frames, NULL, 30.0, &error);
  g_assert_no_error (error);
  km_document_set_targets (f->document, track);

  f->window = time_bar_window ();
  f->time_bar = KM_TIME_BAR (km_time_bar_new ());
  gtk_window_set_child (f->window, GTK_WIDGET (f->time_bar));
  km_time_bar_set_document (f->time_bar, f->document);
  gtk_window_present (f->window);
  return TRUE;
}

static gboolean
srs_frames_came (gpointer data)
{
  Fixture *f = data;
  KmAnimation *animation = km_document_get_animation (f->document);

  return !km_document_get_solving (f->document)
         || (animation != NULL && km_animation_get_residual (animation, 0, NULL, NULL));
}

/* Review finding 4, revisited: an SRS arm's solve streams its plain track as it solves
 * (km_ik_solve_trajectory_stream(); where the routed motion wins it is revised at the end).
 * Cancelled once frames have come, Messages says how many, as for any arm, and nothing
 * says the motion is handed over only once it is whole. */
static void
test_cancel_srs_solve_says_frames (Fixture       *f,
                                   gconstpointer  data)
{
  if (!setup_iiwa_solve (f, 6000))
    return;
  g_assert_true (km_document_get_solving (f->document));
  g_assert_true (test_app_wait_until (srs_frames_came, f, 60000));
  if (!km_document_get_solving (f->document))
    {
      g_test_skip ("the solve ended before it could be cancelled");
      return;
    }
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->time_bar), "time.cancel-solve",
                                             NULL));
  g_assert_false (km_document_get_solving (f->document));
  /* ("after N of 6000 frames", or "at P % with N of 6000 frames final" where the progress
   * shown ran ahead of the frames that came) */
  g_assert_cmpuint (test_app_count_messages (f->document, G_LOG_LEVEL_WARNING,
                                             "Solve cancelled ", " of 6000 frames", NULL), ==, 1);
  g_assert_cmpuint (test_app_count_messages (f->document, 0, " 0 of 6000", NULL), ==, 0);
  g_assert_cmpuint (test_app_count_messages (f->document, 0, "only once it is whole", NULL),
                    ==, 0);
}

static void
fixture_setup_none (Fixture       *f,
                    gconstpointer  data)
{
}

static void
fixture_teardown_srs (Fixture       *f,
                      gconstpointer  data)
{
  if (f->document != NULL)
    fixture_teardown_cancelled (f, data);
  if (f->dir != NULL)
    km_test_remove_tree (f->dir);
  g_free (f->dir);
}

/* The iiwa7 benchmark chain (tests/data/bench-iiwa7.json: 7 DOF, redundant) imported into a
 * new document, with a time bar: no targets, no motion. */
static void
fixture_setup_iiwa (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *chain = g_test_build_filename (G_TEST_DIST, "data", "bench-iiwa7.json",
                                                  NULL);
  g_autoptr(GFile) chain_file = g_file_new_for_path (chain);

  show_imported (f, chain_file);
  g_assert_null (km_document_get_animation (f->document));
}

/* Shows @q (the arm's 7 joint values) at the current frame, as a drag would, and keys it
 * there (K), then waits for the solve. */
static void
key_iiwa_pose (Fixture      *f,
               const double *q)
{
  km_document_set_joint_values (f->document, q, 7);
  km_document_close_edit (f->document);
  activate (f, "time.set-keyframe");
  g_assert_true (test_app_wait_idle_solve (f->document, 30000));
}

/* Review finding: the solve started from the pose shown, so K at a late frame seeded frame 0
 * with that frame's pose, and a redundant arm's whole motion changed (frame 0 of an
 * iiwa-like arm turned by 66°). Keyed at 0 and 60, then at 60 the elbow swung about the
 * shoulder-wrist line (the same end effector pose) and keyed again: frame 0 keeps its
 * joint values, and frame 60 still meets its key. */
static void
test_late_key_keeps_start (Fixture       *f,
                           gconstpointer  data)
{
  const double start_pose[7] = { 0.3, 0.6, 0.2, -1.2, 0.1, 0.8, 0.0 };
  const double late_pose[7] = { -0.5, 0.9, -0.3, -0.9, 0.4, 0.6, 0.2 };
  KmSkeleton *skeleton = km_document_get_skeleton (f->document);
  int effector = km_document_get_effector (f->document);
  g_autoptr(KmIkProblem) problem = NULL;
  g_autoptr(KmIkSolution) swung = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree double *before = NULL;
  const KmTransform *world;
  KmAnimation *animation;
  const double *shown;
  double pos_err, moved = 0.0, largest = 0.0;
  guint n_dof = 0;

  g_assert_cmpuint (km_skeleton_get_n_dof (skeleton), ==, 7);
  g_assert_cmpint (effector, >=, 0);
  key_iiwa_pose (f, start_pose);
  km_document_set_current_frame (f->document, 60);
  key_iiwa_pose (f, late_pose);
  animation = km_document_get_animation (f->document);
  g_assert_nonnull (animation);
  g_assert_cmpuint (km_animation_get_n_frames (animation), ==, 61);
  before = g_memdup2 (km_animation_get_frame (animation, 0), 7 * sizeof (double));

  /* The same end effector pose at frame 60, the elbow elsewhere: what IK finds from a seed
   * with the upper arm turned (joint a3) and the shoulder swung back. */
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 60);
  shown = km_document_get_pose (f->document, &n_dof);
  g_assert_cmpuint (n_dof, ==, 7);
  world = km_document_get_joint_world (f->document, NULL);
  problem = km_ik_problem_new (skeleton, effector);
  km_ik_problem_set_target (problem, world[effector].pos, &world[effector].rot);
  memcpy (problem->seed, shown, 7 * sizeof (double));
  problem->seed[0] += 0.9;
  problem->seed[2] -= 1.6;
  swung = km_ik_solution_new (7);
  g_assert_true (km_ik_solve (problem, swung, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (swung->converged);
  for (guint i = 0; i < 7; i++)
    moved = MAX (moved, fabs (swung->q[i] - shown[i]));
  g_assert_cmpfloat (moved, >, 0.5);
  key_iiwa_pose (f, swung->q);

  animation = km_document_get_animation (f->document);
  g_assert_nonnull (animation);
  g_assert_cmpuint (km_animation_get_n_frames (animation), ==, 61);
  for (guint i = 0; i < 7; i++)
    largest = MAX (largest, fabs (km_animation_get_frame (animation, 0)[i] - before[i]));
  g_test_message ("frame 0 moved by %g rad at most", largest);
  g_assert_cmpfloat (largest, <, 1e-3);
  g_assert_true (km_animation_get_residual (animation, 60, &pos_err, NULL));
  g_assert_cmpfloat (pos_err, <, 1e-4);
}

#define TRIPLE_0   "\"euler\": [1.5, 2.5, 3.5]"
#define TRIPLE_80  "\"euler\": [53.630839129292724, 144.32417703022418, -139.24585272486803]"
#define TRIPLE_160 "\"euler\": [10.5, -20.25, 30.125]"
#define TRIPLE_240 "\"euler\": [-5.75, 7.125, 90.5]"

/* The number of times @wanted is in the targets' text as they are written now. */
static guint
count_written (Fixture    *f,
               const char *wanted)
{
  g_autofree char *text = km_targets_json_to_string (km_document_get_targets (f->document));
  guint n = 0;

  for (const char *p = strstr (text, wanted); p != NULL; p = strstr (p + 1, wanted))
    n++;
  return n;
}

/* The document's targets read again from a targets.json whose keyframes at @frames (the
 * current ones' positions) carry the euler @triples, solved. Returns the track read. */
static KmTargetTrack *
set_targets_with_triples (Fixture            *f,
                          const guint        *frames,
                          const char * const *triples,
                          guint               n)
{
  KmTargetTrack *targets = km_document_get_targets (f->document);
  g_autoptr(GString) text = g_string_new ("[");
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  KmTargetTrack *read;

  for (guint i = 0; i < n; i++)
    {
      int index = km_target_track_find_keyframe (targets, frames[i]);
      const KmTargetKeyframe *k;

      g_assert_cmpint (index, >=, 0);
      k = km_target_track_get_keyframe (targets, (guint) index);
      g_string_append_printf (text, "%s{\"frame\": %u, \"pos\": [%.17g, %.17g, %.17g], %s}",
                              i > 0 ? ",\n" : "", frames[i], k->position.x, k->position.y,
                              k->position.z, triples[i]);
    }
  g_string_append (text, "]\n");
  bytes = g_bytes_new (text->str, text->len);
  read = km_targets_json_load ("targets.json", bytes, &error);
  g_assert_no_error (error);
  km_document_close_edit (f->document);
  km_document_set_targets (f->document, read);
  km_document_close_edit (f->document);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  return read;
}

/* Keyframes read with euler triples keep them through the editor's edits that leave their
 * rotations as they are: one dragged to another frame on the time bar, one given another
 * position, a copy pasted; an edit that turns one writes it from its new rotation. */
static void
test_edits_keep_euler (Fixture       *f,
                       gconstpointer  data)
{
  KmTargetTrack *targets = km_document_get_targets (f->document);
  static const guint frames[] = { 0, 80, 160, 240 };
  static const char *triples[] = { TRIPLE_0, TRIPLE_80, TRIPLE_160, TRIPLE_240 };
  g_autoptr(KmTargetTrack) read = NULL;
  KmTargetKeyframe key;
  KmVec3 degrees;
  int index;

  read = set_targets_with_triples (f, frames, triples, G_N_ELEMENTS (frames));
  for (guint i = 0; i < G_N_ELEMENTS (triples); i++)
    g_assert_cmpuint (count_written (f, triples[i]), ==, 1);

  /* Dragged from frame 80 to 90 (the time bar's drag). */
  g_assert_true (km_document_move_keyframe (f->document, 80, 90));
  targets = km_document_get_targets (f->document);
  index = km_target_track_find_keyframe (targets, 90);
  g_assert_cmpint (index, >=, 0);
  g_assert_true (km_target_track_get_euler (targets, (guint) index, &degrees));
  g_assert_cmpfloat (degrees.x, ==, 53.630839129292724);
  g_assert_cmpuint (count_written (f, TRIPLE_80), ==, 1);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));

  /* Another position, the same rotation. */
  key = *km_target_track_get_keyframe (targets,
                                       (guint) km_target_track_find_keyframe (targets, 160));
  key.position.x += 0.01;
  g_assert_true (km_document_put_keyframe (f->document, &key));
  g_assert_cmpuint (count_written (f, TRIPLE_160), ==, 1);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));

  /* A copy pasted at another frame: its rotation and so its triple. */
  targets = km_document_get_targets (f->document);
  key = *km_target_track_get_keyframe (targets,
                                       (guint) km_target_track_find_keyframe (targets, 240));
  key.frame = 200;
  g_assert_true (km_document_put_keyframe (f->document, &key));
  g_assert_cmpuint (count_written (f, TRIPLE_240), ==, 2);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));

  /* Turned: written from its new rotation. */
  targets = km_document_get_targets (f->document);
  key = *km_target_track_get_keyframe (targets, (guint) km_target_track_find_keyframe (targets, 0));
  key.orientation = km_quat_from_axis_angle (km_vec3 (0, 0, 1), 0.25);
  g_assert_true (km_document_put_keyframe (f->document, &key));
  g_assert_cmpuint (count_written (f, TRIPLE_0), ==, 0);
  g_assert_cmpuint (count_written (f, TRIPLE_80), ==, 1);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));

  /* Undone back to the targets as read. */
  for (guint i = 0; i < 4; i++)
    g_assert_true (km_document_undo (f->document));
  g_assert_true (km_document_get_targets (f->document) == read);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
}

/* K (Set Keyframe) at a keyframe read with an euler triple, the pose there still its: the
 * solved pose's rotation is not the keyframe's bit for bit, yet the keyframe keeps its
 * rotation and its triple (here one a whole turn round, which no rotation gives back). A
 * pose turned since is keyed from its own rotation. */
static void
test_key_pose_keeps_euler (Fixture       *f,
                           gconstpointer  data)
{
  KmTargetTrack *targets = km_document_get_targets (f->document);
  static const guint frames[] = { 0, 80, 160, 240 };
  const char *triples[] = { TRIPLE_0, NULL, TRIPLE_160, TRIPLE_240 };
  g_autoptr(KmTargetTrack) read = NULL;
  g_autofree char *triple_80 = NULL;
  const KmTransform *world;
  KmQuat before, posed;
  KmVec3 degrees, turned;
  double q[64];
  guint n_dof;
  int effector, index;

  /* The triple of the rotation the motion has at frame 80, X a whole turn on. */
  effector = km_document_get_effector (f->document);
  g_assert_cmpint (effector, >=, 0);
  km_document_set_current_frame (f->document, 80);
  world = km_document_get_joint_world (f->document, NULL);
  g_assert_nonnull (world);
  turned = km_quat_to_euler_xyz (km_mat3_to_quat (&world[effector].rot));
  turned = km_vec3 (turned.x * 180.0 / G_PI + 360.0, turned.y * 180.0 / G_PI,
                    turned.z * 180.0 / G_PI);
  triple_80 = g_strdup_printf ("\"euler\": [%.17g, %.17g, %.17g]", turned.x, turned.y,
                               turned.z);
  triples[1] = triple_80;
  read = set_targets_with_triples (f, frames, triples, G_N_ELEMENTS (frames));
  g_assert_true (km_target_track_get_euler (read, 1, &degrees));
  g_assert_cmpfloat (degrees.x, ==, turned.x);

  /* The solved pose at frame 80, keyed again with K. */
  km_document_set_current_frame (f->document, 80);
  world = km_document_get_joint_world (f->document, NULL);
  before = km_target_track_get_keyframe (read, (guint) km_target_track_find_keyframe (read, 80))
             ->orientation;
  posed = km_mat3_to_quat (&world[effector].rot);
  g_test_message ("solved rotation off the keyframe's by %g rad",
                  km_quat_angle_between (before, posed));
  g_assert_cmpfloat (km_quat_angle_between (before, posed), <=, 1e-9);
  g_assert_true (km_document_set_keyframe (f->document, 80));
  targets = km_document_get_targets (f->document);
  g_assert_true (targets != read);
  index = km_target_track_find_keyframe (targets, 80);
  g_assert_cmpint (index, >=, 0);
  g_assert_true (km_target_track_get_euler (targets, (guint) index, &degrees));
  g_assert_cmpfloat (degrees.x, ==, turned.x);
  g_assert_cmpfloat (degrees.y, ==, turned.y);
  g_assert_cmpfloat (degrees.z, ==, turned.z);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));

  /* The pose turned (its first DOF), then keyed: its own rotation, no triple. */
  km_document_set_current_frame (f->document, 80);
  n_dof = km_skeleton_get_n_dof (km_document_get_skeleton (f->document));
  g_assert_cmpuint (n_dof, <=, G_N_ELEMENTS (q));
  memcpy (q, km_document_get_pose (f->document, NULL), n_dof * sizeof (double));
  q[0] += 0.2;
  km_document_set_joint_values (f->document, q, n_dof);
  g_assert_true (km_document_set_keyframe (f->document, 80));
  targets = km_document_get_targets (f->document);
  index = km_target_track_find_keyframe (targets, 80);
  g_assert_false (km_target_track_get_euler (targets, (guint) index, &degrees));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
}

/* The built-in example (keyframes 0 to 240 at 30 frames a second) saved and opened again
 * with a TimeBar range of @min_time to @max_time seconds, as Choreonoid saves one. */
static void
open_with_time_bar (Fixture    *f,
                    const char *dir,
                    double      min_time,
                    double      max_time)
{
  g_autofree char *path = g_build_filename (dir, "range.cnoid", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *with_bar = NULL;
  char min_text[G_ASCII_DTOSTR_BUF_SIZE], max_text[G_ASCII_DTOSTR_BUF_SIZE];

  g_assert_cmpfloat (km_document_get_frame_rate (f->document), ==, 30.0);
  g_assert_cmpuint (km_document_get_n_frames (f->document), ==, 241);
  g_assert_true (km_document_save (f->document, file, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  g_assert_no_error (error);
  g_assert_null (strstr (text, "toolbars:"));
  with_bar = g_strdup_printf ("%s%s"
                              "toolbars:\n"
                              "  \"TimeBar\":\n"
                              "    current_time: 0\n"
                              "    min_time: %s\n"
                              "    max_time: %s\n"
                              "    frame_rate: 30\n"
                              "    playback_frame_rate: 60\n"
                              "    playback_speed_ratio: 1\n",
                              text, g_str_has_suffix (text, "\n") ? "" : "\n",
                              g_ascii_dtostr (min_text, sizeof min_text, min_time),
                              g_ascii_dtostr (max_text, sizeof max_text, max_time));
  g_assert_true (g_file_set_contents (path, with_bar, -1, &error));
  g_assert_no_error (error);
  g_assert_true (km_document_import_file (f->document, file, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_cmpuint (km_document_get_n_frames (f->document), ==, 241);
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 0);
}

static void
record_frame_cb (KmDocument *document,
                 GParamSpec *pspec,
                 GArray     *frames)
{
  guint frame = km_document_get_current_frame (document);

  g_array_append_val (frames, frame);
}

/* Whether the frames played went back (a loop). */
static gboolean
looped (gpointer data)
{
  GArray *frames = data;

  for (guint i = 1; i < frames->len; i++)
    if (g_array_index (frames, guint, i) < g_array_index (frames, guint, i - 1))
      return TRUE;
  return FALSE;
}

static gboolean
stopped (gpointer data)
{
  return !km_time_bar_get_playing (KM_TIME_BAR (data));
}

/* Plays from the current frame until playback loops (@loop) or stops, recording each frame
 * shown into @frames. */
static void
play_recording (Fixture  *f,
                gboolean  loop,
                GArray   *frames)
{
  gulong handler;

  g_array_set_size (frames, 0);
  handler = g_signal_connect (f->document, "notify::current-frame",
                              G_CALLBACK (record_frame_cb), frames);
  km_time_bar_set_loop (f->time_bar, loop);
  km_time_bar_set_speed (f->time_bar, 4.0);
  activate (f, "time.toggle-playback");
  g_assert_true (km_time_bar_get_playing (f->time_bar));
  g_assert_true (test_app_wait_until (loop ? looped : stopped, loop ? (gpointer) frames
                                                                    : (gpointer) f->time_bar,
                                      30000));
  km_time_bar_set_playing (f->time_bar, FALSE);
  g_signal_handler_disconnect (f->document, handler);
  g_assert_cmpuint (frames->len, >, 0);
}

/* A project whose saved TimeBar range (min_time 2 s, max_time 12 s: frames 60 to 360)
 * spans more than its motion (frames 0 to 240) plays that range, as Choreonoid does: from
 * its start (the time bar sat at 0, before it), on past the motion's end (its last pose
 * holding there), looping back to the range's start, not to 0; without Loop it stops at
 * the range's end. Play from a frame inside the range past the motion's end plays on from
 * there (it started at 0), and Home and End go to the range's ends. */
static void
test_play_saved_range (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *dir = km_test_make_tmp_dir ("km-play-range-XXXXXX");
  g_autoptr(GArray) frames = g_array_new (FALSE, FALSE, sizeof (guint));
  KmAnimation *animation;
  gboolean past_motion = FALSE;

  open_with_time_bar (f, dir, 2.0, 12.0);
  g_assert_cmpuint (km_document_get_timeline_frames (f->document), ==, 361);
  animation = km_document_get_animation (f->document);
  g_assert_nonnull (animation);

  play_recording (f, TRUE, frames);
  g_assert_cmpuint (g_array_index (frames, guint, 0), ==, 60);
  for (guint i = 0; i < frames->len; i++)
    {
      guint frame = g_array_index (frames, guint, i);

      g_assert_cmpuint (frame, >=, 60);
      g_assert_cmpuint (frame, <=, 360);
      past_motion = past_motion || frame > 240;
    }
  g_assert_true (past_motion);

  /* Without Loop: from the range's start (Home) to its end, where it stops. */
  km_document_set_current_frame (f->document, 30);
  activate (f, "time.go-to-start");
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 60);
  play_recording (f, FALSE, frames);
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 360);
  g_assert_cmpuint (g_array_index (frames, guint, 0), >, 60);
  for (guint i = 1; i < frames->len; i++)
    g_assert_cmpuint (g_array_index (frames, guint, i), >, g_array_index (frames, guint, i - 1));
  /* Past the motion its last pose holds. */
  {
    guint n_dof;
    const double *pose = km_document_get_pose (f->document, &n_dof);

    for (guint i = 0; i < n_dof; i++)
      g_assert_cmpfloat (pose[i], ==, km_animation_get_frame (animation, 240)[i]);
  }

  /* From inside the range, past the motion: on from there. */
  km_document_set_current_frame (f->document, 300);
  play_recording (f, FALSE, frames);
  g_assert_cmpuint (g_array_index (frames, guint, 0), >, 300);
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 360);

  activate (f, "time.go-to-start");
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 60);
  activate (f, "time.go-to-end");
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 360);

  km_test_remove_tree (dir);
}

/* Play from past the end of a project's saved range (min_time 2 s, max_time 9 s: frames 60
 * to 270, within a time bar that spans 10 s) starts at the range's start (it started at 0),
 * and End goes to the range's end, not the time bar's. */
static void
test_play_past_saved_range (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *dir = km_test_make_tmp_dir ("km-play-range-XXXXXX");
  g_autoptr(GArray) frames = g_array_new (FALSE, FALSE, sizeof (guint));

  open_with_time_bar (f, dir, 2.0, 9.0);
  g_assert_cmpuint (km_document_get_timeline_frames (f->document), ==, 301);

  km_document_set_current_frame (f->document, 285);
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 285);
  play_recording (f, FALSE, frames);
  g_assert_cmpuint (g_array_index (frames, guint, 0), ==, 60);
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 270);

  activate (f, "time.go-to-end");
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 270);

  km_test_remove_tree (dir);
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
  g_test_add ("/kinema/Walkthrough/timebar/keys-past-the-motion", Fixture, NULL,
              fixture_setup_imported, test_keys_past_the_motion, fixture_teardown);
  g_test_add ("/kinema/Walkthrough/timebar/undo-first-keyframe", Fixture, NULL,
              fixture_setup_imported, test_undo_first_keyframe, fixture_teardown);
  g_test_add ("/kinema/Walkthrough/timebar/undo-key-restores-pose", Fixture, NULL,
              fixture_setup_redundant, test_undo_key_restores_pose, fixture_teardown_srs);
  g_test_add ("/kinema/Walkthrough/timebar/undo-onto-unsolved-keyframe", Fixture, NULL,
              fixture_setup_imported, test_undo_onto_unsolved_keyframe, fixture_teardown);
  g_test_add ("/kinema/Walkthrough/timebar/undo-onto-cancelled-keyframe", Fixture, NULL,
              fixture_setup_imported, test_undo_onto_cancelled_keyframe, fixture_teardown);
  g_test_add ("/kinema/Walkthrough/timebar/undo-redo-both-before-solves", Fixture,
              GINT_TO_POINTER (FALSE), fixture_setup_imported,
              test_undo_redo_both_before_solves, fixture_teardown);
  g_test_add ("/kinema/Walkthrough/timebar/undo-redo-both-first-solved-between", Fixture,
              GINT_TO_POINTER (TRUE), fixture_setup_imported,
              test_undo_redo_both_before_solves, fixture_teardown);
  g_test_add ("/kinema/Walkthrough/timebar/jump-says-so", Fixture, NULL, fixture_setup_ur5,
              test_jump_says_so, fixture_teardown);
  g_test_add ("/kinema/Walkthrough/timebar/missed-keyframe-says-so", Fixture, NULL,
              fixture_setup_arm, test_missed_keyframe_says_so, fixture_teardown_arm);
  g_test_add ("/kinema/Walkthrough/timebar/reopen-keeps-marks", Fixture, NULL,
              fixture_setup_sr1, test_reopen_keeps_marks, fixture_teardown);
  g_test_add ("/kinema/Walkthrough/timebar/move-onto-keyframe-says-so", Fixture, NULL,
              fixture_setup, test_move_onto_keyframe_says_so, fixture_teardown);
  g_test_add ("/kinema/Walkthrough/timebar/edits-keep-euler", Fixture, NULL,
              fixture_setup, test_edits_keep_euler, fixture_teardown);
  g_test_add ("/kinema/Walkthrough/timebar/key-pose-keeps-euler", Fixture, NULL,
              fixture_setup, test_key_pose_keeps_euler, fixture_teardown);
  g_test_add ("/kinema/Walkthrough/timebar/cancel-solve-says-so", Fixture, NULL,
              fixture_setup, test_cancel_solve_says_so, fixture_teardown_cancelled);
  g_test_add ("/kinema/Walkthrough/timebar/cancel-held-back-solve-says-progress", Fixture, NULL,
              fixture_setup, test_cancel_held_back_solve_says_progress,
              fixture_teardown_cancelled);
  g_test_add ("/kinema/Walkthrough/timebar/cancel-srs-solve-says-frames", Fixture, NULL,
              fixture_setup_none, test_cancel_srs_solve_says_frames, fixture_teardown_srs);
  g_test_add ("/kinema/Walkthrough/timebar/late-key-keeps-start", Fixture, NULL,
              fixture_setup_iiwa, test_late_key_keeps_start, fixture_teardown_srs);
  g_test_add ("/kinema/Walkthrough/timebar/play-saved-range", Fixture, NULL,
              fixture_setup, test_play_saved_range, fixture_teardown);
  g_test_add ("/kinema/Walkthrough/timebar/play-past-saved-range", Fixture, NULL,
              fixture_setup, test_play_past_saved_range, fixture_teardown);
  return g_test_run ();
}
