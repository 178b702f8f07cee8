/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <glib.h>

#include "km-error.h"
#include "km-shape.h"

G_BEGIN_DECLS

/*
 * Mesh files that model formats refer to (a Choreonoid `Resource`/`uri`, a URDF `<mesh>`,
 * a Scenebuilder shape): STL (binary or ASCII), Wavefront OBJ with its MTL colours, and
 * the VRML97 subset model files use (Transform, Group, Shape, Appearance/Material,
 * IndexedFaceSet, Box/Cylinder/Sphere/Cone, DEF/USE, header optional), and COLLADA 1.4/1.5
 * (.dae: the mesh, material and visual-scene subset robot models use, <unit> applied and
 * <up_axis> not, as ROS tools read them; km-mesh-collada.c).
 *
 * A file loads as a list of KmShape in the file's own frame and units (metres assumed):
 * one shape per OBJ material group, one per VRML Shape (with the Transforms above it
 * folded into the shape's transform and scale), one for a whole STL file. Shapes that a
 * cache returns are shared: copy one (km_shape_copy, which shares the mesh) before
 * changing its transform or colour.
 *
 * Which reader: the content decides where it can (an STL whose size is 84 + 50·n bytes
 * for the triangle count n it states is binary even when it starts with "solid"; "#VRML"
 * is VRML; "solid" … "facet" is ASCII STL; <COLLADA after an optional XML declaration,
 * comments and white space is COLLADA), then the extension (.stl, .obj, .wrl/.vrml, .dae).
 *
 * Bounds: files over KM_MESH_MAX_FILE_SIZE, and meshes over KM_MESH_MAX_VERTICES /
 * KM_MESH_MAX_TRIANGLES (km-shape.h) are refused; VRML and COLLADA nesting is bounded by
 * KM_MESH_MAX_DEPTH. Errors in text formats are "FILE:LINE:COLUMN: …" (KM_PARSE_ERROR).
 */

#define KM_MESH_MAX_FILE_SIZE ((gsize) 512 * 1024 * 1024)
#define KM_MESH_MAX_DEPTH     64

typedef struct _KmMeshCache KmMeshCache;

/* A cache for one model load: every file (and VRML node) is read once, however many
 * links use it; a failure is remembered too, so it is reported once per file. */
KmMeshCache  *km_mesh_cache_new        (void);
void          km_mesh_cache_free       (KmMeshCache    *cache);
GPtrArray    *km_mesh_cache_load       (KmMeshCache    *cache,
                                        const char     *path,
                                        const char     *node,
                                        GError        **error);

/* Uncached: reads @path. @node (nullable) names a DEF node of a VRML file to load alone
 * (ignored for other formats). Returns (transfer full) an array of KmShape. */
GPtrArray    *km_mesh_load_file        (const char     *path,
                                        const char     *node,
                                        GError        **error);

/* From memory; @path is for messages (and for finding an OBJ's .mtl files). */
GPtrArray    *km_mesh_load_stl         (const char     *path,
                                        const char     *data,
                                        gsize           length,
                                        GError        **error);
GPtrArray    *km_mesh_load_obj         (const char     *path,
                                        const char     *data,
                                        gsize           length,
                                        GError        **error);
GPtrArray    *km_mesh_load_vrml        (const char     *path,
                                        const char     *data,
                                        gsize           length,
                                        const char     *node,
                                        GError        **error);
GPtrArray    *km_mesh_load_collada     (const char     *path,
                                        const char     *data,
                                        gsize           length,
                                        GError        **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KmMeshCache, km_mesh_cache_free)

G_END_DECLS
