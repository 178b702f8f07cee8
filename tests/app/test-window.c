/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <math.h>
#include <string.h>
#include <gtk/gtk.h>
#ifdef GDK_WINDOWING_X11
#include <gdk/x11/gdkx.h>
#endif

#include "km-document-edit.h"
#include "km-joint-panel.h"
#include "km-message.h"
#include "km-renderer.h"
#include "km-scene-view.h"
#include "km-time-bar.h"
#include "km-window.h"
#include "test-app-util.h"
#include "km-test-tmp.h"

/*
 * The editor window on the built-in example, under Xvfb: real frames are read back from the
 * scene view (gtk_widget_paintable → GSK texture, B G R A, top-left origin) and searched for
 * the renderer's colours where the camera projects the joints.
 */

typedef struct
{
  KmWindow    *window;
  KmDocument  *document;
  KmSceneView *scene_view;
  guint8      *pixels;
  int          width;
  int          height;
} Fixture;

/* test_app_wait_until() for a condition on the fixture. */
#define wait_for(f, condition, ms) test_app_wait_until ((GSourceFunc) (condition), (f), (ms))

static guint wait_renders_target;

/* The example's joint axes in its default view: 19 pixels when they were 3 joint radii
 * long, 115 scaled to the links. */
#define AXIS_PIXELS_MIN 60

static gboolean
rendered (Fixture *f)
{
  return km_scene_view_get_n_renders (f->scene_view) >= wait_renders_target
         || gtk_gl_area_get_error (GTK_GL_AREA (f->scene_view)) != NULL;
}

static gboolean
solved (Fixture *f)
{
  return !km_document_get_solving (f->document);
}

static gboolean
wait_next_render (Fixture *f)
{
  wait_renders_target = km_scene_view_get_n_renders (f->scene_view) + 1;
  return wait_for (f, rendered, 10000);
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  f->window = test_app_example_window (1100, 700);
  f->document = km_window_get_document (f->window);
  f->scene_view = KM_SCENE_VIEW (km_window_get_scene_view (f->window));
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  /* Wait for a solve still running to hand back its reference, then everything must go. */
  g_assert_true (wait_for (f, solved, 20000));
  g_object_add_weak_pointer (G_OBJECT (f->document), (gpointer *) &f->document);
  g_object_add_weak_pointer (G_OBJECT (f->window), (gpointer *) &f->window);
  gtk_window_destroy (GTK_WINDOW (f->window));
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_assert_null (f->window);
  g_assert_null (f->document);
  g_clear_pointer (&f->pixels, g_free);
}

/* Waits for the solve and a frame after it; FALSE (test skipped) without GL. */
static gboolean
settle_or_skip (Fixture *f)
{
  const GError *error;

  g_assert_true (wait_for (f, solved, 20000));
  g_assert_true (wait_next_render (f));
  error = gtk_gl_area_get_error (GTK_GL_AREA (f->scene_view));
  if (error != NULL)
    {
      g_test_skip_printf ("no GL context: %s", error->message);
      return FALSE;
    }
  return TRUE;
}

/* Run without the installed settings schema, the message view takes the schema's default
 * height (it used to be squeezed below its minimum, which GTK 4.18 reports). */
static gboolean
message_view_at_default (gpointer data)
{
  Fixture *f = data;
  GtkWidget *side_paned = gtk_widget_get_parent (km_window_get_item_tree (f->window));
  GtkWidget *message_view = gtk_paned_get_end_child (GTK_PANED (gtk_widget_get_parent (side_paned)));
  int height = gtk_widget_get_height (message_view);

  g_test_message ("message view %d high", height);
  /* The paned's handle takes a pixel or two of it. */
  return abs (height - 140) <= 3;
}

static void
test_default_panes (Fixture       *f,
                    gconstpointer  data)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();

  g_assert_true (source == NULL
                 || g_settings_schema_source_lookup (source, "io.github.kinema.Kinema", TRUE) == NULL);
  g_assert_true (test_app_wait_until (message_view_at_default, f, 5000));
}

static void
grab (Fixture *f)
{
  g_autoptr(GdkTexture) texture = km_scene_view_grab_texture (f->scene_view);

  g_assert_nonnull (texture);
  f->width = gdk_texture_get_width (texture);
  f->height = gdk_texture_get_height (texture);
  g_free (f->pixels);
  f->pixels = g_malloc ((gsize) f->width * f->height * 4);
  gdk_texture_download (texture, f->pixels, (gsize) f->width * 4);
}

