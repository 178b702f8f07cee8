/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-target-track"

#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "km-target-track.h"

struct _KmTargetTrack
{
  gatomicrefcount   ref_count;
  guint             n_keyframes;
  KmTargetKeyframe *keyframes;   /* sorted by frame, frames unique */
  char             *effector;    /* nullable */
  double            frame_rate;
  /* The point the keyframes are for, in the effector joint's frame (a tool point, or a
   * Scenebuilder end connector); zero: the joint's origin. */
  KmVec3            effector_offset;
  gboolean          position_only; /* the keyframes' orientations are not targets */
  /* The joint the moving chain stops below (the solve's base, not moving itself), for
   * targets in a frame that rides on it (a Scenebuilder ik's ref); NULL: the root. */
  char             *base;
  /* Frame (GUINT_TO_POINTER) → char *, what a keyframe carries that Kinema does not
   * interpret (see km-target-track.h); nullable. Never changed once the track has it,
   * so copies share it. */
  GHashTable       *extras;
  /* TrackEuler, sorted by frame: the euler angles a file gave its keyframes (see
   * km-target-track.h); nullable. Never changed once the track has it, so copies share
   * it; an entry counts only while its keyframe has the rotation it records. */
  GArray           *eulers;
};

typedef struct
{
  guint  frame;
  KmVec3 degrees;       /* as the file gave them */
  KmQuat orientation;   /* the keyframe's rotation made from them */
} TrackEuler;

G_DEFINE_BOXED_TYPE (KmTargetTrack, km_target_track, km_target_track_ref, km_target_track_unref)
G_DEFINE_QUARK (km-target-track-error-quark, km_target_track_error)

static int
compare_keyframes (gconstpointer a,
                   gconstpointer b,
                   gpointer      user_data)
{
  const KmTargetKeyframe *ka = a;
  const KmTargetKeyframe *kb = b;

  return (ka->frame > kb->frame) - (ka->frame < kb->frame);
}

static gboolean
quat_is_finite (KmQuat q)
{
  return isfinite (q.w) && isfinite (q.x) && isfinite (q.y) && isfinite (q.z);
}

static KmTargetTrack *
track_alloc (guint       n_keyframes,
             const char *effector,
             double      frame_rate)
{
  KmTargetTrack *self = g_new0 (KmTargetTrack, 1);

  g_atomic_ref_count_init (&self->ref_count);
  self->n_keyframes = n_keyframes;
  self->keyframes = g_new0 (KmTargetKeyframe, MAX (n_keyframes, 1));
  self->effector = g_strdup (effector);
  self->frame_rate = frame_rate;
  self->effector_offset = KM_VEC3_ZERO;
  return self;
}

/* An edited copy targets the same point as its original, and its keyframes carry what
 * the original's did. */
static KmTargetTrack *
copy_tool (KmTargetTrack       *copy,
           const KmTargetTrack *self)
{
  if (copy != NULL)
    {
      copy->effector_offset = self->effector_offset;
      copy->position_only = self->position_only;
      copy->base = g_strdup (self->base);
      copy->extras = self->extras != NULL ? g_hash_table_ref (self->extras) : NULL;
      copy->eulers = self->eulers != NULL ? g_array_ref (self->eulers) : NULL;
    }
  return copy;
}

/**
 * km_target_track_new:
 * @keyframes: (array length=n_keyframes): keyframes in any order
 * @effector: (nullable): end effector joint name, NULL for the skeleton's default
 * @frame_rate: frames per second, > 0
 *
 * Copies and sorts the keyframes and normalises their orientations. Fails with
 * KM_TARGET_TRACK_ERROR on two keyframes with the same frame, a frame above
 * KM_TARGET_TRACK_MAX_FRAME, a non-finite value, a zero quaternion or a bad frame rate.
 * An empty track is valid (sampling it fails).
 *
 * Returns: (transfer full) (nullable): the track
 */
