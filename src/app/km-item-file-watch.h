/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include "km-document.h"

G_BEGIN_DECLS

/*
 * Watches the files the document's items were read from (a body's model, targets, an
 * animation, a pose sequence, a body motion) for changes another program makes: one
 * GFileMonitor per file, made and dropped as items come and go (or are reloaded); a burst of
 * events is checked once it settles, comparing a checksum of the file's bytes (read on a
 * worker thread) with that of what it held when watched, or, for items the history brings
 * back (an undone Reload), when they were read. A new time alone (`touch`, a save of the
 * same text) is no change, and a file that comes back to the bytes the items were read
 * from is no longer changed. A file removed counts too (km_item_file_watch_get_deleted).
 * The document's own writes (km_document_get_writing) are no change: what the files they
 * wrote (km_document_dup_written_paths) hold after them is taken as known; the others are
 * checked once they are over. "changed" is emitted when the set of items whose file
 * changed does.
 */

#define KM_TYPE_ITEM_FILE_WATCH (km_item_file_watch_get_type ())

G_DECLARE_FINAL_TYPE (KmItemFileWatch, km_item_file_watch, KM, ITEM_FILE_WATCH, GObject)

KmItemFileWatch *km_item_file_watch_new         (KmDocument      *document);
/* Stops watching (the document is dropped): the window's dispose. */
void             km_item_file_watch_stop        (KmItemFileWatch *self);
/* The items whose file changed on disk since it was read, in tree order (element-type
 * KmItem, full references; not those of a file deleted, which cannot be read again), and
 * the paths of those files (element-type utf8; also those deleted). */
GPtrArray       *km_item_file_watch_dup_items   (KmItemFileWatch *self);
GPtrArray       *km_item_file_watch_dup_paths   (KmItemFileWatch *self);
/* Whether the file at one of those paths was deleted or moved rather than changed. */
gboolean         km_item_file_watch_get_deleted (KmItemFileWatch *self,
                                                 const char      *path);
/* What changed so far is taken as seen (reloaded or dismissed); a later change counts. */
void             km_item_file_watch_forget      (KmItemFileWatch *self);

/* The one record of what an item's data goes with (the file it was read from or last
 * written to, and the checksum of what it held then), kept on the item (so that a document
 * without a watch has it too): the document sets it for a body as the load that read it is
 * applied (what the loader read) and after a save writes its model file; the watch sets it
 * for an item that has none when it first sees it, and after the document writes the file;
 * a save reads it to ask before writing over another program's change. */
char            *km_item_file_watch_dup_item_path (KmItemIo    *io,
                                                   KmItem      *item);
void             km_item_file_watch_set_item_read (KmItem      *item,
                                                   const char  *path,
                                                   const char  *checksum);
gboolean         km_item_file_watch_get_item_read (KmItem      *item,
                                                   const char **path,
                                                   const char **checksum);

G_END_DECLS
