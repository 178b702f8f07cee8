/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <gio/gio.h>

#include "km-format.h"
#include "km-skeleton.h"

G_BEGIN_DECLS

/*
 * skeleton.json (specs/ik-json-formats.md): reader, writer and the "SKELETON-JSON" row of
 * the format registry. Rejected files give one KM_PARSE_ERROR "FILE:LINE:COLUMN: …" at the
 * offending value; unknown keys give a km_parse_warning and are ignored. Kinema extensions:
 * - the root may be of type "free" (a floating base, as converted from a .body model);
 * - a revolute or prismatic joint may carry
 *     "mimic": {"joint": "MASTER", "ratio": R, "offset": O}
 *   (or null): a linked joint, q = R · q[MASTER] + O (URDF's mimic, a Scenebuilder gear).
 *   "joint" is required, "ratio" defaults to 1 and "offset" to 0 (radians or metres). The
 *   master must exist, be revolute or prismatic, not be the joint itself and not follow
 *   another joint; a bad mimic is an error at the offending value ("joint" for the master
 *   rules). Writers write it for every linked joint.
 * - either end of a [min, max] limit may be null, an open end: [null, 0.5] is a joint
 *   limited on one side only (-∞ to 0.5), as a .body `[unlimited, 0.5]` reads; [null, null]
 *   is the same as null. The writer writes such limits so.
 */

extern const KmFormat km_format_skeleton_json;

KmSkeleton *km_skeleton_json_load       (const char        *path,
                                         const char        *data,
                                         gsize              length,
                                         GError           **error);
typedef enum
{
  KM_SKELETON_JSON_WRITE_DEFAULT        = 0,
  /* Write a free root as a "fixed" one at its initial pose (its offset and quaternion), as
   * the spec knows no floating base; a note says so. */
  KM_SKELETON_JSON_WRITE_FIX_FREE_ROOT  = 1 << 0,
} KmSkeletonJsonWriteFlags;

/* Pretty-printed skeleton.json text; reading it back gives an equal skeleton. */
char       *km_skeleton_json_to_string  (const KmSkeleton  *skeleton);
/* With @flags; what the file does not keep is appended to @notes (nullable). */
char       *km_skeleton_json_to_string_full (const KmSkeleton        *skeleton,
                                         KmSkeletonJsonWriteFlags  flags,
                                         GPtrArray                *notes);
/* Writes km_skeleton_json_to_string() atomically (temporary file, fsync, rename). */
gboolean    km_skeleton_json_save       (const KmSkeleton  *skeleton,
                                         const char        *path,
                                         GError           **error);
gboolean    km_skeleton_json_save_full  (const KmSkeleton        *skeleton,
                                         const char              *path,
                                         KmSkeletonJsonWriteFlags flags,
                                         GPtrArray               *notes,
                                         GError                 **error);
/* Writes @skeleton over @original (the skeleton.json it was read from; @path may be it),
 * keeping the top-level and per-joint keys of @original that Kinema does not interpret
 * (none when it is gone). */
gboolean    km_skeleton_json_save_over  (const KmSkeleton  *skeleton,
                                         const char        *original,
                                         const char        *path,
                                         GPtrArray         *notes,
                                         GError           **error);
/* The same written over @original_text (nullable: the file @original as it is now), the
 * text @original held when it was read, for a file that is gone since. */
gboolean    km_skeleton_json_save_over_text (const KmSkeleton *skeleton,
                                         const char        *original,
                                         GBytes            *original_text,
                                         const char        *path,
                                         GPtrArray         *notes,
                                         GError           **error);
/*
 * The `kinema-cli info` text of any model (usable as KmFormat.describe by every format
 * whose load returns a KmSkeleton): one line per joint in topological order,
 *   joint=NAME type=TYPE parent=NAME|- dof=N axis=X,Y,Z|- limits=MIN:MAX|-[,…]
 * (an open end of a joint limited on one side only is -inf or inf; spherical: three comma-separated X, Y, Z limits; a linked joint ends with
 * ` mimic=MASTER*RATIO+OFFSET`, "-" for a negative offset), then `joints=N dof=M`, with
 * ` free_root=1` appended when the root is free. Names are escaped C-style where a line
 * would not stay one line or split on spaces (km_format_append_field(): \\ \t \n \r \xHH,
 * a space \x20). Never translated.
 */
void        km_skeleton_json_describe   (gpointer           skeleton,
                                         GString           *out);

G_END_DECLS
