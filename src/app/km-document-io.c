/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-document-io"

#include "config.h"

#include <errno.h>
#include <string.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <sys/stat.h>

#include "km-document-private.h"
#include "km-document-skeleton.h"
#include "km-animation-json.h"
#include "km-autosave.h"
#include "km-body-item.h"
#include "km-body-motion-item.h"
#include "km-body-motion.h"
#include "km-cnoid.h"
#include "km-defaults.h"
#include "km-error.h"
#include "km-ik-animation-item.h"
#include "km-ik-targets-item.h"
#include "km-item-file-watch.h"
#include "km-local-file.h"
#include "km-pose-seq-item.h"
#include "km-skeleton-json.h"
#include "km-targets-json.h"

/*
 * The document's files: opening and importing (read and parsed on a worker thread, applied
 * on the main thread), saving the project, autosaving it aside, recovering an autosave and
 * saving one item's contents.
 *
 * Saving off the main thread: the project model is not thread-safe, so the main thread
 * takes what the worker needs first. For the project that is the file's tree and the ids
 * it gives new items (km_cnoid_build_tree): an item's store has to run where the items
 * live. The tree is cheap to make: it shares the items' parsed nodes (immutable, with
 * atomic reference counts) and holds an animation's frames as a deferred node over a copy
 * of the animation, so the bulk of the work (building those frames, formatting their
 * numbers, emitting the text) runs on the worker with the write (atomic: a temporary file,
 * fsync, rename) and the files beside it; the items take their ids back on the main thread
 * (km_cnoid_saved). An item's contents (skeleton, targets, animation) are immutable or
 * copied values, so their serialisation runs on the worker as well, as do the Skeleton
 * tab's files (_km_document_write_async). Recovering an autosave reads and parses it on a
 * worker like opening a file does. The synchronous calls run the same jobs to their end
 * (KmSyncCall), so that both write the same files in the same order.
 */

/* ---- A file's identity on disk ------------------------------------------------------ */

G_DEFINE_QUARK (km-document-error-quark, km_document_error)

/**
 * km_document_file_info_identity:
 * @info: queried with %KM_DOCUMENT_FILE_IDENTITY_ATTRIBUTES
 *
 * What the file @info describes is on disk, as a string that changes when another program
 * writes or replaces it: its ETag (for a local file its modification time to the
 * microsecond), its size and its inode (an atomic replace gives a new one).
 *
 * Returns: (transfer full): the identity
 */
char *
km_document_file_info_identity (GFileInfo *info)
{
  const char *etag;

  g_return_val_if_fail (G_IS_FILE_INFO (info), NULL);

  etag = g_file_info_get_etag (info);
  return g_strdup_printf ("%s/%" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT,
                          etag != NULL ? etag : "",
                          g_file_info_get_attribute_uint64 (info, G_FILE_ATTRIBUTE_STANDARD_SIZE),
                          g_file_info_get_attribute_uint64 (info, G_FILE_ATTRIBUTE_UNIX_INODE));
}

/**
 * km_document_query_file_identity:
 *
 * km_document_file_info_identity() of @file as it is now (through links, as saves write
 * it). File I/O: call it on a worker thread.
 *
 * Returns: (transfer full) (nullable): the identity, or %NULL with @error (%G_IO_ERROR_NOT_FOUND
 *   when there is no such file)
 */
char *
km_document_query_file_identity (GFile   *file,
                                 GError **error)
{
  g_autoptr(GFileInfo) info = NULL;

  g_return_val_if_fail (G_IS_FILE (file), NULL);

  info = g_file_query_info (file, KM_DOCUMENT_FILE_IDENTITY_ATTRIBUTES,
                            G_FILE_QUERY_INFO_NONE, NULL, error);
  return info != NULL ? km_document_file_info_identity (info) : NULL;
}

/* km_document_query_file_identity() of the file at @path, NULL when it cannot be read. */
static char *
query_path_identity (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);

  return km_document_query_file_identity (file, NULL);
}

/* ---- The model files a save writes back ----------------------------------------------- */

/* What a body's data goes with (the model file it was read from or a save last wrote, and
 * what that file held then) is the item file watch's record of it, one for the changed-on-
 * disk bar and for the question below (km_item_file_watch_get_item_read), kept on the body:
 * set as a load that read it is applied (opened, imported, recovered, reloaded: what the
 * loader read), when a save writes the file, and by the watch for a body that has none when
 * it first sees it (duplicated, the built-in example saved as a file).
 * km-document-skeleton.c's marks: the body's skeleton was edited since its file was read
 * or written; the body is the built-in example's (its "skeleton.json" is no file). */
#define SKELETON_MODIFIED_KEY "km-skeleton-modified"
#define EMBEDDED_MODEL_KEY    "km-embedded-model"

/* What the file at @path holds, as the file watch records it (km_format_file_checksum);
 * NULL when it cannot be read. File I/O: on a worker thread, but for a save planned again. */
static char *
model_checksum (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);

  return km_format_file_checksum (file, NULL, NULL);
}

/* The model file @body refers to, resolved as the file watch resolves it, or NULL (none,
 * the built-in example's, or a reference that does not resolve). */
static char *
body_model_path (KmItemIo *io,
                 KmItem   *body)
{
  if (g_object_get_data (G_OBJECT (body), EMBEDDED_MODEL_KEY))
    return NULL;
  return km_item_file_watch_dup_item_path (io, body);
}

/* ---- What a load read --------------------------------------------------------------- */

/**
 * _km_document_record_reread:
 * @io: how @original's files are read
 * @original: a body item (anything else is left alone)
 * @copy: an item that read @original's model file again: its copy
 *   (km_document_duplicate_items) or the item a reload made (km_document_reread_item)
 *
 * Gives @copy the record of what it read (km_item_file_watch_set_item_read), the file as
 * @original resolves it (a sub-project's folder; @copy is in no tree yet): without one a
 * save would not check it until a file watch looked, and a document without a window has
 * none. On the thread that read it.
 */
void
_km_document_record_reread (KmItemIo *io,
                            KmItem   *original,
                            KmItem   *copy)
{
  g_autofree char *path = NULL;
  const char *checksum;
  const char *original_path;
  const char *original_checksum;

  if (!KM_IS_BODY_ITEM (original) || !KM_IS_BODY_ITEM (copy)
      || (path = body_model_path (io, original)) == NULL)
    return;
  /* What its loader read (KmModelExtras.checksum); a copy that read nothing of its own
   * (its model is @original's, copy_item) goes with what @original goes with. */
  checksum = km_body_item_get_model_checksum (KM_BODY_ITEM (copy));
  if (checksum == NULL
      && km_item_file_watch_get_item_read (original, &original_path, &original_checksum)
      && strcmp (original_path, path) == 0)
    checksum = original_checksum;
  km_item_file_watch_set_item_read (copy, path, checksum);
}

/* What a body read by a load was read from: the record km_item_file_watch_set_item_read
 * keeps, made on the worker and set when the load is applied. */
typedef struct
{
  KmItem *body;       /* NULL: the body a model file opened becomes */
  char   *path;       /* as the file watch resolves it, where the load read it */
  char   *checksum;
} BodyRead;

static void
body_read_free (gpointer data)
{
  BodyRead *read = data;

  g_clear_object (&read->body);
  g_free (read->path);
  g_free (read->checksum);
  g_free (read);
}

/* @checksum: what the loader read (KmModelExtras.checksum), NULL when it read nothing */
static void
add_body_read (GPtrArray  *reads,
               KmItem     *body,
               const char *path,
               const char *checksum)
{
  BodyRead *read = g_new0 (BodyRead, 1);

  read->body = body != NULL ? g_object_ref (body) : NULL;
  read->path = g_strdup (path);
  read->checksum = g_strdup (checksum);
  g_ptr_array_add (reads, read);
}

typedef struct
{
  KmItemIo  *io;
  GPtrArray *reads;
} ReadScan;

static void
collect_body_read (gpointer item,
                   gpointer user_data)
{
  ReadScan *scan = user_data;
  g_autofree char *path = NULL;

  if (!KM_IS_BODY_ITEM (item) || (path = body_model_path (scan->io, item)) == NULL)
    return;
  add_body_read (scan->reads, item, path,
                 km_body_item_get_model_checksum (KM_BODY_ITEM (item)));
}

/* The bodies of @root (read through @io) and what each was read from. Touches no document:
 * runs on the load's worker for a project it read. */
static void
collect_body_reads (KmItem    *root,
                    KmItemIo  *io,
                    GPtrArray *reads)
{
  ReadScan scan = { io, reads };

  if (root != NULL)
    km_item_foreach (root, collect_body_read, &scan);
}

/* Each body of @reads (@model_body for the one a model file opened) goes with what the
 * load read: its record is set now, as the load is applied, not when a file watch first
 * sees it (there may be none: a document without a window), so that a save made at once
 * still asks before writing over another program's change made since the read. A body
 * that no longer resolves to the file the load read (a recovery's edited body, read from
 * the autosave's copy) keeps the record it has (the autosave's index keeps what it went
 * with, _km_project_restore_autosaved_skeletons) or is left to the watch. */
static void
apply_body_reads (KmDocument *self,
                  GPtrArray  *reads,
                  KmItem     *model_body)
{
  g_auto(KmDocumentItemIo) io = { 0 };

  if (reads == NULL || reads->len == 0)
    return;
  km_document_item_io_init (self, &io);
  for (guint i = 0; i < reads->len; i++)
    {
      BodyRead *read = g_ptr_array_index (reads, i);
      KmItem *body = read->body != NULL ? read->body : model_body;
      g_autofree char *path = NULL;

      if (body == NULL || !KM_IS_BODY_ITEM (body)
          || (path = body_model_path (&io.io, body)) == NULL || strcmp (path, read->path) != 0)
        continue;
      km_item_file_watch_set_item_read (body, path, read->checksum);
    }
}

typedef struct
{
  KmItemIo   *io;
  GHashTable *checksums;    /* path → checksum (NULL: gone), or NULL */
  const char *path;         /* set_path_checksum: the path… */
  const char *checksum;     /* …and its checksum */
} ModelScan;

static void
set_path_checksum (gpointer item,
                   gpointer user_data)
{
  ModelScan *scan = user_data;
  g_autofree char *path = NULL;

  if (!KM_IS_BODY_ITEM (item) || (path = body_model_path (scan->io, item)) == NULL)
    return;
  if (scan->path != NULL && strcmp (path, scan->path) == 0)
    km_item_file_watch_set_item_read (item, path, scan->checksum);
  else if (scan->checksums != NULL && g_hash_table_contains (scan->checksums, path))
    km_item_file_watch_set_item_read (item, path, g_hash_table_lookup (scan->checksums, path));
}

/* The bodies that refer to the model file at @path (or to one of @checksums' paths) go
 * with the checksum given for it: what a save wrote there, or what the user chose to
 * write over. */
static void
set_model_checksums (KmDocument *self,
                     const char *path,
                     const char *checksum,
                     GHashTable *checksums)
{
  g_auto(KmDocumentItemIo) io = { 0 };
  ModelScan scan = { 0 };

  km_document_item_io_init (self, &io);
  scan.io = &io.io;
  scan.checksums = checksums;
  scan.path = path;
  scan.checksum = checksum;
  km_item_foreach (km_project_get_root_item (km_document_get_project (self)),
                   set_path_checksum, &scan);
}

/* One model file of the user's a project save writes back, where it is. */
typedef struct
{
  char *path;
  char *expected;   /* what it must still be to be written over */
  char *planned;    /* the worker's: what it was before anything was written (NULL: gone) */
  char *after;      /* the worker's: what it is once the project is written */
  gboolean mixed;   /* its edited bodies were read from different versions of it */
} ModelCheck;

static void
model_check_free (gpointer data)
{
  ModelCheck *check = data;

  g_free (check->path);
  g_free (check->expected);
  g_free (check->planned);
  g_free (check->after);
  g_free (check);
}

typedef struct
{
  KmItemIo  *io;
  GPtrArray *checks;
} CheckScan;

static void
plan_model_check (gpointer item,
                  gpointer user_data)
{
  CheckScan *scan = user_data;
  const char *file;
  const char *read_path;
  const char *read_checksum;
  ModelCheck *check;
  g_autofree char *path = NULL;

  if (!KM_IS_BODY_ITEM (item)
      || !GPOINTER_TO_INT (g_object_get_data (G_OBJECT (item), SKELETON_MODIFIED_KEY))
      || g_strcmp0 (km_body_item_get_format (KM_BODY_ITEM (item)), "SKELETON-JSON") != 0)
    return;
  file = km_body_item_get_file (KM_BODY_ITEM (item));
  if (file == NULL || strstr (file, "${SHARE}") != NULL || strstr (file, "${PROGRAM_TOP}") != NULL
      || (path = body_model_path (scan->io, item)) == NULL
      /* (a body switched to a copy since: that copy is Kinema's, checked where it is
       * written; a file gone when read is written again, unasked) */
      || !km_item_file_watch_get_item_read (item, &read_path, &read_checksum)
      || strcmp (read_path, path) != 0 || read_checksum == NULL)
    return;
  for (guint i = 0; i < scan->checks->len; i++)
    {
      ModelCheck *other = g_ptr_array_index (scan->checks, i);

      /* Edited bodies of one file read from different versions of it (one duplicated
       * after another program changed it): the file is not what one of them was read
       * from, whatever it holds. */
      if (strcmp (other->path, path) == 0)
        {
          other->mixed |= strcmp (other->expected, read_checksum) != 0;
          return;
        }
    }
  check = g_new0 (ModelCheck, 1);
  check->path = g_steal_pointer (&path);
  check->expected = g_strdup (read_checksum);
  g_ptr_array_add (scan->checks, check);
}

/* The skeleton.json files of the user's that a project save of @self would write back
 * (their bodies' skeletons edited), each with what it held when read or last written. */
static GPtrArray *
plan_model_checks (KmDocument *self)
{
  g_auto(KmDocumentItemIo) io = { 0 };
  CheckScan scan;

  km_document_item_io_init (self, &io);
  scan.io = &io.io;
  scan.checks = g_ptr_array_new_with_free_func (model_check_free);
  km_item_foreach (km_project_get_root_item (km_document_get_project (self)),
                   plan_model_check, &scan);
  return scan.checks;
}

/* ---- Opening ------------------------------------------------------------------------ */

/* A file read and parsed, not yet applied: what the loading thread hands back. */
typedef struct
{
  char           *path;
  const KmFormat *format;
  gpointer        result;
  KmModelExtras  *extras;
  GPtrArray      *warnings;   /* of char *, the parse warnings in order */
  GFile          *project_file;   /* a recovery: the file of the project autosaved, while
                                   * its folder exists; or NULL */
  char           *identity;       /* a project: what its file (a recovery's project_file)
                                   * was on disk when read, or NULL */
  GPtrArray      *body_reads;     /* of BodyRead: what the bodies read were read from */
  gboolean        not_regular;    /* read from no regular file (a named pipe, a device):
                                   * nothing a save could write back to */
} LoadedFile;

