/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <unistd.h>
#include <glib.h>
#include <glib/gstdio.h>

#include "km-animation-source.h"
#include "km-body-item.h"
#include "km-body-motion-item.h"
#include "km-body-motion.h"
#include "km-body-writer.h"
#include "km-body.h"
#include "km-cnoid.h"
#include "km-defaults.h"
#include "km-error.h"
#include "km-format.h"
#include "km-motion-file-item.h"
#include "km-pose-seq-item.h"
#include "km-skeleton-json.h"

#include "test-util.h"
#include "km-test-tmp.h"

/* Choreonoid body motions (.seq) and BodyMotionItem. */

static char *
data_path (const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "data", "body-motion", name, NULL);
}

static KmBodyMotion *
load (const char *name)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = data_path (name);
  KmBodyMotion *motion = km_body_motion_load_file (path, &error);

  g_assert_no_error (error);
  g_assert_nonnull (motion);
  return motion;
}

static KmBodyMotion *
load_text (const char  *text,
           GError     **error)
{
  g_autoptr(GBytes) bytes = g_bytes_new (text, strlen (text));

  return km_body_motion_load ("m.seq", bytes, error);
}

static void
assert_rotation_z (const KmMat3 *m,
                   double        angle)
{
  test_util_assert_quat (m, cos (angle / 2), 0, 0, sin (angle / 2), 1e-9);
}

static void
test_parse_v2 (void)
{
  g_autoptr(KmBodyMotion) motion = load ("sr1-walk.seq");
  g_autoptr(GString) out = g_string_new (NULL);
  KmTransform pose;
  double q[29];

  g_assert_cmpfloat (km_body_motion_get_format_version (motion), ==, 2.0);
  g_assert_cmpfloat (km_body_motion_get_frame_rate (motion), ==, 50);
  g_assert_cmpuint (km_body_motion_get_n_frames (motion), ==, 5);
  g_assert_cmpfloat_with_epsilon (km_body_motion_get_duration (motion), 0.08, 1e-12);
  g_assert_cmpuint (km_body_motion_get_n_joints (motion), ==, 29);
  g_assert_cmpuint (km_body_motion_get_n_links (motion), ==, 1);
  g_assert_cmpfloat (km_body_motion_get_joint_frame (motion, 2)[3], ==, 0.4);
  g_assert_cmpfloat (km_body_motion_get_joint_frame (motion, 2)[28], ==, 0.28);
  g_assert_true (km_body_motion_get_link_pose (motion, 3, 0, &pose));
  test_util_assert_vec3 (pose.pos, 0.3, 0, 0.7135, 1e-12);
  assert_rotation_z (&pose.rot, 0.3);
  g_assert_false (km_body_motion_get_link_pose (motion, 5, 0, &pose));
  g_assert_false (km_body_motion_get_link_pose (motion, 0, 1, &pose));

  /* Between frames: linear (joints, position) and slerp (rotation); clamped outside. */
  g_assert_true (km_body_motion_sample_joints (motion, 0.03, q));
  g_assert_cmpfloat_with_epsilon (q[3], 0.3, 1e-12);
  g_assert_true (km_body_motion_sample_joints (motion, 10, q));
  g_assert_cmpfloat_with_epsilon (q[3], 0.8, 1e-12);
  g_assert_true (km_body_motion_sample_link (motion, 0.01, 0, &pose));
  test_util_assert_vec3 (pose.pos, 0.05, 0, 0.7135, 1e-12);
  assert_rotation_z (&pose.rot, 0.05);

  km_body_motion_describe (motion, out);
  g_assert_cmpstr (out->str, ==,
                   "format=CHOREONOID-BODY-MOTION-YAML\n"
                   "format_version=2\n"
                   "component 0: type=MultiValueSeq content=JointDisplacement parts=29 use=joints\n"
                   "component 1: type=MultiSE3Seq content=LinkPosition parts=1 use=links\n"
                   "component 2: type=Vector3Seq content=ZMP parts=- use=kept\n"
                   "frames=5 frame_rate=50 duration=0.08 joints=29 links=1 components=3\n");
}

/* Choreonoid 2 writes its sequences' header keys in snake_case (format_version,
 * frame_rate, num_frames, num_parts); Choreonoid reads both spellings, and so does Kinema. */
static void
test_parse_snake_case (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(KmBodyMotion) motion =
    load_text ("type: CompositeSeq\ncontent: BodyMotion\nformat_version: 2.0\n"
               "frame_rate: 100\nnum_frames: 2\ncomponents:\n"
               "  - type: MultiValueSeq\n    content: JointDisplacement\n    frame_rate: 100\n"
               "    num_frames: 2\n    num_parts: 2\n    frames: [ [ 1, 2 ], [ 3, 4 ] ]\n"
               "  - type: MultiSE3Seq\n    content: LinkPosition\n    frame_rate: 100\n"
               "    num_frames: 2\n    num_parts: 1\n    format: XYZQWXYZ\n"
               "    frames: [ [ [ 0, 0, 1, 1, 0, 0, 0 ] ], [ [ 0, 0, 2, 1, 0, 0, 0 ] ] ]\n",
               &error);
  g_autoptr(GString) out = g_string_new (NULL);
  KmTransform pose;

  g_assert_no_error (error);
  g_assert_nonnull (motion);
  g_assert_cmpfloat (km_body_motion_get_format_version (motion), ==, 2.0);
  g_assert_cmpfloat (km_body_motion_get_frame_rate (motion), ==, 100);
  g_assert_cmpuint (km_body_motion_get_n_frames (motion), ==, 2);
  g_assert_cmpuint (km_body_motion_get_n_joints (motion), ==, 2);
  g_assert_cmpfloat (km_body_motion_get_joint_frame (motion, 1)[1], ==, 4);
  g_assert_true (km_body_motion_get_link_pose (motion, 1, 0, &pose));
  test_util_assert_vec3 (pose.pos, 0, 0, 2, 1e-12);
  km_body_motion_describe (motion, out);
  g_assert_nonnull (strstr (out->str, "content=JointDisplacement parts=2 use=joints\n"));

  /* Choreonoid 1.x reads a BodyMotion whose rate and length are in its components only. */
  g_clear_pointer (&motion, km_body_motion_unref);
  motion = load_text ("type: BodyMotion\ncomponents:\n"
                      "  - type: MultiValueSeq\n    purpose: JointPosition\n"
                      "    frameRate: 100\n    numParts: 1\n    numFrames: 2\n"
                      "    frames: [ [ 1 ], [ 2 ] ]\n",
                      &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (km_body_motion_get_frame_rate (motion), ==, 100);
  g_assert_cmpuint (km_body_motion_get_n_frames (motion), ==, 2);
  g_assert_cmpfloat (km_body_motion_get_joint_frame (motion, 1)[0], ==, 2);

  /* A component's snake_case frame rate is checked against the motion's as well. */
  g_clear_pointer (&motion, km_body_motion_unref);
  motion = load_text ("type: CompositeSeq\ncontent: BodyMotion\nframe_rate: 100\n"
                      "num_frames: 1\ncomponents:\n"
                      "  - type: MultiValueSeq\n    content: JointDisplacement\n"
                      "    frame_rate: 50\n    num_frames: 1\n    num_parts: 1\n"
                      "    frames: [ [ 1 ] ]\n",
                      &error);
  g_assert_null (motion);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "m.seq:8:17: expected the motion’s frame rate, 100"));
}

