/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-urdf"

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "km-urdf.h"

#include "km-error.h"
#include "km-markup-text.h"
#include "km-mesh-loader.h"
#include "km-number.h"
#include "km-skeleton-json.h"

typedef enum
{
  GEOM_NONE,
  GEOM_BOX,
  GEOM_SPHERE,
  GEOM_CYLINDER,
  GEOM_MESH,
} GeomKind;

typedef struct
{
  KmTransform  origin;
  GeomKind     kind;
  KmVec3       size;          /* box */
  double       radius;
  double       length;
  char        *filename;      /* mesh */
  KmSourcePos  filename_pos;
  KmVec3       scale;
  char        *material;      /* a robot-level material name, or NULL */
  KmSourcePos  material_pos;
  gboolean     has_color;
  KmColor      color;
  gboolean     has_origin;    /* urdfdom reads the first <origin>, <material>, <color> */
  gboolean     has_material;
  gboolean     broken;        /* a value could not be read: left out, with a warning */
} UrdfVisual;

typedef struct
{
  char        *name;
  KmSourcePos  pos;           /* of the name value */
  GArray      *visuals;       /* UrdfVisual */
} UrdfLink;

typedef struct
{
  char        *name;
  KmSourcePos  pos;           /* of the name value */
  char        *type;
  KmSourcePos  type_pos;
  char        *parent;
  KmSourcePos  parent_pos;
  char        *child;
  KmSourcePos  child_pos;
  KmVec3       xyz;
  KmQuat       rotation;
  gboolean     has_rotation;
  gboolean     has_origin;
  KmSourcePos  origin_pos;
  KmVec3       axis;
  gboolean     has_axis;
  KmSourcePos  axis_pos;
  gboolean     has_limit;
  double       lower;
  double       upper;
  double       effort;        /* NAN when not given (or not a number: warned) */
  double       velocity;
  KmSourcePos  limit_pos;
  char        *mimic;         /* <mimic joint=…>, NULL when none */
  KmSourcePos  mimic_pos;     /* of the joint value */
  double       mimic_multiplier;
  double       mimic_offset;
  guint        index;         /* in the skeleton builder */
} UrdfJoint;

typedef struct
{
  KmColor      color;
  gboolean     has_color;
} UrdfMaterial;

typedef struct
{
  const char  *path;
  KmMarkupText markup;        /* the text, BOM stripped */
  gsize        tag_offset;    /* '<' of the element being started */

  GPtrArray   *stack;         /* element names, owned copies */
  guint        skip_depth;    /* > 0 while inside an element that is not read */
  gboolean     seen_robot;
  KmSourcePos  robot_pos;     /* its <robot> */
  char        *robot_name;    /* <robot name=…>, NULL when none */

  GPtrArray   *links;         /* UrdfLink * */
  GPtrArray   *joints;        /* UrdfJoint * */
  GHashTable  *materials;     /* name → UrdfMaterial * */
  GHashTable  *packages_found; /* km_package_cache_new: package:// look-ups */

  UrdfLink    *link;          /* the <link> being read */
  UrdfJoint   *joint;
  UrdfVisual  *visual;
  UrdfMaterial *material;     /* a robot-level <material> being read */
  gboolean     material_has_color_element;
  gboolean     in_visual_material;
  /* The elements of unmodelled_kinds met: how many, and where the first one is. */
  guint        n_unmodelled[4];
  KmSourcePos  first_unmodelled[4];
} Parser;

/* What Kinema reads no part of, and says so: one warning per kind and file, at the first
 * element, with the count (every real URDF has collisions; a warning each would drown
 * the others). <inertial> and unknown elements are skipped silently. */
static const char *const unmodelled_kinds[] = {
  "collision", "transmission", "gazebo", "ros2_control"
};
G_STATIC_ASSERT (G_N_ELEMENTS (unmodelled_kinds)
                 == G_N_ELEMENTS (((Parser *) NULL)->n_unmodelled));

/* Counts @element when it is one of unmodelled_kinds. */
static void
count_unmodelled (Parser     *p,
                  const char *element,
                  KmSourcePos pos)
{
  for (guint k = 0; k < G_N_ELEMENTS (unmodelled_kinds); k++)
    if (g_str_equal (element, unmodelled_kinds[k]) && p->n_unmodelled[k]++ == 0)
      p->first_unmodelled[k] = pos;
}

static void
warn_unmodelled_kind (Parser *p,
                      guint   k)
{
  km_parse_warning (p->path, p->first_unmodelled[k],
                    /* Translators: %u is a count, %s an element name (collision,
                     * transmission, gazebo, ros2_control) */
                    g_dngettext (GETTEXT_PACKAGE,
                                 "%u <%s> element is not modelled; it is skipped",
                                 "%u <%s> elements are not modelled; they are skipped "
                                 "(the first is here)", p->n_unmodelled[k]),
                    p->n_unmodelled[k], unmodelled_kinds[k]);
}

static gboolean
pos_before (KmSourcePos a,
            KmSourcePos b)
{
  return a.line < b.line || (a.line == b.line && a.column < b.column);
}

/* The warnings, in the order of the first elements in the file. */
static void
warn_unmodelled (Parser *p)
{
  gboolean warned[G_N_ELEMENTS (unmodelled_kinds)] = { FALSE };

  for (guint n = 0; n < G_N_ELEMENTS (unmodelled_kinds); n++)
    {
      int first = -1;

      for (guint k = 0; k < G_N_ELEMENTS (unmodelled_kinds); k++)
        if (p->n_unmodelled[k] > 0 && !warned[k] &&
            (first < 0 || pos_before (p->first_unmodelled[k], p->first_unmodelled[first])))
          first = (int) k;
      if (first < 0)
        return;
      warned[first] = TRUE;
      warn_unmodelled_kind (p, (guint) first);
    }
}

static void
visual_clear (gpointer data)
{
  UrdfVisual *v = data;

  g_free (v->filename);
  g_free (v->material);
}

static void
link_free (gpointer data)
{
  UrdfLink *l = data;

  g_free (l->name);
  g_array_unref (l->visuals);
  g_free (l);
}

static void
joint_free (gpointer data)
{
  UrdfJoint *j = data;

  g_free (j->name);
  g_free (j->type);
  g_free (j->parent);
  g_free (j->child);
  g_free (j->mimic);
  g_free (j);
}

/* ---- positions ---------------------------------------------------------------------- */

static KmSourcePos
pos_at (Parser *p,
        gsize   offset)
{
  return km_markup_text_pos (&p->markup, offset);
}

/* The first character of attribute @name's value in the tag at p->tag_offset. */
static KmSourcePos
attr_pos (Parser     *p,
          const char *name)
{
  return km_markup_text_attr_pos (&p->markup, p->tag_offset, name);
}

static KmSourcePos
tag_pos (Parser *p)
{
  return pos_at (p, p->tag_offset);
}

/* ---- attribute values --------------------------------------------------------------- */

static const char *
find_attr (const char **names,
           const char **values,
           const char  *name)
{
  for (guint i = 0; names[i]; i++)
    if (g_str_equal (names[i], name))
      return values[i];
  return NULL;
}

/*
 * A value that cannot be read. In a joint, or anywhere outside visuals and materials, the
 * file is refused (@error is set). Inside a <visual> or a <material> it is a warning: the
 * visual, or the colour, is left out and the rest of the file loads. urdfdom accepts such
 * files too (it drops the visual, or the material, and goes on), so robots that RViz shows
 * load here. start_element skips the element when a helper fails without setting @error.
 */
static void
report (Parser      *p,
        GError     **error,
        KmSourcePos  pos,
        const char  *format,
        ...) G_GNUC_PRINTF (4, 5);

