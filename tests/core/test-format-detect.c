/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <string.h>
#include <glib.h>
#include <glib/gstdio.h>

#include "km-body.h"
#include "km-cnoid.h"
#include "km-error.h"
#include "km-format.h"
#include "km-openhrp.h"
#include "km-pose-seq.h"
#include "km-scenebuilder.h"
#include "km-skeleton-json.h"
#include "km-test-tmp.h"
#include "km-urdf.h"
#include "km-yaml.h"

/* Content detection (km_format_detect) of files written in the styles other tools write:
 * YAML's indentless block sequences, flow style and strict JSON, old-Mac CR line ends,
 * XML with a long prolog or cut off in it. */

static char *tmp_dir;

static const KmFormat *
detect (const char *text)
{
  return km_format_detect (text, strlen (text));
}

/* The error km_format_load_file() gives for @contents in a file called @name. */
static char *
load_error (const char *name,
            const char *contents,
            gssize      length,
            const char *format_name,
            char      **path_out)
{
  g_autofree char *path = g_build_filename (tmp_dir, name, NULL);
  g_autoptr(GError) error = NULL;
  const KmFormat *format = NULL;
  gpointer result;

  g_assert_true (g_file_set_contents (path, contents, length, NULL));
  result = km_format_load_file (path, format_name, &format, &error);
  if (result != NULL)
    format->free_result (result);
  g_assert_null (result);
  g_assert_nonnull (error);
  g_assert_true (g_str_has_prefix (error->message, path));
  if (path_out != NULL)
    *path_out = g_strdup (path);
  /* Without the path: "LINE:COLUMN: message" */
  return g_strdup (error->message + strlen (path) + 1);
}

/* PyYAML's and ruamel.yaml's default block style: a top-level key's sequence not
 * indented (`optional_plugins:\n- PhysX`), before the keys that say what the file is. */
static void
test_indentless_sequence (void)
{
  const char *body = "foo:\n- 1\nname: T\nlinks:\n- name: base\n  joint_type: fixed\n"
                     "format: ChoreonoidBody\nformat_version: 2.0\n";
  const char *floor = "optional_plugins:\n- PhysX\nformat: ChoreonoidBody\nformatVersion: 1.0\n"
                      "name: Floor\nlinks:\n  -\n    name: Floor\n    jointType: fixed\n";
  const char *project = "optional_plugins:\n- PhysX\n- MuJoCo\nitems:\n  id: 0\n"
                        "  name: RootItem\n  class: RootItem\n";
  /* The start of a larger project (what the window reads to tell a project from a model):
   * the sniffers alone must tell, the text does not parse. */
  const char *project_start = "optional_plugins:\n-   PhysX\n-\n  ODE\nitems:\n  id: 0\n"
                              "  children: [ { id: 1, name: Wor";
  const char *pose_seq = "type: PoseSeq\nname: walk\ntargetBody: SR1\nrefs:\n- time: 0\n"
                         "  refer:\n    type: Pose\n    joints: [ 0 ]\n    q: [ 0 ]\n";

  g_assert_true (detect (body) == &km_format_choreonoid_body);
  g_assert_true (detect (floor) == &km_format_choreonoid_body);
  g_assert_true (detect (project) == &km_format_cnoid);
  g_assert_true (detect (project_start) == &km_format_cnoid);
  g_assert_true (detect (pose_seq) == &km_format_pose_seq);
  g_assert_true (km_yaml_sniff_top_key (body, strlen (body), "format"));
  g_assert_true (km_yaml_sniff_top_key (project_start, strlen (project_start), "items"));

  /* A document that is a sequence is still nobody's, entries at column 0 or not. */
  g_assert_false (km_yaml_sniff_top_key ("- items: 1\n", 11, "items"));
  g_assert_false (km_yaml_sniff_top_key ("- 1\nitems:\n", 11, "items"));
  g_assert_null (detect ("- format: ChoreonoidBody\n- links: []\n"));
  /* "-1" or "--x" at column 0 is no sequence entry: not a block mapping's line either. */
  g_assert_false (km_yaml_sniff_top_key ("a:\n-1\nitems:\n", 13, "items"));
}

/* Flow style, and strict JSON (which is YAML, and which Choreonoid reads): the same
 * documents, detected as such; JSON-looking text in a .json file stays JSON. */
