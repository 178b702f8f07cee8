/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-number-field"

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n.h>

#include "km-number-field.h"

#include "km-units.h"

/*
 * Kinema's commit rules for a GtkSpinButton that edits a document value (the Pose tab's
 * joint values, the Skeleton inspector's fields):
 *
 * - Text that is no number (or no text at all) is refused: GtkSpinButton would read it as
 *   0 (a typo would zero a link length). The field shows its value again and the owner
 *   shows the reason (KmNumberFieldRefused); nothing is committed.
 * - A number may carry a unit: "0.5 m" in a millimetre field is 500, "2 rad" in a degree
 *   field is 114.6.
 * - Leaving the field (focus-out, Return) with the text it shows for its value, or a number
 *   equal to it ("22" for "22.0"), is no edit: the value stays exactly what it was, not the
 *   rounded number the text shows (2.5 rad shows as 143.239°).
 * - The field has no text undo of its own: Ctrl+Z and Ctrl+Shift+Z reach the window's
 *   accelerators and undo or redo the document's edits, as everywhere else.
 * - The owner learns when the user changes the text (KmNumberFieldTyped), as opposed to the
 *   field showing a value: a refusal's reason can go once the user types again.
 * - Typed text is never lost: while the field is being edited (it has the focus and its text
 *   is not the one it last showed), a new value (the current frame changed under it) does
 *   not replace the text; the field is marked "pending" (and "warning", which the theme
 *   tints) until Return or focus-out commits the text, at the value then current, or
 *   Escape brings back the text of the value. (The arrow keys, the +/− buttons and the
 *   wheel commit it first and spin from there.)
 * - A number outside the field's range is taken as the nearest end of it (GtkSpinButton
 *   clamps), and the owner is told so through KmNumberFieldRefused, in the field's units:
 *   the value changed, but not to what was typed. Not where that end is a word (an open
 *   limit's ∞): the field then shows the word. A field whose value has no range (an
 *   unlimited joint's, km_number_field_set_open) takes any finite number: its adjustment's
 *   range is only the window a slider shows, and it widens to take the number.
 *
 * The field formats its value itself ("%.*f" with the spin button's digits, as GTK does),
 * so that it knows the text it shows and which text changes are its own.
 */

#define FIELD_KEY "km-number-field"

typedef struct
{
  KmNumberFieldRefused refused;
  KmNumberFieldTyped   typed;
  gpointer             user_data;
  KmNumberFieldFormat  format;
  KmNumberFieldWord    word;
  KmQuantity           quantity;
  double               scale;
  char                *symbol;
  char                *name;      /* what the field is, for messages ("Elbow") */
  char                *shown;     /* the text last shown for the value */
  char                *clamped;   /* why the value being committed is not the typed one */
  guint                showing;   /* > 0 while the field sets its own text */
  gboolean             committing; /* from ::input to the ::output showing the result */
  gboolean             changing;  /* the commit changes the value: ::value-changed follows */
  gboolean             open;      /* any finite number: the range is no limit */
} Field;

static void
field_free (Field *field)
{
  g_free (field->symbol);
  g_free (field->name);
  g_free (field->shown);
  g_free (field->clamped);
  g_free (field);
}

static Field *
get_field (GtkSpinButton *spin)
{
  return g_object_get_data (G_OBJECT (spin), FIELD_KEY);
}

/* A unit typed after the number, as a factor to SI units (radians, metres): one of the
 * units km_unit_for_symbol() knows, of the field's kind. */
static gboolean
unit_factor (const char *unit,
             KmQuantity  quantity,
             double     *factor)
{
  gboolean linear;
  KmUnit found;

  if ((quantity != KM_QUANTITY_LENGTH && quantity != KM_QUANTITY_ANGLE)
      || !km_unit_for_symbol (unit, &linear, &found)
      || linear != (quantity == KM_QUANTITY_LENGTH))
    return FALSE;
  *factor = 1.0 / found.scale;
  return TRUE;
}

/**
 * km_number_field_parse:
 * @text: what the user typed
 * @quantity: what the field holds, for the units @text may carry
 * @scale: the field's units per SI unit (radian, metre)
 * @symbol: (nullable): the field's own unit, which @text may carry too
 * @shown: (out): the number in the field's units
 * @reason: (out) (optional): why @text is refused (translated)
 *
 * Reads a number, in the locale's notation or C's, optionally followed by a unit.
 *
 * Returns: whether @text is a finite number (in a unit the field can take)
 */