static void
loaded_file_free (LoadedFile *loaded)
{
  if (loaded->result != NULL)
    loaded->format->free_result (loaded->result);
  g_clear_pointer (&loaded->extras, km_model_extras_free);
  g_clear_object (&loaded->project_file);
  g_free (loaded->identity);
  g_clear_pointer (&loaded->body_reads, g_ptr_array_unref);
  g_ptr_array_unref (loaded->warnings);
  g_free (loaded->path);
  g_free (loaded);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (LoadedFile, loaded_file_free)

static void
collect_warning_cb (const char *message,
                    gpointer    user_data)
{
  g_ptr_array_add (user_data, g_strdup (message));
}

/* The file the autosave at @path holds the unsaved work of, while its folder exists (a
 * save there writes it anew); NULL for untitled work. Runs on any thread. */
static GFile *
recovered_project_file (const char *path)
{
  g_autoptr(GFile) autosave = g_file_new_for_path (path);
  g_autoptr(GFile) file = km_autosave_dup_project_file (autosave);
  g_autoptr(GFile) parent = file != NULL ? g_file_get_parent (file) : NULL;

  if (parent == NULL || !g_file_is_native (file)
      || g_file_query_file_type (parent, G_FILE_QUERY_INFO_NONE, NULL) != G_FILE_TYPE_DIRECTORY)
    return NULL;
  return g_steal_pointer (&file);
}

/* Each of @messages (nullable) that locates something in the file @from ("FROM:LINE:COL",
 * as km_parse_location() writes it) names @to there instead, without the line and column:
 * they point into @from's text, which is not @to's ("TO: message"). */
static void
relocate_messages (GPtrArray  *messages,
                   const char *from,
                   const char *to)
{
  g_autofree char *from_file = NULL;
  g_autofree char *to_file = NULL;
  g_autofree char *shown_from = NULL;

  if (messages == NULL)
    return;
  from_file = km_parse_shown_file (from);
  to_file = km_parse_shown_file (to);
  shown_from = g_strconcat (from_file, ":", NULL);
  for (guint i = 0; i < messages->len; i++)
    {
      const char *message = g_ptr_array_index (messages, i);
      const char *at, *rest = message;
      GString *relocated;

      if (strstr (message, shown_from) == NULL)
        continue;
      relocated = g_string_new (NULL);
      while ((at = strstr (rest, shown_from)) != NULL)
        {
          const char *end = at + strlen (from_file);

          /* (":LINE", then ":COL") */
          while (end[0] == ':' && g_ascii_isdigit (end[1]))
            for (end++; g_ascii_isdigit (*end); end++)
              ;
          g_string_append_len (relocated, rest, at - rest);
          g_string_append (relocated, to_file);
          rest = end;
        }
      g_string_append (relocated, rest);
      g_free (g_ptr_array_index (messages, i));
      g_ptr_array_index (messages, i) = g_string_free (relocated, FALSE);
    }
}

/* Reads and parses @path: any file the loader registry knows, or (@project_only, for a
 * recovery) a Choreonoid project. Touches no document, so it runs on any thread. */
static LoadedFile *
load_file (const char  *path,
           gboolean     project_only,
           GError     **error)
{
  g_autoptr(LoadedFile) loaded = g_new0 (LoadedFile, 1);

  loaded->path = g_strdup (path);
  loaded->warnings = g_ptr_array_new_with_free_func (g_free);
  /* Taken before the file is read: a change made while it is read is one made since. */
  if (!project_only)
    {
      loaded->identity = query_path_identity (path);
      /* (stat(2) alone: a pipe is not opened, so this waits for no writer) */
      loaded->not_regular = !g_file_test (path, G_FILE_TEST_IS_REGULAR);
    }
  km_parse_warnings_push (collect_warning_cb, loaded->warnings);
  if (project_only)
    {
      loaded->format = &km_format_cnoid;
      loaded->result = km_cnoid_load (path, error);
    }
  else
    loaded->result = km_format_load_model_file (path, NULL, &loaded->format, &loaded->extras,
                                                error);
  km_parse_warnings_pop ();
  if (loaded->result == NULL)
    return NULL;
  if (project_only)
    {
      loaded->project_file = recovered_project_file (path);
      /* The recovered work goes back to that file as it is now: a change made to it
       * afterwards is another program's. */
      if (loaded->project_file != NULL)
        {
          g_autofree char *project_path = g_file_get_path (loaded->project_file);

          loaded->identity = km_document_query_file_identity (loaded->project_file, NULL);
          /* The work is the project's: what reading it found is in that file, not in the
           * hidden autosave the user never opened. */
          relocate_messages (loaded->warnings, path, project_path);
          relocate_messages (km_project_get_messages (loaded->result), path, project_path);
        }
    }
  else if (loaded->format->kind != KM_FILE_KIND_PROJECT)
    g_clear_pointer (&loaded->identity, g_free);
  loaded->body_reads = g_ptr_array_new_with_free_func (body_read_free);
  if (loaded->format->kind == KM_FILE_KIND_PROJECT)
    {
      /* Resolved as they were read: against the folder the project was read from. */
      const char *file = km_project_get_file (loaded->result);
      g_autofree char *dir = km_cnoid_reference_dir (loaded->result);
      g_autofree char *share_dir = file != NULL ? km_cnoid_find_share_dir (file) : NULL;
      g_autoptr(GPtrArray) messages = g_ptr_array_new_with_free_func (g_free);
      g_autoptr(GPtrArray) open_files = g_ptr_array_new_with_free_func (g_free);
      KmItemIo io = {
        .file = file != NULL ? file : "",
        .dir = dir,
        .share_dir = share_dir,
        .messages = messages,
        .open_files = open_files,
      };

      if (dir == NULL)
        io.dir = dir = g_get_current_dir ();
      collect_body_reads (km_project_get_root_item (loaded->result), &io, loaded->body_reads);
    }
  else if (loaded->format->kind == KM_FILE_KIND_MODEL)
    {
      g_autofree char *canonical = g_canonicalize_filename (path, NULL);

      add_body_read (loaded->body_reads, NULL, canonical,
                     loaded->extras != NULL ? loaded->extras->checksum : NULL);
    }
  return g_steal_pointer (&loaded);
}

/* Whether @body is the body @name: its item is named so, or after a file of that name
 * ("SR1.body" for SR1). */
static gboolean
body_is_named (KmItem     *body,
               const char *name)
{
  const char *item_name = km_item_get_name (body);
  gsize n = strlen (name);

  return g_str_equal (item_name, name)
         || (strncmp (item_name, name, n) == 0 && item_name[n] == '.'
             && strchr (item_name + n + 1, '.') == NULL);
}

/* Whether @self shows what a window starts with before its files are opened: the world
 * alone (no bodies, nothing else in the tree), unmodified, without a file and without an
 * undo or redo history. A model opened into it starts the history rather than being a step
 * of it: undoing could only empty the window again. */
static gboolean
document_is_untouched (KmDocument *self)
{
  KmProject *project = km_document_get_project (self);
  KmItem *root = km_project_get_root_item (project);

  if (km_document_get_file (self) != NULL || km_document_get_modified (self)
      || km_project_can_undo (project) || km_project_can_redo (project))
    return FALSE;
  if (root == NULL)
    return TRUE;
  for (guint i = 0; i < km_item_get_n_children (root); i++)
    if (i > 0 || km_item_get_n_children (km_item_get_child (root, i)) > 0)
      return FALSE;
  return TRUE;
}

/* Set on a project whose model was opened into an untouched document (where its history
 * starts): a targets or animation file opened next, before anything else changed, joins
 * that start (document_is_fresh). */
#define OPENED_MODEL_KEY "km-document-opened-model"

/* Whether @self holds only what was opened into an empty window, unedited: a model
 * (document_is_untouched when it was opened), and the files opened with it since, with no
 * file, no change and no history. `kinema model.json targets.json` opens the pair as the
 * model alone opens: nothing to undo, nothing unsaved. */
static gboolean
document_is_fresh (KmDocument *self)
{
  KmProject *project = km_document_get_project (self);

  return g_object_get_data (G_OBJECT (project), OPENED_MODEL_KEY) != NULL
         && km_document_get_file (self) == NULL && !km_document_get_modified (self)
         && !km_project_can_undo (project) && !km_project_can_redo (project);
}

/* After a targets or animation file was added to a fresh document (document_is_fresh()
 * before): what was opened is where the history starts, and unmodified. */
static void
start_history_if_fresh (KmDocument *self,
                        gboolean    fresh)
{
  if (!fresh)
    return;
  km_project_clear_history (km_document_get_project (self));
  km_document_set_modified (self, FALSE);
}

/* The main-thread half of opening: replays the parse warnings, then changes the
 * document. @loaded's result is taken over. */
static gboolean
apply_loaded_file (KmDocument  *self,
                   GFile       *file,
                   LoadedFile  *loaded,
                   GError     **error)
{
  const char *path = loaded->path;
  const KmFormat *format = loaded->format;
  KmModelExtras *extras = loaded->extras;
  gpointer result = g_steal_pointer (&loaded->result);
  gboolean untouched = document_is_untouched (self);
  gboolean fresh = document_is_fresh (self);

  for (guint i = 0; i < loaded->warnings->len; i++)
    _km_document_parse_warning (g_ptr_array_index (loaded->warnings, i), self);

  switch (format->kind)
    {
    case KM_FILE_KIND_MODEL:
      _km_document_import_model (self, file, path, format, result, extras);
      /* (the new body is the current one) */
      apply_body_reads (self, loaded->body_reads, km_document_get_body_item (self));
      /* IK targets the model defines (Scenebuilder <ik>) go under the new body; added last
       * first, so that the first target is the one shown. */
      for (guint i = extras->targets->len; i > 0; i--)
        {
          g_autoptr(KmItem) item = km_ik_targets_item_new ();

          km_ik_targets_item_set_track (KM_IK_TARGETS_ITEM (item),
                                        g_ptr_array_index (extras->targets, i - 1));
          /* Named as the model names it (a scene's <ik name>), so that several can be told
           * apart. */
          km_item_set_name (item, g_ptr_array_index (extras->target_names, i - 1));
          _km_document_import_child (self, file, item, _("Import Targets"));
          _km_document_sync (self);
        }
      /* Opened into an untouched window (kinema MODEL, or File → Open there): the model is
       * where the history starts, not a step to undo, and the project is unmodified: it is
       * what the user opened, nothing to save or ask about. Imported into a project with
       * content, it is an undoable step. */
      if (untouched)
        {
          km_project_clear_history (km_document_get_project (self));
          km_document_set_modified (self, FALSE);
          g_object_set_data (G_OBJECT (km_document_get_project (self)), OPENED_MODEL_KEY,
                             GINT_TO_POINTER (TRUE));
        }
      _km_document_auto_solve (self);
      break;

    case KM_FILE_KIND_TARGETS:
      {
        KmItem *body = km_document_get_body_item (self);
        KmItem *replaced;
        g_autoptr(KmItem) item = NULL;

        if (body == NULL)
          {
            g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                         _("%s: there is no body to add these targets to"), path);
            format->free_result (result);
            return FALSE;
          }
        item = km_ik_targets_item_new ();
        km_ik_targets_item_set_track (KM_IK_TARGETS_ITEM (item), result);
        /* Saved as a reference to the file until it is edited (DESIGN.md). */
        km_ik_targets_item_set_file (KM_IK_TARGETS_ITEM (item), path, format->name);
        /* A body with targets (its first targets item, the ones it is solved from) has
         * them replaced by the file's, undoably, rather than piling up a targets item per
         * file opened, of which only one would be solved. */
        if ((replaced = km_item_find_child_by_type (body, KM_TYPE_IK_TARGETS_ITEM)) != NULL)
          {
            g_autofree char *name = g_filename_display_basename (path);

            km_item_set_name (item, name);
            if (!fresh)
              {
                _km_document_open_targets (self, item, _("Import Targets"));
                break;
              }
            /* Opened with the model (a model that defines targets): no step, solved as
             * the model's targets would be. */
            km_item_set_checked (item, km_item_get_checked (replaced));
            km_item_insert_child (body, (guint) km_item_get_index (replaced), item);
            km_item_remove_child (body, replaced);
            _km_document_sync (self);
            start_history_if_fresh (self, fresh);
            _km_document_auto_solve (self);
            break;
          }
        _km_document_import_child (self, file, item, _("Import Targets"));
        _km_document_sync (self);
        /* Opened with the model (`kinema model.json targets.json`): as the model alone. */
        start_history_if_fresh (self, fresh);
        _km_document_auto_solve (self);
      }
      break;

    case KM_FILE_KIND_ANIMATION:
      {
        KmSkeleton *skeleton = km_document_get_skeleton (self);
        g_autoptr(KmItem) item = NULL;

        if (skeleton == NULL
            || km_animation_get_n_dof (result) != km_skeleton_get_n_dof (skeleton))
          {
            g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                         _("%s: the animation does not fit the open body"), path);
            format->free_result (result);
            return FALSE;
          }
        km_document_cancel_solve (self);
        item = km_ik_animation_item_new ();
        km_ik_animation_item_set_animation (KM_IK_ANIMATION_ITEM (item), result);
        /* Saved as a reference to the file until its animation is replaced (DESIGN.md), and
         * watched and reloaded as the file's, like imported targets. */
        km_ik_animation_item_set_file (KM_IK_ANIMATION_ITEM (item), path, format->name);
        _km_document_import_child (self, file, item, _("Import Animation"));
        _km_document_sync (self);
        start_history_if_fresh (self, fresh);
      }
      break;

    case KM_FILE_KIND_POSE_SEQ:
      {
        const char *target_body = km_pose_seq_get_target_body (result);
        KmItem *body = km_document_get_body_item (self);
        g_autoptr(KmItem) item = NULL;

        if (body == NULL)
          {
            g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                         _("%s: there is no body to add this pose sequence to"), path);
            format->free_result (result);
            return FALSE;
          }
        if (target_body != NULL && !body_is_named (body, target_body))
          /* Translators: a path, the body the file was made for, then the body it plays on */
          km_document_log (self, G_LOG_LEVEL_WARNING,
                           _("%s: the pose sequence was made for “%s”; it plays on “%s”, "
                             "joints matched by their ids."),
                           path, target_body, km_item_get_name (body));
        item = km_pose_seq_item_new_for_file (path, result);
        _km_document_import_child (self, file, item, _("Import Pose Sequence"));
        /* Picked in the tree, it is the motion that plays (as in Choreonoid). */
        km_project_select (km_document_get_project (self), item, FALSE);
        _km_document_sync (self);
      }
      break;
    case KM_FILE_KIND_BODY_MOTION:
      {
        KmItem *body = km_document_get_body_item (self);
        g_autoptr(KmItem) item = NULL;
        g_autofree char *misfit = NULL;

        if (body == NULL)
          {
            g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                         _("%s: there is no body to add this body motion to"), path);
            format->free_result (result);
            return FALSE;
          }
        item = km_body_motion_item_new_for_file (path, result);
        _km_document_import_child (self, file, item, _("Import Body Motion"));
        /* The warning a project with it would give (joint ids the body lacks). */
        misfit = km_body_motion_item_check_fit (KM_BODY_MOTION_ITEM (item));
        if (misfit != NULL)
          km_document_log (self, G_LOG_LEVEL_WARNING, "%s", misfit);
        km_project_select (km_document_get_project (self), item, FALSE);
        _km_document_sync (self);
      }
      break;

    case KM_FILE_KIND_PROJECT:
      {
        KmItem *body;

        /* Its load's messages came as parse warnings (logged above), not in the project.
         * Read from a named pipe (or another file that is not a regular one), it is a
         * project without a file: what the pipe gave is nowhere on disk, and a save writes
         * it where the user says (Save asks, as for a new project), never back into the
         * pipe, whose state is no file's to compare with. Unsaved work, so that closing
         * asks first. */
        _km_document_set_project (self, result, loaded->not_regular ? NULL : file);
        if (loaded->not_regular)
          {
            km_document_set_modified (self, TRUE);
            km_document_log (self, G_LOG_LEVEL_INFO,
                             /* Translators: %s is a path; the file is a named pipe or a
                              * device, which a save cannot write back to */
                             _("%s is not a regular file: the project opened from it is "
                               "untitled, and Save asks where to save it."),
                             path);
          }
        else
          _km_document_set_file_identity (self, result, loaded->identity);
        apply_body_reads (self, loaded->body_reads, NULL);
        body = km_document_get_body_item (self);
        if (body == NULL)
          km_document_log (self, G_LOG_LEVEL_INFO, _("%s: the project has no body to show."),
                           path);
        else
          /* Translators: a path, then the name of the body item shown */
          km_document_log (self, G_LOG_LEVEL_INFO, _("%s: showing the body “%s”."),
                           path, km_item_get_name (body));
      }
      break;

    default:
      g_assert_not_reached ();
    }

  format->free_result (result);
  km_document_log (self, G_LOG_LEVEL_INFO, _("Opened %s."), path);
  return TRUE;
}

