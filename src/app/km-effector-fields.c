/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-effector-fields"

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n.h>

#include "km-effector-fields.h"

#include "km-document-edit.h"
#include "km-drag-ik.h"
#include "km-ik-job.h"
#include "km-number-field.h"
#include "km-scroll-guard.h"
#include "km-units.h"

/*
 * The Pose tab's End Effector section: the end effector's world pose in the pose shown, as
 * X, Y, Z (in the Pose tab's length unit) and roll, pitch, yaw (degrees, R = Rz(yaw) ·
 * Ry(pitch) · Rx(roll), Choreonoid's rpy). The point is the one the IK targets are for
 * (km_document_get_effector_point(): a tool point off the joint where the targets have
 * one), the point the 3-D view's gizmo drags.
 *
 * A value typed (Return, leaving the field, the arrows) moves the end effector there as a
 * 3-D drag of it does: the same IK problem (km_drag_ik_request()), solved on a
 * KmDragSolver's worker from the pose shown, its answer applied with km_document_set_pose()
 * so that limits, linked joints and the unkeyed pose behave alike. Each typed value is one
 * undo step; the pose is not keyed until K. With position-only targets the orientation
 * fields only show it.
 */

enum
{
  FIELD_X,
  FIELD_Y,
  FIELD_Z,
  FIELD_ROLL,
  FIELD_PITCH,
  FIELD_YAW,
  N_FIELDS
};

#define FIELD_INDEX_KEY "km-effector-field-index"
/* The window a length field's buttons and wheel move in before it widens (metres). */
#define LENGTH_WINDOW 10.0

struct _KmEffectorFields
{
  GtkWidget      parent_instance;

  /* Template widgets */
  GtkWidget     *content;
  GtkWidget     *effector_label;
  GtkWidget     *grid;
  GtkLabel      *position_heading;
  GtkLabel      *orientation_heading;
  GtkSpinButton *x_field;
  GtkSpinButton *y_field;
  GtkSpinButton *z_field;
  GtkSpinButton *roll_field;
  GtkSpinButton *pitch_field;
  GtkSpinButton *yaw_field;
  GtkInscription *reason_label;
  GtkInscription *error_label;

  /* Owned */
  KmDocument    *document;
  GSignalGroup  *document_signals;
  KmDragSolver  *solver;
  char          *length_unit;
  double        *request_pose;    /* the pose the solve in flight started from */
  guint          request_n_dof;

  /* Borrowed */
  GtkSpinButton *fields[N_FIELDS];

  KmUnit         length;
  guint          showing;         /* > 0 while the fields are set from the document */
  guint          applying;        /* > 0 while a typed value's answer is applied */
  gboolean       position_only;
};

enum
{
  PROP_0,
  PROP_DOCUMENT,
  PROP_LENGTH_UNIT,
  PROP_BUSY,
  N_PROPS
};

G_DEFINE_FINAL_TYPE (KmEffectorFields, km_effector_fields, GTK_TYPE_WIDGET)

static GParamSpec *properties[N_PROPS];

static KmUnit
angle_unit (void)
{
  return km_unit_for_angle ("degrees");
}

static void
show_error (KmEffectorFields *self,
            const char       *reason)
{
  /* Not a wrapping GtkLabel: its height for width would unsettle the panes around. */
  gtk_inscription_set_text (self->error_label, reason);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->error_label), reason);
  gtk_widget_set_visible (GTK_WIDGET (self->error_label), reason != NULL);
}

static void
show_reason (KmEffectorFields *self,
             const char       *reason)
{
  /* Not a wrapping GtkLabel: its height for width would unsettle the panes around. */
  gtk_inscription_set_text (self->reason_label, reason);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->reason_label), reason);
  gtk_widget_set_visible (GTK_WIDGET (self->reason_label), reason != NULL);
}

