/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "kinema-cli"

#include "config.h"

#include <errno.h>
#include <locale.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <gio/gio.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>

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

/* g_print()'s handler while GOptionContext parses: what it prints there is a command's
 * help (--help, -h, -?, --help-all), after which it exits with status 0 itself, whether
 * the help was written or not. Written here as g_print() writes it (in the console's
 * charset), then the command ends as every command ends (km_cli_finish()): a help lost
 * to a full disk or a closed pipe exits 1, said on stderr. */
static void
print_help (const char *text)
{
  const char *charset;
  g_autofree char *converted = NULL;

  if (!g_get_console_charset (&charset))
    converted = g_convert_with_fallback (text, -1, charset, "UTF-8", "?", NULL, NULL, NULL);
  fputs (converted != NULL ? converted : text, stdout);
  exit (km_cli_finish (KM_CLI_EXIT_OK));
}

/* Parses options; on an error prints it and returns KM_CLI_EXIT_USAGE, else -1. A help
 * option prints the help and exits (print_help()). */
static int
parse_options (GOptionContext   *context,
               int              *argc,
               char           ***argv)
{
  g_autoptr(GError) error = NULL;
  GPrintFunc old_handler;
  gboolean parsed;

  old_handler = g_set_print_handler (print_help);
  parsed = g_option_context_parse (context, argc, argv, &error);
  g_set_print_handler (old_handler);
  if (!parsed)
    return km_cli_usage_error (context, error->message);
  return -1;
}

/* Parses a command's options, with --version, which every command but `version` takes
 * (README): then prints the version and returns KM_CLI_EXIT_OK, whatever else was given
 * (as --help does). Else as parse_options(). */
int
km_cli_parse_options (GOptionContext   *context,
                      int              *argc,
                      char           ***argv)
{
  static gboolean version;
  const GOptionEntry entries[] = {
    { "version", 0, 0, G_OPTION_ARG_NONE, &version, N_("Print the version"), NULL },
    { NULL }
  };
  int status;

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  version = FALSE;
  status = parse_options (context, argc, argv);
  if (status < 0 && version)
    {
      printf ("kinema-cli %s\n", PACKAGE_VERSION);
      return KM_CLI_EXIT_OK;
    }
  return status;
}

/* km_cli_parse_options() without --version, for `version` itself (an option other than
 * --help is wrong usage there). */
int
km_cli_parse_options_plain (GOptionContext   *context,
                            int              *argc,
                            char           ***argv)
{
  return parse_options (context, argc, argv);
}

/* For a command that takes no argument (`version`): KM_CLI_EXIT_USAGE after saying so
 * when @argc (after km_cli_parse_options()) counts one, else -1. */
