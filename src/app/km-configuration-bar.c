/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <glib/gi18n.h>

#include "km-body-handler.h"
#include "km-configuration-bar.h"

/*
 * The configuration of the current body's IK path, where a body handler's analytic IK
 * covers it and knows several (the body handler spec's JointSpaceConfigurationHandler: an
 * arm's elbow up or down, a wrist flipped or not): the Pose tab shows which one the pose
 * is in, and choosing another moves the body to the same end-effector pose in that
 * configuration, one undo step. Hidden for any other body.
 */

struct _KmConfigurationBar
{
  GtkWidget      parent_instance;

  GtkWidget     *box;
  GtkDropDown   *drop_down;
  GtkStringList *names;
  KmDocument    *document;
  GSignalGroup  *document_signals;
  int            shown;      /* the configuration the drop-down shows, -1: none */
  gboolean       updating;   /* the drop-down is being set to the pose's */
};

G_DEFINE_FINAL_TYPE (KmConfigurationBar, km_configuration_bar, GTK_TYPE_WIDGET)

/* The handlers covering the IK path of @self's document with more than one configuration,
 * and the path's end; NULL when there are none. */
static KmBodyHandlerSet *
covering_handlers (KmConfigurationBar *self,
                   int                *end)
{
  KmBodyHandlerSet *handlers;

  if (self->document == NULL || km_document_get_skeleton (self->document) == NULL)
    return NULL;
  handlers = km_document_get_body_handlers (self->document);
  *end = km_document_get_effector (self->document);
  if (handlers == NULL || *end < 0 || !km_body_handler_set_covers_path (handlers, -1, *end)
      || km_body_handler_set_get_n_configurations (handlers, -1, *end) < 2)
    return NULL;
  return handlers;
}

/* Shows the configuration the pose is in (on every pose change: one call of the handler). */
static void
update_shown (KmConfigurationBar *self)
{
  KmBodyHandlerSet *handlers;
  int end = -1;
  const double *q;

  handlers = covering_handlers (self, &end);
  gtk_widget_set_visible (GTK_WIDGET (self), handlers != NULL);
  q = handlers != NULL ? km_document_get_pose (self->document, NULL) : NULL;
  self->shown = q != NULL ? km_body_handler_set_get_configuration (handlers, -1, end, q) : -1;
  self->updating = TRUE;
  gtk_drop_down_set_selected (self->drop_down, self->shown >= 0 ? (guint) self->shown
                                                                : GTK_INVALID_LIST_POSITION);
  self->updating = FALSE;
}

/* Lists the configurations of the current path (another body, model or effector), then
 * shows the pose's. */
static void
update (KmConfigurationBar *self)
{
  KmBodyHandlerSet *handlers;
  int end = -1;
  guint n = 0;
  g_auto(GStrv) names = NULL;

  handlers = covering_handlers (self, &end);
  if (handlers != NULL)
    n = km_body_handler_set_get_n_configurations (handlers, -1, end);
  names = g_new0 (char *, n + 1);
  for (guint i = 0; i < n; i++)
    {
      const char *name = km_body_handler_set_get_configuration_name (handlers, -1, end, i);

      /* Translators: a body handler's configuration without a name of its own */
      names[i] = name != NULL ? g_strdup (name) : g_strdup_printf (_("Configuration %u"), i + 1);
    }
  self->updating = TRUE;
  gtk_string_list_splice (self->names, 0, g_list_model_get_n_items (G_LIST_MODEL (self->names)),
                          (const char * const *) names);
  self->updating = FALSE;
  update_shown (self);
}

/**
 * km_configuration_bar_choose:
 * @configuration: an index into the handler's configurations
 *
 * Moves the body to its end effector's present pose in @configuration (one undo step), as
 * choosing it in the drop-down does; Messages says so when the handler has no solution
 * there (within the limits, or at all).
 *
 * Returns: whether the body moved (or already was in @configuration)
 */