gboolean
km_number_field_parse (const char  *text,
                       KmQuantity   quantity,
                       double       scale,
                       const char  *symbol,
                       double      *shown,
                       char       **reason)
{
  g_autofree char *copy = g_strstrip (g_strdup (text != NULL ? text : ""));
  g_autoptr(GString) number = NULL;
  char *end = NULL;
  const char *unit;
  double value, factor;

  if (*copy == '\0')
    {
      if (reason != NULL)
        *reason = g_strdup (_("Type a number"));
      return FALSE;
    }
  /* The minus sign a typographer would type (and the fields show for −∞). */
  number = g_string_new (copy);
  if (g_str_has_prefix (number->str, "−"))
    g_string_replace (number, "−", "-", 1);
  value = g_strtod (number->str, &end);
  if (end == number->str || !isfinite (value))
    {
      if (reason != NULL)
        /* Translators: %s is what the user typed into a number field */
        *reason = g_strdup_printf (_("“%s” is not a number"), copy);
      return FALSE;
    }
  unit = g_strstrip (end);
  if (*unit == '\0' || (symbol != NULL && strcmp (unit, symbol) == 0))
    {
      *shown = value;
      return TRUE;
    }
  if (!unit_factor (unit, quantity, &factor))
    {
      if (reason != NULL)
        {
          if (symbol != NULL && *symbol != '\0')
            /* Translators: the first %s is what the user typed into a number field, the
             * second the field's unit ("m", "°", …) */
            *reason = g_strdup_printf (_("“%s” is not a number in %s"), copy, symbol);
          else
            /* Translators: %s is what the user typed into a number field */
            *reason = g_strdup_printf (_("“%s” is not a number"), copy);
        }
      return FALSE;
    }
  *shown = value * factor * scale;
  return TRUE;
}

/**
 * km_number_field_shown_value:
 * @value: a value to show
 * @digits: the digits after the point it is shown with ("%.*f")
 *
 * What shows @value with @digits without a negative zero: @value, or 0 where it would show
 * as "-0", "-0.000" (a negative zero, or a negative value that rounds to none). Every number
 * the editor formats for display goes through here: the number fields and the captions next
 * to them (the Pose tab's limits).
 *
 * Returns: @value, or 0
 */
double
km_number_field_shown_value (double value,
                             guint  digits)
{
  g_autofree char *text = NULL;

  if (!signbit (value))
    return value;
  text = g_strdup_printf ("%.*f", (int) digits, value);
  return text[0] == '-' && strspn (text + 1, "0.,") == strlen (text + 1) ? 0.0 : value;
}

/* The text GtkSpinButton itself would show: the value with the field's digits, "-0" as 0. */
static char *
format_number (GtkSpinButton *spin,
               double         value)
{
  guint digits = gtk_spin_button_get_digits (spin);

  return g_strdup_printf ("%0.*f", (int) digits, km_number_field_shown_value (value, digits));
}

/* The text the field shows for @value: a word, or the number. */
static char *
format_value (GtkSpinButton *spin,
              Field         *field,
              double         value)
{
  char *text = field->format != NULL ? field->format (spin, value) : NULL;

  return text != NULL ? text : format_number (spin, value);
}

/* A number as the field shows it, with the field's unit: "143.2°", "0.500 m". */
static char *
with_unit (Field      *field,
           const char *number)
{
  if (field->symbol == NULL || *field->symbol == '\0')
    return g_strdup (number);
  /* A sign (°) follows the number directly, a unit's name (m, rad) after a space. */
  if (g_unichar_isalnum (g_utf8_get_char (field->symbol)))
    return g_strdup_printf ("%s %s", number, field->symbol);
  return g_strconcat (number, field->symbol, NULL);
}

static gboolean
has_focus_within (GtkWidget *widget)
{
  GtkRoot *root = gtk_widget_get_root (widget);
  GtkWidget *focus = root != NULL ? gtk_root_get_focus (root) : NULL;

  return focus != NULL && (focus == widget || gtk_widget_is_ancestor (focus, widget));
}

/* Whether the user is editing the field: it has the focus and text that is not the one
 * shown for the value (typed, not yet committed). */
static gboolean
is_editing (GtkSpinButton *spin,
            Field         *field)
{
  return field->shown != NULL
         && strcmp (gtk_editable_get_text (GTK_EDITABLE (spin)), field->shown) != 0
         && has_focus_within (GTK_WIDGET (spin));
}

static void
update_pending (GtkSpinButton *spin,
                Field         *field)
{
  if (is_editing (spin, field))
    {
      gtk_widget_add_css_class (GTK_WIDGET (spin), "pending");
      gtk_widget_add_css_class (GTK_WIDGET (spin), "warning");
    }
  else
    {
      gtk_widget_remove_css_class (GTK_WIDGET (spin), "pending");
      gtk_widget_remove_css_class (GTK_WIDGET (spin), "warning");
    }
}

