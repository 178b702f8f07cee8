/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <math.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <glib.h>
#include <glib/gstdio.h>

#include "km-body-writer.h"
#include "km-format.h"
#include "km-skeleton-edit.h"
#include "km-urdf-writer.h"
#include "km-test-tmp.h"

static char *tmp_dir;

typedef gboolean (*SaveFunc) (const KmSkeleton *skeleton,
                              const char       *path,
                              GPtrArray        *notes,
                              GError          **error);

static KmSkeleton *
load (const char *path)
{
  g_autoptr(GError) error = NULL;
  const KmFormat *format = NULL;
  gpointer result = km_format_load_file (path, NULL, &format, &error);

  g_assert_no_error (error);
  g_assert_cmpint (format->kind, ==, KM_FILE_KIND_MODEL);
  return result;
}

/* Every joint of @a is, by name, at the same world pose in @b at several random poses
 * within the limits (the same DOF vector: the writers keep the DOF order). */
static void
assert_same_kinematics (const KmSkeleton *a,
                        const KmSkeleton *b)
{
  guint n = km_skeleton_get_n_joints (a), n_dof = km_skeleton_get_n_dof (a);
  g_autofree double *q = g_new0 (double, n_dof + 1);
  g_autofree double *lower = g_new (double, n_dof + 1);
  g_autofree double *upper = g_new (double, n_dof + 1);
  g_autofree KmTransform *wa = g_new (KmTransform, n);
  g_autofree KmTransform *wb = g_new (KmTransform, km_skeleton_get_n_joints (b));
  g_autoptr(GRand) rand = g_rand_new_with_seed (42);

  g_assert_cmpuint (km_skeleton_get_n_dof (b), ==, n_dof);
  km_skeleton_get_dof_limits (a, lower, upper);
  for (guint pose = 0; pose < 6; pose++)
    {
      for (guint d = 0; d < n_dof; d++)
        {
          double lo = isfinite (lower[d]) ? lower[d] : -G_PI;
          double hi = isfinite (upper[d]) ? upper[d] : G_PI;

          q[d] = pose == 0 ? 0 : g_rand_double_range (rand, lo, hi);
        }
      km_skeleton_clamp (a, q);
      km_skeleton_forward_kinematics (a, q, NULL, wa);
      km_skeleton_forward_kinematics (b, q, NULL, wb);
      for (guint i = 0; i < n; i++)
        {
          const KmJoint *j = km_skeleton_get_joint (a, i);
          int k = km_skeleton_find_joint (b, j->name);

          g_assert_cmpint (k, >=, 0);
          g_assert_cmpfloat (km_vec3_length (km_vec3_sub (wa[i].pos, wb[k].pos)), <, 1e-9);
          g_assert_cmpfloat (km_mat3_rotation_angle (&wa[i].rot, &wb[k].rot), <, 1e-9);
        }
    }
  /* Limits survive too (in radians and metres). */
  {
    g_autofree double *lower_b = g_new (double, n_dof + 1);
    g_autofree double *upper_b = g_new (double, n_dof + 1);

    km_skeleton_get_dof_limits (b, lower_b, upper_b);
    for (guint d = 0; d < n_dof; d++)
      {
        if (isfinite (lower[d]) && isfinite (upper[d]))
          {
            g_assert_cmpfloat_with_epsilon (lower_b[d], lower[d], 1e-12);
            g_assert_cmpfloat_with_epsilon (upper_b[d], upper[d], 1e-12);
          }
        else
          g_assert_true (isinf (lower_b[d]) && isinf (upper_b[d]));
      }
  }
}

static KmSkeleton *
round_trip (const KmSkeleton *skeleton,
            SaveFunc          save,
            const char       *file_name,
            GPtrArray        *notes)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_build_filename (tmp_dir, file_name, NULL);

  g_assert_true (save (skeleton, path, notes, &error));
  g_assert_no_error (error);
  return load (path);
}

static void
check_fixture (const char *const *parts,
               guint              expected_notes_body,
               guint              expected_notes_urdf)
{
  g_autofree char *input = g_build_filenamev ((char **) parts);
  g_autoptr(KmSkeleton) original = NULL;
  g_autoptr(KmSkeleton) body = NULL;
  g_autoptr(KmSkeleton) urdf = NULL;
  g_autoptr(GPtrArray) body_notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) urdf_notes = g_ptr_array_new_with_free_func (g_free);

  original = load (input);
  body = round_trip (original, km_body_save, "model.body", body_notes);
  assert_same_kinematics (original, body);
  g_assert_cmpuint (body_notes->len, ==, expected_notes_body);
  urdf = round_trip (original, km_urdf_save, "model.urdf", urdf_notes);
  assert_same_kinematics (original, urdf);
  g_assert_cmpuint (urdf_notes->len, ==, expected_notes_urdf);
}

