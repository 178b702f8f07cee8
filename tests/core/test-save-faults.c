/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 *
 * A save that fails must leave the previous file as it was (issue 11). For each writer
 * (km_cnoid_save, km_skeleton_json_save, km_targets_json_save, km_animation_json_save) a
 * previous file is written, then a larger document is saved over it in a forked child
 * that meets a fault:
 *   - disk full: RLIMIT_FSIZE below the new file's size, SIGXFSZ ignored (write → EFBIG);
 *     the save reports an error, the old file is unchanged and no temporary file is left;
 *   - killed mid-write: the same limit with SIGXFSZ at its default action, so the kernel
 *     kills the child at the write that crosses the limit, deterministically mid-write;
 *   - killed at a random moment: SIGKILL after a delay while the large save runs (several
 *     delays);
 *   - permission denied: the folder is not writable (as root the child first drops to
 *     "nobody", which root's folder does not let in).
 * After a kill the file is either the old one, byte for byte, or the complete new one;
 * a killed save may leave its temporary file ("NAME.XXXXXX") behind, which the test
 * removes (documented in tests/fuzz/README.md, "Faults").
 */

#include "config.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "km-animation-json.h"
#include "km-animation.h"
#include "km-cnoid.h"
#include "km-format.h"
#include "km-project.h"
#include "km-skeleton-json.h"
#include "km-skeleton.h"
#include "km-target-track.h"
#include "km-targets-json.h"
#include "km-test-tmp.h"

typedef struct
{
  const char *name;       /* file name in the test folder */
  char     *(*make_text) (guint n);
  /* Reads @text as the loader would the file @path. */
  gpointer  (*load)      (const char *text,
                          const char *path,
                          GError    **error);
  gboolean  (*save)      (gpointer    object,
                          const char *path,
                          GError    **error);
  GDestroyNotify free;
} Writer;

/* Documents of n elements, as a user's file would be. */

static char *
skeleton_text (guint n)
{
  GString *s = g_string_new ("{\n  \"root_name\": \"j0\",\n  \"joints\": [\n"
                             "    { \"name\": \"j0\", \"type\": \"fixed\", "
                             "\"offset\": [0, 0, 0] }");

  for (guint i = 1; i < n; i++)
    g_string_append_printf (s, ",\n    { \"name\": \"j%u\", \"type\": \"revolute\", "
                            "\"offset\": [0, 0, 0.01], \"parent\": \"j%u\", "
                            "\"axis\": [0, 0, 1], \"limits\": [-1.5, 1.5] }", i, i - 1);
  g_string_append (s, "\n  ]\n}\n");
  return g_string_free (s, FALSE);
}

static char *
targets_text (guint n)
{
  GString *s = g_string_new ("[\n");

  for (guint i = 0; i < n; i++)
    g_string_append_printf (s, "%s  { \"frame\": %u, \"pos\": [%u.25, 1.5, 3.0], "
                            "\"euler\": [0.0, 10.0, 45.0] }", i > 0 ? ",\n" : "", i, i % 7);
  g_string_append (s, "\n]\n");
  return g_string_free (s, FALSE);
}

static char *
animation_text (guint n)
{
  GString *s = g_string_new ("{\n  \"frames\": [\n");

  for (guint i = 0; i < n; i++)
    g_string_append_printf (s, "%s    { \"frame\": %u, \"joints\": { "
                            "\"Elbow\": { \"type\": \"revolute\", \"angle\": %u.5 }, "
                            "\"Piston\": { \"type\": \"prismatic\", \"displacement\": 0.%u } "
                            "} }", i > 0 ? ",\n" : "", i, i % 3, i % 10);
  g_string_append (s, "\n  ]\n}\n");
  return g_string_free (s, FALSE);
}

static char *
cnoid_text (guint n)
{
  GString *s = g_string_new ("items:\n"
                             "  id: 0\n"
                             "  name: \"RootItem\"\n"
                             "  plugin: Base\n"
                             "  class: RootItem\n"
                             "  is_builtin_item: true\n"
                             "  children:\n");

  for (guint i = 1; i <= n; i++)
    g_string_append_printf (s, "    -\n"
                            "      id: %u\n"
                            "      name: \"Folder %u\"\n"
                            "      plugin: Base\n"
                            "      class: FolderItem\n", i, i);
  return g_string_free (s, FALSE);
}

static gpointer
skeleton_load (const char *text,
               const char *path,
               GError    **error)
{
  return km_skeleton_json_load ("in.json", text, strlen (text), error);
}

static gboolean
skeleton_save (gpointer    object,
               const char *path,
               GError    **error)
{
  return km_skeleton_json_save (object, path, error);
}

static gpointer
targets_load (const char *text,
              const char *path,
              GError    **error)
{
  g_autoptr(GBytes) bytes = g_bytes_new (text, strlen (text));

  return km_targets_json_load ("in.json", bytes, error);
}

static gboolean
targets_save (gpointer    object,
              const char *path,
              GError    **error)
{
  return km_targets_json_save (object, path, error);
}

static gpointer
animation_load (const char *text,
                const char *path,
                GError    **error)
{
  g_autoptr(GBytes) bytes = g_bytes_new (text, strlen (text));

  return km_animation_json_load ("in.json", bytes, NULL, error);
}

static gboolean
animation_save (gpointer    object,
                const char *path,
                GError    **error)
{
  return km_animation_json_save (object, path, error);
}

static gpointer
cnoid_load (const char *text,
            const char *path,
            GError    **error)
{
  g_autoptr(GBytes) bytes = g_bytes_new (text, strlen (text));

  return km_cnoid_load_full (path, bytes, NULL, error);
}

static gboolean
cnoid_save (gpointer    object,
            const char *path,
            GError    **error)
{
  return km_cnoid_save (object, path, error);
}

static const Writer writers[] = {
  { "project.cnoid", cnoid_text, cnoid_load, cnoid_save, g_object_unref },
  { "skeleton.json", skeleton_text, skeleton_load, skeleton_save,
    (GDestroyNotify) km_skeleton_unref },
  { "targets.json", targets_text, targets_load, targets_save,
    (GDestroyNotify) km_target_track_unref },
  { "animation.json", animation_text, animation_load, animation_save,
    (GDestroyNotify) km_animation_unref },
};

/* Loads @text as the writer's document and saves it to @path. */
static gboolean
load_and_save (const Writer *w,
               const char   *text,
               const char   *path,
               GError      **error)
{
  gpointer object = w->load (text, path, error);
  gboolean ok;

  if (object == NULL)
    return FALSE;
  ok = w->save (object, path, error);
  w->free (object);
  return ok;
}

#define SMALL 3
#define LARGE 8000

typedef struct
{
  char  *dir;
  char  *path;
  char  *old;         /* the previous file's bytes */
  gsize  old_length;
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  user_data)
{
  const Writer *w = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = w->make_text (SMALL);

  f->dir = km_test_make_tmp_dir ("km-save-faults-XXXXXX");
  f->path = g_build_filename (f->dir, w->name, NULL);
  load_and_save (w, text, f->path, &error);
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (f->path, &f->old, &f->old_length, NULL));
  g_assert_cmpuint (f->old_length, >, 20);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  user_data)
{
  km_test_remove_tree (f->dir);
  g_free (f->dir);
  g_free (f->path);
  g_free (f->old);
}