static void
test_flow_and_json (void)
{
  const char *flow_body = "{format: ChoreonoidBody, formatVersion: 1.0, name: T, "
                          "links: [ {name: base, jointType: fixed} ]}\n";
  const char *flow_project = "{optional_plugins: [PhysX], items: {id: 0, name: RootItem,\n"
                             "    class: RootItem, children: []}}\n";
  const char *json_project = "{\"optional_plugins\": [\"PhysX\"], \"items\": {\"id\": 0, "
                             "\"name\": \"RootItem\", \"class\": \"RootItem\"}}";
  const char *json_body = "{\"name\": \"T\", \"links\": [{\"name\": \"base\", "
                          "\"jointType\": \"fixed\"}], \"format\": \"ChoreonoidBody\"}";
  const char *json_pose_seq = "{\"refs\": [{\"time\": 0, \"refer\": {\"type\": \"Pose\", "
                              "\"joints\": [0], \"q\": [0]}}], \"type\": \"PoseSeq\"}";
  const char *skeleton = "{\"root_name\": \"base\", \"joints\": []}";

  g_assert_true (detect (flow_body) == &km_format_choreonoid_body);
  g_assert_true (detect (flow_project) == &km_format_cnoid);
  g_assert_true (detect (json_project) == &km_format_cnoid);
  g_assert_true (detect (json_body) == &km_format_choreonoid_body);
  g_assert_true (detect (json_pose_seq) == &km_format_pose_seq);
  g_assert_true (km_format_detect_for_path ("p.cnoid", json_project, strlen (json_project))
                 == &km_format_cnoid);
  /* Kinema's own JSON stays Kinema JSON, whatever the name. */
  g_assert_true (detect (skeleton) == &km_format_skeleton_json);
  g_assert_true (km_format_detect_for_path ("s.body", skeleton, strlen (skeleton))
                 == &km_format_skeleton_json);
  /* A .json file's JSON is JSON: not re-read as YAML. */
  g_assert_null (km_format_detect_for_path ("p.json", json_project, strlen (json_project)));
  g_assert_null (km_format_detect_for_path ("dir/B.JSON", flow_body, strlen (flow_body)));
  g_assert_true (km_format_detect_for_path ("dir.json/b.body", flow_body, strlen (flow_body))
                 == &km_format_choreonoid_body);
  /* YAML that is no Kinema format is nobody's. */
  g_assert_null (detect ("{a: 1, b: [2, 3]}"));
  g_assert_null (detect ("{\"a\": 1}"));
}

/* Old-Mac CR-only line ends: a line end to YAML, so to detection too. */
static void
test_cr_line_ends (void)
{
  const char *pose_seq = "# Body pose sequence format version 1.0\r\rtype: PoseSeq\r"
                         "name: walk\rtargetBody: SR1\rrefs: \r  - \r    time: 0\r";
  const char *project = "# a project\ritems:\r  id: 0\r  name: RootItem\r  class: RootItem\r";
  const char *body = "# a body\rformat: ChoreonoidBody\rname: T\rlinks:\r- name: base\r";
  /* CRLF as before */
  const char *crlf = "# a project\r\nitems:\r\n  id: 0\r\n";

  g_assert_true (detect (pose_seq) == &km_format_pose_seq);
  g_assert_true (detect (project) == &km_format_cnoid);
  g_assert_true (detect (body) == &km_format_choreonoid_body);
  g_assert_true (detect (crlf) == &km_format_cnoid);
  /* The sniffers alone tell (a start that does not parse). */
  g_assert_true (km_yaml_sniff_top_key (project, 20, "items"));
}

/* Many URDFs start with a long generated comment: the document element after it decides. */
static void
test_xml_long_prolog (void)
{
  g_autofree char *filler = g_strnfill (5000, '=');
  g_autofree char *urdf = g_strdup_printf ("<?xml version=\"1.0\"?>\n<!-- %s -->\n"
                                           "<robot name=\"r\"><link name=\"a\"/></robot>\n",
                                           filler);
  const char *angle = "<!-- a <b> c -->\n<robot name=\"r\"><link name=\"a\"/></robot>\n";
  g_autofree char *scene = g_strdup_printf ("<?xml version=\"1.0\"?>\n<!-- %s -->\n"
                                            "<namespace name=\"s\"></namespace>\n", filler);

  g_assert_true (detect (urdf) == &km_format_urdf);
  g_assert_true (detect (angle) == &km_format_urdf);
  g_assert_true (detect (scene) == &km_format_scenebuilder);
  g_assert_null (detect ("<!-- c -->\n<foo/>\n"));
}

/* XML that breaks off: where its document element is known, that format's loader reports
 * the break; where the file ends before it, the well-formedness error all the same. */