/* Shows @value (in the field's units) in @spin, its window widened to take it. */
static void
show_value (KmEffectorFields *self,
            GtkSpinButton    *spin,
            double            value)
{
  GtkAdjustment *adjustment = gtk_spin_button_get_adjustment (spin);

  if (!isfinite (value))
    return;
  self->showing++;
  if (value < gtk_adjustment_get_lower (adjustment))
    gtk_adjustment_set_lower (adjustment, value);
  if (value > gtk_adjustment_get_upper (adjustment))
    gtk_adjustment_set_upper (adjustment, value);
  gtk_adjustment_set_value (adjustment, value);
  self->showing--;
}

static void
configure_field (KmEffectorFields *self,
                 GtkSpinButton    *spin,
                 KmQuantity        quantity,
                 KmUnit            unit,
                 double            window)
{
  GtkAdjustment *adjustment = gtk_spin_button_get_adjustment (spin);

  self->showing++;
  gtk_spin_button_set_digits (spin, unit.digits);
  gtk_spin_button_set_increments (spin, unit.step, unit.step * 10.0);
  gtk_adjustment_set_lower (adjustment, MIN (-window * unit.scale,
                                             gtk_adjustment_get_lower (adjustment)));
  gtk_adjustment_set_upper (adjustment, MAX (window * unit.scale,
                                             gtk_adjustment_get_upper (adjustment)));
  km_number_field_set_unit (spin, quantity, unit.scale, unit.symbol);
  self->showing--;
}

/* The fields' units: the length unit of the Pose tab, degrees. */
static void
configure_fields (KmEffectorFields *self)
{
  KmUnit angle = angle_unit ();
  g_autofree char *position = NULL, *orientation = NULL;

  self->length = km_unit_for_length (self->length_unit);
  for (guint i = FIELD_X; i <= FIELD_Z; i++)
    {
      GtkAdjustment *adjustment = gtk_spin_button_get_adjustment (self->fields[i]);

      /* A new unit: the window is the new unit's, not the old one's scaled. */
      self->showing++;
      gtk_adjustment_configure (adjustment, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
      self->showing--;
      configure_field (self, self->fields[i], KM_QUANTITY_LENGTH, self->length, LENGTH_WINDOW);
    }
  for (guint i = FIELD_ROLL; i <= FIELD_YAW; i++)
    configure_field (self, self->fields[i], KM_QUANTITY_ANGLE, angle, G_PI);

  /* Translators: heading of the end effector's X, Y, Z fields; %s is their unit ("m", "mm") */
  position = g_strdup_printf (_("Position (%s)"), self->length.symbol);
  gtk_label_set_text (self->position_heading, position);
  /* Translators: heading of the end effector's roll, pitch, yaw fields; %s is their unit
   * ("°") */
  orientation = g_strdup_printf (_("Orientation (%s)"), angle.symbol);
  gtk_label_set_text (self->orientation_heading, orientation);
}

/* A field that only shows its value: no text to type, its +/− buttons insensitive (they
 * would change nothing), @why in its tooltip. */
static void
set_field_read_only (GtkSpinButton *spin,
                     gboolean       read_only,
                     const char    *why)
{
  gtk_editable_set_editable (GTK_EDITABLE (spin), !read_only);
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (spin)); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_BUTTON (child))
      gtk_widget_set_sensitive (child, !read_only);
  gtk_widget_set_tooltip_text (GTK_WIDGET (spin), read_only ? why : NULL);
}

