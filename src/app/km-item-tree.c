/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-item-tree"

#include "config.h"

#include <glib/gi18n.h>

#include "km-item-tree.h"
#include "km-body-item.h"
#include "km-body-motion-item.h"
#include "km-cnoid.h"
#include "km-document-edit.h"
#include "km-document-skeleton.h"
#include "km-ik-animation-item.h"
#include "km-ik-targets-item.h"
#include "km-item-row.h"
#include "km-list-scroll.h"
#include "km-pose-seq-item.h"
#include "km-root-item.h"
#include "km-skeleton-edit.h"
#include "km-skeleton-outline.h"

/*
 * The project's item tree: a GtkTreeListModel over the items (each KmItem is the list
 * model of its children), mapped to KmItemRows for the row template. Every change (check
 * boxes, rename, delete, drag and drop) is an undoable KmDocument edit; the rows follow the
 * items through their notifications and items-changed. The tree's selection is the
 * project's selection, and selecting one body makes it the current body.
 *
 * The joints of the current body are listed under it as the skeleton's hierarchy, where only
 * branching indents (joint_lists): the root joint's serial run (each joint its parent's only
 * child) is one flat run under the body, so a serial arm or snake is all on one level; the
 * children of a joint with several (the branch heads) are rows under its row, and each
 * branch head's own run is listed inside the head's row, flat there, so every branch (an
 * arm, a leg) is one collapsible row. These rows are not project items and are not saved.
 * Selection is one thing: a joint selected here is the document's selected joint, and a
 * joint or item selected elsewhere (the scene, the joint panel) is selected here. A selected
 * joint stands for its body: the project selection then holds the body.
 *
 * Item rows open expanded. Joint rows open as the Skeleton tab's outline does, counting the
 * rows this tree shows (joint_rows_expansion): all of a small skeleton's, only the first
 * levels of a large one's (thousands of rows expanded at once would keep the window from
 * drawing), and the path to the selected joint. The tree model does not expand rows itself
 * (autoexpand): rows_added_cb expands each new row that should be.
 *
 * A joint selected elsewhere (the scene, the Pose tab, a project opened with one) has its
 * row scrolled into view, without taking the focus (scroll_to_joint).
 *
 * The tree is one Tab stop, as GtkTreeView is: the arrows move between its rows, and Tab and
 * Shift+Tab leave it (tree_key_pressed_cb) where GTK 4.8's list view would go through every
 * row first.
 *
 * Shift+F10 and the Menu key open the focused row's context menu (popup_menu_key_cb), the
 * one a right-click on that row gives, pointing at the row; the keyboard moves through it,
 * and when it closes the focus is back on the row. Check and Uncheck are there for the
 * keyboard: Space is not the check box's key, as it plays the motion wherever the focus is
 * (the time bar's keys) and the tree has the focus at start-up.
 */

#define JOINT_ROWS_KEY "km-item-tree-joint-rows"
#define TREE_KEY       "km-item-tree-tree"       /* on a rows store: a GWeakRef to the tree */

struct _KmItemTree
{
  GtkWidget           parent_instance;

  /* Template widgets */
  GtkListView        *list_view;
  GtkPopover         *rename_popover;
  GtkEntry           *rename_entry;
  GtkLabel           *rename_error;   /* why a joint's new name was refused */
  GtkPopover         *context_menu;
  GMenuModel         *item_menu;      /* what the context menu offers for items */
  GMenuModel         *joint_menu;     /* and for a joint's row */

  /* Owned */
  KmDocument         *document;
  GSignalGroup       *document_signals;
  GtkMultiSelection  *selection;
  KmItem             *renaming;      /* the item renamed, or the body of the joint renamed */
  int                 renaming_joint; /* the joint renamed (its row's F2), or -1 */
  KmProject          *project;       /* whose selection the tree follows */
  GWeakRef            joint_body;    /* the body whose joints are listed */

  KmSkeleton         *open_skeleton; /* the skeleton @open_joints is for */
  gboolean           *open_joints;   /* its joints that open expanded (joint_rows_expansion) */
  gboolean            expanding;     /* in expand_rows */

  gboolean            syncing;       /* setting the tree's selection from the model's */
  guint               sync_idle;     /* sync_selection once rows were made anew */

  int                 scroll_joint;  /* the joint whose row to bring into view, or -1 */
  KmAfterPaint        scroll;        /* whose step does so (scroll_step) */

  GHashTable         *reloading;     /* the items whose files a Reload reads (a set) */

  gboolean            menu_from_keys; /* the context menu was opened with Shift+F10 or Menu */
};

enum {
  PROP_0,
  PROP_DOCUMENT,
  N_PROPS
};

G_DEFINE_FINAL_TYPE (KmItemTree, km_item_tree, GTK_TYPE_WIDGET)

static GParamSpec *properties[N_PROPS];

static void sync_selection (KmItemTree *self);

static gboolean
sync_selection_idle_cb (gpointer data)
{
  KmItemTree *self = data;

  self->sync_idle = 0;
  sync_selection (self);
  return G_SOURCE_REMOVE;
}

static void
weak_ref_free (GWeakRef *ref)
{
  g_weak_ref_clear (ref);
  g_free (ref);
}

/* @child (an item whose row is in @rows, the rows of its parent's children) got its first
 * child or lost its last one: GtkTreeListModel asks only once whether a row can expand
 * (create_children_cb), so the row is replaced by a new one for the tree to ask again. */
static void
child_children_changed_cb (GListModel *child,
                           guint       position,
                           guint       removed,
                           guint       added,
                           GListStore *rows)
{
  guint n = g_list_model_get_n_items (child);
  int index = km_item_get_index (KM_ITEM (child));
  g_autoptr(KmItemRow) row = NULL;
  KmItemRow *fresh;

  /* A body's row always has its child model (its joints). */
  if ((n == 0) == (n + removed - added == 0) || index < 0 || KM_IS_BODY_ITEM (child))
    return;
  row = g_list_model_get_item (G_LIST_MODEL (rows), (guint) index);
  if (row == NULL || km_item_row_get_item (row) != KM_ITEM (child)
      || km_item_row_get_joint (row) >= 0)
    return;   /* it went elsewhere: these are not its rows any more */
  fresh = km_item_row_new (KM_ITEM (child));
  g_list_store_splice (rows, (guint) index, 1, (gpointer *) &fresh, 1);
  g_object_unref (fresh);
  /* The new row is not selected: once the tree has it, it shows the item's selection
   * again (not from within the tree's own update). */
  {
    GWeakRef *ref = g_object_get_data (G_OBJECT (rows), TREE_KEY);
    g_autoptr(KmItemTree) tree = ref != NULL ? g_weak_ref_get (ref) : NULL;

    if (tree != NULL && tree->sync_idle == 0)
      tree->sync_idle = g_idle_add (sync_selection_idle_cb, tree);
  }
}

/* Keeps @rows, the rows of @item's children, in step with them. */
static void
item_children_changed_cb (GListModel *item,
                          guint       position,
                          guint       removed,
                          guint       added,
                          GListStore *rows)
{
  g_autoptr(GPtrArray) new_rows = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < added; i++)
    {
      g_autoptr(KmItem) child = g_list_model_get_item (item, position + i);

      g_ptr_array_add (new_rows, km_item_row_new (child));
      if (g_signal_handler_find (child, G_SIGNAL_MATCH_FUNC | G_SIGNAL_MATCH_DATA, 0, 0, NULL,
                                 child_children_changed_cb, rows) == 0)
        g_signal_connect_object (child, "items-changed", G_CALLBACK (child_children_changed_cb),
                                 rows, 0);
    }
  g_list_store_splice (rows, position, removed, new_rows->pdata, new_rows->len);
}

/* The rows of @item's children. The store holds them: GtkTreeListRow does not keep its item,
 * so rows made on demand (a GtkMapListModel) would be gone the moment after a list item
 * bound its label to them, and the label would never show a rename, a check or a problem. */
static GListModel *
rows_of (KmItemTree *self,
         KmItem     *item)
{
  GListStore *rows = g_list_store_new (KM_TYPE_ITEM_ROW);
  GWeakRef *ref = g_new0 (GWeakRef, 1);

  g_weak_ref_init (ref, self);
  g_object_set_data_full (G_OBJECT (rows), TREE_KEY, ref, (GDestroyNotify) weak_ref_free);

  item_children_changed_cb (G_LIST_MODEL (item), 0, 0,
                            g_list_model_get_n_items (G_LIST_MODEL (item)), rows);
  g_signal_connect_object (item, "items-changed", G_CALLBACK (item_children_changed_cb), rows,
                           0);
  return G_LIST_MODEL (rows);
}

/* The rows of @body's joints (empty unless it is the current body). The rows hold the body,
 * so they are emptied when it stops being the current body and when the tree goes. */