static void
report (Parser      *p,
        GError     **error,
        KmSourcePos  pos,
        const char  *format,
        ...)
{
  g_autofree char *text = NULL;
  va_list args;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);

  if (p->in_visual_material || (p->material != NULL && p->link == NULL))
    /* Translators: %s is a message about a value, like “expected a finite number”. */
    km_parse_warning (p->path, pos, _("%s; the colour is left out"), text);
  else if (p->visual != NULL)
    {
      /* Translators: %s is a message about a value, like “expected a finite number”. */
      km_parse_warning (p->path, pos, _("%s; the visual is left out"), text);
      p->visual->broken = TRUE;
    }
  else
    km_parse_error_set (error, KM_PARSE_ERROR_INVALID, p->path, pos, "%s", text);
}

static gboolean
require_attr (Parser      *p,
              const char **names,
              const char **values,
              const char  *element,
              const char  *name,
              const char **out,
              GError     **error)
{
  *out = find_attr (names, values, name);
  if (*out == NULL)
    {
      /* Translators: the first %s is an XML attribute name, the second an element name. */
      report (p, error, tag_pos (p), _("expected a “%s” attribute on <%s>"), name, element);
      return FALSE;
    }
  return TRUE;
}

/*
 * Exactly @n finite numbers separated by white space: decimal, with an optional sign and
 * exponent ("1e-3", "+2", ".5"), as urdfdom reads them (C++ streams in the classic locale).
 * Hexadecimal ("0x10"), which g_ascii_strtod would take and urdfdom refuses, is refused.
 * Tabs and line breaks count as spaces (urdfdom splits at spaces only): a file that
 * urdfdom reads is read the same here.
 */
static gboolean
parse_numbers (Parser     *p,
               const char *attr,
               const char *value,
               double     *out,
               guint       n,
               GError    **error)
{
  const char *s = value;
  guint count = 0;

  for (;;)
    {
      char *end;
      double v;

      while (g_ascii_isspace (*s))
        s++;
      if (*s == '\0')
        break;
      if (count == n)
        goto bad;
      if (!_km_ascii_strtod_finite (s, &end, &v) ||
          (*end != '\0' && !g_ascii_isspace (*end)) ||
          memchr (s, 'x', (gsize) (end - s)) != NULL ||
          memchr (s, 'X', (gsize) (end - s)) != NULL)
        goto bad;
      out[count++] = v;
      s = end;
    }
  if (count == n)
    return TRUE;

bad:
  /* A xacro file read as URDF: say what to do instead of only what is wrong. */
  if (strstr (value, "${") != NULL || strstr (value, "$(") != NULL)
    report (p, error, attr_pos (p, attr),
            _("expected numbers in “%s”, found a xacro expression: expand the "
              "file with xacro first"), attr);
  else if (n == 1)
    report (p, error, attr_pos (p, attr), _("expected a finite number in “%s”"), attr);
  else
    /* Translators: %u is a count (3 or 4), %s an XML attribute name. */
    report (p, error, attr_pos (p, attr),
            _("expected %u finite numbers separated by spaces in “%s”"), n, attr);
  return FALSE;
}

static gboolean
parse_vec3 (Parser      *p,
            const char **names,
            const char **values,
            const char  *attr,
            KmVec3      *out,
            GError     **error)
{
  const char *value = find_attr (names, values, attr);
  double v[3];

  if (value == NULL)
    return TRUE;
  if (!parse_numbers (p, attr, value, v, 3, error))
    return FALSE;
  *out = km_vec3 (v[0], v[1], v[2]);
  return TRUE;
}

static gboolean
parse_positive (Parser      *p,
                const char **names,
                const char **values,
                const char  *element,
                const char  *attr,
                double      *out,
                GError     **error)
{
  const char *value;

  if (!require_attr (p, names, values, element, attr, &value, error) ||
      !parse_numbers (p, attr, value, out, 1, error))
    return FALSE;
  if (*out <= 0)
    {
      report (p, error, attr_pos (p, attr), _("expected a positive number in “%s”"), attr);
      return FALSE;
    }
  return TRUE;
}

static gboolean
parse_rgba (Parser      *p,
            const char **names,
            const char **values,
            KmColor     *out,
            GError     **error)
{
  const char *value;
  double v[4];

  if (!require_attr (p, names, values, "color", "rgba", &value, error) ||
      !parse_numbers (p, "rgba", value, v, 4, error))
    return FALSE;
  for (guint i = 0; i < 4; i++)
    if (v[i] < 0 || v[i] > 1)
      {
        report (p, error, attr_pos (p, "rgba"),
                _("expected four numbers between 0 and 1 in “rgba”"));
        return FALSE;
      }
  *out = (KmColor) { (float) v[0], (float) v[1], (float) v[2], (float) v[3] };
  return TRUE;
}

/* URDF rpy: fixed-axis roll about X, then pitch about Y, then yaw about Z. */
static KmQuat
quat_from_rpy (KmVec3 rpy)
{
  KmQuat qx = km_quat_from_axis_angle (km_vec3 (1, 0, 0), rpy.x);
  KmQuat qy = km_quat_from_axis_angle (km_vec3 (0, 1, 0), rpy.y);
  KmQuat qz = km_quat_from_axis_angle (km_vec3 (0, 0, 1), rpy.z);

  return km_quat_mul (qz, km_quat_mul (qy, qx));
}

/* ---- GMarkup callbacks -------------------------------------------------------------- */

static const char *
parent_element (Parser *p)
{
  return p->stack->len > 0 ? g_ptr_array_index (p->stack, p->stack->len - 1) : NULL;
}

/*
 * <origin xyz rpy> or <origin xyz quat_xyzw> (urdfdom 4, ROS 2 Jazzy and later: a
 * quaternion x y z w, normalised; zero is an error, and so is giving both rpy and
 * quat_xyzw). A missing xyz is zero, a missing orientation the identity.
 */
static gboolean
parse_origin (Parser      *p,
              const char **names,
              const char **values,
              KmVec3      *xyz,
              KmQuat      *rotation,
              gboolean    *has_rotation,
              GError     **error)
{
  const char *quat = find_attr (names, values, "quat_xyzw");
  KmVec3 rpy = KM_VEC3_ZERO;

  *xyz = KM_VEC3_ZERO;
  *rotation = KM_QUAT_IDENTITY;
  *has_rotation = FALSE;
  if (!parse_vec3 (p, names, values, "xyz", xyz, error))
    return FALSE;
  if (quat != NULL)
    {
      double v[4];
      KmQuat q;
      double n;

      if (find_attr (names, values, "rpy") != NULL)
        {
          report (p, error, attr_pos (p, "quat_xyzw"),
                  _("expected either “rpy” or “quat_xyzw” on <origin>, not both"));
          return FALSE;
        }
      if (!parse_numbers (p, "quat_xyzw", quat, v, 4, error))
        return FALSE;
      q = (KmQuat) { .w = v[3], .x = v[0], .y = v[1], .z = v[2] };
      n = km_quat_length (q);
      if (!isfinite (n) || n < 1e-9)
        {
          report (p, error, attr_pos (p, "quat_xyzw"),
                  _("expected a quaternion that is not zero in “quat_xyzw”"));
          return FALSE;
        }
      *rotation = km_quat_normalize (q);
      *has_rotation = TRUE;
      return TRUE;
    }
  if (!parse_vec3 (p, names, values, "rpy", &rpy, error))
    return FALSE;
  if (rpy.x != 0 || rpy.y != 0 || rpy.z != 0)
    {
      *rotation = quat_from_rpy (rpy);
      *has_rotation = TRUE;
    }
  return TRUE;
}

