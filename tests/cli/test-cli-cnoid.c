/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/wait.h>
#include <glib.h>
#include <glib/gstdio.h>

#include "km-test-tmp.h"

/* `kinema-cli info`, `validate` and `convert` on a Choreonoid project, run as a user
 * would. */

static int
run_cli_full (const char  *command,
              const char  *file,
              const char  *output,
              char       **out,
              char       **err)
{
  const char *cli = g_getenv ("KINEMA_CLI");
  const char *argv[] = { cli, command, file, output, NULL };
  g_autoptr(GError) error = NULL;
  int wait_status;

  g_assert_nonnull (cli);
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, out, err,
                               &wait_status, &error));
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (wait_status));
  return WEXITSTATUS (wait_status);
}

static int
run_cli (const char  *command,
         const char  *file,
         char       **out,
         char       **err)
{
  return run_cli_full (command, file, NULL, out, err);
}

static void
put_file (const char *path,
          const char *contents)
{
  g_autofree char *dir = g_path_get_dirname (path);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (path, contents, -1, NULL));
}

/* Converted into another folder, a project whose model lies in a sibling folder names it
 * "../models/…", and the result, moved with that folder, still loads it. */
static void
test_convert_elsewhere (void)
{
  static const char project[] =
    "items:\n"
    "  id: 0\n"
    "  name: \"RootItem\"\n"
    "  plugin: Base\n"
    "  class: RootItem\n"
    "  is_builtin_item: true\n"
    "  children:\n"
    "    -\n"
    "      id: 1\n"
    "      name: \"Arm\"\n"
    "      plugin: Body\n"
    "      class: BodyItem\n"
    "      data:\n"
    "        file: \"../models/arm.json\"\n"
    "        format: SKELETON-JSON\n";
  g_autofree char *arm = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema",
                                                "arm.json", NULL);
  g_autofree char *arm_text = NULL;
  g_autofree char *root = km_test_make_tmp_dir ("cli-cnoid-XXXXXX");
  g_autofree char *source = g_build_filename (root, "project", "arm.cnoid", NULL);
  g_autofree char *source_dir = g_path_get_dirname (source);
  g_autofree char *model = g_build_filename (root, "models", "arm.json", NULL);
  g_autofree char *output = g_build_filename (root, "converted", "arm.cnoid", NULL);
  g_autofree char *output_dir = g_path_get_dirname (output);
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *expected = g_strdup_printf ("output=%s format=CNOID-PROJECT\n", output);
  g_autofree char *written = NULL;

  g_assert_true (g_file_get_contents (arm, &arm_text, NULL, NULL));
  put_file (source, project);
  put_file (model, arm_text);
  g_assert_cmpint (g_mkdir_with_parents (output_dir, 0755), ==, 0);

  g_assert_cmpint (run_cli_full ("convert", source, output, &out, &err), ==, 0);
  g_assert_cmpstr (out, ==, expected);
  g_assert_cmpstr (err, ==, "");
  g_assert_true (g_file_get_contents (output, &written, NULL, NULL));
  g_assert_cmpstr (written, ==, project);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* The project's own folder gone: `info` shows the body with its model. */
  g_assert_cmpint (g_unlink (source), ==, 0);
  g_assert_cmpint (g_rmdir (source_dir), ==, 0);
  g_assert_cmpint (run_cli ("info", output, &out, &err), ==, 0);
  g_assert_cmpstr (out, ==, "0 Base/RootItem \"RootItem\"\n"
                            "  1 Body/BodyItem \"Arm\"\n"
                            "items=2 unknown=0 bodies=1\n");
  g_assert_cmpstr (err, ==, "");

  g_assert_cmpint (g_unlink (output), ==, 0);
  g_assert_cmpint (g_unlink (model), ==, 0);
  g_assert_cmpint (g_rmdir (output_dir), ==, 0);
  {
    g_autofree char *models = g_path_get_dirname (model);

    g_assert_cmpint (g_rmdir (models), ==, 0);
  }
  g_assert_cmpint (g_rmdir (root), ==, 0);
}

