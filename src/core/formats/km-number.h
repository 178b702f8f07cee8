/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <math.h>

#include <glib.h>

G_BEGIN_DECLS

/*
 * g_ascii_strtod of @text, and whether it read a finite number: *@end is where it stopped
 * (@text when it read nothing), *@out the value. A number too small for a double
 * ("1e-310", "4.9e-324", "1e-400") is fine: strtod reads it as a subnormal or zero and
 * only reports ERANGE (so errno is no test: the value is finite). A number too large
 * (strtod returns ±HUGE_VAL with ERANGE), NaN and the infinities are not. A reader's own
 * syntax checks (no hexadecimal…) stay the caller's.
 */
static inline gboolean
_km_ascii_strtod_finite (const char  *text,
                         char       **end,
                         double      *out)
{
  double v;

  v = g_ascii_strtod (text, end);
  *out = v;
  return *end != text && isfinite (v);
}

G_END_DECLS
