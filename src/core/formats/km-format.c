/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-format"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "km-format.h"
#include "km-error.h"
#include "km-json.h"
#include "km-markup-text.h"
#include "km-mesh-private.h"
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

gboolean
km_format_name_matches (const char *name,
                        const char *given)
{
  g_return_val_if_fail (name != NULL && given != NULL, FALSE);

  return g_ascii_strcasecmp (name, given) == 0;
}

const KmFormat *
km_format_lookup (const char *name)
{
  g_return_val_if_fail (name != NULL, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    if (km_format_name_matches (formats[i]->name, name))
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

/* The highest-scoring sniff of @data (ties: the earlier row), NULL when all say 0. */
static const KmFormat *
sniff_all (const char *data,
           gsize       length)
{
  const KmFormat *best = NULL;
  int best_score = 0;

  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    {
      int score;

      if (formats[i]->sniff == NULL)
        continue;
      score = formats[i]->sniff (data, length);
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

/* Whether @length bytes of @data (the first GUESS_LIMIT of them) hold a NUL or bytes that
 * are not UTF-8; a multi-byte character cut at the limit does not count. */
static gboolean
is_binary (const char *data,
           gsize       length)
{
  gsize check = MIN (length, GUESS_LIMIT);
  const char *valid_end;

  return memchr (data, '\0', check) != NULL
         || (!g_utf8_validate_len (data, check, &valid_end)
             && (check == length || (gsize) (valid_end - data) + 4 <= check));
}

/* The offset of the first character that is not white space (after a UTF-8 byte order
 * mark), within the first GUESS_LIMIT bytes; that limit when there is none. */
static gsize
text_start (const char *data,
            gsize       length)
{
  gsize check = MIN (length, GUESS_LIMIT);
  gsize start = check >= 3 && memcmp (data, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;

  while (start < check && is_space (data[start]))
    start++;
  return start;
}

/* Whether @path is named as a JSON file: then text that starts like JSON is JSON, and its
 * errors are JSON errors, never read as YAML. */
static gboolean
named_json (const char *path)
{
  const char *dot = path != NULL ? strrchr (path, '.') : NULL;

  return dot != NULL && strchr (dot, G_DIR_SEPARATOR) == NULL
         && g_ascii_strcasecmp (dot, ".json") == 0;
}

static char *xml_root_name (const char *p,
                            const char *end);

/* How much of a YAML document's outline (yaml_outline()) the sniffers are shown. */
#define OUTLINE_LIMIT GUESS_LIMIT

/* A scalar on one line of the outline. */
static void
outline_scalar (GString          *out,
                const KmYamlNode *node)
{
  gsize length = 0;
  const char *value = km_yaml_node_get_scalar (node, &length);

  for (gsize i = 0; i < length && out->len < OUTLINE_LIMIT; i++)
    g_string_append_c (out, value[i] == '\n' || value[i] == '\r' || value[i] == '\0'
                            ? ' ' : value[i]);
}

static void outline_node (GString          *out,
                          const KmYamlNode *node,
                          guint             indent);

/* A mapping's scalar values first, then its collections: what a file is, its top level's
 * scalars say (`format: ChoreonoidBody`, `type: PoseSeq`), and the sniffers look for them
 * near the start. Pairs whose key is no scalar say nothing of the kind and are left out. */
static void
outline_mapping (GString          *out,
                 const KmYamlNode *node,
                 guint             indent)
{
  for (int scalars = 1; scalars >= 0; scalars--)
    for (guint i = 0; i < km_yaml_node_get_length (node) && out->len < OUTLINE_LIMIT; i++)
      {
        const KmYamlNode *key = km_yaml_mapping_get_key (node, i);
        const KmYamlNode *value = km_yaml_mapping_get_value (node, i);
        gboolean scalar = km_yaml_node_get_kind (value) == KM_YAML_SCALAR;

        if (km_yaml_node_get_kind (key) != KM_YAML_SCALAR || scalar != scalars)
          continue;
        g_string_append_printf (out, "%*s", (int) indent, "");
        outline_scalar (out, key);
        g_string_append_c (out, ':');
        if (scalar)
          {
            g_string_append_c (out, ' ');
            outline_scalar (out, value);
            g_string_append_c (out, '\n');
          }
        else
          {
            g_string_append_c (out, '\n');
            outline_node (out, value, indent + 2);
          }
      }
}

static void
outline_node (GString          *out,
              const KmYamlNode *node,
              guint             indent)
{
  if (km_yaml_node_get_kind (node) == KM_YAML_MAPPING)
    outline_mapping (out, node, indent);
  else if (km_yaml_node_get_kind (node) == KM_YAML_SEQUENCE)
    for (guint i = 0; i < km_yaml_node_get_length (node) && out->len < OUTLINE_LIMIT; i++)
      {
        const KmYamlNode *item = km_yaml_sequence_get (node, i);

        g_string_append_printf (out, "%*s-", (int) indent, "");
        if (km_yaml_node_get_kind (item) == KM_YAML_SCALAR)
          {
            g_string_append_c (out, ' ');
            outline_scalar (out, item);
            g_string_append_c (out, '\n');
          }
        else
          {
            g_string_append_c (out, '\n');
            outline_node (out, item, indent + 2);
          }
      }
}

/*
 * The format of YAML that the sniffers, which look at lines of block-style text, do not
 * recognise as written: flow style (`{format: ChoreonoidBody, …}`), or YAML written as
 * strict JSON (JSON is YAML, and Choreonoid reads it so). The document is parsed, and its
 * outline, in the block style the sniffers know, is shown to them: the same kinds of
 * document are recognised whatever their style. NULL when it does not parse, its top
 * level is no mapping, or no sniffer claims it.
 */
static const KmFormat *
detect_yaml (const char *data,
             gsize       length)
{
  g_autoptr(KmYamlNode) root = km_yaml_parse ("", data, length, NULL, NULL);
  g_autoptr(GString) outline = NULL;

  if (root == NULL || km_yaml_node_get_kind (root) != KM_YAML_MAPPING)
    return NULL;
  /* (a document marker first: no sniffer of another kind of text claims it) */
  outline = g_string_new ("---\n");
  outline_mapping (outline, root, 0);
  return sniff_all (outline->str, outline->len);
}

/*
 * The format of XML that the sniffers do not see the document element of (one after a
 * header comment longer than they look, or a comment holding a ">"): the element's name,
 * as xml_root_name() finds it, decides, as it does for the sniffers. The file may still
 * break off after it; the format's loader says where.
 */
static const KmFormat *
detect_xml (const char *data,
            gsize       length)
{
  gsize start = text_start (data, length);
  g_autofree char *root = xml_root_name (data + start, data + MIN (length, GUESS_LIMIT));
  g_autofree char *element = NULL;

  if (root == NULL)
    return NULL;
  element = g_strdup_printf ("<%s>", root);
  return sniff_all (element, strlen (element));
}

const KmFormat *
km_format_detect (const char *data,
                  gsize       length)
{
  return km_format_detect_for_path (NULL, data, length);
}

/**
 * km_format_detect_for_path:
 *
 * The sniffers look at the start of the text, as it is usually written; text none of
 * them claims is looked at more closely: XML by its document element's name, other text
 * (but JSON-looking text in a file named .json) as the YAML it may be.
 */
const KmFormat *
km_format_detect_for_path (const char *path,
                           const char *data,
                           gsize       length)
{
  const KmFormat *format;
  gsize start;

  g_return_val_if_fail (data != NULL || length == 0, NULL);

  if (data == NULL)
    data = "";
  format = sniff_all (data, length);
  if (format != NULL || is_binary (data, length))
    return format;
  start = text_start (data, length);
  if (start >= MIN (length, GUESS_LIMIT))
    return NULL;
  if (data[start] == '<')
    return detect_xml (data, length);
  if ((data[start] == '{' || data[start] == '[') && named_json (path))
    return NULL;
  return detect_yaml (data, length);
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

/* Past the ">" of the "<!DOCTYPE" at @p (km_markup_text_skip_doctype()); NULL when @end
 * comes first. */
static const char *
skip_doctype (const char *p,
              const char *end)
{
  gsize subset, entity;
  gsize past = km_markup_text_skip_doctype (p, end - p, 0, &subset, &entity);

  return past != 0 ? p + past : NULL;
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
      else if (end - p >= 9 && memcmp (p, "<!DOCTYPE", 9) == 0)
        p = skip_doctype (p, end);
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
      const char *line_end = p;
      const char *q = p;

      /* (LF, CRLF or a lone CR, as in old Mac files, ends a line) */
      while (line_end < end && *line_end != '\n' && *line_end != '\r')
        line_end++;
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
        {
          /* Flow-style YAML ("{format: ChoreonoidBody, …}") is not broken JSON. */
          g_autoptr(KmYamlNode) root = km_yaml_parse ("", data, length, NULL, NULL);

          if (root != NULL)
            return g_strdup (_("a YAML document, not a known Kinema format"));
          return g_strdup (_("text that starts like JSON but is not valid JSON"));
        }
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

/* Where @error (a KM_PARSE_ERROR about @path) says it is: its "PATH:LINE:COLUMN: "
 * prefix (km_parse_location()); 0:0 when it has none. */
static KmSourcePos
error_pos (const GError *error,
           const char   *path)
{
  KmSourcePos pos = { 0, 0 };

  if (!km_parse_read_location_of (error->message, path, &pos, NULL))
    pos = (KmSourcePos) { 0, 0 };
  return pos;
}

/*
 * JSON-looking text that is no valid JSON: the JSON error, unless it may be YAML (its file
 * is not named .json) and the YAML reader got further into it, as with flow-style YAML
 * ("{format: ChoreonoidBody, …}" stops JSON at its first unquoted key). FALSE, @error
 * untouched, when it parses as either.
 */
static gboolean
json_syntax_error (const char  *path,
                   const char  *data,
                   gsize        length,
                   GError     **error)
{
  g_autoptr(GError) json_error = NULL;
  g_autoptr(GError) yaml_error = NULL;
  g_autoptr(KmJsonDocument) doc = km_json_parse (path, data, length, &json_error);
  g_autoptr(KmYamlNode) root = NULL;
  KmSourcePos json_pos, yaml_pos;

  if (doc != NULL)
    return FALSE;
  if (!named_json (path))
    {
      root = km_yaml_parse (path, data, length, NULL, &yaml_error);
      if (root != NULL)
        return FALSE;
      json_pos = error_pos (json_error, path);
      yaml_pos = error_pos (yaml_error, path);
      if (yaml_pos.line > json_pos.line ||
          (yaml_pos.line == json_pos.line && yaml_pos.column > json_pos.column))
        {
          g_propagate_error (error, g_steal_pointer (&yaml_error));
          return TRUE;
        }
    }
  g_propagate_error (error, g_steal_pointer (&json_error));
  return TRUE;
}

typedef struct
{
  KmMarkupText *markup;
  const char   *path;
} XmlCheck;

/* What the XML loaders refuse in a start tag that GMarkup takes (an attribute given
 * twice, a '<' in a value…), refused here too (km_markup_text_start_element()). */
static void
xml_check_start (GMarkupParseContext  *context,
                 const char           *element_name,
                 const char          **attribute_names,
                 const char          **attribute_values,
                 gpointer              user_data,
                 GError              **error)
{
  XmlCheck *check = user_data;

  km_markup_text_start_element (check->markup, check->path,
                                (const char * const *) attribute_names, error);
}

/*
 * XML whose document element cannot be found: most often a file that breaks off in its
 * prolog (inside a long header comment). Its well-formedness error, located as the XML
 * loaders locate it ("expected well-formed XML: …", or their own for a start tag), says
 * more than "an XML document". FALSE, @error untouched, when the text is well-formed XML.
 */
static gboolean
xml_syntax_error (const char  *path,
                  const char  *data,
                  gsize        length,
                  GError     **error)
{
  static const GMarkupParser check_parser = { xml_check_start, NULL, NULL, NULL, NULL };
  g_autoptr(GMarkupParseContext) context = NULL;
  g_autofree char *text = km_markup_text_dup_utf8 (path, data, length, error);
  KmMarkupText markup;
  XmlCheck check = { &markup, path };
  gboolean ok;

  if (text == NULL)
    return TRUE;
  km_markup_text_init (&markup, text, strlen (text));
  context = g_markup_parse_context_new (&check_parser, 0, &check, NULL);
  ok = km_markup_text_parse (&markup, path, context, error);
  km_markup_text_clear (&markup);
  return !ok;
}

/*
 * Text no format claims that starts like JSON, or looks like YAML, or XML with no document
 * element to be found, but does not parse: the reader's syntax error, with its position,
 * says more than what the text looks like (km_format_guess_description()), and is what
 * --format would say. Returns FALSE, with @error untouched, when the text parses (or looks
 * like none of these).
 */
static gboolean
syntax_error (const char  *path,
              const char  *data,
              gsize        length,
              GError     **error)
{
  gsize check = MIN (length, GUESS_LIMIT);
  gsize start;
  g_autoptr(GError) local_error = NULL;

  /* Binary data stays "binary data" (a character cut at the limit is no reason). */
  if (is_binary (data, length))
    return FALSE;
  start = text_start (data, length);
  if (start >= check)
    return FALSE;

  if (data[start] == '{' || data[start] == '[')
    return json_syntax_error (path, data, length, error);
  if (data[start] == '<')
    {
      g_autofree char *root = xml_root_name (data + start, data + check);

      return root == NULL && xml_syntax_error (path, data, length, error);
    }
  if (looks_like_yaml (data + start, data + check))
    {
      g_autoptr(KmYamlNode) root = km_yaml_parse (path, data, length, NULL, &local_error);

      if (root != NULL)
        return FALSE;
      g_propagate_error (error, g_steal_pointer (&local_error));
      return TRUE;
    }
  return FALSE;
}

static GBytes *read_file_at (const char   *path,
                             gsize         max_size,
                             KmSourcePos   pos,
                             GError      **error);

char *
km_format_file_checksum (GFile         *file,
                         GCancellable  *cancellable,
                         GError       **error)
{
  g_autoptr(GFileInputStream) in = NULL;
  g_autoptr(GChecksum) checksum = NULL;
  g_autofree guint8 *buffer = NULL;
  const gsize chunk = 64 * 1024;
  gssize n;

  g_return_val_if_fail (G_IS_FILE (file), NULL);

  in = g_file_read (file, cancellable, error);
  if (in == NULL)
    return NULL;
  checksum = g_checksum_new (G_CHECKSUM_SHA256);
  buffer = g_malloc (chunk);
  while ((n = g_input_stream_read (G_INPUT_STREAM (in), buffer, chunk, cancellable, error)) > 0)
    g_checksum_update (checksum, buffer, n);
  return n < 0 ? NULL : g_strdup (g_checksum_get_string (checksum));
}

/**
 * km_format_read_file:
 *
 * Reads at most @max_size bytes of @path in chunks (a pipe or /dev/zero has no size, so
 * the chunks are counted; a regular file larger than @max_size is refused before it is
 * read). A larger file fails with KM_PARSE_ERROR_LIMIT
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

/**
 * km_format_read_whole_file:
 *
 * km_format_read_file() for a file read as a whole (a model, a project, an imported
 * scene), its errors located at FILE:1:1 as every error about a whole file is
 * (DESIGN.md, "Error locations"): what km_format_load_model_file() reads with.
 *
 * Returns: (transfer full) (nullable): the contents
 */
GBytes *
km_format_read_whole_file (const char  *path,
                           gsize        max_size,
                           GError     **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return read_file_at (path, max_size, (KmSourcePos) { 1, 1 }, error);
}

/* The system's reason in a GIO error: GLib's "Error opening file PATH: No such file or
 * directory" names the file again, after a prefix the user never asked for. */
static const char *
io_reason (const GError *error)
{
  const char *reason = g_strrstr (error->message, ": ");

  return reason != NULL && reason[2] != '\0' ? reason + 2 : error->message;
}

static void
set_too_large (GError      **error,
               const char   *path,
               KmSourcePos   pos,
               gsize         max_size)
{
  if (max_size >= 1024 * 1024)
    km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, path, pos,
                        _("the file is larger than %u MiB"),
                        (guint) (max_size / (1024 * 1024)));
  else
    km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, path, pos,
                        _("the file is larger than %u bytes"), (guint) max_size);
}

void
km_format_set_save_limit_error (GError        **error,
                                KmFileKind      kind,
                                guint64         n_frames,
                                KmFormatLimit   limit,
                                guint64         max)
{
  /* (The counts as text: gettext cannot read G_GUINT64_FORMAT in a message.) */
  g_autofree char *frames = g_strdup_printf ("%" G_GUINT64_FORMAT, n_frames);
  g_autofree char *most = g_strdup_printf ("%" G_GUINT64_FORMAT,
                                           limit == KM_FORMAT_LIMIT_BYTES
                                           ? max / (1024 * 1024) : max);
  gboolean motion = kind == KM_FILE_KIND_BODY_MOTION;

  g_return_if_fail (kind == KM_FILE_KIND_ANIMATION || kind == KM_FILE_KIND_BODY_MOTION);

  /* Each message whole, for the translators (the limit's unit differs by format). */
  switch (limit)
    {
    case KM_FORMAT_LIMIT_FRAMES:
      if (motion)
        g_set_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT,
                     /* Translators: the first %s is a number of frames, the second the
                      * most frames a file may have */
                     _("a body motion of %s frames for this model would be larger than "
                       "Kinema reads back (at most %s frames)"), frames, most);
      else
        g_set_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT,
                     /* Translators: the first %s is a number of frames, the second the
                      * most frames a file may have */
                     _("an animation of %s frames for this model would be larger than "
                       "Kinema reads back (at most %s frames)"), frames, most);
      break;
    case KM_FORMAT_LIMIT_VALUES:
      if (motion)
        g_set_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT,
                     /* Translators: the first %s is a number of frames, the second the
                      * most numbers and lists (YAML values) a file may hold */
                     _("a body motion of %s frames for this model would be larger than "
                       "Kinema reads back (at most %s numbers and lists)"), frames, most);
      else
        g_set_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT,
                     /* Translators: the first %s is a number of frames, the second the
                      * most values (JSON values) a file may hold */
                     _("an animation of %s frames for this model would be larger than "
                       "Kinema reads back (at most %s values)"), frames, most);
      break;
    case KM_FORMAT_LIMIT_BYTES:
    default:
      if (motion)
        g_set_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT,
                     /* Translators: the first %s is a number of frames, the second the
                      * largest file size, in MiB */
                     _("a body motion of %s frames for this model would be larger than "
                       "Kinema reads back (at most %s MiB)"), frames, most);
      else
        g_set_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT,
                     /* Translators: the first %s is a number of frames, the second the
                      * largest file size, in MiB */
                     _("an animation of %s frames for this model would be larger than "
                       "Kinema reads back (at most %s MiB)"), frames, most);
      break;
    }
}

