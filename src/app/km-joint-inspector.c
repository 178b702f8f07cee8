/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-joint-inspector"

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n.h>

#include "km-joint-inspector.h"

#include "km-body-item.h"
#include "km-document-edit.h"
#include "km-document-skeleton.h"
#include "km-file-chooser-folder.h"
#include "km-number-field.h"
#include "km-scroll-guard.h"
#include "km-skeleton-edit.h"
#include "km-skeleton-outline.h"
#include "km-units.h"

/*
 * The selected joint of the document's body, field by field, plus the joint hierarchy
 * (KmSkeletonOutline) and the "skeleton" actions. Each field applies one
 * km_skeleton_edit_* function; a refused value shows the reason under the field and the
 * field goes back to the skeleton's value. Angles (the frame's rotation, a revolute or
 * spherical joint's limits and linked offset) are shown in the unit of the angle-unit
 * property, stored in radians, as the Pose tab shows joint values; lengths (offsets, a
 * prismatic joint's limits and linked offset) in the unit of the length-unit property,
 * stored in metres. The window binds both to the preferences. The spin buttons are number
 * fields (km-number-field.c): text that is no number is refused with the reason under the
 * field, a reason goes once the user types in that field again, and leaving a field as it
 * shows the value is no edit.
 */

#define N_AXES 3

struct _KmJointInspector
{
  GtkWidget           parent_instance;

  /* Template widgets */
  GtkPaned           *paned;
  KmSkeletonOutline  *outline;
  GtkStack           *stack;
  GtkLabel           *offset_title;
  GtkLabel           *rotation_title;
  GtkEntry           *name_entry;
  GtkLabel           *name_error;
  GtkDropDown        *type_dropdown;
  GtkLabel           *type_error;
  GtkDropDown        *parent_dropdown;
  GtkStringList      *parent_names;
  GtkLabel           *parent_error;
  GtkSpinButton      *offset_x;
  GtkSpinButton      *offset_y;
  GtkSpinButton      *offset_z;
  GtkLabel           *offset_error;
  GtkSpinButton      *rotation_x;
  GtkSpinButton      *rotation_y;
  GtkSpinButton      *rotation_z;
  GtkLabel           *rotation_error;
  GtkSpinButton      *axis_x;
  GtkSpinButton      *axis_y;
  GtkSpinButton      *axis_z;
  GtkWidget          *axis_presets;
  GtkLabel           *axis_error;
  GtkCheckButton     *limited_0;
  GtkCheckButton     *limited_1;
  GtkCheckButton     *limited_2;
  GtkSpinButton      *min_0;
  GtkSpinButton      *min_1;
  GtkSpinButton      *min_2;
  GtkSpinButton      *max_0;
  GtkSpinButton      *max_1;
  GtkSpinButton      *max_2;
  GtkLabel           *limit_unit_0;
  GtkLabel           *limit_unit_1;
  GtkLabel           *limit_unit_2;
  GtkLabel           *limit_unit_max_0;   /* (the same units, beside the max fields) */
  GtkLabel           *limit_unit_max_1;
  GtkLabel           *limit_unit_max_2;
  GtkLabel           *limit_axis_0;
  GtkLabel           *limit_axis_1;
  GtkLabel           *limit_axis_2;
  GtkLabel           *limit_error;
  GtkLabel           *shapes_label;
  GtkWidget          *mimic_title;
  GtkLabel           *mimic_label;

  /* Owned */
  KmDocument         *document;
  GSignalGroup       *document_signals;
  GSimpleActionGroup *actions;
  char               *angle_unit;
  char               *length_unit;
  GFile              *saving_file;  /* the file a save from here is writing, or NULL */
  GApplication       *saving_app;   /* held while it is written */

  gboolean            updating;
  /* A field's edit is being applied (apply()): the skeleton is replaced under the fields,
   * with no joint selected for a moment. */
  gboolean            applying;

  /* The joint tree's share of the paned's height (split_fitted); the position fitted
   * last, and the paned's height then. */
  double              split;
  int                 split_position;
  int                 split_size;
  gboolean            fitting;
  /* The joint tree's height restored from the settings (km_joint_inspector_set_split_height),
   * which it gets, within the minimums, until the user moves the handle; 0: none. */
  int                 split_height;
  int                 chosen_height;   /* the position the user moved the handle to last */
};

/* The joint tree and the inspector under it share the paned by a fraction, each kept at
 * least this tall where the paned allows: a position in pixels, which GtkPaned scales
 * with its height, stayed squeezed after a short pane (a tall Messages pane) and left the
 * inspector a sliver once the pane grew again. */
#define DEFAULT_SPLIT 0.45
#define MIN_OUTLINE_HEIGHT 80
#define MIN_INSPECTOR_HEIGHT 200

enum {
  PROP_0,
  PROP_DOCUMENT,
  PROP_ANGLE_UNIT,
  PROP_LENGTH_UNIT,
  PROP_SAVING_FILE,
  N_PROPS
};

G_DEFINE_FINAL_TYPE (KmJointInspector, km_joint_inspector, GTK_TYPE_WIDGET)

static GParamSpec *properties[N_PROPS];

static const KmJoint *
selected_joint (KmJointInspector *self,
                KmSkeleton      **skeleton,
                guint            *index)
{
  KmSkeleton *s = self->document ? km_document_get_skeleton (self->document) : NULL;
  int joint = self->document ? km_document_get_selected_joint (self->document) : -1;

  if (s == NULL || joint < 0 || (guint) joint >= km_skeleton_get_n_joints (s))
    return NULL;
  if (skeleton != NULL)
    *skeleton = s;
  if (index != NULL)
    *index = (guint) joint;
  return km_skeleton_get_joint (s, (guint) joint);
}

static KmUnit
length_unit (KmJointInspector *self)
{
  return km_unit_for_length (self->length_unit);
}

static KmUnit
angle_unit (KmJointInspector *self)
{
  return km_unit_for_angle (self->angle_unit);
}

/* Display units per document unit of a joint's limits. */
static double
limit_scale (KmJointInspector *self,
             const KmJoint    *joint)
{
  return joint->type == KM_JOINT_PRISMATIC ? length_unit (self).scale : angle_unit (self).scale;
}

/* The digits of an angle field: @degree_digits in degrees; in radians (57° each) two more,
 * for the same resolution (as the Pose tab's units: km_unit_for_angle()). */
static guint
angle_digits (KmUnit unit,
              guint  degree_digits)
{
  return unit.scale == 1.0 ? degree_digits + 2 : degree_digits;
}

/* @number and @unit's symbol as a field writes them: "5.7°", "0.1 rad". */
static char *
with_unit (const char *number,
           const char *symbol)
{
  if (g_unichar_isalnum (g_utf8_get_char (symbol)))
    return g_strdup_printf ("%s %s", number, symbol);
  return g_strconcat (number, symbol, NULL);
}

/* A shown length back in metres: the stored value itself where the field still shows it,
 * so that editing one field leaves the others' values exactly as they were. */
static double
length_from_shown (double shown,
                   double stored,
                   double scale)
{
  return shown == stored * scale ? stored : shown / scale;
}

/* Range, digits and steps of a length field. Lengths are one digit finer than the joint
 * panel's values: offsets come from drawings, to a tenth of a millimetre or better. */
static void
configure_length_spin (GtkSpinButton *spin,
                       KmUnit         unit)
{
  GtkAdjustment *adjustment = gtk_spin_button_get_adjustment (spin);

  gtk_spin_button_set_digits (spin, unit.digits + 1);
  gtk_editable_set_width_chars (GTK_EDITABLE (spin), 5);
  gtk_spin_button_set_increments (spin, unit.step, unit.step * 10.0);
  gtk_adjustment_set_lower (adjustment, -1000.0 * unit.scale);
  gtk_adjustment_set_upper (adjustment, 1000.0 * unit.scale);
}

/* Angle limits up to a hundred turns (±36000° or ±200π rad), in @unit. In radians with the
 * Pose tab's digits (km_unit_for_angle()), not two more, and a character wider: "rad"
 * beside the field takes the room "°" leaves it, and "-6.28319" was cut off at the pane's
 * width (rev21-gui finding 8). A limit shown rounded stays exact until it is typed
 * (km-number-field.c). */
static void
configure_angle_limit_spin (GtkSpinButton *spin,
                            KmUnit         unit)
{
  GtkAdjustment *adjustment = gtk_spin_button_get_adjustment (spin);

  gtk_spin_button_set_digits (spin, unit.scale == 1.0 ? unit.digits : 3);
  gtk_editable_set_width_chars (GTK_EDITABLE (spin), unit.scale == 1.0 ? 6 : 5);
  gtk_spin_button_set_increments (spin, unit.step, unit.step * 10.0);
  gtk_adjustment_set_lower (adjustment, -200.0 * G_PI * unit.scale);
  gtk_adjustment_set_upper (adjustment, 200.0 * G_PI * unit.scale);
}

