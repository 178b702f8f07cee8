/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-item-tree"

#include "config.h"

#include <glib/gi18n.h>

#include "km-item-tree.h"

/*
 * The document's contents as a tree: the body with its joints nested as in the skeleton,
 * then the IK targets and the solved animation. Rows are GtkStringObjects; a joint row
 * carries its topological joint index + 1 as "km-joint" data, a node with children its
 * child list as "km-children". Selecting a joint row selects that joint in the document,
 * and the document's selection selects the row, so the scene, this tree and the joint
 * panel always agree.
 */

struct _KmItemTree
{
  GtkWidget           parent_instance;

  /* Template widgets */
  GtkListView        *list_view;

  /* Owned */
  KmDocument         *document;
  GSignalGroup       *document_signals;
  GtkSingleSelection *selection;

  gboolean            updating;
};

enum {
  PROP_0,
  PROP_DOCUMENT,
  N_PROPS
};

G_DEFINE_FINAL_TYPE (KmItemTree, km_item_tree, GTK_TYPE_WIDGET)

static GParamSpec *properties[N_PROPS];

static GListModel *
create_children_cb (gpointer item,
                    gpointer user_data)
{
  GListModel *children = g_object_get_data (item, "km-children");

  return children ? g_object_ref (children) : NULL;
}

static GtkStringObject *
new_node (const char *label,
          int         joint)
{
  GtkStringObject *node = gtk_string_object_new (label);

  g_object_set_data (G_OBJECT (node), "km-joint", GINT_TO_POINTER (joint + 1));
  return node;
}

static GListStore *
ensure_children (GtkStringObject *node)
{
  GListStore *children = g_object_get_data (G_OBJECT (node), "km-children");

  if (children == NULL)
    {
      children = g_list_store_new (GTK_TYPE_STRING_OBJECT);
      g_object_set_data_full (G_OBJECT (node), "km-children", children, g_object_unref);
    }
  return children;
}

static void
rebuild (KmItemTree *self)
{
  g_autoptr(GListStore) root = g_list_store_new (GTK_TYPE_STRING_OBJECT);
  GtkTreeListModel *tree;
  KmSkeleton *skeleton = self->document ? km_document_get_skeleton (self->document) : NULL;

  if (skeleton != NULL)
    {
      guint n = km_skeleton_get_n_joints (skeleton);
      g_autoptr(GtkStringObject) body = NULL;
      g_autofree GtkStringObject **nodes = g_new0 (GtkStringObject *, n);
      GFile *file = km_document_get_file (self->document);
      g_autofree char *name = file ? g_file_get_basename (file) : g_strdup (_("Body"));

      body = new_node (name, -1);
      g_list_store_append (root, body);
      for (guint i = 0; i < n; i++)
        {
          const KmJoint *j = km_skeleton_get_joint (skeleton, i);
          g_autoptr(GtkStringObject) node = new_node (j->name, (int) i);
          GtkStringObject *parent = j->parent >= 0 ? nodes[j->parent] : body;

          g_list_store_append (ensure_children (parent), node);
          nodes[i] = node;
        }
    }
  if (self->document != NULL && km_document_get_targets (self->document) != NULL)
    {
      g_autoptr(GtkStringObject) node = new_node (_("IK Targets"), -1);

      g_list_store_append (root, node);
    }
  if (self->document != NULL && km_document_get_animation (self->document) != NULL)
    {
      g_autoptr(GtkStringObject) node = new_node (_("Solved Animation"), -1);

      g_list_store_append (root, node);
    }

  tree = gtk_tree_list_model_new (G_LIST_MODEL (g_steal_pointer (&root)), FALSE, TRUE,
                                  create_children_cb, NULL, NULL);
  self->updating = TRUE;
  gtk_single_selection_set_model (self->selection, G_LIST_MODEL (tree));
  gtk_single_selection_set_selected (self->selection, GTK_INVALID_LIST_POSITION);
  self->updating = FALSE;
  g_object_unref (tree);
}

static void
document_selected_joint_changed_cb (KmItemTree *self)
{
  GListModel *model = G_LIST_MODEL (self->selection);
  int joint = self->document ? km_document_get_selected_joint (self->document) : -1;
  guint position = GTK_INVALID_LIST_POSITION;

  for (guint i = 0; joint >= 0 && i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(GtkTreeListRow) row = g_list_model_get_item (model, i);
      gpointer node = gtk_tree_list_row_get_item (row);

      if (GPOINTER_TO_INT (g_object_get_data (node, "km-joint")) == joint + 1)
        position = i;
      g_object_unref (node);
      if (position != GTK_INVALID_LIST_POSITION)
        break;
    }

  self->updating = TRUE;
  gtk_single_selection_set_selected (self->selection, position);
  self->updating = FALSE;
}

