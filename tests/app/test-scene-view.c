/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <math.h>
#include <string.h>
#include <gtk/gtk.h>

#include "km-camera.h"
#include "km-document-skeleton.h"
#include "km-skeleton-edit.h"
#include "km-target-track.h"
#include "km-scene-view.h"
#include "km-window.h"
#include "km-test-tmp.h"
#include "test-app-util.h"

/*
 * The scene view's camera in the editor window on the built-in example, under Xvfb:
 * Reset Camera (Ctrl+0, win.reset-camera; scene.reset-camera in the view) gives the default
 * view, perspective included, while the view's own re-framing keeps the user's projection.
 */

typedef struct
{
  KmWindow    *window;
  KmDocument  *document;
  KmSceneView *view;
  KmCamera     initial;      /* the default view the example opened with */
  guint        n_ortho_notify;
} Fixture;

static gboolean
allocated (gpointer view)
{
  return gtk_widget_get_width (view) > 0 && gtk_widget_get_height (view) > 0;
}

static void
ortho_notify_cb (GObject    *object,
                 GParamSpec *pspec,
                 gpointer    user_data)
{
  ((Fixture *) user_data)->n_ortho_notify++;
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  f->window = test_app_example_window (1100, 700);
  f->document = km_window_get_document (f->window);
  f->view = KM_SCENE_VIEW (km_window_get_scene_view (f->window));
  g_assert_true (test_app_wait_until (allocated, f->view, 10000));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  test_app_spin ();
  f->initial = *km_scene_view_get_camera (f->view);
  g_assert_false (f->initial.orthographic);
  g_signal_connect (f->view, "notify::orthographic", G_CALLBACK (ortho_notify_cb), f);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_signal_handlers_disconnect_by_func (f->view, ortho_notify_cb, f);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  gtk_window_destroy (GTK_WINDOW (f->window));
  test_app_spin ();
}

static void
assert_default_view (Fixture *f)
{
  const KmCamera *camera = km_scene_view_get_camera (f->view);
  gboolean orthographic = TRUE;

  g_assert_false (camera->orthographic);
  g_assert_false (km_scene_view_get_orthographic (f->view));
  /* The property the scene.toggle-ortho action's state is. */
  g_object_get (f->view, "orthographic", &orthographic, NULL);
  g_assert_false (orthographic);
  /* The same framing as when the example opened. */
  g_assert_cmpfloat_with_epsilon (camera->yaw, f->initial.yaw, 1e-9);
  g_assert_cmpfloat_with_epsilon (camera->pitch, f->initial.pitch, 1e-9);
  g_assert_cmpfloat_with_epsilon (camera->distance, f->initial.distance, 1e-9);
  g_assert_cmpfloat_with_epsilon (camera->fov_y, f->initial.fov_y, 1e-9);
  g_assert_cmpfloat_with_epsilon (camera->target.x, f->initial.target.x, 1e-9);
  g_assert_cmpfloat_with_epsilon (camera->target.y, f->initial.target.y, 1e-9);
  g_assert_cmpfloat_with_epsilon (camera->target.z, f->initial.target.z, 1e-9);
}

/* Orthographic top view, orbited and zoomed, then the window's Reset Camera (Ctrl+0). */
static void
test_reset_camera_perspective (Fixture       *f,
                               gconstpointer  data)
{
  const KmCamera *camera = km_scene_view_get_camera (f->view);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->view), "scene.view-top", NULL));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->view), "scene.toggle-ortho", NULL));
  g_assert_true (camera->orthographic);
  g_assert_cmpuint (f->n_ortho_notify, ==, 1);
  {
    KmCamera moved = *camera;

    km_camera_orbit (&moved, 0.4, -0.5);
    km_camera_zoom (&moved, 0.5);
    km_scene_view_set_camera (f->view, &moved);
  }
  g_assert_true (camera->orthographic);
  g_assert_cmpfloat (km_camera_get_forward (camera).z, >, -0.99);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.reset-camera", NULL));
  assert_default_view (f);
  g_assert_cmpuint (f->n_ortho_notify, ==, 2);

  /* The view's own action does the same. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->view), "scene.toggle-ortho", NULL));
  g_assert_true (camera->orthographic);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->view), "scene.reset-camera", NULL));
  assert_default_view (f);
  g_assert_cmpuint (f->n_ortho_notify, ==, 4);

  /* Already the default: nothing to notify. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->view), "scene.reset-camera", NULL));
  assert_default_view (f);
  g_assert_cmpuint (f->n_ortho_notify, ==, 4);
}

/* An edit of the model shown (here: the skeleton grown, which re-solves the motion) leaves
 * the camera where it was, although the user never placed it (review finding 2); Frame
 * All, asked for, frames the grown model and keeps the projection the user chose. Only
 * Reset Camera changes that. */
