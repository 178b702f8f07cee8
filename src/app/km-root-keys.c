/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include "km-root-keys.h"

/*
 * Keys a widget handles for its whole window (the time bar's frame keys, the scene view's
 * view keys) through a shortcut controller on the root, in the capture phase: they must
 * not take a key from the widget that has it as its own.
 */

/**
 * km_root_key_is_for_focus:
 * @controller: (nullable): the root's controller whose key event is being handled
 * @root: the window
 *
 * Returns: whether the key event belongs to a widget that takes the key itself: text (an
 *   entry, a spin button such as a number field, the tree's rename field, where a digit or
 *   a letter is typed), a popover (a menu, a drop-down list), or another window (a dialog)
 */
gboolean
km_root_key_is_for_focus (GtkEventController *controller,
                          GtkWidget          *root)
{
  GdkEvent *event = controller != NULL ? gtk_event_controller_get_current_event (controller)
                                       : NULL;
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (root));

  if (event != NULL
      && gdk_event_get_surface (event) != gtk_native_get_surface (GTK_NATIVE (root)))
    return TRUE;
  for (GtkWidget *w = focus; w != NULL && w != root; w = gtk_widget_get_parent (w))
    if (GTK_IS_EDITABLE (w) || GTK_IS_POPOVER (w))
      return TRUE;
  return FALSE;
}
