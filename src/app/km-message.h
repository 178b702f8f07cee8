/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define KM_TYPE_MESSAGE (km_message_get_type ())

G_DECLARE_FINAL_TYPE (KmMessage, km_message, KM, MESSAGE, GObject)

/* One line of the message view: a severity (GLib's levels), when, and the text. */
KmMessage      *km_message_new            (GLogLevelFlags  level,
                                           const char     *text);
GLogLevelFlags  km_message_get_level      (KmMessage      *self);
const char     *km_message_get_text       (KmMessage      *self);
GDateTime      *km_message_get_time       (KmMessage      *self);
const char     *km_message_get_level_name (KmMessage      *self);
char           *km_message_format_time    (KmMessage      *self);
char           *km_message_to_string      (KmMessage      *self);

G_END_DECLS
