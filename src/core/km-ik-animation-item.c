/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-ik-animation-item"

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "km-animation-json.h"
#include "km-animation-source.h"
#include "km-body-item.h"
#include "km-body-motion.h"
#include "km-cnoid.h"
#include "km-ik-animation-item.h"
#include "km-target-track.h"

#define ANIMATION_FORMAT "KINEMA-ANIMATION-JSON"

struct _KmIkAnimationItem
{
  KmItem       parent_instance;

  /* Owned */
  KmAnimation *animation;
  char        *file;
  char        *format;

  /* Changed since it was read: store writes it from the fields. */
  gboolean     modified;
  /* The `frames` were read as a table (km-cnoid.c): they are written from the animation. */
  gboolean     frames_table;
  /* The animation (when it is still the item's) known not to be solved from the targets
   * its body has: read with `solved_from_other_targets: true`, or marked so
   * (km_ik_animation_item_set_solved_from_other_targets). A reference or NULL. */
  KmAnimation *unsolved;
};

#define UNSOLVED_KEY "solved_from_other_targets"

static void animation_source_iface_init (KmAnimationSourceInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (KmIkAnimationItem, km_ik_animation_item, KM_TYPE_ITEM,
                               G_IMPLEMENT_INTERFACE (KM_TYPE_ANIMATION_SOURCE,
                                                      animation_source_iface_init))

static const char * const file_keys[] = { "file", "filename", NULL };

static const char * const type_names[] = {
  [KM_JOINT_REVOLUTE] = "revolute",
  [KM_JOINT_PRISMATIC] = "prismatic",
  [KM_JOINT_SPHERICAL] = "spherical",
};

static int
joint_type_from_name (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (type_names); i++)
    if (type_names[i] != NULL && g_strcmp0 (type_names[i], name) == 0)
      return i;
  return -1;
}

static KmSkeleton *
parent_skeleton (KmItem *item)
{
  KmItem *parent = km_item_get_parent (item);

  return parent != NULL && KM_IS_BODY_ITEM (parent) ?
         km_body_item_get_skeleton (KM_BODY_ITEM (parent)) : NULL;
}

static gboolean
error_at (GError          **error,
          const KmYamlNode *node,
          const char       *message)
{
  km_parse_error_set (error, KM_PARSE_ERROR_INVALID, km_yaml_node_get_file (node),
                      km_yaml_node_get_pos (node), "%s", message);
  return FALSE;
}

/* One joint's values into @row. */
static gboolean
read_joint (const KmYamlNode         *value,
            const KmAnimationChannel *channel,
            double                   *row,
            GError                  **error)
{
  KmYamlNode *type = km_yaml_expect_key (value, "type", error);
  KmYamlNode *v;
  const char *type_name;

  if (type == NULL || (type_name = km_yaml_expect_string (type, error)) == NULL)
    return FALSE;
  if (joint_type_from_name (type_name) != (int) channel->type)
    {
      g_autofree char *message =
        g_strdup_printf (_("expected the joint type “%s”"), type_names[channel->type]);

      return error_at (error, type, message);
    }
  switch (channel->type)
    {
    case KM_JOINT_REVOLUTE:
      return (v = km_yaml_expect_key (value, "angle", error)) != NULL &&
             km_yaml_expect_number (v, &row[channel->dof_index], error);
    case KM_JOINT_PRISMATIC:
      return (v = km_yaml_expect_key (value, "displacement", error)) != NULL &&
             km_yaml_expect_number (v, &row[channel->dof_index], error);
    case KM_JOINT_SPHERICAL:
      return (v = km_yaml_expect_key (value, "euler", error)) != NULL &&
             km_yaml_expect_numbers (v, &row[channel->dof_index], 3, error);
    case KM_JOINT_FIXED:
    case KM_JOINT_FREE:
    default:
      return error_at (error, type, _("expected a joint with degrees of freedom"));
    }
}

