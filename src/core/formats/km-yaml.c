/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-yaml"

#include "config.h"

#include <float.h>
#include <math.h>
#include <string.h>
#include <yaml.h>

#include <glib/gi18n-lib.h>

#include "km-yaml.h"
#include "km-format.h"

/*
 * Nodes. A mapping keeps its pairs flat in one array (key, value, key, value, …). Parsed
 * trees may share subtrees (aliases), so they are immutable; `weight` is the node count
 * with every alias expanded and `height` the nesting below the node, both kept so that
 * the parser can bound what an alias adds without walking it.
 */
struct _KmYamlNode
{
  gatomicrefcount ref_count;
  KmYamlKind      kind;
  KmYamlStyle     style;
  KmSourcePos     pos;
  const char     *file;     /* interned */
  gsize           start;    /* byte span in the text of a parsed node (km_yaml_node_get_span) */
  gsize           end;
  char           *tag;
  gsize           weight;
  guint           height;
  guint8          layout;   /* a parsed flow sequence on several lines: LAYOUT_* */
  char           *value;    /* scalar */
  gsize           length;   /* scalar */
  GPtrArray      *items;    /* sequence: items; mapping: key, value pairs */
  struct _KmYamlTable *table;  /* km_yaml_parse_with_tables: the numbers of a sequence */
  /* Deferred (km_yaml_node_new_deferred): what builds the contents when written. */
  KmYamlExpandFunc expand;
  gpointer         expand_data;
  GDestroyNotify   expand_destroy;
  /* Generated (km_yaml_node_new_generated): builds item i of n_generated, with expand_data. */
  KmYamlItemFunc   generate;
  guint            n_generated;
};

/*
 * A table (km_yaml_parse_with_tables): level 0 is the table's own list, level k the items
 * of the lists at level k − 1, in document order, and the numbers are the items of the
 * lists at level depth − 1. The items of one list are contiguous at the next level, so a
 * list is its length and where its items begin.
 */
typedef struct _KmYamlTable
{
  guint   depth;
  gsize   event;                                /* ordinal of its SEQUENCE-START event */
  GArray *lengths[KM_YAML_TABLE_MAX_DEPTH];     /* guint, per level */
  GArray *firsts[KM_YAML_TABLE_MAX_DEPTH];      /* guint, per level */
  GArray *values;                               /* double */
} KmYamlTable;

static void
table_free (KmYamlTable *table)
{
  for (guint i = 0; i < table->depth; i++)
    {
      g_array_unref (table->lengths[i]);
      g_array_unref (table->firsts[i]);
    }
  g_clear_pointer (&table->values, g_array_unref);
  g_free (table);
}

G_DEFINE_BOXED_TYPE (KmYamlNode, km_yaml_node, km_yaml_node_ref, km_yaml_node_unref)

#define MAPPING_HASH_THRESHOLD 8
#define FLOW_WRAP 10

/* How a parsed flow sequence written on several lines broke them (write_source_rows):
 * with a space after the "[" before its line break, after the "," before each other. */
#define LAYOUT_OPEN_SPACE  0x1
#define LAYOUT_COMMA_SPACE 0x2

/* The nodes alive in the process, and the most alive at once (km_yaml_node_get_counts). */
static gint nodes_live;
static gint nodes_peak;

static KmYamlNode *
node_new (KmYamlKind  kind,
          KmYamlStyle style)
{
  KmYamlNode *node = g_new0 (KmYamlNode, 1);
  gint live = g_atomic_int_add (&nodes_live, 1) + 1;
  gint peak = g_atomic_int_get (&nodes_peak);

  while (live > peak && !g_atomic_int_compare_and_exchange (&nodes_peak, peak, live))
    peak = g_atomic_int_get (&nodes_peak);

  g_atomic_ref_count_init (&node->ref_count);
  node->kind = kind;
  node->style = style;
  node->file = "";
  node->weight = 1;
  node->height = kind == KM_YAML_SCALAR ? 0 : 1;
  if (kind != KM_YAML_SCALAR)
    node->items = g_ptr_array_new_with_free_func ((GDestroyNotify) km_yaml_node_unref);
  return node;
}

KmYamlNode *
km_yaml_node_ref (KmYamlNode *node)
{
  g_return_val_if_fail (node != NULL, NULL);

  g_atomic_ref_count_inc (&node->ref_count);
  return node;
}

void
km_yaml_node_unref (KmYamlNode *node)
{
  g_return_if_fail (node != NULL);

  if (!g_atomic_ref_count_dec (&node->ref_count))
    return;
  g_clear_pointer (&node->items, g_ptr_array_unref);
  g_clear_pointer (&node->table, table_free);
  g_free (node->value);
  g_free (node->tag);
  if (node->expand_destroy != NULL)
    node->expand_destroy (node->expand_data);
  g_free (node);
  g_atomic_int_add (&nodes_live, -1);
}

void
km_yaml_node_get_counts (guint *live,
                         guint *peak)
{
  if (live != NULL)
    *live = (guint) g_atomic_int_get (&nodes_live);
  if (peak != NULL)
    *peak = (guint) g_atomic_int_get (&nodes_peak);
}

void
km_yaml_node_reset_peak (void)
{
  g_atomic_int_set (&nodes_peak, g_atomic_int_get (&nodes_live));
}

static gboolean
node_is_deferred (const KmYamlNode *node)
{
  return node->expand != NULL || node->generate != NULL;
}

/* A generated sequence's items, all at once. */
static KmYamlNode *
build_generated (const KmYamlNode *node)
{
  KmYamlNode *seq = node_new (KM_YAML_SEQUENCE, node->style);

  for (guint i = 0; i < node->n_generated; i++)
    km_yaml_sequence_append (seq, node->generate (node->expand_data, i));
  return seq;
}

/* What @node stands for: itself, or for a deferred node the tree its function builds (a
 * new one each time), in *@owned for the caller to drop. */
static const KmYamlNode *
resolve (const KmYamlNode  *node,
         KmYamlNode       **owned)
{
  *owned = NULL;
  if (node->generate != NULL)
    *owned = build_generated (node);
  else if (node->expand != NULL)
    *owned = node->expand (node->expand_data);
  else
    return node;
  return *owned;
}

static gsize
saturating_add (gsize a,
                gsize b)
{
  return a > G_MAXSIZE - b ? G_MAXSIZE : a + b;
}

/* Adds @child (a new reference is taken by the caller) to @parent's bookkeeping. */
static void
account_child (KmYamlNode       *parent,
               const KmYamlNode *child)
{
  parent->weight = saturating_add (parent->weight, child->weight);
  parent->height = MAX (parent->height, child->height + 1);
}

/* ---------------------------------------------------------------------------------------- */
/* Parsing */

typedef struct
{
  KmYamlNode *node;
  KmYamlNode *pending_key;
  char       *anchor;
  GHashTable *keys;         /* key string → key node, for large mappings */
} Frame;

typedef struct
{
  const char   *file;
  const char   *data;
  gsize         length;
  KmYamlLimits  limits;
  GArray       *stack;      /* Frame */
  GHashTable   *anchors;    /* name → node */
  GHashTable   *open_anchors;
  KmYamlNode   *root;
  gsize         n_nodes;
  guint         n_documents;
  gsize         n_events;   /* events read so far (a table's `event`) */
  /* Tables */
  KmYamlTableFunc table_func;
  gpointer      table_data;
  KmYamlNode   *table;      /* the table being read, else NULL */
  guint         table_open; /* lists open in it (1: its own) */
  guint         table_skip; /* collections open in an item that is skipped */
  gsize         table_count;  /* numbers and lists in every table so far */
  gboolean      retry;      /* an anchor or alias in a table */
  /* mark_offset: the last mark's index and its byte offset */
  gsize         mark_index;
  gsize         mark_byte;
} Parser;

static void
frame_clear (Frame *frame)
{
  g_clear_pointer (&frame->node, km_yaml_node_unref);
  g_clear_pointer (&frame->pending_key, km_yaml_node_unref);
  g_clear_pointer (&frame->anchor, g_free);
  g_clear_pointer (&frame->keys, g_hash_table_unref);
}

static KmSourcePos
mark_pos (yaml_mark_t mark)
{
  KmSourcePos pos = { (guint) MIN (mark.line + 1, G_MAXUINT), (guint) MIN (mark.column + 1, G_MAXUINT) };

  return pos;
}

/* Line and column (in characters) of a byte offset, for libyaml's reader errors. */
static KmSourcePos
offset_pos (const char *data,
            gsize       length,
            gsize       offset)
{
  KmSourcePos pos = { 1, 1 };
  gsize i;

  offset = MIN (offset, length);
  for (i = 0; i < offset; i++)
    {
      guchar c = (guchar) data[i];

      if (c == '\n')
        {
          pos.line++;
          pos.column = 1;
        }
      else if ((c & 0xC0) != 0x80)
        pos.column++;
    }
  return pos;
}

static KmYamlStyle
scalar_style (yaml_scalar_style_t style)
{
  switch (style)
    {
    case YAML_PLAIN_SCALAR_STYLE:
      return KM_YAML_STYLE_PLAIN;
    case YAML_SINGLE_QUOTED_SCALAR_STYLE:
      return KM_YAML_STYLE_SINGLE_QUOTED;
    case YAML_DOUBLE_QUOTED_SCALAR_STYLE:
      return KM_YAML_STYLE_DOUBLE_QUOTED;
    case YAML_LITERAL_SCALAR_STYLE:
      return KM_YAML_STYLE_LITERAL;
    case YAML_FOLDED_SCALAR_STYLE:
      return KM_YAML_STYLE_FOLDED;
    case YAML_ANY_SCALAR_STYLE:
    default:
      return KM_YAML_STYLE_ANY;
    }
}

static gboolean
scalar_key_equal (const KmYamlNode *a,
                  const KmYamlNode *b)
{
  return a->kind == KM_YAML_SCALAR && b->kind == KM_YAML_SCALAR && a->length == b->length &&
         memcmp (a->value, b->value, a->length) == 0;
}

static gboolean
parser_check_duplicate (Parser     *p,
                        Frame      *frame,
                        KmYamlNode *key,
                        GError    **error)
{
  KmYamlNode *first = NULL;
  GPtrArray *items = frame->node->items;

  if (key->kind != KM_YAML_SCALAR)
    return TRUE;

  if (frame->keys != NULL)
    first = g_hash_table_lookup (frame->keys, key->value);
  else
    for (guint i = 0; i < items->len; i += 2)
      if (scalar_key_equal (g_ptr_array_index (items, i), key))
        {
          first = g_ptr_array_index (items, i);
          break;
        }

  if (first != NULL && scalar_key_equal (first, key))
    {
      km_parse_error_set (error, KM_PARSE_ERROR_INVALID, p->file, key->pos,
                          _("duplicate key “%s” (first at line %u, column %u)"), key->value,
                          first->pos.line, first->pos.column);
      return FALSE;
    }

  if (frame->keys == NULL && items->len / 2 >= MAPPING_HASH_THRESHOLD)
    {
      frame->keys = g_hash_table_new (g_str_hash, g_str_equal);
      for (guint i = 0; i < items->len; i += 2)
        {
          KmYamlNode *k = g_ptr_array_index (items, i);

          if (k->kind == KM_YAML_SCALAR && !g_hash_table_contains (frame->keys, k->value))
            g_hash_table_insert (frame->keys, k->value, k);
        }
    }
  if (frame->keys != NULL && !g_hash_table_contains (frame->keys, key->value))
    g_hash_table_insert (frame->keys, key->value, key);
  return TRUE;
}

