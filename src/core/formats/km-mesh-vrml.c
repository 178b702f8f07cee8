/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-mesh-vrml"

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "km-extrusion.h"
#include "km-mesh-loader.h"
#include "km-polygon.h"

#include "km-mesh-private.h"

/*
 * The VRML97 subset that model files use. The file is read into a small node graph
 * first (every field kept generically: a list of numbers or a list of nodes), so that
 * DEF/USE share nodes; then the graph is walked from the root (or from one DEF node) with
 * the accumulated Transform, giving one KmShape per Shape node. An IndexedFaceSet used
 * several times becomes one KmMesh shared by its shapes. Nodes we do not draw (lights,
 * sensors, PROTO instances, Inline…) are skipped with one warning per type.
 *
 * Model readers (OpenHRP bodies, km-openhrp.c) parse through _km_vrml_doc_parse instead:
 * PROTO interfaces are recorded with their field types and defaults, PROTO instances and
 * Inline nodes are kept as ordinary nodes, strings are kept, and an Inline's url is
 * loaded through the mesh cache when its subtree is walked.
 */

#define MAX_SHAPES 65536
/* Nodes visited while building shapes, each USE instance again: DEF/USE can nest
 * instances exponentially (a "billion laughs" of groups), so the walk is bounded. */
#define MAX_WALK_STEPS 1000000

/* The node graph (km-mesh-private.h): a value holds numbers, strings or nodes (borrowed
 * from the parser's arena); a node's mesh (IndexedFaceSet, Extrusion) is built once. */
typedef KmVrmlNode VNode;
typedef KmVrmlValue VValue;

typedef struct
{
  KmLexer     lx;
  GPtrArray  *arena;     /* VNode *, owned */
  GHashTable *defs;      /* name → VNode * */
  GHashTable *warned;    /* unknown type names already reported */
  guint       n_shapes;
  guint       n_steps;   /* nodes visited by walk */
  gsize       n_baked;   /* vertices copied to bake sheared instances */
  /* Model readers (_km_vrml_doc_parse): PROTO declarations by name (KmVrmlProto *), their
   * instances and Inline nodes kept; NULL for plain meshes. */
  GHashTable *protos;
  KmMeshCache *cache;    /* for Inline urls; borrowed, nullable */
  char       *converted; /* the text lexed, where the file was UTF-16 */
} VParser;

struct _KmVrmlDoc
{
  VParser     p;
  GPtrArray  *roots;     /* VNode * */
};

static void
value_free (gpointer data)
{
  VValue *v = data;

  g_clear_pointer (&v->numbers, g_array_unref);
  g_clear_pointer (&v->strings, g_ptr_array_unref);
  g_clear_pointer (&v->nodes, g_ptr_array_unref);
  g_free (v);
}

static void
vnode_free (gpointer data)
{
  VNode *n = data;

  g_free (n->type);
  g_free (n->def);
  g_hash_table_unref (n->fields);
  g_clear_pointer (&n->mesh, km_mesh_unref);
  g_free (n);
}

/* NaN and the infinities (any case), which strtod reads but VRML has no syntax for: taken
 * as numbers, so that they fail as "expected a finite number" where they stand instead of
 * being read as the next field's or node's name and failing later, elsewhere. Signed ones
 * already look like numbers. */
static gboolean
is_non_finite_word (KmLexer *lx)
{
  const char *t = lx->tok;
  gsize n = lx->tok_len;

  return (n == 3 && (g_ascii_strncasecmp (t, "nan", 3) == 0 ||
                     g_ascii_strncasecmp (t, "inf", 3) == 0)) ||
         (n == 8 && g_ascii_strncasecmp (t, "infinity", 8) == 0) ||
         (n > 4 && g_ascii_strncasecmp (t, "nan(", 4) == 0);
}

static gboolean
is_number_start (KmLexer *lx)
{
  char c = lx->tok_len > 0 ? lx->tok[0] : 0;

  return g_ascii_isdigit (c) || c == '-' || c == '+' || c == '.' || is_non_finite_word (lx);
}

/* Whether @type (nullable: unknown) may hold an integer in hexadecimal, "0x1F": VRML's
 * SFInt32 and SFImage may, the float types may not; an unknown type is given the doubt. */
static gboolean
allows_hexadecimal (const char *type)
{
  return type == NULL || ((type[0] == 'S' || type[0] == 'M') && type[1] == 'F' &&
                          (g_str_equal (type + 2, "Int32") || g_str_equal (type + 2, "Image")));
}

/* Whether the token is a number as VRML writes one: an optional sign, digits with an
 * optional fraction (one of them may be empty, not both) and exponent; where @type allows,
 * an integer in hexadecimal. g_ascii_strtod reads more: hexadecimal floats ("0x1p3") and,
 * in any field, hexadecimal integers. */
static gboolean
is_vrml_number (KmLexer    *lx,
                const char *type)
{
  const char *t = lx->tok;
  gsize n = lx->tok_len, i = 0, digits = 0;

  if (i < n && (t[i] == '+' || t[i] == '-'))
    i++;
  if (n - i > 2 && t[i] == '0' && (t[i + 1] == 'x' || t[i + 1] == 'X'))
    {
      if (!allows_hexadecimal (type))
        return FALSE;
      for (i += 2; i < n && g_ascii_isxdigit (t[i]); i++)
        digits++;
      return digits > 0 && i == n;
    }
  for (; i < n && g_ascii_isdigit (t[i]); i++)
    digits++;
  if (i < n && t[i] == '.')
    for (i++; i < n && g_ascii_isdigit (t[i]); i++)
      digits++;
  if (digits == 0)
    return FALSE;
  if (i < n && (t[i] == 'e' || t[i] == 'E'))
    {
      gsize exponent = 0;

      if (++i < n && (t[i] == '+' || t[i] == '-'))
        i++;
      for (; i < n && g_ascii_isdigit (t[i]); i++)
        exponent++;
      if (exponent == 0)
        return FALSE;
    }
  return i == n;
}

/* The current token as a number of a field of @type (nullable: unknown), or FALSE with
 * "expected a finite number" at it. */