/* Shows the end effector's pose in the pose shown, or why there is none to show. */
static void
refresh (KmEffectorFields *self)
{
  KmSkeleton *skeleton = self->document != NULL ? km_document_get_skeleton (self->document)
                                                : NULL;
  KmTargetTrack *targets;
  KmTransform point;
  KmVec3 rpy;
  int effector;
  double scale = angle_unit ().scale;
  g_autofree char *name = NULL;

  /* No body with joints that move: the Pose tab says so below. */
  if (skeleton == NULL || km_skeleton_get_n_dof (skeleton) == 0)
    {
      gtk_widget_set_visible (self->content, FALSE);
      return;
    }
  gtk_widget_set_visible (self->content, TRUE);

  effector = km_document_get_effector (self->document);
  if (effector < 0 || !km_document_get_effector_point (self->document, &point))
    {
      gtk_widget_set_sensitive (self->grid, FALSE);
      gtk_label_set_text (GTK_LABEL (self->effector_label), "");
      gtk_widget_set_visible (self->effector_label, FALSE);
      show_reason (self,
                   /* Translators: why the End Effector section of the Pose tab shows no
                    * pose; "Use as End Effector" is the item of a joint's context menu */
                   _("No end effector: choose one with Use as End Effector in a joint’s "
                     "context menu."));
      return;
    }

  targets = km_document_get_targets (self->document);
  if (targets != NULL && km_target_track_has_effector_offset (targets))
    /* Translators: the joint the end effector section shows; its targets are for a tool
     * point off the joint. %s is the joint's name */
    name = g_strdup_printf (_("Tool point of %s"),
                            km_skeleton_get_joint (skeleton, (guint) effector)->name);
  else
    name = g_strdup (km_skeleton_get_joint (skeleton, (guint) effector)->name);
  gtk_label_set_text (GTK_LABEL (self->effector_label), name);
  gtk_widget_set_visible (self->effector_label, TRUE);
  gtk_widget_set_sensitive (self->grid, TRUE);

  self->position_only = targets != NULL && km_target_track_get_position_only (targets);
  for (guint i = FIELD_ROLL; i <= FIELD_YAW; i++)
    set_field_read_only (self->fields[i], self->position_only,
                         /* Translators: tooltip of the end effector's roll, pitch and yaw
                          * fields when they only show the orientation */
                         _("The targets are for the position only: the orientation is shown, "
                           "not set."));
  show_reason (self, self->position_only
                     /* Translators: under the end effector's roll, pitch and yaw fields,
                      * which then only show the orientation */
                     ? _("The targets are for the position only: the orientation is shown, "
                         "not set.")
                     : NULL);

  show_value (self, self->x_field, point.pos.x * self->length.scale);
  show_value (self, self->y_field, point.pos.y * self->length.scale);
  show_value (self, self->z_field, point.pos.z * self->length.scale);
  rpy = km_effector_fields_rpy_from_mat3 (&point.rot);
  show_value (self, self->roll_field, rpy.x * scale);
  show_value (self, self->pitch_field, rpy.y * scale);
  show_value (self, self->yaw_field, rpy.z * scale);
}

/* Asks the IK for the end effector at @target (world), as a 3-D drag of it does. */
static void
request_ik (KmEffectorFields  *self,
            const KmTransform *target)
{
  const double *q = km_document_get_pose (self->document, &self->request_n_dof);

  g_free (self->request_pose);
  self->request_pose = g_memdup2 (q, MAX (self->request_n_dof, 1) * sizeof (double));
  km_drag_ik_request (self->solver, self->document, km_document_get_effector (self->document),
                      FALSE, target);
}

static void
field_value_changed_cb (KmEffectorFields *self,
                        GtkSpinButton    *spin)
{
  guint index = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (spin), FIELD_INDEX_KEY));
  double value = gtk_spin_button_get_value (spin);
  KmTransform target;

  g_assert (KM_IS_EFFECTOR_FIELDS (self));

  if (self->showing > 0 || self->document == NULL)
    return;
  if (!km_document_get_effector_point (self->document, &target)
      || (index >= FIELD_ROLL && self->position_only))
    {
      refresh (self);
      return;
    }
  show_error (self, NULL);
  switch (index)
    {
    case FIELD_X:
      target.pos.x = value / self->length.scale;
      break;
    case FIELD_Y:
      target.pos.y = value / self->length.scale;
      break;
    case FIELD_Z:
      target.pos.z = value / self->length.scale;
      break;
    default:
      {
        double scale = angle_unit ().scale;
        KmVec3 rpy = {
          gtk_spin_button_get_value (self->roll_field) / scale,
          gtk_spin_button_get_value (self->pitch_field) / scale,
          gtk_spin_button_get_value (self->yaw_field) / scale,
        };

        km_effector_fields_mat3_from_rpy (rpy, &target.rot);
      }
      break;
    }
  request_ik (self, &target);
}

