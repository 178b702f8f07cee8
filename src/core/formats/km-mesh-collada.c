/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-mesh-collada"

#include "config.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "km-markup-text.h"
#include "km-mesh-loader.h"
#include "km-mesh-private.h"
#include "km-number.h"

/*
 * COLLADA 1.4 / 1.5 (.dae) meshes, the subset that robot models (URDF visuals of the UR,
 * PR2, WAM, Atlas… packages, Choreonoid resources) use.
 *
 * Why our own reader and not assimp: assimp cannot tell where in a file a problem is
 * (Kinema reports every rejected file as FILE:LINE:COLUMN), it brings in draco and minizip
 * that a kinematics tool does not need, and it has a long record of crashes found by
 * fuzzing. This reader is GMarkup plus a few hundred lines, and is fuzzed with the other
 * mesh readers (tests/fuzz/fuzz-mesh.c).
 *
 * The file is read into a small element tree first (libraries that are not drawn, such
 * as animations, controllers, images, physics and <extra>, are skipped), with each
 * element's offset in the text, so that errors point into the file and number lists
 * (<float_array>, <p>) are read straight from the text with the position of every value.
 * Then:
 *
 * - <asset><unit meter> scales the whole scene into metres. <asset><up_axis> is checked
 *   (X_UP, Y_UP or Z_UP) but does not turn the scene: the file's own axes are the link's
 *   axes, the ROS convention that URDF meshes are made for. COLLADA defines the axes as
 *   (right, up, in) — X_UP (−Y, +X, +Z), Y_UP (+X, +Y, +Z), Z_UP (+X, +Z, −Y) — so a
 *   spec-following reader would map Y_UP (x, y, z) → (x, −z, y) (+90° about X) and X_UP
 *   → (−y, −z, x). ROS tools do not: assimp turns every file to its own Y-up frame, and
 *   MoveIt's geometric_shapes (which says rviz does the same) and DART reset assimp's root
 *   transform to undo that (rviz then applies <unit> itself). Real files depend on it:
 *   the Barrett WAM meshes of DART's HERB URDF (data/urdf/wam) say Y_UP but are modelled
 *   Z-up (wam3.dae, the upper arm, runs 0.59 m along the file's +Z, as its collision STL
 *   does and as the URDF's inertial origin at z = 0.34 expects); turning them would lay
 *   every link on its side.
 * - <scene><instance_visual_scene> names the visual scene (without it, the only or first
 *   <visual_scene>; without any, every geometry is drawn once in the file's frame). Its
 *   <node> tree is walked with <matrix> (16 numbers, row-major), <translate>, <rotate>
 *   (axis and an angle in degrees) and <scale> applied in document order; <lookat> and
 *   <skew> are ignored with a warning; <instance_node> follows a node by "#id" (nesting,
 *   and so cycles, are bounded by KM_MESH_MAX_DEPTH, the walk by MAX_WALK_STEPS). A
 *   node's transformation, a geometry's meshes and a material's colour are read once.
 * - Each <instance_geometry> gives one KmShape per primitive element (<triangles>,
 *   <polylist>, <polygons>, <trifans>, <tristrips>; <lines>, <linestrips> are not drawn)
 *   of its <mesh>, with the node's transform folded into the shape's transform and scale
 *   (a shear is baked into a copy of the vertices, as for VRML). A geometry is built once
 *   and its KmMesh shared by all of its instances. Polygons become fans; <ph> holes are
 *   ignored (the outer <p> is drawn) with a warning.
 * - Normals come from a NORMAL input (of the primitive, or of <vertices>) when there is
 *   one, otherwise KmMesh computes them.
 * - Colour: the primitive's `material` symbol, bound by the instance's <bind_material>
 *   to a <material>, whose <instance_effect> names an <effect>: the diffuse colour of its
 *   profile_COMMON <phong>, <lambert> or <blinn> (the emission colour of <constant>),
 *   with <transparent>/<transparency> as alpha when both are given (a result of zero is
 *   read as the common inverted convention, i.e. opaque). A textured diffuse gives the
 *   default colour, and so does a binding to a material that is not in the file (with a
 *   warning).
 * - UTF-16 files (with a byte order mark) are converted to UTF-8 first.
 *
 * References are "#id" within the file only; a reference to another file is an error.
 */

/* Elements kept in the tree: enough for any real file, bounded for hostile ones. */
#define MAX_ELEMENTS      (1024u * 1024u)
#define MAX_XML_DEPTH     (KM_MESH_MAX_DEPTH * 4)
#define MAX_SHAPES        65536
/* Work while expanding the scene: nodes visited (every <instance_node> again), their
 * children looked at and material bindings searched. */
#define MAX_WALK_STEPS    4000000
#define MAX_INPUT_OFFSET  64

typedef struct _Elem Elem;

struct _Elem
{
  char   *name;
  char  **attrs;         /* name, value, …, NULL */
  Elem   *parent;
  Elem   *first;
  Elem   *last;
  Elem   *next;
  gsize   tag;           /* offset of the '<' of the start tag */
  gsize   content;       /* offset just after the start tag; G_MAXSIZE for <x/> */
};

typedef struct
{
  float *values;
  guint  n;
} FloatArray;

typedef struct
{
  const float *values;
  guint        count;
  guint        stride;
  guint        offset;
} Source;

typedef struct
{
  KmMesh     *mesh;
  char       *material;  /* the primitive's material symbol; nullable */
} Part;

typedef struct
{
  const char *path;
  const char *text;          /* markup's text and length */
  gsize       length;
  KmMarkupText markup;

  GPtrArray  *arena;         /* Elem *, owned */
  Elem       *root;
  Elem       *current;
  guint       depth;
  guint       skip_depth;

  GHashTable *ids;           /* id → Elem * */
  GHashTable *arrays;        /* float_array Elem * → FloatArray * */
  GHashTable *geometries;    /* geometry Elem * → GPtrArray of Part * */
  GHashTable *warned;        /* messages already given once */
  GHashTable *locals;        /* node Elem * → KmAffine * */
  GHashTable *colors;        /* material Elem * → KmColor * */
  guint32    *first;         /* per position: see Builder; all G_MAXUINT32 between uses */
  gsize       first_len;

  KmAffine      root_affine;   /* <unit> */
  guint       n_shapes;
  guint       n_steps;
  gsize       n_triangles;
  gsize       n_baked;
} Parser;

/* ---- positions ---------------------------------------------------------------------- */

static KmSourcePos
pos_at (Parser *p,
        gsize   offset)
{
  return km_markup_text_pos (&p->markup, offset);
}

static KmSourcePos
elem_pos (Parser *p,
          Elem   *e)
{
  return pos_at (p, e->tag);
}

/* The first character of attribute @name's value in @e's start tag (the tag if absent). */
static KmSourcePos
attr_pos (Parser     *p,
          Elem       *e,
          const char *name)
{
  return km_markup_text_attr_pos (&p->markup, e->tag, name);
}

