/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <gtk/gtk.h>

#include "km-document.h"

G_BEGIN_DECLS

#define KM_TYPE_SKELETON_OUTLINE (km_skeleton_outline_get_type ())

G_DECLARE_FINAL_TYPE (KmSkeletonOutline, km_skeleton_outline, KM, SKELETON_OUTLINE, GtkWidget)

GtkWidget  *km_skeleton_outline_new          (void);
KmDocument *km_skeleton_outline_get_document (KmSkeletonOutline *self);
void        km_skeleton_outline_set_document (KmSkeletonOutline *self,
                                              KmDocument        *document);
GListModel *km_skeleton_outline_get_rows     (KmSkeletonOutline *self);
const char *km_skeleton_outline_get_row_tooltip (KmSkeletonOutline *self,
                                                 GtkWidget         *widget);

/* The rows a tree of joints shows at most when it opens (km_joint_tree_expansion). */
#define KM_JOINT_TREE_ROWS 100

gboolean   *km_joint_tree_expansion          (const KmSkeleton  *skeleton,
                                              int                selected);

G_END_DECLS