static gboolean
read_number (KmLexer     *lx,
             const char  *type,
             double      *out,
             GError     **error)
{
  if (!is_vrml_number (lx, type))
    {
      km_parse_error_set (error, KM_PARSE_ERROR_SYNTAX, lx->path, _km_lexer_tok_pos (lx),
                          _("expected a finite number"));
      return FALSE;
    }
  return _km_lexer_number (lx, out, error);
}

/* Whether @type (nullable: unknown) holds strings: SFString or MFString. */
static gboolean
is_string_type (const char *type)
{
  return type != NULL && (type[0] == 'S' || type[0] == 'M') && type[1] == 'F' &&
         g_str_equal (type + 2, "String");
}

/* A bare word: not a string, not a bracket, not the end. */
static gboolean
is_word (KmLexer *lx)
{
  return lx->tok_len > 0 && lx->tok[0] != '\0' && strchr ("{}[]\"", lx->tok[0]) == NULL;
}

/* How many numbers one value of a numeric field type holds (SFVec3f 3, MFFloat 1…), 0 for
 * other types and for NULL (unknown). */
static guint
numeric_type_width (const char *type)
{
  static const struct
  {
    const char *name;
    guint       width;
  } types[] = {
    { "Float", 1 }, { "Double", 1 }, { "Int32", 1 }, { "Time", 1 }, { "Vec2f", 2 },
    { "Vec2d", 2 }, { "Vec3f", 3 }, { "Vec3d", 3 }, { "Color", 3 }, { "ColorRGBA", 4 },
    { "Rotation", 4 },
  };

  if (type == NULL || (type[0] != 'S' && type[0] != 'M') || type[1] != 'F')
    return 0;
  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    if (g_str_equal (type + 2, types[i].name))
      return types[i].width;
  return 0;
}