static void
warn_once (Parser      *p,
           KmSourcePos  pos,
           const char  *message)
{
  if (g_hash_table_contains (p->warned, message))
    return;
  g_hash_table_add (p->warned, g_strdup (message));
  km_parse_warning (p->path, pos, "%s", message);
}

/* ---- element tree ------------------------------------------------------------------- */

static void
elem_free (gpointer data)
{
  Elem *e = data;

  g_free (e->name);
  g_strfreev (e->attrs);
  g_free (e);
}

static const char *
attr (Elem       *e,
      const char *name)
{
  for (guint i = 0; e->attrs[i] != NULL; i += 2)
    if (g_str_equal (e->attrs[i], name))
      return e->attrs[i + 1];
  return NULL;
}

static Elem *
child (Elem       *e,
       const char *name)
{
  if (e == NULL)
    return NULL;
  for (Elem *c = e->first; c != NULL; c = c->next)
    if (g_str_equal (c->name, name))
      return c;
  return NULL;
}

static gboolean
is_skipped (const char *element)
{
  static const char *const kept[] = {
    "library_geometries", "library_materials", "library_effects", "library_visual_scenes",
    "library_nodes",
  };

  if (g_str_equal (element, "extra"))
    return TRUE;
  if (g_str_has_prefix (element, "profile_"))
    return !g_str_equal (element, "profile_COMMON");
  if (g_str_has_prefix (element, "library_"))
    {
      for (guint i = 0; i < G_N_ELEMENTS (kept); i++)
        if (g_str_equal (element, kept[i]))
          return FALSE;
      return TRUE;
    }
  return FALSE;
}

static void
start_element (GMarkupParseContext  *context,
               const char           *element,
               const char          **names,
               const char          **values,
               gpointer              user_data,
               GError              **error)
{
  Parser *p = user_data;
  gsize tag = km_markup_text_start_element (&p->markup, p->path,
                                            (const char * const *) names, error);
  guint n_attrs = g_strv_length ((char **) names);
  Elem *e;

  if (error != NULL && *error != NULL)
    return;

  if (p->skip_depth > 0)
    {
      p->skip_depth++;
      return;
    }
  if (p->current == NULL && p->root != NULL)
    return;   /* GMarkup reports a second document element itself */
  if (p->current == NULL && !g_str_equal (element, "COLLADA"))
    {
      km_parse_error_set (error, KM_PARSE_ERROR_INVALID, p->path, pos_at (p, tag),
                          _("expected <COLLADA> as the document element, found <%s>"),
                          element);
      return;
    }
  if (p->depth >= MAX_XML_DEPTH)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, p->path, pos_at (p, tag),
                          _("elements are nested too deeply (at most %d levels)"),
                          MAX_XML_DEPTH);
      return;
    }
  if (p->current != NULL && is_skipped (element))
    {
      p->skip_depth = 1;
      return;
    }
  if (p->arena->len >= MAX_ELEMENTS)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, p->path, pos_at (p, tag),
                          _("too many elements (at most %u)"), MAX_ELEMENTS);
      return;
    }

  e = g_new0 (Elem, 1);
  e->name = g_strdup (element);
  e->attrs = g_new (char *, 2 * n_attrs + 1);
  for (guint i = 0; i < n_attrs; i++)
    {
      e->attrs[2 * i] = g_strdup (names[i]);
      e->attrs[2 * i + 1] = g_strdup (values[i]);
    }
  e->attrs[2 * n_attrs] = NULL;
  e->tag = tag;
  e->content = p->markup.cursor < p->length && p->markup.cursor > 0 &&
               p->text[p->markup.cursor - 1] == '/' ?
               G_MAXSIZE : MIN (p->markup.cursor + 1, p->length);
  g_ptr_array_add (p->arena, e);

  e->parent = p->current;
  if (p->current == NULL)
    p->root = e;
  else if (p->current->last == NULL)
    p->current->first = p->current->last = e;
  else
    {
      p->current->last->next = e;
      p->current->last = e;
    }
  p->current = e;
  p->depth++;

  {
    const char *id = attr (e, "id");

    if (id != NULL && !g_hash_table_contains (p->ids, id))
      g_hash_table_insert (p->ids, (gpointer) id, e);
  }
}

static void
end_element (GMarkupParseContext  *context,
             const char           *element,
             gpointer              user_data,
             GError              **error)
{
  Parser *p = user_data;

  if (p->skip_depth > 0)
    {
      p->skip_depth--;
      return;
    }
  if (p->current != NULL)
    {
      p->current = p->current->parent;
      p->depth--;
    }
}

/* ---- numbers ------------------------------------------------------------------------ */

/* Moves @i past white space and comments in an element's text; FALSE at its end. */
static gboolean
skip_space (Parser *p,
            gsize  *i)
{
  const char *t = p->text;
  gsize n = p->length;

  while (*i < n)
    {
      if (g_ascii_isspace (t[*i]))
        (*i)++;
      else if (t[*i] == '<' && *i + 4 <= n && strncmp (t + *i, "<!--", 4) == 0)
        {
          const char *end = g_strstr_len (t + *i + 4, n - *i - 4, "-->");

          *i = end ? (gsize) (end - t) + 3 : n;
        }
      else
        return t[*i] != '<';
    }
  return FALSE;
}

static gboolean
token_ends (Parser *p,
            gsize   i)
{
  return i >= p->length || g_ascii_isspace (p->text[i]) || p->text[i] == '<';
}

/* The numbers in @e's text, as doubles, or as floats when @as_float; at most @max of
 * them when @max > 0 (an error at the next one). */
static gboolean
read_numbers (Parser    *p,
              Elem      *e,
              gboolean   as_float,
              guint      max,
              GArray    *out,
              GError   **error)
{
  gsize i = e->content;

  if (i == G_MAXSIZE)
    return TRUE;
  while (skip_space (p, &i))
    {
      char *end;
      double v;

      if (max > 0 && out->len >= max)
        {
          /* Translators: %u is a count, %s an element name. */
          km_parse_error_set (error, KM_PARSE_ERROR_INVALID, p->path, pos_at (p, i),
                              _("expected at most %u numbers in <%s>"), max, e->name);
          return FALSE;
        }
      if (!_km_ascii_strtod_finite (p->text + i, &end, &v) ||
          !token_ends (p, (gsize) (end - p->text)) ||
          (as_float && !isfinite ((float) v)))
        {
          km_parse_error_set (error, KM_PARSE_ERROR_INVALID, p->path, pos_at (p, i),
                              _("expected a finite number"));
          return FALSE;
        }
      if (as_float)
        {
          float f = (float) v;

          g_array_append_val (out, f);
        }
      else
        g_array_append_val (out, v);
      i = (gsize) (end - p->text);
    }
  return TRUE;
}

