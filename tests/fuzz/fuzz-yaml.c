/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 *
 * libFuzzer target: the YAML reader (km-yaml.h) with its default limits, and the emitter
 * on what it read: its text must read back as an equal tree (km_yaml_node_equal: kinds,
 * scalar values, tags, key order; styles, anchors and comments are not part of the tree's
 * equality) and be written again as the same text.
 */

#include "config.h"

#include "fuzz-common.h"
#include "km-yaml.h"

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
  g_autoptr(GError) error = NULL;
  KmYamlNode *node;

  node = km_yaml_parse ("fuzz.yaml", (const char *) data, size, NULL, &error);
  g_assert ((node == NULL) != (error == NULL));
  if (node != NULL)
    {
      /* What we write must read back as the same tree (kept small: aliases expand). */
      if (km_yaml_node_get_weight (node) < 10000)
        {
          gsize length = 0;
          g_autofree char *text = km_yaml_emit_to_string (node, &length);
          g_autoptr(GError) error2 = NULL;
          KmYamlNode *again = km_yaml_parse ("again.yaml", text, length, NULL, &error2);

          if (again == NULL)
            g_error ("emitted YAML does not read back: %s\n%s", error2->message, text);
          if (!km_yaml_node_equal (node, again))
            g_error ("emitted YAML reads back different:\n%s", text);
          /* and writing what was read back gives the same text (the styles it was read
           * with lead to the same choices) */
          {
            gsize length2 = 0;
            g_autofree char *text2 = km_yaml_emit_to_string (again, &length2);

            if (length2 != length || memcmp (text, text2, length) != 0)
              g_error ("emitting again gives different text:\n%s\n---\n%s", text, text2);
          }
          km_yaml_node_unref (again);
        }
      km_yaml_node_unref (node);
    }
  (void) km_yaml_sniff_top_key ((const char *) data, size, "items");
  return 0;
}