static void
test_parse_v1 (void)
{
  g_autoptr(KmBodyMotion) motion = load ("sr1-v1.seq");
  g_autoptr(KmBodyMotion) old = NULL;
  g_autoptr(KmBodyMotion) bare = NULL;
  g_autoptr(GError) error = NULL;
  KmTransform pose;
  KmMat3 expected, rx, ry, rz, zy;

  g_assert_cmpfloat (km_body_motion_get_format_version (motion), ==, 1.0);
  g_assert_cmpfloat (km_body_motion_get_frame_rate (motion), ==, 10);
  g_assert_cmpuint (km_body_motion_get_n_frames (motion), ==, 3);
  g_assert_cmpuint (km_body_motion_get_n_joints (motion), ==, 29);
  g_assert_cmpuint (km_body_motion_get_n_links (motion), ==, 2);
  g_assert_cmpfloat (km_body_motion_get_joint_frame (motion, 1)[3], ==, 0.2);
  g_assert_true (km_body_motion_get_link_pose (motion, 2, 0, &pose));
  test_util_assert_vec3 (pose.pos, 0.2, 0, 0.7, 1e-12);
  assert_rotation_z (&pose.rot, 0.2);
  /* XYZRPY: Rz(yaw) · Ry(pitch) · Rx(roll), as Choreonoid's rotFromRpy. */
  g_assert_true (km_body_motion_get_link_pose (motion, 0, 1, &pose));
  km_mat3_from_axis_angle (km_vec3 (1, 0, 0), 0.1, &rx);
  km_mat3_from_axis_angle (km_vec3 (0, 1, 0), 0.2, &ry);
  km_mat3_from_axis_angle (km_vec3 (0, 0, 1), 0.3, &rz);
  km_mat3_mul (&rz, &ry, &zy);
  km_mat3_mul (&zy, &rx, &expected);
  g_assert_cmpfloat_with_epsilon (km_mat3_rotation_angle (&pose.rot, &expected), 0, 1e-9);

  /* Choreonoid 1.x's own spelling: type BodyMotion, `purpose`, no formatVersion. */
  old = load_text ("type: BodyMotion\nframeRate: 20\nnumFrames: 2\ncomponents:\n"
                   "  - type: MultiValueSeq\n    purpose: JointPosition\n    numFrames: 2\n"
                   "    numParts: 2\n    frames: [ [ 1, 2 ], [ 3, 4 ] ]\n"
                   "  - type: MultiAffine3Seq\n    purpose: LinkPosition\n    numFrames: 2\n"
                   "    numParts: 1\n    frames: [ [ [ 0, 0, 1, 0, 0, 0 ] ], "
                   "[ [ 0, 0, 2, 0, 0, 0 ] ] ]\n", &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (km_body_motion_get_format_version (old), ==, 0);
  g_assert_cmpfloat (km_body_motion_get_joint_frame (old, 1)[1], ==, 4);
  g_assert_true (km_body_motion_get_link_pose (old, 1, 0, &pose));
  test_util_assert_vec3 (pose.pos, 0, 0, 2, 1e-12);

  /* A bare joint sequence. */
  bare = load_text ("type: MultiValueSeq\ncontent: JointDisplacement\nframeRate: 30\n"
                    "numFrames: 1\nnumParts: 3\nframes:\n  - [ 0.5, 0.25, 0 ]\n", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (km_body_motion_get_n_joints (bare), ==, 3);
  g_assert_cmpuint (km_body_motion_get_n_links (bare), ==, 0);
  g_assert_cmpfloat (km_body_motion_get_joint_frame (bare, 0)[1], ==, 0.25);
}

static const char header[] =
  "type: CompositeSeq\ncontent: BodyMotion\nformatVersion: 2.0\nframeRate: 10\n";

static void
test_bad_inputs (void)
{
  static const struct
  {
    const char *body;      /* after the header */
    const char *expected;  /* the message from "m.seq:" on */
  } cases[] = {
    { "numFrames: 2\ncomponents:\n  - type: MultiValueSeq\n    content: JointDisplacement\n"
      "    numFrames: 2\n    numParts: 2\n    frames: [ [ 1, 2 ], [ 3 ] ]\n",
      "m.seq:11:25: expected a list of 2 numbers" },
    { "numFrames: 1\ncomponents:\n  - type: MultiValueSeq\n    content: JointDisplacement\n"
      "    numFrames: 1\n    numParts: 2\n    frames: [ [ 1, x ] ]\n",
      "m.seq:11:20: expected a finite number" },
    { "numFrames: 3\ncomponents:\n  - type: MultiValueSeq\n    content: JointDisplacement\n"
      "    numFrames: 3\n    numParts: 1\n    frames: [ [ 1 ], [ 2 ] ]\n",
      "m.seq:11:13: expected 3 frames, as numFrames says" },
    { "numFrames: 2\ncomponents:\n  - type: MultiValueSeq\n    content: JointDisplacement\n"
      "    numFrames: 3\n    numParts: 1\n    frames: [ [ 1 ], [ 2 ], [ 3 ] ]\n",
      "m.seq:9:16: expected 2 frames, as the motion’s numFrames says" },
    { "numFrames: 1000000\ncomponents:\n  - type: MultiValueSeq\n"
      "    content: JointDisplacement\n    numFrames: 1000000\n    numParts: 1\n"
      "    frames: [ [ 1 ] ]\n",
      "m.seq:11:13: expected 1000000 frames, as numFrames says" },
    { "numFrames: 99999999999\ncomponents: []\n",
      "m.seq:5:12: expected a count from 0 to 1000001" },
    { "numFrames: 1\ncomponents:\n  - type: MultiSE3Seq\n    content: LinkPosition\n"
      "    numFrames: 1\n    numParts: 1\n    format: XYZQWXYZ\n"
      "    frames: [ [ [ 0, 0, 0, 1, 0, 0 ] ] ]\n",
      "m.seq:12:17: expected a list of 7 numbers" },
    { "numFrames: 1\ncomponents:\n  - type: MultiSE3Seq\n    content: LinkPosition\n"
      "    numFrames: 1\n    numParts: 2\n    frames: [ [ [ 0, 0, 0, 1, 0, 0, 0 ] ] ]\n",
      "m.seq:11:15: expected 2 links, as numParts says" },
    { "numFrames: 1\ncomponents:\n  - type: MultiSE3Seq\n    content: LinkPosition\n"
      "    numFrames: 1\n    numParts: 1\n    format: XYZABC\n    frames: []\n",
      "m.seq:11:13: expected “XYZQWXYZ” or “XYZRPY”" },
    { "numFrames: 1\ncomponents:\n  - type: MultiSE3Seq\n    content: LinkPosition\n"
      "    numFrames: 1\n    numParts: 1\n    frames: [ [ [ 0, 0, 0, 0, 0, 0, 0 ] ] ]\n",
      "m.seq:11:28: expected a unit quaternion w, x, y, z" },
    { "numFrames: 1\ncomponents:\n  - type: MultiValueSeq\n    content: JointDisplacement\n"
      "    frameRate: 20\n    numFrames: 1\n    numParts: 0\n    frames: [ [ ] ]\n",
      "m.seq:9:16: expected the motion’s frame rate, 10" },
    { "numFrames: 1\ncomponents: { a: 1 }\n", "m.seq:6:13: expected a list" },
  };
  /* A rate whose duration, frames / rate, would be infinite or absurd (1e300 s) is
   * refused at the value as 0 is (rev23-cli finding 3): at least a frame every 1000 s. */
  static const char * const rates[][2] = {
    { "0", "m.seq:4:12: expected a frame rate from 0.001 to 1e+06 frames per second" },
    { "-30", "m.seq:4:12: expected a frame rate from 0.001 to" },
    { "1e-320", "m.seq:4:12: expected a frame rate from 0.001 to" },
    { "4.9e-324", "m.seq:4:12: expected a frame rate from 0.001 to" },
    { "1e-300", "m.seq:4:12: expected a frame rate from 0.001 to" },
    { "0.0009", "m.seq:4:12: expected a frame rate from 0.001 to" },
    { "fast", "m.seq:4:12: expected a finite number" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *text = g_strconcat (header, cases[i].body, NULL);
      g_autoptr(KmBodyMotion) motion = load_text (text, &error);

      g_test_message ("case %u: %s", i, error != NULL ? error->message : "(loaded)");
      g_assert_null (motion);
      g_assert_error (error, KM_PARSE_ERROR, error->code);
      g_assert_true (g_str_has_prefix (error->message, cases[i].expected));
    }
  for (guint i = 0; i < G_N_ELEMENTS (rates); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *text =
        g_strdup_printf ("type: CompositeSeq\ncontent: BodyMotion\nformatVersion: 2.0\n"
                         "frameRate: %s\nnumFrames: 0\ncomponents: []\n", rates[i][0]);
      g_autoptr(KmBodyMotion) motion = load_text (text, &error);

      g_test_message ("rate %s: %s", rates[i][0], error != NULL ? error->message : "(loaded)");
      g_assert_null (motion);
      g_assert_true (g_str_has_prefix (error->message, rates[i][1]));
    }
  /* The least rate loads, with a finite duration. */
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(KmBodyMotion) motion =
      load_text ("type: MultiValueSeq\ncontent: JointDisplacement\nframeRate: 0.001\n"
                 "numFrames: 2\nnumParts: 2\nframes:\n  - [0, 1]\n  - [0, 2]\n", &error);

    g_assert_no_error (error);
    g_assert_cmpfloat (km_body_motion_get_duration (motion), ==, 1000);
  }
  /* A million frames of one aliased value against 10000 parts: refused at the first
   * short frame, before anything the size of numFrames × numParts is allocated. */
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(GString) text = g_string_new (header);
    g_autoptr(KmBodyMotion) motion = NULL;

    g_string_append (text, "numFrames: 1000000\ncomponents:\n  - type: MultiValueSeq\n"
                     "    content: JointDisplacement\n    numFrames: 1000000\n"
                     "    numParts: 10000\n    frames: [ &a [ 0 ]");
    for (guint i = 1; i < 1000000; i++)
      g_string_append (text, ",*a");
    g_string_append (text, " ]\n");
    motion = load_text (text->str, &error);
    g_test_message ("alias frames: %s", error != NULL ? error->message : "(loaded)");
    g_assert_null (motion);
    g_assert_true (g_str_has_prefix (error->message,
                                     "m.seq:11:15: expected a list of 10000 numbers"));
  }
  /* Not a body motion at all, and a format version from the future. */
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(KmBodyMotion) motion = load_text ("type: PoseSeq\nrefs: []\n", &error);

    g_assert_null (motion);
    g_assert_true (g_str_has_prefix (error->message, "m.seq:1:7: expected “CompositeSeq”"));
  }
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(KmBodyMotion) motion =
      load_text ("type: CompositeSeq\nformatVersion: 3.0\nframeRate: 1\nnumFrames: 0\n"
                 "components: []\n", &error);

    g_assert_null (motion);
    g_assert_true (g_str_has_prefix (error->message, "m.seq:2:16: expected format version"));
  }
}

