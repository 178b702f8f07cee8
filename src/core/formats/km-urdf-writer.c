/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-urdf"

#include "config.h"

#include <float.h>
#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "km-urdf-writer.h"

#include "km-format.h"
#include "km-model-keep.h"
#include "km-skeleton-edit.h"
#include "km-urdf.h"
#include "km-yaml.h"

/*
 * The mapping (km_urdf_load reads it back to the same skeleton, joint names included):
 * - the robot is named as the model names itself (KmSkeleton's model name: a URDF robot
 *   name, a .body name), else after the root link;
 * - the root joint is the root link (URDF has no joint above the root); a root with an
 *   offset, a rotation or a motion of its own becomes a joint of its name below a new link
 *   ROOT_base (noted);
 * - a free root is written as km_urdf_load reads one: a floating joint from the root link.
 *   A free root at the origin with one child, a fixed joint (what the reader makes of a
 *   world link and a floating joint), has that child written as the floating joint; any
 *   other free root becomes a floating joint of its name, with its pose (its offset and
 *   rotation, a .body root's initial place) as origin, below a new link ROOT_base (noted),
 *   which km_urdf_load recognises and reads back as the free root ROOT at that pose (the
 *   same joints), written the same way again (the same text);
 * - links keep their names (KmJoint.link_name: the URDF child link a joint was read from,
 *   the root link for the root); a joint without one moves a link of its own name (links
 *   and joints are separate name spaces in URDF), and a link name that two joints share
 *   is made unique (noted);
 * - every other joint J is a URDF joint named J from its parent's link to its link: origin
 *   xyz = offset, rpy = the
 *   rotation as extrinsic roll-pitch-yaw (R = Rz(yaw)·Ry(pitch)·Rx(roll)), axis, and for
 *   revolute joints <limit lower upper> or type continuous when unlimited; urdfdom refuses
 *   a revolute or prismatic joint without <limit lower upper>, and URDF has no open end, so
 *   a prismatic joint always gets one and a range limited on one side only keeps its finite
 *   end, with the open end written (noted, with the value) a full turn (2π rad) beyond it
 *   for a revolute joint, which still reaches every orientation of the link as an open
 *   end does, and 1000 m beyond it for a prismatic one (±1000 m when both ends are open),
 *   farther than any robot slides while keeping a planner's sampling range finite;
 * - <limit> carries the effort and velocity the model gave (KmJoint.max_effort,
 *   max_velocity; a continuous joint with them gets a <limit> of those alone). URDF
 *   requires both attributes on a <limit>, so an unknown one is written as a placeholder
 *   (noted): velocity 1 (rad/s or m/s), the speed MoveIt assumes for a joint without a
 *   velocity limit, and effort 10000 (N·m or N), more than any arm needs. 0 (what
 *   exporters often write) is worse: ros_control and gazebo_ros_control clamp every
 *   command to it, so the joint never moves, and MoveIt 2 refuses to time a trajectory;
 *   a huge velocity would let planners move a real robot as fast as its controller lets;
 * - a spherical joint J becomes three revolute joints J_x, J_y and J about X, Y and Z with
 *   dummy links J_x and J_y between them and zero origins after the first (the euler XYZ
 *   order of Kinema's spherical joints, so DOFs keep their order and meaning);
 * - shapes become <visual>s where URDF has the primitive: box, sphere, cylinder (turned
 *   from Kinema's +Y to URDF's +Z); a scale is folded into the sizes when the primitive
 *   allows it; a mesh the model names but did not load (KmShape.uri) is written back as
 *   <mesh filename="URI" scale="…"/> with its origin, and with its material when it had
 *   one (a URDF material, or a colour of a .body appearance other than the file's: a
 *   material named after the visual); so is a loaded mesh that keeps the reference it
 *   was read from (its uri_transform and uri_scale, once for all the shapes read from
 *   the file); a reference relative to
 *   the model's folder is written relative to the saved file's folder (km_urdf_save), a
 *   package:// or other URL as it is. Cones, capsules and meshes
 *   without a file (URDF meshes are files) are left out (noted), and so is a mesh that is
 *   a node of its file (KmShape.uri_node, a .body Resource's `node`): URDF can only name
 *   the whole file, which would draw the other nodes too (noted, naming the node);
 *   a material keeps the name the model gives it (KmShape.material), else gets one;
 * - a linked joint gets <mimic joint="MASTER" multiplier="RATIO" offset="OFFSET"/>;
 * - names are escaped for attribute values: besides & < > " ', a tab, line feed or carriage
 *   return is written as a character reference (&#9; &#10; &#13;), since an XML reader
 *   turns each of them, written raw, into a space (attribute-value normalisation); the
 *   other control characters below U+0020, and U+FFFE and U+FFFF, cannot be in an XML 1.0
 *   file at all, not even as references (&#x1; makes it unreadable): each is written as
 *   U+FFFD (the replacement character), with a note naming the name so changed;
 * - numbers are written with the fewest significant digits (at least six) that read back
 *   as the same double (km_yaml_format_number()), so that limits, offsets and the like
 *   survive a round trip exactly (170° is 2.9670597283903604 rad; 15 digits,
 *   2.96705972839036, is an ulp off); an rpy, which is computed from a rotation matrix, is
 *   written with 15 significant digits when those read back within a few ulps (0.5, not
 *   the 0.5000000000000001 that a rotation's round trip leaves); in xyz, rpy and the other
 *   triples a component below 1e-15 is rounding noise and written as 0. Writing what was
 *   read back gives the same text.
 */

/* The joint-limit placeholders above. */
#define UNKNOWN_EFFORT   10000.0
#define UNKNOWN_VELOCITY 1.0

/* How far beyond the finite end (or 0) an open end of a range is written, above. */
#define OPEN_END_REVOLUTE  (2 * G_PI)
#define OPEN_END_PRISMATIC 1000.0

/* The length of the character at @p that XML 1.0 cannot hold in any form (a control
 * character other than tab, line feed and carriage return; U+FFFE, U+FFFF), or 0. Bytes:
 * a name is meant to be UTF-8, and none of these is part of another character. */
static gsize
unwritable_at (const char *p)
{
  const guchar *u = (const guchar *) p;

  if (u[0] < 0x20 && u[0] != '\0' && u[0] != '\t' && u[0] != '\n' && u[0] != '\r')
    return 1;
  if (u[0] == 0xEF && u[1] == 0xBF && (u[2] == 0xBE || u[2] == 0xBF))
    return 3;
  return 0;
}

/* @text with each character XML cannot hold written as U+FFFD; NULL when there is none. */
static char *
writable_text (const char *text)
{
  GString *out = NULL;

  for (const char *p = text; *p != '\0'; )
    {
      gsize n = unwritable_at (p);

      if (n > 0 && out == NULL)
        out = g_string_new_len (text, p - text);
      if (n > 0)
        g_string_append (out, "\xEF\xBF\xBD");
      else if (out != NULL)
        g_string_append_c (out, *p);
      p += n > 0 ? n : 1;
    }
  return out != NULL ? g_string_free (out, FALSE) : NULL;
}

/* A note for @text when it holds characters XML cannot hold, once per text (@seen). */
static void
note_unwritable (GPtrArray   *notes,
                 GHashTable  *seen,
                 const char  *text)
{
  g_autofree char *written = NULL;
  g_autoptr(GString) shown = NULL;

  if (text == NULL || g_hash_table_contains (seen, text)
      || (written = writable_text (text)) == NULL)
    return;
  g_hash_table_add (seen, g_strdup (text));
  /* As messages show a name: the control characters escaped, one line. */
  shown = g_string_new (NULL);
  km_format_append_value (shown, text);
  km_format_note (notes,
                  /* Translators: a name as the model has it, control characters escaped
                   * (\x01), then as written, with U+FFFD (“�”) for each of them */
                  _("“%s” holds characters that XML cannot hold: written as “%s”"),
                  shown->str, written);
}