static GListStore *
joint_rows_of (KmItem *body)
{
  GListStore *store = g_object_get_data (G_OBJECT (body), JOINT_ROWS_KEY);

  if (store == NULL)
    {
      store = g_list_store_new (KM_TYPE_ITEM_ROW);
      g_object_set_data_full (G_OBJECT (body), JOINT_ROWS_KEY, store, g_object_unref);
    }
  return store;
}

/* Whether @model's item at @position is @row. */
static gboolean
row_is (GListModel *model,
        guint       position,
        gpointer    row)
{
  g_autoptr(GObject) item = g_list_model_get_item (model, position);

  return item == row;
}

/* Makes @store hold @rows, leaving the rows they share at its start and at its end in place
 * so that the tree keeps their expansion. */
static void
set_rows (GListStore *store,
          GPtrArray  *rows)
{
  GListModel *model = G_LIST_MODEL (store);
  guint n = g_list_model_get_n_items (model);
  guint start = 0;
  guint end = 0;

  while (start < n && start < rows->len && row_is (model, start, g_ptr_array_index (rows, start)))
    start++;
  while (end < n - start && end < rows->len - start
         && row_is (model, n - 1 - end, g_ptr_array_index (rows, rows->len - 1 - end)))
    end++;
  if (start == n && start == rows->len)
    return;
  g_list_store_splice (store, start, n - start - end, rows->pdata + start,
                       rows->len - start - end);
}

/* Adds the joint rows in @store and below to @rows, by joint name. */
static void
collect_joint_rows (GListStore *store,
                    GHashTable *rows)
{
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (store)); i++)
    {
      KmItemRow *row = g_list_model_get_item (G_LIST_MODEL (store), i);
      char *name = NULL;

      g_object_get (row, "name", &name, NULL);
      collect_joint_rows (km_item_row_get_children (row), rows);
      g_hash_table_replace (rows, name, row);
    }
}

/* Whether @row, a joint's old row, can stand for a joint with @n_children child rows:
 * GtkTreeListModel asks only once whether a row can expand. */
static gboolean
row_fits (KmItemRow *row,
          guint      n_children)
{
  return (g_list_model_get_n_items (G_LIST_MODEL (km_item_row_get_children (row))) == 0)
         == (n_children == 0);
}

/* Where the tree lists each of @skeleton's joints, so that only branching indents and each
 * branch is a row of its own: the children of a joint with several children (branch heads)
 * in that joint's row, and a branch head's serial run (its descendants that are their
 * parent's only child, down to the next branching) in the head's row, flat there. The root
 * joint and its own serial run are in the body's list. A joint that is its parent's only
 * child comes right after its parent in its list: the joints are in preorder.
 *
 * Returns: (transfer full): for each joint, the joint whose row lists it, or the number of
 *   joints for the body's list */
static guint *
joint_lists (const KmSkeleton *skeleton)
{
  guint n_joints = skeleton ? km_skeleton_get_n_joints (skeleton) : 0;
  g_autofree guint *n_children = g_new0 (guint, n_joints + 1);
  g_autofree gboolean *head = g_new0 (gboolean, n_joints + 1);   /* a branch head */
  guint *list = g_new (guint, n_joints + 1);

  for (guint i = 0; i < n_joints; i++)
    {
      int parent = km_skeleton_get_joint (skeleton, i)->parent;

      n_children[parent >= 0 ? (guint) parent : n_joints]++;
    }
  for (guint i = 0; i < n_joints; i++)
    {
      int parent = km_skeleton_get_joint (skeleton, i)->parent;

      if (parent < 0 || (guint) parent >= i)
        list[i] = n_joints;
      else if (n_children[parent] > 1)
        {
          list[i] = (guint) parent;
          head[i] = TRUE;
        }
      else if (head[parent])
        list[i] = (guint) parent;
      else
        list[i] = list[parent];
    }
  list[n_joints] = n_joints;
  return list;
}

/* Which of @skeleton's joint rows open expanded, as km_joint_tree_expansion() chooses for
 * the outline but counting the rows this tree lists (@list, from joint_lists): the rows of
 * the body's list, then level by level (breadth first) every row whose child rows still
 * fit in KM_JOINT_TREE_ROWS rows shown, and the rows above @selected (-1 for none). All of
 * them for a skeleton of KM_JOINT_TREE_ROWS joints or fewer.
 *
 * Returns: (transfer full): one flag per joint, TRUE for expanded */
static gboolean *
joint_rows_expansion (const KmSkeleton *skeleton,
                      const guint      *list,
                      int               selected)
{
  guint n = km_skeleton_get_n_joints (skeleton);
  gboolean *expand = g_new0 (gboolean, n + 1);
  g_autofree guint *first = g_new0 (guint, n + 2);   /* rows in j's: kids[first[j]..first[j + 1]) */
  g_autofree guint *fill = g_new0 (guint, n + 1);
  g_autofree guint *kids = g_new0 (guint, n + 1);
  g_autofree guint *queue = g_new0 (guint, n + 1);
  guint head = 0, tail = 0, rows;

  for (guint i = 0; i < n; i++)
    first[list[i] + 1]++;
  for (guint j = 0; j <= n; j++)
    first[j + 1] += first[j];
  for (guint i = 0; i < n; i++)
    kids[first[list[i]] + fill[list[i]]++] = i;

  rows = first[n + 1] - first[n];
  for (guint k = first[n]; k < first[n + 1]; k++)
    queue[tail++] = kids[k];
  while (head < tail)
    {
      guint j = queue[head++];
      guint n_kids = first[j + 1] - first[j];

      if (n_kids == 0)
        continue;
      /* The body's rows are always open; below them, level by level while the rows fit. */
      if (list[j] != n && rows + n_kids > KM_JOINT_TREE_ROWS)
        break;
      expand[j] = TRUE;
      rows += n_kids;
      for (guint k = first[j]; k < first[j + 1]; k++)
        queue[tail++] = kids[k];
    }
  if (selected >= 0 && (guint) selected < n)
    for (guint j = list[selected]; j != n; j = list[j])
      expand[j] = TRUE;
  return expand;
}

/* Fills @body's joint rows with @skeleton's joints (none for NULL) as joint_lists() lists
 * them: in @body's store, a branching joint's row's or a branch head's. A joint keeps its
 * row (and its expansion) while it keeps having child rows or none, and either its name
 * (edits before it move its index) or its index (a rename). */
static void
fill_joint_rows (KmItem     *body,
                 KmSkeleton *skeleton)
{
  guint n_joints = skeleton ? km_skeleton_get_n_joints (skeleton) : 0;
  g_autoptr(GHashTable) old = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                     g_object_unref);
  g_autoptr(GHashTable) old_at = g_hash_table_new (NULL, NULL);
  g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GPtrArray) lists = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  g_autofree guint *n_children = g_new0 (guint, n_joints + 1);   /* child rows */
  g_autofree guint *list = joint_lists (skeleton);
  GHashTableIter iter;
  gpointer value;

  collect_joint_rows (joint_rows_of (body), old);
  for (guint i = 0; i < n_joints; i++)
    n_children[list[i]]++;
  for (guint i = 0; i <= n_joints; i++)
    g_ptr_array_add (lists, g_ptr_array_new ());

  /* By name first */
  g_ptr_array_set_size (rows, n_joints);
  for (guint i = 0; i < n_joints; i++)
    {
      const KmJoint *joint = km_skeleton_get_joint (skeleton, i);
      KmItemRow *row = g_hash_table_lookup (old, joint->name);

      if (row != NULL && row_fits (row, n_children[i]))
        {
          g_ptr_array_index (rows, i) = g_object_ref (row);
          km_item_row_set_joint (row, (int) i);
          g_hash_table_remove (old, joint->name);
        }
    }
  /* Then the rows of joints that lost their name, by index */
  g_hash_table_iter_init (&iter, old);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    g_hash_table_insert (old_at, GINT_TO_POINTER (km_item_row_get_joint (value)), value);
  for (guint i = 0; i < n_joints; i++)
    {
      const KmJoint *joint = km_skeleton_get_joint (skeleton, i);
      KmItemRow *row = g_ptr_array_index (rows, i);

      if (row == NULL)
        {
          row = g_hash_table_lookup (old_at, GINT_TO_POINTER (i));
          if (row != NULL && row_fits (row, n_children[i]))
            {
              g_hash_table_remove (old_at, GINT_TO_POINTER (i));
              km_item_row_set_joint_name (row, joint->name);
              g_object_ref (row);
            }
          else
            row = km_item_row_new_joint (body, (int) i, joint->name);
          g_ptr_array_index (rows, i) = row;
        }
      g_ptr_array_add (g_ptr_array_index (lists, list[i]), row);
    }

  /* Bottom up, so that a row has its children before the tree sees it. */
  for (guint i = n_joints; i-- > 0;)
    set_rows (km_item_row_get_children (g_ptr_array_index (rows, i)),
              g_ptr_array_index (lists, i));
  set_rows (joint_rows_of (body), g_ptr_array_index (lists, n_joints));
}

/* Items with children get a child model; a body's starts with its joint rows (listed while
 * it is the current body), so it has one even without children. */
