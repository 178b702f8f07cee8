/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-project"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "km-project.h"
#include "km-root-item.h"

typedef struct
{
  char               *label;
  char               *merge_key;
  KmCommandFunc       redo;
  KmCommandFunc       undo;
  KmCommandMergeFunc  merge;
  gpointer            data;
  GDestroyNotify      free_data;
  guint64             state;      /* names the state this command leads to */
} Command;

struct _KmProject
{
  GObject     parent_instance;

  /* Owned */
  KmItem     *root;
  char       *file;
  KmItem     *current_body;
  GListStore *selection;
  KmYamlNode *sections;
  GPtrArray  *messages;
  GPtrArray  *history;     /* Command */

  guint       position;    /* commands done: history[0 .. position) */
  int         clean;       /* position of the clean state, -1 when unreachable */
  guint64     first_state; /* names the state before the first command */
  guint64     last_state;  /* the last name given */
  double      current_time;
  gboolean    modified;
  gboolean    merge_open;
  gboolean    save_layout;
};

enum {
  PROP_0,
  PROP_ROOT_ITEM,
  PROP_FILE,
  PROP_MODIFIED,
  PROP_CURRENT_TIME,
  PROP_CURRENT_BODY,
  PROP_CAN_UNDO,
  PROP_CAN_REDO,
  PROP_SAVE_LAYOUT,
  N_PROPS
};

G_DEFINE_FINAL_TYPE (KmProject, km_project, G_TYPE_OBJECT)

static GParamSpec *properties[N_PROPS];

static void
command_free (Command *command)
{
  if (command->free_data != NULL)
    command->free_data (command->data);
  g_free (command->label);
  g_free (command->merge_key);
  g_free (command);
}

static void
update_state (KmProject *self,
              gboolean   could_undo,
              gboolean   could_redo)
{
  gboolean modified = self->clean != (int) self->position;

  if (modified != self->modified)
    {
      self->modified = modified;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MODIFIED]);
    }
  if (could_undo != km_project_can_undo (self))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CAN_UNDO]);
  if (could_redo != km_project_can_redo (self))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CAN_REDO]);
}

static void
km_project_dispose (GObject *object)
{
  KmProject *self = KM_PROJECT (object);

  g_clear_pointer (&self->history, g_ptr_array_unref);
  g_clear_object (&self->root);
  g_clear_object (&self->current_body);
  g_clear_object (&self->selection);

  G_OBJECT_CLASS (km_project_parent_class)->dispose (object);
}

static void
km_project_finalize (GObject *object)
{
  KmProject *self = KM_PROJECT (object);

  g_clear_pointer (&self->file, g_free);
  g_clear_pointer (&self->sections, km_yaml_node_unref);
  g_clear_pointer (&self->messages, g_ptr_array_unref);

  G_OBJECT_CLASS (km_project_parent_class)->finalize (object);
}

