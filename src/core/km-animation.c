/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-animation"

#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "km-animation.h"
#include "km-target-track.h"

struct _KmAnimation
{
  gatomicrefcount     ref_count;
  KmSkeleton         *skeleton;     /* nullable */
  guint               n_channels;
  KmAnimationChannel *channels;
  guint               n_dof;
  guint               n_frames;
  double              frame_rate;
  double             *values;       /* n_frames × n_dof, row per frame */
  double             *residuals;    /* n_frames × 2 (pos, rot), NaN = not solved */
  gboolean            has_residuals;
  guint8             *jumped;       /* n_frames: the solve jumped there (derived, not saved) */
  KmAnimationKeyMiss *missed_keys;  /* by frame; NULL when none */
  guint               n_missed_keys;
  guint               n_unchecked_keys; /* missed by the motion, not checked */
  gboolean            keys_checked;
};

G_DEFINE_BOXED_TYPE (KmAnimation, km_animation, km_animation_ref, km_animation_unref)

static KmAnimation *
animation_alloc (guint n_channels,
                 guint n_dof,
                 guint n_frames)
{
  KmAnimation *self = g_new0 (KmAnimation, 1);

  g_atomic_ref_count_init (&self->ref_count);
  self->n_channels = n_channels;
  self->channels = g_new0 (KmAnimationChannel, MAX (n_channels, 1));
  self->n_dof = n_dof;
  self->n_frames = n_frames;
  self->frame_rate = KM_TARGET_TRACK_DEFAULT_FRAME_RATE;
  self->values = g_new0 (double, MAX ((gsize) n_frames * n_dof, 1));
  self->residuals = g_new (double, MAX ((gsize) n_frames * 2, 1));
  for (gsize i = 0; i < (gsize) n_frames * 2; i++)
    self->residuals[i] = NAN;
  self->jumped = g_new0 (guint8, MAX (n_frames, 1));
  return self;
}

/**
 * km_animation_new:
 * @skeleton: the skeleton whose DOF joints are the channels
 * @n_frames: number of frames, at most KM_ANIMATION_MAX_FRAMES
 *
 * Every frame starts as the all-zero state.
 *
 * Returns: (transfer full): a new animation
 */
KmAnimation *
km_animation_new (KmSkeleton *skeleton,
                  guint       n_frames)
{
  KmAnimation *self;
  guint n_joints, c = 0;

  g_return_val_if_fail (skeleton != NULL, NULL);
  g_return_val_if_fail (n_frames <= KM_ANIMATION_MAX_FRAMES, NULL);

  n_joints = km_skeleton_get_n_joints (skeleton);
  for (guint i = 0; i < n_joints; i++)
    if (km_skeleton_get_joint (skeleton, i)->n_dof > 0)
      c++;

  self = animation_alloc (c, km_skeleton_get_n_dof (skeleton), n_frames);
  self->skeleton = km_skeleton_ref (skeleton);
  c = 0;
  for (guint i = 0; i < n_joints; i++)
    {
      const KmJoint *joint = km_skeleton_get_joint (skeleton, i);

      if (joint->n_dof == 0)
        continue;
      self->channels[c].name = g_strdup (joint->name);
      self->channels[c].type = joint->type;
      self->channels[c].dof_index = joint->dof_index;
      self->channels[c].n_dof = joint->n_dof;
      self->channels[c].joint = i;
      c++;
    }
  return self;
}

/**
 * km_animation_new_for_channels:
 * @channels: (array length=n_channels): channels; dof_index and joint are ignored and
 *   recomputed (consecutive, -1)
 *
 * An animation without a skeleton, as the skeleton-less animation.json reader builds it.
 *
 * Returns: (transfer full): a new animation
 */
KmAnimation *
km_animation_new_for_channels (const KmAnimationChannel *channels,
                               guint                     n_channels,
                               guint                     n_frames)
{
  KmAnimation *self;
  guint n_dof = 0;

  g_return_val_if_fail (channels != NULL || n_channels == 0, NULL);
  g_return_val_if_fail (n_frames <= KM_ANIMATION_MAX_FRAMES, NULL);

  for (guint i = 0; i < n_channels; i++)
    n_dof += km_joint_type_n_dof (channels[i].type);

  self = animation_alloc (n_channels, n_dof, n_frames);
  n_dof = 0;
  for (guint i = 0; i < n_channels; i++)
    {
      self->channels[i].name = g_strdup (channels[i].name);
      self->channels[i].type = channels[i].type;
      self->channels[i].dof_index = n_dof;
      self->channels[i].n_dof = km_joint_type_n_dof (channels[i].type);
      self->channels[i].joint = -1;
      n_dof += self->channels[i].n_dof;
    }
  return self;
}

