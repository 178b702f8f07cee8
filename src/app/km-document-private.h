/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include "km-body-item.h"
#include "km-document.h"
#include "km-format.h"

G_BEGIN_DECLS

/*
 * What km-document-io.c (the document's file I/O: opening, saving, autosave, recovery)
 * needs of km-document.c beyond the public API, and what it shares with
 * km-document-skeleton.c and km-autosave.c. Main thread only, like the document, unless
 * said otherwise.
 */

void      _km_document_set_project     (KmDocument     *self,
                                        KmProject      *project,
                                        GFile          *file);
/* What the project's file was on disk when @project (the document's, else nothing
 * changes) was read from it or written to it (km_document_get_file_identity). */
void      _km_document_set_file_identity (KmDocument   *self,
                                        KmProject      *project,
                                        const char     *identity);
void      _km_document_sync            (KmDocument     *self);
void      _km_document_auto_solve      (KmDocument     *self);
void      _km_document_parse_warning   (const char     *message,
                                        gpointer        document);
/* Whether @a and @b stand for one item of the user's: the same item, or one read again
 * from the other's file (km_document_reread_item), either way round, or both read from
 * one item. Either may be %NULL. */
gboolean  _km_document_same_item       (KmItem         *a,
                                        KmItem         *b);
/* @extras (nullable): what the model file defines beside the skeleton; the body starts at
 * its initial pose. */
void      _km_document_import_model    (KmDocument          *self,
                                        GFile               *file,
                                        const char          *path,
                                        const KmFormat      *format,
                                        KmSkeleton          *skeleton,
                                        const KmModelExtras *extras);
void      _km_document_import_child    (KmDocument     *self,
                                        GFile          *file,
                                        KmItem         *item,
                                        const char     *label);
/* A targets file opened onto the current body when it has a targets item: @fresh, the
 * item read from the file, replaces that one as one undoable step (@label), and its
 * targets are solved. */
void      _km_document_open_targets    (KmDocument     *self,
                                        KmItem         *fresh,
                                        const char     *label);
/* Before the project's tree is made for a write: marks the shown body's motion as not its
 * targets' solve when their solve never finished (written so; reopened, it is not measured
 * against them). Returns the animation item it marked (a reference), or NULL; unmark it
 * once the tree is made (the mark is the write's: an undo may make that motion the
 * targets' again). */
KmItem   *_km_document_mark_unsolved_motion (KmDocument *self);
void      _km_document_unmark_motion   (KmItem         *marked);
/* km_document_reread_item read @fresh again from @item's file: once the Reload step
 * swaps it in, fresh targets of the current body are solved, and its undo puts the
 * motion of before back. */
void      _km_document_reread          (KmDocument     *self,
                                        KmItem         *item,
                                        KmItem         *fresh);

/* A project save off the main thread: begin marks the state being written as the one a
 * success makes clean (the document keeps showing its modified flag meanwhile); end, with
 * @file on success (NULL on failure), makes @file the document's file and clears the
 * modified flag unless the project changed since begin; on failure it puts back the clean
 * state from before begin, so that the document is modified as if it had not been saved.
 * @project is the project begin was called for: nothing but the saving flag changes when
 * it was replaced meanwhile. */
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
 * written on any thread (it touches no item): a skeleton.json of the user's that is
 * written back goes beside it first; once the project is written, commit puts it in its
 * place, and when the project is not, abort removes what was written, leaving every file
 * as it was; done on the main thread, which logs where they went or, when @ok is FALSE,
 * puts the body items back as they were. Freed on the main thread. */
typedef struct _KmEditedSkeletons KmEditedSkeletons;

KmEditedSkeletons *_km_document_take_edited_skeletons (KmDocument        *self,
                                                       const char        *project_path);
gboolean           _km_edited_skeletons_write         (KmEditedSkeletons *edited,
                                                       GPtrArray         *warnings,
                                                       GError           **error);
gboolean           _km_edited_skeletons_check_folders (KmEditedSkeletons *edited,
                                                       GError           **error);
gboolean           _km_edited_skeletons_commit        (KmEditedSkeletons *edited,
                                                       GError           **error);
void               _km_edited_skeletons_abort         (KmEditedSkeletons *edited);
void               _km_document_edited_skeletons_done (KmDocument        *self,
                                                       KmEditedSkeletons *edited,
                                                       gboolean           ok);
