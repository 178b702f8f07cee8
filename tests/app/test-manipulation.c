/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#ifdef GDK_WINDOWING_X11
#include <gdk/x11/gdkx.h>
#endif

#include "km-document-edit.h"
#include "km-graph-view.h"
#include "km-pick.h"
#include "km-renderer.h"
#include "km-scene-view.h"
#include "km-time-bar.h"
#include "km-window.h"

#include "test-app-util.h"
#include "km-test-tmp.h"

/*
 * Direct manipulation with real input: pointer moves, drags and clicks go through the X
 * server (xdotool, which uses XTEST) to the scene view, the time bar's keyframe strip and
 * the graph view, each created standalone in a plain window on the built-in example.
 */

typedef struct
{
  GtkWindow   *window;
  KmDocument  *document;
  KmSceneView *scene_view;
  KmTimeBar   *time_bar;
  KmGraphView *graph_view;
} Fixture;

typedef gboolean (*Condition) (Fixture *f);

static void
timeout_cb (gpointer data)
{
  *(gboolean *) data = TRUE;
}

static gboolean
wait_for (Fixture   *f,
          Condition  condition,
          guint      ms)
{
  return test_app_wait_until ((GSourceFunc) condition, f, ms);
}

static gboolean
solved (Fixture *f)
{
  return !km_document_get_solving (f->document);
}

static gboolean
wait_solved_document (KmDocument *document)
{
  gboolean late = FALSE;
  guint id = g_timeout_add_once (20000, timeout_cb, &late);

  while (km_document_get_solving (document) && !late)
    g_main_context_iteration (NULL, TRUE);
  if (!late)
    g_source_remove (id);
  return !km_document_get_solving (document);
}

static gboolean
drag_idle (Fixture *f)
{
  return !km_drag_solver_get_busy (km_scene_view_get_drag_solver (f->scene_view));
}

static gboolean
rendered (Fixture *f)
{
  return km_scene_view_get_n_renders (f->scene_view) > 0
         || gtk_gl_area_get_error (GTK_GL_AREA (f->scene_view)) != NULL;
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  GtkWidget *box;

  f->document = km_document_new ();
  g_assert_true (km_document_load_defaults (f->document, &error));
  g_assert_no_error (error);

  f->window = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_default_size (f->window, 720, 640);
  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  f->scene_view = KM_SCENE_VIEW (km_scene_view_new ());
  f->time_bar = KM_TIME_BAR (km_time_bar_new ());
  f->graph_view = KM_GRAPH_VIEW (km_graph_view_new ());
  gtk_widget_set_size_request (GTK_WIDGET (f->scene_view), 700, 400);
  gtk_widget_set_size_request (GTK_WIDGET (f->graph_view), 700, 120);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (f->scene_view));
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (f->time_bar));
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (f->graph_view));
  gtk_window_set_child (f->window, box);
  km_scene_view_set_document (f->scene_view, f->document);
  km_time_bar_set_document (f->time_bar, f->document);
  km_graph_view_set_document (f->graph_view, f->document);
  gtk_window_present (f->window);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_assert_true (wait_for (f, solved, 20000));
  g_assert_true (wait_for (f, drag_idle, 5000));
  gtk_window_destroy (f->window);
  /* A solve's task (GTask) holds the document until its answer comes back. */
  g_assert_true (test_app_unref_and_wait_finalized (f->document, 5000));
}

/* FALSE (the test is skipped) without X11, xdotool or GL. */
static gboolean
ready_or_skip (Fixture *f)
{
  const GError *error;

  if (!test_app_real_input_or_skip (GTK_WIDGET (f->window)))
    return FALSE;
  g_assert_true (wait_for (f, solved, 20000));
  g_assert_true (wait_for (f, rendered, 10000));
  error = gtk_gl_area_get_error (GTK_GL_AREA (f->scene_view));
  if (error != NULL)
    {
      g_test_skip_printf ("no GL context: %s", error->message);
      return FALSE;
    }
  /* Pin the camera: a user-placed camera no longer reframes when a solve ends. */
  km_scene_view_set_camera (f->scene_view, km_scene_view_get_camera (f->scene_view));
  return TRUE;
}

#ifdef GDK_WINDOWING_X11
static char *
window_xid (Fixture *f)
{
  GdkSurface *surface = gtk_native_get_surface (GTK_NATIVE (f->window));

  return g_strdup_printf ("%lu", (gulong) gdk_x11_surface_get_xid (surface));
}
#endif

/* A point of @widget in the X window's coordinates. */
static void
to_window (Fixture   *f,
           GtkWidget *widget,
           double     x,
           double     y,
           int       *wx,
           int       *wy)
{
  double tx, ty, sx, sy;

  g_assert_true (gtk_widget_translate_coordinates (widget, GTK_WIDGET (f->window), x, y,
                                                   &tx, &ty));
  gtk_native_get_surface_transform (GTK_NATIVE (f->window), &sx, &sy);
  *wx = (int) lround (tx + sx);
  *wy = (int) lround (ty + sy);
}

static void
add_move (Fixture   *f,
          GPtrArray *args,
          GtkWidget *widget,
          double     x,
          double     y)
{
#ifdef GDK_WINDOWING_X11
  int wx, wy;

  to_window (f, widget, x, y, &wx, &wy);
  g_ptr_array_add (args, g_strdup ("mousemove"));
  g_ptr_array_add (args, g_strdup ("--window"));
  g_ptr_array_add (args, window_xid (f));
  g_ptr_array_add (args, g_strdup_printf ("%d", wx));
  g_ptr_array_add (args, g_strdup_printf ("%d", wy));
  g_ptr_array_add (args, g_strdup ("sleep"));
  g_ptr_array_add (args, g_strdup ("0.03"));
#endif
}

/* A press of the first button at (x, y) in @widget's coordinates, with @ctrl after Ctrl
 * goes down (held until add_release()). */
static void
add_press (Fixture   *f,
           GPtrArray *args,
           GtkWidget *widget,
           double     x,
           double     y,
           gboolean   ctrl)
{
  add_move (f, args, widget, x, y);
  if (ctrl)
    {
      g_ptr_array_add (args, g_strdup ("keydown"));
      g_ptr_array_add (args, g_strdup ("ctrl"));
    }
  g_ptr_array_add (args, g_strdup ("mousedown"));
  g_ptr_array_add (args, g_strdup ("1"));
}

/* The release of add_press(), and of Ctrl with @ctrl. */
static void
add_release (GPtrArray *args,
             gboolean   ctrl)
{
  g_ptr_array_add (args, g_strdup ("mouseup"));
  g_ptr_array_add (args, g_strdup ("1"));
  if (ctrl)
    {
      g_ptr_array_add (args, g_strdup ("keyup"));
      g_ptr_array_add (args, g_strdup ("ctrl"));
    }
}

/* A real press at (x0, y0), @steps moves to (x1, y1) and a release, all in @widget's
 * coordinates; with @ctrl, Ctrl held from before the press until after the release. */
static void
real_drag (Fixture   *f,
           GtkWidget *widget,
           double     x0,
           double     y0,
           double     x1,
           double     y1,
           guint      steps,
           gboolean   ctrl)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);

  add_press (f, args, widget, x0, y0, ctrl);
  for (guint s = 1; s <= steps; s++)
    add_move (f, args, widget, x0 + (x1 - x0) * s / steps, y0 + (y1 - y0) * s / steps);
  add_release (args, ctrl);
  test_app_xdotool (GTK_WIDGET (f->window), args);
}

static void
real_move (Fixture   *f,
           GtkWidget *widget,
           double     x,
           double     y)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);

  add_move (f, args, widget, x, y);
  test_app_xdotool (GTK_WIDGET (f->window), args);
}

static void
real_click (Fixture   *f,
            GtkWidget *widget,
            double     x,
            double     y)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);

  add_move (f, args, widget, x, y);
  g_ptr_array_add (args, g_strdup ("click"));
  g_ptr_array_add (args, g_strdup ("1"));
  test_app_xdotool (GTK_WIDGET (f->window), args);
}

static KmVec3
joint_pos (Fixture *f,
           int      joint)
{
  return km_document_get_joint_world (f->document, NULL)[joint].pos;
}

/* Whether the scene view shows about that colour at logical pixel (x, y). */
static gboolean
colour_near (Fixture *f,
             double   x,
             double   y,
             float    r,
             float    g,
             float    b)
{
  g_autoptr(GdkTexture) texture = km_scene_view_grab_texture (f->scene_view);
  g_autofree guint8 *pixels = NULL;
  const guint8 *p;
  int w, h;

  g_assert_nonnull (texture);
  w = gdk_texture_get_width (texture);
  h = gdk_texture_get_height (texture);
  if (x < 0 || y < 0 || x >= w || y >= h)
    return FALSE;
  pixels = g_malloc ((gsize) w * h * 4);
  gdk_texture_download (texture, pixels, (gsize) w * 4);
  p = pixels + ((gsize) y * w + (gsize) x) * 4;   /* B G R A */
  return abs (p[2] - (int) lrintf (r * 255)) <= 12
         && abs (p[1] - (int) lrintf (g * 255)) <= 12
         && abs (p[0] - (int) lrintf (b * 255)) <= 12;
}

/* How many pixels within @r of logical pixel (x, y) show about that colour. */
static int
colour_count_around (Fixture *f,
                     double   x,
                     double   y,
                     int      r,
                     float    red,
                     float    green,
                     float    blue)
{
  int n = 0;

  for (int dy = -r; dy <= r; dy++)
    for (int dx = -r; dx <= r; dx++)
      n += colour_near (f, x + dx, y + dy, red, green, blue);
  return n;
}

static int hover_wanted;

static gboolean
hover_is (Fixture *f)
{
  return km_scene_view_get_hover_joint (f->scene_view) == hover_wanted;
}

/* Hovering in edit mode highlights the joint under the pointer, and nothing over empty
 * space; a click picks the same joint. */
static void
test_pick (Fixture       *f,
           gconstpointer  data)
{
  GtkWidget *view = GTK_WIDGET (f->scene_view);
  double x, y;

  if (!ready_or_skip (f))
    return;

  g_assert_true (gtk_widget_activate_action (view, "scene.toggle-edit-mode", NULL));
  g_assert_true (km_scene_view_get_edit_mode (f->scene_view));

  /* The elbow (joint 2). */
  test_app_project (f->scene_view, joint_pos (f, 2), &x, &y);
  real_move (f, view, x, y);
  hover_wanted = 2;
  g_assert_true (wait_for (f, hover_is, 5000));

  /* The top-left corner shows only the floor grid's background. */
  real_move (f, view, 3, 3);
  hover_wanted = -1;
  g_assert_true (wait_for (f, hover_is, 5000));

  km_document_set_selected_joint (f->document, -1);
  real_click (f, view, x, y);
  test_app_spin_for (100);
  g_assert_cmpint (km_document_get_selected_joint (f->document), ==, 2);
  real_click (f, view, 3, 3);
  test_app_spin_for (100);
  g_assert_cmpint (km_document_get_selected_joint (f->document), ==, -1);

  /* Leaving edit mode drops the highlight. */
  real_move (f, view, x, y);
  g_assert_true (gtk_widget_activate_action (view, "scene.toggle-edit-mode", NULL));
  g_assert_false (km_scene_view_get_edit_mode (f->scene_view));
  g_assert_cmpint (km_scene_view_get_hover_joint (f->scene_view), ==, -1);
}

/* A joint whose marker lies on a handle of the end effector's gizmo (zoomed out until the
 * gizmo, the same size on screen, reaches a joint next to the effector): the joint is what
 * the pointer there hovers, as the effector's own sphere is, not the ring or arrow. */
