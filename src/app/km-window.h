/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <gtk/gtk.h>

#include "km-autosave.h"
#include "km-document.h"

G_BEGIN_DECLS

#define KM_TYPE_WINDOW (km_window_get_type ())

/* The GtkRecentManager group of the files Kinema opened or saved (File → Open Recent). */
#define KM_RECENT_GROUP "kinema-opened"

G_DECLARE_FINAL_TYPE (KmWindow, km_window, KM, WINDOW, GtkApplicationWindow)

KmWindow   *km_window_new           (GtkApplication *application);
KmDocument *km_window_get_document  (KmWindow       *self);
gboolean    km_window_open_file     (KmWindow       *self,
                                     GFile          *file);
gboolean    km_window_get_loading   (KmWindow       *self);
gboolean    km_window_get_saving    (KmWindow       *self);
gboolean    km_window_open_example  (KmWindow       *self);
GtkWindow  *km_window_get_question  (KmWindow       *self);
void        km_window_export_image_async  (KmWindow            *self,
                                           GFile               *file,
                                           GCancellable        *cancellable,
                                           GAsyncReadyCallback  callback,
                                           gpointer             user_data);
gboolean    km_window_export_image_finish (KmWindow            *self,
                                           GAsyncResult        *result,
                                           GError             **error);
GtkWidget  *km_window_get_scene_view (KmWindow      *self);
GtkWidget  *km_window_get_joint_panel (KmWindow     *self);
GtkWidget  *km_window_get_item_tree (KmWindow       *self);
GtkWidget  *km_window_get_time_bar  (KmWindow       *self);
void        km_window_offer_recovery (KmWindow      *self,
                                      GFile         *file);
GtkWidget  *km_window_get_recovery_bar (KmWindow    *self);
GtkWidget  *km_window_get_disk_change_bar (KmWindow *self);
KmAutosave *km_window_get_autosave  (KmWindow       *self);

G_END_DECLS