/**
 * km_document_import_file:
 *
 * Opens any file the loader registry recognises by its content: a project (.cnoid)
 * replaces the project; a model is added to the world as a new body, which becomes the
 * current one; a targets or animation file is added under the current body (the
 * animation must fit it), except that a targets file opened onto a body with targets
 * replaces its first targets item (the one it is solved from) with the file's, as an
 * undoable step that solves them. Adding is undoable, except for a model opened into an
 * untouched document (only the world, unmodified, no file, no history: what a window
 * starts with), where the history starts after it, and a targets or animation file
 * opened next while nothing else changed (`kinema model.json targets.json`), which joins
 * that start: the project stays unmodified. On failure (the error names file,
 * line and column) the document is unchanged. Reads the file on the calling thread: the editor
 * uses km_document_import_file_async().
 */
gboolean
km_document_import_file (KmDocument  *self,
                         GFile       *file,
                         GError     **error)
{
  g_autofree char *path = NULL;
  g_autoptr(LoadedFile) loaded = NULL;

  g_return_val_if_fail (KM_IS_DOCUMENT (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);

  path = km_local_file_get_path (file, error);
  if (path == NULL)
    return FALSE;
  loaded = load_file (path, FALSE, error);
  return loaded != NULL && apply_loaded_file (self, file, loaded, error);
}

static void
load_file_thread (GTask        *task,
                  gpointer      source_object,
                  gpointer      task_data,
                  GCancellable *cancellable)
{
  GError *error = NULL;
  /* A recovery reads a project only. */
  gboolean project_only = g_task_get_source_tag (task) == km_document_recover_async;
  LoadedFile *loaded = load_file (task_data, project_only, &error);

  if (loaded == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, loaded, (GDestroyNotify) loaded_file_free);
}

/* Main thread: the worker's read (@result) completes @user_data (taken), the caller's task,
 * whose source object is the document. */
static void
load_file_read_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GTask) outer = user_data;
  GError *error = NULL;
  LoadedFile *loaded = g_task_propagate_pointer (G_TASK (result), &error);

  if (loaded == NULL)
    g_task_return_error (outer, error);
  else
    g_task_return_pointer (outer, loaded, (GDestroyNotify) loaded_file_free);
}

/* Reads and parses @file on a worker thread for the _finish of @source_tag (the file is
 * kept on the task as "file"). The caller's task, which holds the document, completes on
 * the main thread; the one that runs on the worker holds no document (as write_job_start's),
 * since the worker thread may drop its task last: the document would then be disposed
 * there, while the main thread still uses what it refers to. */
static void
load_file_async (KmDocument          *self,
                 GFile               *file,
                 GCancellable        *cancellable,
                 GAsyncReadyCallback  callback,
                 gpointer             user_data,
                 gpointer             source_tag)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  g_autoptr(GTask) read = NULL;
  g_autoptr(GError) error = NULL;
  char *path;

  g_task_set_source_tag (task, source_tag);
  g_task_set_check_cancellable (task, TRUE);
  path = km_local_file_get_path (file, &error);
  if (path == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  g_object_set_data_full (G_OBJECT (task), "file", g_object_ref (file), g_object_unref);
  read = g_task_new (NULL, cancellable, load_file_read_cb, g_steal_pointer (&task));
  /* (load_file_thread tells a recovery by it) */
  g_task_set_source_tag (read, source_tag);
  g_task_set_task_data (read, path, g_free);
  g_task_run_in_thread (read, load_file_thread);
}

/* What a _finish of load_file_async hands back, NULL with @error set on failure. */
static LoadedFile *
load_file_finish (KmDocument    *self,
                  GAsyncResult  *result,
                  gpointer       source_tag,
                  GError       **error)
{
  g_return_val_if_fail (KM_IS_DOCUMENT (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == source_tag, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * km_document_import_file_async:
 *
 * km_document_import_file() with the reading and parsing (meshes included) on a worker
 * thread, so that the window stays responsive; the document changes only in
 * km_document_import_file_finish(), on the main thread, and not at all when @cancellable
 * is cancelled before that.
 */
void
km_document_import_file_async (KmDocument          *self,
                               GFile               *file,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  g_return_if_fail (KM_IS_DOCUMENT (self));
  g_return_if_fail (G_IS_FILE (file));

  load_file_async (self, file, cancellable, callback, user_data,
                   km_document_import_file_async);
}

gboolean
km_document_import_file_finish (KmDocument    *self,
                                GAsyncResult  *result,
                                GError       **error)
{
  g_autoptr(LoadedFile) loaded = load_file_finish (self, result,
                                                   km_document_import_file_async, error);

  return loaded != NULL
         && apply_loaded_file (self, g_object_get_data (G_OBJECT (result), "file"), loaded,
                               error);
}

static void restore_autosaved_examples (KmProject  *project,
                                        const char *autosave_path,
                                        const char *models_dir);

/* The main-thread half of a recovery: @loaded holds the autosaved project. */
static void
apply_recovered (KmDocument *self,
                 LoadedFile *loaded)
{
  KmProject *project = loaded->result;
  GPtrArray *messages = km_project_get_messages (project);
  g_autofree char *models = _km_autosave_models_dir (loaded->path);

  for (guint i = 0; i < loaded->warnings->len; i++)
    _km_document_parse_warning (g_ptr_array_index (loaded->warnings, i), self);
  for (guint i = 0; messages != NULL && i < messages->len; i++)
    km_document_log (self, G_LOG_LEVEL_WARNING, "%s",
                     (const char *) g_ptr_array_index (messages, i));
  restore_autosaved_examples (project, loaded->path, models);
  _km_project_restore_autosaved_skeletons (project, loaded->path, models);
  /* The sub-projects read from the autosave's copies refer to their own files again. */
  km_cnoid_restore_sub_copies (project, models);
  /* The work goes back to its project's file (Save writes there), still unsaved. */
  _km_document_set_project (self, project, loaded->project_file);
  _km_document_set_file_identity (self, project, loaded->identity);
  apply_body_reads (self, loaded->body_reads, NULL);
  km_document_set_modified (self, TRUE);
  /* The skeletons read from the autosave's copies are the document's now. */
  _km_autosave_remove_models (loaded->path, NULL);
  km_document_log (self, G_LOG_LEVEL_INFO, _("Recovered unsaved work from %s."), loaded->path);
}

/**
 * km_document_recover_async:
 *
 * Replaces the project with an autosaved one: the document's file is the one the autosaved
 * project had (km_autosave_dup_project_file()), while its folder exists, else none
 * (saving asks for one); the document is modified, since the work it holds was never
 * saved. Bodies whose
 * skeletons the autosave kept beside it (km_document_write_autosave_async()) refer to
 * their own files again, their skeletons still to be saved; so do sub-projects read from
 * the autosave's copies (km_cnoid_restore_sub_copies()), their edits still to be saved to
 * their files; those copies are removed. The
 * file is read and parsed on a worker thread (as km_document_import_file_async() does);
 * the project is replaced only in km_document_recover_finish(), on the main thread, and
 * not at all when @cancellable is cancelled before that.
 */
void
km_document_recover_async (KmDocument          *self,
                           GFile               *file,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  g_return_if_fail (KM_IS_DOCUMENT (self));
  g_return_if_fail (G_IS_FILE (file));

  load_file_async (self, file, cancellable, callback, user_data, km_document_recover_async);
}

gboolean
km_document_recover_finish (KmDocument    *self,
                            GAsyncResult  *result,
                            GError       **error)
{
  g_autoptr(LoadedFile) loaded = load_file_finish (self, result, km_document_recover_async,
                                                   error);

  if (loaded == NULL)
    return FALSE;
  apply_recovered (self, loaded);
  return TRUE;
}

/* ---- Reloading an item -------------------------------------------------------------- */

/* Whether @item is a body of the built-in example whose model is the embedded one (see
 * km_document_load_defaults()): its file, "skeleton.json", is no file of the project's. */
static gboolean
is_embedded_example_body (KmItem *item)
{
  return KM_IS_BODY_ITEM (item)
         && g_object_get_data (G_OBJECT (item), "km-embedded-model") != NULL
         && g_strcmp0 (km_body_item_get_file (KM_BODY_ITEM (item)), KM_DEFAULT_SKELETON_NAME) == 0;
}

/* On an item that was read again, and on the one it was read for: a token (a g_rc_box)
 * they share, and that later rereads of either share too (_km_document_same_item). */
#define REREAD_ORIGIN_KEY "km-reread-origin"

/* @item's token, made when it has none. */
static gpointer
reread_origin (KmItem *item)
{
  gpointer origin = g_object_get_data (G_OBJECT (item), REREAD_ORIGIN_KEY);

  if (origin == NULL)
    {
      origin = g_rc_box_new0 (char);
      g_object_set_data_full (G_OBJECT (item), REREAD_ORIGIN_KEY, origin, g_rc_box_release);
    }
  return origin;
}

gboolean
_km_document_same_item (KmItem *a,
                        KmItem *b)
{
  gpointer origin;

  if (a == b)
    return TRUE;
  if (a == NULL || b == NULL)
    return FALSE;
  origin = g_object_get_data (G_OBJECT (a), REREAD_ORIGIN_KEY);
  return origin != NULL && origin == g_object_get_data (G_OBJECT (b), REREAD_ORIGIN_KEY);
}

/* A reread of an item: what the main thread took of it (its stored data, how its files
 * resolve), then what the worker read. The worker touches neither the document nor the
 * item: only what the job owns. */
typedef struct
{
  KmDocumentItemIo  io;
  KmYamlNode       *data;       /* the item's, as stored */
  GType             type;
  gboolean          example;    /* the built-in example's body: the embedded model */
  char             *example_project;
  GPtrArray        *warnings;   /* of char *, the file's parse warnings in order */
  KmItem           *fresh;      /* read; NULL until then, or on failure */
  GError           *error;      /* why it could not be read */
} RereadJob;

static void
reread_job_free (RereadJob *job)
{
  km_document_item_io_clear (&job->io);
  g_clear_pointer (&job->data, km_yaml_node_unref);
  g_free (job->example_project);
  g_ptr_array_unref (job->warnings);
  g_clear_object (&job->fresh);
  g_clear_error (&job->error);
  g_free (job);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RereadJob, reread_job_free)

/* Main thread: what reading @item's file again needs, taken now. */
static RereadJob *
reread_job_new (KmDocument *self,
                KmItem     *item)
{
  RereadJob *job = g_new0 (RereadJob, 1);

  km_document_item_io_init (self, &job->io);
  job->example = is_embedded_example_body (item);
  job->data = km_item_store (item, &job->io.io);
  job->type = G_OBJECT_TYPE (item);
  job->warnings = g_ptr_array_new_with_free_func (g_free);
  return job;
}

/* Any thread: reads the job's item again into @job->fresh, or sets @job->error. */
static void
reread_job_run (RereadJob *job)
{
  g_autoptr(KmItem) fresh = NULL;
  g_autofree char *example_dir = NULL;
  g_autofree char *example_path = NULL;
  gboolean restored;

  if (job->example)
    {
      g_autoptr(GBytes) bytes = km_defaults_get_skeleton_json ();

      /* Read through the same restore as any body, from a folder of its own that holds
       * the embedded model under its name. */
      example_dir = g_dir_make_tmp ("kinema-example-XXXXXX", &job->error);
      if (example_dir == NULL)
        return;
      example_path = g_build_filename (example_dir, KM_DEFAULT_SKELETON_NAME, NULL);
      if (!km_format_save_data (example_path, g_bytes_get_data (bytes, NULL),
                                g_bytes_get_size (bytes), &job->error))
        {
          g_rmdir (example_dir);
          return;
        }
      g_free (job->io.dir);
      job->io.dir = g_strdup (example_dir);
      job->io.io.dir = job->io.dir;
      /* Relative files are read as the project file names them (km_cnoid_shown_path). */
      job->example_project = g_build_filename (example_dir, "example.cnoid", NULL);
      job->io.io.file = job->example_project;
    }

  fresh = g_object_new (job->type, NULL);
  /* The file's warnings go to the message view, as when it was opened (apply_loaded_file). */
  km_parse_warnings_push (collect_warning_cb, job->warnings);
  restored = km_item_restore (fresh, job->data, &job->io.io, &job->error);
  km_parse_warnings_pop ();
  if (example_dir != NULL)
    {
      g_unlink (example_path);
      g_rmdir (example_dir);
    }
  if (!restored)
    return;
  if (km_item_get_problem (fresh) != NULL)
    {
      g_set_error_literal (&job->error, G_IO_ERROR, G_IO_ERROR_FAILED,
                           km_item_get_problem (fresh));
      return;
    }
  if (job->example)
    g_object_set_data (G_OBJECT (fresh), EMBEDDED_MODEL_KEY, GINT_TO_POINTER (TRUE));
  job->fresh = g_steal_pointer (&fresh);
}

/* Main thread: @job read @item again; the fresh item, made the same item of the user's
 * (id, name, check), or NULL with @error. */
static KmItem *
reread_job_apply (KmDocument  *self,
                  KmItem      *item,
                  RereadJob   *job,
                  GError     **error)
{
  KmItem *fresh;

  if (job->fresh == NULL)
    {
      g_propagate_error (error, g_steal_pointer (&job->error));
      return NULL;
    }
  fresh = job->fresh;
  for (guint i = 0; i < job->warnings->len; i++)
    _km_document_parse_warning (g_ptr_array_index (job->warnings, i), self);
  for (guint i = 0; i < job->io.messages->len; i++)
    km_document_log (self, G_LOG_LEVEL_WARNING, "%s",
                     (const char *) g_ptr_array_index (job->io.messages, i));
  if (!job->example)
    /* What the body read again was read from, which the fresh item takes over. */
    _km_document_record_reread (&job->io.io, item, fresh);
  km_item_set_name (fresh, km_item_get_name (item));
  km_item_set_checked (fresh, km_item_get_checked (item));
  /* Views refer to it by its id (the Pose Roll's currentPoseSeqItem): one that another
   * item took would leave them pointing at nothing once saved. */
  km_item_set_id (fresh, km_item_get_id (item));
  /* The same item still, to the document (which keeps the current frame for it). */
  g_object_set_data_full (G_OBJECT (fresh), REREAD_ORIGIN_KEY,
                          g_rc_box_acquire (reread_origin (item)), g_rc_box_release);
  _km_document_reread (self, item, fresh);
  return g_steal_pointer (&job->fresh);
}

/**
 * km_document_reread_item:
 * @item: an item of the document's project that has a file
 *
 * A fresh item of @item's type restored from what @item stores: its file is read again,
 * while its name, check, joint values and other keys stay, and so does its id, which the
 * project's views may refer to (the item tree's Reload swaps it in). The file's warnings
 * go to the message view. The built-in example's body reads the embedded example again: its
 * "skeleton.json" is no file of the project's folder or the working directory, where a
 * skeleton.json of the user's may be, which would be loaded and still pass for the
 * example. Once the example was saved, its body refers to the file it went to, which is
 * read as any other. Reads on the calling thread: the editor uses
 * km_document_reread_item_async().
 *
 * Returns: (transfer full): the fresh item, or %NULL with @error when the file cannot be
 *   read
 */
KmItem *
km_document_reread_item (KmDocument  *self,
                         KmItem      *item,
                         GError     **error)
{
  g_autoptr(RereadJob) job = NULL;

  g_return_val_if_fail (KM_IS_DOCUMENT (self), NULL);
  g_return_val_if_fail (KM_IS_ITEM (item), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  job = reread_job_new (self, item);
  reread_job_run (job);
  return reread_job_apply (self, item, job, error);
}

static void
reread_thread (GTask        *task,
               gpointer      source_object,
               gpointer      task_data,
               GCancellable *cancellable)
{
  RereadJob *job = task_data;

  reread_job_run (job);
  /* (handed back whole: the main thread owns it from here, whichever thread drops the
   * task last) */
  g_task_return_pointer (task, job, (GDestroyNotify) reread_job_free);
}

/* Main thread: the worker's read (@result) completes @user_data (taken), the caller's
 * task, whose source object is the document. */
static void
reread_read_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GTask) outer = user_data;
  RereadJob *job = g_task_propagate_pointer (G_TASK (result), NULL);

  g_task_return_pointer (outer, job, (GDestroyNotify) reread_job_free);
}

/**
 * km_document_reread_item_async:
 * @item: an item of the document's project that has a file
 *
 * km_document_reread_item() with the reading and parsing (meshes, a whole sub-project) on
 * a worker thread, so that the window stays responsive: what @item stores is taken now,
 * and the fresh item is made the same item of the user's (its id, name and check, as
 * @item has them then) only in km_document_reread_item_finish(), on the main thread. A
 * reread whose @item has left the document's project by then, or whose @cancellable was
 * cancelled, fails with %G_IO_ERROR_CANCELLED.
 */
void
km_document_reread_item_async (KmDocument          *self,
                               KmItem              *item,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GTask) read = NULL;

  g_return_if_fail (KM_IS_DOCUMENT (self));
  g_return_if_fail (KM_IS_ITEM (item));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, km_document_reread_item_async);
  g_task_set_check_cancellable (task, TRUE);
  g_object_set_data_full (G_OBJECT (task), "item", g_object_ref (item), g_object_unref);
  /* The worker's task holds no document (as load_file_async's) and owns no job: its
   * thread may drop it last. */
  read = g_task_new (NULL, cancellable, reread_read_cb, g_steal_pointer (&task));
  g_task_set_task_data (read, reread_job_new (self, item), NULL);
  g_task_run_in_thread (read, reread_thread);
}