static void
test_pick_under_gizmo (Fixture       *f,
                       gconstpointer  data)
{
  GtkWidget *view = GTK_WIDGET (f->scene_view);
  KmSkeleton *skeleton = km_document_get_skeleton (f->document);
  int effector = km_document_get_effector (f->document);
  KmCamera camera;
  double distance, yaw;
  int found = -1, width, height;
  double x = 0, y = 0;

  if (!ready_or_skip (f))
    return;
  width = gtk_widget_get_width (view);
  height = gtk_widget_get_height (view);
  camera = *km_scene_view_get_camera (f->scene_view);
  distance = camera.distance;
  yaw = camera.yaw;
  g_assert_true (gtk_widget_activate_action (view, "scene.toggle-edit-mode", NULL));
  g_assert_false (km_target_track_has_effector_offset (km_document_get_targets (f->document)));

  for (guint turn = 0; turn < 8 && found < 0; turn++)
    for (double zoom = 1.0; zoom < 40.0 && found < 0; zoom *= 1.03)
      {
        KmGizmo gizmo = { .centre = joint_pos (f, effector) };

        camera.yaw = yaw + turn * G_PI / 4.0;
        camera.distance = distance * zoom;
        gizmo.size = km_gizmo_size_for_view (&camera, gizmo.centre);
        for (guint j = 0; j < km_skeleton_get_n_joints (skeleton) && found < 0; j++)
          {
            gboolean apart = TRUE;

            if ((int) j == effector
                || !km_camera_project (&camera, joint_pos (f, (int) j), width, height, &x, &y)
                || x < 10 || y < 10 || x > width - 10 || y > height - 10
                || km_gizmo_pick (&gizmo, &camera, width, height, x, y) == KM_GIZMO_NONE)
              continue;
            /* (Its marker alone there: no other joint's drawn over it.) */
            for (guint k = 0; k < km_skeleton_get_n_joints (skeleton) && apart; k++)
              {
                double kx, ky;

                apart = k == j || !km_camera_project (&camera, joint_pos (f, (int) k), width,
                                                      height, &kx, &ky)
                        || hypot (kx - x, ky - y) > 15.0;
              }
            if (apart)
              found = (int) j;
          }
      }
  g_assert_cmpint (found, >=, 0);
  g_test_message ("joint %s at (%.0f, %.0f) under the gizmo",
                  km_skeleton_get_joint (skeleton, (guint) found)->name, x, y);
  km_scene_view_set_camera (f->scene_view, &camera);
  test_app_spin_for (100);

  real_move (f, view, 3, 3);
  hover_wanted = -1;
  g_assert_true (wait_for (f, hover_is, 5000));
  real_move (f, view, x, y);
  hover_wanted = found;
  g_assert_true (wait_for (f, hover_is, 5000));
}

/* Dragging the end effector moves it under the pointer within the limits, and one undo
 * gives back the exact pose. */
static void
test_drag_effector (Fixture       *f,
                    gconstpointer  data)
{
  GtkWidget *view = GTK_WIDGET (f->scene_view);
  int effector = km_document_get_effector (f->document);
  g_autofree double *before = NULL;
  const double *pose;
  double x0, y0, x1, y1, x, y;
  KmVec3 start;
  guint n_dof, n_lat;

  if (!ready_or_skip (f))
    return;

  km_scene_view_set_edit_mode (f->scene_view, TRUE);
  pose = km_document_get_pose (f->document, &n_dof);
  before = g_memdup2 (pose, n_dof * sizeof (double));
  start = joint_pos (f, effector);
  test_app_project (f->scene_view, start, &x0, &y0);
  /* Away from the gizmo's arrows: the free drag in the view plane. */
  x1 = x0 - 30;
  y1 = y0 + 25;
  real_drag (f, view, x0, y0, x1, y1, 10, FALSE);
  g_assert_true (wait_for (f, drag_idle, 10000));

  test_app_project (f->scene_view, joint_pos (f, effector), &x, &y);
  g_test_message ("effector at (%.1f, %.1f), pointer released at (%.1f, %.1f)", x, y, x1, y1);
  g_assert_cmpfloat (hypot (x - x1, y - y1), <, 4.0);
  g_assert_cmpfloat (km_vec3_length (km_vec3_sub (joint_pos (f, effector), start)), >, 0.05);
  g_assert_true (km_document_get_limits_held (f->document, 1e-9));
  /* On screen: the dragged joint (selected, under the pointer) is drawn where it went. */
  test_app_spin_for (100);
  g_assert_true (colour_near (f, x1, y1, KM_RENDER_HOVER_RGB)
                 || colour_near (f, x1, y1, KM_RENDER_SELECTED_RGB));
  g_assert_false (colour_near (f, x0, y0, KM_RENDER_HOVER_RGB)
                  || colour_near (f, x0, y0, KM_RENDER_SELECTED_RGB)
                  || colour_near (f, x0, y0, KM_RENDER_EFFECTOR_RGB));
  km_scene_view_get_drag_latencies (f->scene_view, &n_lat);
  g_assert_cmpuint (n_lat, >, 0);

  g_assert_true (km_document_can_undo (f->document));
  g_assert_true (km_document_undo (f->document));
  pose = km_document_get_pose (f->document, NULL);
  for (guint i = 0; i < n_dof; i++)
    g_assert_cmpfloat (pose[i], ==, before[i]);
}

static void
count_answer_cb (KmDragSolver       *solver,
                 const KmIkSolution *solution,
                 gint64              request_time,
                 guint              *n)
{
  (*n)++;
}

/* Edit mode on, with nothing to undo yet: a copy of the pose before a drag, or NULL
 * when the view cannot draw here (the test is skipped). */
static double *
edit_mode_pose (Fixture *f,
                guint   *n_dof)
{
  const double *pose;

  if (!ready_or_skip (f))
    return NULL;
  km_scene_view_set_edit_mode (f->scene_view, TRUE);
  test_app_spin_for (100);
  g_assert_false (km_document_can_undo (f->document));
  pose = km_document_get_pose (f->document, n_dof);
  return g_memdup2 (pose, *n_dof * sizeof (double));
}

/* A real drag of the end effector, its moves @pause_s seconds apart (longer than the
 * document's merge pause, EDIT_MERGE_PAUSE_MS = 500 ms, so that each answer comes, and the
 * pause after it runs out, before the next move) and the release right after the last
 * move (its answer, and the release's, come after the release): one undo step all the same.
 * One undo gives back the exact pose of before the drag and leaves nothing to undo; redo
 * gives the exact pose the drag left. With Ctrl held (data) or without. */
static void
test_drag_one_step (Fixture       *f,
                    gconstpointer  data)
{
  gboolean ctrl = GPOINTER_TO_INT (data);
  GtkWidget *view = GTK_WIDGET (f->scene_view);
  KmDragSolver *solver = km_scene_view_get_drag_solver (f->scene_view);
  int effector = km_document_get_effector (f->document);
  g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  g_autofree double *before = NULL;
  g_autofree double *after = NULL;
  const double *pose;
  double x0, y0;
  guint n_dof, n_answers = 0;
  gboolean moved = FALSE;
  gulong id;

  before = edit_mode_pose (f, &n_dof);
  if (before == NULL)
    return;
  test_app_project (f->scene_view, joint_pos (f, effector), &x0, &y0);

  add_press (f, args, view, x0, y0, ctrl);
  /* Away from the gizmo's arrows: the free drag in the view plane. */
  for (int s = 1; s <= 4; s++)
    {
      add_move (f, args, view, x0 - 8 * s, y0 + 6 * s);
      if (s < 4)
        {
          g_ptr_array_add (args, g_strdup ("sleep"));
          g_ptr_array_add (args, g_strdup ("0.7"));
        }
    }
  /* add_move's own 30 ms pause only */
  add_release (args, ctrl);
  id = g_signal_connect (solver, "solved", G_CALLBACK (count_answer_cb), &n_answers);
  test_app_xdotool (GTK_WIDGET (f->window), args);
  g_assert_true (wait_for (f, drag_idle, 10000));
  /* Past the merge pause: anything that would close the step on a timer has. */
  test_app_spin_for (700);
  g_signal_handler_disconnect (solver, id);

  pose = km_document_get_pose (f->document, NULL);
  after = g_memdup2 (pose, n_dof * sizeof (double));
  for (guint i = 0; i < n_dof; i++)
    moved |= fabs (after[i] - before[i]) > 1e-3;
  g_test_message ("%u answers", n_answers);
  g_assert_cmpuint (n_answers, >, 1);
  g_assert_true (moved);

  g_assert_true (km_document_can_undo (f->document));
  g_assert_true (km_document_undo (f->document));
  test_app_spin ();
  pose = km_document_get_pose (f->document, NULL);
  for (guint i = 0; i < n_dof; i++)
    g_assert_cmpfloat (pose[i], ==, before[i]);
  g_assert_false (km_document_can_undo (f->document));

  g_assert_true (km_document_redo (f->document));
  test_app_spin ();
  pose = km_document_get_pose (f->document, NULL);
  for (guint i = 0; i < n_dof; i++)
    g_assert_cmpfloat (pose[i], ==, after[i]);
  g_assert_false (km_document_can_redo (f->document));
}

typedef struct
{
  KmDocument *document;
  gboolean    undone;
  gboolean    busy;      /* the release's answer was still to come */
} UndoAtRelease;

static void
undo_at_release_cb (GtkGestureDrag *gesture,
                    double          dx,
                    double          dy,
                    UndoAtRelease  *undo)
{
  GtkWidget *widget = gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (gesture));
  KmSceneView *view = KM_SCENE_VIEW (widget);

  undo->busy = km_drag_solver_get_busy (km_scene_view_get_drag_solver (view));
  undo->undone = km_document_undo (undo->document);
}

/* The scene view's drag gesture (the one a 3-D drag runs through). */
static GtkGesture *
view_drag_gesture (GtkWidget *view)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (view);
  GtkGesture *drag = NULL;

  for (guint i = 0; i < g_list_model_get_n_items (controllers) && drag == NULL; i++)
    {
      g_autoptr(GObject) controller = g_list_model_get_item (controllers, i);

      if (GTK_IS_GESTURE_DRAG (controller))
        drag = GTK_GESTURE (controller);
    }
  g_assert_nonnull (drag);
  return drag;
}

/* Undone the moment it is released (Ctrl+Z pressed before the answers still due came):
 * the drag stays undone, the answers that come after do not make a step of their own that
 * puts its pose back; redo gives the drag back. */
static void
test_drag_undo_at_release (Fixture       *f,
                           gconstpointer  data)
{
  GtkWidget *view = GTK_WIDGET (f->scene_view);
  int effector = km_document_get_effector (f->document);
  g_autofree double *before = NULL;
  UndoAtRelease undo = { f->document, FALSE, FALSE };
  GtkGesture *drag = NULL;
  const double *pose;
  double x0, y0;
  guint n_dof;
  gboolean moved = FALSE;
  gulong id;

  before = edit_mode_pose (f, &n_dof);
  if (before == NULL)
    return;
  test_app_project (f->scene_view, joint_pos (f, effector), &x0, &y0);

  /* After the view's own handler, in the same emission: the answer to the release's
   * request cannot have come yet. */
  drag = view_drag_gesture (view);
  id = g_signal_connect_after (drag, "drag-end", G_CALLBACK (undo_at_release_cb), &undo);
  {
    g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);

    add_press (f, args, view, x0, y0, FALSE);
    for (int s = 1; s <= 4; s++)
      add_move (f, args, view, x0 - 8 * s, y0 + 6 * s);
    /* Answers for the moves are on the body before the release. */
    g_ptr_array_add (args, g_strdup ("sleep"));
    g_ptr_array_add (args, g_strdup ("0.3"));
    add_release (args, FALSE);
    test_app_xdotool (GTK_WIDGET (f->window), args);
  }
  g_assert_true (wait_for (f, drag_idle, 10000));
  test_app_spin_for (700);
  g_signal_handler_disconnect (drag, id);
  g_assert_true (undo.busy);
  g_assert_true (undo.undone);

  pose = km_document_get_pose (f->document, NULL);
  for (guint i = 0; i < n_dof; i++)
    g_assert_cmpfloat (pose[i], ==, before[i]);
  g_assert_false (km_document_can_undo (f->document));
  g_assert_true (km_document_can_redo (f->document));
  g_assert_true (km_document_redo (f->document));
  pose = km_document_get_pose (f->document, NULL);
  for (guint i = 0; i < n_dof; i++)
    moved |= fabs (pose[i] - before[i]) > 1e-3;
  g_assert_true (moved);
}

