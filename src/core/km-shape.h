/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <glib-object.h>

#include "km-math.h"

G_BEGIN_DECLS

/*
 * Display geometry attached to a joint (DESIGN.md: "optional shapes for display").
 *
 * Conventions:
 * - A shape lives in its joint's frame: a point p of the shape's own geometry is drawn at
 *   joint_world · transform · diag(scale) · p. `scale` exists because Choreonoid and VRML
 *   Transforms may scale; a KmTransform is rigid.
 * - Primitives are centred on the origin of their own frame. Box: `size` is the full extent
 *   along x, y and z. Sphere: `radius`. Cylinder, cone and capsule run along +Y (the
 *   VRML / Choreonoid convention; a URDF reader rotates Z-axis cylinders into it): `height`
 *   is the length along Y, from -height/2 to +height/2; a cone's base (of `radius`) is at
 *   -height/2 and its apex at +height/2; a capsule's `height` is its cylinder part, the
 *   hemispherical caps add `radius` at each end.
 * - Metres; colours are linear RGBA in [0, 1] (`color` is the appearance colour, what a
 *   renderer draws: a loader copies the material colour of a mesh file into it).
 * - A KmMesh is an indexed triangle list, immutable once created and atomically
 *   reference counted, so that one mesh file used by several links (or a VRML DEF/USE) is
 *   loaded and stored once. A KmShape is reference counted too; its fields are public
 *   and may be set until the shape is handed to a KmSkeletonBuilder, read-only afterwards.
 */

#define KM_TYPE_SHAPE (km_shape_get_type ())
#define KM_TYPE_MESH (km_mesh_get_type ())

/* Upper bounds that keep hostile mesh files from allocating without bound. */
#define KM_MESH_MAX_VERTICES  (16u * 1024u * 1024u)
#define KM_MESH_MAX_TRIANGLES (16u * 1024u * 1024u)

typedef enum
{
  KM_SHAPE_BOX,
  KM_SHAPE_SPHERE,
  KM_SHAPE_CYLINDER,
  KM_SHAPE_CONE,
  KM_SHAPE_CAPSULE,
  KM_SHAPE_MESH,
} KmShapeType;

typedef struct
{
  float r, g, b, a;
} KmColor;

#define KM_COLOR_DEFAULT ((KmColor) { 0.8f, 0.8f, 0.8f, 1.0f })

typedef struct _KmMesh KmMesh;

typedef struct
{
  KmShapeType  type;
  KmTransform  transform;   /* shape frame in the joint frame */
  KmVec3       scale;       /* applied before transform; (1, 1, 1) by default */
  KmColor      color;
  KmVec3       size;        /* box */
  double       radius;      /* sphere, cylinder, cone, capsule */
  double       height;      /* cylinder, cone, capsule: along +Y */
  KmMesh      *mesh;        /* KM_SHAPE_MESH: owned reference; NULL otherwise */
  char        *name;        /* nullable: a DEF / node name from the file, for messages */
  /* nullable: the mesh file as the model names it ("package://pkg/meshes/arm.dae"), for
   * writers to write the reference back as it was.
   * - A mesh that was not loaded (not found, unreadable, or meshes not read) is
   *   KM_SHAPE_MESH with mesh NULL, placed by transform and scale like the file's own
   *   reference, and draws nothing.
   * - A mesh that was loaded keeps its file's reference too (a URDF <mesh filename>): a
   *   file may hold several meshes, each a shape placed by transform and scale (the file's
   *   own node transforms included), so the reference's placement is in uri_transform and
   *   uri_scale, and uri_part numbers the shapes read from it: a writer that writes the
   *   reference writes it for part 0 and leaves out the others. */
  char        *uri;
  /* nullable: the folder (canonical) a plain relative uri ("meshes/arm.stl") leads from:
   * the folder of the model file that names it, so that a writer writing the model
   * elsewhere still names the same file (km_shape_dup_uri_for). NULL for a URL
   * ("package://…"), a path with a variable ("${SHARE}/…") or an absolute path, which
   * lead to the same file from anywhere, and for a uri that was not read from a file. */
  char        *uri_dir;
  /* nullable: the file (canonical) the uri led to when the model was read, whether or not
   * it could be read as a mesh (a found file that is not, an unloaded reference, keeps
   * it too), NULL when it was not found or not looked for (meshes not read): a writer
   * writing the model elsewhere can check that a name
   * that depends on where the model lies ("package://…", found above the model file)
   * still leads to that file, and write the file's path instead. */
  char        *uri_file;
  KmTransform  uri_transform; /* loaded mesh with a uri: the file's frame in the joint frame */
  KmVec3       uri_scale;     /* loaded mesh with a uri: the reference's scale; (1, 1, 1) */
  guint        uri_part;      /* loaded mesh with a uri: which of the file's shapes this is */
  /* nullable: the node of the uri's file the model selects (a .body Resource's `node`),
   * NULL for the whole file. The shapes are then that node's only, and uri_part numbers
   * them among the node's shapes: a writer that can only name a whole file (URDF) must
   * not write the reference as it would the whole file's geometry. */
  char        *uri_node;
  /* nullable: the name the model gives the shape's material (URDF), for writers */
  char        *material;
} KmShape;

