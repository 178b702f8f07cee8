/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-pose-seq-item"

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "km-pose-seq-item.h"
#include "km-animation-source.h"
#include "km-body-item.h"
#include "km-cnoid.h"

struct _KmPoseSeqItem
{
  KmItem       parent_instance;

  /* Owned */
  KmPoseSeq   *pose_seq;
  char        *file;
  char        *format;
  KmAnimation *animation;     /* built for animation_skeleton at frame_rate */
  KmSkeleton  *animation_skeleton;
  KmTransform *root_poses;    /* one per animation frame */

  double       frame_rate;
  gboolean     building;      /* km_pose_seq_item_build_async running */
};

static void animation_source_iface_init (KmAnimationSourceInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (KmPoseSeqItem, km_pose_seq_item, KM_TYPE_ITEM,
                               G_IMPLEMENT_INTERFACE (KM_TYPE_ANIMATION_SOURCE,
                                                      animation_source_iface_init))

static const char * const file_keys[] = { "file", "filename", NULL };

static void
clear_animation (KmPoseSeqItem *self)
{
  g_clear_pointer (&self->animation, km_animation_unref);
  g_clear_pointer (&self->animation_skeleton, km_skeleton_unref);
  g_clear_pointer (&self->root_poses, g_free);
}

static void
load_file (KmPoseSeqItem    *self,
           const KmYamlNode *file_node,
           KmItemIo         *io)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *shown = NULL;

  if (self->format != NULL && g_ascii_strcasecmp (self->format, KM_POSE_SEQ_FORMAT) != 0)
    {
      /* Translators: the format named in the project, then the one Kinema reads */
      g_autofree char *message =
        g_strdup_printf (_("unknown pose sequence format “%s” (expected %s)"), self->format,
                         KM_POSE_SEQ_FORMAT);

      km_item_io_problem (io, KM_ITEM (self), file_node, message);
      return;
    }
  /* Read under the path the user knows it by (DESIGN.md, "Error locations"). */
  shown = km_cnoid_item_file_path (io, KM_ITEM (self), self->file, file_node);
  if (shown == NULL)
    return;
  self->pose_seq = km_pose_seq_load_file (shown, &error);
  if (self->pose_seq == NULL)
    km_cnoid_report_file_error (io, KM_ITEM (self), file_node, error);
}

static gboolean
km_pose_seq_item_restore (KmItem           *item,
                          const KmYamlNode *data,
                          KmItemIo         *io,
                          GError          **error)
{
  KmPoseSeqItem *self = KM_POSE_SEQ_ITEM (item);
  KmYamlNode *file_node = NULL;

  if (!KM_ITEM_CLASS (km_pose_seq_item_parent_class)->restore (item, data, io, error))
    return FALSE;
  if (data == NULL)
    return TRUE;
  if (!km_yaml_expect_mapping (data, error) ||
      !km_item_restore_file_ref (data, file_keys, &self->file, &self->format, &file_node,
                                 error))
    return FALSE;
  if (file_node != NULL)
    load_file (self, file_node, io);
  return TRUE;
}

static void
km_pose_seq_item_finalize (GObject *object)
{
  KmPoseSeqItem *self = KM_POSE_SEQ_ITEM (object);

  clear_animation (self);
  g_clear_pointer (&self->pose_seq, km_pose_seq_unref);
  g_clear_pointer (&self->file, g_free);
  g_clear_pointer (&self->format, g_free);

  G_OBJECT_CLASS (km_pose_seq_item_parent_class)->finalize (object);
}

static KmAnimation *
source_get_animation (KmAnimationSource *source)
{
  return km_pose_seq_item_get_animation (KM_POSE_SEQ_ITEM (source));
}

static gboolean
source_get_root_pose (KmAnimationSource *source,
                      guint              frame,
                      KmTransform       *pose)
{
  return km_pose_seq_item_get_root_pose (KM_POSE_SEQ_ITEM (source), frame, pose);
}

static void
animation_source_iface_init (KmAnimationSourceInterface *iface)
{
  iface->get_animation = source_get_animation;
  iface->get_root_pose = source_get_root_pose;
}

static void
km_pose_seq_item_class_init (KmPoseSeqItemClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  KmItemClass *item_class = KM_ITEM_CLASS (klass);

  object_class->finalize = km_pose_seq_item_finalize;
  item_class->plugin_name = "PoseSeq";
  item_class->class_name = "PoseSeqItem";
  item_class->restore = km_pose_seq_item_restore;
  /* No store: the data is written back exactly as it was read. */
}

static void
km_pose_seq_item_init (KmPoseSeqItem *self)
{
  self->frame_rate = KM_POSE_SEQ_ITEM_DEFAULT_FRAME_RATE;
}

