/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "km-defaults.h"
#include "km-ik-job.h"
#include "km-ik-private.h"
#include "km-skeleton-json.h"
#include "km-targets-json.h"
#include "km-urdf.h"
#include "test-util.h"

static KmTargetTrack *
default_track (void)
{
  g_autoptr(GBytes) bytes = km_defaults_get_targets_json ();
  g_autoptr(GError) error = NULL;
  KmTargetTrack *track = km_targets_json_load ("targets.json", bytes, &error);

  g_assert_no_error (error);
  return track;
}

/* Far out of reach on every other frame: each such frame spends the solver's whole
 * iteration budget, so a solve of this track takes long enough to be cancelled. */
static KmTargetTrack *
slow_track (guint n_frames)
{
  g_autofree KmTargetKeyframe *keys = g_new0 (KmTargetKeyframe, n_frames);
  KmTargetTrack *track;

  for (guint i = 0; i < n_frames; i++)
    {
      keys[i].frame = i;
      keys[i].position = (i % 2) ? km_vec3 (50, -40, 30) : km_vec3 (1, 1, 1);
      keys[i].orientation = km_quat_from_euler_xyz (km_vec3 (0.1 * i, 0.5, -0.3));
    }
  track = km_target_track_new (keys, n_frames, NULL, 30.0, NULL);
  g_assert_nonnull (track);
  return track;
}

typedef struct
{
  GMainLoop   *loop;
  KmIkJob     *job;
  KmSkeleton  *skeleton;
  KmIkProblem *problem;
  GArray      *progress;     /* doubles, every notify::progress */
  double       sync_progress;   /* km_ik_solve_track()'s last progress */
  guint        n_sync_progress;
  gboolean     sync_done;       /* km_ik_solve_track()'s progress reached 1 */
  guint        next_frame;   /* the frame ::frames-ready should report next */
  guint        n_signals;
  guint        n_done;       /* completed callbacks */
  KmAnimation *result;
  GError      *error;
  gint         solves;            /* solves begun on the worker (count_solves_hook) */
  gint         solves_at_cancel;
  gboolean     cancel_on_first_frames;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  f->loop = g_main_loop_new (NULL, FALSE);
  f->job = km_ik_job_new ();
  f->skeleton = test_util_example_skeleton ();
  f->problem = km_ik_problem_new (f->skeleton, -1);
  f->progress = g_array_new (FALSE, FALSE, sizeof (double));
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  gint64 deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  gpointer job = f->job;

  /* A worker thread may hold the finished task (and so the job) a moment longer. */
  if (job != NULL)
    {
      g_object_add_weak_pointer (job, &job);
      g_object_unref (f->job);
    }
  while (job != NULL && g_get_monotonic_time () < deadline)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
  g_assert_null (job);
  g_clear_pointer (&f->result, km_animation_unref);
  g_clear_error (&f->error);
  g_clear_pointer (&f->problem, km_ik_problem_free);
  g_clear_pointer (&f->skeleton, km_skeleton_unref);
  g_clear_pointer (&f->progress, g_array_unref);
  g_clear_pointer (&f->loop, g_main_loop_unref);
}

/* The analytic hook runs once per solve on the worker: it counts the frames begun. */
static gboolean
count_solves_hook (const KmIkProblem *problem,
                   const KmTransform *target,
                   double            *q,
                   gpointer           user_data)
{
  g_atomic_int_inc ((gint *) user_data);
  return FALSE;
}

static void
job_notify_progress_cb (KmIkJob    *job,
                        GParamSpec *pspec,
                        Fixture    *f)
{
  double p = km_ik_job_get_progress (job);

  /* 1 belongs to the moment the job is done, missed keyframes checked too: not to the
   * last frame, which comes before the check. */
  if (p == 1.0)
    g_assert_true (km_animation_get_keys_checked (km_ik_job_get_animation (job)));
  g_array_append_val (f->progress, p);
}

/* km_ik_solve_track()'s progress: grows, and is 1 only once, last. */
static void
sync_progress_cb (double   fraction,
                  gpointer user_data)
{
  Fixture *f = user_data;

  g_assert_false (f->sync_done);
  if (f->n_sync_progress > 0)
    g_assert_cmpfloat (fraction, >=, f->sync_progress);
  f->sync_progress = fraction;
  f->sync_done = fraction == 1.0;
  f->n_sync_progress++;
}

static void
job_frames_ready_cb (KmIkJob *job,
                     guint    first_frame,
                     guint    n_frames,
                     Fixture *f)
{
  KmAnimation *animation = km_ik_job_get_animation (job);

  g_assert_cmpuint (first_frame, ==, f->next_frame);
  g_assert_cmpuint (n_frames, >, 0);
  g_assert_true (km_animation_get_residual (animation, first_frame + n_frames - 1, NULL, NULL));
  if (first_frame + n_frames < km_animation_get_n_frames (animation))
    g_assert_false (km_animation_get_residual (animation, first_frame + n_frames, NULL, NULL));
  f->next_frame = first_frame + n_frames;
  f->n_signals++;

  if (f->cancel_on_first_frames && f->solves_at_cancel == 0)
    {
      f->solves_at_cancel = MAX (g_atomic_int_get (&f->solves), 1);
      km_ik_job_cancel (job);
    }
}

static void
solve_done_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  Fixture *f = user_data;

  g_assert_null (f->result);
  g_assert_null (f->error);
  f->result = km_ik_job_solve_finish (KM_IK_JOB (object), result, &f->error);
  f->n_done++;
  g_main_loop_quit (f->loop);
}

static void
test_progress_and_result (Fixture       *f,
                          gconstpointer  data)
{
  g_autoptr(KmTargetTrack) track = default_track ();
  g_autoptr(KmAnimation) expected = NULL;
  g_autoptr(GError) error = NULL;
  KmAnimationStats stats;

  g_signal_connect (f->job, "notify::progress", G_CALLBACK (job_notify_progress_cb), f);
  g_signal_connect (f->job, "frames-ready", G_CALLBACK (job_frames_ready_cb), f);

  km_ik_job_solve_async (f->job, f->problem, track, 0, 240, NULL, solve_done_cb, f);
  g_assert_true (km_ik_job_get_busy (f->job));
  g_assert_cmpuint (km_animation_get_n_frames (km_ik_job_get_animation (f->job)), ==, 241);
  g_main_loop_run (f->loop);

  g_assert_no_error (f->error);
  g_assert_nonnull (f->result);
  g_assert_false (km_ik_job_get_busy (f->job));
  g_assert_true (f->result == km_ik_job_get_animation (f->job));
  g_assert_cmpuint (f->next_frame, ==, 241);
  g_assert_cmpuint (f->n_signals, >=, 1);

  /* Progress only grows, and ends at exactly 1. */
  g_assert_cmpuint (f->progress->len, >=, 1);
  for (guint i = 1; i < f->progress->len; i++)
    g_assert_cmpfloat (g_array_index (f->progress, double, i), >, g_array_index (f->progress, double, i - 1));
  g_assert_cmpfloat (g_array_index (f->progress, double, f->progress->len - 1), ==, 1.0);
  g_assert_cmpfloat (km_ik_job_get_progress (f->job), ==, 1.0);

  /* Bit for bit the synchronous solve, whose progress reaches 1 only once it is done. */
  f->n_sync_progress = 0;
  expected = km_ik_solve_track (f->problem, track, 0, 240, NULL, sync_progress_cb, f, NULL,
                                &error);
  g_assert_no_error (error);
  g_assert_cmpuint (f->n_sync_progress, >=, 2);
  g_assert_cmpfloat (f->sync_progress, ==, 1.0);
  g_assert_true (km_animation_get_keys_checked (expected));
  g_assert_cmpuint (km_animation_get_n_frames (expected), ==, 241);
  for (guint i = 0; i < 241; i++)
    {
      double pa, ra, pb, rb;

      g_assert_cmpmem (km_animation_get_frame (expected, i), 5 * sizeof (double),
                       km_animation_get_frame (f->result, i), 5 * sizeof (double));
      g_assert_true (km_animation_get_residual (expected, i, &pa, &ra));
      g_assert_true (km_animation_get_residual (f->result, i, &pb, &rb));
      g_assert_cmpfloat (pa, ==, pb);
      g_assert_cmpfloat (ra, ==, rb);
    }
  /* The example's first keyframe (the origin) is reachable: met to tolerance. */
  g_assert_cmpfloat (km_animation_get_frame (f->result, 0)[3], >=, 0.0);
  km_animation_get_stats (f->result, &stats);
  g_assert_cmpuint (stats.n_frames, ==, 241);
  g_assert_true (isfinite (stats.max_pos_err));
}

/* Where the chain cannot meet the orientation (the example's five DOFs), the best fit moves
 * with the targets and does not step back and forth between two fits about as good: no
 * joint reverses its direction between consecutive frames with steps of more than 0.03
 * each way (a review saw the elbow go 1.497, 1.589, 1.474, 1.569 rad in frames 149–152). */
