/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

/*
 * A model read from a format Kinema reads but does not write (Scenebuilder XML, OpenHRP
 * VRML) and written as a .body (km_body_save_with_pose, what a project save and an
 * autosave write for such a model when skeleton.json cannot hold it) reads back as the
 * same model: the same skeleton (km_skeleton_equal), and also what km_skeleton_equal
 * leaves out: joint ids, link names, the default end effector, the display shapes and the
 * pose the file states.
 */

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gstdio.h>

#include "km-body-writer.h"
#include "km-format.h"
#include "km-math.h"
#include "km-shape.h"
#include "km-skeleton.h"

#include "km-test-tmp.h"

#define EPSILON 1e-9

static gboolean
close_enough (double a,
              double b)
{
  return a == b || fabs (a - b) <= EPSILON * MAX (1.0, MAX (fabs (a), fabs (b)));
}

static void
assert_vec3_close (KmVec3      a,
                   KmVec3      b,
                   const char *what)
{
  if (!close_enough (a.x, b.x) || !close_enough (a.y, b.y) || !close_enough (a.z, b.z))
    g_error ("%s: (%.12g %.12g %.12g) != (%.12g %.12g %.12g)", what, a.x, a.y, a.z,
             b.x, b.y, b.z);
}

static void
assert_transform_close (const KmTransform *a,
                        const KmTransform *b,
                        const char        *what)
{
  assert_vec3_close (a->pos, b->pos, what);
  for (guint r = 0; r < 3; r++)
    for (guint c = 0; c < 3; c++)
      if (!close_enough (a->rot.m[r][c], b->rot.m[r][c]))
        g_error ("%s: rotation [%u][%u] %.12g != %.12g", what, r, c, a->rot.m[r][c],
                 b->rot.m[r][c]);
}

/* The shapes of joint @t of @a and @b are the same: kind, place, size and colour. */
static void
assert_shapes_equal (const KmSkeleton *a,
                     const KmSkeleton *b,
                     guint             t)
{
  const char *name = km_skeleton_get_joint (a, t)->name;
  guint n_a = 0, n_b = 0;
  KmShape * const *sa = km_skeleton_get_shapes (a, t, &n_a);
  KmShape * const *sb = km_skeleton_get_shapes (b, t, &n_b);

  if (n_a != n_b)
    g_error ("joint %s: %u shapes read back as %u", name, n_a, n_b);
  for (guint i = 0; i < n_a; i++)
    {
      g_autofree char *what = g_strdup_printf ("joint %s, shape %u", name, i);

      g_assert_cmpint (sa[i]->type, ==, sb[i]->type);
      assert_transform_close (&sa[i]->transform, &sb[i]->transform, what);
      assert_vec3_close (sa[i]->scale, sb[i]->scale, what);
      assert_vec3_close (sa[i]->size, sb[i]->size, what);
      g_assert_true (close_enough (sa[i]->radius, sb[i]->radius));
      g_assert_true (close_enough (sa[i]->height, sb[i]->height));
      g_assert_cmpfloat_with_epsilon (sa[i]->color.r, sb[i]->color.r, 1e-6);
      g_assert_cmpfloat_with_epsilon (sa[i]->color.g, sb[i]->color.g, 1e-6);
      g_assert_cmpfloat_with_epsilon (sa[i]->color.b, sb[i]->color.b, 1e-6);
      g_assert_cmpfloat_with_epsilon (sa[i]->color.a, sb[i]->color.a, 1e-6);
      g_assert_true ((sa[i]->mesh == NULL) == (sb[i]->mesh == NULL));
    }
}