/* Exactly @n numbers in @e's text. */
static gboolean
read_doubles (Parser    *p,
              Elem      *e,
              double    *out,
              guint      n,
              GError   **error)
{
  g_autoptr(GArray) values = g_array_new (FALSE, FALSE, sizeof (double));

  if (!read_numbers (p, e, FALSE, n, values, error))
    return FALSE;
  if (values->len != n)
    {
      /* Translators: %u is a count, %s an element name. */
      km_parse_error_set (error, KM_PARSE_ERROR_INVALID, p->path, elem_pos (p, e),
                          _("expected %u numbers in <%s>, found %u"), n, e->name, values->len);
      return FALSE;
    }
  memcpy (out, values->data, sizeof (double) * n);
  return TRUE;
}

/* Non-negative integers in @e's text; the k-th value must be below limits[k % n_limits]
 * when @limits is given. */
static gboolean
read_indices (Parser         *p,
              Elem           *e,
              const guint32  *limits,
              guint           n_limits,
              GArray         *out,
              GError        **error)
{
  gsize i = e->content;

  if (i == G_MAXSIZE)
    return TRUE;
  while (skip_space (p, &i))
    {
      guint64 v = 0;
      gsize start = i;

      while (i < p->length && g_ascii_isdigit (p->text[i]) && v <= G_MAXUINT32)
        v = v * 10 + (guint64) (p->text[i++] - '0');
      if (i == start || v > G_MAXUINT32 || !token_ends (p, i))
        {
          km_parse_error_set (error, KM_PARSE_ERROR_INVALID, p->path, pos_at (p, start),
                              _("expected a non-negative integer"));
          return FALSE;
        }
      if (limits != NULL)
        {
          guint32 limit = limits[out->len % n_limits];

          if (v >= limit)
            {
              km_parse_error_set (error, KM_PARSE_ERROR_INVALID, p->path, pos_at (p, start),
                                  _("expected an index below %u (the size of the source "
                                    "it indexes), found %llu"), limit, (unsigned long long) v);
              return FALSE;
            }
        }
      {
        guint32 u = (guint32) v;

        g_array_append_val (out, u);
      }
    }
  return TRUE;
}

static gboolean
attr_uint (Parser      *p,
           Elem        *e,
           const char  *name,
           guint        fallback,
           gboolean     required,
           guint       *out,
           GError     **error)
{
  const char *value = attr (e, name);
  guint64 v;
  char *end;

  if (value == NULL)
    {
      if (required)
        {
          /* Translators: the first %s is an XML attribute name, the second an element. */
          km_parse_error_set (error, KM_PARSE_ERROR_INVALID, p->path, elem_pos (p, e),
                              _("expected a “%s” attribute on <%s>"), name, e->name);
          return FALSE;
        }
      *out = fallback;
      return TRUE;
    }
  while (g_ascii_isspace (*value))
    value++;
  errno = 0;
  v = g_ascii_strtoull (value, &end, 10);
  while (g_ascii_isspace (*end))
    end++;
  if (!g_ascii_isdigit (*value) || *end != '\0' || errno != 0 || v > G_MAXUINT32)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_INVALID, p->path, attr_pos (p, e, name),
                          _("expected a non-negative integer in “%s”"), name);
      return FALSE;
    }
  *out = (guint) v;
  return TRUE;
}

/* ---- references --------------------------------------------------------------------- */

/* The element that attribute @name of @e refers to by "#id"; it must be a <@kind>. */
static Elem *
resolve (Parser      *p,
         Elem        *e,
         const char  *name,
         const char  *kind,
         GError     **error)
{
  const char *url = attr (e, name);
  Elem *target;

  if (url == NULL)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_INVALID, p->path, elem_pos (p, e),
                          _("expected a “%s” attribute on <%s>"), name, e->name);
      return NULL;
    }
  if (url[0] != '#')
    {
      km_parse_error_set (error, KM_PARSE_ERROR_INVALID, p->path, attr_pos (p, e, name),
                          _("expected a reference “#id” to an element of this file (other "
                            "files are not read), found “%s”"), url);
      return NULL;
    }
  target = g_hash_table_lookup (p->ids, url + 1);
  if (target == NULL || !g_str_equal (target->name, kind))
    {
      /* Translators: the first %s is an id, the second an element name. */
      km_parse_error_set (error, KM_PARSE_ERROR_INVALID, p->path, attr_pos (p, e, name),
                          _("expected the id of a <%s>, “%s” is none"), kind, url + 1);
      return NULL;
    }
  return target;
}

/* ---- sources ------------------------------------------------------------------------ */

static void
float_array_free (gpointer data)
{
  FloatArray *a = data;

  g_free (a->values);
  g_free (a);
}

static FloatArray *
float_array (Parser  *p,
             Elem    *e,
             GError **error)
{
  FloatArray *a = g_hash_table_lookup (p->arrays, e);
  g_autoptr(GArray) values = NULL;
  guint count;

  if (a != NULL)
    return a;
  if (!attr_uint (p, e, "count", 0, TRUE, &count, error))
    return NULL;
  values = g_array_new (FALSE, FALSE, sizeof (float));
  if (!read_numbers (p, e, TRUE, 0, values, error))
    return NULL;
  if (values->len != count)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_INVALID, p->path, attr_pos (p, e, "count"),
                          _("expected %u numbers as “count” says, found %u"), count,
                          values->len);
      return NULL;
    }
  a = g_new0 (FloatArray, 1);
  a->n = values->len;
  a->values = (float *) g_array_free (g_steal_pointer (&values), FALSE);
  g_hash_table_insert (p->arrays, e, a);
  return a;
}

/* The <source> that @input's "source" names, read as 3-vectors. */
static gboolean
vector_source (Parser  *p,
               Elem    *input,
               Source  *out,
               GError **error)
{
  Elem *source = resolve (p, input, "source", "source", error);
  Elem *accessor, *array_elem;
  FloatArray *array;
  guint count, stride, offset;

  if (source == NULL)
    return FALSE;
  accessor = child (child (source, "technique_common"), "accessor");
  if (accessor == NULL)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_INVALID, p->path, elem_pos (p, source),
                          _("expected <technique_common><accessor> in <source>"));
      return FALSE;
    }
  if (!attr_uint (p, accessor, "count", 0, TRUE, &count, error) ||
      !attr_uint (p, accessor, "stride", 1, FALSE, &stride, error) ||
      !attr_uint (p, accessor, "offset", 0, FALSE, &offset, error))
    return FALSE;
  if (stride < 3)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_INVALID, p->path,
                          attr_pos (p, accessor, "stride"),
                          _("expected a stride of at least 3 for x, y and z values"));
      return FALSE;
    }
  if (attr (accessor, "source") != NULL)
    array_elem = resolve (p, accessor, "source", "float_array", error);
  else
    {
      array_elem = child (source, "float_array");
      if (array_elem == NULL)
        km_parse_error_set (error, KM_PARSE_ERROR_INVALID, p->path, elem_pos (p, source),
                            _("expected a <float_array> in <source>"));
    }
  if (array_elem == NULL)
    return FALSE;
  array = float_array (p, array_elem, error);
  if (array == NULL)
    return FALSE;
  if (count > 0 && (guint64) offset + (guint64) (count - 1) * stride + 3 > array->n)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_INVALID, p->path,
                          attr_pos (p, accessor, "count"),
                          _("expected an accessor within its array: %u items of stride %u "
                            "from offset %u need %llu numbers, the array has %u"),
                          count, stride, offset,
                          (unsigned long long) offset + (unsigned long long) (count - 1) * stride
                          + 3, array->n);
      return FALSE;
    }
  *out = (Source) { array->values, count, stride, offset };
  return TRUE;
}

