/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-markup-text"

#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "km-markup-text.h"
#include "km-format.h"

/**
 * km_markup_text_init:
 * @text: the document (need not be NUL-terminated), kept by reference
 *
 * Indexes the lines of @text, and starts the start-tag search at its beginning. A line
 * ends at LF, CRLF or a lone CR, as XML ends lines: files from old Macs end theirs in CR
 * alone, and would otherwise be one line, every position on it.
 */
void
km_markup_text_init (KmMarkupText *self,
                     const char   *text,
                     gsize         length)
{
  gsize zero = 0;
  gsize chars = 0;
  gboolean lone_cr = FALSE;

  self->text = text;
  self->length = length;
  self->cursor = 0;
  self->line_starts = g_array_new (FALSE, FALSE, sizeof (gsize));
  self->block_chars = g_array_sized_new (FALSE, FALSE, sizeof (gsize),
                                         (guint) (length / KM_MARKUP_TEXT_BLOCK + 1));
  g_array_append_val (self->line_starts, zero);
  for (gsize i = 0; i < length; i++)
    {
      if (i % KM_MARKUP_TEXT_BLOCK == 0)
        g_array_append_val (self->block_chars, chars);
      if (text[i] == '\n' || (text[i] == '\r' && (i + 1 >= length || text[i + 1] != '\n')))
        {
          gsize next = i + 1;

          g_array_append_val (self->line_starts, next);
          lone_cr |= text[i] == '\r';
        }
      /* A character starts at every byte but a UTF-8 continuation byte. */
      chars += ((guchar) text[i] & 0xc0) != 0x80;
    }

  /* GMarkup's positions count lines at LF only. */
  if (!lone_cr)
    self->gmarkup_line_starts = g_array_ref (self->line_starts);
  else
    {
      self->gmarkup_line_starts = g_array_new (FALSE, FALSE, sizeof (gsize));
      g_array_append_val (self->gmarkup_line_starts, zero);
      for (gsize i = 0; i < length; i++)
        if (text[i] == '\n')
          {
            gsize next = i + 1;

            g_array_append_val (self->gmarkup_line_starts, next);
          }
    }
}

void
km_markup_text_clear (KmMarkupText *self)
{
  g_clear_pointer (&self->line_starts, g_array_unref);
  g_clear_pointer (&self->gmarkup_line_starts, g_array_unref);
  g_clear_pointer (&self->block_chars, g_array_unref);
}

/* The characters that start before byte @offset (≤ the length). */
static gsize
chars_before (const KmMarkupText *self,
              gsize               offset)
{
  gsize block = offset / KM_MARKUP_TEXT_BLOCK;
  gsize chars;

  if (block >= self->block_chars->len)
    block = self->block_chars->len - 1;
  chars = g_array_index (self->block_chars, gsize, block);
  for (gsize i = block * KM_MARKUP_TEXT_BLOCK; i < offset; i++)
    chars += ((guchar) self->text[i] & 0xc0) != 0x80;
  return chars;
}

/* The line and column of byte @offset (clamped to the text). */
KmSourcePos
km_markup_text_pos (const KmMarkupText *self,
                    gsize               offset)
{
  guint lo = 0, hi = self->line_starts->len;
  gsize start;

  offset = MIN (offset, self->length);
  /* The last line start ≤ offset. */
  while (hi - lo > 1)
    {
      guint mid = (lo + hi) / 2;

      if (g_array_index (self->line_starts, gsize, mid) <= offset)
        lo = mid;
      else
        hi = mid;
    }
  start = g_array_index (self->line_starts, gsize, lo);
  if (self->length == 0)
    return (KmSourcePos) { 1, 1 };
  return (KmSourcePos) { lo + 1, (guint) (chars_before (self, offset)
                                          - chars_before (self, start)) + 1 };
}

/**
 * km_markup_text_next_start_tag:
 *
 * The n-th call finds the n-th start tag, skipping comments, CDATA, processing
 * instructions, declarations and end tags, so that it belongs to GMarkup's n-th
 * start_element callback. Leaves the cursor on the tag's closing '>' (quoted attribute
 * values may hold '>').
 *
 * Returns: the offset of the tag's '<', or the text's length when there is none
 */
gsize
km_markup_text_next_start_tag (KmMarkupText *self)
{
  const char *t = self->text;
  gsize i = self->cursor, n = self->length;

  while (i < n)
    {
      const char *end = NULL;

      if (t[i] != '<')
        {
          i++;
          continue;
        }
      if (i + 4 <= n && strncmp (t + i, "<!--", 4) == 0)
        end = g_strstr_len (t + i + 4, (gssize) (n - i - 4), "-->");
      else if (i + 9 <= n && strncmp (t + i, "<![CDATA[", 9) == 0)
        end = g_strstr_len (t + i + 9, (gssize) (n - i - 9), "]]>");
      else if (i + 2 <= n && t[i + 1] == '?')
        end = g_strstr_len (t + i + 2, (gssize) (n - i - 2), "?>");
      else if (i + 2 <= n && (t[i + 1] == '!' || t[i + 1] == '/'))
        end = memchr (t + i + 1, '>', n - i - 1);
      else
        {
          gsize j = i + 1;
          char quote = 0;

          for (; j < n; j++)
            {
              if (quote)
                {
                  if (t[j] == quote)
                    quote = 0;
                }
              else if (t[j] == '"' || t[j] == '\'')
                quote = t[j];
              else if (t[j] == '>')
                break;
            }
          self->cursor = j;
          return i;
        }
      if (end == NULL)
        break;
      i = (gsize) (end - t) + 1;
    }
  self->cursor = n;
  return n;
}

