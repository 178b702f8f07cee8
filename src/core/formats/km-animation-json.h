/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <gio/gio.h>

#include "km-animation.h"
#include "km-format.h"
#include "km-skeleton.h"

G_BEGIN_DECLS

/*
 * animation.json (specs/ik-json-formats.md): { "frames": [ { "frame": i, "joints": {
 * "Name": { "type": "revolute", "angle": rad } | { "type": "prismatic", "displacement": m }
 * | { "type": "spherical", "euler": [x, y, z] rad, "quaternion": [w, x, y, z] } } } ] },
 * frames 0 .. n-1 in order, only joints with degrees of freedom.
 *
 * km_animation_json_load() with a @skeleton maps names to the skeleton's DOFs: every DOF
 * joint must appear in every frame with its type, and no other joint may. Without a
 * skeleton (validate, info) the channels are the first frame's joints in file order, and
 * every later frame must have the same joints and types.
 *
 * The quaternion of a spherical joint is authoritative: when the euler angles describe the
 * same rotation (within 1e-6 rad) they are kept as written, otherwise the angles are
 * recomputed from the quaternion and a warning is reported. Warnings (that one, unknown
 * keys) are non-fatal "FILE:LINE:COLUMN: message" reports through km_parse_warning()
 * (km-error.h), as every reader's.
 *
 * The writer writes every channel of every frame (residuals are not part of the format),
 * spherical joints with euler angles and the quaternion computed from them.
 */

extern const KmFormat km_format_animation_json; /* "KINEMA-ANIMATION-JSON", KM_FILE_KIND_ANIMATION */

KmAnimation    *km_animation_json_load        (const char         *path,
                                               GBytes             *contents,
                                               KmSkeleton         *skeleton,
                                               GError            **error);
KmAnimation    *km_animation_json_load_file   (const char         *path,
                                               KmSkeleton         *skeleton,
                                               GError            **error);
char           *km_animation_json_to_string   (const KmAnimation  *animation);
gboolean        km_animation_json_check_size  (KmSkeleton         *skeleton,
                                               guint64             n_frames,
                                               GError            **error);
gboolean        km_animation_json_save        (const KmAnimation  *animation,
                                               const char         *path,
                                               GError            **error);
void            km_animation_json_describe    (const KmAnimation  *animation,
                                               GString            *out);

G_END_DECLS