/* Fails saying the first field of a joint that km_skeleton_equal() finds changed. */
static void
assert_skeletons_equal (const KmSkeleton *a,
                        const KmSkeleton *b)
{
  g_assert_cmpuint (km_skeleton_get_n_joints (a), ==, km_skeleton_get_n_joints (b));
  g_assert_cmpuint (km_skeleton_get_n_dof (a), ==, km_skeleton_get_n_dof (b));
  g_assert_cmpuint (g_strv_length ((char **) km_skeleton_get_body_handlers (a)), ==,
                    g_strv_length ((char **) km_skeleton_get_body_handlers (b)));
  for (guint t = 0; t < km_skeleton_get_n_joints (a); t++)
    {
      const KmJoint *ja = km_skeleton_get_joint (a, t);
      const KmJoint *jb = km_skeleton_get_joint (b, t);
      g_autofree char *what = g_strdup_printf ("joint %u (%s)", t, ja->name);

      g_assert_cmpstr (ja->name, ==, jb->name);
      g_assert_cmpint (ja->type, ==, jb->type);
      g_assert_cmpint (ja->parent, ==, jb->parent);
      assert_vec3_close (ja->offset, jb->offset, what);
      assert_vec3_close (ja->axis, jb->axis, what);
      if (km_quat_angle_between (ja->rotation, jb->rotation) > EPSILON)
        g_error ("%s: rotation (%.12g %.12g %.12g %.12g) != (%.12g %.12g %.12g %.12g)", what,
                 ja->rotation.w, ja->rotation.x, ja->rotation.y, ja->rotation.z,
                 jb->rotation.w, jb->rotation.x, jb->rotation.y, jb->rotation.z);
      g_assert_cmpint (ja->mimic, ==, jb->mimic);
      if (ja->mimic >= 0)
        {
          g_assert_true (close_enough (ja->mimic_ratio, jb->mimic_ratio));
          g_assert_true (close_enough (ja->mimic_offset, jb->mimic_offset));
        }
      for (guint l = 0; l < 3; l++)
        if (ja->limits[l].limited != jb->limits[l].limited
            || !close_enough (ja->limits[l].min, jb->limits[l].min)
            || !close_enough (ja->limits[l].max, jb->limits[l].max))
          g_error ("%s: limits %u: %d [%.12g, %.12g] read back as %d [%.12g, %.12g]", what, l,
                   ja->limits[l].limited, ja->limits[l].min, ja->limits[l].max,
                   jb->limits[l].limited, jb->limits[l].min, jb->limits[l].max);
    }
  g_assert_true (km_skeleton_equal (a, b, EPSILON));
}

static gboolean
has_spherical_joint (const KmSkeleton *skeleton)
{
  for (guint i = 0; i < km_skeleton_get_n_joints (skeleton); i++)
    if (km_skeleton_get_joint (skeleton, i)->type == KM_JOINT_SPHERICAL)
      return TRUE;
  return FALSE;
}

static gboolean
has_note (GPtrArray  *notes,
          const char *text)
{
  for (guint i = 0; i < notes->len; i++)
    if (strstr (g_ptr_array_index (notes, i), text) != NULL)
      return TRUE;
  return FALSE;
}

