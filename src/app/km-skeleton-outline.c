/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-skeleton-outline"

#include "config.h"

#include <glib/gi18n.h>

#include "km-skeleton-outline.h"

#include "km-document-skeleton.h"
#include "km-list-scroll.h"
#include "km-skeleton-edit.h"

/*
 * The joint hierarchy of the document's body: a GtkTreeListModel whose items are
 * GtkStringObjects holding joint names (names are unique and survive every edit, indices
 * do not). Selecting a row selects the joint in the document; dropping a row on another
 * makes that joint its parent. The context menu names the inspector's skeleton.* actions.
 * The selected joint's row is scrolled into view, whoever selected it (a joint just added,
 * a click in the scene). A deep hierarchy makes the list wider than its pane: it scrolls
 * sideways (names are never cut), and the selected row's name is brought into view that
 * way too.
 *
 * A small hierarchy opens fully expanded; a large one (thousands of joints) opens with its
 * first levels expanded, as many as fit in KM_JOINT_TREE_ROWS rows, and the path to the
 * selected joint (km_joint_tree_expansion): rows expanded by the thousand would keep the
 * window from drawing. Rows keep what the user expanded or collapsed (or a selection
 * expanded to show its joint) across edits of the body; only that is remembered, not what
 * the outline chose itself, and it is forgotten when another body is shown (another item,
 * a file opened again), which opens as if new: remembered rows of a body that had other
 * joints of the same names would open that one past KM_JOINT_TREE_ROWS. The
 * rows' tooltips (the whole name) are built when GTK asks for one (query-tooltip): setting a
 * widget's tooltip text asks the display where the pointer is, for every row made.
 */

struct _KmSkeletonOutline
{
  GtkWidget           parent_instance;

  /* Template widgets */
  GtkListView        *list_view;
  GtkSingleSelection *selection;
  GtkPopoverMenu     *context_menu;

  /* Owned */
  KmDocument         *document;
  GSignalGroup       *document_signals;
  KmSkeleton         *skeleton;
  guint               scroll_tick;   /* tick callback bringing the selected row into view */
  guint               scroll_frames; /* frames it has waited */
  GHashTable         *expanded;      /* joint names: TRUE expanded, FALSE collapsed, by
                                      * the user (or show_joint), for body */
  KmItem             *body;          /* weak: the body item self->expanded is about */
  gboolean           *opened;        /* what expand_rows() chose, per joint of skeleton */

  gboolean            updating;
};

enum {
  PROP_0,
  PROP_DOCUMENT,
  N_PROPS
};

G_DEFINE_FINAL_TYPE (KmSkeletonOutline, km_skeleton_outline, GTK_TYPE_WIDGET)

static GParamSpec *properties[N_PROPS];

static GListModel *
create_children_cb (gpointer item,
                    gpointer user_data)
{
  KmSkeletonOutline *self = user_data;
  const char *name = gtk_string_object_get_string (GTK_STRING_OBJECT (item));
  GtkStringList *children;
  int joint;

  if (self->skeleton == NULL || (joint = km_skeleton_find_joint (self->skeleton, name)) < 0)
    return NULL;

  children = gtk_string_list_new (NULL);
  for (guint i = (guint) joint + 1; i < km_skeleton_get_joint (self->skeleton, joint)->subtree_end;
       i++)
    if (km_skeleton_get_joint (self->skeleton, i)->parent == joint)
      gtk_string_list_append (children, km_skeleton_get_joint (self->skeleton, i)->name);
  if (g_list_model_get_n_items (G_LIST_MODEL (children)) == 0)
    g_clear_object (&children);
  return G_LIST_MODEL (children);
}

/**
 * km_joint_tree_expansion:
 * @skeleton: the joints
 * @selected: a joint to show, or -1
 *
 * Which joints a tree of @skeleton's joints opens expanded: the roots, then level by level
 * (breadth first) every joint whose children still fit in KM_JOINT_TREE_ROWS rows shown,
 * and the ancestors of @selected. All of them for a skeleton of KM_JOINT_TREE_ROWS joints
 * or fewer.
 *
 * Returns: (transfer full): one flag per joint, TRUE for expanded
 */