static gboolean
colour_at (Fixture *f,
           KmVec3   world,
           float    r,
           float    g,
           float    b)
{
  const KmCamera *camera = km_scene_view_get_camera (f->scene_view);
  const guint8 *p;
  double x, y;

  g_assert_true (km_camera_project (camera, world, f->width, f->height, &x, &y));
  if (x < 0 || y < 0 || x >= f->width || y >= f->height)
    return FALSE;

  p = f->pixels + ((gsize) y * f->width + (gsize) x) * 4;   /* B G R A */
  g_test_message ("pixel (%.0f, %.0f) of %dx%d: %u %u %u", x, y, f->width, f->height,
                  p[2], p[1], p[0]);
  return abs (p[2] - (int) lrintf (r * 255)) <= 12
         && abs (p[1] - (int) lrintf (g * 255)) <= 12
         && abs (p[0] - (int) lrintf (b * 255)) <= 12;
}

static void
test_default_project (Fixture       *f,
                      gconstpointer  data)
{
  KmJointPanel *panel = KM_JOINT_PANEL (km_window_get_joint_panel (f->window));
  const KmTransform *world;
  guint n_joints;

  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (f->window)), ==, "Kinema");
  g_assert_cmpuint (km_joint_panel_get_n_rows (panel), ==, 5);
  g_assert_cmpuint (km_document_get_n_frames (f->document), ==, 241);

  if (!settle_or_skip (f))
    return;

  g_assert_nonnull (km_document_get_animation (f->document));
  world = km_document_get_joint_world (f->document, &n_joints);
  g_assert_cmpuint (n_joints, ==, 5);

  grab (f);
  /* The elbow in the joint colour, the end effector in its own. */
  g_assert_true (colour_at (f, world[2].pos, KM_RENDER_JOINT_RGB));
  g_assert_true (colour_at (f, world[4].pos, KM_RENDER_EFFECTOR_RGB));
}

static void
test_joint_slider (Fixture       *f,
                   gconstpointer  data)
{
  KmJointPanel *panel = KM_JOINT_PANEL (km_window_get_joint_panel (f->window));
  GtkAdjustment *elbow;
  KmVec3 before, after;
  const double *pose;
  double degrees;

  if (!settle_or_skip (f))
    return;

  before = km_document_get_joint_world (f->document, NULL)[4].pos;
  grab (f);
  g_assert_true (colour_at (f, before, KM_RENDER_EFFECTOR_RGB));

  /* Bend the elbow (DOF 3, shown in degrees) by 60°. */
  elbow = km_joint_panel_get_adjustment (panel, 3);
  g_assert_nonnull (elbow);
  g_assert_cmpfloat (gtk_adjustment_get_lower (elbow), ==, 0.0);
  g_assert_cmpfloat_with_epsilon (gtk_adjustment_get_upper (elbow), 2.5 * 180.0 / G_PI, 1e-9);
  degrees = gtk_adjustment_get_value (elbow) > 70 ? gtk_adjustment_get_value (elbow) - 60 : 120.0;
  gtk_adjustment_set_value (elbow, degrees);

  pose = km_document_get_pose (f->document, NULL);
  g_assert_cmpfloat_with_epsilon (pose[3], degrees * G_PI / 180.0, 1e-9);
  after = km_document_get_joint_world (f->document, NULL)[4].pos;
  g_assert_cmpfloat (km_vec3_length (km_vec3_sub (after, before)), >, 0.5);
  g_assert_true (km_document_get_modified (f->document));
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (f->window)), ==, "Untitled* — Kinema");

  g_assert_true (wait_next_render (f));
  grab (f);
  g_assert_false (colour_at (f, before, KM_RENDER_EFFECTOR_RGB));
  g_assert_true (colour_at (f, after, KM_RENDER_EFFECTOR_RGB));
}

/* Pixels of the last grab within 12 of the joint-axis colour (0.95, 0.90, 0.55). */
static guint
count_axis_pixels (Fixture *f)
{
  guint n = 0;

  for (gsize i = 0; i < (gsize) f->width * f->height; i++)
    {
      const guint8 *p = f->pixels + i * 4;   /* B G R A */

      n += abs (p[2] - 242) <= 12 && abs (p[1] - 230) <= 12 && abs (p[0] - 140) <= 12;
    }
  return n;
}