/* The numeric fields of the built-in nodes Kinema reads (VRML97 types). */
static const char *
builtin_field_type (const char *node_type,
                    const char *field)
{
  static const char * const fields[][3] = {
    { "Transform", "translation", "SFVec3f" },
    { "Transform", "rotation", "SFRotation" },
    { "Transform", "scale", "SFVec3f" },
    { "Transform", "scaleOrientation", "SFRotation" },
    { "Transform", "center", "SFVec3f" },
    { "Box", "size", "SFVec3f" },
    { "Sphere", "radius", "SFFloat" },
    { "Cylinder", "radius", "SFFloat" },
    { "Cylinder", "height", "SFFloat" },
    { "Cone", "bottomRadius", "SFFloat" },
    { "Cone", "height", "SFFloat" },
    { "Coordinate", "point", "MFVec3f" },
    { "Normal", "vector", "MFVec3f" },
    { "Color", "color", "MFColor" },
    { "TextureCoordinate", "point", "MFVec2f" },
    { "IndexedFaceSet", "coordIndex", "MFInt32" },
    { "IndexedFaceSet", "normalIndex", "MFInt32" },
    { "IndexedFaceSet", "colorIndex", "MFInt32" },
    { "IndexedFaceSet", "texCoordIndex", "MFInt32" },
    { "IndexedFaceSet", "creaseAngle", "SFFloat" },
    { "Material", "diffuseColor", "SFColor" },
    { "Material", "specularColor", "SFColor" },
    { "Material", "emissiveColor", "SFColor" },
    { "Material", "ambientIntensity", "SFFloat" },
    { "Material", "shininess", "SFFloat" },
    { "Material", "transparency", "SFFloat" },
    { "Extrusion", "crossSection", "MFVec2f" },
    { "Extrusion", "spine", "MFVec3f" },
    { "Extrusion", "scale", "MFVec2f" },
    { "Extrusion", "orientation", "MFRotation" },
    { "Extrusion", "creaseAngle", "SFFloat" },
    { "Switch", "whichChoice", "SFInt32" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
    if (g_str_equal (fields[i][0], node_type) && g_str_equal (fields[i][1], field))
      return fields[i][2];
  return NULL;
}

/* The declared type of a field of a PROTO instance or of a built-in node, or NULL. */
static const char *
field_type (VParser    *p,
            const char *node_type,
            const char *field)
{
  const KmVrmlProto *proto = p->protos != NULL ? g_hash_table_lookup (p->protos, node_type)
                                               : NULL;

  if (proto != NULL)
    return g_hash_table_lookup (proto->types, field);
  return builtin_field_type (node_type, field);
}

static gboolean parse_node (VParser *p, guint depth, VNode **out, GError **error);

/* A string token "…" without its quotes, \x read as x. */
static char *
unescape_string (const char *tok,
                 gsize       len)
{
  GString *s = g_string_sized_new (len);
  gsize end = len >= 2 && tok[len - 1] == '"' ? len - 1 : len;

  for (gsize i = 1; i < end; i++)
    {
      if (tok[i] == '\\' && i + 1 < end)
        i++;
      g_string_append_c (s, tok[i]);
    }
  return g_string_free (s, FALSE);
}

static gboolean
expect (VParser     *p,
        const char  *what,
        GError     **error)
{
  if (_km_lexer_is (&p->lx, what))
    return TRUE;
  km_parse_error_set (error, KM_PARSE_ERROR_SYNTAX, p->lx.path, _km_lexer_tok_pos (&p->lx),
                      _("expected “%s”"), what);
  return FALSE;
}

/* Skips a balanced [ … ] or { … } whose opening token is current. */
static gboolean
skip_balanced (VParser  *p,
               GError  **error)
{
  guint depth = 0;

  do
    {
      if (p->lx.tok_len == 1 && (p->lx.tok[0] == '[' || p->lx.tok[0] == '{'))
        {
          if (++depth > KM_MESH_MAX_DEPTH * 4)
            {
              km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, p->lx.path,
                                  _km_lexer_tok_pos (&p->lx), _("nested too deeply"));
              return FALSE;
            }
        }
      else if (p->lx.tok_len == 1 && (p->lx.tok[0] == ']' || p->lx.tok[0] == '}'))
        depth--;
      if (depth == 0)
        return TRUE;
    }
  while (_km_lexer_next (&p->lx));
  km_parse_error_set (error, KM_PARSE_ERROR_SYNTAX, p->lx.path, _km_lexer_tok_pos (&p->lx),
                      _("expected a closing bracket before the end of the file"));
  return FALSE;
}

/* Whether the current token names a field of @node_type (nullable) that Kinema knows. */
static gboolean
is_field_of (VParser    *p,
             const char *node_type)
{
  g_autofree char *word = NULL;

  if (node_type == NULL)
    return FALSE;
  word = g_strndup (p->lx.tok, p->lx.tok_len);
  return field_type (p, node_type, word) != NULL;
}

/* A field value, its first token current. Leaves the last token of the value current.
 * @type (nullable: unknown) is the type of the field @field of @node_type (nullable);
 * where it holds numbers, a word in a number's place fails there as not a number (but for
 * the name of the node's next field, which leaves the value short for the model reader to
 * say so; a string there is left to it too, its messages name the field). Where it holds
 * strings, a bare word fails there, naming the field: it would otherwise be taken for a
 * node's type, and fail at the token after it. (Numbers are let through: OpenHRP files
 * write a vector jointAxis into the PROTO's SFString, which the model reader takes.) */
static gboolean
parse_value (VParser     *p,
             guint        depth,
             const char  *node_type,
             const char  *field,
             const char  *type,
             VValue     **out,
             GError     **error)
{
  g_autoptr(GArray) numbers = NULL;
  g_autoptr(GPtrArray) strings = NULL;
  g_autoptr(GPtrArray) nodes = NULL;
  KmLexer *lx = &p->lx;
  gboolean list = _km_lexer_is (lx, "[");
  KmSourcePos pos = _km_lexer_tok_pos (lx);
  guint width = numeric_type_width (type);
  double ignored;

  if (list && !_km_lexer_next (lx))
    return expect (p, "]", error);
  for (;;)
    {
      if (list && _km_lexer_is (lx, "]"))
        break;
      if (lx->tok_len == 0)
        return expect (p, list ? "]" : "{", error);
      if (is_string_type (type) && is_word (lx) && !is_vrml_number (lx, type))
        {
          /* Translators: %s is a VRML field name (jointAxis, url…) */
          km_parse_error_set (error, KM_PARSE_ERROR_SYNTAX, lx->path, _km_lexer_tok_pos (lx),
                              _("expected %s to be a string in double quotes"), field);
          return FALSE;
        }
      if (width > 0 && is_word (lx) && !is_number_start (lx) && !_km_lexer_is (lx, "TRUE") &&
          !_km_lexer_is (lx, "FALSE"))
        return _km_lexer_number (lx, &ignored, error);
      if (is_number_start (lx) || _km_lexer_is (lx, "TRUE") || _km_lexer_is (lx, "FALSE"))
        {
          double v = 0;

          if (nodes != NULL)
            return expect (p, "]", error);
          if (numbers == NULL)
            numbers = g_array_new (FALSE, FALSE, sizeof (double));
          if (_km_lexer_is (lx, "TRUE"))
            v = 1;
          else if (!_km_lexer_is (lx, "FALSE") && !read_number (lx, type, &v, error))
            return FALSE;
          g_array_append_val (numbers, v);
          if (!list)
            {
              /* SFVec3f and friends: a run of numbers on the field; a known type's
               * first value must be whole. */
              KmLexer save = *lx;

              while (_km_lexer_next (lx) &&
                     (is_number_start (lx) ||
                      (numbers->len < width && is_word (lx) && !is_field_of (p, node_type))))
                {
                  if (!read_number (lx, type, &v, error))
                    return FALSE;
                  g_array_append_val (numbers, v);
                  save = *lx;
                }
              *lx = save;
              break;
            }
        }
      else if (lx->tok[0] == '"')
        {
          /* Strings (url, jointType…): kept for model readers, unescaped. */
          if (p->protos != NULL)
            {
              if (strings == NULL)
                strings = g_ptr_array_new_with_free_func (g_free);
              g_ptr_array_add (strings, unescape_string (lx->tok, lx->tok_len));
            }
          if (!list)
            break;
        }
      else
        {
          VNode *node = NULL;

          if (numbers != NULL)
            return expect (p, "]", error);
          if (!parse_node (p, depth + 1, &node, error))
            return FALSE;
          if (nodes == NULL)
            nodes = g_ptr_array_new ();
          if (node != NULL)
            g_ptr_array_add (nodes, node);
          if (!list)
            break;
        }
      if (!_km_lexer_next (lx))
        return expect (p, "]", error);
    }

  *out = g_new0 (VValue, 1);
  (*out)->numbers = g_steal_pointer (&numbers);
  (*out)->strings = g_steal_pointer (&strings);
  (*out)->nodes = g_steal_pointer (&nodes);
  (*out)->pos = pos;
  return TRUE;
}

static gboolean
known_type (const char *type)
{
  static const char * const types[] = {
    "Transform", "Group", "Collision", "Anchor", "Billboard", "Switch", "LOD", "Shape",
    "Appearance", "Material", "IndexedFaceSet", "Coordinate", "Box", "Sphere", "Cylinder",
    "Cone", "Normal", "TextureCoordinate", "ImageTexture", "TextureTransform", "Color",
    "Extrusion",
  };

  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    if (g_str_equal (types[i], type))
      return TRUE;
  return FALSE;
}

/* A node, its first token (DEF, USE, NULL or the type name) current. *out may be NULL for
 * NULL and for skipped nodes. */
static gboolean
parse_node (VParser  *p,
            guint     depth,
            VNode   **out,
            GError  **error)
{
  KmLexer *lx = &p->lx;
  g_autofree char *def = NULL;
  KmSourcePos def_pos = { 0, 0 };
  VNode *node;

  *out = NULL;
  if (depth > KM_MESH_MAX_DEPTH)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, lx->path, _km_lexer_tok_pos (lx),
                          _("nodes are nested too deeply (at most %d levels)"),
                          KM_MESH_MAX_DEPTH);
      return FALSE;
    }
  if (_km_lexer_is (lx, "NULL"))
    return TRUE;
  if (_km_lexer_is (lx, "USE"))
    {
      g_autofree char *name = NULL;

      _km_lexer_next (lx);
      name = g_strndup (lx->tok, lx->tok_len);
      *out = g_hash_table_lookup (p->defs, name);
      if (*out == NULL)
        {
          km_parse_error_set (error, KM_PARSE_ERROR_INVALID, lx->path, _km_lexer_tok_pos (lx),
                              _("expected the name of a node defined earlier with DEF, "
                                "“%s” is none"), name);
          return FALSE;
        }
      return TRUE;
    }
  if (_km_lexer_is (lx, "DEF"))
    {
      _km_lexer_next (lx);
      def = g_strndup (lx->tok, lx->tok_len);
      def_pos = _km_lexer_tok_pos (lx);
      _km_lexer_next (lx);
    }
  if (lx->tok_len == 0 || is_number_start (lx) || strchr ("{}[]\"", lx->tok[0]) != NULL)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_SYNTAX, lx->path, _km_lexer_tok_pos (lx),
                          _("expected a node type name"));
      return FALSE;
    }

  node = g_new0 (VNode, 1);
  node->type = g_strndup (lx->tok, lx->tok_len);
  node->def = g_strdup (def);
  node->def_pos = def_pos;
  node->pos = _km_lexer_tok_pos (lx);
  node->fields = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, value_free);
  g_ptr_array_add (p->arena, node);
  _km_lexer_next (lx);
  if (!expect (p, "{", error))
    return FALSE;

  if (!known_type (node->type) &&
      (p->protos == NULL || (!g_hash_table_contains (p->protos, node->type) &&
                             !g_str_equal (node->type, "Inline"))))
    {
      if (!g_hash_table_contains (p->warned, node->type))
        {
          if (p->protos != NULL)
            km_parse_warning (lx->path, node->pos,
                              _("%s is neither a VRML97 node Kinema reads nor a PROTO "
                                "declared earlier; skipped"), node->type);
          else
            km_parse_warning (lx->path, node->pos, _("%s nodes are not drawn; skipped"),
                              node->type);
          g_hash_table_add (p->warned, g_strdup (node->type));
        }
      if (!skip_balanced (p, error))
        return FALSE;
    }
  else
    {
      for (;;)
        {
          g_autofree char *field = NULL;
          VValue *value = NULL;

          if (!_km_lexer_next (lx))
            return expect (p, "}", error);
          if (_km_lexer_is (lx, "}"))
            break;
          if (_km_lexer_is (lx, "ROUTE"))
            {
              for (int k = 0; k < 3; k++)
                _km_lexer_next (lx);
              continue;
            }
          if (!g_ascii_isalpha (lx->tok[0]) && lx->tok[0] != '_')
            {
              km_parse_error_set (error, KM_PARSE_ERROR_SYNTAX, lx->path,
                                  _km_lexer_tok_pos (lx), _("expected a field name or “}”"));
              return FALSE;
            }
          field = g_strndup (lx->tok, lx->tok_len);
          if (!_km_lexer_next (lx))
            return expect (p, "}", error);
          if (!parse_value (p, depth, node->type, field, field_type (p, node->type, field),
                            &value, error))
            return FALSE;
          g_hash_table_replace (node->fields, g_steal_pointer (&field), value);
        }
    }
  /* Registered after its body: a node cannot USE itself. */
  if (def != NULL)
    g_hash_table_replace (p->defs, g_steal_pointer (&def), node);
  *out = node;
  return TRUE;
}

