/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-animation-json"

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "km-animation-json.h"
#include "km-format.h"
#include "km-error.h"
#include "km-json.h"

/* How far euler and quaternion of a spherical joint may disagree before the reader warns. */
#define EULER_QUAT_TOLERANCE 1e-6

static const char * const root_keys[] = { "frames", NULL };
static const char * const frame_keys[] = { "frame", "joints", NULL };
static const char * const revolute_keys[] = { "type", "angle", NULL };
static const char * const prismatic_keys[] = { "type", "displacement", NULL };
static const char * const spherical_keys[] = { "type", "euler", "quaternion", NULL };

/* Reads a joint's "type" and checks it has degrees of freedom (and, when @expected is not
 * KM_JOINT_FIXED, that it is @expected). */
static gboolean
read_joint_type (const KmJsonDocument  *doc,
                 const KmJsonNode      *object,
                 const char            *joint_name,
                 KmJointType            expected,
                 KmJointType           *type,
                 GError               **error)
{
  const KmJsonNode *type_node;
  const char *str;

  if (!km_json_expect_object (doc, object, error)
      || !km_json_expect_member (doc, object, "type", TRUE, &type_node, error)
      || !km_json_expect_string (doc, type_node, &str, error))
    return FALSE;

  if (!km_joint_type_from_string (str, type)
      || (*type != KM_JOINT_REVOLUTE && *type != KM_JOINT_PRISMATIC
          && *type != KM_JOINT_SPHERICAL))
    {
      km_json_error_at (doc, type_node, KM_PARSE_ERROR_INVALID, error,
                        _("expected “revolute”, “prismatic” or “spherical” for joint “%s”"),
                        joint_name);
      return FALSE;
    }
  if (expected != KM_JOINT_FIXED && *type != expected)
    {
      km_json_error_at (doc, type_node, KM_PARSE_ERROR_INVALID, error,
                        /* Translators: the first %s is a joint type, the second a joint. */
                        _("expected “%s”, the type of joint “%s” in the skeleton"),
                        km_joint_type_to_string (expected), joint_name);
      return FALSE;
    }
  return TRUE;
}

/* Reads one joint's values into @values (n_dof of @type). */
static gboolean
read_joint_values (const KmJsonDocument  *doc,
                   const KmJsonNode      *object,
                   const char            *joint_name,
                   KmJointType            type,
                   double                *values,
                   GError               **error)
{
  const KmJsonNode *node, *euler_node;
  KmVec3 euler;
  KmQuat quat;
  double angle;

  switch (type)
    {
    case KM_JOINT_REVOLUTE:
      if (!km_json_expect_member (doc, object, "angle", TRUE, &node, error)
          || !km_json_expect_number (doc, node, &values[0], error))
        return FALSE;
      km_json_warn_unknown_keys (doc, object, revolute_keys);
      return TRUE;

    case KM_JOINT_PRISMATIC:
      if (!km_json_expect_member (doc, object, "displacement", TRUE, &node, error)
          || !km_json_expect_number (doc, node, &values[0], error))
        return FALSE;
      km_json_warn_unknown_keys (doc, object, prismatic_keys);
      return TRUE;

    case KM_JOINT_SPHERICAL:
      if (!km_json_expect_member (doc, object, "euler", TRUE, &euler_node, error)
          || !km_json_expect_vec3 (doc, euler_node, &euler, error)
          || !km_json_expect_member (doc, object, "quaternion", TRUE, &node, error)
          || !km_json_expect_quat (doc, node, &quat, error))
        return FALSE;
      km_json_warn_unknown_keys (doc, object, spherical_keys);

      /* The quaternion is authoritative; agreeing euler angles are kept as written, since
       * they pick one of the two euler triples of the rotation (the one within limits). */
      angle = km_quat_angle_between (km_quat_from_euler_xyz (euler), quat);
      if (!(angle <= EULER_QUAT_TOLERANCE))
        {
          km_parse_warning (km_json_document_get_path (doc), km_json_node_get_pos (euler_node),
                            /* Translators: %s is a joint name, %g an angle in radians. */
                            _("euler angles and quaternion of joint “%s” differ by %g rad; "
                              "using the quaternion"),
                            joint_name, angle);
          euler = km_quat_to_euler_xyz (quat);
        }
      values[0] = euler.x;
      values[1] = euler.y;
      values[2] = euler.z;
      return TRUE;

    case KM_JOINT_FIXED:
    case KM_JOINT_FREE:
    default:
      g_assert_not_reached ();
    }
  return FALSE;
}

