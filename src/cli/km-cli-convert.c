/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "kinema-cli"

#include "config.h"

#include <stdio.h>
#include <string.h>
#include <glib/gi18n.h>

#include "km-body.h"
#include "km-body-writer.h"
#include "km-cli.h"
#include "km-cli-commands.h"
#include "km-cnoid.h"
#include "km-error.h"
#include "km-format.h"
#include "km-skeleton-json.h"
#include "km-skeleton.h"
#include "km-target-track.h"
#include "km-targets-json.h"
#include "km-urdf.h"
#include "km-urdf-writer.h"

/* The model formats `--to` writes. */
static const char * const model_targets[] = { "SKELETON-JSON", "CHOREONOID-BODY", "URDF", NULL };

/* The name of model_targets[] that --to @given names, in any case as --format takes
 * format names (km_format_name_matches()); NULL for none. */
static const char *
find_model_target (const char *given)
{
  for (guint i = 0; model_targets[i] != NULL; i++)
    if (km_format_name_matches (model_targets[i], given))
      return model_targets[i];
  return NULL;
}

static gboolean
skeleton_has_shapes (const KmSkeleton *skeleton)
{
  for (guint i = 0; i < km_skeleton_get_n_joints (skeleton); i++)
    {
      guint n_shapes = 0;

      km_skeleton_get_shapes (skeleton, i, &n_shapes);
      if (n_shapes > 0)
        return TRUE;
    }
  return FALSE;
}

/* The IK targets a model defines (a Scenebuilder scene's <ik>): no format `convert` writes
 * has a place for them (skeleton.json and .body files have none, URDF neither), so one note
 * names them, as the notes of the other things left out do. */
static void
note_targets (const KmModelExtras *extras,
              const char          *to)
{
  g_autoptr(GString) first = g_string_new (NULL);
  const char *reason;
  guint n;

  if (extras == NULL || extras->targets->len == 0)
    return;
  n = extras->targets->len;
  if (g_str_equal (to, "URDF"))
    reason = _("URDF has no IK targets");
  else if (g_str_equal (to, "CHOREONOID-BODY"))
    reason = _("a .body file has no IK targets");
  else
    reason = _("skeleton.json has no IK targets");
  /* The name escaped, as every message quotes one: the note stays one line. */
  km_format_append_value (first, g_ptr_array_index (extras->target_names, 0));
  /* Translators: the first %s is the first target's name, the second why it is left out
   * ("URDF has no IK targets") */
  fprintf (stderr, g_dngettext (GETTEXT_PACKAGE,
                                "note: %u IK target (“%s”) is not written: %s\n",
                                "note: %u IK targets (“%s”, …) are not written: %s\n", n),
           n, first->str, reason);
}

/* Whether the pose @extras states is lost in a format that holds no pose but does hold the
 * links (URDF, skeleton.json): not when it is the pose the written file starts at anyway,
 * every joint at 0 and the linked ones following their masters
 * (km_skeleton_dup_mimic_rest_pose(): a follower with an offset at that offset), which the
 * written mimic (ratio and offset) gives back. That is also what
 * km_format_load_model_file() states for a model whose file states no pose (a URDF with a
 * mimic offset). Compared exactly: both come from km_skeleton_apply_mimic() on the same
 * link, and any other value is a pose the file stated. */
static gboolean
initial_pose_lost (const KmSkeleton    *skeleton,
                   const KmModelExtras *extras)
{
  g_autofree double *rest = NULL;
  guint n_dof = km_skeleton_get_n_dof (skeleton);

  if (extras == NULL || extras->initial_q == NULL)
    return FALSE;
  if (extras->n_initial_q != n_dof)
    return TRUE;
  rest = km_skeleton_dup_mimic_rest_pose (skeleton);
  for (guint d = 0; d < n_dof; d++)
    if (extras->initial_q[d] != (rest != NULL ? rest[d] : 0.0))
      return TRUE;
  return FALSE;
}

static void
ignore_warning (const char *message,
                gpointer    user_data)
{
}