typedef struct
{
  KmDocument *document;
  int         slider;     /* stands for the joint panel, which holds the edit it begins */
  gboolean    held;
  gboolean    busy;       /* the release's answer was still to come */
  double     *at_press;   /* the pose when the slider was pressed */
  guint       n_dof;
} SliderAtRelease;

static void
slider_at_release_cb (GtkGestureDrag  *gesture,
                      double           dx,
                      double           dy,
                      SliderAtRelease *slider)
{
  GtkWidget *widget = gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (gesture));
  const double *pose;

  slider->busy = km_drag_solver_get_busy (km_scene_view_get_drag_solver (KM_SCENE_VIEW (widget)));
  /* As the joint panel does when one of its sliders is pressed */
  km_document_close_edit (slider->document);
  km_document_hold_edit (slider->document, &slider->slider);
  pose = km_document_get_pose (slider->document, &slider->n_dof);
  slider->at_press = g_memdup2 (pose, slider->n_dof * sizeof (double));
  slider->held = TRUE;
}

/* A slider pressed the moment the drag is released, before the drag's answers still due
 * came: those answers do not change the pose (they would join the slider's step), and one
 * undo takes back the slider's step only, a second the drag's. */
static void
test_drag_then_slider_hold (Fixture       *f,
                            gconstpointer  data)
{
  GtkWidget *view = GTK_WIDGET (f->scene_view);
  int effector = km_document_get_effector (f->document);
  g_autofree double *before = NULL;
  SliderAtRelease slider = { f->document, 0, FALSE, FALSE, NULL, 0 };
  GtkGesture *drag = NULL;
  const double *pose;
  double x0, y0;
  guint n_dof;
  gboolean moved = FALSE;
  gulong id;

  before = edit_mode_pose (f, &n_dof);
  if (before == NULL)
    return;
  test_app_project (f->scene_view, joint_pos (f, effector), &x0, &y0);

  drag = view_drag_gesture (view);
  /* After the view's own handler, in the same emission: the answer to the release's
   * request cannot have come yet. */
  id = g_signal_connect_after (drag, "drag-end", G_CALLBACK (slider_at_release_cb), &slider);
  {
    g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);

    add_press (f, args, view, x0, y0, FALSE);
    for (int s = 1; s <= 4; s++)
      add_move (f, args, view, x0 - 8 * s, y0 + 6 * s);
    /* A last move that the answers have not caught up with at the release */
    add_move (f, args, view, x0 - 60, y0 + 50);
    add_release (args, FALSE);
    test_app_xdotool (GTK_WIDGET (f->window), args);
  }
  g_assert_true (wait_for (f, drag_idle, 10000));
  test_app_spin_for (700);
  g_signal_handler_disconnect (drag, id);
  g_assert_true (slider.held);
  g_assert_true (slider.busy);
  g_assert_cmpuint (slider.n_dof, ==, n_dof);

  /* The late answers left the pose as the slider's press found it. */
  pose = km_document_get_pose (f->document, NULL);
  for (guint i = 0; i < n_dof; i++)
    g_assert_cmpfloat (pose[i], ==, slider.at_press[i]);
  for (guint i = 0; i < n_dof; i++)
    moved |= fabs (slider.at_press[i] - before[i]) > 1e-3;
  g_assert_true (moved);

  /* The slider's edit, released */
  km_document_set_dof_value (f->document, 0, slider.at_press[0] + 0.2);
  km_document_release_edit (f->document, &slider.slider);
  test_app_spin ();

  g_assert_true (km_document_undo (f->document));
  test_app_spin ();
  pose = km_document_get_pose (f->document, NULL);
  for (guint i = 0; i < n_dof; i++)
    g_assert_cmpfloat (pose[i], ==, slider.at_press[i]);
  g_assert_true (km_document_undo (f->document));
  test_app_spin ();
  pose = km_document_get_pose (f->document, NULL);
  for (guint i = 0; i < n_dof; i++)
    g_assert_cmpfloat (pose[i], ==, before[i]);
  g_free (slider.at_press);
}

/* Dragging a joint that is not the tip turns it directly (FK) and nothing else. */
static void
test_drag_joint_fk (Fixture       *f,
                    gconstpointer  data)
{
  GtkWidget *view = GTK_WIDGET (f->scene_view);
  g_autofree double *before = NULL;
  const double *pose;
  double x, y;
  guint n_dof;

  if (!ready_or_skip (f))
    return;

  km_scene_view_set_edit_mode (f->scene_view, TRUE);
  pose = km_document_get_pose (f->document, &n_dof);
  before = g_memdup2 (pose, n_dof * sizeof (double));

  /* The elbow (joint 2, DOF 3), dragged around its own image. */
  test_app_project (f->scene_view, joint_pos (f, 2), &x, &y);
  real_drag (f, view, x, y, x + 1, y + 2, 2, FALSE);
  real_drag (f, view, x + 4, y, x, y + 40, 8, FALSE);
  test_app_spin_for (50);
  pose = km_document_get_pose (f->document, NULL);
  g_assert_cmpfloat (fabs (pose[3] - before[3]), >, 0.01);
  for (guint i = 0; i < n_dof; i++)
    if (i != 3)
      g_assert_cmpfloat (pose[i], ==, before[i]);
  g_assert_true (km_document_get_limits_held (f->document, 0.0));
}

/* Loads a model written as skeleton JSON into the document (a new current body). */
static void
import_skeleton (Fixture    *f,
                 const char *name,
                 const char *json)
{
  g_autofree char *path = g_build_filename (g_get_tmp_dir (), name, NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_set_contents (path, json, -1, &error));
  g_assert_no_error (error);
  g_assert_true (km_document_import_file (f->document, file, &error));
  g_assert_no_error (error);
  g_assert_true (wait_for (f, solved, 20000));
  g_unlink (path);
}

/* Imports the Scenebuilder planar arm (tests/data/scenebuilder/arm2_mm_deg.xml): its IK
 * target is for a tool point 0.3 m off the "elbow" joint, position only. */
static void
import_tool_arm (Fixture *f)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "scenebuilder",
                                                 "arm2_mm_deg.xml", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  KmTargetTrack *targets;
  KmVec3 offset;

  g_assert_true (km_document_import_file (f->document, file, &error));
  g_assert_no_error (error);
  g_assert_true (wait_for (f, solved, 20000));
  targets = km_document_get_targets (f->document);
  g_assert_nonnull (targets);
  offset = km_target_track_get_effector_offset (targets);
  g_assert_cmpfloat_with_epsilon (offset.z, 0.3, 1e-9);
  g_assert_true (km_target_track_get_position_only (targets));
}

/* The tool point (the point the targets are for) of the pose shown: the targets' effector
 * offset in the effector joint's frame, as km_document_get_effector_point() has it. */
static KmVec3
tool_point (Fixture *f)
{
  int effector = km_document_get_effector (f->document);
  const KmTransform *joint = &km_document_get_joint_world (f->document, NULL)[effector];
  KmVec3 offset = km_target_track_get_effector_offset (km_document_get_targets (f->document));
  KmTransform point;

  g_assert_true (km_document_get_effector_point (f->document, &point));
  g_assert_cmpfloat (km_vec3_length (km_vec3_sub (point.pos, km_transform_apply (joint, offset))),
                     <, 1e-12);
  return km_transform_apply (joint, offset);
}

/* K (time.set-keyframe) on targets for a tool point off the effector joint keys that point,
 * not the joint's origin: keying the pose shown leaves the motion as it was there. */
static void
test_keyframe_tool_point (Fixture       *f,
                          gconstpointer  data)
{
  const guint frame = 60;
  int effector;
  const KmTargetKeyframe *key;
  g_autofree double *before = NULL;
  const double *pose;
  KmVec3 point;
  guint n_dof;
  int index;

  import_tool_arm (f);
  effector = km_document_get_effector (f->document);
  km_document_set_current_frame (f->document, frame);
  g_assert_true (wait_for (f, solved, 20000));
  test_app_spin ();
  pose = km_document_get_pose (f->document, &n_dof);
  before = g_memdup2 (pose, n_dof * sizeof (double));
  point = tool_point (f);
  /* The tool point is the joint's offset (0, 0, 0.3) in its frame, 0.3 m off its origin. */
  g_assert_cmpfloat_with_epsilon (km_vec3_length (km_vec3_sub (point, joint_pos (f, effector))),
                                  0.3, 1e-9);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->time_bar), "time.set-keyframe",
                                             NULL));
  index = km_target_track_find_keyframe (km_document_get_targets (f->document), frame);
  g_assert_cmpint (index, >=, 0);
  key = km_target_track_get_keyframe (km_document_get_targets (f->document), (guint) index);
  g_test_message ("keyed (%.6f, %.6f, %.6f), tool point (%.6f, %.6f, %.6f)", key->position.x,
                  key->position.y, key->position.z, point.x, point.y, point.z);
  g_assert_cmpfloat (km_vec3_length (km_vec3_sub (key->position, point)), <, 1e-9);

  /* The motion solved again from the new keyframe has the same pose there. */
  g_assert_true (wait_for (f, solved, 20000));
  km_document_set_current_frame (f->document, 0);
  km_document_set_current_frame (f->document, frame);
  test_app_spin ();
  pose = km_document_get_pose (f->document, &n_dof);
  for (guint i = 0; i < n_dof; i++)
    g_assert_cmpfloat_with_epsilon (pose[i], before[i], 1e-6);
  g_assert_cmpfloat (km_vec3_length (km_vec3_sub (tool_point (f), point)), <, 1e-6);
}

/* The gizmo of an end effector whose targets are for a tool point stands at that point, and
 * a real drag of its X arrow moves the tool point (not the joint's origin) as far as the
 * pointer went along the arrow. */
