/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 *
 * libFuzzer target: the generic JSON reader (km-json.h).
 */

#include "config.h"

#include "fuzz-common.h"
#include "km-json.h"

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
  KmJsonDocument *doc;

  doc = km_json_parse ("fuzz.json", (const char *) data, size, &error);
  g_assert ((doc == NULL) != (error == NULL));
  if (doc != NULL)
    km_json_document_free (doc);
  /* The sniffers run on every file the user opens. */
  (void) km_json_sniff_first_char ((const char *) data, size);
  (void) km_json_sniff_has_key ((const char *) data, size, "joints", 1);
  return 0;
}
