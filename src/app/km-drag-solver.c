/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-drag-solver"

#include "config.h"

#include <glib/gi18n.h>

#include "km-drag-solver.h"

struct _KmDragSolver
{
  GObject       parent_instance;

  /* Owned */
  KmIkProblem  *pending;          /* the latest request not yet started */
  gpointer      pending_data;     /* what pending refers to (its analytic hook) */
  GDestroyNotify pending_data_free;
  GCancellable *cancellable;      /* of the solve in flight */

  gint64        pending_time;     /* µs, monotonic, when the pending request came */
  guint         idle_id;
  guint         n_solved;
  gboolean      busy;
};

typedef struct
{
  KmIkProblem   *problem;
  gpointer       problem_data;
  GDestroyNotify problem_data_free;
  gint64         request_time;
} Job;

enum {
  PROP_0,
  PROP_BUSY,
  PROP_N_SOLVED,
  N_PROPS
};

enum {
  SOLVED,
  N_SIGNALS
};

G_DEFINE_FINAL_TYPE (KmDragSolver, km_drag_solver, G_TYPE_OBJECT)

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static void
job_free (Job *job)
{
  km_ik_problem_free (job->problem);
  /* After the problem: it (and any copy the solve made) may point into the data. */
  if (job->problem_data_free != NULL)
    job->problem_data_free (job->problem_data);
  g_free (job);
}

static void
clear_pending (KmDragSolver *self)
{
  g_clear_pointer (&self->pending, km_ik_problem_free);
  if (self->pending_data_free != NULL)
    self->pending_data_free (self->pending_data);
  self->pending_data = NULL;
  self->pending_data_free = NULL;
}

static void
set_busy (KmDragSolver *self,
          gboolean      busy)
{
  if (self->busy == busy)
    return;
  self->busy = busy;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

/* Worker thread: reads only the task data. */
static void
solve_thread (GTask        *task,
              gpointer      source_object,
              gpointer      task_data,
              GCancellable *cancellable)
{
  Job *job = task_data;
  g_autoptr(KmIkSolution) solution = km_ik_solution_new (job->problem->n_dof);
  GError *error = NULL;

  if (!km_ik_solve (job->problem, solution, cancellable, &error))
    {
      if (error == NULL)
        error = g_error_new_literal (KM_IK_ERROR, KM_IK_ERROR_INVALID, _("No answer"));
      g_task_return_error (task, error);
      return;
    }
  g_task_return_pointer (task, g_steal_pointer (&solution), (GDestroyNotify) km_ik_solution_free);
}

static void
solve_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  KmDragSolver *self = KM_DRAG_SOLVER (object);
  Job *job = g_task_get_task_data (G_TASK (result));
  g_autoptr(KmIkSolution) solution = NULL;
  g_autoptr(GError) error = NULL;
  gint64 request_time = job->request_time;

  gboolean latest = g_task_get_cancellable (G_TASK (result)) == self->cancellable;

  solution = g_task_propagate_pointer (G_TASK (result), &error);
  if (solution != NULL)
    {
      self->n_solved++;
      g_signal_emit (self, signals[SOLVED], 0, solution, request_time);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_SOLVED]);
    }
  else if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_debug ("drag solve failed: %s", error->message);

  /* Not busy only once the answer is applied, so that waiting for idle sees it. */
  if (latest && g_task_get_cancellable (G_TASK (result)) == self->cancellable)
    {
      g_clear_object (&self->cancellable);
      if (self->pending == NULL)
        set_busy (self, FALSE);
    }
}

static gboolean
start_pending_cb (gpointer user_data)
{
  KmDragSolver *self = user_data;
  g_autoptr(GTask) task = NULL;
  Job *job;

  self->idle_id = 0;
  if (self->pending == NULL)
    return G_SOURCE_REMOVE;

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();

  job = g_new0 (Job, 1);
  job->problem = g_steal_pointer (&self->pending);
  job->problem_data = g_steal_pointer (&self->pending_data);
  job->problem_data_free = g_steal_pointer (&self->pending_data_free);
  job->request_time = self->pending_time;

  task = g_task_new (self, self->cancellable, solve_cb, NULL);
  g_task_set_source_tag (task, start_pending_cb);
  g_task_set_task_data (task, job, (GDestroyNotify) job_free);
  g_task_run_in_thread (task, solve_thread);
  return G_SOURCE_REMOVE;
}

