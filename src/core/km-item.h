/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <gio/gio.h>

#include "km-yaml.h"

G_BEGIN_DECLS

/*
 * KmItem: a node of the project's item tree (DESIGN.md, "KmItem / KmProject"). The item is
 * itself a GListModel of its children, so a view can feed it to a GtkTreeListModel. The
 * parent is a weak back pointer (children are owned by their parent).
 *
 * Persistence goes through the restore/store virtual functions and a KmItemIo that says
 * where the project file is and collects messages. The `data` mapping an item was read
 * from is kept: store starts from it, so keys an item class does not interpret are written
 * back in their place ("nothing is lost").
 */

#define KM_TYPE_ITEM (km_item_get_type ())

G_DECLARE_DERIVABLE_TYPE (KmItem, km_item, KM, ITEM, GObject)

typedef struct
{
  const char *file;       /* the project file, as given (for messages) */
  const char *dir;        /* its directory: relative paths are relative to it */
  const char *share_dir;  /* ${SHARE}, or NULL */
  GPtrArray  *messages;   /* (element-type utf8) warnings, "FILE:LINE:COLUMN: …" */
  guint       depth;      /* sub-project nesting */
  GPtrArray  *open_files; /* canonical paths of the projects being read (recursion) */
} KmItemIo;

struct _KmItemClass
{
  GObjectClass parent_class;

  /* The plugin and class written in project files ("Base", "FolderItem"). */
  const char  *plugin_name;
  const char  *class_name;

  /* Reads @data (a mapping, or NULL when the item has none). On failure the loader keeps
   * the item's YAML verbatim and reports the error. Chain up first: the default keeps
   * @data for store. */
  gboolean   (*restore) (KmItem           *self,
                         const KmYamlNode *data,
                         KmItemIo         *io,
                         GError          **error);
  /* Returns the `data` mapping to write (full transfer), or NULL for none. The default
   * returns the kept mapping unchanged. */
  KmYamlNode *(*store)  (KmItem           *self,
                         KmItemIo         *io);
  /* The file the item was read from, as written (with its variables), or NULL: an item
   * of a file (a model, targets, a motion) says which. The default is NULL. */
  const char *(*get_file) (KmItem         *self);

  gpointer padding[7];
};

const char  *km_item_get_name            (KmItem           *self);
const char  *km_item_get_file            (KmItem           *self);
void         km_item_set_name            (KmItem           *self,
                                          const char       *name);
gboolean     km_item_get_checked         (KmItem           *self);
void         km_item_set_checked         (KmItem           *self,
                                          gboolean          checked);
gboolean     km_item_get_builtin         (KmItem           *self);
void         km_item_set_builtin         (KmItem           *self,
                                          gboolean          builtin);
/* The id read from the project file (or given at the last save); -1 for a new item. */
gint64       km_item_get_id              (KmItem           *self);
void         km_item_set_id              (KmItem           *self,
                                          gint64            id);
const char  *km_item_get_plugin_name     (KmItem           *self);
const char  *km_item_get_class_name      (KmItem           *self);
/* For items whose type names come from the file (KmUnknownItem). */
void         _km_item_set_type_names     (KmItem           *self,
                                          const char       *plugin_name,
                                          const char       *class_name);
/* Why the item is not (fully) shown, or NULL: a missing file, an unknown format, … */
const char  *km_item_get_problem         (KmItem           *self);
void         km_item_set_problem         (KmItem           *self,
                                          const char       *problem);
/* Where the item was in its file (line 0 for a new item). */
KmSourcePos  km_item_get_source_pos      (KmItem           *self);
void         km_item_set_source_pos      (KmItem           *self,
                                          KmSourcePos       pos);

KmItem      *km_item_get_parent          (KmItem           *self);
guint        km_item_get_n_children      (KmItem           *self);
KmItem      *km_item_get_child           (KmItem           *self,
                                          guint             position);
int          km_item_get_index           (KmItem           *self);
/* Takes a new reference on @child; @child must have no parent and not be an ancestor. */
void         km_item_insert_child        (KmItem           *self,
                                          guint             position,
                                          KmItem           *child);
void         km_item_append_child        (KmItem           *self,
                                          KmItem           *child);
void         km_item_remove_child        (KmItem           *self,
                                          KmItem           *child);
gboolean     km_item_is_ancestor_of      (KmItem           *self,
                                          KmItem           *descendant);
/* Depth-first preorder search; NULL when none. */
KmItem      *km_item_find_by_id          (KmItem           *self,
                                          gint64            id);
KmItem      *km_item_find_child_by_type  (KmItem           *self,
                                          GType             type);
/* The nearest ancestor of @type (not @self), or NULL. */
KmItem      *km_item_find_ancestor_by_type (KmItem         *self,
                                            GType           type);
KmItem      *km_item_find_child_by_name  (KmItem           *self,
                                          const char       *name);
/* Calls @func on @self and every descendant in preorder. */
void         km_item_foreach             (KmItem           *self,
                                          GFunc             func,
                                          gpointer          user_data);

gboolean     km_item_restore             (KmItem           *self,
                                          const KmYamlNode *data,
                                          KmItemIo         *io,
                                          GError          **error);
KmYamlNode  *km_item_store               (KmItem           *self,
                                          KmItemIo         *io);
/* The `data` mapping kept from the file (or NULL). */
KmYamlNode  *km_item_get_data            (KmItem           *self);
/* For restore: the file reference of @data. A "format" string goes to *@format and the
 * first of @file_keys (a string) to *@file, with its node in *@file_node (NULL when no
 * key names a file). FALSE with @error when either is not a string. */
gboolean     km_item_restore_file_ref    (const KmYamlNode  *data,
                                          const char * const *file_keys,
                                          char             **file,
                                          char             **format,
                                          KmYamlNode       **file_node,
                                          GError           **error);
/* For store, the inverse: appends "file" (when @file is not NULL) and "format" (when
 * @format is not NULL) to the mapping @out. */
void         km_item_store_file_ref      (KmYamlNode        *out,
                                          const char        *file,
                                          const char        *format);

/* Path variables (DESIGN.md, "Path variables"): ${SHARE}, ${HOME}, ${PROGRAM_TOP}, and
 * paths relative to the project file. NULL with @error when a variable is unknown or
 * unset, and for a Windows path (C:\…, D:/…, \\server\…), which is not relative. */
char        *km_item_io_expand_path      (KmItemIo         *io,
                                          const char       *path,
                                          GError          **error);
void         km_item_io_warn             (KmItemIo         *io,
                                          const KmYamlNode *at,
                                          const char       *format,
                                          ...) G_GNUC_PRINTF (3, 4);
/* A malformed optional value (@key's @value), ignored where it is with a warning that says
 * why (@error's message, without the location a reader put first): "restoring as much as
 * possible is more practical than aborting the loading" (the project file spec, on schema
 * versions), so the rest of the item is restored. Clears @error. */
void         km_item_io_ignore_value     (KmItemIo         *io,
                                          const KmYamlNode *value,
                                          const char       *key,
                                          GError          **error);
/* A file @item refers to cannot be used: sets the item's problem to @message and warns
 * with it at @at. */
void         km_item_io_problem          (KmItemIo         *io,
                                          KmItem           *item,
                                          const KmYamlNode *at,
                                          const char       *message);

G_END_DECLS