/* Takes ownership of @node and hangs it under the innermost open collection. */
static gboolean
parser_add (Parser     *p,
            KmYamlNode *node,
            KmSourcePos pos,
            GError    **error)
{
  g_autoptr(KmYamlNode) owned = node;
  Frame *frame;
  guint depth = p->stack->len;

  if ((gsize) depth + node->height > p->limits.max_depth)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, p->file, pos,
                          _("nesting deeper than %u levels"), p->limits.max_depth);
      return FALSE;
    }
  if (node->weight > p->limits.max_expanded)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, p->file, pos,
                          _("the document expands to more than %lu nodes"),
                          (unsigned long) p->limits.max_expanded);
      return FALSE;
    }

  if (depth == 0)
    {
      g_assert (p->root == NULL);
      p->root = g_steal_pointer (&owned);
      return TRUE;
    }

  frame = &g_array_index (p->stack, Frame, depth - 1);
  if (frame->node->kind == KM_YAML_SEQUENCE)
    {
      account_child (frame->node, node);
      g_ptr_array_add (frame->node->items, g_steal_pointer (&owned));
    }
  else if (frame->pending_key == NULL)
    {
      if (!parser_check_duplicate (p, frame, node, error))
        return FALSE;
      frame->pending_key = g_steal_pointer (&owned);
    }
  else
    {
      account_child (frame->node, frame->pending_key);
      account_child (frame->node, node);
      g_ptr_array_add (frame->node->items, g_steal_pointer (&frame->pending_key));
      g_ptr_array_add (frame->node->items, g_steal_pointer (&owned));
    }

  if (frame->node->weight > p->limits.max_expanded)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, p->file, pos,
                          _("the document expands to more than %lu nodes"),
                          (unsigned long) p->limits.max_expanded);
      return FALSE;
    }
  return TRUE;
}

static gboolean
parser_count (Parser     *p,
              KmSourcePos pos,
              GError    **error)
{
  if (++p->n_nodes > p->limits.max_nodes)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, p->file, pos,
                          _("expected at most %lu YAML nodes (Kinema’s limit for one file)"),
                          (unsigned long) p->limits.max_nodes);
      return FALSE;
    }
  return TRUE;
}

static void node_set_origin (Parser *p, KmYamlNode *node, yaml_mark_t mark, const char *tag);

/* The byte offset in the (UTF-8) text of @mark, whose index counts characters (a CRLF as
 * two, a byte-order mark not at all): walked from the last mark asked for, since marks
 * come nearly in order. */
static gsize
mark_offset (Parser      *p,
             yaml_mark_t  mark)
{
  const guchar *d = (const guchar *) p->data;
  gsize bom = p->length >= 3 && memcmp (d, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;

  if (d == NULL)
    return 0;
  p->mark_byte = MAX (p->mark_byte, bom);
  while (p->mark_index < mark.index && p->mark_byte < p->length)
    {
      p->mark_byte++;
      while (p->mark_byte < p->length && (d[p->mark_byte] & 0xC0) == 0x80)
        p->mark_byte++;
      p->mark_index++;
    }
  while (p->mark_index > mark.index && p->mark_byte > bom)
    {
      p->mark_byte--;
      while (p->mark_byte > bom && (d[p->mark_byte] & 0xC0) == 0x80)
        p->mark_byte--;
      p->mark_index--;
    }
  return p->mark_byte;
}

static gboolean
parser_check_depth (Parser     *p,
                    guint       open,
                    KmSourcePos pos,
                    GError    **error)
{
  if ((gsize) open + 1 > p->limits.max_depth)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, p->file, pos,
                          _("nesting deeper than %u levels"), p->limits.max_depth);
      return FALSE;
    }
  return TRUE;
}

/* A scalar event's value as km_yaml_scalar_to_double reads the node it would make; NaN
 * when it is no number. */
static double
event_number (const yaml_event_t *event)
{
  KmYamlNode probe = { .kind = KM_YAML_SCALAR,
                       .style = scalar_style (event->data.scalar.style),
                       .tag = (char *) event->data.scalar.tag,
                       .value = (char *) event->data.scalar.value,
                       .length = event->data.scalar.length };
  double v;

  return km_yaml_scalar_to_double (&probe, &v) ? v : NAN;
}

/* Does @func make a table of the sequence that starts now? Its depth, or 0. */
static guint
parser_table_depth (Parser *p)
{
  Frame *frame;
  guint depth;

  if (p->table_func == NULL || p->stack->len == 0)
    return 0;
  frame = &g_array_index (p->stack, Frame, p->stack->len - 1);
  if (frame->node->kind != KM_YAML_MAPPING || frame->pending_key == NULL)
    return 0;
  depth = p->table_func (frame->node, frame->pending_key, p->stack->len, p->table_data);
  return MIN (depth, KM_YAML_TABLE_MAX_DEPTH);
}

static void
parser_start_table (Parser       *p,
                    yaml_event_t *event,
                    guint         depth)
{
  KmYamlTable *table = g_new0 (KmYamlTable, 1);
  gboolean flow = event->data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE;
  guint zero = 0;

  table->depth = depth;
  table->event = p->n_events;
  for (guint i = 0; i < depth; i++)
    {
      table->lengths[i] = g_array_new (FALSE, FALSE, sizeof (guint));
      table->firsts[i] = g_array_new (FALSE, FALSE, sizeof (guint));
    }
  table->values = g_array_new (FALSE, FALSE, sizeof (double));
  g_array_append_val (table->lengths[0], zero);
  g_array_append_val (table->firsts[0], zero);
  p->table = node_new (KM_YAML_SEQUENCE, flow ? KM_YAML_STYLE_FLOW : KM_YAML_STYLE_BLOCK);
  node_set_origin (p, p->table, event->start_mark,
                   (const char *) event->data.sequence_start.tag);
  p->table->table = table;
  p->table_open = 1;
  p->table_skip = 0;
}

/* An event inside the table being read: a number, a list, or what is skipped (recorded
 * as NaN or KM_YAML_TABLE_NO_LIST, for the caller to refuse). */
static gboolean
parser_table_event (Parser       *p,
                    yaml_event_t *event,
                    GError      **error)
{
  KmYamlTable *table = p->table->table;
  KmSourcePos pos = mark_pos (event->start_mark);
  gboolean start = event->type == YAML_SEQUENCE_START_EVENT ||
                   event->type == YAML_MAPPING_START_EVENT;
  guint level = p->table_open;
  guint *parent;
  const char *anchor = NULL;

  if (event->type == YAML_SCALAR_EVENT)
    anchor = (const char *) event->data.scalar.anchor;
  else if (event->type == YAML_SEQUENCE_START_EVENT)
    anchor = (const char *) event->data.sequence_start.anchor;
  else if (event->type == YAML_MAPPING_START_EVENT)
    anchor = (const char *) event->data.mapping_start.anchor;
  if (anchor != NULL || event->type == YAML_ALIAS_EVENT)
    {
      /* Neither is kept: the caller parses again without tables. */
      p->retry = TRUE;
      return FALSE;
    }
  if (start && !parser_check_depth (p, p->stack->len + p->table_open + p->table_skip, pos,
                                    error))
    return FALSE;

  if (p->table_skip > 0)
    {
      if (start)
        p->table_skip++;
      else if (event->type == YAML_SEQUENCE_END_EVENT || event->type == YAML_MAPPING_END_EVENT)
        p->table_skip--;
      return TRUE;
    }
  if (event->type == YAML_SEQUENCE_END_EVENT)
    {
      if (--p->table_open == 0)
        {
          KmYamlNode *node = g_steal_pointer (&p->table);

          node->end = MAX (mark_offset (p, event->end_mark), node->start);
          return parser_add (p, node, node->pos, error);
        }
      return TRUE;
    }
  if (!start && event->type != YAML_SCALAR_EVENT)
    return TRUE;

  /* A new item of the innermost open list, at @level. */
  if (++p->table_count > p->limits.max_values)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, p->file, pos,
                          _("expected at most %lu numbers and lists (Kinema’s limit for one "
                            "file)"), (unsigned long) p->limits.max_values);
      return FALSE;
    }
  parent = &g_array_index (table->lengths[level - 1], guint,
                           table->lengths[level - 1]->len - 1);
  (*parent)++;
  if (level == table->depth)
    {
      double v = NAN;

      if (start)
        p->table_skip = 1;
      else
        v = event_number (event);
      g_array_append_val (table->values, v);
    }
  else
    {
      guint first = level + 1 < table->depth ? table->lengths[level + 1]->len
                                             : table->values->len;
      guint length = KM_YAML_TABLE_NO_LIST;

      if (event->type == YAML_SEQUENCE_START_EVENT)
        {
          length = 0;
          p->table_open++;
        }
      else if (start)
        p->table_skip = 1;
      g_array_append_val (table->lengths[level], length);
      g_array_append_val (table->firsts[level], first);
    }
  return TRUE;
}

static void
parser_register_anchor (Parser     *p,
                        const char *anchor,
                        KmYamlNode *node)
{
  if (anchor == NULL)
    return;
  g_hash_table_replace (p->anchors, g_strdup (anchor), km_yaml_node_ref (node));
}

static void
node_set_origin (Parser      *p,
                 KmYamlNode  *node,
                 yaml_mark_t  mark,
                 const char  *tag)
{
  node->pos = mark_pos (mark);
  node->start = node->end = mark_offset (p, mark);
  node->file = p->file;
  node->tag = g_strdup (tag);
}

/* Is the first line break in the text from @from to @to preceded by a space? */
static gboolean
space_before_break (Parser *p,
                    gsize   from,
                    gsize   to)
{
  const char *nl;

  if (p->data == NULL || from >= to || to > p->length)
    return FALSE;
  nl = memchr (p->data + from, '\n', to - from);
  if (nl == NULL)
    return FALSE;
  if (nl > p->data + from && nl[-1] == '\r')
    nl--;
  return nl > p->data + from && nl[-1] == ' ';
}

/* For a flow sequence of @node's items written on several lines: how it broke them
 * (LAYOUT_*), read from the text between its items. */
static void
parser_note_layout (Parser     *p,
                    KmYamlNode *node)
{
  guint n = node->items->len;
  const KmYamlNode *first, *last;

  if (n == 0 || node->kind != KM_YAML_SEQUENCE || node->style != KM_YAML_STYLE_FLOW)
    return;
  first = g_ptr_array_index (node->items, 0);
  last = g_ptr_array_index (node->items, n - 1);
  if (last->pos.line <= node->pos.line)
    return;
  if (first->pos.line > node->pos.line && space_before_break (p, node->start, first->start))
    node->layout |= LAYOUT_OPEN_SPACE;
  for (guint i = 1; i < n; i++)
    {
      const KmYamlNode *a = g_ptr_array_index (node->items, i - 1);
      const KmYamlNode *b = g_ptr_array_index (node->items, i);

      if (b->pos.line > a->pos.line)
        {
          if (space_before_break (p, a->end, b->start))
            node->layout |= LAYOUT_COMMA_SPACE;
          break;
        }
    }
}

