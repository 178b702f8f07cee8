/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include "km-animation.h"
#include "km-item.h"
#include "km-math.h"
#include "km-skeleton.h"

G_BEGIN_DECLS

/*
 * KmMotionFileItem: the abstract base of Choreonoid's items that play a motion file for a
 * body (KmBodyMotionItem, KmPoseSeqItem). Their body is their nearest ancestor body item.
 *
 * Kinema plays such a file and never edits it: `file` (or the older `filename`) and
 * `format` are only read, and the item's data is written back exactly as it was read (its
 * file reference follows a save into another folder, as every item's does: km-cnoid.h).
 * A format the subclass does not read, or a file that cannot be read, becomes the item's
 * problem and a warning; the project loads either way.
 *
 * The base keeps the animation built for the body's current model and drops it when that
 * model changes; a subclass builds it (lazily, in build_animation, or whenever it likes,
 * with _km_motion_file_item_set_animation) and only says what its file is and how to read
 * it. The item is a KmAnimationSource, so the editor plays every subclass the same way.
 */

#define KM_TYPE_MOTION_FILE_ITEM (km_motion_file_item_get_type ())

G_DECLARE_DERIVABLE_TYPE (KmMotionFileItem, km_motion_file_item, KM, MOTION_FILE_ITEM, KmItem)

struct _KmMotionFileItemClass
{
  KmItemClass parent_class;

  /* The problem to show for @format (never NULL: an item without one is read as the
   * subclass's own format), or NULL when the subclass reads it. */
  char        *(*check_format)    (KmMotionFileItem *self,
                                   const char       *format);
  /* Reads the file at @path (expanded, as the user knows it); FALSE with @error. */
  gboolean     (*load)            (KmMotionFileItem *self,
                                   const char       *path,
                                   GError          **error);
  /* Optional: after a load in place, a warning when what was read does not fit the body,
   * or NULL. */
  char        *(*check_fit)       (KmMotionFileItem *self);
  /* Optional: builds the animation for @skeleton (the body's model) when one is asked for
   * and there is none, handing it over with _km_motion_file_item_set_animation. */
  void         (*build_animation) (KmMotionFileItem *self,
                                   KmSkeleton       *skeleton);

  gpointer padding[8];
};

/* The `file` value as written, or NULL. */
const char  *km_motion_file_item_get_file          (KmMotionFileItem *self);
/* The `format` value as written, or NULL. */
const char  *km_motion_file_item_get_format        (KmMotionFileItem *self);
/* The nearest ancestor body item, or NULL. */
KmItem      *km_motion_file_item_get_body          (KmMotionFileItem *self);
/* The model of that body, or NULL. */
KmSkeleton  *km_motion_file_item_get_body_skeleton (KmMotionFileItem *self);
KmAnimation *km_motion_file_item_get_animation     (KmMotionFileItem *self);
/* The world pose of the body's root at @frame of that animation; FALSE when it has none. */
gboolean     km_motion_file_item_get_root_pose     (KmMotionFileItem *self,
                                                    guint             frame,
                                                    KmTransform      *pose);

/* For subclasses. */
void         _km_motion_file_item_set_file         (KmMotionFileItem *self,
                                                    const char       *path,
                                                    const char       *format);
void         _km_motion_file_item_set_animation    (KmMotionFileItem *self,
                                                    KmAnimation      *animation,
                                                    KmSkeleton       *skeleton,
                                                    KmTransform      *root_poses);

G_END_DECLS