/* Whether @in is a regular file larger than @max_size. Anything else (a pipe, a device, a
 * failed query) is read and counted instead. */
static gboolean
too_large_to_read (GFileInputStream *in,
                   gsize             max_size)
{
  g_autoptr(GFileInfo) info = g_file_input_stream_query_info (in,
                                                              G_FILE_ATTRIBUTE_STANDARD_TYPE ","
                                                              G_FILE_ATTRIBUTE_STANDARD_SIZE,
                                                              NULL, NULL);

  return info != NULL
         && g_file_info_has_attribute (info, G_FILE_ATTRIBUTE_STANDARD_SIZE)
         && g_file_info_get_file_type (info) == G_FILE_TYPE_REGULAR
         && (guint64) g_file_info_get_size (info) > (guint64) max_size;
}

/*
 * A named pipe (FIFO), read as read_file_at() reads: open(2) of one blocks until a writer
 * opens it, for ever when none does (`validate fifo.json`), so it is opened without
 * blocking. A writer that is there (its data is, or a read finds nothing yet: EAGAIN) is
 * then read blocking, up to its end, as before: process substitution, `<(command)`, and
 * a pipe on standard input read so. With no writer (a read finds the end at once), the
 * file is refused as what it is, a pipe with no writer, at once: the editor reads on its
 * main thread (Reload) and must not freeze. Only where the load's caller asked for it
 * (KmFormatLoadOptions.fifo_wait_s; kinema-cli: KM_FORMAT_FIFO_WAIT_S, `validate p &
 * producer > p`) is a writer waited for, that long at most: one that comes is read; one
 * that opens and closes without writing leaves an empty file (which the loader refuses as
 * such); none, and the pipe is refused as having no writer. Never an "empty file" that
 * was only a writer not there yet.
 */

