/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <fcntl.h>
#include <glib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <gio/gio.h>
#include <glib/gstdio.h>

#include "km-error.h"
#include "km-format.h"
#include "km-skeleton.h"

#include "cli-run.h"
#include "km-test-tmp.h"

static char *tmp_dir;

static gpointer
load_model (const char *path)
{
  g_autoptr(GError) error = NULL;
  const KmFormat *format = NULL;
  gpointer result = km_format_load_file (path, NULL, &format, &error);

  g_assert_no_error (error);
  g_assert_cmpint (format->kind, ==, KM_FILE_KIND_MODEL);
  return result;
}

/* The converted skeleton must put every joint where the original model does, for a
 * non-trivial pose, not just have the same joint count. @by_name matches joints by name: a
 * spherical joint written as three revolute ones adds joints but keeps the DOF order. */
static void
assert_same_kinematics (const KmSkeleton *a,
                        const KmSkeleton *b,
                        gboolean          by_name)
{
  guint n = km_skeleton_get_n_joints (a);
  guint n_dof = km_skeleton_get_n_dof (a);
  g_autofree double *q = g_new (double, MAX (n_dof, 1));
  g_autofree KmTransform *wa = g_new (KmTransform, n);
  g_autofree KmTransform *wb = g_new (KmTransform, km_skeleton_get_n_joints (b));

  if (!by_name)
    g_assert_cmpuint (km_skeleton_get_n_joints (b), ==, n);
  g_assert_cmpuint (km_skeleton_get_n_dof (b), ==, n_dof);
  for (guint d = 0; d < n_dof; d++)
    q[d] = 0.1 * (double) (d % 7) - 0.3;
  km_skeleton_clamp (a, q);
  km_skeleton_forward_kinematics (a, q, NULL, wa);
  km_skeleton_forward_kinematics (b, q, NULL, wb);
  for (guint i = 0; i < n; i++)
    {
      int k = i;

      if (by_name)
        {
          k = km_skeleton_find_joint (b, km_skeleton_get_joint (a, i)->name);
          g_assert_cmpint (k, >=, 0);
        }
      else
        g_assert_cmpstr (km_skeleton_get_joint (a, i)->name, ==,
                         km_skeleton_get_joint (b, i)->name);
      g_assert_cmpfloat (km_vec3_length (km_vec3_sub (wa[i].pos, wb[k].pos)), <,
                         by_name ? 1e-9 : 1e-12);
      g_assert_cmpfloat (km_mat3_rotation_angle (&wa[i].rot, &wb[k].rot), <, 1e-9);
    }
}

/* Loads both models and compares them with assert_same_kinematics(). */
static void
assert_converted_model (const char *input,
                        const char *output,
                        gboolean    by_name)
{
  KmSkeleton *original = load_model (input);
  KmSkeleton *converted = load_model (output);

  assert_same_kinematics (original, converted, by_name);
  km_skeleton_unref (original);
  km_skeleton_unref (converted);
}

/* The last line of @err is "kinema-cli: OUTPUT: cannot write the file: REASON". */
static void
assert_write_error (const char *err,
                    const char *output)
{
  g_autofree char *expected = g_strdup_printf ("kinema-cli: %s: cannot write the file: ", output);
  const char *last = strrchr (err, '\n');

  g_assert_nonnull (last);
  while (last > err && last[-1] != '\n')
    last--;
  if (!g_str_has_prefix (last, expected))
    g_error ("“%s” does not end in a line that starts with “%s”", err, expected);
}

/* `kinema-cli info @path` succeeds and its output ends with @suffix. */
static void
assert_info_suffix (const char *path,
                    const char *suffix)
{
  g_auto(Run) info = { 0 };

  run_cli (&info, NULL, "info", path, NULL);
  g_assert_cmpint (info.status, ==, 0);
  g_assert_true (g_str_has_suffix (info.out, suffix));
}