/* The folder's entries other than the saved file (temporary files left behind). */
static guint
count_other_files (Fixture    *f,
                   const char *name,
                   gboolean    remove)
{
  g_autoptr(GDir) dir = g_dir_open (f->dir, 0, NULL);
  const char *entry;
  guint n = 0;

  g_assert_nonnull (dir);
  while ((entry = g_dir_read_name (dir)) != NULL)
    if (strcmp (entry, name) != 0)
      {
        n++;
        if (remove)
          {
            g_autofree char *p = g_build_filename (f->dir, entry, NULL);

            g_unlink (p);
          }
      }
  return n;
}

static void
assert_old_file (Fixture *f)
{
  g_autofree char *now = NULL;
  gsize length = 0;

  g_assert_true (g_file_get_contents (f->path, &now, &length, NULL));
  g_assert_cmpmem (now, length, f->old, f->old_length);
}

typedef enum
{
  FAULT_DISK_FULL,
  FAULT_XFSZ_KILL,
  FAULT_PERMISSION,
} Fault;

/* Child: 0 = the save failed with an error, 1 = it succeeded, 2 = set-up failed. */
static void
run_child (const Writer *w,
           Fixture      *f,
           Fault         fault,
           const char   *text)
{
  g_autoptr(GError) error = NULL;
  struct rlimit limit;
  gpointer object = w->load (text, f->path, &error);
  int code;

  if (object == NULL)
    _exit (2);
  if (fault == FAULT_PERMISSION)
    {
      if (geteuid () == 0 && (setgid (65534) != 0 || setuid (65534) != 0))
        _exit (2);
    }
  else
    {
      /* Less than the new file needs, more than the old one: the disk "fills up" in the
       * middle of the new file. */
      limit.rlim_cur = limit.rlim_max = f->old_length + 4096;
      signal (SIGXFSZ, fault == FAULT_DISK_FULL ? SIG_IGN : SIG_DFL);
      if (setrlimit (RLIMIT_FSIZE, &limit) != 0)
        _exit (2);
    }
  if (w->save (object, f->path, &error))
    code = 1;
  else
    code = error != NULL && error->message[0] != '\0' ? 0 : 2;
  /* Free everything: under valgrind the child's leaks would change its exit status. */
  w->free (object);
  g_clear_error (&error);
  _exit (code);
}