/* The attribute @name's @nth occurrence (from 0) in the start tag at @tag: the offsets of
 * the first characters of its name and of its value. FALSE when the tag has none. */
static gboolean
find_attribute (const KmMarkupText *self,
                gsize               tag,
                const char         *name,
                guint               nth,
                gsize              *name_offset,
                gsize              *value_offset)
{
  const char *t = self->text;
  gsize n = self->length, i = tag + 1, len = strlen (name);

  while (i < n && !g_ascii_isspace (t[i]) && t[i] != '>' && t[i] != '/')
    i++;
  while (i < n && t[i] != '>')
    {
      gsize name_start, name_end;

      while (i < n && g_ascii_isspace (t[i]))
        i++;
      name_start = i;
      while (i < n && t[i] != '=' && !g_ascii_isspace (t[i]) && t[i] != '>' && t[i] != '/')
        i++;
      name_end = i;
      while (i < n && g_ascii_isspace (t[i]))
        i++;
      if (i >= n || t[i] != '=')
        break;
      i++;
      while (i < n && g_ascii_isspace (t[i]))
        i++;
      if (i >= n || (t[i] != '"' && t[i] != '\''))
        break;
      {
        char quote = t[i++];
        gsize value = i;

        while (i < n && t[i] != quote)
          i++;
        if (name_end - name_start == len && strncmp (t + name_start, name, len) == 0 &&
            nth-- == 0)
          {
            *name_offset = name_start;
            *value_offset = value;
            return TRUE;
          }
        i++;
      }
    }
  return FALSE;
}

/* The first character of attribute @name's value in the start tag at @tag, or the tag's
 * own position when it has no such attribute. */
KmSourcePos
km_markup_text_attr_pos (const KmMarkupText *self,
                         gsize               tag,
                         const char         *name)
{
  gsize name_offset, value;

  if (find_attribute (self, tag, name, 0, &name_offset, &value))
    return km_markup_text_pos (self, value);
  return km_markup_text_pos (self, tag);
}

/* XML's white space (S). */
static gboolean
is_xml_space (char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The first character of the start tag from @tag to @end (its '>') that GMarkup takes
 * though XML does not: a '<' in a quoted value (XML's AttValue holds none), or what
 * follows a value's closing quote when it is not white space, '>' or "/>" (XML separates
 * attributes by white space). One pass over the tag. FALSE when there is none; @message
 * says what was expected. */
static gboolean
find_bad_in_tag (const KmMarkupText *self,
                 gsize               tag,
                 gsize               end,
                 gsize              *bad,
                 const char        **message)
{
  const char *t = self->text;
  char quote = 0;

  for (gsize i = tag + 1; i < end; i++)
    if (quote == 0)
      {
        if (t[i] == '"' || t[i] == '\'')
          quote = t[i];
      }
    else if (t[i] == '<')
      {
        *bad = i;
        /* Translators: the quoted “&lt;” and “<” are XML, keep them */
        *message = _("expected “&lt;” instead of “<” in an attribute value");
        return TRUE;
      }
    else if (t[i] == quote)
      {
        quote = 0;
        if (i + 1 < end && !is_xml_space (t[i + 1]) && t[i + 1] != '/')
          {
            *bad = i + 1;
            /* Translators: the quoted “>” and “/>” are XML, keep them */
            *message = _("expected white space, “>” or “/>” after an attribute's value");
            return TRUE;
          }
      }
  return FALSE;
}

/**
 * km_markup_text_start_element:
 * @attribute_names: the attributes GMarkup's start_element callback was given
 *
 * What every reader's start_element callback does first: finds its start tag in the text
 * (km_markup_text_next_start_tag()), and refuses what GMarkup takes in it though XML does
 * not, at the first such character of the tag: an attribute given twice (GMarkup passes
 * both), with "FILE:LINE:COLUMN: attribute “NAME” is given twice" at the second one's
 * name; a literal '<' in an attribute value, at that '<'; and an attribute that follows
 * a value with no white space between them, at its first character.
 *
 * Returns: the offset of the tag's '<' (@error set, KM_PARSE_ERROR_SYNTAX, when the tag
 *   is not well-formed)
 */
gsize
km_markup_text_start_element (KmMarkupText        *self,
                              const char          *path,
                              const char * const  *attribute_names,
                              GError             **error)
{
  gsize tag = km_markup_text_next_start_tag (self);
  guint n = g_strv_length ((char **) attribute_names);
  g_autoptr(GHashTable) seen = NULL;
  const char *message = NULL;
  gsize bad = self->length;

  /* (reported below unless an attribute given twice comes before it) */
  if (!find_bad_in_tag (self, tag, self->cursor, &bad, &message))
    bad = self->length;
  /* (a set past a few: hostile input may give a tag very many attributes) */
  if (n > 8)
    seen = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < n; i++)
    {
      const char *name = attribute_names[i];
      gboolean twice = FALSE;
      guint earlier = 0;

      if (seen != NULL)
        twice = !g_hash_table_add (seen, (gpointer) name);
      else
        for (guint j = 0; j < i && !twice; j++)
          twice = g_str_equal (attribute_names[j], name);
      if (twice)
        {
          gsize name_offset = tag, value;

          for (guint j = 0; j < i; j++)
            earlier += g_str_equal (attribute_names[j], name);
          if (!find_attribute (self, tag, name, earlier, &name_offset, &value))
            name_offset = tag;
          if (name_offset >= bad)
            break;
          /* Translators: %s is an XML attribute name */
          km_parse_error_set (error, KM_PARSE_ERROR_SYNTAX, path,
                              km_markup_text_pos (self, name_offset),
                              _("attribute “%s” is given twice"), name);
          return tag;
        }
    }
  if (message != NULL)
    km_parse_error_set (error, KM_PARSE_ERROR_SYNTAX, path, km_markup_text_pos (self, bad),
                        "%s", message);
  return tag;
}