static KmVec3
source_vec3 (const Source *s,
             guint32       index)
{
  const float *v = s->values + s->offset + (gsize) index * s->stride;

  return km_vec3 (v[0], v[1], v[2]);
}

/* ---- primitives --------------------------------------------------------------------- */

typedef struct
{
  Parser   *p;
  Elem     *prim;
  Source    pos;
  Source    nrm;
  gboolean  has_normals;
  guint     stride;        /* indices per corner */
  guint     pos_offset;
  guint     nrm_offset;
  guint32  *first;         /* per position: first vertex made from it, or G_MAXUINT32 */
  GArray   *pos_index;     /* per vertex: its position index */
  GArray   *next;          /* per vertex: the next vertex with the same position */
  GArray   *nrm_index;     /* per vertex: its normal index */
  GArray   *vertices;      /* float × 3 */
  GArray   *normals;       /* float × 3 */
  GArray   *triangles;     /* guint32 × 3 */
} Builder;

static gboolean
corner_vertex (Builder      *b,
               const guint32 *corner,
               guint32       *out,
               GError       **error)
{
  guint32 vi = corner[b->pos_offset];
  guint32 ni = b->has_normals ? corner[b->nrm_offset] : 0;
  guint32 v = b->first[vi];
  guint steps = 0;

  /* A short chain of the vertices already made from this position (one per normal);
   * past a few, a new vertex is made rather than searching further. */
  for (; v != G_MAXUINT32 && steps < 16; v = g_array_index (b->next, guint32, v), steps++)
    if (g_array_index (b->nrm_index, guint32, v) == ni)
      {
        *out = v;
        return TRUE;
      }
  if (b->vertices->len / 3 >= KM_MESH_MAX_VERTICES)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, b->p->path, elem_pos (b->p, b->prim),
                          _("too many vertices (at most %u)"), KM_MESH_MAX_VERTICES);
      return FALSE;
    }
  v = b->vertices->len / 3;
  {
    KmVec3 q = source_vec3 (&b->pos, vi);
    float f[3] = { (float) q.x, (float) q.y, (float) q.z };

    g_array_append_vals (b->vertices, f, 3);
  }
  if (b->has_normals)
    {
      KmVec3 q = km_vec3_normalize (source_vec3 (&b->nrm, ni));
      float f[3] = { (float) q.x, (float) q.y, (float) q.z };

      g_array_append_vals (b->normals, f, 3);
    }
  g_array_append_val (b->nrm_index, ni);
  g_array_append_val (b->pos_index, vi);
  g_array_append_val (b->next, b->first[vi]);
  b->first[vi] = v;
  *out = v;
  return TRUE;
}

typedef enum
{
  POLY_FAN,
  POLY_STRIP,
} PolyKind;

/* One polygon (a fan) or strip of @n corners starting at @idx. */
static gboolean
add_polygon (Builder       *b,
             const guint32 *idx,
             guint          n,
             PolyKind       kind,
             GError       **error)
{
  guint32 first = 0, prev = 0, prev2 = 0;

  for (guint k = 0; k < n; k++)
    {
      guint32 v;

      if (!corner_vertex (b, idx + (gsize) k * b->stride, &v, error))
        return FALSE;
      if (k >= 2)
        {
          guint32 tri[3];

          if (++b->p->n_triangles > KM_MESH_MAX_TRIANGLES)
            {
              km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, b->p->path,
                                  elem_pos (b->p, b->prim),
                                  _("too many triangles (at most %u)"), KM_MESH_MAX_TRIANGLES);
              return FALSE;
            }
          if (kind == POLY_FAN)
            {
              tri[0] = first;
              tri[1] = prev;
              tri[2] = v;
            }
          else
            {
              /* Every other triangle of a strip is wound the other way round. */
              tri[0] = k % 2 == 0 ? prev2 : prev;
              tri[1] = k % 2 == 0 ? prev : prev2;
              tri[2] = v;
            }
          g_array_append_vals (b->triangles, tri, 3);
        }
      if (k == 0)
        first = v;
      prev2 = prev;
      prev = v;
    }
  return TRUE;
}

/* The indices of one <p>, checked to be whole corners. */
static gboolean
read_p (Builder  *b,
        Elem     *pe,
        guint32  *limits,
        GArray   *out,
        GError  **error)
{
  g_array_set_size (out, 0);
  if (!read_indices (b->p, pe, limits, b->stride, out, error))
    return FALSE;
  if (out->len % b->stride != 0)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_INVALID, b->p->path, elem_pos (b->p, pe),
                          _("expected a multiple of %u indices in <p> (one per input "
                            "offset), found %u"), b->stride, out->len);
      return FALSE;
    }
  return TRUE;
}

static gboolean
count_error (Parser      *p,
             Elem        *prim,
             guint        count,
             guint        found,
             GError     **error)
{
  /* Translators: %s is an element name such as “triangles”. */
  km_parse_error_set (error, KM_PARSE_ERROR_INVALID, p->path, attr_pos (p, prim, "count"),
                      _("expected %u as “count” of <%s> says, found %u"), count, prim->name,
                      found);
  return FALSE;
}

