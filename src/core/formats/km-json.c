/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-json"

#include "config.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "km-json.h"

/*
 * The reader is an explicit-stack state machine: no recursion, so a depth bomb costs one
 * frame per level up to KM_JSON_MAX_DEPTH and then fails. All nodes, strings and child
 * arrays live in one arena owned by the document, so freeing is linear and never recurses.
 */

typedef struct
{
  const char *name;
  gsize       name_len;
  KmSourcePos pos;
  KmJsonNode *value;
} KmJsonMember;

struct _KmJsonNode
{
  KmJsonType  type;
  gboolean    is_integer;
  KmSourcePos pos;
  const char *key;
  union
  {
    gboolean boolean;
    struct
    {
      double value;
      gint64 int_value;
    } number;
    struct
    {
      const char *str;
      gsize       len;
    } string;
    struct
    {
      KmJsonNode **items;
      guint        n;
    } array;
    struct
    {
      KmJsonMember *members;
      guint         n;
    } object;
  } u;
};

typedef struct _Block Block;

struct _Block
{
  Block      *next;
  gsize       used;
  gsize       size;
  max_align_t data[];
};

#define BLOCK_SIZE (64 * 1024)

struct _KmJsonDocument
{
  char       *path;
  KmJsonNode *root;
  Block      *blocks;
};

typedef struct
{
  KmJsonNode *node;
  guint       start;  /* first pending member of this container */
  GHashTable *keys;   /* GBytes set, built once an object has many members */
} Frame;

typedef struct
{
  KmJsonDocument *doc;
  const guchar   *data;
  gsize           len;
  gsize           p;
  guint           line;
  gsize           line_start;
  gsize           col_offset;  /* byte offset whose column is `col` (same line) */
  guint           col;
  guint           n_nodes;
  GArray         *pending;     /* KmJsonMember: children of the open containers */
  GArray         *frames;      /* Frame */
  GString        *scratch;
  GError        **error;
  KmJsonElementFunc element_func;  /* nullable: km_json_parse_with_elements() */
  gpointer        element_data;
} Parser;

#define LINEAR_KEY_CHECK 16

/* Arena */

static gpointer
arena_alloc (KmJsonDocument *doc,
             gsize           size)
{
  Block *block = doc->blocks;
  gsize align = sizeof (max_align_t);
  gpointer mem;

  size = (size + align - 1) / align * align;
  if (block == NULL || block->size - block->used < size)
    {
      gsize block_size = MAX (BLOCK_SIZE, size);

      block = g_malloc (sizeof (Block) + block_size);
      block->size = block_size;
      block->used = 0;
      block->next = doc->blocks;
      doc->blocks = block;
    }
  mem = (char *) block->data + block->used;
  block->used += size;
  return mem;
}

static const char *
arena_strndup (KmJsonDocument *doc,
               const char     *str,
               gsize           len)
{
  char *copy = arena_alloc (doc, len + 1);

  memcpy (copy, str, len);
  copy[len] = '\0';
  return copy;
}

/* Positions */

static KmSourcePos
pos_at (Parser *P,
        gsize   offset)
{
  /* Positions are asked for in increasing order; recount the line if one is not. */
  if (offset < P->col_offset)
    {
      P->col_offset = P->line_start;
      P->col = 1;
    }
  for (gsize i = P->col_offset; i < offset && i < P->len; i++)
    if ((P->data[i] & 0xC0) != 0x80)
      P->col++;
  P->col_offset = offset;
  return (KmSourcePos) { P->line, P->col };
}

/* A key or string shown in a message: at most 64 characters. */
static char *
display_name (const char *name)
{
  if (g_utf8_strlen (name, 65) > 64)
    {
      g_autofree char *head = g_utf8_substring (name, 0, 64);

      return g_strconcat (head, "…", NULL);
    }
  return g_strdup (name);
}

static gboolean parse_fail (Parser       *P,
                            gsize         offset,
                            KmParseError  code,
                            const char   *format,
                            ...) G_GNUC_PRINTF (4, 5);

static gboolean
parse_fail (Parser       *P,
            gsize         offset,
            KmParseError  code,
            const char   *format,
            ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  km_parse_error_set (P->error, code, P->doc->path, pos_at (P, offset), "%s", message);
  return FALSE;
}

static void
skip_ws (Parser *P)
{
  while (P->p < P->len)
    {
      guchar c = P->data[P->p];

      if (c == ' ' || c == '\t')
        P->p++;
      else if (c == '\n' || c == '\r')
        {
          P->p += (c == '\r' && P->p + 1 < P->len && P->data[P->p + 1] == '\n') ? 2 : 1;
          P->line++;
          P->line_start = P->p;
          P->col_offset = P->p;
          P->col = 1;
        }
      else
        break;
    }
}

static int
peek (Parser *P)
{
  return P->p < P->len ? P->data[P->p] : -1;
}

/* Length of the valid UTF-8 sequence at @s, 0 when invalid or truncated. */
static gsize
utf8_sequence_length (const guchar *s,
                      gsize         avail)
{
  guchar c = s[0];
  gsize n;

  if (c < 0x80)
    return 1;
  if (c < 0xC2)
    return 0;
  n = c < 0xE0 ? 2 : c < 0xF0 ? 3 : c < 0xF5 ? 4 : 0;
  if (n == 0 || avail < n)
    return 0;
  for (gsize i = 1; i < n; i++)
    if ((s[i] & 0xC0) != 0x80)
      return 0;
  if ((c == 0xE0 && s[1] < 0xA0) ||    /* overlong */
      (c == 0xED && s[1] >= 0xA0) ||   /* surrogate */
      (c == 0xF0 && s[1] < 0x90) ||    /* overlong */
      (c == 0xF4 && s[1] >= 0x90))     /* above U+10FFFF */
    return 0;
  return n;
}

static KmJsonNode *
new_node (Parser     *P,
          KmJsonType  type,
          gsize       offset)
{
  KmJsonNode *node;

  if (P->n_nodes >= KM_JSON_MAX_NODES)
    {
      parse_fail (P, offset, KM_PARSE_ERROR_LIMIT,
                  _("too many values (more than %u)"), KM_JSON_MAX_NODES);
      return NULL;
    }
  P->n_nodes++;
  node = arena_alloc (P->doc, sizeof (KmJsonNode));
  memset (node, 0, sizeof *node);
  node->type = type;
  node->pos = pos_at (P, offset);
  return node;
}