/* The frame's euler angles, up to a turn either way, in @unit. */
static void
configure_rotation_spin (GtkSpinButton *spin,
                         KmUnit         unit)
{
  GtkAdjustment *adjustment = gtk_spin_button_get_adjustment (spin);

  gtk_spin_button_set_digits (spin, angle_digits (unit, 2));
  gtk_spin_button_set_increments (spin, unit.step, unit.step * 15.0);
  gtk_adjustment_set_lower (adjustment, -2.0 * G_PI * unit.scale);
  gtk_adjustment_set_upper (adjustment, 2.0 * G_PI * unit.scale);
}

/* A limit field at the far end of its range (the min field at its lowest, the max field at
 * its highest) is an open end: that side is not limited (a joint limited on one side only,
 * KmLimit with an infinite end). It shows −∞ or ∞, and typing ∞, inf or unlimited (with
 * a sign or not) puts it there. A typed number never does (limit_word): one at or beyond
 * the open end is set to the nearest number short of it, and the user is told so, as a
 * number field tells of any number outside its range. */
#define OPEN_END_KEY "km-open-end"
#define LIMIT_UNIT_KEY "km-limit-unit"
#define LIMIT_CLAMPED_KEY "km-limit-clamped"

/* The unit a limit field shows (km_number_field_set_unit()), for reading typed numbers. */
typedef struct
{
  KmQuantity quantity;
  double     scale;
  char      *symbol;
} LimitUnit;

static void
limit_unit_free (LimitUnit *unit)
{
  g_free (unit->symbol);
  g_free (unit);
}

static void
set_limit_unit (GtkSpinButton *spin,
                KmQuantity     quantity,
                double         scale,
                const char    *symbol)
{
  LimitUnit *unit = g_new0 (LimitUnit, 1);

  km_number_field_set_unit (spin, quantity, scale, symbol);
  unit->quantity = quantity;
  unit->scale = scale;
  unit->symbol = g_strdup (symbol);
  g_object_set_data_full (G_OBJECT (spin), LIMIT_UNIT_KEY, unit,
                          (GDestroyNotify) limit_unit_free);
}

/* Whether @value is the open end of @spin. */
static gboolean
is_open_end (GtkSpinButton *spin,
             double         value)
{
  GtkAdjustment *adjustment = gtk_spin_button_get_adjustment (spin);
  int side = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (spin), OPEN_END_KEY));

  return side < 0 ? value <= gtk_adjustment_get_lower (adjustment)
                  : side > 0 && value >= gtk_adjustment_get_upper (adjustment);
}

static gboolean
at_open_end (GtkSpinButton *spin)
{
  return is_open_end (spin, gtk_spin_button_get_value (spin));
}

/* KmNumberFieldFormat of the limit fields. */
static char *
limit_format (GtkSpinButton *spin,
              double         value)
{
  int side = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (spin), OPEN_END_KEY));

  if (!is_open_end (spin, value))
    return NULL;
  return g_strdup (side < 0 ? "−∞" : "∞");
}

/* Beyond this a typed number is written in exponent form ("1e+300°"): in fixed digits it
 * can be hundreds of them, which no message has room for. */
#define LIMIT_NUMBER_FIXED_MAX 1e9

/* A number in @spin's digits and unit, as number fields write them in messages ("500.000°",
 * "0.5000 m"); a huge one compactly (LIMIT_NUMBER_FIXED_MAX). */
static char *
limit_number_text (GtkSpinButton *spin,
                   double         number)
{
  LimitUnit *unit = g_object_get_data (G_OBJECT (spin), LIMIT_UNIT_KEY);
  g_autofree char *text = fabs (number) < LIMIT_NUMBER_FIXED_MAX
                          ? g_strdup_printf ("%0.*f", (int) gtk_spin_button_get_digits (spin),
                                             number)
                          : g_strdup_printf ("%.6g", number);

  if (unit == NULL || unit->symbol == NULL || *unit->symbol == '\0')
    return g_steal_pointer (&text);
  return with_unit (text, unit->symbol);
}

/* A typed number at or beyond the open end of @spin: *@value is the nearest number short
 * of it (one step of the shown digits), and @spin keeps why (LIMIT_CLAMPED_KEY) for
 * limit_clamped_cb(). FALSE for any other text. */
static gboolean
limit_number_beyond (GtkSpinButton *spin,
                     const char    *text,
                     double        *value)
{
  GtkAdjustment *adjustment = gtk_spin_button_get_adjustment (spin);
  LimitUnit *unit = g_object_get_data (G_OBJECT (spin), LIMIT_UNIT_KEY);
  int side = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (spin), OPEN_END_KEY));
  double step = pow (10.0, -(double) gtk_spin_button_get_digits (spin));
  double lower = gtk_adjustment_get_lower (adjustment);
  double upper = gtk_adjustment_get_upper (adjustment);
  g_autofree char *typed_text = NULL, *lower_text = NULL, *upper_text = NULL;
  double typed;

  if (unit == NULL
      || !km_number_field_parse (text, unit->quantity, unit->scale, unit->symbol, &typed, NULL)
      || !is_open_end (spin, typed))
    return FALSE;
  /* The numbers the field takes: its range less the open end. */
  if (side < 0)
    lower += step;
  else
    upper -= step;
  *value = side < 0 ? lower : upper;
  typed_text = limit_number_text (spin, typed);
  lower_text = limit_number_text (spin, lower);
  upper_text = limit_number_text (spin, upper);
  g_object_set_data_full (G_OBJECT (spin), LIMIT_CLAMPED_KEY,
                          /* Translators: a number typed into a field was out of range and
                           * set to the nearest end: the typed number, the range's lower and
                           * upper end, then the number set, each with its unit ("500.0°") */
                          g_strdup_printf (_("%s is outside the range %s…%s; set to %s"),
                                           typed_text, lower_text, upper_text,
                                           side < 0 ? lower_text : upper_text),
                          g_free);
  return TRUE;
}

static void field_refused_cb (GtkSpinButton *spin,
                              const char    *reason,
                              gpointer       user_data);

/* Tells why a typed number is not the limit set (limit_number_beyond()): after the edit is
 * applied (which clears the reasons shown before), unless it was refused (its reason says
 * more). */
static void
limit_clamped_cb (GtkSpinButton    *spin,
                  KmJointInspector *self)
{
  g_autofree char *reason = g_object_steal_data (G_OBJECT (spin), LIMIT_CLAMPED_KEY);

  if (reason != NULL && !gtk_widget_get_visible (GTK_WIDGET (self->limit_error)))
    field_refused_cb (spin, reason, self);
}

/* KmNumberFieldWord of the limit fields. */
static gboolean
limit_word (GtkSpinButton *spin,
            const char    *text,
            double        *value)
{
  GtkAdjustment *adjustment = gtk_spin_button_get_adjustment (spin);
  int side = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (spin), OPEN_END_KEY));
  const char *word = text;

  g_object_set_data (G_OBJECT (spin), LIMIT_CLAMPED_KEY, NULL);
  if (limit_number_beyond (spin, text, value))
    {
      /* The value stays: no ::value-changed comes to say so after. */
      if (fabs (*value - gtk_adjustment_get_value (adjustment)) <= 1e-10)
        limit_clamped_cb (spin, KM_JOINT_INSPECTOR (gtk_widget_get_ancestor (
                                  GTK_WIDGET (spin), KM_TYPE_JOINT_INSPECTOR)));
      return TRUE;
    }
  if (g_str_has_prefix (word, "−"))
    word += strlen ("−");
  else if (*word == '-' || *word == '+')
    word++;
  if (strcmp (word, "∞") != 0 && g_ascii_strcasecmp (word, "inf") != 0 &&
      g_ascii_strcasecmp (word, "infinity") != 0 && g_ascii_strcasecmp (word, "unlimited") != 0 &&
      g_strcmp0 (word, _("unlimited")) != 0)
    return FALSE;
  *value = side < 0 ? gtk_adjustment_get_lower (adjustment) : gtk_adjustment_get_upper (adjustment);
  return TRUE;
}

/* A limit's end shown in @spin: its far end when the end is open. */
static void
show_limit_end (GtkSpinButton *spin,
                double         value,
                double         scale)
{
  GtkAdjustment *adjustment = gtk_spin_button_get_adjustment (spin);

  if (value == -INFINITY)
    gtk_spin_button_set_value (spin, gtk_adjustment_get_lower (adjustment));
  else if (value == INFINITY)
    gtk_spin_button_set_value (spin, gtk_adjustment_get_upper (adjustment));
  else
    gtk_spin_button_set_value (spin, value * scale);
}

/* The limit end @spin shows, in radians or metres: ±∞ at its open end. */
static double
limit_end (GtkSpinButton *spin,
           double         scale)
{
  int side = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (spin), OPEN_END_KEY));

  if (at_open_end (spin))
    return side < 0 ? -INFINITY : INFINITY;
  return gtk_spin_button_get_value (spin) / scale;
}

