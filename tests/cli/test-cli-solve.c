/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

/* posix_openpt(), ptsname() */
#define _GNU_SOURCE

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <gio/gio.h>
#include <glib/gstdio.h>

#include "km-animation-json.h"
#include "km-body.h"
#include "km-body-motion.h"
#include "km-skeleton-json.h"
#include "km-target-track.h"
#include "km-targets-json.h"

#include "cli-run.h"
#include "km-test-tmp.h"

static char *
data_path (const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "..", "data", name, NULL);
}

static KmSkeleton *
load_skeleton (void)
{
  g_autofree char *path = data_path ("skeleton.json");
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  gsize length;
  KmSkeleton *skeleton;

  g_assert_true (g_file_get_contents (path, &text, &length, &error));
  skeleton = km_skeleton_json_load (path, text, length, &error);
  g_assert_no_error (error);
  return skeleton;
}

/* Parses the one summary line; checks its exact shape. */
static void
parse_summary (const char *line,
               guint      *frames,
               double      values[5])
{
  g_autoptr(GRegex) regex = NULL;
  g_autoptr(GMatchInfo) match = NULL;

  regex = g_regex_new ("^frames=([0-9]+) mean_pos_err=(\\S+) max_pos_err=(\\S+) "
                       "mean_rot_err=(\\S+) max_rot_err=(\\S+) seconds=(\\S+)$", 0, 0, NULL);
  g_assert_true (g_regex_match (regex, line, 0, &match));
  {
    g_autofree char *text = g_match_info_fetch (match, 1);

    *frames = (guint) g_ascii_strtoull (text, NULL, 10);
  }
  for (int i = 0; i < 5; i++)
    {
      g_autofree char *text = g_match_info_fetch (match, i + 2);
      char *end;

      values[i] = g_ascii_strtod (text, &end);
      g_assert_cmpint (*end, ==, '\0');
      g_assert_true (isfinite (values[i]));
      g_assert_cmpfloat (values[i], >=, 0.0);
    }
}

/* A line of a batch (several targets files): the summary, then " targets=FILE". */
static void
parse_batch_summary (const char *line,
                     const char *targets,
                     guint      *frames,
                     double      values[5])
{
  g_autofree char *tail = g_strconcat (" targets=", targets, NULL);
  g_autofree char *summary = NULL;

  if (!g_str_has_suffix (line, tail))
    g_error ("“%s” does not end in “%s”", line, tail);
  summary = g_strndup (line, strlen (line) - strlen (tail));
  parse_summary (summary, frames, values);
}

static char **
output_lines (const char *out)
{
  g_assert_true (g_str_has_suffix (out, "\n"));
  return g_strsplit (out, "\n", -1);
}

/* Every frame of the example is reachable: the position is met, joints stay in limits. */
static void
check_animation (const char *path,
                 KmSkeleton *skeleton,
                 const char *targets_path,
                 guint       n_frames)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(KmAnimation) animation = km_animation_json_load_file (path, skeleton, &error);
  g_autoptr(KmTargetTrack) track = km_targets_json_load_file (targets_path, &error);
  g_autofree KmTransform *world = g_new (KmTransform, km_skeleton_get_n_joints (skeleton));
  int effector = km_skeleton_get_default_effector (skeleton);

  g_assert_no_error (error);
  g_assert_cmpuint (km_animation_get_n_frames (animation), ==, n_frames);
  for (guint f = 0; f < n_frames; f++)
    {
      const double *q = km_animation_get_frame (animation, f);
      KmVec3 target;

      g_assert_true (km_skeleton_within_limits (skeleton, q, 1e-12));
      km_skeleton_forward_kinematics (skeleton, q, NULL, world);
      km_target_track_sample (track, f, &target, NULL);
      g_assert_cmpfloat (km_vec3_length (km_vec3_sub (world[effector].pos, target)), <, 1e-5);
    }
}

static void
test_spec_example (void)
{
  g_autoptr(KmSkeleton) skeleton = load_skeleton ();
  g_autofree char *skeleton_path = data_path ("skeleton.json");
  g_autofree char *targets_path = data_path ("targets.json");
  g_autofree char *dir = km_test_make_tmp_dir ("solve-spec-XXXXXX");
  g_autofree char *out_path = g_build_filename (dir, "out.json", NULL);
  g_auto(GStrv) lines = NULL;
  g_auto(Run) run = { 0, };
  double values[5];
  guint frames;

  run_cli (&run, NULL, "solve", skeleton_path, targets_path, "-o", out_path, NULL);
  g_assert_cmpstr (run.err, ==, "");
  g_assert_cmpint (run.status, ==, 0);

  lines = output_lines (run.out);
  g_assert_cmpuint (g_strv_length (lines), ==, 2);
  parse_summary (lines[0], &frames, values);
  g_assert_cmpuint (frames, ==, 241);
  g_assert_cmpfloat (values[1], <, 1e-5);   /* max_pos_err */
  g_assert_cmpfloat (values[0], <=, values[1]);
  g_assert_cmpfloat (values[2], <=, values[3]);

  check_animation (out_path, skeleton, targets_path, 241);

  /* validate and info know both files. */
  {
    g_auto(Run) info = { 0, };
    g_auto(Run) validate = { 0, };

    run_cli (&validate, NULL, "validate", targets_path, out_path, NULL);
    g_assert_cmpint (validate.status, ==, 0);
    run_cli (&info, NULL, "info", targets_path, NULL);
    g_assert_cmpint (info.status, ==, 0);
    g_assert_true (g_str_has_suffix (info.out, "keyframes=4 first=0 last=240\n"));
    g_assert_nonnull (strstr (info.out, "keyframe frame=160 pos=1,-1,1 euler=-90,45,0\n"));
    run_clear (&info);
    run_cli (&info, NULL, "info", out_path, NULL);
    g_assert_cmpint (info.status, ==, 0);
    g_assert_true (g_str_has_suffix (info.out, "frames=241 joints=3\n"));
  }
}

static void
test_defaults (void)
{
  g_autoptr(KmSkeleton) skeleton = load_skeleton ();
  g_autofree char *targets_path = data_path ("targets.json");
  g_autofree char *dir = km_test_make_tmp_dir ("solve-XXXXXX");
  g_autofree char *out_path = g_build_filename (dir, "animation.json", NULL);
  g_auto(GStrv) lines = NULL;
  g_auto(Run) run = { 0, };
  double values[5];
  guint frames;

  run_cli (&run, dir, "solve", NULL);
  g_assert_cmpint (run.status, ==, 0);
  /* Every keyframe of the example is met: nothing said of a missed one. */
  g_assert_null (strstr (run.err, "can be met"));
  lines = output_lines (run.out);
  g_assert_cmpuint (g_strv_length (lines), ==, 2);
  parse_summary (lines[0], &frames, values);
  g_assert_cmpuint (frames, ==, 241);
  check_animation (out_path, skeleton, targets_path, 241);
}

/* Keeps the first @n keyframes of the default targets. */
static char *
write_targets (const char *dir,
               const char *name,
               guint       n)
{
  g_autofree char *source = data_path ("targets.json");
  g_autoptr(KmTargetTrack) track = km_targets_json_load_file (source, NULL);
  g_autoptr(KmTargetTrack) cut = NULL;
  g_autoptr(GError) error = NULL;
  char *path = g_build_filename (dir, name, NULL);

  g_assert_nonnull (track);
  cut = km_target_track_new (km_target_track_get_keyframes (track, NULL), n, NULL, 30.0, NULL);
  g_assert_true (km_targets_json_save (cut, path, &error));
  g_assert_no_error (error);
  return path;
}

static void
test_batch (void)
{
  g_autoptr(KmSkeleton) skeleton = load_skeleton ();
  g_autofree char *skeleton_path = data_path ("skeleton.json");
  g_autofree char *dir = km_test_make_tmp_dir ("batch-XXXXXX");
  g_autofree char *out_dir = g_build_filename (dir, "out", NULL);
  g_autofree char *a = write_targets (dir, "a.json", 4);
  g_autofree char *b = write_targets (dir, "b.json", 2);
  g_autofree char *c = write_targets (dir, "c.json", 3);
  g_autofree char *a_out = g_build_filename (out_dir, "a.animation.json", NULL);
  g_autofree char *b_out = g_build_filename (out_dir, "b.animation.json", NULL);
  g_autofree char *c_out = g_build_filename (out_dir, "c.animation.json", NULL);
  const guint expected[3] = { 241, 81, 161 };
  g_auto(GStrv) lines = NULL;
  g_auto(Run) run = { 0, };
  g_autoptr(GDir) listing = NULL;
  guint n_files = 0;

  run_cli (&run, NULL, "solve", skeleton_path, a, b, c, "--jobs", "2", "-o", out_dir, NULL);
  g_assert_cmpstr (run.err, ==, "");
  g_assert_cmpint (run.status, ==, 0);

  /* One line per animation, in argument order, each naming its targets file. */
  lines = output_lines (run.out);
  g_assert_cmpuint (g_strv_length (lines), ==, 4);
  for (guint i = 0; i < 3; i++)
    {
      double values[5];
      guint frames;

      parse_batch_summary (lines[i], i == 0 ? a : i == 1 ? b : c, &frames, values);
      g_assert_cmpuint (frames, ==, expected[i]);
    }

  listing = g_dir_open (out_dir, 0, NULL);
  while (g_dir_read_name (listing) != NULL)
    n_files++;
  g_assert_cmpuint (n_files, ==, 3);
  check_animation (a_out, skeleton, a, 241);
  check_animation (b_out, skeleton, b, 81);
  check_animation (c_out, skeleton, c, 161);
}

/* The values of @seq against the animation.json @json solved from the same input: the
 * default skeleton has no joint ids, so a body motion holds them in DOF order. */
static void
check_body_motion (const char *seq,
                   const char *json,
                   KmSkeleton *skeleton,
                   guint       n_frames)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(KmBodyMotion) motion = km_body_motion_load_file (seq, &error);
  g_autoptr(KmAnimation) animation = NULL;
  guint n_dof = km_skeleton_get_n_dof (skeleton);

  g_assert_no_error (error);
  animation = km_animation_json_load_file (json, skeleton, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (km_body_motion_get_n_frames (motion), ==, n_frames);
  g_assert_cmpfloat (km_body_motion_get_frame_rate (motion), ==, 30);
  g_assert_cmpuint (km_body_motion_get_n_joints (motion), ==, n_dof);
  g_assert_cmpuint (km_body_motion_get_n_links (motion), ==, 1);
  for (guint f = 0; f < n_frames; f++)
    for (guint d = 0; d < n_dof; d++)
      g_assert_cmpfloat_with_epsilon (km_body_motion_get_joint_frame (motion, f)[d],
                                      km_animation_get_frame (animation, f)[d], 1e-12);
}

/* -o NAME.seq, or --to CHOREONOID-BODY-MOTION: a Choreonoid body motion that `info` and
 * the loader read, with the values the animation.json of the same solve has. */
