/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* What a KmAfterPaint step asks for next. */
typedef enum
{
  KM_AFTER_PAINT_DONE,  /* nothing more: the loop ends */
  KM_AFTER_PAINT_AGAIN, /* another frame, one of the loop's max_steps */
  KM_AFTER_PAINT_WAIT,  /* another frame, not counted (waiting for something else) */
} KmAfterPaintStep;

typedef KmAfterPaintStep (*KmAfterPaintFunc) (gpointer user_data);

/* A step run after each paint of a widget's frame clock (the widget just laid out) until it
 * is done, or has run max_steps times counted (KM_AFTER_PAINT_AGAIN); it pauses while the
 * widget is unmapped and resumes, counting anew, once mapped. Embedded in its owner; the
 * fields are private. */
typedef struct
{
  GtkWidget        *widget;
  KmAfterPaintFunc  step;
  GDestroyNotify    done;
  gpointer          user_data;
  guint             max_steps;
  guint             steps;
  gboolean          pending;
  GdkFrameClock    *clock;
  gulong            paint_handler;
  gulong            map_handler;
  gulong            unmap_handler;
} KmAfterPaint;

void km_after_paint_init   (KmAfterPaint     *loop,
                            GtkWidget        *widget,
                            guint             max_steps,
                            KmAfterPaintFunc  step,
                            GDestroyNotify    done,
                            gpointer          user_data);
void km_after_paint_start  (KmAfterPaint     *loop);
void km_after_paint_cancel (KmAfterPaint     *loop);
void km_after_paint_clear  (KmAfterPaint     *loop);

/* The list position a row widget (a child of a list view) shows, or
 * GTK_INVALID_LIST_POSITION. */
typedef guint (*KmListRowPosition) (GtkWidget *row,
                                    gpointer   user_data);

guint km_list_row_tree_position (GtkWidget *row,
                                 gpointer   user_data);

/* A row the list view laid out, other than the one looked for (see km_list_view_find_row). */
typedef struct
{
  gboolean        found;
  guint           position;
  graphene_rect_t bounds;
} KmListRowNear;

GtkWidget *km_list_view_find_row    (GtkWidget             *list_view,
                                     guint                  position,
                                     KmListRowPosition      position_of,
                                     gpointer               user_data,
                                     graphene_rect_t       *bounds,
                                     KmListRowNear         *near);
gboolean   km_list_view_show_bounds (GtkWidget             *list_view,
                                     const graphene_rect_t *bounds);
void       km_list_view_bring_near  (GtkWidget             *list_view,
                                     guint                  position,
                                     const KmListRowNear   *near);

G_END_DECLS