/* Joint axes (Ctrl+J) reach out of the links: scaled to the link's length, not to the joint
 * marker (3 radii, which the marker and the bones nearly hid). */
static void
test_joint_axes_visible (Fixture       *f,
                         gconstpointer  data)
{
  guint off, on;

  if (!settle_or_skip (f))
    return;

  grab (f);
  off = count_axis_pixels (f);
  km_scene_view_set_show_joint_axes (f->scene_view, TRUE);
  g_assert_true (wait_next_render (f));
  grab (f);
  on = count_axis_pixels (f);
  g_test_message ("joint-axis pixels: %u without axes, %u with them (%dx%d)", off, on,
                  f->width, f->height);
  g_assert_cmpuint (on, >=, off + AXIS_PIXELS_MIN);
}

static gboolean
past_frame_zero (Fixture *f)
{
  return km_document_get_current_frame (f->document) > 0;
}

static void
test_playback_action (Fixture       *f,
                      gconstpointer  data)
{
  KmTimeBar *time_bar = KM_TIME_BAR (km_window_get_time_bar (f->window));
  KmVec3 start, end;

  if (!settle_or_skip (f))
    return;

  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 0);
  g_assert_false (km_time_bar_get_playing (time_bar));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (time_bar), "time.toggle-playback", NULL));
  g_assert_true (km_time_bar_get_playing (time_bar));
  g_assert_true (wait_for (f, past_frame_zero, 5000));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (time_bar), "time.toggle-playback", NULL));
  g_assert_false (km_time_bar_get_playing (time_bar));

  /* Stepping and jumping; the body follows the solved animation. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (time_bar), "time.go-to-start", NULL));
  start = km_document_get_joint_world (f->document, NULL)[4].pos;
  /* The time bar runs past the motion (frames 0–240) to 10 s; its last pose holds there. */
  g_assert_cmpuint (km_document_get_timeline_frames (f->document), ==, 301);
  km_document_set_current_frame (f->document, 240);
  end = km_document_get_joint_world (f->document, NULL)[4].pos;
  g_assert_cmpfloat (km_vec3_length (km_vec3_sub (end, start)), >, 0.5);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (time_bar), "time.step-forward", NULL));
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 241);
  g_assert_true (km_vec3_length (km_vec3_sub (km_document_get_joint_world (f->document, NULL)[4].pos,
                                              end)) == 0.0);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (time_bar), "time.go-to-end", NULL));
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 300);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (time_bar), "time.step-forward", NULL));
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 300);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (time_bar), "time.step-backward", NULL));
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 299);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (time_bar), "time.go-to-start", NULL));
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 0);
}

static gboolean
playing (Fixture *f)
{
  return km_time_bar_get_playing (KM_TIME_BAR (km_window_get_time_bar (f->window)));
}

static gboolean
subprocess_done (Fixture *f)
{
  return g_object_get_data (G_OBJECT (f->window), "km-test-done") != NULL;
}

static void
xdotool_done_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  g_subprocess_wait_check_finish (G_SUBPROCESS (object), result, &error);
  g_assert_no_error (error);
  g_object_set_data (user_data, "km-test-done", GINT_TO_POINTER (1));
}

/* A real Space key press, through the X server (xdotool's XTEST), reaches the time bar. */
static void
test_space_key (Fixture       *f,
                gconstpointer  data)
{
#ifdef GDK_WINDOWING_X11
  g_autofree char *xdotool = g_find_program_in_path ("xdotool");
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *xid = NULL;
  GdkSurface *surface;

  if (!GDK_IS_X11_DISPLAY (gtk_widget_get_display (GTK_WIDGET (f->window))))
    {
      g_test_skip ("not on X11");
      return;
    }
  if (xdotool == NULL)
    {
      g_test_skip ("xdotool is not installed");
      return;
    }
  if (!settle_or_skip (f))
    return;

  gtk_widget_grab_focus (GTK_WIDGET (f->scene_view));
  surface = gtk_native_get_surface (GTK_NATIVE (f->window));
  xid = g_strdup_printf ("%lu", (gulong) gdk_x11_surface_get_xid (surface));
  process = g_subprocess_new (G_SUBPROCESS_FLAGS_NONE, &error, xdotool, "windowfocus", "--sync",
                              xid, "key", "--delay", "50", "space", NULL);
  g_assert_no_error (error);
  g_subprocess_wait_check_async (process, NULL, xdotool_done_cb, f->window);
  g_assert_true (wait_for (f, subprocess_done, 10000));
  g_assert_true (wait_for (f, playing, 5000));
  g_assert_true (wait_for (f, past_frame_zero, 5000));
#else
  g_test_skip ("built without X11");
#endif
}

