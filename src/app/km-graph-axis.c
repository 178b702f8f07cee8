/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-graph-axis"

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n.h>

#include "km-graph-axis.h"

/*
 * A value axis of the graph. The graph has one, on the left, when it plots one kind of
 * value; with angles and lengths on one plot, two: the angles on the left and the lengths on
 * the right, each with a span of its own, so that neither kind is read in the other's unit
 * (or squeezed into the other's span: a metre is no radian). The graph's layout places the
 * plot between the axes' gutters, then draws each curve against its own axis. Where the
 * labels with their units would take too much of a narrow graph (the side pane's default
 * width), the axis is compact: the top and bottom values as bare numbers ("2.5", "-2.5")
 * and the unit between them, in the middle label's place, as an axis title.
 */

/* Between the labels and the plot; the tick by each label fills it. */
#define LABEL_GAP 4.0
/* How much a tick is dimmed against the labels. */
#define TICK_ALPHA 0.55

/**
 * km_graph_axis_init:
 * @linear: whether the axis is for lengths (metres), not angles (radians)
 *
 * Starts an axis with an empty span and no labels; km_graph_axis_include() widens it.
 */
void
km_graph_axis_init (KmGraphAxis *axis,
                    gboolean     linear)
{
  *axis = (KmGraphAxis) { .linear = linear, .lo = INFINITY, .hi = -INFINITY };
}

/* Widens @axis' span to hold [@from, @to]; non-finite ends are left out. */
void
km_graph_axis_include (KmGraphAxis *axis,
                       double       from,
                       double       to)
{
  if (isfinite (from))
    axis->lo = MIN (axis->lo, from), axis->hi = MAX (axis->hi, from);
  if (isfinite (to))
    axis->lo = MIN (axis->lo, to), axis->hi = MAX (axis->hi, to);
}

/* Gives @axis a span it can be drawn with: [-1, 1] when nothing widened it, a unit about its
 * value when it holds only one. */
void
km_graph_axis_finish (KmGraphAxis *axis)
{
  if (!isfinite (axis->lo) || !isfinite (axis->hi))
    axis->lo = -1, axis->hi = 1;
  if (axis->hi - axis->lo < 1e-9)
    axis->lo -= 0.5, axis->hi += 0.5;
}

/* Notes that a DOF drawn against @axis is shown in @unit (the Pose tab's): in the
 * preferences' unit, or in a body handler's ("mm" for an actuator's length). */
void
km_graph_axis_use_unit (KmGraphAxis *axis,
                        KmUnit       unit)
{
  if (!axis->has_unit)
    {
      axis->unit = unit;
      axis->has_unit = TRUE;
    }
  else if (axis->unit.scale != unit.scale || g_strcmp0 (axis->unit.symbol, unit.symbol) != 0)
    axis->mixed = TRUE;
}

/* The unit @axis is labelled in: the one its DOFs are all shown in, else @fallback (the
 * preferences' unit for its kind). */
KmUnit
km_graph_axis_get_unit (const KmGraphAxis *axis,
                        KmUnit             fallback)
{
  return axis->has_unit && !axis->mixed ? axis->unit : fallback;
}

/* The value of label @tick, from the top: the span's top, middle and bottom. */
double
km_graph_axis_tick_value (const KmGraphAxis *axis,
                          guint              tick)
{
  return axis->hi - tick * (axis->hi - axis->lo) / (KM_GRAPH_AXIS_N_TICKS - 1);
}

/**
 * km_graph_axis_format:
 * @value: in radians or metres
 * @unit: how the preferences show it
 *
 * Returns: (transfer full): @value as an axis label, with its unit ("143 °", "0.25 m")
 */
char *
km_graph_axis_format (double value,
                      KmUnit unit)
{
  /* An axis label needs a digit less than a spin button that edits the value. */
  int digits = MAX ((int) unit.digits - 1, 0);
  double shown = value * unit.scale;

  if (fabs (shown) < 0.5 * pow (10.0, -digits))
    shown = 0.0;   /* never "-0" */
  /* Translators: a value on the graph's value axis, then its unit ("143 °", "0.25 m") */
  return g_strdup_printf (_("%.*f %s"), digits, shown, unit.symbol);
}

/**
 * km_graph_axis_format_number:
 * @value: in radians or metres
 * @unit: how the preferences show it
 *
 * Returns: (transfer full): @value as a compact axis label: the number of
 *   km_graph_axis_format() without its unit and its trailing zeros ("2.5", "0", "300")
 */
char *
km_graph_axis_format_number (double value,
                             KmUnit unit)
{
  int digits = MAX ((int) unit.digits - 1, 0);
  double shown = value * unit.scale;
  char *text;
  gsize len;

  if (fabs (shown) < 0.5 * pow (10.0, -digits))
    shown = 0.0;
  text = g_strdup_printf ("%.*f", digits, shown);
  len = strlen (text);
  /* After the decimal separator (the locale's), whatever character it is. */
  if (digits > 0)
    {
      while (len > 0 && text[len - 1] == '0')
        text[--len] = '\0';
      if (len > 0 && !g_ascii_isdigit (text[len - 1]))
        text[--len] = '\0';
    }
  return text;
}

/* Makes @axis' labels for @widget, in @unit, and the gutter they need; @compact: the top
 * and bottom numbers alone, the unit between them. */
