/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "kinema-cli"

#include "config.h"

#include <math.h>
#include <stdio.h>
#include <glib/gi18n.h>

#include "km-body-handler.h"
#include "km-body-item.h"
#include "km-project.h"
#include "km-cli.h"
#include "km-cli-commands.h"
#include "km-error.h"
#include "km-format.h"
#include "km-json.h"
#include "km-target-track.h"

/* Inserts @lines before the summary line of @out, which stays last. */
static void
insert_before_summary (GString    *out,
                       const char *lines)
{
  const char *last;
  gsize at;

  if (*lines == '\0')
    return;
  /* The summary line: after the last newline that is not the final one. */
  at = out->len > 0 && out->str[out->len - 1] == '\n' ? out->len - 1 : out->len;
  last = g_strrstr_len (out->str, (gssize) at, "\n");
  at = last != NULL ? (gsize) (last - out->str) + 1 : 0;
  g_string_insert (out, (gssize) at, lines);
}

/*
 * Appends @set's lines (km_body_handler_set_describe()), each located as `validate` and
 * `solve` locate them: "FILE:LINE:COLUMN: " where the model names the handler, else
 * @fallback and ": " (nullable: no prefix then); @prefix (nullable) then comes before
 * "handler NAME: …". The prefixes are never translated.
 */
static void
append_located_handlers (const KmBodyHandlerSet *set,
                         const char             *fallback,
                         const char             *prefix,
                         GString                *out)
{
  g_autoptr(GString) described = g_string_new (NULL);
  g_auto(GStrv) split = NULL;
  guint n_reports = km_body_handler_set_get_n_reports (set);

  km_body_handler_set_describe (set, described);
  split = g_strsplit (described->str, "\n", -1);
  /* One line per report, in order. */
  for (guint i = 0; split[i] != NULL; i++)
    if (split[i][0] != '\0')
      {
        const KmBodyHandlerReport *r = i < n_reports ? km_body_handler_set_get_report (set, i)
                                                     : NULL;
        const char *where = r != NULL && r->location != NULL ? r->location : fallback;

        if (where != NULL)
          g_string_append_printf (out, "%s: ", where);
        if (prefix != NULL)
          g_string_append_printf (out, "%s: ", prefix);
        g_string_append_printf (out, "%s\n", split[i]);
      }
}

/* For a model: one line per body handler it names (what became of it), located where the
 * model names it ("FILE:LINE:COLUMN: handler NAME: …"; "FILE: handler …" when that is not
 * known). */
static void
describe_handlers (const char *path,
                   gpointer    result,
                   GString    *out)
{
  g_autoptr(KmBodyHandlerSet) set = NULL;
  g_autoptr(GString) lines = g_string_new (NULL);
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *shown = km_parse_shown_file (path);

  set = km_body_handler_loader_attach (km_body_handler_loader_get_default (), result, NULL,
                                       dir);
  append_located_handlers (set, shown, NULL, lines);
  insert_before_summary (out, lines->str);
}

static void
describe_item_handlers (gpointer item,
                        gpointer user_data)
{
  GString *lines = user_data;
  KmBodyHandlerSet *set;

  if (!KM_IS_BODY_ITEM (item) || (set = km_body_item_get_body_handlers (item)) == NULL)
    return;
  append_located_handlers (set, NULL, km_item_get_name (KM_ITEM (item)), lines);
}

/* For a project: the same lines for each body's handlers, each after the body's name
 * ("arm: handler NAME: attached …"). */
static void
describe_project_handlers (KmProject *project,
                           GString   *out)
{
  g_autoptr(GString) lines = g_string_new (NULL);

  km_item_foreach (km_project_get_root_item (project), describe_item_handlers, lines);
  insert_before_summary (out, lines->str);
}

/* @n values, comma-separated, each in the shortest text that reads back to it exactly
 * (km_json_format_number()), as `limits=` writes them on the same output: what `info`
 * says a file states is what it states, to the last bit. */
static void
append_numbers (GString      *out,
                const double *values,
                guint         n)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];

  for (guint i = 0; i < n; i++)
    {
      if (i > 0)
        g_string_append_c (out, ',');
      /* + 0.0: no "-0", a zero is 0. */
      g_string_append (out, km_json_format_number (buffer, values[i] + 0.0));
    }
}

/* For a model that states its pose (a scene's joint pos values): one line
 * "initial_pose=Q1,Q2,…", its DOF values in DOF order (rad, m), as importing it poses
 * the body. Nothing for a model in its zero pose. */
