/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-ik-targets-item"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "km-body-motion.h"
#include "km-cnoid.h"
#include "km-format.h"
#include "km-ik-targets-item.h"

#define TARGETS_FORMAT "KINEMA-TARGETS-JSON"

struct _KmIkTargetsItem
{
  KmItem         parent_instance;

  /* Owned */
  KmTargetTrack *track;
  char          *file;
  char          *format;

  /* Changed since it was read: store writes it from the fields. */
  gboolean       modified;
};

G_DEFINE_FINAL_TYPE (KmIkTargetsItem, km_ik_targets_item, KM_TYPE_ITEM)

static const char * const file_keys[] = { "file", "filename", NULL };

static gboolean
read_frame_rate (const KmYamlNode *data,
                 double           *frame_rate,
                 GError          **error)
{
  KmYamlNode *node = km_yaml_mapping_lookup (data, "frame_rate");

  *frame_rate = KM_TARGET_TRACK_DEFAULT_FRAME_RATE;
  if (node == NULL)
    return TRUE;
  if (!km_yaml_expect_number (node, frame_rate, error))
    return FALSE;
  /* The body motion's range, so that the targets solve into a .seq too (a tiny rate was
   * refused only then, at the last keyframe). NaN and infinities fail too. */
  if (!(*frame_rate >= KM_BODY_MOTION_MIN_RATE && *frame_rate <= KM_BODY_MOTION_MAX_RATE))
    {
      km_parse_error_set (error, KM_PARSE_ERROR_INVALID, km_yaml_node_get_file (node),
                          km_yaml_node_get_pos (node),
                          /* Translators: frames per second, twice */
                          _("expected a frame rate from %g to %g frames per second"),
                          KM_BODY_MOTION_MIN_RATE, KM_BODY_MOTION_MAX_RATE);
      return FALSE;
    }
  return TRUE;
}

static KmTargetTrack *
read_keyframes (const KmYamlNode *list,
                const char       *effector,
                double            frame_rate,
                GError          **error)
{
  g_autoptr(GArray) keys = g_array_new (FALSE, FALSE, sizeof (KmTargetKeyframe));
  g_autoptr(GArray) eulers = g_array_new (FALSE, FALSE, sizeof (KmVec3));
  g_autoptr(GHashTable) frames = g_hash_table_new (NULL, NULL);
  g_autoptr(GError) local_error = NULL;
  g_autofree KmVec3 *sorted_eulers = NULL;
  KmTargetTrack *track, *with;

  if (!km_yaml_expect_sequence (list, error))
    return NULL;
  for (guint i = 0; i < km_yaml_node_get_length (list); i++)
    {
      KmYamlNode *k = km_yaml_sequence_get (list, i);
      KmYamlNode *v;
      KmTargetKeyframe key;
      KmVec3 euler;
      gint64 frame;

      if ((v = km_yaml_expect_key (k, "frame", error)) == NULL ||
          !km_yaml_expect_int (v, &frame, error))
        return NULL;
      if (frame < 0 || frame > KM_TARGET_TRACK_MAX_FRAME)
        {
          km_parse_error_set (error, KM_PARSE_ERROR_INVALID, km_yaml_node_get_file (v),
                              km_yaml_node_get_pos (v), _("expected a frame from 0 to %d"),
                              KM_TARGET_TRACK_MAX_FRAME);
          return NULL;
        }
      if (g_hash_table_contains (frames, GINT_TO_POINTER ((int) frame)))
        {
          km_parse_error_set (error, KM_PARSE_ERROR_INVALID, km_yaml_node_get_file (v),
                              km_yaml_node_get_pos (v),
                              _("frame %d already has a keyframe"), (int) frame);
          return NULL;
        }
      g_hash_table_add (frames, GINT_TO_POINTER ((int) frame));
      key.frame = frame;
      if ((v = km_yaml_expect_key (k, "pos", error)) == NULL ||
          !km_yaml_expect_vec3 (v, &key.position, error) ||
          (v = km_yaml_expect_key (k, "euler", error)) == NULL ||
          !km_yaml_expect_vec3 (v, &euler, error))
        return NULL;
      key.orientation = km_quat_from_euler_xyz (km_vec3 (km_deg_to_rad (euler.x),
                                                         km_deg_to_rad (euler.y),
                                                         km_deg_to_rad (euler.z)));
      g_array_append_val (keys, key);
      g_array_append_val (eulers, euler);
    }
  track = km_target_track_new ((const KmTargetKeyframe *) keys->data, keys->len, effector,
                               frame_rate, &local_error);
  if (track == NULL)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_INVALID, km_yaml_node_get_file (list),
                          km_yaml_node_get_pos (list), "%s", local_error->message);
      return NULL;
    }
  /* The angles as read, written back as they are while a keyframe's rotation is not
   * edited (keyframe_node()), in the track's order. */
  sorted_eulers = g_new (KmVec3, MAX (keys->len, 1));
  for (guint i = 0; i < keys->len; i++)
    sorted_eulers[km_target_track_find_keyframe (track, g_array_index (keys, KmTargetKeyframe,
                                                                       i).frame)]
      = g_array_index (eulers, KmVec3, i);
  with = km_target_track_with_eulers (track, sorted_eulers);
  km_target_track_unref (track);
  return with;
}

