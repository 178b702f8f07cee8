/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-document"

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n.h>

#include "km-document-private.h"
#include "km-animation-source.h"
#include "km-body-item.h"
#include "km-body-motion-item.h"
#include "km-cnoid.h"
#include "km-defaults.h"
#include "km-error.h"
#include "km-folder-item.h"
#include "km-format.h"
#include "km-ik-animation-item.h"
#include "km-ik-job.h"
#include "km-ik-targets-item.h"
#include "km-ik.h"
#include "km-layout-state.h"
#include "km-message.h"
#include "km-motion-file-item.h"
#include "km-pose-seq-item.h"
#include "km-root-item.h"
#include "km-start-pose.h"
#include "km-unknown-item.h"
#include "km-world-item.h"

/* The keyed path is drawn from at most this many samples, whatever the frame count. */
#define MAX_TRAJECTORY_POINTS 2048
/* The log keeps the newest messages only, so a flood of warnings cannot grow it forever. */
#define MAX_MESSAGES 5000
/* The time bar's range runs this far past the motion's last frame (a keyframe, or the end
 * of the animation), and is at least TIMELINE_MIN_SECONDS long, so that there are frames
 * to step to and key after the last keyframe (a new model has none at all). */
#define TIMELINE_TAIL_SECONDS 1.0
#define TIMELINE_MIN_SECONDS 10.0

/*
 * The document is a KmProject plus a view of its current body: the skeleton, pose, targets
 * and animation properties mirror the current body item, its first IK targets child and
 * the first animation source below it (KmAnimationSource: its solved IK animation, or a
 * Choreonoid pose sequence, whose root motion moves the body too). Every edit is a project command; each command's redo and undo end
 * in sync_from_project, which re-reads that view, so undo and redo need no bookkeeping of
 * their own. The pose shown is the body's joint state, or the solved animation at the
 * current frame after scrubbing.
 *
 * A joint edit (a drag, the Pose tab) sets the body's joint state, which the project saves
 * (so it marks the project modified), but a frame change shows the motion again: while the
 * edited pose differs from the motion at the current frame it is "unkeyed" (pose-unkeyed),
 * the time bar says so, and the frame change that replaces it logs that once and sets the
 * body's joint state to the motion's pose that replaced it (so a save does not keep what
 * the user saw discarded). A joint
 * edit's undo and redo go back to the frame it was made at, where the pose they restore
 * shows. The body saves that its joint state is such a pose (km_body_item_get_pose_unkeyed),
 * so that the project opens showing it again, unkeyed, at the time it was saved at
 * (show_saved_state).
 */

struct _KmDocument
{
  GObject         parent_instance;

  /* Owned */
  KmProject      *project;
  KmBodyItem     *body;          /* the current body, or NULL */
  KmSkeleton     *skeleton;
  KmTargetTrack  *targets;
  KmItem         *targets_item;     /* the item targets come from (a Reload swaps it) */
  KmAnimation    *animation;
  /* The item the shown animation comes from (NULL for a solve in progress), and the root
   * pose it gives at the current frame (has_root_pose). */
  KmAnimationSource *animation_source;
  KmTransform     root_pose;
  gboolean        has_root_pose;
  GFile          *file;
  char           *file_identity;  /* of @file as last read or written here, or NULL
                                   * (_km_document_set_file_identity) */
  char           *title;
  double         *pose;          /* n_dof */
  KmTransform    *world;         /* n_joints, FK of pose */
  GArray         *trajectory;    /* KmVec3 */
  GListStore     *messages;      /* KmMessage */
  KmIkJob        *job;
  GCancellable   *solve_cancellable;
  KmBodyItem     *solve_body;    /* the body the running solve is for */
  /* What the running solve aims at, kept where the body has linked joints: its frames,
   * re-synced, are measured again (NULL otherwise). */
  KmIkProblem    *solve_problem;
  KmTargetTrack  *solve_track;
  /* Measures the residuals of a solved animation read from a file (measure_animation) */
  GCancellable   *measure_cancellable;

  int             effector;
  /* The last skeleton, and the effector and base names update_effector() warned of for it
   * (not found). */
  KmSkeleton     *warned_skeleton;
  char           *warned_effector;
  char           *warned_base;
  int             selected_joint;
  guint           current_frame;
  guint           n_frames;
  guint           timeline_frames; /* the time bar's range: n_frames and a tail after them */
  /* The range the time bar keeps while the body's motion is built again for its edited
   * model (0: none), so that the current frame does not fall back into the range of no
   * motion meanwhile (sync_from_project). */
  guint           held_frames;
  double          frame_rate;
  /* The project's time bar rate as read with it (0: it has none): what its pose sequences
   * play at, and the time bar's rate for a body without a motion of its own. Saves and
   * autosaves write the time bar's state into the project's sections meanwhile; reading
   * them back would make a rate a body showed for a while (an imported one's) the
   * project's, and undo would not bring the rate of before back. */
  double          project_frame_rate;
  /* The end of the project's time bar range (its TimeBar `max_time`) as read with it, in
   * seconds (0: it has none): the time bar's range runs at least that far (update_frames),
   * so that a range the user saved in Choreonoid longer than the motion stays, and a save
   * writes it back (km_layout_state_store). As read, for the reasons above. */
  double          project_max_time;
  /* The start of that range (its TimeBar `min_time`) as read, in seconds (0: it has none):
   * where playback starts and loops back to (km_document_get_project_min_time). */
  double          project_min_time;
  /* The rate the time bar showed as the project opened: for a project without a time bar
   * (a new one), the rate a save writes as its time bar's and the one a body without a
   * motion of its own shows, so that it plays at the rate it will play at once the project
   * is opened again. (Not its pose sequences': they play at their own default then, as
   * before a save.) */
  double          opened_frame_rate;
  gboolean        modified;
  gboolean        forced_modified;
  gboolean        saving;          /* a project save runs (_km_document_begin_save) */
  guint64         saved_clean;     /* while it runs: the clean state and the forced flag */
  gboolean        saved_forced;    /*   from before, put back when it fails */
  gboolean        solve_recorded;  /* the running solve ends in an undoable step */
  /* The targets whose last solve started but never finished (cancelled, superseded), so
   * that the body's motion is not theirs; NULL once it finished. */
  KmTargetTrack  *unsolved_targets;
  /* The motion last said not to be its targets' solve (measure_animation), or NULL */
  KmAnimation    *warned_unsolved;
  GPtrArray      *targets_edits;   /* TargetsEdit, unowned: the history's keyframe steps */
  /* Set while the running solve completes an edit's step (km_document_solve_completing) */
  KmDocumentSolvedFunc solve_done;
  gpointer        solve_done_data;
  GDestroyNotify  solve_done_destroy;
  guint           close_edit_id;   /* ends a continuous joint edit after a pause */
  gconstpointer   edit_holder;     /* no pause ends its edit (km_document_hold_edit) */
  /* The pose shown comes from a joint edit and differs from the motion at the current
   * frame, which edited it at unkeyed_frame (km_document_get_pose_unkeyed). */
  gboolean        pose_unkeyed;
  guint           unkeyed_frame;
  KmBodyItem     *unkeyed_body;   /* the body it is of, which saves that it is unkeyed */
};

/* Joint values set closer together than this (a slider drag, a scene drag, one
 * km_document_set_pose) are one undo step. */
#define EDIT_MERGE_PAUSE_MS 500

enum {
  PROP_0,
  PROP_ANIMATION,
  PROP_CAN_REDO,
  PROP_CAN_UNDO,
  PROP_CURRENT_FRAME,
  PROP_FILE,
  PROP_FRAME_RATE,
  PROP_MODIFIED,
  PROP_N_FRAMES,
  PROP_POSE,
  PROP_POSE_UNKEYED,
  PROP_PROJECT,
  PROP_SELECTED_JOINT,
  PROP_SKELETON,
  PROP_TIMELINE_FRAMES,
  PROP_SOLVE_PROGRESS,
  PROP_SAVING,
  PROP_SOLVING,
  PROP_TARGETS,
  PROP_TITLE,
  N_PROPS
};

G_DEFINE_FINAL_TYPE (KmDocument, km_document, G_TYPE_OBJECT)

static GParamSpec *properties[N_PROPS];

static void sync_from_project (KmDocument *self);
static void auto_solve        (KmDocument *self);

/* Forgets the step the running solve was to complete (its data goes now). */
static void
clear_solve_done (KmDocument *self)
{
  gpointer data = g_steal_pointer (&self->solve_done_data);
  GDestroyNotify destroy = g_steal_pointer (&self->solve_done_destroy);

  self->solve_done = NULL;
  if (destroy != NULL)
    destroy (data);
}

static void
update_title (KmDocument *self)
{
  g_autofree char *title = NULL;

  if (self->file != NULL)
    {
      g_autofree char *base = g_file_get_basename (self->file);
      g_autofree char *name = g_filename_display_name (base);

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
update_modified (KmDocument *self)
{
  gboolean modified = self->forced_modified
                      || (self->project != NULL && km_project_get_modified (self->project));

  if (self->modified == modified)
    return;
  self->modified = modified;
  update_title (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MODIFIED]);
}

static void
update_world (KmDocument *self)
{
  if (self->skeleton != NULL)
    km_skeleton_forward_kinematics (self->skeleton, self->pose,
                                    self->has_root_pose ? &self->root_pose : NULL, self->world);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_POSE]);
}

/* The animation's frame shown at the current frame: past its end (in the time bar's tail)
 * its last frame holds, as the targets do after their last keyframe. */
static guint
shown_animation_frame (KmDocument *self)
{
  guint n = km_animation_get_n_frames (self->animation);

  return MIN (self->current_frame, n > 0 ? n - 1 : 0);
}

/* The solved animation's pose at the current frame, which a frame change shows; NULL when
 * there is none (the pose shown stays). */
static const double *
motion_pose (KmDocument *self)
{
  if (self->animation == NULL || self->skeleton == NULL
      || km_animation_get_n_frames (self->animation) == 0
      || km_animation_get_n_dof (self->animation) != km_skeleton_get_n_dof (self->skeleton))
    return NULL;
  return km_animation_get_frame (self->animation, shown_animation_frame (self));
}

static void
set_pose_unkeyed (KmDocument *self,
                  gboolean    unkeyed)
{
  if (self->pose_unkeyed == unkeyed)
    return;
  self->pose_unkeyed = unkeyed;
  if (unkeyed)
    {
      self->unkeyed_frame = self->current_frame;
      g_set_object (&self->unkeyed_body, self->body);
    }
  /* What a save writes with the body's joint state, which holds the pose. */
  if (self->unkeyed_body != NULL)
    km_body_item_set_pose_unkeyed (self->unkeyed_body, unkeyed);
  if (!unkeyed)
    g_clear_object (&self->unkeyed_body);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_POSE_UNKEYED]);
}

/* After a joint edit shows its pose: unkeyed when the motion would replace it. Not while a
 * read-only motion plays (a pose sequence, a body motion: KmMotionFileItem): nothing can
 * be keyed there, so there is nothing to point the user to. */
static void
update_pose_unkeyed (KmDocument *self)
{
  const double *motion = KM_IS_MOTION_FILE_ITEM (self->animation_source)
                         ? NULL : motion_pose (self);
  gboolean differs = FALSE;

  for (guint i = 0; motion != NULL && i < km_skeleton_get_n_dof (self->skeleton); i++)
    differs |= motion[i] != self->pose[i];
  set_pose_unkeyed (self, differs);
}

/* An unkeyed pose replaced by the motion's @motion: the body's joint state, which a save
 * writes as joint_displacements (the pose Choreonoid opens the body in), becomes the pose
 * that replaced it, so that a discarded edit is not saved. Undo and redo of the edit set
 * the joint state from the edit itself. */
static void
forget_unkeyed_pose (KmDocument   *self,
                     const double *motion)
{
  guint n_dof = 0;

  if (self->unkeyed_body == NULL || self->unkeyed_body != self->body)
    return;
  km_body_item_get_joint_state (self->body, &n_dof);
  if (n_dof == km_skeleton_get_n_dof (self->skeleton))
    km_body_item_set_joint_state (self->body, motion, n_dof);
}

/* Poses the body from the solved animation at the current frame, when there is one. An
 * unkeyed pose it replaces is gone from view and from the body's joint state (undoing and
 * redoing the edit shows it again at its frame): say so once. */
static void
pose_from_animation (KmDocument *self)
{
  const double *values = motion_pose (self);
  guint frame;

  if (values == NULL)
    return;

  frame = shown_animation_frame (self);
  if (self->pose_unkeyed)
    {
      km_document_log (self, G_LOG_LEVEL_INFO,
                       /* Translators: %u is a frame number; K is the Set Keyframe key */
                       _("The pose edited at frame %u was not keyed (K) and was replaced by "
                         "the motion."),
                       self->unkeyed_frame);
      forget_unkeyed_pose (self, values);
      set_pose_unkeyed (self, FALSE);
    }
  memcpy (self->pose, values, km_skeleton_get_n_dof (self->skeleton) * sizeof (double));
  /* A pose sequence moves the floating base too (a walk). */
  self->has_root_pose = self->animation_source != NULL
                        && km_animation_source_get_animation (self->animation_source)
                           == self->animation
                        && km_animation_source_get_root_pose (self->animation_source, frame,
                                                              &self->root_pose);
  update_world (self);
}

/* Whether @name is news for @self's skeleton in *@warned: the names warned of hold for
 * one skeleton (one body model) at a time. */
static gboolean
warn_first_time (KmDocument  *self,
                 char       **warned,
                 const char  *name)
{
  if (self->warned_skeleton != self->skeleton)
    {
      g_clear_pointer (&self->warned_skeleton, km_skeleton_unref);
      self->warned_skeleton = km_skeleton_ref (self->skeleton);
      g_clear_pointer (&self->warned_effector, g_free);
      g_clear_pointer (&self->warned_base, g_free);
    }
  if (g_strcmp0 (*warned, name) == 0)
    return FALSE;
  g_free (*warned);
  *warned = g_strdup (name);
  return TRUE;
}

/* Targets keyed for an end effector the body lacks move its default one: say so, once
 * for each body model and name, not on every edit of the targets. */
static void
warn_unknown_effector (KmDocument *self,
                       const char *name,
                       int         fallback)
{
  if (!warn_first_time (self, &self->warned_effector, name))
    return;
  km_document_log (self, G_LOG_LEVEL_WARNING,
                   _("The IK targets are keyed for the end effector “%s”, which this body "
                     "does not have; its joint “%s” follows them instead."),
                   name, km_skeleton_get_joint (self->skeleton, (guint) fallback)->name);
}

/* Targets whose base the body lacks, or that is not above their effector (the effector
 * itself, a joint on another branch), leave the whole chain to the solve
 * (km_ik_problem_use_track), where kinema-cli solve refuses them: say so, once, as for the
 * effector. (A base on another branch can be a Scenebuilder scene's own: its IK target's
 * frame rides on a link the chain does not pass, and its loader says so as it reads it.) */
static void
warn_unusable_base (KmDocument *self,
                    const char *name,
                    int         effector)
{
  int base = km_skeleton_find_effector (self->skeleton, name);
  const char *format;

  if (base >= 0 && (effector < 0 || km_skeleton_find_ancestor (self->skeleton, effector,
                                                               name) >= 0))
    return;
  format = self->body != NULL ? km_body_item_get_format (self->body) : NULL;
  if (base >= 0 && base != effector && g_strcmp0 (format, "SCENEBUILDER-XML") == 0)
    return;
  if (!warn_first_time (self, &self->warned_base, name))
    return;
  if (base < 0)
    km_document_log (self, G_LOG_LEVEL_WARNING,
                     /* Translators: the base of IK targets is the joint their end
                      * effector's chain starts from; the joints above it stay still */
                     _("The IK targets name the base “%s”, which this body does not have; the "
                       "whole chain from the root moves instead."),
                     name);
  else if (base == effector)
    km_document_log (self, G_LOG_LEVEL_WARNING,
                     /* Translators: the base of IK targets is the joint their end
                      * effector's chain starts from; the joints above it stay still */
                     _("The IK targets name the base “%s”, which is their end effector "
                       "itself; the whole chain from the root moves instead."),
                     name);
  else
    km_document_log (self, G_LOG_LEVEL_WARNING,
                     /* Translators: the base of IK targets is the joint their end
                      * effector's chain starts from; the joints above it stay still. The
                      * second %s is the end effector. */
                     _("The IK targets name the base “%s”, which is not above their end "
                       "effector “%s”; the whole chain from the root moves instead."),
                     name, km_skeleton_get_joint (self->skeleton, (guint) effector)->name);
}

/* The end effector of a body without IK targets, which the first keyframe names: the
 * skeleton's default (the last leaf, as for targets that name none), unless that joint
 * follows another (a linked, mimic, joint: a gripper's second finger, whose drags would
 * only open the gripper): then the joint the linked pair hangs from (their nearest common
 * ancestor, the hand), where it is not the root. */
static int
untargeted_effector (const KmSkeleton *skeleton)
{
  int leaf = km_skeleton_get_default_effector (skeleton);
  const KmJoint *joint = leaf >= 0 ? km_skeleton_get_joint (skeleton, (guint) leaf) : NULL;
  int hand;

  if (joint == NULL || joint->mimic < 0)
    return leaf;
  /* Up from the follower to the first joint above its master too (preorder: a joint's
   * subtree is the indices from it to its subtree_end). */
  for (hand = joint->parent; hand >= 0;
       hand = km_skeleton_get_joint (skeleton, (guint) hand)->parent)
    if (hand < joint->mimic
        && (guint) joint->mimic < km_skeleton_get_joint (skeleton, (guint) hand)->subtree_end)
      break;
  return hand > 0 ? hand : leaf;
}

static void
update_effector (KmDocument *self)
{
  int effector = -1;

  if (self->skeleton != NULL)
    {
      const char *name = self->targets ? km_target_track_get_effector (self->targets) : NULL;

      effector = name ? km_skeleton_find_effector (self->skeleton, name) : -1;
      if (effector < 0 && self->targets == NULL)
        effector = untargeted_effector (self->skeleton);
      else if (effector < 0)
        {
          effector = km_skeleton_get_default_effector (self->skeleton);
          if (name != NULL && effector >= 0)
            warn_unknown_effector (self, name, effector);
        }
      name = self->targets ? km_target_track_get_base (self->targets) : NULL;
      if (name != NULL)
        warn_unusable_base (self, name, effector);
    }
  self->effector = effector;
}

static void
update_frames (KmDocument *self)
{
  guint n_frames = 1;
  guint timeline_frames;
  double frame_rate = KM_TARGET_TRACK_DEFAULT_FRAME_RATE;
  double timeline_last;

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
  /* A body with no motion of its own (one just imported) shows the project's rate. */
  if (self->targets == NULL && self->animation == NULL)
    frame_rate = self->project_frame_rate > 0 ? self->project_frame_rate
                                              : self->opened_frame_rate;
  if (!(frame_rate > 0) || !isfinite (frame_rate))
    frame_rate = KM_TARGET_TRACK_DEFAULT_FRAME_RATE;
  /* In frames: the last one of the range, one past the motion's or at the minimum length,
   * but not past the last frame a keyframe can have (nor short of the motion). */
  timeline_last = MAX ((double) n_frames - 1.0 + round (TIMELINE_TAIL_SECONDS * frame_rate),
                       round (TIMELINE_MIN_SECONDS * frame_rate));
  /* The project's saved range, where it is longer (Choreonoid's TimeBar max_time). */
  timeline_last = MAX (timeline_last, round (self->project_max_time * frame_rate));
  timeline_frames = MAX (n_frames, (guint) MIN (timeline_last, KM_TARGET_TRACK_MAX_FRAME) + 1);
  timeline_frames = MAX (timeline_frames, self->held_frames);

  g_object_freeze_notify (G_OBJECT (self));
  if (self->n_frames != n_frames)
    {
      self->n_frames = n_frames;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_FRAMES]);
    }
  if (self->timeline_frames != timeline_frames)
    {
      self->timeline_frames = timeline_frames;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TIMELINE_FRAMES]);
    }
  if (self->frame_rate != frame_rate)
    {
      self->frame_rate = frame_rate;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FRAME_RATE]);
    }
  if (self->current_frame >= timeline_frames)
    km_document_set_current_frame (self, timeline_frames - 1);
  g_object_thaw_notify (G_OBJECT (self));
}

