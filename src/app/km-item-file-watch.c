/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-item-file-watch"

#include "config.h"

#include <string.h>
#include <glib/gi18n.h>

#include "km-item-file-watch.h"
#include "km-document-private.h"
#include "km-cnoid.h"
#include "km-format.h"
#include "km-sub-project-item.h"

/* A burst of events (a write, a rename over the file) is checked once it is over. */
#define SETTLE_MS 300
/* Items come and go in bursts too (a project opened, several imported). */
#define SCAN_DELAY_MS 100

/* One watched file. */
typedef struct
{
  char         *path;
  GFile        *file;
  GFileMonitor *monitor;    /* or NULL where the file cannot be watched */
  GCancellable *query;      /* the checksum running, or NULL */
  gboolean      baseline;   /* that one learns what the items' data goes with */
  gboolean      written;    /* that one follows the document's write of the file: all the
                             * items go with what it holds (else only those read since) */
  gboolean      known_set;
  char         *read;       /* the checksum of what the items' data was read from or
                             * written as (NULL: no file) */
  char         *known;      /* that of the file as last seen (NULL: no file) */
  gboolean      dirty;      /* an event came, not checked yet */
  gboolean      changed;    /* another program changed it since: it holds other bytes */
  gboolean      deleted;    /* or removed it (@known NULL then) */
  GPtrArray    *items;      /* of KmItem (references): read from it, in tree order */
} Entry;

struct _KmItemFileWatch
{
  GObject      parent_instance;

  KmDocument  *document;    /* NULL once stopped */
  KmProject   *project;     /* whose items are watched */
  GHashTable  *entries;     /* path → Entry */
  GPtrArray   *order;       /* of char *: the paths in tree order */
  GPtrArray   *connected;   /* of KmItem: the items whose items-changed rescans */
  guint        scan_id;
  guint        check_id;
};

G_DEFINE_FINAL_TYPE (KmItemFileWatch, km_item_file_watch, G_TYPE_OBJECT)

