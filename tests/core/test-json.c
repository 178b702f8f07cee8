/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib.h>

#include "km-json.h"

#include "test-util.h"

static KmJsonDocument *
parse_ok (const char *text)
{
  g_autoptr(GError) error = NULL;
  KmJsonDocument *doc = km_json_parse ("t.json", text, strlen (text), &error);

  g_assert_no_error (error);
  g_assert_nonnull (doc);
  return doc;
}

static void
assert_parse_error (const char *text,
                    gsize       length,
                    int         code,
                    const char *expected_prefix)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(KmJsonDocument) doc = km_json_parse ("t.json", text, length, &error);

  g_assert_null (doc);
  g_assert_error (error, KM_PARSE_ERROR, code);
  if (!g_str_has_prefix (error->message, expected_prefix))
    g_error ("input %s: message “%s” does not start with “%s”", text, error->message,
             expected_prefix);
}

#define SYNTAX(text, prefix) \
  assert_parse_error (text, strlen (text), KM_PARSE_ERROR_SYNTAX, prefix)

static void
test_json_positions (void)
{
  g_autoptr(KmJsonDocument) doc = parse_ok ("{\n  \"a\": [1, 2.5, \"é\"],\n"
                                            "  \"ñé\": true, \"c\": null\n}");
  const KmJsonNode *root = km_json_document_get_root (doc);
  const KmJsonNode *a, *b, *c;
  KmSourcePos pos;

  g_assert_cmpint (km_json_node_type (root), ==, KM_JSON_OBJECT);
  pos = km_json_node_get_pos (root);
  g_assert_cmpuint (pos.line, ==, 1);
  g_assert_cmpuint (pos.column, ==, 1);
  g_assert_cmpuint (km_json_node_get_length (root), ==, 3);

  g_assert_cmpstr (km_json_node_get_member_name (root, 0), ==, "a");
  pos = km_json_node_get_member_pos (root, 0);
  g_assert_cmpuint (pos.line, ==, 2);
  g_assert_cmpuint (pos.column, ==, 3);

  a = km_json_node_get_member (root, "a");
  g_assert_cmpstr (km_json_node_get_key (a), ==, "a");
  pos = km_json_node_get_pos (a);
  g_assert_cmpuint (pos.line, ==, 2);
  g_assert_cmpuint (pos.column, ==, 8);
  g_assert_cmpuint (km_json_node_get_length (a), ==, 3);
  pos = km_json_node_get_pos (km_json_node_get_element (a, 1));
  g_assert_cmpuint (pos.column, ==, 12);
  g_assert_cmpfloat (km_json_node_get_number (km_json_node_get_element (a, 1)), ==, 2.5);
  g_assert_null (km_json_node_get_key (km_json_node_get_element (a, 1)));
  g_assert_cmpstr (km_json_node_get_string (km_json_node_get_element (a, 2), NULL), ==, "é");

  /* Columns count characters: "ñé" is two characters (four bytes). */
  pos = km_json_node_get_member_pos (root, 2);
  g_assert_cmpuint (pos.line, ==, 3);
  g_assert_cmpuint (pos.column, ==, 15);
  b = km_json_node_get_member (root, "ñé");
  g_assert_cmpint (km_json_node_type (b), ==, KM_JSON_BOOLEAN);
  g_assert_true (km_json_node_get_boolean (b));
  pos = km_json_node_get_pos (b);
  g_assert_cmpuint (pos.column, ==, 9);
  c = km_json_node_get_member (root, "c");
  g_assert_cmpint (km_json_node_type (c), ==, KM_JSON_NULL);
  pos = km_json_node_get_pos (c);
  g_assert_cmpuint (pos.column, ==, 20);
  g_assert_null (km_json_node_get_member (root, "missing"));
}

