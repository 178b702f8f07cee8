/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <string.h>

#include "km-body.h"
#include "km-cnoid.h"
#include "km-error.h"

#include "test-util.h"

/* The spec's example (data/skeleton.json), built directly: Root(fixed) →
 * Shoulder(spherical) → Elbow(revolute) → Piston(prismatic) → EndEffector(fixed). */
/* An animation of @n_joints revolute joints "joint1"… (no skeleton) over @n_frames frames,
 * joint j at frame f being value (f, j): what a solve of a plain chain leaves. */
KmAnimation *
test_util_revolute_animation (guint    n_joints,
                              guint    n_frames,
                              double (*value) (guint frame,
                                               guint joint))
{
  g_autofree KmAnimationChannel *channels = g_new0 (KmAnimationChannel, n_joints);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autofree double *row = g_new0 (double, MAX (n_joints, 1));
  KmAnimation *animation;

  for (guint c = 0; c < n_joints; c++)
    {
      g_ptr_array_add (names, g_strdup_printf ("joint%u", c + 1));
      channels[c] = (KmAnimationChannel) { .name = names->pdata[c], .type = KM_JOINT_REVOLUTE,
                                           .dof_index = c, .n_dof = 1, .joint = -1 };
    }
  animation = km_animation_new_for_channels (channels, n_joints, n_frames);
  for (guint f = 0; f < n_frames; f++)
    {
      for (guint c = 0; c < n_joints; c++)
        row[c] = value (f, c);
      km_animation_set_frame (animation, f, row);
    }
  return animation;
}

KmSkeleton *
test_util_example_skeleton (void)
{
  g_autoptr(KmSkeletonBuilder) builder = km_skeleton_builder_new ();
  g_autoptr(GError) error = NULL;
  KmSkeleton *skeleton;
  guint j;

  km_skeleton_builder_set_root_name (builder, "Root");
  km_skeleton_builder_add_joint (builder, "Root", KM_JOINT_FIXED, NULL);
  j = km_skeleton_builder_add_joint (builder, "Shoulder", KM_JOINT_SPHERICAL, "Root");
  km_skeleton_builder_set_offset (builder, j, km_vec3 (0, 1.5, 0));
  km_skeleton_builder_set_limit (builder, j, 0, -3.14, 3.14);
  km_skeleton_builder_set_limit (builder, j, 2, -0.5, 0.5);
  j = km_skeleton_builder_add_joint (builder, "Elbow", KM_JOINT_REVOLUTE, "Shoulder");
  km_skeleton_builder_set_offset (builder, j, km_vec3 (0, 0, 2));
  km_skeleton_builder_set_axis (builder, j, km_vec3 (1, 0, 0));
  km_skeleton_builder_set_limit (builder, j, 0, 0, 2.5);
  j = km_skeleton_builder_add_joint (builder, "Piston", KM_JOINT_PRISMATIC, "Elbow");
  km_skeleton_builder_set_offset (builder, j, km_vec3 (0, 0, 1));
  km_skeleton_builder_set_axis (builder, j, km_vec3 (0, 0, 1));
  km_skeleton_builder_set_limit (builder, j, 0, 0, 0.5);
  j = km_skeleton_builder_add_joint (builder, "EndEffector", KM_JOINT_FIXED, "Piston");
  km_skeleton_builder_set_offset (builder, j, km_vec3 (0, 0, 0.5));

  skeleton = km_skeleton_builder_build (builder, NULL, &error);
  g_assert_no_error (error);
  return skeleton;
}

/* The joint @name of @skel, which must have one. */
const KmJoint *
test_util_joint (const KmSkeleton *skel,
                 const char       *name)
{
  int j = km_skeleton_find_joint (skel, name);

  if (j < 0)
    g_error ("no joint “%s”", name);
  return km_skeleton_get_joint (skel, j);
}

void
test_util_assert_vec3 (KmVec3 v,
                       double x,
                       double y,
                       double z,
                       double eps)
{
  g_assert_cmpfloat_with_epsilon (v.x, x, eps);
  g_assert_cmpfloat_with_epsilon (v.y, y, eps);
  g_assert_cmpfloat_with_epsilon (v.z, z, eps);
}

/* Asserts that @m is the rotation of the quaternion (@w, @x, @y, @z), either sign. */
void
test_util_assert_quat (const KmMat3 *m,
                       double        w,
                       double        x,
                       double        y,
                       double        z,
                       double        eps)
{
  KmQuat q = km_mat3_to_quat (m);
  double s = (q.w * w + q.x * x + q.y * y + q.z * z) < 0 ? -1.0 : 1.0;

  g_assert_cmpfloat_with_epsilon (s * q.w, w, eps);
  g_assert_cmpfloat_with_epsilon (s * q.x, x, eps);
  g_assert_cmpfloat_with_epsilon (s * q.y, y, eps);
  g_assert_cmpfloat_with_epsilon (s * q.z, z, eps);
}

static void
collect_warning (const char *message,
                 gpointer    user_data)
{
  g_ptr_array_add (user_data, g_strdup (message));
}

/* Collects the parse warnings of what follows into @warnings (g_strdup'd messages; an
 * array made with g_ptr_array_new_with_free_func (g_free)) until test_util_pop_warnings.
 * With @warnings NULL both do nothing: the warnings go to g_message. */
void
test_util_push_warnings (GPtrArray *warnings)
{
  if (warnings != NULL)
    km_parse_warnings_push (collect_warning, warnings);
}

void
test_util_pop_warnings (GPtrArray *warnings)
{
  if (warnings != NULL)
    km_parse_warnings_pop ();
}