/* The bytes of the character that the reference "&@name;" (@length bytes between the '&'
 * and the ';') stands for, as GMarkup expands it; 0 when it is none GMarkup knows. */
static gsize
reference_bytes (const char *name,
                 gsize       length)
{
  static const char * const entities[] = { "lt", "gt", "amp", "quot", "apos" };
  g_autofree char *number = NULL;
  char buffer[8];
  char *end = NULL;
  guint64 c;

  for (guint i = 0; i < G_N_ELEMENTS (entities); i++)
    if (length == strlen (entities[i]) && memcmp (name, entities[i], length) == 0)
      return 1;
  if (length < 2 || name[0] != '#')
    return 0;
  number = g_strndup (name + 1, length - 1);
  if (number[0] == 'x')
    c = g_ascii_strtoull (number + 1, &end, 16);
  else
    c = g_ascii_strtoull (number, &end, 10);
  if (end == NULL || *end != '\0' || c == 0 || c > 0x10ffff)
    return 0;
  return (gsize) g_unichar_to_utf8 ((gunichar) c, buffer);
}

/**
 * km_markup_text_value_offset:
 * @value: the offset of an attribute value's first character, just past its opening quote
 * @offset: a byte offset into the value GMarkup made of it
 *
 * GMarkup's value of an attribute is not its text: a CRLF in it is one space (a lone CR,
 * LF or tab one space too, byte for byte), and an entity or character reference is the
 * character it stands for. So that an error at a character of a value that goes on over
 * several lines, or holds references, is reported where that character is in the file.
 *
 * Returns: the offset in the text of the character @offset bytes into the value: of the
 *   CRLF or reference that makes that byte, the closing quote when the value is shorter
 */
gsize
km_markup_text_value_offset (const KmMarkupText *self,
                             gsize               value,
                             gsize               offset)
{
  const char *t = self->text;
  gsize n = self->length, i = value, k = 0;
  char quote = value > 0 && value <= n ? t[value - 1] : 0;

  while (i < n && t[i] != quote && k < offset)
    {
      gsize step = 1, bytes = 1;

      if (t[i] == '\r' && i + 1 < n && t[i + 1] == '\n')
        step = 2;
      else if (t[i] == '&')
        {
          /* (a reference is short: its name, or a code point in at most 8 digits) */
          const char *semi = memchr (t + i + 1, ';', MIN (n - i - 1, 16));
          gsize length = semi != NULL ? (gsize) (semi - t) - i - 1 : 0;

          if (semi != NULL && (bytes = reference_bytes (t + i + 1, length)) > 0)
            step = length + 2;
          else
            bytes = 1;
        }
      if (k + bytes > offset)
        break;
      i += step;
      k += bytes;
    }
  return i;
}

/**
 * km_markup_text_dup_utf8:
 * @data: the file's bytes (need not be NUL-terminated); a UTF-8 byte-order mark is dropped
 *
 * Returns: (transfer full) (nullable): the text, NUL-terminated, or %NULL with
 *   "FILE:LINE:COLUMN: expected UTF-8 text" at the first byte that is not (a NUL
 *   included)
 */
char *
km_markup_text_dup_utf8 (const char  *path,
                         const char  *data,
                         gsize        length,
                         GError     **error)
{
  g_autofree char *text = NULL;
  const char *end = NULL;

  if (length >= 3 && memcmp (data, "\xef\xbb\xbf", 3) == 0)
    {
      data += 3;
      length -= 3;
    }
  text = g_strndup (data, length);
  if (strlen (text) == length && g_utf8_validate (text, -1, NULL))
    return g_steal_pointer (&text);

  g_utf8_validate (text, -1, &end);
  {
    KmMarkupText bad;

    km_markup_text_init (&bad, text, (gsize) (end - text));
    km_parse_error_set (error, KM_PARSE_ERROR_SYNTAX, path, km_markup_text_pos (&bad, bad.length),
                        _("expected UTF-8 text"));
    km_markup_text_clear (&bad);
  }
  return NULL;
}

