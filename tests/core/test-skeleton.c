/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <math.h>
#include <glib.h>

#include "km-skeleton.h"

/* Every expected pose below was worked out by hand from T = Translate · Rotate · Motion. */

static void
assert_vec3 (KmVec3 v,
             double x,
             double y,
             double z)
{
  g_assert_cmpfloat_with_epsilon (v.x, x, 1e-12);
  g_assert_cmpfloat_with_epsilon (v.y, y, 1e-12);
  g_assert_cmpfloat_with_epsilon (v.z, z, 1e-12);
}

static KmVec3
column (const KmMat3 *m,
        int           c)
{
  return km_vec3 (m->m[0][c], m->m[1][c], m->m[2][c]);
}

static KmTransform *
fk (KmSkeleton   *skel,
    const double *q)
{
  KmTransform *world = g_new (KmTransform, km_skeleton_get_n_joints (skel));

  km_skeleton_forward_kinematics (skel, q, NULL, world);
  return world;
}

static KmSkeleton *
build (KmSkeletonBuilder *b)
{
  g_autoptr(GError) error = NULL;
  KmSkeleton *skel = km_skeleton_builder_build (b, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (skel);
  return skel;
}

/* base → a (revolute z, at z = 1) → b (revolute y, 1 along x) → tip (0.5 up). */
static void
test_revolute (void)
{
  g_autoptr(KmSkeletonBuilder) b = km_skeleton_builder_new ();
  g_autoptr(KmSkeleton) skel = NULL;
  struct { double q[2]; double tip[3]; } cases[] = {
    { { 0, 0 }, { 1, 0, 1.5 } },
    { { G_PI_2, 0 }, { 0, 1, 1.5 } },
    { { 0, G_PI_2 }, { 1.5, 0, 1 } },
    { { G_PI_2, G_PI_2 }, { 0, 1.5, 1 } },
    { { G_PI, -G_PI_2 }, { -0.5, 0, 1 } },
  };
  guint j;

  km_skeleton_builder_add_joint (b, "base", KM_JOINT_FIXED, NULL);
  j = km_skeleton_builder_add_joint (b, "a", KM_JOINT_REVOLUTE, "base");
  km_skeleton_builder_set_offset (b, j, km_vec3 (0, 0, 1));
  km_skeleton_builder_set_axis (b, j, km_vec3 (0, 0, 2));
  j = km_skeleton_builder_add_joint (b, "b", KM_JOINT_REVOLUTE, "a");
  km_skeleton_builder_set_offset (b, j, km_vec3 (1, 0, 0));
  km_skeleton_builder_set_axis (b, j, km_vec3 (0, 1, 0));
  j = km_skeleton_builder_add_joint (b, "tip", KM_JOINT_FIXED, "b");
  km_skeleton_builder_set_offset (b, j, km_vec3 (0, 0, 0.5));
  skel = build (b);

  g_assert_cmpuint (km_skeleton_get_n_dof (skel), ==, 2);
  assert_vec3 (km_skeleton_get_joint (skel, 1)->axis, 0, 0, 1);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree KmTransform *w = fk (skel, cases[i].q);

      assert_vec3 (w[3].pos, cases[i].tip[0], cases[i].tip[1], cases[i].tip[2]);
    }

  /* With a root pose: translated by (10, 0, 0) and turned 90° about z. */
  {
    double q[2] = { 0, 0 };
    KmTransform root, world[4];

    km_transform_from_pos_quat (km_vec3 (10, 0, 0),
                                km_quat_from_axis_angle (km_vec3 (0, 0, 1), G_PI_2), &root);
    km_skeleton_forward_kinematics (skel, q, &root, world);
    assert_vec3 (world[3].pos, 10, 1, 1.5);
  }
}

static void
test_prismatic (void)
{
  g_autoptr(KmSkeletonBuilder) b = km_skeleton_builder_new ();
  g_autoptr(KmSkeleton) skel = NULL;
  double q[1] = { 0.3 };
  g_autofree KmTransform *w = NULL;
  guint j;

  km_skeleton_builder_add_joint (b, "base", KM_JOINT_FIXED, NULL);
  j = km_skeleton_builder_add_joint (b, "p", KM_JOINT_PRISMATIC, "base");
  km_skeleton_builder_set_offset (b, j, km_vec3 (0, 0, 2));
  km_skeleton_builder_set_axis (b, j, km_vec3 (3, 0, 0));
  km_skeleton_builder_set_limit (b, j, 0, -0.5, 0.5);
  j = km_skeleton_builder_add_joint (b, "tip", KM_JOINT_FIXED, "p");
  km_skeleton_builder_set_offset (b, j, km_vec3 (0, 1, 0));
  skel = build (b);

  w = fk (skel, q);
  assert_vec3 (w[1].pos, 0.3, 0, 2);
  assert_vec3 (w[2].pos, 0.3, 1, 2);
  assert_vec3 (column (&w[2].rot, 0), 1, 0, 0);
  g_assert_true (km_skeleton_within_limits (skel, q, 0));
  q[0] = 0.6;
  g_assert_false (km_skeleton_within_limits (skel, q, 0));
  km_skeleton_clamp (skel, q);
  g_assert_cmpfloat (q[0], ==, 0.5);
}

