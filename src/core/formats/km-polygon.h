/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/*
 * The one polygon triangulator of the mesh readers (VRML and .body IndexedFaceSet faces,
 * Extrusion caps): ear clipping, so concave polygons (an L, a U, a star) come out right.
 *
 * Triangles run in the polygon's own direction, and a convex polygon gives exactly the
 * fan 0, k, k + 1 (so convex faces triangulate as they always did). Degenerate input
 * never crashes nor loops: repeated points and collinear corners are clipped as
 * zero-area triangles; when no ear is left (a self-crossing outline), the next convex
 * corner is clipped anyway, and when there is none, the rest becomes a fan. Every call
 * gives n − 2 triangles for n ≥ 3 points.
 *
 * Ear clipping costs O(n²) point tests (each corner is tested once, then again only when
 * a neighbour is cut, plus at most a few fresh rounds for degenerate input): a polygon of
 * more than KM_POLYGON_MAX_CLIPPED points is triangulated as a fan instead, which bounds
 * the work for a face list of N indices by O(KM_POLYGON_MAX_CLIPPED × N) point tests
 * (under 1 ms for a self-crossing polygon of 512 random points).
 */
#define KM_POLYGON_MAX_CLIPPED 512

guint    km_polygon_triangulate_2d    (const double  *points,
                                       guint          n_points,
                                       guint32       *triangles);
guint    km_polygon_triangulate       (const float   *vertices,
                                       const guint32 *polygon,
                                       guint          n,
                                       guint32       *triangles);
void     km_polygon_triangulate_faces (const float   *vertices,
                                       const double  *index,
                                       guint          n_index,
                                       gboolean       reverse,
                                       guint          max_triangles,
                                       GArray        *triangles);

G_END_DECLS