static void
describe_initial_pose (const KmModelExtras *extras,
                       GString             *out)
{
  g_autoptr(GString) line = NULL;

  if (extras == NULL || extras->initial_q == NULL || extras->n_initial_q == 0)
    return;
  line = g_string_new ("initial_pose=");
  append_numbers (line, extras->initial_q, extras->n_initial_q);
  g_string_append_c (line, '\n');
  insert_before_summary (out, line->str);
}

/* For a model: one line per IK target it defines,
 * "target=NAME effector=JOINT frame=F pos=X,Y,Z quaternion=W,X,Y,Z" per keyframe, then
 * " offset=X,Y,Z" when the target is for a point off the effector joint's origin (in its
 * frame) and " position_only" when the orientation is no target. */
static void
describe_targets (const KmModelExtras *extras,
                  GString             *out)
{
  g_autoptr(GString) lines = g_string_new (NULL);

  for (guint i = 0; i < extras->targets->len; i++)
    {
      const KmTargetTrack *track = g_ptr_array_index (extras->targets, i);
      const KmTargetKeyframe *keyframes;
      KmVec3 o = km_target_track_get_effector_offset (track);
      const double offset[3] = { o.x, o.y, o.z };
      guint n = 0;

      keyframes = km_target_track_get_keyframes (track, &n);
      for (guint k = 0; k < n; k++)
        {
          const double pos[3] = { keyframes[k].position.x, keyframes[k].position.y,
                                  keyframes[k].position.z };
          const double rot[4] = { keyframes[k].orientation.w, keyframes[k].orientation.x,
                                  keyframes[k].orientation.y, keyframes[k].orientation.z };

          /* Names escaped (km_format_append_field()): the line stays one line and splits
           * on spaces into its fields. */
          g_string_append (lines, "target=");
          km_format_append_field (lines, g_ptr_array_index (extras->target_names, i));
          g_string_append (lines, " effector=");
          km_format_append_field (lines, km_target_track_get_effector (track) != NULL
                                         ? km_target_track_get_effector (track) : "-");
          g_string_append_printf (lines, " frame=%u pos=", keyframes[k].frame);
          append_numbers (lines, pos, 3);
          g_string_append (lines, " quaternion=");
          append_numbers (lines, rot, 4);
          if (offset[0] != 0.0 || offset[1] != 0.0 || offset[2] != 0.0)
            {
              g_string_append (lines, " offset=");
              append_numbers (lines, offset, 3);
            }
          if (km_target_track_get_position_only (track))
            g_string_append (lines, " position_only");
          if (km_target_track_get_base (track) != NULL)
            {
              g_string_append (lines, " base=");
              km_format_append_field (lines, km_target_track_get_base (track));
            }
          g_string_append_c (lines, '\n');
        }
    }
  insert_before_summary (out, lines->str);
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
  g_autoptr(KmModelExtras) extras = NULL;
  g_autofree char *format_name = NULL;
  const KmFormat *format = NULL;
  gpointer result;
  int parsed;
  const GOptionEntry entries[] = {
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format_name,
      N_("Read the file as format NAME instead of detecting it"), N_("NAME") },
    { NULL }
  };

  context = g_option_context_new (N_("FILE — describe a file"));
  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  km_cli_add_model_options (context);
  g_option_context_set_description (context,
                                    N_("For a model: one line per joint, the pose it "
                                      "states (“initial_pose=Q1,Q2,…”, DOF order, rad and "
                                      "m), one line per IK target it defines (“target=NAME effector=JOINT frame=F "
                                      "pos=X,Y,Z quaternion=W,X,Y,Z”), one line per body "
                                      "handler it names, where it names it "
                                      "(“FILE:LINE:COLUMN: handler NAME: attached (INTERFACES) "
                                      "from PATH” or “FILE:LINE:COLUMN: handler NAME: not "
                                      "found|refused|failed: WHY”), then the summary line “joints=N dof=M”."));

  parsed = km_cli_parse_options (context, &argc, &argv);
  if (parsed >= 0)
    return parsed;
  if (argc != 2)
    return km_cli_usage_error (context, argc < 2 ? _("no file given")
                                                 : _("exactly one file expected"));
  parsed = km_cli_check_format (context, format_name);
  if (parsed >= 0)
    return parsed;

  km_parse_warnings_push (km_cli_print_warning, NULL);
  result = km_format_load_model_file_full (argv[1], format_name, km_cli_load_options (), &format,
                                           &extras, &error);
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
      describe_initial_pose (extras, out);
      describe_targets (extras, out);
      describe_handlers (argv[1], result, out);
    }
  else if (format->kind == KM_FILE_KIND_PROJECT)
    describe_project_handlers (result, out);
  format->free_result (result);
  fputs (out->str, stdout);
  return KM_CLI_EXIT_OK;
}
