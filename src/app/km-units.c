/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-units"

#include "config.h"

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
