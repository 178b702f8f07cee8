/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-format"

#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "km-format.h"
#include "km-error.h"
#include "km-json.h"
#include "km-target-track.h"
#include "km-yaml.h"

/*
 * The registry: one row per format. To add a format, include its header in this list and
 * add its KmFormat to the table below (nothing else in Kinema needs to know it). Rows are
 * sorted by name; on equal sniff scores the earlier row wins.
 */
#include "km-animation-json.h"
#include "km-body.h"
#include "km-body-motion.h"
#include "km-cnoid.h"
#include "km-openhrp.h"
#include "km-pose-seq.h"
#include "km-scenebuilder.h"
#include "km-skeleton-json.h"
#include "km-targets-json.h"
#include "km-urdf.h"

static const KmFormat * const formats[] = {
  &km_format_choreonoid_body,
  &km_format_body_motion,
  &km_format_cnoid,
  &km_format_animation_json,
  &km_format_targets_json,
  &km_format_openhrp,
  &km_format_pose_seq,
  &km_format_scenebuilder,
  &km_format_skeleton_json,
  &km_format_urdf,
};

#define GUESS_LIMIT (64 * 1024)
#define READ_CHUNK (64 * 1024)

const KmFormat * const *
km_format_list (guint *n_formats)
{
  if (n_formats != NULL)
    *n_formats = G_N_ELEMENTS (formats);
  return formats;
}