/* File → Export image writes what the scene view shows. */
/* The header bar's toggle drives the scene view's edit mode through win.edit-mode, and the
 * Esc binding inside the scene view is reflected back in the window's action state. */
static void
test_edit_mode_action (Fixture       *f,
                       gconstpointer  data)
{
  g_assert_false (km_scene_view_get_edit_mode (f->scene_view));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.edit-mode", NULL));
  g_assert_true (km_scene_view_get_edit_mode (f->scene_view));

  km_scene_view_set_edit_mode (f->scene_view, FALSE);
  {
    gboolean edit_mode = TRUE;

    g_object_get (f->window, "edit-mode", &edit_mode, NULL);
    g_assert_false (edit_mode);
  }
}

static void
export_image_done_cb (GObject      *source,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  g_autoptr(GError) error = NULL;
  gboolean *done = user_data;

  g_assert_true (km_window_export_image_finish (KM_WINDOW (source), result, &error));
  g_assert_no_error (error);
  *done = TRUE;
}

static void
test_export_image (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *dir = km_test_make_tmp_dir ("km-window-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "scene.png", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GdkTexture) texture = NULL;
  g_autoptr(GError) error = NULL;
  gboolean done = FALSE;

  if (!settle_or_skip (f))
    return;

  km_window_export_image_async (f->window, file, NULL, export_image_done_cb, &done);
  /* The image is encoded and written on a worker; the answer comes through the main loop. */
  g_assert_false (done);
  g_assert_true (test_app_wait_flag (&done, 20000));

  texture = gdk_texture_new_from_file (file, &error);
  g_assert_no_error (error);
  f->width = gdk_texture_get_width (texture);
  f->height = gdk_texture_get_height (texture);
  g_assert_cmpint (f->width, ==, gtk_widget_get_width (GTK_WIDGET (f->scene_view)));
  g_assert_cmpint (f->height, ==, gtk_widget_get_height (GTK_WIDGET (f->scene_view)));
  f->pixels = g_malloc ((gsize) f->width * f->height * 4);
  gdk_texture_download (texture, f->pixels, (gsize) f->width * 4);
  g_assert_true (colour_at (f, km_document_get_joint_world (f->document, NULL)[4].pos,
                            KM_RENDER_EFFECTOR_RGB));
}

/* Exports the scene to @path and reads the PNG back (B G R A). */
static guint8 *
export_pixels (Fixture    *f,
               const char *path,
               int        *width,
               int        *height)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GdkTexture) texture = NULL;
  g_autoptr(GError) error = NULL;
  gboolean done = FALSE;
  guint8 *pixels;

  km_window_export_image_async (f->window, file, NULL, export_image_done_cb, &done);
  g_assert_true (test_app_wait_flag (&done, 20000));
  texture = gdk_texture_new_from_file (file, &error);
  g_assert_no_error (error);
  *width = gdk_texture_get_width (texture);
  *height = gdk_texture_get_height (texture);
  pixels = g_malloc ((gsize) *width * *height * 4);
  gdk_texture_download (texture, pixels, (gsize) *width * 4);
  return pixels;
}

/* The scene view as shown now (B G R A), drawn again first. */
static guint8 *
shown_pixels (Fixture *f)
{
  int width, height;

  return test_app_scene_pixels (f->scene_view, &width, &height);
}

/* Review rev23b-gui C: Export Image in edit mode drew the gizmo into the PNG. The image is
 * the scene as view mode draws it, while the window goes on showing the gizmo. */