static int
hex_value (guchar c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/* Reads 4 hex digits after "\u" at @offset (the backslash); -1 when malformed. */
static int
read_u_escape (Parser *P,
               gsize   offset)
{
  int value = 0;

  if (offset + 6 > P->len || P->data[offset] != '\\' || P->data[offset + 1] != 'u')
    return -1;
  for (gsize i = offset + 2; i < offset + 6; i++)
    {
      int h = hex_value (P->data[i]);

      if (h < 0)
        return -1;
      value = value * 16 + h;
    }
  return value;
}

/* Parses the string starting at the opening quote at P->p into the arena. */
static gboolean
parse_string (Parser      *P,
              const char **out,
              gsize       *out_len)
{
  GString *s = P->scratch;

  g_string_truncate (s, 0);
  P->p++;
  for (;;)
    {
      gsize run = P->p;
      guchar c;

      while (run < P->len)
        {
          c = P->data[run];
          if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80)
            break;
          run++;
        }
      if (run > P->p)
        {
          g_string_append_len (s, (const char *) P->data + P->p, run - P->p);
          P->p = run;
        }
      if (P->p >= P->len)
        return parse_fail (P, P->p, KM_PARSE_ERROR_SYNTAX,
                           _("expected “\"” to end the string before the end of the file"));

      c = P->data[P->p];
      if (c == '"')
        {
          P->p++;
          break;
        }
      else if (c < 0x20)
        {
          return parse_fail (P, P->p, KM_PARSE_ERROR_SYNTAX,
                             _("expected an escape sequence such as “\\n” instead of a "
                               "control character in a string"));
        }
      else if (c >= 0x80)
        {
          gsize n = utf8_sequence_length (P->data + P->p, P->len - P->p);

          if (n == 0)
            return parse_fail (P, P->p, KM_PARSE_ERROR_SYNTAX,
                               _("expected valid UTF-8 text"));
          g_string_append_len (s, (const char *) P->data + P->p, n);
          P->p += n;
        }
      else
        {
          gsize esc = P->p;
          guchar e = P->p + 1 < P->len ? P->data[P->p + 1] : 0;
          gunichar ch;

          switch (e)
            {
            case '"': g_string_append_c (s, '"'); P->p += 2; continue;
            case '\\': g_string_append_c (s, '\\'); P->p += 2; continue;
            case '/': g_string_append_c (s, '/'); P->p += 2; continue;
            case 'b': g_string_append_c (s, '\b'); P->p += 2; continue;
            case 'f': g_string_append_c (s, '\f'); P->p += 2; continue;
            case 'n': g_string_append_c (s, '\n'); P->p += 2; continue;
            case 'r': g_string_append_c (s, '\r'); P->p += 2; continue;
            case 't': g_string_append_c (s, '\t'); P->p += 2; continue;
            case 'u':
              break;
            default:
              return parse_fail (P, esc, KM_PARSE_ERROR_SYNTAX,
                                 _("expected a valid escape sequence (\\\" \\\\ \\/ \\b \\f "
                                   "\\n \\r \\t or \\uXXXX)"));
            }

          {
            int hi = read_u_escape (P, esc);

            if (hi < 0)
              return parse_fail (P, esc, KM_PARSE_ERROR_SYNTAX,
                                 _("expected four hexadecimal digits after “\\u”"));
            if (hi >= 0xDC00 && hi <= 0xDFFF)
              return parse_fail (P, esc, KM_PARSE_ERROR_SYNTAX,
                                 _("expected a high surrogate before a low surrogate "
                                   "“\\u” escape"));
            if (hi >= 0xD800 && hi <= 0xDBFF)
              {
                int lo = read_u_escape (P, esc + 6);

                if (lo < 0xDC00 || lo > 0xDFFF)
                  return parse_fail (P, esc, KM_PARSE_ERROR_SYNTAX,
                                     _("expected a low surrogate “\\u” escape after a high "
                                       "surrogate"));
                ch = 0x10000 + (((gunichar) hi - 0xD800) << 10) + ((gunichar) lo - 0xDC00);
                P->p += 12;
              }
            else
              {
                ch = (gunichar) hi;
                P->p += 6;
              }
            g_string_append_unichar (s, ch);
          }
        }
    }

  *out = arena_strndup (P->doc, s->str, s->len);
  *out_len = s->len;
  return TRUE;
}

static gboolean
is_digit (int c)
{
  return c >= '0' && c <= '9';
}

static KmJsonNode *
parse_number (Parser *P)
{
  gsize start = P->p;
  gboolean integral_syntax = TRUE;
  char stack_buf[64];
  g_autofree char *heap_buf = NULL;
  char *text;
  gsize n;
  double value;
  KmJsonNode *node;

  if (peek (P) == '-')
    P->p++;
  if (!is_digit (peek (P)))
    {
      parse_fail (P, P->p, KM_PARSE_ERROR_SYNTAX,
                  _("expected a digit (NaN and Infinity are not JSON numbers)"));
      return NULL;
    }
  if (peek (P) == '0')
    {
      P->p++;
      if (is_digit (peek (P)))
        {
          parse_fail (P, P->p, KM_PARSE_ERROR_SYNTAX,
                      _("expected “.”, “e” or the end of the number (JSON numbers have no "
                        "leading zeros)"));
          return NULL;
        }
    }
  else
    while (is_digit (peek (P)))
      P->p++;
  if (peek (P) == '.')
    {
      integral_syntax = FALSE;
      P->p++;
      if (!is_digit (peek (P)))
        {
          parse_fail (P, P->p, KM_PARSE_ERROR_SYNTAX, _("expected a digit after “.”"));
          return NULL;
        }
      while (is_digit (peek (P)))
        P->p++;
    }
  if (peek (P) == 'e' || peek (P) == 'E')
    {
      integral_syntax = FALSE;
      P->p++;
      if (peek (P) == '+' || peek (P) == '-')
        P->p++;
      if (!is_digit (peek (P)))
        {
          parse_fail (P, P->p, KM_PARSE_ERROR_SYNTAX, _("expected a digit in the exponent"));
          return NULL;
        }
      while (is_digit (peek (P)))
        P->p++;
    }

  n = P->p - start;
  if (n < sizeof stack_buf)
    text = stack_buf;
  else
    text = heap_buf = g_malloc (n + 1);
  memcpy (text, P->data + start, n);
  text[n] = '\0';

  value = g_ascii_strtod (text, NULL);
  if (!isfinite (value))
    {
      parse_fail (P, start, KM_PARSE_ERROR_SYNTAX,
                  _("expected a finite number (this one is too large for a double)"));
      return NULL;
    }

  node = new_node (P, KM_JSON_NUMBER, start);
  if (node == NULL)
    return NULL;
  node->u.number.value = value;
  if (integral_syntax)
    {
      gint64 i;

      errno = 0;
      i = g_ascii_strtoll (text, NULL, 10);
      if (errno == 0)
        {
          node->is_integer = TRUE;
          node->u.number.int_value = i;
        }
    }
  if (!node->is_integer && value == floor (value) && fabs (value) < 9223372036854775808.0)
    {
      node->is_integer = TRUE;
      node->u.number.int_value = (gint64) value;
    }
  return node;
}

static KmJsonNode *
parse_literal (Parser     *P,
               const char *word,
               KmJsonType  type,
               gboolean    boolean)
{
  gsize n = strlen (word);
  KmJsonNode *node;

  if (P->len - P->p < n || memcmp (P->data + P->p, word, n) != 0)
    {
      parse_fail (P, P->p, KM_PARSE_ERROR_SYNTAX,
                  _("expected a value: a number, a string, an object, an array, true, false "
                    "or null"));
      return NULL;
    }
  node = new_node (P, type, P->p);
  if (node == NULL)
    return NULL;
  node->u.boolean = boolean;
  P->p += n;
  return node;
}

