/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <glib-object.h>

#include "km-error.h"
#include "km-math.h"

G_BEGIN_DECLS

typedef struct _KmFormatSink KmFormatSink;   /* km-format.h */

/*
 * A YAML document as a tree of reference-counted nodes, read with libyaml's event API.
 *
 * Every parsed node keeps where it started (KmSourcePos: 1-based line and column in
 * characters) and the file it came from, so the typed helpers below report
 * "FILE:LINE:COLUMN: what was expected" through km_parse_error_set.
 *
 * Mappings keep their key order. Duplicate keys are a KM_PARSE_ERROR_INVALID error at the
 * second key. An alias is resolved by taking another reference to the anchored node (the
 * tree becomes a DAG), so a parsed tree must be treated as immutable; the total size the
 * document would have with every alias expanded is bounded (billion laughs), as are the
 * nesting depth and the number of nodes. A node built with the km_yaml_node_new_*
 * functions may be changed while the caller holds its only reference.
 *
 * km_yaml_emit writes a tree back in the style Choreonoid writes (see km-yaml.c): block
 * mappings, "-" on its own line before a mapping in a block sequence, flow sequences as
 * "[ 0, 0, 1 ]" (wrapped every ten values), scalars in the style they were read with
 * (new plain scalars are quoted when they would not read back as the same string).
 *
 * Round trip: for every tree km_yaml_parse returns, km_yaml_parse of km_yaml_emit's text
 * gives a tree km_yaml_node_equal to it (tests/fuzz/fuzz-yaml.c checks this). What the
 * tree keeps, and the emitter therefore writes: kinds, scalar values (any bytes, escaped
 * where needed), tags (as "!", "!!name", "!name" or verbatim "!<…>", whatever directive
 * or handle they were written with), key order, mapping keys of any kind. What it does not
 * keep, by design: comments, directives (%YAML, %TAG: tags are kept resolved), anchors
 * and aliases (an alias is written as a copy of its node), and the style of a scalar or
 * collection where another is needed to read back the same: a literal or folded scalar is
 * written double-quoted, a plain scalar that would not read back plain is quoted, a flow
 * collection with a mapping key that is no short scalar is written in block style, and
 * such a key as an explicit "? key".
 */

#define KM_TYPE_YAML_NODE (km_yaml_node_get_type ())

/* Defaults of KmYamlLimits (used for a NULL limits argument or a zero field). */
#define KM_YAML_DEFAULT_MAX_DEPTH    256
#define KM_YAML_DEFAULT_MAX_NODES    (4u * 1024u * 1024u)
#define KM_YAML_DEFAULT_MAX_EXPANDED (8u * 1024u * 1024u)
#define KM_YAML_DEFAULT_MAX_VALUES   (64u * 1024u * 1024u)

typedef enum
{
  KM_YAML_SCALAR,
  KM_YAML_SEQUENCE,
  KM_YAML_MAPPING,
} KmYamlKind;

typedef enum
{
  KM_YAML_STYLE_ANY,            /* let the emitter choose */
  KM_YAML_STYLE_PLAIN,
  KM_YAML_STYLE_SINGLE_QUOTED,
  KM_YAML_STYLE_DOUBLE_QUOTED,
  KM_YAML_STYLE_LITERAL,
  KM_YAML_STYLE_FOLDED,
  KM_YAML_STYLE_FLOW,           /* sequences and mappings */
  KM_YAML_STYLE_BLOCK,          /* sequences and mappings */
} KmYamlStyle;

typedef struct
{
  guint max_depth;     /* nesting of sequences and mappings, aliases expanded */
  gsize max_nodes;     /* nodes in the file (each event that makes a node or alias) */
  gsize max_expanded;  /* nodes of the document with every alias expanded */
  gsize max_values;    /* numbers and lists in the tables of km_yaml_parse_with_tables */
} KmYamlLimits;