void
km_graph_axis_layout_labels (KmGraphAxis *axis,
                             GtkWidget   *widget,
                             KmUnit       unit,
                             gboolean     compact)
{
  double width = 0;

  km_graph_axis_drop_labels (axis);
  axis->compact = compact;
  for (guint i = 0; i < KM_GRAPH_AXIS_N_TICKS; i++)
    {
      double value = km_graph_axis_tick_value (axis, i);
      g_autofree char *text = !compact ? km_graph_axis_format (value, unit)
                              : i == KM_GRAPH_AXIS_N_TICKS / 2 ? g_strdup (unit.symbol)
                              : km_graph_axis_format_number (value, unit);
      int w;

      axis->labels[i] = gtk_widget_create_pango_layout (widget, text);
      pango_layout_get_pixel_size (axis->labels[i], &w, NULL);
      width = MAX (width, w);
    }
  axis->gutter = ceil (width) + LABEL_GAP;
}

/* Leaves @axis without labels (a narrow graph keeps its width for the curves). */
void
km_graph_axis_drop_labels (KmGraphAxis *axis)
{
  for (guint i = 0; i < KM_GRAPH_AXIS_N_TICKS; i++)
    g_clear_object (&axis->labels[i]);
  axis->compact = FALSE;
  axis->gutter = 0;
}

/* The row of @value in @plot on @axis' scale: its span fills the plot's height. */
double
km_graph_axis_y (const KmGraphAxis     *axis,
                 const graphene_rect_t *plot,
                 double                 value)
{
  return plot->origin.y + (axis->hi - value) / (axis->hi - axis->lo) * plot->size.height;
}

/* @axis' labels beside @plot on @side (GTK_POS_LEFT or GTK_POS_RIGHT), each by a tick at
 * its value, in @fg (a compact axis' unit, in the middle, by none). The middle one gives way
 * when the plot is too low for three. */
void
km_graph_axis_draw (const KmGraphAxis     *axis,
                    cairo_t               *cr,
                    const graphene_rect_t *plot,
                    GtkPositionType        side,
                    const GdkRGBA         *fg)
{
  double top = plot->origin.y, bottom = plot->origin.y + plot->size.height;
  double edge = side == GTK_POS_LEFT ? plot->origin.x : plot->origin.x + plot->size.width;

  for (guint i = 0; i < KM_GRAPH_AXIS_N_TICKS; i++)
    {
      double y = round (km_graph_axis_y (axis, plot, km_graph_axis_tick_value (axis, i)));
      double tx, ty;
      int tw, th;

      if (axis->labels[i] == NULL)
        continue;
      pango_layout_get_pixel_size (axis->labels[i], &tw, &th);
      if (i > 0 && i < KM_GRAPH_AXIS_N_TICKS - 1 && plot->size.height < 3 * th)
        continue;
      tx = side == GTK_POS_LEFT ? edge - LABEL_GAP - tw : edge + LABEL_GAP;
      ty = CLAMP (y - th / 2.0, top, bottom - th);
      gdk_cairo_set_source_rgba (cr, fg);
      cairo_move_to (cr, tx, ty);
      pango_cairo_show_layout (cr, axis->labels[i]);
      if (axis->compact && i == KM_GRAPH_AXIS_N_TICKS / 2)
        continue;
      cairo_set_source_rgba (cr, fg->red, fg->green, fg->blue, fg->alpha * TICK_ALPHA);
      cairo_rectangle (cr, side == GTK_POS_LEFT ? edge - LABEL_GAP + 1 : edge,
                       CLAMP (y, top, bottom - 1), LABEL_GAP - 1, 1);
      cairo_fill (cr);
    }
}

/**
 * km_graph_axis_dup_labels:
 *
 * Returns: (transfer full): the texts of @axis' labels, top to bottom, %NULL-terminated;
 *   empty without labels
 */
char **
km_graph_axis_dup_labels (const KmGraphAxis *axis)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  for (guint i = 0; i < KM_GRAPH_AXIS_N_TICKS; i++)
    if (axis->labels[i] != NULL)
      g_strv_builder_add (builder, pango_layout_get_text (axis->labels[i]));
  return g_strv_builder_end (builder);
}

void
km_graph_axis_clear (KmGraphAxis *axis)
{
  km_graph_axis_drop_labels (axis);
}

/**
 * km_graph_axis_time_step:
 * @total: the seconds the time axis spans
 * @width: the plot's width, in pixels
 * @room: the pixels a label needs, the room between labels included
 *
 * The time axis' step: the smallest round one (0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30 s, whole
 * minutes, hours, then days and 1, 2, 5 × 10ⁿ days) that leaves @room for each label, at
 * any length of motion (a day's motion has labels as an eight-second one does).
 *
 * Returns: the step in seconds; 0 when not even two labels fit (only "0 s" is shown)
 */
double
km_graph_axis_time_step (double total,
                         double width,
                         double room)
{
  static const double steps[] = {
    0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600,
    7200, 10800, 21600, 43200, 86400,
  };
  double days = 1;

  if (!(total > 0) || !(width > 0) || !isfinite (total))
    return 0;
  for (guint i = 0; i < G_N_ELEMENTS (steps); i++)
    if (steps[i] > total)
      return 0;
    else if (width * steps[i] / total >= room)
      return steps[i];
  /* Longer still: 2, 5, 10, 20, 50 … days. */
  for (;;)
    {
      static const double mantissas[] = { 2, 5, 10 };

      for (guint i = 0; i < G_N_ELEMENTS (mantissas); i++)
        {
          double step = days * mantissas[i] * 86400;

          if (step > total)
            return 0;
          if (width * step / total >= room)
            return step;
        }
      days *= 10;
    }
}
