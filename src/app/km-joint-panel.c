/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-joint-panel"

#include "config.h"

#include <math.h>
#include <glib/gi18n.h>

#include "km-joint-panel.h"

/*
 * One row per DOF of the document's body: name, a slider over the limits, a spin button,
 * the unit. Angles are shown in degrees and lengths in metres; the document holds radians
 * and metres. Unlimited DOFs get ±180° or ±1 m, a range a slider can still be used over.
 */

#define UNLIMITED_ANGLE G_PI
#define UNLIMITED_LENGTH 1.0

struct _KmJointPanel
{
  GtkWidget       parent_instance;

  /* Template widgets */
  GtkStack       *stack;
  GtkGrid        *grid;

  /* Owned */
  KmDocument     *document;
  GSignalGroup   *document_signals;
  GPtrArray      *adjustments;     /* GtkAdjustment, one per DOF, in display units */
  GArray         *scales;          /* double: display units per document unit, per DOF */

  gboolean        updating;
};

enum {
  PROP_0,
  PROP_DOCUMENT,
  N_PROPS
};

G_DEFINE_FINAL_TYPE (KmJointPanel, km_joint_panel, GTK_TYPE_WIDGET)

static GParamSpec *properties[N_PROPS];

static void
adjustment_value_changed_cb (KmJointPanel  *self,
                             GtkAdjustment *adjustment)
{
  guint dof = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (adjustment), "km-dof"));

  if (self->updating || self->document == NULL)
    return;

  km_document_set_dof_value (self->document, dof,
                             gtk_adjustment_get_value (adjustment)
                             / g_array_index (self->scales, double, dof));
}

static void
document_pose_changed_cb (KmJointPanel *self)
{
  const double *pose;
  guint n_dof;

  if (self->document == NULL)
    return;

  pose = km_document_get_pose (self->document, &n_dof);
  self->updating = TRUE;
  for (guint d = 0; d < MIN (n_dof, self->adjustments->len); d++)
    gtk_adjustment_set_value (g_ptr_array_index (self->adjustments, d),
                              pose[d] * g_array_index (self->scales, double, d));
  self->updating = FALSE;
}

static void
clear_rows (KmJointPanel *self)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->grid))) != NULL)
    gtk_grid_remove (self->grid, child);
  g_ptr_array_set_size (self->adjustments, 0);
  g_array_set_size (self->scales, 0);
}