static void
test_export_image_edit_mode (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *dir = km_test_make_tmp_dir ("km-window-XXXXXX");
  g_autofree char *view_path = g_build_filename (dir, "view.png", NULL);
  g_autofree char *edit_path = g_build_filename (dir, "edit.png", NULL);
  g_autofree guint8 *view_mode = NULL, *edit_mode = NULL, *shown = NULL, *shown_after = NULL;
  int view_width, view_height, edit_width, edit_height;
  gsize size;

  if (!settle_or_skip (f))
    return;

  /* An elbow selected: in edit mode the gizmo stands on it and on the end effector. */
  km_document_set_selected_joint (f->document, 2);
  g_assert_true (wait_next_render (f));
  view_mode = export_pixels (f, view_path, &view_width, &view_height);
  size = (gsize) view_width * view_height * 4;

  km_scene_view_set_edit_mode (f->scene_view, TRUE);
  shown = shown_pixels (f);
  /* The window shows the gizmo. */
  g_assert_true (memcmp (shown, view_mode, size) != 0);
  edit_mode = export_pixels (f, edit_path, &edit_width, &edit_height);
  g_assert_cmpint (edit_width, ==, view_width);
  g_assert_cmpint (edit_height, ==, view_height);
  g_assert_true (memcmp (edit_mode, view_mode, size) == 0);

  /* And still does, in edit mode. */
  g_assert_true (km_scene_view_get_edit_mode (f->scene_view));
  shown_after = shown_pixels (f);
  g_assert_true (memcmp (shown_after, shown, size) == 0);
}

/* A broken file leaves the open project alone and says where it is broken. */
static void
test_open_broken_file (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(KmMessage) last = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  KmSkeleton *before = km_document_get_skeleton (f->document);
  GListModel *messages = km_document_get_messages (f->document);
  guint n_messages;

  dir = km_test_make_tmp_dir ("km-window-XXXXXX");
  path = g_build_filename (dir, "broken-skeleton.json", NULL);
  g_file_set_contents (path, "{\n  \"root_name\": \"Root\",\n  \"joints\": 5\n}\n", -1, &error);
  g_assert_no_error (error);
  file = g_file_new_for_path (path);

  /* The example's solve logs its result: let it, so that the next message is the error. */
  g_assert_true (wait_for (f, solved, 20000));
  n_messages = g_list_model_get_n_items (messages);
  g_assert_true (test_app_open_file (f->window, file));
  g_assert_true (km_document_get_skeleton (f->document) == before);
  g_assert_cmpuint (km_joint_panel_get_n_rows (KM_JOINT_PANEL (km_window_get_joint_panel (f->window))), ==, 5);
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (f->window)), ==, "Kinema");

  g_assert_cmpuint (g_list_model_get_n_items (messages), ==, n_messages + 1);
  last = g_list_model_get_item (messages, n_messages);
  /* The file could not be opened: an error, not a warning. */
  g_assert_cmpint (km_message_get_level (last), ==, G_LOG_LEVEL_CRITICAL);
  g_assert_cmpstr (km_message_get_level_name (last), ==, "Error");
  g_assert_true (g_str_has_prefix (km_message_get_text (last), path));
  g_assert_nonnull (strstr (km_message_get_text (last), ":3:13: "));

  g_assert_true (wait_for (f, solved, 20000));
}


/* Checked bodies are drawn: unchecking the body being edited hides it, bones, joints and
 * target too, and checking it again brings it back. */
static void
test_uncheck_hides_body (Fixture       *f,
                         gconstpointer  data)
{
  KmItem *body = km_document_get_body_item (f->document);
  KmVec3 elbow, tip;

  if (!settle_or_skip (f))
    return;
  elbow = km_document_get_joint_world (f->document, NULL)[2].pos;
  tip = km_document_get_joint_world (f->document, NULL)[4].pos;
  grab (f);
  g_assert_true (colour_at (f, elbow, KM_RENDER_JOINT_RGB));
  g_assert_true (colour_at (f, tip, KM_RENDER_EFFECTOR_RGB));

  km_item_set_checked (body, FALSE);
  g_assert_true (wait_next_render (f));
  grab (f);
  g_assert_false (colour_at (f, elbow, KM_RENDER_JOINT_RGB));
  g_assert_false (colour_at (f, tip, KM_RENDER_EFFECTOR_RGB));

  km_item_set_checked (body, TRUE);
  g_assert_true (wait_next_render (f));
  grab (f);
  g_assert_true (colour_at (f, elbow, KM_RENDER_JOINT_RGB));
}

/* The message pane says so when it is empty (after Clear), and shows the list again when a
 * message comes. */
static void
test_messages_when_empty (Fixture       *f,
                           gconstpointer  data)
{
  GtkWidget *empty = test_app_find_label (GTK_WIDGET (f->window), "No messages");

  g_assert_true (wait_for (f, solved, 20000));
  g_assert_nonnull (empty);
  g_assert_false (gtk_widget_get_visible (empty));

  km_document_clear_messages (f->document);
  g_assert_true (gtk_widget_get_visible (empty));

  km_document_log (f->document, G_LOG_LEVEL_INFO, "%s", "hello");
  g_assert_false (gtk_widget_get_visible (empty));
}