/* The skeleton @data (the text written to @output in the format @to) reads as, without
 * warnings (the loaders' on the input said what there was to say). */
static KmSkeleton *
parse_back (const char  *to,
            const char  *output,
            const char  *data,
            gsize        length,
            GError     **error)
{
  KmSkeleton *written;

  km_parse_warnings_push (ignore_warning, NULL);
  if (g_str_equal (to, "CHOREONOID-BODY"))
    {
      KmBodyOptions options = { .load_meshes = FALSE };

      written = km_body_load (output, data, length, &options, error);
    }
  else if (g_str_equal (to, "URDF"))
    {
      KmUrdfOptions options = { NULL, FALSE };

      written = km_urdf_load (output, data, length, &options, error);
    }
  else
    written = km_skeleton_json_load (output, data, length, error);
  km_parse_warnings_pop ();
  return written;
}

/* The model's text in the format @to as its writer saves it to @output (for standard
 * output, as for a file named "-" in the current folder, so that a relative mesh reference
 * leads from there, as from an OUTPUT named there), read back into @written, and only
 * then saved: a text that does not read back is a writer's fault and leaves @output as it
 * was, with no line that says it has joints. The save replaces an old file atomically. */
static gboolean
write_model_text (const char        *to,
                  const KmSkeleton  *skeleton,
                  const double      *initial_q,
                  const char        *output,
                  GPtrArray         *notes,
                  KmSkeleton       **written,
                  GError           **error)
{
  const char *text_path = km_cli_output_is_stdout (output) ? KM_CLI_STDOUT_NAME : output;
  g_autofree char *text = NULL;

  if (g_str_equal (to, "CHOREONOID-BODY"))
    text = km_body_to_string_for_path (skeleton, initial_q, text_path, notes);
  else if (g_str_equal (to, "URDF"))
    text = km_urdf_to_string_for_path (skeleton, text_path, notes);
  else
    /* The spec's skeleton.json has no floating base: a free root stays where it starts.
     * Said in a note, as the URDF writer says it of URDF's fixed base: what the target
     * format cannot carry, not a fault of INPUT (which warnings are). */
    text = km_skeleton_json_to_string_full (skeleton, KM_SKELETON_JSON_WRITE_FIX_FREE_ROOT,
                                            notes);
  *written = parse_back (to, output, text, strlen (text), error);
  if (*written == NULL)
    {
      g_prefix_error (error, _("the written file does not read back: "));
      return FALSE;
    }
  return km_format_save_text (km_cli_output_path (output), text, error);
}