/**
 * km_markup_text_gmarkup_message:
 * @message: a GMarkup error's message
 *
 * GMarkup's messages start with their own location, which goes into our prefix, and
 * quote the document's text as it is: a name with a control character in it is escaped
 * C-style (km_format_append_value()), so that the message stays one line and shows what
 * is there.
 *
 * Returns: (transfer full): the message to put after the prefix
 */
char *
km_markup_text_gmarkup_message (const char *message)
{
  GString *out = g_string_new (NULL);

  if (g_str_has_prefix (message, "Error on line "))
    {
      const char *colon = strstr (message, ": ");

      if (colon != NULL)
        message = colon + 2;
    }
  km_format_append_value (out, message);
  return g_string_free (out, FALSE);
}

/* The byte offset of where GMarkup stopped, see km_markup_text_gmarkup_pos(). */
static gsize
gmarkup_offset (const KmMarkupText  *self,
                GMarkupParseContext *context)
{
  int line = 0, column = 0;
  gsize start;
  gssize column_bytes;

  g_markup_parse_context_get_position (context, &line, &column);
  if (line < 1 || (guint) line > self->gmarkup_line_starts->len)
    return 0;
  start = g_array_index (self->gmarkup_line_starts, gsize, line - 1);
  column_bytes = (gssize) column - (line > 1 ? 2 : 1);
  /* (at the '\n' that ends the line before: -1, that line's end) */
  if (column_bytes < 0 && (gsize) -column_bytes > start)
    return 0;
  return MIN ((gsize) ((gssize) start + column_bytes), self->length);
}

/**
 * km_markup_text_gmarkup_pos:
 * @context: a context that stopped on an error while parsing the whole text
 *
 * Where GMarkup stopped: the character it was at (the end of the text when it ran out).
 * g_markup_parse_context_get_position() counts bytes, and counts a line's '\n' as the
 * first column of the next line, so that on every line but the first its column is one
 * past the byte it is at: converted here to a byte offset through GMarkup's own lines
 * (at LF only), then to our line (a lone CR ends one too) and column in characters.
 */
KmSourcePos
km_markup_text_gmarkup_pos (const KmMarkupText  *self,
                            GMarkupParseContext *context)
{
  return km_markup_text_pos (self, gmarkup_offset (self, context));
}

/* The end tag whose '>' GMarkup stopped at, at @offset: the offset of its '<' and its
 * name (which ends at whitespace or '>'), when only whitespace lies between the name and
 * the '>'. FALSE elsewhere (the end of the text included: an unclosed attribute value
 * may hold "</x"). */
static gboolean
find_end_tag (const KmMarkupText *self,
              gsize               offset,
              gsize              *tag,
              char              **name)
{
  const char *t = self->text;
  gsize i, name_end;

  if (offset >= self->length || t[offset] != '>')
    return FALSE;
  /* A name holds no '<': the nearest one before is the tag's. */
  for (i = offset; i > 0 && t[i] != '<'; i--)
    ;
  if (t[i] != '<' || i + 2 >= self->length || t[i + 1] != '/')
    return FALSE;
  for (name_end = i + 2; name_end < self->length && t[name_end] != '>' &&
       !g_ascii_isspace (t[name_end]); name_end++)
    ;
  if (name_end == i + 2 || name_end > offset)
    return FALSE;
  for (gsize j = name_end; j < offset; j++)
    if (!g_ascii_isspace (t[j]))
      return FALSE;
  *tag = i;
  *name = g_strndup (t + i + 2, name_end - i - 2);
  return TRUE;
}

/* Whether GMarkup takes the @length bytes at @name for a name (as its
 * slow_name_validate() does): a letter, '_' or ':', then letters, digits, '.', '-', '_'
 * or ':'. */
static gboolean
is_gmarkup_name (const char *name,
                 gsize       length)
{
  for (gsize k = 0; k < length; k = (gsize) (g_utf8_next_char (name + k) - name))
    {
      gunichar c = g_utf8_get_char_validated (name + k, (gssize) (length - k));

      if (c == (gunichar) -1 || c == (gunichar) -2)
        return FALSE;
      if (c >= 0x80 ? !g_unichar_isalpha (c)
          : !(g_ascii_isalpha (c) || c == '_' || c == ':'
              || (k > 0 && (g_ascii_isdigit (c) || c == '.' || c == '-'))))
        return FALSE;
    }
  return length > 0;
}

/* Where GMarkup's names end (its IS_COMMON_NAME_END_CHAR and white space). */
static gboolean
is_name_end (char c)
{
  return c == '=' || c == '/' || c == '>' || g_ascii_isspace (c);
}

/* The start tag that @offset is in, found from the start of the text as
 * km_markup_text_next_start_tag() finds them (the nearest '<' before @offset may be a
 * stray one in the tag, or one in a quoted value): the offset of its '<'. FALSE when
 * @offset is in none. */
