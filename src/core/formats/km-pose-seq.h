/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <gio/gio.h>

#include "km-animation.h"
#include "km-error.h"
#include "km-format.h"
#include "km-math.h"
#include "km-skeleton.h"

G_BEGIN_DECLS

/*
 * Choreonoid's pose sequence (`.pseq`, format POSE-SEQ-YAML, PoseSeqItem): key poses of a
 * body at given times.
 *
 *   type: PoseSeq
 *   name: "SR1WalkPattern2"
 *   targetBody: "SR1"
 *   angleUnit: radian             (optional; degree: revolute joints' q in degrees)
 *   refs:
 *     - time: 2.014                  (s, >= 0, not decreasing)
 *       maxTransitionTime: 1.09      (optional, s; see km_pose_seq_interpolate)
 *       refer:
 *         type: Pose
 *         joints: [ 0, 1, … ]         (Choreonoid joint ids of the body)
 *         q: [ 0.0192, -0.286, … ]    (one per joint: rad for revolute, m for prismatic)
 *         ikLinks:                    (optional)
 *           - { name: WAIST, index: 0, isBaseLink: true,
 *               translation: [ x, y, z ] (m, world), rotation: [ 9 numbers, row-major ],
 *               isTouching: true, … }
 *         zmp: [ x, y, z ]            (optional, m)
 *
 * Refs of another type (`PronunSymbol`, lip-sync keys) are skipped with a warning through
 * km_parse_warning(). Unknown keys are ignored (Choreonoid writes more than Kinema uses).
 * Errors are KM_PARSE_ERROR "FILE:LINE:COLUMN: what was expected" at the offending value;
 * the sizes are bounded (KM_POSE_SEQ_MAX_*).
 *
 * KmPoseSeq is immutable, reference-counted plain data.
 */

#define KM_TYPE_POSE_SEQ (km_pose_seq_get_type ())

/* The `format` value of PoseSeqItem's file reference. */
#define KM_POSE_SEQ_FORMAT "POSE-SEQ-YAML"

#define KM_POSE_SEQ_MAX_KEYS   100000
#define KM_POSE_SEQ_MAX_JOINTS 10000   /* per pose */
#define KM_POSE_SEQ_MAX_LINKS  1000    /* ikLinks per pose */
#define KM_POSE_SEQ_MAX_TIME   1e6     /* s */

typedef struct
{
  char        *name;
  int          index;         /* the link's index in the body, -1 when not given */
  gboolean     is_base_link;
  gboolean     is_touching;
  KmVec3       translation;   /* m, world */
  KmMat3       rotation;      /* world attitude */
} KmPoseSeqLink;

typedef struct
{
  double         time;                 /* s */
  double         max_transition_time;  /* s; 0 when not given */
  guint          n_joints;
  int           *joints;               /* Choreonoid joint ids */
  double        *q;                    /* rad or m, parallel to @joints */
  guint          n_links;
  KmPoseSeqLink *links;
  int            base_link;            /* index into @links, -1 when none is the base */
  gboolean       has_zmp;
  KmVec3         zmp;
  KmSourcePos    pos;                  /* of the ref in the file */
} KmPoseSeqKey;

typedef struct _KmPoseSeq KmPoseSeq;

GType               km_pose_seq_get_type          (void) G_GNUC_CONST;

/* 0 … 100: does @data look like a pose sequence (`type: PoseSeq` at the top)? */
int                 km_pose_seq_sniff             (const char       *data,
                                                   gsize             length);
KmPoseSeq          *km_pose_seq_load              (const char       *path,
                                                   GBytes           *contents,
                                                   GError          **error);
KmPoseSeq          *km_pose_seq_load_file         (const char       *path,
                                                   GError          **error);
KmPoseSeq          *km_pose_seq_ref               (KmPoseSeq        *self);
void                km_pose_seq_unref             (KmPoseSeq        *self);

const char         *km_pose_seq_get_name          (const KmPoseSeq  *self);
/* The `targetBody` name, or NULL. */
const char         *km_pose_seq_get_target_body   (const KmPoseSeq  *self);
guint               km_pose_seq_get_n_keys        (const KmPoseSeq  *self);
const KmPoseSeqKey *km_pose_seq_get_key           (const KmPoseSeq  *self,
                                                   guint             index);
/* The time of the last key (s), 0 without keys. */
double              km_pose_seq_get_duration      (const KmPoseSeq  *self);
/* Refs of other types that were skipped. */
guint               km_pose_seq_get_n_skipped     (const KmPoseSeq  *self);
/* `kinema-cli info`: detail lines, then "keys=N duration=S target_body=NAME". */
void                km_pose_seq_describe          (const KmPoseSeq  *self,
                                                   GString          *out);

KmAnimation        *km_pose_seq_interpolate       (const KmPoseSeq  *self,
                                                   KmSkeleton       *skeleton,
                                                   const double     *initial_q,
                                                   const KmTransform *initial_root,
                                                   double            frame_rate,
                                                   KmTransform     **root_poses,
                                                   GCancellable     *cancellable,
                                                   GError          **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KmPoseSeq, km_pose_seq_unref)

/* The registry's row (km-format.h): KM_FILE_KIND_POSE_SEQ, name KM_POSE_SEQ_FORMAT. */
extern const KmFormat km_format_pose_seq;

G_END_DECLS