static gboolean
start_link_child (Parser      *p,
                  const char  *element,
                  const char **names,
                  const char **values,
                  GError     **error)
{
  const char *parent = parent_element (p);

  if (g_str_equal (parent, "link"))
    {
      if (g_str_equal (element, "visual"))
        {
          UrdfVisual v = { 0 };

          km_transform_identity (&v.origin);
          v.scale = km_vec3 (1, 1, 1);
          g_array_append_val (p->link->visuals, v);
          p->visual = &g_array_index (p->link->visuals, UrdfVisual, p->link->visuals->len - 1);
          return TRUE;
        }
      /* collision, inertial and anything else: not read */
      count_unmodelled (p, element, tag_pos (p));
      p->skip_depth = 1;
      return TRUE;
    }
  if (p->visual == NULL)
    {
      p->skip_depth = 1;
      return TRUE;
    }

  if (g_str_equal (parent, "visual"))
    {
      /* urdfdom reads the first <origin> and the first <material> of a visual. */
      if (g_str_equal (element, "origin") && !p->visual->has_origin)
        {
          KmVec3 xyz;
          KmQuat rotation;
          gboolean has_rotation;

          p->visual->has_origin = TRUE;
          if (!parse_origin (p, names, values, &xyz, &rotation, &has_rotation, error))
            return FALSE;
          km_transform_from_pos_quat (xyz, rotation, &p->visual->origin);
        }
      else if (g_str_equal (element, "geometry"))
        ;
      else if (g_str_equal (element, "material") && !p->visual->has_material)
        {
          const char *name = find_attr (names, values, "name");

          p->visual->has_material = TRUE;
          p->in_visual_material = TRUE;
          p->material_has_color_element = FALSE;
          if (name != NULL && *name != '\0')
            {
              g_free (p->visual->material);
              p->visual->material = g_strdup (name);
              p->visual->material_pos = attr_pos (p, "name");
            }
        }
      else
        p->skip_depth = 1;
      return TRUE;
    }

  if (g_str_equal (parent, "geometry"))
    {
      UrdfVisual *v = p->visual;

      /* urdfdom reads the first shape of a <geometry> and ignores the rest; files
       * written against it (DART's test models, for one) rely on that. */
      if (v->kind != GEOM_NONE)
        {
          km_parse_warning (p->path, tag_pos (p),
                            _("<geometry> has more than one shape; <%s> is ignored"),
                            element);
          p->skip_depth = 1;
          return TRUE;
        }
      if (g_str_equal (element, "box"))
        {
          const char *size;

          v->kind = GEOM_BOX;
          if (!require_attr (p, names, values, element, "size", &size, error) ||
              !parse_vec3 (p, names, values, "size", &v->size, error))
            return FALSE;
          if (v->size.x < 0 || v->size.y < 0 || v->size.z < 0)
            {
              report (p, error, attr_pos (p, "size"), _("expected sizes that are not negative"));
              return FALSE;
            }
        }
      else if (g_str_equal (element, "sphere"))
        {
          v->kind = GEOM_SPHERE;
          if (!parse_positive (p, names, values, element, "radius", &v->radius, error))
            return FALSE;
        }
      else if (g_str_equal (element, "cylinder"))
        {
          v->kind = GEOM_CYLINDER;
          if (!parse_positive (p, names, values, element, "radius", &v->radius, error) ||
              !parse_positive (p, names, values, element, "length", &v->length, error))
            return FALSE;
        }
      else if (g_str_equal (element, "mesh"))
        {
          const char *filename;

          v->kind = GEOM_MESH;
          if (!require_attr (p, names, values, element, "filename", &filename, error))
            return FALSE;
          v->filename = g_strdup (filename);
          v->filename_pos = attr_pos (p, "filename");
          if (!parse_vec3 (p, names, values, "scale", &v->scale, error))
            return FALSE;
        }
      else
        {
          km_parse_warning (p->path, tag_pos (p),
                            _("geometry <%s> is not supported; the visual is left out"),
                            element);
          p->skip_depth = 1;
        }
      return TRUE;
    }

  if (g_str_equal (parent, "material") && p->in_visual_material)
    {
      /* urdfdom reads the first <color>; a bad one leaves the colour out, not the visual. */
      if (g_str_equal (element, "color") && !p->material_has_color_element)
        {
          p->material_has_color_element = TRUE;
          if (!parse_rgba (p, names, values, &p->visual->color, error))
            return FALSE;
          p->visual->has_color = TRUE;
        }
      else
        p->skip_depth = 1;
      return TRUE;
    }

  p->skip_depth = 1;
  return TRUE;
}

/* A joint whose <axis> is read. urdfdom ignores the axis of fixed and floating joints,
 * whatever it holds; a planar joint's axis (the plane's normal) is not used here, as the
 * joint becomes a free root or a fixed joint. An unknown type is refused later. */
static gboolean
joint_has_axis (const UrdfJoint *j)
{
  return g_str_equal (j->type, "revolute") || g_str_equal (j->type, "continuous") ||
         g_str_equal (j->type, "prismatic");
}

/* The effort or velocity of a <limit>, NAN when absent. Kinema only keeps them for writers,
 * so a value that is not a number is left out with a warning rather than refused. */
static double
limit_value (Parser      *p,
             const char **names,
             const char **values,
             const char  *attr)
{
  const char *value = find_attr (names, values, attr);
  gboolean ok;
  char *end;
  double v;

  if (value == NULL)
    return NAN;
  ok = _km_ascii_strtod_finite (value, &end, &v);
  while (g_ascii_isspace (*end))
    end++;
  if (!ok || *end != '\0')
    {
      km_parse_warning (p->path, attr_pos (p, attr),
                        _("expected a finite number in “%s”; it is left out"), attr);
      return NAN;
    }
  return v;
}

/*
 * urdfdom reads the first <origin>, <axis>, <limit>, <parent>, <child> and <mimic> of a
 * joint and ignores later ones; so does this reader, with a warning for each one ignored.
 */
static gboolean
second_joint_child (Parser     *p,
                    const char *element,
                    gboolean    seen)
{
  if (!seen)
    return FALSE;
  /* Translators: the first %s is an element name (origin, axis, limit, parent, child,
   * mimic), the second a joint name. */
  km_parse_warning (p->path, tag_pos (p), _("a second <%s> in joint “%s” is ignored"),
                    element, p->joint->name);
  p->skip_depth = 1;
  return TRUE;
}

static gboolean
start_joint_child (Parser      *p,
                   const char  *element,
                   const char **names,
                   const char **values,
                   GError     **error)
{
  UrdfJoint *j = p->joint;
  const char *value;

  if (g_str_equal (element, "parent") || g_str_equal (element, "child"))
    {
      gboolean is_parent = element[0] == 'p';
      char **slot = is_parent ? &j->parent : &j->child;

      if (second_joint_child (p, element, *slot != NULL))
        return TRUE;
      if (!require_attr (p, names, values, element, "link", &value, error))
        return FALSE;
      *slot = g_strdup (value);
      *(is_parent ? &j->parent_pos : &j->child_pos) = attr_pos (p, "link");
    }
  else if (g_str_equal (element, "origin"))
    {
      if (second_joint_child (p, element, j->has_origin))
        return TRUE;
      j->has_origin = TRUE;
      j->origin_pos = tag_pos (p);
      if (!parse_origin (p, names, values, &j->xyz, &j->rotation, &j->has_rotation, error))
        return FALSE;
    }
  else if (g_str_equal (element, "axis") && joint_has_axis (j))
    {
      if (second_joint_child (p, element, j->has_axis))
        return TRUE;
      j->has_axis = TRUE;
      if (!require_attr (p, names, values, element, "xyz", &value, error) ||
          !parse_vec3 (p, names, values, "xyz", &j->axis, error))
        return FALSE;
      j->axis_pos = attr_pos (p, "xyz");
    }
  else if (g_str_equal (element, "limit"))
    {
      const char *lower = find_attr (names, values, "lower");
      const char *upper = find_attr (names, values, "upper");

      if (second_joint_child (p, element, j->has_limit))
        return TRUE;
      /* URDF: lower and upper default to 0. */
      j->has_limit = TRUE;
      j->lower = j->upper = 0;
      j->limit_pos = lower ? attr_pos (p, "lower") : upper ? attr_pos (p, "upper") : tag_pos (p);
      if ((lower && !parse_numbers (p, "lower", lower, &j->lower, 1, error)) ||
          (upper && !parse_numbers (p, "upper", upper, &j->upper, 1, error)))
        return FALSE;
      /* Kept for writers only: a value that is not a number is left out, not fatal. */
      j->effort = limit_value (p, names, values, "effort");
      j->velocity = limit_value (p, names, values, "velocity");
    }
  else if (g_str_equal (element, "mimic"))
    {
      const char *multiplier = find_attr (names, values, "multiplier");
      const char *offset = find_attr (names, values, "offset");

      if (second_joint_child (p, element, j->mimic != NULL))
        return TRUE;
      if (!require_attr (p, names, values, element, "joint", &value, error))
        return FALSE;
      /* URDF: multiplier defaults to 1, offset to 0. */
      j->mimic_multiplier = 1;
      j->mimic_offset = 0;
      if ((multiplier && !parse_numbers (p, "multiplier", multiplier, &j->mimic_multiplier, 1,
                                         error)) ||
          (offset && !parse_numbers (p, "offset", offset, &j->mimic_offset, 1, error)))
        return FALSE;
      j->mimic = g_strdup (value);
      j->mimic_pos = attr_pos (p, "joint");
      p->skip_depth = 1;
    }
  else
    {
      /* dynamics, calibration, safety_controller, the axis of a fixed or floating joint:
       * not needed for kinematics */
      p->skip_depth = 1;
    }
  return TRUE;
}