static void
test_xml_truncated (void)
{
  const char *wam = "<?xml version=\"1.0\" ?>\n"
                    "<!-- ====================== -->\n"
                    "<!-- |    generated by xacro      | -->\n"
                    "<!-- |    EDITING THIS FILE BY HAND IS NOT RECOMMENDED     | --";
  g_autofree char *filler = g_strnfill (5000, '=');
  g_autofree char *cut = g_strdup_printf ("<!-- %s -->\n<robot name=\"r\">\n  <link name=\"a\"/>\n"
                                          "  <link name", filler);
  const char *scene = "<?xml version=\"1.0\"?>\n<namespace name=\"s\">\n  <part name=\"p\"";
  g_autofree char *message = NULL;

  message = load_error ("wam.urdf", wam, -1, NULL, NULL);
  g_assert_cmpstr (message, ==, "4:64: expected well-formed XML: Document ended unexpectedly "
                                "inside a comment or processing instruction");
  g_clear_pointer (&message, g_free);
  message = load_error ("cut.urdf", cut, -1, NULL, NULL);
  g_assert_true (g_str_has_prefix (message, "4:13: expected well-formed XML: "));
  g_clear_pointer (&message, g_free);
  /* Scenebuilder's syntax errors say what was expected as the URDF reader's do. */
  message = load_error ("cut.xml", scene, -1, NULL, NULL);
  g_assert_true (g_str_has_prefix (message, "3:17: expected well-formed XML: "));
  g_clear_pointer (&message, g_free);
  message = load_error ("wam.xml", wam, -1, "SCENEBUILDER-XML", NULL);
  g_assert_cmpstr (message, ==, "4:64: expected well-formed XML: Document ended unexpectedly "
                                "inside a comment or processing instruction");
  g_clear_pointer (&message, g_free);
  /* Well-formed XML of another kind is still described by its element. */
  message = load_error ("foo.xml", "<!-- c -->\n<foo a=\"1\"/>\n", -1, NULL, NULL);
  g_assert_cmpstr (message, ==, "1:1: not a file Kinema can read: an XML document with root "
                                "element <foo>");
}

/* XML whose document element lies past what detection looks at (a header comment longer
 * than that) is checked for well-formedness as the XML loaders check it: an attribute
 * given twice, or a '<' in an attribute value, which GMarkup takes, is refused where it
 * is, not described as "an XML document". */
static void
test_xml_generic_check (void)
{
  g_autofree char *filler = g_strnfill (70000, '=');
  g_autofree char *twice = g_strdup_printf ("<?xml version=\"1.0\"?>\n<!-- %s -->\n"
                                            "<foo a=\"1\" a=\"2\"/>\n", filler);
  g_autofree char *lt = g_strdup_printf ("<?xml version=\"1.0\"?>\n<!-- %s -->\n"
                                         "<foo a=\"x<y\"/>\n", filler);
  g_autofree char *fine = g_strdup_printf ("<?xml version=\"1.0\"?>\n<!-- %s -->\n"
                                           "<foo a=\"x&lt;y\" b=\"2\"/>\n", filler);
  g_autofree char *message = NULL;

  message = load_error ("twice.xml", twice, -1, NULL, NULL);
  g_assert_cmpstr (message, ==, "3:12: attribute “a” is given twice");
  g_clear_pointer (&message, g_free);
  message = load_error ("lt.xml", lt, -1, NULL, NULL);
  g_assert_cmpstr (message, ==, "3:10: expected “&lt;” instead of “<” in an attribute value");
  g_clear_pointer (&message, g_free);
  /* Well-formed: what it looks like, as before. */
  message = load_error ("fine.xml", fine, -1, NULL, NULL);
  g_assert_cmpstr (message, ==, "1:1: not a file Kinema can read: an XML document");
}