/* The IK's answer to a typed value: the body goes there as one undo step of its own. */
static void
solver_solved_cb (KmEffectorFields   *self,
                  const KmIkSolution *solution,
                  gint64              request_time,
                  KmDragSolver       *solver)
{
  const double *q;
  guint n_dof;
  gboolean orientation;
  g_autofree char *reason = NULL;

  g_assert (KM_IS_EFFECTOR_FIELDS (self));

  if (self->document == NULL || self->request_pose == NULL)
    return;
  q = km_document_get_pose (self->document, &n_dof);
  /* The pose changed since the value was typed (a frame change, an undo, another
   * body): the answer is for a pose no longer shown. */
  if (n_dof != solution->n_dof || n_dof != self->request_n_dof
      || memcmp (q, self->request_pose, n_dof * sizeof (double)) != 0)
    {
      g_clear_pointer (&self->request_pose, g_free);
      refresh (self);
      return;
    }
  g_clear_pointer (&self->request_pose, g_free);

  self->applying++;
  km_document_close_edit (self->document);
  km_document_set_pose (self->document, solution->q, solution->n_dof);
  km_document_close_edit (self->document);
  self->applying--;
  /* The fields show where the end effector went, not the typed value. */
  refresh (self);

  orientation = !self->position_only && km_document_get_solves_orientation (self->document);
  reason = km_effector_fields_describe_miss (solution, orientation);
  if (reason != NULL)
    show_error (self, reason);
}

static void
field_refused_cb (GtkSpinButton *spin,
                  const char    *reason,
                  gpointer       user_data)
{
  show_error (KM_EFFECTOR_FIELDS (user_data), reason);
}

/* The user types again: the reason for the refused text goes. */
static void
field_typed_cb (GtkSpinButton *spin,
                gpointer       user_data)
{
  show_error (KM_EFFECTOR_FIELDS (user_data), NULL);
}

