/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <gtk/gtk.h>

#include "km-window.h"

G_BEGIN_DECLS

#define KM_TYPE_APPLICATION (km_application_get_type ())

G_DECLARE_FINAL_TYPE (KmApplication, km_application, KM, APPLICATION, GtkApplication)

KmApplication *km_application_new            (void);
GSettings     *km_application_get_settings   (KmApplication *self);
gboolean       km_application_offer_recovery (KmApplication *self,
                                              KmWindow      *window);

G_END_DECLS
