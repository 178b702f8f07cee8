/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <math.h>
#include <string.h>
#include <epoxy/gl.h>
#include <gtk/gtk.h>

#include "km-camera.h"
#include "km-renderer.h"
#include "km-skeleton.h"

/*
 * Draws through KmRenderer in a plain GtkGLArea and reads the framebuffer back inside
 * ::render (RGBA, bottom-left origin), then looks for the renderer's colours at the pixels
 * where the camera projects joints and targets.
 */

#define WIDTH 400
#define HEIGHT 300

typedef struct
{
  GtkWidget     *window;
  GtkWidget     *area;
  KmRenderer    *renderer;
  GError        *renderer_error;
  KmSkeleton    *skeleton;
  double         q[5];
  KmTransform    world[5];
  KmRenderScene  scene;
  KmCamera      *camera;
  int            width;
  int            height;
  guint8        *pixels;
  GLenum         gl_error;
  int            renders;
  guint          timed_frames;     /* draw this many extra frames in ::render, timed */
  double         frame_ms;
} Fixture;

static KmSkeleton *
build_default_like_skeleton (void)
{
  g_autoptr(KmSkeletonBuilder) b = km_skeleton_builder_new ();
  g_autoptr(GError) error = NULL;
  KmSkeleton *skeleton;
  guint j;

  km_skeleton_builder_add_joint (b, "Root", KM_JOINT_FIXED, NULL);
  j = km_skeleton_builder_add_joint (b, "Shoulder", KM_JOINT_SPHERICAL, "Root");
  km_skeleton_builder_set_offset (b, j, km_vec3 (0, 1.5, 0));
  j = km_skeleton_builder_add_joint (b, "Elbow", KM_JOINT_REVOLUTE, "Shoulder");
  km_skeleton_builder_set_offset (b, j, km_vec3 (0, 0, 2.0));
  km_skeleton_builder_set_axis (b, j, km_vec3 (1, 0, 0));
  km_skeleton_builder_set_limit (b, j, 0, 0.0, 2.5);
  j = km_skeleton_builder_add_joint (b, "Piston", KM_JOINT_PRISMATIC, "Elbow");
  km_skeleton_builder_set_offset (b, j, km_vec3 (0, 0, 1.0));
  km_skeleton_builder_set_axis (b, j, km_vec3 (0, 0, 1));
  j = km_skeleton_builder_add_joint (b, "EndEffector", KM_JOINT_FIXED, "Piston");
  km_skeleton_builder_set_offset (b, j, km_vec3 (0, 0, 0.5));

  skeleton = km_skeleton_builder_build (b, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (km_skeleton_get_n_dof (skeleton), ==, 5);
  return skeleton;
}

static void
area_realize_cb (GtkGLArea *area,
                 Fixture   *f)
{
  GdkGLContext *context;

  gtk_gl_area_make_current (area);
  if (gtk_gl_area_get_error (area) != NULL)
    return;

  context = gtk_gl_area_get_context (area);
  f->renderer = km_renderer_new (gdk_gl_context_get_api (context) == GDK_GL_API_GLES,
                                &f->renderer_error);
  if (f->renderer == NULL)
    gtk_gl_area_set_error (area, f->renderer_error);
}

static void
area_unrealize_cb (GtkGLArea *area,
                   Fixture   *f)
{
  gtk_gl_area_make_current (area);
  if (gtk_gl_area_get_error (area) == NULL)
    g_clear_pointer (&f->renderer, km_renderer_free);
}

static void
area_resize_cb (GtkGLArea *area,
                int        width,
                int        height,
                Fixture   *f)
{
  f->width = width;
  f->height = height;
}

static gboolean
area_render_cb (GtkGLArea    *area,
                GdkGLContext *context,
                Fixture      *f)
{
  if (f->renderer == NULL || f->width <= 0 || f->height <= 0)
    return FALSE;

  while (glGetError () != GL_NO_ERROR)
    ;
  km_skeleton_forward_kinematics (f->skeleton, f->q, NULL, f->world);
  km_renderer_render (f->renderer, &f->scene, f->camera, f->width, f->height);

  if (f->timed_frames > 0)
    {
      gint64 start;

      glFinish ();
      start = g_get_monotonic_time ();
      for (guint i = 0; i < f->timed_frames; i++)
        km_renderer_render (f->renderer, &f->scene, f->camera, f->width, f->height);
      glFinish ();
      f->frame_ms = (g_get_monotonic_time () - start) / 1000.0 / f->timed_frames;
      f->timed_frames = 0;
    }

  g_free (f->pixels);
  f->pixels = g_malloc ((gsize) f->width * f->height * 4);
  glPixelStorei (GL_PACK_ALIGNMENT, 1);
  glReadPixels (0, 0, f->width, f->height, GL_RGBA, GL_UNSIGNED_BYTE, f->pixels);
  f->gl_error = glGetError ();
  f->renders++;
  return TRUE;
}

static void
timeout_cb (gpointer data)
{
  *(gboolean *) data = TRUE;
}

static gboolean
wait_renders (Fixture *f,
              int      target)
{
  gboolean late = FALSE;
  guint id = g_timeout_add_once (10000, timeout_cb, &late);

  while (f->renders < target && !late && gtk_gl_area_get_error (GTK_GL_AREA (f->area)) == NULL)
    g_main_context_iteration (NULL, TRUE);
  if (!late)
    g_source_remove (id);
  return f->renders >= target;
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  f->skeleton = build_default_like_skeleton ();
  f->camera = km_camera_new ();
  km_camera_frame_box (f->camera, km_vec3 (-1, -1, 0), km_vec3 (1, 2, 3.5), 1.0);

  f->scene.skeleton = f->skeleton;
  f->scene.joint_world = f->world;
  f->scene.selected_joint = -1;
  f->scene.effector = 4;

  f->window = gtk_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (f->window), WIDTH, HEIGHT);
  f->area = gtk_gl_area_new ();
  gtk_gl_area_set_has_depth_buffer (GTK_GL_AREA (f->area), TRUE);
  gtk_gl_area_set_required_version (GTK_GL_AREA (f->area), 3, 3);
  g_signal_connect (f->area, "realize", G_CALLBACK (area_realize_cb), f);
  g_signal_connect (f->area, "unrealize", G_CALLBACK (area_unrealize_cb), f);
  g_signal_connect (f->area, "resize", G_CALLBACK (area_resize_cb), f);
  g_signal_connect (f->area, "render", G_CALLBACK (area_render_cb), f);
  gtk_window_set_child (GTK_WINDOW (f->window), f->area);
  gtk_window_present (GTK_WINDOW (f->window));
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  gtk_window_destroy (GTK_WINDOW (f->window));
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_assert_null (f->renderer);
  g_clear_error (&f->renderer_error);
  g_clear_pointer (&f->skeleton, km_skeleton_unref);
  g_clear_pointer (&f->camera, km_camera_free);
  g_clear_pointer (&f->pixels, g_free);
}