KmTargetTrack *
km_target_track_new (const KmTargetKeyframe *keyframes,
                     guint                   n_keyframes,
                     const char             *effector,
                     double                  frame_rate,
                     GError                **error)
{
  g_autoptr(KmTargetTrack) self = NULL;

  g_return_val_if_fail (keyframes != NULL || n_keyframes == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!isfinite (frame_rate) || frame_rate <= 0)
    {
      g_set_error (error, KM_TARGET_TRACK_ERROR, KM_TARGET_TRACK_ERROR_BAD_VALUE,
                   _("The frame rate must be a positive number"));
      return NULL;
    }
  if (n_keyframes > KM_TARGET_TRACK_MAX_FRAME + 1)
    {
      g_set_error (error, KM_TARGET_TRACK_ERROR, KM_TARGET_TRACK_ERROR_BAD_VALUE,
                   _("Too many keyframes"));
      return NULL;
    }

  self = track_alloc (n_keyframes, effector, frame_rate);
  if (n_keyframes > 0)
    memcpy (self->keyframes, keyframes, n_keyframes * sizeof (KmTargetKeyframe));

  for (guint i = 0; i < n_keyframes; i++)
    {
      KmTargetKeyframe *k = &self->keyframes[i];
      double norm;

      if (k->frame > KM_TARGET_TRACK_MAX_FRAME)
        {
          g_set_error (error, KM_TARGET_TRACK_ERROR, KM_TARGET_TRACK_ERROR_BAD_VALUE,
                       _("Frame %u is above the maximum of %u"), k->frame,
                       (guint) KM_TARGET_TRACK_MAX_FRAME);
          return NULL;
        }
      norm = km_quat_length (k->orientation);
      if (!km_vec3_is_finite (k->position) || !quat_is_finite (k->orientation)
          || !isfinite (norm) || norm < 1e-12)
        {
          g_set_error (error, KM_TARGET_TRACK_ERROR, KM_TARGET_TRACK_ERROR_BAD_VALUE,
                       _("Keyframe %u has a non-finite position or orientation"), k->frame);
          return NULL;
        }
      k->orientation = km_quat_normalize (k->orientation);
    }

  /* Stable sort (g_qsort_with_data is a merge sort), so a duplicate is reported as the
   * keyframe that came later in the input. */
  g_qsort_with_data (self->keyframes, n_keyframes, sizeof (KmTargetKeyframe),
                     compare_keyframes, NULL);
  for (guint i = 1; i < n_keyframes; i++)
    if (self->keyframes[i].frame == self->keyframes[i - 1].frame)
      {
        g_set_error (error, KM_TARGET_TRACK_ERROR, KM_TARGET_TRACK_ERROR_DUPLICATE_FRAME,
                     _("Two keyframes have frame %u"), self->keyframes[i].frame);
        return NULL;
      }

  return g_steal_pointer (&self);
}

KmTargetTrack *
km_target_track_ref (KmTargetTrack *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

void
km_target_track_unref (KmTargetTrack *self)
{
  g_return_if_fail (self != NULL);

  if (g_atomic_ref_count_dec (&self->ref_count))
    {
      g_free (self->keyframes);
      g_free (self->effector);
      g_free (self->base);
      g_clear_pointer (&self->extras, g_hash_table_unref);
      g_clear_pointer (&self->eulers, g_array_unref);
      g_free (self);
    }
}

guint
km_target_track_get_n_keyframes (const KmTargetTrack *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->n_keyframes;
}

const KmTargetKeyframe *
km_target_track_get_keyframe (const KmTargetTrack *self,
                              guint                index)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (index < self->n_keyframes, NULL);

  return &self->keyframes[index];
}

/**
 * km_target_track_get_keyframes:
 * @n_keyframes: (out) (optional): number of keyframes
 *
 * Returns: (transfer none) (array length=n_keyframes): the keyframes, sorted by frame
 */
const KmTargetKeyframe *
km_target_track_get_keyframes (const KmTargetTrack *self,
                               guint               *n_keyframes)
{
  g_return_val_if_fail (self != NULL, NULL);

  if (n_keyframes != NULL)
    *n_keyframes = self->n_keyframes;
  return self->keyframes;
}

