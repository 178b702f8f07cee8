/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-document"

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n.h>

#include "km-document.h"
#include "km-body-item.h"
#include "km-defaults.h"
#include "km-error.h"
#include "km-format.h"
#include "km-ik-animation-item.h"
#include "km-ik-job.h"
#include "km-ik-targets-item.h"
#include "km-ik.h"
#include "km-message.h"
#include "km-project.h"

/* The keyed path is drawn from at most this many samples, whatever the frame count. */
#define MAX_TRAJECTORY_POINTS 2048
/* The log keeps the newest messages only, so a flood of warnings cannot grow it forever. */
#define MAX_MESSAGES 5000

struct _KmDocument
{
  GObject         parent_instance;

  /* Owned */
  KmSkeleton     *skeleton;
  KmTargetTrack  *targets;
  KmAnimation    *animation;
  GFile          *file;
  char           *title;
  double         *pose;          /* n_dof */
  KmTransform    *world;         /* n_joints, FK of pose */
  GArray         *trajectory;    /* KmVec3 */
  GListStore     *messages;      /* KmMessage */
  KmIkJob        *job;
  GCancellable   *solve_cancellable;

  int             effector;
  int             selected_joint;
  guint           current_frame;
  guint           n_frames;
  double          frame_rate;
  gboolean        modified;
};

enum {
  PROP_0,
  PROP_ANIMATION,
  PROP_CURRENT_FRAME,
  PROP_FILE,
  PROP_FRAME_RATE,
  PROP_MODIFIED,
  PROP_N_FRAMES,
  PROP_POSE,
  PROP_SELECTED_JOINT,
  PROP_SKELETON,
  PROP_SOLVE_PROGRESS,
  PROP_SOLVING,
  PROP_TARGETS,
  PROP_TITLE,
  N_PROPS
};

G_DEFINE_FINAL_TYPE (KmDocument, km_document, G_TYPE_OBJECT)

static GParamSpec *properties[N_PROPS];

static void
update_title (KmDocument *self)
{
  g_autofree char *title = NULL;

  if (self->file != NULL)
    {
      g_autofree char *name = g_file_get_basename (self->file);

      /* Translators: the window title; %s is a file name, then an optional "*" */
      title = g_strdup_printf (_("%s%s — Kinema"), name, self->modified ? "*" : "");
    }
  else if (self->modified)
    title = g_strdup_printf (_("%s%s — Kinema"), _("Untitled"), "*");
  else
    title = g_strdup ("Kinema");

  if (g_strcmp0 (title, self->title) != 0)
    {
      g_free (self->title);
      self->title = g_steal_pointer (&title);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TITLE]);
    }
}

static void
update_world (KmDocument *self)
{
  if (self->skeleton != NULL)
    km_skeleton_forward_kinematics (self->skeleton, self->pose, NULL, self->world);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_POSE]);
}

/* Poses the body from the solved animation at the current frame, when there is one. */
static void
pose_from_animation (KmDocument *self)
{
  const double *values;

  if (self->animation == NULL || self->skeleton == NULL
      || self->current_frame >= km_animation_get_n_frames (self->animation)
      || km_animation_get_n_dof (self->animation) != km_skeleton_get_n_dof (self->skeleton))
    return;

  values = km_animation_get_frame (self->animation, self->current_frame);
  if (values == NULL)
    return;

  memcpy (self->pose, values, km_skeleton_get_n_dof (self->skeleton) * sizeof (double));
  update_world (self);
}

static void
update_effector (KmDocument *self)
{
  int effector = -1;

  if (self->skeleton != NULL)
    {
      const char *name = self->targets ? km_target_track_get_effector (self->targets) : NULL;

      effector = name ? km_skeleton_find_joint (self->skeleton, name) : -1;
      if (effector < 0)
        effector = km_skeleton_get_default_effector (self->skeleton);
    }
  self->effector = effector;
}