/* Tells the owner that the committed value is not the typed one (see input_cb). */
static void
report_clamped (GtkSpinButton *spin,
                Field         *field)
{
  g_autofree char *reason = g_steal_pointer (&field->clamped);

  if (reason != NULL && field->refused != NULL)
    field->refused (spin, reason, field->user_data);
}

/* Shows the value, unless the user is editing the field: then the typed text stays (the
 * value changed under it, e.g. the current frame did) and is committed or dropped by the
 * user; field->shown is the value's text, for Escape and for telling an edit. */
static gboolean
output_cb (GtkSpinButton *spin,
           Field         *field)
{
  double value = gtk_adjustment_get_value (gtk_spin_button_get_adjustment (spin));
  char *text = format_value (spin, field, value);
  gboolean committing = field->committing;
  gboolean editing = !committing && is_editing (spin, field);

  field->committing = FALSE;
  if (!editing && g_strcmp0 (text, gtk_editable_get_text (GTK_EDITABLE (spin))) != 0)
    {
      field->showing++;
      gtk_editable_set_text (GTK_EDITABLE (spin), text);
      field->showing--;
    }
  g_free (field->shown);
  field->shown = text;
  update_pending (spin, field);
  /* A commit that leaves the value as it was ends here; one that changes it ends with
   * ::value-changed (value_changed_cb), after the owner's handlers have applied it. */
  if (committing && !field->changing)
    report_clamped (spin, field);
  return TRUE;
}

static void
value_changed_cb (GtkSpinButton *spin,
                  Field         *field)
{
  if (!field->changing)
    return;
  field->changing = FALSE;
  report_clamped (spin, field);
}

/* The message for a typed number (in the field's units) outside [@lower, @upper], or NULL
 * where the end it is taken as is a word (an open limit, ∞). */
static char *
describe_clamp (GtkSpinButton *spin,
                Field         *field,
                double         typed,
                double         lower,
                double         upper)
{
  double clamped = CLAMP (typed, lower, upper);
  g_autofree char *word = field->format != NULL ? field->format (spin, clamped) : NULL;
  g_autofree char *typed_number = NULL, *lower_number = NULL, *upper_number = NULL;
  g_autofree char *typed_text = NULL, *lower_text = NULL, *upper_text = NULL;
  const char *clamped_text;

  if (word != NULL)
    return NULL;
  typed_number = format_number (spin, typed);
  lower_number = format_value (spin, field, lower);
  upper_number = format_value (spin, field, upper);
  typed_text = with_unit (field, typed_number);
  lower_text = with_unit (field, lower_number);
  upper_text = with_unit (field, upper_number);
  clamped_text = typed < lower ? lower_text : upper_text;
  if (field->name != NULL)
    /* Translators: a number typed into a field was out of range and set to the nearest
     * end: the field's name ("Elbow"), the typed number, the range's lower and upper end,
     * then the number set, each with its unit ("500.0°") */
    return g_strdup_printf (_("%s: %s is outside its range %s…%s; set to %s"), field->name,
                            typed_text, lower_text, upper_text, clamped_text);
  /* Translators: a number typed into a field was out of range and set to the nearest end:
   * the typed number, the range's lower and upper end, then the number set, each with its
   * unit ("500.0°") */
  return g_strdup_printf (_("%s is outside the range %s…%s; set to %s"), typed_text,
                          lower_text, upper_text, clamped_text);
}

/* GtkSpinButton::input, on focus-out and Return: the number to commit, the current value
 * itself where the text is the one shown (or a number equal to it), the current value and
 * GTK_INPUT_ERROR where the text is refused (the spin button then shows the value again;
 * GTK_UPDATE_ALWAYS takes *value as it is). */