enum {
  CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
entry_free (gpointer data)
{
  Entry *entry = data;

  if (entry->monitor != NULL)
    {
      g_signal_handlers_disconnect_by_data (entry->monitor, entry);
      g_file_monitor_cancel (entry->monitor);
      g_object_unref (entry->monitor);
    }
  if (entry->query != NULL)
    {
      g_cancellable_cancel (entry->query);
      g_object_unref (entry->query);
    }
  g_free (entry->path);
  g_object_unref (entry->file);
  g_free (entry->read);
  g_free (entry->known);
  g_ptr_array_unref (entry->items);
  g_free (entry);
}

static void
emit_changed (KmItemFileWatch *self)
{
  g_signal_emit (self, signals[CHANGED], 0);
}

/* ---- What an item's data goes with ------------------------------------------------------ */

/* Kept on an item: the file its data was read from (or last written to) and the checksum
 * of what that file held then. An item the history brings back (an undone Reload) still
 * has it. The one record of it: a project save reads it to ask before writing over a
 * model file another program changed (km_item_file_watch_get_item_read). */
#define ITEM_READ_KEY "km-item-file-watch-read"

typedef struct
{
  char *path;
  char *checksum;   /* NULL: there was no file */
} ItemRead;

static void
item_read_free (gpointer data)
{
  ItemRead *read = data;

  g_free (read->path);
  g_free (read->checksum);
  g_free (read);
}

/**
 * km_item_file_watch_set_item_read:
 * @item: an item read from the file at @path
 * @path: (type filename): canonical (km_item_file_watch_dup_item_path)
 * @checksum: (nullable): km_format_file_checksum() of what the file held when @item was
 *   read from it or written to it; %NULL: there was no file
 *
 * Records what @item's data goes with.
 */
void
km_item_file_watch_set_item_read (KmItem     *item,
                                  const char *path,
                                  const char *checksum)
{
  ItemRead *read;

  g_return_if_fail (KM_IS_ITEM (item));
  g_return_if_fail (path != NULL);

  read = g_new0 (ItemRead, 1);
  read->path = g_strdup (path);
  read->checksum = g_strdup (checksum);
  g_object_set_data_full (G_OBJECT (item), ITEM_READ_KEY, read, item_read_free);
}

/**
 * km_item_file_watch_get_item_read:
 * @path: (out) (optional): the file @item was read from or last written to (canonical)
 * @checksum: (out) (optional) (nullable): km_format_file_checksum() of what it held then
 *   (%NULL: no file)
 *
 * What @item's data goes with, as km_item_file_watch_set_item_read() recorded it: for a
 * body, from the moment the load that read it is applied (km-document-io.c); for another
 * item, once the watch has seen it.
 *
 * Returns: whether there is such a record
 */
gboolean
km_item_file_watch_get_item_read (KmItem      *item,
                                  const char **path,
                                  const char **checksum)
{
  const ItemRead *read;

  g_return_val_if_fail (KM_IS_ITEM (item), FALSE);

  read = g_object_get_data (G_OBJECT (item), ITEM_READ_KEY);
  if (read == NULL)
    return FALSE;
  if (path != NULL)
    *path = read->path;
  if (checksum != NULL)
    *checksum = read->checksum;
  return TRUE;
}

/* @entry's items go with what its file held when it was read: those read since (without a
 * record for it), or, after the document wrote it (@all), every one. An item read earlier
 * keeps what it was read from (a copy of it read later does not make it newer). */
static void
remember_read (Entry    *entry,
               gboolean  all)
{
  for (guint i = 0; i < entry->items->len; i++)
    {
      KmItem *item = g_ptr_array_index (entry->items, i);
      const char *path;

      if (!all && km_item_file_watch_get_item_read (item, &path, NULL)
          && strcmp (path, entry->path) == 0)
        continue;
      km_item_file_watch_set_item_read (item, entry->path, entry->read);
    }
}

/* Whether each of @items (of the file at @path) was read from the same version of it, seen
 * here: the checksum of that in *@checksum. */
static gboolean
items_read_checksum (GPtrArray   *items,
                     const char  *path,
                     char       **checksum)
{
  const ItemRead *first = NULL;

  for (guint i = 0; i < items->len; i++)
    {
      const ItemRead *read = g_object_get_data (g_ptr_array_index (items, i), ITEM_READ_KEY);

      if (read == NULL || strcmp (read->path, path) != 0
          || (first != NULL && g_strcmp0 (read->checksum, first->checksum) != 0))
        return FALSE;
      first = read;
    }
  if (first == NULL)
    return FALSE;
  *checksum = g_strdup (first->checksum);
  return TRUE;
}

/* ---- Checking a file -------------------------------------------------------------------- */

/* On a worker thread: the SHA-256 of what the file (task data) holds, or an error
 * (G_IO_ERROR_NOT_FOUND: there is none). The bytes, not the file's time: a `touch`, or an
 * editor saving what the file already held, changes nothing the items were read from. */
static void
checksum_thread (GTask        *task,
                 gpointer      source_object,
                 gpointer      task_data,
                 GCancellable *cancellable)
{
  GError *error = NULL;
  char *checksum = km_format_file_checksum (task_data, cancellable, &error);

  if (checksum == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, checksum, g_free);
}

/* A query's watch and entry. The task run in the thread has no source object: the worker
 * may drop the task last, and the watch (a document's) is only ever finalized on the main
 * thread; the callback takes it back from its weak reference. */
typedef struct
{
  GWeakRef  watch;
  Entry    *entry;   /* valid while the watch is and the query is not cancelled */
} Query;

static void
query_free (Query *query)
{
  g_weak_ref_clear (&query->watch);
  g_free (query);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Query, query_free)

static void
query_done_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(Query) query = user_data;
  g_autoptr(KmItemFileWatch) self = g_weak_ref_get (&query->watch);
  g_autoptr(GError) error = NULL;
  g_autofree char *checksum = g_task_propagate_pointer (G_TASK (result), &error);
  Entry *entry;

