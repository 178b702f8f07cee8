/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 *
 * An edited skeleton written over the model file it came from keeps what Kinema does not
 * model (km_body_save_over, km_urdf_save_over): the review rev15-gui, finding 2.
 */

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib.h>
#include <glib/gstdio.h>

#include "km-body.h"
#include "km-body-writer.h"
#include "km-error.h"
#include "km-skeleton-edit.h"
#include "km-skeleton-json.h"
#include "km-urdf.h"
#include "km-urdf-writer.h"
#include "km-test-tmp.h"

static guint
count (const char *text,
       const char *needle)
{
  guint n = 0;

  for (const char *p = strstr (text, needle); p != NULL; p = strstr (p + 1, needle))
    n++;
  return n;
}

static KmSkeleton *
edit_ok (KmSkeleton *skeleton,
         KmSkeleton *edited,
         GError     *error)
{
  g_assert_no_error (error);
  g_assert_nonnull (edited);
  km_skeleton_unref (skeleton);
  return edited;
}

static guint
joint (const KmSkeleton *skeleton,
       const char       *name)
{
  int i = km_skeleton_find_joint (skeleton, name);

  g_assert_cmpint (i, >=, 0);
  return (guint) i;
}

static const char *
effector_name (const KmSkeleton *skeleton)
{
  return km_skeleton_get_joint (skeleton, (guint) km_skeleton_get_default_effector (skeleton))
         ->name;
}

static KmSkeleton *
load_file (const char *path,
           gboolean    urdf)
{
  g_autofree char *data = NULL;
  gsize length = 0;
  g_autoptr(GError) error = NULL;
  KmSkeleton *skeleton;

  g_assert_true (g_file_get_contents (path, &data, &length, &error));
  if (urdf)
    {
      KmUrdfOptions options = { NULL, FALSE };

      skeleton = km_urdf_load (path, data, length, &options, &error);
    }
  else
    {
      KmBodyOptions options = { .load_meshes = FALSE };

      skeleton = km_body_load (path, data, length, &options, &error);
    }
  g_assert_no_error (error);
  g_assert_nonnull (skeleton);
  return skeleton;
}

/* The edits of the review and more: a limit, an offset, a rotation, a rename, a new
 * joint and a deleted one. */
static KmSkeleton *
edit (KmSkeleton *s,
      const char *limited,
      const char *moved,
      const char *renamed,
      const char *deleted)
{
  GError *error = NULL;
  KmSkeleton *e;

  e = km_skeleton_edit_set_limit (s, joint (s, limited), 0, TRUE, -120 * G_PI / 180,
                                  0.5, &error);
  s = edit_ok (s, e, error);
  e = km_skeleton_edit_set_offset (s, joint (s, moved), km_vec3 (0.01, 0.02, 0.03), &error);
  s = edit_ok (s, e, error);
  e = km_skeleton_edit_set_rotation (s, joint (s, moved),
                                     km_quat_from_axis_angle (km_vec3 (1, 0, 0), 1.0), &error);
  s = edit_ok (s, e, error);
  e = km_skeleton_edit_set_name (s, joint (s, renamed), "renamed_joint", &error);
  s = edit_ok (s, e, error);
  e = km_skeleton_edit_delete (s, joint (s, deleted), &error);
  s = edit_ok (s, e, error);
  e = km_skeleton_edit_add_child (s, joint (s, limited), "added_joint", KM_JOINT_REVOLUTE,
                                  km_vec3 (0, 0, 0.1), NULL, &error);
  return edit_ok (s, e, error);
}

static void
check_edits (const KmSkeleton *back,
             const KmSkeleton *edited,
             const char       *limited,
             const char       *moved,
             const char       *renamed,
             const char       *deleted)
{
  const KmJoint *l = km_skeleton_get_joint (back, joint (back, limited));
  const KmJoint *m = km_skeleton_get_joint (back, joint (back, moved));
  const KmJoint *want = km_skeleton_get_joint (edited, joint (edited, moved));

  g_assert_cmpuint (km_skeleton_get_n_joints (back), ==, km_skeleton_get_n_joints (edited));
  g_assert_cmpfloat_with_epsilon (l->limits[0].min, -120 * G_PI / 180, 1e-9);
  g_assert_cmpfloat_with_epsilon (l->limits[0].max, 0.5, 1e-9);
  g_assert_cmpfloat_with_epsilon (m->offset.x, want->offset.x, 1e-9);
  g_assert_cmpfloat_with_epsilon (m->offset.z, want->offset.z, 1e-9);
  g_assert_cmpfloat (km_quat_angle_between (m->rotation, want->rotation), <, 1e-9);
  g_assert_cmpint (km_skeleton_find_joint (back, "renamed_joint"), >=, 0);
  g_assert_cmpint (km_skeleton_find_joint (back, renamed), <, 0);
  g_assert_cmpint (km_skeleton_find_joint (back, deleted), <, 0);
  g_assert_cmpint (km_skeleton_find_joint (back, "added_joint"), >=, 0);
  g_assert_cmpstr (km_skeleton_get_joint (back, (guint) km_skeleton_get_joint (
                     back, joint (back, "added_joint"))->parent)->name, ==, limited);
}

