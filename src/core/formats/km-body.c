/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-body"

#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "km-body.h"

#include "km-error.h"
#include "km-extrusion.h"
#include "km-mesh-loader.h"
#include "km-mesh-private.h"
#include "km-polygon.h"
#include "km-skeleton-json.h"
#include "km-yaml.h"

#define MAX_ELEMENT_DEPTH 64
#define MAX_SHAPES_PER_BODY 65536
#define MAX_SUB_BODY_DEPTH 16
#define MAX_SUB_BODIES 1024   /* in all: nested includes could otherwise multiply */

typedef struct
{
  const char          *path;
  const KmBodyOptions *options;
  double               angle_scale;   /* degrees → radians, or 1 */
  KmSkeletonBuilder   *builder;
  KmMeshCache         *cache;
  GHashTable          *meshes;        /* KmYamlNode * (geometry) → KmMesh * */
  GHashTable          *warned;        /* device type names already reported */
  GPtrArray           *documents;     /* KmYamlNode *: sub-body files, kept while loading */
  GPtrArray           *includes;      /* char *: the sub-body files being read (nesting) */
  GPtrArray           *inclusions;    /* Include *: every SubBody read, for error chains */
  guint                n_sub_bodies;
  guint                n_shapes;
  char               **package_paths; /* km_package_paths_from_env, for package:// uris */
  GHashTable          *packages;      /* km_package_cache_new */
  GHashTable          *joint_ids;     /* joint id + 1 → the (full) name of its first link */
  guint                in_visual;     /* how many Visual nodes enclose the element walked */
  GArray              *displacements; /* double per joint added: its joint_displacement
                                       * (rad, m), 0 when the link states none */
  GPtrArray           *joint_names;   /* char * per joint added: its link's (full)
                                       * joint_name, NULL when the link has none */
  GArray              *mimics;        /* Mimic per joint added (kinema_mimic) */
} Body;

/* A link's `kinema_mimic`: its joint follows the joint @leader (full name, NULL: none),
 * q = ratio · q[leader] + offset (radians, metres). */
typedef struct
{
  char   *leader;
  double  ratio;
  double  offset;
} Mimic;

static void
mimic_clear (gpointer data)
{
  g_clear_pointer (&((Mimic *) data)->leader, g_free);
}

/* Where a sub-body file was included: the including file (as given) and the position of
 * the SubBody's `uri` there, then where that file was included, up to the body file. */
typedef struct Include Include;
struct Include
{
  const char    *file;
  KmSourcePos    pos;
  const Include *outer;
};

/* The links of one file: the body file itself, or a SubBody's file, whose link names get
 * a prefix and suffix, whose joint ids are offset, and whose root link takes the keys of
 * the SubBody node (parent, translation, joint_type, …) over its own. */
typedef struct
{
  const char *prefix;
  const char *suffix;
  int         joint_id_offset;
  KmYamlNode *root_override;   /* the SubBody node, NULL for the body file */
  const char *root_name;       /* the sub-body's root link (unprefixed) */
  const char *file;            /* the file of the links (as given) */
  const Include *include;      /* where that file was included, NULL for the body file */
} Scope;

/* Where each link's values are, to point a skeleton build error at them. */
typedef struct
{
  KmYamlNode *link;
  KmYamlNode *name;
  KmYamlNode *joint_name;
  KmYamlNode *parent;
  KmYamlNode *type;
  KmYamlNode *axis;
  KmYamlNode *range;
  KmYamlNode *translation;
  KmYamlNode *rotation;
  KmYamlNode *mimic;           /* the `joint` of its kinema_mimic */
  const char *file;            /* the file of the link (its scope's) */
  const Include *include;      /* where that file was included */
} LinkNodes;

#define KEYS(...) ((const char * const[]) { __VA_ARGS__, NULL })

/* The file @node is from, where messages about it go: a sub-body's nodes are in theirs. */
static const char *
node_file (const Body       *b,
           const KmYamlNode *node)
{
  return node != NULL && km_yaml_node_get_file (node)[0] != '\0'
         ? km_yaml_node_get_file (node) : b->path;
}

/* A handler name, with where the file names it (for the messages about the handler). */
static void
add_body_handler (Body             *b,
                  const KmYamlNode *node,
                  const char       *name)
{
  const char *file = node_file (b, node);

  km_skeleton_builder_add_body_handler (b->builder, name);
  if (file != NULL)
    {
      g_autofree char *location = km_parse_location (file, km_yaml_node_get_pos (node));

      km_skeleton_builder_set_body_handler_location (b->builder, name, location);
    }
}

static gboolean
fail_at (Body        *b,
         KmYamlNode  *node,
         GError     **error,
         const char  *format,
         ...) G_GNUC_PRINTF (4, 5);

static gboolean
fail_at (Body        *b,
         KmYamlNode  *node,
         GError     **error,
         const char  *format,
         ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  km_parse_error_set (error, KM_PARSE_ERROR_INVALID, node_file (b, node),
                      km_yaml_node_get_pos (node), "%s", message);
  return FALSE;
}

/* A key of a link, looked up in the link and then in its `import` mappings, a list's
 * from the last: Choreonoid's StdBodyLoader inserts them into the link from the list's end
 * and an insert never replaces a key, so a later mapping narrows an earlier, shared one
 * (`import: [ *Common, { jointRange: [ 0, 150 ] } ]`). */
static KmYamlNode *
link_lookup (KmYamlNode         *link,
             const char * const *keys)
{
  KmYamlNode *value = km_yaml_mapping_lookup_any (link, keys);
  KmYamlNode *import;

  if (value != NULL)
    return value;
  import = km_yaml_mapping_lookup (link, "import");
  if (import == NULL)
    return NULL;
  if (km_yaml_node_get_kind (import) == KM_YAML_MAPPING)
    return km_yaml_mapping_lookup_any (import, keys);
  if (km_yaml_node_get_kind (import) == KM_YAML_SEQUENCE)
    for (guint i = km_yaml_node_get_length (import); i-- > 0;)
      {
        value = km_yaml_mapping_lookup_any (km_yaml_sequence_get (import, i), keys);
        if (value != NULL)
          return value;
      }
  return NULL;
}

/* A key of a link in @scope: a sub-body's root link takes the SubBody node's keys first. */
static KmYamlNode *
scope_lookup (const Scope        *scope,
              gboolean            is_sub_root,
              KmYamlNode         *link,
              const char * const *keys)
{
  if (is_sub_root)
    {
      KmYamlNode *value = km_yaml_mapping_lookup_any (scope->root_override, keys);

      if (value != NULL)
        return value;
    }
  return link_lookup (link, keys);
}

static gboolean
is_sequence_of_sequences (KmYamlNode *node)
{
  return km_yaml_node_get_kind (node) == KM_YAML_SEQUENCE && km_yaml_node_get_length (node) > 0 &&
         km_yaml_node_get_kind (km_yaml_sequence_get (node, 0)) == KM_YAML_SEQUENCE;
}

/* `translation`: [x, y, z] or a list of such, summed. */
static gboolean
read_translation (KmYamlNode  *node,
                  KmVec3      *out,
                  GError     **error)
{
  *out = KM_VEC3_ZERO;
  if (is_sequence_of_sequences (node))
    {
      for (guint i = 0; i < km_yaml_node_get_length (node); i++)
        {
          KmVec3 v;

          if (!km_yaml_expect_vec3 (km_yaml_sequence_get (node, i), &v, error))
            return FALSE;
          *out = km_vec3_add (*out, v);
        }
      return TRUE;
    }
  return km_yaml_expect_vec3 (node, out, error);
}

/* `rotation`: [ax, ay, az, angle] (angle in the file's unit) or a list of such,
 * multiplied left to right. */
static gboolean
read_rotation (Body        *b,
               KmYamlNode  *node,
               KmQuat      *out,
               GError     **error)
{
  gboolean list = is_sequence_of_sequences (node);
  guint n = list ? km_yaml_node_get_length (node) : 1;

  *out = KM_QUAT_IDENTITY;
  for (guint i = 0; i < n; i++)
    {
      KmYamlNode *item = list ? km_yaml_sequence_get (node, i) : node;
      double v[4];
      KmVec3 axis;

      if (!km_yaml_expect_numbers (item, v, 4, error))
        return FALSE;
      /* Any finite magnitude (km_vec3_direction()): only a zero axis is none. */
      if (!km_vec3_direction (km_vec3 (v[0], v[1], v[2]), &axis))
        {
          if (v[3] == 0)
            continue;
          return fail_at (b, item, error, _("expected a rotation axis that is not zero"));
        }
      *out = km_quat_mul (*out, km_quat_from_axis_angle (axis, v[3] * b->angle_scale));
    }
  return TRUE;
}

static gboolean
read_axis (Body        *b,
           KmYamlNode  *node,
           KmVec3      *out,
           GError     **error)
{
  if (km_yaml_node_get_kind (node) == KM_YAML_SCALAR)
    {
      const char *s = km_yaml_node_get_scalar (node, NULL);
      double sign = 1;

      if (s[0] == '-' || s[0] == '+')
        {
          sign = s[0] == '-' ? -1 : 1;
          s++;
        }
      if (g_ascii_strcasecmp (s, "x") == 0)
        *out = km_vec3 (sign, 0, 0);
      else if (g_ascii_strcasecmp (s, "y") == 0)
        *out = km_vec3 (0, sign, 0);
      else if (g_ascii_strcasecmp (s, "z") == 0)
        *out = km_vec3 (0, 0, sign);
      else
        return fail_at (b, node, error, _("expected a joint axis: [x, y, z] or X, Y, Z, -X, -Y, -Z"));
      return TRUE;
    }
  return km_yaml_expect_vec3 (node, out, error);
}

/* One end of a range: a number (scaled) or `unlimited`. The end's place (@open_value, -∞
 * for a lower end, +∞ for an upper one) says which way `unlimited` is unlimited (like
 * Choreonoid's reader), whatever the sign written. A YAML infinity (.inf, -.inf, which
 * some exporters write) is unlimited too, but has its sign: .inf as a lower end is a
 * reversed range, refused as a finite one is (read_range). */
static gboolean
read_range_end (Body        *b,
                KmYamlNode  *node,
                double       scale,
                double       open_value,
                double      *out,
                gboolean    *unlimited,
                GError     **error)
{
  const char *s = km_yaml_node_get_kind (node) == KM_YAML_SCALAR ?
                  km_yaml_node_get_scalar (node, NULL) : NULL;

  *unlimited = FALSE;
  if (s != NULL && km_yaml_node_get_tag (node) == NULL &&
      (g_ascii_strcasecmp (s, "unlimited") == 0 || g_ascii_strcasecmp (s, "-unlimited") == 0))
    {
      *unlimited = TRUE;
      *out = open_value;
      return TRUE;
    }
  if (s != NULL && km_yaml_node_get_tag (node) == NULL &&
      (g_ascii_strcasecmp (s, ".inf") == 0 || g_ascii_strcasecmp (s, "+.inf") == 0 ||
       g_ascii_strcasecmp (s, "-.inf") == 0))
    {
      *unlimited = TRUE;
      *out = s[0] == '-' ? -INFINITY : INFINITY;
      return TRUE;
    }
  if (!km_yaml_expect_number (node, out, error))
    return FALSE;
  *out *= scale;
  return TRUE;
}

static gboolean
read_range (Body        *b,
            KmYamlNode  *node,
            double       scale,
            gboolean    *limited,
            double      *lower,
            double      *upper,
            GError     **error)
{
  gboolean lo_unlimited, hi_unlimited;

  if (km_yaml_node_get_kind (node) == KM_YAML_SCALAR)
    {
      if (!read_range_end (b, node, scale, INFINITY, upper, &hi_unlimited, error))
        return FALSE;
      *upper = fabs (*upper);
      *lower = -*upper;
      lo_unlimited = hi_unlimited;
    }
  else if (km_yaml_node_get_kind (node) == KM_YAML_SEQUENCE && km_yaml_node_get_length (node) == 2)
    {
      if (!read_range_end (b, km_yaml_sequence_get (node, 0), scale, -INFINITY, lower,
                           &lo_unlimited, error) ||
          !read_range_end (b, km_yaml_sequence_get (node, 1), scale, INFINITY, upper,
                           &hi_unlimited, error))
        return FALSE;
    }
  else
    return fail_at (b, node, error, _("expected a range: [lower, upper] or one number u for ±u"));

  /* An unlimited end written `unlimited` is at its open side already; a signed infinity
   * on the wrong side ([.inf, 5], [.inf, -.inf]) is as reversed as [5, 1]. */
  if (*lower > *upper)
    return fail_at (b, node, error, _("expected lower ≤ upper"));
  /* One unlimited end keeps the other: [unlimited, 0.5] is limited on one side only
   * ([-∞, 0.5]); both unlimited is no limit. */
  *limited = !lo_unlimited || !hi_unlimited;
  return TRUE;
}

