/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <gtk/gtk.h>

#include "km-units.h"

G_BEGIN_DECLS

/* The labelled values of an axis: the top, middle and bottom of its span. */
#define KM_GRAPH_AXIS_N_TICKS 3

/*
 * One value axis of the graph (KmGraphView): the span of one kind of value (angles or
 * lengths, in document units: radians or metres), where a value of it is drawn in the plot,
 * and its labels, in the unit the preferences name (or the one a body handler shows all of
 * its DOFs in), beside the plot on the left or right. A third kind holds the DOFs a body
 * handler shows in a unit of its own, in that unit.
 */
typedef struct
{
  gboolean     linear;    /* lengths, not angles */
  gboolean     used;      /* some plotted DOF is of this kind */
  double       lo, hi;    /* the span, in document units */
  PangoLayout *labels[KM_GRAPH_AXIS_N_TICKS];  /* top to bottom; NULL without room */
  gboolean     compact;   /* the labels are the top and bottom numbers, the unit between */
  double       gutter;    /* the labels' column beside the plot, gap included; 0 without */
  KmUnit       unit;      /* the unit its DOFs are shown in, when they agree on one */
  gboolean     has_unit;
  gboolean     mixed;     /* they do not */
} KmGraphAxis;

void    km_graph_axis_init          (KmGraphAxis           *axis,
                                     gboolean               linear);
void    km_graph_axis_include       (KmGraphAxis           *axis,
                                     double                 from,
                                     double                 to);
void    km_graph_axis_finish        (KmGraphAxis           *axis);
void    km_graph_axis_use_unit      (KmGraphAxis           *axis,
                                     KmUnit                 unit);
KmUnit  km_graph_axis_get_unit      (const KmGraphAxis     *axis,
                                     KmUnit                 fallback);
double  km_graph_axis_tick_value    (const KmGraphAxis     *axis,
                                     guint                  tick);
char   *km_graph_axis_format        (double                 value,
                                     KmUnit                 unit);
char   *km_graph_axis_format_number (double                 value,
                                     KmUnit                 unit);
void    km_graph_axis_layout_labels (KmGraphAxis           *axis,
                                     GtkWidget             *widget,
                                     KmUnit                 unit,
                                     gboolean               compact);
void    km_graph_axis_drop_labels   (KmGraphAxis           *axis);
double  km_graph_axis_y             (const KmGraphAxis     *axis,
                                     const graphene_rect_t *plot,
                                     double                 value);
void    km_graph_axis_draw          (const KmGraphAxis     *axis,
                                     cairo_t               *cr,
                                     const graphene_rect_t *plot,
                                     GtkPositionType        side,
                                     const GdkRGBA         *fg);
char  **km_graph_axis_dup_labels    (const KmGraphAxis     *axis);
void    km_graph_axis_clear         (KmGraphAxis           *axis);

double  km_graph_axis_time_step     (double                 total,
                                     double                 width,
                                     double                 room);

G_END_DECLS
