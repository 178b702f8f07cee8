/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <stdarg.h>
#include <string.h>
#include <sys/wait.h>

#include "cli-run.h"

void
run_clear (Run *run)
{
  g_clear_pointer (&run->out, g_free);
  g_clear_pointer (&run->err, g_free);
}

/* Runs $KINEMA_CLI with the NULL-terminated arguments in @cwd (NULL = here). */
void
run_cli (Run        *run,
         const char *cwd,
         ...)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  const char *cli = g_getenv ("KINEMA_CLI");
  const char *arg;
  int wait_status;
  va_list args;

  g_assert_nonnull (cli);
  g_ptr_array_add (argv, (char *) cli);
  va_start (args, cwd);
  while ((arg = va_arg (args, const char *)) != NULL)
    g_ptr_array_add (argv, (char *) arg);
  va_end (args);
  g_ptr_array_add (argv, NULL);

  g_spawn_sync (cwd, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, &run->out,
                &run->err, &wait_status, &error);
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (wait_status));
  run->status = WEXITSTATUS (wait_status);
}

/* Copies @source into @dir as @name (a scratch copy a test may see overwritten); returns
 * the copy's path. */
char *
copy_file_to (const char *source,
              const char *dir,
              const char *name)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  char *path = g_build_filename (dir, name, NULL);
  gsize length;

  g_assert_true (g_file_get_contents (source, &contents, &length, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_set_contents (path, contents, (gssize) length, &error));
  g_assert_no_error (error);
  return path;
}

/* @run refused to write @output as wrong usage: exit 2, a "kinema-cli: " message, nothing
 * on stdout, and @output holds @contents as before (NULL: it was not created). */
void
assert_output_refused (const Run  *run,
                       const char *output,
                       const char *contents)
{
  g_autofree char *now = NULL;

  if (run->status != 2 || !g_str_has_prefix (run->err, "kinema-cli: ") ||
      strstr (run->err, "nothing was written") == NULL)
    g_error ("%s: exit %d, “%s”", output, run->status, run->err);
  g_assert_cmpstr (run->out, ==, "");
  if (contents == NULL)
    {
      g_assert_false (g_file_test (output, G_FILE_TEST_EXISTS));
      return;
    }
  g_assert_true (g_file_get_contents (output, &now, NULL, NULL));
  g_assert_cmpstr (now, ==, contents);
}
