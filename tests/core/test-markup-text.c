/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <string.h>
#include <glib.h>

#include "km-markup-text.h"

/* What km_markup_text_pos must give: lines and columns counted from the start, a line
 * ending at LF, CRLF or a lone CR (old Mac files). */
static KmSourcePos
naive_pos (const char *text,
           gsize       offset)
{
  KmSourcePos pos = { 1, 1 };

  for (const char *p = text; p < text + offset; p = g_utf8_next_char (p))
    {
      if (*p == '\n' || (*p == '\r' && p[1] != '\n'))
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
 * character counts are kept, across the blocks' edges; lines end in LF, CRLF and lone
 * CRs, an empty line and the last included. */
static void
test_positions (void)
{
  g_autoptr(GString) text = g_string_new ("<robot name=\"ä\">\n  <link name=\"腕\"/>\r\n"
                                          "\r\r  <link name=\"ö\"/>\r");
  g_autoptr(GArray) starts = g_array_new (FALSE, FALSE, sizeof (gsize));
  g_autoptr(GRand) rand = g_rand_new_with_seed (7);
  KmMarkupText markup;

  for (guint i = 0; i < 300; i++)
    g_string_append_printf (text, "<link name=\"l%u-é\"/>", i);
  for (guint i = 0; i < 300; i++)
    g_string_append_printf (text, "%s<link name=\"m%u\"/>", i % 7 == 0 ? "\r" : "", i);
  g_string_append (text, "\n</robot>\r");
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
  /* The same lines ended as on Windows and on old Macs: GMarkup counts lines at LF only,
   * and a file of lone CRs was all on line 1 (the column its offset). */
  static const char * const line_ends[] = { "\n", "\r\n", "\r" };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    for (guint e = 0; e < G_N_ELEMENTS (line_ends); e++)
      {
        g_autoptr(GMarkupParseContext) context = g_markup_parse_context_new (&parser, 0, NULL,
                                                                             NULL);
        g_autoptr(GError) error = NULL;
        g_autoptr(GString) text = g_string_new (cases[i].text);
        KmMarkupText markup;

        g_string_replace (text, "\n", line_ends[e], 0);
        km_markup_text_init (&markup, text->str, text->len);
        g_assert_false (km_markup_text_parse (&markup, "t.xml", context, &error));
        g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_SYNTAX);
        if (!g_str_has_prefix (error->message, cases[i].message))
          g_error ("case %u, line end %u: expected “%s…”, got “%s”", i, e, cases[i].message,
                   error->message);
        km_markup_text_clear (&markup);
      }
}

/* Line ends mixed in one file (LF, CRLF, lone CR): GMarkup's position, counted in lines
 * that end at LF only, maps to the offset it is at, and that to our line and column. */
static void
test_mixed_line_ends (void)
{
  static const struct
  {
    const char *text;
    const char *message;
  } cases[] = {
    { "<a>\r\n  <b>\r  <c/>\n  </bdy>\r</a>", "t.xml:4:3: expected “</b>” instead of “</bdy>”" },
    { "<a>\r<b>\n\r\r  <c x=1/>\r\n</a>", "t.xml:5:8: expected well-formed XML: " },
    { "<a>\n\r<b>\r\n <c>\r\r", "t.xml:6:1: expected well-formed XML: " },
    { "<a>\r\r<b>\n <c>\r\n</b></c></a>", "t.xml:5:1: expected “</c>” instead of “</b>”" },
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

/* Text that is not UTF-8, in a file of lone CRs: on its line, not line 1. */
static void
test_cr_not_utf8 (void)
{
  static const char text[] = "<a>\r  <b>\r  <c>x\xff</c>\r</a>\r";
  g_autoptr(GError) error = NULL;
  g_autofree char *copy = km_markup_text_dup_utf8 ("t.xml", text, sizeof text - 1, &error);

  g_assert_null (copy);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_SYNTAX);
  g_assert_cmpstr (error->message, ==, "t.xml:3:7: expected UTF-8 text");
}

/* km_markup_text_skip_doctype(): where a DOCTYPE ends, past quoted literals (a '>', '['
 * or ']' in them is text) and, in an internal subset, comments, processing instructions
 * and declarations that end in '>' too; where its subset and first declaration (anything
 * but white space and comments) are; 0 when the text ends inside it. */
static void
test_skip_doctype (void)
{
  static const struct
  {
    const char *text;   /* "<!DOCTYPE" at offset 2, "|" just past its end (if any) */
    const char *subset; /* what the subset's offset points at, NULL for none */
    const char *decl;   /* what the declaration's offset points at, NULL for none */
  } cases[] = {
    { "  <!DOCTYPE r>|<r/>", NULL, NULL },
    { "  <!DOCTYPE r SYSTEM \"a>b[c]\">|<r/>", NULL, NULL },
    { "  <!DOCTYPE r PUBLIC 'x]>' \"y>\">|<r/>", NULL, NULL },
    { "  <!DOCTYPE r [ <!ENTITY a \"x>]\"> ]>|<r/>", "[ <!ENTITY", "<!ENTITY a" },
    { "  <!DOCTYPE r [\n  <!-- ] > <!ENTITY no \"\" --> <!ELEMENT r ANY>\n]>|<r/>",
      "[\n", "<!ELEMENT r" },
    { "  <!DOCTYPE r [ <!-- ' --> <!ENTITY b 'y'> <!ENTITY c 'z'> ]>|<r/>", "[ <!--",
      "<!ENTITY b" },
    { "  <!DOCTYPE r SYSTEM \"r.dtd\" []>|<r/>", "[]", NULL },
    /* Comments and white space only: no declaration. */
    { "  <!DOCTYPE r [ <!-- note --> \n\t<!---->]>|<r/>", "[ <!--", NULL },
    /* A processing instruction's ']' or '>' ends nothing; a parameter entity reference. */
    { "  <!DOCTYPE r [ <?pi ]> ?> ]>|<r/>", "[ <?pi", "<?pi ]>" },
    { "  <!DOCTYPE r [ <!-- c --> %ext; ]>|<r/>", "[ <!--", "%ext;" },
    /* Unterminated: in a literal, a subset, a comment in it, or the DOCTYPE itself. */
    { "  <!DOCTYPE r SYSTEM \"r.dtd>", NULL, NULL },
    { "  <!DOCTYPE r [ <!ENTITY a \"x\"> >", "[ ", "<!ENTITY" },
    { "  <!DOCTYPE r [ <!-- ]> <r/>", "[ ", NULL },
    { "  <!DOCTYPE r [ <!ENTITY a 'x]>", "[ ", "<!ENTITY" },
    { "  <!DOCTYPE r [ <?pi ]>", "[ ", "<?pi" },
    { "  <!DOCTYPE r", NULL, NULL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GString) text = g_string_new (cases[i].text);
      const char *bar = strchr (cases[i].text, '|');
      gsize want = bar != NULL ? (gsize) (bar - cases[i].text) : 0;
      g_autofree char *copy = NULL;
      gsize subset = 1, decl = 1, end;

      if (bar != NULL)
        g_string_erase (text, (gssize) want, 1);
      /* Not NUL-terminated: the length bounds every search. */
      copy = g_memdup2 (text->str, text->len);
      end = km_markup_text_skip_doctype (copy, text->len, 2, &subset, &decl);
      g_test_message ("case %u: %s", i, cases[i].text);
      g_assert_cmpuint (end, ==, want);
      if (cases[i].subset == NULL)
        g_assert_cmpuint (subset, ==, 0);
      else
        g_assert_true (g_str_has_prefix (text->str + subset, cases[i].subset));
      if (cases[i].decl == NULL)
        g_assert_cmpuint (decl, ==, 0);
      else
        g_assert_true (g_str_has_prefix (text->str + decl, cases[i].decl));
    }
}

/* km_markup_text_check_prolog(): a DOCTYPE's internal subset is refused at its first
 * declaration, named, even when the text ends in it; one with only comments and white
 * space passes (GMarkup skips it), unless a '<' or '>' in a comment or quoted literal
 * would end the DOCTYPE for GMarkup elsewhere than for XML; a DOCTYPE inside or after the
 * document element, or a second one, is refused where it starts. Other unterminated
 * markup is GMarkup's to report. */
static void
test_check_prolog (void)
{
#define ENTITY \
  "expected no entity declarations: an internal DTD subset (“<!DOCTYPE … [ … ]>”) is not " \
  "supported"
#define DECL "expected no declarations in an internal DTD subset (“<!DOCTYPE … [ … ]>”), found "
#define ANGLE "expected no “<” or “>” in a DOCTYPE's comments and quoted values"
#define LATE "expected no DOCTYPE inside or after the document element"
#define SECOND "expected one DOCTYPE at most"
  static const struct
  {
    const char *text;
    const char *error;  /* the expected "t.xml:LINE:COLUMN: message", NULL to pass */
  } cases[] = {
    { "<?xml version=\"1.0\"?>\n<!-- é -->\n<!DOCTYPE r [ <!ENTITY len \"1\"> ]>\n<r/>",
      "t.xml:3:15: " ENTITY },
    { "<!DOCTYPE r SYSTEM \"x[y]>\" [<!ENTITY a 'b'>]><r/>", "t.xml:1:29: " ENTITY },
    { "<!DOCTYPE r [ <!ELEMENT r ANY> ]><r/>", "t.xml:1:15: " DECL "“<!ELEMENT”" },
    { "<!DOCTYPE r [\n<!-- x -->\n<!ATTLIST r a CDATA #IMPLIED> ]><r/>",
      "t.xml:3:1: " DECL "“<!ATTLIST”" },
    { "<!DOCTYPE r [ <!NOTATION n SYSTEM 'n'> ]><r/>", "t.xml:1:15: " DECL "“<!NOTATION”" },
    { "<!DOCTYPE r [ <?pi x?> ]><r/>", "t.xml:1:15: " DECL "“<?pi”" },
    { "<!DOCTYPE r [ %ext; ]><r/>", "t.xml:1:15: " DECL "“%ext;”" },
    { "<!DOCTYPE r [ junk here ]><r/>", "t.xml:1:15: " DECL "“junk”" },
    /* Comments and white space only: nothing declared. */
    { "<!DOCTYPE r [ <!-- note --> ]>\n<r/>", NULL },
    { "\n  <!DOCTYPE r [\n  <!-- <!ENTITY x 'y'> -->\n]>\n<r/>", NULL },
    { "<!DOCTYPE r SYSTEM \"r.dtd\" [ ]><r/>", NULL },
    { "<?xml version=\"1.0\"?>\n<!DOCTYPE r SYSTEM \"r.dtd\">\n<r/>", NULL },
    /* GMarkup ends a DOCTYPE at the first '>' that balances its '<'s, in comments and
     * literals too. */
    { "<!DOCTYPE r [\n  <!-- a ] and a > in a comment -->\n]>\n<r/>", "t.xml:2:18: " ANGLE },
    { "<!DOCTYPE r [ <!-- a < b --> ]><r/>", "t.xml:1:22: " ANGLE },
    { "<!DOCTYPE r SYSTEM \"a>b\"><r/>", "t.xml:1:22: " ANGLE },
    { "<!DOCTYPE r [ <!-- <b> --> ]><r/>", NULL },
    /* Inside or after the document element, a second one. */
    { "<r><!DOCTYPE r [ <!ENTITY a 'b'> ]></r>", "t.xml:1:4: " LATE },
    { "<r a='>'/>\n<!DOCTYPE r>", "t.xml:2:1: " LATE },
    { "<?xml version=\"1.0\"?><r><!-- <!DOCTYPE r> --><![CDATA[<!DOCTYPE r>]]>"
      "<?pi <!DOCTYPE r> ?><a b=\"<!DOCTYPE r>\"/></r>", NULL },
    { "<!DOCTYPE r>\n<!-- x -->\n<!DOCTYPE r>\n<r/>", "t.xml:3:1: " SECOND },
    /* Unterminated: refused all the same when a declaration has begun, else left to
     * GMarkup. */
    { "<!DOCTYPE r [ <!ENTITY a 'b'>", "t.xml:1:15: " ENTITY },
    { "<!DOCTYPE r [", NULL },
    { "<!DOCTYPE r [ <!-- x", NULL },
    { "<!DOCTYPE r SYSTEM 'r.dtd", NULL },
    { "<!-- <!DOCTYPE r [ <!ENTITY a 'b'> ]>", NULL },
    { "<r><!-- <!DOCTYPE r>", NULL },
    { "<r a='<!DOCTYPE r>", NULL },
    { "", NULL },
    { "<?xml", NULL },
  };
#undef ENTITY
#undef DECL
#undef ANGLE
#undef LATE
#undef SECOND

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
          g_assert_false (ok);
          g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_INVALID);
          g_assert_cmpstr (error->message, ==, cases[i].error);
        }
      km_markup_text_clear (&markup);
    }
}