static void
test_json_syntax_errors (void)
{
  SYNTAX ("{\"a\": 1,}", "t.json:1:9: expected a key");
  SYNTAX ("[1, 2,]", "t.json:1:7: expected a value");
  SYNTAX ("[1 2]", "t.json:1:4: expected “,” or “]”");
  SYNTAX ("{\"a\": 1 \"b\": 2}", "t.json:1:9: expected “,” or “}”");
  SYNTAX ("{\"a\" 1}", "t.json:1:6: expected “:”");
  SYNTAX ("{1: 2}", "t.json:1:2: expected a key in double quotes");
  /* Multi-byte characters count as one column each. */
  SYNTAX ("{\"é\": x}", "t.json:1:7: expected a value");
  SYNTAX ("[\"日本語\", @]", "t.json:1:9: expected a value");
  SYNTAX ("{\n  \"ключ\": [1,\n    2,, 3]}", "t.json:3:7: expected a value");
  SYNTAX ("// comment\n{}", "t.json:1:1: expected a value (JSON has no comments)");
  SYNTAX ("{} /* c */", "t.json:1:4: expected the end of the file");
  SYNTAX ("[NaN]", "t.json:1:2: expected a value");
  SYNTAX ("[Infinity]", "t.json:1:2: expected a value");
  SYNTAX ("[-Infinity]", "t.json:1:3: expected a digit");
  SYNTAX ("[1e400]", "t.json:1:2: expected a finite number");
  SYNTAX ("[0, -1e400]", "t.json:1:5: expected a finite number");
  SYNTAX ("[01]", "t.json:1:3: expected “.”, “e” or the end of the number");
  SYNTAX ("[1.]", "t.json:1:4: expected a digit after “.”");
  SYNTAX ("[.5]", "t.json:1:2: expected a value");
  SYNTAX ("[+1]", "t.json:1:2: expected a value");
  SYNTAX ("[1e]", "t.json:1:4: expected a digit in the exponent");
  SYNTAX ("[tru]", "t.json:1:2: expected a value");
  SYNTAX ("[True]", "t.json:1:2: expected a value");
  SYNTAX ("['a']", "t.json:1:2: expected a value");
  SYNTAX ("{\"a\": 1, \"a\": 2}", "t.json:1:10: expected a unique key, but “a” appears twice");
  SYNTAX ("[\"a\tb\"]", "t.json:1:4: expected an escape sequence");
  SYNTAX ("[\"a\nb\"]", "t.json:1:4: expected an escape sequence");
  SYNTAX ("[\"\\x41\"]", "t.json:1:3: expected a valid escape sequence");
  SYNTAX ("[\"\\u12G4\"]", "t.json:1:3: expected four hexadecimal digits");
  SYNTAX ("[\"ab\\ud800\"]", "t.json:1:5: expected a low surrogate");
  SYNTAX ("[\"\\udc00\"]", "t.json:1:3: expected a high surrogate");
  SYNTAX ("[\"abc", "t.json:1:6: expected “\"” to end the string");
  SYNTAX ("[", "t.json:1:2: expected a value before the end of the file");
  SYNTAX ("{\"a\":1", "t.json:1:7: expected “,” or “}” before the end of the file");
  SYNTAX ("[1,2", "t.json:1:5: expected “,” or “]” before the end of the file");
  SYNTAX ("]", "t.json:1:1: expected a value");
  SYNTAX ("{} {}", "t.json:1:4: expected the end of the file");
  /* CRLF and lone CR end lines. */
  SYNTAX ("{\r\n\r\n  x}", "t.json:3:3: expected a key");
  SYNTAX ("[\r1,\r\r ?]", "t.json:4:2: expected a value");
}

static void
test_json_invalid_utf8 (void)
{
  SYNTAX ("[\"\xff\"]", "t.json:1:3: expected valid UTF-8");
  SYNTAX ("[\"é\xc3\"]", "t.json:1:4: expected valid UTF-8");
  SYNTAX ("[\"\xc0\xaf\"]", "t.json:1:3: expected valid UTF-8");         /* overlong */
  SYNTAX ("[\"\xed\xa0\x80\"]", "t.json:1:3: expected valid UTF-8");     /* surrogate */
  SYNTAX ("[\"\xf4\x90\x80\x80\"]", "t.json:1:3: expected valid UTF-8"); /* > U+10FFFF */
  SYNTAX ("[\xc3\xa9]", "t.json:1:2: expected a value");
  /* A NUL byte in the data is not the end of the text. */
  assert_parse_error ("[1]\0", 4, KM_PARSE_ERROR_SYNTAX, "t.json:1:4: expected the end");
}

static void
test_json_empty (void)
{
  SYNTAX ("", "t.json:1:1: empty file");
  SYNTAX ("  \n\t\r\n ", "t.json:1:1: empty file");
  SYNTAX ("\xEF\xBB\xBF", "t.json:1:1: empty file");
}

