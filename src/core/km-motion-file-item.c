/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-motion-file-item"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "km-motion-file-item.h"
#include "km-animation-source.h"
#include "km-body-item.h"
#include "km-cnoid.h"

typedef struct
{
  /* Owned */
  char        *file;
  char        *format;
  KmAnimation *animation;     /* built for animation_skeleton */
  KmSkeleton  *animation_skeleton;
  KmTransform *root_poses;    /* one per animation frame, or NULL */
} KmMotionFileItemPrivate;

static void animation_source_iface_init (KmAnimationSourceInterface *iface);

G_DEFINE_ABSTRACT_TYPE_WITH_CODE (KmMotionFileItem, km_motion_file_item, KM_TYPE_ITEM,
                                  G_ADD_PRIVATE (KmMotionFileItem)
                                  G_IMPLEMENT_INTERFACE (KM_TYPE_ANIMATION_SOURCE,
                                                         animation_source_iface_init))

static const char * const file_keys[] = { "file", "filename", NULL };

static void
clear_animation (KmMotionFileItem *self)
{
  KmMotionFileItemPrivate *priv = km_motion_file_item_get_instance_private (self);

  g_clear_pointer (&priv->animation, km_animation_unref);
  g_clear_pointer (&priv->animation_skeleton, km_skeleton_unref);
  g_clear_pointer (&priv->root_poses, g_free);
}

static void
load_file (KmMotionFileItem *self,
           const KmYamlNode *file_node,
           KmItemIo         *io)
{
  KmMotionFileItemPrivate *priv = km_motion_file_item_get_instance_private (self);
  KmMotionFileItemClass *klass = KM_MOTION_FILE_ITEM_GET_CLASS (self);
  g_autoptr(GError) error = NULL;
  g_autofree char *unknown = NULL;
  g_autofree char *shown = NULL;
  g_autofree char *misfit = NULL;

  if (priv->format != NULL && (unknown = klass->check_format (self, priv->format)) != NULL)
    {
      km_item_io_problem (io, KM_ITEM (self), file_node, unknown);
      return;
    }
  /* Read under the path the user knows it by (DESIGN.md, "Error locations"). */
  shown = km_cnoid_item_file_path (io, KM_ITEM (self), priv->file, file_node);
  if (shown == NULL)
    return;
  if (!klass->load (self, shown, &error))
    {
      km_cnoid_report_file_error (io, KM_ITEM (self), file_node, error);
      return;
    }
  /* A project's item is restored in its place; a detached one (read again for a reload)
   * has no body yet, and is checked where it is put. */
  if (klass->check_fit != NULL && km_item_get_parent (KM_ITEM (self)) != NULL)
    misfit = klass->check_fit (self);
  if (misfit != NULL)
    km_item_io_warn (io, file_node, "%s", misfit);
}

static gboolean
km_motion_file_item_restore (KmItem           *item,
                             const KmYamlNode *data,
                             KmItemIo         *io,
                             GError          **error)
{
  KmMotionFileItem *self = KM_MOTION_FILE_ITEM (item);
  KmMotionFileItemPrivate *priv = km_motion_file_item_get_instance_private (self);
  KmYamlNode *file_node = NULL;

  if (!KM_ITEM_CLASS (km_motion_file_item_parent_class)->restore (item, data, io, error))
    return FALSE;
  if (data == NULL)
    return TRUE;
  if (!km_yaml_expect_mapping (data, error) ||
      !km_item_restore_file_ref (data, file_keys, &priv->file, &priv->format, &file_node,
                                 error))
    return FALSE;
  if (file_node != NULL)
    load_file (self, file_node, io);
  return TRUE;
}

static void
km_motion_file_item_finalize (GObject *object)
{
  KmMotionFileItem *self = KM_MOTION_FILE_ITEM (object);
  KmMotionFileItemPrivate *priv = km_motion_file_item_get_instance_private (self);

  clear_animation (self);
  g_clear_pointer (&priv->file, g_free);
  g_clear_pointer (&priv->format, g_free);

  G_OBJECT_CLASS (km_motion_file_item_parent_class)->finalize (object);
}

static KmAnimation *
source_get_animation (KmAnimationSource *source)
{
  return km_motion_file_item_get_animation (KM_MOTION_FILE_ITEM (source));
}

static gboolean
source_get_root_pose (KmAnimationSource *source,
                      guint              frame,
                      KmTransform       *pose)
{
  return km_motion_file_item_get_root_pose (KM_MOTION_FILE_ITEM (source), frame, pose);
}

static void
animation_source_iface_init (KmAnimationSourceInterface *iface)
{
  iface->get_animation = source_get_animation;
  iface->get_root_pose = source_get_root_pose;
}

/* KmItemClass.get_file */
static const char *
item_get_file (KmItem *item)
{
  return km_motion_file_item_get_file (KM_MOTION_FILE_ITEM (item));
}

static void
km_motion_file_item_class_init (KmMotionFileItemClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  KmItemClass *item_class = KM_ITEM_CLASS (klass);

  object_class->finalize = km_motion_file_item_finalize;
  item_class->restore = km_motion_file_item_restore;
  item_class->get_file = item_get_file;
  /* No store: the data is written back exactly as it was read. */
}

static void
km_motion_file_item_init (KmMotionFileItem *self)
{
}

