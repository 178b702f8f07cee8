/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-targets-json"

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "km-targets-json.h"
#include "km-format.h"
#include "km-error.h"
#include "km-json.h"

static const char * const keyframe_keys[] = {
  "frame", "pos", "euler", "effector", "effector_offset", "position_only", "base", NULL
};

/*
 * The track's own settings are keys a keyframe may repeat (the format is a bare array of
 * keyframes): "effector" (the spec's extension), and for a tool point on the effector
 * "effector_offset" ([x, y, z] metres in the effector joint's frame, default zero) and
 * "position_only" (true: the euler angles are not targets; default false), and "base" (the
 * joint the moving chain stops below, for targets in a frame riding on it: a Scenebuilder
 * ik's ref; default the root). A keyframe may
 * leave one out; every keyframe that gives one must give the value the first one gave, so
 * a file's meaning never depends on which keyframe is read last.
 */
typedef struct
{
  const char       *key;
  const KmJsonNode *first;       /* the first keyframe's value, NULL until one gives it */
} TrackSetting;

static gboolean
vec3_same (KmVec3 a,
           KmVec3 b)
{
  return a.x == b.x && a.y == b.y && a.z == b.z;
}

/* @same: whether @node (a value of @setting's key) says what the first one said. */
static gboolean
track_setting_agrees (const KmJsonDocument  *doc,
                      TrackSetting          *setting,
                      const KmJsonNode      *node,
                      gboolean               same,
                      GError               **error)
{
  if (setting->first == NULL)
    {
      setting->first = node;
      return TRUE;
    }
  if (same)
    return TRUE;
  km_json_error_at (doc, node, KM_PARSE_ERROR_INVALID, error,
                    /* Translators: %s is a key of the file ("effector_offset"), %u a line
                     * number. */
                    _("expected the same “%s” as at line %u: every keyframe that gives it "
                      "must give the same value"),
                    setting->key, km_json_node_get_pos (setting->first).line);
  return FALSE;
}

/* Whether member @m of @object is one of keyframe_keys (a name is compared whole: one
 * holding a "\u0000" escape, "frame\u0000x", is not "frame"). */
static gboolean
is_keyframe_key (const KmJsonNode *object,
                 guint             m)
{
  const char *name = km_json_node_get_member_name (object, m);

  return km_json_node_get_member_name_length (object, m) == strlen (name)
         && g_strv_contains (keyframe_keys, name);
}

/* The members of the keyframe @object that Kinema does not interpret, in file order, as
 * the text of one JSON object (km_target_track_get_extra()); NULL when there are none. */
static char *
keyframe_extra (const KmJsonNode *object)
{
  KmJsonWriter *writer = NULL;

  for (guint m = 0; m < km_json_node_get_length (object); m++)
    {
      if (is_keyframe_key (object, m))
        continue;
      if (writer == NULL)
        {
          writer = km_json_writer_new ();
          km_json_writer_begin_object (writer);
        }
      km_json_writer_key_len (writer, km_json_node_get_member_name (object, m),
                              km_json_node_get_member_name_length (object, m));
      km_json_writer_node (writer, km_json_node_get_member_value (object, m));
    }
  if (writer == NULL)
    return NULL;
  km_json_writer_end_object (writer);
  return km_json_writer_free_to_string (writer);
}

/* Writes back the members of @extra (km_target_track_get_extra()), after the keyframe's
 * own. */
static void
write_extra (KmJsonWriter *writer,
             const char   *extra)
{
  g_autoptr(KmJsonDocument) doc = km_json_parse ("extra", extra, strlen (extra), NULL);
  const KmJsonNode *object = doc != NULL ? km_json_document_get_root (doc) : NULL;

  /* Written by keyframe_extra(): it always reads back. */
  g_return_if_fail (object != NULL && km_json_node_type (object) == KM_JSON_OBJECT);
  for (guint m = 0; m < km_json_node_get_length (object); m++)
    {
      km_json_writer_key_len (writer, km_json_node_get_member_name (object, m),
                              km_json_node_get_member_name_length (object, m));
      km_json_writer_node (writer, km_json_node_get_member_value (object, m));
    }
}