/* A simulation's result: 29 joints and the root pose at 1 kHz for 115 s is over four
 * million numbers, more than the YAML reader's node limit; it loads, the frames read as
 * numbers without a node each. */
static void
test_long (void)
{
  const char *preload = g_getenv ("LD_PRELOAD");
  guint n_frames = 115000, n_joints = 29;
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmBodyMotion) motion = NULL;
  KmTransform pose;

  /* Under AddressSanitizer or valgrind libyaml's allocation for each number takes a minute
   * for four million: the same reading with fewer frames, under the node limit. */
#if defined(__SANITIZE_ADDRESS__)
  n_frames = 20000;
#endif
  if (preload != NULL && strstr (preload, "vgpreload") != NULL)
    n_frames = 20000;

  g_string_append_printf (text, "type: CompositeSeq\ncontent: BodyMotion\nformatVersion: 2.0\n"
                          "frameRate: 1000\nnumFrames: %u\ncomponents:\n  -\n"
                          "    type: MultiValueSeq\n    content: JointDisplacement\n"
                          "    frameRate: 1000\n    numFrames: %u\n    numParts: %u\n"
                          "    frames:\n", n_frames, n_frames, n_joints);
  for (guint f = 0; f < n_frames; f++)
    {
      g_string_append_printf (text, "      - [ %u", f % 10);
      g_string_append (text, ",1,2,3,4,5,6,7,8,9,0,1,2,3,4,5,6,7,8,9,0,1,2,3,4,5,6,7,8 ]\n");
    }
  g_string_append_printf (text, "  -\n    type: MultiSE3Seq\n    content: LinkPosition\n"
                          "    numFrames: %u\n    numParts: 1\n    format: XYZQWXYZ\n"
                          "    frames:\n", n_frames);
  for (guint f = 0; f < n_frames; f++)
    g_string_append_printf (text, "      - [ [ %u, 0, 0.7, 1, 0, 0, 0 ] ]\n", f % 10);
  motion = load_text (text->str, &error);
  g_assert_no_error (error);
  g_assert_nonnull (motion);
  g_assert_cmpuint (km_body_motion_get_n_frames (motion), ==, n_frames);
  g_assert_cmpuint (km_body_motion_get_n_joints (motion), ==, n_joints);
  g_assert_cmpfloat (km_body_motion_get_joint_frame (motion, 12345)[0], ==, 5);
  g_assert_cmpfloat (km_body_motion_get_joint_frame (motion, 12345)[28], ==, 8);
  g_assert_true (km_body_motion_get_link_pose (motion, n_frames - 3, 0, &pose));
  g_assert_cmpfloat (pose.pos.x, ==, 7);
  g_assert_cmpfloat (pose.pos.z, ==, 0.7);
}

/* The frames read as numbers (see km-body-motion.c) and the cases that fall back to a
 * tree: frames before `type`, a joint part that is not the first, aliases. The values and
 * the errors are the same either way. */
