/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* One run of the built kinema-cli ($KINEMA_CLI), as a user or a script would run it. */
typedef struct
{
  int   status;  /* exit status */
  char *out;     /* stdout */
  char *err;     /* stderr */
} Run;

void run_clear (Run        *run);
void run_cli   (Run        *run,
                const char *cwd,
                ...) G_GNUC_NULL_TERMINATED;

char *copy_file_to          (const char *source,
                             const char *dir,
                             const char *name);
void  assert_output_refused (const Run  *run,
                             const char *output,
                             const char *contents);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Run, run_clear)

G_END_DECLS