static gboolean
build_primitive (Parser   *p,
                 Elem     *prim,
                 Part    **out,
                 GError  **error)
{
  Builder b = { .p = p, .prim = prim };
  Elem *vertex_input = NULL, *normal_input = NULL, *vertices, *position = NULL;
  Elem *vertex_normal = NULL;
  g_autofree guint32 *limits = NULL;
  g_autoptr(GArray) idx = g_array_new (FALSE, FALSE, sizeof (guint32));
  guint count = 0, max_offset = 0;
  gboolean has_count = attr (prim, "count") != NULL;
  gboolean ok = FALSE;

  *out = NULL;
  for (Elem *c = prim->first; c != NULL; c = c->next)
    {
      const char *semantic;
      guint offset;

      if (!g_str_equal (c->name, "input"))
        continue;
      if (!attr_uint (p, c, "offset", 0, FALSE, &offset, error))
        return FALSE;
      if (offset >= MAX_INPUT_OFFSET)
        {
          km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, p->path, attr_pos (p, c, "offset"),
                              _("expected an input offset below %d"), MAX_INPUT_OFFSET);
          return FALSE;
        }
      max_offset = MAX (max_offset, offset);
      semantic = attr (c, "semantic");
      if (g_strcmp0 (semantic, "VERTEX") == 0 && vertex_input == NULL)
        {
          vertex_input = c;
          b.pos_offset = offset;
        }
      else if (g_strcmp0 (semantic, "NORMAL") == 0 && normal_input == NULL)
        {
          normal_input = c;
          b.nrm_offset = offset;
        }
    }
  if (vertex_input == NULL)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_INVALID, p->path, elem_pos (p, prim),
                          _("expected an <input semantic=\"VERTEX\"> in <%s>"), prim->name);
      return FALSE;
    }
  b.stride = max_offset + 1;
  vertices = resolve (p, vertex_input, "source", "vertices", error);
  if (vertices == NULL)
    return FALSE;
  for (Elem *c = vertices->first; c != NULL; c = c->next)
    if (g_str_equal (c->name, "input"))
      {
        const char *semantic = attr (c, "semantic");

        if (g_strcmp0 (semantic, "POSITION") == 0 && position == NULL)
          position = c;
        else if (g_strcmp0 (semantic, "NORMAL") == 0 && vertex_normal == NULL)
          vertex_normal = c;
      }
  if (position == NULL)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_INVALID, p->path, elem_pos (p, vertices),
                          _("expected an <input semantic=\"POSITION\"> in <vertices>"));
      return FALSE;
    }
  if (!vector_source (p, position, &b.pos, error))
    return FALSE;

  limits = g_new (guint32, b.stride);
  for (guint i = 0; i < b.stride; i++)
    limits[i] = G_MAXUINT32;
  limits[b.pos_offset] = b.pos.count;
  if (normal_input != NULL)
    {
      if (!vector_source (p, normal_input, &b.nrm, error))
        return FALSE;
      b.has_normals = TRUE;
      limits[b.nrm_offset] = MIN (limits[b.nrm_offset], b.nrm.count);
    }
  else if (vertex_normal != NULL)
    {
      if (!vector_source (p, vertex_normal, &b.nrm, error))
        return FALSE;
      b.has_normals = TRUE;
      b.nrm_offset = b.pos_offset;
      limits[b.pos_offset] = MIN (b.pos.count, b.nrm.count);
    }

  if (has_count && !attr_uint (p, prim, "count", 0, TRUE, &count, error))
    return FALSE;

  /* One map for all primitives, so that many primitives on a large source do not each
   * clear a large map: only the entries a primitive set are reset after it. */
  if (p->first_len < b.pos.count)
    {
      g_free (p->first);
      p->first = g_new (guint32, b.pos.count);
      memset (p->first, 0xff, sizeof (guint32) * b.pos.count);
      p->first_len = b.pos.count;
    }
  b.first = p->first;
  b.pos_index = g_array_new (FALSE, FALSE, sizeof (guint32));
  b.next = g_array_new (FALSE, FALSE, sizeof (guint32));
  b.nrm_index = g_array_new (FALSE, FALSE, sizeof (guint32));
  b.vertices = g_array_new (FALSE, FALSE, sizeof (float));
  b.normals = g_array_new (FALSE, FALSE, sizeof (float));
  b.triangles = g_array_new (FALSE, FALSE, sizeof (guint32));

  if (g_str_equal (prim->name, "triangles"))
    {
      guint corners = 0;

      for (Elem *c = prim->first; c != NULL; c = c->next)
        {
          if (!g_str_equal (c->name, "p"))
            continue;
          if (!read_p (&b, c, limits, idx, error))
            goto out;
          if (idx->len / b.stride % 3 != 0)
            {
              km_parse_error_set (error, KM_PARSE_ERROR_INVALID, p->path, elem_pos (p, c),
                                  _("expected whole triangles in <p>: a multiple of 3 × %u "
                                    "indices, found %u"), b.stride, idx->len);
              goto out;
            }
          corners += idx->len / b.stride;
          for (guint k = 0; k < idx->len / b.stride; k += 3)
            if (!add_polygon (&b, (guint32 *) idx->data + (gsize) k * b.stride, 3, POLY_FAN,
                              error))
              goto out;
        }
      if (has_count && corners / 3 != count)
        {
          count_error (p, prim, count, corners / 3, error);
          goto out;
        }
    }
  else if (g_str_equal (prim->name, "polylist"))
    {
      Elem *vcount_elem = child (prim, "vcount"), *pe = child (prim, "p");
      g_autoptr(GArray) vcount = g_array_new (FALSE, FALSE, sizeof (guint32));
      guint64 total = 0;
      gsize at = 0;

      if (vcount_elem != NULL && !read_indices (p, vcount_elem, NULL, 0, vcount, error))
        goto out;
      if (has_count && vcount->len != count)
        {
          count_error (p, prim, count, vcount->len, error);
          goto out;
        }
      if (pe != NULL && !read_p (&b, pe, limits, idx, error))
        goto out;
      for (guint i = 0; i < vcount->len && total <= G_MAXUINT32; i++)
        total += g_array_index (vcount, guint32, i);
      if (total > G_MAXUINT32 || total * b.stride != idx->len)
        {
          km_parse_error_set (error, KM_PARSE_ERROR_INVALID, p->path,
                              elem_pos (p, pe ? pe : prim),
                              /* (not G_GUINT64_FORMAT: xgettext cannot see through it) */
                              _("expected %llu indices in <p> (the sum of <vcount> × %u "
                                "inputs), found %u"), (unsigned long long) (total * b.stride),
                              b.stride, idx->len);
          goto out;
        }
      for (guint i = 0; i < vcount->len; i++)
        {
          guint n = g_array_index (vcount, guint32, i);

          if (!add_polygon (&b, (guint32 *) idx->data + at, n, POLY_FAN, error))
            goto out;
          at += (gsize) n * b.stride;
        }
    }
  else
    {
      /* <polygons>, <trifans>, <tristrips>: one polygon, fan or strip per <p>. */
      PolyKind kind = g_str_equal (prim->name, "tristrips") ? POLY_STRIP : POLY_FAN;
      guint n_p = 0;

      for (Elem *c = prim->first; c != NULL; c = c->next)
        {
          Elem *pe = c;

          if (g_str_equal (c->name, "ph"))
            {
              pe = child (c, "p");
              if (child (c, "h") != NULL)
                warn_once (p, elem_pos (p, c),
                           _("holes (<h> in <ph>) are not cut out of polygons"));
              if (pe == NULL)
                continue;
            }
          else if (!g_str_equal (c->name, "p"))
            continue;
          n_p++;
          if (!read_p (&b, pe, limits, idx, error) ||
              !add_polygon (&b, (guint32 *) idx->data, idx->len / b.stride, kind, error))
            goto out;
        }
      if (has_count && n_p != count)
        {
          count_error (p, prim, count, n_p, error);
          goto out;
        }
    }

  if (b.triangles->len > 0)
    {
      const char *material = attr (prim, "material");
      guint nv = b.vertices->len / 3, nt = b.triangles->len / 3;
      KmMesh *mesh;

      mesh = km_mesh_new_take ((float *) g_array_free (g_steal_pointer (&b.vertices), FALSE),
                               nv,
                               b.has_normals ?
                               (float *) g_array_free (g_steal_pointer (&b.normals), FALSE) :
                               NULL,
                               (guint32 *) g_array_free (g_steal_pointer (&b.triangles), FALSE),
                               nt, error);
      if (mesh == NULL)
        {
          KmSourcePos pos = elem_pos (p, prim);

          km_parse_error_prefix (error, p->path, pos);
          goto out;
        }
      *out = g_new0 (Part, 1);
      (*out)->mesh = mesh;
      (*out)->material = g_strdup (material);
    }
  ok = TRUE;