static void
test_drag_tool_point (Fixture       *f,
                      gconstpointer  data)
{
  GtkWidget *view = GTK_WIDGET (f->scene_view);
  KmCamera camera;
  KmGizmo gizmo = { 0 };
  KmVec3 base, end, start, wanted, origin, dir, x_axis = km_vec3 (1, 0, 0), moved;
  double x0, y0, x1, y1, s0, s1, x, y;
  int w, h, effector;

  import_tool_arm (f);
  if (!ready_or_skip (f))
    return;

  /* Facing the arm's plane (XZ: looking along +Y, +X to the right), orthographic, framing
   * the arm. */
  km_camera_reset (&camera);
  camera.yaw = -G_PI / 2;
  camera.pitch = 0.0;
  camera.orthographic = TRUE;
  camera.target = km_vec3 (0.1, 0, 0.4);
  camera.distance = 1.5;
  km_scene_view_set_camera (f->scene_view, &camera);
  km_scene_view_set_edit_mode (f->scene_view, TRUE);
  test_app_spin_for (100);
  w = gtk_widget_get_width (view);
  h = gtk_widget_get_height (view);
  effector = km_document_get_effector (f->document);
  start = tool_point (f);
  gizmo.centre = start;
  gizmo.size = km_gizmo_size_for_view (&camera, start);
  gizmo.translate_only = TRUE;
  km_gizmo_arrow (&gizmo, KM_GIZMO_MOVE_X, &base, &end);
  g_assert_true (km_camera_project (&camera, km_vec3_scale (km_vec3_add (base, end), 0.5), w, h,
                                    &x0, &y0));
  /* Left along the arrow, within the arm's reach. */
  x1 = x0 - 40;
  y1 = y0;
  km_camera_ray (&camera, x0, y0, w, h, &origin, &dir);
  s0 = km_ray_line_param (origin, dir, start, x_axis);
  km_camera_ray (&camera, x1, y1, w, h, &origin, &dir);
  s1 = km_ray_line_param (origin, dir, start, x_axis);
  wanted = km_vec3_add (start, km_vec3_scale (x_axis, s1 - s0));
  g_assert_cmpfloat (km_vec3_length (km_vec3_sub (wanted, start)), >, 0.02);

  real_drag (f, view, x0, y0, x1, y1, 10, FALSE);
  g_assert_true (wait_for (f, drag_idle, 10000));
  test_app_spin ();

  moved = tool_point (f);
  g_test_message ("tool point (%.4f, %.4f, %.4f), wanted (%.4f, %.4f, %.4f), joint (%.4f, "
                  "%.4f, %.4f)", moved.x, moved.y, moved.z, wanted.x, wanted.y, wanted.z,
                  joint_pos (f, effector).x, joint_pos (f, effector).y,
                  joint_pos (f, effector).z);
  g_assert_cmpfloat (km_vec3_length (km_vec3_sub (moved, wanted)), <, 1e-4);
  /* On screen: the tool point went as far as the pointer, along the arrow. */
  g_assert_true (km_camera_project (km_scene_view_get_camera (f->scene_view), moved, w, h,
                                    &x, &y));
  g_assert_true (km_camera_project (&camera, start, w, h, &x0, &y0));
  g_assert_cmpfloat (fabs (x - (x0 - 40)), <, 1.0);
  g_assert_cmpfloat (fabs (y - y0), <, 1.0);
  g_assert_true (km_document_get_limits_held (f->document, 1e-9));
}

/* Ctrl+dragging a joint that is not the end effector makes it the IK tip and moves its
 * origin to the point under the pointer through the joints above it: its own DOF, which
 * cannot move its origin, and those below it keep their values. */
static void
test_ctrl_drag_joint_tip (Fixture       *f,
                          gconstpointer  data)
{
  GtkWidget *view = GTK_WIDGET (f->scene_view);
  g_autofree double *before = NULL;
  const KmCamera *camera;
  KmCamera framing;
  KmVec3 start, hit0, hit1, wanted, moved, origin, dir, normal;
  const double *pose;
  double x0, y0, x1, y1;
  guint n_dof;
  int w, h;
  const int wrist = 5;

  if (!ready_or_skip (f))
    return;

  /* Three slides, then three hinges about Y: the wrist's origin can go anywhere near. */
  import_skeleton (f, "slides.json",
                   "{ \"root_name\": \"Root\", \"joints\": [\n"
                   "  { \"name\": \"Root\", \"type\": \"fixed\", \"offset\": [0, 0, 0], "
                   "\"parent\": null },\n"
                   "  { \"name\": \"SlideX\", \"type\": \"prismatic\", \"offset\": [0, 0, 0], "
                   "\"parent\": \"Root\", \"axis\": [1, 0, 0], \"limits\": [-2, 2] },\n"
                   "  { \"name\": \"SlideY\", \"type\": \"prismatic\", \"offset\": [0, 0, 0], "
                   "\"parent\": \"SlideX\", \"axis\": [0, 1, 0], \"limits\": [-2, 2] },\n"
                   "  { \"name\": \"SlideZ\", \"type\": \"prismatic\", \"offset\": [0, 0, 0], "
                   "\"parent\": \"SlideY\", \"axis\": [0, 0, 1], \"limits\": [-2, 2] },\n"
                   "  { \"name\": \"Elbow\", \"type\": \"revolute\", \"offset\": [0, 0, 1], "
                   "\"parent\": \"SlideZ\", \"axis\": [0, 1, 0], \"limits\": [-3, 3] },\n"
                   "  { \"name\": \"Wrist\", \"type\": \"revolute\", \"offset\": [0, 0, 0.6], "
                   "\"parent\": \"Elbow\", \"axis\": [0, 1, 0], \"limits\": [-3, 3] },\n"
                   "  { \"name\": \"Hand\", \"type\": \"revolute\", \"offset\": [0, 0, 0.4], "
                   "\"parent\": \"Wrist\", \"axis\": [0, 1, 0], \"limits\": [-3, 3] },\n"
                   "  { \"name\": \"Tip\", \"type\": \"fixed\", \"offset\": [0, 0, 0.3], "
                   "\"parent\": \"Hand\" }\n] }\n");
  g_assert_cmpint (km_document_get_effector (f->document), ==, 7);
  g_assert_cmpstr (km_skeleton_get_joint (km_document_get_skeleton (f->document), wrist)->name,
                   ==, "Wrist");

  /* Facing the XZ plane (looking along +Y, +X to the right), orthographic: a free drag
   * moves the tip in the XZ plane by exactly what the pointer moves. */
  km_camera_reset (&framing);
  framing.yaw = -G_PI / 2;
  framing.pitch = 0.0;
  framing.orthographic = TRUE;
  framing.target = km_vec3 (0, 0, 1.2);
  framing.distance = 4.0;
  km_scene_view_set_camera (f->scene_view, &framing);
  km_scene_view_set_edit_mode (f->scene_view, TRUE);
  km_document_set_selected_joint (f->document, -1);
  test_app_spin_for (100);
  g_assert_cmpint (km_scene_view_get_ik_tip (f->scene_view), !=, wrist);

  w = gtk_widget_get_width (view);
  h = gtk_widget_get_height (view);
  camera = km_scene_view_get_camera (f->scene_view);
  pose = km_document_get_pose (f->document, &n_dof);
  g_assert_cmpuint (n_dof, ==, 6);
  before = g_memdup2 (pose, n_dof * sizeof (double));
  start = joint_pos (f, wrist);
  g_assert_true (km_camera_project (camera, start, w, h, &x0, &y0));
  x0 = round (x0);
  y0 = round (y0);
  x1 = x0 - 30;
  y1 = y0 + 25;
  normal = km_camera_get_forward (camera);
  km_camera_ray (camera, x0, y0, w, h, &origin, &dir);
  g_assert_true (km_ray_plane (origin, dir, start, normal, &hit0));
  km_camera_ray (camera, x1, y1, w, h, &origin, &dir);
  g_assert_true (km_ray_plane (origin, dir, start, normal, &hit1));
  wanted = km_vec3_add (start, km_vec3_sub (hit1, hit0));
  g_assert_cmpfloat (km_vec3_length (km_vec3_sub (wanted, start)), >, 0.05);

  real_drag (f, view, x0, y0, x1, y1, 10, TRUE);
  g_assert_true (wait_for (f, drag_idle, 10000));
  test_app_spin ();

  g_assert_cmpint (km_scene_view_get_ik_tip (f->scene_view), ==, wrist);
  pose = km_document_get_pose (f->document, NULL);
  moved = joint_pos (f, wrist);
  g_test_message ("wrist (%.4f, %.4f, %.4f), wanted (%.4f, %.4f, %.4f); wrist q %.6f → %.6f, "
                  "hand q %.6f → %.6f", moved.x, moved.y, moved.z, wanted.x, wanted.y, wanted.z,
                  before[4], pose[4], before[5], pose[5]);
  g_assert_cmpfloat (km_vec3_length (km_vec3_sub (moved, wanted)), <, 1e-4);
  /* The wrist's own DOF and the hand's below it, exactly as they were. */
  g_assert_cmpfloat (pose[4], ==, before[4]);
  g_assert_cmpfloat (pose[5], ==, before[5]);
  g_assert_true (km_document_get_limits_held (f->document, 1e-9));
}

/* The elbow angle of every drag answer applied, in order. */
typedef struct
{
  GArray *elbow;
  guint   dof;
} ElbowTrace;

static void
elbow_answer_cb (KmDragSolver       *solver,
                 const KmIkSolution *solution,
                 gint64              request_time,
                 ElbowTrace         *trace)
{
  g_array_append_val (trace->elbow, solution->q[trace->dof]);
}

/* A real drag in the scene view from (@x0, @y0) to (@x1, @y1) in @steps moves, @ctrl held
 * or not; returns the pose it leaves and the elbow angle (DOF 1) of every answer in
 * @elbow. */
static double *
traced_drag (Fixture *f,
             double   x0,
             double   y0,
             double   x1,
             double   y1,
             guint    steps,
             gboolean ctrl,
             GArray  *elbow)
{
  KmDragSolver *solver = km_scene_view_get_drag_solver (f->scene_view);
  ElbowTrace trace = { elbow, 1 };
  const double *pose;
  gulong id;
  guint n_dof;

  g_array_set_size (elbow, 0);
  id = g_signal_connect (solver, "solved", G_CALLBACK (elbow_answer_cb), &trace);
  real_drag (f, GTK_WIDGET (f->scene_view), x0, y0, x1, y1, steps, ctrl);
  g_assert_true (wait_for (f, drag_idle, 10000));
  test_app_spin ();
  g_signal_handler_disconnect (solver, id);
  pose = km_document_get_pose (f->document, &n_dof);
  return g_memdup2 (pose, n_dof * sizeof (double));
}

/* Every answer of a drag whose elbow turns one way from @from to @to lies on that way: the
 * answers shown may skip steps, but none leaves the path for another closest pose. */
static void
assert_elbow_monotonic (GArray *elbow,
                        double  from,
                        double  to)
{
  double previous = from, sign = to >= from ? 1.0 : -1.0;

  for (guint k = 0; k < elbow->len; k++)
    {
      double q = g_array_index (elbow, double, k);

      g_assert_cmpfloat (sign * (q - previous), >=, -1e-6);
      g_assert_cmpfloat (sign * (to - q), >=, -1e-6);
      previous = q;
    }
}

/* A two-joint planar arm (hinges about Y, the arm in the XZ plane, read from skeleton
 * JSON) whose targets (targets JSON) are for a tool point off its end, seen from the
 * three-quarter view: a free drag of the tool point moves the target in the view plane, off
 * the arm's plane, where no pose reaches it exactly. The same drag, undone in between,
 * leaves the same pose both times; the answers along it turn the elbow one way only, from
 * where it was to where it ends (no hop to another closest pose); the second drag starts
 * from the pose shown after the undo. With Ctrl held (data) or without.
 *
 * Written for a review finding (the elbow angle drifting between tries of the same Ctrl
 * drag), which did not show here, nor for a path out past the arm's reach and back, with
 * the pointer 15 times faster than real_drag() moves it, or on Scenebuilder's tool arm
 * (import_tool_arm()): this guards what was checked. A drag solver that solved each step
 * afresh (not continuous, from a random seed) fails it. */