/**
 * km_animation_copy:
 *
 * Returns: (transfer full): a deep copy (sharing only the immutable skeleton)
 */
KmAnimation *
km_animation_copy (const KmAnimation *self)
{
  KmAnimation *copy;

  g_return_val_if_fail (self != NULL, NULL);

  copy = animation_alloc (self->n_channels, self->n_dof, self->n_frames);
  if (self->skeleton != NULL)
    copy->skeleton = km_skeleton_ref (self->skeleton);
  for (guint i = 0; i < self->n_channels; i++)
    {
      copy->channels[i] = self->channels[i];
      copy->channels[i].name = g_strdup (self->channels[i].name);
    }
  copy->frame_rate = self->frame_rate;
  copy->has_residuals = self->has_residuals;
  memcpy (copy->values, self->values, (gsize) self->n_frames * self->n_dof * sizeof (double));
  memcpy (copy->residuals, self->residuals, (gsize) self->n_frames * 2 * sizeof (double));
  memcpy (copy->jumped, self->jumped, self->n_frames);
  if (self->keys_checked)
    {
      km_animation_set_missed_keys (copy, self->missed_keys, self->n_missed_keys);
      copy->n_unchecked_keys = self->n_unchecked_keys;
    }
  return copy;
}

/**
 * km_animation_remap:
 * @skeleton: the skeleton of the new animation
 * @dof_map: (array): for each DOF of @skeleton, the DOF of @self whose values it takes
 *   (-1: zero), e.g. from km_body_map_dofs()
 *
 * The same motion re-expressed for another skeleton, DOF by DOF: frame k's value of DOF i
 * is @self's frame k value of DOF @dof_map[i]. The frame rate, residuals, jumps and
 * missed keyframes are kept.
 *
 * Returns: (transfer full) (nullable): the new animation, NULL when @dof_map names a DOF
 *   that @self does not have
 */
KmAnimation *
km_animation_remap (const KmAnimation *self,
                    KmSkeleton        *skeleton,
                    const int         *dof_map)
{
  KmAnimation *remapped;
  guint n_dof;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (skeleton != NULL, NULL);

  n_dof = km_skeleton_get_n_dof (skeleton);
  g_return_val_if_fail (dof_map != NULL || n_dof == 0, NULL);
  for (guint i = 0; i < n_dof; i++)
    if (dof_map[i] >= (int) self->n_dof)
      return NULL;

  remapped = km_animation_new (skeleton, self->n_frames);
  remapped->frame_rate = self->frame_rate;
  remapped->has_residuals = self->has_residuals;
  memcpy (remapped->residuals, self->residuals, (gsize) self->n_frames * 2 * sizeof (double));
  memcpy (remapped->jumped, self->jumped, self->n_frames);
  if (self->keys_checked)
    {
      km_animation_set_missed_keys (remapped, self->missed_keys, self->n_missed_keys);
      remapped->n_unchecked_keys = self->n_unchecked_keys;
    }
  for (gsize f = 0; f < self->n_frames; f++)
    for (guint i = 0; i < n_dof; i++)
      remapped->values[f * n_dof + i] = dof_map[i] >= 0 ? self->values[f * self->n_dof + dof_map[i]]
                                                        : 0.0;
  return remapped;
}

KmAnimation *
km_animation_ref (KmAnimation *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

void
km_animation_unref (KmAnimation *self)
{
  g_return_if_fail (self != NULL);

  if (g_atomic_ref_count_dec (&self->ref_count))
    {
      for (guint i = 0; i < self->n_channels; i++)
        g_free (self->channels[i].name);
      g_free (self->channels);
      g_free (self->values);
      g_free (self->residuals);
      g_free (self->jumped);
      g_free (self->missed_keys);
      g_clear_pointer (&self->skeleton, km_skeleton_unref);
      g_free (self);
    }
}

/**
 * km_animation_get_skeleton:
 *
 * Returns: (transfer none) (nullable): the skeleton, NULL for a skeleton-less animation
 */
KmSkeleton *
km_animation_get_skeleton (const KmAnimation *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->skeleton;
}

guint
km_animation_get_n_frames (const KmAnimation *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->n_frames;
}

guint
km_animation_get_n_dof (const KmAnimation *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->n_dof;
}

guint
km_animation_get_n_channels (const KmAnimation *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->n_channels;
}

const KmAnimationChannel *
km_animation_get_channel (const KmAnimation *self,
                          guint              index)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (index < self->n_channels, NULL);

  return &self->channels[index];
}