/* Errors for text no format claims: YAML's for YAML, JSON's for JSON. */
static void
test_unclaimed_errors (void)
{
  const char *broken_flow = "{format: ChoreonoidBody, name: T, links: [ {name: base} ]\n";
  g_autofree char *message = NULL;

  /* Flow-style YAML is not broken JSON. */
  message = load_error ("broken.body", broken_flow, -1, NULL, NULL);
  g_assert_null (strstr (message, "double quotes"));
  g_assert_true (g_str_has_prefix (message, "2:1: "));
  g_clear_pointer (&message, g_free);
  message = load_error ("other.yaml", "{a: 1, b: [2, 3]}\n", -1, NULL, NULL);
  g_assert_cmpstr (message, ==, "1:1: not a file Kinema can read: a YAML document, not a "
                                "known Kinema format");
  g_clear_pointer (&message, g_free);
  /* The same for a name that holds a location of its own (read back as the file's). */
  message = (g_free (message), load_error ("b:9:9: roken.body", broken_flow, -1, NULL, NULL));
  g_assert_null (strstr (message, "double quotes"));
  g_assert_true (g_str_has_prefix (message, "2:1: "));
  g_clear_pointer (&message, g_free);
  /* In a .json file, the JSON error. */
  message = load_error ("broken.json", broken_flow, -1, NULL, NULL);
  g_assert_cmpstr (message, ==, "1:2: expected a key in double quotes");
  g_clear_pointer (&message, g_free);
  /* Broken JSON stays a JSON error where JSON gets as far as YAML. */
  message = load_error ("broken.txt", "{\"joints\": [,]}", -1, NULL, NULL);
  g_assert_true (g_str_has_prefix (message, "1:13: expected a value"));
  g_clear_pointer (&message, g_free);

  /* CR-only line ends count as line ends in the locations. */
  message = load_error ("cr.txt", "\r\r  hello", -1, NULL, NULL);
  g_assert_cmpstr (message, ==, "3:3: not a file Kinema can read: plain text, not a known "
                                "Kinema format");
  g_clear_pointer (&message, g_free);
  message = load_error ("crlf.txt", "\r\n\r\n  hello", -1, NULL, NULL);
  g_assert_cmpstr (message, ==, "3:3: not a file Kinema can read: plain text, not a known "
                                "Kinema format");
  g_clear_pointer (&message, g_free);
  message = load_error ("cr.yaml", "# c\rfoo: [1, 2\rbar: 3\r", -1, NULL, NULL);
  g_assert_true (g_str_has_prefix (message, "3:4: malformed YAML: "));
}

/* A VRML model is told by its content, whatever its name, after a UTF-8 byte order mark
 * and in UTF-16 (LE or BE, after its mark) too: UTF-16 was not recognised. */
static void
test_vrml_encodings (void)
{
  static const char model[] =
    "#VRML V2.0 utf8\n"
    "PROTO Joint [ exposedField SFString jointType \"\" exposedField MFNode children [ ] ]\n"
    "{ Group { } }\n"
    "DEF R Joint { jointType \"fixed\" children [ ] }\n";
  static const char * const encodings[] = { "UTF-8", "UTF-16LE", "UTF-16BE" };
  static const char * const marks[] = { "\xef\xbb\xbf", "\xff\xfe", "\xfe\xff" };

  g_assert_true (detect (model) == &km_format_openhrp);
  for (guint e = 0; e < G_N_ELEMENTS (encodings); e++)
    {
      gsize length = 0;
      g_autofree char *converted = g_convert (model, -1, encodings[e], "UTF-8", NULL,
                                              &length, NULL);
      gsize mark = strlen (marks[e]);
      g_autofree char *text = g_malloc (mark + length);
      g_autofree char *path = g_strdup_printf ("%s/model-%s", tmp_dir, encodings[e]);
      g_autoptr(GError) error = NULL;
      const KmFormat *format = NULL;
      g_autoptr(KmSkeleton) skel = NULL;

      g_test_message ("%s", encodings[e]);
      memcpy (text, marks[e], mark);
      memcpy (text + mark, converted, length);
      g_assert_true (km_format_detect (text, mark + length) == &km_format_openhrp);
      /* Also in its first bytes only, cut within a character. */
      g_assert_true (km_format_detect (text, mark + 97) == &km_format_openhrp);
      g_assert_true (g_file_set_contents (path, text, (gssize) (mark + length), NULL));
      skel = km_format_load_file (path, NULL, &format, &error);
      g_assert_no_error (error);
      g_assert_true (format == &km_format_openhrp);
      g_assert_cmpuint (km_skeleton_get_n_joints (skel), ==, 1);
    }
}

/* The checksum a model's load gives (KmModelExtras.checksum) is that of the file's bytes
 * as read, in UTF-8 and in UTF-16 (before its conversion): the app used to hash the text
 * the loader kept (a UTF-16 file's converted) or the file as it was later. */
