/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/*
 * The last line of a model file Kinema writes as a copy for a project (Save for
 * Choreonoid's .body copies), a comment that names the project and checksums the text
 * above it:
 *
 *   # kinema-copy for=arm.cnoid sha256=9f86d0…
 *
 * A later save of the same project, in this run of the editor or any later one, knows the
 * file as its own copy, to be written again, while nobody has changed it; any other file is
 * the user's and is never written over. Formats whose comments start with '#' only (YAML).
 */

char     *km_copy_stamp_append       (const char *text,
                                      const char *owner);
gboolean  km_copy_stamp_check        (const char *text,
                                      gsize       length,
                                      const char *owner);
gboolean  km_copy_stamp_file_matches (const char *path,
                                      const char *owner);

G_END_DECLS