/* @radians in degrees as the .body writer writes them (km_format_scaled_number()): the
 * shortest number that the reader (km_deg_to_rad()) takes back to the same radians, "30"
 * and not 29.999999999999996, as km_rad_to_deg() gives. */
static double
scaled_degrees (double radians)
{
  char text[G_ASCII_DTOSTR_BUF_SIZE];
  double degrees;

  km_format_scaled_number (radians, KM_FORMAT_RADIANS_PER_DEGREE, text, sizeof text);
  degrees = g_ascii_strtod (text, NULL);
  /* + 0.0: no "-0" made up */
  return (isfinite (degrees) ? degrees : km_rad_to_deg (radians)) + 0.0;
}

/* The euler XYZ angles, in degrees, written for keyframe @i: those its file gave, as read
 * (the user's own triple, and the same doubles: a rewrite must give back the same
 * targets, as the bench files' 17 digits promise), unless its rotation was changed since;
 * then from the rotation, every digit that reads back to the same radians kept (they
 * were rounded to 1e-9° once, which moved a rotation by up to 2e-11 rad and turned
 * 1e-300 into 0), and no more (scaled_degrees()). */
static KmVec3
keyframe_degrees (const KmTargetTrack *track,
                  guint                i)
{
  KmVec3 euler;

  if (km_target_track_get_euler (track, i, &euler))
    return euler;
  euler = km_quat_to_euler_xyz (km_target_track_get_keyframe (track, i)->orientation);
  return km_vec3 (scaled_degrees (euler.x), scaled_degrees (euler.y),
                  scaled_degrees (euler.z));
}

/* Frames are unique and at most KM_TARGET_TRACK_MAX_FRAME, which bounds the number of
 * keyframes: said at the first one too many, as soon as it is read (a file of too many
 * was read whole first, about 1 GB for 53 MB, and the error was put at 1:1). */
static gboolean
check_keyframe_count (const KmJsonNode  *element,
                      guint              index,
                      gpointer           user_data,
                      GError           **error)
{
  if (index <= KM_TARGET_TRACK_MAX_FRAME)
    return TRUE;
  km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, user_data, km_json_node_get_pos (element),
                      _("expected at most %u keyframes"), KM_TARGET_TRACK_MAX_FRAME + 1);
  return FALSE;
}

/* Names a misspelt key may be meant for: the keyframe's keys, and "position", which is
 * what "pos" stands for (so "postion" is taken for "pos", not for a key of its own). */
static const struct
{
  const char *name;
  const char *key;
} meant_keys[] = {
  { "frame", "frame" },
  { "pos", "pos" },
  { "position", "pos" },
  { "euler", "euler" },
  { "effector", "effector" },
  { "effector_offset", "effector_offset" },
  { "position_only", "position_only" },
};

/* The optimal string alignment distance between @a and @b (bytes; short names): edits,
 * with a swap of two neighbours one edit ("eulre"). */
static guint
edit_distance (const char *a,
               const char *b)
{
  gsize la = strlen (a), lb = strlen (b);
  g_autofree guint *d = g_new (guint, (la + 1) * (lb + 1));

#define D(i, j) d[(i) * (lb + 1) + (j)]
  for (gsize i = 0; i <= la; i++)
    D (i, 0) = i;
  for (gsize j = 0; j <= lb; j++)
    D (0, j) = j;
  for (gsize i = 1; i <= la; i++)
    for (gsize j = 1; j <= lb; j++)
      {
        guint best = MIN (D (i - 1, j) + 1, D (i, j - 1) + 1);

        best = MIN (best, D (i - 1, j - 1) + (a[i - 1] != b[j - 1]));
        if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
          best = MIN (best, D (i - 2, j - 2) + 1);
        D (i, j) = best;
      }
  return D (la, lb);
#undef D
}

