/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <string.h>
#include <glib.h>
#include <glib/gstdio.h>

#include "cli-run.h"
#include "km-test-tmp.h"

/* `kinema-cli info` on models that name body handlers: one line per handler, before the
 * summary line. The sample handlers are in src/handlers of the build tree, next to
 * src/cli where $KINEMA_CLI is. */

static char *
data_path (const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "data", name, NULL);
}

static char *
handler_dir (void)
{
  g_autofree char *cli_dir = g_path_get_dirname (g_getenv ("KINEMA_CLI"));
  g_autofree char *src_dir = g_path_get_dirname (cli_dir);

  return g_build_filename (src_dir, "handlers", NULL);
}

/* The last two lines of @out. */
static char *
tail2 (const char *out)
{
  g_auto(GStrv) lines = g_strsplit (out, "\n", -1);
  guint n = g_strv_length (lines);

  g_assert_cmpuint (n, >=, 3);
  g_assert_cmpstr (lines[n - 1], ==, "");
  return g_strjoin ("\n", lines[n - 3], lines[n - 2], NULL);
}

static double
summary_value (const char *out,
               const char *key)
{
  g_autofree char *line = g_strconcat (" ", out, NULL);
  g_autofree char *needle = g_strconcat (" ", key, "=", NULL);
  const char *at = strstr (line, needle);

  g_assert_nonnull (at);
  return g_ascii_strtod (at + strlen (needle), NULL);
}

/* `solve` takes the closed-form path of a model's handler: exact to rounding error, where
 * the numeric solver stops at its 1e-6 tolerance. */