static void
limit_widgets (KmJointInspector  *self,
               guint              k,
               GtkCheckButton   **limited,
               GtkSpinButton    **min,
               GtkSpinButton    **max,
               GtkLabel         **unit)
{
  GtkCheckButton *l[N_AXES] = { self->limited_0, self->limited_1, self->limited_2 };
  GtkSpinButton *lo[N_AXES] = { self->min_0, self->min_1, self->min_2 };
  GtkSpinButton *hi[N_AXES] = { self->max_0, self->max_1, self->max_2 };
  GtkLabel *u[N_AXES] = { self->limit_unit_0, self->limit_unit_1, self->limit_unit_2 };

  g_assert (k < N_AXES);
  *limited = l[k];
  *min = lo[k];
  *max = hi[k];
  if (unit != NULL)
    *unit = u[k];
}

/* A spherical joint's limit row @k says which euler axis it limits, in the label under
 * its check button, and to a screen reader on the row's fields; other joints have one row,
 * about their axis. */
static void
show_limit_axis (KmJointInspector *self,
                 guint             k,
                 gboolean          shown)
{
  GtkLabel *labels[N_AXES] = { self->limit_axis_0, self->limit_axis_1, self->limit_axis_2 };
  /* Translators: under a spherical joint's "Limited" check button: the limit row is for
   * the turn about the euler axis X, Y or Z */
  const char *texts[N_AXES] = { N_("About X"), N_("About Y"), N_("About Z") };
  GtkCheckButton *limited;
  GtkSpinButton *min, *max;
  GtkAccessible *fields[3];

  limit_widgets (self, k, &limited, &min, &max, NULL);
  fields[0] = GTK_ACCESSIBLE (limited);
  fields[1] = GTK_ACCESSIBLE (min);
  fields[2] = GTK_ACCESSIBLE (max);
  gtk_widget_set_visible (GTK_WIDGET (labels[k]), shown);
  if (shown)
    gtk_label_set_text (labels[k], _(texts[k]));
  for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
    {
      if (shown)
        gtk_accessible_update_property (fields[i], GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                        _(texts[k]), -1);
      else
        gtk_accessible_reset_property (fields[i], GTK_ACCESSIBLE_PROPERTY_DESCRIPTION);
    }
}

static void
clear_errors (KmJointInspector *self)
{
  GtkLabel *labels[] = { self->name_error, self->type_error, self->parent_error,
                         self->offset_error, self->rotation_error, self->axis_error,
                         self->limit_error };

  for (guint i = 0; i < G_N_ELEMENTS (labels); i++)
    {
      gtk_label_set_text (labels[i], "");
      gtk_widget_set_visible (GTK_WIDGET (labels[i]), FALSE);
    }
}

static void
update_actions (KmJointInspector *self)
{
  static const char * const joint_actions[] = {
    "add-child", "insert-parent", "duplicate", "mirror", "rename", "axis-preset", NULL
  };
  static const char * const body_actions[] = {
    "save", "save-as", "export-body", "export-urdf", "save-project-with-body", NULL
  };
  guint index = 0;
  const KmJoint *joint = selected_joint (self, NULL, &index);
  gboolean has_body = self->document && km_document_get_skeleton (self->document) != NULL;
  GAction *action;

  for (guint i = 0; joint_actions[i] != NULL; i++)
    {
      action = g_action_map_lookup_action (G_ACTION_MAP (self->actions), joint_actions[i]);
      g_simple_action_set_enabled (G_SIMPLE_ACTION (action), joint != NULL);
    }
  for (guint i = 0; body_actions[i] != NULL; i++)
    {
      action = g_action_map_lookup_action (G_ACTION_MAP (self->actions), body_actions[i]);
      /* One save at a time (the next waits for the file to be written). */
      g_simple_action_set_enabled (G_SIMPLE_ACTION (action),
                                   has_body && self->saving_file == NULL);
    }
  action = g_action_map_lookup_action (G_ACTION_MAP (self->actions), "delete-joint");
  g_simple_action_set_enabled (G_SIMPLE_ACTION (action), joint != NULL && joint->parent >= 0);
  action = g_action_map_lookup_action (G_ACTION_MAP (self->actions), "new-skeleton");
  g_simple_action_set_enabled (G_SIMPLE_ACTION (action), self->document != NULL);
  action = g_action_map_lookup_action (G_ACTION_MAP (self->actions), "use-as-effector");
  g_simple_action_set_enabled (G_SIMPLE_ACTION (action),
                               joint != NULL
                               && km_document_can_set_effector (self->document, (int) index));
}

/* The shape types as the user reads them (km_shape_type_to_string() gives the file
 * formats' names). */
static const char *
shape_type_display_name (KmShapeType type)
{
  static const char * const names[] = {
    /* Translators: a kind of collision or visual shape of a link, in the Skeleton tab */
    [KM_SHAPE_BOX] = N_("Box"),
    /* Translators: a kind of collision or visual shape of a link, in the Skeleton tab */
    [KM_SHAPE_SPHERE] = N_("Sphere"),
    /* Translators: a kind of collision or visual shape of a link, in the Skeleton tab */
    [KM_SHAPE_CYLINDER] = N_("Cylinder"),
    /* Translators: a kind of collision or visual shape of a link, in the Skeleton tab */
    [KM_SHAPE_CONE] = N_("Cone"),
    /* Translators: a kind of collision or visual shape of a link, in the Skeleton tab */
    [KM_SHAPE_CAPSULE] = N_("Capsule"),
    /* Translators: a kind of shape of a link, in the Skeleton tab: a triangle mesh
     * (from a mesh file) */
    [KM_SHAPE_MESH] = N_("Mesh"),
  };

  g_return_val_if_fail (type < G_N_ELEMENTS (names), "");

  return _(names[type]);
}

static void
describe_shapes (KmJointInspector *self,
                 KmSkeleton       *skeleton,
                 guint             index)
{
  g_autoptr(GString) text = g_string_new (NULL);
  guint n = 0;
  KmShape * const *shapes = km_skeleton_get_shapes (skeleton, index, &n);

  for (guint i = 0; i < n; i++)
    {
      if (text->len > 0)
        g_string_append_c (text, '\n');
      g_string_append (text, shape_type_display_name (shapes[i]->type));
      if (shapes[i]->name != NULL)
        g_string_append_printf (text, " “%s”", shapes[i]->name);
    }
  gtk_label_set_text (self->shapes_label, n > 0 ? text->str : _("None"));
}

/* A linked joint follows its master: q = ratio · q[master] + offset, shown read-only. The
 * offset is in the unit its fields would show (an angle's or a length's). */
static void
describe_mimic (KmJointInspector *self,
                KmSkeleton       *skeleton,
                const KmJoint    *joint)
{
  g_autofree char *text = NULL;
  g_autofree char *number = NULL;
  g_autofree char *offset = NULL;
  gboolean follows = joint->mimic >= 0 && (guint) joint->mimic < km_skeleton_get_n_joints (skeleton);
  KmUnit unit = joint->type == KM_JOINT_PRISMATIC ? length_unit (self) : angle_unit (self);

  gtk_widget_set_visible (self->mimic_title, follows);
  gtk_widget_set_visible (GTK_WIDGET (self->mimic_label), follows);
  if (!follows)
    {
      gtk_label_set_text (self->mimic_label, "");
      return;
    }
  number = g_strdup_printf ("%g", joint->mimic_offset * unit.scale);
  offset = with_unit (number, unit.symbol);
  /* Translators: a linked joint's formula: the master joint's name, the ratio, the offset
   * with its unit ("15 mm", "5.72958°", "0.1 rad") */
  text = g_strdup_printf (_("follows %s × %g + %s"),
                          km_skeleton_get_joint (skeleton, (guint) joint->mimic)->name,
                          joint->mimic_ratio, offset);
  gtk_label_set_text (self->mimic_label, text);
}

