/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-units"

#include "config.h"

#include <string.h>
#include <glib/gi18n.h>

#include "km-units.h"

/**
 * km_unit_for_angle:
 * @angle_unit: (nullable): "degrees" or "radians", the nicks of the angle-unit setting
 *
 * Returns: how angles are shown; anything but "radians" is degrees
 */
KmUnit
km_unit_for_angle (const char *angle_unit)
{
  if (g_strcmp0 (angle_unit, "radians") == 0)
    return (KmUnit) { 1.0, C_("unit", "rad"), 3, 0.01 };
  return (KmUnit) { 180.0 / G_PI, C_("unit", "°"), 1, 1.0 };
}

/**
 * km_unit_for_length:
 * @length_unit: (nullable): "metres" or "millimetres", the nicks of the length-unit setting
 *
 * Returns: how lengths are shown; anything but "millimetres" is metres
 */
KmUnit
km_unit_for_length (const char *length_unit)
{
  if (g_strcmp0 (length_unit, "millimetres") == 0)
    return (KmUnit) { 1000.0, C_("unit", "mm"), 1, 1.0 };
  return (KmUnit) { 1.0, C_("unit", "m"), 3, 0.001 };
}

/* Whether @symbol is @unit's (translated) symbol or one of the untranslated @spellings. */
static gboolean
is_symbol (const char  *symbol,
           KmUnit       unit,
           const char **spellings)
{
  if (g_strcmp0 (symbol, unit.symbol) == 0)
    return TRUE;
  for (; *spellings != NULL; spellings++)
    if (strcmp (symbol, *spellings) == 0)
      return TRUE;
  return FALSE;
}

/**
 * km_unit_for_symbol:
 * @symbol: (nullable): a unit's symbol as a body handler names it ("mm", "deg")
 * @linear: (out) (optional): whether it is a length unit, not an angle unit
 * @unit: (out) (optional): how it shows a value in radians or metres; its symbol is
 *   @symbol itself (interned), as the handler names it
 *
 * The length and angle units a number field takes typed ("0.3 m"): metres, centimetres,
 * millimetres, degrees and radians, by their symbols (also the translated ones).
 *
 * Returns: whether @symbol names one of them; %FALSE for any other (a handler's own unit)
 */
gboolean
km_unit_for_symbol (const char *symbol,
                    gboolean   *linear,
                    KmUnit     *unit)
{
  static const char *metres[] = { "m", NULL };
  static const char *centimetres[] = { "cm", NULL };
  static const char *millimetres[] = { "mm", NULL };
  static const char *degrees[] = { "°", "deg", NULL };
  static const char *radians[] = { "rad", NULL };
  KmUnit found;
  gboolean is_length = TRUE;

  if (symbol == NULL || *symbol == '\0')
    return FALSE;
  if (is_symbol (symbol, km_unit_for_length ("metres"), metres))
    found = km_unit_for_length ("metres");
  else if (is_symbol (symbol, km_unit_for_length ("millimetres"), millimetres))
    found = km_unit_for_length ("millimetres");
  else if (is_symbol (symbol, (KmUnit) { 100.0, NULL, 2, 0.1 }, centimetres))
    found = (KmUnit) { 100.0, NULL, 2, 0.1 };
  else
    {
      is_length = FALSE;
      if (is_symbol (symbol, km_unit_for_angle ("degrees"), degrees))
        found = km_unit_for_angle ("degrees");
      else if (is_symbol (symbol, km_unit_for_angle ("radians"), radians))
        found = km_unit_for_angle ("radians");
      else
        return FALSE;
    }
  found.symbol = g_intern_string (symbol);
  if (linear != NULL)
    *linear = is_length;
  if (unit != NULL)
    *unit = found;
  return TRUE;
}