static gboolean
first_frame_or_skip (Fixture *f)
{
  const GError *error;

  wait_renders (f, 1);
  error = gtk_gl_area_get_error (GTK_GL_AREA (f->area));
  if (error != NULL && f->renderer_error == NULL)
    {
      g_test_skip_printf ("no GL context: %s", error->message);
      return FALSE;
    }
  g_assert_no_error (f->renderer_error);
  g_assert_cmpint (f->renders, >=, 1);
  g_assert_cmpint (f->gl_error, ==, GL_NO_ERROR);
  return TRUE;
}

/* Colour at a top-left-origin pixel coordinate, as 0..255. */
static void
pixel_at (Fixture *f,
          double   x,
          double   y,
          guint8   rgb[3])
{
  int px = CLAMP ((int) x, 0, f->width - 1);
  int py = CLAMP (f->height - 1 - (int) y, 0, f->height - 1);
  const guint8 *p = f->pixels + ((gsize) py * f->width + px) * 4;

  rgb[0] = p[0], rgb[1] = p[1], rgb[2] = p[2];
}

static gboolean
near_colour (const guint8 rgb[3],
             float        r,
             float        g,
             float        b)
{
  const int tolerance = 12;

  return abs (rgb[0] - (int) lrintf (r * 255)) <= tolerance
         && abs (rgb[1] - (int) lrintf (g * 255)) <= tolerance
         && abs (rgb[2] - (int) lrintf (b * 255)) <= tolerance;
}

#define NEAR_JOINT(rgb) near_colour (rgb, KM_RENDER_JOINT_RGB)
#define NEAR_EFFECTOR(rgb) near_colour (rgb, KM_RENDER_EFFECTOR_RGB)
#define NEAR_BACKGROUND(rgb) near_colour (rgb, KM_RENDER_BACKGROUND_RGB)
#define NEAR_TARGET(rgb) near_colour (rgb, KM_RENDER_TARGET_RGB)

static void
joint_pixel (Fixture *f,
             guint    joint,
             guint8   rgb[3])
{
  double x, y;

  g_assert_true (km_camera_project (f->camera, f->world[joint].pos, f->width, f->height, &x, &y));
  g_assert_cmpfloat (x, >=, 0);
  g_assert_cmpfloat (x, <, f->width);
  g_assert_cmpfloat (y, >=, 0);
  g_assert_cmpfloat (y, <, f->height);
  pixel_at (f, x, y, rgb);
}

static void
test_joint_pixels (Fixture       *f,
                   gconstpointer  data)
{
  guint8 rgb[3];

  if (!first_frame_or_skip (f))
    return;

  /* The two joints between bones: Shoulder and Elbow, and the effector in its own colour. */
  joint_pixel (f, 1, rgb);
  g_assert_true (NEAR_JOINT (rgb));
  joint_pixel (f, 2, rgb);
  g_assert_true (NEAR_JOINT (rgb));
  joint_pixel (f, 4, rgb);
  g_assert_true (NEAR_EFFECTOR (rgb));

  /* Sky above the framed skeleton is background. */
  pixel_at (f, f->width / 2.0, 2, rgb);
  g_assert_true (NEAR_BACKGROUND (rgb));
}

static void
test_pose_moves_pixels (Fixture       *f,
                        gconstpointer  data)
{
  KmVec3 before;
  guint8 rgb[3];
  double x, y;
  int renders;

  if (!first_frame_or_skip (f))
    return;

  before = f->world[4].pos;
  g_assert_true (km_camera_project (f->camera, before, f->width, f->height, &x, &y));
  pixel_at (f, x, y, rgb);
  g_assert_true (NEAR_EFFECTOR (rgb));

  /* Bend the elbow by 90°: the effector swings away from where it was drawn. */
  f->q[3] = G_PI / 2;
  renders = f->renders;
  gtk_gl_area_queue_render (GTK_GL_AREA (f->area));
  g_assert_true (wait_renders (f, renders + 1));
  g_assert_cmpint (f->gl_error, ==, GL_NO_ERROR);

  g_assert_cmpfloat (km_vec3_length (km_vec3_sub (f->world[4].pos, before)), >, 1.0);
  pixel_at (f, x, y, rgb);
  g_assert_false (NEAR_EFFECTOR (rgb));
  joint_pixel (f, 4, rgb);
  g_assert_true (NEAR_EFFECTOR (rgb));
}

static void
test_target_pixels (Fixture       *f,
                    gconstpointer  data)
{
  KmVec3 path[3] = { { 1, -1, 0.5 }, { 1, 0, 1 }, { 1, 1, 0.5 } };
  guint8 rgb[3];
  double x, y;
  int renders;

  if (!first_frame_or_skip (f))
    return;

  g_assert_true (km_camera_project (f->camera, path[1], f->width, f->height, &x, &y));
  pixel_at (f, x, y, rgb);
  g_assert_false (NEAR_TARGET (rgb));

  f->scene.has_target = TRUE;
  km_transform_identity (&f->scene.target);
  f->scene.target.pos = path[1];
  f->scene.trajectory = path;
  f->scene.n_trajectory = G_N_ELEMENTS (path);
  f->scene.show_joint_axes = TRUE;
  renders = f->renders;
  gtk_gl_area_queue_render (GTK_GL_AREA (f->area));
  g_assert_true (wait_renders (f, renders + 1));
  g_assert_cmpint (f->gl_error, ==, GL_NO_ERROR);

  pixel_at (f, x, y, rgb);
  g_assert_true (NEAR_TARGET (rgb));
}

/* The render path's cost per frame for the default-sized scene (reported, never asserted:
 * CI machines differ). */
static void
test_frame_time (Fixture       *f,
                 gconstpointer  data)
{
  KmVec3 path[2] = { { 1, -1, 0.5 }, { 1, 1, 0.5 } };
  int renders;

  if (!first_frame_or_skip (f))
    return;

  f->scene.has_target = TRUE;
  km_transform_identity (&f->scene.target);
  f->scene.trajectory = path;
  f->scene.n_trajectory = G_N_ELEMENTS (path);
  f->timed_frames = 50;
  renders = f->renders;
  gtk_gl_area_queue_render (GTK_GL_AREA (f->area));
  g_assert_true (wait_renders (f, renders + 1));
  g_assert_cmpint (f->gl_error, ==, GL_NO_ERROR);
  g_assert_cmpfloat (f->frame_ms, >, 0.0);
  g_test_message ("render path: %.3f ms per frame at %dx%d", f->frame_ms, f->width, f->height);
}

