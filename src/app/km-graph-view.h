/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <gtk/gtk.h>

#include "km-document.h"

G_BEGIN_DECLS

#define KM_TYPE_GRAPH_VIEW (km_graph_view_get_type ())

G_DECLARE_FINAL_TYPE (KmGraphView, km_graph_view, KM, GRAPH_VIEW, GtkWidget)

/* Curve colours (sRGB 0..255), and the limit band's; tests look for them in the pixels. DOF
 * d of the body is always drawn in colour d, as its legend entry shows it, whether with the
 * other joints' curves or alone: the first six are these, then colours of their own (hues
 * a golden angle apart), so that no two curves share one. km_graph_view_get_curve_color()
 * gives DOF d's. */
#define KM_GRAPH_CURVE_0_RGB  0xe0, 0x1b, 0x24
#define KM_GRAPH_CURVE_1_RGB  0x2e, 0xc2, 0x7e
#define KM_GRAPH_CURVE_2_RGB  0x35, 0x84, 0xe4
#define KM_GRAPH_CURVE_3_RGB  0xff, 0x78, 0x00
#define KM_GRAPH_CURVE_4_RGB  0x91, 0x41, 0xac
#define KM_GRAPH_CURVE_5_RGB  0xa5, 0x76, 0x4e
#define KM_GRAPH_BAND_RGB     0x3d, 0x38, 0x46
#define KM_GRAPH_CURSOR_RGB   0xf6, 0xd3, 0x2d

GtkWidget  *km_graph_view_new            (void);
KmDocument *km_graph_view_get_document   (KmGraphView *self);
void        km_graph_view_set_document   (KmGraphView *self,
                                          KmDocument  *document);
double      km_graph_view_x_for_frame    (KmGraphView *self,
                                          double       frame);
guint       km_graph_view_frame_at       (KmGraphView *self,
                                          double       x);
gboolean    km_graph_view_get_keyframe_point (KmGraphView *self,
                                              guint        frame,
                                              double      *x,
                                              double      *y);
gboolean    km_graph_view_get_plot_area  (KmGraphView     *self,
                                          graphene_rect_t *rect);
char      **km_graph_view_dup_legend_names (KmGraphView *self);
gboolean    km_graph_view_get_legend_swatch (KmGraphView     *self,
                                             guint            index,
                                             graphene_rect_t *swatch,
                                             GdkRGBA         *color);
guint       km_graph_view_get_legend_more  (KmGraphView     *self,
                                            graphene_rect_t *box);
char      **km_graph_view_dup_value_labels (KmGraphView *self);
char      **km_graph_view_dup_time_labels  (KmGraphView *self);
char      **km_graph_view_dup_axis_labels  (KmGraphView     *self,
                                            GtkPositionType  side);
gboolean    km_graph_view_get_axis_range   (KmGraphView     *self,
                                            GtkPositionType  side,
                                            double          *lo,
                                            double          *hi);
void        km_graph_view_get_curve_color  (KmGraphView     *self,
                                            guint            dof,
                                            GdkRGBA         *color);

G_END_DECLS