static void
test_convert_body (void)
{
  g_autofree char *input = g_test_build_filename (G_TEST_DIST, "data", "choreonoid", "SR1.body", NULL);
  g_autofree char *output = g_build_filename (tmp_dir, "sr1.json", NULL);
  g_auto(Run) run = { 0 };

  KmSkeleton *converted;
  const KmJoint *root;
  g_autofree char *note = NULL;

  run_cli (&run, NULL, "convert", input, output, NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_true (g_str_has_suffix (run.out, "format=SKELETON-JSON joints=30 dof=29\n"));
  g_assert_nonnull (strstr (run.err, "display shapes are not carried over"));
  /* skeleton.json has no floating base: the free root WAIST stays where the model puts it
   * (translation 0 0 0.7135). Said in a note, as what an output format cannot carry is
   * (URDF can: a floating joint): a limit of the output format, not a fault of the input,
   * which a warning would be (and one without the line of `joint_type: free`). */
  note = g_strdup ("\nnote: the free root “WAIST” is fixed at its initial pose "
                   "(skeleton.json has no floating base)\n");
  g_assert_nonnull (strstr (run.err, note));
  g_assert_null (strstr (run.err, "warning: the free root"));

  assert_info_suffix (output, "joints=30 dof=29\n");
  assert_converted_model (input, output, FALSE);
  converted = load_model (output);
  root = km_skeleton_get_joint (converted, 0);
  g_assert_cmpstr (root->name, ==, "WAIST");
  g_assert_cmpint (root->type, ==, KM_JOINT_FIXED);
  g_assert_cmpfloat (root->offset.x, ==, 0);
  g_assert_cmpfloat (root->offset.y, ==, 0);
  g_assert_cmpfloat (root->offset.z, ==, 0.7135);
  g_assert_false (root->has_rotation);
  km_skeleton_unref (converted);
}

/* `info` shows the linked joints of a Scenebuilder scene (its gears), the pose it states
 * (its joints' pos values) and its IK target, every number so that it reads back exactly,
 * as `limits=` (30° is 0.5235987755982988 rad, not 0.523599: rev21 finding 3). */
static void
test_info_scenebuilder (void)
{
  g_autofree char *gears = g_test_build_filename (G_TEST_DIST, "data", "scenebuilder", "slider_gear.xml", NULL);
  g_autofree char *arm = g_test_build_filename (G_TEST_DIST, "data", "scenebuilder", "arm2_mm_deg.xml", NULL);
  g_auto(Run) run_gears = { 0 };
  g_auto(Run) run_arm = { 0 };

  run_cli (&run_gears, NULL, "info", gears, NULL);
  g_assert_cmpint (run_gears.status, ==, 0);
  g_assert_cmpstr (run_gears.out, ==,
                   "joint=frame type=fixed parent=- dof=0 axis=- limits=-\n"
                   "joint=pinion_joint type=revolute parent=frame dof=1 axis=0,1,0 "
                   "limits=-3.141592653589793:3.141592653589793\n"
                   "joint=rack_joint type=prismatic parent=frame dof=1 axis=1,0,0 limits=-0.1:0.1 "
                   "mimic=pinion_joint*0.02+0.01\n"
                   "joint=idler_joint type=revolute parent=frame dof=1 axis=0,1,0 limits=- "
                   "mimic=pinion_joint*-0.5+0.25\n"
                   "initial_pose=0.5,0.02,0\n"
                   "joints=4 dof=3\n");

  run_cli (&run_arm, NULL, "info", arm, NULL);
  g_assert_cmpint (run_arm.status, ==, 0);
  g_assert_cmpstr (run_arm.out, ==,
                   "joint=base type=fixed parent=- dof=0 axis=- limits=-\n"
                   "joint=shoulder type=revolute parent=base dof=1 axis=0,1,0 "
                   "limits=-1.5707963267948966:1.5707963267948966\n"
                   "joint=elbow type=revolute parent=shoulder dof=1 axis=0,1,0 limits=-2.5:2.5\n"
                   "initial_pose=0.5235987755982988,-0.7853981633974483\n"
                   "target=reach effector=elbow frame=0 pos=0.25,0,0.5 "
                   "quaternion=0.9914448613738104,0,-0.13052619222005157,0 offset=0,0,0.3 "
                   "position_only\n"
                   "joints=3 dof=2\n");
}

/* Linked joints survive skeleton.json, URDF and .body (Kinema's kinema_mimic), without a
 * note. */
static void
test_convert_mimic (void)
{
  g_autofree char *input = g_test_build_filename (G_TEST_DIST, "data", "scenebuilder", "slider_gear.xml", NULL);
  const char *targets[] = { "SKELETON-JSON", "URDF", "CHOREONOID-BODY" };
  const char *names[] = { "gears.json", "gears.urdf", "gears.body" };

  for (guint i = 0; i < G_N_ELEMENTS (targets); i++)
    {
      g_autofree char *output = g_build_filename (tmp_dir, names[i], NULL);
      g_auto(Run) run = { 0 };
      KmSkeleton *original, *converted;
      const KmJoint *rack;

      run_cli (&run, NULL, "convert", "--to", targets[i], input, output, NULL);
      g_assert_cmpint (run.status, ==, 0);
      original = load_model (input);
      converted = load_model (output);
      assert_same_kinematics (original, converted, FALSE);
      rack = km_skeleton_get_joint (converted, (guint) km_skeleton_find_joint (converted, "rack_joint"));
      g_assert_true (km_skeleton_equal (original, converted, 1e-12));
      g_assert_cmpint (rack->mimic, ==, km_skeleton_find_joint (converted, "pinion_joint"));
      g_assert_cmpfloat_with_epsilon (rack->mimic_ratio, 0.02, 1e-15);
      g_assert_cmpfloat_with_epsilon (rack->mimic_offset, 0.01, 1e-15);
      g_assert_null (strstr (run.err, "follows"));
      km_skeleton_unref (original);
      km_skeleton_unref (converted);
    }
}

/* A follower with a mimic offset starts at that offset (the loaders state it as the
 * model's initial pose), but URDF and skeleton.json write the mimic itself, ratio and
 * offset, so that pose is not lost: no note says it is. A pose the model really states (a
 * scene's joint pos values, the pinion at 0.5 rad) still gets the note, and a .body file,
 * which holds a pose, none. */
static void
test_convert_mimic_offset_pose (void)
{
  static const char urdf[] =
    "<?xml version=\"1.0\"?>\n"
    "<robot name=\"gripper\">\n"
    "  <link name=\"base\"/>\n"
    "  <link name=\"left\"/>\n"
    "  <link name=\"right\"/>\n"
    "  <joint name=\"left_joint\" type=\"revolute\">\n"
    "    <parent link=\"base\"/>\n"
    "    <child link=\"left\"/>\n"
    "    <axis xyz=\"0 0 1\"/>\n"
    "    <limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/>\n"
    "  </joint>\n"
    "  <joint name=\"right_joint\" type=\"revolute\">\n"
    "    <parent link=\"base\"/>\n"
    "    <child link=\"right\"/>\n"
    "    <axis xyz=\"0 0 1\"/>\n"
    "    <limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/>\n"
    "    <mimic joint=\"left_joint\" multiplier=\"-1\" offset=\"0.25\"/>\n"
    "  </joint>\n"
    "</robot>\n";
  g_autofree char *input = g_build_filename (tmp_dir, "gripper-offset.urdf", NULL);
  g_autofree char *gears = g_test_build_filename (G_TEST_DIST, "data", "scenebuilder",
                                                  "slider_gear.xml", NULL);
  const char *names[] = { "gripper-offset-out.urdf", "gripper-offset.json" };
  const struct
  {
    const char *name;
    const char *note;   /* NULL: none */
  } stated[] = {
    { "gears-pose.urdf", "note: the initial pose the model states is not carried over to "
                         "URDF\n" },
    { "gears-pose.json", "note: the initial pose the model states is not carried over to "
                         "skeleton.json\n" },
    { "gears-pose.body", NULL },
  };

  g_assert_true (g_file_set_contents (input, urdf, -1, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *output = g_build_filename (tmp_dir, names[i], NULL);
      g_auto(Run) run = { 0 };
      KmSkeleton *converted;
      const KmJoint *right;

      run_cli (&run, NULL, "convert", input, output, NULL);
      g_assert_cmpint (run.status, ==, 0);
      if (strstr (run.err, "initial pose") != NULL)
        g_error ("%s: a note on the initial pose in “%s”", names[i], run.err);
      /* What makes the note wrong: the written file holds the offset. */
      converted = load_model (output);
      right = km_skeleton_get_joint (converted,
                                     (guint) km_skeleton_find_joint (converted, "right_joint"));
      g_assert_cmpint (right->mimic, ==, km_skeleton_find_joint (converted, "left_joint"));
      g_assert_cmpfloat (right->mimic_offset, ==, 0.25);
      km_skeleton_unref (converted);
      g_unlink (output);
    }
  g_unlink (input);

  for (guint i = 0; i < G_N_ELEMENTS (stated); i++)
    {
      g_autofree char *output = g_build_filename (tmp_dir, stated[i].name, NULL);
      g_auto(Run) run = { 0 };

      run_cli (&run, NULL, "convert", gears, output, NULL);
      g_assert_cmpint (run.status, ==, 0);
      if (stated[i].note != NULL && strstr (run.err, stated[i].note) == NULL)
        g_error ("%s: no “%s” in “%s”", stated[i].name, stated[i].note, run.err);
      if (stated[i].note == NULL)
        g_assert_null (strstr (run.err, "initial pose"));
      g_unlink (output);
    }
}

/* A project rewritten into another folder keeps every item, and its relative references
 * still reach the model and targets files. */
static void
test_convert_project (void)
{
  g_autofree char *input = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema", "arm.cnoid", NULL);
  g_autofree char *output = g_build_filename (tmp_dir, "arm.cnoid", NULL);
  g_auto(Run) run = { 0 };
  g_auto(Run) before = { 0 };
  g_auto(Run) after = { 0 };

  run_cli (&run, NULL, "convert", input, output, NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_true (g_str_has_suffix (run.out, "format=CNOID-PROJECT\n"));

  run_cli (&before, NULL, "info", input, NULL);
  run_cli (&after, NULL, "info", output, NULL);
  g_assert_cmpint (after.status, ==, 0);
  g_assert_cmpstr (after.err, ==, "");
  g_assert_true (g_str_has_suffix (after.out, "items=6 unknown=0 bodies=1\n"));
  g_assert_cmpstr (after.out, ==, before.out);
}

static void
test_convert_errors (void)
{
  g_autofree char *input = g_test_build_filename (G_TEST_DIST, "..", "data", "skeleton.json", NULL);
  g_autofree char *existing = g_build_filename (tmp_dir, "keep.json", NULL);
  g_autofree char *unwritable = g_build_filename (tmp_dir, "no-such-dir", "out.json", NULL);
  g_autofree char *contents = NULL;
  g_auto(Run) usage = { 0 };
  g_auto(Run) missing = { 0 };
  g_auto(Run) bad_dir = { 0 };

  run_cli (&usage, NULL, "convert", input, NULL);
  g_assert_cmpint (usage.status, ==, 2);

  g_assert_true (g_file_set_contents (existing, "old", -1, NULL));
  run_cli (&missing, NULL, "convert", "/nonexistent/model.body", existing, NULL);
  g_assert_cmpint (missing.status, ==, 1);
  g_assert_true (g_file_get_contents (existing, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "old");

  run_cli (&bad_dir, NULL, "convert", input, unwritable, NULL);
  g_assert_cmpint (bad_dir.status, ==, 1);
  assert_write_error (bad_dir.err, unwritable);
}

/* A directory as OUTPUT: said of the output, as every command says a write failure. */
static void
test_convert_into_directory (void)
{
  g_autofree char *model = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema", "arm.json", NULL);
  g_autofree char *targets = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema", "targets.json", NULL);
  g_autofree char *project = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema", "arm.cnoid", NULL);
  g_autofree char *dir = g_build_filename (tmp_dir, "odir", NULL);
  const char *inputs[] = { model, targets, project };

  g_assert_cmpint (g_mkdir (dir, 0777), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (inputs); i++)
    {
      g_auto(Run) run = { 0 };

      run_cli (&run, NULL, "convert", inputs[i], dir, NULL);
      g_assert_cmpint (run.status, ==, 1);
      g_assert_cmpstr (run.out, ==, "");
      assert_write_error (run.err, dir);
    }
  g_rmdir (dir);
}

static void
test_convert_to_body (void)
{
  g_autofree char *input = g_test_build_filename (G_TEST_DIST, "data", "choreonoid", "SR1.body", NULL);
  g_autofree char *output = g_build_filename (tmp_dir, "sr1-out.body", NULL);
  g_auto(Run) run = { 0 };

  run_cli (&run, NULL, "convert", "--to", "CHOREONOID-BODY", input, output, NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_true (g_str_has_suffix (run.out, "format=CHOREONOID-BODY joints=30 dof=29 free_root=1\n"));
  /* Same format in and out: shapes are kept, but mass properties and devices are not
   * (the writer writes the skeleton): the note says so, as for any other format. */
  g_assert_nonnull (strstr (run.err, "note: only the kinematic tree and display shapes are "
                                     "converted"));
  g_assert_null (strstr (run.err, "display shapes are not carried over"));

  assert_info_suffix (output, "joints=30 dof=29 free_root=1\n");
  assert_converted_model (input, output, FALSE);
}

static void
test_convert_to_urdf (void)
{
  g_autofree char *input = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema", "arm.json", NULL);
  g_autofree char *output = g_build_filename (tmp_dir, "arm-out.urdf", NULL);
  g_autofree char *body = g_build_filename (tmp_dir, "arm-out.body", NULL);
  g_auto(Run) run = { 0 };
  g_auto(Run) run_body = { 0 };

  run_cli (&run, NULL, "convert", "--to", "URDF", input, output, NULL);
  g_assert_cmpint (run.status, ==, 0);
  /* The written file's joints: the spherical joint is three. */
  g_assert_true (g_str_has_suffix (run.out, "format=URDF joints=7 dof=5\n"));
  g_assert_nonnull (strstr (run.err, "note: spherical joint “Shoulder” has no URDF equivalent: "
                                     "written as three revolute joints Shoulder_x, Shoulder_y "
                                     "and Shoulder about X, Y and Z\n"));

  assert_info_suffix (output, "joints=7 dof=5\n");
  assert_converted_model (input, output, TRUE);

  run_cli (&run_body, NULL, "convert", "-t", "CHOREONOID-BODY", input, body, NULL);
  g_assert_cmpint (run_body.status, ==, 0);
  g_assert_nonnull (strstr (run_body.err, "no .body equivalent"));
  assert_converted_model (input, body, TRUE);
}

static void
test_convert_to_errors (void)
{
  g_autofree char *model = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema", "arm.json", NULL);
  g_autofree char *project = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema", "arm.cnoid", NULL);
  g_autofree char *existing = g_build_filename (tmp_dir, "keep.urdf", NULL);
  g_autofree char *unwritable = g_build_filename (tmp_dir, "no-such-dir", "out.urdf", NULL);
  g_autofree char *contents = NULL;
  g_auto(Run) bad_to = { 0 };
  g_auto(Run) not_model = { 0 };
  g_auto(Run) bad_dir = { 0 };

  g_assert_true (g_file_set_contents (existing, "old", -1, NULL));
  run_cli (&bad_to, NULL, "convert", "--to", "SDF", model, existing, NULL);
  g_assert_cmpint (bad_to.status, ==, 2);
  g_assert_nonnull (strstr (bad_to.err, "unknown target format “SDF”"));
  run_cli (&not_model, NULL, "convert", "--to", "URDF", project, existing, NULL);
  g_assert_cmpint (not_model.status, ==, 2);
  g_assert_nonnull (strstr (not_model.err, "--to applies to models only"));
  g_assert_true (g_file_get_contents (existing, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "old");

  run_cli (&bad_dir, NULL, "convert", "--to", "URDF", model, unwritable, NULL);
  g_assert_cmpint (bad_dir.status, ==, 1);
  g_assert_true (g_str_has_prefix (bad_dir.err, "note: "));
  assert_write_error (bad_dir.err, unwritable);
}

/* Without --to, a model is written in the format its output file's extension names
 * (.urdf, .body, .json; case-insensitive), skeleton.json for any other; --to is written
 * into a name with the matching extension, an unknown one or none (another model
 * extension is refused: test_convert_to_conflicts()), and targets files are rewritten as
 * targets whatever the name. */
static void
test_convert_by_extension (void)
{
  g_autofree char *model = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema", "arm.json", NULL);
  g_autofree char *targets = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema", "targets.json", NULL);
  static const struct
  {
    const char *name;
    const char *to;        /* --to, or NULL */
    const char *format;    /* what is written */
    const char *start;     /* how the file starts */
  } cases[] = {
    { "ext.urdf", NULL, "URDF", "<?xml" },
    { "ext-upper.URDF", NULL, "URDF", "<?xml" },
    { "ext.body", NULL, "CHOREONOID-BODY", "format: \"ChoreonoidBody\"" },
    { "ext.json", NULL, "SKELETON-JSON", "{" },
    { "ext.txt", NULL, "SKELETON-JSON", "{" },
    { "ext-noext", NULL, "SKELETON-JSON", "{" },
    { "ext-to.urdf", "URDF", "URDF", "<?xml" },
    { "ext-to.Body", "CHOREONOID-BODY", "CHOREONOID-BODY", "format: \"ChoreonoidBody\"" },
    { "ext-to.txt", "URDF", "URDF", "<?xml" },
    { "ext-to-noext", "CHOREONOID-BODY", "CHOREONOID-BODY", "format: \"ChoreonoidBody\"" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *output = g_build_filename (tmp_dir, cases[i].name, NULL);
      /* The written file's joints: arm.json's spherical joint is three in URDF and .body. */
      g_autofree char *summary = g_strdup_printf ("output=%s format=%s joints=%u dof=5\n", output,
                                                  cases[i].format,
                                                  g_str_equal (cases[i].format, "SKELETON-JSON") ?
                                                  5 : 7);
      g_autofree char *contents = NULL;
      g_auto(Run) run = { 0 };

      if (cases[i].to != NULL)
        run_cli (&run, NULL, "convert", "--to", cases[i].to, model, output, NULL);
      else
        run_cli (&run, NULL, "convert", model, output, NULL);
      g_assert_cmpint (run.status, ==, 0);
      g_assert_cmpstr (run.out, ==, summary);
      g_assert_true (g_file_get_contents (output, &contents, NULL, NULL));
      if (!g_str_has_prefix (contents, cases[i].start))
        g_error ("%s: expected “%s…”, got “%.40s…”", cases[i].name, cases[i].start, contents);
      assert_converted_model (model, output, TRUE);
    }

  /* Only models: a targets file stays a targets file (in a name that does not say
   * otherwise, see test_convert_extension_kind()). */
  {
    g_autofree char *output = g_build_filename (tmp_dir, "targets-out.txt", NULL);
    g_auto(Run) run = { 0 };

    run_cli (&run, NULL, "convert", targets, output, NULL);
    g_assert_cmpint (run.status, ==, 0);
    g_assert_nonnull (strstr (run.out, "format=KINEMA-TARGETS-JSON"));
  }
}

/* OUTPUT's extension names a kind of file the input is not (a targets file or a project
 * into .urdf or .body, a model into .cnoid, …) or a format Kinema does not write (.wrl,
 * Scenebuilder's .xml): refused as --to is, exit 2, and an existing
 * OUTPUT (the model the arguments were probably swapped with) stays as it was. Extensions
 * of the input's own kind, and unknown ones, keep writing the input's own format. */
static void
test_convert_extension_kind (void)
{
  g_autofree char *model = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema", "arm.json", NULL);
  g_autofree char *targets = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema", "targets.json", NULL);
  g_autofree char *project = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema", "arm.cnoid", NULL);
  g_autofree char *animation = g_build_filename (tmp_dir, "kind.animation.json", NULL);
  static const struct
  {
    int         input;     /* 0 model, 1 targets, 2 project, 3 animation */
    const char *name;
    const char *what;      /* what the message says the input is */
  } refused[] = {
    { 1, "precious.urdf", "an IK targets file" },
    { 1, "precious.BODY", "an IK targets file" },
    { 1, "kind.cnoid", "an IK targets file" },
    { 1, "kind.seq", "an IK targets file" },
    { 1, "kind.wrl", "an IK targets file" },
    { 2, "k2.body", "a Choreonoid project" },
    { 2, "k2.urdf", "a Choreonoid project" },
    { 2, "k2.json", "a Choreonoid project" },
    { 0, "model.cnoid", "a model" },
    { 0, "model.seq", "a model" },
    { 0, "model.pseq", "a model" },
    { 0, "model.wrl", "a model" },      /* formats Kinema reads and does not write */
    { 0, "model.XML", "a model" },
    { 0, "model.dae", "a model" },      /* meshes Kinema reads and does not write */
    { 0, "model.STL", "a model" },
    { 0, "model.obj", "a model" },
    { 3, "anim.urdf", "a solved animation" },
  };
  static const struct
  {
    int         input;
    const char *name;
    const char *format;    /* the output line's format= */
  } accepted[] = {
    { 1, "kind-targets.json", "KINEMA-TARGETS-JSON" },
    { 1, "kind-targets.txt", "KINEMA-TARGETS-JSON" },
    { 2, "kind-project.cnoid", "CNOID-PROJECT" },
    { 2, "kind-project.yaml", "CNOID-PROJECT" },
    { 0, "kind-model.yaml", "SKELETON-JSON" },
  };

  {
    g_auto(Run) solve = { 0 };

    run_cli (&solve, NULL, "solve", model, targets, "-o", animation, NULL);
    g_assert_cmpint (solve.status, ==, 0);
  }

  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      const char *inputs[] = { model, targets, project, animation };
      g_autofree char *output = g_build_filename (tmp_dir, refused[i].name, NULL);
      g_autofree char *contents = NULL;
      g_auto(Run) run = { 0 };

      g_assert_true (g_file_set_contents (output, "precious", -1, NULL));
      run_cli (&run, NULL, "convert", inputs[refused[i].input], output, NULL);
      if (run.status != 2 || strstr (run.err, refused[i].what) == NULL ||
          strstr (run.err, strrchr (refused[i].name, '.')) == NULL)
        g_error ("%s: exit %d, “%s”", refused[i].name, run.status, run.err);
      g_assert_cmpstr (run.out, ==, "");
      g_assert_true (g_file_get_contents (output, &contents, NULL, NULL));
      g_assert_cmpstr (contents, ==, "precious");
      g_unlink (output);

      /* Nothing is created either. */
      run_clear (&run);
      run_cli (&run, NULL, "convert", inputs[refused[i].input], output, NULL);
      g_assert_cmpint (run.status, ==, 2);
      g_assert_false (g_file_test (output, G_FILE_TEST_EXISTS));
    }

  for (guint i = 0; i < G_N_ELEMENTS (accepted); i++)
    {
      const char *inputs[] = { model, targets, project };
      g_autofree char *output = g_build_filename (tmp_dir, accepted[i].name, NULL);
      g_autofree char *start = NULL;
      g_auto(Run) run = { 0 };

      run_cli (&run, NULL, "convert", inputs[accepted[i].input], output, NULL);
      g_assert_cmpint (run.status, ==, 0);
      start = g_strdup_printf ("output=%s format=%s", output, accepted[i].format);
      if (!g_str_has_prefix (run.out, start))
        g_error ("%s: “%s”", accepted[i].name, run.out);
    }
}

/* --to and an OUTPUT whose extension names another model format that convert writes
 * (.urdf, .body, .json, in any case): which one was meant cannot be known, so it is
 * refused as wrong usage, naming both formats and the extension --to wants; nothing is
 * written, and an earlier model under that name is kept (as solve refuses --to with the
 * other format's extension). */
static void
test_convert_to_conflicts (void)
{
  g_autofree char *model = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema", "arm.json", NULL);
  static const struct
  {
    const char *to;
    const char *name;
    const char *implied;  /* the format the name says */
    const char *suffix;   /* the extension the message asks for */
  } refused[] = {
    { "URDF", "robot.body", "CHOREONOID-BODY", ".urdf" },
    { "URDF", "robot.json", "SKELETON-JSON", ".urdf" },
    { "CHOREONOID-BODY", "robot.urdf", "URDF", ".body" },
    { "CHOREONOID-BODY", "robot.JSON", "SKELETON-JSON", ".body" },
    { "SKELETON-JSON", "robot.URDF", "URDF", ".json" },
    { "SKELETON-JSON", "robot.Body", "CHOREONOID-BODY", ".json" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      g_autofree char *output = g_build_filename (tmp_dir, refused[i].name, NULL);
      g_autofree char *expected =
        g_strdup_printf ("kinema-cli: %s: the extension “%s” is for %s, but --to asks for %s: "
                         "nothing was written (leave out --to, or give a name ending in “%s”)\n",
                         output, strrchr (refused[i].name, '.'), refused[i].implied,
                         refused[i].to, refused[i].suffix);
      g_autofree char *written = NULL;
      g_auto(Run) run = { 0 };
      g_auto(Run) first = { 0 };
      g_auto(Run) again = { 0 };

      /* Nothing is created... */
      run_cli (&run, NULL, "convert", "--to", refused[i].to, model, output, NULL);
      assert_output_refused (&run, output, NULL);
      g_assert_cmpstr (run.err, ==, expected);

      /* ...nor is a model in the format the name says replaced. */
      run_cli (&first, NULL, "convert", model, output, NULL);
      g_assert_cmpint (first.status, ==, 0);
      g_assert_nonnull (strstr (first.out, refused[i].implied));
      g_assert_true (g_file_get_contents (output, &written, NULL, NULL));
      run_cli (&again, NULL, "convert", "--to", refused[i].to, model, output, NULL);
      assert_output_refused (&again, output, written);
      g_assert_cmpstr (again.err, ==, expected);
      g_unlink (output);
    }
}

/* Names with a tab or a line feed: URDF keeps them (as character references), and `info`
 * writes them escaped (\t, \n, \\), so that every key=value line stays one line. */
static void
test_convert_control_char_names (void)
{
  static const char json[] =
    "{\"root_name\": \"ro\\\\ot\", \"joints\": [\n"
    "  {\"name\": \"ro\\\\ot\", \"type\": \"fixed\", \"offset\": [0, 0, 0]},\n"
    "  {\"name\": \"a\\tb\\nc\", \"type\": \"revolute\", \"offset\": [0, 0, 0.5], "
    "\"parent\": \"ro\\\\ot\", \"axis\": [0, 0, 1]},\n"
    "  {\"name\": \"end\\r\", \"type\": \"fixed\", \"offset\": [0, 0, 0.3], "
    "\"parent\": \"a\\tb\\nc\"}\n"
    "]}\n";
  g_autofree char *input = g_build_filename (tmp_dir, "weird.json", NULL);
  g_autofree char *urdf = g_build_filename (tmp_dir, "weird.urdf", NULL);
  g_autofree char *back = g_build_filename (tmp_dir, "weird-back.json", NULL);
  g_auto(Run) to_urdf = { 0 };
  g_auto(Run) to_json = { 0 };
  g_auto(Run) info = { 0 };
  g_auto(Run) info_urdf = { 0 };
  g_auto(GStrv) lines = NULL;
  KmSkeleton *skel;

  g_assert_true (g_file_set_contents (input, json, -1, NULL));
  run_cli (&to_urdf, NULL, "convert", "--to", "URDF", input, urdf, NULL);
  g_assert_cmpint (to_urdf.status, ==, 0);
  run_cli (&to_json, NULL, "convert", urdf, back, NULL);
  g_assert_cmpint (to_json.status, ==, 0);
  skel = load_model (back);
  g_assert_cmpint (km_skeleton_find_joint (skel, "a\tb\nc"), ==, 1);
  g_assert_cmpint (km_skeleton_find_joint (skel, "end\r"), ==, 2);
  km_skeleton_unref (skel);

  run_cli (&info, NULL, "info", input, NULL);
  g_assert_cmpint (info.status, ==, 0);
  lines = g_strsplit (info.out, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 5);
  g_assert_cmpstr (lines[0], ==, "joint=ro\\\\ot type=fixed parent=- dof=0 axis=- limits=-");
  g_assert_cmpstr (lines[1], ==, "joint=a\\tb\\nc type=revolute parent=ro\\\\ot dof=1 axis=0,0,1 "
                                 "limits=-");
  g_assert_cmpstr (lines[2], ==, "joint=end\\r type=fixed parent=a\\tb\\nc dof=0 axis=- limits=-");
  g_assert_cmpstr (lines[3], ==, "joints=3 dof=1");
  g_assert_cmpstr (lines[4], ==, "");

  /* The URDF reads back with the same names, so it describes them the same way. */
  run_cli (&info_urdf, NULL, "info", urdf, NULL);
  g_assert_cmpint (info_urdf.status, ==, 0);
  g_assert_nonnull (strstr (info_urdf.out, "\njoint=a\\tb\\nc type=revolute parent=ro\\\\ot "));
  g_assert_nonnull (strstr (info_urdf.out, "\njoint=end\\r type=fixed parent=a\\tb\\nc "));
}

/* The other describe lines escape names too: a targets file's effector, a project's item. */
static void
test_info_control_char_names (void)
{
  static const char targets[] =
    "[ { \"frame\": 0, \"pos\": [0, 0, 1], \"euler\": [0, 0, 0], \"effector\": \"a\\nb\" } ]\n";
  static const char project[] =
    "items:\n"
    "  id: 0\n"
    "  name: \"Root\"\n"
    "  plugin: Base\n"
    "  class: RootItem\n"
    "  children:\n"
    "    - id: 1\n"
    "      name: \"two\\nlines\"\n"
    "      plugin: Base\n"
    "      class: FolderItem\n";
  g_autofree char *targets_path = g_build_filename (tmp_dir, "weird-targets.json", NULL);
  g_autofree char *project_path = g_build_filename (tmp_dir, "weird.cnoid", NULL);
  g_auto(Run) info_targets = { 0 };
  g_auto(Run) info_project = { 0 };

  g_assert_true (g_file_set_contents (targets_path, targets, -1, NULL));
  g_assert_true (g_file_set_contents (project_path, project, -1, NULL));
  run_cli (&info_targets, NULL, "info", targets_path, NULL);
  g_assert_cmpint (info_targets.status, ==, 0);
  g_assert_nonnull (strstr (info_targets.out, "effector=a\\nb\n"));
  run_cli (&info_project, NULL, "info", project_path, NULL);
  g_assert_cmpint (info_project.status, ==, 0);
  g_assert_nonnull (strstr (info_project.out, "\"two\\nlines\""));
}

/* Rewriting a .body or URDF file as the same format keeps the kinematic tree only (mass
 * properties, devices, <inertial>, <dynamics>, … are not written): the note says so, as it
 * does between formats. */
static void
test_convert_same_format_note (void)
{
  const char *inputs[][2] = {
    { "choreonoid/SR1.body", "same.body" },
    { "review/ur10.urdf", "same.urdf" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (inputs); i++)
    {
      g_autofree char *input = g_test_build_filename (G_TEST_DIST, "data", inputs[i][0], NULL);
      g_autofree char *output = g_build_filename (tmp_dir, inputs[i][1], NULL);
      g_auto(Run) run = { 0 };

      run_cli (&run, NULL, "convert", input, output, NULL);
      g_assert_cmpint (run.status, ==, 0);
      if (strstr (run.err, "note: only the kinematic tree") == NULL)
        g_error ("%s: no note in “%s”", inputs[i][0], run.err);
      g_unlink (output);
    }
}

/* OUTPUT is never INPUT (nor "./INPUT", nor a link to it), nor an existing file of another
 * kind than INPUT (a model over a targets file): exit 2, the file as it was. */
static void
test_convert_over_input (void)
{
  g_autofree char *source = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema", "arm.json", NULL);
  g_autofree char *source_targets = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema", "targets.json", NULL);
  g_autofree char *model = copy_file_to (source, tmp_dir, "self.json");
  g_autofree char *targets = copy_file_to (source_targets, tmp_dir, "self-targets.json");
  g_autofree char *link = g_build_filename (tmp_dir, "self-link.json", NULL);
  g_autofree char *model_text = NULL;
  g_autofree char *targets_text = NULL;
  const char *outputs[] = { "self.json", "./self.json", "self-link.json" };

  g_assert_true (g_file_get_contents (model, &model_text, NULL, NULL));
  g_assert_true (g_file_get_contents (targets, &targets_text, NULL, NULL));
  g_assert_cmpint (symlink ("self.json", link), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (outputs); i++)
    {
      g_auto(Run) run = { 0 };

      run_cli (&run, tmp_dir, "convert", "self.json", outputs[i], NULL);
      assert_output_refused (&run, model, model_text);
      g_assert_nonnull (strstr (run.err, "is the input file"));
    }
  {
    g_auto(Run) run = { 0 };
    g_auto(Run) targets_run = { 0 };

    run_cli (&run, NULL, "convert", model, targets, NULL);
    assert_output_refused (&run, targets, targets_text);
    g_assert_nonnull (strstr (run.err, "exists and is an IK targets file"));
    /* A targets file rewritten over an older copy of itself is fine. */
    run_cli (&targets_run, NULL, "convert", source_targets, targets, NULL);
    g_assert_cmpint (targets_run.status, ==, 0);
  }
  g_unlink (link);
  g_unlink (targets);
  g_unlink (model);
}

/* A scene's IK targets have no place in any model format convert writes: a note names
 * them, as the other notes name what is left out. A model without any says nothing. */
static void
test_convert_ik_targets_note (void)
{
  g_autofree char *arm = g_test_build_filename (G_TEST_DIST, "data", "scenebuilder", "arm2_mm_deg.xml", NULL);
  g_autofree char *gears = g_test_build_filename (G_TEST_DIST, "data", "scenebuilder", "slider_gear.xml", NULL);
  const struct
  {
    const char *name;
    const char *note;
  } cases[] = {
    { "ik.urdf", "note: 1 IK target (“reach”) is not written: URDF has no IK targets\n" },
    { "ik.body", "note: 1 IK target (“reach”) is not written: a .body file has no IK "
                 "targets\n" },
    { "ik.json", "note: 1 IK target (“reach”) is not written: skeleton.json has no IK "
                 "targets\n" },
  };
  g_autofree char *plain = g_build_filename (tmp_dir, "no-ik.urdf", NULL);
  g_auto(Run) run_plain = { 0 };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *output = g_build_filename (tmp_dir, cases[i].name, NULL);
      g_auto(Run) run = { 0 };

      run_cli (&run, NULL, "convert", arm, output, NULL);
      g_assert_cmpint (run.status, ==, 0);
      if (strstr (run.err, cases[i].note) == NULL)
        g_error ("%s: no “%s” in “%s”", cases[i].name, cases[i].note, run.err);
      g_unlink (output);
    }

  run_cli (&run_plain, NULL, "convert", gears, plain, NULL);
  g_assert_cmpint (run_plain.status, ==, 0);
  g_assert_null (strstr (run_plain.err, "IK target"));
  g_unlink (plain);
}

/* The summary line counts the written file, as `info` reads it: a spherical joint is
 * three URDF (or .body) joints, a free root placed in URDF hangs below a new base link. */
static void
test_convert_written_counts (void)
{
  const struct
  {
    const char *input;
    const char *output;
    const char *summary;
  } cases[] = {
    { "cnoid/kinema/arm.json", "counts-arm.urdf", "format=URDF joints=7 dof=5\n" },
    { "cnoid/kinema/arm.json", "counts-arm.body", "format=CHOREONOID-BODY joints=7 dof=5\n" },
    { "cnoid/kinema/arm.json", "counts-arm.json", "format=SKELETON-JSON joints=5 dof=5\n" },
    /* The free root said too, as info says it (review r2, 4: it was left out); the
     * joints as info counts them (below). */
    { "choreonoid/SR1.body", "counts-sr1.urdf", " dof=29 free_root=1\n" },
    { "choreonoid/SR1.body", "counts-sr1.body", " dof=29 free_root=1\n" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *input = g_test_build_filename (G_TEST_DIST, "data", cases[i].input, NULL);
      g_autofree char *output = g_build_filename (tmp_dir, cases[i].output, NULL);
      g_auto(Run) run = { 0 };
      g_auto(Run) info = { 0 };
      const char *counts;

      run_cli (&run, NULL, "convert", input, output, NULL);
      g_assert_cmpint (run.status, ==, 0);
      if (!g_str_has_suffix (run.out, cases[i].summary))
        g_error ("%s → %s: “%s” does not end in “%s”", cases[i].input, cases[i].output,
                 run.out, cases[i].summary);
      /* The same numbers as `info` gives for the file. */
      counts = strstr (run.out, " joints=") + 1;
      run_cli (&info, NULL, "info", output, NULL);
      g_assert_cmpint (info.status, ==, 0);
      {
        g_autofree char *line = g_strndup (counts, strlen (counts) - 1);
        const char *last = strrchr (g_strchomp (info.out), '\n');

        last = last != NULL ? last + 1 : info.out;
        /* The whole summary, not a prefix of it. */
        if (!g_str_equal (last, line))
          g_error ("%s: info says “%s”, convert “%s”", cases[i].output, last, line);
      }
      g_unlink (output);
    }
}

/* rev16-cli 4 and 6: a targets file's keyframe keys Kinema does not interpret survive a
 * rewrite (they were dropped); "-" and /dev/stdout (a pipe here: it used to fail with
 * "No such file or directory") get the file, the summary line going to stderr. */
static void
test_convert_stdout_and_extra_keys (void)
{
  g_autofree char *targets = g_build_filename (tmp_dir, "commented.json", NULL);
  const char *outputs[] = { "-", "/dev/stdout" };

  g_assert_true (g_file_set_contents (targets, "[{\"frame\": 0, \"pos\": [1, 1, 1], "
                                               "\"euler\": [0, 0, 0], \"comment\": \"start\", "
                                               "\"time\": 0.25}]\n", -1, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (outputs); i++)
    {
      g_auto(Run) run = { 0 };
      g_autofree char *summary = g_strdup_printf ("output=%s format=KINEMA-TARGETS-JSON "
                                                  "keyframes=1\n", outputs[i]);

      run_cli (&run, NULL, "convert", targets, outputs[i], NULL);
      g_assert_cmpint (run.status, ==, 0);
      g_assert_cmpstr (run.out, ==, "[\n  {\n    \"frame\": 0,\n    \"pos\": [1, 1, 1],\n"
                                    "    \"euler\": [0, 0, 0],\n    \"comment\": \"start\",\n"
                                    "    \"time\": 0.25\n  }\n]\n");
      g_assert_true (g_str_has_suffix (run.err, summary));
      /* Kept, so not "unknown key “comment” ignored" (which was false). */
      g_assert_null (strstr (run.err, "warning"));
    }
  g_unlink (targets);
}

/* rev17-cli 4: `convert` of a targets file wrote the euler angles from the rotation,
 * rounded to 1e-9° (11 significant digits of 17, another triple for the same rotation,
 * 1e-300 as 0), so the rewritten file no longer gave the same targets. They are written
 * as read, as the positions are. */
static void
test_convert_targets_euler_as_read (void)
{
  g_autofree char *targets = g_build_filename (tmp_dir, "euler17.json", NULL);
  g_autofree char *output = g_build_filename (tmp_dir, "euler17-out.json", NULL);
  g_autofree char *written = NULL;
  g_auto(Run) run = { 0 };

  g_assert_true (g_file_set_contents (targets,
    "[{\"frame\": 1, \"pos\": [0.25, 0.5, 1],\n"
    "  \"euler\": [-160.0765651501738, 67.50305140548178, -64.56023006769443]},\n"
    " {\"frame\": 0, \"pos\": [0.25, 0.5, 1],\n"
    "  \"euler\": [53.630839129292724, 144.32417703022418, -139.24585272486803]},\n"
    " {\"frame\": 2, \"pos\": [0.25, 0.5, 1], \"euler\": [0.1, 1e-300, -0]}]\n", -1, NULL));
  run_cli (&run, NULL, "convert", targets, output, NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_true (g_file_get_contents (output, &written, NULL, NULL));
  g_assert_nonnull (strstr (written, "\"euler\": [53.630839129292724, 144.32417703022418, "
                                     "-139.24585272486803]"));
  g_assert_nonnull (strstr (written, "\"euler\": [-160.0765651501738, 67.50305140548178, "
                                     "-64.56023006769443]"));
  g_assert_nonnull (strstr (written, "\"euler\": [0.1, 1e-300, -0]"));
  g_unlink (targets);
  g_unlink (output);
}

/* --to takes a format name in any case, as --format does (the same matching): the format
 * written, its output line and a conflict with OUTPUT's extension are as for the name in
 * capitals. */
static void
test_convert_to_any_case (void)
{
  g_autofree char *input = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema", "arm.json", NULL);
  g_autofree char *urdf = g_build_filename (tmp_dir, "lower.urdf", NULL);
  g_autofree char *body = g_build_filename (tmp_dir, "mixed.out", NULL);
  g_autofree char *conflict = g_build_filename (tmp_dir, "lower-conflict.body", NULL);
  g_auto(Run) lower = { 0 };
  g_auto(Run) mixed = { 0 };
  g_auto(Run) refused = { 0 };

  run_cli (&lower, NULL, "convert", "--to", "urdf", input, urdf, NULL);
  g_assert_cmpint (lower.status, ==, 0);
  g_assert_true (g_str_has_suffix (lower.out, " format=URDF joints=7 dof=5\n"));
  assert_info_suffix (urdf, "joints=7 dof=5\n");

  run_cli (&mixed, NULL, "convert", "-t", "Choreonoid-Body", input, body, NULL);
  g_assert_cmpint (mixed.status, ==, 0);
  g_assert_nonnull (strstr (mixed.out, " format=CHOREONOID-BODY "));
  g_assert_nonnull (strstr (mixed.err, "no .body equivalent"));

  run_cli (&refused, NULL, "convert", "--to", "urdf", input, conflict, NULL);
  g_assert_cmpint (refused.status, ==, 2);
  g_assert_nonnull (strstr (refused.err, "is for CHOREONOID-BODY, but --to asks for urdf"));
  g_assert_false (g_file_test (conflict, G_FILE_TEST_EXISTS));
}

/* An OUTPUT refused for what its name says (a model into .cnoid, a targets file into .urdf)
 * is said in one "kinema-cli: …" line, exit 2, as `solve` says it: the options were right,
 * so no help follows (it once buried the reason under the whole --help text). */
static void
test_convert_refusal_one_line (void)
{
  g_autofree char *model = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema", "arm.json", NULL);
  g_autofree char *targets = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema", "targets.json", NULL);
  g_autofree char *cnoid = g_build_filename (tmp_dir, "refused-one-line.cnoid", NULL);
  g_autofree char *urdf = g_build_filename (tmp_dir, "refused-one-line.urdf", NULL);
  const char *cases[][2] = { { model, cnoid }, { targets, urdf } };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto(Run) run = { 0 };

      run_cli (&run, NULL, "convert", cases[i][0], cases[i][1], NULL);
      assert_output_refused (&run, cases[i][1], NULL);
      /* One line, and nothing after it. */
      g_assert_true (strchr (run.err, '\n') == run.err + strlen (run.err) - 1);
      g_assert_null (strstr (run.err, "Usage:"));
    }
}

/* The names in the output line and in the messages are escaped C-style when they hold a
 * control character or a backslash (README, kinema-cli), so that each stays one line:
 * output= of a model, a targets file and a project, and the "FILE:LINE:COLUMN:" of an
 * input that is refused. */
static void
test_convert_escaped_names (void)
{
  g_autofree char *model = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema", "arm.json", NULL);
  g_autofree char *targets = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema", "targets.json", NULL);
  g_autofree char *model_out = g_build_filename (tmp_dir, "x\ny.json", NULL);
  g_autofree char *targets_out = g_build_filename (tmp_dir, "t\\u.json", NULL);
  g_autofree char *bad = g_build_filename (tmp_dir, "b\tad.json", NULL);
  g_autofree char *bad_out = g_build_filename (tmp_dir, "bad-out.json", NULL);
  g_autofree char *model_line = g_strdup_printf ("output=%s/x\\ny.json format=SKELETON-JSON "
                                                 "joints=5 dof=5\n", tmp_dir);
  g_autofree char *targets_line = g_strdup_printf ("output=%s/t\\\\u.json "
                                                   "format=KINEMA-TARGETS-JSON ", tmp_dir);
  g_autofree char *bad_start = g_strdup_printf ("%s/b\\tad.json:1:1: ", tmp_dir);
  g_auto(Run) to_model = { 0 };
  g_auto(Run) to_targets = { 0 };
  g_auto(Run) refused = { 0 };

  run_cli (&to_model, NULL, "convert", model, model_out, NULL);
  g_assert_cmpint (to_model.status, ==, 0);
  g_assert_cmpstr (to_model.out, ==, model_line);

  run_cli (&to_targets, NULL, "convert", targets, targets_out, NULL);
  g_assert_cmpint (to_targets.status, ==, 0);
  g_assert_true (g_str_has_prefix (to_targets.out, targets_line));

  g_assert_true (g_file_set_contents (bad, "{\"joints\": 5}\n", -1, NULL));
  run_cli (&refused, NULL, "convert", bad, bad_out, NULL);
  g_assert_cmpint (refused.status, ==, 1);
  if (!g_str_has_prefix (refused.err, bad_start))
    g_error ("“%s”", refused.err);
  g_assert_true (strchr (refused.err, '\n') == refused.err + strlen (refused.err) - 1);
}

/* The last line of @err, "kinema-cli: " and a location: it reads back
 * (km_parse_read_location()) to @file; returns what follows it. */
static const char *
assert_cli_location (const char *err,
                     const char *file)
{
  g_autofree char *found = NULL;
  KmSourcePos pos;
  const char *rest;

  g_test_message ("%s", err);
  g_assert_true (g_utf8_validate (err, -1, NULL));
  /* One line. */
  g_assert_true (strchr (err, '\n') == err + strlen (err) - 1);
  g_assert_true (g_str_has_prefix (err, "kinema-cli: "));
  if (!km_parse_read_location (err + strlen ("kinema-cli: "), &found, &pos, &rest))
    g_error ("no location in “%s”", err);
  g_assert_cmpstr (found, ==, file);
  g_assert_cmpuint (pos.line, ==, 0);
  return rest;
}

/* Messages about the output name it as every location names a file (README,
 * kinema-cli): a name with a colon, a space, a line break and a byte of no valid UTF-8
 * reads back to the name given, and the message stays one line of valid UTF-8: a write
 * that fails, an output that is the input, an output whose extension is for another
 * kind of file. */
static void
test_convert_escaped_output_messages (void)
{
  g_autofree char *model = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema", "arm.json", NULL);
  g_autofree char *missing_dir = g_build_filename (tmp_dir, "n:o d\ni\xffr", NULL);
  g_autofree char *unwritable = g_build_filename (missing_dir, "out.json", NULL);
  g_autofree char *input = g_build_filename (tmp_dir, "i:n p\nu\xfft.json", NULL);
  g_autofree char *wrong_kind = g_build_filename (tmp_dir, "w:r o\nn\xffg.seq", NULL);
  g_autofree char *text = NULL;
  gsize length;
  g_auto(Run) write_fails = { 0 };
  g_auto(Run) same = { 0 };
  g_auto(Run) kind = { 0 };
  const char *rest;

  run_cli (&write_fails, NULL, "convert", model, unwritable, NULL);
  g_assert_cmpint (write_fails.status, ==, 1);
  rest = assert_cli_location (write_fails.err, unwritable);
  g_assert_true (g_str_has_prefix (rest, "cannot write the file: "));

  g_assert_true (g_file_get_contents (model, &text, &length, NULL));
  g_assert_true (g_file_set_contents (input, text, (gssize) length, NULL));
  run_cli (&same, NULL, "convert", input, input, NULL);
  g_assert_cmpint (same.status, ==, 2);
  rest = assert_cli_location (same.err, input);
  g_assert_true (g_str_has_prefix (rest, "the output is the input file "));
  g_assert_null (strchr (rest, '\xff'));

  run_cli (&kind, NULL, "convert", model, wrong_kind, NULL);
  g_assert_cmpint (kind.status, ==, 2);
  g_test_message ("%s", kind.err);
  g_assert_true (g_utf8_validate (kind.err, -1, NULL));
  g_assert_true (strchr (kind.err, '\n') == kind.err + strlen (kind.err) - 1);
  g_assert_false (g_file_test (wrong_kind, G_FILE_TEST_EXISTS));
  g_unlink (input);
}

/* An animation is no file `convert` converts: wrong usage (exit 2), said as every usage
 * error is, "kinema-cli: …", of the input at FILE:1:1. */
static void
test_convert_animation_refused (void)
{
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-convert-anim-XXXXXX");
  g_autofree char *animation = g_build_filename (dir, "a.animation.json", NULL);
  g_autofree char *output = g_build_filename (dir, "x.json", NULL);
  g_autofree char *expected = g_strdup_printf ("kinema-cli: %s:1:1: KINEMA-ANIMATION-JSON "
                                               "files cannot be converted\n", animation);
  g_auto(Run) solved = { 0 };
  g_auto(Run) run = { 0 };

  run_cli (&solved, NULL, "solve", "-o", animation, NULL);
  g_assert_cmpint (solved.status, ==, 0);
  run_cli (&run, NULL, "convert", animation, output, NULL);
  g_assert_cmpint (run.status, ==, 2);
  g_assert_cmpstr (run.err, ==, expected);
  g_assert_cmpstr (run.out, ==, "");
  g_assert_false (g_file_test (output, G_FILE_TEST_EXISTS));
  km_test_remove_tree (dir);
}

/* The default end effector's name and the DOF of the chain that moves it. */
static void
default_effector (const KmSkeleton  *skeleton,
                  const char       **name,
                  guint             *chain_dof)
{
  int e = km_skeleton_get_default_effector (skeleton);

  g_assert_cmpint (e, >=, 0);
  *name = km_skeleton_get_joint (skeleton, (guint) e)->name;
  *chain_dof = 0;
  for (int j = e; j >= 0; j = km_skeleton_get_joint (skeleton, (guint) j)->parent)
    *chain_dof += km_skeleton_get_joint (skeleton, (guint) j)->n_dof;
}

/* A skeleton that lists a child before its parent (E2 before B) has as default end
 * effector its last leaf in file order, E1 (moved by A alone), not E2 (moved by A and B),
 * which the writers' parents-first order would list last: every format `convert` writes
 * keeps E1 the default effector, so that `solve` and `bench-ik` solve the same chain. */
static void
test_convert_keeps_default_effector (void)
{
  const char *json =
    "{\"root_name\":\"R\",\"joints\":[\n"
    " {\"name\":\"R\",\"type\":\"fixed\",\"offset\":[0,0,0]},\n"
    " {\"name\":\"E2\",\"type\":\"fixed\",\"parent\":\"B\",\"offset\":[0,0,0.2]},\n"
    " {\"name\":\"A\",\"type\":\"revolute\",\"parent\":\"R\",\"offset\":[0,0,0.1],"
    "\"axis\":[0,1,0]},\n"
    " {\"name\":\"E1\",\"type\":\"fixed\",\"parent\":\"A\",\"offset\":[0,0,0.3]},\n"
    " {\"name\":\"B\",\"type\":\"revolute\",\"parent\":\"A\",\"offset\":[0.1,0,0],"
    "\"axis\":[0,1,0]}\n"
    "]}\n";
  const char *outputs[] = { "leaves-out.json", "leaves-out.urdf", "leaves-out.body" };
  g_autofree char *input = g_build_filename (tmp_dir, "leaves.json", NULL);
  g_autoptr(KmSkeleton) original = NULL;
  const char *name = NULL;
  guint chain_dof = 0;

  g_assert_true (g_file_set_contents (input, json, -1, NULL));
  original = load_model (input);
  default_effector (original, &name, &chain_dof);
  g_assert_cmpstr (name, ==, "E1");
  g_assert_cmpuint (chain_dof, ==, 1);

  for (guint i = 0; i < G_N_ELEMENTS (outputs); i++)
    {
      g_autofree char *output = g_build_filename (tmp_dir, outputs[i], NULL);
      g_autofree char *again = g_strconcat (output, ".json", NULL);
      g_autoptr(KmSkeleton) converted = NULL;
      g_autoptr(KmSkeleton) back = NULL;
      g_auto(Run) run = { 0 };
      g_auto(Run) run_back = { 0 };

      run_cli (&run, NULL, "convert", input, output, NULL);
      g_assert_cmpint (run.status, ==, 0);
      converted = load_model (output);
      default_effector (converted, &name, &chain_dof);
      if (g_strcmp0 (name, "E1") != 0 || chain_dof != 1)
        g_error ("%s: the default effector is “%s” (%u DOF), not “E1” (1 DOF)", outputs[i],
                 name, chain_dof);
      /* And back into skeleton.json from that format. */
      run_cli (&run_back, NULL, "convert", output, again, NULL);
      g_assert_cmpint (run_back.status, ==, 0);
      back = load_model (again);
      default_effector (back, &name, &chain_dof);
      g_assert_cmpstr (name, ==, "E1");
      g_assert_cmpuint (chain_dof, ==, 1);
      g_unlink (again);
      g_unlink (output);
    }
  g_unlink (input);
}

/* A .body model numbers its joints (jointId), by which its motions' columns go: URDF and
 * skeleton.json have no ids, so a model read back from them numbers its joints anew.
 * `convert` says so in a note, as it says the other things the target cannot carry; a
 * .body keeps them, and a model without ids gets no such note. */
static void
test_convert_joint_ids_note (void)
{
  g_autofree char *body = g_test_build_filename (G_TEST_DIST, "data", "choreonoid", "SR1.body", NULL);
  g_autofree char *json = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema", "arm.json", NULL);
  g_autoptr(KmSkeleton) model = load_model (body);
  guint n_ids = 0;
  const struct
  {
    const char *input;
    const char *output;
    const char *target;   /* NULL: no note */
  } cases[] = {
    { body, "ids-sr1.urdf", "URDF" },
    { body, "ids-sr1.json", "skeleton.json" },
    { body, "ids-sr1.body", NULL },
    { json, "ids-arm.urdf", NULL },
    { json, "ids-arm.json", NULL },
  };

  for (guint i = 0; i < km_skeleton_get_n_joints (model); i++)
    if (km_skeleton_get_joint (model, i)->joint_id >= 0)
      n_ids++;
  g_assert_cmpuint (n_ids, >, 1);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *output = g_build_filename (tmp_dir, cases[i].output, NULL);
      g_autofree char *note = NULL;
      g_auto(Run) run = { 0 };

      run_cli (&run, NULL, "convert", cases[i].input, output, NULL);
      g_assert_cmpint (run.status, ==, 0);
      if (cases[i].target != NULL)
        {
          note = g_strdup_printf ("\nnote: %u joint ids are not carried over to %s\n", n_ids,
                                  cases[i].target);
          if (strstr (run.err, note) == NULL)
            g_error ("%s: “%s” does not hold “%s”", cases[i].output, run.err, note);
        }
      else if (strstr (run.err, "joint id") != NULL)
        g_error ("%s: “%s” speaks of joint ids", cases[i].output, run.err);
      g_unlink (output);
    }
}

/* An OUTPUT that is a named pipe: with no reader, open(2) of it waited for one for ever
 * (rev21 finding 1); now it is waited for as an input pipe's writer is, then refused,
 * exit 1. With a reader (a named pipe, or a pipe by its /dev/fd/N name as `>(cat)` gives
 * it) the file is written as before. */
static void
test_convert_output_fifo (void)
{
  g_autofree char *model = g_test_build_filename (G_TEST_DIST, "data", "red-box.body", NULL);
  g_autofree char *fifo = g_build_filename (tmp_dir, "fifo.urdf", NULL);
  g_autofree char *expected = g_strdup_printf ("kinema-cli: %s: cannot write the file: a pipe "
                                               "with no reader (none came within 10 "
                                               "seconds)\n", fifo);
  g_autofree char *direct = g_build_filename (tmp_dir, "fifo-direct.urdf", NULL);
  g_autofree char *direct_text = NULL;
  g_autoptr(GString) got = g_string_new (NULL);
  char buffer[4096];
  gssize n;
  int fd;

  if (mkfifo (fifo, 0600) != 0)
    {
      g_test_skip ("mkfifo is not supported here");
      return;
    }
  {
    g_auto(Run) run = { 0 };

    run_cli (&run, NULL, "convert", model, fifo, NULL);
    g_assert_cmpint (run.status, ==, 1);
    g_assert_true (g_str_has_suffix (run.err, expected));
    g_assert_cmpstr (run.out, ==, "");
  }

  /* What the file is, written to a file. */
  {
    g_auto(Run) run = { 0 };

    run_cli (&run, NULL, "convert", model, direct, NULL);
    g_assert_cmpint (run.status, ==, 0);
    g_assert_true (g_file_get_contents (direct, &direct_text, NULL, NULL));
  }
  /* A reader first (the file is far smaller than a pipe holds). */
  fd = g_open (fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0);
  g_assert_cmpint (fd, >=, 0);
  {
    g_auto(Run) run = { 0 };

    run_cli (&run, NULL, "convert", model, fifo, NULL);
    g_assert_cmpint (run.status, ==, 0);
  }
  while ((n = read (fd, buffer, sizeof buffer)) > 0)
    g_string_append_len (got, buffer, n);
  close (fd);
  g_assert_cmpstr (got->str, ==, direct_text);

  /* An anonymous pipe by its /dev/fd/N name, the reader this test. */
  {
    g_autoptr(GSubprocessLauncher) launcher = NULL;
    g_autoptr(GSubprocess) process = NULL;
    g_autoptr(GError) error = NULL;
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    int fds[2];

    g_string_truncate (got, 0);
    g_assert_cmpint (pipe (fds), ==, 0);
    launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                          G_SUBPROCESS_FLAGS_STDERR_PIPE);
    g_subprocess_launcher_take_fd (launcher, fds[1], 5);
    process = g_subprocess_launcher_spawn (launcher, &error, g_getenv ("KINEMA_CLI"),
                                           "convert", "--to", "URDF", model, "/dev/fd/5",
                                           NULL);
    g_assert_no_error (error);
    /* The launcher holds the write end until it goes: then only the command has it. */
    g_clear_object (&launcher);
    while ((n = read (fds[0], buffer, sizeof buffer)) > 0)
      g_string_append_len (got, buffer, n);
    close (fds[0]);
    g_assert_true (g_subprocess_communicate_utf8 (process, NULL, NULL, &out, &err, &error));
    g_assert_no_error (error);
    if (g_subprocess_get_exit_status (process) != 0)
      g_error ("exit %d: “%s”", g_subprocess_get_exit_status (process), err);
    g_assert_cmpstr (got->str, ==, direct_text);
  }
  g_unlink (direct);
  g_unlink (fifo);
}

/* `.animation.json` is an animation's name (solve's batch mode writes NAME.animation.json,
 * which it then refused to overwrite with an animation): a model or targets file is not
 * written there, as it is not into `.seq` (rev21 finding 2). */
static void
test_convert_animation_extension (void)
{
  g_autofree char *model = g_test_build_filename (G_TEST_DIST, "data", "red-box.body", NULL);
  g_autofree char *targets = g_test_build_filename (G_TEST_DIST, "data", "targets-two-arms.json",
                                                    NULL);
  const char *names[] = { "o1.animation.json", "o2.Animation.JSON" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *output = g_build_filename (tmp_dir, names[i], NULL);
      g_auto(Run) run = { 0 };
      g_auto(Run) run_targets = { 0 };

      run_cli (&run, NULL, "convert", model, output, NULL);
      assert_output_refused (&run, output, NULL);
      g_assert_nonnull (strstr (run.err, "is for solved animations"));
      run_cli (&run_targets, NULL, "convert", targets, output, NULL);
      assert_output_refused (&run_targets, output, NULL);
    }
}

/* Splits a `key=value` line on spaces; each field must be KEY=VALUE. Returns the value
 * of @key read back (km_parse_read_location(), which reads the escapes back) or NULL. */
static char *
field_value (const char *line,
             const char *key)
{
  g_auto(GStrv) fields = g_strsplit (line, " ", -1);
  g_autofree char *prefix = g_strconcat (key, "=", NULL);

  for (guint i = 0; fields[i] != NULL; i++)
    {
      g_autofree char *as_location = NULL;
      char *value = NULL;

      if (strchr (fields[i], '=') == NULL)
        g_error ("field “%s” of “%s” is no key=value", fields[i], line);
      if (!g_str_has_prefix (fields[i], prefix))
        continue;
      /* FILE: as a location reads it back, the escapes undone. */
      as_location = g_strconcat (fields[i] + strlen (prefix), ": x", NULL);
      if (!km_parse_read_location (as_location, &value, NULL, NULL))
        g_error ("“%s” does not read back", fields[i]);
      return value;
    }
  return NULL;
}

/* Review r2, 1: a name or path with a space in a `key=value` line is written \x20, so
 * that the line splits on spaces into its fields (it did not: `joint=left arm type=fixed
 * type=revolute …`), and every value reads back to the name exactly. */
static void
test_key_value_spaces (void)
{
  const char *model_text =
    "{ \"root_name\": \"base link\", \"joints\": ["
    " { \"name\": \"base link\", \"type\": \"fixed\", \"offset\": [0,0,0] },"
    " { \"name\": \"left arm type=fixed\", \"type\": \"revolute\", \"axis\": [1,0,0],"
    "   \"offset\": [0,0,1], \"parent\": \"base link\" },"
    " { \"name\": \"tip x\\\\20\", \"type\": \"prismatic\", \"axis\": [0,0,1],"
    "   \"offset\": [0,0,1], \"parent\": \"left arm type=fixed\","
    "   \"mimic\": {\"joint\": \"left arm type=fixed\", \"ratio\": 1} } ] }";
  g_autofree char *model = g_build_filename (tmp_dir, "sp model.json", NULL);
  g_autofree char *output = g_build_filename (tmp_dir, "sp out.json", NULL);
  g_auto(GStrv) lines = NULL;
  g_auto(Run) info = { 0 };
  g_auto(Run) convert = { 0 };

  g_assert_true (g_file_set_contents (model, model_text, -1, NULL));
  run_cli (&info, NULL, "info", model, NULL);
  g_test_message ("%s%s", info.out, info.err);
  g_assert_cmpint (info.status, ==, 0);
  lines = g_strsplit (g_strchomp (info.out), "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 4);
  g_assert_cmpstr (lines[0], ==, "joint=base\\x20link type=fixed parent=- dof=0 axis=- limits=-");
  g_assert_true (g_str_has_prefix (lines[1], "joint=left\\x20arm\\x20type=fixed type=revolute "
                                             "parent=base\\x20link dof=1 "));
  for (guint i = 0; i < 3; i++)
    {
      const char *names[] = { "base link", "left arm type=fixed", "tip x\\20" };
      const char *parents[] = { "-", "base link", "left arm type=fixed" };
      g_autofree char *name = field_value (lines[i], "joint");
      g_autofree char *parent = field_value (lines[i], "parent");

      g_assert_cmpstr (name, ==, names[i]);
      g_assert_cmpstr (parent, ==, parents[i]);
    }
  {
    g_autofree char *master = field_value (lines[2], "mimic");

    g_assert_cmpstr (master, ==, "left arm type=fixed*1+0");
  }

  run_cli (&convert, NULL, "convert", model, output, NULL);
  g_test_message ("%s%s", convert.out, convert.err);
  g_assert_cmpint (convert.status, ==, 0);
  {
    g_autofree char *written = field_value (g_strchomp (convert.out), "output");

    g_assert_cmpstr (written, ==, output);
  }
  /* An animation's joint names too (info of a solved animation). */
  {
    g_autofree char *targets = g_build_filename (tmp_dir, "sp targets.json", NULL);
    g_autofree char *animation = g_build_filename (tmp_dir, "sp.animation.json", NULL);
    g_auto(Run) solve = { 0 };
    g_auto(Run) described = { 0 };
    g_auto(GStrv) animation_lines = NULL;
    gboolean found = FALSE;

    g_assert_true (g_file_set_contents (targets, "[{\"frame\": 0, \"pos\": [0, 0, 2], "
                                        "\"euler\": [0, 0, 0]}]\n", -1, NULL));
    run_cli (&solve, NULL, "solve", model, targets, "--effector", "tip x\\20", "-o", animation,
             NULL);
    g_test_message ("%s%s", solve.out, solve.err);
    g_assert_cmpint (solve.status, ==, 0);
    run_cli (&described, NULL, "info", animation, NULL);
    g_test_message ("%s%s", described.out, described.err);
    g_assert_cmpint (described.status, ==, 0);
    animation_lines = g_strsplit (g_strchomp (described.out), "\n", -1);
    for (guint i = 0; animation_lines[i] != NULL; i++)
      if (g_str_has_prefix (animation_lines[i], "joint "))
        {
          g_autofree char *name = field_value (animation_lines[i] + strlen ("joint "), "name");

          found |= g_strcmp0 (name, "left arm type=fixed") == 0;
        }
    g_assert_true (found);
  }
  /* A targets file's effector. */
  {
    g_autofree char *targets = g_build_filename (tmp_dir, "sp-effector.json", NULL);
    g_auto(Run) described = { 0 };

    g_assert_true (g_file_set_contents (targets, "[{\"frame\": 0, \"pos\": [0, 0, 2], "
                                        "\"euler\": [0, 0, 0], \"effector\": \"left arm\"}]\n",
                                        -1, NULL));
    run_cli (&described, NULL, "info", targets, NULL);
    g_test_message ("%s%s", described.out, described.err);
    g_assert_cmpint (described.status, ==, 0);
    g_assert_true (g_str_has_prefix (described.out, "effector=left\\x20arm\n"));
  }
}

/* Review r2, 2: a writer's note quoting a name with a line break or a tab stays one line
 * (a spherical joint "a<LF>b" into URDF gave a note of five lines). */
static void
test_convert_notes_one_line (void)
{
  const char *model_text =
    "{ \"root_name\": \"R\", \"joints\": ["
    " { \"name\": \"R\", \"type\": \"fixed\", \"offset\": [0,0,0] },"
    " { \"name\": \"a\\nb\", \"type\": \"spherical\", \"offset\": [0,0,1], \"parent\": \"R\" },"
    " { \"name\": \"c\\td\", \"type\": \"spherical\", \"offset\": [0,0,1], \"parent\": \"a\\nb\" },"
    " { \"name\": \"e\", \"type\": \"fixed\", \"offset\": [0,0,1], \"parent\": \"c\\td\" } ] }";
  g_autofree char *model = g_build_filename (tmp_dir, "notes-model.json", NULL);
  const char *outputs[] = { "notes-out.urdf", "notes-out.body" };

  g_assert_true (g_file_set_contents (model, model_text, -1, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (outputs); i++)
    {
      g_autofree char *output = g_build_filename (tmp_dir, outputs[i], NULL);
      g_auto(GStrv) lines = NULL;
      g_auto(Run) run = { 0 };
      gboolean named_ab = FALSE, named_cd = FALSE;

      run_cli (&run, NULL, "convert", model, output, NULL);
      g_test_message ("%s", run.err);
      g_assert_cmpint (run.status, ==, 0);
      g_assert_null (strchr (run.err, '\t'));
      lines = g_strsplit (g_strchomp (run.err), "\n", -1);
      for (guint l = 0; lines[l] != NULL; l++)
        {
          if (!g_str_has_prefix (lines[l], "note: "))
            g_error ("%s: stderr line “%s” is no note", outputs[i], lines[l]);
          named_ab |= strstr (lines[l], "“a\\nb”") != NULL;
          named_cd |= strstr (lines[l], "“c\\td”") != NULL;
        }
      g_assert_true (named_ab);
      g_assert_true (named_cd);
    }
}

int
main (int    argc,
      char **argv)
{
  int status;

  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  tmp_dir = g_dir_make_tmp ("kinema-convert-XXXXXX", NULL);

  g_test_add_func ("/kinema/Cli/convert-body", test_convert_body);
  g_test_add_func ("/kinema/Cli/key-value-spaces", test_key_value_spaces);
  g_test_add_func ("/kinema/Cli/convert-notes-one-line", test_convert_notes_one_line);
  g_test_add_func ("/kinema/Cli/convert-to-any-case", test_convert_to_any_case);
  g_test_add_func ("/kinema/Cli/convert-refusal-one-line", test_convert_refusal_one_line);
  g_test_add_func ("/kinema/Cli/convert-escaped-names", test_convert_escaped_names);
  g_test_add_func ("/kinema/Cli/convert-escaped-output-messages",
                   test_convert_escaped_output_messages);
  g_test_add_func ("/kinema/Cli/convert-project", test_convert_project);
  g_test_add_func ("/kinema/Cli/convert-errors", test_convert_errors);
  g_test_add_func ("/kinema/Cli/convert-to-body", test_convert_to_body);
  g_test_add_func ("/kinema/Cli/convert-to-urdf", test_convert_to_urdf);
  g_test_add_func ("/kinema/Cli/convert-to-errors", test_convert_to_errors);
  g_test_add_func ("/kinema/Cli/info-scenebuilder", test_info_scenebuilder);
  g_test_add_func ("/kinema/Cli/convert-mimic", test_convert_mimic);
  g_test_add_func ("/kinema/Cli/convert-mimic-offset-pose", test_convert_mimic_offset_pose);
  g_test_add_func ("/kinema/Cli/convert-by-extension", test_convert_by_extension);
  g_test_add_func ("/kinema/Cli/convert-to-conflicts", test_convert_to_conflicts);
  g_test_add_func ("/kinema/Cli/convert-extension-kind", test_convert_extension_kind);
  g_test_add_func ("/kinema/Cli/convert-into-directory", test_convert_into_directory);
  g_test_add_func ("/kinema/Cli/convert-control-char-names", test_convert_control_char_names);
  g_test_add_func ("/kinema/Cli/info-control-char-names", test_info_control_char_names);
  g_test_add_func ("/kinema/Cli/convert-same-format-note", test_convert_same_format_note);
  g_test_add_func ("/kinema/Cli/convert-over-input", test_convert_over_input);
  g_test_add_func ("/kinema/Cli/convert-ik-targets-note", test_convert_ik_targets_note);
  g_test_add_func ("/kinema/Cli/convert-written-counts", test_convert_written_counts);
  g_test_add_func ("/kinema/Cli/convert-animation-refused", test_convert_animation_refused);
  g_test_add_func ("/kinema/Cli/convert-targets-euler-as-read",
                   test_convert_targets_euler_as_read);
  g_test_add_func ("/kinema/Cli/convert-stdout-and-extra-keys",
                   test_convert_stdout_and_extra_keys);
  g_test_add_func ("/kinema/Cli/convert-keeps-default-effector",
                   test_convert_keeps_default_effector);
  g_test_add_func ("/kinema/Cli/convert-joint-ids-note", test_convert_joint_ids_note);
  g_test_add_func ("/kinema/Cli/convert-output-fifo", test_convert_output_fifo);
  g_test_add_func ("/kinema/Cli/convert-animation-extension",
                   test_convert_animation_extension);

  status = g_test_run ();
  /* Shared by all the tests, so removed here rather than when the first test ends. */
  km_test_remove_tree (tmp_dir);
  g_free (tmp_dir);
  return status;
}