/* The options of the load in progress on this thread (km_format_load_model_file_full()),
 * for the reads deep inside its loader (imports, sub-projects, meshes), which take no
 * options; NULL outside a load: the defaults. Only that call sets it, for its duration,
 * and restores the enclosing load's: no setting outlives the load that gave it, and a
 * load on another thread has its own. */
static GPrivate current_load_options;

/* Makes @fd, opened non-blocking (a named pipe, not to wait for its other end), block
 * again: FALSE with errno set when it cannot. */
static gboolean
set_blocking (int fd)
{
  int flags = fcntl (fd, F_GETFL);

  return flags >= 0 && fcntl (fd, F_SETFL, flags & ~O_NONBLOCK) >= 0;
}

/* The seconds a read on this thread waits for a pipe's writer (0: none). */
static guint
fifo_wait_seconds (void)
{
  const KmFormatLoadOptions *options = g_private_get (&current_load_options);

  return options != NULL ? MIN (options->fifo_wait_s, (guint) G_MAXINT / 1000) : 0;
}

static GBytes *
read_fifo (const char   *path,
           gsize         max_size,
           KmSourcePos   pos,
           GError      **error)
{
  g_autoptr(GByteArray) buffer = g_byte_array_new ();
  guint8 chunk[READ_CHUNK];
  int fd = g_open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0);
  guint wait_s = fifo_wait_seconds ();
  gint64 deadline = g_get_monotonic_time () + (gint64) wait_s * G_TIME_SPAN_SECOND;
  gboolean blocking = FALSE, writer_gone = FALSE, waited_out = FALSE;
  int saved_errno;

  if (fd < 0)
    goto failed;
  for (;;)
    {
      gssize n = read (fd, chunk, sizeof chunk);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 && !blocking && (errno == EAGAIN || errno == EWOULDBLOCK))
        n = -2;   /* a writer, nothing written yet */
      else if (n < 0)
        goto failed;
      if (n == 0 && !blocking && !writer_gone)
        {
          /* No writer now: wait for one (poll(2) says when data comes or a writer that
           * came has gone), then read again; at the deadline, a last read tells. */
          struct pollfd pfd = { fd, POLLIN, 0 };
          gint64 left = deadline - g_get_monotonic_time ();
          int ready;

          if (wait_s == 0)
            {
              close (fd);
              km_parse_error_set (error, KM_PARSE_ERROR_IO, path, pos, "%s",
                                  _("not a file Kinema can read: a pipe with no writer"));
              return NULL;
            }
          if (waited_out)
            {
              close (fd);
              km_parse_error_set (error, KM_PARSE_ERROR_IO, path, pos,
                                  /* Translators: %u is a number of seconds */
                                  g_dngettext (GETTEXT_PACKAGE,
                                               "not a file Kinema can read: a pipe with no "
                                               "writer (none came within %u second)",
                                               "not a file Kinema can read: a pipe with no "
                                               "writer (none came within %u seconds)",
                                               wait_s),
                                  wait_s);
              return NULL;
            }
          ready = left > 0 ? poll (&pfd, 1, (int) ((left + 999) / 1000)) : 0;
          if (ready < 0 && errno != EINTR)
            goto failed;
          if (ready == 0)
            waited_out = TRUE;
          else if (ready > 0 && (pfd.revents & (POLLHUP | POLLERR)) && !(pfd.revents & POLLIN))
            writer_gone = TRUE;   /* the next read's end is the file's */
          continue;
        }
      if (n == 0)
        break;
      if (!blocking)
        {
          /* A writer is there: read it to its end, waiting as long as it takes. */
          if (!set_blocking (fd))
            goto failed;
          blocking = TRUE;
        }
      if (n < 0)
        continue;
      if (buffer->len + (gsize) n > max_size)
        {
          close (fd);
          set_too_large (error, path, pos, max_size);
          return NULL;
        }
      g_byte_array_append (buffer, chunk, (guint) n);
    }
  close (fd);
  return g_byte_array_free_to_bytes (g_steal_pointer (&buffer));

