/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <string.h>
#include <sys/stat.h>
#include <glib/gstdio.h>

#include "km-copy-stamp.h"

#define STAMP_PREFIX "# kinema-copy for="
#define STAMP_HASH   " sha256="
/* A copy is a model file: larger files are not read to be recognised (nor are they ours). */
#define STAMP_MAX_FILE (256 * 1024 * 1024)

/* @owner as the stamp writes it: one word, no spaces or line breaks. */
static char *
escape_owner (const char *owner)
{
  return g_uri_escape_string (owner, NULL, TRUE);
}

/* "# kinema-copy for=OWNER sha256=HASH\n" for @text (its first @length bytes). */
static char *
stamp_line (const char *text,
            gsize       length,
            const char *owner)
{
  g_autofree char *escaped = escape_owner (owner);
  g_autofree char *hash = g_compute_checksum_for_data (G_CHECKSUM_SHA256,
                                                       (const guchar *) text, length);

  return g_strconcat (STAMP_PREFIX, escaped, STAMP_HASH, hash, "\n", NULL);
}

/**
 * km_copy_stamp_append:
 * @text: the file's text
 * @owner: the project the copy is written for: its file name (the copy lies beside it)
 *
 * Returns: (transfer full): @text with the stamp as its last line (after a line break of
 *   its own when @text does not end with one)
 */
char *
km_copy_stamp_append (const char *text,
                      const char *owner)
{
  g_autoptr(GString) out = NULL;
  g_autofree char *line = NULL;

  g_return_val_if_fail (text != NULL && owner != NULL, NULL);

  out = g_string_new (text);
  if (out->len > 0 && out->str[out->len - 1] != '\n')
    g_string_append_c (out, '\n');
  line = stamp_line (out->str, out->len, owner);
  g_string_append (out, line);
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/**
 * km_copy_stamp_check:
 * @text: (array length=length): a file's content
 * @owner: the project, as km_copy_stamp_append() was given it
 *
 * Returns: whether @text ends with the stamp of a copy written for @owner and is, above
 *   it, exactly what was written then
 */
gboolean
km_copy_stamp_check (const char *text,
                     gsize       length,
                     const char *owner)
{
  g_autofree char *expected = NULL;
  gsize start;

  g_return_val_if_fail (owner != NULL, FALSE);

  if (text == NULL || length < 2 || text[length - 1] != '\n')
    return FALSE;
  /* The last line: from after the line break before it. */
  start = length - 1;
  while (start > 0 && text[start - 1] != '\n')
    start--;
  expected = stamp_line (text, start, owner);
  return strlen (expected) == length - start
         && memcmp (expected, text + start, length - start) == 0;
}

/**
 * km_copy_stamp_file_matches:
 * @path: a file
 * @owner: the project, as km_copy_stamp_append() was given it
 *
 * km_copy_stamp_check() on the file at @path. Reads the whole file (the stamp hashes it),
 * up to 256 MiB: call it on a worker thread, never the main thread.
 *
 * Returns: whether @path is a regular file that holds a copy written for @owner, unchanged;
 *   FALSE when it cannot be read
 */
gboolean
km_copy_stamp_file_matches (const char *path,
                            const char *owner)
{
  g_autofree char *data = NULL;
  gsize length = 0;
  GStatBuf st;

  g_return_val_if_fail (path != NULL && owner != NULL, FALSE);

  if (g_lstat (path, &st) != 0 || !S_ISREG (st.st_mode) || st.st_size > STAMP_MAX_FILE)
    return FALSE;
  if (!g_file_get_contents (path, &data, &length, NULL))
    return FALSE;
  return km_copy_stamp_check (data, length, owner);
}
