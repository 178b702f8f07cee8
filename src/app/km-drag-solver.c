/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-drag-solver"

#include "config.h"

#include "km-drag-solver.h"

/*
 * One worker thread per solver, started on the first request. The main thread and the
 * worker share three slots under `lock`: the pending request (at most one: a newer one
 * replaces it), the job in flight (a newer request cancels it) and the ready answer (a newer
 * answer replaces it). The worker wakes the main context with one G_PRIORITY_HIGH idle per
 * batch of answers, which goes ahead of input and of the frame clock's paint;
 * km_drag_solver_flush() lets a view take an answer that is already there, for example
 * just before it paints, without waiting for that idle.
 */

typedef struct
{
  KmIkProblem   *problem;
  gpointer       problem_data;
  GDestroyNotify problem_data_free;
  gint64         request_time;
  guint64        serial;
} Job;

struct _KmDragSolver
{
  GObject        parent_instance;

  GMainContext  *context;         /* where ::solved is emitted */
  GThread       *thread;

  /* Guarded by lock */
  GMutex         lock;
  GCond          cond;
  Job           *pending;         /* the latest request not yet started */
  Job           *in_flight;       /* owned by the worker; NULL when it waits */
  GCancellable  *cancellable;     /* of the job in flight */
  KmIkSolution  *ready;           /* the newest answer not yet emitted */
  gint64         ready_time;      /* its request's time */
  guint64        next_serial;
  guint64        min_serial;      /* answers of older jobs are dropped (cancel) */
  guint64        ready_serial;    /* of the newest answer published */
  gboolean       wake_queued;
  gboolean       quit;

  /* Main thread only */
  guint          n_solved;
  gboolean       busy;
};

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
  if (job == NULL)
    return;
  km_ik_problem_free (job->problem);
  /* After the problem: it (and any copy the solve made) may point into the data. */
  if (job->problem_data_free != NULL)
    job->problem_data_free (job->problem_data);
  g_free (job);
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

static gboolean
wake_cb (gpointer user_data)
{
  KmDragSolver *self = user_data;

  g_mutex_lock (&self->lock);
  self->wake_queued = FALSE;
  g_mutex_unlock (&self->lock);
  km_drag_solver_flush (self);
  return G_SOURCE_REMOVE;
}

/* Called with the lock held, from the worker. */
static void
queue_wake_locked (KmDragSolver *self)
{
  GSource *source;

  if (self->wake_queued || self->quit)
    return;
  self->wake_queued = TRUE;
  source = g_idle_source_new ();
  g_source_set_priority (source, G_PRIORITY_HIGH);
  g_source_set_callback (source, wake_cb, g_object_ref (self), g_object_unref);
  g_source_set_static_name (source, "[kinema] drag solver answer");
  g_source_attach (source, self->context);
  g_source_unref (source);
}

static gpointer
worker_thread (gpointer user_data)
{
  KmDragSolver *self = user_data;

  g_mutex_lock (&self->lock);
  for (;;)
    {
      g_autoptr(KmIkSolution) solution = NULL;
      g_autoptr(GCancellable) cancellable = NULL;
      g_autoptr(GError) error = NULL;
      Job *job;
      gboolean ok;

      while (self->pending == NULL && !self->quit)
        g_cond_wait (&self->cond, &self->lock);
      if (self->quit)
        break;

      job = self->in_flight = g_steal_pointer (&self->pending);
      cancellable = g_object_ref (self->cancellable = g_cancellable_new ());
      g_mutex_unlock (&self->lock);

      solution = km_ik_solution_new (job->problem->n_dof);
      ok = km_ik_solve (job->problem, solution, cancellable, &error);
      if (!ok && error != NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_debug ("drag solve failed: %s", error->message);

      g_mutex_lock (&self->lock);
      if (ok && job->serial >= self->min_serial && job->serial > self->ready_serial)
        {
          g_clear_pointer (&self->ready, km_ik_solution_free);
          self->ready = g_steal_pointer (&solution);
          self->ready_time = job->request_time;
          self->ready_serial = job->serial;
        }
      self->in_flight = NULL;
      g_clear_object (&self->cancellable);
      /* Also without an answer: the main thread learns that the solver went idle. */
      queue_wake_locked (self);
      g_mutex_unlock (&self->lock);
      job_free (job);
      g_mutex_lock (&self->lock);
    }
  g_mutex_unlock (&self->lock);
  return NULL;
}

static void
km_drag_solver_dispose (GObject *object)
{
  KmDragSolver *self = KM_DRAG_SOLVER (object);

  km_drag_solver_cancel (self);
  if (self->thread != NULL)
    {
      g_mutex_lock (&self->lock);
      self->quit = TRUE;
      g_cond_signal (&self->cond);
      g_mutex_unlock (&self->lock);
      g_thread_join (g_steal_pointer (&self->thread));
    }

  G_OBJECT_CLASS (km_drag_solver_parent_class)->dispose (object);
}

static void
km_drag_solver_finalize (GObject *object)
{
  KmDragSolver *self = KM_DRAG_SOLVER (object);

  job_free (self->pending);
  g_clear_pointer (&self->ready, km_ik_solution_free);
  g_main_context_unref (self->context);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);

  G_OBJECT_CLASS (km_drag_solver_parent_class)->finalize (object);
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
  object_class->finalize = km_drag_solver_finalize;
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
   * A solve finished that km_drag_solver_cancel() did not drop. Emitted on the main
   * context that created the solver.
   */
  signals[SOLVED] =
    g_signal_new ("solved", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, G_TYPE_POINTER, G_TYPE_INT64);
}