failed:
  saved_errno = errno;
  if (fd >= 0)
    close (fd);
  km_parse_error_set (error, KM_PARSE_ERROR_IO, path, pos, _("cannot read the file: %s"),
                      g_strerror (saved_errno));
  return NULL;
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
  GStatBuf st;

  /* Nothing may hang on what it is given (DESIGN.md, "Bad input"). */
  if (g_stat (path, &st) == 0 && S_ISFIFO (st.st_mode))
    return read_fifo (path, max_size, pos, error);

  file = g_file_new_for_path (path);
  in = g_file_read (file, NULL, &local_error);
  if (in == NULL)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_IO, path, pos,
                          _("cannot read the file: %s"), io_reason (local_error));
      return NULL;
    }

  /* A regular file says its size: one that is too large is refused before a byte is read
   * (a 300 MB file would otherwise be read up to the limit first). The loop below still
   * bounds what a pipe or /dev/zero, which have no size, or a growing file give. */
  if (too_large_to_read (in, max_size))
    {
      set_too_large (error, path, pos, max_size);
      return NULL;
    }
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
          set_too_large (error, path, pos, max_size);
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
      /* A line ends at LF, CRLF (counted at its LF) or a lone CR (old Mac files). */
      if (data[i] == '\n' || (data[i] == '\r' && (i + 1 >= length || data[i + 1] != '\n')))
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
 * it is not UTF-16, or NULL with @error when it is not valid UTF-16: located at the first
 * character that does not convert, as the mesh readers locate it (one conversion for
 * both, _km_mesh_text_unmark()).
 */
