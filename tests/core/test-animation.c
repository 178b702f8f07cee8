/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "km-animation.h"
#include "km-animation-json.h"
#include "km-error.h"
#include "km-format.h"
#include "km-json.h"
#include "km-skeleton-json.h"
#include "test-util.h"
#include "km-test-tmp.h"

static KmAnimation *
example_animation (KmSkeleton *skeleton)
{
  KmAnimation *animation = km_animation_new (skeleton, 5);

  for (guint f = 0; f < 5; f++)
    {
      /* Shoulder x, y, z; Elbow; Piston. */
      double q[5] = { 0.1 * f - 0.2, 0.3 / (f + 1), -0.45 + 0.2 * f, 2.5 * f / 4.0, 0.1 * f / 3 };

      km_animation_set_frame (animation, f, q);
    }
  return animation;
}

static KmAnimation *
load_string (const char  *text,
             KmSkeleton  *skeleton,
             GError     **error)
{
  g_autoptr(GBytes) bytes = g_bytes_new (text, strlen (text));

  return km_animation_json_load ("a.json", bytes, skeleton, error);
}

static void
test_model (void)
{
  g_autoptr(KmSkeleton) skeleton = test_util_example_skeleton ();
  g_autoptr(KmAnimation) animation = example_animation (skeleton);
  g_autoptr(KmAnimation) copy = NULL;
  KmAnimationStats stats;
  double p, r;

  g_assert_cmpuint (km_animation_get_n_frames (animation), ==, 5);
  g_assert_cmpuint (km_animation_get_n_dof (animation), ==, 5);
  g_assert_cmpuint (km_animation_get_n_channels (animation), ==, 3);
  g_assert_cmpstr (km_animation_get_channel (animation, 0)->name, ==, "Shoulder");
  g_assert_cmpuint (km_animation_get_channel (animation, 0)->n_dof, ==, 3);
  g_assert_cmpuint (km_animation_get_channel (animation, 2)->dof_index, ==, 4);
  g_assert_cmpint (km_animation_find_channel (animation, "Elbow"), ==, 1);
  g_assert_cmpint (km_animation_find_channel (animation, "Root"), ==, -1);
  g_assert_true (km_animation_get_skeleton (animation) == skeleton);
  g_assert_cmpfloat (km_animation_get_frame (animation, 4)[3], ==, 2.5);

  g_assert_false (km_animation_has_residuals (animation));
  g_assert_false (km_animation_get_residual (animation, 2, &p, &r));
  km_animation_set_residual (animation, 1, 0.5, 0.25);
  km_animation_set_residual (animation, 3, 1.5, 0.75);
  g_assert_true (km_animation_get_residual (animation, 3, &p, &r));
  g_assert_cmpfloat (p, ==, 1.5);
  km_animation_get_stats (animation, &stats);
  g_assert_cmpuint (stats.n_frames, ==, 5);
  g_assert_cmpfloat (stats.mean_pos_err, ==, 1.0);
  g_assert_cmpfloat (stats.max_pos_err, ==, 1.5);
  g_assert_cmpfloat (stats.mean_rot_err, ==, 0.5);
  g_assert_cmpfloat (stats.max_rot_err, ==, 0.75);

  copy = km_animation_copy (animation);
  g_assert_true (km_animation_equal (animation, copy, 0.0));
  km_animation_set_frame (copy, 0, km_animation_get_frame (animation, 4));
  g_assert_false (km_animation_equal (animation, copy, 1e-9));
  g_assert_true (km_animation_has_residuals (copy));
}