static GListModel *
create_children_cb (gpointer item,
                    gpointer user_data)
{
  KmItemTree *self = user_data;
  KmItem *it = km_item_row_get_item (item);

  if (km_item_row_get_joint (item) >= 0)
    {
      GListModel *joints = G_LIST_MODEL (km_item_row_get_children (item));

      return g_list_model_get_n_items (joints) > 0 ? g_object_ref (joints) : NULL;
    }
  if (KM_IS_BODY_ITEM (it))
    {
      GListStore *parts = g_list_store_new (G_TYPE_LIST_MODEL);
      GListStore *joints = joint_rows_of (it);
      g_autoptr(GListModel) children = rows_of (self, it);

      if (self->document != NULL && km_document_get_body_item (self->document) == (KmItem *) it)
        fill_joint_rows (it, km_document_get_skeleton (self->document));
      g_list_store_append (parts, joints);
      g_list_store_append (parts, children);
      return G_LIST_MODEL (gtk_flatten_list_model_new (G_LIST_MODEL (parts)));
    }
  /* No expander on a childless row: one that gets a child is made anew
   * (child_children_changed_cb). */
  if (km_item_get_n_children (it) == 0)
    return NULL;
  return rows_of (self, it);
}

/* Whether the tree shows @root's own row. A project's RootItem is the tree itself, so its
 * children are the top rows; a project whose top item is anything else (one that could not
 * be read and is kept verbatim with everything under it, or a body written as the top
 * item) would show an empty tree, with only Messages saying why: its row is shown instead,
 * marked (KmItemRow's icon and tooltip), expanded. */
static gboolean
shows_root (KmItem *root)
{
  return root != NULL && !KM_IS_ROOT_ITEM (root);
}

/* Whether a new row for @item_row opens expanded: an item's does, a joint's as
 * joint_rows_expansion() says for the document's skeleton. */
static gboolean
opens_expanded (KmItemTree *self,
                KmItemRow  *item_row)
{
  KmSkeleton *skeleton = self->document ? km_document_get_skeleton (self->document) : NULL;
  int joint = km_item_row_get_joint (item_row);

  if (joint < 0)
    return TRUE;
  if (skeleton == NULL)
    return FALSE;
  if (skeleton != self->open_skeleton)
    {
      g_autofree guint *list = joint_lists (skeleton);

      g_clear_pointer (&self->open_skeleton, km_skeleton_unref);
      g_free (self->open_joints);
      self->open_skeleton = km_skeleton_ref (skeleton);
      self->open_joints = joint_rows_expansion (skeleton, list,
                                                km_document_get_selected_joint (self->document));
    }
  return (guint) joint < km_skeleton_get_n_joints (skeleton) && self->open_joints[joint];
}

/* Expands the @n rows of @tree from @position that open expanded (opens_expanded), and the
 * rows of their children that do, in turn: a row expanded brings its children's rows right
 * after it. */
static void
expand_rows (KmItemTree       *self,
             GtkTreeListModel *tree,
             guint             position,
             guint             n)
{
  guint end = position + n;
  gboolean was_expanding = self->expanding;

  self->expanding = TRUE;
  for (guint i = position; i < end; i++)
    {
      g_autoptr(GtkTreeListRow) row = gtk_tree_list_model_get_row (tree, i);
      g_autoptr(KmItemRow) item_row = row != NULL ? gtk_tree_list_row_get_item (row) : NULL;
      guint before;

      if (item_row == NULL || gtk_tree_list_row_get_expanded (row)
          || !opens_expanded (self, item_row))
        continue;
      before = g_list_model_get_n_items (G_LIST_MODEL (tree));
      gtk_tree_list_row_set_expanded (row, TRUE);
      end += g_list_model_get_n_items (G_LIST_MODEL (tree)) - before;
    }
  self->expanding = was_expanding;
}

/* Rows added to the tree (an item added, a body's joints listed) open as opens_expanded()
 * says. Connected after the selection model, which has seen the rows when they are
 * expanded; the rows an expansion adds are expand_rows' own. */
static void
rows_added_cb (GtkTreeListModel *tree,
               guint             position,
               guint             removed,
               guint             added,
               KmItemTree       *self)
{
  if (added == 0 || self->expanding
      || gtk_multi_selection_get_model (self->selection) != G_LIST_MODEL (tree))
    return;
  expand_rows (self, tree, position, added);
}

static void
rebuild (KmItemTree *self)
{
  KmProject *project = self->document ? km_document_get_project (self->document) : NULL;
  KmItem *root = project ? km_project_get_root_item (project) : NULL;
  GtkTreeListModel *tree;
  GListModel *top;

  if (shows_root (root))
    {
      GListStore *store = g_list_store_new (KM_TYPE_ITEM_ROW);
      g_autoptr(KmItemRow) row = km_item_row_new (root);

      g_list_store_append (store, row);
      top = G_LIST_MODEL (store);
    }
  else if (root != NULL)
    top = rows_of (self, root);
  else
    top = G_LIST_MODEL (g_list_store_new (KM_TYPE_ITEM_ROW));
  tree = gtk_tree_list_model_new (top, FALSE, FALSE, create_children_cb, self, NULL);
  /* Before the list sees the rows: it makes widgets for the rows it is given. */
  expand_rows (self, tree, 0, g_list_model_get_n_items (G_LIST_MODEL (tree)));
  gtk_multi_selection_set_model (self->selection, G_LIST_MODEL (tree));
  g_signal_connect_object (tree, "items-changed", G_CALLBACK (rows_added_cb), self, 0);
  g_object_unref (tree);
}

static void update_joint_rows (KmItemTree *self);
static void watch_project     (KmItemTree *self);

static void
project_changed_cb (KmItemTree *self)
{
  watch_project (self);
  rebuild (self);
  update_joint_rows (self);
}

/* The row at @position (a full reference), or NULL. */
static KmItemRow *
row_at_position (KmItemTree *self,
                 guint       position)
{
  g_autoptr(GtkTreeListRow) row = g_list_model_get_item (G_LIST_MODEL (self->selection), position);

  return row != NULL ? gtk_tree_list_row_get_item (row) : NULL;
}

/* The item at @position; NULL for a joint's row. */
static KmItem *
item_at_position (KmItemTree *self,
                  guint       position)
{
  g_autoptr(KmItemRow) item_row = row_at_position (self, position);

  if (item_row == NULL || km_item_row_get_joint (item_row) >= 0)
    return NULL;
  return km_item_row_get_item (item_row);
}

/* The selected items, in tree order (element-type KmItem, full references). */
static GPtrArray *
selected_items (KmItemTree *self)
{
  GPtrArray *items = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GtkBitset) selected = gtk_selection_model_get_selection (GTK_SELECTION_MODEL (self->selection));
  GtkBitsetIter iter;
  guint position;

  for (gboolean ok = gtk_bitset_iter_init_first (&iter, selected, &position); ok;
       ok = gtk_bitset_iter_next (&iter, &position))
    {
      KmItem *item = item_at_position (self, position);

      if (item != NULL)
        g_ptr_array_add (items, g_object_ref (item));
    }
  return items;
}


/* Reloading swaps the item for one read again from its file, at the same place, with the
 * children moved over: one undoable step. */
typedef struct
{
  KmDocument *document;
  KmItem     *parent;
  guint       position;
  KmItem     *old_item;
  KmItem     *new_item;
} ReloadEdit;

static void
reload_edit_free (gpointer data)
{
  ReloadEdit *edit = data;

  g_clear_object (&edit->parent);
  g_clear_object (&edit->old_item);
  g_clear_object (&edit->new_item);
  g_free (edit);
}

static void
reload_edit_swap (ReloadEdit *edit,
                  KmItem     *from,
                  KmItem     *to)
{
  KmProject *project = km_document_get_project (edit->document);
  gboolean current = km_project_get_current_body (project) == from;

  while (km_item_get_n_children (from) > 0)
    {
      g_autoptr(KmItem) child = g_object_ref (km_item_get_child (from, 0));

      km_item_remove_child (from, child);
      km_item_append_child (to, child);
    }
  km_item_remove_child (edit->parent, from);
  km_item_insert_child (edit->parent, MIN (edit->position, km_item_get_n_children (edit->parent)),
                        to);
  if (current)
    km_project_set_current_body (project, to);
  km_document_reload (edit->document);
}

static void
reload_edit_redo (gpointer data)
{
  ReloadEdit *edit = data;

  reload_edit_swap (edit, edit->old_item, edit->new_item);
}

static void
reload_edit_undo (gpointer data)
{
  ReloadEdit *edit = data;

  reload_edit_swap (edit, edit->new_item, edit->old_item);
}

static int selected_joint_row (KmItemTree *self);

