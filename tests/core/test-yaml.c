/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "km-format.h"
#include "km-yaml.h"

static KmYamlNode *
parse (const char *text,
       GError    **error)
{
  return km_yaml_parse ("t.yaml", text, strlen (text), NULL, error);
}

static void
test_positions (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(KmYamlNode) root = parse ("a: 1\n"
                                      "bé:\n"
                                      "  - \"x\"\n"
                                      "  - [ 1, 2, 3 ]\n"
                                      "é: é\n", &error);
  KmYamlNode *b;
  KmYamlNode *e;
  KmSourcePos pos;

  g_assert_no_error (error);
  g_assert_nonnull (root);
  g_assert_cmpint (km_yaml_node_get_kind (root), ==, KM_YAML_MAPPING);
  g_assert_cmpuint (km_yaml_node_get_length (root), ==, 3);
  g_assert_cmpstr (km_yaml_node_get_scalar (km_yaml_mapping_get_key (root, 1), NULL), ==, "bé");

  b = km_yaml_mapping_lookup (root, "bé");
  g_assert_nonnull (b);
  pos = km_yaml_node_get_pos (km_yaml_sequence_get (b, 0));
  g_assert_cmpuint (pos.line, ==, 3);
  g_assert_cmpuint (pos.column, ==, 5);
  g_assert_cmpint (km_yaml_node_get_style (km_yaml_sequence_get (b, 0)), ==,
                   KM_YAML_STYLE_DOUBLE_QUOTED);
  pos = km_yaml_node_get_pos (km_yaml_sequence_get (km_yaml_sequence_get (b, 1), 2));
  g_assert_cmpuint (pos.line, ==, 4);
  g_assert_cmpuint (pos.column, ==, 13);

  /* columns count characters, not bytes: "é: é" puts the value at column 4 */
  e = km_yaml_mapping_lookup (root, "é");
  pos = km_yaml_node_get_pos (e);
  g_assert_cmpuint (pos.line, ==, 5);
  g_assert_cmpuint (pos.column, ==, 4);
  g_assert_cmpstr (km_yaml_node_get_file (e), ==, "t.yaml");
}

/* The text of @node in @text, from its span. */
static char *
span_text (const char       *text,
           const KmYamlNode *node)
{
  gsize start = 0, end = 0;

  g_assert_true (km_yaml_node_get_span (node, &start, &end));
  g_assert_cmpuint (start, <=, end);
  g_assert_cmpuint (end, <=, strlen (text));
  return g_strndup (text + start, end - start);
}

/* Every parsed node knows the bytes it was read from (how a writer patches the original
 * text); a built node has none. */
static void
test_spans (void)
{
  const char *text = "# comment\n"
                     "a: 1.5   # after\n"
                     "bé: &anchor\n"
                     "  - \"x y\"\n"
                     "  - [ 1, 2,\n"
                     "      3 ]\n"
                     "c: *anchor\n"
                     "d: { k: 'v' }\n"
                     "e: !!str tagged\n"
                     "f:\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(KmYamlNode) root = parse (text, &error);
  g_autoptr(KmYamlNode) built = km_yaml_node_new_string ("x");
  g_autoptr(KmYamlNode) copy = NULL;
  KmYamlNode *b;
  gsize start = 1, end = 1;
  char *s;

  g_assert_no_error (error);
  g_assert_nonnull (root);
  s = span_text (text, km_yaml_mapping_get_key (root, 0));
  g_assert_cmpstr (s, ==, "a");
  g_free (s);
  s = span_text (text, km_yaml_mapping_lookup (root, "a"));
  g_assert_cmpstr (s, ==, "1.5");
  g_free (s);
  b = km_yaml_mapping_lookup (root, "bé");
  s = span_text (text, km_yaml_sequence_get (b, 0));
  g_assert_cmpstr (s, ==, "\"x y\"");
  g_free (s);
  s = span_text (text, km_yaml_sequence_get (b, 1));
  g_assert_cmpstr (s, ==, "[ 1, 2,\n      3 ]");
  g_free (s);
  s = span_text (text, km_yaml_sequence_get (km_yaml_sequence_get (b, 1), 2));
  g_assert_cmpstr (s, ==, "3");
  g_free (s);
  /* A block collection: from its anchor to where the next token begins. */
  s = span_text (text, b);
  g_assert_true (g_str_has_prefix (s, "&anchor\n  - \"x y\""));
  g_assert_true (g_str_has_suffix (s, "3 ]\n"));
  g_free (s);
  /* An alias is the node of its anchor. */
  g_assert_true (km_yaml_mapping_lookup (root, "c") == b);
  s = span_text (text, km_yaml_mapping_lookup (root, "d"));
  g_assert_cmpstr (s, ==, "{ k: 'v' }");
  g_free (s);
  s = span_text (text, km_yaml_mapping_lookup (km_yaml_mapping_lookup (root, "d"), "k"));
  g_assert_cmpstr (s, ==, "'v'");
  g_free (s);
  s = span_text (text, km_yaml_mapping_lookup (root, "e"));
  g_assert_cmpstr (s, ==, "!!str tagged");
  g_free (s);
  /* An empty value is an empty span, where the value would be. */
  s = span_text (text, km_yaml_mapping_lookup (root, "f"));
  g_assert_cmpstr (s, ==, "");
  g_free (s);
  s = span_text (text, root);
  g_assert_true (g_str_has_prefix (s, "a: 1.5"));
  g_free (s);

  /* Byte offsets after a byte-order mark, CRLF line ends and characters of two bytes. */
  {
    const char *crlf = "\xEF\xBB\xBF" "é: 1\r\n" "b: [ x, é ]\r\n";
    g_autoptr(KmYamlNode) other = parse (crlf, &error);

    g_assert_no_error (error);
    s = span_text (crlf, km_yaml_mapping_lookup (other, "é"));
    g_assert_cmpstr (s, ==, "1");
    g_free (s);
    s = span_text (crlf, km_yaml_mapping_lookup (other, "b"));
    g_assert_cmpstr (s, ==, "[ x, é ]");
    g_free (s);
    s = span_text (crlf, km_yaml_sequence_get (km_yaml_mapping_lookup (other, "b"), 1));
    g_assert_cmpstr (s, ==, "é");
    g_free (s);
  }

  copy = km_yaml_node_copy (km_yaml_mapping_lookup (root, "d"));
  s = span_text (text, copy);
  g_assert_cmpstr (s, ==, "{ k: 'v' }");
  g_free (s);
  g_assert_false (km_yaml_node_get_span (built, &start, &end));
  g_assert_cmpuint (start, ==, 0);
  g_assert_cmpuint (end, ==, 0);
}