static void
test_model_read_checksum (void)
{
  static const char model[] =
    "#VRML V2.0 utf8\n"
    "PROTO Joint [ exposedField SFString jointType \"\" exposedField MFNode children [ ] ]\n"
    "{ Group { } }\n"
    "DEF R Joint { jointType \"fixed\" children [ ] }\n";
  static const char * const encodings[] = { "UTF-8", "UTF-16LE", "UTF-16BE" };
  static const char * const marks[] = { "", "\xff\xfe", "\xfe\xff" };

  for (guint e = 0; e < G_N_ELEMENTS (encodings); e++)
    {
      gsize length = 0;
      g_autofree char *converted = g_convert (model, -1, encodings[e], "UTF-8", NULL,
                                              &length, NULL);
      gsize mark = strlen (marks[e]);
      g_autofree char *text = g_malloc (mark + length);
      g_autofree char *path = g_strdup_printf ("%s/checksum-%s.wrl", tmp_dir, encodings[e]);
      g_autoptr(GFile) file = g_file_new_for_path (path);
      g_autoptr(GError) error = NULL;
      g_autoptr(KmModelExtras) extras = NULL;
      g_autofree char *expected = NULL;
      const KmFormat *format = NULL;
      KmSkeleton *skel;

      g_test_message ("%s", encodings[e]);
      memcpy (text, marks[e], mark);
      memcpy (text + mark, converted, length);
      g_assert_true (g_file_set_contents (path, text, (gssize) (mark + length), NULL));
      expected = km_format_file_checksum (file, NULL, &error);
      g_assert_no_error (error);
      skel = km_format_load_model_file (path, NULL, &format, &extras, &error);
      g_assert_no_error (error);
      g_assert_nonnull (skel);
      g_assert_nonnull (extras);
      g_assert_cmpstr (extras->checksum, ==, expected);
      /* (UTF-16: the text kept is the converted one, whose checksum is another) */
      if (mark > 0)
        {
          g_autofree char *of_text = g_compute_checksum_for_bytes (G_CHECKSUM_SHA256,
                                                                   extras->text);

          g_assert_cmpstr (of_text, !=, expected);
        }
      format->free_result (skel);
    }
}

/* A model file in UTF-16 that stops converting is located at the character where it
 * does (after "<r", on line 2 after a line break), as the mesh readers locate it: it was
 * always 1:1. */
static void
test_utf16_bad_position (void)
{
  static const struct
  {
    const char *data;
    gsize       length;
    const char *where;
  } cases[] = {
    { "\xFF\xFE<\0r\0\0\xD8", 8, ":1:3: " },                      /* a cut surrogate */
    { "\xFE\xFF\0<\0\n\0a\0b\xDC\0\0>", 14, ":2:3: " },        /* a lone low one */
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("%s/bad-%u.urdf", tmp_dir, i);
      g_autofree char *expected = g_strconcat (path, cases[i].where, NULL);
      g_autoptr(GError) error = NULL;
      gpointer result;

      g_assert_true (g_file_set_contents (path, cases[i].data, (gssize) cases[i].length, NULL));
      result = km_format_load_file (path, NULL, NULL, &error);
      g_assert_null (result);
      g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_SYNTAX);
      if (!g_str_has_prefix (error->message, expected))
        g_error ("“%s” does not start with “%s”", error->message, expected);
      g_assert_nonnull (strstr (error->message, "text after the byte order mark"));
    }
}

static void
collect_warning (const char *message,
                 gpointer    user_data)
{
  g_ptr_array_add (user_data, g_strdup (message));
}

/* Every location shows its file as the CLI's key=value lines do (km_parse_shown_file(),
 * km_format_append_value()): a name with a control character or a backslash escaped
 * C-style, so that a message's first line stays one line; any other name as it is. The
 * loaders' own use of their locations (an error's place kept as a warning's, "included
 * from" left out for an error in the file itself) reads the escaped name back. */