/* What check_prolog passes GMarkup parses, and skips: the DOCTYPE's comments-only subset
 * ends where GMarkup ends it too (the document element is the first element it sees). */
static void
test_check_prolog_gmarkup (void)
{
  static const char * const texts[] = {
    "<!DOCTYPE r [ <!-- note --> ]>\n<r/>",
    "<!DOCTYPE r [\n  <!-- <!ENTITY x 'y'> -->\n]>\n<r/>",
    "<!DOCTYPE r SYSTEM \"r[1].dtd\" [ <!-- <b> --> ]><r/>",
  };

  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      static const GMarkupParser parser = { 0 };
      g_autoptr(GError) error = NULL;
      GMarkupParseContext *context = g_markup_parse_context_new (&parser, 0, NULL, NULL);
      KmMarkupText markup;

      km_markup_text_init (&markup, texts[i], strlen (texts[i]));
      g_assert_true (km_markup_text_check_prolog (&markup, "t.xml", &error));
      g_assert_true (km_markup_text_parse (&markup, "t.xml", context, &error));
      g_assert_no_error (error);
      km_markup_text_clear (&markup);
      g_markup_parse_context_free (context);
    }
}

static void
collect_value (GMarkupParseContext  *context,
               const char           *element_name,
               const char          **attribute_names,
               const char          **attribute_values,
               gpointer              user_data,
               GError              **error)
{
  *(char **) user_data = g_strdup (attribute_values[0]);
}