int
km_cli_check_no_arguments (GOptionContext *context,
                           int             argc)
{
  if (argc > 1)
    return km_cli_usage_error (context, _("no argument expected"));
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

/* Prints a located warning on stderr as "FILE:LINE:COLUMN: warning: message" (the
 * word, like the message, translated; the prefix never). */
void
km_cli_print_warning_at (const char *location,
                         const char *text)
{
  g_return_if_fail (text != NULL);

  /* Not after a progress line's text (a worker's warning while `solve` draws it). */
  km_cli_progress_hold ();
  if (location != NULL)
    fprintf (stderr, "%s: ", location);
  /* Translators: the word that starts a warning on the command line, as in
   * "model.json:4:3: warning: unknown key “comment” ignored" */
  fprintf (stderr, "%s: %s\n", _("warning"), text);
  km_cli_progress_release ();
}

/* A KmParseWarningFunc: loaders' located warnings ("FILE:LINE:COLUMN: message") go to
 * stderr with "warning: " after the location. @user_data: NULL, or a guint that counts
 * them. */
void
km_cli_print_warning (const char *message,
                      gpointer    user_data)
{
  g_autofree char *location = NULL;
  const char *rest = message;

  if (user_data != NULL)
    (*(guint *) user_data)++;
  /* The location as the loader wrote it ("FILE:LINE:COLUMN" or "FILE"), before the
   * ": " (or the line end) that ends it. */
  if (km_parse_read_location (message, NULL, NULL, &rest))
    {
      gsize length = (gsize) (rest - message);

      if (length > 0 && message[length - 1] == '\n')
        length--;
      else if (length >= 2 && message[length - 2] == ':' && message[length - 1] == ' ')
        length -= 2;
      location = g_strndup (message, length);
    }
  km_cli_print_warning_at (location, rest);
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
  g_autofree char *shown = NULL;
  gsize length;

  g_return_if_fail (output != NULL && error != NULL);

  /* OUTPUT as every message shows a file (km_parse_shown_file()). */
  shown = km_parse_shown_file (output);
  length = strlen (shown);
  if (strncmp (error->message, shown, length) == 0 && error->message[length] == ':')
    fprintf (stderr, "kinema-cli: %s\n", error->message);
  else
    fprintf (stderr, "kinema-cli: %s: %s\n", shown, error->message);
}

/*
 * Where a message about the model file @path (as given) as a whole points: "FILE:1:1", as
 * a loader locates what is wrong with a whole file (DESIGN.md, "Error locations"); @label
 * (the embedded default's name) when there is no file (@path NULL).
 */
char *
km_cli_model_location (const char *path,
                       const char *label)
{
  if (path == NULL)
    return g_strdup (label);
  return km_parse_location (path, (KmSourcePos) { 1, 1 });
}

/*
 * Says on stderr, as `solve` and `bench-ik` both say it, that the model @path (as given;
 * NULL: the embedded default, @label) has no joint that moves, located at FILE:1:1, and
 * returns FALSE; TRUE when it has one. Nothing can be solved or timed on such a model.
 */
gboolean
km_cli_check_model_moves (const KmSkeleton *skeleton,
                          const char       *path,
                          const char       *label)
{
  g_autofree char *location = NULL;

  if (km_skeleton_get_n_dof (skeleton) > 0)
    return TRUE;
  location = km_cli_model_location (path, label);
  /* The prefix is never translated. */
  fprintf (stderr, "%s: %s\n", location,
           _("the model has no joint that moves (every joint is fixed): there is nothing "
             "to solve"));
  return FALSE;
}

/*
 * FALSE with "FILE:1:1: expected …" when the file @path holds another kind of file than
 * @kind (a model or a targets file): told from its content before it is loaded, so that
 * a project given for a model or for targets is not loaded in full (its warnings about
 * what it holds printed) only to be refused. `solve` and `bench-ik` both check their
 * files so. A file that is not a regular one (a pipe: read once only) is left to the
 * load, and the check after it (km_cli_set_kind_error()).
 */
gboolean
km_cli_check_kind (const char  *path,
                   KmFileKind   kind,
                   GError     **error)
{
  g_autoptr(GBytes) bytes = NULL;
  const KmFormat *format;
  const char *data;
  gsize length = 0;

  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
    return TRUE;
  bytes = km_format_read_file (path, KM_FORMAT_MAX_FILE_SIZE, NULL);
  data = bytes != NULL ? g_bytes_get_data (bytes, &length) : NULL;
  format = data != NULL ? km_format_detect_for_path (path, data, length) : NULL;
  if (format == NULL || format->kind == kind)
    return TRUE;   /* the load says what is wrong, if anything */
  km_cli_set_kind_error (path, kind, format, error);
  return FALSE;
}

/* The error "FILE:1:1: expected a skeleton or model file, found FORMAT" (or "an IK targets
 * file") for the file @path of @format where @kind (a model or targets) is expected. */
void
km_cli_set_kind_error (const char      *path,
                       KmFileKind       kind,
                       const KmFormat  *format,
                       GError         **error)
{
  if (kind == KM_FILE_KIND_MODEL)
    km_parse_error_set (error, KM_PARSE_ERROR_UNKNOWN, path, (KmSourcePos) { 1, 1 },
                        _("expected a skeleton or model file, found %s"),
                        _(format->description));
  else
    km_parse_error_set (error, KM_PARSE_ERROR_UNKNOWN, path, (KmSourcePos) { 1, 1 },
                        _("expected an IK targets file, found %s"), _(format->description));
}

/*
 * Whether every joint of @problem's skeleton has a finite pose at its seed. Where one has
 * not (offsets of 1e308, each finite, add up to more), the solver refuses the model
 * (km_ik_solve()), and the error is about the model, not the targets: `solve` and
 * `bench-ik` both say it so, at MODEL:1:1.
 */
gboolean
km_cli_seed_pose_is_finite (const KmIkProblem *problem)
{
  guint n = km_skeleton_get_n_joints (problem->skeleton);
  g_autofree KmTransform *world = g_new (KmTransform, MAX (n, 1));

  km_skeleton_forward_kinematics (problem->skeleton, problem->seed, &problem->root_pose, world);
  for (guint j = 0; j < n; j++)
    if (!km_vec3_is_finite (world[j].pos))
      return FALSE;
  return TRUE;
}

/* The kinds of file an output file's extension (in any case) names, and for a kind that
 * a command writes in several formats the one it names: `convert` writes a model in it
 * without --to, and refuses --to with another (as `solve` does for its animations).
 * Writing skeleton.json into "robot.urdf" would only puzzle whoever reads it, and a
 * targets file, a project or an animation written into it would replace the model there
 * (arguments given the wrong way round). Any other name gets what the command writes. */
static const struct
{
  const char *extension;
  guint       kinds;         /* KM_CLI_KIND_BIT()s */
  /* By KmFileKind, the format names `convert --to` and `solve --to` give; NULL for a kind
   * written in one format only (and a model: skeleton.json). */
  const char *formats[KM_FILE_KIND_BODY_MOTION + 1];
  const char *kinds_name;    /* N_(): what the extension is for */
} output_extensions[] = {
  { ".urdf", KM_CLI_KIND_BIT (KM_FILE_KIND_MODEL), { [KM_FILE_KIND_MODEL] = "URDF" },
    N_("models") },
  { ".body", KM_CLI_KIND_BIT (KM_FILE_KIND_MODEL),
    { [KM_FILE_KIND_MODEL] = "CHOREONOID-BODY" }, N_("models") },
  /* Formats Kinema reads and does not write: skeleton.json in a .wrl or .xml would only
   * fail to load where that name says what it is. */
  { ".wrl", 0, { NULL }, N_("OpenHRP VRML models, which Kinema reads but does not write") },
  { ".xml", 0, { NULL }, N_("Scenebuilder scenes, which Kinema reads but does not write") },
  { ".dae", 0, { NULL }, N_("meshes, which Kinema reads but does not write") },
  { ".stl", 0, { NULL }, N_("meshes, which Kinema reads but does not write") },
  { ".obj", 0, { NULL }, N_("meshes, which Kinema reads but does not write") },
  /* What `solve` and `bench-ik` write (solve's NAME.animation.json in a directory), and
   * a name a model or targets file would only be taken for an animation by: before
   * ".json", which the name also ends in. */
  { ".animation.json", KM_CLI_KIND_BIT (KM_FILE_KIND_ANIMATION),
    { [KM_FILE_KIND_ANIMATION] = "KINEMA-ANIMATION-JSON" }, N_("solved animations") },
  { ".json", KM_CLI_KIND_BIT (KM_FILE_KIND_MODEL) | KM_CLI_KIND_BIT (KM_FILE_KIND_TARGETS) |
             KM_CLI_KIND_BIT (KM_FILE_KIND_ANIMATION),
    { [KM_FILE_KIND_MODEL] = "SKELETON-JSON",
      [KM_FILE_KIND_ANIMATION] = "KINEMA-ANIMATION-JSON" },
    N_("skeletons, IK targets and animations") },
  { ".cnoid", KM_CLI_KIND_BIT (KM_FILE_KIND_PROJECT), { NULL }, N_("Choreonoid projects") },
  { ".seq", KM_CLI_KIND_BIT (KM_FILE_KIND_BODY_MOTION),
    { [KM_FILE_KIND_BODY_MOTION] = "CHOREONOID-BODY-MOTION" }, N_("Choreonoid body motions") },
  { ".pseq", KM_CLI_KIND_BIT (KM_FILE_KIND_POSE_SEQ), { NULL }, N_("Choreonoid pose sequences") },
};

/* The row of output_extensions[] that names @output's extension (the first whose
 * extension the name ends in, in any case: ".animation.json" before ".json"), or -1.
 * @dot (out): the extension as given. */
static int
find_output_extension (const char  *output,
                       char       **dot)
{
  g_autofree char *base = g_path_get_basename (output);
  gsize length = strlen (base);

  for (guint i = 0; i < G_N_ELEMENTS (output_extensions); i++)
    {
      gsize ext_length = strlen (output_extensions[i].extension);
      const char *ext = length >= ext_length ? base + length - ext_length : NULL;

      if (ext != NULL && g_ascii_strcasecmp (ext, output_extensions[i].extension) == 0)
        {
          *dot = g_strdup (ext);
          return (int) i;
        }
    }
  return -1;
}

/* The model format @output's extension names (`convert` without --to), else
 * skeleton.json. */
const char *
km_cli_output_model_format (const char *output)
{
  g_autofree char *dot = NULL;
  int row = find_output_extension (output, &dot);

  return row >= 0 && output_extensions[row].formats[KM_FILE_KIND_MODEL] != NULL
         ? output_extensions[row].formats[KM_FILE_KIND_MODEL] : "SKELETON-JSON";
}

/* The kinds of file (KM_CLI_KIND_BIT()s) @output's extension (in any case) is for; 0 when
 * it names none, or only a format Kinema does not write. @dot (out, nullable): the
 * extension as given, when it names one. For a command that writes a kind of file in
 * several formats (`solve --to`), to tell which one the name asks for. */
guint
km_cli_output_name_kinds (const char  *output,
                          char       **dot)
{
  g_autofree char *ext = NULL;
  int row = find_output_extension (output, &ext);

  if (row < 0)
    return 0;
  if (dot != NULL)
    *dot = g_steal_pointer (&ext);
  return output_extensions[row].kinds;
}

/*
 * NULL when the output file @output may hold @format, the format --to (@to, as given) asks
 * for a file of one of @kinds (KM_CLI_KIND_BIT()s) to be written in; else the usage error
 * to give before anything is written: its extension names another format of those kinds
 * (x.body with `convert --to URDF`, x.seq with `solve --to KINEMA-ANIMATION-JSON`). Which
 * of the two was meant cannot be told, and a file whose name says one format while it
 * holds the other fails to load where its name leads. A name without an extension, or
 * with an unknown one, is accepted; so is one for another kind of file, which
 * km_cli_check_output_name() refuses. @suffix (nullable): how a name for @format would
 * end, for the message; NULL: the extension that names @format.
 */
char *
km_cli_check_output_format (const char *output,
                            guint       kinds,
                            const char *format,
                            const char *to,
                            const char *suffix)
{
  g_autofree char *dot = NULL;
  g_autofree char *shown = NULL;
  int row = find_output_extension (output, &dot);
  const char *implied = NULL;

  if (row < 0)
    return NULL;
  for (guint k = 0; implied == NULL && k <= KM_FILE_KIND_BODY_MOTION; k++)
    if ((kinds & output_extensions[row].kinds & KM_CLI_KIND_BIT (k)) != 0)
      implied = output_extensions[row].formats[k];
  if (implied == NULL || g_str_equal (implied, format))
    return NULL;
  for (guint i = 0; suffix == NULL && i < G_N_ELEMENTS (output_extensions); i++)
    for (guint k = 0; k <= KM_FILE_KIND_BODY_MOTION; k++)
      if ((kinds & KM_CLI_KIND_BIT (k)) != 0 && output_extensions[i].formats[k] != NULL &&
          g_str_equal (output_extensions[i].formats[k], format))
        suffix = output_extensions[i].extension;
  g_return_val_if_fail (suffix != NULL, NULL);
  shown = km_parse_shown_file (output);
  /* Translators: e.g. "x.seq: the extension “.seq” is for CHOREONOID-BODY-MOTION, but
   * --to asks for KINEMA-ANIMATION-JSON: nothing was written (leave out --to, or give a
   * name ending in “.animation.json”)"; the format names and --to are not translated */
  return g_strdup_printf (_("%s: the extension “%s” is for %s, but --to asks for %s: nothing "
                            "was written (leave out --to, or give a name ending in “%s”)"),
                          shown, dot, implied, to, suffix);
}

/* "a model", "an IK targets file", …: what a file is, for messages. */
const char *
km_cli_kind_description (KmFileKind kind)
{
  switch (kind)
    {
    case KM_FILE_KIND_MODEL:
      return _("a model");
    case KM_FILE_KIND_TARGETS:
      return _("an IK targets file");
    case KM_FILE_KIND_ANIMATION:
      return _("a solved animation");
    case KM_FILE_KIND_PROJECT:
      return _("a Choreonoid project");
    case KM_FILE_KIND_POSE_SEQ:
      return _("a pose sequence");
    case KM_FILE_KIND_BODY_MOTION:
    default:
      return _("a body motion");
    }
}

/*
 * NULL when @output's extension suits a file of one of @kinds (KM_CLI_KIND_BIT()s: what
 * the command may write there), or names nothing; else the usage error to give, before
 * anything is written. @written: what is written, for the message; @input (nullable): the
 * file it comes from, which the message then names (`convert`), else it is said of OUTPUT
 * as "kinema-cli: OUTPUT: …".
 */
char *
km_cli_check_output_name (const char *output,
                          guint       kinds,
                          const char *input,
                          KmFileKind  written)
{
  g_autofree char *dot = NULL;
  g_autofree char *shown = NULL;
  g_autofree char *shown_input = NULL;
  int row = find_output_extension (output, &dot);

  if (row < 0 || (output_extensions[row].kinds & kinds) != 0)
    return NULL;
  shown = km_parse_shown_file (output);
  if (input != NULL)
    shown_input = km_parse_shown_file (input);
  if (input != NULL)
    /* Translators: e.g. "t.json is an IK targets file, but the extension “.urdf” of
     * robot.urdf is for models: nothing was written" */
    return g_strdup_printf (_("%s is %s, but the extension “%s” of %s is for %s: nothing "
                              "was written"), shown_input, km_cli_kind_description (written),
                            dot, shown, _(output_extensions[row].kinds_name));
  /* Translators: e.g. "robot.urdf: the extension “.urdf” is for models, not for a solved
   * animation: nothing was written" */
  return g_strdup_printf (_("%s: the extension “%s” is for %s, not for %s: nothing was "
                            "written"), shown, dot, _(output_extensions[row].kinds_name),
                          km_cli_kind_description (written));
}

/*
 * Whether the output @output is standard output: "-" (as in many tools), or a name of
 * the file, pipe or terminal it goes to (/dev/stdout, /dev/fd/1). What is written there
 * is written where stdout goes (km_format_save_data()), never atomically; the command's
 * summary line then goes to stderr, so that stdout holds the file alone.
 */
gboolean
km_cli_output_is_stdout (const char *output)
{
  GStatBuf out, st;

  g_return_val_if_fail (output != NULL, FALSE);

  if (g_str_equal (output, KM_CLI_STDOUT_NAME))
    return TRUE;
  return fstat (STDOUT_FILENO, &out) == 0 && g_stat (output, &st) == 0
         && out.st_dev == st.st_dev && out.st_ino == st.st_ino;
}

/* The path a writer writes @output to: /dev/stdout for "-", else @output. */
const char *
km_cli_output_path (const char *output)
{
  g_return_val_if_fail (output != NULL, NULL);

  return g_str_equal (output, KM_CLI_STDOUT_NAME) ? "/dev/stdout" : output;
}

/*
 * The files a command reads, to tell whether an output is one of them: each input's path
 * made absolute and plain ("./", ".." resolved as text, as g_file_equal() compares them)
 * and its device and inode (through links, hard or symbolic), each looked up in a hash
 * table: every input is stat()ed once, whatever the number of outputs.
 */
struct _KmCliInputSet
{
  const char * const *inputs;   /* not owned */
  GHashTable         *by_path;  /* canonical path → index + 1 */
  GHashTable         *by_file;  /* "DEV:INO" → index + 1 */
};

static char *
canonical_path (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);

  return g_file_get_path (file);
}

