/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <gtk/gtk.h>

#include "km-document.h"

G_BEGIN_DECLS

#define KM_TYPE_MESSAGE_VIEW (km_message_view_get_type ())

G_DECLARE_FINAL_TYPE (KmMessageView, km_message_view, KM, MESSAGE_VIEW, GtkWidget)

GtkWidget  *km_message_view_new          (void);
KmDocument *km_message_view_get_document (KmMessageView *self);
void        km_message_view_set_document (KmMessageView *self,
                                          KmDocument    *document);

G_END_DECLS