/* A scalar value at P->p (whitespace already skipped). */
static KmJsonNode *
parse_scalar (Parser *P)
{
  int c = peek (P);

  switch (c)
    {
    case '"':
      {
        gsize start = P->p;
        const char *str;
        gsize len;
        KmJsonNode *node;

        if (!parse_string (P, &str, &len))
          return NULL;
        node = new_node (P, KM_JSON_STRING, start);
        if (node != NULL)
          {
            node->u.string.str = str;
            node->u.string.len = len;
          }
        return node;
      }
    case 't':
      return parse_literal (P, "true", KM_JSON_BOOLEAN, TRUE);
    case 'f':
      return parse_literal (P, "false", KM_JSON_BOOLEAN, FALSE);
    case 'n':
      return parse_literal (P, "null", KM_JSON_NULL, FALSE);
    case '-':
    case '0': case '1': case '2': case '3': case '4':
    case '5': case '6': case '7': case '8': case '9':
      return parse_number (P);
    case -1:
      parse_fail (P, P->p, KM_PARSE_ERROR_SYNTAX,
                  _("expected a value before the end of the file"));
      return NULL;
    case '/':
      parse_fail (P, P->p, KM_PARSE_ERROR_SYNTAX,
                  _("expected a value (JSON has no comments)"));
      return NULL;
    case ']':
    case '}':
      parse_fail (P, P->p, KM_PARSE_ERROR_SYNTAX,
                  _("expected a value (JSON allows no trailing comma)"));
      return NULL;
    default:
      parse_fail (P, P->p, KM_PARSE_ERROR_SYNTAX,
                  _("expected a value: a number, a string, an object, an array, true, false "
                    "or null"));
      return NULL;
    }
}

static guint
bytes_hash (gconstpointer key)
{
  return g_bytes_hash (key);
}

static gboolean
check_duplicate_key (Parser       *P,
                     Frame        *frame,
                     KmJsonMember *member,
                     gsize         offset)
{
  guint n = P->pending->len - frame->start;
  gboolean duplicate = FALSE;

  if (frame->keys == NULL && n < LINEAR_KEY_CHECK)
    {
      for (guint i = frame->start; i < P->pending->len; i++)
        {
          KmJsonMember *other = &g_array_index (P->pending, KmJsonMember, i);

          if (other->name_len == member->name_len &&
              memcmp (other->name, member->name, member->name_len) == 0)
            {
              duplicate = TRUE;
              break;
            }
        }
    }
  else
    {
      GBytes *key;

      if (frame->keys == NULL)
        {
          frame->keys = g_hash_table_new_full (bytes_hash, g_bytes_equal,
                                               (GDestroyNotify) g_bytes_unref, NULL);
          for (guint i = frame->start; i < P->pending->len; i++)
            {
              KmJsonMember *other = &g_array_index (P->pending, KmJsonMember, i);

              g_hash_table_add (frame->keys, g_bytes_new_static (other->name, other->name_len));
            }
        }
      key = g_bytes_new_static (member->name, member->name_len);
      if (g_hash_table_contains (frame->keys, key))
        {
          duplicate = TRUE;
          g_bytes_unref (key);
        }
      else
        g_hash_table_add (frame->keys, key);
    }

  if (duplicate)
    {
      g_autofree char *shown = display_name (member->name);

      return parse_fail (P, offset, KM_PARSE_ERROR_SYNTAX,
                         _("expected a unique key, but “%s” appears twice in this object"),
                         shown);
    }
  return TRUE;
}

/* Parses `"key" :` at P->p, after "{" or "," (whitespace skipped). */
static gboolean
parse_key (Parser  *P,
           Frame   *frame,
           gboolean after_comma)
{
  KmJsonMember member = { 0 };
  gsize start = P->p;

  if (peek (P) != '"')
    {
      if (after_comma && peek (P) == '}')
        return parse_fail (P, P->p, KM_PARSE_ERROR_SYNTAX,
                           _("expected a key in double quotes (JSON allows no trailing "
                             "comma)"));
      if (peek (P) == -1)
        return parse_fail (P, P->p, KM_PARSE_ERROR_SYNTAX,
                           _("expected a key in double quotes before the end of the file"));
      return parse_fail (P, P->p, KM_PARSE_ERROR_SYNTAX, _("expected a key in double quotes"));
    }
  member.pos = pos_at (P, start);
  if (!parse_string (P, &member.name, &member.name_len))
    return FALSE;
  if (!check_duplicate_key (P, frame, &member, start))
    return FALSE;
  g_array_append_val (P->pending, member);

  skip_ws (P);
  if (peek (P) != ':')
    return parse_fail (P, P->p, KM_PARSE_ERROR_SYNTAX, _("expected “:” after the key"));
  P->p++;
  return TRUE;
}

static void
close_container (Parser *P,
                 Frame  *frame)
{
  KmJsonNode *node = frame->node;
  guint n = P->pending->len - frame->start;
  /* (An empty GArray has no data yet: no pointer arithmetic on NULL.) */
  KmJsonMember *members = n > 0 ? &g_array_index (P->pending, KmJsonMember, frame->start)
                                : NULL;

  if (node->type == KM_JSON_ARRAY)
    {
      node->u.array.n = n;
      node->u.array.items = arena_alloc (P->doc, MAX (n, 1) * sizeof (KmJsonNode *));
      for (guint i = 0; i < n; i++)
        node->u.array.items[i] = members[i].value;
    }
  else
    {
      node->u.object.n = n;
      node->u.object.members = arena_alloc (P->doc, MAX (n, 1) * sizeof (KmJsonMember));
      if (n > 0)
        memcpy (node->u.object.members, members, n * sizeof (KmJsonMember));
    }
  g_array_set_size (P->pending, frame->start);
  g_clear_pointer (&frame->keys, g_hash_table_unref);
  g_array_set_size (P->frames, P->frames->len - 1);
}

