/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

gboolean km_root_key_is_for_focus (GtkEventController *controller,
                                   GtkWidget          *root);

G_END_DECLS