gboolean *
km_joint_tree_expansion (const KmSkeleton *skeleton,
                         int               selected)
{
  guint n = km_skeleton_get_n_joints (skeleton);
  gboolean *expand = g_new0 (gboolean, n + 1);
  g_autofree guint *first = g_new0 (guint, n + 2);   /* children of j: kids[first[j]..first[j + 1]) */
  g_autofree guint *fill = g_new0 (guint, n + 1);
  g_autofree guint *kids = g_new0 (guint, n + 1);
  g_autofree guint *queue = g_new0 (guint, n + 1);
  guint head = 0, tail = 0, rows;

  /* The roots' children are counted under index n. */
  for (guint i = 0; i < n; i++)
    {
      int parent = km_skeleton_get_joint (skeleton, i)->parent;

      first[(parent >= 0 ? (guint) parent : n) + 1]++;
    }
  for (guint j = 0; j <= n; j++)
    first[j + 1] += first[j];
  for (guint i = 0; i < n; i++)
    {
      int parent = km_skeleton_get_joint (skeleton, i)->parent;
      guint p = parent >= 0 ? (guint) parent : n;

      kids[first[p] + fill[p]++] = i;
    }

  rows = first[n + 1] - first[n];
  for (guint k = first[n]; k < first[n + 1]; k++)
    queue[tail++] = kids[k];
  while (head < tail)
    {
      guint j = queue[head++];
      guint n_kids = first[j + 1] - first[j];

      if (n_kids == 0)
        continue;
      /* The roots are always open; below them, level by level while the rows fit. */
      if (km_skeleton_get_joint (skeleton, j)->parent >= 0 && rows + n_kids > KM_JOINT_TREE_ROWS)
        break;
      expand[j] = TRUE;
      rows += n_kids;
      for (guint k = first[j]; k < first[j + 1]; k++)
        queue[tail++] = kids[k];
    }
  if (selected >= 0 && (guint) selected < n)
    for (int j = km_skeleton_get_joint (skeleton, (guint) selected)->parent; j >= 0;
         j = km_skeleton_get_joint (skeleton, (guint) j)->parent)
      expand[j] = TRUE;
  return expand;
}

static const char *
name_at (KmSkeletonOutline *self,
         guint              position)
{
  g_autoptr(GtkTreeListRow) row = g_list_model_get_item (G_LIST_MODEL (self->selection), position);
  g_autoptr(GObject) item = row ? gtk_tree_list_row_get_item (row) : NULL;

  /* The string lives as long as the model holds the object. */
  return GTK_IS_STRING_OBJECT (item) ? gtk_string_object_get_string (GTK_STRING_OBJECT (item))
                                     : NULL;
}

#if !GTK_CHECK_VERSION (4, 12, 0)
/* Frames to wait for the selected row to be laid out before giving up scrolling to it. */
#define SCROLL_MAX_FRAMES 30

/* Scrolls the list sideways just enough to show the name in the row widget @child, with
 * its expander arrow: all the row from its start where that fits in the pane, else from the
 * arrow (a deep row's indent goes out of view). */
static void
show_name (KmSkeletonOutline *self,
           GtkWidget         *child)
{
  GtkAdjustment *adjustment = gtk_scrollable_get_hadjustment (GTK_SCROLLABLE (self->list_view));
  GtkWidget *expander = gtk_widget_get_first_child (child);
  GtkWidget *name = GTK_IS_TREE_EXPANDER (expander)
                    ? gtk_tree_expander_get_child (GTK_TREE_EXPANDER (expander)) : NULL;
  GtkWidget *arrow = name != NULL ? gtk_widget_get_prev_sibling (name) : NULL;
  double value = gtk_adjustment_get_value (adjustment);
  graphene_rect_t bounds;
  double start, end;
  int natural = 0;

  if (name == NULL || !gtk_widget_compute_bounds (name, GTK_WIDGET (self->list_view), &bounds))
    return;
  /* The label fills the row: only its text needs to be shown. */
  gtk_widget_measure (name, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &natural, NULL, NULL);
  /* In the list's coordinates, whose left is the adjustment's value. */
  start = value + bounds.origin.x;
  end = start + MIN (bounds.size.width, natural);
  if (arrow != NULL && gtk_widget_compute_bounds (arrow, GTK_WIDGET (self->list_view), &bounds))
    start = MIN (start, value + bounds.origin.x);
  if (end <= gtk_adjustment_get_lower (adjustment) + gtk_adjustment_get_page_size (adjustment))
    start = gtk_adjustment_get_lower (adjustment);
  gtk_adjustment_clamp_page (adjustment, start, end);
}