static void
update_actions (KmItemTree *self)
{
  g_autoptr(GPtrArray) items = selected_items (self);
  gboolean can_check = FALSE, can_uncheck = FALSE;

  /* One item, or a joint (its row alone). */
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "tree.rename",
                                 items->len == 1
                                 || (items->len == 0 && selected_joint_row (self) >= 0));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "tree.delete", items->len > 0);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "tree.duplicate", items->len > 0);
  /* Only what changes something: Check for an unchecked item, Uncheck for a checked one
   * (both for a selection with both); kept up to date when the context menu opens. */
  for (guint i = 0; i < items->len; i++)
    {
      if (km_item_get_checked (g_ptr_array_index (items, i)))
        can_uncheck = TRUE;
      else
        can_check = TRUE;
    }
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "tree.check", can_check);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "tree.uncheck", can_uncheck);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "tree.reload",
                                 items->len == 1 && km_item_get_file (g_ptr_array_index (items, 0)));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "tree.use-as-effector",
                                 items->len == 0 && self->document != NULL
                                 && km_document_can_set_effector (self->document,
                                                                  selected_joint_row (self)));
}

/* The first selected joint row's joint, or -1. */
static int
selected_joint_row (KmItemTree *self)
{
  g_autoptr(GtkBitset) selected = gtk_selection_model_get_selection (GTK_SELECTION_MODEL (self->selection));
  GtkBitsetIter iter;
  guint position;

  for (gboolean ok = gtk_bitset_iter_init_first (&iter, selected, &position); ok;
       ok = gtk_bitset_iter_next (&iter, &position))
    {
      g_autoptr(KmItemRow) row = row_at_position (self, position);

      if (row != NULL && km_item_row_get_joint (row) >= 0)
        return km_item_row_get_joint (row);
    }
  return -1;
}

/* The tree shows the project's selection, with the selected joint's row for its body. */
static void
sync_selection (KmItemTree *self)
{
  g_autoptr(GtkBitset) wanted = gtk_bitset_new_empty ();
  g_autoptr(GtkBitset) mask = NULL;
  KmProject *project;
  GListModel *selection;
  KmItem *body;
  int joint;
  guint n;

  if (self->document == NULL || self->syncing)
    return;

  project = km_document_get_project (self->document);
  selection = km_project_get_selection (project);
  body = km_document_get_body_item (self->document);
  joint = km_document_get_selected_joint (self->document);
  n = g_list_model_get_n_items (G_LIST_MODEL (self->selection));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(KmItemRow) row = row_at_position (self, i);
      KmItem *item = row ? km_item_row_get_item (row) : NULL;
      guint at;

      if (row == NULL)
        continue;
      if (km_item_row_get_joint (row) >= 0)
        {
          if (joint >= 0 && item == body && km_item_row_get_joint (row) == joint)
            gtk_bitset_add (wanted, i);
        }
      else if (!(joint >= 0 && item == body) && g_list_store_find (G_LIST_STORE (selection), item, &at))
        gtk_bitset_add (wanted, i);
    }

  self->syncing = TRUE;
  mask = gtk_bitset_new_range (0, n);
  gtk_selection_model_set_selection (GTK_SELECTION_MODEL (self->selection), wanted, mask);
  self->syncing = FALSE;
  update_actions (self);
}

/* Expands the row of @item, or of its joint @joint (>= 0), looked for from *@from on (a
 * row comes after its parent's), and sets *@from to it; FALSE when the row is not in the
 * list (a collapsed row above it). */
static gboolean
expand_row (KmItemTree *self,
            KmItem     *item,
            int         joint,
            guint      *from)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->selection));

  for (guint i = *from; i < n; i++)
    {
      g_autoptr(GtkTreeListRow) row = g_list_model_get_item (G_LIST_MODEL (self->selection), i);
      g_autoptr(KmItemRow) item_row = gtk_tree_list_row_get_item (row);

      if (km_item_row_get_item (item_row) == item && km_item_row_get_joint (item_row) == joint)
        {
          gtk_tree_list_row_set_expanded (row, TRUE);
          *from = i;
          return TRUE;
        }
    }
  return FALSE;
}

/* The selected joint's row is in the list only while the rows above it are expanded: the
 * body's items, the body and the rows of the joint's ancestors that list it (joint_lists),
 * from the top down. */
static void
expand_to_selected_joint (KmItemTree *self)
{
  KmItem *body = km_document_get_body_item (self->document);
  KmSkeleton *skeleton = km_document_get_skeleton (self->document);
  int joint = km_document_get_selected_joint (self->document);
  g_autoptr(GPtrArray) items = NULL;
  g_autoptr(GArray) joints = NULL;
  g_autofree guint *list = NULL;
  guint from = 0;

  if (body == NULL || skeleton == NULL || joint < 0
      || (guint) joint >= km_skeleton_get_n_joints (skeleton))
    return;

  items = g_ptr_array_new ();
  for (KmItem *it = body; it != NULL && (km_item_get_parent (it) != NULL || shows_root (it));
       it = km_item_get_parent (it))
    g_ptr_array_insert (items, 0, it);
  for (guint i = 0; i < items->len; i++)
    if (!expand_row (self, g_ptr_array_index (items, i), -1, &from))
      return;

  joints = g_array_new (FALSE, FALSE, sizeof (int));
  list = joint_lists (skeleton);
  for (guint j = list[joint]; j < km_skeleton_get_n_joints (skeleton); j = list[j])
    {
      int row = (int) j;

      g_array_prepend_val (joints, row);
    }
  for (guint i = 0; i < joints->len; i++)
    if (!expand_row (self, body, g_array_index (joints, int, i), &from))
      return;
}

/* Frames to wait for a row to be made and laid out before giving up scrolling to it. */
#define SCROLL_MAX_FRAMES 30

/* The position of @joint's row, or GTK_INVALID_LIST_POSITION (not in the list). */
static guint
joint_position (KmItemTree *self,
                int         joint)
{
  KmItem *body = km_document_get_body_item (self->document);
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->selection));

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(KmItemRow) row = row_at_position (self, i);

      if (row != NULL && km_item_row_get_joint (row) == joint && km_item_row_get_item (row) == body)
        return i;
    }
  return GTK_INVALID_LIST_POSITION;
}

/* Brings self->scroll_joint's row into view, whole (km-list-scroll.c: GTK 4.8 has no
 * gtk_list_view_scroll_to); done once it is seen in view, or given up. Only from a frame's
 * ::after-paint (self->scroll), when the list has just been laid out: rows added or removed
 * since its last layout (a body's joints shown, a row expanded) have no height yet. */
static KmAfterPaintStep
scroll_step (gpointer user_data)
{
  KmItemTree *self = user_data;
  GtkWidget *widget = GTK_WIDGET (self->list_view);
  guint position = self->document != NULL && self->scroll_joint >= 0
                   ? joint_position (self, self->scroll_joint) : GTK_INVALID_LIST_POSITION;
  graphene_rect_t bounds;
  KmListRowNear near;

  if (position == GTK_INVALID_LIST_POSITION)
    return KM_AFTER_PAINT_DONE;
  if (km_list_view_find_row (widget, position, km_list_row_tree_position, NULL, &bounds, &near))
    return km_list_view_show_bounds (widget, &bounds) ? KM_AFTER_PAINT_DONE : KM_AFTER_PAINT_AGAIN;
  km_list_view_bring_near (widget, position, &near);
  return KM_AFTER_PAINT_AGAIN;
}

static void
scroll_done (gpointer user_data)
{
  KmItemTree *self = user_data;

  self->scroll_joint = -1;
}

/* Brings the selected joint's row into view once the list has laid it out. */
static void
scroll_to_joint (KmItemTree *self)
{
  self->scroll_joint = self->document != NULL ? km_document_get_selected_joint (self->document)
                                              : -1;
  if (self->scroll_joint < 0)
    km_after_paint_cancel (&self->scroll);
  else
    km_after_paint_start (&self->scroll);
}

/* A joint selected elsewhere (the scene, the joint panel) is its body selected here. */
static void
document_selected_joint_cb (KmItemTree *self)
{
  KmItem *body = km_document_get_body_item (self->document);
  KmProject *project = km_document_get_project (self->document);

  if (self->syncing)
    return;
  if (km_document_get_selected_joint (self->document) >= 0 && body != NULL)
    {
      self->syncing = TRUE;
      km_project_select (project, body, FALSE);
      self->syncing = FALSE;
      expand_to_selected_joint (self);
    }
  sync_selection (self);
  scroll_to_joint (self);
}

/* Whether the project's selection holds an item, but none of @body or below it, while
 * @old is still in the project (not another project's body: one opened keeps its own
 * selection). */
static gboolean
selection_is_elsewhere (KmItemTree *self,
                        KmItem     *old,
                        KmItem     *body)
{
  KmProject *project = km_document_get_project (self->document);
  GListModel *selection = km_project_get_selection (project);
  guint n = g_list_model_get_n_items (selection);
  KmItem *top = old;

  while (km_item_get_parent (top) != NULL)
    top = km_item_get_parent (top);
  if (top != km_project_get_root_item (project))
    return FALSE;
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(KmItem) item = g_list_model_get_item (selection, i);

      for (KmItem *it = item; it != NULL; it = km_item_get_parent (it))
        if (it == body)
          return FALSE;
    }
  return n > 0;
}