/* Whether @item is in @self's project now. */
static gboolean
item_in_document (KmDocument *self,
                  KmItem     *item)
{
  KmItem *root = km_project_get_root_item (km_document_get_project (self));

  while (item != NULL && item != root)
    item = km_item_get_parent (item);
  return item != NULL;
}

/**
 * km_document_reread_item_finish:
 *
 * Returns: (transfer full): the fresh item, which the caller swaps in, or %NULL with
 *   @error
 */
KmItem *
km_document_reread_item_finish (KmDocument    *self,
                                GAsyncResult  *result,
                                GError       **error)
{
  g_autoptr(RereadJob) job = NULL;
  KmItem *item;

  g_return_val_if_fail (KM_IS_DOCUMENT (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result))
                        == km_document_reread_item_async, NULL);

  job = g_task_propagate_pointer (G_TASK (result), error);
  if (job == NULL)
    return NULL;
  item = g_object_get_data (G_OBJECT (result), "item");
  if (!item_in_document (self, item))
    {
      /* (deleted, reloaded with another, or the project replaced meanwhile) */
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                           _("the item is no longer in the project"));
      return NULL;
    }
  return reread_job_apply (self, item, job, error);
}

/**
 * km_document_dup_shown_item_file:
 * @item: an item of the document's project
 *
 * The file @item was read from, as messages name it: path variables expanded (a
 * "${SHARE}/model/…" reference reads as the folder ${SHARE} stands for, which the user may
 * never have set), a plain relative reference joined to the project's folder
 * (km_cnoid_shown_path), and escaped as km_parse_shown_file() shows file names. A
 * reference that cannot be expanded (an unset variable) is shown as the project writes it.
 *
 * Returns: (transfer full) (nullable): the file's path as shown, or %NULL when @item has
 *   no file
 */
char *
km_document_dup_shown_item_file (KmDocument *self,
                                 KmItem     *item)
{
  g_auto(KmDocumentItemIo) io = { 0 };
  g_autofree char *expanded = NULL;
  g_autofree char *shown = NULL;
  const char *reference;

  g_return_val_if_fail (KM_IS_DOCUMENT (self), NULL);
  g_return_val_if_fail (KM_IS_ITEM (item), NULL);

  reference = km_item_get_file (item);
  if (reference == NULL || *reference == '\0')
    return NULL;
  km_document_item_io_init (self, &io);
  expanded = g_path_is_absolute (reference) ? g_strdup (reference)
                                            : km_item_io_expand_path (&io.io, reference, NULL);
  if (expanded == NULL)
    return km_parse_shown_file (reference);
  if (io.io.file != NULL)
    shown = km_cnoid_shown_path (&io.io, reference, expanded);
  return km_parse_shown_file (shown != NULL ? shown : expanded);
}

/* ---- Writing ------------------------------------------------------------------------ */

/* What a save puts beside the project for the built-in example's bodies: those bodies,
 * whose model is the embedded one (its file "skeleton.json" beside any project), and the
 * file names bodies of the project refer to in the folder the project goes to. */
typedef struct
{
  const char *dir;             /* canonical */
  const char *reference_dir;   /* where relative files are, or NULL */
  GPtrArray  *bodies;
  GHashTable *taken;
} EmbeddedScan;

static void
scan_embedded_model (gpointer item,
                     gpointer user_data)
{
  EmbeddedScan *scan = user_data;
  const char *file;
  g_autofree char *absolute = NULL;
  g_autofree char *parent = NULL;

  if (!KM_IS_BODY_ITEM (item) || (file = km_body_item_get_file (item)) == NULL)
    return;
  if (g_object_get_data (item, "km-embedded-model")
      && g_strcmp0 (file, KM_DEFAULT_SKELETON_NAME) == 0)
    {
      g_ptr_array_add (scan->bodies, g_object_ref (item));
      return;
    }
  /* Another body's file there (an edited skeleton this save writes, a file of the user's
   * it writes back, one that is missing) is not the example's to take. */
  if (g_str_has_prefix (file, "${")
      || (!g_path_is_absolute (file) && scan->reference_dir == NULL))
    return;
  absolute = g_canonicalize_filename (file, scan->reference_dir);
  parent = g_path_get_dirname (absolute);
  if (strcmp (parent, scan->dir) == 0)
    g_hash_table_add (scan->taken, g_path_get_basename (absolute));
}

/* Whether the file at @path holds @bytes. */
static gboolean
file_holds (const char *path,
            GBytes     *bytes)
{
  g_autofree char *contents = NULL;
  gsize length = 0;
  GStatBuf st;

  if (g_stat (path, &st) != 0 || !S_ISREG (st.st_mode)
      || (gsize) st.st_size != g_bytes_get_size (bytes)
      || !g_file_get_contents (path, &contents, &length, NULL))
    return FALSE;
  return length == g_bytes_get_size (bytes)
         && memcmp (contents, g_bytes_get_data (bytes, NULL), length) == 0;
}

/* The file name beside the project for the embedded model @bytes: "skeleton.json", else
 * "skeleton-2.json", … (the names edited skeletons' copies take): the first that no file
 * has, or one that holds the model already, and that no other body refers to. A file of
 * the user's is never the example's: the project would reopen with another robot. */
static char *
embedded_model_name (GHashTable *taken,
                     const char *dir,
                     GBytes     *bytes)
{
  g_autofree char *stem = g_strndup (KM_DEFAULT_SKELETON_NAME,
                                     strlen (KM_DEFAULT_SKELETON_NAME) - strlen (".json"));

  for (guint i = 1;; i++)
    {
      g_autofree char *name = _km_numbered_file_name (stem, "json", i);
      g_autofree char *path = g_build_filename (dir, name, NULL);

      if (!g_hash_table_contains (taken, name)
          && (!g_file_test (path, G_FILE_TEST_EXISTS) || file_holds (path, bytes)))
        return g_steal_pointer (&name);
    }
}

/* Switches @bodies to the model file @file, keeping their poses. */
static void
refer_embedded_bodies (GPtrArray  *bodies,
                       const char *file)
{
  for (guint i = 0; bodies != NULL && i < bodies->len; i++)
    {
      KmBodyItem *body = g_ptr_array_index (bodies, i);
      g_autofree char *format = g_strdup (km_body_item_get_format (body));

      if (g_strcmp0 (km_body_item_get_file (body), file) != 0)
        _km_body_switch_model (body, file, format);
    }
}

/* When @project has a body of the built-in example (its model the embedded one, see
 * km_document_load_defaults()), picks the file beside @path that the model goes to
 * (*@bytes and *@name: what to write there, on the worker, see write_embedded_model) and
 * switches those bodies to it while the project's tree is made (when it is not their
 * "skeleton.json" beside the project): those bodies, to hand to put_back_embedded_bodies()
 * then (and, once saved, to link_embedded_bodies()), or %NULL. Call after the edited
 * skeletons are taken: their bodies refer to the files they go to. */
static GPtrArray *
take_embedded_model (KmProject   *project,
                     const char  *path,
                     GBytes     **bytes,
                     char       **name)
{
  g_autofree char *parent = g_path_get_dirname (path);
  g_autofree char *dir = g_canonicalize_filename (parent, NULL);
  g_autofree char *reference_dir = km_cnoid_reference_dir (project);
  g_autoptr(GPtrArray) bodies = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GHashTable) taken = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  EmbeddedScan scan = { dir, reference_dir, bodies, taken };
  g_autofree char *reference = NULL;
  g_autofree char *target = NULL;

  km_item_foreach (km_project_get_root_item (project), scan_embedded_model, &scan);
  if (bodies->len == 0)
    return NULL;
  *bytes = km_defaults_get_skeleton_json ();
  *name = embedded_model_name (taken, dir, *bytes);
  /* Their "skeleton.json" is the one beside the project only where the project's relative
   * references are relative to its folder: not in a recovered autosave's, whose are
   * relative to the autosave's folder (it would refer to a file there). */
  reference = reference_dir != NULL ? g_canonicalize_filename (reference_dir, NULL) : NULL;
  if (strcmp (*name, KM_DEFAULT_SKELETON_NAME) == 0
      && (reference == NULL || strcmp (reference, dir) == 0))
    return g_steal_pointer (&bodies);
  target = g_build_filename (dir, *name, NULL);
  refer_embedded_bodies (bodies, target);
  return g_steal_pointer (&bodies);
}

/* The bodies of take_embedded_model() refer to the embedded model again while the save
 * runs: should it fail, the model goes beside whichever project they are saved with next. */
static void
put_back_embedded_bodies (GPtrArray *bodies)
{
  if (bodies == NULL)
    return;
  refer_embedded_bodies (bodies, KM_DEFAULT_SKELETON_NAME);
  g_ptr_array_unref (bodies);
}

/* Once a project save put the built-in example's model beside the project as @name (or
 * found it there): @bodies, those of take_embedded_model(), refer to that file from now on,
 * as they do in the project reopened. So the file is watched, a Reload reads it, and a
 * later edit of the skeleton is written back to it (not to a copy beside it). A body
 * switched or edited meanwhile is left alone, as is every one where the model could not
 * be written (the save's warning says why; the next save puts it there). */
static void
link_embedded_bodies (GPtrArray  *bodies,
                      const char *project_path,
                      const char *name)
{
  g_autofree char *dir = NULL;
  g_autofree char *target = NULL;

  if (bodies == NULL || name == NULL)
    return;
  dir = g_path_get_dirname (project_path);
  target = g_build_filename (dir, name, NULL);
  if (!g_file_test (target, G_FILE_TEST_IS_REGULAR))
    return;
  for (guint i = 0; i < bodies->len; i++)
    {
      KmBodyItem *body = g_ptr_array_index (bodies, i);
      g_autofree char *format = NULL;

      if (!is_embedded_example_body (KM_ITEM (body)))
        continue;
      format = g_strdup (km_body_item_get_format (body));
      _km_body_switch_model (body, target, format);
      g_object_set_data (G_OBJECT (body), "km-embedded-model", NULL);
    }
}

/* The file an autosave keeps the built-in example's model in, in the folder of its write
 * (job->models, whose skeleton copies are numbered: none takes this name). There, not
 * beside the autosave, it goes with the autosave (no skeleton.json is left in the shared
 * autosave folder), and a recovery knows the bodies that refer to it for the example's
 * (restore_autosaved_examples). */
#define AUTOSAVE_EXAMPLE_NAME "example.json"

/* take_embedded_model() for an autosave whose write keeps its files in @models: the
 * built-in example's bodies refer to @models/AUTOSAVE_EXAMPLE_NAME (*@name, absolute)
 * while the autosave's tree is made. */
static GPtrArray *
take_autosave_embedded_model (KmProject   *project,
                              const char  *models,
                              GBytes     **bytes,
                              char       **name)
{
  g_autofree char *reference_dir = km_cnoid_reference_dir (project);
  g_autoptr(GPtrArray) bodies = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GHashTable) taken = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  EmbeddedScan scan = { models, reference_dir, bodies, taken };

  km_item_foreach (km_project_get_root_item (project), scan_embedded_model, &scan);
  if (bodies->len == 0)
    return NULL;
  *bytes = km_defaults_get_skeleton_json ();
  *name = g_build_filename (models, AUTOSAVE_EXAMPLE_NAME, NULL);
  refer_embedded_bodies (bodies, *name);
  return g_steal_pointer (&bodies);
}