static gboolean
find_tag_at (const KmMarkupText *self,
             gsize               offset,
             gsize              *tag)
{
  KmMarkupText scan = *self;   /* only the cursor moves */

  scan.cursor = 0;
  for (;;)
    {
      gsize i = km_markup_text_next_start_tag (&scan);

      if (i >= offset)
        return FALSE;
      if (scan.cursor >= offset)
        {
          *tag = i;
          return TRUE;
        }
    }
}

/* GMarkup stops on a name it does not take after the name: on an attribute's at what
 * follows it (the '=', or past white space), on an element's at the end of its start tag;
 * and on a '<' that no name follows (a stray '<' in text) at the character after it. The
 * start of that name (or that '<'), in the start tag @tag that GMarkup stopped in at
 * @offset, so that the error points at the name (as every error points at the offending
 * value), not after it. A stray '<' in a tag is taken for the start of an attribute's
 * name: the name's first character is that '<'. */
static gboolean
find_bad_name (const KmMarkupText *self,
               gsize               offset,
               gsize              *tag,
               gsize              *start)
{
  const char *t = self->text;
  gsize i, j, name_end;

  if (offset >= self->length || !find_tag_at (self, offset, &i))
    return FALSE;
  *tag = i;
  if (t[i + 1] == '/' || t[i + 1] == '!' || t[i + 1] == '?')
    return FALSE;
  if (i + 1 == offset)
    {
      /* No name can start here. */
      *start = i;
      return TRUE;
    }
  for (j = i + 1; j < offset && !is_name_end (t[j]); j++)
    ;
  name_end = j;
  for (;;)
    {
      gsize attr, attr_end;
      char quote;

      while (j < offset && g_ascii_isspace (t[j]))
        j++;
      if (j < offset && t[j] == '/' && j + 1 == offset)
        j++;
      if (j == offset)
        {
          /* At the end of the element's name or of its tag. */
          if (is_gmarkup_name (t + i + 1, name_end - i - 1))
            return FALSE;
          *start = i + 1;
          return TRUE;
        }
      for (attr = j; j < offset && !is_name_end (t[j]); j++)
        ;
      attr_end = j;
      while (j < offset && g_ascii_isspace (t[j]))
        j++;
      if (attr == attr_end)
        return FALSE;
      if (j == offset)
        {
          /* At what follows an attribute's name (its '=', or not). */
          if (is_gmarkup_name (t + attr, attr_end - attr))
            return FALSE;
          *start = attr;
          return TRUE;
        }
      if (t[j] != '=')
        return FALSE;
      for (j++; j < offset && g_ascii_isspace (t[j]); j++)
        ;
      if (j >= offset || (t[j] != '"' && t[j] != '\''))
        return FALSE;
      quote = t[j];
      for (j++; j < offset && t[j] != quote; j++)
        ;
      if (j >= offset)
        return FALSE;
      j++;
    }
}

/* GMarkup checks that names, values and text are UTF-8 as it parses them, and stops after
 * the one that is not (calling it a name, a value among them): its first byte that is
 * not, in the stretch of text or tag that ends where GMarkup stopped at @offset (from the
 * last '<' or '>' before it), or else the first one in the text up to @offset. FALSE when
 * there is none. */
static gboolean
find_bad_utf8 (const KmMarkupText *self,
               gsize               offset,
               gsize              *bad)
{
  const char *t = self->text;
  gsize from = MIN (offset, self->length);
  const char *end = NULL;

  while (from > 0 && t[from - 1] != '<' && t[from - 1] != '>')
    from--;
  /* (at @offset itself too: where GMarkup stops on a byte that is not UTF-8) */
  for (guint pass = 0; pass < 2; pass++, from = 0)
    if (!g_utf8_validate_len (t + from, self->length - from, &end) &&
        (gsize) (end - t) <= offset)
      {
        *bad = (gsize) (end - t);
        return TRUE;
      }
  return FALSE;
}

/**
 * km_markup_text_explain_gmarkup_error:
 * @context: a context that stopped on @gmarkup_error while parsing the whole text
 * @gmarkup_error: GMarkup's own error (the XML is not well-formed)
 * @pos: (out): where the error is
 *
 * GMarkup's messages say what it found, and where it stopped: an end tag that closes
 * another element than the open one is reported at its '>' as "Element “bdy” was closed,
 * but the currently open element is “body”". This says it as our other errors do, what
 * was expected, at the end tag's '<': "expected “</body>” instead of “</bdy>”", or
 * "expected the end of the document instead of “</bdy>”" when no element is open. A name
 * GMarkup does not take (“1name” is not a valid name) is left to its message, at the
 * name's first character rather than after the name, where GMarkup stopped; a stray '<'
 * (in a tag, or in text with no name after it) is said to be one, at that '<'; text that
 * is not UTF-8 is "expected UTF-8 text" at its first byte that is not, not past it.
 *
 * Returns: (transfer full) (nullable): that message, or %NULL for the errors it does not
 *   explain, with @pos where GMarkup stopped (km_markup_text_gmarkup_pos())
 */
