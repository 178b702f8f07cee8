/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-animation-source"

#include "config.h"

#include "km-animation-source.h"
#include "km-body-item.h"

G_DEFINE_INTERFACE (KmAnimationSource, km_animation_source, KM_TYPE_ITEM)

static void
km_animation_source_default_init (KmAnimationSourceInterface *iface)
{
}

/**
 * km_animation_source_get_animation:
 *
 * Returns: (transfer none) (nullable): the animation; treat it as read-only
 */
KmAnimation *
km_animation_source_get_animation (KmAnimationSource *self)
{
  KmAnimationSourceInterface *iface;

  g_return_val_if_fail (KM_IS_ANIMATION_SOURCE (self), NULL);

  iface = KM_ANIMATION_SOURCE_GET_IFACE (self);
  return iface->get_animation != NULL ? iface->get_animation (self) : NULL;
}

/**
 * km_animation_source_get_root_pose:
 * @pose: (out caller-allocates): the root's world pose at @frame
 *
 * Returns: whether the animation moves the root (then @pose is set)
 */
gboolean
km_animation_source_get_root_pose (KmAnimationSource *self,
                                   guint              frame,
                                   KmTransform       *pose)
{
  KmAnimationSourceInterface *iface;

  g_return_val_if_fail (KM_IS_ANIMATION_SOURCE (self), FALSE);
  g_return_val_if_fail (pose != NULL, FALSE);

  iface = KM_ANIMATION_SOURCE_GET_IFACE (self);
  return iface->get_root_pose != NULL && iface->get_root_pose (self, frame, pose);
}

static KmAnimationSource *
find_below (KmItem *item,
            guint   depth)
{
  /* The tree depth is bounded by the project reader; this guards built trees too. */
  if (depth > 256)
    return NULL;
  for (guint i = 0; i < km_item_get_n_children (item); i++)
    {
      KmItem *child = km_item_get_child (item, i);
      KmAnimationSource *found;

      if (KM_IS_BODY_ITEM (child))
        continue;
      if (KM_IS_ANIMATION_SOURCE (child) &&
          km_animation_source_get_animation (KM_ANIMATION_SOURCE (child)) != NULL)
        return KM_ANIMATION_SOURCE (child);
      if ((found = find_below (child, depth + 1)) != NULL)
        return found;
    }
  return NULL;
}

KmAnimationSource *
km_animation_source_find (KmItem *body)
{
  g_return_val_if_fail (KM_IS_ITEM (body), NULL);

  return find_below (body, 0);
}
