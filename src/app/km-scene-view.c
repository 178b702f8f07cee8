/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-scene-view"

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n.h>

#include "km-scene-view.h"
#include "km-root-keys.h"

#include "km-animation-source.h"
#include "km-body-item.h"
#include "km-document-edit.h"
#include "km-document-private.h"
#include "km-document-skeleton.h"
#include "km-drag-ik.h"
#include "km-drag-solver.h"
#include "km-ik-job.h"
#include "km-ik-targets-item.h"
#include "km-pick.h"
#include "km-renderer.h"
#include "km-skeleton-edit.h"

/* Radians of orbit per pixel dragged, and zoom factor per scroll step. */
#define ORBIT_SPEED 0.008
#define ZOOM_STEP 1.12
/* Radians per pixel when a drag turns a spherical joint directly. */
#define FK_SPHERICAL_SPEED 0.01
/* Pixels a press may move and still count as a click. */
#define CLICK_SLOP 3.0
/* Pixels between a framed view's edge and the gizmo at the tip (an arrow's head is wider
 * than its point). */
#define GIZMO_MARGIN 6.0
/* Keep at most this many latency samples per drag. */
#define MAX_LATENCY_SAMPLES 100000

/*
 * In edit mode (Esc) a primary-button drag manipulates instead of orbiting:
 *  - on a gizmo handle: the IK tip moves along that world axis or turns about it;
 *  - on the IK tip (or any joint with Ctrl, which makes it the tip): the tip moves in the
 *    plane through it that faces the camera;
 *  - on another joint or its bone: that joint turns directly (forward kinematics).
 * While a joint other than the IK tip is selected, the gizmo sits on that joint instead,
 * with arrows only and the joint's axis: dragging an arrow moves the joint's offset along
 * that world axis (a skeleton edit, previewed live, one undo step when the drag ends).
 * IK requests go to a KmDragSolver (latest request wins); poses arrive on this thread.
 */
typedef enum
{
  DRAG_NONE,
  DRAG_ORBIT,
  DRAG_PAN,
  DRAG_IK_PLANE,
  DRAG_IK_AXIS,
  DRAG_IK_ROTATE,
  DRAG_FK,
  DRAG_OFFSET,
} DragMode;

/* What a framing fits: everything drawn, and the scene's own box without the joints'
 * markers. A skeleton without bones gets markers of a default size, so only the own box
 * tells whether the scene has a size of its own (frame_box()). */
typedef struct
{
  KmVec3 min, max;
  KmVec3 own_min, own_max;
} SceneBox;

struct _KmSceneView
{
  GtkGLArea       parent_instance;

  /* Owned */
  KmDocument     *document;
  GSignalGroup   *document_signals;
  KmRenderer     *renderer;
  KmCamera        camera;
  GPtrArray      *watched;           /* the project and its items, whose changes redraw */
  GArray         *bodies;            /* KmRenderBody: the checked bodies, this frame */
  GPtrArray      *body_worlds;       /* KmTransform arrays posing the other bodies */

  KmDragSolver   *solver;
  GdkFrameClock  *frame_clock;       /* while realized: answers are taken before painting */
  gulong          layout_handler;
  GArray         *latencies;         /* gint64 µs, request to pose applied, this drag */

  /* Drag state: the camera when the drag began. */
  KmCamera        drag_start;
  DragMode        drag_mode;
  double          drag_x;            /* where the drag began, logical pixels */
  double          drag_y;
  int             drag_joint;        /* IK tip or FK joint */
  KmTransform     drag_tip_start;    /* the tip's world pose when the drag began */
  KmVec3          drag_plane_normal;
  KmVec3          drag_hit_start;    /* on the drag plane, or the axis parameter in .x */
  KmGizmoHandle   drag_handle;
  double         *drag_pose_start;   /* the pose when the drag began */
  double         *drag_pose_shown;   /* the pose its last answer left (the start before) */
  guint           drag_n_dof;        /* of those two */
  KmVec3          drag_offset_start; /* DRAG_OFFSET: the joint's offset when it began */
  KmSkeleton     *offset_preview;    /* DRAG_OFFSET: the edited skeleton, not yet applied */
  KmTransform    *offset_world;      /* its joints posed by the document's pose */
  KmItem         *framed_body;       /* weak: the body shown (the camera was framed for it
                                      * when it was first shown; its reloads are the same) */
  KmProject      *framed_project;    /* weak: the project of the last framing (another
                                      * one with no camera of its own opens in perspective) */
  KmSkeleton     *framed_skeleton;   /* what the scene had when it was framed by itself, */
  KmTargetTrack  *framed_targets;    /* while its motion was still to come (motion_pending) */

  gboolean        edit_mode;
  gboolean        drag_moved;        /* the press went further than a click */
  gboolean        close_edit_pending;
  KmDocument     *held_document;     /* weak: its edit is held open for a drag (one step
                                      * until end_drag_edit, whatever the answers' timing) */
  int             ik_tip;            /* -1: the document's effector */
  int             hover_joint;
  gboolean        hover_tool_point;  /* what a click would pick is the tool point */
  KmGizmoHandle   gizmo_hover;

  gboolean        show_joint_axes;
  gboolean        camera_moved;      /* by the user since the last reset */
  gboolean        motion_pending;    /* framed without the body's motion, which will come */
  gboolean        has_auto_box;      /* auto_box: what the view framed by itself, fitted */
  SceneBox        auto_box;          /* again to the view's size until it is first drawn */
  guint           auto_renders;      /* n_renders when it was framed (size_allocate) */
  double          grid_scale;        /* KmRenderScene.grid_scale, set by framing the scene
                                      * and as the bodies drawn change (update_model_extent) */
  double          model_extent;      /* KmRenderScene.model_extent, likewise */
  guint           n_renders;
  gboolean        export_look;       /* drawn as view mode draws: no gizmo, no hover */
  GtkEventController *root_keys;     /* the view keys, on the root (km_scene_view_root) */
};

enum {
  PROP_0,
  PROP_CAMERA,
  PROP_DOCUMENT,
  PROP_EDIT_MODE,
  PROP_HOVER_JOINT,
  PROP_IK_TIP,
  PROP_N_RENDERS,
  PROP_ORTHOGRAPHIC,
  PROP_SHOW_JOINT_AXES,
  PROP_EXPORT_LOOK,
  N_PROPS
};

G_DEFINE_FINAL_TYPE (KmSceneView, km_scene_view, GTK_TYPE_GL_AREA)

static GParamSpec *properties[N_PROPS];

/* The document's body as the scene has it: none while its item is unchecked (checked
 * bodies are drawn; an unchecked one is neither drawn nor picked). */
static KmSkeleton *
shown_skeleton (KmSceneView *self)
{
  KmItem *body;

  if (self->document == NULL)
    return NULL;
  body = km_document_get_body_item (self->document);
  if (body != NULL && !km_item_get_checked (body))
    return NULL;
  return km_document_get_skeleton (self->document);
}

static int
get_tip (KmSceneView *self)
{
  KmSkeleton *skeleton;

  if ((skeleton = shown_skeleton (self)) == NULL)
    return -1;
  if (self->ik_tip >= 0 && (guint) self->ik_tip < km_skeleton_get_n_joints (skeleton))
    return self->ik_tip;
  return km_document_get_effector (self->document);
}

/* The joint whose offset the gizmo moves: in edit mode, the selected joint when it is not
 * the IK tip; -1 when the gizmo drives the tip. */
static int
get_offset_joint (KmSceneView *self)
{
  KmSkeleton *skeleton;
  int joint;

  if (!self->edit_mode || (skeleton = shown_skeleton (self)) == NULL)
    return -1;
  if (self->drag_mode == DRAG_OFFSET)
    return self->drag_joint;
  joint = km_document_get_selected_joint (self->document);
  if (joint < 0 || (guint) joint >= km_skeleton_get_n_joints (skeleton) || joint == get_tip (self))
    return -1;
  return joint;
}

/* Whether IK drags of @tip aim the targets' point: @tip is the document's end effector. */
static gboolean
tip_is_effector (KmSceneView *self,
                 int          tip)
{
  return tip >= 0 && tip == km_document_get_effector (self->document);
}

/* The point an IK drag of @tip moves: for the document's end effector the point its targets
 * are for (km_document_get_effector_point(): a tool point off the joint where they have an
 * offset), else the joint's origin; the joint's rotation either way. */
static KmTransform
tip_point (KmSceneView       *self,
           const KmTransform *world,
           int                tip)
{
  KmTransform point = world[tip];

  if (tip_is_effector (self, tip))
    km_document_get_effector_point (self->document, &point);
  return point;
}

/* Whether the targets of the document's end effector are for its position only. */
static gboolean
targets_position_only (KmSceneView *self)
{
  KmTargetTrack *targets = km_document_get_targets (self->document);

  return targets != NULL && km_target_track_get_position_only (targets);
}

/* The joints as drawn: posed on the skeleton being edited while an offset is dragged. */
static const KmTransform *
drawn_joint_world (KmSceneView *self)
{
  if (self->offset_preview != NULL)
    return self->offset_world;
  return km_document_get_joint_world (self->document, NULL);
}

static gboolean
get_gizmo (KmSceneView *self,
           KmGizmo     *gizmo)
{
  const KmTransform *world;
  int tip = get_tip (self), joint = get_offset_joint (self);

  *gizmo = (KmGizmo) { { 0, 0, 0 }, 0.0, FALSE, FALSE, { 0, 0, 0 } };
  if (!self->edit_mode || tip < 0)
    return FALSE;
  world = drawn_joint_world (self);
  if (joint >= 0)
    {
      KmSkeleton *skeleton = self->offset_preview != NULL ? self->offset_preview
                                                          : km_document_get_skeleton (self->document);
      const KmJoint *j = km_skeleton_get_joint (skeleton, (guint) joint);

      gizmo->centre = world[joint].pos;
      gizmo->translate_only = TRUE;
      if (j->type == KM_JOINT_REVOLUTE || j->type == KM_JOINT_PRISMATIC)
        {
          gizmo->show_axis = TRUE;
          gizmo->axis = km_vec3_normalize (km_mat3_mul_vec3 (&world[joint].rot, j->axis));
        }
    }
  else
    {
      /* At the point the targets are for; a position-only end effector is only moved. */
      gizmo->centre = tip_point (self, world, tip).pos;
      gizmo->translate_only = tip_is_effector (self, tip) && targets_position_only (self);
    }
  gizmo->size = km_gizmo_size_for_view (&self->camera, gizmo->centre);
  return TRUE;
}