  /* Cancelled: another query replaced it, or the entry went (the watch too). */
  if (self == NULL || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  entry = query->entry;
  g_clear_object (&entry->query);
  if (entry->baseline || !entry->known_set)
    {
      g_free (entry->read);
      entry->read = g_strdup (checksum);
      g_free (entry->known);
      entry->known = g_steal_pointer (&checksum);
      entry->known_set = TRUE;
      remember_read (entry, entry->written);
      entry->written = FALSE;
      /* Kinema wrote the file (a save putting back a deleted model, an edited skeleton written
       * over an outside change): it holds what the items have now, whatever the bar said. */
      if (entry->changed)
        {
          entry->changed = FALSE;
          entry->deleted = FALSE;
          emit_changed (self);
        }
      return;
    }
  /* Maybe the document's write: checked again once the writes are over. */
  if (self->document != NULL && km_document_get_writing (self->document))
    {
      entry->dirty = TRUE;
      return;
    }
  /* Unreadable for now: its next event tells what it became. (Gone while another
   * program replaces it is seldom seen once the burst has settled.) */
  if (checksum == NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    return;
  if (g_strcmp0 (checksum, entry->known) == 0 || self->document == NULL)
    return;
  g_free (entry->known);
  entry->known = g_steal_pointer (&checksum);
  /* Back to what the items were read from (the same bytes written again, a file deleted
   * and put back): nothing to reload. */
  if (entry->known != NULL && g_strcmp0 (entry->known, entry->read) == 0)
    {
      if (entry->changed)
        {
          entry->changed = FALSE;
          entry->deleted = FALSE;
          emit_changed (self);
        }
      return;
    }
  /* Changed, deleted, or back after it was deleted: the bar says which. */
  if (entry->changed && entry->deleted == (entry->known == NULL))
    return;
  entry->changed = TRUE;
  entry->deleted = entry->known == NULL;
  if (entry->deleted)
    km_document_log (self->document, G_LOG_LEVEL_WARNING,
                     /* Translators: a path */
                     _("%s was deleted or moved."), entry->path);
  else
    km_document_log (self->document, G_LOG_LEVEL_WARNING,
                     /* Translators: a path */
                     _("%s changed on disk."), entry->path);
  emit_changed (self);
}

/* Reads what @entry's file holds, off the main thread: what the items' data goes with
 * (@baseline), or whether it changed. */
static void
start_query (KmItemFileWatch *self,
             Entry           *entry,
             gboolean         baseline)
{
  g_autoptr(GTask) task = NULL;
  Query *query = g_new0 (Query, 1);

  if (entry->query != NULL)
    {
      g_cancellable_cancel (entry->query);
      g_object_unref (entry->query);
    }
  entry->query = g_cancellable_new ();
  entry->baseline = baseline;
  /* (a write's baseline replaced by another stays one) */
  if (!baseline)
    entry->written = FALSE;
  /* Answered in the main loop, also when a synchronous save (its own context) ends. */
  g_main_context_push_thread_default (g_main_context_default ());
  g_weak_ref_init (&query->watch, self);
  query->entry = entry;
  task = g_task_new (NULL, entry->query, query_done_cb, query);
  g_main_context_pop_thread_default (g_main_context_default ());
  g_task_set_source_tag (task, start_query);
  g_task_set_task_data (task, g_object_ref (entry->file), g_object_unref);
  g_task_run_in_thread (task, checksum_thread);
}

static void
check_cb (gpointer data)
{
  KmItemFileWatch *self = data;
  GHashTableIter iter;
  Entry *entry;

  g_clear_handle_id (&self->check_id, g_source_remove);
  /* The document's own write: its end takes what the files are as known. */
  if (self->document == NULL || km_document_get_writing (self->document))
    return;
  g_hash_table_iter_init (&iter, self->entries);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &entry))
    {
      if (!entry->dirty)
        continue;
      entry->dirty = FALSE;
      /* (what a running baseline query learns is what the file is now) */
      if (entry->query == NULL || !entry->baseline)
        start_query (self, entry, FALSE);
    }
}

static void
monitor_changed_cb (GFileMonitor      *monitor,
                    GFile             *file,
                    GFile             *other,
                    GFileMonitorEvent  event,
                    gpointer           user_data)
{
  Entry *entry = user_data;
  KmItemFileWatch *self = g_object_get_data (G_OBJECT (monitor), "km-watch");

  if (event == G_FILE_MONITOR_EVENT_PRE_UNMOUNT || event == G_FILE_MONITOR_EVENT_UNMOUNTED)
    return;
  entry->dirty = TRUE;
  /* Checked once the burst is over. */
  g_clear_handle_id (&self->check_id, g_source_remove);
  self->check_id = g_timeout_add_once (SETTLE_MS, check_cb, self);
}