static void
test_reframe_keeps_projection (Fixture       *f,
                               gconstpointer  data)
{
  const KmCamera *camera = km_scene_view_get_camera (f->view);
  KmSkeleton *skeleton = km_document_get_skeleton (f->document);
  int effector = km_skeleton_find_joint (skeleton, "EndEffector");
  g_autoptr(KmSkeleton) edited = NULL;
  g_autoptr(GError) error = NULL;
  double distance = camera->distance;

  KmCamera before;

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->view), "scene.toggle-ortho", NULL));
  g_assert_true (camera->orthographic);
  before = *camera;

  /* A long fixed link added past the end effector: the model grows (the effector stays);
   * the camera stays. */
  g_assert_cmpint (effector, >=, 0);
  edited = km_skeleton_edit_add_child (skeleton, (guint) effector, "Antenna", KM_JOINT_FIXED,
                                       km_vec3 (0.0, 0.0, 4.0), NULL, &error);
  g_assert_no_error (error);
  g_assert_true (km_document_edit_skeleton (f->document, edited, "Add Joint", NULL));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  test_app_spin ();
  g_assert_cmpfloat (camera->distance, ==, before.distance);
  g_assert_cmpfloat (camera->target.z, ==, before.target.z);
  g_assert_cmpfloat (camera->yaw, ==, before.yaw);

  /* Frame All: the view stands back to frame it, in the projection chosen. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->view), "scene.frame-all", NULL));
  g_assert_cmpfloat (camera->distance, >, distance * 1.05);
  g_assert_true (camera->orthographic);
  g_assert_true (km_scene_view_get_orthographic (f->view));
  g_assert_cmpuint (f->n_ortho_notify, ==, 1);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.reset-camera", NULL));
  g_assert_false (camera->orthographic);
  g_assert_cmpuint (f->n_ortho_notify, ==, 2);
}

/* A new skeleton (one joint of no size) is framed as about a metre of space, like a small
 * model, not zoomed in until its joint's marker fills the view. */
static void
test_new_skeleton_framed (Fixture       *f,
                          gconstpointer  data)
{
  const KmCamera *camera = km_scene_view_get_camera (f->view);
  double aspect, half, shown;

  /* In a new project: nothing else to frame. */
  km_document_new_project (f->document);
  test_app_spin ();
  g_assert_nonnull (km_document_new_skeleton (f->document, "Root"));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  test_app_spin ();
  g_assert_cmpuint (km_skeleton_get_n_joints (km_document_get_skeleton (f->document)), ==, 1);

  /* The least extent the view shows at the target, across or up. */
  aspect = (double) gtk_widget_get_width (GTK_WIDGET (f->view))
           / gtk_widget_get_height (GTK_WIDGET (f->view));
  half = tan (camera->fov_y / 2.0);
  shown = 2.0 * camera->distance * half * MIN (aspect, 1.0);
  g_test_message ("distance %.3f m, %.3f m shown", camera->distance, shown);
  g_assert_cmpfloat (shown, >=, 1.0);
}