/* From @p towards the viewer: to the eye, or straight back for an orthographic view. */
static KmVec3
toward_eye (KmSceneView *self,
            KmVec3       p)
{
  if (self->camera.orthographic)
    return km_vec3_scale (km_camera_get_forward (&self->camera), -1.0);
  return km_vec3_sub (km_camera_get_eye (&self->camera), p);
}

static void
view_ray (KmSceneView *self,
          double       x,
          double       y,
          KmVec3      *origin,
          KmVec3      *dir)
{
  km_camera_ray (&self->camera, x, y, MAX (gtk_widget_get_width (GTK_WIDGET (self)), 1),
                 MAX (gtk_widget_get_height (GTK_WIDGET (self)), 1), origin, dir);
}

static int
pick_joint (KmSceneView *self,
            double       x,
            double       y)
{
  KmSkeleton *skeleton;
  KmVec3 origin, dir;

  if ((skeleton = shown_skeleton (self)) == NULL)
    return -1;
  view_ray (self, x, y, &origin, &dir);
  /* The markers' size as drawn (km_renderer_render()), a few pixels at least. */
  return km_pick_joint (skeleton, km_document_get_joint_world (self->document, NULL),
                        km_renderer_view_marker_radius (skeleton, self->model_extent,
                                                        &self->camera),
                        origin, dir, NULL);
}

/* The IK tip when the pointer at (@x, @y) is on the point its targets are for off its joint
 * (a tool point: nothing else is drawn there but the gizmo) nearer than any joint or bone,
 * within a joint marker's size; else -1. A free drag from there moves that point. */
static int
pick_tool_point (KmSceneView *self,
                 double       x,
                 double       y)
{
  KmSkeleton *skeleton = shown_skeleton (self);
  int tip = get_tip (self);
  const KmTransform *world;
  KmVec3 origin, dir, to;
  double radius, along, joint_distance = INFINITY;
  KmTransform point;

  if (skeleton == NULL || !tip_is_effector (self, tip)
      || (world = km_document_get_joint_world (self->document, NULL)) == NULL)
    return -1;
  point = tip_point (self, world, tip);
  if (km_vec3_length (km_vec3_sub (point.pos, world[tip].pos)) == 0.0)
    return -1;
  view_ray (self, x, y, &origin, &dir);
  radius = km_renderer_view_marker_radius (skeleton, self->model_extent, &self->camera);
  dir = km_vec3_normalize (dir);
  to = km_vec3_sub (point.pos, origin);
  along = km_vec3_dot (to, dir);
  if (along < 0.0 || km_vec3_length (km_vec3_sub (to, km_vec3_scale (dir, along))) > radius)
    return -1;
  km_pick_joint (skeleton, world, radius, origin, dir, &joint_distance);
  return along - radius <= joint_distance ? tip : -1;
}

/* Whether the ray from @origin along @dir (unit) passes within @radius of @point, ahead. */
static gboolean
ray_passes_near (KmVec3 origin,
                 KmVec3 dir,
                 KmVec3 point,
                 double radius)
{
  KmVec3 to = km_vec3_sub (point, origin);
  double along = km_vec3_dot (to, dir);

  return along >= 0.0 && km_vec3_length (km_vec3_sub (to, km_vec3_scale (dir, along))) <= radius;
}

/* Whether the ray meets a joint's marker (its sphere as drawn; not a bone). */
static gboolean
on_joint_marker (KmSceneView *self,
                 KmSkeleton  *skeleton,
                 KmVec3       origin,
                 KmVec3       dir,
                 double       radius)
{
  const KmTransform *world = km_document_get_joint_world (self->document, NULL);

  for (guint j = 0; world != NULL && j < km_skeleton_get_n_joints (skeleton); j++)
    if (ray_passes_near (origin, dir, world[j].pos, radius))
      return TRUE;
  return FALSE;
}

static KmGizmoHandle
pick_gizmo (KmSceneView *self,
            double       x,
            double       y)
{
  KmSkeleton *skeleton = shown_skeleton (self);
  KmVec3 origin, dir;
  KmGizmo gizmo;

  if (!get_gizmo (self, &gizmo))
    return KM_GIZMO_NONE;
  /* On the IK tip's own marker (the end effector's sphere, or its tool point) the tip
   * takes the press, for a free drag: a ring seen edge-on or an arrow seen end-on is drawn
   * through the marker and would take every press there, turning or moving along one
   * axis only. So does another joint's marker under a ring or an arrow: the joint takes
   * the press (an FK drag, or with Ctrl it becomes the IK tip), else a joint near the end
   * effector could not be picked while the gizmo is shown. */
  if (get_offset_joint (self) < 0 && skeleton != NULL)
    {
      double radius = km_renderer_view_marker_radius (skeleton, self->model_extent,
                                                      &self->camera);

      view_ray (self, x, y, &origin, &dir);
      dir = km_vec3_normalize (dir);
      if (ray_passes_near (origin, dir, gizmo.centre, radius)
          || on_joint_marker (self, skeleton, origin, dir, radius))
        return KM_GIZMO_NONE;
    }
  return km_gizmo_pick (&gizmo, &self->camera, gtk_widget_get_width (GTK_WIDGET (self)),
                        gtk_widget_get_height (GTK_WIDGET (self)), x, y);
}

static void
set_hover (KmSceneView   *self,
           int            joint,
           gboolean       tool_point,
           KmGizmoHandle  handle)
{
  if (self->hover_tool_point != tool_point)
    {
      self->hover_tool_point = tool_point;
      gtk_gl_area_queue_render (GTK_GL_AREA (self));
    }
  if (self->gizmo_hover != handle)
    {
      self->gizmo_hover = handle;
      gtk_gl_area_queue_render (GTK_GL_AREA (self));
    }
  if (self->hover_joint != joint)
    {
      self->hover_joint = joint;
      gtk_gl_area_queue_render (GTK_GL_AREA (self));
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HOVER_JOINT]);
    }
}

static void
update_hover (KmSceneView *self,
              double       x,
              double       y)
{
  KmGizmoHandle handle;
  gboolean tool_point;

  if (!self->edit_mode)
    {
      set_hover (self, -1, FALSE, KM_GIZMO_NONE);
      return;
    }
  handle = pick_gizmo (self, x, y);
  /* As a press picks (begin_manipulation()): the tool point before the joints. */
  tool_point = handle == KM_GIZMO_NONE && pick_tool_point (self, x, y) >= 0;
  set_hover (self, handle == KM_GIZMO_NONE && !tool_point ? pick_joint (self, x, y) : -1,
             tool_point, handle);
}

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

static void watch_project (KmSceneView *self);
static void reframe (KmSceneView *self);
static void update_model_extent (KmSceneView *self);

static void
tree_changed_cb (KmSceneView *self)
{
  watch_project (self);
  update_model_extent (self);
  gtk_gl_area_queue_render (GTK_GL_AREA (self));
}

/* A body shown or hidden: the scene's size, and so its markers', may change. */
static void
body_checked_cb (KmSceneView *self)
{
  update_model_extent (self);
  gtk_gl_area_queue_render (GTK_GL_AREA (self));
}

static void
unwatch_project (KmSceneView *self)
{
  for (guint i = 0; i < self->watched->len; i++)
    g_signal_handlers_disconnect_by_data (g_ptr_array_index (self->watched, i), self);
  g_ptr_array_set_size (self->watched, 0);
}

static void
watch_item (KmSceneView *self,
            KmItem      *item)
{
  g_ptr_array_add (self->watched, g_object_ref (item));
  g_signal_connect_swapped (item, "items-changed", G_CALLBACK (tree_changed_cb), self);
  /* is-checked, and joint states that undo or a loader change */
  if (KM_IS_BODY_ITEM (item))
    {
      g_signal_connect_swapped (item, "notify", G_CALLBACK (document_changed_cb), self);
      g_signal_connect_swapped (item, "notify::is-checked", G_CALLBACK (body_checked_cb), self);
    }
  for (guint i = 0; i < km_item_get_n_children (item); i++)
    watch_item (self, km_item_get_child (item, i));
}

/* Follows every item of the project: the view draws all checked bodies. */
static void
watch_project (KmSceneView *self)
{
  KmProject *project;
  KmItem *root;

  unwatch_project (self);
  if (self->document == NULL || (project = km_document_get_project (self->document)) == NULL)
    return;
  g_ptr_array_add (self->watched, g_object_ref (project));
  g_signal_connect_swapped (project, "notify::root-item", G_CALLBACK (tree_changed_cb), self);
  if ((root = km_project_get_root_item (project)) != NULL)
    watch_item (self, root);
}

static void
collect_bodies (KmSceneView *self,
                KmItem      *item)
{
  if (KM_IS_BODY_ITEM (item) && km_item_get_checked (item))
    {
      KmRenderBody body = { NULL, NULL };

      if (item == km_document_get_body_item (self->document))
        {
          body.skeleton = km_document_get_skeleton (self->document);
          body.joint_world = km_document_get_joint_world (self->document, NULL);
        }
      else if ((body.skeleton = km_body_item_get_skeleton (KM_BODY_ITEM (item))) != NULL)
        {
          const double *q;
          guint n_dof = 0;

          q = km_body_item_get_joint_state (KM_BODY_ITEM (item), &n_dof);
          /* A body with a motion of its own (a solved animation, a body motion) is drawn
           * where that motion has it at the current frame, as Choreonoid plays every
           * body's motion; its joint state otherwise. */
          {
            KmAnimationSource *source = km_animation_source_find (item);
            KmAnimation *animation = source != NULL
                                     ? km_animation_source_get_animation (source) : NULL;

            if (animation != NULL && km_animation_get_n_frames (animation) > 0
                && km_animation_get_n_dof (animation) == km_skeleton_get_n_dof (body.skeleton))
              {
                q = km_animation_get_frame (animation,
                                            MIN (km_document_get_current_frame (self->document),
                                                 km_animation_get_n_frames (animation) - 1));
                n_dof = km_animation_get_n_dof (animation);
              }
          }
          if (q != NULL && n_dof == km_skeleton_get_n_dof (body.skeleton))
            {
              KmTransform *world = g_new (KmTransform, km_skeleton_get_n_joints (body.skeleton));

              /* Like the document's own body: posed from the skeleton's root, not from the
               * item's root pose. */
              km_skeleton_forward_kinematics (body.skeleton, q, NULL, world);
              g_ptr_array_add (self->body_worlds, world);
              body.joint_world = world;
            }
        }
      if (body.skeleton != NULL && body.joint_world != NULL)
        g_array_append_val (self->bodies, body);
    }
  for (guint i = 0; i < km_item_get_n_children (item); i++)
    collect_bodies (self, km_item_get_child (item, i));
}