KmItem *
km_pose_seq_item_new_for_file (const char *path,
                               KmPoseSeq  *pose_seq)
{
  g_autoptr(KmYamlNode) data = NULL;
  KmPoseSeqItem *self;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (pose_seq != NULL, NULL);

  self = g_object_new (KM_TYPE_POSE_SEQ_ITEM, NULL);
  self->file = g_strdup (path);
  self->format = g_strdup (KM_POSE_SEQ_FORMAT);
  self->pose_seq = km_pose_seq_ref (pose_seq);
  /* The data a project writes back: the same keys Choreonoid writes. */
  data = km_yaml_node_new_mapping (KM_YAML_STYLE_BLOCK);
  km_item_store_file_ref (data, self->file, self->format);
  KM_ITEM_CLASS (km_pose_seq_item_parent_class)->restore (KM_ITEM (self), data, NULL, NULL);
  return KM_ITEM (self);
}

const char *
km_pose_seq_item_get_file (KmPoseSeqItem *self)
{
  g_return_val_if_fail (KM_IS_POSE_SEQ_ITEM (self), NULL);
  return self->file;
}

KmPoseSeq *
km_pose_seq_item_get_pose_seq (KmPoseSeqItem *self)
{
  g_return_val_if_fail (KM_IS_POSE_SEQ_ITEM (self), NULL);
  return self->pose_seq;
}

KmItem *
km_pose_seq_item_get_body (KmPoseSeqItem *self)
{
  g_return_val_if_fail (KM_IS_POSE_SEQ_ITEM (self), NULL);

  return km_item_find_ancestor_by_type (KM_ITEM (self), KM_TYPE_BODY_ITEM);
}

double
km_pose_seq_item_get_frame_rate (KmPoseSeqItem *self)
{
  g_return_val_if_fail (KM_IS_POSE_SEQ_ITEM (self), KM_POSE_SEQ_ITEM_DEFAULT_FRAME_RATE);
  return self->frame_rate;
}

void
km_pose_seq_item_set_frame_rate (KmPoseSeqItem *self,
                                 double         frame_rate)
{
  g_return_if_fail (KM_IS_POSE_SEQ_ITEM (self));
  g_return_if_fail (frame_rate > 0 && isfinite (frame_rate));

  if (self->frame_rate == frame_rate)
    return;
  self->frame_rate = frame_rate;
  clear_animation (self);
}

/* What an animation is built from: the body's model and joint values now. */
typedef struct
{
  KmPoseSeq   *pose_seq;
  KmSkeleton  *skeleton;
  double      *q;
  double       frame_rate;
  KmAnimation *animation;     /* built */
  KmTransform *root_poses;
} Build;

static void
build_free (Build *build)
{
  g_clear_pointer (&build->pose_seq, km_pose_seq_unref);
  g_clear_pointer (&build->skeleton, km_skeleton_unref);
  g_clear_pointer (&build->q, g_free);
  g_clear_pointer (&build->animation, km_animation_unref);
  g_clear_pointer (&build->root_poses, g_free);
  g_free (build);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Build, build_free)

/* The body's model, or NULL (no sequence, no body model: no animation). */
static KmSkeleton *
body_skeleton (KmPoseSeqItem *self)
{
  KmBodyItem *body = (KmBodyItem *) km_pose_seq_item_get_body (self);

  return self->pose_seq != NULL && body != NULL ? km_body_item_get_skeleton (body) : NULL;
}

static Build *
build_new (KmPoseSeqItem *self,
           KmSkeleton    *skeleton)
{
  KmBodyItem *body = (KmBodyItem *) km_pose_seq_item_get_body (self);
  guint n_dof = km_skeleton_get_n_dof (skeleton), n = 0;
  const double *q = km_body_item_get_joint_state (body, &n);
  Build *build = g_new0 (Build, 1);

  build->pose_seq = km_pose_seq_ref (self->pose_seq);
  build->skeleton = km_skeleton_ref (skeleton);
  build->frame_rate = self->frame_rate;
  build->q = g_new0 (double, MAX (n_dof, 1));
  if (q != NULL && n == n_dof)
    memcpy (build->q, q, n_dof * sizeof *q);
  else
    km_skeleton_clamp (skeleton, build->q);
  return build;
}

/* Without base links the root stays where the editor draws the body: at the skeleton's own
 * root placement (identity root pose). Runs on any thread. */
static gboolean
build_run (Build   *build,
           GError **error)
{
  build->animation = km_pose_seq_interpolate (build->pose_seq, build->skeleton, build->q, NULL,
                                              build->frame_rate, &build->root_poses, error);
  return build->animation != NULL;
}