/* The same-motion tolerance of a re-solve (rad or m, per joint value): the solver stops
 * once the effector is within KM_IK_DEFAULT_POSITION_TOLERANCE (1 µm) and
 * KM_IK_DEFAULT_ORIENTATION_TOLERANCE (1 µrad) of its target, so two solves of the same
 * targets from different seeds (Solve seeds with the pose shown) leave every joint a
 * centimetre or more from the effector point within 1e-6 m / 0.01 m = 1e-4 rad of each
 * other, and a prismatic joint within 1e-6 m. The same motion solved again (up to
 * 2.3e-5 rad apart in the review's cases) is no edit; 1e-4 rad is 0.006°, and 1e-4 m a
 * tenth of a millimetre: no change the eye can see. */
#define RESOLVE_SAME_TOLERANCE 1e-4

/* Whether the body's solved animation (an IK animation item's) can have its residuals
 * measured: there are targets and an end effector to measure it against. */
static gboolean
animation_measurable (KmDocument *self)
{
  return self->animation != NULL && KM_IS_IK_ANIMATION_ITEM (self->animation_source)
         /* (measured against targets it was not solved from, it would seem to miss them) */
         && !km_ik_animation_item_get_solved_from_other_targets (
               KM_IK_ANIMATION_ITEM (self->animation_source))
         && self->targets != NULL && self->effector >= 0 && self->skeleton != NULL
         && km_animation_get_n_dof (self->animation) == km_skeleton_get_n_dof (self->skeleton);
}

/* How many frames of the solved @animation missed their target: by the time bar's
 * measure (its red marks), a position residual above the solver's tolerance, or an
 * orientation residual above it when the chain is solved for @orientation too. */
static guint
count_missed_frames (const KmAnimation *animation,
                     gboolean           orientation)
{
  guint n_missed = 0;

  for (guint f = 0; f < km_animation_get_n_frames (animation); f++)
    {
      double pos_err, rot_err;

      if (km_animation_get_residual (animation, f, &pos_err, &rot_err)
          && km_ik_residual_missed (pos_err, rot_err, orientation))
        n_missed++;
    }
  return n_missed;
}

/* A solve that left @n_missed frames short of their target is a warning, not news; so is
 * a solved animation read from a file (@measured: its residuals measured again, not
 * solved here), which the user who reopens the project would otherwise not hear of.
 * (Each message starts on its g_dngettext line: xgettext keeps a Translators: comment only
 * right above the string.) */
static void
log_missed_frames (KmDocument             *self,
                   const KmAnimationStats *stats,
                   guint                   n_missed,
                   gboolean                measured)
{
  g_autofree char *head = NULL;

  if (measured)
    /* Translators: the start of “The solved motion has 241 frames; 12 do not reach their
     * target (…).”, said of a motion read from a project, not solved just now */
    head = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "The solved motion has %u frame",
                                         "The solved motion has %u frames", stats->n_frames),
                            stats->n_frames);
  else
    /* Translators: the start of “Solved 241 frames; 12 did not reach their target (…).” */
    head = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Solved %u frame",
                                         "Solved %u frames", stats->n_frames),
                            stats->n_frames);

  if (km_document_get_solves_orientation (self))
    km_document_log (self, G_LOG_LEVEL_WARNING,
                     measured ?
                     /* Translators: “The solved motion has 241 frames” (the string before),
                      * the count of those frames that miss their target, the largest
                      * position error in mm, then the largest orientation error in degrees */
                     g_dngettext (GETTEXT_PACKAGE, "%s; %u does not reach its target "
                                  "(largest position error %.3f mm, largest orientation "
                                  "error %.3f°).",
                                  "%s; %u do not reach their target (largest position error "
                                  "%.3f mm, largest orientation error %.3f°).",
                                  n_missed) :
                     /* Translators: “Solved 241 frames” (the string before), the count of
                      * those frames whose solve missed the target, the largest position
                      * error in mm, then the largest orientation error in degrees */
                     g_dngettext (GETTEXT_PACKAGE, "%s; %u did not reach its target "
                                  "(largest position error %.3f mm, largest orientation "
                                  "error %.3f°).",
                                  "%s; %u did not reach their target (largest position error "
                                  "%.3f mm, largest orientation error %.3f°).",
                                  n_missed),
                     head, n_missed, stats->max_pos_err * 1000.0,
                     stats->max_rot_err * 180.0 / G_PI);
  else
    km_document_log (self, G_LOG_LEVEL_WARNING,
                     measured ?
                     /* Translators: “The solved motion has 241 frames” (the string before),
                      * the count of those frames that miss their target, then the largest
                      * position error in mm */
                     g_dngettext (GETTEXT_PACKAGE, "%s; %u does not reach its target "
                                  "(largest position error %.3f mm).",
                                  "%s; %u do not reach their target (largest position error "
                                  "%.3f mm).",
                                  n_missed) :
                     /* Translators: “Solved 241 frames” (the string before), the count of
                      * those frames whose solve missed the target, then the largest
                      * position error in mm */
                     g_dngettext (GETTEXT_PACKAGE, "%s; %u did not reach its target "
                                  "(largest position error %.3f mm).",
                                  "%s; %u did not reach their target (largest position error "
                                  "%.3f mm).",
                                  n_missed),
                     head, n_missed, stats->max_pos_err * 1000.0);
}

/* Messages says how many frames of a solved @animation read from a file miss their target,
 * as a solve does, once its residuals are measured. That is once per animation: they stay
 * with it (its item, the history share it), so showing it again (another body and back,
 * undo, a Solve that gives the same motion) measures and says nothing; a motion read again
 * (reopened, reloaded) is measured and said again. All frames on target: nothing to say. */
static void
log_measured_frames (KmDocument        *self,
                     const KmAnimation *animation)
{
  KmAnimationStats stats;
  guint n_missed = count_missed_frames (animation, km_document_get_solves_orientation (self));

  if (n_missed == 0)
    return;
  km_animation_get_stats (animation, &stats);
  log_missed_frames (self, &stats, n_missed, TRUE);
}

/* How many missed keyframes Messages names one by one; the rest it counts. */
#define MAX_MISSED_KEY_LINES 5

/* Messages names the keyframes of @track that @animation misses although a pose meets them
 * (km_animation_get_missed_keys()): the motion, which never jumps, came to them on another
 * branch than the pose they were set from, and neither the frame count of the solve's
 * message nor (on a chain that is not held to orientation) the time bar's residual marks
 * says so (rev17-gui finding 3). One line a keyframe, the first few of them. */
static void
log_missed_keys (KmDocument          *self,
                 const KmAnimation   *animation,
                 const KmTargetTrack *track)
{
  const KmAnimationKeyMiss *missed;
  gboolean position_only = track == NULL || km_target_track_get_position_only (track);
  guint n_missed = 0, n_unchecked = km_animation_get_unchecked_keys (animation);

  missed = km_animation_get_missed_keys (animation, &n_missed);
  for (guint i = 0; i < n_missed && i < MAX_MISSED_KEY_LINES; i++)
    if (position_only)
      km_document_log (self, G_LOG_LEVEL_WARNING,
                       /* Translators: a frame number, then the motion's position error there
                        * in mm; a branch is one of the poses that reach the same point (an
                        * elbow up or down) */
                       _("The keyframe at frame %u can be met, but the motion misses it by "
                         "%.3f mm: to stay continuous it keeps to the branch it started on; a "
                         "keyframe in between can lead it across."),
                       missed[i].frame, missed[i].pos_err * 1000.0);
    else
      km_document_log (self, G_LOG_LEVEL_WARNING,
                       /* Translators: a frame number, the motion's orientation error there
                        * in degrees, then its position error in mm; a branch is one of the
                        * poses that reach the same point (an elbow up or down) */
                       _("The keyframe at frame %u can be met, but the motion reaches it "
                         "%.3f° off (position %.3f mm off): to stay continuous it keeps to "
                         "the branch it started on; a keyframe in between can lead it across."),
                       missed[i].frame, missed[i].rot_err * 180.0 / G_PI,
                       missed[i].pos_err * 1000.0);
  if (n_missed > MAX_MISSED_KEY_LINES)
    km_document_log (self, G_LOG_LEVEL_WARNING,
                     /* Translators: after the lines that name missed keyframes, the count
                      * of the others */
                     g_dngettext (GETTEXT_PACKAGE, "… and %u more keyframe the motion misses "
                                  "although it can be met.",
                                  "… and %u more keyframes the motion misses although they "
                                  "can be met.",
                                  n_missed - MAX_MISSED_KEY_LINES),
                     n_missed - MAX_MISSED_KEY_LINES);
  if (n_unchecked > 0)
    km_document_log (self, G_LOG_LEVEL_INFO,
                     /* Translators: the count of keyframes the motion misses that were not
                      * solved on their own (the check stops after a few dozen solves) */
                     g_dngettext (GETTEXT_PACKAGE, "%u keyframe the motion misses was not "
                                  "checked for whether a pose meets it: the check stops after "
                                  "a few dozen solves.",
                                  "%u keyframes the motion misses were not checked for whether "
                                  "a pose meets them: the check stops after a few dozen solves.",
                                  n_unchecked),
                     n_unchecked);
}

/* How many frames where the motion jumps Messages names; the rest it counts. */
#define MAX_JUMP_FRAMES 5

/* Messages names the frames a solved motion jumps to (km_animation_get_jumped(): a joint
 * moves much further in that one step than around it, as where frame 0 keeps a keyed pose
 * the targets after it cannot follow on from), which the time bar marks in purple: a robot
 * playing the motion would make that step at the frame rate. One line, the first few
 * frames and how far the largest step goes. */
static void
log_jumps (KmDocument        *self,
           const KmAnimation *animation)
{
  g_autoptr(GString) frames = g_string_new (NULL);
  g_autofree char *largest_text = NULL;
  guint n_jumps = km_animation_get_n_jumps (animation), shown = 0, largest_dof = 0;
  double largest = -1.0;

  if (n_jumps == 0)
    return;
  for (guint f = 0; f < km_animation_get_n_frames (animation); f++)
    if (km_animation_get_jumped (animation, f))
      {
        guint dof;
        double step = km_animation_get_step (animation, f, &dof);

        if (step > largest)
          largest = step, largest_dof = dof;
        if (shown++ < MAX_JUMP_FRAMES)
          /* Translators: the separator between frame numbers in a list */
          g_string_append_printf (frames, "%s%u", frames->len > 0 ? _(", ") : "", f);
      }
  largest_text = km_animation_get_dof_type (animation, largest_dof) == KM_JOINT_PRISMATIC
                 /* Translators: how far a prismatic joint moves in one frame */
                 ? g_strdup_printf (_("%.3f m"), largest)
                 /* Translators: how far a joint turns in one frame */
                 : g_strdup_printf (_("%.3f rad"), largest);
  if (n_jumps > MAX_JUMP_FRAMES)
    km_document_log (self, G_LOG_LEVEL_WARNING,
                     /* Translators: a list of frame numbers, the count of the others, then
                      * a distance ("0.330 rad") */
                     g_dngettext (GETTEXT_PACKAGE, "The motion jumps at frames %s and %u "
                                  "more (a joint moves up to %s in one frame): check it before "
                                  "a robot plays it; a keyframe in between can smooth it.",
                                  "The motion jumps at frames %s and %u more (a joint moves up "
                                  "to %s in one frame): check it before a robot plays it; a "
                                  "keyframe in between can smooth it.",
                                  n_jumps - MAX_JUMP_FRAMES),
                     frames->str, n_jumps - MAX_JUMP_FRAMES, largest_text);
  else
    km_document_log (self, G_LOG_LEVEL_WARNING,
                     /* Translators: a frame number, or a list of them, then a distance
                      * ("0.330 rad") */
                     g_dngettext (GETTEXT_PACKAGE, "The motion jumps at frame %s (a joint "
                                  "moves %s in one frame): check it before a robot plays it; a "
                                  "keyframe in between can smooth it.",
                                  "The motion jumps at frames %s (a joint moves up to %s in "
                                  "one frame): check it before a robot plays it; a keyframe "
                                  "in between can smooth it.", n_jumps),
                     frames->str, largest_text);
}

/* What measure_animation's worker reads: copies and references made on the main thread. */
typedef struct
{
  GWeakRef       document;
  KmIkProblem   *problem;
  KmTargetTrack *track;
  KmAnimation   *animation;
} MeasureData;

static void
measure_data_free (gpointer data)
{
  MeasureData *measure = data;

  g_weak_ref_clear (&measure->document);
  g_clear_pointer (&measure->problem, km_ik_problem_free);
  g_clear_pointer (&measure->track, km_target_track_unref);
  g_clear_pointer (&measure->animation, km_animation_unref);
  g_free (measure);
}

/* What measure_animation's worker found: the residuals, and the keyframes missed although
 * they can be met (checked = FALSE when that check failed). */
typedef struct
{
  double             *residuals;
  gboolean           *jumped;
  KmAnimationKeyMiss *missed;
  guint               n_missed;
  guint               n_unchecked;
  gboolean            checked;
} MeasureResult;

static void
measure_result_free (gpointer data)
{
  MeasureResult *result = data;

  g_free (result->residuals);
  g_free (result->jumped);
  g_free (result->missed);
  g_free (result);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MeasureResult, measure_result_free)

static void
measure_thread (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  MeasureData *measure = task_data;
  g_autoptr(GError) error = NULL;
  MeasureResult *result;
  double *residuals = km_ik_measure_track (measure->problem, measure->track,
                                           measure->animation, cancellable);

  if (residuals == NULL)
    {
      /* (cancelled: nobody waits for that result) */
      g_task_return_pointer (task, NULL, NULL);
      return;
    }
  result = g_new0 (MeasureResult, 1);
  result->residuals = residuals;
  result->jumped = km_ik_measure_jumps (measure->problem, measure->animation);
  result->missed = km_ik_find_missed_keys (measure->problem, measure->track, measure->animation,
                                           &result->n_missed, &result->n_unchecked,
                                           cancellable, &error);
  result->checked = result->missed != NULL;
  g_task_return_pointer (task, result, measure_result_free);
}

/* Main thread: the residuals go into the animation they were measured for. It is shared
 * (its item, the history), but only its values are read off the main thread (a save or
 * an export copies it here first), and residuals are derived data: it reads as the
 * animation the solve made. */
static void
measure_done_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  GTask *task = G_TASK (result);
  MeasureData *measure = g_task_get_task_data (task);
  g_autoptr(KmDocument) self = g_weak_ref_get (&measure->document);
  g_autoptr(MeasureResult) measured = g_task_propagate_pointer (task, NULL);
  guint n_frames = km_animation_get_n_frames (measure->animation);

  if (self == NULL || measured == NULL
      || g_task_get_cancellable (task) != self->measure_cancellable)
    return;  /* superseded: another animation or body shows */
  g_clear_object (&self->measure_cancellable);
  for (guint f = 0; f < n_frames; f++)
    if (!isnan (measured->residuals[2 * (gsize) f]))
      km_animation_set_residual (measure->animation, f, measured->residuals[2 * (gsize) f],
                                 measured->residuals[2 * (gsize) f + 1]);
  for (guint f = 0; f < n_frames; f++)
    km_animation_set_jumped (measure->animation, f, measured->jumped[f]);
  if (measured->checked)
    {
      km_animation_set_missed_keys (measure->animation, measured->missed, measured->n_missed);
      km_animation_set_unchecked_keys (measure->animation, measured->n_unchecked);
    }
  if (measure->animation != self->animation)
    return;
  log_measured_frames (self, measure->animation);
  log_missed_keys (self, measure->animation, measure->track);
  log_jumps (self, measure->animation);
  /* Views hear that the motion shown has its residuals (the time bar's red marks). */
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ANIMATION]);
}

/* A solved animation read from a file, or put back by undo or a reload, has no residuals
 * (they are not saved): measure them against the targets by forward kinematics on a worker,
 * so that the time bar marks the frames that missed their target as the session that
 * solved it did. */
static void
measure_animation (KmDocument *self)
{
  g_autoptr(GTask) task = NULL;
  MeasureData *measure;

  if (self->measure_cancellable != NULL)
    g_cancellable_cancel (self->measure_cancellable);
  g_clear_object (&self->measure_cancellable);
  /* A motion written before the solve of the body's targets finished: not their solve,
   * which the user hears of once, instead of residuals against them. */
  if (self->solve_cancellable == NULL && self->animation != NULL
      && KM_IS_IK_ANIMATION_ITEM (self->animation_source)
      && km_ik_animation_item_get_solved_from_other_targets (
           KM_IK_ANIMATION_ITEM (self->animation_source))
      && self->warned_unsolved != self->animation)
    {
      g_clear_pointer (&self->warned_unsolved, km_animation_unref);
      self->warned_unsolved = km_animation_ref (self->animation);
      km_document_log (self, G_LOG_LEVEL_WARNING,
                       /* Translators: the animation item's name, then the body's */
                       _("“%s” of “%s” is not the solve of the body's targets: it was saved "
                         "before their solve finished, so it is not checked against them. "
                         "Press Solve to solve them."),
                       km_item_get_name (KM_ITEM (self->animation_source)),
                       self->body != NULL ? km_item_get_name (KM_ITEM (self->body)) : "");
    }
  if (self->solve_cancellable != NULL || !animation_measurable (self)
      || km_animation_has_residuals (self->animation))
    return;

  measure = g_new0 (MeasureData, 1);
  g_weak_ref_init (&measure->document, self);
  /* The problem start_solve() hands the solver, as far as what it aims at goes. */
  measure->problem = km_ik_problem_new (self->skeleton, self->effector);
  measure->track = km_target_track_ref (self->targets);
  measure->animation = km_animation_ref (self->animation);
  self->measure_cancellable = g_cancellable_new ();
  /* No source object: a measure in flight does not keep the document alive. */
  task = g_task_new (NULL, self->measure_cancellable, measure_done_cb, NULL);
  g_task_set_source_tag (task, measure_animation);
  g_task_set_task_data (task, measure, measure_data_free);
  g_task_run_in_thread (task, measure_thread);
}

/* Shows @animation, the one @source gives (NULL for a solve's streamed frames, or for
 * nothing). The two change together: a source kept beside another animation (one of a
 * project since replaced, of another body) would still mark its pose sequence's key poses
 * on the time bar and move the root. */
static void
set_animation (KmDocument        *self,
               KmAnimationSource *source,
               KmAnimation       *animation)
{
  gboolean source_changed;

  g_return_if_fail (source == NULL || km_animation_source_get_animation (source) == animation);

  source_changed = g_set_object (&self->animation_source, source);
  if (self->animation == animation)
    {
      if (source_changed)
        {
          measure_animation (self);
          pose_from_animation (self);
          g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ANIMATION]);
        }
      return;
    }

  g_clear_pointer (&self->animation, km_animation_unref);
  self->animation = animation ? km_animation_ref (animation) : NULL;
  measure_animation (self);
  update_frames (self);
  pose_from_animation (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ANIMATION]);
}

/* The body's joint state, or the rest pose (zero, moved into the limits) without a body. */
static void
pose_from_body (KmDocument *self)
{
  guint n_dof = self->skeleton ? km_skeleton_get_n_dof (self->skeleton) : 0;
  guint n = 0;
  const double *q = self->body ? km_body_item_get_joint_state (self->body, &n) : NULL;

  /* Another body (or none): an unkeyed pose of the one before is not this one's. */
  set_pose_unkeyed (self, FALSE);
  if (self->skeleton == NULL)
    return;
  self->has_root_pose = FALSE;
  if (n_dof > 0)
    {
      if (q != NULL && n == n_dof)
        memcpy (self->pose, q, n_dof * sizeof (double));
      else
        {
          memset (self->pose, 0, n_dof * sizeof (double));
          km_skeleton_clamp (self->skeleton, self->pose);
        }
    }
  /* Also without movable joints (a floor, a scene of fixed parts): self->world starts
   * zeroed, which would draw every shape at the origin with a zero rotation, that is not
   * at all. */
  update_world (self);
}

static void
set_skeleton (KmDocument *self,
              KmSkeleton *skeleton)
{
  guint n_dof = skeleton ? km_skeleton_get_n_dof (skeleton) : 0;

  km_document_cancel_solve (self);
  g_clear_pointer (&self->skeleton, km_skeleton_unref);
  self->skeleton = skeleton ? km_skeleton_ref (skeleton) : NULL;

  g_free (self->pose);
  self->pose = g_new0 (double, MAX (n_dof, 1));
  g_free (self->world);
  self->world = g_new0 (KmTransform, skeleton ? MAX (km_skeleton_get_n_joints (skeleton), 1) : 1);

  self->selected_joint = -1;
  update_effector (self);
  set_animation (self, NULL, NULL);
  pose_from_body (self);
  if (skeleton == NULL)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_POSE]);

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