static void
solver_busy_cb (KmEffectorFields *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

static void
document_changed_cb (KmEffectorFields *self)
{
  g_assert (KM_IS_EFFECTOR_FIELDS (self));

  /* The pose shown changed by something else than the typed value's answer (an undo, a
   * frame change, a solve, a drag): a "Not reached" is about a pose no longer shown. */
  if (self->applying == 0)
    show_error (self, NULL);
  refresh (self);
}

static void
km_effector_fields_dispose (GObject *object)
{
  KmEffectorFields *self = KM_EFFECTOR_FIELDS (object);

  if (self->solver != NULL)
    km_drag_solver_cancel (self->solver);
  g_clear_object (&self->solver);
  if (self->document_signals != NULL)
    g_signal_group_set_target (self->document_signals, NULL);
  g_clear_object (&self->document_signals);
  g_clear_object (&self->document);
  gtk_widget_dispose_template (GTK_WIDGET (self), KM_TYPE_EFFECTOR_FIELDS);

  G_OBJECT_CLASS (km_effector_fields_parent_class)->dispose (object);
}

static void
km_effector_fields_finalize (GObject *object)
{
  KmEffectorFields *self = KM_EFFECTOR_FIELDS (object);

  g_free (self->length_unit);
  g_free (self->request_pose);

  G_OBJECT_CLASS (km_effector_fields_parent_class)->finalize (object);
}

static void
km_effector_fields_get_property (GObject    *object,
                                 guint       prop_id,
                                 GValue     *value,
                                 GParamSpec *pspec)
{
  KmEffectorFields *self = KM_EFFECTOR_FIELDS (object);

  switch (prop_id)
    {
    case PROP_DOCUMENT:
      g_value_set_object (value, self->document);
      break;
    case PROP_LENGTH_UNIT:
      g_value_set_string (value, self->length_unit);
      break;
    case PROP_BUSY:
      g_value_set_boolean (value, km_effector_fields_get_busy (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
km_effector_fields_set_property (GObject      *object,
                                 guint         prop_id,
                                 const GValue *value,
                                 GParamSpec   *pspec)
{
  KmEffectorFields *self = KM_EFFECTOR_FIELDS (object);

  switch (prop_id)
    {
    case PROP_DOCUMENT:
      km_effector_fields_set_document (self, g_value_get_object (value));
      break;
    case PROP_LENGTH_UNIT:
      km_effector_fields_set_length_unit (self, g_value_get_string (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
km_effector_fields_class_init (KmEffectorFieldsClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = km_effector_fields_dispose;
  object_class->finalize = km_effector_fields_finalize;
  object_class->get_property = km_effector_fields_get_property;
  object_class->set_property = km_effector_fields_set_property;

  properties[PROP_DOCUMENT] =
    g_param_spec_object ("document", NULL, NULL, KM_TYPE_DOCUMENT,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* The length-unit setting's nick ("metres", "millimetres"), as the Pose tab shows. */
  properties[PROP_LENGTH_UNIT] =
    g_param_spec_string ("length-unit", NULL, NULL, "metres",
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* Whether a typed value is still being solved for (km_effector_fields_get_busy()). */
  properties[PROP_BUSY] =
    g_param_spec_boolean ("busy", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/kinema/Kinema/ui/km-effector-fields.ui");
  gtk_widget_class_bind_template_child (widget_class, KmEffectorFields, content);
  gtk_widget_class_bind_template_child (widget_class, KmEffectorFields, effector_label);
  gtk_widget_class_bind_template_child (widget_class, KmEffectorFields, grid);
  gtk_widget_class_bind_template_child (widget_class, KmEffectorFields, position_heading);
  gtk_widget_class_bind_template_child (widget_class, KmEffectorFields, orientation_heading);
  gtk_widget_class_bind_template_child (widget_class, KmEffectorFields, x_field);
  gtk_widget_class_bind_template_child (widget_class, KmEffectorFields, y_field);
  gtk_widget_class_bind_template_child (widget_class, KmEffectorFields, z_field);
  gtk_widget_class_bind_template_child (widget_class, KmEffectorFields, roll_field);
  gtk_widget_class_bind_template_child (widget_class, KmEffectorFields, pitch_field);
  gtk_widget_class_bind_template_child (widget_class, KmEffectorFields, yaw_field);
  gtk_widget_class_bind_template_child (widget_class, KmEffectorFields, reason_label);
  gtk_widget_class_bind_template_child (widget_class, KmEffectorFields, error_label);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
km_effector_fields_init (KmEffectorFields *self)
{
  /* Translators: the names of the end effector's fields, for the message of a number typed
   * out of range */
  const char *names[N_FIELDS] = { N_("X"), N_("Y"), N_("Z"), N_("Roll"), N_("Pitch"),
                                  N_("Yaw") };

  gtk_widget_init_template (GTK_WIDGET (self));

  self->length_unit = g_strdup ("metres");
  self->fields[FIELD_X] = self->x_field;
  self->fields[FIELD_Y] = self->y_field;
  self->fields[FIELD_Z] = self->z_field;
  self->fields[FIELD_ROLL] = self->roll_field;
  self->fields[FIELD_PITCH] = self->pitch_field;
  self->fields[FIELD_YAW] = self->yaw_field;
  for (guint i = 0; i < N_FIELDS; i++)
    {
      GtkSpinButton *spin = self->fields[i];

      gtk_spin_button_set_adjustment (spin, gtk_adjustment_new (0.0, 0.0, 0.0, 0.0, 0.0, 0.0));
      gtk_spin_button_set_update_policy (spin, GTK_UPDATE_ALWAYS);
      g_object_set_data (G_OBJECT (spin), FIELD_INDEX_KEY, GUINT_TO_POINTER (i));
      km_number_field_attach (spin, field_refused_cb, field_typed_cb, self);
      km_number_field_set_name (spin, _(names[i]));
      /* Any finite number: the range is only the window the buttons move in. */
      km_number_field_set_open (spin, TRUE);
      km_scroll_guard_attach (GTK_WIDGET (spin));
      g_signal_connect_object (spin, "value-changed", G_CALLBACK (field_value_changed_cb), self,
                               G_CONNECT_SWAPPED);
    }
  configure_fields (self);

  self->solver = km_drag_solver_new ();
  g_signal_connect_object (self->solver, "solved", G_CALLBACK (solver_solved_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->solver, "notify::busy", G_CALLBACK (solver_busy_cb), self,
                           G_CONNECT_SWAPPED);

  self->document_signals = g_signal_group_new (KM_TYPE_DOCUMENT);
  g_signal_group_connect_swapped (self->document_signals, "notify::skeleton",
                                  G_CALLBACK (document_changed_cb), self);
  g_signal_group_connect_swapped (self->document_signals, "notify::pose",
                                  G_CALLBACK (document_changed_cb), self);
  g_signal_group_connect_swapped (self->document_signals, "notify::targets",
                                  G_CALLBACK (document_changed_cb), self);
  refresh (self);
}

GtkWidget *
km_effector_fields_new (void)
{
  return g_object_new (KM_TYPE_EFFECTOR_FIELDS, NULL);
}

KmDocument *
km_effector_fields_get_document (KmEffectorFields *self)
{
  g_return_val_if_fail (KM_IS_EFFECTOR_FIELDS (self), NULL);

  return self->document;
}

void
km_effector_fields_set_document (KmEffectorFields *self,
                                 KmDocument       *document)
{
  g_return_if_fail (KM_IS_EFFECTOR_FIELDS (self));
  g_return_if_fail (document == NULL || KM_IS_DOCUMENT (document));

  if (!g_set_object (&self->document, document))
    return;
  km_drag_solver_cancel (self->solver);
  g_clear_pointer (&self->request_pose, g_free);
  g_signal_group_set_target (self->document_signals, document);
  show_error (self, NULL);
  refresh (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DOCUMENT]);
}

const char *
km_effector_fields_get_length_unit (KmEffectorFields *self)
{
  g_return_val_if_fail (KM_IS_EFFECTOR_FIELDS (self), NULL);

  return self->length_unit;
}

void
km_effector_fields_set_length_unit (KmEffectorFields *self,
                                    const char       *length_unit)
{
  g_return_if_fail (KM_IS_EFFECTOR_FIELDS (self));

  if (length_unit == NULL)
    length_unit = "metres";
  if (g_strcmp0 (self->length_unit, length_unit) == 0)
    return;
  g_free (self->length_unit);
  self->length_unit = g_strdup (length_unit);
  configure_fields (self);
  refresh (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LENGTH_UNIT]);
}

/* Whether a typed value is still being solved for (its answer not yet applied). */
gboolean
km_effector_fields_get_busy (KmEffectorFields *self)
{
  g_return_val_if_fail (KM_IS_EFFECTOR_FIELDS (self), FALSE);

  return km_drag_solver_get_busy (self->solver);
}

/**
 * km_effector_fields_rpy_from_mat3:
 * @rot: a rotation matrix
 *
 * Roll, pitch and yaw with R = Rz(yaw) · Ry(pitch) · Rx(roll) (turns about the fixed X, Y
 * then Z axes, Choreonoid's rpyFromRot()); pitch in [−π/2, π/2]. At pitch ±π/2 the roll and
 * yaw turn about one axis: yaw is 0 and the roll takes the whole turn.
 *
 * Returns: (roll, pitch, yaw) in radians
 */
KmVec3
km_effector_fields_rpy_from_mat3 (const KmMat3 *rot)
{
  const double (*m)[3] = rot->m;
  double c = hypot (m[0][0], m[1][0]);

  if (c < 1e-12)
    return (KmVec3) { atan2 (-m[1][2], m[1][1]), atan2 (-m[2][0], c), 0.0 };
  return (KmVec3) { atan2 (m[2][1], m[2][2]), atan2 (-m[2][0], c), atan2 (m[1][0], m[0][0]) };
}

/**
 * km_effector_fields_mat3_from_rpy:
 * @rpy: roll, pitch and yaw (radians)
 * @rot: (out): R = Rz(yaw) · Ry(pitch) · Rx(roll)
 */
void
km_effector_fields_mat3_from_rpy (KmVec3  rpy,
                                  KmMat3 *rot)
{
  double cr = cos (rpy.x), sr = sin (rpy.x);
  double cp = cos (rpy.y), sp = sin (rpy.y);
  double cy = cos (rpy.z), sy = sin (rpy.z);

  *rot = (KmMat3) { {
    { cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr },
    { sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr },
    { -sp,     cp * sr,                cp * cr },
  } };
}

/* A distance (m) or an angle (rad) small enough that the unit's digits would show it as
 * 0: two significant digits in the smaller unit. */
static char *
format_miss_distance (double metres)
{
  KmUnit metre = km_unit_for_length ("metres"), millimetre = km_unit_for_length ("millimetres");

  if (metres >= 0.01)
    return g_strdup_printf ("%.3f %s", metres * metre.scale, metre.symbol);
  if (metres >= 1e-4)
    return g_strdup_printf ("%.1f %s", metres * millimetre.scale, millimetre.symbol);
  return g_strdup_printf ("%.2g %s", metres * millimetre.scale, millimetre.symbol);
}

static char *
format_miss_angle (double radians)
{
  double degrees = km_rad_to_deg (radians);

  return degrees >= 0.1 ? g_strdup_printf ("%.1f°", degrees)
                        : g_strdup_printf ("%.2g°", degrees);
}

/**
 * km_effector_fields_describe_miss:
 * @solution: the IK's answer to a typed value
 * @orientation: whether the orientation was solved for
 *
 * Why the end effector is not at the typed value: how far from it it stopped, with the
 * digits that show it (never "0.000 m"). The IK's own judgement (its tolerances, as its
 * problem had them) decides whether it was reached.
 *
 * Returns: (transfer full) (nullable): the message, or %NULL where the value was reached
 */
char *
km_effector_fields_describe_miss (const KmIkSolution *solution,
                                  gboolean            orientation)
{
  g_autofree char *distance = NULL;

  g_return_val_if_fail (solution != NULL, NULL);

  if (solution->converged
      || !km_ik_residual_missed (solution->pos_err, solution->rot_err, orientation))
    return NULL;
  distance = format_miss_distance (solution->pos_err);
  if (orientation && solution->rot_err > KM_IK_DEFAULT_ORIENTATION_TOLERANCE)
    {
      g_autofree char *turn = format_miss_angle (solution->rot_err);

      /* Translators: the IK could not put the end effector at the pose typed into the
       * End Effector fields; the first %s is how far from it it stopped ("12.5 mm"),
       * the second how far it is turned from it ("3.0°") */
      return g_strdup_printf (_("Not reached: the end effector stops %s and %s away from it"),
                              distance, turn);
    }
  /* Translators: the IK could not put the end effector at the position typed into the
   * End Effector fields; %s is how far from it it stopped ("12.5 mm") */
  return g_strdup_printf (_("Not reached: the end effector stops %s away from it"), distance);
}