static void
update_frames (KmDocument *self)
{
  guint n_frames = 1;
  double frame_rate = KM_TARGET_TRACK_DEFAULT_FRAME_RATE;

  g_array_set_size (self->trajectory, 0);

  if (self->targets != NULL)
    {
      guint first = km_target_track_get_first_frame (self->targets);
      guint last = km_target_track_get_last_frame (self->targets);
      double step = MAX (1.0, (double) (last - first) / (MAX_TRAJECTORY_POINTS - 1));

      n_frames = last + 1;
      frame_rate = km_target_track_get_frame_rate (self->targets);
      for (double f = first; ; f += step)
        {
          KmVec3 p;
          KmQuat q;

          f = MIN (f, (double) last);
          if (km_target_track_sample (self->targets, f, &p, &q))
            g_array_append_val (self->trajectory, p);
          if (f >= last)
            break;
        }
    }
  if (self->animation != NULL)
    {
      n_frames = MAX (n_frames, km_animation_get_n_frames (self->animation));
      if (self->targets == NULL)
        frame_rate = km_animation_get_frame_rate (self->animation);
    }
  if (!(frame_rate > 0) || !isfinite (frame_rate))
    frame_rate = KM_TARGET_TRACK_DEFAULT_FRAME_RATE;

  g_object_freeze_notify (G_OBJECT (self));
  if (self->n_frames != n_frames)
    {
      self->n_frames = n_frames;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_FRAMES]);
    }
  if (self->frame_rate != frame_rate)
    {
      self->frame_rate = frame_rate;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FRAME_RATE]);
    }
  if (self->current_frame >= n_frames)
    km_document_set_current_frame (self, n_frames - 1);
  g_object_thaw_notify (G_OBJECT (self));
}

static void
set_animation (KmDocument  *self,
               KmAnimation *animation)
{
  if (self->animation == animation)
    return;

  g_clear_pointer (&self->animation, km_animation_unref);
  self->animation = animation ? km_animation_ref (animation) : NULL;
  update_frames (self);
  pose_from_animation (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ANIMATION]);
}

static void
set_skeleton (KmDocument *self,
              KmSkeleton *skeleton)
{
  guint n_dof = km_skeleton_get_n_dof (skeleton);

  km_document_cancel_solve (self);
  g_clear_pointer (&self->skeleton, km_skeleton_unref);
  self->skeleton = km_skeleton_ref (skeleton);

  /* Rest pose: zero, moved into the limits where zero lies outside them. */
  g_free (self->pose);
  self->pose = g_new0 (double, MAX (n_dof, 1));
  km_skeleton_clamp (skeleton, self->pose);
  g_free (self->world);
  self->world = g_new0 (KmTransform, km_skeleton_get_n_joints (skeleton));

  self->selected_joint = -1;
  update_effector (self);
  set_animation (self, NULL);
  update_world (self);

  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SELECTED_JOINT]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SKELETON]);
}

static void
set_targets (KmDocument    *self,
             KmTargetTrack *targets)
{
  km_document_cancel_solve (self);
  g_clear_pointer (&self->targets, km_target_track_unref);
  self->targets = targets ? km_target_track_ref (targets) : NULL;
  update_effector (self);
  set_animation (self, NULL);
  update_frames (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TARGETS]);
}

static void
set_file (KmDocument *self,
          GFile      *file)
{
  if (g_set_object (&self->file, file))
    {
      update_title (self);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FILE]);
    }
}

static void
parse_warning_cb (const char *message,
                  gpointer    user_data)
{
  KmDocument *self = user_data;

  km_document_log (self, G_LOG_LEVEL_WARNING, "%s", message);
}

static void
job_notify_progress_cb (KmDocument *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SOLVE_PROGRESS]);
}

/* Frames stream in while the worker solves: show them as soon as the current one exists. */
static void
job_frames_ready_cb (KmDocument *self,
                     guint       first_frame,
                     guint       n_frames,
                     KmIkJob    *job)
{
  if (self->animation == NULL)
    set_animation (self, km_ik_job_get_animation (job));
  if (self->current_frame >= first_frame && self->current_frame < first_frame + n_frames)
    pose_from_animation (self);
}

