/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include "km-item.h"

G_BEGIN_DECLS

/* A folder grouping other items (`Base/FolderItem`). */

#define KM_TYPE_FOLDER_ITEM (km_folder_item_get_type ())

G_DECLARE_FINAL_TYPE (KmFolderItem, km_folder_item, KM, FOLDER_ITEM, KmItem)

KmItem *km_folder_item_new (void);

G_END_DECLS
