/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <math.h>

#include <glib/gstdio.h>

#include "km-body-item.h"
#include "km-cnoid.h"
#include "km-defaults.h"
#include "km-error.h"
#include "km-format.h"
#include "km-ik-animation-item.h"
#include "km-ik-targets-item.h"
#include "km-target-track.h"
#include "km-targets-json.h"

#include "test-util.h"
#include "km-test-tmp.h"

static KmTargetTrack *
load_string (const char  *text,
             GError     **error)
{
  g_autoptr(GBytes) bytes = g_bytes_new (text, strlen (text));

  return km_targets_json_load ("t.json", bytes, error);
}

static KmTargetTrack *
two_keyframes (void)
{
  KmTargetKeyframe keys[2] = {
    { 30, { 3.0, 0.0, -3.0 }, { 0 } },
    { 10, { 1.0, 2.0, 3.0 }, KM_QUAT_IDENTITY },
  };

  keys[0].orientation = km_quat_from_axis_angle (km_vec3 (0, 0, 1), G_PI_2);
  return km_target_track_new (keys, 2, NULL, 30.0, NULL);
}

static void
assert_vec3 (KmVec3 a,
             double x,
             double y,
             double z)
{
  g_assert_cmpfloat_with_epsilon (a.x, x, 1e-12);
  g_assert_cmpfloat_with_epsilon (a.y, y, 1e-12);
  g_assert_cmpfloat_with_epsilon (a.z, z, 1e-12);
}

static void
test_sample_at_keyframes (void)
{
  g_autoptr(KmTargetTrack) track = two_keyframes ();
  KmVec3 p;
  KmQuat q;

  /* Sorted on construction. */
  g_assert_cmpuint (km_target_track_get_n_keyframes (track), ==, 2);
  g_assert_cmpuint (km_target_track_get_keyframe (track, 0)->frame, ==, 10);
  g_assert_cmpuint (km_target_track_get_first_frame (track), ==, 10);
  g_assert_cmpuint (km_target_track_get_last_frame (track), ==, 30);
  g_assert_cmpint (km_target_track_find_keyframe (track, 30), ==, 1);
  g_assert_cmpint (km_target_track_find_keyframe (track, 20), ==, -1);

  g_assert_true (km_target_track_sample (track, 10, &p, &q));
  assert_vec3 (p, 1, 2, 3);
  g_assert_cmpfloat_with_epsilon (km_quat_angle_between (q, KM_QUAT_IDENTITY), 0, 1e-12);

  g_assert_true (km_target_track_sample (track, 30, &p, &q));
  assert_vec3 (p, 3, 0, -3);
  g_assert_cmpfloat_with_epsilon (km_quat_angle_between (q, km_quat_from_axis_angle (km_vec3 (0, 0, 1), G_PI_2)), 0, 1e-12);
}

static void
test_sample_between (void)
{
  g_autoptr(KmTargetTrack) track = two_keyframes ();
  KmVec3 p;
  KmQuat q;

  /* A quarter of the way: position lerps, orientation turns a quarter of 90° about Z. */
  km_target_track_sample (track, 15, &p, &q);
  assert_vec3 (p, 1.5, 1.5, 1.5);
  g_assert_cmpfloat_with_epsilon (km_quat_angle_between (q, km_quat_from_axis_angle (km_vec3 (0, 0, 1), G_PI / 8)), 0, 1e-9);

  /* Fractional frames. */
  km_target_track_sample (track, 20.5, &p, &q);
  assert_vec3 (p, 1.0 + 2.0 * 10.5 / 20, 2.0 - 2.0 * 10.5 / 20, 3.0 - 6.0 * 10.5 / 20);
  g_assert_cmpfloat_with_epsilon (km_quat_angle_between (q, km_quat_from_axis_angle (km_vec3 (0, 0, 1), G_PI_2 * 10.5 / 20)), 0, 1e-9);
}

static void
test_sample_outside (void)
{
  g_autoptr(KmTargetTrack) track = two_keyframes ();
  KmVec3 p;
  KmQuat q;

  km_target_track_sample (track, 0, &p, &q);
  assert_vec3 (p, 1, 2, 3);
  g_assert_cmpfloat_with_epsilon (km_quat_angle_between (q, KM_QUAT_IDENTITY), 0, 1e-12);
  km_target_track_sample (track, -5.5, &p, NULL);
  assert_vec3 (p, 1, 2, 3);
  km_target_track_sample (track, 1e9, &p, &q);
  assert_vec3 (p, 3, 0, -3);
  g_assert_cmpfloat_with_epsilon (km_quat_angle_between (q, km_quat_from_axis_angle (km_vec3 (0, 0, 1), G_PI_2)), 0, 1e-12);
  km_target_track_sample (track, NAN, &p, NULL);
  assert_vec3 (p, 1, 2, 3);
}

/* 170° and -170° about Z are 20° apart: the midpoint is 180°, not 0°. The keyframes are
 * also given with opposite quaternion signs, which must not matter. */
static void
test_slerp_shortest_arc (void)
{
  KmTargetKeyframe keys[2] = { { 0 }, { 0 } };
  g_autoptr(KmTargetTrack) track = NULL;
  KmQuat q, b;

  keys[0].orientation = km_quat_from_axis_angle (km_vec3 (0, 0, 1), km_deg_to_rad (170));
  b = km_quat_from_axis_angle (km_vec3 (0, 0, 1), km_deg_to_rad (-170));
  keys[1].frame = 10;
  keys[1].orientation = (KmQuat) { -b.w, -b.x, -b.y, -b.z };
  track = km_target_track_new (keys, 2, NULL, 30.0, NULL);
  g_assert_nonnull (track);

  km_target_track_sample (track, 5, NULL, &q);
  g_assert_cmpfloat_with_epsilon (km_quat_angle_between (q, km_quat_from_axis_angle (km_vec3 (0, 0, 1), G_PI)), 0, 1e-9);
  km_target_track_sample (track, 2.5, NULL, &q);
  g_assert_cmpfloat_with_epsilon (km_quat_angle_between (q, km_quat_from_axis_angle (km_vec3 (0, 0, 1), km_deg_to_rad (175))), 0, 1e-9);
}

static void
test_empty_and_invalid (void)
{
  KmTargetKeyframe keys[2] = { { 5, { 0 }, KM_QUAT_IDENTITY }, { 5, { 1, 1, 1 }, KM_QUAT_IDENTITY } };
  g_autoptr(KmTargetTrack) empty = km_target_track_new (NULL, 0, NULL, 30.0, NULL);
  g_autoptr(GError) error = NULL;
  KmVec3 p;
  KmQuat q;

  g_assert_false (km_target_track_sample (empty, 3, &p, &q));
  assert_vec3 (p, 0, 0, 0);
  g_assert_cmpfloat (q.w, ==, 1.0);

  g_assert_null (km_target_track_new (keys, 2, NULL, 30.0, &error));
  g_assert_error (error, KM_TARGET_TRACK_ERROR, KM_TARGET_TRACK_ERROR_DUPLICATE_FRAME);
  g_clear_error (&error);

  keys[1].frame = 6;
  keys[1].position.y = INFINITY;
  g_assert_null (km_target_track_new (keys, 2, NULL, 30.0, &error));
  g_assert_error (error, KM_TARGET_TRACK_ERROR, KM_TARGET_TRACK_ERROR_BAD_VALUE);
  g_clear_error (&error);

  keys[1].position.y = 0;
  g_assert_null (km_target_track_new (keys, 2, NULL, 0.0, &error));
  g_assert_error (error, KM_TARGET_TRACK_ERROR, KM_TARGET_TRACK_ERROR_BAD_VALUE);
}

