/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-shape"

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "km-shape.h"

#include "km-error.h"

struct _KmMesh
{
  float   *vertices;   /* 3 per vertex */
  float   *normals;    /* 3 per vertex, unit length (or zero for unused vertices) */
  guint32 *indices;    /* 3 per triangle */
  guint    n_vertices;
  guint    n_triangles;
  gboolean has_color;
  KmColor  color;
};

G_DEFINE_BOXED_TYPE (KmShape, km_shape, km_shape_ref, km_shape_unref)
G_DEFINE_BOXED_TYPE (KmMesh, km_mesh, km_mesh_ref, km_mesh_unref)

static const char * const shape_type_names[] = {
  [KM_SHAPE_BOX] = "box",
  [KM_SHAPE_SPHERE] = "sphere",
  [KM_SHAPE_CYLINDER] = "cylinder",
  [KM_SHAPE_CONE] = "cone",
  [KM_SHAPE_CAPSULE] = "capsule",
  [KM_SHAPE_MESH] = "mesh",
};

const char *
km_shape_type_to_string (KmShapeType type)
{
  g_return_val_if_fail (type <= KM_SHAPE_MESH, NULL);

  return shape_type_names[type];
}

/**
 * km_shape_new:
 *
 * A shape of @type with zero dimensions, the identity transform, unit scale and the
 * default grey. Set the fields that @type uses.
 *
 * Returns: (transfer full): a new shape
 */
KmShape *
km_shape_new (KmShapeType type)
{
  KmShape *self;

  g_return_val_if_fail (type <= KM_SHAPE_MESH, NULL);

  self = g_atomic_rc_box_new0 (KmShape);
  self->type = type;
  km_transform_identity (&self->transform);
  self->scale = km_vec3 (1, 1, 1);
  km_transform_identity (&self->uri_transform);
  self->uri_scale = km_vec3 (1, 1, 1);
  self->color = KM_COLOR_DEFAULT;
  return self;
}

KmShape *
km_shape_new_box (KmVec3 size)
{
  KmShape *self = km_shape_new (KM_SHAPE_BOX);

  self->size = size;
  return self;
}

KmShape *
km_shape_new_sphere (double radius)
{
  KmShape *self = km_shape_new (KM_SHAPE_SPHERE);

  self->radius = radius;
  return self;
}

/* Along +Y, centred on the origin. */
KmShape *
km_shape_new_cylinder (double radius,
                       double height)
{
  KmShape *self = km_shape_new (KM_SHAPE_CYLINDER);

  self->radius = radius;
  self->height = height;
  return self;
}

/* Along +Y: base at -height/2, apex at +height/2. */
KmShape *
km_shape_new_cone (double radius,
                   double height)
{
  KmShape *self = km_shape_new (KM_SHAPE_CONE);

  self->radius = radius;
  self->height = height;
  return self;
}

/* Along +Y; @height is the cylinder part, without the two caps. */
KmShape *
km_shape_new_capsule (double radius,
                      double height)
{
  KmShape *self = km_shape_new (KM_SHAPE_CAPSULE);

  self->radius = radius;
  self->height = height;
  return self;
}

/**
 * km_shape_new_mesh:
 * @mesh: (transfer none): the triangles; the shape takes a reference
 *
 * The shape's colour starts as the mesh's own colour when it has one.
 *
 * Returns: (transfer full): a new shape
 */
KmShape *
km_shape_new_mesh (KmMesh *mesh)
{
  KmShape *self;

  g_return_val_if_fail (mesh != NULL, NULL);

  self = km_shape_new (KM_SHAPE_MESH);
  self->mesh = km_mesh_ref (mesh);
  km_mesh_get_color (mesh, &self->color);
  return self;
}

/**
 * km_shape_new_mesh_reference:
 * @uri: the mesh file as the model names it
 *
 * A mesh that was not loaded: it draws nothing, and writers write @uri back.
 *
 * Returns: (transfer full): a new shape of type %KM_SHAPE_MESH without a mesh
 */
KmShape *
km_shape_new_mesh_reference (const char *uri)
{
  KmShape *self;

  g_return_val_if_fail (uri != NULL, NULL);

  self = km_shape_new (KM_SHAPE_MESH);
  self->uri = g_strdup (uri);
  return self;
}

