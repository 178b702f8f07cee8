/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <string.h>
#include <glib.h>

#include "km-markup-text.h"

/* What km_markup_text_pos must give: lines and columns counted from the start. */
static KmSourcePos
naive_pos (const char *text,
           gsize       offset)
{
  KmSourcePos pos = { 1, 1 };

  for (const char *p = text; p < text + offset; p = g_utf8_next_char (p))
    {
      if (*p == '\n')
        pos.line++, pos.column = 1;
      else
        pos.column++;
    }
  return pos;
}

static void
assert_pos (KmMarkupText *markup,
            gsize         offset)
{
  KmSourcePos want = naive_pos (markup->text, offset);
  KmSourcePos got = km_markup_text_pos (markup, offset);

  g_assert_cmpuint (got.line, ==, want.line);
  g_assert_cmpuint (got.column, ==, want.column);
}

/* Positions of character starts, asked in order, backwards, repeated and at random, on
 * lines with multi-byte characters and on one line much longer than the blocks whose
 * character counts are kept, across the blocks' edges. */
static void
test_positions (void)
{
  g_autoptr(GString) text = g_string_new ("<robot name=\"ä\">\n  <link name=\"腕\"/>\r\n");
  g_autoptr(GArray) starts = g_array_new (FALSE, FALSE, sizeof (gsize));
  g_autoptr(GRand) rand = g_rand_new_with_seed (7);
  KmMarkupText markup;

  for (guint i = 0; i < 300; i++)
    g_string_append_printf (text, "<link name=\"l%u-é\"/>", i);
  g_string_append (text, "\n</robot>\n");
  for (const char *p = text->str; *p != '\0'; p = g_utf8_next_char (p))
    {
      gsize offset = (gsize) (p - text->str);

      g_array_append_val (starts, offset);
    }

  km_markup_text_init (&markup, text->str, text->len);
  for (guint i = 0; i < starts->len; i++)
    assert_pos (&markup, g_array_index (starts, gsize, i));
  for (guint i = starts->len; i-- > 0;)
    assert_pos (&markup, g_array_index (starts, gsize, i));
  for (guint i = 0; i < 5000; i++)
    {
      gsize offset = g_array_index (starts, gsize, g_rand_int_range (rand, 0, (gint32) starts->len));

      assert_pos (&markup, offset);
      assert_pos (&markup, offset);
    }
  /* Past the end: clamped. */
  assert_pos (&markup, text->len);
  g_assert_cmpuint (km_markup_text_pos (&markup, text->len + 10).line, ==,
                    naive_pos (text->str, text->len).line);
  km_markup_text_clear (&markup);
}

/* km_markup_text_parse() on XML that is not well-formed: an end tag that closes another
 * element than the open one says which end tag was expected, at the end tag's '<' (not
 * where GMarkup stopped, its '>'), in characters; other GMarkup errors stay "expected
 * well-formed XML: …" where GMarkup stopped. */
static void
test_end_tag_errors (void)
{
  static const struct
  {
    const char *text;
    const char *message;
  } cases[] = {
    { "<a>\n  <body>\n  </bdy>\n</a>", "t.xml:3:3: expected “</body>” instead of “</bdy>”" },
    { "<a>\n  <body>\n  </bdy  \n >\n</a>", "t.xml:3:3: expected “</body>” instead of “</bdy>”" },
    { "<a>\n  <b>\n</a>", "t.xml:3:1: expected “</b>” instead of “</a>”" },
    { "<a><b></c></a>", "t.xml:1:7: expected “</b>” instead of “</c>”" },
    { "<a>\n <é>x</ê>\n</a>", "t.xml:2:6: expected “</é>” instead of “</ê>”" },
    { "<a>\n <b><!-- </x> --></c>\n</a>", "t.xml:2:18: expected “</b>” instead of “</c>”" },
    { "<a/>\n</b>", "t.xml:2:1: expected the end of the document instead of “</b>”" },
    /* Other syntax errors: GMarkup's message and position. */
    { "<a>\n  <b x=1/>\n</a>", "t.xml:2:8: expected well-formed XML: " },
    { "<a>\n  </a x>\n", "t.xml:2:7: expected well-formed XML: " },
    { "<a><b x=\"</c  ", "t.xml:1:15: expected well-formed XML: " },
  };
  static const GMarkupParser parser = { NULL };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GMarkupParseContext) context = g_markup_parse_context_new (&parser, 0, NULL, NULL);
      g_autoptr(GError) error = NULL;
      KmMarkupText markup;

      km_markup_text_init (&markup, cases[i].text, strlen (cases[i].text));
      g_assert_false (km_markup_text_parse (&markup, "t.xml", context, &error));
      g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_SYNTAX);
      if (!g_str_has_prefix (error->message, cases[i].message))
        g_error ("case %u: expected “%s…”, got “%s”", i, cases[i].message, error->message);
      km_markup_text_clear (&markup);
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/kinema/MarkupText/positions", test_positions);
  g_test_add_func ("/kinema/MarkupText/end-tag-errors", test_end_tag_errors);
  return g_test_run ();
}
