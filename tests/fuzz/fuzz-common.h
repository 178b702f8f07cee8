/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 *
 * Shared set-up of the libFuzzer targets (tests/fuzz/README.md). Every target includes
 * this once: it silences the loaders' warnings (bad input is expected to warn) but turns
 * a critical (a failed g_return_if_fail, i.e. a bug) or an error into an abort, so that
 * libFuzzer reports it as a crash.
 */

#pragma once

#include <glib.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput (const uint8_t *data,
                            size_t         size);
int LLVMFuzzerInitialize   (int           *argc,
                            char        ***argv);

static GLogWriterOutput
fuzz_log_writer (GLogLevelFlags   log_level,
                 const GLogField *fields,
                 gsize            n_fields,
                 gpointer         user_data)
{
  if (log_level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL))
    {
      g_log_writer_standard_streams (log_level, fields, n_fields, user_data);
      abort ();
    }
  return G_LOG_WRITER_HANDLED;
}

static void
fuzz_log_handler (const char     *log_domain,
                  GLogLevelFlags  log_level,
                  const char     *message,
                  gpointer        user_data)
{
  if (log_level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL))
    {
      g_printerr ("%s: %s\n", log_domain ? log_domain : "", message);
      abort ();
    }
}

static void
fuzz_init_logging (void)
{
  g_log_set_writer_func (fuzz_log_writer, NULL, NULL);
  g_log_set_default_handler (fuzz_log_handler, NULL);
  g_log_set_always_fatal (0);
}

/* The fixture directory (tests/data in the source tree), for files an input refers to. */
static inline const char *
fuzz_data_dir (void)
{
  return FUZZ_DATA_DIR;
}
