/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <math.h>
#include <gtk/gtk.h>
#ifdef GDK_WINDOWING_X11
#include <gdk/x11/gdkx.h>
#endif

#include "km-document-edit.h"
#include "km-scene-view.h"
#include "km-window.h"

#include "test-app-util.h"

/*
 * Dragging SR1 in Choreonoid's SR1WalkEdit.cnoid at a frame where its pose sequence has
 * walked the waist away from the origin: the scene draws the body standing on the
 * sequence's root pose, so a drag (real input through xdotool, as in test-manipulation)
 * must solve with that root pose too. The effector follows the pointer, the waist stays
 * where it is drawn, and a drag that ends where it began leaves the pose as it was.
 */

#define WALK_FRAME 1002

typedef struct
{
  KmWindow    *window;
  KmDocument  *document;
  KmSceneView *view;
  guint        renders;
} Fixture;

static gboolean
rendered (gpointer data)
{
  Fixture *f = data;

  return km_scene_view_get_n_renders (f->view) > f->renders
         && gtk_widget_get_width (GTK_WIDGET (f->view)) > 0;
}

static gboolean
playing (gpointer data)
{
  Fixture *f = data;

  return km_document_get_animation (f->document) != NULL
         && km_document_get_n_frames (f->document) > WALK_FRAME;
}

static gboolean
drag_idle (gpointer data)
{
  Fixture *f = data;

  return !km_drag_solver_get_busy (km_scene_view_get_drag_solver (f->view));
}

static void
add_move (Fixture   *f,
          GPtrArray *args,
          double     x,
          double     y)
{
#ifdef GDK_WINDOWING_X11
  test_app_add_pointer_move_to (args, GTK_WIDGET (f->view), x, y);
  g_ptr_array_add (args, g_strdup ("sleep"));
  g_ptr_array_add (args, g_strdup ("0.03"));
#endif
}

/* A real press at (x0, y0) of the scene view, @steps moves to (x1, y1) and a release. */
static void
real_drag (Fixture *f,
           double   x0,
           double   y0,
           double   x1,
           double   y1,
           guint    steps)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);

  add_move (f, args, x0, y0);
  g_ptr_array_add (args, g_strdup ("mousedown"));
  g_ptr_array_add (args, g_strdup ("1"));
  for (guint s = 1; s <= steps; s++)
    add_move (f, args, x0 + (x1 - x0) * s / steps, y0 + (y1 - y0) * s / steps);
  g_ptr_array_add (args, g_strdup ("mouseup"));
  g_ptr_array_add (args, g_strdup ("1"));
  test_app_xdotool (GTK_WIDGET (f->window), args);
}

static KmVec3
joint_pos (Fixture *f,
           int      joint)
{
  return km_document_get_joint_world (f->document, NULL)[joint].pos;
}

/* SR1WalkEdit.cnoid in a window at WALK_FRAME, drawn, in edit mode; FALSE (the test is
 * skipped) without X11, xdotool or GL. */
static gboolean
open_walk (Fixture *f)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "share",
                                                 "project", "SR1WalkEdit.cnoid", NULL);
  g_autofree char *program = g_find_program_in_path ("xdotool");
  g_autoptr(GFile) file = g_file_new_for_path (path);
  const GError *error;

  f->window = km_window_new (NULL);
  gtk_window_set_default_size (GTK_WINDOW (f->window), 900, 700);
  f->document = km_window_get_document (f->window);
  f->view = KM_SCENE_VIEW (km_window_get_scene_view (f->window));
  g_assert_true (test_app_open_file (f->window, file));
  gtk_window_present (GTK_WINDOW (f->window));
#ifdef GDK_WINDOWING_X11
  if (!GDK_IS_X11_DISPLAY (gtk_widget_get_display (GTK_WIDGET (f->window))))