/* Keeps what @build made, unless the model or the frame rate changed meanwhile. */
static void
build_take (KmPoseSeqItem *self,
            Build         *build)
{
  if (build->skeleton != body_skeleton (self) || build->frame_rate != self->frame_rate)
    return;
  clear_animation (self);
  self->animation = g_steal_pointer (&build->animation);
  self->root_poses = g_steal_pointer (&build->root_poses);
  self->animation_skeleton = km_skeleton_ref (build->skeleton);
}

/**
 * km_pose_seq_item_get_animation:
 *
 * Returns: (transfer none) (nullable): the motion built for the body's current model at
 *   the current frame rate (km_pose_seq_item_build), or NULL while there is none
 */
KmAnimation *
km_pose_seq_item_get_animation (KmPoseSeqItem *self)
{
  g_return_val_if_fail (KM_IS_POSE_SEQ_ITEM (self), NULL);

  if (self->animation != NULL && self->animation_skeleton != body_skeleton (self))
    clear_animation (self);
  return self->animation;
}

/**
 * km_pose_seq_item_build:
 *
 * Builds the animation now, on this thread. Returns whether there is one; FALSE without a
 * sequence or a body model (no error then), or with @error when interpolation fails (also
 * the item's problem).
 */
gboolean
km_pose_seq_item_build (KmPoseSeqItem  *self,
                        GError        **error)
{
  KmSkeleton *skeleton;
  g_autoptr(Build) build = NULL;
  GError *local_error = NULL;

  g_return_val_if_fail (KM_IS_POSE_SEQ_ITEM (self), FALSE);

  if (km_pose_seq_item_get_animation (self) != NULL)
    return TRUE;
  if ((skeleton = body_skeleton (self)) == NULL)
    return FALSE;
  build = build_new (self, skeleton);
  if (!build_run (build, &local_error))
    {
      km_item_set_problem (KM_ITEM (self), local_error->message);
      g_propagate_error (error, local_error);
      return FALSE;
    }
  build_take (self, build);
  return TRUE;
}

gboolean
km_pose_seq_item_get_building (KmPoseSeqItem *self)
{
  g_return_val_if_fail (KM_IS_POSE_SEQ_ITEM (self), FALSE);
  return self->building;
}

static void
build_thread (GTask        *task,
              gpointer      source,
              gpointer      task_data,
              GCancellable *cancellable)
{
  GError *error = NULL;

  if (build_run (task_data, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

/**
 * km_pose_seq_item_build_async:
 *
 * Builds the animation on a worker thread (the foot IK makes it take tens of milliseconds
 * for a walk); km_pose_seq_item_build_finish, in @callback, keeps it. Without a sequence
 * or a body model it finishes at once with FALSE.
 */
void
km_pose_seq_item_build_async (KmPoseSeqItem       *self,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  KmSkeleton *skeleton;

  g_return_if_fail (KM_IS_POSE_SEQ_ITEM (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, km_pose_seq_item_build_async);
  if ((skeleton = body_skeleton (self)) == NULL)
    {
      g_task_return_boolean (task, FALSE);
      return;
    }
  self->building = TRUE;
  g_task_set_task_data (task, build_new (self, skeleton), (GDestroyNotify) build_free);
  g_task_run_in_thread (task, build_thread);
}

/**
 * km_pose_seq_item_build_finish:
 *
 * Keeps the animation built, unless the body's model or the frame rate changed meanwhile.
 * Returns whether the item has an animation now; a failed interpolation sets @error and
 * the item's problem.
 */
gboolean
km_pose_seq_item_build_finish (KmPoseSeqItem  *self,
                               GAsyncResult   *result,
                               GError        **error)
{
  GTask *task = G_TASK (result);
  GError *local_error = NULL;

  g_return_val_if_fail (KM_IS_POSE_SEQ_ITEM (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  if (g_task_get_task_data (task) == NULL)
    return g_task_propagate_boolean (task, error);
  self->building = FALSE;
  if (!g_task_propagate_boolean (task, &local_error))
    {
      km_item_set_problem (KM_ITEM (self), local_error->message);
      g_propagate_error (error, local_error);
      return FALSE;
    }
  build_take (self, g_task_get_task_data (task));
  return km_pose_seq_item_get_animation (self) != NULL;
}

gboolean
km_pose_seq_item_get_root_pose (KmPoseSeqItem *self,
                                guint          frame,
                                KmTransform   *pose)
{
  g_return_val_if_fail (KM_IS_POSE_SEQ_ITEM (self), FALSE);
  g_return_val_if_fail (pose != NULL, FALSE);

  if (km_pose_seq_item_get_animation (self) == NULL ||
      frame >= km_animation_get_n_frames (self->animation))
    return FALSE;
  *pose = self->root_poses[frame];
  return TRUE;
}