/**
 * km_shape_copy:
 *
 * Returns: (transfer full): a new shape with the same fields, sharing the mesh
 */
KmShape *
km_shape_copy (const KmShape *self)
{
  KmShape *copy;

  g_return_val_if_fail (self != NULL, NULL);

  copy = g_atomic_rc_box_new0 (KmShape);
  *copy = *self;
  if (copy->mesh)
    km_mesh_ref (copy->mesh);
  copy->name = g_strdup (self->name);
  copy->uri = g_strdup (self->uri);
  copy->uri_dir = g_strdup (self->uri_dir);
  copy->uri_file = g_strdup (self->uri_file);
  copy->uri_node = g_strdup (self->uri_node);
  copy->material = g_strdup (self->material);
  return copy;
}

KmShape *
km_shape_ref (KmShape *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return g_atomic_rc_box_acquire (self);
}

static void
shape_clear (KmShape *self)
{
  g_clear_pointer (&self->mesh, km_mesh_unref);
  g_clear_pointer (&self->name, g_free);
  g_clear_pointer (&self->uri, g_free);
  g_clear_pointer (&self->uri_dir, g_free);
  g_clear_pointer (&self->uri_file, g_free);
  g_clear_pointer (&self->uri_node, g_free);
  g_clear_pointer (&self->material, g_free);
}

void
km_shape_unref (KmShape *self)
{
  g_return_if_fail (self != NULL);

  g_atomic_rc_box_release_full (self, (GDestroyNotify) shape_clear);
}

void
km_shape_set_name (KmShape    *self,
                   const char *name)
{
  g_return_if_fail (self != NULL);

  g_free (self->name);
  self->name = g_strdup (name);
}

void
km_shape_set_material (KmShape    *self,
                       const char *material)
{
  g_return_if_fail (self != NULL);

  g_free (self->material);
  self->material = g_strdup (material);
}

/* A reference that names a file relative to the folder of the model naming it: not a URL
 * (package://, file://, http://), not ${VAR}/…, not absolute. */
static gboolean
is_relative_reference (const char *uri)
{
  return *uri != '\0' && !g_path_is_absolute (uri) && strstr (uri, "://") == NULL &&
         !g_str_has_prefix (uri, "${");
}

/**
 * km_shape_set_uri:
 * @uri: (nullable): the mesh file as the model names it
 * @model_path: (nullable): the model file naming it, as given (relative to the working
 *   folder or absolute), where a relative @uri leads from; NULL when @uri is not read
 *   from a file
 *
 * Sets KmShape.uri and, for a plain relative @uri, KmShape.uri_dir; clears
 * KmShape.uri_file (km_shape_set_uri_file()), which named the old uri's file.
 */
void
km_shape_set_uri (KmShape    *self,
                  const char *uri,
                  const char *model_path)
{
  g_return_if_fail (self != NULL);

  g_free (self->uri);
  self->uri = g_strdup (uri);
  g_clear_pointer (&self->uri_dir, g_free);
  g_clear_pointer (&self->uri_file, g_free);
  if (uri != NULL && model_path != NULL && is_relative_reference (uri))
    {
      g_autofree char *dir = g_path_get_dirname (model_path);

      self->uri_dir = g_canonicalize_filename (dir, NULL);
    }
}

/**
 * km_shape_dup_uri_for:
 * @dir: (nullable): the folder the model is written into (relative to the working folder
 *   or absolute); NULL: the uri as written
 *
 * The reference to write for KmShape.uri in a model file in @dir: as the model wrote it,
 * unless it is relative (KmShape.uri_dir) and @dir is another folder; then relative to
 * @dir ("../" where needed), or absolute when the two folders share only the root.
 *
 * Returns: (transfer full) (nullable): the reference, NULL when the shape has no uri
 */
char *
km_shape_dup_uri_for (const KmShape *self,
                      const char    *dir)
{
  g_autofree char *to = NULL;
  g_autofree char *absolute = NULL;
  char *relative;

  g_return_val_if_fail (self != NULL, NULL);

  if (self->uri == NULL || self->uri_dir == NULL || dir == NULL)
    return g_strdup (self->uri);
  to = g_canonicalize_filename (dir, NULL);
  if (strcmp (to, self->uri_dir) == 0)
    return g_strdup (self->uri);
  absolute = g_canonicalize_filename (self->uri, self->uri_dir);
  /* Absolute when the two share only the root: a path up to "/" and down again is no
   * more portable. */
  relative = km_path_climbing (to, absolute, 1, NULL);
  return relative != NULL ? relative : g_steal_pointer (&absolute);
}