static char *
file_id (const char *path)
{
  GStatBuf st;

  if (g_stat (path, &st) != 0)
    return NULL;
  return g_strdup_printf ("%ju:%ju", (uintmax_t) st.st_dev, (uintmax_t) st.st_ino);
}

/* @inputs (the paths as given; NULL entries are skipped) must outlive the set. */
KmCliInputSet *
km_cli_input_set_new (const char * const *inputs,
                      gsize               n_inputs)
{
  KmCliInputSet *set = g_new0 (KmCliInputSet, 1);

  set->inputs = inputs;
  set->by_path = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  set->by_file = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (gsize i = 0; i < n_inputs; i++)
    {
      char *path, *id;

      if (inputs[i] == NULL)
        continue;
      /* The first of several inputs that are one file is the one a message names. */
      path = canonical_path (inputs[i]);
      if (path != NULL && !g_hash_table_contains (set->by_path, path))
        g_hash_table_insert (set->by_path, path, GSIZE_TO_POINTER (i + 1));
      else
        g_free (path);
      id = file_id (inputs[i]);
      if (id != NULL && !g_hash_table_contains (set->by_file, id))
        g_hash_table_insert (set->by_file, id, GSIZE_TO_POINTER (i + 1));
      else
        g_free (id);
    }
  return set;
}