static void
test_editing (void)
{
  g_autoptr(KmTargetTrack) track = two_keyframes ();
  g_autoptr(KmTargetTrack) inserted = NULL;
  g_autoptr(KmTargetTrack) replaced = NULL;
  g_autoptr(KmTargetTrack) removed = NULL;
  g_autoptr(KmTargetTrack) named = NULL;
  g_autoptr(KmTargetTrack) slow = NULL;
  KmTargetKeyframe k = { 20, { 9, 9, 9 }, KM_QUAT_IDENTITY };
  KmVec3 p;

  inserted = km_target_track_with_keyframe (track, &k);
  g_assert_cmpuint (km_target_track_get_n_keyframes (inserted), ==, 3);
  g_assert_cmpuint (km_target_track_get_keyframe (inserted, 1)->frame, ==, 20);
  km_target_track_sample (inserted, 20, &p, NULL);
  assert_vec3 (p, 9, 9, 9);
  /* The original is untouched. */
  g_assert_cmpuint (km_target_track_get_n_keyframes (track), ==, 2);

  k.frame = 30;
  replaced = km_target_track_with_keyframe (inserted, &k);
  g_assert_cmpuint (km_target_track_get_n_keyframes (replaced), ==, 3);
  km_target_track_sample (replaced, 30, &p, NULL);
  assert_vec3 (p, 9, 9, 9);

  removed = km_target_track_without_keyframe (replaced, 20);
  g_assert_cmpuint (km_target_track_get_n_keyframes (removed), ==, 2);
  g_assert_cmpint (km_target_track_find_keyframe (removed, 20), ==, -1);

  named = km_target_track_with_effector (track, "Hand");
  g_assert_cmpstr (km_target_track_get_effector (named), ==, "Hand");
  g_assert_null (km_target_track_get_effector (track));
  g_assert_false (km_target_track_equal (track, named, 1e-9));

  slow = km_target_track_with_frame_rate (track, 24.0);
  g_assert_cmpfloat (km_target_track_get_frame_rate (slow), ==, 24.0);
  g_assert_cmpfloat (km_target_track_get_frame_rate (track), ==, 30.0);
}

static void
test_load_defaults (void)
{
  g_autoptr(GBytes) bytes = km_defaults_get_targets_json ();
  g_autoptr(GError) error = NULL;
  g_autoptr(KmTargetTrack) track = km_targets_json_load ("targets.json", bytes, &error);
  g_autoptr(GString) info = g_string_new (NULL);
  const KmTargetKeyframe *k;
  KmQuat expected;

  g_assert_no_error (error);
  g_assert_cmpuint (km_target_track_get_n_keyframes (track), ==, 4);
  g_assert_cmpuint (km_target_track_get_last_frame (track), ==, 240);
  g_assert_cmpfloat (km_target_track_get_frame_rate (track), ==, 30.0);
  g_assert_null (km_target_track_get_effector (track));

  /* Degrees, intrinsic XYZ: [90, 0, 45] → scipy's quaternion (test-math.c). */
  k = km_target_track_get_keyframe (track, 1);
  g_assert_cmpuint (k->frame, ==, 80);
  assert_vec3 (k->position, 1, 1, 1);
  expected = (KmQuat) { 0.65328148, 0.65328148, -0.27059805, 0.27059805 };
  g_assert_cmpfloat_with_epsilon (km_quat_angle_between (k->orientation, expected), 0, 1e-7);

  km_targets_json_describe (track, info);
  g_assert_true (g_str_has_suffix (info->str, "\nkeyframes=4 first=0 last=240\n"));
  g_assert_nonnull (strstr (info->str, "keyframe frame=80 pos=1,1,1 euler=90,0,45\n"));
}

static void
test_sorted_and_effector (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(KmTargetTrack) track = NULL;
  g_autoptr(KmTargetTrack) again = NULL;
  g_autofree char *text = NULL;

  track = load_string ("[{\"frame\": 20, \"pos\": [1, 0, 0], \"euler\": [0, 0, 90], \"effector\": \"Tip\"},\n"
                       " {\"frame\": 3, \"pos\": [0, 0, 0], \"euler\": [-90, 45, 0]},\n"
                       " {\"frame\": 7.0, \"pos\": [0, 1, 0], \"euler\": [10, 20, 30], \"effector\": \"Tip\"}]",
                       &error);
  g_assert_no_error (error);
  g_assert_cmpuint (km_target_track_get_keyframe (track, 0)->frame, ==, 3);
  g_assert_cmpuint (km_target_track_get_keyframe (track, 1)->frame, ==, 7);
  g_assert_cmpuint (km_target_track_get_keyframe (track, 2)->frame, ==, 20);
  g_assert_cmpstr (km_target_track_get_effector (track), ==, "Tip");

  /* Round trip through the writer. */
  text = km_targets_json_to_string (track);
  again = load_string (text, &error);
  g_assert_no_error (error);
  g_assert_true (km_target_track_equal (track, again, 1e-9));
  g_assert_nonnull (strstr (text, "\"euler\": [0, 0, 90]"));
}

/* A tool point on the effector and a position-only target survive targets.json, and a plain
 * track's file stays the spec's format. */
static void
test_tool_point_keys (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(KmTargetTrack) track = NULL;
  g_autoptr(KmTargetTrack) again = NULL;
  g_autoptr(KmTargetTrack) plain = two_keyframes ();
  g_autofree char *text = NULL;
  g_autofree char *plain_text = NULL;
  g_autoptr(GString) info = g_string_new (NULL);

  track = load_string ("[{\"frame\": 0, \"pos\": [1, 0, 0], \"euler\": [0, 0, 0],\n"
                       "  \"effector_offset\": [0, 0, 0.125], \"position_only\": true},\n"
                       " {\"frame\": 5, \"pos\": [0, 1, 0], \"euler\": [0, 0, 0]}]", &error);
  g_assert_no_error (error);
  assert_vec3 (km_target_track_get_effector_offset (track), 0, 0, 0.125);
  g_assert_true (km_target_track_get_position_only (track));

  text = km_targets_json_to_string (track);
  g_assert_nonnull (strstr (text, "\"effector_offset\": [0, 0, 0.125]"));
  g_assert_nonnull (strstr (text, "\"position_only\": true"));
  again = load_string (text, &error);
  g_assert_no_error (error);
  g_assert_true (km_target_track_equal (track, again, 0.0));

  km_targets_json_describe (track, info);
  g_assert_nonnull (strstr (info->str, "effector_offset=0,0,0.125\n"));
  g_assert_nonnull (strstr (info->str, "position_only=true\n"));

  plain_text = km_targets_json_to_string (plain);
  g_assert_null (strstr (plain_text, "effector_offset"));
  g_assert_null (strstr (plain_text, "position_only"));
}

typedef struct
{
  const char *json;
  const char *prefix;   /* "t.json:LINE:COLUMN: " */
  int         code;
} InvalidCase;