static Entry *
entry_new (KmItemFileWatch *self,
           const char      *path)
{
  Entry *entry = g_new0 (Entry, 1);
  g_autoptr(GError) error = NULL;

  entry->path = g_strdup (path);
  entry->file = g_file_new_for_path (path);
  entry->items = g_ptr_array_new_with_free_func (g_object_unref);
  /* Reporting to the main loop, also when made while a synchronous save runs. */
  g_main_context_push_thread_default (g_main_context_default ());
  entry->monitor = g_file_monitor_file (entry->file, G_FILE_MONITOR_NONE, NULL, &error);
  g_main_context_pop_thread_default (g_main_context_default ());
  if (entry->monitor == NULL)
    g_debug ("Cannot watch %s: %s", path, error->message);
  else
    {
      g_object_set_data (G_OBJECT (entry->monitor), "km-watch", self);
      g_signal_connect (entry->monitor, "changed", G_CALLBACK (monitor_changed_cb), entry);
    }
  return entry;
}

/* ---- Which files ------------------------------------------------------------------------ */

/* The file @item was read from as the project names it, or NULL. The built-in example's
 * body has none: its "skeleton.json" is the embedded model. */
static const char *
item_reference (KmItem *item)
{
  if (g_object_get_data (G_OBJECT (item), "km-embedded-model") != NULL)
    return NULL;
  return km_item_get_file (item);
}

/**
 * km_item_file_watch_dup_item_path:
 * @io: the document's (km_document_item_io_init)
 *
 * The file @item was read from, as the watch watches it: canonical, path variables
 * expanded, a relative reference of an item of a sub-project relative to that
 * sub-project's folder; %NULL for none (the built-in example's body) or one that does not
 * resolve.
 *
 * Returns: (transfer full) (nullable) (type filename): the path
 */
char *
km_item_file_watch_dup_item_path (KmItemIo *io,
                                  KmItem   *item)
{
  const char *reference;
  g_autofree char *dir = NULL;
  g_autofree char *expanded = NULL;
  g_autofree char *shown = NULL;

  g_return_val_if_fail (io != NULL, NULL);
  g_return_val_if_fail (KM_IS_ITEM (item), NULL);

  reference = item_reference (item);
  if (reference == NULL || *reference == '\0')
    return NULL;
  if (!g_path_is_absolute (reference)
      && km_item_find_ancestor_by_type (item, KM_TYPE_SUB_PROJECT_ITEM) != NULL
      && (dir = _km_item_reference_dir (item, io->dir)) != NULL)
    {
      KmItemIo sub_io = *io;

      sub_io.dir = dir;
      expanded = km_item_io_expand_path (&sub_io, reference, NULL);
      return expanded != NULL ? g_canonicalize_filename (expanded, NULL) : NULL;
    }
  expanded = km_item_io_expand_path (io, reference, NULL);
  shown = expanded != NULL && io->file != NULL ? km_cnoid_shown_path (io, reference, expanded)
                                               : g_strdup (expanded);
  return shown != NULL ? g_canonicalize_filename (shown, NULL) : NULL;
}

static void schedule_scan (KmItemFileWatch *self);

/* Adds @item's file and those of the items below it to @found (path → items) and @order. */
static void
collect (KmItemFileWatch  *self,
         KmItem           *item,
         KmDocumentItemIo *io,
         GHashTable       *found,
         GPtrArray        *order)
{
  g_autofree char *path = km_item_file_watch_dup_item_path (&io->io, item);

  g_signal_connect_object (item, "items-changed", G_CALLBACK (schedule_scan), self,
                           G_CONNECT_SWAPPED);
  g_ptr_array_add (self->connected, g_object_ref (item));
  if (path != NULL)
    {
      GPtrArray *items = g_hash_table_lookup (found, path);

      if (items == NULL)
        {
          items = g_ptr_array_new_with_free_func (g_object_unref);
          g_hash_table_insert (found, g_strdup (path), items);
          g_ptr_array_add (order, g_strdup (path));
        }
      g_ptr_array_add (items, g_object_ref (item));
    }
  for (guint i = 0; i < km_item_get_n_children (item); i++)
    collect (self, km_item_get_child (item, i), io, found, order);
}

static void
disconnect_items (KmItemFileWatch *self)
{
  for (guint i = 0; i < self->connected->len; i++)
    g_signal_handlers_disconnect_by_data (g_ptr_array_index (self->connected, i), self);
  g_ptr_array_set_size (self->connected, 0);
}

/* Whether @items holds an item that @old does not: one read (again) since. */
static gboolean
has_new_items (GPtrArray *old,
               GPtrArray *items)
{
  for (guint i = 0; i < items->len; i++)
    if (!g_ptr_array_find (old, g_ptr_array_index (items, i), NULL))
      return TRUE;
  return FALSE;
}