/* urdfdom 3 reads version "1.0" only (the default) and refuses any other; URDF 1.1 (urdfdom
 * 4) adds quat_xyzw, read here whatever the version. Anything else is read as 1.0, with a
 * warning. */
static void
check_version (Parser     *p,
               const char *version)
{
  if (version == NULL || g_str_equal (version, "1.0") || g_str_equal (version, "1.1"))
    return;
  km_parse_warning (p->path, attr_pos (p, "version"),
                    _("URDF version “%s” is not known; the file is read as version 1.0"),
                    version);
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
  const char *parent;
  gboolean ok = TRUE;

  p->tag_offset = km_markup_text_start_element (&p->markup, p->path,
                                                (const char * const *) names, error);
  if (error != NULL && *error != NULL)
    return;

  if (p->skip_depth > 0)
    {
      p->skip_depth++;
      return;
    }
  if (p->stack->len >= KM_URDF_MAX_DEPTH)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, p->path, tag_pos (p),
                          _("elements are nested too deeply (at most %d levels)"),
                          KM_URDF_MAX_DEPTH);
      return;
    }

  parent = parent_element (p);
  if (parent == NULL)
    {
      if (!g_str_equal (element, "robot"))
        {
          km_parse_error_set (error, KM_PARSE_ERROR_INVALID, p->path, tag_pos (p),
                              _("expected <robot> as the document element, found <%s>"),
                              element);
          return;
        }
      if (p->seen_robot)
        {
          /* GMarkup reports content after the document element only at its end. */
          km_parse_error_set (error, KM_PARSE_ERROR_INVALID, p->path, tag_pos (p),
                              _("a second document element <%s> after the first one ended"),
                              element);
          return;
        }
      p->seen_robot = TRUE;
      p->robot_pos = tag_pos (p);
      p->robot_name = g_strdup (find_attr (names, values, "name"));
      check_version (p, find_attr (names, values, "version"));
    }
  else if (g_str_equal (parent, "robot"))
    {
      if (g_str_equal (element, "link"))
        {
          const char *name;
          UrdfLink *l;

          if (!require_attr (p, names, values, element, "name", &name, error))
            return;
          if (p->links->len >= KM_SKELETON_MAX_JOINTS)
            {
              km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, p->path, tag_pos (p),
                                  _("too many links (at most %d)"), KM_SKELETON_MAX_JOINTS);
              return;
            }
          l = g_new0 (UrdfLink, 1);
          l->name = g_strdup (name);
          l->pos = attr_pos (p, "name");
          l->visuals = g_array_new (FALSE, TRUE, sizeof (UrdfVisual));
          g_array_set_clear_func (l->visuals, visual_clear);
          g_ptr_array_add (p->links, l);
          p->link = l;
        }
      else if (g_str_equal (element, "joint"))
        {
          const char *name, *type;
          UrdfJoint *j;

          if (!require_attr (p, names, values, element, "name", &name, error) ||
              !require_attr (p, names, values, element, "type", &type, error))
            return;
          if (p->joints->len >= KM_SKELETON_MAX_JOINTS)
            {
              km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, p->path, tag_pos (p),
                                  _("too many joints (at most %d)"), KM_SKELETON_MAX_JOINTS);
              return;
            }
          j = g_new0 (UrdfJoint, 1);
          j->name = g_strdup (name);
          j->pos = attr_pos (p, "name");
          j->type = g_strdup (type);
          j->type_pos = attr_pos (p, "type");
          j->axis = km_vec3 (1, 0, 0);
          j->axis_pos = j->limit_pos = j->origin_pos = tag_pos (p);
          g_ptr_array_add (p->joints, j);
          p->joint = j;
        }
      else if (g_str_equal (element, "material"))
        {
          /* urdfdom refuses a second material of the same name; the first one is kept
           * here. A material without a name cannot be used: both are warnings. */
          const char *name = find_attr (names, values, "name");

          if (name == NULL)
            {
              km_parse_warning (p->path, tag_pos (p),
                                _("a <material> without a “name” is ignored"));
              p->skip_depth = 1;
            }
          else if (g_hash_table_contains (p->materials, name))
            {
              km_parse_warning (p->path, attr_pos (p, "name"),
                                _("material “%s” is defined twice; the first definition is "
                                  "used"), name);
              p->skip_depth = 1;
            }
          else
            {
              p->material = g_new0 (UrdfMaterial, 1);
              p->material_has_color_element = FALSE;
              g_hash_table_insert (p->materials, g_strdup (name), p->material);
            }
        }
      else
        {
          count_unmodelled (p, element, tag_pos (p));
          p->skip_depth = 1;    /* transmission, gazebo, … */
        }
    }
  else if (p->link != NULL)
    ok = start_link_child (p, element, names, values, error);
  else if (p->joint != NULL)
    ok = start_joint_child (p, element, names, values, error);
  else if (p->material != NULL && g_str_equal (element, "color") &&
           !p->material_has_color_element)
    {
      p->material_has_color_element = TRUE;
      ok = parse_rgba (p, names, values, &p->material->color, error);
      p->material->has_color = ok;
    }
  else
    p->skip_depth = 1;

  /* A value that report() turned into a warning: the element is skipped. */
  if (!ok && *error == NULL)
    {
      ok = TRUE;
      p->skip_depth = 1;
    }
  /* A skipped element is counted in skip_depth, not pushed. */
  if (ok && p->skip_depth == 0)
    g_ptr_array_add (p->stack, g_strdup (element));
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
  if (p->stack->len == 0)
    return;
  if (g_str_equal (element, "link"))
    p->link = NULL;
  else if (g_str_equal (element, "joint"))
    p->joint = NULL;
  else if (g_str_equal (element, "visual"))
    p->visual = NULL;
  else if (g_str_equal (element, "material"))
    {
      if (p->in_visual_material)
        p->in_visual_material = FALSE;
      else
        p->material = NULL;
    }
  g_ptr_array_set_size (p->stack, p->stack->len - 1);
}

/* ---- building ----------------------------------------------------------------------- */