const KmFormat *
km_format_lookup (const char *name)
{
  g_return_val_if_fail (name != NULL, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    if (g_ascii_strcasecmp (formats[i]->name, name) == 0)
      return formats[i];
  return NULL;
}

char *
km_format_list_names (void)
{
  GString *names = g_string_new (NULL);

  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    {
      if (i > 0)
        g_string_append (names, ", ");
      g_string_append (names, formats[i]->name);
    }
  return g_string_free (names, FALSE);
}

const KmFormat *
km_format_detect (const char *data,
                  gsize       length)
{
  const KmFormat *best = NULL;
  int best_score = 0;

  g_return_val_if_fail (data != NULL || length == 0, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    {
      int score;

      if (formats[i]->sniff == NULL)
        continue;
      score = formats[i]->sniff (data != NULL ? data : "", length);
      if (score > best_score)
        {
          best = formats[i];
          best_score = score;
        }
    }
  return best;
}

static gboolean
is_space (char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static const char *
find (const char *p,
      const char *end,
      const char *needle)
{
  gsize n = strlen (needle);

  for (; p + n <= end; p++)
    if (memcmp (p, needle, n) == 0)
      return p + n;
  return NULL;
}

/* The root element's name after the prolog (declaration, comments, DOCTYPE). */
static char *
xml_root_name (const char *p,
               const char *end)
{
  while (p != NULL && p < end)
    {
      const char *start;

      while (p < end && is_space (*p))
        p++;
      if (p >= end || *p != '<')
        return NULL;
      if (end - p >= 4 && memcmp (p, "<!--", 4) == 0)
        p = find (p + 4, end, "-->");
      else if (end - p >= 2 && (p[1] == '?' || p[1] == '!'))
        p = find (p + 2, end, ">");
      else
        {
          start = ++p;
          while (p < end && p - start < 64 && !is_space (*p) && *p != '>' && *p != '/')
            p++;
          if (p == start || p >= end || !g_utf8_validate (start, p - start, NULL))
            return NULL;
          return g_strndup (start, p - start);
        }
    }
  return NULL;
}

/* A first line like "key:" or "format: ChoreonoidBody" (comments and "---" skipped). */
static gboolean
looks_like_yaml (const char *p,
                 const char *end)
{
  if (end - p >= 5 && memcmp (p, "%YAML", 5) == 0)
    return TRUE;
  while (p < end)
    {
      const char *line_end = memchr (p, '\n', end - p);
      const char *q = p;

      if (line_end == NULL)
        line_end = end;
      while (q < line_end && is_space (*q))
        q++;
      if (q == line_end || *q == '#' || (line_end - q >= 3 && memcmp (q, "---", 3) == 0))
        {
          p = line_end + 1;
          continue;
        }
      if (!g_ascii_isalpha (*q) && *q != '_')
        return FALSE;
      while (q < line_end && (g_ascii_isalnum (*q) || *q == '_' || *q == '-' || *q == ' '))
        q++;
      return q < line_end && *q == ':';
    }
  return FALSE;
}

/**
 * km_format_guess_description:
 *
 * Returns: (transfer full): a translated noun phrase saying what the data looks like
 */
char *
km_format_guess_description (const char *data,
                             gsize       length)
{
  gsize check = MIN (length, GUESS_LIMIT);
  const char *valid_end;
  const char *p, *end;
  gsize start;

  g_return_val_if_fail (data != NULL || length == 0, NULL);

  if (length == 0)
    return g_strdup (_("an empty file"));
  if (memchr (data, '\0', check) != NULL)
    return g_strdup (_("binary data"));
  /* A multi-byte character cut at the limit is not binary. */
  if (!g_utf8_validate_len (data, check, &valid_end) &&
      (check == length || (gsize) (valid_end - data) + 4 <= check))
    return g_strdup (_("binary data"));

  start = 0;
  if (check >= 3 && memcmp (data, "\xEF\xBB\xBF", 3) == 0)
    start = 3;
  while (start < check && is_space (data[start]))
    start++;
  if (start >= check)
    return g_strdup (check == length ? _("an empty file (only white space)")
                                     : _("plain text, not a known Kinema format"));

  p = data + start;
  end = data + check;
  if (*p == '{' || *p == '[')
    {
      g_autoptr(KmJsonDocument) doc = km_json_parse ("", data, length, NULL);

      if (doc == NULL)
        return g_strdup (_("text that starts like JSON but is not valid JSON"));
      if (km_json_node_type (km_json_document_get_root (doc)) == KM_JSON_OBJECT)
        return g_strdup (_("a JSON object, not a known Kinema format"));
      return g_strdup (_("a JSON array, not a known Kinema format"));
    }
  if (*p == '<')
    {
      g_autofree char *root = xml_root_name (p, end);

      if (root != NULL)
        /* Translators: %s is an XML element name, e.g. "robot" */
        return g_strdup_printf (_("an XML document with root element <%s>"), root);
      return g_strdup (_("an XML document"));
    }
  if (looks_like_yaml (p, end))
    return g_strdup (_("a YAML document, not a known Kinema format"));
  return g_strdup (_("plain text, not a known Kinema format"));
}

/*
 * Text no format claims that starts like JSON, or looks like YAML, but does not parse: the
 * reader's syntax error, with its position, says more than what the text looks like
 * (km_format_guess_description()), and is what --format would say. Returns FALSE, with
 * @error untouched, when the text parses (or looks like neither).
 */
static gboolean
syntax_error (const char  *path,
              const char  *data,
              gsize        length,
              GError     **error)
{
  gsize check = MIN (length, GUESS_LIMIT);
  gsize start = check >= 3 && memcmp (data, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
  g_autoptr(GError) local_error = NULL;
  const char *valid_end;

  /* Binary data stays "binary data" (a character cut at the limit is no reason). */
  if (memchr (data, '\0', check) != NULL ||
      (!g_utf8_validate_len (data, check, &valid_end) &&
       (check == length || (gsize) (valid_end - data) + 4 <= check)))
    return FALSE;
  while (start < check && is_space (data[start]))
    start++;
  if (start >= check)
    return FALSE;

  if (data[start] == '{' || data[start] == '[')
    {
      g_autoptr(KmJsonDocument) doc = km_json_parse (path, data, length, &local_error);

      if (doc != NULL)
        return FALSE;
    }
  else if (looks_like_yaml (data + start, data + check))
    {
      g_autoptr(KmYamlNode) root = km_yaml_parse (path, data, length, NULL, &local_error);

      if (root != NULL)
        return FALSE;
    }
  else
    return FALSE;
  g_propagate_error (error, g_steal_pointer (&local_error));
  return TRUE;
}

static GBytes *read_file_at (const char   *path,
                             gsize         max_size,
                             KmSourcePos   pos,
                             GError      **error);

/**
 * km_format_read_file:
 *
 * Reads at most @max_size bytes of @path in chunks (a pipe or /dev/zero has no size, so
 * the size is never asked in advance). A larger file fails with KM_PARSE_ERROR_LIMIT
 * before more than @max_size bytes are held; an unreadable one with KM_PARSE_ERROR_IO.
 *
 * Returns: (transfer full) (nullable): the contents
 */
GBytes *
km_format_read_file (const char  *path,
                     gsize        max_size,
                     GError     **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return read_file_at (path, max_size, (KmSourcePos) { 0, 0 }, error);
}

/* The system's reason in a GIO error: GLib's "Error opening file PATH: No such file or
 * directory" names the file again, after a prefix the user never asked for. */
static const char *
io_reason (const GError *error)
{
  const char *reason = g_strrstr (error->message, ": ");

  return reason != NULL && reason[2] != '\0' ? reason + 2 : error->message;
}

/* km_format_read_file, its errors located at @pos (line 0: the file alone). */
static GBytes *
read_file_at (const char   *path,
              gsize         max_size,
              KmSourcePos   pos,
              GError      **error)
{
  g_autoptr(GFile) file = NULL;
  g_autoptr(GFileInputStream) in = NULL;
  g_autoptr(GByteArray) buffer = NULL;
  g_autoptr(GError) local_error = NULL;
  guint8 chunk[READ_CHUNK];

  file = g_file_new_for_path (path);
  in = g_file_read (file, NULL, &local_error);
  if (in == NULL)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_IO, path, pos,
                          _("cannot read the file: %s"), io_reason (local_error));
      return NULL;
    }

  /* A loop rather than one query of the size: a pipe or /dev/zero has no size. */
  buffer = g_byte_array_new ();
  for (;;)
    {
      gssize n = g_input_stream_read (G_INPUT_STREAM (in), chunk, sizeof chunk, NULL,
                                      &local_error);

      if (n < 0)
        {
          km_parse_error_set (error, KM_PARSE_ERROR_IO, path, pos,
                              _("cannot read the file: %s"), io_reason (local_error));
          return NULL;
        }
      if (n == 0)
        break;
      if (buffer->len + (gsize) n > max_size)
        {
          if (max_size >= 1024 * 1024)
            km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, path, pos,
                                _("the file is larger than %u MiB"),
                                (guint) (max_size / (1024 * 1024)));
          else
            km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, path, pos,
                                _("the file is larger than %u bytes"), (guint) max_size);
          return NULL;
        }
      g_byte_array_append (buffer, chunk, n);
    }
  return g_byte_array_free_to_bytes (g_steal_pointer (&buffer));
}

