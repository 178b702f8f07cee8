/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

/* sched_getaffinity(), CPU_COUNT() */
#define _GNU_SOURCE

#define G_LOG_DOMAIN "kinema-cli"

#include "config.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "km-cli.h"
#include "km-cli-commands.h"
#include "km-animation-json.h"
#include "km-body-handler.h"
#include "km-body-motion.h"
#include "km-defaults.h"
#include "km-error.h"
#include "km-format.h"
#include "km-ik-job.h"
#include "km-target-track.h"
#include "km-targets-json.h"

/*
 * kinema-cli solve [SKELETON [TARGETS…]] [-o ANIMATION|DIR] [--to FORMAT] [--jobs N]
 *                  [--effector NAME]
 *
 * Without TARGETS a model's own IK targets (KmModelExtras) are the targets, one item each.
 * One animation per targets file, solved on a GThreadPool of --jobs workers. Each worker
 * loads its targets, solves them with km_ik_solve_track() and writes the animation; the
 * main thread only waits, draws progress on a terminal and prints the results in argument
 * order, so the output does not depend on scheduling. The animation is written as
 * animation.json, or as a Choreonoid body motion (.seq) for Choreonoid to play: as --to
 * says, else as the output file's extension says. --to and an output file whose extension
 * is for the other format is wrong usage (km_cli_check_output_format()).
 */

/* What --to names (and the file names that go with it). */
typedef enum
{
  OUTPUT_ANIMATION_JSON,
  OUTPUT_BODY_MOTION,
} OutputFormat;

/* The names --to accepts (in any case, as --format takes them: km_format_name_matches()):
 * the registry's format names, plus CHOREONOID-BODY-MOTION, as `convert --to` names
 * Choreonoid's model CHOREONOID-BODY. */
static const struct
{
  const char   *name;
  OutputFormat  format;
} output_formats[] = {
  { "KINEMA-ANIMATION-JSON", OUTPUT_ANIMATION_JSON },
  { "CHOREONOID-BODY-MOTION", OUTPUT_BODY_MOTION },
  { KM_BODY_MOTION_FORMAT, OUTPUT_BODY_MOTION },
};

/* At most this many frames where the motion jumps are said one by one for an animation;
 * the rest are counted (print_jumps()). */
#define MAX_JUMPS_SHOWN 5

/* A frame the motion jumps to (km_animation_get_jumped()) and how far it goes there. */
typedef struct
{
  guint    frame;
  double   step;     /* the largest change of a DOF from the frame before */
  gboolean linear;   /* that DOF is a prismatic joint's (m), else an angle (rad) */
} SolveJump;

typedef struct
{
  /* Input, set before the pool starts. */
  const char    *targets_path;     /* the path as given; NULL for the embedded default */
  KmTargetTrack *track;            /* instead of a file: one of the model's own IK targets */
  char          *label;            /* for messages: the model and its target's name */
  char          *output_path;
  /* What its output line names it by when there are several (see print_result()): the
   * targets file as given, or the model's IK target's name; NULL for a single one. */
  const char    *line_key;
  const char    *line_value;

  /* Output, written by the worker, read after the pool is done. */
  GError        *error;
  gboolean       write_failed;     /* the error is about writing output_path */
  const char    *error_subject;    /* what an unlocated error is about, when not the targets */
  KmAnimationStats stats;
  double         seconds;
  /* The keyframes the motion misses although each can be met on its own
   * (km_animation_get_missed_keys()), said after the pool is done: print_missed_keys(). */
  KmAnimationKeyMiss *missed;
  guint          n_missed;
  guint          n_unchecked;  /* missed keyframes the bounded check left out */
  /* The first frames the motion jumps to (at most MAX_JUMPS_SHOWN), and how many there are
   * in all, said after the pool is done: print_jumps(). */
  SolveJump      jumps[MAX_JUMPS_SHOWN];
  guint          n_jumps;
  double         frame_rate;
  /* The frames whose pose misses its target's position by more than the solver's
   * tolerance (km_ik_residual_missed()), and the first of them
   * that is a keyframe (G_MAXUINT: none): print_unreached(). */
  guint          n_unreached;
  guint          first_unreached_key;
  gboolean       done;             /* under SolveShared's mutex: finished, to be printed */

  /* Progress, written by the worker, read by the main thread. */
  guint          n_frames;         /* atomic: frames to solve, once known */
  guint          frames_solved;    /* atomic: frames done, or the solver's estimate */
} SolveItem;

typedef struct
{
  KmSkeleton    *skeleton;
  /* The model's analytic IK, when one of its body handlers offers it (nullable). */
  KmBodyHandlerIkHook *ik_hook;
  /* The model's handlers: each worker re-syncs its frames' linked joints with a clone. */
  KmBodyHandlerSet *handlers;
  int            effector;         /* --effector's joint, or -1 */
  /* The pose the model states (a .body's joint_displacement, a scene's joint pos values),
   * one value per DOF; NULL for a model in its zero pose. */
  const double  *model_pose;
  OutputFormat   output_format;
  /* The model file as given (as messages show it: km_parse_shown_file()), or "the
   * default skeleton". */
  const char    *model_label;
  /* Where an error about the model as a whole points: "FILE:1:1" (km_cli_model_location()),
   * or the embedded default's name. */
  const char    *model_location;
  GMutex         mutex;
  GCond          cond;
  guint          n_finished;
  guint          frames_total;     /* atomic */
} SolveShared;

static void
solve_item_clear (SolveItem *item)
{
  g_clear_pointer (&item->output_path, g_free);
  g_clear_pointer (&item->track, km_target_track_unref);
  g_clear_pointer (&item->label, g_free);
  g_clear_pointer (&item->missed, g_free);
  g_clear_error (&item->error);
}

static KmTargetTrack *
load_targets (const char  *path,
              GError     **error)
{
  const KmFormat *format = NULL;
  gpointer result;

  if (path == NULL)
    {
      g_autoptr(GBytes) bytes = km_defaults_get_targets_json ();

      return km_format_targets_json.load (KM_DEFAULT_TARGETS_NAME, bytes, error);
    }

  /* Told from its content first (km_cli_check_kind()), as bench-ik does. */
  if (!km_cli_check_kind (path, KM_FILE_KIND_TARGETS, error))
    return NULL;
  result = km_format_load_model_file_full (path, NULL, km_cli_load_options (), &format, NULL,
                                           error);
  if (result == NULL)
    return NULL;
  if (format->kind != KM_FILE_KIND_TARGETS)
    {
      km_cli_set_kind_error (path, KM_FILE_KIND_TARGETS, format, error);
      format->free_result (result);
      return NULL;
    }
  return result;
}

static KmSkeleton *
load_skeleton (const char      *path,
               KmModelExtras  **extras,
               GError         **error)
{
  const KmFormat *format = NULL;
  gpointer result;

  if (path == NULL)
    {
      g_autoptr(GBytes) bytes = km_defaults_get_skeleton_json ();
      gsize length;
      const char *data = g_bytes_get_data (bytes, &length);

      format = km_format_detect (data, length);
      g_assert (format != NULL && format->kind == KM_FILE_KIND_MODEL);
      return format->load (KM_DEFAULT_SKELETON_NAME, bytes, error);
    }

  if (!km_cli_check_kind (path, KM_FILE_KIND_MODEL, error))
    return NULL;
  result = km_format_load_model_file_full (path, NULL, km_cli_load_options (), &format, extras,
                                           error);
  if (result == NULL)
    return NULL;
  if (format->kind != KM_FILE_KIND_MODEL)
    {
      km_cli_set_kind_error (path, KM_FILE_KIND_MODEL, format, error);
      format->free_result (result);
      return NULL;
    }
  return result;
}

