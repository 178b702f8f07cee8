/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 *
 * Every input the fuzzers (tests/fuzz/README.md) found a bug with, kept in
 * tests/data/fuzz-regressions/: each is loaded through the registry (km_format_load_file),
 * which must either succeed or fail with an error, never crash, leak or hang (CI runs this
 * under ASan/UBSan/LSan). The name's prefix also sends the file through the reader the
 * fuzzer found it with (json-, yaml-, mesh-, sb-expr-, animation-, cnoid-, scenebuilder-).
 * A few cases below check the exact error the fix now gives.
 */

#include "config.h"

#include <string.h>

#include "km-animation-json.h"
#include "km-animation.h"
#include "km-cnoid.h"
#include "km-error.h"
#include "km-format.h"
#include "km-json.h"
#include "km-mesh-loader.h"
#include "km-project.h"
#include "km-sb-expr.h"
#include "km-scenebuilder.h"
#include "km-skeleton.h"
#include "km-yaml.h"

static void
collect_warning (const char *message,
                 gpointer    user_data)
{
  guint *n = user_data;

  (*n)++;
}

static char *
regression_path (const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "data", "fuzz-regressions", name, NULL);
}

/* The same entry points, selector byte and unit systems as tests/fuzz/fuzz-sb-expr.c. */
static void
check_sb_expr (const char *data,
               gsize       length)
{
  static const KmSbUnits units[] = {
    { 1.0, 1.0, 1.0, 1.0 },
    { 0.001, G_PI / 180.0, 0.001, 1.0 },
  };
  g_autofree char *text = NULL;
  g_autofree char *message = NULL;
  gsize offset = 0;
  gboolean ok;
  guint selector;
  const KmSbUnits *u;

  if (length == 0)
    return;
  selector = (guchar) data[0];
  u = &units[(selector >> 4) & 1];
  text = g_strndup (data + 1, length - 1);
  switch (selector % 4)
    {
    case 0:
      {
        double value = 0.0;

        ok = km_sb_eval_real (text, length - 1,
                              (KmSbDim) ((selector >> 5) % (KM_SB_DIM_M_L3 + 1)), u, &value,
                              &offset, &message);
        break;
      }
    case 1:
      {
        gboolean value = FALSE;

        ok = km_sb_parse_bool (text, &value, &offset, &message);
        break;
      }
    case 2:
      {
        double values[6] = { 0 };

        ok = km_sb_parse_vector (text, 1 + (selector >> 5) % 6, KM_SB_DIM_L, u, values,
                                 &offset, &message);
        break;
      }
    default:
      {
        KmQuat q;
        KmSbValueFlags flags = 0;

        ok = km_sb_parse_rotation (text, u, &q, &flags, &offset, &message);
        break;
      }
    }
  if (!ok)
    {
      g_assert_nonnull (message);
      g_assert_cmpuint (offset, <=, strlen (text));
    }
}

static void
check_yaml (const char *path,
            const char *data,
            gsize       length)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(KmYamlNode) node = km_yaml_parse (path, data, length, NULL, &error);

  g_assert_true ((node == NULL) != (error == NULL));
  if (node != NULL && km_yaml_node_get_weight (node) < 10000)
    {
      gsize n = 0;
      g_autofree char *text = km_yaml_emit_to_string (node, &n);
      g_autoptr(GError) error2 = NULL;
      g_autoptr(KmYamlNode) again = km_yaml_parse ("again.yaml", text, n, NULL, &error2);

      /* What the emitter writes reads back as the same tree. */
      g_assert_no_error (error2);
      g_assert_true (km_yaml_node_equal (node, again));
    }
}