static void
km_project_get_property (GObject    *object,
                         guint       prop_id,
                         GValue     *value,
                         GParamSpec *pspec)
{
  KmProject *self = KM_PROJECT (object);

  switch (prop_id)
    {
    case PROP_ROOT_ITEM:
      g_value_set_object (value, self->root);
      break;
    case PROP_FILE:
      g_value_set_string (value, self->file);
      break;
    case PROP_MODIFIED:
      g_value_set_boolean (value, self->modified);
      break;
    case PROP_CURRENT_TIME:
      g_value_set_double (value, self->current_time);
      break;
    case PROP_CURRENT_BODY:
      g_value_set_object (value, self->current_body);
      break;
    case PROP_CAN_UNDO:
      g_value_set_boolean (value, km_project_can_undo (self));
      break;
    case PROP_CAN_REDO:
      g_value_set_boolean (value, km_project_can_redo (self));
      break;
    case PROP_SAVE_LAYOUT:
      g_value_set_boolean (value, self->save_layout);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
km_project_set_property (GObject      *object,
                         guint         prop_id,
                         const GValue *value,
                         GParamSpec   *pspec)
{
  KmProject *self = KM_PROJECT (object);

  switch (prop_id)
    {
    case PROP_ROOT_ITEM:
      km_project_set_root_item (self, g_value_get_object (value));
      break;
    case PROP_FILE:
      km_project_set_file (self, g_value_get_string (value));
      break;
    case PROP_CURRENT_TIME:
      km_project_set_current_time (self, g_value_get_double (value));
      break;
    case PROP_CURRENT_BODY:
      km_project_set_current_body (self, g_value_get_object (value));
      break;
    case PROP_SAVE_LAYOUT:
      km_project_set_save_layout (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
km_project_class_init (KmProjectClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags rw = G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;
  GParamFlags ro = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->dispose = km_project_dispose;
  object_class->finalize = km_project_finalize;
  object_class->get_property = km_project_get_property;
  object_class->set_property = km_project_set_property;

  properties[PROP_ROOT_ITEM] = g_param_spec_object ("root-item", NULL, NULL, KM_TYPE_ITEM, rw);
  properties[PROP_FILE] = g_param_spec_string ("file", NULL, NULL, NULL, rw);
  properties[PROP_MODIFIED] = g_param_spec_boolean ("modified", NULL, NULL, FALSE, ro);
  properties[PROP_CURRENT_TIME] =
    g_param_spec_double ("current-time", NULL, NULL, 0, G_MAXDOUBLE, 0, rw);
  properties[PROP_CURRENT_BODY] =
    g_param_spec_object ("current-body", NULL, NULL, KM_TYPE_ITEM, rw);
  properties[PROP_CAN_UNDO] = g_param_spec_boolean ("can-undo", NULL, NULL, FALSE, ro);
  properties[PROP_CAN_REDO] = g_param_spec_boolean ("can-redo", NULL, NULL, FALSE, ro);
  properties[PROP_SAVE_LAYOUT] = g_param_spec_boolean ("save-layout", NULL, NULL, TRUE, rw);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
km_project_init (KmProject *self)
{
  self->root = km_root_item_new ();
  km_item_set_name (self->root, "RootItem");
  km_item_set_builtin (self->root, TRUE);
  self->selection = g_list_store_new (KM_TYPE_ITEM);
  self->messages = g_ptr_array_new_with_free_func (g_free);
  self->history = g_ptr_array_new_with_free_func ((GDestroyNotify) command_free);
  self->first_state = ++self->last_state;
  self->save_layout = TRUE;
}

KmProject *
km_project_new (void)
{
  return g_object_new (KM_TYPE_PROJECT, NULL);
}

KmItem *
km_project_get_root_item (KmProject *self)
{
  g_return_val_if_fail (KM_IS_PROJECT (self), NULL);
  return self->root;
}

void
km_project_set_root_item (KmProject *self,
                          KmItem    *root)
{
  g_return_if_fail (KM_IS_PROJECT (self));
  g_return_if_fail (KM_IS_ITEM (root));

  if (g_set_object (&self->root, root))
    {
      km_project_clear_selection (self);
      km_project_set_current_body (self, NULL);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ROOT_ITEM]);
    }
}

const char *
km_project_get_file (KmProject *self)
{
  g_return_val_if_fail (KM_IS_PROJECT (self), NULL);
  return self->file;
}

void
km_project_set_file (KmProject  *self,
                     const char *file)
{
  g_return_if_fail (KM_IS_PROJECT (self));

  if (g_strcmp0 (self->file, file) == 0)
    return;
  g_free (self->file);
  self->file = g_strdup (file);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FILE]);
}

gboolean
km_project_get_modified (KmProject *self)
{
  g_return_val_if_fail (KM_IS_PROJECT (self), FALSE);
  return self->modified;
}

double
km_project_get_current_time (KmProject *self)
{
  g_return_val_if_fail (KM_IS_PROJECT (self), 0);
  return self->current_time;
}

void
km_project_set_current_time (KmProject *self,
                             double     time)
{
  g_return_if_fail (KM_IS_PROJECT (self));

  time = MAX (time, 0.0);
  if (self->current_time == time)
    return;
  self->current_time = time;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CURRENT_TIME]);
}

KmItem *
km_project_get_current_body (KmProject *self)
{
  g_return_val_if_fail (KM_IS_PROJECT (self), NULL);
  return self->current_body;
}

void
km_project_set_current_body (KmProject *self,
                             KmItem    *body)
{
  g_return_if_fail (KM_IS_PROJECT (self));
  g_return_if_fail (body == NULL || KM_IS_ITEM (body));

  if (g_set_object (&self->current_body, body))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CURRENT_BODY]);
}