static const InvalidCase invalid_cases[] = {
  /* Not an array / not objects / empty. */
  { "{\"frame\": 0}", "t.json:1:1: ", KM_PARSE_ERROR_INVALID },
  { "[]", "t.json:1:1: ", KM_PARSE_ERROR_INVALID },
  { "[\n  1\n]", "t.json:2:3: ", KM_PARSE_ERROR_INVALID },
  /* Non-integer, negative, too large, wrong-typed frame. */
  { "[{\"frame\": 1.5, \"pos\": [0, 0, 0], \"euler\": [0, 0, 0]}]", "t.json:1:12: ", KM_PARSE_ERROR_INVALID },
  { "[{\"frame\": -1, \"pos\": [0, 0, 0], \"euler\": [0, 0, 0]}]", "t.json:1:12: ", KM_PARSE_ERROR_INVALID },
  { "[{\"frame\": 1000001, \"pos\": [0, 0, 0], \"euler\": [0, 0, 0]}]", "t.json:1:12: ", KM_PARSE_ERROR_INVALID },
  { "[{\"frame\": \"0\", \"pos\": [0, 0, 0], \"euler\": [0, 0, 0]}]", "t.json:1:12: ", KM_PARSE_ERROR_INVALID },
  /* Wrong array lengths and element types. */
  { "[{\"frame\": 0,\n  \"pos\": [0, 0],\n  \"euler\": [0, 0, 0]}]", "t.json:2:10: ", KM_PARSE_ERROR_INVALID },
  { "[{\"frame\": 0, \"pos\": [0, 0, 0], \"euler\": [0, 0, 0, 0]}]", "t.json:1:42: ", KM_PARSE_ERROR_INVALID },
  { "[{\"frame\": 0, \"pos\": \"here\", \"euler\": [0, 0, 0]}]", "t.json:1:22: ", KM_PARSE_ERROR_INVALID },
  { "[{\"frame\": 0, \"pos\": [0, true, 0], \"euler\": [0, 0, 0]}]", "t.json:1:26: ", KM_PARSE_ERROR_INVALID },
  /* Missing fields: at the keyframe's opening brace. */
  { "[{\"frame\": 0, \"pos\": [0, 0, 0]},\n {\"pos\": [0, 0, 0], \"euler\": [0, 0, 0]}]", "t.json:1:2: ", KM_PARSE_ERROR_INVALID },
  { "[{\"frame\": 0, \"pos\": [0, 0, 0], \"euler\": [0, 0, 0]},\n {\"pos\": [0, 0, 0], \"euler\": [0, 0, 0]}]", "t.json:2:2: ", KM_PARSE_ERROR_INVALID },
  { "[{\"frame\": 0, \"euler\": [0, 0, 0]}]", "t.json:1:2: ", KM_PARSE_ERROR_INVALID },
  /* Duplicate frames: at the second one. */
  { "[{\"frame\": 4, \"pos\": [0, 0, 0], \"euler\": [0, 0, 0]},\n"
    " {\"frame\": 9, \"pos\": [0, 0, 0], \"euler\": [0, 0, 0]},\n"
    " {\"frame\": 4, \"pos\": [0, 0, 0], \"euler\": [0, 0, 0]}]", "t.json:3:12: ", KM_PARSE_ERROR_INVALID },
  /* Effector differing between keyframes, or not a string. */
  { "[{\"frame\": 0, \"pos\": [0, 0, 0], \"euler\": [0, 0, 0], \"effector\": \"A\"},\n"
    " {\"frame\": 1, \"pos\": [0, 0, 0], \"euler\": [0, 0, 0]},\n"
    " {\"frame\": 2, \"pos\": [0, 0, 0], \"euler\": [0, 0, 0], \"effector\": \"B\"}]", "t.json:3:65: ", KM_PARSE_ERROR_INVALID },
  { "[{\"frame\": 0, \"pos\": [0, 0, 0], \"euler\": [0, 0, 0], \"effector\": 7}]", "t.json:1:65: ", KM_PARSE_ERROR_INVALID },
  /* Tool-point settings: wrong types, or differing between keyframes (at the second). */
  { "[{\"frame\": 0, \"pos\": [0, 0, 0], \"euler\": [0, 0, 0], \"effector_offset\": [0, 0]}]", "t.json:1:72: ", KM_PARSE_ERROR_INVALID },
  { "[{\"frame\": 0, \"pos\": [0, 0, 0], \"euler\": [0, 0, 0], \"position_only\": 1}]", "t.json:1:70: ", KM_PARSE_ERROR_INVALID },
  { "[{\"frame\": 0, \"pos\": [0, 0, 0], \"euler\": [0, 0, 0], \"effector_offset\": [0, 0, 1]},\n"
    " {\"frame\": 1, \"pos\": [0, 0, 0], \"euler\": [0, 0, 0], \"effector_offset\": [0, 0, 2]}]", "t.json:2:72: ", KM_PARSE_ERROR_INVALID },
  { "[{\"frame\": 0, \"pos\": [0, 0, 0], \"euler\": [0, 0, 0], \"position_only\": true},\n"
    " {\"frame\": 1, \"pos\": [0, 0, 0], \"euler\": [0, 0, 0], \"position_only\": false}]", "t.json:2:70: ", KM_PARSE_ERROR_INVALID },
  /* Non-finite numbers. */
  { "[{\"frame\": 0, \"pos\": [0, 1e400, 0], \"euler\": [0, 0, 0]}]", "t.json:1:26: ", KM_PARSE_ERROR_SYNTAX },
  { "[{\"frame\": 0, \"pos\": [0, 0, 0], \"euler\": [NaN, 0, 0]}]", "t.json:1:43: ", KM_PARSE_ERROR_SYNTAX },
  { "[{\"frame\": 0, \"pos\": [0, 0, -Infinity], \"euler\": [0, 0, 0]}]", "t.json:1:30: ", KM_PARSE_ERROR_SYNTAX },
  /* Not JSON at all. */
  { "[{\"frame\": 0,}]", "t.json:1:14: ", KM_PARSE_ERROR_SYNTAX },
  { "", "t.json:1:1: ", KM_PARSE_ERROR_SYNTAX },
};

static void
test_invalid_files (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (invalid_cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(KmTargetTrack) track = load_string (invalid_cases[i].json, &error);

      g_test_message ("case %u: %s", i, error ? error->message : "(no error)");
      g_assert_null (track);
      g_assert_error (error, KM_PARSE_ERROR, invalid_cases[i].code);
      g_assert_true (g_str_has_prefix (error->message, invalid_cases[i].prefix));
      /* A message follows the location. */
      g_assert_cmpuint (strlen (error->message), >, strlen (invalid_cases[i].prefix) + 5);
    }
}

static void
test_unknown_keys_warn (void)
{
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmTargetTrack) track = NULL;

  test_util_push_warnings (warnings);
  track = load_string ("[{\"frame\": 0, \"pos\": [0, 0, 0], \"euler\": [0, 0, 0],\n"
                       "  \"speed\": 3}]", &error);
  test_util_pop_warnings (warnings);

  /* A keyframe's key Kinema does not use is kept (extra-keys-kept), so not reported as
   * "unknown key “speed” ignored", which it was: that was false. */
  g_assert_no_error (error);
  g_assert_nonnull (track);
  g_assert_cmpuint (warnings->len, ==, 0);
  g_assert_nonnull (strstr (km_target_track_get_extra (track, 0), "\"speed\": 3"));
}

static void
test_format_registry (void)
{
  g_autoptr(GBytes) bytes = km_defaults_get_targets_json ();
  gsize length;
  const char *data = g_bytes_get_data (bytes, &length);
  const KmFormat *format = km_format_detect (data, length);
  const char *animation = "{\"frames\": [{\"frame\": 0, \"joints\": {}}]}";

  g_assert_nonnull (format);
  g_assert_true (format == &km_format_targets_json);
  g_assert_true (km_format_lookup ("KINEMA-TARGETS-JSON") == &km_format_targets_json);
  g_assert_cmpint (format->kind, ==, KM_FILE_KIND_TARGETS);
  g_assert_cmpint (km_format_targets_json.sniff ("{\"frames\": []}", 14), ==, 0);
  g_assert_true (km_format_detect (animation, strlen (animation))
                 == km_format_lookup ("KINEMA-ANIMATION-JSON"));
}

/* An empty JSON array is most likely a targets file with no keyframes (a targets file is
 * an array of keyframes): detected as one, it fails saying so, where the array starts.
 * Other arrays stay unknown. */
