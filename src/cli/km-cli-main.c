/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "kinema-cli"

#include "config.h"

#include <locale.h>
#include <stdio.h>
#include <string.h>
#include <glib/gi18n.h>

#include "km-cli.h"
#include "km-cli-commands.h"
#include "km-body-handler.h"
#include "km-error.h"
#include "km-format.h"
#include "km-ik.h"
#include "km-json.h"

static const KmCliCommand commands[] = {
#define KM_CLI_COMMAND(name, summary, func) { name, summary, func },
#include "km-cli-commands.inc"
#undef KM_CLI_COMMAND
};

static void
print_usage (FILE *stream)
{
  fprintf (stream, "%s\n\n", _("Usage: kinema-cli COMMAND [OPTION…] [ARGUMENT…]"));
  fprintf (stream, "%s\n", _("Commands:"));
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (stream, "  %-10s %s\n", commands[i].name, _(commands[i].summary));
  fprintf (stream, "\n%s\n", _("Run “kinema-cli COMMAND --help” for a command’s options."));
}

/* Prints the usage error and the context's help on stderr. */
int
km_cli_usage_error (GOptionContext *context,
                    const char     *message)
{
  g_autofree char *help = NULL;

  if (message != NULL)
    fprintf (stderr, "kinema-cli: %s\n", message);
  if (context != NULL)
    {
      help = g_option_context_get_help (context, TRUE, NULL);
      fputs (help, stderr);
    }
  return KM_CLI_EXIT_USAGE;
}

/* Parses options; on an error prints it and returns KM_CLI_EXIT_USAGE, else -1. */
int
km_cli_parse_options (GOptionContext   *context,
                      int              *argc,
                      char           ***argv)
{
  g_autoptr(GError) error = NULL;

  if (!g_option_context_parse (context, argc, argv, &error))
    return km_cli_usage_error (context, error->message);
  return -1;
}

/* Returns KM_CLI_EXIT_USAGE after saying so when @format_name names no format, else -1. */
int
km_cli_check_format (GOptionContext *context,
                     const char     *format_name)
{
  g_autofree char *names = NULL;
  g_autofree char *message = NULL;

  if (format_name == NULL || km_format_lookup (format_name) != NULL)
    return -1;

  names = km_format_list_names ();
  /* Translators: the second %s is a comma-separated list of format names */
  message = g_strdup_printf (_("unknown format “%s” (known formats: %s)"), format_name, names);
  return km_cli_usage_error (context, message);
}

/* The length of the location prefix of a loader's message, "FILE:LINE:COLUMN: " (the
 * first such on its first line) or else "FILE: "; 0 when it has none. */
static gsize
location_prefix_length (const char *message)
{
  const char *end = strchr (message, '\n');
  gsize line_len = end != NULL ? (gsize) (end - message) : strlen (message);
  const char *colon_space = NULL;

  for (gsize i = 0; i < line_len; i++)
    {
      gsize j = i + 1;
      gsize digits;

      if (message[i] != ':')
        continue;
      if (colon_space == NULL && i + 1 < line_len && message[i + 1] == ' ')
        colon_space = message + i;
      for (digits = 0; j < line_len && g_ascii_isdigit (message[j]); j++)
        digits++;
      if (digits == 0 || j >= line_len || message[j] != ':')
        continue;
      for (digits = 0, j++; j < line_len && g_ascii_isdigit (message[j]); j++)
        digits++;
      if (digits > 0 && j + 1 < line_len && message[j] == ':' && message[j + 1] == ' ')
        return j + 2;
    }
  return colon_space != NULL ? (gsize) (colon_space - message) + 2 : 0;
}

/* Prints a located warning on stderr as "FILE:LINE:COLUMN: warning: message" (the
 * word, like the message, translated; the prefix never). */
void
km_cli_print_warning_at (const char *location,
                         const char *text)
{
  g_return_if_fail (text != NULL);

  if (location != NULL)
    fprintf (stderr, "%s: ", location);
  /* Translators: the word that starts a warning on the command line, as in
   * "model.json:4:3: warning: unknown key “comment” ignored" */
  fprintf (stderr, "%s: %s\n", _("warning"), text);
}

/* A KmParseWarningFunc: loaders' located warnings ("FILE:LINE:COLUMN: message") go to
 * stderr with "warning: " after the location. @user_data: NULL, or a guint that counts
 * them. */
void
km_cli_print_warning (const char *message,
                      gpointer    user_data)
{
  gsize prefix = location_prefix_length (message);
  g_autofree char *location = NULL;

  if (user_data != NULL)
    (*(guint *) user_data)++;
  if (prefix >= 2)
    location = g_strndup (message, prefix - 2);
  km_cli_print_warning_at (location, message + prefix);
}

/*
 * Says on stderr that @output could not be written, as every command says it:
 * "kinema-cli: OUTPUT: reason" (the writers' messages, “OUTPUT: cannot write the file:
 * REASON”, already start with the path; others get it). Not as "INPUT: …", which reads
 * like a fault in the input, nor under the command's name.
 */
void
km_cli_print_write_error (const char   *output,
                          const GError *error)
{
  gsize length;

  g_return_if_fail (output != NULL && error != NULL);

  length = strlen (output);
  if (strncmp (error->message, output, length) == 0 && error->message[length] == ':')
    fprintf (stderr, "kinema-cli: %s\n", error->message);
  else
    fprintf (stderr, "kinema-cli: %s: %s\n", output, error->message);
}

