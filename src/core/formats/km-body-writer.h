/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <glib.h>

#include "km-skeleton.h"

G_BEGIN_DECLS

/*
 * Writes a skeleton as a Choreonoid body file (format ChoreonoidBody, format_version 2.0,
 * angle_unit degree) that km_body_load() and Choreonoid read back with the same
 * kinematics. See km-body-writer.c for what cannot be carried over; each such loss is
 * reported as one translated line in @notes.
 */

char     *km_body_to_string  (const KmSkeleton  *skeleton,
                              GPtrArray         *notes);
gboolean  km_body_save       (const KmSkeleton  *skeleton,
                              const char        *path,
                              GPtrArray         *notes,
                              GError           **error);
/* The same with the pose the model states (@initial_q: one value per DOF, nullable),
 * written as the links' joint_displacement. */
char     *km_body_to_string_with_pose (const KmSkeleton *skeleton,
                                       const double     *initial_q,
                                       GPtrArray        *notes);
gboolean  km_body_save_with_pose      (const KmSkeleton *skeleton,
                                       const double     *initial_q,
                                       const char       *path,
                                       GPtrArray        *notes,
                                       GError          **error);
/* The text km_body_save_with_pose() writes to @path (relative mesh references lead from
 * its folder), for a caller that writes it elsewhere (standard output). */
char     *km_body_to_string_for_path  (const KmSkeleton *skeleton,
                                       const double     *initial_q,
                                       const char       *path,
                                       GPtrArray        *notes);
/* The same written over the .body file @original the skeleton was read from, keeping what
 * Kinema does not model (mass, inertia, sensors, …); see km-body-writer.c. */
gboolean  km_body_save_over           (const KmSkeleton *skeleton,
                                       const double     *initial_q,
                                       const char       *original,
                                       const char       *path,
                                       GPtrArray        *notes,
                                       GError          **error);
/* The same written over @original_text (nullable: the file @original as it is now), the
 * text of the .body file @original as it was read, for a file that is gone since. */
gboolean  km_body_save_over_text      (const KmSkeleton *skeleton,
                                       const double     *initial_q,
                                       const char       *original,
                                       GBytes           *original_text,
                                       const char       *path,
                                       GPtrArray        *notes,
                                       GError          **error);
int      *km_body_link_joint_ids (const KmSkeleton *skeleton);
/* Where each DOF of @skeleton went in @body, the file km_body_to_string() wrote for it as
 * km_body_load() reads it back (see km-body-writer.c); NULL when @body is not that. */
int      *km_body_map_dofs   (const KmSkeleton  *skeleton,
                              const KmSkeleton  *body);

G_END_DECLS
