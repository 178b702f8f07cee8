/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <glib.h>

#include "km-error.h"
#include "km-math.h"

G_BEGIN_DECLS

/*
 * A strict RFC 8259 JSON reader that keeps source positions, and a pretty-printing writer.
 * Every JSON format of Kinema (skeleton, targets, animation) reads through this, because
 * json-glib keeps no positions and accepts what the formats must reject (DESIGN.md,
 * "Known library traps").
 *
 * Reader rules: no comments, no trailing commas, no NaN/Infinity, a number that overflows
 * a double (1e400) is an error, duplicate object keys are an error, an empty or
 * whitespace-only file is an error, one leading UTF-8 BOM is skipped, invalid UTF-8 is an
 * error. Nesting is bounded (KM_JSON_MAX_DEPTH) by an explicit stack, never recursion;
 * input size and node count are bounded too. Every error is a KM_PARSE_ERROR
 * "FILE:LINE:COLUMN: expected …" at the offending character.
 *
 * Positions: 1-based line and column of the first character of a value (or of a key's
 * opening quote); the column counts characters, not bytes. "\r\n", "\n" and a lone "\r"
 * each end a line.
 *
 * All numbers in a parsed document are finite. A number is "integer" when its value is
 * integral and fits in a gint64 (so 3, 3.0 and 3e0 are integers, 3.5 is not).
 */

#define KM_JSON_MAX_DEPTH 512
#define KM_JSON_MAX_SIZE  ((gsize) 256 * 1024 * 1024)
#define KM_JSON_MAX_NODES (16u * 1024 * 1024)

typedef enum
{
  KM_JSON_NULL,
  KM_JSON_BOOLEAN,
  KM_JSON_NUMBER,
  KM_JSON_STRING,
  KM_JSON_ARRAY,
  KM_JSON_OBJECT,
} KmJsonType;

typedef struct _KmJsonDocument KmJsonDocument;
typedef struct _KmJsonNode     KmJsonNode;
typedef struct _KmJsonWriter   KmJsonWriter;

/* Reader. The document owns every node; nodes stay valid until km_json_document_free. */
KmJsonDocument    *km_json_parse                  (const char            *path,
                                                   const char            *data,
                                                   gsize                  length,
                                                   GError               **error);
/*
 * The same, calling @func with each element of a top-level array as soon as it is read
 * (@index from 0), before the rest of the file is: @func returning FALSE, with @error
 * set, stops the parse with that error. A reader bounds a long list this way at the
 * first element too many, without building the whole file first.
 */
typedef gboolean (*KmJsonElementFunc)             (const KmJsonNode      *element,
                                                   guint                  index,
                                                   gpointer               user_data,
                                                   GError               **error);
KmJsonDocument    *km_json_parse_with_elements    (const char            *path,
                                                   const char            *data,
                                                   gsize                  length,
                                                   KmJsonElementFunc      func,
                                                   gpointer               user_data,
                                                   GError               **error);
void               km_json_document_free          (KmJsonDocument        *doc);
const char        *km_json_document_get_path      (const KmJsonDocument  *doc);
const KmJsonNode  *km_json_document_get_root      (const KmJsonDocument  *doc);

KmJsonType         km_json_node_type              (const KmJsonNode      *node);
KmSourcePos        km_json_node_get_pos           (const KmJsonNode      *node);
/* The member name when @node is the value of an object member, else NULL. */
const char        *km_json_node_get_key           (const KmJsonNode      *node);
gboolean           km_json_node_get_boolean       (const KmJsonNode      *node);
double             km_json_node_get_number        (const KmJsonNode      *node);
gboolean           km_json_node_is_integer        (const KmJsonNode      *node);
gint64             km_json_node_get_int           (const KmJsonNode      *node);
/* NUL-terminated UTF-8; @length (optional) counts bytes (a "\u0000" escape is kept). */
const char        *km_json_node_get_string        (const KmJsonNode      *node,
                                                   gsize                 *length);