static void
test_drag_tool_point_repeat (Fixture       *f,
                             gconstpointer  data)
{
  gboolean ctrl = GPOINTER_TO_INT (data);
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-drag-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "targets.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) first = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) second = g_array_new (FALSE, FALSE, sizeof (double));
  g_autofree double *before = NULL;
  g_autofree double *after1 = NULL;
  g_autofree double *after2 = NULL;
  const KmCamera *view_camera;
  const double *pose;
  KmCamera camera;
  KmVec3 start, moved, normal, origin, dir_ray, hit0, hit1, wanted;
  double x0, y0, x1, y1;
  guint n_dof;
  int w, h;

  if (!ready_or_skip (f))
    return;

  import_skeleton (f, "planar2.json",
                   "{ \"root_name\": \"Root\", \"joints\": [\n"
                   "  { \"name\": \"Root\", \"type\": \"fixed\", \"offset\": [0, 0, 0], "
                   "\"parent\": null },\n"
                   "  { \"name\": \"Shoulder\", \"type\": \"revolute\", \"offset\": [0, 0, 0.5], "
                   "\"parent\": \"Root\", \"axis\": [0, 1, 0], \"limits\": [-3, 3] },\n"
                   "  { \"name\": \"Elbow\", \"type\": \"revolute\", \"offset\": [0, 0, 0.5], "
                   "\"parent\": \"Shoulder\", \"axis\": [0, 1, 0], \"limits\": [-3, 3] },\n"
                   "  { \"name\": \"Hand\", \"type\": \"fixed\", \"offset\": [0, 0, 0.4], "
                   "\"parent\": \"Elbow\" }\n] }\n");
  /* The targets are for a point 0.2 m along the hand's X, in the arm's plane. */
  g_assert_true (g_file_set_contents (path,
                                      "[ { \"frame\": 0, \"pos\": [0.45, 0, 1.05], "
                                      "\"euler\": [0, 30, 0], "
                                      "\"effector_offset\": [0.2, 0, 0] },\n"
                                      "  { \"frame\": 20, \"pos\": [0.6, 0, 0.9], "
                                      "\"euler\": [0, 50, 0], "
                                      "\"effector_offset\": [0.2, 0, 0] } ]\n", -1, &error));
  g_assert_no_error (error);
  g_assert_true (km_document_import_file (f->document, file, &error));
  g_assert_no_error (error);
  g_assert_true (wait_for (f, solved, 20000));
  g_assert_true (km_target_track_has_effector_offset (km_document_get_targets (f->document)));
  g_assert_cmpint (km_document_get_effector (f->document), ==, 3);

  km_camera_reset (&camera);
  camera.target = km_vec3 (0.3, 0, 0.8);
  camera.distance = 3.0;
  km_scene_view_set_camera (f->scene_view, &camera);
  km_scene_view_set_edit_mode (f->scene_view, TRUE);
  km_document_set_selected_joint (f->document, -1);
  test_app_spin_for (100);

  pose = km_document_get_pose (f->document, &n_dof);
  g_assert_cmpuint (n_dof, ==, 2);
  before = g_memdup2 (pose, n_dof * sizeof (double));
  start = tool_point (f);
  test_app_project (f->scene_view, start, &x0, &y0);
  x0 = round (x0);
  y0 = round (y0);
  x1 = x0 - 72;
  y1 = y0 + 48;
  /* Where the pointer takes the target: in the plane through the tool point facing the
   * eye, well off the arm's plane (y = 0). */
  view_camera = km_scene_view_get_camera (f->scene_view);
  w = gtk_widget_get_width (GTK_WIDGET (f->scene_view));
  h = gtk_widget_get_height (GTK_WIDGET (f->scene_view));
  normal = km_vec3_normalize (km_vec3_sub (km_camera_get_eye (view_camera), start));
  km_camera_ray (view_camera, x0, y0, w, h, &origin, &dir_ray);
  g_assert_true (km_ray_plane (origin, dir_ray, start, normal, &hit0));
  km_camera_ray (view_camera, x1, y1, w, h, &origin, &dir_ray);
  g_assert_true (km_ray_plane (origin, dir_ray, start, normal, &hit1));
  wanted = km_vec3_add (start, km_vec3_sub (hit1, hit0));
  g_assert_cmpfloat (fabs (wanted.y), >, 0.1);

  after1 = traced_drag (f, x0, y0, x1, y1, 18, ctrl, first);
  moved = tool_point (f);
  g_test_message ("tool point (%.4f, %.4f, %.4f) → (%.4f, %.4f, %.4f), target (%.4f, %.4f, "
                  "%.4f); elbow %.6f → %.6f over %u answers", start.x, start.y, start.z,
                  moved.x, moved.y, moved.z, wanted.x, wanted.y, wanted.z, before[1], after1[1],
                  first->len);
  g_assert_cmpuint (first->len, >, 0);
  g_assert_cmpfloat (km_vec3_length (km_vec3_sub (moved, start)), >, 0.1);
  g_assert_cmpfloat (fabs (moved.y), <, 1e-9);
  g_assert_cmpfloat (fabs (after1[1] - before[1]), >, 0.1);
  g_assert_true (km_document_get_limits_held (f->document, 1e-9));
  assert_elbow_monotonic (first, before[1], after1[1]);

  /* Released and undone: the pose the drag started from, where the second starts. */
  g_assert_true (km_document_undo (f->document));
  test_app_spin ();
  pose = km_document_get_pose (f->document, NULL);
  for (guint i = 0; i < n_dof; i++)
    g_assert_cmpfloat (pose[i], ==, before[i]);
  g_assert_cmpfloat (km_vec3_length (km_vec3_sub (tool_point (f), start)), <, 1e-12);

  after2 = traced_drag (f, x0, y0, x1, y1, 18, ctrl, second);
  g_test_message ("second drag: elbow %.6f → %.6f over %u answers; shoulder %.9f / %.9f",
                  before[1], after2[1], second->len, after1[0], after2[0]);
  g_assert_cmpuint (second->len, >, 0);
  assert_elbow_monotonic (second, before[1], after2[1]);
  g_assert_cmpfloat (fabs (after1[1] - after2[1]), <, 1e-9);
  g_assert_cmpfloat (fabs (after1[0] - after2[0]), <, 1e-9);

  g_assert_true (km_document_undo (f->document));
  km_test_remove_tree (dir);
}

/* The gizmo's handles are found where they are drawn, and a 90° drag along the Z rotation
 * ring turns the tip 90° ± 1° about Z. */
static void
test_drag_ring (Fixture       *f,
                gconstpointer  data)
{
  GtkWidget *view = GTK_WIDGET (f->scene_view);
  int w = gtk_widget_get_width (view), h = gtk_widget_get_height (view);
  const KmCamera *camera;
  KmMat3 start, turn, wanted;
  KmGizmo gizmo = { 0 };
  double x, y, x2, y2, angle;
  int tip, s0 = -1;

  if (!ready_or_skip (f))
    return;

  import_skeleton (f, "ball.json",
                   "{ \"root_name\": \"Root\", \"joints\": [\n"
                   "  { \"name\": \"Root\", \"type\": \"fixed\", \"offset\": [0, 0, 0], "
                   "\"parent\": null },\n"
                   "  { \"name\": \"Ball\", \"type\": \"spherical\", \"offset\": [0, 0, 1], "
                   "\"parent\": \"Root\", \"limits\": [[-3, 3], [-1.5, 1.5], [-3, 3]] },\n"
                   "  { \"name\": \"Tip\", \"type\": \"fixed\", \"offset\": [0, 0, 0], "
                   "\"parent\": \"Ball\" }\n] }\n");
  /* A point-sized body: frame it by hand, three metres away. */
  {
    KmCamera view_camera;

    km_camera_reset (&view_camera);
    view_camera.target = km_vec3 (0, 0, 1);
    view_camera.distance = 3.0;
    km_scene_view_set_camera (f->scene_view, &view_camera);
  }
  km_scene_view_set_edit_mode (f->scene_view, TRUE);
  test_app_spin_for (100);
  w = gtk_widget_get_width (view);
  h = gtk_widget_get_height (view);
  camera = km_scene_view_get_camera (f->scene_view);
  tip = km_document_get_effector (f->document);
  g_assert_cmpint (tip, ==, 2);
  start = km_document_get_joint_world (f->document, NULL)[tip].rot;
  gizmo.centre = joint_pos (f, tip);
  gizmo.size = km_gizmo_size_for_view (camera, gizmo.centre);

  /* Arrows and rings pick where they are drawn; empty space picks nothing. */
  {
    KmVec3 base, end;

    km_gizmo_arrow (&gizmo, KM_GIZMO_MOVE_Z, &base, &end);
    g_assert_true (km_camera_project (camera, km_vec3_scale (km_vec3_add (base, end), 0.5), w, h,
                                      &x, &y));
    g_assert_cmpint (km_gizmo_pick (&gizmo, camera, w, h, x, y), ==, KM_GIZMO_MOVE_Z);
    g_assert_cmpint (km_gizmo_pick (&gizmo, camera, w, h, 2, 2), ==, KM_GIZMO_NONE);
  }

  for (int s = 0; s < KM_GIZMO_RING_SEGMENTS && s0 < 0; s++)
    {
      g_assert_true (km_camera_project (camera, km_gizmo_ring_point (&gizmo, KM_GIZMO_ROTATE_Z, s),
                                        w, h, &x, &y));
      if (km_gizmo_pick (&gizmo, camera, w, h, x, y) == KM_GIZMO_ROTATE_Z)
        s0 = s;
    }
  g_assert_cmpint (s0, >=, 0);

  /* Along the ring, a quarter turn anticlockwise about +Z. */
  {
    g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);

    add_press (f, args, view, x, y, FALSE);
    for (int s = 1; s <= 16; s++)
      {
        g_assert_true (km_camera_project (camera,
                                          km_gizmo_ring_point (&gizmo, KM_GIZMO_ROTATE_Z, s0 + s),
                                          w, h, &x2, &y2));
        add_move (f, args, view, x2, y2);
      }
    add_release (args, FALSE);
    test_app_xdotool (GTK_WIDGET (f->window), args);
  }
  g_assert_true (wait_for (f, drag_idle, 10000));

  km_mat3_from_axis_angle (km_vec3 (0, 0, 1), G_PI / 2, &turn);
  km_mat3_mul (&turn, &start, &wanted);
  angle = km_mat3_rotation_angle (&km_document_get_joint_world (f->document, NULL)[tip].rot,
                                  &wanted);
  g_test_message ("turned to within %.3f° of 90° about Z", angle * 180 / G_PI);
  g_assert_cmpfloat (angle * 180 / G_PI, <, 1.0);
  g_assert_true (km_document_get_limits_held (f->document, 1e-9));
}

static void
assert_keyframe_equal (const KmTargetKeyframe *a,
                       const KmTargetKeyframe *b)
{
  g_assert_cmpuint (a->frame, ==, b->frame);
  g_assert_cmpfloat (a->position.x, ==, b->position.x);
  g_assert_cmpfloat (a->position.y, ==, b->position.y);
  g_assert_cmpfloat (a->position.z, ==, b->position.z);
  g_assert_cmpfloat (a->orientation.w, ==, b->orientation.w);
  g_assert_cmpfloat (a->orientation.x, ==, b->orientation.x);
  g_assert_cmpfloat (a->orientation.y, ==, b->orientation.y);
  g_assert_cmpfloat (a->orientation.z, ==, b->orientation.z);
}

/* In edit mode a selected joint other than the IK tip carries a translation gizmo: dragging
 * one of its arrows moves the joint's offset along that world axis, previewed while the
 * button is down and applied as one undo step on release. */