/* ---- elements ----------------------------------------------------------------------- */

/* M · T(translation) · R(rotation) · S(scale) from a node's Transform keys. */
static gboolean
apply_transform_keys (Body        *b,
                      KmYamlNode  *node,
                      KmAffine    *m,
                      GError     **error)
{
  KmYamlNode *v;
  KmAffine local, prev = *m;
  KmQuat q = KM_QUAT_IDENTITY;
  KmVec3 scale = km_vec3 (1, 1, 1);

  _km_affine_identity (&local);
  if ((v = km_yaml_mapping_lookup (node, "translation")) != NULL &&
      !read_translation (v, &local.t, error))
    return FALSE;
  if ((v = km_yaml_mapping_lookup (node, "rotation")) != NULL && !read_rotation (b, v, &q, error))
    return FALSE;
  if ((v = km_yaml_mapping_lookup (node, "scale")) != NULL)
    {
      if (km_yaml_node_get_kind (v) == KM_YAML_SCALAR)
        {
          double s;

          if (!km_yaml_expect_number (v, &s, error))
            return FALSE;
          scale = km_vec3 (s, s, s);
        }
      else if (!km_yaml_expect_vec3 (v, &scale, error))
        return FALSE;
    }
  km_mat3_from_quat (q, &local.lin);
  for (int r = 0; r < 3; r++)
    {
      local.lin.m[r][0] *= scale.x;
      local.lin.m[r][1] *= scale.y;
      local.lin.m[r][2] *= scale.z;
    }
  _km_affine_mul (&prev, &local, m);
  return TRUE;
}

static gboolean
read_color (KmYamlNode  *appearance,
            KmColor     *out,
            gboolean    *has_color,
            GError     **error)
{
  KmYamlNode *material, *v;
  KmVec3 c;
  double transparency;

  if (appearance == NULL)
    return TRUE;
  if (!km_yaml_expect_mapping (appearance, error))
    return FALSE;
  material = km_yaml_mapping_lookup (appearance, "material");
  if (material == NULL)
    return TRUE;
  if (!km_yaml_expect_mapping (material, error))
    return FALSE;
  if ((v = km_yaml_mapping_lookup_any (material, KEYS ("diffuse", "diffuseColor", "diffuse_color"))))
    {
      if (!km_yaml_expect_vec3 (v, &c, error))
        return FALSE;
      out->r = (float) CLAMP (c.x, 0, 1);
      out->g = (float) CLAMP (c.y, 0, 1);
      out->b = (float) CLAMP (c.z, 0, 1);
      *has_color = TRUE;
    }
  if ((v = km_yaml_mapping_lookup (material, "transparency")))
    {
      if (!km_yaml_expect_number (v, &transparency, error))
        return FALSE;
      out->a = (float) (1 - CLAMP (transparency, 0, 1));
      *has_color = TRUE;
    }
  return TRUE;
}

static gboolean
positive (Body               *b,
          KmYamlNode         *geometry,
          const char * const *keys,
          double              fallback,
          double             *out,
          GError            **error)
{
  KmYamlNode *v = km_yaml_mapping_lookup_any (geometry, keys);

  *out = fallback;
  if (v == NULL)
    return TRUE;
  if (!km_yaml_expect_number (v, out, error))
    return FALSE;
  if (*out < 0)
    return fail_at (b, v, error, _("expected a number that is not negative"));
  return TRUE;
}

/* A geometry's mesh, kept for the geometry node (a YAML alias is the same node, so its
 * mesh is shared); NULL with @error placed at the geometry when building it failed. */
static KmMesh *
remember_mesh (Body        *b,
               KmYamlNode  *geometry,
               KmMesh      *mesh,
               GError     **error)
{
  if (mesh == NULL)
    {
      km_parse_error_prefix (error, b->path, km_yaml_node_get_pos (geometry));
      return NULL;
    }
  g_hash_table_insert (b->meshes, geometry, km_mesh_ref (mesh));
  return mesh;
}

static KmMesh *
face_set_mesh (Body        *b,
               KmYamlNode  *geometry,
               gboolean     triangles_only,
               GError     **error)
{
  KmYamlNode *vn = km_yaml_mapping_lookup_any (geometry, KEYS ("vertices", "coordinate"));
  KmYamlNode *fn = km_yaml_mapping_lookup_any (geometry, KEYS ("faces", "coordIndex",
                                                               "triangles"));
  g_autofree double *coords = NULL;
  g_autofree double *index = NULL;
  g_autoptr(GArray) tris = NULL;
  g_autofree float *vertices = NULL;
  guint n_coords, n_index, nv;
  KmMesh *mesh;

  mesh = g_hash_table_lookup (b->meshes, geometry);
  if (mesh != NULL)
    return km_mesh_ref (mesh);
  if (vn == NULL || fn == NULL)
    {
      fail_at (b, geometry, error, _("expected “vertices” and “faces” (or “triangles”)"));
      return NULL;
    }
  coords = km_yaml_expect_number_list (vn, KM_MESH_MAX_VERTICES * 3, &n_coords, error);
  if (coords == NULL)
    return NULL;
  if (n_coords % 3 != 0 || n_coords == 0)
    {
      fail_at (b, vn, error, _("expected x, y, z triples"));
      return NULL;
    }
  index = km_yaml_expect_number_list (fn, KM_MESH_MAX_TRIANGLES * 3, &n_index, error);
  if (index == NULL)
    return NULL;
  nv = n_coords / 3;
  vertices = g_new (float, n_coords);
  for (guint i = 0; i < n_coords; i++)
    vertices[i] = (float) coords[i];
  tris = g_array_new (FALSE, FALSE, sizeof (guint32));
  if (triangles_only || km_yaml_mapping_lookup (geometry, "triangles") != NULL)
    {
      if (n_index % 3 != 0)
        {
          fail_at (b, fn, error, _("expected vertex index triples"));
          return NULL;
        }
      for (guint i = 0; i < n_index; i++)
        {
          if (index[i] < 0 || index[i] >= nv || index[i] != floor (index[i]))
            {
              fail_at (b, fn, error, _("index %g is not a vertex index (0 to %u)"), index[i],
                       nv - 1);
              return NULL;
            }
          g_array_append_vals (tris, &(guint32) { (guint32) index[i] }, 1);
        }
    }
  else
    {
      /* IndexedFaceSet: polygons separated by -1, each of more than 3 vertices
       * triangulated by ear clipping in its own plane, as Choreonoid's loader does (a
       * convex one still gives the fan from its first vertex). */
      for (guint i = 0; i < n_index; i++)
        {
          double v = index[i];

          if (v != -1 && (v < 0 || v >= nv || v != floor (v)))
            {
              fail_at (b, fn, error, _("index %g is not a vertex index (0 to %u) or -1"), v,
                       nv - 1);
              return NULL;
            }
        }
      km_polygon_triangulate_faces (vertices, index, n_index, FALSE, G_MAXUINT, tris);
    }
  {
    guint nt = tris->len / 3;

    mesh = km_mesh_new_take (g_steal_pointer (&vertices), nv, NULL,
                             (guint32 *) g_array_free (g_steal_pointer (&tris), FALSE), nt, error);
  }
  return remember_mesh (b, geometry, mesh, error);
}

/* A list of @dim-number tuples at @key of @geometry, or @fallback (@n_fallback tuples)
 * without the key; NULL with @error set on a bad list. */
static double *
tuple_list (Body               *b,
            KmYamlNode         *geometry,
            const char * const *keys,
            guint               dim,
            guint        max_tuples,
            const double *fallback,
            guint        n_fallback,
            guint       *n_out,
            GError     **error)
{
  KmYamlNode *node = km_yaml_mapping_lookup_any (geometry, keys);
  double *values;
  guint n;

  if (node == NULL)
    {
      *n_out = n_fallback;
      return g_memdup2 (fallback, n_fallback * dim * sizeof (double));
    }
  values = km_yaml_expect_number_list (node, max_tuples * dim, &n, error);
  if (values == NULL)
    return NULL;
  if (n == 0 || n % dim != 0)
    {
      g_free (values);
      fail_at (b, node, error, dim == 2 ? _("expected pairs of numbers")
                                        : dim == 3 ? _("expected x, y, z triples")
                                        : _("expected axis-angle quadruples"));
      return NULL;
    }
  *n_out = n / dim;
  return values;
}

/* VRML's Extrusion (km_extrusion_mesh), which Choreonoid's models use for outlines such
 * as crawler tracks. */
static KmMesh *
extrusion_mesh (Body        *b,
                KmYamlNode  *geometry,
                GError     **error)
{
  static const double default_section[] = { 1, 1, 1, -1, -1, -1, -1, 1, 1, 1 };
  static const double default_spine[] = { 0, 0, 0, 0, 1, 0 };
  static const double default_scale[] = { 1, 1 };
  static const double default_orientation[] = { 0, 0, 1, 0 };
  g_autofree double *section = NULL, *spine = NULL, *scale = NULL, *orientation = NULL;
  guint nc, ns, nscale, norient;
  gboolean begin_cap = TRUE, end_cap = TRUE;
  KmYamlNode *cap;
  KmMesh *mesh;

  mesh = g_hash_table_lookup (b->meshes, geometry);
  if (mesh != NULL)
    return km_mesh_ref (mesh);
  /* Choreonoid 2.x writes snake_case keys, older files (and VRML) camelCase. */
  section = tuple_list (b, geometry, KEYS ("cross_section", "crossSection"), 2, 65536,
                        default_section, 5, &nc, error);
  if (section == NULL)
    return NULL;
  spine = tuple_list (b, geometry, KEYS ("spine"), 3, 65536, default_spine, 2, &ns, error);
  if (spine == NULL)
    return NULL;
  scale = tuple_list (b, geometry, KEYS ("scale"), 2, 65536, default_scale, 1, &nscale, error);
  if (scale == NULL)
    return NULL;
  orientation = tuple_list (b, geometry, KEYS ("orientation"), 4, 65536, default_orientation,
                            1, &norient, error);
  if (orientation == NULL)
    return NULL;
  /* Orientation angles are in the file's angle unit. */
  for (guint i = 0; i < norient; i++)
    orientation[i * 4 + 3] *= b->angle_scale;
  if ((cap = km_yaml_mapping_lookup_any (geometry, KEYS ("begin_cap", "beginCap"))) != NULL
      && !km_yaml_expect_bool (cap, &begin_cap, error))
    return NULL;
  if ((cap = km_yaml_mapping_lookup_any (geometry, KEYS ("end_cap", "endCap"))) != NULL
      && !km_yaml_expect_bool (cap, &end_cap, error))
    return NULL;
  if (ns < 2 || km_extrusion_ring_size (section, nc) < 2)
    {
      fail_at (b, geometry, error,
               _("expected at least 2 spine points and 2 cross-section points"));
      return NULL;
    }

  mesh = km_extrusion_mesh (&(KmExtrusion) { section, nc, spine, ns, scale, nscale,
                                             orientation, norient, begin_cap, end_cap },
                            error);
  return remember_mesh (b, geometry, mesh, error);
}

/* VRML's ElevationGrid (terrain in Choreonoid's models): heights along +Y over an
 * xDimension × zDimension grid of points xSpacing and zSpacing apart, from the origin
 * towards +X and +Z. */