static void
test_empty_array (void)
{
  static const char * const empty[] = { "[]", " \n[ \n ]\n", "\xEF\xBB\xBF[]" };
  static const char * const others[] = { "[1, 2, 3]", "[[]]", "[] x", "[{}]" };
  g_autofree char *dir = km_test_make_tmp_dir ("km-targets-XXXXXX");

  for (guint i = 0; i < G_N_ELEMENTS (empty); i++)
    {
      g_autofree char *path = g_build_filename (dir, "empty.json", NULL);
      g_autoptr(GError) error = NULL;
      g_autofree char *expected = NULL;
      const KmFormat *format = NULL;
      gpointer result;

      g_test_message ("case %u", i);
      g_assert_true (km_format_detect (empty[i], strlen (empty[i])) == &km_format_targets_json);
      g_assert_true (g_file_set_contents (path, empty[i], -1, NULL));
      result = km_format_load_file (path, NULL, &format, &error);
      g_assert_null (result);
      g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_INVALID);
      expected = g_strdup_printf ("%s:%s: expected at least one keyframe (an IK targets file "
                                  "with no keyframes)", path, i == 1 ? "2:1" : "1:1");
      g_assert_cmpstr (error->message, ==, expected);
      g_unlink (path);
    }
  for (guint i = 0; i < G_N_ELEMENTS (others); i++)
    g_assert_null (km_format_detect (others[i], strlen (others[i])));
}

static void
test_save_and_load_file (void)
{
  g_autoptr(KmTargetTrack) track = two_keyframes ();
  g_autoptr(KmTargetTrack) loaded = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = km_test_make_tmp_dir ("km-targets-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "targets.json", NULL);

  g_assert_true (km_targets_json_save (track, path, &error));
  g_assert_no_error (error);
  loaded = km_targets_json_load_file (path, &error);
  g_assert_no_error (error);
  g_assert_true (km_target_track_equal (track, loaded, 1e-9));

  g_clear_pointer (&loaded, km_target_track_unref);
  loaded = km_targets_json_load_file ("/nonexistent/t.json", &error);
  g_assert_null (loaded);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_IO);
}

static void
count_warning (const char *message,
               gpointer    user_data)
{
  (*(guint *) user_data)++;
}

/* rev16-cli 4: a keyframe's members that Kinema does not interpret ("comment", "time", a
 * tool's settings, …) were dropped by a rewrite (`convert`), which promises to keep them.
 * They are written back after the known ones, in file order, values as they were; they
 * stay through the track's edits but the deletion of their keyframe. */
static void
test_extra_keys_kept (void)
{
  static const char text[] =
    "[{\"frame\": 5, \"pos\": [1, 2, 3], \"euler\": [0, 0, 90], \"comment\": \"late\",\n"
    "  \"tool\": {\"name\": \"g\", \"ids\": [1, 2.5, true, null, {}]}},\n"
    " {\"time\": 0.5, \"frame\": 0, \"pos\": [0, 0, 1], \"euler\": [0, 0, 0],\n"
    "  \"comment\": \"start \\\"here\\\"\"}]\n";
  static const char expected[] =
    "[\n"
    "  {\n"
    "    \"frame\": 0,\n"
    "    \"pos\": [0, 0, 1],\n"
    "    \"euler\": [0, 0, 0],\n"
    "    \"time\": 0.5,\n"
    "    \"comment\": \"start \\\"here\\\"\"\n"
    "  },\n"
    "  {\n"
    "    \"frame\": 5,\n"
    "    \"pos\": [1, 2, 3],\n"
    "    \"euler\": [0, 0, 90],\n"
    "    \"comment\": \"late\",\n"
    "    \"tool\": {\n"
    "      \"name\": \"g\",\n"
    "      \"ids\": [\n"
    "        1,\n"
    "        2.5,\n"
    "        true,\n"
    "        null,\n"
    "        {}\n"
    "      ]\n"
    "    }\n"
    "  }\n"
    "]\n";
  g_autoptr(GBytes) bytes = g_bytes_new_static (text, sizeof text - 1);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmTargetTrack) track = NULL;
  g_autoptr(KmTargetTrack) again = NULL;
  g_autoptr(KmTargetTrack) edited = NULL;
  g_autoptr(KmTargetTrack) without = NULL;
  g_autoptr(GBytes) written_bytes = NULL;
  g_autofree char *written = NULL;
  g_autofree char *rewritten = NULL;
  g_autofree char *edited_text = NULL;
  KmTargetKeyframe moved = { 5, { 4, 4, 4 }, KM_QUAT_IDENTITY };
  guint n_warnings = 0;

  /* Kept, so nothing is said (they used to be "ignored", which was false). */
  km_parse_warnings_push (count_warning, &n_warnings);
  track = km_targets_json_load ("t.json", bytes, &error);
  km_parse_warnings_pop ();
  g_assert_no_error (error);
  g_assert_cmpuint (n_warnings, ==, 0);
  written = km_targets_json_to_string (track);
  g_assert_cmpstr (written, ==, expected);

  /* A second rewrite is the same text. */
  written_bytes = g_bytes_new (written, strlen (written));
  again = km_targets_json_load ("w.json", written_bytes, &error);
  g_assert_no_error (error);
  rewritten = km_targets_json_to_string (again);
  g_assert_cmpstr (rewritten, ==, written);

  /* The keyframe at frame 5 replaced: what it carried stays; deleted: it goes. */
  edited = km_target_track_with_keyframe (again, &moved);
  edited_text = km_targets_json_to_string (edited);
  g_assert_nonnull (strstr (edited_text, "\"comment\": \"late\""));
  without = km_target_track_without_keyframe (edited, 5);
  g_assert_null (km_target_track_get_extra (without, 5));
  g_assert_nonnull (km_target_track_get_extra (without, 0));
  g_assert_nonnull (km_target_track_get_extra (edited, 5));
}

/* A "\u0000" in an extra member's value (or name) was cut there by a rewrite: the text
 * kept for the keyframe was made through C strings, so "a\u0000b" came back as "a" (and
 * a name "frame\u0000x" read as "frame" was dropped as a known key). */
static void
test_extra_keys_nul (void)
{
  static const char text[] =
    "[{\"frame\": 0, \"pos\": [0, 0, 1], \"euler\": [0, 0, 0], \"note\": \"a\\u0000b\",\n"
    "  \"frame\\u0000x\": [\"\\u0000\", \"c\\u0000\"], \"n\\u0000\": 1, \"n\": 2}]\n";
  static const char expected[] =
    "[\n"
    "  {\n"
    "    \"frame\": 0,\n"
    "    \"pos\": [0, 0, 1],\n"
    "    \"euler\": [0, 0, 0],\n"
    "    \"note\": \"a\\u0000b\",\n"
    "    \"frame\\u0000x\": [\n"
    "      \"\\u0000\",\n"
    "      \"c\\u0000\"\n"
    "    ],\n"
    "    \"n\\u0000\": 1,\n"
    "    \"n\": 2\n"
    "  }\n"
    "]\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(KmTargetTrack) track = load_string (text, &error);
  g_autoptr(KmTargetTrack) again = NULL;
  g_autofree char *written = NULL;
  g_autofree char *rewritten = NULL;

  g_assert_no_error (error);
  written = km_targets_json_to_string (track);
  g_assert_cmpstr (written, ==, expected);
  again = load_string (written, &error);
  g_assert_no_error (error);
  rewritten = km_targets_json_to_string (again);
  g_assert_cmpstr (rewritten, ==, written);
  g_assert_true (km_target_track_equal (track, again, 0.0));
}

