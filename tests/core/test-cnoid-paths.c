/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <errno.h>
#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "km-cnoid.h"
#include "km-item.h"
#include "km-project.h"

#include "test-util.h"
#include "km-test-tmp.h"

/*
 * File references of a .cnoid project that Kinema cannot resolve here, and how a project
 * saved elsewhere writes them (rev25-cnoid): Windows paths, ${PROGRAM_TOP} with a share
 * folder found from the project's place, missing sub-projects, a root item without a name.
 */

/* The saved text of @project at @path, through km_cnoid_build_tree_full(): the references
 * it counted as written absolute instead of ${SHARE}/… in @n_dropped. */
static char *
tree_text (KmProject  *project,
           const char *path,
           guint      *n_dropped)
{
  g_autoptr(GHashTable) ids = NULL;
  g_autoptr(KmYamlNode) tree = NULL;

  *n_dropped = 0;
  tree = km_cnoid_build_tree_full (project, path, &ids, n_dropped);
  g_assert_nonnull (tree);
  return km_cnoid_tree_to_string (tree, NULL);
}

static const char windows_text[] =
  "items:\n"
  "  id: 0\n"
  "  name: \"RootItem\"\n"
  "  plugin: Base\n"
  "  class: RootItem\n"
  "  children:\n"
  "    -\n"
  "      id: 1\n"
  "      name: \"WinBody\"\n"
  "      plugin: Body\n"
  "      class: BodyItem\n"
  "      data:\n"
  "        file: \"C:\\\\Users\\\\taro\\\\models\\\\robot.body\"\n"
  "        format: CHOREONOID-BODY\n"
  "    -\n"
  "      id: 2\n"
  "      name: \"Mesh\"\n"
  "      plugin: Base\n"
  "      class: MeshItem\n"
  "      data:\n"
  "        file: \"D:/data/scan.stl\"\n"
  "        format: STL\n"
  "    -\n"
  "      id: 3\n"
  "      name: \"Script\"\n"
  "      plugin: Python\n"
  "      class: PythonScriptItem\n"
  "      data:\n"
  "        file: \"\\\\\\\\server\\\\share\\\\x.py\"\n"
  "    -\n"
  "      id: 4\n"
  "      name: \"Sub\"\n"
  "      plugin: Base\n"
  "      class: SubProjectItem\n"
  "      data:\n"
  "        file: \"e:\\\\projects\\\\sub.cnoid\"\n"
  "        format: PROJECT\n"
  "    -\n"
  "      id: 5\n"
  "      name: \"Drive-relative\"\n"
  "      plugin: Base\n"
  "      class: MeshItem\n"
  "      data:\n"
  "        file: \"C:scan2.stl\"\n"
  "    -\n"
  "      id: 6\n"
  "      name: \"Root-relative\"\n"
  "      plugin: Base\n"
  "      class: MeshItem\n"
  "      data:\n"
  "        file: \"\\\\data\\\\scan3.stl\"\n";

/* A drive-letter or UNC path, from a project a Windows user saved, is absolute (so are
 * the drive-relative C:scan2.stl and the root-relative \data\scan3.stl, which name no
 * file relative to the project's folder either): not joined
 * to the project's folder when the project is read (its message shows it as written) nor
 * when it is saved into another folder, where it is written back as it is, in an item
 * Kinema reads as in one it keeps verbatim (rev25-cnoid defect 2). */