static void
test_round_trip (void)
{
  g_autoptr(KmSkeleton) skeleton = test_util_example_skeleton ();
  g_autoptr(KmAnimation) animation = example_animation (skeleton);
  g_autoptr(KmAnimation) loaded = NULL;
  g_autoptr(KmAnimation) bare = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = km_animation_json_to_string (animation);
  g_autofree char *dir = km_test_make_tmp_dir ("km-animation-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "animation.json", NULL);
  g_autoptr(GString) info = g_string_new (NULL);

  /* Only joints with degrees of freedom are written. */
  g_assert_null (strstr (text, "\"Root\""));
  g_assert_null (strstr (text, "\"EndEffector\""));
  g_assert_nonnull (strstr (text, "\"type\": \"prismatic\""));

  loaded = load_string (text, skeleton, &error);
  g_assert_no_error (error);
  g_assert_true (km_animation_equal (animation, loaded, 0.0));
  for (guint f = 0; f < 5; f++)
    g_assert_cmpmem (km_animation_get_frame (animation, f), 5 * sizeof (double),
                     km_animation_get_frame (loaded, f), 5 * sizeof (double));

  /* Without a skeleton: the channels come from the file. */
  bare = load_string (text, NULL, &error);
  g_assert_no_error (error);
  g_assert_null (km_animation_get_skeleton (bare));
  g_assert_true (km_animation_equal (animation, bare, 0.0));
  km_animation_json_describe (bare, info);
  g_assert_cmpstr (info->str, ==,
                   "joint name=Shoulder type=spherical\n"
                   "joint name=Elbow type=revolute\n"
                   "joint name=Piston type=prismatic\n"
                   "frames=5 joints=3\n");

  g_assert_true (km_animation_json_save (animation, path, &error));
  g_assert_no_error (error);
  g_clear_pointer (&loaded, km_animation_unref);
  loaded = km_animation_json_load_file (path, skeleton, &error);
  g_assert_no_error (error);
  g_assert_true (km_animation_equal (animation, loaded, 0.0));
}

/* The writer's euler angles and quaternion describe the same rotation. */
static void
test_euler_quaternion_agree (void)
{
  g_autoptr(KmSkeleton) skeleton = test_util_example_skeleton ();
  g_autoptr(KmAnimation) animation = example_animation (skeleton);
  g_autofree char *text = km_animation_json_to_string (animation);
  g_autoptr(KmJsonDocument) doc = km_json_parse ("a.json", text, strlen (text), NULL);
  const KmJsonNode *frames;

  g_assert_nonnull (doc);
  frames = km_json_node_get_member (km_json_document_get_root (doc), "frames");
  g_assert_cmpuint (km_json_node_get_length (frames), ==, 5);
  for (guint f = 0; f < 5; f++)
    {
      const KmJsonNode *frame = km_json_node_get_element (frames, f);
      const KmJsonNode *shoulder = km_json_node_get_member (km_json_node_get_member (frame, "joints"),
                                                            "Shoulder");
      const KmJsonNode *e = km_json_node_get_member (shoulder, "euler");
      const KmJsonNode *q = km_json_node_get_member (shoulder, "quaternion");
      KmVec3 euler;
      KmQuat quat;

      g_assert_cmpint (km_json_node_get_int (km_json_node_get_member (frame, "frame")), ==, f);
      euler = km_vec3 (km_json_node_get_number (km_json_node_get_element (e, 0)),
                       km_json_node_get_number (km_json_node_get_element (e, 1)),
                       km_json_node_get_number (km_json_node_get_element (e, 2)));
      quat = (KmQuat) { km_json_node_get_number (km_json_node_get_element (q, 0)),
                        km_json_node_get_number (km_json_node_get_element (q, 1)),
                        km_json_node_get_number (km_json_node_get_element (q, 2)),
                        km_json_node_get_number (km_json_node_get_element (q, 3)) };
      g_assert_cmpfloat (fabs (quat.w * quat.w + quat.x * quat.x + quat.y * quat.y + quat.z * quat.z - 1), <, 1e-12);
      g_assert_cmpfloat (km_quat_angle_between (km_quat_from_euler_xyz (euler), quat), <, 1e-12);
      g_assert_cmpfloat (euler.x, ==, km_animation_get_frame (animation, f)[0]);
    }
}

static void
test_mismatch_warning (void)
{
  g_autoptr(KmSkeleton) skeleton = test_util_example_skeleton ();
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmAnimation) animation = NULL;
  KmQuat q = km_quat_from_euler_xyz (km_vec3 (0.5, 0.25, -0.25));
  KmVec3 e;
  g_autofree char *text = NULL;
  char b[4][32], c[3][32];
  const double *row;

  /* The euler angles say identity; the quaternion (authoritative) says otherwise. */
  text = g_strdup_printf ("{\"frames\": [{\"frame\": 0, \"joints\": {\n"
                          "  \"Shoulder\": {\"type\": \"spherical\", \"euler\": [0, 0, 0], "
                          "\"quaternion\": [%s, %s, %s, %s]},\n"
                          "  \"Elbow\": {\"type\": \"revolute\", \"angle\": 1},\n"
                          "  \"Piston\": {\"type\": \"prismatic\", \"displacement\": 0.25, \"v\": 0}}}]}",
                          km_json_format_number (b[0], q.w), km_json_format_number (b[1], q.x),
                          km_json_format_number (b[2], q.y), km_json_format_number (b[3], q.z));

  test_util_push_warnings (warnings);
  animation = load_string (text, skeleton, &error);
  test_util_pop_warnings (warnings);

  g_assert_no_error (error);
  g_assert_cmpuint (warnings->len, ==, 2);
  g_assert_true (g_str_has_prefix (g_ptr_array_index (warnings, 0), "a.json:2:46: "));
  g_assert_nonnull (strstr (g_ptr_array_index (warnings, 0), "Shoulder"));
  g_assert_true (g_str_has_prefix (g_ptr_array_index (warnings, 1), "a.json:4:57: "));

  row = km_animation_get_frame (animation, 0);
  e = km_vec3 (row[0], row[1], row[2]);
  g_assert_cmpfloat (km_quat_angle_between (km_quat_from_euler_xyz (e), q), <, 1e-12);
  g_assert_cmpfloat (row[3], ==, 1.0);
  g_assert_cmpfloat (row[4], ==, 0.25);

  /* Agreeing angles: no warning, and another euler triple of the same rotation is kept as
   * written (x + π, π - y, z + π). */
  g_ptr_array_set_size (warnings, 0);
  g_clear_pointer (&text, g_free);
  g_clear_pointer (&animation, km_animation_unref);
  q = km_quat_from_euler_xyz (km_vec3 (0.5, 0.25, -0.25));
  e = km_vec3 (0.5 + G_PI, G_PI - 0.25, -0.25 + G_PI);
  text = g_strdup_printf ("{\"frames\": [{\"frame\": 0, \"joints\": {\n"
                          "  \"Shoulder\": {\"type\": \"spherical\", \"euler\": [%s, %s, %s], "
                          "\"quaternion\": [%s, %s, %s, %s]}}}]}",
                          km_json_format_number (b[0], e.x), km_json_format_number (b[1], e.y),
                          km_json_format_number (b[2], e.z), km_json_format_number (b[3], q.w),
                          km_json_format_number (c[0], q.x), km_json_format_number (c[1], q.y),
                          km_json_format_number (c[2], q.z));
  test_util_push_warnings (warnings);
  animation = load_string (text, NULL, &error);
  test_util_pop_warnings (warnings);
  g_assert_no_error (error);
  g_assert_cmpuint (warnings->len, ==, 0);
  row = km_animation_get_frame (animation, 0);
  g_assert_cmpfloat (row[0], ==, e.x);
  g_assert_cmpfloat (row[1], ==, e.y);
  g_assert_cmpfloat (row[2], ==, e.z);
}