/* GTK 4.8 has no gtk_list_view_scroll_to: once the list is laid out, moves its vertical
 * adjustment just enough to show the selected row whole. A row the list has not made yet
 * (far from the visible part) is first brought near from the height of the rows it has
 * (the rows are alike), then shown exactly a frame later. */
static gboolean
scroll_tick_cb (GtkWidget     *widget,
                GdkFrameClock *clock,
                gpointer       user_data)
{
  KmSkeletonOutline *self = user_data;
  guint position = gtk_single_selection_get_selected (self->selection);
  graphene_rect_t bounds;
  KmListRowNear near;
  GtkWidget *row;

  if (position == GTK_INVALID_LIST_POSITION || ++self->scroll_frames > SCROLL_MAX_FRAMES)
    goto done;
  row = km_list_view_find_row (widget, position, km_list_row_tree_position, NULL, &bounds, &near);
  if (row != NULL)
    {
      km_list_view_show_bounds (widget, &bounds);
      show_name (self, row);
      goto done;
    }
  /* Not laid out: brought near, shown exactly on a later frame. */
  km_list_view_bring_near (widget, position, &near);
  return G_SOURCE_CONTINUE;

done:
  self->scroll_tick = 0;
  return G_SOURCE_REMOVE;
}
#endif

static void
scroll_to_selected (KmSkeletonOutline *self)
{
  guint position = gtk_single_selection_get_selected (self->selection);

  if (position == GTK_INVALID_LIST_POSITION)
    return;
#if GTK_CHECK_VERSION (4, 12, 0)
  gtk_list_view_scroll_to (self->list_view, position, GTK_LIST_SCROLL_NONE, NULL);
#else
  self->scroll_frames = 0;
  if (self->scroll_tick == 0)
    self->scroll_tick = gtk_widget_add_tick_callback (GTK_WIDGET (self->list_view),
                                                      scroll_tick_cb, self, NULL);
#endif
}

/* The position of @name's row at @from or after it, or GTK_INVALID_LIST_POSITION. */
static guint
find_row (KmSkeletonOutline *self,
          const char        *name,
          guint              from)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->selection));

  for (guint i = from; i < n; i++)
    if (g_strcmp0 (name_at (self, i), name) == 0)
      return i;
  return GTK_INVALID_LIST_POSITION;
}

/* Expands the rows above @joint's (its ancestors, from the root down), so that it has a
 * row; returns that row's position, or GTK_INVALID_LIST_POSITION. A joint's row comes
 * after its parent's: each is looked for from there. */
static guint
show_joint (KmSkeletonOutline *self,
            guint              joint)
{
  g_autoptr(GArray) path = g_array_new (FALSE, FALSE, sizeof (guint));
  guint position = 0;

  for (int j = (int) joint; j >= 0; j = km_skeleton_get_joint (self->skeleton, (guint) j)->parent)
    g_array_prepend_val (path, j);
  for (guint i = 0; i < path->len; i++)
    {
      guint at = g_array_index (path, guint, i);
      const char *name = km_skeleton_get_joint (self->skeleton, at)->name;

      position = find_row (self, name, position);
      if (position == GTK_INVALID_LIST_POSITION)
        return position;
      if (i + 1 < path->len)
        {
          g_autoptr(GtkTreeListRow) row = g_list_model_get_item (G_LIST_MODEL (self->selection),
                                                                  position);

          if (!gtk_tree_list_row_get_expanded (row))
            {
              g_hash_table_insert (self->expanded, g_strdup (name), GINT_TO_POINTER (TRUE));
              gtk_tree_list_row_set_expanded (row, TRUE);
            }
        }
    }
  return position;
}