static KmAnimation *
new_from_first_frame (const KmYamlNode *first,
                      GError          **error)
{
  g_autoptr(GArray) channels = g_array_new (FALSE, FALSE, sizeof (KmAnimationChannel));
  KmYamlNode *joints = km_yaml_expect_key (first, "joints", error);
  guint dof = 0;

  if (joints == NULL || !km_yaml_expect_mapping (joints, error))
    return NULL;
  for (guint i = 0; i < km_yaml_node_get_length (joints); i++)
    {
      KmYamlNode *type = km_yaml_expect_key (km_yaml_mapping_get_value (joints, i), "type",
                                             error);
      KmAnimationChannel channel = { 0, };
      const char *type_name;
      int t;

      if (type == NULL || (type_name = km_yaml_expect_string (type, error)) == NULL)
        return NULL;
      if ((t = joint_type_from_name (type_name)) < 0)
        {
          error_at (error, type, _("expected “revolute”, “prismatic” or “spherical”"));
          return NULL;
        }
      channel.name = (char *) km_yaml_node_get_scalar (km_yaml_mapping_get_key (joints, i), NULL);
      channel.type = t;
      channel.dof_index = dof;
      channel.n_dof = t == KM_JOINT_SPHERICAL ? 3 : 1;
      channel.joint = -1;
      dof += channel.n_dof;
      g_array_append_val (channels, channel);
    }
  return km_animation_new_for_channels ((const KmAnimationChannel *) channels->data,
                                        channels->len, 0);
}

/* Frame @f of @animation from its mapping @frame. */
static gboolean
read_frame (const KmYamlNode *frame,
            guint             f,
            KmAnimation      *animation,
            double           *row,
            GError          **error)
{
  KmYamlNode *v, *joints;
  gint64 number;

  if ((v = km_yaml_expect_key (frame, "frame", error)) == NULL ||
      !km_yaml_expect_int (v, &number, error))
    return FALSE;
  if (number != f)
    {
      g_autofree char *message = g_strdup_printf (_("expected frame %u"), f);

      return error_at (error, v, message);
    }
  if ((joints = km_yaml_expect_key (frame, "joints", error)) == NULL ||
      !km_yaml_expect_mapping (joints, error))
    return FALSE;
  if (km_yaml_node_get_length (joints) != km_animation_get_n_channels (animation))
    {
      g_autofree char *message =
        g_strdup_printf (_("expected the %u joints with degrees of freedom"),
                         km_animation_get_n_channels (animation));

      return error_at (error, joints, message);
    }
  for (guint j = 0; j < km_yaml_node_get_length (joints); j++)
    {
      KmYamlNode *name = km_yaml_mapping_get_key (joints, j);
      const char *s = km_yaml_node_get_scalar (name, NULL);
      int c = s != NULL ? km_animation_find_channel (animation, s) : -1;

      if (c < 0)
        return error_at (error, name, _("no joint with degrees of freedom has this name"));
      if (!read_joint (km_yaml_mapping_get_value (joints, j),
                       km_animation_get_channel (animation, c), row, error))
        return FALSE;
    }
  km_animation_set_frame (animation, f, row);
  return TRUE;
}

typedef struct
{
  KmAnimation *animation;
  double      *row;
} TableReading;

/* km_yaml_table_foreach_item */
static gboolean
read_table_frame (const KmYamlNode *frame,
                  guint             f,
                  gpointer          user_data,
                  GError          **error)
{
  TableReading *reading = user_data;

  return read_frame (frame, f, reading->animation, reading->row, error);
}

/* @list is the `frames` sequence, or a table of depth 1 over it (a long animation in a
 * project, see km-cnoid.c) with @text the project's text: each frame is read from the text
 * again as a tree, one at a time, so that the checks and error locations are the same. */