/* Whether a file can be created in the directory @dir: one is made and removed again, so
 * that an output directory that cannot be written is said before a long solve, not after
 * it. @saved_errno (out): why not. */
static gboolean
dir_is_writable (const char *dir,
                 int        *saved_errno)
{
  g_autofree char *probe = g_build_filename (dir, ".kinema-cli-XXXXXX", NULL);
  int fd = g_mkstemp (probe);

  if (fd < 0)
    {
      *saved_errno = errno;
      return FALSE;
    }
  close (fd);
  g_unlink (probe);
  return TRUE;
}

/* The number of processors this process may run on (its CPU affinity, as taskset or a
 * container's cpuset limits it), else all of them. */
static int
default_jobs (void)
{
#ifdef __linux__
  cpu_set_t set;

  CPU_ZERO (&set);
  if (sched_getaffinity (0, sizeof set, &set) == 0 && CPU_COUNT (&set) > 0)
    return CPU_COUNT (&set);
#endif
  return (int) g_get_num_processors ();
}

/* Worker thread: frames come in order, possibly held back to the end of the solve. */
static void
frame_done_cb (guint               frame,
               const KmIkSolution *solution,
               gpointer            user_data)
{
  SolveItem *item = user_data;

  if (frame + 1 > (guint) g_atomic_int_get (&item->frames_solved))
    g_atomic_int_set (&item->frames_solved, frame + 1);
}

/* Worker thread: the solver's own progress, ahead of frames it holds back. */
static void
progress_cb (double   fraction,
             gpointer user_data)
{
  SolveItem *item = user_data;
  guint solved = (guint) (fraction * g_atomic_int_get (&item->n_frames));

  if (solved > (guint) g_atomic_int_get (&item->frames_solved))
    g_atomic_int_set (&item->frames_solved, solved);
}

/* Main thread: frames solved over all files so far. */
static guint
frames_solved (const SolveItem *items,
               guint            n_items)
{
  guint total = 0;

  for (guint i = 0; i < n_items; i++)
    total += (guint) g_atomic_int_get (&items[i].frames_solved);
  return total;
}

/* Whether a joint between @effector and the root (both included) has a DOF: else nothing
 * could reach a target. */
static gboolean
chain_moves (KmSkeleton *skeleton,
             int         effector)
{
  for (int j = effector; j >= 0; j = km_skeleton_get_joint (skeleton, (guint) j)->parent)
    {
      const KmJoint *joint = km_skeleton_get_joint (skeleton, (guint) j);

      if (joint->dof_index >= 0 && joint->n_dof > 0)
        return TRUE;
    }
  return FALSE;
}

/*
 * Seeds @problem for a motion solved from the model as loaded: the DOFs the solve moves
 * (the effector's chain, up to its base) keep the problem's cold-start seed (mid-range);
 * every other DOF keeps the model's pose, which the solver leaves alone: the one the file
 * states (@model_pose, nullable: as the editor poses the imported body), else 0, clamped
 * into its limits, linked joints following their masters. The caller has made sure that
 * the chain has a DOF to move (chain_moves()).
 */
static void
seed_problem (KmIkProblem  *problem,
              const double *model_pose)
{
  KmSkeleton *skeleton = problem->skeleton;
  g_autofree double *pose = g_new0 (double, MAX (problem->n_dof, 1));
  g_autofree gboolean *moves = g_new0 (gboolean, MAX (problem->n_dof, 1));

  if (model_pose != NULL)
    memcpy (pose, model_pose, problem->n_dof * sizeof (double));

  for (int j = problem->effector; j >= 0 && j != problem->base;
       j = km_skeleton_get_joint (skeleton, (guint) j)->parent)
    {
      const KmJoint *joint = km_skeleton_get_joint (skeleton, (guint) j);

      for (guint d = 0; joint->dof_index >= 0 && d < joint->n_dof; d++)
        moves[joint->dof_index + d] = TRUE;
    }

  km_skeleton_clamp (skeleton, pose);
  km_skeleton_apply_mimic (skeleton, pose);
  for (guint d = 0; d < problem->n_dof; d++)
    if (!moves[d])
      problem->seed[d] = pose[d];
}

/* The targets file the track came from, where an error about its effector can point;
 * NULL for a model's own IK target and for the embedded default targets. */
static const char *
item_targets_file (const SolveItem *item)
{
  return item->track == NULL ? item->targets_path : NULL;
}

/*
 * The end effector for @track: --effector (checked before the solve), else the one the
 * track names (a joint's or a link's name, km_skeleton_find_effector()), else the model's
 * default, the last leaf joint. Each error names where the effector came from.
 */
static int
resolve_effector (SolveItem            *item,
                  SolveShared          *shared,
                  const KmTargetTrack  *track,
                  GError              **error)
{
  KmSkeleton *skeleton = shared->skeleton;
  const char *name = km_target_track_get_effector (track);
  g_autofree char *message = NULL;
  int effector;

  if (shared->effector >= 0)
    {
      /* Said, not silent: the targets were keyed for their own effector. */
      if (name != NULL && km_skeleton_find_effector (skeleton, name) != shared->effector)
        {
          const KmJoint *chosen = km_skeleton_get_joint (skeleton, (guint) shared->effector);
          g_autofree char *shown_chosen = km_parse_shown_file (chosen->name);
          g_autofree char *shown_named = km_parse_shown_file (name);

          /* Translators: the first %s is the joint --effector names, the second the one
           * the targets file names */
          message = g_strdup_printf (_("--effector “%s” overrides the targets' end effector "
                                       "“%s”"), shown_chosen, shown_named);
          km_cli_print_warning_at (item_targets_file (item), message);
        }
      return shared->effector;
    }

  if (name != NULL)
    {
      /* The lookup and its message are bench-ik's too. */
      effector = km_cli_find_track_effector (skeleton, track, item_targets_file (item),
                                             shared->model_label, error);
      if (effector < 0)
        return -1;
      if (!chain_moves (skeleton, effector))
        {
          g_autofree char *shown = km_parse_shown_file (name);

          /* Translators: the last %s is a model file (or "the default skeleton"). */
          message = g_strdup_printf (_("no joint moves between the end effector “%s” and "
                                       "the root of %s: choose another effector "
                                       "(--effector NAME)"), shown, shared->model_label);
          km_cli_set_effector_error (item_targets_file (item), message, error);
          return -1;
        }
      return effector;
    }

  /* The model's own choice: an error about the model, not the targets. */
  item->error_subject = shared->model_location;
  effector = km_skeleton_get_default_effector (skeleton);
  if (effector < 0)
    {
      g_set_error (error, KM_IK_ERROR, KM_IK_ERROR_INVALID,
                   _("the model has no end effector: choose one (--effector NAME)"));
      return -1;
    }
  if (!chain_moves (skeleton, effector))
    {
      g_autofree char *shown =
        km_parse_shown_file (km_skeleton_get_joint (skeleton, (guint) effector)->name);

      g_set_error (error, KM_IK_ERROR, KM_IK_ERROR_INVALID,
                   _("no joint moves between the end effector “%s” (the last leaf joint) "
                     "and the root: choose another effector (--effector NAME)"), shown);
      return -1;
    }
  item->error_subject = NULL;
  return effector;
}

