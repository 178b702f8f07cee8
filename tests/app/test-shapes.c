/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <math.h>
#include <gtk/gtk.h>

#include "km-body-item.h"
#include "km-scene-view.h"

/*
 * The scene view draws the display shapes of every checked body of the project: a tiny
 * Choreonoid model with one red box, imported into an empty document, shows red where
 * the camera projects the box, and nothing there once its item is unchecked. The camera
 * actions change the projection as they say.
 */

typedef struct
{
  GtkWindow   *window;
  KmDocument  *document;
  KmSceneView *view;
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
  gboolean late = FALSE;
  guint id = g_timeout_add_once (ms, timeout_cb, &late);

  while (!condition (f) && !late)
    g_main_context_iteration (NULL, TRUE);
  if (!late)
    g_source_remove (id);
  return condition (f);
}

static gboolean
rendered (Fixture *f)
{
  return km_scene_view_get_n_renders (f->view) > 0
         || gtk_gl_area_get_error (GTK_GL_AREA (f->view)) != NULL;
}

static guint target_renders;

static gboolean
rendered_again (Fixture *f)
{
  return km_scene_view_get_n_renders (f->view) >= target_renders;
}

static gboolean
solved (Fixture *f)
{
  return !km_document_get_solving (f->document);
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  f->document = km_document_new ();
  f->window = GTK_WINDOW (gtk_window_new ());
  f->view = KM_SCENE_VIEW (km_scene_view_new ());
  gtk_widget_set_size_request (GTK_WIDGET (f->view), 320, 240);
  gtk_window_set_child (f->window, GTK_WIDGET (f->view));
  km_scene_view_set_document (f->view, f->document);
  gtk_window_present (f->window);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_assert_true (wait_for (f, solved, 20000));
  gtk_window_destroy (f->window);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_assert_finalize_object (f->document);
}

static gboolean
ready_or_skip (Fixture *f)
{
  const GError *error;

  g_assert_true (wait_for (f, rendered, 10000));
  error = gtk_gl_area_get_error (GTK_GL_AREA (f->view));
  if (error != NULL)
    {
      g_test_skip_printf ("no GL context: %s", error->message);
      return FALSE;
    }
  return TRUE;
}

/* The next frame, as it is on screen, in BGRA bytes (premultiplied; opaque here). Unless
 * @queue, the view must ask for that frame itself. */
static guint8 *
grab (Fixture  *f,
      gboolean  queue,
      int      *width,
      int      *height)
{
  g_autoptr(GdkTexture) texture = NULL;
  guint8 *pixels;

  target_renders = km_scene_view_get_n_renders (f->view) + 1;
  if (queue)
    gtk_gl_area_queue_render (GTK_GL_AREA (f->view));
  g_assert_true (wait_for (f, rendered_again, 5000));
  texture = km_scene_view_grab_texture (f->view);
  g_assert_nonnull (texture);
  *width = gdk_texture_get_width (texture);
  *height = gdk_texture_get_height (texture);
  pixels = g_malloc ((gsize) *width * *height * 4);
  gdk_texture_download (texture, pixels, (gsize) *width * 4);
  return pixels;
}

static gboolean
red_at (const guint8 *pixels,
        int           width,
        int           height,
        double        x,
        double        y)
{
  const guint8 *p;

  g_assert_cmpfloat (x, >=, 0);
  g_assert_cmpfloat (x, <, width);
  g_assert_cmpfloat (y, >=, 0);
  g_assert_cmpfloat (y, <, height);
  p = pixels + ((gsize) (int) y * width + (int) x) * 4;
  return p[2] >= 240 && p[1] <= 15 && p[0] <= 15;
}

static guint
count_red (const guint8 *pixels,
           int           width,
           int           height)
{
  guint n = 0;

  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++)
      n += red_at (pixels, width, height, x, y);
  return n;
}

static KmItem *
find_body (KmItem *item)
{
  if (KM_IS_BODY_ITEM (item))
    return item;
  for (guint i = 0; i < km_item_get_n_children (item); i++)
    {
      KmItem *found = find_body (km_item_get_child (item, i));

      if (found != NULL)
        return found;
    }
  return NULL;
}