static GArray *
field_numbers (VNode      *node,
               const char *name)
{
  VValue *v = g_hash_table_lookup (node->fields, name);

  return v ? v->numbers : NULL;
}

static VNode *
field_node (VNode      *node,
            const char *name)
{
  VValue *v = node ? g_hash_table_lookup (node->fields, name) : NULL;

  return v && v->nodes && v->nodes->len > 0 ? g_ptr_array_index (v->nodes, 0) : NULL;
}

static gboolean
field_vec (VNode      *node,
           const char *name,
           double     *out,
           guint       n)
{
  GArray *a = field_numbers (node, name);

  if (a == NULL || a->len != n)
    return FALSE;
  memcpy (out, a->data, n * sizeof (double));
  return TRUE;
}

static double
field_double (VNode      *node,
              const char *name,
              double      fallback)
{
  double v;

  return field_vec (node, name, &v, 1) ? v : fallback;
}

/*
 * An IndexedFaceSet's mesh. Every polygon of more than 3 vertices is triangulated by ear
 * clipping in its own plane (km_polygon_triangulate), whatever the convex field says:
 * VRML97 leaves a non-convex polygon under `convex TRUE` (the default) undefined, so
 * triangulating it properly is allowed; exporters mark concave faces `convex FALSE` or
 * not at all; and Choreonoid's loader triangulates every polygon of more than 3 vertices
 * too. A convex polygon still gives the fan from its first vertex, so convex faces come
 * out as they always did. `ccw FALSE` reverses every triangle.
 */