static KmMesh *
elevation_grid_mesh (Body        *b,
                     KmYamlNode  *geometry,
                     GError     **error)
{
  KmYamlNode *heights = km_yaml_mapping_lookup (geometry, "height");
  g_autofree double *h = NULL;
  g_autofree float *vertices = NULL;
  g_autofree guint32 *indices = NULL;
  double dims[2], spacing[2] = { 1, 1 };
  const char * const dim_keys[2][3] = { { "x_dimension", "xDimension", NULL },
                                        { "z_dimension", "zDimension", NULL } };
  const char * const spacing_keys[2][3] = { { "x_spacing", "xSpacing", NULL },
                                            { "z_spacing", "zSpacing", NULL } };
  guint nx, nz, n_heights, t = 0;
  KmMesh *mesh;

  mesh = g_hash_table_lookup (b->meshes, geometry);
  if (mesh != NULL)
    return km_mesh_ref (mesh);
  for (guint k = 0; k < 2; k++)
    {
      KmYamlNode *dim = km_yaml_mapping_lookup_any (geometry, dim_keys[k]);

      if (dim == NULL)
        {
          fail_at (b, geometry, error, _("expected “%s”"), dim_keys[k][0]);
          return NULL;
        }
      if (!km_yaml_expect_number (dim, &dims[k], error))
        return NULL;
      if (dims[k] < 2 || dims[k] > 65536 || dims[k] != floor (dims[k]))
        {
          fail_at (b, dim, error, _("expected a whole number of grid points from 2 to 65536"));
          return NULL;
        }
      if (!positive (b, geometry, spacing_keys[k], 1, &spacing[k], error))
        return NULL;
    }
  nx = (guint) dims[0], nz = (guint) dims[1];
  if ((guint64) nx * nz > KM_MESH_MAX_VERTICES || 2 * (guint64) (nx - 1) * (nz - 1)
                                                  > KM_MESH_MAX_TRIANGLES)
    {
      fail_at (b, geometry, error, _("the grid has too many points"));
      return NULL;
    }
  if (heights == NULL)
    {
      fail_at (b, geometry, error, _("expected “height”"));
      return NULL;
    }
  h = km_yaml_expect_number_list (heights, nx * nz, &n_heights, error);
  if (h == NULL)
    return NULL;
  if (n_heights != nx * nz)
    {
      fail_at (b, heights, error, _("expected %u heights (xDimension × zDimension), not %u"),
               nx * nz, n_heights);
      return NULL;
    }
  vertices = g_new (float, (gsize) nx * nz * 3);
  for (guint j = 0; j < nz; j++)
    for (guint i = 0; i < nx; i++)
      {
        float *v = vertices + ((gsize) j * nx + i) * 3;

        v[0] = (float) (i * spacing[0]), v[1] = (float) h[j * nx + i];
        v[2] = (float) (j * spacing[1]);
      }
  indices = g_new (guint32, (gsize) (nx - 1) * (nz - 1) * 6);
  for (guint j = 0; j + 1 < nz; j++)
    for (guint i = 0; i + 1 < nx; i++)
      {
        guint32 a = j * nx + i;

        indices[t++] = a, indices[t++] = a + nx, indices[t++] = a + 1;
        indices[t++] = a + 1, indices[t++] = a + nx, indices[t++] = a + nx + 1;
      }
  mesh = km_mesh_new_take (g_steal_pointer (&vertices), nx * nz, NULL,
                           g_steal_pointer (&indices), t / 3, error);
  return remember_mesh (b, geometry, mesh, error);
}

static char *
expand_uri (Body        *b,
            KmYamlNode  *node,
            const char  *uri,
            GError     **error)
{
  GString *out = g_string_new (NULL);
  const char *s = uri;

  if (g_str_has_prefix (s, "file://"))
    s += strlen ("file://");
  while (*s)
    {
      if (s[0] == '$' && s[1] == '{')
        {
          const char *end = strchr (s, '}');
          g_autofree char *name = NULL;
          const char *value = NULL;

          if (end == NULL)
            break;
          name = g_strndup (s + 2, (gsize) (end - s - 2));
          if (g_str_equal (name, "SHARE"))
            value = g_getenv ("KINEMA_CHOREONOID_SHARE");
          else if (g_str_equal (name, "HOME"))
            value = g_get_home_dir ();
          if (value == NULL)
            {
              fail_at (b, node, error, _("the path variable ${%s} is not set"), name);
              g_string_free (out, TRUE);
              return NULL;
            }
          g_string_append (out, value);
          s = end + 1;
        }
      else
        g_string_append_c (out, *s++);
    }
  if (!g_path_is_absolute (out->str))
    {
      /* Relative to the current file, named as the user would (for messages). */
      char *joined = km_parse_included_path (b->path, out->str);

      g_string_free (out, TRUE);
      return joined;
    }
  return g_string_free (out, FALSE);
}

static gboolean walk_elements (Body *b, guint joint, KmYamlNode *node, const KmAffine *m,
                               guint depth, GError **error);

static void
add_shape (Body           *b,
           guint           joint,
           KmShape        *shape,
           const KmAffine *m)
{
  /* A shear from nested non-uniform scales is baked into the vertices; should that copy
   * fail, the shape keeps the nearest transform without shear. */
  _km_shape_place (shape, m, NULL, b->path, (KmSourcePos) { 0, 0 }, NULL);
  km_skeleton_builder_add_shape (b->builder, joint, shape);
}

/* A mesh file that is not read stays in the model as the file names it (a user who has it
 * elsewhere still needs it): it draws nothing, and the writers write it back. The length
 * unit and upper axis of the metadata go into its placement; the appearance's colour
 * (@has_color, @color), which a loaded mesh's shapes would have, stays on it too, for the
 * writers that name the file and give it a colour (a URDF <material>). @file (nullable)
 * is where @uri led, kept when a file is there (found, though not readable as a mesh) as
 * a loaded mesh keeps it (KmShape.uri_file): a package:// name is then written as that
 * file's path where a loaded one would be. */
static gboolean
add_resource_reference (Body           *b,
                        guint           joint,
                        KmYamlNode     *node,
                        const char     *uri,
                        const char     *file,
                        const char     *node_name,
                        const KmAffine *m,
                        double          unit,
                        gboolean        y_up,
                        gboolean        has_color,
                        KmColor         color,
                        GError        **error)
{
  g_autoptr(KmShape) shape = km_shape_new_mesh_reference (uri);
  KmAffine adjust, placed;

  if (++b->n_shapes > MAX_SHAPES_PER_BODY)
    return fail_at (b, node, error, _("too many shapes (at most %d)"), MAX_SHAPES_PER_BODY);
  if (has_color)
    shape->color = color;
  /* Relative to this file (a sub-body's own), for writers that write elsewhere. */
  km_shape_set_uri (shape, uri, b->path);
  if (file != NULL && g_file_test (file, G_FILE_TEST_IS_REGULAR))
    km_shape_set_uri_file (shape, file);
  km_shape_set_uri_node (shape, node_name);
  _km_affine_identity (&adjust);
  if (y_up)
    adjust.lin = (KmMat3) { { { 1, 0, 0 }, { 0, 0, -1 }, { 0, 1, 0 } } };
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++)
      adjust.lin.m[r][c] *= unit;
  _km_affine_mul (m, &adjust, &placed);
  add_shape (b, joint, shape, &placed);
  return TRUE;
}

/* Mesh files: the shapes of the file, under @m and the Resource's metadata. */
static gboolean
add_resource (Body            *b,
              guint            joint,
              KmYamlNode      *node,
              const KmAffine  *parent,
              gboolean         has_color,
              KmColor          color,
              GError         **error)
{
  KmYamlNode *uri_node = km_yaml_mapping_lookup_any (node, KEYS ("uri", "url"));
  KmYamlNode *fragment = km_yaml_mapping_lookup_any (node, KEYS ("node", "fragment"));
  KmYamlNode *metadata = km_yaml_mapping_lookup (node, "metadata");
  g_autoptr(GPtrArray) shapes = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *file = NULL;
  const char *uri, *node_name = NULL;
  double unit = 1;
  gboolean y_up = FALSE;
  KmAffine m = *parent;
  KmTransform uri_transform;
  KmVec3 uri_scale;
  gboolean has_uri;

  if (uri_node == NULL)
    return fail_at (b, node, error, _("expected a “uri” key"));
  if ((uri = km_yaml_expect_string (uri_node, error)) == NULL)
    return FALSE;
  if (fragment != NULL && (node_name = km_yaml_expect_string (fragment, error)) == NULL)
    return FALSE;
  if (metadata != NULL)
    {
      g_autofree char *text = NULL;

      /* Mapping form {length_unit, upper_axis}, or the old string "millimeter y_upper". */
      if (km_yaml_node_get_kind (metadata) == KM_YAML_MAPPING)
        {
          KmYamlNode *lu = km_yaml_mapping_lookup (metadata, "length_unit");
          KmYamlNode *ua = km_yaml_mapping_lookup (metadata, "upper_axis");

          const char *unit_name = lu ? km_yaml_node_get_scalar (lu, NULL) : NULL;

          text = g_strdup_printf ("%s %s", unit_name ? unit_name : "",
                                  ua && g_strcmp0 (km_yaml_node_get_scalar (ua, NULL), "Y") == 0 ?
                                  "y_upper" : "");
        }
      else if (km_yaml_node_get_kind (metadata) == KM_YAML_SCALAR)
        text = g_strdup (km_yaml_node_get_scalar (metadata, NULL));
      if (text != NULL)
        {
          if (strstr (text, "millimeter"))
            unit = 0.001;
          else if (strstr (text, "inch"))
            unit = 0.0254;
          y_up = strstr (text, "y_upper") != NULL;
        }
    }
  if (!apply_transform_keys (b, node, &m, error))
    return FALSE;
  if (!b->options->load_meshes)
    return add_resource_reference (b, joint, node, uri, NULL, node_name, &m, unit, y_up,
                                   has_color, color, error);
  if (g_str_has_suffix (uri, ".yaml") || g_str_has_suffix (uri, ".yml") ||
      g_str_has_suffix (uri, ".body"))
    {
      km_parse_warning (b->path, km_yaml_node_get_pos (uri_node),
                        _("YAML scene resources are not read; “%s” is left out"), uri);
      return TRUE;
    }
  if (g_str_has_prefix (uri, "package://"))
    {
      /* A ROS package's file, found as the URDF reader finds them; a package that is not
       * there leaves the mesh out, as a file that is not there does. */
      file = km_package_uri_resolve (uri, b->path, (const char * const *) b->package_paths,
                                     b->packages);
      if (file == NULL)
        {
          km_parse_warning (b->path, km_yaml_node_get_pos (uri_node),
                            _("cannot find mesh “%s” (set KINEMA_PACKAGE_PATH for "
                              "package:// names); it is not drawn"), uri);
          return add_resource_reference (b, joint, node, uri, NULL, node_name, &m, unit,
                                         y_up, has_color, color, error);
        }
    }
  else if ((file = expand_uri (b, uri_node, uri, error)) == NULL)
    return FALSE;
  shapes = km_mesh_cache_load (b->cache, file, node_name, &local_error);
  if (shapes == NULL)
    {
      km_parse_warning (b->path, km_yaml_node_get_pos (uri_node), _("mesh “%s” is not drawn: %s"),
                        uri, local_error->message);
      return add_resource_reference (b, joint, node, uri, file, node_name, &m, unit, y_up,
                                     has_color, color, error);
    }
  {
    KmAffine adjust, tmp = m;

    _km_affine_identity (&adjust);
    if (y_up)
      {
        /* Y-up file into Z-up: Rx(90°) takes +Y to +Z. */
        adjust.lin = (KmMat3) { { { 1, 0, 0 }, { 0, 0, -1 }, { 0, 1, 0 } } };
      }
    for (int r = 0; r < 3; r++)
      for (int c = 0; c < 3; c++)
        adjust.lin.m[r][c] *= unit;
    _km_affine_mul (&tmp, &adjust, &m);
  }
  /* The reference as written, so that writers that name mesh files (URDF) keep it: the
   * file's frame in the joint frame is @m, which a rigid transform and a scale hold unless
   * nested scales shear it; then no writer could place the file, and the shapes keep no
   * uri (they are written as what they are, triangles). */
  {
    g_autoptr(KmShape) frame = km_shape_new (KM_SHAPE_MESH);

    has_uri = km_shape_set_affine (frame, &m.lin, m.t);
    uri_transform = frame->transform;
    uri_scale = frame->scale;
  }
  for (guint i = 0; i < shapes->len; i++)
    {
      KmShape *src = g_ptr_array_index (shapes, i);
      g_autoptr(KmShape) shape = km_shape_copy (src);
      KmAffine own, total;

      if (++b->n_shapes > MAX_SHAPES_PER_BODY)
        return fail_at (b, node, error, _("too many shapes (at most %d)"), MAX_SHAPES_PER_BODY);
      own.lin = src->transform.rot;
      for (int r = 0; r < 3; r++)
        {
          own.lin.m[r][0] *= src->scale.x;
          own.lin.m[r][1] *= src->scale.y;
          own.lin.m[r][2] *= src->scale.z;
        }
      own.t = src->transform.pos;
      _km_affine_mul (&m, &own, &total);
      if (has_color)
        shape->color = color;
      if (has_uri)
        {
          /* With a node, the shapes are that node's (KmShape.uri_node): part i of the
           * node, which a writer naming whole files must not write as the file. */
          km_shape_set_uri (shape, uri, b->path);
          km_shape_set_uri_node (shape, node_name);
          km_shape_set_uri_file (shape, file);
          shape->uri_transform = uri_transform;
          shape->uri_scale = uri_scale;
          shape->uri_part = i;
        }
      add_shape (b, joint, shape, &total);
    }
  return TRUE;
}

