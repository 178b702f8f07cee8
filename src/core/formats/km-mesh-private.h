/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <glib.h>

#include "km-error.h"
#include "km-math.h"
#include "km-shape.h"
#include "km-mesh-loader.h"

G_BEGIN_DECLS

/* A tokenizer shared by the text mesh readers (ASCII STL, OBJ, MTL, VRML). It keeps the
 * byte offset of the current line start, so a column (in characters) is computed only
 * when a message needs it. */
typedef struct
{
  const char *path;
  const char *text;
  gsize       length;
  gsize       pos;
  guint       line;         /* 1-based line of `pos`; lines end at LF, CRLF or a lone CR */
  gsize       line_start;   /* byte offset where that line starts */
  /* The token last returned by _km_lexer_next. */
  const char *tok;
  gsize       tok_len;
  guint       tok_line;
  gsize       tok_line_start;
  /* Characters that are tokens of their own ("{}[]" for VRML, "" elsewhere), and
   * whether a newline ends a statement (OBJ: _km_lexer_next stops at it). */
  const char *punct;
  char        comment;      /* '#' or 0 */
  gboolean    line_mode;
} KmLexer;

void         _km_lexer_init        (KmLexer     *lexer,
                                    const char  *path,
                                    const char  *text,
                                    gsize        length);
/* The next token; FALSE at the end (or, in line mode, at the end of the line). */
gboolean     _km_lexer_next        (KmLexer     *lexer);
/* Line mode: moves to the start of the next line; FALSE at the end of the text. */
gboolean     _km_lexer_next_line   (KmLexer     *lexer);
gboolean     _km_lexer_is          (KmLexer     *lexer,
                                    const char  *word);
KmSourcePos  _km_lexer_tok_pos     (KmLexer     *lexer);
/* The current token as a finite double; sets "expected a number" at it otherwise. */
gboolean     _km_lexer_number      (KmLexer     *lexer,
                                    double      *out,
                                    GError     **error);
/* Reads the next token and requires it to be a number. */
gboolean     _km_lexer_next_number (KmLexer     *lexer,
                                    double      *out,
                                    GError     **error);

/* Text that starts with a byte order mark: UTF-8 (the mark dropped) or UTF-16 LE/BE
 * (converted to UTF-8, so that lines and columns in characters stay those of the file).
 * Without a mark, returns TRUE and leaves *@data, *@length alone. Otherwise points them
 * at the text without the mark, *@owned (to free) holding a converted copy; FALSE with
 * "FILE:LINE:COLUMN: …" at the character where UTF-16 text stops converting. */
gboolean     _km_mesh_text_unmark  (const char   *path,
                                    const char  **data,
                                    gsize        *length,
                                    char        **owned,
                                    GError      **error);
/* The start of @data (its first @limit bytes) for a sniffer to look at: past a UTF-8 byte
 * order mark; text with a UTF-16 mark narrowed to a copy (*@owned, to free) in which each
 * character beyond ASCII is a '?'; else @data itself. Its length in *@sniff_length. */
const char  *_km_mesh_text_sniff   (const char   *data,
                                    gsize         length,
                                    gsize         limit,
                                    char        **owned,
                                    gsize        *sniff_length);

/* An affine map p ↦ lin · p + t: the nested transforms of VRML, COLLADA and .body scenes,
 * which may scale and shear. */
typedef struct
{
  KmMat3 lin;
  KmVec3 t;
} KmAffine;

void         _km_affine_identity   (KmAffine       *a);
/* Places @shape under @m: as its transform and scale, or, for a shear (which those cannot
 * hold), by baking @m into a copy of its mesh's vertices (the transform then identity).
 * *@n_baked (nullable: no bound) counts the vertices copied by one load; beyond
 * KM_MESH_MAX_VERTICES it fails with KM_PARSE_ERROR_LIMIT at @path:@pos. */
gboolean     _km_shape_place       (KmShape        *shape,
                                    const KmAffine *m,
                                    gsize          *n_baked,
                                    const char     *path,
                                    KmSourcePos     pos,
                                    GError        **error);
/* out = a ∘ b (b first); @out may be @a or @b. */
void         _km_affine_mul        (const KmAffine *a,
                                    const KmAffine *b,
                                    KmAffine       *out);

/*
 * The VRML97 node graph of km-mesh-vrml.c, for model readers built on it (km-openhrp.c).
 * A value is a run of numbers (TRUE/FALSE read as 1/0), strings (unescaped) or nodes;
 * nodes are owned by the document and shared by DEF/USE.
 */
typedef struct _KmVrmlNode KmVrmlNode;
typedef struct _KmVrmlDoc KmVrmlDoc;

typedef struct
{
  GArray     *numbers;   /* double, or NULL */
  GPtrArray  *strings;   /* char *, or NULL */
  GPtrArray  *nodes;     /* KmVrmlNode * (borrowed from the document), or NULL */
  KmSourcePos pos;       /* of the value's first token ("[" for a list) */
} KmVrmlValue;

struct _KmVrmlNode
{
  char       *type;
  char       *def;       /* the DEF name, or NULL */
  KmSourcePos def_pos;   /* of the DEF name */
  KmSourcePos pos;       /* of the type name */
  GHashTable *fields;    /* name → KmVrmlValue * */
  /* Private to km-mesh-vrml.c: */
  KmMesh     *mesh;
  gboolean    mesh_failed;
};

/* A PROTO or EXTERNPROTO declaration: its interface fields with their types and (PROTO
 * only, not eventIn/eventOut) default values. */
typedef struct
{
  char       *name;
  KmSourcePos pos;
  gboolean    external;
  GHashTable *types;     /* field name → type name ("SFVec3f", …) */
  GHashTable *defaults;  /* field name → KmVrmlValue * */
} KmVrmlProto;

/* Parses @data, keeping PROTO declarations and their instances (as ordinary nodes) and
 * Inline nodes; other unknown node types are skipped with one warning per type. @cache
 * (nullable, borrowed: it must outlive the document) loads Inline urls, relative to
 * @path's directory, in _km_vrml_doc_shapes. */
KmVrmlDoc         *_km_vrml_doc_parse      (const char       *path,
                                            const char       *data,
                                            gsize             length,
                                            KmMeshCache      *cache,
                                            GError          **error);
void               _km_vrml_doc_free       (KmVrmlDoc        *doc);
/* The top-level nodes, in file order (KmVrmlNode *). */
GPtrArray         *_km_vrml_doc_get_roots  (KmVrmlDoc        *doc);
const KmVrmlProto *_km_vrml_doc_get_proto  (KmVrmlDoc        *doc,
                                            const char       *name);
/* The node's value of @field, else its PROTO's default, else NULL. */
KmVrmlValue       *_km_vrml_doc_field      (KmVrmlDoc        *doc,
                                            KmVrmlNode       *node,
                                            const char       *field);
/* The shapes of a Shape / Transform / Group / Inline (…) subtree under @at, appended to
 * @shapes (KmShape *, owned). */
gboolean           _km_vrml_doc_shapes     (KmVrmlDoc        *doc,
                                            KmVrmlNode       *node,
                                            const KmAffine   *at,
                                            GPtrArray        *shapes,
                                            GError          **error);
/* A Transform node's own map T · C · R · S · -C (from its fields and their defaults). */
void               _km_vrml_transform_affine (KmVrmlNode     *node,
                                            KmAffine         *out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KmVrmlDoc, _km_vrml_doc_free)

G_END_DECLS