char *
km_markup_text_explain_gmarkup_error (const KmMarkupText  *self,
                                      GMarkupParseContext *context,
                                      const GError        *gmarkup_error,
                                      KmSourcePos         *pos)
{
  gsize offset = gmarkup_offset (self, context);
  g_autofree char *name = NULL;
  const char *open;
  gsize tag, start;

  *pos = km_markup_text_pos (self, offset);
  if (gmarkup_error != NULL && g_error_matches (gmarkup_error, G_MARKUP_ERROR, G_MARKUP_ERROR_BAD_UTF8)
      && find_bad_utf8 (self, offset, &start))
    {
      *pos = km_markup_text_pos (self, start);
      return g_strdup (_("expected UTF-8 text"));
    }
  if (gmarkup_error != NULL && g_error_matches (gmarkup_error, G_MARKUP_ERROR, G_MARKUP_ERROR_PARSE)
      && find_bad_name (self, offset, &tag, &start))
    {
      *pos = km_markup_text_pos (self, start);
      if (self->text[start] != '<')
        return NULL;
      if (start == tag)
        /* Translators: the quoted “<” and “&lt;” are XML, keep them */
        return g_strdup (_("expected an element's name after “<” (a “<” in text is "
                           "written “&lt;”)"));
      /* Translators: the quoted “<”, “>” and “/>” are XML, keep them */
      return g_strdup (_("expected an attribute, “>” or “/>” instead of “<”"));
    }
  if (gmarkup_error == NULL || gmarkup_error->domain != G_MARKUP_ERROR ||
      !find_end_tag (self, offset, &tag, &name))
    return NULL;
  open = g_markup_parse_context_get_element (context);
  /* The open element's own end tag: another error (a callback's, or junk after the name). */
  if (open != NULL && g_str_equal (open, name))
    return NULL;
  *pos = km_markup_text_pos (self, tag);
  if (open == NULL)
    /* Translators: %s is an XML element name; the quoted end tag is XML, keep it */
    return g_strdup_printf (_("expected the end of the document instead of “</%s>”"), name);
  /* Translators: both %s are XML element names; the quoted end tags are XML, keep them */
  return g_strdup_printf (_("expected “</%s>” instead of “</%s>”"), open, name);
}

/**
 * km_markup_text_parse:
 * @context: a parse context whose callbacks report their own errors as KM_PARSE_ERROR
 *
 * Parses the whole text with @context. A KM_PARSE_ERROR from a callback is passed on;
 * GMarkup's own errors (the XML is not well-formed) become "FILE:LINE:COLUMN: expected
 * well-formed XML: …" where GMarkup stopped (km_markup_text_gmarkup_pos()), or what
 * km_markup_text_explain_gmarkup_error() says of them.
 */
gboolean
km_markup_text_parse (const KmMarkupText   *self,
                      const char           *path,
                      GMarkupParseContext  *context,
                      GError              **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *message = NULL;
  KmSourcePos pos;

  if (g_markup_parse_context_parse (context, self->text, (gssize) self->length, &local_error) &&
      g_markup_parse_context_end_parse (context, &local_error))
    return TRUE;

  if (local_error->domain == KM_PARSE_ERROR)
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }
  message = km_markup_text_explain_gmarkup_error (self, context, local_error, &pos);
  if (message != NULL)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_SYNTAX, path, pos, "%s", message);
      return FALSE;
    }
  message = km_markup_text_gmarkup_message (local_error->message);
  km_parse_error_set (error, KM_PARSE_ERROR_SYNTAX, path, pos,
                      _("expected well-formed XML: %s"), message);
  return FALSE;
}

/**
 * km_markup_text_skip_doctype:
 * @text: a document (need not be NUL-terminated)
 * @offset: where a "<!DOCTYPE" starts in @text
 * @subset: (out): the offset of its internal subset's "[", 0 if it has none
 * @declaration: (out): the offset of the first thing in that subset that is neither
 *   white space nor a comment (a markup declaration "<!ENTITY …", "<!ELEMENT …", a
 *   processing instruction "<?…?>", a parameter entity reference "%name;", or junk), 0 if
 *   none
 *
 * Finds the end of a DOCTYPE. Quoted literals, and comments and processing instructions
 * in an internal subset "[ … ]", are skipped: a ">" (or a bracket) in them ends nothing;
 * the subset's own declarations end in ">" too.
 *
 * Returns: the offset just past its ">", or 0 when @text ends first
 */