static void
load_file (KmIkTargetsItem  *self,
           const KmYamlNode *file_node,
           double            frame_rate,
           gboolean          has_rate,
           KmItemIo         *io)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *shown = NULL;
  const KmFormat *format = NULL;
  gpointer result = NULL;

  /* Read under the path the user knows it by (DESIGN.md, "Error locations"). */
  shown = km_cnoid_item_file_path (io, KM_ITEM (self), self->file, file_node);
  if (shown == NULL)
    return;
  result = km_format_load_file (shown, self->format != NULL ? self->format : TARGETS_FORMAT,
                                &format, &error);
  if (result == NULL)
    {
      km_cnoid_report_file_error (io, KM_ITEM (self), file_node, error);
      return;
    }
  if (format->kind != KM_FILE_KIND_TARGETS)
    {
      g_autofree char *escaped = km_parse_shown_file (shown);
      g_autofree char *message = g_strdup_printf (_("“%s” is not an IK targets file"), escaped);

      format->free_result (result);
      km_item_io_problem (io, KM_ITEM (self), file_node, message);
      return;
    }
  self->track = result;
  if (has_rate)
    {
      KmTargetTrack *with_rate = km_target_track_with_frame_rate (self->track, frame_rate);

      km_target_track_unref (self->track);
      self->track = with_rate;
    }
}

/* The point the keyframes are for (KmTargetTrack's effector offset) and whether they are
 * position only: `effector_offset: [x, y, z]` (metres, in the effector joint's frame) and
 * `position_only: true`, written only when not the defaults; and the joint the moving chain
 * stops below (KmTargetTrack's base), `base: NAME`, written only when there is one. A base
 * that is the effector itself means none (km_target_track_with_base()): ignored with a
 * warning, as targets.json, which refuses it, would be written without it. */