/* The bytes of the value GMarkup makes of an attribute, mapped back to the file: a CRLF is
 * one byte of it, a reference as many as its character's; past the end, the quote. */
static void
test_value_offset (void)
{
  static const char text[] = "<r a=\"x\r\ny&amp;z&#233;w\n\tv\"/>";
  static const GMarkupParser parser = { collect_value };
  static const gsize want[] = { 6, 7, 9, 10, 15, 16, 16, 22, 23, 24, 25, 26, 26 };
  g_autofree char *value = NULL;
  GMarkupParseContext *context = g_markup_parse_context_new (&parser, 0, &value, NULL);
  KmMarkupText markup;

  g_assert_true (g_markup_parse_context_parse (context, text, -1, NULL));
  g_markup_parse_context_free (context);
  g_assert_cmpstr (value, ==, "x y&z\xc3\xa9w  v");
  km_markup_text_init (&markup, text, strlen (text));
  for (guint k = 0; k < G_N_ELEMENTS (want); k++)
    g_assert_cmpuint (km_markup_text_value_offset (&markup, 6, k), ==, want[k]);
  g_assert_cmpuint (km_markup_text_value_offset (&markup, 6, 100), ==, 26);
  km_markup_text_clear (&markup);
}

static void
check_start (GMarkupParseContext  *context,
             const char           *element_name,
             const char          **attribute_names,
             const char          **attribute_values,
             gpointer              user_data,
             GError              **error)
{
  km_markup_text_start_element (user_data, "t.xml", (const char * const *) attribute_names,
                                error);
}

