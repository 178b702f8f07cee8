/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-item"

#include "config.h"

#include <stdarg.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "km-item.h"
#include "km-error.h"

typedef struct
{
  /* Owned */
  char        *name;
  char        *problem;
  char        *plugin_name;
  char        *class_name;
  GPtrArray   *children;
  KmYamlNode  *data;

  /* Borrowed */
  KmItem      *parent;

  gint64       id;
  KmSourcePos  pos;
  guint        checked : 1;
  guint        builtin : 1;
} KmItemPrivate;

enum {
  PROP_0,
  PROP_NAME,
  PROP_CHECKED,
  PROP_BUILTIN,
  PROP_PROBLEM,
  PROP_PARENT,
  PROP_ITEM_TYPE,
  PROP_N_ITEMS,
  N_PROPS
};

static void list_model_iface_init (GListModelInterface *iface);

G_DEFINE_TYPE_WITH_CODE (KmItem, km_item, G_TYPE_OBJECT,
                         G_ADD_PRIVATE (KmItem)
                         G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, list_model_iface_init))

static GParamSpec *properties[N_PROPS];

static GType
km_item_get_item_type (GListModel *model)
{
  return KM_TYPE_ITEM;
}

static guint
km_item_get_n_items (GListModel *model)
{
  KmItemPrivate *priv = km_item_get_instance_private (KM_ITEM (model));

  return priv->children->len;
}

static gpointer
km_item_get_item (GListModel *model,
                  guint       position)
{
  KmItemPrivate *priv = km_item_get_instance_private (KM_ITEM (model));

  if (position >= priv->children->len)
    return NULL;
  return g_object_ref (g_ptr_array_index (priv->children, position));
}

static void
list_model_iface_init (GListModelInterface *iface)
{
  iface->get_item_type = km_item_get_item_type;
  iface->get_n_items = km_item_get_n_items;
  iface->get_item = km_item_get_item;
}

static gboolean
km_item_real_restore (KmItem           *self,
                      const KmYamlNode *data,
                      KmItemIo         *io,
                      GError          **error)
{
  KmItemPrivate *priv = km_item_get_instance_private (self);

  g_clear_pointer (&priv->data, km_yaml_node_unref);
  if (data != NULL)
    priv->data = km_yaml_node_ref ((KmYamlNode *) data);
  return TRUE;
}

static KmYamlNode *
km_item_real_store (KmItem   *self,
                    KmItemIo *io)
{
  KmItemPrivate *priv = km_item_get_instance_private (self);

  return priv->data != NULL ? km_yaml_node_ref (priv->data) : NULL;
}

static void
km_item_dispose (GObject *object)
{
  KmItem *self = KM_ITEM (object);
  KmItemPrivate *priv = km_item_get_instance_private (self);

  for (guint i = 0; i < priv->children->len; i++)
    {
      KmItemPrivate *cpriv = km_item_get_instance_private (g_ptr_array_index (priv->children, i));

      cpriv->parent = NULL;
    }
  g_ptr_array_set_size (priv->children, 0);

  G_OBJECT_CLASS (km_item_parent_class)->dispose (object);
}

static void
km_item_finalize (GObject *object)
{
  KmItem *self = KM_ITEM (object);
  KmItemPrivate *priv = km_item_get_instance_private (self);

  g_clear_pointer (&priv->name, g_free);
  g_clear_pointer (&priv->problem, g_free);
  g_clear_pointer (&priv->plugin_name, g_free);
  g_clear_pointer (&priv->class_name, g_free);
  g_clear_pointer (&priv->children, g_ptr_array_unref);
  g_clear_pointer (&priv->data, km_yaml_node_unref);

  G_OBJECT_CLASS (km_item_parent_class)->finalize (object);
}