/*
 * Whether the base joint @track names (km_target_track_get_base(), nullable) bounds the
 * chain of @effector, as km_ik_problem_use_track() takes it: else @error, said as an error
 * about the effector is (at the "base" value of the targets file): a base the model lacks,
 * one that is not above the effector (the effector itself, a joint on another branch),
 * and one that leaves no joint to move between it and the effector. A model's own IK
 * target (a Scenebuilder ik's ref, which may ride on another branch) is only held to the
 * last: the solver leaves such a base aside.
 */
static gboolean
check_track_base (SolveItem            *item,
                  SolveShared          *shared,
                  const KmTargetTrack  *track,
                  int                   effector,
                  GError              **error)
{
  KmSkeleton *skeleton = shared->skeleton;
  const char *name = km_target_track_get_base (track);
  const char *file = item_targets_file (item);
  const char *effector_name = km_skeleton_get_joint (skeleton, (guint) effector)->name;
  g_autofree char *shown = NULL;
  g_autofree char *shown_effector = NULL;
  g_autofree char *message = NULL;
  int base;

  if (name == NULL)
    return TRUE;
  shown = km_parse_shown_file (name);
  shown_effector = km_parse_shown_file (effector_name);
  base = km_skeleton_find_effector (skeleton, name);
  if (base < 0)
    {
      /* Translators: the first %s is a model file (or "the default skeleton"). */
      message = g_strdup_printf (_("%s has no joint or link “%s” to use as the base"),
                                 shared->model_label, shown);
      km_cli_set_track_setting_error (file, "base", message, error);
      return FALSE;
    }
  if (km_skeleton_find_ancestor (skeleton, effector, name) < 0)
    {
      if (file == NULL && base != effector)
        return TRUE;
      /* Translators: the last %s is a model file (or "the default skeleton"). */
      message = g_strdup_printf (_("the base “%s” is not above the end effector “%s” in "
                                   "%s: the base is a joint the effector's chain starts "
                                   "from"), shown, shown_effector, shared->model_label);
      km_cli_set_track_setting_error (file, "base", message, error);
      return FALSE;
    }
  for (int j = effector; j != base; j = km_skeleton_get_joint (skeleton, (guint) j)->parent)
    {
      const KmJoint *joint = km_skeleton_get_joint (skeleton, (guint) j);

      if (joint->dof_index >= 0 && joint->n_dof > 0)
        return TRUE;
    }
  /* Translators: the last %s is a model file (or "the default skeleton"). */
  message = g_strdup_printf (_("no joint moves between the end effector “%s” and its base "
                               "“%s” in %s: choose another effector or base"),
                             shown_effector, shown, shared->model_label);
  km_cli_set_track_setting_error (file, "base", message, error);
  return FALSE;
}

/* Worker thread: the solved motion as Choreonoid plays it, the body where the solve put
 * it (see km_body_motion_new_from_animation() for the joint ids). */
static gboolean
write_body_motion (KmSkeleton         *skeleton,
                   const KmAnimation  *animation,
                   const KmTransform  *root_pose,
                   const char         *path,
                   GError            **error)
{
  g_autoptr(KmBodyMotion) motion = NULL;
  double rate = km_animation_get_frame_rate (animation);

  /* Errors name the output file, untranslated, as a loader's name the input. */
  if (!(rate > 0 && rate <= KM_BODY_MOTION_MAX_RATE))
    {
      g_set_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT,
                   /* Translators: frames per second, twice */
                   _("a body motion cannot have %g frames per second (at most %g)"), rate,
                   KM_BODY_MOTION_MAX_RATE);
      km_parse_error_prefix (error, path, (KmSourcePos) { 0, 0 });
      return FALSE;
    }
  motion = km_body_motion_new_from_animation (skeleton, animation, rate, root_pose, error);
  if (motion == NULL)
    {
      km_parse_error_prefix (error, path, (KmSourcePos) { 0, 0 });
      return FALSE;
    }
  /* Nothing Kinema could not read back (km_body_motion_load_file()) is written, and an
   * earlier file stays: the writer counts the motion's bytes, and its numbers and lists as
   * the reader counts them (km_body_motion_check_size()). */
  return km_body_motion_save (motion, path, error);
}

/*
 * Whether what @item is to write for the @n_frames frames @problem solves could be read
 * back (km_animation_json_check_size(), km_body_motion_check_size()): checked before the
 * solve, counting every value at its shortest; else @error, said of the targets: at the
 * last keyframe's "frame" value (which sets the length) when they are a file, as any error
 * in one is (DESIGN.md, "Error locations"), else of what they are.
 */
static gboolean
check_output_size (const SolveItem    *item,
                   const SolveShared  *shared,
                   const KmIkProblem  *problem,
                   const KmTargetTrack *track,
                   guint64             n_frames,
                   GError            **error)
{
  g_autoptr(GError) size_error = NULL;
  g_autofree char *message = NULL;
  g_autofree char *location = NULL;

  if (shared->output_format == OUTPUT_BODY_MOTION)
    {
      double rate = km_target_track_get_frame_rate (track);

      /* A rate no body motion has: said by the writer. */
      if (!(rate > 0 && rate <= KM_BODY_MOTION_MAX_RATE)
          || km_body_motion_check_size (problem->skeleton, rate, n_frames, &size_error))
        return TRUE;
    }
  else if (km_animation_json_check_size (shared->skeleton, n_frames, &size_error))
    return TRUE;
  /* Translators: the %s is a reason, e.g. "an animation of 1000001 frames for
   * this model would be larger than Kinema reads back (…)" */
  message = g_strdup_printf (_("%s: nothing was solved or written"), size_error->message);
  if (item->track != NULL || item->targets_path == NULL || n_frames == 0)
    {
      g_set_error_literal (error, KM_IK_ERROR, KM_IK_ERROR_INVALID, message);
      return FALSE;
    }
  /* Printed as it is (print_error()), as a loader's error; the prefix is never
   * translated. */
  location = km_cli_keyframe_location (item->targets_path, (guint) (n_frames - 1));
  g_set_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT, "%s: %s", location, message);
  return FALSE;
}