GListModel *
km_project_get_selection (KmProject *self)
{
  g_return_val_if_fail (KM_IS_PROJECT (self), NULL);
  return G_LIST_MODEL (self->selection);
}

void
km_project_select (KmProject *self,
                   KmItem    *item,
                   gboolean   add)
{
  guint position;

  g_return_if_fail (KM_IS_PROJECT (self));
  g_return_if_fail (KM_IS_ITEM (item));

  if (!add)
    km_project_clear_selection (self);
  if (!g_list_store_find (self->selection, item, &position))
    g_list_store_append (self->selection, item);
}

void
km_project_clear_selection (KmProject *self)
{
  g_return_if_fail (KM_IS_PROJECT (self));

  if (g_list_model_get_n_items (G_LIST_MODEL (self->selection)) > 0)
    g_list_store_remove_all (self->selection);
}

gboolean
km_project_get_save_layout (KmProject *self)
{
  g_return_val_if_fail (KM_IS_PROJECT (self), FALSE);
  return self->save_layout;
}

void
km_project_set_save_layout (KmProject *self,
                            gboolean   save_layout)
{
  g_return_if_fail (KM_IS_PROJECT (self));

  if (self->save_layout == !!save_layout)
    return;
  self->save_layout = !!save_layout;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SAVE_LAYOUT]);
}

KmYamlNode *
km_project_get_sections (KmProject *self)
{
  g_return_val_if_fail (KM_IS_PROJECT (self), NULL);
  return self->sections;
}

void
km_project_set_sections (KmProject  *self,
                         KmYamlNode *sections)
{
  g_return_if_fail (KM_IS_PROJECT (self));

  if (sections != NULL)
    km_yaml_node_ref (sections);
  g_clear_pointer (&self->sections, km_yaml_node_unref);
  self->sections = sections;
}

GPtrArray *
km_project_get_messages (KmProject *self)
{
  g_return_val_if_fail (KM_IS_PROJECT (self), NULL);
  return self->messages;
}

void
km_project_add_message (KmProject  *self,
                        const char *message)
{
  g_return_if_fail (KM_IS_PROJECT (self));
  g_return_if_fail (message != NULL);
  g_ptr_array_add (self->messages, g_strdup (message));
}

KmItem *
km_project_find_item_by_id (KmProject *self,
                            gint64     id)
{
  g_return_val_if_fail (KM_IS_PROJECT (self), NULL);
  return km_item_find_by_id (self->root, id);
}

void
km_project_push_command (KmProject          *self,
                         const char         *label,
                         KmCommandFunc       redo,
                         KmCommandFunc       undo,
                         KmCommandMergeFunc  merge,
                         const char         *merge_key,
                         gpointer            data,
                         GDestroyNotify      free_data)
{
  gboolean could_undo;
  gboolean could_redo;
  Command *command;

  g_return_if_fail (KM_IS_PROJECT (self));
  g_return_if_fail (redo != NULL && undo != NULL);

  could_undo = km_project_can_undo (self);
  could_redo = km_project_can_redo (self);

  redo (data);

  /* Drop the redo branch; a clean state inside it can no longer be reached. */
  if (self->position < self->history->len)
    {
      if (self->clean > (int) self->position)
        self->clean = -1;
      g_ptr_array_set_size (self->history, self->position);
    }

  if (self->merge_open && merge != NULL && merge_key != NULL && self->position > 0 &&
      self->clean != (int) self->position)
    {
      Command *top = g_ptr_array_index (self->history, self->position - 1);

      if (top->merge == merge && g_strcmp0 (top->merge_key, merge_key) == 0 &&
          merge (top->data, data))
        {
          if (free_data != NULL)
            free_data (data);
          update_state (self, could_undo, could_redo);
          return;
        }
    }

  command = g_new0 (Command, 1);
  command->label = g_strdup (label);
  command->merge_key = g_strdup (merge_key);
  command->redo = redo;
  command->undo = undo;
  command->merge = merge;
  command->data = data;
  command->free_data = free_data;
  command->state = ++self->last_state;
  g_ptr_array_add (self->history, command);
  self->position = self->history->len;
  self->merge_open = merge != NULL;
  update_state (self, could_undo, could_redo);
}

