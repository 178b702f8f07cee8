/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-openhrp"

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "km-openhrp.h"
#include "km-error.h"
#include "km-mesh-loader.h"
#include "km-skeleton-json.h"

#include "km-mesh-private.h"

/* Nodes visited in Joint children (Transform, Group, Segment…), each USE again. */
#define MAX_STEPS 1000000
#define SNIFF_LIMIT ((gsize) 1024 * 1024)

typedef struct
{
  const char         *path;
  KmVrmlDoc          *doc;
  KmSkeletonBuilder  *builder;
  GArray             *joint_pos;   /* KmSourcePos per builder index */
  GHashTable         *visited;     /* Joint nodes already in the tree */
  GHashTable         *warned;      /* node types already reported */
  guint               n_steps;
} Reader;

static gboolean
is_sensor (const char *type)
{
  static const char * const sensors[] = {
    "ForceSensor", "Gyro", "AccelerationSensor", "VisionSensor", "RangeSensor",
    "RateGyroSensor", "TorqueSensor", "PhotoInteractor", "RangeSensorSite", "Camera",
    "Light", "PointLight", "SpotLight", "DirectionalLight", "ExtraJoint",
  };

  for (guint i = 0; i < G_N_ELEMENTS (sensors); i++)
    if (g_str_equal (sensors[i], type))
      return TRUE;
  return FALSE;
}

static KmSourcePos
value_pos (KmVrmlValue *value,
           KmVrmlNode  *node)
{
  /* A value from a PROTO default has no place in the instance: point at the node. */
  if (value != NULL)
    {
      GHashTableIter iter;
      gpointer v;

      g_hash_table_iter_init (&iter, node->fields);
      while (g_hash_table_iter_next (&iter, NULL, &v))
        if (v == value)
          return value->pos;
    }
  return node->pos;
}

/* @n numbers of @field (instance or PROTO default) into @out; FALSE with an error when
 * the value is something else. A field that is absent leaves @out as it is. */
static gboolean
read_numbers (Reader      *r,
              KmVrmlNode  *node,
              const char  *field,
              double      *out,
              guint        n,
              const char  *what,
              GError     **error)
{
  KmVrmlValue *value = _km_vrml_doc_field (r->doc, node, field);

  if (value == NULL)
    return TRUE;
  if (value->numbers == NULL || value->numbers->len != n || value->strings != NULL ||
      value->nodes != NULL)
    {
      /* Translators: the first %s is a field name, the second what it holds ("x y z") */
      km_parse_error_set (error, KM_PARSE_ERROR_INVALID, r->path, value_pos (value, node),
                          _("expected %s to be %u numbers (%s)"), field, n, what);
      return FALSE;
    }
  memcpy (out, value->numbers->data, n * sizeof (double));
  return TRUE;
}

/* The first number of an MFFloat field; FALSE (no error) when it is empty or absent. */
static gboolean
read_first (Reader      *r,
            KmVrmlNode  *node,
            const char  *field,
            double      *out,
            KmSourcePos *pos,
            GError     **error)
{
  KmVrmlValue *value = _km_vrml_doc_field (r->doc, node, field);

  *pos = value_pos (value, node);
  if (value == NULL || (value->numbers == NULL && value->strings == NULL &&
                        value->nodes == NULL))
    return FALSE;
  if (value->numbers == NULL || value->strings != NULL || value->nodes != NULL)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_INVALID, r->path, *pos,
                          _("expected %s to be a list of numbers"), field);
      return FALSE;
    }
  *out = g_array_index (value->numbers, double, 0);
  return TRUE;
}

/* jointId: -1 (the usual PROTO default) for none, else an id, which must fit an int; a
 * fraction or a larger number fails at the value rather than leave the joint without its
 * id (Choreonoid addresses joints by id). */
static gboolean
read_joint_id (Reader      *r,
               KmVrmlNode  *node,
               int         *id,
               GError     **error)
{
  KmVrmlValue *value = _km_vrml_doc_field (r->doc, node, "jointId");
  gboolean one;
  double v;

  *id = -1;
  if (value == NULL)
    return TRUE;
  one = value->numbers != NULL && value->numbers->len == 1 && value->strings == NULL &&
        value->nodes == NULL;
  v = one ? g_array_index (value->numbers, double, 0) : 0;
  if (!one || v != floor (v) || v < -1 || v > G_MAXINT)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_INVALID, r->path, value_pos (value, node),
                          _("expected jointId to be a non-negative integer up to %d (or -1 "
                            "for none)"), G_MAXINT);
      return FALSE;
    }
  *id = (int) v;
  return TRUE;
}

