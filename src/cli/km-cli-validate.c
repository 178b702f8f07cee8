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

/* The body handlers a model names, loaded as `info` and `solve` load them: each one that
 * is missing, refused or fails is a warning, located where the model names it (the file
 * alone when that is not known). Returns how many. */
static guint
warn_handlers (const char *path,
               const char *shown,
               gpointer    skeleton)
{
  g_autoptr(KmBodyHandlerSet) set = NULL;
  g_autofree char *dir = g_path_get_dirname (path);
  guint n = 0;

  set = km_body_handler_loader_attach (km_body_handler_loader_get_default (), skeleton, NULL,
                                       dir);
  for (guint i = 0; i < km_body_handler_set_get_n_reports (set); i++)
    {
      const KmBodyHandlerReport *r = km_body_handler_set_get_report (set, i);
      g_auto(GStrv) lines = NULL;
      g_autofree char *text = NULL;

      if (r->status == KM_BODY_HANDLER_ATTACHED)
        continue;
      /* One line: a handler's own messages (initialize's log) joined by "; ". */
      lines = g_strsplit (r->message, "\n", -1);
      text = g_strjoinv ("; ", lines);
      km_cli_print_warning_at (r->location != NULL ? r->location : shown, text);
      n++;
    }
  return n;
}

/*
 * kinema-cli validate [--format NAME] FILE…
 * stdout: "FILE: ok (FORMAT)" per valid file ("FILE: ok (FORMAT) with N warnings" when
 * it loads with warnings); stderr: one message per bad file, warnings (a model's body
 * handlers are loaded as `info` loads them: one that is missing, refused or fails is a
 * warning located where the model names it).
 * Exit 0 when every file is valid, 1 otherwise, 2 on wrong usage.
 */
int
km_cli_validate (int    argc,
                 char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autofree char *format_name = NULL;
  int status = KM_CLI_EXIT_OK;
  int parsed;
  const GOptionEntry entries[] = {
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format_name,
      N_("Read every file as format NAME instead of detecting it"), N_("NAME") },
    { NULL }
  };

  context = g_option_context_new (N_("FILE… — check that files are valid"));
  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  km_cli_add_model_options (context);
  g_option_context_set_description (context,
                                    N_("Each file’s type comes from its content unless --format "
                                      "names one. A file that loads with warnings (printed as "
                                      "“FILE:LINE:COLUMN: warning: …”) is valid, and its line "
                                      "says “ok (FORMAT) with N warnings”. Exit status: 0 when "
                                      "every file is valid, 1 when one is not, 2 on wrong "
                                      "usage."));

  parsed = km_cli_parse_options (context, &argc, &argv);
  if (parsed >= 0)
    return parsed;
  if (argc < 2)
    return km_cli_usage_error (context, _("no file given"));
  parsed = km_cli_check_format (context, format_name);
  if (parsed >= 0)
    return parsed;

  for (int i = 1; i < argc; i++)
    {
      g_autoptr(GError) error = NULL;
      const KmFormat *format = NULL;
      g_autofree char *shown = NULL;
      guint n_warnings = 0;
      gpointer result;

      km_parse_warnings_push (km_cli_print_warning, &n_warnings);
      result = km_format_load_model_file_full (argv[i], format_name, km_cli_load_options (),
                                               &format, NULL, &error);
      km_parse_warnings_pop ();

      if (result == NULL)
        {
          fprintf (stderr, "%s\n", error->message);
          status = KM_CLI_EXIT_INVALID;
          continue;
        }
      /* Never translated: scripts and tests parse it. A file the loader accepts is valid
       * (it opens in the editor), but the line says when it has warnings (on stderr,
       * "FILE:LINE:COLUMN: warning: …"): what it names may be missing or left out. FILE
       * as the messages show it, one line. */
      shown = km_parse_shown_file (argv[i]);
      if (format->kind == KM_FILE_KIND_MODEL)
        n_warnings += warn_handlers (argv[i], shown, result);
      if (n_warnings == 0)
        printf ("%s: ok (%s)\n", shown, format->name);
      else
        printf ("%s: ok (%s) with %u warning%s\n", shown, format->name, n_warnings,
                n_warnings == 1 ? "" : "s");
      format->free_result (result);
    }
  return status;
}