/* Skeleton-less: the channels are frame 0's joints in file order. */
static KmAnimation *
animation_from_first_frame (const KmJsonDocument  *doc,
                            const KmJsonNode      *joints,
                            guint                  n_frames,
                            GError               **error)
{
  g_autoptr(GArray) channels = g_array_new (FALSE, TRUE, sizeof (KmAnimationChannel));
  guint n = km_json_node_get_length (joints);

  for (guint i = 0; i < n; i++)
    {
      KmAnimationChannel channel = { 0, };

      channel.name = (char *) km_json_node_get_member_name (joints, i);
      if (!read_joint_type (doc, km_json_node_get_member_value (joints, i), channel.name,
                            KM_JOINT_FIXED, &channel.type, error))
        return NULL;
      g_array_append_val (channels, channel);
    }
  return km_animation_new_for_channels ((const KmAnimationChannel *) channels->data,
                                        channels->len, n_frames);
}

static gboolean
read_frame_joints (const KmJsonDocument  *doc,
                   const KmJsonNode      *joints,
                   KmAnimation           *animation,
                   KmSkeleton            *skeleton,
                   double                *row,
                   gboolean              *seen,
                   GError               **error)
{
  guint n_channels = km_animation_get_n_channels (animation);
  guint n = km_json_node_get_length (joints);

  for (guint c = 0; c < n_channels; c++)
    seen[c] = FALSE;

  for (guint i = 0; i < n; i++)
    {
      const char *name = km_json_node_get_member_name (joints, i);
      const KmJsonNode *value = km_json_node_get_member_value (joints, i);
      const KmAnimationChannel *channel;
      KmJointType type;
      int c = km_animation_find_channel (animation, name);

      if (c < 0)
        {
          KmSourcePos pos = km_json_node_get_member_pos (joints, i);
          const char *path = km_json_document_get_path (doc);

          if (skeleton == NULL)
            km_parse_error_set (error, KM_PARSE_ERROR_INVALID, path, pos,
                                _("expected only the joints of the first frame, but found “%s”"),
                                name);
          else if (km_skeleton_find_joint (skeleton, name) >= 0)
            km_parse_error_set (error, KM_PARSE_ERROR_INVALID, path, pos,
                                _("expected a joint with degrees of freedom, but “%s” has none"),
                                name);
          else
            km_parse_error_set (error, KM_PARSE_ERROR_INVALID, path, pos,
                                _("expected a joint of the skeleton, but there is no joint “%s”"),
                                name);
          return FALSE;
        }

      channel = km_animation_get_channel (animation, c);
      seen[c] = TRUE;
      if (!read_joint_type (doc, value, name, channel->type, &type, error)
          || !read_joint_values (doc, value, name, type, row + channel->dof_index, error))
        return FALSE;
    }

  for (guint c = 0; c < n_channels; c++)
    if (!seen[c])
      {
        km_json_error_at (doc, joints, KM_PARSE_ERROR_INVALID, error,
                          _("expected a value for joint “%s”"),
                          km_animation_get_channel (animation, c)->name);
        return FALSE;
      }
  return TRUE;
}

/**
 * km_animation_json_load:
 * @path: the path as given, for messages
 * @contents: the file's bytes
 * @skeleton: (nullable): the skeleton the animation is for; NULL for a skeleton-less parse
 *
 * Returns: (transfer full) (nullable): the animation, or NULL with a KM_PARSE_ERROR
 */