#endif
    {
      g_test_skip ("not on X11");
      return FALSE;
    }
  if (program == NULL)
    {
      g_test_skip ("xdotool is not installed");
      return FALSE;
    }
  g_assert_true (test_app_wait_until (rendered, f, 20000));
  error = gtk_gl_area_get_error (GTK_GL_AREA (f->view));
  if (error != NULL)
    {
      g_test_skip_printf ("no GL context: %s", error->message);
      return FALSE;
    }
  g_assert_true (test_app_wait_until (playing, f, 20000));

  f->renders = km_scene_view_get_n_renders (f->view);
  km_document_set_current_frame (f->document, WALK_FRAME);
  km_scene_view_set_edit_mode (f->view, TRUE);
  g_assert_true (test_app_wait_until (rendered, f, 10000));
  /* Pin the camera where it is. */
  km_scene_view_set_camera (f->view, km_scene_view_get_camera (f->view));
  test_app_spin ();
  return TRUE;
}

static void
close_window (Fixture *f)
{
  g_assert_true (test_app_wait_until (drag_idle, f, 5000));
  g_object_add_weak_pointer (G_OBJECT (f->window), (gpointer *) &f->window);
  gtk_window_destroy (GTK_WINDOW (f->window));
  test_app_spin ();
  g_assert_null (f->window);
}

/* The waist stands where the sequence walked it at WALK_FRAME, not at the origin. */
static void
assert_walked_waist (Fixture *f)
{
  KmTransform root;
  KmVec3 waist = joint_pos (f, 0);

  g_assert_true (km_document_get_root_pose (f->document, &root));
  g_assert_cmpfloat_with_epsilon (waist.x, 0.0484073025, 1e-9);
  g_assert_cmpfloat_with_epsilon (waist.y, 0.0609281633, 1e-9);
  g_assert_cmpfloat_with_epsilon (waist.z, 0.65863289, 1e-9);
}

static double
max_pose_change (const double *a,
                 const double *b,
                 guint         n)
{
  double d = 0;

  for (guint i = 0; i < n; i++)
    d = MAX (d, fabs (a[i] - b[i]));
  return d;
}

/* The effector, dragged in the view plane, follows the pointer; the waist stays put. */
static void
test_drag_effector (void)
{
  Fixture f = { NULL, };
  g_autofree double *before = NULL;
  const double *pose;
  double x0, y0, x1, y1, x, y;
  KmVec3 start, waist;
  int effector;
  guint n_dof;

  if (!open_walk (&f))
    {
      close_window (&f);
      return;
    }
  assert_walked_waist (&f);
  effector = km_document_get_effector (f.document);
  g_assert_cmpint (effector, >, 0);
  g_test_message ("effector %s", km_skeleton_get_joint (km_document_get_skeleton (f.document),
                                                        (guint) effector)->name);
  pose = km_document_get_pose (f.document, &n_dof);
  before = g_memdup2 (pose, n_dof * sizeof (double));
  start = joint_pos (&f, effector);
  waist = joint_pos (&f, 0);
  test_app_project (f.view, start, &x0, &y0);
  x1 = x0 - 12;
  y1 = y0 + 10;
  real_drag (&f, x0, y0, x1, y1, 8);
  g_assert_true (test_app_wait_until (drag_idle, &f, 10000));

  test_app_project (f.view, joint_pos (&f, effector), &x, &y);
  g_test_message ("effector at (%.1f, %.1f), pointer released at (%.1f, %.1f); moved %.4f m",
                  x, y, x1, y1, km_vec3_length (km_vec3_sub (joint_pos (&f, effector), start)));
  g_assert_cmpfloat (max_pose_change (before, km_document_get_pose (f.document, NULL), n_dof),
                     >, 1e-3);
  g_assert_cmpfloat (hypot (x - x1, y - y1), <, 4.0);
  g_assert_cmpfloat (km_vec3_length (km_vec3_sub (joint_pos (&f, effector), start)), >, 0.01);
  /* The root is the sequence's; the drag moves joints below it only. */
  g_assert_cmpfloat (km_vec3_length (km_vec3_sub (joint_pos (&f, 0), waist)), <, 1e-9);
  g_assert_true (km_document_get_limits_held (f.document, 1e-9));
  /* A pose sequence is read-only: nothing can be keyed, so the pose is not "unkeyed" and
   * the time bar does not point to Set Keyframe. */
  g_assert_false (km_document_get_pose_unkeyed (f.document, NULL));

  close_window (&f);
}