static int
fork_and_wait (const Writer *w,
               Fixture      *f,
               Fault         fault,
               const char   *text)
{
  int status = 0;
  pid_t pid = fork ();

  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    run_child (w, f, fault, text);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  return status;
}

static void
test_disk_full (Fixture       *f,
                gconstpointer  user_data)
{
  const Writer *w = user_data;
  g_autofree char *text = w->make_text (LARGE);
  int status = fork_and_wait (w, f, FAULT_DISK_FULL, text);

  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);
  assert_old_file (f);
  /* A failed save removes its temporary file. */
  g_assert_cmpuint (count_other_files (f, w->name, FALSE), ==, 0);
}

static void
test_killed_mid_write (Fixture       *f,
                       gconstpointer  user_data)
{
  const Writer *w = user_data;
  g_autofree char *text = w->make_text (LARGE);
  int status = fork_and_wait (w, f, FAULT_XFSZ_KILL, text);

  g_assert_true (WIFSIGNALED (status));
  g_assert_cmpint (WTERMSIG (status), ==, SIGXFSZ);
  assert_old_file (f);
  /* The kill leaves the partial temporary file; the real one is untouched. */
  g_assert_cmpuint (count_other_files (f, w->name, TRUE), <=, 1);
}

static void
test_permission_denied (Fixture       *f,
                        gconstpointer  user_data)
{
  const Writer *w = user_data;
  g_autofree char *text = w->make_text (LARGE);
  int status;

  g_assert_cmpint (g_chmod (f->dir, 0755), ==, 0);
  g_assert_cmpint (g_chmod (f->path, 0644), ==, 0);
  if (geteuid () != 0)
    g_assert_cmpint (g_chmod (f->dir, 0555), ==, 0);
  status = fork_and_wait (w, f, FAULT_PERMISSION, text);
  g_chmod (f->dir, 0700);

  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);
  assert_old_file (f);
  g_assert_cmpuint (count_other_files (f, w->name, FALSE), ==, 0);
}

/* SIGKILL at several moments of a large save: the file is always the old one or the
 * whole new one. */