gsize
km_markup_text_skip_doctype (const char *text,
                             gsize       length,
                             gsize       offset,
                             gsize      *subset,
                             gsize      *declaration)
{
  const char *t = text;
  gsize n = length;
  gboolean in_subset = FALSE;

  *subset = *declaration = 0;
  for (gsize i = offset + strlen ("<!DOCTYPE"); i < n; i++)
    {
      if (in_subset && n - i >= 4 && memcmp (t + i, "<!--", 4) == 0)
        {
          const char *close = g_strstr_len (t + i + 4, (gssize) (n - i - 4), "-->");

          if (close == NULL)
            return 0;
          i = (gsize) (close - t) + 2;
          continue;
        }
      if (in_subset && *declaration == 0 && !g_ascii_isspace (t[i]) && t[i] != ']')
        *declaration = i;
      if (t[i] == '"' || t[i] == '\'')
        {
          const char *close = memchr (t + i + 1, t[i], n - i - 1);

          if (close == NULL)
            return 0;
          i = (gsize) (close - t);
        }
      else if (in_subset && n - i >= 2 && t[i] == '<' && t[i + 1] == '?')
        {
          const char *close = g_strstr_len (t + i + 2, (gssize) (n - i - 2), "?>");

          if (close == NULL)
            return 0;
          i = (gsize) (close - t) + 1;
        }
      else if (!in_subset && t[i] == '[')
        {
          in_subset = TRUE;
          *subset = i;
        }
      else if (in_subset && t[i] == ']')
        in_subset = FALSE;
      else if (!in_subset && t[i] == '>')
        return i + 1;
    }
  return 0;
}

/* Where GMarkup ends the DOCTYPE at @offset: at the first '>' that balances the '<'s
 * before it, those in comments and quoted literals counted too. Just past that '>', or 0
 * when the text ends first. */
static gsize
gmarkup_doctype_end (const char *t,
                     gsize       n,
                     gsize       offset)
{
  gsize balance = 0;

  for (gsize i = offset; i < n; i++)
    if (t[i] == '<')
      balance++;
    else if (t[i] == '>' && --balance == 0)
      return i + 1;
  return 0;
}

/* The first '<' or '>' in a quoted literal or in a comment's text of the DOCTYPE from
 * @offset to @end (both ends of which km_markup_text_skip_doctype() found), or @offset. */
static gsize
find_quoted_angle (const char *t,
                   gsize       offset,
                   gsize       end)
{
  gsize i = offset + strlen ("<!DOCTYPE");

  while (i < end)
    {
      const char *close;
      gsize from;

      if (t[i] == '"' || t[i] == '\'')
        {
          from = i + 1;
          close = memchr (t + from, t[i], end - from);
        }
      else if (end - i >= 4 && memcmp (t + i, "<!--", 4) == 0)
        {
          from = i + 4;
          close = g_strstr_len (t + from, (gssize) (end - from), "-->");
        }
      else
        {
          i++;
          continue;
        }
      if (close == NULL)
        break;
      for (gsize k = from; k < (gsize) (close - t); k++)
        if (t[k] == '<' || t[k] == '>')
          return k;
      i = (gsize) (close - t) + 1;
    }
  return offset;
}

/* The first "<!DOCTYPE" from @i on that is markup, not text in a comment, a CDATA
 * section, a processing instruction or a tag's quoted attribute value; @n when there is
 * none (or when unterminated markup hides the rest, GMarkup's to report). */
static gsize
find_doctype (const char *t,
              gsize       n,
              gsize       i)
{
  while (i < n)
    {
      const char *lt = memchr (t + i, '<', n - i);
      const char *close;

      if (lt == NULL)
        return n;
      i = (gsize) (lt - t);
      if (n - i >= 9 && memcmp (t + i, "<!DOCTYPE", 9) == 0)
        return i;
      if (n - i >= 4 && memcmp (t + i, "<!--", 4) == 0)
        close = g_strstr_len (t + i + 4, (gssize) (n - i - 4), "-->");
      else if (n - i >= 9 && memcmp (t + i, "<![CDATA[", 9) == 0)
        close = g_strstr_len (t + i + 9, (gssize) (n - i - 9), "]]>");
      else if (n - i >= 2 && t[i + 1] == '?')
        close = g_strstr_len (t + i + 2, (gssize) (n - i - 2), "?>");
      else
        {
          /* A tag (its quoted values may hold '<' or '>'), or other markup. */
          char quote = 0;

          for (i++; i < n && (quote != 0 || t[i] != '>'); i++)
            if (quote != 0 ? t[i] == quote : (t[i] == '"' || t[i] == '\''))
              quote = quote != 0 ? 0 : t[i];
          close = i < n ? t + i : NULL;
        }
      if (close == NULL)
        return n;
      i = (gsize) (close - t) + 1;
    }
  return n;
}

/* What the declaration at @offset is, for a message: "<!ENTITY", "<?target", "%name;",
 * or the word or character there. */
static char *
declaration_name (const char *t,
                  gsize       n,
                  gsize       offset)
{
  GString *out = g_string_new (NULL);
  g_autofree char *word = NULL;
  gsize i = offset, end;

  if (n - i >= 2 && t[i] == '<' && (t[i + 1] == '!' || t[i + 1] == '?'))
    i += 2;
  else if (t[i] == '%')
    i++;
  for (end = i; end < n && end - i < 32 && (g_ascii_isalnum (t[end]) || t[end] == '_' ||
                                            t[end] == '-' || t[end] == '.' || t[end] == ':');
       end++)
    ;
  if (t[offset] == '%' && end < n && t[end] == ';')
    end++;
  if (end == offset)
    {
      /* A character of its own: '"', '<', a letter beyond ASCII… */
      gunichar c = g_utf8_get_char_validated (t + offset, (gssize) (n - offset));

      if (c == (gunichar) -1 || c == (gunichar) -2)
        {
          g_string_append_printf (out, "\\x%02x", (guchar) t[offset]);
          return g_string_free (out, FALSE);
        }
      end = (gsize) (g_utf8_next_char (t + offset) - t);
    }
  word = g_strndup (t + offset, end - offset);
  km_format_append_value (out, word);
  return g_string_free (out, FALSE);
}

