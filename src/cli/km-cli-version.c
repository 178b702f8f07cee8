/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "kinema-cli"

#include "config.h"

#include <stdio.h>
#include <glib/gi18n.h>

#include "km-cli.h"
#include "km-cli-commands.h"

int
km_cli_version (int    argc,
                char **argv)
{
  printf ("kinema-cli %s\n", PACKAGE_VERSION);
  return KM_CLI_EXIT_OK;
}