static const char *
first_string (KmVrmlValue *value)
{
  if (value == NULL || value->strings == NULL || value->strings->len != 1 ||
      value->numbers != NULL || value->nodes != NULL)
    return NULL;
  return g_ptr_array_index (value->strings, 0);
}

static gboolean
read_axis (Reader      *r,
           KmVrmlNode  *node,
           KmVec3      *axis,
           GError     **error)
{
  KmVrmlValue *value = _km_vrml_doc_field (r->doc, node, "jointAxis");
  const char *s = first_string (value);

  *axis = km_vec3 (0, 0, 1);
  if (value == NULL)
    return TRUE;
  if (s != NULL)
    {
      gboolean negative = s[0] == '-';
      const char *letter = negative ? s + 1 : s;
      double sign = negative ? -1 : 1;

      if (g_ascii_strcasecmp (letter, "X") == 0)
        *axis = km_vec3 (sign, 0, 0);
      else if (g_ascii_strcasecmp (letter, "Y") == 0)
        *axis = km_vec3 (0, sign, 0);
      else if (g_ascii_strcasecmp (letter, "Z") == 0)
        *axis = km_vec3 (0, 0, sign);
      else
        s = NULL;
    }
  else if (value->numbers != NULL && value->numbers->len == 3 && value->strings == NULL &&
           value->nodes == NULL)
    {
      const double *v = (const double *) value->numbers->data;

      /* Any finite magnitude (km_vec3_direction()): only a zero axis is none. */
      if (km_vec3_direction (km_vec3 (v[0], v[1], v[2]), axis))
        return TRUE;
    }
  if (s == NULL)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_INVALID, r->path, value_pos (value, node),
                          _("expected a jointAxis “X”, “Y”, “Z” (or “-X”, “-Y”, “-Z”) or "
                            "three numbers, not all zero"));
      return FALSE;
    }
  return TRUE;
}

static gboolean
is_rigid (const KmMat3 *m)
{
  return km_mat3_is_rotation (m, 1e-6);
}

/* Humanoid, Joint and Segment are PROTOs that the file declares itself; an undeclared
 * one was skipped by the parser (its fields are lost). */
static gboolean
check_declared (Reader      *r,
                KmVrmlNode  *node,
                GError     **error)
{
  if (_km_vrml_doc_get_proto (r->doc, node->type) != NULL)
    return TRUE;
  km_parse_error_set (error, KM_PARSE_ERROR_INVALID, r->path, node->pos,
                      _("expected a declaration “PROTO %s [ … ] { … }” earlier in the file"),
                      node->type);
  return FALSE;
}

static gboolean
mat3_is_identity (const KmMat3 *m)
{
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      if (m->m[i][j] != (i == j ? 1 : 0))
        return FALSE;
  return TRUE;
}

static gboolean add_joint (Reader *r, KmVrmlNode *node, const char *parent,
                           const KmAffine *pre, KmSourcePos pre_pos, guint depth,
                           GError **error);

static gboolean
add_shapes (Reader          *r,
            guint            joint,
            KmVrmlNode      *node,
            const KmAffine  *m,
            GError         **error)
{
  g_autoptr(GPtrArray) shapes = g_ptr_array_new_with_free_func ((GDestroyNotify) km_shape_unref);

  if (!_km_vrml_doc_shapes (r->doc, node, m, shapes, error))
    return FALSE;
  for (guint i = 0; i < shapes->len; i++)
    km_skeleton_builder_add_shape (r->builder, joint, g_ptr_array_index (shapes, i));
  return TRUE;
}

/* One node of a Joint's children (or of a Transform or Group among them), under @m in
 * the joint's frame. */
