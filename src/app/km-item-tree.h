/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <gtk/gtk.h>

#include "km-document.h"

G_BEGIN_DECLS

#define KM_TYPE_ITEM_TREE (km_item_tree_get_type ())

G_DECLARE_FINAL_TYPE (KmItemTree, km_item_tree, KM, ITEM_TREE, GtkWidget)

GtkWidget         *km_item_tree_new                 (void);
KmDocument        *km_item_tree_get_document        (KmItemTree *self);
void               km_item_tree_set_document        (KmItemTree *self,
                                                     KmDocument *document);
GtkSelectionModel *km_item_tree_get_selection_model (KmItemTree *self);
GtkEditable       *km_item_tree_get_rename_entry    (KmItemTree *self);
gboolean           km_item_tree_get_reloading       (KmItemTree *self);

G_END_DECLS
