/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 *
 * libFuzzer target: the targets.json loader (km-targets-json.h).
 */

#include "config.h"

#include "fuzz-common.h"
#include "km-targets-json.h"
#include "km-target-track.h"

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  fuzz_init_logging ();
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GBytes) bytes = g_bytes_new (data, size);
  g_autoptr(GError) error = NULL;
  KmTargetTrack *track;

  track = km_targets_json_load ("fuzz.json", bytes, &error);
  g_assert ((track == NULL) != (error == NULL));
  if (track != NULL)
    {
      g_autofree char *text = km_targets_json_to_string (track);
      g_autoptr(GBytes) again_bytes = g_bytes_new (text, strlen (text));
      g_autoptr(GError) error2 = NULL;
      KmTargetTrack *again = km_targets_json_load ("again.json", again_bytes, &error2);

      if (again == NULL)
        g_error ("written targets do not read back: %s\n%s", error2->message, text);
      km_target_track_unref (again);
      km_target_track_unref (track);
    }
  return 0;
}