static int
input_cb (GtkSpinButton *spin,
          double        *value,
          Field         *field)
{
  GtkAdjustment *adjustment = gtk_spin_button_get_adjustment (spin);
  double current = gtk_adjustment_get_value (adjustment);
  double lower = gtk_adjustment_get_lower (adjustment);
  double upper = gtk_adjustment_get_upper (adjustment);
  g_autofree char *text = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (spin))));
  g_autofree char *reason = NULL;
  double typed, shown;

  /* GtkSpinButton shows the value it takes next (output_cb), even if it is the same. */
  field->committing = TRUE;
  field->changing = FALSE;
  g_clear_pointer (&field->clamped, g_free);
  *value = current;
  if (field->shown != NULL && strcmp (text, field->shown) == 0)
    return TRUE;
  if (field->word != NULL && field->word (spin, text, value))
    return TRUE;
  if (!km_number_field_parse (text, field->quantity, field->scale, field->symbol, &typed,
                              &reason))
    {
      if (field->refused != NULL)
        field->refused (spin, reason, field->user_data);
      return GTK_INPUT_ERROR;
    }
  if (field->shown != NULL
      && km_number_field_parse (field->shown, field->quantity, field->scale, field->symbol,
                                &shown, NULL)
      && shown == typed)
    return TRUE;
  *value = typed;
  /* Not clamped: the adjustment's range widens to take the number (its owner may move the
   * window once the value is in place). */
  if (field->open && (typed < lower || typed > upper))
    {
      lower = MIN (lower, typed);
      upper = MAX (upper, typed);
      gtk_adjustment_set_lower (adjustment, lower);
      gtk_adjustment_set_upper (adjustment, upper);
    }
  /* GtkSpinButton takes the nearest end of the range (GTK_UPDATE_ALWAYS); the user is told
   * once the value is in place (output_cb, value_changed_cb), after the owner has applied
   * it (and cleared its old reasons). The same 1e-10 as GtkSpinButton's: whether the value
   * changes, and ::value-changed comes. */
  if (typed < lower || typed > upper)
    field->clamped = describe_clamp (spin, field, typed, lower, upper);
  field->changing = fabs (CLAMP (typed, lower, upper) - current) > 1e-10;
  return TRUE;
}

static void
changed_cb (GtkSpinButton *spin,
            Field         *field)
{
  if (field->showing > 0)
    return;
  update_pending (spin, field);
  if (field->typed != NULL)
    field->typed (spin, field->user_data);
}

/* Escape while editing drops the typed text: the field shows the value (the document's,
 * which may have changed meanwhile) and keeps the focus. Otherwise Escape goes on. Either
 * way it dismisses the reason a refused text was given (the owner's @typed callback): the
 * field shows the value, not that text, so the reason is about nothing shown. */
static gboolean
key_pressed_cb (GtkEventControllerKey *controller,
                guint                  keyval,
                guint                  keycode,
                GdkModifierType        state,
                Field                 *field)
{
  GtkSpinButton *spin =
    GTK_SPIN_BUTTON (gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (controller)));

  if (keyval != GDK_KEY_Escape || (state & gtk_accelerator_get_default_mod_mask ()) != 0)
    return FALSE;
  if (field->typed != NULL)
    field->typed (spin, field->user_data);
  if (!is_editing (spin, field))
    return FALSE;
  field->showing++;
  gtk_editable_set_text (GTK_EDITABLE (spin), field->shown);
  field->showing--;
  gtk_editable_set_position (GTK_EDITABLE (spin), -1);
  update_pending (spin, field);
  return TRUE;
}

/* The wheel over a field being edited spins from the typed number, as the arrow keys and
 * buttons do (GtkSpinButton commits the text before those, not before the wheel): else
 * the value would move under text that no longer shows it. */
static gboolean
scroll_cb (GtkEventControllerScroll *controller,
           double                    dx,
           double                    dy,
           Field                    *field)
{
  GtkSpinButton *spin =
    GTK_SPIN_BUTTON (gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (controller)));

  if (is_editing (spin, field))
    gtk_spin_button_update (spin);
  return GDK_EVENT_PROPAGATE;
}

/**
 * km_number_field_attach:
 * @refused: (nullable): called when a typed text is refused, with the reason
 * @typed: (nullable): called when the user changes the text, or presses Escape in the
 *   field (a refused text's reason is then out of date)
 *
 * Gives @spin Kinema's commit rules (see above). Plain numbers until
 * km_number_field_set_unit() names a unit.
 */
