/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* The embedded defaults: data/skeleton.json and data/targets.json, compiled in. */
#define KM_DEFAULT_SKELETON_NAME "skeleton.json"
#define KM_DEFAULT_TARGETS_NAME  "targets.json"

GBytes     *km_defaults_get_skeleton_json (void);
GBytes     *km_defaults_get_targets_json  (void);
GBytes     *km_defaults_lookup            (const char *name);

G_END_DECLS