static gboolean
write_model (const KmFormat      *input_format,
             const KmSkeleton    *skeleton,
             const KmModelExtras *extras,
             const char          *to,
             const char          *output,
             FILE                *summary,
             GError             **error)
{
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(KmSkeleton) written = NULL;
  g_autofree char *shown_output = NULL;
  const double *initial_q = extras != NULL ? extras->initial_q : NULL;
  gboolean ok;

  /* No target format has a place for mass properties or device nodes, and skeleton.json
   * none for display geometry either: say so rather than drop them silently, also when
   * the format stays the same (a .body or URDF file rewritten loses them just the same:
   * the writers write the skeleton, not the file that was read). Only skeleton.json holds
   * nothing beyond the skeleton. */
  if (g_str_equal (to, "SKELETON-JSON") && skeleton_has_shapes (skeleton))
    fprintf (stderr, _("note: display shapes are not carried over to skeleton.json\n"));
  if (!g_str_equal (input_format->name, "SKELETON-JSON"))
    fprintf (stderr, g_str_equal (to, "SKELETON-JSON") ?
             _("note: only the kinematic tree is converted (joints, offsets, rotations, "
               "axes, limits, body handlers)\n") :
             _("note: only the kinematic tree and display shapes are converted (joints, "
               "offsets, rotations, axes, limits, primitive and mesh shapes)\n"));
  /* The pose the model states (a .body file's joint_displacement, a scene's joint pos
   * values): only a .body file has a place for it. The pose that only follows from the
   * links (a mimic offset) is not lost: the mimic is written, and the file starts there. */
  if (!g_str_equal (to, "CHOREONOID-BODY") && initial_pose_lost (skeleton, extras))
    /* Translators: %s is URDF or skeleton.json */
    fprintf (stderr, _("note: the initial pose the model states is not carried over to %s\n"),
             g_str_equal (to, "URDF") ? "URDF" : "skeleton.json");
  note_targets (extras, to);
  /* The joint ids a .body model numbers its joints with, by which a .body motion's columns
   * go (a .seq): a model read back from URDF or skeleton.json numbers them anew. */
  if (!g_str_equal (to, "CHOREONOID-BODY") && km_skeleton_count_joint_ids (skeleton) > 0)
    {
      guint n_ids = km_skeleton_count_joint_ids (skeleton);

      /* Translators: %s is URDF or skeleton.json */
      fprintf (stderr, g_dngettext (GETTEXT_PACKAGE,
                                    "note: %u joint id is not carried over to %s\n",
                                    "note: %u joint ids are not carried over to %s\n", n_ids),
               n_ids, g_str_equal (to, "URDF") ? "URDF" : "skeleton.json");
    }
  ok = write_model_text (to, skeleton, initial_q, output, notes, &written, error);
  for (guint i = 0; i < notes->len; i++)
    {
      /* A writer's note may quote a name as it is ("spherical joint “a<newline>b” …"):
       * printed as one line whatever it holds. */
      g_autoptr(GString) note = g_string_new (NULL);

      km_format_append_one_line (note, g_ptr_array_index (notes, i));
      fprintf (stderr, _("note: %s\n"), note->str);
    }
  if (!ok)
    return FALSE;
  /* OUTPUT as a key=value line shows a value: one field whatever its name. Counted as
   * `info OUTPUT` counts them (km_skeleton_json_describe()), the free root too. */
  shown_output = km_format_dup_field (output);
  fprintf (summary, "output=%s format=%s joints=%u dof=%u%s\n", shown_output, to,
           km_skeleton_get_n_joints (written), km_skeleton_get_n_dof (written),
           km_skeleton_has_free_root (written) ? " free_root=1" : "");
  return TRUE;
}

static gboolean
write_targets (const KmTargetTrack *track,
               const char          *output,
               FILE                *summary,
               GError             **error)
{
  g_autofree char *shown_output = NULL;

  if (!km_targets_json_save (track, km_cli_output_path (output), error))
    return FALSE;
  shown_output = km_format_dup_field (output);
  fprintf (summary, "output=%s format=KINEMA-TARGETS-JSON keyframes=%u\n", shown_output,
          km_target_track_get_n_keyframes (track));
  return TRUE;
}

/* What km_cnoid_save() writes, without what it then does for an editor (the items keep
 * their new ids, the project its file and clean state), which the conversion frees
 * anyway; and its error is the plain "OUTPUT: cannot write the file: REASON" of every
 * other writer rather than the editor's "The project was not saved: …". As the editor's
 * Save As, it warns when file references read through ${SHARE} had to be written as
 * absolute paths, or a file as an absolute path because a relative one would climb out of
 * the home folder (km_cnoid_build_tree_warned()), once the file is written. */
static gboolean
write_project (KmProject   *project,
               const char  *output,
               FILE        *summary,
               GError     **error)
{
  g_autoptr(GHashTable) ids = NULL;
  g_autoptr(KmYamlNode) tree = NULL;
  g_autofree char *shown_output = NULL;
  g_autofree char *field_output = NULL;
  g_autoptr(GPtrArray) warnings = NULL;

  /* For standard output, paths relative to the current folder (the folder of "-"). */
  tree = km_cnoid_build_tree_warned (project, km_cli_output_is_stdout (output)
                                              ? KM_CLI_STDOUT_NAME : output,
                                     &ids, &warnings);
  /* Written as it is made: a long animation's text is never whole in memory. */
  if (!km_cnoid_tree_save (tree, NULL, km_cli_output_path (output), 0666, error))
    return FALSE;
  shown_output = km_parse_shown_file (output);
  for (guint i = 0; i < warnings->len; i++)
    km_cli_print_warning_at (shown_output, g_ptr_array_index (warnings, i));
  field_output = km_format_dup_field (output);
  fprintf (summary, "output=%s format=CNOID-PROJECT\n", field_output);
  return TRUE;
}