static gboolean
add_geometry_shape (Body            *b,
                    guint            joint,
                    KmYamlNode      *shape_node,
                    const KmAffine  *m,
                    GError         **error)
{
  KmYamlNode *geometry = km_yaml_mapping_lookup (shape_node, "geometry");
  KmYamlNode *type_node;
  g_autoptr(KmShape) shape = NULL;
  KmColor color = KM_COLOR_DEFAULT;
  gboolean has_color = FALSE;
  const char *type;
  double r, h;

  if (!read_color (km_yaml_mapping_lookup (shape_node, "appearance"), &color, &has_color,
                   error))
    return FALSE;
  if (geometry == NULL)
    return TRUE;
  if (!km_yaml_expect_mapping (geometry, error))
    return FALSE;
  type_node = km_yaml_mapping_lookup (geometry, "type");
  if (type_node == NULL)
    return fail_at (b, geometry, error, _("expected a geometry “type”"));
  if ((type = km_yaml_expect_string (type_node, error)) == NULL)
    return FALSE;

  if (g_str_equal (type, "Box"))
    {
      KmYamlNode *size = km_yaml_mapping_lookup (geometry, "size");
      KmVec3 s = km_vec3 (1, 1, 1);

      if (size != NULL && !km_yaml_expect_vec3 (size, &s, error))
        return FALSE;
      if (s.x < 0 || s.y < 0 || s.z < 0)
        return fail_at (b, size, error, _("expected sizes that are not negative"));
      shape = km_shape_new_box (s);
    }
  else if (g_str_equal (type, "Sphere"))
    {
      if (!positive (b, geometry, KEYS ("radius"), 1, &r, error))
        return FALSE;
      shape = km_shape_new_sphere (r);
    }
  else if (g_str_equal (type, "Cylinder") || g_str_equal (type, "Cone") ||
           g_str_equal (type, "Capsule"))
    {
      if (!positive (b, geometry, KEYS ("radius"), 1, &r, error) ||
          !positive (b, geometry, KEYS ("height"), g_str_equal (type, "Capsule") ? 1 : 2, &h, error))
        return FALSE;
      shape = type[1] == 'y' ? km_shape_new_cylinder (r, h) :
              type[1] == 'o' ? km_shape_new_cone (r, h) : km_shape_new_capsule (r, h);
    }
  else if (g_str_equal (type, "IndexedFaceSet") || g_str_equal (type, "TriangleMesh"))
    {
      KmMesh *mesh = face_set_mesh (b, geometry, g_str_equal (type, "TriangleMesh"), error);

      if (mesh == NULL)
        return FALSE;
      shape = km_shape_new_mesh (mesh);
      km_mesh_unref (mesh);
    }
  else if (g_str_equal (type, "Extrusion") || g_str_equal (type, "ElevationGrid"))
    {
      KmMesh *mesh = type[0] == 'E' && type[1] == 'x' ? extrusion_mesh (b, geometry, error)
                                                      : elevation_grid_mesh (b, geometry, error);

      if (mesh == NULL)
        return FALSE;
      shape = km_shape_new_mesh (mesh);
      km_mesh_unref (mesh);
    }
  else if (g_str_equal (type, "Resource"))
    /* A mesh keeps its own colours unless the appearance gives a material colour. */
    return add_resource (b, joint, geometry, m, has_color, color, error);
  else
    {
      km_parse_warning (b->path, km_yaml_node_get_pos (type_node),
                        _("%s geometry is not supported; the shape is left out"), type);
      return TRUE;
    }
  if (++b->n_shapes > MAX_SHAPES_PER_BODY)
    return fail_at (b, shape_node, error, _("too many shapes (at most %d)"), MAX_SHAPES_PER_BODY);
  shape->color = color;
  add_shape (b, joint, shape, m);
  return TRUE;
}

static gboolean
is_device (const char *type)
{
  static const char * const devices[] = {
    "AccelerationSensor", "RateGyroSensor", "IMU", "ForceSensor", "Camera", "CameraDevice",
    "RangeSensor", "SpotLight", "PointLight", "DirectionalLight", "Holder", "Attachment",
    "Conveyor", "DigitalIO", "MarkerDevice", "ZmpDevice", "PerspectiveCamera",
    "OrthographicCamera", "Fog", "Text", "LineSet", "VisionSensor", "AGXVehicleContinuousTrackDevice",
    "PxContinuousTrack", "RotorDevice", "LivoxMid360", "Fire", "Smoke", "Light",
  };

  for (guint i = 0; i < G_N_ELEMENTS (devices); i++)
    if (g_str_equal (devices[i], type))
      return TRUE;
  return FALSE;
}

/* A warning at @node, in the file it is from (a sub-body's nodes are in theirs). */
static void
warn_at (Body       *b,
         KmYamlNode *node,
         const char *format,
         ...) G_GNUC_PRINTF (3, 4);

static void
warn_at (Body       *b,
         KmYamlNode *node,
         const char *format,
         ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  km_parse_warning (node_file (b, node), km_yaml_node_get_pos (node), "%s", message);
}

/* A Visual or Collision node inside the other kind (@outer): Choreonoid's loader throws,
 * so the whole model fails to load there. Kinema draws what it can: the warning says
 * what Choreonoid would do. */
static void
warn_nested_scene (Body       *b,
                   KmYamlNode *type_pos,
                   const char *type,
                   const char *outer)
{
  warn_at (b, type_pos,
           /* Translators: %s are the node types Visual and Collision */
           _("a %s node inside a %s node, which Choreonoid rejects (it would not load the "
             "model); the node is not drawn"), type, outer);
}

/* The elements under a Collision node are not drawn; only a Visual node among them is
 * looked for, to warn about it (warn_nested_scene). */
static void
check_collision_elements (Body       *b,
                          KmYamlNode *node,
                          guint       depth)
{
  if (node == NULL || depth > MAX_ELEMENT_DEPTH)
    return;
  if (km_yaml_node_get_kind (node) == KM_YAML_SEQUENCE)
    {
      for (guint i = 0; i < km_yaml_node_get_length (node); i++)
        check_collision_elements (b, km_yaml_sequence_get (node, i), depth + 1);
      return;
    }
  if (km_yaml_node_get_kind (node) != KM_YAML_MAPPING)
    return;
  {
    KmYamlNode *type_node = km_yaml_mapping_lookup (node, "type");

    if (type_node != NULL)
      {
        if (g_strcmp0 (km_yaml_node_get_scalar (type_node, NULL), "Visual") == 0)
          warn_nested_scene (b, type_node, "Visual", "Collision");
        else
          check_collision_elements (b, km_yaml_mapping_lookup (node, "elements"), depth + 1);
        return;
      }
  }
  /* A mapping keyed by type. */
  for (guint i = 0; i < km_yaml_node_get_length (node); i++)
    {
      KmYamlNode *key = km_yaml_mapping_get_key (node, i);
      KmYamlNode *value = km_yaml_mapping_get_value (node, i);

      if (g_strcmp0 (km_yaml_node_get_scalar (key, NULL), "Visual") == 0)
        warn_nested_scene (b, key, "Visual", "Collision");
      else if (km_yaml_node_get_kind (value) == KM_YAML_SEQUENCE)
        for (guint k = 0; k < km_yaml_node_get_length (value); k++)
          check_collision_elements (b, km_yaml_mapping_lookup (km_yaml_sequence_get (value, k),
                                                               "elements"), depth + 1);
      else if (km_yaml_node_get_kind (value) == KM_YAML_MAPPING)
        check_collision_elements (b, km_yaml_mapping_lookup (value, "elements"), depth + 1);
    }
}

/* Whether element @node says `is_optional: true`. */
static gboolean
is_optional (KmYamlNode *node)
{
  KmYamlNode *v = km_yaml_mapping_lookup (node, "is_optional");
  gboolean optional = FALSE;

  return v != NULL && km_yaml_expect_bool (v, &optional, NULL) && optional;
}

/* One element node (a mapping) of @type. Errors in it are reported and the element is
 * skipped; only limits (depth, shape count) abort the load. */
static gboolean
walk_node (Body            *b,
           guint            joint,
           KmYamlNode      *node,
           const char      *type,
           KmYamlNode      *type_pos,
           const KmAffine  *parent,
           guint            depth,
           GError         **error)
{
  g_autoptr(GError) local_error = NULL;
  KmAffine m = *parent;
  gboolean ok = TRUE;

  if (depth > MAX_ELEMENT_DEPTH)
    return fail_at (b, node, error, _("elements are nested too deeply (at most %d levels)"),
                    MAX_ELEMENT_DEPTH);
  if (km_yaml_node_get_kind (node) != KM_YAML_MAPPING)
    {
      km_yaml_expect_mapping (node, &local_error);
      goto element_failed;
    }

  if (g_str_equal (type, "Transform") || g_str_equal (type, "Group") ||
      g_str_equal (type, "Visual") || g_str_equal (type, "RigidBody") ||
      g_str_equal (type, "Shape") || is_device (type))
    {
      KmYamlNode *elements;

      if (is_device (type) && !g_hash_table_contains (b->warned, type))
        {
          g_hash_table_add (b->warned, g_strdup (type));
          km_parse_warning (b->path, km_yaml_node_get_pos (type_pos),
                            _("%s devices are not modelled; skipped (their shapes are drawn)"),
                            type);
        }
      if (!g_str_equal (type, "Group") && !apply_transform_keys (b, node, &m, &local_error))
        goto element_failed;
      if (g_str_equal (type, "Shape"))
        {
          if (!add_geometry_shape (b, joint, node, &m, &local_error))
            goto element_failed;
          return TRUE;
        }
      if (g_str_equal (type, "Visual"))
        {
          /* Shorthands: resource: {uri: …} and shape: {…}. */
          KmYamlNode *resource = km_yaml_mapping_lookup (node, "resource");
          KmYamlNode *shape = km_yaml_mapping_lookup (node, "shape");

          if (resource != NULL && !walk_node (b, joint, resource, "Resource", resource, &m,
                                              depth + 1, error))
            return FALSE;
          if (shape != NULL && !walk_node (b, joint, shape, "Shape", shape, &m, depth + 1, error))
            return FALSE;
        }
      elements = km_yaml_mapping_lookup (node, "elements");
      if (g_str_equal (type, "Visual"))
        b->in_visual++;
      if (elements != NULL)
        ok = walk_elements (b, joint, elements, &m, depth + 1, error);
      if (g_str_equal (type, "Visual"))
        b->in_visual--;
      return ok;
    }
  if (g_str_equal (type, "Resource"))
    {
      if (!add_resource (b, joint, node, &m, FALSE, KM_COLOR_DEFAULT, &local_error))
        goto element_failed;
      return TRUE;
    }
  if (g_str_equal (type, "Collision"))
    {
      /* Not drawn; but Choreonoid rejects a Visual in it or it in a Visual. */
      if (b->in_visual > 0)
        warn_nested_scene (b, type_pos, "Collision", "Visual");
      else
        check_collision_elements (b, km_yaml_mapping_lookup (node, "elements"), depth + 1);
      return TRUE;
    }
  if (g_str_equal (type, "Skip"))
    return TRUE;   /* not drawn */

  /* Choreonoid aborts the load unless the node says is_optional; Kinema only skips the
   * element either way, so that the rest of the model stays usable, and says which. */
  if (is_optional (node))
    warn_at (b, type_pos, _("unknown element type “%s”; the element is skipped"), type);
  else
    warn_at (b, type_pos, _("unknown element type “%s”; the element is skipped (Choreonoid "
                            "would not load the model: the node has no “is_optional: true”)"),
             type);
  return TRUE;

element_failed:
  if (local_error->domain == KM_PARSE_ERROR && local_error->code == KM_PARSE_ERROR_LIMIT)
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }
  {
    /* The message starts with "PATH:LINE:COLUMN: " (km_parse_location()); keep that
     * location for the warning. */
    const char *text = local_error->message;
    const char *rest;
    KmSourcePos pos = { 0, 0 };

    if (km_parse_read_location_of (text, b->path, &pos, &rest))
      text = rest;
    km_parse_warning (b->path, pos, _("%s (the element is skipped)"), text);
  }
  return TRUE;
}

