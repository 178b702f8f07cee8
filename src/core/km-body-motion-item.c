/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-body-motion-item"

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "km-body-motion-item.h"
#include "km-body-item.h"

struct _KmBodyMotionItem
{
  KmMotionFileItem  parent_instance;

  /* Owned */
  KmBodyMotion     *motion;

  double            frame_rate;     /* 0: the file's */
};

G_DEFINE_FINAL_TYPE (KmBodyMotionItem, km_body_motion_item, KM_TYPE_MOTION_FILE_ITEM)

/* Joint ids of the motion that no joint of @skeleton has: an id whose joint has no DOF
 * (fixed) is no surprise, one no joint has is. */
static guint
count_unmapped (KmBodyMotionItem *self,
                KmSkeleton       *skeleton)
{
  guint n_ids = km_body_motion_get_n_joints (self->motion);
  g_autofree gboolean *has_joint = g_new0 (gboolean, MAX (n_ids, 1));
  guint unmapped = 0;

  for (guint j = 0; j < km_skeleton_get_n_joints (skeleton); j++)
    {
      int id = km_skeleton_get_joint (skeleton, j)->joint_id;

      if (id >= 0 && (guint) id < n_ids)
        has_joint[id] = TRUE;
    }
  for (guint i = 0; i < n_ids; i++)
    unmapped += !has_joint[i];
  return unmapped;
}

static char *
check_fit (KmMotionFileItem *item)
{
  KmBodyMotionItem *self = KM_BODY_MOTION_ITEM (item);
  g_autofree char *file = NULL;
  KmItem *body;
  KmSkeleton *skeleton;
  guint n_ids, unmapped;

  if (self->motion == NULL)
    return NULL;
  /* As every message shows a file name (km_parse_shown_file()). */
  file = km_parse_shown_file (km_motion_file_item_get_file (item));
  body = km_motion_file_item_get_body (item);
  if (body == NULL)
    return g_strdup_printf (_("%s: the body motion has no body item above it; it is kept, "
                              "not played"), file);
  skeleton = km_motion_file_item_get_body_skeleton (item);
  if (skeleton == NULL)
    return NULL;   /* the body's own problem is reported */
  n_ids = km_body_motion_get_n_joints (self->motion);
  unmapped = count_unmapped (self, skeleton);
  if (unmapped == 0)
    return NULL;
  if (unmapped == n_ids)
    /* Translators: a path, the number of joint values per frame, then a body's name */
    return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                         "%s: the motion's %u joint value per frame has no "
                                         "joint in “%s” (joints match by Choreonoid joint "
                                         "id): no joint of the body moves",
                                         "%s: none of the motion's %u joint values per frame "
                                         "has a joint in “%s” (joints match by Choreonoid "
                                         "joint id): no joint of the body moves", n_ids),
                            file, n_ids, km_item_get_name (body));
  /* Translators: a path, the number of joint values per frame, then a body's name */
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                       "%s: %u joint value per frame has no joint in “%s”; it "
                                       "is ignored",
                                       "%s: %u joint values per frame have no joint in “%s”; "
                                       "they are ignored", unmapped),
                          file, unmapped, km_item_get_name (body));
}

static char *
km_body_motion_item_check_format (KmMotionFileItem *item,
                                  const char       *format)
{
  /* Older projects wrote the format as `yaml` (or not at all: the base reads that as ours). */
  if (g_ascii_strcasecmp (format, KM_BODY_MOTION_FORMAT) == 0 ||
      g_ascii_strcasecmp (format, "yaml") == 0)
    return NULL;
  /* Translators: the format named in the project, then the one Kinema reads */
  return g_strdup_printf (_("unknown body motion format “%s” (expected %s)"), format,
                          KM_BODY_MOTION_FORMAT);
}

static gboolean
km_body_motion_item_load (KmMotionFileItem *item,
                          const char       *path,
                          GError          **error)
{
  KmBodyMotionItem *self = KM_BODY_MOTION_ITEM (item);

  g_clear_pointer (&self->motion, km_body_motion_unref);
  self->motion = km_body_motion_load_file (path, error);
  return self->motion != NULL;
}

/* The root pose that puts the root link (the skeleton's first joint) at @link, with the
 * joint values @q: the motion gives the link's pose, the skeleton's root pose is the
 * frame the link hangs from. */
