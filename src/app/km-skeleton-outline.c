/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-skeleton-outline"

#include "config.h"

#include <glib/gi18n.h>

#include "km-skeleton-outline.h"

#include "km-document-skeleton.h"
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

/* The list position @child (a row widget of the list view) shows and its place in the list
 * view, if the list laid it out; the list also keeps a widget for the selected row when it
 * is far outside the visible part, which has no size there. */
static gboolean
row_widget_bounds (KmSkeletonOutline *self,
                   GtkWidget         *child,
                   guint             *position,
                   graphene_rect_t   *bounds)
{
  GtkWidget *expander = gtk_widget_get_first_child (child);
  GtkTreeListRow *row;

  if (!GTK_IS_TREE_EXPANDER (expander)
      || (row = gtk_tree_expander_get_list_row (GTK_TREE_EXPANDER (expander))) == NULL
      || !gtk_widget_get_mapped (child)
      || !gtk_widget_compute_bounds (child, GTK_WIDGET (self->list_view), bounds)
      || bounds->size.height <= 0)
    return FALSE;
  *position = gtk_tree_list_row_get_position (row);
  return TRUE;
}

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
  GtkAdjustment *adjustment = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (self->list_view));
  guint position = gtk_single_selection_get_selected (self->selection);
  double value = gtk_adjustment_get_value (adjustment);
  gboolean near = FALSE;
  graphene_rect_t near_bounds = GRAPHENE_RECT_INIT (0, 0, 0, 0);
  guint near_position = 0;

  if (position == GTK_INVALID_LIST_POSITION || ++self->scroll_frames > SCROLL_MAX_FRAMES)
    goto done;
  /* Not laid out yet. */
  if (gtk_widget_get_height (widget) <= 0)
    return G_SOURCE_CONTINUE;

  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      graphene_rect_t bounds;
      guint shown;

      if (!row_widget_bounds (self, child, &shown, &bounds))
        continue;
      if (shown == position)
        {
          /* In the list view's coordinates, whose top is the adjustment's value. */
          gtk_adjustment_clamp_page (adjustment, value + bounds.origin.y,
                                     value + bounds.origin.y + bounds.size.height);
          show_name (self, child);
          goto done;
        }
      if (!near)
        near = TRUE, near_bounds = bounds, near_position = shown;
    }

  /* Not laid out: brought near, shown exactly on a later frame. */
  if (near)
    {
      double top = value + near_bounds.origin.y
                   + ((double) position - (double) near_position) * near_bounds.size.height;

      gtk_adjustment_clamp_page (adjustment, top, top + near_bounds.size.height);
    }
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

static void
select_document_joint (KmSkeletonOutline *self)
{
  int joint = self->document ? km_document_get_selected_joint (self->document) : -1;
  guint position = GTK_INVALID_LIST_POSITION;

  if (joint >= 0 && self->skeleton != NULL
      && (guint) joint < km_skeleton_get_n_joints (self->skeleton))
    {
      const char *name = km_skeleton_get_joint (self->skeleton, joint)->name;
      guint n = g_list_model_get_n_items (G_LIST_MODEL (self->selection));

      for (guint i = 0; i < n && position == GTK_INVALID_LIST_POSITION; i++)
        if (g_strcmp0 (name_at (self, i), name) == 0)
          position = i;
    }
  self->updating = TRUE;
  gtk_single_selection_set_selected (self->selection, position);
  self->updating = FALSE;
  scroll_to_selected (self);
}

static void
rebuild (KmSkeletonOutline *self)
{
  KmSkeleton *skeleton = self->document ? km_document_get_skeleton (self->document) : NULL;
  g_autoptr(GtkStringList) roots = gtk_string_list_new (NULL);
  GtkTreeListModel *tree;

  g_clear_pointer (&self->skeleton, km_skeleton_unref);
  if (skeleton != NULL && km_skeleton_get_n_joints (skeleton) > 0)
    {
      self->skeleton = km_skeleton_ref (skeleton);
      gtk_string_list_append (roots, km_skeleton_get_joint (skeleton, 0)->name);
    }
  tree = gtk_tree_list_model_new (G_LIST_MODEL (g_steal_pointer (&roots)), FALSE, TRUE,
                                  create_children_cb, self, NULL);
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

static const char *
name_under (KmSkeletonOutline *self,
            double             x,
            double             y)
{
  GtkWidget *widget = gtk_widget_pick (GTK_WIDGET (self->list_view), x, y,
                                       GTK_PICK_NON_TARGETABLE);

  for (; widget != NULL && widget != GTK_WIDGET (self->list_view);
       widget = gtk_widget_get_parent (widget))
    if (GTK_IS_TREE_EXPANDER (widget))
      {
        GtkTreeListRow *row = gtk_tree_expander_get_list_row (GTK_TREE_EXPANDER (widget));
        GObject *item = row ? gtk_tree_list_row_get_item (row) : NULL;
        const char *name = NULL;

        if (GTK_IS_STRING_OBJECT (item))
          name = gtk_string_object_get_string (GTK_STRING_OBJECT (item));
        g_clear_object (&item);
        /* Still owned by the row model, which outlives this call. */
        return name;
      }
  return NULL;
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