static void
select_document_joint (KmSkeletonOutline *self)
{
  int joint = self->document ? km_document_get_selected_joint (self->document) : -1;
  guint position = GTK_INVALID_LIST_POSITION;

  if (joint >= 0 && self->skeleton != NULL
      && (guint) joint < km_skeleton_get_n_joints (self->skeleton))
    {
      self->updating = TRUE;
      position = show_joint (self, (guint) joint);
      self->updating = FALSE;
    }
  self->updating = TRUE;
  gtk_single_selection_set_selected (self->selection, position);
  self->updating = FALSE;
  scroll_to_selected (self);
}

/* Adds to self->expanded, by joint name, the rows shown that the user expanded or
 * collapsed: those remembered already, and those not as expand_rows() left them
 * (self->opened). What the outline chose itself is not remembered: it chooses again. */
static void
remember_expansion (KmSkeletonOutline *self)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->selection));

  if (self->skeleton == NULL || self->opened == NULL)
    return;
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GtkTreeListRow) row = g_list_model_get_item (G_LIST_MODEL (self->selection), i);
      g_autoptr(GObject) item = gtk_tree_list_row_get_item (row);
      gboolean expanded = gtk_tree_list_row_get_expanded (row);
      const char *name;
      int joint;

      if (!GTK_IS_STRING_OBJECT (item) || (!expanded && !gtk_tree_list_row_is_expandable (row)))
        continue;
      name = gtk_string_object_get_string (GTK_STRING_OBJECT (item));
      joint = km_skeleton_find_joint (self->skeleton, name);
      if (g_hash_table_contains (self->expanded, name)
          || (joint >= 0 && expanded != self->opened[joint]))
        g_hash_table_insert (self->expanded, g_strdup (name), GINT_TO_POINTER (expanded));
    }
}

/* Expands @tree's rows (not shown yet) as they were (self->expanded), the others that
 * km_joint_tree_expansion() opens. A row expanded brings its children's rows right after
 * it, which are seen to in turn. */
static void
expand_rows (KmSkeletonOutline *self,
             GtkTreeListModel  *tree)
{
  int selected = self->document ? km_document_get_selected_joint (self->document) : -1;
  g_autofree gboolean *opened = NULL;

  if (self->skeleton == NULL)
    return;
  opened = km_joint_tree_expansion (self->skeleton, selected);
  g_free (self->opened);
  self->opened = g_memdup2 (opened, km_skeleton_get_n_joints (self->skeleton) * sizeof *opened);
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (tree)); i++)
    {
      g_autoptr(GtkTreeListRow) row = gtk_tree_list_model_get_row (tree, i);
      g_autoptr(GObject) item = gtk_tree_list_row_get_item (row);
      const char *name = gtk_string_object_get_string (GTK_STRING_OBJECT (item));
      int joint = km_skeleton_find_joint (self->skeleton, name);
      gpointer was;

      if (joint < 0)
        continue;
      if (g_hash_table_lookup_extended (self->expanded, name, NULL, &was))
        gtk_tree_list_row_set_expanded (row, GPOINTER_TO_INT (was));
      else
        gtk_tree_list_row_set_expanded (row, opened[joint]);
    }
}