/* base → s (spherical at z = 1) → tip (1 up): the tip is at (0,0,1) + Rx(a)·Ry(b)·Rz(c)·ẑ. */
static void
test_spherical (void)
{
  g_autoptr(KmSkeletonBuilder) b = km_skeleton_builder_new ();
  g_autoptr(KmSkeleton) skel = NULL;
  guint j;

  km_skeleton_builder_add_joint (b, "base", KM_JOINT_FIXED, NULL);
  j = km_skeleton_builder_add_joint (b, "s", KM_JOINT_SPHERICAL, "base");
  km_skeleton_builder_set_offset (b, j, km_vec3 (0, 0, 1));
  j = km_skeleton_builder_add_joint (b, "tip", KM_JOINT_FIXED, "s");
  km_skeleton_builder_set_offset (b, j, km_vec3 (0, 0, 1));
  skel = build (b);
  g_assert_cmpuint (km_skeleton_get_n_dof (skel), ==, 3);

  {
    double q[3] = { G_PI_2, 0, 0 };
    g_autofree KmTransform *w = fk (skel, q);

    /* Rx(90°) ẑ = -ŷ */
    assert_vec3 (w[2].pos, 0, -1, 1);
  }
  {
    /* Rx(a) Ry(b) ẑ = (sin b, -cos b sin a, cos b cos a); Rz leaves ẑ alone. */
    double q[3] = { 0.3, 0.2, 1.0 };
    g_autofree KmTransform *w = fk (skel, q);

    assert_vec3 (w[2].pos, sin (0.2), -cos (0.2) * sin (0.3), 1 + cos (0.2) * cos (0.3));
  }
  {
    /* Gimbal lock y = +π/2: Ry(π/2) (x, y, z) = (z, y, -x), so the tip points along +x and
     * the rotated x axis is (0, sin (a + c), -cos (a + c)): only a + c matters. */
    double q[3] = { 0.3, G_PI_2, 0.4 };
    g_autofree KmTransform *w = fk (skel, q);

    assert_vec3 (w[2].pos, 1, 0, 1);
    assert_vec3 (column (&w[2].rot, 0), 0, sin (0.7), -cos (0.7));
  }
  {
    /* y = -π/2: Ry(-π/2) (x, y, z) = (-z, y, x); x axis (0, sin (c - a), cos (c - a)). */
    double q[3] = { 0.3, -G_PI_2, 0.4 };
    g_autofree KmTransform *w = fk (skel, q);

    assert_vec3 (w[2].pos, -1, 0, 1);
    assert_vec3 (column (&w[2].rot, 0), 0, sin (0.1), cos (0.1));
  }
}

/* A constant frame rotation of 90° about z: the local x axis of the joint is world y. */
static void
test_rotation (void)
{
  g_autoptr(KmSkeletonBuilder) b = km_skeleton_builder_new ();
  g_autoptr(KmSkeleton) skel = NULL;
  guint j;

  km_skeleton_builder_add_joint (b, "base", KM_JOINT_FIXED, NULL);
  j = km_skeleton_builder_add_joint (b, "r", KM_JOINT_REVOLUTE, "base");
  km_skeleton_builder_set_offset (b, j, km_vec3 (0, 0, 1));
  km_skeleton_builder_set_rotation (b, j, (KmQuat) { G_SQRT2 / 2, 0, 0, G_SQRT2 / 2 });
  km_skeleton_builder_set_axis (b, j, km_vec3 (1, 0, 0));
  j = km_skeleton_builder_add_joint (b, "tip", KM_JOINT_FIXED, "r");
  km_skeleton_builder_set_offset (b, j, km_vec3 (0, 0, 1));
  j = km_skeleton_builder_add_joint (b, "side", KM_JOINT_FIXED, "r");
  km_skeleton_builder_set_offset (b, j, km_vec3 (1, 0, 0));
  skel = build (b);

  {
    double q[1] = { 0 };
    g_autofree KmTransform *w = fk (skel, q);

    assert_vec3 (w[2].pos, 0, 0, 2);
    assert_vec3 (w[3].pos, 0, 1, 1);    /* Rz(90°) x̂ = ŷ */
  }
  {
    /* Rz(90°) · Rx(90°) · ẑ = Rz(90°) · (0, -1, 0) = (1, 0, 0). */
    double q[1] = { G_PI_2 };
    g_autofree KmTransform *w = fk (skel, q);

    assert_vec3 (w[2].pos, 1, 0, 1);
    assert_vec3 (w[3].pos, 0, 1, 1);    /* on the axis: does not move */
  }
}