static void
test_drag_offset (Fixture       *f,
                  gconstpointer  data)
{
  GtkWidget *view = GTK_WIDGET (f->scene_view);
  int w, h, joint = 2;
  const KmCamera *camera;
  KmSkeleton *before;
  KmGizmo gizmo = { 0 };
  KmGizmoHandle handle = KM_GIZMO_NONE;
  g_autofree double *q0 = NULL;
  KmVec3 offset0, pos0, axis, moved, base, end;
  KmMat3 parent_rot;
  KmCamera view_camera;
  guint n_dof;
  double best = 0, x0, y0, bx, by, ex, ey, ux, uy, x1, y1, px, py, along;

  if (!ready_or_skip (f))
    return;

  km_scene_view_set_edit_mode (f->scene_view, TRUE);
  km_document_set_selected_joint (f->document, joint);
  g_assert_cmpint (joint, !=, km_scene_view_get_ik_tip (f->scene_view));
  g_assert_cmpint (joint, !=, km_document_get_effector (f->document));
  test_app_spin_for (100);
  w = gtk_widget_get_width (view);
  h = gtk_widget_get_height (view);
  camera = km_scene_view_get_camera (f->scene_view);
  view_camera = *camera;
  before = km_document_get_skeleton (f->document);
  offset0 = km_skeleton_get_joint (before, joint)->offset;
  pos0 = joint_pos (f, joint);
  parent_rot = km_document_get_joint_world (f->document, NULL)[km_skeleton_get_joint (before,
                                                                                      joint)->parent].rot;
  km_document_get_pose (f->document, &n_dof);
  q0 = g_memdup2 (km_document_get_pose (f->document, NULL), n_dof * sizeof (double));

  /* The gizmo on the elbow: the arrow that looks longest on screen, grabbed at its middle. */
  gizmo.centre = pos0;
  gizmo.size = km_gizmo_size_for_view (camera, pos0);
  gizmo.translate_only = TRUE;
  for (KmGizmoHandle a = KM_GIZMO_MOVE_X; a <= KM_GIZMO_MOVE_Z; a++)
    {
      km_gizmo_arrow (&gizmo, a, &base, &end);
      g_assert_true (km_camera_project (camera, base, w, h, &bx, &by));
      g_assert_true (km_camera_project (camera, end, w, h, &ex, &ey));
      if (hypot (ex - bx, ey - by) > best)
        best = hypot (ex - bx, ey - by), handle = a;
    }
  g_assert_cmpfloat (best, >, 20);
  km_gizmo_arrow (&gizmo, handle, &base, &end);
  km_camera_project (camera, base, w, h, &bx, &by);
  km_camera_project (camera, end, w, h, &ex, &ey);
  x0 = (bx + ex) / 2, y0 = (by + ey) / 2;
  ux = (ex - bx) / best, uy = (ey - by) / best;
  g_assert_cmpint (km_gizmo_pick (&gizmo, camera, w, h, x0, y0), ==, handle);
  /* Pointing at the arrow highlights no joint: the handle wins. */
  real_move (f, view, x0, y0);
  hover_wanted = -1;
  g_assert_true (wait_for (f, hover_is, 5000));

  /* Press, 40 pixels along the arrow, and hold: the preview moves, the skeleton not yet. */
  x1 = x0 + 40 * ux, y1 = y0 + 40 * uy;
  {
    g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);

    add_press (f, args, view, x0, y0, FALSE);
    for (int s = 1; s <= 8; s++)
      add_move (f, args, view, x0 + (x1 - x0) * s / 8, y0 + (y1 - y0) * s / 8);
    test_app_xdotool (GTK_WIDGET (f->window), args);
  }
  test_app_spin_for (150);
  g_assert_true (km_document_get_skeleton (f->document) == before);
  test_app_project (f->scene_view, pos0, &px, &py);
  g_assert_cmpint (colour_count_around (f, px + 40 * ux, py + 40 * uy, 4,
                                        KM_RENDER_SELECTED_RGB), >, 5);
  {
    g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);

    add_release (args, FALSE);
    test_app_xdotool (GTK_WIDGET (f->window), args);
  }
  test_app_spin_for (50);

  /* Applied: the offset moved along the arrow's world axis only (in the parent's frame as
   * it was posed during the drag), as far as the pointer went. The motion then solves
   * again for the new skeleton, which may pose the arm differently. */
  g_assert_true (km_document_get_skeleton (f->document) != before);
  axis = km_gizmo_axis (handle);
  moved = km_mat3_mul_vec3 (&parent_rot,
                            km_vec3_sub (km_skeleton_get_joint (km_document_get_skeleton (f->document),
                                                                joint)->offset, offset0));
  along = km_vec3_dot (moved, axis);
  g_test_message ("joint %d moved %.4f m along axis %d", joint, along, handle);
  g_assert_cmpfloat (fabs (along), >, 0.01);
  g_assert_cmpfloat (km_vec3_length (km_vec3_sub (moved, km_vec3_scale (axis, along))), <, 1e-9);
  /* The view held still through the edit. */
  camera = km_scene_view_get_camera (f->scene_view);
  g_assert_cmpfloat (km_vec3_length (km_vec3_sub (camera->target, view_camera.target)), ==, 0.0);
  g_assert_cmpfloat (camera->yaw, ==, view_camera.yaw);
  g_assert_cmpfloat (camera->pitch, ==, view_camera.pitch);
  g_assert_cmpfloat (camera->distance, ==, view_camera.distance);
  test_app_project (f->scene_view, km_vec3_add (pos0, moved), &px, &py);
  {
    double qx, qy;

    test_app_project (f->scene_view, pos0, &qx, &qy);
    g_assert_cmpfloat (hypot (px - (qx + 40 * ux), py - (qy + 40 * uy)), <, 3.0);
  }
  g_assert_cmpint (km_document_get_selected_joint (f->document), ==, joint);

  /* One undo gives the exact offset back. */
  g_assert_true (km_document_undo (f->document));
  g_assert_cmpfloat (km_skeleton_get_joint (km_document_get_skeleton (f->document),
                                            joint)->offset.x, ==, offset0.x);
  g_assert_cmpfloat (km_skeleton_get_joint (km_document_get_skeleton (f->document),
                                            joint)->offset.y, ==, offset0.y);
  g_assert_cmpfloat (km_skeleton_get_joint (km_document_get_skeleton (f->document),
                                            joint)->offset.z, ==, offset0.z);
  g_assert_true (km_document_get_skeleton (f->document) == before);
  for (guint i = 0; i < n_dof; i++)
    g_assert_cmpfloat (km_document_get_pose (f->document, NULL)[i], ==, q0[i]);
  g_assert_cmpfloat (km_vec3_length (km_vec3_sub (joint_pos (f, joint), pos0)), ==, 0.0);
}

static gboolean
solving (Fixture *f)
{
  return km_document_get_solving (f->document);
}

/* Set keyframe adds a target at the current frame and solves again; delete takes it away;
 * dragging its tick moves it; undo gives the old targets back. */
static void
test_keyframes (Fixture       *f,
                gconstpointer  data)
{
  GtkWidget *bar = GTK_WIDGET (f->time_bar);
  const KmTargetKeyframe *pasted;
  KmTargetKeyframe copied;
  KmTargetTrack *targets;
  guint n0, frame = 0, frame_moved;
  double x, y;

  if (!ready_or_skip (f))
    return;

  targets = km_document_get_targets (f->document);
  n0 = km_target_track_get_n_keyframes (targets);
  while (km_target_track_find_keyframe (targets, frame) >= 0)
    frame += 7;
  km_document_set_current_frame (f->document, frame);

  g_assert_true (gtk_widget_activate_action (bar, "time.set-keyframe", NULL));
  targets = km_document_get_targets (f->document);
  g_assert_cmpuint (km_target_track_get_n_keyframes (targets), ==, n0 + 1);
  g_assert_cmpint (km_target_track_find_keyframe (targets, frame), >=, 0);
  g_assert_true (solving (f) || km_document_get_animation (f->document) != NULL);
  g_assert_true (wait_for (f, solved, 20000));
  g_assert_nonnull (km_document_get_animation (f->document));

  /* Drag its tick 20 frames on. The pointer lands on whole pixels: where a pixel spans
   * more than a frame (a narrow time bar, a long motion), the tick lands within that
   * many frames of frame + 20. */
  test_app_spin_for (100);
  g_assert_true (km_time_bar_get_keyframe_point (f->time_bar, frame, &x, &y));
  {
    g_autoptr(GArray) before = g_array_new (FALSE, FALSE, sizeof (guint));
    double x2, y2;
    guint slack, moved_to = G_MAXUINT;

    for (guint i = 0; i < km_target_track_get_n_keyframes (targets); i++)
      g_array_append_val (before, km_target_track_get_keyframe (targets, i)->frame);
    g_assert_true (km_time_bar_get_keyframe_point (f->time_bar, frame + 20, &x2, &y2));
    g_assert_cmpfloat (x2, >, x);
    slack = (guint) ceil (20.0 / (x2 - x));
    real_drag (f, bar, x, y, x2, y2, 6, FALSE);

    /* The dragged keyframe is the one frame that was not keyed before. */
    targets = km_document_get_targets (f->document);
    g_assert_cmpint (km_target_track_find_keyframe (targets, frame), <, 0);
    g_assert_cmpuint (km_target_track_get_n_keyframes (targets), ==, n0 + 1);
    for (guint i = 0; i < km_target_track_get_n_keyframes (targets); i++)
      {
        guint k = km_target_track_get_keyframe (targets, i)->frame;
        gboolean old_key = FALSE;

        for (guint j = 0; j < before->len; j++)
          old_key |= g_array_index (before, guint, j) == k;
        if (!old_key)
          moved_to = k;
      }
    g_assert_cmpuint (moved_to, !=, G_MAXUINT);
    g_assert_cmpuint (moved_to + slack, >=, frame + 20);
    g_assert_cmpuint (moved_to, <=, frame + 20 + slack);
    frame_moved = moved_to;
  }
  g_assert_true (wait_for (f, solved, 20000));

  /* Undo the move, then delete the keyframe. */
  g_assert_true (km_document_undo (f->document));
  targets = km_document_get_targets (f->document);
  g_assert_cmpint (km_target_track_find_keyframe (targets, frame), >=, 0);
  g_assert_cmpint (km_target_track_find_keyframe (targets, frame_moved), <, 0);
  km_document_set_current_frame (f->document, frame);
  {
    KmTargetKeyframe deleted = *km_target_track_get_keyframe (
      targets, (guint) km_target_track_find_keyframe (targets, frame));

    g_assert_true (gtk_widget_activate_action (bar, "time.delete-keyframe", NULL));
    targets = km_document_get_targets (f->document);
    g_assert_cmpuint (km_target_track_get_n_keyframes (targets), ==, n0);
    g_assert_cmpint (km_target_track_find_keyframe (targets, frame), <, 0);

    /* Undo brings the deleted keyframe back exactly; redo deletes it again. */
    g_assert_true (km_document_undo (f->document));
    targets = km_document_get_targets (f->document);
    g_assert_cmpuint (km_target_track_get_n_keyframes (targets), ==, n0 + 1);
    assert_keyframe_equal (km_target_track_get_keyframe (
                             targets, (guint) km_target_track_find_keyframe (targets, frame)),
                           &deleted);
    g_assert_true (km_document_redo (f->document));
    targets = km_document_get_targets (f->document);
    g_assert_cmpuint (km_target_track_get_n_keyframes (targets), ==, n0);
    g_assert_cmpint (km_target_track_find_keyframe (targets, frame), <, 0);
  }

  /* Copy and paste a keyframe elsewhere; jump between keyframes. */
  copied = *km_target_track_get_keyframe (targets, 0);
  km_document_set_current_frame (f->document, copied.frame);
  g_assert_true (gtk_widget_activate_action (bar, "time.copy-keyframe", NULL));
  km_document_set_current_frame (f->document, frame);
  g_assert_true (gtk_widget_activate_action (bar, "time.paste-keyframe", NULL));
  targets = km_document_get_targets (f->document);
  g_assert_cmpuint (km_target_track_get_n_keyframes (targets), ==, n0 + 1);
  pasted = km_target_track_get_keyframe (targets,
                                         (guint) km_target_track_find_keyframe (targets, frame));
  g_assert_cmpuint (pasted->frame, ==, frame);
  g_assert_cmpfloat (km_vec3_length (km_vec3_sub (copied.position, pasted->position)), ==, 0.0);
  km_document_set_current_frame (f->document, 0);
  g_assert_true (gtk_widget_activate_action (bar, "time.next-keyframe", NULL));
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==,
                    km_target_track_get_keyframe (targets, 0)->frame > 0
                    ? km_target_track_get_keyframe (targets, 0)->frame
                    : km_target_track_get_keyframe (targets, 1)->frame);
}

/* Runs `kinema-cli info PATH` (the binary in KINEMA_CLI) and counts the keyframes it
 * lists: the "keyframes=N" fields of its lines, or else its "keyframe …" lines. */
