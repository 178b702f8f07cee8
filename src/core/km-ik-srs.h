/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include "km-ik.h"

G_BEGIN_DECLS

/*
 * The closed-form solution set of a spherical-revolute-spherical arm (seven revolute
 * joints whose first three and last three axes meet in a point each, like the KUKA LBR
 * iiwa), used by km_ik_solve_trajectory() to route a motion through the whole solution set
 * instead of following one branch. Core-internal.
 */

/* Elbow, shoulder and wrist sign: eight families, each a circle of arm angles. */
#define KM_IK_SRS_FAMILIES 8
/* Shoulder, wrist, elbow (stretched). */
#define KM_IK_SRS_SINGULARITIES 3

typedef struct _KmIkSrs KmIkSrs;

/* Whether configuration @q (n_dof values) of frame @frame is one the arm really reaches.
 * km_ik_srs_route() calls it from several threads at once. */
typedef gboolean (*KmIkSrsCheck) (guint         frame,
                                  const double *q,
                                  gpointer      user_data);

KmIkSrs  *km_ik_srs_new        (const KmIkProblem  *problem);
void      km_ik_srs_free       (KmIkSrs            *srs);
gboolean  km_ik_srs_config     (const KmIkSrs      *srs,
                                const KmTransform  *target,
                                guint               family,
                                double              psi,
                                double             *q);
gboolean  km_ik_srs_route      (const KmIkSrs      *srs,
                                const KmTransform  *targets,
                                guint               n_frames,
                                const double       *first,
                                gboolean            keep_first,
                                double             *route,
                                guint              *n_jumps,
                                KmIkSrsCheck        check,
                                gpointer            check_data,
                                KmIkProgressFunc    progress,
                                gpointer            progress_data,
                                GCancellable       *cancellable);

void      km_ik_srs_set_exhaustive (KmIkSrs      *srs,
                                gboolean            exhaustive);
void      km_ik_srs_cross      (const KmIkSrs      *srs,
                                guint               group,
                                double             *q);
gboolean  km_ik_srs_near_singular (const KmIkSrs   *srs,
                                guint               group,
                                const double       *q,
                                double              within);
double    km_ik_srs_branch_distance (const KmIkSrs *srs,
                                const double       *a,
                                const double       *b);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KmIkSrs, km_ik_srs_free)

G_END_DECLS