static GBytes *
utf16_to_utf8 (const char  *path,
               GBytes      *contents,
               GError     **error)
{
  gsize length;
  const char *data = g_bytes_get_data (contents, &length);
  char *text = NULL;

  /* Only UTF-16: a UTF-8 mark stays, for the loaders that skip it themselves. */
  if (data == NULL || length < 2
      || (memcmp (data, "\xFF\xFE", 2) != 0 && memcmp (data, "\xFE\xFF", 2) != 0))
    return g_bytes_ref (contents);
  if (!_km_mesh_text_unmark (path, &data, &length, &text, error))
    return NULL;
  return g_bytes_new_take (text, length);
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
  g_clear_pointer (&extras->text, g_bytes_unref);
  g_free (extras->checksum);
  g_free (extras);
}

gpointer
km_format_load_file (const char      *path,
                     const char      *format_name,
                     const KmFormat **format,
                     GError         **error)
{
  return km_format_load_model_file_full (path, format_name, NULL, format, NULL, error);
}

/**
 * km_format_load_model_file:
 * @extras: (out) (optional) (transfer full): what a model file defines beside the skeleton
 *
 * km_format_load_model_file_full() with the enclosing load's options, else the defaults.
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
  return km_format_load_model_file_full (path, format_name, NULL, format, extras, error);
}

static gpointer load_model_file (const char      *path,
                                 const char      *format_name,
                                 const KmFormat **format,
                                 KmModelExtras  **extras,
                                 GError         **error);

/**
 * km_format_load_model_file_full:
 * @options: (nullable): how the load reads its files, every one of them (the file itself,
 *   and what its loader reads: imports, sub-projects, meshes); %NULL: as the load this one
 *   is part of reads them (a sub-project's model), else the defaults
 * @extras: (out) (optional) (transfer full): what a model file defines beside the skeleton
 *
 * Returns: (transfer full) (nullable): the format's result, free it with format->free_result
 */
gpointer
km_format_load_model_file_full (const char                *path,
                                const char                *format_name,
                                const KmFormatLoadOptions *options,
                                const KmFormat           **format,
                                KmModelExtras            **extras,
                                GError                   **error)
{
  gpointer enclosing, result;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (options == NULL)
    return load_model_file (path, format_name, format, extras, error);
  /* For the reads inside the loaders, which take no options; restored, so that nothing
   * outlives this call. */
  enclosing = g_private_get (&current_load_options);
  g_private_set (&current_load_options, (gpointer) options);
  result = load_model_file (path, format_name, format, extras, error);
  g_private_set (&current_load_options, enclosing);
  return result;
}