/* The length km_yaml_table_get_length gives an item that is no list. */
#define KM_YAML_TABLE_NO_LIST G_MAXUINT

typedef struct _KmYamlNode KmYamlNode;

/* Builds the contents of a deferred node (see km_yaml_node_new_deferred): a new tree of
 * the node's kind (full transfer), from @data alone. */
typedef KmYamlNode *(*KmYamlExpandFunc) (gpointer data);
/* Builds item @index of a generated sequence (see km_yaml_node_new_generated): a new tree
 * (full transfer), from @data alone. */
typedef KmYamlNode *(*KmYamlItemFunc) (gpointer data,
                                       guint    index);

GType             km_yaml_node_get_type        (void) G_GNUC_CONST;

/* Parsing. @file is the path as given, used in messages. Exactly one document. */
KmYamlNode       *km_yaml_parse                (const char          *file,
                                                const char          *data,
                                                gsize                length,
                                                const KmYamlLimits  *limits,
                                                GError             **error);
KmYamlNode       *km_yaml_parse_file           (const char          *path,
                                                const KmYamlLimits  *limits,
                                                GError             **error);

/*
 * Tables: long lists of numbers (a motion's frames) read without a node for each number.
 *
 * km_yaml_parse_with_tables calls @func at each sequence that is the value of a mapping
 * key, with the mapping as read so far (its earlier pairs), the key and the nesting
 * depth of the mapping (1: the top level). When @func returns a depth d > 0, the sequence
 * becomes a table of d levels of lists (1: a list of numbers, 2: a list of lists of
 * numbers, …, at most KM_YAML_TABLE_MAX_DEPTH): one node in the tree, kept as the values
 * of its numbers in document order (8 bytes each) and, for each list in it, its length.
 * The node limit does not count what a table holds; its numbers and lists together are
 * bounded by KmYamlLimits.max_values instead (and the nesting by max_depth).
 *
 * An item at a list level that is not a sequence (a scalar, a mapping) is a list of
 * length KM_YAML_TABLE_NO_LIST; an item at the number level that is not a number as
 * km_yaml_scalar_to_double reads it (a string, a collection) is NaN. A caller that finds
 * such an item, or any other fault, builds the item as a tree with
 * km_yaml_table_get_item and checks that as it checks any node, for the message and the
 * location. A table cannot hold an anchor or an alias: when one does, the parse returns
 * NULL without an error and sets *@retry, and the caller parses without tables.
 *
 * Every accessor but km_yaml_table_* reads a table node as an empty sequence.
 */
#define KM_YAML_TABLE_MAX_DEPTH 4

typedef guint (*KmYamlTableFunc) (const KmYamlNode *mapping,
                                  const KmYamlNode *key,
                                  guint             depth,
                                  gpointer          user_data);

KmYamlNode       *km_yaml_parse_with_tables    (const char          *file,
                                                const char          *data,
                                                gsize                length,
                                                const KmYamlLimits  *limits,
                                                KmYamlTableFunc      func,
                                                gpointer             user_data,
                                                gboolean            *retry,
                                                GError             **error);
/* The table's depth, 0 for any other node. */
guint             km_yaml_table_get_depth      (const KmYamlNode    *node);
/* The length of list @index at @level (0: the table itself, index 0; 1: its items, …), or
 * KM_YAML_TABLE_NO_LIST. */
guint             km_yaml_table_get_length     (const KmYamlNode    *node,
                                                guint                level,
                                                gsize                index);
/* Where the items of list @index at @level begin: their index at @level + 1, or in the
 * values for the last level. */
gsize             km_yaml_table_get_first      (const KmYamlNode    *node,
                                                guint                level,
                                                gsize                index);
const double     *km_yaml_table_get_values     (const KmYamlNode    *node,
                                                gsize               *n_values);
/* Takes the values (free with g_free) and drops the rest: the node becomes an ordinary
 * empty sequence. For a node the caller holds the only reference to. */