/* `elements`: a list of typed mappings, one typed mapping, or a mapping keyed by type. */
static gboolean
walk_elements (Body            *b,
               guint            joint,
               KmYamlNode      *node,
               const KmAffine  *m,
               guint            depth,
               GError         **error)
{
  if (depth > MAX_ELEMENT_DEPTH)
    return fail_at (b, node, error, _("elements are nested too deeply (at most %d levels)"),
                    MAX_ELEMENT_DEPTH);
  if (km_yaml_node_get_kind (node) == KM_YAML_SEQUENCE)
    {
      for (guint i = 0; i < km_yaml_node_get_length (node); i++)
        if (!walk_elements (b, joint, km_yaml_sequence_get (node, i), m, depth + 1, error))
          return FALSE;
      return TRUE;
    }
  if (km_yaml_node_get_kind (node) != KM_YAML_MAPPING)
    {
      km_parse_warning (b->path, km_yaml_node_get_pos (node),
                        _("expected an element (a mapping with “type”); skipped"));
      return TRUE;
    }
  {
    KmYamlNode *type_node = km_yaml_mapping_lookup (node, "type");

    if (type_node != NULL)
      {
        const char *type = km_yaml_node_get_scalar (type_node, NULL);

        if (type == NULL)
          {
            km_parse_warning (b->path, km_yaml_node_get_pos (type_node),
                              _("expected an element type name; the element is skipped"));
            return TRUE;
          }
        return walk_node (b, joint, node, type, type_node, m, depth, error);
      }
  }
  for (guint i = 0; i < km_yaml_node_get_length (node); i++)
    {
      KmYamlNode *key = km_yaml_mapping_get_key (node, i);
      KmYamlNode *value = km_yaml_mapping_get_value (node, i);
      const char *type = km_yaml_node_get_scalar (key, NULL);
      KmYamlNode *inner;

      if (type == NULL)
        continue;
      inner = km_yaml_mapping_lookup (value, "type");
      if (inner != NULL && g_strcmp0 (km_yaml_node_get_scalar (inner, NULL), type) != 0)
        {
          /* An error in Choreonoid (the whole model fails to load). */
          warn_at (b, inner, _("the type does not match the key “%s”; the element is skipped "
                               "(Choreonoid would not load the model)"), type);
          continue;
        }
      if (km_yaml_node_get_kind (value) == KM_YAML_SEQUENCE)
        {
          for (guint k = 0; k < km_yaml_node_get_length (value); k++)
            if (!walk_node (b, joint, km_yaml_sequence_get (value, k), type, key, m, depth + 1,
                            error))
              return FALSE;
        }
      else if (!walk_node (b, joint, value, type, key, m, depth + 1, error))
        return FALSE;
    }
  return TRUE;
}

/* ---- links -------------------------------------------------------------------------- */

static KmYamlNode *link_list (Body *b, KmYamlNode *links, GError **error);
static gboolean read_links (Body *b, KmYamlNode *links, const Scope *scope, GArray *link_nodes,
                            GError **error);

static gboolean
check_mass_properties (Body        *b,
                       KmYamlNode  *link,
                       GError     **error)
{
  KmYamlNode *v;
  double d;
  KmVec3 c;

  if ((v = link_lookup (link, KEYS ("mass"))) && !km_yaml_expect_number (v, &d, error))
    return FALSE;
  if ((v = link_lookup (link, KEYS ("center_of_mass", "centerOfMass"))) &&
      !km_yaml_expect_vec3 (v, &c, error))
    return FALSE;
  if ((v = link_lookup (link, KEYS ("inertia"))))
    {
      g_autofree double *values = NULL;
      guint n;

      values = km_yaml_expect_number_list (v, 9, &n, error);
      if (values == NULL)
        return FALSE;
      if (n != 9 && n != 6)
        return fail_at (b, v, error, _("expected 9 inertia values (row-major) or 6 (Ixx Ixy Ixz "
                                       "Iyy Iyz Izz)"));
    }
  return TRUE;
}

/* Formats @value, a joint value in the file's unit, for a message. */
static const char *
message_number (double  value,
                char   *buffer)
{
  if (!isfinite (value))
    return "unlimited";
  return g_ascii_formatd (buffer, G_ASCII_DTOSTR_BUF_SIZE, "%g", value);
}

/* `joint_displacement` (old: `joint_angle`, always an angle): the value Choreonoid gives
 * the joint when it loads the body, in the angle unit for a revolute joint and in metres
 * for a prismatic one. It is the pose the file states, kept in b->displacements; the
 * model does not depend on it, so a value Kinema cannot use is a warning, not an error. A
 * value outside the joint's @range is kept, as Choreonoid keeps it. */
static void
read_displacement (Body          *b,
                   KmYamlNode    *link,
                   const Scope   *scope,
                   gboolean       sub_root,
                   guint          joint,
                   KmJointType    type,
                   const char    *name,
                   const KmLimit *range)
{
  double scale = type == KM_JOINT_REVOLUTE ? b->angle_scale : 1;
  KmYamlNode *v;
  double q;

  v = scope_lookup (scope, sub_root, link, KEYS ("joint_displacement", "jointDisplacement"));
  if (v == NULL)
    {
      v = scope_lookup (scope, sub_root, link, KEYS ("joint_angle", "jointAngle"));
      scale = b->angle_scale;
    }
  if (v == NULL)
    return;
  if (!km_yaml_scalar_to_double (v, &q) || !isfinite (q))
    {
      /* Translators: %s is a link name */
      warn_at (b, v, _("the joint displacement of “%s” is ignored: expected a finite number"),
               name);
      return;
    }
  if (type != KM_JOINT_REVOLUTE && type != KM_JOINT_PRISMATIC)
    {
      if (q != 0)
        /* Translators: %s is a link name */
        warn_at (b, v, _("the joint displacement of “%s” is ignored: the link has no "
                         "revolute or prismatic joint"), name);
      return;
    }
  q *= scale;
  if (range->limited && (q < range->min || q > range->max))
    {
      char at[G_ASCII_DTOSTR_BUF_SIZE], lo[G_ASCII_DTOSTR_BUF_SIZE],
           hi[G_ASCII_DTOSTR_BUF_SIZE];

      /* Translators: a link name, then its joint value and range, in the file's unit */
      warn_at (b, v, _("the joint displacement of “%s” (%s) is outside its joint range "
                       "[%s, %s]; it is kept"), name, message_number (q / scale, at),
               message_number (range->min / scale, lo), message_number (range->max / scale,
                                                                        hi));
    }
  if (b->displacements->len <= joint)
    g_array_set_size (b->displacements, joint + 1);
  g_array_index (b->displacements, double, joint) = q;
}

/* Kinema's `kinema_mimic: { joint: LEADER, multiplier: M, offset: O }` of a link (written
 * by km-body-writer.c; Choreonoid ignores it): joint @joint follows LEADER (a joint name,
 * the link's name where it has no joint_name; a sub-body's get its prefix and suffix),
 * q = M · q[LEADER] + O, M as in the skeleton (1 by default), O (0 by default) in the
 * angle unit for a revolute joint, in metres for a prismatic one. The skeleton build checks
 * the rest (a known leader that follows nobody, both revolute or prismatic, limits that
 * can be met), at the value of `joint`. */
static gboolean
read_mimic (Body        *b,
            const Scope *scope,
            KmYamlNode  *node,
            guint        joint,
            KmJointType  type,
            LinkNodes   *nodes,
            GError     **error)
{
  Mimic mimic = { NULL, 1.0, 0.0 };
  const char *leader;
  KmYamlNode *v;

  if (!km_yaml_expect_mapping (node, error))
    return FALSE;
  for (guint k = 0; k < km_yaml_node_get_length (node); k++)
    {
      KmYamlNode *key = km_yaml_mapping_get_key (node, k);
      const char *name = km_yaml_node_get_scalar (key, NULL);

      if (g_strcmp0 (name, "joint") != 0 && g_strcmp0 (name, "multiplier") != 0
          && g_strcmp0 (name, "offset") != 0)
        return fail_at (b, key, error, _("expected joint, multiplier or offset"));
    }
  if ((nodes->mimic = km_yaml_expect_key (node, "joint", error)) == NULL
      || (leader = km_yaml_expect_string (nodes->mimic, error)) == NULL)
    return FALSE;
  for (guint k = 0; k < 2; k++)
    {
      double *value = k == 0 ? &mimic.ratio : &mimic.offset;

      if ((v = km_yaml_mapping_lookup (node, k == 0 ? "multiplier" : "offset")) == NULL)
        continue;
      if (!km_yaml_expect_number (v, value, error))
        return FALSE;
      if (!isfinite (*value))
        return fail_at (b, v, error, _("expected a finite number"));
    }
  if (type == KM_JOINT_REVOLUTE)
    mimic.offset *= b->angle_scale;
  if (b->mimics->len <= joint)
    g_array_set_size (b->mimics, joint + 1);
  mimic.leader = g_strconcat (scope->prefix, leader, scope->suffix, NULL);
  mimic_clear (&g_array_index (b->mimics, Mimic, joint));
  g_array_index (b->mimics, Mimic, joint) = mimic;
  return TRUE;
}

/* Links the joints of @builder (added in the order of b->mimics) as their links'
 * kinema_mimic say. */
static void
set_mimics (const Body        *b,
            KmSkeletonBuilder *builder)
{
  for (guint i = 0; i < b->mimics->len; i++)
    {
      const Mimic *m = &g_array_index (b->mimics, Mimic, i);

      if (m->leader != NULL)
        km_skeleton_builder_set_mimic (builder, i, m->leader, m->ratio, m->offset);
    }
}