static void
test_solve_analytic (void)
{
  g_autofree char *dir = handler_dir ();
  g_autofree char *model = data_path ("ur5-analytic.json");
  g_autofree char *numeric_model = data_path ("bench-ur5.json");
  g_autofree char *targets = data_path ("ur5-warm-30.json");
  g_autofree char *tmp = km_test_make_tmp_dir ("kinema-handlers-XXXXXX");
  g_autofree char *out = g_build_filename (tmp, "a.json", NULL);
  g_autofree char *out2 = g_build_filename (tmp, "b.json", NULL);
  g_auto(Run) run = { 0 };
  g_auto(Run) numeric = { 0 };

  run_cli (&run, NULL, "solve", "--handler-dir", dir, model, targets, "-o", out, NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (strstr (run.err, "handler UR5AnalyticIkHandler: attached (joint-path)"));
  g_assert_cmpfloat (summary_value (run.out, "frames"), ==, 30);
  g_assert_cmpfloat (summary_value (run.out, "max_pos_err"), <, 1e-10);
  g_assert_cmpfloat (summary_value (run.out, "max_rot_err"), <, 1e-10);

  run_cli (&numeric, NULL, "solve", numeric_model, targets, "-o", out2, NULL);
  g_assert_cmpint (numeric.status, ==, 0);
  g_assert_null (strstr (numeric.err, "attached"));
  g_assert_cmpfloat (summary_value (numeric.out, "max_pos_err"), <, 1e-5);

  g_remove (out);
  g_remove (out2);
  g_rmdir (tmp);
}

static void
test_info_attached (void)
{
  g_autofree char *dir = handler_dir ();
  struct { const char *model; const char *name; const char *ifaces; const char *summary; }
  cases[] = {
    { "ur5-analytic.json", "UR5AnalyticIkHandler", "joint-path", "joints=8 dof=6" },
    { "choreonoid/ClosedLinkSample.body", "ClosedLinkSampleHandler", "linked-joints",
      "joints=4 dof=3" },
    { "linear-actuator-arm.json", "LinearActuatorSampleHandler", "presentation",
      "joints=3 dof=1" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto(Run) run = { 0 };
      g_autofree char *model = data_path (cases[i].model);
      g_autofree char *tail = NULL;
      g_autofree char *expected = g_strdup_printf ("handler %s: attached (%s) from %s/%s.so\n%s",
                                                   cases[i].name, cases[i].ifaces, dir,
                                                   cases[i].name, cases[i].summary);

      run_cli (&run, NULL, "info", "--handler-dir", dir, model, NULL);
      g_assert_cmpint (run.status, ==, 0);
      tail = tail2 (run.out);
      g_assert_cmpstr (tail, ==, expected);
    }
}

static void
test_info_not_found (void)
{
  g_auto(Run) run = { 0 };
  g_autofree char *model = data_path ("choreonoid/features.body");
  g_autofree char *ur5 = data_path ("ur5-analytic.json");

  run_cli (&run, NULL, "info", model, NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (strstr (run.out, "\nhandler FirstHandler: not found: Body handler "
                                     "FirstHandler not found: no FirstHandler.so in the "
                                     "trusted handler directories ("));
  g_assert_nonnull (strstr (run.out, "); the model loads without it (numeric IK, unlinked "
                                     "joints, plain joint values).\nhandler SecondHandler: "
                                     "not found: "));
  g_assert_true (g_str_has_suffix (run.out, "plain joint values).\n"
                                            "joints=5 dof=3 free_root=1\n"));

  /* Without the handler directory the UR5's handler is not found either. */
  {
    g_auto(Run) again = { 0 };
    g_autofree char *tail = NULL;

    run_cli (&again, NULL, "info", ur5, NULL);
    g_assert_cmpint (again.status, ==, 0);
    tail = tail2 (again.out);
    g_assert_true (g_str_has_prefix (tail, "handler UR5AnalyticIkHandler: not found: "));
    g_assert_true (g_str_has_suffix (tail, "\njoints=8 dof=6"));
  }
}

/* A model opened by a relative path whose body_handlers names a handler by a path: the
 * model's folder is relative ("data", "."), the handler is refused with the reason, and
 * nothing crashes (it was a SIGSEGV in info and solve). */
static void
test_relative_model_path (void)
{
  g_autofree char *tests_dir = g_strdup (g_test_get_dir (G_TEST_DIST));
  g_autofree char *data_dir = g_test_build_filename (G_TEST_DIST, "data", NULL);
  const char *refused = "handler handlers/MyHandler: refused: Body handler "
                        "“handlers/MyHandler” refused: a model may name a handler only by "
                        "its name";
  struct { const char *cwd; const char *file; const char *summary; } cases[] = {
    { tests_dir, "data/handler-path-crash.json", "\njoints=2 dof=1\n" },
    { data_dir, "handler-path-crash.json", "\njoints=2 dof=1\n" },
    { tests_dir, "data/handler-path-crash.body", "\njoints=1 dof=0\n" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto(Run) run = { 0 };

      run_cli (&run, cases[i].cwd, "info", cases[i].file, NULL);
      g_assert_cmpint (run.status, ==, 0);
      g_assert_nonnull (strstr (run.out, refused));
      g_assert_true (g_str_has_suffix (run.out, cases[i].summary));
    }

  {
    g_auto(Run) run = { 0 };
    g_autofree char *out_dir = km_test_make_tmp_dir ("kinema-cli-XXXXXX");
    g_autofree char *out = g_build_filename (out_dir, "animation.json", NULL);

    /* The default targets, for this model's joint "b" (it has no "EndEffector"). */
    run_cli (&run, tests_dir, "solve", "data/handler-path-crash.json", "--effector", "b",
             "-o", out, NULL);
    g_assert_cmpint (run.status, ==, 0);
    g_assert_nonnull (strstr (run.err, refused));
    g_assert_true (g_file_test (out, G_FILE_TEST_IS_REGULAR));
    g_unlink (out);
    g_rmdir (out_dir);
  }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_unsetenv ("KINEMA_BODYHANDLER_PATH");
  g_test_add_func ("/kinema/cli/info-handlers/attached", test_info_attached);
  g_test_add_func ("/kinema/cli/info-handlers/solve-analytic", test_solve_analytic);
  g_test_add_func ("/kinema/cli/info-handlers/not-found", test_info_not_found);
  g_test_add_func ("/kinema/cli/info-handlers/relative-model-path", test_relative_model_path);
  return g_test_run ();
}