/* @packages_found: km_package_uri_resolve's memory for this load. */
static char *
resolve_mesh_path (const char          *urdf_path,
                   const char          *filename,
                   const char * const  *package_paths,
                   GHashTable          *packages_found)
{
  if (g_str_has_prefix (filename, "package://"))
    return km_package_uri_resolve (filename, urdf_path, package_paths, packages_found);
  if (g_str_has_prefix (filename, "file://"))
    {
      char *local = g_filename_from_uri (filename, NULL, NULL);

      return local;
    }
  if (strstr (filename, "://") != NULL)
    return NULL;
  /* Named as the user would ("meshes/arm.stl" beside a URDF given as "robot.urdf", not
   * "./meshes/arm.stl"): the mesh loaders' messages name this path. */
  return km_parse_included_path (urdf_path, filename);
}

/* A mesh that is not loaded stays in the model as written (a user with the ROS package
 * elsewhere still needs it): it draws nothing and the writers write it back. @file
 * (nullable) is where the name led, kept when a file is there (found, though not
 * readable as a mesh) as a loaded mesh keeps it (KmShape.uri_file): a writer saving the
 * model outside the package then names that file as it names a loaded one. */
static void
add_mesh_reference (Parser            *p,
                    KmSkeletonBuilder *builder,
                    guint              joint,
                    const UrdfVisual  *v,
                    const char        *file,
                    KmColor            color)
{
  g_autoptr(KmShape) shape = km_shape_new_mesh_reference (v->filename);

  km_shape_set_uri (shape, v->filename, p->path);
  if (file != NULL && g_file_test (file, G_FILE_TEST_IS_REGULAR))
    km_shape_set_uri_file (shape, file);
  shape->transform = v->origin;
  shape->scale = v->scale;
  shape->color = color;
  km_shape_set_material (shape, v->material);
  km_skeleton_builder_add_shape (builder, joint, shape);
}

static void
add_visual_shapes (Parser               *p,
                   KmSkeletonBuilder    *builder,
                   guint                 joint,
                   UrdfVisual           *v,
                   const KmUrdfOptions  *options,
                   KmMeshCache          *cache)
{
  KmColor color = KM_COLOR_DEFAULT;
  gboolean has_color = FALSE;

  if (v->broken)
    return;
  /* As urdfdom's assignMaterial: a named material that is known (robot-level, or defined
   * in an earlier link's visual) wins over the visual's own colour; an unknown name with
   * a colour defines the material for the links that follow. */
  if (v->material != NULL)
    {
      UrdfMaterial *m = g_hash_table_lookup (p->materials, v->material);

      if (m != NULL)
        {
          color = m->color;
          has_color = m->has_color;
        }
      else if (v->has_color)
        {
          m = g_new0 (UrdfMaterial, 1);
          m->color = v->color;
          m->has_color = TRUE;
          g_hash_table_insert (p->materials, g_strdup (v->material), m);
          color = v->color;
          has_color = TRUE;
        }
      else
        km_parse_warning (p->path, v->material_pos,
                          _("material “%s” is not defined; the default colour is used"),
                          v->material);
    }
  else if (v->has_color)
    {
      color = v->color;
      has_color = TRUE;
    }
  if (!has_color)
    color = KM_COLOR_DEFAULT;

  switch (v->kind)
    {
    case GEOM_BOX:
    case GEOM_SPHERE:
    case GEOM_CYLINDER:
      {
        g_autoptr(KmShape) shape = NULL;

        if (v->kind == GEOM_BOX)
          shape = km_shape_new_box (v->size);
        else if (v->kind == GEOM_SPHERE)
          shape = km_shape_new_sphere (v->radius);
        else
          {
            /* URDF cylinders run along Z; Kinema's along +Y: Rx(90°) takes Y to Z. */
            KmTransform turn;

            shape = km_shape_new_cylinder (v->radius, v->length);
            km_transform_from_pos_quat (KM_VEC3_ZERO,
                                        km_quat_from_axis_angle (km_vec3 (1, 0, 0), G_PI / 2),
                                        &turn);
            km_transform_mul (&v->origin, &turn, &shape->transform);
          }
        if (v->kind != GEOM_CYLINDER)
          shape->transform = v->origin;
        shape->color = color;
        km_shape_set_material (shape, v->material);
        km_skeleton_builder_add_shape (builder, joint, shape);
      }
      break;

    case GEOM_MESH:
      {
        g_autofree char *file = NULL;
        g_autoptr(GPtrArray) shapes = NULL;
        g_autoptr(GError) local_error = NULL;

        if (!options->load_meshes)
          {
            add_mesh_reference (p, builder, joint, v, NULL, color);
            break;
          }
        file = resolve_mesh_path (p->path, v->filename, options->package_paths,
                                  p->packages_found);
        if (file == NULL)
          {
            km_parse_warning (p->path, v->filename_pos,
                              _("cannot find mesh “%s” (set KINEMA_PACKAGE_PATH for "
                                "package:// names); it is not drawn"), v->filename);
            add_mesh_reference (p, builder, joint, v, NULL, color);
            break;
          }
        shapes = km_mesh_cache_load (cache, file, NULL, &local_error);
        if (shapes == NULL)
          {
            km_parse_warning (p->path, v->filename_pos,
                              _("mesh “%s” is not drawn: %s"), v->filename,
                              local_error->message);
            add_mesh_reference (p, builder, joint, v, file, color);
            break;
          }
        for (guint i = 0; i < shapes->len; i++)
          {
            g_autoptr(KmShape) shape = km_shape_copy (g_ptr_array_index (shapes, i));
            KmTransform t = shape->transform;

            /* origin · diag(scale) · (file transform · diag(file scale)): the file's own
             * transform is rigid with the scale applied in the mesh's frame first. */
            t.pos = km_vec3 (t.pos.x * v->scale.x, t.pos.y * v->scale.y, t.pos.z * v->scale.z);
            km_transform_mul (&v->origin, &t, &shape->transform);
            shape->scale = km_vec3 (shape->scale.x * v->scale.x, shape->scale.y * v->scale.y,
                                    shape->scale.z * v->scale.z);
            if (has_color)
              {
                shape->color = color;
                km_shape_set_material (shape, v->material);
              }
            /* The reference as written, so that writers keep it (KmShape.uri). */
            km_shape_set_uri (shape, v->filename, p->path);
            km_shape_set_uri_file (shape, file);
            shape->uri_transform = v->origin;
            shape->uri_scale = v->scale;
            shape->uri_part = i;
            km_skeleton_builder_add_shape (builder, joint, shape);
          }
      }
      break;

    case GEOM_NONE:
    default:
      break;
    }
}

/* The joint moves the link: its name is kept for writers (tf frames, MoveIt and controller
 * configurations refer to links by name). A name the skeleton cannot keep (empty, or
 * longer than a joint name may be) is left out: the link is then named after its joint. */
static void
set_link_name (KmSkeletonBuilder *builder,
               guint              joint,
               const char        *link)
{
  if (link[0] != '\0' && strlen (link) <= KM_SKELETON_MAX_NAME)
    km_skeleton_builder_set_link_name (builder, joint, link);
}

/* The URDF joint that became the builder's joint @index (not the root), NULL for none. */
static UrdfJoint *
joint_at (Parser *p,
          guint   index)
{
  for (guint i = 0; index > 0 && i < p->joints->len; i++)
    {
      UrdfJoint *j = g_ptr_array_index (p->joints, i);

      if (j->index == index)
        return j;
    }
  return NULL;
}

static KmSourcePos
problem_pos (Parser            *p,
             const KmSkeletonProblem *problem,
             UrdfLink          *root)
{
  UrdfJoint *j = joint_at (p, problem->joint);

  if (j == NULL)
    return root ? root->pos : (KmSourcePos) { 1, 1 };
  switch (problem->field)
    {
    case KM_JOINT_FIELD_TYPE:
      return j->type_pos;
    case KM_JOINT_FIELD_PARENT:
      return j->parent_pos;
    case KM_JOINT_FIELD_OFFSET:
    case KM_JOINT_FIELD_ROTATION:
      return j->origin_pos;
    case KM_JOINT_FIELD_AXIS:
      return j->axis_pos;
    case KM_JOINT_FIELD_LIMITS:
      return j->limit_pos;
    case KM_JOINT_FIELD_MIMIC:
      return j->mimic != NULL ? j->mimic_pos : j->pos;
    case KM_JOINT_FIELD_NAME:
    case KM_JOINT_FIELD_NONE:
    default:
      return j->pos;
    }
}