static gboolean
read_tool (KmIkTargetsItem  *self,
           const KmYamlNode *data,
           KmItemIo         *io,
           GError          **error)
{
  KmVec3 offset = KM_VEC3_ZERO;
  gboolean position_only = FALSE;
  const char *base = NULL;
  KmYamlNode *node;
  KmTargetTrack *aimed;

  if ((node = km_yaml_mapping_lookup (data, "base")) != NULL &&
      (base = km_yaml_expect_string (node, error)) == NULL)
    return FALSE;
  if (base != NULL && g_strcmp0 (base, km_target_track_get_effector (self->track)) == 0)
    {
      g_autofree char *shown = km_parse_shown_file (base);

      km_item_io_warn (io, node,
                       /* Translators: %s is a joint name */
                       _("“base” is ignored: “%s” is the end effector itself, not a joint "
                         "above it"), shown);
    }
  else if (base != NULL)
    {
      aimed = km_target_track_with_base (self->track, base);
      km_target_track_unref (self->track);
      self->track = aimed;
    }

  if ((node = km_yaml_mapping_lookup (data, "effector_offset")) != NULL &&
      !km_yaml_expect_vec3 (node, &offset, error))
    return FALSE;
  if ((node = km_yaml_mapping_lookup (data, "position_only")) != NULL &&
      !km_yaml_expect_bool (node, &position_only, error))
    return FALSE;
  if (offset.x == 0.0 && offset.y == 0.0 && offset.z == 0.0 && !position_only)
    return TRUE;
  aimed = km_target_track_with_tool (self->track, offset, position_only);
  if (aimed == NULL)
    {
      node = km_yaml_mapping_lookup (data, "effector_offset");
      km_parse_error_set (error, KM_PARSE_ERROR_INVALID, km_yaml_node_get_file (node),
                          km_yaml_node_get_pos (node), _("expected three finite numbers"));
      return FALSE;
    }
  km_target_track_unref (self->track);
  self->track = aimed;
  return TRUE;
}

static gboolean
km_ik_targets_item_restore (KmItem           *item,
                            const KmYamlNode *data,
                            KmItemIo         *io,
                            GError          **error)
{
  KmIkTargetsItem *self = KM_IK_TARGETS_ITEM (item);
  const char *effector = NULL;
  double frame_rate;
  KmYamlNode *node;

  if (!KM_ITEM_CLASS (km_ik_targets_item_parent_class)->restore (item, data, io, error))
    return FALSE;
  if (data == NULL)
    return TRUE;
  if (!km_yaml_expect_mapping (data, error) || !read_frame_rate (data, &frame_rate, error))
    return FALSE;
  if ((node = km_yaml_mapping_lookup (data, "effector")) != NULL &&
      (effector = km_yaml_expect_string (node, error)) == NULL)
    return FALSE;
  if (!km_item_restore_file_ref (data, file_keys, &self->file, &self->format, &node, error))
    return FALSE;
  if (node != NULL)
    {
      load_file (self, node, frame_rate, km_yaml_mapping_lookup (data, "frame_rate") != NULL,
                 io);
      return TRUE;
    }
  if ((node = km_yaml_mapping_lookup (data, "keyframes")) != NULL &&
      (self->track = read_keyframes (node, effector, frame_rate, error)) == NULL)
    return FALSE;
  return self->track == NULL || read_tool (self, data, io, error);
}

/* Keyframe @i of @track; its euler angles as its file gave them (the user's own triple,
 * the same doubles) while its rotation is unchanged (km_target_track_get_euler()), else
 * from the rotation, as the .body writer writes degrees (km_format_scaled_number): the
 * shortest text that reads back to the same radians ("90", not "90.00000000000001"). */
static KmYamlNode *
keyframe_node (const KmTargetTrack *track,
               guint                i)
{
  const KmTargetKeyframe *key = km_target_track_get_keyframe (track, i);
  KmYamlNode *map = km_yaml_node_new_mapping (KM_YAML_STYLE_FLOW);
  double pos[3] = { key->position.x, key->position.y, key->position.z };
  KmYamlNode *angles;
  KmVec3 euler;

  if (km_target_track_get_euler (track, i, &euler))
    angles = km_yaml_node_new_numbers ((const double[]) { euler.x, euler.y, euler.z }, 3);
  else
    {
      double rad[3];

      euler = km_quat_to_euler_xyz (key->orientation);
      rad[0] = euler.x;
      rad[1] = euler.y;
      rad[2] = euler.z;
      angles = km_yaml_node_new_sequence (KM_YAML_STYLE_FLOW);
      for (guint k = 0; k < 3; k++)
        {
          char buffer[G_ASCII_DTOSTR_BUF_SIZE];

          /* (a negative zero is written 0) */
          km_format_scaled_number (rad[k], KM_FORMAT_RADIANS_PER_DEGREE, buffer,
                                   sizeof buffer);
          km_yaml_sequence_append (angles, km_yaml_node_new_scalar (buffer,
                                                                    KM_YAML_STYLE_PLAIN));
        }
    }

  km_yaml_mapping_append (map, "frame", km_yaml_node_new_int (key->frame));
  km_yaml_mapping_append (map, "pos", km_yaml_node_new_numbers (pos, 3));
  km_yaml_mapping_append (map, "euler", angles);
  return map;
}