/* The menu bar (every command, also those without a button: Export Animation, Save for
 * Choreonoid, the Skeleton menu, Open Recent, About) is shown: the template asks for it, but
 * a construct property's default would override the template. */
static void
test_menubar_shown (Fixture       *f,
                    gconstpointer  data)
{
  g_assert_true (gtk_application_window_get_show_menubar (GTK_APPLICATION_WINDOW (f->window)));
}

static const char three_joints[] =
  "{\n  \"root_name\": \"Base\",\n  \"joints\": [\n"
  "    { \"name\": \"Base\", \"type\": \"fixed\", \"offset\": [0, 0, 0], \"parent\": null },\n"
  "    { \"name\": \"Hinge\", \"type\": \"revolute\", \"offset\": [0, 0, 1],"
  " \"parent\": \"Base\", \"axis\": [0, 1, 0] },\n"
  "    { \"name\": \"Tip\", \"type\": \"fixed\", \"offset\": [0, 0, 1], \"parent\": \"Hinge\" }\n"
  "  ]\n}\n";

static void
count_notify_cb (GObject    *object,
                 GParamSpec *pspec,
                 gpointer    data)
{
  (*(guint *) data)++;
}

static gboolean
not_loading (Fixture *f)
{
  return !km_window_get_loading (f->window);
}

static GFile *
write_three_joints (void)
{
  g_autoptr(GError) error = NULL;
  /* Removed when the calling test ends. */
  g_autofree char *dir = km_test_make_tmp_dir ("km-window-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "three-joints.json", NULL);

  g_file_set_contents (path, three_joints, -1, &error);
  g_assert_no_error (error);
  return g_file_new_for_path (path);
}

/* A file is read on a worker thread: right after km_window_open_file() the document is
 * still the old one and the window says it is loading; the main loop then applies it.
 * Files opened meanwhile follow in order. */
static void
test_open_in_background (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(GFile) file = write_three_joints ();
  KmSkeleton *before = km_document_get_skeleton (f->document);
  guint notified = 0;

  g_signal_connect (f->window, "notify::loading", G_CALLBACK (count_notify_cb), &notified);
  g_assert_false (km_window_get_loading (f->window));
  g_assert_true (km_window_open_file (f->window, file));
  g_assert_true (km_window_open_file (f->window, file));
  g_assert_true (km_window_get_loading (f->window));
  g_assert_cmpuint (notified, ==, 1);
  g_assert_true (km_document_get_skeleton (f->document) == before);

  g_assert_true (wait_for (f, not_loading, 20000));
  g_assert_cmpuint (notified, ==, 2);
  g_assert_true (km_document_get_skeleton (f->document) != before);
  g_assert_cmpuint (km_skeleton_get_n_joints (km_document_get_skeleton (f->document)), ==, 3);
  /* Both imports happened, one after the other: two bodies more in the world. */
  g_assert_cmpstr (km_item_get_name (km_document_get_body_item (f->document)), ==,
                   "three-joints.json");
  g_signal_handlers_disconnect_by_func (f->window, count_notify_cb, &notified);
}

/* Closing (disposing) the window while a file is read leaves nothing behind: the worker's
 * answer is dropped, and window and document are finalized once it is in. */
static void
test_close_while_opening (void)
{
  g_autoptr(GFile) file = write_three_joints ();
  KmWindow *window = km_window_new (NULL);
  KmDocument *document = km_window_get_document (window);
  gint64 end = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;

  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (km_window_open_file (window, file));
  g_object_add_weak_pointer (G_OBJECT (document), (gpointer *) &document);
  g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &window);
  gtk_window_destroy (GTK_WINDOW (window));
  /* The load holds a reference: dispose now, as an application shutting down does. */
  if (window != NULL)
    g_object_run_dispose (G_OBJECT (window));
  while ((window != NULL || document != NULL) && g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, FALSE);
  g_assert_null (window);
  g_assert_null (document);
}