static void
check_by_prefix (const char *name,
                 const char *path,
                 const char *data,
                 gsize       length)
{
  if (g_str_has_prefix (name, "json-"))
    {
      g_autoptr(GError) error = NULL;
      KmJsonDocument *doc = km_json_parse (path, data, length, &error);

      g_assert_true ((doc == NULL) != (error == NULL));
      if (doc != NULL)
        km_json_document_free (doc);
    }
  else if (g_str_has_prefix (name, "yaml-"))
    check_yaml (path, data, length);
  else if (g_str_has_prefix (name, "mesh-"))
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GPtrArray) shapes = km_mesh_load_file (path, NULL, &error);

      g_assert_true ((shapes == NULL) != (error == NULL));
    }
  else if (g_str_has_prefix (name, "sb-expr-"))
    check_sb_expr (data, length);
  else if (g_str_has_prefix (name, "animation-"))
    {
      g_autofree char *skeleton_path = g_test_build_filename (G_TEST_DIST, "data",
                                                              "skeleton-extras.json", NULL);
      g_autoptr(GError) error = NULL;
      g_autoptr(KmSkeleton) skeleton = km_format_load_file (skeleton_path, "SKELETON-JSON",
                                                            NULL, &error);
      g_autoptr(GBytes) bytes = g_bytes_new (data, length);

      g_assert_no_error (error);
      for (guint i = 0; i < 2; i++)
        {
          g_autoptr(GError) error2 = NULL;
          g_autoptr(KmAnimation) animation =
            km_animation_json_load (path, bytes, i == 0 ? NULL : skeleton, &error2);

          g_assert_true ((animation == NULL) != (error2 == NULL));
        }
    }
  else if (g_str_has_prefix (name, "cnoid-"))
    {
      g_autoptr(GBytes) bytes = g_bytes_new (data, length);
      g_autoptr(GError) error = NULL;
      g_autoptr(KmProject) project = km_cnoid_load_full (path, bytes, NULL, &error);

      g_assert_true ((project == NULL) != (error == NULL));
      if (project != NULL)
        {
          g_autoptr(GString) out = g_string_new (NULL);

          km_cnoid_describe (project, out);
          g_assert_cmpuint (out->len, >, 0);
        }
    }
  else if (g_str_has_prefix (name, "scenebuilder-"))
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(KmScenebuilderModel) model = km_scenebuilder_load (path, data, length,
                                                                   &error);

      g_assert_true ((model == NULL) != (error == NULL));
    }
}

static void
test_regression (gconstpointer user_data)
{
  const char *name = user_data;
  g_autofree char *path = regression_path (name);
  g_autofree char *data = NULL;
  g_autoptr(GError) error = NULL;
  const KmFormat *format = NULL;
  gpointer result;
  gsize length = 0;
  guint n_warnings = 0;

  g_assert_true (g_file_get_contents (path, &data, &length, NULL));

  km_parse_warnings_push (collect_warning, &n_warnings);
  result = km_format_load_file (path, NULL, &format, &error);
  if (result != NULL)
    {
      g_autoptr(GString) out = g_string_new (NULL);

      g_assert_no_error (error);
      g_assert_nonnull (format);
      format->describe (result, out);
      g_assert_cmpuint (out->len, >, 0);
      format->free_result (result);
    }
  else
    {
      /* A clean failure: a KM_PARSE_ERROR whose message names the file. */
      g_assert_nonnull (error);
      g_assert_true (error->domain == KM_PARSE_ERROR);
      g_assert_true (strstr (error->message, name) != NULL);
    }

  check_by_prefix (name, path, data, length);
  km_parse_warnings_pop ();
}

/* The fixes, checked by what they now say. */

static void
test_vrml_proto_at_eof (void)
{
  g_autofree char *path = regression_path ("mesh-proto-at-eof.wrl");
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) shapes = km_mesh_load_file (path, NULL, &error);

  g_assert_null (shapes);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_SYNTAX);
  g_assert_true (strstr (error->message, "mesh-proto-at-eof.wrl:3:1: ") != NULL);
}

/* DEF/USE nesting 10^11 group instances: refused at once, not walked. */
static void
test_vrml_use_billion_laughs (void)
{
  g_autofree char *path = regression_path ("mesh-use-billion-laughs.wrl");
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) shapes = NULL;

  shapes = km_mesh_load_file (path, NULL, &error);
  g_assert_null (shapes);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT);
  g_assert_true (strstr (error->message, "mesh-use-billion-laughs.wrl:") != NULL);
  g_assert_true (strstr (error->message, "the scene expands to too many nodes") != NULL);
}

