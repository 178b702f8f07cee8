/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <glib.h>

#include "km-skeleton.h"

G_BEGIN_DECLS

char *km_start_pose_describe_clamp (const KmSkeleton *skeleton,
                                    const double     *initial_q,
                                    const double     *q);

G_END_DECLS
