/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gstdio.h>
#include <gtk/gtk.h>

#include "km-document.h"
#include "km-ik.h"
#include "km-joint-inspector.h"
#include "km-joint-panel.h"
#include "km-message.h"
#include "km-time-bar.h"

#include "test-app-util.h"
#include "km-test-tmp.h"

/*
 * The Pose tab and the time bar's marks on models from the independent review: linked
 * (mimic) joints stay linked within the master's narrowed range; joints the solve does
 * not move put no limit marks; a 6-DOF arm's orientation misses are marked and reported,
 * a 5-DOF chain's (which cannot meet orientation) are not.
 */

typedef struct
{
  GtkWindow    *window;
  KmDocument   *document;
  KmJointPanel *panel;
  KmTimeBar    *time_bar;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);

  f->document = km_document_new ();
  f->window = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_default_size (f->window, 600, 500);
  f->panel = KM_JOINT_PANEL (km_joint_panel_new ());
  f->time_bar = KM_TIME_BAR (km_time_bar_new ());
  gtk_widget_set_vexpand (GTK_WIDGET (f->panel), TRUE);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (f->panel));
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (f->time_bar));
  gtk_window_set_child (f->window, box);
  km_joint_panel_set_document (f->panel, f->document);
  km_time_bar_set_document (f->time_bar, f->document);
  gtk_window_present (f->window);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_assert_true (test_app_wait_idle_solve (f->document, 30000));
  gtk_window_destroy (f->window);
  test_app_spin ();
  g_assert_true (test_app_unref_and_wait_finalized (f->document, 5000));
}

static void
import_data (Fixture    *f,
             const char *name)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = NULL;
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", name, NULL);

  file = g_file_new_for_path (path);
  g_assert_true (km_document_import_file (f->document, file, &error));
  g_assert_no_error (error);
  test_app_spin ();
}

/* A joint limited on one side only gets a slider from its finite end over a turn (2 m for a
 * prismatic joint) inwards, and finite values. */
static void
test_one_sided_slider (Fixture       *f,
                       gconstpointer  data)
{
  static const char text[] =
    "{\"root_name\": \"r\", \"joints\": ["
    "{\"name\": \"r\", \"type\": \"fixed\", \"offset\": [0, 0, 0], \"parent\": null},"
    "{\"name\": \"a\", \"type\": \"revolute\", \"offset\": [0, 0, 1], \"parent\": \"r\","
    " \"axis\": [0, 0, 1], \"limits\": [null, 0.5]},"
    "{\"name\": \"b\", \"type\": \"prismatic\", \"offset\": [0, 0, 1], \"parent\": \"a\","
    " \"axis\": [1, 0, 0], \"limits\": [-0.1, null]}]}";
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = NULL;
  g_autofree char *dir = km_test_make_tmp_dir ("km-one-sided-XXXXXX");
  g_autofree char *path = NULL;
  GtkAdjustment *a, *b;
  const double *pose;
  guint n_dof;

  path = g_build_filename (dir, "one-sided.json", NULL);
  g_assert_true (g_file_set_contents (path, text, -1, &error));
  file = g_file_new_for_path (path);
  g_assert_true (km_document_import_file (f->document, file, &error));
  g_assert_no_error (error);
  test_app_spin ();

  g_assert_cmpuint (km_joint_panel_get_n_rows (f->panel), ==, 2);
  a = km_joint_panel_get_adjustment (f->panel, 0);
  b = km_joint_panel_get_adjustment (f->panel, 1);
  g_assert_true (isfinite (gtk_adjustment_get_lower (a)) && isfinite (gtk_adjustment_get_upper (a)));
  g_assert_true (isfinite (gtk_adjustment_get_lower (b)) && isfinite (gtk_adjustment_get_upper (b)));
  g_assert_true (isfinite (gtk_adjustment_get_value (a)) && isfinite (gtk_adjustment_get_value (b)));
  /* Whatever the unit: [0.5 - 2π, 0.5] and [-0.1, 1.9]. */
  g_assert_cmpfloat_with_epsilon ((gtk_adjustment_get_upper (a) - gtk_adjustment_get_lower (a))
                                  / gtk_adjustment_get_upper (a), 2 * G_PI / 0.5, 1e-9);
  g_assert_cmpfloat_with_epsilon ((gtk_adjustment_get_upper (b) - gtk_adjustment_get_lower (b))
                                  / -gtk_adjustment_get_lower (b), 2.0 / 0.1, 1e-9);
  pose = km_document_get_pose (f->document, &n_dof);
  g_assert_cmpuint (n_dof, ==, 2);
  g_assert_true (isfinite (pose[0]) && pose[0] <= 0.5);
  g_assert_true (isfinite (pose[1]) && pose[1] >= -0.1);

  /* The slider's far end sets a finite value within the limit. */
  gtk_adjustment_set_value (a, gtk_adjustment_get_lower (a));
  test_app_spin ();
  pose = km_document_get_pose (f->document, &n_dof);
  g_assert_cmpfloat_with_epsilon (pose[0], 0.5 - 2 * G_PI, 1e-6);
  g_unlink (path);
  g_rmdir (dir);
}