/* Tracks that differ only in a keyframe's extra members compared equal, so that the
 * editor took an edit of only those for no change. A track without any and one whose
 * table lacks the frame are the same. */
static void
test_equal_extras (void)
{
  static const char plain[] = "[{\"frame\": 0, \"pos\": [0, 0, 1], \"euler\": [0, 0, 0]},\n"
                              " {\"frame\": 4, \"pos\": [1, 0, 1], \"euler\": [0, 0, 0]}]\n";
  static const char start[] = "[{\"frame\": 0, \"pos\": [0, 0, 1], \"euler\": [0, 0, 0],\n"
                              "  \"comment\": \"start\"},\n"
                              " {\"frame\": 4, \"pos\": [1, 0, 1], \"euler\": [0, 0, 0]}]\n";
  static const char begin[] = "[{\"frame\": 0, \"pos\": [0, 0, 1], \"euler\": [0, 0, 0],\n"
                              "  \"comment\": \"begin\"},\n"
                              " {\"frame\": 4, \"pos\": [1, 0, 1], \"euler\": [0, 0, 0]}]\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(KmTargetTrack) a = load_string (plain, &error);
  g_autoptr(KmTargetTrack) b = load_string (start, &error);
  g_autoptr(KmTargetTrack) c = load_string (begin, &error);
  g_autoptr(KmTargetTrack) b_again = load_string (start, &error);
  g_autoptr(KmTargetTrack) b_without = NULL;
  g_autoptr(KmTargetTrack) a_without = NULL;
  g_autoptr(GHashTable) other_frame = g_hash_table_new_full (g_direct_hash, g_direct_equal,
                                                             NULL, g_free);
  g_autoptr(KmTargetTrack) a_other = NULL;

  g_assert_no_error (error);
  g_assert_true (km_target_track_equal (b, b_again, 0.0));
  g_assert_false (km_target_track_equal (a, b, 1e-9));
  g_assert_false (km_target_track_equal (b, a, 1e-9));
  g_assert_false (km_target_track_equal (b, c, 1e-9));

  /* Without the keyframe that carried them, and with it again but bare: equal. */
  b_without = km_target_track_without_keyframe (b, 0);
  a_without = km_target_track_without_keyframe (a, 0);
  g_assert_true (km_target_track_equal (a_without, b_without, 0.0));

  /* Extras only for a frame that is no keyframe: none that count. */
  g_hash_table_insert (other_frame, GUINT_TO_POINTER (2), g_strdup ("{\"x\": 1}\n"));
  a_other = km_target_track_with_extras (a, other_frame);
  g_assert_true (km_target_track_equal (a, a_other, 0.0));
  g_assert_true (km_target_track_equal (a_other, a, 0.0));
}

/* rev17-cli 4: a rewrite (`convert`, a save) wrote each keyframe's euler angles from its
 * quaternion, rounded to 1e-9°: about 11 significant digits where the file had 17 (so not
 * the same doubles, nor the same targets), the user's triple replaced by another one for
 * the same rotation, and 1e-300 written 0. A keyframe read from a file now writes the
 * triple it was read with, as read, until its rotation is edited; then every digit of the
 * rotation is kept. */
static const char euler_text[] =
  "[{\"frame\": 0, \"pos\": [0, 0, 1],\n"
  "  \"euler\": [-160.0765651501738, 67.50305140548178, -64.56023006769443]},\n"
  " {\"frame\": 5, \"pos\": [0, 1, 1],\n"
  "  \"euler\": [53.630839129292724, 144.32417703022418, -139.24585272486803]},\n"
  " {\"frame\": 9, \"pos\": [1, 0, 1], \"euler\": [0.1, 1e-300, -0]}]\n";
#define EULER_0 "\"euler\": [-160.0765651501738, 67.50305140548178, -64.56023006769443]"
#define EULER_5 "\"euler\": [53.630839129292724, 144.32417703022418, -139.24585272486803]"
#define EULER_9 "\"euler\": [0.1, 1e-300, -0]"

/* Whether @track's text has each of the NULL-terminated @wanted. */
static void
assert_written (const KmTargetTrack *track,
                ...)
{
  g_autofree char *text = km_targets_json_to_string (track);
  const char *wanted;
  va_list args;

  va_start (args, track);
  while ((wanted = va_arg (args, const char *)) != NULL)
    if (strstr (text, wanted) == NULL)
      g_error ("“%s” not in:\n%s", wanted, text);
  va_end (args);
}

/* The rotation of @track's keyframe @i, written and read back: the same to the last
 * digits (1e-9° was up to 2e-11 rad). */
static void
assert_rotation_kept (const KmTargetTrack *track,
                      guint                i)
{
  g_autofree char *text = km_targets_json_to_string (track);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmTargetTrack) again = load_string (text, &error);
  KmQuat a = km_target_track_get_keyframe (track, i)->orientation;
  KmQuat b;

  g_assert_no_error (error);
  b = km_target_track_get_keyframe (again, i)->orientation;
  if (a.w * b.w + a.x * b.x + a.y * b.y + a.z * b.z < 0)
    b = (KmQuat) { -b.w, -b.x, -b.y, -b.z };
  g_assert_cmpfloat_with_epsilon (a.w, b.w, 1e-14);
  g_assert_cmpfloat_with_epsilon (a.x, b.x, 1e-14);
  g_assert_cmpfloat_with_epsilon (a.y, b.y, 1e-14);
  g_assert_cmpfloat_with_epsilon (a.z, b.z, 1e-14);
}

static void
test_euler_as_read (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(KmTargetTrack) track = load_string (euler_text, &error);
  g_autoptr(KmTargetTrack) again = NULL;
  g_autoptr(KmTargetTrack) moved = NULL;
  g_autoptr(KmTargetTrack) inserted = NULL;
  g_autoptr(KmTargetTrack) turned = NULL;
  g_autoptr(KmTargetTrack) retimed = NULL;
  g_autoptr(KmTargetTrack) deleted = NULL;
  g_autoptr(KmTargetTrack) reset = NULL;
  g_autoptr(KmTargetTrack) plain = NULL;
  g_autoptr(GString) info = g_string_new (NULL);
  g_autofree char *text = NULL;
  g_autofree char *rewritten = NULL;
  KmTargetKeyframe k;
  KmVec3 degrees;

  g_assert_no_error (error);
  assert_written (track, EULER_0, EULER_5, EULER_9, NULL);
  g_assert_true (km_target_track_get_euler (track, 1, &degrees));
  g_assert_cmpfloat (degrees.x, ==, 53.630839129292724);
  km_targets_json_describe (track, info);
  g_assert_nonnull (strstr (info->str, "keyframe frame=5 pos=0,1,1 "
                                       "euler=53.630839129292724,144.32417703022418,"
                                       "-139.24585272486803\n"));

  /* A rewrite of the rewrite: the same text. */
  text = km_targets_json_to_string (track);
  again = load_string (text, &error);
  g_assert_no_error (error);
  rewritten = km_targets_json_to_string (again);
  g_assert_cmpstr (rewritten, ==, text);

  /* Edits that leave a keyframe's rotation keep its angles: a move of its position, a
   * keyframe inserted before it, the track's settings. */
  k = *km_target_track_get_keyframe (track, 1);
  k.position = km_vec3 (2, 2, 2);
  moved = km_target_track_with_keyframe (track, &k);
  k = (KmTargetKeyframe) { 3, { 0, 0, 0 }, KM_QUAT_IDENTITY };
  inserted = km_target_track_with_keyframe (moved, &k);
  {
    g_autoptr(KmTargetTrack) slower = km_target_track_with_frame_rate (inserted, 24.0);

    retimed = km_target_track_with_tool (slower, km_vec3 (0, 0, 0.1), TRUE);
  }
  assert_written (retimed, EULER_0, EULER_5, EULER_9, "\"euler\": [0, 0, 0]", NULL);

  /* A keyframe turned is written from its new rotation (every digit), the others as read. */
  k = *km_target_track_get_keyframe (track, 2);
  k.orientation = km_quat_from_euler_xyz (km_vec3 (0.1234567890123, -0.7654321098765, 2.5));
  turned = km_target_track_with_keyframe (track, &k);
  g_assert_false (km_target_track_get_euler (turned, 2, &degrees));
  g_assert_true (km_target_track_get_euler (turned, 1, &degrees));
  text = (g_free (text), km_targets_json_to_string (turned));
  g_assert_null (strstr (text, EULER_9));
  assert_written (turned, EULER_0, EULER_5, NULL);
  assert_rotation_kept (turned, 2);

  /* Deleted, then another rotation put at its frame: that one's own. */
  deleted = km_target_track_without_keyframe (track, 5);
  k = *km_target_track_get_keyframe (track, 1);
  k.orientation = km_quat_from_axis_angle (km_vec3 (0, 1, 0), 0.5);
  reset = km_target_track_with_keyframe (deleted, &k);
  g_assert_false (km_target_track_get_euler (reset, 1, &degrees));
  assert_rotation_kept (reset, 1);

  /* A track made in Kinema: from the rotation, every digit. */
  plain = km_target_track_new (&k, 1, NULL, 30.0, NULL);
  g_assert_false (km_target_track_get_euler (plain, 0, &degrees));
  assert_rotation_kept (plain, 0);
}