static gboolean
add_child (Reader          *r,
           guint            joint,
           const char      *joint_name,
           KmVrmlNode      *node,
           const KmAffine  *m,
           KmSourcePos      m_pos,
           guint            depth,
           GError         **error)
{
  const char *type = node->type;

  if (depth > KM_MESH_MAX_DEPTH)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, r->path, node->pos,
                          _("nodes are nested too deeply (at most %d levels)"),
                          KM_MESH_MAX_DEPTH);
      return FALSE;
    }
  if (++r->n_steps > MAX_STEPS)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, r->path, node->pos,
                          _("the model expands to too many nodes (at most %d, every USE "
                            "counted again)"), MAX_STEPS);
      return FALSE;
    }

  if (g_str_equal (type, "Joint"))
    return add_joint (r, node, joint_name, m, m_pos, depth + 1, error);
  if (g_str_equal (type, "Segment"))
    {
      KmVrmlValue *children = _km_vrml_doc_field (r->doc, node, "children");

      if (!check_declared (r, node, error))
        return FALSE;
      for (guint i = 0; children && children->nodes && i < children->nodes->len; i++)
        if (!add_shapes (r, joint, g_ptr_array_index (children->nodes, i), m, error))
          return FALSE;
      return TRUE;
    }
  if (g_str_equal (type, "Shape") || g_str_equal (type, "Inline"))
    return add_shapes (r, joint, node, m, error);
  if (g_str_equal (type, "Transform") || g_str_equal (type, "Group"))
    {
      KmVrmlValue *children = g_hash_table_lookup (node->fields, "children");
      KmAffine here = *m;

      if (g_str_equal (type, "Transform"))
        {
          KmAffine local;

          _km_vrml_transform_affine (node, &local);
          _km_affine_mul (m, &local, &here);
          m_pos = node->pos;
        }
      for (guint i = 0; children && children->nodes && i < children->nodes->len; i++)
        if (!add_child (r, joint, joint_name, g_ptr_array_index (children->nodes, i), &here,
                        m_pos, depth + 1, error))
          return FALSE;
      return TRUE;
    }
  if (is_sensor (type))
    return TRUE;
  if (!g_hash_table_contains (r->warned, type))
    {
      g_hash_table_add (r->warned, g_strdup (type));
      km_parse_warning (r->path, node->pos, _("%s nodes in a Joint are not read; skipped"),
                        type);
    }
  return TRUE;
}