static void
km_item_get_property (GObject    *object,
                      guint       prop_id,
                      GValue     *value,
                      GParamSpec *pspec)
{
  KmItem *self = KM_ITEM (object);
  KmItemPrivate *priv = km_item_get_instance_private (self);

  switch (prop_id)
    {
    case PROP_NAME:
      g_value_set_string (value, priv->name);
      break;
    case PROP_CHECKED:
      g_value_set_boolean (value, priv->checked);
      break;
    case PROP_BUILTIN:
      g_value_set_boolean (value, priv->builtin);
      break;
    case PROP_PROBLEM:
      g_value_set_string (value, priv->problem);
      break;
    case PROP_PARENT:
      g_value_set_object (value, priv->parent);
      break;
    case PROP_ITEM_TYPE:
      g_value_set_gtype (value, KM_TYPE_ITEM);
      break;
    case PROP_N_ITEMS:
      g_value_set_uint (value, priv->children->len);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
km_item_set_property (GObject      *object,
                      guint         prop_id,
                      const GValue *value,
                      GParamSpec   *pspec)
{
  KmItem *self = KM_ITEM (object);

  switch (prop_id)
    {
    case PROP_NAME:
      km_item_set_name (self, g_value_get_string (value));
      break;
    case PROP_CHECKED:
      km_item_set_checked (self, g_value_get_boolean (value));
      break;
    case PROP_BUILTIN:
      km_item_set_builtin (self, g_value_get_boolean (value));
      break;
    case PROP_PROBLEM:
      km_item_set_problem (self, g_value_get_string (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
km_item_class_init (KmItemClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = km_item_dispose;
  object_class->finalize = km_item_finalize;
  object_class->get_property = km_item_get_property;
  object_class->set_property = km_item_set_property;

  klass->restore = km_item_real_restore;
  klass->store = km_item_real_store;

  properties[PROP_NAME] =
    g_param_spec_string ("name", NULL, NULL, "",
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_CHECKED] =
    g_param_spec_boolean ("is-checked", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_BUILTIN] =
    g_param_spec_boolean ("is-builtin", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_PROBLEM] =
    g_param_spec_string ("problem", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_PARENT] =
    g_param_spec_object ("parent", NULL, NULL, KM_TYPE_ITEM,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_ITEM_TYPE] =
    g_param_spec_gtype ("item-type", NULL, NULL, G_TYPE_OBJECT,
                        G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_N_ITEMS] =
    g_param_spec_uint ("n-items", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
km_item_init (KmItem *self)
{
  KmItemPrivate *priv = km_item_get_instance_private (self);

  priv->name = g_strdup ("");
  priv->children = g_ptr_array_new_with_free_func (g_object_unref);
  priv->id = -1;
}

/**
 * km_item_get_file:
 * @self: an item
 *
 * The file @self was read from, as the project writes it (with its variables), for the
 * items that stand for a file (KmItemClass.get_file).
 *
 * Returns: (nullable): the file, or %NULL for an item of no file
 */
const char *
km_item_get_file (KmItem *self)
{
  KmItemClass *klass;

  g_return_val_if_fail (KM_IS_ITEM (self), NULL);
  klass = KM_ITEM_GET_CLASS (self);
  return klass->get_file != NULL ? klass->get_file (self) : NULL;
}

const char *
km_item_get_name (KmItem *self)
{
  KmItemPrivate *priv;

  g_return_val_if_fail (KM_IS_ITEM (self), NULL);
  priv = km_item_get_instance_private (self);
  return priv->name;
}

void
km_item_set_name (KmItem     *self,
                  const char *name)
{
  KmItemPrivate *priv;

  g_return_if_fail (KM_IS_ITEM (self));
  priv = km_item_get_instance_private (self);

  if (name == NULL)
    name = "";
  if (g_strcmp0 (priv->name, name) == 0)
    return;
  g_free (priv->name);
  priv->name = g_strdup (name);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_NAME]);
}

gboolean
km_item_get_checked (KmItem *self)
{
  KmItemPrivate *priv;

  g_return_val_if_fail (KM_IS_ITEM (self), FALSE);
  priv = km_item_get_instance_private (self);
  return priv->checked;
}

void
km_item_set_checked (KmItem  *self,
                     gboolean checked)
{
  KmItemPrivate *priv;

  g_return_if_fail (KM_IS_ITEM (self));
  priv = km_item_get_instance_private (self);

  checked = !!checked;
  if (priv->checked == (guint) checked)
    return;
  priv->checked = checked;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CHECKED]);
}

gboolean
km_item_get_builtin (KmItem *self)
{
  KmItemPrivate *priv;

  g_return_val_if_fail (KM_IS_ITEM (self), FALSE);
  priv = km_item_get_instance_private (self);
  return priv->builtin;
}

void
km_item_set_builtin (KmItem  *self,
                     gboolean builtin)
{
  KmItemPrivate *priv;

  g_return_if_fail (KM_IS_ITEM (self));
  priv = km_item_get_instance_private (self);

  builtin = !!builtin;
  if (priv->builtin == (guint) builtin)
    return;
  priv->builtin = builtin;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUILTIN]);
}

gint64
km_item_get_id (KmItem *self)
{
  KmItemPrivate *priv;

  g_return_val_if_fail (KM_IS_ITEM (self), -1);
  priv = km_item_get_instance_private (self);
  return priv->id;
}

void
km_item_set_id (KmItem *self,
                gint64  id)
{
  KmItemPrivate *priv;

  g_return_if_fail (KM_IS_ITEM (self));
  priv = km_item_get_instance_private (self);
  priv->id = id;
}

const char *
km_item_get_plugin_name (KmItem *self)
{
  KmItemPrivate *priv;

  g_return_val_if_fail (KM_IS_ITEM (self), NULL);
  priv = km_item_get_instance_private (self);
  return priv->plugin_name != NULL ? priv->plugin_name : KM_ITEM_GET_CLASS (self)->plugin_name;
}

const char *
km_item_get_class_name (KmItem *self)
{
  KmItemPrivate *priv;

  g_return_val_if_fail (KM_IS_ITEM (self), NULL);
  priv = km_item_get_instance_private (self);
  return priv->class_name != NULL ? priv->class_name : KM_ITEM_GET_CLASS (self)->class_name;
}

void
_km_item_set_type_names (KmItem     *self,
                         const char *plugin_name,
                         const char *class_name)
{
  KmItemPrivate *priv;

  g_return_if_fail (KM_IS_ITEM (self));
  priv = km_item_get_instance_private (self);
  g_free (priv->plugin_name);
  g_free (priv->class_name);
  priv->plugin_name = g_strdup (plugin_name);
  priv->class_name = g_strdup (class_name);
}

const char *
km_item_get_problem (KmItem *self)
{
  KmItemPrivate *priv;

  g_return_val_if_fail (KM_IS_ITEM (self), NULL);
  priv = km_item_get_instance_private (self);
  return priv->problem;
}

void
km_item_set_problem (KmItem     *self,
                     const char *problem)
{
  KmItemPrivate *priv;

  g_return_if_fail (KM_IS_ITEM (self));
  priv = km_item_get_instance_private (self);

  if (g_strcmp0 (priv->problem, problem) == 0)
    return;
  g_free (priv->problem);
  priv->problem = g_strdup (problem);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROBLEM]);
}