static gboolean
one_dof_type (const UrdfJoint *j)
{
  return g_str_equal (j->type, "revolute") || g_str_equal (j->type, "continuous") ||
         g_str_equal (j->type, "prismatic");
}

/* A joint's mimic, resolved to a master that mimics nobody. */
typedef struct
{
  guint        state;         /* RESOLVE_* */
  const char  *master;        /* the master's name (borrowed) */
  double       ratio;
  double       offset;
  gboolean     chained;       /* through another mimic joint */
  guint        ignored;       /* IGNORED_*: the joint's own <mimic> is not used */
} Resolved;

enum { RESOLVE_NEW, RESOLVE_ACTIVE, RESOLVE_DONE };
enum { IGNORED_NOT, IGNORED_UNKNOWN, IGNORED_CYCLE };

/*
 * <mimic joint= multiplier= offset=>: value = multiplier · value(joint) + offset, as a
 * mimic coupling of the skeleton. A joint that mimics a joint that mimics another one is
 * linked to the last one with the products (q = m₁·(m₂·q₂ + o₂) + o₁), with a warning.
 * urdfdom does not check the joint names of <mimic> at all; here a mimic of an unknown
 * joint, and every mimic of a cycle (a joint that mimics itself, two that mimic each
 * other), is ignored with a warning: those joints move on their own, and a joint that
 * mimics one of them follows it directly. A mimic on or of a joint that does not move
 * along one axis (fixed, floating, planar) is ignored with a warning too. Every joint is
 * resolved once (a long chain stays linear).
 */
static gboolean
link_mimics (Parser             *p,
             KmSkeletonBuilder  *builder,
             GError            **error)
{
  g_autoptr(GHashTable) by_name = NULL;
  g_autoptr(GArray) stack = NULL;
  g_autofree Resolved *resolved = NULL;
  guint n = p->joints->len;

  for (guint i = 0; i < n; i++)
    {
      UrdfJoint *j = g_ptr_array_index (p->joints, i);
      UrdfJoint *master;
      const Resolved *r;
      guint k;

      if (j->mimic == NULL)
        continue;
      if (by_name == NULL)
        {
          by_name = g_hash_table_new (g_str_hash, g_str_equal);
          /* The first of two joints of the same name: the builder refuses the second. */
          for (guint m = n; m > 0; m--)
            g_hash_table_insert (by_name, ((UrdfJoint *) g_ptr_array_index (p->joints, m - 1))->name,
                                 GUINT_TO_POINTER (m));
          resolved = g_new0 (Resolved, n);
          stack = g_array_new (FALSE, FALSE, sizeof (guint));
        }

      /* Down the chain to a resolved joint, an independent one, an unknown name or back
       * to a joint of this chain (a cycle). */
      g_array_set_size (stack, 0);
      k = i;
      for (;;)
        {
          UrdfJoint *jk = g_ptr_array_index (p->joints, k);
          guint next;

          if (resolved[k].state == RESOLVE_DONE || jk->mimic == NULL)
            break;
          if (resolved[k].state == RESOLVE_ACTIVE)
            {
              /* The joints from k on form the cycle: they move on their own. */
              guint s = stack->len;

              do
                {
                  guint t = g_array_index (stack, guint, --s);

                  resolved[t].state = RESOLVE_DONE;
                  resolved[t].ignored = IGNORED_CYCLE;
                }
              while (g_array_index (stack, guint, s) != k);
              g_array_set_size (stack, s);
              break;
            }
          resolved[k].state = RESOLVE_ACTIVE;
          g_array_append_val (stack, k);
          next = GPOINTER_TO_UINT (g_hash_table_lookup (by_name, jk->mimic));
          if (next == 0)
            break;
          k = next - 1;
        }
      /* Back up, each joint from its direct master. */
      for (guint s = stack->len; s > 0; s--)
        {
          guint t = g_array_index (stack, guint, s - 1);
          UrdfJoint *jt = g_ptr_array_index (p->joints, t);
          guint d = GPOINTER_TO_UINT (g_hash_table_lookup (by_name, jt->mimic));
          UrdfJoint *jd = d > 0 ? g_ptr_array_index (p->joints, d - 1) : NULL;
          Resolved *rt = &resolved[t];

          if (jd == NULL)
            rt->ignored = IGNORED_UNKNOWN;
          else if (jd->mimic == NULL || resolved[d - 1].ignored != IGNORED_NOT)
            {
              rt->master = jt->mimic;
              rt->ratio = jt->mimic_multiplier;
              rt->offset = jt->mimic_offset;
            }
          else
            {
              const Resolved *rd = &resolved[d - 1];

              /* q = m·(r·q_M + o) + o' */
              rt->master = rd->master;
              rt->ratio = jt->mimic_multiplier * rd->ratio;
              rt->offset = jt->mimic_multiplier * rd->offset + jt->mimic_offset;
              rt->chained = TRUE;
            }
          rt->state = RESOLVE_DONE;
        }

      r = &resolved[i];
      if (r->ignored == IGNORED_UNKNOWN)
        {
          km_parse_warning (p->path, j->mimic_pos,
                            _("joint “%s” mimics “%s”, which is not a joint; it moves on its "
                              "own"), j->name, j->mimic);
          continue;
        }
      if (r->ignored == IGNORED_CYCLE)
        {
          km_parse_warning (p->path, j->mimic_pos,
                            _("the <mimic> joints of “%s” form a cycle; it moves on its own"),
                            j->name);
          continue;
        }
      if (r->chained)
        km_parse_warning (p->path, j->mimic_pos,
                          _("joint “%s” mimics “%s”, which mimics another joint: it follows "
                            "“%s” with the combined multiplier and offset"),
                          j->name, j->mimic, r->master);
      k = GPOINTER_TO_UINT (g_hash_table_lookup (by_name, r->master));
      master = k > 0 ? g_ptr_array_index (p->joints, k - 1) : NULL;
      if (!one_dof_type (j) || (master != NULL && !one_dof_type (master)))
        {
          km_parse_warning (p->path, j->mimic_pos,
                            _("<mimic> links only revolute, continuous and prismatic joints; "
                              "joint “%s” moves on its own"), j->name);
          continue;
        }
      km_skeleton_builder_set_mimic (builder, j->index, r->master, r->ratio, r->offset);
    }
  return TRUE;
}

/* The build dropped a <mimic> whose joint cannot stay within its limits following its
 * master (urdfdom would move it outside them): the joint moves on its own. */
static void
mimic_unlinked (guint       joint,
                const char *reason,
                gpointer    user_data)
{
  Parser *p = user_data;
  const UrdfJoint *j;

  if ((j = joint_at (p, joint)) == NULL)
    return;
  km_parse_warning (p->path, j->mimic != NULL ? j->mimic_pos : j->pos,
                    _("%s; joint “%s” moves on its own"), reason, j->name);
}

/* Whether @root and its floating joint @j are what km_urdf_to_string() writes for a free
 * root ROOT placed in the world: a link ROOT_base with no visual whose only joint is the
 * floating joint ROOT to the link ROOT. That reads back as the free root ROOT at the
 * joint's origin (same joints, same names); any other floating base (say from a link
 * "world") makes its root link the free root and the joint fixed. */