/* Index of the first keyframe whose frame is >= @frame (n_keyframes when none). */
static guint
lower_bound (const KmTargetTrack *self,
             double               frame)
{
  guint lo = 0, hi = self->n_keyframes;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if ((double) self->keyframes[mid].frame < frame)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/**
 * km_target_track_find_keyframe:
 *
 * Returns: the index of the keyframe at @frame, or -1 when there is none
 */
int
km_target_track_find_keyframe (const KmTargetTrack *self,
                               guint                frame)
{
  guint i;

  g_return_val_if_fail (self != NULL, -1);

  i = lower_bound (self, frame);
  if (i < self->n_keyframes && self->keyframes[i].frame == frame)
    return (int) i;
  return -1;
}

/* 0 for an empty track. */
guint
km_target_track_get_first_frame (const KmTargetTrack *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->n_keyframes > 0 ? self->keyframes[0].frame : 0;
}

/* 0 for an empty track. */
guint
km_target_track_get_last_frame (const KmTargetTrack *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->n_keyframes > 0 ? self->keyframes[self->n_keyframes - 1].frame : 0;
}

/**
 * km_target_track_get_effector:
 *
 * Returns: (nullable): the end effector's joint name, NULL for the skeleton's default
 */
const char *
km_target_track_get_effector (const KmTargetTrack *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->effector;
}

double
km_target_track_get_frame_rate (const KmTargetTrack *self)
{
  g_return_val_if_fail (self != NULL, KM_TARGET_TRACK_DEFAULT_FRAME_RATE);

  return self->frame_rate;
}

/**
 * km_target_track_sample:
 * @frame: any frame, fractional allowed
 * @position: (out) (optional): world position, metres
 * @orientation: (out) (optional): world orientation, unit quaternion
 *
 * Between two keyframes the position is interpolated linearly and the orientation by
 * slerp along the shortest arc; before the first and after the last keyframe (and for a
 * NaN @frame) the nearest keyframe's value holds.
 *
 * Returns: FALSE for an empty track (then the origin and the identity)
 */
gboolean
km_target_track_sample (const KmTargetTrack *self,
                        double               frame,
                        KmVec3              *position,
                        KmQuat              *orientation)
{
  const KmTargetKeyframe *a, *b;
  KmVec3 pos;
  KmQuat rot;
  guint i;

  g_return_val_if_fail (self != NULL, FALSE);

  if (self->n_keyframes == 0)
    {
      pos = KM_VEC3_ZERO;
      rot = KM_QUAT_IDENTITY;
    }
  else if (isnan (frame) || frame <= (double) self->keyframes[0].frame)
    {
      pos = self->keyframes[0].position;
      rot = self->keyframes[0].orientation;
    }
  else if (frame >= (double) self->keyframes[self->n_keyframes - 1].frame)
    {
      pos = self->keyframes[self->n_keyframes - 1].position;
      rot = self->keyframes[self->n_keyframes - 1].orientation;
    }
  else
    {
      /* keyframes[0].frame < frame < last frame, so 1 <= i < n_keyframes. */
      i = lower_bound (self, frame);
      b = &self->keyframes[i];
      if ((double) b->frame == frame)
        {
          pos = b->position;
          rot = b->orientation;
        }
      else
        {
          double t;

          a = &self->keyframes[i - 1];
          t = (frame - a->frame) / (double) (b->frame - a->frame);
          pos = km_vec3_add (a->position, km_vec3_scale (km_vec3_sub (b->position, a->position), t));
          rot = km_quat_slerp (a->orientation, b->orientation, t);
        }
    }

  if (position != NULL)
    *position = pos;
  if (orientation != NULL)
    *orientation = rot;
  return self->n_keyframes > 0;
}

/**
 * km_target_track_with_keyframe:
 * @keyframe: the keyframe to insert, or to put in place of the one at the same frame
 *
 * Returns: (transfer full) (nullable): a new track; NULL when @keyframe is invalid
 *   (frame above the maximum, non-finite or zero orientation)
 */
KmTargetTrack *
km_target_track_with_keyframe (const KmTargetTrack    *self,
                               const KmTargetKeyframe *keyframe)
{
  g_autoptr(KmTargetTrack) checked = NULL;
  KmTargetTrack *copy;
  gboolean replaces;
  guint at;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (keyframe != NULL, NULL);

  /* @keyframe checked and normalised as km_target_track_new() does; the others are copied
   * bit for bit (not normalised again), so that their rotations, and the euler angles
   * their file gave them (km_target_track_get_euler()), stay what they were. */
  checked = km_target_track_new (keyframe, 1, NULL, self->frame_rate, NULL);
  if (checked == NULL)
    return NULL;
  at = lower_bound (self, keyframe->frame);
  replaces = at < self->n_keyframes && self->keyframes[at].frame == keyframe->frame;
  copy = track_alloc (self->n_keyframes + (replaces ? 0 : 1), self->effector,
                      self->frame_rate);
  if (at > 0)
    memcpy (copy->keyframes, self->keyframes, at * sizeof (KmTargetKeyframe));
  copy->keyframes[at] = checked->keyframes[0];
  if (copy->n_keyframes > at + 1)
    memcpy (copy->keyframes + at + 1, self->keyframes + at + (replaces ? 1 : 0),
            (copy->n_keyframes - at - 1) * sizeof (KmTargetKeyframe));
  return copy_tool (copy, self);
}

/**
 * km_target_track_without_keyframe:
 *
 * Returns: (transfer full): a new track without the keyframe at @frame (an equal copy
 *   when there is none)
 */
KmTargetTrack *
km_target_track_without_keyframe (const KmTargetTrack *self,
                                  guint                frame)
{
  KmTargetTrack *copy;
  int found;
  guint j = 0;

  g_return_val_if_fail (self != NULL, NULL);

  found = km_target_track_find_keyframe (self, frame);
  copy = track_alloc (self->n_keyframes - (found >= 0 ? 1 : 0), self->effector,
                      self->frame_rate);
  for (guint i = 0; i < self->n_keyframes; i++)
    if ((int) i != found)
      copy->keyframes[j++] = self->keyframes[i];
  copy_tool (copy, self);
  /* What the deleted keyframe carried goes with it (a keyframe set there later starts
   * without it). */
  if (copy->extras != NULL && g_hash_table_contains (copy->extras, GUINT_TO_POINTER (frame)))
    {
      GHashTable *extras = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
      GHashTableIter iter;
      gpointer key, value;

      g_hash_table_iter_init (&iter, copy->extras);
      while (g_hash_table_iter_next (&iter, &key, &value))
        if (GPOINTER_TO_UINT (key) != frame)
          g_hash_table_insert (extras, key, g_strdup (value));
      g_hash_table_unref (copy->extras);
      copy->extras = extras;
    }
  return copy;
}

/**
 * km_target_track_with_effector:
 * @effector: (nullable): joint name, NULL for the skeleton's default
 *
 * The base goes with the copy, unless it is @effector: a base is above the effector, so
 * the track's base equal to its effector means none (km_target_track_with_base()).
 *
 * Returns: (transfer full): a new track
 */
KmTargetTrack *
km_target_track_with_effector (const KmTargetTrack *self,
                               const char          *effector)
{
  KmTargetTrack *copy;

  g_return_val_if_fail (self != NULL, NULL);

  copy = track_alloc (self->n_keyframes, effector, self->frame_rate);
  if (self->n_keyframes > 0)
    memcpy (copy->keyframes, self->keyframes, self->n_keyframes * sizeof (KmTargetKeyframe));
  copy_tool (copy, self);
  if (copy->base != NULL && g_strcmp0 (copy->base, copy->effector) == 0)
    g_clear_pointer (&copy->base, g_free);
  return copy;
}

/**
 * km_target_track_with_frame_rate:
 * @frame_rate: frames per second, finite and > 0
 *
 * Returns: (transfer full): a new track
 */
KmTargetTrack *
km_target_track_with_frame_rate (const KmTargetTrack *self,
                                 double               frame_rate)
{
  KmTargetTrack *copy;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (isfinite (frame_rate) && frame_rate > 0, NULL);

  copy = track_alloc (self->n_keyframes, self->effector, frame_rate);
  if (self->n_keyframes > 0)
    memcpy (copy->keyframes, self->keyframes, self->n_keyframes * sizeof (KmTargetKeyframe));
  return copy_tool (copy, self);
}

/**
 * km_target_track_with_tool:
 * @effector_offset: the point the keyframes' positions are for, in the effector joint's
 *   frame (metres); zero for the joint's origin
 * @position_only: the keyframes' orientations are no targets (they only show the
 *   effector's orientation)
 *
 * Returns: (transfer full) (nullable): a new track; NULL when @effector_offset is not finite
 */
KmTargetTrack *
km_target_track_with_tool (const KmTargetTrack *self,
                           KmVec3               effector_offset,
                           gboolean             position_only)
{
  KmTargetTrack *copy;

  g_return_val_if_fail (self != NULL, NULL);

  if (!km_vec3_is_finite (effector_offset))
    return NULL;
  copy = track_alloc (self->n_keyframes, self->effector, self->frame_rate);
  if (self->n_keyframes > 0)
    memcpy (copy->keyframes, self->keyframes, self->n_keyframes * sizeof (KmTargetKeyframe));
  copy->effector_offset = effector_offset;
  copy->position_only = position_only != FALSE;
  copy->base = g_strdup (self->base);
  copy->extras = self->extras != NULL ? g_hash_table_ref (self->extras) : NULL;
  copy->eulers = self->eulers != NULL ? g_array_ref (self->eulers) : NULL;
  return copy;
}

/**
 * km_target_track_with_extras:
 * @extras: (nullable) (element-type guint utf8): frame (GUINT_TO_POINTER) → the text of
 *   a JSON object, the members that the keyframe at that frame carries and Kinema does
 *   not interpret; the track keeps a reference, and nobody may change it any more
 *
 * Returns: (transfer full): a new track whose keyframes carry @extras (a frame without a
 *   keyframe is left out when written)
 */
KmTargetTrack *
km_target_track_with_extras (const KmTargetTrack *self,
                             GHashTable          *extras)
{
  KmTargetTrack *copy;

  g_return_val_if_fail (self != NULL, NULL);

  copy = km_target_track_with_effector (self, self->effector);
  g_clear_pointer (&copy->extras, g_hash_table_unref);
  if (extras != NULL && g_hash_table_size (extras) > 0)
    copy->extras = g_hash_table_ref (extras);
  return copy;
}

/**
 * km_target_track_get_extra:
 *
 * Returns: (nullable): the text of the JSON object of what the keyframe at @frame carries
 *   that Kinema does not interpret, NULL when it carries nothing
 */
const char *
km_target_track_get_extra (const KmTargetTrack *self,
                           guint                frame)
{
  g_return_val_if_fail (self != NULL, NULL);

  if (self->extras == NULL)
    return NULL;
  return g_hash_table_lookup (self->extras, GUINT_TO_POINTER (frame));
}

static int
compare_eulers (gconstpointer a,
                gconstpointer b)
{
  const TrackEuler *ea = a;
  const TrackEuler *eb = b;

  return (ea->frame > eb->frame) - (ea->frame < eb->frame);
}

/**
 * km_target_track_with_eulers:
 * @degrees: (array) (nullable): for each keyframe, in the track's order, the euler XYZ
 *   angles in degrees that its file gave it (its orientation was made from them); a
 *   non-finite one: none. NULL: none at all
 *
 * Returns: (transfer full): a new track whose keyframes keep @degrees, for a rewrite of
 *   their file, while their rotations stay as they are now
 */
KmTargetTrack *
km_target_track_with_eulers (const KmTargetTrack *self,
                             const KmVec3        *degrees)
{
  KmTargetTrack *copy;

  g_return_val_if_fail (self != NULL, NULL);

  copy = km_target_track_with_effector (self, self->effector);
  g_clear_pointer (&copy->eulers, g_array_unref);
  if (degrees == NULL)
    return copy;
  copy->eulers = g_array_sized_new (FALSE, FALSE, sizeof (TrackEuler), self->n_keyframes);
  /* In keyframe order, so sorted by frame. */
  for (guint i = 0; i < self->n_keyframes; i++)
    if (km_vec3_is_finite (degrees[i]))
      {
        TrackEuler e = { self->keyframes[i].frame, degrees[i], self->keyframes[i].orientation };

        g_array_append_val (copy->eulers, e);
      }
  if (copy->eulers->len == 0)
    g_clear_pointer (&copy->eulers, g_array_unref);
  return copy;
}

/**
 * km_target_track_get_euler:
 * @index: a keyframe's index
 * @degrees: (out): the euler XYZ angles in degrees that its file gave the keyframe
 *
 * Returns: TRUE when the keyframe at @index has them: read from a file (and kept,
 *   km_target_track_with_eulers()) and its rotation not changed since; FALSE when its
 *   rotation is all there is
 */
gboolean
km_target_track_get_euler (const KmTargetTrack *self,
                           guint                index,
                           KmVec3              *degrees)
{
  const KmTargetKeyframe *k;
  const TrackEuler *e;
  TrackEuler key;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (index < self->n_keyframes, FALSE);
  g_return_val_if_fail (degrees != NULL, FALSE);

  if (self->eulers == NULL)
    return FALSE;
  k = &self->keyframes[index];
  key.frame = k->frame;
  e = bsearch (&key, self->eulers->data, self->eulers->len, sizeof (TrackEuler),
               compare_eulers);
  /* A keyframe set there since, or one whose rotation was edited, has its own rotation;
   * compared exactly, as the angles are to stand for that very rotation. */
  if (e == NULL || e->orientation.w != k->orientation.w || e->orientation.x != k->orientation.x
      || e->orientation.y != k->orientation.y || e->orientation.z != k->orientation.z)
    return FALSE;
  *degrees = e->degrees;
  return TRUE;
}

/**
 * km_target_track_with_base:
 * @base: (nullable): the joint the moving chain stops below (it and the joints above it
 *   stay still while the track is solved), NULL for the root (the whole chain moves)
 *
 * For targets given in a frame that rides on @base's link (a Scenebuilder ik's `ref`):
 * they stay right only while the joints up to @base do not move.
 *
 * A base is above the effector: @base equal to the track's (named) effector means no base,
 * NULL, so that no writer writes what targets.json's reader refuses. (Whether the model
 * has @base above the effector only a solve can tell.)
 *
 * Returns: (transfer full): a new track
 */
KmTargetTrack *
km_target_track_with_base (const KmTargetTrack *self,
                           const char          *base)
{
  KmTargetTrack *copy;

  g_return_val_if_fail (self != NULL, NULL);

  copy = km_target_track_with_effector (self, self->effector);
  g_free (copy->base);
  copy->base = g_strcmp0 (base, self->effector) != 0 ? g_strdup (base) : NULL;
  return copy;
}

/**
 * km_target_track_get_base:
 *
 * Returns: (nullable): the joint the moving chain stops below, NULL for the root
 */
const char *
km_target_track_get_base (const KmTargetTrack *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->base;
}

/* The point the keyframes are for, in the effector joint's frame; zero for its origin. */
KmVec3
km_target_track_get_effector_offset (const KmTargetTrack *self)
{
  g_return_val_if_fail (self != NULL, KM_VEC3_ZERO);

  return self->effector_offset;
}

/* Whether the keyframes are for a point off the effector joint's origin (a tool point). */
gboolean
km_target_track_has_effector_offset (const KmTargetTrack *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return self->effector_offset.x != 0.0 || self->effector_offset.y != 0.0
         || self->effector_offset.z != 0.0;
}

/* TRUE when only the keyframes' positions are targets. */
gboolean
km_target_track_get_position_only (const KmTargetTrack *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return self->position_only;
}

/* Orientations compare as rotations (q and -q are equal); @epsilon in metres and radians.
 * A keyframe's extra members (km_target_track_get_extra()) compare as text, so that an
 * edit of only those is a change. */
gboolean
km_target_track_equal (const KmTargetTrack *a,
                       const KmTargetTrack *b,
                       double               epsilon)
{
  g_return_val_if_fail (a != NULL, FALSE);
  g_return_val_if_fail (b != NULL, FALSE);

  if (a->n_keyframes != b->n_keyframes || g_strcmp0 (a->effector, b->effector) != 0
      || g_strcmp0 (a->base, b->base) != 0
      || a->frame_rate != b->frame_rate || a->position_only != b->position_only
      || !(km_vec3_length (km_vec3_sub (a->effector_offset, b->effector_offset)) <= epsilon))
    return FALSE;
  for (guint i = 0; i < a->n_keyframes; i++)
    {
      const KmTargetKeyframe *ka = &a->keyframes[i];
      const KmTargetKeyframe *kb = &b->keyframes[i];

      if (ka->frame != kb->frame
          || !(km_vec3_length (km_vec3_sub (ka->position, kb->position)) <= epsilon)
          || !(km_quat_angle_between (ka->orientation, kb->orientation) <= epsilon)
          || g_strcmp0 (km_target_track_get_extra (a, ka->frame),
                        km_target_track_get_extra (b, kb->frame)) != 0)
        return FALSE;
    }
  return TRUE;
}