static void
test_typed (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(KmYamlNode) root = parse ("n: -1.5e2\nh: 0x10\ni: 42\nb: Yes\ns: \"12\"\n"
                                      "v: [ 1, 2.5, -3 ]\nbad: [ 1, x, 3 ]\ninf: .inf\n", &error);
  double d;
  gint64 i;
  gboolean b;
  KmVec3 v;

  g_assert_no_error (error);
  g_assert_true (km_yaml_expect_number (km_yaml_mapping_lookup (root, "n"), &d, &error));
  g_assert_cmpfloat (d, ==, -150.0);
  g_assert_true (km_yaml_expect_number (km_yaml_mapping_lookup (root, "h"), &d, &error));
  g_assert_cmpfloat (d, ==, 16.0);
  g_assert_true (km_yaml_expect_int (km_yaml_mapping_lookup (root, "i"), &i, &error));
  g_assert_cmpint (i, ==, 42);
  g_assert_true (km_yaml_expect_bool (km_yaml_mapping_lookup (root, "b"), &b, &error));
  g_assert_true (b);
  g_assert_true (km_yaml_expect_vec3 (km_yaml_mapping_lookup (root, "v"), &v, &error));
  g_assert_cmpfloat (v.y, ==, 2.5);
  g_assert_cmpfloat (v.z, ==, -3.0);

  /* a quoted scalar is a string, not a number */
  g_assert_false (km_yaml_expect_number (km_yaml_mapping_lookup (root, "s"), &d, &error));
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_INVALID);
  g_assert_true (g_str_has_prefix (error->message, "t.yaml:5:4: "));
  g_clear_error (&error);

  g_assert_false (km_yaml_expect_vec3 (km_yaml_mapping_lookup (root, "bad"), &v, &error));
  g_assert_true (g_str_has_prefix (error->message, "t.yaml:7:11: "));
  g_clear_error (&error);

  g_assert_false (km_yaml_expect_number (km_yaml_mapping_lookup (root, "inf"), &d, &error));
  g_assert_true (g_str_has_prefix (error->message, "t.yaml:8:6: "));
  g_clear_error (&error);

  g_assert_false (km_yaml_expect_int (km_yaml_mapping_lookup (root, "n"), &i, &error));
  g_assert_true (g_str_has_prefix (error->message, "t.yaml:1:4: "));
  g_clear_error (&error);

  g_assert_null (km_yaml_expect_key (root, "missing", &error));
  g_assert_true (g_str_has_prefix (error->message, "t.yaml:1:1: "));
  g_assert_nonnull (strstr (error->message, "missing"));
}

static void
test_malformed (void)
{
  g_autoptr(GError) error = NULL;
  KmYamlNode *root;

  root = parse ("a: 1\nb: [ 1, 2\nc: 3\n", &error);
  g_assert_null (root);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_SYNTAX);
  g_assert_true (g_str_has_prefix (error->message, "t.yaml:3:2: "));
  g_clear_error (&error);

  root = parse ("a: 1\n  b: 2\n", &error);
  g_assert_null (root);
  g_assert_true (g_str_has_prefix (error->message, "t.yaml:2:4: "));
  g_clear_error (&error);

  /* invalid UTF-8: a reader error, located by byte offset */
  root = parse ("a: 1\nb: \xff\n", &error);
  g_assert_null (root);
  g_assert_true (g_str_has_prefix (error->message, "t.yaml:2:4: "));
  g_clear_error (&error);

  root = parse ("", &error);
  g_assert_null (root);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_INVALID);
  g_clear_error (&error);

  root = parse ("a: 1\n---\nb: 2\n", &error);
  g_assert_null (root);
  g_assert_true (g_str_has_prefix (error->message, "t.yaml:2:1: "));
  g_clear_error (&error);

  root = parse ("a: 1\nb: 2\na: 3\n", &error);
  g_assert_null (root);
  g_assert_true (g_str_has_prefix (error->message, "t.yaml:3:1: "));
  g_assert_nonnull (strstr (error->message, "line 1"));
  g_clear_error (&error);

  root = parse ("a: *nothing\n", &error);
  g_assert_null (root);
  g_assert_true (g_str_has_prefix (error->message, "t.yaml:1:4: "));
  g_clear_error (&error);

  root = parse ("a: &x [ 1, *x ]\n", &error);
  g_assert_null (root);
  g_assert_true (g_str_has_prefix (error->message, "t.yaml:1:12: "));
}

static void
test_duplicates_large (void)
{
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  KmYamlNode *root;

  for (guint i = 0; i < 100; i++)
    g_string_append_printf (text, "k%u: %u\n", i, i);
  g_string_append (text, "k57: again\n");
  root = parse (text->str, &error);
  g_assert_null (root);
  g_assert_true (g_str_has_prefix (error->message, "t.yaml:101:1: "));
  g_assert_nonnull (strstr (error->message, "line 58"));
}

static void
test_aliases (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(KmYamlNode) root = parse ("a: &v [ 1, 2 ]\nb: *v\n", &error);
  g_autoptr(KmYamlNode) bomb = NULL;
  g_autoptr(GString) text = g_string_new ("l0: &l0 [ x, x, x, x, x, x, x, x, x, x ]\n");

  g_assert_no_error (error);
  g_assert_true (km_yaml_mapping_lookup (root, "a") == km_yaml_mapping_lookup (root, "b"));
  g_assert_cmpuint (km_yaml_node_get_weight (root), ==, 2 + 2 * 3 + 1);

  /* billion laughs: 10^12 nodes expanded, refused in microseconds */
  for (guint i = 1; i < 12; i++)
    {
      g_string_append_printf (text, "l%u: &l%u [", i, i);
      for (guint j = 0; j < 10; j++)
        g_string_append_printf (text, "%s*l%u", j ? ", " : " ", i - 1);
      g_string_append (text, " ]\n");
    }
  bomb = parse (text->str, &error);
  g_assert_null (bomb);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT);
  g_assert_true (g_str_has_prefix (error->message, "t.yaml:7:"));
}

static void
test_depth (void)
{
  g_autoptr(GString) text = g_string_new ("a: ");
  g_autoptr(GError) error = NULL;
  KmYamlLimits limits = { .max_depth = 10 };
  const char *deep = "a: &d [[[[[[[ 1 ]]]]]]]\nb: [[[[ *d ]]]]\n";
  KmYamlNode *root;

  for (guint i = 0; i < 100000; i++)
    g_string_append_c (text, '[');
  root = parse (text->str, &error);
  g_assert_null (root);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT);
  g_assert_true (g_str_has_prefix (error->message, "t.yaml:1:"));
  g_clear_error (&error);

  /* an alias counts with its own depth */
  root = km_yaml_parse ("t.yaml", deep, strlen (deep), &limits, &error);
  g_assert_null (root);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT);
  g_assert_true (g_str_has_prefix (error->message, "t.yaml:2:9: "));
  g_clear_error (&error);

  limits.max_nodes = 5;
  root = km_yaml_parse ("t.yaml", "[ 1, 2, 3, 4, 5, 6 ]", 20, &limits, &error);
  g_assert_null (root);
  /* what was expected, and that it is Kinema's bound, not the file's fault */
  g_assert_cmpstr (error->message, ==,
                   "t.yaml:1:15: expected at most 5 YAML nodes (Kinema’s limit for one file)");
}

