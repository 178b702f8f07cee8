/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <string.h>
#include <glib.h>
#include <glib/gstdio.h>

#include "cli-run.h"

/* `kinema-cli bench-ik` reads its chain as every command reads a model: any format the
 * loaders know, recognised by its content (it used to parse skeleton.json only). */

static char *
data_path (const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "data", "review", name, NULL);
}

static void
test_urdf_chain (void)
{
  g_autofree char *chain = data_path ("ur10.urdf");
  g_autofree char *targets = data_path ("ur10-targets.json");
  const char *expected = "solver=kinema chain=ur10 dof=6 n=4 mode=cold success=1.0000 "
                         "success_jl=1.0000 median_us=";
  g_autofree char *tail = g_strdup_printf (" targets=%s\n", targets);
  g_auto(Run) run = { 0 };

  run_cli (&run, NULL, "bench-ik", "--mode", "cold", chain, targets, NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_true (g_str_has_prefix (run.out, expected));
  g_assert_true (g_str_has_suffix (run.out, tail));
  /* The model's warnings (meshes it cannot find) say they are warnings. */
  g_assert_nonnull (strstr (run.err, "ur10.urdf:33:25: warning: cannot find mesh"));
}

/* The wrong kind of file in either place: the file and what was expected. */
static void
test_wrong_kind (void)
{
  g_autofree char *chain = data_path ("ur10.urdf");
  g_autofree char *targets = data_path ("ur10-targets.json");

  {
    g_auto(Run) run = { 0 };
    g_autofree char *expected = g_strdup_printf ("%s: expected a skeleton or model file, "
                                                 "found Kinema IK targets (targets.json)\n",
                                                 targets);

    run_cli (&run, NULL, "bench-ik", "--mode", "cold", targets, targets, NULL);
    g_assert_cmpint (run.status, ==, 1);
    g_assert_cmpstr (run.out, ==, "");
    g_assert_cmpstr (run.err, ==, expected);
  }
  {
    g_auto(Run) run = { 0 };
    g_autofree char *expected = g_strdup_printf ("%s: expected an IK targets file, found URDF "
                                                 "robot description\n", chain);

    run_cli (&run, NULL, "bench-ik", "--mode", "cold", chain, chain, NULL);
    g_assert_cmpint (run.status, ==, 1);
    g_assert_cmpstr (run.out, ==, "");
    g_assert_true (g_str_has_suffix (run.err, expected));
  }
}

/* An effector the chain does not have: the same located message as `solve` gives, at the
 * targets file's "effector" value; a -o that cannot be written: said of the output, as
 * every command says it. */
static void
test_effector_and_write_errors (void)
{
  g_autofree char *chain = data_path ("ur10.urdf");
  g_autofree char *targets = data_path ("ur10-targets.json");
  g_autofree char *dir = g_dir_make_tmp ("kinema-bench-XXXXXX", NULL);
  g_autofree char *noeff = g_build_filename (dir, "noeff.json", NULL);
  g_autofree char *nowhere = g_build_filename (dir, "missing", "out.json", NULL);

  g_assert_true (g_file_set_contents (noeff, "[{\"frame\": 0, \"pos\": [0.5, 0, 0.5], "
                                             "\"euler\": [0, 0, 0],\n"
                                             " \"effector\": \"Nope\"}]\n", -1, NULL));
  {
    g_auto(Run) bench = { 0 };
    g_auto(Run) solve = { 0 };
    g_autofree char *expected = g_strdup_printf ("%s:2:14: %s has no joint or link “Nope” to "
                                                 "use as the end effector\n", noeff, chain);

    run_cli (&bench, NULL, "bench-ik", "--mode", "cold", chain, noeff, NULL);
    g_assert_cmpint (bench.status, ==, 1);
    g_assert_cmpstr (bench.out, ==, "");
    g_assert_true (g_str_has_suffix (bench.err, expected));

    run_cli (&solve, NULL, "solve", chain, noeff, "-o", nowhere, NULL);
    g_assert_true (g_str_has_suffix (solve.err, expected));
  }
  {
    g_auto(Run) run = { 0 };
    g_autofree char *expected = g_strdup_printf ("kinema-cli: %s: cannot write the file: ",
                                                 nowhere);

    run_cli (&run, NULL, "bench-ik", "--mode", "cold", "-o", nowhere, chain, targets, NULL);
    g_assert_cmpint (run.status, ==, 1);
    g_assert_nonnull (strstr (run.err, expected));
  }
  g_unlink (noeff);
  g_rmdir (dir);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/kinema/cli/bench-ik/urdf-chain", test_urdf_chain);
  g_test_add_func ("/kinema/cli/bench-ik/wrong-kind", test_wrong_kind);
  g_test_add_func ("/kinema/cli/bench-ik/effector-and-write-errors",
                   test_effector_and_write_errors);
  return g_test_run ();
}