/* The current body's joints under it, the previous body's gone. Another body shown (a
 * model opened, an undo) while the selection was on the one before (or its items) is the
 * one selected: the tree shows what the panels do, and a click on the body the tree
 * showed selected selects it again. */
static void
update_joint_rows (KmItemTree *self)
{
  KmItem *body = self->document ? km_document_get_body_item (self->document) : NULL;
  g_autoptr(KmItem) old = g_weak_ref_get (&self->joint_body);

  if (old != NULL && old != body)
    fill_joint_rows (old, NULL);
  if (old != NULL && body != NULL && old != body && selection_is_elsewhere (self, old, body))
    km_project_select (km_document_get_project (self->document), body, FALSE);
  if (body != NULL)
    fill_joint_rows (body, km_document_get_skeleton (self->document));
  g_weak_ref_set (&self->joint_body, body);
  if (body != NULL)
    expand_to_selected_joint (self);
  sync_selection (self);
  scroll_to_joint (self);
}

static void
project_selection_changed_cb (KmItemTree *self)
{
  sync_selection (self);
}

static void
watch_project (KmItemTree *self)
{
  KmProject *project = self->document ? km_document_get_project (self->document) : NULL;

  if (self->project == project)
    return;
  if (self->project != NULL)
    g_signal_handlers_disconnect_by_data (km_project_get_selection (self->project), self);
  g_set_object (&self->project, project);
  if (project != NULL)
    g_signal_connect_object (km_project_get_selection (project), "items-changed",
                             G_CALLBACK (project_selection_changed_cb), self, G_CONNECT_SWAPPED);
}

static void
selection_changed_cb (KmItemTree *self)
{
  g_autoptr(GPtrArray) items = NULL;
  KmProject *project;
  int joint;

  update_actions (self);
  if (self->document == NULL || self->syncing)
    return;

  items = selected_items (self);
  joint = selected_joint_row (self);
  project = km_document_get_project (self->document);
  self->syncing = TRUE;
  km_project_clear_selection (project);
  if (joint >= 0 && km_document_get_body_item (self->document) != NULL)
    km_project_select (project, km_document_get_body_item (self->document), TRUE);
  for (guint i = 0; i < items->len; i++)
    km_project_select (project, g_ptr_array_index (items, i), TRUE);
  if (joint < 0 && items->len == 1 && KM_IS_BODY_ITEM (g_ptr_array_index (items, 0)))
    km_document_set_current_body (self->document, g_ptr_array_index (items, 0));
  km_document_set_selected_joint (self->document, joint);
  self->syncing = FALSE;
}

/* The row (its GtkTreeExpander) under a point of the list view, or NULL. */
static GtkTreeExpander *
expander_at (KmItemTree *self,
             double      x,
             double      y,
             GtkWidget **picked)
{
  GtkWidget *widget = gtk_widget_pick (GTK_WIDGET (self->list_view), x, y,
                                       GTK_PICK_NON_TARGETABLE);

  if (picked != NULL)
    *picked = widget;
  for (; widget != NULL && widget != GTK_WIDGET (self->list_view);
       widget = gtk_widget_get_parent (widget))
    if (GTK_IS_TREE_EXPANDER (widget))
      return GTK_TREE_EXPANDER (widget);
  return NULL;
}

static KmItem *
expander_item (GtkTreeExpander *expander)
{
  GtkTreeListRow *row = gtk_tree_expander_get_list_row (expander);
  g_autoptr(KmItemRow) item_row = NULL;

  if (row == NULL)
    return NULL;
  item_row = gtk_tree_list_row_get_item (row);
  if (!KM_IS_ITEM_ROW (item_row) || km_item_row_get_joint (item_row) >= 0)
    return NULL;
  return km_item_row_get_item (item_row);
}

/* The row (its GtkTreeExpander) that has the keyboard focus, or NULL. */
static GtkTreeExpander *
focused_expander (KmItemTree *self)
{
  GtkWidget *list = GTK_WIDGET (self->list_view);
  GtkRoot *root = gtk_widget_get_root (list);
  GtkWidget *focus = root != NULL ? gtk_root_get_focus (root) : NULL;

  if (focus == NULL || !gtk_widget_is_ancestor (focus, list))
    return NULL;
  /* The focus is on the list's row widget, which holds the expander, or inside the row. */
  for (GtkWidget *w = focus; w != NULL && w != list; w = gtk_widget_get_parent (w))
    if (GTK_IS_TREE_EXPANDER (w))
      return GTK_TREE_EXPANDER (w);
  for (GtkWidget *w = focus; w != NULL; w = gtk_widget_get_first_child (w))
    if (GTK_IS_TREE_EXPANDER (w))
      return GTK_TREE_EXPANDER (w);
  return NULL;
}

static guint
position_of (KmItemTree *self,
             KmItem     *item)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->selection));

  for (guint i = 0; i < n; i++)
    if (item_at_position (self, i) == item)
      return i;
  return GTK_INVALID_LIST_POSITION;
}

/* The row widget showing @item, to point popovers at; NULL when it is scrolled away. */
static GtkWidget *
find_row_widget (GtkWidget *widget,
                 KmItem    *item)
{
  if (GTK_IS_TREE_EXPANDER (widget))
    return expander_item (GTK_TREE_EXPANDER (widget)) == item ? widget : NULL;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_row_widget (child, item);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The row widget showing @joint of the current body; NULL when it is scrolled away. */
static GtkWidget *
find_joint_row_widget (GtkWidget *widget,
                       int        joint)
{
  if (GTK_IS_TREE_EXPANDER (widget))
    {
      GtkTreeListRow *row = gtk_tree_expander_get_list_row (GTK_TREE_EXPANDER (widget));
      g_autoptr(KmItemRow) item_row = row != NULL ? gtk_tree_list_row_get_item (row) : NULL;

      return KM_IS_ITEM_ROW (item_row) && km_item_row_get_joint (item_row) == joint
             ? widget : NULL;
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_joint_row_widget (child, joint);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* Points @popover at @row (NULL: at @x, @y of the list view, or the tree's top edge when
 * @x is negative). */
static void
point_popover_at (KmItemTree *self,
                  GtkPopover *popover,
                  GtkWidget  *row,
                  double      x,
                  double      y)
{
  graphene_rect_t bounds;
  GdkRectangle rect = { (int) x, (int) y, 1, 1 };

  if (row != NULL && gtk_widget_compute_bounds (row, GTK_WIDGET (self), &bounds))
    rect = (GdkRectangle) { (int) bounds.origin.x, (int) bounds.origin.y,
                            (int) bounds.size.width, (int) bounds.size.height };
  else if (x < 0)
    rect = (GdkRectangle) { 0, 0, gtk_widget_get_width (GTK_WIDGET (self)), 1 };
  else if (!gtk_widget_translate_coordinates (GTK_WIDGET (self->list_view), GTK_WIDGET (self),
                                              x, y, &x, &y))
    x = y = 0;
  if (row == NULL && x >= 0)
    rect.x = (int) x, rect.y = (int) y;
  gtk_popover_set_pointing_to (popover, &rect);
}

/* Shows @reason under the rename entry, or hides it (%NULL). */
static void
show_rename_error (KmItemTree *self,
                   const char *reason)
{
  gtk_label_set_text (self->rename_error, reason != NULL ? reason : "");
  gtk_widget_set_visible (GTK_WIDGET (self->rename_error), reason != NULL);
}

static void
popup_rename (KmItemTree *self,
              const char *name,
              GtkWidget  *row)
{
  gtk_editable_set_text (GTK_EDITABLE (self->rename_entry), name);
  show_rename_error (self, NULL);
  point_popover_at (self, self->rename_popover, row, -1, -1);
  gtk_popover_popup (self->rename_popover);
  gtk_widget_grab_focus (GTK_WIDGET (self->rename_entry));
  gtk_editable_select_region (GTK_EDITABLE (self->rename_entry), 0, -1);
}

static void
start_rename (KmItemTree *self,
              KmItem     *item)
{
  g_set_object (&self->renaming, item);
  self->renaming_joint = -1;
  popup_rename (self, km_item_get_name (item),
                find_row_widget (GTK_WIDGET (self->list_view), item));
}

/* A joint's row renames the joint, as the Skeleton tab's Name field does. */
static void
start_joint_rename (KmItemTree *self,
                    int         joint)
{
  KmItem *body = self->document != NULL ? km_document_get_body_item (self->document) : NULL;
  KmSkeleton *skeleton = body != NULL ? km_document_get_skeleton (self->document) : NULL;

  if (skeleton == NULL || joint < 0 || (guint) joint >= km_skeleton_get_n_joints (skeleton))
    return;
  g_set_object (&self->renaming, body);
  self->renaming_joint = joint;
  popup_rename (self, km_skeleton_get_joint (skeleton, (guint) joint)->name,
                find_joint_row_widget (GTK_WIDGET (self->list_view), joint));
}

/* Renames the joint being renamed (one undoable step, Rename Joint); FALSE when the name is
 * refused (said under the entry and in Messages; the popover stays for another try). */
static gboolean
rename_joint (KmItemTree *self,
              const char *name)
{
  KmSkeleton *skeleton = km_document_get_skeleton (self->document);
  const char *old_name;
  g_autoptr(KmSkeleton) edited = NULL;
  g_autoptr(GError) error = NULL;

  /* The body or its skeleton changed meanwhile: that joint is no longer there to rename. */
  if (self->renaming != km_document_get_body_item (self->document) || skeleton == NULL
      || (guint) self->renaming_joint >= km_skeleton_get_n_joints (skeleton))
    return TRUE;
  old_name = km_skeleton_get_joint (skeleton, (guint) self->renaming_joint)->name;
  if (g_strcmp0 (old_name, name) == 0)
    return TRUE;
  edited = km_skeleton_edit_set_name (skeleton, (guint) self->renaming_joint, name, &error);
  if (edited == NULL)
    {
      km_document_log (self->document, G_LOG_LEVEL_WARNING,
                       /* Translators: a joint's name, then why it could not be renamed */
                       _("Could not rename joint “%s”: %s"), old_name, error->message);
      show_rename_error (self, error->message);
      return FALSE;
    }
  km_document_edit_skeleton (self->document, edited, _("Rename Joint"), name);
  return TRUE;
}

static void
rename_entry_activate_cb (KmItemTree *self)
{
  const char *name = gtk_editable_get_text (GTK_EDITABLE (self->rename_entry));

  g_assert (KM_IS_ITEM_TREE (self));

  if (self->renaming != NULL && self->document != NULL && *name != '\0')
    {
      if (self->renaming_joint < 0)
        km_document_rename_item (self->document, self->renaming, name);
      else if (!rename_joint (self, name))
        return;
    }
  g_clear_object (&self->renaming);
  self->renaming_joint = -1;
  gtk_popover_popdown (self->rename_popover);
}

/* The user types another name: the refused one is gone, and so is its reason. */
static void
rename_entry_changed_cb (KmItemTree *self)
{
  g_assert (KM_IS_ITEM_TREE (self));

  if (gtk_widget_get_visible (GTK_WIDGET (self->rename_error)))
    show_rename_error (self, NULL);
}

static void
rename_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  KmItemTree *self = KM_ITEM_TREE (widget);
  g_autoptr(GPtrArray) items = selected_items (self);

  if (items->len == 1)
    start_rename (self, g_ptr_array_index (items, 0));
  else if (items->len == 0)
    start_joint_rename (self, selected_joint_row (self));
}

/* The joint whose row is selected becomes the end effector of the body's IK targets. */
static void
use_as_effector_action (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *parameter)
{
  KmItemTree *self = KM_ITEM_TREE (widget);
  g_autoptr(GPtrArray) items = selected_items (self);

  if (items->len == 0 && self->document != NULL)
    km_document_set_effector (self->document, selected_joint_row (self));
}

static void
delete_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  KmItemTree *self = KM_ITEM_TREE (widget);
  g_autoptr(GPtrArray) items = selected_items (self);

  if (self->document != NULL && items->len > 0)
    km_document_remove_items (self->document, items);
}

static void
duplicate_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  KmItemTree *self = KM_ITEM_TREE (widget);
  g_autoptr(GPtrArray) items = selected_items (self);

  if (self->document != NULL && items->len > 0)
    km_document_duplicate_items (self->document, items);
}