static void
refresh (KmJointInspector *self)
{
  KmSkeleton *skeleton = NULL;
  guint index = 0;
  const KmJoint *joint = selected_joint (self, &skeleton, &index);
  GtkSpinButton *offset[3] = { self->offset_x, self->offset_y, self->offset_z };
  GtkSpinButton *axis[3] = { self->axis_x, self->axis_y, self->axis_z };
  gboolean has_axis;
  guint n_names;
  KmUnit length = length_unit (self);
  KmUnit angle = angle_unit (self);

  update_actions (self);
  /* While a field's edit is applied, the moment without a selected joint keeps the joint's
   * page: hiding it would take the focus from the field, whose GtkSpinButton then commits
   * its text again and forgets that the number typed was set to the end of its range
   * (km-number-field.c tells after the edit): the reason never showed. */
  if (joint == NULL && self->applying)
    return;
  if (joint == NULL)
    {
      gtk_stack_set_visible_child_name (self->stack, "empty");
      return;
    }

  self->updating = TRUE;
  gtk_stack_set_visible_child_name (self->stack, "joint");
  gtk_editable_set_text (GTK_EDITABLE (self->name_entry), joint->name);
  gtk_drop_down_set_selected (self->type_dropdown, (guint) joint->type);

  n_names = g_list_model_get_n_items (G_LIST_MODEL (self->parent_names));
  {
    g_autofree const char **names = g_new0 (const char *, km_skeleton_get_n_joints (skeleton) + 1);

    for (guint i = 0; i < km_skeleton_get_n_joints (skeleton); i++)
      names[i] = km_skeleton_get_joint (skeleton, i)->name;
    gtk_string_list_splice (self->parent_names, 0, n_names, names);
  }
  gtk_drop_down_set_selected (self->parent_dropdown,
                              joint->parent >= 0 ? (guint) joint->parent
                                                 : GTK_INVALID_LIST_POSITION);
  gtk_widget_set_sensitive (GTK_WIDGET (self->parent_dropdown), joint->parent >= 0);

  gtk_spin_button_set_value (offset[0], joint->offset.x * length.scale);
  gtk_spin_button_set_value (offset[1], joint->offset.y * length.scale);
  gtk_spin_button_set_value (offset[2], joint->offset.z * length.scale);
  {
    KmVec3 euler = km_quat_to_euler_xyz (joint->rotation);

    gtk_spin_button_set_value (self->rotation_x, euler.x * angle.scale);
    gtk_spin_button_set_value (self->rotation_y, euler.y * angle.scale);
    gtk_spin_button_set_value (self->rotation_z, euler.z * angle.scale);
  }
  gtk_spin_button_set_value (axis[0], joint->axis.x);
  gtk_spin_button_set_value (axis[1], joint->axis.y);
  gtk_spin_button_set_value (axis[2], joint->axis.z);
  has_axis = joint->type == KM_JOINT_REVOLUTE || joint->type == KM_JOINT_PRISMATIC;
  for (guint i = 0; i < 3; i++)
    gtk_widget_set_sensitive (GTK_WIDGET (axis[i]), has_axis);
  gtk_widget_set_sensitive (self->axis_presets, has_axis);

  for (guint k = 0; k < N_AXES; k++)
    {
      GtkCheckButton *limited;
      GtkSpinButton *min, *max;
      GtkLabel *unit;
      gboolean shown = k < joint->n_dof;
      const KmLimit *limit = &joint->limits[k];

      limit_widgets (self, k, &limited, &min, &max, &unit);
      gtk_widget_set_visible (GTK_WIDGET (limited), shown);
      gtk_widget_set_visible (GTK_WIDGET (min), shown);
      gtk_widget_set_visible (GTK_WIDGET (max), shown);
      gtk_widget_set_visible (GTK_WIDGET (unit), shown);
      show_limit_axis (self, k, shown && joint->type == KM_JOINT_SPHERICAL);
      if (!shown)
        continue;
      if (joint->type == KM_JOINT_PRISMATIC)
        {
          configure_length_spin (min, length);
          configure_length_spin (max, length);
          set_limit_unit (min, KM_QUANTITY_LENGTH, length.scale, length.symbol);
          set_limit_unit (max, KM_QUANTITY_LENGTH, length.scale, length.symbol);
        }
      else
        {
          configure_angle_limit_spin (min, angle);
          configure_angle_limit_spin (max, angle);
          set_limit_unit (min, KM_QUANTITY_ANGLE, angle.scale, angle.symbol);
          set_limit_unit (max, KM_QUANTITY_ANGLE, angle.scale, angle.symbol);
        }
      gtk_check_button_set_active (limited, limit->limited);
      gtk_widget_set_sensitive (GTK_WIDGET (min), limit->limited);
      gtk_widget_set_sensitive (GTK_WIDGET (max), limit->limited);
      if (limit->limited)
        {
          show_limit_end (min, limit->min, limit_scale (self, joint));
          show_limit_end (max, limit->max, limit_scale (self, joint));
        }
      else
        {
          gtk_spin_button_set_value (min, 0.0);
          gtk_spin_button_set_value (max, 0.0);
        }
      gtk_label_set_text (unit, joint->type == KM_JOINT_PRISMATIC ? length.symbol
                                                                   : angle.symbol);
    }

  describe_shapes (self, skeleton, index);
  describe_mimic (self, skeleton, joint);
  self->updating = FALSE;
}

/* The offset fields and their title in the length unit; then every shown length again. */
static void
show_length_unit (KmJointInspector *self)
{
  GtkSpinButton *offset[3] = { self->offset_x, self->offset_y, self->offset_z };
  KmUnit length = length_unit (self);
  g_autofree char *title = NULL;

  /* Translators: the title of a joint's offset fields; %s is their unit, "m" or "mm" */
  title = g_strdup_printf (_("Offset (%s)"), length.symbol);
  gtk_label_set_text (self->offset_title, title);
  self->updating = TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (offset); i++)
    {
      configure_length_spin (offset[i], length);
      km_number_field_set_unit (offset[i], KM_QUANTITY_LENGTH, length.scale, length.symbol);
    }
  self->updating = FALSE;
  refresh (self);
}

/* The rotation fields and their title in the angle unit; then every shown angle again. */
static void
show_angle_unit (KmJointInspector *self)
{
  GtkSpinButton *rotation[3] = { self->rotation_x, self->rotation_y, self->rotation_z };
  KmUnit angle = angle_unit (self);
  g_autofree char *title = NULL;

  /* Translators: the title of a joint frame's rotation fields (euler angles X, Y, Z, turning
   * about X first); %s is their unit, "°" or "rad" */
  title = g_strdup_printf (_("Rotation (%s)"), angle.symbol);
  gtk_label_set_text (self->rotation_title, title);
  self->updating = TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (rotation); i++)
    {
      configure_rotation_spin (rotation[i], angle);
      km_number_field_set_unit (rotation[i], KM_QUANTITY_ANGLE, angle.scale, angle.symbol);
    }
  self->updating = FALSE;
  refresh (self);
}

/* KmJointInspector:angle-unit, which the window binds to the angle-unit setting. */
static void
set_angle_unit (KmJointInspector *self,
                const char       *angle_unit)
{
  if (g_strcmp0 (self->angle_unit, angle_unit) == 0)
    return;
  g_free (self->angle_unit);
  self->angle_unit = g_strdup (angle_unit);
  show_angle_unit (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ANGLE_UNIT]);
}

static void
document_selected_joint_cb (KmJointInspector *self)
{
  clear_errors (self);
  refresh (self);
}

/* The skeleton changed (an edit here or elsewhere, undo, redo, a reload): the fields show
 * its values, which no refusal shown before is about any more. */
static void
document_skeleton_cb (KmJointInspector *self)
{
  clear_errors (self);
  refresh (self);
}

/* Applies an edit made by a field, or shows why it was refused under @error_label and
 * puts the skeleton's value back into the field. */
static gboolean
apply (KmJointInspector *self,
       KmSkeleton       *edited,
       GError           *error,
       GtkLabel         *error_label,
       const char       *label,
       const char       *select)
{
  g_autoptr(KmSkeleton) owned = edited;

  if (owned == NULL)
    {
      clear_errors (self);
      if (error_label != NULL)
        {
          gtk_label_set_text (error_label, error->message);
          gtk_widget_set_visible (GTK_WIDGET (error_label), TRUE);
        }
      else
        km_document_log (self->document, G_LOG_LEVEL_WARNING, "%s", error->message);
      refresh (self);
      return FALSE;
    }
  /* A field put back to the skeleton's value (after a refusal) is no edit: the reason
   * stays shown. */
  if (km_skeleton_equal (owned, km_document_get_skeleton (self->document), 0.0))
    return FALSE;
  clear_errors (self);
  self->applying = TRUE;
  km_document_edit_skeleton (self->document, owned, label, select);
  self->applying = FALSE;
  refresh (self);
  return TRUE;
}

static void
name_entry_activate_cb (KmJointInspector *self)
{
  g_autoptr(GError) error = NULL;
  KmSkeleton *skeleton;
  KmSkeleton *edited;
  guint index;
  const char *name = gtk_editable_get_text (GTK_EDITABLE (self->name_entry));

  if (self->updating || selected_joint (self, &skeleton, &index) == NULL)
    return;
  if (g_strcmp0 (name, km_skeleton_get_joint (skeleton, index)->name) == 0)
    return;
  edited = km_skeleton_edit_set_name (skeleton, index, name, &error);
  apply (self, edited, error, self->name_error, _("Rename Joint"), name);
}

static void
type_dropdown_selected_cb (KmJointInspector *self)
{
  g_autoptr(GError) error = NULL;
  KmSkeleton *skeleton;
  KmSkeleton *edited;
  guint index;
  const KmJoint *joint = selected_joint (self, &skeleton, &index);
  guint type = gtk_drop_down_get_selected (self->type_dropdown);

  if (self->updating || joint == NULL || type == GTK_INVALID_LIST_POSITION
      || type == (guint) joint->type)
    return;
  edited = km_skeleton_edit_set_type (skeleton, index, (KmJointType) type, &error);
  apply (self, edited, error, self->type_error, _("Change Joint Type"), NULL);
}