/* Fills self->bodies for this frame; the pointers stay valid until the next call. */
static void
update_bodies (KmSceneView *self)
{
  KmProject *project;
  KmItem *root;

  g_array_set_size (self->bodies, 0);
  g_ptr_array_set_size (self->body_worlds, 0);
  if (self->document != NULL && (project = km_document_get_project (self->document)) != NULL
      && (root = km_project_get_root_item (project)) != NULL)
    collect_bodies (self, root);
}

/* Metres. A scene whose own box (SceneBox) has a diagonal under POINT_EXTENT has no size
 * of its own: a new skeleton's single root joint, or joints that all coincide. Framing the
 * whole scene shows it as MIN_SCENE_EXTENT of space, like a small model, not zoomed in
 * until its joint's marker fills the view; framing a selected joint has no such floor (it
 * is there to look closely, and km_camera_frame_box() keeps a lone joint at a distance).
 * Anything larger is framed at its own size, a mechanism of a few centimetres as a robot of
 * two metres: a millimetre is below any model's size and well above the rounding of joints
 * that coincide. */
#define POINT_EXTENT 1.0e-3
#define MIN_SCENE_EXTENT 1.0

static void
grow_corners (KmVec3 *min,
              KmVec3 *max,
              KmVec3  p)
{
  if (!km_vec3_is_finite (p))
    return;
  min->x = MIN (min->x, p.x), min->y = MIN (min->y, p.y), min->z = MIN (min->z, p.z);
  max->x = MAX (max->x, p.x), max->y = MAX (max->y, p.y), max->z = MAX (max->z, p.z);
}

static void
grow_box (SceneBox *box,
          KmVec3    p)
{
  grow_corners (&box->min, &box->max, p);
  grow_corners (&box->own_min, &box->own_max, p);
}

/* Grows the box by joint @joint of @body: its position and its shapes' bounds (its marker
 * comes in grow_box_markers(), once the model's own size is known). */
static void
grow_box_joint (SceneBox           *box,
                const KmRenderBody *body,
                guint               joint)
{
  KmShape * const *shapes;
  guint n_shapes = 0;
  mat4 world, model;

  grow_box (box, body->joint_world[joint].pos);
  shapes = km_skeleton_get_shapes (body->skeleton, joint, &n_shapes);
  km_transform_to_mat4 (&body->joint_world[joint], world);
  for (guint k = 0; k < n_shapes; k++)
    {
      KmVec3 lo, hi;

      km_shape_get_bounds (shapes[k], &lo, &hi);
      km_shape_get_mat4 (shapes[k], model);
      glm_mat4_mul (world, model, model);
      for (int c = 0; c < 8; c++)
        {
          vec4 p = { (float) (c & 1 ? hi.x : lo.x), (float) (c & 2 ? hi.y : lo.y),
                     (float) (c & 4 ? hi.z : lo.z), 1.0f };
          vec4 out;

          glm_mat4_mulv (model, p, out);
          grow_box (box, km_vec3 (out[0], out[1], out[2]));
        }
    }
}

/* Whether @joint is @ancestor or below it. */
static gboolean
joint_in_subtree (const KmSkeleton *skeleton,
                  int               joint,
                  int               ancestor)
{
  for (; joint >= 0; joint = km_skeleton_get_joint (skeleton, joint)->parent)
    if (joint == ancestor)
      return TRUE;
  return FALSE;
}

/* Grows the box (not its own part) by the markers of @body's joints, those of
 * @subtree_of's subtree (-1: all), drawn for a model of @model_extent. */
static void
grow_box_markers (SceneBox           *box,
                  const KmRenderBody *body,
                  int                 subtree_of,
                  double              model_extent)
{
  double r = km_renderer_marker_radius (body->skeleton, model_extent);

  for (guint i = 0; i < km_skeleton_get_n_joints (body->skeleton); i++)
    if (subtree_of < 0 || joint_in_subtree (body->skeleton, (int) i, subtree_of))
      for (int c = 0; c < 8; c++)
        grow_corners (&box->min, &box->max,
                      km_vec3_add (body->joint_world[i].pos,
                                   km_vec3 (c & 1 ? r : -r, c & 2 ? r : -r, c & 4 ? r : -r)));
}

/* The KmRenderScene.model_extent of a whole scene framed, from its own box (the markers
 * are sized by it, so not from theirs). */
static double
framed_model_extent (const SceneBox *box)
{
  double own_extent = km_vec3_length (km_vec3_sub (box->own_max, box->own_min));

  return own_extent < POINT_EXTENT ? MIN_SCENE_EXTENT : own_extent;
}

/* The KmRenderScene.grid_scale of a whole scene framed, from its box with the markers
 * (scene_bounds()); a scene of no size of its own is shown as @min_extent of space. */
static double
framed_grid_scale (const SceneBox *box,
                   double          min_extent)
{
  double extent = km_vec3_length (km_vec3_sub (box->max, box->min));
  double own_extent = km_vec3_length (km_vec3_sub (box->own_max, box->own_min));

  return km_renderer_grid_scale_for (own_extent < POINT_EXTENT ? min_extent : extent);
}

/* @subtree_of: -1 for every checked body, the edited one and its motion; else a joint of
 * the edited body whose subtree the box holds (its markers as the view draws them). FALSE
 * when there is nothing to frame. */
static gboolean
scene_bounds (KmSceneView *self,
              int          subtree_of,
              SceneBox    *box)
{
  KmRenderBody current = { NULL, NULL };
  double model_extent;

  box->min = box->own_min = km_vec3 (G_MAXDOUBLE, G_MAXDOUBLE, G_MAXDOUBLE);
  box->max = box->own_max = km_vec3 (-G_MAXDOUBLE, -G_MAXDOUBLE, -G_MAXDOUBLE);
  if (self->document == NULL)
    return FALSE;

  current.skeleton = shown_skeleton (self);
  current.joint_world = current.skeleton != NULL
                        ? km_document_get_joint_world (self->document, NULL) : NULL;
  if (subtree_of >= 0)
    {
      if (current.skeleton == NULL
          || (guint) subtree_of >= km_skeleton_get_n_joints (current.skeleton))
        return FALSE;
      for (guint i = 0; i < km_skeleton_get_n_joints (current.skeleton); i++)
        if (joint_in_subtree (current.skeleton, (int) i, subtree_of))
          grow_box_joint (box, &current, i);
      grow_box_markers (box, &current, subtree_of, self->model_extent);
      return box->min.x <= box->max.x;
    }

  if (current.skeleton != NULL)
    {
      KmVec3 lo, hi;

      km_document_get_bounds (self->document, &lo, &hi);
      grow_box (box, lo);
      grow_box (box, hi);
      for (guint i = 0; i < km_skeleton_get_n_joints (current.skeleton); i++)
        grow_box_joint (box, &current, i);
    }
  update_bodies (self);
  for (guint b = 0; b < self->bodies->len; b++)
    {
      const KmRenderBody *body = &g_array_index (self->bodies, KmRenderBody, b);

      for (guint i = 0; i < km_skeleton_get_n_joints (body->skeleton); i++)
        grow_box_joint (box, body, i);
    }
  /* The markers as drawn once this box is framed (frame_box()). */
  model_extent = framed_model_extent (box);
  if (current.skeleton != NULL)
    grow_box_markers (box, &current, -1, model_extent);
  for (guint b = 0; b < self->bodies->len; b++)
    grow_box_markers (box, &g_array_index (self->bodies, KmRenderBody, b), -1, model_extent);
  return box->min.x <= box->max.x;
}

/* Whether the gizmo that edit mode draws at the IK tip (get_gizmo(), a fixed share of the
 * view about the tip, km_gizmo_size_for_view()) lies within the view, GIZMO_MARGIN pixels
 * inside its edges; also when the tip is not in view (a framed selection without it). */
static gboolean
tip_gizmo_in_view (KmSceneView *self,
                   int          width,
                   int          height)
{
  const KmTransform *world;
  KmGizmo gizmo = { { 0, 0, 0 }, 0.0, FALSE, FALSE, { 0, 0, 0 } };
  int tip = get_tip (self);
  double x, y;

  if (tip < 0 || (world = drawn_joint_world (self)) == NULL)
    return TRUE;
  gizmo.centre = tip_point (self, world, tip).pos;
  if (!km_camera_project (&self->camera, gizmo.centre, width, height, &x, &y)
      || x < 0 || x > width || y < 0 || y > height)
    return TRUE;
  gizmo.size = km_gizmo_size_for_view (&self->camera, gizmo.centre);
  gizmo.translate_only = tip_is_effector (self, tip) && targets_position_only (self);
  for (KmGizmoHandle h = KM_GIZMO_MOVE_X; h <= KM_GIZMO_ROTATE_Z; h++)
    {
      guint n = h <= KM_GIZMO_MOVE_Z ? 1 : gizmo.translate_only ? 0 : KM_GIZMO_RING_SEGMENTS;

      for (guint s = 0; s < n; s++)
        {
          KmVec3 p, base;

          if (h <= KM_GIZMO_MOVE_Z)
            km_gizmo_arrow (&gizmo, h, &base, &p);
          else
            p = km_gizmo_ring_point (&gizmo, h, s);
          if (!km_camera_project (&self->camera, p, width, height, &x, &y)
              || x < GIZMO_MARGIN || x > width - GIZMO_MARGIN
              || y < GIZMO_MARGIN || y > height - GIZMO_MARGIN)
            return FALSE;
        }
    }
  return TRUE;
}

