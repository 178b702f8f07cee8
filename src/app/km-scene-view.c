/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-scene-view"

#include "config.h"

#include <math.h>
#include <glib/gi18n.h>

#include "km-scene-view.h"
#include "km-renderer.h"

/* Radians of orbit per pixel dragged, and zoom factor per scroll step. */
#define ORBIT_SPEED 0.008
#define ZOOM_STEP 1.12

struct _KmSceneView
{
  GtkGLArea       parent_instance;

  /* Owned */
  KmDocument     *document;
  GSignalGroup   *document_signals;
  KmRenderer     *renderer;
  KmCamera        camera;

  /* Drag state: the camera when the drag began. */
  KmCamera        drag_start;
  gboolean        drag_pans;

  gboolean        show_joint_axes;
  gboolean        camera_moved;      /* by the user since the last reset */
  guint           n_renders;
};

enum {
  PROP_0,
  PROP_CAMERA,
  PROP_DOCUMENT,
  PROP_N_RENDERS,
  PROP_SHOW_JOINT_AXES,
  N_PROPS
};

G_DEFINE_FINAL_TYPE (KmSceneView, km_scene_view, GTK_TYPE_GL_AREA)

static GParamSpec *properties[N_PROPS];

static void
notify_camera (KmSceneView *self)
{
  gtk_gl_area_queue_render (GTK_GL_AREA (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CAMERA]);
}

static void
document_changed_cb (KmSceneView *self)
{
  gtk_gl_area_queue_render (GTK_GL_AREA (self));
}

static void
document_skeleton_changed_cb (KmSceneView *self)
{
  km_scene_view_reset_camera (self);
}

/* A finished solve shows the whole motion, unless the user has placed the camera. */
static void
document_animation_changed_cb (KmSceneView *self)
{
  if (!self->camera_moved && !km_document_get_solving (self->document))
    km_scene_view_reset_camera (self);
}

/* GL 3.3 core first; where that is unavailable, OpenGL ES 3.0. */
static GdkGLContext *
km_scene_view_create_context (GtkGLArea *area)
{
  GdkSurface *surface = gtk_native_get_surface (gtk_widget_get_native (GTK_WIDGET (area)));
  g_autoptr(GdkGLContext) context = NULL;
  g_autoptr(GError) gl_error = NULL;
  g_autoptr(GError) es_error = NULL;

  context = gdk_surface_create_gl_context (surface, &gl_error);
  if (context != NULL)
    {
      gdk_gl_context_set_allowed_apis (context, GDK_GL_API_GL);
      gdk_gl_context_set_required_version (context, 3, 3);
      if (gdk_gl_context_realize (context, &gl_error))
        return g_steal_pointer (&context);
      g_clear_object (&context);
    }

  context = gdk_surface_create_gl_context (surface, &es_error);
  if (context != NULL)
    {
      gdk_gl_context_set_allowed_apis (context, GDK_GL_API_GLES);
      gdk_gl_context_set_required_version (context, 3, 0);
      if (gdk_gl_context_realize (context, &es_error))
        {
          g_debug ("OpenGL 3.3 unavailable (%s); using OpenGL ES", gl_error->message);
          return g_steal_pointer (&context);
        }
      g_clear_object (&context);
    }

  gtk_gl_area_set_error (area, gl_error);
  return NULL;
}

static void
km_scene_view_realize (GtkWidget *widget)
{
  KmSceneView *self = KM_SCENE_VIEW (widget);
  g_autoptr(GError) error = NULL;
  GdkGLContext *context;

  GTK_WIDGET_CLASS (km_scene_view_parent_class)->realize (widget);

  gtk_gl_area_make_current (GTK_GL_AREA (self));
  if (gtk_gl_area_get_error (GTK_GL_AREA (self)) != NULL)
    return;

  context = gtk_gl_area_get_context (GTK_GL_AREA (self));
  self->renderer = km_renderer_new (gdk_gl_context_get_api (context) == GDK_GL_API_GLES, &error);
  if (self->renderer == NULL)
    gtk_gl_area_set_error (GTK_GL_AREA (self), error);
}

static void
km_scene_view_unrealize (GtkWidget *widget)
{
  KmSceneView *self = KM_SCENE_VIEW (widget);

  gtk_gl_area_make_current (GTK_GL_AREA (self));
  if (gtk_gl_area_get_error (GTK_GL_AREA (self)) == NULL)
    g_clear_pointer (&self->renderer, km_renderer_free);
  else
    self->renderer = NULL;

  GTK_WIDGET_CLASS (km_scene_view_parent_class)->unrealize (widget);
}

