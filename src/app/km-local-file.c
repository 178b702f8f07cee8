/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-local-file"

#include "config.h"

#include <glib/gi18n.h>

#include "km-local-file.h"

/**
 * km_local_file_get_path:
 *
 * The editor reads and writes files by path (the core's loaders and atomic writers take
 * paths): @file's local path, or NULL with G_IO_ERROR_NOT_SUPPORTED naming its URI.
 *
 * Returns: (transfer full) (nullable): the path
 */
char *
km_local_file_get_path (GFile   *file,
                        GError **error)
{
  char *path;

  g_return_val_if_fail (G_IS_FILE (file), NULL);

  path = g_file_get_path (file);
  if (path == NULL)
    {
      g_autofree char *uri = g_file_get_uri (file);

      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   _("%s: only local files can be opened or saved"), uri);
    }
  return path;
}
