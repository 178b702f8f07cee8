/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <glib.h>
#include <glib/gstdio.h>

#include "cli-run.h"
#include "km-test-tmp.h"

/* `kinema-cli validate` and `kinema-cli info`, run as a user would ($KINEMA_CLI). */

static char *
data_path (const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "data", name, NULL);
}

static char *
spec_example_path (void)
{
  return g_test_build_filename (G_TEST_DIST, "..", "data", "skeleton.json", NULL);
}

static char *tmp_dir;

/* Files in a private directory, removed at the end: tests may run in parallel. */
static char *
write_temp (const char *name,
            const char *contents,
            gssize      length)
{
  char *path = g_build_filename (tmp_dir, name, NULL);

  g_assert_true (g_file_set_contents (path, contents, length, NULL));
  return path;
}

static void
test_validate_ok (void)
{
  g_auto(Run) run = { 0 };
  g_autofree char *spec = spec_example_path ();
  g_autofree char *reversed = data_path ("skeleton-reversed.json");
  g_autofree char *expected = g_strdup_printf ("%s: ok (SKELETON-JSON)\n%s: ok (SKELETON-JSON)\n",
                                               spec, reversed);

  run_cli (&run, NULL, "validate", spec, reversed, NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_cmpstr (run.out, ==, expected);
  g_assert_cmpstr (run.err, ==, "");
}

static void
test_validate_invalid (void)
{
  g_auto(Run) run = { 0 };
  g_autofree char *spec = spec_example_path ();
  g_autofree char *bad_parent = data_path ("skeleton-bad-parent.json");
  g_autofree char *bad_axis = data_path ("skeleton-bad-axis.json");
  g_autofree char *expected_err = g_strdup_printf (
    "%s:21:17: unknown parent “Shoulderr”\n"
    "%s:30:15: the axis of joint “Piston” must not be zero\n", bad_parent, bad_axis);
  g_autofree char *expected_out = g_strdup_printf ("%s: ok (SKELETON-JSON)\n", spec);

  run_cli (&run, NULL, "validate", bad_parent, spec, bad_axis, NULL);
  g_assert_cmpint (run.status, ==, 1);
  g_assert_cmpstr (run.err, ==, expected_err);
  g_assert_cmpstr (run.out, ==, expected_out);
}

static void
test_validate_warnings (void)
{
  g_auto(Run) run = { 0 };
  g_autofree char *extras = data_path ("skeleton-extras.json");
  g_autofree char *expected_err = g_strdup_printf (
    "%s:4:3: warning: unknown key “comment” ignored\n"
    "%s:10:49: warning: unknown key “colour” ignored\n", extras, extras);
  /* The handlers it names are not there: a warning each, where the file names it. */
  g_autofree char *arm = g_strdup_printf ("\n%s:3:21: warning: Body handler ArmHandler not "
                                          "found: no ArmHandler.so in the trusted handler "
                                          "directories (", extras);
  g_autofree char *grip = g_strdup_printf ("\n%s:3:35: warning: Body handler GripHandler not "
                                           "found: ", extras);

  run_cli (&run, NULL, "validate", extras, NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_true (g_str_has_prefix (run.err, expected_err));
  g_assert_nonnull (strstr (run.err, arm));
  g_assert_nonnull (strstr (run.err, grip));
  g_assert_true (g_str_has_suffix (run.out, ": ok (SKELETON-JSON) with 4 warnings\n"));
}

/* A targets file's keyframe keys Kinema does not use are kept (and written back by
 * `convert`): validating one said "warning: unknown key “comment” ignored", which was
 * false, and "ok … with N warnings". */
static void
test_validate_targets_extra_keys (void)
{
  g_auto(Run) run = { 0 };
  g_autofree char *targets = write_temp ("commented-targets.json",
    "[{\"frame\": 0, \"pos\": [1, 1, 1], \"euler\": [0, 0, 0], \"comment\": \"start\"},\n"
    " {\"frame\": 9, \"pos\": [1, 0, 1], \"euler\": [0, 0, 0], \"time\": 0.3}]\n", -1);
  g_autofree char *expected_out = g_strdup_printf ("%s: ok (KINEMA-TARGETS-JSON)\n", targets);

  run_cli (&run, NULL, "validate", targets, NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_cmpstr (run.out, ==, expected_out);
  g_assert_cmpstr (run.err, ==, "");
}

/* A targets key that looks like a misspelt keyframe key ("efector") was kept silently, and
 * the setting the user meant not followed: it is said, once for the file, with the key
 * it may be meant for. */
static void
test_validate_targets_misspelt_key (void)
{
  g_auto(Run) run = { 0 };
  g_autofree char *targets = write_temp ("misspelt-targets.json",
    "[{\"frame\": 0, \"pos\": [1, 1, 1], \"euler\": [0, 0, 0], \"efector\": \"Tip\"},\n"
    " {\"frame\": 9, \"pos\": [1, 0, 1], \"euler\": [0, 0, 0], \"efector\": \"Tip\"}]\n", -1);
  g_autofree char *expected_out = g_strdup_printf ("%s: ok (KINEMA-TARGETS-JSON) with 1 warning\n",
                                                   targets);
  g_autofree char *expected_err = g_strdup_printf ("%s:1:53: warning: unknown key “efector” "
                                                   "kept, not used (did you mean “effector”?)\n",
                                                   targets);

  run_cli (&run, NULL, "validate", targets, NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_cmpstr (run.out, ==, expected_out);
  g_assert_cmpstr (run.err, ==, expected_err);
}

/* A Scenebuilder scene with a bad value and a bad gear still gives its skeleton
 * (specs/scenebuilder.md 1.7): warnings, exit 0. */
static void
test_validate_scene_warnings (void)
{
  g_auto(Run) run = { 0 };
  g_autofree char *scene = write_temp ("scene.xml",
    "<?xml version=\"1.0\"?>\n"
    "<namespace name=\"w\">\n"
    "  <body name=\"base\" mass=\"heavy\"><connector name=\"c\"/></body>\n"
    "  <body name=\"arm\"><connector name=\"c\"/></body>\n"
    "  <body name=\"arm2\"><connector name=\"c\"/></body>\n"
    "  <hinge name=\"j\" sock=\"base/c\" plug=\"arm/c\"/>\n"
    "  <hinge name=\"k\" sock=\"arm/c\" plug=\"arm2/c\"/>\n"
    "  <gear up=\"j\" down=\"k\" type=\"sideways\"/>\n"
    "</namespace>\n", -1);
  g_autofree char *expected_out = g_strdup_printf ("%s: ok (SCENEBUILDER-XML) with 2 warnings\n",
                                                   scene);

  run_cli (&run, NULL, "validate", scene, NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_cmpstr (run.out, ==, expected_out);
  g_assert_nonnull (strstr (run.err, ":3:27: warning: invalid value of “mass”"));
  g_assert_nonnull (strstr (run.err, ":8:31: warning: invalid value of “type”: expected pos "
                                     "or vel; the gear is left out"));

  {
    g_auto(Run) info = { 0 };

    run_cli (&info, NULL, "info", scene, NULL);
    g_assert_cmpint (info.status, ==, 0);
    g_assert_nonnull (strstr (info.out, "joint=k type=revolute parent=j"));
    g_assert_null (strstr (info.out, "mimic="));
  }
}

/* A scene given by a bare name, in its folder: the files it imports are named as the user
 * would name them ("part.xml", not "./part.xml"; DESIGN.md, "Error locations"), in
 * warnings and in errors, which come first and then say where the file is imported. */
static void
test_validate_scene_import_paths (void)
{
  g_autofree char *part = write_temp ("import-part.xml",
    "<namespace>\n  <body name=\"b\" dynamical=\"false\" mass=\"heavy\"/>\n</namespace>\n",
    -1);
  g_autofree char *scene = write_temp ("import-scene.xml",
    "<namespace name=\"w\">\n"
    "  <body name=\"base\" dynamical=\"false\"/>\n"
    "  <import name=\"p\" filename=\"./import-part.xml\"/>\n"
    "</namespace>\n", -1);
  g_autofree char *broken = write_temp ("import-broken.xml",
    "<namespace>\n  <body name=\"x\"\n</namespace>\n", -1);
  g_autofree char *broken_scene = write_temp ("import-broken-scene.xml",
    "<namespace name=\"w\">\n"
    "  <body name=\"base\"/>\n"
    "  <import name=\"p\" filename=\"import-broken.xml\"/>\n"
    "</namespace>\n", -1);

  {
    g_auto(Run) run = { 0 };

    run_cli (&run, tmp_dir, "validate", "import-scene.xml", NULL);
    g_assert_cmpint (run.status, ==, 0);
    g_assert_cmpstr (run.out, ==, "import-scene.xml: ok (SCENEBUILDER-XML) with 1 warning\n");
    g_assert_true (g_str_has_prefix (run.err, "import-part.xml:2:42: warning: "));
  }
  {
    g_auto(Run) run = { 0 };

    run_cli (&run, tmp_dir, "validate", "import-broken-scene.xml", NULL);
    g_assert_cmpint (run.status, ==, 1);
    g_assert_true (g_str_has_prefix (run.err, "import-broken.xml:3:1: "));
    g_assert_true (g_str_has_suffix (run.err, "\nincluded from import-broken-scene.xml:3:30\n"));
    g_assert_null (strstr (run.err, "./"));
  }
}

/* A project with problems still loads (as in the editor), so it is valid, but the ok
 * line says it has warnings and each warning says it is one: an item whose children are
 * not a list, a body item whose model fails to load. */
static void
test_validate_project_warnings (void)
{
  g_autofree char *dir = g_test_build_filename (G_TEST_DIST, "data", "review", NULL);
  struct { const char *file; const char *err; } cases[] = {
    { "sub-bad.cnoid", "sub-bad.cnoid:6:76: warning: expected a list\n" },
    { "proj-badbody.cnoid", "bad-axis.body:10:17: warning: expected a joint axis: [x, y, z] "
                            "or X, Y, Z, -X, -Y, -Z\n"
                            "included from proj-badbody.cnoid:17:19\n" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto(Run) run = { 0 };
      g_autofree char *expected_out = g_strdup_printf ("%s: ok (CNOID-PROJECT) with 1 warning\n",
                                                       cases[i].file);

      run_cli (&run, dir, "validate", cases[i].file, NULL);
      g_assert_cmpint (run.status, ==, 0);
      g_assert_cmpstr (run.err, ==, cases[i].err);
      g_assert_cmpstr (run.out, ==, expected_out);
    }
}

static void
test_validate_content_detection (void)
{
  g_autofree char *text = NULL;
  g_autofree char *spec = spec_example_path ();
  g_autofree char *as_txt = NULL;
  g_autofree char *not_json = write_temp ("notes.json", "just some words\n", -1);
  g_autofree char *binary = write_temp ("blob.json", "\x7f" "ELF\0\0\1\2", 8);
  g_autofree char *empty = write_temp ("empty.json", "", 0);
  g_autofree char *array = write_temp ("array.json", "[1, 2, 3]\n", -1);
  g_autofree char *broken = write_temp ("broken.json", "{\"joints\": [,]}", -1);
  g_autofree char *xml = write_temp ("thing.json", "<?xml version=\"1.0\"?>\n<!-- c -->\n"
                                     "<foo a=\"1\"/>\n", -1);
  g_autofree char *missing = g_build_filename (tmp_dir, "does-not-exist.json", NULL);
  g_autofree char *expected = NULL;

  /* A skeleton named foo.txt is still a skeleton. */
  g_assert_true (g_file_get_contents (spec, &text, NULL, NULL));
  as_txt = write_temp ("foo.txt", text, -1);
  {
    g_auto(Run) run = { 0 };

    run_cli (&run, NULL, "validate", as_txt, NULL);
    g_assert_cmpint (run.status, ==, 0);
    expected = g_strdup_printf ("%s: ok (SKELETON-JSON)\n", as_txt);
    g_assert_cmpstr (run.out, ==, expected);
    g_clear_pointer (&expected, g_free);
  }

  /* A .json name does not make a file JSON: each gets a message saying what it looks like. */
  {
    g_auto(Run) run = { 0 };

    run_cli (&run, NULL, "validate", not_json, binary, empty, array, xml, missing, NULL);
    g_assert_cmpint (run.status, ==, 1);
    g_assert_cmpstr (run.out, ==, "");
    expected = g_strdup_printf (
      "%s:1:1: not a file Kinema can read: plain text, not a known Kinema format\n"
      "%s:1:1: not a file Kinema can read: binary data\n"
      "%s:1:1: not a file Kinema can read: an empty file\n"
      "%s:1:1: not a file Kinema can read: a JSON array, not a known Kinema format\n"
      "%s:1:1: not a file Kinema can read: an XML document with root element <foo>\n",
      not_json, binary, empty, array, xml);
    g_assert_true (g_str_has_prefix (run.err, expected));
    g_clear_pointer (&expected, g_free);
    expected = g_strdup_printf ("%s:1:1: cannot read the file: ", missing);
    g_assert_nonnull (strstr (run.err, expected));
    g_clear_pointer (&expected, g_free);
  }

  /* Looks like a skeleton but is not valid JSON: the syntax error, with its position. */
  {
    g_auto(Run) run = { 0 };

    run_cli (&run, NULL, "validate", broken, NULL);
    g_assert_cmpint (run.status, ==, 1);
    expected = g_strdup_printf ("%s:1:13: expected a value", broken);
    g_assert_true (g_str_has_prefix (run.err, expected));
    g_clear_pointer (&expected, g_free);
  }

  /* Text no format claims that starts like JSON, or looks like YAML, but does not parse:
   * the reader's located syntax error, as with --format. */
  {
    g_auto(Run) run = { 0 };
    g_autofree char *nested = g_strnfill (100000, '[');
    g_autofree char *deep = write_temp ("deep.json", nested, -1);
    g_autofree char *yaml = write_temp ("bad.yaml", "foo: [1, 2\nbar: 3\n", -1);

    run_cli (&run, NULL, "validate", deep, yaml, NULL);
    g_assert_cmpint (run.status, ==, 1);
    expected = g_strdup_printf ("%s:1:513: nesting deeper than 512 levels\n"
                                "%s:2:4: malformed YAML: ", deep, yaml);
    g_assert_true (g_str_has_prefix (run.err, expected));
    g_clear_pointer (&expected, g_free);
  }
  {
    g_auto(Run) run = { 0 };
    g_autofree char *nested = g_strnfill (100000, '[');
    g_autofree char *deep = write_temp ("deep2.json", nested, -1);

    run_cli (&run, NULL, "validate", "--format", "SKELETON-JSON", deep, NULL);
    expected = g_strdup_printf ("%s:1:513: nesting deeper than 512 levels\n", deep);
    g_assert_cmpstr (run.err, ==, expected);
    g_clear_pointer (&expected, g_free);
  }

  /* --format overrides detection. */
  {
    g_auto(Run) run = { 0 };

    run_cli (&run, NULL, "validate", "--format", "SKELETON-JSON", array, empty, NULL);
    g_assert_cmpint (run.status, ==, 1);
    expected = g_strdup_printf ("%s:1:1: expected an object, found an array\n"
                                "%s:1:1: empty file\n", array, empty);
    g_assert_cmpstr (run.err, ==, expected);
    g_clear_pointer (&expected, g_free);
  }
  {
    g_auto(Run) run = { 0 };

    run_cli (&run, NULL, "validate", "--format=skeleton-json", as_txt, NULL);
    g_assert_cmpint (run.status, ==, 0);
  }
}

/* Every rejection is located (DESIGN.md, "Error locations"), where the content starts or
 * at 1:1; UTF-16 XML with its byte order mark reads as the same XML in UTF-8. */
/* A targets file whose "base" is its own "effector" is invalid, at the base's value: the
 * base is a joint the effector's chain starts from, above it. */
static void
test_validate_base_is_effector (void)
{
  g_autofree char *path = write_temp ("base-effector.json",
                                      "[{\"frame\": 0, \"pos\": [0, 0, 1], "
                                      "\"euler\": [0, 0, 0],\n"
                                      "  \"effector\": \"tool0\", \"base\": \"tool0\"}]\n", -1);
  g_autofree char *other = write_temp ("base-other.json",
                                       "[{\"frame\": 0, \"pos\": [0, 0, 1], "
                                       "\"euler\": [0, 0, 0],\n"
                                       "  \"effector\": \"tool0\", \"base\": \"wrist\"}]\n", -1);
  g_autofree char *expected = g_strdup_printf ("%s:2:32: expected a base above the end "
                                               "effector, but “tool0” is the end effector "
                                               "itself\n", path);
  g_autofree char *expected_out = g_strdup_printf ("%s: ok (KINEMA-TARGETS-JSON)\n", other);
  g_auto(Run) run = { 0 };

  run_cli (&run, NULL, "validate", path, other, NULL);
  g_assert_cmpstr (run.err, ==, expected);
  g_assert_cmpstr (run.out, ==, expected_out);
  g_assert_cmpint (run.status, ==, 1);
  g_unlink (path);
  g_unlink (other);
}

static void
test_validate_located_rejections (void)
{
  g_autofree char *object = write_temp ("object.json", "\n\n  {\"a\": 1}\n", -1);
  g_autofree char *dir = g_build_filename (tmp_dir, "folder.json", NULL);
  g_autofree char *scene = g_test_build_filename (G_TEST_DIST, "data", "review",
                                                  "sb-utf16.xml", NULL);
  g_autofree char *urdf_path = g_test_build_filename (G_TEST_DIST, "data",
                                                      "urdf-two-arms.urdf", NULL);
  g_autofree char *urdf = NULL;
  g_autofree char *bad_urdf = NULL;
  g_autofree char *le = NULL;
  g_autofree char *be = NULL;
  g_autofree char *bad = NULL;
  g_autofree char *cut = write_temp ("cut.xml", "\xFF\xFE<\0r\0\0\xD8", 8);
  gsize length;

  g_assert_cmpint (g_mkdir (dir, 0700), ==, 0);
  g_assert_true (g_file_get_contents (urdf_path, &urdf, NULL, NULL));
  /* The same URDF in UTF-16LE and UTF-16BE, and one with a bad value on line 32. */
  {
    g_autofree char *text = g_convert (urdf, -1, "UTF-16LE", "UTF-8", NULL, &length, NULL);
    g_autofree char *data = g_malloc (length + 2);

    memcpy (data, "\xFF\xFE", 2);
    memcpy (data + 2, text, length);
    le = write_temp ("le.urdf", data, (gssize) length + 2);
  }
  {
    g_autofree char *text = g_convert (urdf, -1, "UTF-16BE", "UTF-8", NULL, &length, NULL);
    g_autofree char *data = g_malloc (length + 2);

    memcpy (data, "\xFE\xFF", 2);
    memcpy (data + 2, text, length);
    be = write_temp ("be.urdf", data, (gssize) length + 2);
  }
  {
    g_autoptr(GString) edited = g_string_new (urdf);
    g_autofree char *text = NULL;
    g_autofree char *data = NULL;

    g_assert_cmpuint (g_string_replace (edited, "lower=\"-2.3\"", "lower=\"x\"", 1), ==, 1);
    text = g_convert (edited->str, -1, "UTF-16LE", "UTF-8", NULL, &length, NULL);
    data = g_malloc (length + 2);
    memcpy (data, "\xFF\xFE", 2);
    memcpy (data + 2, text, length);
    bad_urdf = write_temp ("bad.urdf", data, (gssize) length + 2);
  }

  {
    g_auto(Run) run = { 0 };
    g_autofree char *expected_out = g_strdup_printf ("%s: ok (SCENEBUILDER-XML)\n"
                                                     "%s: ok (URDF)\n%s: ok (URDF)\n",
                                                     scene, le, be);

    run_cli (&run, NULL, "validate", scene, le, be, NULL);
    g_assert_cmpstr (run.err, ==, "");
    g_assert_cmpstr (run.out, ==, expected_out);
    g_assert_cmpint (run.status, ==, 0);
  }
  {
    g_auto(Run) run = { 0 };

    run_cli (&run, NULL, "info", scene, NULL);
    g_assert_cmpint (run.status, ==, 0);
    g_assert_true (g_str_has_suffix (run.out, "\njoints=3 dof=2\n"));
  }
  {
    g_auto(Run) run = { 0 };
    g_autofree char *expected = g_strdup_printf (
      "%s:3:3: not a file Kinema can read: a JSON object, not a known Kinema format\n"
      "%s:1:1: cannot read the file: ", object, dir);

    run_cli (&run, NULL, "validate", object, dir, NULL);
    g_assert_cmpint (run.status, ==, 1);
    g_assert_cmpstr (run.out, ==, "");
    g_assert_true (g_str_has_prefix (run.err, expected));
  }
  {
    g_auto(Run) run = { 0 };
    g_autofree char *expected = g_strdup_printf (
      "%s:32:19: expected a finite number in “lower”\n"
      "%s:1:3: expected UTF-16LE text after the byte order mark: ", bad_urdf, cut);

    run_cli (&run, NULL, "validate", bad_urdf, cut, NULL);
    g_assert_cmpint (run.status, ==, 1);
    g_assert_cmpstr (run.out, ==, "");
    g_assert_true (g_str_has_prefix (run.err, expected));
  }
  g_rmdir (dir);
}

/* Files that used to be misread: a VRML NaN read as a field name, a URDF whose DOCTYPE has
 * an internal subset not recognised as URDF, an empty targets file said to be no known
 * format. Each now fails where the problem is, saying what was expected. */
static void
test_validate_misread_rejections (void)
{
  g_autofree char *nan = write_temp (
    "nan.wrl", "#VRML V2.0 utf8\n"
    "PROTO Joint [ exposedField SFString jointType \"\" exposedField MFNode children [ ]\n"
    "  exposedField SFVec3f translation 0 0 0 exposedField MFFloat ulimit [ ] ] { Group { } }\n"
    "DEF R Joint { jointType \"rotate\"\n  translation 0 0 NaN\n  ulimit [ 1 ] }\n", -1);
  g_autofree char *inf = write_temp (
    "inf.wrl", "#VRML V2.0 utf8\n"
    "PROTO Joint [ exposedField SFString jointType \"\" exposedField MFNode children [ ]\n"
    "  exposedField SFVec3f translation 0 0 0 exposedField MFFloat ulimit [ ] ] { Group { } }\n"
    "DEF R Joint { jointType \"rotate\"\n  ulimit [ abc ] }\n", -1);
  g_autofree char *doctype = write_temp (
    "entity.urdf", "<?xml version=\"1.0\"?>\n<!DOCTYPE robot [ <!ENTITY len \"0.5\"> ]>\n"
    "<robot name=\"x\"><link name=\"a\"/></robot>\n", -1);
  g_autofree char *other = write_temp (
    "entity.xml", "<!DOCTYPE foo [ <!ENTITY a \"x>y\"> <!-- ] > --> ]>\n<foo/>\n", -1);
  g_autofree char *empty = write_temp ("targets.json", "[]\n", -1);
  g_auto(Run) run = { 0 };
  g_autofree char *expected = g_strdup_printf (
    "%s:5:19: expected a finite number\n"
    "%s:5:12: expected a finite number\n"
    "%s:2:19: expected no entity declarations: an internal DTD subset "
    "(“<!DOCTYPE … [ … ]>”) is not supported\n"
    "%s:1:1: not a file Kinema can read: an XML document with root element <foo>\n"
    "%s:1:1: expected at least one keyframe (an IK targets file with no keyframes)\n",
    nan, inf, doctype, other, empty);

  run_cli (&run, NULL, "validate", nan, inf, doctype, other, empty, NULL);
  g_assert_cmpint (run.status, ==, 1);
  g_assert_cmpstr (run.out, ==, "");
  g_assert_cmpstr (run.err, ==, expected);
}

/* An IK targets item's frame rate is read as a body motion's (0.001 to 1e+06 frames per
 * second): a tiny positive one (1e-300) is said at the rate itself, where it used to be
 * taken and refused only when solved into a .seq, at the last keyframe. */
static void
test_validate_targets_item_frame_rate (void)
{
  struct { const char *rate; gboolean ok; } cases[] = {
    { "1e-300", FALSE }, { "1e-9", FALSE }, { "0.0009", FALSE }, { "0", FALSE },
    { "2e6", FALSE }, { "0.001", TRUE },
    { "1e6", TRUE }, { "24", TRUE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto(Run) run = { 0 };
      g_autofree char *text = g_strdup_printf ("items:\n"
                                               "  id: 0\n"
                                               "  name: RootItem\n"
                                               "  plugin: Base\n"
                                               "  class: RootItem\n"
                                               "  children:\n"
                                               "    -\n"
                                               "      id: 1\n"
                                               "      name: Targets\n"
                                               "      plugin: Kinema\n"
                                               "      class: IKTargetsItem\n"
                                               "      data:\n"
                                               "        frame_rate: %s\n"
                                               "        keyframes:\n"
                                               "          - { frame: 0, pos: [ 0, 1, 2 ], "
                                               "euler: [ 0, 0, 0 ] }\n"
                                               "          - { frame: 12, pos: [ 0, 1, 3 ], "
                                               "euler: [ 0, 0, 0 ] }\n", cases[i].rate);
      g_autofree char *project = write_temp ("rate.cnoid", text, -1);
      g_autofree char *expected_out = NULL;
      g_autofree char *expected_err = NULL;

      run_cli (&run, NULL, "validate", project, NULL);
      if (cases[i].ok)
        {
          expected_out = g_strdup_printf ("%s: ok (CNOID-PROJECT)\n", project);
          expected_err = g_strdup ("");
        }
      else
        {
          expected_out = g_strdup_printf ("%s: ok (CNOID-PROJECT) with 1 warning\n", project);
          expected_err = g_strdup_printf ("%s:13:21: warning: expected a frame rate from 0.001 "
                                          "to 1e+06 frames per second\n", project);
        }
      g_assert_cmpstr (run.err, ==, expected_err);
      g_assert_cmpstr (run.out, ==, expected_out);
      g_assert_cmpint (run.status, ==, 0);
    }
}

/* Files in the styles other tools write are detected as what they are (rev15 3, 4, 6, 7):
 * an indentless sequence before `format:` (PyYAML's default), flow style, strict JSON,
 * old-Mac CR line ends; XML cut off in its header comment reports the break. */
static void
test_validate_detection_styles (void)
{
  g_autofree char *indentless = write_temp ("indentless.body",
                                            "foo:\n- 1\nname: T\nlinks:\n- name: base\n"
                                            "  joint_type: fixed\nformat: ChoreonoidBody\n"
                                            "format_version: 2.0\n", -1);
  g_autofree char *project = write_temp ("indentless.cnoid",
                                         "optional_plugins:\n- PhysX\nitems:\n  id: 0\n"
                                         "  name: RootItem\n  class: RootItem\n"
                                         "  plugin: Base\n", -1);
  g_autofree char *flow = write_temp ("flow.body",
                                      "{format: ChoreonoidBody, formatVersion: 1.0, name: T, "
                                      "links: [ {name: base, jointType: fixed} ]}\n", -1);
  g_autofree char *json = write_temp ("json.cnoid",
                                      "{\"items\": {\"id\": 0, \"name\": \"RootItem\", "
                                      "\"class\": \"RootItem\", \"plugin\": \"Base\"}}", -1);
  g_autofree char *cr = write_temp ("cr.pseq",
                                    "# Body pose sequence format version 1.0\r\rtype: PoseSeq\r"
                                    "name: w\rtargetBody: SR1\rrefs:\r- time: 0\r  refer:\r"
                                    "    type: Pose\r    name: \"\"\r    joints: [ 0 ]\r"
                                    "    q: [ 0.5 ]\r", -1);
  g_autofree char *cut = write_temp ("cut.urdf",
                                     "<?xml version=\"1.0\" ?>\n<!-- ========== -->\n"
                                     "<!-- |    generated by xacro    | -->\n"
                                     "<!-- |    EDITING THIS FILE BY HAND | --", -1);
  g_autofree char *expected = NULL;

  {
    g_auto(Run) run = { 0 };

    run_cli (&run, NULL, "validate", indentless, project, flow, json, cr, NULL);
    g_assert_cmpstr (run.err, ==, "");
    expected = g_strdup_printf ("%s: ok (CHOREONOID-BODY)\n%s: ok (CNOID-PROJECT)\n"
                                "%s: ok (CHOREONOID-BODY)\n%s: ok (CNOID-PROJECT)\n"
                                "%s: ok (POSE-SEQ-YAML)\n",
                                indentless, project, flow, json, cr);
    g_assert_cmpstr (run.out, ==, expected);
    g_assert_cmpint (run.status, ==, 0);
    g_clear_pointer (&expected, g_free);
  }
  {
    g_auto(Run) run = { 0 };

    run_cli (&run, NULL, "validate", cut, NULL);
    g_assert_cmpint (run.status, ==, 1);
    expected = g_strdup_printf ("%s:4:41: expected well-formed XML: Document ended unexpectedly "
                                "inside a comment or processing instruction\n", cut);
    g_assert_cmpstr (run.err, ==, expected);
  }
}

static void
test_validate_usage (void)
{
  g_autofree char *spec = spec_example_path ();

  {
    g_auto(Run) run = { 0 };

    run_cli (&run, NULL, "validate", NULL);
    g_assert_cmpint (run.status, ==, 2);
    g_assert_true (g_str_has_prefix (run.err, "kinema-cli: no file given\n"));
  }
  {
    g_auto(Run) run = { 0 };

    run_cli (&run, NULL, "validate", "--no-such-option", spec, NULL);
    g_assert_cmpint (run.status, ==, 2);
    g_assert_true (g_str_has_prefix (run.err, "kinema-cli: "));
  }
  {
    g_auto(Run) run = { 0 };

    run_cli (&run, NULL, "validate", "--format", "NOPE", spec, NULL);
    g_assert_cmpint (run.status, ==, 2);
    g_assert_true (g_str_has_prefix (run.err, "kinema-cli: unknown format “NOPE” (known formats: "));
    g_assert_nonnull (strstr (run.err, "SKELETON-JSON"));
  }
  {
    g_auto(Run) run = { 0 };

    run_cli (&run, NULL, "validate", "--help", NULL);
    g_assert_cmpint (run.status, ==, 0);
    g_assert_nonnull (strstr (run.out, "--format"));
  }
  {
    g_auto(Run) run = { 0 };

    run_cli (&run, NULL, "validate", "--version", NULL);
    g_assert_cmpint (run.status, ==, 0);
    g_assert_cmpstr (run.out, ==, "kinema-cli " PACKAGE_VERSION "\n");
  }
}

static void
test_info (void)
{
  g_autofree char *spec = spec_example_path ();
  g_autofree char *bad = data_path ("skeleton-bad-limits.json");

  {
    g_auto(Run) run = { 0 };

    run_cli (&run, NULL, "info", spec, NULL);
    g_assert_cmpint (run.status, ==, 0);
    g_assert_cmpstr (run.err, ==, "");
    g_assert_cmpstr (run.out, ==,
                     "joint=Root type=fixed parent=- dof=0 axis=- limits=-\n"
                     "joint=Shoulder type=spherical parent=Root dof=3 axis=- "
                     "limits=-3.14:3.14,-,-0.5:0.5\n"
                     "joint=Elbow type=revolute parent=Shoulder dof=1 axis=1,0,0 limits=0:2.5\n"
                     "joint=Piston type=prismatic parent=Elbow dof=1 axis=0,0,1 limits=0:0.5\n"
                     "joint=EndEffector type=fixed parent=Piston dof=0 axis=- limits=-\n"
                     "joints=5 dof=5\n");
  }
  {
    g_auto(Run) run = { 0 };
    g_autofree char *expected = g_strdup_printf ("%s:15:39: limits must be [min, max] with "
                                                 "min ≤ max\n", bad);

    run_cli (&run, NULL, "info", bad, NULL);
    g_assert_cmpint (run.status, ==, 1);
    g_assert_cmpstr (run.out, ==, "");
    g_assert_cmpstr (run.err, ==, expected);
  }
  {
    g_auto(Run) run = { 0 };

    run_cli (&run, NULL, "info", spec, spec, NULL);
    g_assert_cmpint (run.status, ==, 2);
  }
  {
    g_auto(Run) run = { 0 };

    run_cli (&run, NULL, "info", NULL);
    g_assert_cmpint (run.status, ==, 2);
  }
  {
    g_auto(Run) run = { 0 };

    run_cli (&run, NULL, "info", "--help", NULL);
    g_assert_cmpint (run.status, ==, 0);
    g_assert_nonnull (strstr (run.out, "--format"));
  }
}

/* A file name with a control character or a backslash is escaped C-style in every line
 * that names it (README, kinema-cli): the "FILE: ok" line, a rejection's and a warning's
 * "FILE:LINE:COLUMN:" prefix; each stays one line. A plain name is shown as it is. */
static void
test_validate_escaped_names (void)
{
  g_autofree char *good = write_temp ("ok\tskel.json", "{\"root_name\": \"r\", \"joints\": "
                                      "[{\"name\": \"r\", \"type\": \"fixed\", \"offset\": "
                                      "[0, 0, 0]}]}\n", -1);
  g_autofree char *bad = write_temp ("g\nh\\i.json", "[\n  {\"frame\": 2, \"pos\": [0, 0, 0], "
                                     "\"euler\": [0, 0, 0]},\n  {\"frame\": 2, \"pos\": "
                                     "[0, 0, 0], \"euler\": [0, 0, 0]}\n]\n", -1);
  g_autofree char *odd = write_temp ("w\rarn.json", "{\"root_name\": \"r\", \"comment\": 1, "
                                     "\"joints\": [{\"name\": \"r\", \"type\": \"fixed\", "
                                     "\"offset\": [0, 0, 0]}]}\n", -1);
  g_autofree char *ok_line = g_strdup_printf ("%s/ok\\tskel.json: ok (SKELETON-JSON)\n", tmp_dir);
  g_autofree char *bad_start = g_strdup_printf ("%s/g\\nh\\\\i.json:3:13: expected a frame "
                                                "number not used before", tmp_dir);
  g_autofree char *warn_start = g_strdup_printf ("%s/w\\rarn.json:1:20: warning: ", tmp_dir);
  /* A name with ": " and a location of its own in it: the first location wins, as ever. */
  g_autofree char *spaced = write_temp ("co: lon.json", "{\"root_name\": \"r\", \"comment\": 1, "
                                        "\"joints\": [{\"name\": \"r\", \"type\": \"fixed\", "
                                        "\"offset\": [0, 0, 0]}]}\n", -1);
  g_autofree char *spaced_start = g_strdup_printf ("%s/co: lon.json:1:20: warning: unknown key",
                                                   tmp_dir);
  g_autofree char *plain = write_temp ("plain.json", "{\"root_name\": \"r\", \"joints\": "
                                       "[{\"name\": \"r\", \"type\": \"fixed\", \"offset\": "
                                       "[0, 0, 0]}]}\n", -1);
  g_autofree char *plain_line = g_strdup_printf ("%s: ok (SKELETON-JSON)\n", plain);
  g_auto(Run) run = { 0 };
  g_auto(Run) warned = { 0 };
  g_auto(Run) as_is = { 0 };

  run_cli (&run, NULL, "validate", good, bad, NULL);
  g_assert_cmpint (run.status, ==, 1);
  g_assert_cmpstr (run.out, ==, ok_line);
  g_assert_true (g_str_has_prefix (run.err, bad_start));
  /* One line: the message's only newline ends it. */
  g_assert_true (strchr (run.err, '\n') == run.err + strlen (run.err) - 1);

  run_cli (&warned, NULL, "validate", odd, NULL);
  g_assert_cmpint (warned.status, ==, 0);
  g_assert_true (g_str_has_prefix (warned.err, warn_start));
  g_assert_true (g_str_has_suffix (warned.out, "w\\rarn.json: ok (SKELETON-JSON) with 1 warning\n"));

  run_cli (&as_is, NULL, "validate", plain, NULL);
  g_assert_cmpstr (as_is.out, ==, plain_line);

  {
    g_auto(Run) spaced_run = { 0 };

    run_cli (&spaced_run, NULL, "validate", spaced, NULL);
    g_assert_cmpint (spaced_run.status, ==, 0);
    if (!g_str_has_prefix (spaced_run.err, spaced_start))
      g_error ("“%s”", spaced_run.err);
  }
}

/* Runs $KINEMA_CLI with its stdout on /dev/full (a write to it fails with ENOSPC):
 * returns the exit status, stderr in @err. */
static int
run_to_full (char      **err,
             const char *first,
             ...)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  const char *arg;
  int out_fd, wait_status;
  va_list args;

  g_ptr_array_add (argv, (char *) g_getenv ("KINEMA_CLI"));
  va_start (args, first);
  for (arg = first; arg != NULL; arg = va_arg (args, const char *))
    g_ptr_array_add (argv, (char *) arg);
  va_end (args);
  g_ptr_array_add (argv, NULL);

  out_fd = g_open ("/dev/full", O_WRONLY, 0);
  g_assert_cmpint (out_fd, >=, 0);
  {
    GPid pid;
    int err_fd = -1;
    g_autoptr(GString) text = g_string_new (NULL);
    char buffer[4096];
    gssize n;

    g_assert_true (g_spawn_async_with_pipes_and_fds (NULL, (const char * const *) argv->pdata,
                                                     NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL,
                                                     NULL, -1, out_fd, -1, NULL, NULL, 0,
                                                     &pid, NULL, NULL, &err_fd, &error));
    g_assert_no_error (error);
    while ((n = read (err_fd, buffer, sizeof buffer)) > 0)
      g_string_append_len (text, buffer, n);
    close (err_fd);
    g_assert_cmpint (waitpid (pid, &wait_status, 0), ==, pid);
    g_spawn_close_pid (pid);
    *err = g_string_free (g_steal_pointer (&text), FALSE);
  }
  close (out_fd);
  g_assert_true (WIFEXITED (wait_status));
  return WEXITSTATUS (wait_status);
}

/* Every command's stdout lines are checked at the end: written to a full device they
 * are lost, and the command says so and exits 1 instead of 0. */
static void
test_stdout_write_error (void)
{
  g_autofree char *model = spec_example_path ();
  g_autofree char *converted = g_build_filename (tmp_dir, "stdout-full.json", NULL);
  g_autofree char *animation = g_build_filename (tmp_dir, "stdout-full.animation.json", NULL);
  g_autofree char *targets = write_temp ("stdout-full-targets.json",
                                         "[{\"frame\": 0, \"pos\": [0.3, 0, 1.2], "
                                         "\"euler\": [0, 0, 0]}]\n", -1);
  struct
  {
    const char *args[8];
  } runs[] = {
    { { "version", NULL } },
    { { "--version", NULL } },
    { { "--help", NULL } },
    { { "info", model, NULL } },
    { { "validate", model, NULL } },
    { { "convert", model, converted, NULL } },
    { { "solve", model, targets, "-o", animation, NULL } },
    { { "bench-ik", model, targets, "--mode", "cold", NULL } },
    /* Each command's own help (GOptionContext printed it and exited 0 itself). */
    { { "help", "solve", NULL } },
    { { "version", "--help", NULL } },
    { { "info", "-h", NULL } },
    { { "validate", "--help-all", NULL } },
    { { "convert", "-?", NULL } },
    { { "solve", model, "--help", NULL } },
    { { "bench-ik", "--help", NULL } },
  };

  if (!g_file_test ("/dev/full", G_FILE_TEST_EXISTS))
    {
      g_test_skip ("no /dev/full");
      return;
    }
  for (guint i = 0; i < G_N_ELEMENTS (runs); i++)
    {
      g_autofree char *err = NULL;
      const char *const *a = runs[i].args;
      int status = run_to_full (&err, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], NULL);

      if (status != 1 || strstr (err, "kinema-cli: /dev/stdout: cannot write the file: ") == NULL)
        g_error ("%s: exit %d, “%s”", a[0], status, err);
    }
}

/* A named pipe with no writer: open(2) of it would wait for one for ever (rev18-cli finding
 * 12). A writer is waited for a bounded time, then the pipe is refused, located, as what
 * it is, not as "an empty file" (rev19-cli finding 4). */
static void
test_fifo_without_writer (void)
{
  g_autofree char *fifo = g_build_filename (tmp_dir, "pipe.json", NULL);
  g_autofree char *expected = g_strdup_printf ("%s:1:1: not a file Kinema can read: a pipe "
                                               "with no writer (none came within 10 "
                                               "seconds)\n", fifo);
  g_auto(Run) run = { 0 };

  if (mkfifo (fifo, 0600) != 0)
    {
      g_test_skip ("mkfifo is not supported here");
      return;
    }
  run_cli (&run, NULL, "validate", fifo, NULL);
  g_assert_cmpint (run.status, ==, 1);
  g_assert_cmpstr (run.err, ==, expected);
  g_unlink (fifo);
}

/* `validate p & producer > p`: the reader opens the pipe before any writer does; the
 * writer that comes then is read, where the pipe used to read as an empty file at once
 * (rev19-cli finding 4). The writer waits for the reader to be there (an open without
 * blocking fails with ENXIO until then), so the test never hangs on a reader gone. */
static void
test_fifo_writer_later (void)
{
  g_autofree char *fifo = g_build_filename (tmp_dir, "pipe-later.json", NULL);
  g_autofree char *model = spec_example_path ();
  g_autofree char *contents = NULL;
  const char *argv[] = { g_getenv ("KINEMA_CLI"), "validate", fifo, NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) err = g_string_new (NULL);
  gsize length = 0;
  int err_fd = -1, fd = -1, wait_status;
  char buffer[4096];
  gssize n;
  GPid pid;

  if (mkfifo (fifo, 0600) != 0)
    {
      g_test_skip ("mkfifo is not supported here");
      return;
    }
  g_assert_true (g_file_get_contents (model, &contents, &length, NULL));
  g_assert_true (g_spawn_async_with_pipes (NULL, (char **) argv, NULL,
                                           G_SPAWN_DO_NOT_REAP_CHILD |
                                           G_SPAWN_STDOUT_TO_DEV_NULL,
                                           NULL, NULL, &pid, NULL, NULL, &err_fd, &error));
  g_assert_no_error (error);
  /* The reader first: it has opened the pipe when the open below succeeds, and has read
   * it too by then, almost always (what made it an empty file). */
  g_usleep (300 * 1000);
  while ((fd = g_open (fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC, 0)) < 0)
    {
      g_assert_cmpint (errno, ==, ENXIO);
      /* No reader: gone already (a failure, said below) or not there yet. */
      if (waitpid (pid, &wait_status, WNOHANG) == pid)
        {
          while ((n = read (err_fd, buffer, sizeof buffer)) > 0)
            g_string_append_len (err, buffer, n);
          g_error ("validate ended before the writer came: “%s”", err->str);
        }
      g_usleep (10 * 1000);
    }
  g_assert_cmpint (fcntl (fd, F_SETFL, fcntl (fd, F_GETFL) & ~O_NONBLOCK), ==, 0);
  g_assert_cmpint (write (fd, contents, length), ==, (gssize) length);
  g_assert_cmpint (close (fd), ==, 0);
  while ((n = read (err_fd, buffer, sizeof buffer)) > 0)
    g_string_append_len (err, buffer, n);
  close (err_fd);
  g_assert_cmpint (waitpid (pid, &wait_status, 0), ==, pid);
  g_spawn_close_pid (pid);
  g_assert_true (WIFEXITED (wait_status));
  if (WEXITSTATUS (wait_status) != 0)
    g_error ("exit %d: “%s”", WEXITSTATUS (wait_status), err->str);
  g_unlink (fifo);
}

/* `version` takes no argument and no option but --help: wrong usage, exit 2. */
static void
test_version_usage (void)
{
  const char *wrong[][2] = { { "extra", NULL }, { "--bogus", NULL } };

  for (guint i = 0; i < G_N_ELEMENTS (wrong); i++)
    {
      g_auto(Run) run = { 0 };

      run_cli (&run, NULL, "version", wrong[i][0], NULL);
      g_assert_cmpint (run.status, ==, 2);
      g_assert_cmpstr (run.out, ==, "");
      g_assert_true (g_str_has_prefix (run.err, "kinema-cli: "));
      g_assert_nonnull (strstr (run.err, "Usage:"));
    }
  {
    g_auto(Run) run = { 0 };

    run_cli (&run, NULL, "version", NULL);
    g_assert_cmpint (run.status, ==, 0);
    g_assert_true (g_str_has_prefix (run.out, "kinema-cli "));
  }
}

/* Names with a control character or a backslash are escaped in messages, as `info`
 * escapes them: each message stays one line. */
static void
test_escaped_names_in_messages (void)
{
  g_autofree char *linked = write_temp ("esc-linked.json",
    "{\"root_name\":\"R\\nX\",\"joints\":[{\"name\":\"R\\nX\",\"type\":\"fixed\","
    "\"offset\":[0,0,0]},{\"name\":\"A\\u0007\\\\b\",\"type\":\"revolute\",\"offset\":[0,0,0],"
    "\"parent\":\"R\\nX\",\"axis\":[0,0,1],\"mimic\":{\"joint\":\"R\\nX\"}}]}", -1);
  g_autofree char *urdf = write_temp ("esc.urdf",
    "<robot name=\"r\"><link name=\"a\"/><link name=\"b\"/><joint name=\"j\" "
    "type=\"revolute\"><parent link=\"a\"/><child link=\"b&#10;d\"/><axis xyz=\"0 0 1\"/>"
    "</joint></robot>", -1);
  g_autofree char *model = write_temp ("esc-model.json",
    "{\"root_name\":\"R\",\"joints\":[{\"name\":\"R\",\"type\":\"fixed\",\"offset\":[0,0,0]},"
    "{\"name\":\"A\",\"type\":\"revolute\",\"offset\":[0,0,0],\"parent\":\"R\","
    "\"axis\":[0,0,1]}]}", -1);
  g_autofree char *targets = write_temp ("esc-targets.json",
    "[{\"frame\":0,\"pos\":[0,0,0],\"euler\":[0,0,0],\"effector\":\"Q\\nZ\"}]", -1);
  g_autofree char *out = g_build_filename (tmp_dir, "esc.animation.json", NULL);
  struct
  {
    const char *args[8];
    const char *quoted;
  } cases[] = {
    { { "info", linked, NULL }, "(“A\\x07\\\\b” follows “R\\nX”)" },
    { { "info", urdf, NULL }, "“b\\nd” is none" },
    { { "solve", model, targets, "-o", out, NULL }, "“Q\\nZ” to use as the end effector" },
    { { "solve", model, targets, "-o", out, "-e", "Q\nZ", NULL }, "--effector Q\\nZ: " },
    { { "bench-ik", model, targets, "--mode", "cold", NULL }, "“Q\\nZ” to use as the end" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const char *const *a = cases[i].args;
      g_auto(Run) run = { 0 };

      run_cli (&run, NULL, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], NULL);
      g_assert_cmpint (run.status, ==, 1);
      /* One line, with the name escaped. */
      if (strstr (run.err, cases[i].quoted) == NULL ||
          strchr (run.err, '\n') != run.err + strlen (run.err) - 1 || strchr (run.err, '\a'))
        g_error ("%s %s: “%s” does not hold “%s” on one line", a[0], a[1], run.err,
                 cases[i].quoted);
    }
}

/* An axis of any finite magnitude is an axis: normalised, not "zero" (its square may
 * overflow or underflow); a zero axis is still refused. */
static void
test_axis_magnitude (void)
{
  const char *axes[] = { "[0,0,1e200]", "[0,0,1e-170]", "[0,0,4e-320]", "[1e308,0,1e308]" };
  const char *shown[] = { "axis=0,0,1 ", "axis=0,0,1 ", "axis=0,0,1 ",
                          "axis=0.7071067811865475,0,0.7071067811865475 " };

  for (guint i = 0; i < G_N_ELEMENTS (axes); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "{\"root_name\":\"R\",\"joints\":[{\"name\":\"R\",\"type\":\"fixed\","
        "\"offset\":[0,0,0]},{\"name\":\"A\",\"type\":\"revolute\",\"offset\":[0,0,0],"
        "\"parent\":\"R\",\"axis\":%s}]}", axes[i]);
      g_autofree char *path = write_temp ("axis.json", text, -1);
      g_auto(Run) run = { 0 };

      run_cli (&run, NULL, "info", path, NULL);
      if (run.status != 0 || strstr (run.out, shown[i]) == NULL)
        g_error ("%s: exit %d, “%s”, “%s”", axes[i], run.status, run.out, run.err);
    }
  {
    g_autofree char *path = write_temp ("axis-zero.json",
      "{\"root_name\":\"R\",\"joints\":[{\"name\":\"R\",\"type\":\"fixed\","
      "\"offset\":[0,0,0]},{\"name\":\"A\",\"type\":\"revolute\",\"offset\":[0,0,0],"
      "\"parent\":\"R\",\"axis\":[0,0,0]}]}", -1);
    g_auto(Run) run = { 0 };

    run_cli (&run, NULL, "info", path, NULL);
    g_assert_cmpint (run.status, ==, 1);
    g_assert_nonnull (strstr (run.err, "must not be zero"));
  }
}

/* A root_name that names no joint is said at its value, not as a missing "parent". */
static void
test_root_name_names_no_joint (void)
{
  g_autofree char *path = write_temp ("noroot.json",
    "{\"root_name\":\"X\",\"joints\":[{\"name\":\"R\",\"type\":\"fixed\","
    "\"offset\":[0,0,0]}]}", -1);
  g_autofree char *expected = g_strdup_printf ("%s:1:14: the root joint “X” is not among "
                                               "the joints\n", path);
  g_auto(Run) run = { 0 };

  run_cli (&run, NULL, "validate", path, NULL);
  g_assert_cmpint (run.status, ==, 1);
  g_assert_cmpstr (run.err, ==, expected);
}

/* An integer beyond 2^53 is echoed as written, not as the double it rounds to. */
static void
test_big_frame_echoed (void)
{
  g_autofree char *path = write_temp ("bigframe.json",
    "[{\"frame\": 9007199254740993, \"pos\": [0, 0, 0], \"euler\": [0, 0, 0]}]", -1);
  g_auto(Run) run = { 0 };

  run_cli (&run, NULL, "validate", path, NULL);
  g_assert_cmpint (run.status, ==, 1);
  if (!g_str_has_suffix (run.err, ", found 9007199254740993\n"))
    g_error ("“%s”", run.err);
}

/* A Scenebuilder value out of range is located at its first character, its sign. */
static void
test_negative_number_column (void)
{
  g_autofree char *path = write_temp ("range.xml",
    "<namespace name=\"x\">\n"
    "  <body name=\"b\"/>\n"
    "  <hinge name=\"h\" range=\"-1e999 1e999\"/>\n"
    "</namespace>\n", -1);
  g_autofree char *expected = g_strdup_printf ("%s:3:26: warning: invalid value of “range”: "
                                               "the number is out of range", path);
  g_auto(Run) run = { 0 };

  run_cli (&run, NULL, "validate", path, NULL);
  if (strstr (run.err, expected) == NULL)
    g_error ("“%s” does not hold “%s”", run.err, expected);
}

/* A URDF joint with its limits the wrong way round (lower above upper, a typo) is refused,
 * exit 1, at the attribute, as a .body or skeleton.json with min > max is: it was read as
 * an unlimited joint with only a warning (rev22 finding 3), which gave the IK every
 * position. A revolute joint without a <limit> is still read, unlimited, with a warning. */
static void
test_urdf_inverted_limits (void)
{
  g_autofree char *inverted = write_temp ("inverted.urdf",
    "<robot name='r'><link name='a'/><link name='b'/>\n"
    "<joint name='j' type='revolute'><parent link='a'/><child link='b'/>\n"
    "  <axis xyz='0 0 1'/><limit lower='0.5' upper='0.4' effort='1' velocity='1'/>\n"
    "</joint></robot>\n", -1);
  g_autofree char *unlimited = write_temp ("nolimit.urdf",
    "<robot name='r'><link name='a'/><link name='b'/>\n"
    "<joint name='j' type='revolute'><parent link='a'/><child link='b'/>\n"
    "  <axis xyz='0 0 1'/></joint></robot>\n", -1);
  g_autofree char *output = g_build_filename (tmp_dir, "inverted.json", NULL);
  g_autofree char *expected = g_strdup_printf ("%s:3:36: expected lower ≤ upper\n", inverted);
  const char *commands[][4] = {
    { "validate", inverted, NULL, NULL },
    { "info", inverted, NULL, NULL },
    { "convert", inverted, output, NULL },
  };

  for (guint c = 0; c < G_N_ELEMENTS (commands); c++)
    {
      g_auto(Run) run = { 0 };

      run_cli (&run, NULL, commands[c][0], commands[c][1], commands[c][2], NULL);
      if (run.status != 1 || !g_str_has_suffix (run.err, expected))
        g_error ("%s: exit %d, “%s”", commands[c][0], run.status, run.err);
      g_assert_cmpstr (run.out, ==, "");
    }
  g_assert_false (g_file_test (output, G_FILE_TEST_EXISTS));
  {
    g_auto(Run) run = { 0 };

    run_cli (&run, NULL, "info", unlimited, NULL);
    g_assert_cmpint (run.status, ==, 0);
    g_assert_nonnull (strstr (run.out, "joint=j type=revolute parent=a dof=1 axis=0,0,1 "
                                       "limits=-\n"));
    g_assert_nonnull (strstr (run.err, "revolute joint “j” has no <limit>; it is left "
                                       "unlimited"));
  }
}

/* Review r2, 6: every command but `version` takes --version (validate and info did,
 * solve, convert and bench-ik did not), listed once in its help; `version --version` is
 * wrong usage (README). */
static void
test_version_everywhere (void)
{
  const char *commands[] = { "validate", "info", "convert", "solve", "bench-ik" };

  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      g_auto(Run) run = { 0 };
      g_auto(Run) help = { 0 };
      const char *first;

      run_cli (&run, NULL, commands[i], "--version", NULL);
      if (run.status != 0 || g_strcmp0 (run.out, "kinema-cli " PACKAGE_VERSION "\n") != 0)
        g_error ("%s --version: exit %d, “%s”, “%s”", commands[i], run.status, run.out,
                 run.err);
      run_cli (&help, NULL, commands[i], "--help", NULL);
      g_assert_cmpint (help.status, ==, 0);
      first = strstr (help.out, "  --version");
      if (first == NULL || strstr (first + 1, "  --version") != NULL)
        g_error ("%s --help lists --version %s", commands[i],
                 first == NULL ? "not at all" : "twice");
    }
  {
    g_auto(Run) run = { 0 };

    run_cli (&run, NULL, "version", "--version", NULL);
    g_assert_cmpint (run.status, ==, 2);
  }
}

/* Review r2, 3: convert writes URDF, .body or skeleton.json and rewrites other files; its
 * summary in the command list and its usage line said "to skeleton.json". */
static void
test_convert_summary (void)
{
  g_auto(Run) usage = { 0 };
  g_auto(Run) help = { 0 };
  const char *line;

  run_cli (&usage, NULL, "--help", NULL);
  g_assert_cmpint (usage.status, ==, 0);
  line = strstr (usage.out, "  convert ");
  g_assert_nonnull (line);
  line = g_strndup (line, strcspn (line, "\n"));
  g_test_message ("%s", line);
  g_assert_nonnull (strstr (line, "URDF"));
  g_assert_nonnull (strstr (line, ".body"));
  g_free ((char *) line);

  run_cli (&help, NULL, "convert", "--help", NULL);
  g_assert_cmpint (help.status, ==, 0);
  line = strstr (help.out, "INPUT OUTPUT");
  g_assert_nonnull (line);
  line = g_strndup (line, strcspn (line, "\n"));
  g_test_message ("%s", line);
  g_assert_nonnull (strstr (line, "URDF"));
  g_assert_null (strstr (line, "convert a model to skeleton.json"));
  g_free ((char *) line);
}

/* Review r2, 6: .ci/run's last line is always "N passed, N failed, N skipped" (README),
 * also when its setup fails ("0 passed, 1 failed" it was). Run on a copy whose .ci/setup
 * fails at once, so that nothing is set up, built or installed. */
static void
test_ci_run_setup_failure (void)
{
  g_autofree char *script = g_test_build_filename (G_TEST_DIST, "..", ".ci", "run", NULL);
  g_autofree char *dir = km_test_make_tmp_dir ("ci-run-XXXXXX");
  g_autofree char *ci = g_build_filename (dir, ".ci", NULL);
  g_autofree char *run_copy = g_build_filename (ci, "run", NULL);
  g_autofree char *setup = g_build_filename (ci, "setup", NULL);
  g_autofree char *text = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr(GError) error = NULL;
  const char *argv[] = { "bash", run_copy, NULL };
  const char *last;
  int status;

  if (!g_file_get_contents (script, &text, NULL, NULL))
    {
      g_test_skip (".ci/run is not in this tree");
      return;
    }
  g_assert_cmpint (g_mkdir (ci, 0755), ==, 0);
  g_assert_true (g_file_set_contents (run_copy, text, -1, NULL));
  g_assert_true (g_file_set_contents (setup, "echo 'setup fails here' >&2\nexit 1\n", -1, NULL));
  g_assert_true (g_spawn_sync (dir, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL,
                               &out, &err, &status, &error));
  g_assert_no_error (error);
  g_assert_false (g_spawn_check_wait_status (status, NULL));
  g_assert_true (g_str_has_suffix (out, "\n"));
  out[strlen (out) - 1] = '\0';
  last = strrchr (out, '\n') != NULL ? strrchr (out, '\n') + 1 : out;
  g_assert_cmpstr (last, ==, "0 passed, 1 failed, 0 skipped");
  km_test_remove_tree (dir);
}

int
main (int    argc,
      char **argv)
{
  int status;

  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/kinema/CliValidate/version-everywhere", test_version_everywhere);
  g_test_add_func ("/kinema/CliValidate/convert-summary", test_convert_summary);
  g_test_add_func ("/kinema/CliValidate/ci-run-setup-failure", test_ci_run_setup_failure);
  g_test_add_func ("/kinema/CliValidate/ok", test_validate_ok);
  g_test_add_func ("/kinema/CliValidate/invalid", test_validate_invalid);
  g_test_add_func ("/kinema/CliValidate/warnings", test_validate_warnings);
  g_test_add_func ("/kinema/CliValidate/scene-warnings", test_validate_scene_warnings);
  g_test_add_func ("/kinema/CliValidate/scene-import-paths", test_validate_scene_import_paths);
  g_test_add_func ("/kinema/CliValidate/project-warnings", test_validate_project_warnings);
  g_test_add_func ("/kinema/CliValidate/targets-item-frame-rate",
                   test_validate_targets_item_frame_rate);
  g_test_add_func ("/kinema/CliValidate/content-detection", test_validate_content_detection);
  g_test_add_func ("/kinema/CliValidate/located-rejections", test_validate_located_rejections);
  g_test_add_func ("/kinema/CliValidate/base-is-effector", test_validate_base_is_effector);
  g_test_add_func ("/kinema/CliValidate/misread-rejections",
                   test_validate_misread_rejections);
  g_test_add_func ("/kinema/CliValidate/detection-styles", test_validate_detection_styles);
  g_test_add_func ("/kinema/CliValidate/usage", test_validate_usage);
  g_test_add_func ("/kinema/CliValidate/targets-extra-keys", test_validate_targets_extra_keys);
  g_test_add_func ("/kinema/CliValidate/targets-misspelt-key",
                   test_validate_targets_misspelt_key);
  g_test_add_func ("/kinema/CliValidate/info", test_info);
  g_test_add_func ("/kinema/CliValidate/escaped-names", test_validate_escaped_names);
  g_test_add_func ("/kinema/CliValidate/stdout-write-error", test_stdout_write_error);
  g_test_add_func ("/kinema/CliValidate/version-usage", test_version_usage);
  g_test_add_func ("/kinema/CliValidate/escaped-names-in-messages",
                   test_escaped_names_in_messages);
  g_test_add_func ("/kinema/CliValidate/axis-magnitude", test_axis_magnitude);
  g_test_add_func ("/kinema/CliValidate/root-name-names-no-joint", test_root_name_names_no_joint);
  g_test_add_func ("/kinema/CliValidate/big-frame-echoed", test_big_frame_echoed);
  g_test_add_func ("/kinema/CliValidate/negative-number-column", test_negative_number_column);
  g_test_add_func ("/kinema/CliValidate/fifo-without-writer", test_fifo_without_writer);
  g_test_add_func ("/kinema/CliValidate/fifo-writer-later", test_fifo_writer_later);
  g_test_add_func ("/kinema/CliValidate/urdf-inverted-limits", test_urdf_inverted_limits);

  tmp_dir = g_dir_make_tmp ("kinema-test-cli-validate-XXXXXX", NULL);
  g_assert_nonnull (tmp_dir);
  status = g_test_run ();
  /* Shared by all the tests, so removed here rather than when the first test ends. */
  km_test_remove_tree (tmp_dir);
  g_free (tmp_dir);
  return status;
}
