/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-ik-job"

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "km-ik-job.h"
#include "km-ik-private.h"

/* A pending frame's values after its DOFs: pos_err, rot_err and jumped (1 or 0). */
#define PENDING_EXTRA 3

/*
 * One solve request. The main thread and the worker share only the fields under @mutex; the
 * worker never sees the job. Frames the worker finishes are appended to @pending (stride
 * n_dof + PENDING_EXTRA: values, pos_err, rot_err, jumped) and at most one idle
 * (@idle_pending) is queued on @context to move them into the job's animation and update
 * :progress, in the manner of Sysprof's set_progress. The solver may hold frames back (see km_ik_solve_trajectory), and
 * may hand over provisional frames that it revises later (km_ik_solve_trajectory_stream(),
 * an SRS arm), so :progress is its own progress (@solved), not the frames'. @pending holds
 * frames @pending_first .. @n_done − 1 of the range; a revision from frame F drops the
 * pending ones from F on and the next frames overwrite the animation's rows from F on.
 */
typedef struct
{
  gatomicrefcount  ref_count;
  GMainContext    *context;
  GCancellable    *cancellable;      /* cancelled by supersede, km_ik_job_cancel, the user */
  guint            first_frame;
  guint            n_frames;         /* frames to solve */
  guint            n_dof;
  gboolean         position_only;    /* the track's orientations are no targets */

  GMutex           mutex;
  GArray          *pending;          /* doubles, see above */
  guint            pending_first;    /* the first of them, an index into the range */
  guint            n_done;           /* frames finished by the worker (a revision lowers it) */
  double           solved;           /* the solver's own progress, 0 … 1 */
  gboolean         idle_pending;

  /* Main thread only. */
  GWeakRef         job;
  GCancellable    *user_cancellable;
  gulong           user_cancelled_id;
} SolveRun;

/*
 * The caller's side of one request, kept until the worker has stopped. The GTask that
 * answers it is made only then, with the job as its source object when the job still
 * lives: a running solve holds no reference to the job, so dropping the last one cancels
 * the solve (dispose) and the job is gone at once.
 */
typedef struct
{
  GCancellable        *cancellable;
  GAsyncReadyCallback  callback;
  gpointer             user_data;
} SolveReply;

static void
solve_reply_free (SolveReply *reply)
{
  g_clear_object (&reply->cancellable);
  g_free (reply);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SolveReply, solve_reply_free)

/* The most progress shown before a solve is done: its last frame is followed by the check
 * of the keyframes it missed (check_keys), which may take a few dozen solves. */
#define PROGRESS_BEFORE_DONE 0.999

/* A keyframe's frame and the solved motion's residuals there (NaN: not solved). */
typedef struct
{
  guint  frame;
  double pos_err;
  double rot_err;
} KeyResidual;

/* The worker's input: a deep copy made on the main thread. The worker notes the motion's
 * residuals at the keyframes (@keys) as frames finish, then leaves the keyframes it misses
 * although they can be met in @missed, which the main thread reads once it has stopped. */
typedef struct
{
  KmIkProblem        *problem;
  KmTransform        *targets;
  guint               n_frames;
  SolveRun           *run;
  KmTargetTrack      *track;
  KeyResidual        *keys;
  guint               n_keys;
  guint               next_key;
  KmAnimationKeyMiss *missed;
  guint               n_missed;
  guint               n_unchecked;
} SolveData;

struct _KmIkJob
{
  GObject      parent_instance;

  /* Owned */
  SolveRun    *run;                  /* the current (newest) request, or NULL */
  KmAnimation *animation;
  double       progress;
  gboolean     busy;
};

enum {
  PROP_0,
  PROP_PROGRESS,
  PROP_BUSY,
  PROP_ANIMATION,
  N_PROPS
};

enum {
  FRAMES_READY,
  N_SIGNALS
};

G_DEFINE_FINAL_TYPE (KmIkJob, km_ik_job, G_TYPE_OBJECT)

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static SolveRun *
solve_run_ref (SolveRun *run)
{
  g_atomic_ref_count_inc (&run->ref_count);
  return run;
}

static void
solve_run_unref (SolveRun *run)
{
  if (!g_atomic_ref_count_dec (&run->ref_count))
    return;

  /* Usually dropped on the main thread; the worker may drop the last one when GTask frees
   * the task data there, and everything below is safe on any thread. */
  if (run->user_cancellable != NULL)
    g_cancellable_disconnect (run->user_cancellable, run->user_cancelled_id);
  g_clear_object (&run->user_cancellable);
  g_clear_object (&run->cancellable);
  g_clear_pointer (&run->context, g_main_context_unref);
  g_clear_pointer (&run->pending, g_array_unref);
  g_mutex_clear (&run->mutex);
  g_weak_ref_clear (&run->job);
  g_free (run);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SolveRun, solve_run_unref)

static void
solve_data_free (gpointer data)
{
  SolveData *d = data;

  g_clear_pointer (&d->problem, km_ik_problem_free);
  g_free (d->targets);
  g_clear_pointer (&d->run, solve_run_unref);
  g_clear_pointer (&d->track, km_target_track_unref);
  g_free (d->keys);
  g_free (d->missed);
  g_free (d);
}

static void
set_progress (KmIkJob *self,
              double   progress)
{
  if (self->progress == progress)
    return;
  self->progress = progress;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROGRESS]);
}

