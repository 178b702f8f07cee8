/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-body-motion-item"

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "km-body-motion-item.h"
#include "km-animation-source.h"
#include "km-body-item.h"
#include "km-cnoid.h"

struct _KmBodyMotionItem
{
  KmItem        parent_instance;

  /* Owned */
  KmBodyMotion *motion;
  char         *file;
  char         *format;
  KmAnimation  *animation;      /* built for animation_skeleton at animation_rate */
  KmSkeleton   *animation_skeleton;
  KmTransform  *root_poses;     /* one per animation frame, NULL without link positions */

  double        frame_rate;     /* 0: the file's */
  double        animation_rate;
};

static void animation_source_iface_init (KmAnimationSourceInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (KmBodyMotionItem, km_body_motion_item, KM_TYPE_ITEM,
                               G_IMPLEMENT_INTERFACE (KM_TYPE_ANIMATION_SOURCE,
                                                      animation_source_iface_init))

static const char * const file_keys[] = { "file", "filename", NULL };

static void
clear_animation (KmBodyMotionItem *self)
{
  g_clear_pointer (&self->animation, km_animation_unref);
  g_clear_pointer (&self->animation_skeleton, km_skeleton_unref);
  g_clear_pointer (&self->root_poses, g_free);
}

static KmSkeleton *
body_skeleton (KmBodyMotionItem *self)
{
  KmBodyItem *body = (KmBodyItem *) km_body_motion_item_get_body (self);

  return body != NULL ? km_body_item_get_skeleton (body) : NULL;
}

/* Joint ids of the motion that no joint of @skeleton has: an id whose joint has no DOF
 * (fixed) is no surprise, one no joint has is. */
static guint
count_unmapped (KmBodyMotionItem *self,
                KmSkeleton       *skeleton)
{
  guint n_ids = km_body_motion_get_n_joints (self->motion);
  g_autofree gboolean *has_joint = g_new0 (gboolean, MAX (n_ids, 1));
  guint unmapped = 0;

  for (guint j = 0; j < km_skeleton_get_n_joints (skeleton); j++)
    {
      int id = km_skeleton_get_joint (skeleton, j)->joint_id;

      if (id >= 0 && (guint) id < n_ids)
        has_joint[id] = TRUE;
    }
  for (guint i = 0; i < n_ids; i++)
    unmapped += !has_joint[i];
  return unmapped;
}

/**
 * km_body_motion_item_check_fit:
 *
 * Whether the motion fits the item's body: there is a body above the item, and the body's
 * model has a joint for each of the motion's joint ids.
 *
 * Returns: (transfer full) (nullable): a warning naming the file when it does not, else
 *   NULL (also without a motion or a body model: those are reported on their own)
 */
char *
km_body_motion_item_check_fit (KmBodyMotionItem *self)
{
  KmItem *body;
  KmSkeleton *skeleton;
  guint n_ids, unmapped;

  g_return_val_if_fail (KM_IS_BODY_MOTION_ITEM (self), NULL);

  if (self->motion == NULL)
    return NULL;
  body = km_body_motion_item_get_body (self);
  if (body == NULL)
    return g_strdup_printf (_("%s: the body motion has no body item above it; it is kept, "
                              "not played"), self->file);
  skeleton = body_skeleton (self);
  if (skeleton == NULL)
    return NULL;   /* the body's own problem is reported */
  n_ids = km_body_motion_get_n_joints (self->motion);
  unmapped = count_unmapped (self, skeleton);
  if (unmapped == 0)
    return NULL;
  if (unmapped == n_ids)
    /* Translators: a path, the number of joint values per frame, then a body's name */
    return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                         "%s: the motion's %u joint value per frame has no "
                                         "joint in “%s” (joints match by Choreonoid joint "
                                         "id): no joint of the body moves",
                                         "%s: none of the motion's %u joint values per frame "
                                         "has a joint in “%s” (joints match by Choreonoid "
                                         "joint id): no joint of the body moves", n_ids),
                            self->file, n_ids, km_item_get_name (body));
  /* Translators: a path, the number of joint values per frame, then a body's name */
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                       "%s: %u joint value per frame has no joint in “%s”; it "
                                       "is ignored",
                                       "%s: %u joint values per frame have no joint in “%s”; "
                                       "they are ignored", unmapped),
                          self->file, unmapped, km_item_get_name (body));
}

/* Older projects wrote the format as `yaml`, or not at all. */
static gboolean
format_known (const char *format)
{
  return format == NULL || g_ascii_strcasecmp (format, KM_BODY_MOTION_FORMAT) == 0 ||
         g_ascii_strcasecmp (format, "yaml") == 0;
}