static void
solve_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(KmDocument) self = user_data;
  g_autoptr(KmAnimation) animation = NULL;
  g_autoptr(GError) error = NULL;
  KmAnimationStats stats;

  animation = km_ik_job_solve_finish (KM_IK_JOB (object), result, &error);
  if (animation == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          km_document_log (self, G_LOG_LEVEL_WARNING, _("Solving failed: %s"), error->message);
          g_clear_object (&self->solve_cancellable);
          g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SOLVING]);
        }
      return;
    }

  g_clear_object (&self->solve_cancellable);
  g_clear_pointer (&self->animation, km_animation_unref);
  set_animation (self, animation);

  km_animation_get_stats (animation, &stats);
  km_document_log (self, G_LOG_LEVEL_INFO,
                   /* Translators: a frame count, then the largest position error in mm */
                   _("Solved %u frames; largest position error %.3f mm."),
                   stats.n_frames, stats.max_pos_err * 1000.0);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SOLVING]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SOLVE_PROGRESS]);
}

static void
km_document_dispose (GObject *object)
{
  KmDocument *self = (KmDocument *) object;

  if (self->solve_cancellable != NULL)
    g_cancellable_cancel (self->solve_cancellable);
  g_clear_object (&self->solve_cancellable);
  if (self->job != NULL)
    g_signal_handlers_disconnect_by_data (self->job, self);
  g_clear_object (&self->job);
  g_clear_object (&self->file);

  G_OBJECT_CLASS (km_document_parent_class)->dispose (object);
}

static void
km_document_finalize (GObject *object)
{
  KmDocument *self = (KmDocument *) object;

  g_clear_pointer (&self->skeleton, km_skeleton_unref);
  g_clear_pointer (&self->targets, km_target_track_unref);
  g_clear_pointer (&self->animation, km_animation_unref);
  g_clear_pointer (&self->title, g_free);
  g_clear_pointer (&self->pose, g_free);
  g_clear_pointer (&self->world, g_free);
  g_clear_pointer (&self->trajectory, g_array_unref);
  g_clear_object (&self->messages);

  G_OBJECT_CLASS (km_document_parent_class)->finalize (object);
}