static KmMesh *
face_set_mesh (VParser  *p,
               VNode    *ifs,
               GError  **error)
{
  VNode *coord = field_node (ifs, "coord");
  GArray *points = coord ? field_numbers (coord, "point") : NULL;
  GArray *index = field_numbers (ifs, "coordIndex");
  VValue *index_value = g_hash_table_lookup (ifs->fields, "coordIndex");
  g_autoptr(GArray) tris = NULL;
  g_autofree float *vertices = NULL;
  gboolean ccw = field_double (ifs, "ccw", 1) != 0;
  guint nv;

  if (ifs->mesh || ifs->mesh_failed)
    return ifs->mesh;
  if (points == NULL || index == NULL || points->len % 3 != 0)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_INVALID, p->lx.path, ifs->pos,
                          _("expected an IndexedFaceSet with coord Coordinate { point [ … ] } "
                            "and coordIndex"));
      ifs->mesh_failed = TRUE;
      return NULL;
    }
  nv = points->len / 3;
  if (nv == 0 || nv > KM_MESH_MAX_VERTICES)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, p->lx.path, ifs->pos,
                          _("expected between 1 and %u points"), KM_MESH_MAX_VERTICES);
      ifs->mesh_failed = TRUE;
      return NULL;
    }
  vertices = g_new (float, (gsize) nv * 3);
  for (guint i = 0; i < nv * 3; i++)
    vertices[i] = (float) g_array_index (points, double, i);
  tris = g_array_new (FALSE, FALSE, sizeof (guint32));
  for (guint i = 0; i < index->len; i++)
    {
      double v = g_array_index (index, double, i);

      if (v >= 0 && v != floor (v))
        v = -2;
      if (v < -1 || v >= nv)
        {
          km_parse_error_set (error, KM_PARSE_ERROR_INVALID, p->lx.path, index_value->pos,
                              _("coordIndex value %g is not a vertex index (0 to %u) or -1"),
                              v == -2 ? g_array_index (index, double, i) : v, nv - 1);
          ifs->mesh_failed = TRUE;
          return NULL;
        }
    }
  km_polygon_triangulate_faces (vertices, (const double *) index->data, index->len, !ccw,
                                KM_MESH_MAX_TRIANGLES, tris);
  {
    guint nt = tris->len / 3;

    ifs->mesh = km_mesh_new_take (g_steal_pointer (&vertices), nv, NULL,
                                  (guint32 *) g_array_free (g_steal_pointer (&tris), FALSE),
                                  nt, error);
  }
  if (ifs->mesh == NULL)
    {
      ifs->mesh_failed = TRUE;
      km_parse_error_prefix (error, p->lx.path, ifs->pos);
    }
  return ifs->mesh;
}

static gboolean
is_geometry (const char *type)
{
  return g_str_equal (type, "Box") || g_str_equal (type, "Sphere") ||
         g_str_equal (type, "Cylinder") || g_str_equal (type, "Cone") ||
         g_str_equal (type, "IndexedFaceSet") || g_str_equal (type, "Extrusion");
}

/* An Extrusion's mesh (km_extrusion_mesh), built once per node like a face set's. */
static KmMesh *
extrusion_mesh (VParser  *p,
                VNode    *node,
                GError  **error)
{
  static const double default_section[] = { 1, 1, 1, -1, -1, -1, -1, 1, 1, 1 };
  static const double default_spine[] = { 0, 0, 0, 0, 1, 0 };
  static const double default_scale[] = { 1, 1 };
  GArray *section = field_numbers (node, "crossSection");
  GArray *spine = field_numbers (node, "spine");
  GArray *scale = field_numbers (node, "scale");
  GArray *orientation = field_numbers (node, "orientation");
  const double *cs = section ? (const double *) section->data : default_section;
  const double *sp = spine ? (const double *) spine->data : default_spine;
  const double *sc = scale ? (const double *) scale->data : default_scale;
  guint nc = section ? section->len / 2 : 5, ns = spine ? spine->len / 3 : 2;
  guint nscale = scale ? scale->len / 2 : 1;

  if (node->mesh != NULL || node->mesh_failed)
    return node->mesh;
  if ((section && section->len % 2 != 0) || (spine && spine->len % 3 != 0)
      || (scale && scale->len % 2 != 0) || nscale == 0 || ns < 2
      || (orientation && orientation->len % 4 != 0)
      || km_extrusion_ring_size (cs, nc) < 2)
    {
      node->mesh_failed = TRUE;
      km_parse_error_set (error, KM_PARSE_ERROR_INVALID, p->lx.path, node->pos,
                          _("expected an Extrusion with at least 2 spine points (x y z), "
                            "2 crossSection points (x z) and orientations of 4 numbers"));
      return NULL;
    }
  node->mesh = km_extrusion_mesh (&(KmExtrusion) {
                                    .section = cs, .n_section = nc,
                                    .spine = sp, .n_spine = ns,
                                    .scale = sc, .n_scale = nscale,
                                    .orientation = orientation ? (const double *) orientation->data
                                                               : NULL,
                                    .n_orientation = orientation ? orientation->len / 4 : 0,
                                    .begin_cap = field_double (node, "beginCap", 1) != 0,
                                    .end_cap = field_double (node, "endCap", 1) != 0,
                                  }, error);
  if (node->mesh == NULL)
    {
      node->mesh_failed = TRUE;
      km_parse_error_prefix (error, p->lx.path, node->pos);
    }
  return node->mesh;
}

static KmShape *
geometry_shape (VParser  *p,
                VNode    *geom,
                GError  **error)
{
  double v[3];

  if (g_str_equal (geom->type, "Box"))
    {
      if (!field_vec (geom, "size", v, 3))
        v[0] = v[1] = v[2] = 2;
      return km_shape_new_box (km_vec3 (v[0], v[1], v[2]));
    }
  if (g_str_equal (geom->type, "Sphere"))
    return km_shape_new_sphere (field_double (geom, "radius", 1));
  if (g_str_equal (geom->type, "Cylinder"))
    return km_shape_new_cylinder (field_double (geom, "radius", 1),
                                  field_double (geom, "height", 2));
  if (g_str_equal (geom->type, "Cone"))
    return km_shape_new_cone (field_double (geom, "bottomRadius", 1),
                              field_double (geom, "height", 2));
  if (g_str_equal (geom->type, "IndexedFaceSet"))
    {
      KmMesh *mesh = face_set_mesh (p, geom, error);

      return mesh ? km_shape_new_mesh (mesh) : NULL;
    }
  if (g_str_equal (geom->type, "Extrusion"))
    {
      KmMesh *mesh = extrusion_mesh (p, geom, error);

      return mesh ? km_shape_new_mesh (mesh) : NULL;
    }
  /* A type the parser skipped has had its warning already. */
  if (known_type (geom->type))
    km_parse_warning (p->lx.path, geom->pos, _("%s geometry is not drawn; skipped"),
                      geom->type);
  return NULL;
}

/**
 * _km_vrml_transform_affine:
 *
 * T · C · R · S · -C of a Transform node (scaleOrientation is not applied).
 */