static void
rebuild (KmSkeletonOutline *self)
{
  KmSkeleton *skeleton = self->document ? km_document_get_skeleton (self->document) : NULL;
  g_autoptr(GtkStringList) roots = gtk_string_list_new (NULL);
  KmItem *body = self->document ? km_document_get_body_item (self->document) : NULL;
  GtkTreeListModel *tree;

  /* Another body (or none): what was expanded in the one shown is forgotten. */
  if (body != self->body || body == NULL)
    {
      g_hash_table_remove_all (self->expanded);
      g_set_weak_pointer (&self->body, body);
    }
  else
    remember_expansion (self);
  g_clear_pointer (&self->opened, g_free);
  g_clear_pointer (&self->skeleton, km_skeleton_unref);
  if (skeleton != NULL && km_skeleton_get_n_joints (skeleton) > 0)
    {
      self->skeleton = km_skeleton_ref (skeleton);
      gtk_string_list_append (roots, km_skeleton_get_joint (skeleton, 0)->name);
    }
  tree = gtk_tree_list_model_new (G_LIST_MODEL (g_steal_pointer (&roots)), FALSE, FALSE,
                                  create_children_cb, self, NULL);
  /* Before the list sees the rows: it makes widgets for the rows it is given. */
  expand_rows (self, tree);
  self->updating = TRUE;
  gtk_single_selection_set_model (self->selection, G_LIST_MODEL (tree));
  self->updating = FALSE;
  g_object_unref (tree);
  select_document_joint (self);
}

static void
selection_notify_selected_cb (KmSkeletonOutline *self)
{
  const char *name;

  if (self->updating || self->document == NULL || self->skeleton == NULL)
    return;
  name = name_at (self, gtk_single_selection_get_selected (self->selection));
  km_document_set_selected_joint (self->document,
                                  name ? km_skeleton_find_joint (self->skeleton, name) : -1);
}

static const char *row_name (KmSkeletonOutline *self,
                             GtkWidget         *widget);

static const char *
name_under (KmSkeletonOutline *self,
            double             x,
            double             y)
{
  return row_name (self, gtk_widget_pick (GTK_WIDGET (self->list_view), x, y,
                                          GTK_PICK_NON_TARGETABLE));
}

/* The joint name a row's widget (@widget or a widget in it) shows, or NULL. */
static const char *
row_name (KmSkeletonOutline *self,
          GtkWidget         *widget)
{
  for (; widget != NULL && widget != GTK_WIDGET (self->list_view);
       widget = gtk_widget_get_parent (widget))
    if (GTK_IS_TREE_EXPANDER (widget))
      {
        GtkTreeListRow *row = gtk_tree_expander_get_list_row (GTK_TREE_EXPANDER (widget));
        g_autoptr(GObject) item = row ? gtk_tree_list_row_get_item (row) : NULL;

        /* Still owned by the row model, which outlives this call. */
        return GTK_IS_STRING_OBJECT (item) ? gtk_string_object_get_string (GTK_STRING_OBJECT (item))
                                           : NULL;
      }
  return NULL;
}

/* A row's tooltip, its whole name: asked for by GTK as the pointer rests on the row (or
 * with the keyboard, on the focused row), not set on every row made. */
static gboolean
query_tooltip_cb (KmSkeletonOutline *self,
                  int                x,
                  int                y,
                  gboolean           keyboard_mode,
                  GtkTooltip        *tooltip,
                  GtkWidget         *list_view)
{
  GtkWidget *widget = NULL;
  const char *name;

  if (keyboard_mode)
    {
      GtkRoot *root = gtk_widget_get_root (list_view);

      widget = root != NULL ? gtk_root_get_focus (root) : NULL;
      /* The focus is on the list's row widget, which holds the expander. */
      if (widget != NULL && widget != list_view && gtk_widget_is_ancestor (widget, list_view))
        widget = gtk_widget_get_first_child (widget);
    }
  else
    widget = gtk_widget_pick (list_view, x, y, GTK_PICK_DEFAULT);
  name = widget != NULL ? km_skeleton_outline_get_row_tooltip (self, widget) : NULL;
  if (name == NULL)
    return FALSE;
  gtk_tooltip_set_text (tooltip, name);
  return TRUE;
}

static void
click_pressed_cb (KmSkeletonOutline *self,
                  int                n_press,
                  double             x,
                  double             y,
                  GtkGestureClick   *gesture)
{
  const char *name = name_under (self, x, y);

  if (name != NULL && self->document != NULL && self->skeleton != NULL)
    km_document_set_selected_joint (self->document, km_skeleton_find_joint (self->skeleton, name));
}