static void
test_json_bom (void)
{
  g_autoptr(KmJsonDocument) doc = parse_ok ("\xEF\xBB\xBF{\"a\": 1}");
  KmSourcePos pos = km_json_node_get_pos (km_json_document_get_root (doc));

  g_assert_cmpuint (pos.line, ==, 1);
  g_assert_cmpuint (pos.column, ==, 1);
  /* The BOM is not a column. */
  SYNTAX ("\xEF\xBB\xBF{\"a\": x}", "t.json:1:7: expected a value");
  /* Only a leading BOM is skipped. */
  SYNTAX ("{\"a\": 1}\xEF\xBB\xBF", "t.json:1:9: expected the end of the file");
}

static void
test_json_depth (void)
{
  gsize n = 100000;
  g_autofree char *bomb = g_malloc (n);
  GString *ok = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmJsonDocument) doc = NULL;

  memset (bomb, '[', n);
  doc = km_json_parse ("t.json", bomb, n, &error);
  g_assert_null (doc);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT);
  g_assert_cmpstr (error->message, ==, "t.json:1:513: nesting deeper than 512 levels");
  g_clear_error (&error);

  /* Objects count as well. */
  memset (bomb, 0, n);
  for (guint i = 0; i < 600; i++)
    strcat (bomb, "{\"a\":");
  doc = km_json_parse ("t.json", bomb, strlen (bomb), &error);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT);
  g_assert_cmpstr (error->message, ==, "t.json:1:2561: nesting deeper than 512 levels");
  g_clear_error (&error);

  /* Exactly the limit is fine. */
  for (guint i = 0; i < KM_JSON_MAX_DEPTH; i++)
    g_string_append_c (ok, '[');
  for (guint i = 0; i < KM_JSON_MAX_DEPTH; i++)
    g_string_append_c (ok, ']');
  doc = km_json_parse ("t.json", ok->str, ok->len, &error);
  g_assert_no_error (error);
  g_assert_nonnull (doc);
  g_string_free (ok, TRUE);
}

static void
test_json_numbers (void)
{
  g_autoptr(KmJsonDocument) doc =
    parse_ok ("[3, 3.0, -0, 1e2, 3.5, 1e300, 9223372036854775807, -9223372036854775808,"
              " 1e-400, 123456789012345678901234567890, 0.1, -2.5e-3]");
  const KmJsonNode *root = km_json_document_get_root (doc);
  const KmJsonNode *e;

  g_assert_cmpuint (km_json_node_get_length (root), ==, 12);
  e = km_json_node_get_element (root, 0);
  g_assert_true (km_json_node_is_integer (e));
  g_assert_cmpint (km_json_node_get_int (e), ==, 3);
  g_assert_true (km_json_node_is_integer (km_json_node_get_element (root, 1)));
  g_assert_true (km_json_node_is_integer (km_json_node_get_element (root, 2)));
  g_assert_cmpint (km_json_node_get_int (km_json_node_get_element (root, 3)), ==, 100);
  g_assert_false (km_json_node_is_integer (km_json_node_get_element (root, 4)));
  g_assert_false (km_json_node_is_integer (km_json_node_get_element (root, 5)));
  g_assert_cmpint (km_json_node_get_int (km_json_node_get_element (root, 6)), ==, G_MAXINT64);
  g_assert_cmpint (km_json_node_get_int (km_json_node_get_element (root, 7)), ==, G_MININT64);
  g_assert_cmpfloat (km_json_node_get_number (km_json_node_get_element (root, 8)), ==, 0.0);
  e = km_json_node_get_element (root, 9);
  g_assert_false (km_json_node_is_integer (e));
  g_assert_cmpfloat_with_epsilon (km_json_node_get_number (e), 1.2345678901234568e29, 1e15);
  g_assert_cmpfloat (km_json_node_get_number (km_json_node_get_element (root, 10)), ==, 0.1);
  g_assert_cmpfloat (km_json_node_get_number (km_json_node_get_element (root, 11)), ==, -2.5e-3);
}

static void
test_json_strings (void)
{
  g_autoptr(KmJsonDocument) doc =
    parse_ok ("[\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\", \"\\u00e9\\u65e5\", \"\\ud83d\\ude00\","
              " \"x\\u0000y\", \"\"]");
  const KmJsonNode *root = km_json_document_get_root (doc);
  gsize len;

  g_assert_cmpstr (km_json_node_get_string (km_json_node_get_element (root, 0), NULL), ==,
                   "a\"b\\c/d\b\f\n\r\t");
  g_assert_cmpstr (km_json_node_get_string (km_json_node_get_element (root, 1), NULL), ==,
                   "é日");
  g_assert_cmpstr (km_json_node_get_string (km_json_node_get_element (root, 2), NULL), ==,
                   "\xF0\x9F\x98\x80");
  g_assert_nonnull (km_json_node_get_string (km_json_node_get_element (root, 3), &len));
  g_assert_cmpuint (len, ==, 3);
  g_assert_cmpstr (km_json_node_get_string (km_json_node_get_element (root, 4), &len), ==, "");
  g_assert_cmpuint (len, ==, 0);
}