/* A Reload in progress: the tree (whose set of items being read again it leaves) and the
 * item whose file is read. */
typedef struct
{
  KmItemTree *tree;
  KmItem     *item;
} ReloadRequest;

static void
reload_request_free (ReloadRequest *request)
{
  g_hash_table_remove (request->tree->reloading, request->item);
  g_object_unref (request->tree);
  g_object_unref (request->item);
  g_free (request);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ReloadRequest, reload_request_free)

/* Main thread: the file was read again (or not); the fresh item is swapped in as one
 * undoable step of the document's that read it. */
static void
reread_done_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(ReloadRequest) request = user_data;
  KmDocument *document = KM_DOCUMENT (source);
  KmItem *item = request->item;
  g_autoptr(GError) error = NULL;
  KmItem *fresh;
  ReloadEdit *edit;

  fresh = km_document_reread_item_finish (document, result, &error);
  if (fresh == NULL)
    {
      /* (gone meanwhile: deleted, or another project opened; nothing to say) */
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        km_document_log (document, G_LOG_LEVEL_WARNING,
                         /* Translators: an item's name, then why it could not be reloaded */
                         _("Could not reload “%s”: %s"), km_item_get_name (item),
                         error->message);
      return;
    }

  edit = g_new0 (ReloadEdit, 1);
  edit->document = document;
  edit->parent = g_object_ref (km_item_get_parent (item));
  edit->position = (guint) km_item_get_index (item);
  edit->old_item = g_object_ref (item);
  edit->new_item = fresh;
  km_project_push_command (km_document_get_project (document), _("Reload"),
                           reload_edit_redo, reload_edit_undo, NULL, NULL, edit,
                           reload_edit_free);
  km_project_close_merge (km_document_get_project (document));
  if (g_object_get_data (G_OBJECT (fresh), "km-embedded-model") != NULL)
    /* Its "skeleton.json" is no file: km_document_reread_item read the embedded model. */
    km_document_log (document, G_LOG_LEVEL_INFO,
                     _("Reloaded “%s” from the built-in example."), km_item_get_name (fresh));
  else
    {
      /* The file as every message shows one: ${SHARE} and the like expanded, escaped. */
      g_autofree char *shown = km_document_dup_shown_item_file (document, fresh);

      km_document_log (document, G_LOG_LEVEL_INFO, _("Reloaded “%s” from %s."),
                       km_item_get_name (fresh), shown);
    }
}

/* Reads the one selected item's file again (undoable, so nothing is lost by asking too
 * little); a file that cannot be read leaves the item as it is and says why. The file is
 * read on a worker thread (a model and its meshes, a whole sub-project): the item is
 * swapped once it is read. An item already being read again is left to that reload. */
static void
reload_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  KmItemTree *self = KM_ITEM_TREE (widget);
  g_autoptr(GPtrArray) items = selected_items (self);
  ReloadRequest *request;
  KmItem *item;

  if (self->document == NULL || items->len != 1)
    return;
  item = g_ptr_array_index (items, 0);
  if (km_item_get_parent (item) == NULL || km_item_get_file (item) == NULL
      || g_hash_table_contains (self->reloading, item))
    return;

  request = g_new0 (ReloadRequest, 1);
  request->tree = g_object_ref (self);
  request->item = g_object_ref (item);
  g_hash_table_add (self->reloading, g_object_ref (item));
  km_document_reread_item_async (self->document, item, NULL, reread_done_cb, request);
}

/**
 * km_item_tree_get_reloading:
 *
 * Returns: whether a Reload of the tree's is reading a file
 */
gboolean
km_item_tree_get_reloading (KmItemTree *self)
{
  g_return_val_if_fail (KM_IS_ITEM_TREE (self), FALSE);

  return g_hash_table_size (self->reloading) > 0;
}

static void
check_action (GtkWidget  *widget,
              const char *action_name,
              GVariant   *parameter)
{
  KmItemTree *self = KM_ITEM_TREE (widget);
  g_autoptr(GPtrArray) items = selected_items (self);
  gboolean checked = g_str_equal (action_name, "tree.check");

  for (guint i = 0; self->document != NULL && i < items->len; i++)
    km_document_check_item (self->document, g_ptr_array_index (items, i), checked);
  update_actions (self);
}

/* Check boxes toggle (undoably) on a click; a double click renames. */
static void
click_pressed_cb (KmItemTree      *self,
                  int              n_press,
                  double           x,
                  double           y,
                  GtkGestureClick *gesture)
{
  GtkWidget *picked = NULL;
  GtkTreeExpander *expander = expander_at (self, x, y, &picked);
  KmItem *item = expander ? expander_item (expander) : NULL;

  if (item == NULL || self->document == NULL)
    return;

  for (GtkWidget *w = picked; w != NULL && w != GTK_WIDGET (expander); w = gtk_widget_get_parent (w))
    if (GTK_IS_CHECK_BUTTON (w))
      {
        km_document_check_item (self->document, item, !km_item_get_checked (item));
        gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
        return;
      }

  if (n_press == 2)
    {
      gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
      start_rename (self, item);
    }
}

/* The rows' tooltips: asked for by GTK as the pointer rests on a row (or with the
 * keyboard, on the focused row), and built then (km_item_row_get_tooltip), not for every
 * row made: setting a widget's tooltip text asks the display where the pointer is. */
