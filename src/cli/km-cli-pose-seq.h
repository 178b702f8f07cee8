/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include "km-pose-seq.h"

G_BEGIN_DECLS

/* `info` and `validate` on a Choreonoid pose sequence (km-pose-seq.h). It is no entry of
 * the loader registry (no KmFileKind fits it), so these commands try it first: with
 * --format POSE-SEQ-YAML, or without --format when the content sniffs as one. FALSE when
 * @path is not to be read as a pose sequence (then *@seq is NULL and nothing was
 * reported); TRUE when it is, with *@seq the sequence or NULL with @error. */
gboolean km_cli_try_pose_seq   (const char  *path,
                                const char  *format_name,
                                KmPoseSeq  **seq,
                                GError     **error);
/* Whether @format_name names the pose sequence format. */
gboolean km_cli_is_pose_seq_format (const char *format_name);

G_END_DECLS