static KmJsonNode *
parse_document (Parser *P)
{
  KmJsonNode *value;

  if (P->len >= 3 && memcmp (P->data, "\xEF\xBB\xBF", 3) == 0)
    {
      P->p = 3;
      P->line_start = 3;
      P->col_offset = 3;
    }
  skip_ws (P);
  if (P->p >= P->len)
    {
      km_parse_error_set (P->error, KM_PARSE_ERROR_SYNTAX, P->doc->path,
                          (KmSourcePos) { 1, 1 }, "%s", _("empty file"));
      return NULL;
    }

  for (;;)
    {
      int c;

      /* Expecting a value. */
      skip_ws (P);
      c = peek (P);
      if (c == '[' || c == '{')
        {
          Frame frame = { 0 };

          if (P->frames->len >= KM_JSON_MAX_DEPTH)
            {
              parse_fail (P, P->p, KM_PARSE_ERROR_LIMIT,
                          _("nesting deeper than %u levels"), KM_JSON_MAX_DEPTH);
              return NULL;
            }
          frame.node = new_node (P, c == '[' ? KM_JSON_ARRAY : KM_JSON_OBJECT, P->p);
          if (frame.node == NULL)
            return NULL;
          frame.start = P->pending->len;
          g_array_append_val (P->frames, frame);
          P->p++;
          skip_ws (P);
          if (peek (P) == (c == '[' ? ']' : '}'))
            {
              P->p++;
              value = frame.node;
              close_container (P, &g_array_index (P->frames, Frame, P->frames->len - 1));
            }
          else
            {
              if (c == '{' &&
                  !parse_key (P, &g_array_index (P->frames, Frame, P->frames->len - 1), FALSE))
                return NULL;
              continue;
            }
        }
      else
        {
          value = parse_scalar (P);
          if (value == NULL)
            return NULL;
        }

      /* A complete value: attach it, then read what follows. */
      for (;;)
        {
          Frame *frame;
          gboolean is_array;

          if (P->frames->len == 0)
            {
              skip_ws (P);
              if (P->p < P->len)
                {
                  parse_fail (P, P->p, KM_PARSE_ERROR_SYNTAX,
                              _("expected the end of the file after the top-level value"));
                  return NULL;
                }
              return value;
            }

          frame = &g_array_index (P->frames, Frame, P->frames->len - 1);
          is_array = frame->node->type == KM_JSON_ARRAY;
          if (is_array)
            {
              KmJsonMember member = { NULL, 0, value->pos, value };

              g_array_append_val (P->pending, member);
              if (P->element_func != NULL && P->frames->len == 1
                  && !P->element_func (value, P->pending->len - 1, P->element_data, P->error))
                return NULL;
            }
          else
            {
              KmJsonMember *member = &g_array_index (P->pending, KmJsonMember,
                                                     P->pending->len - 1);
              member->value = value;
              value->key = member->name;
            }

          skip_ws (P);
          c = peek (P);
          if (c == ',')
            {
              P->p++;
              skip_ws (P);
              if (is_array)
                {
                  if (peek (P) == ']')
                    {
                      parse_fail (P, P->p, KM_PARSE_ERROR_SYNTAX,
                                  _("expected a value (JSON allows no trailing comma)"));
                      return NULL;
                    }
                }
              else if (!parse_key (P, frame, TRUE))
                return NULL;
              break;
            }
          else if (c == (is_array ? ']' : '}'))
            {
              P->p++;
              value = frame->node;
              close_container (P, frame);
            }
          else
            {
              if (c == -1)
                parse_fail (P, P->p, KM_PARSE_ERROR_SYNTAX,
                            is_array ? _("expected “,” or “]” before the end of the file")
                                     : _("expected “,” or “}” before the end of the file"));
              else
                parse_fail (P, P->p, KM_PARSE_ERROR_SYNTAX, "%s",
                            is_array ? _("expected “,” or “]”") : _("expected “,” or “}”"));
              return NULL;
            }
        }
    }
}

/**
 * km_json_parse:
 * @path: the path as given, for messages
 * @data: the file contents (need not be NUL-terminated)
 *
 * Returns: (transfer full) (nullable): the document, or NULL with a KM_PARSE_ERROR
 */
KmJsonDocument *
km_json_parse (const char  *path,
               const char  *data,
               gsize        length,
               GError     **error)
{
  return km_json_parse_with_elements (path, data, length, NULL, NULL, error);
}

/**
 * km_json_parse_with_elements:
 * @func: (nullable): called with each element of a top-level array once it is read
 *
 * Returns: (transfer full) (nullable): the document, or NULL with a KM_PARSE_ERROR (or
 *   the error @func set)
 */
KmJsonDocument *
km_json_parse_with_elements (const char         *path,
                             const char         *data,
                             gsize               length,
                             KmJsonElementFunc   func,
                             gpointer            user_data,
                             GError            **error)
{
  g_autoptr(KmJsonDocument) doc = NULL;
  Parser P = { 0 };

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (data != NULL || length == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  doc = g_new0 (KmJsonDocument, 1);
  doc->path = g_strdup (path);

  if (length > KM_JSON_MAX_SIZE)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, path, (KmSourcePos) { 0, 0 },
                          _("file too large (more than %u MiB)"),
                          (guint) (KM_JSON_MAX_SIZE / (1024 * 1024)));
      return NULL;
    }

  P.doc = doc;
  P.data = (const guchar *) data;
  P.len = length;
  P.line = 1;
  P.col = 1;
  P.error = error;
  P.element_func = func;
  P.element_data = user_data;
  P.pending = g_array_new (FALSE, FALSE, sizeof (KmJsonMember));
  P.frames = g_array_new (FALSE, FALSE, sizeof (Frame));
  P.scratch = g_string_new (NULL);

  doc->root = parse_document (&P);

  for (guint i = 0; i < P.frames->len; i++)
    g_clear_pointer (&g_array_index (P.frames, Frame, i).keys, g_hash_table_unref);
  g_array_unref (P.frames);
  g_array_unref (P.pending);
  g_string_free (P.scratch, TRUE);

  if (doc->root == NULL)
    return NULL;
  return g_steal_pointer (&doc);
}

void
km_json_document_free (KmJsonDocument *doc)
{
  Block *block;

  if (doc == NULL)
    return;

  block = doc->blocks;
  while (block != NULL)
    {
      Block *next = block->next;

      g_free (block);
      block = next;
    }
  g_free (doc->path);
  g_free (doc);
}

const char *
km_json_document_get_path (const KmJsonDocument *doc)
{
  g_return_val_if_fail (doc != NULL, NULL);

  return doc->path;
}

const KmJsonNode *
km_json_document_get_root (const KmJsonDocument *doc)
{
  g_return_val_if_fail (doc != NULL, NULL);

  return doc->root;
}

/* Node accessors */

KmJsonType
km_json_node_type (const KmJsonNode *node)
{
  g_return_val_if_fail (node != NULL, KM_JSON_NULL);

  return node->type;
}

KmSourcePos
km_json_node_get_pos (const KmJsonNode *node)
{
  g_return_val_if_fail (node != NULL, ((KmSourcePos) { 0, 0 }));

  return node->pos;
}

const char *
km_json_node_get_key (const KmJsonNode *node)
{
  g_return_val_if_fail (node != NULL, NULL);

  return node->key;
}

gboolean
km_json_node_get_boolean (const KmJsonNode *node)
{
  g_return_val_if_fail (node != NULL, FALSE);

  return node->type == KM_JSON_BOOLEAN && node->u.boolean;
}

double
km_json_node_get_number (const KmJsonNode *node)
{
  g_return_val_if_fail (node != NULL, 0.0);

  return node->type == KM_JSON_NUMBER ? node->u.number.value : 0.0;
}

gboolean
km_json_node_is_integer (const KmJsonNode *node)
{
  g_return_val_if_fail (node != NULL, FALSE);

  return node->type == KM_JSON_NUMBER && node->is_integer;
}

gint64
km_json_node_get_int (const KmJsonNode *node)
{
  g_return_val_if_fail (node != NULL, 0);

  return km_json_node_is_integer (node) ? node->u.number.int_value : 0;
}

