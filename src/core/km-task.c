/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include "km-task.h"

/*
 * A task run in a thread may drop its last reference on the worker: GLib's thread pool
 * unrefs it after the worker function returns, which can be after the main context has
 * run the callback. A task whose source object is a widget or an item must therefore not
 * be the one run in the thread, or that object could be finalized off the main thread.
 * km_task_run_in_thread_boolean() runs an inner task with no source object instead and
 * completes the caller's task from the inner one's callback, on the caller's thread.
 */

/* The worker is done: back on the caller's thread, @user_data (the caller's task) ends
 * here, and its last reference goes here or after its callback, on this thread too. */
static void
inner_done_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;
  gboolean value = g_task_propagate_boolean (G_TASK (result), &error);

  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, value);
}

/**
 * km_task_run_in_thread_boolean:
 * @task: (transfer full): the caller's task, whose source object must stay on this thread
 * @thread_func: run on a worker with an inner task (no source object, @task's
 *   cancellable) and @data; it returns a boolean or an error on that inner task
 * @data: (nullable): the inner task's data, for @thread_func
 * @data_free: (nullable): frees @data (on whichever thread drops the inner task last)
 *
 * g_task_run_in_thread() for a task with a boolean result, without ever finalizing its
 * source object on the worker: @task completes with @thread_func's result from a callback
 * on the thread-default main context of the caller.
 */
void
km_task_run_in_thread_boolean (GTask           *task,
                               GTaskThreadFunc  thread_func,
                               gpointer         data,
                               GDestroyNotify   data_free)
{
  g_autoptr(GTask) inner = NULL;

  g_return_if_fail (G_IS_TASK (task));
  g_return_if_fail (thread_func != NULL);

  inner = g_task_new (NULL, g_task_get_cancellable (task), inner_done_cb, task);
  g_task_set_source_tag (inner, thread_func);
  g_task_set_task_data (inner, data, data_free);
  g_task_run_in_thread (inner, thread_func);
}