/*
 * What is written (DESIGN.md, "Our project items": an item with a file writes the file
 * reference; a new item is inline until saved to a file):
 *  - read from the project and unchanged: its data as read;
 *  - with a file (read from a `file` reference, or opened from a targets file and named
 *    by km_ik_targets_item_set_file, as a front end does on import): `file` and
 *    `format`, and the frame rate the track plays at;
 *  - edited since (km_ik_targets_item_set_track): inline, without `file`. The keys are
 *    not written back into the file on a project save: that would change a file the user
 *    may share with other projects, behind their back. Saving the targets to a file and
 *    then calling km_ik_targets_item_set_file makes it a reference again.
 */
static KmYamlNode *
km_ik_targets_item_store (KmItem   *item,
                          KmItemIo *io)
{
  static const char * const replaced[] = {
    "file", "filename", "format", "effector", "frame_rate", "keyframes", "effector_offset",
    "position_only", "base", NULL
  };
  KmIkTargetsItem *self = KM_IK_TARGETS_ITEM (item);
  KmYamlNode *data = km_item_get_data (item);
  KmYamlNode *out;

  if (!self->modified)
    return KM_ITEM_CLASS (km_ik_targets_item_parent_class)->store (item, io);

  out = km_yaml_node_new_mapping (KM_YAML_STYLE_BLOCK);
  if (self->file != NULL)
    {
      km_item_store_file_ref (out, self->file,
                              self->format != NULL ? self->format : TARGETS_FORMAT);
      if (self->track != NULL)
        km_yaml_mapping_append (out, "frame_rate",
                                km_yaml_node_new_number (km_target_track_get_frame_rate (self->track)));
    }
  else if (self->track != NULL)
    {
      KmYamlNode *list = km_yaml_node_new_sequence (KM_YAML_STYLE_BLOCK);
      const char *effector = km_target_track_get_effector (self->track);
      KmVec3 offset = km_target_track_get_effector_offset (self->track);

      if (effector != NULL)
        km_yaml_mapping_append (out, "effector", km_yaml_node_new_string (effector));
      km_yaml_mapping_append (out, "frame_rate",
                              km_yaml_node_new_number (km_target_track_get_frame_rate (self->track)));

      if (km_target_track_has_effector_offset (self->track))
        {
          double xyz[3] = { offset.x, offset.y, offset.z };

          km_yaml_mapping_append (out, "effector_offset", km_yaml_node_new_numbers (xyz, 3));
        }
      if (km_target_track_get_position_only (self->track))
        km_yaml_mapping_append (out, "position_only", km_yaml_node_new_bool (TRUE));
      if (km_target_track_get_base (self->track) != NULL)
        km_yaml_mapping_append (out, "base",
                                km_yaml_node_new_string (km_target_track_get_base (self->track)));
      for (guint i = 0; i < km_target_track_get_n_keyframes (self->track); i++)
        km_yaml_sequence_append (list, keyframe_node (self->track, i));
      km_yaml_mapping_append (out, "keyframes", list);
    }
  km_yaml_mapping_append_except (out, data, replaced);
  return out;
}

static void
km_ik_targets_item_finalize (GObject *object)
{
  KmIkTargetsItem *self = KM_IK_TARGETS_ITEM (object);

  g_clear_pointer (&self->track, km_target_track_unref);
  g_clear_pointer (&self->file, g_free);
  g_clear_pointer (&self->format, g_free);

  G_OBJECT_CLASS (km_ik_targets_item_parent_class)->finalize (object);
}