static void
test_windows_paths_kept (void)
{
  g_autofree char *tmp = km_test_make_tmp_dir ("cnoid-win-XXXXXX");
  g_autofree char *root = g_canonicalize_filename (tmp, NULL);
  g_autofree char *source = g_build_filename (root, "a", "p.cnoid", NULL);
  g_autofree char *saved = g_build_filename (root, "b", "deeper", "p.cnoid", NULL);
  g_autofree char *saved_dir = g_path_get_dirname (saved);
  const char *body_problem = "“C:\\Users\\taro\\models\\robot.body” is a Windows path, "
                             "which cannot be opened on this system";
  g_autofree char *body_message = g_strdup_printf ("%s:13:15: %s", source, body_problem);
  g_autofree char *sub_message = g_strdup_printf (
    "%s:36:15: “e:\\projects\\sub.cnoid” is a Windows path, which cannot be opened on this "
    "system", source);
  g_autofree char *in_place = NULL;
  g_autofree char *text = NULL;
  g_autoptr(KmProject) project = NULL;
  g_autoptr(GError) error = NULL;
  guint n_dropped = 0;

  test_util_put_file (source, windows_text);
  project = test_util_load_cnoid (source);
  g_assert_true (test_util_has_message (project, body_message));
  g_assert_true (test_util_has_message (project, sub_message));
  g_assert_cmpstr (km_item_get_problem (test_util_find_item (km_project_get_root_item (project),
                                                              "WinBody")), ==, body_problem);

  in_place = test_util_cnoid_to_string (project, source);
  g_assert_cmpstr (in_place, ==, windows_text);
  text = tree_text (project, saved, &n_dropped);
  g_assert_cmpstr (text, ==, windows_text);
  g_assert_cmpuint (n_dropped, ==, 0);
  g_clear_pointer (&text, g_free);

  g_assert_cmpint (g_mkdir_with_parents (saved_dir, 0755), ==, 0);
  g_assert_true (km_cnoid_save (project, saved, &error));
  g_assert_no_error (error);
  text = test_util_read_file (saved, NULL);
  g_assert_cmpstr (text, ==, windows_text);
  km_test_remove_tree (root);
}

/* ${PROGRAM_TOP}, as ${SHARE}, is the folder above a share folder found from the project's
 * place (ROOT/share above ROOT/share/project): saved where neither is found, a reference
 * read through it is written absolute, and the save's warning counts and names it with
 * the ${SHARE} ones (rev25-cnoid defect 3). Given (KINEMA_CHOREONOID_SHARE), both are
 * kept, without a warning. */
static void
test_program_top_counted (void)
{
  g_autofree char *tmp = km_test_make_tmp_dir ("cnoid-top-XXXXXX");
  g_autofree char *root = g_canonicalize_filename (tmp, NULL);
  /* Saved into the home folder: no relative path climbs out of it to ROOT, whatever
   * folder ROOT (in $TMPDIR) has in common with it. */
  g_autofree char *other = g_build_filename (g_get_home_dir (), "cnoid-other", NULL);
  g_autofree char *share = g_build_filename (root, "share", NULL);
  g_autofree char *source = g_build_filename (share, "project", "p.cnoid", NULL);
  g_autofree char *saved = g_build_filename (other, "p.cnoid", NULL);
  g_autofree char *script = g_strdup_printf ("        file: \"%s/share/script/x.py\"\n", root);
  g_autofree char *mesh = g_strdup_printf ("        file: \"%s/share/model/scan.stl\"\n", root);
  g_autofree char *text = NULL;
  g_autofree char *message = NULL;
  g_autoptr(KmProject) project = NULL;
  const char *text_in =
    "items:\n"
    "  id: 0\n"
    "  name: \"RootItem\"\n"
    "  plugin: Base\n"
    "  class: RootItem\n"
    "  children:\n"
    "    -\n"
    "      id: 1\n"
    "      name: \"Python\"\n"
    "      plugin: Python\n"
    "      class: PythonScriptItem\n"
    "      data:\n"
    "        file: \"${PROGRAM_TOP}/share/script/x.py\"\n"
    "    -\n"
    "      id: 2\n"
    "      name: \"Mesh\"\n"
    "      plugin: Base\n"
    "      class: MeshItem\n"
    "      data:\n"
    "        file: \"${SHARE}/model/scan.stl\"\n";
  guint n_dropped = 0;

  g_assert_cmpint (g_mkdir_with_parents (other, 0755), ==, 0);
  g_unsetenv ("KINEMA_CHOREONOID_SHARE");
  test_util_put_file (source, text_in);
  project = test_util_load_cnoid (source);
  text = tree_text (project, saved, &n_dropped);
  g_assert_nonnull (strstr (text, script));
  g_assert_nonnull (strstr (text, mesh));
  g_assert_cmpuint (n_dropped, ==, 2);
  message = km_cnoid_share_dropped_message (n_dropped);
  g_assert_nonnull (strstr (message, "${SHARE}/…"));
  g_assert_nonnull (strstr (message, "${PROGRAM_TOP}/…"));
  g_clear_pointer (&text, g_free);
  g_clear_object (&project);

  g_setenv ("KINEMA_CHOREONOID_SHARE", share, TRUE);
  project = test_util_load_cnoid (source);
  text = tree_text (project, saved, &n_dropped);
  g_assert_cmpstr (text, ==, text_in);
  g_assert_cmpuint (n_dropped, ==, 0);
  g_unsetenv ("KINEMA_CHOREONOID_SHARE");
  km_test_remove_tree (root);
  km_test_remove_tree (other);
}