/* Returns: the channel's index, or -1 */
int
km_animation_find_channel (const KmAnimation *self,
                           const char        *name)
{
  g_return_val_if_fail (self != NULL, -1);
  g_return_val_if_fail (name != NULL, -1);

  for (guint i = 0; i < self->n_channels; i++)
    if (g_str_equal (self->channels[i].name, name))
      return (int) i;
  return -1;
}

double
km_animation_get_frame_rate (const KmAnimation *self)
{
  g_return_val_if_fail (self != NULL, KM_TARGET_TRACK_DEFAULT_FRAME_RATE);

  return self->frame_rate;
}

void
km_animation_set_frame_rate (KmAnimation *self,
                             double       frame_rate)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (isfinite (frame_rate) && frame_rate > 0);

  self->frame_rate = frame_rate;
}

/**
 * km_animation_get_frame:
 *
 * Returns: (transfer none) (array): the frame's n_dof values
 */
const double *
km_animation_get_frame (const KmAnimation *self,
                        guint              frame)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (frame < self->n_frames, NULL);

  return self->values + (gsize) frame * self->n_dof;
}

/**
 * km_animation_set_frame:
 * @values: (array): n_dof values
 */
void
km_animation_set_frame (KmAnimation  *self,
                        guint         frame,
                        const double *values)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (frame < self->n_frames);
  g_return_if_fail (values != NULL || self->n_dof == 0);

  if (self->n_dof > 0)
    memcpy (self->values + (gsize) frame * self->n_dof, values, self->n_dof * sizeof (double));
}

gboolean
km_animation_has_residuals (const KmAnimation *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return self->has_residuals;
}

/**
 * km_animation_get_residual:
 * @pos_err: (out) (optional): position error, metres
 * @rot_err: (out) (optional): orientation error, radians
 *
 * Returns: FALSE when the frame has no residual (not solved); the outputs are then NaN
 */
gboolean
km_animation_get_residual (const KmAnimation *self,
                           guint              frame,
                           double            *pos_err,
                           double            *rot_err)
{
  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (frame < self->n_frames, FALSE);

  if (pos_err != NULL)
    *pos_err = self->residuals[2 * (gsize) frame];
  if (rot_err != NULL)
    *rot_err = self->residuals[2 * (gsize) frame + 1];
  return !isnan (self->residuals[2 * (gsize) frame]);
}

void
km_animation_set_residual (KmAnimation *self,
                           guint        frame,
                           double       pos_err,
                           double       rot_err)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (frame < self->n_frames);

  self->residuals[2 * (gsize) frame] = pos_err;
  self->residuals[2 * (gsize) frame + 1] = rot_err;
  self->has_residuals = TRUE;
}

/**
 * km_animation_get_jumped:
 *
 * Whether the solve that made the motion jumped at @frame from the frame before
 * (#KmIkSolution.jumped: a joint moved further in that one step than the solver's
 * continuity allows, or much further than in the steps around it). Derived data like the
 * residuals: set by whoever solved the motion, copied with it, never saved.
 *
 * Returns: TRUE at a frame the motion jumps to
 */
gboolean
km_animation_get_jumped (const KmAnimation *self,
                         guint              frame)
{
  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (frame < self->n_frames, FALSE);

  return self->jumped[frame] != 0;
}

void
km_animation_set_jumped (KmAnimation *self,
                         guint        frame,
                         gboolean     jumped)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (frame < self->n_frames);

  self->jumped[frame] = jumped ? 1 : 0;
}

/**
 * km_animation_get_n_jumps:
 *
 * Returns: how many frames the motion jumps to (km_animation_get_jumped())
 */
guint
km_animation_get_n_jumps (const KmAnimation *self)
{
  guint n = 0;

  g_return_val_if_fail (self != NULL, 0);

  for (guint f = 0; f < self->n_frames; f++)
    n += self->jumped[f] != 0;
  return n;
}

/**
 * km_animation_get_step:
 * @dof: (out) (optional): the DOF that moved furthest (0 at frame 0)
 *
 * How far the motion moves in the one step from @frame - 1 to @frame: the largest change of
 * any DOF (rad, or m for a prismatic joint; the Euler angles of a spherical joint each
 * count as one). What a jump (km_animation_get_jumped()) amounts to.
 *
 * Returns: the largest change, 0 at frame 0
 */