static void
parent_dropdown_selected_cb (KmJointInspector *self)
{
  g_autoptr(GError) error = NULL;
  KmSkeleton *skeleton;
  KmSkeleton *edited;
  guint index;
  const KmJoint *joint = selected_joint (self, &skeleton, &index);
  guint parent = gtk_drop_down_get_selected (self->parent_dropdown);

  if (self->updating || joint == NULL || parent == GTK_INVALID_LIST_POSITION
      || (int) parent == joint->parent)
    return;
  edited = km_skeleton_edit_set_parent (skeleton, index, parent, &error);
  apply (self, edited, error, self->parent_error, _("Reparent Joint"), NULL);
}

static void
offset_value_changed_cb (KmJointInspector *self)
{
  g_autoptr(GError) error = NULL;
  KmSkeleton *skeleton;
  KmSkeleton *edited;
  guint index;
  const KmJoint *joint = selected_joint (self, &skeleton, &index);
  double scale = length_unit (self).scale;
  KmVec3 offset;

  if (self->updating || joint == NULL)
    return;
  offset.x = length_from_shown (gtk_spin_button_get_value (self->offset_x), joint->offset.x, scale);
  offset.y = length_from_shown (gtk_spin_button_get_value (self->offset_y), joint->offset.y, scale);
  offset.z = length_from_shown (gtk_spin_button_get_value (self->offset_z), joint->offset.z, scale);
  edited = km_skeleton_edit_set_offset (skeleton, index, offset, &error);
  apply (self, edited, error, self->offset_error, _("Move Joint"), NULL);
}

/* The frame's turn as euler angles X, Y, Z in the angle unit (intrinsic, as in the JSON
 * formats). */
static void
rotation_value_changed_cb (KmJointInspector *self)
{
  g_autoptr(GError) error = NULL;
  KmSkeleton *skeleton;
  KmSkeleton *edited;
  guint index;
  KmVec3 euler;

  if (self->updating || selected_joint (self, &skeleton, &index) == NULL)
    return;
  euler = km_vec3_scale (km_vec3 (gtk_spin_button_get_value (self->rotation_x),
                                  gtk_spin_button_get_value (self->rotation_y),
                                  gtk_spin_button_get_value (self->rotation_z)),
                         1.0 / angle_unit (self).scale);
  edited = km_skeleton_edit_set_rotation (skeleton, index, km_quat_from_euler_xyz (euler),
                                          &error);
  apply (self, edited, error, self->rotation_error, _("Turn Joint Frame"), NULL);
}

static void
set_axis (KmJointInspector *self,
          KmVec3            axis)
{
  g_autoptr(GError) error = NULL;
  KmSkeleton *skeleton;
  KmSkeleton *edited;
  guint index;

  if (selected_joint (self, &skeleton, &index) == NULL)
    return;
  /* km_skeleton_edit_set_axis normalises; the fields then show the unit axis. */
  edited = km_skeleton_edit_set_axis (skeleton, index, axis, &error);
  apply (self, edited, error, self->axis_error, _("Change Joint Axis"), NULL);
}

static void
axis_value_changed_cb (KmJointInspector *self)
{
  KmVec3 axis;

  if (self->updating)
    return;
  axis.x = gtk_spin_button_get_value (self->axis_x);
  axis.y = gtk_spin_button_get_value (self->axis_y);
  axis.z = gtk_spin_button_get_value (self->axis_z);
  set_axis (self, axis);
}

/* The limits' reason shows right under the field it is about (each limit field has a
 * grid row under it, empty but for this): under the last field, a min field's refusal
 * read as the max field's, and the min field seemed to change back for no reason. */
static void
place_limit_error (KmJointInspector *self,
                   GtkWidget        *field)
{
  GtkWidget *label = GTK_WIDGET (self->limit_error);
  GtkWidget *grid = gtk_widget_get_parent (label);
  GtkLayoutChild *child;
  int column, row, width, height;

  if (field == NULL || !GTK_IS_GRID (grid) || gtk_widget_get_parent (field) != grid)
    return;
  gtk_grid_query_child (GTK_GRID (grid), field, &column, &row, &width, &height);
  child = gtk_layout_manager_get_layout_child (gtk_widget_get_layout_manager (grid), label);
  gtk_grid_layout_child_set_row (GTK_GRID_LAYOUT_CHILD (child), row + height);
}

/* @field: the check button or limit field that changed */
static void
limit_changed_cb (KmJointInspector *self,
                  GtkWidget        *field)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) edited = NULL;
  KmSkeleton *skeleton;
  guint index;
  const KmJoint *joint = selected_joint (self, &skeleton, &index);

  if (self->updating || joint == NULL)
    return;

  for (guint k = 0; k < MIN (joint->n_dof, N_AXES); k++)
    {
      GtkCheckButton *limited;
      GtkSpinButton *min, *max;
      gboolean on;
      double lo, hi;
      KmSkeleton *next;

      limit_widgets (self, k, &limited, &min, &max, NULL);
      on = gtk_check_button_get_active (limited);
      lo = limit_end (min, limit_scale (self, joint));
      hi = limit_end (max, limit_scale (self, joint));
      if (on == joint->limits[k].limited
          && (!on || ((lo == joint->limits[k].min || fabs (lo - joint->limits[k].min) < 1e-9)
                      && (hi == joint->limits[k].max
                          || fabs (hi - joint->limits[k].max) < 1e-9))))
        continue;
      if (on && !joint->limits[k].limited && lo == 0 && hi == 0)
        {
          /* Turning a limit on starts from a usable range, not [0, 0]. */
          lo = joint->type == KM_JOINT_PRISMATIC ? -0.5 : -G_PI;
          hi = -lo;
        }
      next = km_skeleton_edit_set_limit (edited ? edited : skeleton, index, k, on, lo, hi, &error);
      if (next == NULL)
        {
          if (on && lo > hi && (field == GTK_WIDGET (max) || field == GTK_WIDGET (min)))
            {
              /* Named for the field the user edited, with the other end it must fit. */
              g_autofree char *other = NULL;
              GError *named;

              if (field == GTK_WIDGET (max))
                {
                  other = limit_number_text (min, gtk_spin_button_get_value (min));
                  named = g_error_new (KM_SKELETON_EDIT_ERROR,
                                       KM_SKELETON_EDIT_ERROR_BAD_LIMITS,
                                       /* Translators: a joint's limit field refused a typed
                                        * maximum; %s is the minimum with its unit
                                        * ("−120.000°") */
                                       _("the maximum must not be less than the minimum (%s)"),
                                       other);
                }
              else
                {
                  other = limit_number_text (max, gtk_spin_button_get_value (max));
                  named = g_error_new (KM_SKELETON_EDIT_ERROR,
                                       KM_SKELETON_EDIT_ERROR_BAD_LIMITS,
                                       /* Translators: a joint's limit field refused a typed
                                        * minimum; %s is the maximum with its unit
                                        * ("90.000°") */
                                       _("the minimum must not be greater than the maximum (%s)"),
                                       other);
                }
              g_clear_error (&error);
              error = named;
            }
          place_limit_error (self, field == GTK_WIDGET (max) ? GTK_WIDGET (max)
                                                             : GTK_WIDGET (min));
          apply (self, NULL, error, self->limit_error, NULL, NULL);
          return;
        }
      g_clear_pointer (&edited, km_skeleton_unref);
      edited = next;
    }
  if (edited != NULL)
    apply (self, g_steal_pointer (&edited), NULL, self->limit_error, _("Change Joint Limits"),
           NULL);
}

static char *
unique_name (KmSkeleton *skeleton,
             const char *base)
{
  for (guint i = 1;; i++)
    {
      char *name = g_strdup_printf ("%s%u", base, i);

      if (km_skeleton_find_joint (skeleton, name) < 0)
        return name;
      g_free (name);
    }
}

static void
add_child_activated (GSimpleAction *action,
                     GVariant      *parameter,
                     gpointer       user_data)
{
  KmJointInspector *self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *name = NULL;
  KmSkeleton *skeleton;
  KmSkeleton *edited;
  guint index;

  if (selected_joint (self, &skeleton, &index) == NULL)
    return;
  name = unique_name (skeleton, "joint");
  edited = km_skeleton_edit_add_child (skeleton, index, name, KM_JOINT_REVOLUTE,
                                       (KmVec3) { 0.0, 0.0, 0.1 }, NULL, &error);
  apply (self, edited, error, NULL, _("Add Joint"), name);
}

static void
insert_parent_activated (GSimpleAction *action,
                         GVariant      *parameter,
                         gpointer       user_data)
{
  KmJointInspector *self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *name = NULL;
  KmSkeleton *skeleton;
  KmSkeleton *edited;
  guint index;

  if (selected_joint (self, &skeleton, &index) == NULL)
    return;
  name = unique_name (skeleton, "joint");
  edited = km_skeleton_edit_insert_parent (skeleton, index, name, KM_JOINT_REVOLUTE, NULL,
                                           &error);
  apply (self, edited, error, NULL, _("Insert Joint"), name);
}