static void
test_body_motion (void)
{
  g_autoptr(KmSkeleton) skeleton = load_skeleton ();
  g_autofree char *skeleton_path = data_path ("skeleton.json");
  g_autofree char *targets_path = data_path ("targets.json");
  g_autofree char *dir = km_test_make_tmp_dir ("solve-seq-XXXXXX");
  g_autofree char *json = g_build_filename (dir, "out.json", NULL);
  g_autofree char *seq = g_build_filename (dir, "out.seq", NULL);
  g_autofree char *forced = g_build_filename (dir, "forced", NULL);
  g_auto(GStrv) lines = NULL;
  g_auto(Run) run = { 0, };
  double values[5];
  guint frames;

  run_cli (&run, NULL, "solve", skeleton_path, targets_path, "-o", json, NULL);
  g_assert_cmpint (run.status, ==, 0);
  run_clear (&run);

  /* By the name alone; the summary line is the same. */
  run_cli (&run, NULL, "solve", skeleton_path, targets_path, "-o", seq, NULL);
  g_assert_cmpstr (run.err, ==, "");
  g_assert_cmpint (run.status, ==, 0);
  lines = output_lines (run.out);
  g_assert_cmpuint (g_strv_length (lines), ==, 2);
  parse_summary (lines[0], &frames, values);
  g_assert_cmpuint (frames, ==, 241);
  run_clear (&run);
  check_body_motion (seq, json, skeleton, 241);

  run_cli (&run, NULL, "info", seq, NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (strstr (run.out, "format=CHOREONOID-BODY-MOTION-YAML\n"));
  g_assert_true (g_str_has_suffix (run.out, "frames=241 frame_rate=30 duration=8 joints=5 "
                                            "links=1 components=2\n"));
  run_clear (&run);

  /* By --to, for a name without an extension (one whose extension names the other format
   * is refused: test_to_conflicts()). */
  g_assert_cmpint (g_unlink (seq), ==, 0);
  run_cli (&run, NULL, "solve", "--to", "CHOREONOID-BODY-MOTION", skeleton_path, targets_path,
           "-o", forced, NULL);
  g_assert_cmpint (run.status, ==, 0);
  run_clear (&run);
  check_body_motion (forced, json, skeleton, 241);

  /* An unknown format is a usage error; nothing is written. */
  run_cli (&run, NULL, "solve", "--to", "BVH", skeleton_path, targets_path, "-o", seq, NULL);
  g_assert_cmpint (run.status, ==, 2);
  g_assert_nonnull (strstr (run.err, "BVH"));
  g_assert_false (g_file_test (seq, G_FILE_TEST_EXISTS));

  g_assert_cmpint (g_unlink (json), ==, 0);
  g_assert_cmpint (g_unlink (forced), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

/* Batch mode with --to: NAME.seq for every NAME.json, in the directory -o names. */
static void
test_body_motion_batch (void)
{
  g_autoptr(KmSkeleton) skeleton = load_skeleton ();
  g_autofree char *skeleton_path = data_path ("skeleton.json");
  g_autofree char *dir = km_test_make_tmp_dir ("batch-seq-XXXXXX");
  g_autofree char *out_dir = g_build_filename (dir, "out", NULL);
  g_autofree char *a = write_targets (dir, "a.json", 4);
  g_autofree char *b = write_targets (dir, "b.json", 2);
  g_autofree char *a_seq = g_build_filename (out_dir, "a.seq", NULL);
  g_autofree char *b_seq = g_build_filename (out_dir, "b.seq", NULL);
  g_autoptr(GDir) listing = NULL;
  g_auto(GStrv) lines = NULL;
  g_auto(Run) run = { 0, };
  guint n_files = 0;

  run_cli (&run, NULL, "solve", skeleton_path, a, b, "--to", "CHOREONOID-BODY-MOTION-YAML",
           "-o", out_dir, NULL);
  g_assert_cmpstr (run.err, ==, "");
  g_assert_cmpint (run.status, ==, 0);
  lines = output_lines (run.out);
  g_assert_cmpuint (g_strv_length (lines), ==, 3);

  listing = g_dir_open (out_dir, 0, NULL);
  while (g_dir_read_name (listing) != NULL)
    n_files++;
  g_assert_cmpuint (n_files, ==, 2);
  for (guint i = 0; i < 2; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(KmBodyMotion) motion = km_body_motion_load_file (i == 0 ? a_seq : b_seq,
                                                                 &error);

      g_assert_no_error (error);
      g_assert_cmpuint (km_body_motion_get_n_frames (motion), ==, i == 0 ? 241 : 81);
      g_assert_cmpuint (km_body_motion_get_n_joints (motion), ==,
                        km_skeleton_get_n_dof (skeleton));
    }
}

/* --to and an output name whose extension names the other format solve writes (.seq,
 * .json, in any case): which one was meant cannot be known, so it is refused as wrong
 * usage (naming both), nothing written and an earlier file kept; as a name whose
 * extension is for another kind of file is. No extension, or the matching one, is
 * written; so is a batch into a directory, whatever its name. Without --to the
 * extension picks the format, in any case. */
static void
test_to_conflicts (void)
{
  g_autoptr(KmSkeleton) skeleton = load_skeleton ();
  g_autofree char *skeleton_path = data_path ("skeleton.json");
  g_autofree char *targets_path = data_path ("targets.json");
  g_autofree char *dir = km_test_make_tmp_dir ("solve-to-XXXXXX");
  g_autofree char *json = g_build_filename (dir, "x.json", NULL);
  g_autofree char *seq = g_build_filename (dir, "x.seq", NULL);
  g_autofree char *upper_seq = g_build_filename (dir, "X.SEQ", NULL);
  g_autofree char *anim_json = g_build_filename (dir, "x.animation.json", NULL);
  g_autofree char *urdf = g_build_filename (dir, "x.urdf", NULL);
  g_autofree char *seq_dir = g_build_filename (dir, "out.seq", NULL);
  g_autofree char *seq_dir_slash = g_strconcat (seq_dir, G_DIR_SEPARATOR_S, NULL);
  g_autofree char *batch_a = write_targets (dir, "a.json", 2);
  g_autofree char *batch_b = write_targets (dir, "b.json", 2);
  g_autofree char *batch_a_out = g_build_filename (seq_dir, "a.animation.json", NULL);
  g_autofree char *batch_b_out = g_build_filename (seq_dir, "b.animation.json", NULL);
  g_autofree char *seq_text = NULL;
  const struct
  {
    const char *to;
    const char *output;
    const char *implied;  /* the format the name says */
  } refused[] = {
    { "KINEMA-ANIMATION-JSON", seq, "CHOREONOID-BODY-MOTION" },
    { "KINEMA-ANIMATION-JSON", upper_seq, "CHOREONOID-BODY-MOTION" },
    { "CHOREONOID-BODY-MOTION", json, "KINEMA-ANIMATION-JSON" },
    { "CHOREONOID-BODY-MOTION-YAML", anim_json, "KINEMA-ANIMATION-JSON" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      g_auto(Run) run = { 0, };
      g_autofree char *expected = g_strdup_printf ("kinema-cli: %s: ", refused[i].output);
      g_autofree char *to = g_strdup_printf ("--to asks for %s", refused[i].to);

      run_cli (&run, NULL, "solve", "--to", refused[i].to, skeleton_path, targets_path,
               "-o", refused[i].output, NULL);
      assert_output_refused (&run, refused[i].output, NULL);
      g_assert_true (g_str_has_prefix (run.err, expected));
      g_assert_nonnull (strstr (run.err, refused[i].implied));
      g_assert_nonnull (strstr (run.err, to));
    }

  {
    /* The matching extension is written; an earlier body motion is then kept when --to
     * asks for an animation.json under its name. */
    g_auto(Run) run = { 0, };
    g_auto(Run) again = { 0, };
    g_auto(Run) conflict = { 0, };
    g_auto(Run) plain = { 0, };

    run_cli (&run, NULL, "solve", "--to", "KINEMA-ANIMATION-JSON", skeleton_path,
             targets_path, "-o", json, NULL);
    g_assert_cmpstr (run.err, ==, "");
    g_assert_cmpint (run.status, ==, 0);
    run_cli (&again, NULL, "solve", "--to", "CHOREONOID-BODY-MOTION", skeleton_path,
             targets_path, "-o", seq, NULL);
    g_assert_cmpstr (again.err, ==, "");
    g_assert_cmpint (again.status, ==, 0);
    check_body_motion (seq, json, skeleton, 241);
    g_assert_true (g_file_get_contents (seq, &seq_text, NULL, NULL));
    run_cli (&conflict, NULL, "solve", "--to", "KINEMA-ANIMATION-JSON", skeleton_path,
             targets_path, "-o", seq, NULL);
    assert_output_refused (&conflict, seq, seq_text);

    /* Without --to, ".SEQ" asks for a body motion as ".seq" does. */
    run_cli (&plain, NULL, "solve", skeleton_path, targets_path, "-o", upper_seq, NULL);
    g_assert_cmpstr (plain.err, ==, "");
    g_assert_cmpint (plain.status, ==, 0);
    check_body_motion (upper_seq, json, skeleton, 241);
  }
  {
    /* Another kind of file altogether: refused as before, whatever --to says. */
    g_auto(Run) run = { 0, };

    run_cli (&run, NULL, "solve", "--to", "KINEMA-ANIMATION-JSON", skeleton_path,
             targets_path, "-o", urdf, NULL);
    assert_output_refused (&run, urdf, NULL);
    g_assert_nonnull (strstr (run.err, "“.urdf” is for models"));
  }
  {
    /* A batch names no output file: its directory's name says nothing. */
    g_auto(Run) run = { 0, };

    run_cli (&run, NULL, "solve", "--to", "KINEMA-ANIMATION-JSON", skeleton_path, batch_a,
             batch_b, "-o", seq_dir_slash, NULL);
    g_assert_cmpstr (run.err, ==, "");
    g_assert_cmpint (run.status, ==, 0);
    g_assert_true (g_file_test (batch_a_out, G_FILE_TEST_IS_REGULAR));
    g_assert_true (g_file_test (batch_b_out, G_FILE_TEST_IS_REGULAR));
  }

  g_assert_cmpint (g_unlink (batch_a_out), ==, 0);
  g_assert_cmpint (g_unlink (batch_b_out), ==, 0);
  g_assert_cmpint (g_rmdir (seq_dir), ==, 0);
  g_assert_cmpint (g_unlink (batch_a), ==, 0);
  g_assert_cmpint (g_unlink (batch_b), ==, 0);
  g_assert_cmpint (g_unlink (upper_seq), ==, 0);
  g_assert_cmpint (g_unlink (seq), ==, 0);
  g_assert_cmpint (g_unlink (json), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

/* A batch in which one targets file fails still prints one line per file, in argument
 * order ("error=1 targets=FILE" for the failed one, its message on stderr, located), and
 * keeps the animations of the others; the exit status says that one failed. */
static void
test_batch_failure (void)
{
  g_autofree char *skeleton_path = data_path ("skeleton.json");
  g_autofree char *dir = km_test_make_tmp_dir ("batch-fail-XXXXXX");
  g_autofree char *out_dir = g_build_filename (dir, "out", NULL);
  g_autofree char *a = write_targets (dir, "a.json", 2);
  g_autofree char *bad = g_build_filename (dir, "bad.json", NULL);
  g_autofree char *c = write_targets (dir, "c.json", 3);
  g_autofree char *a_out = g_build_filename (out_dir, "a.animation.json", NULL);
  g_autofree char *bad_out = g_build_filename (out_dir, "bad.animation.json", NULL);
  g_autofree char *c_out = g_build_filename (out_dir, "c.animation.json", NULL);
  g_autofree char *failed = NULL;
  g_autofree char *located = NULL;
  g_auto(GStrv) lines = NULL;
  g_auto(Run) run = { 0, };
  double values[5];
  guint frames;

  g_assert_true (g_file_set_contents (bad, "[{\"frame\": 0, \"pos\": [0, 0, 0], \"euler\": [0, 0, 0],\n"
                                           "  \"effector\": \"Nope\"}]\n", -1, NULL));
  run_cli (&run, NULL, "solve", skeleton_path, a, bad, c, "--jobs", "3", "-o", out_dir, NULL);
  g_assert_cmpint (run.status, ==, 1);
  located = g_strdup_printf ("%s:2:15: %s has no joint or link “Nope” to use as the end "
                             "effector\n", bad, skeleton_path);
  g_assert_cmpstr (run.err, ==, located);

  lines = output_lines (run.out);
  g_assert_cmpuint (g_strv_length (lines), ==, 4);
  parse_batch_summary (lines[0], a, &frames, values);
  g_assert_cmpuint (frames, ==, 81);
  failed = g_strconcat ("error=1 targets=", bad, NULL);
  g_assert_cmpstr (lines[1], ==, failed);
  parse_batch_summary (lines[2], c, &frames, values);
  g_assert_cmpuint (frames, ==, 161);

  g_assert_true (g_file_test (a_out, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (bad_out, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (c_out, G_FILE_TEST_EXISTS));
  g_unlink (a_out);
  g_unlink (c_out);
  g_rmdir (out_dir);
  g_unlink (a);
  g_unlink (bad);
  g_unlink (c);
  g_rmdir (dir);
}

/* An output that cannot be written is said as every command says it: "kinema-cli: OUTPUT:
 * reason", not under the targets file's name, which reads like a fault in that file.
 * (/dev/full: a missing folder is made before the solve now, see test_output_places().) */
static void
test_write_failure (void)
{
  g_autofree char *skeleton_path = data_path ("skeleton.json");
  g_autofree char *targets_path = data_path ("targets.json");
  const char *expected = "kinema-cli: /dev/full: cannot write the file: ";
  g_auto(Run) run = { 0, };
  g_auto(Run) run_seq = { 0, };

  if (!g_file_test ("/dev/full", G_FILE_TEST_EXISTS))
    {
      g_test_skip ("no /dev/full");
      return;
    }
  run_cli (&run, NULL, "solve", skeleton_path, targets_path, "-o", "/dev/full", NULL);
  g_assert_cmpint (run.status, ==, 1);
  if (!g_str_has_prefix (run.err, expected))
    g_error ("“%s” does not start with “%s”", run.err, expected);
  g_assert_cmpstr (run.out, ==, "");

  run_cli (&run_seq, NULL, "solve", skeleton_path, targets_path, "-o", "/dev/full", "--to",
           "CHOREONOID-BODY-MOTION", NULL);
  g_assert_cmpint (run_seq.status, ==, 1);
  if (!g_str_has_prefix (run_seq.err, expected))
    g_error ("“%s” does not start with “%s”", run_seq.err, expected);
}

/* A model whose forward kinematics overflows (two joint origins of 1e308 m, each finite, their
 * sum not): exit 1 with a message about the model, no summary claiming an error of 0, no
 * animation (it held "displacement": null, which Kinema's own reader refuses). */
static void
test_overflowing_model (void)
{
  static const char urdf[] =
    "<robot name=\"m\">\n"
    "  <link name=\"a\"/>\n"
    "  <joint name=\"j1\" type=\"revolute\"><parent link=\"a\"/><child link=\"l1\"/>"
    "<origin xyz=\"1e308 0 0\"/><axis xyz=\"0 0 1\"/>"
    "<limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/></joint>\n"
    "  <link name=\"l1\"/>\n"
    "  <joint name=\"j2\" type=\"revolute\"><parent link=\"l1\"/><child link=\"l2\"/>"
    "<origin xyz=\"1e308 0 0\"/><axis xyz=\"0 0 1\"/>"
    "<limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/></joint>\n"
    "  <link name=\"l2\"/>\n"
    "  <joint name=\"j3\" type=\"prismatic\"><parent link=\"l2\"/><child link=\"l3\"/>"
    "<origin xyz=\"1 0 0\"/><axis xyz=\"1 0 0\"/>"
    "<limit lower=\"-1e308\" upper=\"1e308\" effort=\"1\" velocity=\"1\"/></joint>\n"
    "  <link name=\"l3\"/>\n"
    "</robot>\n";
  g_autofree char *dir = km_test_make_tmp_dir ("overflow-XXXXXX");
  g_autofree char *model = g_build_filename (dir, "huge2.urdf", NULL);
  g_autofree char *targets = g_build_filename (dir, "tt.json", NULL);
  g_autofree char *out_path = g_build_filename (dir, "h.json", NULL);
  g_autofree char *expected = g_strconcat (model, ":1:1: ", NULL);
  g_auto(Run) run = { 0, };

  g_assert_true (g_file_set_contents (model, urdf, -1, NULL));
  g_assert_true (g_file_set_contents (targets,
                                      "[{\"frame\":0,\"pos\":[1,0,0],\"euler\":[0,0,0]},"
                                      "{\"frame\":3,\"pos\":[1,1,0],\"euler\":[0,0,0]}]", -1, NULL));
  run_cli (&run, NULL, "solve", model, targets, "-o", out_path, NULL);
  g_assert_cmpint (run.status, ==, 1);
  if (!g_str_has_prefix (run.err, expected) || strstr (run.err, "too large") == NULL)
    g_error ("“%s” does not start with “%s” or does not say the model is too large", run.err,
             expected);
  g_assert_null (strstr (run.out, "mean_pos_err=0 "));
  g_assert_false (g_file_test (out_path, G_FILE_TEST_EXISTS));
}

static void
test_errors (void)
{
  g_autofree char *skeleton_path = data_path ("skeleton.json");
  g_autofree char *targets_path = data_path ("targets.json");
  g_autofree char *dir = km_test_make_tmp_dir ("errors-XXXXXX");
  g_autofree char *bad = g_build_filename (dir, "bad.json", NULL);
  g_autofree char *out_path = g_build_filename (dir, "never.json", NULL);
  g_autofree char *expected = NULL;
  g_auto(Run) run = { 0, };

  g_assert_true (g_file_set_contents (bad, "[{\"frame\": 0, \"pos\": [0, 0, 0], \"euler\": [0, 0, 0]},\n"
                                           " {\"frame\": -3, \"pos\": [0, 0, 0], \"euler\": [0, 0, 0]}]", -1, NULL));

  /* Invalid targets: exit 1, FILE:LINE:COLUMN at the value, nothing written. */
  run_cli (&run, NULL, "solve", skeleton_path, bad, "-o", out_path, NULL);
  g_assert_cmpint (run.status, ==, 1);
  expected = g_strconcat (bad, ":2:12: ", NULL);
  g_assert_true (g_str_has_prefix (run.err, expected));
  g_assert_false (g_file_test (out_path, G_FILE_TEST_EXISTS));
  run_clear (&run);

  run_cli (&run, NULL, "validate", bad, NULL);
  g_assert_cmpint (run.status, ==, 1);
  g_assert_nonnull (strstr (run.err, expected));
  run_clear (&run);

  /* A skeleton in place of the targets. */
  run_cli (&run, NULL, "solve", skeleton_path, skeleton_path, "-o", out_path, NULL);
  g_assert_cmpint (run.status, ==, 1);
  run_clear (&run);

  run_cli (&run, NULL, "solve", skeleton_path, targets_path, "--effector", "Knee", "-o",
           out_path, NULL);
  g_assert_cmpint (run.status, ==, 1);
  g_assert_nonnull (strstr (run.err, "Knee"));
  g_assert_false (g_file_test (out_path, G_FILE_TEST_EXISTS));
  run_clear (&run);

  run_cli (&run, NULL, "solve", "--jobs", "-2", NULL);
  g_assert_cmpint (run.status, ==, 2);
  run_clear (&run);

  /* 0 is no number of workers either (leaving --jobs out means one per processor). */
  run_cli (&run, NULL, "solve", "--jobs", "0", NULL);
  g_assert_cmpint (run.status, ==, 2);
  g_assert_nonnull (strstr (run.err, "--jobs"));
  run_clear (&run);

  run_cli (&run, NULL, "solve", skeleton_path, targets_path, targets_path, "-o", dir, NULL);
  g_assert_cmpint (run.status, ==, 2);
}

static char *
test_data_path (const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "data", name, NULL);
}

/* Solving one arm leaves the head and the other arm at the model's pose (0, clamped into
 * their limits), not at the middles of their ranges (they were 0.45, 0.45 and -1.2). */
static void
test_off_chain_pose (void)
{
  g_autofree char *model = test_data_path ("urdf-two-arms.urdf");
  g_autofree char *targets = test_data_path ("targets-two-arms.json");
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-solve-XXXXXX");
  g_autofree char *out = g_build_filename (dir, "animation.json", NULL);
  g_autoptr(KmAnimation) animation = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(Run) run = { 0, };
  struct { const char *joint; double value; } kept[] = {
    { "head_tilt", 0.0 }, { "l_shoulder", 0.0 }, { "l_elbow", -0.1 },
  };
  g_auto(GStrv) lines = NULL;
  double values[5];
  guint frames;

  run_cli (&run, NULL, "solve", model, targets, "--effector", "r_tool", "-o", out, NULL);
  g_assert_cmpstr (run.err, ==, "");
  g_assert_cmpint (run.status, ==, 0);
  lines = output_lines (run.out);
  parse_summary (lines[0], &frames, values);
  g_assert_cmpuint (frames, ==, 11);
  g_assert_cmpfloat (values[1], <, 1e-6);   /* max_pos_err: the arm reaches */

  animation = km_animation_json_load_file (out, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (km_animation_get_n_frames (animation), ==, 11);
  for (guint f = 0; f < 11; f++)
    {
      const double *q = km_animation_get_frame (animation, f);

      for (guint i = 0; i < G_N_ELEMENTS (kept); i++)
        {
          int c = km_animation_find_channel (animation, kept[i].joint);

          g_assert_cmpint (c, >=, 0);
          g_assert_cmpfloat (q[km_animation_get_channel (animation, (guint) c)->dof_index], ==,
                             kept[i].value);
        }
    }
  g_unlink (out);
  g_rmdir (dir);
}

/* A joint off the chain keeps the pose the model states (a .body's joint_displacement,
 * the pose the editor gives the imported body), not 0: Choreonoid would otherwise snap
 * that limb from 30° to 0 when it plays the motion. */
static void
test_off_chain_stated_pose (void)
{
  static const char body[] =
    "format: ChoreonoidBody\n"
    "format_version: 2.0\n"
    "name: branch\n"
    "links:\n"
    "  - { name: base, joint_type: fixed }\n"
    "  - { name: J1, parent: base, joint_type: revolute, joint_axis: Z, joint_id: 0,\n"
    "      joint_range: [ -90, 90 ] }\n"
    "  - { name: TIP, parent: J1, joint_type: fixed, translation: [ 1, 0, 0 ] }\n"
    "  - { name: K1, parent: base, joint_type: revolute, joint_axis: Y, joint_id: 1,\n"
    "      joint_range: [ -90, 90 ], joint_displacement: 30 }\n";
  static const char targets_json[] =
    "[ { \"frame\": 0, \"pos\": [1, 0, 0], \"euler\": [0, 0, 0] },\n"
    "  { \"frame\": 10, \"pos\": [0, 1, 0], \"euler\": [0, 0, 90] } ]\n";
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-solve-XXXXXX");
  g_autofree char *model = g_build_filename (dir, "branch.body", NULL);
  g_autofree char *targets = g_build_filename (dir, "t.json", NULL);
  g_autofree char *out = g_build_filename (dir, "animation.json", NULL);
  g_autoptr(KmAnimation) animation = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(Run) run = { 0, };
  int c;

  g_assert_true (g_file_set_contents (model, body, -1, NULL));
  g_assert_true (g_file_set_contents (targets, targets_json, -1, NULL));
  run_cli (&run, NULL, "solve", model, targets, "--effector", "TIP", "-o", out, NULL);
  g_assert_cmpint (run.status, ==, 0);

  animation = km_animation_json_load_file (out, NULL, &error);
  g_assert_no_error (error);
  c = km_animation_find_channel (animation, "K1");
  g_assert_cmpint (c, >=, 0);
  for (guint f = 0; f < km_animation_get_n_frames (animation); f++)
    g_assert_cmpfloat_with_epsilon (km_animation_get_frame (animation, f)
                                      [km_animation_get_channel (animation, (guint) c)->dof_index],
                                    G_PI / 6, 1e-12);
  g_unlink (out);
  g_unlink (targets);
  g_unlink (model);
  g_rmdir (dir);
}

/* Nothing to move: a model whose joints are all fixed, or an effector whose chain has no
 * DOF, is an error (exit 1), not a "solved" animation with metres of error. */
static void
test_nothing_moves (void)
{
  g_autofree char *fixed = test_data_path ("urdf-fixed-only.urdf");
  g_autofree char *model = test_data_path ("urdf-two-arms.urdf");
  g_autofree char *targets = test_data_path ("targets-two-arms.json");
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-solve-XXXXXX");
  g_autofree char *out = g_build_filename (dir, "animation.json", NULL);

  {
    g_auto(Run) run = { 0, };
    g_autofree char *expected = g_strdup_printf ("%s:1:1: the model has no joint that moves (every "
                                                 "joint is fixed): there is nothing to solve\n",
                                                 fixed);

    run_cli (&run, NULL, "solve", fixed, targets, "-o", out, NULL);
    g_assert_cmpint (run.status, ==, 1);
    g_assert_cmpstr (run.err, ==, expected);
    g_assert_cmpstr (run.out, ==, "");
    g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
  }
  {
    g_auto(Run) run = { 0, };
    g_autofree char *expected = g_strdup_printf ("kinema-cli: --effector base: no joint moves "
                                                 "between that end effector and the root of "
                                                 "%s: choose another one\n", model);

    run_cli (&run, NULL, "solve", model, targets, "--effector", "base", "-o", out, NULL);
    g_assert_cmpint (run.status, ==, 1);
    g_assert_cmpstr (run.err, ==, expected);
    g_assert_cmpstr (run.out, ==, "");
    g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
  }
  g_rmdir (dir);
}

/* Without TARGETS a model's own IK targets are solved (the Scenebuilder arm's tip reaches
 * its <ik> target); a model without any, and without the default targets' effector, is an
 * error rather than the default targets solved for a joint they are not for. */
static void
test_model_targets (void)
{
  g_autofree char *scene = test_data_path ("scenebuilder/arm2_mm_deg.xml");
  g_autofree char *model = test_data_path ("urdf-two-arms.urdf");
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-solve-XXXXXX");
  g_autofree char *out = g_build_filename (dir, "animation.json", NULL);

  {
    g_auto(Run) run = { 0, };
    g_auto(GStrv) lines = NULL;
    double values[5];
    guint frames;

    run_cli (&run, NULL, "solve", scene, "-o", out, NULL);
    g_assert_cmpint (run.status, ==, 0);
    lines = output_lines (run.out);
    g_assert_cmpuint (g_strv_length (lines), ==, 2);   /* one line, then "" */
    parse_summary (lines[0], &frames, values);
    g_assert_cmpuint (frames, ==, 1);
    g_assert_cmpfloat (values[1], <=, 1e-6);   /* max_pos_err: the tip is on the target */
    /* enable_rot="false": the orientation is no goal, so no orientation error either. */
    g_assert_cmpfloat (values[2], ==, 0.0);    /* mean_rot_err */
    g_assert_cmpfloat (values[3], ==, 0.0);    /* max_rot_err */
    g_assert_true (g_file_test (out, G_FILE_TEST_EXISTS));
    g_unlink (out);
  }
  {
    g_auto(Run) run = { 0, };
    g_autofree char *expected = g_strdup_printf ("%s:1:1: the model defines no IK targets and has "
                                                 "no joint “EndEffector” that the default "
                                                 "targets are for: give a targets file (or "
                                                 "--effector NAME)\n", model);

    run_cli (&run, NULL, "solve", model, "-o", out, NULL);
    g_assert_cmpint (run.status, ==, 1);
    g_assert_cmpstr (run.err, ==, expected);
    g_assert_cmpstr (run.out, ==, "");
    g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
  }
  g_rmdir (dir);
}

/* A model with several IK targets: one line each, in the model's order, each ending in
 * target=NAME (a name with a space is the rest of the line). */
static void
test_model_targets_lines (void)
{
  g_autofree char *scene = test_data_path ("scenebuilder/arm2_mm_deg.xml");
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-solve-XXXXXX");
  g_autofree char *two = g_build_filename (dir, "two.xml", NULL);
  g_autofree char *out = g_build_filename (dir, "out", NULL);
  g_autofree char *text = NULL;
  g_autofree char *line = NULL;
  g_autofree char *doubled = NULL;
  g_auto(GStrv) parts = NULL;
  g_auto(GStrv) lines = NULL;
  g_auto(Run) run = { 0, };
  const char *start, *end;

  /* The scene's <ik> twice, the second one renamed. */
  g_assert_true (g_file_get_contents (scene, &text, NULL, NULL));
  start = strstr (text, "  <ik name=\"reach\"");
  g_assert_nonnull (start);
  end = strchr (start, '\n') + 1;
  line = g_strndup (start, end - start);
  parts = g_strsplit (line, "\"reach\"", 2);
  doubled = g_strdup_printf ("%.*s%s%s\"reach two\"%s%s", (int) (start - text), text, line,
                             parts[0], parts[1], end);
  g_assert_true (g_file_set_contents (two, doubled, -1, NULL));

  run_cli (&run, NULL, "solve", two, "-o", out, NULL);
  g_assert_cmpint (run.status, ==, 0);
  lines = output_lines (run.out);
  g_assert_cmpuint (g_strv_length (lines), ==, 3);
  g_assert_true (g_str_has_prefix (lines[0], "frames=1 "));
  g_assert_true (g_str_has_suffix (lines[0], " target=reach"));
  g_assert_true (g_str_has_prefix (lines[1], "frames=1 "));
  /* The space written \x20 (review r2, 1): one field. */
  g_assert_true (g_str_has_suffix (lines[1], " target=reach\\x20two"));
  {
    g_autofree char *a = g_build_filename (out, "reach.animation.json", NULL);
    g_autofree char *b = g_build_filename (out, "reach two.animation.json", NULL);

    g_assert_cmpint (g_unlink (a), ==, 0);
    g_assert_cmpint (g_unlink (b), ==, 0);
  }
  g_rmdir (out);
  g_unlink (two);
  g_rmdir (dir);
}

/* A targets.json for a tool point 0.1 m along the effector's z, position only: the point, not
 * the effector's origin, reaches every target, and no orientation error is reported. */
static void
test_tool_point_targets (void)
{
  g_autoptr(KmSkeleton) skeleton = load_skeleton ();
  g_autofree char *skeleton_path = data_path ("skeleton.json");
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-solve-XXXXXX");
  g_autofree char *targets = g_build_filename (dir, "targets.json", NULL);
  g_autofree char *out = g_build_filename (dir, "animation.json", NULL);
  g_autofree KmTransform *world = g_new (KmTransform, km_skeleton_get_n_joints (skeleton));
  g_autoptr(KmAnimation) animation = NULL;
  g_autoptr(KmTargetTrack) track = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(Run) run = { 0, };
  g_auto(GStrv) lines = NULL;
  int effector = km_skeleton_get_default_effector (skeleton);
  double values[5];
  guint frames;

  g_assert_true (g_file_set_contents (targets,
    "[{\"frame\": 0, \"pos\": [0.3, 0.2, 1.0], \"euler\": [40, 10, 0],\n"
    "  \"effector_offset\": [0, 0, 0.1], \"position_only\": true},\n"
    " {\"frame\": 10, \"pos\": [0.2, 0.3, 0.9], \"euler\": [0, 0, 0]}]\n", -1, &error));
  run_cli (&run, NULL, "solve", skeleton_path, targets, "-o", out, NULL);
  g_assert_cmpint (run.status, ==, 0);
  lines = output_lines (run.out);
  parse_summary (lines[g_strv_length (lines) - 2], &frames, values);
  g_assert_cmpuint (frames, ==, 11);
  g_assert_cmpfloat (values[1], <=, 1e-6);   /* max_pos_err */
  g_assert_cmpfloat (values[3], ==, 0.0);    /* max_rot_err: the orientation is no goal */

  animation = km_animation_json_load_file (out, skeleton, &error);
  g_assert_no_error (error);
  track = km_targets_json_load_file (targets, &error);
  g_assert_no_error (error);
  for (guint f = 0; f < frames; f++)
    {
      KmVec3 target, point;

      km_skeleton_forward_kinematics (skeleton, km_animation_get_frame (animation, f), NULL,
                                      world);
      km_target_track_sample (track, f, &target, NULL);
      point = km_transform_apply (&world[effector], km_vec3 (0, 0, 0.1));
      g_assert_cmpfloat (km_vec3_length (km_vec3_sub (point, target)), <, 1e-5);
    }
  g_unlink (out);
  g_unlink (targets);
  g_rmdir (dir);
}

/* Where the end effector comes from is where its error points: --effector (once, naming
 * the option and the model), the targets file's "effector" value (FILE:LINE:COLUMN), or
 * the embedded default targets (never a "targets.json" the user did not give). */
static void
test_effector_errors (void)
{
  g_autofree char *model = test_data_path ("urdf-two-arms.urdf");
  g_autofree char *targets = test_data_path ("targets-two-arms.json");
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-solve-XXXXXX");
  g_autofree char *unknown = g_build_filename (dir, "unknown.json", NULL);
  g_autofree char *still = g_build_filename (dir, "still.json", NULL);
  g_autofree char *out = g_build_filename (dir, "animation.json", NULL);
  static const char keyframe[] = "[{\"frame\": 0, \"pos\": [0.45, -0.35, 1.2], "
                                 "\"euler\": [0, 0, -30],\n";

  {
    g_autofree char *text = g_strconcat (keyframe, "  \"effector\": \"Nope\"}]\n", NULL);

    g_assert_true (g_file_set_contents (unknown, text, -1, NULL));
    g_free (text);
    text = g_strconcat (keyframe, "  \"effector\": \"base\"}]\n", NULL);
    g_assert_true (g_file_set_contents (still, text, -1, NULL));
  }

  /* The targets file's effector: at its value, lower-case. */
  {
    g_auto(Run) run = { 0, };
    g_autofree char *expected = g_strdup_printf ("%s:2:15: %s has no joint or link “Nope” to "
                                                 "use as the end effector\n", unknown, model);

    run_cli (&run, NULL, "solve", model, unknown, "-o", out, NULL);
    g_assert_cmpint (run.status, ==, 1);
    g_assert_cmpstr (run.err, ==, expected);
    g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
  }
  {
    g_auto(Run) run = { 0, };
    g_autofree char *expected = g_strdup_printf ("%s:2:15: no joint moves between the end "
                                                 "effector “base” and the root of %s: choose "
                                                 "another effector (--effector NAME)\n",
                                                 still, model);

    run_cli (&run, NULL, "solve", model, still, "-o", out, NULL);
    g_assert_cmpint (run.status, ==, 1);
    g_assert_cmpstr (run.err, ==, expected);
    g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
  }

  /* --effector: the option and the model, whichever targets (the default ones here). */
  {
    g_auto(Run) run = { 0, };
    g_autofree char *expected = g_strdup_printf ("kinema-cli: --effector Nope: %s has no "
                                                 "joint or link of that name\n", model);

    run_cli (&run, NULL, "solve", model, targets, "--effector", "Nope", "-o", out, NULL);
    g_assert_cmpint (run.status, ==, 1);
    g_assert_cmpstr (run.err, ==, expected);
    g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
  }
  {
    g_auto(Run) run = { 0, };

    run_cli (&run, NULL, "solve", "--effector", "Nope", "-o", out, NULL);
    g_assert_cmpint (run.status, ==, 1);
    g_assert_cmpstr (run.err, ==, "kinema-cli: --effector Nope: the default skeleton has no "
                                  "joint or link of that name\n");
  }

  /* The embedded default targets are no file called targets.json; an output that cannot
   * be written is said of the output. */
  {
    g_auto(Run) run = { 0, };
    const char *expected = "kinema-cli: /dev/full: ";

    run_cli (&run, NULL, "solve", "-o", "/dev/full", NULL);
    g_assert_cmpint (run.status, ==, 1);
    g_assert_true (g_str_has_prefix (run.err, expected));
    g_assert_null (strstr (run.err, "targets.json"));
  }
  g_unlink (unknown);
  g_unlink (still);
  km_test_remove_tree (dir);
}

/* The targets file's "base" is held to what its "effector" is, at its value: a joint the
 * model has, above the effector, with a joint that moves between the two; else exit 1
 * and nothing written. */
static void
test_base_errors (void)
{
  g_autofree char *model = test_data_path ("urdf-two-arms.urdf");
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-solve-XXXXXX");
  g_autofree char *targets = g_build_filename (dir, "t.json", NULL);
  g_autofree char *out = g_build_filename (dir, "animation.json", NULL);
  static const char keyframe[] = "[{\"frame\": 0, \"pos\": [0.45, -0.35, 1.2], "
                                 "\"euler\": [0, 0, -30], \"effector\": \"r_tool\",\n";
  const struct
  {
    const char *base;
    const char *message;  /* after "FILE:2:11: ", MODEL for the model; NULL: solved */
  } cases[] = {
    { "Nope", "MODEL has no joint or link “Nope” to use as the base" },
    { "l_elbow", "the base “l_elbow” is not above the end effector “r_tool” in MODEL: the base "
                 "is a joint the effector's chain starts from" },
    { "r_elbow", "no joint moves between the end effector “r_tool” and its base “r_elbow” in "
                 "MODEL: choose another effector or base" },
    { "r_shoulder", NULL },
    { "r_upper", NULL },  /* a link's name, as for the effector */
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = g_strdup_printf ("%s  \"base\": \"%s\"}]\n", keyframe,
                                               cases[i].base);
      g_auto(Run) run = { 0, };

      g_assert_true (g_file_set_contents (targets, text, -1, NULL));
      run_cli (&run, NULL, "solve", model, targets, "-o", out, NULL);
      if (cases[i].message == NULL)
        {
          /* Solved; the right arm from its shoulder ends some 13 cm short of the target,
           * which is said as a warning only. */
          g_assert_true (g_str_equal (run.err, "") ||
                         (g_str_has_suffix (run.err, " mm from it\n") &&
                          strstr (run.err, ": warning: 1 of 1 frames misses its target")
                          != NULL && strchr (run.err, '\n')[1] == '\0'));
          g_assert_cmpint (run.status, ==, 0);
          g_assert_true (g_file_test (out, G_FILE_TEST_EXISTS));
          g_unlink (out);
        }
      else
        {
          GString *message = g_string_new (cases[i].message);
          g_autofree char *expected = NULL;

          g_string_replace (message, "MODEL", model, 0);
          expected = g_strdup_printf ("%s:2:11: %s\n", targets, message->str);
          g_string_free (message, TRUE);

          g_assert_cmpstr (run.err, ==, expected);
          g_assert_cmpint (run.status, ==, 1);
          g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
        }
    }

  /* The model's default effector (the last leaf joint) as the base: not above it. */
  {
    g_autofree char *text = g_strdup ("[{\"frame\": 0, \"pos\": [0.45, -0.35, 1.2], "
                                      "\"euler\": [0, 0, -30],\n  \"base\": \"r_tool\"}]\n");
    g_autofree char *expected = NULL;
    g_auto(Run) run = { 0, };

    g_assert_true (g_file_set_contents (targets, text, -1, NULL));
    run_cli (&run, NULL, "solve", model, targets, "-o", out, NULL);
    expected = g_strdup_printf ("%s:2:11: the base “r_tool” is not above the end effector "
                                "“r_tool” in %s: the base is a joint the effector's chain "
                                "starts from\n", targets, model);
    g_assert_cmpstr (run.err, ==, expected);
    g_assert_cmpint (run.status, ==, 1);
    g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
  }
  g_unlink (targets);
  km_test_remove_tree (dir);
}

/* An animation Kinema could not read back (over 256 MiB) is refused before anything is
 * solved, naming the frames, at the last keyframe's "frame" value, which sets the length
 * (FILE:LINE:COLUMN, as every error: rev23-cli finding 2), and an earlier output stays as
 * it was; the least size counted for that stays at or under the size of what is written. */
static void
test_output_too_large (void)
{
  g_autoptr(KmSkeleton) skeleton = load_skeleton ();
  g_autofree char *skeleton_path = data_path ("skeleton.json");
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-solve-XXXXXX");
  g_autofree char *targets = g_build_filename (dir, "long.json", NULL);
  g_autofree char *out = g_build_filename (dir, "animation.json", NULL);
  g_autofree char *seq = g_build_filename (dir, "animation.seq", NULL);
  g_autofree char *expected = NULL;
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  const char *old = "{\"frames\": []}\n";

  g_assert_true (g_file_set_contents (targets,
                                      "[{\"frame\": 0, \"pos\": [0.3, 0.1, 0.2], "
                                      "\"euler\": [0, 0, 0]},\n"
                                      " {\"frame\": 1000000, \"pos\": [0.3, 0.1, 0.3], "
                                      "\"euler\": [0, 0, 0]}]\n", -1, NULL));
  g_assert_true (g_file_set_contents (out, old, -1, NULL));
  {
    g_auto(Run) run = { 0, };

    run_cli (&run, NULL, "solve", skeleton_path, targets, "-o", out, NULL);
    expected = g_strdup_printf ("%s:2:12: an animation of 1000001 frames for this model would be "
                                "larger than Kinema reads back", targets);
    g_assert_true (g_str_has_prefix (run.err, expected));
    g_assert_nonnull (strstr (run.err, "nothing was solved or written\n"));
    g_assert_cmpint (run.status, ==, 1);
    g_assert_cmpstr (run.out, ==, "");
    g_assert_true (g_file_get_contents (out, &text, NULL, NULL));
    g_assert_cmpstr (text, ==, old);
  }

  /* Into a body motion (-o X.seq): a 1000-joint chain's 67000 frames are more numbers and
   * lists than Kinema reads back of one (67670000: 1001 for the joint values and 9 for the
   * root link each frame, counted as the reader counts them), though its bytes (201 MB)
   * and its joint values alone (67000000) are not: refused before the solve (rev21
   * finding 4), said of the targets, naming the motion's frames, and an earlier .seq
   * stays as it was. */
  {
    g_auto(Run) run = { 0, };
    g_autofree char *chain = g_build_filename (dir, "chain.json", NULL);
    g_autofree char *chain_targets = g_build_filename (dir, "chain-targets.json", NULL);
    g_autofree char *seq_expected = g_strdup_printf ("%s:2:12: a body motion of 67000 frames for "
                                                     "this model would be larger than Kinema "
                                                     "reads back", chain_targets);
    g_autoptr(GString) json = g_string_new ("{\"root_name\": \"R\", \"joints\": [{\"name\": "
                                            "\"R\", \"type\": \"fixed\", \"offset\": [0, 0, "
                                            "0]}");
    g_autofree char *seq_text = NULL;
    g_autofree char *seq_old = NULL;
    g_autoptr(KmAnimation) short_animation = km_animation_new (skeleton, 2);
    g_autoptr(KmBodyMotion) motion = NULL;

    for (guint i = 0; i < 1000; i++)
      {
        g_autofree char *parent = i == 0 ? g_strdup ("R") : g_strdup_printf ("J%u", i - 1);

        g_string_append_printf (json, ", {\"name\": \"J%u\", \"type\": \"revolute\", "
                                "\"parent\": \"%s\", \"offset\": [0, 0, 0.01], "
                                "\"axis\": [0, 1, 0], \"limits\": [-3, 3]}", i, parent);
      }
    g_string_append (json, "]}\n");
    g_assert_true (g_file_set_contents (chain, json->str, -1, NULL));
    g_assert_true (g_file_set_contents (chain_targets,
                                        "[{\"frame\": 0, \"pos\": [0, 0, 5], "
                                        "\"euler\": [0, 0, 0], \"effector\": \"J999\"},\n"
                                        " {\"frame\": 66999, \"pos\": [0, 0, 5], "
                                        "\"euler\": [0, 0, 0], \"effector\": \"J999\"}]\n",
                                        -1, NULL));
    /* An earlier body motion, which the command may replace. */
    motion = km_body_motion_new_from_animation (skeleton, short_animation, 30, NULL, &error);
    g_assert_no_error (error);
    g_assert_true (km_body_motion_save (motion, seq, &error));
    g_assert_no_error (error);
    g_assert_true (g_file_get_contents (seq, &seq_old, NULL, NULL));

    run_cli (&run, NULL, "solve", chain, chain_targets, "-o", seq, NULL);
    if (run.status != 1 || !g_str_has_prefix (run.err, seq_expected))
      g_error ("exit %d: “%s”", run.status, run.err);
    g_assert_nonnull (strstr (run.err, "nothing was solved or written\n"));
    g_assert_cmpstr (run.out, ==, "");
    g_assert_true (g_file_get_contents (seq, &seq_text, NULL, NULL));
    g_assert_cmpstr (seq_text, ==, seq_old);
    g_unlink (chain);
    g_unlink (chain_targets);
  }

  /* The count is a least size: a real animation is no smaller, and one that fits passes. */
  g_assert_true (km_animation_json_check_size (skeleton, 1000, &error));
  g_assert_no_error (error);
  g_assert_false (km_animation_json_check_size (skeleton, 1000001, &error));
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT);
  {
    g_autoptr(KmAnimation) animation = km_animation_new (skeleton, 40);
    g_autofree char *written = NULL;
    guint n_dof = km_skeleton_get_n_dof (skeleton);
    guint64 least, per_frame;
    g_autoptr(KmAnimation) one = km_animation_new (skeleton, 1);
    g_autoptr(KmAnimation) two = km_animation_new (skeleton, 2);
    g_autofree char *text_one = km_animation_json_to_string (one);
    g_autofree char *text_two = km_animation_json_to_string (two);

    for (guint f = 0; f < 40; f++)
      {
        g_autofree double *row = g_new (double, MAX (n_dof, 1));

        for (guint d = 0; d < n_dof; d++)
          row[d] = -0.1234567890123 * (f + d + 1);
        km_animation_set_frame (animation, f, row);
      }
    written = km_animation_json_to_string (animation);
    per_frame = strlen (text_two) - strlen (text_one);
    least = strlen (text_one) + 39 * per_frame;
    g_assert_cmpuint (least, <=, strlen (written));
    g_assert_cmpuint (per_frame, >, 0);
  }
  g_unlink (seq);
  g_unlink (out);
  g_unlink (targets);
  km_test_remove_tree (dir);
}

/* A URDF link's name names the joint that moves it (ROS names an end effector by its link:
 * "tool0", not "tool0_fixed_joint"): --effector r_hand solves for the joint r_tool, and so
 * does a targets file whose effector is "r_hand". */
static void
test_effector_link_name (void)
{
  g_autofree char *model = test_data_path ("urdf-two-arms.urdf");
  g_autofree char *targets = test_data_path ("targets-two-arms.json");
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-solve-XXXXXX");
  g_autofree char *by_joint = g_build_filename (dir, "joint.json", NULL);
  g_autofree char *by_link = g_build_filename (dir, "link.json", NULL);
  g_autofree char *by_file = g_build_filename (dir, "file.json", NULL);
  g_autofree char *link_targets = g_build_filename (dir, "link-targets.json", NULL);
  g_autofree char *joint_text = NULL;
  g_autofree char *link_text = NULL;
  g_autofree char *file_text = NULL;
  g_autoptr(GError) error = NULL;

  {
    g_auto(Run) run = { 0, };

    run_cli (&run, NULL, "solve", model, targets, "--effector", "r_tool", "-o", by_joint, NULL);
    g_assert_cmpstr (run.err, ==, "");
    g_assert_cmpint (run.status, ==, 0);
  }
  {
    g_auto(Run) run = { 0, };

    run_cli (&run, NULL, "solve", model, targets, "--effector", "r_hand", "-o", by_link, NULL);
    g_assert_cmpstr (run.err, ==, "");
    g_assert_cmpint (run.status, ==, 0);
  }
  g_assert_true (g_file_get_contents (by_joint, &joint_text, NULL, &error));
  g_assert_true (g_file_get_contents (by_link, &link_text, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (link_text, ==, joint_text);

  g_assert_true (g_file_set_contents (link_targets,
    "[{\"frame\": 0, \"pos\": [0.45, -0.35, 1.2], \"euler\": [0, 0, -30], "
    "\"effector\": \"r_hand\"},\n"
    " {\"frame\": 10, \"pos\": [0.35, -0.5, 1.3], \"euler\": [0, 0, -60]}]\n", -1, NULL));
  {
    g_auto(Run) run = { 0, };

    run_cli (&run, NULL, "solve", model, link_targets, "-o", by_file, NULL);
    g_assert_cmpstr (run.err, ==, "");
    g_assert_cmpint (run.status, ==, 0);
  }
  g_assert_true (g_file_get_contents (by_file, &file_text, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (file_text, ==, joint_text);

  /* --effector naming another joint than the targets' own effector wins, and says so
   * (rev19-cli: it overrode the file's "effector" silently); the same joint by its link's
   * name is no override. */
  {
    g_auto(Run) run = { 0, };

    run_cli (&run, NULL, "solve", model, link_targets, "--effector", "l_elbow", "-o", by_file,
             NULL);
    g_assert_cmpint (run.status, ==, 0);
    g_assert_nonnull (strstr (run.err, "warning: --effector “l_elbow” overrides the "
                                       "targets' end effector “r_hand”"));
    g_assert_true (g_str_has_prefix (run.err, link_targets));
  }
  {
    g_auto(Run) run = { 0, };

    run_cli (&run, NULL, "solve", model, link_targets, "--effector", "r_tool", "-o", by_file,
             NULL);
    g_assert_cmpint (run.status, ==, 0);
    g_assert_cmpstr (run.err, ==, "");
  }

  g_unlink (by_joint);
  g_unlink (by_link);
  g_unlink (by_file);
  g_unlink (link_targets);
  g_rmdir (dir);
}

/* -o never replaces what `solve` reads (the model, a targets file: however the two paths
 * are written, "./NAME" or a symbolic link), nor a file of another kind, by its extension
 * (a model's .urdf or .body) or by what an existing file holds (a skeleton or targets
 * .json, any other file): exit 2 and the file stays as it was. An earlier animation, or
 * an empty file, is replaced. */
static void
test_output_refusals (void)
{
  g_autofree char *dir = km_test_make_tmp_dir ("solve-refuse-XXXXXX");
  g_autofree char *source_skeleton = data_path ("skeleton.json");
  g_autofree char *source_targets = data_path ("targets.json");
  g_autofree char *skeleton = copy_file_to (source_skeleton, dir, "skel.json");
  g_autofree char *targets = copy_file_to (source_targets, dir, "t.json");
  g_autofree char *other_targets = copy_file_to (source_targets, dir, "other.json");
  g_autofree char *same_name = copy_file_to (source_targets, dir, "animation.json");
  g_autofree char *victim = g_build_filename (dir, "victim.urdf", NULL);
  g_autofree char *plain = g_build_filename (dir, "plain.json", NULL);
  g_autofree char *link = g_build_filename (dir, "link.json", NULL);
  g_autofree char *body = g_build_filename (dir, "x.body", NULL);
  g_autofree char *anim = g_build_filename (dir, "anim.json", NULL);
  g_autofree char *skeleton_text = NULL;
  g_autofree char *targets_text = NULL;
  const char *victim_text = "<robot name=\"precious\"><link name=\"base\"/></robot>\n";
  const char *plain_text = "{\"name\": \"not an animation\"}\n";

  g_assert_true (g_file_get_contents (skeleton, &skeleton_text, NULL, NULL));
  g_assert_true (g_file_get_contents (targets, &targets_text, NULL, NULL));
  g_assert_true (g_file_set_contents (victim, victim_text, -1, NULL));
  g_assert_true (g_file_set_contents (plain, plain_text, -1, NULL));
  g_assert_cmpint (symlink ("skel.json", link), ==, 0);

  {
    /* The inputs themselves, however named (run in @dir for the relative names). */
    const char *cases[][3] = {
      { "skel.json", "t.json", "skel.json" },
      { "skel.json", "t.json", "t.json" },
      { "./skel.json", "t.json", "skel.json" },
      { "skel.json", "t.json", "./t.json" },
      { "skel.json", "t.json", "link.json" },
    };

    for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
      {
        g_auto(Run) run = { 0, };
        const char *text = strstr (cases[i][2], "t.json") ? targets_text : skeleton_text;
        g_autofree char *output = g_build_filename (dir, cases[i][2], NULL);

        run_cli (&run, dir, "solve", cases[i][0], cases[i][1], "-o", cases[i][2], NULL);
        assert_output_refused (&run, output, text);
        g_assert_nonnull (strstr (run.err, "is the input file"));
      }
  }
  {
    /* The default output name, animation.json, is the targets file. */
    g_auto(Run) run = { 0, };

    run_cli (&run, dir, "solve", "skel.json", "animation.json", NULL);
    assert_output_refused (&run, same_name, targets_text);
  }
  {
    /* Extensions of models: nothing is written, an existing model is kept. */
    g_auto(Run) urdf = { 0, };
    g_auto(Run) new_body = { 0, };

    run_cli (&urdf, NULL, "solve", skeleton, targets, "-o", victim, NULL);
    assert_output_refused (&urdf, victim, victim_text);
    g_assert_nonnull (strstr (urdf.err, "“.urdf” is for models"));
    run_cli (&new_body, NULL, "solve", "--to", "CHOREONOID-BODY-MOTION", skeleton, targets,
             "-o", body, NULL);
    assert_output_refused (&new_body, body, NULL);
  }
  {
    /* Existing .json files that are no animation. */
    g_autofree char *expected = g_strdup_printf ("kinema-cli: %s: the file exists and is an "
                                                 "IK targets file", other_targets);
    g_auto(Run) run = { 0, };
    g_auto(Run) run_plain = { 0, };

    run_cli (&run, NULL, "solve", skeleton, targets, "-o", other_targets, NULL);
    assert_output_refused (&run, other_targets, targets_text);
    g_assert_true (g_str_has_prefix (run.err, expected));
    run_cli (&run_plain, NULL, "solve", skeleton, targets, "-o", plain, NULL);
    assert_output_refused (&run_plain, plain, plain_text);
  }
  {
    /* An empty file (`mktemp`'s) holds nothing to lose: it is written. */
    g_autoptr(KmSkeleton) model = load_skeleton ();
    g_autoptr(KmAnimation) animation = NULL;
    g_autoptr(GError) error = NULL;
    g_auto(Run) run = { 0, };

    g_assert_true (g_file_set_contents (anim, "", 0, NULL));
    run_cli (&run, NULL, "solve", skeleton, targets, "-o", anim, NULL);
    g_assert_cmpstr (run.err, ==, "");
    g_assert_cmpint (run.status, ==, 0);
    animation = km_animation_json_load_file (anim, model, &error);
    g_assert_no_error (error);
  }
  {
    /* An earlier animation is replaced. */
    g_auto(Run) first = { 0, };
    g_auto(Run) again = { 0, };

    run_cli (&first, NULL, "solve", skeleton, targets, "-o", anim, NULL);
    g_assert_cmpint (first.status, ==, 0);
    run_cli (&again, NULL, "solve", skeleton, targets, "-o", anim, NULL);
    g_assert_cmpstr (again.err, ==, "");
    g_assert_cmpint (again.status, ==, 0);
  }

  g_unlink (anim);
  g_unlink (link);
  g_unlink (plain);
  g_unlink (victim);
  g_unlink (same_name);
  g_unlink (other_targets);
  g_unlink (targets);
  g_unlink (skeleton);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

/* A batch that is refused creates nothing, not even its output directory; one whose
 * output directory holds a targets file where an animation would go is refused whole. */
static void
test_batch_refused (void)
{
  g_autofree char *skeleton_path = data_path ("skeleton.json");
  g_autofree char *dir = km_test_make_tmp_dir ("batch-refuse-XXXXXX");
  g_autofree char *sub_a = g_build_filename (dir, "a", NULL);
  g_autofree char *sub_c = g_build_filename (dir, "c", NULL);
  g_autofree char *out_dir = g_build_filename (dir, "newout", NULL);
  g_autofree char *a = NULL;
  g_autofree char *c = NULL;
  g_autofree char *b = NULL;
  g_autofree char *taken = NULL;
  g_autofree char *b_out = NULL;
  g_autofree char *taken_text = NULL;

  g_assert_cmpint (g_mkdir (sub_a, 0777), ==, 0);
  g_assert_cmpint (g_mkdir (sub_c, 0777), ==, 0);
  a = write_targets (sub_a, "t.json", 2);
  c = write_targets (sub_c, "t.json", 2);
  {
    g_auto(Run) run = { 0, };

    run_cli (&run, NULL, "solve", skeleton_path, a, c, "-o", out_dir, NULL);
    g_assert_cmpint (run.status, ==, 2);
    g_assert_nonnull (strstr (run.err, "would both be written"));
    g_assert_false (g_file_test (out_dir, G_FILE_TEST_EXISTS));
  }

  /* out/t.animation.json holds targets: neither file is solved into out/. */
  g_assert_cmpint (g_mkdir (out_dir, 0777), ==, 0);
  b = write_targets (dir, "b.json", 2);
  taken = write_targets (out_dir, "t.animation.json", 2);
  b_out = g_build_filename (out_dir, "b.animation.json", NULL);
  g_assert_true (g_file_get_contents (taken, &taken_text, NULL, NULL));
  {
    g_auto(Run) run = { 0, };

    run_cli (&run, NULL, "solve", skeleton_path, b, a, "-o", out_dir, NULL);
    assert_output_refused (&run, taken, taken_text);
    g_assert_false (g_file_test (b_out, G_FILE_TEST_EXISTS));
  }

  g_unlink (taken);
  g_unlink (b);
  g_unlink (a);
  g_unlink (c);
  g_rmdir (out_dir);
  g_rmdir (sub_a);
  g_rmdir (sub_c);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

/* rev16-cli 5–8: several animations are never written into a folder named like a file
 * (out.json, x.seq), which used to be made; "-" and /dev/stdout write the animation to
 * standard output (a pipe here: it used to fail with "No such file or directory"), the
 * summary line then on stderr; the one output file's missing folder is made before the
 * solve (it used to fail after it); a project given for the model is refused where it
 * starts, before it is loaded; --effector's errors start "kinema-cli: ". */
static void
test_output_places (void)
{
  g_autofree char *skeleton_path = data_path ("skeleton.json");
  g_autofree char *project = test_data_path ("cnoid-styles/model-formats.cnoid");
  g_autofree char *dir = km_test_make_tmp_dir ("output-places-XXXXXX");
  g_autofree char *a = write_targets (dir, "a.json", 3);
  g_autofree char *b = write_targets (dir, "b.json", 3);
  g_autofree char *out_json = g_build_filename (dir, "out.json", NULL);
  g_autofree char *out_seq = g_build_filename (dir, "x.SEQ", NULL);
  g_autofree char *nested = g_build_filename (dir, "nd", "sub", "a.json", NULL);
  g_autofree char *out_dir = g_build_filename (dir, "some.json", NULL);
  g_autoptr(KmSkeleton) skeleton = load_skeleton ();
  const char *outputs[] = { out_json, out_seq, "-" };

  for (guint i = 0; i < G_N_ELEMENTS (outputs); i++)
    {
      g_auto(Run) run = { 0, };

      run_cli (&run, NULL, "solve", skeleton_path, a, b, "-o", outputs[i], NULL);
      g_assert_cmpint (run.status, ==, 2);
      g_assert_true (g_str_has_prefix (run.err, "kinema-cli: "));
      g_assert_nonnull (strstr (run.err, "several animations need a directory"));
      g_assert_cmpstr (run.out, ==, "");
      g_assert_false (g_file_test (outputs[i], G_FILE_TEST_EXISTS));
    }
  /* An existing directory is one, whatever its name. */
  g_assert_cmpint (g_mkdir (out_dir, 0777), ==, 0);
  {
    g_auto(Run) run = { 0, };
    g_autofree char *written = g_build_filename (out_dir, "b.animation.json", NULL);

    run_cli (&run, NULL, "solve", skeleton_path, a, b, "-o", out_dir, NULL);
    g_assert_cmpstr (run.err, ==, "");
    g_assert_cmpint (run.status, ==, 0);
    g_assert_true (g_file_test (written, G_FILE_TEST_IS_REGULAR));
  }

  /* Standard output, by either name: the animation alone, the summary on stderr. */
  for (guint i = 0; i < 2; i++)
    {
      g_auto(Run) run = { 0, };
      g_autoptr(GError) error = NULL;
      g_autoptr(KmAnimation) animation = NULL;
      g_autofree char *summary = NULL;
      guint frames;
      double values[5];
      g_autoptr(GBytes) bytes = NULL;

      run_cli (&run, NULL, "solve", skeleton_path, a, "-o", i == 0 ? "-" : "/dev/stdout",
               NULL);
      g_assert_cmpint (run.status, ==, 0);
      bytes = g_bytes_new (run.out, strlen (run.out));
      animation = km_animation_json_load ("stdout", bytes, skeleton, &error);
      g_assert_no_error (error);
      g_assert_true (g_str_has_suffix (run.err, "\n"));
      summary = g_strndup (run.err, strlen (run.err) - 1);
      parse_summary (summary, &frames, values);
      g_assert_cmpuint (km_animation_get_n_frames (animation), ==, frames);
    }

  /* A missing folder of the one output file is made first, as a directory's is. */
  {
    g_auto(Run) run = { 0, };

    run_cli (&run, NULL, "solve", skeleton_path, a, "-o", nested, NULL);
    g_assert_cmpstr (run.err, ==, "");
    g_assert_cmpint (run.status, ==, 0);
    g_assert_true (g_file_test (nested, G_FILE_TEST_IS_REGULAR));
  }

  /* A project for the model: located, and nothing of it loaded (no warnings). */
  {
    g_auto(Run) run = { 0, };
    g_autofree char *expected = g_strdup_printf ("%s:1:1: expected a skeleton or model file, "
                                                 "found ", project);

    run_cli (&run, NULL, "solve", project, a, "-o", out_json, NULL);
    g_assert_cmpint (run.status, ==, 1);
    g_assert_true (g_str_has_prefix (run.err, expected));
    g_assert_cmpstr (strchr (run.err, '\n'), ==, "\n");   /* one line */
    g_assert_false (g_file_test (out_json, G_FILE_TEST_EXISTS));
  }
  km_test_remove_tree (dir);
}

/* The value of @joint's DOF in frame @f of the animation at @path. */
static double
animation_value (const char *path,
                 guint       f,
                 const char *joint)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(KmAnimation) animation = km_animation_json_load_file (path, NULL, &error);
  int c;

  g_assert_no_error (error);
  c = km_animation_find_channel (animation, joint);
  g_assert_cmpint (c, >=, 0);
  return km_animation_get_frame (animation, f)[km_animation_get_channel (animation, (guint) c)->dof_index];
}

/* A follower on the effector's path whose master is on another branch moves: the master is
 * solved for. The rack slides, driven by its pinion (rack = 0.02 · pinion + 0.01, the belt's
 * idler = −0.5 · pinion + 0.25 following), and a parallel gripper's right finger, mirroring
 * the left one, reaches the pose of finger_joint = 0.5. Both used to keep the seed. */
static void
test_mimic_master_off_path (void)
{
  static const char gripper[] =
    "<?xml version=\"1.0\"?>\n"
    "<robot name=\"gripper2\">\n"
    "  <link name=\"palm\"/><link name=\"left_finger\"/><link name=\"right_finger\"/>\n"
    "  <link name=\"right_tip\"/>\n"
    "  <joint name=\"finger_joint\" type=\"revolute\">\n"
    "    <parent link=\"palm\"/><child link=\"left_finger\"/><origin xyz=\"0 0.05 0\"/>\n"
    "    <axis xyz=\"1 0 0\"/><limit lower=\"-1\" upper=\"1\" effort=\"5\" velocity=\"2\"/>\n"
    "  </joint>\n"
    "  <joint name=\"right_finger_joint\" type=\"revolute\">\n"
    "    <parent link=\"palm\"/><child link=\"right_finger\"/><origin xyz=\"0 -0.05 0\"/>\n"
    "    <axis xyz=\"1 0 0\"/><limit lower=\"-1\" upper=\"1\" effort=\"5\" velocity=\"2\"/>\n"
    "    <mimic joint=\"finger_joint\" multiplier=\"-1\"/>\n"
    "  </joint>\n"
    "  <joint name=\"right_tip_joint\" type=\"fixed\">\n"
    "    <parent link=\"right_finger\"/><child link=\"right_tip\"/><origin xyz=\"0 0 0.1\"/>\n"
    "  </joint>\n"
    "</robot>\n";
  g_autofree char *scene = test_data_path ("scenebuilder/slider_gear.xml");
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-solve-XXXXXX");
  g_autofree char *rack_targets = g_build_filename (dir, "rack.json", NULL);
  g_autofree char *urdf = g_build_filename (dir, "gripper.urdf", NULL);
  g_autofree char *finger_targets = g_build_filename (dir, "finger.json", NULL);
  g_autofree char *out = g_build_filename (dir, "animation.json", NULL);
  g_autoptr(GError) error = NULL;
  double values[5];
  guint frames;

  g_assert_true (g_file_set_contents (rack_targets,
    "[{\"frame\": 0, \"pos\": [0.03, -0.02, 0.03], \"euler\": [0, 0, 0]}]\n", -1, &error));
  g_assert_no_error (error);
  {
    g_auto(Run) run = { 0, };
    g_auto(GStrv) lines = NULL;

    run_cli (&run, NULL, "solve", "--effector", "rack_joint", scene, rack_targets, "-o", out,
             NULL);
    g_assert_cmpstr (run.err, ==, "");
    g_assert_cmpint (run.status, ==, 0);
    lines = output_lines (run.out);
    parse_summary (lines[0], &frames, values);
    g_assert_cmpuint (frames, ==, 1);
    g_assert_cmpfloat (values[1], <=, 1e-6);   /* max_pos_err */
    g_assert_cmpfloat (fabs (animation_value (out, 0, "pinion_joint") - 1.0), <=, 1e-4);
    g_assert_cmpfloat (fabs (animation_value (out, 0, "rack_joint") - 0.03), <=, 1e-6);
    g_assert_cmpfloat (fabs (animation_value (out, 0, "idler_joint") + 0.25), <=, 1e-4);
  }

  /* The forward kinematics of finger_joint = 0.5 (right_finger_joint = −0.5): the right tip
   * at (0, −0.05 + 0.1 sin 0.5, 0.1 cos 0.5), turned −0.5 rad about x. */
  g_assert_true (g_file_set_contents (urdf, gripper, -1, &error));
  g_assert_no_error (error);
  {
    g_autofree char *text = g_strdup_printf (
      "[{\"frame\": 0, \"pos\": [0, %.17g, %.17g], \"euler\": [%.17g, 0, 0], "
      "\"effector\": \"right_tip\"}]\n",
      -0.05 + 0.1 * sin (0.5), 0.1 * cos (0.5), -0.5 * 180 / G_PI);
    g_auto(Run) run = { 0, };
    g_auto(GStrv) lines = NULL;

    g_assert_true (g_file_set_contents (finger_targets, text, -1, &error));
    g_assert_no_error (error);
    run_cli (&run, NULL, "solve", urdf, finger_targets, "-o", out, NULL);
    g_assert_cmpstr (run.err, ==, "");
    g_assert_cmpint (run.status, ==, 0);
    lines = output_lines (run.out);
    parse_summary (lines[0], &frames, values);
    g_assert_cmpfloat (values[1], <=, 1e-6);   /* max_pos_err */
    g_assert_cmpfloat (values[3], <=, 1e-6);   /* max_rot_err */
    g_assert_cmpfloat (fabs (animation_value (out, 0, "finger_joint") - 0.5), <=, 1e-6);
    g_assert_cmpfloat (animation_value (out, 0, "right_finger_joint"), ==,
                       -animation_value (out, 0, "finger_joint"));
  }
  g_unlink (out);
  g_unlink (rack_targets);
  g_unlink (finger_targets);
  g_unlink (urdf);
  g_rmdir (dir);
}

/* A targets file's name in its targets= value and in the location of its message is the
 * same text, escaped C-style where it holds a control character or a backslash (README,
 * kinema-cli), so that a script can match them up; the model's name in messages too. */
static void
test_escaped_names (void)
{
  g_autofree char *source = data_path ("skeleton.json");
  g_autofree char *dir = km_test_make_tmp_dir ("solve-names-XXXXXX");
  g_autofree char *out_dir = g_build_filename (dir, "out", NULL);
  g_autofree char *model = g_build_filename (dir, "s\\k.json", NULL);
  g_autofree char *bad = g_build_filename (dir, "a\tb.json", NULL);
  g_autofree char *good = write_targets (dir, "c\\d.json", 2);
  g_autofree char *good_out = g_build_filename (out_dir, "c\\d.animation.json", NULL);
  g_autofree char *contents = NULL;
  g_autofree char *shown_bad = g_strdup_printf ("%s/a\\tb.json", dir);
  g_autofree char *expected_err = NULL;
  g_autofree char *failed = NULL;
  g_auto(GStrv) lines = NULL;
  g_auto(Run) run = { 0, };
  gsize length;

  g_assert_true (g_file_get_contents (source, &contents, &length, NULL));
  g_assert_true (g_file_set_contents (model, contents, (gssize) length, NULL));
  g_assert_true (g_file_set_contents (bad, "[{\"frame\": 0, \"pos\": [0, 0, 0], \"euler\": [0, 0, 0],\n"
                                           "  \"effector\": \"Nope\"}]\n", -1, NULL));
  run_cli (&run, NULL, "solve", model, bad, good, "-o", out_dir, NULL);
  g_assert_cmpint (run.status, ==, 1);
  expected_err = g_strdup_printf ("%s:2:15: %s/s\\\\k.json has no joint or link “Nope” to use "
                                  "as the end effector\n", shown_bad, dir);
  g_assert_cmpstr (run.err, ==, expected_err);
  lines = g_strsplit (run.out, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 3);
  failed = g_strconcat ("error=1 targets=", shown_bad, NULL);
  g_assert_cmpstr (lines[0], ==, failed);
  g_assert_true (g_str_has_suffix (lines[1], "\\\\d.json"));
  g_assert_true (g_file_test (good_out, G_FILE_TEST_EXISTS));

  g_unlink (good_out);
  g_rmdir (out_dir);
  g_unlink (good);
  g_unlink (bad);
  g_unlink (model);
  g_rmdir (dir);
}

/* --to names its format in any case, as --format does: the same matching function. */
static void
test_to_any_case (void)
{
  g_autofree char *skeleton_path = data_path ("skeleton.json");
  g_autofree char *targets = data_path ("targets.json");
  g_autofree char *dir = km_test_make_tmp_dir ("solve-to-case-XXXXXX");
  g_autofree char *motion = g_build_filename (dir, "motion", NULL);
  g_autofree char *seq = g_build_filename (dir, "x.seq", NULL);
  g_autofree char *text = NULL;
  g_auto(Run) run = { 0, };
  g_auto(Run) refused = { 0, };

  run_cli (&run, NULL, "solve", "--to", "choreonoid-body-motion", skeleton_path, targets, "-o",
           motion, NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_true (g_file_get_contents (motion, &text, NULL, NULL));
  g_assert_true (g_str_has_prefix (text, "type: CompositeSeq\ncontent: BodyMotion\n"));

  /* The name is matched, then the format is the one it names. */
  run_cli (&refused, NULL, "solve", "--to", "Kinema-Animation-Json", skeleton_path, targets,
           "-o", seq, NULL);
  g_assert_cmpint (refused.status, ==, 2);
  g_assert_nonnull (strstr (refused.err, "is for CHOREONOID-BODY-MOTION, but --to asks for "
                                         "Kinema-Animation-Json"));
  g_assert_false (g_file_test (seq, G_FILE_TEST_EXISTS));

  g_unlink (motion);
  g_rmdir (dir);
}

/* A 3-joint arm whose wrist (j3, continuous) meets frame 300's orientation only on the
 * mirror branch of the one frame 0 starts on: the motion, continuous, reaches it 180° off,
 * and `solve` says so at that keyframe's "frame" value, as a loader warns (exit 0, the
 * summary line as ever); nothing of frame 0, which it meets. */
static void
test_missed_keys (void)
{
  g_autofree char *dir = km_test_make_tmp_dir ("solve-missed-XXXXXX");
  g_autofree char *model = g_build_filename (dir, "arm.urdf", NULL);
  g_autofree char *targets = g_build_filename (dir, "arm_targets.json", NULL);
  g_autofree char *output = g_build_filename (dir, "q.json", NULL);
  g_autofree char *at_300 = g_strdup_printf ("%s:3:13: warning: keyframe at frame 300 can be "
                                             "met, but the motion reaches it 180", targets);
  g_autofree char *at_0 = g_strdup_printf ("%s:2:", targets);
  g_auto(GStrv) lines = NULL;
  g_auto(Run) run = { 0, };
  double values[5];
  guint frames;

  g_assert_true (g_file_set_contents (model,
    "<?xml version=\"1.0\"?>\n"
    "<robot name=\"arm\">\n"
    "  <link name=\"base\"><visual><geometry><box size=\"0.1 0.1 0.1\"/></geometry></visual></link>\n"
    "  <link name=\"l1\"><visual><origin xyz=\"0 0 0.15\"/><geometry><cylinder radius=\"0.03\" "
    "length=\"0.3\"/></geometry></visual></link>\n"
    "  <link name=\"l2\"><visual><origin xyz=\"0 0 0.15\"/><geometry><cylinder radius=\"0.02\" "
    "length=\"0.3\"/></geometry></visual></link>\n"
    "  <link name=\"tip\"/>\n"
    "  <joint name=\"j1\" type=\"revolute\"><parent link=\"base\"/><child link=\"l1\"/><origin "
    "xyz=\"0 0 0.05\"/><axis xyz=\"0 0 1\"/><limit lower=\"-3\" upper=\"3\" effort=\"5\" "
    "velocity=\"2\"/></joint>\n"
    "  <joint name=\"j2\" type=\"revolute\"><parent link=\"l1\"/><child link=\"l2\"/><origin "
    "xyz=\"0 0 0.3\"/><axis xyz=\"0 1 0\"/><limit lower=\"-2\" upper=\"2\" effort=\"5\" "
    "velocity=\"2\"/></joint>\n"
    "  <joint name=\"j3\" type=\"continuous\"><parent link=\"l2\"/><child link=\"tip\"/><origin "
    "xyz=\"0 0 0.3\"/><axis xyz=\"0 1 0\"/></joint>\n"
    "</robot>\n", -1, NULL));
  g_assert_true (g_file_set_contents (targets,
    "[\n"
    " { \"frame\": 0, \"pos\": [ 0.18371173070873834, 0.1060660171779821, 0.5621320343559643 ], "
    "\"euler\": [ -26.56505117707798, 37.76124390703503, 39.231520483592256 ] },\n"
    " { \"frame\": 300, \"pos\": [ -1.5908628580873602e-17, 0.25980762113533157, 0.5 ], "
    "\"euler\": [ -59.99999999999999, -3.1805546814635168e-15, -89.99999999999999 ] }\n"
    "]\n", -1, NULL));

  run_cli (&run, NULL, "solve", model, targets, "--effector", "j3", "-o", output, NULL);
  g_assert_cmpint (run.status, ==, 0);
  if (!g_str_has_prefix (run.err, at_300) || strstr (run.err, "° off (position ") == NULL)
    g_error ("“%s”", run.err);
  /* One warning, one line; none for frame 0. The frames in between, on the branch it
   * keeps, miss their interpolated positions: said after it, of the file. */
  {
    const char *next = strchr (run.err, '\n') + 1;
    g_autofree char *unreached = g_strdup_printf ("%s: warning: 299 of 301 frames miss their "
                                                  "targets (out of reach?)", targets);

    if (*next != '\0')
      {
        g_assert_true (g_str_has_prefix (next, unreached));
        g_assert_cmpuint (strlen (strchr (next, '\n')), ==, 1);
      }
  }
  g_assert_null (strstr (run.err, at_0));
  lines = output_lines (run.out);
  g_assert_cmpuint (g_strv_length (lines), ==, 2);
  parse_summary (lines[0], &frames, values);
  g_assert_cmpuint (frames, ==, 301);

  g_unlink (output);
  g_unlink (targets);
  g_unlink (model);
  g_rmdir (dir);
}

/* A UR5 as a .body model stated at its wrist singularity (wrist_2 = 0, the elbow at 45°),
 * the pose `solve` seeds from. */
static const char ur5_body[] =
  "format: ChoreonoidBody\n"
  "format_version: 2.0\n"
  "name: ur5\n"
  "links:\n"
  "  - { name: base_link, joint_type: fixed }\n"
  "  - { name: shoulder_pan, parent: base_link, joint_type: revolute, joint_axis: [ 0, 0, 1 ],\n"
  "      joint_id: 0, joint_range: [ -360, 360 ] }\n"
  "  - { name: shoulder_lift, parent: shoulder_pan, translation: [ 0, 0, 0.089159 ],\n"
  "      joint_type: revolute, joint_axis: [ 0, -1, 0 ], joint_id: 1, joint_range: [ -360, 360 ] }\n"
  "  - { name: elbow, parent: shoulder_lift, translation: [ -0.425, 0, 0 ], joint_type: revolute,\n"
  "      joint_axis: [ 0, -1, 0 ], joint_id: 2, joint_range: [ -360, 360 ], joint_displacement: 45 }\n"
  "  - { name: wrist_1, parent: elbow, translation: [ -0.39225, 0, 0 ], joint_type: revolute,\n"
  "      joint_axis: [ 0, -1, 0 ], joint_id: 3, joint_range: [ -360, 360 ] }\n"
  "  - { name: wrist_2, parent: wrist_1, translation: [ 0, -0.10915, 0 ], joint_type: revolute,\n"
  "      joint_axis: [ 0, 0, -1 ], joint_id: 4, joint_range: [ -360, 360 ] }\n"
  "  - { name: wrist_3, parent: wrist_2, translation: [ 0, 0, -0.09465 ], joint_type: revolute,\n"
  "      joint_axis: [ 0, -1, 0 ], joint_id: 5, joint_range: [ -360, 360 ] }\n"
  "  - { name: tool0, parent: wrist_3, translation: [ 0, -0.0823, 0 ], joint_type: fixed }\n";

/* A reviewer exported a UR5 motion whose step from frame 0 to 1 was 0.33 rad (9.5 rad/s
 * at 30 fps), every other step at most 0.017 rad, with no word of it: keyed at frame 0
 * with the pose the model states (kept exactly) and at frame 60 a little further on, the
 * wrist has to turn at frame 1. `solve` warns, at the targets file, that the motion jumps
 * there and how far; the exit status stays 0 and the stats line is unchanged. */
static void
test_jump_warning (void)
{
  g_autofree char *dir = km_test_make_tmp_dir ("solve-jump-XXXXXX");
  g_autofree char *model = g_build_filename (dir, "ur5.body", NULL);
  g_autofree char *targets = g_build_filename (dir, "wrist.json", NULL);
  g_autofree char *output = g_build_filename (dir, "q.json", NULL);
  g_autofree char *prefix = g_strdup_printf ("%s: warning: the motion jumps at frame 1 (",
                                             targets);
  g_autofree double *pose = NULL;
  g_autofree KmTransform *world = NULL;
  g_autoptr(KmSkeleton) skeleton = NULL;
  g_autoptr(KmTargetTrack) track = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) lines = NULL;
  g_auto(Run) run = { 0, };
  KmBodyOptions options = { FALSE };
  KmTargetKeyframe keys[2] = { { 0 }, { 60 } };
  KmTransform identity;
  const char *warning;
  double step = 0.0, values[5];
  guint frames;
  int effector;

  g_assert_true (g_file_set_contents (model, ur5_body, -1, NULL));
  skeleton = km_body_load_with_pose (model, ur5_body, strlen (ur5_body), &options, &pose,
                                     &error);
  g_assert_no_error (error);
  effector = km_skeleton_find_joint (skeleton, "tool0");
  g_assert_cmpint (effector, >=, 0);
  g_assert_cmpfloat_with_epsilon (pose[2], G_PI / 4, 1e-12);
  world = g_new (KmTransform, km_skeleton_get_n_joints (skeleton));
  km_transform_identity (&identity);
  for (guint k = 0; k < 2; k++)
    {
      if (k == 1)
        for (guint d = 0; d < 6; d++)
          pose[d] += 5 * G_PI / 180;
      km_skeleton_forward_kinematics (skeleton, pose, &identity, world);
      keys[k].position = world[effector].pos;
      keys[k].orientation = km_mat3_to_quat (&world[effector].rot);
    }
  track = km_target_track_new (keys, 2, "tool0", 30.0, &error);
  g_assert_no_error (error);
  g_assert_true (km_targets_json_save (track, targets, &error));
  g_assert_no_error (error);

  run_cli (&run, NULL, "solve", model, targets, "-o", output, NULL);
  g_test_message ("%s", run.err);
  g_assert_cmpint (run.status, ==, 0);
  warning = strstr (run.err, prefix);
  if (warning == NULL
      || sscanf (warning + strlen (prefix), "%lf rad in one frame", &step) != 1)
    g_error ("“%s”", run.err);
  g_assert_cmpfloat (step, >=, 0.1);
  g_assert_cmpfloat (step, <, 0.5);
  /* That frame alone. */
  g_assert_null (strstr (warning + strlen (prefix), "the motion jumps at frame"));
  lines = output_lines (run.out);
  g_assert_cmpuint (g_strv_length (lines), ==, 2);
  parse_summary (lines[0], &frames, values);
  g_assert_cmpuint (frames, ==, 61);

  g_unlink (output);
  g_unlink (targets);
  g_unlink (model);
  g_rmdir (dir);
}

/* Keyframes the motion misses beyond the check's bound are counted in a note, not left
 * unsaid: here a hundred orientations the example's five DOFs cannot take, each of which
 * would cost a whole solve to rule out. */
static void
test_unchecked_keys_note (void)
{
  g_autofree char *skeleton = data_path ("skeleton.json");
  g_autofree char *dir = km_test_make_tmp_dir ("solve-unchecked-XXXXXX");
  g_autofree char *targets = g_build_filename (dir, "many.json", NULL);
  g_autofree char *output = g_build_filename (dir, "q.json", NULL);
  g_autofree char *prefix = g_strdup_printf ("%s: note: ", targets);
  g_autoptr(GString) text = g_string_new ("[\n");
  g_auto(Run) run = { 0, };
  const char *note;
  guint n_unchecked = 0;

  for (guint k = 0; k < 100; k++)
    g_string_append_printf (text, "%s{\"frame\": %u, \"pos\": [%.3f, 0.5, 0.4], "
                            "\"euler\": [%u, %u, %u]}\n", k > 0 ? "," : "", 2 * k,
                            0.3 + 0.002 * k, (k * 37) % 360, (k * 53) % 180, (k * 71) % 360);
  g_string_append (text, "]\n");
  g_assert_true (g_file_set_contents (targets, text->str, -1, NULL));

  run_cli (&run, NULL, "solve", skeleton, targets, "-o", output, NULL);
  g_assert_cmpint (run.status, ==, 0);
  note = strstr (run.err, prefix);
  if (note == NULL || sscanf (note + strlen (prefix), "%u keyframes the motion misses were not "
                              "checked", &n_unchecked) != 1)
    g_error ("“%s”", run.err);
  g_assert_cmpuint (n_unchecked, >, 0);
  g_assert_cmpuint (n_unchecked, <, 100);

  g_unlink (output);
  g_unlink (targets);
  g_rmdir (dir);
}

/* What became of a body handler the model names is said of the model, where the model
 * names it, "MODEL:LINE:COLUMN: handler NAME: failed: …" (DESIGN.md's error locations), as a
 * loader's message names its file (it had no file at all, then only "MODEL: "). */
static void
test_handler_report_prefix (void)
{
  g_autofree char *targets = data_path ("targets.json");
  g_autofree char *dir = km_test_make_tmp_dir ("solve-handler-XXXXXX");
  g_autofree char *module = g_build_filename (dir, "Evil.so", NULL);
  g_autofree char *model = g_build_filename (dir, "evil.json", NULL);
  g_autofree char *output = g_build_filename (dir, "evil.animation.json", NULL);
  g_autofree char *expected = g_strdup_printf ("%s:1:38: handler Evil: failed: ", model);
  g_auto(Run) run = { 0, };

  g_assert_true (g_file_set_contents (module, "int x;\n", -1, NULL));
  g_assert_true (g_file_set_contents (model, "{\"root_name\": \"r\", \"body_handlers\": [\"Evil\"], "
                                             "\"joints\": [{\"name\": \"r\", \"type\": \"fixed\", "
                                             "\"offset\": [0, 0, 0]}, {\"name\": \"EndEffector\", "
                                             "\"type\": \"revolute\", \"parent\": \"r\", "
                                             "\"offset\": [0, 0, 1], \"axis\": [1, 0, 0]}]}\n",
                                     -1, NULL));
  run_cli (&run, NULL, "solve", "--handler-dir", dir, model, targets, "-o", output, NULL);
  g_assert_cmpint (run.status, ==, 0);
  if (!g_str_has_prefix (run.err, expected))
    g_error ("“%s”", run.err);

  g_unlink (output);
  g_unlink (model);
  g_unlink (module);
  g_rmdir (dir);
}

/* An output that is a named pipe with no reader: `solve -o FIFO` and the batch mode's
 * DIR/NAME.animation.json waited for one for ever (rev21 finding 1); now each waits as
 * long as an input pipe's writer is waited for, then is refused, exit 1. Both run at once. */
static void
test_output_fifo (void)
{
  g_autofree char *skeleton_path = data_path ("skeleton.json");
  g_autofree char *targets_path = data_path ("targets.json");
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-solve-XXXXXX");
  g_autofree char *batch = g_build_filename (dir, "batch", NULL);
  g_autofree char *fifo = g_build_filename (dir, "single.json", NULL);
  g_autofree char *other = g_build_filename (dir, "walk.json", NULL);
  g_autofree char *batch_fifo = g_build_filename (batch, "targets.animation.json", NULL);
  g_autofree char *batch_other = g_build_filename (batch, "walk.animation.json", NULL);
  const char *cli = g_getenv ("KINEMA_CLI");
  GSubprocess *processes[2];
  const char *fifos[2] = { fifo, batch_fifo };
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_mkdir (batch, 0700), ==, 0);
  if (mkfifo (fifo, 0600) != 0 || mkfifo (batch_fifo, 0600) != 0)
    {
      g_test_skip ("mkfifo is not supported here");
      km_test_remove_tree (dir);
      return;
    }
  g_assert_true (g_file_set_contents (other, "[{\"frame\": 0, \"pos\": [0.3, 0.1, 0.2], "
                                             "\"euler\": [0, 0, 0]}]\n", -1, NULL));
  processes[0] = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                   G_SUBPROCESS_FLAGS_STDERR_PIPE, &error, cli, "solve",
                                   skeleton_path, targets_path, "-o", fifo, NULL);
  g_assert_no_error (error);
  processes[1] = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                   G_SUBPROCESS_FLAGS_STDERR_PIPE, &error, cli, "solve",
                                   skeleton_path, targets_path, other, "-o", batch, NULL);
  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (processes); i++)
    {
      g_autofree char *out = NULL;
      g_autofree char *err = NULL;
      g_autofree char *expected = g_strdup_printf ("%s: cannot write the file: a pipe with "
                                                   "no reader (none came within 10 "
                                                   "seconds)\n", fifos[i]);

      g_assert_true (g_subprocess_communicate_utf8 (processes[i], NULL, NULL, &out, &err,
                                                    &error));
      g_assert_no_error (error);
      if (g_subprocess_get_exit_status (processes[i]) != 1 || strstr (err, expected) == NULL)
        g_error ("%u: exit %d: “%s”", i, g_subprocess_get_exit_status (processes[i]), err);
      g_object_unref (processes[i]);
    }
  /* The batch's other animation is written all the same. */
  g_assert_true (g_file_test (batch_other, G_FILE_TEST_IS_REGULAR));
  km_test_remove_tree (dir);
}

/* The targets of data/targets.json, @spacing frames apart, the first keyframe naming the
 * end effector "Piston" (so that --effector EndEffector warns of it). */
static char *
write_spread_targets (const char *dir,
                      const char *name,
                      guint       spacing)
{
  static const char *const keys[] = {
    "\"pos\": [0.0, 0.0, 0.0], \"euler\": [0.0, 0.0, 0.0], \"effector\": \"Piston\"",
    "\"pos\": [1.0, 1.0, 1.0], \"euler\": [90.0, 0.0, 45.0]",
    "\"pos\": [1.0, -1.0, 1.0], \"euler\": [-90.0, 45.0, 0.0]",
    "\"pos\": [2.5, 0.0, 1.0], \"euler\": [0.0, 0.0, 0.0]",
  };
  g_autoptr(GString) text = g_string_new ("[");
  char *path = g_build_filename (dir, name, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    g_string_append_printf (text, "%s{\"frame\": %u, %s}", i > 0 ? ", " : "", i * spacing,
                            keys[i]);
  g_string_append (text, "]\n");
  g_assert_true (g_file_set_contents (path, text->str, -1, NULL));
  return path;
}

/* Review r2, 1: a targets file's name with a space is one field of its line
 * (targets=my\x20targets.json), which reads back to the name. */
static void
test_targets_field_spaces (void)
{
  g_autofree char *model = data_path ("skeleton.json");
  g_autofree char *dir = km_test_make_tmp_dir ("solve-spaces-XXXXXX");
  g_autofree char *out_dir = g_build_filename (dir, "out", NULL);
  g_autofree char *spaced = write_targets (dir, "my targets.json", 2);
  g_autofree char *plain = write_targets (dir, "b.json", 2);
  g_autofree char *tail = g_strdup_printf (" targets=%s/my\\x20targets.json", dir);
  g_auto(GStrv) lines = NULL;
  g_auto(Run) run = { 0, };

  run_cli (&run, NULL, "solve", model, spaced, plain, "-o", out_dir, NULL);
  g_assert_cmpint (run.status, ==, 0);
  lines = output_lines (run.out);
  g_assert_cmpuint (g_strv_length (lines), ==, 3);
  if (!g_str_has_suffix (lines[0], tail))
    g_error ("“%s” does not end in “%s”", lines[0], tail);
  km_test_remove_tree (dir);
}

/* @text as a terminal shows it: "\r" back to the line's start, "\033[K" erases to its
 * end, "\n" ends a line (other escapes are not written). The lines, the last one (where
 * the cursor is) included. */
static GPtrArray *
terminal_screen (const char *text)
{
  GPtrArray *lines = g_ptr_array_new_with_free_func (g_free);
  GString *line = g_string_new (NULL);
  gsize column = 0;

  for (const char *p = text; *p != '\0'; p++)
    {
      if (*p == '\r')
        column = 0;
      else if (*p == '\n')
        {
          g_ptr_array_add (lines, g_string_free (line, FALSE));
          line = g_string_new (NULL);
          column = 0;
        }
      else if (g_str_has_prefix (p, "\033[K"))
        {
          g_string_truncate (line, column);
          p += strlen ("\033[K") - 1;
        }
      else
        {
          /* Bytes, not characters: enough to tell what is left on a line. */
          if (column < line->len)
            line->str[column] = *p;
          else
            g_string_append_c (line, *p);
          column++;
        }
    }
  g_ptr_array_add (lines, g_string_free (line, FALSE));
  return lines;
}

/* Runs kinema-cli with @args (NULL-terminated), its stdout and stderr on one pseudo
 * terminal, as a user in a terminal runs it; returns all it wrote there. */
static char *
run_on_terminal (const char *const *args,
                 int               *status)
{
  const char *cli = g_getenv ("KINEMA_CLI");
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  GString *written = g_string_new (NULL);
  int master;
  pid_t pid;

  g_assert_nonnull (cli);
  g_ptr_array_add (argv, (gpointer) cli);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);

  master = posix_openpt (O_RDWR | O_NOCTTY);
  g_assert_cmpint (master, >=, 0);
  g_assert_cmpint (grantpt (master), ==, 0);
  g_assert_cmpint (unlockpt (master), ==, 0);
  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      int slave, null;

      setsid ();
      slave = open (ptsname (master), O_RDWR);
      null = open ("/dev/null", O_RDONLY);
      if (slave < 0 || null < 0)
        _exit (126);
      dup2 (null, STDIN_FILENO);
      dup2 (slave, STDOUT_FILENO);
      dup2 (slave, STDERR_FILENO);
      close (master);
      execv (cli, (char **) argv->pdata);
      _exit (127);
    }
  for (;;)
    {
      char buffer[4096];
      ssize_t n = read (master, buffer, sizeof buffer);

      if (n > 0)
        g_string_append_len (written, buffer, n);
      else if (n < 0 && errno == EINTR)
        continue;
      else
        break;   /* EIO: the terminal's other end is closed, the program ended */
    }
  close (master);
  g_assert_cmpint (waitpid (pid, status, 0), ==, pid);
  return g_string_free (written, FALSE);
}

/* Review r2, 5: the progress line solve draws on a terminal is erased before the other
 * lines and at the end: no "Solving: …" line (nor a fragment of one, nor an empty line
 * where one was) stays on the screen, with warnings printed by the solving threads. */
static void
test_progress_erased (void)
{
  g_autofree char *model = data_path ("skeleton.json");
  g_autofree char *dir = km_test_make_tmp_dir ("solve-progress-XXXXXX");
  g_autofree char *out_dir = g_build_filename (dir, "out", NULL);
  g_autofree char *a = write_spread_targets (dir, "a.json", 400);
  g_autofree char *b = write_spread_targets (dir, "b.json", 400);
  g_autofree char *c = write_spread_targets (dir, "c.json", 400);
  const char *args[] = { "solve", model, a, b, c, "--jobs", "2", "--effector", "EndEffector",
                         "-o", out_dir, NULL };
  g_autofree char *written = NULL;
  g_autofree char *escaped = NULL;
  g_autoptr(GPtrArray) screen = NULL;
  guint n_results = 0, n_warnings = 0;
  int status;

  written = run_on_terminal (args, &status);
  escaped = g_strescape (written, NULL);
  g_test_message ("%s", escaped);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);
  /* It was drawn (the test tests something). */
  g_assert_nonnull (strstr (written, "Solving: "));
  screen = terminal_screen (written);
  for (guint i = 0; i < screen->len; i++)
    {
      const char *line = g_ptr_array_index (screen, i);

      /* The cursor's line, after the last one, is empty. */
      if (i + 1 == screen->len)
        {
          g_assert_cmpstr (line, ==, "");
          break;
        }
      if (*line == '\0' || strstr (line, "Solving") != NULL)
        g_error ("line %u on the screen is “%s”", i, line);
      n_results += g_str_has_prefix (line, "frames=");
      n_warnings += strstr (line, "warning: --effector") != NULL;
    }
  g_assert_cmpuint (n_results, ==, 3);
  g_assert_cmpuint (n_warnings, ==, 3);
  km_test_remove_tree (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/kinema/cli/solve/spec-example", test_spec_example);
  g_test_add_func ("/kinema/cli/solve/defaults", test_defaults);
  g_test_add_func ("/kinema/cli/solve/batch", test_batch);
  g_test_add_func ("/kinema/cli/solve/targets-field-spaces", test_targets_field_spaces);
  g_test_add_func ("/kinema/cli/solve/progress-erased", test_progress_erased);
  g_test_add_func ("/kinema/cli/solve/body-motion", test_body_motion);
  g_test_add_func ("/kinema/cli/solve/body-motion-batch", test_body_motion_batch);
  g_test_add_func ("/kinema/cli/solve/to-conflicts", test_to_conflicts);
  g_test_add_func ("/kinema/cli/solve/errors", test_errors);
  g_test_add_func ("/kinema/cli/solve/batch-failure", test_batch_failure);
  g_test_add_func ("/kinema/cli/solve/write-failure", test_write_failure);
  g_test_add_func ("/kinema/cli/solve/overflowing-model", test_overflowing_model);
  g_test_add_func ("/kinema/cli/solve/off-chain-pose", test_off_chain_pose);
  g_test_add_func ("/kinema/cli/solve/off-chain-stated-pose", test_off_chain_stated_pose);
  g_test_add_func ("/kinema/cli/solve/nothing-moves", test_nothing_moves);
  g_test_add_func ("/kinema/cli/solve/model-targets", test_model_targets);
  g_test_add_func ("/kinema/cli/solve/model-targets-lines", test_model_targets_lines);
  g_test_add_func ("/kinema/cli/solve/tool-point-targets", test_tool_point_targets);
  g_test_add_func ("/kinema/cli/solve/effector-errors", test_effector_errors);
  g_test_add_func ("/kinema/cli/solve/effector-link-name", test_effector_link_name);
  g_test_add_func ("/kinema/cli/solve/base-errors", test_base_errors);
  g_test_add_func ("/kinema/cli/solve/output-too-large", test_output_too_large);
  g_test_add_func ("/kinema/cli/solve/output-fifo", test_output_fifo);
  g_test_add_func ("/kinema/cli/solve/mimic-master-off-path", test_mimic_master_off_path);
  g_test_add_func ("/kinema/cli/solve/output-refusals", test_output_refusals);
  g_test_add_func ("/kinema/cli/solve/batch-refused", test_batch_refused);
  g_test_add_func ("/kinema/cli/solve/output-places", test_output_places);
  g_test_add_func ("/kinema/cli/solve/escaped-names", test_escaped_names);
  g_test_add_func ("/kinema/cli/solve/to-any-case", test_to_any_case);
  g_test_add_func ("/kinema/cli/solve/handler-report-prefix", test_handler_report_prefix);
  g_test_add_func ("/kinema/cli/solve/missed-keys", test_missed_keys);
  g_test_add_func ("/kinema/cli/solve/unchecked-keys-note", test_unchecked_keys_note);
  g_test_add_func ("/kinema/cli/solve/jump-warning", test_jump_warning);

  return g_test_run ();
}
