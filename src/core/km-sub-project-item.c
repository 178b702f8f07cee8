/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-sub-project-item"

#include "config.h"

#include "km-sub-project-item.h"

struct _KmSubProjectItem
{
  KmItem parent_instance;
};

G_DEFINE_FINAL_TYPE (KmSubProjectItem, km_sub_project_item, KM_TYPE_ITEM)

static void
km_sub_project_item_class_init (KmSubProjectItemClass *klass)
{
  KmItemClass *item_class = KM_ITEM_CLASS (klass);

  item_class->plugin_name = "Base";
  item_class->class_name = "SubProjectItem";
}

static void
km_sub_project_item_init (KmSubProjectItem *self)
{
}

KmItem *
km_sub_project_item_new (void)
{
  return g_object_new (KM_TYPE_SUB_PROJECT_ITEM, NULL);
}

const char *
km_sub_project_item_get_file (KmSubProjectItem *self)
{
  static const char * const keys[] = { "file", "filename", NULL };
  KmYamlNode *file;

  g_return_val_if_fail (KM_IS_SUB_PROJECT_ITEM (self), NULL);

  file = km_yaml_mapping_lookup_any (km_item_get_data (KM_ITEM (self)), keys);
  return file != NULL ? km_yaml_node_get_scalar (file, NULL) : NULL;
}
