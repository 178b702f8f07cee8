/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-autosave"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "km-autosave.h"

#include "km-document-private.h"

/*
 * Autosave: every `interval` seconds (0 = off) a modified document's project is written
 * aside to $XDG_STATE_HOME/kinema/autosave/autosave-PID-N.cnoid, without touching the
 * document's file or modified flag. The file goes away when the document becomes clean
 * (saved, or a new project) and when the autosave is disposed (the window closed
 * normally), so a file left there means Kinema ended without either: the next start
 * offers it for recovery (km_autosave_list_recovery).
 *
 * The timeout writes on a worker thread (km_document_write_autosave_async) and never while
 * its previous write still runs. Skeletons that no model file holds, and copies of the
 * sub-projects changed since they were read or saved, go in a folder beside the file
 * (autosave-PID-N.cnoid.models), which goes with it.
 *
 * Which autosaves belong to a process that still runs is told by a lock, not by the
 * process id in the name (ids are reused, and each Flatpak sandbox counts from 1): each
 * autosave holds an advisory lock (flock) on a file beside it, PATH.lock, from the moment
 * it picks its name to its end; the kernel drops the lock when the process ends, however
 * it ends. km_autosave_list_recovery() offers only the autosaves whose lock is free, and
 * leaves the others (and their skeleton copies) alone; km_autosave_claim() takes the lock
 * of the one a window offers, so that no other instance offers the same work meanwhile.
 *
 * The autosave of a project that has a file starts with a comment naming it
 * (km_autosave_project_line): in the file itself, so that it cannot outlive or miss the
 * autosave; the recovery bar names the project, and a recovery gives the work back to that
 * file (km_autosave_dup_project_file).
 */

/* A YAML comment, which a project's parser skips. */
#define PROJECT_LINE_PREFIX "# Kinema autosave of "
/* Enough for the line of the longest path (PATH_MAX, each byte %-escaped). */
#define PROJECT_LINE_MAX (sizeof PROJECT_LINE_PREFIX + 3 * 4096 + 16)

struct _KmAutosave
{
  GObject     parent_instance;

  /* Owned */
  KmDocument *document;
  char       *path;
  int         lock_fd;   /* holds the lock on PATH.lock; -1 when it could not be taken */

  guint       interval;
  guint       timeout_id;
  gboolean    writing;
  gboolean    discard_written;  /* discarded while writing: once the write ends */
  gboolean    keep;             /* km_autosave_keep(): no more writes, the file stays */
};

enum {
  PROP_0,
  PROP_INTERVAL,
  N_PROPS
};

enum {
  SIGNAL_WILL_WRITE,
  N_SIGNALS
};

G_DEFINE_FINAL_TYPE (KmAutosave, km_autosave, G_TYPE_OBJECT)

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

/* "PATH.lock": the file whose lock the autosave at @autosave_path holds while it runs. */
static char *
lock_path (const char *autosave_path)
{
  return g_strconcat (autosave_path, ".lock", NULL);
}

/*
 * Takes the lock of the autosave at @autosave_path without waiting, and returns the
 * descriptor that holds it (closing it releases it), or -1 when another open file holds
 * it (its owner runs, or another instance claimed it) or there is no lock file and not
 * @create. A lock file another process removed and made anew between the open and the
 * lock does not count: the lock must be on the file that the name leads to.
 */
static int
take_lock (const char *autosave_path,
           gboolean    create)
{
  g_autofree char *lock = lock_path (autosave_path);
  struct stat held, named;
  int fd;

  gboolean created = FALSE;
  int saved_errno;

  fd = open (lock, O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0 && create && errno == ENOENT)
    {
      fd = open (lock, O_RDWR | O_CLOEXEC | O_CREAT | O_EXCL, 0600);
      created = fd >= 0;
      if (fd < 0 && errno == EEXIST)   /* another process made it just now */
        fd = open (lock, O_RDWR | O_CLOEXEC, 0600);
    }
  if (fd < 0)
    return -1;
  if (flock (fd, LOCK_EX | LOCK_NB) != 0)
    {
      /* Held elsewhere (EWOULDBLOCK), or no flock on this file system (ENOLCK,
       * EOPNOTSUPP…): then a lock file made here would only stand for a lock nobody
       * holds, and hide this autosave from recovery for good. */
      saved_errno = errno;
      if (created)
        unlink (lock);
      close (fd);
      errno = saved_errno;
      return -1;
    }
  if (fstat (fd, &held) != 0 || stat (lock, &named) != 0
      || held.st_dev != named.st_dev || held.st_ino != named.st_ino)
    {
      close (fd);
      errno = EWOULDBLOCK;   /* replaced meanwhile: taken */
      return -1;
    }
  return fd;
}