const char *
km_json_node_get_string (const KmJsonNode *node,
                         gsize            *length)
{
  g_return_val_if_fail (node != NULL, NULL);

  if (node->type != KM_JSON_STRING)
    {
      if (length != NULL)
        *length = 0;
      return NULL;
    }
  if (length != NULL)
    *length = node->u.string.len;
  return node->u.string.str;
}

guint
km_json_node_get_length (const KmJsonNode *node)
{
  g_return_val_if_fail (node != NULL, 0);

  if (node->type == KM_JSON_ARRAY)
    return node->u.array.n;
  if (node->type == KM_JSON_OBJECT)
    return node->u.object.n;
  return 0;
}

const KmJsonNode *
km_json_node_get_element (const KmJsonNode *node,
                          guint             index)
{
  g_return_val_if_fail (node != NULL, NULL);
  g_return_val_if_fail (node->type == KM_JSON_ARRAY, NULL);
  g_return_val_if_fail (index < node->u.array.n, NULL);

  return node->u.array.items[index];
}

const KmJsonNode *
km_json_node_get_member (const KmJsonNode *node,
                         const char       *name)
{
  gsize len;

  g_return_val_if_fail (node != NULL, NULL);
  g_return_val_if_fail (name != NULL, NULL);

  if (node->type != KM_JSON_OBJECT)
    return NULL;
  len = strlen (name);
  for (guint i = 0; i < node->u.object.n; i++)
    {
      const KmJsonMember *m = &node->u.object.members[i];

      if (m->name_len == len && memcmp (m->name, name, len) == 0)
        return m->value;
    }
  return NULL;
}

const char *
km_json_node_get_member_name (const KmJsonNode *node,
                              guint             index)
{
  g_return_val_if_fail (node != NULL, NULL);
  g_return_val_if_fail (node->type == KM_JSON_OBJECT, NULL);
  g_return_val_if_fail (index < node->u.object.n, NULL);

  return node->u.object.members[index].name;
}

gsize
km_json_node_get_member_name_length (const KmJsonNode *node,
                                     guint             index)
{
  g_return_val_if_fail (node != NULL, 0);
  g_return_val_if_fail (node->type == KM_JSON_OBJECT, 0);
  g_return_val_if_fail (index < node->u.object.n, 0);

  return node->u.object.members[index].name_len;
}

KmSourcePos
km_json_node_get_member_pos (const KmJsonNode *node,
                             guint             index)
{
  g_return_val_if_fail (node != NULL, ((KmSourcePos) { 0, 0 }));
  g_return_val_if_fail (node->type == KM_JSON_OBJECT, ((KmSourcePos) { 0, 0 }));
  g_return_val_if_fail (index < node->u.object.n, ((KmSourcePos) { 0, 0 }));

  return node->u.object.members[index].pos;
}

const KmJsonNode *
km_json_node_get_member_value (const KmJsonNode *node,
                               guint             index)
{
  g_return_val_if_fail (node != NULL, NULL);
  g_return_val_if_fail (node->type == KM_JSON_OBJECT, NULL);
  g_return_val_if_fail (index < node->u.object.n, NULL);

  return node->u.object.members[index].value;
}

const char *
km_json_type_describe (KmJsonType type)
{
  switch (type)
    {
    case KM_JSON_NULL:
      return _("null");
    case KM_JSON_BOOLEAN:
      return _("a boolean");
    case KM_JSON_NUMBER:
      return _("a number");
    case KM_JSON_STRING:
      return _("a string");
    case KM_JSON_ARRAY:
      return _("an array");
    case KM_JSON_OBJECT:
      return _("an object");
    default:
      return _("a value");
    }
}

/* Expect helpers */

void
km_json_error_at (const KmJsonDocument  *doc,
                  const KmJsonNode      *node,
                  KmParseError           code,
                  GError               **error,
                  const char            *format,
                  ...)
{
  g_autofree char *message = NULL;
  va_list args;

  g_return_if_fail (doc != NULL);
  g_return_if_fail (format != NULL);

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  km_parse_error_set (error, code, doc->path,
                      node != NULL ? node->pos : (KmSourcePos) { 0, 0 }, "%s", message);
}

/* "expected WHAT [for “key”], found TYPE" at @node. */
static gboolean
type_error (const KmJsonDocument  *doc,
            const KmJsonNode      *node,
            const char            *what,
            GError               **error)
{
  if (node->key != NULL)
    {
      g_autofree char *key = display_name (node->key);

      /* Translators: "expected a number for “offset”, found a string" */
      km_json_error_at (doc, node, KM_PARSE_ERROR_INVALID, error, _("expected %s for “%s”, found %s"),
                        what, key, km_json_type_describe (node->type));
    }
  else
    /* Translators: "expected a number, found a string" */
    km_json_error_at (doc, node, KM_PARSE_ERROR_INVALID, error, _("expected %s, found %s"),
                      what, km_json_type_describe (node->type));
  return FALSE;
}

gboolean
km_json_expect_object (const KmJsonDocument  *doc,
                       const KmJsonNode      *node,
                       GError               **error)
{
  g_return_val_if_fail (doc != NULL, FALSE);
  g_return_val_if_fail (node != NULL, FALSE);

  if (node->type != KM_JSON_OBJECT)
    return type_error (doc, node, km_json_type_describe (KM_JSON_OBJECT), error);
  return TRUE;
}

gboolean
km_json_expect_array (const KmJsonDocument  *doc,
                      const KmJsonNode      *node,
                      guint                  min_length,
                      guint                  max_length,
                      GError               **error)
{
  g_autofree char *key = NULL;
  guint n;

  g_return_val_if_fail (doc != NULL, FALSE);
  g_return_val_if_fail (node != NULL, FALSE);
  g_return_val_if_fail (min_length <= max_length, FALSE);

  if (node->type != KM_JSON_ARRAY)
    return type_error (doc, node, km_json_type_describe (KM_JSON_ARRAY), error);

  n = node->u.array.n;
  if (n >= min_length && n <= max_length)
    return TRUE;

  key = node->key != NULL ? display_name (node->key) : g_strdup ("");
  if (min_length == max_length)
    /* Translators: "expected an array of 3 elements for “offset”, found 2" */
    km_json_error_at (doc, node, KM_PARSE_ERROR_INVALID, error,
                      g_dngettext (GETTEXT_PACKAGE,
                                   "expected an array of %u element for “%s”, found %u",
                                   "expected an array of %u elements for “%s”, found %u",
                                   min_length),
                      min_length, key, n);
  else if (max_length == G_MAXUINT)
    km_json_error_at (doc, node, KM_PARSE_ERROR_INVALID, error,
                      g_dngettext (GETTEXT_PACKAGE,
                                   "expected an array of at least %u element for “%s”, found %u",
                                   "expected an array of at least %u elements for “%s”, found %u",
                                   min_length),
                      min_length, key, n);
  else
    /* Translators: "expected an array of 1 to 3 elements for “limits”, found 4" */
    km_json_error_at (doc, node, KM_PARSE_ERROR_INVALID, error,
                      _("expected an array of %u to %u elements for “%s”, found %u"),
                      min_length, max_length, key, n);
  return FALSE;
}

