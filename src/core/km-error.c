/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-error"

#include "config.h"

#include <stdarg.h>
#include <string.h>
#include <glib/gstdio.h>

#include "km-error.h"
#include "km-format.h"

G_DEFINE_QUARK (km-parse-error-quark, km_parse_error)

/**
 * km_parse_shown_file:
 * @file: the path as the user gave it
 *
 * Returns: (transfer full): @file as locations show it (see km-error.h): escaped exactly
 *   as km_format_append_value() escapes a name, which a `key=value` value is too, its
 *   spaces then written \x20 (km_format_append_field())
 */
char *
km_parse_shown_file (const char *file)
{
  GString *shown;

  g_return_val_if_fail (file != NULL, NULL);

  shown = g_string_sized_new (strlen (file));
  km_format_append_value (shown, file);
  return g_string_free (shown, FALSE);
}

/**
 * km_parse_location:
 * @file: the path as the user gave it
 * @pos: line 0 leaves out line and column
 *
 * Returns: (transfer full): "FILE:LINE:COLUMN", or "FILE", FILE as km_parse_shown_file()
 *   shows it: what every located message starts with
 */
char *
km_parse_location (const char  *file,
                   KmSourcePos  pos)
{
  g_autofree char *shown = km_parse_shown_file (file);

  if (pos.line == 0)
    return g_steal_pointer (&shown);
  return g_strdup_printf ("%s:%u:%u", shown, pos.line, MAX (pos.column, 1));
}

/* @shown (@length bytes) as km_parse_shown_file() escaped it, back to the bytes of the
 * path; NULL when it holds an escape that function never writes. */
static char *
unescape_shown (const char *shown,
                gsize       length)
{
  g_autoptr(GString) file = g_string_sized_new (length);

  for (gsize i = 0; i < length; i++)
    {
      guint64 code;
      char digits[5];
      char *end;
      gsize n;

      if (shown[i] != '\\')
        {
          /* km_parse_shown_file() leaves no control character as it is. */
          if ((guchar) shown[i] < 0x20 || shown[i] == 0x7f)
            return NULL;
          g_string_append_c (file, shown[i]);
          continue;
        }
      if (++i >= length)
        return NULL;
      switch (shown[i])
        {
        case '\\':
          g_string_append_c (file, '\\');
          break;
        case 't':
          g_string_append_c (file, '\t');
          break;
        case 'n':
          g_string_append_c (file, '\n');
          break;
        case 'r':
          g_string_append_c (file, '\r');
          break;
        case 'x':
        case 'u':
          n = shown[i] == 'x' ? 2 : 4;
          if (i + n >= length)
            return NULL;
          memcpy (digits, shown + i + 1, n);
          digits[n] = '\0';
          for (gsize k = 0; k < n; k++)
            if (!g_ascii_isxdigit (digits[k]))
              return NULL;
          code = g_ascii_strtoull (digits, &end, 16);
          /* No path holds a NUL byte: "\x00" would end the name read back early. */
          if (code == 0)
            return NULL;
          if (n == 2)
            g_string_append_c (file, (char) code);
          else if (code == 0x85 || code == 0x2028 || code == 0x2029)
            g_string_append_unichar (file, (gunichar) code);
          else
            return NULL;
          i += n;
          break;
        default:
          return NULL;
        }
    }
  return g_string_free (g_steal_pointer (&file), FALSE);
}

/* The number of decimal digits at @p (at most up to @end), and its value in @value. */
static gsize
read_number (const char *p,
             const char *end,
             guint      *value)
{
  guint64 v = 0;
  gsize n = 0;

  while (p + n < end && g_ascii_isdigit (p[n]))
    {
      v = v * 10 + (guint64) (p[n] - '0');
      if (v > G_MAXUINT)
        return 0;
      n++;
    }
  *value = (guint) v;
  return n;
}

/* Whether the @length bytes at @shown, escaped as km_parse_shown_file() escapes, name
 * @file (a path as given). */
static gboolean
names_file (const char *shown,
            gsize       length,
            const char *file)
{
  g_autofree char *name = NULL;

  /* An escape never shortens a name. */
  if (length < strlen (file))
    return FALSE;
  name = unescape_shown (shown, length);
  return name != NULL && strcmp (name, file) == 0;
}

/* km_parse_read_location(), and with @expected (nullable) km_parse_read_location_of():
 * only a location whose FILE names @expected. */
