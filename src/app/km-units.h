/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/*
 * How a value the document holds (radians, metres) is shown in the units the preferences
 * name: the GSettings keys angle-unit ("degrees", "radians") and length-unit ("metres",
 * "millimetres"). shown = stored · scale.
 */
typedef struct
{
  double      scale;   /* shown units per radian or per metre */
  const char *symbol;  /* translated: "°", "rad", "m", "mm" */
  guint       digits;  /* spin-button digits for a joint value */
  double      step;    /* spin-button step for a joint value */
} KmUnit;

KmUnit km_unit_for_angle  (const char *angle_unit);
KmUnit km_unit_for_length (const char *length_unit);
gboolean km_unit_for_symbol (const char *symbol,
                             gboolean   *linear,
                             KmUnit     *unit);

G_END_DECLS