void
km_number_field_attach (GtkSpinButton        *spin,
                        KmNumberFieldRefused  refused,
                        KmNumberFieldTyped    typed,
                        gpointer              user_data)
{
  GtkEventController *keys, *scroll;
  Field *field;

  g_return_if_fail (GTK_IS_SPIN_BUTTON (spin));
  g_return_if_fail (get_field (spin) == NULL);

  field = g_new0 (Field, 1);
  field->refused = refused;
  field->typed = typed;
  field->user_data = user_data;
  field->scale = 1.0;
  g_object_set_data_full (G_OBJECT (spin), FIELD_KEY, field, (GDestroyNotify) field_free);

  /* The document's undo, not the text's (which undoes the field's own value display). */
  gtk_editable_set_enable_undo (GTK_EDITABLE (spin), FALSE);
  gtk_spin_button_set_update_policy (spin, GTK_UPDATE_ALWAYS);
  g_signal_connect (spin, "output", G_CALLBACK (output_cb), field);
  g_signal_connect (spin, "input", G_CALLBACK (input_cb), field);
  g_signal_connect (spin, "changed", G_CALLBACK (changed_cb), field);
  /* After the owner's handlers: they apply the value, then the user hears it was clamped. */
  g_signal_connect_after (spin, "value-changed", G_CALLBACK (value_changed_cb), field);
  keys = gtk_event_controller_key_new ();
  g_signal_connect (keys, "key-pressed", G_CALLBACK (key_pressed_cb), field);
  gtk_widget_add_controller (GTK_WIDGET (spin), keys);
  scroll = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_VERTICAL);
  gtk_event_controller_set_propagation_phase (scroll, GTK_PHASE_CAPTURE);
  g_signal_connect (scroll, "scroll", G_CALLBACK (scroll_cb), field);
  gtk_widget_add_controller (GTK_WIDGET (spin), scroll);
  output_cb (spin, field);
}

/**
 * km_number_field_set_name:
 * @name: (nullable): what the field edits ("Elbow", "Shoulder X")
 *
 * The name the field's messages give it (a number set to the nearest end of the range).
 */
void
km_number_field_set_name (GtkSpinButton *spin,
                          const char    *name)
{
  Field *field = get_field (spin);

  g_return_if_fail (field != NULL);

  g_free (field->name);
  field->name = g_strdup (name);
}

/**
 * km_number_field_set_open:
 * @open: whether the field's value has no range
 *
 * An open field takes any finite number typed (an unlimited joint's value): its
 * adjustment's range is no limit, only what a slider over it shows, and widens to take a
 * number outside it. Otherwise a number outside the range is set to its nearest end.
 */
void
km_number_field_set_open (GtkSpinButton *spin,
                          gboolean       open)
{
  Field *field = get_field (spin);

  g_return_if_fail (field != NULL);

  field->open = open;
}

/**
 * km_number_field_set_unit:
 * @quantity: what the field holds
 * @scale: the field's units per radian or metre
 * @symbol: (nullable): the field's unit as shown
 *
 * The unit the field shows numbers in: a typed number may carry it, or another unit of
 * @quantity.
 */
void
km_number_field_set_unit (GtkSpinButton *spin,
                          KmQuantity     quantity,
                          double         scale,
                          const char    *symbol)
{
  Field *field = get_field (spin);

  g_return_if_fail (field != NULL);

  field->quantity = quantity;
  field->scale = scale;
  g_free (field->symbol);
  field->symbol = g_strdup (symbol);
}

/**
 * km_number_field_set_words:
 * @format: (nullable): the text of a special value, or NULL for the number
 * @word: (nullable): the value of a special word (TRUE), or FALSE
 *
 * Special values the field shows as words (an open limit end: "∞").
 */
void
km_number_field_set_words (GtkSpinButton       *spin,
                           KmNumberFieldFormat  format,
                           KmNumberFieldWord    word)
{
  Field *field = get_field (spin);

  g_return_if_fail (field != NULL);

  field->format = format;
  field->word = word;
  output_cb (spin, field);
}

/**
 * km_number_field_commit_focus:
 * @widget: a widget in the window whose focus is looked at
 *
 * Commits the typed, not yet committed text of the number field that has the focus in
 * @widget's window, as Return would: for an action that must act on the value typed
 * (Set Keyframe) rather than leave it pending to be applied after.
 *
 * Returns: (transfer none) (nullable): the field whose text was committed, or %NULL
 */
GtkSpinButton *
km_number_field_commit_focus (GtkWidget *widget)
{
  GtkRoot *root;
  GtkWidget *focus;
  GtkSpinButton *spin;
  Field *field;

  g_return_val_if_fail (GTK_IS_WIDGET (widget), NULL);

  root = gtk_widget_get_root (widget);
  focus = root != NULL ? gtk_root_get_focus (root) : NULL;
  if (focus == NULL)
    return NULL;
  spin = GTK_IS_SPIN_BUTTON (focus)
         ? GTK_SPIN_BUTTON (focus)
         : (GtkSpinButton *) gtk_widget_get_ancestor (focus, GTK_TYPE_SPIN_BUTTON);
  if (spin == NULL || (field = get_field (spin)) == NULL || !is_editing (spin, field))
    return NULL;
  gtk_spin_button_update (spin);
  return spin;
}

