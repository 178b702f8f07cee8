/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

char *km_test_make_tmp_dir (const char *tmpl);
void  km_test_remove_tree  (const char *path);

G_END_DECLS