static gboolean
is_attached (KmDocument *self,
             KmItem     *item)
{
  KmItem *root = km_project_get_root_item (self->project);

  return item != NULL && root != NULL && (item == root || km_item_is_ancestor_of (root, item));
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

/* The current body: the project's, while it is in the tree and has a model, else the
 * first body that has one. */
static KmBodyItem *
pick_body (KmDocument *self)
{
  KmItem *current = km_project_get_current_body (self->project);
  KmItem *root = km_project_get_root_item (self->project);

  if (KM_IS_BODY_ITEM (current) && is_attached (self, current)
      && km_body_item_get_skeleton (KM_BODY_ITEM (current)) != NULL)
    return KM_BODY_ITEM (current);
  return root ? find_body (root) : NULL;
}

/* Pose sequences are sampled at the project's time bar frame rate (Choreonoid's TimeBar
 * `frameRate`), else at their default. */
static void
pose_seq_built_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(KmDocument) self = user_data;
  g_autoptr(GError) error = NULL;

  /* A failure is the item's problem, shown in the tree. */
  km_pose_seq_item_build_finish (KM_POSE_SEQ_ITEM (source), result, &error);
  if (self->project != NULL)
    sync_from_project (self);
}

/* The pose sequences and body motions below @item (not below another body) at
 * @frame_rate (0: pose sequences at their default, body motions at their file's own), the
 * pose sequences' animations built on a worker thread where they have none:
 * sync_from_project runs again when one is ready. */
static void
prepare_pose_seqs (KmDocument *self,
                   KmItem     *item,
                   double      frame_rate)
{
  for (guint i = 0; i < km_item_get_n_children (item); i++)
    {
      KmItem *child = km_item_get_child (item, i);

      if (KM_IS_POSE_SEQ_ITEM (child))
        {
          KmPoseSeqItem *pose_seq = KM_POSE_SEQ_ITEM (child);

          km_pose_seq_item_set_frame_rate (pose_seq, frame_rate > 0
                                                     ? frame_rate
                                                     : KM_POSE_SEQ_ITEM_DEFAULT_FRAME_RATE);
          if (km_pose_seq_item_get_animation (pose_seq) == NULL
              && km_pose_seq_item_get_pose_seq (pose_seq) != NULL
              && !km_pose_seq_item_get_building (pose_seq))
            km_pose_seq_item_build_async (pose_seq, NULL, pose_seq_built_cb,
                                          g_object_ref (self));
        }
      /* A body motion (.seq) resamples its own frame rate to the time bar's. */
      if (KM_IS_BODY_MOTION_ITEM (child))
        km_body_motion_item_set_frame_rate (KM_BODY_MOTION_ITEM (child), frame_rate);
      if (!KM_IS_BODY_ITEM (child))
        prepare_pose_seqs (self, child, frame_rate);
    }
}

/* Whether a pose sequence below @item (not below another body) is being built
 * (prepare_pose_seqs). */
static gboolean
pose_seq_building (KmItem *item)
{
  for (guint i = 0; i < km_item_get_n_children (item); i++)
    {
      KmItem *child = km_item_get_child (item, i);

      if (KM_IS_POSE_SEQ_ITEM (child) && km_pose_seq_item_get_building (KM_POSE_SEQ_ITEM (child)))
        return TRUE;
      if (!KM_IS_BODY_ITEM (child) && pose_seq_building (child))
        return TRUE;
    }
  return FALSE;
}

/* Whether @item lies below @body and no other body in between. */
static gboolean
item_is_of_body (KmItem     *item,
                 KmBodyItem *body)
{
  KmItem *nearest = km_item_find_ancestor_by_type (item, KM_TYPE_BODY_ITEM);

  return nearest != NULL && nearest == (KmItem *) body;
}

/* The animation source that plays for @body: one selected in the item tree (as in
 * Choreonoid, picking a pose sequence plays it), else the body's own solved IK animation,
 * else the first source below it in tree order (a pose sequence below a controller
 * item, …). */
static KmAnimationSource *
pick_animation_source (KmDocument *self,
                       KmBodyItem *body)
{
  GListModel *selection = km_project_get_selection (self->project);
  KmItem *solved;

  for (guint i = 0; i < g_list_model_get_n_items (selection); i++)
    {
      g_autoptr(KmItem) item = g_list_model_get_item (selection, i);

      if (KM_IS_ANIMATION_SOURCE (item) && item_is_of_body (item, body)
          && km_animation_source_get_animation (KM_ANIMATION_SOURCE (item)) != NULL)
        return KM_ANIMATION_SOURCE (item);
    }
  solved = km_item_find_child_by_type (KM_ITEM (body), KM_TYPE_IK_ANIMATION_ITEM);
  if (solved != NULL && km_animation_source_get_animation (KM_ANIMATION_SOURCE (solved)) != NULL)
    return KM_ANIMATION_SOURCE (solved);
  return km_animation_source_find (KM_ITEM (body));
}

/* The frame rate the time bar shows @body's motions at (update_frames): its IK targets'
 * where it has some, else the project's time bar rate (as read: project_frame_rate), else
 * 0 (the motion's own). A motion sampled at another rate than the time bar's would play at
 * the wrong speed. */
static double
time_bar_frame_rate (KmDocument *self,
                     KmBodyItem *body)
{
  KmItem *targets_item = km_item_find_child_by_type (KM_ITEM (body), KM_TYPE_IK_TARGETS_ITEM);
  KmTargetTrack *targets = targets_item != NULL
                           ? km_ik_targets_item_get_track (KM_IK_TARGETS_ITEM (targets_item))
                           : NULL;
  double rate = 0;

  if (targets != NULL)
    rate = km_target_track_get_frame_rate (targets);
  else
    rate = self->project_frame_rate;
  return rate > 0 && isfinite (rate) ? rate : 0;
}

/* The animation shown for @body (pick_animation_source), when it fits its model. */
static KmAnimation *
body_animation (KmDocument         *self,
                KmBodyItem         *body,
                KmAnimationSource **source_out)
{
  KmAnimationSource *source;
  KmAnimation *animation;

  *source_out = NULL;
  prepare_pose_seqs (self, KM_ITEM (body), time_bar_frame_rate (self, body));
  source = pick_animation_source (self, body);
  if (source == NULL)
    return NULL;
  animation = km_animation_source_get_animation (source);
  if (animation == NULL || km_body_item_get_skeleton (body) == NULL
      || km_animation_get_n_dof (animation)
         != km_skeleton_get_n_dof (km_body_item_get_skeleton (body)))
    return NULL;
  *source_out = source;
  return animation;
}

/*
 * Reloading a body's targets item swaps it for a fresh one read from its file (the item
 * tree's Reload step): the fresh targets are solved, as a keyframe edit's are, and the
 * step's undo puts back the motion of before, its redo the solved one (or solves again
 * when that solve never finished). What the swap needs is kept on the fresh item. So for
 * the body itself read again with another skeleton: its motion, solved for the model of
 * before, is solved again from its targets, as a skeleton edit's is.
 */
#define REREAD_KEY "km-targets-reread"

typedef struct
{
  KmItem      *replaced;            /* the item the fresh one replaces */
  gboolean     taken;               /* the swap happened: the fields below are set */
  KmItem      *animation_item;      /* the body's first IK animation item, or NULL */
  KmAnimation *animation_before;
  KmAnimation *animation_after;     /* the solve's result; NULL until it finished */
} TargetsReread;

static void
targets_reread_free (gpointer data)
{
  TargetsReread *reread = data;

  g_clear_object (&reread->replaced);
  g_clear_object (&reread->animation_item);
  g_clear_pointer (&reread->animation_before, km_animation_unref);
  g_clear_pointer (&reread->animation_after, km_animation_unref);
  g_free (reread);
}

/* Called by km_document_reread_item: @fresh was read again from @item's file. */
void
_km_document_reread (KmDocument *self,
                     KmItem     *item,
                     KmItem     *fresh)
{
  TargetsReread *reread;
  KmSkeleton *old_skeleton, *new_skeleton;

  if (KM_IS_BODY_ITEM (fresh))
    {
      /* (the same model read again: the motion still fits it) */
      old_skeleton = KM_IS_BODY_ITEM (item) ? km_body_item_get_skeleton (KM_BODY_ITEM (item))
                                            : NULL;
      new_skeleton = km_body_item_get_skeleton (KM_BODY_ITEM (fresh));
      if (old_skeleton == NULL || new_skeleton == NULL
          || km_skeleton_equal (old_skeleton, new_skeleton, 0.0))
        return;
    }
  else if (!KM_IS_IK_TARGETS_ITEM (fresh))
    return;
  reread = g_new0 (TargetsReread, 1);
  reread->replaced = g_object_ref (item);
  g_object_set_data_full (G_OBJECT (fresh), REREAD_KEY, reread, targets_reread_free);
}

static void store_animation (KmDocument  *self,
                             KmBodyItem  *body,
                             KmAnimation *animation,
                             gboolean     recorded);

static void
reread_solved_cb (KmDocument  *self,
                  KmItem      *body,
                  KmAnimation *animation,
                  gpointer     user_data)
{
  TargetsReread *reread = g_object_get_data (G_OBJECT (user_data), REREAD_KEY);

  if (reread != NULL)
    {
      g_clear_pointer (&reread->animation_after, km_animation_unref);
      reread->animation_after = km_animation_ref (animation);
    }
  /* Saved while it solved: the file has the motion from before. */
  if (!self->modified)
    km_document_set_modified (self, TRUE);
  store_animation (self, KM_BODY_ITEM (body), animation, FALSE);
}

/* @body's targets item @from became @to, or the body @from became @to (@body): a Reload's
 * swap (solves @to, or puts its solved motion back), or its undo (puts back the motion of
 * before). Returns whether the body's animation item changed. */
static gboolean
reread_swapped (KmDocument *self,
                KmBodyItem *body,
                KmItem     *from,
                KmItem     *to)
{
  TargetsReread *reread;

  if (to != NULL && (reread = g_object_get_data (G_OBJECT (to), REREAD_KEY)) != NULL
      && reread->replaced == from)
    {
      if (!reread->taken)
        {
          KmItem *item = km_item_find_child_by_type (KM_ITEM (body), KM_TYPE_IK_ANIMATION_ITEM);

          reread->taken = TRUE;
          if (item != NULL)
            {
              reread->animation_item = g_object_ref (item);
              reread->animation_before = km_ik_animation_item_get_animation (KM_IK_ANIMATION_ITEM (item));
              if (reread->animation_before != NULL)
                km_animation_ref (reread->animation_before);
            }
        }
      if (reread->animation_after != NULL && reread->animation_item != NULL
          && km_item_get_parent (reread->animation_item) == KM_ITEM (body))
        {
          km_ik_animation_item_set_animation (KM_IK_ANIMATION_ITEM (reread->animation_item),
                                              reread->animation_after);
          return TRUE;
        }
      km_document_solve_completing (self, reread_solved_cb, g_object_ref (to), g_object_unref);
      return FALSE;
    }
  if (from != NULL && (reread = g_object_get_data (G_OBJECT (from), REREAD_KEY)) != NULL
      && reread->replaced == to && reread->taken && reread->animation_item != NULL
      && km_item_get_parent (reread->animation_item) == KM_ITEM (body))
    {
      km_ik_animation_item_set_animation (KM_IK_ANIMATION_ITEM (reread->animation_item),
                                          reread->animation_before);
      return TRUE;
    }
  return FALSE;
}

static void
sync_from_project (KmDocument *self)
{
  KmBodyItem *body = pick_body (self);
  KmSkeleton *skeleton = body ? km_body_item_get_skeleton (body) : NULL;
  KmItem *targets_item = body ? km_item_find_child_by_type (KM_ITEM (body),
                                                            KM_TYPE_IK_TARGETS_ITEM)
                               : NULL;
  KmTargetTrack *targets = NULL;
  KmAnimationSource *source = NULL;
  KmAnimation *animation = body ? body_animation (self, body, &source) : NULL;
  /* (the body read again from its file is the same body: Reload, its undo or redo) */
  gboolean same_body = _km_document_same_item (KM_ITEM (self->body), KM_ITEM (body));
  g_autoptr(KmBodyItem) previous = self->body != NULL ? g_object_ref (self->body) : NULL;
  g_autoptr(KmBodyItem) stopped = NULL;
  gboolean body_changed, targets_changed;

  if (targets_item != NULL)
    targets = km_ik_targets_item_get_track (KM_IK_TARGETS_ITEM (targets_item));

  g_object_freeze_notify (G_OBJECT (self));
  body_changed = g_set_object (&self->body, body);
  if (km_project_get_current_body (self->project) != (KmItem *) body)
    km_project_set_current_body (self->project, KM_ITEM (body));
  /* The same body with another model (a skeleton edit, a reload of its file, their undo
   * or redo), or its pose sequence read again: its motion, built for the model before,
   * goes and comes back built anew (a pose sequence's on a worker thread). Meanwhile the
   * time bar keeps its range, and so the current frame, which would otherwise fall back
   * into the range of no motion. */
  if (!same_body)
    self->held_frames = 0;
  else if ((skeleton != self->skeleton && skeleton != NULL && self->skeleton != NULL)
           || (animation == NULL && self->animation != NULL && body != NULL
               && pose_seq_building (KM_ITEM (body))))
    self->held_frames = MAX (self->held_frames, self->timeline_frames);
  targets_changed = targets != self->targets;
  /* A solve of the body shown before stops with it (below): not silently. */
  stopped = !same_body && previous != NULL && self->solve_body == previous
            && self->solve_cancellable != NULL ? g_object_ref (previous) : NULL;
  if (skeleton != self->skeleton)
    {
      /* The targets that come with the model first (a skeleton edit's, its undo's: those
       * of a renamed effector name its new name), so that its effector is found by the
       * targets made for it, not by those before, which name a joint it may lack. */
      if (targets_changed)
        {
          g_clear_pointer (&self->targets, km_target_track_unref);
          self->targets = targets != NULL ? km_target_track_ref (targets) : NULL;
        }
      set_skeleton (self, skeleton);
    }
  else if (body_changed)
    pose_from_body (self);
  if (targets_changed)
    set_targets (self, targets);
  /* The body's targets item read again from its file (Reload), or back (its undo). */
  if (!body_changed && body != NULL && targets_item != self->targets_item
      && reread_swapped (self, body, self->targets_item, targets_item))
    animation = body_animation (self, body, &source);
  /* The body read again with another skeleton (Reload), or back (its undo). */
  if (body_changed && same_body && body != NULL && previous != NULL
      && reread_swapped (self, body, KM_ITEM (previous), KM_ITEM (body)))
    animation = body_animation (self, body, &source);
  g_set_object (&self->targets_item, targets_item);
  if (stopped != NULL && self->solve_cancellable == NULL)
    km_document_log (self, G_LOG_LEVEL_WARNING,
                     /* Translators: the body item's name */
                     _("The solve of “%s” was stopped: another body is shown now. Its "
                       "motion is as it was before the solve; show that body and press "
                       "Solve to solve it."),
                     km_item_get_name (KM_ITEM (stopped)));
  /* While a solve runs, its frames are what shows (and no source gives them). */
  if (self->solve_cancellable == NULL)
    set_animation (self, source, animation);
  /* The motion is back (or will not come): the range is its own again. */
  if (self->held_frames > 0 && (body == NULL || !pose_seq_building (KM_ITEM (body))))
    {
      self->held_frames = 0;
      update_frames (self);
    }
  g_object_thaw_notify (G_OBJECT (self));
}

static void
project_notify_modified_cb (KmDocument *self)
{
  update_modified (self);
}

static void
project_notify_can_undo_cb (KmDocument *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CAN_UNDO]);
}

static void
project_notify_can_redo_cb (KmDocument *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CAN_REDO]);
}

/* What became of each body handler the body's model names (attached, not found, refused,
 * failed), for the message view. */
static void
log_body_handlers (KmDocument *self,
                   KmBodyItem *body)
{
  KmBodyHandlerSet *set = km_body_item_get_body_handlers (body);
  guint n = set ? km_body_handler_set_get_n_reports (set) : 0;

  for (guint i = 0; i < n; i++)
    {
      const KmBodyHandlerReport *report = km_body_handler_set_get_report (set, i);

      /* A handler that did not attach is said where the model names it, when known. */
      if (report->status != KM_BODY_HANDLER_ATTACHED && report->location != NULL)
        km_document_log (self, G_LOG_LEVEL_WARNING, "%s: %s", report->location,
                         report->message);
      else
        km_document_log (self,
                         report->status == KM_BODY_HANDLER_ATTACHED ? G_LOG_LEVEL_INFO
                                                                    : G_LOG_LEVEL_WARNING,
                         "%s", report->message);
    }
}

static void
log_item_body_handlers (gpointer item,
                        gpointer user_data)
{
  if (KM_IS_BODY_ITEM (item))
    log_body_handlers (user_data, item);
}

/* How far a saved joint value may be from the motion's and still be the motion's: the
 * file keeps degrees to about 1e-12. */
#define SAVED_POSE_TOLERANCE 1e-9

/* A project just set: at the time it was saved at (the frame km_layout_state_restore goes
 * to, so that the window's restore changes nothing), showing what it was saved showing,
 * with the joint it was saved with selected (km_body_item_get_selected_joint). That
 * is the motion there, unless the current body was saved with a pose edited there and not
 * keyed (km_body_item_get_pose_unkeyed) that the motion does not give: that pose shows
 * again, unkeyed, as it did before the save. */
static void
show_saved_state (KmDocument *self)
{
  KmTimeBarState time_bar;
  const double *motion;
  const double *q;
  guint n = 0;
  gboolean differs = FALSE;

  if (km_layout_state_get_time_bar (self->project, &time_bar) && time_bar.current_time >= 0.0)
    km_document_set_current_time (self, time_bar.current_time);
  /* The joint it was saved with selected (a name no joint has selects none). */
  if (self->body != NULL && self->skeleton != NULL
      && km_body_item_get_selected_joint (self->body) != NULL)
    {
      int joint = km_skeleton_find_joint (self->skeleton,
                                          km_body_item_get_selected_joint (self->body));

      if (joint >= 0)
        km_document_set_selected_joint (self, joint);
    }
  if (self->body == NULL || self->skeleton == NULL
      || !km_body_item_get_pose_unkeyed (self->body))
    return;
  q = km_body_item_get_joint_state (self->body, &n);
  motion = KM_IS_MOTION_FILE_ITEM (self->animation_source) ? NULL : motion_pose (self);
  if (q != NULL && n == km_skeleton_get_n_dof (self->skeleton))
    for (guint i = 0; motion != NULL && i < n; i++)
      differs |= fabs (motion[i] - q[i]) > SAVED_POSE_TOLERANCE;
  if (!differs)
    {
      /* The motion gives it (or there is none to key it in): nothing is unkeyed now. */
      km_body_item_set_pose_unkeyed (self->body, FALSE);
      return;
    }
  memcpy (self->pose, q, n * sizeof (double));
  update_world (self);
  set_pose_unkeyed (self, TRUE);
}

/* Replaces the project (no undo: a new history begins) and shows its current body. */
static void
set_project (KmDocument *self,
             KmProject  *project,
             GFile      *file)
{
  km_document_cancel_solve (self);
  if (self->project != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->project, self);
      g_signal_handlers_disconnect_by_data (km_project_get_selection (self->project), self);
      /* Commands point at this document: none may run once the project is not ours. */
      km_project_clear_history (self->project);
    }
  g_set_object (&self->project, project);
  g_signal_connect_object (project, "notify::modified",
                           G_CALLBACK (project_notify_modified_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (project, "notify::can-undo",
                           G_CALLBACK (project_notify_can_undo_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (project, "notify::can-redo",
                           G_CALLBACK (project_notify_can_redo_cb), self, G_CONNECT_SWAPPED);
  /* A pose sequence or animation picked in the item tree is the one that plays. */
  g_signal_connect_object (km_project_get_selection (project), "items-changed",
                           G_CALLBACK (sync_from_project), self, G_CONNECT_SWAPPED);
  {
    KmTimeBarState time_bar;

    self->project_frame_rate = 0;
    self->project_max_time = 0;
    self->project_min_time = 0;
    if (km_layout_state_get_time_bar (project, &time_bar))
      {
        if (time_bar.min_time > 0 && isfinite (time_bar.min_time))
          self->project_min_time = time_bar.min_time;
        if (time_bar.frame_rate > 0 && isfinite (time_bar.frame_rate))
          self->project_frame_rate = time_bar.frame_rate;
        if (time_bar.max_time > 0 && isfinite (time_bar.max_time))
          self->project_max_time = time_bar.max_time;
      }
  }

  g_object_freeze_notify (G_OBJECT (self));
  g_clear_object (&self->body);
  self->current_frame = 0;
  self->held_frames = 0;
  set_skeleton (self, NULL);
  set_targets (self, NULL);
  self->opened_frame_rate = 0;
  sync_from_project (self);
  self->opened_frame_rate = self->frame_rate;
  show_saved_state (self);
  set_file (self, file);
  /* The caller tells what the file on disk was when it was read. */
  g_clear_pointer (&self->file_identity, g_free);
  self->forced_modified = FALSE;
  update_modified (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROJECT]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CAN_UNDO]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CAN_REDO]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CURRENT_FRAME]);
  g_object_thaw_notify (G_OBJECT (self));

  km_item_foreach (km_project_get_root_item (project), log_item_body_handlers, self);
  if (self->animation == NULL)
    auto_solve (self);
}