const char *
km_motion_file_item_get_file (KmMotionFileItem *self)
{
  KmMotionFileItemPrivate *priv;

  g_return_val_if_fail (KM_IS_MOTION_FILE_ITEM (self), NULL);
  priv = km_motion_file_item_get_instance_private (self);
  return priv->file;
}

const char *
km_motion_file_item_get_format (KmMotionFileItem *self)
{
  KmMotionFileItemPrivate *priv;

  g_return_val_if_fail (KM_IS_MOTION_FILE_ITEM (self), NULL);
  priv = km_motion_file_item_get_instance_private (self);
  return priv->format;
}

KmItem *
km_motion_file_item_get_body (KmMotionFileItem *self)
{
  g_return_val_if_fail (KM_IS_MOTION_FILE_ITEM (self), NULL);

  return km_item_find_ancestor_by_type (KM_ITEM (self), KM_TYPE_BODY_ITEM);
}

KmSkeleton *
km_motion_file_item_get_body_skeleton (KmMotionFileItem *self)
{
  KmBodyItem *body;

  g_return_val_if_fail (KM_IS_MOTION_FILE_ITEM (self), NULL);

  body = (KmBodyItem *) km_motion_file_item_get_body (self);
  return body != NULL ? km_body_item_get_skeleton (body) : NULL;
}

/**
 * km_motion_file_item_get_animation:
 *
 * An animation is only good for the model it was built for: one built for a model the body
 * no longer has is dropped here, and the subclass's build_animation, if any, asked for a
 * new one.
 *
 * Returns: (transfer none) (nullable): the animation for the body's current model, or NULL
 */
KmAnimation *
km_motion_file_item_get_animation (KmMotionFileItem *self)
{
  KmMotionFileItemPrivate *priv;
  KmMotionFileItemClass *klass;
  KmSkeleton *skeleton;

  g_return_val_if_fail (KM_IS_MOTION_FILE_ITEM (self), NULL);
  priv = km_motion_file_item_get_instance_private (self);
  klass = KM_MOTION_FILE_ITEM_GET_CLASS (self);

  skeleton = km_motion_file_item_get_body_skeleton (self);
  if (priv->animation != NULL && priv->animation_skeleton != skeleton)
    clear_animation (self);
  if (priv->animation == NULL && skeleton != NULL && klass->build_animation != NULL)
    klass->build_animation (self, skeleton);
  return priv->animation;
}

gboolean
km_motion_file_item_get_root_pose (KmMotionFileItem *self,
                                   guint             frame,
                                   KmTransform      *pose)
{
  KmMotionFileItemPrivate *priv;

  g_return_val_if_fail (KM_IS_MOTION_FILE_ITEM (self), FALSE);
  g_return_val_if_fail (pose != NULL, FALSE);
  priv = km_motion_file_item_get_instance_private (self);

  if (km_motion_file_item_get_animation (self) == NULL || priv->root_poses == NULL ||
      frame >= km_animation_get_n_frames (priv->animation))
    return FALSE;
  *pose = priv->root_poses[frame];
  return TRUE;
}

/**
 * _km_motion_file_item_set_file:
 * @path: the file, as the project will name it
 * @format: (nullable): the format to write with it
 *
 * For a new item made for a file already read (File → Open of a bare motion file): its
 * data names @path, with the same keys Choreonoid writes, so a project saved with it
 * refers to the file.
 */
void
_km_motion_file_item_set_file (KmMotionFileItem *self,
                               const char       *path,
                               const char       *format)
{
  KmMotionFileItemPrivate *priv;
  g_autoptr(KmYamlNode) data = NULL;

  g_return_if_fail (KM_IS_MOTION_FILE_ITEM (self));
  g_return_if_fail (path != NULL);
  priv = km_motion_file_item_get_instance_private (self);

  g_free (priv->file);
  priv->file = g_strdup (path);
  g_free (priv->format);
  priv->format = g_strdup (format);
  data = km_yaml_node_new_mapping (KM_YAML_STYLE_BLOCK);
  km_item_store_file_ref (data, priv->file, priv->format);
  /* KmItem's restore only keeps the data: the file is not read again. */
  KM_ITEM_CLASS (km_motion_file_item_parent_class)->restore (KM_ITEM (self), data, NULL, NULL);
}

/**
 * _km_motion_file_item_set_animation:
 * @animation: (transfer full) (nullable): the animation, or NULL to drop the one there is
 * @skeleton: (nullable): the body model it was built for (a reference is taken)
 * @root_poses: (transfer full) (nullable): one root pose per frame of @animation, or NULL
 *   when it does not move the root
 *
 * Replaces the animation kept; km_motion_file_item_get_animation drops it again when the
 * body's model is no longer @skeleton.
 */
void
_km_motion_file_item_set_animation (KmMotionFileItem *self,
                                    KmAnimation      *animation,
                                    KmSkeleton       *skeleton,
                                    KmTransform      *root_poses)
{
  KmMotionFileItemPrivate *priv;

  g_return_if_fail (KM_IS_MOTION_FILE_ITEM (self));
  g_return_if_fail (animation == NULL || skeleton != NULL);
  g_return_if_fail (animation != NULL || root_poses == NULL);
  priv = km_motion_file_item_get_instance_private (self);

  clear_animation (self);
  priv->animation = animation;
  priv->root_poses = root_poses;
  if (animation != NULL)
    priv->animation_skeleton = km_skeleton_ref (skeleton);
}
