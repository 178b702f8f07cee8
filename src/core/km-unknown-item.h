/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include "km-item.h"

G_BEGIN_DECLS

/*
 * An item whose plugin/class Kinema does not know, or one that failed to load. It keeps
 * its whole YAML mapping from the project file and writes it back unchanged. When
 * `verbatim-children` is set (an item that failed to load), its `children` are part of the
 * kept YAML and are not items; otherwise its children are items and are written from
 * the tree.
 */

#define KM_TYPE_UNKNOWN_ITEM (km_unknown_item_get_type ())

G_DECLARE_FINAL_TYPE (KmUnknownItem, km_unknown_item, KM, UNKNOWN_ITEM, KmItem)

KmItem           *km_unknown_item_new                   (KmYamlNode    *node,
                                                          gboolean       verbatim_children);
KmYamlNode       *km_unknown_item_get_node              (KmUnknownItem *self);
gboolean          km_unknown_item_get_verbatim_children (KmUnknownItem *self);

G_END_DECLS