/* The spin button of the Pose tab's row of @dof. */
static GtkWidget *
find_spin (GtkWidget     *root,
           GtkAdjustment *adjustment)
{
  if (GTK_IS_SPIN_BUTTON (root)
      && gtk_spin_button_get_adjustment (GTK_SPIN_BUTTON (root)) == adjustment)
    return root;
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_spin (child, adjustment);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* Types @text into a row's spin button and commits it, as Enter does. */
static void
type_value (Fixture    *f,
            guint       dof,
            const char *text)
{
  GtkWidget *spin = find_spin (GTK_WIDGET (f->panel), km_joint_panel_get_adjustment (f->panel,
                                                                                     dof));

  g_assert_nonnull (spin);
  gtk_editable_set_text (GTK_EDITABLE (spin), text);
  gtk_spin_button_update (GTK_SPIN_BUTTON (spin));
  test_app_spin ();
}

/* Every widget of @type at or below @widget. */
static guint
count_widgets (GtkWidget *widget,
               GType      type)
{
  guint n = G_TYPE_CHECK_INSTANCE_TYPE (widget, type) ? 1 : 0;

  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    n += count_widgets (child, type);
  return n;
}

static void
after_paint_cb (GdkFrameClock *clock,
                gboolean      *painted)
{
  *painted = TRUE;
}

/* Runs the main loop until a frame of the window is drawn (at most 30 s). */
static void
wait_frame (Fixture *f)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (GTK_WIDGET (f->window));
  gboolean painted = FALSE;

  g_assert_nonnull (clock);
  g_signal_connect (clock, "after-paint", G_CALLBACK (after_paint_cb), &painted);
  gtk_widget_queue_draw (GTK_WIDGET (f->window));
  g_assert_true (test_app_wait_flag (&painted, 30000));
  g_signal_handlers_disconnect_by_func (clock, after_paint_cb, &painted);
  test_app_spin ();
}

/* Runs the main loop until the Pose tab's list has a row for each of the panel's DOFs (it
 * may be given them in idle chunks; at most 30 s), then until a frame is drawn with them. */
static void
wait_list_filled (Fixture *f)
{
  g_assert_nonnull (test_app_find_pose_list (GTK_WIDGET (f->panel)));
  g_assert_true (test_app_wait_until (test_app_pose_list_filled, f->panel, 30000));
  wait_frame (f);
}

/* Imports a chain of @n_joints joints, all revolute but the root "j0" (limited to ±1 rad
 * if @limits): a panel of n_joints - 1 rows. */
