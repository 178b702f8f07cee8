/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <string.h>
#include <sys/wait.h>
#include <glib.h>

/* `kinema-cli info` and `validate` on a Choreonoid project, run as a user would. */

static int
run_cli (const char  *command,
         const char  *file,
         char       **out,
         char       **err)
{
  const char *cli = g_getenv ("KINEMA_CLI");
  const char *argv[] = { cli, command, file, NULL };
  g_autoptr(GError) error = NULL;
  int wait_status;

  g_assert_nonnull (cli);
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, out, err,
                               &wait_status, &error));
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (wait_status));
  return WEXITSTATUS (wait_status);
}

static void
test_info (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "share",
                                                 "project", "SR1Walk.cnoid", NULL);
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *warning = g_strdup_printf ("%s:52:22: unknown item type "
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

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/kinema/cli/cnoid/info", test_info);
  g_test_add_func ("/kinema/cli/cnoid/validate", test_validate);
  return g_test_run ();
}