typedef struct
{
  const char *autosave_dir;   /* canonical */
  const char *models_dir;     /* canonical */
  GBytes     *example;
} ExampleScan;

/* A body of a recovered autosave that refers to the example's model the autosave kept
 * (AUTOSAVE_EXAMPLE_NAME in a write's folder; or, as autosaves used to, a file beside
 * it holding that model) is the built-in example's body again. */
static void
restore_autosaved_example (gpointer item,
                           gpointer user_data)
{
  ExampleScan *scan = user_data;
  const char *file;
  g_autofree char *absolute = NULL;
  g_autofree char *base = NULL;
  g_autofree char *parent = NULL;
  g_autofree char *write_parent = NULL;

  if (!KM_IS_BODY_ITEM (item) || km_body_item_get_skeleton (item) == NULL
      || (file = km_body_item_get_file (item)) == NULL || g_str_has_prefix (file, "${"))
    return;
  absolute = g_canonicalize_filename (file, scan->autosave_dir);
  base = g_path_get_basename (absolute);
  parent = g_path_get_dirname (absolute);
  write_parent = g_path_get_dirname (parent);
  if (!(strcmp (base, AUTOSAVE_EXAMPLE_NAME) == 0
        && strcmp (write_parent, scan->models_dir) == 0)
      && !(strcmp (parent, scan->autosave_dir) == 0 && file_holds (absolute, scan->example)))
    return;
  _km_body_switch_model (item, KM_DEFAULT_SKELETON_NAME, km_body_item_get_format (item));
  g_object_set_data (item, "km-embedded-model", GINT_TO_POINTER (TRUE));
}

/* Before the autosave's files go: its bodies of the built-in example refer to the
 * embedded model again, so that a save puts it beside the project as it does for the
 * example (take_embedded_model), not referring to the autosave's folder. */
static void
restore_autosaved_examples (KmProject  *project,
                            const char *autosave_path,
                            const char *models_dir)
{
  g_autofree char *parent = g_path_get_dirname (autosave_path);
  g_autofree char *autosave_dir = g_canonicalize_filename (parent, NULL);
  g_autofree char *models = g_canonicalize_filename (models_dir, autosave_dir);
  g_autoptr(GBytes) example = km_defaults_get_skeleton_json ();
  ExampleScan scan = { autosave_dir, models, example };

  km_item_foreach (km_project_get_root_item (project), restore_autosaved_example, &scan);
}

/* Puts the embedded model beside the file at @path as @name (unless a file is there: the
 * main thread found none, or one with the model), so that the project reopens. A file of
 * the user's is never replaced. Touches no document: runs on any thread. */
static gboolean
write_embedded_model (const char  *path,
                      const char  *name,
                      GBytes      *bytes,
                      GError     **error)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *target = g_build_filename (dir, name, NULL);

  if (g_file_test (target, G_FILE_TEST_EXISTS))
    return TRUE;
  if (!km_format_save_data (target, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes),
                            error))
    return FALSE;
  _km_document_note_written (target);
  return TRUE;
}

/* The directory an autosave goes to, made when missing. */
static gboolean
make_autosave_dir (const char  *path,
                   GError     **error)
{
  g_autofree char *dir = g_path_get_dirname (path);

  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      int saved_errno = errno;

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   /* Translators: a folder, then the system's reason */
                   _("%s: cannot create the folder: %s"), dir, g_strerror (saved_errno));
      return FALSE;
    }
  return TRUE;
}

/* "PATH.models": where the autosave at @autosave_path keeps its skeleton copies, in a
 * folder for each write. */
char *
_km_autosave_models_dir (const char *autosave_path)
{
  return g_strconcat (autosave_path, ".models", NULL);
}

/* Removes @path, a folder with everything in it or a file. A symbolic link is removed,
 * never followed: what it leads to (a folder of the user's) stays. (A folder an autosave
 * write has just put a file in stays: its end removes it, see written_cb in
 * km-autosave.c.) */
static void
remove_path (const char *path)
{
  GStatBuf st;

  if (g_lstat (path, &st) != 0)
    {
      if (errno != ENOENT)
        g_warning ("Cannot remove %s: %s", path, g_strerror (errno));
      return;
    }
  if (S_ISDIR (st.st_mode))
    {
      g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
      const char *name;

      while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);

          remove_path (child);
        }
      if (g_rmdir (path) != 0 && errno != ENOENT && errno != ENOTEMPTY && errno != EEXIST)
        g_warning ("Cannot remove %s: %s", path, g_strerror (errno));
    }
  else if (g_unlink (path) != 0 && errno != ENOENT)
    g_warning ("Cannot remove %s: %s", path, g_strerror (errno));
}

void
_km_autosave_remove_models (const char *autosave_path,
                            const char *keep)
{
  g_autofree char *models = _km_autosave_models_dir (autosave_path);
  g_autoptr(GDir) dir = NULL;
  const char *name;

  if (keep == NULL)
    {
      remove_path (models);
      return;
    }
  dir = g_dir_open (models, 0, NULL);
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (models, name, NULL);

      if (g_strcmp0 (child, keep) != 0)
        remove_path (child);
    }
}

/* ---- Running an asynchronous call to its end ---------------------------------------- */

void
_km_sync_call_begin (KmSyncCall *call)
{
  call->context = g_main_context_new ();
  call->result = NULL;
  g_main_context_push_thread_default (call->context);
}

void
_km_sync_call_done_cb (GObject      *source,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  KmSyncCall *call = user_data;

  call->result = g_object_ref (result);
}

GAsyncResult *
_km_sync_call_wait (KmSyncCall *call)
{
  while (call->result == NULL)
    g_main_context_iteration (call->context, TRUE);
  g_main_context_pop_thread_default (call->context);
  g_clear_pointer (&call->context, g_main_context_unref);
  return g_steal_pointer (&call->result);
}

/**
 * km_document_save:
 *
 * km_document_save_async() run to its end on the calling thread: writes the project to
 * @file as a Choreonoid project (atomically: a failed save leaves the old file as it
 * was), the edited skeletons first. On success @file becomes the document's file and the
 * document is unmodified. The editor uses km_document_save_async().
 */
gboolean
km_document_save (KmDocument  *self,
                  GFile       *file,
                  GError     **error)
{
  g_autoptr(GAsyncResult) result = NULL;
  KmSyncCall call;

  g_return_val_if_fail (KM_IS_DOCUMENT (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);

  _km_sync_call_begin (&call);
  km_document_save_async (self, file, NULL, _km_sync_call_done_cb, &call);
  result = _km_sync_call_wait (&call);
  return km_document_save_finish (self, result, error);
}

/**
 * km_document_write_autosave:
 *
 * km_document_write_autosave_async() run to its end on the calling thread.
 */
gboolean
km_document_write_autosave (KmDocument  *self,
                            const char  *path,
                            GError     **error)
{
  g_autoptr(GAsyncResult) result = NULL;
  KmSyncCall call;

  g_return_val_if_fail (KM_IS_DOCUMENT (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  _km_sync_call_begin (&call);
  km_document_write_autosave_async (self, path, NULL, _km_sync_call_done_cb, &call);
  result = _km_sync_call_wait (&call);
  return km_document_write_autosave_finish (self, result, error);
}

/* ---- Writing on a worker thread ------------------------------------------------------ */

typedef enum
{
  JOB_PROJECT,
  JOB_AUTOSAVE,
  JOB_ITEM,
  JOB_EXPORT_ANIMATION,
  JOB_EXPORT_BODY_MOTION,
  JOB_FILES,
} JobKind;

/* What a worker writes, all taken on the main thread: no project object is touched on the
 * worker. */
typedef struct
{
  JobKind              kind;
  char                *path;
  GFile               *file;       /* JOB_PROJECT: @path's; JOB_AUTOSAVE: the project's,
                                    * which the autosave names, or NULL */
  KmProject           *project;    /* JOB_PROJECT: the project saved (main thread only) */
  KmEditedSkeletons   *edited;     /* JOB_PROJECT: written before the project, or NULL
                                    * (its body items main thread only) */
  GHashTable          *ids;        /* JOB_PROJECT: the ids the file gives new items (main thread only) */
  GPtrArray           *subs;       /* JOB_PROJECT: the sub-projects to write back to their
                                    * files (km_cnoid_build_sub_projects; main thread only
                                    * but for km_cnoid_sub_save_write) */
  KmYamlNode          *tree;       /* JOB_PROJECT, JOB_AUTOSAVE: the project file's tree
                                    * (km_cnoid_build_tree), its text made on the worker */
  GBytes              *embedded;   /* the model to put beside the project, or NULL */
  GPtrArray           *embedded_bodies;  /* JOB_PROJECT: the bodies whose model that is
                                          * (main thread only), or NULL */
  char                *embedded_name;   /* its file name there (JOB_AUTOSAVE: its path,
                                         * in @models) */
  char                *models;     /* JOB_AUTOSAVE: the folder of this write's skeleton
                                    * copies (job->edited), whether or not there are any */
  KmCnoidSubCopies    *sub_copies; /* JOB_AUTOSAVE: the changed sub-projects' copies, in
                                    * @models, or NULL (its items main thread only) */
  char                *item_name;  /* JOB_ITEM */
  KmSkeleton          *skeleton;   /* JOB_ITEM: one of these three (JOB_EXPORT_ANIMATION: animation) */
  KmTargetTrack       *targets;
  KmAnimation         *animation;
  double               frame_rate; /* JOB_EXPORT_BODY_MOTION: with skeleton and animation */
  KmTransform          root_pose;
  KmDocumentWriteFunc  write;      /* JOB_FILES: writes write_data */
  gpointer             write_data;
  GDestroyNotify       write_data_free;
  gboolean             project_written;  /* JOB_PROJECT: the project's file is written
                                          * (the worker's), also when the save then failed
                                          * to replace a model file of the user's */
  GPtrArray           *path_warnings;   /* JOB_PROJECT to another file: of char *, what
                                          * km_cnoid_build_tree_warned() says of paths
                                          * written absolute (${SHARE} references, files
                                          * a relative path would reach out of $HOME) */
  GPtrArray           *warnings;   /* of char *, from the worker */
  GPtrArray           *written;    /* of char *: the paths the worker wrote (canonical) */
  char                *expected_identity;  /* JOB_PROJECT: what the file must still be
                                            * to be written over, or NULL to write */
  char                *identity;   /* JOB_PROJECT: the file's once written, or (failed
                                    * with KM_DOCUMENT_ERROR) as it was found, or NULL */
  KmDocumentSaveFlags  flags;      /* JOB_PROJECT: the save's (a save planned again) */
  char                *conflict_sub;  /* JOB_PROJECT failed with KM_DOCUMENT_ERROR: the
                                       * sub-project file so found (@identity then
                                       * km_cnoid_sub_save_get_found's), or NULL: the
                                       * project's */
  GPtrArray           *model_checks;  /* JOB_PROJECT: of ModelCheck, the model files of the
                                    * user's written back (plan_model_checks) */
  char                *conflict_model;  /* JOB_PROJECT failed with KM_DOCUMENT_ERROR: the
                                         * model file so found, or NULL */
} WriteJob;

static void
write_job_free (WriteJob *job)
{
  g_free (job->path);
  g_clear_object (&job->file);
  g_clear_object (&job->project);
  g_clear_pointer (&job->edited, _km_edited_skeletons_free);
  g_clear_pointer (&job->ids, g_hash_table_unref);
  g_clear_pointer (&job->subs, g_ptr_array_unref);
  g_clear_pointer (&job->embedded_bodies, g_ptr_array_unref);
  g_clear_pointer (&job->tree, km_yaml_node_unref);
  g_clear_pointer (&job->embedded, g_bytes_unref);
  g_free (job->embedded_name);
  g_free (job->models);
  g_clear_pointer (&job->sub_copies, km_cnoid_sub_copies_free);
  g_free (job->item_name);
  g_clear_pointer (&job->skeleton, km_skeleton_unref);
  g_clear_pointer (&job->targets, km_target_track_unref);
  g_clear_pointer (&job->animation, km_animation_unref);
  if (job->write_data_free != NULL)
    job->write_data_free (job->write_data);
  g_ptr_array_unref (job->warnings);
  g_ptr_array_unref (job->written);
  g_free (job->expected_identity);
  g_free (job->identity);
  g_free (job->conflict_sub);
  g_clear_pointer (&job->model_checks, g_ptr_array_unref);
  g_clear_pointer (&job->path_warnings, g_ptr_array_unref);
  g_free (job->conflict_model);
  g_free (job);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WriteJob, write_job_free)

static WriteJob *
write_job_new (JobKind     kind,
               const char *path)
{
  WriteJob *job = g_new0 (WriteJob, 1);

  job->kind = kind;
  job->path = g_strdup (path);
  job->warnings = g_ptr_array_new_with_free_func (g_free);
  job->written = g_ptr_array_new_with_free_func (g_free);
  return job;
}

/* An autosave's copy of the built-in example's model (take_autosave_embedded_model). */
static gboolean
write_autosave_example (WriteJob  *job,
                        GError   **error)
{
  if (g_mkdir_with_parents (job->models, 0700) != 0)
    {
      int saved_errno = errno;

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   /* Translators: a folder, then the system's reason */
                   _("%s: cannot create the folder: %s"), job->models,
                   g_strerror (saved_errno));
      return FALSE;
    }
  return km_format_save_data_full (job->embedded_name, g_bytes_get_data (job->embedded, NULL),
                                   g_bytes_get_size (job->embedded), 0600, error);
}

/* Whether the project file at job->path is still what the document last read or wrote
 * there (job->expected_identity), if it asks; else the KM_DOCUMENT_ERROR why not. */
static gboolean
check_unchanged (WriteJob  *job,
                 GError   **error)
{
  g_autofree char *identity = NULL;
  g_autofree char *name = NULL;

  if (job->expected_identity == NULL)
    return TRUE;
  identity = query_path_identity (job->path);
  if (identity != NULL && strcmp (identity, job->expected_identity) == 0)
    return TRUE;
  /* What the user may choose to write over (km_document_accept_disk_conflict). */
  job->identity = g_strdup (identity);
  name = g_filename_display_basename (job->path);
  if (identity == NULL && !g_file_test (job->path, G_FILE_TEST_EXISTS))
    g_set_error (error, KM_DOCUMENT_ERROR, KM_DOCUMENT_ERROR_DELETED_ON_DISK,
                 /* Translators: %s is the project's file name */
                 _("“%s” was deleted or moved since Kinema last read or saved it."), name);
  else
    g_set_error (error, KM_DOCUMENT_ERROR, KM_DOCUMENT_ERROR_CHANGED_ON_DISK,
                 /* Translators: %s is the project's file name */
                 _("“%s” has changed on disk since Kinema last read or saved it."), name);
  return FALSE;
}

/* Whether the sub-projects the save writes are still what was last read or written there,
 * checked like the project's file before anything is written; else the KM_DOCUMENT_ERROR
 * naming the first that is not (or why the sub-projects cannot be written). */
static gboolean
check_subs_unchanged (WriteJob  *job,
                      GError   **error)
{
  for (guint i = 0; job->subs != NULL && i < job->subs->len; i++)
    {
      KmCnoidSubSave *sub = g_ptr_array_index (job->subs, i);
      g_autoptr(GError) local_error = NULL;

      if (km_cnoid_sub_save_check (sub, &local_error))
        continue;
      if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND)
          || g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_WRONG_ETAG))
        {
          /* What the user may choose to write over (km_document_accept_disk_conflict). */
          job->identity = g_strdup (km_cnoid_sub_save_get_found (sub));
          job->conflict_sub = g_strdup (km_cnoid_sub_save_get_path (sub));
          g_set_error_literal (error, KM_DOCUMENT_ERROR,
                               local_error->code == G_IO_ERROR_NOT_FOUND
                               ? KM_DOCUMENT_ERROR_DELETED_ON_DISK
                               : KM_DOCUMENT_ERROR_CHANGED_ON_DISK,
                               local_error->message);
        }
      else
        g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }
  return TRUE;
}