/**
 * km_markup_text_check_prolog:
 *
 * GMarkup skips a DOCTYPE wherever it is, and with it any declarations of its internal
 * subset; so this refuses, with "FILE:LINE:COLUMN: expected …" where each starts:
 *
 * - a declaration in an internal subset ("expected no entity declarations" for an entity,
 *   else naming what it found: “<!ELEMENT”, “<?pi”, “%name;”…), even when the text ends
 *   inside it: GMarkup would skip the declarations
 *   and then fail, far from them, on the first entity they declare; and entities are not
 *   expanded here (nested ones, a "billion laughs", could exhaust memory). A subset of
 *   comments and white space only declares nothing and passes;
 * - a '<' or '>' in a DOCTYPE's comment or quoted literal that makes GMarkup end the
 *   DOCTYPE elsewhere than XML does (it counts them as markup), which would make it fail
 *   with a message about something else;
 * - a second DOCTYPE, and one inside or after the document element (where one would
 *   bring its declarations past the check above).
 *
 * Anything else, other unterminated markup included, is left to GMarkup to report.
 *
 * Returns: %FALSE with @error set when the document has such a DOCTYPE
 */
gboolean
km_markup_text_check_prolog (const KmMarkupText *self,
                             const char         *path,
                             GError            **error)
{
  const char *t = self->text;
  gsize n = self->length, i = 0;
  gboolean seen_doctype = FALSE;

  while (i < n && g_ascii_isspace (t[i]))
    i++;
  while (n - i >= 2 && t[i] == '<' && (t[i + 1] == '?' || t[i + 1] == '!'))
    {
      if (n - i >= 9 && memcmp (t + i, "<!DOCTYPE", 9) == 0)
        {
          gsize subset, declaration, end;

          if (seen_doctype)
            {
              km_parse_error_set (error, KM_PARSE_ERROR_INVALID, path,
                                  km_markup_text_pos (self, i),
                                  _("expected one DOCTYPE at most"));
              return FALSE;
            }
          seen_doctype = TRUE;
          end = km_markup_text_skip_doctype (t, n, i, &subset, &declaration);
          if (declaration != 0 && n - declaration >= 8 &&
              memcmp (t + declaration, "<!ENTITY", 8) == 0)
            {
              km_parse_error_set (error, KM_PARSE_ERROR_INVALID, path,
                                  km_markup_text_pos (self, declaration),
                                  _("expected no entity declarations: an internal DTD "
                                    "subset (“<!DOCTYPE … [ … ]>”) is not supported"));
              return FALSE;
            }
          if (declaration != 0)
            {
              g_autofree char *name = declaration_name (t, n, declaration);

              /* Translators: %s is what was found, e.g. “<!ELEMENT”; keep the DOCTYPE */
              km_parse_error_set (error, KM_PARSE_ERROR_INVALID, path,
                                  km_markup_text_pos (self, declaration),
                                  _("expected no declarations in an internal DTD subset "
                                    "(“<!DOCTYPE … [ … ]>”), found “%s”"), name);
              return FALSE;
            }
          if (end == 0)
            return TRUE;   /* unterminated: GMarkup says where */
          if (gmarkup_doctype_end (t, n, i) != end)
            {
              km_parse_error_set (error, KM_PARSE_ERROR_INVALID, path,
                                  km_markup_text_pos (self, find_quoted_angle (t, i, end)),
                                  _("expected no “<” or “>” in a DOCTYPE's comments and "
                                    "quoted values"));
              return FALSE;
            }
          i = end;
        }
      else
        {
          /* A processing instruction (the XML declaration), a comment, or another
           * declaration. */
          const char *close;

          if (t[i + 1] == '?')
            close = g_strstr_len (t + i, (gssize) (n - i), "?>");
          else if (n - i >= 4 && memcmp (t + i, "<!--", 4) == 0)
            close = g_strstr_len (t + i + 4, (gssize) (n - i - 4), "-->");
          else
            close = memchr (t + i, '>', n - i);
          if (close == NULL)
            return TRUE;   /* unterminated: GMarkup says where */
          /* (each ends in the first '>' from where it was found) */
          i = (gsize) ((const char *) memchr (close, '>', n - (gsize) (close - t)) - t) + 1;
        }
      while (i < n && g_ascii_isspace (t[i]))
        i++;
    }

  /* The document element, or whatever GMarkup is to refuse: no DOCTYPE from here on. */
  i = find_doctype (t, n, i);
  if (i < n)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_INVALID, path, km_markup_text_pos (self, i),
                          _("expected no DOCTYPE inside or after the document element"));
      return FALSE;
    }
  return TRUE;
}
