/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <gio/gio.h>

#include "km-item.h"

G_BEGIN_DECLS

/*
 * KmProject: the single source of truth every view binds to (STYLE.md): the item tree,
 * selection, current body item, current time, file name, modified flag, messages from
 * the last load, the sections of the project file that are not items (views, toolbars,
 * plugin sections, layout: kept verbatim) and the undo/redo stack.
 *
 * Every edit goes through km_project_push_command: the command's redo runs at once; undo
 * and redo move along the stack; a command with a merge function that accepts the next
 * one of the same merge key folds it in (a drag is one step). The modified flag follows
 * the distance from the clean state (km_project_set_clean at load and save).
 */

#define KM_TYPE_PROJECT (km_project_get_type ())

G_DECLARE_FINAL_TYPE (KmProject, km_project, KM, PROJECT, GObject)

typedef void     (*KmCommandFunc)      (gpointer data);
/* Folds @next_data into @data (e.g. keeps the first old value and takes the new value of
 * @next_data); returns FALSE to push @next_data as a step of its own. */
typedef gboolean (*KmCommandMergeFunc) (gpointer data,
                                        gpointer next_data);

KmProject    *km_project_new                 (void);
KmItem       *km_project_get_root_item       (KmProject          *self);
void          km_project_set_root_item       (KmProject          *self,
                                              KmItem             *root);
const char   *km_project_get_file            (KmProject          *self);
void          km_project_set_file            (KmProject          *self,
                                              const char         *file);
gboolean      km_project_get_modified        (KmProject          *self);
double        km_project_get_current_time    (KmProject          *self);
void          km_project_set_current_time    (KmProject          *self,
                                              double              time);
KmItem       *km_project_get_current_body    (KmProject          *self);
void          km_project_set_current_body    (KmProject          *self,
                                              KmItem             *body);
/* The selected items (a GListModel of KmItem). */
GListModel   *km_project_get_selection       (KmProject          *self);
void          km_project_select              (KmProject          *self,
                                              KmItem             *item,
                                              gboolean            add);
void          km_project_clear_selection     (KmProject          *self);
gboolean      km_project_get_save_layout     (KmProject          *self);
void          km_project_set_save_layout     (KmProject          *self,
                                              gboolean            save_layout);

/* The top-level mapping of the project file as read (all sections but `items`, in
 * order), or NULL. The .cnoid writer writes these back where they were. */
KmYamlNode   *km_project_get_sections        (KmProject          *self);
void          km_project_set_sections        (KmProject          *self,
                                              KmYamlNode         *sections);
/* Messages of the last load, "FILE:LINE:COLUMN: …" (element-type utf8). */
GPtrArray    *km_project_get_messages        (KmProject          *self);
void          km_project_add_message         (KmProject          *self,
                                              const char         *message);
KmItem       *km_project_find_item_by_id     (KmProject          *self,
                                              gint64              id);

/* Undo/redo */
void          km_project_push_command        (KmProject          *self,
                                              const char         *label,
                                              KmCommandFunc       redo,
                                              KmCommandFunc       undo,
                                              KmCommandMergeFunc  merge,
                                              const char         *merge_key,
                                              gpointer            data,
                                              GDestroyNotify      free_data);
/* Ends merging: the next command starts a new step even with the same merge key. */
void          km_project_close_merge         (KmProject          *self);
gboolean      km_project_can_undo            (KmProject          *self);
gboolean      km_project_can_redo            (KmProject          *self);
const char   *km_project_get_undo_label      (KmProject          *self);
const char   *km_project_get_redo_label      (KmProject          *self);
gboolean      km_project_undo                (KmProject          *self);
gboolean      km_project_redo                (KmProject          *self);
void          km_project_set_clean           (KmProject          *self);
guint64       km_project_get_clean_state     (KmProject          *self);
void          km_project_restore_clean_state (KmProject          *self,
                                              guint64             state);
void          km_project_clear_history       (KmProject          *self);

/* Convenience commands (undoable) */
void          km_project_insert_item         (KmProject          *self,
                                              KmItem             *parent,
                                              guint               position,
                                              KmItem             *item);
void          km_project_remove_item         (KmProject          *self,
                                              KmItem             *item);
void          km_project_rename_item         (KmProject          *self,
                                              KmItem             *item,
                                              const char         *name);
void          km_project_check_item          (KmProject          *self,
                                              KmItem             *item,
                                              gboolean            checked);

G_END_DECLS