void
km_cli_input_set_free (KmCliInputSet *set)
{
  if (set == NULL)
    return;
  g_hash_table_destroy (set->by_path);
  g_hash_table_destroy (set->by_file);
  g_free (set);
}

/* The first input that @output is (by its path, or an existing file by its inode), or
 * NULL. */
static const char *
km_cli_input_set_find (const KmCliInputSet *set,
                const char          *output)
{
  g_autofree char *path = canonical_path (output);
  g_autofree char *id = NULL;
  gsize by_path = path != NULL ? GPOINTER_TO_SIZE (g_hash_table_lookup (set->by_path, path)) : 0;
  gsize by_file = 0;

  if (g_hash_table_size (set->by_file) > 0 && (id = file_id (output)) != NULL)
    by_file = GPOINTER_TO_SIZE (g_hash_table_lookup (set->by_file, id));
  if (by_path == 0 || (by_file != 0 && by_file < by_path))
    by_path = by_file;
  return by_path != 0 ? set->inputs[by_path - 1] : NULL;
}

/* km_cli_check_output_file_in() for @n_inputs files @inputs: for a few outputs. */
char *
km_cli_check_output_file (const char         *output,
                          guint               kinds,
                          const char * const *inputs,
                          gsize               n_inputs)
{
  g_autoptr(KmCliInputSet) set = km_cli_input_set_new (inputs, n_inputs);

  return km_cli_check_output_file_in (output, kinds, set);
}

