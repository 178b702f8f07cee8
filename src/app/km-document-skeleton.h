/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include "km-document.h"

G_BEGIN_DECLS

/*
 * Edits of the current body's skeleton (issue 8), built on KmDocument's public API. Every
 * edit replaces the body's immutable KmSkeleton with a new one in ONE undoable project
 * step, carries the joint values of the joints that survive over by name
 * (km_skeleton_edit_map_state) and re-solves the animation in the background; the solved
 * animation belongs to the edit's step, so one undo brings back the old skeleton and the
 * old animation, and undo while the solve runs cancels it.
 */

typedef enum
{
  KM_SKELETON_EXPORT_BODY,   /* Choreonoid .body */
  KM_SKELETON_EXPORT_URDF,
} KmSkeletonExport;

gboolean  km_document_edit_skeleton           (KmDocument        *self,
                                               KmSkeleton        *skeleton,
                                               const char        *label,
                                               const char        *select_joint);
KmItem   *km_document_new_skeleton            (KmDocument        *self,
                                               const char        *root_name);
gboolean  km_document_get_skeleton_modified   (KmDocument        *self);
GFile    *km_document_dup_skeleton_file       (KmDocument        *self);
gboolean  km_document_save_skeleton           (KmDocument        *self,
                                               GFile             *file,
                                               GError           **error);
gboolean  km_document_export_skeleton         (KmDocument        *self,
                                               KmSkeletonExport   format,
                                               GFile             *file,
                                               GError           **error);
gboolean  km_document_save_with_body_copies   (KmDocument        *self,
                                               GFile             *file,
                                               GError           **error);

/* The same on a worker thread (the calls above run these to their end), one Skeleton
 * tab save at a time (the file it writes is km_document_get_skeleton_saving_file()
 * meanwhile; another fails with G_IO_ERROR_PENDING). The editor's Skeleton tab uses
 * these. */
GFile    *km_document_get_skeleton_saving_file (KmDocument          *self);
void      km_document_save_skeleton_async      (KmDocument          *self,
                                                GFile               *file,
                                                GCancellable        *cancellable,
                                                GAsyncReadyCallback  callback,
                                                gpointer             user_data);
gboolean  km_document_save_skeleton_finish     (KmDocument          *self,
                                                GAsyncResult        *result,
                                                GError             **error);
void      km_document_export_skeleton_async    (KmDocument          *self,
                                                KmSkeletonExport     format,
                                                GFile               *file,
                                                GCancellable        *cancellable,
                                                GAsyncReadyCallback  callback,
                                                gpointer             user_data);
gboolean  km_document_export_skeleton_finish   (KmDocument          *self,
                                                GAsyncResult        *result,
                                                GError             **error);
void      km_document_save_with_body_copies_async  (KmDocument          *self,
                                                    GFile               *file,
                                                    GCancellable        *cancellable,
                                                    GAsyncReadyCallback  callback,
                                                    gpointer             user_data);
gboolean  km_document_save_with_body_copies_finish (KmDocument          *self,
                                                    GAsyncResult        *result,
                                                    GError             **error);

G_END_DECLS
