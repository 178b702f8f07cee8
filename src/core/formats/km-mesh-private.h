/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <glib.h>

#include "km-error.h"
#include "km-math.h"

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
  guint       line;         /* 1-based line of `pos` */
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

/* An affine map p ↦ lin · p + t: the nested transforms of VRML, COLLADA and .body scenes,
 * which may scale and shear. */
typedef struct
{
  KmMat3 lin;
  KmVec3 t;
} KmAffine;

void         _km_affine_identity   (KmAffine       *a);
/* out = a ∘ b (b first); @out may be @a or @b. */
void         _km_affine_mul        (const KmAffine *a,
                                    const KmAffine *b,
                                    KmAffine       *out);

G_END_DECLS