/* A scalar tagged !!float or !!int is that number whatever its style (YAML's core schema:
 * the tag decides, `!!float "0.5"` as canonical emitters write it); one that is a string
 * by its tag or quotes is refused as a string where a number is wanted. */
static void
test_tagged_numbers (void)
{
  static const char text[] =
    "a: !!float \"0.5\"\n"
    "b: !!int '3'\n"
    "c: !!str \"0.5\"\n"
    "d: !!str 0.5\n"
    "e: \"0.5\"\n"
    "f: !!float x\n"
    "g: !!str \"3\"\n"
    "h: !!bool \"true\"\n"
    "i: !!seq [ !!float 0, 0, !!float \"0.5\" ]\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(KmYamlNode) root = parse (text, &error);
  double v, xyz[3];
  gint64 n;
  gboolean b;

  g_assert_no_error (error);
  g_assert_true (km_yaml_expect_number (km_yaml_mapping_lookup (root, "a"), &v, &error));
  g_assert_cmpfloat (v, ==, 0.5);
  g_assert_true (km_yaml_expect_int (km_yaml_mapping_lookup (root, "b"), &n, &error));
  g_assert_cmpint (n, ==, 3);
  g_assert_true (km_yaml_expect_number (km_yaml_mapping_lookup (root, "b"), &v, &error));
  g_assert_cmpfloat (v, ==, 3);
  g_assert_true (km_yaml_expect_bool (km_yaml_mapping_lookup (root, "h"), &b, &error));
  g_assert_true (b);
  g_assert_true (km_yaml_expect_numbers (km_yaml_mapping_lookup (root, "i"), xyz, 3, &error));
  g_assert_cmpfloat (xyz[2], ==, 0.5);
  g_assert_no_error (error);

  g_assert_false (km_yaml_expect_number (km_yaml_mapping_lookup (root, "c"), &v, &error));
  g_assert_cmpstr (error->message, ==, "t.yaml:3:4: expected a finite number, found a string");
  g_clear_error (&error);
  g_assert_false (km_yaml_expect_number (km_yaml_mapping_lookup (root, "d"), &v, &error));
  g_assert_cmpstr (error->message, ==, "t.yaml:4:4: expected a finite number, found a string");
  g_clear_error (&error);
  g_assert_false (km_yaml_expect_number (km_yaml_mapping_lookup (root, "e"), &v, &error));
  g_assert_cmpstr (error->message, ==, "t.yaml:5:4: expected a finite number, found a string");
  g_clear_error (&error);
  g_assert_false (km_yaml_expect_number (km_yaml_mapping_lookup (root, "f"), &v, &error));
  g_assert_cmpstr (error->message, ==, "t.yaml:6:4: expected a finite number");
  g_clear_error (&error);
  g_assert_false (km_yaml_expect_int (km_yaml_mapping_lookup (root, "g"), &n, &error));
  g_assert_cmpstr (error->message, ==, "t.yaml:7:4: expected an integer, found a string");
  g_clear_error (&error);
  /* a number tagged as a string stays a string for the emitter's plain check too */
  g_assert_false (km_yaml_scalar_to_double (km_yaml_mapping_lookup (root, "c"), &v));
}

static guint
table_func (const KmYamlNode *mapping,
            const KmYamlNode *key,
            guint             depth,
            gpointer          user_data)
{
  const char *name = km_yaml_node_get_scalar (key, NULL);

  (*(guint *) user_data)++;
  g_assert_true (km_yaml_node_get_kind (mapping) == KM_YAML_MAPPING);
  if (g_strcmp0 (name, "flat") == 0)
    return 1;
  if (g_strcmp0 (name, "rows") == 0)
    return 2;
  if (g_strcmp0 (name, "deep") == 0)
    {
      /* the pairs read before it are there */
      g_assert_nonnull (km_yaml_mapping_lookup (mapping, "rows"));
      g_assert_cmpuint (depth, ==, 1);
      return 3;
    }
  return 0;
}

/* Tables: numbers and list lengths without a node each, items that are no number or no
 * list marked for the caller, which reads them again as trees for the errors. */