static gboolean
km_scene_view_render (GtkGLArea    *area,
                      GdkGLContext *context)
{
  KmSceneView *self = KM_SCENE_VIEW (area);
  KmRenderScene scene = { .selected_joint = -1, .effector = -1 };
  int scale = gtk_widget_get_scale_factor (GTK_WIDGET (self));

  if (gtk_gl_area_get_error (area) != NULL || self->renderer == NULL)
    return FALSE;

  if (self->document != NULL)
    {
      scene.skeleton = km_document_get_skeleton (self->document);
      scene.joint_world = km_document_get_joint_world (self->document, NULL);
      scene.selected_joint = km_document_get_selected_joint (self->document);
      scene.effector = km_document_get_effector (self->document);
      scene.has_target = km_document_get_target_pose (self->document, &scene.target);
      scene.trajectory = km_document_get_trajectory (self->document, &scene.n_trajectory);
    }
  scene.show_joint_axes = self->show_joint_axes;

  km_renderer_render (self->renderer, &scene, &self->camera,
                      gtk_widget_get_width (GTK_WIDGET (self)) * scale,
                      gtk_widget_get_height (GTK_WIDGET (self)) * scale);

  self->n_renders++;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_RENDERS]);
  return TRUE;
}

static void
drag_begin_cb (KmSceneView    *self,
               double          x,
               double          y,
               GtkGestureDrag *gesture)
{
  GdkModifierType state = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (gesture));
  guint button = gtk_gesture_single_get_current_button (GTK_GESTURE_SINGLE (gesture));

  /* Clicking the viewport gives it the keyboard, so playback keys reach the window. */
  gtk_widget_grab_focus (GTK_WIDGET (self));
  self->drag_start = self->camera;
  self->drag_pans = button == GDK_BUTTON_MIDDLE || (state & GDK_SHIFT_MASK) != 0;
}

static void
drag_update_cb (KmSceneView    *self,
                double          dx,
                double          dy,
                GtkGestureDrag *gesture)
{
  self->camera = self->drag_start;
  self->camera_moved = TRUE;
  if (self->drag_pans)
    km_camera_pan (&self->camera, dx, dy, gtk_widget_get_height (GTK_WIDGET (self)));
  else
    km_camera_orbit (&self->camera, -dx * ORBIT_SPEED, dy * ORBIT_SPEED);
  notify_camera (self);
}

static gboolean
scroll_cb (KmSceneView              *self,
           double                    dx,
           double                    dy,
           GtkEventControllerScroll *controller)
{
  km_camera_zoom (&self->camera, pow (ZOOM_STEP, CLAMP (dy, -10.0, 10.0)));
  self->camera_moved = TRUE;
  notify_camera (self);
  return TRUE;
}

/* Picking: the joint marker nearest the eye that the ray through the pixel passes. */
static void
click_released_cb (KmSceneView     *self,
                   int              n_press,
                   double           x,
                   double           y,
                   GtkGestureClick *gesture)
{
  KmSkeleton *skeleton;
  const KmTransform *world;
  KmVec3 origin, dir;
  double radius, best_t = INFINITY;
  int best = -1;
  guint n;

  if (self->document == NULL || (skeleton = km_document_get_skeleton (self->document)) == NULL)
    return;

  world = km_document_get_joint_world (self->document, &n);
  radius = km_renderer_joint_radius (skeleton) * 1.5;
  km_camera_ray (&self->camera, x, y, gtk_widget_get_width (GTK_WIDGET (self)),
                 gtk_widget_get_height (GTK_WIDGET (self)), &origin, &dir);
  for (guint i = 0; i < n; i++)
    {
      KmVec3 to = km_vec3_sub (world[i].pos, origin);
      double t = km_vec3_dot (to, dir);
      double d2 = km_vec3_dot (to, to) - t * t;

      if (t > 0 && d2 <= radius * radius && t < best_t)
        best_t = t, best = (int) i;
    }
  km_document_set_selected_joint (self->document, best);
}

static void
reset_camera_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *parameter)
{
  km_scene_view_reset_camera (KM_SCENE_VIEW (widget));
}