gboolean
km_json_expect_member (const KmJsonDocument  *doc,
                       const KmJsonNode      *object,
                       const char            *name,
                       gboolean               required,
                       const KmJsonNode     **out,
                       GError               **error)
{
  const KmJsonNode *member;

  g_return_val_if_fail (doc != NULL, FALSE);
  g_return_val_if_fail (object != NULL, FALSE);
  g_return_val_if_fail (name != NULL, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);

  *out = NULL;
  if (!km_json_expect_object (doc, object, error))
    return FALSE;
  member = km_json_node_get_member (object, name);
  if (member == NULL && required)
    {
      km_json_error_at (doc, object, KM_PARSE_ERROR_INVALID, error,
                        _("expected the required key “%s” in this object"), name);
      return FALSE;
    }
  *out = member;
  return TRUE;
}

gboolean
km_json_expect_string (const KmJsonDocument  *doc,
                       const KmJsonNode      *node,
                       const char           **out,
                       GError               **error)
{
  g_return_val_if_fail (doc != NULL, FALSE);
  g_return_val_if_fail (node != NULL, FALSE);

  if (node->type != KM_JSON_STRING)
    return type_error (doc, node, km_json_type_describe (KM_JSON_STRING), error);
  if (strlen (node->u.string.str) != node->u.string.len)
    return type_error (doc, node, _("a string without NUL characters"), error);
  if (out != NULL)
    *out = node->u.string.str;
  return TRUE;
}

gboolean
km_json_expect_boolean (const KmJsonDocument  *doc,
                        const KmJsonNode      *node,
                        gboolean              *out,
                        GError               **error)
{
  g_return_val_if_fail (doc != NULL, FALSE);
  g_return_val_if_fail (node != NULL, FALSE);

  if (node->type != KM_JSON_BOOLEAN)
    return type_error (doc, node, _("true or false"), error);
  if (out != NULL)
    *out = node->u.boolean;
  return TRUE;
}

gboolean
km_json_expect_number (const KmJsonDocument  *doc,
                       const KmJsonNode      *node,
                       double                *out,
                       GError               **error)
{
  g_return_val_if_fail (doc != NULL, FALSE);
  g_return_val_if_fail (node != NULL, FALSE);

  if (node->type != KM_JSON_NUMBER)
    return type_error (doc, node, km_json_type_describe (KM_JSON_NUMBER), error);
  if (out != NULL)
    *out = node->u.number.value;
  return TRUE;
}

gboolean
km_json_expect_int (const KmJsonDocument  *doc,
                    const KmJsonNode      *node,
                    gint64                 min,
                    gint64                 max,
                    gint64                *out,
                    GError               **error)
{
  g_return_val_if_fail (doc != NULL, FALSE);
  g_return_val_if_fail (node != NULL, FALSE);
  g_return_val_if_fail (min <= max, FALSE);

  if (node->type != KM_JSON_NUMBER)
    return type_error (doc, node, _("an integer"), error);
  if (!node->is_integer || node->u.number.int_value < min || node->u.number.int_value > max)
    {
      g_autofree char *key = node->key != NULL ? display_name (node->key) : g_strdup ("");
      char number[G_ASCII_DTOSTR_BUF_SIZE];

      /* An integer as written (digits beyond a double's 2^53 kept), else the number. */
      if (node->is_integer)
        g_snprintf (number, sizeof number, "%" G_GINT64_FORMAT, node->u.number.int_value);
      else
        km_json_format_number (number, node->u.number.value);
      if (min == 0 && max == G_MAXINT64)
        /* Translators: "expected a non-negative integer for “frame”, found 2.5" */
        km_json_error_at (doc, node, KM_PARSE_ERROR_INVALID, error,
                          _("expected a non-negative integer for “%s”, found %s"), key, number);
      else
        /* Translators: "expected an integer from 0 to 10 for “x”, found 12" */
        km_json_error_at (doc, node, KM_PARSE_ERROR_INVALID, error,
                          _("expected an integer from %lld to %lld for “%s”, found %s"),
                          (long long) min, (long long) max, key, number);
      return FALSE;
    }
  if (out != NULL)
    *out = node->u.number.int_value;
  return TRUE;
}

gboolean
km_json_expect_numbers (const KmJsonDocument  *doc,
                        const KmJsonNode      *node,
                        guint                  n,
                        double                *out,
                        GError               **error)
{
  g_return_val_if_fail (doc != NULL, FALSE);
  g_return_val_if_fail (node != NULL, FALSE);

  if (node->type != KM_JSON_ARRAY || node->u.array.n != n)
    {
      g_autofree char *key = node->key != NULL ? display_name (node->key) : g_strdup ("");

      /* Translators: "expected an array of 3 numbers for “offset”" */
      km_json_error_at (doc, node, KM_PARSE_ERROR_INVALID, error,
                        g_dngettext (GETTEXT_PACKAGE,
                                     "expected an array of %u number for “%s”",
                                     "expected an array of %u numbers for “%s”", n),
                        n, key);
      return FALSE;
    }
  for (guint i = 0; i < n; i++)
    if (!km_json_expect_number (doc, node->u.array.items[i], out != NULL ? &out[i] : NULL, error))
      return FALSE;
  return TRUE;
}

gboolean
km_json_expect_vec3 (const KmJsonDocument  *doc,
                     const KmJsonNode      *node,
                     KmVec3                *out,
                     GError               **error)
{
  double v[3];

  g_return_val_if_fail (doc != NULL, FALSE);
  g_return_val_if_fail (node != NULL, FALSE);

  if (!km_json_expect_numbers (doc, node, 3, v, error))
    return FALSE;
  if (out != NULL)
    *out = km_vec3 (v[0], v[1], v[2]);
  return TRUE;
}

gboolean
km_json_expect_quat (const KmJsonDocument  *doc,
                     const KmJsonNode      *node,
                     KmQuat                *out,
                     GError               **error)
{
  double v[4];
  double norm;

  g_return_val_if_fail (doc != NULL, FALSE);
  g_return_val_if_fail (node != NULL, FALSE);

  if (!km_json_expect_numbers (doc, node, 4, v, error))
    return FALSE;
  /* Scaled first so that huge components cannot overflow the norm. */
  norm = MAX (MAX (fabs (v[0]), fabs (v[1])), MAX (fabs (v[2]), fabs (v[3])));
  if (norm > 0.0)
    {
      for (guint i = 0; i < 4; i++)
        v[i] /= norm;
      norm = sqrt (v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]);
    }
  if (!(norm > 1e-12))
    {
      g_autofree char *key = node->key != NULL ? display_name (node->key) : g_strdup ("");

      km_json_error_at (doc, node, KM_PARSE_ERROR_INVALID, error,
                        _("expected a non-zero quaternion [w, x, y, z] for “%s”"), key);
      return FALSE;
    }
  if (out != NULL)
    *out = (KmQuat) { v[0] / norm, v[1] / norm, v[2] / norm, v[3] / norm };
  return TRUE;
}