/*
 * NULL when writing @output loses nothing, else the usage error to give before anything
 * is written: when @output is one of the files the command reads (@inputs,
 * km_cli_input_set_new()), or an existing file with something in it
 * that is not of one of @kinds (KM_CLI_KIND_BIT()s: what the command writes, and so may
 * replace). A model, targets file or project that the arguments put in the output's place
 * would be lost; an earlier output of the same kind only is replaced. Said as
 * "kinema-cli: OUTPUT: …". Not a regular file (a directory, a device): left to the writer.
 */
char *
km_cli_check_output_file_in (const char          *output,
                             guint                kinds,
                             const KmCliInputSet *inputs)
{
  g_autoptr(GBytes) bytes = NULL;
  const char *input;
  g_autofree char *shown = NULL;
  const KmFormat *format;
  const char *data;
  gsize length;

  /* Written to where it goes, after what is there: nothing is replaced. */
  if (km_cli_output_is_stdout (output))
    return NULL;
  /* Files as every message shows them (km_parse_shown_file()). */
  shown = km_parse_shown_file (output);
  input = km_cli_input_set_find (inputs, output);
  if (input != NULL)
    {
      g_autofree char *shown_input = km_parse_shown_file (input);

      /* Translators: the second %s is an input file as given */
      return g_strdup_printf (_("%s: the output is the input file %s, which it would "
                                "replace: nothing was written"), shown, shown_input);
    }

  if (!g_file_test (output, G_FILE_TEST_IS_REGULAR))
    return NULL;
  /* Unreadable, or larger than anything Kinema reads: not a file of ours to replace. */
  bytes = km_format_read_file (output, KM_FORMAT_MAX_FILE_SIZE, NULL);
  /* An empty file holds nothing to lose (`mktemp`'s): g_bytes_get_data() gives NULL for
   * it, so its size is what tells. */
  if (bytes != NULL && g_bytes_get_size (bytes) == 0)
    return NULL;
  data = bytes != NULL ? g_bytes_get_data (bytes, &length) : NULL;
  format = data != NULL ? km_format_detect (data, length) : NULL;
  if (format != NULL && (KM_CLI_KIND_BIT (format->kind) & kinds) != 0)
    return NULL;
  if (format != NULL)
    /* Translators: the second %s is e.g. "an IK targets file" */
    return g_strdup_printf (_("%s: the file exists and is %s, which this would replace: "
                              "nothing was written (remove it or choose another name)"),
                            shown, km_cli_kind_description (format->kind));
  return g_strdup_printf (_("%s: the file exists and is not one that this command writes, "
                            "so it would be lost: nothing was written (remove it or choose "
                            "another name)"), shown);
}

