/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

/* Temporary folders for the tests. Every run of the suites used to leave its folders in
 * /tmp (thousands after a few runs); one made here is removed, with all it holds, when the
 * test that made it ends, whether the test passed or not. */

#include "km-test-tmp.h"

#include <glib/gstdio.h>

/* Removes @path and, when it is a folder, everything under it. Symbolic links are removed,
 * never followed: tests link to files outside their folder. A path that is already gone is
 * not an error, so a fixture's tear-down and the queued removal may both run. */
void
km_test_remove_tree (const char *path)
{
  g_return_if_fail (path != NULL);

  if (g_file_test (path, G_FILE_TEST_IS_DIR) && !g_file_test (path, G_FILE_TEST_IS_SYMLINK))
    {
      g_autoptr(GDir) dir = NULL;
      const char *name;

      /* A test that made a folder read-only to make a save fail may have ended (or failed)
       * before giving the permission back. */
      g_chmod (path, 0700);
      dir = g_dir_open (path, 0, NULL);
      while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);

          km_test_remove_tree (child);
        }
      g_rmdir (path);
    }
  else
    g_unlink (path);
}

static void
remove_and_free (gpointer data)
{
  km_test_remove_tree (data);
  g_free (data);
}

/* Makes a folder as g_dir_make_tmp () does (@tmpl ends in XXXXXX) and removes it when the
 * current test ends. Call it from a test or a fixture's set-up, never from main (): the
 * removal would run when the first test ends. Returns the path, to free with g_free (). */
char *
km_test_make_tmp_dir (const char *tmpl)
{
  g_autoptr(GError) error = NULL;
  char *path = g_dir_make_tmp (tmpl, &error);

  g_assert_no_error (error);
  g_test_queue_destroy (remove_and_free, g_strdup (path));
  return path;
}