/* What GMarkup takes in a start tag though XML 1.0 does not, refused by
 * km_markup_text_start_element() at the offending character (in characters, whatever the
 * line ends): a literal '<' in an attribute value (AttValue holds none; "&lt;" is one,
 * and a '<' in a comment, CDATA section or processing instruction is in no value), and
 * attributes with no white space between them; the first in the tag when a tag has
 * several faults, an attribute given twice among them. */
static void
test_start_tag_errors (void)
{
  static const char lt[] = "expected “&lt;” instead of “<” in an attribute value";
  static const char space[] = "expected white space, “>” or “/>” after an attribute's value";
  static const char twice[] = "attribute “x” is given twice";
  static const struct
  {
    const char *text;
    const char *where;     /* "LINE:COLUMN" */
    const char *message;   /* NULL: well-formed */
  } cases[] = {
    { "<a>\n  <joint name=\"a<b\"/>\n</a>", "2:17", lt },
    { "<a>\n  <b x='1' y='<'/>\n</a>", "2:15", lt },
    { "<a x=\"<\">\n</a>", "1:7", lt },
    { "<a>\n <b n=\"x > y\"\n    m=\"é >< \"/>\n</a>", "3:11", lt },
    { "<a y=\"'<'\"/>", "1:8", lt },
    { "<a x=\"1\"y=\"2\"/>", "1:9", space },
    { "<a>\n  <b x='1'y='2'></b>\n</a>", "2:11", space },
    /* the first fault of the tag */
    { "<a x=\"<\" x=\"2\"/>", "1:7", lt },
    { "<a x=\"1\" x=\"<\"/>", "1:10", twice },
    { "<a x=\"1\"x=\"2\"/>", "1:9", space },
    /* well-formed */
    { "<a x=\"&lt;\" y='&#60;' z=\"'&lt;'\"/>", NULL, NULL },
    { "<a>\n <!-- <b x=\"<\"/> --><![CDATA[ <b x=\"<\"/> ]]><?pi <b x=\"<\"/> ?>\n"
      " <b x=\">\" y='\"'\t\n z=\"1\"/>\n</a>", NULL, NULL },
    { "<!DOCTYPE a [ <!-- <b> --> ]>\n<a x=\"1\" y=\"2\"\n/>", NULL, NULL },
  };
  static const GMarkupParser parser = { check_start };
  static const char * const line_ends[] = { "\n", "\r\n", "\r" };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    for (guint e = 0; e < G_N_ELEMENTS (line_ends); e++)
      {
        g_autoptr(GError) error = NULL;
        g_autoptr(GString) text = g_string_new (cases[i].text);
        g_autoptr(GMarkupParseContext) context = NULL;
        KmMarkupText markup;
        gboolean ok;

        g_string_replace (text, "\n", line_ends[e], 0);
        g_test_message ("case %u, line end %u: %s", i, e, text->str);
        km_markup_text_init (&markup, text->str, text->len);
        context = g_markup_parse_context_new (&parser, 0, &markup, NULL);
        ok = km_markup_text_parse (&markup, "t.xml", context, &error);
        if (cases[i].message == NULL)
          {
            g_assert_no_error (error);
            g_assert_true (ok);
          }
        else
          {
            g_autofree char *want = g_strdup_printf ("t.xml:%s: %s", cases[i].where,
                                                     cases[i].message);

            g_assert_false (ok);
            g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_SYNTAX);
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
  g_test_add_func ("/kinema/MarkupText/mixed-line-ends", test_mixed_line_ends);
  g_test_add_func ("/kinema/MarkupText/cr-not-utf8", test_cr_not_utf8);
  g_test_add_func ("/kinema/MarkupText/skip-doctype", test_skip_doctype);
  g_test_add_func ("/kinema/MarkupText/check-prolog", test_check_prolog);
  g_test_add_func ("/kinema/MarkupText/check-prolog-gmarkup", test_check_prolog_gmarkup);
  g_test_add_func ("/kinema/MarkupText/value-offset", test_value_offset);
  g_test_add_func ("/kinema/MarkupText/start-tag-errors", test_start_tag_errors);
  return g_test_run ();
}
