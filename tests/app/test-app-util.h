/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <gtk/gtk.h>

#include "km-document.h"
#include "km-scene-view.h"
#include "km-window.h"

G_BEGIN_DECLS

gboolean test_app_wait_idle_solve (KmDocument *document,
                                   guint       ms);
void     test_app_spin            (void);
gboolean test_app_unref_and_wait_finalized (gpointer object,
                                            guint    ms);
KmWindow *test_app_example_window (int         width,
                                   int         height);
gboolean test_app_wait_saved      (KmWindow   *window);
gboolean test_app_wait_document_saved (KmDocument *document);
gboolean test_app_wait_reloaded   (GtkWidget  *tree);
const char *test_app_frame_label_below (GtkWidget *widget);
gboolean test_app_document_finish (KmDocument   *document,
                                   GAsyncResult *result,
                                   GError      **error);
gboolean test_app_wait_flag       (gboolean   *flag,
                                   guint       ms);
gboolean test_app_wait_until      (GSourceFunc condition,
                                   gpointer    data,
                                   guint       ms);
void     test_app_spin_for        (guint       ms);
void     test_app_xdotool         (GtkWidget  *widget,
                                   GPtrArray  *args);
void     test_app_project         (KmSceneView *view,
                                   KmVec3      world,
                                   double     *x,
                                   double     *y);
void     test_app_destroy_window  (KmWindow  **window,
                                   KmDocument **document);
void     test_app_add_pointer_move (GPtrArray  *args,
                                   GtkWidget  *widget);
void     test_app_add_pointer_move_to (GPtrArray *args,
                                   GtkWidget  *widget,
                                   double      x,
                                   double      y);
guint8  *test_app_scene_pixels    (KmSceneView *view,
                                   int        *width,
                                   int        *height);
gboolean test_app_open_file       (KmWindow   *window,
                                   GFile      *file);
gboolean test_app_wait_loaded     (KmWindow   *window);
void     test_app_init            (int        *argc,
                                   char     ***argv);

GtkWidget *test_app_find_widget   (GtkWidget  *root,
                                   GType       type);
KmItem    *test_app_find_item     (KmItem     *item,
                                   GType       type);
GtkWidget *test_app_find_label    (GtkWidget  *root,
                                   const char *text);
GtkWidget *test_app_find_action   (GtkWidget  *root,
                                   GType       type,
                                   const char *action_name);
GtkWidget *test_app_find_pose_list (GtkWidget  *root);
gboolean  test_app_pose_list_filled (gpointer   panel);
gboolean  test_app_real_input_or_skip (GtkWidget *widget);
void      test_app_real_keys      (GtkWidget  *window,
                                   GtkWidget  *focus,
                                   const char *first,
                                   ...) G_GNUC_NULL_TERMINATED;
guint8   *test_app_render_widget  (GtkWidget  *widget,
                                   int        *w_out,
                                   int        *h_out);

guint    test_app_count_messages  (KmDocument     *document,
                                   GLogLevelFlags  level,
                                   ...) G_GNUC_NULL_TERMINATED;
gboolean test_app_has_message     (KmDocument     *document,
                                   GLogLevelFlags  level,
                                   ...) G_GNUC_NULL_TERMINATED;

void     test_app_write_tree      (const char     *path,
                                   guint           n_joints);
void     test_app_copy_arm_project (const char    *dir,
                                    const char    *project_name);
void     test_app_write_sub_project_main (const char *path,
                                          const char *part,
                                          const char *tail);
void       test_app_use_system_schemas  (void);
gboolean   test_app_have_chooser_schema (void);
GtkWidget *test_app_find_chooser        (void);
gboolean   test_app_chooser_shown       (gpointer data);
gboolean   test_app_chooser_gone        (gpointer data);
/* How many open files of this process are the file (a pipe, say) at @path. */
guint      test_app_count_opened        (const char *path);

G_END_DECLS