static void
frame_box (KmSceneView    *self,
           const SceneBox *box,
           double          min_extent)
{
  int width = gtk_widget_get_width (GTK_WIDGET (self));
  int height = gtk_widget_get_height (GTK_WIDGET (self));
  KmVec3 min = box->min, max = box->max;
  KmVec3 centre = km_vec3_scale (km_vec3_add (min, max), 0.5);
  double extent = km_vec3_length (km_vec3_sub (max, min));
  double own_extent = km_vec3_length (km_vec3_sub (box->own_max, box->own_min));
  double scale = 1.0;

  if (own_extent < POINT_EXTENT)
    {
      if (min_extent > extent)
        {
          double half = min_extent / (2.0 * sqrt (3.0));   /* a cube of that diagonal */

          min = km_vec3_sub (centre, km_vec3 (half, half, half));
          max = km_vec3_add (centre, km_vec3 (half, half, half));
        }
    }
  else if (extent < 1.0)
    {
      /* km_camera_frame_box() frames no less than a 20 cm sphere. The fit grows with the
       * box: frame it scaled up to a metre about its centre, then come closer as much. */
      scale = 1.0 / extent;
      min = km_vec3_add (centre, km_vec3_scale (km_vec3_sub (min, centre), scale));
      max = km_vec3_add (centre, km_vec3_scale (km_vec3_sub (max, centre), scale));
    }
  km_camera_frame_box (&self->camera, min, max,
                       width > 0 && height > 0 ? (double) width / height : 1.0);
  if (scale != 1.0)
    {
      KmVec3 off_centre = km_vec3_sub (self->camera.target, centre);

      /* The target may be off the box's centre (its image centred): scaled down too. */
      km_camera_zoom (&self->camera, 1.0 / scale);
      self->camera.target = km_vec3_add (centre, km_vec3_scale (off_centre, 1.0 / scale));
    }
  /* Room for the gizmo at the tip (a tip at the box's edge had it cut off): a step back
   * at a time, the tip nearing the middle while the gizmo keeps its share of the view. */
  for (guint i = 0; i < 40 && width > 0 && height > 0
                    && !tip_gizmo_in_view (self, width, height); i++)
    km_camera_zoom (&self->camera, 1.05);
  /* The whole scene framed: the floor grid and the markers to its size (a selection framed
   * keeps them). */
  if (min_extent > 0.0)
    {
      self->grid_scale = framed_grid_scale (box, min_extent);
      self->model_extent = framed_model_extent (box);
    }
}

/* The markers' and the floor grid's size for the scene as it is now (those framing it
 * would give them), with the camera left where it is: the bodies drawn changed (a skeleton
 * edit, a model reloaded at another scale, a body shown), so that markers sized for the
 * scene framed last would swamp a model that shrank or vanish on one that grew, and a
 * model grown from centimetres to metres would stand on a grid of millimetre lines (one
 * shrunk, on a blank floor). Not on pose changes: a drag would make them breathe, and the
 * scene's own size is the model's, not the pose's. */
static void
update_model_extent (KmSceneView *self)
{
  SceneBox box;
  double extent, grid_scale;

  if (self->document == NULL || !scene_bounds (self, -1, &box))
    return;
  extent = framed_model_extent (&box);
  grid_scale = framed_grid_scale (&box, MIN_SCENE_EXTENT);
  if (extent == self->model_extent && grid_scale == self->grid_scale)
    return;
  self->model_extent = extent;
  self->grid_scale = grid_scale;
  gtk_gl_area_queue_render (GTK_GL_AREA (self));
}

/* The view frames a model by itself only when it is first shown (a file opened, a new
 * body): another body is framed whole, while a change of the body shown (an offset dragged,
 * a joint added, undone, its file reloaded: the same body read again) keeps the camera
 * where it is, whether or not the user moved it, with markers to the model's new size. */
static void
document_skeleton_changed_cb (KmSceneView *self)
{
  KmItem *body = km_document_get_body_item (self->document);

  if (body != NULL && self->framed_body != NULL
      && _km_document_same_item (self->framed_body, body))
    {
      g_set_weak_pointer (&self->framed_body, body);
      update_model_extent (self);
      return;
    }
  /* The body gone from the same project (deleted) leaves the camera where it is, and
   * framed_body as it is: undoing the delete shows the same body again, not a new one. */
  if (body == NULL && self->framed_project != NULL
      && km_document_get_project (self->document) == self->framed_project)
    {
      update_model_extent (self);
      return;
    }
  reframe (self);
}

/* A body first shown without its motion (its targets being solved, its pose sequence
 * built) is framed once more, with the motion, when that comes, unless the user placed
 * the camera or changed the scene meanwhile. Keys, edits and their solves never move it. */
static void
document_animation_changed_cb (KmSceneView *self)
{
  if (!self->motion_pending || km_document_get_solving (self->document)
      || km_document_get_animation (self->document) == NULL)
    return;
  self->motion_pending = FALSE;
  if (!self->camera_moved
      && km_document_get_skeleton (self->document) == self->framed_skeleton
      && km_document_get_targets (self->document) == self->framed_targets)
    reframe (self);
}

/* Targets read from a file for the body just shown (a model opened with its targets,
 * `kinema model.json targets.json`, or its targets opened before anything else moved the
 * camera) come as the model's own would: the motion their solve brings is framed too
 * (document_animation_changed_cb), not left out of a view framed for the zero pose. Targets
 * a key makes (no file) are an edit: the camera stays. */
static void
document_targets_changed_cb (KmSceneView *self)
{
  KmItem *body = km_document_get_body_item (self->document);
  KmItem *item = body != NULL ? km_item_find_child_by_type (body, KM_TYPE_IK_TARGETS_ITEM)
                              : NULL;
  KmTargetTrack *targets = km_document_get_targets (self->document);

  if (!self->motion_pending || self->camera_moved || targets == NULL || item == NULL
      || km_ik_targets_item_get_track (KM_IK_TARGETS_ITEM (item)) != targets
      || km_ik_targets_item_get_file (KM_IK_TARGETS_ITEM (item)) == NULL
      || km_document_get_skeleton (self->document) != self->framed_skeleton
      || body != self->framed_body)
    return;
  g_clear_pointer (&self->framed_targets, km_target_track_unref);
  self->framed_targets = km_target_track_ref (targets);
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

/* The frame's layout phase comes after its input and before its paint: an answer that is
 * there by then is on the body in the frame drawn next, not one frame later. */
static void
frame_layout_cb (KmSceneView *self)
{
  if (self->solver != NULL && km_drag_solver_get_busy (self->solver))
    km_drag_solver_flush (self->solver);
}

static void
km_scene_view_realize (GtkWidget *widget)
{
  KmSceneView *self = KM_SCENE_VIEW (widget);
  g_autoptr(GError) error = NULL;
  GdkGLContext *context;

  GTK_WIDGET_CLASS (km_scene_view_parent_class)->realize (widget);

  self->frame_clock = gtk_widget_get_frame_clock (widget);
  if (self->frame_clock != NULL)
    {
      g_object_ref (self->frame_clock);
      self->layout_handler = g_signal_connect_swapped (self->frame_clock, "layout",
                                                       G_CALLBACK (frame_layout_cb), self);
    }

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

  if (self->frame_clock != NULL)
    g_clear_signal_handler (&self->layout_handler, self->frame_clock);
  g_clear_object (&self->frame_clock);

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
  KmTargetTrack *targets;

  if (gtk_gl_area_get_error (area) != NULL || self->renderer == NULL)
    return FALSE;

  update_bodies (self);
  scene.bodies = (const KmRenderBody *) (gpointer) self->bodies->data;
  scene.n_bodies = self->bodies->len;
  /* The edited body with its joints, target, motion and gizmo; nothing of it unchecked. */
  if ((scene.skeleton = shown_skeleton (self)) != NULL)
    {
      scene.joint_world = km_document_get_joint_world (self->document, NULL);
      if (self->offset_preview != NULL)
        {
          /* The body as it would be with the dragged offset, shapes and all. */
          for (guint b = 0; b < self->bodies->len; b++)
            {
              KmRenderBody *body = &g_array_index (self->bodies, KmRenderBody, b);

              if (body->skeleton == scene.skeleton)
                body->skeleton = self->offset_preview, body->joint_world = self->offset_world;
            }
          scene.skeleton = self->offset_preview;
          scene.joint_world = self->offset_world;
        }
      scene.selected_joint = km_document_get_selected_joint (self->document);
      scene.effector = km_document_get_effector (self->document);
      targets = km_document_get_targets (self->document);
      /* The point the targets move where it is off the joint (a tool point), as
       * km_document_get_effector_point() has it, on the joints as drawn. */
      if (scene.effector >= 0 && (guint) scene.effector < km_skeleton_get_n_joints (scene.skeleton)
          && targets != NULL && km_target_track_has_effector_offset (targets))
        {
          scene.has_tool_point = TRUE;
          scene.tool_point = km_transform_apply (&scene.joint_world[scene.effector],
                                                 km_target_track_get_effector_offset (targets));
          scene.hover_tool_point = self->edit_mode && !self->export_look
                                   && self->hover_tool_point;
        }
      scene.has_target = km_document_get_target_pose (self->document, &scene.target);
      scene.trajectory = km_document_get_trajectory (self->document, &scene.n_trajectory);
      scene.has_gizmo = !self->export_look && get_gizmo (self, &scene.gizmo);
      scene.gizmo_hover = self->drag_mode == DRAG_IK_AXIS || self->drag_mode == DRAG_IK_ROTATE
                          || self->drag_mode == DRAG_OFFSET
                          ? self->drag_handle : self->gizmo_hover;
      scene.has_hover = self->edit_mode && !self->export_look && self->hover_joint >= 0;
      scene.hover_joint = self->hover_joint;
    }
  scene.show_joint_axes = self->show_joint_axes;
  scene.grid_scale = self->grid_scale;
  scene.model_extent = self->model_extent;

  km_renderer_render (self->renderer, &scene, &self->camera,
                      gtk_widget_get_width (GTK_WIDGET (self)) * scale,
                      gtk_widget_get_height (GTK_WIDGET (self)) * scale);

  self->n_renders++;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_RENDERS]);
  return TRUE;
}