guint
km_json_warn_unknown_keys (const KmJsonDocument  *doc,
                           const KmJsonNode      *object,
                           const char * const    *known)
{
  guint n_unknown = 0;

  g_return_val_if_fail (doc != NULL, 0);
  g_return_val_if_fail (object != NULL, 0);
  g_return_val_if_fail (known != NULL, 0);

  if (object->type != KM_JSON_OBJECT)
    return 0;
  for (guint i = 0; i < object->u.object.n; i++)
    {
      const KmJsonMember *m = &object->u.object.members[i];
      gboolean found = FALSE;

      for (guint k = 0; known[k] != NULL && !found; k++)
        found = strlen (known[k]) == m->name_len && memcmp (known[k], m->name, m->name_len) == 0;
      if (!found)
        {
          g_autofree char *shown = display_name (m->name);

          km_parse_warning (doc->path, m->pos, _("unknown key “%s” ignored"), shown);
          n_unknown++;
        }
    }
  return n_unknown;
}

/* Sniffing */

#define SNIFF_LIMIT (64 * 1024)

static gsize
sniff_start (const char *data,
             gsize       length)
{
  gsize p = 0;

  if (length >= 3 && memcmp (data, "\xEF\xBB\xBF", 3) == 0)
    p = 3;
  while (p < length && (data[p] == ' ' || data[p] == '\t' || data[p] == '\n' || data[p] == '\r'))
    p++;
  return p;
}

char
km_json_sniff_first_char (const char *data,
                          gsize       length)
{
  gsize p;

  g_return_val_if_fail (data != NULL || length == 0, 0);

  p = sniff_start (data, length);
  return p < length ? data[p] : 0;
}

gboolean
km_json_sniff_has_key (const char *data,
                       gsize       length,
                       const char *key,
                       guint       depth)
{
  gsize key_len;
  gsize p;
  guint level = 0;

  g_return_val_if_fail (data != NULL || length == 0, FALSE);
  g_return_val_if_fail (key != NULL, FALSE);

  key_len = strlen (key);
  length = MIN (length, SNIFF_LIMIT);
  p = sniff_start (data, length);
  if (p >= length || (data[p] != '{' && data[p] != '['))
    return FALSE;

  while (p < length)
    {
      char c = data[p];

      if (c == '{' || c == '[')
        {
          level++;
          p++;
        }
      else if (c == '}' || c == ']')
        {
          if (level == 0)
            return FALSE;
          level--;
          p++;
        }
      else if (c == '"')
        {
          gsize start = ++p;
          gsize end;

          while (p < length && data[p] != '"')
            p += data[p] == '\\' ? 2 : 1;
          if (p >= length)
            return FALSE;
          end = p++;
          if (level == depth && end - start == key_len && memcmp (data + start, key, key_len) == 0)
            {
              while (p < length && (data[p] == ' ' || data[p] == '\t' || data[p] == '\n' ||
                                    data[p] == '\r'))
                p++;
              if (p < length && data[p] == ':')
                return TRUE;
            }
        }
      else
        p++;
    }
  return FALSE;
}

/* Writer */

typedef struct
{
  gboolean object;
  gboolean inline_;
  guint    count;
} Level;

struct _KmJsonWriter
{
  GString  *out;
  GArray   *stack;
  gboolean  after_key;
};

KmJsonWriter *
km_json_writer_new (void)
{
  KmJsonWriter *self = g_new0 (KmJsonWriter, 1);

  self->out = g_string_new (NULL);
  self->stack = g_array_new (FALSE, FALSE, sizeof (Level));
  return self;
}

void
km_json_writer_free (KmJsonWriter *self)
{
  if (self == NULL)
    return;

  g_string_free (self->out, TRUE);
  g_array_unref (self->stack);
  g_free (self);
}

static Level *
writer_top (KmJsonWriter *self)
{
  return self->stack->len > 0 ? &g_array_index (self->stack, Level, self->stack->len - 1) : NULL;
}

static void
writer_newline (KmJsonWriter *self)
{
  g_string_append_c (self->out, '\n');
  for (guint i = 0; i < self->stack->len; i++)
    g_string_append (self->out, "  ");
}

static void
before_value (KmJsonWriter *self)
{
  Level *top = writer_top (self);

  if (top == NULL)
    return;
  if (top->object)
    {
      if (!self->after_key)
        g_critical ("%s: a value inside an object needs a key first", G_STRFUNC);
      self->after_key = FALSE;
      return;
    }
  if (top->count > 0)
    g_string_append_c (self->out, ',');
  if (top->inline_)
    {
      if (top->count > 0)
        g_string_append_c (self->out, ' ');
    }
  else
    writer_newline (self);
  top->count++;
}

/* @length: of @str in bytes, -1 when NUL-terminated; a NUL inside is written "\u0000". */
static void
write_escaped (GString    *out,
               const char *str,
               gssize      length)
{
  const char *end = length >= 0 ? str + length : str + strlen (str);

  g_string_append_c (out, '"');
  /* Each run up to a NUL on its own: g_utf8_make_valid() would make the NUL U+FFFD. */
  for (const char *run = str;; run++)
    {
      const char *nul = memchr (run, '\0', end - run);
      g_autofree char *valid = g_utf8_make_valid (run, (nul != NULL ? nul : end) - run);

      for (const char *s = valid; *s != '\0'; s++)
        {
          guchar c = *s;

          switch (c)
            {
            case '"': g_string_append (out, "\\\""); break;
            case '\\': g_string_append (out, "\\\\"); break;
            case '\b': g_string_append (out, "\\b"); break;
            case '\f': g_string_append (out, "\\f"); break;
            case '\n': g_string_append (out, "\\n"); break;
            case '\r': g_string_append (out, "\\r"); break;
            case '\t': g_string_append (out, "\\t"); break;
            default:
              if (c < 0x20)
                g_string_append_printf (out, "\\u%04x", c);
              else
                g_string_append_c (out, c);
            }
        }
      if (nul == NULL)
        break;
      g_string_append (out, "\\u0000");
      run = nul;
    }
  g_string_append_c (out, '"');
}

static void
begin_container (KmJsonWriter *self,
                 gboolean      object,
                 gboolean      inline_)
{
  Level *top;
  Level level = { object, inline_, 0 };

  before_value (self);
  top = writer_top (self);
  if (top != NULL && top->inline_)
    level.inline_ = TRUE;
  g_array_append_val (self->stack, level);
  g_string_append_c (self->out, object ? '{' : '[');
}

static void
end_container (KmJsonWriter *self,
               gboolean      object)
{
  Level level;

  g_return_if_fail (self->stack->len > 0);
  level = *writer_top (self);
  g_return_if_fail (level.object == object);

  g_array_set_size (self->stack, self->stack->len - 1);
  if (level.count > 0 && !level.inline_)
    writer_newline (self);
  g_string_append_c (self->out, object ? '}' : ']');
  if (self->stack->len == 0)
    g_string_append_c (self->out, '\n');
}

void
km_json_writer_begin_object (KmJsonWriter *self)
{
  g_return_if_fail (self != NULL);

  begin_container (self, TRUE, FALSE);
}

void
km_json_writer_end_object (KmJsonWriter *self)
{
  g_return_if_fail (self != NULL);

  end_container (self, TRUE);
}