static void
test_info (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "share",
                                                 "project", "SR1Walk.cnoid", NULL);
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *warning = g_strdup_printf ("%s:52:22: warning: unknown item type "
                                              "“Body/SimpleControllerItem”; it is kept as it is\n",
                                              path);

  g_assert_cmpint (run_cli ("info", path, &out, &err), ==, 0);
  g_assert_true (g_str_has_prefix (out, "0 Base/RootItem \"RootItem\"\n"));
  g_assert_nonnull (strstr (out, "\n      13 AGXDynamics/AGXSimulatorItem \"AGXSimulator\" "
                                 "[verbatim]\n"));
  g_assert_true (g_str_has_suffix (out, "\nitems=14 unknown=9 bodies=2\n"));
  g_assert_nonnull (strstr (err, warning));
}

static void
test_validate (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema",
                                                 "arm.cnoid", NULL);
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *expected = g_strdup_printf ("%s: ok (CNOID-PROJECT)\n", path);

  g_assert_cmpint (run_cli ("validate", path, &out, &err), ==, 0);
  g_assert_cmpstr (out, ==, expected);
  g_assert_cmpstr (err, ==, "");
}

/* A project whose body file is missing is valid with one warning, and that warning is
 * printed once, as the count says; so is a root item without "plugin". */
static void
test_validate_warned_once (void)
{
  /* (a missing model: its own location first, then where the project includes it) */
  static const struct { const char *file; const char *warning; guint n_lines; } cases[] = {
    { "missing-body.cnoid", "nope.body:1:1: warning: cannot read the file", 2 },
    { "root-no-plugin.cnoid", "root-no-plugin.cnoid:2:3: warning: missing key “plugin”", 1 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema",
                                                     cases[i].file, NULL);
      g_autofree char *out = NULL;
      g_autofree char *err = NULL;
      g_autofree char *expected = g_strdup_printf ("%s: ok (CNOID-PROJECT) with 1 warning\n",
                                                   path);
      g_auto(GStrv) lines = NULL;

      g_assert_cmpint (run_cli ("validate", path, &out, &err), ==, 0);
      g_assert_cmpstr (out, ==, expected);
      lines = g_strsplit (err, "\n", -1);
      g_test_message ("stderr: %s", err);
      /* the lines and the last newline */
      g_assert_cmpuint (g_strv_length (lines), ==, cases[i].n_lines + 1);
      g_assert_cmpstr (lines[cases[i].n_lines], ==, "");
      g_assert_nonnull (strstr (lines[0], cases[i].warning));
      if (cases[i].n_lines == 2)
        g_assert_true (g_str_has_prefix (lines[1], "included from ") &&
                       g_str_has_suffix (lines[1], "missing-body.cnoid:6:136"));
    }
}

/* kinema-cli @command @file in the folder @cwd: the exit status, stdout and stderr. */
static int
run_cli_in (const char  *cwd,
            const char  *command,
            const char  *file,
            char       **out,
            char       **err)
{
  const char *cli = g_getenv ("KINEMA_CLI");
  const char *argv[] = { cli, command, file, NULL };
  g_autoptr(GError) error = NULL;
  int wait_status;

  g_assert_nonnull (cli);
  g_assert_true (g_spawn_sync (cwd, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, out, err,
                               &wait_status, &error));
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (wait_status));
  return WEXITSTATUS (wait_status);
}

/* Errors inside included files (DESIGN.md, "Error locations"): the innermost file first,
 * named as the user knows it, then one "included from" line per including file. */
