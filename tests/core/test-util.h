/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include "km-skeleton.h"

G_BEGIN_DECLS

KmSkeleton *test_util_example_skeleton (void);

G_END_DECLS