static void
km_drag_solver_init (KmDragSolver *self)
{
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
  self->context = g_main_context_ref_thread_default ();
  self->next_serial = 1;
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
  Job *job, *dropped;

  g_return_if_fail (KM_IS_DRAG_SOLVER (self));
  g_return_if_fail (problem != NULL);

  job = g_new0 (Job, 1);
  job->problem = problem;
  job->problem_data = problem_data;
  job->problem_data_free = problem_data_free;
  job->request_time = g_get_monotonic_time ();

  g_mutex_lock (&self->lock);
  job->serial = self->next_serial++;
  dropped = g_steal_pointer (&self->pending);
  self->pending = job;
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_cond_signal (&self->cond);
  g_mutex_unlock (&self->lock);
  job_free (dropped);

  if (self->thread == NULL)
    self->thread = g_thread_new ("km-drag-solver", worker_thread, self);
  set_busy (self, TRUE);
}

/**
 * km_drag_solver_flush:
 *
 * Emits ::solved for the newest answer that is ready now, without waiting for a solve.
 * Views call it just before they paint; the solver calls it itself from a
 * G_PRIORITY_HIGH idle once an answer comes. Main context only.
 *
 * Returns: whether an answer was emitted
 */
gboolean
km_drag_solver_flush (KmDragSolver *self)
{
  g_autoptr(KmIkSolution) solution = NULL;
  gint64 request_time;
  gboolean idle;

  g_return_val_if_fail (KM_IS_DRAG_SOLVER (self), FALSE);

  g_object_ref (self);
  g_mutex_lock (&self->lock);
  solution = g_steal_pointer (&self->ready);
  request_time = self->ready_time;
  g_mutex_unlock (&self->lock);

  if (solution != NULL)
    {
      self->n_solved++;
      g_signal_emit (self, signals[SOLVED], 0, solution, request_time);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_SOLVED]);
    }

  /* Not busy only once the last answer is applied, so that waiting for idle sees it. */
  g_mutex_lock (&self->lock);
  idle = self->pending == NULL && self->in_flight == NULL && self->ready == NULL;
  g_mutex_unlock (&self->lock);
  if (idle)
    set_busy (self, FALSE);
  g_object_unref (self);
  return solution != NULL;
}

/* Drops the waiting request, the answer not yet emitted, and cancels the solve in
 * flight; no ::solved follows for any of them. */
void
km_drag_solver_cancel (KmDragSolver *self)
{
  KmIkSolution *ready;
  Job *dropped;

  g_return_if_fail (KM_IS_DRAG_SOLVER (self));

  g_mutex_lock (&self->lock);
  dropped = g_steal_pointer (&self->pending);
  ready = g_steal_pointer (&self->ready);
  self->min_serial = self->next_serial;
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_mutex_unlock (&self->lock);
  job_free (dropped);
  g_clear_pointer (&ready, km_ik_solution_free);
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