static gboolean
read_link (Body        *b,
           KmYamlNode  *link,
           const Scope *scope,
           LinkNodes   *nodes,
           GError     **error)
{
  KmYamlNode *v;
  const char *name, *parent = NULL, *type_name = "fixed", *joint_name = NULL;
  g_autofree char *full_name = NULL, *full_parent = NULL;
  KmJointType type = KM_JOINT_FIXED;
  gboolean track = FALSE, sub_root;
  guint joint;

  nodes->link = link;
  nodes->file = scope->file;
  nodes->include = scope->include;
  if (!km_yaml_expect_mapping (link, error))
    return FALSE;
  if ((v = km_yaml_mapping_lookup (link, "type")) != NULL)
    {
      const char *node_type = km_yaml_expect_string (v, error);

      if (node_type == NULL)
        return FALSE;
      if (g_str_equal (node_type, "Skip"))
        return TRUE;
      if (g_str_equal (node_type, "ContinuousTrack"))
        {
          /* Choreonoid expands it into a chain of track-shoe links; Kinema keeps one. */
          km_parse_warning (b->path, km_yaml_node_get_pos (v),
                            _("a continuous track is read as one fixed link"));
          track = TRUE;
        }
      else if (!g_str_equal (node_type, "Link"))
        return fail_at (b, v, error, _("expected link type Link, SubBody, ContinuousTrack or "
                                       "Skip (%s links are not supported)"), node_type);
    }
  if ((nodes->name = km_yaml_expect_key (link, "name", error)) == NULL ||
      (name = km_yaml_expect_string (nodes->name, error)) == NULL)
    return FALSE;
  sub_root = scope->root_override != NULL && g_strcmp0 (name, scope->root_name) == 0;
  full_name = g_strconcat (scope->prefix, name, scope->suffix, NULL);
  /* Choreonoid's Link::jointName(): the joint's own name, the link keeping `name`. A
   * sub-body's joint names get its prefix and suffix like its link names, so that the
   * joints of two inclusions stay apart. */
  if ((nodes->joint_name = link_lookup (link, KEYS ("joint_name", "jointName"))) != NULL &&
      (joint_name = km_yaml_expect_string (nodes->joint_name, error)) == NULL)
    return FALSE;
  if ((nodes->parent = scope_lookup (scope, sub_root, link, KEYS ("parent"))) != NULL &&
      (parent = km_yaml_expect_string (nodes->parent, error)) == NULL)
    return FALSE;
  /* The parent of a sub-body's root is a link of the including file: no prefix. */
  if (parent != NULL)
    full_parent = sub_root ? g_strdup (parent) : g_strconcat (scope->prefix, parent,
                                                              scope->suffix, NULL);

  if ((nodes->type = scope_lookup (scope, sub_root, link, KEYS ("joint_type", "jointType")))
      != NULL && !track)
    {
      if ((type_name = km_yaml_expect_string (nodes->type, error)) == NULL)
        return FALSE;
      if (g_str_equal (type_name, "revolute"))
        type = KM_JOINT_REVOLUTE;
      else if (g_str_equal (type_name, "prismatic") || g_str_equal (type_name, "slide"))
        type = KM_JOINT_PRISMATIC;
      else if (g_str_equal (type_name, "fixed"))
        type = KM_JOINT_FIXED;
      else if (g_str_equal (type_name, "free"))
        type = KM_JOINT_FREE;
      else if (g_str_equal (type_name, "pseudo_continuous_track") ||
               g_str_equal (type_name, "pseudoContinuousTrack") ||
               g_str_equal (type_name, "crawler"))
        {
          /* `crawler` is the Choreonoid 1.x name. */
          type = KM_JOINT_FIXED;
          km_parse_warning (b->path, km_yaml_node_get_pos (nodes->type),
                            _("a pseudo continuous track moves its surface, not the link: "
                              "read as fixed"));
        }
      else
        return fail_at (b, nodes->type, error, _("expected a joint type: revolute, prismatic, "
                                                 "slide, fixed, free or pseudo_continuous_track"));
    }

  joint = km_skeleton_builder_add_joint (b->builder, full_name, type, full_parent);
  if (b->joint_names->len <= joint)
    g_ptr_array_set_size (b->joint_names, joint + 1);
  if (joint_name != NULL)
    g_ptr_array_index (b->joint_names, joint) = g_strconcat (scope->prefix, joint_name,
                                                             scope->suffix, NULL);

  if ((nodes->translation = scope_lookup (scope, sub_root, link, KEYS ("translation"))) != NULL)
    {
      KmVec3 t;

      if (!read_translation (nodes->translation, &t, error))
        return FALSE;
      km_skeleton_builder_set_offset (b->builder, joint, t);
    }
  if ((nodes->rotation = scope_lookup (scope, sub_root, link, KEYS ("rotation"))) != NULL)
    {
      KmQuat q;

      if (!read_rotation (b, nodes->rotation, &q, error))
        return FALSE;
      if (km_quat_angle_between (q, KM_QUAT_IDENTITY) > 0)
        km_skeleton_builder_set_rotation (b->builder, joint, q);
    }
  {
    /* Choreonoid's default joint axis is Z. */
    KmVec3 axis = km_vec3 (0, 0, 1);

    if ((nodes->axis = scope_lookup (scope, sub_root, link, KEYS ("joint_axis", "jointAxis")))
        != NULL && !read_axis (b, nodes->axis, &axis, error))
      return FALSE;
    km_skeleton_builder_set_axis (b->builder, joint, axis);
  }
  if ((v = scope_lookup (scope, sub_root, link, KEYS ("joint_id", "jointId"))) != NULL)
    {
      gint64 id;

      if (!km_yaml_expect_int (v, &id, error))
        return FALSE;
      /* Exporters write -1 for “no id”, as Choreonoid's Link::jointId() does. */
      if (id >= 0)
        id += scope->joint_id_offset;
      if (id < -1 || id > KM_SKELETON_MAX_JOINTS)
        return fail_at (b, v, error, _("expected a joint id between 0 and %d"),
                        KM_SKELETON_MAX_JOINTS);
      if (id >= 0)
        {
          const char *first = g_hash_table_lookup (b->joint_ids, GINT_TO_POINTER (id + 1));

          /* Choreonoid warns and keeps the first link's: so does Kinema (the skeleton keeps
           * both, and writers give the later one a new id). */
          if (first != NULL)
            warn_at (b, v, _("joint id %d of “%s” is the id of “%s” too"), (int) id,
                     full_name, first);
          else
            g_hash_table_insert (b->joint_ids, GINT_TO_POINTER (id + 1), g_strdup (full_name));
          km_skeleton_builder_set_joint_id (b->builder, joint, (int) id);
        }
    }
  {
    double scale = type == KM_JOINT_REVOLUTE ? b->angle_scale : 1;
    gboolean limited;
    double lower, upper;
    KmLimit range = { FALSE, -INFINITY, INFINITY };

    if ((nodes->range = scope_lookup (scope, sub_root, link, KEYS ("joint_range", "jointRange")))
        != NULL)
      {
        if (!read_range (b, nodes->range, scale, &limited, &lower, &upper, error))
          return FALSE;
        if (limited)
          km_skeleton_builder_set_limit (b->builder, joint, 0, lower, upper);
        range.limited = limited;
        range.min = lower;
        range.max = upper;
      }
    read_displacement (b, link, scope, sub_root, joint, type, full_name, &range);
    /* Velocity and effort limits are kept for writers (URDF <limit velocity effort>): a
     * velocity range becomes the speed allowed both ways. */
    if ((v = link_lookup (link, KEYS ("joint_velocity_range", "jointVelocityRange"))) != NULL)
      {
        if (!read_range (b, v, scale, &limited, &lower, &upper, error))
          return FALSE;
        if (limited)
          km_skeleton_builder_set_max_velocity (b->builder, joint, MIN (fabs (lower), fabs (upper)));
      }
    if ((v = link_lookup (link, KEYS ("max_joint_velocity", "maxJointVelocity"))) != NULL)
      {
        if (!km_yaml_expect_number (v, &lower, error))
          return FALSE;
        if (isfinite (lower))
          km_skeleton_builder_set_max_velocity (b->builder, joint, fabs (lower) * scale);
      }
    if ((v = link_lookup (link, KEYS ("max_joint_effort", "maxJointEffort"))) != NULL)
      {
        if (!km_yaml_expect_number (v, &lower, error))
          return FALSE;
        if (isfinite (lower))
          km_skeleton_builder_set_max_effort (b->builder, joint, fabs (lower));
      }
  }
  if ((v = link_lookup (link, KEYS ("kinema_mimic"))) != NULL
      && !read_mimic (b, scope, v, joint, type, nodes, error))
    return FALSE;
  if (!check_mass_properties (b, link, error))
    return FALSE;

  if ((v = link_lookup (link, KEYS ("elements"))) != NULL)
    {
      KmAffine m;

      _km_affine_identity (&m);
      if (!walk_elements (b, joint, v, &m, 0, error))
        return FALSE;
    }
  return TRUE;
}

static KmYamlNode *
problem_node (GArray                  *links,
              const KmSkeletonProblem *problem,
              KmYamlNode              *fallback)
{
  LinkNodes *n;
  KmYamlNode *node = NULL;

  if (problem->joint >= links->len)
    return fallback;
  n = &g_array_index (links, LinkNodes, problem->joint);
  switch (problem->field)
    {
    case KM_JOINT_FIELD_TYPE:
      node = n->type;
      break;
    case KM_JOINT_FIELD_PARENT:
      node = n->parent;
      break;
    case KM_JOINT_FIELD_OFFSET:
      node = n->translation;
      break;
    case KM_JOINT_FIELD_ROTATION:
      node = n->rotation;
      break;
    case KM_JOINT_FIELD_AXIS:
      node = n->axis;
      break;
    case KM_JOINT_FIELD_LIMITS:
      node = n->range;
      break;
    case KM_JOINT_FIELD_MIMIC:
      node = n->mimic;
      break;
    case KM_JOINT_FIELD_NAME:
    case KM_JOINT_FIELD_NONE:
    default:
      node = n->name;
      break;
    }
  return node ? node : n->name ? n->name : n->link;
}

/* `format`, `format_version` and `angle_unit` of a body file; sets b->angle_scale. */
static gboolean
read_header (Body        *b,
             KmYamlNode  *root,
             GError     **error)
{
  KmYamlNode *v;
  const char *format;
  double version;

  if (!km_yaml_expect_mapping (root, error))
    return FALSE;
  v = km_yaml_mapping_lookup (root, "format");
  if (v == NULL)
    {
      if (km_yaml_mapping_lookup_any (root, KEYS ("model_file", "modelFile")) != NULL)
        fail_at (b, km_yaml_mapping_lookup_any (root, KEYS ("model_file", "modelFile")), error,
                 _("wrapper body files (model_file) are not supported; open the model file "
                   "itself"));
      else
        fail_at (b, root, error, _("expected “format: ChoreonoidBody”"));
      return FALSE;
    }
  if ((format = km_yaml_expect_string (v, error)) == NULL)
    return FALSE;
  if (!g_str_equal (format, "ChoreonoidBody"))
    {
      fail_at (b, v, error, _("expected “ChoreonoidBody”"));
      return FALSE;
    }
  if ((v = km_yaml_mapping_lookup_any (root, KEYS ("format_version", "formatVersion"))) == NULL)
    {
      fail_at (b, root, error, _("missing key “format_version”"));
      return FALSE;
    }
  if (!km_yaml_expect_number (v, &version, error))
    return FALSE;
  if (version >= 2.1 || version < 0)
    {
      fail_at (b, v, error, _("expected a format version below 2.1"));
      return FALSE;
    }
  /* The factor the .body writer writes its degrees for (km_format_scaled_number). */
  b->angle_scale = KM_FORMAT_RADIANS_PER_DEGREE;
  if ((v = km_yaml_mapping_lookup_any (root, KEYS ("angle_unit", "angleUnit"))) != NULL)
    {
      const char *unit = km_yaml_expect_string (v, error);

      if (unit == NULL)
        return FALSE;
      if (g_str_equal (unit, "radian") && version < 2.0)
        b->angle_scale = 1;
      else if (g_str_equal (unit, "radian"))
        {
          fail_at (b, v, error, _("format version 2.0 uses degrees only"));
          return FALSE;
        }
      else if (!g_str_equal (unit, "degree"))
        {
          fail_at (b, v, error, _("expected “degree” or “radian”"));
          return FALSE;
        }
    }

  return TRUE;
}