static gboolean
solve_one (SolveItem    *item,
           SolveShared  *shared,
           GError      **error)
{
  g_autoptr(KmTargetTrack) track = NULL;
  g_autoptr(KmIkProblem) problem = NULL;
  g_autoptr(KmAnimation) animation = NULL;
  g_autoptr(GTimer) timer = NULL;
  guint last;
  int effector;

  track = item->track != NULL ? km_target_track_ref (item->track)
                               : load_targets (item->targets_path, error);
  if (track == NULL)
    return FALSE;

  effector = resolve_effector (item, shared, track, error);
  if (effector < 0 || !check_track_base (item, shared, track, effector, error))
    return FALSE;

  last = km_target_track_get_last_frame (track);
  problem = km_ik_problem_new (shared->skeleton, effector);
  /* The track's base first (a Scenebuilder ik's ref): the joints from there up keep the
   * model's pose, which the track's targets were given at. */
  km_ik_problem_use_track (problem, track);
  seed_problem (problem, shared->model_pose);
  if (!check_output_size (item, shared, problem, track, (guint64) last + 1, error))
    return FALSE;
  g_atomic_int_add (&shared->frames_total, last + 1);
  g_atomic_int_set (&item->n_frames, last + 1);
  if (shared->ik_hook != NULL)
    km_body_handler_ik_hook_install (shared->ik_hook, problem);
  timer = g_timer_new ();
  animation = km_ik_solve_track (problem, track, 0, last, frame_done_cb, progress_cb, item,
                                 NULL, error);
  item->seconds = g_timer_elapsed (timer, NULL);
  if (animation == NULL)
    {
      /* The solver refuses the model, as bench-ik does (km_cli_seed_pose_is_finite()). */
      if (!km_cli_seed_pose_is_finite (problem))
        item->error_subject = shared->model_location;
      return FALSE;
    }
  km_animation_set_frame_rate (animation, km_target_track_get_frame_rate (track));
  /* Every frame keeps the coupling of the model's linked joints, as a drag does; the
   * residuals (the stats, the missed keyframes) are then those of the pose written. */
  if (shared->handlers != NULL && km_body_handler_set_has_linked_joints (shared->handlers))
    {
      g_autoptr(KmBodyHandlerSet) linked = km_body_handler_set_clone (shared->handlers);

      km_body_handler_set_apply_linked_solved (linked, problem, track, animation, 0,
                                               km_animation_get_n_frames (animation));
    }
  km_animation_get_stats (animation, &item->stats);
  item->first_unreached_key = G_MAXUINT;
  for (guint f = 0; f < km_animation_get_n_frames (animation); f++)
    {
      double pos_err, rot_err;

      /* The position alone: the solve keeps position first, and a keyframe's orientation
       * met on another branch is print_missed_keys()'s. */
      if (km_animation_get_residual (animation, f, &pos_err, &rot_err)
          && km_ik_residual_missed (pos_err, 0.0, FALSE))
        {
          item->n_unreached++;
          if (item->first_unreached_key == G_MAXUINT
              && km_target_track_find_keyframe (track, f) >= 0)
            item->first_unreached_key = f;
        }
    }
  {
    const KmAnimationKeyMiss *missed = km_animation_get_missed_keys (animation,
                                                                     &item->n_missed);

    if (item->n_missed > 0)
      item->missed = g_memdup2 (missed, item->n_missed * sizeof *missed);
    item->n_unchecked = km_animation_get_unchecked_keys (animation);
  }
  item->frame_rate = km_animation_get_frame_rate (animation);
  for (guint f = 0; f < km_animation_get_n_frames (animation); f++)
    if (km_animation_get_jumped (animation, f))
      {
        if (item->n_jumps < MAX_JUMPS_SHOWN)
          {
            SolveJump *jump = &item->jumps[item->n_jumps];
            guint dof;

            jump->frame = f;
            jump->step = km_animation_get_step (animation, f, &dof);
            jump->linear = km_animation_get_dof_type (animation, dof) == KM_JOINT_PRISMATIC;
          }
        item->n_jumps++;
      }

  if (shared->output_format == OUTPUT_BODY_MOTION)
    item->write_failed = !write_body_motion (shared->skeleton, animation, &problem->root_pose,
                                             item->output_path, error);
  else
    item->write_failed = !km_animation_json_save (animation, item->output_path, error);
  return !item->write_failed;
}

static void
solve_worker (gpointer data,
              gpointer user_data)
{
  SolveItem *item = data;
  SolveShared *shared = user_data;

  km_parse_warnings_push (km_cli_print_warning, NULL);
  solve_one (item, shared, &item->error);
  km_parse_warnings_pop ();

  g_mutex_lock (&shared->mutex);
  item->done = TRUE;
  shared->n_finished++;
  g_cond_signal (&shared->cond);
  g_mutex_unlock (&shared->mutex);
}

static const char *
output_suffix (OutputFormat format)
{
  return format == OUTPUT_BODY_MOTION ? ".seq" : ".animation.json";
}

/* The name --to gives @format, as the names of outputs do (km_cli_check_output_format()):
 * the first of output_formats[]. */
static const char *
output_format_name (OutputFormat format)
{
  for (gsize f = 0; f < G_N_ELEMENTS (output_formats); f++)
    if (output_formats[f].format == format)
      return output_formats[f].name;
  g_return_val_if_reached (NULL);
}

/* The format that the extension of the output file @output (in any case) asks for: .seq
 * a body motion, .json an animation.json; -1 for a name that asks for neither (none, or
 * another kind of file, which km_cli_check_output_name() refuses). @dot (out, nullable):
 * the extension as given. */
static int
output_format_of_name (const char  *output,
                       char       **dot)
{
  guint kinds = km_cli_output_name_kinds (output, dot);

  if (kinds & KM_CLI_KIND_BIT (KM_FILE_KIND_BODY_MOTION))
    return OUTPUT_BODY_MOTION;
  if (kinds & KM_CLI_KIND_BIT (KM_FILE_KIND_ANIMATION))
    return OUTPUT_ANIMATION_JSON;
  return -1;
}

/* "walk.json" → "walk.animation.json" (or "walk.seq"); the embedded default is
 * "targets.json". */
static char *
output_name (const char   *targets_path,
             OutputFormat  format)
{
  g_autofree char *base = g_path_get_basename (targets_path != NULL ? targets_path
                                                                    : KM_DEFAULT_TARGETS_NAME);
  char *dot = strrchr (base, '.');

  if (dot != NULL && dot != base)
    *dot = '\0';
  return g_strconcat (base, output_suffix (format), NULL);
}

/* A model's own target "reach" → "reach.animation.json" (no directory in it). */
static char *
target_output_name (const char   *name,
                    OutputFormat  format)
{
  g_autofree char *safe = g_strdup (name != NULL && *name != '\0' ? name : "target");

  g_strdelimit (safe, G_DIR_SEPARATOR_S "/", '_');
  return g_strconcat (safe, output_suffix (format), NULL);
}

/*
 * Without TARGETS, the embedded default targets are for the default skeleton's end
 * effector: on another model they mean nothing unless it has a joint of that name (or
 * --effector chooses one). FALSE, with the joint's name in *@wanted, when it has not.
 */
static gboolean
default_targets_fit (KmSkeleton  *skeleton,
                     char       **wanted)
{
  g_autoptr(KmSkeleton) fallback = load_skeleton (NULL, NULL, NULL);
  int index = fallback != NULL ? km_skeleton_get_default_effector (fallback) : -1;
  const char *name;

  if (index < 0)
    return TRUE;
  name = km_skeleton_get_joint (fallback, (guint) index)->name;
  if (km_skeleton_find_joint (skeleton, name) >= 0)
    return TRUE;
  *wanted = g_strdup (name);
  return FALSE;
}

/* Says on stderr why @item failed: a loader's located message as it is, a write failure
 * of the output (km_cli_print_write_error()), anything else of what it is about. */