KmSourcePos
km_item_get_source_pos (KmItem *self)
{
  KmItemPrivate *priv;
  KmSourcePos none = { 0, 0 };

  g_return_val_if_fail (KM_IS_ITEM (self), none);
  priv = km_item_get_instance_private (self);
  return priv->pos;
}

void
km_item_set_source_pos (KmItem     *self,
                        KmSourcePos pos)
{
  KmItemPrivate *priv;

  g_return_if_fail (KM_IS_ITEM (self));
  priv = km_item_get_instance_private (self);
  priv->pos = pos;
}

KmItem *
km_item_get_parent (KmItem *self)
{
  KmItemPrivate *priv;

  g_return_val_if_fail (KM_IS_ITEM (self), NULL);
  priv = km_item_get_instance_private (self);
  return priv->parent;
}

guint
km_item_get_n_children (KmItem *self)
{
  KmItemPrivate *priv;

  g_return_val_if_fail (KM_IS_ITEM (self), 0);
  priv = km_item_get_instance_private (self);
  return priv->children->len;
}

KmItem *
km_item_get_child (KmItem *self,
                   guint   position)
{
  KmItemPrivate *priv;

  g_return_val_if_fail (KM_IS_ITEM (self), NULL);
  priv = km_item_get_instance_private (self);
  g_return_val_if_fail (position < priv->children->len, NULL);
  return g_ptr_array_index (priv->children, position);
}

int
km_item_get_index (KmItem *self)
{
  KmItemPrivate *priv;
  KmItemPrivate *ppriv;
  guint index;

  g_return_val_if_fail (KM_IS_ITEM (self), -1);
  priv = km_item_get_instance_private (self);
  if (priv->parent == NULL)
    return -1;
  ppriv = km_item_get_instance_private (priv->parent);
  if (!g_ptr_array_find (ppriv->children, self, &index))
    return -1;
  return (int) index;
}