/* Whether a warning contains @words; when none does, logs them all (g_test_message). */
gboolean
test_util_has_warning (GPtrArray  *warnings,
                       const char *words)
{
  for (guint i = 0; i < warnings->len; i++)
    if (strstr (g_ptr_array_index (warnings, i), words) != NULL)
      return TRUE;
  for (guint i = 0; i < warnings->len; i++)
    g_test_message ("warning: %s", (char *) g_ptr_array_index (warnings, i));
  return FALSE;
}

/* Asserts that a warning contains @words (test_util_has_warning). */
void
test_util_assert_warning (GPtrArray  *warnings,
                          const char *words)
{
  if (!test_util_has_warning (warnings, words))
    g_error ("no warning contains “%s”", words);
}

/* Logs the warnings and asserts there are none. */
void
test_util_assert_no_warnings (GPtrArray *warnings)
{
  for (guint i = 0; i < warnings->len; i++)
    g_test_message ("warning: %s", (char *) g_ptr_array_index (warnings, i));
  g_assert_cmpuint (warnings->len, ==, 0);
}

/* The contents of the file at @path, which must be readable; @length may be NULL. */
char *
test_util_read_file (const char *path,
                     gsize      *length)
{
  g_autoptr(GError) error = NULL;
  char *text = NULL;
  gboolean ok = g_file_get_contents (path, &text, length, &error);

  g_assert_no_error (error);
  g_assert_true (ok);
  return text;
}

/* Reads the Choreonoid body file at @path, which must be readable, and loads it with its
 * warnings collected into @warnings; *@sniff (where not NULL) gets km_body_sniff's score
 * of its contents. */
KmSkeleton *
test_util_body_load_file (const char  *path,
                          int         *sniff,
                          GPtrArray   *warnings,
                          GError     **error)
{
  gsize length;
  g_autofree char *data = test_util_read_file (path, &length);
  KmSkeleton *skel;

  if (sniff != NULL)
    *sniff = km_body_sniff (data, length);
  test_util_push_warnings (warnings);
  skel = km_body_load (path, data, length, NULL, error);
  test_util_pop_warnings (warnings);
  return skel;
}

/* What km_cnoid_to_string writes for @project as the file @path, which must succeed. */
char *
test_util_cnoid_to_string (KmProject  *project,
                           const char *path)
{
  g_autoptr(GError) error = NULL;
  char *text = km_cnoid_to_string (project, path, NULL, &error);

  g_assert_no_error (error);
  return text;
}

/* The project at @path, read with no error. */
KmProject *
test_util_load_cnoid (const char *path)
{
  g_autoptr(GError) error = NULL;
  KmProject *project = km_cnoid_load (path, &error);

  g_assert_no_error (error);
  g_assert_nonnull (project);
  return project;
}

/* Whether one of @project's messages is @expected, to the letter; when none is, they are
 * logged (g_test_message). */
gboolean
test_util_has_message (KmProject  *project,
                       const char *expected)
{
  GPtrArray *messages = km_project_get_messages (project);

  for (guint i = 0; i < messages->len; i++)
    if (strcmp (g_ptr_array_index (messages, i), expected) == 0)
      return TRUE;
  for (guint i = 0; i < messages->len; i++)
    g_test_message ("message: %s", (char *) g_ptr_array_index (messages, i));
  return FALSE;
}

/* @item or the first item below it (depth first) called @name, or NULL. */
KmItem *
test_util_find_item (KmItem     *item,
                     const char *name)
{
  if (g_strcmp0 (km_item_get_name (item), name) == 0)
    return item;
  for (guint i = 0; i < km_item_get_n_children (item); i++)
    {
      KmItem *found = test_util_find_item (km_item_get_child (item, i), name);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* Writes @contents to @path, making its folder first. */
void
test_util_put_file (const char *path,
                    const char *contents)
{
  g_autofree char *dir = g_path_get_dirname (path);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (path, contents, -1, NULL));
}

/* km_scenebuilder_load with its warnings collected into @warnings. */
KmScenebuilderModel *
test_util_scenebuilder_load (const char  *path,
                             const char  *data,
                             gsize        length,
                             GPtrArray   *warnings,
                             GError     **error)
{
  KmScenebuilderModel *model;

  test_util_push_warnings (warnings);
  model = km_scenebuilder_load (path, data, length, error);
  test_util_pop_warnings (warnings);
  return model;
}

/* Reads and loads the Scenebuilder file at @path, which must load. */
KmScenebuilderModel *
test_util_scenebuilder_load_file (const char *path,
                                  GPtrArray  *warnings)
{
  g_autoptr(GError) error = NULL;
  gsize length;
  g_autofree char *data = test_util_read_file (path, &length);
  KmScenebuilderModel *model = test_util_scenebuilder_load (path, data, length, warnings,
                                                            &error);

  g_assert_no_error (error);
  g_assert_nonnull (model);
  return model;
}

/* Loads @xml as "bad.xml", which must fail with a KM_PARSE_ERROR: its message. The
 * warnings go to @warnings, or are dropped where it is NULL. */
char *
test_util_scenebuilder_error (const char *xml,
                              GPtrArray  *warnings)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) local = g_ptr_array_new_with_free_func (g_free);
  KmScenebuilderModel *model = test_util_scenebuilder_load ("bad.xml", xml, strlen (xml),
                                                            warnings ? warnings : local,
                                                            &error);

  g_assert_null (model);
  g_assert_error (error, KM_PARSE_ERROR, error->code);
  return g_strdup (error->message);
}