static void
print_error (const SolveItem *item)
{
  g_autofree char *shown = NULL;

  if (item->write_failed)
    km_cli_print_write_error (item->output_path, item->error);
  else if (item->error->domain == KM_PARSE_ERROR)
    fprintf (stderr, "%s\n", item->error->message);
  else
    {
      /* The subject and label name the model as shown already (SolveShared). */
      if (item->error_subject == NULL && item->label == NULL && item->targets_path != NULL)
        shown = km_parse_shown_file (item->targets_path);
      fprintf (stderr, "%s: %s\n",
               item->error_subject != NULL ? item->error_subject
               : item->label != NULL ? item->label
               : shown != NULL ? shown
                               : _("the default targets"),
               item->error->message);
    }
}

/* At most this many missed keyframes are said one by one for a targets file; the rest
 * are counted. */
#define MAX_MISSED_SHOWN 5

/*
 * Warns on stderr about each keyframe @item's motion misses although its pose can be met
 * on its own (km_ik_find_missed_keys(): the motion stays on the IK branch it started on),
 * so that a frame reached 180° off does not pass for a solved one: located at the
 * keyframe's "frame" value in the targets file, as a loader warns; for a model's own IK
 * target of that target (its label), for the embedded default targets unlocated.
 */
static void
print_missed_keys (const SolveItem *item)
{
  const char *file = item_targets_file (item);
  g_autofree char *shown = NULL;

  /* After the lines before it, as print_error() is. */
  if (item->n_missed > 0 || item->n_unchecked > 0)
    fflush (stdout);
  for (guint i = 0; i < MIN (item->n_missed, MAX_MISSED_SHOWN); i++)
    {
      const KmAnimationKeyMiss *miss = &item->missed[i];
      g_autofree char *location = file != NULL ? km_cli_keyframe_location (file, miss->frame)
                                               : g_strdup (item->label);
      g_autofree char *text =
        /* Translators: a warning of `kinema-cli solve`: a frame number, then the motion's
         * orientation error in degrees and its position error in millimetres at that
         * keyframe. A branch is one of the joint solutions (elbow up or down…) that
         * meet the same target. */
        g_strdup_printf (_("keyframe at frame %u can be met, but the motion reaches it "
                           "%.1f° off (position %.3f mm off): to stay continuous it keeps "
                           "to the branch it started on; a keyframe in between can lead it "
                           "across"), miss->frame, miss->rot_err * 180.0 / G_PI,
                         miss->pos_err * 1000.0);

      km_cli_print_warning_at (location, text);
    }
  if (item->n_missed > MAX_MISSED_SHOWN)
    {
      guint rest = item->n_missed - MAX_MISSED_SHOWN;
      g_autofree char *text =
        /* Translators: after five warnings about missed keyframes, the number of the
         * others */
        g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "… and %u more keyframe like these",
                                      "… and %u more keyframes like these", rest), rest);

      if (file != NULL)
        shown = km_parse_shown_file (file);
      km_cli_print_warning_at (file != NULL ? shown : item->label, text);
    }
  if (item->n_unchecked > 0)
    {
      if (shown == NULL && file != NULL)
        shown = km_parse_shown_file (file);
      fprintf (stderr,
               /* Translators: a note of `kinema-cli solve`: a targets file (or a model's
                * target), then how many keyframes the motion misses were not solved on
                * their own to see whether a pose meets them */
               g_dngettext (GETTEXT_PACKAGE,
                            "%s: note: %u keyframe the motion misses was not checked "
                            "for whether a pose meets it (the check stops after a few dozen "
                            "solves)\n",
                            "%s: note: %u keyframes the motion misses were not checked "
                            "for whether a pose meets them (the check stops after a few dozen "
                            "solves)\n", item->n_unchecked),
               file != NULL ? shown : item->label, item->n_unchecked);
    }
}

/*
 * Warns on stderr when frames of @item's motion miss their targets (a target out of
 * reach): how many, and the largest position error, which the stdout line's max_pos_err
 * alone would not say. Located at the first keyframe missed when one is (at its "frame"
 * value in the targets file), else at the targets file as the jumps are; for a model's own
 * IK target at that target (its label).
 */
static void
print_unreached (const SolveItem *item)
{
  const char *file = item_targets_file (item);
  g_autofree char *location = NULL;
  g_autofree char *text = NULL;

  if (item->n_unreached == 0)
    return;
  if (file != NULL)
    location = item->first_unreached_key != G_MAXUINT
               ? km_cli_keyframe_location (file, item->first_unreached_key)
               : km_parse_shown_file (file);
  else
    location = g_strdup (item->label);
  text =
    /* Translators: a warning of `kinema-cli solve`: a number of frames, the number of
     * frames in all, then the largest distance in millimetres between the end effector
     * and its target */
    g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                  "%u of %u frames misses its target (out of reach?): the "
                                  "end effector ends up to %.3f mm from it",
                                  "%u of %u frames miss their targets (out of reach?): the "
                                  "end effector ends up to %.3f mm from them",
                                  item->n_unreached),
                     item->n_unreached, item->stats.n_frames, item->stats.max_pos_err * 1000.0);
  fflush (stdout);
  km_cli_print_warning_at (location, text);
}

/*
 * Warns on stderr about each frame @item's motion jumps to (km_animation_get_jumped(): the
 * solver had to move a joint much further in that one step than around it, as where the
 * keyframe at frame 0 keeps a pose that the targets after it cannot follow on from), which
 * a robot playing the motion would take at that speed: located at the targets file, as the
 * missed keyframes' count is; for a model's own IK target at that target (its label).
 */
static void
print_jumps (const SolveItem *item)
{
  const char *file = item_targets_file (item);
  g_autofree char *shown = file != NULL ? km_parse_shown_file (file) : NULL;
  const char *location = file != NULL ? shown : item->label;

  if (item->n_jumps > 0)
    fflush (stdout);
  for (guint i = 0; i < MIN (item->n_jumps, MAX_JUMPS_SHOWN); i++)
    {
      const SolveJump *jump = &item->jumps[i];
      g_autofree char *text = NULL;

      if (jump->linear)
        text =
          /* Translators: a warning of `kinema-cli solve`: a frame number, how far a
           * prismatic joint moves in that one frame (m), then that as a speed (m/s) at the
           * animation's frame rate (frames per second) */
          g_strdup_printf (_("the motion jumps at frame %u (%.3f m in one frame, %.2f m/s at "
                             "%g fps): a joint moves much further there than around it; a "
                             "keyframe in between, or one at frame 0 that the targets "
                             "follow on from, can smooth it"),
                           jump->frame, jump->step, jump->step * item->frame_rate,
                           item->frame_rate);
      else
        text =
          /* Translators: a warning of `kinema-cli solve`: a frame number, how far a joint
           * turns in that one frame (radians), then that as a speed (rad/s) at the
           * animation's frame rate (frames per second) */
          g_strdup_printf (_("the motion jumps at frame %u (%.3f rad in one frame, %.1f rad/s "
                             "at %g fps): a joint turns much further there than around it; a "
                             "keyframe in between, or one at frame 0 that the targets "
                             "follow on from, can smooth it"),
                           jump->frame, jump->step, jump->step * item->frame_rate,
                           item->frame_rate);
      km_cli_print_warning_at (location, text);
    }
  if (item->n_jumps > MAX_JUMPS_SHOWN)
    {
      guint rest = item->n_jumps - MAX_JUMPS_SHOWN;
      g_autofree char *text =
        /* Translators: after five warnings about frames where the motion jumps, the number
         * of the others */
        g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "… and %u more frame the motion "
                                      "jumps at", "… and %u more frames the motion jumps at",
                                      rest), rest);

      km_cli_print_warning_at (location, text);
    }
}