static void
root_for_link (KmSkeleton        *skeleton,
               const double      *q,
               const KmTransform *link,
               KmTransform       *world,
               KmTransform       *root)
{
  KmTransform inverse;

  km_skeleton_forward_kinematics (skeleton, q, NULL, world);
  km_transform_inverse (&world[0], &inverse);
  km_transform_mul (link, &inverse, root);
}

/*
 * Samples the motion at @rate for @skeleton. Frame f of the animation is the motion at
 * time f / rate, linearly interpolated between the two nearest frames of the file (the
 * root link's rotation slerped), so a file at another frame rate plays at its own speed.
 */
static void
build (KmBodyMotionItem *self,
       KmSkeleton       *skeleton,
       double            rate)
{
  KmBodyItem *body = (KmBodyItem *) km_motion_file_item_get_body (KM_MOTION_FILE_ITEM (self));
  KmBodyMotion *motion = self->motion;
  guint n_dof = km_skeleton_get_n_dof (skeleton), n_body = 0;
  guint n_ids = km_body_motion_get_n_joints (motion);
  gboolean has_root = km_body_motion_get_n_links (motion) > 0 &&
                      km_skeleton_get_n_joints (skeleton) > 0;
  const double *body_q = km_body_item_get_joint_state (body, &n_body);
  g_autofree double *initial = g_new0 (double, MAX (n_dof, 1));
  g_autofree double *q = g_new0 (double, MAX (n_dof, 1));
  g_autofree double *values = g_new0 (double, MAX (n_ids, 1));
  g_autofree int *dofs = km_skeleton_dofs_by_joint_id (skeleton, n_ids);
  g_autofree KmTransform *world = g_new (KmTransform, MAX (km_skeleton_get_n_joints (skeleton),
                                                           1));
  double duration = km_body_motion_get_duration (motion);
  double last = floor (duration * rate + 1e-6);
  guint n_frames = (guint) MIN (last, (double) KM_ANIMATION_MAX_FRAMES - 1) + 1;
  g_autoptr(KmAnimation) animation = NULL;
  g_autofree KmTransform *root_poses = NULL;

  if (km_body_motion_get_n_frames (motion) == 0 || (n_ids == 0 && !has_root))
    return;
  if (body_q != NULL && n_body == n_dof)
    memcpy (initial, body_q, n_dof * sizeof *initial);
  else
    km_skeleton_clamp (skeleton, initial);

  animation = km_animation_new (skeleton, n_frames);
  km_animation_set_frame_rate (animation, rate);
  if (has_root)
    root_poses = g_new (KmTransform, n_frames);
  for (guint f = 0; f < n_frames; f++)
    {
      double t = f / rate;

      memcpy (q, initial, n_dof * sizeof *q);
      if (km_body_motion_sample_joints (motion, t, values))
        for (guint i = 0; i < n_ids; i++)
          if (dofs[i] >= 0)
            q[dofs[i]] = values[i];
      if (km_skeleton_has_mimic (skeleton))
        km_skeleton_apply_mimic (skeleton, q);
      km_animation_set_frame (animation, f, q);
      if (has_root)
        {
          KmTransform link;

          km_body_motion_sample_link (motion, t, 0, &link);
          root_for_link (skeleton, q, &link, world, &root_poses[f]);
        }
    }
  _km_motion_file_item_set_animation (KM_MOTION_FILE_ITEM (self), g_steal_pointer (&animation),
                                      skeleton, g_steal_pointer (&root_poses));
}

static void
km_body_motion_item_build_animation (KmMotionFileItem *item,
                                     KmSkeleton       *skeleton)
{
  KmBodyMotionItem *self = KM_BODY_MOTION_ITEM (item);
  double rate = km_body_motion_item_get_frame_rate (self);

  if (self->motion != NULL && rate > 0)
    build (self, skeleton, rate);
}

static void
km_body_motion_item_finalize (GObject *object)
{
  KmBodyMotionItem *self = KM_BODY_MOTION_ITEM (object);

  g_clear_pointer (&self->motion, km_body_motion_unref);

  G_OBJECT_CLASS (km_body_motion_item_parent_class)->finalize (object);
}