static void
delete_joint_activated (GSimpleAction *action,
                        GVariant      *parameter,
                        gpointer       user_data)
{
  KmJointInspector *self = user_data;
  g_autoptr(GError) error = NULL;
  KmSkeleton *skeleton;
  KmSkeleton *edited;
  guint index;
  const KmJoint *joint = selected_joint (self, &skeleton, &index);
  g_autofree char *parent = NULL;

  if (joint == NULL)
    return;
  if (joint->parent >= 0)
    parent = g_strdup (km_skeleton_get_joint (skeleton, joint->parent)->name);
  edited = km_skeleton_edit_delete (skeleton, index, &error);
  apply (self, edited, error, NULL, _("Delete Joint"), parent);
}

static void
copy_activated (KmJointInspector *self,
                gboolean          mirror)
{
  g_autoptr(GError) error = NULL;
  KmSkeleton *skeleton;
  KmSkeleton *edited;
  guint index;
  int copy = -1;

  if (selected_joint (self, &skeleton, &index) == NULL)
    return;
  if (mirror)
    edited = km_skeleton_edit_mirror (skeleton, index, KM_MIRROR_PLANE_XZ, &copy, &error);
  else
    edited = km_skeleton_edit_duplicate (skeleton, index, &copy, &error);
  apply (self, edited, error, NULL, mirror ? _("Mirror Joints") : _("Duplicate Joints"),
         edited != NULL && copy >= 0 ? km_skeleton_get_joint (edited, copy)->name : NULL);
}

static void
duplicate_activated (GSimpleAction *action,
                     GVariant      *parameter,
                     gpointer       user_data)
{
  copy_activated (user_data, FALSE);
}

static void
mirror_activated (GSimpleAction *action,
                  GVariant      *parameter,
                  gpointer       user_data)
{
  copy_activated (user_data, TRUE);
}

static void
rename_activated (GSimpleAction *action,
                  GVariant      *parameter,
                  gpointer       user_data)
{
  KmJointInspector *self = user_data;

  gtk_widget_grab_focus (GTK_WIDGET (self->name_entry));
}

/* The selected joint becomes the end effector of the body's IK targets. */
static void
use_as_effector_activated (GSimpleAction *action,
                           GVariant      *parameter,
                           gpointer       user_data)
{
  KmJointInspector *self = user_data;
  guint index = 0;

  if (selected_joint (self, NULL, &index) != NULL)
    km_document_set_effector (self->document, (int) index);
}

static void
axis_preset_activated (GSimpleAction *action,
                       GVariant      *parameter,
                       gpointer       user_data)
{
  KmJointInspector *self = user_data;
  const char *which = g_variant_get_string (parameter, NULL);
  KmVec3 axis = { which[0] == 'x', which[0] == 'y', which[0] == 'z' };

  set_axis (self, axis);
}

static void
new_skeleton_activated (GSimpleAction *action,
                        GVariant      *parameter,
                        gpointer       user_data)
{
  KmJointInspector *self = user_data;

  if (self->document != NULL)
    km_document_new_skeleton (self->document, NULL);
}

typedef enum
{
  CHOSEN_SAVE,
  CHOSEN_EXPORT_BODY,
  CHOSEN_EXPORT_URDF,
  CHOSEN_SAVE_PROJECT_WITH_BODY,
} Chosen;

/* The file is written (or not): the actions are back, an error goes to the messages. */
static void
file_saved_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(KmJointInspector) self = user_data;
  g_autoptr(GApplication) app = g_steal_pointer (&self->saving_app);
  g_autoptr(GError) error = NULL;
  KmDocument *document = KM_DOCUMENT (source);
  gpointer tag = g_task_get_source_tag (G_TASK (result));
  gboolean ok;

  if (tag == km_document_save_skeleton_async)
    ok = km_document_save_skeleton_finish (document, result, &error);
  else if (tag == km_document_save_with_body_copies_async)
    ok = km_document_save_with_body_copies_finish (document, result, &error);
  else
    ok = km_document_export_skeleton_finish (document, result, &error);
  if (!ok)
    km_document_log (document, G_LOG_LEVEL_WARNING, "%s", error->message);

  if (app != NULL)
    g_application_release (app);
  g_clear_object (&self->saving_file);
  /* (Disposed meanwhile: no actions left to enable.) */
  if (self->actions != NULL)
    update_actions (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SAVING_FILE]);
}

/* Writes @file on a worker thread (KmJointInspector:saving-file meanwhile). */
static void
file_chosen (KmJointInspector *self,
             Chosen            what,
             GFile            *file)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkApplication *app = GTK_IS_WINDOW (root) ? gtk_window_get_application (GTK_WINDOW (root))
                                             : NULL;

  if (self->document == NULL || self->saving_file != NULL)
    return;
  self->saving_file = g_object_ref (file);
  /* The application does not quit before the file is complete. */
  if (app != NULL)
    {
      self->saving_app = G_APPLICATION (g_object_ref (app));
      g_application_hold (self->saving_app);
    }
  update_actions (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SAVING_FILE]);

  if (what == CHOSEN_SAVE)
    km_document_save_skeleton_async (self->document, file, NULL, file_saved_cb,
                                     g_object_ref (self));
  else if (what == CHOSEN_SAVE_PROJECT_WITH_BODY)
    km_document_save_with_body_copies_async (self->document, file, NULL, file_saved_cb,
                                             g_object_ref (self));
  else
    km_document_export_skeleton_async (self->document,
                                       what == CHOSEN_EXPORT_BODY ? KM_SKELETON_EXPORT_BODY
                                                                  : KM_SKELETON_EXPORT_URDF,
                                       file, NULL, file_saved_cb, g_object_ref (self));
}

static void
chooser_response_cb (GtkNativeDialog  *dialog,
                     int               response,
                     KmJointInspector *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));

      if (file != NULL)
        file_chosen (self, GPOINTER_TO_INT (g_object_get_data (G_OBJECT (dialog), "km-chosen")),
                     file);
    }
  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
}

/* The dialog starts in the folder of the body's model file, else the project's
 * (km_file_chooser_folder_for_item), not in the working directory; or, for a project
 * (@for_project), in the project's folder. */
G_GNUC_BEGIN_IGNORE_DEPRECATIONS
static void
choose_file (KmJointInspector *self,
             const char       *title,
             const char       *suggested_name,
             gboolean          for_project,
             Chosen            what)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkFileChooserNative *dialog;
  g_autoptr(GFile) folder = NULL;

  if (self->document != NULL && for_project)
    folder = km_file_chooser_folder_for_project (self->document);
  else if (self->document != NULL)
    folder = km_file_chooser_folder_for_item (self->document,
                                              km_document_get_body_item (self->document));
  dialog = gtk_file_chooser_native_new (title, GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                        GTK_FILE_CHOOSER_ACTION_SAVE, _("_Save"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (dialog), TRUE);
  if (folder != NULL)
    gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (dialog), folder, NULL);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (dialog), suggested_name);
  g_object_set_data (G_OBJECT (dialog), "km-chosen", GINT_TO_POINTER (what));
  g_signal_connect_object (dialog, "response", G_CALLBACK (chooser_response_cb), self, 0);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}
G_GNUC_END_IGNORE_DEPRECATIONS

static void
save_as_activated (GSimpleAction *action,
                   GVariant      *parameter,
                   gpointer       user_data)
{
  choose_file (user_data, _("Save Skeleton As"), "skeleton.json", FALSE, CHOSEN_SAVE);
}

static void
save_activated (GSimpleAction *action,
                GVariant      *parameter,
                gpointer       user_data)
{
  KmJointInspector *self = user_data;
  g_autoptr(GFile) file = self->document ? km_document_dup_skeleton_file (self->document) : NULL;

  if (file == NULL)
    save_as_activated (action, parameter, user_data);
  else
    file_chosen (self, CHOSEN_SAVE, file);
}

static void
export_body_activated (GSimpleAction *action,
                       GVariant      *parameter,
                       gpointer       user_data)
{
  choose_file (user_data, _("Export Skeleton as Choreonoid Body"), "model.body", FALSE,
               CHOSEN_EXPORT_BODY);
}

static void
export_urdf_activated (GSimpleAction *action,
                       GVariant      *parameter,
                       gpointer       user_data)
{
  choose_file (user_data, _("Export Skeleton as URDF"), "model.urdf", FALSE,
               CHOSEN_EXPORT_URDF);
}

static void
save_project_with_body_activated (GSimpleAction *action,
                                  GVariant      *parameter,
                                  gpointer       user_data)
{
  KmJointInspector *self = user_data;
  GFile *file = self->document ? km_document_get_file (self->document) : NULL;
  g_autofree char *base = file != NULL ? g_file_get_basename (file) : NULL;
  g_autofree char *name = base != NULL ? g_filename_display_name (base) : g_strdup ("project.cnoid");

  choose_file (self, _("Save Project with Choreonoid Body Copies"), name, TRUE,
               CHOSEN_SAVE_PROJECT_WITH_BODY);
}