static void end_drag_edit (KmSceneView *self);

static void
solver_solved_cb (KmSceneView        *self,
                  const KmIkSolution *solution,
                  gint64              request_time,
                  KmDragSolver       *solver)
{
  const double *q;
  gint64 latency;
  guint n_dof;

  if (self->document == NULL || self->drag_pose_start == NULL)
    return;
  q = km_document_get_pose (self->document, &n_dof);
  if (solution->n_dof != n_dof)
    return;
  /* Released, and the pose is no longer the one the drag left (an undo of the drag came
   * before its last answers), or another edit has begun since (a slider's): the drag is
   * over, and those answers would only make a step of their own that puts the undone pose
   * back, or merge into the other edit's. */
  if (self->close_edit_pending
      && (n_dof != self->drag_n_dof
          || memcmp (q, self->drag_pose_shown, n_dof * sizeof (double)) != 0
          || !km_document_edit_held_by (self->document, self)))
    {
      km_drag_solver_cancel (self->solver);
      end_drag_edit (self);
      return;
    }

  km_document_set_pose (self->document, solution->q, solution->n_dof);
  q = km_document_get_pose (self->document, NULL);
  if (n_dof == self->drag_n_dof)
    memcpy (self->drag_pose_shown, q, n_dof * sizeof (double));
  latency = g_get_monotonic_time () - request_time;
  if (self->latencies->len < MAX_LATENCY_SAMPLES)
    g_array_append_val (self->latencies, latency);
}

static void
request_ik (KmSceneView       *self,
            const KmTransform *target)
{
  /* The ring turns the joint; a free or arrow drag moves only its position. */
  km_drag_ik_request (self->solver, self->document, self->drag_joint,
                      self->drag_mode != DRAG_IK_ROTATE, target);
  /* Motion comes at the start of a frame: look for the answer again before it paints. */
  if (self->frame_clock != NULL)
    gdk_frame_clock_request_phase (self->frame_clock, GDK_FRAME_CLOCK_PHASE_LAYOUT);
}

static void
begin_manipulation (KmSceneView *self,
                    double       x,
                    double       y,
                    gboolean     ctrl)
{
  const KmTransform *world = km_document_get_joint_world (self->document, NULL);
  KmSkeleton *skeleton = km_document_get_skeleton (self->document);
  KmGizmoHandle handle = pick_gizmo (self, x, y);
  KmVec3 origin, dir;
  const double *q;
  guint n_dof;
  int joint = -1;

  self->drag_mode = DRAG_NONE;
  if (handle != KM_GIZMO_NONE && (joint = get_offset_joint (self)) >= 0)
    {
      view_ray (self, x, y, &origin, &dir);
      self->drag_mode = DRAG_OFFSET;
      self->drag_joint = joint;
      self->drag_handle = handle;
      self->drag_tip_start = world[joint];
      self->drag_offset_start = km_skeleton_get_joint (skeleton, (guint) joint)->offset;
      self->drag_hit_start.x = km_ray_line_param (origin, dir, world[joint].pos,
                                                  km_gizmo_axis (handle));
      g_clear_pointer (&self->offset_preview, km_skeleton_unref);
      goto started;
    }
  if (handle == KM_GIZMO_NONE)
    {
      if ((joint = pick_tool_point (self, x, y)) < 0)
        joint = pick_joint (self, x, y);
      if (joint < 0)
        return;
      if (ctrl && joint != self->ik_tip)
        {
          self->ik_tip = joint;
          g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_IK_TIP]);
        }
    }

  view_ray (self, x, y, &origin, &dir);
  if (handle != KM_GIZMO_NONE || joint == get_tip (self))
    {
      self->drag_joint = get_tip (self);
      self->drag_tip_start = tip_point (self, world, self->drag_joint);
      self->drag_handle = handle;
      if (handle >= KM_GIZMO_ROTATE_X)
        {
          self->drag_mode = DRAG_IK_ROTATE;
          self->drag_plane_normal = km_gizmo_axis (handle);
          if (!km_ray_plane (origin, dir, self->drag_tip_start.pos, self->drag_plane_normal,
                             &self->drag_hit_start))
            self->drag_mode = DRAG_NONE;
        }
      else if (handle != KM_GIZMO_NONE)
        {
          self->drag_mode = DRAG_IK_AXIS;
          self->drag_hit_start.x = km_ray_line_param (origin, dir, self->drag_tip_start.pos,
                                                      km_gizmo_axis (handle));
        }
      else
        {
          self->drag_mode = DRAG_IK_PLANE;
          self->drag_plane_normal = km_vec3_normalize (toward_eye (self,
                                                                   self->drag_tip_start.pos));
          if (!km_ray_plane (origin, dir, self->drag_tip_start.pos, self->drag_plane_normal,
                             &self->drag_hit_start))
            self->drag_mode = DRAG_NONE;
        }
    }
  else if (km_skeleton_get_joint (skeleton, joint)->n_dof > 0)
    {
      self->drag_mode = DRAG_FK;
      self->drag_joint = joint;
      self->drag_tip_start = world[joint];
    }
  if (self->drag_mode == DRAG_NONE)
    return;

started:
  q = km_document_get_pose (self->document, &n_dof);
  g_free (self->drag_pose_start);
  self->drag_pose_start = g_memdup2 (q, MAX (n_dof, 1) * sizeof (double));
  g_free (self->drag_pose_shown);
  self->drag_pose_shown = g_memdup2 (q, MAX (n_dof, 1) * sizeof (double));
  self->drag_n_dof = n_dof;
  g_array_set_size (self->latencies, 0);
  km_document_set_selected_joint (self->document, self->drag_joint);
  /* The view holds still while the user works in it. */
  self->camera_moved = TRUE;
  /* Nothing before the drag merges into its undo step: answers still due from the drag
   * before (released before they came) are dropped, not taken into this one. */
  if (self->close_edit_pending)
    km_drag_solver_cancel (self->solver);
  self->close_edit_pending = FALSE;
  km_document_close_edit (self->document);
  /* The whole drag is one undo step, however long the pointer rests between moves or the
   * answers take: the document's pause does not end it; end_drag_edit() does. */
  km_document_hold_edit (self->document, self);
  g_set_weak_pointer (&self->held_document, self->document);
}

/* Ends the drag's undo step (begin_manipulation()). */
static void
end_drag_edit (KmSceneView *self)
{
  KmDocument *document = self->held_document;

  self->close_edit_pending = FALSE;
  g_clear_weak_pointer (&self->held_document);
  if (document != NULL)
    km_document_release_edit (document, self);
}

static void
update_fk (KmSceneView *self,
           double       x,
           double       y)
{
  KmSkeleton *skeleton = km_document_get_skeleton (self->document);
  const KmJoint *j = km_skeleton_get_joint (skeleton, self->drag_joint);
  int width = gtk_widget_get_width (GTK_WIDGET (self));
  int height = gtk_widget_get_height (GTK_WIDGET (self));
  const double *q0 = self->drag_pose_start;
  double cx, cy;

  if (j->type == KM_JOINT_REVOLUTE)
    {
      /* The pointer's turn about the joint's image; its sign follows the axis' facing. */
      KmVec3 axis = km_mat3_mul_vec3 (&self->drag_tip_start.rot, j->axis);
      double a0, a1, d, facing;

      if (!km_camera_project (&self->camera, self->drag_tip_start.pos, width, height, &cx, &cy))
        return;
      a0 = atan2 (self->drag_y - cy, self->drag_x - cx);
      a1 = atan2 (y - cy, x - cx);
      d = remainder (a1 - a0, 2 * G_PI);
      facing = km_vec3_dot (axis, toward_eye (self, self->drag_tip_start.pos));
      /* Screen y points down, so a counter-clockwise turn on screen is a negative angle. */
      km_document_set_dof_value (self->document, j->dof_index,
                                 q0[j->dof_index] + (facing >= 0 ? -d : d));
    }
  else if (j->type == KM_JOINT_PRISMATIC)
    {
      KmVec3 axis = km_mat3_mul_vec3 (&self->drag_tip_start.rot, j->axis);
      KmVec3 o0, d0, o1, d1;

      view_ray (self, self->drag_x, self->drag_y, &o0, &d0);
      view_ray (self, x, y, &o1, &d1);
      km_document_set_dof_value (self->document, j->dof_index,
                                 q0[j->dof_index]
                                 + km_ray_line_param (o1, d1, self->drag_tip_start.pos, axis)
                                 - km_ray_line_param (o0, d0, self->drag_tip_start.pos, axis));
    }
  else if (j->type == KM_JOINT_SPHERICAL)
    {
      guint n_dof = 0;
      const double *pose = km_document_get_pose (self->document, &n_dof);
      /* Not in one expression: the arguments' order of evaluation is unspecified. */
      g_autofree double *q = g_memdup2 (pose, MAX (n_dof, 1) * sizeof (double));

      q[j->dof_index] = q0[j->dof_index] + (y - self->drag_y) * FK_SPHERICAL_SPEED;
      q[j->dof_index + 2] = q0[j->dof_index + 2] + (x - self->drag_x) * FK_SPHERICAL_SPEED;
      km_document_set_joint_values (self->document, q, n_dof);
    }
}

