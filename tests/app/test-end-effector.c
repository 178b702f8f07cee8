/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <gtk/gtk.h>

#include "km-document-edit.h"
#include "km-item-row.h"
#include "km-item-tree.h"
#include "km-joint-inspector.h"
#include "km-window.h"

#include "test-app-util.h"

/*
 * Choosing the end effector of the IK targets in the editor, under Xvfb: "Use as End
 * Effector" on a joint (the item tree's joint rows, tree.use-as-effector; the Skeleton
 * panel's joint tree, skeleton.use-as-effector) makes the targets name that joint, as one
 * undo step, and solves again. A model opened without targets whose last leaf is a linked
 * (mimic) finger starts with the hand the fingers hang from as its end effector.
 */

typedef struct
{
  KmWindow   *window;
  KmDocument *document;
  GtkWidget  *tree;
  GtkWidget  *inspector;
} Fixture;

static void
open_data_file (Fixture    *f,
                const char *name)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", name, NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);

  g_assert_true (test_app_open_file (f->window, file));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  test_app_spin ();
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  f->window = km_window_new (NULL);
  gtk_window_set_default_size (GTK_WINDOW (f->window), 1000, 700);
  f->document = km_window_get_document (f->window);
  f->tree = km_window_get_item_tree (f->window);
  f->inspector = test_app_find_widget (GTK_WIDGET (f->window), KM_TYPE_JOINT_INSPECTOR);
  g_assert_nonnull (f->inspector);
  gtk_window_present (GTK_WINDOW (f->window));
  test_app_spin ();
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  km_document_set_modified (f->document, FALSE);
  test_app_destroy_window (&f->window, &f->document);
}

static int
find (Fixture    *f,
      const char *name)
{
  int joint = km_skeleton_find_joint (km_document_get_skeleton (f->document), name);

  g_assert_cmpint (joint, >=, 0);
  return joint;
}

static const char *
effector_name (Fixture *f)
{
  int effector = km_document_get_effector (f->document);

  g_assert_cmpint (effector, >=, 0);
  return km_skeleton_get_joint (km_document_get_skeleton (f->document), (guint) effector)->name;
}

static gboolean
inspector_action_enabled (Fixture    *f,
                          const char *name)
{
  GActionGroup *actions = km_joint_inspector_get_actions (KM_JOINT_INSPECTOR (f->inspector));

  return g_action_group_get_action_enabled (actions, name);
}

/* The last leaf of urdf-arm-gripper.urdf is finger_joint2, which follows finger_joint1:
 * without targets, the end effector is the hand they hang from, which the first keyframe
 * then names. Targets that name no effector keep the last leaf (the spec's rule). */
static void
test_default_avoids_follower (Fixture       *f,
                              gconstpointer  data)
{
  KmTargetKeyframe keyframe = { .frame = 0, .orientation = { 1, 0, 0, 0 } };
  g_autoptr(KmTargetTrack) unnamed = NULL;

  open_data_file (f, "urdf-arm-gripper.urdf");
  g_assert_null (km_document_get_targets (f->document));
  g_assert_cmpstr (effector_name (f), ==, "hand_joint");

  keyframe.position = km_vec3 (0.1, 0.0, 0.8);
  g_assert_true (km_document_put_keyframe (f->document, &keyframe));
  g_assert_cmpstr (km_target_track_get_effector (km_document_get_targets (f->document)), ==,
                   "hand_joint");
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));

  unnamed = km_target_track_new (&keyframe, 1, NULL, 30.0, NULL);
  km_document_set_targets (f->document, unnamed);
  g_assert_cmpstr (effector_name (f), ==, "finger_joint2");
}

/* The item tree's joint row: Use as End Effector names the joint on the (new) targets;
 * undo takes it back, redo again. Not for the root, nor for the effector named already. */
