/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <gio/gio.h>

#include "km-ik.h"

G_BEGIN_DECLS

#define KM_TYPE_DRAG_SOLVER (km_drag_solver_get_type ())

G_DECLARE_FINAL_TYPE (KmDragSolver, km_drag_solver, KM, DRAG_SOLVER, GObject)

/*
 * Solves IK for interactive drags on its own worker thread with "latest request wins": a
 * new request cancels the solve in flight and replaces the request still waiting (never
 * more than one waits), and the worker starts it as soon as the cancelled solve stops.
 * Answers arrive on the main context as the ::solved signal, from a G_PRIORITY_HIGH idle
 * (ahead of input and painting), or earlier through km_drag_solver_flush(); the caller
 * never waits.
 */

KmDragSolver *km_drag_solver_new            (void);
void          km_drag_solver_request        (KmDragSolver *self,
                                             KmIkProblem  *problem);
void          km_drag_solver_request_full   (KmDragSolver   *self,
                                             KmIkProblem    *problem,
                                             gpointer        problem_data,
                                             GDestroyNotify  problem_data_free);
gboolean      km_drag_solver_flush          (KmDragSolver *self);
void          km_drag_solver_cancel         (KmDragSolver *self);
gboolean      km_drag_solver_get_busy       (KmDragSolver *self);
guint         km_drag_solver_get_n_solved   (KmDragSolver *self);

G_END_DECLS