/* Where the content starts: the first character that is not white space (after a UTF-8
 * byte order mark), or 1:1 when there is none. Column in characters: only white space
 * precedes it on its line. */
static KmSourcePos
content_start (const char *data,
               gsize       length)
{
  KmSourcePos pos = { 1, 1 };
  gsize i = length >= 3 && memcmp (data, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;

  for (; i < MIN (length, GUESS_LIMIT) && is_space (data[i]); i++)
    {
      if (data[i] == '\n')
        {
          pos.line++;
          pos.column = 1;
        }
      else if (data[i] != '\r')
        pos.column++;
    }
  if (i >= MIN (length, GUESS_LIMIT))
    return (KmSourcePos) { 1, 1 };
  return pos;
}

/*
 * UTF-16 text (with its byte order mark, as XML requires; Windows tools write URDF and
 * Scenebuilder scenes so) is read as the same text in UTF-8, without the mark: lines and
 * columns (in characters) are the same. Returns the converted bytes, @contents itself when
 * it is not UTF-16, or NULL with @error when it is not valid UTF-16.
 */
static GBytes *
utf16_to_utf8 (const char  *path,
               GBytes      *contents,
               GError     **error)
{
  g_autoptr(GError) local_error = NULL;
  gsize length;
  const char *data = g_bytes_get_data (contents, &length);
  const char *from;
  gsize written = 0;
  char *text;

  if (data != NULL && length >= 2 && memcmp (data, "\xFF\xFE", 2) == 0)
    from = "UTF-16LE";
  else if (data != NULL && length >= 2 && memcmp (data, "\xFE\xFF", 2) == 0)
    from = "UTF-16BE";
  else
    return g_bytes_ref (contents);

  text = g_convert (data + 2, length - 2, "UTF-8", from, NULL, &written, &local_error);
  if (text == NULL || memchr (text, '\0', written) != NULL)
    {
      /* Translators: %s is an encoding name (UTF-16LE), the last %s the reason. */
      km_parse_error_set (error, KM_PARSE_ERROR_SYNTAX, path, (KmSourcePos) { 1, 1 },
                          _("expected %s text after the byte order mark: %s"), from,
                          local_error != NULL ? local_error->message
                                              : _("it contains a NUL character"));
      g_free (text);
      return NULL;
    }
  return g_bytes_new_take (text, written);
}

KmModelExtras *
km_model_extras_new (void)
{
  KmModelExtras *extras = g_new0 (KmModelExtras, 1);

  extras->targets = g_ptr_array_new_with_free_func ((GDestroyNotify) km_target_track_unref);
  extras->target_names = g_ptr_array_new_with_free_func (g_free);
  return extras;
}

void
km_model_extras_free (KmModelExtras *extras)
{
  if (extras == NULL)
    return;
  g_clear_pointer (&extras->targets, g_ptr_array_unref);
  g_clear_pointer (&extras->target_names, g_ptr_array_unref);
  g_free (extras->initial_q);
  g_free (extras);
}

gpointer
km_format_load_file (const char      *path,
                     const char      *format_name,
                     const KmFormat **format,
                     GError         **error)
{
  return km_format_load_model_file (path, format_name, format, NULL, error);
}

/**
 * km_format_load_model_file:
 * @extras: (out) (optional) (transfer full): what a model file defines beside the skeleton
 *
 * Returns: (transfer full) (nullable): the format's result, free it with format->free_result
 */
gpointer
km_format_load_model_file (const char      *path,
                           const char      *format_name,
                           const KmFormat **format,
                           KmModelExtras  **extras,
                           GError         **error)
{
  g_autoptr(KmModelExtras) found = NULL;
  g_autoptr(GBytes) raw = NULL;
  g_autoptr(GBytes) contents = NULL;
  const KmFormat *fmt = NULL;
  const char *data;
  gsize length;
  gpointer result;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (format != NULL)
    *format = NULL;
  if (extras != NULL)
    *extras = NULL;

  if (format_name != NULL)
    {
      fmt = km_format_lookup (format_name);
      if (fmt == NULL)
        {
          g_autofree char *names = km_format_list_names ();

          /* Translators: the second %s is a comma-separated list of format names */
          g_set_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_UNKNOWN,
                       _("unknown format “%s” (known formats: %s)"), format_name, names);
          return NULL;
        }
    }

  /* Every error names a place in the file (DESIGN.md, "Error locations"): where the
   * file cannot be read at all, its start. */
  raw = read_file_at (path, KM_FORMAT_MAX_FILE_SIZE, (KmSourcePos) { 1, 1 }, error);
  if (raw == NULL)
    return NULL;
  contents = utf16_to_utf8 (path, raw, error);
  if (contents == NULL)
    return NULL;
  data = g_bytes_get_data (contents, &length);
  if (data == NULL)
    data = "";

  if (fmt == NULL)
    {
      fmt = km_format_detect (data, length);
      if (fmt == NULL)
        {
          g_autofree char *guess = NULL;

          if (syntax_error (path, data, length, error))
            return NULL;
          guess = km_format_guess_description (data, length);

          /* Translators: %s says what the file looks like, e.g. "binary data" */
          km_parse_error_set (error, KM_PARSE_ERROR_UNKNOWN, path, content_start (data, length),
                              _("not a file Kinema can read: %s"), guess);
          return NULL;
        }
    }

  found = km_model_extras_new ();
  if (fmt->kind == KM_FILE_KIND_MODEL && fmt->load_model != NULL)
    result = fmt->load_model (path, contents, found, error);
  else
    result = fmt->load (path, contents, error);
  if (result == NULL)
    {
      if (error != NULL && *error == NULL)
        km_parse_error_set (error, KM_PARSE_ERROR_INVALID, path, (KmSourcePos) { 1, 1 },
                            _("could not be loaded as %s"), fmt->name);
      return NULL;
    }
  if (format != NULL)
    *format = fmt;
  if (extras != NULL)
    *extras = g_steal_pointer (&found);
  return result;
}

