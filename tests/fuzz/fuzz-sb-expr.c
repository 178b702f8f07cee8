/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 *
 * libFuzzer target: the Scenebuilder expression language (km-sb-expr.h). The first byte
 * picks the entry point and the unit system, the rest is the text.
 */

#include "config.h"

#include "fuzz-common.h"
#include "km-sb-expr.h"

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  fuzz_init_logging ();
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  static const KmSbUnits units[] = {
    { 1.0, 1.0, 1.0, 1.0 },
    { 0.001, G_PI / 180.0, 0.001, 1.0 },
  };
  g_autofree char *text = NULL;
  g_autofree char *message = NULL;
  const KmSbUnits *u;
  gsize offset = 0;
  guint selector;
  gboolean ok;

  if (size == 0)
    return 0;
  selector = data[0];
  u = &units[(selector >> 4) & 1];
  text = g_strndup ((const char *) data + 1, size - 1);

  switch (selector % 4)
    {
    case 0:
      {
        double value = 0.0;
        KmSbDim dim = (KmSbDim) ((selector >> 5) % (KM_SB_DIM_M_L3 + 1));

        ok = km_sb_eval_real (text, size - 1, dim, u, &value, &offset, &message);
        break;
      }
    case 1:
      {
        gboolean value = FALSE;

        ok = km_sb_parse_bool (text, &value, &offset, &message);
        break;
      }
    case 2:
      {
        double values[6] = { 0 };
        guint n = 1 + (selector >> 5) % 6;

        ok = km_sb_parse_vector (text, n, KM_SB_DIM_L, u, values, &offset, &message);
        break;
      }
    default:
      {
        KmQuat q;
        KmSbValueFlags flags = 0;

        ok = km_sb_parse_rotation (text, u, &q, &flags, &offset, &message);
        break;
      }
    }
  /* A failure says where and what; the offset is inside the text (or at its end). */
  if (!ok)
    {
      g_assert (message != NULL);
      g_assert_cmpuint (offset, <=, strlen (text));
    }
  return 0;
}