static KmAnimation *
read_frames (const KmYamlNode *list,
             GBytes           *text,
             KmSkeleton       *skeleton,
             GError          **error)
{
  g_autoptr(KmAnimation) shape = NULL;
  g_autoptr(KmAnimation) animation = NULL;
  g_autofree double *row = NULL;
  gboolean table = km_yaml_table_get_depth (list) > 0;
  const char *data = NULL;
  gsize length = 0;
  guint n;

  if (!km_yaml_expect_sequence (list, error))
    return NULL;
  if (table)
    {
      /* (only km-cnoid.c makes tables, and gives the text with them) */
      g_return_val_if_fail (text != NULL && km_yaml_table_get_depth (list) == 1, NULL);
      data = g_bytes_get_data (text, &length);
      n = km_yaml_table_get_length (list, 0, 0);
    }
  else
    n = km_yaml_node_get_length (list);
  if (n > KM_ANIMATION_MAX_FRAMES)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, km_yaml_node_get_file (list),
                          km_yaml_node_get_pos (list), _("expected at most %u frames"),
                          (guint) KM_ANIMATION_MAX_FRAMES);
      return NULL;
    }
  if (skeleton != NULL)
    animation = km_animation_new (skeleton, n);
  else if (n > 0)
    {
      g_autoptr(KmYamlNode) first = NULL;
      guint n_channels;

      first = table ? km_yaml_table_get_item (list, data != NULL ? data : "", length, 0, error)
                    : km_yaml_node_ref (km_yaml_sequence_get (list, 0));
      if (first == NULL || (shape = new_from_first_frame (first, error)) == NULL)
        return NULL;
      n_channels = km_animation_get_n_channels (shape);
      animation = km_animation_new_for_channels (n_channels > 0 ?
                                                 km_animation_get_channel (shape, 0) : NULL,
                                                 n_channels, n);
    }
  else
    return NULL;   /* no skeleton and no frames: nothing to keep */
  row = g_new0 (double, MAX (km_animation_get_n_dof (animation), 1));

  if (table)
    {
      TableReading reading = { animation, row };

      if (!km_yaml_table_foreach_item (list, data != NULL ? data : "", length,
                                       read_table_frame, &reading, error))
        return NULL;
    }
  else
    for (guint f = 0; f < n; f++)
      if (!read_frame (km_yaml_sequence_get (list, f), f, animation, row, error))
        return NULL;
  return g_steal_pointer (&animation);
}

static void
load_file (KmIkAnimationItem *self,
           const KmYamlNode  *file_node,
           KmItemIo          *io)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *shown = NULL;

  if (self->format != NULL && g_ascii_strcasecmp (self->format, ANIMATION_FORMAT) != 0)
    {
      g_autofree char *message =
        g_strdup_printf (_("unknown animation format “%s” (expected %s)"), self->format,
                         ANIMATION_FORMAT);

      km_item_io_problem (io, KM_ITEM (self), file_node, message);
      return;
    }
  /* Read under the path the user knows it by (DESIGN.md, "Error locations"). */
  shown = km_cnoid_item_file_path (io, KM_ITEM (self), self->file, file_node);
  if (shown == NULL)
    return;
  self->animation = km_animation_json_load_file (shown, parent_skeleton (KM_ITEM (self)),
                                                 &error);
  if (self->animation == NULL)
    km_cnoid_report_file_error (io, KM_ITEM (self), file_node, error);
}

static gboolean
km_ik_animation_item_restore (KmItem           *item,
                              const KmYamlNode *data,
                              KmItemIo         *io,
                              GError          **error)
{
  KmIkAnimationItem *self = KM_IK_ANIMATION_ITEM (item);
  double frame_rate = KM_TARGET_TRACK_DEFAULT_FRAME_RATE;
  KmYamlNode *rate_node = NULL;
  KmYamlNode *unsolved_node;
  KmYamlNode *node;

  if (!KM_ITEM_CLASS (km_ik_animation_item_parent_class)->restore (item, data, io, error))
    return FALSE;
  if (data == NULL)
    return TRUE;
  if (!km_yaml_expect_mapping (data, error))
    return FALSE;
  if ((rate_node = km_yaml_mapping_lookup (data, "frame_rate")) != NULL)
    {
      if (!km_yaml_expect_number (rate_node, &frame_rate, error))
        return FALSE;
      /* The body motion's range, as an IK targets item's: the animation exports as a
       * .seq too. NaN and infinities fail too. */
      if (!(frame_rate >= KM_BODY_MOTION_MIN_RATE && frame_rate <= KM_BODY_MOTION_MAX_RATE))
        {
          km_parse_error_set (error, KM_PARSE_ERROR_INVALID, km_yaml_node_get_file (rate_node),
                              km_yaml_node_get_pos (rate_node),
                              /* Translators: frames per second, twice */
                              _("expected a frame rate from %g to %g frames per second"),
                              KM_BODY_MOTION_MIN_RATE, KM_BODY_MOTION_MAX_RATE);
          return FALSE;
        }
    }
  if (!km_item_restore_file_ref (data, file_keys, &self->file, &self->format, &node, error))
    return FALSE;
  if (node != NULL)
    load_file (self, node, io);
  else if ((node = km_yaml_mapping_lookup (data, "frames")) != NULL)
    {
      g_autoptr(GError) local_error = NULL;

      /* The project's text, set by the .cnoid reader while it restores this item: the
       * `frames` of a long animation are a table read from it (see read_frames). */
      self->animation = read_frames (node, km_cnoid_get_item_text (item),
                                     parent_skeleton (item), &local_error);
      if (local_error != NULL)
        {
          g_propagate_error (error, g_steal_pointer (&local_error));
          return FALSE;
        }
    }
  if (self->animation != NULL && rate_node != NULL)
    km_animation_set_frame_rate (self->animation, frame_rate);
  if ((unsolved_node = km_yaml_mapping_lookup (data, UNSOLVED_KEY)) != NULL)
    {
      gboolean unsolved;

      if (!km_yaml_expect_bool (unsolved_node, &unsolved, error))
        return FALSE;
      if (unsolved && self->animation != NULL)
        self->unsolved = km_animation_ref (self->animation);
    }
  /* A table holds no frames to write back: store writes them from the animation. */
  self->frames_table = node != NULL && km_yaml_table_get_depth (node) > 0 &&
                       self->animation != NULL;
  return TRUE;
}