gboolean
km_item_is_ancestor_of (KmItem *self,
                        KmItem *descendant)
{
  g_return_val_if_fail (KM_IS_ITEM (self), FALSE);
  g_return_val_if_fail (KM_IS_ITEM (descendant), FALSE);

  for (KmItem *p = km_item_get_parent (descendant); p != NULL; p = km_item_get_parent (p))
    if (p == self)
      return TRUE;
  return FALSE;
}

void
km_item_insert_child (KmItem *self,
                      guint   position,
                      KmItem *child)
{
  KmItemPrivate *priv;
  KmItemPrivate *cpriv;

  g_return_if_fail (KM_IS_ITEM (self));
  g_return_if_fail (KM_IS_ITEM (child));
  g_return_if_fail (child != self);
  priv = km_item_get_instance_private (self);
  cpriv = km_item_get_instance_private (child);
  g_return_if_fail (cpriv->parent == NULL);
  g_return_if_fail (!km_item_is_ancestor_of (child, self));

  position = MIN (position, priv->children->len);
  g_ptr_array_insert (priv->children, position, g_object_ref (child));
  cpriv->parent = self;
  g_list_model_items_changed (G_LIST_MODEL (self), position, 0, 1);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_ITEMS]);
  g_object_notify_by_pspec (G_OBJECT (child), properties[PROP_PARENT]);
}

void
km_item_append_child (KmItem *self,
                      KmItem *child)
{
  g_return_if_fail (KM_IS_ITEM (self));
  km_item_insert_child (self, km_item_get_n_children (self), child);
}

void
km_item_remove_child (KmItem *self,
                      KmItem *child)
{
  KmItemPrivate *priv;
  KmItemPrivate *cpriv;
  g_autoptr(KmItem) keep = NULL;
  guint index;

  g_return_if_fail (KM_IS_ITEM (self));
  g_return_if_fail (KM_IS_ITEM (child));
  priv = km_item_get_instance_private (self);
  cpriv = km_item_get_instance_private (child);
  g_return_if_fail (cpriv->parent == self);

  if (!g_ptr_array_find (priv->children, child, &index))
    g_return_if_reached ();
  keep = g_object_ref (child);
  g_ptr_array_remove_index (priv->children, index);
  cpriv->parent = NULL;
  g_list_model_items_changed (G_LIST_MODEL (self), index, 1, 0);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_ITEMS]);
  g_object_notify_by_pspec (G_OBJECT (child), properties[PROP_PARENT]);
}

