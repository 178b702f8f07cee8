/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-root-item"

#include "config.h"

#include "km-root-item.h"

struct _KmRootItem
{
  KmItem parent_instance;
};

G_DEFINE_FINAL_TYPE (KmRootItem, km_root_item, KM_TYPE_ITEM)

static void
km_root_item_class_init (KmRootItemClass *klass)
{
  KmItemClass *item_class = KM_ITEM_CLASS (klass);

  item_class->plugin_name = "Base";
  item_class->class_name = "RootItem";
}

static void
km_root_item_init (KmRootItem *self)
{
}

KmItem *
km_root_item_new (void)
{
  return g_object_new (KM_TYPE_ROOT_ITEM, NULL);
}