/* Where the targets file @path names its effector: the first keyframe's "effector" value
 * (the loader made every other one agree); line 0 when it cannot tell (not a targets.json
 * file, or changed since). Only for a message: the track keeps no positions. */
static KmSourcePos
find_effector_value (const char *path)
{
  g_autoptr(GBytes) bytes = km_format_read_file (path, KM_JSON_MAX_SIZE, NULL);
  g_autoptr(KmJsonDocument) doc = NULL;
  const KmJsonNode *root;
  gsize length;
  const char *data;

  if (bytes == NULL)
    return (KmSourcePos) { 0, 0 };
  data = g_bytes_get_data (bytes, &length);
  doc = km_json_parse (path, data, length, NULL);
  root = doc != NULL ? km_json_document_get_root (doc) : NULL;
  for (guint i = 0; root != NULL && i < km_json_node_get_length (root); i++)
    {
      const KmJsonNode *value = km_json_node_get_member (km_json_node_get_element (root, i),
                                                         "effector");

      if (value != NULL)
        return km_json_node_get_pos (value);
    }
  return (KmSourcePos) { 0, 0 };
}

/*
 * An error about the effector a targets file names (@message): at its value in
 * @targets_path, "FILE:LINE:COLUMN: …" (KM_PARSE_ERROR) like a loader's; else, when there
 * is no file (nullable: the embedded default targets, a model's own IK target) or the
 * value cannot be found, unlocated (KM_IK_ERROR), for the caller to prefix.
 */
void
km_cli_set_effector_error (const char  *targets_path,
                           const char  *message,
                           GError     **error)
{
  KmSourcePos pos = { 0, 0 };

  if (targets_path != NULL)
    pos = find_effector_value (targets_path);
  if (pos.line > 0)
    km_parse_error_set (error, KM_PARSE_ERROR_INVALID, targets_path, pos, "%s", message);
  else
    g_set_error_literal (error, KM_IK_ERROR, KM_IK_ERROR_INVALID, message);
}

/*
 * The joint of @skeleton (@model_label in messages: the model file as given) that the
 * effector @track names is (a joint's or a link's name, km_skeleton_find_effector()), or
 * -1 with @error (km_cli_set_effector_error(), located in @targets_path) when it has none
 * of that name. The track must name one. Every command that solves a targets file for a
 * model says it so, `solve` and `bench-ik` alike.
 */
int
km_cli_find_track_effector (KmSkeleton          *skeleton,
                            const KmTargetTrack *track,
                            const char          *targets_path,
                            const char          *model_label,
                            GError             **error)
{
  const char *name = km_target_track_get_effector (track);
  g_autofree char *message = NULL;
  int effector;

  g_return_val_if_fail (name != NULL, -1);

  effector = km_skeleton_find_effector (skeleton, name);
  if (effector >= 0)
    return effector;
  /* Translators: the first %s is a model file (or "the default skeleton"). */
  message = g_strdup_printf (_("%s has no joint or link “%s” to use as the end effector"),
                             model_label, name);
  km_cli_set_effector_error (targets_path, message, error);
  return -1;
}

static gboolean
share_dir_option_cb (const char  *option_name,
                     const char  *value,
                     gpointer     data,
                     GError     **error)
{
  /* The project loader reads the same variable a user may set (DESIGN.md, "Path
   * variables"); the option only takes precedence over it. */
  g_setenv ("KINEMA_CHOREONOID_SHARE", value, TRUE);
  return TRUE;
}

static gboolean
handler_dir_option_cb (const char  *option_name,
                       const char  *value,
                       gpointer     data,
                       GError     **error)
{
  km_body_handler_loader_add_directory (km_body_handler_loader_get_default (), value);
  return TRUE;
}

/* Options of every command that reads models or projects: where their external
 * references resolve (--share-dir for ${SHARE}, --handler-dir for body handlers). */
void
km_cli_add_model_options (GOptionContext *context)
{
  static const GOptionEntry entries[] = {
    { "share-dir", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer) share_dir_option_cb,
      N_("Choreonoid’s share directory, for ${SHARE} in projects"), N_("DIR") },
    { "handler-dir", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer) handler_dir_option_cb,
      N_("Also trust body handlers in DIR (repeatable)"), N_("DIR") },
    { NULL }
  };

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
}

int
main (int    argc,
      char **argv)
{
  const char *name;

  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  if (argc < 2)
    {
      print_usage (stderr);
      return KM_CLI_EXIT_USAGE;
    }

  name = argv[1];
  if (g_str_equal (name, "--help") || g_str_equal (name, "-h") || g_str_equal (name, "help"))
    {
      print_usage (stdout);
      return KM_CLI_EXIT_OK;
    }
  if (g_str_equal (name, "--version"))
    {
      printf ("kinema-cli %s\n", PACKAGE_VERSION);
      return KM_CLI_EXIT_OK;
    }

  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    if (g_str_equal (name, commands[i].name))
      {
        g_autofree char *prgname = g_strconcat ("kinema-cli ", name, NULL);

        /* GOptionContext's "Usage:" line shows the program name. */
        g_set_prgname (prgname);
        return commands[i].run (argc - 1, argv + 1);
      }

  fprintf (stderr, _("kinema-cli: unknown command “%s”\n"), name);
  print_usage (stderr);
  return KM_CLI_EXIT_USAGE;
}