static void
test_round_trip (gconstpointer data)
{
  const char *path = data;
  g_autofree char *dir = km_test_make_tmp_dir ("km-body-roundtrip-XXXXXX");
  g_autofree char *base = g_path_get_basename (path);
  g_autofree char *body_name = g_strconcat (base, ".body", NULL);
  g_autofree char *body_path = g_build_filename (dir, body_name, NULL);
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(KmModelExtras) extras = NULL;
  g_autoptr(KmModelExtras) back_extras = NULL;
  g_autoptr(GError) error = NULL;
  const KmFormat *format = NULL;
  KmSkeleton *model, *back;
  guint n_dof;
  g_autofree int *link_ids = NULL;
  int effector, back_effector;

  model = km_format_load_model_file (path, NULL, &format, &extras, &error);
  g_assert_no_error (error);
  g_assert_nonnull (model);
  g_assert_true (km_body_save_with_pose (model, extras->initial_q, body_path, notes, &error));
  g_assert_no_error (error);
  back = km_format_load_model_file (body_path, NULL, &format, &back_extras, &error);
  g_assert_no_error (error);
  g_assert_nonnull (back);
  g_assert_cmpstr (format->name, ==, "CHOREONOID-BODY");

  /* What a .body cannot say, noted: a spherical joint becomes three revolute links. A
   * project save writes such a model as skeleton.json (km-document-skeleton.c). A linked
   * (mimic) joint is Kinema's kinema_mimic: such a model reads back as it was. */
  g_assert_false (has_note (notes, "follows"));
  if (has_spherical_joint (model))
    {
      g_assert_false (km_skeleton_equal (model, back, EPSILON));
      g_assert_true (has_note (notes, "spherical joint"));
      km_skeleton_unref (back);
      km_skeleton_unref (model);
      return;
    }
  assert_skeletons_equal (model, back);
  g_assert_cmpstr (km_skeleton_get_root_name (model), ==, km_skeleton_get_root_name (back));
  link_ids = km_body_link_joint_ids (model);
  for (guint t = 0; t < km_skeleton_get_n_joints (model); t++)
    {
      const KmJoint *a = km_skeleton_get_joint (model, t);
      const KmJoint *b = km_skeleton_get_joint (back, t);

      g_assert_cmpstr (a->name, ==, b->name);
      g_assert_cmpstr (km_joint_get_link_name (a), ==, km_joint_get_link_name (b));
      /* Its joint id kept (a joint with DOF but none gets a new one: Choreonoid's joint
       * arrays, such as joint_displacement, hold the joints with ids). */
      g_assert_cmpint (b->joint_id, ==, link_ids[3 * (gsize) t]);
      if (a->joint_id >= 0 && a->joint_id <= KM_SKELETON_MAX_JOINTS)
        g_assert_cmpint (b->joint_id, ==, a->joint_id);
      assert_shapes_equal (model, back, t);
    }

  effector = km_skeleton_get_default_effector (model);
  back_effector = km_skeleton_get_default_effector (back);
  g_assert_cmpstr (km_skeleton_get_joint (model, (guint) effector)->name, ==,
                   km_skeleton_get_joint (back, (guint) back_effector)->name);

  /* The pose the file states (none: the zero pose, which a .body states as none too). */
  n_dof = km_skeleton_get_n_dof (model);
  for (guint i = 0; i < n_dof; i++)
    {
      double q = extras->initial_q != NULL ? extras->initial_q[i] : 0;
      double back_q = back_extras->initial_q != NULL ? back_extras->initial_q[i] : 0;

      if (!close_enough (q, back_q))
        g_error ("DOF %u: initial value %.12g read back as %.12g", i, q, back_q);
    }

  km_skeleton_unref (back);
  km_skeleton_unref (model);
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* Adds a round trip for every file of tests/data/@folder ending in @suffix. */
static void
add_folder (const char *folder,
            const char *suffix)
{
  g_autofree char *dir_path = g_test_build_filename (G_TEST_DIST, "data", folder, NULL);
  g_autoptr(GDir) dir = g_dir_open (dir_path, 0, NULL);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    /* (leg.wrl: a mesh that humanoid.wrl inlines, not a model) */
    if (g_str_has_suffix (name, suffix) && strcmp (name, "leg.wrl") != 0)
      g_ptr_array_add (names, g_strdup (name));
  g_assert_cmpuint (names->len, >, 0);
  g_ptr_array_sort (names, compare_names);
  for (guint i = 0; i < names->len; i++)
    {
      const char *file = g_ptr_array_index (names, i);
      g_autofree char *test_path = g_strdup_printf ("/kinema/BodyRoundTrip/%s/%s", folder, file);

      /* (the path lives as long as the test program) */
      g_test_add_data_func_full (test_path, g_build_filename (dir_path, file, NULL),
                                 test_round_trip, g_free);
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  add_folder ("scenebuilder", ".xml");
  add_folder ("scenebuilder-conformance", ".xml");
  add_folder ("openhrp", ".wrl");
  return g_test_run ();
}