/* A keyframe whose angles come from its rotation (turned in the editor, made in Kinema) is
 * written in the shortest degrees that read back to the same radians, as the .body writer
 * writes them (km_format_scaled_number()): 30° about one axis stays 30, not
 * 29.999999999999996. Angles a file gave are written as read. */
static void
test_euler_from_rotation_shortest (void)
{
  static const char text[] =
    "[\n"
    "  {\n"
    "    \"frame\": 0,\n"
    "    \"pos\": [0, 0, 0],\n"
    "    \"euler\": [30, -45, 90.5]\n"
    "  },\n"
    "  {\n"
    "    \"frame\": 1,\n"
    "    \"pos\": [0, 0, 0],\n"
    "    \"euler\": [30, 0, 0]\n"
    "  },\n"
    "  {\n"
    "    \"frame\": 2,\n"
    "    \"pos\": [0, 0, 0],\n"
    "    \"euler\": [0, 30, 0]\n"
    "  },\n"
    "  {\n"
    "    \"frame\": 3,\n"
    "    \"pos\": [0, 0, 0],\n"
    "    \"euler\": [0, 0, -30]\n"
    "  },\n"
    "  {\n"
    "    \"frame\": 4,\n"
    "    \"pos\": [0, 0, 0],\n"
    "    \"euler\": [60, 0, 0]\n"
    "  },\n"
    "  {\n"
    "    \"frame\": 5,\n"
    "    \"pos\": [0, 0, 0],\n"
    "    \"euler\": [0, 0, 120]\n"
    "  }\n"
    "]\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(KmTargetTrack) track = load_string (text, &error);
  g_autoptr(KmTargetTrack) plain = NULL;
  g_autoptr(GString) info = g_string_new (NULL);
  g_autofree char *written = NULL;
  g_autofree char *expected = NULL;
  KmVec3 degrees;

  g_assert_no_error (error);
  /* As read: the same text. */
  written = km_targets_json_to_string (track);
  g_assert_cmpstr (written, ==, text);

  /* From the rotations only (the first one's triple does not come back from its
   * rotation: that keyframe is left out). */
  {
    g_autoptr(KmTargetTrack) rotations = km_target_track_with_eulers (track, NULL);

    plain = km_target_track_without_keyframe (rotations, 0);
  }
  g_assert_false (km_target_track_get_euler (plain, 0, &degrees));
  g_clear_pointer (&written, g_free);
  written = km_targets_json_to_string (plain);
  expected = g_strconcat ("[\n", strstr (text, "  {\n    \"frame\": 1"), NULL);
  g_assert_cmpstr (written, ==, expected);
  km_targets_json_describe (plain, info);
  g_assert_nonnull (strstr (info->str, " euler=30,0,0\n"));
  g_assert_nonnull (strstr (info->str, " euler=0,0,-30\n"));
  assert_rotation_kept (plain, 0);
  assert_rotation_kept (plain, 4);
}

static KmItem *
find_item (KmItem     *item,
           const char *name)
{
  if (g_strcmp0 (km_item_get_name (item), name) == 0)
    return item;
  for (guint i = 0; i < km_item_get_n_children (item); i++)
    {
      KmItem *found = find_item (km_item_get_child (item, i), name);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The same in a project's inline keyframes (an IKTargetsItem): an edited item wrote every
 * keyframe's angles from its rotation (another triple); read back from the project, they
 * are the ones written. */
static void
test_euler_as_read_project (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema",
                                                 "arm.cnoid", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmProject) project = NULL;
  g_autoptr(KmProject) again = NULL;
  g_autoptr(KmTargetTrack) track = load_string (euler_text, &error);
  g_autofree char *text = NULL;
  KmItem *item;
  KmTargetTrack *read;

  g_assert_no_error (error);
  project = km_cnoid_load (path, &error);
  g_assert_no_error (error);
  item = km_ik_targets_item_new ();
  km_ik_targets_item_set_track (KM_IK_TARGETS_ITEM (item), track);
  km_item_set_name (item, "Typed targets");
  km_item_append_child (find_item (km_project_get_root_item (project), "Arm"), item);
  g_object_unref (item);

  text = test_util_cnoid_to_string (project, path);
  if (strstr (text, "euler: [ 53.630839129292724, 144.32417703022418, -139.24585272486803 ]")
      == NULL
      || strstr (text, "euler: [ 0.1, 1e-300, -0 ]") == NULL)
    g_error ("the angles as read not in:\n%s", text);

  {
    g_autoptr(GBytes) bytes = g_bytes_new (text, strlen (text));

    again = km_cnoid_load_full (path, bytes, NULL, &error);
  }
  g_assert_no_error (error);
  read = km_ik_targets_item_get_track (
    KM_IK_TARGETS_ITEM (find_item (km_project_get_root_item (again), "Typed targets")));
  assert_written (read, EULER_0, EULER_5, EULER_9, NULL);
}

/* The frame rate of @item_name (the @nth "frame_rate: 24" of arm.cnoid, at @line:@column)
 * set to each of several values: those outside 0.001 … 1e6 warn at the value and keep the
 * item as written, the others are read. */
static void
check_item_frame_rate_range (guint       nth,
                             guint       line,
                             guint       column,
                             const char *item_name,
                             GType       item_type)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema",
                                                 "arm.cnoid", NULL);
  g_autofree char *original = NULL;
  const char *rates[] = { "1e-300", "1e-9", "0.0009", "0", "-24", "1000001", "0.001",
                          "1000000" };
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_get_contents (path, &original, NULL, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (rates); i++)
    {
      g_auto(GStrv) parts = g_strsplit (original, "frame_rate: 24\n", -1);
      g_autofree char *rate_line = g_strdup_printf ("frame_rate: %s\n", rates[i]);
      g_autofree char *head = NULL;
      g_autofree char *tail = NULL;
      g_autofree char *text = NULL;
      g_autoptr(GBytes) bytes = NULL;
      g_autoptr(KmProject) project = NULL;
      double rate = g_ascii_strtod (rates[i], NULL);
      gboolean ok = rate >= 0.001 && rate <= 1e6;
      g_autofree char *expected = g_strdup_printf ("%s:%u:%u: expected a frame rate from "
                                                   "0.001 to 1e+06 frames per second",
                                                   path, line, column);
      GPtrArray *messages;
      KmItem *item;
      guint found = 0;
      char *saved;

      g_test_message ("%s frame_rate: %s", item_name, rates[i]);
      g_assert_cmpuint (g_strv_length (parts), >, nth + 1);
      /* The nth occurrence changed, the others kept. */
      saved = parts[nth + 1];
      parts[nth + 1] = NULL;
      head = g_strjoinv ("frame_rate: 24\n", parts);
      parts[nth + 1] = saved;
      tail = g_strjoinv ("frame_rate: 24\n", parts + nth + 1);
      text = g_strconcat (head, rate_line, tail, NULL);
      bytes = g_bytes_new (text, strlen (text));
      project = km_cnoid_load_full (path, bytes, NULL, &error);
      g_assert_no_error (error);
      item = find_item (km_project_get_root_item (project), item_name);
      g_assert_nonnull (item);
      messages = km_project_get_messages (project);
      for (guint m = 0; m < messages->len; m++)
        if (strstr (g_ptr_array_index (messages, m), expected) != NULL)
          found++;
      if (ok)
        {
          g_assert_cmpuint (found, ==, 0);
          g_assert_true (G_TYPE_CHECK_INSTANCE_TYPE (item, item_type));
          if (item_type == KM_TYPE_IK_TARGETS_ITEM)
            g_assert_cmpfloat (km_target_track_get_frame_rate (
                                 km_ik_targets_item_get_track (KM_IK_TARGETS_ITEM (item))),
                               ==, rate);
          else
            g_assert_cmpfloat (km_animation_get_frame_rate (
                                 km_ik_animation_item_get_animation (
                                   KM_IK_ANIMATION_ITEM (item))),
                               ==, rate);
        }
      else
        {
          g_assert_cmpuint (found, ==, 1);
          /* (Kept as written, for a save, as any item that cannot be read.) */
          g_assert_false (G_TYPE_CHECK_INSTANCE_TYPE (item, item_type));
        }
    }
}