/* KmItemClass.get_file */
static const char *
item_get_file (KmItem *item)
{
  return km_ik_targets_item_get_file (KM_IK_TARGETS_ITEM (item));
}

static void
km_ik_targets_item_class_init (KmIkTargetsItemClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  KmItemClass *item_class = KM_ITEM_CLASS (klass);

  object_class->finalize = km_ik_targets_item_finalize;
  item_class->plugin_name = "Kinema";
  item_class->class_name = "IKTargetsItem";
  item_class->restore = km_ik_targets_item_restore;
  item_class->get_file = item_get_file;
  item_class->store = km_ik_targets_item_store;
}

static void
km_ik_targets_item_init (KmIkTargetsItem *self)
{
}

KmItem *
km_ik_targets_item_new (void)
{
  KmIkTargetsItem *self = g_object_new (KM_TYPE_IK_TARGETS_ITEM, NULL);

  self->modified = TRUE;
  return KM_ITEM (self);
}

const char *
km_ik_targets_item_get_file (KmIkTargetsItem *self)
{
  g_return_val_if_fail (KM_IS_IK_TARGETS_ITEM (self), NULL);
  return self->file;
}

KmTargetTrack *
km_ik_targets_item_get_track (KmIkTargetsItem *self)
{
  g_return_val_if_fail (KM_IS_IK_TARGETS_ITEM (self), NULL);
  return self->track;
}

void
km_ik_targets_item_set_track (KmIkTargetsItem *self,
                              KmTargetTrack   *track)
{
  g_return_if_fail (KM_IS_IK_TARGETS_ITEM (self));

  if (track != NULL)
    km_target_track_ref (track);
  g_clear_pointer (&self->track, km_target_track_unref);
  self->track = track;
  g_clear_pointer (&self->file, g_free);
  g_clear_pointer (&self->format, g_free);
  km_item_set_problem (KM_ITEM (self), NULL);
  self->modified = TRUE;
}

void
km_ik_targets_item_set_file (KmIkTargetsItem *self,
                             const char      *file,
                             const char      *format)
{
  g_return_if_fail (KM_IS_IK_TARGETS_ITEM (self));
  g_return_if_fail (file != NULL);

  g_free (self->file);
  g_free (self->format);
  self->file = g_strdup (file);
  self->format = g_strdup (format != NULL ? format : TARGETS_FORMAT);
  self->modified = TRUE;
}

struct _KmIkTargetsItemState
{
  KmTargetTrack *track;
  char          *file;
  char          *format;
  char          *problem;
  gboolean       modified;
};

KmIkTargetsItemState *
km_ik_targets_item_save_state (KmIkTargetsItem *self)
{
  KmIkTargetsItemState *state;

  g_return_val_if_fail (KM_IS_IK_TARGETS_ITEM (self), NULL);

  state = g_new0 (KmIkTargetsItemState, 1);
  state->track = self->track != NULL ? km_target_track_ref (self->track) : NULL;
  state->file = g_strdup (self->file);
  state->format = g_strdup (self->format);
  state->problem = g_strdup (km_item_get_problem (KM_ITEM (self)));
  state->modified = self->modified;
  return state;
}

void
km_ik_targets_item_restore_state (KmIkTargetsItem            *self,
                                  const KmIkTargetsItemState *state)
{
  g_return_if_fail (KM_IS_IK_TARGETS_ITEM (self));
  g_return_if_fail (state != NULL);

  if (state->track != NULL)
    km_target_track_ref (state->track);
  g_clear_pointer (&self->track, km_target_track_unref);
  self->track = state->track;
  g_free (self->file);
  self->file = g_strdup (state->file);
  g_free (self->format);
  self->format = g_strdup (state->format);
  km_item_set_problem (KM_ITEM (self), state->problem);
  self->modified = state->modified;
}

void
km_ik_targets_item_state_free (KmIkTargetsItemState *state)
{
  if (state == NULL)
    return;
  g_clear_pointer (&state->track, km_target_track_unref);
  g_free (state->file);
  g_free (state->format);
  g_free (state->problem);
  g_free (state);
}