/*
 * base ─ arm1 (revolute z, 1 along x) ─ h1 (1 along x)
 *      └ arm2 (revolute z, 1 along -x) ─ h2 (1 along y)
 * added as base, arm1, arm2, h2, h1: h1 is the last leaf in file order although h2 comes
 * last in topological (preorder) order.
 */
static void
test_tree (void)
{
  g_autoptr(KmSkeletonBuilder) b = km_skeleton_builder_new ();
  g_autoptr(KmSkeleton) skel = NULL;
  double q[2] = { G_PI_2, G_PI_2 };
  g_autofree KmTransform *w = NULL;
  int h1, h2, arm2;
  guint j;

  km_skeleton_builder_add_joint (b, "base", KM_JOINT_FIXED, NULL);
  j = km_skeleton_builder_add_joint (b, "arm1", KM_JOINT_REVOLUTE, "base");
  km_skeleton_builder_set_offset (b, j, km_vec3 (1, 0, 0));
  km_skeleton_builder_set_axis (b, j, km_vec3 (0, 0, 1));
  j = km_skeleton_builder_add_joint (b, "arm2", KM_JOINT_REVOLUTE, "base");
  km_skeleton_builder_set_offset (b, j, km_vec3 (-1, 0, 0));
  km_skeleton_builder_set_axis (b, j, km_vec3 (0, 0, 1));
  j = km_skeleton_builder_add_joint (b, "h2", KM_JOINT_FIXED, "arm2");
  km_skeleton_builder_set_offset (b, j, km_vec3 (0, 1, 0));
  j = km_skeleton_builder_add_joint (b, "h1", KM_JOINT_FIXED, "arm1");
  km_skeleton_builder_set_offset (b, j, km_vec3 (1, 0, 0));
  skel = build (b);

  h1 = km_skeleton_find_joint (skel, "h1");
  h2 = km_skeleton_find_joint (skel, "h2");
  arm2 = km_skeleton_find_joint (skel, "arm2");
  g_assert_cmpint (h1, ==, 2);
  g_assert_cmpint (arm2, ==, 3);
  g_assert_cmpint (h2, ==, 4);
  g_assert_cmpint (km_skeleton_get_default_effector (skel), ==, h1);
  g_assert_cmpuint (km_skeleton_get_joint (skel, 1)->subtree_end, ==, 3);
  g_assert_cmpuint (km_skeleton_get_joint (skel, 0)->subtree_end, ==, 5);
  g_assert_cmpint (km_skeleton_get_joint (skel, arm2)->dof_index, ==, 1);

  w = fk (skel, q);
  assert_vec3 (w[h1].pos, 1, 1, 0);
  assert_vec3 (w[h2].pos, -2, 0, 0);
}

/* Children added before their parents still come out parents-first. */
static void
test_reversed_order (void)
{
  g_autoptr(KmSkeletonBuilder) b = km_skeleton_builder_new ();
  g_autoptr(KmSkeleton) skel = NULL;
  const char *names[] = { "tip", "j3", "j2", "j1", "root" };
  const char *parents[] = { "j3", "j2", "j1", "root", NULL };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      KmJointType type = i == 0 || i == 4 ? KM_JOINT_FIXED : KM_JOINT_REVOLUTE;
      guint j = km_skeleton_builder_add_joint (b, names[i], type, parents[i]);

      km_skeleton_builder_set_offset (b, j, km_vec3 (0, 0, 1));
      km_skeleton_builder_set_axis (b, j, km_vec3 (1, 0, 0));
    }
  skel = build (b);

  g_assert_cmpstr (km_skeleton_get_root_name (skel), ==, "root");
  for (guint t = 0; t < 5; t++)
    {
      const KmJoint *j = km_skeleton_get_joint (skel, t);

      g_assert_cmpstr (j->name, ==, names[4 - t]);
      g_assert_cmpint (j->parent, ==, (int) t - 1);
      g_assert_cmpuint (j->file_index, ==, 4 - t);
    }
  g_assert_cmpint (km_skeleton_get_default_effector (skel), ==, 4);
  /* DOFs follow the topological order: j1, j2, j3. */
  g_assert_cmpint (km_skeleton_get_dof_joint (skel, 0), ==, 1);
  g_assert_cmpint (km_skeleton_get_dof_joint (skel, 2), ==, 3);
}

typedef void (*BuildFunc) (KmSkeletonBuilder *b);