/*
 * kinema-cli convert [--format NAME] [--to FORMAT] INPUT OUTPUT
 * Models of any registered format (.body, Scenebuilder XML, URDF, skeleton.json) become
 * skeleton.json (a free root fixed at its initial pose), or with --to a Choreonoid .body
 * or URDF file; what the target cannot carry is said on stderr as "note: " lines (the
 * free root too, in every format). --to names a format in any case, as --format does
 * (km_format_name_matches()). Without --to, OUTPUT's extension
 * (.urdf, .body, .json) picks the format, skeleton.json for any other; a targets file is rewritten in
 * canonical form. An OUTPUT whose extension names another kind of file than INPUT
 * (km_cli_check_output_name()), or that is INPUT or an existing file of another kind
 * (km_cli_check_output_file()), is refused as wrong usage, with or without --to; so is
 * one whose extension names another model format than --to (km_cli_check_output_format()).
 * A refused OUTPUT is said in one "kinema-cli: …" line, without the help (the options
 * were right), as `solve` says it.
 * stdout: one key=value line, for a model its joints and DOF as the written file has them
 * (read_back()), OUTPUT shown as in messages (km_parse_shown_file()); a failed write is
 * said as "kinema-cli: OUTPUT: reason".
 * Exit 0, 1 when the input is invalid or cannot be written, 2 on wrong usage (an animation,
 * which it does not convert, too).
 * A failed write leaves an existing OUTPUT as it was (the writers are atomic).
 */
