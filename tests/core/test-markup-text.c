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

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/kinema/MarkupText/positions", test_positions);
  return g_test_run ();
}
