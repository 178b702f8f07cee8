/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <glib.h>

#include "km-error.h"

G_BEGIN_DECLS

/*
 * The text of an XML document that a GMarkup reader (URDF, COLLADA, Scenebuilder) parses,
 * for exact positions: GMarkup reports where it is only roughly (somewhere after a start
 * tag), so the reader finds each start tag in the text itself and points its errors at
 * the offending value. Offsets are bytes into the text; positions are 1-based lines and
 * columns in characters.
 */
typedef struct
{
  const char *text;
  gsize       length;
  /* gsize byte offsets of each line's first character: a line ends at LF, CRLF or a lone
   * CR (old Mac files), as XML ends lines; the lines of the positions reported. */
  GArray     *line_starts;
  /* The same for lines that end at LF only, as GMarkup counts them (a lone CR is a column
   * to it), to map its positions: line_starts itself when the text has no lone CR. */
  GArray     *gmarkup_line_starts;
  gsize       cursor;        /* where the next start tag is looked for */
  /* gsize: the characters before each KM_MARKUP_TEXT_BLOCK-byte block, so that a column
   * costs one block's count whatever the line's length (XML written on one line). */
  GArray     *block_chars;
} KmMarkupText;

#define KM_MARKUP_TEXT_BLOCK 256

void         km_markup_text_init           (KmMarkupText       *self,
                                            const char         *text,
                                            gsize               length);
void         km_markup_text_clear          (KmMarkupText       *self);
KmSourcePos  km_markup_text_pos            (const KmMarkupText *self,
                                            gsize               offset);
KmSourcePos  km_markup_text_gmarkup_pos    (const KmMarkupText *self,
                                            GMarkupParseContext *context);
char        *km_markup_text_gmarkup_message (const char         *message);
char        *km_markup_text_explain_gmarkup_error (const KmMarkupText  *self,
                                                   GMarkupParseContext *context,
                                                   const GError        *gmarkup_error,
                                                   KmSourcePos         *pos);
gsize        km_markup_text_next_start_tag (KmMarkupText       *self);
gsize        km_markup_text_start_element  (KmMarkupText       *self,
                                            const char         *path,
                                            const char * const *attribute_names,
                                            GError            **error);
KmSourcePos  km_markup_text_attr_pos       (const KmMarkupText *self,
                                            gsize               tag,
                                            const char         *name);
gsize        km_markup_text_value_offset   (const KmMarkupText *self,
                                            gsize               value,
                                            gsize               offset);

char        *km_markup_text_dup_utf8       (const char         *path,
                                            const char         *data,
                                            gsize               length,
                                            GError            **error);
gboolean     km_markup_text_parse          (const KmMarkupText *self,
                                            const char         *path,
                                            GMarkupParseContext *context,
                                            GError            **error);

gsize        km_markup_text_skip_doctype   (const char         *text,
                                            gsize               length,
                                            gsize               offset,
                                            gsize              *subset,
                                            gsize              *declaration);
gboolean     km_markup_text_check_prolog   (const KmMarkupText *self,
                                            const char         *path,
                                            GError            **error);

G_END_DECLS