void
km_json_writer_begin_array (KmJsonWriter *self)
{
  g_return_if_fail (self != NULL);

  begin_container (self, FALSE, FALSE);
}

void
km_json_writer_begin_inline_array (KmJsonWriter *self)
{
  g_return_if_fail (self != NULL);

  begin_container (self, FALSE, TRUE);
}

void
km_json_writer_end_array (KmJsonWriter *self)
{
  g_return_if_fail (self != NULL);

  end_container (self, FALSE);
}

void
km_json_writer_key_len (KmJsonWriter *self,
                        const char   *key,
                        gssize        length)
{
  Level *top;

  g_return_if_fail (self != NULL);
  g_return_if_fail (key != NULL);
  top = writer_top (self);
  g_return_if_fail (top != NULL && top->object && !self->after_key);

  if (top->count > 0)
    g_string_append_c (self->out, ',');
  if (top->inline_)
    {
      if (top->count > 0)
        g_string_append_c (self->out, ' ');
    }
  else
    writer_newline (self);
  write_escaped (self->out, key, length);
  g_string_append (self->out, ": ");
  top->count++;
  self->after_key = TRUE;
}

void
km_json_writer_key (KmJsonWriter *self,
                    const char   *key)
{
  km_json_writer_key_len (self, key, -1);
}

static void
scalar_done (KmJsonWriter *self)
{
  if (self->stack->len == 0)
    g_string_append_c (self->out, '\n');
}

void
km_json_writer_string (KmJsonWriter *self,
                       const char   *value)
{
  km_json_writer_string_len (self, value, -1);
}

void
km_json_writer_string_len (KmJsonWriter *self,
                           const char   *value,
                           gssize        length)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (value != NULL);

  before_value (self);
  write_escaped (self->out, value, length);
  scalar_done (self);
}

const char *
km_json_format_number (char   *buf,
                       double  value)
{
  static const char *const formats[] = { "%.15g", "%.16g", "%.17g" };

  g_return_val_if_fail (buf != NULL, NULL);

  if (!isfinite (value))
    {
      strcpy (buf, "null");
      return buf;
    }
  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    {
      g_ascii_formatd (buf, G_ASCII_DTOSTR_BUF_SIZE, formats[i], value);
      if (g_ascii_strtod (buf, NULL) == value)
        break;
    }
  return buf;
}

void
km_json_writer_number (KmJsonWriter *self,
                       double        value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_return_if_fail (self != NULL);

  before_value (self);
  g_string_append (self->out, km_json_format_number (buf, value));
  scalar_done (self);
}

void
km_json_writer_int (KmJsonWriter *self,
                    gint64        value)
{
  g_return_if_fail (self != NULL);

  before_value (self);
  g_string_append_printf (self->out, "%" G_GINT64_FORMAT, value);
  scalar_done (self);
}

void
km_json_writer_boolean (KmJsonWriter *self,
                        gboolean      value)
{
  g_return_if_fail (self != NULL);

  before_value (self);
  g_string_append (self->out, value ? "true" : "false");
  scalar_done (self);
}

void
km_json_writer_null (KmJsonWriter *self)
{
  g_return_if_fail (self != NULL);

  before_value (self);
  g_string_append (self->out, "null");
  scalar_done (self);
}

void
km_json_writer_vec3 (KmJsonWriter *self,
                     KmVec3        value)
{
  g_return_if_fail (self != NULL);

  km_json_writer_begin_inline_array (self);
  km_json_writer_number (self, value.x);
  km_json_writer_number (self, value.y);
  km_json_writer_number (self, value.z);
  km_json_writer_end_array (self);
}

void
km_json_writer_quat (KmJsonWriter *self,
                     KmQuat        value)
{
  g_return_if_fail (self != NULL);

  km_json_writer_begin_inline_array (self);
  km_json_writer_number (self, value.w);
  km_json_writer_number (self, value.x);
  km_json_writer_number (self, value.y);
  km_json_writer_number (self, value.z);
  km_json_writer_end_array (self);
}

/* An object or array being copied by km_json_writer_node(), and its next member. */
typedef struct
{
  const KmJsonNode *node;
  guint             next;
} CopyLevel;

/**
 * km_json_writer_node:
 *
 * Writes the parsed JSON @value as it is (numbers as read: an integral one as an
 * integer), as what the writer expects next (a value: after a key, in an array). An
 * explicit stack, as the reader's: nesting goes to KM_JSON_MAX_DEPTH.
 */
void
km_json_writer_node (KmJsonWriter     *writer,
                     const KmJsonNode *value)
{
  g_autoptr(GArray) stack = g_array_new (FALSE, FALSE, sizeof (CopyLevel));
  const KmJsonNode *node = value;

  for (;;)
    {
      CopyLevel *top;

      if (node != NULL)
        {
          CopyLevel level = { node, 0 };

          switch (km_json_node_type (node))
            {
            case KM_JSON_OBJECT:
              km_json_writer_begin_object (writer);
              g_array_append_val (stack, level);
              break;
            case KM_JSON_ARRAY:
              km_json_writer_begin_array (writer);
              g_array_append_val (stack, level);
              break;
            case KM_JSON_STRING:
              {
                gsize length;
                const char *string = km_json_node_get_string (node, &length);

                /* With its length: a "\u0000" inside is kept. */
                km_json_writer_string_len (writer, string, length);
              }
              break;
            case KM_JSON_NUMBER:
              if (km_json_node_is_integer (node))
                km_json_writer_int (writer, km_json_node_get_int (node));
              else
                km_json_writer_number (writer, km_json_node_get_number (node));
              break;
            case KM_JSON_BOOLEAN:
              km_json_writer_boolean (writer, km_json_node_get_boolean (node));
              break;
            case KM_JSON_NULL:
            default:
              km_json_writer_null (writer);
              break;
            }
          node = NULL;
        }
      if (stack->len == 0)
        return;
      top = &g_array_index (stack, CopyLevel, stack->len - 1);
      if (top->next < km_json_node_get_length (top->node))
        {
          if (km_json_node_type (top->node) == KM_JSON_OBJECT)
            {
              km_json_writer_key_len (writer, km_json_node_get_member_name (top->node, top->next),
                                      km_json_node_get_member_name_length (top->node, top->next));
              node = km_json_node_get_member_value (top->node, top->next);
            }
          else
            node = km_json_node_get_element (top->node, top->next);
          top->next++;
        }
      else
        {
          if (km_json_node_type (top->node) == KM_JSON_OBJECT)
            km_json_writer_end_object (writer);
          else
            km_json_writer_end_array (writer);
          g_array_set_size (stack, stack->len - 1);
        }
    }
}

const char *
km_json_writer_get_text (KmJsonWriter *self,
                         gsize        *length)
{
  g_return_val_if_fail (self != NULL, NULL);

  if (length != NULL)
    *length = self->out->len;
  return self->out->str;
}

char *
km_json_writer_free_to_string (KmJsonWriter *self)
{
  char *text;

  g_return_val_if_fail (self != NULL, NULL);

  text = g_string_free (g_steal_pointer (&self->out), FALSE);
  g_array_unref (self->stack);
  g_free (self);
  return text;
}
