/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <gio/gio.h>

#include "km-document.h"

G_BEGIN_DECLS

#define KM_TYPE_AUTOSAVE (km_autosave_get_type ())

G_DECLARE_FINAL_TYPE (KmAutosave, km_autosave, KM, AUTOSAVE, GObject)

KmAutosave *km_autosave_new            (KmDocument          *document);
guint       km_autosave_get_interval   (KmAutosave          *self);
void        km_autosave_set_interval   (KmAutosave          *self,
                                        guint                seconds);
const char *km_autosave_get_path       (KmAutosave          *self);
gboolean    km_autosave_save_now       (KmAutosave          *self,
                                        GError             **error);
void        km_autosave_save_async     (KmAutosave          *self,
                                        GCancellable        *cancellable,
                                        GAsyncReadyCallback  callback,
                                        gpointer             user_data);
gboolean    km_autosave_save_finish    (KmAutosave          *self,
                                        GAsyncResult        *result,
                                        GError             **error);
gboolean    km_autosave_get_writing    (KmAutosave          *self);
void        km_autosave_discard        (KmAutosave          *self);
gboolean    km_autosave_keep           (KmAutosave          *self,
                                        GError             **error);

char       *km_autosave_get_directory  (void);
GPtrArray  *km_autosave_list_recovery  (void);
gboolean    km_autosave_claim          (GFile               *autosave);
void        km_autosave_remove_recovered (GFile             *autosave);
GFile      *km_autosave_dup_project_file (GFile             *autosave);
char       *km_autosave_project_line   (GFile               *project_file);

G_END_DECLS
