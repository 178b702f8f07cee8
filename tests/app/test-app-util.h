/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include "km-document.h"

G_BEGIN_DECLS

gboolean test_app_wait_idle_solve (KmDocument *document,
                                   guint       ms);
void     test_app_spin            (void);

G_END_DECLS