void
km_project_close_merge (KmProject *self)
{
  g_return_if_fail (KM_IS_PROJECT (self));
  self->merge_open = FALSE;
}

gboolean
km_project_can_undo (KmProject *self)
{
  g_return_val_if_fail (KM_IS_PROJECT (self), FALSE);
  return self->position > 0;
}

gboolean
km_project_can_redo (KmProject *self)
{
  g_return_val_if_fail (KM_IS_PROJECT (self), FALSE);
  return self->position < self->history->len;
}

const char *
km_project_get_undo_label (KmProject *self)
{
  g_return_val_if_fail (KM_IS_PROJECT (self), NULL);
  if (self->position == 0)
    return NULL;
  return ((Command *) g_ptr_array_index (self->history, self->position - 1))->label;
}

const char *
km_project_get_redo_label (KmProject *self)
{
  g_return_val_if_fail (KM_IS_PROJECT (self), NULL);
  if (self->position >= self->history->len)
    return NULL;
  return ((Command *) g_ptr_array_index (self->history, self->position))->label;
}

gboolean
km_project_undo (KmProject *self)
{
  gboolean could_redo;
  Command *command;

  g_return_val_if_fail (KM_IS_PROJECT (self), FALSE);

  if (self->position == 0)
    return FALSE;
  could_redo = km_project_can_redo (self);
  command = g_ptr_array_index (self->history, self->position - 1);
  self->position--;
  self->merge_open = FALSE;
  command->undo (command->data);
  update_state (self, TRUE, could_redo);
  return TRUE;
}

gboolean
km_project_redo (KmProject *self)
{
  gboolean could_undo;
  Command *command;

  g_return_val_if_fail (KM_IS_PROJECT (self), FALSE);

  if (self->position >= self->history->len)
    return FALSE;
  could_undo = km_project_can_undo (self);
  command = g_ptr_array_index (self->history, self->position);
  self->position++;
  self->merge_open = FALSE;
  command->redo (command->data);
  update_state (self, could_undo, TRUE);
  return TRUE;
}

void
km_project_set_clean (KmProject *self)
{
  g_return_if_fail (KM_IS_PROJECT (self));
  self->clean = (int) self->position;
  self->merge_open = FALSE;
  update_state (self, km_project_can_undo (self), km_project_can_redo (self));
}

/* The name of the state at @position of the history. */
static guint64
state_at (KmProject *self,
          guint      position)
{
  if (position == 0)
    return self->first_state;
  return ((Command *) g_ptr_array_index (self->history, position - 1))->state;
}

/**
 * km_project_get_clean_state:
 *
 * Names the clean state, for km_project_restore_clean_state() (a save that fails puts
 * back the clean state it moved).
 *
 * Returns: the clean state's name, 0 when it cannot be reached
 */
guint64
km_project_get_clean_state (KmProject *self)
{
  g_return_val_if_fail (KM_IS_PROJECT (self), 0);

  if (self->clean < 0)
    return 0;
  return state_at (self, (guint) self->clean);
}

/**
 * km_project_restore_clean_state:
 * @state: a name from km_project_get_clean_state()
 *
 * Makes the state @state names the clean one again, wherever it is in the history now;
 * when the history no longer holds it (the steps after it were replaced, or the history
 * cleared) no state is clean. A step merged into since keeps its name, but no step is
 * merged into once it is clean (km_project_set_clean ends merging).
 */
void
km_project_restore_clean_state (KmProject *self,
                                guint64    state)
{
  g_return_if_fail (KM_IS_PROJECT (self));

  self->clean = -1;
  for (guint position = 0; state != 0 && position <= self->history->len; position++)
    if (state_at (self, position) == state)
      {
        self->clean = (int) position;
        break;
      }
  update_state (self, km_project_can_undo (self), km_project_can_redo (self));
}

void
km_project_clear_history (KmProject *self)
{
  gboolean could_undo;
  gboolean could_redo;

  g_return_if_fail (KM_IS_PROJECT (self));
  could_undo = km_project_can_undo (self);
  could_redo = km_project_can_redo (self);
  g_ptr_array_set_size (self->history, 0);
  self->first_state = ++self->last_state;
  self->clean = self->modified ? -1 : 0;
  self->position = 0;
  self->merge_open = FALSE;
  update_state (self, could_undo, could_redo);
}

