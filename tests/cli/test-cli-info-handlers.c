/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <string.h>
#include <glib.h>
#include <glib/gstdio.h>

#include "cli-run.h"
#include "km-test-tmp.h"
#include "km-animation-json.h"
#include "km-format.h"
#include "km-ik-job.h"
#include "km-targets-json.h"

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
  /* Each line located where the model names the handler, as `validate` and `solve` say. */
  struct { const char *model; const char *at; const char *name; const char *ifaces;
           const char *summary; }
  cases[] = {
    { "ur5-analytic.json", "4:20", "UR5AnalyticIkHandler", "joint-path", "joints=8 dof=6" },
    { "choreonoid/ClosedLinkSample.body", "145:16", "ClosedLinkSampleHandler", "linked-joints",
      "joints=4 dof=3" },
    { "linear-actuator-arm.json", "4:21", "LinearActuatorSampleHandler", "presentation",
      "joints=3 dof=1" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto(Run) run = { 0 };
      g_autofree char *model = data_path (cases[i].model);
      g_autofree char *tail = NULL;
      g_autofree char *expected = g_strdup_printf ("%s:%s: handler %s: attached (%s) from "
                                                   "%s/%s.so\n%s",
                                                   model, cases[i].at, cases[i].name,
                                                   cases[i].ifaces, dir, cases[i].name,
                                                   cases[i].summary);

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
  g_autofree char *first = g_strdup_printf ("\n%s:7:18: handler FirstHandler: not found: Body "
                                            "handler FirstHandler not found: no "
                                            "FirstHandler.so in the trusted handler "
                                            "directories (", model);
  g_autofree char *second = g_strdup_printf ("); the model loads without it (numeric IK, "
                                             "unlinked joints, plain joint values).\n"
                                             "%s:7:32: handler SecondHandler: not found: ",
                                             model);
  g_autofree char *ur5_missing = g_strdup_printf ("%s:4:20: handler UR5AnalyticIkHandler: "
                                                  "not found: ", ur5);

  /* Located where the model names each handler, as `validate` and `solve` say it. */
  run_cli (&run, NULL, "info", model, NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (strstr (run.out, first));
  g_assert_nonnull (strstr (run.out, second));
  g_assert_true (g_str_has_suffix (run.out, "plain joint values).\n"
                                            "joints=5 dof=3 free_root=1\n"));

  /* Without the handler directory the UR5's handler is not found either. */
  {
    g_auto(Run) again = { 0 };
    g_autofree char *tail = NULL;

    run_cli (&again, NULL, "info", ur5, NULL);
    g_assert_cmpint (again.status, ==, 0);
    tail = tail2 (again.out);
    g_assert_true (g_str_has_prefix (tail, ur5_missing));
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
  /* @at: where the model names the handler, as the path was given. */
  struct { const char *cwd; const char *file; const char *at; const char *summary; } cases[] = {
    { tests_dir, "data/handler-path-crash.json", "31:3", "\njoints=2 dof=1\n" },
    { data_dir, "handler-path-crash.json", "31:3", "\njoints=2 dof=1\n" },
    { tests_dir, "data/handler-path-crash.body", "3:16", "\njoints=1 dof=0\n" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto(Run) run = { 0 };
      g_autofree char *located = g_strdup_printf ("%s:%s: %s", cases[i].file, cases[i].at,
                                                  refused);

      run_cli (&run, cases[i].cwd, "info", cases[i].file, NULL);
      g_assert_cmpint (run.status, ==, 0);
      g_assert_nonnull (strstr (run.out, located));
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

/* `solve` sends every frame through the model's linked joints (ClosedLinkSample: J1 = -J0,
 * J3 = J0); J3 stayed 0 while J0 turned. */
static void
test_solve_linked (void)
{
  g_autofree char *dir = handler_dir ();
  g_autofree char *model = data_path ("choreonoid/ClosedLinkSample.body");
  g_autofree char *targets = data_path ("closedlink-targets.json");
  g_autofree char *tmp = km_test_make_tmp_dir ("kinema-handlers-XXXXXX");
  g_autofree char *out = g_build_filename (tmp, "cl.json", NULL);
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  g_auto(Run) run = { 0 };
  guint n_frames = 0;
  double j0 = 0.0, j1 = 0.0;

  run_cli (&run, NULL, "solve", "--handler-dir", dir, model, targets, "--effector", "J1",
           "-o", out, NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (strstr (run.err, "handler ClosedLinkSampleHandler: attached (linked-joints)"));
  g_assert_true (g_file_get_contents (out, &text, NULL, NULL));
  /* The animation JSON: "J0": { "type": …, "angle": V } per joint, frame by frame. */
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *angle = strstr (lines[i], "\"angle\": ");
      const char *name = i >= 2 ? strstr (lines[i - 2], "\"J") : NULL;
      double v;

      if (angle == NULL || name == NULL)
        continue;
      v = g_ascii_strtod (angle + strlen ("\"angle\": "), NULL);
      if (g_str_has_prefix (name, "\"J0\""))
        j0 = v;
      else if (g_str_has_prefix (name, "\"J1\""))
        j1 = v;
      else if (g_str_has_prefix (name, "\"J3\""))
        {
          g_assert_cmpfloat (j0, !=, 0.0);
          g_assert_cmpfloat (j1, ==, -j0);
          g_assert_cmpfloat (v, ==, j0);
          n_frames++;
        }
    }
  g_assert_cmpuint (n_frames, ==, 11);
  g_remove (out);
  g_rmdir (tmp);
}

/* The value of KEY= on @line (a `solve` stats line). */
static double
stat_value (const char *line,
            const char *key)
{
  const char *at = strstr (line, key);

  if (at == NULL)
    g_error ("no %s in “%s”", key, line);
  return g_ascii_strtod (at + strlen (key), NULL);
}

/* `solve`'s residuals are those of the frames it writes, after the linked joints moved
 * (ClosedLinkSample, effector J1 on the loop): measured by forward kinematics from the
 * output file, they are what the stats line says. It said the solver's, of the pose before
 * the re-sync: with a tool on J1's link, the solver turns J1 freely and J1 = -J0 then
 * swings the tool off its target. */
static void
solve_linked_residuals (const char *effector,
                        const char *targets)
{
  g_autofree char *dir = handler_dir ();
  g_autofree char *model = data_path ("choreonoid/ClosedLinkSample.body");
  g_autofree char *tmp = km_test_make_tmp_dir ("kinema-handlers-XXXXXX");
  g_autofree char *out = g_build_filename (tmp, "cl.json", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = NULL;
  g_autoptr(KmTargetTrack) track = NULL;
  g_autoptr(KmAnimation) animation = NULL;
  g_autoptr(KmIkProblem) problem = NULL;
  g_autofree double *residuals = NULL;
  g_auto(Run) run = { 0 };
  double max_pos = 0.0, sum_pos = 0.0, max_rot = 0.0;
  guint n_frames;

  run_cli (&run, NULL, "solve", "--handler-dir", dir, model, targets, "--effector", effector,
           "-o", out, NULL);
  g_assert_cmpint (run.status, ==, 0);
  skel = km_format_load_file (model, NULL, NULL, &error);
  g_assert_no_error (error);
  track = km_targets_json_load_file (targets, &error);
  g_assert_no_error (error);
  animation = km_animation_json_load_file (out, skel, &error);
  g_assert_no_error (error);
  problem = km_ik_problem_new (skel, km_ik_resolve_effector (skel, track, effector, &error));
  g_assert_no_error (error);
  residuals = km_ik_measure_track (problem, track, animation, NULL);
  n_frames = km_animation_get_n_frames (animation);
  g_assert_cmpuint (n_frames, ==, 11);
  for (guint f = 0; f < n_frames; f++)
    {
      max_pos = MAX (max_pos, residuals[2 * f]);
      sum_pos += residuals[2 * f];
      max_rot = MAX (max_rot, residuals[2 * f + 1]);
    }
  /* The stats print 6 significant digits. */
  g_assert_cmpfloat_with_epsilon (stat_value (run.out, "max_pos_err="), max_pos, max_pos * 1e-5);
  g_assert_cmpfloat_with_epsilon (stat_value (run.out, "mean_pos_err="), sum_pos / n_frames,
                                  max_pos * 1e-5);
  g_assert_cmpfloat_with_epsilon (stat_value (run.out, "max_rot_err="), max_rot, 1e-5);
  g_remove (out);
  g_rmdir (tmp);
}

static void
test_solve_linked_residuals (void)
{
  g_autofree char *closedlink = data_path ("closedlink-targets.json");
  g_autofree char *tmp = km_test_make_tmp_dir ("kinema-handlers-XXXXXX");
  g_autofree char *tool = g_build_filename (tmp, "tool.json", NULL);

  g_assert_true (g_file_set_contents (tool,
    "[ { \"frame\": 0, \"pos\": [0, 0.3, 0.16], \"euler\": [0, 0, 0],\n"
    "    \"effector_offset\": [0.2, 0, 0], \"position_only\": true },\n"
    "  { \"frame\": 10, \"pos\": [-0.1, 0.28, 0.16], \"euler\": [0, 0, 0],\n"
    "    \"effector_offset\": [0.2, 0, 0], \"position_only\": true } ]\n", -1, NULL));
  solve_linked_residuals ("J1", tool);
  solve_linked_residuals ("J1", closedlink);
  solve_linked_residuals ("J3", closedlink);
  g_remove (tool);
  g_rmdir (tmp);
}

/* `solve --effector J3` on ClosedLinkSample meets a reachable target: J3 follows J0, off
 * J3's chain, and the solver moves J0 for it. It turned J3 alone, which the re-sync (J3 =
 * J0) undid: the crank tip stayed where it was, 2 · 0.1 · sin (0.25) m off. */
static void
test_solve_linked_master (void)
{
  g_autofree char *dir = handler_dir ();
  g_autofree char *model = data_path ("choreonoid/ClosedLinkSample.body");
  g_autofree char *tmp = km_test_make_tmp_dir ("kinema-handlers-XXXXXX");
  g_autofree char *targets = g_build_filename (tmp, "crank.json", NULL);
  g_autofree char *out = g_build_filename (tmp, "cl.json", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = NULL;
  g_autoptr(KmAnimation) animation = NULL;
  g_auto(Run) run = { 0 };
  const double *q;
  int d0, d1, d3;

  /* J3's crank tip (0.1 m along its y) at J3 = 0, then at J3 = 0.5 rad. */
  g_assert_true (g_file_set_contents (targets,
    "[ { \"frame\": 0, \"pos\": [0.2, 0.12, -0.1], \"euler\": [0, 0, 0],\n"
    "    \"effector_offset\": [0, 0.1, 0], \"position_only\": true },\n"
    "  { \"frame\": 1, \"pos\": [0.1520574461395797, 0.12, -0.0877582561890373],\n"
    "    \"euler\": [0, 0, 0] } ]\n", -1, NULL));
  run_cli (&run, NULL, "solve", "--handler-dir", dir, model, targets, "--effector", "J3",
           "-o", out, NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_cmpfloat (stat_value (run.out, "max_pos_err="), <, 1e-6);
  skel = km_format_load_file (model, NULL, NULL, &error);
  g_assert_no_error (error);
  animation = km_animation_json_load_file (out, skel, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (km_animation_get_n_frames (animation), ==, 2);
  d0 = km_skeleton_get_joint (skel, km_skeleton_find_joint (skel, "J0"))->dof_index;
  d1 = km_skeleton_get_joint (skel, km_skeleton_find_joint (skel, "J1"))->dof_index;
  d3 = km_skeleton_get_joint (skel, km_skeleton_find_joint (skel, "J3"))->dof_index;
  q = km_animation_get_frame (animation, 1);
  g_assert_cmpfloat_with_epsilon (q[d0], 0.5, 1e-5);
  g_assert_cmpfloat (q[d3], ==, q[d0]);
  g_assert_cmpfloat (q[d1], ==, -q[d0]);
  g_remove (out);
  g_remove (targets);
  g_rmdir (tmp);
}

/* `validate` loads the handlers a model names (and takes --handler-dir): each missing,
 * refused or failing one is a warning located where the model names it. */
static void
test_validate_handlers (void)
{
  g_autofree char *dir = handler_dir ();
  g_autofree char *ur5 = data_path ("ur5-analytic.json");
  g_autofree char *features = data_path ("choreonoid/features.body");
  g_autofree char *tmp = km_test_make_tmp_dir ("kinema-handlers-XXXXXX");
  g_autofree char *failing = g_build_filename (tmp, "failing.json", NULL);
  g_autofree char *refused = g_build_filename (tmp, "refused.json", NULL);
  const char *joints = "\"joints\": [{\"name\": \"r\", \"type\": \"fixed\", "
                       "\"offset\": [0, 0, 0]}, {\"name\": \"EndEffector\", "
                       "\"type\": \"revolute\", \"parent\": \"r\", "
                       "\"offset\": [0, 0, 1], \"axis\": [1, 0, 0]}]}\n";
  g_autofree char *failing_text = g_strconcat ("{\"root_name\": \"r\",\n\"body_handlers\": "
                                               "[\"ClosedLinkSampleHandler\"], ", joints, NULL);
  g_autofree char *refused_text = g_strconcat ("{\"root_name\": \"r\", \"body_handlers\": "
                                               "\"/x/Evil\", ", joints, NULL);
  g_autofree char *fail_at = g_strdup_printf ("%s:2:19: warning: Body handler "
                                              "ClosedLinkSampleHandler failed to initialize on r: ",
                                              failing);
  g_autofree char *refuse_at = g_strdup_printf ("%s:1:37: warning: Body handler “/x/Evil” "
                                                "refused: ", refused);
  g_autofree char *missing_at = g_strdup_printf ("%s:7:18: warning: Body handler FirstHandler "
                                                 "not found: ", features);

  g_assert_true (g_file_set_contents (failing, failing_text, -1, NULL));
  g_assert_true (g_file_set_contents (refused, refused_text, -1, NULL));
  {
    g_auto(Run) run = { 0 };

    /* Found there: only the model's own warning (its unknown "comment" key). */
    run_cli (&run, NULL, "validate", "--handler-dir", dir, ur5, NULL);
    g_assert_cmpint (run.status, ==, 0);
    g_assert_true (g_str_has_suffix (run.out, ": ok (SKELETON-JSON) with 1 warning\n"));
    g_assert_null (strstr (run.err, "handler"));
  }
  {
    g_auto(Run) run = { 0 };

    run_cli (&run, NULL, "validate", "--handler-dir", dir, failing, refused, features, NULL);
    g_assert_cmpint (run.status, ==, 0);
    g_assert_nonnull (strstr (run.err, fail_at));
    g_assert_nonnull (strstr (run.err, refuse_at));
    g_assert_nonnull (strstr (run.err, missing_at));
    g_assert_nonnull (strstr (run.out, "failing.json: ok (SKELETON-JSON) with 1 warning\n"));
    g_assert_nonnull (strstr (run.out, "refused.json: ok (SKELETON-JSON) with 1 warning\n"));
  }
  g_remove (failing);
  g_remove (refused);
  g_rmdir (tmp);
}

/* `info` on a project: the handler lines of each body, located where its model names the
 * handler, then the body's name. */
static void
test_info_project (void)
{
  g_autofree char *dir = handler_dir ();
  g_autofree char *ur5 = data_path ("ur5-analytic.json");
  g_autofree char *tmp = km_test_make_tmp_dir ("kinema-handlers-XXXXXX");
  g_autofree char *project = g_build_filename (tmp, "p.cnoid", NULL);
  g_autofree char *text = g_strdup_printf (
    "items:\n"
    "  id: 0\n"
    "  name: \"RootItem\"\n"
    "  plugin: Base\n"
    "  class: RootItem\n"
    "  children:\n"
    "    -\n"
    "      id: 1\n"
    "      name: \"ur5\"\n"
    "      plugin: Body\n"
    "      class: BodyItem\n"
    "      data:\n"
    "        file: \"%s\"\n"
    "        format: SKELETON-JSON\n", ur5);
  g_autofree char *expected = g_strdup_printf ("\n%s:4:20: ur5: handler UR5AnalyticIkHandler: "
                                               "attached (joint-path) from ", ur5);
  g_auto(Run) run = { 0 };

  g_assert_true (g_file_set_contents (project, text, -1, NULL));
  run_cli (&run, NULL, "info", "--handler-dir", dir, project, NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (strstr (run.out, expected));
  g_remove (project);
  g_rmdir (tmp);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_unsetenv ("KINEMA_BODYHANDLER_PATH");
  g_test_add_func ("/kinema/cli/info-handlers/attached", test_info_attached);
  g_test_add_func ("/kinema/cli/info-handlers/solve-linked", test_solve_linked);
  g_test_add_func ("/kinema/cli/info-handlers/solve-linked-residuals",
                   test_solve_linked_residuals);
  g_test_add_func ("/kinema/cli/info-handlers/solve-linked-master", test_solve_linked_master);
  g_test_add_func ("/kinema/cli/info-handlers/validate-handlers", test_validate_handlers);
  g_test_add_func ("/kinema/cli/info-handlers/info-project", test_info_project);
  g_test_add_func ("/kinema/cli/info-handlers/solve-analytic", test_solve_analytic);
  g_test_add_func ("/kinema/cli/info-handlers/not-found", test_info_not_found);
  g_test_add_func ("/kinema/cli/info-handlers/relative-model-path", test_relative_model_path);
  return g_test_run ();
}