static void
test_frames_tables (void)
{
  static const struct
  {
    const char *body;      /* after the header */
    const char *expected;  /* NULL: loads with joints 1, 2.5 in the last frame */
  } cases[] = {
    /* block style, tagged and untagged numbers */
    { "numFrames: 2\ncomponents:\n  - type: MultiValueSeq\n    content: JointDisplacement\n"
      "    numParts: 2\n    numFrames: 2\n    frames:\n      - [ 0, 0 ]\n"
      "      - [ !!float \"1\", !!bool 2.5 ]\n", "m.seq:13:24: expected a finite number" },
    { "numFrames: 2\ncomponents:\n  - type: MultiValueSeq\n    content: JointDisplacement\n"
      "    numParts: 2\n    numFrames: 2\n    frames:\n      - [ 0, 0 ]\n"
      "      - [ !!float \"1\", !!float 2.5 ]\n", NULL },
    { "numFrames: 2\ncomponents:\n  - type: MultiValueSeq\n    content: JointDisplacement\n"
      "    numParts: 2\n    numFrames: 2\n    frames:\n      -\n        - 0\n        - 0\n"
      "      -\n        - 1\n        - !!str 2.5\n",
      "m.seq:17:11: expected a finite number, found a string" },
    { "numFrames: 2\ncomponents:\n  - type: MultiValueSeq\n    content: JointDisplacement\n"
      "    numParts: 2\n    numFrames: 2\n    frames:\n      - [ 0, 0 ]\n"
      "      - { a: 1 }\n", "m.seq:13:9: expected a list of 2 numbers" },
    { "numFrames: 2\ncomponents:\n  - type: MultiValueSeq\n    content: JointDisplacement\n"
      "    numParts: 2\n    numFrames: 2\n    frames: [ [ 0, 0 ], [ 1, [ 2.5 ] ] ]\n",
      "m.seq:11:30: expected a finite number" },
    /* frames before the type: a tree */
    { "numFrames: 2\ncomponents:\n  - frames: [ [ 0, 0 ], [ 1, 2.5 ] ]\n"
      "    type: MultiValueSeq\n    content: JointDisplacement\n"
      "    numParts: 2\n    numFrames: 2\n", NULL },
    /* the first joint part is read, its frames before its type; the second one is kept */
    { "numFrames: 2\ncomponents:\n  - frames: [ [ 0, 0 ], [ 1, 2.5 ] ]\n"
      "    type: MultiValueSeq\n    content: JointDisplacement\n"
      "    numParts: 2\n    numFrames: 2\n"
      "  - type: MultiValueSeq\n    content: JointDisplacement\n"
      "    numParts: 1\n    numFrames: 2\n    frames: [ [ 7 ], [ 8 ] ]\n", NULL },
    /* anchors and aliases */
    { "numFrames: 2\ncomponents:\n  - type: MultiValueSeq\n    content: JointDisplacement\n"
      "    numParts: 2\n    numFrames: 2\n    frames: [ &a [ 0, 0 ], [ 1, 2.5 ] ]\n", NULL },
    /* links */
    { "numFrames: 1\ncomponents:\n  - type: MultiSE3Seq\n    content: LinkPosition\n"
      "    numFrames: 1\n    numParts: 1\n    format: XYZRPY\n"
      "    frames:\n      - - [ 0, 0, 0, 0, 0, 0 ]\n      - [ 0, 0, 0, 0, 0, 0 ]\n",
      "m.seq:13:7: expected 1 frames, as numFrames says" },
    { "numFrames: 1\ncomponents:\n  - type: MultiSE3Seq\n    content: LinkPosition\n"
      "    numFrames: 1\n    numParts: 2\n"
      "    frames:\n      - - [ 0, 0, 0, 1, 0, 0, 0 ]\n        - [ 0, 0, 0, 0, 0, 0, 0 ]\n",
      "m.seq:13:22: expected a unit quaternion w, x, y, z" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *text = g_strconcat (header, cases[i].body, NULL);
      g_autoptr(KmBodyMotion) motion = load_text (text, &error);
      g_autofree char *written = NULL;

      g_test_message ("case %u: %s", i, error != NULL ? error->message : "(loaded)");
      if (cases[i].expected != NULL)
        {
          g_assert_null (motion);
          g_assert_cmpstr (error->message, ==, cases[i].expected);
          continue;
        }
      g_assert_no_error (error);
      g_assert_cmpuint (km_body_motion_get_n_joints (motion), ==, 2);
      g_assert_cmpfloat (km_body_motion_get_joint_frame (motion, 1)[0], ==, 1);
      g_assert_cmpfloat (km_body_motion_get_joint_frame (motion, 1)[1], ==, 2.5);
      /* what is kept is written back */
      written = km_body_motion_to_string (motion, NULL);
      g_assert_nonnull (strstr (written, "[ 1, 2.5 ]"));
      if (strstr (cases[i].body, "[ 7 ]") != NULL)
        g_assert_nonnull (strstr (written, "[ 7 ]"));
    }
}

static void
test_registry (void)
{
  g_autofree char *path = data_path ("sr1-v1.seq");
  g_autofree char *data = test_util_read_file (path, NULL);
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-seq-XXXXXX");
  g_autofree char *copy = g_build_filename (dir, "motion.txt", NULL);
  g_autoptr(GError) error = NULL;
  const KmFormat *format = NULL;
  gpointer result;

  /* By content, whatever the name. */
  g_assert_true (km_format_detect (data, strlen (data)) == &km_format_body_motion);
  g_assert_true (g_file_set_contents (copy, data, -1, NULL));
  result = km_format_load_file (copy, NULL, &format, &error);
  g_assert_no_error (error);
  g_assert_true (format == &km_format_body_motion);
  g_assert_cmpint (format->kind, ==, KM_FILE_KIND_BODY_MOTION);
  format->free_result (result);
  g_assert_cmpint (g_unlink (copy), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
  /* Not a pose sequence nor a project. */
  g_assert_true (km_format_detect ("type: PoseSeq\nrefs: []\n", 23) != &km_format_body_motion);
}

/* Written again: the same values, the ZMP component as it was. */
static void
test_write (void)
{
  const char * const names[] = { "sr1-walk.seq", "sr1-v1.seq" };

  for (guint n = 0; n < G_N_ELEMENTS (names); n++)
    {
      g_autoptr(KmBodyMotion) motion = load (names[n]);
      g_autoptr(KmBodyMotion) again = NULL;
      g_autoptr(GError) error = NULL;
      g_autofree char *text = km_body_motion_to_string (motion, NULL);

      again = load_text (text, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (km_body_motion_get_n_frames (again), ==,
                        km_body_motion_get_n_frames (motion));
      g_assert_cmpuint (km_body_motion_get_n_joints (again), ==, 29);
      for (guint f = 0; f < km_body_motion_get_n_frames (motion); f++)
        {
          g_assert_cmpmem (km_body_motion_get_joint_frame (again, f), 29 * sizeof (double),
                           km_body_motion_get_joint_frame (motion, f), 29 * sizeof (double));
          for (guint l = 0; l < km_body_motion_get_n_links (motion); l++)
            {
              KmTransform a, b;

              g_assert_true (km_body_motion_get_link_pose (motion, f, l, &a));
              g_assert_true (km_body_motion_get_link_pose (again, f, l, &b));
              test_util_assert_vec3 (b.pos, a.pos.x, a.pos.y, a.pos.z, 1e-12);
              g_assert_cmpfloat_with_epsilon (km_mat3_rotation_angle (&a.rot, &b.rot), 0, 1e-9);
            }
        }
      if (n == 0)
        g_assert_nonnull (strstr (text, "    type: Vector3Seq\n    content: ZMP\n"
                                        "    frameRate: 50\n    numFrames: 5\n    frames:\n"
                                        "      - [ 0, 0, 0 ]\n      - [ 0.1, 0, 0 ]\n"));
      else
        g_assert_nonnull (strstr (text, "    format: XYZRPY\n"));
    }
}

static gboolean
has_message (KmProject  *project,
             const char *needle)
{
  GPtrArray *messages = km_project_get_messages (project);

  for (guint i = 0; i < messages->len; i++)
    if (strstr (g_ptr_array_index (messages, i), needle) != NULL)
      return TRUE;
  return FALSE;
}

static KmProject *
load_project (const char *path)
{
  g_autoptr(GError) error = NULL;
  KmProject *project = km_cnoid_load (path, &error);

  g_assert_no_error (error);
  g_assert_nonnull (project);
  return project;
}

/* The DOF of the joint named @name, checking its Choreonoid id. */
static int
dof_of (KmSkeleton *skel,
        const char *name,
        int         joint_id)
{
  const KmJoint *joint = test_util_joint (skel, name);

  g_assert_cmpint (joint->joint_id, ==, joint_id);
  return joint->dof_index;
}

static void
test_item (void)
{
  g_autofree char *path = data_path ("sr1-motion.cnoid");
  g_autoptr(KmProject) project = load_project (path);
  KmItem *body = km_project_find_item_by_id (project, 2);
  KmItem *item = km_project_find_item_by_id (project, 3);
  KmItem *orphan = km_project_find_item_by_id (project, 5);
  KmSkeleton *skel = km_body_item_get_skeleton (KM_BODY_ITEM (body));
  g_autofree KmTransform *world = g_new (KmTransform, km_skeleton_get_n_joints (skel));
  KmBodyMotionItem *motion_item;
  KmAnimation *animation;
  KmTransform root;
  int knee = dof_of (skel, "RLEG_KNEE", 3);
  int chest = dof_of (skel, "CHEST", 28);

  g_assert_true (KM_IS_BODY_MOTION_ITEM (item));
  motion_item = KM_BODY_MOTION_ITEM (item);
  g_assert_cmpstr (km_item_get_plugin_name (item), ==, "Body");
  g_assert_cmpstr (km_item_get_class_name (item), ==, "BodyMotionItem");
  g_assert_null (km_item_get_problem (item));
  g_assert_cmpstr (km_body_motion_item_get_file (motion_item), ==, "sr1-walk.seq");
  g_assert_true (km_body_motion_item_get_body (motion_item) == body);
  /* The item that fits plays; the ones that do not load with a warning naming the file. */
  g_assert_true (km_animation_source_find (body) == KM_ANIMATION_SOURCE (item));
  g_assert_true (has_message (project, "sr1-motion.cnoid:38:23: sr1-extra-ids.seq: 2 joint "
                              "values per frame have no joint in “SR1”"));
  g_assert_true (KM_IS_BODY_MOTION_ITEM (orphan));
  g_assert_nonnull (km_body_motion_item_get_motion (KM_BODY_MOTION_ITEM (orphan)));
  g_assert_null (km_body_motion_item_get_animation (KM_BODY_MOTION_ITEM (orphan)));
  g_assert_true (has_message (project, "sr1-motion.cnoid:46:19: sr1-v1.seq: the body motion "
                              "has no body item above it"));

  /* At the file's rate: frame f is the file's frame f. */
  animation = km_animation_source_get_animation (KM_ANIMATION_SOURCE (item));
  g_assert_nonnull (animation);
  g_assert_cmpfloat (km_animation_get_frame_rate (animation), ==, 50);
  g_assert_cmpuint (km_animation_get_n_frames (animation), ==, 5);
  g_assert_cmpuint (km_animation_get_n_dof (animation), ==, km_skeleton_get_n_dof (skel));
  g_assert_cmpfloat (km_animation_get_frame (animation, 3)[knee], ==, 0.6);
  g_assert_cmpfloat (km_animation_get_frame (animation, 3)[chest], ==, 0.28);
  g_assert_true (km_animation_source_get_root_pose (KM_ANIMATION_SOURCE (item), 3, &root));
  km_skeleton_forward_kinematics (skel, km_animation_get_frame (animation, 3), &root, world);
  g_assert_cmpstr (km_skeleton_get_joint (skel, 0)->name, ==, "WAIST");
  test_util_assert_vec3 (world[0].pos, 0.3, 0, 0.7135, 1e-9);
  assert_rotation_z (&world[0].rot, 0.3);
  g_assert_false (km_animation_source_get_root_pose (KM_ANIMATION_SOURCE (item), 5, &root));

  /* At the project's rate (here 200 fps) it is resampled by time: 0.015 s lies between
   * the file's frames 0 and 1 (linear interpolation). */
  km_body_motion_item_set_frame_rate (motion_item, 200);
  animation = km_animation_source_get_animation (KM_ANIMATION_SOURCE (item));
  g_assert_cmpfloat (km_animation_get_frame_rate (animation), ==, 200);
  g_assert_cmpuint (km_animation_get_n_frames (animation), ==, 17);
  g_assert_cmpfloat_with_epsilon (km_animation_get_frame (animation, 3)[knee], 0.15, 1e-12);
  g_assert_cmpfloat_with_epsilon (km_animation_get_frame (animation, 12)[knee], 0.6, 1e-12);
  g_assert_true (km_animation_source_get_root_pose (KM_ANIMATION_SOURCE (item), 16, &root));
  km_skeleton_forward_kinematics (skel, km_animation_get_frame (animation, 16), &root, world);
  test_util_assert_vec3 (world[0].pos, 0.4, 0, 0.7135, 1e-9);
  km_body_motion_item_set_frame_rate (motion_item, 0);
  g_assert_cmpfloat (km_body_motion_item_get_frame_rate (motion_item), ==, 50);
}

/* Saved in place: the items and their data as read. Saved into another folder: the file
 * references follow, and the copy plays the same motion. */
static void
test_save (void)
{
  g_autofree char *path = data_path ("sr1-motion.cnoid");
  g_autofree char *original = test_util_read_file (path, NULL);
  g_autofree char *seq = data_path ("sr1-walk.seq");
  g_autofree char *seq_absolute = g_canonicalize_filename (seq, NULL);
  g_autoptr(KmProject) project = load_project (path);
  g_autoptr(KmProject) again = NULL;
  g_autofree char *text = test_util_cnoid_to_string (project, path);
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-seq-XXXXXX");
  g_autofree char *elsewhere = g_build_filename (dir, "moved.cnoid", NULL);
  g_autofree char *moved = NULL;
  g_autoptr(GError) error = NULL;
  KmItem *item;

  g_assert_cmpstr (text, ==, original);

  g_assert_true (km_cnoid_save (project, elsewhere, &error));
  g_assert_no_error (error);
  moved = test_util_read_file (elsewhere, NULL);
  g_assert_null (strstr (moved, "file: \"sr1-walk.seq\""));
  g_assert_nonnull (strstr (moved, "                format: CHOREONOID-BODY-MOTION-YAML\n"));
  g_assert_nonnull (strstr (moved, "                format: yaml\n"));
  again = load_project (elsewhere);
  item = km_project_find_item_by_id (again, 3);
  g_assert_true (KM_IS_BODY_MOTION_ITEM (item));
  g_assert_null (km_item_get_problem (item));
  g_assert_nonnull (km_body_motion_item_get_motion (KM_BODY_MOTION_ITEM (item)));
  {
    g_autofree char *reference = g_build_filename (dir, km_body_motion_item_get_file (
                                                     KM_BODY_MOTION_ITEM (item)), NULL);
    g_autofree char *resolved = g_canonicalize_filename (
      g_path_is_absolute (km_body_motion_item_get_file (KM_BODY_MOTION_ITEM (item)))
      ? km_body_motion_item_get_file (KM_BODY_MOTION_ITEM (item)) : reference, NULL);

    g_assert_cmpstr (resolved, ==, seq_absolute);
  }
  g_assert_cmpfloat (km_animation_get_frame (
                       km_body_motion_item_get_animation (KM_BODY_MOTION_ITEM (item)), 4)[
                       test_util_joint (km_body_item_get_skeleton (KM_BODY_ITEM (
                         km_project_find_item_by_id (again, 2))), "RLEG_KNEE")->dof_index], ==,
                     0.8);
  g_assert_cmpint (g_unlink (elsewhere), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

/* A file that is not there or is bad: the item stays, with a problem, written back. */
static void
test_missing_and_bad (void)
{
  g_autofree char *path = data_path ("sr1-motion.cnoid");
  g_autofree char *original = test_util_read_file (path, NULL);
  g_autoptr(GString) text = g_string_new (original);
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(KmProject) project = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *saved = NULL;
  KmItem *item;

  g_assert_cmpuint (g_string_replace (text, "sr1-walk.seq", "no-such.seq", 0), ==, 1);
  g_assert_cmpuint (g_string_replace (text, "format: yaml", "format: MPEG", 0), ==, 1);
  bytes = g_bytes_new (text->str, text->len);
  project = km_cnoid_load_full (path, bytes, NULL, &error);
  g_assert_no_error (error);
  item = km_project_find_item_by_id (project, 3);
  g_assert_true (KM_IS_BODY_MOTION_ITEM (item));
  g_assert_nonnull (km_item_get_problem (item));
  g_assert_null (km_body_motion_item_get_animation (KM_BODY_MOTION_ITEM (item)));
  g_assert_true (has_message (project, "sr1-motion.cnoid:30:23: "));
  g_assert_true (has_message (project, "unknown body motion format “MPEG”"));
  saved = test_util_cnoid_to_string (project, path);
  g_assert_cmpstr (saved, ==, text->str);
}

/* Frame f of an animation whose every DOF has its own value. */
static KmAnimation *
distinct_animation (KmSkeleton *skel,
                    guint       n_frames)
{
  guint n_dof = km_skeleton_get_n_dof (skel);
  KmAnimation *animation = km_animation_new (skel, n_frames);
  g_autofree double *q = g_new0 (double, MAX (n_dof, 1));

  for (guint f = 0; f < n_frames; f++)
    {
      for (guint d = 0; d < n_dof; d++)
        q[d] = 0.01 * (d + 1) + 0.125 * f;
      km_animation_set_frame (animation, f, q);
    }
  return animation;
}

/* Written and read back through the text: the motion Choreonoid would get. */
static KmBodyMotion *
write_and_read (const KmBodyMotion *motion,
                char              **text_out)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = km_body_motion_to_string (motion, NULL);
  KmBodyMotion *again = load_text (text, &error);

  g_assert_no_error (error);
  g_assert_nonnull (again);
  if (text_out != NULL)
    *text_out = g_steal_pointer (&text);
  return again;
}

static KmSkeleton *
load_sr1 (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "choreonoid",
                                                 "SR1.body", NULL);
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  KmBodyOptions options = { 0, };
  KmSkeleton *skel;
  gsize length;

  g_assert_true (g_file_get_contents (path, &text, &length, &error));
  skel = km_body_load (path, text, length, &options, &error);
  g_assert_no_error (error);
  return skel;
}

/* SR1's joint ids run 26, 27, 28, 19, … in link order: the values come out in id order,
 * the root link where the body stands, and a BodyMotionItem reads it back as it was. */
static void
test_from_animation (void)
{
  g_autoptr(KmSkeleton) skel = load_sr1 ();
  g_autoptr(KmAnimation) animation = distinct_animation (skel, 4);
  g_autoptr(KmBodyMotion) motion = NULL;
  g_autoptr(KmBodyMotion) again = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-seq-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "walk.seq", NULL);
  const KmJoint *waist = km_skeleton_get_joint (skel, 0);
  KmTransform root, local, expected;

  g_assert_cmpint (test_util_joint (skel, "CHEST")->joint_id, ==, 28);
  g_assert_cmpint (test_util_joint (skel, "RLEG_HIP_R")->joint_id, ==, 0);
  g_assert_cmpint (test_util_joint (skel, "RLEG_HIP_R")->dof_index, !=, 0);

  km_mat3_from_axis_angle (km_vec3 (0, 0, 1), 0.5, &root.rot);
  root.pos = km_vec3 (1, 2, 0.75);
  motion = km_body_motion_new_from_animation (skel, animation, 50, &root, &error);
  g_assert_no_error (error);
  g_assert_nonnull (motion);
  g_assert_cmpuint (km_body_motion_get_n_joints (motion), ==, 29);

  again = write_and_read (motion, &text);
  g_assert_nonnull (strstr (text, "type: CompositeSeq\ncontent: BodyMotion\n"
                                  "formatVersion: 2.0\nframeRate: 50\nnumFrames: 4\n"));
  g_assert_nonnull (strstr (text, "    type: MultiValueSeq\n    content: JointDisplacement\n"));
  g_assert_nonnull (strstr (text, "    type: MultiSE3Seq\n    content: LinkPosition\n"));
  g_assert_nonnull (strstr (text, "    format: XYZQWXYZ\n"));
  g_assert_cmpfloat (km_body_motion_get_format_version (again), ==, 2.0);
  g_assert_cmpfloat (km_body_motion_get_frame_rate (again), ==, 50);
  g_assert_cmpuint (km_body_motion_get_n_frames (again), ==, 4);
  g_assert_cmpuint (km_body_motion_get_n_joints (again), ==, 29);
  g_assert_cmpuint (km_body_motion_get_n_links (again), ==, 1);

  for (guint f = 0; f < 4; f++)
    {
      const double *values = km_body_motion_get_joint_frame (again, f);
      const double *q = km_animation_get_frame (animation, f);
      KmTransform pose;

      for (guint j = 0; j < km_skeleton_get_n_joints (skel); j++)
        {
          const KmJoint *joint = km_skeleton_get_joint (skel, j);

          if (joint->joint_id >= 0 && joint->dof_index >= 0)
            g_assert_cmpfloat (values[joint->joint_id], ==, q[joint->dof_index]);
        }
      g_assert_true (km_body_motion_get_link_pose (again, f, 0, &pose));
      km_joint_local_transform (waist, q + MAX (waist->dof_index, 0), &local);
      km_transform_mul (&root, &local, &expected);
      test_util_assert_vec3 (pose.pos, expected.pos.x, expected.pos.y, expected.pos.z, 1e-12);
      g_assert_cmpfloat_with_epsilon (km_mat3_rotation_angle (&pose.rot, &expected.rot), 0,
                                      1e-9);
    }
  g_assert_cmpfloat (km_body_motion_get_joint_frame (again, 2)[28], ==,
                     km_animation_get_frame (animation, 2)[dof_of (skel, "CHEST", 28)]);

  /* Saved to a file, it is what the loader registry recognises as a body motion. */
  g_assert_true (km_body_motion_save (motion, path, &error));
  g_assert_no_error (error);
  {
    g_autoptr(KmBodyMotion) from_file = km_body_motion_load_file (path, &error);

    g_assert_no_error (error);
    g_assert_cmpuint (km_body_motion_get_n_joints (from_file), ==, 29);
  }
  g_assert_cmpint (g_unlink (path), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

/* A skeleton.json model without ids: the values in DOF order, a spherical joint as three,
 * which is exactly what the .body the writer makes of the model numbers them. */
static void
test_from_animation_skeleton_json (void)
{
  g_autoptr(GBytes) bytes = km_defaults_get_skeleton_json ();
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = NULL;
  g_autoptr(KmSkeleton) body = NULL;
  g_autoptr(KmAnimation) animation = NULL;
  g_autoptr(KmBodyMotion) motion = NULL;
  g_autoptr(KmBodyMotion) again = NULL;
  g_autofree char *body_text = NULL;
  g_autofree int *map = NULL;
  KmBodyOptions options = { 0, };
  gsize length;
  const char *data = g_bytes_get_data (bytes, &length);
  guint n_dof;

  skel = km_skeleton_json_load ("skeleton.json", data, length, &error);
  g_assert_no_error (error);
  g_assert_cmpint (test_util_joint (skel, "Shoulder")->type, ==, KM_JOINT_SPHERICAL);
  n_dof = km_skeleton_get_n_dof (skel);
  animation = distinct_animation (skel, 3);
  motion = km_body_motion_new_from_animation (skel, animation, 30, NULL, &error);
  g_assert_no_error (error);
  again = write_and_read (motion, NULL);
  g_assert_cmpuint (km_body_motion_get_n_joints (again), ==, n_dof);
  for (guint f = 0; f < 3; f++)
    g_assert_cmpmem (km_body_motion_get_joint_frame (again, f), n_dof * sizeof (double),
                     km_animation_get_frame (animation, f), n_dof * sizeof (double));

  body_text = km_body_to_string (skel, NULL);
  body = km_body_load ("skeleton.body", body_text, strlen (body_text), &options, &error);
  g_assert_no_error (error);
  map = km_body_map_dofs (skel, body);
  g_assert_nonnull (map);
  for (guint j = 0; j < km_skeleton_get_n_joints (body); j++)
    {
      const KmJoint *joint = km_skeleton_get_joint (body, j);

      if (joint->dof_index < 0)
        continue;
      g_assert_cmpint (joint->joint_id, >=, 0);
      g_assert_cmpint (joint->joint_id, <, (int) n_dof);
      for (guint f = 0; f < 3; f++)
        g_assert_cmpfloat (km_body_motion_get_joint_frame (again, f)[joint->joint_id], ==,
                           km_animation_get_frame (animation, f)[map[joint->dof_index]]);
    }
}

/* A linked joint has a value of its own in the file (Choreonoid has no linked joints): the
 * one its master puts it at. */
static void
test_from_animation_mimic (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "skeleton-mimic.json",
                                                 NULL);
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = NULL;
  g_autoptr(KmAnimation) animation = NULL;
  g_autoptr(KmBodyMotion) motion = NULL;
  gsize length;
  const double *values;
  double pinion;

  g_assert_true (g_file_get_contents (path, &text, &length, &error));
  skel = km_skeleton_json_load (path, text, length, &error);
  g_assert_no_error (error);
  animation = distinct_animation (skel, 2);
  motion = km_body_motion_new_from_animation (skel, animation, 30, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (km_body_motion_get_n_joints (motion), ==, 4);
  values = km_body_motion_get_joint_frame (motion, 1);
  pinion = km_animation_get_frame (animation, 1)[test_util_joint (skel, "Pinion")->dof_index];
  /* Without ids, in DOF order (the skeleton's preorder: Pinion, Free, Rack, Idler). */
  g_assert_cmpfloat (values[test_util_joint (skel, "Pinion")->dof_index], ==, pinion);
  g_assert_cmpfloat_with_epsilon (values[test_util_joint (skel, "Rack")->dof_index],
                                  0.02 * pinion + 0.01, 1e-12);
  g_assert_cmpfloat_with_epsilon (values[test_util_joint (skel, "Idler")->dof_index],
                                  -0.5 * pinion, 1e-12);
}

/* Ids far apart would need more values per frame than a body motion holds: an error, not
 * a huge allocation. */
static void
test_from_animation_too_large (void)
{
  g_autoptr(KmSkeletonBuilder) builder = km_skeleton_builder_new ();
  g_autoptr(KmSkeleton) skel = NULL;
  g_autoptr(KmAnimation) animation = NULL;
  g_autoptr(KmBodyMotion) motion = NULL;
  g_autoptr(GError) error = NULL;
  guint arm;

  km_skeleton_builder_add_joint (builder, "base", KM_JOINT_FIXED, NULL);
  arm = km_skeleton_builder_add_joint (builder, "arm", KM_JOINT_REVOLUTE, "base");
  km_skeleton_builder_set_axis (builder, arm, km_vec3 (0, 0, 1));
  km_skeleton_builder_set_joint_id (builder, arm, 20000);
  skel = km_skeleton_builder_build (builder, NULL, &error);
  g_assert_no_error (error);
  animation = distinct_animation (skel, 2);
  motion = km_body_motion_new_from_animation (skel, animation, 30, NULL, &error);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT);
  g_assert_null (motion);
}

/* A rate below the least the reader takes (a frame every 1000 s) makes no motion: nothing
 * is written that could not be read back (rev23-cli finding 3); the least rate does, and
 * reads back. */
static void
test_from_animation_slow (void)
{
  static const double rates[] = { 1e-320, 4.9e-324, 1e-300, 0.0009 };
  g_autoptr(KmSkeleton) skel = load_sr1 ();
  g_autoptr(KmAnimation) animation = distinct_animation (skel, 2);
  g_autoptr(KmBodyMotion) motion = NULL;
  g_autoptr(KmBodyMotion) again = NULL;
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (rates); i++)
    {
      motion = km_body_motion_new_from_animation (skel, animation, rates[i], NULL, &error);
      g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT);
      g_assert_null (motion);
      g_clear_error (&error);
      g_assert_false (km_body_motion_check_size (skel, rates[i], 2, &error));
      g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT);
      g_clear_error (&error);
    }
  motion = km_body_motion_new_from_animation (skel, animation, 0.001, NULL, &error);
  g_assert_no_error (error);
  again = write_and_read (motion, NULL);
  g_assert_cmpfloat (km_body_motion_get_duration (again), ==, 1000);
}