static void
test_tables (void)
{
  static const char text[] =
    "flat: [ 1, 2.5, x, [ 7 ], !!float \"4\" ]\n"
    "rows:\n"
    "  - [ 1, 2 ]\n"
    "  - 5\n"
    "  - [ ]\n"
    "  - { a: 1 }\n"
    "  - [ 3, [ [ 9 ] ], 4 ]\n"
    "deep: [ [ [ 1, 2 ], [ 3 ] ], [ [ 4 ] ] ]\n"
    "other: [ 1, 2 ]\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(KmYamlNode) root = NULL;
  g_autoptr(KmYamlNode) item = NULL;
  KmYamlNode *flat, *rows, *deep;
  const double *values;
  gboolean retry = TRUE;
  guint calls = 0;
  gsize n;
  double *stolen, v;
  KmYamlLimits limits = { .max_values = 5 };

  root = km_yaml_parse_with_tables ("t.yaml", text, strlen (text), NULL, table_func, &calls,
                                    &retry, &error);
  g_assert_no_error (error);
  g_assert_nonnull (root);
  g_assert_false (retry);
  g_assert_cmpuint (calls, ==, 4);
  g_assert_cmpuint (km_yaml_table_get_depth (km_yaml_mapping_lookup (root, "other")), ==, 0);

  flat = km_yaml_mapping_lookup (root, "flat");
  g_assert_cmpuint (km_yaml_table_get_depth (flat), ==, 1);
  /* an ordinary empty sequence for the tree accessors */
  g_assert_cmpint (km_yaml_node_get_kind (flat), ==, KM_YAML_SEQUENCE);
  g_assert_cmpuint (km_yaml_node_get_length (flat), ==, 0);
  g_assert_cmpuint (km_yaml_node_get_pos (flat).column, ==, 7);
  g_assert_cmpuint (km_yaml_table_get_length (flat, 0, 0), ==, 5);
  values = km_yaml_table_get_values (flat, &n);
  g_assert_cmpuint (n, ==, 5);
  g_assert_cmpfloat (values[0], ==, 1);
  g_assert_cmpfloat (values[1], ==, 2.5);
  g_assert_true (isnan (values[2]));
  g_assert_true (isnan (values[3]));
  g_assert_cmpfloat (values[4], ==, 4);
  /* read again as a tree: the value, its place and its message */
  item = km_yaml_table_get_item (flat, text, strlen (text), 2, &error);
  g_assert_no_error (error);
  g_assert_false (km_yaml_expect_number (item, &v, &error));
  g_assert_cmpstr (error->message, ==, "t.yaml:1:17: expected a finite number");
  g_clear_error (&error);
  g_clear_pointer (&item, km_yaml_node_unref);

  rows = km_yaml_mapping_lookup (root, "rows");
  g_assert_cmpuint (km_yaml_table_get_depth (rows), ==, 2);
  g_assert_cmpuint (km_yaml_table_get_length (rows, 0, 0), ==, 5);
  g_assert_cmpuint (km_yaml_table_get_length (rows, 1, 0), ==, 2);
  g_assert_cmpuint (km_yaml_table_get_length (rows, 1, 1), ==, KM_YAML_TABLE_NO_LIST);
  g_assert_cmpuint (km_yaml_table_get_length (rows, 1, 2), ==, 0);
  g_assert_cmpuint (km_yaml_table_get_length (rows, 1, 3), ==, KM_YAML_TABLE_NO_LIST);
  g_assert_cmpuint (km_yaml_table_get_length (rows, 1, 4), ==, 3);
  g_assert_cmpuint (km_yaml_table_get_first (rows, 1, 4), ==, 2);
  values = km_yaml_table_get_values (rows, &n);
  g_assert_cmpuint (n, ==, 5);
  g_assert_cmpfloat (values[2], ==, 3);
  g_assert_true (isnan (values[3]));
  g_assert_cmpfloat (values[4], ==, 4);
  item = km_yaml_table_get_item (rows, text, strlen (text), 4, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (km_yaml_node_get_length (item), ==, 3);
  g_assert_cmpuint (km_yaml_node_get_pos (km_yaml_sequence_get (item, 1)).line, ==, 7);
  g_assert_cmpuint (km_yaml_node_get_pos (km_yaml_sequence_get (item, 1)).column, ==, 10);
  g_clear_pointer (&item, km_yaml_node_unref);
  item = km_yaml_table_get_item (rows, text, strlen (text), 3, &error);
  g_assert_no_error (error);
  g_assert_cmpint (km_yaml_node_get_kind (item), ==, KM_YAML_MAPPING);
  g_clear_pointer (&item, km_yaml_node_unref);
  item = km_yaml_table_get_item (rows, text, strlen (text), 5, &error);
  g_assert_null (item);
  g_assert_nonnull (error);
  g_clear_error (&error);

  deep = km_yaml_mapping_lookup (root, "deep");
  g_assert_cmpuint (km_yaml_table_get_length (deep, 0, 0), ==, 2);
  g_assert_cmpuint (km_yaml_table_get_length (deep, 1, 1), ==, 1);
  g_assert_cmpuint (km_yaml_table_get_first (deep, 1, 1), ==, 2);
  g_assert_cmpuint (km_yaml_table_get_length (deep, 2, 2), ==, 1);
  g_assert_cmpuint (km_yaml_table_get_first (deep, 2, 2), ==, 3);
  stolen = km_yaml_table_steal_values (deep, &n);
  g_assert_cmpuint (n, ==, 4);
  g_assert_cmpfloat (stolen[3], ==, 4);
  g_free (stolen);
  g_assert_cmpuint (km_yaml_table_get_depth (deep), ==, 0);
  g_clear_pointer (&root, km_yaml_node_unref);

  /* An anchor or alias in a table: parsed again without tables by the caller. */
  root = km_yaml_parse_with_tables ("t.yaml", "rows: [ &a [ 1 ], *a ]\n", 22, NULL,
                                    table_func, &calls, &retry, &error);
  g_assert_null (root);
  g_assert_no_error (error);
  g_assert_true (retry);
  root = km_yaml_parse_with_tables ("t.yaml", "a: &a 1\nrows: [ [ *a ] ]\n", 25, NULL,
                                    table_func, &calls, &retry, &error);
  g_assert_null (root);
  g_assert_true (retry);

  /* The bound on numbers and lists, and the depth bound inside a table. */
  root = km_yaml_parse_with_tables ("t.yaml", "rows: [ [ 1, 2 ], [ 3, 4 ] ]\n", 29, &limits,
                                    table_func, &calls, &retry, &error);
  g_assert_null (root);
  g_assert_false (retry);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT);
  g_assert_cmpstr (error->message, ==, "t.yaml:1:24: expected at most 5 numbers and lists "
                   "(Kinema’s limit for one file)");
  g_clear_error (&error);
  limits = (KmYamlLimits) { .max_depth = 4 };
  root = km_yaml_parse_with_tables ("t.yaml", "rows: [ [ [ [ 1 ] ] ] ]\n", 24, &limits,
                                    table_func, &calls, &retry, &error);
  g_assert_null (root);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT);
  g_assert_cmpstr (error->message, ==, "t.yaml:1:13: nesting deeper than 4 levels");
}

static void
test_emit (void)
{
  static const char text[] =
    "optional_plugins: [ PhysX, MuJoCo ]\n"
    "items:\n"
    "  id: 0\n"
    "  name: \"RootItem\"\n"
    "  tag: 'it''s'\n"
    "  empty: [ ]\n"
    "  children:\n"
    "    -\n"
    "      id: 1\n"
    "      data:\n"
    "        joints: [\n"
    "          0, -2.1, 0, 4.50001, -2.40001, 0, 10, -0.20002, 0, -90,\n"
    "          0, 1 ]\n"
    "        nested: [ [ 1, 2 ], { a: 1, b: \"x y\" } ]\n"
    "    - plain\n"
    "toolbars:\n"
    "  \"TimeBar\":\n"
    "    current_time: 0\n"
    "  rows:\n"
    "    -\n"
    "      - { name: \"FileBar\", x: 0 }\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(KmYamlNode) root = parse (text, &error);
  g_autoptr(KmYamlNode) built = km_yaml_node_new_mapping (KM_YAML_STYLE_BLOCK);
  g_autoptr(KmYamlNode) reread = NULL;
  g_autofree char *out = NULL;
  g_autofree char *out2 = NULL;
  double values[] = { 0.1, 1.0 / 3.0, -0.0, 1e-300, 4.50001 };
  KmYamlNode *seq;

  g_assert_no_error (error);
  out = km_yaml_emit_to_string (root, NULL);
  g_assert_cmpstr (out, ==, text);

  km_yaml_mapping_append (built, "name", km_yaml_node_new_string ("a \"b\"\n"));
  km_yaml_mapping_append (built, "plain", km_yaml_node_new_scalar ("true", KM_YAML_STYLE_ANY));
  km_yaml_mapping_append (built, "colon", km_yaml_node_new_scalar ("a: b", KM_YAML_STYLE_ANY));
  km_yaml_mapping_append (built, "values", km_yaml_node_new_numbers (values, 5));
  km_yaml_mapping_set (built, "plain", km_yaml_node_new_int (7));
  out2 = km_yaml_emit_to_string (built, NULL);
  g_assert_cmpstr (out2, ==,
                   "name: \"a \\\"b\\\"\\n\"\n"
                   "plain: 7\n"
                   "colon: \"a: b\"\n"
                   "values: [ 0.1, 0.3333333333333333, -0, 1e-300, 4.50001 ]\n");
  reread = parse (out2, &error);
  g_assert_no_error (error);
  g_assert_true (km_yaml_node_equal (reread, built));
  seq = km_yaml_mapping_lookup (reread, "values");
  for (guint i = 0; i < 5; i++)
    {
      double d;

      g_assert_true (km_yaml_expect_number (km_yaml_sequence_get (seq, i), &d, &error));
      g_assert_cmpmem (&d, sizeof d, &values[i], sizeof values[i]);
    }
  g_assert_true (km_yaml_mapping_remove (built, "colon"));
  g_assert_false (km_yaml_node_equal (reread, built));
}