static void
add_row (KmJointPanel  *self,
         guint          dof,
         const KmJoint *joint,
         guint          axis)
{
  static const char *axis_names[] = { "X", "Y", "Z" };
  gboolean angular = joint->type != KM_JOINT_PRISMATIC;
  double scale = angular ? 180.0 / G_PI : 1.0;
  const KmLimit *limit = &joint->limits[axis];
  double lower, upper;
  g_autofree char *name = NULL;
  g_autofree char *tooltip = NULL;
  GtkAdjustment *adjustment;
  GtkWidget *header, *label, *slider, *spin, *unit;
  int row = (int) dof * 2;

  if (limit->limited)
    lower = limit->min, upper = limit->max;
  else if (angular)
    lower = -UNLIMITED_ANGLE, upper = UNLIMITED_ANGLE;
  else
    lower = -UNLIMITED_LENGTH, upper = UNLIMITED_LENGTH;

  adjustment = gtk_adjustment_new (0.0, lower * scale, upper * scale,
                                   angular ? 1.0 : 0.001, angular ? 10.0 : 0.01, 0.0);
  g_object_set_data (G_OBJECT (adjustment), "km-dof", GUINT_TO_POINTER (dof));
  g_signal_connect_object (adjustment, "value-changed",
                           G_CALLBACK (adjustment_value_changed_cb), self, G_CONNECT_SWAPPED);
  g_ptr_array_add (self->adjustments, g_object_ref_sink (adjustment));
  g_array_append_val (self->scales, scale);

  if (joint->n_dof > 1)
    /* Translators: a joint name and the euler axis (X, Y or Z) of one of its rotations */
    name = g_strdup_printf (_("%s %s"), joint->name, axis_names[axis]);
  else
    name = g_strdup (joint->name);

  if (!limit->limited)
    tooltip = g_strdup (_("Unlimited"));
  else if (angular)
    /* Translators: joint limits in degrees */
    tooltip = g_strdup_printf (_("Limits: %.1f° to %.1f°"), lower * scale, upper * scale);
  else
    /* Translators: joint limits in metres */
    tooltip = g_strdup_printf (_("Limits: %.3f m to %.3f m"), lower, upper);

  header = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  gtk_widget_set_margin_top (header, dof == 0 ? 0 : 8);
  gtk_grid_attach (self->grid, header, 0, row, 3, 1);

  label = gtk_label_new (name);
  gtk_label_set_xalign (GTK_LABEL (label), 0.0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_widget_set_hexpand (label, TRUE);
  gtk_box_append (GTK_BOX (header), label);

  unit = gtk_label_new (tooltip);
  gtk_label_set_xalign (GTK_LABEL (unit), 1.0);
  gtk_widget_add_css_class (unit, "dim-label");
  gtk_widget_add_css_class (unit, "caption");
  gtk_box_append (GTK_BOX (header), unit);

  slider = gtk_scale_new (GTK_ORIENTATION_HORIZONTAL, adjustment);
  gtk_scale_set_draw_value (GTK_SCALE (slider), FALSE);
  gtk_widget_set_hexpand (slider, TRUE);
  gtk_widget_set_tooltip_text (slider, tooltip);
  gtk_accessible_update_property (GTK_ACCESSIBLE (slider), GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);
  gtk_grid_attach (self->grid, slider, 0, row + 1, 1, 1);

  spin = gtk_spin_button_new (adjustment, angular ? 1.0 : 0.001, angular ? 1 : 3);
  gtk_editable_set_width_chars (GTK_EDITABLE (spin), 6);
  gtk_widget_set_tooltip_text (spin, tooltip);
  gtk_accessible_update_property (GTK_ACCESSIBLE (spin), GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);
  gtk_grid_attach (self->grid, spin, 1, row + 1, 1, 1);

  unit = gtk_label_new (angular ? C_("unit", "°") : C_("unit", "m"));
  gtk_label_set_width_chars (GTK_LABEL (unit), 2);
  gtk_label_set_xalign (GTK_LABEL (unit), 0.0);
  gtk_grid_attach (self->grid, unit, 2, row + 1, 1, 1);
}

static void
document_skeleton_changed_cb (KmJointPanel *self)
{
  KmSkeleton *skeleton = self->document ? km_document_get_skeleton (self->document) : NULL;
  guint n_dof = skeleton ? km_skeleton_get_n_dof (skeleton) : 0;

  clear_rows (self);
  for (guint d = 0; d < n_dof; d++)
    {
      const KmJoint *joint = km_skeleton_get_joint (skeleton, km_skeleton_get_dof_joint (skeleton, d));

      add_row (self, d, joint, d - (guint) joint->dof_index);
    }
  gtk_stack_set_visible_child_name (self->stack, n_dof > 0 ? "rows" : "empty");
  document_pose_changed_cb (self);
}

static void
km_joint_panel_dispose (GObject *object)
{
  KmJointPanel *self = (KmJointPanel *) object;
  GtkWidget *child;

  if (self->document_signals != NULL)
    g_signal_group_set_target (self->document_signals, NULL);
  g_clear_object (&self->document_signals);
  g_clear_object (&self->document);
  gtk_widget_dispose_template (GTK_WIDGET (self), KM_TYPE_JOINT_PANEL);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  g_clear_pointer (&self->adjustments, g_ptr_array_unref);
  g_clear_pointer (&self->scales, g_array_unref);

  G_OBJECT_CLASS (km_joint_panel_parent_class)->dispose (object);
}

static void
km_joint_panel_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  KmJointPanel *self = KM_JOINT_PANEL (object);

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
km_joint_panel_set_property (GObject      *object,
                             guint         prop_id,
                             const GValue *value,
                             GParamSpec   *pspec)
{
  KmJointPanel *self = KM_JOINT_PANEL (object);

  switch (prop_id)
    {
    case PROP_DOCUMENT:
      km_joint_panel_set_document (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
km_joint_panel_class_init (KmJointPanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = km_joint_panel_dispose;
  object_class->get_property = km_joint_panel_get_property;
  object_class->set_property = km_joint_panel_set_property;

  properties[PROP_DOCUMENT] =
    g_param_spec_object ("document", NULL, NULL, KM_TYPE_DOCUMENT,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/kinema/Kinema/ui/km-joint-panel.ui");
  gtk_widget_class_bind_template_child (widget_class, KmJointPanel, stack);
  gtk_widget_class_bind_template_child (widget_class, KmJointPanel, grid);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "jointpanel");
}

static void
km_joint_panel_init (KmJointPanel *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->adjustments = g_ptr_array_new_with_free_func (g_object_unref);
  self->scales = g_array_new (FALSE, FALSE, sizeof (double));

  self->document_signals = g_signal_group_new (KM_TYPE_DOCUMENT);
  g_signal_group_connect_swapped (self->document_signals, "notify::skeleton",
                                  G_CALLBACK (document_skeleton_changed_cb), self);
  g_signal_group_connect_swapped (self->document_signals, "notify::pose",
                                  G_CALLBACK (document_pose_changed_cb), self);
}

GtkWidget *
km_joint_panel_new (void)
{
  return g_object_new (KM_TYPE_JOINT_PANEL, NULL);
}

KmDocument *
km_joint_panel_get_document (KmJointPanel *self)
{
  g_return_val_if_fail (KM_IS_JOINT_PANEL (self), NULL);

  return self->document;
}

void
km_joint_panel_set_document (KmJointPanel *self,
                             KmDocument   *document)
{
  g_return_if_fail (KM_IS_JOINT_PANEL (self));
  g_return_if_fail (document == NULL || KM_IS_DOCUMENT (document));

  if (!g_set_object (&self->document, document))
    return;

  g_signal_group_set_target (self->document_signals, document);
  document_skeleton_changed_cb (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DOCUMENT]);
}

guint
km_joint_panel_get_n_rows (KmJointPanel *self)
{
  g_return_val_if_fail (KM_IS_JOINT_PANEL (self), 0);

  return self->adjustments->len;
}

/**
 * km_joint_panel_get_adjustment:
 *
 * Returns: (transfer none) (nullable): the adjustment of a DOF's row, in display units
 */
GtkAdjustment *
km_joint_panel_get_adjustment (KmJointPanel *self,
                               guint         dof)
{
  g_return_val_if_fail (KM_IS_JOINT_PANEL (self), NULL);

  return dof < self->adjustments->len ? g_ptr_array_index (self->adjustments, dof) : NULL;
}