static gboolean
parser_event (Parser       *p,
              yaml_event_t *event,
              GError      **error)
{
  KmSourcePos pos = mark_pos (event->start_mark);

  if (p->table != NULL)
    return parser_table_event (p, event, error);

  switch (event->type)
    {
    case YAML_NO_EVENT:
    case YAML_STREAM_START_EVENT:
    case YAML_STREAM_END_EVENT:
    case YAML_DOCUMENT_END_EVENT:
      return TRUE;

    case YAML_DOCUMENT_START_EVENT:
      if (p->n_documents++ > 0)
        {
          km_parse_error_set (error, KM_PARSE_ERROR_INVALID, p->file, pos,
                              _("expected a single YAML document"));
          return FALSE;
        }
      return TRUE;

    case YAML_ALIAS_EVENT:
      {
        const char *name = (const char *) event->data.alias.anchor;
        KmYamlNode *target;

        if (!parser_count (p, pos, error))
          return FALSE;
        target = g_hash_table_lookup (p->anchors, name);
        if (target == NULL)
          {
            if (g_hash_table_contains (p->open_anchors, name))
              km_parse_error_set (error, KM_PARSE_ERROR_INVALID, p->file, pos,
                                  _("alias “*%s” refers to a node that contains it"), name);
            else
              km_parse_error_set (error, KM_PARSE_ERROR_INVALID, p->file, pos,
                                  _("unknown alias “*%s”"), name);
            return FALSE;
          }
        return parser_add (p, km_yaml_node_ref (target), pos, error);
      }

    case YAML_SCALAR_EVENT:
      {
        KmYamlNode *node;
        const char *anchor = (const char *) event->data.scalar.anchor;

        if (!parser_count (p, pos, error))
          return FALSE;
        node = node_new (KM_YAML_SCALAR, scalar_style (event->data.scalar.style));
        node_set_origin (p, node, event->start_mark, (const char *) event->data.scalar.tag);
        node->end = MAX (mark_offset (p, event->end_mark), node->start);
        node->length = event->data.scalar.length;
        node->value = g_malloc (node->length + 1);
        memcpy (node->value, event->data.scalar.value, node->length);
        node->value[node->length] = '\0';
        parser_register_anchor (p, anchor, node);
        return parser_add (p, node, pos, error);
      }

    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT:
      {
        gboolean is_seq = event->type == YAML_SEQUENCE_START_EVENT;
        const char *anchor = (const char *) (is_seq ? event->data.sequence_start.anchor
                                                    : event->data.mapping_start.anchor);
        const char *tag = (const char *) (is_seq ? event->data.sequence_start.tag
                                                 : event->data.mapping_start.tag);
        gboolean flow = is_seq ? event->data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE
                               : event->data.mapping_start.style == YAML_FLOW_MAPPING_STYLE;
        Frame frame = { NULL, };
        guint table_depth;

        if (!parser_count (p, pos, error))
          return FALSE;
        if (!parser_check_depth (p, p->stack->len, pos, error))
          return FALSE;
        if (is_seq && anchor == NULL && (table_depth = parser_table_depth (p)) > 0)
          {
            parser_start_table (p, event, table_depth);
            return TRUE;
          }
        frame.node = node_new (is_seq ? KM_YAML_SEQUENCE : KM_YAML_MAPPING,
                               flow ? KM_YAML_STYLE_FLOW : KM_YAML_STYLE_BLOCK);
        node_set_origin (p, frame.node, event->start_mark, tag);
        frame.anchor = g_strdup (anchor);
        if (anchor != NULL)
          g_hash_table_add (p->open_anchors, g_strdup (anchor));
        g_array_append_val (p->stack, frame);
        return TRUE;
      }

    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
      {
        Frame *top;
        KmYamlNode *node;

        g_assert (p->stack->len > 0);
        top = &g_array_index (p->stack, Frame, p->stack->len - 1);
        node = g_steal_pointer (&top->node);
        node->end = MAX (mark_offset (p, event->end_mark), node->start);
        parser_note_layout (p, node);
        if (top->anchor != NULL)
          {
            g_hash_table_remove (p->open_anchors, top->anchor);
            parser_register_anchor (p, top->anchor, node);
          }
        g_array_set_size (p->stack, p->stack->len - 1);
        return parser_add (p, node, node->pos, error);
      }

    default:
      return TRUE;
    }
}

/* What libyaml (0.2) says of a syntax error, its problem and its context, in English:
 * looked up here so that the message is in the user's language (a text libyaml adds later
 * is shown as it is). */
static const char * const libyaml_texts[] = {
  /* Translators: libyaml's descriptions of a YAML syntax error, shown after "malformed
   * YAML: ". Quoted characters (':', ']', …) and names in <> or capitals are YAML's
   * own: keep them as they are. */
  N_("block sequence entries are not allowed in this context"),
  N_("control characters are not allowed"),
  N_("could not find expected ':'"),
  N_("could not find expected directive name"),
  N_("did not find URI escaped octet"),
  N_("did not find expected '!'"),
  N_("did not find expected ',' or ']'"),
  N_("did not find expected ',' or '}'"),
  N_("did not find expected '-' indicator"),
  N_("did not find expected <document start>"),
  N_("did not find expected alphabetic or numeric character"),
  N_("did not find expected comment or line break"),
  N_("did not find expected digit or '.' character"),
  N_("did not find expected hexdecimal number"),
  N_("did not find expected key"),
  N_("did not find expected node content"),
  N_("did not find expected tag URI"),
  N_("did not find expected version number"),
  N_("did not find expected whitespace"),
  N_("did not find expected whitespace or line break"),
  N_("did not find the expected '>'"),
  N_("found a tab character that violates indentation"),
  N_("found a tab character where an indentation space is expected"),
  N_("found an incorrect leading UTF-8 octet"),
  N_("found an incorrect trailing UTF-8 octet"),
  N_("found an indentation indicator equal to 0"),
  N_("found character that cannot start any token"),
  N_("found duplicate %TAG directive"),
  N_("found duplicate %YAML directive"),
  N_("found extremely long version number"),
  N_("found incompatible YAML document"),
  N_("found invalid Unicode character escape code"),
  N_("found undefined tag handle"),
  N_("found unexpected ':'"),
  N_("found unexpected document indicator"),
  N_("found unexpected end of stream"),
  N_("found unexpected non-alphabetical character"),
  N_("found unknown directive name"),
  N_("found unknown escape character"),
  N_("incomplete UTF-16 character"),
  N_("incomplete UTF-16 surrogate pair"),
  N_("incomplete UTF-8 octet sequence"),
  N_("input is too long"),
  N_("invalid Unicode character"),
  N_("invalid leading UTF-8 octet"),
  N_("invalid length of a UTF-8 sequence"),
  N_("invalid trailing UTF-8 octet"),
  N_("mapping keys are not allowed in this context"),
  N_("mapping values are not allowed in this context"),
  N_("unexpected low surrogate area"),
  N_("while parsing a %TAG directive"),
  N_("while parsing a block collection"),
  N_("while parsing a block mapping"),
  N_("while parsing a block node"),
  N_("while parsing a flow mapping"),
  N_("while parsing a flow node"),
  N_("while parsing a flow sequence"),
  N_("while parsing a node"),
  N_("while parsing a quoted scalar"),
  N_("while parsing a tag"),
  N_("while parsing a tag directive"),
  N_("while scanning a %TAG directive"),
  N_("while scanning a %YAML directive"),
  N_("while scanning a block scalar"),
  N_("while scanning a directive"),
  N_("while scanning a plain scalar"),
  N_("while scanning a quoted scalar"),
  N_("while scanning a simple key"),
  N_("while scanning a tag"),
  N_("while scanning a tag directive"),
  N_("while scanning an alias"),
  N_("while scanning an anchor"),
  N_("while scanning for the next token"),
};

/* @text (libyaml's), translated where it is one of libyaml_texts. */
static const char *
libyaml_text (const char *text)
{
  for (guint i = 0; i < G_N_ELEMENTS (libyaml_texts); i++)
    if (g_strcmp0 (text, libyaml_texts[i]) == 0)
      return _(libyaml_texts[i]);
  return text;
}

static void
set_libyaml_error (Parser        *p,
                   yaml_parser_t *parser,
                   GError       **error)
{
  KmSourcePos pos;
  const char *problem = parser->problem != NULL ? libyaml_text (parser->problem)
                                                : _("unknown error");

  switch (parser->error)
    {
    case YAML_MEMORY_ERROR:
      km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, p->file, (KmSourcePos) { 0, 0 },
                          _("out of memory while reading YAML"));
      return;
    case YAML_READER_ERROR:
      pos = offset_pos (p->data, p->length, parser->problem_offset);
      break;
    default:
      pos = mark_pos (parser->problem_mark);
      break;
    }

  if (parser->context != NULL)
    km_parse_error_set (error, KM_PARSE_ERROR_SYNTAX, p->file, pos,
                        _("malformed YAML: %s %s"), problem, libyaml_text (parser->context));
  else
    km_parse_error_set (error, KM_PARSE_ERROR_SYNTAX, p->file, pos, _("malformed YAML: %s"),
                        problem);
}

static void
parser_init (Parser             *p,
             const char         *file,
             const char         *data,
             gsize               length,
             const KmYamlLimits *limits)
{
  p->file = g_intern_string (file);
  p->data = data;
  p->length = length;
  p->limits.max_depth = limits && limits->max_depth ? limits->max_depth : KM_YAML_DEFAULT_MAX_DEPTH;
  p->limits.max_nodes = limits && limits->max_nodes ? limits->max_nodes : KM_YAML_DEFAULT_MAX_NODES;
  p->limits.max_expanded = limits && limits->max_expanded ? limits->max_expanded
                                                          : KM_YAML_DEFAULT_MAX_EXPANDED;
  /* (bounded so that a table's indices fit in a guint) */
  p->limits.max_values = MIN (limits && limits->max_values ? limits->max_values
                                                           : KM_YAML_DEFAULT_MAX_VALUES,
                              G_MAXUINT / 2);
  p->stack = g_array_new (FALSE, TRUE, sizeof (Frame));
  g_array_set_clear_func (p->stack, (GDestroyNotify) frame_clear);
  p->anchors = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                      (GDestroyNotify) km_yaml_node_unref);
  p->open_anchors = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

static void
parser_clear (Parser *p)
{
  g_array_unref (p->stack);
  g_hash_table_unref (p->anchors);
  g_hash_table_unref (p->open_anchors);
  g_clear_pointer (&p->table, km_yaml_node_unref);
}

static KmYamlNode *
parse (const char          *file,
       const char          *data,
       gsize                length,
       const KmYamlLimits  *limits,
       KmYamlTableFunc      func,
       gpointer             user_data,
       gboolean            *retry,
       GError             **error)
{
  yaml_parser_t parser;
  Parser p = { NULL, };
  gboolean ok = TRUE;
  gboolean done = FALSE;

  parser_init (&p, file, data, length, limits);
  p.table_func = func;
  p.table_data = user_data;

  if (!yaml_parser_initialize (&parser))
    {
      km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, file, (KmSourcePos) { 0, 0 },
                          _("out of memory while reading YAML"));
      ok = FALSE;
      done = TRUE;
    }
  else
    yaml_parser_set_input_string (&parser, (const unsigned char *) (data ? data : ""), length);

  while (!done)
    {
      yaml_event_t event;

      if (!yaml_parser_parse (&parser, &event))
        {
          set_libyaml_error (&p, &parser, error);
          ok = FALSE;
          break;
        }
      done = event.type == YAML_STREAM_END_EVENT;
      p.n_events++;
      ok = parser_event (&p, &event, error);
      yaml_event_delete (&event);
      if (!ok)
        break;
    }

  if (ok || parser.error != YAML_MEMORY_ERROR)
    yaml_parser_delete (&parser);

  if (ok && p.root == NULL)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_INVALID, file, (KmSourcePos) { 1, 1 },
                          _("expected a YAML document, found an empty file"));
      ok = FALSE;
    }

  parser_clear (&p);
  if (!ok)
    {
      if (p.retry && retry != NULL)
        *retry = TRUE;
      g_clear_pointer (&p.root, km_yaml_node_unref);
      return NULL;
    }
  return p.root;
}