/* parse → emit → parse gives an equal tree (the property tests/fuzz/fuzz-yaml.c checks),
 * the emitted text is @expected, and emitting the tree read back gives it again. */
static void
assert_round_trip (const char *text,
                   gsize       length,
                   const char *expected)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(KmYamlNode) root = km_yaml_parse ("t.yaml", text, length, NULL, &error);
  g_autoptr(KmYamlNode) again = NULL;
  g_autofree char *out = NULL;
  g_autofree char *out2 = NULL;
  gsize out_length = 0;

  g_assert_no_error (error);
  out = km_yaml_emit_to_string (root, &out_length);
  again = km_yaml_parse ("again.yaml", out, out_length, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (km_yaml_node_equal (root, again));
  g_assert_cmpstr (out, ==, expected);
  /* written again from what it read back: the same text */
  out2 = km_yaml_emit_to_string (again, NULL);
  g_assert_cmpstr (out2, ==, out);
}

static void
test_emit_tags (void)
{
  /* the non-specific tag "!", shorthands, and tags that only a verbatim "!<…>" can write:
   * a local tag with a second '!' (it would read as the undefined handle "!a!"), a space
   * and a '%' (escaped as %20 and %25) */
  static const char text[] =
    "- ! a\n"
    "- !\n"
    "- !foo b\n"
    "- !!str c\n"
    "- !!a!b d\n"
    "- !<tag:e.com,2000:x> e\n"
    "- !<!a!b> f\n"
    "- !<a%20b%25> g\n"
    "- !m\n"
    "  !k h: !v [ !s i, !e ]\n";
  static const char expected[] =
    "- ! a\n"
    "- ! \"\"\n"
    "- !foo b\n"
    "- !!str c\n"
    "- !<tag:yaml.org,2002:a!b> d\n"
    "- !<tag:e.com,2000:x> e\n"
    "- !<!a!b> f\n"
    "- !<a%20b%25> g\n"
    "- !m\n"
    "  !k h: !v [ !s i, !e \"\" ]\n";
  static const char directive[] = "%TAG !e! tag:e.com,2000:\n--- !e!x%21y a\n";
  static const char root[] = "--- !m\n!k a: 1\n";

  assert_round_trip (text, strlen (text), expected);
  assert_round_trip (directive, strlen (directive), "!<tag:e.com,2000:x!y> a\n");
  assert_round_trip (root, strlen (root), "!m\n!k a: 1\n");
}

static void
test_emit_complex_keys (void)
{
  /* tests/fuzz/README.md's open input: a tagged key, and a sequence with one empty item as
   * a key (was written "[  ]:", an empty sequence) */
  static const char open_input[] = "!  -:\n  2 -\n? -\n";
  /* a mapping key whose plain scalar holds ":?" (fine in block, refused in flow) */
  static const char colon[] = "? x:?y: 1\n: 2\n";
  /* a flow key wrapped over lines (an implicit key must be on one line) */
  static const char wrapped[] = "? [ 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 ]\n: x\n";
  /* a flow mapping with a complex key, inside a flow sequence: written in block style */
  static const char in_flow[] = "[ { ? [ a ] : b, c: d } ]\n";
  /* an anchored empty scalar in a flow sequence (was written "[ , a ]"); an alias as key */
  static const char anchors[] = "a: &x\n  b: 1\n? *x\n: [ &e , a ]\n";
  g_autofree char *k = g_strnfill (1500, 'k');
  g_autofree char *long_key = NULL;
  g_autofree char *long_expected = NULL;

  assert_round_trip (open_input, strlen (open_input), "! \"-\": 2 -\n?\n  -\n:\n");
  assert_round_trip (colon, strlen (colon), "?\n  \"x:?y\": 1\n: 2\n");
  assert_round_trip (wrapped, strlen (wrapped),
                     "? [\n  1, 2, 3, 4, 5, 6, 7, 8, 9, 10,\n  11 ]\n: x\n");
  assert_round_trip (in_flow, strlen (in_flow), "-\n  ? [ a ]\n  : b\n  c: d\n");
  assert_round_trip (anchors, strlen (anchors), "a:\n  b: 1\n?\n  b: 1\n: [ \"\", a ]\n");

  /* a key longer than libyaml's 1024 characters for an implicit key, in block and flow */
  long_key = g_strdup_printf ("? %s\n: { ? %s : 1 }\n", k, k);
  long_expected = g_strdup_printf ("? %s\n:\n  ? %s\n  : 1\n", k, k);
  assert_round_trip (long_key, strlen (long_key), long_expected);
}

/* A read value keeps the layout it had: literal and folded scalars stay block scalars,
 * and a flow list broken into lines is written with as many items to a line, its
 * continuation lines under the first item or, where the first began a line of its own,
 * indented as Choreonoid writes them (with its spaces before the line breaks or not). */