/* Commands. Each holds the document as a plain pointer: set_project and dispose clear the
 * project's history before the document lets go of it, so no command outlives it. */

typedef struct
{
  KmDocument *document;
  KmBodyItem *body;
  double     *before;       /* the body's joint state before the edit */
  double     *shown_before; /* the pose shown before (it may come from the animation) */
  double     *after;
  guint       n_dof;
  guint       dof;
  guint       frame;        /* the current frame when it was made */
} JointEdit;

static void
joint_edit_free (gpointer data)
{
  JointEdit *edit = data;

  g_clear_object (&edit->body);
  g_free (edit->before);
  g_free (edit->shown_before);
  g_free (edit->after);
  g_free (edit);
}

/* Shows @shown, a pose of the current body edited at @edit_frame, at that frame: unkeyed
 * where it differs from the motion there. */
static void
show_edited_pose (KmDocument   *self,
                  guint         edit_frame,
                  const double *shown)
{
  guint frame = MIN (edit_frame, self->timeline_frames - 1);

  /* Undone or redone after the frame moved on, it shows there (not at a frame whose motion
   * it is not), and so the user sees what came back. The pose left behind is not reported
   * as replaced: undo and redo moved away from it, and redo brings it back. */
  if (self->current_frame != frame)
    {
      set_pose_unkeyed (self, FALSE);
      self->current_frame = frame;
      pose_from_animation (self);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CURRENT_FRAME]);
    }
  memcpy (self->pose, shown, km_skeleton_get_n_dof (self->skeleton) * sizeof (double));
  update_world (self);
  update_pose_unkeyed (self);
}

static void
joint_edit_apply (JointEdit    *edit,
                  const double *q,
                  const double *shown)
{
  KmDocument *self = edit->document;

  km_body_item_set_joint_state (edit->body, q, edit->n_dof);
  sync_from_project (self);
  /* @shown is the pose at the edit's frame. */
  if (self->body == edit->body && self->skeleton != NULL
      && km_skeleton_get_n_dof (self->skeleton) == edit->n_dof)
    show_edited_pose (self, edit->frame, shown);
}

static void
joint_edit_redo (gpointer data)
{
  JointEdit *edit = data;

  joint_edit_apply (edit, edit->after, edit->after);
}

static void
joint_edit_undo (gpointer data)
{
  JointEdit *edit = data;

  joint_edit_apply (edit, edit->before, edit->shown_before);
}

/* An edit of the current body's joints from the pose shown now, at the current frame;
 * @after starts as that pose (the caller changes it). */
static JointEdit *
joint_edit_new (KmDocument *self,
                guint       dof)
{
  guint n_dof = km_skeleton_get_n_dof (self->skeleton);
  JointEdit *edit = g_new0 (JointEdit, 1);

  edit->document = self;
  edit->body = g_object_ref (self->body);
  edit->n_dof = n_dof;
  edit->dof = dof;
  edit->frame = self->current_frame;
  edit->before = g_memdup2 (km_body_item_get_joint_state (self->body, NULL),
                            n_dof * sizeof (double));
  edit->shown_before = g_memdup2 (self->pose, n_dof * sizeof (double));
  edit->after = g_memdup2 (self->pose, n_dof * sizeof (double));
  return edit;
}

/* A drag: consecutive joint values of one body at one frame are one step. */
static gboolean
joint_edit_merge (gpointer data,
                  gpointer next_data)
{
  JointEdit *edit = data;
  JointEdit *next = next_data;

  if (edit->body != next->body || edit->n_dof != next->n_dof || edit->frame != next->frame)
    return FALSE;
  memcpy (edit->after, next->after, edit->n_dof * sizeof (double));
  return TRUE;
}

/* A solve's result stored as a step of its own (km_document_solve): the animation item's
 * animation before and after. */
typedef struct
{
  KmDocument  *document;
  KmItem      *item;       /* KmIkAnimationItem */
  KmAnimation *before;     /* nullable */
  KmAnimation *after;
} TrackEdit;

static void
track_edit_free (gpointer data)
{
  TrackEdit *edit = data;

  g_clear_pointer (&edit->before, km_animation_unref);
  g_clear_pointer (&edit->after, km_animation_unref);
  g_clear_object (&edit->item);
  g_free (edit);
}

static void
track_edit_redo (gpointer data)
{
  TrackEdit *edit = data;

  km_ik_animation_item_set_animation (KM_IK_ANIMATION_ITEM (edit->item), edit->after);
  sync_from_project (edit->document);
}

static void
track_edit_undo (gpointer data)
{
  TrackEdit *edit = data;

  km_ik_animation_item_set_animation (KM_IK_ANIMATION_ITEM (edit->item), edit->before);
  sync_from_project (edit->document);
}

typedef struct _TargetsLink TargetsLink;

/*
 * A targets edit (a keyframe set, moved or deleted) and the re-solve it starts are one
 * step, as a skeleton edit and its re-solve are (km-document-skeleton.c): the solve its
 * redo starts hands its animation to the step (km_document_solve_completing) instead of
 * storing it beside the history. Undo puts back the targets and the animation of before,
 * removing the items the step added, and solves nothing: undoing the first keyframe of an
 * imported model leaves it as imported. Redo puts back the solved animation, or solves
 * again when the first solve never finished (undo or a newer edit cancelled it).
 *
 * Undoing onto targets whose solve never finished (the next keyframe came first, or the
 * user cancelled it) would show them without their motion: that undo solves them, for the
 * step that made them when there is one (it then owns the result, and undoing it removes
 * the animation item it adds), and the steps above it take the result as their motion of
 * before. A body has one animation item: a step whose solve would add one while another
 * is there (added meanwhile by an earlier step's solve) takes that one instead.
 */
typedef struct
{
  KmDocument    *document;
  KmBodyItem    *body;
  KmItem        *targets_item;
  gboolean       targets_created;    /* the step adds targets_item */
  KmTargetTrack *track_before;       /* NULL when targets_created */
  /* The item as it was, file reference included (put back by undo); NULL when
   * targets_created */
  KmIkTargetsItemState *state_before;
  KmTargetTrack *track_after;
  KmItem        *animation_item;     /* the body's first IK animation item, or NULL until
                                      * the step's solve adds one */
  gboolean       animation_created;  /* the step's solve added animation_item */
  KmAnimation   *animation_before;   /* what animation_item held before the step */
  KmAnimation   *animation_after;    /* the solve's result; NULL until it finished */
  gboolean       before_unsolved;    /* the solve of track_before never finished, so
                                      * animation_before is not its motion */
  TargetsLink   *link;               /* the running solve that completes this step */
  /* The pose the step keys (Set Keyframe), unkeyed or where no motion showed, shown again
   * by its undo: the pose shown and its frame when it was made; NULL for other steps. */
  double        *keyed_pose;
  guint          keyed_n_dof;
  guint          keyed_frame;
} TargetsEdit;

/* Shared by a step and the solve that completes it; whichever goes first unlinks. */
struct _TargetsLink
{
  TargetsEdit *edit;
};

static void
targets_edit_free (gpointer data)
{
  TargetsEdit *edit = data;

  g_ptr_array_remove_fast (edit->document->targets_edits, edit);
  if (edit->link != NULL)
    edit->link->edit = NULL;
  g_clear_object (&edit->body);
  g_clear_object (&edit->targets_item);
  g_clear_pointer (&edit->track_before, km_target_track_unref);
  g_clear_pointer (&edit->state_before, km_ik_targets_item_state_free);
  g_clear_pointer (&edit->track_after, km_target_track_unref);
  g_clear_object (&edit->animation_item);
  g_clear_pointer (&edit->animation_before, km_animation_unref);
  g_clear_pointer (&edit->animation_after, km_animation_unref);
  g_free (edit->keyed_pose);
  g_free (edit);
}

static void
targets_link_free (gpointer data)
{
  TargetsLink *link = data;

  if (link->edit != NULL)
    link->edit->link = NULL;
  g_free (link);
}

static void store_animation (KmDocument  *self,
                             KmBodyItem  *body,
                             KmAnimation *animation,
                             gboolean     recorded);

/* Makes the step's animation item the body's: the one it added, put back, or the item the
 * body has now (an earlier step's solve may have added one since this step added its
 * own), whose animation is then the step's motion of before; a new one when there is
 * none. Called with the body in the step's state of after, its motion still that of
 * before. */
static void
targets_edit_claim_animation_item (TargetsEdit *edit)
{
  KmItem *body = KM_ITEM (edit->body);
  KmItem *existing;

  if (edit->animation_item != NULL
      && (!edit->animation_created || km_item_get_parent (edit->animation_item) != NULL))
    return;
  existing = km_item_find_child_by_type (body, KM_TYPE_IK_ANIMATION_ITEM);
  if (existing != NULL)
    {
      g_set_object (&edit->animation_item, existing);
      edit->animation_created = FALSE;
      g_clear_pointer (&edit->animation_before, km_animation_unref);
      edit->animation_before = km_ik_animation_item_get_animation (KM_IK_ANIMATION_ITEM (existing));
      if (edit->animation_before != NULL)
        km_animation_ref (edit->animation_before);
      return;
    }
  if (edit->animation_item == NULL)
    {
      edit->animation_item = km_ik_animation_item_new ();
      km_item_set_name (edit->animation_item, _("Solved Animation"));
      km_item_set_checked (edit->animation_item, TRUE);
      edit->animation_created = TRUE;
    }
  km_item_append_child (body, edit->animation_item);
}

/* @animation is now the motion of @track on @body: the steps that undo onto @track (whose
 * solve had not finished when they were made) take it as their motion of before. */
static void
targets_edits_solved_before (KmDocument    *self,
                             KmItem        *body,
                             KmTargetTrack *track,
                             KmAnimation   *animation)
{
  for (guint i = 0; i < self->targets_edits->len; i++)
    {
      TargetsEdit *edit = g_ptr_array_index (self->targets_edits, i);

      if (KM_ITEM (edit->body) != body || !edit->before_unsolved || edit->track_before != track)
        continue;
      edit->before_unsolved = FALSE;
      if (edit->animation_item != NULL && !edit->animation_created)
        {
          g_clear_pointer (&edit->animation_before, km_animation_unref);
          edit->animation_before = km_animation_ref (animation);
        }
    }
}

/* The completing solve finished: its animation becomes the body's motion and the step's. */
static void
targets_solved_cb (KmDocument  *self,
                   KmItem      *body,
                   KmAnimation *animation,
                   gpointer     user_data)
{
  TargetsLink *link = user_data;
  TargetsEdit *edit = link->edit;

  if (edit == NULL || body != KM_ITEM (edit->body))
    {
      /* The step is gone (its history was dropped): keep the motion all the same. */
      store_animation (self, KM_BODY_ITEM (body), animation, FALSE);
      return;
    }

  targets_edit_claim_animation_item (edit);
  g_clear_pointer (&edit->animation_after, km_animation_unref);
  edit->animation_after = km_animation_ref (animation);
  km_ik_animation_item_set_animation (KM_IK_ANIMATION_ITEM (edit->animation_item), animation);
  targets_edits_solved_before (self, body, edit->track_after, animation);
  /* Saved while it solved: the file has the motion from before. */
  if (!self->modified)
    km_document_set_modified (self, TRUE);
  sync_from_project (self);
}

/* The solve an undo started for targets no step of the history made (a cancelled solve of
 * the opened ones) finished: it is their motion, silently, as the opening solve's is. */
static void
targets_before_solved_cb (KmDocument  *self,
                          KmItem      *body,
                          KmAnimation *animation,
                          gpointer     user_data)
{
  store_animation (self, KM_BODY_ITEM (body), animation, FALSE);
  if (self->targets != NULL)
    targets_edits_solved_before (self, body, self->targets, animation);
}

/* Solves @edit->track_after for @edit (as its redo does when its solve never finished). */
static void
targets_edit_solve (TargetsEdit         *edit,
                    KmDocumentSolvedFunc done)
{
  TargetsLink *link = g_new0 (TargetsLink, 1);

  link->edit = edit;
  edit->link = link;
  km_document_solve_completing (edit->document, done, link, targets_link_free);
}

/* The end effector's point @track (nullable) is for, at the pose shown: the effector joint's
 * world transform with its origin moved to the track's effector offset (a tool point). */
static void
effector_point_for (KmDocument          *self,
                    const KmTargetTrack *track,
                    KmTransform         *point)
{
  *point = self->world[self->effector];
  if (track != NULL && km_target_track_has_effector_offset (track))
    point->pos = km_transform_apply (&self->world[self->effector],
                                     km_target_track_get_effector_offset (track));
}

/* Whether @track keys the pose shown now: it has a keyframe at the current frame where the
 * end effector's point is (what Set Keyframe recorded there). */
static gboolean
track_keys_shown_pose (KmDocument    *self,
                       KmTargetTrack *track)
{
  const KmTargetKeyframe *key;
  KmTransform point;
  int index;

  if (track == NULL || self->effector < 0 || self->world == NULL
      || (index = km_target_track_find_keyframe (track, self->current_frame)) < 0)
    return FALSE;
  key = km_target_track_get_keyframe (track, (guint) index);
  /* The point @track's keys are for: a tool point off the joint where it has an offset. */
  effector_point_for (self, track, &point);
  return km_vec3_length (km_vec3_sub (key->position, point.pos)) < 1e-9
         && km_quat_angle_between (key->orientation, km_mat3_to_quat (&point.rot)) < 1e-6;
}

/* Whether @track names an end effector other than the one the body has now (Use as End
 * Effector, km_document_set_effector). */
static gboolean
track_changes_effector (KmDocument    *self,
                        KmTargetTrack *track)
{
  const char *name = km_target_track_get_effector (track);

  return name != NULL && self->skeleton != NULL
         && km_skeleton_find_effector (self->skeleton, name) != self->effector;
}

static void
targets_edit_redo (gpointer data)
{
  TargetsEdit *edit = data;
  KmDocument *self = edit->document;

  /* Redoing Set Keyframe after the joint edit it keyed (undone and redone before it, so
   * the pose shows unkeyed again): the key is back, so the motion it brings replaces
   * nothing unkeyed, as when K was pressed (km_document_set_keyframe). */
  if (self->pose_unkeyed && self->body == edit->body
      && self->unkeyed_frame == self->current_frame
      && track_keys_shown_pose (self, edit->track_after))
    set_pose_unkeyed (self, FALSE);
  if (edit->targets_created && km_item_get_parent (edit->targets_item) == NULL)
    km_item_insert_child (KM_ITEM (edit->body), 0, edit->targets_item);
  km_ik_targets_item_set_track (KM_IK_TARGETS_ITEM (edit->targets_item), edit->track_after);
  if (edit->animation_item != NULL && edit->animation_after != NULL)
    {
      targets_edit_claim_animation_item (edit);
      km_ik_animation_item_set_animation (KM_IK_ANIMATION_ITEM (edit->animation_item),
                                          edit->animation_after);
    }
  sync_from_project (self);

  if (edit->animation_after == NULL && self->body == edit->body
      && self->targets == edit->track_after)
    targets_edit_solve (edit, targets_solved_cb);
}

/* The step of the history that made @track, the targets of @body, or NULL. */
static TargetsEdit *
find_targets_edit (KmDocument    *self,
                   KmBodyItem    *body,
                   KmTargetTrack *track)
{
  for (guint i = 0; i < self->targets_edits->len; i++)
    {
      TargetsEdit *edit = g_ptr_array_index (self->targets_edits, i);

      if (edit->body == body && edit->track_after == track)
        return edit;
    }
  return NULL;
}

static void
targets_edit_undo (gpointer data)
{
  TargetsEdit *edit = data;
  KmDocument *self = edit->document;

  /* The targets of before are not solved again: their motion comes back as it was. */
  if (edit->animation_item != NULL)
    {
      if (!edit->animation_created)
        km_ik_animation_item_set_animation (KM_IK_ANIMATION_ITEM (edit->animation_item),
                                            edit->animation_before);
      else if (km_item_get_parent (edit->animation_item) == KM_ITEM (edit->body))
        km_item_remove_child (KM_ITEM (edit->body), edit->animation_item);
    }
  if (edit->targets_created)
    {
      if (km_item_get_parent (edit->targets_item) == KM_ITEM (edit->body))
        km_item_remove_child (KM_ITEM (edit->body), edit->targets_item);
    }
  else
    km_ik_targets_item_restore_state (KM_IK_TARGETS_ITEM (edit->targets_item),
                                      edit->state_before);
  sync_from_project (self);

  /* Undoing Set Keyframe alone: the pose it keyed shows again at its frame, unkeyed, as
   * before K (the motion of before shows elsewhere, and replaces it on a frame change). */
  if (edit->keyed_pose != NULL && self->body == edit->body && self->skeleton != NULL
      && km_skeleton_get_n_dof (self->skeleton) == edit->keyed_n_dof)
    show_edited_pose (self, edit->keyed_frame, edit->keyed_pose);

  /* Back onto targets whose solve never finished: solve them now. */
  if (edit->before_unsolved && edit->track_before != NULL && self->body == edit->body
      && self->targets == edit->track_before && self->solve_cancellable == NULL)
    {
      TargetsEdit *maker = find_targets_edit (self, edit->body, edit->track_before);

      if (maker != NULL && maker->animation_after == NULL && maker->link == NULL)
        targets_edit_solve (maker, targets_solved_cb);
      else if (edit->link == NULL)
        targets_edit_solve (edit, targets_before_solved_cb);
    }
}

/* Dragging a keyframe: consecutive changes of one targets item are one step, completed by
 * the solve of the last one. */
static gboolean
targets_edit_merge (gpointer data,
                    gpointer next_data)
{
  TargetsEdit *edit = data;
  TargetsEdit *next = next_data;

  if (edit->targets_item != next->targets_item || edit->body != next->body
      || next->targets_created)
    return FALSE;
  g_clear_pointer (&edit->track_after, km_target_track_unref);
  edit->track_after = g_steal_pointer (&next->track_after);
  /* The animation item this step's solve added stays this step's. */
  if (edit->animation_item == NULL && next->animation_item != NULL)
    {
      edit->animation_item = g_object_ref (next->animation_item);
      edit->animation_before = g_steal_pointer (&next->animation_before);
    }
  g_clear_pointer (&edit->animation_after, km_animation_unref);
  edit->animation_after = g_steal_pointer (&next->animation_after);
  if (edit->link != NULL)
    edit->link->edit = NULL;
  edit->link = g_steal_pointer (&next->link);
  if (edit->link != NULL)
    edit->link->edit = edit;
  return TRUE;
}

typedef struct
{
  KmDocument *document;
  GPtrArray  *parents;    /* KmItem, one per item */
  GPtrArray  *items;
  GArray     *positions;  /* guint, where each item was (removing) or goes (inserting) */
  gboolean    insert;     /* redo inserts (else removes) */
  KmItem     *current;    /* the current body before the edit, or NULL */
  GPtrArray  *selection;  /* KmItem: the items selected before the edit */
  /* The unkeyed pose shown before the edit (of unkeyed_body, edited at unkeyed_frame), or
   * NULL: a body deleted (or no longer current) is another's meanwhile, and undoing the
   * edit shows it again, unkeyed, as a joint edit's undo does. */
  KmBodyItem *unkeyed_body;
  double     *unkeyed_pose;
  guint       unkeyed_n_dof;
  guint       unkeyed_frame;
} TreeEdit;

static void
tree_edit_free (gpointer data)
{
  TreeEdit *edit = data;

  g_ptr_array_unref (edit->parents);
  g_ptr_array_unref (edit->items);
  g_array_unref (edit->positions);
  g_clear_object (&edit->current);
  g_ptr_array_unref (edit->selection);
  g_clear_object (&edit->unkeyed_body);
  g_free (edit->unkeyed_pose);
  g_free (edit);
}

static void
tree_edit_insert (TreeEdit *edit)
{
  for (guint i = 0; i < edit->items->len; i++)
    {
      KmItem *parent = g_ptr_array_index (edit->parents, i);
      guint position = g_array_index (edit->positions, guint, i);

      km_item_insert_child (parent, MIN (position, km_item_get_n_children (parent)),
                            g_ptr_array_index (edit->items, i));
    }
}