/* Whether the model files of the user's that the save writes back (job->model_checks) are
 * still what their edited bodies were read from or last written as (checksums: a new time
 * alone is no change); else the KM_DOCUMENT_ERROR naming the first that is not, before
 * anything is written. A change made after this is the skeleton writer's to find, which
 * leaves the file alone and writes the edits to a copy. One gone is no conflict: Save
 * writes it again where the project names it. */
static gboolean
check_models_unchanged (WriteJob  *job,
                        GError   **error)
{
  for (guint i = 0; job->model_checks != NULL && i < job->model_checks->len; i++)
    {
      ModelCheck *check = g_ptr_array_index (job->model_checks, i);
      g_autofree char *name = NULL;

      g_free (check->planned);
      check->planned = model_checksum (check->path);
      if (check->planned == NULL
          || (!check->mixed && strcmp (check->planned, check->expected) == 0))
        continue;
      /* What the user may choose to write over (km_document_accept_disk_conflict). */
      job->identity = g_strdup (check->planned);
      job->conflict_model = g_strdup (check->path);
      name = g_filename_display_basename (check->path);
      g_set_error (error, KM_DOCUMENT_ERROR, KM_DOCUMENT_ERROR_CHANGED_ON_DISK,
                   /* Translators: %s is the file name of a project or of a model */
                   _("“%s” has changed on disk since Kinema last read or saved it."), name);
      return FALSE;
    }
  return TRUE;
}

/* Whether the folder the project's file goes in is there; else an error naming both
 * (G_FILE_ERROR_NOENT, or G_FILE_ERROR_NOTDIR where a file took its place). */
static gboolean
check_project_folder (WriteJob  *job,
                      GError   **error)
{
  g_autofree char *folder = g_path_get_dirname (job->path);
  GStatBuf st;

  if (g_stat (folder, &st) == 0 && S_ISDIR (st.st_mode))
    return TRUE;
  if (g_file_test (folder, G_FILE_TEST_EXISTS))
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOTDIR,
                 /* Translators: the project's file, then its folder */
                 _("The project was not saved: the folder of %s, %s, is no folder any more. "
                   "Save it elsewhere with Save As."),
                 job->path, folder);
  else
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                 /* Translators: the project's file, then its folder */
                 _("The project was not saved: the folder of %s, %s, is gone (deleted, moved "
                   "or renamed by another program, or on a disk that is not mounted). Save "
                   "it elsewhere with Save As."),
                 job->path, folder);
  return FALSE;
}

static gboolean
write_job_run (WriteJob  *job,
               GError   **error)
{
  g_autoptr(GError) local_error = NULL;
  gboolean ok;

  switch (job->kind)
    {
    case JOB_PROJECT:
      /* Before anything is written: another program's changes are not written over
       * unasked, in the project's file or in a sub-project's (which a Save As elsewhere
       * writes too). */
      if (!check_unchanged (job, error) || !check_subs_unchanged (job, error)
          || !check_models_unchanged (job, error))
        return FALSE;
      /* Nothing written when the project's folder is gone (renamed, moved, unmounted): the
       * error names the project's file, not the first file the save would write there. */
      if (!check_project_folder (job, error))
        return FALSE;
      /* Nor when a model file of the user's, to be written back or again, has no folder
       * any more: a save does not point the project at a copy of it unasked. */
      if (job->edited != NULL && !_km_edited_skeletons_check_folders (job->edited, error))
        return FALSE;
      /* The edited skeletons first: a project that refers to files not written must not
       * be written. */
      if (job->edited != NULL && !_km_edited_skeletons_write (job->edited, job->warnings, error))
        {
          _km_edited_skeletons_abort (job->edited);
          return FALSE;
        }
      /* Then the changed sub-projects, each to its own file: when one cannot be written
       * (a failed write: they were checked), neither is the project, which stays modified
       * (the sub-projects written stay so). */
      for (guint i = 0; job->subs != NULL && i < job->subs->len; i++)
        {
          KmCnoidSubSave *sub = g_ptr_array_index (job->subs, i);

          if (!km_cnoid_sub_save_write (sub, error))
            {
              if (job->edited != NULL)
                _km_edited_skeletons_abort (job->edited);
              return FALSE;
            }
          if (km_cnoid_sub_save_get_written (sub))
            _km_document_note_written (km_cnoid_sub_save_get_path (sub));
        }
      /* Written as it is made: a long animation's text is never whole in memory. */
      if (!km_cnoid_tree_save (job->tree, NULL, job->path, 0666, &local_error))
        {
          /* The bodies go back to their old files, which stay as they were: nothing
           * refers to the new ones. */
          if (job->edited != NULL)
            _km_edited_skeletons_abort (job->edited);
          /* As km_cnoid_save says it */
          g_set_error (error, G_IO_ERROR, g_io_error_from_file_error (local_error->code),
                       _("The project was not saved: %s"), local_error->message);
          return FALSE;
        }
      /* The project refers to what it wrote now, whatever follows: its file, ids and
       * model files are the document's (write_job_done_cb), also when a file of the
       * user's then cannot be replaced, which the error names (its body stays edited). */
      job->project_written = TRUE;
      ok = job->edited == NULL || _km_edited_skeletons_commit (job->edited, error);
      /* What the file is now is this save's: the editor does not take it for a change. */
      job->identity = query_path_identity (job->path);
      /* Likewise the model files written back. */
      for (guint i = 0; job->model_checks != NULL && i < job->model_checks->len; i++)
        {
          ModelCheck *check = g_ptr_array_index (job->model_checks, i);

          check->after = model_checksum (check->path);
        }
      if (!ok)
        return FALSE;
      break;

    case JOB_AUTOSAVE:
      {
        /* One autosave write at a time: a write removes the copies of the others. */
        static GMutex lock;
        g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&lock);

        /* The skeleton copies first: an autosave that refers to files not written must
         * not be written. The previous autosave and its copies stay until it is. */
        g_autofree char *line = km_autosave_project_line (job->file);

        if (!make_autosave_dir (job->path, error)
            || (job->edited != NULL
                && !_km_edited_skeletons_write (job->edited, job->warnings, error))
            || (job->embedded != NULL && !write_autosave_example (job, error))
            || (job->sub_copies != NULL && !km_cnoid_sub_copies_write (job->sub_copies, error))
            /* Written as it is made, after the line naming the project's file. */
            || !km_cnoid_tree_save (job->tree, line, job->path, 0600, error))
          {
            remove_path (job->models);
            return FALSE;
          }
        _km_autosave_remove_models (job->path,
                                    job->edited != NULL || job->embedded != NULL
                                    || job->sub_copies != NULL ? job->models : NULL);
      }
      return TRUE;

    case JOB_ITEM:
    case JOB_EXPORT_ANIMATION:
      if (job->skeleton != NULL)
        return km_skeleton_json_save (job->skeleton, job->path, error);
      if (job->targets != NULL)
        return km_targets_json_save (job->targets, job->path, error);
      return km_animation_json_save (job->animation, job->path, error);

    case JOB_EXPORT_BODY_MOTION:
      {
        g_autoptr(KmBodyMotion) motion =
          km_body_motion_new_from_animation (job->skeleton, job->animation, job->frame_rate,
                                             &job->root_pose, error);

        return motion != NULL && km_body_motion_save (motion, job->path, error);
      }

    case JOB_FILES:
      return job->write (job->write_data, job->warnings, error);

    default:
      g_assert_not_reached ();
    }

  if (job->embedded != NULL
      && !write_embedded_model (job->path, job->embedded_name, job->embedded, &local_error))
    g_ptr_array_add (job->warnings, g_strdup (local_error->message));
  return TRUE;
}

/* The written paths of the job the worker thread runs (_km_document_note_written). */
static GPrivate job_written;

/**
 * _km_document_note_written:
 *
 * On a worker thread running a write of the document's: @path (the final one, not a
 * temporary file) was written, by the document's doing. Elsewhere nothing.
 */
void
_km_document_note_written (const char *path)
{
  GPtrArray *written = g_private_get (&job_written);

  if (written != NULL && path != NULL)
    g_ptr_array_add (written, g_canonicalize_filename (path, NULL));
}

static void
write_job_thread (GTask        *task,
                  gpointer      source_object,
                  gpointer      task_data,
                  GCancellable *cancellable)
{
  WriteJob *job = task_data;
  GError *error = NULL;
  gboolean ok;

  g_private_set (&job_written, job->written);
  ok = write_job_run (job, &error);
  /* The file the job is named after (a JOB_FILES write notes its own). */
  if (ok && job->path != NULL)
    _km_document_note_written (job->path);
  g_private_set (&job_written, NULL);
  if (ok)
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

/* ---- What a save found another program did, and what the document writes ------------ */

#define DISK_CONFLICT_KEY "km-document-disk-conflict"
#define WRITES_KEY        "km-document-writes"
#define WRITTEN_KEY       "km-document-written"

typedef struct
{
  GError *error;     /* of KM_DOCUMENT_ERROR */
  char   *identity;  /* the file as the save found it, or NULL (gone) */
  char   *sub_path;  /* that file: a sub-project's, or NULL: the project's */
  char   *model_path;  /* or a model file's written back (then @sub_path NULL) */
} DiskConflict;

static void
disk_conflict_free (gpointer data)
{
  DiskConflict *conflict = data;

  g_error_free (conflict->error);
  g_free (conflict->identity);
  g_free (conflict->sub_path);
  g_free (conflict->model_path);
  g_free (conflict);
}

static void
set_disk_conflict (KmDocument   *self,
                   const GError *error,
                   const char   *identity,
                   const char   *sub_path,
                   const char   *model_path)
{
  DiskConflict *conflict = NULL;

  if (error != NULL)
    {
      conflict = g_new0 (DiskConflict, 1);
      conflict->error = g_error_copy (error);
      conflict->identity = g_strdup (identity);
      conflict->sub_path = g_strdup (sub_path);
      conflict->model_path = g_strdup (model_path);
    }
  g_object_set_data_full (G_OBJECT (self), DISK_CONFLICT_KEY, conflict, disk_conflict_free);
}

/**
 * km_document_get_disk_conflict:
 *
 * Why the last project save to the document's file wrote nothing: another program changed
 * or removed the file, or the file of a sub-project the save would write (or changed a
 * skeleton.json of the user's it would write back), since the
 * document read or wrote it (the error's message names the file). Any caller's save, so
 * that the window asks about one it did not start (Save for Choreonoid) as about its own.
 *
 * Returns: (nullable): the error, of %KM_DOCUMENT_ERROR, or %NULL when the last save
 *   did not fail so
 */
const GError *
km_document_get_disk_conflict (KmDocument *self)
{
  DiskConflict *conflict;

  g_return_val_if_fail (KM_IS_DOCUMENT (self), NULL);

  conflict = g_object_get_data (G_OBJECT (self), DISK_CONFLICT_KEY);
  return conflict != NULL ? conflict->error : NULL;
}

/**
 * km_document_accept_disk_conflict:
 *
 * The user chose to write over the file as the last save found it
 * (km_document_get_disk_conflict()): the next save writes over that version, while a
 * change made after it still stops the save. A file that was removed is written again.
 *
 * Returns: whether there was a conflict to accept
 */
gboolean
km_document_accept_disk_conflict (KmDocument *self)
{
  DiskConflict *conflict;

  g_return_val_if_fail (KM_IS_DOCUMENT (self), FALSE);

  conflict = g_object_get_data (G_OBJECT (self), DISK_CONFLICT_KEY);
  if (conflict == NULL)
    return FALSE;
  if (conflict->model_path != NULL)
    /* Overwrite means the user's version: their skeleton, written over the file as
     * the save found it (see km_document_save_async). */
    set_model_checksums (self, conflict->model_path, conflict->identity, NULL);
  else if (conflict->sub_path != NULL)
    km_cnoid_accept_sub_project_file (km_document_get_project (self), conflict->sub_path,
                                      conflict->identity);
  else
    _km_document_set_file_identity (self, km_document_get_project (self), conflict->identity);
  set_disk_conflict (self, NULL, NULL, NULL, NULL);
  return TRUE;
}

typedef struct
{
  KmItemIo   *io;
  const char *path;
  GPtrArray  *items;
} ConflictScan;

static void
collect_conflict_item (gpointer item,
                       gpointer user_data)
{
  ConflictScan *scan = user_data;
  g_autofree char *path = NULL;

  if (KM_IS_BODY_ITEM (item) && (path = body_model_path (scan->io, item)) != NULL
      && strcmp (path, scan->path) == 0)
    g_ptr_array_add (scan->items, g_object_ref (item));
}

/**
 * km_document_dup_disk_conflict_items:
 *
 * The body items whose model file the last save found changed by another program
 * (km_document_get_disk_conflict()): a skeleton.json of the user's that the save would
 * have written back. The window's Reload reads them again.
 *
 * Returns: (transfer full) (element-type KmItem): the items, in tree order; empty when the
 *   conflict is about the project's file or a sub-project's, or there is none
 */
GPtrArray *
km_document_dup_disk_conflict_items (KmDocument *self)
{
  g_auto(KmDocumentItemIo) io = { 0 };
  DiskConflict *conflict;
  ConflictScan scan;

  g_return_val_if_fail (KM_IS_DOCUMENT (self), NULL);

  scan.items = g_ptr_array_new_with_free_func (g_object_unref);
  conflict = g_object_get_data (G_OBJECT (self), DISK_CONFLICT_KEY);
  if (conflict == NULL || conflict->model_path == NULL)
    return scan.items;
  km_document_item_io_init (self, &io);
  scan.io = &io.io;
  scan.path = conflict->model_path;
  km_item_foreach (km_project_get_root_item (km_document_get_project (self)),
                   collect_conflict_item, &scan);
  return scan.items;
}

/**
 * km_document_get_writing:
 *
 * Whether a write of the document's (a project save, a Skeleton tab save, Save Item As,
 * an export; not an autosave, which writes only its own files) runs on a worker thread:
 * a file the project refers to that changes meanwhile changes by the document's doing.
 * KmDocument::files-written is emitted when the last one has ended.
 */
gboolean
km_document_get_writing (KmDocument *self)
{
  g_return_val_if_fail (KM_IS_DOCUMENT (self), FALSE);

  return g_object_get_data (G_OBJECT (self), WRITES_KEY) != NULL;
}

/**
 * km_document_dup_written_paths:
 *
 * The files the document's writes (km_document_get_writing) wrote, those running and
 * those that ended since the first of them began: when KmDocument::files-written is
 * emitted, what those writes changed on disk. Canonical absolute paths, each once.
 *
 * Returns: (transfer full): the paths, %NULL-terminated
 */
GStrv
km_document_dup_written_paths (KmDocument *self)
{
  GHashTable *written;
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  g_return_val_if_fail (KM_IS_DOCUMENT (self), NULL);

  written = g_object_get_data (G_OBJECT (self), WRITTEN_KEY);
  if (written != NULL)
    {
      GHashTableIter iter;
      const char *path;

      g_hash_table_iter_init (&iter, written);
      while (g_hash_table_iter_next (&iter, (gpointer *) &path, NULL))
        g_strv_builder_add (builder, path);
    }
  return g_strv_builder_end (builder);
}

static void
count_write (KmDocument *self,
             int         delta)
{
  guint writes = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (self), WRITES_KEY));

  /* The first of a run of writes: what the ones before wrote is known already. */
  if (writes == 0 && delta > 0)
    g_object_set_data_full (G_OBJECT (self), WRITTEN_KEY,
                            g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL),
                            (GDestroyNotify) g_hash_table_unref);
  writes = (guint) ((int) writes + delta);
  g_object_set_data (G_OBJECT (self), WRITES_KEY, GUINT_TO_POINTER (writes));
  if (writes == 0)
    g_signal_emit_by_name (self, "files-written");
}