/* Both read-only motion items share KmMotionFileItem: what each restored is the base's. */
/* A body motion item's message about its file names the file as every location names a
 * file (km_parse_shown_file()): it reads back (km_parse_read_location()) to the file's
 * own name, colon, space, line break and stray byte included, and stays valid UTF-8. */
static void
test_item_escaped_file (void)
{
  static const char odd[] = "dir/w:a l\nk\xff.seq";
  g_autoptr(KmBodyMotion) motion = load ("sr1-v1.seq");
  g_autoptr(KmItem) item = km_body_motion_item_new_for_file (odd, motion);
  g_autofree char *message = km_body_motion_item_check_fit (KM_BODY_MOTION_ITEM (item));
  g_autofree char *file = NULL;
  KmSourcePos pos;
  const char *rest;

  g_assert_nonnull (message);
  g_test_message ("%s", message);
  g_assert_true (g_utf8_validate (message, -1, NULL));
  if (!km_parse_read_location (message, &file, &pos, &rest))
    g_error ("no location in “%s”", message);
  g_assert_cmpstr (file, ==, odd);
  g_assert_cmpuint (pos.line, ==, 0);
  g_assert_true (g_str_has_prefix (rest, "the body motion has no body item above it"));
}

static void
test_motion_file_item (void)
{
  g_autofree char *path = data_path ("sr1-motion.cnoid");
  g_autofree char *pose_seq_path = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "share",
                                                          "project", "SR1WalkEdit.cnoid",
                                                          NULL);
  g_autoptr(KmProject) project = load_project (path);
  g_autoptr(KmProject) pose_seq_project = load_project (pose_seq_path);
  KmItem *motion = km_project_find_item_by_id (project, 3);
  KmItem *pose_seq = km_project_find_item_by_id (pose_seq_project, 4);

  g_assert_true (G_TYPE_IS_ABSTRACT (KM_TYPE_MOTION_FILE_ITEM));
  g_assert_true (KM_IS_BODY_MOTION_ITEM (motion));
  g_assert_true (KM_IS_MOTION_FILE_ITEM (motion));
  g_assert_cmpstr (km_motion_file_item_get_file (KM_MOTION_FILE_ITEM (motion)), ==,
                   "sr1-walk.seq");
  /* The file any item stands for, through KmItemClass.get_file: the motion's; its body's;
   * none for the world (an item of no file). */
  g_assert_cmpstr (km_item_get_file (motion), ==, "sr1-walk.seq");
  g_assert_cmpstr (km_item_get_file (km_project_find_item_by_id (project, 2)), ==,
                   km_body_item_get_file (KM_BODY_ITEM (km_project_find_item_by_id (project, 2))));
  g_assert_nonnull (km_item_get_file (km_project_find_item_by_id (project, 2)));
  g_assert_null (km_item_get_file (km_project_find_item_by_id (project, 1)));
  g_assert_cmpstr (km_motion_file_item_get_format (KM_MOTION_FILE_ITEM (motion)), ==,
                   "CHOREONOID-BODY-MOTION-YAML");
  g_assert_true (km_motion_file_item_get_body (KM_MOTION_FILE_ITEM (motion)) ==
                 km_project_find_item_by_id (project, 2));
  g_assert_nonnull (km_motion_file_item_get_animation (KM_MOTION_FILE_ITEM (motion)));
  g_assert_true (km_motion_file_item_get_animation (KM_MOTION_FILE_ITEM (motion)) ==
                 km_body_motion_item_get_animation (KM_BODY_MOTION_ITEM (motion)));

  g_assert_true (KM_IS_POSE_SEQ_ITEM (pose_seq));
  g_assert_true (KM_IS_MOTION_FILE_ITEM (pose_seq));
  g_assert_cmpstr (km_motion_file_item_get_file (KM_MOTION_FILE_ITEM (pose_seq)), ==,
                   "motion/SR1/SR1WalkPattern2.pseq");
  g_assert_cmpstr (km_item_get_file (pose_seq), ==, "motion/SR1/SR1WalkPattern2.pseq");
  g_assert_cmpstr (km_motion_file_item_get_format (KM_MOTION_FILE_ITEM (pose_seq)), ==,
                   "POSE-SEQ-YAML");
  g_assert_nonnull (km_pose_seq_item_get_pose_seq (KM_POSE_SEQ_ITEM (pose_seq)));
  g_assert_nonnull (km_motion_file_item_get_body (KM_MOTION_FILE_ITEM (pose_seq)));
  g_assert_true (km_motion_file_item_get_body (KM_MOTION_FILE_ITEM (pose_seq)) ==
                 km_pose_seq_item_get_body (KM_POSE_SEQ_ITEM (pose_seq)));
}

