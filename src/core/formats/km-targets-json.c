/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-targets-json"

#include "config.h"

#include <math.h>
#include <glib/gi18n-lib.h>

#include "km-targets-json.h"
#include "km-format.h"
#include "km-error.h"
#include "km-json.h"

static const char * const keyframe_keys[] = { "frame", "pos", "euler", "effector", NULL };

/* Euler angles are written in degrees rounded to 1e-9°, so that 90 stays 90 after the
 * round trip through a quaternion (the rounding is below 2e-11 rad). */
static double
tidy_degrees (double rad)
{
  double deg = km_rad_to_deg (rad);
  double r = round (deg * 1e9) / 1e9;

  return r == 0.0 ? 0.0 : r;
}

/**
 * km_targets_json_load:
 * @path: the path as given, for messages
 * @contents: the file's bytes
 *
 * Returns: (transfer full) (nullable): the track, sorted by frame, or NULL with a
 *   KM_PARSE_ERROR
 */
KmTargetTrack *
km_targets_json_load (const char  *path,
                      GBytes      *contents,
                      GError     **error)
{
  g_autoptr(KmJsonDocument) doc = NULL;
  g_autoptr(GHashTable) frames = NULL;
  g_autofree KmTargetKeyframe *keys = NULL;
  const KmJsonNode *root;
  const KmJsonNode *effector_node = NULL;
  const char *effector = NULL;
  const char *data;
  gsize length;
  guint n;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (contents != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  data = g_bytes_get_data (contents, &length);
  doc = km_json_parse (path, data, length, error);
  if (doc == NULL)
    return NULL;

  root = km_json_document_get_root (doc);
  if (!km_json_expect_array (doc, root, 0, G_MAXUINT, error))
    return NULL;

  n = km_json_node_get_length (root);
  if (n == 0)
    {
      km_json_error_at (doc, root, KM_PARSE_ERROR_INVALID, error,
                        _("expected at least one keyframe"));
      return NULL;
    }
  /* Frames are unique and at most KM_TARGET_TRACK_MAX_FRAME, which bounds n too. */
  if (n > KM_TARGET_TRACK_MAX_FRAME + 1)
    {
      km_json_error_at (doc, root, KM_PARSE_ERROR_LIMIT, error,
                        _("expected at most %u keyframes"), KM_TARGET_TRACK_MAX_FRAME + 1);
      return NULL;
    }
  keys = g_new0 (KmTargetKeyframe, n);
  /* frame → its "frame" node, to point at the second of two equal frames. */
  frames = g_hash_table_new (g_direct_hash, g_direct_equal);

  for (guint i = 0; i < n; i++)
    {
      const KmJsonNode *object = km_json_node_get_element (root, i);
      const KmJsonNode *frame_node, *pos_node, *euler_node, *eff_node;
      const KmJsonNode *previous;
      const char *name;
      KmVec3 euler;
      gint64 frame;

      if (!km_json_expect_object (doc, object, error)
          || !km_json_expect_member (doc, object, "frame", TRUE, &frame_node, error)
          || !km_json_expect_int (doc, frame_node, 0, KM_TARGET_TRACK_MAX_FRAME, &frame, error)
          || !km_json_expect_member (doc, object, "pos", TRUE, &pos_node, error)
          || !km_json_expect_vec3 (doc, pos_node, &keys[i].position, error)
          || !km_json_expect_member (doc, object, "euler", TRUE, &euler_node, error)
          || !km_json_expect_vec3 (doc, euler_node, &euler, error)
          || !km_json_expect_member (doc, object, "effector", FALSE, &eff_node, error))
        return NULL;

      previous = g_hash_table_lookup (frames, GINT_TO_POINTER ((int) frame));
      if (previous != NULL)
        {
          km_json_error_at (doc, frame_node, KM_PARSE_ERROR_INVALID, error,
                            /* Translators: %d is a frame number, %u a line number. */
                            _("expected a frame number not used before, but frame %d is already "
                              "a keyframe at line %u"),
                            (int) frame, km_json_node_get_pos (previous).line);
          return NULL;
        }
      g_hash_table_insert (frames, GINT_TO_POINTER ((int) frame), (gpointer) frame_node);

      if (eff_node != NULL)
        {
          if (!km_json_expect_string (doc, eff_node, &name, error))
            return NULL;
          if (effector == NULL)
            {
              effector = name;
              effector_node = eff_node;
            }
          else if (!g_str_equal (effector, name))
            {
              km_json_error_at (doc, eff_node, KM_PARSE_ERROR_INVALID, error,
                                /* Translators: the effector names a joint; the first %s
                                 * is the name given before, %u its line number. */
                                _("expected effector “%s” as at line %u: every keyframe "
                                  "must name the same end effector"),
                                effector, km_json_node_get_pos (effector_node).line);
              return NULL;
            }
        }

      km_json_warn_unknown_keys (doc, object, keyframe_keys);

      keys[i].frame = (guint) frame;
      keys[i].orientation = km_quat_from_euler_xyz (km_vec3 (km_deg_to_rad (euler.x),
                                                             km_deg_to_rad (euler.y),
                                                             km_deg_to_rad (euler.z)));
    }

  /* Every check km_target_track_new makes has been made above with a position. */
  return km_target_track_new (keys, n, effector, KM_TARGET_TRACK_DEFAULT_FRAME_RATE, error);
}

/**
 * km_targets_json_load_file:
 *
 * Returns: (transfer full) (nullable): the track, or NULL with a KM_PARSE_ERROR
 */
KmTargetTrack *
km_targets_json_load_file (const char  *path,
                           GError     **error)
{
  g_autoptr(GBytes) bytes = NULL;

  g_return_val_if_fail (path != NULL, NULL);

  bytes = km_format_read_file (path, KM_JSON_MAX_SIZE, error);
  if (bytes == NULL)
    return NULL;
  return km_targets_json_load (path, bytes, error);
}

/**
 * km_targets_json_to_string:
 *
 * Keyframes in frame order; orientation as euler XYZ degrees; "effector" on every keyframe
 * when the track names one.
 *
 * Returns: (transfer full): the file's text
 */
char *
km_targets_json_to_string (const KmTargetTrack *track)
{
  KmJsonWriter *writer;
  const KmTargetKeyframe *keys;
  const char *effector;
  guint n;

  g_return_val_if_fail (track != NULL, NULL);

  keys = km_target_track_get_keyframes (track, &n);
  effector = km_target_track_get_effector (track);
  writer = km_json_writer_new ();
  km_json_writer_begin_array (writer);
  for (guint i = 0; i < n; i++)
    {
      KmVec3 euler = km_quat_to_euler_xyz (keys[i].orientation);

      km_json_writer_begin_object (writer);
      km_json_writer_key (writer, "frame");
      km_json_writer_int (writer, keys[i].frame);
      km_json_writer_key (writer, "pos");
      km_json_writer_vec3 (writer, keys[i].position);
      km_json_writer_key (writer, "euler");
      km_json_writer_vec3 (writer, km_vec3 (tidy_degrees (euler.x), tidy_degrees (euler.y),
                                            tidy_degrees (euler.z)));
      if (effector != NULL)
        {
          km_json_writer_key (writer, "effector");
          km_json_writer_string (writer, effector);
        }
      km_json_writer_end_object (writer);
    }
  km_json_writer_end_array (writer);
  return km_json_writer_free_to_string (writer);
}

/* Writes atomically (temporary file, fsync, rename). */
gboolean
km_targets_json_save (const KmTargetTrack  *track,
                      const char           *path,
                      GError              **error)
{
  g_autofree char *text = NULL;

  g_return_val_if_fail (track != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  text = km_targets_json_to_string (track);
  return km_format_save_text (path, text, error);
}

/* `kinema-cli info`: one line per keyframe, then `keyframes=N first=F last=L`. */
void
km_targets_json_describe (const KmTargetTrack *track,
                          GString             *out)
{
  const KmTargetKeyframe *keys;
  const char *effector;
  guint n;

  g_return_if_fail (track != NULL);
  g_return_if_fail (out != NULL);

  keys = km_target_track_get_keyframes (track, &n);
  effector = km_target_track_get_effector (track);
  if (effector != NULL)
    g_string_append_printf (out, "effector=%s\n", effector);
  for (guint i = 0; i < n; i++)
    {
      KmVec3 e = km_quat_to_euler_xyz (keys[i].orientation);
      char b[6][32];

      g_string_append_printf (out, "keyframe frame=%u pos=%s,%s,%s euler=%s,%s,%s\n",
                              keys[i].frame,
                              km_json_format_number (b[0], keys[i].position.x),
                              km_json_format_number (b[1], keys[i].position.y),
                              km_json_format_number (b[2], keys[i].position.z),
                              km_json_format_number (b[3], tidy_degrees (e.x)),
                              km_json_format_number (b[4], tidy_degrees (e.y)),
                              km_json_format_number (b[5], tidy_degrees (e.z)));
    }
  g_string_append_printf (out, "keyframes=%u first=%u last=%u\n", n,
                          km_target_track_get_first_frame (track),
                          km_target_track_get_last_frame (track));
}

static int
targets_sniff (const char *data,
               gsize       length)
{
  if (km_json_sniff_first_char (data, length) != '[')
    return 0;
  if (km_json_sniff_has_key (data, length, "frame", 2))
    return km_json_sniff_has_key (data, length, "pos", 2) ? 95 : 80;
  return 0;
}

static gpointer
targets_load (const char  *path,
              GBytes      *contents,
              GError     **error)
{
  return km_targets_json_load (path, contents, error);
}

static void
targets_free_result (gpointer result)
{
  km_target_track_unref (result);
}

static void
targets_describe (gpointer  result,
                  GString  *out)
{
  km_targets_json_describe (result, out);
}

const KmFormat km_format_targets_json = {
  .name = "KINEMA-TARGETS-JSON",
  .kind = KM_FILE_KIND_TARGETS,
  .description = N_("Kinema IK targets (targets.json)"),
  .sniff = targets_sniff,
  .load = targets_load,
  .free_result = targets_free_result,
  .describe = targets_describe,
};