/* @skeleton with each joint name that holds characters XML cannot hold renamed to what
 * is written (writable_text()), made unique among the joints ("a\x01" and "a\x02" are
 * "a�" and "a�_2"), with a note each naming what it is written as; NULL when no joint
 * needs it. Before the link names are made unique (urdf_to_string()), so that every
 * uniqueness pass sees the names as written: two names written alike would make
 * duplicate <joint> or <link> elements, a file no reader takes. */
static KmSkeleton *
writable_skeleton (const KmSkeleton *skeleton,
                   GPtrArray        *notes)
{
  g_autoptr(KmSkeleton) renamed = NULL;
  g_autoptr(GHashTable) taken = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (guint i = 0; i < km_skeleton_get_n_joints (skeleton); i++)
    {
      const char *name = km_skeleton_get_joint (skeleton, i)->name;
      const KmSkeleton *now = renamed != NULL ? renamed : skeleton;
      g_autofree char *base = writable_text (name);
      g_autofree char *written = NULL;
      g_autoptr(GString) shown = NULL;
      KmSkeleton *next;
      int index;

      if (base == NULL)
        continue;
      written = g_strdup (base);
      for (guint k = 2; km_skeleton_find_joint (now, written) >= 0
                        || km_skeleton_find_joint (skeleton, written) >= 0
                        || g_hash_table_contains (taken, written); k++)
        {
          g_free (written);
          written = g_strdup_printf ("%s_%u", base, k);
        }
      index = km_skeleton_find_joint (now, name);
      next = index >= 0 ? km_skeleton_edit_set_name (now, (guint) index, written, NULL) : NULL;
      if (next == NULL)
        continue;   /* too long a name: written as escape_attr() has it */
      g_clear_pointer (&renamed, km_skeleton_unref);
      renamed = next;
      g_hash_table_add (taken, g_strdup (written));
      if (notes == NULL)
        continue;
      shown = g_string_new (NULL);
      km_format_append_value (shown, name);
      km_format_note (notes, _("“%s” holds characters that XML cannot hold: written as “%s”"),
                      shown->str, written);
    }
  return g_steal_pointer (&renamed);
}

/* The notes for the names (and mesh references) of @skeleton that hold characters XML
 * cannot hold, which escape_attr() replaces. */
static void
note_unwritable_names (GPtrArray        *notes,
                       const KmSkeleton *skeleton)
{
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  if (notes == NULL)
    return;
  note_unwritable (notes, seen, km_skeleton_get_model_name (skeleton));
  for (guint i = 0; i < km_skeleton_get_n_joints (skeleton); i++)
    {
      const KmJoint *j = km_skeleton_get_joint (skeleton, i);
      guint n_shapes = 0;
      KmShape * const *shapes = km_skeleton_get_shapes (skeleton, i, &n_shapes);

      note_unwritable (notes, seen, j->name);
      note_unwritable (notes, seen, km_joint_get_link_name (j));
      for (guint k = 0; k < n_shapes; k++)
        {
          note_unwritable (notes, seen, shapes[k]->material);
          note_unwritable (notes, seen, shapes[k]->uri);
        }
    }
}

/* @text escaped for an attribute value (see above): g_markup_escape_text() leaves a tab,
 * a line feed and a carriage return as they are, which a reader would turn into spaces,
 * and writes the characters XML cannot hold as references that no reader accepts. */
static char *
escape_attr (const char *text)
{
  g_autofree char *writable = writable_text (text);
  g_autofree char *escaped = g_markup_escape_text (writable != NULL ? writable : text, -1);
  GString *out;

  if (strpbrk (escaped, "\t\n\r") == NULL)
    return g_steal_pointer (&escaped);
  out = g_string_sized_new (strlen (escaped) + 8);
  for (const char *p = escaped; *p != '\0'; p++)
    {
      if (*p == '\t' || *p == '\n' || *p == '\r')
        g_string_append_printf (out, "&#%d;", *p);
      else
        g_string_append_c (out, *p);
    }
  return g_string_free (out, FALSE);
}

/* A number that reads back as the same double. */
static void
append_number (GString *out,
               double   value)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];

  /* + 0.0 writes a negative zero as 0. */
  km_yaml_format_number (value + 0.0, buffer, sizeof buffer);
  g_string_append (out, buffer);
}

/* A number computed from a rotation (an rpy angle): 15 significant digits when they read
 * back within a few ulps, so that rounding noise is not written (see above). */
static void
append_rounded_number (GString *out,
                       double   value)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];
  double back;

  value += 0.0;
  if (!isfinite (value))
    {
      append_number (out, value);
      return;
    }
  g_ascii_formatd (buffer, sizeof buffer, "%.15g", value);
  back = g_ascii_strtod (buffer, NULL);
  if (fabs (back - value) > 2 * DBL_EPSILON * fabs (value))
    km_yaml_format_number (value, buffer, sizeof buffer);
  g_string_append (out, buffer);
}

/* A component of a triple: noise below 1e-15 (sin π, a rotation's round trip) is 0. */
static void
append_component (GString  *out,
                  double    value,
                  gboolean  rounded)
{
  value = fabs (value) < 1e-15 ? 0 : value;
  if (rounded)
    append_rounded_number (out, value);
  else
    append_number (out, value);
}

static void
append_triple_attr (GString    *out,
                    const char *attr,
                    KmVec3      v,
                    gboolean    rounded)
{
  g_string_append_printf (out, " %s=\"", attr);
  append_component (out, v.x, rounded);
  g_string_append_c (out, ' ');
  append_component (out, v.y, rounded);
  g_string_append_c (out, ' ');
  append_component (out, v.z, rounded);
  g_string_append_c (out, '"');
}

static void
append_vec3_attr (GString    *out,
                  const char *attr,
                  KmVec3      v)
{
  append_triple_attr (out, attr, v, FALSE);
}

/* Extrinsic roll-pitch-yaw of R = Rz(y)·Ry(p)·Rx(r). */
static KmVec3
rpy_from_mat3 (const KmMat3 *m)
{
  double r, p, y;
  double c = sqrt (m->m[0][0] * m->m[0][0] + m->m[1][0] * m->m[1][0]);

  p = atan2 (-m->m[2][0], c);
  if (c > 1e-12)
    {
      r = atan2 (m->m[2][1], m->m[2][2]);
      y = atan2 (m->m[1][0], m->m[0][0]);
    }
  else
    {
      /* Gimbal lock: only r ∓ y is defined; put it all in roll. */
      y = 0;
      r = m->m[2][0] < 0 ? atan2 (m->m[0][1], m->m[1][1]) : atan2 (-m->m[0][1], m->m[1][1]);
    }
  return km_vec3 (r, p, y);
}

static void
append_origin (GString           *out,
               const char        *indent,
               const KmTransform *t)
{
  g_string_append_printf (out, "%s<origin", indent);
  append_vec3_attr (out, "xyz", t->pos);
  append_triple_attr (out, "rpy", rpy_from_mat3 (&t->rot), TRUE);
  g_string_append (out, "/>\n");
}

/* Whether the model gives the mesh @shape a colour of its own, not its file's: a URDF
 * material, or a colour other than the file's (a .body appearance, which names no
 * material; the default colour when the file has none), as the .body writer decides. */
static gboolean
mesh_has_own_color (const KmShape *shape)
{
  KmColor file = KM_COLOR_DEFAULT;

  if (shape->material != NULL)
    return TRUE;
  if (shape->mesh != NULL)
    km_mesh_get_color (shape->mesh, &file);
  return shape->color.r != file.r || shape->color.g != file.g || shape->color.b != file.b ||
         shape->color.a != file.a;
}