static void
test_camera_project_ray (void)
{
  g_autoptr(KmCamera) camera = km_camera_new ();
  KmVec3 p = km_vec3 (0.3, -0.2, 1.4), origin, dir, to_p;
  double x, y;

  km_camera_orbit (camera, 0.4, 0.2);
  g_assert_true (km_camera_project (camera, p, 640, 480, &x, &y));
  km_camera_ray (camera, x, y, 640, 480, &origin, &dir);

  /* The ray through the projected pixel passes through the point. */
  to_p = km_vec3_normalize (km_vec3_sub (p, origin));
  g_assert_cmpfloat_with_epsilon (km_vec3_dot (to_p, dir), 1.0, 1e-5);

  /* The target projects to the centre. */
  g_assert_true (km_camera_project (camera, camera->target, 640, 480, &x, &y));
  g_assert_cmpfloat_with_epsilon (x, 320.0, 1e-3);
  g_assert_cmpfloat_with_epsilon (y, 240.0, 1e-3);

  /* Pitch is clamped short of the pole; zoom refuses nonsense. */
  km_camera_orbit (camera, 0, 10);
  g_assert_cmpfloat (camera->pitch, <, G_PI / 2);
  km_camera_zoom (camera, -1);
  km_camera_zoom (camera, NAN);
  g_assert_true (isfinite (camera->distance) && camera->distance > 0);
}

