/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <string.h>
#include <glib.h>
#include <glib/gstdio.h>

#include "cli-run.h"
#include "km-test-tmp.h"

/* `kinema-cli info` and `validate` on Choreonoid pose sequences (.pseq). */

static char *
pseq_path (void)
{
  return g_test_build_filename (G_TEST_DIST, "data", "cnoid", "share", "project", "motion", "SR1",
                                "SR1WalkPattern2.pseq", NULL);
}

static void
test_info (void)
{
  g_auto(Run) run = { 0 };
  g_autofree char *path = pseq_path ();

  run_cli (&run, NULL, "info", path, NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_true (g_str_has_prefix (run.out, "format=POSE-SEQ-YAML\nname=SR1WalkPattern2\n"));
  g_assert_nonnull (strstr (run.out, "\nkey 14: time=13.29 joints=17 links=1 base=WAIST"
                            " max_transition_time=1.2281353\n"));
  g_assert_true (g_str_has_suffix (run.out, "\nkeys=15 duration=13.29 target_body=SR1\n"));
  g_assert_cmpstr (run.err, ==, "");
}

static void
test_validate (void)
{
  g_auto(Run) ok = { 0 };
  g_auto(Run) bad = { 0 };
  g_auto(Run) forced = { 0 };
  g_autofree char *path = pseq_path ();
  g_autofree char *expected = g_strdup_printf ("%s: ok (POSE-SEQ-YAML)\n", path);
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-pseq-XXXXXX");
  g_autofree char *bad_path = g_build_filename (dir, "bad.pseq", NULL);
  g_autofree char *bad_message = g_strdup_printf ("%s:4:47: expected 2 values, one per joint\n",
                                                  bad_path);

  run_cli (&ok, NULL, "validate", path, NULL);
  g_assert_cmpint (ok.status, ==, 0);
  g_assert_cmpstr (ok.out, ==, expected);

  g_assert_true (g_file_set_contents (bad_path, "type: PoseSeq\nrefs:\n  - time: 0\n"
                                      "    refer: { type: Pose, joints: [ 0, 1 ], q: [ 0 ] }\n",
                                      -1, NULL));
  run_cli (&bad, NULL, "validate", bad_path, NULL);
  g_assert_cmpint (bad.status, ==, 1);
  g_assert_cmpstr (bad.out, ==, "");
  g_assert_cmpstr (bad.err, ==, bad_message);

  /* --format POSE-SEQ-YAML is accepted, in any case. */
  run_cli (&forced, NULL, "validate", "--format", "pose-seq-yaml", path, NULL);
  g_assert_cmpint (forced.status, ==, 0);
  g_assert_cmpstr (forced.out, ==, expected);

  g_assert_cmpint (g_unlink (bad_path), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/kinema/CliPoseSeq/info", test_info);
  g_test_add_func ("/kinema/CliPoseSeq/validate", test_validate);

  return g_test_run ();
}