/* The keyframe key that the unknown key @name most likely misspells, NULL when it is not
 * near one: the same but for case or surrounding blanks ("Frame", "euler "), or within
 * one edit ("efector") of a name of 4 or 5 characters and two of a longer one
 * ("postion", "effector_ofset"). Not further: "name" and "rate" are two edits from
 * "frame", and are a keyframe's own notes far more likely than a misspelling. */
static const char *
meant_key (const char *name)
{
  g_autofree char *folded = NULL;
  const char *key = NULL;
  guint length, within;

  /* A long name is no near miss (and edit_distance() stays small). */
  if (strlen (name) > 32)
    return NULL;
  folded = g_strstrip (g_ascii_strdown (name, -1));
  length = g_utf8_strlen (folded, -1);
  within = length >= 6 ? 2 : length >= 4 ? 1 : 0;
  for (guint i = 0; i < G_N_ELEMENTS (meant_keys); i++)
    if (g_str_equal (folded, meant_keys[i].name))
      return meant_keys[i].key;
  /* The nearest ("positon_only" is nearer "position_only" than "position"); of two as
   * near, the first. */
  for (guint i = 0, best = within + 1; i < G_N_ELEMENTS (meant_keys); i++)
    if (strlen (meant_keys[i].name) >= 4)
      {
        guint distance = edit_distance (folded, meant_keys[i].name);

        if (distance < best)
          {
            best = distance;
            key = meant_keys[i].key;
          }
      }
  return key;
}

/* @name for a message: control characters escaped ("euler\\t"), the rest as it is. */
static char *
shown_name (const char *name)
{
  char exceptions[129];

  for (const char *c = name; *c != '\0'; c++)
    if ((guchar) *c < 0x20 || *c == 0x7f)
      {
        /* Every byte of a UTF-8 sequence is >= 0x80: those stay. */
        for (guint i = 0; i < 128; i++)
          exceptions[i] = (char) (0x80 + i);
        exceptions[128] = '\0';
        return g_strescape (name, exceptions);
      }
  return g_strdup (name);
}

/* Keys of @object that Kinema does not use are kept (keyframe_extra()), and most are
 * meant that way ("comment", "time", …): nothing is said of them. But one that looks
 * like a misspelt keyframe key ("efector") is most likely a setting the user meant and
 * Kinema does not follow: said once per name in the file (@warned), at its first use. */