/* Where in the targets file @path the first keyframe with a @key member has its value,
 * when it is that @frame's keyframe (its "frame" value; G_MININT64: any keyframe); line 0
 * when it cannot tell (not a targets.json file, or changed since). Only for a message: a
 * KmTargetTrack keeps no positions, so the file is read again. */
static KmSourcePos
find_keyframe_value (const char *path,
                     const char *key,
                     gint64      frame)
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
      const KmJsonNode *keyframe = km_json_node_get_element (root, i);
      const KmJsonNode *value = km_json_node_get_member (keyframe, key);
      const KmJsonNode *number = km_json_node_get_member (keyframe, "frame");

      if (value == NULL)
        continue;
      if (frame == G_MININT64 ||
          (number != NULL && km_json_node_type (number) == KM_JSON_NUMBER &&
           km_json_node_is_integer (number) && km_json_node_get_int (number) == frame))
        return km_json_node_get_pos (value);
    }
  return (KmSourcePos) { 0, 0 };
}

/* Where the keyframe for @frame of the targets file @path (as given) is:
 * "FILE:LINE:COLUMN" at its "frame" value, found in the file again; "FILE" when it
 * cannot be. */
char *
km_cli_keyframe_location (const char *path,
                          guint       frame)
{
  g_return_val_if_fail (path != NULL, NULL);

  return km_parse_location (path, find_keyframe_value (path, "frame", frame));
}

