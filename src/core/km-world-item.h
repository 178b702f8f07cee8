/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include "km-item.h"

G_BEGIN_DECLS

/* The virtual world bodies live in (`Body/WorldItem`); its data (collision settings, material table) is kept as read. */

#define KM_TYPE_WORLD_ITEM (km_world_item_get_type ())

G_DECLARE_FINAL_TYPE (KmWorldItem, km_world_item, KM, WORLD_ITEM, KmItem)

KmItem *km_world_item_new (void);

G_END_DECLS