/* A Joint under @parent (NULL for the root), @pre the Transforms between them. */
static gboolean
add_joint (Reader          *r,
           KmVrmlNode      *node,
           const char      *parent,
           const KmAffine  *pre,
           KmSourcePos      pre_pos,
           guint            depth,
           GError         **error)
{
  KmVrmlValue *type_value = _km_vrml_doc_field (r->doc, node, "jointType");
  KmVrmlValue *name_value = _km_vrml_doc_field (r->doc, node, "name");
  KmVrmlValue *children = _km_vrml_doc_field (r->doc, node, "children");
  const char *type_name = first_string (type_value);
  const char *name = node->def;
  double tr[3] = { 0, 0, 0 }, rot[4] = { 0, 0, 1, 0 };
  double lower = 0, upper = 0;
  int id;
  KmSourcePos lower_pos, upper_pos;
  gboolean has_lower, has_upper;
  KmJointType type;
  KmAffine frame, local;
  KmMat3 r_local;
  KmVec3 rot_axis;
  guint index;

  if (depth > KM_MESH_MAX_DEPTH * 4)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, r->path, node->pos,
                          _("joints are nested too deeply (at most %d levels)"),
                          KM_MESH_MAX_DEPTH * 4);
      return FALSE;
    }
  if (g_hash_table_contains (r->visited, node))
    {
      km_parse_error_set (error, KM_PARSE_ERROR_INVALID, r->path, node->pos,
                          _("expected each Joint once in the tree, “%s” is used again"),
                          name ? name : node->type);
      return FALSE;
    }
  g_hash_table_add (r->visited, node);
  if (!check_declared (r, node, error))
    return FALSE;
  if (name == NULL)
    name = first_string (name_value);
  if (name == NULL || *name == '\0')
    {
      km_parse_error_set (error, KM_PARSE_ERROR_INVALID, r->path, node->pos,
                          _("expected a name for the Joint (DEF NAME Joint { … })"));
      return FALSE;
    }
  if (strlen (name) > KM_SKELETON_MAX_NAME)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, r->path, node->pos,
                          _("the joint name is longer than %d bytes"), KM_SKELETON_MAX_NAME);
      return FALSE;
    }
  if (km_skeleton_builder_get_n_joints (r->builder) >= KM_SKELETON_MAX_JOINTS)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, r->path, node->pos,
                          _("too many joints (at most %d)"), KM_SKELETON_MAX_JOINTS);
      return FALSE;
    }

  if (type_name != NULL && g_str_equal (type_name, "free"))
    {
      type = parent == NULL ? KM_JOINT_FREE : KM_JOINT_FIXED;
      if (parent != NULL)
        km_parse_warning (r->path, value_pos (type_value, node),
                          _("free joint “%s” is not the root: it is fixed"), name);
    }
  else if (type_name != NULL && g_str_equal (type_name, "rotate"))
    type = KM_JOINT_REVOLUTE;
  else if (type_name != NULL && g_str_equal (type_name, "slide"))
    type = KM_JOINT_PRISMATIC;
  else if (type_name != NULL && (g_str_equal (type_name, "fixed") ||
                                 g_str_equal (type_name, "crawler") ||
                                 g_str_equal (type_name, "pseudoContinuousTrack")))
    type = KM_JOINT_FIXED;
  else
    {
      km_parse_error_set (error, KM_PARSE_ERROR_INVALID, r->path, value_pos (type_value, node),
                          _("expected a jointType “free”, “fixed”, “rotate”, “slide”, "
                            "“crawler” or “pseudoContinuousTrack”"));
      return FALSE;
    }

  if (!read_numbers (r, node, "translation", tr, 3, "x y z", error) ||
      !read_numbers (r, node, "rotation", rot, 4, "axis x y z, angle", error) ||
      !read_joint_id (r, node, &id, error))
    return FALSE;
  if (km_vec3_direction (km_vec3 (rot[0], rot[1], rot[2]), &rot_axis))
    km_mat3_from_axis_angle (rot_axis, rot[3], &r_local);
  else if (rot[3] == 0)
    km_mat3_identity (&r_local);
  else
    {
      km_parse_error_set (error, KM_PARSE_ERROR_INVALID, r->path,
                          value_pos (_km_vrml_doc_field (r->doc, node, "rotation"), node),
                          _("expected a rotation axis that is not zero"));
      return FALSE;
    }
  if (!is_rigid (&pre->lin))
    {
      km_parse_error_set (error, KM_PARSE_ERROR_INVALID, r->path, pre_pos,
                          _("a Transform above Joint “%s” scales or shears it; expected only "
                            "translation and rotation"), name);
      return FALSE;
    }
  local.lin = r_local;
  local.t = km_vec3 (tr[0], tr[1], tr[2]);
  _km_affine_mul (pre, &local, &frame);

  index = km_skeleton_builder_add_joint (r->builder, name, type, parent);
  {
    KmSourcePos name_pos = node->def != NULL ? node->def_pos : node->pos;

    g_array_append_val (r->joint_pos, name_pos);
  }
  km_skeleton_builder_set_offset (r->builder, index, frame.t);
  if (rot[3] != 0 || !mat3_is_identity (&frame.lin))
    km_skeleton_builder_set_rotation (r->builder, index,
                                      km_quat_normalize (km_mat3_to_quat (&frame.lin)));
  if (id >= 0)
    km_skeleton_builder_set_joint_id (r->builder, index, id);

  if (type == KM_JOINT_REVOLUTE || type == KM_JOINT_PRISMATIC)
    {
      KmVec3 axis;

      if (!read_axis (r, node, &axis, error))
        return FALSE;
      km_skeleton_builder_set_axis (r->builder, index, axis);
      has_lower = read_first (r, node, "llimit", &lower, &lower_pos, error);
      if (!has_lower && error != NULL && *error != NULL)
        return FALSE;
      has_upper = read_first (r, node, "ulimit", &upper, &upper_pos, error);
      if (!has_upper && error != NULL && *error != NULL)
        return FALSE;
      if (has_lower && has_upper)
        {
          if (lower > upper)
            {
              km_parse_error_set (error, KM_PARSE_ERROR_INVALID, r->path, lower_pos,
                                  _("expected llimit %g not to exceed ulimit %g"), lower,
                                  upper);
              return FALSE;
            }
          km_skeleton_builder_set_limit (r->builder, index, 0, lower, upper);
        }
      else if (has_lower || has_upper)
        /* One end given: the other is open, as in Choreonoid's VRML loader (whose missing
         * end is the largest float). */
        km_skeleton_builder_set_limit (r->builder, index, 0, has_lower ? lower : -INFINITY,
                                       has_upper ? upper : INFINITY);
    }

  if (children != NULL && children->nodes != NULL)
    {
      KmAffine identity;

      _km_affine_identity (&identity);
      for (guint i = 0; i < children->nodes->len; i++)
        if (!add_child (r, index, name, g_ptr_array_index (children->nodes, i), &identity,
                        node->pos, depth, error))
          return FALSE;
    }
  return TRUE;
}