/* Watches the files of the items there are now: new ones from what they are now, those
 * read again likewise (no longer changed), and no more those no item refers to. */
static void
scan (KmItemFileWatch *self)
{
  g_auto(KmDocumentItemIo) io = { 0 };
  g_autoptr(GHashTable) found = NULL;
  g_autoptr(GPtrArray) order = NULL;
  GHashTableIter iter;
  const char *path;
  Entry *entry;
  gboolean changed = FALSE;

  disconnect_items (self);
  if (self->document == NULL)
    return;
  found = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                 (GDestroyNotify) g_ptr_array_unref);
  order = g_ptr_array_new_with_free_func (g_free);
  km_document_item_io_init (self->document, &io);
  collect (self, km_project_get_root_item (self->project), &io, found, order);

  g_hash_table_iter_init (&iter, self->entries);
  while (g_hash_table_iter_next (&iter, (gpointer *) &path, (gpointer *) &entry))
    if (!g_hash_table_contains (found, path))
      {
        changed |= entry->changed;
        g_hash_table_iter_remove (&iter);
      }
  for (guint i = 0; i < order->len; i++)
    {
      GPtrArray *items;
      gboolean start = FALSE;

      path = g_ptr_array_index (order, i);
      items = g_hash_table_lookup (found, path);
      entry = g_hash_table_lookup (self->entries, path);
      if (entry == NULL)
        {
          entry = entry_new (self, path);
          g_hash_table_insert (self->entries, g_strdup (path), entry);
          start = TRUE;
        }
      else if (has_new_items (entry->items, items))
        {
          changed |= entry->changed;
          entry->changed = FALSE;
          entry->deleted = FALSE;
          entry->dirty = FALSE;
          start = TRUE;
        }
      if (start)
        {
          g_autofree char *read = NULL;

          /* Items seen before (the history brought them back): changed when the file no
           * longer holds what they were read from. Else read now: what it holds is known. */
          if (items_read_checksum (items, path, &read))
            {
              g_free (entry->known);
              entry->known = g_strdup (read);
              g_free (entry->read);
              entry->read = g_steal_pointer (&read);
              entry->known_set = TRUE;
              start_query (self, entry, FALSE);
            }
          else
            start_query (self, entry, TRUE);
        }
      {
        g_autofree char *key = NULL;

        g_ptr_array_unref (entry->items);
        g_hash_table_steal_extended (found, path, (gpointer *) &key, (gpointer *) &entry->items);
      }
    }
  g_ptr_array_unref (self->order);
  self->order = g_steal_pointer (&order);
  if (changed)
    emit_changed (self);
}

static void
scan_cb (gpointer data)
{
  KmItemFileWatch *self = data;

  self->scan_id = 0;
  scan (self);
}

static void
schedule_scan (KmItemFileWatch *self)
{
  if (self->scan_id == 0 && self->document != NULL)
    self->scan_id = g_timeout_add_once (SCAN_DELAY_MS, scan_cb, self);
}

/* The document's writes are over: what the files they wrote are now is its doing; the
 * others changed meanwhile are checked as usual. */
static void
files_written_cb (KmItemFileWatch *self)
{
  g_auto(GStrv) written = km_document_dup_written_paths (self->document);
  GHashTableIter iter;
  const char *path;
  Entry *entry;

  g_hash_table_iter_init (&iter, self->entries);
  while (g_hash_table_iter_next (&iter, (gpointer *) &path, (gpointer *) &entry))
    if (g_strv_contains ((const char * const *) written, path))
      {
        entry->dirty = FALSE;
        entry->written = TRUE;
        start_query (self, entry, TRUE);
      }
  /* (check_cb skipped them while the document wrote) */
  check_cb (self);
  /* A save may have switched the bodies to other files. */
  schedule_scan (self);
}

static void
project_changed_cb (KmItemFileWatch *self)
{
  if (self->document == NULL)
    return;
  g_set_object (&self->project, km_document_get_project (self->document));
  schedule_scan (self);
}

/* ---- The object ------------------------------------------------------------------------- */

/**
 * km_item_file_watch_stop:
 *
 * Stops watching: the monitors and queries are cancelled, the document is dropped.
 */
void
km_item_file_watch_stop (KmItemFileWatch *self)
{
  g_return_if_fail (KM_IS_ITEM_FILE_WATCH (self));

  disconnect_items (self);
  g_clear_handle_id (&self->scan_id, g_source_remove);
  g_clear_handle_id (&self->check_id, g_source_remove);
  g_hash_table_remove_all (self->entries);
  g_ptr_array_set_size (self->order, 0);
  if (self->document != NULL)
    g_signal_handlers_disconnect_by_data (self->document, self);
  g_clear_object (&self->document);
  g_clear_object (&self->project);
}