static void
test_body_shapes (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "red-box.body", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autofree guint8 *before = NULL;
  g_autofree guint8 *after = NULL;
  KmVec3 centre = km_vec3 (0.3, 0, 0.5);
  KmSkeleton *skeleton;
  KmItem *body;
  guint n_shapes = 0;
  int width, height;
  double x, y;

  if (!ready_or_skip (f))
    return;

  g_assert_true (km_document_import_file (f->document, file, &error));
  g_assert_no_error (error);
  skeleton = km_document_get_skeleton (f->document);
  g_assert_nonnull (skeleton);
  km_skeleton_get_shapes (skeleton, 0, &n_shapes);
  g_assert_cmpuint (n_shapes, ==, 1);
  body = find_body (km_project_get_root_item (km_document_get_project (f->document)));
  g_assert_nonnull (body);
  g_assert_true (km_item_get_checked (body));

  /* From the side (along -Y) and orthographic: the box's face looks straight at the eye,
   * so it shows its own colour; framing everything keeps it in view. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->view), "scene.view-side", NULL));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->view), "scene.toggle-ortho", NULL));
  g_assert_true (km_scene_view_get_orthographic (f->view));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->view), "scene.frame-all", NULL));

  before = grab (f, TRUE, &width, &height);
  g_assert_true (km_camera_project (km_scene_view_get_camera (f->view), centre, width, height,
                                    &x, &y));
  g_assert_true (red_at (before, width, height, x, y));
  /* The box is 0.4 m wide: its image ends where the projection says. */
  g_assert_true (km_camera_project (km_scene_view_get_camera (f->view), km_vec3 (0.47, 0, 0.5),
                                    width, height, &x, &y));
  g_assert_true (red_at (before, width, height, x, y));
  g_assert_true (km_camera_project (km_scene_view_get_camera (f->view), km_vec3 (0.53, 0, 0.5),
                                    width, height, &x, &y));
  g_assert_false (red_at (before, width, height, x, y));
  g_assert_cmpuint (count_red (before, width, height), >, 100);

  /* Unchecked, the body's shapes are gone (the item notifies; the view redraws). */
  km_document_check_item (f->document, body, FALSE);
  g_assert_false (km_item_get_checked (body));
  after = grab (f, FALSE, &width, &height);
  g_assert_cmpuint (count_red (after, width, height), ==, 0);
}

/* A Choreonoid sample robot: every link's shapes draw without a GL error. */
static void
test_sr1 (Fixture       *f,
          gconstpointer  data)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "choreonoid", "SR1.body",
                                                 NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autofree guint8 *pixels = NULL;
  KmSkeleton *skeleton;
  guint total = 0;
  int width, height;

  if (!ready_or_skip (f))
    return;

  g_assert_true (km_document_import_file (f->document, file, &error));
  g_assert_no_error (error);
  skeleton = km_document_get_skeleton (f->document);
  g_assert_nonnull (skeleton);
  for (guint i = 0; i < km_skeleton_get_n_joints (skeleton); i++)
    {
      guint n = 0;

      km_skeleton_get_shapes (skeleton, i, &n);
      total += n;
    }
  g_assert_cmpuint (total, >, 10);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->view), "scene.frame-all", NULL));
  pixels = grab (f, TRUE, &width, &height);
  g_assert_null (gtk_gl_area_get_error (GTK_GL_AREA (f->view)));
  g_assert_cmpint (width, >, 0);
}

/* Importing a model frames all of it, shapes included: a humanoid's head and feet reach
 * well beyond its joints, and framing the joints alone cut them off. */