/* Convenience commands */

typedef struct
{
  KmItem *parent;
  KmItem *item;
  guint   position;
  char   *old_name;
  char   *new_name;
  gboolean checked;
} ItemEdit;

static void
item_edit_free (gpointer data)
{
  ItemEdit *edit = data;

  g_clear_object (&edit->parent);
  g_clear_object (&edit->item);
  g_free (edit->old_name);
  g_free (edit->new_name);
  g_free (edit);
}

static void
insert_do (gpointer data)
{
  ItemEdit *edit = data;

  km_item_insert_child (edit->parent, edit->position, edit->item);
}

static void
insert_undo (gpointer data)
{
  ItemEdit *edit = data;

  km_item_remove_child (edit->parent, edit->item);
}

void
km_project_insert_item (KmProject *self,
                        KmItem    *parent,
                        guint      position,
                        KmItem    *item)
{
  ItemEdit *edit;

  g_return_if_fail (KM_IS_PROJECT (self));
  g_return_if_fail (KM_IS_ITEM (parent));
  g_return_if_fail (KM_IS_ITEM (item) && km_item_get_parent (item) == NULL);

  edit = g_new0 (ItemEdit, 1);
  edit->parent = g_object_ref (parent);
  edit->item = g_object_ref (item);
  edit->position = MIN (position, km_item_get_n_children (parent));
  km_project_push_command (self, _("Add Item"), insert_do, insert_undo, NULL, NULL, edit,
                           item_edit_free);
}

void
km_project_remove_item (KmProject *self,
                        KmItem    *item)
{
  ItemEdit *edit;
  guint position;

  g_return_if_fail (KM_IS_PROJECT (self));
  g_return_if_fail (KM_IS_ITEM (item) && km_item_get_parent (item) != NULL);

  edit = g_new0 (ItemEdit, 1);
  edit->parent = g_object_ref (km_item_get_parent (item));
  edit->item = g_object_ref (item);
  edit->position = (guint) km_item_get_index (item);
  position = 0;
  if (g_list_store_find (self->selection, item, &position))
    g_list_store_remove (self->selection, position);
  if (self->current_body == item || (self->current_body != NULL &&
                                     km_item_is_ancestor_of (item, self->current_body)))
    km_project_set_current_body (self, NULL);
  km_project_push_command (self, _("Remove Item"), insert_undo, insert_do, NULL, NULL, edit,
                           item_edit_free);
}

static void
rename_do (gpointer data)
{
  ItemEdit *edit = data;

  km_item_set_name (edit->item, edit->new_name);
}

static void
rename_undo (gpointer data)
{
  ItemEdit *edit = data;

  km_item_set_name (edit->item, edit->old_name);
}

void
km_project_rename_item (KmProject  *self,
                        KmItem     *item,
                        const char *name)
{
  ItemEdit *edit;

  g_return_if_fail (KM_IS_PROJECT (self));
  g_return_if_fail (KM_IS_ITEM (item));
  g_return_if_fail (name != NULL);

  if (g_strcmp0 (km_item_get_name (item), name) == 0)
    return;
  edit = g_new0 (ItemEdit, 1);
  edit->item = g_object_ref (item);
  edit->old_name = g_strdup (km_item_get_name (item));
  edit->new_name = g_strdup (name);
  km_project_push_command (self, _("Rename Item"), rename_do, rename_undo, NULL, NULL, edit,
                           item_edit_free);
}

static void
check_toggle (gpointer data)
{
  ItemEdit *edit = data;

  km_item_set_checked (edit->item, !km_item_get_checked (edit->item));
}

void
km_project_check_item (KmProject *self,
                       KmItem    *item,
                       gboolean   checked)
{
  ItemEdit *edit;

  g_return_if_fail (KM_IS_PROJECT (self));
  g_return_if_fail (KM_IS_ITEM (item));

  if (km_item_get_checked (item) == !!checked)
    return;
  edit = g_new0 (ItemEdit, 1);
  edit->item = g_object_ref (item);
  km_project_push_command (self, checked ? _("Check Item") : _("Uncheck Item"), check_toggle,
                           check_toggle, NULL, NULL, edit, item_edit_free);
}