/* Standard views and the orthographic projection, by where known points land. */
static void
test_camera_views (void)
{
  g_autoptr(KmCamera) camera = km_camera_new ();
  KmVec3 t = km_vec3 (0, 0, 1), origin, dir, o2, d2;
  double x0, y0, x, y, x_near, y_near, x_far, y_far;

  camera->target = t;
  /* Front looks at the face of a model facing +X (Choreonoid's convention): along -X, +Y
   * to the right, +Z up. */
  km_camera_set_view (camera, KM_CAMERA_VIEW_FRONT);
  g_assert_cmpfloat_with_epsilon (km_camera_get_forward (camera).x, -1.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (km_camera_get_up (camera).z, 1.0, 1e-9);
  g_assert_true (km_camera_project (camera, t, 640, 480, &x0, &y0));
  g_assert_true (km_camera_project (camera, km_vec3 (0, 0.5, 1), 640, 480, &x, &y));
  g_assert_cmpfloat (x, >, x0 + 10);
  g_assert_cmpfloat_with_epsilon (y, y0, 1e-3);
  /* Right, the side on the front view's right (the model's left): along -Y, +X to the
   * left. */
  km_camera_set_view (camera, KM_CAMERA_VIEW_RIGHT);
  g_assert_cmpfloat_with_epsilon (km_camera_get_forward (camera).y, -1.0, 1e-9);
  g_assert_true (km_camera_project (camera, km_vec3 (0.5, 0, 1), 640, 480, &x, &y));
  g_assert_cmpfloat (x, <, x0 - 10);
  g_assert_cmpfloat_with_epsilon (y, y0, 1e-3);

  /* Looking along +Y (from -Y): +X to the right, +Z up. */
  camera->yaw = -G_PI / 2;
  camera->pitch = 0.0;
  g_assert_true (km_camera_project (camera, km_vec3 (0.5, 0, 1), 640, 480, &x, &y));
  g_assert_cmpfloat (x, >, x0 + 10);
  g_assert_cmpfloat_with_epsilon (y, y0, 1e-3);
  g_assert_true (km_camera_project (camera, km_vec3 (0, 0, 1.5), 640, 480, &x, &y));
  g_assert_cmpfloat (y, <, y0 - 10);
  g_assert_cmpfloat_with_epsilon (x, x0, 1e-3);
  /* Perspective: the same offset nearer the eye (at -Y) looks bigger. */
  g_assert_true (km_camera_project (camera, km_vec3 (0.5, -1, 1), 640, 480, &x_near, &y_near));
  g_assert_true (km_camera_project (camera, km_vec3 (0.5, 1, 1), 640, 480, &x_far, &y_far));
  g_assert_cmpfloat (x_near - x0, >, x_far - x0 + 5);

  /* Orthographic: depth does not change the image, the target keeps its place, and the
   * scale at the target's depth is the perspective one. */
  camera->orthographic = TRUE;
  g_assert_true (km_camera_project (camera, km_vec3 (0.5, 1, 1), 640, 480, &x_far, &y_far));
  g_assert_true (km_camera_project (camera, km_vec3 (0.5, -1, 1), 640, 480, &x_near, &y_near));
  g_assert_cmpfloat_with_epsilon (x_near, x_far, 1e-3);
  g_assert_true (km_camera_project (camera, km_vec3 (0.5, 0, 1), 640, 480, &x, &y));
  g_assert_cmpfloat_with_epsilon (x, x_far, 1e-3);
  g_assert_cmpfloat_with_epsilon (x - x0, 240.0 * 0.5 / (camera->distance * tan (camera->fov_y / 2)),
                                  1e-2);
  /* Every ray runs along the view; the one through a projected point meets it. */
  km_camera_ray (camera, 10, 20, 640, 480, &origin, &dir);
  km_camera_ray (camera, x, y, 640, 480, &o2, &d2);
  g_assert_cmpfloat_with_epsilon (km_vec3_dot (dir, km_vec3 (0, 1, 0)), 1.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (km_vec3_dot (d2, km_vec3 (0, 1, 0)), 1.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (o2.x, 0.5, 1e-4);
  g_assert_cmpfloat_with_epsilon (o2.z, 1.0, 1e-4);
  g_assert_cmpfloat (o2.y, <, -camera->distance);

  /* Top: +X right, +Y up. */
  camera->orthographic = FALSE;
  km_camera_set_view (camera, KM_CAMERA_VIEW_TOP);
  g_assert_cmpfloat (km_camera_get_forward (camera).z, <, -0.99);
  g_assert_true (km_camera_project (camera, km_vec3 (0.5, 0, 1), 640, 480, &x, &y));
  g_assert_cmpfloat (x, >, x0 + 10);
  g_assert_cmpfloat (fabs (y - y0), <, 1.0);
  g_assert_true (km_camera_project (camera, km_vec3 (0, 0.5, 1), 640, 480, &x, &y));
  g_assert_cmpfloat (y, <, y0 - 10);
  g_assert_cmpfloat (fabs (x - x0), <, 1e-3);
}

static KmSkeleton *
build_shapes_skeleton (void)
{
  static const float square[] = { -0.3f, 0, -0.3f, 0.3f, 0, -0.3f, 0.3f, 0, 0.3f, -0.3f, 0, 0.3f };
  static const guint32 triangles[] = { 0, 1, 2, 0, 2, 3 };
  g_autoptr(KmSkeletonBuilder) b = km_skeleton_builder_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(KmMesh) mesh = NULL;
  KmSkeleton *skeleton;
  KmShape *shape;
  guint j;

  km_skeleton_builder_add_joint (b, "Root", KM_JOINT_FIXED, NULL);
  j = km_skeleton_builder_add_joint (b, "Arm", KM_JOINT_REVOLUTE, "Root");
  km_skeleton_builder_set_offset (b, j, km_vec3 (0, 0, 1));
  km_skeleton_builder_set_axis (b, j, km_vec3 (0, 1, 0));

  shape = km_shape_new_box (km_vec3 (0.6, 0.6, 0.6));
  shape->transform.pos = km_vec3 (1.5, 0, 1);
  shape->color = (KmColor) { 1, 0, 0, 1 };
  km_skeleton_builder_add_shape (b, 0, shape);
  km_shape_unref (shape);
  shape = km_shape_new_sphere (0.3);
  shape->transform.pos = km_vec3 (-1.5, 0, 1);
  shape->color = (KmColor) { 0, 1, 0, 1 };
  km_skeleton_builder_add_shape (b, 0, shape);
  km_shape_unref (shape);
  /* Along +Y, towards a front camera: its end cap faces the eye. */
  shape = km_shape_new_cylinder (0.3, 0.8);
  shape->transform.pos = km_vec3 (0, 0, 0.5);
  shape->color = (KmColor) { 0, 0, 1, 1 };
  km_skeleton_builder_add_shape (b, j, shape);
  km_shape_unref (shape);

  /* Mirrored (a negative scale turns the winding round): still drawn, culled right. */
  shape = km_shape_new_box (km_vec3 (0.6, 0.6, 0.6));
  shape->transform.pos = km_vec3 (1.5, 0, -1);
  shape->scale = km_vec3 (-1, 1, 1);
  shape->color = (KmColor) { 0, 1, 1, 1 };
  km_skeleton_builder_add_shape (b, 0, shape);
  km_shape_unref (shape);
  /* Half transparent: blended over the background. */
  shape = km_shape_new_sphere (0.3);
  shape->transform.pos = km_vec3 (-1.5, 0, -1);
  shape->color = (KmColor) { 1, 1, 0, 0.5f };
  km_skeleton_builder_add_shape (b, 0, shape);
  km_shape_unref (shape);

  mesh = km_mesh_new (square, 4, NULL, triangles, 2, &error);
  g_assert_no_error (error);
  shape = km_shape_new_mesh (mesh);
  shape->transform.pos = km_vec3 (0, 0, -2.5);
  shape->color = (KmColor) { 1, 0, 1, 1 };
  km_skeleton_builder_add_shape (b, j, shape);
  km_shape_unref (shape);

  skeleton = km_skeleton_builder_build (b, NULL, &error);
  g_assert_no_error (error);
  return skeleton;
}

static void
point_pixel (Fixture *f,
             KmVec3   p,
             guint8   rgb[3])
{
  double x, y;

  g_assert_true (km_camera_project (f->camera, p, f->width, f->height, &x, &y));
  pixel_at (f, x, y, rgb);
}

/* Every primitive and an indexed mesh, in its colour where the camera projects it. */
static void
test_shapes_pixels (Fixture       *f,
                    gconstpointer  data)
{
  static const float background[3] = { KM_RENDER_BACKGROUND_RGB };
  KmRenderBody body;
  guint8 rgb[3];
  int renders;

  if (!first_frame_or_skip (f))
    return;

  km_skeleton_unref (f->skeleton);
  f->skeleton = build_shapes_skeleton ();
  f->q[0] = 0.0;
  body.skeleton = f->skeleton;
  body.joint_world = f->world;
  f->scene = (KmRenderScene) { .bodies = &body, .n_bodies = 1, .selected_joint = -1,
                               .effector = -1 };
  km_camera_reset (f->camera);
  f->camera->target = km_vec3 (0, 0, 0);
  f->camera->distance = 6.0;
  f->camera->orthographic = TRUE;
  /* Looking along +Y at the XZ plane the shapes are laid out in, +X to the right. */
  f->camera->yaw = -G_PI / 2;
  f->camera->pitch = 0.0;

  renders = f->renders;
  gtk_widget_queue_draw (f->area);
  g_assert_true (wait_renders (f, renders + 1));
  g_assert_cmpint (f->gl_error, ==, GL_NO_ERROR);

  point_pixel (f, km_vec3 (1.5, 0, 1), rgb);
  g_assert_true (near_colour (rgb, 1, 0, 0));
  point_pixel (f, km_vec3 (-1.5, 0, 1), rgb);
  g_assert_true (near_colour (rgb, 0, 1, 0));
  point_pixel (f, km_vec3 (0, 0, 1.5), rgb);
  g_assert_true (near_colour (rgb, 0, 0, 1));
  point_pixel (f, km_vec3 (0.1, 0, -1.4), rgb);
  g_assert_true (near_colour (rgb, 1, 0, 1));
  point_pixel (f, km_vec3 (1.5, 0, -1), rgb);
  g_assert_true (near_colour (rgb, 0, 1, 1));
  /* once over the background (a closed shape's back faces are not blended in too) */
  point_pixel (f, km_vec3 (-1.5, 0, -1), rgb);
  g_assert_true (near_colour (rgb, (1 + background[0]) / 2, (1 + background[1]) / 2,
                              background[2] / 2));
  /* Between the shapes, off the grid (edge-on at z = 0): the background. */
  point_pixel (f, km_vec3 (0.75, 0, 0.75), rgb);
  g_assert_true (NEAR_BACKGROUND (rgb));
  g_assert_cmpuint (km_renderer_get_n_cached_meshes (f->renderer), ==, 1);

  /* The joint turns (about Y): the cylinder follows. */
  f->q[0] = G_PI / 2;
  renders = f->renders;
  gtk_widget_queue_draw (f->area);
  g_assert_true (wait_renders (f, renders + 1));
  point_pixel (f, km_vec3 (0, 0, 1.5), rgb);
  g_assert_false (near_colour (rgb, 0, 0, 1));

  /* A body no longer in the scene leaves no trace. */
  f->scene.n_bodies = 0;
  renders = f->renders;
  gtk_widget_queue_draw (f->area);
  g_assert_true (wait_renders (f, renders + 1));
  point_pixel (f, km_vec3 (1.5, 0, 1), rgb);
  g_assert_true (NEAR_BACKGROUND (rgb));
}

/* A one-joint skeleton (no bones) with a box on its root, or a two-joint one with one bone,
 * both about @size metres. */
static KmSkeleton *
build_sized_skeleton (double   size,
                      gboolean bone)
{
  g_autoptr(KmSkeletonBuilder) b = km_skeleton_builder_new ();
  g_autoptr(GError) error = NULL;
  KmSkeleton *skeleton;

  km_skeleton_builder_add_joint (b, "Root", KM_JOINT_FIXED, NULL);
  if (bone)
    {
      guint j = km_skeleton_builder_add_joint (b, "Tip", KM_JOINT_REVOLUTE, "Root");

      km_skeleton_builder_set_offset (b, j, km_vec3 (0, 0, size));
      km_skeleton_builder_set_axis (b, j, km_vec3 (1, 0, 0));
    }
  else
    {
      g_autoptr(KmShape) box = km_shape_new_box (km_vec3 (size, size, size));

      km_skeleton_builder_add_shape (b, 0, box);
    }
  skeleton = km_skeleton_builder_build (b, NULL, &error);
  g_assert_no_error (error);
  return skeleton;
}

/* The markers of a model of a few centimetres are sized to it as those of a metre's are to
 * theirs: framed alike, they look alike instead of swamping the small one. Models of a
 * metre or more, and scenes of unknown size, keep the markers they had. */
static void
test_marker_radius (void)
{
  g_autoptr(KmSkeleton) example = build_default_like_skeleton ();

  for (int bone = 0; bone <= 1; bone++)
    {
      g_autoptr(KmSkeleton) small = build_sized_skeleton (0.05, bone);
      g_autoptr(KmSkeleton) metre = build_sized_skeleton (1.0, bone);
      g_autoptr(KmSkeleton) tiny = build_sized_skeleton (0.01, bone);
      double r_small = km_renderer_marker_radius (small, 0.05);
      double r_metre = km_renderer_marker_radius (metre, 1.0);
      double r_tiny = km_renderer_marker_radius (tiny, 0.01);

      g_test_message ("%s: %.4f m at 5 cm, %.4f m at 1 m, %.5f m at 1 cm",
                      bone ? "one bone" : "a box on the root", r_small, r_metre, r_tiny);
      /* A metre's markers as before: 5 cm without bones, 8 % of the bone. */
      g_assert_cmpfloat_with_epsilon (r_metre, km_renderer_joint_radius (metre), 1e-12);
      g_assert_cmpfloat_with_epsilon (r_metre, bone ? 0.08 : 0.05, 1e-12);
      /* The same fraction of the model's size at 5 cm and at 1 cm. */
      g_assert_cmpfloat_with_epsilon (r_small / 0.05, r_metre / 1.0, 1e-9);
      g_assert_cmpfloat_with_epsilon (r_tiny / 0.01, r_metre / 1.0, 1e-9);
      /* Unknown size: the metre's bounds. */
      g_assert_cmpfloat (km_renderer_marker_radius (small, 0.0), ==,
                         km_renderer_joint_radius (small));
      g_assert_cmpfloat (km_renderer_marker_radius (small, NAN), ==,
                         km_renderer_joint_radius (small));
    }

  /* The built-in example (about 4 m) and anything larger: unchanged. */
  g_assert_cmpfloat (km_renderer_marker_radius (example, 3.8), ==,
                     km_renderer_joint_radius (example));
  g_assert_cmpfloat (km_renderer_marker_radius (example, 1.0), ==,
                     km_renderer_joint_radius (example));
  g_assert_cmpfloat (km_renderer_marker_radius (example, 40.0), ==,
                     km_renderer_joint_radius (example));
}

/* A straight chain of @n links @link metres long, up from the origin (a snake, a rope). */
static KmSkeleton *
build_chain (guint  n,
             double link)
{
  g_autoptr(KmSkeletonBuilder) b = km_skeleton_builder_new ();
  g_autoptr(GError) error = NULL;
  KmSkeleton *skeleton;

  km_skeleton_builder_add_joint (b, "j0", KM_JOINT_FIXED, NULL);
  for (guint i = 1; i <= n; i++)
    {
      g_autofree char *name = g_strdup_printf ("j%u", i);
      g_autofree char *parent = g_strdup_printf ("j%u", i - 1);
      guint j = km_skeleton_builder_add_joint (b, name, KM_JOINT_REVOLUTE, parent);

      km_skeleton_builder_set_offset (b, j, km_vec3 (0, 0, link));
      km_skeleton_builder_set_axis (b, j, km_vec3 (i % 2, (i + 1) % 2, 0));
    }
  skeleton = km_skeleton_builder_build (b, NULL, &error);
  g_assert_no_error (error);
  return skeleton;
}

/* Whether a joint marker's orange shows within @reach pixels of (x, y), top-left origin. */
static gboolean
marker_near (Fixture *f,
             double   x,
             double   y,
             int      reach)
{
  for (int dy = -reach; dy <= reach; dy++)
    for (int dx = -reach; dx <= reach; dx++)
      {
        guint8 rgb[3];

        if (x + dx < 0 || x + dx >= f->width || y + dy < 0 || y + dy >= f->height)
          continue;
        pixel_at (f, x + dx, y + dy, rgb);
        /* Orange, lit or shaded (grey bones, the grid and the blue Z axis are not). */
        if (rgb[0] > 90 && rgb[0] > rgb[2] + 60)
          return TRUE;
      }
  return FALSE;
}

/* A chain of 200 links of 2 cm (4 m tall) framed whole is drawn along its whole length,
 * in perspective and orthographic views, straight and bent: its markers, sized to the
 * links, would be a third of a pixel wide and not drawn at all. The built-in example's
 * markers are larger than the least size and keep their size. */
static void
test_long_chain_visible (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(KmSkeleton) chain = build_chain (200, 0.02);
  g_autofree double *q = g_new0 (double, km_skeleton_get_n_dof (chain));
  g_autofree KmTransform *world = g_new (KmTransform, km_skeleton_get_n_joints (chain));
  guint n = km_skeleton_get_n_joints (chain);

  if (!first_frame_or_skip (f))
    return;

  g_assert_cmpfloat (km_renderer_view_marker_radius (f->skeleton, 3.8, f->camera), ==,
                     km_renderer_marker_radius (f->skeleton, 3.8));

  f->scene = (KmRenderScene) { .skeleton = chain, .joint_world = world, .selected_joint = -1,
                               .effector = -1, .model_extent = 4.0 };
  for (guint bent = 0; bent <= 1; bent++)
    for (guint ortho = 0; ortho <= 1; ortho++)
      {
        KmVec3 lo = km_vec3 (G_MAXDOUBLE, G_MAXDOUBLE, G_MAXDOUBLE), hi = km_vec3_scale (lo, -1);
        guint missing = 0;
        int renders;

        q[0] = bent ? 0.02 : 0.0;
        km_skeleton_forward_kinematics (chain, q, NULL, world);
        for (guint i = 0; i < n; i++)
          {
            KmVec3 p = world[i].pos;

            lo = km_vec3 (MIN (lo.x, p.x), MIN (lo.y, p.y), MIN (lo.z, p.z));
            hi = km_vec3 (MAX (hi.x, p.x), MAX (hi.y, p.y), MAX (hi.z, p.z));
          }
        km_camera_reset (f->camera);
        f->camera->orthographic = ortho;
        km_camera_frame_box (f->camera, lo, hi, (double) f->width / f->height);

        renders = f->renders;
        gtk_gl_area_queue_render (GTK_GL_AREA (f->area));
        g_assert_true (wait_renders (f, renders + 1));
        g_assert_cmpint (f->gl_error, ==, GL_NO_ERROR);

        /* Every fifth joint: something of the chain drawn where it projects. */
        for (guint i = 0; i < n; i += 5)
          {
            double x, y;

            g_assert_true (km_camera_project (f->camera, world[i].pos, f->width, f->height,
                                              &x, &y));
            missing += !marker_near (f, x, y, 1);
          }
        g_test_message ("%s, %s: %u of %u joints not drawn, markers %.4f m",
                        bent ? "bent" : "straight", ortho ? "orthographic" : "perspective",
                        missing, (n + 4) / 5,
                        km_renderer_view_marker_radius (chain, 4.0, f->camera));
        g_assert_cmpuint (missing, ==, 0);
      }
}

/* A serpentine of @cols × @rows joints @step apart in the XY plane: a row along X, the next
 * one @step further along Y and back, so that every bone is @step long. */
static KmSkeleton *
build_serpentine (guint  cols,
                  guint  rows,
                  double step)
{
  g_autoptr(KmSkeletonBuilder) b = km_skeleton_builder_new ();
  g_autoptr(GError) error = NULL;
  KmSkeleton *skeleton;

  km_skeleton_builder_add_joint (b, "j0", KM_JOINT_FIXED, NULL);
  for (guint i = 1; i < cols * rows; i++)
    {
      g_autofree char *name = g_strdup_printf ("j%u", i);
      g_autofree char *parent = g_strdup_printf ("j%u", i - 1);
      guint j = km_skeleton_builder_add_joint (b, name, KM_JOINT_REVOLUTE, parent);
      double dir = (i / cols) % 2 == 0 ? 1.0 : -1.0;

      km_skeleton_builder_set_offset (b, j, i % cols == 0 ? km_vec3 (0, step, 0)
                                                          : km_vec3 (dir * step, 0, 0));
      km_skeleton_builder_set_axis (b, j, km_vec3 (0, 0, 1));
    }
  skeleton = km_skeleton_builder_build (b, NULL, &error);
  g_assert_no_error (error);
  return skeleton;
}

/* A body of 1,200 joints is drawn in as many draw calls as the five-joint example: each
 * body's joint markers (bones and spheres) are one draw, not two per joint, which stalled
 * the view on large models. Each joint keeps its own colour all the same (selected,
 * hovered, the effector, the others) and its bone is drawn; a second body drawn as bones
 * only costs one call more, however many joints it has. */
static void
test_many_joints_batched (Fixture       *f,
                          gconstpointer  data)
{
  static const float bone[3] = { KM_RENDER_BONE_RGB };
  static const float hover[3] = { KM_RENDER_HOVER_RGB };
  static const float selected[3] = { KM_RENDER_SELECTED_RGB };
  g_autoptr(KmSkeleton) many = build_serpentine (40, 30, 0.1);
  guint n = km_skeleton_get_n_joints (many);
  g_autofree double *q = g_new0 (double, km_skeleton_get_n_dof (many));
  g_autofree KmTransform *world = g_new (KmTransform, n);
  g_autofree KmTransform *other_world = g_new (KmTransform, n);
  KmVec3 lo, hi;
  KmRenderBody bodies[1];
  guint few_calls, many_calls;
  guint8 rgb[3];
  int renders;

  if (!first_frame_or_skip (f))
    return;
  /* The example: the grid and its markers. */
  few_calls = km_renderer_get_n_draw_calls (f->renderer);
  g_assert_cmpuint (few_calls, >=, 2);
  g_assert_cmpuint (few_calls, <, km_skeleton_get_n_joints (f->skeleton));

  km_skeleton_forward_kinematics (many, q, NULL, world);
  memcpy (other_world, world, n * sizeof *world);
  f->scene = (KmRenderScene) { .skeleton = many, .joint_world = world, .selected_joint = 621,
                               .has_hover = TRUE, .hover_joint = 622, .effector = 623,
                               .model_extent = 5.0 };
  /* Seen from above, around joints 620 to 624 of row 15. */
  km_camera_reset (f->camera);
  f->camera->orthographic = TRUE;
  km_camera_set_view (f->camera, KM_CAMERA_VIEW_TOP);
  lo = hi = world[620].pos;
  for (guint i = 620; i <= 624; i++)
    {
      KmVec3 p = world[i].pos;

      lo = km_vec3 (MIN (lo.x, p.x), MIN (lo.y, p.y), MIN (lo.z, p.z));
      hi = km_vec3 (MAX (hi.x, p.x), MAX (hi.y, p.y), MAX (hi.z, p.z));
    }
  km_camera_frame_box (f->camera, km_vec3_sub (lo, km_vec3 (0.05, 0.05, 0)),
                       km_vec3_add (hi, km_vec3 (0.05, 0.05, 0)), (double) f->width / f->height);

  renders = f->renders;
  gtk_gl_area_queue_render (GTK_GL_AREA (f->area));
  g_assert_true (wait_renders (f, renders + 1));
  g_assert_cmpint (f->gl_error, ==, GL_NO_ERROR);
  many_calls = km_renderer_get_n_draw_calls (f->renderer);
  g_test_message ("%u draw calls for %u joints, %u for %u", many_calls, n, few_calls,
                  km_skeleton_get_n_joints (f->skeleton));
  g_assert_cmpuint (many_calls, ==, few_calls);

  point_pixel (f, world[620].pos, rgb);
  g_assert_true (NEAR_JOINT (rgb));
  point_pixel (f, world[621].pos, rgb);
  g_assert_true (near_colour (rgb, selected[0], selected[1], selected[2]));
  point_pixel (f, world[622].pos, rgb);
  g_assert_true (near_colour (rgb, hover[0], hover[1], hover[2]));
  point_pixel (f, world[623].pos, rgb);
  g_assert_true (NEAR_EFFECTOR (rgb));
  point_pixel (f, world[624].pos, rgb);
  g_assert_true (NEAR_JOINT (rgb));
  /* Halfway along a bone: the bone; halfway between two rows: the background. */
  point_pixel (f, km_vec3_scale (km_vec3_add (world[620].pos, world[621].pos), 0.5), rgb);
  g_assert_true (near_colour (rgb, bone[0], bone[1], bone[2]));
  point_pixel (f, km_vec3_add (world[622].pos, km_vec3 (0, 0.05, 0)), rgb);
  g_assert_true (NEAR_BACKGROUND (rgb));

  /* The same body once more as another body's bones, under the edited one's markers. */
  bodies[0] = (KmRenderBody) { many, other_world };
  f->scene.bodies = bodies;
  f->scene.n_bodies = 1;
  renders = f->renders;
  gtk_gl_area_queue_render (GTK_GL_AREA (f->area));
  g_assert_true (wait_renders (f, renders + 1));
  g_assert_cmpint (f->gl_error, ==, GL_NO_ERROR);
  g_assert_cmpuint (km_renderer_get_n_draw_calls (f->renderer), ==, few_calls + 1);
  point_pixel (f, world[621].pos, rgb);
  g_assert_true (near_colour (rgb, selected[0], selected[1], selected[2]));
}

/* A target track's tool point off the effector joint (KmRenderScene.tool_point) is drawn in
 * the effector's colour where it projects, the joint then in the joints' colour; hovered,
 * in the hover colour. Without one, nothing is drawn there. */
static void
test_tool_point_pixels (Fixture       *f,
                        gconstpointer  data)
{
  static const float hover[3] = { KM_RENDER_HOVER_RGB };
  KmVec3 tool;
  guint8 rgb[3];
  int renders;

  if (!first_frame_or_skip (f))
    return;

  /* 0.6 m sideways and down from the effector, in the open. */
  tool = km_vec3_add (f->world[4].pos, km_vec3 (0.6, -0.4, -0.6));
  point_pixel (f, tool, rgb);
  g_assert_true (NEAR_BACKGROUND (rgb));
  joint_pixel (f, 4, rgb);
  g_assert_true (NEAR_EFFECTOR (rgb));

  f->scene.has_tool_point = TRUE;
  f->scene.tool_point = tool;
  renders = f->renders;
  gtk_gl_area_queue_render (GTK_GL_AREA (f->area));
  g_assert_true (wait_renders (f, renders + 1));
  g_assert_cmpint (f->gl_error, ==, GL_NO_ERROR);
  point_pixel (f, tool, rgb);
  g_assert_true (NEAR_EFFECTOR (rgb));
  joint_pixel (f, 4, rgb);
  g_assert_true (NEAR_JOINT (rgb));
  /* The thin bone from the joint to it, halfway, in the effector's colour (lit). */
  point_pixel (f, km_vec3_scale (km_vec3_add (tool, f->world[4].pos), 0.5), rgb);
  g_assert_false (NEAR_BACKGROUND (rgb));

  f->scene.hover_tool_point = TRUE;
  renders = f->renders;
  gtk_gl_area_queue_render (GTK_GL_AREA (f->area));
  g_assert_true (wait_renders (f, renders + 1));
  point_pixel (f, tool, rgb);
  g_assert_true (near_colour (rgb, hover[0], hover[1], hover[2]));
  joint_pixel (f, 4, rgb);
  g_assert_true (NEAR_JOINT (rgb));
}

/* The markers of a body of 1,200 joints framed whole, a few pixels wide each, are drawn
 * coarse: a handful of vertices each (a fine sphere and bone are over 200, which made the
 * draw of a model of 3,000 joints take llvmpipe 0.2 s a frame), still one draw call or
 * two. Close up, the same markers are as fine as ever. */
static void
test_small_markers_coarse (Fixture       *f,
                           gconstpointer  data)
{
  g_autoptr(KmSkeleton) many = build_serpentine (40, 30, 0.1);
  guint n = km_skeleton_get_n_joints (many);
  g_autofree double *q = g_new0 (double, km_skeleton_get_n_dof (many));
  g_autofree KmTransform *world = g_new (KmTransform, n);
  guint few_calls, far_vertices, near_vertices;
  int renders;

  if (!first_frame_or_skip (f))
    return;
  few_calls = km_renderer_get_n_draw_calls (f->renderer);

  km_skeleton_forward_kinematics (many, q, NULL, world);
  f->scene = (KmRenderScene) { .skeleton = many, .joint_world = world, .selected_joint = -1,
                               .effector = -1, .model_extent = 5.0 };
  km_camera_reset (f->camera);
  km_camera_frame_box (f->camera, km_vec3 (0, 0, 0), km_vec3 (3.9, 2.9, 0),
                       (double) f->width / f->height);
  renders = f->renders;
  gtk_gl_area_queue_render (GTK_GL_AREA (f->area));
  g_assert_true (wait_renders (f, renders + 1));
  g_assert_cmpint (f->gl_error, ==, GL_NO_ERROR);
  far_vertices = km_renderer_get_n_marker_vertices (f->renderer);
  g_test_message ("framed whole: %u marker vertices for %u joints, %u draw calls",
                  far_vertices, n, km_renderer_get_n_draw_calls (f->renderer));
  g_assert_cmpuint (far_vertices, >=, n * 20);
  g_assert_cmpuint (far_vertices, <=, n * 60);
  g_assert_cmpuint (km_renderer_get_n_draw_calls (f->renderer), <=, few_calls + 2);
  /* The coarse markers are drawn where their joints are (the middle rows). */
  for (guint i = 560; i < 680; i += 3)
    {
      double x, y;

      g_assert_true (km_camera_project (f->camera, world[i].pos, f->width, f->height, &x, &y));
      g_assert_true (marker_near (f, x, y, 1));
    }

  /* Close up (one joint of row 15, from above): fine markers. */
  f->camera->orthographic = TRUE;
  km_camera_set_view (f->camera, KM_CAMERA_VIEW_TOP);
  km_camera_frame_box (f->camera, km_vec3_sub (world[621].pos, km_vec3 (0.03, 0.03, 0)),
                       km_vec3_add (world[621].pos, km_vec3 (0.03, 0.03, 0)),
                       (double) f->width / f->height);
  renders = f->renders;
  gtk_gl_area_queue_render (GTK_GL_AREA (f->area));
  g_assert_true (wait_renders (f, renders + 1));
  near_vertices = km_renderer_get_n_marker_vertices (f->renderer);
  g_test_message ("close up: %u marker vertices", near_vertices);
  g_assert_cmpuint (near_vertices, >=, n * 200);
}

/* The renderer's own meshes have no triangles of no area: a sphere's rows next to its poles
 * had one in each quad (a quarter of a coarse marker sphere's triangles), and the cone one
 * per side at its apex; they drew nothing, yet were work for the driver on the drawing
 * thread, for each of thousands of joints. Leaving them out changes no pixel (the pixel
 * tests here and in test-shapes still pass). */
static void
test_no_degenerate_triangles (Fixture       *f,
                              gconstpointer  data)
{
  if (!first_frame_or_skip (f))
    return;
  g_assert_cmpint (f->gl_error, ==, GL_NO_ERROR);
  g_assert_cmpuint (km_renderer_get_n_degenerate_triangles (f->renderer), ==, 0);
}

/* Framing a box keeps every corner in view, however narrow the view (a tall scene pane). */
static void
test_camera_frame_box_aspect (void)
{
  const KmVec3 min = km_vec3 (-4, -4, 0), max = km_vec3 (4, 4, 0.2);   /* a floor */
  const struct { int width, height; } views[] = { { 640, 480 }, { 320, 358 }, { 200, 800 } };

  for (guint v = 0; v < G_N_ELEMENTS (views); v++)
    {
      g_autoptr(KmCamera) camera = km_camera_new ();
      double lo_x = G_MAXDOUBLE, hi_x = -G_MAXDOUBLE;

      km_camera_orbit (camera, 0.3, 0.2);
      km_camera_frame_box (camera, min, max, (double) views[v].width / views[v].height);
      for (guint c = 0; c < 8; c++)
        {
          KmVec3 corner = km_vec3 (c & 1 ? max.x : min.x, c & 2 ? max.y : min.y,
                                   c & 4 ? max.z : min.z);
          double x, y;

          g_assert_true (km_camera_project (camera, corner, views[v].width, views[v].height,
                                            &x, &y));
          g_assert_cmpfloat (x, >=, 0);
          g_assert_cmpfloat (x, <=, views[v].width);
          g_assert_cmpfloat (y, >=, 0);
          g_assert_cmpfloat (y, <=, views[v].height);
          lo_x = MIN (lo_x, x), hi_x = MAX (hi_x, x);
        }
      /* Not framed from afar either: the floor spans a good part of the width. */
      g_assert_cmpfloat (hi_x - lo_x, >=, 0.4 * views[v].width);
    }
}

/* A framed box has every corner in view with a margin, not touching the edge, whatever
 * its shape (tall, wide, deep), the view's shape and the projection; and it fills a good
 * part of the view. */
static void
test_camera_frame_box_margin (void)
{
  const struct { KmVec3 min, max; } boxes[] = {
    { { -0.05, -0.05, 0 }, { 0.05, 0.05, 1.6 } },       /* a 1.6 m pole */
    { { -0.05, -0.05, 0 }, { 0.05, 0.05, 12.0 } },      /* a 12 m chain */
    { { -6, -0.1, 0 }, { 6, 0.1, 0.2 } },               /* wide */
    { { -0.1, -6, 0 }, { 0.1, 6, 0.2 } },               /* deep */
    { { -1, -1, 0 }, { 1, 2, 3.5 } },                   /* the built-in example's */
  };
  const struct { int width, height; } views[] = { { 656, 524 }, { 400, 300 }, { 300, 700 } };

  for (guint b = 0; b < G_N_ELEMENTS (boxes); b++)
    for (guint v = 0; v < G_N_ELEMENTS (views); v++)
      for (int ortho = 0; ortho <= 1; ortho++)
        {
          g_autoptr(KmCamera) camera = km_camera_new ();
          double lo_x = G_MAXDOUBLE, hi_x = -G_MAXDOUBLE, lo_y = G_MAXDOUBLE, hi_y = -G_MAXDOUBLE;
          const int w = views[v].width, h = views[v].height;

          camera->orthographic = ortho;
          km_camera_frame_box (camera, boxes[b].min, boxes[b].max, (double) w / h);
          for (guint c = 0; c < 8; c++)
            {
              KmVec3 corner = km_vec3 (c & 1 ? boxes[b].max.x : boxes[b].min.x,
                                       c & 2 ? boxes[b].max.y : boxes[b].min.y,
                                       c & 4 ? boxes[b].max.z : boxes[b].min.z);
              double x, y;

              g_assert_true (km_camera_project (camera, corner, w, h, &x, &y));
              lo_x = MIN (lo_x, x), hi_x = MAX (hi_x, x);
              lo_y = MIN (lo_y, y), hi_y = MAX (hi_y, y);
            }
          g_test_message ("box %u in %dx%d %s: x %.0f – %.0f, y %.0f – %.0f", b, w, h,
                          ortho ? "ortho" : "persp", lo_x, hi_x, lo_y, hi_y);
          /* A margin of 3 % of the view at least, all round. */
          g_assert_cmpfloat (lo_x, >=, 0.03 * w);
          g_assert_cmpfloat (hi_x, <=, 0.97 * w);
          g_assert_cmpfloat (lo_y, >=, 0.03 * h);
          g_assert_cmpfloat (hi_y, <=, 0.97 * h);
          /* Not framed from afar either. */
          g_assert_true (hi_x - lo_x >= 0.35 * w || hi_y - lo_y >= 0.35 * h);
        }
}

int
main (int    argc,
      char **argv)
{
  /* The GL area still draws with OpenGL; GSK composes the window with cairo, which spares
   * llvmpipe compiling GSK's own shaders (5x faster start-up on a software renderer). */
  g_setenv ("GSK_RENDERER", "cairo", FALSE);
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  gtk_init ();

  g_test_add_func ("/kinema/Camera/project-ray", test_camera_project_ray);
  g_test_add_func ("/kinema/Camera/views", test_camera_views);
  g_test_add_func ("/kinema/Camera/frame-box-aspect", test_camera_frame_box_aspect);
  g_test_add_func ("/kinema/Camera/frame-box-margin", test_camera_frame_box_margin);
  g_test_add_func ("/kinema/Renderer/marker-radius", test_marker_radius);
  g_test_add ("/kinema/Renderer/shapes-pixels", Fixture, NULL,
              fixture_setup, test_shapes_pixels, fixture_teardown);
  g_test_add ("/kinema/Renderer/joint-pixels", Fixture, NULL,
              fixture_setup, test_joint_pixels, fixture_teardown);
  g_test_add ("/kinema/Renderer/pose-moves-pixels", Fixture, NULL,
              fixture_setup, test_pose_moves_pixels, fixture_teardown);
  g_test_add ("/kinema/Renderer/target-pixels", Fixture, NULL,
              fixture_setup, test_target_pixels, fixture_teardown);
  g_test_add ("/kinema/Renderer/long-chain-visible", Fixture, NULL,
              fixture_setup, test_long_chain_visible, fixture_teardown);
  g_test_add ("/kinema/Renderer/many-joints-batched", Fixture, NULL,
              fixture_setup, test_many_joints_batched, fixture_teardown);
  g_test_add ("/kinema/Renderer/tool-point-pixels", Fixture, NULL,
              fixture_setup, test_tool_point_pixels, fixture_teardown);
  g_test_add ("/kinema/Renderer/small-markers-coarse", Fixture, NULL,
              fixture_setup, test_small_markers_coarse, fixture_teardown);
  g_test_add ("/kinema/Renderer/no-degenerate-triangles", Fixture, NULL,
              fixture_setup, test_no_degenerate_triangles, fixture_teardown);
  g_test_add ("/kinema/Renderer/frame-time", Fixture, NULL,
              fixture_setup, test_frame_time, fixture_teardown);
  return g_test_run ();
}
