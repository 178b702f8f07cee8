/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

/* `kinema-cli solve` at batch scale: thousands of targets files checked before the solve,
 * each file's line said as soon as it is done, clashing output names, an output directory
 * that cannot be written, targets out of reach. */

/* sched_setaffinity(), CPU_SET() */
#define _GNU_SOURCE

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "km-target-track.h"
#include "km-targets-json.h"

#include "cli-run.h"
#include "km-test-tmp.h"

static char *
data_path (const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "..", "data", name, NULL);
}

/* The first @n keyframes of the example targets (all reachable) as @dir/@name. */
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

/* Runs $KINEMA_CLI with @args (a NULL-terminated array after "kinema-cli") in @cwd. */
static void
run_cli_argv (Run                *run,
              const char         *cwd,
              const char * const *args)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;

  g_ptr_array_add (argv, (char *) g_getenv ("KINEMA_CLI"));
  g_assert_nonnull (argv->pdata[0]);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);
  g_spawn_sync (cwd, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, &run->out,
                &run->err, &run->status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (run->status, NULL) || WIFEXITED (run->status));
  run->status = WEXITSTATUS (run->status);
}

#define N_MANY 20000

/*
 * 20,000 targets files, the last one's output already taken by a file the arguments read
 * (through a hard link, a symbolic link): every output is checked against every input
 * before anything is solved, and the refusal names the input. The check stats each input
 * once: a fraction of a second. (It used to stat both files for every pair of an output and
 * an argument, 400 million pairs here: over an hour, far past the test's timeout; 2,000
 * files took 35 s.)
 */
static void
test_many_inputs_checked (void)
{
  g_autofree char *dir = km_test_make_tmp_dir ("solve-many-XXXXXX");
  g_autofree char *in_dir = g_build_filename (dir, "in", NULL);
  g_autofree char *out_dir = g_build_filename (dir, "out", NULL);
  g_autofree char *model = data_path ("skeleton.json");
  g_autofree char *first = NULL;
  g_autofree char *last_output = NULL;
  g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *last_name = NULL;
  g_autofree char *shown_output = NULL;

  g_assert_cmpint (g_mkdir (in_dir, 0777), ==, 0);
  g_assert_cmpint (g_mkdir (out_dir, 0777), ==, 0);
  g_free (write_targets (in_dir, "t00000.json", 1));
  first = g_build_filename ("in", "t00000.json", NULL);
  g_ptr_array_add (args, g_strdup ("solve"));
  g_ptr_array_add (args, g_strdup (model));
  for (guint i = 0; i < N_MANY; i++)
    {
      g_autofree char *name = g_strdup_printf ("t%05u.json", i);
      /* Relative to @dir, where it runs: short, for the command line's limit. */
      char *path = g_build_filename ("in", name, NULL);

      if (i > 0)
        {
          g_autofree char *from = g_build_filename (dir, first, NULL);
          g_autofree char *to = g_build_filename (dir, path, NULL);

          g_assert_cmpint (link (from, to), ==, 0);
        }
      g_ptr_array_add (args, path);
    }
  g_ptr_array_add (args, g_strdup ("-o"));
  g_ptr_array_add (args, g_strdup ("out"));
  g_ptr_array_add (args, NULL);
  last_name = g_strdup_printf ("t%05u.animation.json", N_MANY - 1);
  last_output = g_build_filename (out_dir, last_name, NULL);
  shown_output = g_build_filename ("out", last_name, NULL);

  /* A hard link to the model; then a symbolic link to an input, by a relative path. */
  for (guint k = 0; k < 2; k++)
    {
      g_auto(Run) run = { 0, };
      g_autofree char *expected = NULL;

      g_unlink (last_output);
      if (k == 0)
        {
          g_assert_cmpint (link (model, last_output), ==, 0);
          expected = g_strdup_printf ("kinema-cli: %s: the output is the input file %s, which "
                                      "it would replace: nothing was written\n",
                                      shown_output, model);
        }
      else
        {
          g_assert_cmpint (symlink ("../in/t00007.json", last_output), ==, 0);
          /* The first input that is that file (hard links all): t00000.json. */
          expected = g_strdup_printf ("kinema-cli: %s: the output is the input file %s, which "
                                      "it would replace: nothing was written\n",
                                      shown_output, first);
        }
      run_cli_argv (&run, dir, (const char * const *) args->pdata);
      g_assert_cmpint (run.status, ==, 2);
      g_assert_cmpstr (run.err, ==, expected);
      g_assert_cmpstr (run.out, ==, "");
      /* Nothing solved: no other output. */
      {
        g_autoptr(GDir) listing = g_dir_open (out_dir, 0, NULL);
        guint n = 0;

        while (g_dir_read_name (listing) != NULL)
          n++;
        g_assert_cmpuint (n, ==, 1);
      }
    }
}