/* A scale as written: a factor within a few ulps of 1 (what taking a rotating VRML
 * Transform's matrix apart leaves: 0.9999999999999999) is 1. */
static KmVec3
written_scale (KmVec3 scale)
{
  double v[3] = { scale.x, scale.y, scale.z };

  for (guint i = 0; i < 3; i++)
    if (fabs (v[i] - 1) < 1e-12)
      v[i] = 1;
  return km_vec3 (v[0], v[1], v[2]);
}

static void
append_visual (GString       *out,
               GPtrArray     *notes,
               const char    *dir,
               const char    *link,
               guint          index,
               const KmShape *shape)
{
  g_autofree char *material = NULL;
  KmTransform origin = shape->transform;
  KmVec3 s = written_scale (shape->scale);
  g_autofree char *geometry = NULL;
  GString *g;

  switch (shape->type)
    {
    case KM_SHAPE_BOX:
      g = g_string_new ("<box");
      append_vec3_attr (g, "size", km_vec3 (shape->size.x * fabs (s.x), shape->size.y * fabs (s.y),
                                            shape->size.z * fabs (s.z)));
      g_string_append (g, "/>");
      break;
    case KM_SHAPE_SPHERE:
      if (fabs (s.x) != fabs (s.y) || fabs (s.y) != fabs (s.z))
        {
          km_format_note (notes, _("a sphere of link “%s” is scaled unevenly, which URDF cannot "
                                   "draw; it is left out"), link);
          return;
        }
      g = g_string_new ("<sphere radius=\"");
      append_number (g, shape->radius * fabs (s.x));
      g_string_append (g, "\"/>");
      break;
    case KM_SHAPE_CYLINDER:
      {
        KmTransform turn = { 0 };

        if (fabs (s.x) != fabs (s.z))
          {
            km_format_note (notes, _("a cylinder of link “%s” is scaled unevenly, which URDF "
                                     "cannot draw; it is left out"), link);
            return;
          }
        /* Kinema's cylinders run along +Y, URDF's along +Z: Rx(-90°) takes Z to Y. */
        km_mat3_from_axis_angle (km_vec3 (1, 0, 0), -G_PI / 2, &turn.rot);
        km_transform_mul (&shape->transform, &turn, &origin);
        g = g_string_new ("<cylinder radius=\"");
        append_number (g, shape->radius * fabs (s.x));
        g_string_append (g, "\" length=\"");
        append_number (g, shape->height * fabs (s.y));
        g_string_append (g, "\"/>");
      }
      break;
    case KM_SHAPE_MESH:
      if (shape->uri != NULL && shape->uri_node != NULL)
        {
          /* A node of a mesh file (a .body Resource's `node`): URDF names whole files
           * only. Writing the file would draw all of it, and Choreonoid models often keep
           * one scene file with a node per link, so that each link would draw the whole
           * robot: the mesh is left out, once per reference, with a note saying which. */
          if (shape->uri_part == 0)
            km_format_note (notes,
                            /* Translators: a node name, a mesh file, then a link name */
                            _("URDF cannot name the node “%s” of a mesh file: the mesh “%s” "
                              "of link “%s” is left out"),
                            shape->uri_node, shape->uri, link);
          return;
        }
      if (shape->mesh != NULL && shape->uri != NULL)
        {
          /* A loaded mesh: its file's reference, once for the file's shapes. */
          if (shape->uri_part > 0)
            return;
          origin = shape->uri_transform;
          s = written_scale (shape->uri_scale);
        }
      if (shape->uri != NULL)
        {
          g_autofree char *written = km_shape_dup_uri_for (shape, dir);
          g_autofree char *uri = escape_attr (written);

          g = g_string_new (NULL);
          g_string_append_printf (g, "<mesh filename=\"%s\"", uri);
          if (s.x != 1 || s.y != 1 || s.z != 1)
            append_vec3_attr (g, "scale", s);
          g_string_append (g, "/>");
          break;
        }
      G_GNUC_FALLTHROUGH;
    case KM_SHAPE_CONE:
    case KM_SHAPE_CAPSULE:
    default:
      km_format_note (notes,
                      /* Translators: %s is a shape type (cone, capsule, mesh), then a link name */
                      _("URDF has no inline %s: the one of link “%s” is left out"),
                      km_shape_type_to_string (shape->type), link);
      return;
    }
  geometry = g_string_free (g, FALSE);
  g_string_append (out, "    <visual>\n");
  append_origin (out, "      ", &origin);
  g_string_append_printf (out, "      <geometry>%s</geometry>\n", geometry);
  if (shape->type == KM_SHAPE_MESH && !mesh_has_own_color (shape))
    {
      /* A mesh reference without a colour in the model keeps the mesh's own colours. */
      g_string_append (out, "    </visual>\n");
      return;
    }
  /* ROS tools want a material name, unique per colour: the model's, else one per visual. */
  if (shape->material != NULL && shape->material[0] != '\0')
    material = escape_attr (shape->material);
  else
    {
      g_autofree char *name = g_strdup_printf ("%s_visual%u", link, index);

      material = escape_attr (name);
    }
  g_string_append_printf (out, "      <material name=\"%s\"><color rgba=\"", material);
  /* Colours are floats: six decimals say them exactly enough and read well. */
  append_number (out, round (shape->color.r * 1e6) / 1e6);
  g_string_append_c (out, ' ');
  append_number (out, round (shape->color.g * 1e6) / 1e6);
  g_string_append_c (out, ' ');
  append_number (out, round (shape->color.b * 1e6) / 1e6);
  g_string_append_c (out, ' ');
  append_number (out, round (shape->color.a * 1e6) / 1e6);
  g_string_append (out, "\"/></material>\n");
  g_string_append (out, "    </visual>\n");
}

static void
append_link (GString          *out,
             GPtrArray        *notes,
             const char       *dir,
             const char       *name,
             const KmSkeleton *skeleton,
             int               joint)
{
  g_autofree char *escaped = escape_attr (name);
  KmShape * const *shapes = NULL;
  guint n_shapes = 0;

  if (joint >= 0)
    shapes = km_skeleton_get_shapes (skeleton, (guint) joint, &n_shapes);
  if (n_shapes == 0)
    {
      g_string_append_printf (out, "  <link name=\"%s\"/>\n", escaped);
      return;
    }
  g_string_append_printf (out, "  <link name=\"%s\">\n", escaped);
  for (guint s = 0; s < n_shapes; s++)
    append_visual (out, notes, dir, name, s, shapes[s]);
  g_string_append (out, "  </link>\n");
}

/* What a <limit> got placeholders for: one note per kind, saying only what was written. */
typedef enum
{
  PLACEHOLDER_BOTH,
  PLACEHOLDER_EFFORT,
  PLACEHOLDER_VELOCITY,
  N_PLACEHOLDER_KINDS
} PlaceholderKind;

/* The joints whose <limit> got a placeholder effort or velocity, per kind. */
typedef struct
{
  guint  n[N_PLACEHOLDER_KINDS];
  char  *first[N_PLACEHOLDER_KINDS];   /* copies: a spherical joint's names die with its
                                        * joint's output */
} Placeholders;

static void
append_limit (GString       *out,
              const char    *name,
              const KmLimit *limit,
              const KmJoint *rates,
              Placeholders  *placeholders)
{
  gboolean has_effort = rates != NULL && isfinite (rates->max_effort);
  gboolean has_velocity = rates != NULL && isfinite (rates->max_velocity);

  /* A continuous joint has a <limit> only to say its effort and velocity. */
  if (limit == NULL && !has_effort && !has_velocity)
    return;
  if (!has_effort || !has_velocity)
    {
      PlaceholderKind kind = !has_effort && !has_velocity ? PLACEHOLDER_BOTH :
                             !has_effort ? PLACEHOLDER_EFFORT : PLACEHOLDER_VELOCITY;

      if (placeholders->n[kind]++ == 0)
        placeholders->first[kind] = g_strdup (name);
    }
  g_string_append (out, "    <limit");
  if (limit != NULL)
    {
      g_string_append (out, " lower=\"");
      append_number (out, limit->min);
      g_string_append (out, "\" upper=\"");
      append_number (out, limit->max);
      g_string_append_c (out, '"');
    }
  g_string_append (out, " effort=\"");
  append_number (out, has_effort ? rates->max_effort : UNKNOWN_EFFORT);
  g_string_append (out, "\" velocity=\"");
  append_number (out, has_velocity ? rates->max_velocity : UNKNOWN_VELOCITY);
  g_string_append (out, "\"/>\n");
}