/**
 * km_shape_set_uri_node:
 * @node: (nullable): the node of KmShape.uri's file the model selects, NULL for the whole
 *   file
 */
void
km_shape_set_uri_node (KmShape    *self,
                       const char *node)
{
  g_return_if_fail (self != NULL);

  g_free (self->uri_node);
  self->uri_node = g_strdup (node);
}

/**
 * km_shape_set_uri_file:
 * @file: (nullable): the file KmShape.uri led to when the model was read (relative to the
 *   working folder or absolute), NULL when it was not found
 *
 * Sets KmShape.uri_file, canonical.
 */
void
km_shape_set_uri_file (KmShape    *self,
                       const char *file)
{
  g_return_if_fail (self != NULL);

  g_free (self->uri_file);
  self->uri_file = file != NULL ? g_canonicalize_filename (file, NULL) : NULL;
}

/* ---- package:// ---------------------------------------------------------------------- */

#define PACKAGE_SEARCH_DEPTH    3      /* folders below a package path entry */
#define PACKAGE_SEARCH_ENTRIES  20000  /* directory entries looked at, all together */
#define PACKAGE_SEARCH_UP       8      /* folders above the model file */

/**
 * km_package_paths_from_env:
 *
 * The package paths of the environment: $KINEMA_PACKAGE_PATH, then $ROS_PACKAGE_PATH
 * (each a G_SEARCHPATH_SEPARATOR-separated list; empty entries are skipped).
 *
 * Returns: (transfer full): a NULL-terminated list, empty when neither is set
 */
char **
km_package_paths_from_env (void)
{
  GPtrArray *paths = g_ptr_array_new ();
  const char *vars[] = { "KINEMA_PACKAGE_PATH", "ROS_PACKAGE_PATH" };

  for (guint v = 0; v < G_N_ELEMENTS (vars); v++)
    {
      const char *value = g_getenv (vars[v]);
      g_auto(GStrv) parts = NULL;

      if (value == NULL || *value == '\0')
        continue;
      parts = g_strsplit (value, G_SEARCHPATH_SEPARATOR_S, -1);
      for (guint i = 0; parts[i]; i++)
        if (*parts[i] != '\0')
          g_ptr_array_add (paths, g_strdup (parts[i]));
    }
  g_ptr_array_add (paths, NULL);
  return (char **) g_ptr_array_free (paths, FALSE);
}

/**
 * km_package_cache_new:
 *
 * The memory of km_package_uri_resolve() for one load, so that a model naming many meshes
 * of one package searches the package paths once.
 *
 * Returns: (transfer full): a new table, freed with g_hash_table_unref()
 */