KmYamlNode *
km_yaml_parse (const char          *file,
               const char          *data,
               gsize                length,
               const KmYamlLimits  *limits,
               GError             **error)
{
  g_return_val_if_fail (file != NULL, NULL);
  g_return_val_if_fail (data != NULL || length == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return parse (file, data, length, limits, NULL, NULL, NULL, error);
}

KmYamlNode *
km_yaml_parse_with_tables (const char          *file,
                           const char          *data,
                           gsize                length,
                           const KmYamlLimits  *limits,
                           KmYamlTableFunc      func,
                           gpointer             user_data,
                           gboolean            *retry,
                           GError             **error)
{
  g_return_val_if_fail (file != NULL, NULL);
  g_return_val_if_fail (data != NULL || length == 0, NULL);
  g_return_val_if_fail (func != NULL, NULL);
  g_return_val_if_fail (retry != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  *retry = FALSE;
  return parse (file, data, length, limits, func, user_data, retry, error);
}

/*
 * Reads @data (the text @node's table was parsed from) up to the table's event, then each
 * item of it as a tree, with a parser of its own so that only one item is a tree at a time,
 * to @func; with @only (not G_MAXUINT) only item @only, the others skipped unread, and a
 * list too short for it is an error.
 */
static gboolean
table_walk (const KmYamlNode    *node,
            const char          *data,
            gsize                length,
            guint                only,
            KmYamlTableItemFunc  func,
            gpointer             user_data,
            GError             **error)
{
  yaml_parser_t parser;
  Parser p = { NULL, };
  gsize n_events = 0;
  guint open = 0;      /* collections open in the table, its own list included */
  guint item = 0;
  gboolean in_item = FALSE;
  gboolean ok = TRUE;
  gboolean done = FALSE;

  if (!yaml_parser_initialize (&parser))
    {
      km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, node->file, node->pos,
                          _("out of memory while reading YAML"));
      return FALSE;
    }
  p.file = node->file;   /* for a libyaml error between items */
  yaml_parser_set_input_string (&parser, (const unsigned char *) (data ? data : ""), length);

  while (ok && !done)
    {
      yaml_event_t event;
      gboolean start, end;

      if (!yaml_parser_parse (&parser, &event))
        {
          set_libyaml_error (&p, &parser, error);
          ok = FALSE;
          break;
        }
      start = event.type == YAML_SEQUENCE_START_EVENT || event.type == YAML_MAPPING_START_EVENT;
      end = event.type == YAML_SEQUENCE_END_EVENT || event.type == YAML_MAPPING_END_EVENT;
      n_events++;
      if (event.type == YAML_STREAM_END_EVENT ||
          (open == 1 && end && !in_item && only != G_MAXUINT))
        {
          /* Not the text the table was read from. */
          km_parse_error_set (error, KM_PARSE_ERROR_INVALID, node->file, node->pos,
                              _("expected a list of at least %u items"),
                              (only != G_MAXUINT ? only : item) + 1);
          ok = FALSE;
        }
      else if (n_events == node->table->event)
        open = 1;
      else if (in_item || (open == 1 && !end && (only == G_MAXUINT || item == only)))
        {
          if (!in_item)
            {
              gsize mark_index = p.mark_index, mark_byte = p.mark_byte;

              /* (the walk of mark_offset goes on from the last item) */
              p = (Parser) { .mark_index = mark_index, .mark_byte = mark_byte };
              parser_init (&p, node->file, data, length, NULL);
              in_item = TRUE;
            }
          ok = parser_event (&p, &event, error);
          if (ok && p.root != NULL)
            {
              ok = func (p.root, item, user_data, error);
              g_clear_pointer (&p.root, km_yaml_node_unref);
              parser_clear (&p);
              in_item = FALSE;
              done = item == only;
              item++;
            }
        }
      else if (open == 1 && end)
        done = TRUE;
      else if (open > 0)
        {
          if (open == 1 && !end)
            item++;
          if (start)
            open++;
          else if (end)
            open--;
        }
      yaml_event_delete (&event);
    }

  if (ok || parser.error != YAML_MEMORY_ERROR)
    yaml_parser_delete (&parser);
  if (in_item)
    {
      g_clear_pointer (&p.root, km_yaml_node_unref);
      parser_clear (&p);
    }
  return ok;
}

static gboolean
take_item (const KmYamlNode  *item,
           guint              index,
           gpointer           user_data,
           GError           **error)
{
  *(KmYamlNode **) user_data = km_yaml_node_ref ((KmYamlNode *) item);
  return TRUE;
}

KmYamlNode *
km_yaml_table_get_item (const KmYamlNode *node,
                        const char       *data,
                        gsize             length,
                        guint             index,
                        GError          **error)
{
  KmYamlNode *item = NULL;

  g_return_val_if_fail (node != NULL && node->table != NULL, NULL);
  g_return_val_if_fail (data != NULL || length == 0, NULL);
  g_return_val_if_fail (index < G_MAXUINT, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!table_walk (node, data, length, index, take_item, &item, error))
    g_clear_pointer (&item, km_yaml_node_unref);
  return item;
}

gboolean
km_yaml_table_foreach_item (const KmYamlNode    *node,
                            const char          *data,
                            gsize                length,
                            KmYamlTableItemFunc  func,
                            gpointer             user_data,
                            GError             **error)
{
  g_return_val_if_fail (node != NULL && node->table != NULL, FALSE);
  g_return_val_if_fail (data != NULL || length == 0, FALSE);
  g_return_val_if_fail (func != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return table_walk (node, data, length, G_MAXUINT, func, user_data, error);
}

KmYamlNode *
km_yaml_parse_file (const char          *path,
                    const KmYamlLimits  *limits,
                    GError             **error)
{
  g_autoptr(GBytes) bytes = NULL;
  const char *data;
  gsize length;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  bytes = km_format_read_file (path, KM_FORMAT_MAX_FILE_SIZE, error);
  if (bytes == NULL)
    return NULL;
  data = g_bytes_get_data (bytes, &length);
  return km_yaml_parse (path, data != NULL ? data : "", length, limits, error);
}

gboolean
km_yaml_sniff_top_key (const char *data,
                       gsize       length,
                       const char *key)
{
  gsize key_len;
  gsize i = 0;
  gsize limit;
  gboolean seen_key = FALSE;

  g_return_val_if_fail (key != NULL, FALSE);

  if (data == NULL)
    return FALSE;
  key_len = strlen (key);
  limit = MIN (length, 64 * 1024);
  if (limit >= 3 && memcmp (data, "\xEF\xBB\xBF", 3) == 0)
    i = 3;

  while (i < limit)
    {
      gsize end = i;
      const char *line = data + i;
      gsize n;

      /* A line ends at LF, CRLF or a lone CR (old Mac files): YAML takes all three. */
      while (end < limit && data[end] != '\n' && data[end] != '\r')
        end++;
      n = end - i;

      if (n > key_len && memcmp (line, key, key_len) == 0 && line[key_len] == ':')
        return TRUE;
      if (n > key_len + 2 && line[0] == '"' && memcmp (line + 1, key, key_len) == 0 &&
          line[key_len + 1] == '"' && line[key_len + 2] == ':')
        return TRUE;
      if (n == key_len + 1 && memcmp (line, key, key_len) == 0 && line[key_len] == ':')
        return TRUE;
      /* Anything but comments, directives, document markers, blank or indented lines
       * must look like a top-level key; a top level that is no block mapping is not ours.
       * A "- " entry after a key belongs to that key's sequence, written without indent
       * (`key:\n- item`, as PyYAML and ruamel.yaml write it). */
      if (n > 0 && line[0] != '#' && line[0] != '%' && line[0] != ' ' && line[0] != '\t' &&
          !(n >= 3 && memcmp (line, "---", 3) == 0))
        {
          gboolean entry = line[0] == '-' && (n == 1 || line[1] == ' ' || line[1] == '\t');

          if (entry && !seen_key)
            return FALSE;
          if (!entry && (line[0] == '-' || line[0] == '[' || line[0] == '{' ||
                         memchr (line, ':', n) == NULL))
            return FALSE;
          seen_key = seen_key || !entry;
        }
      i = end + 1;
    }
  return FALSE;
}

/* ---------------------------------------------------------------------------------------- */
/* Accessors */

KmYamlKind
km_yaml_node_get_kind (const KmYamlNode *node)
{
  g_return_val_if_fail (node != NULL, KM_YAML_SCALAR);
  return node->kind;
}

KmYamlStyle
km_yaml_node_get_style (const KmYamlNode *node)
{
  g_return_val_if_fail (node != NULL, KM_YAML_STYLE_ANY);
  return node->style;
}

void
km_yaml_node_set_style (KmYamlNode *node,
                        KmYamlStyle style)
{
  g_return_if_fail (node != NULL);
  node->style = style;
}

KmSourcePos
km_yaml_node_get_pos (const KmYamlNode *node)
{
  KmSourcePos none = { 0, 0 };

  g_return_val_if_fail (node != NULL, none);
  return node->pos;
}

gboolean
km_yaml_node_get_span (const KmYamlNode *node,
                       gsize            *start,
                       gsize            *end)
{
  g_return_val_if_fail (node != NULL, FALSE);

  if (start != NULL)
    *start = node->start;
  if (end != NULL)
    *end = node->end;
  /* Only a parsed node has a position (a built one has line 0). */
  return node->pos.line > 0;
}

const char *
km_yaml_node_get_file (const KmYamlNode *node)
{
  g_return_val_if_fail (node != NULL, "");
  return node->file;
}

const char *
km_yaml_node_get_tag (const KmYamlNode *node)
{
  g_return_val_if_fail (node != NULL, NULL);
  return node->tag;
}

const char *
km_yaml_node_get_scalar (const KmYamlNode *node,
                         gsize            *length)
{
  g_return_val_if_fail (node != NULL, NULL);

  if (node->kind != KM_YAML_SCALAR)
    {
      if (length != NULL)
        *length = 0;
      return NULL;
    }
  if (length != NULL)
    *length = node->length;
  return node->value;
}

guint
km_yaml_node_get_length (const KmYamlNode *node)
{
  g_return_val_if_fail (node != NULL, 0);

  if (node->kind == KM_YAML_SEQUENCE)
    return node->items->len;
  if (node->kind == KM_YAML_MAPPING)
    return node->items->len / 2;
  return 0;
}

gsize
km_yaml_node_get_weight (const KmYamlNode *node)
{
  g_return_val_if_fail (node != NULL, 0);
  return node->weight;
}

guint
km_yaml_table_get_depth (const KmYamlNode *node)
{
  g_return_val_if_fail (node != NULL, 0);
  return node->table != NULL ? node->table->depth : 0;
}

guint
km_yaml_table_get_length (const KmYamlNode *node,
                          guint             level,
                          gsize             index)
{
  g_return_val_if_fail (node != NULL && node->table != NULL, 0);
  g_return_val_if_fail (level < node->table->depth, 0);
  g_return_val_if_fail (index < node->table->lengths[level]->len, 0);

  return g_array_index (node->table->lengths[level], guint, index);
}

gsize
km_yaml_table_get_first (const KmYamlNode *node,
                         guint             level,
                         gsize             index)
{
  g_return_val_if_fail (node != NULL && node->table != NULL, 0);
  g_return_val_if_fail (level < node->table->depth, 0);
  g_return_val_if_fail (index < node->table->firsts[level]->len, 0);

  return g_array_index (node->table->firsts[level], guint, index);
}

const double *
km_yaml_table_get_values (const KmYamlNode *node,
                          gsize            *n_values)
{
  g_return_val_if_fail (node != NULL && node->table != NULL, NULL);

  if (n_values != NULL)
    *n_values = node->table->values->len;
  return (const double *) node->table->values->data;
}

double *
km_yaml_table_steal_values (KmYamlNode *node,
                            gsize      *n_values)
{
  double *values;

  g_return_val_if_fail (node != NULL && node->table != NULL, NULL);

  if (n_values != NULL)
    *n_values = node->table->values->len;
  values = (double *) g_array_free (g_steal_pointer (&node->table->values), FALSE);
  g_clear_pointer (&node->table, table_free);
  return values;
}

KmYamlNode *
km_yaml_sequence_get (const KmYamlNode *node,
                      guint             index)
{
  g_return_val_if_fail (node != NULL, NULL);
  g_return_val_if_fail (node->kind == KM_YAML_SEQUENCE, NULL);
  g_return_val_if_fail (index < node->items->len, NULL);

  return g_ptr_array_index (node->items, index);
}

KmYamlNode *
km_yaml_mapping_get_key (const KmYamlNode *node,
                         guint             index)
{
  g_return_val_if_fail (node != NULL, NULL);
  g_return_val_if_fail (node->kind == KM_YAML_MAPPING, NULL);
  g_return_val_if_fail (index < node->items->len / 2, NULL);

  return g_ptr_array_index (node->items, 2 * index);
}

KmYamlNode *
km_yaml_mapping_get_value (const KmYamlNode *node,
                           guint             index)
{
  g_return_val_if_fail (node != NULL, NULL);
  g_return_val_if_fail (node->kind == KM_YAML_MAPPING, NULL);
  g_return_val_if_fail (index < node->items->len / 2, NULL);

  return g_ptr_array_index (node->items, 2 * index + 1);
}

static int
mapping_find (const KmYamlNode *node,
              const char       *key)
{
  gsize key_len = strlen (key);

  for (guint i = 0; i < node->items->len; i += 2)
    {
      const KmYamlNode *k = g_ptr_array_index (node->items, i);

      if (k->kind == KM_YAML_SCALAR && k->length == key_len && memcmp (k->value, key, key_len) == 0)
        return (int) i;
    }
  return -1;
}

/* YAML's merge key, `<<: *base` or `<<: [ *a, *b ]`, which Choreonoid's models use to share
 * settings between links (its reader merges them): a key the mapping lacks is taken from
 * the merged mappings, the earlier ones first, and from what they merge in turn. Aliases
 * make a merged mapping cheap to repeat, so @budget bounds the mappings one lookup visits
 * (a nest of merge lists would otherwise multiply). */
static KmYamlNode *
lookup_merged (const KmYamlNode *node,
               const char       *key,
               guint            *budget)
{
  int i;
  KmYamlNode *merge;

  if (node->kind != KM_YAML_MAPPING || *budget == 0)
    return NULL;
  (*budget)--;
  if ((i = mapping_find (node, key)) >= 0)
    return g_ptr_array_index (node->items, i + 1);
  if ((i = mapping_find (node, "<<")) < 0)
    return NULL;
  merge = g_ptr_array_index (node->items, i + 1);
  if (merge->kind == KM_YAML_MAPPING)
    return lookup_merged (merge, key, budget);
  if (merge->kind == KM_YAML_SEQUENCE)
    for (guint k = 0; k < merge->items->len; k++)
      {
        KmYamlNode *found = lookup_merged (g_ptr_array_index (merge->items, k), key, budget);

        if (found != NULL)
          return found;
      }
  return NULL;
}

KmYamlNode *
km_yaml_mapping_lookup (const KmYamlNode *node,
                        const char       *key)
{
  guint budget = 256;

  g_return_val_if_fail (key != NULL, NULL);

  if (node == NULL || node->kind != KM_YAML_MAPPING)
    return NULL;
  return lookup_merged (node, key, &budget);
}

KmYamlNode *
km_yaml_mapping_lookup_any (const KmYamlNode   *node,
                            const char * const *keys)
{
  g_return_val_if_fail (keys != NULL, NULL);

  for (guint i = 0; keys[i] != NULL; i++)
    {
      KmYamlNode *value = km_yaml_mapping_lookup (node, keys[i]);

      if (value != NULL)
        return value;
    }
  return NULL;
}

const char *
km_yaml_mapping_key_any (const KmYamlNode   *node,
                         const char * const *keys)
{
  g_return_val_if_fail (keys != NULL && keys[0] != NULL, NULL);

  for (guint i = 0; keys[i] != NULL; i++)
    if (km_yaml_mapping_lookup (node, keys[i]) != NULL)
      return keys[i];
  return keys[0];
}

gboolean
km_yaml_node_equal (const KmYamlNode *a,
                    const KmYamlNode *b)
{
  g_autoptr(KmYamlNode) a_built = NULL;
  g_autoptr(KmYamlNode) b_built = NULL;

  g_return_val_if_fail (a != NULL && b != NULL, FALSE);

  if (a == b)
    return TRUE;
  a = resolve (a, &a_built);
  b = resolve (b, &b_built);
  if (a->kind != b->kind || g_strcmp0 (a->tag, b->tag) != 0)
    return FALSE;
  if (a->kind == KM_YAML_SCALAR)
    return a->length == b->length && memcmp (a->value, b->value, a->length) == 0;
  if (a->items->len != b->items->len)
    return FALSE;
  for (guint i = 0; i < a->items->len; i++)
    if (!km_yaml_node_equal (g_ptr_array_index (a->items, i), g_ptr_array_index (b->items, i)))
      return FALSE;
  return TRUE;
}

KmYamlNode *
km_yaml_node_copy (const KmYamlNode *node)
{
  KmYamlNode *copy;

  g_return_val_if_fail (node != NULL, NULL);

  if (node_is_deferred (node))
    {
      g_autoptr(KmYamlNode) built = NULL;

      return km_yaml_node_copy (resolve (node, &built));
    }
  copy = node_new (node->kind, node->style);
  copy->pos = node->pos;
  copy->start = node->start;
  copy->end = node->end;
  copy->layout = node->layout;
  copy->file = node->file;
  copy->tag = g_strdup (node->tag);
  if (node->kind == KM_YAML_SCALAR)
    {
      copy->length = node->length;
      copy->value = g_memdup2 (node->value, node->length + 1);
      return copy;
    }
  for (guint i = 0; i < node->items->len; i++)
    {
      KmYamlNode *child = km_yaml_node_copy (g_ptr_array_index (node->items, i));

      account_child (copy, child);
      g_ptr_array_add (copy->items, child);
    }
  return copy;
}

/* ---------------------------------------------------------------------------------------- */
/* Building */

KmYamlNode *
km_yaml_node_new_scalar (const char *value,
                         KmYamlStyle style)
{
  KmYamlNode *node;

  g_return_val_if_fail (value != NULL, NULL);

  node = node_new (KM_YAML_SCALAR, style);
  node->length = strlen (value);
  node->value = g_strdup (value);
  return node;
}

KmYamlNode *
km_yaml_node_new_string (const char *value)
{
  return km_yaml_node_new_scalar (value, KM_YAML_STYLE_DOUBLE_QUOTED);
}

KmYamlNode *
km_yaml_node_new_number (double value)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];

  km_yaml_format_number (value, buffer, sizeof buffer);
  return km_yaml_node_new_scalar (buffer, KM_YAML_STYLE_PLAIN);
}