static void
test_tree_action (Fixture       *f,
                  gconstpointer  data)
{
  open_data_file (f, "urdf-arm-gripper.urdf");
  km_document_set_selected_joint (f->document, find (f, "joint2"));
  test_app_spin ();
  g_assert_true (gtk_widget_activate_action (f->tree, "tree.use-as-effector", NULL));
  test_app_spin ();
  g_assert_cmpstr (effector_name (f), ==, "joint2");
  g_assert_nonnull (km_document_get_targets (f->document));
  g_assert_cmpstr (km_target_track_get_effector (km_document_get_targets (f->document)), ==,
                   "joint2");

  g_assert_true (km_document_undo (f->document));
  g_assert_null (km_document_get_targets (f->document));
  g_assert_cmpstr (effector_name (f), ==, "hand_joint");
  g_assert_true (km_document_redo (f->document));
  g_assert_cmpstr (effector_name (f), ==, "joint2");

  /* Again: nothing to change, no step. The root: no effector. */
  gtk_widget_activate_action (f->tree, "tree.use-as-effector", NULL);
  g_assert_false (km_document_can_redo (f->document));
  g_assert_true (km_document_undo (f->document));
  g_assert_false (km_document_can_undo (f->document));
  g_assert_true (km_document_redo (f->document));
  g_assert_false (km_document_can_set_effector (f->document, find (f, "joint2")));
  km_document_set_selected_joint (f->document, 0);
  test_app_spin ();
  gtk_widget_activate_action (f->tree, "tree.use-as-effector", NULL);
  g_assert_cmpstr (effector_name (f), ==, "joint2");
  g_assert_false (km_document_set_effector (f->document, 0));
}

/* The Skeleton panel on the example (targets keyed for EndEffector, solved): Piston
 * becomes the effector, the keyframes stay, the motion is solved again for it. */
static void
test_inspector_action (Fixture       *f,
                       gconstpointer  data)
{
  KmTargetTrack *before;
  guint n_keyframes;

  g_assert_true (km_window_open_example (f->window));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  test_app_spin ();
  before = km_document_get_targets (f->document);
  g_assert_nonnull (before);
  n_keyframes = km_target_track_get_n_keyframes (before);
  g_assert_cmpstr (effector_name (f), ==, "EndEffector");

  km_document_set_selected_joint (f->document, find (f, "Piston"));
  test_app_spin ();
  g_assert_true (inspector_action_enabled (f, "use-as-effector"));
  g_assert_true (gtk_widget_activate_action (f->inspector, "skeleton.use-as-effector", NULL));
  g_assert_cmpstr (effector_name (f), ==, "Piston");
  g_assert_cmpuint (km_target_track_get_n_keyframes (km_document_get_targets (f->document)),
                    ==, n_keyframes);
  g_assert_true (km_document_get_solving (f->document));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_true (km_document_get_animation_solved (f->document));
  g_assert_true (km_document_can_undo (f->document));
  g_assert_false (inspector_action_enabled (f, "use-as-effector"));

  g_assert_true (km_document_undo (f->document));
  g_assert_cmpstr (effector_name (f), ==, "EndEffector");
  g_assert_true (inspector_action_enabled (f, "use-as-effector"));
}

