/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-scroll-guard"

#include "config.h"

#include <math.h>

#include "km-scroll-guard.h"

/*
 * A slider or spin button in a scrolled panel takes the mouse wheel only once the user has
 * clicked into it (it has the keyboard focus), as in GNOME's settings panels: otherwise a
 * wheel turn meant to scroll the panel would edit whatever value passes under the pointer
 * (a joint moved, a skeleton edited, a re-solve). Unfocused, the wheel scrolls the
 * enclosing GtkScrolledWindow, by the step that window itself takes for a wheel detent.
 */

static gboolean
has_focus_within (GtkWidget *widget)
{
  GtkRoot *root = gtk_widget_get_root (widget);
  GtkWidget *focus = root != NULL ? gtk_root_get_focus (root) : NULL;

  /* A spin button's focus is on its text, a child. */
  return focus != NULL && (focus == widget || gtk_widget_is_ancestor (focus, widget));
}

static void
scroll_adjustment (GtkAdjustment *adjustment,
                   GdkScrollUnit  unit,
                   double         delta)
{
  double page = gtk_adjustment_get_page_size (adjustment);
  double upper = gtk_adjustment_get_upper (adjustment) - page;

  if (delta == 0.0)
    return;
  /* GtkScrolledWindow's step for a wheel detent; touchpads give pixels. */
  if (unit == GDK_SCROLL_UNIT_WHEEL)
    delta *= pow (page, 2.0 / 3.0);
  gtk_adjustment_set_value (adjustment,
                            CLAMP (gtk_adjustment_get_value (adjustment) + delta,
                                   gtk_adjustment_get_lower (adjustment), upper));
}

static gboolean
scroll_cb (GtkEventControllerScroll *controller,
           double                    dx,
           double                    dy,
           gpointer                  user_data)
{
  GtkWidget *widget = gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (controller));
  GtkWidget *scrolled;
  GdkScrollUnit unit;

  if (has_focus_within (widget))
    return GDK_EVENT_PROPAGATE;

  scrolled = gtk_widget_get_ancestor (widget, GTK_TYPE_SCROLLED_WINDOW);
  if (scrolled != NULL)
    {
      unit = gtk_event_controller_scroll_get_unit (controller);
      scroll_adjustment (gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scrolled)),
                         unit, dy);
      scroll_adjustment (gtk_scrolled_window_get_hadjustment (GTK_SCROLLED_WINDOW (scrolled)),
                         unit, dx);
    }
  /* Taken even without a window to scroll: the value stays as it is. */
  return GDK_EVENT_STOP;
}

/**
 * km_scroll_guard_attach:
 * @widget: a GtkRange or GtkSpinButton
 *
 * Lets @widget take wheel input only while it has the keyboard focus; otherwise the
 * wheel scrolls the GtkScrolledWindow around it.
 */
void
km_scroll_guard_attach (GtkWidget *widget)
{
  GtkEventController *scroll;

  g_return_if_fail (GTK_IS_WIDGET (widget));

  /* Capture phase: before the widget's own scroll controller, which would change the value. */
  scroll = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES);
  gtk_event_controller_set_propagation_phase (scroll, GTK_PHASE_CAPTURE);
  g_signal_connect (scroll, "scroll", G_CALLBACK (scroll_cb), NULL);
  gtk_widget_add_controller (widget, scroll);
}