double           *km_yaml_table_steal_values   (KmYamlNode          *node,
                                                gsize               *n_values);
/* Item @index of the table as a tree, read again from @data (the text the table was
 * parsed from), with the positions and tags of the file. */
KmYamlNode       *km_yaml_table_get_item       (const KmYamlNode    *node,
                                                const char          *data,
                                                gsize                length,
                                                guint                index,
                                                GError             **error);

/* Each item of @node's table as a tree, as km_yaml_table_get_item reads one, in one pass
 * over @data: @func gets the item (freed when it returns) and its index, and stops the
 * walk by returning FALSE with its error set. */
typedef gboolean (*KmYamlTableItemFunc) (const KmYamlNode *item,
                                         guint             index,
                                         gpointer          user_data,
                                         GError          **error);

gboolean          km_yaml_table_foreach_item   (const KmYamlNode    *node,
                                                const char          *data,
                                                gsize                length,
                                                KmYamlTableItemFunc  func,
                                                gpointer             user_data,
                                                GError             **error);

/* A cheap content check for sniffers: does @data look like a YAML block mapping whose
 * top level has @key? (Looks at the first lines only, does not parse.) */
gboolean          km_yaml_sniff_top_key        (const char          *data,
                                                gsize                length,
                                                const char          *key);

/* Nodes */
KmYamlNode       *km_yaml_node_ref             (KmYamlNode          *node);
void              km_yaml_node_unref           (KmYamlNode          *node);
KmYamlKind        km_yaml_node_get_kind        (const KmYamlNode    *node);
KmYamlStyle       km_yaml_node_get_style       (const KmYamlNode    *node);
void              km_yaml_node_set_style       (KmYamlNode          *node,
                                                KmYamlStyle          style);
KmSourcePos       km_yaml_node_get_pos         (const KmYamlNode    *node);
/* Where a parsed node lies in the text it was parsed from: the byte offset of its first
 * character (of its anchor or tag, when it has one) and one past its last; for a block
 * collection, the offset of the token that ends it (after any blank lines and comments
 * that follow it). An alias makes no node: the node it refers to lies at its anchor.
 * FALSE (and offsets 0) for a built node; a copy keeps the span of what it copies. */
gboolean          km_yaml_node_get_span        (const KmYamlNode    *node,
                                                gsize               *start,
                                                gsize               *end);
/* The interned path the node was parsed from; "" for built nodes. */
const char       *km_yaml_node_get_file        (const KmYamlNode    *node);
/* The explicit tag ("tag:yaml.org,2002:str", "!local"), or NULL. */
const char       *km_yaml_node_get_tag         (const KmYamlNode    *node);
/* A scalar's value (NUL-terminated; may contain NULs, see @length), else NULL. */
const char       *km_yaml_node_get_scalar      (const KmYamlNode    *node,
                                                gsize               *length);
/* Items of a sequence, pairs of a mapping, 0 for a scalar. */
guint             km_yaml_node_get_length      (const KmYamlNode    *node);
/* Nodes of the document with every alias expanded (1 for a scalar). */
gsize             km_yaml_node_get_weight      (const KmYamlNode    *node);
KmYamlNode       *km_yaml_sequence_get         (const KmYamlNode    *node,
                                                guint                index);
KmYamlNode       *km_yaml_mapping_get_key      (const KmYamlNode    *node,
                                                guint                index);
KmYamlNode       *km_yaml_mapping_get_value    (const KmYamlNode    *node,
                                                guint                index);
/* The value of the first scalar key equal to @key, else of the mappings merged in with
 * the merge key `<<` (in order), or NULL (also when @node is no mapping). */
KmYamlNode       *km_yaml_mapping_lookup       (const KmYamlNode    *node,
                                                const char          *key);
/* Like km_yaml_mapping_lookup, trying each key of the NULL-terminated list in turn (for
 * the snake_case and older camelCase spellings of one key). */
KmYamlNode       *km_yaml_mapping_lookup_any   (const KmYamlNode    *node,
                                                const char * const  *keys);