void
_km_vrml_transform_affine (KmVrmlNode *node,
                           KmAffine   *out)
{
  double tr[3] = { 0, 0, 0 }, rot[4] = { 0, 0, 1, 0 }, sc[3] = { 1, 1, 1 };
  double ce[3] = { 0, 0, 0 };
  KmMat3 r;

  field_vec (node, "translation", tr, 3);
  field_vec (node, "rotation", rot, 4);
  field_vec (node, "scale", sc, 3);
  field_vec (node, "center", ce, 3);
  if (km_vec3_length (km_vec3 (rot[0], rot[1], rot[2])) > 0)
    km_mat3_from_axis_angle (km_vec3_normalize (km_vec3 (rot[0], rot[1], rot[2])), rot[3], &r);
  else
    km_mat3_identity (&r);
  out->lin = r;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      out->lin.m[i][j] *= sc[j];
  out->t = km_vec3_add (km_vec3 (tr[0] + ce[0], tr[1] + ce[1], tr[2] + ce[2]),
                        km_vec3_scale (km_mat3_mul_vec3 (&out->lin,
                                                         km_vec3 (ce[0], ce[1], ce[2])),
                                       -1));
}

/* Places @shape (taken) under @m, appending it to @shapes. */
static gboolean
place_shape (VParser         *p,
             VNode           *node,
             KmShape         *shape,
             const KmAffine  *m,
             GPtrArray       *shapes,
             GError         **error)
{
  if (!_km_shape_place (shape, m, &p->n_baked, p->lx.path, node->pos, error))
    {
      km_shape_unref (shape);
      return FALSE;
    }
  g_ptr_array_add (shapes, shape);
  return TRUE;
}

/* Inline { url [ … ] } in a model: the first url that loads, relative to the file's
 * directory, its shapes placed under @m. One that does not load is a warning. */
static gboolean
walk_inline (VParser         *p,
             VNode           *node,
             const KmAffine  *m,
             GPtrArray       *shapes,
             GError         **error)
{
  VValue *url = g_hash_table_lookup (node->fields, "url");
  g_autoptr(GError) local_error = NULL;
  g_autofree char *file = NULL;
  g_autoptr(GPtrArray) loaded = NULL;

  if (url == NULL || url->strings == NULL || url->strings->len == 0)
    {
      km_parse_warning (p->lx.path, node->pos, _("Inline without a url; skipped"));
      return TRUE;
    }
  for (guint i = 0; i < url->strings->len && loaded == NULL; i++)
    {
      const char *name = g_ptr_array_index (url->strings, i);

      if (g_str_has_prefix (name, "file://"))
        name += strlen ("file://");
      g_clear_pointer (&file, g_free);
      /* Named as the user would (no "./"): the loader's messages name this path. */
      file = km_parse_included_path (p->lx.path, name);
      g_clear_error (&local_error);
      loaded = km_mesh_cache_load (p->cache, file, NULL, &local_error);
    }
  if (loaded == NULL)
    {
      km_parse_warning (p->lx.path, url->pos, _("Inline mesh is left out: %s"),
                        local_error->message);
      return TRUE;
    }
  for (guint i = 0; i < loaded->len; i++)
    {
      const KmShape *src = g_ptr_array_index (loaded, i);
      KmAffine own, total;

      if (++p->n_shapes > MAX_SHAPES)
        {
          km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, p->lx.path, node->pos,
                              _("too many shapes (at most %d)"), MAX_SHAPES);
          return FALSE;
        }
      own.lin = src->transform.rot;
      for (int r = 0; r < 3; r++)
        {
          own.lin.m[r][0] *= src->scale.x;
          own.lin.m[r][1] *= src->scale.y;
          own.lin.m[r][2] *= src->scale.z;
        }
      own.t = src->transform.pos;
      _km_affine_mul (m, &own, &total);
      if (!place_shape (p, node, km_shape_copy (src), &total, shapes, error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
walk (VParser         *p,
      VNode           *node,
      const KmAffine  *parent,
      guint            depth,
      GPtrArray       *shapes,
      GError         **error)
{
  KmAffine m = *parent;
  const char *type = node->type;

  if (depth > KM_MESH_MAX_DEPTH)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, p->lx.path, node->pos,
                          _("nodes are nested too deeply (at most %d levels)"),
                          KM_MESH_MAX_DEPTH);
      return FALSE;
    }
  if (++p->n_steps > MAX_WALK_STEPS)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, p->lx.path, node->pos,
                          _("the scene expands to too many nodes (at most %d, every USE "
                            "counted again)"), MAX_WALK_STEPS);
      return FALSE;
    }

  if (g_str_equal (type, "Transform"))
    {
      KmAffine local, tmp;

      _km_vrml_transform_affine (node, &local);
      tmp = m;
      _km_affine_mul (&tmp, &local, &m);
    }

  if (g_str_equal (type, "Inline") && p->cache != NULL)
    return walk_inline (p, node, &m, shapes, error);

  if (g_str_equal (type, "Shape") || (depth == 0 && is_geometry (type)))
    {
      VNode *geom = g_str_equal (type, "Shape") ? field_node (node, "geometry") : node;
      VNode *material = field_node (field_node (node, "appearance"), "material");
      g_autoptr(GError) local_error = NULL;
      g_autoptr(KmShape) shape = NULL;

      if (geom == NULL)
        return TRUE;
      if (++p->n_shapes > MAX_SHAPES)
        {
          km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, p->lx.path, node->pos,
                              _("too many shapes (at most %d)"), MAX_SHAPES);
          return FALSE;
        }
      shape = geometry_shape (p, geom, &local_error);
      if (shape == NULL)
        {
          if (local_error != NULL)
            {
              g_propagate_error (error, g_steal_pointer (&local_error));
              return FALSE;
            }
          return TRUE;
        }
      if (material != NULL)
        {
          double c[3];

          if (field_vec (material, "diffuseColor", c, 3))
            shape->color = (KmColor) { (float) CLAMP (c[0], 0, 1), (float) CLAMP (c[1], 0, 1),
                                       (float) CLAMP (c[2], 0, 1), 1.0f };
          shape->color.a = (float) (1 - CLAMP (field_double (material, "transparency", 0), 0, 1));
        }
      return place_shape (p, node, g_steal_pointer (&shape), &m, shapes, error);
    }

  if (g_str_equal (type, "Transform") || g_str_equal (type, "Group") ||
      g_str_equal (type, "Collision") || g_str_equal (type, "Anchor") ||
      g_str_equal (type, "Billboard") || g_str_equal (type, "Switch") ||
      g_str_equal (type, "LOD"))
    {
      const char *field = g_str_equal (type, "Switch") ? "choice" :
                          g_str_equal (type, "LOD") ? "level" : "children";
      VValue *children = g_hash_table_lookup (node->fields, field);
      guint first = 0, last = children && children->nodes ? children->nodes->len : 0;

      if (g_str_equal (type, "Switch"))
        {
          double which = field_double (node, "whichChoice", -1);

          if (which < 0 || which >= last)
            return TRUE;
          first = (guint) which;
          last = first + 1;
        }
      else if (g_str_equal (type, "LOD"))
        last = MIN (last, 1);
      for (guint i = first; i < last; i++)
        if (!walk (p, g_ptr_array_index (children->nodes, i), &m, depth + 1, shapes, error))
          return FALSE;
    }
  return TRUE;
}