static void
tree_edit_remove (TreeEdit *edit)
{
  for (guint i = edit->items->len; i-- > 0;)
    {
      KmItem *item = g_ptr_array_index (edit->items, i);

      km_item_remove_child (km_item_get_parent (item), item);
    }
}

static void
tree_edit_redo (gpointer data)
{
  TreeEdit *edit = data;

  if (edit->insert)
    tree_edit_insert (edit);
  else
    tree_edit_remove (edit);
  sync_from_project (edit->document);
}

/* Undoing puts back the current body and the selection of before the edit: deleting the
 * shown body made another one current, and undoing must show the restored one again. */
static void
tree_edit_undo (gpointer data)
{
  TreeEdit *edit = data;
  KmDocument *self = edit->document;
  /* The edit took the unkeyed pose from view (its body deleted, another made current), or
   * it still shows; not one the user replaced or keyed since, with the body shown. */
  gboolean unkeyed = edit->unkeyed_pose != NULL
                     && (self->body != edit->unkeyed_body
                         || (self->pose_unkeyed && self->unkeyed_body == edit->unkeyed_body));

  /* The unkeyed pose comes back below: the motion that shows first replaces nothing. */
  if (unkeyed)
    set_pose_unkeyed (self, FALSE);
  if (edit->insert)
    tree_edit_remove (edit);
  else
    tree_edit_insert (edit);
  if (edit->current != NULL && is_attached (self, edit->current))
    km_project_set_current_body (self->project, edit->current);
  km_project_clear_selection (self->project);
  for (guint i = 0; i < edit->selection->len; i++)
    if (is_attached (self, g_ptr_array_index (edit->selection, i)))
      km_project_select (self->project, g_ptr_array_index (edit->selection, i), TRUE);
  sync_from_project (self);
  if (unkeyed && self->body == edit->unkeyed_body && self->skeleton != NULL && km_skeleton_get_n_dof (self->skeleton) == edit->unkeyed_n_dof)
    show_edited_pose (self, edit->unkeyed_frame, edit->unkeyed_pose);
}

static TreeEdit *
tree_edit_new (KmDocument *self,
               gboolean    insert)
{
  TreeEdit *edit = g_new0 (TreeEdit, 1);

  edit->document = self;
  edit->parents = g_ptr_array_new_with_free_func (g_object_unref);
  edit->items = g_ptr_array_new_with_free_func (g_object_unref);
  edit->positions = g_array_new (FALSE, FALSE, sizeof (guint));
  edit->insert = insert;
  edit->current = km_project_get_current_body (self->project);
  if (edit->current != NULL)
    g_object_ref (edit->current);
  edit->selection = g_ptr_array_new_with_free_func (g_object_unref);
  {
    GListModel *selection = km_project_get_selection (self->project);

    for (guint i = 0; i < g_list_model_get_n_items (selection); i++)
      g_ptr_array_add (edit->selection, g_list_model_get_item (selection, i));
  }
  if (self->pose_unkeyed && self->unkeyed_body != NULL && self->unkeyed_body == self->body
      && self->skeleton != NULL)
    {
      edit->unkeyed_body = g_object_ref (self->unkeyed_body);
      edit->unkeyed_n_dof = km_skeleton_get_n_dof (self->skeleton);
      edit->unkeyed_pose = g_memdup2 (self->pose, edit->unkeyed_n_dof * sizeof (double));
      edit->unkeyed_frame = self->unkeyed_frame;
    }
  return edit;
}

static void
tree_edit_add (TreeEdit *edit,
               KmItem   *parent,
               KmItem   *item,
               guint     position)
{
  g_ptr_array_add (edit->parents, g_object_ref (parent));
  g_ptr_array_add (edit->items, g_object_ref (item));
  g_array_append_val (edit->positions, position);
}

typedef struct
{
  KmDocument *document;
  KmItem     *item;
  KmItem     *old_parent;
  guint       old_position;
  KmItem     *new_parent;
  guint       new_position;
} MoveEdit;

static void
move_edit_free (gpointer data)
{
  MoveEdit *edit = data;

  g_clear_object (&edit->item);
  g_clear_object (&edit->old_parent);
  g_clear_object (&edit->new_parent);
  g_free (edit);
}

static void
move_item (MoveEdit *edit,
           KmItem   *parent,
           guint     position)
{
  g_autoptr(KmItem) item = g_object_ref (edit->item);

  km_item_remove_child (km_item_get_parent (item), item);
  km_item_insert_child (parent, MIN (position, km_item_get_n_children (parent)), item);
  sync_from_project (edit->document);
}

static void
move_edit_redo (gpointer data)
{
  MoveEdit *edit = data;

  move_item (edit, edit->new_parent, edit->new_position);
}

static void
move_edit_undo (gpointer data)
{
  MoveEdit *edit = data;

  move_item (edit, edit->old_parent, edit->old_position);
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

static void
clear_solve_aim (KmDocument *self)
{
  g_clear_pointer (&self->solve_problem, km_ik_problem_free);
  g_clear_pointer (&self->solve_track, km_target_track_unref);
}

/* Frames stream in while the worker solves: show them as soon as the current one exists. */
static void
job_frames_ready_cb (KmDocument *self,
                     guint       first_frame,
                     guint       n_frames,
                     KmIkJob    *job)
{
  KmBodyHandlerSet *handlers;

  if (self->solve_cancellable == NULL)
    return;
  /* Each solved frame keeps the coupling of the body's linked joints, as a drag does, and
   * its residuals (the time bar's red marks) are those of that pose. */
  handlers = self->solve_body != NULL ? km_body_item_get_body_handlers (self->solve_body) : NULL;
  if (handlers != NULL && km_body_handler_set_has_linked_joints (handlers)
      && self->solve_problem != NULL)
    km_body_handler_set_apply_linked_solved (handlers, self->solve_problem, self->solve_track,
                                             km_ik_job_get_animation (job), first_frame,
                                             n_frames);
  if (self->animation != km_ik_job_get_animation (job))
    set_animation (self, NULL, km_ik_job_get_animation (job));
  if (shown_animation_frame (self) >= first_frame
      && shown_animation_frame (self) < first_frame + n_frames)
    pose_from_animation (self);
}

/* The solved animation goes into the body's animation item (a new one when it has none):
 * an undoable step when the user asked for the solve, silently when it only completes a
 * freshly opened project (the animation is derived from what was opened). */
static void
store_animation (KmDocument  *self,
                 KmBodyItem  *body,
                 KmAnimation *animation,
                 gboolean     recorded)
{
  KmItem *item = km_item_find_child_by_type (KM_ITEM (body), KM_TYPE_IK_ANIMATION_ITEM);
  g_autoptr(KmItem) created = NULL;
  KmAnimation *current;
  TrackEdit *edit;

  /* Solving again what is solved already (Solve on a project just opened) gives the same
   * motion, within the solver's tolerance: that is no edit (no step, nothing unsaved), and
   * the motion stays the one the file has. */
  current = item != NULL ? km_ik_animation_item_get_animation (KM_IK_ANIMATION_ITEM (item))
                         : NULL;
  if (recorded && current != NULL
      && km_animation_equal (current, animation, RESOLVE_SAME_TOLERANCE))
    {
      sync_from_project (self);
      return;
    }

  if (item == NULL)
    {
      created = km_ik_animation_item_new ();
      km_item_set_name (created, _("Solved Animation"));
      km_item_set_checked (created, TRUE);
      if (!recorded)
        km_item_append_child (KM_ITEM (body), created);
      else
        {
          TreeEdit *insert = tree_edit_new (self, TRUE);

          tree_edit_add (insert, KM_ITEM (body), created, km_item_get_n_children (KM_ITEM (body)));
          km_project_push_command (self->project, _("Add Item"), tree_edit_redo, tree_edit_undo,
                                   NULL, NULL, insert, tree_edit_free);
          km_project_close_merge (self->project);
        }
      item = created;
    }

  if (!recorded)
    {
      km_ik_animation_item_set_animation (KM_IK_ANIMATION_ITEM (item), animation);
      sync_from_project (self);
      return;
    }

  edit = g_new0 (TrackEdit, 1);
  edit->document = self;
  edit->item = g_object_ref (item);
  edit->before = km_ik_animation_item_get_animation (KM_IK_ANIMATION_ITEM (item));
  if (edit->before != NULL)
    km_animation_ref (edit->before);
  edit->after = km_animation_ref (animation);
  km_project_push_command (self->project, _("Solve"), track_edit_redo, track_edit_undo,
                           NULL, NULL, edit, track_edit_free);
}

/* The analytic IK hook lives until the job's callback: the worker has finished by then,
 * cancelled or not, so no copy of the problem can still call it. The document is held
 * weakly: a cancelled solve (its document disposed, or a newer solve begun) does not keep
 * it alive until its worker returns. */
typedef struct
{
  GWeakRef             document;
  KmBodyHandlerIkHook *hook;
  KmTargetTrack       *track;      /* what it solves */
} SolveCall;

static void
solve_call_free (SolveCall *call)
{
  g_weak_ref_clear (&call->document);
  g_clear_pointer (&call->hook, km_body_handler_ik_hook_free);
  g_clear_pointer (&call->track, km_target_track_unref);
  g_free (call);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SolveCall, solve_call_free)

static void
solve_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(SolveCall) call = user_data;
  g_autoptr(KmDocument) self = g_weak_ref_get (&call->document);
  g_autoptr(KmAnimation) animation = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(KmBodyItem) body = NULL;
  g_autoptr(KmIkProblem) aim = NULL;
  g_autoptr(KmTargetTrack) aim_track = NULL;
  KmDocumentSolvedFunc done;
  gpointer done_data;
  GDestroyNotify done_destroy;
  KmAnimationStats stats;
  guint n_missed;

  animation = km_ik_job_solve_finish (KM_IK_JOB (object), result, &error);
  /* Disposed meanwhile: it cancelled the solve, and nothing is left to tell. */
  if (self == NULL)
    return;
  if (animation == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          km_document_log (self, G_LOG_LEVEL_WARNING, _("Solving failed: %s"), error->message);
          g_clear_object (&self->solve_cancellable);
          g_clear_object (&self->solve_body);
          clear_solve_aim (self);
          clear_solve_done (self);
          sync_from_project (self);
          g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SOLVING]);
        }
      return;
    }

  g_clear_object (&self->solve_cancellable);
  body = g_steal_pointer (&self->solve_body);
  aim = g_steal_pointer (&self->solve_problem);
  aim_track = g_steal_pointer (&self->solve_track);
  if (self->unsolved_targets == call->track)
    g_clear_pointer (&self->unsolved_targets, km_target_track_unref);
  /* Taken first: storing the result may start or cancel another solve. */
  done = self->solve_done;
  done_data = g_steal_pointer (&self->solve_done_data);
  done_destroy = g_steal_pointer (&self->solve_done_destroy);
  self->solve_done = NULL;
  if (self->project != NULL && body != NULL && is_attached (self, KM_ITEM (body)))
    {
      KmBodyHandlerSet *handlers = km_body_item_get_body_handlers (body);

      /* The streamed frames went through the linked joints already; the whole motion does
       * here, whatever the job delivered last, and its missed keyframes (checked after
       * the last frame came) take the residuals of the re-synced pose. */
      if (handlers != NULL && km_body_handler_set_has_linked_joints (handlers) && aim != NULL)
        km_body_handler_set_apply_linked_solved (handlers, aim, aim_track, animation, 0,
                                                 km_animation_get_n_frames (animation));
      if (done != NULL)
        done (self, KM_ITEM (body), animation, done_data);
      else
        store_animation (self, body, animation, self->solve_recorded);
    }
  else
    sync_from_project (self);
  if (done_destroy != NULL)
    done_destroy (done_data);
  /* The body's targets solved: its motion is theirs (also one kept as it was, the same). */
  if (body != NULL && body == self->body && call->track == self->targets)
    {
      KmItem *item = km_item_find_child_by_type (KM_ITEM (body), KM_TYPE_IK_ANIMATION_ITEM);

      if (item != NULL)
        km_ik_animation_item_set_solved_from_other_targets (KM_IK_ANIMATION_ITEM (item), FALSE);
    }
  /* The streamed frames were the same animation: views still hear that it is complete. */
  if (self->animation != NULL)
    {
      update_frames (self);
      pose_from_animation (self);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ANIMATION]);
    }

  km_animation_get_stats (animation, &stats);
  n_missed = count_missed_frames (animation, km_document_get_solves_orientation (self));
  if (n_missed > 0)
    log_missed_frames (self, &stats, n_missed, FALSE);
  else if (km_document_get_solves_orientation (self))
    km_document_log (self, G_LOG_LEVEL_INFO,
                     /* Translators: a frame count, the largest position error in mm, then
                      * the largest orientation error in degrees */
                     g_dngettext (GETTEXT_PACKAGE, "Solved %u frame; largest position "
                                  "error %.3f mm, largest orientation error %.3f°.",
                                  "Solved %u frames; largest position error %.3f mm, largest "
                                  "orientation error %.3f°.",
                                  stats.n_frames),
                     stats.n_frames, stats.max_pos_err * 1000.0,
                     stats.max_rot_err * 180.0 / G_PI);
  else
    km_document_log (self, G_LOG_LEVEL_INFO,
                     /* Translators: a frame count, then the largest position error in mm */
                     g_dngettext (GETTEXT_PACKAGE, "Solved %u frame; largest position error %.3f mm.",
                                  "Solved %u frames; largest position error %.3f mm.",
                                  stats.n_frames),
                     stats.n_frames, stats.max_pos_err * 1000.0);
  log_missed_keys (self, animation, call->track);
  log_jumps (self, animation);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SOLVING]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SOLVE_PROGRESS]);
}

/* Where a solve of the whole track starts (@problem's seed, which frame 0 is solved from):
 * the DOFs the solve moves start from the body's solved motion at frame 0 when it has one
 * for this model, so that a keyframe set or a solve asked for at a later frame leaves the
 * start of the motion as it was (seeded with a pose shown there, a redundant arm's frame 0,
 * and so its whole motion, would move to another branch of its null space). At frame 0 the
 * pose shown is that frame's, an edit there the user keys or solves from: it is the seed, as
 * it is without a motion. The DOFs the solve does not move (off the end effector's chain)
 * hold the pose shown in every frame, as they always did: keying a pose that changed them
 * gives the motion their new values (km_document_set_keyframe). */
static void
fill_solve_seed (KmDocument  *self,
                 KmIkProblem *problem)
{
  guint n_dof = km_skeleton_get_n_dof (self->skeleton);
  KmItem *item = km_item_find_child_by_type (KM_ITEM (self->body), KM_TYPE_IK_ANIMATION_ITEM);
  KmAnimation *solved = item != NULL
                        ? km_ik_animation_item_get_animation (KM_IK_ANIMATION_ITEM (item))
                        : NULL;
  g_autoptr(KmIkProblem) aimed = NULL;
  g_autofree gboolean *moving = NULL;
  const double *start;

  memcpy (problem->seed, self->pose, n_dof * sizeof (double));
  if (self->current_frame == 0 || solved == NULL || km_animation_get_n_frames (solved) == 0
      || km_animation_get_n_dof (solved) != n_dof)
    return;
  /* What the job moves: the chain as the targets bound it (a base joint of theirs). */
  aimed = km_ik_problem_copy (problem);
  km_ik_problem_use_track (aimed, self->targets);
  moving = g_new0 (gboolean, MAX (n_dof, 1));
  km_ik_problem_get_moved_dofs (aimed, moving);
  start = km_animation_get_frame (solved, 0);
  for (guint dof = 0; dof < n_dof; dof++)
    if (moving[dof])
      problem->seed[dof] = start[dof];
}

static void
start_solve (KmDocument *self,
             gboolean    recorded)
{
  g_autoptr(KmIkProblem) problem = NULL;
  KmBodyHandlerSet *handlers;
  SolveCall *call;

  if (self->skeleton == NULL || self->targets == NULL || self->effector < 0 || self->body == NULL)
    return;

  km_document_cancel_solve (self);
  set_animation (self, NULL, NULL);

  problem = km_ik_problem_new (self->skeleton, self->effector);
  fill_solve_seed (self, problem);

  call = g_new0 (SolveCall, 1);
  g_weak_ref_init (&call->document, self);
  call->track = km_target_track_ref (self->targets);
  if (self->unsolved_targets != self->targets)
    {
      g_clear_pointer (&self->unsolved_targets, km_target_track_unref);
      self->unsolved_targets = km_target_track_ref (self->targets);
    }
  handlers = km_body_item_get_body_handlers (self->body);
  if (handlers != NULL && km_body_handler_set_get_n_attached (handlers) > 0)
    {
      call->hook = km_body_handler_ik_hook_new (handlers, KM_BODY_HANDLER_CONFIGURATION_NEAREST);
      if (km_body_handler_ik_hook_install (call->hook, problem))
        km_document_log (self, G_LOG_LEVEL_INFO,
                         _("Solving with the body handler’s analytic IK, falling back to "
                           "numeric IK where it has no solution."));
      else
        g_clear_pointer (&call->hook, km_body_handler_ik_hook_free);
    }

  self->solve_cancellable = g_cancellable_new ();
  self->solve_body = g_object_ref (self->body);
  clear_solve_aim (self);
  if (handlers != NULL && km_body_handler_set_has_linked_joints (handlers))
    {
      self->solve_problem = km_ik_problem_copy (problem);
      self->solve_track = km_target_track_ref (self->targets);
    }
  self->solve_recorded = recorded;
  km_ik_job_solve_async (self->job, problem, self->targets,
                         0, km_target_track_get_last_frame (self->targets),
                         self->solve_cancellable, solve_cb, call);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SOLVING]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SOLVE_PROGRESS]);
}

static void
auto_solve (KmDocument *self)
{
  start_solve (self, FALSE);
}

/* Every document not disposed (main thread only): _km_document_get_all(). */
static GList *all_documents;

/**
 * _km_document_get_all:
 *
 * Returns: (transfer none) (element-type KmDocument): every document not disposed, the
 *   newest first. Main thread only.
 */
GList *
_km_document_get_all (void)
{
  return all_documents;
}

static void
km_document_dispose (GObject *object)
{
  KmDocument *self = (KmDocument *) object;

  /* (Its project is gone: no file it refers to counts any more.) */
  all_documents = g_list_remove (all_documents, self);
  if (self->solve_cancellable != NULL)
    g_cancellable_cancel (self->solve_cancellable);
  g_clear_object (&self->solve_cancellable);
  g_clear_object (&self->solve_body);
  clear_solve_aim (self);
  if (self->measure_cancellable != NULL)
    g_cancellable_cancel (self->measure_cancellable);
  g_clear_object (&self->measure_cancellable);
  clear_solve_done (self);
  g_clear_handle_id (&self->close_edit_id, g_source_remove);
  if (self->job != NULL)
    g_signal_handlers_disconnect_by_data (self->job, self);
  g_clear_object (&self->job);
  if (self->project != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->project, self);
      g_signal_handlers_disconnect_by_data (km_project_get_selection (self->project), self);
      km_project_clear_history (self->project);
    }
  g_clear_object (&self->project);
  g_clear_object (&self->body);
  g_clear_object (&self->unkeyed_body);
  g_clear_object (&self->file);
  g_clear_pointer (&self->file_identity, g_free);

  G_OBJECT_CLASS (km_document_parent_class)->dispose (object);
}

