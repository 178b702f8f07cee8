/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <glib.h>

#include "km-math.h"

G_BEGIN_DECLS

/*
 * The Scenebuilder value language (specs/scenebuilder.md, section 2): real expressions with
 * units, vectors, rotations, booleans.
 *
 * A real is evaluated level by level (one level per parenthesis group) in the passes of the
 * original calculator: groups, functions (applied to the number or group right after them:
 * `sqrt2`, `sin(30deg)`), unary + - !, ^ (left to right, so 2^3^2 = 64 and -2^2 = 4), * and
 * / (division by zero is an error), + and -, || and &&, then units (a unit multiplies the
 * number before it, a bare unit is 1 unit). Exactly one number must remain. A unit at the
 * top level makes the value SI; otherwise it is multiplied by the default scale of the
 * attribute's dimension (a unit inside parentheses does not count: with mm as the default,
 * "(10mm)" is 10 µm, as in Scenebuilder). Reals contain no whitespace. The *_full variants
 * also tell where that happened while the default scale is not 1
 * (KM_SB_VALUE_PARENTHESISED_UNIT), so that a reader can warn about it.
 *
 * Errors give the byte offset in the text of the character that is wrong; the caller turns
 * it into a file position. Nesting is bounded by KM_SB_EXPR_MAX_DEPTH; results must be
 * finite.
 */

#define KM_SB_EXPR_MAX_DEPTH 32

typedef enum
{
  KM_SB_DIM_NONE,
  KM_SB_DIM_L,
  KM_SB_DIM_R,
  KM_SB_DIM_M,
  KM_SB_DIM_L_T,
  KM_SB_DIM_L_T2,
  KM_SB_DIM_R_T,
  KM_SB_DIM_R_T2,
  KM_SB_DIM_ML_T2,
  KM_SB_DIM_ML2_T2,
  KM_SB_DIM_ML2,
  KM_SB_DIM_M_T,
  KM_SB_DIM_M_T2,
  KM_SB_DIM_ML2_RT,
  KM_SB_DIM_ML2_RT2,
  KM_SB_DIM_M_L3,
} KmSbDim;

/* The SI value of one default unit of length, rotation, mass and time. */
typedef struct
{
  double length;
  double rotation;
  double mass;
  double time;
} KmSbUnits;

#define KM_SB_UNITS_SI ((KmSbUnits) { 1.0, 1.0, 1.0, 1.0 })

/* Problems found while reading a value that do not make it invalid (the *_full functions
 * and km_sb_parse_rotation). */
typedef enum
{
  KM_SB_VALUE_OK = 0,
  KM_SB_VALUE_NORMALIZED = 1 << 0,   /* a quaternion was not of unit length */
  KM_SB_VALUE_NOT_ORTHONORMAL = 1 << 1,   /* a 3x3 matrix was not a rotation */
  /* A unit stood inside parentheses while the default scale of the value's dimension is
   * not 1: it does not count as explicit, so the default scale applies too (2.3). */
  KM_SB_VALUE_PARENTHESISED_UNIT = 1 << 2,
  /* A real without a unit at its top level: the default scale of its dimension applied. */
  KM_SB_VALUE_DEFAULT_UNIT = 1 << 3,
} KmSbValueFlags;

double    km_sb_units_scale         (const KmSbUnits *units,
                                     KmSbDim          dim);
gboolean  km_sb_unit_lookup         (const char      *name,
                                     gsize            length,
                                     double          *factor);
gboolean  km_sb_eval_real           (const char      *text,
                                     gsize            length,
                                     KmSbDim          dim,
                                     const KmSbUnits *units,
                                     double          *value,
                                     gsize           *error_offset,
                                     char           **error_message);
gboolean  km_sb_eval_real_full      (const char      *text,
                                     gsize            length,
                                     KmSbDim          dim,
                                     const KmSbUnits *units,
                                     double          *value,
                                     KmSbValueFlags  *flags,
                                     gsize           *error_offset,
                                     char           **error_message);
gboolean  km_sb_parse_bool          (const char      *text,
                                     gboolean        *value,
                                     gsize           *error_offset,
                                     char           **error_message);
gboolean  km_sb_parse_vector        (const char      *text,
                                     guint            n,
                                     KmSbDim          dim,
                                     const KmSbUnits *units,
                                     double          *values,
                                     gsize           *error_offset,
                                     char           **error_message);
gboolean  km_sb_parse_vector_full   (const char      *text,
                                     guint            n,
                                     KmSbDim          dim,
                                     const KmSbUnits *units,
                                     double          *values,
                                     KmSbValueFlags  *flags,
                                     gsize           *unit_offset,
                                     gsize           *error_offset,
                                     char           **error_message);
gboolean  km_sb_parse_rotation      (const char      *text,
                                     const KmSbUnits *units,
                                     KmQuat          *value,
                                     KmSbValueFlags  *flags,
                                     gsize           *error_offset,
                                     char           **error_message);
gboolean  km_sb_parse_rotation_full (const char      *text,
                                     const KmSbUnits *units,
                                     KmQuat          *value,
                                     KmSbValueFlags  *flags,
                                     gsize           *unit_offset,
                                     gsize           *error_offset,
                                     char           **error_message);

G_END_DECLS