static void
proto_free (gpointer data)
{
  KmVrmlProto *proto = data;

  g_free (proto->name);
  g_hash_table_unref (proto->types);
  g_hash_table_unref (proto->defaults);
  g_free (proto);
}

/* A PROTO's or EXTERNPROTO's interface, its "[" current: field kinds, types, names and
 * (for field and exposedField of a PROTO) default values. Leaves "]" current. */
static gboolean
parse_interface (VParser      *p,
                 KmVrmlProto  *proto,
                 GError      **error)
{
  KmLexer *lx = &p->lx;

  for (;;)
    {
      gboolean has_value;
      g_autofree char *type = NULL;
      g_autofree char *name = NULL;
      VValue *value = NULL;

      if (!_km_lexer_next (lx))
        return expect (p, "]", error);
      if (_km_lexer_is (lx, "]"))
        return TRUE;
      if (_km_lexer_is (lx, "field") || _km_lexer_is (lx, "exposedField") ||
          _km_lexer_is (lx, "initializeOnly") || _km_lexer_is (lx, "inputOutput"))
        has_value = !proto->external;
      else if (_km_lexer_is (lx, "eventIn") || _km_lexer_is (lx, "eventOut") ||
               _km_lexer_is (lx, "inputOnly") || _km_lexer_is (lx, "outputOnly"))
        has_value = FALSE;
      else
        {
          km_parse_error_set (error, KM_PARSE_ERROR_SYNTAX, lx->path, _km_lexer_tok_pos (lx),
                              _("expected field, exposedField, eventIn, eventOut or “]”"));
          return FALSE;
        }
      if (!_km_lexer_next (lx) || !g_ascii_isalpha (lx->tok[0]))
        {
          km_parse_error_set (error, KM_PARSE_ERROR_SYNTAX, lx->path, _km_lexer_tok_pos (lx),
                              _("expected a field type (SFVec3f, MFNode, …)"));
          return FALSE;
        }
      type = g_strndup (lx->tok, lx->tok_len);
      if (!_km_lexer_next (lx) || (!g_ascii_isalpha (lx->tok[0]) && lx->tok[0] != '_'))
        {
          km_parse_error_set (error, KM_PARSE_ERROR_SYNTAX, lx->path, _km_lexer_tok_pos (lx),
                              _("expected a field name"));
          return FALSE;
        }
      name = g_strndup (lx->tok, lx->tok_len);
      if (has_value)
        {
          if (!_km_lexer_next (lx))
            return expect (p, "]", error);
          if (!parse_value (p, 0, NULL, name, type, &value, error))
            return FALSE;
          g_hash_table_replace (proto->defaults, g_strdup (name), value);
        }
      g_hash_table_replace (proto->types, g_steal_pointer (&name), g_steal_pointer (&type));
    }
}

/* PROTO / EXTERNPROTO, its keyword current: recorded (model readers) or skipped. */
static gboolean
parse_proto (VParser  *p,
             GError  **error)
{
  gboolean external = p->lx.tok_len == strlen ("EXTERNPROTO");
  KmSourcePos at = _km_lexer_tok_pos (&p->lx);
  KmVrmlProto *proto = NULL;
  gboolean ok;

  if (p->protos == NULL)
    km_parse_warning (p->lx.path, at, _("%s definitions are not supported; skipped"),
                      external ? "EXTERNPROTO" : "PROTO");
  _km_lexer_next (&p->lx);   /* name */
  if (p->protos != NULL && p->lx.tok_len > 0 &&
      (g_ascii_isalpha (p->lx.tok[0]) || p->lx.tok[0] == '_'))
    {
      proto = g_new0 (KmVrmlProto, 1);
      proto->name = g_strndup (p->lx.tok, p->lx.tok_len);
      proto->pos = _km_lexer_tok_pos (&p->lx);
      proto->external = external;
      proto->types = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
      proto->defaults = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, value_free);
      g_hash_table_replace (p->protos, proto->name, proto);
    }
  _km_lexer_next (&p->lx);
  ok = expect (p, "[", error) &&
       (proto != NULL ? parse_interface (p, proto, error) : skip_balanced (p, error));
  if (ok && !_km_lexer_next (&p->lx))
    {
      km_parse_error_set (error, KM_PARSE_ERROR_SYNTAX, p->lx.path, _km_lexer_tok_pos (&p->lx),
                          external ? _("expected the EXTERNPROTO's URL")
                                   : _("expected “{” (the PROTO's body)"));
      ok = FALSE;
    }
  if (ok && !external)
    ok = expect (p, "{", error) && skip_balanced (p, error);
  else if (ok && _km_lexer_is (&p->lx, "["))
    ok = skip_balanced (p, error);
  return ok;
}

static gboolean
parser_init (VParser    *p,
             const char *path,
             const char *data,
             gsize       length,
             GError    **error)
{
  /* A UTF-8 byte order mark (Windows Notepad saves one) is no token: it was read as a
   * node's type, the "#VRML" header after it a comment, and failed at the next token.
   * The first line's columns count from after it, as in the other readers. UTF-16 text
   * (with its mark, as some Windows exporters write) was not read at all: it is lexed
   * converted to UTF-8, in which lines and columns of characters are the file's. */
  if (!_km_mesh_text_unmark (path, &data, &length, &p->converted, error))
    return FALSE;
  _km_lexer_init (&p->lx, path, data, length);
  p->lx.punct = "{}[]";
  p->arena = g_ptr_array_new_with_free_func (vnode_free);
  p->defs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  p->warned = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  return TRUE;
}