/* An IK targets item takes the body motion's frame rates (its targets solve into a .seq
 * too): a tiny positive one used to be refused only then, at the last keyframe. */
static void
test_item_frame_rate_range (void)
{
  check_item_frame_rate_range (0, 37, 29, "Targets", KM_TYPE_IK_TARGETS_ITEM);
}

/* An IK animation item takes the same range (it exports as a .seq). */
static void
test_animation_item_frame_rate_range (void)
{
  check_item_frame_rate_range (1, 55, 29, "Motion", KM_TYPE_IK_ANIMATION_ITEM);
}

/* A track's base joint (a Scenebuilder ik's ref body: the chain stops below it) goes with
 * every edited copy, makes two tracks unequal, and survives a targets.json rewrite and a
 * project save (it used to be lost with the keyframes' frame of reference). */
static void
test_base_kept (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema",
                                                 "arm.cnoid", NULL);
  g_autoptr(KmTargetTrack) plain = two_keyframes ();
  g_autoptr(KmTargetTrack) based = km_target_track_with_base (plain, "shoulder");
  g_autoptr(KmTargetTrack) tool = NULL;
  g_autoptr(KmTargetTrack) keyed = NULL;
  g_autoptr(KmTargetTrack) again = NULL;
  g_autoptr(KmTargetTrack) wrong = NULL;
  g_autoptr(KmProject) project = NULL;
  g_autoptr(KmProject) reread = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *cnoid = NULL;
  KmTargetKeyframe key = { 7, { 0.1, 0.2, 0.3 }, KM_QUAT_IDENTITY };
  KmItem *item;

  g_assert_null (km_target_track_get_base (plain));
  g_assert_cmpstr (km_target_track_get_base (based), ==, "shoulder");
  g_assert_false (km_target_track_equal (plain, based, 1e-9));
  tool = km_target_track_with_tool (based, km_vec3 (0, 0, 0.2), TRUE);
  keyed = km_target_track_with_keyframe (tool, &key);
  g_assert_cmpstr (km_target_track_get_base (tool), ==, "shoulder");
  g_assert_cmpstr (km_target_track_get_base (keyed), ==, "shoulder");

  text = km_targets_json_to_string (keyed);
  g_assert_nonnull (strstr (text, "\"base\": \"shoulder\""));
  again = load_string (text, &error);
  g_assert_no_error (error);
  g_assert_true (km_target_track_equal (again, keyed, 1e-9));
  /* Like "effector", every keyframe that gives it gives the same one. */
  wrong = load_string ("[{\"frame\": 0, \"pos\": [0, 0, 0], \"euler\": [0, 0, 0], \"base\": \"a\"},\n"
                       " {\"frame\": 1, \"pos\": [0, 0, 0], \"euler\": [0, 0, 0], \"base\": \"b\"}]",
                       &error);
  g_assert_null (wrong);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_INVALID);
  g_clear_error (&error);

  project = km_cnoid_load (path, &error);
  g_assert_no_error (error);
  item = km_ik_targets_item_new ();
  km_ik_targets_item_set_track (KM_IK_TARGETS_ITEM (item), keyed);
  km_item_set_name (item, "Based targets");
  km_item_append_child (find_item (km_project_get_root_item (project), "Arm"), item);
  g_object_unref (item);
  cnoid = test_util_cnoid_to_string (project, path);
  {
    g_autoptr(GBytes) bytes = g_bytes_new (cnoid, strlen (cnoid));

    reread = km_cnoid_load_full (path, bytes, NULL, &error);
  }
  g_assert_no_error (error);
  g_assert_true (km_target_track_equal (
    km_ik_targets_item_get_track (
      KM_IK_TARGETS_ITEM (find_item (km_project_get_root_item (reread), "Based targets"))),
    keyed, 1e-9));
}

/* A base is above the effector: one equal to the effector is no base. targets.json's
 * reader refuses it, but a track used to keep it (a .cnoid IK targets item's `base:` read
 * as given, km_target_track_with_base()) and its writer wrote it: a project that opened
 * fine saved targets that did not open. The track drops it (with a warning from the
 * .cnoid reader), so every writer leaves it out. */