static gboolean
is_placed_free_root (Parser         *p,
                     const UrdfLink *root,
                     const UrdfJoint *j)
{
  g_autofree char *base = g_strconcat (j->name, "_base", NULL);

  if (!g_str_equal (j->type, "floating") || !g_str_equal (j->child, j->name) ||
      !g_str_equal (root->name, base) || root->visuals->len > 0)
    return FALSE;
  for (guint i = 0; i < p->joints->len; i++)
    {
      const UrdfJoint *other = g_ptr_array_index (p->joints, i);

      if (other != j && (g_str_equal (other->parent, root->name) ||
                         g_str_equal (other->name, j->name)))
        return FALSE;
    }
  return TRUE;
}

static KmSkeleton *
build (Parser               *p,
       const KmUrdfOptions  *options,
       GError              **error)
{
  g_autoptr(GHashTable) links = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GHashTable) child_of = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GHashTable) joint_names = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(KmSkeletonBuilder) builder = km_skeleton_builder_new ();
  g_autoptr(KmMeshCache) cache = km_mesh_cache_new ();
  g_autoptr(GError) build_error = NULL;
  KmSkeletonProblem problem = { 0 };
  UrdfLink *root = NULL;
  UrdfJoint *free_base = NULL;
  UrdfJoint *placed_root = NULL;
  g_autofree char *root_joint = NULL;
  KmSkeleton *skel;

  if (p->links->len == 0)
    {
      /* (at its <robot>, 1:1 when there is none) */
      km_parse_error_set (error, KM_PARSE_ERROR_INVALID, p->path,
                          p->seen_robot ? p->robot_pos : (KmSourcePos) { 1, 1 },
                          _("expected at least one <link> in <robot>"));
      return NULL;
    }
  for (guint i = 0; i < p->links->len; i++)
    {
      UrdfLink *l = g_ptr_array_index (p->links, i);

      if (g_hash_table_contains (links, l->name))
        {
          g_autofree char *name = km_parse_shown_file (l->name);

          km_parse_error_set (error, KM_PARSE_ERROR_INVALID, p->path, l->pos,
                              _("duplicate link name “%s”"), name);
          return NULL;
        }
      g_hash_table_insert (links, l->name, l);
    }
  for (guint i = 0; i < p->joints->len; i++)
    {
      UrdfJoint *j = g_ptr_array_index (p->joints, i);

      if (j->parent == NULL || j->child == NULL)
        {
          g_autofree char *name = km_parse_shown_file (j->name);

          km_parse_error_set (error, KM_PARSE_ERROR_INVALID, p->path, j->pos,
                              _("expected <parent link=…> and <child link=…> in joint “%s”"),
                              name);
          return NULL;
        }
      if (!g_hash_table_contains (links, j->parent))
        {
          /* Names escaped as files are (km_parse_shown_file()): one line. */
          g_autofree char *name = km_parse_shown_file (j->parent);

          km_parse_error_set (error, KM_PARSE_ERROR_INVALID, p->path, j->parent_pos,
                              _("expected the name of a link, “%s” is none"), name);
          return NULL;
        }
      if (!g_hash_table_contains (links, j->child))
        {
          g_autofree char *name = km_parse_shown_file (j->child);

          km_parse_error_set (error, KM_PARSE_ERROR_INVALID, p->path, j->child_pos,
                              _("expected the name of a link, “%s” is none"), name);
          return NULL;
        }
      if (g_hash_table_contains (child_of, j->child))
        {
          g_autofree char *name = km_parse_shown_file (j->child);
          g_autofree char *other =
            km_parse_shown_file (((UrdfJoint *) g_hash_table_lookup (child_of, j->child))->name);

          km_parse_error_set (error, KM_PARSE_ERROR_INVALID, p->path, j->child_pos,
                              _("link “%s” is already the child of joint “%s”"), name,
                              other);
          return NULL;
        }
      g_hash_table_insert (child_of, j->child, j);
    }
  for (guint i = 0; i < p->links->len; i++)
    {
      UrdfLink *l = g_ptr_array_index (p->links, i);

      if (g_hash_table_contains (child_of, l->name))
        continue;
      if (root != NULL)
        {
          g_autofree char *first = km_parse_shown_file (root->name);
          g_autofree char *name = km_parse_shown_file (l->name);

          km_parse_error_set (error, KM_PARSE_ERROR_INVALID, p->path, l->pos,
                              _("expected one root link, but neither “%s” nor “%s” is the "
                                "child of a joint"), first, name);
          return NULL;
        }
      root = l;
    }
  if (root == NULL)
    {
      UrdfJoint *j = g_ptr_array_index (p->joints, 0);

      km_parse_error_set (error, KM_PARSE_ERROR_INVALID, p->path, j->child_pos,
                          _("every link is the child of a joint, so the joints form a cycle"));
      return NULL;
    }

  /* A floating (or planar) joint hanging from the root link is a floating base: the root
   * becomes free and the joint rigid. */
  for (guint i = 0; i < p->joints->len && free_base == NULL; i++)
    {
      UrdfJoint *j = g_ptr_array_index (p->joints, i);

      if ((g_str_equal (j->type, "floating") || g_str_equal (j->type, "planar")) &&
          g_str_equal (j->parent, root->name))
        free_base = j;
    }
  if (free_base != NULL && is_placed_free_root (p, root, free_base))
    {
      /* Kinema's own free root placed in the world: the free root itself, at the joint's
       * origin, with the joint's name (which no other joint has). */
      placed_root = free_base;
      placed_root->index = 0;
      root_joint = g_strdup (placed_root->name);
    }
  else
    {
      /* Links and joints have names of their own in URDF: a joint may be called like the
       * root link. The root joint then takes the first of NAME_root, NAME_root_2, … that
       * no joint has. */
      for (guint i = 0; i < p->joints->len; i++)
        g_hash_table_add (joint_names, ((UrdfJoint *) g_ptr_array_index (p->joints, i))->name);
      root_joint = g_strdup (root->name);
      for (guint n = 1; g_hash_table_contains (joint_names, root_joint); n++)
        {
          g_free (root_joint);
          root_joint = n == 1 ? g_strdup_printf ("%s_root", root->name)
                              : g_strdup_printf ("%s_root_%u", root->name, n);
        }
      if (!g_str_equal (root_joint, root->name))
        km_parse_warning (p->path, root->pos,
                          _("a joint is called “%s” like the root link: the root is called "
                            "“%s”"), root->name, root_joint);
    }
  km_skeleton_builder_add_joint (builder, root_joint,
                                 free_base ? KM_JOINT_FREE : KM_JOINT_FIXED, NULL);
  km_skeleton_builder_set_root_name (builder, root_joint);
  km_skeleton_builder_set_model_name (builder, p->robot_name);
  if (placed_root != NULL)
    {
      set_link_name (builder, 0, placed_root->child);
      km_skeleton_builder_set_offset (builder, 0, placed_root->xyz);
      if (placed_root->has_rotation)
        km_skeleton_builder_set_rotation (builder, 0, placed_root->rotation);
    }
  else
    set_link_name (builder, 0, root->name);
  for (guint i = 0; i < p->joints->len; i++)
    {
      UrdfJoint *j = g_ptr_array_index (p->joints, i);
      UrdfJoint *pj = g_hash_table_lookup (child_of, j->parent);
      const char *parent_name = pj ? pj->name : root_joint;
      KmJointType type;
      guint index;

      if (j == placed_root)
        continue;
      if (g_str_equal (j->type, "revolute") || g_str_equal (j->type, "continuous"))
        type = KM_JOINT_REVOLUTE;
      else if (g_str_equal (j->type, "prismatic"))
        type = KM_JOINT_PRISMATIC;
      else if (g_str_equal (j->type, "fixed"))
        type = KM_JOINT_FIXED;
      else if (g_str_equal (j->type, "floating") || g_str_equal (j->type, "planar"))
        {
          type = KM_JOINT_FIXED;
          if (j == free_base)
            km_parse_warning (p->path, j->type_pos,
                              _("%s joint “%s”: the root “%s” becomes a free root and the "
                                "joint is fixed"), j->type, j->name, root->name);
          else
            km_parse_warning (p->path, j->type_pos,
                              _("%s joint “%s” is not the base of the tree: it is fixed at "
                                "its origin"), j->type, j->name);
        }
      else
        {
          km_parse_error_set (error, KM_PARSE_ERROR_INVALID, p->path, j->type_pos,
                              _("expected a joint type revolute, continuous, prismatic, fixed, "
                                "floating or planar, found “%s”"), j->type);
          return NULL;
        }

      index = km_skeleton_builder_add_joint (builder, j->name, type, parent_name);
      j->index = index;
      set_link_name (builder, index, j->child);
      km_skeleton_builder_set_offset (builder, index, j->xyz);
      if (j->has_rotation)
        km_skeleton_builder_set_rotation (builder, index, j->rotation);
      if (type == KM_JOINT_REVOLUTE || type == KM_JOINT_PRISMATIC)
        {
          km_skeleton_builder_set_axis (builder, index, j->axis);
          if (g_str_equal (j->type, "continuous"))
            ;
          else if (j->has_limit && j->lower > j->upper)
            {
              /* urdfdom takes such limits as they are; no position is within them. Leaving
               * the joint unlimited would give the IK every position for a typo: refused
               * at the <limit>'s lower (else upper) attribute, as skeleton.json and .body
               * refuse min > max. */
              km_parse_error_set (error, KM_PARSE_ERROR_INVALID, p->path, j->limit_pos,
                                  _("expected lower ≤ upper"));
              return NULL;
            }
          else if (j->has_limit)
            km_skeleton_builder_set_limit (builder, index, 0, j->lower, j->upper);
          else
            km_parse_warning (p->path, j->pos,
                              _("%s joint “%s” has no <limit>; it is left unlimited"),
                              j->type, j->name);
          /* A continuous joint's <limit> may still say its effort and velocity. */
          if (j->has_limit)
            {
              km_skeleton_builder_set_max_effort (builder, index, j->effort);
              km_skeleton_builder_set_max_velocity (builder, index, j->velocity);
            }
        }
    }

  if (!link_mimics (p, builder, error))
    return NULL;

  for (guint i = 0; i < p->links->len; i++)
    {
      UrdfLink *l = g_ptr_array_index (p->links, i);
      UrdfJoint *j = g_hash_table_lookup (child_of, l->name);
      guint index = j ? j->index : 0;
      for (guint v = 0; v < l->visuals->len; v++)
        add_visual_shapes (p, builder, index, &g_array_index (l->visuals, UrdfVisual, v),
                           options, cache);
    }

  km_skeleton_builder_set_unlink_func (builder, mimic_unlinked, p);
  skel = km_skeleton_builder_build (builder, &problem, &build_error);
  if (skel == NULL)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_INVALID, p->path, problem_pos (p, &problem, root),
                          "%s", build_error->message);
      return NULL;
    }
  return skel;
}

