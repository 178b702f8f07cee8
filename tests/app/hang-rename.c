/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 *
 * A preload module for tests that need a file write to hang, as one does
 * on a network file system gone away. Once the file named by $KM_TEST_HANG_WHEN exists,
 * every rename() (the last step of each atomic write) to a path under $KM_TEST_HANG_UNDER
 * creates the file named by $KM_TEST_HANG_MARK and then waits forever; other renames (GTK's
 * recent files, Mesa's shader cache), and all before, are the C library's.
 */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int rename (const char *from, const char *to);

int
rename (const char *from,
        const char *to)
{
  static int (*real_rename) (const char *, const char *);
  const char *when = getenv ("KM_TEST_HANG_WHEN");
  const char *mark = getenv ("KM_TEST_HANG_MARK");
  const char *under = getenv ("KM_TEST_HANG_UNDER");

  if (when != NULL && mark != NULL && under != NULL
      && strncmp (to, under, strlen (under)) == 0 && access (when, F_OK) == 0)
    {
      int fd = open (mark, O_WRONLY | O_CREAT, 0600);

      if (fd >= 0)
        close (fd);
      for (;;)
        pause ();
    }
  if (real_rename == NULL)
    real_rename = (int (*) (const char *, const char *)) dlsym (RTLD_NEXT, "rename");
  return real_rename (from, to);
}