out:
  for (guint i = 0; i < b.pos_index->len; i++)
    b.first[g_array_index (b.pos_index, guint32, i)] = G_MAXUINT32;
  g_clear_pointer (&b.pos_index, g_array_unref);
  g_clear_pointer (&b.next, g_array_unref);
  g_clear_pointer (&b.nrm_index, g_array_unref);
  g_clear_pointer (&b.vertices, g_array_unref);
  g_clear_pointer (&b.normals, g_array_unref);
  g_clear_pointer (&b.triangles, g_array_unref);
  return ok;
}

static void
part_free (gpointer data)
{
  Part *part = data;

  km_mesh_unref (part->mesh);
  g_free (part->material);
  g_free (part);
}

/* The parts of a <geometry>, built once; an empty array for geometry that is not drawn. */
static GPtrArray *
geometry_parts (Parser  *p,
                Elem    *geometry,
                GError **error)
{
  GPtrArray *parts = g_hash_table_lookup (p->geometries, geometry);
  Elem *mesh;

  if (parts != NULL)
    return parts;
  parts = g_ptr_array_new_with_free_func (part_free);
  g_hash_table_insert (p->geometries, geometry, parts);
  mesh = child (geometry, "mesh");
  if (mesh == NULL)
    {
      warn_once (p, elem_pos (p, geometry),
                 _("only <mesh> geometry is drawn (not <convex_mesh>, <spline> or <brep>)"));
      return parts;
    }
  for (Elem *c = mesh->first; c != NULL; c = c->next)
    {
      Part *part = NULL;

      if (!g_str_equal (c->name, "triangles") && !g_str_equal (c->name, "polylist") &&
          !g_str_equal (c->name, "polygons") && !g_str_equal (c->name, "trifans") &&
          !g_str_equal (c->name, "tristrips"))
        continue;   /* source, vertices, lines, linestrips */
      if (!build_primitive (p, c, &part, error))
        return NULL;
      if (part != NULL)
        g_ptr_array_add (parts, part);
    }
  return parts;
}

/* ---- materials ---------------------------------------------------------------------- */

static gboolean
read_color (Parser   *p,
            Elem     *color,
            KmColor  *out,
            GError  **error)
{
  g_autoptr(GArray) v = g_array_new (FALSE, FALSE, sizeof (double));

  if (!read_numbers (p, color, FALSE, 4, v, error))
    return FALSE;
  if (v->len != 3 && v->len != 4)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_INVALID, p->path, elem_pos (p, color),
                          _("expected 3 or 4 numbers in <color>, found %u"), v->len);
      return FALSE;
    }
  out->r = (float) CLAMP (g_array_index (v, double, 0), 0, 1);
  out->g = (float) CLAMP (g_array_index (v, double, 1), 0, 1);
  out->b = (float) CLAMP (g_array_index (v, double, 2), 0, 1);
  out->a = v->len == 4 ? (float) CLAMP (g_array_index (v, double, 3), 0, 1) : 1.0f;
  return TRUE;
}

static gboolean
material_color_read (Parser   *p,
                     Elem     *material,
                     KmColor  *out,
                     GError  **error)
{
  Elem *instance = child (material, "instance_effect");
  Elem *effect, *technique, *shader = NULL, *diffuse, *color;

  *out = KM_COLOR_DEFAULT;
  if (instance == NULL)
    return TRUE;
  effect = resolve (p, instance, "url", "effect", error);
  if (effect == NULL)
    return FALSE;
  technique = child (child (effect, "profile_COMMON"), "technique");
  if (technique == NULL)
    return TRUE;
  for (Elem *c = technique->first; c != NULL && shader == NULL; c = c->next)
    if (g_str_equal (c->name, "phong") || g_str_equal (c->name, "lambert") ||
        g_str_equal (c->name, "blinn") || g_str_equal (c->name, "constant"))
      shader = c;
  if (shader == NULL)
    return TRUE;
  diffuse = child (shader, g_str_equal (shader->name, "constant") ? "emission" : "diffuse");
  color = child (diffuse, "color");
  if (color != NULL && !read_color (p, color, out, error))
    return FALSE;

  {
    Elem *transparent = child (shader, "transparent");
    Elem *transparency = child (child (shader, "transparency"), "float");

    if (transparent != NULL && transparency != NULL && child (transparent, "color") != NULL)
      {
        KmColor tc;
        double factor, alpha;

        if (!read_color (p, child (transparent, "color"), &tc, error) ||
            !read_doubles (p, transparency, &factor, 1, error))
          return FALSE;
        if (g_strcmp0 (attr (transparent, "opaque"), "RGB_ZERO") == 0)
          alpha = 1 - CLAMP (factor, 0, 1) * (0.2126 * tc.r + 0.7152 * tc.g + 0.0722 * tc.b);
        else
          alpha = tc.a * CLAMP (factor, 0, 1);
        /* Fully transparent: an exporter of the inverted convention; drawn opaque. */
        if (alpha > 0.001)
          out->a = (float) (out->a * alpha);
      }
  }
  return TRUE;
}

static gboolean
material_color (Parser   *p,
                Elem     *material,
                KmColor  *out,
                GError  **error)
{
  KmColor *cached = g_hash_table_lookup (p->colors, material);

  if (cached == NULL)
    {
      KmColor color;

      if (!material_color_read (p, material, &color, error))
        return FALSE;
      cached = g_memdup2 (&color, sizeof color);
      g_hash_table_insert (p->colors, material, cached);
    }
  *out = *cached;
  return TRUE;
}

static gboolean
walk_limit (Parser  *p,
            Elem    *at,
            GError **error)
{
  km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, p->path, elem_pos (p, at),
                      _("the scene expands to too many nodes (at most %d steps, every "
                        "<instance_node> counted again)"), MAX_WALK_STEPS);
  return FALSE;
}