gboolean           _km_edited_skeletons_found_changed (KmEditedSkeletons *edited);
GList             *_km_document_get_all               (void);
void               _km_edited_skeletons_free          (KmEditedSkeletons *edited);

/* An autosave holds every edit: the skeletons no model file holds (edited, new, or not
 * written yet by a running project save) are written in a folder of its own beside it
 * (_km_autosave_models_dir), which the autosave's body items refer to; taken on the main
 * thread, which puts the body items back once the autosave's tree is made; written with
 * _km_edited_skeletons_write(). A recovery puts the bodies back on their files, their
 * skeletons edited. */
/* Switches @body to the same skeleton read from @file in @format (a save's copy, the
 * embedded example's file beside a project): it keeps its pose. */
void               _km_body_switch_model                   (KmBodyItem        *body,
                                                            const char        *file,
                                                            const char        *format);

/* The folder @item's relative file references are relative to: that of the sub-project
 * file it was read from (the nearest sub-project item above it, whose own reference is
 * relative to the folder above, and so on), else @project_dir, the project's (may be
 * %NULL, and so the result). In km-document-skeleton.c; km-item-file-watch.c uses it too. */
char              *_km_item_reference_dir                  (KmItem            *item,
                                                            const char        *project_dir);
void               _km_document_record_reread              (KmItemIo          *io,
                                                            KmItem            *original,
                                                            KmItem            *copy);

/* The @i-th name (from 1) a saved copy called STEM.EXT takes when names are taken:
 * "STEM.EXT", then "STEM-2.EXT", "STEM-3.EXT", … */
char              *_km_numbered_file_name                  (const char        *stem,
                                                            const char        *extension,
                                                            guint              i);

KmEditedSkeletons *_km_document_take_autosave_skeletons    (KmDocument        *self,
                                                            const char        *dir);
void               _km_document_put_back_skeletons         (KmDocument        *self,
                                                            KmEditedSkeletons *edited);
void               _km_project_restore_autosaved_skeletons (KmProject         *project,
                                                            const char        *autosave_path,
                                                            const char        *models_dir);

/* The folder of the autosave at @autosave_path's skeleton copies ("PATH.models"), and its
 * removal but for the copies in @keep (one of its folders; NULL removes all). Any thread. */
char      *_km_autosave_models_dir     (const char     *autosave_path);
void       _km_autosave_remove_models  (const char     *autosave_path,
                                        const char     *keep);

/* An asynchronous call run to its end on the calling thread: begin, start the call with
 * _km_sync_call_done_cb and the KmSyncCall, then wait for its result (a new reference)
 * and pass it to the call's _finish. The call's tasks complete in a main context of its
 * own, so nothing else the main loop would run runs meanwhile. */
typedef struct
{
  GMainContext *context;
  GAsyncResult *result;
} KmSyncCall;

void          _km_sync_call_begin     (KmSyncCall   *call);
void          _km_sync_call_done_cb   (GObject      *source,
                                       GAsyncResult *result,
                                       gpointer      user_data);
GAsyncResult *_km_sync_call_wait      (KmSyncCall   *call);

/* What a Skeleton tab save that ended (KmDocument::skeleton-save-ended) was. */
typedef enum
{
  KM_SKELETON_SAVE_KIND_SKELETON,       /* km_document_save_skeleton_async() */
  KM_SKELETON_SAVE_KIND_EXPORT_BODY,    /* km_document_export_skeleton_async(), .body */
  KM_SKELETON_SAVE_KIND_EXPORT_URDF,    /* km_document_export_skeleton_async(), URDF */
  KM_SKELETON_SAVE_KIND_FOR_CHOREONOID, /* km_document_save_with_body_copies_async() */
} KmSkeletonSaveKind;

/* The last Skeleton tab save that ended: its kind in @kind, and why it failed (or %NULL
 * when it succeeded), as its caller got it. For the window's failed-save bar, which learns
 * of those saves by the signal; main thread. */
const GError *_km_document_get_skeleton_save_result (KmDocument         *self,
                                                     KmSkeletonSaveKind *kind);

/* On the worker thread of a write of the document's, @path was written
 * (km_document_dup_written_paths()). */
void          _km_document_note_written (const char   *path);

G_END_DECLS