/* The time bar's strip as drawn (B G R A, top-left origin); *width and *height set. */
static guint8 *
grab_widget (GtkWidget *widget,
             int       *width,
             int       *height)
{
  g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new (widget);
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  GskRenderer *renderer = gtk_native_get_renderer (gtk_widget_get_native (widget));
  guint8 *pixels;

  *width = gtk_widget_get_width (widget);
  *height = gtk_widget_get_height (widget);
  g_assert_cmpint (*width, >, 0);
  g_assert_cmpint (*height, >, 0);
  gdk_paintable_snapshot (paintable, snapshot, *width, *height);
  node = gtk_snapshot_free_to_node (snapshot);
  g_assert_nonnull (node);
  texture = gsk_renderer_render_texture (renderer, node,
                                         &GRAPHENE_RECT_INIT (0, 0, *width, *height));
  pixels = g_malloc ((gsize) *width * *height * 4);
  gdk_texture_download (texture, pixels, (gsize) *width * 4);
  return pixels;
}

/* Pixels of the "missed" red (#e01b24) in columns x0 .. x1 of a strip's top row. */
static guint
count_missed_red (const guint8 *pixels,
                  int           width,
                  int           x0,
                  int           x1)
{
  guint n = 0;

  for (int x = MAX (x0, 0); x <= MIN (x1, width - 1); x++)
    {
      const guint8 *p = pixels + (gsize) x * 4;

      if (abs (p[2] - 0xe0) <= 2 && abs (p[1] - 0x1b) <= 2 && abs (p[0] - 0x24) <= 2)
        n++;
    }
  return n;
}

static gboolean
strip_mapped (Fixture *f)
{
  KmTimeBar *bar = KM_TIME_BAR (km_window_get_time_bar (f->window));

  return gtk_widget_get_mapped (km_time_bar_get_strip (bar))
         && gtk_widget_get_width (km_time_bar_get_strip (bar)) > 0;
}

/* A keyframe out of reach: its frame (and the frames leading to it) are marked as missed,
 * in the marks and in red under the slider; reachable frames are not. */
static void
test_time_bar_marks (Fixture       *f,
                     gconstpointer  data)
{
  KmTimeBar *bar = KM_TIME_BAR (km_window_get_time_bar (f->window));
  GtkWidget *strip = km_time_bar_get_strip (bar);
  KmTargetKeyframe key = { 0, };
  g_autofree guint8 *pixels = NULL;
  double x, y;
  guint last, n_missed = 0;
  int width, height;

  g_assert_true (wait_for (f, solved, 20000));
  g_assert_nonnull (km_document_get_animation (f->document));
  g_assert_false (km_time_bar_get_frame_marks (bar, 0) & KM_TIME_BAR_MARK_MISSED);

  last = km_target_track_get_last_frame (km_document_get_targets (f->document));
  key.frame = last / 2;
  key.position = km_vec3 (40.0, 40.0, 40.0);
  key.orientation = KM_QUAT_IDENTITY;
  g_assert_true (km_document_put_keyframe (f->document, &key));
  km_document_solve (f->document);
  g_assert_true (wait_for (f, solved, 20000));

  g_assert_true (km_time_bar_get_frame_marks (bar, key.frame) & KM_TIME_BAR_MARK_MISSED);
  g_assert_false (km_time_bar_get_frame_marks (bar, 0) & KM_TIME_BAR_MARK_MISSED);
  g_assert_cmpuint (km_time_bar_get_n_marked_frames (bar), >=, 1);
  /* Missed: the frames near the far keyframe, not all (most frames of this 5-DOF arm
   * also hold a joint on a limit, which is a mark of its own). */
  for (guint frame = 0; frame <= last; frame++)
    n_missed += (km_time_bar_get_frame_marks (bar, frame) & KM_TIME_BAR_MARK_MISSED) != 0;
  g_assert_cmpuint (n_missed, >=, 1);
  g_assert_cmpuint (n_missed, <, last + 1);

  /* Drawn: red at the keyframe's column (beside its tick), none at frame 0 */
  g_assert_true (wait_for (f, strip_mapped, 10000));
  /* the paintable shows the strip as last drawn */
  test_app_spin_for (100);
  pixels = grab_widget (strip, &width, &height);
  g_assert_true (km_time_bar_get_keyframe_point (bar, key.frame, &x, &y));
  g_assert_true (gtk_widget_translate_coordinates (GTK_WIDGET (bar), strip, x, y, &x, &y));
  g_assert_cmpuint (count_missed_red (pixels, width, (int) x - 6, (int) x + 6), >=, 2);
  g_assert_true (km_time_bar_get_keyframe_point (bar, 0, &x, &y));
  g_assert_true (gtk_widget_translate_coordinates (GTK_WIDGET (bar), strip, x, y, &x, &y));
  g_assert_cmpuint (count_missed_red (pixels, width, (int) x - 2, (int) x + 2), ==, 0);
}