/* A sub-project that is missing is a problem of its reference, reported as a missing
 * model is: the including project's FILE:LINE:COLUMN first, then the file at 1:1; one
 * that is there but cannot be read (a folder) is located in it first, then "included
 * from" (rev25-cnoid defect 4; DESIGN.md, "Error locations"). */
static void
test_missing_sub_project_located (void)
{
  g_autofree char *dir = km_test_make_tmp_dir ("cnoid-subloc-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "p.cnoid", NULL);
  g_autofree char *folder = g_build_filename (dir, "dir.cnoid", NULL);
  g_autofree char *missing_first = g_strdup_printf (
    "%s/nothere.cnoid:1:1: cannot read the file: %s", dir, g_strerror (ENOENT));
  g_autofree char *missing_message = g_strdup_printf ("%s\nincluded from %s:13:15",
                                                      missing_first, path);
  g_autofree char *folder_first = g_strdup_printf (
    "%s:1:1: cannot read the file: %s", folder, g_strerror (EISDIR));
  g_autofree char *folder_message = g_strdup_printf ("%s\nincluded from %s:20:15",
                                                     folder_first, path);
  g_autoptr(KmProject) project = NULL;
  KmItem *root;

  g_assert_cmpint (g_mkdir (folder, 0755), ==, 0);
  test_util_put_file (path,
                       "items:\n"
                       "  id: 0\n"
                       "  name: \"RootItem\"\n"
                       "  plugin: Base\n"
                       "  class: RootItem\n"
                       "  children:\n"
                       "    -\n"
                       "      id: 1\n"
                       "      name: \"gone\"\n"
                       "      plugin: Base\n"
                       "      class: SubProjectItem\n"
                       "      data:\n"
                       "        file: \"nothere.cnoid\"\n"
                       "    -\n"
                       "      id: 2\n"
                       "      name: \"folder\"\n"
                       "      plugin: Base\n"
                       "      class: SubProjectItem\n"
                       "      data:\n"
                       "        file: \"dir.cnoid\"\n");
  project = test_util_load_cnoid (path);
  root = km_project_get_root_item (project);
  g_assert_true (test_util_has_message (project, missing_message));
  g_assert_true (test_util_has_message (project, folder_message));
  g_assert_cmpuint (km_project_get_messages (project)->len, ==, 2);
  g_assert_cmpstr (km_item_get_problem (test_util_find_item (root, "gone")), ==, missing_first);
  g_assert_cmpstr (km_item_get_problem (test_util_find_item (root, "folder")), ==, folder_first);
  km_test_remove_tree (dir);
}

/* An item read without a name, as a root item often is, is written without one, not with
 * `name: ""`, saved in place or elsewhere (rev25-cnoid defect 5). */
static void
test_no_name_kept (void)
{
  g_autofree char *tmp = km_test_make_tmp_dir ("cnoid-noname-XXXXXX");
  g_autofree char *root = g_canonicalize_filename (tmp, NULL);
  g_autofree char *source = g_build_filename (root, "a", "p.cnoid", NULL);
  g_autofree char *saved = g_build_filename (root, "b", "p.cnoid", NULL);
  g_autofree char *text = NULL;
  g_autoptr(KmProject) project = NULL;
  const char *text_in =
    "items:\n"
    "  id: 0\n"
    "  plugin: Base\n"
    "  class: RootItem\n"
    "  children:\n"
    "    -\n"
    "      id: 1\n"
    "      plugin: Base\n"
    "      class: FolderItem\n"
    "    -\n"
    "      id: 2\n"
    "      name: \"\"\n"
    "      plugin: Base\n"
    "      class: FolderItem\n";
  guint n_dropped = 0;

  test_util_put_file (source, text_in);
  project = test_util_load_cnoid (source);
  text = test_util_cnoid_to_string (project, source);
  g_assert_cmpstr (text, ==, text_in);
  g_clear_pointer (&text, g_free);
  text = tree_text (project, saved, &n_dropped);
  g_assert_cmpstr (text, ==, text_in);
  km_test_remove_tree (root);
}

/* A project with one file reference, a script at @file (absolute). */
static char *
script_project (const char *file)
{
  return g_strdup_printf ("items:\n"
                          "  id: 0\n"
                          "  name: \"RootItem\"\n"
                          "  plugin: Base\n"
                          "  class: RootItem\n"
                          "  children:\n"
                          "    -\n"
                          "      id: 1\n"
                          "      name: \"Python\"\n"
                          "      plugin: Python\n"
                          "      class: PythonScriptItem\n"
                          "      data:\n"
                          "        file: \"%s\"\n", file);
}

/* The reference @project's script is written with when saved to @path, and the save's
 * warnings (km_cnoid_build_tree_warned). */
static char *
script_written (KmProject  *project,
                const char *path,
                GPtrArray **warnings)
{
  g_autoptr(GHashTable) ids = NULL;
  g_autoptr(KmYamlNode) tree = NULL;
  g_autofree char *text = NULL;
  const char *start, *end;

  tree = km_cnoid_build_tree_warned (project, path, &ids, warnings);
  g_assert_nonnull (tree);
  g_assert_nonnull (*warnings);
  text = km_cnoid_tree_to_string (tree, NULL);
  start = strstr (text, "        file: \"");
  g_assert_nonnull (start);
  start += strlen ("        file: \"");
  end = strchr (start, '"');
  g_assert_nonnull (end);
  return g_strndup (start, end - start);
}

/* "../" climbs only where it does not climb out of the home folder (rev-r3: a reviewer
 * whose home folder was inside /tmp/review-r3 got absolute paths). Two files both inside
 * $HOME are relative even through $HOME itself; two both outside it are relative even
 * when their common folder holds $HOME; a project inside $HOME and a file outside it get
 * an absolute path, and the save says why; the other way round, ${HOME}/…. The test's
 * home folder is G_TEST_OPTION_ISOLATE_DIRS's, TMP/test_…/home: its parent holds it. */
static void
test_climb_out_of_home (void)
{
  g_autofree char *home = g_canonicalize_filename (g_get_home_dir (), NULL);
  g_autofree char *above = g_path_get_dirname (home);
  g_autofree char *tmp = km_test_make_tmp_dir ("cnoid-home-XXXXXX");
  g_autofree char *root = g_canonicalize_filename (tmp, NULL);
  g_autofree char *source = g_build_filename (root, "src", "p.cnoid", NULL);
  g_autofree char *home_script = g_build_filename (home, "scripts", "x.py", NULL);
  g_autofree char *outside_script = g_build_filename (above, "scripts", "x.py", NULL);
  g_autofree char *in_home = g_build_filename (home, "projects", "p.cnoid", NULL);
  g_autofree char *outside = g_build_filename (above, "projects", "deep", "p.cnoid", NULL);
  g_autofree char *text_in = NULL;
  g_autofree char *written = NULL;
  g_autoptr(KmProject) project = NULL;
  g_autoptr(GPtrArray) warnings = NULL;

  /* The setting the test needs: a home folder two or more levels below the root. */
  g_assert_true (g_str_has_prefix (home, above));
  g_assert_cmpstr (above, !=, "/");
  g_assert_null (strstr (root, home));
  test_util_put_file (home_script, "# in the home folder\n");
  test_util_put_file (outside_script, "# next to the home folder\n");
  /* The folders the project is saved to: "../" is checked on the file system. */
  test_util_put_file (in_home, "");
  test_util_put_file (outside, "");

  /* Both inside $HOME, their common folder $HOME itself: relative. */
  text_in = script_project (home_script);
  test_util_put_file (source, text_in);
  project = test_util_load_cnoid (source);
  written = script_written (project, in_home, &warnings);
  g_assert_cmpstr (written, ==, "../scripts/x.py");
  g_assert_cmpuint (warnings->len, ==, 0);
  g_clear_pointer (&written, g_free);
  g_clear_pointer (&warnings, g_ptr_array_unref);

  /* The project outside $HOME, the file inside it: ${HOME}/…, no warning. */
  written = script_written (project, outside, &warnings);
  g_assert_cmpstr (written, ==, "${HOME}/scripts/x.py");
  g_assert_cmpuint (warnings->len, ==, 0);
  g_clear_pointer (&written, g_free);
  g_clear_pointer (&warnings, g_ptr_array_unref);
  g_clear_object (&project);

  /* Both outside $HOME, their common folder holding it: relative. */
  g_clear_pointer (&text_in, g_free);
  text_in = script_project (outside_script);
  test_util_put_file (source, text_in);
  project = test_util_load_cnoid (source);
  written = script_written (project, outside, &warnings);
  g_assert_cmpstr (written, ==, "../../scripts/x.py");
  g_assert_cmpuint (warnings->len, ==, 0);
  g_clear_pointer (&written, g_free);
  g_clear_pointer (&warnings, g_ptr_array_unref);

  /* The project inside $HOME, the file outside it: absolute, and said, naming the file. */
  written = script_written (project, in_home, &warnings);
  g_assert_cmpstr (written, ==, outside_script);
  g_assert_cmpuint (warnings->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (warnings, 0), outside_script));
  g_assert_nonnull (strstr (g_ptr_array_index (warnings, 0), "absolute"));
  g_assert_nonnull (strstr (g_ptr_array_index (warnings, 0), home));
  g_clear_pointer (&written, g_free);
  g_clear_pointer (&warnings, g_ptr_array_unref);

  km_test_remove_tree (root);
  {
    g_autofree char *scripts = g_path_get_dirname (outside_script);
    g_autofree char *home_scripts = g_path_get_dirname (home_script);

    g_autofree char *projects = g_path_get_dirname (in_home);
    g_autofree char *outside_projects = g_build_filename (above, "projects", NULL);

    km_test_remove_tree (scripts);
    km_test_remove_tree (home_scripts);
    km_test_remove_tree (projects);
    km_test_remove_tree (outside_projects);
  }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_unsetenv ("KINEMA_CHOREONOID_SHARE");

  g_test_add_func ("/kinema/CnoidPaths/windows-paths-kept", test_windows_paths_kept);
  g_test_add_func ("/kinema/CnoidPaths/program-top-counted", test_program_top_counted);
  g_test_add_func ("/kinema/CnoidPaths/missing-sub-project-located",
                   test_missing_sub_project_located);
  g_test_add_func ("/kinema/CnoidPaths/no-name-kept", test_no_name_kept);
  g_test_add_func ("/kinema/CnoidPaths/climb-out-of-home", test_climb_out_of_home);
  return g_test_run ();
}