static void
append_joint (GString           *out,
              const char        *name,
              const char        *type,
              const char        *parent,
              const char        *child,
              const KmTransform *origin,
              const KmVec3      *axis,
              const KmLimit     *limit,
              const KmJoint     *rates,
              Placeholders      *placeholders,
              const KmJoint     *mimic_master,
              const KmJoint     *follower)
{
  g_autofree char *n = escape_attr (name);
  g_autofree char *p = escape_attr (parent);
  g_autofree char *c = escape_attr (child);

  g_string_append_printf (out, "  <joint name=\"%s\" type=\"%s\">\n", n, type);
  g_string_append_printf (out, "    <parent link=\"%s\"/>\n", p);
  g_string_append_printf (out, "    <child link=\"%s\"/>\n", c);
  if (origin != NULL)
    append_origin (out, "    ", origin);
  if (axis != NULL)
    {
      g_string_append (out, "    <axis");
      append_vec3_attr (out, "xyz", *axis);
      g_string_append (out, "/>\n");
    }
  if (rates != NULL || limit != NULL)
    append_limit (out, name, limit, rates, placeholders);
  if (mimic_master != NULL)
    {
      g_autofree char *m = escape_attr (mimic_master->name);

      g_string_append_printf (out, "    <mimic joint=\"%s\" multiplier=\"", m);
      append_number (out, follower->mimic_ratio);
      g_string_append (out, "\" offset=\"");
      append_number (out, follower->mimic_offset);
      g_string_append (out, "\"/>\n");
    }
  g_string_append (out, "  </joint>\n");
}

/* The <limit lower upper> of joint @name (a revolute or prismatic one, or an axis of a
 * spherical one) in @range; FALSE for an unlimited revolute joint, which is continuous. A
 * range open on one side keeps its finite end, the open end is written beyond it, and an
 * unlimited prismatic joint gets ±OPEN_END_PRISMATIC (see above), noted. */
static gboolean
written_range (GPtrArray     *notes,
               const char    *name,
               gboolean       prismatic,
               const KmLimit *limit,
               KmLimit       *range)
{
  double span = prismatic ? OPEN_END_PRISMATIC : OPEN_END_REVOLUTE;
  gboolean has_min = limit->limited && isfinite (limit->min);
  gboolean has_max = limit->limited && isfinite (limit->max);
  g_autoptr(GString) value = g_string_new (NULL);

  if (!has_min && !has_max && !prismatic)
    return FALSE;
  range->limited = TRUE;
  range->min = has_min ? limit->min : has_max ? limit->max - span : -span;
  range->max = has_max ? limit->max : has_min ? limit->min + span : span;
  if (has_min && has_max)
    return TRUE;
  if (!has_min && !has_max)
    {
      km_format_note (notes, _("prismatic joint “%s” is unlimited, which URDF cannot say: it is "
                               "written with lower=\"-1000\" upper=\"1000\" (metres)"), name);
      return TRUE;
    }
  append_number (value, has_min ? range->max : range->min);
  if (prismatic)
    km_format_note (notes,
                    /* Translators: the second %s is an XML attribute (lower or upper), then
                     * its value */
                    _("joint “%s” is limited on one side only, which URDF cannot say: its open "
                      "end is written as %s=\"%s\", 1000 m beyond the other"),
                    name, has_min ? "upper" : "lower", value->str);
  else
    km_format_note (notes,
                    /* Translators: the second %s is an XML attribute (lower or upper), then
                     * its value */
                    _("joint “%s” is limited on one side only, which URDF cannot say: its open "
                      "end is written as %s=\"%s\", a full turn beyond the other"),
                    name, has_min ? "upper" : "lower", value->str);
  return TRUE;
}

/* A name for a dummy link or joint that no joint of @skeleton has and @used (the link
 * names) has not seen. */
static char *
unique_name (const KmSkeleton *skeleton,
             GHashTable       *used,
             const char       *base,
             const char       *suffix)
{
  char *name = g_strconcat (base, suffix, NULL);

  for (guint k = 2; km_skeleton_find_joint (skeleton, name) >= 0 ||
                    g_hash_table_contains (used, name); k++)
    {
      g_free (name);
      name = g_strdup_printf ("%s%s%u", base, suffix, k);
    }
  g_hash_table_add (used, g_strdup (name));
  return name;
}

/* Whether @skeleton's root is free and written as the root link with its one child, a
 * fixed joint, as the floating joint (see the mapping above): the shape km_urdf_load
 * reads a floating base as. Otherwise a free root hangs by a floating joint of its own
 * below a new base link. */
static gboolean
free_root_floats_child (const KmSkeleton *skeleton)
{
  const KmJoint *root = km_skeleton_get_joint (skeleton, 0);
  guint n = km_skeleton_get_n_joints (skeleton), children = 0;
  const KmJoint *child = NULL;

  if (root->type != KM_JOINT_FREE || km_vec3_length (root->offset) > 0 || root->has_rotation)
    return FALSE;
  for (guint i = 1; i < n; i++)
    if (km_skeleton_get_joint (skeleton, i)->parent == 0)
      {
        child = km_skeleton_get_joint (skeleton, i);
        children++;
      }
  return children == 1 && child->type == KM_JOINT_FIXED;
}

/* The URDF joint(s) that lead to @j's link from @parent's link. */
static void
append_joint_of (GString          *out,
                 GPtrArray        *notes,
                 const KmSkeleton *skeleton,
                 GHashTable       *used,
                 const KmJoint    *j,
                 const char       *parent,
                 const char       *child,
                 Placeholders     *placeholders)
{
  const KmJoint *master = j->mimic >= 0 ? km_skeleton_get_joint (skeleton, j->mimic) : NULL;
  KmTransform origin;
  KmLimit range;

  km_transform_from_pos_quat (j->offset, j->rotation, &origin);
  switch (j->type)
    {
    case KM_JOINT_REVOLUTE:
      if (written_range (notes, j->name, FALSE, &j->limits[0], &range))
        append_joint (out, j->name, "revolute", parent, child, &origin, &j->axis, &range, j,
                      placeholders, master, j);
      else
        append_joint (out, j->name, "continuous", parent, child, &origin, &j->axis, NULL, j,
                      placeholders, master, j);
      break;
    case KM_JOINT_PRISMATIC:
      written_range (notes, j->name, TRUE, &j->limits[0], &range);
      append_joint (out, j->name, "prismatic", parent, child, &origin, &j->axis, &range, j,
                    placeholders, master, j);
      break;
    case KM_JOINT_SPHERICAL:
      {
        g_autofree char *name_x = unique_name (skeleton, used, j->name, "_x");
        g_autofree char *name_y = unique_name (skeleton, used, j->name, "_y");
        const KmVec3 axes[3] = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } };
        const char *names[3] = { name_x, name_y, j->name };
        const char *links[3] = { name_x, name_y, child };
        KmTransform zero;

        km_transform_identity (&zero);
        km_format_note (notes, _("spherical joint “%s” has no URDF equivalent: written as three "
                                 "revolute joints %s, %s and %s about X, Y and Z"),
                        j->name, name_x, name_y, j->name);
        for (guint a = 0; a < 3; a++)
          {
            gboolean limited = written_range (notes, names[a], FALSE, &j->limits[a], &range);

            append_joint (out, names[a], limited ? "revolute" : "continuous",
                          a == 0 ? parent : links[a - 1], links[a],
                          a == 0 ? &origin : &zero, &axes[a], limited ? &range : NULL, j,
                          placeholders, NULL, NULL);
            if (a < 2)
              append_link (out, notes, NULL, names[a], skeleton, -1);
          }
      }
      break;
    case KM_JOINT_FIXED:
    case KM_JOINT_FREE:
    default:
      {
        /* A free root, or the fixed child that stands for it, is the floating joint the
         * reader takes for a free root (free_root_floats_child()); the reader fixes any
         * other floating joint, as it is written here. */
        gboolean floating = j->type == KM_JOINT_FREE
                            ? j->parent < 0
                            : j->parent == 0 && free_root_floats_child (skeleton);

        append_joint (out, j->name, floating ? "floating" : "fixed", parent, child, &origin,
                      NULL, NULL, NULL, NULL, NULL, NULL);
      }
      break;
    }
}