KmYamlNode *
km_yaml_node_new_int (gint64 value)
{
  char buffer[32];

  g_snprintf (buffer, sizeof buffer, "%" G_GINT64_FORMAT, value);
  return km_yaml_node_new_scalar (buffer, KM_YAML_STYLE_PLAIN);
}

KmYamlNode *
km_yaml_node_new_bool (gboolean value)
{
  return km_yaml_node_new_scalar (value ? "true" : "false", KM_YAML_STYLE_PLAIN);
}

KmYamlNode *
km_yaml_node_new_sequence (KmYamlStyle style)
{
  return node_new (KM_YAML_SEQUENCE, style);
}

KmYamlNode *
km_yaml_node_new_mapping (KmYamlStyle style)
{
  return node_new (KM_YAML_MAPPING, style);
}

KmYamlNode *
km_yaml_node_new_deferred (KmYamlKind       kind,
                           KmYamlExpandFunc expand,
                           gpointer         data,
                           GDestroyNotify   destroy)
{
  KmYamlNode *node;

  g_return_val_if_fail (kind == KM_YAML_SEQUENCE || kind == KM_YAML_MAPPING, NULL);
  g_return_val_if_fail (expand != NULL, NULL);

  node = node_new (kind, KM_YAML_STYLE_ANY);
  node->expand = expand;
  node->expand_data = data;
  node->expand_destroy = destroy;
  return node;
}

gboolean
km_yaml_node_is_deferred (const KmYamlNode *node)
{
  g_return_val_if_fail (node != NULL, FALSE);
  return node_is_deferred (node);
}

KmYamlNode *
km_yaml_node_new_generated (guint          n_items,
                            KmYamlItemFunc item,
                            gpointer       data,
                            GDestroyNotify destroy)
{
  KmYamlNode *node;

  g_return_val_if_fail (item != NULL, NULL);

  node = node_new (KM_YAML_SEQUENCE, KM_YAML_STYLE_BLOCK);
  node->generate = item;
  node->n_generated = n_items;
  node->expand_data = data;
  node->expand_destroy = destroy;
  return node;
}

KmYamlNode *
km_yaml_node_new_numbers (const double *values,
                          guint         n_values)
{
  KmYamlNode *seq = node_new (KM_YAML_SEQUENCE, KM_YAML_STYLE_FLOW);

  g_return_val_if_fail (values != NULL || n_values == 0, seq);

  for (guint i = 0; i < n_values; i++)
    km_yaml_sequence_append (seq, km_yaml_node_new_number (values[i]));
  return seq;
}

void
km_yaml_sequence_append (KmYamlNode *sequence,
                         KmYamlNode *item)
{
  g_return_if_fail (sequence != NULL && sequence->kind == KM_YAML_SEQUENCE);
  g_return_if_fail (sequence->expand == NULL && sequence->generate == NULL);
  g_return_if_fail (item != NULL);

  account_child (sequence, item);
  g_ptr_array_add (sequence->items, item);
}

void
km_yaml_mapping_append (KmYamlNode *mapping,
                        const char *key,
                        KmYamlNode *value)
{
  KmYamlNode *key_node;

  g_return_if_fail (mapping != NULL && mapping->kind == KM_YAML_MAPPING);
  g_return_if_fail (mapping->expand == NULL && mapping->generate == NULL);
  g_return_if_fail (key != NULL && value != NULL);

  key_node = km_yaml_node_new_scalar (key, KM_YAML_STYLE_ANY);
  account_child (mapping, key_node);
  account_child (mapping, value);
  g_ptr_array_add (mapping->items, key_node);
  g_ptr_array_add (mapping->items, value);
}

/* Like km_yaml_mapping_append with a key node (kept with its style, e.g. a quoted key). */
void
km_yaml_mapping_append_node (KmYamlNode *mapping,
                             KmYamlNode *key,
                             KmYamlNode *value)
{
  g_return_if_fail (mapping != NULL && mapping->kind == KM_YAML_MAPPING);
  g_return_if_fail (mapping->expand == NULL && mapping->generate == NULL);
  g_return_if_fail (key != NULL && value != NULL);

  account_child (mapping, key);
  account_child (mapping, value);
  g_ptr_array_add (mapping->items, key);
  g_ptr_array_add (mapping->items, value);
}

void
km_yaml_mapping_append_except (KmYamlNode         *mapping,
                               const KmYamlNode   *from,
                               const char * const *skip)
{
  g_return_if_fail (mapping != NULL && mapping->kind == KM_YAML_MAPPING);
  g_return_if_fail (skip != NULL);

  for (guint i = 0; from != NULL && i < km_yaml_node_get_length (from); i++)
    {
      KmYamlNode *key = km_yaml_mapping_get_key (from, i);
      const char *name = km_yaml_node_get_scalar (key, NULL);

      if (name == NULL || g_strv_contains (skip, name))
        continue;
      km_yaml_mapping_append_node (mapping, km_yaml_node_ref (key),
                                   km_yaml_node_ref (km_yaml_mapping_get_value (from, i)));
    }
}

void
km_yaml_mapping_set (KmYamlNode *mapping,
                     const char *key,
                     KmYamlNode *value)
{
  int i;

  g_return_if_fail (mapping != NULL && mapping->kind == KM_YAML_MAPPING);
  g_return_if_fail (mapping->expand == NULL && mapping->generate == NULL);
  g_return_if_fail (key != NULL && value != NULL);

  i = mapping_find (mapping, key);
  if (i < 0)
    {
      km_yaml_mapping_append (mapping, key, value);
      return;
    }
  account_child (mapping, value);
  km_yaml_node_unref (g_ptr_array_index (mapping->items, i + 1));
  g_ptr_array_index (mapping->items, i + 1) = value;
}

gboolean
km_yaml_mapping_remove (KmYamlNode *mapping,
                        const char *key)
{
  int i;

  g_return_val_if_fail (mapping != NULL && mapping->kind == KM_YAML_MAPPING, FALSE);
  g_return_val_if_fail (mapping->expand == NULL && mapping->generate == NULL, FALSE);
  g_return_val_if_fail (key != NULL, FALSE);

  i = mapping_find (mapping, key);
  if (i < 0)
    return FALSE;
  g_ptr_array_remove_range (mapping->items, i, 2);
  return TRUE;
}

/* ---------------------------------------------------------------------------------------- */
/* Typed access */