/*
 * Says on stderr, as a loader would, that the keyframe for @frame of the targets file
 * @path (as given) breaks a rule of the command (@message): "FILE:LINE:COLUMN: message"
 * at its "frame" value (km_cli_keyframe_location()).
 */
void
km_cli_print_keyframe_error (const char *path,
                             guint       frame,
                             const char *message)
{
  g_autofree char *location = NULL;

  g_return_if_fail (path != NULL && message != NULL);

  location = km_cli_keyframe_location (path, frame);
  /* The prefix is never translated. */
  fprintf (stderr, "%s: %s\n", location, message);
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
  km_cli_set_track_setting_error (targets_path, "effector", message, error);
}

/*
 * km_cli_set_effector_error() for the track setting @key ("effector", "base"): the error
 * is at the first keyframe's @key value in @targets_path (the loader made every other one
 * agree), else unlocated.
 */
void
km_cli_set_track_setting_error (const char  *targets_path,
                                const char  *key,
                                const char  *message,
                                GError     **error)
{
  KmSourcePos pos = { 0, 0 };

  g_return_if_fail (key != NULL && message != NULL);

  if (targets_path != NULL)
    pos = find_keyframe_value (targets_path, key, G_MININT64);
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
  g_autofree char *shown = NULL;
  int effector;

  g_return_val_if_fail (name != NULL, -1);

  effector = km_skeleton_find_effector (skeleton, name);
  if (effector >= 0)
    return effector;
  shown = km_parse_shown_file (name);
  /* Translators: the first %s is a model file (or "the default skeleton"). */
  message = g_strdup_printf (_("%s has no joint or link “%s” to use as the end effector"),
                             model_label, shown);
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

/*
 * Says on stderr what became of each body handler a model names, one line each
 * (km_body_handler_set_describe()), as a message about the model, located where it names
 * the handler when known: "MODEL:LINE:COLUMN: handler NAME: failed: …", else "MODEL:
 * handler NAME: …" (@label: the model file as km_parse_shown_file() shows it), as `solve` and
 * `bench-ik` both say it. Nothing when it names none.
 */
void
km_cli_print_handler_reports (const KmBodyHandlerSet *handlers,
                              const char             *label)
{
  g_autoptr(GString) lines = NULL;
  g_auto(GStrv) split = NULL;

  g_return_if_fail (handlers != NULL && label != NULL);

  if (km_body_handler_set_get_n_reports (handlers) == 0)
    return;
  lines = g_string_new (NULL);
  km_body_handler_set_describe (handlers, lines);
  split = g_strsplit (lines->str, "\n", -1);
  /* One line per report, in order. The prefix is never translated: where the model names
   * the handler ("FILE:LINE:COLUMN", DESIGN.md's error locations) when that is known, else
   * the model. */
  for (guint i = 0; split[i] != NULL; i++)
    if (split[i][0] != '\0')
      {
        const KmBodyHandlerReport *r = i < km_body_handler_set_get_n_reports (handlers)
                                       ? km_body_handler_set_get_report (handlers, i) : NULL;

        fprintf (stderr, "%s: %s\n", r != NULL && r->location != NULL ? r->location : label,
                 split[i]);
      }
}

/*
 * Every command's end: whatever it printed on stdout (its key=value lines, "ok" lines,
 * the version) is flushed now, and a failed write (a full disk, /dev/full, a closed pipe
 * reader) is said as a failed write of an output file is, "kinema-cli: /dev/stdout:
 * cannot write the file: REASON", with exit status 1 (2 stays 2): a script must not take
 * lost lines for a success. Returns the exit status.
 */
int
km_cli_finish (int status)
{
  int saved_errno = 0;

  if (fflush (stdout) != 0)
    saved_errno = errno;
  if (!ferror (stdout))
    return status;
  clearerr (stdout);
  /* Said as km_format_save_data() says it of "-" (`solve -o -`, `convert X -`). */
  fprintf (stderr, "kinema-cli: ");
  fprintf (stderr, _("%s: cannot write the file: %s"), "/dev/stdout",
           g_strerror (saved_errno != 0 ? saved_errno : EIO));
  fputc ('\n', stderr);
  return status == KM_CLI_EXIT_OK ? KM_CLI_EXIT_INVALID : status;
}

/*
 * How every command loads the files it is given (km_format_load_model_file_full()): a
 * named pipe given before its writer is there (`validate p & producer > p`) is waited
 * for, a bounded time, also where the file leads (imports, sub-projects). The editor,
 * which reads on its main thread, loads with the defaults: no wait.
 */
const KmFormatLoadOptions *
km_cli_load_options (void)
{
  static const KmFormatLoadOptions options = { .fifo_wait_s = KM_FORMAT_FIFO_WAIT_S };

  return &options;
}

/* Ctrl+C, a kill or a closed terminal while an output file is written: the temporary
 * file beside it ("NAME.XXXXXX", km_format_save_stream()) is removed, then the program
 * ends by the signal as it would have (the old file is as it was). A signal ignored when
 * the program starts (nohup, a background job) stays ignored. */
static void
remove_temporary_files_on_signals (void)
{
  static const int signals[] = { SIGINT, SIGTERM, SIGHUP };

  for (guint i = 0; i < G_N_ELEMENTS (signals); i++)
    {
      struct sigaction old;

      if (sigaction (signals[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
        km_format_remove_temporary_files_on_signal (signals[i]);
    }
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
  /* An output that is a named pipe with no reader yet (`solve -o p & consumer < p`) is
   * waited for as long as an input pipe's writer is (km_cli_load_options()), not for
   * ever. */
  km_format_set_fifo_save_wait (KM_FORMAT_FIFO_WAIT_S);
  remove_temporary_files_on_signals ();

  if (argc < 2)
    {
      print_usage (stderr);
      return KM_CLI_EXIT_USAGE;
    }

  name = argv[1];
  if (g_str_equal (name, "--help") || g_str_equal (name, "-h") || g_str_equal (name, "help"))
    {
      print_usage (stdout);
      return km_cli_finish (KM_CLI_EXIT_OK);
    }
  if (g_str_equal (name, "--version"))
    {
      printf ("kinema-cli %s\n", PACKAGE_VERSION);
      return km_cli_finish (KM_CLI_EXIT_OK);
    }

  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    if (g_str_equal (name, commands[i].name))
      {
        g_autofree char *prgname = g_strconcat ("kinema-cli ", name, NULL);

        /* GOptionContext's "Usage:" line shows the program name. */
        g_set_prgname (prgname);
        return km_cli_finish (commands[i].run (argc - 1, argv + 1));
      }

  fprintf (stderr, _("kinema-cli: unknown command “%s”\n"), name);
  print_usage (stderr);
  return KM_CLI_EXIT_USAGE;
}