static void
km_document_finalize (GObject *object)
{
  KmDocument *self = (KmDocument *) object;

  g_clear_pointer (&self->skeleton, km_skeleton_unref);
  g_clear_pointer (&self->warned_skeleton, km_skeleton_unref);
  g_clear_pointer (&self->warned_effector, g_free);
  g_clear_pointer (&self->warned_base, g_free);
  g_clear_pointer (&self->targets, km_target_track_unref);
  g_clear_object (&self->targets_item);
  g_clear_pointer (&self->unsolved_targets, km_target_track_unref);
  g_clear_pointer (&self->warned_unsolved, km_animation_unref);
  g_clear_pointer (&self->targets_edits, g_ptr_array_unref);
  g_clear_pointer (&self->animation, km_animation_unref);
  g_clear_object (&self->animation_source);
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
    case PROP_CAN_REDO:
      g_value_set_boolean (value, km_document_can_redo (self));
      break;
    case PROP_CAN_UNDO:
      g_value_set_boolean (value, km_document_can_undo (self));
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
    case PROP_POSE_UNKEYED:
      g_value_set_boolean (value, self->pose_unkeyed);
      break;
    case PROP_PROJECT:
      g_value_set_object (value, self->project);
      break;
    case PROP_SELECTED_JOINT:
      g_value_set_int (value, self->selected_joint);
      break;
    case PROP_SKELETON:
      g_value_set_boxed (value, self->skeleton);
      break;
    case PROP_TIMELINE_FRAMES:
      g_value_set_uint (value, self->timeline_frames);
      break;
    case PROP_SOLVE_PROGRESS:
      g_value_set_double (value, km_document_get_solve_progress (self));
      break;
    case PROP_SAVING:
      g_value_set_boolean (value, self->saving);
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
  properties[PROP_CAN_REDO] =
    g_param_spec_boolean ("can-redo", NULL, NULL, FALSE, ro);
  properties[PROP_CAN_UNDO] =
    g_param_spec_boolean ("can-undo", NULL, NULL, FALSE, ro);
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
  /* km_document_get_pose_unkeyed */
  properties[PROP_POSE_UNKEYED] =
    g_param_spec_boolean ("pose-unkeyed", NULL, NULL, FALSE, ro);
  properties[PROP_PROJECT] =
    g_param_spec_object ("project", NULL, NULL, KM_TYPE_PROJECT, ro);
  properties[PROP_SELECTED_JOINT] =
    g_param_spec_int ("selected-joint", NULL, NULL, -1, G_MAXINT, -1, rw);
  properties[PROP_SKELETON] =
    g_param_spec_boxed ("skeleton", NULL, NULL, KM_TYPE_SKELETON, ro);
  /* The frames the time bar spans (km_document_get_timeline_frames). */
  properties[PROP_TIMELINE_FRAMES] =
    g_param_spec_uint ("timeline-frames", NULL, NULL, 1, G_MAXUINT, 1, ro);
  properties[PROP_SOLVE_PROGRESS] =
    g_param_spec_double ("solve-progress", NULL, NULL, 0.0, 1.0, 0.0, ro);
  /* Whether a project save (km_document_save_async) is writing. */
  properties[PROP_SAVING] =
    g_param_spec_boolean ("saving", NULL, NULL, FALSE, ro);
  properties[PROP_SOLVING] =
    g_param_spec_boolean ("solving", NULL, NULL, FALSE, ro);
  properties[PROP_TARGETS] =
    g_param_spec_boxed ("targets", NULL, NULL, KM_TYPE_TARGET_TRACK, ro);
  properties[PROP_TITLE] =
    g_param_spec_string ("title", NULL, NULL, "Kinema", ro);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * KmDocument::skeleton-save-ended:
   * @ok: whether the file was written
   *
   * A Skeleton tab save (km_document_save_skeleton_async() and the others) has ended,
   * after its caller took the result: km_document_get_skeleton_saving_file() is %NULL
   * again. A window that waits for it to close learns here whether it may.
   */
  g_signal_new ("skeleton-save-ended", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_BOOLEAN);

  /**
   * KmDocument::files-written:
   *
   * The last of the document's writes of files (km_document_get_writing()) has ended,
   * after its caller took the result: what the files the project refers to are on disk
   * now is the document's doing, not another program's.
   */
  g_signal_new ("files-written", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static KmProject *
new_empty_project (void)
{
  KmProject *project = km_project_new ();
  g_autoptr(KmItem) root = km_root_item_new ();
  g_autoptr(KmItem) world = km_world_item_new ();

  km_item_set_name (root, "RootItem");
  km_item_set_builtin (root, TRUE);
  km_item_set_name (world, _("World"));
  km_item_set_checked (world, TRUE);
  km_item_append_child (root, world);
  km_project_set_root_item (project, root);
  return project;
}

static void
km_document_init (KmDocument *self)
{
  g_autoptr(KmProject) project = new_empty_project ();

  all_documents = g_list_prepend (all_documents, self);
  self->title = g_strdup ("Kinema");
  self->trajectory = g_array_new (FALSE, FALSE, sizeof (KmVec3));
  self->messages = g_list_store_new (KM_TYPE_MESSAGE);
  self->targets_edits = g_ptr_array_new ();
  self->effector = -1;
  self->selected_joint = -1;
  self->n_frames = 1;
  self->timeline_frames = 1;
  self->frame_rate = KM_TARGET_TRACK_DEFAULT_FRAME_RATE;
  self->pose = g_new0 (double, 1);
  self->world = g_new0 (KmTransform, 1);

  self->job = km_ik_job_new ();
  g_signal_connect_object (self->job, "notify::progress",
                           G_CALLBACK (job_notify_progress_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->job, "frames-ready",
                           G_CALLBACK (job_frames_ready_cb), self, G_CONNECT_SWAPPED);
  set_project (self, project, NULL);
}

KmDocument *
km_document_new (void)
{
  return g_object_new (KM_TYPE_DOCUMENT, NULL);
}

KmProject *
km_document_get_project (KmDocument *self)
{
  g_return_val_if_fail (KM_IS_DOCUMENT (self), NULL);

  return self->project;
}

KmItem *
km_document_get_body_item (KmDocument *self)
{
  g_return_val_if_fail (KM_IS_DOCUMENT (self), NULL);

  return KM_ITEM (self->body);
}

/**
 * km_document_get_body_handlers:
 *
 * The body handlers attached to the current body's model: the joint panel's presentation,
 * linked joints and the solver's analytic IK come from them.
 *
 * Returns: (transfer none) (nullable): the set, NULL without a body
 */
KmBodyHandlerSet *
km_document_get_body_handlers (KmDocument *self)
{
  g_return_val_if_fail (KM_IS_DOCUMENT (self), NULL);

  return self->body ? km_body_item_get_body_handlers (self->body) : NULL;
}

/* Shows @body (a body item of the project with a model); not an edit. */
void
km_document_set_current_body (KmDocument *self,
                              KmItem     *body)
{
  g_return_if_fail (KM_IS_DOCUMENT (self));
  g_return_if_fail (KM_IS_BODY_ITEM (body));

  if (body == KM_ITEM (self->body) || km_body_item_get_skeleton (KM_BODY_ITEM (body)) == NULL
      || !is_attached (self, body))
    return;
  km_project_set_current_body (self->project, body);
  sync_from_project (self);
  if (self->animation == NULL)
    auto_solve (self);
}

/* An empty project: a world without bodies, no file, unmodified. */
void
km_document_new_project (KmDocument *self)
{
  g_autoptr(KmProject) project = NULL;

  g_return_if_fail (KM_IS_DOCUMENT (self));

  project = new_empty_project ();
  set_project (self, project, NULL);
}

/**
 * km_document_load_defaults:
 *
 * Replaces the project with the built-in example: World → Body (the embedded
 * skeleton.json) → IK targets (targets.json) and the solved animation, and starts solving.
 * On failure nothing changes.
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
  g_autoptr(KmProject) project = NULL;
  g_autoptr(KmItem) body = NULL;
  g_autoptr(KmItem) targets_item = NULL;
  g_autoptr(KmItem) animation_item = NULL;
  KmItem *world;

  g_return_val_if_fail (KM_IS_DOCUMENT (self), FALSE);
  g_return_val_if_fail (skeleton_format != NULL && targets_format != NULL, FALSE);

  km_parse_warnings_push (parse_warning_cb, self);
  skeleton = skeleton_format->load (KM_DEFAULT_SKELETON_NAME, skeleton_bytes, error);
  if (skeleton != NULL)
    targets = targets_format->load (KM_DEFAULT_TARGETS_NAME, targets_bytes, error);
  km_parse_warnings_pop ();
  if (targets == NULL)
    return FALSE;

  project = new_empty_project ();
  world = km_item_get_child (km_project_get_root_item (project), 0);
  body = km_body_item_new ();
  km_item_set_name (body, _("Body"));
  km_item_set_checked (body, TRUE);
  km_body_item_set_model (KM_BODY_ITEM (body), KM_DEFAULT_SKELETON_NAME, "SKELETON-JSON",
                          skeleton);
  g_object_set_data (G_OBJECT (body), "km-embedded-model", GINT_TO_POINTER (TRUE));
  km_item_append_child (world, body);
  targets_item = km_ik_targets_item_new ();
  km_item_set_name (targets_item, _("IK Targets"));
  km_item_set_checked (targets_item, TRUE);
  km_ik_targets_item_set_track (KM_IK_TARGETS_ITEM (targets_item), targets);
  km_item_append_child (body, targets_item);
  animation_item = km_ik_animation_item_new ();
  km_item_set_name (animation_item, _("Solved Animation"));
  km_item_set_checked (animation_item, TRUE);
  km_item_append_child (body, animation_item);
  km_project_set_current_body (project, body);

  set_project (self, project, NULL);

  km_document_log (self, G_LOG_LEVEL_INFO,
                   /* Translators: joint and keyframe counts of the built-in example */
                   _("Opened the built-in example: %u joints, %u target keyframes."),
                   km_skeleton_get_n_joints (skeleton),
                   km_target_track_get_n_keyframes (targets));
  return TRUE;
}

/* Where an imported body goes: the first world item, else the root. */
static KmItem *
import_parent (KmDocument *self)
{
  KmItem *root = km_project_get_root_item (self->project);
  KmItem *world = km_item_find_child_by_type (root, KM_TYPE_WORLD_ITEM);

  return world ? world : root;
}

static char *
file_label (GFile *file)
{
  g_autofree char *base = g_file_get_basename (file);

  /* An item's name (shown in the tree, written into the project): UTF-8, whatever bytes
   * the file name has. */
  return g_filename_display_name (base);
}

/* The body starts at the pose the model file states (@extras, nullable), its linked joints
 * following their masters, so that it shows what the file says before any edit. */
static void
import_model (KmDocument          *self,
              GFile               *file,
              const char          *path,
              const KmFormat      *format,
              KmSkeleton          *skeleton,
              const KmModelExtras *extras)
{
  g_autoptr(KmItem) body = km_body_item_new ();
  g_autofree char *name = file_label (file);
  KmItem *parent = import_parent (self);
  TreeEdit *edit = tree_edit_new (self, TRUE);
  guint n_dof = skeleton ? km_skeleton_get_n_dof (skeleton) : 0;

  km_item_set_name (body, name);
  km_item_set_checked (body, TRUE);
  km_body_item_set_model (KM_BODY_ITEM (body), path, format->name, skeleton);
  /* The text read, for a save that writes the model again once it is deleted. */
  if (extras != NULL)
    {
      km_body_item_set_model_text (KM_BODY_ITEM (body), format->name, extras->text);
      km_body_item_set_model_checksum (KM_BODY_ITEM (body), extras->checksum);
    }
  if (extras != NULL && extras->initial_q != NULL && n_dof > 0
      && extras->n_initial_q == n_dof)
    {
      g_autofree double *q = g_memdup2 (extras->initial_q, n_dof * sizeof (double));

      km_skeleton_apply_mimic (skeleton, q);
      km_body_item_set_joint_state (KM_BODY_ITEM (body), q, n_dof);
      km_body_item_set_model_pose (KM_BODY_ITEM (body), skeleton, extras->initial_q);
    }
  /* A file without a pose of its own (URDF: 0) outside the joint limits: said, not only
   * clamped where the Pose tab shows it and an edit or a solve starts from it. */
  if (n_dof > 0)
    {
      g_autofree char *clamped = km_start_pose_describe_clamp (
        skeleton, extras != NULL && extras->n_initial_q == n_dof ? extras->initial_q : NULL,
        km_body_item_get_joint_state (KM_BODY_ITEM (body), NULL));

      if (clamped != NULL)
        km_document_log (self, G_LOG_LEVEL_WARNING,
                         /* Translators: a model's name, then a list of joints and values,
                          * “elbow -4.0°, slide 100.0 mm” */
                         _("%s: start pose outside the joint limits; the Pose tab, edits and "
                           "solves take these joints at their nearest limit: %s."),
                         name, clamped);
    }
  tree_edit_add (edit, parent, body, km_item_get_n_children (parent));
  km_project_push_command (self->project, _("Import Model"), tree_edit_redo, tree_edit_undo,
                           NULL, NULL, edit, tree_edit_free);
  km_project_close_merge (self->project);
  km_project_set_current_body (self->project, body);
  sync_from_project (self);
  log_body_handlers (self, KM_BODY_ITEM (body));
}

/* Adds a targets or animation item under the current body, as one undoable step. */
static void
import_child (KmDocument *self,
              GFile      *file,
              KmItem     *item,
              const char *label)
{
  g_autofree char *name = file_label (file);
  TreeEdit *edit = tree_edit_new (self, TRUE);
  gboolean animation = KM_IS_IK_ANIMATION_ITEM (item);
  KmItem *shown;
  guint position;

  /* The first targets and animation items are the ones shown: the new one goes first (a
   * first animation item after the others, a first targets item at the top). An item that
   * has a name of its own (a model's IK target) keeps it; others are named after the file. */
  if (km_item_get_name (item) == NULL || *km_item_get_name (item) == '\0')
    km_item_set_name (item, name);
  km_item_set_checked (item, TRUE);
  shown = km_item_find_child_by_type (KM_ITEM (self->body),
                                      animation ? KM_TYPE_IK_ANIMATION_ITEM
                                                : KM_TYPE_IK_TARGETS_ITEM);
  if (shown != NULL)
    position = (guint) km_item_get_index (shown);
  else
    position = animation ? km_item_get_n_children (KM_ITEM (self->body)) : 0;
  tree_edit_add (edit, KM_ITEM (self->body), item, position);
  km_project_push_command (self->project, label, tree_edit_redo, tree_edit_undo,
                           NULL, NULL, edit, tree_edit_free);
  km_project_close_merge (self->project);
}

gboolean
km_document_can_undo (KmDocument *self)
{
  g_return_val_if_fail (KM_IS_DOCUMENT (self), FALSE);

  return km_project_can_undo (self->project);
}

gboolean
km_document_can_redo (KmDocument *self)
{
  g_return_val_if_fail (KM_IS_DOCUMENT (self), FALSE);

  return km_project_can_redo (self->project);
}

gboolean
km_document_undo (KmDocument *self)
{
  g_return_val_if_fail (KM_IS_DOCUMENT (self), FALSE);

  if (!km_project_undo (self->project))
    return FALSE;
  sync_from_project (self);
  return TRUE;
}

gboolean
km_document_redo (KmDocument *self)
{
  g_return_val_if_fail (KM_IS_DOCUMENT (self), FALSE);

  if (!km_project_redo (self->project))
    return FALSE;
  sync_from_project (self);
  return TRUE;
}

/* Shows the project again after a command that changed its items directly (a body's model
 * or joint state); the views hear what changed. */
void
km_document_reload (KmDocument *self)
{
  g_return_if_fail (KM_IS_DOCUMENT (self));

  sync_from_project (self);
}

/* Ends a continuous edit (a slider or keyframe drag): the next edit is a step of its own. */
void
km_document_close_edit (KmDocument *self)
{
  g_return_if_fail (KM_IS_DOCUMENT (self));

  g_clear_handle_id (&self->close_edit_id, g_source_remove);
  self->edit_holder = NULL;
  km_project_close_merge (self->project);
}

/* A continuous edit (a drag in the 3-D view or of a slider), by @holder, goes on: the joint
 * edits from now on merge into one step whatever the pauses between them, until
 * km_document_release_edit() by the same holder or km_document_close_edit(). */
void
km_document_hold_edit (KmDocument    *self,
                       gconstpointer  holder)
{
  g_return_if_fail (KM_IS_DOCUMENT (self));
  g_return_if_fail (holder != NULL);

  g_clear_handle_id (&self->close_edit_id, g_source_remove);
  self->edit_holder = holder;
}

/* Ends the edit @holder holds (km_document_hold_edit); one another holder began since, or
 * none, is left as it is. */
void
km_document_release_edit (KmDocument    *self,
                          gconstpointer  holder)
{
  g_return_if_fail (KM_IS_DOCUMENT (self));

  if (holder != NULL && self->edit_holder == holder)
    km_document_close_edit (self);
}

/* Whether @holder holds the edit going on (km_document_hold_edit). */
gboolean
km_document_edit_held_by (KmDocument    *self,
                          gconstpointer  holder)
{
  g_return_val_if_fail (KM_IS_DOCUMENT (self), FALSE);

  return holder != NULL && self->edit_holder == holder;
}

/**
 * km_document_set_targets:
 *
 * Replaces the current body's IK targets (undoable; consecutive calls merge into one step
 * until km_document_close_edit) and solves again. Without a targets item, one is added.
 */
void
km_document_set_targets (KmDocument    *self,
                         KmTargetTrack *targets)
{
  KmItem *item;
  TargetsEdit *edit;

  g_return_if_fail (KM_IS_DOCUMENT (self));
  g_return_if_fail (targets != NULL);
  g_return_if_fail (self->body != NULL);

  edit = g_new0 (TargetsEdit, 1);
  edit->document = self;
  edit->body = g_object_ref (self->body);
  item = km_item_find_child_by_type (KM_ITEM (self->body), KM_TYPE_IK_TARGETS_ITEM);
  if (item == NULL)
    {
      edit->targets_item = km_ik_targets_item_new ();
      km_item_set_name (edit->targets_item, _("IK Targets"));
      km_item_set_checked (edit->targets_item, TRUE);
      edit->targets_created = TRUE;
    }
  else
    {
      edit->targets_item = g_object_ref (item);
      edit->track_before = km_ik_targets_item_get_track (KM_IK_TARGETS_ITEM (item));
      if (edit->track_before != NULL)
        km_target_track_ref (edit->track_before);
      edit->state_before = km_ik_targets_item_save_state (KM_IK_TARGETS_ITEM (item));
    }
  edit->track_after = km_target_track_ref (targets);
  edit->before_unsolved = edit->track_before != NULL
                          && edit->track_before == self->unsolved_targets;
  item = km_item_find_child_by_type (KM_ITEM (self->body), KM_TYPE_IK_ANIMATION_ITEM);
  if (item != NULL)
    {
      edit->animation_item = g_object_ref (item);
      edit->animation_before = km_ik_animation_item_get_animation (KM_IK_ANIMATION_ITEM (item));
      if (edit->animation_before != NULL)
        km_animation_ref (edit->animation_before);
    }
  /* Set Keyframe (km_document_set_keyframe) keys what shows now: an unkeyed pose, or a
   * pose where no motion shows (a model without one), which the solve the keyframe starts
   * replaces with its own (a redundant arm reaches the point another way); undone, the
   * pose of before shows again, not the solver's. So does Use as End Effector
   * (km_document_set_effector), whose solve for the new effector replaces it too. */
  if ((self->pose_unkeyed ? self->unkeyed_frame == self->current_frame
                          : motion_pose (self) == NULL)
      && self->skeleton != NULL
      && (track_keys_shown_pose (self, targets) || track_changes_effector (self, targets)))
    {
      edit->keyed_n_dof = km_skeleton_get_n_dof (self->skeleton);
      edit->keyed_pose = g_memdup2 (self->pose, edit->keyed_n_dof * sizeof (double));
      edit->keyed_frame = self->current_frame;
    }
  g_ptr_array_add (self->targets_edits, edit);
  km_project_push_command (self->project, _("Edit Targets"), targets_edit_redo,
                           targets_edit_undo, targets_edit_merge, "km-document-targets", edit,
                           targets_edit_free);
}

/* A targets file opened onto a body that has targets: the item read from it (@fresh) takes
 * the place of the body's targets item (@replaced, the first one, which the body is solved
 * from), as a Reload swaps an item for the one read again. */
typedef struct
{
  KmDocument *document;
  KmItem     *parent;
  guint       position;
  KmItem     *replaced;
  KmItem     *fresh;
} TargetsSwap;

static void
targets_swap_free (gpointer data)
{
  TargetsSwap *swap = data;

  g_object_unref (swap->parent);
  g_object_unref (swap->replaced);
  g_object_unref (swap->fresh);
  g_free (swap);
}

static void
targets_swap_put (TargetsSwap *swap,
                  KmItem      *out,
                  KmItem      *in)
{
  if (km_item_get_parent (out) == swap->parent)
    km_item_remove_child (swap->parent, out);
  km_item_insert_child (swap->parent, MIN (swap->position, km_item_get_n_children (swap->parent)),
                        in);
  sync_from_project (swap->document);
}

static void
targets_swap_redo (gpointer data)
{
  TargetsSwap *swap = data;

  targets_swap_put (swap, swap->replaced, swap->fresh);
}

static void
targets_swap_undo (gpointer data)
{
  TargetsSwap *swap = data;

  targets_swap_put (swap, swap->fresh, swap->replaced);
}

/* A targets file opened onto the current body, which has a targets item (the first one,
 * the targets the body is solved from): @fresh, the item read from the file, replaces it,
 * as one undoable step (@label). Its targets are solved, as those read again by a Reload
 * are (_km_document_reread), and undoing puts back the item and the motion of before. A
 * body keeps one targets item for the files opened onto it, so that there is no doubt
 * which targets its motion and its residuals are for. */
void
_km_document_open_targets (KmDocument *self,
                           KmItem     *fresh,
                           const char *label)
{
  KmItem *replaced;
  TargetsSwap *swap;

  g_return_if_fail (KM_IS_DOCUMENT (self));
  g_return_if_fail (KM_IS_IK_TARGETS_ITEM (fresh));
  g_return_if_fail (self->body != NULL);

  replaced = km_item_find_child_by_type (KM_ITEM (self->body), KM_TYPE_IK_TARGETS_ITEM);
  g_return_if_fail (replaced != NULL);
  km_item_set_checked (fresh, km_item_get_checked (replaced));
  _km_document_reread (self, replaced, fresh);
  swap = g_new0 (TargetsSwap, 1);
  swap->document = self;
  swap->parent = g_object_ref (KM_ITEM (self->body));
  swap->position = (guint) km_item_get_index (replaced);
  swap->replaced = g_object_ref (replaced);
  swap->fresh = g_object_ref (fresh);
  km_project_push_command (self->project, label, targets_swap_redo, targets_swap_undo,
                           NULL, NULL, swap, targets_swap_free);
  km_project_close_merge (self->project);
}

/* Before the project is written (a save, an autosave): the shown body's motion, when the
 * solve of its targets started and never finished, is not their solve, and is written so
 * (km_ik_animation_item_set_solved_from_other_targets), so that reopened, its residuals
 * are not measured against targets it was not solved from. */
KmItem *
_km_document_mark_unsolved_motion (KmDocument *self)
{
  KmItem *item;

  g_return_val_if_fail (KM_IS_DOCUMENT (self), NULL);

  if (self->body == NULL || self->unsolved_targets == NULL
      || self->unsolved_targets != self->targets)
    return NULL;
  item = km_item_find_child_by_type (KM_ITEM (self->body), KM_TYPE_IK_ANIMATION_ITEM);
  if (item == NULL
      || km_ik_animation_item_get_animation (KM_IK_ANIMATION_ITEM (item)) == NULL
      || km_ik_animation_item_get_solved_from_other_targets (KM_IK_ANIMATION_ITEM (item)))
    return NULL;
  km_ik_animation_item_set_solved_from_other_targets (KM_IK_ANIMATION_ITEM (item), TRUE);
  return g_object_ref (item);
}

void
_km_document_unmark_motion (KmItem *marked)
{
  if (marked != NULL)
    km_ik_animation_item_set_solved_from_other_targets (KM_IK_ANIMATION_ITEM (marked), FALSE);
}

/* Removes @items (with their subtrees) as one undoable step; items inside another removed
 * item and the root are skipped. */
void
km_document_remove_items (KmDocument *self,
                          GPtrArray  *items)
{
  TreeEdit *edit;

  g_return_if_fail (KM_IS_DOCUMENT (self));
  g_return_if_fail (items != NULL);

  edit = tree_edit_new (self, FALSE);
  for (guint i = 0; i < items->len; i++)
    {
      KmItem *item = g_ptr_array_index (items, i);
      gboolean inside = FALSE;

      if (km_item_get_parent (item) == NULL || !is_attached (self, item))
        continue;
      for (guint j = 0; j < items->len && !inside; j++)
        inside = j != i && km_item_is_ancestor_of (g_ptr_array_index (items, j), item);
      if (!inside)
        tree_edit_add (edit, km_item_get_parent (item), item, (guint) km_item_get_index (item));
    }
  if (edit->items->len == 0)
    {
      tree_edit_free (edit);
      return;
    }

  km_document_cancel_solve (self);
  km_project_clear_selection (self->project);
  km_project_push_command (self->project,
                           edit->items->len == 1 ? _("Delete Item") : _("Delete Items"),
                           tree_edit_redo, tree_edit_undo, NULL, NULL, edit, tree_edit_free);
  km_project_close_merge (self->project);
}

void
km_document_rename_item (KmDocument *self,
                         KmItem     *item,
                         const char *name)
{
  g_return_if_fail (KM_IS_DOCUMENT (self));
  g_return_if_fail (KM_IS_ITEM (item));
  g_return_if_fail (name != NULL);

  if (*name == '\0')
    return;
  km_project_rename_item (self->project, item, name);
  km_project_close_merge (self->project);
}

void
km_document_check_item (KmDocument *self,
                        KmItem     *item,
                        gboolean    checked)
{
  g_return_if_fail (KM_IS_DOCUMENT (self));
  g_return_if_fail (KM_IS_ITEM (item));

  if (km_item_get_checked (item) == !!checked)
    return;
  km_project_check_item (self->project, item, checked);
  km_project_close_merge (self->project);
}

/* A copy of @item and its subtree through the item's own store and restore, so that every
 * key (also those Kinema does not interpret) is copied. A body keeps its loaded model. */
static KmItem *
copy_item (KmItem   *item,
           KmItemIo *io)
{
  g_autoptr(KmYamlNode) data = km_item_store (item, io);
  g_autoptr(GError) error = NULL;
  KmItem *copy;

  if (KM_IS_UNKNOWN_ITEM (item))
    {
      g_autoptr(KmYamlNode) node = km_yaml_node_copy (km_unknown_item_get_node (KM_UNKNOWN_ITEM (item)));

      copy = km_unknown_item_new (node, km_unknown_item_get_verbatim_children (KM_UNKNOWN_ITEM (item)));
    }
  else
    {
      copy = g_object_new (G_OBJECT_TYPE (item), NULL);
      if (!km_item_restore (copy, data, io, &error))
        g_ptr_array_add (io->messages, g_strdup (error->message));
    }

  /* The built-in example's model is the embedded one, whatever "skeleton.json" the
   * working directory has. */
  if (KM_IS_BODY_ITEM (item) && km_body_item_get_skeleton (KM_BODY_ITEM (item)) != NULL
      && (km_body_item_get_skeleton (KM_BODY_ITEM (copy)) == NULL
          || g_object_get_data (G_OBJECT (item), "km-embedded-model") != NULL))
    {
      KmBodyItem *body = KM_BODY_ITEM (item);
      guint n_dof;
      const double *q = km_body_item_get_joint_state (body, &n_dof);
      const char *text_format;
      GBytes *text = km_body_item_get_model_text (body, &text_format);

      km_body_item_set_model (KM_BODY_ITEM (copy), km_body_item_get_file (body),
                              km_body_item_get_format (body), km_body_item_get_skeleton (body));
      /* The source's model, so what it was read from: the copy read none of its own. */
      km_body_item_set_model_text (KM_BODY_ITEM (copy), text_format, text);
      km_body_item_set_model_checksum (KM_BODY_ITEM (copy),
                                       km_body_item_get_model_checksum (body));
      km_item_set_problem (copy, NULL);
      if (n_dof > 0)
        km_body_item_set_joint_state (KM_BODY_ITEM (copy), q, n_dof);
    }
  if (g_object_get_data (G_OBJECT (item), "km-embedded-model") != NULL)
    g_object_set_data (G_OBJECT (copy), "km-embedded-model", GINT_TO_POINTER (TRUE));
  else
    _km_document_record_reread (io, item, copy);
  km_item_set_name (copy, km_item_get_name (item));
  km_item_set_checked (copy, km_item_get_checked (item));

  if (!KM_IS_UNKNOWN_ITEM (item)
      || !km_unknown_item_get_verbatim_children (KM_UNKNOWN_ITEM (item)))
    for (guint i = 0; i < km_item_get_n_children (item); i++)
      {
        g_autoptr(KmItem) child = copy_item (km_item_get_child (item, i), io);

        km_item_append_child (copy, child);
      }
  return copy;
}

/**
 * km_document_item_io_init:
 *
 * Fills @io for reading or copying the files of an item of @self's project: relative
 * references resolve against the folder the project was read from (which stays so after a
 * save elsewhere), else the working directory. Free with km_document_item_io_clear().
 */
void
km_document_item_io_init (KmDocument       *self,
                          KmDocumentItemIo *io)
{
  const char *file;

  g_return_if_fail (KM_IS_DOCUMENT (self));
  g_return_if_fail (io != NULL);

  file = km_project_get_file (self->project);
  io->dir = km_cnoid_reference_dir (self->project);
  if (io->dir == NULL)
    io->dir = g_get_current_dir ();
  io->share_dir = file ? km_cnoid_find_share_dir (file) : NULL;
  io->messages = g_ptr_array_new_with_free_func (g_free);
  io->open_files = g_ptr_array_new_with_free_func (g_free);
  io->io = (KmItemIo) {
    .file = file ? file : "",
    .dir = io->dir,
    .share_dir = io->share_dir,
    .messages = io->messages,
    .open_files = io->open_files,
  };
}

void
km_document_item_io_clear (KmDocumentItemIo *io)
{
  g_clear_pointer (&io->dir, g_free);
  g_clear_pointer (&io->share_dir, g_free);
  g_clear_pointer (&io->messages, g_ptr_array_unref);
  g_clear_pointer (&io->open_files, g_ptr_array_unref);
}

/**
 * km_document_duplicate_items:
 *
 * Puts a copy of each of @items (with its subtree) right after it, as one undoable step.
 */
void
km_document_duplicate_items (KmDocument *self,
                             GPtrArray  *items)
{
  g_auto(KmDocumentItemIo) io = { 0 };
  TreeEdit *edit;

  g_return_if_fail (KM_IS_DOCUMENT (self));
  g_return_if_fail (items != NULL);

  km_document_item_io_init (self, &io);

  /* From the last item back, so that each position is still right when it is used (items
   * come in tree order; a copy goes right after its original). */
  edit = tree_edit_new (self, TRUE);
  for (guint i = items->len; i-- > 0;)
    {
      KmItem *item = g_ptr_array_index (items, i);
      g_autoptr(KmItem) copy = NULL;
      g_autofree char *name = NULL;

      if (km_item_get_parent (item) == NULL || !is_attached (self, item))
        continue;
      copy = copy_item (item, &io.io);
      /* Translators: the name of a duplicated item; %s is the original's name */
      name = g_strdup_printf (_("%s (copy)"), km_item_get_name (item));
      km_item_set_name (copy, name);
      tree_edit_add (edit, km_item_get_parent (item), copy, (guint) km_item_get_index (item) + 1);
    }
  for (guint i = 0; i < io.messages->len; i++)
    km_document_log (self, G_LOG_LEVEL_WARNING, "%s",
                     (const char *) g_ptr_array_index (io.messages, i));
  if (edit->items->len == 0)
    {
      tree_edit_free (edit);
      return;
    }
  km_project_push_command (self->project, _("Duplicate"), tree_edit_redo, tree_edit_undo,
                           NULL, NULL, edit, tree_edit_free);
  km_project_close_merge (self->project);
}

/**
 * km_document_item_accepts:
 *
 * Whether @parent can take @item as a child: IK targets and animations belong to a body,
 * bodies to a world or folder, worlds and folders anywhere but inside a body, and nothing
 * goes inside itself.
 */
gboolean
km_document_item_accepts (KmItem *parent,
                          KmItem *item)
{
  g_return_val_if_fail (KM_IS_ITEM (parent), FALSE);
  g_return_val_if_fail (KM_IS_ITEM (item), FALSE);

  if (parent == item || km_item_is_ancestor_of (item, parent) || KM_IS_ROOT_ITEM (item))
    return FALSE;
  if (KM_IS_UNKNOWN_ITEM (parent)
      && km_unknown_item_get_verbatim_children (KM_UNKNOWN_ITEM (parent)))
    return FALSE;
  if (KM_IS_IK_TARGETS_ITEM (item) || KM_IS_IK_ANIMATION_ITEM (item))
    return KM_IS_BODY_ITEM (parent);
  if (KM_IS_BODY_ITEM (item))
    return KM_IS_WORLD_ITEM (parent) || KM_IS_FOLDER_ITEM (parent) || KM_IS_ROOT_ITEM (parent);
  if (KM_IS_WORLD_ITEM (item) || KM_IS_FOLDER_ITEM (item))
    return !KM_IS_BODY_ITEM (parent) && !KM_IS_IK_TARGETS_ITEM (parent)
           && !KM_IS_IK_ANIMATION_ITEM (parent);
  return !KM_IS_IK_TARGETS_ITEM (parent) && !KM_IS_IK_ANIMATION_ITEM (parent);
}

/**
 * km_document_move_item:
 *
 * Moves @item to @position among @parent's children (the position counts the children
 * before the move), undoably. Returns FALSE, changing nothing, when @parent cannot take
 * @item (km_document_item_accepts).
 */
gboolean
km_document_move_item (KmDocument *self,
                       KmItem     *item,
                       KmItem     *parent,
                       guint       position)
{
  MoveEdit *edit;
  KmItem *old_parent;
  guint old_position;

  g_return_val_if_fail (KM_IS_DOCUMENT (self), FALSE);
  g_return_val_if_fail (KM_IS_ITEM (item), FALSE);
  g_return_val_if_fail (KM_IS_ITEM (parent), FALSE);

  old_parent = km_item_get_parent (item);
  if (old_parent == NULL || !is_attached (self, item) || !is_attached (self, parent)
      || !km_document_item_accepts (parent, item))
    return FALSE;

  old_position = (guint) km_item_get_index (item);
  position = MIN (position, km_item_get_n_children (parent));
  if (parent == old_parent && position > old_position)
    position--;
  if (parent == old_parent && position == old_position)
    return TRUE;

  km_document_cancel_solve (self);
  edit = g_new0 (MoveEdit, 1);
  edit->document = self;
  edit->item = g_object_ref (item);
  edit->old_parent = g_object_ref (old_parent);
  edit->old_position = old_position;
  edit->new_parent = g_object_ref (parent);
  edit->new_position = position;
  km_project_push_command (self->project, _("Move Item"), move_edit_redo, move_edit_undo,
                           NULL, NULL, edit, move_edit_free);
  km_project_close_merge (self->project);
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

/* The pose sequence that plays, or NULL (an IK animation, or nothing, plays). */
static KmPoseSeq *
playing_pose_seq (KmDocument *self)
{
  if (self->animation == NULL || !KM_IS_POSE_SEQ_ITEM (self->animation_source)
      || km_animation_source_get_animation (self->animation_source) != self->animation)
    return NULL;
  return km_pose_seq_item_get_pose_seq (KM_POSE_SEQ_ITEM (self->animation_source));
}

/**
 * km_document_get_n_pose_keys:
 *
 * Returns: the number of key poses of the pose sequence that plays (Choreonoid's keys,
 *   read-only in Kinema), 0 when none plays
 */
guint
km_document_get_n_pose_keys (KmDocument *self)
{
  KmPoseSeq *seq;

  g_return_val_if_fail (KM_IS_DOCUMENT (self), 0);

  seq = playing_pose_seq (self);
  return seq != NULL ? km_pose_seq_get_n_keys (seq) : 0;
}

/**
 * km_document_get_pose_key_frame:
 * @index: below km_document_get_n_pose_keys()
 *
 * Returns: the frame nearest to the time of that key pose, within the animation
 */
guint
km_document_get_pose_key_frame (KmDocument *self,
                                guint       index)
{
  KmPoseSeq *seq;
  double frame;

  g_return_val_if_fail (KM_IS_DOCUMENT (self), 0);
  g_return_val_if_fail (index < km_document_get_n_pose_keys (self), 0);

  seq = playing_pose_seq (self);
  frame = round (km_pose_seq_get_key (seq, index)->time
                 * km_animation_get_frame_rate (self->animation));
  return (guint) CLAMP (frame, 0.0, (double) km_animation_get_n_frames (self->animation) - 1);
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

/* FALSE marks the project's current state as the saved one; TRUE forces the mark until
 * the next save or load. */
void
km_document_set_modified (KmDocument *self,
                          gboolean    modified)
{
  g_return_if_fail (KM_IS_DOCUMENT (self));

  self->forced_modified = !!modified;
  if (!modified)
    km_project_set_clean (self->project);
  update_modified (self);
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

/**
 * km_document_get_pose_unkeyed:
 * @frame: (out) (optional): the frame it was edited at (the current one)
 *
 * Whether the pose shown comes from a joint edit (a drag, the Pose tab) and differs from
 * the solved motion at the current frame, which a frame change would show instead: the
 * pose is not keyed. Keying it (km_document_mark_pose_keyed), undoing the edit or a frame
 * change ends it.
 */
gboolean
km_document_get_pose_unkeyed (KmDocument *self,
                              guint      *frame)
{
  g_return_val_if_fail (KM_IS_DOCUMENT (self), FALSE);

  if (frame != NULL)
    *frame = self->pose_unkeyed ? self->unkeyed_frame : self->current_frame;
  return self->pose_unkeyed;
}

/* The pose shown was just keyed at the current frame: the motion that replaces it is its
 * own, not a loss to report. */
void
km_document_mark_pose_keyed (KmDocument *self)
{
  g_return_if_fail (KM_IS_DOCUMENT (self));

  set_pose_unkeyed (self, FALSE);
}

static void
close_edit_cb (gpointer data)
{
  KmDocument *self = data;

  self->close_edit_id = 0;
  km_project_close_merge (self->project);
}

/*
 * The independent joint a 1-DOF joint follows (KmJoint.mimic: masters follow no one) and
 * the map from its value: q[joint] = *ratio · q[master] + *offset. The joint itself
 * (ratio 1, offset 0) when it is independent; -1 when it has not exactly one DOF.
 */
static int
mimic_master (KmSkeleton *skeleton,
              int         joint,
              double     *ratio,
              double     *offset)
{
  const KmJoint *j = km_skeleton_get_joint (skeleton, (guint) joint);

  if (j->n_dof != 1 || j->dof_index < 0)
    return -1;
  *ratio = j->mimic >= 0 ? j->mimic_ratio : 1.0;
  *offset = j->mimic >= 0 ? j->mimic_offset : 0.0;
  return j->mimic >= 0 ? j->mimic : joint;
}

/**
 * km_document_get_dof_range:
 * @lower: (out): the lowest value, -∞ when unlimited
 * @upper: (out): the highest value, +∞ when unlimited
 *
 * The values @dof can take in the Pose tab: its joint limits, except for linked (mimic)
 * joints: a master's range narrows so that its followers stay within theirs (as the
 * solver's), and a follower's is the image of its master's.
 *
 * Returns: %FALSE (and ±∞) without a skeleton or for a DOF out of range
 */
gboolean
km_document_get_dof_range (KmDocument *self,
                           guint       dof,
                           double     *lower,
                           double     *upper)
{
  const KmJoint *j;
  int joint, master;
  double r, o, lo, hi;

  g_return_val_if_fail (KM_IS_DOCUMENT (self), FALSE);
  g_return_val_if_fail (lower != NULL && upper != NULL, FALSE);

  *lower = -INFINITY;
  *upper = INFINITY;
  if (self->skeleton == NULL || dof >= km_skeleton_get_n_dof (self->skeleton))
    return FALSE;

  joint = km_skeleton_get_dof_joint (self->skeleton, dof);
  j = km_skeleton_get_joint (self->skeleton, (guint) joint);
  if (j->limits[dof - (guint) j->dof_index].limited)
    {
      *lower = j->limits[dof - (guint) j->dof_index].min;
      *upper = j->limits[dof - (guint) j->dof_index].max;
    }
  if (!km_skeleton_has_mimic (self->skeleton) || j->n_dof != 1
      || (master = mimic_master (self->skeleton, joint, &r, &o)) < 0 || !(r != 0.0))
    return TRUE;

  km_skeleton_get_mimic_range (self->skeleton, (guint) master, &lo, &hi);
  if (master == joint)
    {
      *lower = lo;
      *upper = hi;
      return TRUE;
    }
  lo = r * lo + o;
  hi = r * hi + o;
  if (lo > hi)
    {
      double tmp = lo;

      lo = hi, hi = tmp;
    }
  /* Within the follower's own limits (the master's range keeps it there, up to rounding). */
  *lower = isfinite (lo) ? MAX (lo, *lower) : *lower;
  *upper = isfinite (hi) ? MIN (hi, *upper) : *upper;
  if (*lower > *upper)
    *lower = *upper = CLAMP (lo, *lower, *upper);
  return TRUE;
}

/**
 * km_document_get_solved_dofs:
 * @moving: (out caller-allocates) (array) (nullable): km_skeleton_get_n_dof() flags, set
 *   for each DOF an IK solve moves
 *
 * The DOFs the IK solve moves, by the solver's own rule (km_ik_problem_get_moved_dofs() of
 * the problem the document solves): those of the joints on the path from the end effector
 * up to the root, the masters of linked (mimic) joints on it wherever they are (a gripper's
 * other finger), and every follower of those. Every other DOF keeps its value.
 *
 * Returns: how many independent DOFs (not followers) the solve moves
 */
guint
km_document_get_solved_dofs (KmDocument *self,
                             gboolean   *moving)
{
  g_autoptr(KmIkProblem) problem = NULL;
  guint n_dof;

  g_return_val_if_fail (KM_IS_DOCUMENT (self), 0);

  n_dof = self->skeleton ? km_skeleton_get_n_dof (self->skeleton) : 0;
  if (self->skeleton == NULL || self->effector < 0)
    {
      if (moving != NULL)
        memset (moving, 0, n_dof * sizeof (gboolean));
      return 0;
    }
  /* The problem start_solve() hands the solver, as far as what moves goes. */
  problem = km_ik_problem_new (self->skeleton, self->effector);
  return km_ik_problem_get_moved_dofs (problem, moving);
}

/**
 * km_document_get_solves_orientation:
 *
 * Whether the IK solve can meet the targets' orientation as well as their position: its
 * chain has 6 or more independent DOFs, orientation has a weight and the targets ask for it
 * (position-only targets do not). A shorter chain (a 5-DOF arm) reaches the position and
 * turns only as far as its joints allow, by design.
 */
gboolean
km_document_get_solves_orientation (KmDocument *self)
{
  g_return_val_if_fail (KM_IS_DOCUMENT (self), FALSE);

  if (self->targets != NULL && km_target_track_get_position_only (self->targets))
    return FALSE;
  return KM_IK_DEFAULT_ORIENTATION_WEIGHT > 0.0 && km_document_get_solved_dofs (self, NULL) >= 6;
}

/**
 * km_document_get_animation_solved:
 *
 * Whether the animation shown is an IK solve's: one being solved (its frames have
 * residuals), or the body's solved animation with targets to solve, as read from a file
 * (its residuals are measured again on a worker, and the animation notifies when they are
 * in). Such a motion moves only km_document_get_solved_dofs(); others (a pose sequence, an
 * animation imported without targets) may move every joint.
 */
gboolean
km_document_get_animation_solved (KmDocument *self)
{
  g_return_val_if_fail (KM_IS_DOCUMENT (self), FALSE);

  return self->animation != NULL
         && (km_animation_has_residuals (self->animation) || animation_measurable (self));
}

/* Sets one DOF (clamped into its range, km_document_get_dof_range), as the joint panel
 * does: the body moves at once. A linked (mimic) joint moves its master, and the master
 * all its followers, so they stay exactly linked. Undoable; joint values set in quick
 * succession (a slider drag) are one step until a pause of EDIT_MERGE_PAUSE_MS,
 * km_document_close_edit or another kind of edit. */
void
km_document_set_dof_value (KmDocument *self,
                           guint       dof,
                           double      value)
{
  double lower, upper, ratio = 1.0, offset = 0.0;
  int joint, master = -1;
  const KmJoint *j;
  JointEdit *edit;
  KmBodyHandlerSet *handlers;

  g_return_if_fail (KM_IS_DOCUMENT (self));
  g_return_if_fail (self->skeleton != NULL && self->body != NULL);
  g_return_if_fail (dof < km_skeleton_get_n_dof (self->skeleton));

  if (!isfinite (value))
    return;

  joint = km_skeleton_get_dof_joint (self->skeleton, dof);
  j = km_skeleton_get_joint (self->skeleton, joint);
  km_document_get_dof_range (self, dof, &lower, &upper);
  value = CLAMP (value, lower, upper);
  if (self->pose[dof] == value)
    return;
  if (km_skeleton_has_mimic (self->skeleton) && j->n_dof == 1)
    master = mimic_master (self->skeleton, joint, &ratio, &offset);

  edit = joint_edit_new (self, dof);
  edit->after[dof] = value;
  /* Moving a linked (mimic) joint moves the joint it follows (through chained links), and
   * that one moves every follower. */
  if (master >= 0 && master != joint && ratio != 0.0)
    {
      double lo, hi;

      km_skeleton_get_mimic_range (self->skeleton, (guint) master, &lo, &hi);
      edit->after[km_skeleton_get_joint (self->skeleton, (guint) master)->dof_index]
        = CLAMP ((value - offset) / ratio, lo, hi);
    }
  km_skeleton_apply_mimic (self->skeleton, edit->after);
  handlers = km_body_item_get_body_handlers (self->body);
  if (handlers != NULL && j->n_dof == 1 && km_body_handler_set_is_linked_joint (handlers, joint))
    km_body_handler_set_apply_linked (handlers, joint, value, edit->after);
  km_project_push_command (self->project, _("Change Joint Value"), joint_edit_redo,
                           joint_edit_undo, joint_edit_merge, "km-document-joints", edit,
                           joint_edit_free);
  g_clear_handle_id (&self->close_edit_id, g_source_remove);
  if (self->edit_holder == NULL)
    self->close_edit_id = g_timeout_add_once (EDIT_MERGE_PAUSE_MS, close_edit_cb, self);
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

/**
 * km_document_get_root_pose:
 * @root_pose: (out): where the shown skeleton's root stands in the world
 *
 * The root pose km_document_get_joint_world() is computed with: the one the playing
 * animation gives at the current frame (a pose sequence's walking waist), else identity.
 * An IK problem for a drag in the world frame must stand its skeleton there too.
 *
 * Returns: whether the animation gives the root pose (%FALSE: identity)
 */
gboolean
km_document_get_root_pose (KmDocument  *self,
                           KmTransform *root_pose)
{
  g_return_val_if_fail (KM_IS_DOCUMENT (self), FALSE);
  g_return_val_if_fail (root_pose != NULL, FALSE);

  if (self->has_root_pose)
    *root_pose = self->root_pose;
  else
    km_transform_identity (root_pose);
  return self->has_root_pose;
}

int
km_document_get_effector (KmDocument *self)
{
  g_return_val_if_fail (KM_IS_DOCUMENT (self), -1);

  return self->effector;
}

/**
 * km_document_get_effector_point:
 * @point: (out caller-allocates): the point's world transform
 *
 * Where the end effector is, as the targets mean it: the effector joint's world transform
 * composed with the targets' effector offset (km_target_track_get_effector_offset(), a
 * tool point off the joint; the joint's origin without one). Its rotation is the joint's.
 * What Set Keyframe keys, what the scene view's gizmo drags, and what the solver aims at
 * the targets (km_ik_problem_use_track()).
 *
 * Returns: %FALSE (and @point unset) without an end effector or a pose
 */
gboolean
km_document_get_effector_point (KmDocument  *self,
                                KmTransform *point)
{
  g_return_val_if_fail (KM_IS_DOCUMENT (self), FALSE);
  g_return_val_if_fail (point != NULL, FALSE);

  if (self->effector < 0 || self->world == NULL || self->skeleton == NULL
      || (guint) self->effector >= km_skeleton_get_n_joints (self->skeleton))
    return FALSE;
  effector_point_for (self, self->targets, point);
  return TRUE;
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
              KmTransform root;
              gboolean moves_root;

              if (q == NULL)
                continue;
              moves_root = self->animation_source != NULL
                           && km_animation_source_get_animation (self->animation_source)
                              == self->animation
                           && km_animation_source_get_root_pose (self->animation_source, f,
                                                                 &root);
              km_skeleton_forward_kinematics (self->skeleton, q, moves_root ? &root : NULL,
                                              world);
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

/* The selection is view state: the current body keeps it by name (its
 * kinema_selected_joint), which a save and an autosave write and an open selects again
 * (show_saved_state), but it is no edit: the project stays as modified as it was. */
void
km_document_set_selected_joint (KmDocument *self,
                                int         joint)
{
  g_return_if_fail (KM_IS_DOCUMENT (self));

  if (self->skeleton == NULL || joint < 0 || (guint) joint >= km_skeleton_get_n_joints (self->skeleton))
    joint = -1;
  if (self->body != NULL && self->skeleton != NULL)
    km_body_item_set_selected_joint (self->body,
                                     joint >= 0 ? km_skeleton_get_joint (self->skeleton,
                                                                         (guint) joint)->name
                                                : NULL);
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

/**
 * km_document_set_current_time:
 * @seconds: a time bar time (a project's saved `current_time`), not negative
 *
 * Moves to the frame nearest @seconds at the document's frame rate, at most the last frame
 * of the time bar's range (km_document_set_current_frame), which takes in the project's
 * saved range (km_document_get_project_max_time): a time past the motion's end that the
 * project was saved at is kept (it used to be clamped to the motion's last frame, so an
 * unedited save wrote another time).
 */
void
km_document_set_current_time (KmDocument *self,
                              double      seconds)
{
  double frame;

  g_return_if_fail (KM_IS_DOCUMENT (self));
  g_return_if_fail (seconds >= 0.0);

  frame = round (seconds * self->frame_rate);
  km_document_set_current_frame (self, (guint) MIN (frame, (double) (self->timeline_frames - 1)));
}

/* Scrubbing: moves to @frame (clamped to the time bar's range, km_document_get_timeline_frames)
 * and poses the body from the solved animation there (its last frame past its end). */
void
km_document_set_current_frame (KmDocument *self,
                               guint       frame)
{
  g_return_if_fail (KM_IS_DOCUMENT (self));

  frame = MIN (frame, self->timeline_frames - 1);
  if (self->current_frame == frame)
    return;

  self->current_frame = frame;
  pose_from_animation (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CURRENT_FRAME]);
}

/**
 * km_document_get_n_frames:
 *
 * Returns: the frames of the motion: up to the targets' last keyframe, or the animation's
 *   (a pose sequence's) frames; what a solve and animation.json cover. 1 without either.
 */
guint
km_document_get_n_frames (KmDocument *self)
{
  g_return_val_if_fail (KM_IS_DOCUMENT (self), 1);

  return self->n_frames;
}

/**
 * km_document_get_timeline_frames:
 *
 * The time bar's range, which runs on past the motion so that a later frame can be
 * keyed: km_document_get_n_frames() plus TIMELINE_TAIL_SECONDS at the frame rate, and at
 * least TIMELINE_MIN_SECONDS long and as long as the project's saved range
 * (km_document_get_project_max_time). Past the motion the pose of its last frame holds.
 *
 * Returns: the number of frames, at least km_document_get_n_frames()
 */
guint
km_document_get_timeline_frames (KmDocument *self)
{
  g_return_val_if_fail (KM_IS_DOCUMENT (self), 1);

  return self->timeline_frames;
}

double
km_document_get_frame_rate (KmDocument *self)
{
  g_return_val_if_fail (KM_IS_DOCUMENT (self), KM_TARGET_TRACK_DEFAULT_FRAME_RATE);

  return self->frame_rate;
}

/**
 * km_document_get_project_max_time:
 *
 * Returns: the end of the project's saved time bar range (Choreonoid's TimeBar
 *   `max_time`) in seconds, as it was read with the project, or 0 when it has none
 */
double
km_document_get_project_max_time (KmDocument *self)
{
  g_return_val_if_fail (KM_IS_DOCUMENT (self), 0);

  return self->project_max_time;
}

/**
 * km_document_get_project_min_time:
 *
 * Returns: the start of the project's saved time bar range (Choreonoid's TimeBar
 *   `min_time`) in seconds, as it was read with the project, or 0 when it has none
 */
double
km_document_get_project_min_time (KmDocument *self)
{
  g_return_val_if_fail (KM_IS_DOCUMENT (self), 0);

  return self->project_min_time;
}

/**
 * km_document_get_project_frame_rate:
 *
 * The project's own time bar frame rate, the one a save writes as Choreonoid's TimeBar
 * `frame_rate`: the one the project's TimeBar had when it was opened, whichever body is
 * current (its IK targets or animation may run at a rate of their own,
 * km_document_get_frame_rate); for a project without one (a new project), the rate the
 * time bar showed when it was opened.
 */
double
km_document_get_project_frame_rate (KmDocument *self)
{
  g_return_val_if_fail (KM_IS_DOCUMENT (self), KM_TARGET_TRACK_DEFAULT_FRAME_RATE);

  if (self->project_frame_rate > 0)
    return self->project_frame_rate;
  return self->opened_frame_rate > 0 ? self->opened_frame_rate : self->frame_rate;
}

/**
 * km_document_solve:
 *
 * Solves the whole target track on the IK job's worker thread. Frame 0 is solved starting
 * from the body's solved motion at frame 0 where it has one that fits the skeleton, so that
 * solving (or keying) at a later frame does not move the start of the motion (a redundant
 * arm would take another elbow pose for all of it); at frame 0, or without such a motion,
 * from the pose shown (an edit there is where the user wants the motion to start). Joints
 * the solve does not move (off the end effector's chain) keep their value in the pose shown,
 * in every frame. Frames stream into the animation as they finish; a newer solve supersedes
 * this one.
 * The result replaces the body's solved animation as one undoable step.
 */
void
km_document_solve (KmDocument *self)
{
  g_return_if_fail (KM_IS_DOCUMENT (self));

  start_solve (self, TRUE);
}

/**
 * km_document_solve_completing:
 * @func: receives the solved animation instead of a step of its own
 * @destroy: (nullable): frees @user_data once the solve ends, is cancelled or superseded
 *
 * Solves as km_document_solve() does, for an edit that was just pushed and whose step the
 * new motion belongs to (a skeleton edit): when the solve finishes, @func stores the
 * animation (in the body's animation item, and in the edit's command for redo) and no
 * "Solve" step is recorded. Undoing the edit changes the body, which cancels the solve.
 *
 * Returns: whether a solve started (without a body, targets or end effector there is
 *   nothing to solve, and @user_data is freed at once)
 */
gboolean
km_document_solve_completing (KmDocument           *self,
                              KmDocumentSolvedFunc  func,
                              gpointer              user_data,
                              GDestroyNotify        destroy)
{
  g_return_val_if_fail (KM_IS_DOCUMENT (self), FALSE);
  g_return_val_if_fail (func != NULL, FALSE);

  start_solve (self, FALSE);
  if (self->solve_cancellable == NULL)
    {
      if (destroy != NULL)
        destroy (user_data);
      return FALSE;
    }
  self->solve_done = func;
  self->solve_done_data = user_data;
  self->solve_done_destroy = destroy;
  return TRUE;
}

void
km_document_cancel_solve (KmDocument *self)
{
  g_return_if_fail (KM_IS_DOCUMENT (self));

  clear_solve_done (self);
  if (self->solve_cancellable == NULL)
    return;

  g_cancellable_cancel (self->solve_cancellable);
  g_clear_object (&self->solve_cancellable);
  g_clear_object (&self->solve_body);
  clear_solve_aim (self);
  /* Back to the animation the body had before the solve began. */
  if (self->project != NULL && self->body != NULL && self->skeleton != NULL)
    {
      KmAnimationSource *source;
      KmAnimation *animation = body_animation (self, self->body, &source);

      set_animation (self, source, animation);
    }
  else
    set_animation (self, NULL, NULL);
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

/**
 * km_document_set_joint_values:
 * @q: (array length=n): DOF values of the current body, each clamped into its limits
 * @n: km_skeleton_get_n_dof() of the current skeleton
 *
 * Moves the current body to @q as one command (an IK drag answer): one undo step that
 * merges with the joint edits around it like km_document_set_dof_value() does, and one
 * re-sync of the document. Joints linked by the body's handlers are re-synced from @q
 * (km_body_handler_set_apply_linked() with joint -1), so that a pose which moved only
 * one joint of a closed link keeps the coupled joints consistent.
 */
void
km_document_set_joint_values (KmDocument   *self,
                              const double *q,
                              guint         n)
{
  KmBodyHandlerSet *handlers;
  JointEdit *edit;
  gboolean changed = FALSE;

  g_return_if_fail (KM_IS_DOCUMENT (self));
  g_return_if_fail (self->skeleton != NULL && self->body != NULL);
  g_return_if_fail (q != NULL || n == 0);
  g_return_if_fail (n == km_skeleton_get_n_dof (self->skeleton));

  edit = joint_edit_new (self, 0);
  for (guint dof = 0; dof < n; dof++)
    {
      const KmJoint *j = km_skeleton_get_joint (self->skeleton,
                                                km_skeleton_get_dof_joint (self->skeleton, dof));

      if (!isfinite (q[dof]))
        continue;
      edit->after[dof] = CLAMP (q[dof], j->limits[dof - j->dof_index].min,
                                j->limits[dof - j->dof_index].max);
    }
  /* A drag answer may move one joint of a closed link alone: re-sync the linked ones. */
  km_skeleton_apply_mimic (self->skeleton, edit->after);
  handlers = km_body_item_get_body_handlers (self->body);
  if (handlers != NULL && km_body_handler_set_has_linked_joints (handlers))
    km_body_handler_set_apply_linked (handlers, -1, 0.0, edit->after);
  for (guint dof = 0; dof < n; dof++)
    changed |= edit->after[dof] != self->pose[dof];
  if (!changed)
    {
      joint_edit_free (edit);
      return;
    }

  km_project_push_command (self->project, _("Change Joint Value"), joint_edit_redo,
                           joint_edit_undo, joint_edit_merge, "km-document-joints", edit,
                           joint_edit_free);
  g_clear_handle_id (&self->close_edit_id, g_source_remove);
  if (self->edit_holder == NULL)
    self->close_edit_id = g_timeout_add_once (EDIT_MERGE_PAUSE_MS, close_edit_cb, self);
}

/* Whether a project save (km_document_save_async) is running: it ends just before the
 * save's callback. */
gboolean
km_document_get_saving (KmDocument *self)
{
  g_return_val_if_fail (KM_IS_DOCUMENT (self), FALSE);

  return self->saving;
}

/* km-document-private.h: what km-document-io.c uses */

void
_km_document_set_file_identity (KmDocument *self,
                                KmProject  *project,
                                const char *identity)
{
  g_return_if_fail (KM_IS_DOCUMENT (self));

  if (project != self->project)
    return;
  g_free (self->file_identity);
  self->file_identity = g_strdup (identity);
}

/**
 * km_document_get_file_identity:
 *
 * What the document's file was on disk when the document last read or wrote it
 * (km_document_query_file_identity()), so that a change another program made since is
 * told: Save does not write over it (%G_IO_ERROR_WRONG_ETAG), and the editor says so.
 *
 * Returns: (nullable): the identity, or %NULL when the document has no file or did not
 *   learn it
 */
const char *
km_document_get_file_identity (KmDocument *self)
{
  g_return_val_if_fail (KM_IS_DOCUMENT (self), NULL);

  return self->file_identity;
}

void
_km_document_set_project (KmDocument *self,
                          KmProject  *project,
                          GFile      *file)
{
  set_project (self, project, file);
}

void
_km_document_sync (KmDocument *self)
{
  sync_from_project (self);
}

void
_km_document_auto_solve (KmDocument *self)
{
  auto_solve (self);
}

void
_km_document_parse_warning (const char *message,
                            gpointer    document)
{
  parse_warning_cb (message, document);
}

void
_km_document_import_model (KmDocument          *self,
                           GFile               *file,
                           const char          *path,
                           const KmFormat      *format,
                           KmSkeleton          *skeleton,
                           const KmModelExtras *extras)
{
  import_model (self, file, path, format, skeleton, extras);
}

void
_km_document_import_child (KmDocument *self,
                           GFile      *file,
                           KmItem     *item,
                           const char *label)
{
  import_child (self, file, item, label);
}

/* The state written is the one the project is in now: it becomes the project's clean
 * state (which also ends merging, so that an edit made while the file is written is a
 * step of its own), while the document keeps showing the modified flag it has until
 * _km_document_end_save. */
void
_km_document_begin_save (KmDocument *self)
{
  g_return_if_fail (!self->saving);

  self->saved_clean = km_project_get_clean_state (self->project);
  self->saved_forced = self->forced_modified;
  self->forced_modified = self->modified;
  km_project_set_clean (self->project);
  self->saving = TRUE;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SAVING]);
}

/* On success the document is modified only if the project left the state written; on
 * failure the clean state is the one from before the save again (the steps the history has
 * then are as they were), and the document is modified as it would be without the save. */
void
_km_document_end_save (KmDocument *self,
                       KmProject  *project,
                       GFile      *file)
{
  g_return_if_fail (self->saving);

  self->saving = FALSE;
  if (file != NULL && project == self->project)
    {
      g_autofree char *path = g_file_get_path (file);

      km_project_set_file (project, path);
      set_file (self, file);
      self->forced_modified = FALSE;
      update_modified (self);
    }
  else if (project == self->project)
    {
      km_project_restore_clean_state (project, self->saved_clean);
      self->forced_modified = self->saved_forced;
      update_modified (self);
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SAVING]);
}