/**
 * km_urdf_load:
 * @path: the path as given, for messages and relative mesh names
 * @data: the file's bytes (need not be NUL-terminated)
 * @options: (nullable): package paths and whether to read meshes; %NULL reads meshes and
 *   uses no package paths
 *
 * Warnings (unsupported elements, missing meshes, floating joints) go to
 * km_parse_warning.
 *
 * Returns: (transfer full) (nullable): the skeleton, or %NULL with a KM_PARSE_ERROR
 */
KmSkeleton *
km_urdf_load (const char           *path,
              const char           *data,
              gsize                 length,
              const KmUrdfOptions  *options,
              GError              **error)
{
  static const GMarkupParser parser_funcs = { start_element, end_element, NULL, NULL, NULL };
  KmUrdfOptions default_options = { NULL, TRUE };
  g_autoptr(GMarkupParseContext) context = NULL;
  g_autofree char *text = NULL;
  KmSkeleton *skel = NULL;
  Parser p = { 0 };

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (data != NULL || length == 0, NULL);

  if (options == NULL)
    options = &default_options;
  if (length > KM_URDF_MAX_SIZE)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_LIMIT, path, (KmSourcePos) { 0, 0 },
                          _("the file is larger than %u MiB"),
                          (guint) (KM_URDF_MAX_SIZE / (1024 * 1024)));
      return NULL;
    }
  text = km_markup_text_dup_utf8 (path, data, length, error);
  if (text == NULL)
    return NULL;

  p.path = path;
  km_markup_text_init (&p.markup, text, strlen (text));
  p.stack = g_ptr_array_new_with_free_func (g_free);
  p.links = g_ptr_array_new_with_free_func (link_free);
  p.joints = g_ptr_array_new_with_free_func (joint_free);
  p.materials = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  p.packages_found = km_package_cache_new ();

  context = g_markup_parse_context_new (&parser_funcs, 0, &p, NULL);
  if (!km_markup_text_check_prolog (&p.markup, path, error) ||
      !km_markup_text_parse (&p.markup, path, context, error))
    goto out;
  if (!p.seen_robot)
    {
      km_parse_error_set (error, KM_PARSE_ERROR_INVALID, path, (KmSourcePos) { 1, 1 },
                          _("expected a <robot> element"));
      goto out;
    }
  warn_unmodelled (&p);
  skel = build (&p, options, error);

out:
  km_markup_text_clear (&p.markup);
  g_ptr_array_unref (p.stack);
  g_ptr_array_unref (p.links);
  g_ptr_array_unref (p.joints);
  g_hash_table_unref (p.packages_found);
  g_hash_table_unref (p.materials);
  g_free (p.robot_name);
  return skel;
}

/**
 * km_urdf_sniff:
 *
 * Returns: 90 for XML whose document element is <robot>, 0 otherwise
 */
int
km_urdf_sniff (const char *data,
               gsize       length)
{
  gsize n = MIN (length, 4096), i = 0;

  if (n >= 3 && memcmp (data, "\xef\xbb\xbf", 3) == 0)
    i = 3;
  /* Skip the XML declaration, comments and white space before the document element. */
  while (i < n)
    {
      if (g_ascii_isspace (data[i]))
        i++;
      else if (n - i >= 9 && memcmp (data + i, "<!DOCTYPE", 9) == 0)
        {
          /* (an internal subset's declarations end in ">" too) */
          gsize subset, entity;

          i = km_markup_text_skip_doctype (data, n, i, &subset, &entity);
          if (i == 0)
            return 0;
        }
      else if (n - i >= 2 && data[i] == '<' && (data[i + 1] == '?' || data[i + 1] == '!'))
        {
          const char *end = memchr (data + i, '>', n - i);

          if (end == NULL)
            return 0;
          i = (gsize) (end - data) + 1;
        }
      else
        break;
    }
  /* (an empty <robot/> too: it is URDF's, which says what it lacks) */
  if (n - i >= 7 && memcmp (data + i, "<robot", 6) == 0 &&
      (g_ascii_isspace (data[i + 6]) || data[i + 6] == '>' || data[i + 6] == '/'))
    return 90;
  return 0;
}

static gpointer
format_load (const char  *path,
             GBytes      *contents,
             GError     **error)
{
  g_auto(GStrv) package_paths = km_package_paths_from_env ();
  KmUrdfOptions options = { (const char * const *) package_paths, TRUE };
  gsize length;
  const char *data = g_bytes_get_data (contents, &length);

  return km_urdf_load (path, data ? data : "", length, &options, error);
}

const KmFormat km_format_urdf = {
  .name = "URDF",
  .kind = KM_FILE_KIND_MODEL,
  .description = N_("URDF robot description"),
  .sniff = km_urdf_sniff,
  .load = format_load,
  .free_result = (void (*) (gpointer)) km_skeleton_unref,
  .describe = km_skeleton_json_describe,
};