static void
load_file (KmBodyMotionItem *self,
           const KmYamlNode *file_node,
           KmItemIo         *io)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *shown = NULL;
  g_autofree char *misfit = NULL;

  if (!format_known (self->format))
    {
      /* Translators: the format named in the project, then the one Kinema reads */
      g_autofree char *message =
        g_strdup_printf (_("unknown body motion format “%s” (expected %s)"), self->format,
                         KM_BODY_MOTION_FORMAT);

      km_item_io_problem (io, KM_ITEM (self), file_node, message);
      return;
    }
  /* Read under the path the user knows it by (DESIGN.md, "Error locations"). */
  shown = km_cnoid_item_file_path (io, KM_ITEM (self), self->file, file_node);
  if (shown == NULL)
    return;
  self->motion = km_body_motion_load_file (shown, &error);
  if (self->motion == NULL)
    {
      km_cnoid_report_file_error (io, KM_ITEM (self), file_node, error);
      return;
    }
  /* A project's item is restored in its place; a detached one (read again for a reload)
   * has no body yet, and is checked where it is put. */
  if (km_item_get_parent (KM_ITEM (self)) != NULL)
    misfit = km_body_motion_item_check_fit (self);
  if (misfit != NULL)
    km_item_io_warn (io, file_node, "%s", misfit);
}

static gboolean
km_body_motion_item_restore (KmItem           *item,
                             const KmYamlNode *data,
                             KmItemIo         *io,
                             GError          **error)
{
  KmBodyMotionItem *self = KM_BODY_MOTION_ITEM (item);
  KmYamlNode *file_node = NULL;

  if (!KM_ITEM_CLASS (km_body_motion_item_parent_class)->restore (item, data, io, error))
    return FALSE;
  if (data == NULL)
    return TRUE;
  if (!km_yaml_expect_mapping (data, error) ||
      !km_item_restore_file_ref (data, file_keys, &self->file, &self->format, &file_node,
                                 error))
    return FALSE;
  if (file_node != NULL)
    load_file (self, file_node, io);
  return TRUE;
}

static void
km_body_motion_item_finalize (GObject *object)
{
  KmBodyMotionItem *self = KM_BODY_MOTION_ITEM (object);

  clear_animation (self);
  g_clear_pointer (&self->motion, km_body_motion_unref);
  g_clear_pointer (&self->file, g_free);
  g_clear_pointer (&self->format, g_free);

  G_OBJECT_CLASS (km_body_motion_item_parent_class)->finalize (object);
}

static KmAnimation *
source_get_animation (KmAnimationSource *source)
{
  return km_body_motion_item_get_animation (KM_BODY_MOTION_ITEM (source));
}

static gboolean
source_get_root_pose (KmAnimationSource *source,
                      guint              frame,
                      KmTransform       *pose)
{
  return km_body_motion_item_get_root_pose (KM_BODY_MOTION_ITEM (source), frame, pose);
}

static void
animation_source_iface_init (KmAnimationSourceInterface *iface)
{
  iface->get_animation = source_get_animation;
  iface->get_root_pose = source_get_root_pose;
}

static void
km_body_motion_item_class_init (KmBodyMotionItemClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  KmItemClass *item_class = KM_ITEM_CLASS (klass);

  object_class->finalize = km_body_motion_item_finalize;
  item_class->plugin_name = "Body";
  item_class->class_name = "BodyMotionItem";
  item_class->restore = km_body_motion_item_restore;
  /* No store: the data is written back exactly as it was read. */
}

static void
km_body_motion_item_init (KmBodyMotionItem *self)
{
}

KmItem *
km_body_motion_item_new_for_file (const char   *path,
                                  KmBodyMotion *motion)
{
  g_autoptr(KmYamlNode) data = NULL;
  KmBodyMotionItem *self;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (motion != NULL, NULL);

  self = g_object_new (KM_TYPE_BODY_MOTION_ITEM, NULL);
  self->file = g_strdup (path);
  self->format = g_strdup (KM_BODY_MOTION_FORMAT);
  self->motion = km_body_motion_ref (motion);
  /* The data a project writes back: the same keys Choreonoid writes. */
  data = km_yaml_node_new_mapping (KM_YAML_STYLE_BLOCK);
  km_item_store_file_ref (data, self->file, self->format);
  KM_ITEM_CLASS (km_body_motion_item_parent_class)->restore (KM_ITEM (self), data, NULL, NULL);
  return KM_ITEM (self);
}

const char *
km_body_motion_item_get_file (KmBodyMotionItem *self)
{
  g_return_val_if_fail (KM_IS_BODY_MOTION_ITEM (self), NULL);
  return self->file;
}

KmBodyMotion *
km_body_motion_item_get_motion (KmBodyMotionItem *self)
{
  g_return_val_if_fail (KM_IS_BODY_MOTION_ITEM (self), NULL);
  return self->motion;
}

KmItem *
km_body_motion_item_get_body (KmBodyMotionItem *self)
{
  g_return_val_if_fail (KM_IS_BODY_MOTION_ITEM (self), NULL);

  return km_item_find_ancestor_by_type (KM_ITEM (self), KM_TYPE_BODY_ITEM);
}

double
km_body_motion_item_get_frame_rate (KmBodyMotionItem *self)
{
  g_return_val_if_fail (KM_IS_BODY_MOTION_ITEM (self), 0);

  if (self->frame_rate > 0)
    return self->frame_rate;
  return self->motion != NULL ? km_body_motion_get_frame_rate (self->motion) : 0;
}