static void
km_body_motion_item_class_init (KmBodyMotionItemClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  KmItemClass *item_class = KM_ITEM_CLASS (klass);
  KmMotionFileItemClass *motion_file_class = KM_MOTION_FILE_ITEM_CLASS (klass);

  object_class->finalize = km_body_motion_item_finalize;
  item_class->plugin_name = "Body";
  item_class->class_name = "BodyMotionItem";
  motion_file_class->check_format = km_body_motion_item_check_format;
  motion_file_class->load = km_body_motion_item_load;
  motion_file_class->check_fit = check_fit;
  motion_file_class->build_animation = km_body_motion_item_build_animation;
}

static void
km_body_motion_item_init (KmBodyMotionItem *self)
{
}

KmItem *
km_body_motion_item_new_for_file (const char   *path,
                                  KmBodyMotion *motion)
{
  KmBodyMotionItem *self;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (motion != NULL, NULL);

  self = g_object_new (KM_TYPE_BODY_MOTION_ITEM, NULL);
  self->motion = km_body_motion_ref (motion);
  _km_motion_file_item_set_file (KM_MOTION_FILE_ITEM (self), path, KM_BODY_MOTION_FORMAT);
  return KM_ITEM (self);
}

const char *
km_body_motion_item_get_file (KmBodyMotionItem *self)
{
  g_return_val_if_fail (KM_IS_BODY_MOTION_ITEM (self), NULL);
  return km_motion_file_item_get_file (KM_MOTION_FILE_ITEM (self));
}

KmBodyMotion *
km_body_motion_item_get_motion (KmBodyMotionItem *self)
{
  g_return_val_if_fail (KM_IS_BODY_MOTION_ITEM (self), NULL);
  return self->motion;
}

KmItem *
km_body_motion_item_get_body (KmBodyMotionItem *self)
{
  g_return_val_if_fail (KM_IS_BODY_MOTION_ITEM (self), NULL);
  return km_motion_file_item_get_body (KM_MOTION_FILE_ITEM (self));
}

/**
 * km_body_motion_item_check_fit:
 *
 * Whether the motion fits the item's body: there is a body above the item, and the body's
 * model has a joint for each of the motion's joint ids.
 *
 * Returns: (transfer full) (nullable): a warning naming the file when it does not, else
 *   NULL (also without a motion or a body model: those are reported on their own)
 */
char *
km_body_motion_item_check_fit (KmBodyMotionItem *self)
{
  g_return_val_if_fail (KM_IS_BODY_MOTION_ITEM (self), NULL);
  return check_fit (KM_MOTION_FILE_ITEM (self));
}

double
km_body_motion_item_get_frame_rate (KmBodyMotionItem *self)
{
  g_return_val_if_fail (KM_IS_BODY_MOTION_ITEM (self), 0);

  if (self->frame_rate > 0)
    return self->frame_rate;
  return self->motion != NULL ? km_body_motion_get_frame_rate (self->motion) : 0;
}

void
km_body_motion_item_set_frame_rate (KmBodyMotionItem *self,
                                    double            frame_rate)
{
  double before;

  g_return_if_fail (KM_IS_BODY_MOTION_ITEM (self));
  g_return_if_fail (frame_rate >= 0 && isfinite (frame_rate));

  before = km_body_motion_item_get_frame_rate (self);
  self->frame_rate = frame_rate;
  /* The animation samples the motion at the rate in effect: resample when that changes. */
  if (km_body_motion_item_get_frame_rate (self) != before)
    _km_motion_file_item_set_animation (KM_MOTION_FILE_ITEM (self), NULL, NULL, NULL);
}

/**
 * km_body_motion_item_get_animation:
 *
 * Returns: (transfer none) (nullable): the motion sampled for the body's current model at
 *   the current frame rate, or NULL
 */
KmAnimation *
km_body_motion_item_get_animation (KmBodyMotionItem *self)
{
  g_return_val_if_fail (KM_IS_BODY_MOTION_ITEM (self), NULL);
  return km_motion_file_item_get_animation (KM_MOTION_FILE_ITEM (self));
}

gboolean
km_body_motion_item_get_root_pose (KmBodyMotionItem *self,
                                   guint             frame,
                                   KmTransform      *pose)
{
  g_return_val_if_fail (KM_IS_BODY_MOTION_ITEM (self), FALSE);
  return km_motion_file_item_get_root_pose (KM_MOTION_FILE_ITEM (self), frame, pose);
}