static void
km_scene_view_dispose (GObject *object)
{
  KmSceneView *self = (KmSceneView *) object;

  if (self->document_signals != NULL)
    g_signal_group_set_target (self->document_signals, NULL);
  g_clear_object (&self->document_signals);
  g_clear_object (&self->document);

  G_OBJECT_CLASS (km_scene_view_parent_class)->dispose (object);
}

static void
km_scene_view_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  KmSceneView *self = KM_SCENE_VIEW (object);

  switch (prop_id)
    {
    case PROP_CAMERA:
      g_value_set_boxed (value, &self->camera);
      break;
    case PROP_DOCUMENT:
      g_value_set_object (value, self->document);
      break;
    case PROP_N_RENDERS:
      g_value_set_uint (value, self->n_renders);
      break;
    case PROP_SHOW_JOINT_AXES:
      g_value_set_boolean (value, self->show_joint_axes);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
km_scene_view_set_property (GObject      *object,
                            guint         prop_id,
                            const GValue *value,
                            GParamSpec   *pspec)
{
  KmSceneView *self = KM_SCENE_VIEW (object);

  switch (prop_id)
    {
    case PROP_CAMERA:
      km_scene_view_set_camera (self, g_value_get_boxed (value));
      break;
    case PROP_DOCUMENT:
      km_scene_view_set_document (self, g_value_get_object (value));
      break;
    case PROP_SHOW_JOINT_AXES:
      km_scene_view_set_show_joint_axes (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
km_scene_view_class_init (KmSceneViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkGLAreaClass *area_class = GTK_GL_AREA_CLASS (klass);

  object_class->dispose = km_scene_view_dispose;
  object_class->get_property = km_scene_view_get_property;
  object_class->set_property = km_scene_view_set_property;

  widget_class->realize = km_scene_view_realize;
  widget_class->unrealize = km_scene_view_unrealize;

  area_class->render = km_scene_view_render;
  area_class->create_context = km_scene_view_create_context;

  properties[PROP_CAMERA] =
    g_param_spec_boxed ("camera", NULL, NULL, KM_TYPE_CAMERA,
                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_DOCUMENT] =
    g_param_spec_object ("document", NULL, NULL, KM_TYPE_DOCUMENT,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* Frames drawn so far; tests and the screenshot script wait on it. */
  properties[PROP_N_RENDERS] =
    g_param_spec_uint ("n-renders", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SHOW_JOINT_AXES] =
    g_param_spec_boolean ("show-joint-axes", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_install_action (widget_class, "scene.reset-camera", NULL, reset_camera_action);
  gtk_widget_class_install_property_action (widget_class, "scene.show-joint-axes",
                                            "show-joint-axes");

  gtk_widget_class_set_css_name (widget_class, "sceneview");
}

static void
km_scene_view_init (KmSceneView *self)
{
  GtkGesture *gesture;
  GtkEventController *controller;

  km_camera_reset (&self->camera);

  gtk_gl_area_set_has_depth_buffer (GTK_GL_AREA (self), TRUE);
  gtk_gl_area_set_required_version (GTK_GL_AREA (self), 3, 3);
  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
  gtk_widget_set_hexpand (GTK_WIDGET (self), TRUE);
  gtk_widget_set_vexpand (GTK_WIDGET (self), TRUE);

  gesture = gtk_gesture_drag_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (gesture), 0);
  g_signal_connect_swapped (gesture, "drag-begin", G_CALLBACK (drag_begin_cb), self);
  g_signal_connect_swapped (gesture, "drag-update", G_CALLBACK (drag_update_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));

  gesture = gtk_gesture_click_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (gesture), GDK_BUTTON_PRIMARY);
  g_signal_connect_swapped (gesture, "released", G_CALLBACK (click_released_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));

  controller = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_VERTICAL);
  g_signal_connect_swapped (controller, "scroll", G_CALLBACK (scroll_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);

  self->document_signals = g_signal_group_new (KM_TYPE_DOCUMENT);
  g_signal_group_connect_swapped (self->document_signals, "notify::pose",
                                  G_CALLBACK (document_changed_cb), self);
  g_signal_group_connect_swapped (self->document_signals, "notify::current-frame",
                                  G_CALLBACK (document_changed_cb), self);
  g_signal_group_connect_swapped (self->document_signals, "notify::targets",
                                  G_CALLBACK (document_changed_cb), self);
  g_signal_group_connect_swapped (self->document_signals, "notify::selected-joint",
                                  G_CALLBACK (document_changed_cb), self);
  g_signal_group_connect_swapped (self->document_signals, "notify::skeleton",
                                  G_CALLBACK (document_skeleton_changed_cb), self);
  g_signal_group_connect_swapped (self->document_signals, "notify::animation",
                                  G_CALLBACK (document_animation_changed_cb), self);
}

GtkWidget *
km_scene_view_new (void)
{
  return g_object_new (KM_TYPE_SCENE_VIEW, NULL);
}

KmDocument *
km_scene_view_get_document (KmSceneView *self)
{
  g_return_val_if_fail (KM_IS_SCENE_VIEW (self), NULL);

  return self->document;
}

void
km_scene_view_set_document (KmSceneView *self,
                            KmDocument  *document)
{
  g_return_if_fail (KM_IS_SCENE_VIEW (self));
  g_return_if_fail (document == NULL || KM_IS_DOCUMENT (document));

  if (!g_set_object (&self->document, document))
    return;

  g_signal_group_set_target (self->document_signals, document);
  km_scene_view_reset_camera (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DOCUMENT]);
}

const KmCamera *
km_scene_view_get_camera (KmSceneView *self)
{
  g_return_val_if_fail (KM_IS_SCENE_VIEW (self), NULL);

  return &self->camera;
}

void
km_scene_view_set_camera (KmSceneView    *self,
                          const KmCamera *camera)
{
  g_return_if_fail (KM_IS_SCENE_VIEW (self));

  if (camera == NULL)
    {
      km_scene_view_reset_camera (self);
      return;
    }
  self->camera = *camera;
  self->camera_moved = TRUE;
  notify_camera (self);
}

/**
 * km_scene_view_reset_camera:
 *
 * The default three-quarter view, framing the body at its current pose and the targets'
 * path (the scene.reset-camera action).
 */
void
km_scene_view_reset_camera (KmSceneView *self)
{
  g_return_if_fail (KM_IS_SCENE_VIEW (self));

  km_camera_reset (&self->camera);
  if (self->document != NULL && km_document_get_skeleton (self->document) != NULL)
    {
      KmVec3 min, max;

      km_document_get_bounds (self->document, &min, &max);
      km_camera_frame_box (&self->camera, min, max);
    }
  self->camera_moved = FALSE;
  notify_camera (self);
}

gboolean
km_scene_view_get_show_joint_axes (KmSceneView *self)
{
  g_return_val_if_fail (KM_IS_SCENE_VIEW (self), FALSE);

  return self->show_joint_axes;
}

void
km_scene_view_set_show_joint_axes (KmSceneView *self,
                                   gboolean     show)
{
  g_return_if_fail (KM_IS_SCENE_VIEW (self));

  show = !!show;
  if (self->show_joint_axes == show)
    return;

  self->show_joint_axes = show;
  gtk_gl_area_queue_render (GTK_GL_AREA (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SHOW_JOINT_AXES]);
}

guint
km_scene_view_get_n_renders (KmSceneView *self)
{
  g_return_val_if_fail (KM_IS_SCENE_VIEW (self), 0);

  return self->n_renders;
}

/**
 * km_scene_view_grab_texture:
 *
 * Renders the view as it is on screen into a texture (File → Export image, tests).
 *
 * Returns: (transfer full) (nullable): the image, or %NULL when the view is not shown
 */
GdkTexture *
km_scene_view_grab_texture (KmSceneView *self)
{
  g_autoptr(GdkPaintable) paintable = NULL;
  GtkSnapshot *snapshot;
  g_autoptr(GskRenderNode) node = NULL;
  GskRenderer *renderer;
  GtkNative *native;
  int width, height;

  g_return_val_if_fail (KM_IS_SCENE_VIEW (self), NULL);

  width = gtk_widget_get_width (GTK_WIDGET (self));
  height = gtk_widget_get_height (GTK_WIDGET (self));
  native = gtk_widget_get_native (GTK_WIDGET (self));
  if (native == NULL || width <= 0 || height <= 0 || !gtk_widget_get_mapped (GTK_WIDGET (self)))
    return NULL;

  paintable = gtk_widget_paintable_new (GTK_WIDGET (self));
  snapshot = gtk_snapshot_new ();
  gdk_paintable_snapshot (paintable, snapshot, width, height);
  node = gtk_snapshot_free_to_node (snapshot);
  if (node == NULL)
    return NULL;

  renderer = gtk_native_get_renderer (native);
  return gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, width, height));
}