static void
set_busy (KmIkJob  *self,
          gboolean  busy)
{
  if (self->busy == busy)
    return;
  self->busy = busy;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

/* Main thread: moves the worker's finished frames into the animation, then tells. */
static void
deliver_pending (KmIkJob  *self,
                 SolveRun *run)
{
  g_autoptr(GArray) frames = NULL;
  guint stride = run->n_dof + PENDING_EXTRA;
  guint first, n;
  double solved, progress;

  g_assert (self->run == run);

  g_mutex_lock (&run->mutex);
  frames = g_steal_pointer (&run->pending);
  run->pending = g_array_new (FALSE, FALSE, sizeof (double));
  first = run->first_frame + run->pending_first;
  run->pending_first = run->n_done;
  solved = run->solved;
  run->idle_pending = FALSE;
  g_mutex_unlock (&run->mutex);

  /* The solver's progress runs ahead of the frames it holds back, and provisional frames
   * run ahead of it (an SRS arm's plain track, before the routed one). 1 belongs to the
   * moment the job is done: after the last frame comes the check of missed keyframes. */
  progress = MIN (solved, PROGRESS_BEFORE_DONE);
  n = frames->len / stride;
  if (n == 0)
    {
      set_progress (self, MAX (self->progress, progress));
      return;
    }

  for (guint i = 0; i < n; i++)
    {
      const double *row = &g_array_index (frames, double, (gsize) i * stride);

      km_animation_set_frame (self->animation, first + i, row);
      km_animation_set_residual (self->animation, first + i, row[run->n_dof],
                                 row[run->n_dof + 1]);
      km_animation_set_jumped (self->animation, first + i, row[run->n_dof + 2] != 0.0);
    }
  g_signal_emit (self, signals[FRAMES_READY], 0, first, n);
  /* A handler may have started a newer solve. */
  if (self->run == run)
    set_progress (self, MAX (self->progress, progress));
}

static gboolean
deliver_idle_cb (gpointer user_data)
{
  SolveRun *run = user_data;
  g_autoptr(KmIkJob) self = g_weak_ref_get (&run->job);

  if (self != NULL && self->run == run)
    deliver_pending (self, run);
  else
    {
      g_mutex_lock (&run->mutex);
      run->idle_pending = FALSE;
      g_mutex_unlock (&run->mutex);
    }
  return G_SOURCE_REMOVE;
}

/* Worker thread, with the run's mutex held: queues the idle that delivers, unless one is
 * queued already. Returns whether the caller must attach it (after unlocking). */
static gboolean
claim_delivery (SolveRun *run)
{
  gboolean schedule = !run->idle_pending;

  run->idle_pending = TRUE;
  return schedule;
}

static void
schedule_delivery (SolveRun *run)
{
  g_autoptr(GSource) source = g_idle_source_new ();

  g_source_set_priority (source, G_PRIORITY_DEFAULT);
  g_source_set_callback (source, deliver_idle_cb, solve_run_ref (run),
                         (GDestroyNotify) solve_run_unref);
  g_source_set_static_name (source, "[kinema] ik job progress");
  g_source_attach (source, run->context);
}

/* The orientation residual a solve reports: none (0) for a position-only track, whose
 * keyframe orientations only show the effector and are no goal, so a frame is never an
 * orientation miss (the editor's marks, the CLI's summary). */
static double
reported_rot_err (const KmIkSolution *solution,
                  gboolean            position_only)
{
  return position_only ? 0.0 : solution->rot_err;
}

/* The keyframes of @track in @first_frame .. @last_frame, residuals not yet known. */
static KeyResidual *
keys_in_range (const KmTargetTrack *track,
               guint                first_frame,
               guint                last_frame,
               guint               *n_keys)
{
  const KmTargetKeyframe *keyframes;
  KeyResidual *keys;
  guint n_keyframes, n = 0;

  keyframes = km_target_track_get_keyframes (track, &n_keyframes);
  keys = g_new (KeyResidual, MAX (n_keyframes, 1));
  for (guint i = 0; i < n_keyframes; i++)
    if (keyframes[i].frame >= first_frame && keyframes[i].frame <= last_frame)
      keys[n++] = (KeyResidual) { keyframes[i].frame, NAN, NAN };
  *n_keys = n;
  return keys;
}

/* Notes the motion's residuals at @frame where a keyframe is; frames come in order, and
 * *@next is the first keyframe not yet passed. */
static void
note_key_residual (KeyResidual *keys,
                   guint        n_keys,
                   guint       *next,
                   guint        frame,
                   double       pos_err,
                   double       rot_err)
{
  while (*next < n_keys && keys[*next].frame < frame)
    (*next)++;
  if (*next < n_keys && keys[*next].frame == frame)
    {
      keys[*next].pos_err = pos_err;
      keys[*next].rot_err = rot_err;
      (*next)++;
    }
}

/* A keyframe's target as hash table key: keyframes that repeat a pose (a hold) are solved
 * once. */
static GBytes *
target_key (const KmTargetKeyframe *keyframe)
{
  double v[7] = {
    keyframe->position.x, keyframe->position.y, keyframe->position.z,
    keyframe->orientation.w, keyframe->orientation.x, keyframe->orientation.y,
    keyframe->orientation.z,
  };

  return g_bytes_new (v, sizeof v);
}

/* The iterations a check may spend on solving keyframe targets on their own, in whole
 * solves' budgets (the problem's max_iterations). A keyframe whose target no pose meets (an
 * orientation a 5-DOF chain cannot take) costs a solve's whole budget, several times what a
 * frame of the motion costs, so a track of thousands of such keyframes would otherwise take
 * many times as long to check as to solve; one out of reach is given up on in a few
 * iterations and costs little. */
#define KEY_CHECK_BUDGET_SOLVES 32

/* A keyframe the motion misses, and how badly (the solver's weighted error). */
typedef struct
{
  const KeyResidual *key;
  double             miss;
} KeyCandidate;

/* Worst miss first, then by frame. */
static int
key_candidate_compare (gconstpointer a,
                       gconstpointer b)
{
  const KeyCandidate *ca = a, *cb = b;

  if (ca->miss != cb->miss)
    return ca->miss > cb->miss ? -1 : 1;
  return ca->key->frame < cb->key->frame ? -1 : ca->key->frame > cb->key->frame;
}

static int
key_miss_frame_compare (gconstpointer a,
                        gconstpointer b)
{
  guint fa = ((const KmAnimationKeyMiss *) a)->frame;
  guint fb = ((const KmAnimationKeyMiss *) b)->frame;

  return fa < fb ? -1 : fa > fb;
}

/*
 * The keyframes among @keys that the motion misses (its residuals there beyond the
 * solver's tolerances, km_ik_residual_missed()) although a pose meets them: @aimed (a
 * problem aimed at the track's point, km_ik_problem_use_track()) solved for the keyframe's
 * target alone, cold, from its seed with its restarts. The orientation counts where @aimed
 * solves for it (a position-only track does not).
 *
 * The work is bounded: keyframes the motion meets are not solved, a target is solved once
 * however often it is keyed (a hold), and the solves together stop once they have spent
 * KEY_CHECK_BUDGET_SOLVES solves' iterations, the worst misses solved first (the motion's
 * error weighted as the solver weighs it), so a few flipped keyframes are found among
 * thousands that no pose meets; the rest are then not reported, only counted in
 * *@n_unchecked. Deterministic (iterations, not time); any thread may call it.
 *
 * Returns: (transfer full): the missed keyframes in frame order (an array of at least one
 *   element, *@n_missed of them used), or NULL with an error (cancelled)
 */
static KmAnimationKeyMiss *
check_keys (const KmIkProblem    *aimed,
            const KmTargetTrack  *track,
            const KeyResidual    *keys,
            guint                 n_keys,
            guint                *n_missed,
            guint                *n_unchecked,
            GCancellable         *cancellable,
            GError              **error)
{
  g_autoptr(GArray) candidates = g_array_new (FALSE, FALSE, sizeof (KeyCandidate));
  g_autoptr(GArray) missed = g_array_new (FALSE, FALSE, sizeof (KmAnimationKeyMiss));
  g_autoptr(GHashTable) solved = NULL;
  g_autoptr(KmIkProblem) cold = NULL;
  gboolean orientation = aimed->orientation_weight > 0;
  double wp = aimed->position_weight > 0 && isfinite (aimed->position_weight)
              ? aimed->position_weight : 1.0;
  KmIkSolution solution = { 0 };
  guint64 budget = (guint64) KEY_CHECK_BUDGET_SOLVES * MAX (aimed->max_iterations, 1);
  guint64 spent = 0;
  guint unchecked = 0;
  gboolean ok = TRUE;

  *n_missed = 0;
  *n_unchecked = 0;
  for (guint i = 0; i < n_keys; i++)
    if (!isnan (keys[i].pos_err)
        && km_ik_residual_missed (keys[i].pos_err, keys[i].rot_err, orientation))
      {
        KeyCandidate candidate = {
          &keys[i],
          wp * keys[i].pos_err + (orientation ? aimed->orientation_weight * keys[i].rot_err : 0),
        };

        g_array_append_val (candidates, candidate);
      }
  if (candidates->len > 0)
    {
      g_array_sort (candidates, key_candidate_compare);
      solved = g_hash_table_new_full (g_bytes_hash, g_bytes_equal,
                                      (GDestroyNotify) g_bytes_unref, g_free);
      cold = km_ik_problem_copy (aimed);
      cold->continuous = FALSE;
    }

  for (guint c = 0; c < candidates->len; c++)
    {
      const KeyResidual *key = g_array_index (candidates, KeyCandidate, c).key;
      const KmTargetKeyframe *keyframe;
      g_autoptr(GBytes) target = NULL;
      double *met;

      keyframe = km_target_track_get_keyframe (track, km_target_track_find_keyframe (track,
                                                                                     key->frame));
      target = target_key (keyframe);
      met = g_hash_table_lookup (solved, target);
      if (met == NULL)
        {
          if (spent >= budget)
            {
              unchecked++;
              continue;
            }
          km_transform_from_pos_quat (keyframe->position, keyframe->orientation, &cold->target);
          if (!km_ik_solve (cold, &solution, cancellable, error))
            {
              ok = FALSE;
              break;
            }
          /* (at least one each: an analytic hook may answer without iterating) */
          spent += MAX (solution.iterations, 1);
          met = g_new (double, 2);
          met[0] = solution.pos_err;
          met[1] = orientation ? solution.rot_err : 0.0;
          g_hash_table_insert (solved, g_steal_pointer (&target), met);
        }
      if (km_ik_residual_missed (met[0], met[1], orientation))
        continue;  /* out of reach on its own too: the motion is not to blame */
      g_array_append_val (missed, ((KmAnimationKeyMiss) {
        .frame = key->frame,
        .pos_err = key->pos_err,
        .rot_err = key->rot_err,
        .key_pos_err = met[0],
        .key_rot_err = met[1],
      }));
    }
  km_ik_solution_clear (&solution);
  if (!ok || g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;
  *n_missed = missed->len;
  *n_unchecked = unchecked;
  if (missed->len == 0)
    return g_new0 (KmAnimationKeyMiss, 1);
  g_array_sort (missed, key_miss_frame_compare);
  return (KmAnimationKeyMiss *) g_array_free (g_steal_pointer (&missed), FALSE);
}

/* Worker thread: touches only the run's locked fields and the worker's own part of @data. */
static void
frame_done_cb (guint               frame,
               const KmIkSolution *solution,
               gpointer            user_data)
{
  SolveData *data = user_data;
  SolveRun *run = data->run;
  gboolean schedule;
  /* The residuals, then whether the frame jumped (1) or not (0): the row's extra values. */
  double extra[PENDING_EXTRA] = {
    solution->pos_err, reported_rot_err (solution, run->position_only),
    solution->jumped ? 1.0 : 0.0,
  };

  note_key_residual (data->keys, data->n_keys, &data->next_key, run->first_frame + frame,
                     extra[0], extra[1]);

  g_mutex_lock (&run->mutex);
  g_array_append_vals (run->pending, solution->q, run->n_dof);
  g_array_append_vals (run->pending, extra, PENDING_EXTRA);
  run->n_done++;
  schedule = claim_delivery (run);
  g_mutex_unlock (&run->mutex);

  if (schedule)
    schedule_delivery (run);
}

/* Worker thread: the frames from @frame on come again (provisional ones replaced). */
static void
revise_cb (guint    frame,
           gpointer user_data)
{
  SolveData *data = user_data;
  SolveRun *run = data->run;
  guint stride = run->n_dof + PENDING_EXTRA;

  /* Keyframe residuals from there on are noted again as the frames come. */
  data->next_key = 0;
  while (data->next_key < data->n_keys
         && data->keys[data->next_key].frame < run->first_frame + frame)
    data->next_key++;

  g_mutex_lock (&run->mutex);
  if (frame >= run->pending_first)
    g_array_set_size (run->pending, (frame - run->pending_first) * stride);
  else
    {
      g_array_set_size (run->pending, 0);
      run->pending_first = frame;
    }
  run->n_done = frame;
  g_mutex_unlock (&run->mutex);
}

/* Worker thread. */
static void
progress_cb (double   fraction,
             gpointer user_data)
{
  SolveRun *run = ((SolveData *) user_data)->run;
  gboolean schedule;

  g_mutex_lock (&run->mutex);
  run->solved = fraction;
  schedule = claim_delivery (run);
  g_mutex_unlock (&run->mutex);

  if (schedule)
    schedule_delivery (run);
}

static void
solve_thread (GTask        *task,
              gpointer      source_object,
              gpointer      task_data,
              GCancellable *cancellable)
{
  SolveData *data = task_data;
  GError *error = NULL;

  if (!km_ik_solve_trajectory_stream (data->problem, data->targets, data->n_frames,
                                      frame_done_cb, revise_cb, progress_cb, data,
                                      cancellable, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  data->missed = check_keys (data->problem, data->track, data->keys, data->n_keys,
                             &data->n_missed, &data->n_unchecked, cancellable, &error);
  if (data->missed == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static void
user_cancelled_cb (GCancellable *user_cancellable,
                   GCancellable *run_cancellable)
{
  g_cancellable_cancel (run_cancellable);
}

/* Main thread: the worker finished (or stopped). @user_data is the caller's SolveReply. */
static void
solve_thread_done_cb (GObject      *object,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  g_autoptr(SolveReply) reply = user_data;
  GTask *inner = G_TASK (result);
  SolveData *data = g_task_get_task_data (inner);
  g_autoptr(SolveRun) run = solve_run_ref (data->run);
  g_autoptr(KmIkJob) self = g_weak_ref_get (&run->job);
  g_autoptr(GTask) task = g_task_new (self, reply->cancellable, reply->callback,
                                      reply->user_data);
  g_autoptr(GError) error = NULL;
  KmAnimation *animation;

  g_task_set_source_tag (task, km_ik_job_solve_async);
  if (self == NULL)
    {
      /* The job was dropped while solving (dispose cancelled the solve). */
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                               _("The solve was cancelled"));
      return;
    }

  if (!g_task_propagate_boolean (inner, &error))
    {
      if (self->run == run)
        {
          deliver_pending (self, run);
          if (self->run == run)
            {
              g_clear_pointer (&self->run, solve_run_unref);
              set_busy (self, FALSE);
            }
        }
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  if (self->run != run)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                               _("A newer solve replaced this one"));
      return;
    }

  deliver_pending (self, run);
  if (self->run != run)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                               _("A newer solve replaced this one"));
      return;
    }
  /* This solve's animation, taken before any notification: a handler of the ones below
   * may start a new solve, which replaces self->animation. */
  animation = km_animation_ref (self->animation);
  g_clear_pointer (&self->run, solve_run_unref);
  km_animation_set_missed_keys (animation, data->missed, data->n_missed);
  km_animation_set_unchecked_keys (animation, data->n_unchecked);
  set_progress (self, 1.0);
  if (self->run == NULL)
    set_busy (self, FALSE);
  g_task_return_pointer (task, animation, (GDestroyNotify) km_animation_unref);
}

static void
km_ik_job_dispose (GObject *object)
{
  KmIkJob *self = KM_IK_JOB (object);

  if (self->run != NULL)
    g_cancellable_cancel (self->run->cancellable);
  g_clear_pointer (&self->run, solve_run_unref);

  G_OBJECT_CLASS (km_ik_job_parent_class)->dispose (object);
}

static void
km_ik_job_finalize (GObject *object)
{
  KmIkJob *self = KM_IK_JOB (object);

  g_clear_pointer (&self->animation, km_animation_unref);

  G_OBJECT_CLASS (km_ik_job_parent_class)->finalize (object);
}

static void
km_ik_job_get_property (GObject    *object,
                        guint       prop_id,
                        GValue     *value,
                        GParamSpec *pspec)
{
  KmIkJob *self = KM_IK_JOB (object);

  switch (prop_id)
    {
    case PROP_PROGRESS:
      g_value_set_double (value, self->progress);
      break;
    case PROP_BUSY:
      g_value_set_boolean (value, self->busy);
      break;
    case PROP_ANIMATION:
      g_value_set_boxed (value, self->animation);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
km_ik_job_class_init (KmIkJobClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = km_ik_job_dispose;
  object_class->finalize = km_ik_job_finalize;
  object_class->get_property = km_ik_job_get_property;

  properties[PROP_PROGRESS] =
    g_param_spec_double ("progress", NULL, NULL, 0.0, 1.0, 0.0,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_BUSY] =
    g_param_spec_boolean ("busy", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_ANIMATION] =
    g_param_spec_boxed ("animation", NULL, NULL, KM_TYPE_ANIMATION,
                        G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * KmIkJob::frames-ready:
   * @first_frame: the first frame that is now solved
   * @n_frames: how many consecutive frames
   *
   * Emitted on the main context, in frame order, as the worker finishes frames. Where
   * the solver revises frames it handed over (an SRS arm's plain track that the routed one
   * beats), @first_frame goes back to the first revised frame and the rows from there on
   * come again, in order.
   */
  signals[FRAMES_READY] =
    g_signal_new ("frames-ready", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                  NULL, G_TYPE_NONE, 2, G_TYPE_UINT, G_TYPE_UINT);
}

static void
km_ik_job_init (KmIkJob *self)
{
}

/**
 * km_ik_job_new:
 *
 * Returns: (transfer full): a new job, bound to the thread-default main context
 */
KmIkJob *
km_ik_job_new (void)
{
  return g_object_new (KM_TYPE_IK_JOB, NULL);
}

static KmTransform *
sample_targets (const KmTargetTrack *track,
                guint                first_frame,
                guint                n_frames)
{
  KmTransform *targets = g_new (KmTransform, MAX (n_frames, 1));

  for (guint i = 0; i < n_frames; i++)
    {
      KmVec3 pos;
      KmQuat rot;

      km_target_track_sample (track, first_frame + i, &pos, &rot);
      km_transform_from_pos_quat (pos, rot, &targets[i]);
    }
  return targets;
}

/**
 * km_ik_problem_use_track:
 * @problem: a problem
 * @track: the targets it is to solve
 *
 * Makes @problem aim at the point @track's keyframes are for: a track with an effector
 * offset sets @problem's, and a position-only track sets the orientation weight to 0. A
 * track for the joint's origin, with orientations, leaves @problem as it is (so the
 * problem's own offset and weights stay). A track with a base joint
 * (km_target_track_get_base(): its targets are in a frame that rides on that joint's
 * link, a Scenebuilder ik's `ref`) sets @problem's base, so that the joints from there up
 * stay still; a base that names no joint or link of the skeleton, or none above
 * @problem's effector, is ignored (the chain then runs as far as @problem's base goes), as
 * the solver could only refuse it.
 */
void
km_ik_problem_use_track (KmIkProblem         *problem,
                         const KmTargetTrack *track)
{
  const char *base_name;

  g_return_if_fail (problem != NULL);
  g_return_if_fail (track != NULL);

  base_name = km_target_track_get_base (track);
  if (base_name != NULL && problem->skeleton != NULL && problem->effector >= 0
      && (guint) problem->effector < km_skeleton_get_n_joints (problem->skeleton))
    {
      /* Only a proper ancestor of the effector bounds its chain. */
      int base = km_skeleton_find_ancestor (problem->skeleton, problem->effector, base_name);

      if (base >= 0)
        problem->base = base;
    }
  if (km_target_track_has_effector_offset (track))
    problem->effector_offset = km_target_track_get_effector_offset (track);
  if (km_target_track_get_position_only (track))
    problem->orientation_weight = 0.0;
}

static gboolean
track_has_tool (const KmTargetTrack *track)
{
  return km_target_track_has_effector_offset (track)
         || km_target_track_get_position_only (track);
}

/* An animation of last_frame + 1 frames whose rows before @first_frame hold the seed. */
static KmAnimation *
new_animation (const KmIkProblem *problem,
               guint              first_frame,
               guint              last_frame)
{
  KmAnimation *animation = km_animation_new (problem->skeleton, last_frame + 1);

  for (guint f = 0; f < first_frame; f++)
    km_animation_set_frame (animation, f, problem->seed);
  return animation;
}

/**
 * km_ik_job_solve_async:
 * @problem: the problem template: skeleton, effector, root pose, weights, tolerances, and
 *   the seed that starts @first_frame (its target is ignored); copied
 * @track: the targets, sampled at every frame of the range
 * @first_frame: first frame to solve
 * @last_frame: last frame to solve (>= @first_frame, at most KM_TARGET_TRACK_MAX_FRAME)
 * @cancellable: (nullable): cancels this solve
 *
 * Starts solving and supersedes a running solve (whose callback then gets
 * G_IO_ERROR_CANCELLED). The job's animation is replaced at once by a new one of
 * @last_frame + 1 frames (rows before @first_frame hold the seed and have no residuals);
 * rows fill in as ::frames-ready says, with the residuals and the jumps
 * (km_animation_get_jumped()) km_ik_solve_track() gives them (an orientation residual of
 * 0 where @track is position-only). Once every frame is solved,
 * the worker checks @track's keyframes in the range for ones the motion misses although
 * they can be met (km_ik_find_missed_keys()); the result's animation has them
 * (km_animation_get_missed_keys()) when the callback runs.
 *
 * A running solve holds no reference to the job: dropping the last reference cancels it,
 * and once the worker has stopped the callback gets G_IO_ERROR_CANCELLED with a %NULL
 * source object (pass that %NULL to km_ik_job_solve_finish()). The callback always runs
 * exactly once, after the worker has let go of everything the request copied.
 */
void
km_ik_job_solve_async (KmIkJob             *self,
                       const KmIkProblem   *problem,
                       const KmTargetTrack *track,
                       guint                first_frame,
                       guint                last_frame,
                       GCancellable        *cancellable,
                       GAsyncReadyCallback  callback,
                       gpointer             user_data)
{
  g_autoptr(GTask) inner = NULL;
  SolveReply *reply;
  SolveData *data;
  SolveRun *run;

  g_return_if_fail (KM_IS_IK_JOB (self));
  g_return_if_fail (problem != NULL && problem->skeleton != NULL);
  g_return_if_fail (track != NULL);
  g_return_if_fail (first_frame <= last_frame);
  g_return_if_fail (last_frame <= KM_TARGET_TRACK_MAX_FRAME);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  reply = g_new0 (SolveReply, 1);
  reply->cancellable = cancellable != NULL ? g_object_ref (cancellable) : NULL;
  reply->callback = callback;
  reply->user_data = user_data;

  if (self->run != NULL)
    g_cancellable_cancel (self->run->cancellable);
  g_clear_pointer (&self->run, solve_run_unref);

  run = g_new0 (SolveRun, 1);
  g_atomic_ref_count_init (&run->ref_count);
  run->context = g_main_context_ref_thread_default ();
  run->cancellable = g_cancellable_new ();
  run->first_frame = first_frame;
  run->n_frames = last_frame - first_frame + 1;
  run->n_dof = problem->n_dof;
  run->position_only = km_target_track_get_position_only (track);
  g_mutex_init (&run->mutex);
  run->pending = g_array_new (FALSE, FALSE, sizeof (double));
  g_weak_ref_init (&run->job, self);
  if (cancellable != NULL)
    {
      run->user_cancellable = g_object_ref (cancellable);
      run->user_cancelled_id =
        g_cancellable_connect (cancellable, G_CALLBACK (user_cancelled_cb),
                               g_object_ref (run->cancellable), g_object_unref);
    }
  self->run = run;

  data = g_new0 (SolveData, 1);
  data->problem = km_ik_problem_copy (problem);
  km_ik_problem_use_track (data->problem, track);
  data->n_frames = run->n_frames;
  data->targets = sample_targets (track, first_frame, run->n_frames);
  data->run = solve_run_ref (run);
  data->track = km_target_track_ref ((KmTargetTrack *) track);
  data->keys = keys_in_range (track, first_frame, last_frame, &data->n_keys);

  g_clear_pointer (&self->animation, km_animation_unref);
  self->animation = new_animation (problem, first_frame, last_frame);

  g_object_freeze_notify (G_OBJECT (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ANIMATION]);
  set_progress (self, 0.0);
  set_busy (self, TRUE);
  g_object_thaw_notify (G_OBJECT (self));

  /* No source object: the running solve must not keep the job alive. */
  inner = g_task_new (NULL, run->cancellable, solve_thread_done_cb, reply);
  g_task_set_source_tag (inner, solve_thread);
  g_task_set_task_data (inner, data, solve_data_free);
  g_task_run_in_thread (inner, solve_thread);
}

/**
 * km_ik_job_solve_finish:
 * @self: (nullable): the job, the callback's source object (%NULL when the job was dropped
 *   while solving)
 *
 * Returns: (transfer full) (nullable): the solved animation (the job's animation, complete
 *   and no longer changed), or NULL with G_IO_ERROR_CANCELLED, KM_IK_ERROR, …
 */
KmAnimation *
km_ik_job_solve_finish (KmIkJob       *self,
                        GAsyncResult  *result,
                        GError       **error)
{
  g_return_val_if_fail (self == NULL || KM_IS_IK_JOB (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == km_ik_job_solve_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* Cancels the running solve, if any; its callback gets G_IO_ERROR_CANCELLED. */
void
km_ik_job_cancel (KmIkJob *self)
{
  g_return_if_fail (KM_IS_IK_JOB (self));

  if (self->run != NULL)
    g_cancellable_cancel (self->run->cancellable);
}

double
km_ik_job_get_progress (KmIkJob *self)
{
  g_return_val_if_fail (KM_IS_IK_JOB (self), 0.0);

  return self->progress;
}

gboolean
km_ik_job_get_busy (KmIkJob *self)
{
  g_return_val_if_fail (KM_IS_IK_JOB (self), FALSE);

  return self->busy;
}

/**
 * km_ik_job_get_animation:
 *
 * Returns: (transfer none) (nullable): the newest solve's animation, filled in up to the
 *   last ::frames-ready; NULL before the first solve
 */
KmAnimation *
km_ik_job_get_animation (KmIkJob *self)
{
  g_return_val_if_fail (KM_IS_IK_JOB (self), NULL);

  return self->animation;
}

typedef struct
{
  KmAnimation      *animation;
  guint             first_frame;
  gboolean          position_only;
  KmIkFrameFunc     frame_done;
  KmIkProgressFunc  progress;
  gpointer          user_data;
} TrackClosure;

static void
track_progress_cb (double   fraction,
                   gpointer user_data)
{
  TrackClosure *closure = user_data;

  if (closure->progress != NULL)
    closure->progress (MIN (fraction, PROGRESS_BEFORE_DONE), closure->user_data);
}

static void
track_frame_done_cb (guint               frame,
                     const KmIkSolution *solution,
                     gpointer            user_data)
{
  TrackClosure *closure = user_data;
  KmIkSolution reported = *solution;

  reported.rot_err = reported_rot_err (solution, closure->position_only);
  km_animation_set_frame (closure->animation, closure->first_frame + frame, solution->q);
  km_animation_set_residual (closure->animation, closure->first_frame + frame,
                             reported.pos_err, reported.rot_err);
  km_animation_set_jumped (closure->animation, closure->first_frame + frame, solution->jumped);
  if (closure->frame_done != NULL)
    closure->frame_done (closure->first_frame + frame, &reported, closure->user_data);
}

/**
 * km_ik_solve_track:
 * @problem: as for km_ik_job_solve_async()
 * @track: the targets
 * @first_frame: first frame to solve
 * @last_frame: last frame to solve
 * @frame_done: (nullable) (scope call): called on this thread after every frame, with the
 *   frame's number in the track (not its index in the range)
 * @progress: (nullable) (scope call): called on this thread as the solve advances (see
 *   km_ik_solve_trajectory_full()), with 1 only once the missed keyframes are checked too
 * @user_data: data for @frame_done and @progress
 * @cancellable: (nullable): polled by the solver
 *
 * Solves frames @first_frame .. @last_frame of @track on the calling thread with
 * km_ik_solve_trajectory(): warm-started frame to frame, residuals per frame and the
 * frames it jumped to (km_animation_get_jumped()), for the point the track is for
 * (km_ik_problem_use_track()). Where the track is position-only its orientation is no goal: every frame's orientation residual is 0, in the animation
 * and in the #KmIkSolution @frame_done gets, as in the job's. The keyframes in the range
 * that the motion misses although they can be met are recorded with the animation
 * (km_animation_set_missed_keys(), see km_ik_find_missed_keys()). Uses only its arguments,
 * so any thread may call it.
 *
 * Returns: (transfer full) (nullable): an animation of @last_frame + 1 frames (rows before
 *   @first_frame hold the seed), or NULL with an error
 */
KmAnimation *
km_ik_solve_track (const KmIkProblem    *problem,
                   const KmTargetTrack  *track,
                   guint                 first_frame,
                   guint                 last_frame,
                   KmIkFrameFunc         frame_done,
                   KmIkProgressFunc      progress,
                   gpointer              user_data,
                   GCancellable         *cancellable,
                   GError              **error)
{
  g_autoptr(KmAnimation) animation = NULL;
  g_autoptr(KmIkProblem) aimed = NULL;
  g_autofree KmTransform *targets = NULL;
  g_autofree KeyResidual *keys = NULL;
  g_autofree KmAnimationKeyMiss *missed = NULL;
  TrackClosure closure;
  guint n, n_keys, n_missed, n_unchecked;

  g_return_val_if_fail (problem != NULL && problem->skeleton != NULL, NULL);
  g_return_val_if_fail (track != NULL, NULL);
  g_return_val_if_fail (first_frame <= last_frame, NULL);
  g_return_val_if_fail (last_frame <= KM_TARGET_TRACK_MAX_FRAME, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  /* A copy only when the track changes what the problem aims at: no cost otherwise. */
  if (track_has_tool (track))
    {
      aimed = km_ik_problem_copy (problem);
      km_ik_problem_use_track (aimed, track);
      problem = aimed;
    }
  n = last_frame - first_frame + 1;
  targets = sample_targets (track, first_frame, n);
  animation = new_animation (problem, first_frame, last_frame);
  closure.animation = animation;
  closure.first_frame = first_frame;
  closure.position_only = km_target_track_get_position_only (track);
  closure.frame_done = frame_done;
  closure.progress = progress;
  closure.user_data = user_data;
  if (!km_ik_solve_trajectory_full (problem, targets, n, NULL, track_frame_done_cb,
                                    track_progress_cb, &closure, cancellable, error))
    return NULL;

  keys = keys_in_range (track, first_frame, last_frame, &n_keys);
  for (guint i = 0; i < n_keys; i++)
    km_animation_get_residual (animation, keys[i].frame, &keys[i].pos_err, &keys[i].rot_err);
  missed = check_keys (problem, track, keys, n_keys, &n_missed, &n_unchecked, cancellable,
                       error);
  if (missed == NULL)
    return NULL;
  km_animation_set_missed_keys (animation, missed, n_missed);
  km_animation_set_unchecked_keys (animation, n_unchecked);
  if (progress != NULL)
    progress (1.0, user_data);
  return g_steal_pointer (&animation);
}

/* Frames measured between two polls of the cancellable. */
#define MEASURE_POLL_FRAMES 4096

/**
 * km_ik_measure_track:
 * @problem: as for km_ik_solve_track(): skeleton, effector, root pose (its seed and target
 *   are not used)
 * @track: the targets @animation was solved for
 * @animation: a motion of @problem's skeleton (rows of its DOF vectors)
 * @cancellable: (nullable): polled every few thousand frames
 *
 * The residuals a solve of @track reports for each frame of @animation
 * (km_ik_solve_track()): the distance of the frame's effector pose, by the skeleton's
 * forward kinematics, from the track's target at that frame, for the point the track is
 * for (km_ik_problem_use_track()), with an orientation residual of 0 where the track is
 * position-only. A solved motion read from a file has no residuals (they are not saved):
 * this gives them back, measured as the solve measures them. Frames past the track's last
 * frame have none (NaN), as a solve leaves none there. Uses only its arguments, so any
 * thread may call it.
 *
 * Returns: (transfer full) (array) (nullable): 2 × km_animation_get_n_frames() values, each
 *   frame's position (m) and orientation (rad) residual; NULL when @cancellable was
 *   cancelled
 */
double *
km_ik_measure_track (const KmIkProblem   *problem,
                     const KmTargetTrack *track,
                     const KmAnimation   *animation,
                     GCancellable        *cancellable)
{
  g_autoptr(KmIkProblem) aimed = NULL;
  g_autofree double *residuals = NULL;
  gboolean position_only;
  guint n_frames, n_measured;

  g_return_val_if_fail (problem != NULL && problem->skeleton != NULL, NULL);
  g_return_val_if_fail (track != NULL, NULL);
  g_return_val_if_fail (animation != NULL, NULL);
  g_return_val_if_fail (km_animation_get_n_dof (animation) == problem->n_dof, NULL);

  aimed = km_ik_problem_copy (problem);
  km_ik_problem_use_track (aimed, track);
  position_only = km_target_track_get_position_only (track);
  n_frames = km_animation_get_n_frames (animation);
  n_measured = MIN (n_frames, km_target_track_get_last_frame (track) + 1);
  residuals = g_new (double, MAX ((gsize) n_frames * 2, 1));
  for (guint f = 0; f < n_frames; f++)
    {
      double pos_err = NAN, rot_err = NAN;

      if (f % MEASURE_POLL_FRAMES == 0 && g_cancellable_is_cancelled (cancellable))
        return NULL;
      if (f < n_measured)
        {
          KmVec3 pos;
          KmQuat rot;

          km_target_track_sample (track, f, &pos, &rot);
          km_transform_from_pos_quat (pos, rot, &aimed->target);
          km_ik_measure (aimed, km_animation_get_frame (animation, f), &pos_err, &rot_err);
          if (position_only)
            rot_err = 0.0;  /* as reported_rot_err() reports it */
        }
      residuals[2 * (gsize) f] = pos_err;
      residuals[2 * (gsize) f + 1] = rot_err;
    }
  return g_steal_pointer (&residuals);
}

/**
 * km_ik_measure_jumps:
 * @problem: the skeleton @animation is a motion of (its limits weigh the steps)
 * @animation: a motion of @problem's skeleton
 *
 * Which frames of @animation jump from the frame before, by the rule a motion solve
 * reports them with (KmIkSolution.jumped: a step over the jump limit, or a spike against
 * the steps next to it), measured from the joint values alone: a solved motion read from a
 * file has no such flags (they are not saved), and this gives them back. Uses only its
 * arguments, so any thread may call it.
 *
 * Returns: (transfer full) (array): one flag per frame (frame 0 never jumps)
 */
gboolean *
km_ik_measure_jumps (const KmIkProblem *problem,
                     const KmAnimation *animation)
{
  guint n_frames, n_dof;
  g_autofree double *scale = NULL;
  gboolean *jumped;
  double before = -1.0;

  g_return_val_if_fail (problem != NULL && problem->skeleton != NULL, NULL);
  g_return_val_if_fail (animation != NULL, NULL);
  g_return_val_if_fail (km_animation_get_n_dof (animation) == problem->n_dof, NULL);

  n_frames = km_animation_get_n_frames (animation);
  n_dof = problem->n_dof;
  jumped = g_new0 (gboolean, MAX (n_frames, 1));
  scale = g_new (double, 3 * MAX ((gsize) n_dof, 1));
  km_skeleton_get_dof_limits (problem->skeleton, scale + n_dof, scale + 2 * (gsize) n_dof);
  km_ik_jump_scales (scale + n_dof, scale + 2 * (gsize) n_dof, n_dof, scale);
  for (guint f = 1; f < n_frames; f++)
    {
      double step = km_ik_jump_distance (km_animation_get_frame (animation, f),
                                         km_animation_get_frame (animation, f - 1), scale,
                                         n_dof);
      double after = f + 1 < n_frames
                     ? km_ik_jump_distance (km_animation_get_frame (animation, f + 1),
                                            km_animation_get_frame (animation, f), scale,
                                            n_dof)
                     : -1.0;

      jumped[f] = km_ik_step_is_jump (step, MAX (before, after));
      before = step;
    }
  return jumped;
}

/**
 * km_ik_find_missed_keys:
 * @problem: as for km_ik_solve_track(): skeleton, effector, root pose, weights, tolerances,
 *   budgets and the seed a keyframe's own solve starts from (its target is not used)
 * @track: the targets @animation was solved for
 * @animation: a motion of @problem's skeleton (rows of its DOF vectors)
 * @n_missed: (out): how many keyframes are returned
 * @n_unchecked: (out) (optional): how many keyframes the motion misses were not checked
 *   (the work's bound, below, was spent); they may be missed keyframes too
 * @cancellable: (nullable): polled by each solve
 * @error: return location for an error
 *
 * The keyframes of @track that @animation misses although their target can be met. The
 * solver keeps position first on every frame and never jumps, so a motion may have to
 * arrive at a keyframe on another branch than the pose the keyframe was set from (an arm
 * whose tool points the other way) and miss its orientation, or its position, there. Such a
 * keyframe is one where the motion's residuals, measured by forward kinematics as
 * km_ik_measure_track() measures them, are beyond the solver's tolerances
 * (km_ik_residual_missed(); orientation only where the track is not position-only and the
 * problem weights it), and where the keyframe's target, solved on its own with km_ik_solve()
 * (cold: from @problem's seed with its restarts, not continuing the motion), is met. A
 * keyframe out of reach, or whose orientation the chain cannot take (a 5-DOF arm), is not
 * one: no pose does better there.
 *
 * Only the keyframes the motion misses are solved, each distinct target once, the worst
 * misses first, and all of them together with at most 32 solves' iterations (32 ×
 * @problem's max_iterations): a motion that meets its keyframes costs a forward kinematics
 * per keyframe, and one that misses thousands (a 5-DOF arm keyed with orientations it cannot
 * take) a few dozen solves; beyond those, a missed keyframe is not reported, only counted in
 * @n_unchecked. Keyframes past the end of @animation are not checked. Uses only its
 * arguments (it reads @animation's
 * values, not its residuals), so any thread may call it; the result depends on nothing else.
 *
 * Returns: (transfer full) (array length=n_missed) (nullable): the missed keyframes in
 *   frame order (for km_animation_set_missed_keys(); never NULL on success, also when there
 *   are none), or NULL with an error: G_IO_ERROR_CANCELLED, or KM_IK_ERROR for an unusable
 *   problem
 */
KmAnimationKeyMiss *
km_ik_find_missed_keys (const KmIkProblem    *problem,
                        const KmTargetTrack  *track,
                        const KmAnimation    *animation,
                        guint                *n_missed,
                        guint                *n_unchecked,
                        GCancellable         *cancellable,
                        GError              **error)
{
  g_autoptr(KmIkProblem) aimed = NULL;
  g_autofree KeyResidual *keys = NULL;
  gboolean position_only;
  guint n_frames, n_keys, unchecked_here;

  g_return_val_if_fail (n_missed != NULL, NULL);
  *n_missed = 0;
  if (n_unchecked == NULL)
    n_unchecked = &unchecked_here;
  *n_unchecked = 0;
  g_return_val_if_fail (problem != NULL && problem->skeleton != NULL, NULL);
  g_return_val_if_fail (track != NULL, NULL);
  g_return_val_if_fail (animation != NULL, NULL);
  g_return_val_if_fail (km_animation_get_n_dof (animation) == problem->n_dof, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (problem->effector < 0 || (guint) problem->effector >= km_skeleton_get_n_joints (problem->skeleton))
    {
      g_set_error (error, KM_IK_ERROR, KM_IK_ERROR_INVALID,
                   _("the end effector or the base is not a joint of the skeleton"));
      return NULL;
    }
  aimed = km_ik_problem_copy (problem);
  km_ik_problem_use_track (aimed, track);
  position_only = km_target_track_get_position_only (track);
  n_frames = km_animation_get_n_frames (animation);
  if (n_frames == 0)
    return g_new0 (KmAnimationKeyMiss, 1);

  keys = keys_in_range (track, 0, n_frames - 1, &n_keys);
  for (guint i = 0; i < n_keys; i++)
    {
      const KmTargetKeyframe *keyframe =
        km_target_track_get_keyframe (track, km_target_track_find_keyframe (track, keys[i].frame));

      if (i % MEASURE_POLL_FRAMES == 0
          && g_cancellable_set_error_if_cancelled (cancellable, error))
        return NULL;
      km_transform_from_pos_quat (keyframe->position, keyframe->orientation, &aimed->target);
      km_ik_measure (aimed, km_animation_get_frame (animation, keys[i].frame),
                     &keys[i].pos_err, &keys[i].rot_err);
      if (position_only)
        keys[i].rot_err = 0.0;  /* as reported_rot_err() reports it */
    }
  return check_keys (aimed, track, keys, n_keys, n_missed, n_unchecked, cancellable, error);
}

/**
 * km_ik_resolve_effector:
 * @override: (nullable): a joint name that wins over the track's
 *
 * The end effector: @override, else the track's `effector`, else the skeleton's default
 * (the last leaf joint in file order). A name is a joint's, else a link's
 * (km_skeleton_find_effector()).
 *
 * Returns: the joint's topological index, or -1 with a KM_IK_ERROR
 */
int
km_ik_resolve_effector (KmSkeleton           *skeleton,
                        const KmTargetTrack  *track,
                        const char           *override,
                        GError              **error)
{
  const char *name;
  int index;

  g_return_val_if_fail (skeleton != NULL, -1);
  g_return_val_if_fail (error == NULL || *error == NULL, -1);

  name = override != NULL ? override : track != NULL ? km_target_track_get_effector (track) : NULL;
  if (name == NULL)
    {
      index = km_skeleton_get_default_effector (skeleton);
      if (index < 0)
        g_set_error (error, KM_IK_ERROR, KM_IK_ERROR_INVALID,
                     _("the skeleton has no end effector"));
      return index;
    }

  index = km_skeleton_find_effector (skeleton, name);
  if (index < 0)
    g_set_error (error, KM_IK_ERROR, KM_IK_ERROR_INVALID,
                 _("the skeleton has no joint or link “%s” to use as the end effector"), name);
  return index;
}