/* One note per kind of placeholder, saying only what was written; frees the names. */
static void
note_placeholders (GPtrArray    *notes,
                   Placeholders *p)
{
  guint n;

  n = p->n[PLACEHOLDER_BOTH];
  if (n > 0)
    km_format_note (notes, g_dngettext (GETTEXT_PACKAGE,
                                        "%u joint (“%s”) has no effort and no velocity limit, "
                                        "which URDF requires: written as effort 10000 and "
                                        "velocity 1",
                                        "%u joints (“%s”, …) have no effort and no velocity "
                                        "limit, which URDF requires: written as effort 10000 "
                                        "and velocity 1", n),
                    n, p->first[PLACEHOLDER_BOTH]);
  n = p->n[PLACEHOLDER_EFFORT];
  if (n > 0)
    km_format_note (notes, g_dngettext (GETTEXT_PACKAGE,
                                        "%u joint (“%s”) has no effort limit, which URDF "
                                        "requires: written as effort 10000",
                                        "%u joints (“%s”, …) have no effort limit, which URDF "
                                        "requires: written as effort 10000", n),
                    n, p->first[PLACEHOLDER_EFFORT]);
  n = p->n[PLACEHOLDER_VELOCITY];
  if (n > 0)
    km_format_note (notes, g_dngettext (GETTEXT_PACKAGE,
                                        "%u joint (“%s”) has no velocity limit, which URDF "
                                        "requires: written as velocity 1",
                                        "%u joints (“%s”, …) have no velocity limit, which "
                                        "URDF requires: written as velocity 1", n),
                    n, p->first[PLACEHOLDER_VELOCITY]);
  for (guint k = 0; k < N_PLACEHOLDER_KINDS; k++)
    g_free (p->first[k]);
}

/* @dir: the folder the text is written into, where relative mesh references must lead
 * from (km_shape_dup_uri_for); NULL: as the model wrote them. */
static char *
urdf_to_string (const KmSkeleton *skeleton,
                const char       *dir,
                GPtrArray        *notes)
{
  g_autoptr(GHashTable) used = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GPtrArray) links = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(KmSkeleton) writable = NULL;
  g_autofree char *robot = NULL;
  Placeholders placeholders = { 0 };
  const char * const *handlers;
  const KmJoint *root;
  g_autofree guint *order = NULL;
  gboolean floats;
  GString *out;
  guint n;

  g_return_val_if_fail (skeleton != NULL, NULL);

  /* Parents first, with the default effector last among the leaves, as the file that was
   * read had it (km_skeleton_dup_write_order()). Of @skeleton itself: a renamed copy has
   * the same topological order, but its file order is that one. */
  order = km_skeleton_dup_write_order (skeleton);
  /* Names as written, before any is made unique (writable_skeleton()). */
  writable = writable_skeleton (skeleton, notes);
  if (writable != NULL)
    skeleton = writable;
  n = km_skeleton_get_n_joints (skeleton);
  root = km_skeleton_get_joint (skeleton, 0);
  note_unwritable_names (notes, skeleton);
  robot = escape_attr (km_skeleton_get_model_name (skeleton) != NULL ?
                       km_skeleton_get_model_name (skeleton) : root->name);
  /* Link names first, so that the dummy links and joints below keep clear of them; as
   * written (writable_text()), so that two written alike are made unique too. */
  for (guint i = 0; i < n; i++)
    {
      const KmJoint *j = km_skeleton_get_joint (skeleton, i);
      g_autofree char *link_writable = writable_text (km_joint_get_link_name (j));
      const char *link = link_writable != NULL ? link_writable : km_joint_get_link_name (j);

      if (!g_hash_table_contains (used, link))
        {
          g_hash_table_add (used, g_strdup (link));
          g_ptr_array_add (links, g_strdup (link));
        }
      else
        {
          char *unique = unique_name (skeleton, used, link, "_link");

          km_format_note (notes, _("two links are called “%s”: the link of joint “%s” is "
                                   "written as “%s”"), link, j->name, unique);
          g_ptr_array_add (links, unique);
        }
    }
  out = g_string_new ("<?xml version=\"1.0\"?>\n");
  g_string_append_printf (out, "<robot name=\"%s\">\n", robot);

  handlers = km_skeleton_get_body_handlers (skeleton);
  if (handlers != NULL && handlers[0] != NULL)
    km_format_note (notes, _("URDF has no body handlers: %s left out"), handlers[0]);
  /* A URDF root link is the model's origin and cannot move: a free root (but one that only
   * floats its child, see above), or a placed or moving root, hangs from a joint of its own
   * name (a floating one for a free root) below a new base link. */
  floats = root->type == KM_JOINT_FREE && !free_root_floats_child (skeleton);
  if (floats || km_vec3_length (root->offset) > 0 || root->has_rotation ||
      (root->type != KM_JOINT_FIXED && root->type != KM_JOINT_FREE))
    {
      g_autofree char *base = unique_name (skeleton, used, root->name, "_base");

      if (floats)
        km_format_note (notes, _("the free root “%s” is written as a floating joint below a "
                                 "new base link “%s”"), root->name, base);
      else
        km_format_note (notes, _("URDF cannot place or move the root link: “%s” is written "
                                 "as a joint below a new base link “%s”"), root->name, base);
      append_link (out, notes, NULL, base, skeleton, -1);
      append_joint_of (out, notes, skeleton, used, root, base, g_ptr_array_index (links, 0),
                       &placeholders);
    }
  append_link (out, notes, dir, g_ptr_array_index (links, 0), skeleton, 0);

  for (guint k = 1; k < n; k++)
    {
      guint i = order[k];
      const KmJoint *j = km_skeleton_get_joint (skeleton, i);

      append_joint_of (out, notes, skeleton, used, j, g_ptr_array_index (links, (guint) j->parent),
                       g_ptr_array_index (links, i), &placeholders);
      append_link (out, notes, dir, g_ptr_array_index (links, i), skeleton, (int) i);
    }
  g_string_append (out, "</robot>\n");
  note_placeholders (notes, &placeholders);
  return g_string_free (out, FALSE);
}

/**
 * km_urdf_to_string:
 * @notes: (nullable) (element-type utf8): receives a translated line for each thing the
 *   format cannot carry (the array needs g_free as its free function)
 *
 * Mesh references are written as the model wrote them.
 *
 * Returns: (transfer full): the URDF text
 */
char *
km_urdf_to_string (const KmSkeleton *skeleton,
                   GPtrArray        *notes)
{
  g_return_val_if_fail (skeleton != NULL, NULL);

  return urdf_to_string (skeleton, NULL, notes);
}

