/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 *
 * libFuzzer target: the Scenebuilder XML loader (km-scenebuilder.h). The input's path is
 * tests/data/scenebuilder/fuzz.xml, so that import/module references the seeds make reach
 * the real fixtures (and "fuzz.xml" itself is not there: a self-import fails cleanly).
 */

#include "config.h"

#include "fuzz-common.h"
#include "km-scenebuilder.h"
#include "km-skeleton-json.h"
#include "km-skeleton.h"

static char *fuzz_path;

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  fuzz_init_logging ();
  fuzz_path = g_build_filename (fuzz_data_dir (), "scenebuilder", "fuzz.xml", NULL);
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GError) error = NULL;
  KmScenebuilderModel *model;

  (void) km_scenebuilder_sniff ((const char *) data, size);
  model = km_scenebuilder_load (fuzz_path, (const char *) data, size, &error);
  g_assert ((model == NULL) != (error == NULL));
  if (model != NULL)
    {
      g_autoptr(GString) out = g_string_new (NULL);

      km_skeleton_json_describe (model->skeleton, out);
      km_scenebuilder_model_free (model);
    }
  return 0;
}