/* A chain of @n revolute joints under a fixed root, without joint ids (one value each). */
static KmSkeleton *
chain_skeleton (guint n)
{
  g_autoptr(GString) json = g_string_new ("{\"root_name\": \"R\", \"joints\": [{\"name\": "
                                          "\"R\", \"type\": \"fixed\", \"offset\": [0, 0, 0]}");
  g_autoptr(GError) error = NULL;
  KmSkeleton *skeleton;

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *parent = i == 0 ? g_strdup ("R") : g_strdup_printf ("J%u", i - 1);

      g_string_append_printf (json, ", {\"name\": \"J%u\", \"type\": \"revolute\", "
                              "\"parent\": \"%s\", \"offset\": [0, 0, 0.01], "
                              "\"axis\": [0, 1, 0], \"limits\": [-3, 3]}", i, parent);
    }
  g_string_append (json, "]}");
  skeleton = km_skeleton_json_load ("chain.json", json->str, json->len, &error);
  g_assert_no_error (error);
  return skeleton;
}

/* km_body_motion_check_size() counts what the reader counts (rev21 finding 4): per frame
 * 1 + 1000 joint values and 9 for the root link, so 67000 frames of a 1000-joint chain
 * (67 670 000 numbers and lists, 201 MB) are more than it reads (67108864), though their
 * joint values alone (67 000 000) and their bytes are not; 66442 frames (67 106 420) are
 * read. More frames than the reader takes are refused too, and a model with more joint
 * values than a body motion holds as the writer refuses it. Each message names the limit
 * exceeded, with its value. */
