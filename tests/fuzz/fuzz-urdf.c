/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 *
 * libFuzzer target: the URDF loader (km-urdf.h). Mesh references are not followed (the
 * mesh readers have their own target, fuzz-mesh).
 */

#include "config.h"

#include "fuzz-common.h"
#include "km-urdf.h"
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
  KmUrdfOptions options = { .package_paths = NULL, .load_meshes = FALSE };
  g_autoptr(GError) error = NULL;
  KmSkeleton *skeleton;

  (void) km_urdf_sniff ((const char *) data, size);
  skeleton = km_urdf_load ("fuzz.urdf", (const char *) data, size, &options, &error);
  g_assert ((skeleton == NULL) != (error == NULL));
  if (skeleton != NULL)
    km_skeleton_unref (skeleton);
  return 0;
}