typedef struct
{
  const char *json;
  gboolean    with_skeleton;
  const char *prefix;
} InvalidCase;

#define J_SH "\"Shoulder\": {\"type\": \"spherical\", \"euler\": [0, 0, 0], \"quaternion\": [1, 0, 0, 0]}"
#define J_EL "\"Elbow\": {\"type\": \"revolute\", \"angle\": 0}"
#define J_PI "\"Piston\": {\"type\": \"prismatic\", \"displacement\": 0}"

static const InvalidCase invalid_cases[] = {
  { "[]", FALSE, "a.json:1:1: " },
  { "{\"frames\": []}", FALSE, "a.json:1:12: " },
  { "{\"frame\": []}", FALSE, "a.json:1:1: " },
  /* Frames must run 0, 1, 2, … */
  { "{\"frames\": [{\"frame\": 0, \"joints\": {}},\n {\"frame\": 2, \"joints\": {}}]}", FALSE, "a.json:2:12: " },
  { "{\"frames\": [{\"frame\": 0.5, \"joints\": {}}]}", FALSE, "a.json:1:23: " },
  { "{\"frames\": [{\"frame\": 0}]}", FALSE, "a.json:1:13: " },
  /* With a skeleton: every DOF joint, no other. */
  { "{\"frames\": [{\"frame\": 0, \"joints\": {" J_SH ", " J_EL "}}]}", TRUE, "a.json:1:36: " },
  { "{\"frames\": [{\"frame\": 0, \"joints\": {" J_SH ", " J_EL ", " J_PI ",\n \"Root\": {\"type\": \"fixed\"}}}]}", TRUE, "a.json:2:2: " },
  { "{\"frames\": [{\"frame\": 0, \"joints\": {" J_SH ", " J_EL ", " J_PI ",\n \"Knee\": {}}}]}", TRUE, "a.json:2:2: " },
  { "{\"frames\": [{\"frame\": 0, \"joints\": {" J_SH ",\n \"Elbow\": {\"type\": \"prismatic\", \"displacement\": 0}, " J_PI "}}]}", TRUE, "a.json:2:20: " },
  /* Missing or wrong values. */
  { "{\"frames\": [{\"frame\": 0, \"joints\": {\n \"S\": {\"type\": \"spherical\", \"euler\": [0, 0, 0]}}}]}", FALSE, "a.json:2:7: " },
  { "{\"frames\": [{\"frame\": 0, \"joints\": {\n \"S\": {\"type\": \"spherical\", \"euler\": [0, 0], \"quaternion\": [1, 0, 0, 0]}}}]}", FALSE, "a.json:2:38: " },
  { "{\"frames\": [{\"frame\": 0, \"joints\": {\n \"S\": {\"type\": \"spherical\", \"euler\": [0, 0, 0], \"quaternion\": [0, 0, 0, 0]}}}]}", FALSE, "a.json:2:63: " },
  { "{\"frames\": [{\"frame\": 0, \"joints\": {\n \"E\": {\"type\": \"revolute\", \"angle\": \"1\"}}}]}", FALSE, "a.json:2:37: " },
  { "{\"frames\": [{\"frame\": 0, \"joints\": {\n \"E\": {\"type\": \"hinge\", \"angle\": 1}}}]}", FALSE, "a.json:2:16: " },
  { "{\"frames\": [{\"frame\": 0, \"joints\": {\n \"E\": {\"type\": \"fixed\"}}}]}", FALSE, "a.json:2:16: " },
  /* Without a skeleton, later frames have the first frame's joints. */
  { "{\"frames\": [{\"frame\": 0, \"joints\": {" J_EL "}},\n {\"frame\": 1, \"joints\": {" J_PI "}}]}", FALSE, "a.json:2:26: " },
  { "{\"frames\": [{\"frame\": 0, \"joints\": {" J_EL "}},\n {\"frame\": 1, \"joints\": {}}]}", FALSE, "a.json:2:25: " },
};