static void
test_import_frames_shapes (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "choreonoid", "SR1.body",
                                                 NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  const KmTransform *world;
  const KmCamera *camera;
  KmSkeleton *skeleton;
  int width, height;
  guint n_checked = 0;

  if (!ready_or_skip (f))
    return;

  g_assert_true (km_document_import_file (f->document, file, &error));
  g_assert_no_error (error);
  skeleton = km_document_get_skeleton (f->document);
  world = km_document_get_joint_world (f->document, NULL);
  camera = km_scene_view_get_camera (f->view);
  width = gtk_widget_get_width (GTK_WIDGET (f->view));
  height = gtk_widget_get_height (GTK_WIDGET (f->view));
  for (guint i = 0; i < km_skeleton_get_n_joints (skeleton); i++)
    {
      guint n = 0;
      KmShape * const *shapes = km_skeleton_get_shapes (skeleton, i, &n);

      for (guint k = 0; k < n; k++)
        {
          KmVec3 lo, hi;

          km_shape_get_bounds (shapes[k], &lo, &hi);
          for (guint c = 0; c < 8; c++)
            {
              KmVec3 p = km_vec3 (c & 1 ? hi.x : lo.x, c & 2 ? hi.y : lo.y, c & 4 ? hi.z : lo.z);
              double x, y;

              p = km_vec3 (p.x * shapes[k]->scale.x, p.y * shapes[k]->scale.y,
                           p.z * shapes[k]->scale.z);
              p = km_transform_apply (&world[i], km_transform_apply (&shapes[k]->transform, p));
              g_assert_true (km_camera_project (camera, p, width, height, &x, &y));
              g_assert_cmpfloat (x, >=, 0);
              g_assert_cmpfloat (x, <=, width);
              g_assert_cmpfloat (y, >=, 0);
              g_assert_cmpfloat (y, <=, height);
              n_checked++;
            }
        }
    }
  g_assert_cmpuint (n_checked, >, 80);
}

/* The camera actions: standard views keep the target; the orthographic toggle flips the
 * property; frame-selection fits the selected joint. */
static void
test_camera_actions (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "red-box.body", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  const KmCamera *camera;
  double distance_all;

  if (!ready_or_skip (f))
    return;
  g_assert_true (km_document_import_file (f->document, file, &error));
  g_assert_no_error (error);

  camera = km_scene_view_get_camera (f->view);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->view), "scene.view-top", NULL));
  g_assert_cmpfloat (km_camera_get_forward (camera).z, <, -0.99);
  /* Front looks at the face of a model facing +X (Choreonoid's convention), along -X; the
   * side view, from its left (+Y), along -Y. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->view), "scene.view-side", NULL));
  g_assert_cmpfloat_with_epsilon (km_camera_get_forward (camera).y, -1.0, 1e-9);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->view), "scene.view-front", NULL));
  g_assert_cmpfloat_with_epsilon (km_camera_get_forward (camera).x, -1.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (km_camera_get_up (camera).z, 1.0, 1e-9);

  g_assert_false (km_scene_view_get_orthographic (f->view));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->view), "scene.toggle-ortho", NULL));
  g_assert_true (camera->orthographic);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->view), "scene.toggle-ortho", NULL));
  g_assert_false (camera->orthographic);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->view), "scene.frame-all", NULL));
  distance_all = camera->distance;
  /* The arm's tip, a joint with nothing below it: a much closer view, centred on it. */
  km_document_set_selected_joint (f->document, 1);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->view), "scene.frame-selection",
                                             NULL));
  g_assert_cmpfloat (camera->distance, <, distance_all / 2);
  g_assert_cmpfloat_with_epsilon (camera->target.z, 1.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (camera->target.x, 0.0, 1e-9);
}

int
main (int   argc,
      char *argv[])
{
  g_setenv ("GSK_RENDERER", "cairo", FALSE);
  gtk_test_init (&argc, &argv, NULL);

  g_test_add ("/kinema/SceneView/body-shapes", Fixture, NULL, fixture_setup, test_body_shapes,
              fixture_teardown);
  g_test_add ("/kinema/SceneView/sr1", Fixture, NULL, fixture_setup, test_sr1,
              fixture_teardown);
  g_test_add ("/kinema/SceneView/import-frames-shapes", Fixture, NULL, fixture_setup,
              test_import_frames_shapes, fixture_teardown);
  g_test_add ("/kinema/SceneView/camera-actions", Fixture, NULL, fixture_setup,
              test_camera_actions, fixture_teardown);

  return g_test_run ();
}