static guint
cli_info_keyframes (const char *path)
{
  const char *cli = g_getenv ("KINEMA_CLI");
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) lines = NULL;
  guint listed = 0, counted = 0;
  gboolean has_count = FALSE;
  int status;
  const char *argv[] = { cli, "info", path, NULL };

  g_assert_nonnull (cli);
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out,
                               &err, &status, &error));
  g_assert_no_error (error);
  g_test_message ("kinema-cli info %s:\n%s%s", path, out, err);
  g_assert_true (g_spawn_check_wait_status (status, &error));
  g_assert_no_error (error);
  lines = g_strsplit (out, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *field = strstr (lines[i], "keyframes=");

      if (g_str_has_prefix (lines[i], "keyframe "))
        listed++;
      if (field != NULL)
        {
          counted += (guint) g_ascii_strtoull (field + strlen ("keyframes="), NULL, 10);
          has_count = TRUE;
        }
    }
  return has_count ? counted : listed;
}

/* In the editor window: the pose changed at a new frame, time.set-keyframe, win.save;
 * `kinema-cli info` on the saved project lists one keyframe more, and the motion solved
 * through that frame changed and reaches the new keyframe. */
static void
test_keyframe_save (void)
{
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-keyframe-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "project.cnoid", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autofree double *before = NULL;
  KmWindow *window = km_window_new (NULL);
  KmDocument *document = km_window_get_document (window);
  const KmTargetKeyframe *key;
  const KmTransform *world;
  KmTargetTrack *targets;
  GtkWidget *time_bar;
  const double *q;
  guint n0, frame, n_dof, info0, info1;
  double changed = 0.0;
  int effector;

  g_assert_nonnull (dir);
  gtk_window_set_default_size (GTK_WINDOW (window), 900, 600);
  g_assert_true (km_window_open_example (window));
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (wait_solved_document (document));

  /* Saved once as a project: from now on win.save writes there without asking. */
  g_assert_true (km_document_save (document, file, &error));
  g_assert_no_error (error);
  info0 = cli_info_keyframes (path);
  targets = km_document_get_targets (document);
  n0 = km_target_track_get_n_keyframes (targets);
  g_assert_cmpuint (info0, ==, n0);
  g_assert_cmpuint (n0, >=, 2);

  /* Halfway between the first two keyframes. */
  frame = (km_target_track_get_keyframe (targets, 0)->frame
           + km_target_track_get_keyframe (targets, 1)->frame) / 2;
  g_assert_cmpint (km_target_track_find_keyframe (targets, frame), <, 0);
  km_document_set_current_frame (document, frame);
  q = km_animation_get_frame (km_document_get_animation (document), frame);
  n_dof = km_animation_get_n_dof (km_document_get_animation (document));
  before = g_memdup2 (q, n_dof * sizeof (double));

  /* Pose the arm elsewhere (the shoulder and the elbow turned), as a drag would. */
  km_document_set_dof_value (document, 1, before[1] + 0.3);
  km_document_set_dof_value (document, 3, before[3] - 0.4);
  km_document_close_edit (document);
  effector = km_document_get_effector (document);
  world = km_document_get_joint_world (document, NULL);
  g_assert_true (km_document_get_limits_held (document, 0.0));

  time_bar = test_app_find_widget (GTK_WIDGET (window), KM_TYPE_TIME_BAR);
  g_assert_nonnull (time_bar);
  g_assert_true (gtk_widget_activate_action (time_bar, "time.set-keyframe", NULL));
  targets = km_document_get_targets (document);
  g_assert_cmpuint (km_target_track_get_n_keyframes (targets), ==, n0 + 1);
  key = km_target_track_get_keyframe (targets, (guint) km_target_track_find_keyframe (targets,
                                                                                      frame));
  g_assert_cmpfloat (km_vec3_length (km_vec3_sub (key->position, world[effector].pos)), <, 1e-9);
  g_assert_true (wait_solved_document (document));

  /* The motion through that frame changed, and the arm reaches the new target there. */
  q = km_animation_get_frame (km_document_get_animation (document), frame);
  for (guint i = 0; i < n_dof; i++)
    changed = MAX (changed, fabs (q[i] - before[i]));
  g_test_message ("joint values at frame %u changed by up to %.4f rad", frame, changed);
  g_assert_cmpfloat (changed, >, 0.05);
  km_document_set_current_frame (document, frame);
  world = km_document_get_joint_world (document, NULL);
  g_assert_cmpfloat (km_vec3_length (km_vec3_sub (key->position, world[effector].pos)), <, 1e-3);

  g_assert_true (km_document_get_modified (document));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.save", NULL));
  g_assert_true (test_app_wait_saved (window));
  g_assert_false (km_document_get_modified (document));
  info1 = cli_info_keyframes (path);
  g_assert_cmpuint (info1, ==, info0 + 1);

  gtk_window_destroy (GTK_WINDOW (window));
  while (g_main_context_iteration (NULL, FALSE))
    ;
  {
    g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
    const char *name;

    while (d != NULL && (name = g_dir_read_name (d)) != NULL)
      {
        g_autofree char *p = g_build_filename (dir, name, NULL);

        g_unlink (p);
      }
  }
  g_rmdir (dir);
}

static gboolean
advanced (Fixture *f)
{
  return km_document_get_current_frame (f->document) >= 2;
}

typedef struct
{
  guint  n;
  guint  first_frame, last_frame;
  gint64 first_time, last_time;
} FrameSamples;

static void
frame_changed_cb (KmDocument   *document,
                  GParamSpec   *pspec,
                  FrameSamples *samples)
{
  gint64 now = g_get_monotonic_time ();
  guint frame = km_document_get_current_frame (document);

  if (samples->n++ == 0)
    samples->first_frame = frame, samples->first_time = now;
  samples->last_frame = frame, samples->last_time = now;
}

/* Playback advances at frame rate × speed in real time: frames counted over a measured
 * interval once it runs. */
static void
test_playback_speed (Fixture       *f,
                     gconstpointer  data)
{
  static const double speeds[] = { 2.0, 0.5 };

  if (!ready_or_skip (f))
    return;

  for (guint i = 0; i < G_N_ELEMENTS (speeds); i++)
    {
      double rate = km_document_get_frame_rate (f->document), expected, seconds;
      FrameSamples samples = { 0, };
      guint frames;
      gulong handler;

      km_time_bar_set_loop (f->time_bar, FALSE);
      km_document_set_current_frame (f->document, 0);
      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->time_bar), "time.speed", "d",
                                                 speeds[i]));
      g_assert_cmpfloat (km_time_bar_get_speed (f->time_bar), ==, speeds[i]);
      km_time_bar_set_playing (f->time_bar, TRUE);
      g_assert_true (wait_for (f, advanced, 5000));
      /* Each frame change is timed as it happens, so that a late main loop (a loaded
       * machine) delays both ends of the interval alike. */
      handler = g_signal_connect (f->document, "notify::current-frame",
                                  G_CALLBACK (frame_changed_cb), &samples);
      test_app_spin_for (1000);
      g_signal_handler_disconnect (f->document, handler);
      km_time_bar_set_playing (f->time_bar, FALSE);
      g_assert_cmpuint (samples.n, >=, 2);
      frames = samples.last_frame - samples.first_frame;
      seconds = (samples.last_time - samples.first_time) / 1e6;
      expected = seconds * rate * speeds[i];
      g_test_message ("speed %.2f: %u frames in %.3f s (expected %.1f)", speeds[i], frames,
                      seconds, expected);
      /* The frame clock ticks at 60 Hz at best: allow a few frames of jitter either way. */
      g_assert_cmpfloat (fabs (frames - expected), <=, 0.1 * expected + 4);
    }
  km_time_bar_set_speed (f->time_bar, 100);
  g_assert_cmpfloat (km_time_bar_get_speed (f->time_bar), ==, 4.0);
}

static gboolean
has_colour (const guint8 *p,
            int           w,
            int           h,
            guint         r,
            guint         g,
            guint         b,
            int          *count)
{
  *count = 0;
  for (int i = 0; i < w * h; i++)
    if (abs (p[i * 4 + 2] - (int) r) <= 2 && abs (p[i * 4 + 1] - (int) g) <= 2
        && abs (p[i * 4] - (int) b) <= 2)
      (*count)++;
  return *count > 0;
}

static gboolean
has_colour_rgb (const guint8 *p,
                int           w,
                int           h,
                guint         r,
                guint         g,
                guint         b)
{
  int count;

  has_colour (p, w, h, r, g, b, &count);
  g_test_message ("colour %02x%02x%02x: %d pixels", r, g, b, count);
  return count > 20;
}

/* The graph shows the selected joint's curve on its limit band, in the colour its DOF has
 * in the legend of all joints (not the palette's first, another DOF's); a click sets the
 * time. */
static void
test_graph (Fixture       *f,
            gconstpointer  data)
{
  GtkWidget *graph = GTK_WIDGET (f->graph_view);
  g_autoptr(GdkPaintable) paintable = NULL;
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  g_autofree guint8 *pixels = NULL;
  GtkSnapshot *snapshot;
  GdkRGBA legend, colour;
  guint dof;
  int w, h;
  double x;

  if (!ready_or_skip (f))
    return;

  /* Joint 2 (the elbow) has one DOF; with all joints shown, the legend lists every DOF. */
  dof = km_skeleton_get_joint (km_document_get_skeleton (f->document), 2)->dof_index;
  g_assert_cmpuint (dof, >, 0);
  km_document_set_selected_joint (f->document, -1);
  test_app_spin_for (100);
  g_assert_true (km_graph_view_get_legend_swatch (f->graph_view, dof, NULL, &legend));
  km_graph_view_get_curve_color (f->graph_view, dof, &colour);
  g_assert_true (gdk_rgba_equal (&colour, &legend));

  km_document_set_selected_joint (f->document, 2);
  test_app_spin_for (100);
  w = gtk_widget_get_width (graph);
  h = gtk_widget_get_height (graph);
  paintable = gtk_widget_paintable_new (graph);
  snapshot = gtk_snapshot_new ();
  gdk_paintable_snapshot (paintable, snapshot, w, h);
  node = gtk_snapshot_free_to_node (snapshot);
  g_assert_nonnull (node);
  texture = gsk_renderer_render_texture (gtk_native_get_renderer (GTK_NATIVE (f->window)), node,
                                         &GRAPHENE_RECT_INIT (0, 0, w, h));
  pixels = g_malloc ((gsize) w * h * 4);
  gdk_texture_download (texture, pixels, (gsize) w * 4);
  g_assert_true (has_colour_rgb (pixels, w, h, (guint) round (legend.red * 255),
                                 (guint) round (legend.green * 255),
                                 (guint) round (legend.blue * 255)));
  /* The first DOF's colour is not the elbow's. */
  g_assert_false (has_colour_rgb (pixels, w, h, KM_GRAPH_CURVE_0_RGB));
  g_assert_true (has_colour_rgb (pixels, w, h, KM_GRAPH_BAND_RGB));
  g_assert_true (has_colour_rgb (pixels, w, h, KM_GRAPH_CURSOR_RGB));

  x = km_graph_view_x_for_frame (f->graph_view, 100);
  real_click (f, graph, x, h / 2.0);
  test_app_spin_for (100);
  g_assert_cmpint (abs ((int) km_document_get_current_frame (f->document) - 100), <=, 1);
}

/* In the graph, dragging a keyframe's mark moves that keyframe in time (one undo step);
 * dragging anywhere else scrubs the time and leaves the keyframes alone. */