static KmYamlNode *
frame_node (const KmAnimation *animation,
            guint              f)
{
  KmYamlNode *map = km_yaml_node_new_mapping (KM_YAML_STYLE_FLOW);
  KmYamlNode *joints = km_yaml_node_new_mapping (KM_YAML_STYLE_FLOW);
  const double *row = km_animation_get_frame (animation, f);

  for (guint c = 0; c < km_animation_get_n_channels (animation); c++)
    {
      const KmAnimationChannel *channel = km_animation_get_channel (animation, c);
      KmYamlNode *joint = km_yaml_node_new_mapping (KM_YAML_STYLE_FLOW);

      km_yaml_mapping_append (joint, "type",
                              km_yaml_node_new_scalar (type_names[channel->type],
                                                       KM_YAML_STYLE_PLAIN));
      if (channel->type == KM_JOINT_SPHERICAL)
        km_yaml_mapping_append (joint, "euler",
                                km_yaml_node_new_numbers (&row[channel->dof_index], 3));
      else
        km_yaml_mapping_append (joint, channel->type == KM_JOINT_PRISMATIC ? "displacement"
                                                                           : "angle",
                                km_yaml_node_new_number (row[channel->dof_index]));
      km_yaml_mapping_append_node (joints, km_yaml_node_new_string (channel->name), joint);
    }
  km_yaml_mapping_append (map, "frame", km_yaml_node_new_int (f));
  km_yaml_mapping_append (map, "joints", joints);
  return map;
}

/* The `frames` list of @animation. */
static KmYamlNode *
frames_node (gpointer animation)
{
  KmYamlNode *list = km_yaml_node_new_sequence (KM_YAML_STYLE_BLOCK);

  for (guint f = 0; f < km_animation_get_n_frames (animation); f++)
    km_yaml_sequence_append (list, frame_node (animation, f));
  return list;
}

/* Frame @index of @animation (a KmYamlItemFunc). */
static KmYamlNode *
frame_item (gpointer animation,
            guint    index)
{
  return frame_node (animation, index);
}

static KmYamlNode *
frames_value (KmIkAnimationItem *self,
              gboolean           deferred)
{
  return deferred ? km_yaml_node_new_generated (km_animation_get_n_frames (self->animation),
                                                frame_item,
                                                km_animation_copy (self->animation),
                                                (GDestroyNotify) km_animation_unref)
                  : frames_node (self->animation);
}

/* store, with the `frames` list built at once or (@deferred) left to whoever writes the
 * data: a generated sequence over a copy of the animation, whose frames are built one at a
 * time as they are written (a million frames of the arm in tests/data, 3 joints, would be
 * 26 million nodes as a tree: gigabytes). The copy is what makes it safe on another
 * thread, as an item's animation may be filled in while a solve streams frames into it,
 * and it is cheap: a memcpy of the values. */