gboolean
km_format_save_text (const char  *path,
                     const char  *text,
                     GError     **error)
{
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (text != NULL, FALSE);

  return km_format_save_data (path, text, -1, error);
}

gboolean
km_format_save_data (const char  *path,
                     const char  *data,
                     gssize       length,
                     GError     **error)
{
  g_autoptr(GError) local_error = NULL;
  const char *reason;

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (data != NULL, FALSE);

  if (g_file_set_contents_full (path, data, length,
                                G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_DURABLE,
                                0666, &local_error))
    return TRUE;

  /* GLib names the temporary file it failed on (“x.cnoid.4KX2Q1”), which the user never
   * asked for: the message names the file and keeps only the system's reason. */
  reason = g_strrstr (local_error->message, ": ");
  reason = reason != NULL ? reason + 2 : local_error->message;
  g_set_error (error, G_FILE_ERROR, local_error->code, _("%s: cannot write the file: %s"),
               path, reason);
  return FALSE;
}

void
km_format_note (GPtrArray  *notes,
                const char *format,
                ...)
{
  va_list args;

  if (notes == NULL)
    return;
  va_start (args, format);
  g_ptr_array_add (notes, g_strdup_vprintf (format, args));
  va_end (args);
}

void
km_format_append_value (GString    *out,
                        const char *value)
{
  g_return_if_fail (out != NULL);
  g_return_if_fail (value != NULL);

  for (const char *p = value; *p != '\0'; p++)
    {
      guchar c = (guchar) *p;

      switch (c)
        {
        case '\\':
          g_string_append (out, "\\\\");
          break;
        case '\t':
          g_string_append (out, "\\t");
          break;
        case '\n':
          g_string_append (out, "\\n");
          break;
        case '\r':
          g_string_append (out, "\\r");
          break;
        default:
          if (c < 0x20 || c == 0x7f)
            g_string_append_printf (out, "\\x%02x", c);
          /* U+0085 (C2 85), U+2028 and U+2029 (E2 80 A8/A9): line breaks to many readers
           * (Python's str.splitlines() among them). */
          else if (c == 0xc2 && (guchar) p[1] == 0x85)
            {
              g_string_append (out, "\\u0085");
              p++;
            }
          else if (c == 0xe2 && (guchar) p[1] == 0x80 &&
                   ((guchar) p[2] == 0xa8 || (guchar) p[2] == 0xa9))
            {
              g_string_append_printf (out, "\\u%04x", (guchar) p[2] == 0xa8 ? 0x2028 : 0x2029);
              p += 2;
            }
          else
            g_string_append_c (out, *p);
          break;
        }
    }
}