static void
test_base_is_not_the_effector (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema",
                                                 "arm.cnoid", NULL);
  g_autoptr(KmTargetTrack) plain = two_keyframes ();
  g_autoptr(KmTargetTrack) tipped = km_target_track_with_effector (plain, "tip");
  g_autoptr(KmTargetTrack) self_based = km_target_track_with_base (tipped, "tip");
  g_autoptr(KmTargetTrack) based = km_target_track_with_base (tipped, "shoulder");
  g_autoptr(KmTargetTrack) default_based = km_target_track_with_base (plain, "tip");
  g_autoptr(KmTargetTrack) moved = NULL;
  g_autoptr(KmTargetTrack) again = NULL;
  g_autoptr(KmProject) project = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *cnoid = NULL;
  g_autofree char *text = NULL;
  g_autofree char *contents = NULL;
  const KmTargetTrack *read;
  GPtrArray *messages;
  gboolean warned = FALSE;

  g_assert_null (km_target_track_get_base (self_based));
  g_assert_true (km_target_track_equal (self_based, tipped, 0));
  g_assert_cmpstr (km_target_track_get_base (based), ==, "shoulder");
  /* With the default effector (NULL) the track cannot tell: the name is kept. */
  g_assert_cmpstr (km_target_track_get_base (default_based), ==, "tip");
  /* Nor does a track get one by being given its base as the effector. */
  moved = km_target_track_with_effector (based, "shoulder");
  g_assert_cmpstr (km_target_track_get_effector (moved), ==, "shoulder");
  g_assert_null (km_target_track_get_base (moved));
  g_clear_pointer (&moved, km_target_track_unref);
  moved = km_target_track_with_effector (based, "wrist");
  g_assert_cmpstr (km_target_track_get_base (moved), ==, "shoulder");

  /* The scenario: an inline item with `effector: X, base: X` opens, with a warning at
   * the base, and its targets saved as targets.json open again. */
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  {
    static const char line[] = "                effector: \"EndEffector\"\n";
    char *at = strstr (contents, line);

    g_assert_nonnull (at);
    at += strlen (line);
    cnoid = g_strdup_printf ("%.*s                base: \"EndEffector\"\n%s",
                             (int) (at - contents), contents, at);
  }
  {
    g_autoptr(GBytes) bytes = g_bytes_new (cnoid, strlen (cnoid));

    project = km_cnoid_load_full (path, bytes, NULL, &error);
  }
  g_assert_no_error (error);
  messages = km_project_get_messages (project);
  for (guint i = 0; i < messages->len; i++)
    {
      const char *m = g_ptr_array_index (messages, i);

      g_test_message ("%s", m);
      if (strstr (m, "arm.cnoid:37:23: “base” is ignored: “EndEffector” is the end effector "
                     "itself") != NULL)
        warned = TRUE;
    }
  g_assert_true (warned);
  read = km_ik_targets_item_get_track (
    KM_IK_TARGETS_ITEM (find_item (km_project_get_root_item (project), "Targets")));
  g_assert_cmpstr (km_target_track_get_effector (read), ==, "EndEffector");
  g_assert_null (km_target_track_get_base (read));
  text = km_targets_json_to_string (read);
  g_assert_null (strstr (text, "\"base\""));
  again = load_string (text, &error);
  g_assert_no_error (error);
  /* (targets.json has no frame rate: the item keeps its own) */
  g_clear_pointer (&moved, km_target_track_unref);
  moved = km_target_track_with_frame_rate (again, km_target_track_get_frame_rate (read));
  g_assert_true (km_target_track_equal (moved, read, 1e-9));
}

/* rev17-cli 8: a file of too many keyframes was read whole (1 GB for 53 MB) and then
 * rejected at 1:1. It is rejected at the first one too many, as it is read: what follows
 * (here not even JSON) is never read. */
static void
test_too_many_keyframes (void)
{
  g_autoptr(GString) text = g_string_new ("[\n");
  g_autoptr(GError) error = NULL;
  g_autoptr(KmTargetTrack) track = NULL;

  for (guint i = 0; i <= KM_TARGET_TRACK_MAX_FRAME + 1; i++)
    g_string_append (text, "1,\n");
  g_string_append (text, "garbage");
  track = load_string (text->str, &error);
  g_assert_null (track);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT);
  g_assert_cmpstr (error->message, ==, "t.json:1000003:1: expected at most 1000001 keyframes");
}

/* Unknown keys are kept and not reported, but a misspelt keyframe key was then silently
 * not followed: one that looks like one (the same but for case or blanks, or an edit or
 * two away) is said, once per name in the file, naming the key it may be meant for. */
static void
test_misspelt_keys_warn (void)
{
  static const char text[] =
    "[{\"frame\": 0, \"pos\": [0, 0, 0], \"euler\": [0, 0, 0], \"efector\": \"Tip\",\n"
    "  \"comment\": \"c\", \"name\": \"a\", \"rate\": 2, \"time\": 0, \"pose\": 1},\n"
    " {\"frame\": 1, \"pos\": [0, 0, 0], \"euler\": [0, 0, 0], \"efector\": \"Tip\",\n"
    "  \"Frame\": 1, \"euler \": 1, \"postion\": [1, 2, 3], \"position_onyl\": true}]\n";
  static const char * const expected[] = {
    "t.json:1:53: unknown key “efector” kept, not used (did you mean “effector”?)",
    "t.json:4:3: unknown key “Frame” kept, not used (did you mean “frame”?)",
    "t.json:4:15: unknown key “euler ” kept, not used (did you mean “euler”?)",
    "t.json:4:28: unknown key “postion” kept, not used (did you mean “pos”?)",
    "t.json:4:50: unknown key “position_onyl” kept, not used (did you mean “position_only”?)",
  };
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmTargetTrack) track = NULL;

  test_util_push_warnings (warnings);
  track = load_string (text, &error);
  test_util_pop_warnings (warnings);
  g_assert_no_error (error);
  g_assert_null (km_target_track_get_effector (track));
  for (guint i = 0; i < warnings->len; i++)
    g_test_message ("%s", (const char *) g_ptr_array_index (warnings, i));
  g_assert_cmpuint (warnings->len, ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    g_assert_cmpstr (g_ptr_array_index (warnings, i), ==, expected[i]);
  /* Still kept. */
  g_assert_nonnull (strstr (km_target_track_get_extra (track, 1), "\"efector\": \"Tip\""));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/kinema/TargetTrack/sample-at-keyframes", test_sample_at_keyframes);
  g_test_add_func ("/kinema/TargetTrack/sample-between", test_sample_between);
  g_test_add_func ("/kinema/TargetTrack/sample-outside", test_sample_outside);
  g_test_add_func ("/kinema/TargetTrack/slerp-shortest-arc", test_slerp_shortest_arc);
  g_test_add_func ("/kinema/TargetTrack/empty-and-invalid", test_empty_and_invalid);
  g_test_add_func ("/kinema/TargetTrack/editing", test_editing);
  g_test_add_func ("/kinema/TargetsJson/load-defaults", test_load_defaults);
  g_test_add_func ("/kinema/TargetsJson/sorted-and-effector", test_sorted_and_effector);
  g_test_add_func ("/kinema/TargetsJson/invalid", test_invalid_files);
  g_test_add_func ("/kinema/TargetsJson/tool-point-keys", test_tool_point_keys);
  g_test_add_func ("/kinema/TargetsJson/unknown-keys-warn", test_unknown_keys_warn);
  g_test_add_func ("/kinema/TargetsJson/format-registry", test_format_registry);
  g_test_add_func ("/kinema/TargetsJson/empty-array", test_empty_array);
  g_test_add_func ("/kinema/TargetsJson/save-and-load-file", test_save_and_load_file);
  g_test_add_func ("/kinema/TargetsJson/extra-keys-kept", test_extra_keys_kept);
  g_test_add_func ("/kinema/TargetsJson/extra-keys-nul", test_extra_keys_nul);
  g_test_add_func ("/kinema/TargetTrack/equal-extras", test_equal_extras);
  g_test_add_func ("/kinema/TargetsJson/euler-as-read", test_euler_as_read);
  g_test_add_func ("/kinema/TargetsJson/euler-as-read-project", test_euler_as_read_project);
  g_test_add_func ("/kinema/TargetTrack/item-frame-rate-range", test_item_frame_rate_range);
  g_test_add_func ("/kinema/TargetTrack/animation-item-frame-rate-range",
                   test_animation_item_frame_rate_range);
  g_test_add_func ("/kinema/TargetsJson/euler-from-rotation-shortest",
                   test_euler_from_rotation_shortest);
  g_test_add_func ("/kinema/TargetsJson/too-many-keyframes", test_too_many_keyframes);
  g_test_add_func ("/kinema/TargetTrack/base-kept", test_base_kept);
  g_test_add_func ("/kinema/TargetTrack/base-is-not-the-effector",
                   test_base_is_not_the_effector);
  g_test_add_func ("/kinema/TargetsJson/misspelt-keys-warn", test_misspelt_keys_warn);

  return g_test_run ();
}
