/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 *
 * libFuzzer target: the STL, OBJ, VRML and COLLADA mesh readers (km-mesh-loader.h), each
 * on the same input. The path is tests/data/meshes/fuzz.*, so that an OBJ's mtllib reaches
 * the fixture two-colours.mtl.
 */

#include "config.h"

#include "fuzz-common.h"
#include "km-mesh-loader.h"
#include "km-openhrp.h"

static char *fuzz_dir;

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  fuzz_init_logging ();
  fuzz_dir = g_build_filename (fuzz_data_dir (), "meshes", NULL);
  return 0;
}

static void
check (GPtrArray *shapes,
       GError    *error)
{
  g_assert ((shapes == NULL) != (error == NULL));
  if (shapes != NULL)
    g_ptr_array_unref (shapes);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  const char *text = (const char *) data;
  g_autofree char *stl = g_build_filename (fuzz_dir, "fuzz.stl", NULL);
  g_autofree char *obj = g_build_filename (fuzz_dir, "fuzz.obj", NULL);
  g_autofree char *wrl = g_build_filename (fuzz_dir, "fuzz.wrl", NULL);
  g_autofree char *dae = g_build_filename (fuzz_dir, "fuzz.dae", NULL);
  GError *error = NULL;
  GPtrArray *shapes;

  shapes = km_mesh_load_stl (stl, text, size, &error);
  check (shapes, error);
  g_clear_error (&error);
  shapes = km_mesh_load_obj (obj, text, size, &error);
  check (shapes, error);
  g_clear_error (&error);
  shapes = km_mesh_load_vrml (wrl, text, size, NULL, &error);
  check (shapes, error);
  g_clear_error (&error);
  shapes = km_mesh_load_collada (dae, text, size, &error);
  check (shapes, error);
  g_clear_error (&error);
  /* The same VRML parser read as an OpenHRP model: a skeleton or an error, never both. */
  {
    KmSkeleton *skeleton = km_openhrp_load (wrl, text, size, &error);

    g_assert ((skeleton == NULL) != (error == NULL));
    g_clear_pointer (&skeleton, km_skeleton_unref);
    g_clear_error (&error);
  }
  return 0;
}