static void
test_killed_anytime (Fixture       *f,
                     gconstpointer  user_data)
{
  static const guint delays_us[] = { 0, 2000, 10000, 40000, 150000 };
  const Writer *w = user_data;
  g_autofree char *text = w->make_text (LARGE);
  guint n_old = 0, n_new = 0;

  for (guint i = 0; i < G_N_ELEMENTS (delays_us); i++)
    {
      int fds[2];
      int status = 0;
      pid_t pid;
      char byte = 0;
      g_autofree char *now = NULL;
      gsize length = 0;

      g_assert_cmpint (pipe (fds), ==, 0);
      pid = fork ();
      g_assert_cmpint (pid, >=, 0);
      if (pid == 0)
        {
          gpointer object;

          close (fds[0]);
          /* Loading is not what we want to interrupt: the go signal comes after it. */
          object = w->load (text, f->path, NULL);
          if (object == NULL || write (fds[1], "s", 1) != 1)
            _exit (2);
          w->save (object, f->path, NULL);
          w->free (object);
          _exit (1);
        }
      close (fds[1]);
      g_assert_cmpint (read (fds[0], &byte, 1), ==, 1);
      close (fds[0]);
      g_usleep (delays_us[i]);
      kill (pid, SIGKILL);
      g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);

      g_assert_true (g_file_get_contents (f->path, &now, &length, NULL));
      if (length == f->old_length && memcmp (now, f->old, length) == 0)
        n_old++;
      else
        {
          /* The complete new file: it reads back with all its elements. */
          g_autofree char *expected = NULL;
          g_autoptr(GError) error = NULL;
          g_autofree char *copy = g_build_filename (f->dir, "check", NULL);

          g_assert_true (WIFEXITED (status) || WIFSIGNALED (status));
          g_assert_true (load_and_save (w, now, copy, &error));
          g_assert_no_error (error);
          g_assert_true (g_file_get_contents (copy, &expected, NULL, NULL));
          g_assert_cmpstr (expected, ==, now);
          g_assert_cmpuint (length, >, f->old_length * 100);
          g_unlink (copy);
          n_new++;
          /* Put the old file back for the next delay. */
          g_assert_true (g_file_set_contents (f->path, f->old, f->old_length, NULL));
        }
      count_other_files (f, w->name, TRUE);
    }
  g_test_message ("%s: %u kills left the old file, %u came after the new one was complete",
                  w->name, n_old, n_new);
  g_assert_cmpuint (n_old + n_new, ==, G_N_ELEMENTS (delays_us));
}

/* A file that cannot be written is named in the message, with the system's reason, and
 * not the temporary file the atomic write failed on (GLib's “x.json.4KX2Q1”). */
static void
test_message_names_file (void)
{
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-save-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "no-such-folder", "x.json", NULL);
  g_autofree char *expected = g_strdup_printf ("%s: cannot write the file: %s", path,
                                               g_strerror (ENOENT));
  g_autoptr(GError) error = NULL;

  g_assert_false (km_format_save_text (path, "{}\n", &error));
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
  g_assert_cmpstr (error->message, ==, expected);
  g_rmdir (dir);
}

static void
assert_contents (const char *path,
                 const char *expected)
{
  g_autofree char *now = NULL;

  g_assert_true (g_file_get_contents (path, &now, NULL, NULL));
  g_assert_cmpstr (now, ==, expected);
}

static guint
permission_bits (const char *path)
{
  GStatBuf st;

  g_assert_cmpint (g_stat (path, &st), ==, 0);
  return st.st_mode & 07777;
}

static void
assert_link_to (const char *link,
                const char *target)
{
  g_autofree char *now = g_file_read_link (link, NULL);

  g_assert_true (g_file_test (link, G_FILE_TEST_IS_SYMLINK));
  g_assert_cmpstr (now, ==, target);
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* The folder's entries, sorted and joined with spaces (to see that no temporary file is
 * left behind). */
static char *
list_folder (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_names);
  g_ptr_array_add (names, NULL);
  return g_strjoinv (" ", (char **) names->pdata);
}

static void
remove_folder (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *p = g_build_filename (path, name, NULL);

      if (g_file_test (p, G_FILE_TEST_IS_DIR) && !g_file_test (p, G_FILE_TEST_IS_SYMLINK))
        remove_folder (p);
      else
        g_unlink (p);
    }
  g_rmdir (path);
}

/* A saved file that was there keeps its permission bits: a private file (0600) is not
 * made readable to all by a save. A new file gets 0666 less the umask. */
