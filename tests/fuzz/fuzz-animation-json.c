/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 *
 * libFuzzer target: the animation.json loader (km-animation-json.h), once on its own and
 * once against a skeleton (tests/data/skeleton-extras.json), which checks joint names and
 * value counts.
 */

#include "config.h"

#include "fuzz-common.h"
#include "km-animation-json.h"
#include "km-animation.h"
#include "km-format.h"
#include "km-skeleton.h"

static KmSkeleton *fuzz_skeleton;

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  g_autofree char *path = g_build_filename (fuzz_data_dir (), "skeleton-extras.json", NULL);
  g_autoptr(GError) error = NULL;
  const KmFormat *format = NULL;

  fuzz_init_logging ();
  fuzz_skeleton = km_format_load_file (path, "SKELETON-JSON", &format, &error);
  if (fuzz_skeleton == NULL)
    g_error ("%s", error->message);
  return 0;
}

static void
load_once (GBytes     *bytes,
           KmSkeleton *skeleton)
{
  g_autoptr(GError) error = NULL;
  KmAnimation *animation;

  animation = km_animation_json_load ("fuzz.json", bytes, skeleton, &error);
  g_assert ((animation == NULL) != (error == NULL));
  if (animation != NULL)
    {
      g_autofree char *text = km_animation_json_to_string (animation);
      g_autoptr(GBytes) again_bytes = g_bytes_new (text, strlen (text));
      g_autoptr(GError) error2 = NULL;
      KmAnimation *again = km_animation_json_load ("again.json", again_bytes, skeleton,
                                                   &error2);

      if (again == NULL)
        g_error ("written animation does not read back: %s\n%s", error2->message, text);
      km_animation_unref (again);
      km_animation_unref (animation);
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GBytes) bytes = g_bytes_new (data, size);

  load_once (bytes, NULL);
  load_once (bytes, fuzz_skeleton);
  return 0;
}