static void
test_spec_example (void)
{
  g_autofree char *dist = g_test_build_filename (G_TEST_DIST, "data", NULL);
  const char *parts[] = { dist, "cnoid", "kinema", "arm.json", NULL };
  g_autoptr(KmSkeleton) arm = NULL;
  g_autoptr(KmSkeleton) urdf = NULL;
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *path = g_build_filenamev ((char **) parts);

  /* One spherical joint: one note each. */
  /* URDF: also the placeholder effort and velocity of its limited joints. */
  check_fixture (parts, 1, 2);

  arm = load (path);
  urdf = round_trip (arm, km_urdf_save, "arm.urdf", notes);
  g_assert_nonnull (strstr (g_ptr_array_index (notes, 0), "spherical joint “Shoulder”"));
  g_assert_cmpint (km_skeleton_get_joint (urdf, (guint) km_skeleton_find_joint (urdf, "Shoulder_x"))->type,
                   ==, KM_JOINT_REVOLUTE);
  g_assert_cmpuint (km_skeleton_get_n_joints (urdf), ==, km_skeleton_get_n_joints (arm) + 2);
}

static void
test_iiwa (void)
{
  g_autofree char *dist = g_test_build_filename (G_TEST_DIST, "data", NULL);
  const char *parts[] = { dist, "bench-iiwa7.json", NULL };

  /* URDF: the placeholder effort and velocity of its limited joints. */
  check_fixture (parts, 0, 1);
}

static void
test_sr1 (void)
{
  g_autofree char *dist = g_test_build_filename (G_TEST_DIST, "data", NULL);
  const char *parts[] = { dist, "choreonoid", "SR1.body", NULL };
  g_autoptr(KmSkeleton) original = NULL;
  g_autoptr(KmSkeleton) body = NULL;
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *path = g_build_filenamev ((char **) parts);
  guint n_a = 0, n_b = 0;

  original = load (path);
  body = round_trip (original, km_body_save, "sr1.body", notes);
  assert_same_kinematics (original, body);
  g_assert_true (km_skeleton_has_free_root (body));
  /* The display shapes come back as many as they were. */
  for (guint i = 0; i < km_skeleton_get_n_joints (original); i++)
    {
      guint n = 0;

      km_skeleton_get_shapes (original, i, &n);
      n_a += n;
      km_skeleton_get_shapes (body, (guint) km_skeleton_find_joint (body, km_skeleton_get_joint (original, i)->name), &n);
      n_b += n;
    }
  g_assert_cmpuint (n_a, >, 0);
  g_assert_cmpuint (n_b, ==, n_a);

  g_ptr_array_set_size (notes, 0);
  {
    g_autoptr(KmSkeleton) urdf = round_trip (original, km_urdf_save, "sr1.urdf", notes);
    gboolean said_free = FALSE;

    assert_same_kinematics (original, urdf);
    for (guint i = 0; i < notes->len; i++)
      said_free |= strstr (g_ptr_array_index (notes, i), "free root") != NULL;
    g_assert_true (said_free);
  }
}

static void
test_ur5 (void)
{
  g_autofree char *dist = g_test_build_filename (G_TEST_DIST, "data", NULL);
  const char *parts[] = { dist, "kinema_arm", "urdf", "ur5.urdf", NULL };
  g_autofree char *path = g_build_filenamev ((char **) parts);
  g_autoptr(KmSkeleton) original = load (path);
  g_autoptr(KmSkeleton) urdf = NULL;
  g_autoptr(KmSkeleton) body = NULL;

  urdf = round_trip (original, km_urdf_save, "ur5.urdf", NULL);
  assert_same_kinematics (original, urdf);
  body = round_trip (original, km_body_save, "ur5.body", NULL);
  assert_same_kinematics (original, body);
}

