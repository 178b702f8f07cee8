/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <string.h>
#include <glib.h>
#include <glib/gstdio.h>

#include "cli-run.h"
#include "km-test-tmp.h"

/* `kinema-cli info` and `validate` on Choreonoid body motions (.seq). */

static char *
seq_path (const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "data", "body-motion", name, NULL);
}

static void
test_info (void)
{
  g_auto(Run) run = { 0 };
  g_auto(Run) old = { 0 };
  g_autofree char *path = seq_path ("sr1-walk.seq");
  g_autofree char *v1 = seq_path ("sr1-v1.seq");

  run_cli (&run, NULL, "info", path, NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_cmpstr (run.out, ==,
                   "format=CHOREONOID-BODY-MOTION-YAML\n"
                   "format_version=2\n"
                   "component 0: type=MultiValueSeq content=JointDisplacement parts=29 use=joints\n"
                   "component 1: type=MultiSE3Seq content=LinkPosition parts=1 use=links\n"
                   "component 2: type=Vector3Seq content=ZMP parts=- use=kept\n"
                   "frames=5 frame_rate=50 duration=0.08 joints=29 links=1 components=3\n");
  g_assert_cmpstr (run.err, ==, "");

  run_cli (&old, NULL, "info", v1, NULL);
  g_assert_cmpint (old.status, ==, 0);
  g_assert_true (g_str_has_suffix (old.out, "\nframes=3 frame_rate=10 duration=0.2 joints=29 "
                                   "links=2 components=2\n"));
}

static void
test_validate (void)
{
  g_auto(Run) ok = { 0 };
  g_auto(Run) bad = { 0 };
  g_auto(Run) forced = { 0 };
  g_autofree char *path = seq_path ("sr1-walk.seq");
  g_autofree char *expected = g_strdup_printf ("%s: ok (CHOREONOID-BODY-MOTION-YAML)\n", path);
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-seq-XXXXXX");
  /* Detected by content, not by the name. */
  g_autofree char *bad_path = g_build_filename (dir, "bad.yaml", NULL);
  g_autofree char *bad_message =
    g_strdup_printf ("%s:7:42: expected 2 frames, as numFrames says\n", bad_path);

  run_cli (&ok, NULL, "validate", path, NULL);
  g_assert_cmpint (ok.status, ==, 0);
  g_assert_cmpstr (ok.out, ==, expected);
  g_assert_cmpstr (ok.err, ==, "");

  g_assert_true (g_file_set_contents (bad_path, "type: CompositeSeq\ncontent: BodyMotion\n"
                                      "frameRate: 10\nnumFrames: 2\ncomponents:\n"
                                      "  - { type: MultiValueSeq, content: JointDisplacement,\n"
                                      "      numFrames: 2, numParts: 1, frames: [ [ 0 ] ] }\n",
                                      -1, NULL));
  run_cli (&bad, NULL, "validate", bad_path, NULL);
  g_assert_cmpint (bad.status, ==, 1);
  g_assert_cmpstr (bad.out, ==, "");
  g_assert_cmpstr (bad.err, ==, bad_message);

  run_cli (&forced, NULL, "validate", "--format", "choreonoid-body-motion-yaml", path, NULL);
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

  g_test_add_func ("/kinema/CliBodyMotion/info", test_info);
  g_test_add_func ("/kinema/CliBodyMotion/validate", test_validate);

  return g_test_run ();
}
