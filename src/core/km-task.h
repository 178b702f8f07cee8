/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

void km_task_run_in_thread_boolean (GTask           *task,
                                    GTaskThreadFunc  thread_func,
                                    gpointer         data,
                                    GDestroyNotify   data_free);

G_END_DECLS