static gboolean
read_location (const char   *text,
               const char   *expected,
               char        **file,
               KmSourcePos  *pos,
               const char  **rest)
{
  const char *line_end;
  const char *colon_space = NULL;
  const char *name_end = NULL;
  const char *after = NULL;
  KmSourcePos found = { 0, 0 };
  char *name;

  line_end = text + strcspn (text, "\n");
  for (const char *p = text; p < line_end && name_end == NULL; p++)
    {
      const char *q;
      gsize n;

      if (*p != ':')
        continue;
      if (expected != NULL && !names_file (text, (gsize) (p - text), expected))
        continue;
      if (colon_space == NULL && p + 1 < line_end && p[1] == ' ')
        colon_space = p;
      n = read_number (p + 1, line_end, &found.line);
      q = p + 1 + n;
      if (n == 0 || found.line == 0 || q >= line_end || *q != ':')
        continue;
      n = read_number (q + 1, line_end, &found.column);
      q += 1 + n;
      if (n == 0 || found.column == 0)
        continue;
      if (q == line_end)
        after = *q == '\n' ? q + 1 : q;
      else if (q[0] == ':' && q + 1 < line_end && q[1] == ' ')
        after = q + 2;
      else
        continue;
      name_end = p;
    }
  if (name_end == NULL)
    {
      if (colon_space == NULL)
        return FALSE;
      name_end = colon_space;
      after = colon_space + 2;
      found = (KmSourcePos) { 0, 0 };
    }
  if (name_end == text)
    return FALSE;
  name = unescape_shown (text, (gsize) (name_end - text));
  if (name == NULL)
    return FALSE;
  if (file != NULL)
    *file = name;
  else
    g_free (name);
  if (pos != NULL)
    *pos = found;
  if (rest != NULL)
    *rest = after;
  return TRUE;
}

/**
 * km_parse_read_location:
 * @text: a message, or what follows "included from " in one
 * @file: (out) (optional) (transfer full): the path as given
 * @pos: (out) (optional): line 0 for a "FILE: " location
 * @rest: (out) (optional) (transfer none): what follows the location
 *
 * The inverse of km_parse_location() (see km-error.h).
 */
gboolean
km_parse_read_location (const char   *text,
                        char        **file,
                        KmSourcePos  *pos,
                        const char  **rest)
{
  g_return_val_if_fail (text != NULL, FALSE);

  return read_location (text, NULL, file, pos, rest);
}

/**
 * km_parse_read_location_of:
 * @text: a message about @file, or what follows "included from " in one
 * @file: the path as the user gave it
 * @pos: (out) (optional): line 0 for a "FILE: " location
 * @rest: (out) (optional) (transfer none): what follows the location
 *
 * km_parse_read_location() of a location in @file only (see km-error.h).
 */
gboolean
km_parse_read_location_of (const char   *text,
                           const char   *file,
                           KmSourcePos  *pos,
                           const char  **rest)
{
  g_return_val_if_fail (text != NULL, FALSE);
  g_return_val_if_fail (file != NULL, FALSE);

  return read_location (text, file, NULL, pos, rest);
}

/* Puts "FILE:LINE:COLUMN: " (km_parse_location()) before an error's message: for a
 * failure from code that does not know the file (a mesh built from a file's numbers). */
void
km_parse_error_prefix (GError      **error,
                       const char   *file,
                       KmSourcePos   pos)
{
  g_autofree char *location = NULL;

  if (error == NULL || *error == NULL)
    return;
  location = km_parse_location (file, pos);
  g_prefix_error (error, "%s: ", location);
}

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
  g_autofree char *location = NULL;
  va_list args;

  if (error == NULL)
    return;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  location = km_parse_location (file, pos);
  g_set_error (error, KM_PARSE_ERROR, code, "%s: %s", location, message);
}

/* Appends "included from FILE:LINE:COLUMN" to an error raised inside an included file. */
void
km_parse_error_add_include (GError     **error,
                            const char  *file,
                            KmSourcePos  pos)
{
  g_autofree char *shown = NULL;
  char *message;

  if (error == NULL || *error == NULL)
    return;

  shown = km_parse_shown_file (file);
  message = g_strdup_printf ("%s\nincluded from %s:%u:%u", (*error)->message, shown, pos.line,
                             MAX (pos.column, 1));
  g_free ((*error)->message);
  (*error)->message = message;
}

/**
 * km_parse_error_add_include_from:
 *
 * Like km_parse_error_add_include(), but leaves an error raised in @file itself (at the
 * include, or in a part of @file that applies to what it includes) as it is. Errors from
 * deeper files carry their own "included from" lines already; this one goes after them.
 */