/* An edited skeleton with every joint type and primitive shapes. */
static void
test_edited (void)
{
  g_autoptr(KmSkeletonBuilder) b = km_skeleton_builder_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(KmShape) cyl = km_shape_new_cylinder (0.05, 0.4);
  g_autoptr(KmShape) box = km_shape_new_box (km_vec3 (0.1, 0.2, 0.3));
  g_autoptr(KmSkeleton) skel = NULL;
  g_autoptr(KmSkeleton) mirrored = NULL;
  g_autoptr(KmSkeleton) body = NULL;
  g_autoptr(KmSkeleton) urdf = NULL;
  KmShape * const *shapes;
  guint j, n = 0;

  km_transform_from_pos_quat (km_vec3 (0.1, 0.2, 0.3),
                              km_quat_from_euler_xyz (km_vec3 (0.4, 0.5, 0.6)), &cyl->transform);
  box->scale = km_vec3 (2, 1, 1);
  km_skeleton_builder_add_joint (b, "base", KM_JOINT_FIXED, NULL);
  j = km_skeleton_builder_add_joint (b, "l_hip", KM_JOINT_SPHERICAL, "base");
  km_skeleton_builder_set_offset (b, j, km_vec3 (0, 0.1, -0.1));
  km_skeleton_builder_set_limit (b, j, 1, -0.5, 0.7);
  j = km_skeleton_builder_add_joint (b, "l_knee", KM_JOINT_REVOLUTE, "l_hip");
  km_skeleton_builder_set_offset (b, j, km_vec3 (0.01, 0, -0.4));
  /* Near the pitch = ±90° singularity of roll-pitch-yaw. */
  km_skeleton_builder_set_rotation (b, j, km_quat_from_euler_xyz (km_vec3 (0.2, G_PI / 2, 0.1)));
  km_skeleton_builder_set_axis (b, j, km_vec3 (0, 1, 0));
  km_skeleton_builder_set_limit (b, j, 0, 0, 2.5);
  km_skeleton_builder_add_shape (b, j, cyl);
  km_skeleton_builder_add_shape (b, j, box);
  j = km_skeleton_builder_add_joint (b, "l_foot", KM_JOINT_PRISMATIC, "l_knee");
  km_skeleton_builder_set_offset (b, j, km_vec3 (0, 0, -0.4));
  km_skeleton_builder_set_axis (b, j, km_vec3 (0, 0.6, 0.8));
  km_skeleton_builder_set_limit (b, j, 0, -0.01, 0.02);
  skel = km_skeleton_builder_build (b, NULL, &error);
  g_assert_no_error (error);
  mirrored = km_skeleton_edit_mirror (skel, 1, KM_MIRROR_PLANE_XZ, NULL, &error);
  g_assert_no_error (error);

  body = round_trip (mirrored, km_body_save, "edited.body", NULL);
  assert_same_kinematics (mirrored, body);
  urdf = round_trip (mirrored, km_urdf_save, "edited.urdf", NULL);
  assert_same_kinematics (mirrored, urdf);

  /* The shapes come back where they were, in both formats. */
  for (guint f = 0; f < 2; f++)
    {
      KmSkeleton *back = f == 0 ? body : urdf;
      KmShape * const *orig = km_skeleton_get_shapes (mirrored, (guint) km_skeleton_find_joint (mirrored, "r_knee"), &n);

      g_assert_cmpuint (n, ==, 2);
      shapes = km_skeleton_get_shapes (back, (guint) km_skeleton_find_joint (back, "r_knee"), &n);
      g_assert_cmpuint (n, ==, 2);
      for (guint s = 0; s < 2; s++)
        {
          const KmShape *a = orig[s], *c = shapes[s];

          /* Same placement and same extent (a scale may be folded into the sizes). */
          g_assert_cmpint (c->type, ==, a->type);
          g_assert_cmpfloat (km_vec3_length (km_vec3_sub (a->transform.pos, c->transform.pos)), <, 1e-9);
          g_assert_cmpfloat (km_mat3_rotation_angle (&a->transform.rot, &c->transform.rot), <, 1e-9);
          if (a->type == KM_SHAPE_BOX)
            {
              g_assert_cmpfloat_with_epsilon (a->size.x * a->scale.x, c->size.x * c->scale.x, 1e-12);
              g_assert_cmpfloat_with_epsilon (a->size.y * a->scale.y, c->size.y * c->scale.y, 1e-12);
              g_assert_cmpfloat_with_epsilon (a->size.z * a->scale.z, c->size.z * c->scale.z, 1e-12);
            }
          else
            {
              g_assert_cmpfloat_with_epsilon (c->radius * c->scale.x, a->radius * a->scale.x, 1e-12);
              g_assert_cmpfloat_with_epsilon (c->height * c->scale.y, a->height * a->scale.y, 1e-12);
            }
        }
      g_assert_cmpfloat_with_epsilon (shapes[0]->radius, 0.05, 1e-12);
    }

  /* A root that is placed and moves: URDF needs a base link below it. */
  {
    g_autoptr(KmSkeleton) t = km_skeleton_edit_set_type (mirrored, 0, KM_JOINT_REVOLUTE, &error);
    g_autoptr(KmSkeleton) moving = NULL;
    g_autoptr(KmSkeleton) body2 = NULL;
    g_autoptr(KmSkeleton) urdf2 = NULL;
    g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);

    g_assert_no_error (error);
    moving = km_skeleton_edit_set_offset (t, 0, km_vec3 (0.1, 0.2, 0.3), &error);
    g_assert_no_error (error);
    body2 = round_trip (moving, km_body_save, "moving.body", NULL);
    assert_same_kinematics (moving, body2);
    urdf2 = round_trip (moving, km_urdf_save, "moving.urdf", notes);
    assert_same_kinematics (moving, urdf2);
    g_assert_cmpint (km_skeleton_find_joint (urdf2, "base_base"), ==, 0);
    g_assert_cmpstr (g_ptr_array_index (notes, 0), ==,
                     "URDF cannot place or move the root link: “base” is written as a joint "
                     "below a new base link “base_base”");
  }
}