static void
selection_changed_cb (KmItemTree *self)
{
  GtkTreeListRow *row;
  int joint = -1;

  if (self->updating || self->document == NULL)
    return;

  row = gtk_single_selection_get_selected_item (self->selection);
  if (row != NULL)
    {
      g_autoptr(GObject) node = gtk_tree_list_row_get_item (row);

      joint = GPOINTER_TO_INT (g_object_get_data (node, "km-joint")) - 1;
    }
  km_document_set_selected_joint (self->document, joint);
}

static void
document_contents_changed_cb (KmItemTree *self)
{
  rebuild (self);
  document_selected_joint_changed_cb (self);
}

static void
km_item_tree_dispose (GObject *object)
{
  KmItemTree *self = (KmItemTree *) object;
  GtkWidget *child;

  if (self->document_signals != NULL)
    g_signal_group_set_target (self->document_signals, NULL);
  g_clear_object (&self->document_signals);
  g_clear_object (&self->document);
  gtk_widget_dispose_template (GTK_WIDGET (self), KM_TYPE_ITEM_TREE);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  g_clear_object (&self->selection);

  G_OBJECT_CLASS (km_item_tree_parent_class)->dispose (object);
}

static void
km_item_tree_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  KmItemTree *self = KM_ITEM_TREE (object);

  switch (prop_id)
    {
    case PROP_DOCUMENT:
      g_value_set_object (value, self->document);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
km_item_tree_set_property (GObject      *object,
                           guint         prop_id,
                           const GValue *value,
                           GParamSpec   *pspec)
{
  KmItemTree *self = KM_ITEM_TREE (object);

  switch (prop_id)
    {
    case PROP_DOCUMENT:
      km_item_tree_set_document (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
km_item_tree_class_init (KmItemTreeClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = km_item_tree_dispose;
  object_class->get_property = km_item_tree_get_property;
  object_class->set_property = km_item_tree_set_property;

  properties[PROP_DOCUMENT] =
    g_param_spec_object ("document", NULL, NULL, KM_TYPE_DOCUMENT,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/kinema/Kinema/ui/km-item-tree.ui");
  gtk_widget_class_bind_template_child (widget_class, KmItemTree, list_view);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "itemtree");
}

static void
km_item_tree_init (KmItemTree *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->selection = gtk_single_selection_new (NULL);
  gtk_single_selection_set_autoselect (self->selection, FALSE);
  gtk_single_selection_set_can_unselect (self->selection, TRUE);
  g_signal_connect_object (self->selection, "notify::selected",
                           G_CALLBACK (selection_changed_cb), self, G_CONNECT_SWAPPED);
  gtk_list_view_set_model (self->list_view, GTK_SELECTION_MODEL (self->selection));

  self->document_signals = g_signal_group_new (KM_TYPE_DOCUMENT);
  g_signal_group_connect_swapped (self->document_signals, "notify::skeleton",
                                  G_CALLBACK (document_contents_changed_cb), self);
  g_signal_group_connect_swapped (self->document_signals, "notify::targets",
                                  G_CALLBACK (document_contents_changed_cb), self);
  g_signal_group_connect_swapped (self->document_signals, "notify::animation",
                                  G_CALLBACK (document_contents_changed_cb), self);
  g_signal_group_connect_swapped (self->document_signals, "notify::file",
                                  G_CALLBACK (document_contents_changed_cb), self);
  g_signal_group_connect_swapped (self->document_signals, "notify::selected-joint",
                                  G_CALLBACK (document_selected_joint_changed_cb), self);
  rebuild (self);
}

GtkWidget *
km_item_tree_new (void)
{
  return g_object_new (KM_TYPE_ITEM_TREE, NULL);
}

KmDocument *
km_item_tree_get_document (KmItemTree *self)
{
  g_return_val_if_fail (KM_IS_ITEM_TREE (self), NULL);

  return self->document;
}

void
km_item_tree_set_document (KmItemTree *self,
                           KmDocument *document)
{
  g_return_if_fail (KM_IS_ITEM_TREE (self));
  g_return_if_fail (document == NULL || KM_IS_DOCUMENT (document));

  if (!g_set_object (&self->document, document))
    return;

  g_signal_group_set_target (self->document_signals, document);
  document_contents_changed_cb (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DOCUMENT]);
}