/* A SubBody link node: the links of another body file, under the SubBody's `parent`. */
static gboolean
read_sub_body (Body        *b,
               KmYamlNode  *node,
               const Scope *outer,
               GArray      *link_nodes,
               GError     **error)
{
  KmYamlNode *uri_node = km_yaml_mapping_lookup_any (node, KEYS ("uri", "url", "file"));
  KmYamlNode *v, *root, *links;
  g_autofree char *file = NULL, *canonical = NULL;
  g_autoptr(GBytes) contents = NULL;
  const char *data;
  g_autofree char *prefix = NULL, *suffix = NULL;
  g_autoptr(GError) read_error = NULL;
  const char *uri, *saved_path = b->path, *inner_prefix = "", *inner_suffix = "";
  double saved_scale = b->angle_scale;
  gint64 offset = 0;
  gsize length;
  Scope scope;
  Include *include;
  gboolean ok;

  if (uri_node == NULL)
    return fail_at (b, node, error, _("expected a “uri” key"));
  if ((uri = km_yaml_expect_string (uri_node, error)) == NULL)
    return FALSE;
  if ((v = km_yaml_mapping_lookup (node, "prefix")) != NULL &&
      (inner_prefix = km_yaml_expect_string (v, error)) == NULL)
    return FALSE;
  if ((v = km_yaml_mapping_lookup (node, "suffix")) != NULL &&
      (inner_suffix = km_yaml_expect_string (v, error)) == NULL)
    return FALSE;
  if ((v = km_yaml_mapping_lookup_any (node, KEYS ("joint_id_offset", "jointIdOffset"))) != NULL &&
      !km_yaml_expect_int (v, &offset, error))
    return FALSE;
  if (offset < 0 || offset > KM_SKELETON_MAX_JOINTS)
    return fail_at (b, v, error, _("expected a joint id between 0 and %d"),
                    KM_SKELETON_MAX_JOINTS);
  if ((file = expand_uri (b, uri_node, uri, error)) == NULL)
    return FALSE;
  canonical = g_canonicalize_filename (file, NULL);
  for (guint i = 0; i < b->includes->len; i++)
    if (g_str_equal (g_ptr_array_index (b->includes, i), canonical))
      return fail_at (b, uri_node, error, _("the sub-body “%s” includes itself"), uri);
  if (b->includes->len >= MAX_SUB_BODY_DEPTH)
    return fail_at (b, uri_node, error, _("sub-bodies are nested too deeply (at most %d levels)"),
                    MAX_SUB_BODY_DEPTH);
  if (++b->n_sub_bodies > MAX_SUB_BODIES)
    return fail_at (b, uri_node, error, _("too many sub-bodies (at most %d)"), MAX_SUB_BODIES);
  /* Bounded, like every file a loader reads (not /dev/zero or a pipe without end). */
  contents = km_format_read_file (file, KM_FORMAT_MAX_FILE_SIZE, &read_error);
  if (contents == NULL)
    return fail_at (b, uri_node, error, _("cannot read the sub-body “%s”: %s"), uri,
                    read_error->message);
  include = g_new (Include, 1);
  include->file = saved_path;
  include->pos = km_yaml_node_get_pos (uri_node);
  include->outer = outer->include;
  g_ptr_array_add (b->inclusions, include);
  data = g_bytes_get_data (contents, &length);
  root = km_yaml_parse (file, data ? data : "", length, NULL, error);
  if (root == NULL)
    goto failed;
  g_ptr_array_add (b->documents, root);
  b->path = km_yaml_node_get_file (root);
  if (!read_header (b, root, error))
    goto failed;
  if ((links = km_yaml_expect_key (root, "links", error)) == NULL ||
      (links = link_list (b, links, error)) == NULL)
    goto failed;
  scope.root_name = NULL;
  if ((v = km_yaml_mapping_lookup_any (root, KEYS ("root_link", "rootLink"))) != NULL &&
      (scope.root_name = km_yaml_expect_string (v, error)) == NULL)
    goto failed;
  for (guint i = 0; scope.root_name == NULL && i < km_yaml_node_get_length (links); i++)
    {
      KmYamlNode *link = km_yaml_sequence_get (links, i);
      KmYamlNode *name = km_yaml_mapping_lookup (link, "name");
      KmYamlNode *type = km_yaml_mapping_lookup (link, "type");

      if (type == NULL || g_strcmp0 (km_yaml_node_get_scalar (type, NULL), "Link") == 0)
        scope.root_name = name ? km_yaml_node_get_scalar (name, NULL) : NULL;
    }
  if (scope.root_name == NULL)
    {
      fail_at (b, links, error, _("expected at least one link"));
      goto failed;
    }
  /* Names nest like Choreonoid's: outer prefix, inner prefix, name, inner and outer suffix. */
  prefix = g_strconcat (outer->prefix, inner_prefix, NULL);
  suffix = g_strconcat (inner_suffix, outer->suffix, NULL);
  scope.prefix = prefix;
  scope.suffix = suffix;
  scope.joint_id_offset = outer->joint_id_offset + (int) offset;
  scope.root_override = node;
  scope.file = b->path;
  scope.include = include;
  if ((v = km_yaml_mapping_lookup_any (root, KEYS ("extra_joints", "extraJoints"))) != NULL)
    km_parse_warning (b->path, km_yaml_node_get_pos (v),
                      _("extra joints (closed loops) are not represented; the tree is kept "
                        "open"));
  g_ptr_array_add (b->includes, g_steal_pointer (&canonical));
  ok = read_links (b, links, &scope, link_nodes, error);
  g_ptr_array_remove_index (b->includes, b->includes->len - 1);
  b->path = saved_path;
  b->angle_scale = saved_scale;
  /* An error inside the sub-body file (or deeper) names where it was included; one in
   * this file (a key of the SubBody node that applies to the sub-body's root) does not. */
  if (!ok)
    km_parse_error_add_include_from (error, saved_path, include->pos);
  return ok;

failed:
  b->path = saved_path;
  b->angle_scale = saved_scale;
  km_parse_error_add_include_from (error, saved_path, include->pos);
  return FALSE;
}

/* The link nodes of a file's `links`: the list itself, or, for the mapping keyed by node
 * type that Choreonoid also takes (`links: { Link: {…}, SubBody: [ {…}, {…} ] }`), a list
 * of its nodes (each a mapping, or a list of them under one type), each given its key as
 * its `type` (the key's node, which points at the key). The list is kept with the file's
 * documents. NULL with @error set when @links is neither, or a node's own `type` differs
 * from its key. */
static KmYamlNode *
link_list (Body        *b,
           KmYamlNode  *links,
           GError     **error)
{
  KmYamlNode *list;

  if (km_yaml_node_get_kind (links) != KM_YAML_MAPPING)
    return km_yaml_expect_sequence (links, error) ? links : NULL;
  list = km_yaml_node_new_sequence (KM_YAML_STYLE_ANY);
  g_ptr_array_add (b->documents, list);
  for (guint i = 0; i < km_yaml_node_get_length (links); i++)
    {
      KmYamlNode *type = km_yaml_mapping_get_key (links, i);
      KmYamlNode *value = km_yaml_mapping_get_value (links, i);
      gboolean many = km_yaml_node_get_kind (value) == KM_YAML_SEQUENCE;
      guint n = many ? km_yaml_node_get_length (value) : 1;

      if (km_yaml_expect_string (type, error) == NULL)
        return NULL;
      for (guint j = 0; j < n; j++)
        {
          KmYamlNode *node = many ? km_yaml_sequence_get (value, j) : value;
          KmYamlNode *own;

          if (!km_yaml_expect_mapping (node, error))
            return NULL;
          own = km_yaml_mapping_lookup (node, "type");
          if (own != NULL && g_strcmp0 (km_yaml_node_get_scalar (own, NULL),
                                        km_yaml_node_get_scalar (type, NULL)) != 0)
            {
              /* Translators: %s is a node type of a Choreonoid body file, such as Link */
              fail_at (b, own, error, _("expected type %s, the key this link is listed under"),
                       km_yaml_node_get_scalar (type, NULL));
              return NULL;
            }
          if (own == NULL)
            km_yaml_mapping_set (node, "type", km_yaml_node_ref (type));
          km_yaml_sequence_append (list, km_yaml_node_ref (node));
        }
    }
  return list;
}

static gboolean
read_links (Body        *b,
            KmYamlNode  *links,
            const Scope *scope,
            GArray      *link_nodes,
            GError     **error)
{
  if (km_yaml_node_get_length (links) > KM_SKELETON_MAX_JOINTS)
    return fail_at (b, links, error, _("too many links (at most %d)"), KM_SKELETON_MAX_JOINTS);
  for (guint i = 0; i < km_yaml_node_get_length (links); i++)
    {
      KmYamlNode *link = km_yaml_sequence_get (links, i);
      KmYamlNode *type = km_yaml_mapping_lookup (link, "type");
      LinkNodes nodes = { 0 };
      guint before = km_skeleton_builder_get_n_joints (b->builder);

      if (type != NULL && g_strcmp0 (km_yaml_node_get_scalar (type, NULL), "SubBody") == 0)
        {
          if (!read_sub_body (b, link, scope, link_nodes, error))
            return FALSE;
          continue;
        }
      if (!read_link (b, link, scope, &nodes, error))
        return FALSE;
      if (km_skeleton_builder_get_n_joints (b->builder) > before)
        g_array_append_val (link_nodes, nodes);
      if (km_skeleton_builder_get_n_joints (b->builder) > KM_SKELETON_MAX_JOINTS)
        return fail_at (b, link, error, _("too many links (at most %d)"),
                        KM_SKELETON_MAX_JOINTS);
    }
  return TRUE;
}

/* Sets @error from the skeleton build's @build_error, at the value @problem points at, and
 * where its file was included. @joint_names: the build named joints after the links'
 * `joint_name`s (with_joint_names), so a name problem is one of the link's joint_name. */
static void
report_build_error (Body                    *b,
                    KmYamlNode              *root,
                    KmYamlNode              *links,
                    GArray                  *link_nodes,
                    const KmSkeletonProblem *problem,
                    const GError            *build_error,
                    gboolean                 joint_names,
                    GError                 **error)
{
  KmYamlNode *at = problem_node (link_nodes, problem, links), *v;
  const LinkNodes *n = problem->joint < link_nodes->len
                       ? &g_array_index (link_nodes, LinkNodes, problem->joint) : NULL;
  const Include *include = NULL;

  if (joint_names && n != NULL && n->joint_name != NULL && problem->field == KM_JOINT_FIELD_NAME)
    at = n->joint_name;

  /* The root named by root_link is not a link's joint field: point at root_link. */
  if (g_error_matches (build_error, KM_SKELETON_ERROR, KM_SKELETON_ERROR_ROOT_MISMATCH) &&
      (v = km_yaml_mapping_lookup_any (root, KEYS ("root_link", "rootLink"))) != NULL)
    at = v;
  else if (n != NULL)
    {
      /* A link of a sub-body file, or its SubBody node (in the including file). */
      include = n->include;
      if (include != NULL && g_strcmp0 (km_yaml_node_get_file (at), n->file) != 0)
        include = include->outer;
    }
  /* The builder's one complaint about a joint type (a free joint below the root): said
   * as what the file should have there. */
  if (g_error_matches (build_error, KM_SKELETON_ERROR, KM_SKELETON_ERROR_BAD_VALUE) &&
      problem->field == KM_JOINT_FIELD_TYPE)
    fail_at (b, at, error, _("expected a joint type other than “free” for a link that has "
                             "a parent: only the root link may be free"));
  else if (g_error_matches (build_error, KM_SKELETON_ERROR, KM_SKELETON_ERROR_DUPLICATE_NAME) &&
           n != NULL && at == n->joint_name)
    /* Translators: %s is a joint name */
    fail_at (b, at, error, _("expected a joint name no other joint has, found “%s”"),
             km_yaml_node_get_scalar (at, NULL));
  else
    fail_at (b, at, error, "%s", build_error->message);
  for (; include != NULL; include = include->outer)
    km_parse_error_add_include (error, include->file, include->pos);
}

/* The name of @joint of the skeleton built with link names: its link's joint_name, if any. */
static const char *
joint_name_of (const Body    *b,
               const KmJoint *joint)
{
  const char *name = joint->file_index < b->joint_names->len
                     ? g_ptr_array_index (b->joint_names, joint->file_index) : NULL;

  return name != NULL ? name : joint->name;
}

/* @skel, built with each joint named after its link, with the joints of the links that
 * have a `joint_name` called so, and their links keeping their names (KmJoint.link_name).
 * The builder finds a joint's parent by its joint name, and a link's `parent` names a link
 * that may come later in the file, so the tree is built with the link names first (which
 * checks them: unique, parents, one root) and then again in file order (so file indices,
 * which the displacements and problems use, stay) with the joint names, which the second
 * build checks to be unique. */