static void
km_item_file_watch_dispose (GObject *object)
{
  km_item_file_watch_stop (KM_ITEM_FILE_WATCH (object));
  G_OBJECT_CLASS (km_item_file_watch_parent_class)->dispose (object);
}

static void
km_item_file_watch_finalize (GObject *object)
{
  KmItemFileWatch *self = KM_ITEM_FILE_WATCH (object);

  g_hash_table_unref (self->entries);
  g_ptr_array_unref (self->order);
  g_ptr_array_unref (self->connected);
  G_OBJECT_CLASS (km_item_file_watch_parent_class)->finalize (object);
}

static void
km_item_file_watch_class_init (KmItemFileWatchClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = km_item_file_watch_dispose;
  object_class->finalize = km_item_file_watch_finalize;

  /**
   * KmItemFileWatch::changed:
   *
   * The set of items whose file changed on disk (km_item_file_watch_dup_items) changed.
   */
  signals[CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                   0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
km_item_file_watch_init (KmItemFileWatch *self)
{
  self->entries = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, entry_free);
  self->order = g_ptr_array_new_with_free_func (g_free);
  self->connected = g_ptr_array_new_with_free_func (g_object_unref);
}

KmItemFileWatch *
km_item_file_watch_new (KmDocument *document)
{
  KmItemFileWatch *self;

  g_return_val_if_fail (KM_IS_DOCUMENT (document), NULL);

  self = g_object_new (KM_TYPE_ITEM_FILE_WATCH, NULL);
  self->document = g_object_ref (document);
  g_signal_connect_object (document, "notify::project", G_CALLBACK (project_changed_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (document, "files-written", G_CALLBACK (files_written_cb), self,
                           G_CONNECT_SWAPPED);
  project_changed_cb (self);
  return self;
}

GPtrArray *
km_item_file_watch_dup_items (KmItemFileWatch *self)
{
  GPtrArray *items = g_ptr_array_new_with_free_func (g_object_unref);

  g_return_val_if_fail (KM_IS_ITEM_FILE_WATCH (self), items);

  for (guint i = 0; i < self->order->len; i++)
    {
      Entry *entry = g_hash_table_lookup (self->entries, g_ptr_array_index (self->order, i));

      /* (nothing to read again where the file is gone) */
      if (entry == NULL || !entry->changed || entry->deleted)
        continue;
      for (guint k = 0; k < entry->items->len; k++)
        g_ptr_array_add (items, g_object_ref (g_ptr_array_index (entry->items, k)));
    }
  return items;
}

GPtrArray *
km_item_file_watch_dup_paths (KmItemFileWatch *self)
{
  GPtrArray *paths = g_ptr_array_new_with_free_func (g_free);

  g_return_val_if_fail (KM_IS_ITEM_FILE_WATCH (self), paths);

  for (guint i = 0; i < self->order->len; i++)
    {
      Entry *entry = g_hash_table_lookup (self->entries, g_ptr_array_index (self->order, i));

      if (entry != NULL && entry->changed)
        g_ptr_array_add (paths, g_strdup (entry->path));
    }
  return paths;
}

void
km_item_file_watch_forget (KmItemFileWatch *self)
{
  GHashTableIter iter;
  Entry *entry;
  gboolean changed = FALSE;

  g_return_if_fail (KM_IS_ITEM_FILE_WATCH (self));

  g_hash_table_iter_init (&iter, self->entries);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &entry))
    {
      changed |= entry->changed;
      entry->changed = FALSE;
      entry->deleted = FALSE;
    }
  if (changed)
    emit_changed (self);
}

/**
 * km_item_file_watch_get_deleted:
 *
 * Whether the file at @path (one of km_item_file_watch_dup_paths) was deleted or moved,
 * rather than changed: its items cannot be read again.
 */
gboolean
km_item_file_watch_get_deleted (KmItemFileWatch *self,
                                const char      *path)
{
  Entry *entry;

  g_return_val_if_fail (KM_IS_ITEM_FILE_WATCH (self), FALSE);

  entry = g_hash_table_lookup (self->entries, path);
  return entry != NULL && entry->changed && entry->deleted;
}
