/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define KM_TYPE_PREFERENCES_WINDOW (km_preferences_window_get_type ())

G_DECLARE_FINAL_TYPE (KmPreferencesWindow, km_preferences_window, KM, PREFERENCES_WINDOW,
                      GtkWindow)

KmPreferencesWindow *km_preferences_window_new                  (GSettings           *settings);
GSettings           *km_preferences_window_get_settings         (KmPreferencesWindow *self);
void                 km_preferences_window_add_handler_directory (KmPreferencesWindow *self,
                                                                  const char          *directory);
void                 km_preferences_window_remove_handler_directory (KmPreferencesWindow *self,
                                                                  const char          *directory);
guint                km_preferences_window_clear_recent_files   (KmPreferencesWindow *self);

G_END_DECLS
