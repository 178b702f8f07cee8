/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <glib.h>

#include "km-body-handler.h"
#include "km-format.h"
#include "km-ik.h"
#include "km-skeleton.h"
#include "km-target-track.h"

G_BEGIN_DECLS

/* Exit statuses of every kinema-cli command (DESIGN.md, "kinema-cli"). */
#define KM_CLI_EXIT_OK      0
#define KM_CLI_EXIT_INVALID 1
#define KM_CLI_EXIT_USAGE   2

/* A set of KmFileKinds, for km_cli_check_output_name(), km_cli_check_output_format() and
 * km_cli_check_output_file(). */
#define KM_CLI_KIND_BIT(kind) (1u << (kind))

/* One subcommand: argv[0] is the command's own name. Returns an exit status. */
typedef int (*KmCliCommandFunc) (int    argc,
                                 char **argv);

typedef struct
{
  const char       *name;
  const char       *summary;  /* N_() */
  KmCliCommandFunc  run;
} KmCliCommand;

const KmFormatLoadOptions *km_cli_load_options (void);
int   km_cli_usage_error    (GOptionContext *context,
                             const char     *message);
int   km_cli_parse_options  (GOptionContext *context,
                             int            *argc,
                             char         ***argv);
int   km_cli_parse_options_plain (GOptionContext *context,
                                  int            *argc,
                                  char         ***argv);
int   km_cli_check_format   (GOptionContext *context,
                             const char     *format_name);
int   km_cli_check_no_arguments (GOptionContext *context,
                                 int             argc);
void  km_cli_print_warning  (const char     *message,
                             gpointer        user_data);
void  km_cli_print_warning_at (const char   *location,
                             const char     *text);
void  km_cli_add_model_options (GOptionContext *context);
void  km_cli_print_handler_reports (const KmBodyHandlerSet *handlers,
                                    const char             *label);
void  km_cli_print_write_error (const char   *output,
                              const GError *error);
gboolean km_cli_check_model_moves (const KmSkeleton *skeleton,
                                   const char       *path,
                                   const char       *label);
char *km_cli_model_location (const char *path,
                             const char *label);
gboolean km_cli_check_kind (const char  *path,
                            KmFileKind   kind,
                            GError     **error);
void  km_cli_set_kind_error (const char      *path,
                             KmFileKind       kind,
                             const KmFormat  *format,
                             GError         **error);
gboolean km_cli_seed_pose_is_finite (const KmIkProblem *problem);
int   km_cli_finish (int status);
char *km_cli_keyframe_location (const char *path,
                                guint       frame);
void  km_cli_print_keyframe_error (const char *path,
                                   guint       frame,
                                   const char *message);
void  km_cli_set_effector_error (const char  *targets_path,
                                 const char  *message,
                                 GError     **error);
void  km_cli_set_track_setting_error (const char  *targets_path,
                                      const char  *key,
                                      const char  *message,
                                      GError     **error);
int   km_cli_find_track_effector (KmSkeleton          *skeleton,
                                  const KmTargetTrack *track,
                                  const char          *targets_path,
                                  const char          *model_label,
                                  GError             **error);

const char *km_cli_kind_description (KmFileKind   kind);
const char *km_cli_output_model_format (const char *output);
guint km_cli_output_name_kinds (const char  *output,
                                char       **dot);
char *km_cli_check_output_format (const char *output,
                                  guint       kinds,
                                  const char *format,
                                  const char *to,
                                  const char *suffix);
char *km_cli_check_output_name (const char *output,
                                guint       kinds,
                                const char *input,
                                KmFileKind  written);
char *km_cli_check_output_file (const char         *output,
                                guint               kinds,
                                const char * const *inputs,
                                gsize               n_inputs);
/* The files a command reads, each stat()ed once: for checking many outputs against them
 * (km_cli_check_output_file_in()). */
typedef struct _KmCliInputSet KmCliInputSet;
KmCliInputSet *km_cli_input_set_new (const char * const *inputs,
                                     gsize               n_inputs);
void  km_cli_input_set_free (KmCliInputSet *set);
char *km_cli_check_output_file_in (const char          *output,
                                   guint                kinds,
                                   const KmCliInputSet *inputs);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (KmCliInputSet, km_cli_input_set_free)
/* The progress line on a terminal (km-cli-progress.c): begin (TRUE when stderr is a
 * terminal, else every call does nothing), draw it over as often as wanted, end (erased).
 * Anything else printed meanwhile, from any thread, goes between hold (the line erased,
 * the next draw waiting) and release. */
gboolean km_cli_progress_begin (void);
void  km_cli_progress_draw (const char *format,
                            ...) G_GNUC_PRINTF (1, 2);
void  km_cli_progress_end (void);
void  km_cli_progress_hold (void);
void  km_cli_progress_release (void);

/* "-" as an output: standard output. */
#define KM_CLI_STDOUT_NAME "-"
gboolean km_cli_output_is_stdout (const char *output);
const char *km_cli_output_path (const char *output);

G_END_DECLS