static void
context_pressed_cb (KmSkeletonOutline *self,
                    int                n_press,
                    double             x,
                    double             y,
                    GtkGestureClick   *gesture)
{
  const char *name = name_under (self, x, y);
  graphene_point_t point;

  if (name == NULL || self->document == NULL || self->skeleton == NULL)
    return;
  km_document_set_selected_joint (self->document, km_skeleton_find_joint (self->skeleton, name));
  gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
  if (!gtk_widget_compute_point (GTK_WIDGET (self->list_view), GTK_WIDGET (self),
                                 &GRAPHENE_POINT_INIT (x, y), &point))
    point = GRAPHENE_POINT_INIT (x, y);
  gtk_popover_set_pointing_to (GTK_POPOVER (self->context_menu),
                               &(GdkRectangle) { (int) point.x, (int) point.y, 1, 1 });
  gtk_popover_popup (GTK_POPOVER (self->context_menu));
}

static GdkContentProvider *
drag_prepare_cb (KmSkeletonOutline *self,
                 double             x,
                 double             y,
                 GtkDragSource     *source)
{
  const char *name = name_under (self, x, y);

  if (name == NULL || self->skeleton == NULL || km_skeleton_find_joint (self->skeleton, name) <= 0)
    return NULL;
  return gdk_content_provider_new_typed (G_TYPE_STRING, name);
}

static gboolean
drop_cb (KmSkeletonOutline *self,
         const GValue      *value,
         double             x,
         double             y,
         GtkDropTarget     *target)
{
  const char *name = G_VALUE_HOLDS_STRING (value) ? g_value_get_string (value) : NULL;
  const char *parent_name = name_under (self, x, y);
  g_autoptr(KmSkeleton) edited = NULL;
  g_autoptr(GError) error = NULL;
  int joint, parent;

  if (name == NULL || parent_name == NULL || self->skeleton == NULL || self->document == NULL)
    return FALSE;
  joint = km_skeleton_find_joint (self->skeleton, name);
  parent = km_skeleton_find_joint (self->skeleton, parent_name);
  if (joint < 0 || parent < 0 || joint == parent
      || km_skeleton_get_joint (self->skeleton, joint)->parent == parent)
    return FALSE;

  edited = km_skeleton_edit_set_parent (self->skeleton, (guint) joint, (guint) parent, &error);
  if (edited == NULL)
    {
      /* Translators: a joint name, then why it cannot move there */
      km_document_log (self->document, G_LOG_LEVEL_WARNING, _("Cannot move “%s”: %s"), name,
                       error->message);
      return FALSE;
    }
  return km_document_edit_skeleton (self->document, edited, _("Reparent Joint"), name);
}