/* The GtkTreeExpander of the item tree's row of @joint, or NULL (not made: scrolled away). */
static GtkWidget *
joint_row_widget (GtkWidget *widget,
                  int        joint)
{
  if (GTK_IS_TREE_EXPANDER (widget))
    {
      GtkTreeListRow *row = gtk_tree_expander_get_list_row (GTK_TREE_EXPANDER (widget));
      g_autoptr(GObject) item = row != NULL ? gtk_tree_list_row_get_item (row) : NULL;

      if (KM_IS_ITEM_ROW (item) && km_item_row_get_joint (KM_ITEM_ROW (item)) == joint)
        return widget;
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = joint_row_widget (child, joint);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The shown, sensitive menu entry labelled @label (mnemonic left out) below @widget. */
static GtkWidget *
menu_entry (GtkWidget  *widget,
            const char *label)
{
  if (g_strcmp0 (G_OBJECT_TYPE_NAME (widget), "GtkModelButton") == 0
      && gtk_widget_get_mapped (widget))
    {
      g_autofree char *text = NULL;
      g_autoptr(GString) plain = NULL;

      g_object_get (widget, "text", &text, NULL);
      plain = g_string_new (text);
      g_string_replace (plain, "_", "", 0);
      if (g_strcmp0 (plain->str, label) == 0 && gtk_widget_is_sensitive (widget))
        return widget;
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = menu_entry (child, label);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static GtkWidget *menu_wanted_in;

static gboolean
menu_entry_shown (gpointer data)
{
  return menu_entry (menu_wanted_in, data) != NULL;
}

/* A right click on a joint's row in the item tree selects the joint and offers Use as End
 * Effector (joint rows had no context menu); choosing it makes the joint the effector. */
static void
test_joint_row_menu (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  GtkWidget *row, *entry;
  int joint2;

  if (!test_app_real_input_or_skip (GTK_WIDGET (f->window)))
    return;
  open_data_file (f, "urdf-arm-gripper.urdf");
  joint2 = find (f, "joint2");
  /* (Its row shown: the rows above it expanded, scrolled to.) */
  km_document_set_selected_joint (f->document, joint2);
  test_app_spin_for (300);
  km_document_set_selected_joint (f->document, find (f, "joint1"));
  test_app_spin_for (100);
  row = joint_row_widget (f->tree, joint2);
  g_assert_nonnull (row);

  test_app_add_pointer_move (args, row);
  g_ptr_array_add (args, g_strdup ("click"));
  g_ptr_array_add (args, g_strdup ("3"));
  test_app_xdotool (GTK_WIDGET (f->window), args);
  menu_wanted_in = f->tree;
  g_assert_true (test_app_wait_until (menu_entry_shown, (gpointer) "Use as End Effector", 5000));
  g_assert_cmpint (km_document_get_selected_joint (f->document), ==, joint2);
  g_assert_null (menu_entry (f->tree, "Duplicate"));

  /* (Clicked: the popover is a surface of its own, which xdotool's window coordinates
   * would miss.) */
  entry = menu_entry (f->tree, "Use as End Effector");
  g_signal_emit_by_name (entry, "clicked");
  test_app_spin_for (100);
  g_assert_cmpstr (effector_name (f), ==, "joint2");
}

/* A copy of the pose shown (its DOF count in @n_dof). */
static double *
copy_pose (Fixture *f,
           guint   *n_dof)
{
  const double *q = km_document_get_pose (f->document, n_dof);

  return g_memdup2 (q, *n_dof * sizeof (double));
}

/* The pose shown is @q (@n_dof values), each within @tolerance (0: bit for bit). */
static void
assert_pose (Fixture      *f,
             const double *q,
             guint         n_dof,
             double        tolerance)
{
  guint n = 0;
  const double *shown = km_document_get_pose (f->document, &n);

  g_assert_cmpuint (n, ==, n_dof);
  for (guint i = 0; i < n_dof; i++)
    if (tolerance == 0.0)
      g_assert_cmpfloat (shown[i], ==, q[i]);
    else
      g_assert_cmpfloat_with_epsilon (shown[i], q[i], tolerance);
}

/* SR1 opened without targets, its right ankle the effector by default, joint LARM_WRIST_R's
 * row selected: the effector's world position and a copy of the pose shown. */
static double *
open_sr1_wrist_selected (Fixture *f,
                         int     *joint,
                         KmVec3  *wrist,
                         guint   *n_dof)
{
  open_data_file (f, "choreonoid/SR1.body");
  g_assert_null (km_document_get_targets (f->document));
  g_assert_false (km_document_get_modified (f->document));
  *joint = find (f, "LARM_WRIST_R");
  g_assert_cmpint (km_document_get_effector (f->document), !=, *joint);
  *wrist = km_document_get_joint_world (f->document, NULL)[*joint].pos;
  km_document_set_selected_joint (f->document, *joint);
  test_app_spin ();
  return copy_pose (f, n_dof);
}

/* Use as End Effector on SR1's left wrist row, then undo: the pose shown before comes back
 * bit for bit (the solve for the new effector had bent the robot over, and undo left it
 * bent), with the project unmodified, as it is. */
static void
test_undo_restores_pose (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree double *before = NULL;
  KmVec3 wrist;
  guint n_dof = 0;
  int joint;

  before = open_sr1_wrist_selected (f, &joint, &wrist, &n_dof);
  g_assert_true (gtk_widget_activate_action (f->tree, "tree.use-as-effector", NULL));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  test_app_spin ();
  g_assert_cmpstr (effector_name (f), ==, "LARM_WRIST_R");

  g_assert_true (km_document_undo (f->document));
  test_app_spin ();
  g_assert_null (km_document_get_targets (f->document));
  g_assert_cmpint (km_document_get_effector (f->document), !=, joint);
  assert_pose (f, before, n_dof, 0.0);
  g_assert_false (km_document_get_modified (f->document));
  g_assert_false (km_document_get_pose_unkeyed (f->document, NULL));
}

/* SR1 without targets has no keyframe to keep: Use as End Effector on the left wrist makes
 * it the effector where it is (one keyframe there, at the current frame), and the robot
 * does not bend over to reach for the ankle's point (the world origin, for targets without
 * keyframes: 254 mm off). Redone, the same. */
static void
test_no_keyframes_keeps_pose (Fixture       *f,
                              gconstpointer  data)
{
  g_autofree double *before = NULL;
  const KmTargetKeyframe *key;
  KmTargetTrack *targets;
  KmVec3 wrist;
  guint n_dof = 0;
  int joint;

  before = open_sr1_wrist_selected (f, &joint, &wrist, &n_dof);
  g_assert_true (gtk_widget_activate_action (f->tree, "tree.use-as-effector", NULL));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  test_app_spin ();
  g_assert_cmpstr (effector_name (f), ==, "LARM_WRIST_R");
  assert_pose (f, before, n_dof, 1e-6);
  targets = km_document_get_targets (f->document);
  g_assert_nonnull (targets);
  g_assert_cmpstr (km_target_track_get_effector (targets), ==, "LARM_WRIST_R");
  g_assert_cmpuint (km_target_track_get_n_keyframes (targets), ==, 1);
  key = km_target_track_get_keyframe (targets, 0);
  g_assert_cmpuint (key->frame, ==, 0);
  g_assert_cmpfloat (km_vec3_length (km_vec3_sub (key->position, wrist)), <, 1e-12);

  g_assert_true (km_document_undo (f->document));
  g_assert_true (km_document_redo (f->document));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_cmpstr (effector_name (f), ==, "LARM_WRIST_R");
  assert_pose (f, before, n_dof, 1e-6);
}

/* With keyframes of the user's, the documented behaviour stays: they stay where they are
 * in the world (the left wrist is solved toward the right ankle's key). Undone, the pose
 * shown before comes back exactly: here an arm pose the user set and had not keyed, which
 * the solve had replaced. */
static void
test_user_keyframes_stay (Fixture       *f,
                                 gconstpointer  data)
{
  g_autofree double *unkeyed = NULL;
  KmTargetKeyframe keyed;
  guint n_dof = 0;
  int joint;

  open_data_file (f, "choreonoid/SR1.body");
  g_assert_true (km_document_set_keyframe (f->document, 0));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  test_app_spin ();
  keyed = *km_target_track_get_keyframe (km_document_get_targets (f->document), 0);

  unkeyed = copy_pose (f, &n_dof);
  unkeyed[km_skeleton_get_joint (km_document_get_skeleton (f->document),
                                 (guint) find (f, "LARM_SHOULDER_P"))->dof_index] += 0.3;
  km_document_close_edit (f->document);
  km_document_set_pose (f->document, unkeyed, n_dof);
  km_document_close_edit (f->document);
  test_app_spin ();
  g_assert_true (km_document_get_pose_unkeyed (f->document, NULL));
  g_free (unkeyed);
  unkeyed = copy_pose (f, &n_dof);

  joint = find (f, "LARM_WRIST_R");
  g_assert_true (km_document_set_effector (f->document, joint));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  test_app_spin ();
  g_assert_cmpstr (effector_name (f), ==, "LARM_WRIST_R");
  g_assert_cmpuint (km_target_track_get_n_keyframes (km_document_get_targets (f->document)),
                    ==, 1);
  g_assert_cmpfloat (km_vec3_length (km_vec3_sub (
                       km_target_track_get_keyframe (km_document_get_targets (f->document),
                                                     0)->position,
                       keyed.position)), ==, 0.0);

  g_assert_true (km_document_undo (f->document));
  test_app_spin ();
  g_assert_cmpint (km_document_get_effector (f->document), !=, joint);
  assert_pose (f, unkeyed, n_dof, 0.0);
}

int
main (int   argc,
      char *argv[])
{
  test_app_init (&argc, &argv);

#define ADD(path, func) \
  g_test_add ("/kinema/EndEffector/" path, Fixture, NULL, fixture_setup, func, fixture_teardown)
  ADD ("default-avoids-follower", test_default_avoids_follower);
  ADD ("tree-action", test_tree_action);
  ADD ("inspector-action", test_inspector_action);
  ADD ("joint-row-menu", test_joint_row_menu);
  ADD ("undo-restores-pose", test_undo_restores_pose);
  ADD ("no-keyframes-keeps-pose", test_no_keyframes_keeps_pose);
  ADD ("user-keyframes-stay", test_user_keyframes_stay);
#undef ADD

  return g_test_run ();
}