static gpointer
load_model_file (const char      *path,
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
  raw = km_format_read_whole_file (path, KM_FORMAT_MAX_FILE_SIZE, error);
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
      fmt = km_format_detect_for_path (path, data, length);
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
  /* A model that states no pose starts where its followers' links put them at the zero
   * pose (a URDF <mimic> or skeleton.json "mimic" offset holds from the start). */
  if (fmt->kind == KM_FILE_KIND_MODEL && found->initial_q == NULL)
    {
      found->initial_q = km_skeleton_dup_mimic_rest_pose (result);
      found->n_initial_q = found->initial_q != NULL ? km_skeleton_get_n_dof (result) : 0;
    }
  if (fmt->kind == KM_FILE_KIND_MODEL && length <= KM_MODEL_TEXT_KEEP_MAX)
    found->text = g_bytes_ref (contents);
  /* Of the bytes read, not of the text converted from them: the file's own checksum (for
   * a caller that takes the extras). */
  if (fmt->kind == KM_FILE_KIND_MODEL && extras != NULL)
    found->checksum = g_compute_checksum_for_bytes (G_CHECKSUM_SHA256, raw);
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

/* How many symbolic links a saved path may go through (Linux's MAXSYMLINKS). */
#define MAX_SAVE_LINKS 40

/* The file a save to @path replaces: @path, or the file its symbolic links lead to, so
 * that a link stays a link and what it points at gets the new contents (as a shell's `>`
 * does). A link to nothing leads to the file it names, which the save creates. NULL with
 * @saved_errno ELOOP past MAX_SAVE_LINKS links. */
static char *
resolve_save_target (const char *path,
                     int        *saved_errno)
{
  g_autofree char *current = g_strdup (path);

  for (guint i = 0; i <= MAX_SAVE_LINKS; i++)
    {
      g_autofree char *link = g_file_read_link (current, NULL);
      g_autofree char *dir = NULL;

      if (link == NULL)
        return g_steal_pointer (&current);   /* not a link (or not there) */
      if (g_path_is_absolute (link))
        {
          g_free (current);
          current = g_steal_pointer (&link);
          continue;
        }
      /* A relative link is relative to the folder the link is in. */
      dir = g_path_get_dirname (current);
      g_free (current);
      current = g_build_filename (dir, link, NULL);
    }
  *saved_errno = ELOOP;
  return NULL;
}

/* Gives the new file @fd, which is to replace a file with @old's status, the old file's
 * owner (where allowed: else the saver's) and permission bits, so that a private file
 * stays private and a shared one shared. */
static gboolean
keep_status (int                fd,
             const struct stat *old)
{
  if ((old->st_uid != geteuid () || old->st_gid != getegid ())
      && fchown (fd, old->st_uid, old->st_gid) != 0
      && fchown (fd, (uid_t) -1, old->st_gid) != 0)
    {
      /* Neither the owner nor the group may be given: the file is the saver's, with the
       * old permissions all the same. */
    }
  return fchmod (fd, old->st_mode & 0777) == 0;
}

/* Writes @length bytes to @fd; errno on failure. */
static gboolean
write_all (int         fd,
           const char *data,
           gsize       length)
{
  while (length > 0)
    {
      gssize n = write (fd, data, MIN (length, (gsize) G_MAXSSIZE));

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return FALSE;
      data += n;
      length -= (gsize) n;
    }
  return TRUE;
}

struct _KmFormatSink
{
  KmFormatFlushFunc flush;
  gpointer          flush_data;
  char             *buffer;        /* KM_FORMAT_SINK_BUFFER_SIZE bytes */
  gsize             used;
  int               saved_errno;   /* of the flush that failed; 0 while none has */
};

/* Hands the buffer to the sink's flush function; FALSE (and nothing more written) once
 * one has failed. */
static gboolean
sink_flush (KmFormatSink *sink)
{
  if (sink->saved_errno != 0)
    return FALSE;
  if (sink->used == 0)
    return TRUE;
  errno = 0;
  if (!sink->flush (sink->buffer, sink->used, sink->flush_data))
    {
      sink->saved_errno = errno != 0 ? errno : EIO;
      return FALSE;
    }
  sink->used = 0;
  return TRUE;
}

static void
sink_init (KmFormatSink      *sink,
           KmFormatFlushFunc  flush,
           gpointer           flush_data)
{
  sink->flush = flush;
  sink->flush_data = flush_data;
  sink->buffer = g_malloc (KM_FORMAT_SINK_BUFFER_SIZE);
  sink->used = 0;
  sink->saved_errno = 0;
}

KmFormatSink *
km_format_sink_new (KmFormatFlushFunc flush,
                    gpointer          user_data)
{
  KmFormatSink *sink;

  g_return_val_if_fail (flush != NULL, NULL);

  sink = g_new (KmFormatSink, 1);
  sink_init (sink, flush, user_data);
  return sink;
}

gboolean
km_format_sink_free (KmFormatSink *sink)
{
  gboolean ok;

  g_return_val_if_fail (sink != NULL, FALSE);

  ok = sink_flush (sink);
  g_free (sink->buffer);
  g_free (sink);
  return ok;
}

gboolean
km_format_sink_write (KmFormatSink *sink,
                      const char   *data,
                      gssize        length)
{
  gsize size;

  g_return_val_if_fail (sink != NULL, FALSE);
  g_return_val_if_fail (data != NULL || length == 0, FALSE);

  size = length < 0 ? strlen (data) : (gsize) length;
  while (size > 0 && sink->saved_errno == 0)
    {
      gsize n = MIN (size, KM_FORMAT_SINK_BUFFER_SIZE - sink->used);

      memcpy (sink->buffer + sink->used, data, n);
      sink->used += n;
      data += n;
      size -= n;
      if (sink->used == KM_FORMAT_SINK_BUFFER_SIZE)
        sink_flush (sink);
    }
  return sink->saved_errno == 0;
}

gboolean
km_format_sink_failed (KmFormatSink *sink)
{
  g_return_val_if_fail (sink != NULL, TRUE);

  return sink->saved_errno != 0;
}

static gboolean
flush_to_fd (const char *data,
             gsize       length,
             gpointer    user_data)
{
  return write_all (GPOINTER_TO_INT (user_data), data, length);
}

/* What a save writes (km_format_save_stream()), and the writer's own error. */
typedef struct
{
  KmFormatWriteFunc write;
  gpointer          user_data;
  GError           *error;
} Producer;

/* Writes what @producer writes to @fd through a sink. On failure @saved_errno says why,
 * unless the writer failed for a reason of its own (producer->error). */
static gboolean
produce (Producer *producer,
         int       fd,
         int      *saved_errno)
{
  KmFormatSink sink;
  gboolean ok;

  sink_init (&sink, flush_to_fd, GINT_TO_POINTER (fd));
  ok = producer->write (&sink, producer->user_data, &producer->error);
  if (ok)
    sink_flush (&sink);
  g_free (sink.buffer);
  if (producer->error != NULL)
    return FALSE;
  if (sink.saved_errno != 0)
    {
      *saved_errno = sink.saved_errno;
      return FALSE;
    }
  if (!ok)
    {
      /* (a writer that failed without saying why) */
      *saved_errno = EIO;
      return FALSE;
    }
  return TRUE;
}

typedef struct
{
  const char *data;
  gsize       length;
} Bytes;

static gboolean
write_bytes (KmFormatSink  *sink,
             gpointer       user_data,
             GError       **error)
{
  Bytes *bytes = user_data;

  return km_format_sink_write (sink, bytes->data, (gssize) bytes->length);
}

/* How long a save waits for the reader of a named pipe that has none, in seconds
 * (km_format_set_fifo_save_wait()); 0: not at all. */
static gint fifo_save_wait_s;

/* How often a save waiting for a pipe's reader tries to open it again. */
#define FIFO_SAVE_RETRY_US (20 * 1000)

void
km_format_set_fifo_save_wait (guint seconds)
{
  g_atomic_int_set (&fifo_save_wait_s, (gint) MIN (seconds, (guint) G_MAXINT / 1000));
}

/*
 * Opens @target, a file to be written in place (not a file or a folder), for writing. A
 * named pipe (also an anonymous one by its name, /dev/fd/N): open(2) of one blocks until
 * a reader opens it, for ever when none does (`convert m.body fifo.urdf` with nothing
 * reading), so it is opened without blocking, as a read of one is (read_fifo()). A reader
 * that is there (`-o >(cat)`) is then written to blocking, as before; with none (ENXIO),
 * the open is tried again until one comes, at most km_format_set_fifo_save_wait()'s time
 * (none: at once), then fails with ENXIO, which set_write_error() says as "a pipe with no
 * reader".
 */
static int
open_in_place (const char *target)
{
  GStatBuf st;
  gint64 deadline;
  int fd, saved_errno;

  if (g_stat (target, &st) != 0 || !S_ISFIFO (st.st_mode))
    return g_open (target, O_WRONLY | O_TRUNC | O_CLOEXEC, 0);
  deadline = g_get_monotonic_time ()
             + (gint64) g_atomic_int_get (&fifo_save_wait_s) * G_TIME_SPAN_SECOND;
  while ((fd = g_open (target, O_WRONLY | O_NONBLOCK | O_CLOEXEC, 0)) < 0)
    {
      gint64 left = deadline - g_get_monotonic_time ();

      if (errno == EINTR)
        continue;
      if (errno != ENXIO || left <= 0)
        return -1;
      g_usleep ((gulong) MIN (left, FIFO_SAVE_RETRY_US));
    }
  if (!set_blocking (fd))
    {
      saved_errno = errno;
      close (fd);
      errno = saved_errno;
      return -1;
    }
  return fd;
}

/* Something that is not a file or a folder (/dev/null, a pipe) is written in place: a
 * rename would replace the device node itself. */
static gboolean
write_in_place (const char *target,
                Producer   *producer,
                int        *saved_errno)
{
  int fd = open_in_place (target);
  gboolean ok;

  if (fd < 0)
    {
      *saved_errno = errno;
      return FALSE;
    }
  ok = produce (producer, fd, saved_errno);
  if (close (fd) != 0 && ok)
    {
      ok = FALSE;
      *saved_errno = errno;
    }
  return ok;
}

/*
 * The temporary files of the saves under way, for km_format_remove_temporary_files(),
 * which a signal handler calls: fixed slots (no allocation), each owned by one save,
 * changed only by atomic compare-and-exchange of its state, so that a handler on any
 * thread, or one interrupting a save on its own thread, reads a whole path or none.
 * FREE -> CLAIMED (the owner writes the path) -> READY; the remover takes READY ->
 * REMOVING, unlinks, -> REMOVED (the slot stays the owner's until it unregisters, which
 * waits for a remover on another thread to finish).
 */
#define TEMPORARY_SLOTS 32
enum { SLOT_FREE, SLOT_CLAIMED, SLOT_READY, SLOT_REMOVING, SLOT_REMOVED };
static struct
{
  int  state;
  char path[4096];
} temporaries[TEMPORARY_SLOTS];

int
km_format_register_temporary (const char *path)
{
  gsize length;

  g_return_val_if_fail (path != NULL, -1);

  length = strlen (path);
  if (length >= sizeof temporaries[0].path)
    return -1;
  for (int i = 0; i < TEMPORARY_SLOTS; i++)
    if (g_atomic_int_compare_and_exchange (&temporaries[i].state, SLOT_FREE, SLOT_CLAIMED))
      {
        memcpy (temporaries[i].path, path, length + 1);
        g_atomic_int_set (&temporaries[i].state, SLOT_READY);
        return i;
      }
  return -1;   /* more saves at once than slots: this one is not removed on a signal */
}

void
km_format_unregister_temporary (int slot)
{
  if (slot < 0 || slot >= TEMPORARY_SLOTS)
    return;
  for (;;)
    {
      if (g_atomic_int_compare_and_exchange (&temporaries[slot].state, SLOT_READY, SLOT_FREE)
          || g_atomic_int_compare_and_exchange (&temporaries[slot].state, SLOT_REMOVED,
                                                SLOT_FREE))
        return;
      /* SLOT_REMOVING: a handler on another thread is unlinking it; the process is about
       * to end. */
      g_thread_yield ();
    }
}

/* Async-signal-safe: atomics and unlink(2) only. */
guint
km_format_remove_temporary_files (void)
{
  guint n = 0;

  for (int i = 0; i < TEMPORARY_SLOTS; i++)
    if (g_atomic_int_compare_and_exchange (&temporaries[i].state, SLOT_READY, SLOT_REMOVING))
      {
        int saved_errno = errno;

        if (unlink (temporaries[i].path) == 0)
          n++;
        errno = saved_errno;
        g_atomic_int_set (&temporaries[i].state, SLOT_REMOVED);
      }
  return n;
}

static void
remove_temporaries_and_die (int signum)
{
  struct sigaction dfl;

  km_format_remove_temporary_files ();
  /* Then the signal's own end, so that the exit status still says which signal it was
   * (a shell stops a script on a Ctrl+C): the default action, raised again, delivered
   * once this handler returns (the signal is blocked while it runs). */
  memset (&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset (&dfl.sa_mask);
  sigaction (signum, &dfl, NULL);
  raise (signum);
}

void
km_format_remove_temporary_files_on_signal (int signum)
{
  struct sigaction action;

  memset (&action, 0, sizeof action);
  action.sa_handler = remove_temporaries_and_die;
  sigemptyset (&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction (signum, &action, NULL);
}

/* The atomic write: a temporary file beside @target ("NAME.XXXXXX") with the old file's
 * permissions (@new_mode before the umask for a new file), written, synced, renamed over
 * @target. On failure the temporary file is removed and @saved_errno says why. */
static gboolean
write_replacing (const char *target,
                 Producer   *producer,
                 int         new_mode,
                 int        *saved_errno)
{
  g_autofree char *temp = g_strconcat (target, ".XXXXXX", NULL);
  struct stat old;
  gboolean exists = g_stat (target, &old) == 0;
  gboolean written = FALSE;
  sigset_t ending, mask;
  int fd;
  int slot;

  if (exists && !S_ISREG (old.st_mode) && !S_ISDIR (old.st_mode))
    return write_in_place (target, producer, saved_errno);

  /* Removed by a signal that ends the program while it is written (Ctrl+C): registered
   * with the signals held, which would otherwise come as the creating system call returns
   * (when the file is first seen), before it is registered. */
  sigemptyset (&ending);
  sigaddset (&ending, SIGINT);
  sigaddset (&ending, SIGTERM);
  sigaddset (&ending, SIGHUP);
  pthread_sigmask (SIG_BLOCK, &ending, &mask);
  /* Private until it has its permissions: 0600 when an old file lends it its own. */
  fd = g_mkstemp_full (temp, O_RDWR | O_CLOEXEC, exists ? 0600 : new_mode);
  if (fd < 0)
    *saved_errno = errno;
  slot = fd >= 0 ? km_format_register_temporary (temp) : -1;
  pthread_sigmask (SIG_SETMASK, &mask, NULL);
  if (fd < 0)
    return FALSE;
  if (exists && S_ISREG (old.st_mode) && !keep_status (fd, &old))
    *saved_errno = errno;
  else if (produce (producer, fd, saved_errno))
    {
      if (fsync (fd) == 0)
        written = TRUE;
      else
        *saved_errno = errno;
    }
  if (!written)
    {
      close (fd);
      g_unlink (temp);
      km_format_unregister_temporary (slot);
      return FALSE;
    }
  if (close (fd) != 0 || g_rename (temp, target) != 0)
    {
      *saved_errno = errno;
      g_unlink (temp);
      km_format_unregister_temporary (slot);
      return FALSE;
    }
  km_format_unregister_temporary (slot);
  return TRUE;
}

/* Whether @path names the file (pipe, terminal, …) that standard output goes to:
 * /dev/stdout, /dev/fd/1, or its own name. */
static gboolean
is_stdout (const char *path)
{
  struct stat out, st;

  return fstat (STDOUT_FILENO, &out) == 0 && g_stat (path, &st) == 0
         && out.st_dev == st.st_dev && out.st_ino == st.st_ino;
}

gboolean
km_format_save_writes_in_place (const char *path)
{
  GStatBuf st;

  g_return_val_if_fail (path != NULL, FALSE);

  /* As km_format_save_stream() tells them apart. */
  return is_stdout (path)
         || (g_stat (path, &st) == 0 && !S_ISREG (st.st_mode) && !S_ISDIR (st.st_mode));
}

static void
set_write_error (GError     **error,
                 const char  *path,
                 int          saved_errno)
{
  g_autofree char *shown = km_parse_shown_file (path);
  GStatBuf st;

  /* ENXIO from a named pipe: its open found no reader (open_in_place()). */
  if (saved_errno == ENXIO && g_stat (path, &st) == 0 && S_ISFIFO (st.st_mode))
    {
      guint wait_s = (guint) g_atomic_int_get (&fifo_save_wait_s);

      if (wait_s == 0)
        g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NXIO,
                     _("%s: cannot write the file: a pipe with no reader"), shown);
      else
        g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NXIO,
                     /* Translators: %u is a number of seconds */
                     g_dngettext (GETTEXT_PACKAGE,
                                  "%s: cannot write the file: a pipe with no reader (none "
                                  "came within %u second)",
                                  "%s: cannot write the file: a pipe with no reader (none "
                                  "came within %u seconds)", wait_s),
                     shown, wait_s);
      return;
    }
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
               _("%s: cannot write the file: %s"), shown, g_strerror (saved_errno));
}