static void
test_keeps_mode (void)
{
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-save-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "a.json", NULL);
  g_autofree char *fresh = g_build_filename (dir, "b.json", NULL);
  g_autofree char *listing = NULL;
  g_autoptr(GError) error = NULL;
  mode_t mask = umask (022);

  umask (mask);
  g_assert_true (g_file_set_contents (path, "x\n", -1, NULL));
  g_assert_cmpint (g_chmod (path, 0600), ==, 0);
  g_assert_true (km_format_save_text (path, "{}\n", &error));
  g_assert_no_error (error);
  assert_contents (path, "{}\n");
  g_assert_cmpuint (permission_bits (path), ==, 0600);

  g_assert_cmpint (g_chmod (path, 0640), ==, 0);
  g_assert_true (km_format_save_data (path, "[]\n", -1, &error));
  g_assert_no_error (error);
  assert_contents (path, "[]\n");
  g_assert_cmpuint (permission_bits (path), ==, 0640);

  /* An autosave's private mode is for a new file only. */
  g_assert_true (km_format_save_data_full (path, "{ }\n", -1, 0600, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (permission_bits (path), ==, 0640);

  g_assert_true (km_format_save_text (fresh, "{}\n", &error));
  g_assert_no_error (error);
  g_assert_cmpuint (permission_bits (fresh), ==, 0666 & ~mask);

  listing = list_folder (dir);
  g_assert_cmpstr (listing, ==, "a.json b.json");
  remove_folder (dir);
}

/* A save to a symbolic link replaces the file it leads to, through relative, absolute and
 * chained links; the link stays a link, the file its permissions. */
static void
test_through_symlink (void)
{
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-save-XXXXXX");
  g_autofree char *sub = g_build_filename (dir, "sub", NULL);
  g_autofree char *real = g_build_filename (dir, "real.json", NULL);
  g_autofree char *link = g_build_filename (dir, "link.json", NULL);
  g_autofree char *chain = g_build_filename (dir, "chain.json", NULL);
  g_autofree char *deep = g_build_filename (sub, "deep.json", NULL);
  g_autofree char *absolute = g_build_filename (dir, "absolute.json", NULL);
  g_autofree char *dangling = g_build_filename (dir, "dangling.json", NULL);
  g_autofree char *created = g_build_filename (dir, "created.json", NULL);
  g_autofree char *loop = g_build_filename (dir, "loop.json", NULL);
  g_autofree char *expected = NULL;
  g_autofree char *listing = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_mkdir (sub, 0700), ==, 0);
  g_assert_true (g_file_set_contents (real, "old\n", -1, NULL));
  g_assert_cmpint (g_chmod (real, 0600), ==, 0);
  g_assert_cmpint (symlink ("real.json", link), ==, 0);

  g_assert_true (km_format_save_text (link, "one\n", &error));
  g_assert_no_error (error);
  assert_link_to (link, "real.json");
  assert_contents (real, "one\n");
  g_assert_cmpuint (permission_bits (real), ==, 0600);

  /* chain.json → sub/deep.json → ../link.json → real.json */
  g_assert_cmpint (symlink ("../link.json", deep), ==, 0);
  g_assert_cmpint (symlink ("sub/deep.json", chain), ==, 0);
  g_assert_true (km_format_save_text (chain, "two\n", &error));
  g_assert_no_error (error);
  assert_link_to (chain, "sub/deep.json");
  assert_link_to (deep, "../link.json");
  assert_link_to (link, "real.json");
  assert_contents (real, "two\n");

  g_assert_cmpint (symlink (real, absolute), ==, 0);
  g_assert_true (km_format_save_text (absolute, "three\n", &error));
  g_assert_no_error (error);
  assert_link_to (absolute, real);
  assert_contents (real, "three\n");
  g_assert_cmpuint (permission_bits (real), ==, 0600);

  /* A link to nothing: the file it names is made. */
  g_assert_cmpint (symlink ("created.json", dangling), ==, 0);
  g_assert_true (km_format_save_text (dangling, "four\n", &error));
  g_assert_no_error (error);
  assert_link_to (dangling, "created.json");
  assert_contents (created, "four\n");

  /* A loop is an error naming the path given, and changes nothing. */
  g_assert_cmpint (symlink ("loop.json", loop), ==, 0);
  g_assert_false (km_format_save_text (loop, "five\n", &error));
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_LOOP);
  expected = g_strdup_printf ("%s: cannot write the file: %s", loop, g_strerror (ELOOP));
  g_assert_cmpstr (error->message, ==, expected);
  g_clear_error (&error);
  assert_link_to (loop, "loop.json");

  listing = list_folder (dir);
  g_assert_cmpstr (listing, ==, "absolute.json chain.json created.json dangling.json "
                                "link.json loop.json real.json sub");
  g_free (listing);
  listing = list_folder (sub);
  g_assert_cmpstr (listing, ==, "deep.json");
  remove_folder (dir);
}

/* A save through a link that fails (the disk fills up in a child) leaves the link and
 * the file it leads to as they were, and no temporary file. */