static void
test_invalid_files (void)
{
  g_autoptr(KmSkeleton) skeleton = test_util_example_skeleton ();

  for (guint i = 0; i < G_N_ELEMENTS (invalid_cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(KmAnimation) animation =
        load_string (invalid_cases[i].json, invalid_cases[i].with_skeleton ? skeleton : NULL,
                     &error);

      g_test_message ("case %u: %s", i, error ? error->message : "(no error)");
      g_assert_null (animation);
      g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_INVALID);
      g_assert_true (g_str_has_prefix (error->message, invalid_cases[i].prefix));
    }
}

/* The mean residual was a plain sum over the frames divided by their number: residuals
 * of 1e308 m (a model with a 1e308 offset) summed to infinity, and `kinema-cli solve`
 * said mean_pos_err=inf of finite residuals. Ordinary residuals keep the plain sum's
 * result to the bit. */
static void
test_stats_huge_residuals (void)
{
  g_autoptr(KmSkeleton) skeleton = test_util_example_skeleton ();
  g_autoptr(KmAnimation) animation = example_animation (skeleton);
  g_autoptr(KmAnimation) ordinary = example_animation (skeleton);
  volatile double sum = 0, sum_rot = 0;
  const double small[4] = { 0.1, 0.2, 0.7, 1e-9 };
  KmAnimationStats stats;

  km_animation_set_residual (animation, 0, 1.5e308, 0.5);
  km_animation_set_residual (animation, 2, 1e308, 3.0);
  km_animation_set_residual (animation, 3, 0.25, 1.0);
  km_animation_get_stats (animation, &stats);
  g_assert_true (isfinite (stats.mean_pos_err));
  g_assert_cmpfloat_with_epsilon (stats.mean_pos_err / (1.5e308 / 3 + 1e308 / 3 + 0.25 / 3), 1.0, 1e-15);
  g_assert_cmpfloat (stats.max_pos_err, ==, 1.5e308);
  g_assert_cmpfloat (stats.mean_rot_err, ==, 4.5 / 3);

  /* Every one at the largest double: the mean is that. */
  for (guint f = 0; f < 5; f++)
    km_animation_set_residual (animation, f, G_MAXDOUBLE, G_MAXDOUBLE);
  km_animation_get_stats (animation, &stats);
  g_assert_cmpfloat (stats.mean_pos_err, ==, G_MAXDOUBLE);
  g_assert_cmpfloat (stats.mean_rot_err, ==, G_MAXDOUBLE);

  /* An infinite one stays infinite. */
  km_animation_set_residual (animation, 1, INFINITY, 0.0);
  km_animation_get_stats (animation, &stats);
  g_assert_true (isinf (stats.mean_pos_err));

  for (guint f = 0; f < G_N_ELEMENTS (small); f++)
    {
      km_animation_set_residual (ordinary, f, small[f], small[G_N_ELEMENTS (small) - 1 - f]);
      sum += small[f];
      sum_rot += small[G_N_ELEMENTS (small) - 1 - f];
    }
  km_animation_get_stats (ordinary, &stats);
  g_assert_true (stats.mean_pos_err == sum / G_N_ELEMENTS (small));
  g_assert_true (stats.mean_rot_err == sum_rot / G_N_ELEMENTS (small));
}