static void
km_skeleton_outline_dispose (GObject *object)
{
  KmSkeletonOutline *self = KM_SKELETON_OUTLINE (object);

  if (self->scroll_tick != 0)
    gtk_widget_remove_tick_callback (GTK_WIDGET (self->list_view), self->scroll_tick);
  self->scroll_tick = 0;
  gtk_widget_dispose_template (GTK_WIDGET (self), KM_TYPE_SKELETON_OUTLINE);
  /* The template's unnamed top-level child is not disposed with the named ones. */
  for (GtkWidget *child; (child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL;)
    gtk_widget_unparent (child);
  if (self->document_signals != NULL)
    g_signal_group_set_target (self->document_signals, NULL);
  g_clear_object (&self->document_signals);
  g_clear_object (&self->document);
  g_clear_pointer (&self->skeleton, km_skeleton_unref);
  g_clear_pointer (&self->expanded, g_hash_table_unref);
  g_clear_weak_pointer (&self->body);
  g_clear_pointer (&self->opened, g_free);

  G_OBJECT_CLASS (km_skeleton_outline_parent_class)->dispose (object);
}

static void
km_skeleton_outline_get_property (GObject    *object,
                                  guint       prop_id,
                                  GValue     *value,
                                  GParamSpec *pspec)
{
  KmSkeletonOutline *self = KM_SKELETON_OUTLINE (object);

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
km_skeleton_outline_set_property (GObject      *object,
                                  guint         prop_id,
                                  const GValue *value,
                                  GParamSpec   *pspec)
{
  KmSkeletonOutline *self = KM_SKELETON_OUTLINE (object);

  switch (prop_id)
    {
    case PROP_DOCUMENT:
      km_skeleton_outline_set_document (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
km_skeleton_outline_class_init (KmSkeletonOutlineClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = km_skeleton_outline_dispose;
  object_class->get_property = km_skeleton_outline_get_property;
  object_class->set_property = km_skeleton_outline_set_property;

  properties[PROP_DOCUMENT] =
    g_param_spec_object ("document", NULL, NULL, KM_TYPE_DOCUMENT,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/kinema/Kinema/ui/km-skeleton-outline.ui");
  gtk_widget_class_bind_template_child (widget_class, KmSkeletonOutline, list_view);
  gtk_widget_class_bind_template_child (widget_class, KmSkeletonOutline, selection);
  gtk_widget_class_bind_template_child (widget_class, KmSkeletonOutline, context_menu);
  gtk_widget_class_bind_template_callback (widget_class, selection_notify_selected_cb);
  gtk_widget_class_bind_template_callback (widget_class, click_pressed_cb);
  gtk_widget_class_bind_template_callback (widget_class, context_pressed_cb);
  gtk_widget_class_bind_template_callback (widget_class, drag_prepare_cb);
  gtk_widget_class_bind_template_callback (widget_class, drop_cb);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
km_skeleton_outline_init (KmSkeletonOutline *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->expanded = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  gtk_widget_set_has_tooltip (GTK_WIDGET (self->list_view), TRUE);
  g_signal_connect_object (self->list_view, "query-tooltip", G_CALLBACK (query_tooltip_cb),
                           self, G_CONNECT_SWAPPED);
  self->document_signals = g_signal_group_new (KM_TYPE_DOCUMENT);
  g_signal_group_connect_swapped (self->document_signals, "notify::skeleton",
                                  G_CALLBACK (rebuild), self);
  g_signal_group_connect_swapped (self->document_signals, "notify::selected-joint",
                                  G_CALLBACK (select_document_joint), self);
  rebuild (self);
}

GtkWidget *
km_skeleton_outline_new (void)
{
  return g_object_new (KM_TYPE_SKELETON_OUTLINE, NULL);
}

KmDocument *
km_skeleton_outline_get_document (KmSkeletonOutline *self)
{
  g_return_val_if_fail (KM_IS_SKELETON_OUTLINE (self), NULL);

  return self->document;
}

void
km_skeleton_outline_set_document (KmSkeletonOutline *self,
                                  KmDocument        *document)
{
  g_return_if_fail (KM_IS_SKELETON_OUTLINE (self));
  g_return_if_fail (document == NULL || KM_IS_DOCUMENT (document));

  if (!g_set_object (&self->document, document))
    return;
  /* Another document: nothing of the last one's rows is kept (rebuild()). */
  g_hash_table_remove_all (self->expanded);
  g_clear_weak_pointer (&self->body);
  g_signal_group_set_target (self->document_signals, document);
  rebuild (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DOCUMENT]);
}

/* The rows shown (GtkTreeListRow of GtkStringObject joint names), for tests. */
GListModel *
km_skeleton_outline_get_rows (KmSkeletonOutline *self)
{
  g_return_val_if_fail (KM_IS_SKELETON_OUTLINE (self), NULL);

  return G_LIST_MODEL (self->selection);
}

/**
 * km_skeleton_outline_get_row_tooltip:
 * @widget: a widget in one of the outline's rows
 *
 * What the tooltip of @widget's row says (built when GTK asks for it, by query-tooltip):
 * the joint's whole name.
 *
 * Returns: (transfer none) (nullable): the tooltip's text, or %NULL when @widget is in no row
 */
const char *
km_skeleton_outline_get_row_tooltip (KmSkeletonOutline *self,
                                     GtkWidget         *widget)
{
  g_return_val_if_fail (KM_IS_SKELETON_OUTLINE (self), NULL);
  g_return_val_if_fail (GTK_IS_WIDGET (widget), NULL);

  return row_name (self, widget);
}
