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
 * offending value; unknown keys give a km_parse_warning and are ignored. Kinema extension:
 * the root may be of type "free" (a floating base, as converted from a .body model).
 */

extern const KmFormat km_format_skeleton_json;

KmSkeleton *km_skeleton_json_load       (const char        *path,
                                         const char        *data,
                                         gsize              length,
                                         GError           **error);
/* Pretty-printed skeleton.json text; reading it back gives an equal skeleton. */
char       *km_skeleton_json_to_string  (const KmSkeleton  *skeleton);
/* Writes km_skeleton_json_to_string() atomically (temporary file, fsync, rename). */
gboolean    km_skeleton_json_save       (const KmSkeleton  *skeleton,
                                         const char        *path,
                                         GError           **error);
/*
 * The `kinema-cli info` text of any model (usable as KmFormat.describe by every format
 * whose load returns a KmSkeleton): one line per joint in topological order,
 *   joint=NAME type=TYPE parent=NAME|- dof=N axis=X,Y,Z|- limits=MIN:MAX|-[,…]
 * (spherical: three comma-separated X, Y, Z limits), then `joints=N dof=M`, with
 * ` free_root=1` appended when the root is free. Never translated.
 */
void        km_skeleton_json_describe   (gpointer           skeleton,
                                         GString           *out);

G_END_DECLS
