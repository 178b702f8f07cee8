/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-defaults"

#include "config.h"

#include "km-defaults.h"
#include "km-data-resources.h"

#define DATA_PREFIX "/io/github/kinema/Kinema/data/"

/**
 * km_defaults_lookup:
 * @name: a file name under data/ that is compiled in
 *
 * Looks the resource up through its own GResource rather than the global registry, so the
 * static core library works without a constructor having run.
 *
 * Returns: (transfer full) (nullable): the file's bytes
 */
GBytes *
km_defaults_lookup (const char *name)
{
  g_autofree char *path = NULL;

  g_return_val_if_fail (name != NULL, NULL);

  path = g_strconcat (DATA_PREFIX, name, NULL);
  return g_resource_lookup_data (kinema_data_get_resource (), path,
                                 G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
}

GBytes *
km_defaults_get_skeleton_json (void)
{
  return km_defaults_lookup (KM_DEFAULT_SKELETON_NAME);
}

GBytes *
km_defaults_get_targets_json (void)
{
  return km_defaults_lookup (KM_DEFAULT_TARGETS_NAME);
}