/* The key of @keys that km_yaml_mapping_lookup_any() finds, else the first of them (the
 * spelling a message about the missing value names). */
const char       *km_yaml_mapping_key_any      (const KmYamlNode    *node,
                                                const char * const  *keys);
/* Structural equality: kinds, scalar values, tags, key order and values. Styles and
 * positions are ignored. */
gboolean          km_yaml_node_equal           (const KmYamlNode    *a,
                                                const KmYamlNode    *b);
/* A deep copy that the caller may change (positions and styles kept). */
KmYamlNode       *km_yaml_node_copy            (const KmYamlNode    *node);

/* Building (transfer full for the node arguments) */
KmYamlNode       *km_yaml_node_new_scalar      (const char          *value,
                                                KmYamlStyle          style);
KmYamlNode       *km_yaml_node_new_string      (const char          *value);
KmYamlNode       *km_yaml_node_new_number      (double               value);
KmYamlNode       *km_yaml_node_new_int         (gint64               value);
KmYamlNode       *km_yaml_node_new_bool        (gboolean             value);
KmYamlNode       *km_yaml_node_new_sequence    (KmYamlStyle          style);
KmYamlNode       *km_yaml_node_new_mapping     (KmYamlStyle          style);
KmYamlNode       *km_yaml_node_new_numbers     (const double        *values,
                                                guint                n_values);
/* A sequence or mapping whose contents @expand builds from @data when the node is
 * written (km_yaml_emit), each time it is: how a tree made on one thread leaves the bulk
 * of its building to the thread that writes it (a project save builds the tree on the
 * main thread and writes it on a worker). @data is freed with @destroy when the node is,
 * and both @expand and @destroy may run on any thread, so @data must be a value no one
 * changes (a copy). Only km_yaml_emit, km_yaml_node_equal and km_yaml_node_copy (which
 * returns the built tree's copy) see the contents; every other accessor reads the node
 * as an empty collection, and it cannot be appended to. */
KmYamlNode       *km_yaml_node_new_deferred    (KmYamlKind           kind,
                                                KmYamlExpandFunc     expand,
                                                gpointer             data,
                                                GDestroyNotify       destroy);
/* A deferred block sequence of @n_items items that @item builds from @data one at a time:
 * km_yaml_emit builds each item as it writes it and drops it before the next, so that a
 * long list (an animation's frames) never is a tree in memory. The text is what the
 * sequence of all the items would be written as. Otherwise as km_yaml_node_new_deferred
 * (km_yaml_node_equal and km_yaml_node_copy build every item, as does km_yaml_emit where
 * the node is written in flow style). */
KmYamlNode       *km_yaml_node_new_generated   (guint                n_items,
                                                KmYamlItemFunc       item,
                                                gpointer             data,
                                                GDestroyNotify       destroy);
/* TRUE for the nodes of km_yaml_node_new_deferred and km_yaml_node_new_generated. */
gboolean          km_yaml_node_is_deferred     (const KmYamlNode    *node);
void              km_yaml_sequence_append      (KmYamlNode          *sequence,
                                                KmYamlNode          *item);
void              km_yaml_mapping_append       (KmYamlNode          *mapping,
                                                const char          *key,
                                                KmYamlNode          *value);
/* The same with a key node (transfer full), e.g. one copied from a parsed mapping. */
void              km_yaml_mapping_append_node  (KmYamlNode          *mapping,
                                                KmYamlNode          *key,
                                                KmYamlNode          *value);
/* Appends every pair of @from (nullable) whose key is not in @skip, keys kept with their
 * style: how an item writes back the keys it does not interpret. */
void              km_yaml_mapping_append_except (KmYamlNode         *mapping,
                                                const KmYamlNode    *from,
                                                const char * const  *skip);
/* Replaces the value of @key in place, or appends the pair. */
void              km_yaml_mapping_set          (KmYamlNode          *mapping,
                                                const char          *key,
                                                KmYamlNode          *value);