static void
bad_duplicate (KmSkeletonBuilder *b)
{
  km_skeleton_builder_add_joint (b, "root", KM_JOINT_FIXED, NULL);
  km_skeleton_builder_add_joint (b, "a", KM_JOINT_FIXED, "root");
  km_skeleton_builder_add_joint (b, "a", KM_JOINT_FIXED, "root");
}

static void
bad_unknown_parent (KmSkeletonBuilder *b)
{
  km_skeleton_builder_add_joint (b, "root", KM_JOINT_FIXED, NULL);
  km_skeleton_builder_add_joint (b, "a", KM_JOINT_FIXED, "root");
  km_skeleton_builder_add_joint (b, "b", KM_JOINT_FIXED, "nowhere");
}

static void
bad_cycle (KmSkeletonBuilder *b)
{
  km_skeleton_builder_add_joint (b, "root", KM_JOINT_FIXED, NULL);
  km_skeleton_builder_add_joint (b, "a", KM_JOINT_FIXED, "b");
  km_skeleton_builder_add_joint (b, "b", KM_JOINT_FIXED, "a");
}

static void
bad_two_roots (KmSkeletonBuilder *b)
{
  km_skeleton_builder_add_joint (b, "root", KM_JOINT_FIXED, NULL);
  km_skeleton_builder_add_joint (b, "a", KM_JOINT_FIXED, "root");
  km_skeleton_builder_add_joint (b, "other", KM_JOINT_FIXED, NULL);
}

static void
bad_zero_axis (KmSkeletonBuilder *b)
{
  guint j;

  km_skeleton_builder_add_joint (b, "root", KM_JOINT_FIXED, NULL);
  j = km_skeleton_builder_add_joint (b, "a", KM_JOINT_REVOLUTE, "root");
  km_skeleton_builder_set_axis (b, j, km_vec3 (0, 0, 0));
}

static void
bad_limits (KmSkeletonBuilder *b)
{
  guint j;

  km_skeleton_builder_add_joint (b, "root", KM_JOINT_FIXED, NULL);
  j = km_skeleton_builder_add_joint (b, "s", KM_JOINT_SPHERICAL, "root");
  km_skeleton_builder_set_limit (b, j, 0, -1, 1);
  km_skeleton_builder_set_limit (b, j, 2, 0.5, -0.5);
}

/* An end open the wrong way ([+∞, +∞]) leaves no value. */
static void
bad_open_limits (KmSkeletonBuilder *b)
{
  guint j;

  km_skeleton_builder_add_joint (b, "root", KM_JOINT_FIXED, NULL);
  j = km_skeleton_builder_add_joint (b, "r", KM_JOINT_REVOLUTE, "root");
  km_skeleton_builder_set_axis (b, j, km_vec3 (0, 0, 1));
  km_skeleton_builder_set_limit (b, j, 0, INFINITY, INFINITY);
}

/* Limits with one open end are kept; both open is no limit. Seeds, clamping and spans are
 * finite and within them. */