static void
test_escaped_locations (void)
{
  const char *odd = "dir/a\tb\\c\nd.json";
  const char *shown_odd = "dir/a\\tb\\\\c\\nd.json";
  g_autoptr(GString) value = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) included = NULL;
  g_autoptr(GError) prefixed = NULL;
  g_autoptr(GError) loaded = NULL;
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *shown = km_parse_shown_file (odd);
  g_autofree char *plain = km_parse_shown_file ("dir/plain name:1.json");
  g_autofree char *location = km_parse_location (odd, (KmSourcePos) { 3, 0 });
  g_autofree char *unlocated = km_parse_location (odd, (KmSourcePos) { 0, 0 });
  g_autofree char *bad = g_build_filename (tmp_dir, "bad\tname.json", NULL);
  g_autofree char *bad_shown = NULL;
  g_autofree char *bad_start = NULL;
  const KmFormat *format = NULL;

  g_assert_cmpstr (shown, ==, shown_odd);
  km_format_append_value (value, odd);
  g_assert_cmpstr (value->str, ==, shown);
  g_assert_cmpstr (plain, ==, "dir/plain name:1.json");
  g_assert_cmpstr (location, ==, "dir/a\\tb\\\\c\\nd.json:3:1");
  g_assert_cmpstr (unlocated, ==, shown_odd);

  km_parse_error_set (&error, KM_PARSE_ERROR_INVALID, odd, (KmSourcePos) { 2, 5 }, "bad %s", "x");
  g_assert_cmpstr (error->message, ==, "dir/a\\tb\\\\c\\nd.json:2:5: bad x");
  /* An error in the file itself gets no "included from" line for it. */
  km_parse_error_add_include_from (&error, odd, (KmSourcePos) { 1, 1 });
  g_assert_cmpstr (error->message, ==, "dir/a\\tb\\\\c\\nd.json:2:5: bad x");
  km_parse_error_set (&included, KM_PARSE_ERROR_INVALID, "in.json", (KmSourcePos) { 1, 2 }, "y");
  km_parse_error_add_include_from (&included, odd, (KmSourcePos) { 7, 8 });
  g_assert_cmpstr (included->message, ==, "in.json:1:2: y\nincluded from "
                                          "dir/a\\tb\\\\c\\nd.json:7:8");

  g_set_error_literal (&prefixed, KM_PARSE_ERROR, KM_PARSE_ERROR_INVALID, "no mesh");
  km_parse_error_prefix (&prefixed, odd, (KmSourcePos) { 4, 6 });
  g_assert_cmpstr (prefixed->message, ==, "dir/a\\tb\\\\c\\nd.json:4:6: no mesh");

  km_parse_warnings_push (collect_warning, warnings);
  km_parse_warning (odd, (KmSourcePos) { 9, 2 }, "odd %d", 1);
  km_parse_warning ("plain.json", (KmSourcePos) { 0, 0 }, "plain");
  km_parse_warnings_pop ();
  g_assert_cmpuint (warnings->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (warnings, 0), ==, "dir/a\\tb\\\\c\\nd.json:9:2: odd 1");
  g_assert_cmpstr (g_ptr_array_index (warnings, 1), ==, "plain.json: plain");

  /* A loader's rejection, through the registry. */
  g_assert_true (g_file_set_contents (bad, "[\n  {\"frame\": -1}\n]\n", -1, NULL));
  g_assert_null (km_format_load_file (bad, NULL, &format, &loaded));
  bad_shown = km_parse_shown_file (bad);
  bad_start = g_strconcat (bad_shown, ":2:", NULL);
  g_assert_nonnull (loaded);
  if (!g_str_has_prefix (loaded->message, bad_start))
    g_error ("“%s”", loaded->message);
  g_assert_null (strchr (loaded->message, '\t'));
  g_unlink (bad);
}

/* DESIGN.md, "Error locations": a location reads back (km_parse_read_location()) to the
 * very bytes of the file's name, whatever they are: a colon, a space, a line break, a
 * backslash, a Unicode line break, a byte of no valid UTF-8. The name is shown as one
 * line of valid UTF-8 (km_format_append_value() escapes a stray byte as \xHH), and so is
 * a writer's error, which names the file it could not write. */