/* How many doubles on each side of value / scale km_format_scaled_number() tries: a
 * product is rounded once, so the doubles that give @value lie within an ulp or two of
 * the quotient; four leaves room to spare. */
#define SCALED_NEIGHBOURS 4

void
km_format_scaled_number (double  value,
                         double  scale,
                         char   *buffer,
                         gsize   buffer_size)
{
  char text[G_ASCII_DTOSTR_BUF_SIZE];
  double start, best_error = INFINITY;
  gsize best_length = G_MAXSIZE;

  g_return_if_fail (buffer != NULL && buffer_size >= G_ASCII_DTOSTR_BUF_SIZE);
  g_return_if_fail (isfinite (scale) && scale != 0);

  /* + 0.0: a negative zero is written 0. */
  start = value / scale + 0.0;
  if (!isfinite (value) || !isfinite (start) || scale == 1)
    {
      km_yaml_format_number (start, buffer, buffer_size);
      return;
    }
  /* The shortest text of the doubles near the quotient that the reader takes back to
   * @value (the quotient itself may be an ulp off: 0.8 rad is not 45.836623610465864°
   * but 45.83662361046586°); between texts of one length, the one nearer the quotient. */
  for (int d = 0; d <= SCALED_NEIGHBOURS; d++)
    for (int side = -1; side <= 1; side += 2)
      {
        double candidate = start, error;
        gsize length;

        if (d == 0 && side > 0)
          continue;
        for (int k = 0; k < d; k++)
          candidate = nextafter (candidate, side * INFINITY);
        km_yaml_format_number (candidate, text, sizeof text);
        error = fabs (g_ascii_strtod (text, NULL) * scale - value);
        length = strlen (text);
        if (error < best_error || (error == best_error && length < best_length))
          {
            best_error = error;
            best_length = length;
            g_strlcpy (buffer, text, buffer_size);
          }
      }
}