GHashTable *
km_package_cache_new (void)
{
  return g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

/* A folder named @package at most @depth levels below @dir (ROS workspaces keep packages in
 * src/REPOSITORY/PACKAGE), breadth first; *@budget bounds the entries read. */
static char *
find_package_below (const char *dir,
                    const char *package,
                    guint       depth,
                    guint      *budget)
{
  g_autoptr(GPtrArray) level = g_ptr_array_new_with_free_func (g_free);

  g_ptr_array_add (level, g_strdup (dir));
  for (guint d = 0; d < depth && level->len > 0; d++)
    {
      g_autoptr(GPtrArray) next = g_ptr_array_new_with_free_func (g_free);

      for (guint i = 0; i < level->len; i++)
        {
          g_autoptr(GDir) handle = g_dir_open (g_ptr_array_index (level, i), 0, NULL);
          const char *name;

          while (handle != NULL && *budget > 0 && (name = g_dir_read_name (handle)) != NULL)
            {
              g_autofree char *child = NULL;

              (*budget)--;
              if (name[0] == '.')
                continue;
              child = g_build_filename (g_ptr_array_index (level, i), name, NULL);
              if (!g_file_test (child, G_FILE_TEST_IS_DIR))
                continue;
              if (g_str_equal (name, package))
                return g_steal_pointer (&child);
              g_ptr_array_add (next, g_steal_pointer (&child));
            }
        }
      g_ptr_array_unref (level);
      level = g_steal_pointer (&next);
    }
  return NULL;
}

/* find_package_below for package path entry @i, searched once per load when @found (the
 * load's km_package_cache_new) is given: it maps "i/package" to the folder, or to NULL
 * when there is none. Returns a copy. */
static char *
package_below (GHashTable         *found,
               const char * const *package_paths,
               guint               i,
               const char         *package)
{
  g_autofree char *key = g_strdup_printf ("%u/%s", i, package);
  char *dir = NULL;
  guint budget = PACKAGE_SEARCH_ENTRIES;

  if (found != NULL && g_hash_table_lookup_extended (found, key, NULL, (gpointer *) &dir))
    return g_strdup (dir);
  dir = find_package_below (package_paths[i], package, PACKAGE_SEARCH_DEPTH, &budget);
  if (found != NULL)
    g_hash_table_insert (found, g_steal_pointer (&key), g_strdup (dir));
  return dir;
}

/**
 * km_package_uri_resolve:
 * @uri: a reference as a model names it
 * @model_path: the model file naming it, as given (relative to the working folder or
 *   absolute)
 * @package_paths: (nullable): NULL-terminated folders to look packages up in
 * @cache: (nullable): km_package_cache_new() of this load; NULL searches every time
 *
 * The file a "package://PKG/PATH" reference names: PKG/PATH under each package path, or
 * PATH under a folder PKG at most three levels below one (a ROS workspace's
 * src/REPOSITORY/PKG); else, as a package's files usually lie (PKG/urdf/robot.urdf next to
 * PKG/meshes/…), PATH under the nearest folder called PKG above the model file; else
 * under the nearest folder above it that has PATH (a repository cloned or unpacked under
 * another name).
 *
 * Returns: (transfer full) (nullable): the file, NULL when @uri is not a package:// name
 *   or the file is not found
 */
char *
km_package_uri_resolve (const char          *uri,
                        const char          *model_path,
                        const char * const  *package_paths,
                        GHashTable          *cache)
{
  const char *rest, *slash;
  g_autofree char *package = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *here = NULL;

  g_return_val_if_fail (uri != NULL, NULL);
  g_return_val_if_fail (model_path != NULL, NULL);

  if (!g_str_has_prefix (uri, "package://"))
    return NULL;
  rest = uri + strlen ("package://");
  slash = strchr (rest, '/');
  if (slash == NULL || slash == rest)
    return NULL;
  package = g_strndup (rest, (gsize) (slash - rest));
  for (guint i = 0; package_paths && package_paths[i]; i++)
    {
      g_autofree char *candidate = g_build_filename (package_paths[i], package, slash + 1,
                                                     NULL);
      g_autofree char *below = NULL;

      if (g_file_test (candidate, G_FILE_TEST_IS_REGULAR))
        return g_steal_pointer (&candidate);
      below = package_below (cache, package_paths, i, package);
      if (below != NULL)
        {
          g_free (candidate);
          candidate = g_build_filename (below, slash + 1, NULL);
          if (g_file_test (candidate, G_FILE_TEST_IS_REGULAR))
            return g_steal_pointer (&candidate);
        }
    }
  dir = g_path_get_dirname (model_path);
  /* The usual layout: PKG/urdf/robot.urdf next to PKG/meshes/… */
  here = g_canonicalize_filename (dir, NULL);
  for (guint up = 0; up < PACKAGE_SEARCH_UP; up++)
    {
      g_autofree char *base = g_path_get_basename (here);
      g_autofree char *parent = g_path_get_dirname (here);

      if (g_str_equal (base, package))
        return g_build_filename (here, slash + 1, NULL);
      if (g_str_equal (parent, here))
        break;
      g_free (here);
      here = g_steal_pointer (&parent);
    }
  /* The same layout in a folder named otherwise (a repository cloned under its own name, a
   * download unpacked anywhere): the first folder above the file that has the path after
   * the package name. */
  g_free (here);
  here = g_canonicalize_filename (dir, NULL);
  for (guint up = 0; up < PACKAGE_SEARCH_UP; up++)
    {
      g_autofree char *candidate = g_build_filename (here, slash + 1, NULL);
      g_autofree char *parent = g_path_get_dirname (here);

      if (g_file_test (candidate, G_FILE_TEST_IS_REGULAR))
        return g_steal_pointer (&candidate);
      if (g_str_equal (parent, here))
        break;
      g_free (here);
      here = g_steal_pointer (&parent);
    }
  return NULL;
}

/**
 * km_shape_set_affine:
 * @linear: the linear part of an affine map from the shape's frame to the joint frame
 * @translation: its translation
 *
 * Sets @self's transform and scale from an affine map such as nested VRML or Choreonoid
 * Transforms with scales give: @linear = R · diag (scale). When @linear has a shear (its
 * columns are not orthogonal, from a non-uniform scale under a rotation), the closest
 * rotation and the column lengths are used and %FALSE is returned, so that a caller can
 * bake the exact map into mesh vertices instead.
 *
 * Returns: %TRUE when the map is represented exactly
 */
gboolean
km_shape_set_affine (KmShape      *self,
                     const KmMat3 *linear,
                     KmVec3        translation)
{
  KmVec3 col[3];
  double len[3];
  gboolean exact = TRUE;
  KmMat3 rot;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (linear != NULL, FALSE);

  for (int c = 0; c < 3; c++)
    {
      col[c] = km_vec3 (linear->m[0][c], linear->m[1][c], linear->m[2][c]);
      len[c] = km_vec3_length (col[c]);
      if (!(len[c] > 1e-12))
        {
          len[c] = 0;
          exact = FALSE;
        }
    }
  for (int a = 0; a < 3 && exact; a++)
    for (int b = a + 1; b < 3; b++)
      if (fabs (km_vec3_dot (col[a], col[b])) > 1e-9 * len[a] * len[b])
        exact = FALSE;

  /* Gram–Schmidt gives the closest right-handed frame; a mirror goes into scale.z. */
  {
    KmVec3 x = km_vec3_normalize (col[0]), y, z;

    if (km_vec3_length (x) == 0)
      x = km_vec3 (1, 0, 0);
    y = km_vec3_sub (col[1], km_vec3_scale (x, km_vec3_dot (x, col[1])));
    y = km_vec3_normalize (y);
    if (km_vec3_length (y) == 0)
      y = km_vec3_normalize (km_vec3_cross (km_vec3 (0, 0, 1), x));
    if (km_vec3_length (y) == 0)
      y = km_vec3 (0, 1, 0);
    z = km_vec3_cross (x, y);
    if (km_vec3_dot (z, col[2]) < 0)
      len[2] = -len[2];
    for (int r = 0; r < 3; r++)
      {
        rot.m[r][0] = r == 0 ? x.x : r == 1 ? x.y : x.z;
        rot.m[r][1] = r == 0 ? y.x : r == 1 ? y.y : y.z;
        rot.m[r][2] = r == 0 ? z.x : r == 1 ? z.y : z.z;
      }
  }
  self->transform.rot = rot;
  self->transform.pos = translation;
  self->scale = km_vec3 (len[0], len[1], len[2]);
  return exact;
}

/**
 * km_shape_get_mat4:
 * @out: (out caller-allocates): column-major (cglm / GL) transform · diag (scale)
 *
 * The model matrix of the shape in its joint's frame; multiply the joint's world matrix
 * on the left to draw it.
 */
void
km_shape_get_mat4 (const KmShape *self,
                   mat4           out)
{
  g_return_if_fail (self != NULL);

  km_transform_to_mat4 (&self->transform, out);
  for (int r = 0; r < 3; r++)
    {
      out[0][r] *= (float) self->scale.x;
      out[1][r] *= (float) self->scale.y;
      out[2][r] *= (float) self->scale.z;
    }
}

/**
 * km_shape_get_bounds:
 * @min: (out): the smallest corner, in the shape's own frame (before transform and scale)
 * @max: (out): the largest corner
 */
void
km_shape_get_bounds (const KmShape *self,
                     KmVec3        *min,
                     KmVec3        *max)
{
  KmVec3 half = KM_VEC3_ZERO;

  g_return_if_fail (self != NULL);
  g_return_if_fail (min != NULL && max != NULL);

  switch (self->type)
    {
    case KM_SHAPE_BOX:
      half = km_vec3_scale (self->size, 0.5);
      break;
    case KM_SHAPE_SPHERE:
      half = km_vec3 (self->radius, self->radius, self->radius);
      break;
    case KM_SHAPE_CYLINDER:
    case KM_SHAPE_CONE:
      half = km_vec3 (self->radius, self->height / 2, self->radius);
      break;
    case KM_SHAPE_CAPSULE:
      half = km_vec3 (self->radius, self->height / 2 + self->radius, self->radius);
      break;
    case KM_SHAPE_MESH:
    default:
      if (self->mesh)
        {
          km_mesh_get_bounds (self->mesh, min, max);
          return;
        }
      break;
    }
  *min = km_vec3_scale (half, -1);
  *max = half;
}

static void
compute_normals (KmMesh *self)
{
  self->normals = g_new0 (float, (gsize) self->n_vertices * 3);
  /* Area-weighted face normals summed per vertex: flat where the file gives each face
   * its own vertices (STL), smooth where faces share them. */
  for (guint t = 0; t < self->n_triangles; t++)
    {
      const guint32 *tri = &self->indices[t * 3];
      const float *a = &self->vertices[tri[0] * 3];
      const float *b = &self->vertices[tri[1] * 3];
      const float *c = &self->vertices[tri[2] * 3];
      KmVec3 u = km_vec3 (b[0] - a[0], b[1] - a[1], b[2] - a[2]);
      KmVec3 v = km_vec3 (c[0] - a[0], c[1] - a[1], c[2] - a[2]);
      KmVec3 n = km_vec3_cross (u, v);

      for (int k = 0; k < 3; k++)
        {
          float *out = &self->normals[tri[k] * 3];

          out[0] += (float) n.x;
          out[1] += (float) n.y;
          out[2] += (float) n.z;
        }
    }
  for (guint i = 0; i < self->n_vertices; i++)
    {
      float *n = &self->normals[i * 3];
      KmVec3 u = km_vec3_normalize (km_vec3 (n[0], n[1], n[2]));

      n[0] = (float) u.x;
      n[1] = (float) u.y;
      n[2] = (float) u.z;
    }
}

/**
 * km_mesh_new_take:
 * @vertices: (transfer full) (array): 3 × @n_vertices coordinates, g_malloc'ed
 * @normals: (transfer full) (nullable) (array): 3 × @n_vertices unit normals, or %NULL to
 *   compute them from the faces (area-weighted per vertex)
 * @indices: (transfer full) (array): 3 × @n_triangles vertex indices, counter-clockwise
 *   seen from outside
 *
 * Checks the counts against KM_MESH_MAX_VERTICES / KM_MESH_MAX_TRIANGLES, every index
 * against @n_vertices and every coordinate for being finite. The arrays are freed on
 * failure too.
 *
 * Returns: (transfer full) (nullable): the mesh, or %NULL with @error set (KM_PARSE_ERROR,
 *   without a location: the caller knows the file)
 */
KmMesh *
km_mesh_new_take (float    *vertices,
                  guint     n_vertices,
                  float    *normals,
                  guint32  *indices,
                  guint     n_triangles,
                  GError  **error)
{
  KmMesh *self;

  if (n_vertices > KM_MESH_MAX_VERTICES || n_triangles > KM_MESH_MAX_TRIANGLES)
    {
      g_set_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT,
                   _("a mesh may have at most %u vertices and %u triangles"),
                   KM_MESH_MAX_VERTICES, KM_MESH_MAX_TRIANGLES);
      goto fail;
    }
  for (gsize i = 0; i < (gsize) n_vertices * 3; i++)
    if (!isfinite (vertices[i]))
      {
        g_set_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_INVALID,
                     _("vertex %u has a coordinate that is not a finite number"),
                     (guint) (i / 3));
        goto fail;
      }
  for (gsize i = 0; i < (gsize) n_triangles * 3; i++)
    if (indices[i] >= n_vertices)
      {
        g_set_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_INVALID,
                     _("triangle %u uses vertex %u, but there are only %u vertices"),
                     (guint) (i / 3), indices[i], n_vertices);
        goto fail;
      }

  self = g_atomic_rc_box_new0 (KmMesh);
  self->vertices = vertices;
  self->indices = indices;
  self->n_vertices = n_vertices;
  self->n_triangles = n_triangles;
  if (normals)
    self->normals = normals;
  else
    compute_normals (self);
  return self;