static void
test_one_sided_limits (void)
{
  g_autoptr(KmSkeletonBuilder) b = km_skeleton_builder_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = NULL;
  double q[3], lo[3], hi[3], a, c;
  guint j;

  km_skeleton_builder_add_joint (b, "root", KM_JOINT_FIXED, NULL);
  j = km_skeleton_builder_add_joint (b, "r", KM_JOINT_REVOLUTE, "root");
  km_skeleton_builder_set_axis (b, j, km_vec3 (0, 0, 1));
  km_skeleton_builder_set_limit (b, j, 0, -INFINITY, 0.5);
  j = km_skeleton_builder_add_joint (b, "p", KM_JOINT_PRISMATIC, "r");
  km_skeleton_builder_set_axis (b, j, km_vec3 (1, 0, 0));
  km_skeleton_builder_set_limit (b, j, 0, 0.05, INFINITY);
  j = km_skeleton_builder_add_joint (b, "u", KM_JOINT_REVOLUTE, "p");
  km_skeleton_builder_set_axis (b, j, km_vec3 (0, 1, 0));
  km_skeleton_builder_set_limit (b, j, 0, -INFINITY, INFINITY);
  skel = km_skeleton_builder_build (b, NULL, &error);
  g_assert_no_error (error);

  g_assert_true (km_skeleton_get_joint (skel, 1)->limits[0].limited);
  g_assert_true (km_skeleton_get_joint (skel, 2)->limits[0].limited);
  g_assert_false (km_skeleton_get_joint (skel, 3)->limits[0].limited);
  km_skeleton_get_dof_limits (skel, lo, hi);
  g_assert_cmpfloat (lo[0], ==, -INFINITY);
  g_assert_cmpfloat (hi[0], ==, 0.5);
  g_assert_cmpfloat (lo[1], ==, 0.05);
  g_assert_cmpfloat (hi[1], ==, INFINITY);

  km_skeleton_get_mid_range (skel, q);
  g_assert_cmpfloat_with_epsilon (q[0], 0.5 - G_PI / 4, 1e-12);
  g_assert_cmpfloat_with_epsilon (q[1], 0.15, 1e-12);
  g_assert_cmpfloat (q[2], ==, 0.0);
  q[0] = 3.0, q[1] = NAN, q[2] = -INFINITY;
  km_skeleton_clamp (skel, q);
  g_assert_cmpfloat (q[0], ==, 0.5);
  g_assert_cmpfloat_with_epsilon (q[1], 0.15, 1e-12);
  g_assert_cmpfloat (q[2], ==, 0.0);
  g_assert_true (km_skeleton_within_limits (skel, q, 0.0));
  q[0] = -1e6;
  g_assert_true (km_skeleton_within_limits (skel, q, 0.0));
  q[1] = 0.0;
  g_assert_false (km_skeleton_within_limits (skel, q, 0.0));

  g_assert_cmpfloat (km_range_seed (-1.0, 1.0, FALSE), ==, 0.0);
  g_assert_cmpfloat (km_range_seed (-INFINITY, INFINITY, FALSE), ==, 0.0);
  g_assert_cmpfloat (km_range_seed (-G_PI_2, INFINITY, FALSE), ==, 0.0);
  g_assert_cmpfloat_with_epsilon (km_range_seed (-INFINITY, -2.0, TRUE), -2.1, 1e-12);
  /* A turn slid inside from the finite end; a range narrower than the span is the span. */
  km_range_span (-INFINITY, 0.5, 0.0, G_PI, &a, &c);
  g_assert_cmpfloat_with_epsilon (a, 0.5 - 2 * G_PI, 1e-12);
  g_assert_cmpfloat (c, ==, 0.5);
  km_range_span (-2.0, INFINITY, 1.0, G_PI, &a, &c);
  g_assert_cmpfloat (a, ==, -2.0);
  g_assert_cmpfloat_with_epsilon (c, -2.0 + 2 * G_PI, 1e-12);
  km_range_span (-2.0, INFINITY, 4.0, G_PI, &a, &c);
  g_assert_cmpfloat_with_epsilon (a, 4.0 - G_PI, 1e-12);
  g_assert_cmpfloat_with_epsilon (c, 4.0 + G_PI, 1e-12);
  km_range_span (-0.5, 0.5, NAN, G_PI, &a, &c);
  g_assert_cmpfloat (a, ==, -0.5);
  g_assert_cmpfloat (c, ==, 0.5);
  km_range_span (-INFINITY, INFINITY, 0.0, 1.0, &a, &c);
  g_assert_cmpfloat (a, ==, -1.0);
  g_assert_cmpfloat (c, ==, 1.0);
}