static void
import_chain (Fixture    *f,
              guint       n_joints,
              gboolean    limits)
{
  g_autoptr(GString) text = g_string_new ("{\"root_name\": \"j0\", \"joints\": ["
                                          "{\"name\": \"j0\", \"type\": \"fixed\", "
                                          "\"offset\": [0, 0, 0]}");
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = NULL;
  g_autofree char *dir = km_test_make_tmp_dir ("km-chain-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "chain.json", NULL);

  for (guint i = 1; i < n_joints; i++)
    g_string_append_printf (text, ", {\"name\": \"j%u\", \"type\": \"revolute\", "
                            "\"parent\": \"j%u\", \"offset\": [0, 0, 0.01], "
                            "\"axis\": [0, 1, 0]%s}", i, i - 1,
                            limits ? ", \"limits\": [-1, 1]" : "");
  g_string_append (text, "]}");
  g_assert_true (g_file_set_contents (path, text->str, -1, &error));
  file = g_file_new_for_path (path);
  g_assert_true (km_document_import_file (f->document, file, &error));
  g_assert_no_error (error);
  km_test_remove_tree (dir);
  g_assert_cmpuint (km_joint_panel_get_n_rows (f->panel), ==, n_joints - 1);
}

/* Imports a chain of @n_joints revolute joints; returns the spin buttons the panel made
 * once its list has every row. */
static guint
spins_for_chain (Fixture *f,
                 guint    n_joints)
{
  import_chain (f, n_joints, TRUE);
  wait_list_filled (f);
  return count_widgets (GTK_WIDGET (f->panel), GTK_TYPE_SPIN_BUTTON);
}

/* A model with thousands of joints (review 17: the window stayed black for tens of seconds
 * while the Pose tab made a row for each) gets row widgets only around the rows shown: as
 * many for 3,000 joints as for 300. The last row is still there once scrolled to. */
static void
test_rows_made_lazily (Fixture       *f,
                       gconstpointer  data)
{
  guint few = spins_for_chain (f, 301);
  guint many = spins_for_chain (f, 3001);
  GtkWidget *scrolled = gtk_widget_get_ancestor (test_app_find_widget (GTK_WIDGET (f->panel),
                                                                       GTK_TYPE_SPIN_BUTTON),
                                                 GTK_TYPE_SCROLLED_WINDOW);
  GtkAdjustment *rows = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scrolled));
  GtkAdjustment *last = km_joint_panel_get_adjustment (f->panel, 2999);

  g_test_message ("spin buttons: %u for 300 DOFs, %u for 3000", few, many);
  g_assert_cmpuint (few, >, 0);
  g_assert_cmpuint (many, <=, few);
  g_assert_cmpuint (many, <, 300);
  g_assert_null (find_spin (GTK_WIDGET (f->panel), last));

  for (int i = 0; i < 50 && find_spin (GTK_WIDGET (f->panel), last) == NULL; i++)
    {
      gtk_adjustment_set_value (rows, gtk_adjustment_get_upper (rows));
      test_app_spin_for (50);
    }
  g_assert_nonnull (find_spin (GTK_WIDGET (f->panel), last));
  g_assert_cmpuint (count_widgets (GTK_WIDGET (f->panel), GTK_TYPE_SPIN_BUTTON), <, 300);
}

/* The Pose tab scrolled down on a model of 300 DOFs stays there when the rows are made
 * anew (a skeleton edit or, here, another angle unit): the list is then given every row at
 * once, not a chunk at a time from the first (which moved the view to the top). */
static void
test_scroll_kept_on_rebuild (Fixture       *f,
                             gconstpointer  data)
{
  GtkWidget *scrolled;
  GtkAdjustment *rows;
  double before, after;

  g_assert_cmpuint (spins_for_chain (f, 301), >, 0);
  scrolled = gtk_widget_get_ancestor (test_app_find_pose_list (GTK_WIDGET (f->panel)),
                                      GTK_TYPE_SCROLLED_WINDOW);
  rows = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scrolled));
  gtk_adjustment_set_value (rows, (gtk_adjustment_get_upper (rows)
                                   - gtk_adjustment_get_page_size (rows)) / 2);
  wait_frame (f);
  before = gtk_adjustment_get_value (rows);
  g_assert_cmpfloat (before, >, 0.0);

  g_object_set (f->panel, "angle-unit", "radians", NULL);
  g_assert_cmpstr (km_joint_panel_get_unit (f->panel, 0), ==, "rad");
  wait_list_filled (f);
  after = gtk_adjustment_get_value (rows);
  g_test_message ("scrolled to %.0f px of %.0f; %.0f px after the rebuild", before,
                  gtk_adjustment_get_upper (rows), after);
  g_assert_cmpfloat (after, >, before / 2);
}

/* The panel goes (its tab closed, its window destroyed) while its list is still being given
 * a large model's rows: the idle callback that gives them goes with it. */
