/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 *
 * Ctrl+C (SIGINT) while kinema-cli writes an output file: the old file stays as it was,
 * the temporary file the write went to ("NAME.XXXXXX") is removed, and the process still
 * ends by SIGINT (a shell stops a script on it).
 */

#include "config.h"

#include <signal.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "cli-run.h"
#include "km-test-tmp.h"

#define N_FRAMES 40000
#define ATTEMPTS 8

/* A targets file of @n_frames frames. */
static void
write_targets (const char *path,
               guint       n_frames)
{
  g_autoptr(GString) text = g_string_new ("[\n");
  g_autoptr(GError) error = NULL;

  for (guint f = 0; f < n_frames; f++)
    g_string_append_printf (text,
                            "{\"frame\": %u, \"pos\": [0.%06u1234567, -0.2%05u98765, 0.25%04u4321],"
                            " \"euler\": [-10.5%04u, -37.9%04u, 158.6%04u]}%s\n",
                            f, f % 1000000, f % 100000, f % 10000, f % 10000, (f * 7) % 10000,
                            (f * 3) % 10000, f + 1 < n_frames ? "," : "");
  g_string_append (text, "]\n");
  g_assert_true (g_file_set_contents (path, text->str, (gssize) text->len, &error));
  g_assert_no_error (error);
}

/* The names in @dir other than @name, joined with spaces ("" for none). */
static char *
other_entries (const char *dir,
               const char *name)
{
  g_autoptr(GDir) listing = g_dir_open (dir, 0, NULL);
  g_autoptr(GString) names = g_string_new (NULL);
  const char *entry;

  g_assert_nonnull (listing);
  while ((entry = g_dir_read_name (listing)) != NULL)
    if (strcmp (entry, name) != 0)
      g_string_append_printf (names, "%s%s", names->len > 0 ? " " : "", entry);
  return g_string_free (g_steal_pointer (&names), FALSE);
}

static void
default_sigint (gpointer user_data)
{
  /* A test run in the background may have SIGINT ignored, which the child would keep. */
  signal (SIGINT, SIG_DFL);
}

static void
test_sigint_while_writing (void)
{
  g_autofree char *in_dir = km_test_make_tmp_dir ("cli-signal-in-XXXXXX");
  g_autofree char *out_dir = km_test_make_tmp_dir ("cli-signal-out-XXXXXX");
  g_autofree char *small = g_build_filename (in_dir, "small.json", NULL);
  g_autofree char *large = g_build_filename (in_dir, "large.json", NULL);
  g_autofree char *output = g_build_filename (out_dir, "out.json", NULL);
  g_autofree char *old = NULL;
  const char *cli = g_getenv ("KINEMA_CLI");
  gboolean caught = FALSE;
  gsize old_length = 0;

  g_assert_nonnull (cli);
  write_targets (small, 3);
  write_targets (large, N_FRAMES);

  for (guint attempt = 0; attempt < ATTEMPTS && !caught; attempt++)
    {
      g_auto(Run) first = { 0, };
      g_autoptr(GError) error = NULL;
      g_autofree char *now = NULL;
      g_autofree char *left = NULL;
      const char *argv[] = { cli, "convert", large, output, NULL };
      gsize now_length = 0;
      GPid pid;
      int status = 0;
      pid_t done;

      /* The old output, written by kinema-cli first. */
      g_unlink (output);
      run_cli (&first, NULL, "convert", small, output, NULL);
      g_assert_cmpstr (first.err, ==, "");
      g_assert_cmpint (first.status, ==, 0);
      g_clear_pointer (&old, g_free);
      g_assert_true (g_file_get_contents (output, &old, &old_length, NULL));

      g_assert_true (g_spawn_async (NULL, (char **) argv, NULL,
                                    G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL
                                    | G_SPAWN_STDERR_TO_DEV_NULL,
                                    default_sigint, NULL, &pid, &error));
      g_assert_no_error (error);
      /* SIGINT the moment the temporary file is there. */
      while ((done = waitpid (pid, &status, WNOHANG)) == 0)
        {
          g_autofree char *entries = other_entries (out_dir, "out.json");

          if (entries[0] != '\0')
            {
              g_assert_cmpint (kill (pid, SIGINT), ==, 0);
              g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
              done = pid;
              caught = TRUE;
              break;
            }
          g_usleep (100);
        }
      g_assert_cmpint (done, ==, pid);
      g_spawn_close_pid (pid);
      left = other_entries (out_dir, "out.json");
      g_assert_true (g_file_get_contents (output, &now, &now_length, NULL));
      if (!caught || WIFEXITED (status))
        {
          /* Written in full before the signal came: another try. */
          g_assert_true (WIFEXITED (status));
          g_assert_cmpint (WEXITSTATUS (status), ==, 0);
          g_assert_cmpstr (left, ==, "");
          g_assert_cmpuint (now_length, >, old_length);
          caught = FALSE;
          continue;
        }
      g_assert_true (WIFSIGNALED (status));
      g_assert_cmpint (WTERMSIG (status), ==, SIGINT);
      /* No temporary file is left, and the old output is as it was. */
      g_assert_cmpstr (left, ==, "");
      g_assert_cmpmem (now, now_length, old, old_length);
    }
  /* The write was caught at least once (it lasts far longer than a poll). */
  g_assert_true (caught);

  km_test_remove_tree (in_dir);
  km_test_remove_tree (out_dir);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/signal/sigint-while-writing", test_sigint_while_writing);
  return g_test_run ();
}