static void print_result (const SolveItem *item,
                          FILE            *stream);

/*
 * Main thread, @item done: its warnings or error on stderr, then its line (in argument
 * order, a line for every item, failed or not: the others' animations are kept, and said,
 * even when the exit status is 1), flushed. FALSE when it failed.
 */
static gboolean
print_item (const SolveItem *item,
            const char      *output)
{
  /* With the animation on standard output, stdout holds it alone. */
  FILE *stream = output != NULL && km_cli_output_is_stdout (output) ? stderr : stdout;

  if (item->error != NULL)
    {
      fflush (stdout);
      print_error (item);
    }
  else
    {
      print_missed_keys (item);
      print_jumps (item);
      print_unreached (item);
    }
  print_result (item, stream);
  fflush (stream);
  return item->error == NULL;
}

/*
 * The item's stdout line: its summary, or when it failed "error=1". With several items,
 * every line ends in " targets=FILE" (" target=NAME" for a model's own IK targets), the
 * last key, so that a line is never misattributed, not even after a failure (its spaces
 * written \x20: km_format_append_field()); a single item's line is the summary
 * alone.
 */
static void
print_result (const SolveItem *item,
              FILE            *stream)
{
  g_autoptr(GString) line = g_string_new (NULL);

  if (item->error != NULL)
    g_string_append (line, "error=1");
  else
    {
      char b[5][G_ASCII_DTOSTR_BUF_SIZE];

      g_string_append_printf (line, "frames=%u mean_pos_err=%s max_pos_err=%s "
                              "mean_rot_err=%s max_rot_err=%s seconds=%s",
                              item->stats.n_frames,
                              g_ascii_formatd (b[0], sizeof b[0], "%.6g", item->stats.mean_pos_err),
                              g_ascii_formatd (b[1], sizeof b[1], "%.6g", item->stats.max_pos_err),
                              g_ascii_formatd (b[2], sizeof b[2], "%.6g", item->stats.mean_rot_err),
                              g_ascii_formatd (b[3], sizeof b[3], "%.6g", item->stats.max_rot_err),
                              g_ascii_formatd (b[4], sizeof b[4], "%.6f", item->seconds));
    }
  if (item->line_key != NULL)
    {
      g_string_append_printf (line, " %s=", item->line_key);
      km_format_append_field (line, item->line_value);
    }
  else if (item->error != NULL)
    return;   /* one item: its message says it all, as it always has */
  fprintf (stream, "%s\n", line->str);
}