/* Reads from @fd until a newline or the end; FALSE when nothing came within @ms. */
static gboolean
read_line (int       fd,
           GString  *line,
           int       ms)
{
  while (line->len == 0 || line->str[line->len - 1] != '\n')
    {
      struct pollfd p = { fd, POLLIN, 0 };
      char c;
      ssize_t n;

      if (poll (&p, 1, ms) <= 0)
        return FALSE;
      n = read (fd, &c, 1);
      if (n <= 0)
        return line->len > 0;
      g_string_append_c (line, c);
    }
  return TRUE;
}

/*
 * The first file's line is on stdout, flushed, while the last file is not solved yet: the
 * last targets file is a named pipe that is written only after that line was read (an
 * interrupted batch has logged what completed). Before, the lines came after the whole
 * batch, and the line did not come until the pipe was written.
 */
static void
test_lines_as_files_finish (void)
{
  g_autofree char *dir = km_test_make_tmp_dir ("solve-stream-XXXXXX");
  g_autofree char *model = data_path ("skeleton.json");
  g_autofree char *out_dir = g_build_filename (dir, "out", NULL);
  g_autofree char *small = write_targets (dir, "a.json", 2);
  g_autofree char *source = write_targets (dir, "source.json", 3);
  g_autofree char *fifo = g_build_filename (dir, "z.json", NULL);
  g_autofree char *fifo_output = g_build_filename (out_dir, "z.animation.json", NULL);
  g_autofree char *text = NULL;
  g_autofree char *suffix = g_strdup_printf (" targets=%s\n", small);
  g_autoptr(GString) line = g_string_new (NULL);
  g_autoptr(GString) rest = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  const char *argv[] = { g_getenv ("KINEMA_CLI"), "solve", model, small, fifo, "--jobs", "1",
                         "-o", out_dir, NULL };
  gboolean early;
  GPid pid;
  int out_fd, fd, status;
  gsize length;

  if (mkfifo (fifo, 0600) != 0)
    {
      g_test_skip ("mkfifo is not supported here");
      return;
    }
  g_assert_true (g_file_get_contents (source, &text, &length, NULL));
  g_assert_nonnull (argv[0]);
  /* Its writer is there from the start (the CLI waits for one only so long), its
   * contents written later. */
  fd = g_open (fifo, O_RDWR | O_CLOEXEC, 0);
  g_assert_cmpint (fd, >=, 0);
  g_spawn_async_with_pipes (NULL, (char **) argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL,
                            &pid, NULL, &out_fd, NULL, &error);
  g_assert_no_error (error);

  /* Not a time limit on the CLI: only how long to wait before feeding the pipe anyway,
   * so that a CLI that holds its lines back ends (and the test fails) instead of hanging. */
  early = read_line (out_fd, line, 30000);
  g_test_message ("first line: %s", line->str);
  /* The last file is not solved: the pipe is still unread. */
  g_assert_false (g_file_test (fifo_output, G_FILE_TEST_EXISTS));

  g_assert_cmpint (write (fd, text, length), ==, (ssize_t) length);
  close (fd);
  for (;;)
    {
      char buffer[256];
      ssize_t n = read (out_fd, buffer, sizeof buffer);

      if (n <= 0)
        break;
      g_string_append_len (rest, buffer, n);
    }
  close (out_fd);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_spawn_close_pid (pid);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);

  g_assert_true (early);
  g_assert_true (g_str_has_prefix (line->str, "frames=81 "));
  g_assert_true (g_str_has_suffix (line->str, suffix));
  g_assert_true (g_file_test (fifo_output, G_FILE_TEST_EXISTS));
  g_assert_true (g_str_has_prefix (rest->str, "frames=161 "));
}

/* Two inputs of one name in different folders (a/t.json, b/t.json): every clash is said,
 * each naming both inputs, and nothing is written. */