/* A project saved elsewhere may refer to files by their absolute paths on this computer
 * (its ${SHARE} references, when the new place finds no share folder; a file a relative
 * path would reach only by climbing out of the home folder), which the user should know
 * before moving the project on. */
static void
log_path_warnings (KmDocument *self,
                   WriteJob   *job)
{
  /* The same words as `kinema-cli convert`'s. */
  for (guint i = 0; i < job->path_warnings->len; i++)
    km_document_log (self, G_LOG_LEVEL_WARNING, "%s: %s", job->path,
                     (const char *) g_ptr_array_index (job->path_warnings, i));
}

/* A save planned again (write_job_done_cb) ends the save it stands for. */
static void
replanned_save_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GTask) outer = user_data;
  GError *error = NULL;

  if (km_document_save_finish (KM_DOCUMENT (source), result, &error))
    g_task_return_boolean (outer, TRUE);
  else
    g_task_return_error (outer, error);
}

/* After a project save: the bodies whose model file of the user's it wrote back go with
 * the file as written. */
static void
update_model_checksums (KmDocument *self,
                        WriteJob   *job)
{
  g_autoptr(GHashTable) checksums = NULL;

  if (job->model_checks == NULL || job->model_checks->len == 0
      || job->project != km_document_get_project (self))
    return;
  checksums = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, NULL);
  for (guint i = 0; i < job->model_checks->len; i++)
    {
      ModelCheck *check = g_ptr_array_index (job->model_checks, i);

      for (guint k = 0; k < job->written->len; k++)
        if (strcmp (g_ptr_array_index (job->written, k), check->path) == 0)
          g_hash_table_insert (checksums, check->path, check->after);
    }
  set_model_checksums (self, NULL, NULL, checksums);
}

/* A save that found a model file of the user's changed while it ran (after it was planned):
 * the skeleton writer left that file alone, and the save planned again writes the edits to
 * a copy, never over it. Its bodies no longer go with it: nothing asks about it. */
static void
forget_models_changed_while_saving (KmDocument *self,
                                    WriteJob   *job)
{
  for (guint i = 0; job->model_checks != NULL && i < job->model_checks->len; i++)
    {
      ModelCheck *check = g_ptr_array_index (job->model_checks, i);
      /* (a read on the main thread: seldom, and a skeleton.json) */
      g_autofree char *checksum = model_checksum (check->path);

      if (g_strcmp0 (checksum, check->planned) != 0 && g_strcmp0 (checksum, check->after) != 0)
        set_model_checksums (self, check->path, NULL, NULL);
    }
}

/* Back on the main thread: the document learns what was written, then the caller. */
static void
write_job_done_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GTask) outer = user_data;
  g_autoptr(KmDocument) self = g_object_ref (g_task_get_source_object (outer));
  WriteJob *job = g_task_get_task_data (G_TASK (result));
  GError *error = NULL;
  gboolean ok = g_task_propagate_boolean (G_TASK (result), &error);
  gboolean counted = job->kind != JOB_AUTOSAVE;
  gboolean project_written = ok || job->project_written;
  gboolean replan = FALSE;

  for (guint i = 0; i < job->warnings->len; i++)
    km_document_log (self, G_LOG_LEVEL_WARNING, "%s",
                     (const char *) g_ptr_array_index (job->warnings, i));
  /* What it wrote (also when it failed after some files): km_document_dup_written_paths. */
  if (counted)
    {
      GHashTable *written = g_object_get_data (G_OBJECT (self), WRITTEN_KEY);

      for (guint i = 0; written != NULL && i < job->written->len; i++)
        g_hash_table_add (written, g_strdup (g_ptr_array_index (job->written, i)));
    }
  switch (job->kind)
    {
    case JOB_PROJECT:
      /* The items keep the ids they were written with, as after km_cnoid_save(); those
       * of the sub-projects written, also when the project then failed. */
      for (guint i = 0; job->subs != NULL && i < job->subs->len; i++)
        {
          KmCnoidSubSave *sub = g_ptr_array_index (job->subs, i);

          if (km_cnoid_sub_save_get_written (sub))
            km_document_log (self, G_LOG_LEVEL_INFO, _("Saved %s."),
                             km_cnoid_sub_save_get_path (sub));
          km_cnoid_sub_save_done (sub);
        }
      if (project_written)
        km_cnoid_saved (job->project, job->ids);
      /* A model copy of Kinema's that the save was to write again had been replaced or
       * changed by another program meanwhile: it was left as it is, and the save is
       * planned again, which writes the body's skeleton to a new copy. */
      replan = job->edited != NULL && _km_edited_skeletons_found_changed (job->edited)
               && job->project == km_document_get_project (self);
      if (replan)
        forget_models_changed_while_saving (self, job);
      /* Before the end: on failure the body items go back to their old files, an
       * undone save rather than an edit made while the file was written. */
      if (job->edited != NULL)
        _km_document_edited_skeletons_done (self, job->edited, project_written);
      if (project_written)
        link_embedded_bodies (job->embedded_bodies, job->path, job->embedded_name);
      _km_document_end_save (self, job->project, project_written ? job->file : NULL);
      if (project_written)
        {
          _km_document_set_file_identity (self, job->project, job->identity);
          update_model_checksums (self, job);
        }
      /* Saved, but not every model file it refers to (their bodies stay edited). */
      if (!ok && project_written && job->project == km_document_get_project (self))
        km_document_set_modified (self, TRUE);
      else if (!ok && error->domain == KM_DOCUMENT_ERROR &&
               error->code != KM_DOCUMENT_ERROR_MODELS_NOT_SAVED)
        set_disk_conflict (self, error, job->identity, job->conflict_sub, job->conflict_model);
      /* Here: the worker may drop the job last. */
      g_clear_object (&job->project);
      g_clear_pointer (&job->edited, _km_edited_skeletons_free);
      g_clear_pointer (&job->ids, g_hash_table_unref);
      g_clear_pointer (&job->subs, g_ptr_array_unref);
      g_clear_pointer (&job->embedded_bodies, g_ptr_array_unref);
      if (project_written)
        km_document_log (self, G_LOG_LEVEL_INFO, _("Saved %s."), job->path);
      if (project_written && job->path_warnings != NULL)
        log_path_warnings (self, job);
      break;
    case JOB_AUTOSAVE:
      /* Here: its body and sub-project items may not be dropped on the worker. */
      g_clear_pointer (&job->edited, _km_edited_skeletons_free);
      g_clear_pointer (&job->sub_copies, km_cnoid_sub_copies_free);
      break;
    case JOB_FILES:
      break;
    case JOB_ITEM:
      if (ok)
        /* Translators: an item's name, then a path */
        km_document_log (self, G_LOG_LEVEL_INFO, _("Saved “%s” to %s."), job->item_name,
                         job->path);
      break;
    case JOB_EXPORT_ANIMATION:
      if (ok)
        km_document_log (self, G_LOG_LEVEL_INFO, _("Exported the animation to %s."),
                         job->path);
      break;
    case JOB_EXPORT_BODY_MOTION:
      if (ok)
        /* Translators: an item's name, then a path */
        km_document_log (self, G_LOG_LEVEL_INFO, _("Exported “%s” as a body motion to %s."),
                         job->item_name, job->path);
      break;
    default:
      g_assert_not_reached ();
    }

  if (replan)
    {
      GCancellable *cancellable = g_task_get_cancellable (outer);

      g_clear_error (&error);
      km_document_save_full_async (self, job->file, job->flags, cancellable, replanned_save_cb,
                                   g_steal_pointer (&outer));
    }
  else if (ok)
    g_task_return_boolean (outer, TRUE);
  else
    g_task_return_error (outer, error);
  if (counted)
    count_write (self, -1);
}

/* Runs @job on a worker thread; @outer (taken; its source object is the document)
 * completes once the document has seen the result. The worker's task holds no document:
 * the worker thread may drop it last. */
static void
write_job_start (WriteJob *job,
                 GTask    *outer)
{
  g_autoptr(GTask) task = g_task_new (NULL, NULL, write_job_done_cb, outer);

  if (job->kind != JOB_AUTOSAVE)
    count_write (g_task_get_source_object (outer), +1);
  g_task_set_source_tag (task, write_job_start);
  g_task_set_task_data (task, job, (GDestroyNotify) write_job_free);
  g_task_run_in_thread (task, write_job_thread);
}

/* The task an async write completes (its source object the document), and in *@path the
 * local path of @file (when @file is given). NULL when @file has none: the task has
 * failed with that error then, and is gone. */
static GTask *
write_task_new (KmDocument          *self,
                GFile               *file,
                GCancellable        *cancellable,
                GAsyncReadyCallback  callback,
                gpointer             user_data,
                gpointer             source_tag,
                char               **path)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  GError *error = NULL;

  g_task_set_source_tag (task, source_tag);
  if (file != NULL && (*path = km_local_file_get_path (file, &error)) == NULL)
    {
      g_task_return_error (task, error);
      return NULL;
    }
  return g_steal_pointer (&task);
}

