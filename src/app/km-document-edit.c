/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-document-edit"

#include "config.h"

#include <math.h>
#include <glib/gi18n.h>

#include "km-document-edit.h"
#include "km-animation-source.h"
#include "km-body-item.h"
#include "km-body-motion-item.h"
#include "km-ik-animation-item.h"
#include "km-pose-seq-item.h"

/**
 * km_document_set_pose:
 * @q: (array length=n_dof): DOF values, clamped into the joint limits
 *
 * Moves the body to @q as one command and one change: observers see a single `notify::pose`.
 */
void
km_document_set_pose (KmDocument   *self,
                      const double *q,
                      guint         n_dof)
{
  guint have;

  g_return_if_fail (KM_IS_DOCUMENT (self));
  g_return_if_fail (q != NULL || n_dof == 0);

  km_document_get_pose (self, &have);
  g_return_if_fail (n_dof == have);

  if (n_dof > 0)
    km_document_set_joint_values (self, q, n_dof);
}

/* Whether every DOF of the current pose lies within its limits (± @tolerance). */
gboolean
km_document_get_limits_held (KmDocument *self,
                             double      tolerance)
{
  KmSkeleton *skeleton;
  const double *q;

  g_return_val_if_fail (KM_IS_DOCUMENT (self), FALSE);

  skeleton = km_document_get_skeleton (self);
  q = km_document_get_pose (self, NULL);
  return skeleton == NULL || km_skeleton_within_limits (skeleton, q, tolerance);
}

/* The nearer of @best and @candidate in @direction from @frame (-1: none yet). */
static int
nearer_key (int   best,
            guint candidate,
            guint frame,
            int   direction)
{
  if (direction > 0 ? candidate <= frame : candidate >= frame)
    return best;
  if (best < 0 || (direction > 0 ? candidate < (guint) best : candidate > (guint) best))
    return (int) candidate;
  return best;
}

/**
 * km_document_find_keyframe_near:
 * @direction: 1 for the first keyframe after @frame, -1 for the last one before it
 *
 * Keyframes are the targets' and, where a pose sequence plays, its key poses.
 *
 * Returns: the frame of that keyframe, or -1 when there is none
 */
int
km_document_find_keyframe_near (KmDocument *self,
                                guint       frame,
                                int         direction)
{
  KmTargetTrack *targets;
  const KmTargetKeyframe *keys;
  guint n = 0;
  int best = -1;

  g_return_val_if_fail (KM_IS_DOCUMENT (self), -1);

  targets = km_document_get_targets (self);
  keys = targets != NULL ? km_target_track_get_keyframes (targets, &n) : NULL;
  for (guint i = 0; i < n; i++)
    best = nearer_key (best, keys[i].frame, frame, direction);
  for (guint i = 0; i < km_document_get_n_pose_keys (self); i++)
    best = nearer_key (best, km_document_get_pose_key_frame (self, i), frame, direction);
  return best;
}

/* The animation source below @item (not below another body) whose animation is
 * @animation, or NULL. */