gboolean
km_format_save_data (const char  *path,
                     const char  *data,
                     gssize       length,
                     GError     **error)
{
  return km_format_save_data_full (path, data, length, 0666, error);
}

/**
 * km_format_save_data_full:
 *
 * The one atomic write of a file's bytes in memory: km_format_save_stream() of them.
 */
gboolean
km_format_save_data_full (const char  *path,
                          const char  *data,
                          gssize       length,
                          int          new_mode,
                          GError     **error)
{
  Bytes bytes;

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (data != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  bytes.data = data;
  bytes.length = length < 0 ? strlen (data) : (gsize) length;
  return km_format_save_stream (path, new_mode, write_bytes, &bytes, error);
}

/**
 * km_format_save_stream:
 *
 * The one atomic write of every saved file (DESIGN.md): see km-format.h. The message
 * names @path, not the temporary file the write failed on (“x.cnoid.4KX2Q1”), which the
 * user never asked for.
 */
gboolean
km_format_save_stream (const char         *path,
                       int                 new_mode,
                       KmFormatWriteFunc   write,
                       gpointer            user_data,
                       GError            **error)
{
  g_autofree char *target = NULL;
  Producer producer = { write, user_data, NULL };
  struct stat st;
  int saved_errno = 0;

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (write != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (is_stdout (path))
    {
      /* Where standard output goes, at its position: a rename would leave a redirected
       * stdout writing into the replaced file, and what else is printed there goes to
       * the same place. */
      if (produce (&producer, STDOUT_FILENO, &saved_errno))
        return TRUE;
    }
  else if (g_stat (path, &st) == 0 && !S_ISREG (st.st_mode) && !S_ISDIR (st.st_mode))
    {
      /* A pipe, a terminal, a device, also through /dev/stderr or /dev/fd/N: opened by
       * the name given, which the system follows (the link /proc/self/fd/N of a pipe
       * names no file: "pipe:[…]"), and written in place. */
      if (write_in_place (path, &producer, &saved_errno))
        return TRUE;
    }
  else
    {
      target = resolve_save_target (path, &saved_errno);
      if (target != NULL && write_replacing (target, &producer, new_mode, &saved_errno))
        return TRUE;
    }
  if (producer.error != NULL)
    g_propagate_error (error, producer.error);
  else
    set_write_error (error, path, saved_errno);
  return FALSE;
}

/**
 * km_format_replace_file:
 *
 * For a save in two steps (a file written in full, then put in place once everything
 * else is written): see km-format.h.
 */
gboolean
km_format_replace_file (const char  *written,
                        const char  *path,
                        GError     **error)
{
  g_autofree char *target = NULL;
  struct stat old;
  int saved_errno = 0;
  int fd;

  g_return_val_if_fail (written != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  target = resolve_save_target (path, &saved_errno);
  if (target == NULL)
    {
      set_write_error (error, path, saved_errno);
      return FALSE;
    }
  if (g_stat (target, &old) == 0 && S_ISREG (old.st_mode))
    {
      fd = g_open (written, O_RDONLY | O_CLOEXEC, 0);
      if (fd < 0 || !keep_status (fd, &old))
        {
          saved_errno = errno;
          if (fd >= 0)
            close (fd);
          set_write_error (error, path, saved_errno);
          return FALSE;
        }
      close (fd);
    }
  if (g_rename (written, target) == 0)
    return TRUE;
  saved_errno = errno;
  if (saved_errno == EXDEV)
    {
      /* The link leads to another file system: the contents are written there. */
      g_autofree char *data = NULL;
      gsize length = 0;

      if (g_file_get_contents (written, &data, &length, NULL))
        {
          Bytes bytes = { data, length };
          Producer producer = { write_bytes, &bytes, NULL };

          if (write_replacing (target, &producer, 0666, &saved_errno))
            {
              g_unlink (written);
              return TRUE;
            }
        }
    }
  set_write_error (error, path, saved_errno);
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

/* What append_escaped() escapes beside the control characters, the Unicode line breaks
 * and the bytes that are not UTF-8. */
typedef enum
{
  ESCAPE_BACKSLASH = 1 << 0,  /* \\ as \\\\: the text reads back exactly */
  ESCAPE_SPACE     = 1 << 1,  /* the space as \\x20: a `key=value` value has none */
} EscapeFlags;

static void
append_escaped (GString     *out,
                const char  *value,
                EscapeFlags  flags)
{
  for (const char *p = value; *p != '\0'; p++)
    {
      guchar c = (guchar) *p;

      switch (c)
        {
        case '\\':
          g_string_append (out, (flags & ESCAPE_BACKSLASH) ? "\\\\" : "\\");
          break;
        case ' ':
          g_string_append (out, (flags & ESCAPE_SPACE) ? "\\x20" : " ");
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
          else if (c >= 0x80)
            {
              gunichar u = g_utf8_get_char_validated (p, -1);

              /* A byte of no valid UTF-8 sequence (a file name in another encoding):
               * \xHH, so that the text stays UTF-8 and reads back to the same bytes. */
              if (u == (gunichar) -1 || u == (gunichar) -2)
                {
                  g_string_append_printf (out, "\\x%02x", c);
                  break;
                }
              /* U+0085, U+2028 and U+2029: line breaks to many readers (Python's
               * str.splitlines() among them). */
              if (u == 0x85 || u == 0x2028 || u == 0x2029)
                g_string_append_printf (out, "\\u%04x", u);
              else
                g_string_append_len (out, p, g_utf8_skip[c]);
              p += g_utf8_skip[c] - 1;
            }
          else
            g_string_append_c (out, *p);
          break;
        }
    }
}

void
km_format_append_value (GString    *out,
                        const char *value)
{
  g_return_if_fail (out != NULL);
  g_return_if_fail (value != NULL);

  append_escaped (out, value, ESCAPE_BACKSLASH);
}

void
km_format_append_field (GString    *out,
                        const char *value)
{
  g_return_if_fail (out != NULL);
  g_return_if_fail (value != NULL);

  append_escaped (out, value, ESCAPE_BACKSLASH | ESCAPE_SPACE);
}

char *
km_format_dup_field (const char *value)
{
  GString *out;

  g_return_val_if_fail (value != NULL, NULL);

  out = g_string_sized_new (strlen (value));
  append_escaped (out, value, ESCAPE_BACKSLASH | ESCAPE_SPACE);
  return g_string_free (out, FALSE);
}

void
km_format_append_one_line (GString    *out,
                           const char *text)
{
  g_return_if_fail (out != NULL);
  g_return_if_fail (text != NULL);

  append_escaped (out, text, 0);
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