static void
km_document_get_property (GObject    *object,
                          guint       prop_id,
                          GValue     *value,
                          GParamSpec *pspec)
{
  KmDocument *self = KM_DOCUMENT (object);

  switch (prop_id)
    {
    case PROP_ANIMATION:
      g_value_set_boxed (value, self->animation);
      break;
    case PROP_CURRENT_FRAME:
      g_value_set_uint (value, self->current_frame);
      break;
    case PROP_FILE:
      g_value_set_object (value, self->file);
      break;
    case PROP_FRAME_RATE:
      g_value_set_double (value, self->frame_rate);
      break;
    case PROP_MODIFIED:
      g_value_set_boolean (value, self->modified);
      break;
    case PROP_N_FRAMES:
      g_value_set_uint (value, self->n_frames);
      break;
    case PROP_POSE:
      g_value_set_pointer (value, self->pose);
      break;
    case PROP_SELECTED_JOINT:
      g_value_set_int (value, self->selected_joint);
      break;
    case PROP_SKELETON:
      g_value_set_boxed (value, self->skeleton);
      break;
    case PROP_SOLVE_PROGRESS:
      g_value_set_double (value, km_document_get_solve_progress (self));
      break;
    case PROP_SOLVING:
      g_value_set_boolean (value, km_document_get_solving (self));
      break;
    case PROP_TARGETS:
      g_value_set_boxed (value, self->targets);
      break;
    case PROP_TITLE:
      g_value_set_string (value, self->title);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
km_document_set_property (GObject      *object,
                          guint         prop_id,
                          const GValue *value,
                          GParamSpec   *pspec)
{
  KmDocument *self = KM_DOCUMENT (object);

  switch (prop_id)
    {
    case PROP_CURRENT_FRAME:
      km_document_set_current_frame (self, g_value_get_uint (value));
      break;
    case PROP_MODIFIED:
      km_document_set_modified (self, g_value_get_boolean (value));
      break;
    case PROP_SELECTED_JOINT:
      km_document_set_selected_joint (self, g_value_get_int (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
km_document_class_init (KmDocumentClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags ro = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->dispose = km_document_dispose;
  object_class->finalize = km_document_finalize;
  object_class->get_property = km_document_get_property;
  object_class->set_property = km_document_set_property;

  properties[PROP_ANIMATION] =
    g_param_spec_boxed ("animation", NULL, NULL, KM_TYPE_ANIMATION, ro);
  properties[PROP_CURRENT_FRAME] =
    g_param_spec_uint ("current-frame", NULL, NULL, 0, G_MAXUINT, 0, rw);
  properties[PROP_FILE] =
    g_param_spec_object ("file", NULL, NULL, G_TYPE_FILE, ro);
  properties[PROP_FRAME_RATE] =
    g_param_spec_double ("frame-rate", NULL, NULL, 0.0, G_MAXDOUBLE,
                         KM_TARGET_TRACK_DEFAULT_FRAME_RATE, ro);
  properties[PROP_MODIFIED] =
    g_param_spec_boolean ("modified", NULL, NULL, FALSE, rw);
  properties[PROP_N_FRAMES] =
    g_param_spec_uint ("n-frames", NULL, NULL, 1, G_MAXUINT, 1, ro);
  /* The DOF vector (const double *, n_dof long); notified whenever the body moves. */
  properties[PROP_POSE] =
    g_param_spec_pointer ("pose", NULL, NULL, ro);
  properties[PROP_SELECTED_JOINT] =
    g_param_spec_int ("selected-joint", NULL, NULL, -1, G_MAXINT, -1, rw);
  properties[PROP_SKELETON] =
    g_param_spec_boxed ("skeleton", NULL, NULL, KM_TYPE_SKELETON, ro);
  properties[PROP_SOLVE_PROGRESS] =
    g_param_spec_double ("solve-progress", NULL, NULL, 0.0, 1.0, 0.0, ro);
  properties[PROP_SOLVING] =
    g_param_spec_boolean ("solving", NULL, NULL, FALSE, ro);
  properties[PROP_TARGETS] =
    g_param_spec_boxed ("targets", NULL, NULL, KM_TYPE_TARGET_TRACK, ro);
  properties[PROP_TITLE] =
    g_param_spec_string ("title", NULL, NULL, "Kinema", ro);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
km_document_init (KmDocument *self)
{
  self->title = g_strdup ("Kinema");
  self->trajectory = g_array_new (FALSE, FALSE, sizeof (KmVec3));
  self->messages = g_list_store_new (KM_TYPE_MESSAGE);
  self->effector = -1;
  self->selected_joint = -1;
  self->n_frames = 1;
  self->frame_rate = KM_TARGET_TRACK_DEFAULT_FRAME_RATE;
  self->pose = g_new0 (double, 1);

  self->job = km_ik_job_new ();
  g_signal_connect_object (self->job, "notify::progress",
                           G_CALLBACK (job_notify_progress_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->job, "frames-ready",
                           G_CALLBACK (job_frames_ready_cb), self, G_CONNECT_SWAPPED);
}

KmDocument *
km_document_new (void)
{
  return g_object_new (KM_TYPE_DOCUMENT, NULL);
}

/**
 * km_document_load_defaults:
 *
 * Loads the embedded data/skeleton.json and data/targets.json, replacing what the document
 * held, and starts solving. On failure nothing changes.
 */
gboolean
km_document_load_defaults (KmDocument  *self,
                           GError     **error)
{
  const KmFormat *skeleton_format = km_format_lookup ("SKELETON-JSON");
  const KmFormat *targets_format = km_format_lookup ("KINEMA-TARGETS-JSON");
  g_autoptr(GBytes) skeleton_bytes = km_defaults_get_skeleton_json ();
  g_autoptr(GBytes) targets_bytes = km_defaults_get_targets_json ();
  g_autoptr(KmSkeleton) skeleton = NULL;
  g_autoptr(KmTargetTrack) targets = NULL;

  g_return_val_if_fail (KM_IS_DOCUMENT (self), FALSE);
  g_return_val_if_fail (skeleton_format != NULL && targets_format != NULL, FALSE);

  km_parse_warnings_push (parse_warning_cb, self);
  skeleton = skeleton_format->load (KM_DEFAULT_SKELETON_NAME, skeleton_bytes, error);
  if (skeleton != NULL)
    targets = targets_format->load (KM_DEFAULT_TARGETS_NAME, targets_bytes, error);
  km_parse_warnings_pop ();
  if (targets == NULL)
    return FALSE;

  g_object_freeze_notify (G_OBJECT (self));
  set_skeleton (self, skeleton);
  set_targets (self, targets);
  set_file (self, NULL);
  km_document_set_current_frame (self, 0);
  km_document_set_modified (self, FALSE);
  g_object_thaw_notify (G_OBJECT (self));

  km_document_log (self, G_LOG_LEVEL_INFO,
                   /* Translators: joint and keyframe counts of the built-in example */
                   _("Opened the built-in example: %u joints, %u target keyframes."),
                   km_skeleton_get_n_joints (skeleton),
                   km_target_track_get_n_keyframes (targets));
  km_document_solve (self);
  return TRUE;
}

/* Depth first: the first body item that has a model. */
static KmBodyItem *
find_body (KmItem *item)
{
  if (KM_IS_BODY_ITEM (item) && km_body_item_get_skeleton (KM_BODY_ITEM (item)) != NULL)
    return KM_BODY_ITEM (item);

  for (guint i = 0; i < km_item_get_n_children (item); i++)
    {
      KmBodyItem *body = find_body (km_item_get_child (item, i));

      if (body != NULL)
        return body;
    }
  return NULL;
}

/*
 * Until the window edits a whole KmProject, opening a project shows its first body with
 * that body's IK targets and solved animation.
 */
static gboolean
open_project (KmDocument  *self,
              KmProject   *project,
              GFile       *file,
              const char  *path,
              GError     **error)
{
  KmBodyItem *body = find_body (km_project_get_root_item (project));
  KmTargetTrack *targets = NULL;
  KmAnimation *animation = NULL;

  if (body == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   _("%s: the project has no body to show"), path);
      return FALSE;
    }

  for (guint i = 0; i < km_item_get_n_children (KM_ITEM (body)); i++)
    {
      KmItem *child = km_item_get_child (KM_ITEM (body), i);

      if (targets == NULL && KM_IS_IK_TARGETS_ITEM (child))
        targets = km_ik_targets_item_get_track (KM_IK_TARGETS_ITEM (child));
      else if (animation == NULL && KM_IS_IK_ANIMATION_ITEM (child))
        animation = km_ik_animation_item_get_animation (KM_IK_ANIMATION_ITEM (child));
    }

  g_object_freeze_notify (G_OBJECT (self));
  set_skeleton (self, km_body_item_get_skeleton (body));
  set_targets (self, targets);
  if (animation != NULL
      && km_animation_get_n_dof (animation) == km_skeleton_get_n_dof (self->skeleton))
    set_animation (self, animation);
  set_file (self, file);
  km_document_set_current_frame (self, 0);
  km_document_set_modified (self, FALSE);
  g_object_thaw_notify (G_OBJECT (self));

  /* Translators: a path, then the name of the body item shown */
  km_document_log (self, G_LOG_LEVEL_INFO, _("%s: showing the body “%s”."),
                   path, km_item_get_name (KM_ITEM (body)));
  if (self->animation == NULL)
    km_document_solve (self);
  return TRUE;
}

/**
 * km_document_import_file:
 *
 * Opens any file the loader registry recognises by its content: a model replaces the body,
 * a targets file the targets, an animation the solved motion (it must fit the body). On
 * failure (the error names file, line and column) the document is unchanged.
 */
gboolean
km_document_import_file (KmDocument  *self,
                         GFile       *file,
                         GError     **error)
{
  g_autofree char *path = NULL;
  const KmFormat *format = NULL;
  gpointer result;

  g_return_val_if_fail (KM_IS_DOCUMENT (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);

  path = g_file_get_path (file);
  if (path == NULL)
    {
      g_autofree char *uri = g_file_get_uri (file);

      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   _("%s: only local files can be opened"), uri);
      return FALSE;
    }

  km_parse_warnings_push (parse_warning_cb, self);
  result = km_format_load_file (path, NULL, &format, error);
  km_parse_warnings_pop ();
  if (result == NULL)
    return FALSE;

  switch (format->kind)
    {
    case KM_FILE_KIND_MODEL:
      g_object_freeze_notify (G_OBJECT (self));
      set_skeleton (self, result);
      set_file (self, file);
      km_document_set_modified (self, FALSE);
      g_object_thaw_notify (G_OBJECT (self));
      km_document_solve (self);
      break;

    case KM_FILE_KIND_TARGETS:
      set_targets (self, result);
      km_document_set_modified (self, TRUE);
      km_document_solve (self);
      break;

    case KM_FILE_KIND_ANIMATION:
      if (self->skeleton == NULL
          || km_animation_get_n_dof (result) != km_skeleton_get_n_dof (self->skeleton))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       _("%s: the animation does not fit the open body"), path);
          format->free_result (result);
          return FALSE;
        }
      km_document_cancel_solve (self);
      set_animation (self, result);
      km_document_set_modified (self, TRUE);
      break;

    case KM_FILE_KIND_PROJECT:
      if (!open_project (self, result, file, path, error))
        {
          format->free_result (result);
          return FALSE;
        }
      break;

    default:
      g_assert_not_reached ();
    }

  format->free_result (result);
  km_document_log (self, G_LOG_LEVEL_INFO, _("Opened %s."), path);
  return TRUE;
}

KmSkeleton *
km_document_get_skeleton (KmDocument *self)
{
  g_return_val_if_fail (KM_IS_DOCUMENT (self), NULL);

  return self->skeleton;
}

KmTargetTrack *
km_document_get_targets (KmDocument *self)
{
  g_return_val_if_fail (KM_IS_DOCUMENT (self), NULL);

  return self->targets;
}

KmAnimation *
km_document_get_animation (KmDocument *self)
{
  g_return_val_if_fail (KM_IS_DOCUMENT (self), NULL);

  return self->animation;
}

GFile *
km_document_get_file (KmDocument *self)
{
  g_return_val_if_fail (KM_IS_DOCUMENT (self), NULL);

  return self->file;
}

const char *
km_document_get_title (KmDocument *self)
{
  g_return_val_if_fail (KM_IS_DOCUMENT (self), NULL);

  return self->title;
}

gboolean
km_document_get_modified (KmDocument *self)
{
  g_return_val_if_fail (KM_IS_DOCUMENT (self), FALSE);

  return self->modified;
}

void
km_document_set_modified (KmDocument *self,
                          gboolean    modified)
{
  g_return_if_fail (KM_IS_DOCUMENT (self));

  modified = !!modified;
  if (self->modified == modified)
    return;

  self->modified = modified;
  update_title (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MODIFIED]);
}

/**
 * km_document_get_pose:
 * @n_dof: (out) (optional): the length
 *
 * Returns: (transfer none): the DOF vector, valid until the skeleton changes
 */
const double *
km_document_get_pose (KmDocument *self,
                      guint      *n_dof)
{
  g_return_val_if_fail (KM_IS_DOCUMENT (self), NULL);

  if (n_dof != NULL)
    *n_dof = self->skeleton ? km_skeleton_get_n_dof (self->skeleton) : 0;
  return self->pose;
}

/* Sets one DOF (clamped into its limits), as the joint panel does: the body moves at once. */
void
km_document_set_dof_value (KmDocument *self,
                           guint       dof,
                           double      value)
{
  double lower, upper;
  int joint;
  const KmJoint *j;

  g_return_if_fail (KM_IS_DOCUMENT (self));
  g_return_if_fail (self->skeleton != NULL);
  g_return_if_fail (dof < km_skeleton_get_n_dof (self->skeleton));

  if (!isfinite (value))
    return;

  joint = km_skeleton_get_dof_joint (self->skeleton, dof);
  j = km_skeleton_get_joint (self->skeleton, joint);
  lower = j->limits[dof - j->dof_index].min;
  upper = j->limits[dof - j->dof_index].max;
  value = CLAMP (value, lower, upper);
  if (self->pose[dof] == value)
    return;

  self->pose[dof] = value;
  update_world (self);
  km_document_set_modified (self, TRUE);
}

const KmTransform *
km_document_get_joint_world (KmDocument *self,
                             guint      *n_joints)
{
  g_return_val_if_fail (KM_IS_DOCUMENT (self), NULL);

  if (n_joints != NULL)
    *n_joints = self->skeleton ? km_skeleton_get_n_joints (self->skeleton) : 0;
  return self->skeleton ? self->world : NULL;
}

int
km_document_get_effector (KmDocument *self)
{
  g_return_val_if_fail (KM_IS_DOCUMENT (self), -1);

  return self->effector;
}

/* The effector's goal at the current frame (world frame); FALSE without targets. */
gboolean
km_document_get_target_pose (KmDocument  *self,
                             KmTransform *target)
{
  KmVec3 p;
  KmQuat q;

  g_return_val_if_fail (KM_IS_DOCUMENT (self), FALSE);
  g_return_val_if_fail (target != NULL, FALSE);

  if (self->targets == NULL
      || !km_target_track_sample (self->targets, self->current_frame, &p, &q))
    return FALSE;

  km_transform_from_pos_quat (p, q, target);
  return TRUE;
}

const KmVec3 *
km_document_get_trajectory (KmDocument *self,
                            guint      *n_points)
{
  g_return_val_if_fail (KM_IS_DOCUMENT (self), NULL);

  if (n_points != NULL)
    *n_points = self->trajectory->len;
  return (const KmVec3 *) (gpointer) self->trajectory->data;
}

static void
grow_bounds (KmVec3 *min,
             KmVec3 *max,
             KmVec3  p)
{
  if (!km_vec3_is_finite (p))
    return;
  min->x = MIN (min->x, p.x), min->y = MIN (min->y, p.y), min->z = MIN (min->z, p.z);
  max->x = MAX (max->x, p.x), max->y = MAX (max->y, p.y), max->z = MAX (max->z, p.z);
}

/* A box around the body at its current pose, over its solved motion (sampled), the keyed
 * path and the world origin: what a camera should frame. */
void
km_document_get_bounds (KmDocument *self,
                        KmVec3     *min,
                        KmVec3     *max)
{
  g_return_if_fail (KM_IS_DOCUMENT (self));

  *min = *max = KM_VEC3_ZERO;
  if (self->skeleton != NULL)
    {
      guint n_joints = km_skeleton_get_n_joints (self->skeleton);

      for (guint i = 0; i < n_joints; i++)
        grow_bounds (min, max, self->world[i].pos);

      if (self->animation != NULL
          && km_animation_get_n_dof (self->animation) == km_skeleton_get_n_dof (self->skeleton))
        {
          guint n_frames = km_animation_get_n_frames (self->animation);
          guint step = MAX (1, n_frames / MAX_TRAJECTORY_POINTS);
          g_autofree KmTransform *world = g_new (KmTransform, n_joints);

          for (guint f = 0; f < n_frames; f += step)
            {
              const double *q = km_animation_get_frame (self->animation, f);

              if (q == NULL)
                continue;
              km_skeleton_forward_kinematics (self->skeleton, q, NULL, world);
              for (guint i = 0; i < n_joints; i++)
                grow_bounds (min, max, world[i].pos);
            }
        }
    }
  for (guint i = 0; i < self->trajectory->len; i++)
    grow_bounds (min, max, g_array_index (self->trajectory, KmVec3, i));
}

int
km_document_get_selected_joint (KmDocument *self)
{
  g_return_val_if_fail (KM_IS_DOCUMENT (self), -1);

  return self->selected_joint;
}

void
km_document_set_selected_joint (KmDocument *self,
                                int         joint)
{
  g_return_if_fail (KM_IS_DOCUMENT (self));

  if (self->skeleton == NULL || joint < 0 || (guint) joint >= km_skeleton_get_n_joints (self->skeleton))
    joint = -1;
  if (self->selected_joint == joint)
    return;

  self->selected_joint = joint;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SELECTED_JOINT]);
}

guint
km_document_get_current_frame (KmDocument *self)
{
  g_return_val_if_fail (KM_IS_DOCUMENT (self), 0);

  return self->current_frame;
}

/* Scrubbing: moves to @frame (clamped to the frame range) and poses the body from the
 * solved animation there. */
void
km_document_set_current_frame (KmDocument *self,
                               guint       frame)
{
  g_return_if_fail (KM_IS_DOCUMENT (self));

  frame = MIN (frame, self->n_frames - 1);
  if (self->current_frame == frame)
    return;

  self->current_frame = frame;
  pose_from_animation (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CURRENT_FRAME]);
}

guint
km_document_get_n_frames (KmDocument *self)
{
  g_return_val_if_fail (KM_IS_DOCUMENT (self), 1);

  return self->n_frames;
}

double
km_document_get_frame_rate (KmDocument *self)
{
  g_return_val_if_fail (KM_IS_DOCUMENT (self), KM_TARGET_TRACK_DEFAULT_FRAME_RATE);

  return self->frame_rate;
}

/**
 * km_document_solve:
 *
 * Solves the whole target track on the IK job's worker thread, seeded with the current
 * pose. Frames stream into the animation as they finish; a newer solve supersedes this one.
 */
void
km_document_solve (KmDocument *self)
{
  g_autoptr(KmIkProblem) problem = NULL;

  g_return_if_fail (KM_IS_DOCUMENT (self));

  if (self->skeleton == NULL || self->targets == NULL || self->effector < 0)
    return;

  km_document_cancel_solve (self);
  set_animation (self, NULL);

  problem = km_ik_problem_new (self->skeleton, self->effector);
  memcpy (problem->seed, self->pose, km_skeleton_get_n_dof (self->skeleton) * sizeof (double));

  self->solve_cancellable = g_cancellable_new ();
  km_ik_job_solve_async (self->job, problem, self->targets,
                         0, km_target_track_get_last_frame (self->targets),
                         self->solve_cancellable, solve_cb, g_object_ref (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SOLVING]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SOLVE_PROGRESS]);
}

