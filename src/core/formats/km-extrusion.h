/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include "km-shape.h"

G_BEGIN_DECLS

/*
 * VRML's Extrusion, as Choreonoid's .body files and VRML meshes use it (crawler tracks,
 * outlines): the 2D @section (x, z pairs, @n_section of them; a closed outline repeats
 * its first point) swept along @spine (@n_spine x, y, z points) in the spine-aligned
 * cross-section plane of each spine point (Y along the spine, Z normal to its bend; for a
 * straight spine the rotation of +Y onto it). At each spine point the outline is scaled
 * by @scale (x, z pairs) and then turned by @orientation (axis x, y, z and angle in
 * radians, in the cross-section plane's frame), as VRML97 says; both give one entry per
 * spine point or fewer, the last one repeated (@n_orientation may be 0: no turn).
 *
 * The caps are the outline triangulated by km_polygon_triangulate_2d (ear clipping), so
 * concave outlines (an L, a star) are right too; an outline of more than
 * KM_POLYGON_MAX_CLIPPED points is capped with a fan.
 *
 * The caller checks @n_spine ≥ 2, @n_scale ≥ 1 and an outline of at least 2 distinct
 * points (km_extrusion_ring_size). Errors: KM_PARSE_ERROR_LIMIT beyond the mesh limits.
 */
typedef struct
{
  const double *section;
  guint         n_section;
  const double *spine;
  guint         n_spine;
  const double *scale;
  guint         n_scale;
  const double *orientation;
  guint         n_orientation;
  gboolean      begin_cap;
  gboolean      end_cap;
} KmExtrusion;

guint    km_extrusion_ring_size     (const double      *section,
                                     guint              n_section);
KmMesh  *km_extrusion_mesh          (const KmExtrusion *extrusion,
                                     GError           **error);

G_END_DECLS