static void
test_read_location (void)
{
  static const char odd[] = "dir/o:d d\ne\xff\\f\xe2\x80\xa8g:1.json";
  g_autofree char *shown = km_parse_shown_file (odd);
  g_autofree char *located = km_parse_location (odd, (KmSourcePos) { 3, 7 });
  g_autofree char *message = g_strconcat (located, ": expected a number\nincluded from ",
                                          located, NULL);
  g_autofree char *unlocated = g_strconcat (shown, ": cannot read the file", NULL);
  g_autofree char *file = NULL;
  g_autofree char *dir = g_build_filename (tmp_dir, "w:r i\nte\xff", NULL);
  g_autofree char *out = g_build_filename (dir, "out.json", NULL);
  g_autoptr(GString) value = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  KmSourcePos pos = { 0, 0 };
  const char *rest = NULL;

  g_assert_true (g_utf8_validate (shown, -1, NULL));
  g_assert_null (strchr (shown, '\n'));
  g_assert_cmpstr (shown, ==, "dir/o:d d\\ne\\xff\\\\f\\u2028g:1.json");
  km_format_append_value (value, "a\xc3\xa9\xc3 \x80\xf0\x9f\x98\x80");
  g_assert_cmpstr (value->str, ==, "a\xc3\xa9\\xc3 \\x80\xf0\x9f\x98\x80");

  g_assert_true (km_parse_read_location (message, &file, &pos, &rest));
  g_assert_cmpstr (file, ==, odd);
  g_assert_cmpuint (pos.line, ==, 3);
  g_assert_cmpuint (pos.column, ==, 7);
  g_assert_true (g_str_has_prefix (rest, "expected a number\nincluded from "));
  g_clear_pointer (&file, g_free);
  rest = strchr (message, '\n') + 1 + strlen ("included from ");
  g_assert_true (km_parse_read_location (rest, &file, &pos, &rest));
  g_assert_cmpstr (file, ==, odd);
  g_assert_cmpuint (pos.line, ==, 3);
  g_assert_cmpstr (rest, ==, "");
  g_clear_pointer (&file, g_free);
  g_assert_true (km_parse_read_location (unlocated, &file, &pos, &rest));
  g_assert_cmpstr (file, ==, odd);
  g_assert_cmpuint (pos.line, ==, 0);
  g_assert_cmpstr (rest, ==, "cannot read the file");
  g_clear_pointer (&file, g_free);
  g_assert_false (km_parse_read_location ("no location", &file, &pos, &rest));
  g_assert_false (km_parse_read_location ("a\\qb:1:2: bad escape", &file, &pos, &rest));
  g_assert_false (km_parse_read_location ("a\\x4: short escape", &file, &pos, &rest));
  /* No path holds a NUL byte: "a\x00b" is no name (it read back as "a"). */
  g_assert_false (km_parse_read_location ("a\\x00b:1:2: NUL", &file, &pos, &rest));
  g_assert_null (file);

  /* A write that fails names its file so too. */
  g_assert_false (km_format_save_data (out, "{}\n", -1, &error));
  g_assert_error (error, G_FILE_ERROR, error->code);
  g_assert_true (g_utf8_validate (error->message, -1, NULL));
  if (!km_parse_read_location (error->message, &file, &pos, &rest))
    g_error ("no location in “%s”", error->message);
  g_assert_cmpstr (file, ==, out);
  g_assert_cmpuint (pos.line, ==, 0);
  g_assert_true (g_str_has_prefix (rest, "cannot write the file: "));
}

/* The edges of a location read back: the first located "FILE:LINE:COLUMN: " on the first
 * line wins (a name holding ":3:4: " reads back whole only to a caller that knows it,
 * km_parse_read_location_of()), numbers that overflow or are 0 are part of a "FILE: "
 * name, and a first line without a location is none, whatever the next lines hold. */
static void
test_read_location_edges (void)
{
  static const char odd[] = "a:3:4: b.json";
  g_autofree char *located = km_parse_location (odd, (KmSourcePos) { 5, 6 });
  g_autofree char *message = g_strconcat (located, ": expected a number", NULL);
  g_autofree char *unlocated = g_strconcat (odd, ": cannot read the file", NULL);
  g_autofree char *file = NULL;
  KmSourcePos pos = { 0, 0 };
  const char *rest = NULL;

  g_assert_true (km_parse_read_location (message, &file, &pos, &rest));
  g_assert_cmpstr (file, ==, "a");
  g_assert_cmpuint (pos.line, ==, 3);
  g_assert_cmpstr (rest, ==, "b.json:5:6: expected a number");
  g_clear_pointer (&file, g_free);

  g_assert_true (km_parse_read_location_of (message, odd, &pos, &rest));
  g_assert_cmpuint (pos.line, ==, 5);
  g_assert_cmpuint (pos.column, ==, 6);
  g_assert_cmpstr (rest, ==, "expected a number");
  g_assert_true (km_parse_read_location_of (unlocated, odd, &pos, &rest));
  g_assert_cmpuint (pos.line, ==, 0);
  g_assert_cmpstr (rest, ==, "cannot read the file");
  g_assert_true (km_parse_read_location_of ("a: b: c: d", "a: b", &pos, &rest));
  g_assert_cmpuint (pos.line, ==, 0);
  g_assert_cmpstr (rest, ==, "c: d");
  /* Escaped as km_parse_shown_file() escapes, and only in that file. */
  g_assert_true (km_parse_read_location_of ("t\\tx\\\\y.body:2:3: bad", "t\tx\\y.body",
                                            &pos, &rest));
  g_assert_cmpuint (pos.line, ==, 2);
  g_assert_cmpstr (rest, ==, "bad");
  pos = (KmSourcePos) { 7, 7 };
  rest = NULL;
  /* Only a caller that knows the file tells the two apart. */
  g_assert_true (km_parse_read_location_of (message, "a", &pos, &rest));
  g_assert_cmpuint (pos.line, ==, 3);
  pos = (KmSourcePos) { 7, 7 };
  rest = NULL;
  g_assert_false (km_parse_read_location_of (message, "b.json", &pos, &rest));
  g_assert_false (km_parse_read_location_of ("mesh.stl:1:2: bad", "t.body", &pos, &rest));
  g_assert_false (km_parse_read_location_of ("a\\x00b:1:2: NUL", "a", &pos, &rest));
  g_assert_cmpuint (pos.line, ==, 7);
  g_assert_null (rest);

  /* A first line with no location: none, though the next one has. */
  g_assert_false (km_parse_read_location ("no location\nt.body:1:2: x", &file, &pos, &rest));
  g_assert_false (km_parse_read_location_of ("no location\nt.body:1:2: x", "t.body", &pos,
                                             &rest));
  /* The rest of a multi-line message follows the location. */
  g_assert_true (km_parse_read_location_of ("t.body:1:2: x\nincluded from u.body:3:4",
                                            "t.body", &pos, &rest));
  g_assert_cmpstr (rest, ==, "x\nincluded from u.body:3:4");

  /* A line or column that overflows, or is 0, is no number: "FILE: " ends at the ": ". */
  g_assert_true (km_parse_read_location ("f:99999999999:1: big", &file, &pos, &rest));
  g_assert_cmpstr (file, ==, "f:99999999999:1");
  g_assert_cmpuint (pos.line, ==, 0);
  g_assert_cmpstr (rest, ==, "big");
  g_clear_pointer (&file, g_free);
  g_assert_true (km_parse_read_location ("f:0:3: zero", &file, &pos, &rest));
  g_assert_cmpstr (file, ==, "f:0:3");
  g_assert_cmpuint (pos.line, ==, 0);
  g_clear_pointer (&file, g_free);
  g_assert_false (km_parse_read_location_of ("f:99999999999:1: big", "f", &pos, &rest));
  g_assert_true (km_parse_read_location ("f:4294967295:1: max", &file, &pos, &rest));
  g_assert_cmpstr (file, ==, "f");
  g_assert_cmpuint (pos.line, ==, G_MAXUINT);
}