static KmItem *
find_source_of (KmItem      *item,
                KmAnimation *animation)
{
  for (guint i = 0; i < km_item_get_n_children (item); i++)
    {
      KmItem *child = km_item_get_child (item, i);
      KmItem *found = NULL;

      if (KM_IS_ANIMATION_SOURCE (child)
          && km_animation_source_get_animation (KM_ANIMATION_SOURCE (child)) == animation)
        return child;
      if (!KM_IS_BODY_ITEM (child))
        found = find_source_of (child, animation);
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* While a motion Kinema does not edit plays (a pose sequence, a body motion: anything but
 * the body's own solved IK animation), keyframe edits would start an IK solve of new
 * targets that replaces its playback (and keys its moving waist against a fixed root):
 * it says what plays and leaves everything as it is. */
static gboolean
read_only_source_plays (KmDocument *self)
{
  KmAnimation *animation = km_document_get_animation (self);
  KmItem *body = km_document_get_body_item (self);
  KmItem *source;

  if (animation == NULL || body == NULL)
    return FALSE;
  source = find_source_of (body, animation);
  if (source == NULL || KM_IS_IK_ANIMATION_ITEM (source))
    return FALSE;
  if (KM_IS_POSE_SEQ_ITEM (source))
    /* Translators: the name of a pose sequence item */
    km_document_log (self, G_LOG_LEVEL_WARNING,
                     _("The pose sequence “%s” plays: pose sequences are read-only in "
                       "Kinema, so no keyframe was set or changed."),
                     km_item_get_name (source));
  else if (KM_IS_BODY_MOTION_ITEM (source))
    /* Translators: the name of a body motion item */
    km_document_log (self, G_LOG_LEVEL_WARNING,
                     _("The body motion “%s” plays: body motions are read-only in Kinema, "
                       "so no keyframe was set or changed."),
                     km_item_get_name (source));
  else
    /* Translators: the name of an item whose motion plays */
    km_document_log (self, G_LOG_LEVEL_WARNING,
                     _("“%s” plays: it is read-only in Kinema, so no keyframe was set or "
                       "changed."),
                     km_item_get_name (source));
  return TRUE;
}

/* One undoable step: the next edit does not merge into it. */
static void
commit_targets (KmDocument    *self,
                KmTargetTrack *targets)
{
  km_document_close_edit (self);
  km_document_set_targets (self, targets);
  km_document_close_edit (self);
}

/* The euler triple a file gave a keyframe of @targets whose rotation is, bit for bit,
 * @orientation (the one at @frame first): a keyframe moved, given another position or
 * pasted keeps the user's triple while its rotation stays (km_target_track_get_euler()). */
static gboolean
find_euler (KmTargetTrack *targets,
            guint          frame,
            KmQuat         orientation,
            KmVec3        *degrees)
{
  guint n = km_target_track_get_n_keyframes (targets);
  int at = km_target_track_find_keyframe (targets, frame);

  for (guint k = 0; k <= n; k++)
    {
      /* (k == 0: the keyframe at @frame; then all in order.) */
      int i = k == 0 ? at : (int) k - 1;
      const KmTargetKeyframe *key;

      if (i < 0 || (k > 0 && i == at))
        continue;
      key = km_target_track_get_keyframe (targets, (guint) i);
      if (key->orientation.w == orientation.w && key->orientation.x == orientation.x
          && key->orientation.y == orientation.y && key->orientation.z == orientation.z
          && km_target_track_get_euler (targets, (guint) i, degrees))
        return TRUE;
    }
  return FALSE;
}

/* @track, its keyframe at @frame keeping @degrees (its rotation's triple) and the others
 * theirs. */
static KmTargetTrack *
with_euler_at (KmTargetTrack *track,
               guint          frame,
               KmVec3         degrees)
{
  guint n = km_target_track_get_n_keyframes (track);
  g_autofree KmVec3 *all = g_new (KmVec3, MAX (n, 1));

  for (guint i = 0; i < n; i++)
    if (km_target_track_get_keyframe (track, i)->frame == frame)
      all[i] = degrees;
    else if (!km_target_track_get_euler (track, i, &all[i]))
      all[i] = km_vec3 (NAN, NAN, NAN);
  return km_target_track_with_eulers (track, all);
}

/* @targets with @keyframe put in (km_target_track_with_keyframe()), keeping the euler
 * triple of @source_frame's keyframe, or of another, while @keyframe has its rotation. */
static KmTargetTrack *
put_keeping_euler (KmTargetTrack          *targets,
                   KmTargetTrack          *source,
                   guint                   source_frame,
                   const KmTargetKeyframe *keyframe)
{
  g_autoptr(KmTargetTrack) track = km_target_track_with_keyframe (targets, keyframe);
  KmVec3 degrees;

  if (track == NULL || !find_euler (source, source_frame, keyframe->orientation, &degrees))
    return g_steal_pointer (&track);
  return with_euler_at (track, keyframe->frame, degrees);
}

/**
 * km_document_put_keyframe:
 *
 * Adds @keyframe to the targets, replacing one at its frame; creates the targets (for the
 * current end effector) when there are none. One undo step; the motion solves again.
 * Not while a pose sequence or a body motion plays (they are read-only): that logs a
 * warning naming it.
 *
 * Returns: %FALSE when there is no body, a read-only motion plays or the keyframe is
 *   unusable
 */
gboolean
km_document_put_keyframe (KmDocument             *self,
                          const KmTargetKeyframe *keyframe)
{
  g_autoptr(KmTargetTrack) track = NULL;
  KmTargetTrack *targets;
  KmSkeleton *skeleton;
  int effector;

  g_return_val_if_fail (KM_IS_DOCUMENT (self), FALSE);
  g_return_val_if_fail (keyframe != NULL, FALSE);

  if (read_only_source_plays (self))
    return FALSE;
  skeleton = km_document_get_skeleton (self);
  effector = km_document_get_effector (self);
  if (skeleton == NULL || effector < 0 || keyframe->frame > KM_TARGET_TRACK_MAX_FRAME
      || !km_vec3_is_finite (keyframe->position))
    return FALSE;

  targets = km_document_get_targets (self);
  if (targets != NULL)
    track = put_keeping_euler (targets, targets, keyframe->frame, keyframe);
  else
    track = km_target_track_new (keyframe, 1, km_skeleton_get_joint (skeleton, effector)->name,
                                 km_document_get_frame_rate (self), NULL);
  if (track == NULL)
    return FALSE;
  commit_targets (self, track);
  return TRUE;
}

/* How far (rad) the pose's rotation may be from the keyframe's there for K to keep it. */
#define SAME_ROTATION_EPSILON 1e-9

/* K at a keyframe whose pose still has its rotation (the solved pose's, never bit for bit
 * the keyframe's): the keyframe keeps its rotation, and so the euler triple its file gave
 * it (km_target_track_get_euler()), rather than turning by rounding and writing a triple
 * derived from that (180° written back as -180°). A pose turned further is keyed as is. */
static void
keep_keyed_rotation (KmTargetTrack    *targets,
                     KmTargetKeyframe *keyframe)
{
  const KmTargetKeyframe *keyed;
  KmVec3 degrees;
  int index;

  if (targets == NULL || (index = km_target_track_find_keyframe (targets, keyframe->frame)) < 0
      || !km_target_track_get_euler (targets, (guint) index, &degrees))
    return;
  keyed = km_target_track_get_keyframe (targets, (guint) index);
  if (km_quat_angle_between (keyed->orientation, keyframe->orientation) <= SAME_ROTATION_EPSILON)
    keyframe->orientation = keyed->orientation;
}

/* How far a DOF may be from the motion's value for K to count it unchanged. */
#define OFF_CHAIN_EPSILON 1e-9
/* At most this many joints are named by the message that K changed joints off the chain. */
#define OFF_CHAIN_MAX_NAMES 3

/* The names of the joints off the end effector's chain (whose DOFs the solve does not move,
 * km_document_get_solved_dofs()) whose value in the pose shown differs from the one the
 * solved motion holds at the current frame; a linked (mimic) follower goes with its
 * master, which is named instead. Such a joint holds one pose for the whole motion, the
 * one the solve starts from: keying this pose gives every frame its value. NULL when there
 * is none, or no solved motion. */
static GPtrArray *
changed_off_chain (KmDocument *self)
{
  g_autoptr(GPtrArray) names = NULL;
  g_autofree gboolean *moving = NULL;
  KmSkeleton *skeleton = km_document_get_skeleton (self);
  KmAnimation *animation = km_document_get_animation (self);
  const double *pose, *held;
  guint n_dof, n_frames;

  if (skeleton == NULL || animation == NULL || !km_document_get_animation_solved (self))
    return NULL;
  pose = km_document_get_pose (self, &n_dof);
  n_frames = km_animation_get_n_frames (animation);
  if (pose == NULL || n_frames == 0 || n_dof != km_skeleton_get_n_dof (skeleton)
      || km_animation_get_n_dof (animation) != n_dof)
    return NULL;
  /* Past the motion's end its last frame holds, as the document shows it. While a solve
   * streams its frames, the current one may not be solved yet: its first row is (solved,
   * or the seed it holds before the first frame solved), and off the chain every row holds
   * the same values. */
  held = km_animation_get_frame (animation,
                                 km_document_get_solving (self)
                                 ? 0 : MIN (km_document_get_current_frame (self), n_frames - 1));
  moving = g_new0 (gboolean, n_dof);
  km_document_get_solved_dofs (self, moving);

  for (guint i = 0; i < km_skeleton_get_n_joints (skeleton); i++)
    {
      const KmJoint *joint = km_skeleton_get_joint (skeleton, i);

      if (joint->dof_index < 0 || joint->mimic >= 0)
        continue;
      for (guint d = 0; d < joint->n_dof; d++)
        {
          guint dof = (guint) joint->dof_index + d;

          if (!moving[dof] && fabs (pose[dof] - held[dof]) > OFF_CHAIN_EPSILON)
            {
              if (names == NULL)
                names = g_ptr_array_new_with_free_func (g_free);
              g_ptr_array_add (names, g_strdup (joint->name));
              break;
            }
        }
    }
  return g_steal_pointer (&names);
}

/* Says in Messages that K gave the joints @names (changed_off_chain()) their keyed value in
 * every frame of the motion, which is by design but would otherwise go unseen. */
static void
log_off_chain_keyed (KmDocument *self,
                     GPtrArray  *names)
{
  g_autoptr(GString) list = g_string_new (NULL);
  g_autofree char *joints = NULL;
  guint shown = MIN (names->len, OFF_CHAIN_MAX_NAMES);

  for (guint i = 0; i < shown; i++)
    {
      if (i > 0)
        g_string_append (list, ", ");
      g_string_append (list, g_ptr_array_index (names, i));
    }
  if (names->len > shown)
    joints = g_strdup_printf (/* Translators: %s is a list of joint names ("A, B, C"), %u
                               * how many more joints there are */
                              g_dngettext (GETTEXT_PACKAGE, "%s and %u more",
                                           "%s and %u more", names->len - shown),
                              list->str, names->len - shown);
  else
    joints = g_string_free (g_steal_pointer (&list), FALSE);

  km_document_log (self, G_LOG_LEVEL_INFO,
                   /* Translators: %s names joints (one, or a list); K (Set Keyframe) keyed a
                    * pose whose values for them differ from the motion's: those joints are
                    * not on the IK chain, so they keep one pose for all frames */
                   g_dngettext (GETTEXT_PACKAGE,
                                "%s is off the end effector's chain: it holds one pose for "
                                "the whole motion, which now has this one in every frame "
                                "(Ctrl+Z undoes it).",
                                "%s are off the end effector's chain: they hold one pose for "
                                "the whole motion, which now has this one in every frame "
                                "(Ctrl+Z undoes it).",
                                names->len),
                   joints);
}

/**
 * km_document_set_keyframe:
 *
 * Records the end effector's current world pose as the target keyframe at @frame
 * (replacing one there), as one undo step. At the current frame that keys an unkeyed pose
 * (km_document_get_pose_unkeyed): the motion solved from it is what shows there next.
 * Re-keying a keyframe whose rotation the pose still has (within 1e-9 rad) keeps that
 * rotation and the euler triple its file gave it. Keyed at the current frame, a pose whose
 * joints off the effector's chain differ from the solved motion's there gives them that
 * value in every frame (they hold one pose for the whole motion): Messages names them.
 */
gboolean
km_document_set_keyframe (KmDocument *self,
                          guint       frame)
{
  const KmTransform *world;
  g_autoptr(GPtrArray) off_chain = NULL;
  KmTargetKeyframe keyframe;
  KmTransform point;
  int effector;

  g_return_val_if_fail (KM_IS_DOCUMENT (self), FALSE);

  effector = km_document_get_effector (self);
  world = km_document_get_joint_world (self, NULL);
  if (effector < 0 || world == NULL)
    return FALSE;

  keyframe.frame = frame;
  /* The point the targets are for: a tool point off the joint where they have an offset. */
  if (!km_document_get_effector_point (self, &point))
    return FALSE;
  keyframe.position = point.pos;
  keyframe.orientation = km_mat3_to_quat (&world[effector].rot);
  keep_keyed_rotation (km_document_get_targets (self), &keyframe);
  /* Before the keyframe goes in: the solve it starts replaces the motion compared with. */
  if (frame == km_document_get_current_frame (self))
    off_chain = changed_off_chain (self);
  if (!km_document_put_keyframe (self, &keyframe))
    return FALSE;
  if (frame == km_document_get_current_frame (self))
    km_document_mark_pose_keyed (self);
  if (off_chain != NULL)
    log_off_chain_keyed (self, off_chain);
  return TRUE;
}

/* Whether km_document_set_effector() would change something for @joint (for the
 * actions that call it to be enabled). */
gboolean
km_document_can_set_effector (KmDocument *self,
                              int         joint)
{
  KmSkeleton *skeleton;
  KmTargetTrack *targets;

  g_return_val_if_fail (KM_IS_DOCUMENT (self), FALSE);

  skeleton = km_document_get_skeleton (self);
  if (skeleton == NULL || km_document_get_body_item (self) == NULL || joint < 0
      || (guint) joint >= km_skeleton_get_n_joints (skeleton)
      || km_skeleton_get_joint (skeleton, (guint) joint)->parent < 0)
    return FALSE;
  /* The effector by default (no targets, or targets that name none) is named all the
   * same: the choice then holds whatever the model's default becomes. */
  targets = km_document_get_targets (self);
  return targets == NULL || km_target_track_get_effector (targets) == NULL
         || km_document_get_effector (self) != joint;
}

/* Targets for @joint as the end effector of a body without keyframes of its own (@targets
 * NULL, or keyed nowhere): one keyframe, at the current frame, where @joint is in the pose
 * shown. Nothing moves: the body has no keyframe to carry across to the new effector
 * (targets without keyframes would solve toward the world origin), and so the new effector
 * starts where it is, as K there would key it. @targets' frame rate, base and orientation
 * mode stay; an effector offset (the old effector's tool point) goes. */
static KmTargetTrack *
targets_from_shown_pose (KmDocument    *self,
                         KmTargetTrack *targets,
                         int            joint)
{
  const KmTransform *world = km_document_get_joint_world (self, NULL);
  const char *name = km_skeleton_get_joint (km_document_get_skeleton (self), (guint) joint)->name;
  g_autoptr(KmTargetTrack) keyed = NULL;
  g_autoptr(KmTargetTrack) named = NULL;
  KmTargetKeyframe keyframe;

  if (world == NULL)
    return NULL;
  keyframe.frame = km_document_get_current_frame (self);
  keyframe.position = world[joint].pos;
  keyframe.orientation = km_mat3_to_quat (&world[joint].rot);
  if (targets == NULL)
    return km_target_track_new (&keyframe, 1, name, km_document_get_frame_rate (self), NULL);
  named = km_target_track_with_effector (targets, name);
  keyed = named != NULL ? km_target_track_with_keyframe (named, &keyframe) : NULL;
  if (keyed == NULL || !km_target_track_has_effector_offset (keyed))
    return g_steal_pointer (&keyed);
  return km_target_track_with_tool (keyed, km_vec3 (0.0, 0.0, 0.0),
                                    km_target_track_get_position_only (keyed));
}

/**
 * km_document_set_effector:
 * @joint: a joint of the current body's skeleton, not its root
 *
 * Makes @joint the end effector of the current body's IK targets, as `--effector` does
 * for the command line: the targets name it, their keyframes stay where they are in the
 * world, and a tool point off the previous effector (an effector offset) goes, being in
 * that joint's frame. A body without keyframes of its own (no targets, or targets keyed
 * nowhere) has none to keep: its targets start with one keyframe at the current frame
 * where @joint is in the pose shown, so that nothing moves (targets_from_shown_pose()).
 * One undo step, which shows the pose of before again; the motion solves again, as after
 * any edit of the targets.
 *
 * Returns: %FALSE when nothing changed (no body, no such joint, the root, or @joint is
 *   already the effector the targets name)
 */
gboolean
km_document_set_effector (KmDocument *self,
                          int         joint)
{
  g_autoptr(KmTargetTrack) named = NULL;
  g_autoptr(KmTargetTrack) track = NULL;
  KmSkeleton *skeleton;
  KmTargetTrack *targets;
  const KmJoint *chosen;

  g_return_val_if_fail (KM_IS_DOCUMENT (self), FALSE);

  if (!km_document_can_set_effector (self, joint))
    return FALSE;
  skeleton = km_document_get_skeleton (self);
  chosen = km_skeleton_get_joint (skeleton, (guint) joint);
  targets = km_document_get_targets (self);
  if (targets == NULL || km_target_track_get_n_keyframes (targets) == 0)
    track = targets_from_shown_pose (self, targets, joint);
  else
    {
      named = km_target_track_with_effector (targets, chosen->name);
      track = km_target_track_has_effector_offset (named)
              ? km_target_track_with_tool (named, km_vec3 (0.0, 0.0, 0.0),
                                           km_target_track_get_position_only (named))
              : g_steal_pointer (&named);
    }
  if (track == NULL)
    return FALSE;
  commit_targets (self, track);
  return TRUE;
}

/* Removes the keyframe at @frame (one undo step); FALSE when there is none. */
gboolean
km_document_delete_keyframe (KmDocument *self,
                             guint       frame)
{
  g_autoptr(KmTargetTrack) track = NULL;
  KmTargetTrack *targets;

  g_return_val_if_fail (KM_IS_DOCUMENT (self), FALSE);

  targets = km_document_get_targets (self);
  if (targets == NULL || km_target_track_find_keyframe (targets, frame) < 0
      || read_only_source_plays (self))
    return FALSE;
  track = km_target_track_without_keyframe (targets, frame);
  if (track == NULL)
    return FALSE;
  commit_targets (self, track);
  return TRUE;
}

/**
 * km_document_move_keyframe:
 *
 * Moves the keyframe at @from to @to (one undo step). One already at @to is replaced, as
 * animation tools do when keys are moved onto keys; but never silently: Messages names
 * the keyframe replaced and how to get it back (a drop a few pixels off in a dense
 * timeline would otherwise lose keyed work unseen).
 */
gboolean
km_document_move_keyframe (KmDocument *self,
                           guint       from,
                           guint       to)
{
  g_autoptr(KmTargetTrack) without = NULL;
  g_autoptr(KmTargetTrack) track = NULL;
  KmTargetTrack *targets;
  KmTargetKeyframe keyframe;
  gboolean replaces;
  int index;

  g_return_val_if_fail (KM_IS_DOCUMENT (self), FALSE);

  targets = km_document_get_targets (self);
  if (targets == NULL || from == to || to > KM_TARGET_TRACK_MAX_FRAME
      || (index = km_target_track_find_keyframe (targets, from)) < 0
      || read_only_source_plays (self))
    return FALSE;

  keyframe = *km_target_track_get_keyframe (targets, (guint) index);
  keyframe.frame = to;
  replaces = km_target_track_find_keyframe (targets, to) >= 0;
  without = km_target_track_without_keyframe (targets, from);
  /* Its rotation goes with it, and so does the euler triple its file gave it. */
  track = put_keeping_euler (without, targets, from, &keyframe);
  if (track == NULL)
    return FALSE;
  commit_targets (self, track);
  if (replaces)
    km_document_log (self, G_LOG_LEVEL_WARNING,
                     /* Translators: two frame numbers: where a keyframe was, and where
                      * the keyframe moved onto it came from */
                     _("The keyframe at frame %u was replaced by the one moved from frame "
                       "%u (Ctrl+Z brings it back)."),
                     to, from);
  return TRUE;
}

/**
 * km_document_cancel_solve_for_user:
 *
 * The user's Cancel of a running solve: cancels it as km_document_cancel_solve() does
 * (which puts back the motion of before the solve, dropping the frames solved so far)
 * and says in Messages how far it got and what shows now, so that a motion that is not
 * the one the targets ask for is never left unexplained. Solves that a newer edit
 * supersedes are cancelled silently (km_document_cancel_solve()): a new one follows.
 *
 * Returns: %FALSE when no solve was running
 */
gboolean
km_document_cancel_solve_for_user (KmDocument *self)
{
  KmAnimation *streamed;
  KmTargetTrack *targets;
  guint n_frames = 0, n_solved = 0;
  int percent;

  g_return_val_if_fail (KM_IS_DOCUMENT (self), FALSE);

  if (!km_document_get_solving (self))
    return FALSE;

  /* What the time bar's progress showed: the frames the solver has tracked, which it may
   * hold back while a search can still change them (km_ik_solve_trajectory(): all of them
   * until the end for motions up to a few thousand frames), so it can run ahead of the
   * frames that came. */
  percent = (int) floor (km_document_get_solve_progress (self) * 100.0);

  /* While a solve runs, the animation is the one its frames stream into (none until the
   * first arrive); they arrive in frame order, each with its residual. */
  streamed = km_document_get_animation (self);
  targets = km_document_get_targets (self);
  if (streamed != NULL)
    {
      n_frames = km_animation_get_n_frames (streamed);
      while (n_solved < n_frames && km_animation_get_residual (streamed, n_solved, NULL, NULL))
        n_solved++;
    }
  else if (targets != NULL)
    n_frames = km_target_track_get_last_frame (targets) + 1;

  km_document_cancel_solve (self);
  /* Every arm's frames stream (a spherical-revolute-spherical arm's first from its plain
   * track, km_ik_solve_trajectory_stream()), so the frames solved say how far it got,
   * unless the progress ran ahead of them (by more than its rounding): then both are said,
   * and why they differ. */
  if (n_frames > 0
      && (guint64) percent > ((guint64) n_solved * 100 + n_frames - 1) / n_frames)
    {
      if (km_document_get_animation (self) != NULL)
        km_document_log (self, G_LOG_LEVEL_WARNING,
                         /* Translators: the solve's progress in percent (the time bar's),
                          * then the frames handed over and all the frames of the solve */
                         g_dngettext (GETTEXT_PACKAGE,
                                      "Solve cancelled at %d %% with %u of %u frame final (the "
                                      "solver holds frames back while a search may still change "
                                      "them); the motion shown is the one from before the solve "
                                      "(Solve, F5, solves again).",
                                      "Solve cancelled at %d %% with %u of %u frames final (the "
                                      "solver holds frames back while a search may still change "
                                      "them); the motion shown is the one from before the solve "
                                      "(Solve, F5, solves again).",
                                      n_frames),
                         percent, n_solved, n_frames);
      else
        km_document_log (self, G_LOG_LEVEL_WARNING,
                         /* Translators: the solve's progress in percent (the time bar's),
                          * then the frames handed over and all the frames of the solve */
                         g_dngettext (GETTEXT_PACKAGE,
                                      "Solve cancelled at %d %% with %u of %u frame final (the "
                                      "solver holds frames back while a search may still change "
                                      "them); there is no solved motion until the targets are "
                                      "solved again (Solve, F5).",
                                      "Solve cancelled at %d %% with %u of %u frames final (the "
                                      "solver holds frames back while a search may still change "
                                      "them); there is no solved motion until the targets are "
                                      "solved again (Solve, F5).",
                                      n_frames),
                         percent, n_solved, n_frames);
    }
  else if (km_document_get_animation (self) != NULL)
    km_document_log (self, G_LOG_LEVEL_WARNING,
                     /* Translators: frames solved, then all the frames of the solve */
                     g_dngettext (GETTEXT_PACKAGE,
                                  "Solve cancelled after %u of %u frame; the motion shown is "
                                  "the one from before the solve (Solve, F5, solves again).",
                                  "Solve cancelled after %u of %u frames; the motion shown is "
                                  "the one from before the solve (Solve, F5, solves again).",
                                  n_frames),
                     n_solved, n_frames);
  else
    km_document_log (self, G_LOG_LEVEL_WARNING,
                     /* Translators: frames solved, then all the frames of the solve */
                     g_dngettext (GETTEXT_PACKAGE,
                                  "Solve cancelled after %u of %u frame; there is no solved "
                                  "motion until the targets are solved again (Solve, F5).",
                                  "Solve cancelled after %u of %u frames; there is no solved "
                                  "motion until the targets are solved again (Solve, F5).",
                                  n_frames),
                     n_solved, n_frames);
  return TRUE;
}

/**
 * km_document_note_dropped_mimic:
 * @before: the skeleton before a skeleton edit
 * @after: the skeleton the edit made
 *
 * A skeleton edit that deletes the master of a linked (mimic) joint, or makes it one
 * without a DOF (Fixed), drops the link (km_skeleton_edit_set_type(),
 * km_skeleton_edit_delete()): the follower moves on its own from then on, and a file
 * written afterwards has no link for it. The message view names each such follower and
 * the joint it followed. Followers deleted or left without a DOF themselves are not named.
 */
void
km_document_note_dropped_mimic (KmDocument       *self,
                                const KmSkeleton *before,
                                const KmSkeleton *after)
{
  g_return_if_fail (KM_IS_DOCUMENT (self));
  g_return_if_fail (before != NULL);
  g_return_if_fail (after != NULL);

  if (!km_skeleton_has_mimic (before))
    return;
  for (guint i = 0; i < km_skeleton_get_n_joints (before); i++)
    {
      const KmJoint *follower = km_skeleton_get_joint (before, i);
      const KmJoint *master, *now, *master_now;
      int index, master_index;

      if (follower->mimic < 0)
        continue;
      master = km_skeleton_get_joint (before, (guint) follower->mimic);
      index = km_skeleton_find_joint (after, follower->name);
      if (index < 0)
        continue;
      now = km_skeleton_get_joint (after, (guint) index);
      if (now->mimic >= 0 || now->n_dof == 0)
        continue;
      master_index = km_skeleton_find_joint (after, master->name);
      master_now = master_index >= 0 ? km_skeleton_get_joint (after, (guint) master_index) : NULL;
      if (master_now != NULL && master_now->n_dof > 0)
        continue;
      km_document_log (self, G_LOG_LEVEL_INFO,
                       /* Translators: the first %s is a linked (mimic) joint's name, the
                        * second the name of the joint it followed, which was deleted or
                        * made Fixed */
                       _("“%s” no longer follows “%s”, which is gone or fixed: it moves on "
                         "its own now."),
                       now->name, master->name);
    }
}
