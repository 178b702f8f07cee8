/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-list-scroll"

#include "config.h"

#include "km-list-scroll.h"

/*
 * Bringing a list view's row into view on GTK 4.8, which has no gtk_list_view_scroll_to:
 * the vertical adjustment is moved just enough to show the row's widget whole, once the list
 * has made and laid it out. A row the list has not made (far from the visible part) is first
 * brought near from the height of a row it has (the rows are alike), to be shown exactly a
 * frame later.
 *
 * That is done from a frame's ::after-paint (KmAfterPaint), when the list has just been laid
 * out: rows added or removed since its last layout have no height yet, and the list, asked
 * for a position past those it knows, warns "GtkListView failed to scroll to given position"
 * (as it did from a tick callback, which runs before the frame's layout).
 */

static void
disconnect_clock (KmAfterPaint *loop)
{
  if (loop->clock != NULL)
    g_clear_signal_handler (&loop->paint_handler, loop->clock);
  g_clear_object (&loop->clock);
}

static void
finish (KmAfterPaint *loop)
{
  loop->pending = FALSE;
  disconnect_clock (loop);
  if (loop->done != NULL)
    loop->done (loop->user_data);
}

static void
after_paint_cb (GdkFrameClock *clock,
                KmAfterPaint  *loop)
{
  switch (loop->step (loop->user_data))
    {
    case KM_AFTER_PAINT_DONE:
      finish (loop);
      return;
    case KM_AFTER_PAINT_AGAIN:
      if (++loop->steps >= loop->max_steps)
        {
          finish (loop);
          return;
        }
      break;
    case KM_AFTER_PAINT_WAIT:
    default:
      break;
    }
  /* Another frame, laid out anew (where the step moved things). */
  gdk_frame_clock_request_phase (clock, GDK_FRAME_CLOCK_PHASE_AFTER_PAINT);
}

/* Waits for frames while the widget is in view (one not shown draws none). */
static void
resume (KmAfterPaint *loop)
{
  GdkFrameClock *clock;

  loop->steps = 0;
  if (!loop->pending || !gtk_widget_get_mapped (loop->widget)
      || (clock = gtk_widget_get_frame_clock (loop->widget)) == NULL)
    return;
  if (loop->clock != clock)
    {
      disconnect_clock (loop);
      loop->clock = g_object_ref (clock);
      loop->paint_handler = g_signal_connect (clock, "after-paint",
                                              G_CALLBACK (after_paint_cb), loop);
    }
  gdk_frame_clock_request_phase (clock, GDK_FRAME_CLOCK_PHASE_AFTER_PAINT);
}

static void
map_cb (GtkWidget    *widget,
        KmAfterPaint *loop)
{
  resume (loop);
}

static void
unmap_cb (GtkWidget    *widget,
          KmAfterPaint *loop)
{
  disconnect_clock (loop);
}

/* Sets @loop up to run @step for @widget, not started; @done, if any, is called when the
 * loop ends by itself (the step done, or max_steps counted steps run). */
void
km_after_paint_init (KmAfterPaint     *loop,
                     GtkWidget        *widget,
                     guint             max_steps,
                     KmAfterPaintFunc  step,
                     GDestroyNotify    done,
                     gpointer          user_data)
{
  *loop = (KmAfterPaint) {
    .widget = widget,
    .step = step,
    .done = done,
    .user_data = user_data,
    .max_steps = max_steps,
  };
  loop->map_handler = g_signal_connect (widget, "map", G_CALLBACK (map_cb), loop);
  loop->unmap_handler = g_signal_connect (widget, "unmap", G_CALLBACK (unmap_cb), loop);
}

/* Runs the step after the next frames' paint, counting anew (started again if running). */
void
km_after_paint_start (KmAfterPaint *loop)
{
  loop->pending = TRUE;
  resume (loop);
}

/* Stops the loop, without calling done. */
void
km_after_paint_cancel (KmAfterPaint *loop)
{
  loop->pending = FALSE;
  disconnect_clock (loop);
}

/* Stops the loop and lets go of the widget (for the owner's dispose; may be called again). */
void
km_after_paint_clear (KmAfterPaint *loop)
{
  km_after_paint_cancel (loop);
  if (loop->widget != NULL)
    {
      g_clear_signal_handler (&loop->map_handler, loop->widget);
      g_clear_signal_handler (&loop->unmap_handler, loop->widget);
      loop->widget = NULL;
    }
}

/* A KmListRowPosition for the rows of a list of GtkTreeListRows shown in GtkTreeExpanders. */
guint
km_list_row_tree_position (GtkWidget *row,
                           gpointer   user_data)
{
  GtkWidget *expander = gtk_widget_get_first_child (row);
  GtkTreeListRow *list_row;

  if (!GTK_IS_TREE_EXPANDER (expander)
      || (list_row = gtk_tree_expander_get_list_row (GTK_TREE_EXPANDER (expander))) == NULL)
    return GTK_INVALID_LIST_POSITION;
  return gtk_tree_list_row_get_position (list_row);
}

/* The row widget of @list_view that shows @position, and its place in the list view
 * (@bounds: its top is the vertical adjustment's value), if the list made and laid it out;
 * else NULL, and @near is set to the first row it laid out (if any). The list also keeps a
 * widget for a row far outside the visible part (the selected one), with no size there. */
GtkWidget *
km_list_view_find_row (GtkWidget         *list_view,
                       guint              position,
                       KmListRowPosition  position_of,
                       gpointer           user_data,
                       graphene_rect_t   *bounds,
                       KmListRowNear     *near)
{
  near->found = FALSE;
  /* Not laid out yet. */
  if (gtk_widget_get_height (list_view) <= 0)
    return NULL;

  for (GtkWidget *child = gtk_widget_get_first_child (list_view); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      guint shown = position_of (child, user_data);

      if (shown == GTK_INVALID_LIST_POSITION || !gtk_widget_get_mapped (child)
          || !gtk_widget_compute_bounds (child, list_view, bounds) || bounds->size.height <= 0)
        continue;
      if (shown == position)
        return child;
      if (!near->found)
        *near = (KmListRowNear) { TRUE, shown, *bounds };
    }
  return NULL;
}

/* TRUE if a row at @bounds (from km_list_view_find_row) is in view whole; else moves the
 * vertical adjustment just enough to show it (a row just made may still have its old place:
 * it is seen in view on a later frame). */
gboolean
km_list_view_show_bounds (GtkWidget             *list_view,
                          const graphene_rect_t *bounds)
{
  GtkAdjustment *adjustment = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (list_view));
  double value = gtk_adjustment_get_value (adjustment);

  if (bounds->origin.y >= 0
      && bounds->origin.y + bounds->size.height <= gtk_widget_get_height (list_view))
    return TRUE;
  gtk_adjustment_clamp_page (adjustment, value + bounds->origin.y,
                             value + bounds->origin.y + bounds->size.height);
  return FALSE;
}

/* Moves the vertical adjustment to where the row at @position would be, were it as high as
 * the row @near (from km_list_view_find_row), if that was found. */
void
km_list_view_bring_near (GtkWidget           *list_view,
                         guint                position,
                         const KmListRowNear *near)
{
  GtkAdjustment *adjustment = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (list_view));
  double top;

  if (!near->found)
    return;
  top = gtk_adjustment_get_value (adjustment) + near->bounds.origin.y
        + ((double) position - (double) near->position) * near->bounds.size.height;
  gtk_adjustment_clamp_page (adjustment, top, top + near->bounds.size.height);
}
