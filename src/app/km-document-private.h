/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include "km-document.h"
#include "km-format.h"

G_BEGIN_DECLS

/*
 * What km-document-io.c (the document's file I/O: opening, saving, autosave, recovery)
 * needs of km-document.c beyond the public API. Main thread only, like the document.
 */

void      _km_document_set_project     (KmDocument     *self,
                                        KmProject      *project,
                                        GFile          *file);
void      _km_document_set_file        (KmDocument     *self,
                                        GFile          *file);
void      _km_document_sync            (KmDocument     *self);
void      _km_document_auto_solve      (KmDocument     *self);
void      _km_document_parse_warning   (const char     *message,
                                        gpointer        document);
void      _km_document_import_model    (KmDocument     *self,
                                        GFile          *file,
                                        const char     *path,
                                        const KmFormat *format,
                                        KmSkeleton     *skeleton);
void      _km_document_import_child    (KmDocument     *self,
                                        GFile          *file,
                                        KmItem         *item,
                                        const char     *label);

/* A project save off the main thread: begin marks the state being written as the one a
 * success makes clean (the document keeps showing its modified flag meanwhile); end, with
 * @file on success (NULL on failure), makes @file the document's file and clears the
 * modified flag unless the project changed since begin. @project is the project begin
 * was called for: nothing but the saving flag changes when it was replaced meanwhile. */
void      _km_document_begin_save      (KmDocument     *self);
void      _km_document_end_save        (KmDocument     *self,
                                        KmProject      *project,
                                        GFile          *file);

/* A write of the document's other files (the Skeleton tab's) on a worker thread, through
 * the machinery the project's saves use. @write runs on the worker with @data (which it
 * must not share with the main thread unless immutable), adding warnings (char *, taken)
 * to @warnings; the document logs them on the main thread before @callback. */
typedef gboolean (*KmDocumentWriteFunc) (gpointer    data,
                                         GPtrArray  *warnings,
                                         GError    **error);

void      _km_document_write_async     (KmDocument          *self,
                                        KmDocumentWriteFunc  write,
                                        gpointer             data,
                                        GDestroyNotify       free_data,
                                        GAsyncReadyCallback  callback,
                                        gpointer             user_data);
gboolean  _km_document_write_finish    (KmDocument          *self,
                                        GAsyncResult        *result,
                                        GError             **error);
gboolean  _km_document_task_finish     (KmDocument          *self,
                                        GAsyncResult        *result,
                                        gpointer             source_tag,
                                        GError             **error);

/* The edited skeletons a project save writes before the project (km-document-skeleton.c):
 * taken on the main thread, which switches their body items to the files they go to;
 * written on any thread (it touches no item); done on the main thread, which logs where
 * they went or, when @ok is FALSE, puts the body items back as they were. Freed on the
 * main thread. */
typedef struct _KmEditedSkeletons KmEditedSkeletons;

KmEditedSkeletons *_km_document_take_edited_skeletons (KmDocument        *self,
                                                       const char        *project_path);
gboolean           _km_edited_skeletons_write         (KmEditedSkeletons *edited,
                                                       GPtrArray         *warnings,
                                                       GError           **error);
void               _km_document_edited_skeletons_done (KmDocument        *self,
                                                       KmEditedSkeletons *edited,
                                                       gboolean           ok);
void               _km_edited_skeletons_free          (KmEditedSkeletons *edited);

G_END_DECLS