static gboolean
query_tooltip_cb (KmItemTree *self,
                  int         x,
                  int         y,
                  gboolean    keyboard_mode,
                  GtkTooltip *tooltip,
                  GtkWidget  *list_view)
{
  GtkTreeExpander *expander = NULL;
  GtkTreeListRow *row;
  g_autoptr(KmItemRow) item_row = NULL;
  const char *text;
  graphene_rect_t bounds;

  if (keyboard_mode)
    expander = focused_expander (self);
  else
    expander = expander_at (self, x, y, NULL);
  row = expander != NULL ? gtk_tree_expander_get_list_row (expander) : NULL;
  if (row != NULL)
    item_row = gtk_tree_list_row_get_item (row);
  text = KM_IS_ITEM_ROW (item_row) ? km_item_row_get_tooltip (item_row) : NULL;
  if (text == NULL)
    return FALSE;
  gtk_tooltip_set_text (tooltip, text);
  if (gtk_widget_compute_bounds (GTK_WIDGET (expander), list_view, &bounds))
    gtk_tooltip_set_tip_area (tooltip, &(GdkRectangle) { (int) bounds.origin.x,
                                                         (int) bounds.origin.y,
                                                         (int) bounds.size.width,
                                                         (int) bounds.size.height });
  return TRUE;
}

/* No row tooltips while the context menu shows (one shown by the hover before the click
 * would stay on top of the menu); back once it closes. */
static void
mute_row_tooltips (KmItemTree *self,
                   gboolean    muted)
{
  gtk_widget_set_has_tooltip (GTK_WIDGET (self->list_view), !muted);
}

/* Opens the context menu of @expander's row (selected alone unless it is selected already),
 * pointing at @x, @y of the list view, or at the row itself where @x is negative; FALSE
 * when the row is no item's or joint's. */
static gboolean
popup_context_menu (KmItemTree      *self,
                    GtkTreeExpander *expander,
                    double           x,
                    double           y)
{
  KmItem *item = expander ? expander_item (expander) : NULL;
  GtkTreeListRow *row = expander ? gtk_tree_expander_get_list_row (expander) : NULL;
  guint position;

  if (item != NULL)
    position = position_of (self, item);
  else if (row != NULL)
    /* A joint's row: its joint alone is selected, as a click selects it. */
    position = gtk_tree_list_row_get_position (row);
  else
    return FALSE;
  if (position != GTK_INVALID_LIST_POSITION
      && !gtk_selection_model_is_selected (GTK_SELECTION_MODEL (self->selection), position))
    gtk_selection_model_select_item (GTK_SELECTION_MODEL (self->selection), position, TRUE);
  gtk_popover_menu_set_menu_model (GTK_POPOVER_MENU (self->context_menu),
                                   item != NULL ? self->item_menu : self->joint_menu);
  mute_row_tooltips (self, TRUE);
  point_popover_at (self, self->context_menu, x < 0 ? GTK_WIDGET (expander) : NULL, x, y);
  gtk_popover_popup (self->context_menu);
  return TRUE;
}

static void
context_pressed_cb (KmItemTree      *self,
                    int              n_press,
                    double           x,
                    double           y,
                    GtkGestureClick *gesture)
{
  if (popup_context_menu (self, expander_at (self, x, y, NULL), x, y))
    gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
}

/* Shift+F10 and the Menu key on a row: its context menu, as a right-click on it gives. */
static gboolean
popup_menu_key_cb (GtkWidget *widget,
                   GVariant  *args,
                   gpointer   user_data)
{
  KmItemTree *self = KM_ITEM_TREE (widget);
  GtkTreeExpander *expander = focused_expander (self);

  if (expander == NULL)
    return FALSE;
  self->menu_from_keys = TRUE;
  if (popup_context_menu (self, expander, -1, -1))
    return TRUE;
  self->menu_from_keys = FALSE;
  return FALSE;
}

static void
context_menu_closed_cb (KmItemTree *self)
{
  GtkWidget *menu = GTK_WIDGET (self->context_menu);
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkWidget *focus = root != NULL ? gtk_root_get_focus (root) : NULL;

  mute_row_tooltips (self, FALSE);
  /* Opened from the keyboard: the focus goes back to the list's focused row (its
   * grab_focus), unless an entry chosen took it (Rename…'s). */
  if (self->menu_from_keys
      && (focus == NULL || focus == menu || gtk_widget_is_ancestor (focus, menu)))
    gtk_widget_grab_focus (GTK_WIDGET (self->list_view));
  self->menu_from_keys = FALSE;
}

static GdkContentProvider *
drag_prepare_cb (KmItemTree    *self,
                 double         x,
                 double         y,
                 GtkDragSource *source)
{
  GtkTreeExpander *expander = expander_at (self, x, y, NULL);
  KmItem *item = expander ? expander_item (expander) : NULL;

  if (item == NULL || km_item_get_parent (item) == NULL)
    return NULL;
  return gdk_content_provider_new_typed (KM_TYPE_ITEM, item);
}

/* Where a drop at (@x, @y) puts an item: before the row's item (top quarter), after it
 * (bottom quarter), or into it as its last child. */
static gboolean
drop_place (KmItemTree  *self,
            double       x,
            double       y,
            KmItem     **parent,
            guint       *position)
{
  GtkTreeExpander *expander = expander_at (self, x, y, NULL);
  KmItem *target = expander ? expander_item (expander) : NULL;
  graphene_rect_t bounds;
  double fraction = 0.5;

  if (target == NULL)
    return FALSE;
  if (gtk_widget_compute_bounds (GTK_WIDGET (expander), GTK_WIDGET (self->list_view), &bounds)
      && bounds.size.height > 0)
    fraction = (y - bounds.origin.y) / bounds.size.height;

  if ((fraction < 0.25 || fraction > 0.75) && km_item_get_parent (target) != NULL)
    {
      *parent = km_item_get_parent (target);
      *position = (guint) km_item_get_index (target) + (fraction > 0.75 ? 1 : 0);
    }
  else
    {
      *parent = target;
      *position = km_item_get_n_children (target);
    }
  return TRUE;
}

static KmItem *
dragged_item (GtkDropTarget *target)
{
  const GValue *value = gtk_drop_target_get_value (target);

  return value != NULL && G_VALUE_HOLDS (value, KM_TYPE_ITEM) ? g_value_get_object (value) : NULL;
}

static GdkDragAction
drop_motion_cb (KmItemTree    *self,
                double         x,
                double         y,
                GtkDropTarget *target)
{
  KmItem *item = dragged_item (target);
  KmItem *parent = NULL;
  guint position;

  if (item == NULL || !drop_place (self, x, y, &parent, &position)
      || !km_document_item_accepts (parent, item))
    return 0;
  return GDK_ACTION_MOVE;
}

static gboolean
drop_cb (KmItemTree    *self,
         const GValue  *value,
         double         x,
         double         y,
         GtkDropTarget *target)
{
  KmItem *item = G_VALUE_HOLDS (value, KM_TYPE_ITEM) ? g_value_get_object (value) : NULL;
  KmItem *parent = NULL;
  guint position;

  if (item == NULL || self->document == NULL || !drop_place (self, x, y, &parent, &position))
    return FALSE;
  return km_document_move_item (self->document, item, parent, position);
}

/* Tab and Shift+Tab on a row leave the tree (see the top): the window's focus chain moves on
 * as if the list could take no focus. */
static gboolean
tree_key_pressed_cb (GtkEventControllerKey *controller,
                     guint                  keyval,
                     guint                  keycode,
                     GdkModifierType        state,
                     KmItemTree            *self)
{
  GtkWidget *list = GTK_WIDGET (self->list_view);
  GtkRoot *root = gtk_widget_get_root (list);
  GtkWidget *focus = root != NULL ? gtk_root_get_focus (root) : NULL;
  gboolean backward, moved;

  if (keyval != GDK_KEY_Tab && keyval != GDK_KEY_KP_Tab && keyval != GDK_KEY_ISO_Left_Tab)
    return GDK_EVENT_PROPAGATE;
  if ((state & (GDK_CONTROL_MASK | GDK_ALT_MASK | GDK_SUPER_MASK)) != 0 || focus == NULL
      || !gtk_widget_is_ancestor (focus, list)
      || gtk_widget_get_native (focus) != gtk_widget_get_native (list))
    return GDK_EVENT_PROPAGATE;
  backward = keyval == GDK_KEY_ISO_Left_Tab || (state & GDK_SHIFT_MASK) != 0;
  gtk_widget_set_can_focus (list, FALSE);
  moved = gtk_widget_child_focus (GTK_WIDGET (root),
                                  backward ? GTK_DIR_TAB_BACKWARD : GTK_DIR_TAB_FORWARD);
  gtk_widget_set_can_focus (list, TRUE);
  return moved ? GDK_EVENT_STOP : GDK_EVENT_PROPAGATE;
}

