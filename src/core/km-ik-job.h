/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <gio/gio.h>

#include "km-animation.h"
#include "km-ik.h"
#include "km-target-track.h"

G_BEGIN_DECLS

#define KM_TYPE_IK_JOB (km_ik_job_get_type ())

G_DECLARE_FINAL_TYPE (KmIkJob, km_ik_job, KM, IK_JOB, GObject)

/*
 * KmIkJob solves a frame range of a target track on a worker thread (STYLE.md, "Threading
 * rule"). A job object lives on the main context it was created in; every signal and
 * notification is emitted there.
 *
 * km_ik_job_solve_async() samples the track and copies the problem on the calling thread
 * (aimed at the track's point, km_ik_problem_use_track());
 * the worker reads only that copy and calls km_ik_solve_trajectory(), then checks the keyframes
 * in the range for ones the motion misses although they can be met (km_ik_find_missed_keys(),
 * recorded with km_animation_set_missed_keys() before the callback runs), so the result
 * equals km_ik_solve_track() with the same arguments. A newer request supersedes an older one: the
 * running solve is cancelled and its callback gets G_IO_ERROR_CANCELLED. While a solve
 * runs, finished frames are copied into the job's animation (km_ik_job_get_animation) in
 * frame order and announced with ::frames-ready; :progress grows from 0 to 1. A
 * spherical-revolute-spherical arm's frames come at once too, from its plain track
 * (km_ik_solve_trajectory_stream()): where the routed motion wins in the end, its frames
 * replace them from the first that differs, and a ::frames-ready then starts at a frame
 * announced before (the rows from there on are revised). Whatever was announced is an
 * answer of its frame within the limits, also when the solve is cancelled; once the solve
 * is done, the animation is the final motion. A running solve does not keep the job alive:
 * dropping its last reference cancels the solve.
 *
 * Properties: "progress" (double, 0..1, read-only), "busy" (boolean, read-only),
 * "animation" (KmAnimation, read-only: the current solve's result being filled in).
 * Signal: "frames-ready" (guint first_frame, guint n_frames): rows first_frame ..
 * first_frame + n_frames - 1 of the animation are solved (anew, where first_frame is below
 * the end of the rows announced before: a revision).
 */

KmIkJob       *km_ik_job_new              (void);
void           km_ik_job_solve_async      (KmIkJob             *self,
                                           const KmIkProblem   *problem,
                                           const KmTargetTrack *track,
                                           guint                first_frame,
                                           guint                last_frame,
                                           GCancellable        *cancellable,
                                           GAsyncReadyCallback  callback,
                                           gpointer             user_data);
KmAnimation   *km_ik_job_solve_finish     (KmIkJob             *self,
                                           GAsyncResult        *result,
                                           GError             **error);
void           km_ik_job_cancel           (KmIkJob             *self);
double         km_ik_job_get_progress     (KmIkJob             *self);
gboolean       km_ik_job_get_busy         (KmIkJob             *self);
KmAnimation   *km_ik_job_get_animation    (KmIkJob             *self);

/* The synchronous, thread-agnostic equivalent (the CLI's batch workers use it). */
KmAnimation   *km_ik_solve_track          (const KmIkProblem   *problem,
                                           const KmTargetTrack *track,
                                           guint                first_frame,
                                           guint                last_frame,
                                           KmIkFrameFunc        frame_done,
                                           KmIkProgressFunc     progress,
                                           gpointer             user_data,
                                           GCancellable        *cancellable,
                                           GError             **error);
double        *km_ik_measure_track        (const KmIkProblem   *problem,
                                           const KmTargetTrack *track,
                                           const KmAnimation   *animation,
                                           GCancellable        *cancellable);
gboolean      *km_ik_measure_jumps        (const KmIkProblem   *problem,
                                           const KmAnimation   *animation);
KmAnimationKeyMiss *km_ik_find_missed_keys (const KmIkProblem *problem,
                                           const KmTargetTrack *track,
                                           const KmAnimation   *animation,
                                           guint               *n_missed,
                                           guint               *n_unchecked,
                                           GCancellable        *cancellable,
                                           GError             **error);
void           km_ik_problem_use_track    (KmIkProblem         *problem,
                                           const KmTargetTrack *track);
int            km_ik_resolve_effector     (KmSkeleton          *skeleton,
                                           const KmTargetTrack *track,
                                           const char          *override,
                                           GError             **error);

G_END_DECLS