/* Format names are matched ignoring ASCII case wherever a user gives one (--format, --to):
 * the one function the registry's lookup uses too. */
static void
test_format_name_matches (void)
{
  g_assert_true (km_format_name_matches ("URDF", "urdf"));
  g_assert_true (km_format_name_matches ("CHOREONOID-BODY", "Choreonoid-Body"));
  g_assert_false (km_format_name_matches ("URDF", "URDF2"));
  g_assert_false (km_format_name_matches ("URDF", ""));
  g_assert_true (km_format_lookup ("skeleton-json") == km_format_lookup ("SKELETON-JSON"));
}

int
main (int    argc,
      char **argv)
{
  int status;

  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/kinema/FormatDetect/indentless-sequence", test_indentless_sequence);
  g_test_add_func ("/kinema/FormatDetect/flow-and-json", test_flow_and_json);
  g_test_add_func ("/kinema/FormatDetect/cr-line-ends", test_cr_line_ends);
  g_test_add_func ("/kinema/FormatDetect/xml-long-prolog", test_xml_long_prolog);
  g_test_add_func ("/kinema/FormatDetect/xml-truncated", test_xml_truncated);
  g_test_add_func ("/kinema/FormatDetect/xml-generic-check", test_xml_generic_check);
  g_test_add_func ("/kinema/FormatDetect/unclaimed-errors", test_unclaimed_errors);
  g_test_add_func ("/kinema/FormatDetect/vrml-encodings", test_vrml_encodings);
  g_test_add_func ("/kinema/FormatDetect/utf16-bad-position", test_utf16_bad_position);
  g_test_add_func ("/kinema/FormatDetect/model-read-checksum", test_model_read_checksum);
  g_test_add_func ("/kinema/FormatDetect/escaped-locations", test_escaped_locations);
  g_test_add_func ("/kinema/FormatDetect/read-location", test_read_location);
  g_test_add_func ("/kinema/FormatDetect/read-location-edges", test_read_location_edges);
  g_test_add_func ("/kinema/FormatDetect/format-name-matches", test_format_name_matches);

  tmp_dir = g_dir_make_tmp ("kinema-test-format-detect-XXXXXX", NULL);
  g_assert_nonnull (tmp_dir);
  status = g_test_run ();
  /* Shared by all the tests, so removed here rather than when the first test ends. */
  km_test_remove_tree (tmp_dir);
  g_free (tmp_dir);
  return status;
}