static void
test_graph_keyframe_drag (Fixture       *f,
                          gconstpointer  data)
{
  GtkWidget *graph = GTK_WIDGET (f->graph_view);
  KmTargetKeyframe moved;
  KmTargetTrack *targets;
  double x0, y0, x1, y1, h;
  guint n0, from, to;
  int index;

  if (!ready_or_skip (f))
    return;

  test_app_spin_for (100);
  h = gtk_widget_get_height (graph);
  targets = km_document_get_targets (f->document);
  n0 = km_target_track_get_n_keyframes (targets);
  g_assert_cmpuint (n0, >=, 2);
  moved = *km_target_track_get_keyframe (targets, 1);
  from = moved.frame;
  to = from + 17;
  g_assert_cmpint (km_target_track_find_keyframe (targets, to), <, 0);

  /* Scrubbing in the plot, above the marks. */
  real_drag (f, graph, km_graph_view_x_for_frame (f->graph_view, 20), h / 3,
             km_graph_view_x_for_frame (f->graph_view, 60), h / 3, 5, FALSE);
  g_assert_cmpint (abs ((int) km_document_get_current_frame (f->document) - 60), <=, 1);
  g_assert_true (km_document_get_targets (f->document) == targets);

  /* The mark of keyframe 1, 17 frames on. */
  g_assert_true (km_graph_view_get_keyframe_point (f->graph_view, from, &x0, &y0));
  g_assert_true (km_graph_view_get_keyframe_point (f->graph_view, to, &x1, &y1));
  g_assert_cmpfloat (x1 - x0, >, 20);
  real_drag (f, graph, x0, y0, x1, y1, 6, FALSE);
  targets = km_document_get_targets (f->document);
  g_assert_cmpuint (km_target_track_get_n_keyframes (targets), ==, n0);
  g_assert_cmpint (km_target_track_find_keyframe (targets, from), <, 0);
  index = km_target_track_find_keyframe (targets, to);
  g_assert_cmpint (index, >=, 0);
  g_assert_cmpfloat (km_vec3_length (km_vec3_sub (km_target_track_get_keyframe (targets,
                                                                                index)->position,
                                                  moved.position)), ==, 0.0);
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, to);
  g_assert_true (wait_for (f, solved, 20000));

  /* One undo puts it back exactly. */
  g_assert_true (km_document_undo (f->document));
  targets = km_document_get_targets (f->document);
  g_assert_cmpint (km_target_track_find_keyframe (targets, to), <, 0);
  index = km_target_track_find_keyframe (targets, from);
  g_assert_cmpint (index, ==, 1);
  assert_keyframe_equal (km_target_track_get_keyframe (targets, index), &moved);
}

typedef struct
{
  guint   n;
  double  q[64];
  guint   n_dof;
} Answers;

static void
answer_cb (KmDragSolver       *solver,
           const KmIkSolution *solution,
           gint64              request_time,
           Answers            *answers)
{
  answers->n++;
  answers->n_dof = MIN (solution->n_dof, G_N_ELEMENTS (answers->q));
  memcpy (answers->q, solution->q, answers->n_dof * sizeof (double));
}

static gboolean
solver_idle (gpointer data)
{
  return !km_drag_solver_get_busy (data);
}

/* The drag solver: a burst of requests gives at most one answer each and the last answer is
 * for the last request (latest wins); busy until that answer is emitted; a cancelled
 * request gives none. */
static void
test_drag_solver (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(KmDragSolver) solver = km_drag_solver_new ();
  KmSkeleton *skeleton = km_document_get_skeleton (f->document);
  int effector = km_document_get_effector (f->document);
  g_autofree double *q0 = NULL;
  KmTransform start, target;
  g_autofree KmTransform *world = NULL;
  Answers answers = { 0, };
  gboolean late = FALSE;
  guint n_dof;
  guint id;

  /* The pose stays put from here on: the document's first solve is over. */
  g_assert_true (wait_for (f, solved, 20000));
  km_document_get_pose (f->document, &n_dof);
  q0 = g_memdup2 (km_document_get_pose (f->document, NULL), n_dof * sizeof (double));
  start = km_document_get_joint_world (f->document, NULL)[effector];
  g_signal_connect (solver, "solved", G_CALLBACK (answer_cb), &answers);
  for (int i = 1; i <= 40; i++)
    {
      KmIkProblem *problem = km_ik_problem_new (skeleton, effector);

      memcpy (problem->seed, q0, problem->n_dof * sizeof (double));
      problem->target = start;
      /* Small steps, each within reach of the pose on screen (the continuous branch). */
      problem->target.pos = km_vec3_add (start.pos, km_vec3 (0, 0.001 * i, -0.0005 * i));
      problem->continuous = TRUE;
      target = problem->target;
      km_drag_solver_request (solver, problem);
      g_assert_true (km_drag_solver_get_busy (solver));
      if (i % 10 == 0)
        g_main_context_iteration (NULL, FALSE);
    }
  id = g_timeout_add_once (10000, timeout_cb, &late);
  while (!solver_idle (solver) && !late)
    g_main_context_iteration (NULL, TRUE);
  g_assert_false (late);
  g_source_remove (id);
  g_test_message ("40 requests, %u answers", answers.n);
  g_assert_cmpuint (answers.n, >=, 1);
  g_assert_cmpuint (answers.n, <=, 40);
  g_assert_cmpuint (answers.n, ==, km_drag_solver_get_n_solved (solver));
  /* The last answer reaches the last target. */
  world = g_new (KmTransform, km_skeleton_get_n_joints (skeleton));
  km_skeleton_forward_kinematics (skeleton, answers.q, NULL, world);
  g_assert_cmpfloat (km_vec3_length (km_vec3_sub (world[effector].pos, target.pos)), <, 1e-4);

  /* Cancelled at once: no answer follows. */
  answers.n = 0;
  {
    KmIkProblem *problem = km_ik_problem_new (skeleton, effector);

    memcpy (problem->seed, q0, problem->n_dof * sizeof (double));
    problem->target = start;
    km_drag_solver_request (solver, problem);
  }
  km_drag_solver_cancel (solver);
  g_assert_false (km_drag_solver_get_busy (solver));
  test_app_spin_for (200);
  g_assert_cmpuint (answers.n, ==, 0);
  g_assert_false (km_drag_solver_flush (solver));
}

static int
compare_int64 (gconstpointer a,
               gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

/* A generated 30-DOF chain: the pose follows a real drag of its tip; the latency from each
 * motion event's request to the pose on the document is reported. */
static void
test_latency_30dof (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(GString) json = g_string_new ("{ \"root_name\": \"Root\", \"joints\": [\n"
                                          "  { \"name\": \"Root\", \"type\": \"fixed\", "
                                          "\"offset\": [0, 0, 0], \"parent\": null }");
  g_autofree char *path = g_build_filename (g_get_tmp_dir (), "chain30.json", NULL);
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree gint64 *sorted = NULL;
  const gint64 *lat;
  double x0, y0, x, y;
  int tip;
  guint n;

  if (!ready_or_skip (f))
    return;

  for (guint i = 1; i <= 30; i++)
    g_string_append_printf (json, ",\n  { \"name\": \"J%u\", \"type\": \"revolute\", "
                            "\"offset\": [0, 0, %s], \"parent\": \"%s%u\", "
                            "\"axis\": [%d, %d, 0], \"limits\": [-1.2, 1.2] }",
                            i, i == 1 ? "0" : "0.1", i == 1 ? "Root" : "J", i - 1,
                            i % 2, (i + 1) % 2);
  g_string_append (json, ",\n  { \"name\": \"Tip\", \"type\": \"fixed\", "
                   "\"offset\": [0, 0, 0.1], \"parent\": \"J30\" }\n] }\n");
  /* "Root" + "J0" never occurs: joint 1 names its parent Root. */
  g_string_replace (json, "\"Root0\"", "\"Root\"", 0);
  g_assert_true (g_file_set_contents (path, json->str, json->len, &error));
  g_assert_no_error (error);

  file = g_file_new_for_path (path);
  g_assert_true (km_document_import_file (f->document, file, &error));
  g_assert_no_error (error);
  g_assert_true (wait_for (f, solved, 20000));
  g_assert_cmpuint (km_skeleton_get_n_dof (km_document_get_skeleton (f->document)), ==, 30);
  /* Bend it a little so that it is not singular. */
  for (guint i = 0; i < 30; i++)
    km_document_set_dof_value (f->document, i, 0.1);
  km_document_close_edit (f->document);
  km_scene_view_reset_camera (f->scene_view);
  test_app_spin_for (100);

  km_scene_view_set_edit_mode (f->scene_view, TRUE);
  tip = km_document_get_effector (f->document);
  g_assert_cmpint (tip, >=, 0);
  test_app_project (f->scene_view, joint_pos (f, tip), &x0, &y0);
  real_drag (f, GTK_WIDGET (f->scene_view), x0, y0, x0 - 40, y0 + 30, 20, FALSE);
  g_assert_true (wait_for (f, drag_idle, 10000));
  test_app_project (f->scene_view, joint_pos (f, tip), &x, &y);
  g_assert_cmpfloat (hypot (x - (x0 - 40), y - (y0 + 30)), <, 4.0);
  g_assert_true (km_document_get_limits_held (f->document, 1e-9));

  lat = km_scene_view_get_drag_latencies (f->scene_view, &n);
  g_assert_cmpuint (n, >, 0);
  sorted = g_memdup2 (lat, n * sizeof (gint64));
  qsort (sorted, n, sizeof (gint64), compare_int64);
  g_test_message ("drag_latency_p50_us=%" G_GINT64_FORMAT, sorted[n / 2]);
  g_test_message ("drag_latency_p95_us=%" G_GINT64_FORMAT, sorted[MIN (n - 1, n * 95 / 100)]);
  g_test_message ("drag_latency_max_us=%" G_GINT64_FORMAT " over %u answers", sorted[n - 1], n);
  /* Within a frame (60 Hz) on this machine's software GL; not a performance gate. */
  g_assert_cmpint (sorted[n / 2], <, 1000000);
  g_unlink (path);
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);

#define ADD(name, fn) \
  g_test_add ("/kinema/Manipulation/" name, Fixture, NULL, fixture_setup, fn, fixture_teardown)
  ADD ("drag-solver", test_drag_solver);
  ADD ("pick", test_pick);
  ADD ("pick-under-gizmo", test_pick_under_gizmo);
  ADD ("drag-effector", test_drag_effector);
  ADD ("drag-joint-fk", test_drag_joint_fk);
  g_test_add ("/kinema/Manipulation/drag-one-step", Fixture, GINT_TO_POINTER (FALSE),
              fixture_setup, test_drag_one_step, fixture_teardown);
  ADD ("drag-undo-at-release", test_drag_undo_at_release);
  ADD ("drag-then-slider-hold", test_drag_then_slider_hold);
  g_test_add ("/kinema/Manipulation/ctrl-drag-one-step", Fixture, GINT_TO_POINTER (TRUE),
              fixture_setup, test_drag_one_step, fixture_teardown);
  ADD ("drag-ring", test_drag_ring);
  ADD ("drag-offset", test_drag_offset);
  ADD ("drag-tool-point", test_drag_tool_point);
  ADD ("ctrl-drag-joint-tip", test_ctrl_drag_joint_tip);
  g_test_add ("/kinema/Manipulation/drag-tool-point-repeat", Fixture, GINT_TO_POINTER (FALSE),
              fixture_setup, test_drag_tool_point_repeat, fixture_teardown);
  g_test_add ("/kinema/Manipulation/ctrl-drag-tool-point-repeat", Fixture, GINT_TO_POINTER (TRUE),
              fixture_setup, test_drag_tool_point_repeat, fixture_teardown);
  ADD ("keyframe-tool-point", test_keyframe_tool_point);
  ADD ("keyframes", test_keyframes);
  g_test_add_func ("/kinema/Manipulation/keyframe-save", test_keyframe_save);
  ADD ("playback-speed", test_playback_speed);
  ADD ("graph", test_graph);
  ADD ("graph-keyframe-drag", test_graph_keyframe_drag);
  ADD ("latency-30dof", test_latency_30dof);
#undef ADD

  return g_test_run ();
}