static void
test_symlink_disk_full (void)
{
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-save-XXXXXX");
  g_autofree char *real = g_build_filename (dir, "real.json", NULL);
  g_autofree char *link = g_build_filename (dir, "link.json", NULL);
  g_autofree char *listing = NULL;
  int status = 0;
  pid_t pid;

  g_assert_true (g_file_set_contents (real, "old\n", -1, NULL));
  g_assert_cmpint (g_chmod (real, 0600), ==, 0);
  g_assert_cmpint (symlink ("real.json", link), ==, 0);
  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      char *text = g_strnfill (100000, 'x');
      struct rlimit limit = { 4096, 4096 };
      GError *error = NULL;
      int code;

      signal (SIGXFSZ, SIG_IGN);
      if (setrlimit (RLIMIT_FSIZE, &limit) != 0)
        _exit (2);
      code = km_format_save_text (link, text, &error) ? 1
             : error->domain == G_FILE_ERROR && strstr (error->message, link) != NULL ? 0 : 3;
      /* Free everything: under valgrind the child's leaks would change its exit status. */
      g_clear_error (&error);
      g_free (text);
      g_clear_pointer (&link, g_free);
      g_clear_pointer (&real, g_free);
      g_clear_pointer (&dir, g_free);
      _exit (code);
    }
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);
  assert_link_to (link, "real.json");
  assert_contents (real, "old\n");
  g_assert_cmpuint (permission_bits (real), ==, 0600);
  listing = list_folder (dir);
  g_assert_cmpstr (listing, ==, "link.json real.json");
  remove_folder (dir);
}

/* The second step of a save in two steps (the Skeleton tab's files, put in place once the
 * project is written): the same permissions and links. */
static void
test_replace_file (void)
{
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-save-XXXXXX");
  g_autofree char *real = g_build_filename (dir, "real.json", NULL);
  g_autofree char *link = g_build_filename (dir, "link.json", NULL);
  g_autofree char *written = g_build_filename (dir, "link.json.AB12CD", NULL);
  g_autofree char *listing = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_set_contents (real, "old\n", -1, NULL));
  g_assert_cmpint (g_chmod (real, 0640), ==, 0);
  g_assert_cmpint (symlink ("real.json", link), ==, 0);
  g_assert_true (g_file_set_contents (written, "new\n", -1, NULL));
  g_assert_cmpint (g_chmod (written, 0600), ==, 0);

  g_assert_true (km_format_replace_file (written, link, &error));
  g_assert_no_error (error);
  assert_link_to (link, "real.json");
  assert_contents (real, "new\n");
  g_assert_cmpuint (permission_bits (real), ==, 0640);
  listing = list_folder (dir);
  g_assert_cmpstr (listing, ==, "link.json real.json");
  remove_folder (dir);
}

/* A streamed save's writer (km_format_save_stream()): @n_lines numbered lines, then, with
 * a message in @fail, its own error. */
typedef struct
{
  guint       n_lines;
  const char *fail;
  gboolean    refused;     /* a write to the sink said FALSE */
} LineWriter;

static gboolean
write_lines (KmFormatSink  *sink,
             gpointer       user_data,
             GError       **error)
{
  LineWriter *writer = user_data;

  for (guint i = 0; i < writer->n_lines; i++)
    {
      char line[64];

      g_snprintf (line, sizeof line, "line %u of a long file\n", i);
      if (!km_format_sink_write (sink, line, -1))
        writer->refused = TRUE;
    }
  if (writer->fail != NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, writer->fail);
      return FALSE;
    }
  return TRUE;
}

static char *
lines_text (guint n_lines)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < n_lines; i++)
    g_string_append_printf (text, "line %u of a long file\n", i);
  return g_string_free (text, FALSE);
}

/* A streamed save writes what its writer hands the sink, whole; a writer's own failure
 * after several buffers were written leaves the old file and no temporary file, with the
 * writer's error; so does a disk that fills up (in a child), with the error naming the
 * user's path; and a device that is full says so. */