static void
test_name_clashes (void)
{
  g_autofree char *dir = km_test_make_tmp_dir ("solve-clash-XXXXXX");
  g_autofree char *model = data_path ("skeleton.json");
  g_autofree char *sub_a = g_build_filename (dir, "a", NULL);
  g_autofree char *sub_b = g_build_filename (dir, "b", NULL);
  g_autofree char *out_dir = g_build_filename (dir, "out", NULL);
  g_autofree char *a_t = NULL, *b_t = NULL, *a_u = NULL, *b_u = NULL, *v = NULL;
  g_autofree char *t_out = g_build_filename (out_dir, "t.animation.json", NULL);
  g_autofree char *u_out = g_build_filename (out_dir, "u.animation.json", NULL);
  g_autofree char *expected = NULL;
  g_auto(Run) run = { 0, };

  g_assert_cmpint (g_mkdir (sub_a, 0777), ==, 0);
  g_assert_cmpint (g_mkdir (sub_b, 0777), ==, 0);
  a_t = write_targets (sub_a, "t.json", 2);
  b_t = write_targets (sub_b, "t.json", 2);
  a_u = write_targets (sub_a, "u.json", 2);
  b_u = write_targets (sub_b, "u.json", 2);
  v = write_targets (dir, "v.json", 2);

  run_cli (&run, NULL, "solve", model, a_t, v, a_u, b_t, b_u, "-o", out_dir, NULL);
  expected = g_strdup_printf ("kinema-cli: %s: the targets files %s and %s would both be "
                              "written there: nothing was written (give them different "
                              "names)\n"
                              "kinema-cli: %s: the targets files %s and %s would both be "
                              "written there: nothing was written (give them different "
                              "names)\n", t_out, a_t, b_t, u_out, a_u, b_u);
  g_assert_cmpint (run.status, ==, 2);
  g_assert_cmpstr (run.err, ==, expected);
  g_assert_cmpstr (run.out, ==, "");
  g_assert_false (g_file_test (out_dir, G_FILE_TEST_EXISTS));
}

/* Whether this process can create a file in @dir. */
static gboolean
can_create_in (const char *dir)
{
  g_autofree char *probe = g_build_filename (dir, "probe-XXXXXX", NULL);
  int fd = g_mkstemp (probe);

  if (fd < 0)
    return FALSE;
  close (fd);
  g_unlink (probe);
  return TRUE;
}

/*
 * An output directory where no file can be created is said before anything is solved:
 * "kinema-cli: DIR: …", exit 1, no result lines. A read-only folder; where that does not
 * stop this process (root), /proc, where no one creates files.
 */
static void
test_unwritable_output_dir (void)
{
  g_autofree char *dir = km_test_make_tmp_dir ("solve-ro-XXXXXX");
  g_autofree char *model = data_path ("skeleton.json");
  g_autofree char *a = write_targets (dir, "a.json", 2);
  g_autofree char *b = write_targets (dir, "b.json", 2);
  g_autofree char *ro = g_build_filename (dir, "ro", NULL);
  g_autofree char *prefix = NULL;
  const char *out_dir = ro;
  g_auto(Run) run = { 0, };

  g_assert_cmpint (g_mkdir (ro, 0555), ==, 0);
  if (can_create_in (ro))
    out_dir = "/proc";
  if (!g_file_test (out_dir, G_FILE_TEST_IS_DIR) || can_create_in (out_dir))
    {
      g_test_skip ("no directory here that cannot be written");
      return;
    }
  run_cli (&run, NULL, "solve", model, a, b, "-o", out_dir, NULL);
  g_test_message ("%s", run.err);
  prefix = g_strdup_printf ("kinema-cli: %s: ", out_dir);
  g_assert_cmpint (run.status, ==, 1);
  g_assert_true (g_str_has_prefix (run.err, prefix));
  g_assert_nonnull (strstr (run.err, "nothing was solved or written"));
  /* One message, and no line of a solved (or failed) file. */
  g_assert_true (g_str_has_suffix (run.err, "\n"));
  g_assert_null (strchr (run.err, '\n')[1] != '\0' ? run.err : NULL);
  g_assert_cmpstr (run.out, ==, "");
  g_chmod (ro, 0755);
}

/*
 * Targets 50 m from an arm that reaches a few metres: the exit status stays 0 and the line
 * keeps its shape, but stderr warns how many frames miss their targets and by how much,
 * at the first keyframe missed.
 */