static KmYamlNode *
store_data (KmIkAnimationItem *self,
            KmItemIo          *io,
            gboolean           deferred)
{
  static const char * const replaced[] = {
    "file", "filename", "format", "frame_rate", "frames", UNSOLVED_KEY, NULL
  };
  KmYamlNode *data = km_item_get_data (KM_ITEM (self));
  KmYamlNode *out;

  if (!self->modified && self->frames_table)
    {
      /* The data as read, with the frames in their place. */
      out = km_yaml_node_new_mapping (KM_YAML_STYLE_BLOCK);
      for (guint i = 0; i < km_yaml_node_get_length (data); i++)
        {
          KmYamlNode *key = km_yaml_mapping_get_key (data, i);

          km_yaml_mapping_append_node (out, km_yaml_node_ref (key),
                                       g_strcmp0 (km_yaml_node_get_scalar (key, NULL),
                                                  "frames") == 0 ?
                                       frames_value (self, deferred) :
                                       km_yaml_node_ref (km_yaml_mapping_get_value (data, i)));
        }
      return out;
    }
  if (!self->modified)
    return KM_ITEM_CLASS (km_ik_animation_item_parent_class)->store (KM_ITEM (self), io);

  out = km_yaml_node_new_mapping (KM_YAML_STYLE_BLOCK);
  if (self->file != NULL)
    km_item_store_file_ref (out, self->file,
                            self->format != NULL ? self->format : ANIMATION_FORMAT);
  if (self->animation != NULL)
    km_yaml_mapping_append (out, "frame_rate",
                            km_yaml_node_new_number (km_animation_get_frame_rate (self->animation)));
  if (self->file == NULL && self->animation != NULL)
    km_yaml_mapping_append (out, "frames", frames_value (self, deferred));
  km_yaml_mapping_append_except (out, data, replaced);
  return out;
}

/* store_data with `solved_from_other_targets: true` where the item's animation is not its
 * targets' (and without it where it is): the data as read is left as it is otherwise. */
static KmYamlNode *
store_marked (KmIkAnimationItem *self,
              KmItemIo          *io,
              gboolean           deferred)
{
  static const char * const marker[] = { UNSOLVED_KEY, NULL };
  gboolean unsolved = km_ik_animation_item_get_solved_from_other_targets (self);
  KmYamlNode *out = store_data (self, io, deferred);
  KmYamlNode *marked;

  /* (without an animation, what was read is written back as it was) */
  if (out == NULL || self->animation == NULL || km_yaml_node_get_kind (out) != KM_YAML_MAPPING
      || (km_yaml_mapping_lookup (out, UNSOLVED_KEY) != NULL) == unsolved)
    return out;
  /* (a new mapping: the data as read is shared with the item) */
  marked = km_yaml_node_new_mapping (KM_YAML_STYLE_BLOCK);
  km_yaml_mapping_append_except (marked, out, marker);
  if (unsolved)
    km_yaml_mapping_append (marked, UNSOLVED_KEY, km_yaml_node_new_bool (TRUE));
  km_yaml_node_unref (out);
  return marked;
}

static KmYamlNode *
km_ik_animation_item_store (KmItem   *item,
                            KmItemIo *io)
{
  return store_marked (KM_IK_ANIMATION_ITEM (item), io, FALSE);
}

static void
km_ik_animation_item_finalize (GObject *object)
{
  KmIkAnimationItem *self = KM_IK_ANIMATION_ITEM (object);

  g_clear_pointer (&self->animation, km_animation_unref);
  g_clear_pointer (&self->unsolved, km_animation_unref);
  g_clear_pointer (&self->file, g_free);
  g_clear_pointer (&self->format, g_free);

  G_OBJECT_CLASS (km_ik_animation_item_parent_class)->finalize (object);
}

static KmAnimation *
source_get_animation (KmAnimationSource *source)
{
  return KM_IK_ANIMATION_ITEM (source)->animation;
}

static void
animation_source_iface_init (KmAnimationSourceInterface *iface)
{
  iface->get_animation = source_get_animation;
}

