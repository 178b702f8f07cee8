/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include "km-document.h"

G_BEGIN_DECLS

/* Edits built only on KmDocument's public API, for direct manipulation. */

void      km_document_set_pose             (KmDocument   *self,
                                            const double *q,
                                            guint         n_dof);
gboolean  km_document_get_limits_held      (KmDocument   *self,
                                            double        tolerance);
int       km_document_find_keyframe_near   (KmDocument   *self,
                                            guint         frame,
                                            int           direction);
gboolean  km_document_set_keyframe         (KmDocument   *self,
                                            guint         frame);
gboolean  km_document_put_keyframe         (KmDocument   *self,
                                            const KmTargetKeyframe *keyframe);
gboolean  km_document_delete_keyframe      (KmDocument   *self,
                                            guint         frame);
gboolean  km_document_can_set_effector     (KmDocument   *self,
                                            int           joint);
gboolean  km_document_set_effector         (KmDocument   *self,
                                            int           joint);
gboolean  km_document_move_keyframe        (KmDocument   *self,
                                            guint         from,
                                            guint         to);
gboolean  km_document_cancel_solve_for_user (KmDocument  *self);
void      km_document_note_dropped_mimic   (KmDocument       *self,
                                            const KmSkeleton *before,
                                            const KmSkeleton *after);

G_END_DECLS
