/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 *
 * libFuzzer target: the Choreonoid body motion reader (km-body-motion.h): load, describe,
 * sample the joints and links at a few times, then write → read back, which must give the
 * same header and the same joint values (they are written with the digits that read back
 * exactly; link poses may go through roll-pitch-yaw, so only their count is compared).
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "fuzz-common.h"
#include "km-body-motion.h"

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  fuzz_init_logging ();
  return 0;
}

/* Before the start, the first frame, between frames, the end and past it. */
static void
sample (const KmBodyMotion *motion)
{
  double duration = km_body_motion_get_duration (motion);
  const double times[] = { -1, 0, duration * 0.37, duration, duration + 1 };
  guint n_joints = km_body_motion_get_n_joints (motion);
  guint n_links = km_body_motion_get_n_links (motion);
  g_autofree double *q = g_new0 (double, MAX (n_joints, 1));

  for (guint i = 0; i < G_N_ELEMENTS (times); i++)
    {
      KmTransform pose;

      (void) km_body_motion_sample_joints (motion, times[i], q);
      for (guint link = 0; link < MIN (n_links, 3); link++)
        g_assert (km_body_motion_sample_link (motion, times[i], link, &pose));
      g_assert (!km_body_motion_sample_link (motion, times[i], n_links, &pose));
    }
}

static gboolean
same_number (double a,
             double b)
{
  return a == b || (isnan (a) && isnan (b));
}

static void
check_round_trip (const KmBodyMotion *motion)
{
  gsize length = 0;
  g_autofree char *text = km_body_motion_to_string (motion, &length);
  g_autoptr(GBytes) bytes = g_bytes_new (text, length);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmBodyMotion) again = km_body_motion_load ("again.seq", bytes, &error);
  guint n_frames, n_joints;

  if (again == NULL)
    g_error ("a written body motion does not read back: %s\n%s", error->message, text);
  n_frames = km_body_motion_get_n_frames (motion);
  n_joints = km_body_motion_get_n_joints (motion);
  if (km_body_motion_get_n_frames (again) != n_frames ||
      km_body_motion_get_frame_rate (again) != km_body_motion_get_frame_rate (motion) ||
      km_body_motion_get_n_joints (again) != n_joints ||
      km_body_motion_get_n_links (again) != km_body_motion_get_n_links (motion))
    g_error ("a written body motion reads back with another header:\n%s", text);
  for (guint f = 0; f < n_frames && n_joints > 0; f++)
    {
      const double *a = km_body_motion_get_joint_frame (motion, f);
      const double *b = km_body_motion_get_joint_frame (again, f);

      for (guint j = 0; j < n_joints; j++)
        if (!same_number (a[j], b[j]))
          g_error ("frame %u joint %u: %.17g written, %.17g read back:\n%s", f, j, a[j], b[j],
                   text);
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GBytes) bytes = g_bytes_new (data, size);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmBodyMotion) motion = NULL;
  g_autoptr(GString) out = g_string_new (NULL);

  (void) km_body_motion_sniff ((const char *) data, size);
  motion = km_body_motion_load ("fuzz.seq", bytes, &error);
  g_assert ((motion == NULL) != (error == NULL));
  if (motion == NULL)
    return 0;
  km_body_motion_describe (motion, out);
  g_assert (out->len > 0);
  sample (motion);
  check_round_trip (motion);
  return 0;
}