void
km_parse_error_add_include_from (GError     **error,
                                 const char  *file,
                                 KmSourcePos  pos)
{
  g_autofree char *shown = NULL;
  g_autofree char *prefix = NULL;

  if (error == NULL || *error == NULL)
    return;
  shown = km_parse_shown_file (file);
  prefix = g_strconcat (shown, ":", NULL);
  if (!g_str_has_prefix ((*error)->message, prefix))
    km_parse_error_add_include (error, file, pos);
}

/**
 * km_parse_included_path:
 * @including: the including file, as the user gave it
 * @reference: the name it gives: relative to @including's folder, or absolute
 *
 * Returns: (transfer full): the included file's path "as given" (DESIGN.md, "Error
 *   locations"): joined to @including's folder, without a leading "./"
 */
char *
km_parse_included_path (const char *including,
                        const char *reference)
{
  g_autofree char *dir = NULL;

  g_return_val_if_fail (including != NULL, NULL);
  g_return_val_if_fail (reference != NULL, NULL);

  if (g_path_is_absolute (reference))
    return g_strdup (reference);
  while (reference[0] == '.' && G_IS_DIR_SEPARATOR (reference[1]))
    reference += 2;
  dir = g_path_get_dirname (including);
  if (strcmp (dir, ".") == 0)
    return g_strdup (reference);
  return g_build_filename (dir, reference, NULL);
}

typedef struct
{
  KmParseWarningFunc func;
  gpointer           user_data;
} WarningHandler;

static void
handler_stack_free (gpointer data)
{
  g_slist_free_full (data, g_free);
}

static GPrivate warning_handlers = G_PRIVATE_INIT (handler_stack_free);

void
km_parse_warnings_push (KmParseWarningFunc func,
                        gpointer           user_data)
{
  WarningHandler *handler;

  g_return_if_fail (func != NULL);

  handler = g_new (WarningHandler, 1);
  handler->func = func;
  handler->user_data = user_data;
  g_private_set (&warning_handlers,
                 g_slist_prepend (g_private_get (&warning_handlers), handler));
}

void
km_parse_warnings_pop (void)
{
  GSList *stack = g_private_get (&warning_handlers);

  g_return_if_fail (stack != NULL);

  g_free (stack->data);
  /* g_private_set (unlike g_private_replace) does not free the old value. */
  g_private_set (&warning_handlers, g_slist_delete_link (stack, stack));
}

/**
 * km_parse_warning:
 * @file: the path as the user gave it
 * @pos: where the value the warning is about starts; line 0 leaves out line and column
 *
 * Reports a non-fatal problem to the innermost handler of this thread.
 */
void
km_parse_warning (const char  *file,
                  KmSourcePos  pos,
                  const char  *format,
                  ...)
{
  g_autofree char *text = NULL;
  g_autofree char *message = NULL;
  g_autofree char *location = NULL;
  GSList *stack;
  va_list args;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);

  location = km_parse_location (file, pos);
  message = g_strdup_printf ("%s: %s", location, text);

  stack = g_private_get (&warning_handlers);
  if (stack != NULL)
    {
      WarningHandler *handler = stack->data;

      handler->func (message, handler->user_data);
    }
  else
    g_message ("%s", message);
}

char *
km_path_climbing (const char *dir,
                  const char *absolute,
                  guint       min_common,
                  guint      *n_common)
{
  g_auto(GStrv) from = NULL;
  g_auto(GStrv) to = NULL;
  g_autoptr(GString) out = NULL;
  g_autofree char *physical = NULL;
  guint n_from, n_to, k = 0;
  GStatBuf a, b;

  if (n_common != NULL)
    *n_common = 0;
  if (dir[0] != '/' || absolute[0] != '/' || strcmp (dir, "/") == 0)
    return NULL;
  from = g_strsplit (dir + 1, "/", -1);
  to = g_strsplit (absolute + 1, "/", -1);
  n_from = g_strv_length (from);
  n_to = g_strv_length (to);
  while (k < n_from && k + 1 < n_to && strcmp (from[k], to[k]) == 0)
    k++;
  if (n_common != NULL)
    *n_common = k;
  if (k < MAX (min_common, 1))
    return NULL;

  out = g_string_new (NULL);
  for (guint i = k; i < n_from; i++)
    g_string_append (out, "../");
  for (guint i = k; i < n_to; i++)
    g_string_append_printf (out, i + 1 < n_to ? "%s/" : "%s", to[i]);

  /* Climbed on the file system, "../" must reach the same file. */
  physical = g_build_filename (dir, out->str, NULL);
  if (g_stat (absolute, &a) == 0 &&
      (g_stat (physical, &b) != 0 || a.st_dev != b.st_dev || a.st_ino != b.st_ino))
    return NULL;
  return g_string_free (g_steal_pointer (&out), FALSE);
}
