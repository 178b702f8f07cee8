/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-pose-seq-item"

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "km-pose-seq-item.h"
#include "km-task.h"
#include "km-body-item.h"

struct _KmPoseSeqItem
{
  KmMotionFileItem  parent_instance;

  /* Owned */
  KmPoseSeq        *pose_seq;

  double            frame_rate;
  gboolean          building;      /* km_pose_seq_item_build_async running */
};

G_DEFINE_FINAL_TYPE (KmPoseSeqItem, km_pose_seq_item, KM_TYPE_MOTION_FILE_ITEM)

static char *
km_pose_seq_item_check_format (KmMotionFileItem *item,
                               const char       *format)
{
  if (g_ascii_strcasecmp (format, KM_POSE_SEQ_FORMAT) == 0)
    return NULL;
  /* Translators: the format named in the project, then the one Kinema reads */
  return g_strdup_printf (_("unknown pose sequence format “%s” (expected %s)"), format,
                          KM_POSE_SEQ_FORMAT);
}

static gboolean
km_pose_seq_item_load (KmMotionFileItem *item,
                       const char       *path,
                       GError          **error)
{
  KmPoseSeqItem *self = KM_POSE_SEQ_ITEM (item);

  g_clear_pointer (&self->pose_seq, km_pose_seq_unref);
  self->pose_seq = km_pose_seq_load_file (path, error);
  return self->pose_seq != NULL;
}

static void
km_pose_seq_item_finalize (GObject *object)
{
  KmPoseSeqItem *self = KM_POSE_SEQ_ITEM (object);

  g_clear_pointer (&self->pose_seq, km_pose_seq_unref);

  G_OBJECT_CLASS (km_pose_seq_item_parent_class)->finalize (object);
}

static void
km_pose_seq_item_class_init (KmPoseSeqItemClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  KmItemClass *item_class = KM_ITEM_CLASS (klass);
  KmMotionFileItemClass *motion_file_class = KM_MOTION_FILE_ITEM_CLASS (klass);

  object_class->finalize = km_pose_seq_item_finalize;
  item_class->plugin_name = "PoseSeq";
  item_class->class_name = "PoseSeqItem";
  motion_file_class->check_format = km_pose_seq_item_check_format;
  motion_file_class->load = km_pose_seq_item_load;
  /* No build_animation: interpolating takes long enough (the foot IK) that the editor
   * asks for it, on a worker thread (km_pose_seq_item_build_async). */
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
  KmPoseSeqItem *self;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (pose_seq != NULL, NULL);

  self = g_object_new (KM_TYPE_POSE_SEQ_ITEM, NULL);
  self->pose_seq = km_pose_seq_ref (pose_seq);
  _km_motion_file_item_set_file (KM_MOTION_FILE_ITEM (self), path, KM_POSE_SEQ_FORMAT);
  return KM_ITEM (self);
}

const char *
km_pose_seq_item_get_file (KmPoseSeqItem *self)
{
  g_return_val_if_fail (KM_IS_POSE_SEQ_ITEM (self), NULL);
  return km_motion_file_item_get_file (KM_MOTION_FILE_ITEM (self));
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
  return km_motion_file_item_get_body (KM_MOTION_FILE_ITEM (self));
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
  _km_motion_file_item_set_animation (KM_MOTION_FILE_ITEM (self), NULL, NULL, NULL);
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
  return self->pose_seq != NULL
         ? km_motion_file_item_get_body_skeleton (KM_MOTION_FILE_ITEM (self)) : NULL;
}

static Build *
build_new (KmPoseSeqItem *self,
           KmSkeleton    *skeleton)
{
  KmBodyItem *body = (KmBodyItem *) km_motion_file_item_get_body (KM_MOTION_FILE_ITEM (self));
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
build_run (Build         *build,
           GCancellable  *cancellable,
           GError       **error)
{
  build->animation = km_pose_seq_interpolate (build->pose_seq, build->skeleton, build->q, NULL,
                                              build->frame_rate, &build->root_poses,
                                              cancellable, error);
  return build->animation != NULL;
}

/* Keeps what @build made, unless the model or the frame rate changed meanwhile. */
static void
build_take (KmPoseSeqItem *self,
            Build         *build)
{
  if (build->skeleton != body_skeleton (self) || build->frame_rate != self->frame_rate)
    return;
  _km_motion_file_item_set_animation (KM_MOTION_FILE_ITEM (self),
                                      g_steal_pointer (&build->animation), build->skeleton,
                                      g_steal_pointer (&build->root_poses));
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
  return km_motion_file_item_get_animation (KM_MOTION_FILE_ITEM (self));
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
  if (!build_run (build, NULL, &local_error))
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

/* Runs on the worker, in the inner task (no source object): its data is the outer task's
 * Build, which the outer task owns and frees on the main thread. */
static void
build_thread (GTask        *task,
              gpointer      source,
              gpointer      task_data,
              GCancellable *cancellable)
{
  GError *error = NULL;

  /* (A cancelled build stops between frames.) */
  if (build_run (task_data, cancellable, &error))
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
  Build *build;

  g_return_if_fail (KM_IS_POSE_SEQ_ITEM (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, km_pose_seq_item_build_async);
  if ((skeleton = body_skeleton (self)) == NULL)
    {
      g_task_return_boolean (task, FALSE);
      return;
    }
  self->building = TRUE;
  build = build_new (self, skeleton);
  g_task_set_task_data (task, build, (GDestroyNotify) build_free);
  /* The item is the task's source object: it must not be finalized on the worker. The
   * Build is used there only until build_thread returns, before @task completes. */
  km_task_run_in_thread_boolean (g_steal_pointer (&task), build_thread, build, NULL);
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
      /* (Cancelled: no problem of the item's; whoever cancelled builds again if needed.) */
      if (!g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
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
  return km_motion_file_item_get_root_pose (KM_MOTION_FILE_ITEM (self), frame, pose);
}
