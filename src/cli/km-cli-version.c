/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "kinema-cli"

#include "config.h"

#include <stdio.h>
#include <glib.h>

#include "km-cli.h"
#include "km-cli-commands.h"

/*
 * kinema-cli version
 * stdout: "kinema-cli VERSION". An option or an argument is wrong usage (exit 2), as for
 * every command.
 */
int
km_cli_version (int    argc,
                char **argv)
{
  g_autoptr(GOptionContext) context = g_option_context_new (NULL);
  int parsed;

  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  parsed = km_cli_parse_options_plain (context, &argc, &argv);
  if (parsed < 0)
    parsed = km_cli_check_no_arguments (context, argc);
  if (parsed >= 0)
    return parsed;
  printf ("kinema-cli %s\n", PACKAGE_VERSION);
  return KM_CLI_EXIT_OK;
}