double
km_animation_get_step (const KmAnimation *self,
                       guint              frame,
                       guint             *dof)
{
  const double *a, *b;
  double step = 0.0;
  guint moved = 0;

  g_return_val_if_fail (self != NULL, 0.0);
  g_return_val_if_fail (frame < self->n_frames, 0.0);

  if (dof != NULL)
    *dof = 0;
  if (frame == 0)
    return 0.0;
  a = self->values + (gsize) (frame - 1) * self->n_dof;
  b = a + self->n_dof;
  for (guint i = 0; i < self->n_dof; i++)
    if (fabs (b[i] - a[i]) > step)
      step = fabs (b[i] - a[i]), moved = i;
  if (dof != NULL)
    *dof = moved;
  return step;
}

/**
 * km_animation_get_dof_type:
 *
 * Returns: the type of the joint whose channel holds DOF @dof (what unit its values are in)
 */
KmJointType
km_animation_get_dof_type (const KmAnimation *self,
                           guint              dof)
{
  g_return_val_if_fail (self != NULL, KM_JOINT_REVOLUTE);

  for (guint c = 0; c < self->n_channels; c++)
    if (dof >= self->channels[c].dof_index
        && dof < self->channels[c].dof_index + self->channels[c].n_dof)
      return self->channels[c].type;
  g_return_val_if_reached (KM_JOINT_REVOLUTE);
}

/* The mean of the residuals in column @column (0 position, 1 orientation) of the frames
 * that have them, given their plain @sum, their @max and their number @n. The plain sum
 * is what it always was; only when it overflows although every residual is finite (one
 * of 1e308 m) are the residuals summed again scaled by the largest, which cannot
 * overflow: each is at most 1, so the scaled sum is at most @n. */
static double
residual_mean (const KmAnimation *self,
               guint              column,
               double             sum,
               double             max,
               guint              n)
{
  double scaled = 0;

  if (isfinite (sum) || !isfinite (max) || !(max > 0))
    return sum / n;
  for (guint f = 0; f < self->n_frames; f++)
    if (!isnan (self->residuals[2 * (gsize) f]))
      scaled += self->residuals[2 * (gsize) f + column] / max;
  return scaled / n * max;
}

/**
 * km_animation_get_stats:
 * @stats: (out): the residual summary over the frames that have residuals; n_frames is the
 *   animation's frame count, the errors are 0 when no frame has a residual
 */
void
km_animation_get_stats (const KmAnimation *self,
                        KmAnimationStats  *stats)
{
  double sum_pos = 0, sum_rot = 0;
  guint n = 0;

  g_return_if_fail (self != NULL);
  g_return_if_fail (stats != NULL);

  memset (stats, 0, sizeof *stats);
  stats->n_frames = self->n_frames;
  for (guint f = 0; f < self->n_frames; f++)
    {
      double p = self->residuals[2 * (gsize) f];
      double r = self->residuals[2 * (gsize) f + 1];

      if (isnan (p))
        continue;
      n++;
      sum_pos += p;
      sum_rot += r;
      stats->max_pos_err = MAX (stats->max_pos_err, p);
      stats->max_rot_err = MAX (stats->max_rot_err, r);
    }
  if (n > 0)
    {
      stats->mean_pos_err = residual_mean (self, 0, sum_pos, stats->max_pos_err, n);
      stats->mean_rot_err = residual_mean (self, 1, sum_rot, stats->max_rot_err, n);
    }
}

/**
 * km_animation_get_keys_checked:
 *
 * Returns: whether the keyframes the motion was solved for have been checked for ones it
 *   misses although they can be met (km_animation_set_missed_keys() was called): a motion
 *   read from a file has not been, until the editor checks it
 */
gboolean
km_animation_get_keys_checked (const KmAnimation *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return self->keys_checked;
}

/**
 * km_animation_get_missed_keys:
 * @n_missed: (out) (optional): how many
 *
 * Returns: (transfer none) (array length=n_missed) (nullable): the keyframes the motion
 *   misses although they can be met, in frame order; NULL when there are none or they have
 *   not been checked (km_animation_get_keys_checked())
 */
const KmAnimationKeyMiss *
km_animation_get_missed_keys (const KmAnimation *self,
                              guint             *n_missed)
{
  if (n_missed != NULL)
    *n_missed = 0;
  g_return_val_if_fail (self != NULL, NULL);

  if (n_missed != NULL)
    *n_missed = self->n_missed_keys;
  return self->missed_keys;
}

/**
 * km_animation_find_missed_key:
 *
 * Returns: (transfer none) (nullable): the missed keyframe at @frame (see
 *   km_animation_get_missed_keys()), or NULL
 */