void
km_body_motion_item_set_frame_rate (KmBodyMotionItem *self,
                                    double            frame_rate)
{
  g_return_if_fail (KM_IS_BODY_MOTION_ITEM (self));
  g_return_if_fail (frame_rate >= 0 && isfinite (frame_rate));

  self->frame_rate = frame_rate;
}

/* The root pose that puts the root link (the skeleton's first joint) at @link, with the
 * joint values @q: the motion gives the link's pose, the skeleton's root pose is the
 * frame the link hangs from. */
static void
root_for_link (KmSkeleton        *skeleton,
               const double      *q,
               const KmTransform *link,
               KmTransform       *world,
               KmTransform       *root)
{
  KmTransform inverse;

  km_skeleton_forward_kinematics (skeleton, q, NULL, world);
  km_transform_inverse (&world[0], &inverse);
  km_transform_mul (link, &inverse, root);
}

/*
 * Samples the motion at @rate for @skeleton. Frame f of the animation is the motion at
 * time f / rate, linearly interpolated between the two nearest frames of the file (the
 * root link's rotation slerped), so a file at another frame rate plays at its own speed.
 */
static void
build (KmBodyMotionItem *self,
       KmSkeleton       *skeleton,
       double            rate)
{
  KmBodyItem *body = (KmBodyItem *) km_body_motion_item_get_body (self);
  KmBodyMotion *motion = self->motion;
  guint n_dof = km_skeleton_get_n_dof (skeleton), n_body = 0;
  guint n_ids = km_body_motion_get_n_joints (motion);
  gboolean has_root = km_body_motion_get_n_links (motion) > 0 &&
                      km_skeleton_get_n_joints (skeleton) > 0;
  const double *body_q = km_body_item_get_joint_state (body, &n_body);
  g_autofree double *initial = g_new0 (double, MAX (n_dof, 1));
  g_autofree double *q = g_new0 (double, MAX (n_dof, 1));
  g_autofree double *values = g_new0 (double, MAX (n_ids, 1));
  g_autofree int *dofs = km_skeleton_dofs_by_joint_id (skeleton, n_ids);
  g_autofree KmTransform *world = g_new (KmTransform, MAX (km_skeleton_get_n_joints (skeleton),
                                                           1));
  double duration = km_body_motion_get_duration (motion);
  double last = floor (duration * rate + 1e-6);
  guint n_frames = (guint) MIN (last, (double) KM_ANIMATION_MAX_FRAMES - 1) + 1;

  if (km_body_motion_get_n_frames (motion) == 0 || (n_ids == 0 && !has_root))
    return;
  if (body_q != NULL && n_body == n_dof)
    memcpy (initial, body_q, n_dof * sizeof *initial);
  else
    km_skeleton_clamp (skeleton, initial);

  self->animation = km_animation_new (skeleton, n_frames);
  km_animation_set_frame_rate (self->animation, rate);
  if (has_root)
    self->root_poses = g_new (KmTransform, n_frames);
  for (guint f = 0; f < n_frames; f++)
    {
      double t = f / rate;

      memcpy (q, initial, n_dof * sizeof *q);
      if (km_body_motion_sample_joints (motion, t, values))
        for (guint i = 0; i < n_ids; i++)
          if (dofs[i] >= 0)
            q[dofs[i]] = values[i];
      if (km_skeleton_has_mimic (skeleton))
        km_skeleton_apply_mimic (skeleton, q);
      km_animation_set_frame (self->animation, f, q);
      if (has_root)
        {
          KmTransform link;

          km_body_motion_sample_link (motion, t, 0, &link);
          root_for_link (skeleton, q, &link, world, &self->root_poses[f]);
        }
    }
  self->animation_skeleton = km_skeleton_ref (skeleton);
  self->animation_rate = rate;
}

/**
 * km_body_motion_item_get_animation:
 *
 * Returns: (transfer none) (nullable): the motion sampled for the body's current model at
 *   the current frame rate, or NULL
 */
KmAnimation *
km_body_motion_item_get_animation (KmBodyMotionItem *self)
{
  KmSkeleton *skeleton;
  double rate;

  g_return_val_if_fail (KM_IS_BODY_MOTION_ITEM (self), NULL);

  skeleton = body_skeleton (self);
  rate = km_body_motion_item_get_frame_rate (self);
  if (self->animation != NULL &&
      (self->animation_skeleton != skeleton || self->animation_rate != rate))
    clear_animation (self);
  if (self->animation == NULL && self->motion != NULL && skeleton != NULL && rate > 0)
    build (self, skeleton, rate);
  return self->animation;
}

gboolean
km_body_motion_item_get_root_pose (KmBodyMotionItem *self,
                                   guint             frame,
                                   KmTransform      *pose)
{
  g_return_val_if_fail (KM_IS_BODY_MOTION_ITEM (self), FALSE);
  g_return_val_if_fail (pose != NULL, FALSE);

  if (km_body_motion_item_get_animation (self) == NULL || self->root_poses == NULL ||
      frame >= km_animation_get_n_frames (self->animation))
    return FALSE;
  *pose = self->root_poses[frame];
  return TRUE;
}
