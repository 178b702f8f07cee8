/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-unknown-item"

#include "config.h"

#include "km-unknown-item.h"

struct _KmUnknownItem
{
  KmItem      parent_instance;

  /* Owned */
  KmYamlNode *node;

  gboolean    verbatim_children;
};

G_DEFINE_FINAL_TYPE (KmUnknownItem, km_unknown_item, KM_TYPE_ITEM)

static void
km_unknown_item_finalize (GObject *object)
{
  KmUnknownItem *self = KM_UNKNOWN_ITEM (object);

  g_clear_pointer (&self->node, km_yaml_node_unref);

  G_OBJECT_CLASS (km_unknown_item_parent_class)->finalize (object);
}

static void
km_unknown_item_class_init (KmUnknownItemClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = km_unknown_item_finalize;
}

static void
km_unknown_item_init (KmUnknownItem *self)
{
}

/**
 * km_unknown_item_new:
 * @node: (transfer none): the item's mapping in the project file
 *
 * The type names, name, id and check state are taken from @node.
 */
KmItem *
km_unknown_item_new (KmYamlNode *node,
                     gboolean    verbatim_children)
{
  KmUnknownItem *self;
  const char *plugin;
  const char *klass;
  const char *name;
  gboolean checked = FALSE;
  gint64 id;

  g_return_val_if_fail (node != NULL, NULL);

  self = g_object_new (KM_TYPE_UNKNOWN_ITEM, NULL);
  self->node = km_yaml_node_ref (node);
  self->verbatim_children = verbatim_children;

  plugin = km_yaml_node_get_scalar (km_yaml_mapping_lookup (node, "plugin") ?
                                    km_yaml_mapping_lookup (node, "plugin") : node, NULL);
  klass = km_yaml_node_get_scalar (km_yaml_mapping_lookup (node, "class") ?
                                   km_yaml_mapping_lookup (node, "class") : node, NULL);
  _km_item_set_type_names (KM_ITEM (self), plugin ? plugin : "", klass ? klass : "");
  name = km_yaml_node_get_scalar (km_yaml_mapping_lookup (node, "name") ?
                                  km_yaml_mapping_lookup (node, "name") : node, NULL);
  km_item_set_name (KM_ITEM (self), name);
  if (km_yaml_mapping_lookup (node, "id") != NULL &&
      km_yaml_expect_int (km_yaml_mapping_lookup (node, "id"), &id, NULL))
    km_item_set_id (KM_ITEM (self), id);
  if (km_yaml_scalar_to_bool (km_yaml_mapping_lookup (node, "is_checked"), &checked))
    km_item_set_checked (KM_ITEM (self), checked);
  km_item_set_source_pos (KM_ITEM (self), km_yaml_node_get_pos (node));
  return KM_ITEM (self);
}

KmYamlNode *
km_unknown_item_get_node (KmUnknownItem *self)
{
  g_return_val_if_fail (KM_IS_UNKNOWN_ITEM (self), NULL);
  return self->node;
}

gboolean
km_unknown_item_get_verbatim_children (KmUnknownItem *self)
{
  g_return_val_if_fail (KM_IS_UNKNOWN_ITEM (self), FALSE);
  return self->verbatim_children;
}