static gboolean
is_plain_scalar (const KmYamlNode *node)
{
  return node->kind == KM_YAML_SCALAR &&
         (node->style == KM_YAML_STYLE_PLAIN || node->style == KM_YAML_STYLE_ANY);
}

static gboolean
tag_allows (const KmYamlNode *node,
            const char       *a,
            const char       *b)
{
  return node->tag == NULL || g_strcmp0 (node->tag, a) == 0 || g_strcmp0 (node->tag, b) == 0;
}

/* May @node be read as a value of the type of tags @a and @b (nullable)? A plain scalar
 * untagged or with one of them; a scalar of any other style only with one of them:
 * `!!float "0.5"` is a float by YAML's tag resolution, the quotes say nothing. */
static gboolean
scalar_may_be (const KmYamlNode *node,
               const char       *a,
               const char       *b)
{
  if (node->kind != KM_YAML_SCALAR)
    return FALSE;
  if (is_plain_scalar (node))
    return tag_allows (node, a, b);
  return node->tag != NULL && (g_strcmp0 (node->tag, a) == 0 || g_strcmp0 (node->tag, b) == 0);
}

/* Is @node a string by its tag or style (`!!str 1`, `"1"`), not a plain scalar that
 * fails to read as what was wanted? */
static gboolean
scalar_is_string (const KmYamlNode *node)
{
  if (node->kind != KM_YAML_SCALAR)
    return FALSE;
  if (node->tag != NULL)
    return strcmp (node->tag, "tag:yaml.org,2002:str") == 0;
  return !is_plain_scalar (node);
}

/* [-+]? (digits (. digits*)? | . digits) ([eE] [-+]? digits)? */
static gboolean
is_decimal (const char *s)
{
  gboolean digits = FALSE;

  if (*s == '+' || *s == '-')
    s++;
  while (g_ascii_isdigit (*s))
    s++, digits = TRUE;
  if (*s == '.')
    {
      s++;
      while (g_ascii_isdigit (*s))
        s++, digits = TRUE;
    }
  if (!digits)
    return FALSE;
  if (*s == 'e' || *s == 'E')
    {
      s++;
      if (*s == '+' || *s == '-')
        s++;
      if (!g_ascii_isdigit (*s))
        return FALSE;
      while (g_ascii_isdigit (*s))
        s++;
    }
  return *s == '\0';
}

gboolean
km_yaml_scalar_to_double (const KmYamlNode *node,
                          double           *out)
{
  const char *s;
  const char *body;

  g_return_val_if_fail (out != NULL, FALSE);

  if (node == NULL ||
      !scalar_may_be (node, "tag:yaml.org,2002:float", "tag:yaml.org,2002:int"))
    return FALSE;
  s = node->value;
  if (strlen (s) != node->length)
    return FALSE;
  body = (*s == '+' || *s == '-') ? s + 1 : s;
  if (g_ascii_strcasecmp (body, ".inf") == 0)
    {
      *out = *s == '-' ? -INFINITY : INFINITY;
      return TRUE;
    }
  if (body == s && g_ascii_strcasecmp (s, ".nan") == 0)
    {
      *out = NAN;
      return TRUE;
    }
  if (body[0] == '0' && (body[1] == 'x' || body[1] == 'o') && body[2] != '\0')
    {
      guint64 v;

      if (!g_ascii_string_to_unsigned (body + 2, body[1] == 'x' ? 16 : 8, 0, G_MAXUINT64, &v,
                                       NULL))
        return FALSE;
      *out = (*s == '-' ? -1.0 : 1.0) * (double) v;
      return TRUE;
    }
  if (!is_decimal (s))
    return FALSE;
  *out = g_ascii_strtod (s, NULL);
  return TRUE;
}

gboolean
km_yaml_scalar_to_bool (const KmYamlNode *node,
                        gboolean         *out)
{
  static const char * const truths[] = { "true", "yes", "on" };
  static const char * const lies[] = { "false", "no", "off" };

  g_return_val_if_fail (out != NULL, FALSE);

  if (node == NULL || !scalar_may_be (node, "tag:yaml.org,2002:bool", NULL))
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (truths); i++)
    {
      if (g_ascii_strcasecmp (node->value, truths[i]) == 0)
        {
          *out = TRUE;
          return TRUE;
        }
      if (g_ascii_strcasecmp (node->value, lies[i]) == 0)
        {
          *out = FALSE;
          return TRUE;
        }
    }
  return FALSE;
}

static void
node_error (const KmYamlNode *node,
            GError          **error,
            const char       *message)
{
  km_parse_error_set (error, KM_PARSE_ERROR_INVALID, node->file, node->pos, "%s", message);
}

gboolean
km_yaml_expect_mapping (const KmYamlNode *node,
                        GError          **error)
{
  g_return_val_if_fail (node != NULL, FALSE);

  if (node->kind == KM_YAML_MAPPING)
    return TRUE;
  node_error (node, error, _("expected a mapping"));
  return FALSE;
}

gboolean
km_yaml_expect_sequence (const KmYamlNode *node,
                         GError          **error)
{
  g_return_val_if_fail (node != NULL, FALSE);

  if (node->kind == KM_YAML_SEQUENCE)
    return TRUE;
  node_error (node, error, _("expected a list"));
  return FALSE;
}

const char *
km_yaml_expect_string (const KmYamlNode *node,
                       GError          **error)
{
  g_return_val_if_fail (node != NULL, NULL);

  if (node->kind == KM_YAML_SCALAR && strlen (node->value) == node->length)
    return node->value;
  node_error (node, error, _("expected a string"));
  return NULL;
}

gboolean
km_yaml_expect_number (const KmYamlNode *node,
                       double           *out,
                       GError          **error)
{
  double v;

  g_return_val_if_fail (node != NULL, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);

  if (!km_yaml_scalar_to_double (node, &v) || !isfinite (v))
    {
      node_error (node, error, scalar_is_string (node)
                               ? _("expected a finite number, found a string")
                               : _("expected a finite number"));
      return FALSE;
    }
  *out = v;
  return TRUE;
}

gboolean
km_yaml_expect_int (const KmYamlNode *node,
                    gint64           *out,
                    GError          **error)
{
  gint64 v;

  g_return_val_if_fail (node != NULL, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);

  if (!scalar_may_be (node, "tag:yaml.org,2002:int", NULL) ||
      strlen (node->value) != node->length ||
      !g_ascii_string_to_signed (node->value, 10, G_MININT64, G_MAXINT64, &v, NULL))
    {
      node_error (node, error, scalar_is_string (node) ? _("expected an integer, found a string")
                                                       : _("expected an integer"));
      return FALSE;
    }
  *out = v;
  return TRUE;
}

gboolean
km_yaml_expect_bool (const KmYamlNode *node,
                     gboolean         *out,
                     GError          **error)
{
  g_return_val_if_fail (node != NULL, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);

  if (!km_yaml_scalar_to_bool (node, out))
    {
      node_error (node, error, _("expected true or false"));
      return FALSE;
    }
  return TRUE;
}

gboolean
km_yaml_expect_numbers (const KmYamlNode *node,
                        double           *out,
                        guint             n,
                        GError          **error)
{
  g_return_val_if_fail (node != NULL, FALSE);
  g_return_val_if_fail (out != NULL || n == 0, FALSE);

  if (node->kind != KM_YAML_SEQUENCE || node->items->len != n)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_INVALID, node->file, node->pos,
                          g_dngettext (GETTEXT_PACKAGE, "expected a list of %u number",
                                       "expected a list of %u numbers", n), n);
      return FALSE;
    }
  for (guint i = 0; i < n; i++)
    if (!km_yaml_expect_number (g_ptr_array_index (node->items, i), &out[i], error))
      return FALSE;
  return TRUE;
}

gboolean
km_yaml_expect_vec3 (const KmYamlNode *node,
                     KmVec3           *out,
                     GError          **error)
{
  double v[3];

  g_return_val_if_fail (node != NULL, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);

  if (!km_yaml_expect_numbers (node, v, 3, error))
    return FALSE;
  *out = km_vec3 (v[0], v[1], v[2]);
  return TRUE;
}

double *
km_yaml_expect_number_list (const KmYamlNode *node,
                            guint             max_length,
                            guint            *n_out,
                            GError          **error)
{
  g_autofree double *values = NULL;
  guint n;

  g_return_val_if_fail (node != NULL, NULL);
  g_return_val_if_fail (n_out != NULL, NULL);

  *n_out = 0;
  if (!km_yaml_expect_sequence (node, error))
    return NULL;
  n = node->items->len;
  if (n > max_length)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, node->file, node->pos,
                          _("expected at most %u numbers"), max_length);
      return NULL;
    }
  values = g_new0 (double, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    if (!km_yaml_expect_number (g_ptr_array_index (node->items, i), &values[i], error))
      return NULL;
  *n_out = n;
  return g_steal_pointer (&values);
}

KmYamlNode *
km_yaml_expect_key (const KmYamlNode *mapping,
                    const char       *key,
                    GError          **error)
{
  const char *keys[] = { key, NULL };

  g_return_val_if_fail (key != NULL, NULL);

  return km_yaml_expect_key_any (mapping, keys, error);
}

KmYamlNode *
km_yaml_expect_key_any (const KmYamlNode   *mapping,
                        const char * const *keys,
                        GError            **error)
{
  KmYamlNode *value;

  g_return_val_if_fail (mapping != NULL, NULL);
  g_return_val_if_fail (keys != NULL && keys[0] != NULL, NULL);

  if (!km_yaml_expect_mapping (mapping, error))
    return NULL;
  value = km_yaml_mapping_lookup_any (mapping, keys);
  if (value == NULL)
    km_parse_error_set (error, KM_PARSE_ERROR_INVALID, mapping->file, mapping->pos,
                        _("missing key “%s”"), keys[0]);
  return value;
}

/* ---------------------------------------------------------------------------------------- */
/* Writing */

/* The count of significant digits in a %g string: its digits without leading zeros, and
 * without the trailing zeros %g has already removed. */
static int
significant_digits (const char *text)
{
  int n = 0, zeros = 0;
  gboolean started = FALSE;

  for (const char *c = text; *c != '\0' && *c != 'e' && *c != 'E'; c++)
    {
      if (!g_ascii_isdigit (*c))
        continue;
      if (*c == '0' && !started)
        continue;
      started = TRUE;
      if (*c == '0')
        zeros++;
      else
        {
          n += zeros + 1;
          zeros = 0;
        }
    }
  return n;
}

void
km_yaml_format_number (double value,
                       char  *buffer,
                       gsize  buffer_size)
{
  char format[8];
  int precision;

  g_return_if_fail (buffer != NULL && buffer_size >= G_ASCII_DTOSTR_BUF_SIZE);

  if (isnan (value))
    {
      g_strlcpy (buffer, ".nan", buffer_size);
      return;
    }
  if (isinf (value))
    {
      g_strlcpy (buffer, value < 0 ? "-.inf" : ".inf", buffer_size);
      return;
    }
  /* The fewest significant digits that read back exactly, but at least six (printf's
   * default), so that "60" is not written "6e+01": exponents only from 1e+06 and below
   * 1e-04, as Choreonoid writes them. A double's 15 significant digits always read back
   * as what was written (DBL_DIG): when "%.15g" reads back, its digits are the fewest. */
  if (value != 0.0 && fabs (value) < DBL_MIN)
    {
      /* Subnormal: fewer digits are exact, so every precision is tried. */
      for (precision = 6; precision <= 17; precision++)
        {
          g_snprintf (format, sizeof format, "%%.%dg", precision);
          g_ascii_formatd (buffer, buffer_size, format, value);
          if (g_ascii_strtod (buffer, NULL) == value)
            return;
        }
      return;
    }
  g_ascii_formatd (buffer, buffer_size, "%.6g", value);
  if (g_ascii_strtod (buffer, NULL) == value)
    return;
  g_ascii_formatd (buffer, buffer_size, "%.15g", value);
  if (g_ascii_strtod (buffer, NULL) == value)
    precision = MAX (significant_digits (buffer), 6);
  else
    {
      g_ascii_formatd (buffer, buffer_size, "%.16g", value);
      if (g_ascii_strtod (buffer, NULL) == value)
        return;
      precision = 17;
    }
  if (precision == 15)
    return;
  g_snprintf (format, sizeof format, "%%.%dg", precision);
  g_ascii_formatd (buffer, buffer_size, format, value);
}

