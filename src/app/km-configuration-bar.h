/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <gtk/gtk.h>

#include "km-document.h"

G_BEGIN_DECLS

#define KM_TYPE_CONFIGURATION_BAR (km_configuration_bar_get_type ())

G_DECLARE_FINAL_TYPE (KmConfigurationBar, km_configuration_bar, KM, CONFIGURATION_BAR,
                      GtkWidget)

GtkWidget  *km_configuration_bar_new          (void);
void        km_configuration_bar_set_document (KmConfigurationBar *self,
                                               KmDocument         *document);
int         km_configuration_bar_get_shown    (KmConfigurationBar *self);
gboolean    km_configuration_bar_choose       (KmConfigurationBar *self,
                                               guint               configuration);

G_END_DECLS