int
km_cli_convert (int    argc,
                char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *format_name = NULL;
  g_autofree char *to = NULL;
  const char *to_name = NULL;   /* --to's format, as model_targets[] names it */
  const KmFormat *format = NULL;
  g_autoptr(KmModelExtras) extras = NULL;
  gpointer result;
  gboolean ok = FALSE;
  FILE *summary;
  int status;
  const GOptionEntry entries[] = {
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format_name,
      N_("Read INPUT as format NAME instead of detecting it"), N_("NAME") },
    { "to", 't', 0, G_OPTION_ARG_STRING, &to,
      N_("Write a model as FORMAT: SKELETON-JSON, CHOREONOID-BODY or URDF (default: as "
         "OUTPUT's extension says, .json, .body or .urdf, else SKELETON-JSON)"),
      N_("FORMAT") },
    { NULL }
  };

  context = g_option_context_new (N_("INPUT OUTPUT — write a model as URDF, .body or "
                                     "skeleton.json, or rewrite a targets file or project"));
  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  km_cli_add_model_options (context);
  g_option_context_set_description (context,
                                    N_("Models (Choreonoid .body, OpenHRP VRML, Scenebuilder "
                                       "XML, URDF, skeleton.json) are written in the format "
                                       "given with --to, else in the one OUTPUT's extension "
                                       "names (.urdf: URDF, .body: CHOREONOID-BODY, .json: "
                                       "SKELETON-JSON), else as skeleton.json; targets files and .cnoid "
                                       "projects are rewritten in canonical form, keeping what "
                                       "Kinema does not interpret (a targets file: each "
                                       "keyframe's other keys). An OUTPUT of “-” (or "
                                       "/dev/stdout) is standard output, the summary line "
                                       "then going to standard error. An OUTPUT whose extension "
                                       "is for another kind of file (a targets file or a "
                                       "project into .urdf or .body, a model into .cnoid, …) "
                                       "or for a format Kinema does not write (.wrl, .xml, .dae, .stl, .obj), "
                                       "an OUTPUT that is INPUT, and an existing OUTPUT of "
                                       "another kind are refused, and nothing is written; "
                                       "so is an OUTPUT whose extension names another "
                                       "model format than --to (.body with --to URDF, …)."));

  status = km_cli_parse_options (context, &argc, &argv);
  if (status >= 0)
    return status;
  if (argc != 3)
    return km_cli_usage_error (context, _("expected an input and an output file"));
  status = km_cli_check_format (context, format_name);
  if (status >= 0)
    return status;
  if (to != NULL && (to_name = find_model_target (to)) == NULL)
    {
      g_autofree char *message =
        /* Translators: %s is what the user gave; the names after it are not translated */
        g_strdup_printf (_("unknown target format “%s” (expected SKELETON-JSON, "
                           "CHOREONOID-BODY or URDF)"), to);

      return km_cli_usage_error (context, message);
    }

  km_parse_warnings_push (km_cli_print_warning, NULL);
  result = km_format_load_model_file_full (argv[1], format_name, km_cli_load_options (), &format,
                                           &extras, &error);
  km_parse_warnings_pop ();
  if (result == NULL)
    {
      fprintf (stderr, "%s\n", error->message);
      return KM_CLI_EXIT_INVALID;
    }

  if (to != NULL && format->kind != KM_FILE_KIND_MODEL)
    {
      format->free_result (result);
      return km_cli_usage_error (context, _("--to applies to models only"));
    }
  /* Whatever --to says, never a file of one kind into the name of another (as `solve`
   * and `bench-ik` say it), nor over INPUT or an existing file of another kind. */
  {
    const char *inputs[] = { argv[1] };
    guint kinds = KM_CLI_KIND_BIT (format->kind);
    g_autofree char *message = km_cli_check_output_name (argv[2], kinds, argv[1], format->kind);

    /* Not a matter of the options: the message alone, as `solve` gives it. */
    if (message != NULL)
      {
        format->free_result (result);
        return km_cli_usage_error (NULL, message);
      }
    /* --to and a name that asks for another model format ("robot.body" with --to URDF):
     * which of the two was meant cannot be told. Said as `solve` says it. */
    if (to != NULL)
      message = km_cli_check_output_format (argv[2], kinds, to_name, to, NULL);
    if (message != NULL)
      {
        format->free_result (result);
        return km_cli_usage_error (NULL, message);
      }
    message = km_cli_check_output_file (argv[2], kinds, inputs, G_N_ELEMENTS (inputs));
    if (message != NULL)
      {
        format->free_result (result);
        return km_cli_usage_error (NULL, message);
      }
  }

  /* With OUTPUT standard output, stdout holds the file alone. */
  summary = km_cli_output_is_stdout (argv[2]) ? stderr : stdout;
  switch (format->kind)
    {
    case KM_FILE_KIND_MODEL:
      ok = write_model (format, result, extras,
                        to_name != NULL ? to_name : km_cli_output_model_format (argv[2]),
                        argv[2], summary, &error);
      break;
    case KM_FILE_KIND_TARGETS:
      ok = write_targets (result, argv[2], summary, &error);
      break;
    case KM_FILE_KIND_PROJECT:
      ok = write_project (result, argv[2], summary, &error);
      break;
    case KM_FILE_KIND_ANIMATION:
    default:
      /* Wrong usage (the command does not convert this kind of file), said as every
       * usage error is, "kinema-cli: …", of the input at FILE:1:1 as a loader locates
       * what is wrong with a whole file. */
      {
        g_autofree char *location = km_parse_location (argv[1], (KmSourcePos) { 1, 1 });
        /* Translators: %s is a format name such as KINEMA-ANIMATION-JSON */
        g_autofree char *what = g_strdup_printf (_("%s files cannot be converted"),
                                                 format->name);
        g_autofree char *message = g_strdup_printf ("%s: %s", location, what);

        format->free_result (result);
        return km_cli_usage_error (NULL, message);
      }
    }
  format->free_result (result);

  if (!ok)
    {
      km_cli_print_write_error (argv[2], error);
      return KM_CLI_EXIT_INVALID;
    }
  return KM_CLI_EXIT_OK;
}
