/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 *
 * libFuzzer target: the Choreonoid project loader (km-cnoid.h). The input is the project;
 * its path is tests/data/cnoid/kinema/fuzz.cnoid, so that the references the seeds make
 * (arm.json, targets.json, ../sub/NAME.cnoid, ${SHARE}/model/…) reach the real fixtures and
 * sub-projects are loaded too. Nothing is written.
 */

#include "config.h"

#include "fuzz-common.h"
#include "km-cnoid.h"
#include "km-project.h"

static char *fuzz_path;
static char *fuzz_share;

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  fuzz_init_logging ();
  fuzz_path = g_build_filename (fuzz_data_dir (), "cnoid", "kinema", "fuzz.cnoid", NULL);
  fuzz_share = g_build_filename (fuzz_data_dir (), "cnoid", "share", NULL);
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GBytes) bytes = g_bytes_new (data, size);
  g_autoptr(GError) error = NULL;
  KmProject *project;

  project = km_cnoid_load_full (fuzz_path, bytes, fuzz_share, &error);
  g_assert ((project == NULL) != (error == NULL));
  if (project != NULL)
    {
      gsize length = 0;
      g_autoptr(GError) error2 = NULL;
      g_autofree char *text = km_cnoid_to_string (project, fuzz_path, &length, &error2);
      g_autoptr(GString) out = g_string_new (NULL);

      g_assert ((text == NULL) != (error2 == NULL));
      km_cnoid_describe (project, out);
      g_object_unref (project);
    }
  return 0;
}
