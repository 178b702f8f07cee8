/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <gio/gio.h>

#include "km-format.h"
#include "km-target-track.h"

G_BEGIN_DECLS

/*
 * targets.json (specs/ik-json-formats.md): a JSON array of keyframes
 * { "frame": int >= 0, "pos": [x, y, z] m, "euler": [x, y, z] degrees, intrinsic XYZ,
 *   "effector": "Joint" (optional, Kinema's extension, the same on every keyframe) }.
 * The loader rejects with KM_PARSE_ERROR "FILE:LINE:COLUMN: message" at the offending value
 * and returns the keyframes sorted by frame. A keyframe's keys Kinema does not use
 * ("comment", "time", …) are kept for a rewrite (km_target_track_get_extra()) and not
 * reported; only one that looks like a misspelt keyframe key ("efector", "Frame") gets a
 * non-fatal warning through km_parse_warning() (km-error.h), once per name in the file.
 * The euler angles are kept as read for a rewrite (km_target_track_get_euler()). The file
 * holds no frame rate: the loaded track has the default 30 fps.
 */

extern const KmFormat km_format_targets_json;   /* "KINEMA-TARGETS-JSON", KM_FILE_KIND_TARGETS */

KmTargetTrack  *km_targets_json_load        (const char           *path,
                                             GBytes               *contents,
                                             GError              **error);
KmTargetTrack  *km_targets_json_load_file   (const char           *path,
                                             GError              **error);
char           *km_targets_json_to_string   (const KmTargetTrack  *track);
gboolean        km_targets_json_save        (const KmTargetTrack  *track,
                                             const char           *path,
                                             GError              **error);
void            km_targets_json_describe    (const KmTargetTrack  *track,
                                             GString              *out);

G_END_DECLS