static void
test_scenebuilder_second_root (void)
{
  const char *text = "<scene/>\n  <body name=\"b\"/>\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(KmScenebuilderModel) model = km_scenebuilder_load ("two.xml", text,
                                                               strlen (text), &error);

  g_assert_null (model);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_SYNTAX);
  g_assert_true (g_str_has_prefix (error->message, "two.xml:2:"));
}

/* An attribute name with a control character (0x1d) GMarkup does not take: the error
 * points at the name's first character, not at the '=' after it, and the name in the
 * message is escaped, so that it stays one line. */
static void
test_scenebuilder_control_char_attr_name (void)
{
  g_autofree char *path = regression_path ("scenebuilder-control-char-attr-name.xml");
  g_autofree char *expected = g_strconcat (path, ":45:11: ", NULL);
  g_autoptr(GError) error = NULL;
  gpointer result = km_format_load_file (path, NULL, NULL, &error);

  g_assert_null (result);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_SYNTAX);
  if (!g_str_has_prefix (error->message, expected)
      || strstr (error->message, "\\x1donnector") == NULL)
    g_error ("expected “%s…\\x1donnector…”, got “%s”", expected, error->message);
  for (const char *c = error->message; *c != '\0'; c++)
    g_assert_cmpint ((guchar) *c, >=, 0x20);
}

static void
test_yaml_empty_key_round_trip (void)
{
  const char *text = "a:\n  ?\n  : x\n  b: { ? : y }\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(KmYamlNode) node = km_yaml_parse ("k.yaml", text, strlen (text), NULL, &error);
  g_autofree char *out = NULL;
  g_autoptr(KmYamlNode) again = NULL;
  gsize n = 0;

  g_assert_no_error (error);
  out = km_yaml_emit_to_string (node, &n);
  g_assert_cmpstr (out, ==, "a:\n  \"\": x\n  b: { \"\": y }\n");
  again = km_yaml_parse ("again.yaml", out, n, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (km_yaml_node_equal (node, again));
}

static void
test_json_empty_containers (void)
{
  const char *text = "{\"a\": [], \"b\": {}, \"c\": [[], {}]}";
  g_autoptr(GError) error = NULL;
  KmJsonDocument *doc = km_json_parse ("e.json", text, strlen (text), &error);
  const KmJsonNode *root;

  g_assert_no_error (error);
  root = km_json_document_get_root (doc);
  g_assert_cmpuint (km_json_node_get_length (root), ==, 3);
  km_json_document_free (doc);
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GDir) dir = NULL;
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *dir_path = NULL;
  const char *name;

  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  dir_path = g_test_build_filename (G_TEST_DIST, "data", "fuzz-regressions", NULL);
  dir = g_dir_open (dir_path, 0, NULL);
  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_names);
  g_assert_cmpuint (names->len, >=, 7);

  for (guint i = 0; i < names->len; i++)
    {
      const char *file = g_ptr_array_index (names, i);
      g_autofree char *test_path = g_strconcat ("/kinema/FuzzRegressions/file/", file, NULL);

      g_test_add_data_func (test_path, file, test_regression);
    }
  g_test_add_func ("/kinema/FuzzRegressions/vrml-proto-at-eof", test_vrml_proto_at_eof);
  g_test_add_func ("/kinema/FuzzRegressions/vrml-use-billion-laughs",
                   test_vrml_use_billion_laughs);
  g_test_add_func ("/kinema/FuzzRegressions/scenebuilder-second-root",
                   test_scenebuilder_second_root);
  g_test_add_func ("/kinema/FuzzRegressions/scenebuilder-control-char-attr-name",
                   test_scenebuilder_control_char_attr_name);
  g_test_add_func ("/kinema/FuzzRegressions/yaml-empty-key-round-trip",
                   test_yaml_empty_key_round_trip);
  g_test_add_func ("/kinema/FuzzRegressions/json-empty-containers",
                   test_json_empty_containers);

  return g_test_run ();
}