static void
test_check_size (void)
{
  g_autoptr(KmSkeleton) chain = chain_skeleton (1000);
  g_autoptr(KmSkeleton) one = chain_skeleton (1);
  g_autoptr(KmSkeleton) wide = chain_skeleton (KM_BODY_MOTION_MAX_PARTS + 1);
  g_autoptr(GError) error = NULL;

  g_assert_true (km_body_motion_check_size (chain, 30, 0, &error));
  g_assert_true (km_body_motion_check_size (chain, 30, 66442, &error));
  g_assert_no_error (error);
  g_assert_false (km_body_motion_check_size (chain, 30, 67000, &error));
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT);
  g_assert_cmpstr (error->message, ==, "a body motion of 67000 frames for this model would be "
                                       "larger than Kinema reads back (at most 67108864 "
                                       "numbers and lists)");
  g_clear_error (&error);

  g_assert_true (km_body_motion_check_size (one, 1e6, KM_BODY_MOTION_MAX_FRAMES, &error));
  g_assert_no_error (error);
  g_assert_false (km_body_motion_check_size (one, 1e6, KM_BODY_MOTION_MAX_FRAMES + 1,
                                             &error));
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT);
  /* The limit exceeded is the one named: the frames, not the 11 numbers and lists a
   * frame (11 000 022 in all) nor its bytes. */
  g_assert_cmpstr (error->message, ==, "a body motion of 1000002 frames for this model would "
                                       "be larger than Kinema reads back (at most 1000001 "
                                       "frames)");
  g_clear_error (&error);

  g_assert_false (km_body_motion_check_size (wide, 30, 1, &error));
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT);
}