gboolean          km_yaml_mapping_remove       (KmYamlNode          *mapping,
                                                const char          *key);

/* Typed access. Each sets a KM_PARSE_ERROR_INVALID error "FILE:LINE:COLUMN: expected …" at
 * @node's first character. Numbers are plain scalars (untagged, !!int or !!float) and
 * scalars of any style tagged !!int or !!float (YAML's core schema: the tag decides); the
 * expect_ helpers refuse infinities and NaN. Booleans accept true/false, yes/no, on/off in
 * any case. Use km_yaml_expect_key for a key that must be there. */
gboolean          km_yaml_expect_mapping       (const KmYamlNode    *node,
                                                GError             **error);
gboolean          km_yaml_expect_sequence      (const KmYamlNode    *node,
                                                GError             **error);
const char       *km_yaml_expect_string        (const KmYamlNode    *node,
                                                GError             **error);
gboolean          km_yaml_expect_number        (const KmYamlNode    *node,
                                                double              *out,
                                                GError             **error);
gboolean          km_yaml_expect_int           (const KmYamlNode    *node,
                                                gint64              *out,
                                                GError             **error);
gboolean          km_yaml_expect_bool          (const KmYamlNode    *node,
                                                gboolean            *out,
                                                GError             **error);
/* A sequence of exactly @n numbers. */
gboolean          km_yaml_expect_numbers       (const KmYamlNode    *node,
                                                double              *out,
                                                guint                n,
                                                GError             **error);
gboolean          km_yaml_expect_vec3          (const KmYamlNode    *node,
                                                KmVec3              *out,
                                                GError             **error);
/* A sequence of numbers of any length up to @max_length (newly allocated, *n_out set). */
double           *km_yaml_expect_number_list   (const KmYamlNode    *node,
                                                guint                max_length,
                                                guint               *n_out,
                                                GError             **error);
/* The value of @key in @mapping, or an error "missing key “KEY”" at @mapping. */
KmYamlNode       *km_yaml_expect_key           (const KmYamlNode    *mapping,
                                                const char          *key,
                                                GError             **error);
/* Like km_yaml_expect_key, trying each key of the NULL-terminated @keys in turn (the
 * snake_case and camelCase spellings of one key); the message names the first. */
KmYamlNode       *km_yaml_expect_key_any       (const KmYamlNode    *mapping,
                                                const char * const  *keys,
                                                GError             **error);
/* Non-failing conversions of a scalar (FALSE when it is not one). */
gboolean          km_yaml_scalar_to_double     (const KmYamlNode    *node,
                                                double              *out);
gboolean          km_yaml_scalar_to_bool       (const KmYamlNode    *node,
                                                gboolean            *out);

/* Writing */
void              km_yaml_emit                 (const KmYamlNode    *root,
                                                GString             *out);
char             *km_yaml_emit_to_string       (const KmYamlNode    *root,
                                                gsize               *length);
/* km_yaml_emit() to @sink (km_format_save_stream()), in pieces of about a buffer's size:
 * the text is never held whole. FALSE when a write to the sink has failed: the emit
 * stops there (no more of the text is made, no more generated items built). */
gboolean          km_yaml_emit_to_sink         (const KmYamlNode    *root,
                                                KmFormatSink        *sink);
/* The shortest decimal text that reads back as exactly @value ("0", "4.50001", "1e-09"). */
void              km_yaml_format_number        (double               value,
                                                char                *buffer,
                                                gsize                buffer_size);

/* The nodes alive in the process now and the most that were at once since the start or
 * the last km_yaml_node_reset_peak (how tests check what building or writing a tree
 * holds at once). Either may be NULL. */
void              km_yaml_node_get_counts      (guint               *live,
                                                guint               *peak);
void              km_yaml_node_reset_peak      (void);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KmYamlNode, km_yaml_node_unref)

G_END_DECLS