fail:
  g_free (vertices);
  g_free (normals);
  g_free (indices);
  return NULL;
}

/**
 * km_mesh_new:
 *
 * Like km_mesh_new_take(), but copies the arrays.
 *
 * Returns: (transfer full) (nullable): the mesh, or %NULL with @error set
 */
KmMesh *
km_mesh_new (const float   *vertices,
             guint          n_vertices,
             const float   *normals,
             const guint32 *indices,
             guint          n_triangles,
             GError       **error)
{
  g_return_val_if_fail (vertices != NULL || n_vertices == 0, NULL);
  g_return_val_if_fail (indices != NULL || n_triangles == 0, NULL);

  if (n_vertices > KM_MESH_MAX_VERTICES || n_triangles > KM_MESH_MAX_TRIANGLES)
    return km_mesh_new_take (NULL, n_vertices, NULL, NULL, n_triangles, error);
  return km_mesh_new_take (g_memdup2 (vertices, sizeof (float) * 3 * n_vertices), n_vertices,
                           normals ? g_memdup2 (normals, sizeof (float) * 3 * n_vertices) : NULL,
                           g_memdup2 (indices, sizeof (guint32) * 3 * n_triangles), n_triangles,
                           error);
}

KmMesh *
km_mesh_ref (KmMesh *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return g_atomic_rc_box_acquire (self);
}