/* Reads the pipe end @data until its writers are gone: the number of bytes read. */
static gpointer
count_pipe (gpointer data)
{
  int fd = GPOINTER_TO_INT (data);
  gsize n = 0;
  char buffer[64 * 1024];
  ssize_t r;

  while ((r = read (fd, buffer, sizeof buffer)) != 0)
    if (r > 0)
      n += (gsize) r;
    else
      g_assert_cmpint (errno, ==, EINTR);
  return GSIZE_TO_POINTER (n);
}

/* What km_body_motion_save() writes to a pipe, by its name (/dev/fd/N), read by a thread:
 * the number of bytes, and the error. */
static gsize
save_to_pipe (const KmBodyMotion  *motion,
              GError             **error)
{
  int fds[2];
  GThread *reader;
  g_autofree char *path = NULL;
  gsize n;

  g_assert_cmpint (pipe (fds), ==, 0);
  reader = g_thread_new ("pipe", count_pipe, GINT_TO_POINTER (fds[0]));
  path = g_strdup_printf ("/dev/fd/%d", fds[1]);
  km_body_motion_save (motion, path, error);
  close (fds[1]);
  n = GPOINTER_TO_SIZE (g_thread_join (reader));
  close (fds[0]);
  return n;
}

/* A motion whose text is more bytes than Kinema reads back (here its frames are few, but
 * another key holds a 2 MiB string 130 times, through an alias), saved to a pipe, which
 * keeps what it is given: refused with nothing written (rev25-code finding 6), as before
 * the text was written as it is made. A motion within the limit goes through whole. */
static void
test_save_in_place_too_long (void)
{
  static const char head[] = "type: MultiValueSeq\ncontent: JointDisplacement\n"
                             "frameRate: 30\nnumFrames: 1\nnumParts: 1\nframes:\n"
                             "  - [ 0.5 ]\nextra:\n";
  g_autoptr(GString) text = g_string_new (head);
  g_autofree char *value = g_strnfill (2 * 1024 * 1024, 'a');
  g_autoptr(KmBodyMotion) small = NULL;
  g_autoptr(KmBodyMotion) large = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *small_text = NULL;
  gsize small_length = 0;

  small = load_text (head, &error);
  g_assert_no_error (error);
  small_text = km_body_motion_to_string (small, &small_length);
  g_assert_cmpuint (save_to_pipe (small, &error), ==, small_length);
  g_assert_no_error (error);

  g_string_append_printf (text, "  - &a %s\n", value);
  for (guint i = 1; i < 130; i++)
    g_string_append (text, "  - *a\n");
  large = load_text (text->str, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (save_to_pipe (large, &error), ==, 0);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT);
  g_assert_true (g_str_has_suffix (error->message, "(at most 256 MiB)"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/kinema/BodyMotion/parse-v2", test_parse_v2);
  g_test_add_func ("/kinema/BodyMotion/parse-v1", test_parse_v1);
  g_test_add_func ("/kinema/BodyMotion/parse-snake-case", test_parse_snake_case);
  g_test_add_func ("/kinema/BodyMotion/bad-inputs", test_bad_inputs);
  g_test_add_func ("/kinema/BodyMotion/long", test_long);
  g_test_add_func ("/kinema/BodyMotion/frames-tables", test_frames_tables);
  g_test_add_func ("/kinema/BodyMotion/registry", test_registry);
  g_test_add_func ("/kinema/BodyMotion/write", test_write);
  g_test_add_func ("/kinema/BodyMotion/from-animation", test_from_animation);
  g_test_add_func ("/kinema/BodyMotion/from-animation-skeleton-json",
                   test_from_animation_skeleton_json);
  g_test_add_func ("/kinema/BodyMotion/from-animation-mimic", test_from_animation_mimic);
  g_test_add_func ("/kinema/BodyMotion/from-animation-too-large", test_from_animation_too_large);
  g_test_add_func ("/kinema/BodyMotion/from-animation-slow", test_from_animation_slow);
  g_test_add_func ("/kinema/BodyMotionItem/play", test_item);
  g_test_add_func ("/kinema/BodyMotionItem/save", test_save);
  g_test_add_func ("/kinema/BodyMotionItem/missing-and-bad", test_missing_and_bad);
  g_test_add_func ("/kinema/MotionFileItem/restored", test_motion_file_item);
  g_test_add_func ("/kinema/BodyMotionItem/escaped-file", test_item_escaped_file);
  g_test_add_func ("/kinema/BodyMotion/check-size", test_check_size);
  g_test_add_func ("/kinema/BodyMotion/save-in-place-too-long", test_save_in_place_too_long);

  return g_test_run ();
}
