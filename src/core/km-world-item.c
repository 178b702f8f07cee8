/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-world-item"

#include "config.h"

#include "km-world-item.h"

struct _KmWorldItem
{
  KmItem parent_instance;
};

G_DEFINE_FINAL_TYPE (KmWorldItem, km_world_item, KM_TYPE_ITEM)

static void
km_world_item_class_init (KmWorldItemClass *klass)
{
  KmItemClass *item_class = KM_ITEM_CLASS (klass);

  item_class->plugin_name = "Body";
  item_class->class_name = "WorldItem";
}

static void
km_world_item_init (KmWorldItem *self)
{
}

KmItem *
km_world_item_new (void)
{
  return g_object_new (KM_TYPE_WORLD_ITEM, NULL);
}