KmAnimation *
km_animation_json_load (const char  *path,
                        GBytes      *contents,
                        KmSkeleton  *skeleton,
                        GError     **error)
{
  g_autoptr(KmJsonDocument) doc = NULL;
  g_autoptr(KmAnimation) animation = NULL;
  g_autofree double *row = NULL;
  g_autofree gboolean *seen = NULL;
  const KmJsonNode *root, *frames;
  const char *data;
  gsize length;
  guint n_frames;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (contents != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  data = g_bytes_get_data (contents, &length);
  doc = km_json_parse (path, data, length, error);
  if (doc == NULL)
    return NULL;

  root = km_json_document_get_root (doc);
  if (!km_json_expect_object (doc, root, error)
      || !km_json_expect_member (doc, root, "frames", TRUE, &frames, error)
      || !km_json_expect_array (doc, frames, 1, KM_ANIMATION_MAX_FRAMES, error))
    return NULL;
  km_json_warn_unknown_keys (doc, root, root_keys);
  n_frames = km_json_node_get_length (frames);

  for (guint f = 0; f < n_frames; f++)
    {
      const KmJsonNode *frame = km_json_node_get_element (frames, f);
      const KmJsonNode *frame_node, *joints;
      gint64 number;

      if (!km_json_expect_object (doc, frame, error)
          || !km_json_expect_member (doc, frame, "frame", TRUE, &frame_node, error)
          || !km_json_expect_int (doc, frame_node, 0, G_MAXINT64, &number, error))
        return NULL;
      if (number != f)
        {
          km_json_error_at (doc, frame_node, KM_PARSE_ERROR_INVALID, error,
                            _("expected frame %u: frames run from 0 in order, one per frame"), f);
          return NULL;
        }
      if (!km_json_expect_member (doc, frame, "joints", TRUE, &joints, error)
          || !km_json_expect_object (doc, joints, error))
        return NULL;
      km_json_warn_unknown_keys (doc, frame, frame_keys);

      if (animation == NULL)
        {
          if (skeleton != NULL)
            animation = km_animation_new (skeleton, n_frames);
          else
            animation = animation_from_first_frame (doc, joints, n_frames, error);
          if (animation == NULL)
            return NULL;
          row = g_new0 (double, MAX (km_animation_get_n_dof (animation), 1));
          seen = g_new0 (gboolean, MAX (km_animation_get_n_channels (animation), 1));
        }

      if (!read_frame_joints (doc, joints, animation, skeleton, row, seen, error))
        return NULL;
      km_animation_set_frame (animation, f, row);
    }

  return g_steal_pointer (&animation);
}

/**
 * km_animation_json_load_file:
 * @skeleton: (nullable): as for km_animation_json_load()
 *
 * Returns: (transfer full) (nullable): the animation, or NULL with a KM_PARSE_ERROR
 */
KmAnimation *
km_animation_json_load_file (const char  *path,
                             KmSkeleton  *skeleton,
                             GError     **error)
{
  g_autoptr(GBytes) bytes = NULL;

  g_return_val_if_fail (path != NULL, NULL);

  bytes = km_format_read_file (path, KM_JSON_MAX_SIZE, error);
  if (bytes == NULL)
    return NULL;
  return km_animation_json_load (path, bytes, skeleton, error);
}

/**
 * km_animation_json_to_string:
 *
 * Returns: (transfer full): the file's text
 */
char *
km_animation_json_to_string (const KmAnimation *animation)
{
  KmJsonWriter *writer;
  guint n_frames, n_channels;

  g_return_val_if_fail (animation != NULL, NULL);

  n_frames = km_animation_get_n_frames (animation);
  n_channels = km_animation_get_n_channels (animation);
  writer = km_json_writer_new ();
  km_json_writer_begin_object (writer);
  km_json_writer_key (writer, "frames");
  km_json_writer_begin_array (writer);
  for (guint f = 0; f < n_frames; f++)
    {
      const double *row = km_animation_get_frame (animation, f);

      km_json_writer_begin_object (writer);
      km_json_writer_key (writer, "frame");
      km_json_writer_int (writer, f);
      km_json_writer_key (writer, "joints");
      km_json_writer_begin_object (writer);
      for (guint c = 0; c < n_channels; c++)
        {
          const KmAnimationChannel *channel = km_animation_get_channel (animation, c);
          const double *v = row + channel->dof_index;

          km_json_writer_key (writer, channel->name);
          km_json_writer_begin_object (writer);
          km_json_writer_key (writer, "type");
          km_json_writer_string (writer, km_joint_type_to_string (channel->type));
          switch (channel->type)
            {
            case KM_JOINT_REVOLUTE:
              km_json_writer_key (writer, "angle");
              km_json_writer_number (writer, v[0]);
              break;
            case KM_JOINT_PRISMATIC:
              km_json_writer_key (writer, "displacement");
              km_json_writer_number (writer, v[0]);
              break;
            case KM_JOINT_SPHERICAL:
              km_json_writer_key (writer, "euler");
              km_json_writer_vec3 (writer, km_vec3 (v[0], v[1], v[2]));
              km_json_writer_key (writer, "quaternion");
              km_json_writer_quat (writer, km_quat_from_euler_xyz (km_vec3 (v[0], v[1], v[2])));
              break;
            case KM_JOINT_FIXED:
            case KM_JOINT_FREE:
            default:
              g_assert_not_reached ();
            }
          km_json_writer_end_object (writer);
        }
      km_json_writer_end_object (writer);
      km_json_writer_end_object (writer);
    }
  km_json_writer_end_array (writer);
  km_json_writer_end_object (writer);
  return km_json_writer_free_to_string (writer);
}

/* The JSON values (KM_JSON_MAX_NODES counts them) of @n_frames frames of @animation's
 * channels: the root object and its array, then per frame its object, number and
 * "joints" object, and per channel its object, "type" string and value(s). */
static guint64
count_values (const KmAnimation *animation,
              guint64            n_frames)
{
  guint64 per_frame = 3;

  for (guint c = 0; c < km_animation_get_n_channels (animation); c++)
    per_frame += km_animation_get_channel (animation, c)->type == KM_JOINT_SPHERICAL
                   ? 2 + 4 + 5  /* "euler" [3], "quaternion" [4] */
                   : 3;
  return 2 + n_frames * per_frame;
}

/* Whether a file of @n_frames frames, @size bytes and @n_values values is one Kinema
 * reads back; else @error names the limit it exceeds (the values first: a count of 0
 * checks nothing). */
static gboolean
check_readable (guint64   n_frames,
                guint64   size,
                guint64   n_values,
                GError  **error)
{
  const guint64 max_size = MIN (KM_JSON_MAX_SIZE, KM_FORMAT_MAX_FILE_SIZE);

  if (n_values > KM_JSON_MAX_NODES)
    km_format_set_save_limit_error (error, KM_FILE_KIND_ANIMATION, n_frames,
                                    KM_FORMAT_LIMIT_VALUES, KM_JSON_MAX_NODES);
  else if (size > max_size)
    km_format_set_save_limit_error (error, KM_FILE_KIND_ANIMATION, n_frames,
                                    KM_FORMAT_LIMIT_BYTES, max_size);
  else
    return TRUE;
  return FALSE;
}

/**
 * km_animation_json_check_size:
 * @skeleton: the model
 * @n_frames: the frames an animation for it is to have
 * @error: where the error goes
 *
 * Whether an animation.json of @n_frames frames for @skeleton could be read back (at most
 * KM_JSON_MAX_SIZE bytes and KM_JSON_MAX_NODES values): else @error (KM_PARSE_ERROR_LIMIT,
 * for the caller to locate). The size counts every number at its shortest, so only what
 * certainly cannot be read is refused, before anything is solved;
 * km_animation_json_save() checks the text itself.
 *
 * Returns: %TRUE when it could
 */
gboolean
km_animation_json_check_size (KmSkeleton  *skeleton,
                              guint64      n_frames,
                              GError     **error)
{
  g_autoptr(KmAnimation) one = NULL;
  g_autoptr(KmAnimation) two = NULL;
  g_autofree char *text_one = NULL;
  g_autofree char *text_two = NULL;
  guint64 size, per_frame;

  g_return_val_if_fail (skeleton != NULL, FALSE);

  if (n_frames == 0)
    return TRUE;
  /* The writer's own text, every value 0 (one character): the least a frame takes. */
  one = km_animation_new (skeleton, 1);
  two = km_animation_new (skeleton, 2);
  text_one = km_animation_json_to_string (one);
  text_two = km_animation_json_to_string (two);
  per_frame = strlen (text_two) - strlen (text_one);
  size = strlen (text_one) + (n_frames - 1) * per_frame;
  return check_readable (n_frames, size, count_values (one, n_frames), error);
}

/* Writes atomically (temporary file, fsync, rename); refuses, writing nothing, a text
 * that Kinema could not read back (km_animation_json_check_size()). */
gboolean
km_animation_json_save (const KmAnimation  *animation,
                        const char         *path,
                        GError            **error)
{
  g_autofree char *text = NULL;
  guint n_frames;

  g_return_val_if_fail (animation != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  n_frames = km_animation_get_n_frames (animation);
  if (!check_readable (n_frames, 0, count_values (animation, n_frames), error))
    {
      km_parse_error_prefix (error, path, (KmSourcePos) { 0, 0 });
      return FALSE;
    }
  text = km_animation_json_to_string (animation);
  if (!check_readable (n_frames, strlen (text), 0, error))
    {
      km_parse_error_prefix (error, path, (KmSourcePos) { 0, 0 });
      return FALSE;
    }
  return km_format_save_text (path, text, error);
}

/* `kinema-cli info`: one line per joint, then `frames=N joints=M`. */
void
km_animation_json_describe (const KmAnimation *animation,
                            GString           *out)
{
  guint n_channels;

  g_return_if_fail (animation != NULL);
  g_return_if_fail (out != NULL);

  n_channels = km_animation_get_n_channels (animation);
  for (guint c = 0; c < n_channels; c++)
    {
      const KmAnimationChannel *channel = km_animation_get_channel (animation, c);

      /* The name one field of the line (km_format_append_field()). */
      g_string_append (out, "joint name=");
      km_format_append_field (out, channel->name);
      g_string_append_printf (out, " type=%s\n", km_joint_type_to_string (channel->type));
    }
  g_string_append_printf (out, "frames=%u joints=%u\n", km_animation_get_n_frames (animation),
                          n_channels);
}

static int
animation_sniff (const char *data,
                 gsize       length)
{
  if (km_json_sniff_first_char (data, length) != '{')
    return 0;
  return km_json_sniff_has_key (data, length, "frames", 1) ? 90 : 0;
}

static gpointer
animation_load (const char  *path,
                GBytes      *contents,
                GError     **error)
{
  return km_animation_json_load (path, contents, NULL, error);
}

static void
animation_free_result (gpointer result)
{
  km_animation_unref (result);
}

static void
animation_describe (gpointer  result,
                    GString  *out)
{
  km_animation_json_describe (result, out);
}

const KmFormat km_format_animation_json = {
  .name = "KINEMA-ANIMATION-JSON",
  .kind = KM_FILE_KIND_ANIMATION,
  .description = N_("Kinema solved animation (animation.json)"),
  .sniff = animation_sniff,
  .load = animation_load,
  .free_result = animation_free_result,
  .describe = animation_describe,
};
