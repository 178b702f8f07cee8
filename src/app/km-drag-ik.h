/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include "km-document.h"
#include "km-drag-solver.h"

G_BEGIN_DECLS

void km_drag_ik_request (KmDragSolver      *solver,
                         KmDocument        *document,
                         int                joint,
                         gboolean           position_only,
                         const KmTransform *target);

G_END_DECLS