/**
 * km_urdf_save:
 * @notes: (nullable) (element-type utf8): as for km_urdf_to_string()
 *
 * Writes atomically: a failed save leaves an existing file as it was. A mesh reference
 * relative to the model's folder (KmShape.uri_dir) is written relative to @path's folder,
 * so that it names the same file from there; into the model's own folder, as written.
 */
gboolean
km_urdf_save (const KmSkeleton  *skeleton,
              const char        *path,
              GPtrArray         *notes,
              GError           **error)
{
  g_autofree char *dir = NULL;
  g_autofree char *text = NULL;

  g_return_val_if_fail (skeleton != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  dir = g_path_get_dirname (path);
  text = urdf_to_string (skeleton, dir, notes);
  return km_format_save_text (path, text, error);
}

/**
 * km_urdf_to_string_for_path:
 * @path: where the text is to go: relative mesh references lead from its folder
 * @notes: (nullable) (element-type utf8): as for km_urdf_to_string()
 *
 * Returns: (transfer full): the text km_urdf_save() writes to @path
 */
char *
km_urdf_to_string_for_path (const KmSkeleton *skeleton,
                            const char       *path,
                            GPtrArray        *notes)
{
  g_autofree char *dir = NULL;

  g_return_val_if_fail (skeleton != NULL, NULL);
  g_return_val_if_fail (path != NULL, NULL);

  dir = g_path_get_dirname (path);
  return urdf_to_string (skeleton, dir, notes);
}


/* ---- Writing over the model file ----------------------------------------------------
 *
 * km_urdf_save_over() keeps the original text and changes only what the edits change:
 * - a joint is matched to a <joint> by the link it moves (a renamed joint keeps its link),
 *   else by its name; the root link must stay the root, unmoved;
 * - of a matched <joint>, the name and type attributes and the <parent>, <child>,
 *   <origin>, <axis>, <limit> and <mimic> elements are replaced, removed or added where
 *   what Kinema writes for the edited joint differs from what it writes for the original
 *   one (so a hand-written origin stays as it is when its joint did not change); its other
 *   elements (<dynamics>, <safety_controller>, …) stay;
 * - a deleted joint's <joint> and child <link> are removed, with the <transmission>s of
 *   the joint and the <gazebo> elements of the joint or link; a renamed joint is renamed in
 *   its transmissions; new joints and their links are written as km_urdf_to_string()
 *   writes them, in its order, before </robot> or, where the default end effector is a
 *   joint of the file, right before its <joint> (so that the file reads back with the same
 *   one, which the check below also compares);
 * - a relative or package:// mesh filename that would not lead to the same file from the
 *   new place is rewritten (km_keep_moved_uri);
 * - everything else (links' <inertial>, <visual> and <collision>, materials, comments,
 *   transmissions, gazebo elements) is kept byte for byte.
 * Where that cannot be done safely (the original is gone or no longer reads, a spherical
 * joint, a moved root, links the reader did not take one by one, or a result that does not
 * read back as the skeleton would), the skeleton is written alone as km_urdf_save() does,
 * with a note that names what is lost.
 */

static void
ignore_warning (const char *message,
                gpointer    user_data)
{
}

/* The first child of element @parent of @elements named @name, or -1. */
static int
child_named (GArray     *elements,
             int         parent,
             const char *name)
{
  for (guint k = (guint) parent + 1; k < elements->len; k++)
    {
      const KmKeepElement *e = &g_array_index (elements, KmKeepElement, k);

      if (e->start >= g_array_index (elements, KmKeepElement, parent).end)
        break;
      if (e->parent == parent && g_str_equal (e->name, name))
        return (int) k;
    }
  return -1;
}

/* Whether element @k of @elements lies inside one of @removed (element indices). */
static gboolean
inside_removed (GArray     *elements,
                int         k,
                GHashTable *removed)
{
  for (; k >= 0; k = g_array_index (elements, KmKeepElement, k).parent)
    if (g_hash_table_contains (removed, GINT_TO_POINTER (k + 1)))
      return TRUE;
  return FALSE;
}

/* The offset of the start of the line of @at when only blanks precede it there, else @at:
 * where a line is inserted before @at. */
static gsize
line_start (const char *text,
            gsize       at)
{
  gsize s = at;

  while (s > 0 && (text[s - 1] == ' ' || text[s - 1] == '\t'))
    s--;
  return s == 0 || text[s - 1] == '\n' ? s : at;
}

static void
remove_element (KmKeepSplices *splices,
                GHashTable    *removed,
                const char    *text,
                gsize          length,
                GArray        *elements,
                int            k)
{
  const KmKeepElement *e = &g_array_index (elements, KmKeepElement, k);

  if (g_hash_table_contains (removed, GINT_TO_POINTER (k + 1)))
    return;
  g_hash_table_add (removed, GINT_TO_POINTER (k + 1));
  km_keep_splice_lines (splices, text, length, e->start, e->end);
}

static void
clear_placeholders (Placeholders *p)
{
  for (guint k = 0; k < N_PLACEHOLDER_KINDS; k++)
    g_clear_pointer (&p->first[k], g_free);
}

static void
add_placeholders (Placeholders *to,
                  Placeholders *from)
{
  for (guint k = 0; k < N_PLACEHOLDER_KINDS; k++)
    {
      if (from->n[k] > 0 && to->n[k] == 0)
        to->first[k] = g_strdup (from->first[k]);
      to->n[k] += from->n[k];
      g_clear_pointer (&from->first[k], g_free);
    }
}

/* The URDF of joint @j of @skeleton as append_joint_of writes it, with its notes in
 * @notes (nullable) and placeholders in @placeholders. */
static char *
joint_text (const KmSkeleton *skeleton,
            const KmJoint    *j,
            GPtrArray        *notes,
            Placeholders     *placeholders)
{
  g_autoptr(GHashTable) used = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GString *out = g_string_new (NULL);

  append_joint_of (out, notes, skeleton, used, j,
                   km_joint_get_link_name (km_skeleton_get_joint (skeleton, (guint) j->parent)),
                   km_joint_get_link_name (j), placeholders);
  return g_string_free (out, FALSE);
}

/* The text of @original (@original_text when given, else the file read) with @skeleton's
 * edits (see above), or NULL with @reason set. */
static char *
urdf_over_string (const KmSkeleton  *skeleton,
                  const char        *original,
                  GBytes            *original_text,
                  const char        *path,
                  GPtrArray         *notes,
                  char             **reason)
{
  static const char * const owned[] = { "parent", "child", "origin", "axis", "limit", "mimic" };
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autofree char *text = NULL;
  g_autoptr(KmSkeleton) before = NULL;
  g_autoptr(GArray) elements = NULL;
  g_autoptr(GHashTable) joints = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GHashTable) links = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GHashTable) removed = g_hash_table_new (NULL, NULL);
  g_autoptr(GHashTable) renames = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GHashTable) gone = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(KmKeepSplices) splices = km_keep_splices_new ();
  g_autoptr(KmSkeleton) written = NULL;
  g_autoptr(KmSkeleton) expected = NULL;
  g_autoptr(GString) added = g_string_new (NULL);
  g_autofree char *result = NULL;
  g_autofree char *full = NULL;
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree int *match = NULL;
  g_autofree int *edited_of = NULL;
  Placeholders placeholders = { 0 };
  KmUrdfOptions options = { NULL, FALSE };
  const KmJoint *root, *before_root;
  guint n = km_skeleton_get_n_joints (skeleton), n_before;
  gsize length = 0;

  km_parse_warnings_push (ignore_warning, NULL);
  bytes = original_text != NULL ? g_bytes_ref (original_text)
                                : km_format_read_file (original, KM_URDF_MAX_SIZE, &error);
  if (bytes != NULL)
    {
      const char *data = g_bytes_get_data (bytes, &length);

      text = g_strndup (data != NULL ? data : "", length);
      length = strlen (text);
      before = km_urdf_load (original, text, length, &options, &error);
    }
  km_parse_warnings_pop ();
  if (before == NULL)
    {
      *reason = g_strdup (error->message);
      return NULL;
    }
  elements = km_keep_xml_scan (text, length);
  if (elements == NULL || elements->len == 0
      || !g_str_equal (g_array_index (elements, KmKeepElement, 0).name, "robot"))
    {
      *reason = g_strdup (_("its XML cannot be followed"));
      return NULL;
    }
  for (guint k = 0; k < elements->len; k++)
    {
      const KmKeepElement *e = &g_array_index (elements, KmKeepElement, k);
      char *name;

      if (e->depth != 1 || (!g_str_equal (e->name, "joint") && !g_str_equal (e->name, "link")))
        continue;
      if ((name = km_keep_xml_attr (text, e, "name", NULL, NULL)) == NULL)
        continue;
      if (!g_hash_table_insert (g_str_equal (e->name, "joint") ? joints : links, name,
                                GINT_TO_POINTER (k)))
        {
          *reason = g_strdup (_("two of its elements have one name"));
          return NULL;
        }
    }
  n_before = km_skeleton_get_n_joints (before);
  if (g_hash_table_size (joints) + 1 != n_before)
    {
      *reason = g_strdup (_("its joints are not the skeleton's one by one"));
      return NULL;
    }
  for (guint i = 0; i < n; i++)
    if (km_skeleton_get_joint (skeleton, i)->type == KM_JOINT_SPHERICAL)
      {
        *reason = g_strdup (_("a spherical joint becomes three joints"));
        return NULL;
      }
  root = km_skeleton_get_joint (skeleton, 0);
  before_root = km_skeleton_get_joint (before, 0);
  if (g_strcmp0 (km_joint_get_link_name (root), km_joint_get_link_name (before_root)) != 0
      || root->type != before_root->type || km_vec3_length (root->offset) > 0
      || root->has_rotation)
    {
      *reason = g_strdup (_("the root link changed"));
      return NULL;
    }

  /* Joints by the link they move, else by name. */
  match = g_new (int, n);
  edited_of = g_new (int, n_before);
  for (guint o = 0; o < n_before; o++)
    edited_of[o] = -1;
  match[0] = 0;
  edited_of[0] = 0;
  for (guint pass = 0; pass < 2; pass++)
    for (guint i = 1; i < n; i++)
      {
        const KmJoint *e = km_skeleton_get_joint (skeleton, i);

        if (pass == 0)
          match[i] = -1;
        for (guint o = 1; o < n_before && match[i] < 0; o++)
          {
            const KmJoint *j = km_skeleton_get_joint (before, o);

            if (edited_of[o] < 0
                && (pass == 0 ? g_str_equal (km_joint_get_link_name (e), km_joint_get_link_name (j))
                              : g_str_equal (e->name, j->name)))
              {
                match[i] = (int) o;
                edited_of[o] = (int) i;
              }
          }
      }

  for (guint o = 1; o < n_before; o++)
    {
      const KmJoint *j = km_skeleton_get_joint (before, o);
      gpointer k;

      if (!g_hash_table_lookup_extended (joints, j->name, NULL, &k))
        {
          *reason = g_strdup (_("its joints are not the skeleton's one by one"));
          clear_placeholders (&placeholders);
          return NULL;
        }
      if (edited_of[o] >= 0)
        {
          const KmJoint *e = km_skeleton_get_joint (skeleton, (guint) edited_of[o]);
          int J = GPOINTER_TO_INT (k);
          const KmKeepElement *je = &g_array_index (elements, KmKeepElement, J);
          g_autoptr(GPtrArray) joint_notes = g_ptr_array_new_with_free_func (g_free);
          Placeholders old_placeholders = { 0 }, new_placeholders = { 0 };
          g_autofree char *old_text = joint_text (before, j, NULL, &old_placeholders);
          g_autofree char *new_text = joint_text (skeleton, e, joint_notes, &new_placeholders);
          g_autoptr(GArray) old_elements = km_keep_xml_scan (old_text, strlen (old_text));
          g_autoptr(GArray) new_elements = km_keep_xml_scan (new_text, strlen (new_text));
          const KmKeepElement *old_joint, *new_joint;
          gboolean limit_written = FALSE;

          clear_placeholders (&old_placeholders);
          if (old_elements == NULL || new_elements == NULL || je->start_end == je->end)
            {
              *reason = g_strdup (_("its joints are not the skeleton's one by one"));
              clear_placeholders (&new_placeholders);
              clear_placeholders (&placeholders);
              return NULL;
            }
          old_joint = &g_array_index (old_elements, KmKeepElement, 0);
          new_joint = &g_array_index (new_elements, KmKeepElement, 0);
          for (guint a = 0; a < 2; a++)
            {
              const char *attr = a == 0 ? "name" : "type";
              g_autofree char *was = km_keep_xml_attr (old_text, old_joint, attr, NULL, NULL);
              g_autofree char *now = km_keep_xml_attr (new_text, new_joint, attr, NULL, NULL);
              g_autofree char *escaped = escape_attr (now);
              gsize vs = 0, ve = 0;
              g_autofree char *file_value = km_keep_xml_attr (text, je, attr, &vs, &ve);

              if (g_strcmp0 (was, now) == 0)
                continue;
              if (file_value == NULL)
                {
                  *reason = g_strdup (_("its joints are not the skeleton's one by one"));
                  clear_placeholders (&new_placeholders);
                  clear_placeholders (&placeholders);
                  return NULL;
                }
              km_keep_splice (splices, vs, ve, escaped);
              limit_written |= a == 1;
            }
          if (!g_str_equal (j->name, e->name))
            g_hash_table_insert (renames, j->name, e->name);
          for (guint t = 0; t < G_N_ELEMENTS (owned); t++)
            {
              int oc = child_named (old_elements, 0, owned[t]);
              int nc = child_named (new_elements, 0, owned[t]);
              int fc = child_named (elements, J, owned[t]);
              const KmKeepElement *ol = oc >= 0 ? &g_array_index (old_elements, KmKeepElement, oc) : NULL;
              const KmKeepElement *nl = nc >= 0 ? &g_array_index (new_elements, KmKeepElement, nc) : NULL;
              const KmKeepElement *fl = fc >= 0 ? &g_array_index (elements, KmKeepElement, fc) : NULL;
              g_autofree char *now = nl != NULL ? g_strndup (new_text + nl->start, nl->end - nl->start) : NULL;

              if (ol != NULL && nl != NULL && ol->end - ol->start == nl->end - nl->start
                  && memcmp (old_text + ol->start, now, nl->end - nl->start) == 0)
                continue;
              if (ol == NULL && nl == NULL)
                continue;
              limit_written |= g_str_equal (owned[t], "limit");
              if (nl == NULL && fl != NULL)
                km_keep_splice_lines (splices, text, length, fl->start, fl->end);
              else if (nl != NULL && fl != NULL)
                km_keep_splice (splices, fl->start, fl->end, now);
              else if (nl != NULL)
                {
                  gsize at = line_start (text, je->content_end);
                  g_autofree char *line = at < je->content_end ? g_strdup_printf ("    %s\n", now)
                                                              : g_strdup (now);

                  km_keep_splice (splices, at, at, line);
                }
            }
          if (limit_written)
            {
              add_placeholders (&placeholders, &new_placeholders);
              for (guint k2 = 0; k2 < joint_notes->len; k2++)
                g_ptr_array_add (notes != NULL ? notes : joint_notes,
                                 g_strdup (g_ptr_array_index (joint_notes, k2)));
            }
          else
            clear_placeholders (&new_placeholders);
        }
      else
        {
          /* Deleted: the joint and the link it moved. */
          gpointer l;

          remove_element (splices, removed, text, length, elements, GPOINTER_TO_INT (k));
          g_hash_table_add (gone, j->name);
          g_hash_table_add (gone, (gpointer) km_joint_get_link_name (j));
          if (g_hash_table_lookup_extended (links, km_joint_get_link_name (j), NULL, &l))
            remove_element (splices, removed, text, length, elements, GPOINTER_TO_INT (l));
        }
    }

  /* What names a deleted joint or link goes with it; a renamed joint's transmissions follow. */
  for (guint k = 0; k < elements->len; k++)
    {
      const KmKeepElement *e = &g_array_index (elements, KmKeepElement, k);
      const KmKeepElement *top = e;
      int t = (int) k;
      g_autofree char *name = NULL;
      gsize vs = 0, ve = 0;

      if (e->depth < 1)
        continue;
      while (top->depth > 1)
        top = &g_array_index (elements, KmKeepElement, (t = top->parent));
      if (e->depth == 1 && g_str_equal (e->name, "gazebo"))
        {
          g_autofree char *reference = km_keep_xml_attr (text, e, "reference", NULL, NULL);

          if (reference != NULL && g_hash_table_contains (gone, reference))
            remove_element (splices, removed, text, length, elements, (int) k);
        }
      else if (e->depth >= 2 && g_str_equal (top->name, "transmission")
               && g_str_equal (e->name, "joint")
               && (name = km_keep_xml_attr (text, e, "name", &vs, &ve)) != NULL)
        {
          const char *to = g_hash_table_lookup (renames, name);

          if (g_hash_table_contains (gone, name))
            remove_element (splices, removed, text, length, elements, t);
          else if (to != NULL && !inside_removed (elements, (int) k, removed))
            {
              g_autofree char *escaped = escape_attr (to);

              km_keep_splice (splices, vs, ve, escaped);
            }
        }
    }
  /* Mesh files, from the new place. */
  for (guint k = 0; k < elements->len; k++)
    {
      const KmKeepElement *e = &g_array_index (elements, KmKeepElement, k);
      g_autofree char *uri = NULL;
      g_autofree char *moved = NULL;
      gsize vs = 0, ve = 0;

      if (!g_str_equal (e->name, "mesh") || inside_removed (elements, (int) k, removed)
          || (uri = km_keep_xml_attr (text, e, "filename", &vs, &ve)) == NULL
          || (moved = km_keep_moved_uri (uri, original, path)) == NULL)
        continue;
      {
        g_autofree char *escaped = escape_attr (moved);

        km_keep_splice (splices, vs, ve, escaped);
      }
    }
  /* New joints and their links, in write order (parents first, the default effector last),
   * before </robot>; or, where the default effector is a joint of the file (the last leaf
   * there), before its <joint>, so that it stays the last leaf and the file reads back
   * with it (a new leaf after it would take over). */
  {
    g_autofree guint *order = km_skeleton_dup_write_order (skeleton);
    int effector = km_skeleton_get_default_effector (skeleton);
    const KmKeepElement *robot = &g_array_index (elements, KmKeepElement, 0);
    gsize at = line_start (text, robot->content_end);
    gpointer k;

    for (guint w = 0; w < n; w++)
      if (order[w] > 0 && match[order[w]] < 0)
        {
          const KmJoint *e = km_skeleton_get_joint (skeleton, order[w]);
          g_autofree char *joint = joint_text (skeleton, e, notes, &placeholders);

          g_string_append (added, joint);
          append_link (added, notes, dir, km_joint_get_link_name (e), skeleton, (int) order[w]);
        }
    if (effector > 0 && match[effector] > 0
        && g_hash_table_lookup_extended (joints,
                                         km_skeleton_get_joint (before, (guint) match[effector])
                                         ->name, NULL, &k))
      {
        const KmKeepElement *je = &g_array_index (elements, KmKeepElement, GPOINTER_TO_INT (k));

        at = line_start (text, je->start);
        if (added->len > 0 && at == je->start && at > 0 && text[at - 1] != '\n')
          g_string_append_c (added, '\n');
      }
    if (added->len > 0)
      {
        if (at > 0 && text[at - 1] != '\n')
          g_string_prepend_c (added, '\n');
        km_keep_splice (splices, at, at, added->str);
      }
  }
  result = km_keep_splices_apply (splices, text, length);
  if (result == NULL)
    {
      *reason = g_strdup (_("its joints are not the skeleton's one by one"));
      clear_placeholders (&placeholders);
      return NULL;
    }

  /* The check: the file reads back as the skeleton written alone would. */
  full = urdf_to_string (skeleton, dir, NULL);
  km_parse_warnings_push (ignore_warning, NULL);
  written = km_urdf_load (path, result, strlen (result), &options, NULL);
  expected = km_urdf_load (path, full, strlen (full), &options, NULL);
  km_parse_warnings_pop ();
  if (written == NULL || expected == NULL
      || !km_keep_same_kinematics (expected, written, FALSE, reason))
    {
      if (*reason == NULL)
        *reason = g_strdup (_("it does not read back as the skeleton"));
      clear_placeholders (&placeholders);
      return NULL;
    }
  note_placeholders (notes, &placeholders);
  return g_steal_pointer (&result);
}