static void
test_emit_source_layout (void)
{
  static const char text[] =
    "script: |\n"
    "  print(\"a: b\")\n"
    "\n"
    "    indented \"x\"\n"
    "  last\n"
    "strip: |-\n"
    "  no newline\n"
    "keep: |+\n"
    "  two newlines\n"
    "\n"
    "leading: |\n"
    "\n"
    "  after an empty line\n"
    "folded: >\n"
    "  one paragraph\n"
    "\n"
    "  another\n"
    "    more indented\n"
    "  back\n"
    "folded_strip: >-\n"
    "  a b\n"
    "tagged: !!str |\n"
    "  tab\there\n"
    "list:\n"
    "  - |\n"
    "    in a list\n"
    "  -\n"
    "    ? |\n"
    "      a key\n"
    "    : 1\n"
    "rotation: [ 1, 0, 0,\n"
    "            0, 1, 0,\n"
    "            0, 0, 1 ]\n"
    "attitude: [ \n"
    "  1, -0, -1.38777878e-17, \n"
    "  0, 1, -0, \n"
    "  1.38777878e-17, 0, 1 ]\n"
    "nested:\n"
    "  \"h\xC3\xA9\": [ 1, 2,\n"
    "          3 ]\n"
    "  rows:\n"
    "    - [\n"
    "      a, 'b c',\n"
    "      \"d\" ]\n"
    "one_line: [ 1, 0, 0, 0, 1, 0, 0, 0, 1 ]\n"
    "? |\n"
    "  key\n"
    ": [ 1,\n"
    "    2 ]\n";
  /* block scalars a block scalar cannot write as they are read: double-quoted */
  static const char fallback[] =
    "a: |2\n"
    "   leading space\n"
    "b: |2\n"
    "  \tleading tab\n"
    "c: >\n"
    "  folded\n"
    "  lines\n"
    "e: |\n"
    "f: 1\n";
  g_autoptr(KmYamlNode) built = km_yaml_node_new_mapping (KM_YAML_STYLE_BLOCK);
  g_autofree char *out = NULL;
  double rotation[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };

  assert_round_trip (text, strlen (text), text);
  assert_round_trip (fallback, strlen (fallback),
                     "a: \" leading space\\n\"\n"
                     "b: \"\\tleading tab\\n\"\n"
                     "c: >\n"
                     "  folded lines\n"
                     "e: \"\"\n"
                     "f: 1\n");

  /* what is built is written as before */
  km_yaml_mapping_append (built, "text",
                          km_yaml_node_new_scalar ("a\nb\n", KM_YAML_STYLE_ANY));
  km_yaml_mapping_append (built, "rotation", km_yaml_node_new_numbers (rotation, 9));
  out = km_yaml_emit_to_string (built, NULL);
  g_assert_cmpstr (out, ==,
                   "text: \"a\\nb\\n\"\n"
                   "rotation: [ 1, 0, 0, 0, 1, 0, 0, 0, 1 ]\n");
}

static void
test_emit_escapes (void)
{
  /* line breaks libyaml folds (NEL, LS, PS) and characters its reader refuses (C1
   * controls, U+FFFE, U+FEFF inside) are escaped; other characters are written as UTF-8 */
  static const char text[] =
    "\"a\\x85b\\u2028c\\u2029\\x80\\uFFFE\\uFEFF\\0\\x1F\\x7F\\t\\U0001F600\\xE9\"\n";
  static const char expected[] =
    "\"a\\x85b\\u2028c\\u2029\\x80\\uFFFE\\uFEFF\\0\\x1F\\x7F\\t\xF0\x9F\x98\x80\xC3\xA9\"\n";
  g_autoptr(KmYamlNode) seq = km_yaml_node_new_sequence (KM_YAML_STYLE_FLOW);
  g_autoptr(KmYamlNode) again = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;

  assert_round_trip (text, strlen (text), expected);

  /* built nodes: plain text that flow context refuses, a single-quoted NEL, an empty
   * plain scalar */
  km_yaml_sequence_append (seq, km_yaml_node_new_scalar ("a:?b", KM_YAML_STYLE_ANY));
  km_yaml_sequence_append (seq, km_yaml_node_new_scalar ("a:{b", KM_YAML_STYLE_PLAIN));
  km_yaml_sequence_append (seq, km_yaml_node_new_scalar ("a\xC2\x85" "b",
                                                         KM_YAML_STYLE_SINGLE_QUOTED));
  km_yaml_sequence_append (seq, km_yaml_node_new_scalar ("", KM_YAML_STYLE_PLAIN));
  out = km_yaml_emit_to_string (seq, NULL);
  g_assert_cmpstr (out, ==, "[ \"a:?b\", \"a:{b\", \"a\\x85b\", \"\" ]\n");
  again = parse (out, &error);
  g_assert_no_error (error);
  g_assert_true (km_yaml_node_equal (seq, again));
}

static void
test_sniff (void)
{
  static const char a[] = "# c\noptional_plugins: [ X ]\n\nitems:\n  id: 0\n";
  static const char b[] = "links:\n  - name: x\n";
  static const char c[] = "- items: 1\n";

  g_assert_true (km_yaml_sniff_top_key (a, strlen (a), "items"));
  g_assert_false (km_yaml_sniff_top_key (b, strlen (b), "items"));
  g_assert_false (km_yaml_sniff_top_key (c, strlen (c), "items"));
  g_assert_false (km_yaml_sniff_top_key ("{\"items\": 1}", 12, "items"));
}

/* Numbers are written with the fewest significant digits that read back exactly, at least
 * six, and every double reads back as itself. */
static void
test_format_number (void)
{
  static const struct { double value; const char *text; } cases[] = {
    { 0.0, "0" }, { 60.0, "60" }, { 0.5, "0.5" }, { -1.25, "-1.25" },
    { 1e6, "1e+06" }, { 123456.0, "123456" }, { 1234567.0, "1234567" },
    { 0.0001, "0.0001" }, { 0.00001, "1e-05" }, { 0.1234567, "0.1234567" },
    { 0.30000000000000004, "0.30000000000000004" }, { 0.1 + 0.7, "0.7999999999999999" },
    { 1.0 / 3.0, "0.3333333333333333" }, { 2.0 / 3.0, "0.6666666666666666" },
    { 123456789012345.0, "123456789012345" }, { 1e300, "1e+300" },
    { 4.9406564584124654e-324, "4.94066e-324" }, { 2.2250738585072014e-308, "2.2250738585072014e-308" },
  };
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];
  guint64 state = 12345;

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      km_yaml_format_number (cases[i].value, buffer, sizeof buffer);
      g_assert_cmpstr (buffer, ==, cases[i].text);
    }
  /* Random bit patterns, subnormals included: exact, never more than 17 digits. */
  for (guint i = 0; i < 20000; i++)
    {
      double value;

      state = state * 6364136223846793005ull + 1442695040888963407ull;
      memcpy (&value, &state, sizeof value);
      if (!isfinite (value))
        continue;
      km_yaml_format_number (value, buffer, sizeof buffer);
      g_assert_cmpfloat (g_ascii_strtod (buffer, NULL), ==, value);
    }
}

/* Item @index of the generated sequences below: flow mappings like an animation's frames,
 * with now and then a block mapping, a scalar, a list, an empty mapping and a tagged one. */
