/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "kinema-cli"

#include "config.h"

#include "km-cli-pose-seq.h"
#include "km-format.h"

gboolean
km_cli_is_pose_seq_format (const char *format_name)
{
  return format_name != NULL && g_ascii_strcasecmp (format_name, KM_POSE_SEQ_FORMAT) == 0;
}

gboolean
km_cli_try_pose_seq (const char  *path,
                     const char  *format_name,
                     KmPoseSeq  **seq,
                     GError     **error)
{
  g_autoptr(GBytes) contents = NULL;
  g_autoptr(GError) read_error = NULL;
  gsize length = 0;
  const char *data;

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (seq != NULL, FALSE);

  *seq = NULL;
  if (format_name != NULL && !km_cli_is_pose_seq_format (format_name))
    return FALSE;
  contents = km_format_read_file (path, KM_FORMAT_MAX_FILE_SIZE, &read_error);
  if (contents == NULL)
    {
      /* Without --format the registry's path reports an unreadable file. */
      if (format_name == NULL)
        return FALSE;
      g_propagate_error (error, g_steal_pointer (&read_error));
      return TRUE;
    }
  data = g_bytes_get_data (contents, &length);
  if (format_name == NULL && km_pose_seq_sniff (data, length) == 0)
    return FALSE;
  *seq = km_pose_seq_load (path, contents, error);
  return TRUE;
}
