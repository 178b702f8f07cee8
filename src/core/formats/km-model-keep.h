/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <glib.h>

#include "km-skeleton.h"

G_BEGIN_DECLS

/*
 * What the .body and URDF writers share when they write an edited skeleton over the model
 * file it came from (km_body_save_over(), km_urdf_save_over()): the original document is
 * written again with the kinematic edits applied, so that what Kinema does not model (mass
 * and inertia, sensors, collisions, transmissions, …) stays. Internal to the writers.
 */

/* An XML element of a well-formed text (one a GMarkup reader accepted): byte offsets. */
typedef struct
{
  char  *name;
  gsize  start;        /* the '<' of the start tag */
  gsize  start_end;    /* one past the start tag's '>' */
  gsize  content_end;  /* the '<' of the end tag; start_end for an empty element */
  gsize  end;          /* one past the element */
  int    parent;       /* index of the enclosing element, -1 for the document element */
  guint  depth;
} KmKeepElement;

/* Every element of @text in document order, NULL when the text is not as expected. */
GArray   *km_keep_xml_scan          (const char          *text,
                                     gsize                length);
/* The value of attribute @name of the start tag of @element (entities decoded), or NULL;
 * @value_start, @value_end (nullable): where the value's text lies, quotes excluded. */
char     *km_keep_xml_attr          (const char          *text,
                                     const KmKeepElement *element,
                                     const char          *name,
                                     gsize               *value_start,
                                     gsize               *value_end);

/* Replacements of byte ranges of a text, applied at once; insertions at one offset keep
 * the order they were added in. */
typedef struct _KmKeepSplices KmKeepSplices;

KmKeepSplices *km_keep_splices_new  (void);
void      km_keep_splices_free      (KmKeepSplices       *splices);
void      km_keep_splice            (KmKeepSplices       *splices,
                                     gsize                start,
                                     gsize                end,
                                     const char          *replacement);
/* Removes [@start, @end) with the blank rest of its line(s) when it stands alone on them. */
void      km_keep_splice_lines      (KmKeepSplices       *splices,
                                     const char          *text,
                                     gsize                length,
                                     gsize                start,
                                     gsize                end);
/* NULL when two replacements overlap. */
char     *km_keep_splices_apply     (KmKeepSplices       *splices,
                                     const char          *text,
                                     gsize                length);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KmKeepSplices, km_keep_splices_free)

/* The reference @uri (a mesh file, a Resource) that the model file @original makes, as the
 * file @path must make it to name the same file; NULL when it is to stay as written. */
char     *km_keep_moved_uri         (const char          *uri,
                                     const char          *original,
                                     const char          *path);

/* Whether @a and @b (read back from two files) have the same kinematics: joint names,
 * types, parents, offsets, rotations, axes, limits, links between joints, the default end
 * effector (km_skeleton_get_default_effector()), and with @ids the joint ids; else FALSE
 * with the first difference in @why. */
gboolean  km_keep_same_kinematics   (const KmSkeleton    *a,
                                     const KmSkeleton    *b,
                                     gboolean             ids,
                                     char               **why);

/* The note of a save that could not keep @original: @lost says what is lost. */
void      km_keep_note_lost         (GPtrArray           *notes,
                                     const char          *original,
                                     const char          *reason,
                                     const char          *lost);

G_END_DECLS