static void
indent_to (GString *out,
           guint    indent)
{
  for (guint i = 0; i < indent; i++)
    g_string_append_c (out, ' ');
}

/* libyaml takes an implicit key ("key: value") only on one line and within 1024
 * characters; a key whose text (tag included) is longer than this many bytes is written
 * as an explicit "? key" instead. */
#define MAX_IMPLICIT_KEY 1000

/* Does the code point @c read back as itself wherever it is written unescaped? It must be
 * printable for libyaml's reader and no line break (NEL, LS and PS fold or end a line like
 * "\n") or byte-order mark (dropped at the start, refused elsewhere). */
static gboolean
char_is_literal (gunichar c)
{
  if (c >= 0x20 && c <= 0x7E)
    return TRUE;
  if (c < 0xA0 || c == 0x2028 || c == 0x2029 || c == 0xFEFF)
    return FALSE;
  return c <= 0xD7FF || (c >= 0xE000 && c <= 0xFFFD) || (c >= 0x10000 && c <= 0x10FFFF);
}

/* Is @s valid UTF-8 of such characters only (no NUL, no control character)? */
static gboolean
text_is_literal (const char *s,
                 gsize       length)
{
  const char *end = s + length;

  while (s < end)
    {
      gunichar c = g_utf8_get_char_validated (s, end - s);

      if (c == (gunichar) -1 || c == (gunichar) -2 || !char_is_literal (c))
        return FALSE;
      s = g_utf8_next_char (s);
    }
  return TRUE;
}

/* Would @s read back as a string equal to itself when written plain? */
static gboolean
plain_is_safe (const char *s,
               gsize       length,
               gboolean    in_flow,
               gboolean    check_type)
{
  static const char indicators[] = "-?:,[]{}#&*!|>'\"%@`";
  static const char flow_indicators[] = ",[]{}";
  /* in flow context libyaml refuses a ':' followed by one of these inside a plain scalar */
  static const char after_colon[] = ",?[]{}";
  double d;
  gboolean b;

  if (length == 0 || !text_is_literal (s, length))
    return FALSE;
  if (strchr (indicators, s[0]) != NULL)
    {
      /* "-1" and "-x" are fine as plain scalars ("- " starts a list item); ":x" and "?x"
       * are too outside flow context, but kept simple: only '-' is allowed */
      if (s[0] != '-' || length == 1 || s[1] == ' ')
        return FALSE;
    }
  if (s[0] == ' ' || s[length - 1] == ' ' || s[length - 1] == ':')
    return FALSE;
  for (gsize i = 0; i < length; i++)
    {
      char c = s[i];

      /* (s[length - 1] is no ':', so s[i + 1] is a character of s here) */
      if (c == ':' && (s[i + 1] == ' ' || (in_flow && strchr (after_colon, s[i + 1]) != NULL)))
        return FALSE;
      if (c == '#' && i > 0 && s[i - 1] == ' ')
        return FALSE;
      if (in_flow && strchr (flow_indicators, c) != NULL)
        return FALSE;
    }
  if (length >= 3 && (memcmp (s, "---", 3) == 0 || memcmp (s, "...", 3) == 0))
    return FALSE;
  if (check_type)
    {
      KmYamlNode probe = { .kind = KM_YAML_SCALAR, .style = KM_YAML_STYLE_PLAIN,
                           .value = (char *) s, .length = length };

      if (km_yaml_scalar_to_double (&probe, &d) || km_yaml_scalar_to_bool (&probe, &b) ||
          g_ascii_strcasecmp (s, "null") == 0 || strcmp (s, "~") == 0)
        return FALSE;
    }
  return TRUE;
}

/* Any string, on one line: line breaks, control characters, a NUL, characters libyaml
 * would refuse or fold (NEL, LS, PS, U+FEFF, U+FFFE, …) are escaped. */
static void
write_double_quoted (GString    *out,
                     const char *s,
                     gsize       length)
{
  const char *end = s + length;

  g_string_append_c (out, '"');
  while (s < end)
    {
      guchar b = (guchar) *s;
      gunichar c;

      if (b < 0x80)
        {
          switch (b)
            {
            case '"':
              g_string_append (out, "\\\"");
              break;
            case '\\':
              g_string_append (out, "\\\\");
              break;
            case '\n':
              g_string_append (out, "\\n");
              break;
            case '\t':
              g_string_append (out, "\\t");
              break;
            case '\r':
              g_string_append (out, "\\r");
              break;
            case '\0':
              g_string_append (out, "\\0");
              break;
            default:
              if (b < 0x20 || b == 0x7F)
                g_string_append_printf (out, "\\x%02X", b);
              else
                g_string_append_c (out, (char) b);
            }
          s++;
          continue;
        }
      c = g_utf8_get_char_validated (s, end - s);
      if (c == (gunichar) -1 || c == (gunichar) -2)
        {
          /* Not UTF-8 (only a built node can hold that): the byte as a code point. */
          g_string_append_printf (out, "\\x%02X", b);
          s++;
          continue;
        }
      if (char_is_literal (c))
        g_string_append_len (out, s, g_utf8_next_char (s) - s);
      else if (c <= 0xFF)
        g_string_append_printf (out, "\\x%02X", (guint) c);
      else if (c <= 0xFFFF)
        g_string_append_printf (out, "\\u%04X", (guint) c);
      else
        g_string_append_printf (out, "\\U%08X", (guint) c);
      s = g_utf8_next_char (s);
    }
  g_string_append_c (out, '"');
}

/* Characters a tag shorthand ("!local", "!!str") may hold as they are: libyaml's URI
 * characters less '%' (an escape), '!' (would end a tag handle) and the flow indicators. */
static gboolean
tag_char_is_plain (char c)
{
  return g_ascii_isalnum (c) || (c != '\0' && strchr ("-_;/?:@&=+$.~*'()", c) != NULL);
}

static gboolean
tag_suffix_is_plain (const char *s)
{
  if (*s == '\0')
    return FALSE;
  for (; *s != '\0'; s++)
    if (!tag_char_is_plain (*s))
      return FALSE;
  return TRUE;
}

/* Writes "TAG " for a tagged node: "!" (the non-specific tag), "!!name", "!name", or else
 * verbatim "!<…>" with every other byte %-escaped (libyaml decodes those escapes). */
static void
write_tag (GString          *out,
           const KmYamlNode *node)
{
  static const char core[] = "tag:yaml.org,2002:";
  const char *tag = node->tag;

  if (tag == NULL)
    return;
  if (strcmp (tag, "!") == 0)
    g_string_append (out, "! ");
  else if (g_str_has_prefix (tag, core) && tag_suffix_is_plain (tag + strlen (core)))
    g_string_append_printf (out, "!!%s ", tag + strlen (core));
  else if (tag[0] == '!' && tag_suffix_is_plain (tag + 1))
    g_string_append_printf (out, "%s ", tag);
  else
    {
      g_string_append (out, "!<");
      for (const char *c = tag; *c != '\0'; c++)
        {
          if (tag_char_is_plain (*c) || strchr ("!,[]", *c) != NULL)
            g_string_append_c (out, *c);
          else
            g_string_append_printf (out, "%%%02X", (guchar) *c);
        }
      g_string_append (out, "> ");
    }
}

/* A scalar on one line, with its tag: plain where that reads back as the same string (and,
 * for KM_YAML_STYLE_ANY, not as a number, boolean or null), single-quoted where it was and
 * needs no escape, else double-quoted. */
static void
write_scalar (GString          *out,
              const KmYamlNode *node,
              gboolean          in_flow)
{
  const char *s = node->value;
  gsize n = node->length;

  write_tag (out, node);
  switch (node->style)
    {
    case KM_YAML_STYLE_PLAIN:
      if (plain_is_safe (s, n, in_flow, FALSE))
        {
          g_string_append_len (out, s, n);
          return;
        }
      break;
    case KM_YAML_STYLE_ANY:
      if (plain_is_safe (s, n, in_flow, node->tag == NULL))
        {
          g_string_append_len (out, s, n);
          return;
        }
      break;
    case KM_YAML_STYLE_SINGLE_QUOTED:
      if (text_is_literal (s, n))
        {
          g_string_append_c (out, '\'');
          for (gsize i = 0; i < n; i++)
            {
              if (s[i] == '\'')
                g_string_append_c (out, '\'');
              g_string_append_c (out, s[i]);
            }
          g_string_append_c (out, '\'');
          return;
        }
      break;
    case KM_YAML_STYLE_DOUBLE_QUOTED:
    case KM_YAML_STYLE_LITERAL:
    case KM_YAML_STYLE_FOLDED:
    case KM_YAML_STYLE_FLOW:
    case KM_YAML_STYLE_BLOCK:
    default:
      break;
    }
  write_double_quoted (out, s, n);
}

/* Can @node, a literal or folded scalar, be written as one (write_block_scalar)? Its text
 * must read back as itself there: characters written as they are (tabs and line breaks
 * too), something besides line breaks, and no blank first to set the indentation. */
static gboolean
block_scalar_fits (const KmYamlNode *node)
{
  const char *s = node->value, *end = node->value + node->length;
  gboolean first = TRUE;

  if (node->kind != KM_YAML_SCALAR
      || (node->style != KM_YAML_STYLE_LITERAL && node->style != KM_YAML_STYLE_FOLDED))
    return FALSE;
  while (s < end)
    {
      gunichar c = g_utf8_get_char_validated (s, end - s);

      if (c == (gunichar) -1 || c == (gunichar) -2)
        return FALSE;
      if (c != '\n' && c != '\t' && !char_is_literal (c))
        return FALSE;
      if (first && c != '\n')
        {
          if (c == ' ' || c == '\t')
            return FALSE;
          first = FALSE;
        }
      s = g_utf8_next_char (s);
    }
  return !first;
}

/* Writes " |" or " >" (with its tag and chomping indicator) and @node's lines at @indent
 * + 2, line breaks included: @node is block_scalar_fits. A folded scalar is written with
 * its lines as they are (folded back by an empty line between two that begin with no
 * blank), never folded at its spaces. */
static void
write_block_scalar (GString          *out,
                    const KmYamlNode *node,
                    guint             indent)
{
  gboolean folded = node->style == KM_YAML_STYLE_FOLDED;
  gsize content = node->length, trailing;
  const char *s = node->value, *end;
  gboolean previous = FALSE;   /* the last line written with text began with no blank */

  while (content > 0 && s[content - 1] == '\n')
    content--;
  trailing = node->length - content;
  g_string_append_c (out, ' ');
  write_tag (out, node);
  g_string_append_c (out, folded ? '>' : '|');
  if (trailing == 0)
    g_string_append_c (out, '-');
  else if (trailing > 1)
    g_string_append_c (out, '+');
  g_string_append_c (out, '\n');
  end = s + content;
  while (s <= end)
    {
      const char *nl = memchr (s, '\n', end - s);
      const char *line_end = nl != NULL ? nl : end;

      if (line_end > s)
        {
          gboolean blank = *s == ' ' || *s == '\t';

          if (folded && previous && !blank)
            g_string_append_c (out, '\n');
          indent_to (out, indent + 2);
          g_string_append_len (out, s, line_end - s);
          previous = !blank;
        }
      g_string_append_c (out, '\n');
      s = line_end + 1;
    }
  for (gsize i = 1; i < trailing; i++)
    g_string_append_c (out, '\n');
}

/* Can @key be written as an implicit key ("key: value", "{ key: value }")? Only a scalar
 * short enough; anything else needs an explicit "? key". */
static gboolean
key_is_implicit (const KmYamlNode *key)
{
  g_autoptr(GString) text = NULL;

  if (key->kind != KM_YAML_SCALAR)
    return FALSE;
  /* at most 4 bytes written for each byte of the value, 3 for each of the tag */
  if (key->length <= 128 && (key->tag == NULL || strlen (key->tag) <= 128))
    return TRUE;
  text = g_string_new (NULL);
  write_scalar (text, key, TRUE);
  return text->len <= MAX_IMPLICIT_KEY;
}