/* The colour of primitives with material @symbol in @instance (an <instance_geometry>,
 * or NULL when drawing without a scene: the symbol is then tried as a material id). */
static gboolean
part_color (Parser      *p,
            Elem        *instance,
            const char  *symbol,
            KmColor     *out,
            GError     **error)
{
  Elem *technique = child (child (instance, "bind_material"), "technique_common");

  *out = KM_COLOR_DEFAULT;
  if (symbol == NULL)
    return TRUE;
  if (instance == NULL)
    {
      Elem *material = g_hash_table_lookup (p->ids, symbol);

      if (material != NULL && g_str_equal (material->name, "material"))
        return material_color (p, material, out, error);
      return TRUE;
    }
  if (technique == NULL)
    return TRUE;
  for (Elem *c = technique->first; c != NULL; c = c->next)
    {
      if (++p->n_steps > MAX_WALK_STEPS)
        return walk_limit (p, c, error);
      if (g_str_equal (c->name, "instance_material") &&
          g_strcmp0 (attr (c, "symbol"), symbol) == 0)
        {
          const char *target = attr (c, "target");
          Elem *material = target != NULL && target[0] == '#' ?
                           g_hash_table_lookup (p->ids, target + 1) : NULL;

          /* A binding to a material that is not there (exporters leave them when the
           * library is emptied) costs the colour, not the geometry. */
          if (material == NULL || !g_str_equal (material->name, "material"))
            {
              g_autofree char *message =
                g_strdup_printf (_("expected “target” to be the “#id” of a <material> of this "
                                   "file, found “%s”; the default colour is used"),
                                 target != NULL ? target : "");

              warn_once (p, attr_pos (p, c, "target"), message);
              return TRUE;
            }
          return material_color (p, material, out, error);
        }
    }
  return TRUE;
}

/* ---- scene -------------------------------------------------------------------------- */

static gboolean
add_instance (Parser          *p,
              Elem            *instance,
              Elem            *geometry,
              const char      *name,
              const KmAffine  *m,
              GPtrArray       *shapes,
              GError         **error)
{
  GPtrArray *parts = geometry_parts (p, geometry, error);
  gboolean finite = km_vec3_is_finite (m->t);

  if (parts == NULL)
    return FALSE;
  for (int r = 0; r < 3; r++)
    finite = finite && km_vec3_is_finite (km_vec3 (m->lin.m[r][0], m->lin.m[r][1],
                                                   m->lin.m[r][2]));
  if (!finite)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_INVALID, p->path,
                          elem_pos (p, instance ? instance : geometry),
                          _("expected node transformations that multiply to finite numbers"));
      return FALSE;
    }
  for (guint i = 0; i < parts->len; i++)
    {
      Part *part = g_ptr_array_index (parts, i);
      g_autoptr(KmShape) shape = NULL;

      if (++p->n_shapes > MAX_SHAPES)
        {
          km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, p->path,
                              elem_pos (p, instance ? instance : geometry),
                              _("too many shapes (at most %d)"), MAX_SHAPES);
          return FALSE;
        }
      shape = km_shape_new_mesh (part->mesh);
      if (!part_color (p, instance, part->material, &shape->color, error))
        return FALSE;
      if (name != NULL)
        km_shape_set_name (shape, name);
      if (!_km_shape_place (shape, m, &p->n_baked, p->path,
                            elem_pos (p, instance ? instance : geometry), error))
        return FALSE;
      g_ptr_array_add (shapes, g_steal_pointer (&shape));
    }
  return TRUE;
}

/* Applies one transformation element to @m; FALSE with @error set on bad numbers. */
static gboolean
apply_transform (Parser    *p,
                 Elem      *e,
                 KmAffine  *m,
                 GError   **error)
{
  KmAffine local, tmp;
  double v[16];

  _km_affine_identity (&local);
  if (g_str_equal (e->name, "matrix"))
    {
      if (!read_doubles (p, e, v, 16, error))
        return FALSE;
      for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
          local.lin.m[r][c] = v[r * 4 + c];
      local.t = km_vec3 (v[3], v[7], v[11]);
    }
  else if (g_str_equal (e->name, "translate"))
    {
      if (!read_doubles (p, e, v, 3, error))
        return FALSE;
      local.t = km_vec3 (v[0], v[1], v[2]);
    }
  else if (g_str_equal (e->name, "rotate"))
    {
      KmVec3 axis;

      if (!read_doubles (p, e, v, 4, error))
        return FALSE;
      axis = km_vec3 (v[0], v[1], v[2]);
      if (km_vec3_length (axis) > 0)
        km_mat3_from_axis_angle (km_vec3_normalize (axis), km_deg_to_rad (v[3]), &local.lin);
    }
  else if (g_str_equal (e->name, "scale"))
    {
      if (!read_doubles (p, e, v, 3, error))
        return FALSE;
      for (int k = 0; k < 3; k++)
        local.lin.m[k][k] = v[k];
    }
  else if (g_str_equal (e->name, "lookat") || g_str_equal (e->name, "skew"))
    {
      /* Translators: %s is an element name, “lookat” or “skew”. */
      g_autofree char *message = g_strdup_printf (_("<%s> transformations are ignored"),
                                                  e->name);

      warn_once (p, elem_pos (p, e), message);
      return TRUE;
    }
  else
    return TRUE;
  tmp = *m;
  _km_affine_mul (&tmp, &local, m);
  return TRUE;
}

static gboolean
walk_node (Parser          *p,
           Elem            *node,
           const KmAffine  *parent,
           guint            depth,
           GPtrArray       *shapes,
           GError         **error)
{
  const char *name = attr (node, "name") ? attr (node, "name") : attr (node, "id");
  KmAffine m = *parent;

  if (depth > KM_MESH_MAX_DEPTH)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, p->path, elem_pos (p, node),
                          _("nodes are nested too deeply (at most %d levels, counting "
                            "<instance_node>)"), KM_MESH_MAX_DEPTH);
      return FALSE;
    }
  if (++p->n_steps > MAX_WALK_STEPS)
    return walk_limit (p, node, error);
  {
    KmAffine *local = g_hash_table_lookup (p->locals, node);

    if (local == NULL)
      {
        local = g_new (KmAffine, 1);
        _km_affine_identity (local);
        g_hash_table_insert (p->locals, node, local);
        for (Elem *c = node->first; c != NULL; c = c->next)
          if (!apply_transform (p, c, local, error))
            return FALSE;
      }
    _km_affine_mul (parent, local, &m);
  }
  for (Elem *c = node->first; c != NULL; c = c->next)
    {
      if (++p->n_steps > MAX_WALK_STEPS)
        return walk_limit (p, c, error);
      if (g_str_equal (c->name, "node"))
        {
          if (!walk_node (p, c, &m, depth + 1, shapes, error))
            return FALSE;
        }
      else if (g_str_equal (c->name, "instance_node"))
        {
          Elem *target = resolve (p, c, "url", "node", error);

          if (target == NULL || !walk_node (p, target, &m, depth + 1, shapes, error))
            return FALSE;
        }
      else if (g_str_equal (c->name, "instance_geometry"))
        {
          Elem *geometry = resolve (p, c, "url", "geometry", error);

          if (geometry == NULL || !add_instance (p, c, geometry, name, &m, shapes, error))
            return FALSE;
        }
      else if (g_str_equal (c->name, "instance_controller"))
        warn_once (p, elem_pos (p, c),
                   _("skinned meshes (<instance_controller>) are not drawn"));
    }
  return TRUE;
}