/* A drag that comes back to where it began asks for the effector where it is drawn: the
 * pose stays (within the solver's tolerance), the body does not jump. */
static void
test_drag_in_place (void)
{
  Fixture f = { NULL, };
  g_autofree double *before = NULL;
  const double *pose;
  double x0, y0, change;
  KmVec3 start;
  int effector;
  guint n_dof;

  if (!open_walk (&f))
    {
      close_window (&f);
      return;
    }
  effector = km_document_get_effector (f.document);
  pose = km_document_get_pose (f.document, &n_dof);
  before = g_memdup2 (pose, n_dof * sizeof (double));
  start = joint_pos (&f, effector);
  test_app_project (f.view, start, &x0, &y0);
  /* Out by a pixel and back: the last request is the start. */
  {
    g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);

    add_move (&f, args, x0, y0);
    g_ptr_array_add (args, g_strdup ("mousedown"));
    g_ptr_array_add (args, g_strdup ("1"));
    add_move (&f, args, x0 + 3, y0);
    add_move (&f, args, x0 + 6, y0 + 1);
    add_move (&f, args, x0, y0);
    g_ptr_array_add (args, g_strdup ("mouseup"));
    g_ptr_array_add (args, g_strdup ("1"));
    test_app_xdotool (GTK_WIDGET (f.window), args);
  }
  g_assert_true (test_app_wait_until (drag_idle, &f, 10000));

  change = max_pose_change (before, km_document_get_pose (f.document, NULL), n_dof);
  g_test_message ("pose changed by %.3g rad at most, effector by %.3g m", change,
                  km_vec3_length (km_vec3_sub (joint_pos (&f, effector), start)));
  g_assert_cmpfloat (km_vec3_length (km_vec3_sub (joint_pos (&f, effector), start)), <, 1e-4);
  g_assert_cmpfloat (change, <, 0.05);
  assert_walked_waist (&f);

  close_window (&f);
}

/* A joint other than the tip, dragged, turns by itself (FK) with the root where it is. */
static void
test_drag_joint_fk (void)
{
  Fixture f = { NULL, };
  g_autofree double *before = NULL;
  KmSkeleton *skeleton;
  const KmJoint *j;
  const double *pose;
  double x, y;
  int joint;
  guint n_dof;

  if (!open_walk (&f))
    {
      close_window (&f);
      return;
    }
  skeleton = km_document_get_skeleton (f.document);
  joint = km_skeleton_find_joint (skeleton, "LARM_ELBOW");
  g_assert_cmpint (joint, >, 0);
  g_assert_cmpint (joint, !=, km_document_get_effector (f.document));
  j = km_skeleton_get_joint (skeleton, (guint) joint);
  g_assert_cmpint (j->n_dof, ==, 1);
  pose = km_document_get_pose (f.document, &n_dof);
  before = g_memdup2 (pose, n_dof * sizeof (double));
  test_app_project (f.view, joint_pos (&f, joint), &x, &y);
  real_drag (&f, x, y, x + 30, y + 30, 8);
  test_app_spin ();

  pose = km_document_get_pose (f.document, NULL);
  g_test_message ("%s turned by %.3f rad", j->name, pose[j->dof_index] - before[j->dof_index]);
  g_assert_cmpfloat (fabs (pose[j->dof_index] - before[j->dof_index]), >, 0.05);
  for (guint i = 0; i < n_dof; i++)
    if (i != (guint) j->dof_index)
      g_assert_cmpfloat (pose[i], ==, before[i]);
  assert_walked_waist (&f);

  close_window (&f);
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
  g_test_add_func ("/kinema/PoseSeqDrag/drag-effector", test_drag_effector);
  g_test_add_func ("/kinema/PoseSeqDrag/drag-in-place", test_drag_in_place);
  g_test_add_func ("/kinema/PoseSeqDrag/drag-joint-fk", test_drag_joint_fk);
  return g_test_run ();
}