static const GActionEntry action_entries[] = {
  { "new-skeleton", new_skeleton_activated, NULL, NULL, NULL, { 0 } },
  { "add-child", add_child_activated, NULL, NULL, NULL, { 0 } },
  { "insert-parent", insert_parent_activated, NULL, NULL, NULL, { 0 } },
  { "delete-joint", delete_joint_activated, NULL, NULL, NULL, { 0 } },
  { "duplicate", duplicate_activated, NULL, NULL, NULL, { 0 } },
  { "mirror", mirror_activated, NULL, NULL, NULL, { 0 } },
  { "rename", rename_activated, NULL, NULL, NULL, { 0 } },
  { "use-as-effector", use_as_effector_activated, NULL, NULL, NULL, { 0 } },
  { "axis-preset", axis_preset_activated, "s", NULL, NULL, { 0 } },
  { "save", save_activated, NULL, NULL, NULL, { 0 } },
  { "save-as", save_as_activated, NULL, NULL, NULL, { 0 } },
  { "export-body", export_body_activated, NULL, NULL, NULL, { 0 } },
  { "export-urdf", export_urdf_activated, NULL, NULL, NULL, { 0 } },
  { "save-project-with-body", save_project_with_body_activated, NULL, NULL, NULL, { 0 } },
};

