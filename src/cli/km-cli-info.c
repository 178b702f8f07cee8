/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "kinema-cli"

#include "config.h"

#include <stdio.h>
#include <glib/gi18n.h>

#include "km-body-handler.h"
#include "km-cli.h"
#include "km-cli-commands.h"
#include "km-error.h"
#include "km-format.h"

/* For a model: one line per body handler it names (what became of it), inserted before
 * the summary line, which stays last. */
static void
describe_handlers (const char *path,
                   gpointer    result,
                   GString    *out)
{
  g_autoptr(KmBodyHandlerSet) set = NULL;
  g_autoptr(GString) lines = g_string_new (NULL);
  g_autofree char *dir = g_path_get_dirname (path);
  const char *last;
  gsize at;

  set = km_body_handler_loader_attach (km_body_handler_loader_get_default (), result, NULL,
                                       dir);
  km_body_handler_set_describe (set, lines);
  if (lines->len == 0)
    return;
  /* The summary line: after the last newline that is not the final one. */
  at = out->len > 0 && out->str[out->len - 1] == '\n' ? out->len - 1 : out->len;
  last = g_strrstr_len (out->str, (gssize) at, "\n");
  at = last != NULL ? (gsize) (last - out->str) + 1 : 0;
  g_string_insert (out, (gssize) at, lines->str);
}

/*
 * kinema-cli info [--format NAME] FILE
 * stdout: the format's description of the file, ending with its summary line
 * (`joints=N dof=M` for models). Exit 0, 1 when the file is invalid, 2 on wrong usage.
 */
int
km_cli_info (int    argc,
             char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) out = NULL;
  g_autofree char *format_name = NULL;
  gboolean version = FALSE;
  const KmFormat *format = NULL;
  gpointer result;
  int parsed;
  const GOptionEntry entries[] = {
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format_name,
      N_("Read the file as format NAME instead of detecting it"), N_("NAME") },
    { "version", 0, 0, G_OPTION_ARG_NONE, &version, N_("Print the version"), NULL },
    { NULL }
  };

  context = g_option_context_new (N_("FILE — describe a file"));
  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  km_cli_add_model_options (context);
  g_option_context_set_description (context,
                                    N_("For a model: one line per joint, one line per body "
                                      "handler it names (“handler NAME: attached (INTERFACES) "
                                      "from PATH” or “handler NAME: not found|refused|failed: "
                                      "WHY”), then the summary line “joints=N dof=M”."));

  parsed = km_cli_parse_options (context, &argc, &argv);
  if (parsed >= 0)
    return parsed;
  if (version)
    {
      printf ("kinema-cli %s\n", PACKAGE_VERSION);
      return KM_CLI_EXIT_OK;
    }
  if (argc != 2)
    return km_cli_usage_error (context, argc < 2 ? _("no file given")
                                                 : _("exactly one file expected"));
  parsed = km_cli_check_format (context, format_name);
  if (parsed >= 0)
    return parsed;

  km_parse_warnings_push (km_cli_print_warning, NULL);
  result = km_format_load_file (argv[1], format_name, &format, &error);
  km_parse_warnings_pop ();
  if (result == NULL)
    {
      fprintf (stderr, "%s\n", error->message);
      return KM_CLI_EXIT_INVALID;
    }

  out = g_string_new (NULL);
  if (format->describe != NULL)
    format->describe (result, out);
  else
    g_string_append_printf (out, "format=%s\n", format->name);
  if (format->kind == KM_FILE_KIND_MODEL)
    {
      describe_handlers (argv[1], result, out);
    }
  format->free_result (result);
  fputs (out->str, stdout);
  return KM_CLI_EXIT_OK;
}
