/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-error"

#include "config.h"

#include <stdarg.h>

#include "km-error.h"

G_DEFINE_QUARK (km-parse-error-quark, km_parse_error)

/**
 * km_parse_error_set:
 * @file: the path as the user gave it
 * @pos: where the offending value starts; line 0 leaves out line and column
 *
 * The "FILE:LINE:COLUMN: " prefix is never translated; the message after it is.
 */
void
km_parse_error_set (GError      **error,
                    KmParseError  code,
                    const char   *file,
                    KmSourcePos   pos,
                    const char   *format,
                    ...)
{
  g_autofree char *message = NULL;
  va_list args;

  if (error == NULL)
    return;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  if (pos.line > 0)
    g_set_error (error, KM_PARSE_ERROR, code, "%s:%u:%u: %s", file, pos.line,
                 MAX (pos.column, 1), message);
  else
    g_set_error (error, KM_PARSE_ERROR, code, "%s: %s", file, message);
}

/* Appends "included from FILE:LINE:COLUMN" to an error raised inside an included file. */
void
km_parse_error_add_include (GError     **error,
                            const char  *file,
                            KmSourcePos  pos)
{
  char *message;

  if (error == NULL || *error == NULL)
    return;

  message = g_strdup_printf ("%s\nincluded from %s:%u:%u", (*error)->message, file, pos.line,
                             MAX (pos.column, 1));
  g_free ((*error)->message);
  (*error)->message = message;
}