static Elem *
visual_scene (Parser  *p,
              GError **error)
{
  Elem *instance = child (child (p->root, "scene"), "instance_visual_scene");

  if (instance != NULL)
    return resolve (p, instance, "url", "visual_scene", error);
  return child (child (p->root, "library_visual_scenes"), "visual_scene");
}

static gboolean
read_asset (Parser  *p,
            GError **error)
{
  Elem *asset = child (p->root, "asset");
  Elem *unit = child (asset, "unit"), *up = child (asset, "up_axis");
  double meter = 1;
  KmAffine scale;

  _km_affine_identity (&p->root_affine);
  if (unit != NULL && attr (unit, "meter") != NULL)
    {
      const char *value = attr (unit, "meter");
      char *end;
      gboolean ok = _km_ascii_strtod_finite (value, &end, &meter);

      while (g_ascii_isspace (*end))
        end++;
      if (!ok || *end != '\0' || !(meter > 0))
        {
          km_parse_error_set (error, KM_PARSE_ERROR_INVALID, p->path,
                              attr_pos (p, unit, "meter"),
                              _("expected a positive number of metres in “meter”"));
          return FALSE;
        }
    }
  if (up != NULL && up->content != G_MAXSIZE)
    {
      gsize i = up->content, start;

      skip_space (p, &i);
      start = i;
      while (i < p->length && !token_ends (p, i))
        i++;
      /* Checked, not applied: see the top of this file. */
      if (i - start != 4 || (strncmp (p->text + start, "X_UP", 4) != 0 &&
                             strncmp (p->text + start, "Y_UP", 4) != 0 &&
                             strncmp (p->text + start, "Z_UP", 4) != 0))
        {
          km_parse_error_set (error, KM_PARSE_ERROR_INVALID, p->path, pos_at (p, start),
                              _("expected X_UP, Y_UP or Z_UP in <up_axis>"));
          return FALSE;
        }
    }
  _km_affine_identity (&scale);
  for (int k = 0; k < 3; k++)
    scale.lin.m[k][k] = meter;
  _km_affine_mul (&p->root_affine, &scale, &p->root_affine);
  return TRUE;
}

static GPtrArray *
build (Parser  *p,
       GError **error)
{
  g_autoptr(GPtrArray) shapes = g_ptr_array_new_with_free_func ((GDestroyNotify) km_shape_unref);
  GError *local_error = NULL;
  Elem *scene;

  if (!read_asset (p, error))
    return NULL;
  scene = visual_scene (p, &local_error);
  if (local_error != NULL)
    {
      g_propagate_error (error, local_error);
      return NULL;
    }
  if (scene != NULL)
    {
      for (Elem *c = scene->first; c != NULL; c = c->next)
        if (g_str_equal (c->name, "node") &&
            !walk_node (p, c, &p->root_affine, 0, shapes, error))
          return NULL;
    }
  else
    {
      /* No scene: every geometry once, in the file's frame. */
      Elem *library = child (p->root, "library_geometries");

      for (Elem *c = library ? library->first : NULL; c != NULL; c = c->next)
        if (g_str_equal (c->name, "geometry") &&
            !add_instance (p, NULL, c, attr (c, "name") ? attr (c, "name") : attr (c, "id"),
                           &p->root_affine, shapes, error))
          return NULL;
    }
  return g_steal_pointer (&shapes);
}

/* ---- entry point -------------------------------------------------------------------- */

/**
 * km_mesh_load_collada:
 * @path: the path as given, for messages
 * @data: the file's bytes (need not be NUL-terminated)
 *
 * Reads a COLLADA 1.4 / 1.5 document (the subset described at the top of
 * km-mesh-collada.c): one shape per primitive element of each geometry instance of the
 * visual scene, in metres, in the file's own axes.
 *
 * Returns: (transfer full) (nullable): the shapes, or %NULL with @error set
 */
GPtrArray *
km_mesh_load_collada (const char  *path,
                      const char  *data,
                      gsize        length,
                      GError     **error)
{
  static const GMarkupParser parser_funcs = { start_element, end_element, NULL, NULL, NULL };
  g_autoptr(GMarkupParseContext) context = NULL;
  g_autofree char *text = NULL;
  g_autofree char *converted = NULL;
  GPtrArray *shapes = NULL;
  Parser p = { 0 };

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (data != NULL || length == 0, NULL);

  if (length > KM_MESH_MAX_FILE_SIZE)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, path, (KmSourcePos) { 0, 0 },
                          _("the file is larger than %u MiB"),
                          (guint) (KM_MESH_MAX_FILE_SIZE / (1024 * 1024)));
      return NULL;
    }
  /* UTF-16 (with its byte order mark, as XML requires) is converted first. */
  if (!_km_mesh_text_unmark (path, &data, &length, &converted, error))
    return NULL;
  text = km_markup_text_dup_utf8 (path, data, length, error);
  if (text == NULL)
    return NULL;
  p.path = path;
  km_markup_text_init (&p.markup, text, strlen (text));
  p.text = p.markup.text;
  p.length = p.markup.length;
  p.arena = g_ptr_array_new_with_free_func (elem_free);
  p.ids = g_hash_table_new (g_str_hash, g_str_equal);
  p.arrays = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, float_array_free);
  p.geometries = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
                                        (GDestroyNotify) g_ptr_array_unref);
  p.warned = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  p.locals = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  p.colors = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);

  context = g_markup_parse_context_new (&parser_funcs, 0, &p, NULL);
  if (!km_markup_text_check_prolog (&p.markup, path, error) ||
      !km_markup_text_parse (&p.markup, path, context, error))
    goto out;
  if (p.root == NULL)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_INVALID, path, (KmSourcePos) { 1, 1 },
                          _("expected a <COLLADA> element"));
      goto out;
    }
  shapes = build (&p, error);

out:
  km_markup_text_clear (&p.markup);
  g_hash_table_unref (p.warned);
  g_hash_table_unref (p.locals);
  g_hash_table_unref (p.colors);
  g_free (p.first);
  g_hash_table_unref (p.geometries);
  g_hash_table_unref (p.arrays);
  g_hash_table_unref (p.ids);
  g_ptr_array_unref (p.arena);
  return shapes;
}