static KmYamlNode *
generated_item (gpointer data,
                guint    index)
{
  KmYamlNode *item;
  KmYamlNode *joints;
  KmYamlNode *joint;

  g_assert_cmpstr (data, ==, "items");
  switch (index % 7)
    {
    case 3:
      item = km_yaml_node_new_mapping (KM_YAML_STYLE_BLOCK);
      km_yaml_mapping_append (item, "name", km_yaml_node_new_string ("block: one"));
      km_yaml_mapping_append (item, "list", km_yaml_node_new_sequence (KM_YAML_STYLE_BLOCK));
      return item;
    case 4:
      return km_yaml_node_new_number (index * 0.25);
    case 5:
      {
        double values[12];

        for (guint i = 0; i < G_N_ELEMENTS (values); i++)
          values[i] = index + i;
        return km_yaml_node_new_numbers (values, index % 2 == 0 ? 12 : 3);
      }
    case 6:
      item = km_yaml_node_new_mapping (KM_YAML_STYLE_FLOW);
      if (index % 2 == 0)
        return item;
      km_yaml_mapping_append (item, "a", km_yaml_node_new_scalar ("", KM_YAML_STYLE_PLAIN));
      return item;
    default:
      break;
    }
  item = km_yaml_node_new_mapping (KM_YAML_STYLE_FLOW);
  joints = km_yaml_node_new_mapping (KM_YAML_STYLE_FLOW);
  joint = km_yaml_node_new_mapping (KM_YAML_STYLE_FLOW);
  km_yaml_mapping_append (joint, "type", km_yaml_node_new_scalar ("revolute",
                                                                  KM_YAML_STYLE_PLAIN));
  km_yaml_mapping_append (joint, "angle", km_yaml_node_new_number (index * 0.001));
  km_yaml_mapping_append_node (joints, km_yaml_node_new_string ("Elbow"), joint);
  km_yaml_mapping_append (item, "frame", km_yaml_node_new_int (index));
  km_yaml_mapping_append (item, "joints", joints);
  return item;
}

static void
counting_free (gpointer data)
{
  (*(guint *) data)++;
}

/* The ways a sequence is written: alone, as a mapping value, as an item of a block and of
 * a flow sequence. */
static KmYamlNode *
generated_document (guint       shape,
                    KmYamlNode *seq)
{
  KmYamlNode *root;

  switch (shape)
    {
    case 0:
      return seq;
    case 1:
      root = km_yaml_node_new_mapping (KM_YAML_STYLE_BLOCK);
      km_yaml_mapping_append (root, "before", km_yaml_node_new_int (1));
      km_yaml_mapping_append (root, "frames", seq);
      km_yaml_mapping_append (root, "after", km_yaml_node_new_string ("x"));
      return root;
    default:
      root = km_yaml_node_new_sequence (shape == 2 ? KM_YAML_STYLE_BLOCK : KM_YAML_STYLE_FLOW);
      km_yaml_sequence_append (root, km_yaml_node_new_int (1));
      km_yaml_sequence_append (root, seq);
      return root;
    }
}

/* A generated sequence is written as the sequence of all its items is, byte for byte, in
 * each place a sequence can be, and compares and copies as that sequence; written, its
 * items are built one at a time and each dropped before the next is built. */
static void
test_emit_generated (void)
{
  static const guint lengths[] = { 0, 1, 2, 7, 15, 200 };
  guint freed = 0;

  for (guint l = 0; l < G_N_ELEMENTS (lengths); l++)
    for (guint shape = 0; shape < 4; shape++)
      for (guint flow = 0; flow < 2; flow++)
        {
          guint n = lengths[l];
          KmYamlNode *seq = km_yaml_node_new_generated (n, generated_item, "items", NULL);
          KmYamlNode *built = km_yaml_node_new_sequence (KM_YAML_STYLE_BLOCK);
          g_autoptr(KmYamlNode) doc = NULL;
          g_autoptr(KmYamlNode) built_doc = NULL;
          g_autoptr(KmYamlNode) copy = NULL;
          g_autofree char *text = NULL;
          g_autofree char *built_text = NULL;

          for (guint i = 0; i < n; i++)
            km_yaml_sequence_append (built, generated_item ("items", i));
          if (flow)
            {
              km_yaml_node_set_style (seq, KM_YAML_STYLE_FLOW);
              km_yaml_node_set_style (built, KM_YAML_STYLE_FLOW);
            }
          g_assert_true (km_yaml_node_is_deferred (seq));
          g_assert_cmpint (km_yaml_node_get_kind (seq), ==, KM_YAML_SEQUENCE);
          g_assert_cmpuint (km_yaml_node_get_length (seq), ==, 0);
          doc = generated_document (shape, seq);
          built_doc = generated_document (shape, built);
          text = km_yaml_emit_to_string (doc, NULL);
          built_text = km_yaml_emit_to_string (built_doc, NULL);
          g_assert_cmpstr (text, ==, built_text);
          g_assert_true (km_yaml_node_equal (doc, built_doc));
          copy = km_yaml_node_copy (doc);
          g_assert_false (km_yaml_node_is_deferred (copy));
          g_assert_true (km_yaml_node_equal (copy, built_doc));
        }

  /* Written, a long one holds one item at a time, not the list. */
  {
    g_autoptr(KmYamlNode) root = km_yaml_node_new_mapping (KM_YAML_STYLE_BLOCK);
    g_autofree char *text = NULL;
    guint live_before;
    guint peak;

    km_yaml_mapping_append (root, "frames",
                            km_yaml_node_new_generated (20000, generated_item, "items", NULL));
    km_yaml_node_get_counts (&live_before, NULL);
    km_yaml_node_reset_peak ();
    text = km_yaml_emit_to_string (root, NULL);
    km_yaml_node_get_counts (NULL, &peak);
    g_assert_cmpuint (peak - live_before, <, 100);
    g_assert_nonnull (strstr (text, "\n  - { frame: 19999, joints: { \"Elbow\": "
                                    "{ type: revolute, angle: 19.999 } } }\n"));
  }

  /* The data is freed with the node, once. */
  {
    KmYamlNode *seq = km_yaml_node_new_generated (3, generated_item, "items", NULL);

    km_yaml_node_unref (seq);
    seq = km_yaml_node_new_generated (0, generated_item, &freed, counting_free);
    g_assert_cmpuint (freed, ==, 0);
    km_yaml_node_unref (seq);
    g_assert_cmpuint (freed, ==, 1);
  }
}

/* What a sink's flushes receive (test_emit_to_sink). */
typedef struct
{
  GString *text;
  gsize    largest;
  guint    n_flushes;
} Flushed;

static gboolean
record_flush (const char *data,
              gsize       length,
              gpointer    user_data)
{
  Flushed *flushed = user_data;

  g_string_append_len (flushed->text, data, (gssize) length);
  flushed->largest = MAX (flushed->largest, length);
  flushed->n_flushes++;
  return TRUE;
}

/* A generated sequence's items (generated_item) that note, as each is built, how much
 * text there is so far: in @out (km_yaml_emit()), or else what @flushed has received. */
typedef struct
{
  GString *out;
  Flushed *flushed;
  GArray  *at;        /* gsize, one for each item built */
} Probe;

static KmYamlNode *
probe_item (gpointer data,
            guint    index)
{
  Probe *probe = data;
  gsize at = probe->out != NULL ? probe->out->len : probe->flushed->text->len;

  g_array_append_val (probe->at, at);
  return generated_item ("items", index);
}

/* km_yaml_emit_to_sink() writes the bytes km_yaml_emit_to_string() does, for every shape
 * of a long generated sequence and with an item longer than the buffer, and hands the
 * sink's flush at most KM_FORMAT_SINK_BUFFER_SIZE bytes at a time, many times, as the
 * text is made: when an item is built, all but at most two buffers (the emitter's and the
 * sink's) of the text before it has gone to the flush. (Within a flow sequence, shape 3,
 * the items are built as a whole list first, as km_yaml_emit() builds them.) */