static KmSkeleton *
with_joint_names (Body        *b,
                  KmSkeleton  *skel,
                  KmYamlNode  *root,
                  KmYamlNode  *links,
                  GArray      *link_nodes,
                  GError     **error)
{
  guint n = km_skeleton_get_n_joints (skel);
  g_autofree guint *topo_of = g_new (guint, n);
  g_autoptr(KmSkeletonBuilder) builder = km_skeleton_builder_new ();
  g_autoptr(GError) build_error = NULL;
  KmSkeletonProblem problem = { 0 };
  const char * const *handlers = km_skeleton_get_body_handlers (skel);
  KmSkeleton *named;

  for (guint i = 0; i < n; i++)
    topo_of[km_skeleton_get_joint (skel, i)->file_index] = i;
  for (guint f = 0; f < n; f++)
    {
      guint i = topo_of[f], n_shapes = 0, index;
      const KmJoint *j = km_skeleton_get_joint (skel, i);
      KmShape * const *shapes = km_skeleton_get_shapes (skel, i, &n_shapes);

      index = km_skeleton_builder_add_joint (builder, joint_name_of (b, j), j->type,
                                             j->parent >= 0 ? joint_name_of (b,
                                               km_skeleton_get_joint (skel, (guint) j->parent))
                                             : NULL);
      km_skeleton_builder_set_link_name (builder, index, j->name);
      km_skeleton_builder_set_offset (builder, index, j->offset);
      if (j->has_rotation)
        km_skeleton_builder_set_rotation (builder, index, j->rotation);
      if (j->type == KM_JOINT_REVOLUTE || j->type == KM_JOINT_PRISMATIC)
        km_skeleton_builder_set_axis (builder, index, j->axis);
      if (j->limits[0].limited)
        km_skeleton_builder_set_limit (builder, index, 0, j->limits[0].min, j->limits[0].max);
      if (j->joint_id >= 0)
        km_skeleton_builder_set_joint_id (builder, index, j->joint_id);
      km_skeleton_builder_set_max_effort (builder, index, j->max_effort);
      km_skeleton_builder_set_max_velocity (builder, index, j->max_velocity);
      for (guint s = 0; s < n_shapes; s++)
        km_skeleton_builder_add_shape (builder, index, shapes[s]);
    }
  if (km_skeleton_get_model_name (skel) != NULL)
    km_skeleton_builder_set_model_name (builder, km_skeleton_get_model_name (skel));
  for (guint h = 0; handlers != NULL && handlers[h] != NULL; h++)
    km_skeleton_builder_add_body_handler (builder, handlers[h]);
  set_mimics (b, builder);
  named = km_skeleton_builder_build (builder, &problem, &build_error);
  if (named == NULL)
    report_build_error (b, root, links, link_nodes, &problem, build_error, TRUE, error);
  return named;
}

/* @path's file name without its extension ("robot" of dir/robot.body); a name that only
 * starts with a dot (".body") is all stem. */
static char *
file_stem (const char *path)
{
  char *base = g_path_get_basename (path);
  char *dot = strrchr (base, '.');

  if (dot != NULL && dot != base)
    *dot = '\0';
  return base;
}

static gboolean
has_joint_names (const Body *b)
{
  for (guint i = 0; i < b->joint_names->len; i++)
    if (g_ptr_array_index (b->joint_names, i) != NULL)
      return TRUE;
  return FALSE;
}

static KmSkeleton *
load_tree (Body        *b,
           KmYamlNode  *root,
           GError     **error)
{
  g_autoptr(GArray) link_nodes = g_array_new (FALSE, TRUE, sizeof (LinkNodes));
  g_autoptr(GError) build_error = NULL;
  KmSkeletonProblem problem = { 0 };
  KmYamlNode *v, *links;
  KmSkeleton *skel;

  if (!read_header (b, root, error))
    return NULL;
  if ((links = km_yaml_expect_key (root, "links", error)) == NULL ||
      (links = link_list (b, links, error)) == NULL)
    return NULL;
  if (km_yaml_node_get_length (links) == 0)
    {
      fail_at (b, links, error, _("expected at least one link"));
      return NULL;
    }
  if (km_yaml_node_get_length (links) > KM_SKELETON_MAX_JOINTS)
    {
      fail_at (b, links, error, _("too many links (at most %d)"), KM_SKELETON_MAX_JOINTS);
      return NULL;
    }
  if (!read_links (b, links, &(Scope) { "", "", 0, NULL, NULL, b->path, NULL }, link_nodes,
                   error))
    return NULL;

  if ((v = km_yaml_mapping_lookup_any (root, KEYS ("root_link", "rootLink"))) != NULL)
    {
      const char *name = km_yaml_expect_string (v, error);

      if (name == NULL)
        return NULL;
      km_skeleton_builder_set_root_name (b->builder, name);
    }
  /* The model's name, kept for writers; Choreonoid takes any scalar. Without one, the
   * file's stem, as Choreonoid names the model (not the root link's name, which the
   * writers fall back on for a skeleton without a model name). */
  if ((v = km_yaml_mapping_lookup (root, "name")) != NULL &&
      km_yaml_node_get_kind (v) == KM_YAML_SCALAR)
    km_skeleton_builder_set_model_name (b->builder, km_yaml_node_get_scalar (v, NULL));
  else
    {
      g_autofree char *stem = file_stem (b->path);

      km_skeleton_builder_set_model_name (b->builder, stem);
    }
  if ((v = km_yaml_mapping_lookup_any (root, KEYS ("body_handlers", "bodyHandlers"))) != NULL)
    {
      if (km_yaml_node_get_kind (v) == KM_YAML_SEQUENCE)
        {
          for (guint i = 0; i < km_yaml_node_get_length (v); i++)
            {
              const KmYamlNode *item = km_yaml_sequence_get (v, i);
              const char *name = km_yaml_expect_string (item, error);

              if (name == NULL)
                return NULL;
              add_body_handler (b, item, name);
            }
        }
      else
        {
          const char *name = km_yaml_expect_string (v, error);

          if (name == NULL)
            return NULL;
          add_body_handler (b, v, name);
        }
    }
  if ((v = km_yaml_mapping_lookup_any (root, KEYS ("extra_joints", "extraJoints"))) != NULL)
    km_parse_warning (b->path, km_yaml_node_get_pos (v),
                      _("extra joints (closed loops) are not represented; the tree is kept "
                        "open"));

  /* Linked by joint names: in the build with them (with_joint_names) where links have
   * any of their own. */
  if (!has_joint_names (b))
    set_mimics (b, b->builder);
  skel = km_skeleton_builder_build (b->builder, &problem, &build_error);
  if (skel == NULL)
    {
      report_build_error (b, root, links, link_nodes, &problem, build_error, FALSE, error);
      return NULL;
    }
  if (has_joint_names (b))
    {
      KmSkeleton *named = with_joint_names (b, skel, root, links, link_nodes, error);

      km_skeleton_unref (skel);
      return named;
    }
  return skel;
}

/* The pose the links' joint displacements state (b->displacements) as DOF values of
 * @skel, NULL when every one is zero: the zero pose. */
static double *
initial_pose (const Body       *b,
              const KmSkeleton *skel)
{
  guint n_dof = km_skeleton_get_n_dof (skel);
  g_autofree double *q = NULL;
  gboolean stated = FALSE;

  if (n_dof == 0)
    return NULL;
  q = g_new0 (double, n_dof);
  for (guint i = 0; i < km_skeleton_get_n_joints (skel); i++)
    {
      const KmJoint *joint = km_skeleton_get_joint (skel, i);

      /* Only revolute and prismatic joints have one (read_displacement). */
      if (joint->n_dof != 1 || joint->file_index >= b->displacements->len)
        continue;
      q[joint->dof_index] = g_array_index (b->displacements, double, joint->file_index);
      stated = stated || q[joint->dof_index] != 0;
    }
  return stated ? g_steal_pointer (&q) : NULL;
}

/**
 * km_body_load:
 * @path: the path as given, for messages and relative `uri`s
 * @options: (nullable): %NULL reads mesh files
 *
 * km_body_load_with_pose() without the pose.
 *
 * Returns: (transfer full) (nullable): the skeleton, or %NULL with a KM_PARSE_ERROR
 */
KmSkeleton *
km_body_load (const char           *path,
              const char           *data,
              gsize                 length,
              const KmBodyOptions  *options,
              GError              **error)
{
  return km_body_load_with_pose (path, data, length, options, NULL, error);
}

/**
 * km_body_load_with_pose:
 * @path: the path as given, for messages and relative `uri`s
 * @options: (nullable): %NULL reads mesh files
 * @initial_q: (out) (optional) (transfer full) (nullable): the pose the links'
 *   `joint_displacement` values state, one value per DOF of the skeleton (rad, m); %NULL
 *   when they state none (or only zeros)
 *
 * A Resource `uri: "package://PKG/PATH"` is looked up as the URDF reader looks it up
 * (km_package_uri_resolve: $KINEMA_PACKAGE_PATH, then $ROS_PACKAGE_PATH, then the folders
 * above the file); one that is not found is a warning, and the shape is kept as its
 * reference. A loaded mesh keeps its Resource's uri (and `node`) for writers.
 *
 * Returns: (transfer full) (nullable): the skeleton, or %NULL with a KM_PARSE_ERROR
 */
KmSkeleton *
km_body_load_with_pose (const char           *path,
                        const char           *data,
                        gsize                 length,
                        const KmBodyOptions  *options,
                        double              **initial_q,
                        GError              **error)
{
  static const KmBodyOptions defaults = { TRUE };
  g_autoptr(KmYamlNode) root = NULL;
  g_autoptr(KmSkeletonBuilder) builder = km_skeleton_builder_new ();
  g_autoptr(KmMeshCache) cache = km_mesh_cache_new ();
  g_autoptr(GHashTable) meshes = g_hash_table_new_full (NULL, NULL, NULL,
                                                        (GDestroyNotify) km_mesh_unref);
  g_autoptr(GHashTable) warned = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GPtrArray) documents = g_ptr_array_new_with_free_func ((GDestroyNotify)
                                                                   km_yaml_node_unref);
  g_autoptr(GPtrArray) includes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) inclusions = g_ptr_array_new_with_free_func (g_free);
  g_auto(GStrv) package_paths = km_package_paths_from_env ();
  g_autoptr(GHashTable) packages = km_package_cache_new ();
  g_autoptr(GHashTable) joint_ids = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  g_autoptr(GArray) displacements = g_array_new (FALSE, TRUE, sizeof (double));
  g_autoptr(GPtrArray) joint_names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GArray) mimics = g_array_new (FALSE, TRUE, sizeof (Mimic));
  KmSkeleton *skel;
  Body b = { 0 };

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (data != NULL || length == 0, NULL);

  root = km_yaml_parse (path, data ? data : "", length, NULL, error);
  if (root == NULL)
    return NULL;
  b.path = path;
  b.options = options ? options : &defaults;
  b.builder = builder;
  b.cache = cache;
  b.meshes = meshes;
  b.warned = warned;
  b.documents = documents;
  b.includes = includes;
  b.inclusions = inclusions;
  b.package_paths = package_paths;
  b.packages = packages;
  b.joint_ids = joint_ids;
  b.displacements = displacements;
  b.joint_names = joint_names;
  g_array_set_clear_func (mimics, mimic_clear);
  b.mimics = mimics;
  if (initial_q != NULL)
    *initial_q = NULL;
  g_ptr_array_add (includes, g_canonicalize_filename (path, NULL));
  skel = load_tree (&b, root, error);
  if (skel != NULL && initial_q != NULL)
    *initial_q = initial_pose (&b, skel);
  return skel;
}

/**
 * km_body_sniff:
 *
 * Returns: 95 for YAML with `format: ChoreonoidBody`, 60 for YAML with a top-level
 *   `links` key or a wrapper body file's `model_file` (which km_body_load() rejects with a
 *   message that says what it is), 0 otherwise
 */
int
km_body_sniff (const char *data,
               gsize       length)
{
  if (km_yaml_sniff_top_key (data, length, "format") &&
      g_strstr_len (data, MIN (length, 4096), "ChoreonoidBody") != NULL)
    return 95;
  if (km_yaml_sniff_top_key (data, length, "links") ||
      km_yaml_sniff_top_key (data, length, "model_file") ||
      km_yaml_sniff_top_key (data, length, "modelFile"))
    return 60;
  return 0;
}

static gpointer
format_load (const char  *path,
             GBytes      *contents,
             GError     **error)
{
  gsize length;
  const char *data = g_bytes_get_data (contents, &length);

  return km_body_load (path, data ? data : "", length, NULL, error);
}

/* The skeleton, and the pose its links' joint displacements state, which the body starts
 * at (as Choreonoid's does). */
static gpointer
format_load_model (const char     *path,
                   GBytes         *contents,
                   KmModelExtras  *extras,
                   GError        **error)
{
  gsize length;
  const char *data = g_bytes_get_data (contents, &length);
  double *initial_q = NULL;
  KmSkeleton *skel = km_body_load_with_pose (path, data ? data : "", length, NULL, &initial_q,
                                             error);

  if (skel != NULL && initial_q != NULL)
    {
      extras->initial_q = initial_q;
      extras->n_initial_q = km_skeleton_get_n_dof (skel);
    }
  return skel;
}

const KmFormat km_format_choreonoid_body = {
  .name = "CHOREONOID-BODY",
  .kind = KM_FILE_KIND_MODEL,
  .description = N_("Choreonoid body model"),
  .sniff = km_body_sniff,
  .load = format_load,
  .free_result = (void (*) (gpointer)) km_skeleton_unref,
  .describe = km_skeleton_json_describe,
  .load_model = format_load_model,
};
