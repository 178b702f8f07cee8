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

/* km_markup_text_skip_doctype(): where a DOCTYPE ends, past quoted literals (a '>', '['
 * or ']' in them is text) and, in an internal subset, comments and declarations that end
 * in '>' too; where its subset and first entity declaration are; 0 when the text ends
 * inside it. */
static void
test_skip_doctype (void)
{
  static const struct
  {
    const char *text;   /* "<!DOCTYPE" at offset 2, "|" just past its end (if any) */
    const char *subset; /* what the subset's offset points at, NULL for none */
    const char *entity; /* what the entity's offset points at, NULL for none */
  } cases[] = {
    { "  <!DOCTYPE r>|<r/>", NULL, NULL },
    { "  <!DOCTYPE r SYSTEM \"a>b[c]\">|<r/>", NULL, NULL },
    { "  <!DOCTYPE r PUBLIC 'x]>' \"y>\">|<r/>", NULL, NULL },
    { "  <!DOCTYPE r [ <!ENTITY a \"x>]\"> ]>|<r/>", "[ <!ENTITY", "<!ENTITY a" },
    { "  <!DOCTYPE r [\n  <!-- ] > <!ENTITY no \"\" --> <!ELEMENT r ANY>\n]>|<r/>",
      "[\n", NULL },
    { "  <!DOCTYPE r [ <!-- ' --> <!ENTITY b 'y'> <!ENTITY c 'z'> ]>|<r/>", "[ <!--",
      "<!ENTITY b" },
    { "  <!DOCTYPE r SYSTEM \"r.dtd\" []>|<r/>", "[]", NULL },
    /* Unterminated: in a literal, a subset, a comment in it, or the DOCTYPE itself. */
    { "  <!DOCTYPE r SYSTEM \"r.dtd>", NULL, NULL },
    { "  <!DOCTYPE r [ <!ENTITY a \"x\"> >", "[ ", "<!ENTITY" },
    { "  <!DOCTYPE r [ <!-- ]> <r/>", "[ ", NULL },
    { "  <!DOCTYPE r [ <!ENTITY a 'x]>", "[ ", "<!ENTITY" },
    { "  <!DOCTYPE r", NULL, NULL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GString) text = g_string_new (cases[i].text);
      const char *bar = strchr (cases[i].text, '|');
      gsize want = bar != NULL ? (gsize) (bar - cases[i].text) : 0;
      g_autofree char *copy = NULL;
      gsize subset = 1, entity = 1, end;

      if (bar != NULL)
        g_string_erase (text, (gssize) want, 1);
      /* Not NUL-terminated: the length bounds every search. */
      copy = g_memdup2 (text->str, text->len);
      end = km_markup_text_skip_doctype (copy, text->len, 2, &subset, &entity);
      g_test_message ("case %u: %s", i, cases[i].text);
      g_assert_cmpuint (end, ==, want);
      if (cases[i].subset == NULL)
        g_assert_cmpuint (subset, ==, 0);
      else
        g_assert_true (g_str_has_prefix (text->str + subset, cases[i].subset));
      if (cases[i].entity == NULL)
        g_assert_cmpuint (entity, ==, 0);
      else
        g_assert_true (g_str_has_prefix (text->str + entity, cases[i].entity));
    }
}

/* km_markup_text_check_prolog(): an internal DTD subset before the document element is
 * refused at its first entity declaration (at its '[' when it has none), even when the
 * text ends in it; a DOCTYPE without one, other unterminated markup (GMarkup's to report)
 * and a DOCTYPE after the document element's start are not its business. */
static void
test_check_prolog (void)
{
  static const char message[] =
    "expected no entity declarations: an internal DTD subset (“<!DOCTYPE … [ … ]>”) "
    "is not supported";
  static const struct
  {
    const char *text;
    const char *error;  /* the expected "t.xml:LINE:COLUMN" prefix, NULL to pass */
  } cases[] = {
    { "<?xml version=\"1.0\"?>\n<!-- é -->\n<!DOCTYPE r [ <!ENTITY len \"1\"> ]>\n<r/>",
      "t.xml:3:15" },
    { "\n  <!DOCTYPE r [\n  <!-- <!ENTITY x 'y'> -->\n]>\n<r/>", "t.xml:2:15" },
    { "<!DOCTYPE r SYSTEM \"x[y]>\" [<!ENTITY a 'b'>]><r/>", "t.xml:1:29" },
    { "<?xml version=\"1.0\"?>\n<!DOCTYPE r SYSTEM \"r.dtd\">\n<r/>", NULL },
    /* Unterminated: refused all the same when its subset has begun, else left to GMarkup. */
    { "<!DOCTYPE r [ <!ENTITY a 'b'>", "t.xml:1:15" },
    { "<!DOCTYPE r [", "t.xml:1:13" },
    { "<!DOCTYPE r SYSTEM 'r.dtd", NULL },
    { "<!-- <!DOCTYPE r [ <!ENTITY a 'b'> ]>", NULL },
    { "<r><!DOCTYPE r [ <!ENTITY a 'b'> ]></r>", NULL },
    { "", NULL },
    { "<?xml", NULL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      KmMarkupText markup;
      gboolean ok;

      km_markup_text_init (&markup, cases[i].text, strlen (cases[i].text));
      ok = km_markup_text_check_prolog (&markup, "t.xml", &error);
      g_test_message ("case %u: %s", i, cases[i].text);
      if (cases[i].error == NULL)
        {
          g_assert_no_error (error);
          g_assert_true (ok);
        }
      else
        {
          g_autofree char *want = g_strdup_printf ("%s: %s", cases[i].error, message);

          g_assert_false (ok);
          g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_INVALID);
          g_assert_cmpstr (error->message, ==, want);
        }
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
  g_test_add_func ("/kinema/MarkupText/skip-doctype", test_skip_doctype);
  g_test_add_func ("/kinema/MarkupText/check-prolog", test_check_prolog);
  return g_test_run ();
}