/* The scene view's colour (0..255) where @world projects. */
static void
scene_pixel (Fixture *f,
             KmVec3   world,
             int      rgb[3])
{
  g_autofree guint8 *pixels = NULL;
  const guint8 *p;
  int width, height;
  double x, y;

  pixels = test_app_scene_pixels (f->view, &width, &height);
  test_app_project (f->view, world, &x, &y);
  x *= (double) width / gtk_widget_get_width (GTK_WIDGET (f->view));
  y *= (double) height / gtk_widget_get_height (GTK_WIDGET (f->view));
  g_assert_true (x >= 0 && y >= 0 && x < width && y < height);
  p = pixels + ((gsize) y * width + (gsize) x) * 4;   /* B G R A */
  rgb[0] = p[2], rgb[1] = p[1], rgb[2] = p[0];
  g_test_message ("pixel (%.0f, %.0f) of %dx%d: %d %d %d", x, y, width, height, rgb[0],
                  rgb[1], rgb[2]);
}

/* The effector's red (230 60 75), maybe blended over a grey shape: red well over green,
 * blue no less than green. The joints' orange (244 158 40) has green well over blue. */
#define EFFECTOR_TINTED(rgb) ((rgb)[0] > (rgb)[1] + 50 && (rgb)[2] >= (rgb)[1] - 5)
#define JOINT_TINTED(rgb) ((rgb)[0] > (rgb)[2] + 50 && (rgb)[1] > (rgb)[2] + 20)

/* The point the targets move, 0.3 m off the effector joint ("elbow") of Scenebuilder's
 * planar arm, is marked in the effector's colour, the joint itself as any other (the
 * markers are translucent over the arm's shapes); the example's targets, for the joint's
 * origin, have the effector's colour there. */
static void
test_tool_point_marked (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "scenebuilder",
                                                 "arm2_mm_deg.xml", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  const KmTransform *world;
  KmTransform point;
  KmVec3 offset;
  int effector, rgb[3];

  /* The example: no offset, the effector's colour on its joint. */
  effector = km_document_get_effector (f->document);
  g_assert_cmpint (effector, >=, 0);
  offset = km_target_track_get_effector_offset (km_document_get_targets (f->document));
  g_assert_true (offset.x == 0.0 && offset.y == 0.0 && offset.z == 0.0);
  world = km_document_get_joint_world (f->document, NULL);
  scene_pixel (f, world[effector].pos, rgb);
  g_assert_true (EFFECTOR_TINTED (rgb));

  km_document_import_file (f->document, file, &error);
  g_assert_no_error (error);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  test_app_spin ();
  offset = km_target_track_get_effector_offset (km_document_get_targets (f->document));
  g_assert_cmpfloat_with_epsilon (offset.z, 0.3, 1e-9);

  effector = km_document_get_effector (f->document);
  world = km_document_get_joint_world (f->document, NULL);
  g_assert_true (km_document_get_effector_point (f->document, &point));
  g_assert_cmpfloat (km_vec3_length (km_vec3_sub (point.pos, world[effector].pos)), >, 0.2);
  /* Over the arm's shapes, the markers are translucent. */
  scene_pixel (f, point.pos, rgb);
  g_assert_true (EFFECTOR_TINTED (rgb));
  scene_pixel (f, world[effector].pos, rgb);
  g_assert_true (JOINT_TINTED (rgb));
}

/* A body that is not the one being edited still plays its motion: with a second model
 * imported (and current), the example's arm is drawn where its solved animation has it at
 * each frame, not at its stored joint state. */
static void
test_other_body_plays (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "scenebuilder",
                                                 "slider_gear.xml", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autofree guint8 *start = NULL;
  g_autofree guint8 *later = NULL;
  KmItem *example = km_document_get_body_item (f->document);
  guint differ = 0;
  int w, h, w2, h2;

  g_assert_nonnull (example);
  g_assert_true (test_app_open_file (f->window, file));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  test_app_spin ();
  g_assert_true (km_document_get_body_item (f->document) != example);
  /* Looking at the example's arm, as it opened. */
  km_scene_view_set_camera (f->view, &f->initial);

  km_document_set_current_frame (f->document, 0);
  start = test_app_scene_pixels (f->view, &w, &h);
  km_document_set_current_frame (f->document, 120);
  later = test_app_scene_pixels (f->view, &w2, &h2);
  g_assert_cmpint (w, ==, w2);
  g_assert_cmpint (h, ==, h2);
  for (gsize i = 0; i < (gsize) w * h * 4; i += 4)
    differ += memcmp (start + i, later + i, 3) != 0;
  g_test_message ("%u pixels differ between frames 0 and 120", differ);
  g_assert_cmpuint (differ, >, 500);
}