/* Elements of an array or members of an object; 0 for scalars. */
guint              km_json_node_get_length        (const KmJsonNode      *node);
const KmJsonNode  *km_json_node_get_element       (const KmJsonNode      *node,
                                                   guint                  index);
/* NULL when @node is not an object or has no such member. */
const KmJsonNode  *km_json_node_get_member        (const KmJsonNode      *node,
                                                   const char            *name);
const char        *km_json_node_get_member_name   (const KmJsonNode      *node,
                                                   guint                  index);
/* In bytes: a name may hold a "\u0000" escape, kept as a NUL. */
gsize              km_json_node_get_member_name_length (const KmJsonNode *node,
                                                   guint                  index);
KmSourcePos        km_json_node_get_member_pos    (const KmJsonNode      *node,
                                                   guint                  index);
const KmJsonNode  *km_json_node_get_member_value  (const KmJsonNode      *node,
                                                   guint                  index);

/* "an object", "a number", … (translated), for messages. */
const char        *km_json_type_describe          (KmJsonType             type);

/*
 * Typed "expect" helpers shared by every JSON reader. Each returns FALSE and sets a
 * KM_PARSE_ERROR "FILE:LINE:COLUMN: expected …" at the offending value (naming the member
 * when the value is one), so a reader is a sequence of these calls.
 */
void               km_json_error_at               (const KmJsonDocument  *doc,
                                                   const KmJsonNode      *node,
                                                   KmParseError           code,
                                                   GError               **error,
                                                   const char            *format,
                                                   ...) G_GNUC_PRINTF (5, 6);
gboolean           km_json_expect_object          (const KmJsonDocument  *doc,
                                                   const KmJsonNode      *node,
                                                   GError               **error);
/* An array with min_length ≤ length ≤ max_length (G_MAXUINT = no upper bound). */
gboolean           km_json_expect_array           (const KmJsonDocument  *doc,
                                                   const KmJsonNode      *node,
                                                   guint                  min_length,
                                                   guint                  max_length,
                                                   GError               **error);
/*
 * Looks up member @name of @object (which must be an object). Absent and not required:
 * returns TRUE with *out = NULL. Absent and required: error at the object's opening
 * brace naming the member.
 */
gboolean           km_json_expect_member          (const KmJsonDocument  *doc,
                                                   const KmJsonNode      *object,
                                                   const char            *name,
                                                   gboolean               required,
                                                   const KmJsonNode     **out,
                                                   GError               **error);
/* A string without NUL characters; *out is borrowed from the document. */
gboolean           km_json_expect_string          (const KmJsonDocument  *doc,
                                                   const KmJsonNode      *node,
                                                   const char           **out,
                                                   GError               **error);
gboolean           km_json_expect_boolean         (const KmJsonDocument  *doc,
                                                   const KmJsonNode      *node,
                                                   gboolean              *out,
                                                   GError               **error);
/* A (always finite) number. */
gboolean           km_json_expect_number          (const KmJsonDocument  *doc,
                                                   const KmJsonNode      *node,
                                                   double                *out,
                                                   GError               **error);
/* An integer in [min, max]; km_json_expect_int (doc, n, 0, G_MAXINT64, …) = non-negative. */
gboolean           km_json_expect_int             (const KmJsonDocument  *doc,
                                                   const KmJsonNode      *node,
                                                   gint64                 min,
                                                   gint64                 max,
                                                   gint64                *out,
                                                   GError               **error);
/* An array of exactly @n numbers. */
gboolean           km_json_expect_numbers         (const KmJsonDocument  *doc,
                                                   const KmJsonNode      *node,
                                                   guint                  n,
                                                   double                *out,
                                                   GError               **error);
gboolean           km_json_expect_vec3            (const KmJsonDocument  *doc,
                                                   const KmJsonNode      *node,
                                                   KmVec3                *out,
                                                   GError               **error);
/* [w, x, y, z], not all zero; normalised on return. */
gboolean           km_json_expect_quat            (const KmJsonDocument  *doc,
                                                   const KmJsonNode      *node,
                                                   KmQuat                *out,
                                                   GError               **error);

