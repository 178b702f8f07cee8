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
  char                *shown;     /* the text last shown for the value */
  guint                showing;   /* > 0 while the field sets its own text */
} Field;

static void
field_free (Field *field)
{
  g_free (field->symbol);
  g_free (field->shown);
  g_free (field);
}

static Field *
get_field (GtkSpinButton *spin)
{
  return g_object_get_data (G_OBJECT (spin), FIELD_KEY);
}

/* Whether @text (stripped) is @unit, or one of the untranslated spellings in @alt. */
static gboolean
is_unit (const char  *text,
         const char  *unit,
         const char **alt)
{
  if (unit != NULL && *unit != '\0' && strcmp (text, unit) == 0)
    return TRUE;
  for (; alt != NULL && *alt != NULL; alt++)
    if (strcmp (text, *alt) == 0)
      return TRUE;
  return FALSE;
}

/* A unit typed after the number, as a factor to SI units (radians, metres). */
static gboolean
unit_factor (const char *unit,
             KmQuantity  quantity,
             double     *factor)
{
  static const char *metres[] = { "m", NULL };
  static const char *millimetres[] = { "mm", NULL };
  static const char *centimetres[] = { "cm", NULL };
  static const char *degrees[] = { "°", "deg", NULL };
  static const char *radians[] = { "rad", NULL };

  if (quantity == KM_QUANTITY_LENGTH)
    {
      if (is_unit (unit, km_unit_for_length ("metres").symbol, metres))
        *factor = 1.0;
      else if (is_unit (unit, km_unit_for_length ("millimetres").symbol, millimetres))
        *factor = 0.001;
      else if (is_unit (unit, NULL, centimetres))
        *factor = 0.01;
      else
        return FALSE;
      return TRUE;
    }
  if (quantity == KM_QUANTITY_ANGLE)
    {
      if (is_unit (unit, km_unit_for_angle ("degrees").symbol, degrees))
        *factor = G_PI / 180.0;
      else if (is_unit (unit, km_unit_for_angle ("radians").symbol, radians))
        *factor = 1.0;
      else
        return FALSE;
      return TRUE;
    }
  return FALSE;
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

/* The text GtkSpinButton itself would show: the value with the field's digits, "-0" as 0. */
static char *
format_number (GtkSpinButton *spin,
               double         value)
{
  guint digits = gtk_spin_button_get_digits (spin);
  char *text = g_strdup_printf ("%0.*f", (int) digits, value);

  if (text[0] == '-' && strspn (text + 1, "0.,") == strlen (text + 1))
    memmove (text, text + 1, strlen (text));
  return text;
}

static gboolean
output_cb (GtkSpinButton *spin,
           Field         *field)
{
  double value = gtk_adjustment_get_value (gtk_spin_button_get_adjustment (spin));
  char *text = field->format != NULL ? field->format (spin, value) : NULL;

  if (text == NULL)
    text = format_number (spin, value);
  if (g_strcmp0 (text, gtk_editable_get_text (GTK_EDITABLE (spin))) != 0)
    {
      field->showing++;
      gtk_editable_set_text (GTK_EDITABLE (spin), text);
      field->showing--;
    }
  g_free (field->shown);
  field->shown = text;
  return TRUE;
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
  double current = gtk_adjustment_get_value (gtk_spin_button_get_adjustment (spin));
  g_autofree char *text = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (spin))));
  g_autofree char *reason = NULL;
  double typed, shown;

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
  return TRUE;
}

static void
changed_cb (GtkSpinButton *spin,
            Field         *field)
{
  if (field->showing == 0 && field->typed != NULL)
    field->typed (spin, field->user_data);
}

/**
 * km_number_field_attach:
 * @refused: (nullable): called when a typed text is refused, with the reason
 * @typed: (nullable): called when the user changes the text
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
  output_cb (spin, field);
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