/* Previews the dragged joint's offset moved along the handle's world axis. */
static void
update_offset (KmSceneView *self,
               double       x,
               double       y)
{
  KmSkeleton *skeleton = km_document_get_skeleton (self->document);
  const KmTransform *world = km_document_get_joint_world (self->document, NULL);
  KmVec3 axis = km_gizmo_axis (self->drag_handle), origin, dir, moved, offset;
  g_autoptr(GError) error = NULL;
  KmTransform root_pose;
  const KmJoint *j;
  KmSkeleton *edited;
  double s;

  /* The skeleton changed under the drag (an undo from the keyboard): nothing to move. */
  if (skeleton == NULL || (guint) self->drag_joint >= km_skeleton_get_n_joints (skeleton))
    {
      g_clear_pointer (&self->offset_preview, km_skeleton_unref);
      return;
    }
  j = km_skeleton_get_joint (skeleton, (guint) self->drag_joint);
  view_ray (self, x, y, &origin, &dir);
  s = km_ray_line_param (origin, dir, self->drag_tip_start.pos, axis);
  if (!isfinite (s))
    return;
  moved = km_vec3_scale (axis, s - self->drag_hit_start.x);
  /* The offset is in the parent joint's frame. */
  if (j->parent >= 0)
    moved = km_mat3_transpose_mul_vec3 (&world[j->parent].rot, moved);
  offset = km_vec3_add (self->drag_offset_start, moved);
  edited = km_skeleton_edit_set_offset (skeleton, (guint) self->drag_joint, offset, &error);
  if (edited == NULL)
    {
      g_debug ("offset not previewed: %s", error->message);
      return;
    }
  g_clear_pointer (&self->offset_preview, km_skeleton_unref);
  self->offset_preview = edited;
  g_free (self->offset_world);
  self->offset_world = g_new (KmTransform, km_skeleton_get_n_joints (edited));
  km_document_get_root_pose (self->document, &root_pose);
  km_skeleton_forward_kinematics (edited, km_document_get_pose (self->document, NULL),
                                  &root_pose, self->offset_world);
  gtk_gl_area_queue_render (GTK_GL_AREA (self));
}

/* Applies the previewed offset as one skeleton edit. */
static void
finish_offset (KmSceneView *self)
{
  g_autoptr(KmSkeleton) edited = g_steal_pointer (&self->offset_preview);

  g_clear_pointer (&self->offset_world, g_free);
  if (edited != NULL)
    km_document_edit_skeleton (self->document, edited, _("Move Joint"), NULL);
}

static void
update_manipulation (KmSceneView *self,
                     double       x,
                     double       y)
{
  KmTransform target = self->drag_tip_start;
  KmVec3 origin, dir, hit;

  view_ray (self, x, y, &origin, &dir);
  switch (self->drag_mode)
    {
    case DRAG_IK_PLANE:
      if (!km_ray_plane (origin, dir, self->drag_tip_start.pos, self->drag_plane_normal, &hit))
        return;
      target.pos = km_vec3_add (self->drag_tip_start.pos,
                                km_vec3_sub (hit, self->drag_hit_start));
      break;
    case DRAG_IK_AXIS:
      {
        KmVec3 axis = km_gizmo_axis (self->drag_handle);
        double s = km_ray_line_param (origin, dir, self->drag_tip_start.pos, axis);

        target.pos = km_vec3_add (self->drag_tip_start.pos,
                                  km_vec3_scale (axis, s - self->drag_hit_start.x));
      }
      break;
    case DRAG_IK_ROTATE:
      {
        KmVec3 axis = self->drag_plane_normal, c = self->drag_tip_start.pos, u, v;
        KmMat3 turn;
        double angle;

        if (!km_ray_plane (origin, dir, c, axis, &hit))
          return;
        u = km_vec3_sub (self->drag_hit_start, c);
        v = km_vec3_sub (hit, c);
        angle = atan2 (km_vec3_dot (km_vec3_cross (u, v), axis), km_vec3_dot (u, v));
        km_mat3_from_axis_angle (axis, angle, &turn);
        km_mat3_mul (&turn, &self->drag_tip_start.rot, &target.rot);
      }
      break;
    case DRAG_FK:
      update_fk (self, x, y);
      return;
    case DRAG_OFFSET:
      update_offset (self, x, y);
      return;
    case DRAG_NONE:
    case DRAG_ORBIT:
    case DRAG_PAN:
    default:
      return;
    }
  request_ik (self, &target);
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
  self->drag_x = x;
  self->drag_y = y;
  self->drag_mode = DRAG_NONE;
  self->drag_moved = FALSE;

  if (self->edit_mode && button == GDK_BUTTON_PRIMARY && shown_skeleton (self) != NULL
      && (state & GDK_SHIFT_MASK) == 0)
    begin_manipulation (self, x, y, (state & GDK_CONTROL_MASK) != 0);

  if (self->drag_mode == DRAG_NONE)
    self->drag_mode = button == GDK_BUTTON_MIDDLE || (state & GDK_SHIFT_MASK) != 0 ? DRAG_PAN
                                                                                    : DRAG_ORBIT;
}

static void
drag_update_cb (KmSceneView    *self,
                double          dx,
                double          dy,
                GtkGestureDrag *gesture)
{
  if (hypot (dx, dy) > CLICK_SLOP)
    self->drag_moved = TRUE;
  if (self->drag_mode == DRAG_ORBIT || self->drag_mode == DRAG_PAN)
    {
      self->camera = self->drag_start;
      self->camera_moved = TRUE;
      if (self->drag_mode == DRAG_PAN)
        km_camera_pan (&self->camera, dx, dy, gtk_widget_get_width (GTK_WIDGET (self)),
                       gtk_widget_get_height (GTK_WIDGET (self)));
      else
        km_camera_orbit (&self->camera, -dx * ORBIT_SPEED, dy * ORBIT_SPEED);
      notify_camera (self);
      return;
    }
  if (self->document != NULL && self->drag_pose_start != NULL)
    update_manipulation (self, self->drag_x + dx, self->drag_y + dy);
}

static void
drag_end_cb (KmSceneView    *self,
             double          dx,
             double          dy,
             GtkGestureDrag *gesture)
{
  DragMode mode = self->drag_mode;

  if (mode != DRAG_ORBIT && mode != DRAG_PAN && mode != DRAG_NONE
      && self->document != NULL && self->drag_pose_start != NULL)
    {
      update_manipulation (self, self->drag_x + dx, self->drag_y + dy);
      if (mode == DRAG_OFFSET)
        finish_offset (self);
      /* The whole drag is one undo step: close it once the last answer is on the body. */
      if (km_drag_solver_get_busy (self->solver))
        self->close_edit_pending = TRUE;
      else
        end_drag_edit (self);
    }
  self->drag_mode = DRAG_NONE;
  gtk_gl_area_queue_render (GTK_GL_AREA (self));
}

static void
solver_busy_changed_cb (KmSceneView *self)
{
  if (self->close_edit_pending && !km_drag_solver_get_busy (self->solver))
    end_drag_edit (self);
}

static void
motion_cb (KmSceneView              *self,
           double                    x,
           double                    y,
           GtkEventControllerMotion *controller)
{
  if (self->drag_mode == DRAG_NONE)
    update_hover (self, x, y);
}

static void
leave_cb (KmSceneView *self)
{
  if (self->drag_mode == DRAG_NONE)
    set_hover (self, -1, FALSE, KM_GIZMO_NONE);
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

/* Picking: the first joint sphere or bone that the ray through the pixel meets. */
static void
click_released_cb (KmSceneView     *self,
                   int              n_press,
                   double           x,
                   double           y,
                   GtkGestureClick *gesture)
{
  if (shown_skeleton (self) == NULL)
    return;

  /* A press that became a drag (orbit, manipulation) or hit a gizmo handle selects
   * nothing: the selection stays with what was dragged. */
  if (self->drag_moved || pick_gizmo (self, x, y) != KM_GIZMO_NONE)
    return;
  km_document_set_selected_joint (self->document, pick_joint (self, x, y));
}

static void
reset_camera_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *parameter)
{
  km_scene_view_reset_camera (KM_SCENE_VIEW (widget));
}

static void
view_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  KmSceneView *self = KM_SCENE_VIEW (widget);

  if (g_str_equal (action_name, "scene.view-front"))
    km_camera_set_view (&self->camera, KM_CAMERA_VIEW_FRONT);
  else if (g_str_equal (action_name, "scene.view-side"))
    km_camera_set_view (&self->camera, KM_CAMERA_VIEW_RIGHT);
  else
    km_camera_set_view (&self->camera, KM_CAMERA_VIEW_TOP);
  self->camera_moved = TRUE;
  notify_camera (self);
}

static void
frame_action (GtkWidget  *widget,
              const char *action_name,
              GVariant   *parameter)
{
  KmSceneView *self = KM_SCENE_VIEW (widget);
  int joint = -1;

  if (g_str_equal (action_name, "scene.frame-selection") && self->document != NULL)
    joint = km_document_get_selected_joint (self->document);
  km_scene_view_frame (self, joint);
}

static void
km_scene_view_dispose (GObject *object)
{
  KmSceneView *self = (KmSceneView *) object;

  if (self->solver != NULL)
    km_drag_solver_cancel (self->solver);
  g_clear_object (&self->solver);
  end_drag_edit (self);
  if (self->watched != NULL)
    unwatch_project (self);
  if (self->document_signals != NULL)
    g_signal_group_set_target (self->document_signals, NULL);
  g_clear_object (&self->document_signals);
  g_clear_object (&self->document);

  G_OBJECT_CLASS (km_scene_view_parent_class)->dispose (object);
}

