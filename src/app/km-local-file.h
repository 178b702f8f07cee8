/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

char *km_local_file_get_path (GFile   *file,
                              GError **error);

G_END_DECLS