static void
test_dispose_while_filling (Fixture       *f,
                            gconstpointer  data)
{
  GtkWidget *list_view = test_app_find_pose_list (GTK_WIDGET (f->panel));
  GtkWidget *panel = GTK_WIDGET (f->panel);
  GListModel *model;

  g_assert_nonnull (list_view);
  model = G_LIST_MODEL (gtk_list_view_get_model (GTK_LIST_VIEW (list_view)));
  import_chain (f, 1000, FALSE);
  /* Still filling. */
  g_assert_cmpuint (g_list_model_get_n_items (model), <, 999);

  g_object_add_weak_pointer (G_OBJECT (panel), (gpointer *) &panel);
  f->panel = NULL;
  gtk_box_remove (GTK_BOX (gtk_widget_get_parent (panel)), panel);
  g_assert_null (panel);
  /* The idle callback would run now (pending sources), on the panel gone. */
  test_app_spin ();
}

/* mimic-chain.urdf: b = 2a (b within ±1 rad), c = −b + 0.1 (c within ±0.5 rad). a's range
 * narrows to [−0.2, 0.3] (from b: a within ±0.5; from c: b within [−0.4, 0.6]); typing 50°
 * for a stops at 0.3 rad and the followers stay linked. */
static void
test_mimic_chain_stays_linked (Fixture       *f,
                               gconstpointer  data)
{
  GtkAdjustment *a;
  const double *q;
  double lo, hi;
  guint n_dof = 0;

  import_data (f, "review/mimic-chain.urdf");
  g_assert_nonnull (km_document_get_skeleton (f->document));
  q = km_document_get_pose (f->document, &n_dof);
  g_assert_cmpuint (n_dof, ==, 4);
  g_assert_cmpuint (km_joint_panel_get_n_rows (f->panel), ==, 4);

  /* The ranges the Pose tab shows: a narrowed, b and c the images of a's. */
  g_assert_true (km_document_get_dof_range (f->document, 0, &lo, &hi));
  g_assert_cmpfloat_with_epsilon (lo, -0.2, 1e-12);
  g_assert_cmpfloat_with_epsilon (hi, 0.3, 1e-12);
  a = km_joint_panel_get_adjustment (f->panel, 0);
  g_assert_cmpfloat_with_epsilon (gtk_adjustment_get_lower (a), -0.2 * 180.0 / G_PI, 1e-9);
  g_assert_cmpfloat_with_epsilon (gtk_adjustment_get_upper (a), 0.3 * 180.0 / G_PI, 1e-9);
  g_assert_true (km_document_get_dof_range (f->document, 1, &lo, &hi));
  g_assert_cmpfloat_with_epsilon (lo, -0.4, 1e-12);
  g_assert_cmpfloat_with_epsilon (hi, 0.6, 1e-12);
  g_assert_true (km_document_get_dof_range (f->document, 2, &lo, &hi));
  g_assert_cmpfloat_with_epsilon (lo, -0.5, 1e-12);
  g_assert_cmpfloat_with_epsilon (hi, 0.5, 1e-12);
  /* d's link names no joint: it is independent, with its own limits. */
  g_assert_true (km_document_get_dof_range (f->document, 3, &lo, &hi));
  g_assert_cmpfloat (lo, ==, -1.0);
  g_assert_cmpfloat (hi, ==, 1.0);

  type_value (f, 0, "50");
  q = km_document_get_pose (f->document, NULL);
  g_assert_cmpfloat_with_epsilon (q[0], 0.3, 1e-9);
  g_assert_cmpfloat_with_epsilon (q[1], 2.0 * q[0], 1e-12);
  g_assert_cmpfloat_with_epsilon (q[2], -q[1] + 0.1, 1e-12);
  g_assert_cmpfloat (q[1], <=, 1.0);
  g_assert_cmpfloat (q[2], >=, -0.5);

  /* Typing a follower moves its master, which moves every follower. */
  type_value (f, 2, "11.459156");      /* 0.2 rad: b = 0.1 − 0.2 = −0.1, a = −0.05 */
  q = km_document_get_pose (f->document, NULL);
  g_assert_cmpfloat_with_epsilon (q[2], 0.2, 1e-6);
  g_assert_cmpfloat_with_epsilon (q[1], -0.1, 1e-6);
  g_assert_cmpfloat_with_epsilon (q[0], -0.05, 1e-6);

  type_value (f, 1, "-90");            /* beyond b's image range: a stops at −0.2 */
  q = km_document_get_pose (f->document, NULL);
  g_assert_cmpfloat_with_epsilon (q[0], -0.2, 1e-9);
  g_assert_cmpfloat_with_epsilon (q[1], -0.4, 1e-9);
  g_assert_cmpfloat_with_epsilon (q[2], 0.5, 1e-9);
}