/* The root Joint: the first Humanoid's humanoidBody, else the first top-level Joint.
 * @humanoid: the Humanoid it is in, NULL for a top-level Joint. */
static KmVrmlNode *
find_root (Reader      *r,
           KmVrmlNode **humanoid,
           GError     **error)
{
  GPtrArray *roots = _km_vrml_doc_get_roots (r->doc);
  KmVrmlNode *top_joint = NULL;

  for (guint i = 0; i < roots->len; i++)
    {
      KmVrmlNode *node = g_ptr_array_index (roots, i);
      KmVrmlValue *body;
      KmVrmlNode *found = NULL;

      if (g_str_equal (node->type, "Joint") && top_joint == NULL)
        top_joint = node;
      if (!g_str_equal (node->type, "Humanoid"))
        continue;
      if (!check_declared (r, node, error))
        return NULL;
      body = _km_vrml_doc_field (r->doc, node, "humanoidBody");
      for (guint k = 0; body && body->nodes && k < body->nodes->len; k++)
        {
          KmVrmlNode *child = g_ptr_array_index (body->nodes, k);

          if (!g_str_equal (child->type, "Joint"))
            continue;
          if (found != NULL)
            {
              km_parse_error_set (error, KM_PARSE_ERROR_INVALID, r->path, child->pos,
                                  _("expected one root Joint in humanoidBody, found a "
                                    "second one"));
              return NULL;
            }
          found = child;
        }
      if (found == NULL)
        {
          km_parse_error_set (error, KM_PARSE_ERROR_INVALID, r->path, node->pos,
                              _("expected a Joint in the Humanoid's humanoidBody"));
          return NULL;
        }
      *humanoid = node;
      return found;
    }
  if (top_joint == NULL)
    km_parse_error_set (error, KM_PARSE_ERROR_INVALID, r->path, (KmSourcePos) { 1, 1 },
                        _("expected a Humanoid node (or a Joint) of the OpenHRP model "
                          "format"));
  return top_joint;
}

/* The model's name, kept for writers (a .body's "name", a URDF robot name), as
 * Choreonoid's VRML loader names the body: the Humanoid's name field, else its DEF name;
 * without either (or a Humanoid), the file's stem, as for a .body without a name. Not
 * the root Joint's name, which the writers fall back on for a model without a name. */
static void
set_model_name (Reader     *r,
                KmVrmlNode *humanoid)
{
  const char *name = NULL;

  if (humanoid != NULL)
    name = first_string (_km_vrml_doc_field (r->doc, humanoid, "name"));
  if ((name == NULL || *name == '\0') && humanoid != NULL)
    name = humanoid->def;
  if (name != NULL && *name != '\0')
    km_skeleton_builder_set_model_name (r->builder, name);
  else
    {
      g_autofree char *stem = g_path_get_basename (r->path);
      char *dot = strrchr (stem, '.');

      if (dot != NULL && dot != stem)
        *dot = '\0';
      km_skeleton_builder_set_model_name (r->builder, stem);
    }
}

/**
 * km_openhrp_load:
 * @path: the path as given, for messages and relative Inline urls
 * @data: the file's bytes (need not be NUL-terminated)
 *
 * Returns: (transfer full) (nullable): the skeleton, or %NULL with a KM_PARSE_ERROR
 */