/* km_animation_json_check_size() names the limit exceeded, with its value: 1000001 frames
 * of the example model (20 values a frame) are more values than the reader takes, though
 * not more bytes; 1000000 frames of a joint with a 400-character name (6 values a frame,
 * but the name in every one) are more bytes, though not more values. */
static void
test_check_size_limits (void)
{
  g_autoptr(KmSkeleton) skeleton = test_util_example_skeleton ();
  g_autoptr(KmSkeleton) named = NULL;
  g_autoptr(GString) json = g_string_new ("{\"root_name\": \"R\", \"joints\": [{\"name\": "
                                          "\"R\", \"type\": \"fixed\", \"offset\": [0, 0, "
                                          "0]}, {\"name\": \"");
  g_autoptr(GError) error = NULL;

  g_assert_false (km_animation_json_check_size (skeleton, KM_ANIMATION_MAX_FRAMES, &error));
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT);
  g_assert_cmpstr (error->message, ==, "an animation of 1000001 frames for this model would "
                                       "be larger than Kinema reads back (at most 16777216 "
                                       "values)");
  g_clear_error (&error);

  for (guint i = 0; i < 400; i++)
    g_string_append_c (json, 'a' + i % 26);
  g_string_append (json, "\", \"type\": \"revolute\", \"parent\": \"R\", \"offset\": "
                   "[0, 0, 0.1], \"axis\": [0, 1, 0], \"limits\": [-3, 3]}]}");
  named = km_skeleton_json_load ("named.json", json->str, json->len, &error);
  g_assert_no_error (error);
  g_assert_true (km_animation_json_check_size (named, 100000, &error));
  g_assert_no_error (error);
  g_assert_false (km_animation_json_check_size (named, 1000000, &error));
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT);
  g_assert_cmpstr (error->message, ==, "an animation of 1000000 frames for this model would "
                                       "be larger than Kinema reads back (at most 256 MiB)");
}

