/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 *
 * libFuzzer target: the skeleton.json loader (km-skeleton-json.h).
 */

#include "config.h"

#include "fuzz-common.h"
#include "km-skeleton-json.h"
#include "km-skeleton.h"

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
  g_autoptr(GError) error = NULL;
  KmSkeleton *skeleton;

  skeleton = km_skeleton_json_load ("fuzz.json", (const char *) data, size, &error);
  g_assert ((skeleton == NULL) != (error == NULL));
  if (skeleton != NULL)
    {
      g_autofree char *text = km_skeleton_json_to_string (skeleton);
      g_autoptr(GError) error2 = NULL;
      KmSkeleton *again;

      /* What we write must read back. */
      again = km_skeleton_json_load ("again.json", text, strlen (text), &error2);
      if (again == NULL)
        g_error ("written skeleton does not read back: %s\n%s", error2->message, text);
      g_assert_cmpuint (km_skeleton_get_n_joints (again), ==,
                        km_skeleton_get_n_joints (skeleton));
      km_skeleton_unref (again);
      km_skeleton_unref (skeleton);
    }
  return 0;
}
