/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <glib.h>

#include "km-skeleton.h"

G_BEGIN_DECLS

/*
 * Writes a skeleton as URDF that km_urdf_load() and ROS tools read back with the same
 * kinematics. See km-urdf-writer.c for the mapping and what cannot be carried over; each
 * such loss is reported as one translated line in @notes.
 */

char     *km_urdf_to_string  (const KmSkeleton  *skeleton,
                              GPtrArray         *notes);
gboolean  km_urdf_save       (const KmSkeleton  *skeleton,
                              const char        *path,
                              GPtrArray         *notes,
                              GError           **error);
/* The text km_urdf_save() writes to @path (relative mesh references lead from its
 * folder), for a caller that writes it elsewhere (standard output). */
char     *km_urdf_to_string_for_path (const KmSkeleton  *skeleton,
                                      const char        *path,
                                      GPtrArray         *notes);
/* The same written over the URDF file @original the skeleton was read from, keeping what
 * Kinema does not model (inertials, collisions, transmissions, …); see km-urdf-writer.c. */
gboolean  km_urdf_save_over  (const KmSkeleton  *skeleton,
                              const char        *original,
                              const char        *path,
                              GPtrArray         *notes,
                              GError           **error);
/* The same written over @original_text (nullable: the file @original as it is now), the
 * text of the URDF file @original as it was read, for a file that is gone since. */
gboolean  km_urdf_save_over_text (const KmSkeleton  *skeleton,
                                  const char        *original,
                                  GBytes            *original_text,
                                  const char        *path,
                                  GPtrArray         *notes,
                                  GError           **error);

G_END_DECLS