/* Can @node be written in flow style, every mapping key in it an implicit one? */
static gboolean
flow_is_simple (const KmYamlNode *node)
{
  g_autoptr(KmYamlNode) built = NULL;

  node = resolve (node, &built);
  if (node->kind == KM_YAML_SCALAR)
    return TRUE;
  for (guint i = 0; i < node->items->len; i++)
    {
      const KmYamlNode *item = g_ptr_array_index (node->items, i);
      gboolean is_key = node->kind == KM_YAML_MAPPING && i % 2 == 0;

      if (is_key ? !key_is_implicit (item) : !flow_is_simple (item))
        return FALSE;
    }
  return TRUE;
}

/* Is @node written as a block collection? Non-empty collections are, unless they are flow
 * style and can be written so (a flow collection with a complex or long key cannot). */
static gboolean
writes_as_block (const KmYamlNode *node)
{
  if (node->kind == KM_YAML_SCALAR || node->items->len == 0)
    return FALSE;
  return node->style != KM_YAML_STYLE_FLOW || !flow_is_simple (node);
}

/* Does @node, a flow sequence read from a text, hold scalars read on more than one line
 * of it, in order? Then write_source_rows writes them on lines as the text had them. */
static gboolean
has_source_rows (const KmYamlNode *node)
{
  guint n = node->items->len, line = node->pos.line;

  if (node->kind != KM_YAML_SEQUENCE || node->table != NULL || n == 0 || line == 0)
    return FALSE;
  for (guint i = 0; i < n; i++)
    {
      const KmYamlNode *item = g_ptr_array_index (node->items, i);

      if (item->kind != KM_YAML_SCALAR || item->file != node->file || item->pos.line < line)
        return FALSE;
      line = item->pos.line;
    }
  return line > node->pos.line;
}

/* The column (in characters) where @out's last line ends. */
static guint
current_column (GString *out)
{
  gsize start = out->len;

  while (start > 0 && out->str[start - 1] != '\n')
    start--;
  return (guint) g_utf8_strlen (out->str + start, (gssize) (out->len - start));
}

/* Writes the items of @node (has_source_rows) as many to a line as its text had. The
 * lines after the first begin at @indent + 2 where the first item began a line (as
 * Choreonoid breaks a list: "[" then rows), else under the first item ("[ 1, 0, 0,"). */
static void
write_source_rows (GString          *out,
                   const KmYamlNode *node,
                   guint             indent)
{
  const KmYamlNode *first = g_ptr_array_index (node->items, 0);
  guint column, line = first->pos.line;

  if (first->pos.line > node->pos.line)
    {
      g_string_append (out, (node->layout & LAYOUT_OPEN_SPACE) ? "[ \n" : "[\n");
      column = indent + 2;
      indent_to (out, column);
    }
  else
    {
      g_string_append (out, "[ ");
      column = current_column (out);
    }
  for (guint i = 0; i < node->items->len; i++)
    {
      const KmYamlNode *item = g_ptr_array_index (node->items, i);

      if (item->pos.line > line)
        {
          g_string_append (out, (node->layout & LAYOUT_COMMA_SPACE) ? ", \n" : ",\n");
          indent_to (out, column);
        }
      else if (i > 0)
        g_string_append (out, ", ");
      line = item->pos.line;
      write_scalar (out, item, TRUE);
    }
  g_string_append (out, " ]");
}

/* Writes @node in flow style; @node is a scalar, empty, or flow_is_simple. */
static void
write_flow (GString          *out,
            const KmYamlNode *node,
            guint             indent)
{
  g_autoptr(KmYamlNode) built = NULL;
  gboolean wrap;
  guint n;

  node = resolve (node, &built);
  if (node->kind == KM_YAML_SCALAR)
    {
      write_scalar (out, node, TRUE);
      return;
    }

  write_tag (out, node);
  n = node->items->len;
  if (n == 0)
    {
      g_string_append (out, node->kind == KM_YAML_SEQUENCE ? "[ ]" : "{ }");
      return;
    }

  if (node->kind == KM_YAML_MAPPING)
    {
      g_string_append (out, "{ ");
      for (guint i = 0; i < n; i += 2)
        {
          if (i > 0)
            g_string_append (out, ", ");
          write_scalar (out, g_ptr_array_index (node->items, i), TRUE);
          g_string_append (out, ": ");
          write_flow (out, g_ptr_array_index (node->items, i + 1), indent);
        }
      g_string_append (out, " }");
      return;
    }

  if (has_source_rows (node))
    {
      write_source_rows (out, node, indent);
      return;
    }

  /* Choreonoid wraps long lists of scalars ten to a line, beginning on a new line. */
  wrap = n > FLOW_WRAP;
  for (guint i = 0; wrap && i < n; i++)
    if (((KmYamlNode *) g_ptr_array_index (node->items, i))->kind != KM_YAML_SCALAR)
      wrap = FALSE;

  g_string_append (out, wrap ? "[" : "[ ");
  for (guint i = 0; i < n; i++)
    {
      if (wrap && i % FLOW_WRAP == 0)
        {
          if (i > 0)
            g_string_append_c (out, ',');
          g_string_append_c (out, '\n');
          indent_to (out, indent + 2);
        }
      else if (i > 0)
        g_string_append (out, ", ");
      write_flow (out, g_ptr_array_index (node->items, i), indent + 2);
    }
  g_string_append (out, " ]");
}

/* Where block output goes: @out, whose text, each time a block item is written, goes to
 * @sink (where there is one) when it has KM_FORMAT_SINK_BUFFER_SIZE bytes. Once a write
 * to @sink has failed (@failed), nothing more is made: the save fails anyway, and a
 * long one (a disk full under a million frames) would format its whole text for
 * nothing. */
typedef struct
{
  GString      *out;
  KmFormatSink *sink;
  gboolean      failed;
} Emitter;

/* Hands what @e->out holds to the sink once it is a buffer's worth (or, @all, whatever it
 * holds): at the end of a line, so that the writers' truncations stay in the buffer. */
static void
emitter_pass (Emitter  *e,
              gboolean  all)
{
  if (e->sink == NULL || e->out->len == 0
      || (!all && e->out->len < KM_FORMAT_SINK_BUFFER_SIZE))
    return;
  if (!km_format_sink_write (e->sink, e->out->str, (gssize) e->out->len))
    e->failed = TRUE;
  g_string_truncate (e->out, 0);
}

static void write_block (Emitter *e, const KmYamlNode *node, guint indent);
static void write_after_indicator (Emitter *e, const KmYamlNode *value, guint indent);

/* Is @node a generated sequence written as a block one, item by item (write_generated)? */
static gboolean
writes_generated (const KmYamlNode *node)
{
  return node->generate != NULL && node->n_generated > 0 && node->style != KM_YAML_STYLE_FLOW;
}

/* What write_block writes for the sequence build_generated makes of @node, with one item
 * built at a time and dropped once written: the whole list is never a tree at once. */
static void
write_generated (Emitter          *e,
                 const KmYamlNode *node,
                 guint             indent)
{
  GString *out = e->out;

  for (guint i = 0; i < node->n_generated && !e->failed; i++)
    {
      g_autoptr(KmYamlNode) item = node->generate (node->expand_data, i);

      indent_to (out, indent);
      g_string_append_c (out, '-');
      write_after_indicator (e, item, indent);
      emitter_pass (e, FALSE);
    }
}

/* Writes " value\n", "\n" for an empty plain value, or "\n" + the nested block after a
 * "key:", "-", "?" or ":" indicator at column @indent. */
static void
write_after_indicator (Emitter          *e,
                       const KmYamlNode *value,
                       guint             indent)
{
  g_autoptr(KmYamlNode) built = NULL;
  GString *out = e->out;

  if (writes_generated (value))
    {
      g_string_append_c (out, '\n');
      write_generated (e, value, indent + 2);
      return;
    }
  value = resolve (value, &built);
  if (writes_as_block (value))
    {
      if (value->tag != NULL)
        {
          g_string_append_c (out, ' ');
          write_tag (out, value);
          g_string_truncate (out, out->len - 1);
        }
      g_string_append_c (out, '\n');
      write_block (e, value, indent + 2);
      return;
    }
  if (value->kind == KM_YAML_SCALAR && value->length == 0 && value->tag == NULL &&
      value->style == KM_YAML_STYLE_PLAIN)
    {
      g_string_append_c (out, '\n');
      return;
    }
  if (block_scalar_fits (value))
    {
      write_block_scalar (out, value, indent);
      return;
    }
  g_string_append_c (out, ' ');
  if (value->kind == KM_YAML_SCALAR)
    write_scalar (out, value, FALSE);
  else
    write_flow (out, value, indent);
  g_string_append_c (out, '\n');
}

static void
write_block (Emitter          *e,
             const KmYamlNode *node,
             guint             indent)
{
  GString *out = e->out;

  g_assert (writes_as_block (node));

  if (node->kind == KM_YAML_MAPPING)
    {
      for (guint i = 0; i < node->items->len && !e->failed; i += 2)
        {
          const KmYamlNode *key = g_ptr_array_index (node->items, i);

          indent_to (out, indent);
          if (key_is_implicit (key) && !block_scalar_fits (key))
            write_scalar (out, key, TRUE);
          else
            {
              /* A collection, a long or a block scalar: "? key" (in block style when
               * it is one), then ": value" on a line of its own. */
              g_string_append_c (out, '?');
              write_after_indicator (e, key, indent);
              indent_to (out, indent);
            }
          g_string_append_c (out, ':');
          write_after_indicator (e, g_ptr_array_index (node->items, i + 1), indent);
          emitter_pass (e, FALSE);
        }
    }
  else
    {
      for (guint i = 0; i < node->items->len && !e->failed; i++)
        {
          indent_to (out, indent);
          g_string_append_c (out, '-');
          write_after_indicator (e, g_ptr_array_index (node->items, i), indent);
          emitter_pass (e, FALSE);
        }
    }
}

static void
emit (Emitter          *e,
      const KmYamlNode *root)
{
  g_autoptr(KmYamlNode) built = NULL;
  GString *out = e->out;

  if (writes_generated (root))
    {
      write_generated (e, root, 0);
      return;
    }
  root = resolve (root, &built);
  if (writes_as_block (root))
    {
      if (root->tag != NULL)
        {
          write_tag (out, root);
          g_string_truncate (out, out->len - 1);
          g_string_append_c (out, '\n');
        }
      write_block (e, root, 0);
    }
  else
    {
      /* (an empty scalar is written "", bare it would read back as no document) */
      write_flow (out, root, 0);
      g_string_append_c (out, '\n');
    }
}

void
km_yaml_emit (const KmYamlNode *root,
              GString          *out)
{
  Emitter e = { out, NULL, FALSE };

  g_return_if_fail (root != NULL);
  g_return_if_fail (out != NULL);

  emit (&e, root);
}

gboolean
km_yaml_emit_to_sink (const KmYamlNode *root,
                      KmFormatSink     *sink)
{
  g_autoptr(GString) out = NULL;
  Emitter e;

  g_return_val_if_fail (root != NULL, FALSE);
  g_return_val_if_fail (sink != NULL, FALSE);

  out = g_string_sized_new (KM_FORMAT_SINK_BUFFER_SIZE);
  e.out = out;
  e.sink = sink;
  e.failed = km_format_sink_failed (sink);
  if (!e.failed)
    emit (&e, root);
  emitter_pass (&e, TRUE);
  return !km_format_sink_failed (sink);
}

char *
km_yaml_emit_to_string (const KmYamlNode *root,
                        gsize            *length)
{
  GString *out;

  g_return_val_if_fail (root != NULL, NULL);

  out = g_string_new (NULL);
  km_yaml_emit (root, out);
  if (length != NULL)
    *length = out->len;
  return g_string_free (out, FALSE);
}
