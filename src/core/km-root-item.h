/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include "km-item.h"

G_BEGIN_DECLS

/* The root of the item tree (`Base/RootItem`, written with `is_builtin_item: true`). */

#define KM_TYPE_ROOT_ITEM (km_root_item_get_type ())

G_DECLARE_FINAL_TYPE (KmRootItem, km_root_item, KM, ROOT_ITEM, KmItem)

KmItem *km_root_item_new (void);

G_END_DECLS