KmSkeleton *
km_openhrp_load (const char  *path,
                 const char  *data,
                 gsize        length,
                 GError     **error)
{
  g_autoptr(KmMeshCache) cache = km_mesh_cache_new ();
  g_autoptr(KmVrmlDoc) doc = NULL;
  g_autoptr(KmSkeletonBuilder) builder = NULL;
  g_autoptr(GArray) joint_pos = NULL;
  g_autoptr(GHashTable) visited = NULL;
  g_autoptr(GHashTable) warned = NULL;
  g_autoptr(GError) build_error = NULL;
  KmSkeletonProblem problem = { 0 };
  KmVrmlNode *root, *humanoid = NULL;
  KmAffine identity;
  KmSkeleton *skel;
  Reader r = { 0 };

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (data != NULL || length == 0, NULL);

  if (length > KM_MESH_MAX_FILE_SIZE)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, path, (KmSourcePos) { 0, 0 },
                          _("the file is larger than %u MiB"),
                          (guint) (KM_MESH_MAX_FILE_SIZE / (1024 * 1024)));
      return NULL;
    }
  doc = _km_vrml_doc_parse (path, data, length, cache, error);
  if (doc == NULL)
    return NULL;
  builder = km_skeleton_builder_new ();
  joint_pos = g_array_new (FALSE, FALSE, sizeof (KmSourcePos));
  visited = g_hash_table_new (NULL, NULL);
  warned = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  r = (Reader) { path, doc, builder, joint_pos, visited, warned, 0 };

  root = find_root (&r, &humanoid, error);
  if (root == NULL)
    return NULL;
  set_model_name (&r, humanoid);
  _km_affine_identity (&identity);
  if (!add_joint (&r, root, NULL, &identity, root->pos, 0, error))
    return NULL;

  skel = km_skeleton_builder_build (builder, &problem, &build_error);
  if (skel == NULL)
    {
      KmSourcePos pos = problem.joint < joint_pos->len
                        ? g_array_index (joint_pos, KmSourcePos, problem.joint)
                        : (KmSourcePos) { 1, 1 };

      km_parse_error_set (error, KM_PARSE_ERROR_INVALID, path, pos, "%s",
                          build_error->message);
      return NULL;
    }
  return skel;
}

static const char *
find_text (const char *p,
           const char *end,
           const char *needle)
{
  gsize n = strlen (needle);

  for (; p + n <= end; p++)
    if (*p == needle[0] && memcmp (p, needle, n) == 0)
      return p;
  return NULL;
}

/* @word followed by white space or @next (a character, or 0 for none). */
static gboolean
has_word (const char *data,
          const char *end,
          const char *word,
          char        next)
{
  gsize n = strlen (word);

  for (const char *p = data; (p = find_text (p, end, word)) != NULL; p++)
    if (p + n < end && (g_ascii_isspace (p[n]) || (next != 0 && p[n] == next)))
      return TRUE;
  return FALSE;
}

/**
 * km_openhrp_sniff:
 *
 * Returns: 85 for "#VRML V2.0" text (within the first megabyte; UTF-8, or UTF-16 with its
 *   byte order mark) that declares a Joint PROTO or instantiates Humanoid, 0 otherwise
 */
int
km_openhrp_sniff (const char *data,
                  gsize       length)
{
  g_autofree char *owned = NULL;
  gsize n, i = 0;
  const char *end;

  /* After a byte order mark, UTF-8 or UTF-16 (as some Windows exporters write). */
  data = _km_mesh_text_sniff (data, length, SNIFF_LIMIT, &owned, &n);
  end = data + n;
  while (i < n && g_ascii_isspace (data[i]))
    i++;
  if (n - i < 10 || memcmp (data + i, "#VRML V2.0", 10) != 0)
    return 0;
  if (has_word (data + i, end, "PROTO Joint", '[') || has_word (data + i, end, "Humanoid {", 0)
      || has_word (data + i, end, "Humanoid{", 0))
    return 85;
  return 0;
}

const char *
km_openhrp_body_item_format (const char *format,
                             const char *path)
{
  g_autofree char *lower = NULL;

  g_return_val_if_fail (path != NULL, format);

  if (format == NULL || g_ascii_strcasecmp (format, "CHOREONOID-BODY") != 0)
    return format;
  lower = g_ascii_strdown (path, -1);
  if (g_str_has_suffix (lower, ".wrl") || g_str_has_suffix (lower, ".vrml"))
    return NULL;
  return format;
}

static gpointer
format_load (const char  *path,
             GBytes      *contents,
             GError     **error)
{
  gsize length;
  const char *data = g_bytes_get_data (contents, &length);

  return km_openhrp_load (path, data ? data : "", length, error);
}

const KmFormat km_format_openhrp = {
  .name = "OPENHRP-VRML-MODEL",
  .kind = KM_FILE_KIND_MODEL,
  .description = N_("OpenHRP VRML body model"),
  .sniff = km_openhrp_sniff,
  .load = format_load,
  .free_result = (void (*) (gpointer)) km_skeleton_unref,
  .describe = km_skeleton_json_describe,
};