/**
 * km_urdf_save_over:
 * @original: the URDF file @skeleton was read from (and edited since)
 * @path: where to write; may be @original
 * @notes: (nullable) (element-type utf8): as for km_urdf_to_string()
 *
 * km_urdf_save(), keeping what @original has and Kinema does not model (inertials,
 * collisions, transmissions, gazebo elements, comments): @original's text with the edits
 * of the skeleton (see above). Where that cannot be done, the skeleton is written alone,
 * with a note saying what of @original is lost.
 */
gboolean
km_urdf_save_over (const KmSkeleton  *skeleton,
                   const char        *original,
                   const char        *path,
                   GPtrArray         *notes,
                   GError           **error)
{
  return km_urdf_save_over_text (skeleton, original, NULL, path, notes, error);
}

/**
 * km_urdf_save_over_text:
 * @original: the URDF file @skeleton was read from: its name, for notes and the references
 *   in it
 * @original_text: (nullable): the text @original held when it was read; NULL: the file as
 *   it is now
 * @path: where to write; may be @original
 * @notes: (nullable) (element-type utf8): as for km_urdf_to_string()
 *
 * km_urdf_save_over() written over @original_text, not over the file, which need not be
 * there any more (deleted by another program since it was read): what Kinema does not
 * model is kept from the text as from a file.
 */