const KmAnimationKeyMiss *
km_animation_find_missed_key (const KmAnimation *self,
                              guint              frame)
{
  guint lo = 0, hi;

  g_return_val_if_fail (self != NULL, NULL);

  hi = self->n_missed_keys;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (self->missed_keys[mid].frame == frame)
        return &self->missed_keys[mid];
      if (self->missed_keys[mid].frame < frame)
        lo = mid + 1;
      else
        hi = mid;
    }
  return NULL;
}

static int
key_miss_compare (gconstpointer a,
                  gconstpointer b)
{
  guint fa = ((const KmAnimationKeyMiss *) a)->frame;
  guint fb = ((const KmAnimationKeyMiss *) b)->frame;

  return fa < fb ? -1 : fa > fb;
}

/**
 * km_animation_set_missed_keys:
 * @missed: (array length=n_missed) (nullable): the keyframes the motion misses although they
 *   can be met (km_ik_find_missed_keys()), one per frame; copied and kept in frame order
 *
 * Records them (replacing any before) and marks the keyframes as checked, also when there
 * are none. Derived data like the residuals: copied with the animation, never saved.
 */
void
km_animation_set_missed_keys (KmAnimation              *self,
                              const KmAnimationKeyMiss *missed,
                              guint                     n_missed)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (missed != NULL || n_missed == 0);

  g_clear_pointer (&self->missed_keys, g_free);
  self->n_missed_keys = n_missed;
  self->n_unchecked_keys = 0;
  self->keys_checked = TRUE;
  if (n_missed == 0)
    return;
  self->missed_keys = g_memdup2 (missed, (gsize) n_missed * sizeof *missed);
  qsort (self->missed_keys, n_missed, sizeof *missed, key_miss_compare);
}

/**
 * km_animation_get_unchecked_keys:
 *
 * Returns: how many keyframes the motion misses were not checked for whether they can be
 *   met, because the check's work is bounded (km_ik_find_missed_keys()): some of them may
 *   be missed keyframes too. 0 where the keyframes have not been checked.
 */
guint
km_animation_get_unchecked_keys (const KmAnimation *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->n_unchecked_keys;
}

/**
 * km_animation_set_unchecked_keys:
 * @n_unchecked: see km_animation_get_unchecked_keys()
 *
 * Records, after km_animation_set_missed_keys(), how many keyframes its check left out.
 * Derived data too: copied with the animation, never saved.
 */
void
km_animation_set_unchecked_keys (KmAnimation *self,
                                 guint        n_unchecked)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (self->keys_checked || n_unchecked == 0);

  self->n_unchecked_keys = n_unchecked;
}

/* Same channels (names, types), frame count and values within @epsilon. Spherical
 * channels compare as rotations, so equivalent euler triples are equal. Residuals, missed
 * keyframes and the skeleton are not compared. */
gboolean
km_animation_equal (const KmAnimation *a,
                    const KmAnimation *b,
                    double             epsilon)
{
  g_return_val_if_fail (a != NULL, FALSE);
  g_return_val_if_fail (b != NULL, FALSE);

  if (a->n_channels != b->n_channels || a->n_frames != b->n_frames || a->n_dof != b->n_dof)
    return FALSE;
  for (guint c = 0; c < a->n_channels; c++)
    if (a->channels[c].type != b->channels[c].type
        || !g_str_equal (a->channels[c].name, b->channels[c].name))
      return FALSE;

  for (guint f = 0; f < a->n_frames; f++)
    {
      const double *ra = a->values + (gsize) f * a->n_dof;
      const double *rb = b->values + (gsize) f * b->n_dof;

      for (guint c = 0; c < a->n_channels; c++)
        {
          const double *va = ra + a->channels[c].dof_index;
          const double *vb = rb + b->channels[c].dof_index;

          if (a->channels[c].type == KM_JOINT_SPHERICAL
              && (va[0] != vb[0] || va[1] != vb[1] || va[2] != vb[2]))
            {
              KmQuat qa = km_quat_from_euler_xyz (km_vec3 (va[0], va[1], va[2]));
              KmQuat qb = km_quat_from_euler_xyz (km_vec3 (vb[0], vb[1], vb[2]));

              if (!(km_quat_angle_between (qa, qb) <= epsilon))
                return FALSE;
            }
          else if (a->channels[c].type != KM_JOINT_SPHERICAL && !(fabs (va[0] - vb[0]) <= epsilon))
            return FALSE;
        }
    }
  return TRUE;
}