/* The boolean result of a document task started by the function @source_tag. */
gboolean
_km_document_task_finish (KmDocument    *self,
                          GAsyncResult  *result,
                          gpointer       source_tag,
                          GError       **error)
{
  g_return_val_if_fail (KM_IS_DOCUMENT (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == source_tag, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/* The current body keeps the joint selected now, for the tree written next: setting the
 * selection keeps it (km_document_set_selected_joint), but a model edited or read again
 * since may have left none selected. */
static void
remember_selected_joint (KmDocument *self)
{
  km_document_set_selected_joint (self, km_document_get_selected_joint (self));
}

/**
 * km_document_save_async:
 *
 * Writes the project to @file as a Choreonoid project (atomically: a temporary file,
 * fsync, rename) on a worker thread. The project's tree is made first, on the calling
 * (main) thread, since the project may not be read elsewhere; its text, the costly part
 * (an animation's frames, numbers formatted), is made on the worker
 * (km_cnoid_build_tree). Edited skeletons are written on the worker too, before the
 * project: a skeleton.json of the user's is written back, a model in another format is
 * saved as a copy beside the project in that format (the original is never rewritten),
 * anything else as skeleton.json there. Their body items refer to the new files from the
 * start, and back to the old ones when the save fails. The built-in example's model goes
 * beside the project as skeleton.json, or as skeleton-2.json, … where a skeleton.json of
 * the user's is (which stays as it is, see take_embedded_model); once saved, its bodies
 * refer to that file, as in the project reopened (link_embedded_bodies).
 * KmDocument:saving is %TRUE until the document has taken the result, just before
 * @callback: on success @file is the document's file and the document is unmodified
 * unless it was edited while the file was written; on failure the old file is as it was
 * and the document stays modified. Except for a skeleton.json of the user's that cannot
 * replace the file it is written back to once the project is written: the save fails
 * naming it, the project's file is @file as written (its identity and item ids the
 * document's, as on success), and the document stays modified, that body's skeleton
 * edited (the next save writes it). One project save runs at a time: another fails with
 * %G_IO_ERROR_PENDING. @cancellable is not checked (a started write completes).
 * A save to the document's own file checks first, on the worker, that the file is still
 * what the document last read or wrote there (km_document_get_file_identity): when
 * another program changed or removed it since, nothing is written and the save fails
 * with %KM_DOCUMENT_ERROR (km_document_save_full_async() can write over it). Once
 * written, the file's new identity is the document's. Any save likewise checks the file
 * of each sub-project it would write (km_cnoid_sub_save_check): one another program changed
 * or removed fails the save the same way, nothing written, the message naming that file;
 * %KM_DOCUMENT_SAVE_OVERWRITE, or km_document_accept_disk_conflict(), then writes over
 * the version the failed save found. So does a skeleton.json of the user's that the save
 * writes back (its body's skeleton edited), checked against what its bodies were read from
 * or last written as, the window's item file watch's record (plan_model_checks; one gone
 * is written again, unasked), the message naming
 * it and km_document_dup_disk_conflict_items() its bodies; Overwrite writes the user's
 * version over it. Saved to another file than the document's, a project
 * whose ${SHARE} was found from its old place (share/project/) may have to name files
 * under it by absolute paths: once saved, the document logs a warning saying how many.
 */
void
km_document_save_async (KmDocument          *self,
                        GFile               *file,
                        GCancellable        *cancellable,
                        GAsyncReadyCallback  callback,
                        gpointer             user_data)
{
  km_document_save_full_async (self, file, KM_DOCUMENT_SAVE_NONE, cancellable, callback,
                               user_data);
}

/**
 * km_document_save_full_async:
 * @flags: %KM_DOCUMENT_SAVE_OVERWRITE to write over changes another program made
 *
 * km_document_save_async() with @flags; km_document_save_finish() completes it.
 */
void
km_document_save_full_async (KmDocument          *self,
                             GFile               *file,
                             KmDocumentSaveFlags  flags,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  g_autoptr(GTask) outer = NULL;
  g_autoptr(WriteJob) job = NULL;
  g_autofree char *path = NULL;
  g_autoptr(KmItem) marked = NULL;
  g_autoptr(GPtrArray) path_warnings = NULL;
  GPtrArray *embedded;
  KmProject *project;

  g_return_if_fail (KM_IS_DOCUMENT (self));
  g_return_if_fail (G_IS_FILE (file));

  outer = write_task_new (self, file, cancellable, callback, user_data, km_document_save_async,
                          &path);
  if (outer == NULL)
    return;
  if (km_document_get_saving (self))
    {
      g_task_return_new_error (outer, G_IO_ERROR, G_IO_ERROR_PENDING, "%s",
                               _("The project is being saved already"));
      return;
    }

  project = km_document_get_project (self);
  /* Overwrite, the answer to what the last save found in a sub-project's file: this save
   * writes over that version of it, but asks again about a later change, or another
   * sub-project's (the project's file is written over whatever it holds). */
  if ((flags & KM_DOCUMENT_SAVE_OVERWRITE))
    {
      DiskConflict *conflict = g_object_get_data (G_OBJECT (self), DISK_CONFLICT_KEY);

      if (conflict != NULL && (conflict->sub_path != NULL || conflict->model_path != NULL))
        km_document_accept_disk_conflict (self);
    }
  /* What an earlier save found is answered by this one, or found again. */
  set_disk_conflict (self, NULL, NULL, NULL, NULL);
  job = write_job_new (JOB_PROJECT, path);
  job->flags = flags;
  /* Save As to the same file counts as Save. */
  if (!(flags & KM_DOCUMENT_SAVE_OVERWRITE) && km_document_get_file (self) != NULL
      && g_file_equal (file, km_document_get_file (self)))
    job->expected_identity = g_strdup (km_document_get_file_identity (self));
  /* The model files of the user's it writes back, before the edited skeletons are taken
   * (which marks them saved). */
  job->model_checks = plan_model_checks (self);
  /* The body items refer to the edited skeletons' files before the tree is made. */
  job->edited = _km_document_take_edited_skeletons (self, path);
  remember_selected_joint (self);
  marked = _km_document_mark_unsolved_motion (self);
  embedded = take_embedded_model (project, path, &job->embedded, &job->embedded_name);
  job->tree = km_cnoid_build_tree_warned (project, path, &job->ids, &path_warnings);
  _km_document_unmark_motion (marked);
  /* Said when the project goes to another file (Save As): later saves to that file write
   * the same paths. */
  if ((km_document_get_file (self) == NULL || !g_file_equal (file, km_document_get_file (self)))
      && path_warnings->len > 0)
    job->path_warnings = g_steal_pointer (&path_warnings);
  /* Choreonoid's SubProjectItem: the sub-projects are saved to their own files (Save As
   * elsewhere too: the project's reference to each is rewritten for its new folder, see
   * km_cnoid_build_sub_projects). */
  job->subs = km_cnoid_build_sub_projects (project);
  if (embedded != NULL)
    job->embedded_bodies = g_ptr_array_ref (embedded);
  put_back_embedded_bodies (embedded);
  job->file = g_object_ref (file);
  job->project = g_object_ref (project);
  _km_document_begin_save (self);
  write_job_start (g_steal_pointer (&job), g_steal_pointer (&outer));
}

gboolean
km_document_save_finish (KmDocument    *self,
                         GAsyncResult  *result,
                         GError       **error)
{
  return _km_document_task_finish (self, result, km_document_save_async, error);
}

/**
 * km_document_write_autosave_async:
 *
 * Writes the project to @path as a Choreonoid project, as km_document_save_async() does,
 * but leaves the document alone: its file, modified flag and history stay as they are.
 * The autosave keeps unsaved work aside with it, all of it: the skeletons that no model
 * file holds (edited, new, or not written yet by a project save that runs) are written in
 * a folder beside it (@path with ".models"), which it refers to instead, and
 * km_document_recover_async() puts them back. The project's tree is made on the calling
 * thread, its text and the files written on a worker thread, the copies first; the
 * copies of the autosave written before go once this one is written. The built-in
 * example's model goes in that folder too (never beside @path, where every autosave
 * would share it), and a recovery makes the bodies that refer to it the example's again.
 * So does a copy of each sub-project whose items were changed (and of each sub-project
 * holding one), which the autosave refers to instead of its file
 * (km_cnoid_take_sub_copies()); unchanged sub-projects stay referred to in their files.
 * One write to a @path at a time (KmAutosave sees to it).
 */
void
km_document_write_autosave_async (KmDocument          *self,
                                  const char          *path,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  static guint writes;
  g_autoptr(GTask) outer = NULL;
  g_autoptr(WriteJob) job = NULL;
  g_autofree char *models = NULL;
  g_autofree char *name = NULL;
  g_autoptr(KmItem) marked = NULL;
  GPtrArray *embedded;
  KmProject *project;

  g_return_if_fail (KM_IS_DOCUMENT (self));
  g_return_if_fail (path != NULL);

  outer = write_task_new (self, NULL, cancellable, callback, user_data,
                          km_document_write_autosave_async, NULL);
  project = km_document_get_project (self);
  job = write_job_new (JOB_AUTOSAVE, path);
  /* Named in the autosave: a recovery gives the work back to that file. */
  if (km_document_get_file (self) != NULL)
    job->file = g_object_ref (km_document_get_file (self));
  /* A folder of its own for each write: the previous autosave keeps its copies until this
   * one is written. */
  models = _km_autosave_models_dir (path);
  name = g_strdup_printf ("%" G_GINT64_FORMAT "-%u", g_get_real_time (), ++writes);
  job->models = g_build_filename (models, name, NULL);
  /* The body items refer to those copies while the tree is made, and only then. */
  job->edited = _km_document_take_autosave_skeletons (self, job->models);
  remember_selected_joint (self);
  marked = _km_document_mark_unsolved_motion (self);
  embedded = take_autosave_embedded_model (project, job->models, &job->embedded,
                                           &job->embedded_name);
  /* After the bodies: a sub-project's copy refers to the copies of its skeletons. */
  job->sub_copies = km_cnoid_take_sub_copies (project, job->models);
  job->tree = km_cnoid_build_tree (project, path, NULL);
  _km_document_unmark_motion (marked);
  if (job->sub_copies != NULL)
    km_cnoid_put_back_sub_copies (job->sub_copies);
  put_back_embedded_bodies (embedded);
  if (job->edited != NULL)
    _km_document_put_back_skeletons (self, job->edited);
  write_job_start (g_steal_pointer (&job), g_steal_pointer (&outer));
}

gboolean
km_document_write_autosave_finish (KmDocument    *self,
                                   GAsyncResult  *result,
                                   GError       **error)
{
  return _km_document_task_finish (self, result, km_document_write_autosave_async, error);
}

/**
 * _km_document_write_async:
 *
 * Runs @write (@data, the warnings to log, an error) on a worker thread, for writes of
 * the document's other parts (the Skeleton tab's files). @data is freed with @free_data,
 * on either thread. The warnings are logged on the main thread before @callback.
 */
void
_km_document_write_async (KmDocument          *self,
                          KmDocumentWriteFunc  write,
                          gpointer             data,
                          GDestroyNotify       free_data,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  GTask *outer;
  WriteJob *job;

  g_return_if_fail (KM_IS_DOCUMENT (self));
  g_return_if_fail (write != NULL);

  outer = write_task_new (self, NULL, NULL, callback, user_data, _km_document_write_async,
                          NULL);
  job = write_job_new (JOB_FILES, NULL);
  job->write = write;
  job->write_data = data;
  job->write_data_free = free_data;
  write_job_start (job, outer);
}

gboolean
_km_document_write_finish (KmDocument    *self,
                           GAsyncResult  *result,
                           GError       **error)
{
  return _km_document_task_finish (self, result, _km_document_write_async, error);
}

/* The contents of @item to write on their own, in @job; FALSE when it holds none. */
static gboolean
take_item_contents (KmItem   *item,
                    WriteJob *job)
{
  if (KM_IS_BODY_ITEM (item) && km_body_item_get_skeleton (KM_BODY_ITEM (item)) != NULL)
    job->skeleton = km_skeleton_ref (km_body_item_get_skeleton (KM_BODY_ITEM (item)));
  else if (KM_IS_IK_TARGETS_ITEM (item)
           && km_ik_targets_item_get_track (KM_IK_TARGETS_ITEM (item)) != NULL)
    job->targets = km_target_track_ref (km_ik_targets_item_get_track (KM_IK_TARGETS_ITEM (item)));
  else if (KM_IS_IK_ANIMATION_ITEM (item)
           && km_ik_animation_item_get_animation (KM_IK_ANIMATION_ITEM (item)) != NULL)
    /* A copy: an animation may still be filled in on the main thread. */
    job->animation = km_animation_copy (km_ik_animation_item_get_animation (KM_IK_ANIMATION_ITEM (item)));
  else
    return FALSE;
  job->item_name = g_strdup (km_item_get_name (item));
  return TRUE;
}

static void
set_nothing_to_save (GError **error,
                     KmItem  *item)
{
  /* Translators: %s is an item's name */
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
               _("“%s” holds nothing that can be saved on its own"), km_item_get_name (item));
}

/**
 * km_document_save_item:
 *
 * km_document_save_item_async() run to its end on the calling thread: writes what @item
 * holds to @file (a body's model as skeleton.json, IK targets as targets.json, a solved
 * animation as animation.json). The project is not changed.
 */
gboolean
km_document_save_item (KmDocument  *self,
                       KmItem      *item,
                       GFile       *file,
                       GError     **error)
{
  g_autoptr(GAsyncResult) result = NULL;
  KmSyncCall call;

  g_return_val_if_fail (KM_IS_DOCUMENT (self), FALSE);
  g_return_val_if_fail (KM_IS_ITEM (item), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);

  _km_sync_call_begin (&call);
  km_document_save_item_async (self, item, file, NULL, _km_sync_call_done_cb, &call);
  result = _km_sync_call_wait (&call);
  return km_document_save_item_finish (self, result, error);
}

/**
 * km_document_save_item_async:
 *
 * Writes what @item holds to @file: a body's model as skeleton.json, IK targets as
 * targets.json, a solved animation as animation.json; the serialisation and the write
 * run on a worker thread (the item's contents are taken, by reference or copied, on the
 * calling thread). The project is not changed; the document logs where it went.
 */
void
km_document_save_item_async (KmDocument          *self,
                             KmItem              *item,
                             GFile               *file,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  g_autoptr(GTask) outer = NULL;
  g_autoptr(WriteJob) job = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;

  g_return_if_fail (KM_IS_DOCUMENT (self));
  g_return_if_fail (KM_IS_ITEM (item));
  g_return_if_fail (G_IS_FILE (file));

  outer = write_task_new (self, file, cancellable, callback, user_data,
                          km_document_save_item_async, &path);
  if (outer == NULL)
    return;
  job = write_job_new (JOB_ITEM, path);
  if (!take_item_contents (item, job))
    {
      set_nothing_to_save (&error, item);
      g_task_return_error (outer, g_steal_pointer (&error));
      return;
    }
  write_job_start (g_steal_pointer (&job), g_steal_pointer (&outer));
}

gboolean
km_document_save_item_finish (KmDocument    *self,
                              GAsyncResult  *result,
                              GError       **error)
{
  return _km_document_task_finish (self, result, km_document_save_item_async, error);
}

/**
 * km_document_export_animation_async:
 *
 * Writes the document's solved animation to @file as animation.json, on a worker thread
 * (the animation is copied on the calling thread, so the solve may go on filling it); the
 * document logs where it went. Fails with %G_IO_ERROR_NOT_FOUND when there is no
 * animation.
 */
void
km_document_export_animation_async (KmDocument          *self,
                                    GFile               *file,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  g_autoptr(GTask) outer = NULL;
  g_autoptr(WriteJob) job = NULL;
  g_autofree char *path = NULL;
  KmAnimation *animation;

  g_return_if_fail (KM_IS_DOCUMENT (self));
  g_return_if_fail (G_IS_FILE (file));

  outer = write_task_new (self, file, cancellable, callback, user_data,
                          km_document_export_animation_async, &path);
  if (outer == NULL)
    return;
  animation = km_document_get_animation (self);
  if (animation == NULL)
    {
      g_task_return_new_error (outer, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "%s",
                               _("There is no solved animation to export."));
      return;
    }
  job = write_job_new (JOB_EXPORT_ANIMATION, path);
  job->animation = km_animation_copy (animation);
  write_job_start (g_steal_pointer (&job), g_steal_pointer (&outer));
}

gboolean
km_document_export_animation_finish (KmDocument    *self,
                                     GAsyncResult  *result,
                                     GError       **error)
{
  return _km_document_task_finish (self, result, km_document_export_animation_async, error);
}

/* The model @animation was solved for: its own, else the body's when it fits. */
static KmSkeleton *
animation_model (KmAnimation *animation,
                 KmItem      *body)
{
  KmSkeleton *skeleton = km_animation_get_skeleton (animation);

  if (skeleton == NULL && KM_IS_BODY_ITEM (body))
    skeleton = km_body_item_get_skeleton (KM_BODY_ITEM (body));
  if (skeleton == NULL || km_skeleton_get_n_joints (skeleton) == 0
      || km_skeleton_get_n_dof (skeleton) != km_animation_get_n_dof (animation))
    return NULL;
  return skeleton;
}

/**
 * km_document_export_body_motion_async:
 * @item: an IK animation item (IKAnimationItem) with a solved animation
 *
 * Writes @item's animation to @file as a Choreonoid body motion (.seq, see
 * km_body_motion_new_from_animation()) for Choreonoid to play: the joint values of the
 * model it was solved for, the root link where the body item above it stands, at the
 * animation's frame rate. The animation is copied on the calling thread; the motion is
 * built and written atomically on a worker thread. Fails with %G_IO_ERROR_NOT_SUPPORTED
 * when @item holds no animation that fits a model.
 */
void
km_document_export_body_motion_async (KmDocument          *self,
                                      KmItem              *item,
                                      GFile               *file,
                                      GCancellable        *cancellable,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data)
{
  g_autoptr(GTask) outer = NULL;
  g_autoptr(WriteJob) job = NULL;
  g_autofree char *path = NULL;
  KmAnimation *animation = NULL;
  KmSkeleton *skeleton = NULL;
  KmItem *body;

  g_return_if_fail (KM_IS_DOCUMENT (self));
  g_return_if_fail (KM_IS_ITEM (item));
  g_return_if_fail (G_IS_FILE (file));

  outer = write_task_new (self, file, cancellable, callback, user_data,
                          km_document_export_body_motion_async, &path);
  if (outer == NULL)
    return;
  body = km_item_get_parent (item);
  if (KM_IS_IK_ANIMATION_ITEM (item))
    animation = km_ik_animation_item_get_animation (KM_IK_ANIMATION_ITEM (item));
  if (animation != NULL)
    skeleton = animation_model (animation, body);
  if (skeleton == NULL)
    {
      g_task_return_new_error (outer, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                               /* Translators: %s is an item's name */
                               _("“%s” holds no solved animation of a model to export as a "
                                 "body motion"), km_item_get_name (item));
      return;
    }
  job = write_job_new (JOB_EXPORT_BODY_MOTION, path);
  job->item_name = g_strdup (km_item_get_name (item));
  job->skeleton = km_skeleton_ref (skeleton);
  /* A copy: the solve may still be filling it in on the main thread. */
  job->animation = km_animation_copy (animation);
  job->frame_rate = km_animation_get_frame_rate (animation);
  if (!(job->frame_rate > 0 && job->frame_rate <= KM_BODY_MOTION_MAX_RATE))
    job->frame_rate = KM_TARGET_TRACK_DEFAULT_FRAME_RATE;
  if (KM_IS_BODY_ITEM (body))
    km_body_item_get_root_pose (KM_BODY_ITEM (body), &job->root_pose);
  else
    km_transform_identity (&job->root_pose);
  write_job_start (g_steal_pointer (&job), g_steal_pointer (&outer));
}

gboolean
km_document_export_body_motion_finish (KmDocument    *self,
                                       GAsyncResult  *result,
                                       GError       **error)
{
  return _km_document_task_finish (self, result, km_document_export_body_motion_async, error);
}
