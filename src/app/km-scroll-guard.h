/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

void km_scroll_guard_attach (GtkWidget *widget);

G_END_DECLS