static void
show_shortcuts_window (void)
{
  g_autoptr(GtkBuilder) builder =
    gtk_builder_new_from_resource ("/io/github/kinema/Kinema/gtk/help-overlay.ui");
  GtkWindow *window = GTK_WINDOW (gtk_builder_get_object (builder, "help_overlay"));
  GSList *objects = gtk_builder_get_objects (builder);
  guint n_groups = 0;

  g_assert_nonnull (window);
  for (GSList *l = objects; l != NULL; l = l->next)
    if (GTK_IS_SHORTCUTS_GROUP (l->data))
      n_groups++;
  g_slist_free (objects);
  g_assert_cmpuint (n_groups, ==, 5);
  gtk_window_present (window);
  test_app_spin_for (500);
  gtk_window_destroy (window);
  test_app_spin ();
}

/* The shortcuts window (Ctrl+?) opens without GTK's warning that a label "reported min
 * width -4" (a section of more than one page got page buttons GTK 4.8 measures so). Run
 * in a subprocess with warnings not fatal: with the test's isolated data folders GTK also
 * warns that it cannot load the search button's icon, which the installed app finds in
 * its icon theme. Every group is still there. */
static void
test_shortcuts_window (void)
{
  if (!g_test_subprocess ())
    {
      g_test_trap_subprocess (NULL, 30000000, G_TEST_SUBPROCESS_INHERIT_STDOUT);
      g_test_trap_assert_passed ();
      g_test_trap_assert_stderr_unmatched ("*reported min width*");
      return;
    }
  g_log_set_always_fatal (G_LOG_FATAL_MASK);
  show_shortcuts_window ();
}


int
main (int    argc,
      char **argv)
{
  /* The GL area still draws with OpenGL; GSK composes the window with cairo, which spares
   * llvmpipe compiling GSK's own shaders (5x faster start-up on a software renderer). */
  test_app_init (&argc, &argv);

  g_test_add ("/kinema/Window/default-project", Fixture, NULL,
              fixture_setup, test_default_project, fixture_teardown);
  g_test_add ("/kinema/Window/default-panes", Fixture, NULL,
              fixture_setup, test_default_panes, fixture_teardown);
  g_test_add ("/kinema/Window/joint-slider", Fixture, NULL,
              fixture_setup, test_joint_slider, fixture_teardown);
  g_test_add ("/kinema/Window/playback-action", Fixture, NULL,
              fixture_setup, test_playback_action, fixture_teardown);
  g_test_add ("/kinema/Window/edit-mode-action", Fixture, NULL,
              fixture_setup, test_edit_mode_action, fixture_teardown);
  g_test_add ("/kinema/Window/export-image", Fixture, NULL,
              fixture_setup, test_export_image, fixture_teardown);
  g_test_add ("/kinema/Window/export-image-edit-mode", Fixture, NULL,
              fixture_setup, test_export_image_edit_mode, fixture_teardown);
  g_test_add ("/kinema/Window/open-broken-file", Fixture, NULL,
              fixture_setup, test_open_broken_file, fixture_teardown);
  g_test_add ("/kinema/Window/uncheck-hides-body", Fixture, NULL,
              fixture_setup, test_uncheck_hides_body, fixture_teardown);
  g_test_add ("/kinema/Window/messages-when-empty", Fixture, NULL,
              fixture_setup, test_messages_when_empty, fixture_teardown);
  g_test_add ("/kinema/Window/menubar-shown", Fixture, NULL,
              fixture_setup, test_menubar_shown, fixture_teardown);
  g_test_add ("/kinema/Window/open-in-background", Fixture, NULL,
              fixture_setup, test_open_in_background, fixture_teardown);
  g_test_add_func ("/kinema/Window/close-while-opening", test_close_while_opening);
  g_test_add_func ("/kinema/Window/shortcuts-window", test_shortcuts_window);
  g_test_add ("/kinema/Window/joint-axes-visible", Fixture, NULL,
              fixture_setup, test_joint_axes_visible, fixture_teardown);
  g_test_add ("/kinema/Window/space-key", Fixture, NULL,
              fixture_setup, test_space_key, fixture_teardown);
  g_test_add ("/kinema/TimeBar/marks", Fixture, NULL,
              fixture_setup, test_time_bar_marks, fixture_teardown);
  return g_test_run ();
}