static void
km_joint_inspector_dispose (GObject *object)
{
  KmJointInspector *self = KM_JOINT_INSPECTOR (object);

  gtk_widget_dispose_template (GTK_WIDGET (self), KM_TYPE_JOINT_INSPECTOR);
  /* The template's unnamed top-level child is not disposed with the named ones. */
  for (GtkWidget *child; (child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL;)
    gtk_widget_unparent (child);
  if (self->document_signals != NULL)
    g_signal_group_set_target (self->document_signals, NULL);
  g_clear_object (&self->document_signals);
  g_clear_object (&self->document);
  g_clear_object (&self->actions);

  G_OBJECT_CLASS (km_joint_inspector_parent_class)->dispose (object);
}

static void
km_joint_inspector_finalize (GObject *object)
{
  KmJointInspector *self = KM_JOINT_INSPECTOR (object);

  g_free (self->angle_unit);
  g_free (self->length_unit);
  g_clear_object (&self->saving_file);

  G_OBJECT_CLASS (km_joint_inspector_parent_class)->finalize (object);
}

static void
km_joint_inspector_get_property (GObject    *object,
                                 guint       prop_id,
                                 GValue     *value,
                                 GParamSpec *pspec)
{
  KmJointInspector *self = KM_JOINT_INSPECTOR (object);

  switch (prop_id)
    {
    case PROP_DOCUMENT:
      g_value_set_object (value, self->document);
      break;
    case PROP_ANGLE_UNIT:
      g_value_set_string (value, self->angle_unit);
      break;
    case PROP_LENGTH_UNIT:
      g_value_set_string (value, self->length_unit);
      break;
    case PROP_SAVING_FILE:
      g_value_set_object (value, self->saving_file);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
km_joint_inspector_set_property (GObject      *object,
                                 guint         prop_id,
                                 const GValue *value,
                                 GParamSpec   *pspec)
{
  KmJointInspector *self = KM_JOINT_INSPECTOR (object);

  switch (prop_id)
    {
    case PROP_DOCUMENT:
      km_joint_inspector_set_document (self, g_value_get_object (value));
      break;
    case PROP_ANGLE_UNIT:
      set_angle_unit (self, g_value_get_string (value));
      break;
    case PROP_LENGTH_UNIT:
      km_joint_inspector_set_length_unit (self, g_value_get_string (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
km_joint_inspector_class_init (KmJointInspectorClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = km_joint_inspector_dispose;
  object_class->finalize = km_joint_inspector_finalize;
  object_class->get_property = km_joint_inspector_get_property;
  object_class->set_property = km_joint_inspector_set_property;

  properties[PROP_DOCUMENT] =
    g_param_spec_object ("document", NULL, NULL, KM_TYPE_DOCUMENT,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* "degrees" or "radians", the nicks of the GSettings key angle-unit (as the joint panel's
   * property of that name): the unit of the frame's rotation, a revolute or spherical
   * joint's limits and its linked offset; the skeleton keeps radians. */
  properties[PROP_ANGLE_UNIT] =
    g_param_spec_string ("angle-unit", NULL, NULL, "degrees",
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* "metres" or "millimetres", the nicks of the GSettings key length-unit (as the joint
   * panel's property of that name). */
  properties[PROP_LENGTH_UNIT] =
    g_param_spec_string ("length-unit", NULL, NULL, "metres",
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * KmJointInspector:saving-file:
   *
   * The file a save or export from the Skeleton tab is writing (on a worker thread), or
   * %NULL; the save actions are disabled meanwhile.
   */
  properties[PROP_SAVING_FILE] =
    g_param_spec_object ("saving-file", NULL, NULL, G_TYPE_FILE,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/kinema/Kinema/ui/km-joint-inspector.ui");
#define BIND(name) gtk_widget_class_bind_template_child (widget_class, KmJointInspector, name)
  BIND (paned);
  BIND (outline);
  BIND (stack);
  BIND (offset_title);
  BIND (rotation_title);
  BIND (name_entry);
  BIND (name_error);
  BIND (type_dropdown);
  BIND (type_error);
  BIND (parent_dropdown);
  BIND (parent_names);
  BIND (parent_error);
  BIND (offset_x);
  BIND (offset_y);
  BIND (offset_z);
  BIND (offset_error);
  BIND (rotation_x);
  BIND (rotation_y);
  BIND (rotation_z);
  BIND (rotation_error);
  BIND (axis_x);
  BIND (axis_y);
  BIND (axis_z);
  BIND (axis_presets);
  BIND (axis_error);
  BIND (limited_0);
  BIND (limited_1);
  BIND (limited_2);
  BIND (min_0);
  BIND (min_1);
  BIND (min_2);
  BIND (max_0);
  BIND (max_1);
  BIND (max_2);
  BIND (limit_unit_0);
  BIND (limit_unit_1);
  BIND (limit_unit_2);
  BIND (limit_unit_max_0);
  BIND (limit_unit_max_1);
  BIND (limit_unit_max_2);
  BIND (limit_axis_0);
  BIND (limit_axis_1);
  BIND (limit_axis_2);
  BIND (limit_error);
  BIND (shapes_label);
  BIND (mimic_title);
  BIND (mimic_label);
#undef BIND
  gtk_widget_class_bind_template_callback (widget_class, name_entry_activate_cb);
  gtk_widget_class_bind_template_callback (widget_class, type_dropdown_selected_cb);
  gtk_widget_class_bind_template_callback (widget_class, parent_dropdown_selected_cb);
  gtk_widget_class_bind_template_callback (widget_class, offset_value_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, rotation_value_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, axis_value_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, limit_changed_cb);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_F2, 0, "skeleton.rename", NULL);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);

  g_type_ensure (KM_TYPE_SKELETON_OUTLINE);
}

#define ERROR_LABEL_KEY "km-error-label"

/* A typed text was refused: the reason under the field (as a refused edit's). */
static void
field_refused_cb (GtkSpinButton *spin,
                  const char    *reason,
                  gpointer       user_data)
{
  GtkWidget *error_label = g_object_get_data (G_OBJECT (spin), ERROR_LABEL_KEY);
  KmJointInspector *self = user_data;

  clear_errors (self);
  if (error_label == GTK_WIDGET (self->limit_error))
    place_limit_error (self, GTK_WIDGET (spin));
  gtk_label_set_text (GTK_LABEL (error_label), reason);
  gtk_widget_set_visible (error_label, TRUE);
}

/* The user types a new value: the refused one is gone, and so is its reason. (Only typing:
 * right after a refusal the field shows the skeleton's value again itself.) */
static void
field_typed_cb (GtkSpinButton *spin,
                gpointer       user_data)
{
  GtkWidget *error_label = g_object_get_data (G_OBJECT (spin), ERROR_LABEL_KEY);

  gtk_label_set_text (GTK_LABEL (error_label), "");
  gtk_widget_set_visible (error_label, FALSE);
}

/* Every spin button is a number field whose refusals show under it. The wheel scrolls the
 * inspector: it edits a field only once the user has clicked into it
 * (km_scroll_guard_attach). */
static void
setup_number_fields (KmJointInspector *self)
{
  struct
  {
    GtkSpinButton *spin;
    GtkLabel      *error;
  } fields[] = {
    { self->offset_x, self->offset_error },
    { self->offset_y, self->offset_error },
    { self->offset_z, self->offset_error },
    { self->rotation_x, self->rotation_error },
    { self->rotation_y, self->rotation_error },
    { self->rotation_z, self->rotation_error },
    { self->axis_x, self->axis_error },
    { self->axis_y, self->axis_error },
    { self->axis_z, self->axis_error },
    { self->min_0, self->limit_error },
    { self->min_1, self->limit_error },
    { self->min_2, self->limit_error },
    { self->max_0, self->limit_error },
    { self->max_1, self->limit_error },
    { self->max_2, self->limit_error },
  };

  for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
    {
      g_object_set_data (G_OBJECT (fields[i].spin), ERROR_LABEL_KEY, fields[i].error);
      km_number_field_attach (fields[i].spin, field_refused_cb, field_typed_cb, self);
      km_scroll_guard_attach (GTK_WIDGET (fields[i].spin));
    }
}

/* The paned's height less its handle's: what the two children share. */
static int
paned_shared_height (KmJointInspector *self)
{
  GtkWidget *paned = GTK_WIDGET (self->paned);
  int handle = 0;

  for (GtkWidget *child = gtk_widget_get_first_child (paned); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (child != gtk_paned_get_start_child (self->paned)
        && child != gtk_paned_get_end_child (self->paned))
      gtk_widget_measure (child, GTK_ORIENTATION_VERTICAL, -1, &handle, NULL, NULL, NULL);
  return gtk_widget_get_height (paned) - handle;
}

/* The paned has another height (its max-position changes with it): the joint tree gets
 * its share, within the minimum heights (shared in their proportion when the paned is
 * too short for both). */
static void
fit_split (KmJointInspector *self)
{
  int shared = paned_shared_height (self);
  int position;

  if (shared <= 0)
    return;
  if (shared >= MIN_OUTLINE_HEIGHT + MIN_INSPECTOR_HEIGHT)
    position = CLAMP (self->split_height > 0 ? self->split_height
                                             : (int) lround (self->split * shared),
                      MIN_OUTLINE_HEIGHT, shared - MIN_INSPECTOR_HEIGHT);
  else
    position = shared * MIN_OUTLINE_HEIGHT / (MIN_OUTLINE_HEIGHT + MIN_INSPECTOR_HEIGHT);
  self->fitting = TRUE;
  gtk_paned_set_position (self->paned, position);
  self->fitting = FALSE;
  self->split_position = position;
  self->split_size = gtk_widget_get_height (GTK_WIDGET (self->paned));
}

/* A position that changes while the paned keeps its height is the user's (a dragged
 * handle, or one moved with the keyboard): the share it gives is kept. */
static void
split_position_cb (KmJointInspector *self)
{
  int position = gtk_paned_get_position (self->paned);
  int shared = paned_shared_height (self);

  if (self->fitting || shared <= 0 || position == self->split_position
      || gtk_widget_get_height (GTK_WIDGET (self->paned)) != self->split_size)
    return;
  self->split = CLAMP ((double) position / shared, 0.0, 1.0);
  self->split_position = position;
  self->split_height = 0;
  self->chosen_height = MAX (position, 1);
}

/**
 * km_joint_inspector_set_split_height:
 * @height: the joint tree's height in pixels, as km_joint_inspector_get_split_height()
 *   gave it (the window keeps it in the settings); 0 or less: the default share
 *
 * The joint tree gets @height, within the minimums that keep it and the inspector under it
 * from being a sliver, until the user moves the handle.
 */
void
km_joint_inspector_set_split_height (KmJointInspector *self,
                                     int               height)
{
  g_return_if_fail (KM_IS_JOINT_INSPECTOR (self));

  self->split_height = MAX (height, 0);
  self->chosen_height = 0;
  if (self->split_height == 0)
    self->split = DEFAULT_SPLIT;
  fit_split (self);
}

/**
 * km_joint_inspector_get_split_height:
 *
 * Returns: the joint tree's height as the user left it, in pixels, for the settings: that
 *   restored while the handle was not moved since (so that it never drifts), else the
 *   user's share of the paned's height now; 0 when neither (the default share)
 */
int
km_joint_inspector_get_split_height (KmJointInspector *self)
{
  int shared;

  g_return_val_if_fail (KM_IS_JOINT_INSPECTOR (self), 0);

  if (self->split_height > 0 || self->chosen_height == 0)
    return self->split_height;
  shared = paned_shared_height (self);
  return shared > 0 ? MAX ((int) lround (self->split * shared), 1) : self->chosen_height;
}

static void
km_joint_inspector_init (KmJointInspector *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->split = DEFAULT_SPLIT;
  g_signal_connect_object (self->paned, "notify::max-position", G_CALLBACK (fit_split), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->paned, "notify::position", G_CALLBACK (split_position_cb),
                           self, G_CONNECT_SWAPPED);
  self->angle_unit = g_strdup ("degrees");
  self->length_unit = g_strdup ("metres");

  setup_number_fields (self);
  /* A message wraps within the pane, also inside a long word (a file name, a number), so
   * that none makes the inspector wider than its pane. */
  {
    GtkLabel *labels[] = { self->name_error, self->type_error, self->parent_error,
                           self->offset_error, self->rotation_error, self->axis_error,
                           self->limit_error };

    for (guint i = 0; i < G_N_ELEMENTS (labels); i++)
      {
        gtk_label_set_wrap (labels[i], TRUE);
        gtk_label_set_wrap_mode (labels[i], PANGO_WRAP_WORD_CHAR);
        gtk_label_set_max_width_chars (labels[i], 30);
      }
  }
  for (guint k = 0; k < N_AXES; k++)
    {
      GtkCheckButton *limited;
      GtkSpinButton *ends[2];

      limit_widgets (self, k, &limited, &ends[0], &ends[1], NULL);
      for (guint e = 0; e < 2; e++)
        {
          g_object_set_data (G_OBJECT (ends[e]), OPEN_END_KEY, GINT_TO_POINTER (e == 0 ? -1 : 1));
          km_number_field_set_words (ends[e], limit_format, limit_word);
          /* After limit_changed_cb() has applied the value. */
          g_signal_connect_after (ends[e], "value-changed", G_CALLBACK (limit_clamped_cb), self);
        }
    }

  self->actions = g_simple_action_group_new ();
  g_action_map_add_action_entries (G_ACTION_MAP (self->actions), action_entries,
                                   G_N_ELEMENTS (action_entries), self);
  gtk_widget_insert_action_group (GTK_WIDGET (self), "skeleton", G_ACTION_GROUP (self->actions));

  self->document_signals = g_signal_group_new (KM_TYPE_DOCUMENT);
  g_signal_group_connect_swapped (self->document_signals, "notify::skeleton",
                                  G_CALLBACK (document_skeleton_cb), self);
  g_signal_group_connect_swapped (self->document_signals, "notify::selected-joint",
                                  G_CALLBACK (document_selected_joint_cb), self);
  /* (Which joint is the end effector: skeleton.use-as-effector.) */
  g_signal_group_connect_swapped (self->document_signals, "notify::targets",
                                  G_CALLBACK (update_actions), self);
  show_angle_unit (self);
  show_length_unit (self);
}

GtkWidget *
km_joint_inspector_new (void)
{
  return g_object_new (KM_TYPE_JOINT_INSPECTOR, NULL);
}

KmDocument *
km_joint_inspector_get_document (KmJointInspector *self)
{
  g_return_val_if_fail (KM_IS_JOINT_INSPECTOR (self), NULL);

  return self->document;
}

void
km_joint_inspector_set_document (KmJointInspector *self,
                                 KmDocument       *document)
{
  g_return_if_fail (KM_IS_JOINT_INSPECTOR (self));
  g_return_if_fail (document == NULL || KM_IS_DOCUMENT (document));

  if (!g_set_object (&self->document, document))
    return;
  g_signal_group_set_target (self->document_signals, document);
  km_skeleton_outline_set_document (self->outline, document);
  clear_errors (self);
  refresh (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DOCUMENT]);
}

/**
 * km_joint_inspector_set_length_unit:
 * @length_unit: "metres" or "millimetres" (anything else reads as metres)
 *
 * The unit offsets and a prismatic joint's limits are shown and entered in; the skeleton
 * keeps metres. The window binds it to the length-unit setting.
 */
void
km_joint_inspector_set_length_unit (KmJointInspector *self,
                                    const char       *length_unit)
{
  g_return_if_fail (KM_IS_JOINT_INSPECTOR (self));

  if (g_strcmp0 (self->length_unit, length_unit) == 0)
    return;
  g_free (self->length_unit);
  self->length_unit = g_strdup (length_unit);
  show_length_unit (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LENGTH_UNIT]);
}

const char *
km_joint_inspector_get_length_unit (KmJointInspector *self)
{
  g_return_val_if_fail (KM_IS_JOINT_INSPECTOR (self), NULL);

  return self->length_unit;
}

/* The "skeleton" action group, for a window that shows these actions in its menus. */
GActionGroup *
km_joint_inspector_get_actions (KmJointInspector *self)
{
  g_return_val_if_fail (KM_IS_JOINT_INSPECTOR (self), NULL);

  return G_ACTION_GROUP (self->actions);
}

/**
 * km_joint_inspector_save_project_with_body:
 * @self: the inspector
 * @file: the project file
 *
 * Saves the project for Choreonoid (with copies of the edited bodies) to @file, as the
 * Skeleton tab's action does once its file is chosen: the window's answer to that save's
 * question about a change another program made (Overwrite) saves again through here.
 */
void
km_joint_inspector_save_project_with_body (KmJointInspector *self,
                                           GFile            *file)
{
  g_return_if_fail (KM_IS_JOINT_INSPECTOR (self));
  g_return_if_fail (G_IS_FILE (file));

  file_chosen (self, CHOSEN_SAVE_PROJECT_WITH_BODY, file);
}
