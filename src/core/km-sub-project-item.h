/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include "km-item.h"

G_BEGIN_DECLS

/* A part of the project kept in another .cnoid file (`Base/SubProjectItem`, data `filename` or `file`). Its children are loaded from that file by the .cnoid reader and are not written into the parent project. */

#define KM_TYPE_SUB_PROJECT_ITEM (km_sub_project_item_get_type ())

G_DECLARE_FINAL_TYPE (KmSubProjectItem, km_sub_project_item, KM, SUB_PROJECT_ITEM, KmItem)

KmItem     *km_sub_project_item_new      (void);
/* The `file` (or `filename`) value as written, NULL when there is none. */
const char *km_sub_project_item_get_file (KmSubProjectItem *self);

G_END_DECLS