KmItem *
km_item_find_by_id (KmItem *self,
                    gint64  id)
{
  KmItemPrivate *priv;

  g_return_val_if_fail (KM_IS_ITEM (self), NULL);
  priv = km_item_get_instance_private (self);

  if (priv->id == id)
    return self;
  for (guint i = 0; i < priv->children->len; i++)
    {
      KmItem *found = km_item_find_by_id (g_ptr_array_index (priv->children, i), id);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/**
 * km_item_find_child_by_type:
 * @self: (nullable): the parent; %NULL has no children
 *
 * Returns: (transfer none) (nullable): the first direct child that is a @type
 */
KmItem *
km_item_find_child_by_type (KmItem *self,
                            GType   type)
{
  KmItemPrivate *priv;

  if (self == NULL)
    return NULL;
  g_return_val_if_fail (KM_IS_ITEM (self), NULL);
  priv = km_item_get_instance_private (self);

  for (guint i = 0; i < priv->children->len; i++)
    {
      KmItem *child = g_ptr_array_index (priv->children, i);

      if (G_TYPE_CHECK_INSTANCE_TYPE (child, type))
        return child;
    }
  return NULL;
}

KmItem *
km_item_find_ancestor_by_type (KmItem *self,
                               GType   type)
{
  g_return_val_if_fail (KM_IS_ITEM (self), NULL);

  for (KmItem *item = km_item_get_parent (self); item != NULL; item = km_item_get_parent (item))
    if (G_TYPE_CHECK_INSTANCE_TYPE (item, type))
      return item;
  return NULL;
}

KmItem *
km_item_find_child_by_name (KmItem     *self,
                            const char *name)
{
  KmItemPrivate *priv;

  g_return_val_if_fail (KM_IS_ITEM (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);
  priv = km_item_get_instance_private (self);

  for (guint i = 0; i < priv->children->len; i++)
    {
      KmItem *child = g_ptr_array_index (priv->children, i);

      if (g_strcmp0 (km_item_get_name (child), name) == 0)
        return child;
    }
  return NULL;
}

void
km_item_foreach (KmItem  *self,
                 GFunc    func,
                 gpointer user_data)
{
  KmItemPrivate *priv;

  g_return_if_fail (KM_IS_ITEM (self));
  g_return_if_fail (func != NULL);
  priv = km_item_get_instance_private (self);

  func (self, user_data);
  for (guint i = 0; i < priv->children->len; i++)
    km_item_foreach (g_ptr_array_index (priv->children, i), func, user_data);
}

gboolean
km_item_restore (KmItem           *self,
                 const KmYamlNode *data,
                 KmItemIo         *io,
                 GError          **error)
{
  g_return_val_if_fail (KM_IS_ITEM (self), FALSE);
  g_return_val_if_fail (io != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return KM_ITEM_GET_CLASS (self)->restore (self, data, io, error);
}

KmYamlNode *
km_item_store (KmItem   *self,
               KmItemIo *io)
{
  g_return_val_if_fail (KM_IS_ITEM (self), NULL);
  g_return_val_if_fail (io != NULL, NULL);

  return KM_ITEM_GET_CLASS (self)->store (self, io);
}

KmYamlNode *
km_item_get_data (KmItem *self)
{
  KmItemPrivate *priv;

  g_return_val_if_fail (KM_IS_ITEM (self), NULL);
  priv = km_item_get_instance_private (self);
  return priv->data;
}

/* Choreonoid's ${PROGRAM_TOP}, its install prefix: the folder above the share folder
 * (PREFIX/share/choreonoid-X.Y as installed, TOP/share in a build tree). A share folder
 * of another shape is no installation's, and its parent no install prefix: NULL, rather
 * than a guess that would make ${PROGRAM_TOP}/… of any file beside it. */
static char *
program_top (const char *share_dir)
{
  g_autofree char *dir = NULL;
  g_autofree char *base = NULL;
  g_autofree char *parent = NULL;
  g_autofree char *parent_base = NULL;

  if (share_dir == NULL)
    return NULL;
  dir = g_canonicalize_filename (share_dir, NULL);
  base = g_path_get_basename (dir);
  parent = g_path_get_dirname (dir);
  if (strcmp (base, "share") == 0)
    return g_steal_pointer (&parent);
  parent_base = g_path_get_basename (parent);
  if (g_str_has_prefix (base, "choreonoid") && strcmp (parent_base, "share") == 0)
    return g_path_get_dirname (parent);
  return NULL;
}

/* Whether @path is a Windows path that is not relative to the project's folder, as a
 * project a Windows user saved may hold: on a drive (C:\Users\…, D:/…, and the
 * drive-relative C:file), a UNC share (\\server\share\…, \\?\C:\…) or the current
 * drive's root (\data\file). No file here. */
static gboolean
is_windows_absolute (const char *path)
{
  if (g_ascii_isalpha (path[0]) && path[1] == ':')
    return TRUE;
  return path[0] == '\\';
}

char *
km_item_io_expand_path (KmItemIo   *io,
                        const char *path,
                        GError    **error)
{
  g_autoptr(GString) out = g_string_new (NULL);
  const char *p = path;

  g_return_val_if_fail (io != NULL, NULL);
  g_return_val_if_fail (path != NULL, NULL);

  if (is_windows_absolute (path))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   /* Translators: %s is a file path as the project holds it (C:\Users\…) */
                   _("“%s” is a Windows path, which cannot be opened on this system"), path);
      return NULL;
    }
  while (*p != '\0')
    {
      const char *end;
      g_autofree char *name = NULL;
      g_autofree char *value = NULL;

      if (p[0] != '$' || p[1] != '{' || (end = strchr (p + 2, '}')) == NULL)
        {
          g_string_append_c (out, *p++);
          continue;
        }
      name = g_strndup (p + 2, end - p - 2);
      if (strcmp (name, "SHARE") == 0)
        value = g_strdup (io->share_dir);
      else if (strcmp (name, "HOME") == 0)
        value = g_strdup (g_get_home_dir ());
      else if (strcmp (name, "PROGRAM_TOP") == 0)
        value = program_top (io->share_dir);
      else
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                       _("unknown path variable “${%s}”"), name);
          return NULL;
        }
      if (value == NULL && io->share_dir != NULL)
        {
          /* ${PROGRAM_TOP} with a share folder that is not shaped like Choreonoid's. */
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                       _("the path variable “${%s}” is not set: the share folder %s is not "
                         "Choreonoid's (PREFIX/share/choreonoid-X.Y or TOP/share)"),
                       name, io->share_dir);
          return NULL;
        }
      if (value == NULL)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                       _("the path variable “${%s}” is not set (use --share-dir or "
                         "KINEMA_CHOREONOID_SHARE)"), name);
          return NULL;
        }
      g_string_append (out, value);
      p = end + 1;
    }

  if (!g_path_is_absolute (out->str))
    {
      /* The project's directory may itself be relative (to the working directory). */
      g_autofree char *base = g_canonicalize_filename (io->dir != NULL ? io->dir : ".", NULL);

      return g_canonicalize_filename (out->str, base);
    }
  return g_canonicalize_filename (out->str, NULL);
}