/* km_animation_json_save()'s own refusals, whatever its caller checked before: an
 * animation with more values than the reader takes (KM_JSON_MAX_NODES) is refused before
 * its text is made, located at the file, and the file there stays as it was. */
static void
test_save_too_large (void)
{
  g_autoptr(KmSkeleton) skeleton = test_util_example_skeleton ();
  g_autoptr(KmAnimation) animation = km_animation_new (skeleton, KM_ANIMATION_MAX_FRAMES);
  g_autofree char *dir = km_test_make_tmp_dir ("km-animation-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "long.animation.json", NULL);
  g_autofree char *expected = g_strdup_printf ("%s: an animation of 1000001 frames for this "
                                               "model would be larger than Kinema reads back",
                                               path);
  g_autofree char *now = NULL;
  g_autoptr(GError) error = NULL;
  const char *old = "{\"frames\": []}\n";

  g_assert_true (g_file_set_contents (path, old, -1, NULL));
  /* 1000001 frames of 20 values (a spherical joint's 11, two others' 3 each, each frame's
   * 3): more than KM_JSON_MAX_NODES, as the check before a solve says too. */
  g_assert_false (km_animation_json_check_size (skeleton, KM_ANIMATION_MAX_FRAMES, NULL));
  g_assert_false (km_animation_json_save (animation, path, &error));
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT);
  g_assert_true (g_str_has_prefix (error->message, expected));
  g_assert_true (g_file_get_contents (path, &now, NULL, NULL));
  g_assert_cmpstr (now, ==, old);
  g_unlink (path);
  km_test_remove_tree (dir);
}

/* A named pipe as the file: one with no reader is refused (by default at once: the editor
 * saves on its main thread; rev21 finding 1, where the save waited for ever), as "a pipe
 * with no reader"; waited for when asked (kinema-cli), then refused saying how long; one
 * with a reader gets the file. */
static void
test_save_fifo (void)
{
  g_autoptr(KmSkeleton) skeleton = test_util_example_skeleton ();
  g_autoptr(KmAnimation) animation = example_animation (skeleton);
  g_autofree char *dir = km_test_make_tmp_dir ("km-animation-XXXXXX");
  g_autofree char *fifo = g_build_filename (dir, "pipe.animation.json", NULL);
  g_autofree char *expected = g_strdup_printf ("%s: cannot write the file: a pipe with no "
                                               "reader", fifo);
  g_autofree char *waited = g_strdup_printf ("%s (none came within 1 second)", expected);
  g_autofree char *text = km_animation_json_to_string (animation);
  g_autoptr(GString) got = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  char buffer[4096];
  gssize n;
  int fd;

  if (mkfifo (fifo, 0600) != 0)
    {
      g_test_skip ("mkfifo is not supported here");
      km_test_remove_tree (dir);
      return;
    }
  g_assert_false (km_animation_json_save (animation, fifo, &error));
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NXIO);
  g_assert_cmpstr (error->message, ==, expected);
  g_clear_error (&error);

  km_format_set_fifo_save_wait (1);
  g_assert_false (km_animation_json_save (animation, fifo, &error));
  km_format_set_fifo_save_wait (0);
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NXIO);
  g_assert_cmpstr (error->message, ==, waited);
  g_clear_error (&error);

  /* A reader first (the file is far smaller than a pipe holds: the save cannot block). */
  fd = g_open (fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0);
  g_assert_cmpint (fd, >=, 0);
  g_assert_true (km_animation_json_save (animation, fifo, &error));
  g_assert_no_error (error);
  while ((n = read (fd, buffer, sizeof buffer)) > 0)
    g_string_append_len (got, buffer, n);
  g_assert_cmpint (n, ==, 0);
  close (fd);
  g_assert_cmpstr (got->str, ==, text);
  g_assert_true (g_file_test (fifo, G_FILE_TEST_EXISTS));
  g_unlink (fifo);
  km_test_remove_tree (dir);
}