static void
test_included_error_chain (void)
{
  g_autofree char *dir = g_test_build_filename (G_TEST_DIST, "data", "include-chain", NULL);
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  const char *at, *chain;

  /* A SubBody with a bad joint axis: the model is invalid. */
  g_assert_cmpint (run_cli_in (dir, "validate", "outer-subbody.body", &out, &err), ==, 1);
  g_assert_true (g_str_has_prefix (err, "bad-axis.body:10:17: "));
  g_assert_nonnull (strstr (err, "\nincluded from outer-subbody.body:7:10\n"));
  g_assert_null (strstr (err, "./bad-axis.body"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* The same model in a project, in a sub-project: one message, innermost first. */
  run_cli_in (dir, "validate", "proj-sub.cnoid", &out, &err);
  at = strstr (err, "bad-axis.body:10:17: ");
  g_assert_nonnull (at);
  g_assert_true (at == err || at[-1] == '\n');
  chain = strstr (at, "\nincluded from proj-badbody.cnoid:17:19\n"
                      "included from proj-sub.cnoid:12:19\n");
  g_assert_nonnull (chain);
  g_assert_null (memchr (at, '\n', chain - at));
  g_assert_null (strstr (err, "/bad-axis.body"));
}

/* The same for the motion files a project names (IK targets, an IK animation, a pose
 * sequence): `validate` and `info` print the file's own location first ("./x" as "x"),
 * then where the project names it, never the absolute path the project resolved. */
static void
test_included_motion_errors (void)
{
  static const char expected[] =
    "bad-targets.json:3:25: warning: expected an array of 3 numbers for “pos”\n"
    "included from proj-motion.cnoid:20:19\n"
    "bad-animation.json:3:149: warning: expected a number for “angle”, found a string\n"
    "included from proj-motion.cnoid:27:19\n"
    "bad.pseq:4:11: warning: expected a finite number\n"
    "included from proj-motion.cnoid:33:19\n";
  g_autofree char *dir = g_test_build_filename (G_TEST_DIST, "data", "include-chain", NULL);
  const char *commands[] = { "validate", "info" };

  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      g_autofree char *out = NULL;
      g_autofree char *err = NULL;

      g_assert_cmpint (run_cli_in (dir, commands[i], "proj-motion.cnoid", &out, &err), ==, 0);
      g_assert_cmpstr (err, ==, expected);
    }
}

/* Converted out of share/project/, a project whose ${SHARE} was found from its place
 * keeps no ${SHARE} (nothing would set it there): its bodies load at the new place with
 * no share folder set, and a warning says how many references became absolute paths, as
 * the editor's Save As says it (rev19-cli finding 1). With KINEMA_CHOREONOID_SHARE set,
 * ${SHARE} holds there and stays, without a warning. */
static void
test_convert_share_moved (void)
{
  g_autofree char *source = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "share",
                                                   "project", "SR1WalkEdit.cnoid", NULL);
  g_autofree char *share = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "share", NULL);
  g_autofree char *root = km_test_make_tmp_dir ("cli-share-XXXXXX");
  g_autofree char *output = g_build_filename (root, "walk.cnoid", NULL);
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *written = NULL;
  g_autofree char *warning = g_strdup_printf ("%s: warning: 3 file references were written "
                                              "as absolute paths, not ${SHARE}/… or "
                                              "${PROGRAM_TOP}/…: the share folder was found "
                                              "from the project's old place (share/project/), "
                                              "and the new place has none.\n", output);

  g_unsetenv ("KINEMA_CHOREONOID_SHARE");
  g_assert_cmpint (run_cli_full ("convert", source, output, &out, &err), ==, 0);
  if (strstr (err, warning) == NULL)
    g_error ("no share warning in “%s”", err);
  g_assert_true (g_file_get_contents (output, &written, NULL, NULL));
  g_assert_null (strstr (written, "${SHARE}"));
  g_assert_nonnull (strstr (written, "/model/SR1/SR1.body\"\n"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run_cli ("info", output, &out, &err), ==, 0);
  g_assert_nonnull (strstr (out, "bodies=2\n"));
  g_assert_null (strstr (out, "[not shown]"));
  g_assert_null (strstr (err, "SHARE"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_clear_pointer (&written, g_free);

  g_setenv ("KINEMA_CHOREONOID_SHARE", share, TRUE);
  g_assert_cmpint (run_cli_full ("convert", source, output, &out, &err), ==, 0);
  g_assert_true (g_file_get_contents (output, &written, NULL, NULL));
  g_assert_nonnull (strstr (written, "file: \"${SHARE}/model/SR1/SR1.body\"\n"));
  g_assert_null (strstr (err, "absolute path"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run_cli ("info", output, &out, &err), ==, 0);
  g_assert_null (strstr (out, "[not shown]"));
  g_unsetenv ("KINEMA_CHOREONOID_SHARE");

  g_assert_cmpint (g_unlink (output), ==, 0);
  g_assert_cmpint (g_rmdir (root), ==, 0);
}

/* `convert` of a project with an item that has no "class" (kept verbatim, with a warning)
 * writes that item back without a class key, and a body item whose file is a folder is
 * warned of as an error inside that file: its location first, then "included from" where
 * the project names it. */
static void
test_convert_no_class (void)
{
  static const char project[] =
    "items:\n"
    "  id: 0\n"
    "  name: \"Root\"\n"
    "  plugin: Base\n"
    "  class: RootItem\n"
    "  children:\n"
    "    -\n"
    "      id: 3\n"
    "      name: \"noclass\"\n"
    "      plugin: Base\n"
    "    -\n"
    "      id: 5\n"
    "      name: \"y\"\n"
    "      plugin: Body\n"
    "      class: BodyItem\n"
    "      data: { file: \"model\" }\n";
  g_autofree char *root = km_test_make_tmp_dir ("cli-noclass-XXXXXX");
  g_autofree char *source = g_build_filename (root, "a.cnoid", NULL);
  g_autofree char *folder = g_build_filename (root, "model", NULL);
  g_autofree char *output = g_build_filename (root, "b.cnoid", NULL);
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *written = NULL;
  g_autofree char *expected_err = g_strdup_printf (
    "a.cnoid:8:7: warning: missing key “class”\n"
    "model:1:1: warning: cannot read the file: %s\n"
    "included from a.cnoid:16:21\n", g_strerror (EISDIR));

  put_file (source, project);
  g_assert_cmpint (g_mkdir (folder, 0755), ==, 0);
  g_assert_cmpint (run_cli_in (root, "validate", "a.cnoid", &out, &err), ==, 0);
  g_assert_cmpstr (err, ==, expected_err);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (run_cli_full ("convert", source, output, &out, &err), ==, 0);
  g_assert_true (g_file_get_contents (output, &written, NULL, NULL));
  g_assert_cmpstr (written, ==, project);

  g_assert_cmpint (g_unlink (output), ==, 0);
  g_assert_cmpint (g_unlink (source), ==, 0);
  g_assert_cmpint (g_rmdir (folder), ==, 0);
  g_assert_cmpint (g_rmdir (root), ==, 0);
}

/* A project a Windows user saved, converted out of share/project/ into another folder
 * (rev25-cnoid): its drive-letter and UNC paths are written back as they are, also in an
 * item kept verbatim, and its message shows the path as written; a ${PROGRAM_TOP}/… turned
 * absolute is counted and named in the warning with the ${SHARE}/… one. A missing
 * sub-project is reported as a missing model is: the project's FILE:LINE:COLUMN first. */
static void
test_convert_windows_paths (void)
{
  static const char project[] =
    "items:\n"
    "  id: 0\n"
    "  plugin: Base\n"
    "  class: RootItem\n"
    "  children:\n"
    "    -\n"
    "      id: 1\n"
    "      name: \"WinBody\"\n"
    "      plugin: Body\n"
    "      class: BodyItem\n"
    "      data:\n"
    "        file: \"C:\\\\Users\\\\taro\\\\robot.body\"\n"
    "        format: CHOREONOID-BODY\n"
    "    -\n"
    "      id: 2\n"
    "      name: \"Mesh\"\n"
    "      plugin: Base\n"
    "      class: MeshItem\n"
    "      data:\n"
    "        file: \"D:/data/scan.stl\"\n"
    "    -\n"
    "      id: 3\n"
    "      name: \"Share\"\n"
    "      plugin: Base\n"
    "      class: MeshItem\n"
    "      data:\n"
    "        file: \"\\\\\\\\server\\\\share\\\\scan.stl\"\n"
    "    -\n"
    "      id: 4\n"
    "      name: \"Python\"\n"
    "      plugin: Python\n"
    "      class: PythonScriptItem\n"
    "      data:\n"
    "        file: \"${PROGRAM_TOP}/share/script/x.py\"\n"
    "    -\n"
    "      id: 5\n"
    "      name: \"Model\"\n"
    "      plugin: Base\n"
    "      class: MeshItem\n"
    "      data:\n"
    "        file: \"${SHARE}/model/scan.stl\"\n"
    "    -\n"
    "      id: 6\n"
    "      name: \"Gone\"\n"
    "      plugin: Base\n"
    "      class: SubProjectItem\n"
    "      data:\n"
    "        file: \"nothere.cnoid\"\n";
  g_autofree char *tmp = km_test_make_tmp_dir ("cli-win-XXXXXX");
  g_autofree char *root = g_canonicalize_filename (tmp, NULL);
  g_autofree char *other_tmp = km_test_make_tmp_dir ("cli-win-out-XXXXXX");
  g_autofree char *other = g_canonicalize_filename (other_tmp, NULL);
  g_autofree char *dir = g_build_filename (root, "share", "project", NULL);
  g_autofree char *source = g_build_filename (dir, "user.cnoid", NULL);
  g_autofree char *output = g_build_filename (other, "user.cnoid", NULL);
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *written = NULL;
  g_autofree char *expected_err = g_strdup_printf (
    "user.cnoid:12:15: warning: “C:\\Users\\taro\\robot.body” is a Windows path, which "
    "cannot be opened on this system\n"
    "user.cnoid:18:14: warning: unknown item type “Base/MeshItem”; it is kept as it is\n"
    "user.cnoid:25:14: warning: unknown item type “Base/MeshItem”; it is kept as it is\n"
    "user.cnoid:32:14: warning: unknown item type “Python/PythonScriptItem”; it is kept as "
    "it is\n"
    "user.cnoid:39:14: warning: unknown item type “Base/MeshItem”; it is kept as it is\n"
    "nothere.cnoid:1:1: warning: cannot read the file: %s\n"
    "included from user.cnoid:48:15\n",
    g_strerror (ENOENT));
  g_autofree char *top_line = g_strdup_printf ("        file: \"%s/share/script/x.py\"\n", root);
  g_autofree char *warning = g_strdup_printf ("%s: warning: 2 file references were written "
                                              "as absolute paths, not ${SHARE}/… or "
                                              "${PROGRAM_TOP}/…", output);

  g_unsetenv ("KINEMA_CHOREONOID_SHARE");
  put_file (source, project);
  g_assert_cmpint (run_cli_in (dir, "validate", "user.cnoid", &out, &err), ==, 0);
  g_assert_cmpstr (err, ==, expected_err);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (run_cli_full ("convert", source, output, &out, &err), ==, 0);
  if (strstr (err, warning) == NULL)
    g_error ("no share warning in “%s”", err);
  g_assert_true (g_file_get_contents (output, &written, NULL, NULL));
  g_assert_nonnull (strstr (written, "        file: \"C:\\\\Users\\\\taro\\\\robot.body\"\n"));
  g_assert_nonnull (strstr (written, "        file: \"D:/data/scan.stl\"\n"));
  g_assert_nonnull (strstr (written,
                            "        file: \"\\\\\\\\server\\\\share\\\\scan.stl\"\n"));
  g_assert_nonnull (strstr (written, top_line));
  g_assert_null (strstr (written, "${"));
  /* No name was written for the root item, which had none. */
  g_assert_true (g_str_has_prefix (written, "items:\n  id: 0\n  plugin: Base\n"));

  km_test_remove_tree (root);
  km_test_remove_tree (other);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/kinema/cli/cnoid/info", test_info);
  g_test_add_func ("/kinema/cli/cnoid/validate", test_validate);
  g_test_add_func ("/kinema/cli/cnoid/validate-warned-once", test_validate_warned_once);
  g_test_add_func ("/kinema/cli/cnoid/convert-elsewhere", test_convert_elsewhere);
  g_test_add_func ("/kinema/cli/cnoid/included-error-chain", test_included_error_chain);
  g_test_add_func ("/kinema/cli/cnoid/included-motion-errors", test_included_motion_errors);
  g_test_add_func ("/kinema/cli/cnoid/convert-share-moved", test_convert_share_moved);
  g_test_add_func ("/kinema/cli/cnoid/convert-no-class", test_convert_no_class);
  g_test_add_func ("/kinema/cli/cnoid/convert-windows-paths", test_convert_windows_paths);
  return g_test_run ();
}
