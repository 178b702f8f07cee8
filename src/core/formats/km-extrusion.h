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
 * straight spine the rotation of +Y onto it), scaled by @scale (x, z pairs, one per spine
 * point, the last repeated; @n_scale ≥ 1). The caps are fans, right for the convex
 * outlines such models use. `orientation` is not supported.
 *
 * The caller checks @n_spine ≥ 2 and an outline of at least 2 distinct points
 * (km_extrusion_ring_size). Errors: KM_PARSE_ERROR_LIMIT beyond the mesh limits.
 */
guint    km_extrusion_ring_size (const double *section,
                                 guint         n_section);
KmMesh  *km_extrusion_mesh      (const double *section,
                                 guint         n_section,
                                 const double *spine,
                                 guint         n_spine,
                                 const double *scale,
                                 guint         n_scale,
                                 gboolean      begin_cap,
                                 gboolean      end_cap,
                                 GError      **error);

G_END_DECLS