/* The frames a solve jumped to are derived data kept with the motion, as its residuals
 * are: copies and remaps keep them; the step says how far the jump went, in the unit of
 * the DOF that moved furthest. */
static void
test_jumps (void)
{
  g_autoptr(KmSkeleton) skeleton = test_util_example_skeleton ();
  g_autoptr(KmAnimation) animation = example_animation (skeleton);
  g_autoptr(KmAnimation) copy = NULL;
  g_autoptr(KmAnimation) remapped = NULL;
  int map[5] = { 0, 1, 2, 3, 4 };
  guint dof = G_MAXUINT;

  g_assert_cmpuint (km_animation_get_n_jumps (animation), ==, 0);
  km_animation_set_jumped (animation, 2, TRUE);
  km_animation_set_jumped (animation, 4, TRUE);
  km_animation_set_jumped (animation, 4, FALSE);
  g_assert_true (km_animation_get_jumped (animation, 2));
  g_assert_false (km_animation_get_jumped (animation, 4));
  g_assert_cmpuint (km_animation_get_n_jumps (animation), ==, 1);

  copy = km_animation_copy (animation);
  remapped = km_animation_remap (animation, skeleton, map);
  g_assert_true (km_animation_get_jumped (copy, 2));
  g_assert_cmpuint (km_animation_get_n_jumps (copy), ==, 1);
  g_assert_true (km_animation_get_jumped (remapped, 2));
  g_assert_cmpuint (km_animation_get_n_jumps (remapped), ==, 1);

  /* Frame 1 → 2: the elbow (a revolute joint) moves 0.625 rad, more than any other DOF. */
  g_assert_cmpfloat_with_epsilon (km_animation_get_step (animation, 2, &dof), 0.625, 1e-12);
  g_assert_cmpuint (dof, ==, 3);
  g_assert_cmpint (km_animation_get_dof_type (animation, dof), ==, KM_JOINT_REVOLUTE);
  g_assert_cmpint (km_animation_get_dof_type (animation, 4), ==, KM_JOINT_PRISMATIC);
  g_assert_cmpfloat (km_animation_get_step (animation, 0, &dof), ==, 0.0);
  g_assert_cmpuint (dof, ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/kinema/Animation/model", test_model);
  g_test_add_func ("/kinema/Animation/stats-huge-residuals", test_stats_huge_residuals);
  g_test_add_func ("/kinema/Animation/jumps", test_jumps);
  g_test_add_func ("/kinema/AnimationJson/round-trip", test_round_trip);
  g_test_add_func ("/kinema/AnimationJson/euler-quaternion-agree", test_euler_quaternion_agree);
  g_test_add_func ("/kinema/AnimationJson/mismatch-warning", test_mismatch_warning);
  g_test_add_func ("/kinema/AnimationJson/invalid", test_invalid_files);
  g_test_add_func ("/kinema/AnimationJson/check-size-limits", test_check_size_limits);
  g_test_add_func ("/kinema/AnimationJson/save-too-large", test_save_too_large);
  g_test_add_func ("/kinema/AnimationJson/save-fifo", test_save_fifo);

  return g_test_run ();
}