static void
km_scene_view_finalize (GObject *object)
{
  KmSceneView *self = (KmSceneView *) object;

  g_clear_pointer (&self->latencies, g_array_unref);
  g_clear_pointer (&self->drag_pose_start, g_free);
  g_clear_pointer (&self->drag_pose_shown, g_free);
  g_clear_pointer (&self->offset_preview, km_skeleton_unref);
  g_clear_pointer (&self->offset_world, g_free);
  g_clear_weak_pointer (&self->framed_body);
  g_clear_weak_pointer (&self->framed_project);
  g_clear_pointer (&self->framed_skeleton, km_skeleton_unref);
  g_clear_pointer (&self->framed_targets, km_target_track_unref);
  g_clear_pointer (&self->watched, g_ptr_array_unref);
  g_clear_pointer (&self->bodies, g_array_unref);
  g_clear_pointer (&self->body_worlds, g_ptr_array_unref);

  G_OBJECT_CLASS (km_scene_view_parent_class)->finalize (object);
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
    case PROP_EDIT_MODE:
      g_value_set_boolean (value, self->edit_mode);
      break;
    case PROP_HOVER_JOINT:
      g_value_set_int (value, self->hover_joint);
      break;
    case PROP_IK_TIP:
      g_value_set_int (value, self->ik_tip);
      break;
    case PROP_N_RENDERS:
      g_value_set_uint (value, self->n_renders);
      break;
    case PROP_ORTHOGRAPHIC:
      g_value_set_boolean (value, self->camera.orthographic);
      break;
    case PROP_SHOW_JOINT_AXES:
      g_value_set_boolean (value, self->show_joint_axes);
      break;
    case PROP_EXPORT_LOOK:
      g_value_set_boolean (value, self->export_look);
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
    case PROP_EDIT_MODE:
      km_scene_view_set_edit_mode (self, g_value_get_boolean (value));
      break;
    case PROP_IK_TIP:
      km_scene_view_set_ik_tip (self, g_value_get_int (value));
      break;
    case PROP_ORTHOGRAPHIC:
      km_scene_view_set_orthographic (self, g_value_get_boolean (value));
      break;
    case PROP_SHOW_JOINT_AXES:
      km_scene_view_set_show_joint_axes (self, g_value_get_boolean (value));
      break;
    case PROP_EXPORT_LOOK:
      if (self->export_look != g_value_get_boolean (value))
        {
          self->export_look = g_value_get_boolean (value);
          gtk_gl_area_queue_render (GTK_GL_AREA (self));
          g_object_notify_by_pspec (object, pspec);
        }
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static const struct
{
  guint       key;
  const char *action;
} view_keys[] = {
  { GDK_KEY_1, "scene.view-front" },
  { GDK_KEY_KP_1, "scene.view-front" },
  { GDK_KEY_3, "scene.view-side" },
  { GDK_KEY_KP_3, "scene.view-side" },
  { GDK_KEY_7, "scene.view-top" },
  { GDK_KEY_KP_7, "scene.view-top" },
  { GDK_KEY_5, "scene.toggle-ortho" },
  { GDK_KEY_KP_5, "scene.toggle-ortho" },
  { GDK_KEY_o, "scene.toggle-ortho" },
  { GDK_KEY_f, "scene.frame-selection" },
  { GDK_KEY_KP_Decimal, "scene.frame-selection" },
  { GDK_KEY_a, "scene.frame-all" },
};

static gboolean
view_key_cb (GtkWidget *root,
             GVariant  *args,
             gpointer   user_data)
{
  KmSceneView *self = KM_SCENE_VIEW (user_data);

  if (!gtk_widget_get_mapped (GTK_WIDGET (self))
      || km_root_key_is_for_focus (self->root_keys, root))
    return FALSE;
  return gtk_widget_activate_action (GTK_WIDGET (self), g_variant_get_string (args, NULL),
                                     NULL);
}

/*
 * The view keys work wherever the keyboard focus is in the window (the item tree has it at
 * start-up), as the time bar's keys and Esc do, except in text and popovers: a digit typed
 * into a number field is text. (The item tree's list has no type-ahead that would take
 * them.) GTK 4.8 ignores global and managed shortcut scopes on a descendant, so the view
 * puts a controller on its root, in the capture phase (before the focused widget, the view
 * itself included: one action per press), and takes it away again when it leaves.
 */
static void
km_scene_view_root (GtkWidget *widget)
{
  KmSceneView *self = KM_SCENE_VIEW (widget);
  GtkWidget *root;

  GTK_WIDGET_CLASS (km_scene_view_parent_class)->root (widget);

  root = GTK_WIDGET (gtk_widget_get_root (widget));
  self->root_keys = gtk_shortcut_controller_new ();
  gtk_event_controller_set_name (self->root_keys, "km-scene-view-keys");
  gtk_event_controller_set_propagation_phase (self->root_keys, GTK_PHASE_CAPTURE);
  for (guint i = 0; i < G_N_ELEMENTS (view_keys); i++)
    {
      GtkShortcut *shortcut = gtk_shortcut_new (gtk_keyval_trigger_new (view_keys[i].key, 0),
                                                gtk_callback_action_new (view_key_cb, self,
                                                                         NULL));

      gtk_shortcut_set_arguments (shortcut, g_variant_new_string (view_keys[i].action));
      gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (self->root_keys), shortcut);
    }
  gtk_widget_add_controller (root, self->root_keys);
}

static void
km_scene_view_unroot (GtkWidget *widget)
{
  KmSceneView *self = KM_SCENE_VIEW (widget);

  if (self->root_keys != NULL)
    gtk_widget_remove_controller (GTK_WIDGET (gtk_widget_get_root (widget)), self->root_keys);
  self->root_keys = NULL;

  GTK_WIDGET_CLASS (km_scene_view_parent_class)->unroot (widget);
}

/* The framing depends on the view's shape (frame_box): a model just framed by itself
 * (opened before the window had its size) is framed again at the view's size until it is
 * drawn. Once shown, the camera stays: a relayout (a bar shown, a pane dragged) does not
 * move it, nor does a resize, any more than an edit does. */
static void
km_scene_view_size_allocate (GtkWidget *widget,
                             int        width,
                             int        height,
                             int        baseline)
{
  KmSceneView *self = KM_SCENE_VIEW (widget);

  GTK_WIDGET_CLASS (km_scene_view_parent_class)->size_allocate (widget, width, height, baseline);
  if (!self->camera_moved && self->has_auto_box && self->n_renders == self->auto_renders)
    {
      gboolean orthographic = self->camera.orthographic;

      km_camera_reset (&self->camera);
      self->camera.orthographic = orthographic;
      frame_box (self, &self->auto_box, MIN_SCENE_EXTENT);
      notify_camera (self);
    }
}

static void
km_scene_view_class_init (KmSceneViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkGLAreaClass *area_class = GTK_GL_AREA_CLASS (klass);

  object_class->dispose = km_scene_view_dispose;
  object_class->finalize = km_scene_view_finalize;
  object_class->get_property = km_scene_view_get_property;
  object_class->set_property = km_scene_view_set_property;

  widget_class->realize = km_scene_view_realize;
  widget_class->unrealize = km_scene_view_unrealize;
  widget_class->size_allocate = km_scene_view_size_allocate;
  widget_class->root = km_scene_view_root;
  widget_class->unroot = km_scene_view_unroot;

  area_class->render = km_scene_view_render;
  area_class->create_context = km_scene_view_create_context;

  properties[PROP_CAMERA] =
    g_param_spec_boxed ("camera", NULL, NULL, KM_TYPE_CAMERA,
                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_DOCUMENT] =
    g_param_spec_object ("document", NULL, NULL, KM_TYPE_DOCUMENT,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_EDIT_MODE] =
    g_param_spec_boolean ("edit-mode", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* The joint a click in edit mode would pick, or -1. */
  properties[PROP_HOVER_JOINT] =
    g_param_spec_int ("hover-joint", NULL, NULL, -1, G_MAXINT, -1,
                      G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* The joint that IK drags move, or -1 for the document's end effector. */
  properties[PROP_IK_TIP] =
    g_param_spec_int ("ik-tip", NULL, NULL, -1, G_MAXINT, -1,
                      G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* Frames drawn so far; tests and the screenshot script wait on it. */
  properties[PROP_N_RENDERS] =
    g_param_spec_uint ("n-renders", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_ORTHOGRAPHIC] =
    g_param_spec_boolean ("orthographic", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SHOW_JOINT_AXES] =
    g_param_spec_boolean ("show-joint-axes", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* Drawn as view mode draws it, whatever the mode: no gizmo, no hover highlight. The
   * window sets it while it takes the image that File → Export Image writes
   * (km_window_export_image_async), so that the image is the scene, not the tools. */
  properties[PROP_EXPORT_LOOK] =
    g_param_spec_boolean ("export-look", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_install_action (widget_class, "scene.reset-camera", NULL, reset_camera_action);
  gtk_widget_class_install_property_action (widget_class, "scene.show-joint-axes",
                                            "show-joint-axes");
  gtk_widget_class_install_property_action (widget_class, "scene.toggle-edit-mode", "edit-mode");
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0,
                                       "scene.toggle-edit-mode", NULL);

  /* Blender's numpad keys, on either row; the time bar and the window keep their keys.
   * km_scene_view_root() takes them first, wherever the focus is in the window. */
  gtk_widget_class_install_action (widget_class, "scene.view-front", NULL, view_action);
  gtk_widget_class_install_action (widget_class, "scene.view-side", NULL, view_action);
  gtk_widget_class_install_action (widget_class, "scene.view-top", NULL, view_action);
  gtk_widget_class_install_property_action (widget_class, "scene.toggle-ortho", "orthographic");
  gtk_widget_class_install_action (widget_class, "scene.frame-selection", NULL, frame_action);
  gtk_widget_class_install_action (widget_class, "scene.frame-all", NULL, frame_action);
  for (guint i = 0; i < G_N_ELEMENTS (view_keys); i++)
    gtk_widget_class_add_binding_action (widget_class, view_keys[i].key, 0,
                                         view_keys[i].action, NULL);

  gtk_widget_class_set_css_name (widget_class, "sceneview");
}

static void
km_scene_view_init (KmSceneView *self)
{
  GtkGesture *gesture;
  GtkEventController *controller;

  km_camera_reset (&self->camera);
  self->grid_scale = 1.0;
  self->ik_tip = -1;
  self->hover_joint = -1;
  self->latencies = g_array_new (FALSE, FALSE, sizeof (gint64));
  self->watched = g_ptr_array_new_with_free_func (g_object_unref);
  self->bodies = g_array_new (FALSE, FALSE, sizeof (KmRenderBody));
  self->body_worlds = g_ptr_array_new_with_free_func (g_free);
  self->solver = km_drag_solver_new ();
  g_signal_connect_object (self->solver, "solved", G_CALLBACK (solver_solved_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->solver, "notify::busy", G_CALLBACK (solver_busy_changed_cb),
                           self, G_CONNECT_SWAPPED);

  gtk_gl_area_set_has_depth_buffer (GTK_GL_AREA (self), TRUE);
  gtk_gl_area_set_required_version (GTK_GL_AREA (self), 3, 3);
  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
  gtk_widget_set_hexpand (GTK_WIDGET (self), TRUE);
  gtk_widget_set_vexpand (GTK_WIDGET (self), TRUE);

  gesture = gtk_gesture_drag_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (gesture), 0);
  g_signal_connect_swapped (gesture, "drag-begin", G_CALLBACK (drag_begin_cb), self);
  g_signal_connect_swapped (gesture, "drag-update", G_CALLBACK (drag_update_cb), self);
  g_signal_connect_swapped (gesture, "drag-end", G_CALLBACK (drag_end_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));

  gesture = gtk_gesture_click_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (gesture), GDK_BUTTON_PRIMARY);
  g_signal_connect_swapped (gesture, "released", G_CALLBACK (click_released_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));

  controller = gtk_event_controller_motion_new ();
  g_signal_connect_swapped (controller, "motion", G_CALLBACK (motion_cb), self);
  g_signal_connect_swapped (controller, "leave", G_CALLBACK (leave_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);

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
  g_signal_group_connect_swapped (self->document_signals, "notify::targets",
                                  G_CALLBACK (document_targets_changed_cb), self);
  g_signal_group_connect_swapped (self->document_signals, "notify::selected-joint",
                                  G_CALLBACK (document_changed_cb), self);
  g_signal_group_connect_swapped (self->document_signals, "notify::project",
                                  G_CALLBACK (tree_changed_cb), self);
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

  /* A drag's answers are for the document it began on. */
  if (self->solver != NULL)
    km_drag_solver_cancel (self->solver);
  end_drag_edit (self);
  g_signal_group_set_target (self->document_signals, document);
  watch_project (self);
  reframe (self);
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
  gboolean ortho_changed;

  g_return_if_fail (KM_IS_SCENE_VIEW (self));

  if (camera == NULL)
    {
      km_scene_view_reset_camera (self);
      return;
    }
  ortho_changed = self->camera.orthographic != camera->orthographic;
  self->camera = *camera;
  self->camera.orthographic = !!camera->orthographic;
  self->camera_moved = TRUE;
  self->motion_pending = FALSE;
  if (self->document != NULL)
    g_set_weak_pointer (&self->framed_body, km_document_get_body_item (self->document));
  notify_camera (self);
  if (ortho_changed)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ORTHOGRAPHIC]);
}

/* The default three-quarter view framing the scene, in the projection the user chose for
 * this project (another project starts in perspective; the camera it saved, if any, comes
 * after: km_layout_state_restore): what the view shows by itself when a model is first
 * shown (a file opened, a new body; and once more when its first motion comes), and on
 * Reset Camera. */
static void
reframe (KmSceneView *self)
{
  KmProject *project = self->document != NULL ? km_document_get_project (self->document)
                                              : NULL;
  gboolean was_orthographic = self->camera.orthographic;
  gboolean orthographic = was_orthographic && project == self->framed_project;
  KmSkeleton *skeleton = self->document != NULL ? km_document_get_skeleton (self->document)
                                                : NULL;
  KmTargetTrack *targets = skeleton != NULL ? km_document_get_targets (self->document) : NULL;

  g_set_weak_pointer (&self->framed_project, project);
  km_camera_reset (&self->camera);
  self->camera.orthographic = orthographic;
  self->has_auto_box = FALSE;
  /* Frame what frame-all frames (shapes included): an imported model's feet and head
   * reach well beyond its joints. */
  if (skeleton != NULL && scene_bounds (self, -1, &self->auto_box))
    {
      frame_box (self, &self->auto_box, MIN_SCENE_EXTENT);
      self->has_auto_box = TRUE;
      self->auto_renders = self->n_renders;
    }
  self->camera_moved = FALSE;
  /* Its motion is still to come (or never will: then a key's solve is an edit). */
  self->motion_pending = skeleton != NULL && km_document_get_animation (self->document) == NULL;
  g_clear_pointer (&self->framed_skeleton, km_skeleton_unref);
  g_clear_pointer (&self->framed_targets, km_target_track_unref);
  if (skeleton != NULL)
    self->framed_skeleton = km_skeleton_ref (skeleton);
  if (targets != NULL)
    self->framed_targets = km_target_track_ref (targets);
  if (self->document != NULL)
    g_set_weak_pointer (&self->framed_body, km_document_get_body_item (self->document));
  notify_camera (self);
  if (orthographic != was_orthographic)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ORTHOGRAPHIC]);
}