/* A save that fails (the disk is full: RLIMIT_FSIZE) leaves the old file as it was. */
static void
check_failed_save (SaveFunc    save,
                   const char *file_name)
{
  g_autofree char *dir = g_build_filename (tmp_dir, "fail", NULL);
  g_autofree char *path = g_build_filename (dir, file_name, NULL);
  g_autofree char *after = NULL;
  g_autoptr(KmSkeleton) skel = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GDir) listing = NULL;
  g_autofree char *dist = g_test_build_filename (G_TEST_DIST, "data", "bench-iiwa7.json", NULL);
  const char *old = "old contents\n";
  int verdict_pipe[2];
  char verdict = 0;
  int status;
  pid_t pid;

  skel = load (dist);
  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (path, old, -1, &error));
  /* The child reports through a pipe, not its exit status: under valgrind the locals it
   * never frees before _exit would turn its status into valgrind's error code. */
  g_assert_cmpint (pipe (verdict_pipe), ==, 0);
  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      struct rlimit limit = { 100, 100 };

      close (verdict_pipe[0]);
      signal (SIGXFSZ, SIG_IGN);
      setrlimit (RLIMIT_FSIZE, &limit);
      verdict = save (skel, path, NULL, NULL) ? 'S' : 'F';
      _exit (write (verdict_pipe[1], &verdict, 1) == 1 ? 0 : 3);
    }
  close (verdict_pipe[1]);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (read (verdict_pipe[0], &verdict, 1), ==, 1);
  close (verdict_pipe[0]);
  g_assert_cmpint (verdict, ==, 'F');
  g_assert_true (g_file_get_contents (path, &after, NULL, &error));
  g_assert_cmpstr (after, ==, old);
  /* And no temporary file is left behind. */
  listing = g_dir_open (dir, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (g_dir_read_name (listing), ==, file_name);
  g_assert_null (g_dir_read_name (listing));
  g_unlink (path);
  g_rmdir (dir);

  /* An unwritable place fails with an error too. */
  g_assert_false (save (skel, "/nonexistent-dir/x/model", NULL, &error));
  g_assert_nonnull (error);
}

static void
test_failed_save (void)
{
  check_failed_save (km_body_save, "model.body");
  check_failed_save (km_urdf_save, "model.urdf");
}

int
main (int   argc,
      char *argv[])
{
  int status;

  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  tmp_dir = g_dir_make_tmp ("kinema-export-XXXXXX", NULL);
  g_assert_nonnull (tmp_dir);

  g_test_add_func ("/kinema/SkeletonExport/spec-example", test_spec_example);
  g_test_add_func ("/kinema/SkeletonExport/iiwa7", test_iiwa);
  g_test_add_func ("/kinema/SkeletonExport/sr1", test_sr1);
  g_test_add_func ("/kinema/SkeletonExport/ur5", test_ur5);
  g_test_add_func ("/kinema/SkeletonExport/edited", test_edited);
  g_test_add_func ("/kinema/SkeletonExport/failed-save", test_failed_save);

  status = g_test_run ();
  /* Shared by all the tests, so removed here rather than when the first test ends. */
  km_test_remove_tree (tmp_dir);
  g_free (tmp_dir);
  return status;
}