static void
km_drag_solver_dispose (GObject *object)
{
  KmDragSolver *self = KM_DRAG_SOLVER (object);

  km_drag_solver_cancel (self);

  G_OBJECT_CLASS (km_drag_solver_parent_class)->dispose (object);
}

static void
km_drag_solver_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  KmDragSolver *self = KM_DRAG_SOLVER (object);

  switch (prop_id)
    {
    case PROP_BUSY:
      g_value_set_boolean (value, self->busy);
      break;
    case PROP_N_SOLVED:
      g_value_set_uint (value, self->n_solved);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
km_drag_solver_class_init (KmDragSolverClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = km_drag_solver_dispose;
  object_class->get_property = km_drag_solver_get_property;

  properties[PROP_BUSY] =
    g_param_spec_boolean ("busy", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_N_SOLVED] =
    g_param_spec_uint ("n-solved", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * KmDragSolver::solved:
   * @solution: (type gpointer): the KmIkSolution, valid during the emission
   * @request_time: g_get_monotonic_time() when the request was made
   *
   * A solve finished that no newer request has cancelled.
   */
  signals[SOLVED] =
    g_signal_new ("solved", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, G_TYPE_POINTER, G_TYPE_INT64);
}

static void
km_drag_solver_init (KmDragSolver *self)
{
}

KmDragSolver *
km_drag_solver_new (void)
{
  return g_object_new (KM_TYPE_DRAG_SOLVER, NULL);
}

/**
 * km_drag_solver_request:
 * @problem: (transfer full): what to solve
 *
 * Starts solving @problem at once when no solve is in flight; otherwise queues it as the
 * next solve, dropping any older request: the one waiting is replaced and the one in
 * flight is cancelled.
 */
void
km_drag_solver_request (KmDragSolver *self,
                        KmIkProblem  *problem)
{
  km_drag_solver_request_full (self, problem, NULL, NULL);
}

/**
 * km_drag_solver_request_full:
 * @problem: (transfer full): what to solve
 * @problem_data: (nullable): what @problem refers to, such as the
 *   KmBodyHandlerIkHook installed on it
 * @problem_data_free: (nullable): frees @problem_data once @problem and every copy
 *   the solve made of it are freed, also when a newer request drops this one
 *
 * Like km_drag_solver_request(), keeping @problem_data alive as long as @problem.
 */
void
km_drag_solver_request_full (KmDragSolver   *self,
                             KmIkProblem    *problem,
                             gpointer        problem_data,
                             GDestroyNotify  problem_data_free)
{
  g_return_if_fail (KM_IS_DRAG_SOLVER (self));
  g_return_if_fail (problem != NULL);

  clear_pending (self);
  self->pending = problem;
  self->pending_data = problem_data;
  self->pending_data_free = problem_data_free;
  self->pending_time = g_get_monotonic_time ();
  set_busy (self, TRUE);
  /* Nothing in flight: solve now, while the main loop goes on to paint the frame. */
  if (self->cancellable == NULL && self->idle_id == 0)
    {
      start_pending_cb (self);
      return;
    }
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  /* Requests that come together (one batch of events) start one solve. Default priority,
   * not low: a low-priority idle waits behind every frame that the drag itself queues. */
  if (self->idle_id == 0)
    self->idle_id = g_idle_add_full (G_PRIORITY_DEFAULT, start_pending_cb, self, NULL);
}

/* Drops the waiting request and cancels the solve in flight; no ::solved follows. */
void
km_drag_solver_cancel (KmDragSolver *self)
{
  g_return_if_fail (KM_IS_DRAG_SOLVER (self));

  g_clear_handle_id (&self->idle_id, g_source_remove);
  clear_pending (self);
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  set_busy (self, FALSE);
}

gboolean
km_drag_solver_get_busy (KmDragSolver *self)
{
  g_return_val_if_fail (KM_IS_DRAG_SOLVER (self), FALSE);

  return self->busy;
}

guint
km_drag_solver_get_n_solved (KmDragSolver *self)
{
  g_return_val_if_fail (KM_IS_DRAG_SOLVER (self), 0);

  return self->n_solved;
}