/* The value of the first line of @text that starts (after spaces) with @key. */
static char *
yaml_value (const char *text,
            const char *key)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *line = lines[i] + strspn (lines[i], " ");

      if (g_str_has_prefix (line, key))
        return g_strstrip (g_strdup (line + strlen (key)));
    }
  return NULL;
}

/* A project saved from a view of one shape, opened in a view of another and saved again
 * without touching the camera: the camera is written back as it was, the orthographic
 * camera's height included (it changed from 5.109 to 5.660: it is derived from the
 * vertical field of view, which the file's field of view across the longer side gives
 * differently for another shape). */
static void
test_camera_saved_back (Fixture       *f,
                        gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-camera-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "camera.cnoid", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autofree char *first = NULL, *second = NULL;
  KmWindow *window;
  KmDocument *document;
  KmSceneView *view;
  static const char * const keys[] = {
    "ortho_height:", "field_of_view:", "eye:", "direction:", "kinema_target_distance:",
  };

  g_assert_true (km_document_save (f->document, file, &error));
  g_assert_no_error (error);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.save", NULL));
  g_assert_true (test_app_wait_saved (f->window));
  g_assert_true (g_file_get_contents (path, &first, NULL, NULL));

  window = km_window_new (NULL);
  gtk_window_set_default_size (GTK_WINDOW (window), 760, 700);
  gtk_window_present (GTK_WINDOW (window));
  document = km_window_get_document (window);
  view = KM_SCENE_VIEW (km_window_get_scene_view (window));
  g_assert_true (test_app_wait_until (allocated, view, 10000));
  g_assert_true (test_app_open_file (window, file));
  g_assert_true (test_app_wait_idle_solve (document, 20000));
  test_app_spin ();
  g_test_message ("views %d x %d, then %d x %d", gtk_widget_get_width (GTK_WIDGET (f->view)),
                  gtk_widget_get_height (GTK_WIDGET (f->view)),
                  gtk_widget_get_width (GTK_WIDGET (view)),
                  gtk_widget_get_height (GTK_WIDGET (view)));
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (view)), <,
                   gtk_widget_get_width (GTK_WIDGET (f->view)) - 50);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.save", NULL));
  g_assert_true (test_app_wait_saved (window));
  g_assert_true (g_file_get_contents (path, &second, NULL, NULL));

  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      g_autofree char *before = yaml_value (first, keys[i]);
      g_autofree char *after = yaml_value (second, keys[i]);

      g_test_message ("%s %s, then %s", keys[i], before, after);
      g_assert_nonnull (before);
      g_assert_cmpstr (after, ==, before);
    }

  /* The folder goes when the test ends, with the skeleton.json the saves wrote beside the
   * project. */
  test_app_destroy_window (&window, &document);
}

int
main (int    argc,
      char **argv)
{
  test_app_init (&argc, &argv);

  g_test_add ("/kinema/SceneView/tool-point-marked", Fixture, NULL, fixture_setup,
              test_tool_point_marked, fixture_teardown);
  g_test_add ("/kinema/SceneView/other-body-plays", Fixture, NULL, fixture_setup,
              test_other_body_plays, fixture_teardown);
  g_test_add ("/kinema/SceneView/reset-camera-perspective", Fixture, NULL,
              fixture_setup, test_reset_camera_perspective, fixture_teardown);
  g_test_add ("/kinema/SceneView/new-skeleton-framed", Fixture, NULL, fixture_setup,
              test_new_skeleton_framed, fixture_teardown);
  g_test_add ("/kinema/SceneView/reframe-keeps-projection", Fixture, NULL,
              fixture_setup, test_reframe_keeps_projection, fixture_teardown);
  g_test_add ("/kinema/SceneView/camera-saved-back", Fixture, NULL,
              fixture_setup, test_camera_saved_back, fixture_teardown);
  return g_test_run ();
}