static void
parser_clear (VParser *p)
{
  g_clear_pointer (&p->protos, g_hash_table_unref);
  g_clear_pointer (&p->arena, g_ptr_array_unref);
  g_clear_pointer (&p->defs, g_hash_table_unref);
  g_clear_pointer (&p->warned, g_hash_table_unref);
  g_clear_pointer (&p->converted, g_free);
}

/* The top-level statements: nodes (appended to @roots), PROTOs, ROUTEs. */
static gboolean
parse_document (VParser    *p,
                GPtrArray  *roots,
                GError    **error)
{
  gboolean ok = TRUE;

  /* The "#VRML V2.0 utf8" header is a comment to the tokenizer, so it is optional. */
  while (ok && _km_lexer_next (&p->lx))
    {
      VNode *root = NULL;

      if (_km_lexer_is (&p->lx, "PROTO") || _km_lexer_is (&p->lx, "EXTERNPROTO"))
        {
          ok = parse_proto (p, error);
          continue;
        }
      if (_km_lexer_is (&p->lx, "ROUTE"))
        {
          for (int k = 0; k < 3; k++)
            _km_lexer_next (&p->lx);
          continue;
        }
      ok = parse_node (p, 0, &root, error);
      if (ok && root != NULL)
        g_ptr_array_add (roots, root);
    }
  return ok;
}

/**
 * _km_vrml_doc_parse:
 *
 * Returns: (transfer full) (nullable): the document, or %NULL with @error set
 */
KmVrmlDoc *
_km_vrml_doc_parse (const char   *path,
                    const char   *data,
                    gsize         length,
                    KmMeshCache  *cache,
                    GError      **error)
{
  g_autoptr(KmVrmlDoc) doc = g_new0 (KmVrmlDoc, 1);

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (data != NULL || length == 0, NULL);

  if (!parser_init (&doc->p, path, data != NULL ? data : "", length, error))
    return NULL;
  doc->p.protos = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, proto_free);
  doc->p.cache = cache;
  doc->roots = g_ptr_array_new ();
  if (!parse_document (&doc->p, doc->roots, error))
    return NULL;
  return g_steal_pointer (&doc);
}

void
_km_vrml_doc_free (KmVrmlDoc *doc)
{
  if (doc == NULL)
    return;
  parser_clear (&doc->p);
  g_clear_pointer (&doc->roots, g_ptr_array_unref);
  g_free (doc);
}

GPtrArray *
_km_vrml_doc_get_roots (KmVrmlDoc *doc)
{
  g_return_val_if_fail (doc != NULL, NULL);

  return doc->roots;
}

const KmVrmlProto *
_km_vrml_doc_get_proto (KmVrmlDoc  *doc,
                        const char *name)
{
  g_return_val_if_fail (doc != NULL, NULL);
  g_return_val_if_fail (name != NULL, NULL);

  return g_hash_table_lookup (doc->p.protos, name);
}

KmVrmlValue *
_km_vrml_doc_field (KmVrmlDoc  *doc,
                    KmVrmlNode *node,
                    const char *field)
{
  KmVrmlValue *value;
  const KmVrmlProto *proto;

  g_return_val_if_fail (doc != NULL, NULL);
  g_return_val_if_fail (node != NULL, NULL);
  g_return_val_if_fail (field != NULL, NULL);

  value = g_hash_table_lookup (node->fields, field);
  if (value != NULL)
    return value;
  proto = g_hash_table_lookup (doc->p.protos, node->type);
  return proto != NULL ? g_hash_table_lookup (proto->defaults, field) : NULL;
}

gboolean
_km_vrml_doc_shapes (KmVrmlDoc       *doc,
                     KmVrmlNode      *node,
                     const KmAffine  *at,
                     GPtrArray       *shapes,
                     GError         **error)
{
  g_return_val_if_fail (doc != NULL, FALSE);
  g_return_val_if_fail (node != NULL, FALSE);
  g_return_val_if_fail (at != NULL, FALSE);
  g_return_val_if_fail (shapes != NULL, FALSE);

  return walk (&doc->p, node, at, 1, shapes, error);
}

/**
 * km_mesh_load_vrml:
 * @node: (nullable): the DEF name of the one node to load, in its own frame
 *
 * Returns: (transfer full) (nullable): the shapes, or %NULL with @error set
 */
GPtrArray *
km_mesh_load_vrml (const char  *path,
                   const char  *data,
                   gsize        length,
                   const char  *node,
                   GError     **error)
{
  g_autoptr(GPtrArray) roots = g_ptr_array_new ();
  g_autoptr(GPtrArray) shapes = NULL;
  KmAffine identity;
  VParser p = { 0 };
  gboolean ok;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (data != NULL || length == 0, NULL);

  ok = parser_init (&p, path, data, length, error) && parse_document (&p, roots, error);

  if (ok)
    {
      km_mat3_identity (&identity.lin);
      identity.t = KM_VEC3_ZERO;
      shapes = g_ptr_array_new_with_free_func ((GDestroyNotify) km_shape_unref);
      if (node != NULL)
        {
          VNode *start = g_hash_table_lookup (p.defs, node);

          if (start == NULL)
            {
              km_parse_error_set (error, KM_PARSE_ERROR_INVALID, path, (KmSourcePos) { 0, 0 },
                                  _("expected a node named “%s” (DEF) in the file"), node);
              ok = FALSE;
            }
          else
            ok = walk (&p, start, &identity, 0, shapes, error);
        }
      else
        for (guint i = 0; ok && i < roots->len; i++)
          ok = walk (&p, g_ptr_array_index (roots, i), &identity, 0, shapes, error);
    }

  parser_clear (&p);
  return ok ? g_steal_pointer (&shapes) : NULL;
}