static void
test_emit_to_sink (void)
{
  for (guint shape = 0; shape < 4; shape++)
    {
      Probe probe = { NULL, NULL, NULL };
      KmYamlNode *seq = km_yaml_node_new_generated (20000, probe_item, &probe, NULL);
      g_autoptr(KmYamlNode) doc = generated_document (shape, seq);
      g_autofree char *long_value = g_strnfill (3 * KM_FORMAT_SINK_BUFFER_SIZE + 17, 'v');
      g_autoptr(GString) text = g_string_new (NULL);
      g_autoptr(GArray) starts = g_array_new (FALSE, FALSE, sizeof (gsize));
      g_autoptr(GArray) flushed_at = g_array_new (FALSE, FALSE, sizeof (gsize));
      Flushed flushed = { g_string_new (NULL), 0, 0 };
      KmFormatSink *sink;

      if (km_yaml_node_get_kind (doc) == KM_YAML_MAPPING)
        km_yaml_mapping_append (doc, "long", km_yaml_node_new_string (long_value));
      else if (km_yaml_node_get_kind (doc) == KM_YAML_SEQUENCE
               && !km_yaml_node_is_deferred (doc))
        km_yaml_sequence_append (doc, km_yaml_node_new_string (long_value));
      probe.out = text;
      probe.at = starts;
      km_yaml_emit (doc, text);
      g_assert_cmpuint (text->len, >, 4 * KM_FORMAT_SINK_BUFFER_SIZE);

      probe.out = NULL;
      probe.flushed = &flushed;
      probe.at = flushed_at;
      sink = km_format_sink_new (record_flush, &flushed);
      g_assert_true (km_yaml_emit_to_sink (doc, sink));
      g_assert_true (km_format_sink_free (sink));
      g_assert_cmpuint (flushed.text->len, ==, text->len);
      g_assert_true (memcmp (flushed.text->str, text->str, text->len) == 0);
      g_assert_cmpuint (flushed.largest, <=, KM_FORMAT_SINK_BUFFER_SIZE);
      g_assert_cmpuint (flushed.n_flushes, >=, text->len / KM_FORMAT_SINK_BUFFER_SIZE);
      if (shape != 3)
        {
          g_assert_cmpuint (starts->len, ==, 20000);
          g_assert_cmpuint (flushed_at->len, ==, 20000);
          for (guint i = 0; i < flushed_at->len; i++)
            g_assert_cmpuint (g_array_index (starts, gsize, i), <=,
                              g_array_index (flushed_at, gsize, i)
                              + 2 * KM_FORMAT_SINK_BUFFER_SIZE);
        }
      g_string_free (flushed.text, TRUE);
    }
}

/* A sink whose flush fails takes nothing more: its writes, and the emit, say FALSE. */
static gboolean
fail_flush (const char *data,
            gsize       length,
            gpointer    user_data)
{
  guint *n_calls = user_data;

  (*n_calls)++;
  errno = ENOSPC;
  return FALSE;
}

/* ... and the emit stops there (a full disk under a long save): no more items are built
 * than the text up to the failed flush, two buffers, holds; none on a sink that has
 * already failed. */
static void
test_emit_to_failed_sink (void)
{
  g_autoptr(GArray) starts = g_array_new (FALSE, FALSE, sizeof (gsize));
  g_autoptr(GString) text = g_string_new (NULL);
  Probe probe = { text, NULL, starts };
  KmYamlNode *seq = km_yaml_node_new_generated (20000, probe_item, &probe, NULL);
  g_autoptr(KmYamlNode) doc = generated_document (1, seq);
  guint n_calls = 0;
  guint n_before = 0;
  KmFormatSink *sink = km_format_sink_new (fail_flush, &n_calls);

  km_yaml_emit (doc, text);
  while (n_before < starts->len
         && g_array_index (starts, gsize, n_before) < 2 * KM_FORMAT_SINK_BUFFER_SIZE)
    n_before++;
  g_assert_cmpuint (n_before, <, 20000 / 4);

  g_array_set_size (starts, 0);
  g_assert_false (km_yaml_emit_to_sink (doc, sink));
  g_assert_true (km_format_sink_failed (sink));
  g_assert_cmpuint (starts->len, >, 0);
  g_assert_cmpuint (starts->len, <=, n_before + 1);
  g_assert_false (km_format_sink_write (sink, "x", 1));

  g_array_set_size (starts, 0);
  g_assert_false (km_yaml_emit_to_sink (doc, sink));
  g_assert_cmpuint (starts->len, ==, 0);
  g_assert_false (km_format_sink_free (sink));
  g_assert_cmpuint (n_calls, ==, 1);
}

/* A sink without a flush function is refused, and nothing is left allocated (the leak
 * shows under the AddressSanitizer build's leak check). */
static void
test_sink_without_flush (void)
{
  if (g_test_undefined ())
    {
      g_test_expect_message ("km-format", G_LOG_LEVEL_CRITICAL, "*flush != NULL*");
      g_assert_null (km_format_sink_new (NULL, NULL));
      g_test_assert_expected_messages ();
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/kinema/Yaml/positions", test_positions);
  g_test_add_func ("/kinema/Yaml/spans", test_spans);
  g_test_add_func ("/kinema/Yaml/typed", test_typed);
  g_test_add_func ("/kinema/Yaml/malformed", test_malformed);
  g_test_add_func ("/kinema/Yaml/duplicates-large", test_duplicates_large);
  g_test_add_func ("/kinema/Yaml/aliases", test_aliases);
  g_test_add_func ("/kinema/Yaml/depth", test_depth);
  g_test_add_func ("/kinema/Yaml/tagged-numbers", test_tagged_numbers);
  g_test_add_func ("/kinema/Yaml/tables", test_tables);
  g_test_add_func ("/kinema/Yaml/emit", test_emit);
  g_test_add_func ("/kinema/Yaml/emit-tags", test_emit_tags);
  g_test_add_func ("/kinema/Yaml/emit-complex-keys", test_emit_complex_keys);
  g_test_add_func ("/kinema/Yaml/emit-escapes", test_emit_escapes);
  g_test_add_func ("/kinema/Yaml/emit-source-layout", test_emit_source_layout);
  g_test_add_func ("/kinema/Yaml/emit-generated", test_emit_generated);
  g_test_add_func ("/kinema/Yaml/emit-to-sink", test_emit_to_sink);
  g_test_add_func ("/kinema/Yaml/emit-to-failed-sink", test_emit_to_failed_sink);
  g_test_add_func ("/kinema/Yaml/sink-without-flush", test_sink_without_flush);
  g_test_add_func ("/kinema/Yaml/sniff", test_sniff);
  g_test_add_func ("/kinema/Yaml/format-number", test_format_number);

  return g_test_run ();
}