static void
test_stream (void)
{
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-save-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "long.txt", NULL);
  g_autofree char *created = g_build_filename (dir, "new.txt", NULL);
  g_autofree char *expected = lines_text (20000);
  g_autofree char *listing = NULL;
  g_autofree char *message = NULL;
  g_autoptr(GError) error = NULL;
  LineWriter writer = { 20000, NULL, FALSE };
  int status = 0;
  pid_t pid;

  g_assert_cmpuint (strlen (expected), >, 4 * KM_FORMAT_SINK_BUFFER_SIZE);
  g_assert_true (g_file_set_contents (path, "old\n", -1, NULL));
  g_assert_cmpint (g_chmod (path, 0640), ==, 0);
  g_assert_true (km_format_save_stream (path, 0666, write_lines, &writer, &error));
  g_assert_no_error (error);
  g_assert_false (writer.refused);
  assert_contents (path, expected);
  g_assert_cmpuint (permission_bits (path), ==, 0640);

  /* The writer fails: its error, nothing changed, in a file that is there or not. */
  g_assert_true (g_file_set_contents (path, "old\n", -1, NULL));
  g_assert_cmpint (g_chmod (path, 0640), ==, 0);
  writer.fail = "stopped";
  g_assert_false (km_format_save_stream (path, 0666, write_lines, &writer, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpstr (error->message, ==, "stopped");
  g_clear_error (&error);
  g_assert_false (km_format_save_stream (created, 0666, write_lines, &writer, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);
  assert_contents (path, "old\n");
  listing = list_folder (dir);
  g_assert_cmpstr (listing, ==, "long.txt");
  g_clear_pointer (&listing, g_free);

  /* The disk fills up after the first buffers. */
  writer.fail = NULL;
  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      struct rlimit limit = { 2 * KM_FORMAT_SINK_BUFFER_SIZE + 100,
                              2 * KM_FORMAT_SINK_BUFFER_SIZE + 100 };
      GError *child_error = NULL;
      char *child_expected;
      int code;

      signal (SIGXFSZ, SIG_IGN);
      if (setrlimit (RLIMIT_FSIZE, &limit) != 0)
        _exit (2);
      child_expected = g_strdup_printf ("%s: cannot write the file: %s", path,
                                        g_strerror (EFBIG));
      code = km_format_save_stream (path, 0666, write_lines, &writer, &child_error) ? 1
             : !g_error_matches (child_error, G_FILE_ERROR,
                                  g_file_error_from_errno (EFBIG)) ? 3
             : strcmp (child_error->message, child_expected) != 0 ? 4
             : !writer.refused ? 5 : 0;
      /* Free everything: under valgrind the child's leaks would change its exit status. */
      g_clear_error (&child_error);
      g_free (child_expected);
      g_clear_pointer (&path, g_free);
      g_clear_pointer (&created, g_free);
      g_clear_pointer (&expected, g_free);
      g_clear_pointer (&dir, g_free);
      _exit (code);
    }
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);
  assert_contents (path, "old\n");
  g_assert_cmpuint (permission_bits (path), ==, 0640);
  listing = list_folder (dir);
  g_assert_cmpstr (listing, ==, "long.txt");

  /* A full device, written in place. */
  if (g_file_test ("/dev/full", G_FILE_TEST_EXISTS))
    {
      writer.refused = FALSE;
      g_assert_false (km_format_save_stream ("/dev/full", 0666, write_lines, &writer, &error));
      g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOSPC);
      message = g_strdup_printf ("/dev/full: cannot write the file: %s", g_strerror (ENOSPC));
      g_assert_cmpstr (error->message, ==, message);
      g_assert_true (writer.refused);
    }
  remove_folder (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (writers); i++)
    {
      const Writer *w = &writers[i];
      static const struct
      {
        const char *name;
        void      (*func) (Fixture *, gconstpointer);
      } cases[] = {
        { "disk-full", test_disk_full },
        { "killed-mid-write", test_killed_mid_write },
        { "permission-denied", test_permission_denied },
        { "killed-anytime", test_killed_anytime },
      };

      for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
        {
          g_autofree char *path = g_strdup_printf ("/kinema/SaveFaults/%s/%s", w->name,
                                                   cases[c].name);

          g_test_add (path, Fixture, w, fixture_set_up, cases[c].func, fixture_tear_down);
        }
    }
  g_test_add_func ("/kinema/SaveFaults/message-names-file", test_message_names_file);
  g_test_add_func ("/kinema/SaveFaults/keeps-mode", test_keeps_mode);
  g_test_add_func ("/kinema/SaveFaults/through-symlink", test_through_symlink);
  g_test_add_func ("/kinema/SaveFaults/symlink-disk-full", test_symlink_disk_full);
  g_test_add_func ("/kinema/SaveFaults/replace-file", test_replace_file);
  g_test_add_func ("/kinema/SaveFaults/stream", test_stream);
  return g_test_run ();
}