void
km_item_io_warn (KmItemIo         *io,
                 const KmYamlNode *at,
                 const char       *format,
                 ...)
{
  g_autofree char *message = NULL;
  g_autofree char *location = NULL;
  va_list args;
  KmSourcePos pos = { 0, 0 };

  g_return_if_fail (io != NULL);

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  if (at != NULL)
    pos = km_yaml_node_get_pos (at);
  if (io->messages == NULL)
    return;
  location = km_parse_location (io->file, pos);
  g_ptr_array_add (io->messages, g_strdup_printf ("%s: %s", location, message));
}

/* The message of a reader's error without its "FILE:LINE:COLUMN: " (km_parse_error_set),
 * for a warning located at @node. */
static const char *
bare_message (const GError     *error,
              const KmYamlNode *node)
{
  const char *file = km_yaml_node_get_file (node);
  g_autofree char *located = NULL;
  const char *rest;

  /* The location as km_parse_location() writes it (the file escaped), read back. */
  if (file == NULL || !km_parse_read_location (error->message, &located, NULL, &rest) ||
      strcmp (located, file) != 0)
    return error->message;
  return rest;
}

void
km_item_io_ignore_value (KmItemIo         *io,
                         const KmYamlNode *value,
                         const char       *key,
                         GError          **error)
{
  g_return_if_fail (io != NULL && key != NULL && error != NULL && *error != NULL);

  /* Translators: the first %s is a key of a project file's item ("id", "is_checked",
   * "joint_displacements"), the second why its value cannot be read ("expected true or
   * false"). */
  km_item_io_warn (io, value, _("“%s” is ignored: %s"), key, bare_message (*error, value));
  g_clear_error (error);
}

void
km_item_io_problem (KmItemIo         *io,
                    KmItem           *item,
                    const KmYamlNode *at,
                    const char       *message)
{
  g_return_if_fail (KM_IS_ITEM (item));
  g_return_if_fail (message != NULL);

  km_item_set_problem (item, message);
  km_item_io_warn (io, at, "%s", message);
}

gboolean
km_item_restore_file_ref (const KmYamlNode   *data,
                          const char * const *file_keys,
                          char              **file,
                          char              **format,
                          KmYamlNode        **file_node,
                          GError            **error)
{
  KmYamlNode *node;

  g_return_val_if_fail (data != NULL, FALSE);
  g_return_val_if_fail (file_keys != NULL, FALSE);
  g_return_val_if_fail (file != NULL && format != NULL && file_node != NULL, FALSE);

  *file_node = NULL;
  if ((node = km_yaml_mapping_lookup (data, "format")) != NULL)
    {
      const char *s = km_yaml_expect_string (node, error);

      if (s == NULL)
        return FALSE;
      g_free (*format);
      *format = g_strdup (s);
    }
  if ((node = km_yaml_mapping_lookup_any (data, file_keys)) != NULL)
    {
      const char *s = km_yaml_expect_string (node, error);

      if (s == NULL)
        return FALSE;
      g_free (*file);
      *file = g_strdup (s);
      *file_node = node;
    }
  return TRUE;
}

void
km_item_store_file_ref (KmYamlNode *out,
                        const char *file,
                        const char *format)
{
  g_return_if_fail (out != NULL);

  if (file != NULL)
    km_yaml_mapping_append (out, "file", km_yaml_node_new_string (file));
  if (format != NULL)
    km_yaml_mapping_append (out, "format", km_yaml_node_new_scalar (format, KM_YAML_STYLE_ANY));
}