gboolean
km_configuration_bar_choose (KmConfigurationBar *self,
                             guint               configuration)
{
  KmBodyHandlerSet *handlers;
  const KmTransform *world;
  KmTransform root_pose, target;
  g_autofree double *q = NULL;
  const double *pose;
  guint n_dof = 0, n_joints = 0;
  int end = -1;

  g_return_val_if_fail (KM_IS_CONFIGURATION_BAR (self), FALSE);

  handlers = covering_handlers (self, &end);
  if (handlers == NULL
      || configuration >= km_body_handler_set_get_n_configurations (handlers, -1, end))
    return FALSE;
  if ((int) configuration == self->shown)
    return TRUE;
  world = km_document_get_joint_world (self->document, &n_joints);
  if (world == NULL || (guint) end >= n_joints)
    return FALSE;
  target = world[end];
  if (!km_document_get_root_pose (self->document, &root_pose))
    km_transform_identity (&root_pose);
  pose = km_document_get_pose (self->document, &n_dof);
  if (pose == NULL)
    return FALSE;
  q = g_memdup2 (pose, MAX (n_dof, 1) * sizeof (double));
  if (km_body_handler_set_solve_path (handlers, -1, end, &root_pose, &target,
                                      (int) configuration, q) != (int) configuration
      || !km_skeleton_within_limits (km_document_get_skeleton (self->document), q, 1e-9))
    {
      km_document_log (self->document, G_LOG_LEVEL_WARNING,
                       /* Translators: %s is a configuration's name, as the body handler
                        * gives it ("shoulder left, wrist no flip, elbow up") */
                       _("The end effector’s pose cannot be reached in the configuration "
                         "“%s” within the joint limits; the pose is left as it is."),
                       gtk_string_list_get_string (self->names, configuration));
      update_shown (self);
      return FALSE;
    }
  km_document_set_joint_values (self->document, q, n_dof);
  km_document_close_edit (self->document);
  return TRUE;
}

static void
selected_cb (KmConfigurationBar *self)
{
  guint selected = gtk_drop_down_get_selected (self->drop_down);

  if (self->updating || selected == GTK_INVALID_LIST_POSITION)
    return;
  km_configuration_bar_choose (self, selected);
}

static void
km_configuration_bar_dispose (GObject *object)
{
  KmConfigurationBar *self = KM_CONFIGURATION_BAR (object);

  if (self->document_signals != NULL)
    g_signal_group_set_target (self->document_signals, NULL);
  g_clear_object (&self->document_signals);
  g_clear_object (&self->document);
  g_clear_pointer (&self->box, gtk_widget_unparent);
  G_OBJECT_CLASS (km_configuration_bar_parent_class)->dispose (object);
}

static void
km_configuration_bar_class_init (KmConfigurationBarClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = km_configuration_bar_dispose;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
km_configuration_bar_init (KmConfigurationBar *self)
{
  GtkWidget *label;

  self->shown = -1;
  self->box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  gtk_widget_set_margin_start (self->box, 12);
  gtk_widget_set_margin_end (self->box, 12);
  gtk_widget_set_margin_bottom (self->box, 8);
  gtk_widget_set_parent (self->box, GTK_WIDGET (self));

  /* Translators: label of the drop-down of an arm's IK configurations (elbow up or
   * down, …) in the Pose tab */
  label = gtk_label_new_with_mnemonic (_("_Configuration"));
  gtk_box_append (GTK_BOX (self->box), label);
  self->names = gtk_string_list_new (NULL);
  self->drop_down = GTK_DROP_DOWN (gtk_drop_down_new (G_LIST_MODEL (self->names), NULL));
  gtk_widget_set_hexpand (GTK_WIDGET (self->drop_down), TRUE);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->drop_down),
                               _("The configuration the pose is in, of those the body "
                                 "handler’s analytic IK knows; choose another to reach the "
                                 "same end-effector pose in it"));
  gtk_label_set_mnemonic_widget (GTK_LABEL (label), GTK_WIDGET (self->drop_down));
  gtk_box_append (GTK_BOX (self->box), GTK_WIDGET (self->drop_down));
  g_signal_connect_swapped (self->drop_down, "notify::selected", G_CALLBACK (selected_cb),
                            self);
  gtk_widget_set_visible (GTK_WIDGET (self), FALSE);

  self->document_signals = g_signal_group_new (KM_TYPE_DOCUMENT);
  g_signal_group_connect_swapped (self->document_signals, "notify::skeleton",
                                  G_CALLBACK (update), self);
  g_signal_group_connect_swapped (self->document_signals, "notify::pose",
                                  G_CALLBACK (update_shown), self);
  g_signal_group_connect_swapped (self->document_signals, "notify::targets",
                                  G_CALLBACK (update), self);
}

GtkWidget *
km_configuration_bar_new (void)
{
  return g_object_new (KM_TYPE_CONFIGURATION_BAR, NULL);
}

void
km_configuration_bar_set_document (KmConfigurationBar *self,
                                   KmDocument         *document)
{
  g_return_if_fail (KM_IS_CONFIGURATION_BAR (self));
  g_return_if_fail (document == NULL || KM_IS_DOCUMENT (document));

  if (!g_set_object (&self->document, document))
    return;
  g_signal_group_set_target (self->document_signals, document);
  update (self);
}

/* The configuration the pose is in, as shown; -1 when hidden or in none. */
int
km_configuration_bar_get_shown (KmConfigurationBar *self)
{
  g_return_val_if_fail (KM_IS_CONFIGURATION_BAR (self), -1);

  return self->shown;
}