static guint
count_marks (Fixture        *f,
             KmTimeBarMarks  mark)
{
  guint n = 0;

  for (guint i = 0; i < km_document_get_n_frames (f->document); i++)
    n += (km_time_bar_get_frame_marks (f->time_bar, i) & mark) != 0;
  return n;
}

/* The built-in example (5 DOFs: it cannot meet orientation) after Skeleton → Mirror
 * Sub-chain of its arm: the mirrored arm is not on the effector's chain, so its joints
 * (wherever they sit) mark no frame; the solve itself holds no joint on a limit. */
static void
test_marks_only_solved_dofs (Fixture       *f,
                             gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  GtkWidget *inspector = km_joint_inspector_new ();
  KmSkeleton *skeleton;
  g_autofree gboolean *moving = NULL;
  g_autofree double *lower = NULL;
  g_autofree double *upper = NULL;
  KmAnimation *animation;
  guint n_dof, before, n_other = 0;

  g_assert_true (km_document_load_defaults (f->document, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_wait_idle_solve (f->document, 30000));
  test_app_spin ();
  g_assert_false (km_document_get_solves_orientation (f->document));
  g_assert_cmpuint (km_document_get_solved_dofs (f->document, NULL), ==, 5);
  g_assert_cmpuint (count_marks (f, KM_TIME_BAR_MARK_MISSED), ==, 0);
  before = count_marks (f, KM_TIME_BAR_MARK_AT_LIMIT);
  g_assert_cmpuint (before, <, km_document_get_n_frames (f->document));
  g_assert_true (test_app_has_message (f->document, 0, "largest position error 0.000 mm.", NULL));

  g_object_ref_sink (inspector);
  km_joint_inspector_set_document (KM_JOINT_INSPECTOR (inspector), f->document);
  skeleton = km_document_get_skeleton (f->document);
  for (guint j = 0; j < km_skeleton_get_n_joints (skeleton); j++)
    if (g_str_equal (km_skeleton_get_joint (skeleton, j)->name, "Shoulder"))
      km_document_set_selected_joint (f->document, (int) j);
  g_action_group_activate_action (km_joint_inspector_get_actions (KM_JOINT_INSPECTOR (inspector)),
                                  "mirror", NULL);
  g_assert_true (test_app_wait_idle_solve (f->document, 30000));
  test_app_spin ();
  skeleton = km_document_get_skeleton (f->document);
  n_dof = km_skeleton_get_n_dof (skeleton);
  g_assert_cmpuint (km_skeleton_get_n_joints (skeleton), ==, 9);
  g_assert_cmpuint (n_dof, ==, 10);
  moving = g_new (gboolean, n_dof);
  g_assert_cmpuint (km_document_get_solved_dofs (f->document, moving), ==, 5);
  {
    guint n_moving = 0;

    for (guint d = 0; d < n_dof; d++)
      n_moving += moving[d] != FALSE;
    g_assert_cmpuint (n_moving, ==, 5);
  }
  animation = km_document_get_animation (f->document);
  g_assert_nonnull (animation);
  lower = g_new (double, n_dof);
  upper = g_new (double, n_dof);
  km_skeleton_get_dof_limits (skeleton, lower, upper);
  for (guint i = 0; i < km_animation_get_n_frames (animation); i++)
    {
      const double *q = km_animation_get_frame (animation, i);
      gboolean moving_at_limit = FALSE, other_at_limit = FALSE;

      for (guint d = 0; d < n_dof; d++)
        {
          gboolean at = q[d] <= lower[d] + 1e-6 || q[d] >= upper[d] - 1e-6;

          if (moving[d])
            moving_at_limit |= at;
          else
            other_at_limit |= at;
        }
      g_assert_cmpint ((km_time_bar_get_frame_marks (f->time_bar, i)
                        & KM_TIME_BAR_MARK_AT_LIMIT) != 0, ==, moving_at_limit);
      n_other += other_at_limit && !moving_at_limit;
    }
  /* The mirrored arm sits on a limit where the solved one does not: those frames stay
   * unmarked (they were all marked before the fix). */
  g_test_message ("%u frames marked, %u with only an unsolved joint on a limit",
                  count_marks (f, KM_TIME_BAR_MARK_AT_LIMIT), n_other);
  g_assert_cmpuint (n_other, >, 0);
  g_assert_cmpuint (count_marks (f, KM_TIME_BAR_MARK_AT_LIMIT), ==, before);
  g_assert_cmpuint (count_marks (f, KM_TIME_BAR_MARK_MISSED), ==, 0);
  km_joint_inspector_set_document (KM_JOINT_INSPECTOR (inspector), NULL);
  g_object_unref (inspector);
}

/* skeleton-mimic.json with "Rack" as the end effector: Rack follows Pinion, which is on
 * another branch (off the path), so the solve moves Pinion and, with it, Pinion's other
 * follower Idler; Free (Pinion's child, off the path) stays. The solve's own rule
 * (km_ik_problem_get_moved_dofs) and the document's agree. Pinion and Idler were left out. */
static void
test_solved_dofs_off_path_master (Fixture       *f,
                                  gconstpointer  data)
{
  static const KmTargetKeyframe key = { 0, { 0.0, -0.02, 0.03 }, { 1.0, 0.0, 0.0, 0.0 } };
  g_autoptr(GError) error = NULL;
  g_autoptr(KmTargetTrack) track = NULL;
  g_autoptr(KmIkProblem) problem = NULL;
  g_autofree gboolean *moving = NULL;
  g_autofree gboolean *core = NULL;
  KmSkeleton *skeleton;
  guint n_dof;

  import_data (f, "skeleton-mimic.json");
  track = km_target_track_new (&key, 1, "Rack", 30.0, &error);
  g_assert_no_error (error);
  km_document_set_targets (f->document, track);
  g_assert_true (test_app_wait_idle_solve (f->document, 30000));
  test_app_spin ();
  skeleton = km_document_get_skeleton (f->document);
  g_assert_cmpint (km_document_get_effector (f->document), ==,
                   km_skeleton_find_joint (skeleton, "Rack"));
  n_dof = km_skeleton_get_n_dof (skeleton);
  moving = g_new (gboolean, n_dof);
  g_assert_cmpuint (km_document_get_solved_dofs (f->document, moving), ==, 1);
  g_assert_true (moving[km_skeleton_get_joint (skeleton, km_skeleton_find_joint (skeleton, "Pinion"))->dof_index]);
  g_assert_true (moving[km_skeleton_get_joint (skeleton, km_skeleton_find_joint (skeleton, "Rack"))->dof_index]);
  g_assert_true (moving[km_skeleton_get_joint (skeleton, km_skeleton_find_joint (skeleton, "Idler"))->dof_index]);
  g_assert_false (moving[km_skeleton_get_joint (skeleton, km_skeleton_find_joint (skeleton, "Free"))->dof_index]);

  problem = km_ik_problem_new (skeleton, km_document_get_effector (f->document));
  core = g_new (gboolean, n_dof);
  g_assert_cmpuint (km_ik_problem_get_moved_dofs (problem, core), ==, 1);
  for (guint d = 0; d < n_dof; d++)
    g_assert_cmpint (core[d], ==, moving[d]);
}

/* The UR10 (6 DOFs) on targets it can reach in position but not in orientation: the
 * frames that miss the orientation are marked red and the message gives the error. */
static void
test_orientation_misses_marked (Fixture       *f,
                                gconstpointer  data)
{
  KmAnimation *animation;
  guint missed = 0, checked = 0;

  import_data (f, "review/ur10.urdf");
  import_data (f, "review/ur10-targets.json");
  g_assert_true (test_app_wait_idle_solve (f->document, 60000));
  test_app_spin ();
  animation = km_document_get_animation (f->document);
  g_assert_nonnull (animation);
  g_assert_cmpuint (km_document_get_solved_dofs (f->document, NULL), ==, 6);
  g_assert_true (km_document_get_solves_orientation (f->document));
  for (guint i = 0; i < km_animation_get_n_frames (animation); i++)
    {
      double pos_err, rot_err;
      gboolean marked = (km_time_bar_get_frame_marks (f->time_bar, i)
                         & KM_TIME_BAR_MARK_MISSED) != 0;

      g_assert_true (km_animation_get_residual (animation, i, &pos_err, &rot_err));
      g_assert_cmpint (marked, ==, pos_err > 1e-6 || rot_err > 1e-6);
      missed += marked;
      checked++;
    }
  g_test_message ("%u of %u frames missed", missed, checked);
  g_assert_cmpuint (missed, >, 0);
  g_assert_true (test_app_has_message (f->document, 0, "largest orientation error", NULL));
}

/* The UR10 on the same targets made position-only (Scenebuilder enable_rot="false"): the
 * orientations are no goal, so no frame is an orientation miss and none is marked red
 * (every one that missed the orientation was before). */
static void
test_position_only_not_marked (Fixture       *f,
                               gconstpointer  data)
{
  g_autoptr(KmTargetTrack) position_only = NULL;
  KmAnimation *animation;

  import_data (f, "review/ur10.urdf");
  import_data (f, "review/ur10-targets.json");
  g_assert_true (test_app_wait_idle_solve (f->document, 60000));
  test_app_spin ();
  g_assert_cmpuint (count_marks (f, KM_TIME_BAR_MARK_MISSED), >, 0);

  position_only = km_target_track_with_tool (km_document_get_targets (f->document),
                                             KM_VEC3_ZERO, TRUE);
  km_document_set_targets (f->document, position_only);
  g_assert_true (test_app_wait_idle_solve (f->document, 60000));
  test_app_spin ();
  animation = km_document_get_animation (f->document);
  g_assert_nonnull (animation);
  g_assert_true (km_target_track_get_position_only (km_document_get_targets (f->document)));
  /* Orientation is no goal of these targets: the solve's message leaves it out. */
  g_assert_false (km_document_get_solves_orientation (f->document));
  for (guint i = 0; i < km_animation_get_n_frames (animation); i++)
    {
      double pos_err, rot_err;

      g_assert_true (km_animation_get_residual (animation, i, &pos_err, &rot_err));
      g_assert_cmpfloat (rot_err, ==, 0.0);
      g_assert_cmpint ((km_time_bar_get_frame_marks (f->time_bar, i)
                        & KM_TIME_BAR_MARK_MISSED) != 0, ==, pos_err > 1e-6);
    }
  g_assert_cmpuint (count_marks (f, KM_TIME_BAR_MARK_MISSED), ==, 0);
}

int
main (int    argc,
      char **argv)
{
  test_app_init (&argc, &argv);

  g_test_add ("/kinema/PoseReview/rows-made-lazily", Fixture, NULL, fixture_setup,
              test_rows_made_lazily, fixture_teardown);
  g_test_add ("/kinema/PoseReview/scroll-kept-on-rebuild", Fixture, NULL, fixture_setup,
              test_scroll_kept_on_rebuild, fixture_teardown);
  g_test_add ("/kinema/PoseReview/dispose-while-filling", Fixture, NULL, fixture_setup,
              test_dispose_while_filling, fixture_teardown);
  g_test_add ("/kinema/PoseReview/one-sided-slider", Fixture, NULL, fixture_setup,
              test_one_sided_slider, fixture_teardown);
  g_test_add ("/kinema/PoseReview/mimic-chain-stays-linked", Fixture, NULL,
              fixture_setup, test_mimic_chain_stays_linked, fixture_teardown);
  g_test_add ("/kinema/PoseReview/marks-only-solved-dofs", Fixture, NULL,
              fixture_setup, test_marks_only_solved_dofs, fixture_teardown);
  g_test_add ("/kinema/PoseReview/solved-dofs-off-path-master", Fixture, NULL,
              fixture_setup, test_solved_dofs_off_path_master, fixture_teardown);
  g_test_add ("/kinema/PoseReview/orientation-misses-marked", Fixture, NULL,
              fixture_setup, test_orientation_misses_marked, fixture_teardown);
  g_test_add ("/kinema/PoseReview/position-only-not-marked", Fixture, NULL,
              fixture_setup, test_position_only_not_marked, fixture_teardown);
  return g_test_run ();
}