/* The autosaves whose locks this process holds: its own (path → its KmAutosave) and those
 * it claimed (path → the descriptor, km_autosave_claim). Their lock files are not opened
 * again here: where flock is emulated with POSIX locks (some network file systems),
 * closing another descriptor of the file would release the lock. */
static GHashTable *held_own;
static GHashTable *held_claimed;
G_LOCK_DEFINE_STATIC (held);

static gboolean
held_here (const char *autosave_path)
{
  gboolean held;

  G_LOCK (held);
  held = (held_own != NULL && g_hash_table_contains (held_own, autosave_path))
         || (held_claimed != NULL && g_hash_table_contains (held_claimed, autosave_path));
  G_UNLOCK (held);
  return held;
}

/* Whether the process that wrote the autosave at @autosave_path has ended (and no other
 * instance claimed its work): whether its lock is free. An autosave without a lock file
 * has no running owner either: an owner makes its lock file before it writes anything,
 * and keeps it until its autosave is gone. */
static gboolean
owner_ended (const char *autosave_path)
{
  g_autofree char *lock = lock_path (autosave_path);
  int fd;

  if (held_here (autosave_path))
    return FALSE;
  fd = take_lock (autosave_path, FALSE);
  if (fd >= 0)
    {
      close (fd);
      return TRUE;
    }
  return !g_file_test (lock, G_FILE_TEST_EXISTS);
}

static void
timeout_save_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  KmAutosave *self = KM_AUTOSAVE (source);
  g_autoptr(GError) error = NULL;

  if (!km_autosave_save_finish (self, result, &error) && self->document != NULL)
    km_document_log (self->document, G_LOG_LEVEL_WARNING,
                     /* Translators: %s is the reason */
                     _("Autosave failed: %s"), error->message);
}

static gboolean
timeout_cb (gpointer data)
{
  KmAutosave *self = data;

  /* A slow disk: the next write waits for the next timeout. */
  if (!self->writing)
    km_autosave_save_async (self, NULL, timeout_save_cb, NULL);
  return G_SOURCE_CONTINUE;
}

static void
restart_timeout (KmAutosave *self)
{
  g_clear_handle_id (&self->timeout_id, g_source_remove);
  if (self->interval > 0 && self->document != NULL && !self->keep)
    self->timeout_id = g_timeout_add_seconds (self->interval, timeout_cb, self);
}

static void
document_notify_modified_cb (KmAutosave *self)
{
  if (!km_document_get_modified (self->document))
    km_autosave_discard (self);
}

static void
km_autosave_dispose (GObject *object)
{
  KmAutosave *self = KM_AUTOSAVE (object);

  g_clear_handle_id (&self->timeout_id, g_source_remove);
  /* (Kept: the unsaved work stays for the next start to offer; only the lock goes.) */
  if (!self->keep)
    km_autosave_discard (self);
  g_clear_object (&self->document);

  G_OBJECT_CLASS (km_autosave_parent_class)->dispose (object);
}

static void
km_autosave_finalize (GObject *object)
{
  KmAutosave *self = KM_AUTOSAVE (object);

  /* Once the autosave is gone (dispose, or the end of the write that outlived it). */
  if (self->lock_fd >= 0)
    {
      g_autofree char *lock = lock_path (self->path);

      g_unlink (lock);
      close (self->lock_fd);
      G_LOCK (held);
      g_hash_table_remove (held_own, self->path);
      G_UNLOCK (held);
    }
  g_free (self->path);

  G_OBJECT_CLASS (km_autosave_parent_class)->finalize (object);
}