int
km_cli_solve (int    argc,
              char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(KmSkeleton) skeleton = NULL;
  g_autoptr(KmBodyHandlerSet) handlers = NULL;
  g_autoptr(KmBodyHandlerIkHook) ik_hook = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GHashTable) outputs = NULL;
  g_autoptr(KmCliInputSet) inputs = NULL;
  g_autoptr(KmModelExtras) extras = NULL;
  GPtrArray *scene_targets;
  g_autofree char *output = NULL;
  g_autofree char *effector = NULL;
  g_autofree char *to = NULL;
  g_autofree SolveItem *items = NULL;
  SolveShared shared = { 0, };
  GThreadPool *pool;
  gboolean show_progress;
  gboolean output_is_dir;
  const char *skeleton_path;
  g_autofree char *shown_model = NULL;
  g_autofree char *model_location = NULL;
  const char *model_label;
  int effector_index = -1;
  int jobs = G_MININT;   /* not given */
  OutputFormat output_format = OUTPUT_ANIMATION_JSON;
  int status = KM_CLI_EXIT_OK;
  int ret;
  guint n_items;
  guint n_clashes = 0;
  guint n_printed = 0;
  gpointer first;
  const GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      N_("Write the animation to FILE, or the animations into DIRECTORY"), N_("FILE|DIRECTORY") },
    { "to", 't', 0, G_OPTION_ARG_STRING, &to,
      N_("Write animations as FORMAT: KINEMA-ANIMATION-JSON (default) or "
         "CHOREONOID-BODY-MOTION (a Choreonoid .seq)"), N_("FORMAT") },
    { "jobs", 'j', 0, G_OPTION_ARG_INT, &jobs,
      N_("Solve N targets files at a time (default: the number of processors)"), N_("N") },
    { "effector", 'e', 0, G_OPTION_ARG_STRING, &effector,
      N_("Use joint NAME (or the joint that moves URDF link NAME) as the end effector"),
      N_("NAME") },
    { NULL }
  };

  context = g_option_context_new (_("[SKELETON [TARGETS…]] — solve IK targets into animations"));
  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  km_cli_add_model_options (context);
  g_option_context_set_description (context,
    _("Writes one animation.json per targets file. Without arguments the embedded default\n"
      "skeleton and targets are solved. Without TARGETS, the IK targets the model defines\n"
      "(Scenebuilder <ik>) are solved, one animation each (NAME.animation.json when there\n"
      "are several); a model without any gets the default targets, an error unless it has\n"
      "their end effector's joint or --effector names one.\n"
      "With one targets file, -o names the output file (default: animation.json); with\n"
      "several, -o names a directory (default: the current one) that receives\n"
      "NAME.animation.json for every NAME.json (a missing one is created first; one\n"
      "that is no directory yet and is named like a file, out.json or x.seq, is refused).\n"
      "-o - (or /dev/stdout) writes the one animation to standard output, and the\n"
      "summary line to standard error.\n"
      "--to CHOREONOID-BODY-MOTION writes Choreonoid body motions (.seq, format\n"
      "CHOREONOID-BODY-MOTION-YAML) instead, named NAME.seq (default: animation.seq):\n"
      "one value per Choreonoid joint id (rad, m), as `convert --to CHOREONOID-BODY`\n"
      "numbers the model's joints, and the root link's pose. Without --to, an output file\n"
      "whose name ends in .seq gets a body motion too; with --to, an output file whose\n"
      "extension is for the other format (.seq, .json) is refused (exit 2).\n"
      "Standard output ends with one line per animation, in argument order:\n"
      "  frames=N mean_pos_err=M max_pos_err=M mean_rot_err=R max_rot_err=R seconds=S\n"
      "(metres, radians; the orientation errors are 0 for position-only targets).\n"
      "With several targets files every line ends in targets=FILE (with several IK\n"
      "targets of the model, target=NAME), and a file that fails still gets its line,\n"
      "error=1 targets=FILE, its message on standard error. The animations of the files\n"
      "that were solved are written all the same; the exit status is 1 when any failed.\n"
      "An output that is an input file, whose extension is for another kind of file\n"
      "(.urdf, .body, …) or that exists and holds anything but an animation or body\n"
      "motion is refused (exit 2) before anything is written."));
  ret = km_cli_parse_options (context, &argc, &argv);
  if (ret >= 0)
    return ret;
  if (jobs != G_MININT && jobs < 1)
    return km_cli_usage_error (context, _("--jobs must be a positive number"));
  if (to != NULL)
    {
      gsize f;

      for (f = 0; f < G_N_ELEMENTS (output_formats); f++)
        if (km_format_name_matches (output_formats[f].name, to))
          break;
      if (f == G_N_ELEMENTS (output_formats))
        {
          g_autofree char *message =
            /* Translators: %s is what the user gave; the names after it are not translated */
            g_strdup_printf (_("unknown output format “%s” (expected KINEMA-ANIMATION-JSON or "
                               "CHOREONOID-BODY-MOTION)"), to);

          return km_cli_usage_error (context, message);
        }
      output_format = output_formats[f].format;
    }

  skeleton_path = argc > 1 ? argv[1] : NULL;
  /* Shown as every location shows a file: a message about it stays one line. */
  shown_model = skeleton_path != NULL ? km_parse_shown_file (skeleton_path) : NULL;
  model_label = shown_model != NULL ? shown_model : _("the default skeleton");
  model_location = km_cli_model_location (skeleton_path, model_label);

  km_parse_warnings_push (km_cli_print_warning, NULL);
  skeleton = load_skeleton (skeleton_path, &extras, &error);
  km_parse_warnings_pop ();
  if (skeleton == NULL)
    {
      fprintf (stderr, "%s\n", error->message);
      return KM_CLI_EXIT_INVALID;
    }

  if (!km_cli_check_model_moves (skeleton, skeleton_path, KM_DEFAULT_SKELETON_NAME))
    return KM_CLI_EXIT_INVALID;

  /* --effector names a joint (or a URDF link) of the model, whose chain moves: checked
   * once, before any targets file, and said of the option. */
  if (effector != NULL)
    {
      effector_index = km_skeleton_find_effector (skeleton, effector);
      if (effector_index < 0 || !chain_moves (skeleton, effector_index))
        {
          g_autofree char *shown = km_parse_shown_file (effector);

          /* The prefix is never translated; the name one line (km_parse_shown_file()). */
          fprintf (stderr, "kinema-cli: --effector %s: ", shown);
          if (effector_index < 0)
            /* Translators: %s is a model file (or "the default skeleton"). */
            fprintf (stderr, _("%s has no joint or link of that name"), model_label);
          else
            /* Translators: %s is a model file (or "the default skeleton"). */
            fprintf (stderr, _("no joint moves between that end effector and the root of %s: "
                               "choose another one"), model_label);
          fputc ('\n', stderr);
          return KM_CLI_EXIT_INVALID;
        }
    }

  /* A model without TARGETS: its own IK targets (Scenebuilder <ik>), one animation each;
   * without any, the default targets only where they can mean something. */
  scene_targets = argc == 2 && extras != NULL ? extras->targets : NULL;
  if (scene_targets != NULL && scene_targets->len == 0)
    {
      g_autofree char *wanted = NULL;

      scene_targets = NULL;
      if (effector == NULL && !default_targets_fit (skeleton, &wanted))
        {
          /* About the whole model: at FILE:1:1. The prefix is never translated. */
          fprintf (stderr, "%s: ", model_location);
          fprintf (stderr, _("the model defines no IK targets and has no joint “%s” that the "
                             "default targets are for: give a targets file (or --effector "
                             "NAME)"), wanted);
          fputc ('\n', stderr);
          return KM_CLI_EXIT_INVALID;
        }
    }
  if (scene_targets != NULL)
    n_items = scene_targets->len;
  else
    n_items = argc > 2 ? (guint) argc - 2 : 1;
  output_is_dir = n_items > 1
                  || (output != NULL && (g_str_has_suffix (output, G_DIR_SEPARATOR_S)
                                         || g_file_test (output, G_FILE_TEST_IS_DIR)));
  /* Several animations go into a directory: standard output, or a name that is no
   * directory yet and ends like a file this command writes (out.json, x.seq), was meant
   * for one animation, and would become a folder of that name. */
  if (n_items > 1 && output != NULL && !g_str_has_suffix (output, G_DIR_SEPARATOR_S)
      && !g_file_test (output, G_FILE_TEST_IS_DIR))
    {
      g_autofree char *dot = NULL;
      g_autofree char *message = NULL;
      g_autofree char *shown_output = km_parse_shown_file (output);

      km_cli_output_name_kinds (output, &dot);
      if (km_cli_output_is_stdout (output))
        /* Translators: %u is a number of animations (2 or more) */
        message = g_strdup_printf (_("%s: %u animations are to be written, and several "
                                     "animations need a directory, not standard output: "
                                     "nothing was written (give -o DIRECTORY)"),
                                   shown_output, n_items);
      else if (dot != NULL)
        /* Translators: %u is a number of animations (2 or more), the last %s an
         * extension (“.json”) */
        message = g_strdup_printf (_("%s: %u animations are to be written, and several "
                                     "animations need a directory, not a file name ending "
                                     "in “%s”: nothing was written (give -o DIRECTORY)"),
                                   shown_output, n_items, dot);
      if (message != NULL)
        return km_cli_usage_error (NULL, message);
    }
  /* Without --to, the name of the one output file may ask for a body motion; with it,
   * it must not ask for the other format. A directory's name says nothing. */
  if (!output_is_dir && output != NULL)
    {
      if (to == NULL)
        {
          if (output_format_of_name (output, NULL) == OUTPUT_BODY_MOTION)
            output_format = OUTPUT_BODY_MOTION;
        }
      else
        {
          /* Which of the two a name for the other format meant cannot be told. */
          g_autofree char *message =
            km_cli_check_output_format (output, KM_CLI_KIND_BIT (KM_FILE_KIND_ANIMATION) |
                                                KM_CLI_KIND_BIT (KM_FILE_KIND_BODY_MOTION),
                                        output_format_name (output_format), to,
                                        output_suffix (output_format));

          if (message != NULL)
            return km_cli_usage_error (NULL, message);
        }
    }
  items = g_new0 (SolveItem, n_items);
  outputs = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < n_items; i++)
    {
      items[i].targets_path = argc > 2 ? argv[i + 2] : NULL;
      if (scene_targets != NULL)
        {
          const char *name = g_ptr_array_index (extras->target_names, i);
          g_autofree char *shown_name = km_parse_shown_file (name);

          items[i].track = km_target_track_ref (g_ptr_array_index (scene_targets, i));
          /* Translators: a model file, then the name of an IK target it defines */
          items[i].label = g_strdup_printf (_("%s, IK target “%s”"), shown_model, shown_name);
          if (n_items > 1)
            {
              items[i].line_key = "target";
              items[i].line_value = name;
            }
        }
      else if (n_items > 1)
        {
          items[i].line_key = "targets";
          items[i].line_value = items[i].targets_path;
        }
      if (output_is_dir)
        {
          g_autofree char *name = scene_targets != NULL
                                  ? target_output_name (g_ptr_array_index (extras->target_names, i),
                                                        output_format)
                                  : output_name (items[i].targets_path, output_format);

          items[i].output_path = g_build_filename (output != NULL ? output : ".", name, NULL);
        }
      else
        items[i].output_path = g_strdup (output != NULL ? km_cli_output_path (output)
                                         : output_format == OUTPUT_BODY_MOTION ? "animation.seq"
                                                                               : "animation.json");

      if (g_hash_table_lookup_extended (outputs, items[i].output_path, NULL, &first))
        {
          const SolveItem *other = &items[GPOINTER_TO_UINT (first) - 1];
          g_autofree char *message = NULL;
          g_autofree char *shown_output = km_parse_shown_file (items[i].output_path);
          g_autofree char *shown_a = km_parse_shown_file (other->line_value);
          g_autofree char *shown_b = km_parse_shown_file (items[i].line_value);

          /* Every clash is said, each naming both inputs, before the command ends. */
          if (scene_targets != NULL)
            /* Translators: an output file, then the names of two IK targets of the model */
            message = g_strdup_printf (_("%s: the IK targets “%s” and “%s” would both be "
                                         "written there: nothing was written"),
                                       shown_output, shown_a, shown_b);
          else
            /* Translators: an output file, then two targets files as given */
            message = g_strdup_printf (_("%s: the targets files %s and %s would both be "
                                         "written there: nothing was written (give them "
                                         "different names)"), shown_output, shown_a, shown_b);
          km_cli_usage_error (NULL, message);
          n_clashes++;
        }
      else
        g_hash_table_insert (outputs, items[i].output_path, GUINT_TO_POINTER (i + 1));
    }
  if (n_clashes > 0)
    {
      for (guint j = 0; j < n_items; j++)
        solve_item_clear (&items[j]);
      return KM_CLI_EXIT_USAGE;
    }
  /* No animation over an input, nor over a file of another kind, by its name or by what
   * it holds (as `convert` and `bench-ik` refuse them): all checked before anything is
   * created or written, each input stat()ed once (thousands of files are a batch). */
  inputs = km_cli_input_set_new ((const char * const *) argv + 1, (gsize) argc - 1);
  for (guint i = 0; i < n_items; i++)
    {
      guint kinds = KM_CLI_KIND_BIT (KM_FILE_KIND_ANIMATION) |
                    KM_CLI_KIND_BIT (KM_FILE_KIND_BODY_MOTION);
      KmFileKind written = output_format == OUTPUT_BODY_MOTION ? KM_FILE_KIND_BODY_MOTION
                                                               : KM_FILE_KIND_ANIMATION;
      g_autofree char *message = km_cli_check_output_name (items[i].output_path, kinds, NULL,
                                                           written);

      if (message == NULL)
        message = km_cli_check_output_file_in (items[i].output_path, kinds, inputs);
      if (message != NULL)
        {
          for (guint j = 0; j < n_items; j++)
            solve_item_clear (&items[j]);
          return km_cli_usage_error (NULL, message);
        }
    }
  /* Only now that nothing is refused any more: the output directory, or the one output
   * file's folder, made now, so that a write cannot fail for it after a long solve. */
  {
    g_autofree char *dir = NULL;
    int write_errno = 0;

    if (output_is_dir)
      dir = g_strdup (output != NULL ? output : ".");
    else if (output != NULL && !km_cli_output_is_stdout (output))
      dir = g_path_get_dirname (output);
    if (dir != NULL && g_mkdir_with_parents (dir, 0777) != 0)
      {
        int saved_errno = errno;
        g_autofree char *shown_dir = km_parse_shown_file (dir);

        fprintf (stderr, "kinema-cli: %s: %s\n", shown_dir, g_strerror (saved_errno));
        for (guint j = 0; j < n_items; j++)
          solve_item_clear (&items[j]);
        return KM_CLI_EXIT_INVALID;
      }
    if (dir != NULL && !dir_is_writable (dir, &write_errno))
      {
        g_autofree char *shown_dir = km_parse_shown_file (dir);

        /* Said before the solve, not after it; the prefix is never translated. */
        fprintf (stderr, "kinema-cli: %s: ", shown_dir);
        /* Translators: %s is the system's reason, e.g. "Permission denied" */
        fprintf (stderr, _("cannot create files in this directory (%s): nothing was solved "
                           "or written"), g_strerror (write_errno));
        fputc ('\n', stderr);
        for (guint j = 0; j < n_items; j++)
          solve_item_clear (&items[j]);
        return KM_CLI_EXIT_INVALID;
      }
  }

  if (jobs == G_MININT)
    jobs = default_jobs ();
  jobs = (int) MIN ((guint) jobs, n_items);

  shared.skeleton = skeleton;
  {
    g_autofree char *model_dir = skeleton_path != NULL ? g_path_get_dirname (skeleton_path) : NULL;

    handlers = km_body_handler_loader_attach (km_body_handler_loader_get_default (), skeleton,
                                              NULL, model_dir);
    /* Say what became of the handlers the model names, as `info` does, each line about
     * the model: "MODEL: handler NAME: failed: …". */
    km_cli_print_handler_reports (handlers, shown_model != NULL ? shown_model
                                                                : KM_DEFAULT_SKELETON_NAME);
    ik_hook = km_body_handler_ik_hook_new (handlers, KM_BODY_HANDLER_CONFIGURATION_NEAREST);
    shared.ik_hook = ik_hook;
    shared.handlers = handlers;
  }
  shared.effector = effector_index;
  if (extras != NULL && extras->initial_q != NULL &&
      extras->n_initial_q == km_skeleton_get_n_dof (skeleton))
    shared.model_pose = extras->initial_q;
  shared.output_format = output_format;
  shared.model_label = model_label;
  shared.model_location = model_location;
  g_mutex_init (&shared.mutex);
  g_cond_init (&shared.cond);
  /* Erased before any other line and at the end (km-cli-progress.c). */
  show_progress = km_cli_progress_begin ();

  pool = g_thread_pool_new (solve_worker, &shared, jobs, TRUE, NULL);
  for (guint i = 0; i < n_items; i++)
    g_thread_pool_push (pool, &items[i], NULL);

  g_mutex_lock (&shared.mutex);
  while (n_printed < n_items)
    {
      gint64 deadline = g_get_monotonic_time () + G_USEC_PER_SEC / 10;

      /* Each file's lines as soon as it and every file before it are done: an interrupted
       * batch has said what it wrote. */
      if (items[n_printed].done)
        {
          guint n_ready = n_printed;

          /* Those done now (their results written before, under the mutex), said
           * without it. */
          while (n_ready < n_items && items[n_ready].done)
            n_ready++;
          g_mutex_unlock (&shared.mutex);
          /* The progress line erased; only this thread draws it again. */
          km_cli_progress_hold ();
          km_cli_progress_release ();
          for (; n_printed < n_ready; n_printed++)
            if (!print_item (&items[n_printed], output))
              status = KM_CLI_EXIT_INVALID;
          g_mutex_lock (&shared.mutex);
          continue;
        }
      g_cond_wait_until (&shared.cond, &shared.mutex, deadline);
      if (show_progress)
        {
          /* Translators: progress on a terminal; the numbers count files, then frames. */
          km_cli_progress_draw (_("Solving: %u of %u files, %u of %u frames…"),
                                shared.n_finished, n_items, frames_solved (items, n_items),
                                (guint) g_atomic_int_get (&shared.frames_total));
        }
    }
  g_mutex_unlock (&shared.mutex);
  km_cli_progress_end ();

  g_thread_pool_free (pool, FALSE, TRUE);
  g_mutex_clear (&shared.mutex);
  g_cond_clear (&shared.cond);

  for (guint i = 0; i < n_items; i++)
    solve_item_clear (&items[i]);
  return status;
}