static void
test_unreachable_warning (void)
{
  static const char targets_json[] =
    "[\n"
    "  {\"frame\": 0, \"pos\": [50.0, 0.0, 0.5], \"euler\": [0, 0, 0]},\n"
    "  {\"frame\": 4, \"pos\": [50.0, 0.5, 0.5], \"euler\": [0, 0, 0]}\n"
    "]\n";
  g_autofree char *dir = km_test_make_tmp_dir ("solve-far-XXXXXX");
  g_autofree char *model = data_path ("skeleton.json");
  g_autofree char *targets = g_build_filename (dir, "far.json", NULL);
  g_autofree char *output = g_build_filename (dir, "far.animation.json", NULL);
  g_autofree char *prefix = NULL;
  g_auto(Run) run = { 0, };
  guint n_missed = 0, n_frames = 0;
  double mm = 0;

  g_assert_true (g_file_set_contents (targets, targets_json, -1, NULL));
  run_cli (&run, NULL, "solve", model, targets, "-o", output, NULL);
  g_test_message ("%s", run.err);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_true (g_str_has_prefix (run.out, "frames=5 mean_pos_err="));
  prefix = g_strdup_printf ("%s:2:13: warning: ", targets);
  g_assert_true (g_str_has_prefix (run.err, prefix));
  g_assert_cmpint (sscanf (run.err + strlen (prefix),
                           "%u of %u frames miss their targets (out of reach?): the end "
                           "effector ends up to %lf mm from them", &n_missed, &n_frames, &mm),
                   ==, 3);
  g_assert_cmpuint (n_missed, ==, 5);
  g_assert_cmpuint (n_frames, ==, 5);
  g_assert_cmpfloat (mm, >, 40000);
}

/* In the child before exec: one processor only. */
static void
pin_to_one_cpu (gpointer user_data)
{
  cpu_set_t *one = user_data;

  sched_setaffinity (0, sizeof *one, one);
}

/*
 * --jobs by default is the number of processors the process may run on (its affinity, as
 * taskset or a container's cpuset sets it), not all of the machine's: pinned to one, a
 * batch whose first targets file is a named pipe not yet written does not solve the
 * second meanwhile. (Before, two workers ran, and the second file was written at once.)
 */
static void
test_jobs_follow_affinity (void)
{
  g_autofree char *dir = km_test_make_tmp_dir ("solve-affinity-XXXXXX");
  g_autofree char *model = data_path ("skeleton.json");
  g_autofree char *out_dir = g_build_filename (dir, "out", NULL);
  g_autofree char *fifo = g_build_filename (dir, "p.json", NULL);
  g_autofree char *small = write_targets (dir, "s.json", 2);
  g_autofree char *small_output = g_build_filename (out_dir, "s.animation.json", NULL);
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  const char *argv[] = { g_getenv ("KINEMA_CLI"), "solve", model, fifo, small, "-o", out_dir,
                         NULL };
  gboolean written_meanwhile = FALSE;
  cpu_set_t all, one;
  GPid pid;
  int fd, status;
  gsize length;

  CPU_ZERO (&all);
  CPU_ZERO (&one);
  g_assert_cmpint (sched_getaffinity (0, sizeof all, &all), ==, 0);
  if (CPU_COUNT (&all) < 2)
    {
      g_test_skip ("this process runs on one processor only");
      return;
    }
  for (int c = 0; c < CPU_SETSIZE; c++)
    if (CPU_ISSET (c, &all))
      {
        CPU_SET (c, &one);
        break;
      }
  if (mkfifo (fifo, 0600) != 0)
    {
      g_test_skip ("mkfifo is not supported here");
      return;
    }
  g_assert_true (g_file_get_contents (small, &text, &length, NULL));
  fd = g_open (fifo, O_RDWR | O_CLOEXEC, 0);
  g_assert_cmpint (fd, >=, 0);
  g_assert_nonnull (argv[0]);
  g_spawn_async (NULL, (char **) argv, NULL,
                 G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL, pin_to_one_cpu, &one,
                 &pid, &error);
  g_assert_no_error (error);

  /* Not a time limit on the CLI: how long to look for the second file's output before
   * the pipe is written (one worker never writes it before that). */
  for (guint i = 0; i < 50 && !written_meanwhile; i++)
    {
      g_usleep (G_USEC_PER_SEC / 10);
      written_meanwhile = g_file_test (small_output, G_FILE_TEST_EXISTS);
    }
  g_assert_cmpint (write (fd, text, length), ==, (ssize_t) length);
  close (fd);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_spawn_close_pid (pid);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);
  g_assert_false (written_meanwhile);
  g_assert_true (g_file_test (small_output, G_FILE_TEST_EXISTS));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/kinema/cli/solve-batch/many-inputs-checked", test_many_inputs_checked);
  g_test_add_func ("/kinema/cli/solve-batch/lines-as-files-finish",
                   test_lines_as_files_finish);
  g_test_add_func ("/kinema/cli/solve-batch/name-clashes", test_name_clashes);
  g_test_add_func ("/kinema/cli/solve-batch/unwritable-output-dir",
                   test_unwritable_output_dir);
  g_test_add_func ("/kinema/cli/solve-batch/unreachable-warning", test_unreachable_warning);
  g_test_add_func ("/kinema/cli/solve-batch/jobs-follow-affinity", test_jobs_follow_affinity);

  return g_test_run ();
}