static void
test_fit_does_not_chatter (Fixture       *f,
                           gconstpointer  data)
{
  g_autoptr(KmTargetTrack) track = default_track ();
  g_autoptr(KmAnimation) animation = NULL;
  g_autoptr(GError) error = NULL;
  guint n_dof, zigzags = 0;

  animation = km_ik_solve_track (f->problem, track, 0, 240, NULL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  n_dof = km_animation_get_n_dof (animation);
  for (guint k = 1; k + 1 < km_animation_get_n_frames (animation); k++)
    {
      const double *q0 = km_animation_get_frame (animation, k - 1);
      const double *q1 = km_animation_get_frame (animation, k);
      const double *q2 = km_animation_get_frame (animation, k + 1);

      for (guint d = 0; d < n_dof; d++)
        {
          double a = q1[d] - q0[d], b = q2[d] - q1[d];

          if (a * b < 0 && MIN (fabs (a), fabs (b)) > 0.03)
            {
              g_test_message ("frame %u, DOF %u: %+.3f then %+.3f", k, d, a, b);
              zigzags++;
            }
        }
    }
  g_assert_cmpuint (zigzags, ==, 0);
}

/* A range: rows before the first frame hold the seed and have no residuals. */
static void
test_range (Fixture       *f,
            gconstpointer  data)
{
  g_autoptr(KmTargetTrack) track = default_track ();
  g_autoptr(KmAnimation) expected = NULL;

  g_signal_connect (f->job, "frames-ready", G_CALLBACK (job_frames_ready_cb), f);
  f->next_frame = 100;
  km_ik_job_solve_async (f->job, f->problem, track, 100, 120, NULL, solve_done_cb, f);
  g_main_loop_run (f->loop);

  g_assert_no_error (f->error);
  g_assert_cmpuint (km_animation_get_n_frames (f->result), ==, 121);
  g_assert_false (km_animation_get_residual (f->result, 99, NULL, NULL));
  g_assert_true (km_animation_get_residual (f->result, 100, NULL, NULL));
  g_assert_cmpmem (km_animation_get_frame (f->result, 50), 5 * sizeof (double),
                   f->problem->seed, 5 * sizeof (double));
  g_assert_cmpuint (f->next_frame, ==, 121);

  expected = km_ik_solve_track (f->problem, track, 100, 120, NULL, NULL, NULL, NULL, NULL);
  g_assert_true (km_animation_equal (expected, f->result, 0.0));
}

static void
test_cancel_promptly (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(KmTargetTrack) track = slow_track (20000);

  g_signal_connect (f->job, "notify::progress", G_CALLBACK (job_notify_progress_cb), f);
  g_signal_connect (f->job, "frames-ready", G_CALLBACK (job_frames_ready_cb), f);
  f->cancel_on_first_frames = TRUE;
  f->problem->analytic = count_solves_hook;
  f->problem->analytic_data = &f->solves;

  km_ik_job_solve_async (f->job, f->problem, track, 0, 19999, NULL, solve_done_cb, f);
  g_main_loop_run (f->loop);

  g_assert_error (f->error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (f->result);
  g_assert_false (km_ik_job_get_busy (f->job));
  g_assert_cmpint (f->solves_at_cancel, >, 0);
  g_test_message ("%d solves begun before the cancel, %d after, %u frames delivered",
                  f->solves_at_cancel, g_atomic_int_get (&f->solves) - f->solves_at_cancel,
                  f->next_frame);
  /* Promptly, counted in work rather than wall-clock time: at most the solve in progress
   * and one that began before the cancel was seen, and far from the whole track. */
  g_assert_cmpint (g_atomic_int_get (&f->solves) - f->solves_at_cancel, <=, 2);
  g_assert_cmpuint (f->next_frame, <, 20000);
  g_assert_cmpfloat (km_ik_job_get_progress (f->job), <, 1.0);
}

static void
test_user_cancellable (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(KmTargetTrack) track = slow_track (20000);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();

  f->problem->analytic = count_solves_hook;
  f->problem->analytic_data = &f->solves;
  km_ik_job_solve_async (f->job, f->problem, track, 0, 19999, cancellable, solve_done_cb, f);
  g_cancellable_cancel (cancellable);
  f->solves_at_cancel = g_atomic_int_get (&f->solves);
  g_main_loop_run (f->loop);

  g_assert_error (f->error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  /* The worker may have begun a frame or two before it saw the cancel, never the track. */
  g_assert_cmpint (g_atomic_int_get (&f->solves) - f->solves_at_cancel, <=, 2);
  g_assert_false (km_ik_job_get_busy (f->job));
}

typedef struct
{
  Fixture     *f;
  KmAnimation *result;
  GError      *error;
} OldRequest;

static void
old_solve_done_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  OldRequest *old = user_data;

  old->result = km_ik_job_solve_finish (KM_IK_JOB (object), result, &old->error);
  old->f->n_done++;
  if (old->f->n_done == 2)
    g_main_loop_quit (old->f->loop);
}

static void
new_solve_done_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  Fixture *f = user_data;

  f->result = km_ik_job_solve_finish (KM_IK_JOB (object), result, &f->error);
  f->n_done++;
  if (f->n_done == 2)
    g_main_loop_quit (f->loop);
}

static void
test_newer_request_supersedes (Fixture       *f,
                               gconstpointer  data)
{
  g_autoptr(KmTargetTrack) slow = slow_track (20000);
  g_autoptr(KmTargetTrack) track = default_track ();
  g_autoptr(KmAnimation) expected = NULL;
  OldRequest old = { f, NULL, NULL };

  km_ik_job_solve_async (f->job, f->problem, slow, 0, 19999, NULL, old_solve_done_cb, &old);
  /* Only the newest request's frames are announced. */
  g_signal_connect (f->job, "frames-ready", G_CALLBACK (job_frames_ready_cb), f);
  km_ik_job_solve_async (f->job, f->problem, track, 0, 240, NULL, new_solve_done_cb, f);
  g_assert_cmpuint (km_animation_get_n_frames (km_ik_job_get_animation (f->job)), ==, 241);
  g_main_loop_run (f->loop);

  g_assert_error (old.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (old.result);
  g_clear_error (&old.error);

  g_assert_no_error (f->error);
  g_assert_cmpuint (f->next_frame, ==, 241);
  g_assert_cmpfloat (km_ik_job_get_progress (f->job), ==, 1.0);
  g_assert_false (km_ik_job_get_busy (f->job));
  expected = km_ik_solve_track (f->problem, track, 0, 240, NULL, NULL, NULL, NULL, NULL);
  g_assert_true (km_animation_equal (expected, f->result, 0.0));
}


static void
first_frames_cb (KmIkJob *job,
                 guint    first_frame,
                 guint    n_frames,
                 Fixture *f)
{
  if (f->n_signals++ == 0)
    g_main_loop_quit (f->loop);
}

static void
dropped_done_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  Fixture *f = user_data;

  /* The job is gone: no source object, and finish takes that NULL. */
  g_assert_null (object);
  f->result = km_ik_job_solve_finish (NULL, result, &f->error);
  f->n_done++;
  g_main_loop_quit (f->loop);
}

static void
test_unref_cancels (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(KmTargetTrack) track = slow_track (20000);
  gint solves = 0, at_unref;
  gpointer job = f->job;

  f->problem->analytic = count_solves_hook;
  f->problem->analytic_data = &solves;
  km_ik_job_solve_async (f->job, f->problem, track, 0, 19999, NULL, dropped_done_cb, f);
  g_signal_connect (f->job, "frames-ready", G_CALLBACK (first_frames_cb), f);
  /* Until the worker is well under way. */
  g_main_loop_run (f->loop);
  g_assert_cmpuint (f->n_signals, ==, 1);
  g_assert_cmpuint (f->n_done, ==, 0);

  /* The last reference: the job goes at once, the running solve does not keep it. */
  g_object_add_weak_pointer (job, &job);
  at_unref = g_atomic_int_get (&solves);
  g_clear_object (&f->job);
  g_assert_null (job);

  /* The callback still comes, exactly once, cancelled, after the worker stopped. */
  g_main_loop_run (f->loop);
  g_assert_cmpuint (f->n_done, ==, 1);
  g_assert_error (f->error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (f->result);
  g_test_message ("%d frames begun before the unref, %d after", at_unref,
                  g_atomic_int_get (&solves) - at_unref);
  g_assert_cmpint (at_unref, >, 0);
  /* At most the frame in progress and one more that began before the cancel was seen. */
  g_assert_cmpint (g_atomic_int_get (&solves) - at_unref, <=, 2);
  g_assert_cmpint (at_unref + 2, <, 20000);
}

static void
count_zero_rot_err_cb (guint               frame,
                       const KmIkSolution *solution,
                       gpointer            user_data)
{
  guint *n_zero = user_data;

  if (solution->rot_err == 0.0)
    (*n_zero)++;
}

/* A position-only track: the keyframes' orientations are no goal, so no frame has an
 * orientation residual (it would be the angle to the orientation the keyframes only
 * show), in the job's animation, in km_ik_solve_track()'s and in what its @frame_done
 * gets; the positions are solved as before. */
static void
test_position_only_residuals (Fixture       *f,
                              gconstpointer  data)
{
  g_autoptr(KmTargetTrack) track = default_track ();
  g_autoptr(KmTargetTrack) position_only = km_target_track_with_tool (track, KM_VEC3_ZERO,
                                                                       TRUE);
  g_autoptr(KmAnimation) full = NULL;
  g_autoptr(KmAnimation) sync = NULL;
  g_autoptr(GError) error = NULL;
  KmAnimationStats stats;
  guint n_zero = 0;

  /* With orientations, the 5-DOF example misses them on most frames. */
  full = km_ik_solve_track (f->problem, track, 0, 240, NULL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  km_animation_get_stats (full, &stats);
  g_assert_cmpfloat (stats.max_rot_err, >, 1e-3);

  km_ik_job_solve_async (f->job, f->problem, position_only, 0, 240, NULL, solve_done_cb, f);
  g_main_loop_run (f->loop);
  g_assert_no_error (f->error);
  sync = km_ik_solve_track (f->problem, position_only, 0, 240, count_zero_rot_err_cb, NULL,
                            &n_zero, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (n_zero, ==, 241);
  for (guint i = 0; i < 241; i++)
    {
      double pa, ra, pb, rb;

      g_assert_true (km_animation_get_residual (f->result, i, &pa, &ra));
      g_assert_true (km_animation_get_residual (sync, i, &pb, &rb));
      g_assert_cmpfloat (ra, ==, 0.0);
      g_assert_cmpfloat (rb, ==, 0.0);
      g_assert_cmpfloat (pa, ==, pb);
      g_assert_true (isfinite (pa));
    }
  km_animation_get_stats (f->result, &stats);
  g_assert_cmpfloat (stats.mean_rot_err, ==, 0.0);
  g_assert_cmpfloat (stats.max_rot_err, ==, 0.0);
  g_assert_true (km_animation_equal (sync, f->result, 0.0));
}

/* A solved motion read back from a file has no residuals (they are not saved):
 * km_ik_measure_track() gives back the solve's own, by forward kinematics, so that a frame
 * misses its target by the same measure (position-only tracks: no orientation residual);
 * frames past the track have none, as a solve leaves none there; a cancelled measure
 * gives nothing. */
static void
test_measure_track (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(KmTargetTrack) track = default_track ();
  g_autoptr(KmTargetTrack) position_only = km_target_track_with_tool (track, KM_VEC3_ZERO,
                                                                       TRUE);
  g_autoptr(GCancellable) cancelled = g_cancellable_new ();
  KmTargetTrack *tracks[] = { track, position_only };
  guint last = km_target_track_get_last_frame (track);

  for (guint t = 0; t < G_N_ELEMENTS (tracks); t++)
    {
      g_autoptr(KmAnimation) solved = NULL;
      g_autoptr(KmAnimation) read = km_animation_new (f->skeleton, last + 11);
      g_autoptr(GError) error = NULL;
      g_autofree double *residuals = NULL;
      gboolean orientation = t == 0;
      guint n_missed = 0;

      solved = km_ik_solve_track (f->problem, tracks[t], 0, last, NULL, NULL, NULL, NULL,
                                  &error);
      g_assert_no_error (error);
      for (guint i = 0; i < last + 11; i++)
        km_animation_set_frame (read, i, km_animation_get_frame (solved, MIN (i, last)));
      g_assert_false (km_animation_has_residuals (read));

      residuals = km_ik_measure_track (f->problem, tracks[t], read, NULL);
      g_assert_nonnull (residuals);
      for (guint i = 0; i <= last; i++)
        {
          double pos_err, rot_err;

          g_assert_true (km_animation_get_residual (solved, i, &pos_err, &rot_err));
          g_assert_cmpfloat_with_epsilon (residuals[2 * i], pos_err, 1e-9);
          g_assert_cmpfloat_with_epsilon (residuals[2 * i + 1], rot_err, 1e-9);
          g_assert_cmpint (km_ik_residual_missed (residuals[2 * i], residuals[2 * i + 1],
                                                  orientation),
                           ==, km_ik_residual_missed (pos_err, rot_err, orientation));
          if (km_ik_residual_missed (pos_err, rot_err, orientation))
            n_missed++;
          if (!orientation)
            g_assert_cmpfloat (residuals[2 * i + 1], ==, 0.0);
        }
      /* The 5-DOF example misses most orientations, and reaches every position. */
      if (orientation)
        g_assert_cmpuint (n_missed, >, 0);
      for (guint i = last + 1; i < last + 11; i++)
        g_assert_true (isnan (residuals[2 * i]) && isnan (residuals[2 * i + 1]));
    }

  g_cancellable_cancel (cancelled);
  {
    g_autoptr(KmAnimation) read = km_animation_new (f->skeleton, last + 1);

    g_assert_null (km_ik_measure_track (f->problem, track, read, cancelled));
  }
}

/* The 3-joint arm of the review (rev17-gui, finding 3): j1 about z, j2 and j3 about y, the
 * effector j3 at the tip. Its two keyframes were set with K from the poses
 * (j1, j2, j3) = (30°, 45°, 0) at frame 0 and (-90°, -60°, 0) at frame 300. */
static const char arm_urdf[] =
  "<?xml version=\"1.0\"?>\n"
  "<robot name=\"arm\">\n"
  "  <link name=\"base\"/><link name=\"l1\"/><link name=\"l2\"/><link name=\"tip\"/>\n"
  "  <joint name=\"j1\" type=\"revolute\"><parent link=\"base\"/><child link=\"l1\"/>"
  "<origin xyz=\"0 0 0.05\"/><axis xyz=\"0 0 1\"/>"
  "<limit lower=\"-3\" upper=\"3\" effort=\"5\" velocity=\"2\"/></joint>\n"
  "  <joint name=\"j2\" type=\"revolute\"><parent link=\"l1\"/><child link=\"l2\"/>"
  "<origin xyz=\"0 0 0.3\"/><axis xyz=\"0 1 0\"/>"
  "<limit lower=\"-2\" upper=\"2\" effort=\"5\" velocity=\"2\"/></joint>\n"
  "  <joint name=\"j3\" type=\"continuous\"><parent link=\"l2\"/><child link=\"tip\"/>"
  "<origin xyz=\"0 0 0.3\"/><axis xyz=\"0 1 0\"/></joint>\n"
  "</robot>\n";

static KmSkeleton *
arm_skeleton (void)
{
  KmUrdfOptions options = { NULL, FALSE };
  g_autoptr(GError) error = NULL;
  KmSkeleton *skeleton = km_urdf_load ("arm.urdf", arm_urdf, strlen (arm_urdf), &options,
                                       &error);

  g_assert_no_error (error);
  g_assert_nonnull (skeleton);
  return skeleton;
}

/* A keyframe at @frame set from the arm's pose @q (degrees), as K sets it. */
static KmTargetKeyframe
arm_keyframe (KmSkeleton *skeleton,
              guint       frame,
              double      j1,
              double      j2,
              double      j3)
{
  double q[3] = { j1 * G_PI / 180, j2 * G_PI / 180, j3 * G_PI / 180 };
  g_autofree KmTransform *world = g_new (KmTransform, km_skeleton_get_n_joints (skeleton));
  int effector = km_skeleton_find_joint (skeleton, "j3");
  KmTransform identity;
  KmTargetKeyframe keyframe = { frame };

  km_transform_identity (&identity);
  km_skeleton_forward_kinematics (skeleton, q, &identity, world);
  keyframe.position = world[effector].pos;
  keyframe.orientation = km_mat3_to_quat (&world[effector].rot);
  return keyframe;
}

static KmTargetTrack *
arm_track (const KmTargetKeyframe *keys,
           guint                   n_keys)
{
  g_autoptr(GError) error = NULL;
  KmTargetTrack *track = km_target_track_new (keys, n_keys, "j3", 30.0, &error);

  g_assert_no_error (error);
  return track;
}

static KmIkProblem *
arm_problem (KmSkeleton *skeleton)
{
  return km_ik_problem_new (skeleton, km_skeleton_find_joint (skeleton, "j3"));
}

/* The review's motion, made by hand: from the pose keyed at frame 0 to the mirror branch
 * at frame 300, (j1, j2) = (90°, 60°), where the effector is in the keyed place but turned
 * 180° (for any j3). km_ik_find_missed_keys() reports frame 300 with that error and with
 * the pose that meets it, and not frame 0, which the motion meets. */
static void
test_missed_key_made_motion (void)
{
  g_autoptr(KmSkeleton) skeleton = arm_skeleton ();
  g_autoptr(KmIkProblem) problem = arm_problem (skeleton);
  KmTargetKeyframe keys[2] = {
    arm_keyframe (skeleton, 0, 30, 45, 0),
    arm_keyframe (skeleton, 300, -90, -60, 0),
  };
  g_autoptr(KmTargetTrack) track = arm_track (keys, 2);
  g_autoptr(KmAnimation) motion = km_animation_new (skeleton, 301);
  g_autoptr(GError) error = NULL;
  g_autofree KmAnimationKeyMiss *found = NULL;
  guint n_missed;

  for (guint i = 0; i <= 300; i++)
    {
      double t = i / 300.0;
      double q[3] = { (30 + 60 * t) * G_PI / 180, (45 + 15 * t) * G_PI / 180, 0 };

      km_animation_set_frame (motion, i, q);
    }
  found = km_ik_find_missed_keys (problem, track, motion, &n_missed, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (n_missed, ==, 1);
  g_assert_cmpuint (found[0].frame, ==, 300);
  g_assert_cmpfloat (found[0].pos_err, <, 1e-9);
  g_assert_cmpfloat_with_epsilon (found[0].rot_err, G_PI, 1e-6);
  g_assert_false (km_ik_residual_missed (found[0].key_pos_err, found[0].key_rot_err, TRUE));
}

/* The review's case solved: at frame 300 the motion, position first and without a jump,
 * arrives on the mirror branch, the effector turned 180° from the keyframe, which the pose
 * it was set from meets exactly. That keyframe is reported (by the job, by
 * km_ik_solve_track() and by km_ik_find_missed_keys() for the motion read back without
 * residuals), frame 0, which the motion meets, is not; copies of the animation keep what
 * was found. */
static void
test_missed_key_mirror_branch (Fixture       *f,
                               gconstpointer  data)
{
  g_autoptr(KmSkeleton) skeleton = arm_skeleton ();
  g_autoptr(KmIkProblem) problem = arm_problem (skeleton);
  KmTargetKeyframe keys[2] = {
    arm_keyframe (skeleton, 0, 30, 45, 0),
    arm_keyframe (skeleton, 300, -90, -60, 0),
  };
  g_autoptr(KmTargetTrack) track = arm_track (keys, 2);
  g_autoptr(KmAnimation) sync = NULL;
  g_autoptr(KmAnimation) read = NULL;
  g_autoptr(KmAnimation) copy = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree KmAnimationKeyMiss *found = NULL;
  const KmAnimationKeyMiss *missed;
  KmAnimation *results[2];
  double pos_err, rot_err;
  guint n_missed;

  sync = km_ik_solve_track (problem, track, 0, 300, NULL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  /* The motion's own behaviour, which this test does not judge: if a later solver reaches
   * the keyed branch, this case no longer shows a miss. */
  g_assert_true (km_animation_get_residual (sync, 300, &pos_err, &rot_err));
  g_test_message ("frame 300: position error %g m, orientation error %g rad", pos_err, rot_err);
  g_assert_cmpfloat (pos_err, <=, KM_IK_DEFAULT_POSITION_TOLERANCE);
  g_assert_cmpfloat (rot_err, >, 3.0);
  g_assert_true (km_animation_get_residual (sync, 0, &pos_err, &rot_err));
  g_assert_false (km_ik_residual_missed (pos_err, rot_err, TRUE));

  km_ik_job_solve_async (f->job, problem, track, 0, 300, NULL, solve_done_cb, f);
  g_main_loop_run (f->loop);
  g_assert_no_error (f->error);

  results[0] = sync;
  results[1] = f->result;
  for (guint r = 0; r < G_N_ELEMENTS (results); r++)
    {
      g_assert_true (km_animation_get_keys_checked (results[r]));
      missed = km_animation_get_missed_keys (results[r], &n_missed);
      g_assert_cmpuint (n_missed, ==, 1);
      g_assert_cmpuint (missed[0].frame, ==, 300);
      g_assert_cmpfloat (missed[0].rot_err, >, 3.0);
      g_assert_cmpfloat (missed[0].pos_err, <=, KM_IK_DEFAULT_POSITION_TOLERANCE);
      g_assert_false (km_ik_residual_missed (missed[0].key_pos_err, missed[0].key_rot_err,
                                             TRUE));
      g_assert_true (km_animation_find_missed_key (results[r], 300) == &missed[0]);
      g_assert_null (km_animation_find_missed_key (results[r], 0));
      g_assert_null (km_animation_find_missed_key (results[r], 299));
    }
  {
    /* Field by field: the struct's padding holds whatever the allocator left there. */
    const KmAnimationKeyMiss *a = km_animation_get_missed_keys (sync, NULL);
    const KmAnimationKeyMiss *b = km_animation_get_missed_keys (f->result, NULL);

    g_assert_cmpuint (a->frame, ==, b->frame);
    g_assert_cmpfloat (a->pos_err, ==, b->pos_err);
    g_assert_cmpfloat (a->rot_err, ==, b->rot_err);
    g_assert_cmpfloat (a->key_pos_err, ==, b->key_pos_err);
    g_assert_cmpfloat (a->key_rot_err, ==, b->key_rot_err);
  }

  /* Copied with the animation. */
  copy = km_animation_copy (sync);
  g_assert_true (km_animation_get_keys_checked (copy));
  g_assert_nonnull (km_animation_find_missed_key (copy, 300));

  /* Read back from a file: no residuals, not checked; measured again, the same key. */
  read = km_animation_new (skeleton, 301);
  for (guint i = 0; i < 301; i++)
    km_animation_set_frame (read, i, km_animation_get_frame (sync, i));
  g_assert_false (km_animation_get_keys_checked (read));
  g_assert_null (km_animation_get_missed_keys (read, &n_missed));
  g_assert_cmpuint (n_missed, ==, 0);
  found = km_ik_find_missed_keys (problem, track, read, &n_missed, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (found);
  g_assert_cmpuint (n_missed, ==, 1);
  g_assert_cmpuint (found[0].frame, ==, 300);
  g_assert_cmpfloat_with_epsilon (found[0].pos_err, missed[0].pos_err, 1e-9);
  g_assert_cmpfloat_with_epsilon (found[0].rot_err, missed[0].rot_err, 1e-9);
  g_assert_cmpfloat (found[0].rot_err * 180 / G_PI, >, 170.0);
  g_assert_false (km_ik_residual_missed (found[0].key_pos_err, found[0].key_rot_err, TRUE));
  km_animation_set_missed_keys (read, found, n_missed);
  g_assert_true (km_animation_get_keys_checked (read));
  g_assert_nonnull (km_animation_find_missed_key (read, 300));
}

/* A motion that meets every keyframe reports none, and says it checked; so does a
 * position-only track of the mirror case (its orientations are no goal, and the motion
 * meets every position). */
static void
test_missed_key_none_when_met (Fixture       *f,
                               gconstpointer  data)
{
  g_autoptr(KmSkeleton) skeleton = arm_skeleton ();
  g_autoptr(KmIkProblem) problem = arm_problem (skeleton);
  KmTargetKeyframe near_keys[3] = {
    arm_keyframe (skeleton, 0, 30, 45, 0),
    arm_keyframe (skeleton, 60, 40, 50, 10),
    arm_keyframe (skeleton, 120, 50, 30, 20),
  };
  KmTargetKeyframe mirror_keys[2] = {
    arm_keyframe (skeleton, 0, 30, 45, 0),
    arm_keyframe (skeleton, 300, -90, -60, 0),
  };
  g_autoptr(KmTargetTrack) near = arm_track (near_keys, 3);
  g_autoptr(KmTargetTrack) mirror = arm_track (mirror_keys, 2);
  g_autoptr(KmTargetTrack) position_only = km_target_track_with_tool (mirror, KM_VEC3_ZERO,
                                                                       TRUE);
  KmTargetTrack *tracks[] = { near, position_only };

  for (guint t = 0; t < G_N_ELEMENTS (tracks); t++)
    {
      g_autoptr(KmAnimation) animation = NULL;
      g_autoptr(GError) error = NULL;
      g_autofree KmAnimationKeyMiss *found = NULL;
      guint last = km_target_track_get_last_frame (tracks[t]), n_missed = 1;

      animation = km_ik_solve_track (problem, tracks[t], 0, last, NULL, NULL, NULL, NULL,
                                     &error);
      g_assert_no_error (error);
      g_assert_true (km_animation_get_keys_checked (animation));
      g_assert_null (km_animation_get_missed_keys (animation, &n_missed));
      g_assert_cmpuint (n_missed, ==, 0);

      found = km_ik_find_missed_keys (problem, tracks[t], animation, &n_missed, NULL, NULL,
                                      &error);
      g_assert_no_error (error);
      g_assert_nonnull (found);
      g_assert_cmpuint (n_missed, ==, 0);
    }
}

/* Counts the solves begun (the analytic hook runs once per solve). */
static gboolean
count_hook (const KmIkProblem *problem,
            const KmTransform *target,
            double            *q,
            gpointer           user_data)
{
  g_atomic_int_inc ((gint *) user_data);
  return FALSE;
}

/* A keyframe truly out of reach: the motion misses it, and so does the keyframe solved on
 * its own, so it is not reported. Nor are the example's keyframes, whose orientations its
 * 5-DOF chain cannot take (the motion misses them, and no pose does better). Keyframes the
 * motion meets are not solved again at all. */
static void
test_missed_key_out_of_reach (Fixture       *f,
                              gconstpointer  data)
{
  g_autoptr(KmSkeleton) skeleton = arm_skeleton ();
  g_autoptr(KmIkProblem) problem = arm_problem (skeleton);
  KmTargetKeyframe keys[3] = {
    arm_keyframe (skeleton, 0, 30, 45, 0),
    arm_keyframe (skeleton, 30, 40, 50, 10),
    arm_keyframe (skeleton, 90, 0, 0, 0),
  };
  g_autoptr(KmTargetTrack) far = NULL;
  g_autoptr(KmTargetTrack) example = default_track ();
  g_autoptr(KmAnimation) animation = NULL;
  g_autoptr(KmAnimation) example_animation = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree KmAnimationKeyMiss *found = NULL;
  double pos_err;
  guint n_missed = 1, n_orientation_missed = 0;
  gint solves = 0;

  keys[2].position = km_vec3 (2.0, 1.0, 0.5);  /* the arm reaches 0.6 m */
  far = arm_track (keys, 3);
  animation = km_ik_solve_track (problem, far, 0, 90, NULL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (km_animation_get_residual (animation, 90, &pos_err, NULL));
  g_assert_cmpfloat (pos_err, >, 1.0);
  g_assert_true (km_animation_get_keys_checked (animation));
  g_assert_null (km_animation_get_missed_keys (animation, &n_missed));
  g_assert_cmpuint (n_missed, ==, 0);

  /* One solve: the keyframe out of reach; the two the motion meets cost none. */
  problem->analytic = count_hook;
  problem->analytic_data = &solves;
  found = km_ik_find_missed_keys (problem, far, animation, &n_missed, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (n_missed, ==, 0);
  g_assert_cmpint (solves, ==, 1);
  g_clear_pointer (&found, g_free);

  /* The built-in example (kinema-cli solve without arguments). */
  example_animation = km_ik_solve_track (f->problem, example, 0,
                                         km_target_track_get_last_frame (example), NULL, NULL,
                                         NULL, NULL, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < km_target_track_get_n_keyframes (example); i++)
    {
      double rot_err;

      km_animation_get_residual (example_animation,
                                 km_target_track_get_keyframe (example, i)->frame, &pos_err,
                                 &rot_err);
      if (km_ik_residual_missed (pos_err, rot_err, TRUE))
        n_orientation_missed++;
    }
  g_assert_cmpuint (n_orientation_missed, >, 0);
  g_assert_true (km_animation_get_keys_checked (example_animation));
  g_assert_null (km_animation_get_missed_keys (example_animation, &n_missed));
  g_assert_cmpuint (n_missed, ==, 0);
}

/* A hold: the mirror keyframe repeated on 1000 frames. Every one is missed, and the pose
 * that meets them is solved once, not a thousand times. */
static void
test_missed_key_hold_solved_once (Fixture       *f,
                                  gconstpointer  data)
{
  g_autoptr(KmSkeleton) skeleton = arm_skeleton ();
  g_autoptr(KmIkProblem) problem = arm_problem (skeleton);
  g_autofree KmTargetKeyframe *keys = g_new (KmTargetKeyframe, 1001);
  g_autoptr(KmTargetTrack) track = NULL;
  g_autoptr(KmAnimation) animation = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree KmAnimationKeyMiss *found = NULL;
  guint n_missed;
  gint solves = 0;

  keys[0] = arm_keyframe (skeleton, 0, 30, 45, 0);
  for (guint i = 1; i <= 1000; i++)
    keys[i] = arm_keyframe (skeleton, 299 + i, -90, -60, 0);
  track = arm_track (keys, 1001);
  animation = km_ik_solve_track (problem, track, 0, 1299, NULL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  km_animation_get_missed_keys (animation, &n_missed);
  g_assert_cmpuint (n_missed, ==, 1000);

  problem->analytic = count_hook;
  problem->analytic_data = &solves;
  found = km_ik_find_missed_keys (problem, track, animation, &n_missed, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (n_missed, ==, 1000);
  g_assert_cmpuint (found[0].frame, ==, 300);
  g_assert_cmpuint (found[999].frame, ==, 1299);
  g_assert_cmpint (solves, ==, 1);
}

/* Thousands of keyframes that no pose meets (orientations the example's 5-DOF chain cannot
 * take, on every frame): the check does not solve each of them; its solves stop after a
 * few dozen solves' budgets. */
static void
test_missed_key_work_bounded (Fixture       *f,
                              gconstpointer  data)
{
  g_autoptr(KmTargetTrack) example = default_track ();
  g_autofree KmTargetKeyframe *keys = g_new (KmTargetKeyframe, 2000);
  g_autoptr(KmTargetTrack) track = NULL;
  g_autoptr(KmAnimation) animation = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(KmAnimation) copy = NULL;
  g_autofree KmAnimationKeyMiss *found = NULL;
  guint n_missed, n_unchecked, n_motion_missed = 0;
  gint solves = 0;

  for (guint i = 0; i < 2000; i++)
    {
      KmVec3 pos;
      KmQuat rot;

      km_target_track_sample (example, i * 240.0 / 1999, &pos, &rot);
      keys[i].frame = i;
      keys[i].position = pos;
      keys[i].orientation = km_quat_mul (rot, km_quat_from_axis_angle (km_vec3 (1, 0, 0), 0.5));
    }
  track = km_target_track_new (keys, 2000, NULL, 30.0, &error);
  g_assert_no_error (error);
  animation = km_ik_solve_track (f->problem, track, 0, 1999, NULL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < 2000; i++)
    {
      double pos_err, rot_err;

      km_animation_get_residual (animation, i, &pos_err, &rot_err);
      if (km_ik_residual_missed (pos_err, rot_err, TRUE))
        n_motion_missed++;
    }
  g_assert_cmpuint (n_motion_missed, >, 1000);

  f->problem->analytic = count_hook;
  f->problem->analytic_data = &solves;
  found = km_ik_find_missed_keys (f->problem, track, animation, &n_missed, &n_unchecked, NULL,
                                  &error);
  g_assert_no_error (error);
  g_test_message ("%u keyframes missed by the motion, %d solved on their own, %u reported, "
                  "%u not checked", n_motion_missed, solves, n_missed, n_unchecked);
  g_assert_cmpint (solves, >, 0);
  g_assert_cmpint (solves, <=, 100);
  /* Every keyframe a distinct target: those not solved are counted, not forgotten. */
  g_assert_cmpuint (n_unchecked, ==, n_motion_missed - (guint) solves);
  /* The solve records the same count with its animation; a copy keeps it. */
  g_assert_true (km_animation_get_keys_checked (animation));
  g_assert_cmpuint (km_animation_get_unchecked_keys (animation), ==, n_unchecked);
  copy = km_animation_copy (animation);
  g_assert_cmpuint (km_animation_get_unchecked_keys (copy), ==, n_unchecked);
}

/* Cancels its cancellable from within the first solve. */
static gboolean
cancel_hook (const KmIkProblem *problem,
             const KmTransform *target,
             double            *q,
             gpointer           user_data)
{
  g_cancellable_cancel (user_data);
  return FALSE;
}

/* The check stops when cancelled (already, or during a keyframe's solve) and gives
 * nothing; so does a job cancelled while it checks. */
static void
test_missed_key_cancel (Fixture       *f,
                        gconstpointer  data)
{
  g_autoptr(KmSkeleton) skeleton = arm_skeleton ();
  g_autoptr(KmIkProblem) problem = arm_problem (skeleton);
  KmTargetKeyframe keys[2] = {
    arm_keyframe (skeleton, 0, 30, 45, 0),
    arm_keyframe (skeleton, 300, -90, -60, 0),
  };
  g_autoptr(KmTargetTrack) track = arm_track (keys, 2);
  g_autoptr(KmAnimation) animation = NULL;
  g_autoptr(GCancellable) cancelled = g_cancellable_new ();
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  guint n_missed = 1;

  animation = km_ik_solve_track (problem, track, 0, 300, NULL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);

  g_cancellable_cancel (cancelled);
  g_assert_null (km_ik_find_missed_keys (problem, track, animation, &n_missed, NULL, cancelled,
                                         &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpuint (n_missed, ==, 0);
  g_clear_error (&error);

  problem->analytic = cancel_hook;
  problem->analytic_data = cancellable;
  g_assert_null (km_ik_find_missed_keys (problem, track, animation, &n_missed, NULL, cancellable,
                                         &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpuint (n_missed, ==, 0);
}

static void
test_resolve_effector (void)
{
  g_autoptr(KmSkeleton) skeleton = test_util_example_skeleton ();
  g_autoptr(KmTargetTrack) track = default_track ();
  g_autoptr(KmTargetTrack) named = km_target_track_with_effector (track, "Piston");
  g_autoptr(KmTargetTrack) wrong = km_target_track_with_effector (track, "Knee");
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (km_ik_resolve_effector (skeleton, track, NULL, NULL), ==,
                   km_skeleton_find_joint (skeleton, "EndEffector"));
  g_assert_cmpint (km_ik_resolve_effector (skeleton, named, NULL, NULL), ==,
                   km_skeleton_find_joint (skeleton, "Piston"));
  g_assert_cmpint (km_ik_resolve_effector (skeleton, named, "Elbow", NULL), ==,
                   km_skeleton_find_joint (skeleton, "Elbow"));
  g_assert_cmpint (km_ik_resolve_effector (skeleton, wrong, NULL, &error), ==, -1);
  g_assert_error (error, KM_IK_ERROR, KM_IK_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "Knee"));
}

/*
 * A spherical-revolute-spherical arm (the iiwa, tests/data/bench-iiwa7.json) on the
 * benchmark's warm motion (as test-ik-srs.c's route-continuous), its frames 600-999 here:
 * each joint follows 0.9 · limit · sin(w k + φ). Tracked plainly from a mid-range seed the
 * motion jumps (joint_a3 runs into its limit); routed it does not, so the routed motion
 * wins, and the plain track's frames streamed before are revised.
 */
#define SRS_FIRST  600
#define SRS_FRAMES 400

static const double srs_w[7] = {
  0.003850297299850436, 0.005472876586258073, 0.005680212715582877, 0.005723112154982489,
  0.0042685402722014735, 0.006359105219812302, 0.006526937862699772,
};
static const double srs_phase[7] = {
  1.874487807526342, 2.6221621595410025, 4.019987816585729, -1.021930433899183,
  -0.7224915957673894, 1.3588418003636913, 3.1179648944639293,
};

/* A UR5 (bench-ur5.json) at its wrist singularity (wrist_2 = 0, the elbow at 45°), keyed
 * at frame 0 with the pose it starts from and at frame 60 a little further on: frame 0
 * keeps the seed exactly, and frame 1 turns the wrist by about 0.33 rad, a spike against
 * the steps after it (km_ik_solve_trajectory() reports it: KmIkSolution.jumped). An
 * exported motion of that kind once did so at 9.5 rad/s with no mark and no message (a
 * reviewer's report): the solved animation, from km_ik_solve_track() and from the job,
 * says so at frame 1 and nowhere else, and copies keep it. */
static void
test_jump_at_seed (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "bench-ur5.json", NULL);
  g_autofree char *text = NULL;
  g_autoptr(KmSkeleton) skeleton = NULL;
  g_autoptr(KmIkProblem) problem = NULL;
  g_autoptr(KmTargetTrack) track = NULL;
  g_autoptr(KmAnimation) sync = NULL;
  g_autoptr(KmAnimation) copy = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree KmTransform *world = NULL;
  const double seed[6] = { 0, 0, G_PI / 4, 0, 0, 0 };
  const double away[6] = { 5 * G_PI / 180, 5 * G_PI / 180, 50 * G_PI / 180,
                           5 * G_PI / 180, 5 * G_PI / 180, 5 * G_PI / 180 };
  const double *poses[2] = { seed, away };
  KmTargetKeyframe keys[2] = { { 0 }, { 60 } };
  KmTransform identity;
  KmAnimation *results[2];
  gsize length;

  g_assert_true (g_file_get_contents (path, &text, &length, &error));
  skeleton = km_skeleton_json_load (path, text, length, &error);
  g_assert_no_error (error);
  problem = km_ik_problem_new (skeleton, km_skeleton_find_joint (skeleton, "tool0"));
  memcpy (problem->seed, seed, sizeof seed);
  world = g_new (KmTransform, km_skeleton_get_n_joints (skeleton));
  km_transform_identity (&identity);
  for (guint k = 0; k < 2; k++)
    {
      km_skeleton_forward_kinematics (skeleton, poses[k], &identity, world);
      keys[k].position = world[problem->effector].pos;
      keys[k].orientation = km_mat3_to_quat (&world[problem->effector].rot);
    }
  track = km_target_track_new (keys, 2, "tool0", 30.0, &error);
  g_assert_no_error (error);

  sync = km_ik_solve_track (problem, track, 0, 60, NULL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  km_ik_job_solve_async (f->job, problem, track, 0, 60, NULL, solve_done_cb, f);
  g_main_loop_run (f->loop);
  g_assert_no_error (f->error);
  copy = km_animation_copy (sync);

  results[0] = sync;
  results[1] = f->result;
  for (guint r = 0; r < G_N_ELEMENTS (results); r++)
    {
      double step = km_animation_get_step (results[r], 1, NULL);

      g_test_message ("frame 0→1: %g rad, %u frames jumped to", step,
                      km_animation_get_n_jumps (results[r]));
      g_assert_cmpfloat (step, >=, 0.1);
      g_assert_true (km_animation_get_jumped (results[r], 1));
      g_assert_false (km_animation_get_jumped (results[r], 0));
      g_assert_cmpuint (km_animation_get_n_jumps (results[r]), ==, 1);
    }
  g_assert_true (km_animation_get_jumped (copy, 1));
  g_assert_cmpuint (km_animation_get_n_jumps (copy), ==, 1);

  /* Measured again from the joint values alone (a motion read from a file), the same. */
  {
    g_autofree gboolean *measured = km_ik_measure_jumps (problem, sync);

    for (guint k = 0; k < km_animation_get_n_frames (sync); k++)
      g_assert_cmpint (measured[k], ==, km_animation_get_jumped (sync, k));
  }
}

/* A long UR5 motion (more frames than a search looks back, so that its frames are handed
 * over while it is solved) whose pan turns 0.001 rad a frame and, for three frames from
 * SPEED_UP on, 0.12 rad: the first fast step is no jump, since the steps after it are as
 * large (a spike is a step much larger than those on either side). Frames handed over before
 * the next one was solved were judged against the step before alone: SPEED_UP was reported
 * as a jump in the solved motion and not in the same motion measured again. */
static void
test_jump_speed_up (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "bench-ur5.json", NULL);
  g_autofree char *text = NULL;
  g_autoptr(KmSkeleton) skeleton = NULL;
  g_autoptr(KmIkProblem) problem = NULL;
  g_autoptr(KmTargetTrack) track = NULL;
  g_autoptr(KmAnimation) motion = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree KmTransform *world = NULL;
  g_autofree KmTargetKeyframe *keys = NULL;
  g_autofree gboolean *measured = NULL;
  enum { N = 4400, SPEED_UP = 4200 };
  double q[6] = { -2.3, -0.8, G_PI / 4, -0.6, 0.7, 0.3 };
  KmTransform identity;
  gsize length;

  g_assert_true (g_file_get_contents (path, &text, &length, &error));
  skeleton = km_skeleton_json_load (path, text, length, &error);
  g_assert_no_error (error);
  problem = km_ik_problem_new (skeleton, km_skeleton_find_joint (skeleton, "tool0"));
  memcpy (problem->seed, q, sizeof q);
  world = g_new (KmTransform, km_skeleton_get_n_joints (skeleton));
  keys = g_new0 (KmTargetKeyframe, N);
  km_transform_identity (&identity);
  for (guint k = 0; k < N; k++)
    {
      if (k > 0)
        q[0] += k >= SPEED_UP && k < SPEED_UP + 3 ? 0.12 : 0.001;
      km_skeleton_forward_kinematics (skeleton, q, &identity, world);
      keys[k].frame = k;
      keys[k].position = world[problem->effector].pos;
      keys[k].orientation = km_mat3_to_quat (&world[problem->effector].rot);
    }
  track = km_target_track_new (keys, N, "tool0", 30.0, &error);
  g_assert_no_error (error);

  motion = km_ik_solve_track (problem, track, 0, N - 1, NULL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (fabs (km_animation_get_step (motion, SPEED_UP, NULL) - 0.12), <, 1e-6);
  measured = km_ik_measure_jumps (problem, motion);
  for (guint k = 0; k < N; k++)
    if (measured[k] != km_animation_get_jumped (motion, k))
      g_error ("frame %u: solved as %s, measured as %s", k,
               km_animation_get_jumped (motion, k) ? "a jump" : "none",
               measured[k] ? "a jump" : "none");
  g_assert_false (km_animation_get_jumped (motion, SPEED_UP));
  g_assert_cmpuint (km_animation_get_n_jumps (motion), ==, 0);
}

/* Replaces the fixture's problem by the iiwa's, seeded mid-range. */
static void
use_iiwa (Fixture *f)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "bench-iiwa7.json", NULL);
  g_autofree char *data = NULL;
  g_autoptr(GError) error = NULL;
  gsize length;

  g_assert_true (g_file_get_contents (path, &data, &length, &error));
  g_clear_pointer (&f->problem, km_ik_problem_free);
  g_clear_pointer (&f->skeleton, km_skeleton_unref);
  f->skeleton = km_skeleton_json_load (path, data, length, &error);
  g_assert_no_error (error);
  f->problem = km_ik_problem_new (f->skeleton, km_skeleton_get_default_effector (f->skeleton));
  km_skeleton_get_mid_range (f->skeleton, f->problem->seed);
}

/* The warm motion's poses, a keyframe on every frame. */
static KmTargetTrack *
srs_track (Fixture *f)
{
  guint n_dof = f->problem->n_dof;
  g_autofree KmTargetKeyframe *keys = g_new0 (KmTargetKeyframe, SRS_FRAMES);
  g_autofree KmTransform *world = g_new (KmTransform, km_skeleton_get_n_joints (f->skeleton));
  g_autofree double *lo = g_new (double, n_dof);
  g_autofree double *hi = g_new (double, n_dof);
  g_autofree double *q = g_new (double, n_dof);
  g_autoptr(GError) error = NULL;
  KmTargetTrack *track;

  g_assert_cmpuint (n_dof, ==, 7);
  km_skeleton_get_dof_limits (f->skeleton, lo, hi);
  for (guint k = 0; k < SRS_FRAMES; k++)
    {
      for (guint d = 0; d < n_dof; d++)
        q[d] = 0.9 * hi[d] * sin (srs_w[d] * (k + SRS_FIRST) + srs_phase[d]);
      km_skeleton_forward_kinematics (f->skeleton, q, &f->problem->root_pose, world);
      keys[k].frame = k;
      keys[k].position = world[f->problem->effector].pos;
      keys[k].orientation = km_mat3_to_quat (&world[f->problem->effector].rot);
    }
  track = km_target_track_new (keys, SRS_FRAMES, NULL, 30.0, &error);
  g_assert_no_error (error);
  return track;
}

/* What km_ik_solve_trajectory_stream() handed over, in order. */
typedef struct
{
  guint    n_dof;
  double  *rows;        /* SRS_FRAMES × (n_dof + 2): values, pos_err, rot_err */
  guint    next;        /* the frame that comes next */
  guint    n_frames_handed;
  guint    n_revised;
  guint    revised_from;
  double   progress;    /* the last progress */
  double   progress_at_first;  /* the progress when the first frame came */
  gboolean outside_limits;
  const KmSkeleton *skeleton;
  GCancellable *cancel_on_revise;  /* nullable: cancelled as the revision comes */
} Streamed;

static void
streamed_frame_cb (guint               frame,
                   const KmIkSolution *solution,
                   gpointer            user_data)
{
  Streamed *s = user_data;
  double *row = &s->rows[(gsize) frame * (s->n_dof + 2)];

  g_assert_cmpuint (frame, ==, s->next);
  if (s->n_frames_handed == 0)
    s->progress_at_first = s->progress;
  memcpy (row, solution->q, s->n_dof * sizeof (double));
  row[s->n_dof] = solution->pos_err;
  row[s->n_dof + 1] = solution->rot_err;
  if (!km_skeleton_within_limits (s->skeleton, solution->q, 0.0))
    s->outside_limits = TRUE;
  s->next++;
  s->n_frames_handed++;
}

static void
streamed_revise_cb (guint    first_frame,
                    gpointer user_data)
{
  Streamed *s = user_data;

  g_assert_cmpuint (first_frame, <, s->next);
  s->next = first_frame;
  s->revised_from = first_frame;
  s->n_revised++;
  if (s->cancel_on_revise != NULL)
    g_cancellable_cancel (s->cancel_on_revise);
}

static void
streamed_progress_cb (double   fraction,
                      gpointer user_data)
{
  ((Streamed *) user_data)->progress = fraction;
}

/* Streamed, an SRS arm's plain track comes at once (while the solve has most of its work
 * ahead), and where the routed motion wins, it is revised from the first frame that
 * differs: what was handed over last for each frame is, to the bit, what
 * km_ik_solve_trajectory() hands over. */
static void
test_srs_stream_sync (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(KmTargetTrack) track = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree KmTransform *targets = g_new (KmTransform, SRS_FRAMES);
  g_autofree KmIkSolution *out = g_new0 (KmIkSolution, SRS_FRAMES);
  g_autofree double *rows = NULL;
  g_autoptr(GCancellable) cancellable = data != NULL ? g_cancellable_new () : NULL;
  Streamed s = { 0 };
  guint n_dof;
  gboolean ok;

  use_iiwa (f);
  n_dof = f->problem->n_dof;
  track = srs_track (f);
  for (guint k = 0; k < SRS_FRAMES; k++)
    {
      KmVec3 pos;
      KmQuat rot;

      km_target_track_sample (track, k, &pos, &rot);
      km_transform_from_pos_quat (pos, rot, &targets[k]);
    }
  rows = g_new0 (double, (gsize) SRS_FRAMES * (n_dof + 2));
  s.n_dof = n_dof;
  s.rows = rows;
  s.skeleton = f->skeleton;
  s.cancel_on_revise = cancellable;
  ok = km_ik_solve_trajectory_stream (f->problem, targets, SRS_FRAMES, streamed_frame_cb,
                                      streamed_revise_cb, streamed_progress_cb, &s,
                                      cancellable, &error);
  /* Cancelled as the revision comes (the motion is solved, only handed over), the revised
   * frames all come all the same: no motion spliced from the two tracks stays. */
  if (cancellable != NULL)
    {
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
      g_assert_false (ok);
      g_clear_error (&error);
    }
  else
    {
      g_assert_no_error (error);
      g_assert_true (ok);
    }
  g_assert_cmpuint (s.next, ==, SRS_FRAMES);
  /* The plain track came during its own pass, not after the routing. */
  g_assert_cmpfloat (s.progress_at_first, <, 0.5);
  g_assert_false (s.outside_limits);
  /* The routed motion won: revised once, from a frame the plain track had handed over. */
  g_assert_cmpuint (s.n_revised, ==, 1);
  g_assert_cmpuint (s.n_frames_handed, >, SRS_FRAMES);
  g_test_message ("revised from frame %u, %u frames handed over", s.revised_from,
                  s.n_frames_handed);

  g_assert_true (km_ik_solve_trajectory (f->problem, targets, SRS_FRAMES, out, NULL, NULL,
                                         NULL, &error));
  g_assert_no_error (error);
  for (guint k = 0; k < SRS_FRAMES; k++)
    {
      const double *row = &rows[(gsize) k * (n_dof + 2)];

      g_assert_cmpmem (row, n_dof * sizeof (double), out[k].q, n_dof * sizeof (double));
      g_assert_cmpmem (&row[n_dof], sizeof (double), &out[k].pos_err, sizeof (double));
      g_assert_cmpmem (&row[n_dof + 1], sizeof (double), &out[k].rot_err, sizeof (double));
      km_ik_solution_clear (&out[k]);
    }
}

/* ::frames-ready for a solve that may revise: from the end of what came, or back. */
static void
srs_frames_ready_cb (KmIkJob *job,
                     guint    first_frame,
                     guint    n_frames,
                     Fixture *f)
{
  KmAnimation *animation = km_ik_job_get_animation (job);

  g_assert_cmpuint (first_frame, <=, f->next_frame);
  g_assert_cmpuint (n_frames, >, 0);
  g_assert_true (km_animation_get_residual (animation, first_frame + n_frames - 1, NULL, NULL));
  if (first_frame + n_frames > f->next_frame
      && first_frame + n_frames < km_animation_get_n_frames (animation))
    g_assert_false (km_animation_get_residual (animation, first_frame + n_frames, NULL, NULL));
  f->next_frame = MAX (f->next_frame, first_frame + n_frames);
  f->n_signals++;
  if (f->cancel_on_first_frames && f->solves_at_cancel == 0)
    {
      f->solves_at_cancel = 1;
      km_ik_job_cancel (job);
    }
}

/* The progress the job showed once frames had come: below 0.9 only when they came while
 * the solve still had work ahead (before, an SRS arm's came only after it was all done). */
static void
srs_notify_progress_cb (KmIkJob    *job,
                        GParamSpec *pspec,
                        Fixture    *f)
{
  double p = km_ik_job_get_progress (job);

  if (f->n_signals > 0)
    g_array_append_val (f->progress, p);
}

static gboolean
any_below (GArray *values,
           double  bound)
{
  for (guint i = 0; i < values->len; i++)
    if (g_array_index (values, double, i) < bound)
      return TRUE;
  return FALSE;
}

/* A job on an SRS arm streams frames while it solves, and its result is, to the bit,
 * km_ik_solve_track()'s, also where the routed motion wins over the plain track it
 * streamed first. */
static void
test_srs_streams (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(KmTargetTrack) track = NULL;
  g_autoptr(KmAnimation) expected = NULL;
  g_autoptr(GError) error = NULL;
  guint n_dof;

  use_iiwa (f);
  n_dof = f->problem->n_dof;
  track = srs_track (f);
  g_signal_connect (f->job, "frames-ready", G_CALLBACK (srs_frames_ready_cb), f);
  g_signal_connect (f->job, "notify::progress", G_CALLBACK (srs_notify_progress_cb), f);
  km_ik_job_solve_async (f->job, f->problem, track, 0, SRS_FRAMES - 1, NULL, solve_done_cb, f);
  g_main_loop_run (f->loop);

  g_assert_no_error (f->error);
  g_assert_nonnull (f->result);
  g_assert_cmpuint (f->next_frame, ==, SRS_FRAMES);
  g_assert_true (any_below (f->progress, 0.9));
  g_assert_cmpfloat (km_ik_job_get_progress (f->job), ==, 1.0);

  expected = km_ik_solve_track (f->problem, track, 0, SRS_FRAMES - 1, NULL, NULL, NULL, NULL,
                                &error);
  g_assert_no_error (error);
  for (guint k = 0; k < SRS_FRAMES; k++)
    {
      double pa, ra, pb, rb;

      g_assert_cmpmem (km_animation_get_frame (expected, k), n_dof * sizeof (double),
                       km_animation_get_frame (f->result, k), n_dof * sizeof (double));
      g_assert_true (km_animation_get_residual (expected, k, &pa, &ra));
      g_assert_true (km_animation_get_residual (f->result, k, &pb, &rb));
      g_assert_cmpmem (&pa, sizeof pa, &pb, sizeof pb);
      g_assert_cmpmem (&ra, sizeof ra, &rb, sizeof rb);
    }
  g_assert_true (km_animation_equal (expected, f->result, 0.0));
}

/* Cancelled once frames have come, an SRS arm's job keeps them: rows in frame order from
 * the first, each with its residuals, within the limits. */
static void
test_srs_cancel_keeps_frames (Fixture       *f,
                              gconstpointer  data)
{
  g_autoptr(KmTargetTrack) track = NULL;
  KmAnimation *animation;

  use_iiwa (f);
  track = srs_track (f);
  f->cancel_on_first_frames = TRUE;
  g_signal_connect (f->job, "frames-ready", G_CALLBACK (srs_frames_ready_cb), f);
  km_ik_job_solve_async (f->job, f->problem, track, 0, SRS_FRAMES - 1, NULL, solve_done_cb, f);
  g_main_loop_run (f->loop);

  g_assert_error (f->error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (f->result);
  g_assert_cmpuint (f->n_signals, >=, 1);
  g_assert_cmpuint (f->next_frame, >, 0);
  /* They came while the solve had most of its work ahead (the routing). */
  g_assert_cmpfloat (km_ik_job_get_progress (f->job), <, 0.9);
  animation = km_ik_job_get_animation (f->job);
  for (guint k = 0; k < f->next_frame; k++)
    {
      g_assert_true (km_animation_get_residual (animation, k, NULL, NULL));
      g_assert_true (km_skeleton_within_limits (f->skeleton, km_animation_get_frame (animation, k),
                                                0.0));
    }
}

/* The re-entrant case: a notify::busy handler that starts a new solve once the first is
 * done. The first solve's callback must get its own animation, complete, not the one the
 * new solve put in its place. */
typedef struct
{
  Fixture          *f;
  KmTargetTrack    *track;
  gboolean          restarted;
  KmAnimation      *first;
  GError           *first_error;
} Reentrant;

static void
reentrant_busy_cb (KmIkJob    *job,
                   GParamSpec *pspec,
                   Reentrant  *r)
{
  if (km_ik_job_get_busy (job) || r->restarted)
    return;
  r->restarted = TRUE;
  km_ik_job_solve_async (job, r->f->problem, r->track, 0, 9, NULL, solve_done_cb, r->f);
}

static void
reentrant_first_done_cb (GObject      *object,
                         GAsyncResult *result,
                         gpointer      user_data)
{
  Reentrant *r = user_data;

  r->first = km_ik_job_solve_finish (KM_IK_JOB (object), result, &r->first_error);
}

static void
test_reentrant_notify (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(KmTargetTrack) track = default_track ();
  g_autoptr(KmAnimation) expected = NULL;
  g_autoptr(KmAnimation) expected_second = NULL;
  Reentrant r = { f, track, FALSE, NULL, NULL };

  g_signal_connect (f->job, "notify::busy", G_CALLBACK (reentrant_busy_cb), &r);
  km_ik_job_solve_async (f->job, f->problem, track, 0, 60, NULL, reentrant_first_done_cb, &r);
  g_main_loop_run (f->loop);

  g_assert_true (r.restarted);
  g_assert_no_error (r.first_error);
  g_assert_nonnull (r.first);
  g_assert_cmpuint (km_animation_get_n_frames (r.first), ==, 61);
  for (guint k = 0; k <= 60; k++)
    g_assert_true (km_animation_get_residual (r.first, k, NULL, NULL));
  g_assert_true (km_animation_get_keys_checked (r.first));
  expected = km_ik_solve_track (f->problem, track, 0, 60, NULL, NULL, NULL, NULL, NULL);
  g_assert_true (km_animation_equal (expected, r.first, 0.0));

  /* The new solve ran to its end as usual, and was not shown idle while it ran. */
  g_assert_no_error (f->error);
  g_assert_nonnull (f->result);
  g_assert_cmpuint (km_animation_get_n_frames (f->result), ==, 10);
  g_assert_true (f->result == km_ik_job_get_animation (f->job));
  g_assert_false (km_ik_job_get_busy (f->job));
  expected_second = km_ik_solve_track (f->problem, track, 0, 9, NULL, NULL, NULL, NULL, NULL);
  g_assert_true (km_animation_equal (expected_second, f->result, 0.0));
  g_clear_pointer (&r.first, km_animation_unref);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add ("/kinema/IkJob/progress-and-result", Fixture, NULL, fixture_setup,
              test_progress_and_result, fixture_teardown);
  g_test_add ("/kinema/IkJob/range", Fixture, NULL, fixture_setup, test_range,
              fixture_teardown);
  g_test_add ("/kinema/IkJob/fit-does-not-chatter", Fixture, NULL, fixture_setup,
              test_fit_does_not_chatter, fixture_teardown);
  g_test_add ("/kinema/IkJob/cancel-promptly", Fixture, NULL, fixture_setup,
              test_cancel_promptly, fixture_teardown);
  g_test_add ("/kinema/IkJob/user-cancellable", Fixture, NULL, fixture_setup,
              test_user_cancellable, fixture_teardown);
  g_test_add ("/kinema/IkJob/newer-request-supersedes", Fixture, NULL, fixture_setup,
              test_newer_request_supersedes, fixture_teardown);
  g_test_add ("/kinema/IkJob/unref-cancels", Fixture, NULL, fixture_setup,
              test_unref_cancels, fixture_teardown);
  g_test_add ("/kinema/IkJob/position-only-residuals", Fixture, NULL, fixture_setup,
              test_position_only_residuals, fixture_teardown);
  g_test_add ("/kinema/IkJob/measure-track", Fixture, NULL, fixture_setup,
              test_measure_track, fixture_teardown);
  g_test_add_func ("/kinema/IkJob/missed-key/made-motion", test_missed_key_made_motion);
  g_test_add ("/kinema/IkJob/missed-key/mirror-branch", Fixture, NULL, fixture_setup,
              test_missed_key_mirror_branch, fixture_teardown);
  g_test_add ("/kinema/IkJob/missed-key/none-when-met", Fixture, NULL, fixture_setup,
              test_missed_key_none_when_met, fixture_teardown);
  g_test_add ("/kinema/IkJob/missed-key/out-of-reach", Fixture, NULL, fixture_setup,
              test_missed_key_out_of_reach, fixture_teardown);
  g_test_add ("/kinema/IkJob/missed-key/hold-solved-once", Fixture, NULL, fixture_setup,
              test_missed_key_hold_solved_once, fixture_teardown);
  g_test_add ("/kinema/IkJob/missed-key/work-bounded", Fixture, NULL, fixture_setup,
              test_missed_key_work_bounded, fixture_teardown);
  g_test_add ("/kinema/IkJob/missed-key/cancel", Fixture, NULL, fixture_setup,
              test_missed_key_cancel, fixture_teardown);
  g_test_add_func ("/kinema/IkJob/resolve-effector", test_resolve_effector);
  g_test_add_func ("/kinema/IkJob/jump-speed-up", test_jump_speed_up);
  g_test_add ("/kinema/IkJob/jump-at-seed", Fixture, NULL, fixture_setup, test_jump_at_seed,
              fixture_teardown);
  g_test_add ("/kinema/IkJob/srs/stream-sync", Fixture, NULL, fixture_setup,
              test_srs_stream_sync, fixture_teardown);
  g_test_add ("/kinema/IkJob/srs/stream-cancel-at-revision", Fixture, "cancel", fixture_setup,
              test_srs_stream_sync, fixture_teardown);
  g_test_add ("/kinema/IkJob/srs/streams", Fixture, NULL, fixture_setup, test_srs_streams,
              fixture_teardown);
  g_test_add ("/kinema/IkJob/srs/cancel-keeps-frames", Fixture, NULL, fixture_setup,
              test_srs_cancel_keeps_frames, fixture_teardown);

  g_test_add ("/kinema/IkJob/reentrant-notify", Fixture, NULL, fixture_setup,
              test_reentrant_notify, fixture_teardown);
  return g_test_run ();
}