GType           km_shape_get_type             (void) G_GNUC_CONST;
const char     *km_shape_type_to_string       (KmShapeType     type);

KmShape        *km_shape_new                  (KmShapeType     type);
KmShape        *km_shape_new_box              (KmVec3          size);
KmShape        *km_shape_new_sphere           (double          radius);
KmShape        *km_shape_new_cylinder         (double          radius,
                                               double          height);
KmShape        *km_shape_new_cone             (double          radius,
                                               double          height);
KmShape        *km_shape_new_capsule          (double          radius,
                                               double          height);
KmShape        *km_shape_new_mesh             (KmMesh         *mesh);
KmShape        *km_shape_new_mesh_reference   (const char     *uri);
KmShape        *km_shape_copy                 (const KmShape  *self);
KmShape        *km_shape_ref                  (KmShape        *self);
void            km_shape_unref                (KmShape        *self);
void            km_shape_set_name             (KmShape        *self,
                                               const char     *name);
void            km_shape_set_material         (KmShape        *self,
                                               const char     *material);
void            km_shape_set_uri              (KmShape        *self,
                                               const char     *uri,
                                               const char     *model_path);
char           *km_shape_dup_uri_for          (const KmShape  *self,
                                               const char     *dir);
void            km_shape_set_uri_node         (KmShape        *self,
                                               const char     *node);
void            km_shape_set_uri_file         (KmShape        *self,
                                               const char     *file);
gboolean        km_shape_set_affine           (KmShape        *self,
                                               const KmMat3   *linear,
                                               KmVec3          translation);
void            km_shape_get_mat4             (const KmShape  *self,
                                               mat4            out);
void            km_shape_get_bounds           (const KmShape  *self,
                                               KmVec3         *min,
                                               KmVec3         *max);

/* ROS package:// mesh references, shared by the model readers that meet them. */
char          **km_package_paths_from_env     (void);
GHashTable     *km_package_cache_new          (void);
char           *km_package_uri_resolve        (const char          *uri,
                                               const char          *model_path,
                                               const char * const  *package_paths,
                                               GHashTable          *cache);

GType           km_mesh_get_type              (void) G_GNUC_CONST;
KmMesh         *km_mesh_new_take              (float          *vertices,
                                               guint           n_vertices,
                                               float          *normals,
                                               guint32        *indices,
                                               guint           n_triangles,
                                               GError        **error);
KmMesh         *km_mesh_new                   (const float    *vertices,
                                               guint           n_vertices,
                                               const float    *normals,
                                               const guint32  *indices,
                                               guint           n_triangles,
                                               GError        **error);
KmMesh         *km_mesh_ref                   (KmMesh         *self);
void            km_mesh_unref                 (KmMesh         *self);
guint           km_mesh_get_n_vertices        (const KmMesh   *self);
guint           km_mesh_get_n_triangles       (const KmMesh   *self);
const float    *km_mesh_get_vertices          (const KmMesh   *self);
const float    *km_mesh_get_normals           (const KmMesh   *self);
const guint32  *km_mesh_get_indices           (const KmMesh   *self);
void            km_mesh_set_color             (KmMesh         *self,
                                               KmColor         color);
gboolean        km_mesh_get_color             (const KmMesh   *self,
                                               KmColor        *color);
void            km_mesh_get_bounds            (const KmMesh   *self,
                                               KmVec3         *min,
                                               KmVec3         *max);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KmShape, km_shape_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (KmMesh, km_mesh_unref)

G_END_DECLS