static void
mesh_clear (KmMesh *self)
{
  g_free (self->vertices);
  g_free (self->normals);
  g_free (self->indices);
}

void
km_mesh_unref (KmMesh *self)
{
  g_return_if_fail (self != NULL);

  g_atomic_rc_box_release_full (self, (GDestroyNotify) mesh_clear);
}

guint
km_mesh_get_n_vertices (const KmMesh *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->n_vertices;
}

guint
km_mesh_get_n_triangles (const KmMesh *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->n_triangles;
}

/* Returns: (transfer none) (array): 3 × n_vertices floats (x, y, z) */
const float *
km_mesh_get_vertices (const KmMesh *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->vertices;
}

/* Returns: (transfer none) (array): 3 × n_vertices floats, one unit normal per vertex */
const float *
km_mesh_get_normals (const KmMesh *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->normals;
}

/* Returns: (transfer none) (array): 3 × n_triangles vertex indices */
const guint32 *
km_mesh_get_indices (const KmMesh *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->indices;
}

/**
 * km_mesh_set_color:
 *
 * The colour the mesh file gives (an OBJ material, a VRML Material). Set it right after
 * creating the mesh, before it is shared.
 */
void
km_mesh_set_color (KmMesh  *self,
                   KmColor  color)
{
  g_return_if_fail (self != NULL);

  self->color = color;
  self->has_color = TRUE;
}

/**
 * km_mesh_get_color:
 * @color: (out): left alone when the mesh has no colour of its own
 *
 * Returns: whether the mesh file gave a colour
 */
gboolean
km_mesh_get_color (const KmMesh *self,
                   KmColor      *color)
{
  g_return_val_if_fail (self != NULL, FALSE);

  if (self->has_color && color)
    *color = self->color;
  return self->has_color;
}

void
km_mesh_get_bounds (const KmMesh *self,
                    KmVec3       *min,
                    KmVec3       *max)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (min != NULL && max != NULL);

  if (self->n_vertices == 0)
    {
      *min = *max = KM_VEC3_ZERO;
      return;
    }
  *min = *max = km_vec3 (self->vertices[0], self->vertices[1], self->vertices[2]);
  for (guint i = 1; i < self->n_vertices; i++)
    {
      const float *v = &self->vertices[i * 3];

      min->x = MIN (min->x, v[0]);
      min->y = MIN (min->y, v[1]);
      min->z = MIN (min->z, v[2]);
      max->x = MAX (max->x, v[0]);
      max->y = MAX (max->y, v[1]);
      max->z = MAX (max->z, v[2]);
    }
}