static void
test_body_keeps_dynamics (void)
{
  g_autofree char *original = g_test_build_filename (G_TEST_DIST, "data", "choreonoid",
                                                     "SR1.body", NULL);
  g_autofree char *dir = km_test_make_tmp_dir ("keep-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "SR1.body", NULL);
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autofree char *before = NULL, *after = NULL;
  g_autoptr(KmSkeleton) edited = NULL;
  g_autoptr(KmSkeleton) back = NULL;

  g_assert_true (g_file_get_contents (original, &before, NULL, NULL));
  edited = edit (load_file (original, FALSE), "LARM_ELBOW", "LARM_WRIST_P", "LARM_WRIST_Y",
                 "RARM_WRIST_R");
  g_assert_true (km_body_save_over (edited, NULL, original, path, notes, &error));
  g_assert_no_error (error);
  for (guint n = 0; n < notes->len; n++)
    g_assert_null (strstr (g_ptr_array_index (notes, n), "not carried over"));
  g_assert_true (g_file_get_contents (path, &after, NULL, NULL));
  /* One link (RARM_WRIST_R, with its mass) less; the sensors and devices all there. */
  g_assert_cmpuint (count (after, " mass:"), ==, count (before, " mass:") - 1);
  g_assert_cmpuint (count (after, "inertia:"), ==, count (before, "inertia:") - 1);
  g_assert_cmpuint (count (after, "center_of_mass"), ==, count (before, "center_of_mass") - 1);
  g_assert_cmpuint (count (after, "type: AccelerationSensor"), ==, count (before, "type: AccelerationSensor"));
  g_assert_cmpuint (count (after, "RateGyroSensor"), ==, count (before, "RateGyroSensor"));
  g_assert_cmpuint (count (after, "type: Camera"), ==, count (before, "type: Camera"));
  g_assert_nonnull (strstr (after, "default_ik_setup"));
  g_assert_nonnull (strstr (after, "collision_detection_rules"));
  back = load_file (path, FALSE);
  check_edits (back, edited, "LARM_ELBOW", "LARM_WRIST_P", "LARM_WRIST_Y", "RARM_WRIST_R");
  /* Unedited joints keep their ids. */
  g_assert_cmpint (km_skeleton_get_joint (back, joint (back, "WAIST_P"))->joint_id, ==, 26);
}

static void
test_body_missing_original (void)
{
  g_autofree char *original = g_test_build_filename (G_TEST_DIST, "data", "choreonoid",
                                                     "SR1.body", NULL);
  g_autofree char *dir = km_test_make_tmp_dir ("keep-XXXXXX");
  g_autofree char *gone = g_build_filename (dir, "gone.body", NULL);
  g_autofree char *path = g_build_filename (dir, "SR1.body", NULL);
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skeleton = load_file (original, FALSE);
  g_autoptr(KmSkeleton) back = NULL;
  gboolean noted = FALSE;

  g_assert_true (km_body_save_over (skeleton, NULL, gone, path, notes, &error));
  g_assert_no_error (error);
  for (guint n = 0; n < notes->len; n++)
    noted |= strstr (g_ptr_array_index (notes, n), "mass and inertia") != NULL
             && strstr (g_ptr_array_index (notes, n), "not carried over") != NULL;
  g_assert_true (noted);
  back = load_file (path, FALSE);
  g_assert_cmpuint (km_skeleton_get_n_joints (back), ==, km_skeleton_get_n_joints (skeleton));
}

/* The lines of @after that are not the line of @before at the same place; the two must
 * have as many lines. */
static guint
changed_lines (const char  *before,
               const char  *after,
               char       **first)
{
  g_auto(GStrv) b = g_strsplit (before, "\n", -1);
  g_auto(GStrv) a = g_strsplit (after, "\n", -1);
  guint n = 0;

  g_assert_cmpuint (g_strv_length (a), ==, g_strv_length (b));
  for (guint l = 0; a[l] != NULL; l++)
    if (!g_str_equal (a[l], b[l]) && n++ == 0 && first != NULL)
      *first = g_strdup (a[l]);
  return n;
}

static gboolean
has_note (GPtrArray  *notes,
          const char *part)
{
  for (guint n = 0; n < notes->len; n++)
    if (strstr (g_ptr_array_index (notes, n), part) != NULL)
      return TRUE;
  return FALSE;
}

/* One limit changed: the file is the original but for that value (SR1.body's 23 anchors
 * and its formatting stay). */
static void
test_body_text_one_limit (void)
{
  g_autofree char *original = g_test_build_filename (G_TEST_DIST, "data", "choreonoid",
                                                     "SR1.body", NULL);
  g_autofree char *dir = km_test_make_tmp_dir ("keep-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "SR1.body", NULL);
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autofree char *before = NULL, *after = NULL, *line = NULL;
  g_autoptr(KmSkeleton) skeleton = load_file (original, FALSE);
  g_autoptr(KmSkeleton) edited = NULL;
  g_autoptr(KmSkeleton) back = NULL;

  g_assert_true (g_file_get_contents (original, &before, NULL, NULL));
  edited = km_skeleton_edit_set_limit (skeleton, joint (skeleton, "LARM_ELBOW"), 0, TRUE,
                                       -100 * G_PI / 180, 10 * G_PI / 180, &error);
  g_assert_no_error (error);
  g_assert_true (km_body_save_over (edited, NULL, original, path, notes, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (notes->len, ==, 0);
  g_assert_true (g_file_get_contents (path, &after, NULL, NULL));
  g_assert_cmpuint (changed_lines (before, after, &line), ==, 1);
  g_assert_cmpstr (line, ==, "    joint_range: [ -100, 10 ]");
  g_assert_cmpuint (count (after, "&"), ==, count (before, "&"));
  g_assert_cmpuint (count (after, "*"), ==, count (before, "*"));
  back = load_file (path, FALSE);
  g_assert_cmpfloat_with_epsilon (km_skeleton_get_joint (back, joint (back, "LARM_ELBOW"))
                                  ->limits[0].min, -100 * G_PI / 180, 1e-9);
}

/* A renamed link is renamed wherever the file names it, as a value or as a mapping key
 * (default_ik_setup), and nowhere else. */
static void
test_body_text_rename (void)
{
  g_autofree char *original = g_test_build_filename (G_TEST_DIST, "data", "choreonoid",
                                                     "SR1.body", NULL);
  g_autofree char *dir = km_test_make_tmp_dir ("keep-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "SR1.body", NULL);
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autofree char *before = NULL, *after = NULL;
  g_autoptr(KmSkeleton) skeleton = load_file (original, FALSE);
  g_autoptr(KmSkeleton) edited = NULL;
  g_autoptr(KmSkeleton) back = NULL;
  g_auto(GStrv) b = NULL;
  g_auto(GStrv) a = NULL;

  g_assert_true (g_file_get_contents (original, &before, NULL, NULL));
  edited = km_skeleton_edit_set_name (skeleton, joint (skeleton, "RLEG_ANKLE_R"), "RLEG_SOLE",
                                      &error);
  g_assert_no_error (error);
  g_assert_true (km_body_save_over (edited, NULL, original, path, notes, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (notes->len, ==, 0);
  g_assert_true (g_file_get_contents (path, &after, NULL, NULL));
  g_assert_null (strstr (after, "RLEG_ANKLE_R"));
  g_assert_nonnull (strstr (after, "\n  RLEG_SOLE: [ WAIST ]\n"));
  g_assert_nonnull (strstr (after, "\n  WAIST: [ RLEG_SOLE, LLEG_ANKLE_R ]\n"));
  g_assert_nonnull (strstr (after, "  - link: RLEG_SOLE\n"));
  /* Every other byte as it was. */
  b = g_strsplit (before, "\n", -1);
  a = g_strsplit (after, "\n", -1);
  g_assert_cmpuint (g_strv_length (a), ==, g_strv_length (b));
  for (guint l = 0; b[l] != NULL; l++)
    {
      g_autoptr(GString) want = g_string_new (b[l]);

      g_string_replace (want, "RLEG_ANKLE_R", "RLEG_SOLE", 0);
      g_assert_cmpstr (a[l], ==, want->str);
    }
  back = load_file (path, FALSE);
  g_assert_cmpint (km_skeleton_find_joint (back, "RLEG_SOLE"), >=, 0);
}

static const char arm_body[] =
  "# A test arm\n"
  "format: ChoreonoidBody\n"
  "format_version: 2.0\n"
  "angle_unit: degree\n"
  "name: arm   # the name\n"
  "root_link: base\n"
  "\n"
  "links:\n"
  "  -\n"
  "    name: base   # the root\n"
  "    joint_type: fixed\n"
  "    mass: 1.0\n"
  "  -\n"
  "    name: j1\n"
  "    parent: base\n"
  "    translation: [ 0, 0, 0.1 ]\n"
  "    joint_type: revolute\n"
  "    joint_axis: [ 0, 0, 1 ]\n"
  "    joint_id: 0\n"
  "    joint_range: &range [ -90, 90 ]\n"
  "    mass: 0.5\n"
  "  - name: j2\n"
  "    parent: j1\n"
  "    translation: [ 0, 0, 0.2 ]\n"
  "    joint_type: revolute\n"
  "    joint_axis: [ 0, 1, 0 ]\n"
  "    joint_id: 1\n"
  "    joint_range: *range\n"
  "    mass: 0.25   # light\n"
  "  -\n"
  "    name: 'j3'\n"
  "    parent: j2\n"
  "    translation: [ 0, 0, 0.3 ]\n"
  "    joint_type: revolute\n"
  "    joint_axis: [ 0, 1, 0 ]\n"
  "    joint_id: 2\n"
  "    joint_range: [ -45, 45 ]\n"
  "    mass: 0.125\n"
  "\n"
  "# groups\n"
  "default_ik_setup:\n"
  "  j3: [ base ]   # the tip\n"
  "link_group: [ base, j1, j2, j3 ]\n";

static char *
write_arm (const char *dir)
{
  g_autofree char *original = g_build_filename (dir, "arm.body", NULL);

  g_assert_true (g_file_set_contents (original, arm_body, -1, NULL));
  return g_steal_pointer (&original);
}

/* Links removed and added, a key added: made in the text, comments and anchors kept. */
static void
test_body_text_structure (void)
{
  g_autofree char *dir = km_test_make_tmp_dir ("keep-XXXXXX");
  g_autofree char *original = write_arm (dir);
  g_autofree char *path = g_build_filename (dir, "arm-2.body", NULL);
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  GError *error = NULL;
  g_autofree char *after = NULL;
  KmSkeleton *s = load_file (original, FALSE), *e;
  g_autoptr(KmSkeleton) back = NULL;

  e = km_skeleton_edit_set_rotation (s, joint (s, "j1"),
                                     km_quat_from_axis_angle (km_vec3 (1, 0, 0), 0.5), &error);
  s = edit_ok (s, e, error);
  e = km_skeleton_edit_set_name (s, joint (s, "j3"), "tip", &error);
  s = edit_ok (s, e, error);
  e = km_skeleton_edit_delete (s, joint (s, "j2"), &error);
  s = edit_ok (s, e, error);
  e = km_skeleton_edit_add_child (s, joint (s, "tip"), "added_joint", KM_JOINT_REVOLUTE,
                                  km_vec3 (0, 0, 0.1), NULL, &error);
  s = edit_ok (s, e, error);
  g_assert_true (km_body_save_over (s, NULL, original, path, notes, &error));
  g_assert_no_error (error);
  g_assert_false (has_note (notes, "could not be made in its text"));
  g_assert_true (g_file_get_contents (path, &after, NULL, NULL));
  g_assert_true (g_str_has_prefix (after, "# A test arm\nformat: ChoreonoidBody\n"));
  g_assert_nonnull (strstr (after, "    name: base   # the root\n"));
  g_assert_nonnull (strstr (after, "    joint_range: &range [ -90, 90 ]\n"
                                   "    mass: 0.5\n"
                                   "    rotation: [ 1, 0, 0, "));
  g_assert_nonnull (strstr (after, "    name: 'tip'\n    parent: j1\n"));
  g_assert_nonnull (strstr (after, "    mass: 0.125\n"
                                   "  -\n"
                                   "    name: \"added_joint\"\n"
                                   "    parent: \"tip\"\n"));
  g_assert_nonnull (strstr (after, "\n# groups\ndefault_ik_setup:\n  tip: [ base ]   # the tip\n"
                                   "link_group: [ base, j1, j2, tip ]\n"));
  g_assert_null (strstr (after, "name: j2"));
  g_assert_null (strstr (after, "light"));
  back = load_file (path, FALSE);
  g_assert_cmpuint (km_skeleton_get_n_joints (back), ==, 4);
  g_assert_cmpstr (km_skeleton_get_joint (back, (guint) km_skeleton_get_joint (
                     back, joint (back, "tip"))->parent)->name, ==, "j1");
  g_assert_cmpfloat (km_quat_angle_between (km_skeleton_get_joint (back, joint (back, "j1"))
                                            ->rotation,
                                            km_quat_from_axis_angle (km_vec3 (1, 0, 0), 0.5)),
                     <, 1e-9);
  km_skeleton_unref (s);
}

/* A change under an alias cannot be made in the text: the tree is written again, and a
 * note says that the comments and anchors are lost. */
static void
test_body_text_fallback (void)
{
  g_autofree char *dir = km_test_make_tmp_dir ("keep-XXXXXX");
  g_autofree char *original = write_arm (dir);
  g_autofree char *path = g_build_filename (dir, "arm-2.body", NULL);
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autofree char *after = NULL;
  g_autoptr(KmSkeleton) skeleton = load_file (original, FALSE);
  g_autoptr(KmSkeleton) edited = NULL;
  g_autoptr(KmSkeleton) back = NULL;

  edited = km_skeleton_edit_set_limit (skeleton, joint (skeleton, "j2"), 0, TRUE,
                                       -G_PI / 4, G_PI / 4, &error);
  g_assert_no_error (error);
  g_assert_true (km_body_save_over (edited, NULL, original, path, notes, &error));
  g_assert_no_error (error);
  g_assert_true (has_note (notes, "without its comments and anchors"));
  g_assert_false (has_note (notes, "not carried over"));
  g_assert_true (g_file_get_contents (path, &after, NULL, NULL));
  g_assert_null (strstr (after, "#"));
  g_assert_nonnull (strstr (after, "mass: 0.25"));
  back = load_file (path, FALSE);
  g_assert_cmpfloat_with_epsilon (km_skeleton_get_joint (back, joint (back, "j2"))
                                  ->limits[0].max, G_PI / 4, 1e-9);
  g_assert_cmpfloat_with_epsilon (km_skeleton_get_joint (back, joint (back, "j1"))
                                  ->limits[0].max, G_PI / 2, 1e-9);
}

static void
test_urdf_keeps_dynamics (void)
{
  g_autofree char *original = g_test_build_filename (G_TEST_DIST, "data", "kinema_arm", "urdf",
                                                     "ur5.urdf", NULL);
  g_autofree char *dir = km_test_make_tmp_dir ("keep-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "ur5-2.urdf", NULL);
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autofree char *before = NULL, *after = NULL;
  g_autoptr(KmSkeleton) edited = NULL;
  g_autoptr(KmSkeleton) back = NULL;

  g_assert_true (g_file_get_contents (original, &before, NULL, NULL));
  edited = edit (load_file (original, TRUE), "elbow_joint", "wrist_1_joint",
                 "shoulder_lift_joint", "wrist_2_joint");
  g_assert_true (km_urdf_save_over (edited, original, path, notes, &error));
  g_assert_no_error (error);
  for (guint n = 0; n < notes->len; n++)
    g_assert_null (strstr (g_ptr_array_index (notes, n), "not carried over"));
  g_assert_true (g_file_get_contents (path, &after, NULL, NULL));
  g_assert_cmpuint (count (after, "<inertial>"), ==, count (before, "<inertial>"));
  g_assert_cmpuint (count (after, "<collision>"), ==, count (before, "<collision>"));
  g_assert_nonnull (strstr (after, "<transmission name=\"t\"><type>SimpleTransmission</type></transmission>"));
  g_assert_nonnull (strstr (after, "<gazebo reference=\"ee_link\"><material>Gazebo/Blue</material></gazebo>"));
  g_assert_nonnull (strstr (after, "<!-- A UR5 arm"));
  /* An unedited joint is kept byte for byte. */
  g_assert_nonnull (strstr (after, "  <joint name=\"shoulder_pan_joint\" type=\"revolute\">\n"
                                   "    <parent link=\"base_link\"/>\n"
                                   "    <child link=\"shoulder_link\"/>\n"
                                   "    <origin xyz=\"0.0 0.0 0.089159\" rpy=\"0.0 0.0 0.0\"/>\n"));
  g_assert_null (strstr (after, "wrist_2_link\""));
  back = load_file (path, TRUE);
  check_edits (back, edited, "elbow_joint", "wrist_1_joint", "shoulder_lift_joint",
               "wrist_2_joint");
}

/* Links with a joint_name (their joint's name, the link keeping `name`) are found by their
 * link name: the file is patched, not written again, and keeps both names; a renamed joint
 * renames the joint_name only, and a new joint's `parent` is its parent's link name. */
static void
test_body_text_joint_name (void)
{
  static const char text[] =
    "format: ChoreonoidBody\n"
    "format_version: 2.0\n"
    "links:\n"
    "  - name: BASE\n"
    "    joint_type: fixed\n"
    "  # the arm\n"
    "  - name: A\n"
    "    parent: BASE\n"
    "    jointName: A_JOINT\n"
    "    joint_type: revolute\n"
    "    joint_id: 0\n"
    "    mass: 2.5\n"
    "  - name: B\n"
    "    parent: A\n"
    "    joint_name: B_JOINT\n"
    "    joint_type: revolute\n"
    "    joint_axis: Y\n"
    "    joint_id: 1\n";
  g_autofree char *dir = km_test_make_tmp_dir ("keep-XXXXXX");
  g_autofree char *original = g_build_filename (dir, "jn.body", NULL);
  g_autofree char *path = g_build_filename (dir, "jn2.body", NULL);
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autofree char *after = NULL;
  g_autoptr(KmSkeleton) back = NULL;
  KmSkeleton *s, *e;
  const KmJoint *j;

  g_assert_true (g_file_set_contents (original, text, -1, &error));
  s = load_file (original, FALSE);
  e = km_skeleton_edit_set_limit (s, joint (s, "A_JOINT"), 0, TRUE, -0.5, 0.5, &error);
  s = edit_ok (s, e, error);
  e = km_skeleton_edit_set_name (s, joint (s, "B_JOINT"), "B_RENAMED", &error);
  s = edit_ok (s, e, error);
  e = km_skeleton_edit_add_child (s, joint (s, "A_JOINT"), "added_joint", KM_JOINT_REVOLUTE,
                                  km_vec3 (0, 0, 0.1), NULL, &error);
  s = edit_ok (s, e, error);
  g_assert_true (km_body_save_over (s, NULL, original, path, notes, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (notes->len, ==, 0);
  g_assert_true (g_file_get_contents (path, &after, NULL, NULL));
  /* Patched in place: the comment, the spelling and the mass stay. */
  g_assert_nonnull (strstr (after, "  # the arm\n  - name: A\n    parent: BASE\n"
                                   "    jointName: A_JOINT\n"));
  g_assert_nonnull (strstr (after, "    mass: 2.5\n"));
  g_assert_nonnull (strstr (after, "  - name: B\n    parent: A\n    joint_name: B_RENAMED\n"));
  g_assert_cmpuint (count (after, "B_JOINT"), ==, 0);
  g_assert_nonnull (strstr (after, "name: \"added_joint\"\n    parent: \"A\"\n"));
  back = load_file (path, FALSE);
  /* As the skeleton written alone reads back: added_joint before B, the default end
   * effector, which stays the last leaf (km_skeleton_dup_write_order()). */
  {
    g_autofree char *alone = g_build_filename (dir, "alone.body", NULL);
    g_autoptr(KmSkeleton) alone_back = NULL;

    g_assert_true (km_body_save (s, alone, NULL, &error));
    alone_back = load_file (alone, FALSE);
    g_assert_true (km_skeleton_equal (back, alone_back, 1e-12));
    g_assert_cmpstr (effector_name (back), ==, "B_RENAMED");
  }
  j = km_skeleton_get_joint (back, joint (back, "A_JOINT"));
  g_assert_cmpstr (km_joint_get_link_name (j), ==, "A");
  g_assert_cmpfloat_with_epsilon (j->limits[0].max, 0.5, 1e-12);
  j = km_skeleton_get_joint (back, joint (back, "B_RENAMED"));
  g_assert_cmpstr (km_joint_get_link_name (j), ==, "B");
  j = km_skeleton_get_joint (back, joint (back, "added_joint"));
  g_assert_cmpstr (km_skeleton_get_joint (back, (guint) j->parent)->name, ==, "A_JOINT");
  km_skeleton_unref (s);
}

/* The default end effector of the skeleton in memory is the one the file written over
 * reads back with: a joint added to another branch does not take it over (it was the last
 * leaf in file order), and one added below the effector does, as in the editor. */
static const char fork_urdf[] =
  "<?xml version=\"1.0\"?>\n"
  "<!-- two branches -->\n"
  "<robot name=\"fork\">\n"
  "  <link name=\"base\"/>\n"
  "  <joint name=\"a\" type=\"revolute\">\n"
  "    <parent link=\"base\"/>\n"
  "    <child link=\"a_link\"/>\n"
  "    <origin xyz=\"0 0.1 0\"/>\n"
  "    <axis xyz=\"0 0 1\"/>\n"
  "    <limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/>\n"
  "  </joint>\n"
  "  <link name=\"a_link\"/>\n"
  "  <joint name=\"b\" type=\"revolute\">\n"
  "    <parent link=\"base\"/>\n"
  "    <child link=\"b_link\"/>\n"
  "    <origin xyz=\"0 -0.1 0\"/>\n"
  "    <axis xyz=\"0 0 1\"/>\n"
  "    <limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/>\n"
  "  </joint>\n"
  "  <link name=\"b_link\"/>\n"
  "</robot>\n";

static const char fork_body[] =
  "format: ChoreonoidBody\n"
  "format_version: 2.0\n"
  "angle_unit: degree\n"
  "name: fork   # two branches\n"
  "links:\n"
  "  - name: base\n"
  "    joint_type: fixed\n"
  "  - name: a\n"
  "    parent: base\n"
  "    translation: [ 0, 0.1, 0 ]\n"
  "    joint_type: revolute\n"
  "    joint_axis: Z\n"
  "    joint_id: 0\n"
  "  - name: b\n"
  "    parent: base\n"
  "    translation: [ 0, -0.1, 0 ]\n"
  "    joint_type: revolute\n"
  "    joint_axis: Z\n"
  "    joint_id: 1\n";

static void
check_keeps_effector (const char *text,
                      const char *file,
                      gboolean    urdf)
{
  g_autofree char *dir = km_test_make_tmp_dir ("keep-XXXXXX");
  g_autofree char *original = g_build_filename (dir, file, NULL);
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  GError *error = NULL;

  g_assert_true (g_file_set_contents (original, text, -1, NULL));
  /* A child of the other branch's leaf; then one below the effector, which takes over. */
  for (guint round = 0; round < 2; round++)
    {
      const char *parent = round == 0 ? "a" : "b";
      const char *added = round == 0 ? "a_tip" : "b_tip";
      const char *want = round == 0 ? "b" : "b_tip";
      g_autofree char *path = g_strdup_printf ("%s/saved-%u.%s", dir, round,
                                               urdf ? "urdf" : "body");
      g_autofree char *after = NULL;
      g_autoptr(KmSkeleton) back = NULL;
      KmSkeleton *s = load_file (original, urdf), *e;

      g_assert_cmpstr (effector_name (s), ==, "b");
      e = km_skeleton_edit_add_child (s, joint (s, parent), added, KM_JOINT_REVOLUTE,
                                      km_vec3 (0, 0, 0.1), NULL, &error);
      s = edit_ok (s, e, error);
      g_assert_cmpstr (effector_name (s), ==, want);
      g_ptr_array_set_size (notes, 0);
      if (urdf)
        g_assert_true (km_urdf_save_over (s, original, path, notes, &error));
      else
        g_assert_true (km_body_save_over (s, NULL, original, path, notes, &error));
      g_assert_no_error (error);
      g_assert_false (has_note (notes, "not carried over"));
      g_assert_true (g_file_get_contents (path, &after, NULL, NULL));
      /* Written over the text, not alone. */
      g_assert_nonnull (strstr (after, "two branches"));
      back = load_file (path, urdf);
      g_assert_cmpint (km_skeleton_find_joint (back, added), >=, 0);
      g_assert_cmpstr (effector_name (back), ==, want);
      km_skeleton_unref (s);
    }
}

static void
test_urdf_keeps_effector (void)
{
  check_keeps_effector (fork_urdf, "fork.urdf", TRUE);
}

static void
test_body_keeps_effector (void)
{
  check_keeps_effector (fork_body, "fork.body", FALSE);
}

/* A link made to follow another one, and one that follows no longer, are written over the
 * file with Kinema's kinema_mimic (patched in the text: the comment stays), and read back
 * so; before, the links were written as independent joints with a note. */
static void
test_body_keeps_mimic (void)
{
  static const char text[] =
    "format: ChoreonoidBody\n"
    "format_version: 2.0\n"
    "angle_unit: degree\n"
    "links:\n"
    "  - name: base   # the root\n"
    "    joint_type: fixed\n"
    "  - name: a\n"
    "    parent: base\n"
    "    joint_type: revolute\n"
    "  - name: b\n"
    "    parent: a\n"
    "    joint_type: revolute\n"
    "    kinema_mimic: { joint: a, multiplier: 2 }\n"
    "  - name: c\n"
    "    parent: base\n"
    "    joint_type: prismatic\n";
  g_autofree char *dir = km_test_make_tmp_dir ("keep-XXXXXX");
  g_autofree char *original = g_build_filename (dir, "m.body", NULL);
  g_autofree char *path = g_build_filename (dir, "m2.body", NULL);
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  GError *error = NULL;
  g_autofree char *after = NULL;
  g_autoptr(KmSkeleton) back = NULL;
  KmSkeleton *s, *e;
  const KmJoint *j;

  g_assert_true (g_file_set_contents (original, text, -1, NULL));
  s = load_file (original, FALSE);
  j = km_skeleton_get_joint (s, joint (s, "b"));
  g_assert_cmpint (j->mimic, ==, (int) joint (s, "a"));
  e = km_skeleton_edit_set_mimic (s, joint (s, "b"), -1, 0, 0, &error);
  s = edit_ok (s, e, error);
  e = km_skeleton_edit_set_mimic (s, joint (s, "c"), (int) joint (s, "a"), 0.5, 0.25, &error);
  s = edit_ok (s, e, error);
  g_assert_true (km_body_save_over (s, NULL, original, path, notes, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (notes->len, ==, 0);
  g_assert_true (g_file_get_contents (path, &after, NULL, NULL));
  g_assert_nonnull (strstr (after, "  - name: base   # the root\n"));
  g_assert_null (strstr (after, "multiplier: 2 "));
  g_assert_nonnull (strstr (after, "kinema_mimic: { joint: \"a\", multiplier: 0.5, offset: 0.25 }"));
  back = load_file (path, FALSE);
  g_assert_cmpint (km_skeleton_get_joint (back, joint (back, "b"))->mimic, <, 0);
  j = km_skeleton_get_joint (back, joint (back, "c"));
  g_assert_cmpint (j->mimic, ==, (int) joint (back, "a"));
  g_assert_cmpfloat (j->mimic_ratio, ==, 0.5);
  g_assert_cmpfloat (j->mimic_offset, ==, 0.25);
  km_skeleton_unref (s);
}

/* The text of @path, as GBytes. */
static GBytes *
read_bytes (const char *path)
{
  char *data = NULL;
  gsize length = 0;

  g_assert_true (g_file_get_contents (path, &data, &length, NULL));
  return g_bytes_new_take (data, length);
}

/* A .body written over the text its model was read from, the file being gone (deleted by
 * another program while the editor had it open: the review rev23-gui, finding 1): the
 * text's mass, inertia, sensors and anchors are kept, as over a file that is there. */
static void
test_body_over_text (void)
{
  g_autofree char *from = g_test_build_filename (G_TEST_DIST, "data", "choreonoid", "SR1.body",
                                                 NULL);
  g_autofree char *dir = km_test_make_tmp_dir ("keep-XXXXXX");
  g_autofree char *gone = g_build_filename (dir, "SR1.body", NULL);
  g_autofree char *path = g_build_filename (dir, "SR1-2.body", NULL);
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) text = read_bytes (from);
  g_autofree char *after = NULL;
  g_autoptr(KmSkeleton) edited = NULL;
  g_autoptr(KmSkeleton) back = NULL;
  KmSkeleton *s = load_file (from, FALSE);
  KmSkeleton *e;

  e = km_skeleton_edit_set_offset (s, joint (s, "RARM_ELBOW"), km_vec3 (0, 0, -0.25), &error);
  edited = edit_ok (s, e, error);
  g_assert_false (g_file_test (gone, G_FILE_TEST_EXISTS));
  g_assert_true (km_body_save_over_text (edited, NULL, gone, text, path, notes, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (notes->len, ==, 0);
  g_assert_true (g_file_get_contents (path, &after, NULL, NULL));
  g_assert_cmpuint (count (g_bytes_get_data (text, NULL), "mass:"), ==, 60);
  g_assert_cmpuint (count (after, "mass:"), ==, 60);
  g_assert_cmpuint (count (after, "inertia:"), ==, 30);
  g_assert_nonnull (strstr (after, "type: AccelerationSensor"));
  g_assert_nonnull (strstr (after, "type: RateGyroSensor"));
  g_assert_nonnull (strstr (after, "type: ForceSensor"));
  g_assert_nonnull (strstr (after, "elements: &CameraShape"));
  back = load_file (path, FALSE);
  g_assert_true (km_skeleton_equal (back, edited, 1e-9));

  /* The path API reads the file: there is none, so the skeleton alone, and a note. */
  g_clear_pointer (&after, g_free);
  g_assert_true (km_body_save_over (edited, NULL, gone, path, notes, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (notes->len, ==, 1);
  g_assert_true (g_file_get_contents (path, &after, NULL, NULL));
  g_assert_cmpuint (count (after, "mass:"), ==, 0);
  km_test_remove_tree (dir);
}

/* The same for a URDF: its inertials, collisions, transmission, gazebo element and
 * comments, from the text. */
static void
test_urdf_over_text (void)
{
  g_autofree char *from = g_test_build_filename (G_TEST_DIST, "data", "kinema_arm", "urdf",
                                                 "ur5.urdf", NULL);
  g_autofree char *dir = km_test_make_tmp_dir ("keep-XXXXXX");
  g_autofree char *gone = g_build_filename (dir, "ur5.urdf", NULL);
  g_autofree char *path = g_build_filename (dir, "ur5-2.urdf", NULL);
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) text = read_bytes (from);
  const char *before = g_bytes_get_data (text, NULL);
  g_autofree char *after = NULL;
  g_autoptr(KmSkeleton) edited = NULL;
  g_autoptr(KmSkeleton) back = NULL;
  KmSkeleton *s = load_file (from, TRUE);
  KmSkeleton *e;

  e = km_skeleton_edit_set_offset (s, joint (s, "elbow_joint"), km_vec3 (0, -0.1, 0.4),
                                   &error);
  edited = edit_ok (s, e, error);
  g_assert_true (km_urdf_save_over_text (edited, gone, text, path, notes, &error));
  g_assert_no_error (error);
  for (guint n = 0; n < notes->len; n++)
    g_assert_null (strstr (g_ptr_array_index (notes, n), "not carried over"));
  g_assert_true (g_file_get_contents (path, &after, NULL, NULL));
  g_assert_cmpuint (count (before, "<inertial>"), >, 0);
  g_assert_cmpuint (count (after, "<inertial>"), ==, count (before, "<inertial>"));
  g_assert_cmpuint (count (after, "<collision>"), ==, count (before, "<collision>"));
  g_assert_nonnull (strstr (after, "<transmission name=\"t\"><type>SimpleTransmission</type></transmission>"));
  g_assert_nonnull (strstr (after, "<gazebo reference=\"ee_link\"><material>Gazebo/Blue</material></gazebo>"));
  g_assert_nonnull (strstr (after, "<!-- A UR5 arm"));
  back = load_file (path, TRUE);
  g_assert_true (km_skeleton_equal (back, edited, 1e-9));
  km_test_remove_tree (dir);
}

static void
ignore_warning (const char *message,
                gpointer    user_data)
{
}

/* The same for a skeleton.json: its unknown keys, from the text. */
static void
test_json_over_text (void)
{
  static const char json[] =
    "{\n"
    "  \"comment\": \"the user's note\",\n"
    "  \"root_name\": \"base\",\n"
    "  \"joints\": [\n"
    "    { \"name\": \"base\", \"type\": \"fixed\", \"offset\": [0, 0, 0] },\n"
    "    { \"name\": \"shoulder\", \"type\": \"revolute\", \"offset\": [0, 0, 0.1],\n"
    "      \"parent\": \"base\", \"axis\": [0, 0, 1], \"limits\": [-1, 1],\n"
    "      \"colour\": \"red\" }\n"
    "  ]\n"
    "}\n";
  g_autofree char *dir = km_test_make_tmp_dir ("keep-XXXXXX");
  g_autofree char *gone = g_build_filename (dir, "arm.json", NULL);
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) text = g_bytes_new_static (json, strlen (json));
  g_autofree char *after = NULL;
  g_autoptr(KmSkeleton) edited = NULL;
  KmSkeleton *s, *e;

  /* (its unknown keys are warned about) */
  km_parse_warnings_push (ignore_warning, NULL);
  s = km_skeleton_json_load (gone, json, strlen (json), NULL);
  km_parse_warnings_pop ();
  g_assert_nonnull (s);
  e = km_skeleton_edit_set_offset (s, joint (s, "shoulder"), km_vec3 (0, 0, 0.2), &error);
  edited = edit_ok (s, e, error);
  g_assert_true (km_skeleton_json_save_over_text (edited, gone, text, gone, notes, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (notes->len, ==, 0);
  g_assert_true (g_file_get_contents (gone, &after, NULL, NULL));
  g_assert_nonnull (strstr (after, "\"comment\": \"the user's note\""));
  g_assert_nonnull (strstr (after, "\"colour\": \"red\""));
  g_assert_nonnull (strstr (after, "[0, 0, 0.2]"));
  km_test_remove_tree (dir);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/model-keep/body/keeps-dynamics", test_body_keeps_dynamics);
  g_test_add_func ("/model-keep/body/missing-original", test_body_missing_original);
  g_test_add_func ("/model-keep/body/text-one-limit", test_body_text_one_limit);
  g_test_add_func ("/model-keep/body/text-rename", test_body_text_rename);
  g_test_add_func ("/model-keep/body/text-structure", test_body_text_structure);
  g_test_add_func ("/model-keep/body/text-fallback", test_body_text_fallback);
  g_test_add_func ("/model-keep/body/text-joint-name", test_body_text_joint_name);
  g_test_add_func ("/model-keep/urdf/keeps-dynamics", test_urdf_keeps_dynamics);
  g_test_add_func ("/model-keep/urdf/keeps-effector", test_urdf_keeps_effector);
  g_test_add_func ("/model-keep/body/keeps-effector", test_body_keeps_effector);
  g_test_add_func ("/model-keep/body/keeps-mimic", test_body_keeps_mimic);
  g_test_add_func ("/model-keep/body/over-text", test_body_over_text);
  g_test_add_func ("/model-keep/urdf/over-text", test_urdf_over_text);
  g_test_add_func ("/model-keep/json/over-text", test_json_over_text);
  return g_test_run ();
}