/*
 * Reports every member of @object whose name is not in the NULL-terminated @known list
 * as a non-fatal warning "FILE:LINE:COLUMN: unknown key “x” ignored" through
 * km_parse_warning (km-error.h), so a CLI prints it and a GUI shows it in its message
 * view. Returns the number of unknown keys.
 */
guint              km_json_warn_unknown_keys      (const KmJsonDocument  *doc,
                                                   const KmJsonNode      *object,
                                                   const char * const    *known);

/*
 * Cheap content sniffing for KmFormat.sniff (no full parse): the first significant
 * character after an optional BOM and whitespace ('{', '[', …, 0 when there is none),
 * and whether a key named @key appears at nesting depth @depth (1 = members of the
 * outermost object; 2 = members of objects inside the outermost array or object) within
 * the first 64 KiB.
 */
char               km_json_sniff_first_char       (const char            *data,
                                                   gsize                  length);
gboolean           km_json_sniff_has_key          (const char            *data,
                                                   gsize                  length,
                                                   const char            *key,
                                                   guint                  depth);

/*
 * Writer: pretty printed with a 2-space indent; an "inline" array is written on one line
 * (its nested arrays too), e.g. "offset": [0, 1.5, 0]. Numbers are written in the C locale
 * with the fewest digits that read back to the same double; a non-finite number is
 * written as null. Strings are escaped as RFC 8259 requires. The text ends with a newline.
 */
KmJsonWriter      *km_json_writer_new             (void);
void               km_json_writer_free            (KmJsonWriter          *self);
void               km_json_writer_begin_object    (KmJsonWriter          *self);
void               km_json_writer_end_object      (KmJsonWriter          *self);
void               km_json_writer_begin_array     (KmJsonWriter          *self);
void               km_json_writer_begin_inline_array (KmJsonWriter       *self);
void               km_json_writer_end_array       (KmJsonWriter          *self);
/* Inside an object: the next value's key. */
void               km_json_writer_key             (KmJsonWriter          *self,
                                                   const char            *key);
void               km_json_writer_string          (KmJsonWriter          *self,
                                                   const char            *value);
/* The same for a key or string of @length bytes (-1: NUL-terminated) that may hold NULs,
 * as km_json_node_get_string() gives them (each written "\u0000"). */
void               km_json_writer_key_len         (KmJsonWriter          *self,
                                                   const char            *key,
                                                   gssize                 length);
void               km_json_writer_string_len      (KmJsonWriter          *self,
                                                   const char            *value,
                                                   gssize                 length);
void               km_json_writer_number          (KmJsonWriter          *self,
                                                   double                 value);
void               km_json_writer_int             (KmJsonWriter          *self,
                                                   gint64                 value);
void               km_json_writer_boolean         (KmJsonWriter          *self,
                                                   gboolean               value);
void               km_json_writer_null            (KmJsonWriter          *self);
/* Inline arrays of numbers: [x, y, z] and [w, x, y, z]. */
void               km_json_writer_vec3            (KmJsonWriter          *self,
                                                   KmVec3                 value);
void               km_json_writer_quat            (KmJsonWriter          *self,
                                                   KmQuat                 value);
/* A parsed value written as it is (a value kept from a file Kinema writes again). */
void               km_json_writer_node            (KmJsonWriter          *self,
                                                   const KmJsonNode      *value);
/* The text written so far (complete once the outermost value is closed). */
const char        *km_json_writer_get_text        (KmJsonWriter          *self,
                                                   gsize                 *length);
/* Frees the writer and returns its text. */
char              *km_json_writer_free_to_string  (KmJsonWriter          *self);
/* The shortest "%.15g"…"%.17g" C-locale text that reads back as @value (a finite number);
 * @buf holds G_ASCII_DTOSTR_BUF_SIZE bytes. Returns @buf. */
const char        *km_json_format_number          (char                  *buf,
                                                   double                 value);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KmJsonDocument, km_json_document_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (KmJsonWriter, km_json_writer_free)

G_END_DECLS