static void
test_builder_errors (void)
{
  struct {
    BuildFunc      build;
    KmSkeletonError code;
    guint          joint;
    KmJointField   field;
    guint          axis;
  } cases[] = {
    { bad_duplicate, KM_SKELETON_ERROR_DUPLICATE_NAME, 2, KM_JOINT_FIELD_NAME, 0 },
    { bad_unknown_parent, KM_SKELETON_ERROR_UNKNOWN_PARENT, 2, KM_JOINT_FIELD_PARENT, 0 },
    { bad_cycle, KM_SKELETON_ERROR_CYCLE, 1, KM_JOINT_FIELD_PARENT, 0 },
    { bad_two_roots, KM_SKELETON_ERROR_MULTIPLE_ROOTS, 2, KM_JOINT_FIELD_PARENT, 0 },
    { bad_zero_axis, KM_SKELETON_ERROR_ZERO_AXIS, 1, KM_JOINT_FIELD_AXIS, 0 },
    { bad_limits, KM_SKELETON_ERROR_BAD_LIMITS, 1, KM_JOINT_FIELD_LIMITS, 2 },
    { bad_open_limits, KM_SKELETON_ERROR_BAD_LIMITS, 1, KM_JOINT_FIELD_LIMITS, 0 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(KmSkeletonBuilder) b = km_skeleton_builder_new ();
      g_autoptr(GError) error = NULL;
      KmSkeletonProblem problem = { 99, KM_JOINT_FIELD_NONE, 99 };
      KmSkeleton *skel;

      cases[i].build (b);
      skel = km_skeleton_builder_build (b, &problem, &error);
      g_assert_null (skel);
      g_assert_error (error, KM_SKELETON_ERROR, (int) cases[i].code);
      g_assert_cmpuint (problem.joint, ==, cases[i].joint);
      g_assert_cmpint (problem.field, ==, cases[i].field);
      g_assert_cmpuint (problem.axis, ==, cases[i].axis);
    }
}

/* An unlink function: "JOINT: reason" per dropped link. */
static void
unlinked_cb (guint       joint,
             const char *reason,
             gpointer    user_data)
{
  g_ptr_array_add (user_data, g_strdup_printf ("%u: %s", joint, reason));
}

/* root (fixed) ─ a (rev Z, [-1, 1]) ─ b (rev Z) ─ c (prismatic X); b follows a, c is free. */
static KmSkeleton *
build_linked (const char *master_of_b,
              KmJointType type_of_c,
              const char *master_of_c,
              KmSkeletonProblem *problem,
              GError           **error)
{
  g_autoptr(KmSkeletonBuilder) b = km_skeleton_builder_new ();
  guint j;

  km_skeleton_builder_add_joint (b, "root", KM_JOINT_FIXED, NULL);
  j = km_skeleton_builder_add_joint (b, "a", KM_JOINT_REVOLUTE, "root");
  km_skeleton_builder_set_axis (b, j, km_vec3 (0, 0, 1));
  km_skeleton_builder_set_limit (b, j, 0, -1, 1);
  j = km_skeleton_builder_add_joint (b, "b", KM_JOINT_REVOLUTE, "a");
  km_skeleton_builder_set_axis (b, j, km_vec3 (0, 0, 1));
  km_skeleton_builder_set_offset (b, j, km_vec3 (1, 0, 0));
  if (master_of_b != NULL)
    km_skeleton_builder_set_mimic (b, j, master_of_b, -2.0, 0.25);
  j = km_skeleton_builder_add_joint (b, "c", type_of_c, "b");
  if (type_of_c == KM_JOINT_PRISMATIC)
    km_skeleton_builder_set_axis (b, j, km_vec3 (1, 0, 0));
  if (master_of_c != NULL)
    km_skeleton_builder_set_mimic (b, j, master_of_c, 0.5, 0.0);
  return km_skeleton_builder_build (b, problem, error);
}

static void
test_mimic (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) linked = build_linked ("a", KM_JOINT_PRISMATIC, NULL, NULL, &error);
  g_autoptr(KmSkeleton) plain = NULL;
  const KmJoint *b;
  double q[3] = { 0.3, 99.0, 0.1 };

  g_assert_no_error (error);
  g_assert_true (km_skeleton_has_mimic (linked));
  b = km_skeleton_get_joint (linked, 2);
  g_assert_cmpstr (b->name, ==, "b");
  g_assert_cmpint (b->mimic, ==, 1);
  g_assert_cmpfloat (b->mimic_ratio, ==, -2.0);
  g_assert_cmpfloat (b->mimic_offset, ==, 0.25);
  g_assert_cmpint (km_skeleton_get_joint (linked, 1)->mimic, ==, -1);
  g_assert_cmpint (km_skeleton_get_joint (linked, 3)->mimic, ==, -1);

  km_skeleton_apply_mimic (linked, q);
  g_assert_cmpfloat_with_epsilon (q[1], -2.0 * 0.3 + 0.25, 1e-15);
  g_assert_cmpfloat (q[0], ==, 0.3);
  g_assert_cmpfloat (q[2], ==, 0.1);

  plain = build_linked (NULL, KM_JOINT_PRISMATIC, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_false (km_skeleton_has_mimic (plain));
  g_assert_cmpint (km_skeleton_get_joint (plain, 2)->mimic, ==, -1);
  g_assert_false (km_skeleton_equal (linked, plain, 1e-9));
  q[1] = 99.0;
  km_skeleton_apply_mimic (plain, q);
  g_assert_cmpfloat (q[1], ==, 99.0);
}

static void
test_mimic_errors (void)
{
  struct {
    const char  *master_of_b;
    KmJointType  type_of_c;
    const char  *master_of_c;
    guint        joint;
  } cases[] = {
    { "nobody", KM_JOINT_PRISMATIC, NULL, 2 },      /* unknown master */
    { "b", KM_JOINT_PRISMATIC, NULL, 2 },           /* itself */
    { "root", KM_JOINT_PRISMATIC, NULL, 2 },        /* a fixed master */
    { NULL, KM_JOINT_SPHERICAL, "a", 3 },           /* a spherical follower */
    { "a", KM_JOINT_PRISMATIC, "b", 3 },            /* the master follows another joint */
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      KmSkeletonProblem problem = { 99, KM_JOINT_FIELD_NONE, 99 };
      KmSkeleton *skel = build_linked (cases[i].master_of_b, cases[i].type_of_c,
                                       cases[i].master_of_c, &problem, &error);

      g_assert_null (skel);
      g_assert_error (error, KM_SKELETON_ERROR, KM_SKELETON_ERROR_BAD_MIMIC);
      g_assert_cmpuint (problem.joint, ==, cases[i].joint);
      g_assert_cmpint (problem.field, ==, KM_JOINT_FIELD_MIMIC);
    }
}

/* root ─ m (rev, [-1, 1]) with followers f (rev, @f_limits) and g (rev, [0.5, 6], ratio 1,
 * offset 0); g only when @with_g. @unlinked, when given, collects the dropped links. */
static KmSkeleton *
build_ranged (double             f_min,
              double             f_max,
              double             f_ratio,
              double             f_offset,
              gboolean           with_g,
              GPtrArray         *unlinked,
              KmSkeletonProblem *problem,
              GError           **error)
{
  g_autoptr(KmSkeletonBuilder) b = km_skeleton_builder_new ();
  guint j;

  km_skeleton_builder_add_joint (b, "root", KM_JOINT_FIXED, NULL);
  j = km_skeleton_builder_add_joint (b, "m", KM_JOINT_REVOLUTE, "root");
  km_skeleton_builder_set_axis (b, j, km_vec3 (0, 0, 1));
  km_skeleton_builder_set_limit (b, j, 0, -1, 1);
  if (with_g)
    {
      j = km_skeleton_builder_add_joint (b, "g", KM_JOINT_REVOLUTE, "m");
      km_skeleton_builder_set_axis (b, j, km_vec3 (0, 0, 1));
      km_skeleton_builder_set_limit (b, j, 0, 0.5, 6);
      km_skeleton_builder_set_mimic (b, j, "m", 1, 0);
    }
  j = km_skeleton_builder_add_joint (b, "f", KM_JOINT_REVOLUTE, "m");
  km_skeleton_builder_set_axis (b, j, km_vec3 (0, 0, 1));
  km_skeleton_builder_set_limit (b, j, 0, f_min, f_max);
  km_skeleton_builder_set_mimic (b, j, "m", f_ratio, f_offset);
  if (unlinked != NULL)
    km_skeleton_builder_set_unlink_func (b, unlinked_cb, unlinked);
  return km_skeleton_builder_build (b, problem, error);
}

/* A linked joint whose limits no value of its master's range can meet is refused at its
 * link (or, for a lenient reader, loses the link): nothing could keep it within them. */
static void
test_mimic_unreachable (void)
{
  static const struct
  {
    double      min, max, ratio, offset;
    gboolean    with_g;
    const char *message;
  } cases[] = {
    { 5, 6, 1, 0, FALSE,
      "expected limits of “f” that it can reach following “m”: with ratio 1 and offset 0 it "
      "moves within [-1, 1], outside its limits [5, 6]" },
    { -6, -5, -2, 0.5, FALSE,
      "expected limits of “f” that it can reach following “m”: with ratio -2 and offset 0.5 "
      "it moves within [-1.5, 2.5], outside its limits [-6, -5]" },
    /* A zero ratio holds the follower at its offset. */
    { 0, 1, 0, 2, FALSE,
      "expected limits of “f” that it can reach following “m”: with ratio 0 it stays at its "
      "offset 2, outside its limits [0, 1]" },
    /* Each reachable alone, not together: g leaves m [0.5, 1]. */
    { -1, 0, 1, 0, TRUE,
      "expected limits of “f” that it can reach following “m”: with ratio 1 and offset 0 it "
      "moves within [0.5, 1], outside its limits [-1, 0]" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GPtrArray) unlinked = g_ptr_array_new_with_free_func (g_free);
      g_autoptr(KmSkeleton) lenient = NULL;
      g_autofree char *expected = NULL;
      KmSkeletonProblem problem = { 99, KM_JOINT_FIELD_NONE, 99 };
      KmSkeleton *skel = build_ranged (cases[i].min, cases[i].max, cases[i].ratio,
                                       cases[i].offset, cases[i].with_g, NULL, &problem, &error);
      guint f_file = cases[i].with_g ? 3 : 2;
      const KmJoint *f;
      double q[3] = { 0.0, 0.0, 0.0 };

      g_assert_null (skel);
      g_assert_error (error, KM_SKELETON_ERROR, KM_SKELETON_ERROR_BAD_MIMIC);
      g_assert_cmpstr (error->message, ==, cases[i].message);
      g_assert_cmpuint (problem.joint, ==, f_file);
      g_assert_cmpint (problem.field, ==, KM_JOINT_FIELD_MIMIC);

      /* With an unlink function the link goes, the joint moves on its own. */
      lenient = build_ranged (cases[i].min, cases[i].max, cases[i].ratio, cases[i].offset,
                              cases[i].with_g, unlinked, NULL, &error);
      g_clear_error (&error);
      g_assert_nonnull (lenient);
      g_assert_cmpuint (unlinked->len, ==, 1);
      expected = g_strdup_printf ("%u: %s", f_file, cases[i].message);
      g_assert_cmpstr (g_ptr_array_index (unlinked, 0), ==, expected);
      f = km_skeleton_get_joint (lenient, (guint) km_skeleton_find_joint (lenient, "f"));
      g_assert_cmpint (f->mimic, ==, -1);
      g_assert_true (km_skeleton_has_mimic (lenient) == cases[i].with_g);
      if (cases[i].with_g)
        {
          /* g still follows m, which stays where g can follow it. */
          km_skeleton_apply_mimic (lenient, q);
          g_assert_cmpfloat (q[0], ==, 0.5);
          g_assert_cmpfloat (q[1], ==, 0.5);
          g_assert_true (km_skeleton_within_limits (lenient, q, 0.0));
        }
    }
}

/* Links that can be met: the master's range narrows to the values that keep every follower
 * within its limits, and apply_mimic keeps every value within its limits. */
static void
test_mimic_range (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = build_ranged (-0.5, 2, 2, 0.5, TRUE, NULL, NULL, &error);
  g_autoptr(KmSkeleton) zero = NULL;
  int m, f, g;
  double lo, hi, q[3];

  g_assert_no_error (error);
  m = km_skeleton_find_joint (skel, "m");
  f = km_skeleton_find_joint (skel, "f");
  g = km_skeleton_find_joint (skel, "g");
  /* g: m in [0.5, 6] ∩ [-1, 1]; f = 2m + 0.5 in [-0.5, 2]: m in [-0.5, 0.75]. */
  km_skeleton_get_mimic_range (skel, (guint) m, &lo, &hi);
  g_assert_cmpfloat (lo, ==, 0.5);
  g_assert_cmpfloat (hi, ==, 0.75);
  km_skeleton_get_mimic_range (skel, (guint) f, &lo, &hi);
  g_assert_cmpfloat (lo, ==, -0.5);
  g_assert_cmpfloat (hi, ==, 2.0);

  /* A master outside that range (but within its own limits) moves to its nearest end. */
  q[km_skeleton_get_joint (skel, (guint) m)->dof_index] = -1.0;
  km_skeleton_apply_mimic (skel, q);
  g_assert_cmpfloat (q[km_skeleton_get_joint (skel, (guint) m)->dof_index], ==, 0.5);
  g_assert_cmpfloat (q[km_skeleton_get_joint (skel, (guint) g)->dof_index], ==, 0.5);
  g_assert_cmpfloat (q[km_skeleton_get_joint (skel, (guint) f)->dof_index], ==, 1.5);
  g_assert_true (km_skeleton_within_limits (skel, q, 0.0));
  q[km_skeleton_get_joint (skel, (guint) m)->dof_index] = 0.6;
  km_skeleton_apply_mimic (skel, q);
  g_assert_cmpfloat (q[km_skeleton_get_joint (skel, (guint) f)->dof_index], ==, 2 * 0.6 + 0.5);

  /* A zero ratio whose offset is within the follower's limits is a constant. */
  zero = build_ranged (0, 1, 0, 0.25, FALSE, NULL, NULL, &error);
  g_assert_no_error (error);
  km_skeleton_get_mimic_range (zero, 1, &lo, &hi);
  g_assert_cmpfloat (lo, ==, -1.0);
  g_assert_cmpfloat (hi, ==, 1.0);
  q[0] = 0.9;
  km_skeleton_apply_mimic (zero, q);
  g_assert_cmpfloat (q[1], ==, 0.25);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/kinema/Skeleton/revolute", test_revolute);
  g_test_add_func ("/kinema/Skeleton/prismatic", test_prismatic);
  g_test_add_func ("/kinema/Skeleton/spherical", test_spherical);
  g_test_add_func ("/kinema/Skeleton/rotation", test_rotation);
  g_test_add_func ("/kinema/Skeleton/tree", test_tree);
  g_test_add_func ("/kinema/Skeleton/reversed-order", test_reversed_order);
  g_test_add_func ("/kinema/Skeleton/builder-errors", test_builder_errors);
  g_test_add_func ("/kinema/Skeleton/one-sided-limits", test_one_sided_limits);
  g_test_add_func ("/kinema/Skeleton/mimic", test_mimic);
  g_test_add_func ("/kinema/Skeleton/mimic-errors", test_mimic_errors);
  g_test_add_func ("/kinema/Skeleton/mimic-unreachable", test_mimic_unreachable);
  g_test_add_func ("/kinema/Skeleton/mimic-range", test_mimic_range);

  return g_test_run ();
}
