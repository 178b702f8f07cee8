/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-folder-item"

#include "config.h"

#include "km-folder-item.h"

struct _KmFolderItem
{
  KmItem parent_instance;
};

G_DEFINE_FINAL_TYPE (KmFolderItem, km_folder_item, KM_TYPE_ITEM)

static void
km_folder_item_class_init (KmFolderItemClass *klass)
{
  KmItemClass *item_class = KM_ITEM_CLASS (klass);

  item_class->plugin_name = "Base";
  item_class->class_name = "FolderItem";
}

static void
km_folder_item_init (KmFolderItem *self)
{
}

KmItem *
km_folder_item_new (void)
{
  return g_object_new (KM_TYPE_FOLDER_ITEM, NULL);
}