/* KmItemClass.get_file */
static const char *
item_get_file (KmItem *item)
{
  return km_ik_animation_item_get_file (KM_IK_ANIMATION_ITEM (item));
}

static void
km_ik_animation_item_class_init (KmIkAnimationItemClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  KmItemClass *item_class = KM_ITEM_CLASS (klass);

  object_class->finalize = km_ik_animation_item_finalize;
  item_class->plugin_name = "Kinema";
  item_class->class_name = "IKAnimationItem";
  item_class->restore = km_ik_animation_item_restore;
  item_class->get_file = item_get_file;
  item_class->store = km_ik_animation_item_store;
}

static void
km_ik_animation_item_init (KmIkAnimationItem *self)
{
}

KmItem *
km_ik_animation_item_new (void)
{
  KmIkAnimationItem *self = g_object_new (KM_TYPE_IK_ANIMATION_ITEM, NULL);

  self->modified = TRUE;
  return KM_ITEM (self);
}

const char *
km_ik_animation_item_get_file (KmIkAnimationItem *self)
{
  g_return_val_if_fail (KM_IS_IK_ANIMATION_ITEM (self), NULL);
  return self->file;
}

KmAnimation *
km_ik_animation_item_get_animation (KmIkAnimationItem *self)
{
  g_return_val_if_fail (KM_IS_IK_ANIMATION_ITEM (self), NULL);
  return self->animation;
}

void
km_ik_animation_item_set_animation (KmIkAnimationItem *self,
                                    KmAnimation       *animation)
{
  g_return_if_fail (KM_IS_IK_ANIMATION_ITEM (self));

  if (animation != NULL)
    km_animation_ref (animation);
  g_clear_pointer (&self->animation, km_animation_unref);
  self->animation = animation;
  g_clear_pointer (&self->file, g_free);
  g_clear_pointer (&self->format, g_free);
  km_item_set_problem (KM_ITEM (self), NULL);
  self->modified = TRUE;
}

void
km_ik_animation_item_set_file (KmIkAnimationItem *self,
                               const char        *file,
                               const char        *format)
{
  g_return_if_fail (KM_IS_IK_ANIMATION_ITEM (self));
  g_return_if_fail (file != NULL);

  g_free (self->file);
  g_free (self->format);
  self->file = g_strdup (file);
  self->format = g_strdup (format != NULL ? format : ANIMATION_FORMAT);
  self->modified = TRUE;
}

/**
 * km_ik_animation_item_store_for_writing:
 *
 * What km_item_store() returns, for a tree that is only written (km_yaml_emit): the inline
 * `frames` are a generated sequence (km_yaml_node_new_generated) over a copy of the
 * animation, each frame built where and when it is written. That keeps a project save's
 * main-thread part short (a 10,000-frame animation is some 300,000 nodes and as many
 * numbers to format) and its memory small: the frames are never a tree all at once.
 */
KmYamlNode *
km_ik_animation_item_store_for_writing (KmIkAnimationItem *self,
                                        KmItemIo          *io)
{
  g_return_val_if_fail (KM_IS_IK_ANIMATION_ITEM (self), NULL);
  g_return_val_if_fail (io != NULL, NULL);

  return store_marked (self, io, TRUE);
}

/**
 * km_ik_animation_item_get_solved_from_other_targets:
 *
 * Whether the item's animation is known not to be solved from the targets its body has
 * (their solve never finished before the project was written): its residuals against
 * those targets say nothing about the solve. FALSE once another animation replaces it.
 */
gboolean
km_ik_animation_item_get_solved_from_other_targets (KmIkAnimationItem *self)
{
  g_return_val_if_fail (KM_IS_IK_ANIMATION_ITEM (self), FALSE);

  return self->animation != NULL && self->animation == self->unsolved;
}

/* Marks the item's animation as solved from other targets than its body's (or not): it
 * is written so (`solved_from_other_targets: true`) while it is the item's. */
void
km_ik_animation_item_set_solved_from_other_targets (KmIkAnimationItem *self,
                                                    gboolean           other)
{
  g_return_if_fail (KM_IS_IK_ANIMATION_ITEM (self));

  g_clear_pointer (&self->unsolved, km_animation_unref);
  if (other && self->animation != NULL)
    self->unsolved = km_animation_ref (self->animation);
}