gboolean
km_urdf_save_over_text (const KmSkeleton  *skeleton,
                        const char        *original,
                        GBytes            *original_text,
                        const char        *path,
                        GPtrArray         *notes,
                        GError           **error)
{
  g_autofree char *reason = NULL;
  g_autofree char *text = NULL;
  g_autoptr(KmSkeleton) writable = NULL;

  g_return_val_if_fail (skeleton != NULL, FALSE);
  g_return_val_if_fail (original != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  /* Joint names as written (writable_skeleton()); noted only when this text is the one
   * saved (urdf_to_string() notes them itself). */
  writable = writable_skeleton (skeleton, NULL);
  text = urdf_over_string (writable != NULL ? writable : skeleton, original, original_text,
                           path, notes, &reason);
  if (text != NULL)
    {
      g_clear_pointer (&writable, km_skeleton_unref);
      writable = writable_skeleton (skeleton, notes);
      note_unwritable_names (notes, writable != NULL ? writable : skeleton);
    }
  else
    {
      g_autofree char *dir = g_path_get_dirname (path);

      km_keep_note_lost (notes, original, reason,
                         _("inertials, collisions, transmissions, gazebo elements and "
                           "comments"));
      text = urdf_to_string (skeleton, dir, notes);
    }
  return km_format_save_text (path, text, error);
}
