/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <gio/gio.h>

#include "km-item.h"

G_BEGIN_DECLS

#define KM_TYPE_ITEM_ROW (km_item_row_get_type ())

G_DECLARE_FINAL_TYPE (KmItemRow, km_item_row, KM, ITEM_ROW, GObject)

/*
 * One row of the item tree: a KmItem with what its row shows (icon, whether Kinema knows
 * the item) as properties the row template binds to; `name` and `is-checked` follow the
 * item. Its tooltip (km_item_row_get_tooltip) is built when the tree's query-tooltip asks.
 * Joint rows (km_item_row_new_joint) list the joints of the current body under it as the
 * skeleton's hierarchy, indented only where it branches (a branching joint's row holds its
 * children's rows, and each child's row the rest of its branch's run); they have no check
 * box (`is-item` is FALSE).
 */

KmItemRow  *km_item_row_new           (KmItem    *item);
KmItemRow  *km_item_row_new_joint     (KmItem     *body,
                                       int         joint,
                                       const char *name);
int         km_item_row_get_joint     (KmItemRow *self);
void        km_item_row_set_joint     (KmItemRow  *self,
                                       int         joint);
void        km_item_row_set_joint_name (KmItemRow  *self,
                                        const char *name);
GListStore *km_item_row_get_children  (KmItemRow  *self);
KmItem     *km_item_row_get_item      (KmItemRow *self);
const char *km_item_row_get_icon_name (KmItemRow *self);
gboolean    km_item_row_get_known     (KmItemRow *self);
const char *km_item_row_get_tooltip   (KmItemRow *self);

G_END_DECLS