static void
warn_misspelt_keys (const KmJsonDocument *doc,
                    const KmJsonNode     *object,
                    GHashTable           *warned)
{
  for (guint m = 0; m < km_json_node_get_length (object); m++)
    {
      const char *name = km_json_node_get_member_name (object, m);
      const char *key;

      /* (A name holding a "\u0000" is no one's typo.) */
      if (is_keyframe_key (object, m)
          || km_json_node_get_member_name_length (object, m) != strlen (name)
          || g_hash_table_contains (warned, name))
        continue;
      key = meant_key (name);
      if (key == NULL)
        continue;
      g_hash_table_add (warned, (gpointer) name);
      {
        g_autofree char *shown = shown_name (name);

        km_parse_warning (km_json_document_get_path (doc), km_json_node_get_member_pos (object, m),
                          /* Translators: %s are two keys of a targets file: the unknown one
                           * as written (“efector”), and the known one it may misspell
                           * (“effector”). */
                          _("unknown key “%s” kept, not used (did you mean “%s”?)"), shown, key);
      }
    }
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
  g_autoptr(GHashTable) extras = NULL;
  g_autoptr(GHashTable) warned = NULL;
  g_autofree KmVec3 *eulers = NULL;
  g_autofree KmVec3 *sorted_eulers = NULL;
  const KmJsonNode *root;
  TrackSetting effector_setting = { "effector", NULL };
  TrackSetting offset_setting = { "effector_offset", NULL };
  TrackSetting position_only_setting = { "position_only", NULL };
  TrackSetting base_setting = { "base", NULL };
  const char *effector = NULL;
  const char *base = NULL;
  KmVec3 offset = KM_VEC3_ZERO;
  gboolean position_only = FALSE;
  g_autoptr(KmTargetTrack) track = NULL;
  const char *data;
  gsize length;
  guint n;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (contents != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  data = g_bytes_get_data (contents, &length);
  doc = km_json_parse_with_elements (path, data, length, check_keyframe_count, (gpointer) path,
                                     error);
  if (doc == NULL)
    return NULL;

  root = km_json_document_get_root (doc);
  if (!km_json_expect_array (doc, root, 0, G_MAXUINT, error))
    return NULL;

  n = km_json_node_get_length (root);
  if (n == 0)
    {
      km_json_error_at (doc, root, KM_PARSE_ERROR_INVALID, error,
                        _("expected at least one keyframe (an IK targets file with no "
                          "keyframes)"));
      return NULL;
    }
  /* (check_keyframe_count() has said it at the first keyframe too many.) */
  g_assert (n <= KM_TARGET_TRACK_MAX_FRAME + 1);
  keys = g_new0 (KmTargetKeyframe, n);
  eulers = g_new (KmVec3, n);
  warned = g_hash_table_new (g_str_hash, g_str_equal);
  /* frame → its "frame" node, to point at the second of two equal frames. */
  frames = g_hash_table_new (g_direct_hash, g_direct_equal);

  for (guint i = 0; i < n; i++)
    {
      const KmJsonNode *object = km_json_node_get_element (root, i);
      const KmJsonNode *frame_node, *pos_node, *euler_node, *eff_node, *offset_node;
      const KmJsonNode *only_node, *base_node;
      const KmJsonNode *previous;
      const char *name;
      char *extra;
      KmVec3 euler, v;
      gboolean b;
      gint64 frame;

      if (!km_json_expect_object (doc, object, error)
          || !km_json_expect_member (doc, object, "frame", TRUE, &frame_node, error)
          || !km_json_expect_int (doc, frame_node, 0, KM_TARGET_TRACK_MAX_FRAME, &frame, error)
          || !km_json_expect_member (doc, object, "pos", TRUE, &pos_node, error)
          || !km_json_expect_vec3 (doc, pos_node, &keys[i].position, error)
          || !km_json_expect_member (doc, object, "euler", TRUE, &euler_node, error)
          || !km_json_expect_vec3 (doc, euler_node, &euler, error)
          || !km_json_expect_member (doc, object, "effector", FALSE, &eff_node, error)
          || !km_json_expect_member (doc, object, "effector_offset", FALSE, &offset_node, error)
          || !km_json_expect_member (doc, object, "position_only", FALSE, &only_node, error)
          || !km_json_expect_member (doc, object, "base", FALSE, &base_node, error))
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
          if (!km_json_expect_string (doc, eff_node, &name, error)
              || !track_setting_agrees (doc, &effector_setting, eff_node,
                                        effector == NULL || g_str_equal (effector, name), error))
            return NULL;
          effector = name;
        }
      if (offset_node != NULL)
        {
          if (!km_json_expect_vec3 (doc, offset_node, &v, error)
              || !track_setting_agrees (doc, &offset_setting, offset_node,
                                        vec3_same (v, offset), error))
            return NULL;
          offset = v;
        }
      if (only_node != NULL)
        {
          if (!km_json_expect_boolean (doc, only_node, &b, error)
              || !track_setting_agrees (doc, &position_only_setting, only_node,
                                        !b == !position_only, error))
            return NULL;
          position_only = b;
        }
      if (base_node != NULL)
        {
          if (!km_json_expect_string (doc, base_node, &name, error)
              || !track_setting_agrees (doc, &base_setting, base_node,
                                        base == NULL || g_str_equal (base, name), error))
            return NULL;
          base = name;
        }

      /* Keys Kinema does not use ("comment", "time", …) are kept for a rewrite of the
       * file (`convert`, the editor's save), so nothing is said: "ignored" would be
       * false, and a file that carries one on every keyframe would bury the warnings
       * that matter under one per keyframe. Only a likely misspelling is said, once. */
      warn_misspelt_keys (doc, object, warned);
      extra = keyframe_extra (object);
      if (extra != NULL)
        {
          if (extras == NULL)
            extras = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
          g_hash_table_insert (extras, GUINT_TO_POINTER ((guint) frame), extra);
        }

      keys[i].frame = (guint) frame;
      eulers[i] = euler;
      keys[i].orientation = km_quat_from_euler_xyz (km_vec3 (km_deg_to_rad (euler.x),
                                                             km_deg_to_rad (euler.y),
                                                             km_deg_to_rad (euler.z)));
    }

  /* The base is a joint the effector's chain starts from, above the effector: never the
   * effector itself. (Whether the model has it, and has it above, only a solve can
   * tell, as for the effector.) */
  if (base != NULL && effector != NULL && g_str_equal (base, effector))
    {
      g_autofree char *shown = km_parse_shown_file (base);

      km_json_error_at (doc, base_setting.first, KM_PARSE_ERROR_INVALID, error,
                        /* Translators: %s is a joint name */
                        _("expected a base above the end effector, but “%s” is the end "
                          "effector itself"), shown);
      return NULL;
    }

  /* Every check km_target_track_new makes has been made above with a position. */
  track = km_target_track_new (keys, n, effector, KM_TARGET_TRACK_DEFAULT_FRAME_RATE, error);
  if (track == NULL)
    return NULL;
  /* The angles as read, for a rewrite (keyframe_degrees()), in the track's order. */
  sorted_eulers = g_new (KmVec3, n);
  for (guint i = 0; i < n; i++)
    sorted_eulers[km_target_track_find_keyframe (track, keys[i].frame)] = eulers[i];
  {
    KmTargetTrack *with = km_target_track_with_eulers (track, sorted_eulers);

    km_target_track_unref (track);
    track = with;
  }
  if (extras != NULL)
    {
      KmTargetTrack *with = km_target_track_with_extras (track, extras);

      km_target_track_unref (track);
      track = with;
    }
  if (base != NULL)
    {
      KmTargetTrack *with = km_target_track_with_base (track, base);

      km_target_track_unref (track);
      track = with;
    }
  if (vec3_same (offset, KM_VEC3_ZERO) && !position_only)
    return g_steal_pointer (&track);
  return km_target_track_with_tool (track, offset, position_only);
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
 * Keyframes in frame order; orientation as euler XYZ degrees (those the file gave, as
 * read, while the rotation is unchanged: keyframe_degrees()); "effector" on every keyframe
 * when the track names one, and likewise "effector_offset" and "position_only" when they
 * are not the defaults (so that a plain track's file is exactly the spec's format), and
 * "base" when the track has one (never the effector itself, which the reader refuses: a
 * track does not keep one, km_target_track_with_base(), and it is not written); then the
 * keyframe's members that Kinema does not interpret, as the file had them.
 *
 * Returns: (transfer full): the file's text
 */
char *
km_targets_json_to_string (const KmTargetTrack *track)
{
  KmJsonWriter *writer;
  const KmTargetKeyframe *keys;
  const char *effector, *base;
  KmVec3 offset;
  gboolean position_only;
  guint n;

  g_return_val_if_fail (track != NULL, NULL);

  base = km_target_track_get_base (track);
  keys = km_target_track_get_keyframes (track, &n);
  effector = km_target_track_get_effector (track);
  offset = km_target_track_get_effector_offset (track);
  position_only = km_target_track_get_position_only (track);
  writer = km_json_writer_new ();
  km_json_writer_begin_array (writer);
  for (guint i = 0; i < n; i++)
    {
      const char *extra;

      km_json_writer_begin_object (writer);
      km_json_writer_key (writer, "frame");
      km_json_writer_int (writer, keys[i].frame);
      km_json_writer_key (writer, "pos");
      km_json_writer_vec3 (writer, keys[i].position);
      km_json_writer_key (writer, "euler");
      km_json_writer_vec3 (writer, keyframe_degrees (track, i));
      if (effector != NULL)
        {
          km_json_writer_key (writer, "effector");
          km_json_writer_string (writer, effector);
        }
      if (!vec3_same (offset, KM_VEC3_ZERO))
        {
          km_json_writer_key (writer, "effector_offset");
          km_json_writer_vec3 (writer, offset);
        }
      if (position_only)
        {
          km_json_writer_key (writer, "position_only");
          km_json_writer_boolean (writer, TRUE);
        }
      if (base != NULL && g_strcmp0 (base, effector) != 0)
        {
          km_json_writer_key (writer, "base");
          km_json_writer_string (writer, base);
        }
      extra = km_target_track_get_extra (track, keys[i].frame);
      if (extra != NULL)
        write_extra (writer, extra);
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

/* `kinema-cli info`: the track's settings that are not the defaults (`effector=`,
 * `effector_offset=`, `position_only=true`), one line per keyframe, then
 * `keyframes=N first=F last=L`. */
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
    {
      g_string_append (out, "effector=");
      km_format_append_field (out, effector);
      g_string_append_c (out, '\n');
    }
  if (!vec3_same (km_target_track_get_effector_offset (track), KM_VEC3_ZERO))
    {
      KmVec3 o = km_target_track_get_effector_offset (track);
      char b[3][32];

      g_string_append_printf (out, "effector_offset=%s,%s,%s\n", km_json_format_number (b[0], o.x),
                              km_json_format_number (b[1], o.y), km_json_format_number (b[2], o.z));
    }
  if (km_target_track_get_position_only (track))
    g_string_append (out, "position_only=true\n");
  if (km_target_track_get_base (track) != NULL)
    {
      g_string_append (out, "base=");
      km_format_append_field (out, km_target_track_get_base (track));
      g_string_append_c (out, '\n');
    }
  for (guint i = 0; i < n; i++)
    {
      KmVec3 e = keyframe_degrees (track, i);
      char b[6][32];

      g_string_append_printf (out, "keyframe frame=%u pos=%s,%s,%s euler=%s,%s,%s\n",
                              keys[i].frame,
                              km_json_format_number (b[0], keys[i].position.x),
                              km_json_format_number (b[1], keys[i].position.y),
                              km_json_format_number (b[2], keys[i].position.z),
                              km_json_format_number (b[3], e.x),
                              km_json_format_number (b[4], e.y),
                              km_json_format_number (b[5], e.z));
    }
  g_string_append_printf (out, "keyframes=%u first=%u last=%u\n", n,
                          km_target_track_get_first_frame (track),
                          km_target_track_get_last_frame (track));
}

/* Whether the text is "[ ]": white space (and a UTF-8 byte order mark) around it only. */
static gboolean
is_empty_array (const char *data,
                gsize       length)
{
  gsize i = length >= 3 && memcmp (data, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
  guint brackets = 0;

  for (; i < length; i++)
    {
      if (brackets == 0 && data[i] == '[')
        brackets++;
      else if (brackets == 1 && data[i] == ']')
        brackets++;
      else if (data[i] != ' ' && data[i] != '\t' && data[i] != '\n' && data[i] != '\r')
        return FALSE;
    }
  return brackets == 2;
}

static int
targets_sniff (const char *data,
               gsize       length)
{
  if (km_json_sniff_first_char (data, length) != '[')
    return 0;
  if (km_json_sniff_has_key (data, length, "frame", 2))
    return km_json_sniff_has_key (data, length, "pos", 2) ? 95 : 80;
  /* An empty array: no other format is an array, so most likely targets with no keyframes
   * yet, which the loader then says (rather than "not a file Kinema can read"). */
  if (is_empty_array (data, length))
    return 10;
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