void
km_document_cancel_solve (KmDocument *self)
{
  g_return_if_fail (KM_IS_DOCUMENT (self));

  if (self->solve_cancellable == NULL)
    return;

  g_cancellable_cancel (self->solve_cancellable);
  g_clear_object (&self->solve_cancellable);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SOLVING]);
}

gboolean
km_document_get_solving (KmDocument *self)
{
  g_return_val_if_fail (KM_IS_DOCUMENT (self), FALSE);

  return self->solve_cancellable != NULL;
}

double
km_document_get_solve_progress (KmDocument *self)
{
  g_return_val_if_fail (KM_IS_DOCUMENT (self), 0.0);

  return self->solve_cancellable ? CLAMP (km_ik_job_get_progress (self->job), 0.0, 1.0) : 0.0;
}

/**
 * km_document_get_messages:
 *
 * Returns: (transfer none): the log, a list of KmMessage, oldest first
 */
GListModel *
km_document_get_messages (KmDocument *self)
{
  g_return_val_if_fail (KM_IS_DOCUMENT (self), NULL);

  return G_LIST_MODEL (self->messages);
}

void
km_document_log (KmDocument     *self,
                 GLogLevelFlags  level,
                 const char     *format,
                 ...)
{
  g_autoptr(KmMessage) message = NULL;
  g_autofree char *text = NULL;
  va_list args;
  guint n;

  g_return_if_fail (KM_IS_DOCUMENT (self));
  g_return_if_fail (format != NULL);

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);

  g_debug ("%s", text);
  message = km_message_new (level, text);
  n = g_list_model_get_n_items (G_LIST_MODEL (self->messages));
  if (n >= MAX_MESSAGES)
    g_list_store_splice (self->messages, 0, n - MAX_MESSAGES + 1, NULL, 0);
  g_list_store_append (self->messages, message);
}

void
km_document_clear_messages (KmDocument *self)
{
  g_return_if_fail (KM_IS_DOCUMENT (self));

  g_list_store_remove_all (self->messages);
}