/**
 * km_scene_view_reset_camera:
 *
 * The default view (the scene.reset-camera action, Ctrl+0): perspective, from the front
 * right and slightly above, framing the body at its current pose and the targets' path.
 */
void
km_scene_view_reset_camera (KmSceneView *self)
{
  gboolean was_orthographic;

  g_return_if_fail (KM_IS_SCENE_VIEW (self));

  was_orthographic = self->camera.orthographic;
  self->camera.orthographic = FALSE;
  reframe (self);
  /* (reframe saw a perspective camera: it did not notify) */
  if (was_orthographic)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ORTHOGRAPHIC]);
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
 * Renders the view as it is on screen into a texture (File → Export image, tests): the
 * scene the GL area draws, without the focus ring its style draws about it
 * (resources/style.css); with #KmSceneView:export-look, as view mode draws it.
 *
 * Returns: (transfer full) (nullable): the image, or %NULL when the view is not shown
 */
GdkTexture *
km_scene_view_grab_texture (KmSceneView *self)
{
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

  /* GtkGLArea's own snapshot: the scene, not the widget's CSS outline (a focus ring). */
  snapshot = gtk_snapshot_new ();
  GTK_WIDGET_CLASS (km_scene_view_parent_class)->snapshot (GTK_WIDGET (self), snapshot);
  node = gtk_snapshot_free_to_node (snapshot);
  if (node == NULL)
    return NULL;

  renderer = gtk_native_get_renderer (native);
  return gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, width, height));
}

gboolean
km_scene_view_get_edit_mode (KmSceneView *self)
{
  g_return_val_if_fail (KM_IS_SCENE_VIEW (self), FALSE);

  return self->edit_mode;
}

void
km_scene_view_set_edit_mode (KmSceneView *self,
                             gboolean     edit_mode)
{
  g_return_if_fail (KM_IS_SCENE_VIEW (self));

  edit_mode = !!edit_mode;
  if (self->edit_mode == edit_mode)
    return;

  self->edit_mode = edit_mode;
  if (!edit_mode)
    set_hover (self, -1, FALSE, KM_GIZMO_NONE);
  gtk_gl_area_queue_render (GTK_GL_AREA (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_EDIT_MODE]);
}

int
km_scene_view_get_ik_tip (KmSceneView *self)
{
  g_return_val_if_fail (KM_IS_SCENE_VIEW (self), -1);

  return self->ik_tip;
}

void
km_scene_view_set_ik_tip (KmSceneView *self,
                          int          joint)
{
  g_return_if_fail (KM_IS_SCENE_VIEW (self));

  joint = MAX (joint, -1);
  if (self->ik_tip == joint)
    return;

  self->ik_tip = joint;
  gtk_gl_area_queue_render (GTK_GL_AREA (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_IK_TIP]);
}

int
km_scene_view_get_hover_joint (KmSceneView *self)
{
  g_return_val_if_fail (KM_IS_SCENE_VIEW (self), -1);

  return self->hover_joint;
}

/**
 * km_scene_view_get_drag_solver:
 *
 * Returns: (transfer none): the worker that answers IK drags (tests wait on its `busy`)
 */
KmDragSolver *
km_scene_view_get_drag_solver (KmSceneView *self)
{
  g_return_val_if_fail (KM_IS_SCENE_VIEW (self), NULL);

  return self->solver;
}

/**
 * km_scene_view_get_drag_latencies:
 * @n: (out): how many
 *
 * Returns: (transfer none) (array length=n): for each IK answer applied during the last
 * drag, microseconds from the motion event's request to the pose on the document
 */
const gint64 *
km_scene_view_get_drag_latencies (KmSceneView *self,
                                  guint       *n)
{
  g_return_val_if_fail (KM_IS_SCENE_VIEW (self), NULL);
  g_return_val_if_fail (n != NULL, NULL);

  *n = self->latencies->len;
  return (const gint64 *) (gpointer) self->latencies->data;
}

gboolean
km_scene_view_get_orthographic (KmSceneView *self)
{
  g_return_val_if_fail (KM_IS_SCENE_VIEW (self), FALSE);

  return self->camera.orthographic;
}

void
km_scene_view_set_orthographic (KmSceneView *self,
                                gboolean     orthographic)
{
  g_return_if_fail (KM_IS_SCENE_VIEW (self));

  orthographic = !!orthographic;
  if (self->camera.orthographic == orthographic)
    return;

  self->camera.orthographic = orthographic;
  notify_camera (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ORTHOGRAPHIC]);
}

/**
 * km_scene_view_frame:
 * @joint: a joint of the edited body, or -1
 *
 * Keeps the viewing direction and fits the view to @joint and the joints below it, with
 * their shapes (scene.frame-selection); with -1, or when @joint is not a joint, to every
 * checked body, the edited one and its targets and motion (scene.frame-all).
 */
void
km_scene_view_frame (KmSceneView *self,
                     int          joint)
{
  SceneBox box;

  g_return_if_fail (KM_IS_SCENE_VIEW (self));

  if (!scene_bounds (self, joint, &box)
      && (joint < 0 || !scene_bounds (self, -1, &box)))
    return;
  frame_box (self, &box, joint < 0 ? MIN_SCENE_EXTENT : 0.0);
  self->camera_moved = TRUE;
  self->motion_pending = FALSE;
  notify_camera (self);
}

/**
 * km_scene_view_get_grid_scale:
 *
 * The floor grid's scale as the view draws it (KmRenderScene.grid_scale): 1 for lines
 * every 0.5 m, 0.1 or less for a model of centimetres. Set when the scene is framed, and
 * kept to the model's size as its bodies change (km_renderer_grid_scale_for()).
 *
 * Returns: the scale
 */
double
km_scene_view_get_grid_scale (KmSceneView *self)
{
  g_return_val_if_fail (KM_IS_SCENE_VIEW (self), 1.0);

  return self->grid_scale;
}

/**
 * km_scene_view_get_marker_radius:
 *
 * The radius of the edited body's joint markers for the model's size
 * (km_renderer_marker_radius() for the scene's model extent). The view draws and picks
 * them no smaller than a few pixels (km_renderer_view_marker_radius()).
 *
 * Returns: metres; 0 without a shown body
 */
double
km_scene_view_get_marker_radius (KmSceneView *self)
{
  KmSkeleton *skeleton;

  g_return_val_if_fail (KM_IS_SCENE_VIEW (self), 0.0);

  if ((skeleton = shown_skeleton (self)) == NULL)
    return 0.0;
  return km_renderer_marker_radius (skeleton, self->model_extent);
}