static void
km_autosave_get_property (GObject    *object,
                          guint       prop_id,
                          GValue     *value,
                          GParamSpec *pspec)
{
  KmAutosave *self = KM_AUTOSAVE (object);

  switch (prop_id)
    {
    case PROP_INTERVAL:
      g_value_set_uint (value, self->interval);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
km_autosave_set_property (GObject      *object,
                          guint         prop_id,
                          const GValue *value,
                          GParamSpec   *pspec)
{
  KmAutosave *self = KM_AUTOSAVE (object);

  switch (prop_id)
    {
    case PROP_INTERVAL:
      km_autosave_set_interval (self, g_value_get_uint (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
km_autosave_class_init (KmAutosaveClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = km_autosave_dispose;
  object_class->finalize = km_autosave_finalize;
  object_class->get_property = km_autosave_get_property;
  object_class->set_property = km_autosave_set_property;

  /* Seconds between autosaves; 0 turns autosave off (the GSettings key autosave-interval). */
  properties[PROP_INTERVAL] =
    g_param_spec_uint ("interval", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * KmAutosave::will-write:
   *
   * Emitted on the main thread right before the project is written aside, so that a front
   * end can store in the project what it keeps of its views (the camera, the current
   * time), as it does before a save: a recovery then comes back where the work was.
   */
  signals[SIGNAL_WILL_WRITE] =
    g_signal_new ("will-write", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
km_autosave_init (KmAutosave *self)
{
  static gint counter;
  g_autofree char *dir = km_autosave_get_directory ();

  self->lock_fd = -1;
  if (g_mkdir_with_parents (dir, 0700) != 0)
    g_debug ("Cannot create %s: %s", dir, g_strerror (errno));
  /* The first name whose lock is free and that no ended process left work under (its id
   * may be this one's). */
  for (guint tries = 0; ; tries++)
    {
      g_autofree char *name = g_strdup_printf ("autosave-%d-%d.cnoid", (int) getpid (),
                                               g_atomic_int_add (&counter, 1));
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autofree char *models = g_strconcat (path, ".models", NULL);
      int fd = take_lock (path, TRUE);
      gboolean busy = fd < 0 && (errno == EWOULDBLOCK || errno == EAGAIN);
      gboolean taken = g_file_test (path, G_FILE_TEST_EXISTS)
                       || g_file_test (models, G_FILE_TEST_EXISTS);

      if (fd >= 0 && taken)
        {
          close (fd);
          fd = -1;
        }
      /* Another lock failure than a held lock (no flock on this file system, an
       * unwritable folder: the autosave will fail and say so) does not go away with
       * another name: the first free name, unlocked, as autosaves were before locks. */
      if (fd < 0 && (taken || (busy && tries < 1000)))
        continue;
      self->lock_fd = fd;
      self->path = g_steal_pointer (&path);
      if (fd >= 0)
        {
          G_LOCK (held);
          if (held_own == NULL)
            held_own = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
          g_hash_table_insert (held_own, g_strdup (self->path), self);
          G_UNLOCK (held);
        }
      return;
    }
}

KmAutosave *
km_autosave_new (KmDocument *document)
{
  KmAutosave *self;

  g_return_val_if_fail (KM_IS_DOCUMENT (document), NULL);

  self = g_object_new (KM_TYPE_AUTOSAVE, NULL);
  self->document = g_object_ref (document);
  g_signal_connect_object (document, "notify::modified",
                           G_CALLBACK (document_notify_modified_cb), self, G_CONNECT_SWAPPED);
  return self;
}

guint
km_autosave_get_interval (KmAutosave *self)
{
  g_return_val_if_fail (KM_IS_AUTOSAVE (self), 0);

  return self->interval;
}

void
km_autosave_set_interval (KmAutosave *self,
                          guint       seconds)
{
  g_return_if_fail (KM_IS_AUTOSAVE (self));

  if (self->interval == seconds)
    return;
  self->interval = seconds;
  restart_timeout (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_INTERVAL]);
}

/* Where this autosave writes (whether or not the file exists now). */
const char *
km_autosave_get_path (KmAutosave *self)
{
  g_return_val_if_fail (KM_IS_AUTOSAVE (self), NULL);

  return self->path;
}

/**
 * km_autosave_save_now:
 *
 * km_autosave_save_async() run to its end on the calling thread: writes the document
 * aside when it is modified, and removes the autosave when it is not, as each timeout
 * does.
 */
gboolean
km_autosave_save_now (KmAutosave  *self,
                      GError     **error)
{
  g_autoptr(GAsyncResult) result = NULL;
  KmSyncCall call;

  g_return_val_if_fail (KM_IS_AUTOSAVE (self), FALSE);

  _km_sync_call_begin (&call);
  km_autosave_save_async (self, NULL, _km_sync_call_done_cb, &call);
  result = _km_sync_call_wait (&call);
  return km_autosave_save_finish (self, result, error);
}

static void
written_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  KmAutosave *self = g_task_get_source_object (task);
  GError *error = NULL;
  gboolean ok;

  self->writing = FALSE;
  ok = km_document_write_autosave_finish (KM_DOCUMENT (source), result, &error);
  /* Saved, or a new project, while the file was written: it is not wanted any more. */
  if (self->discard_written
      || (self->document == NULL && !self->keep)
      || (self->document != NULL && !km_document_get_modified (self->document)))
    km_autosave_discard (self);
  if (!ok)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

/**
 * km_autosave_save_async:
 *
 * Writes the document aside when it is modified (km_document_write_autosave_async(): the
 * project's tree is made on the calling thread, its text and the files written on a worker
 * thread), and removes the autosave when it is not. One write at a time: while one runs,
 * this fails with %G_IO_ERROR_PENDING. The autosave stays alive until the write is done.
 */
void
km_autosave_save_async (KmAutosave          *self,
                        GCancellable        *cancellable,
                        GAsyncReadyCallback  callback,
                        gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (KM_IS_AUTOSAVE (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, km_autosave_save_async);
  if (self->writing)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_PENDING, "%s",
                               _("The autosave is being written already"));
      return;
    }
  /* (Kept, km_autosave_keep: the file holds the work as it was then.) */
  if (self->keep)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  if (self->document == NULL || !km_document_get_modified (self->document))
    {
      km_autosave_discard (self);
      g_task_return_boolean (task, TRUE);
      return;
    }
  g_signal_emit (self, signals[SIGNAL_WILL_WRITE], 0);
  self->writing = TRUE;
  km_document_write_autosave_async (self->document, self->path, NULL, written_cb,
                                    g_steal_pointer (&task));
}

gboolean
km_autosave_save_finish (KmAutosave    *self,
                         GAsyncResult  *result,
                         GError       **error)
{
  g_return_val_if_fail (KM_IS_AUTOSAVE (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/* Whether an autosave write (km_autosave_save_async) runs. */
gboolean
km_autosave_get_writing (KmAutosave *self)
{
  g_return_val_if_fail (KM_IS_AUTOSAVE (self), FALSE);

  return self->writing;
}

/**
 * km_autosave_keep:
 *
 * For an end that leaves the work unsaved without asking (Kinema told to end, as at a
 * logout): waits for a write that runs, then writes the document aside once more when it
 * is modified (removes the autosave when it is not), and from then on writes no more and
 * keeps that file when the autosave goes. Only its lock file goes then, as at any orderly
 * end, so the next start offers the work for recovery (km_autosave_list_recovery). A
 * later save of the document (no longer modified) still removes it.
 *
 * Returns: whether the work was written (or there was none to write)
 */
gboolean
km_autosave_keep (KmAutosave  *self,
                  GError     **error)
{
  g_autoptr(KmAutosave) hold = NULL;
  gboolean ok;

  g_return_val_if_fail (KM_IS_AUTOSAVE (self), FALSE);

  if (self->keep)
    return TRUE;
  /* The loop below may run the end of its owner (a window destroyed meanwhile): the
   * autosave stays alive, and keeps its file, until the work is written. */
  hold = g_object_ref (self);
  /* A write that runs holds the work as it was when it began: the one after it, all of it. */
  while (self->writing)
    g_main_context_iteration (NULL, TRUE);
  ok = km_autosave_save_now (self, error);
  self->keep = TRUE;
  g_clear_handle_id (&self->timeout_id, g_source_remove);
  return ok;
}

/* Removes the autosaved file and the skeletons kept beside it, if any. */
void
km_autosave_discard (KmAutosave *self)
{
  g_return_if_fail (KM_IS_AUTOSAVE (self));

  /* Not from under the worker that writes it (its skeleton copies would vanish halfway):
   * once it is written (written_cb). */
  self->discard_written = self->writing;
  if (self->writing)
    return;
  if (g_unlink (self->path) != 0 && errno != ENOENT)
    g_warning ("Cannot remove %s: %s", self->path, g_strerror (errno));
  _km_autosave_remove_models (self->path, NULL);
}

/* $XDG_STATE_HOME/kinema/autosave */
char *
km_autosave_get_directory (void)
{
  return g_build_filename (g_get_user_state_dir (), "kinema", "autosave", NULL);
}

/* Removes the skeleton copies @name in @dir_path when their autosave is gone and the
 * process that wrote them has ended: it writes the copies before the autosave. */
static void
remove_orphan_models (const char *dir_path,
                      const char *name)
{
  g_autofree char *models = g_build_filename (dir_path, name, NULL);
  g_autofree char *autosave = g_strndup (models, strlen (models) - strlen (".models"));

  if (g_file_test (autosave, G_FILE_TEST_EXISTS) || !owner_ended (autosave))
    return;
  _km_autosave_remove_models (autosave, NULL);
}

/* Removes the lock file @name in @dir_path when nothing it stood for is left (the
 * autosave was recovered or declined, or its process ended before writing one) and no
 * process holds it. */
static void
remove_stale_lock (const char *dir_path,
                   const char *name)
{
  g_autofree char *lock = g_build_filename (dir_path, name, NULL);
  g_autofree char *autosave = g_strndup (lock, strlen (lock) - strlen (".lock"));
  g_autofree char *models = g_strconcat (autosave, ".models", NULL);
  int fd;

  if (g_file_test (autosave, G_FILE_TEST_EXISTS) || g_file_test (models, G_FILE_TEST_EXISTS)
      || held_here (autosave))
    return;
  fd = take_lock (autosave, FALSE);
  if (fd < 0)
    return;
  /* Held while it goes: whoever opened it meanwhile finds it gone (take_lock). */
  g_unlink (lock);
  close (fd);
}

static int
compare_paths (gconstpointer a,
               gconstpointer b)
{
  g_autofree char *pa = g_file_get_path (*(GFile **) a);
  g_autofree char *pb = g_file_get_path (*(GFile **) b);

  return g_strcmp0 (pa, pb);
}

/**
 * km_autosave_list_recovery:
 *
 * The autosaves that Kinema processes which have ended left behind, sorted by name: not
 * this process's own, nor those of another instance that still runs (whose lock is held,
 * see km_autosave_claim()). The skeleton copies of autosaves that are gone (recovered or
 * declined) are removed on the way, and so are lock files left with nothing to stand
 * for, unless the process that wrote them still runs.
 *
 * Returns: (transfer full) (element-type GFile): the files, possibly none
 */
GPtrArray *
km_autosave_list_recovery (void)
{
  g_autofree char *dir_path = km_autosave_get_directory ();
  GPtrArray *files = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GDir) dir = g_dir_open (dir_path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      if (!g_str_has_prefix (name, "autosave-"))
        continue;
      if (g_str_has_suffix (name, ".cnoid"))
        {
          g_autofree char *path = g_build_filename (dir_path, name, NULL);

          /* (still there: an owner that ends normally removes it before its lock) */
          if (owner_ended (path) && g_file_test (path, G_FILE_TEST_EXISTS))
            g_ptr_array_add (files, g_file_new_for_path (path));
        }
      else if (g_str_has_suffix (name, ".cnoid.models"))
        remove_orphan_models (dir_path, name);
      else if (g_str_has_suffix (name, ".cnoid.lock"))
        remove_stale_lock (dir_path, name);
    }
  g_ptr_array_sort (files, compare_paths);
  return files;
}

/**
 * km_autosave_claim:
 * @autosave: an autosave km_autosave_list_recovery() listed
 *
 * Takes over the lock of @autosave, whose process has ended, for as long as this process
 * runs, so that no other instance offers or removes the same work meanwhile. Call it
 * before offering @autosave; this process may claim an autosave again.
 *
 * Returns: whether @autosave is this process's to offer: FALSE when its owner runs or
 *   another instance claimed it since it was listed
 */
gboolean
km_autosave_claim (GFile *autosave)
{
  g_autofree char *path = NULL;
  gboolean ok;
  int fd;

  g_return_val_if_fail (G_IS_FILE (autosave), FALSE);

  path = g_file_get_path (autosave);
  if (path == NULL)
    return FALSE;
  G_LOCK (held);
  if (held_claimed != NULL && g_hash_table_contains (held_claimed, path))
    {
      G_UNLOCK (held);
      return TRUE;
    }
  if (held_own != NULL && g_hash_table_contains (held_own, path))
    {
      G_UNLOCK (held);
      return FALSE;
    }
  /* (made when missing: an autosave whose owner made none has ended) */
  fd = take_lock (path, TRUE);
  if (fd >= 0)
    {
      if (held_claimed == NULL)
        held_claimed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      g_hash_table_insert (held_claimed, g_steal_pointer (&path), GINT_TO_POINTER (fd));
      ok = TRUE;
    }
  else
    ok = FALSE;
  G_UNLOCK (held);
  return ok;
}

/**
 * km_autosave_remove_recovered:
 * @autosave: an autosave of an ended process that this process offered (and claimed,
 *   km_autosave_claim()), once it was recovered or declined
 *
 * Removes @autosave, the skeleton copies kept beside it and its lock file, and gives up
 * the claim on it: nothing of the ended process stays behind. The lock is held while they
 * go (an unclaimed autosave's is taken first), so that no other instance offers what is
 * half gone. Where another instance holds the lock, nothing is removed. This process's
 * own autosave is left alone.
 */
void
km_autosave_remove_recovered (GFile *autosave)
{
  g_autofree char *path = NULL;
  g_autofree char *lock = NULL;
  gpointer claimed = NULL;
  int fd = -1;

  g_return_if_fail (G_IS_FILE (autosave));

  path = g_file_get_path (autosave);
  if (path == NULL)
    return;
  lock = lock_path (path);
  G_LOCK (held);
  if (held_own != NULL && g_hash_table_contains (held_own, path))
    {
      G_UNLOCK (held);
      return;
    }
  if (held_claimed != NULL && g_hash_table_lookup_extended (held_claimed, path, NULL, &claimed))
    {
      fd = GPOINTER_TO_INT (claimed);
      g_hash_table_remove (held_claimed, path);
    }
  G_UNLOCK (held);
  if (fd < 0)
    fd = take_lock (path, FALSE);
  /* Another instance holds the lock (it claimed the work, or the autosave is its own):
   * nothing of it goes. */
  if (fd < 0 && g_file_test (lock, G_FILE_TEST_EXISTS))
    return;

  if (g_unlink (path) != 0 && errno != ENOENT)
    g_warning ("Cannot remove %s: %s", path, g_strerror (errno));
  _km_autosave_remove_models (path, NULL);
  /* Without the lock (another instance holds it), its lock file is that instance's. */
  if (fd >= 0)
    {
      g_unlink (lock);
      close (fd);
    }
}

/**
 * km_autosave_project_line:
 * @project_file: (nullable): the file of the project autosaved
 *
 * The line an autosave of the project in @project_file starts with (a comment, its
 * newline included), which km_autosave_dup_project_file() reads back. Runs on any thread.
 *
 * Returns: (transfer full) (nullable): the line, NULL without a file
 */
char *
km_autosave_project_line (GFile *project_file)
{
  g_autofree char *uri = NULL;

  g_return_val_if_fail (project_file == NULL || G_IS_FILE (project_file), NULL);

  if (project_file == NULL)
    return NULL;
  /* A URI: %-escaped, so one line whatever the path holds. */
  uri = g_file_get_uri (project_file);
  return g_strconcat (PROJECT_LINE_PREFIX, uri, "\n", NULL);
}

/**
 * km_autosave_dup_project_file:
 * @autosave: an autosave (one km_autosave_list_recovery() lists)
 *
 * The file of the project whose unsaved work @autosave holds, as it was when it was
 * autosaved (whether or not it exists now). Reads the start of @autosave; runs on any
 * thread.
 *
 * Returns: (transfer full) (nullable): the file, NULL for untitled work or an autosave
 *   that cannot be read
 */
GFile *
km_autosave_dup_project_file (GFile *autosave)
{
  g_autoptr(GFileInputStream) in = NULL;
  g_autofree char *line = NULL;
  gsize length = 0;
  char *uri;
  char *end;

  g_return_val_if_fail (G_IS_FILE (autosave), NULL);

  in = g_file_read (autosave, NULL, NULL);
  if (in == NULL)
    return NULL;
  line = g_malloc (PROJECT_LINE_MAX + 1);
  if (!g_input_stream_read_all (G_INPUT_STREAM (in), line, PROJECT_LINE_MAX, &length, NULL,
                                NULL))
    return NULL;
  line[length] = '\0';
  if (!g_str_has_prefix (line, PROJECT_LINE_PREFIX)
      || (end = strchr (line, '\n')) == NULL)
    return NULL;
  *end = '\0';
  uri = line + strlen (PROJECT_LINE_PREFIX);
  if (g_uri_peek_scheme (uri) == NULL)
    return NULL;
  return g_file_new_for_uri (uri);
}