static void
km_item_tree_size_allocate (GtkWidget *widget,
                            int        width,
                            int        height,
                            int        baseline)
{
  KmItemTree *self = KM_ITEM_TREE (widget);

  GTK_WIDGET_CLASS (km_item_tree_parent_class)->size_allocate (widget, width, height, baseline);
  if (gtk_widget_get_visible (GTK_WIDGET (self->rename_popover)))
    gtk_popover_present (self->rename_popover);
  if (gtk_widget_get_visible (GTK_WIDGET (self->context_menu)))
    gtk_popover_present (self->context_menu);
}

static void
km_item_tree_dispose (GObject *object)
{
  KmItemTree *self = (KmItemTree *) object;
  GtkWidget *child;

  if (self->document_signals != NULL)
    g_signal_group_set_target (self->document_signals, NULL);
  g_clear_object (&self->document_signals);
  g_clear_handle_id (&self->sync_idle, g_source_remove);
  km_after_paint_clear (&self->scroll);
  {
    /* Joint rows hold their body: let go of them, or the body would hold itself. */
    g_autoptr(KmItem) body = g_weak_ref_get (&self->joint_body);

    if (body != NULL)
      fill_joint_rows (body, NULL);
    g_weak_ref_set (&self->joint_body, NULL);
  }
  if (self->project != NULL)
    g_signal_handlers_disconnect_by_data (km_project_get_selection (self->project), self);
  g_clear_object (&self->project);
  g_clear_object (&self->document);
  g_clear_object (&self->renaming);
  g_weak_ref_clear (&self->joint_body);
  g_clear_pointer (&self->open_skeleton, km_skeleton_unref);
  g_clear_pointer (&self->open_joints, g_free);
  gtk_widget_dispose_template (GTK_WIDGET (self), KM_TYPE_ITEM_TREE);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  g_clear_object (&self->selection);

  G_OBJECT_CLASS (km_item_tree_parent_class)->dispose (object);
}

static void
km_item_tree_finalize (GObject *object)
{
  KmItemTree *self = (KmItemTree *) object;

  /* (empty: each reload in progress holds the tree) */
  g_clear_pointer (&self->reloading, g_hash_table_unref);

  G_OBJECT_CLASS (km_item_tree_parent_class)->finalize (object);
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
  object_class->finalize = km_item_tree_finalize;
  object_class->get_property = km_item_tree_get_property;
  object_class->set_property = km_item_tree_set_property;
  widget_class->size_allocate = km_item_tree_size_allocate;

  properties[PROP_DOCUMENT] =
    g_param_spec_object ("document", NULL, NULL, KM_TYPE_DOCUMENT,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/kinema/Kinema/ui/km-item-tree.ui");
  gtk_widget_class_bind_template_child (widget_class, KmItemTree, context_menu);
  gtk_widget_class_bind_template_child (widget_class, KmItemTree, item_menu);
  gtk_widget_class_bind_template_child (widget_class, KmItemTree, joint_menu);
  gtk_widget_class_bind_template_child (widget_class, KmItemTree, list_view);
  gtk_widget_class_bind_template_child (widget_class, KmItemTree, rename_entry);
  gtk_widget_class_bind_template_child (widget_class, KmItemTree, rename_popover);
  gtk_widget_class_bind_template_child (widget_class, KmItemTree, rename_error);
  gtk_widget_class_bind_template_callback (widget_class, rename_entry_activate_cb);
  gtk_widget_class_bind_template_callback (widget_class, rename_entry_changed_cb);

  gtk_widget_class_install_action (widget_class, "tree.rename", NULL, rename_action);
  gtk_widget_class_install_action (widget_class, "tree.delete", NULL, delete_action);
  gtk_widget_class_install_action (widget_class, "tree.duplicate", NULL, duplicate_action);
  gtk_widget_class_install_action (widget_class, "tree.check", NULL, check_action);
  gtk_widget_class_install_action (widget_class, "tree.uncheck", NULL, check_action);
  gtk_widget_class_install_action (widget_class, "tree.reload", NULL, reload_action);
  gtk_widget_class_install_action (widget_class, "tree.use-as-effector", NULL,
                                   use_as_effector_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_F2, 0, "tree.rename", NULL);
  /* The last binding of an action is the one its menu entry shows. */
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Delete, 0, "tree.delete", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Delete, 0, "tree.delete", NULL);
  gtk_widget_class_add_binding (widget_class, GDK_KEY_F10, GDK_SHIFT_MASK, popup_menu_key_cb,
                                NULL);
  gtk_widget_class_add_binding (widget_class, GDK_KEY_Menu, 0, popup_menu_key_cb, NULL);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "itemtree");

  g_type_ensure (KM_TYPE_ITEM_ROW);
}

static void
km_item_tree_init (KmItemTree *self)
{
  GtkGesture *click;
  GtkDragSource *drag;
  GtkDropTarget *drop;
  GtkEventController *keys;

  self->reloading = g_hash_table_new_full (NULL, NULL, g_object_unref, NULL);

  gtk_widget_init_template (GTK_WIDGET (self));

  self->renaming_joint = -1;
  self->scroll_joint = -1;
  g_weak_ref_init (&self->joint_body, NULL);
  gtk_widget_set_has_tooltip (GTK_WIDGET (self->list_view), TRUE);
  g_signal_connect_object (self->list_view, "query-tooltip", G_CALLBACK (query_tooltip_cb),
                           self, G_CONNECT_SWAPPED);
  self->selection = gtk_multi_selection_new (NULL);
  g_signal_connect_object (self->selection, "selection-changed",
                           G_CALLBACK (selection_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->selection, "items-changed",
                           G_CALLBACK (update_actions), self, G_CONNECT_SWAPPED);
  gtk_list_view_set_model (self->list_view, GTK_SELECTION_MODEL (self->selection));
  km_after_paint_init (&self->scroll, GTK_WIDGET (self->list_view), SCROLL_MAX_FRAMES,
                       scroll_step, scroll_done, self);

  /* Bubbling up from the focused row: the rename popover's entry is not in the list. */
  keys = gtk_event_controller_key_new ();
  g_signal_connect_object (keys, "key-pressed", G_CALLBACK (tree_key_pressed_cb), self, 0);
  gtk_widget_add_controller (GTK_WIDGET (self->list_view), keys);

  click = gtk_gesture_click_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (click), GDK_BUTTON_PRIMARY);
  gtk_event_controller_set_propagation_phase (GTK_EVENT_CONTROLLER (click), GTK_PHASE_CAPTURE);
  g_signal_connect_object (click, "pressed", G_CALLBACK (click_pressed_cb), self,
                           G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self->list_view), GTK_EVENT_CONTROLLER (click));

  g_signal_connect_object (self->context_menu, "closed", G_CALLBACK (context_menu_closed_cb),
                           self, G_CONNECT_SWAPPED);
  /* (an undo may have checked or unchecked an item since the selection changed) */
  g_signal_connect_object (self->context_menu, "show", G_CALLBACK (update_actions), self,
                           G_CONNECT_SWAPPED);
  click = gtk_gesture_click_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (click), GDK_BUTTON_SECONDARY);
  g_signal_connect_object (click, "pressed", G_CALLBACK (context_pressed_cb), self,
                           G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self->list_view), GTK_EVENT_CONTROLLER (click));

  drag = gtk_drag_source_new ();
  gtk_drag_source_set_actions (drag, GDK_ACTION_MOVE);
  g_signal_connect_object (drag, "prepare", G_CALLBACK (drag_prepare_cb), self,
                           G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self->list_view), GTK_EVENT_CONTROLLER (drag));

  drop = gtk_drop_target_new (KM_TYPE_ITEM, GDK_ACTION_MOVE);
  gtk_drop_target_set_preload (drop, TRUE);
  g_signal_connect_object (drop, "motion", G_CALLBACK (drop_motion_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (drop, "drop", G_CALLBACK (drop_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self->list_view), GTK_EVENT_CONTROLLER (drop));

  self->document_signals = g_signal_group_new (KM_TYPE_DOCUMENT);
  g_signal_group_connect_swapped (self->document_signals, "notify::project",
                                  G_CALLBACK (project_changed_cb), self);
  g_signal_group_connect_swapped (self->document_signals, "notify::skeleton",
                                  G_CALLBACK (update_joint_rows), self);
  g_signal_group_connect_swapped (self->document_signals, "notify::selected-joint",
                                  G_CALLBACK (document_selected_joint_cb), self);
  rebuild (self);
  update_actions (self);
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
  project_changed_cb (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DOCUMENT]);
}

/* The tree's rows (GtkTreeListRow of KmItemRow) and their selection, e.g. for tests. */
GtkSelectionModel *
km_item_tree_get_selection_model (KmItemTree *self)
{
  g_return_val_if_fail (KM_IS_ITEM_TREE (self), NULL);

  return GTK_SELECTION_MODEL (self->selection);
}

/* The entry of the rename popover (shown by the tree.rename action), e.g. for tests. */
GtkEditable *
km_item_tree_get_rename_entry (KmItemTree *self)
{
  g_return_val_if_fail (KM_IS_ITEM_TREE (self), NULL);

  return GTK_EDITABLE (self->rename_entry);
}