static void
test_json_duplicate_keys (void)
{
  GString *big = g_string_new ("{");

  for (guint i = 0; i < 1000; i++)
    g_string_append_printf (big, "\"k%u\": %u, ", i, i);
  g_string_append (big, "\"k500\": 0}");
  assert_parse_error (big->str, big->len, KM_PARSE_ERROR_SYNTAX, "t.json:1:");
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(KmJsonDocument) doc = km_json_parse ("t.json", big->str, big->len, &error);
    g_autofree char *expected = g_strdup_printf ("t.json:1:%u: expected a unique key, but "
                                                 "“k500” appears twice in this object",
                                                 (guint) big->len - 9);

    g_assert_null (doc);
    g_assert_cmpstr (error->message, ==, expected);
  }
  g_string_free (big, TRUE);

  /* Same key in different objects is fine; keys differing after a NUL are different. */
  {
    g_autoptr(KmJsonDocument) doc = parse_ok ("[{\"a\": 1}, {\"a\": 2}, {\"a\\u0000b\": 1, "
                                              "\"a\\u0000c\": 2}]");
    g_assert_nonnull (doc);
  }
}

static void
test_json_expect (void)
{
  g_autoptr(KmJsonDocument) doc =
    parse_ok ("{\"offset\": [1, \"x\", 3], \"v\": [1, 2, 3], \"frame\": 2.5, \"n\": -1,\n"
              " \"s\": 4, \"q\": [0, 0, 0, 0], \"q2\": [2, 0, 0, 0], \"nul\": \"a\\u0000\","
              " \"arr\": [1, 2], \"zz\": 1}");
  const KmJsonNode *root = km_json_document_get_root (doc);
  const KmJsonNode *member = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  static const char * const known[] = { "offset", "v", "frame", "n", "s", "q", "q2", "nul",
                                        "arr", NULL };
  KmVec3 v;
  KmQuat q;
  gint64 i;
  const char *str;

  g_assert_true (km_json_expect_member (doc, root, "v", TRUE, &member, &error));
  g_assert_true (km_json_expect_vec3 (doc, member, &v, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (v.z, ==, 3.0);

  g_assert_true (km_json_expect_member (doc, root, "none", FALSE, &member, &error));
  g_assert_null (member);
  g_assert_false (km_json_expect_member (doc, root, "none", TRUE, &member, &error));
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_INVALID);
  g_assert_cmpstr (error->message, ==,
                   "t.json:1:1: expected the required key “none” in this object");
  g_clear_error (&error);

  g_assert_false (km_json_expect_vec3 (doc, km_json_node_get_member (root, "offset"), &v,
                                       &error));
  g_assert_cmpstr (error->message, ==, "t.json:1:16: expected a number, found a string");
  g_clear_error (&error);

  g_assert_false (km_json_expect_vec3 (doc, km_json_node_get_member (root, "arr"), &v, &error));
  g_assert_cmpstr (error->message, ==,
                   "t.json:2:74: expected an array of 3 numbers for “arr”");
  g_clear_error (&error);

  g_assert_false (km_json_expect_int (doc, km_json_node_get_member (root, "frame"), 0,
                                      G_MAXINT64, &i, &error));
  g_assert_cmpstr (error->message, ==,
                   "t.json:1:50: expected a non-negative integer for “frame”, found 2.5");
  g_clear_error (&error);
  g_assert_false (km_json_expect_int (doc, km_json_node_get_member (root, "n"), 0,
                                      G_MAXINT64, &i, &error));
  g_assert_cmpstr (error->message, ==,
                   "t.json:1:60: expected a non-negative integer for “n”, found -1");
  g_clear_error (&error);
  g_assert_true (km_json_expect_int (doc, km_json_node_get_member (root, "n"), -5, 5, &i,
                                     &error));
  g_assert_cmpint (i, ==, -1);

  g_assert_false (km_json_expect_string (doc, km_json_node_get_member (root, "s"), &str,
                                         &error));
  g_assert_cmpstr (error->message, ==, "t.json:2:7: expected a string for “s”, found a number");
  g_clear_error (&error);
  g_assert_false (km_json_expect_string (doc, km_json_node_get_member (root, "nul"), &str,
                                         &error));
  g_assert_nonnull (strstr (error->message, "without NUL"));
  g_clear_error (&error);

  g_assert_false (km_json_expect_quat (doc, km_json_node_get_member (root, "q"), &q, &error));
  g_assert_cmpstr (error->message, ==,
                   "t.json:2:15: expected a non-zero quaternion [w, x, y, z] for “q”");
  g_clear_error (&error);
  g_assert_true (km_json_expect_quat (doc, km_json_node_get_member (root, "q2"), &q, &error));
  g_assert_cmpfloat (q.w, ==, 1.0);

  g_assert_false (km_json_expect_array (doc, km_json_node_get_member (root, "arr"), 3, 3,
                                        &error));
  g_assert_cmpstr (error->message, ==,
                   "t.json:2:74: expected an array of 3 elements for “arr”, found 2");
  g_clear_error (&error);
  g_assert_false (km_json_expect_object (doc, km_json_node_get_member (root, "arr"), &error));
  g_assert_cmpstr (error->message, ==,
                   "t.json:2:74: expected an object for “arr”, found an array");
  g_clear_error (&error);

  test_util_push_warnings (warnings);
  g_assert_cmpuint (km_json_warn_unknown_keys (doc, root, known), ==, 1);
  test_util_pop_warnings (warnings);
  g_assert_cmpuint (warnings->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (warnings, 0), ==,
                   "t.json:2:82: unknown key “zz” ignored");
}

static void
test_json_writer (void)
{
  g_autoptr(KmJsonWriter) writer = km_json_writer_new ();
  const char *expected =
    "{\n"
    "  \"name\": \"a\\\"b\\\\\\n\\u0001é\",\n"
    "  \"offset\": [0, 1.5, -0.1],\n"
    "  \"limits\": [[-3.14, 3.14], null],\n"
    "  \"empty\": [],\n"
    "  \"list\": [\n"
    "    1,\n"
    "    true,\n"
    "    {}\n"
    "  ],\n"
    "  \"n\": 42\n"
    "}\n";

  km_json_writer_begin_object (writer);
  km_json_writer_key (writer, "name");
  km_json_writer_string (writer, "a\"b\\\n\001é");
  km_json_writer_key (writer, "offset");
  km_json_writer_vec3 (writer, km_vec3 (0, 1.5, -0.1));
  km_json_writer_key (writer, "limits");
  km_json_writer_begin_inline_array (writer);
  km_json_writer_begin_array (writer);
  km_json_writer_number (writer, -3.14);
  km_json_writer_number (writer, 3.14);
  km_json_writer_end_array (writer);
  km_json_writer_null (writer);
  km_json_writer_end_array (writer);
  km_json_writer_key (writer, "empty");
  km_json_writer_begin_array (writer);
  km_json_writer_end_array (writer);
  km_json_writer_key (writer, "list");
  km_json_writer_begin_array (writer);
  km_json_writer_int (writer, 1);
  km_json_writer_boolean (writer, TRUE);
  km_json_writer_begin_object (writer);
  km_json_writer_end_object (writer);
  km_json_writer_end_array (writer);
  km_json_writer_key (writer, "n");
  km_json_writer_number (writer, 42.0);
  km_json_writer_end_object (writer);

  g_assert_cmpstr (km_json_writer_get_text (writer, NULL), ==, expected);
}

static void
test_json_writer_round_trip (void)
{
  g_autoptr(KmJsonWriter) writer = km_json_writer_new ();
  g_autoptr(KmJsonDocument) doc = NULL;
  g_autoptr(GError) error = NULL;
  const double special[] = { 0.1, 1.0 / 3.0, 5e-324, 2.2250738585072014e-308,
                             1.7976931348623157e308, -0.0, 123456789.123456789, 1e21, -1e-7,
                             0.30000000000000004 };
  GArray *values = g_array_new (FALSE, FALSE, sizeof (double));
  const KmJsonNode *root;
  const char *text;
  gsize len;
  const char *strings[] = { "plain", "q\"uote", "back\\slash", "ctl\001\037", "日本語 ✓",
                            "tab\tnl\ncr\r", "\xF0\x9F\x98\x80" };

  g_array_append_vals (values, special, G_N_ELEMENTS (special));
  for (guint i = 0; i < 2000; i++)
    {
      double v = g_test_rand_double_range (-1e6, 1e6);
      double w = ldexp (g_test_rand_double_range (-1.0, 1.0), g_test_rand_int_range (-1000, 1000));

      g_array_append_val (values, v);
      g_array_append_val (values, w);
    }

  km_json_writer_begin_object (writer);
  km_json_writer_key (writer, "numbers");
  km_json_writer_begin_array (writer);
  for (guint i = 0; i < values->len; i++)
    km_json_writer_number (writer, g_array_index (values, double, i));
  km_json_writer_end_array (writer);
  km_json_writer_key (writer, "strings");
  km_json_writer_begin_array (writer);
  for (guint i = 0; i < G_N_ELEMENTS (strings); i++)
    km_json_writer_string (writer, strings[i]);
  km_json_writer_end_array (writer);
  km_json_writer_end_object (writer);

  text = km_json_writer_get_text (writer, &len);
  doc = km_json_parse ("t.json", text, len, &error);
  g_assert_no_error (error);
  root = km_json_node_get_member (km_json_document_get_root (doc), "numbers");
  g_assert_cmpuint (km_json_node_get_length (root), ==, values->len);
  for (guint i = 0; i < values->len; i++)
    {
      double expected = g_array_index (values, double, i);
      double got = km_json_node_get_number (km_json_node_get_element (root, i));

      /* Bit-exact, so -0.0 stays -0.0. */
      g_assert_cmpmem (&got, sizeof got, &expected, sizeof expected);
    }
  root = km_json_node_get_member (km_json_document_get_root (doc), "strings");
  for (guint i = 0; i < G_N_ELEMENTS (strings); i++)
    g_assert_cmpstr (km_json_node_get_string (km_json_node_get_element (root, i), NULL), ==,
                     strings[i]);
  g_array_unref (values);

  {
    char buf[G_ASCII_DTOSTR_BUF_SIZE];

    g_assert_cmpstr (km_json_format_number (buf, 0.1), ==, "0.1");
    g_assert_cmpstr (km_json_format_number (buf, 1.0 / 3.0), ==, "0.3333333333333333");
    g_assert_cmpstr (km_json_format_number (buf, -2.0), ==, "-2");
    g_assert_cmpstr (km_json_format_number (buf, NAN), ==, "null");
  }
}

static void
test_json_sniff (void)
{
  const char *skel = "\xEF\xBB\xBF  {\"root_name\": \"R\", \"joints\": [{\"name\": \"x\"}]}";
  const char *arr = "[{\"frame\": 0, \"pos\": [0,0,0]}]";

  g_assert_cmpint (km_json_sniff_first_char (skel, strlen (skel)), ==, '{');
  g_assert_cmpint (km_json_sniff_first_char (arr, strlen (arr)), ==, '[');
  g_assert_cmpint (km_json_sniff_first_char ("  ", 2), ==, 0);
  g_assert_true (km_json_sniff_has_key (skel, strlen (skel), "joints", 1));
  g_assert_true (km_json_sniff_has_key (skel, strlen (skel), "root_name", 1));
  g_assert_false (km_json_sniff_has_key (skel, strlen (skel), "name", 1));
  g_assert_true (km_json_sniff_has_key (skel, strlen (skel), "name", 3));
  /* A string value equal to the key is not a key. */
  g_assert_false (km_json_sniff_has_key (skel, strlen (skel), "R", 1));
  g_assert_true (km_json_sniff_has_key (arr, strlen (arr), "frame", 2));
  g_assert_false (km_json_sniff_has_key (arr, strlen (arr), "frame", 1));
  g_assert_false (km_json_sniff_has_key ("<xml/>", 6, "joints", 1));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/kinema/Json/positions", test_json_positions);
  g_test_add_func ("/kinema/Json/syntax-errors", test_json_syntax_errors);
  g_test_add_func ("/kinema/Json/invalid-utf8", test_json_invalid_utf8);
  g_test_add_func ("/kinema/Json/empty", test_json_empty);
  g_test_add_func ("/kinema/Json/bom", test_json_bom);
  g_test_add_func ("/kinema/Json/depth", test_json_depth);
  g_test_add_func ("/kinema/Json/numbers", test_json_numbers);
  g_test_add_func ("/kinema/Json/strings", test_json_strings);
  g_test_add_func ("/kinema/Json/duplicate-keys", test_json_duplicate_keys);
  g_test_add_func ("/kinema/Json/expect", test_json_expect);
  g_test_add_func ("/kinema/Json/writer", test_json_writer);
  g_test_add_func ("/kinema/Json/writer-round-trip", test_json_writer_round_trip);
  g_test_add_func ("/kinema/Json/sniff", test_json_sniff);

  return g_test_run ();
}
