/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-body"

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "km-body-writer.h"

#include "km-error.h"
#include "km-body.h"
#include "km-format.h"
#include "km-model-keep.h"
#include "km-yaml.h"

/*
 * The mapping, joint by joint in the skeleton's preorder (so parents come first):
 * - every joint is one link: name, parent, translation (the offset), rotation (axis-angle
 *   [x, y, z, degrees], only when the joint has one), joint_type, joint_axis (revolute and
 *   prismatic), joint_range (degrees or metres; an `unlimited` end for each open side:
 *   both when the joint has no limit, one when it is limited on one side only),
 *   joint_displacement (degrees or metres: the pose the model states, when it states one
 *   and the joint's value in it is not 0; km_body_to_string_with_pose) and joint_id;
 * - an angle in degrees (a range, a displacement, a velocity, a rotation angle) is written
 *   as the shortest text that the reader takes back to the same radians
 *   (km_format_scaled_number): 0.8 rad is 45.83662361046586, which reads back as 0.8, not
 *   45.836623610465864, which reads back as 0.8000000000000002;
 * - a joint keeps its joint id (KmJoint.joint_id): Choreonoid addresses joints by id (a
 *   pose sequence's keys, a project's joint_displacements), so renumbering them would make
 *   those drive other joints. A joint with DOF and no id (one added in the editor, one of
 *   a model without ids) gets the next id after the largest one, in link order, the place
 *   where Choreonoid counts joints without an id too; a spherical joint's three links get
 *   its id, if any, and new ones. An id an earlier joint has already (which Choreonoid
 *   warns about) is not written twice: the later joint is treated as one without (noted);
 * - velocity and effort limits the model gave (KmJoint.max_velocity, max_effort) become
 *   max_joint_velocity (degrees or metres per second) and max_joint_effort;
 * - the body's name is the model's (a URDF robot name, KmSkeleton's model name), else the
 *   root's;
 * - a spherical joint has no .body equivalent: it becomes three revolute links NAME_x,
 *   NAME_y and NAME about X, Y and Z, chained with zero offsets (the euler XYZ order of
 *   Kinema's spherical joints, so the DOFs keep their order and meaning); the first carries
 *   the offset and rotation, the last the name, children and shapes;
 * - the root is `free` or `fixed` like the skeleton's root; body handlers are written as
 *   `body_handlers`;
 * - Choreonoid has no key for linked (mimic) joints: a follower gets Kinema's
 *   `kinema_mimic: { joint: LEADER, multiplier: M, offset: O }` (the offset in degrees for
 *   a revolute joint, metres for a prismatic one; the multiplier as KmJoint.mimic_ratio),
 *   which km_body_load() reads and Choreonoid ignores (it moves the joint on its own);
 * - shapes become Shape elements (Box, Sphere, Cylinder, Cone, Capsule, and meshes without
 *   a file as TriangleMesh), wrapped in a Transform when they are placed or scaled;
 * - a mesh that came from a file (KmShape.uri) becomes a Resource of that uri, whether or
 *   not the file was loaded: a relative one is written relative to the saved file's folder
 *   (km_body_save), a package:// name or other URL as the model wrote it (the .body reader
 *   resolves package:// names as the URDF reader does: km_package_uri_resolve), with the
 *   `node` of the file it names (KmShape.uri_node), if any. A package:// name that was
 *   found (KmShape.uri_file) is kept only where it leads to the same file from the saved
 *   file without package paths (saved inside the package, found above it): elsewhere the
 *   saved file could not find it without KINEMA_PACKAGE_PATH, and Choreonoid without its
 *   ROS plug-in not at all, so it is written as the file's path (noted). A loaded mesh is
 *   placed by its reference's transform and scale (KmShape.uri_transform, uri_scale), once
 *   for all the shapes read from the file (uri_part 0). Writing a file's triangles
 *   instead would make a model of large meshes a text of tens of megabytes, more nodes
 *   than a .body reader takes, and lose the reference that writers naming files (URDF)
 *   need. A colour the model gives the mesh (a URDF material, a .body appearance) is kept
 *   as the appearance of a Shape whose geometry is the Resource, which Choreonoid reads for
 *   a file of one mesh only: for a loaded file of several the colour is left out (noted);
 *   a file that was not loaded keeps the colour its reference has;
 * - a link is named after the link its joint moves (km_joint_get_link_name(): a URDF child
 *   link's, a .body link's with a joint_name) and `parent` names the parent's link, as a
 *   .body file does; a joint whose name differs from its link's has it as the link's
 *   `joint_name` (Choreonoid's Link::jointName()). Where the link names are not unique
 *   (body_link_names_unique), each link is named after its joint instead, and the link
 *   names are left out (noted).
 */

static KmYamlNode *
vec3_node (KmVec3 v)
{
  /* + 0.0 writes a negative zero as 0. */
  double values[3] = { v.x + 0.0, v.y + 0.0, v.z + 0.0 };

  return km_yaml_node_new_numbers (values, 3);
}

/* @value (radians or metres) written in the unit the reader multiplies by @unit to get it
 * (KM_FORMAT_RADIANS_PER_DEGREE for degrees, 1 for metres), so that it reads back as the
 * same double where one does. */
static KmYamlNode *
unit_number_node (double value,
                  double unit)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];

  km_format_scaled_number (value, unit, buffer, sizeof buffer);
  return km_yaml_node_new_scalar (buffer, KM_YAML_STYLE_PLAIN);
}

static KmYamlNode *
rotation_node (KmQuat q)
{
  KmVec3 axis;
  double angle, values[3];
  KmYamlNode *seq;

  km_quat_to_axis_angle (q, &axis, &angle);
  values[0] = axis.x;
  values[1] = axis.y;
  values[2] = axis.z;
  seq = km_yaml_node_new_numbers (values, 3);
  km_yaml_sequence_append (seq, unit_number_node (angle, KM_FORMAT_RADIANS_PER_DEGREE));
  return seq;
}

/* Whether @value (radians or metres) can be written in the unit of unit_number_node: a
 * finite number of radians past some 3e306 is no finite number of degrees. */
static gboolean
fits_unit (double value,
           double unit)
{
  return isfinite (value) && isfinite (value / unit);
}

/* @unit: as for unit_number_node. An end the unit cannot write is unlimited (what_is_lost
 * notes it). */
static KmYamlNode *
range_node (const KmLimit *limit,
            double         unit)
{
  KmYamlNode *seq = km_yaml_node_new_sequence (KM_YAML_STYLE_FLOW);

  /* Each end on its own: a joint limited on one side only is [unlimited, 28.6479]. */
  if (limit->limited && fits_unit (limit->min, unit))
    km_yaml_sequence_append (seq, unit_number_node (limit->min, unit));
  else
    km_yaml_sequence_append (seq, km_yaml_node_new_string ("unlimited"));
  if (limit->limited && fits_unit (limit->max, unit))
    km_yaml_sequence_append (seq, unit_number_node (limit->max, unit));
  else
    km_yaml_sequence_append (seq, km_yaml_node_new_string ("unlimited"));
  return seq;
}

static KmYamlNode *
geometry_node (const KmShape *shape)
{
  KmYamlNode *g = km_yaml_node_new_mapping (KM_YAML_STYLE_FLOW);

  switch (shape->type)
    {
    case KM_SHAPE_BOX:
      km_yaml_mapping_append (g, "type", km_yaml_node_new_string ("Box"));
      km_yaml_mapping_append (g, "size", vec3_node (shape->size));
      break;
    case KM_SHAPE_SPHERE:
      km_yaml_mapping_append (g, "type", km_yaml_node_new_string ("Sphere"));
      km_yaml_mapping_append (g, "radius", km_yaml_node_new_number (shape->radius));
      break;
    case KM_SHAPE_CYLINDER:
    case KM_SHAPE_CONE:
    case KM_SHAPE_CAPSULE:
      km_yaml_mapping_append (g, "type", km_yaml_node_new_string (
                                shape->type == KM_SHAPE_CYLINDER ? "Cylinder" :
                                shape->type == KM_SHAPE_CONE ? "Cone" : "Capsule"));
      km_yaml_mapping_append (g, "radius", km_yaml_node_new_number (shape->radius));
      km_yaml_mapping_append (g, "height", km_yaml_node_new_number (shape->height));
      break;
    case KM_SHAPE_MESH:
    default:
      {
        const KmMesh *mesh = shape->mesh;
        guint nv = km_mesh_get_n_vertices (mesh), nt = km_mesh_get_n_triangles (mesh);
        const float *v = km_mesh_get_vertices (mesh);
        const guint32 *idx = km_mesh_get_indices (mesh);
        KmYamlNode *vertices = km_yaml_node_new_sequence (KM_YAML_STYLE_FLOW);
        KmYamlNode *triangles = km_yaml_node_new_sequence (KM_YAML_STYLE_FLOW);

        for (gsize i = 0; i < 3 * (gsize) nv; i++)
          km_yaml_sequence_append (vertices, km_yaml_node_new_number (v[i]));
        for (gsize i = 0; i < 3 * (gsize) nt; i++)
          km_yaml_sequence_append (triangles, km_yaml_node_new_int (idx[i]));
        km_yaml_node_set_style (g, KM_YAML_STYLE_BLOCK);
        km_yaml_mapping_append (g, "type", km_yaml_node_new_string ("TriangleMesh"));
        km_yaml_mapping_append (g, "vertices", vertices);
        km_yaml_mapping_append (g, "triangles", triangles);
      }
      break;
    }
  return g;
}

/* The Shape's appearance: the colour (material) of @shape. */
static KmYamlNode *
appearance_node (const KmShape *shape)
{
  KmYamlNode *appearance = km_yaml_node_new_mapping (KM_YAML_STYLE_FLOW);
  KmYamlNode *material = km_yaml_node_new_mapping (KM_YAML_STYLE_FLOW);
  /* Colours are floats: six decimals say them exactly enough and read well. */
  double rgb[3] = { round (shape->color.r * 1e6) / 1e6, round (shape->color.g * 1e6) / 1e6,
                    round (shape->color.b * 1e6) / 1e6 };

  km_yaml_mapping_append (material, "diffuse", km_yaml_node_new_numbers (rgb, 3));
  if (shape->color.a < 1)
    km_yaml_mapping_append (material, "transparency",
                            km_yaml_node_new_number (round ((1.0 - shape->color.a) * 1e6) /
                                                     1e6));
  km_yaml_mapping_append (appearance, "material", material);
  return appearance;
}

/* Whether the model gives the mesh @shape a colour of its own, not the one of its file: a
 * URDF material, or a colour other than the file's (the default colour when the file has
 * none, or was not loaded: a .body appearance kept on the reference), as the URDF writer
 * decides. */
static gboolean
has_own_color (const KmShape *shape)
{
  KmColor file = KM_COLOR_DEFAULT;

  if (shape->material != NULL)
    return TRUE;
  if (shape->mesh != NULL)
    km_mesh_get_color (shape->mesh, &file);
  return shape->color.r != file.r || shape->color.g != file.g || shape->color.b != file.b ||
         shape->color.a != file.a;
}

/* The uri to write for @shape's file into the file @path (NULL: as the model wrote it):
 * a package:// name that was found is kept where it leads to the same file from @path
 * without package paths, else it becomes the file's path, and is added to @pathed. */
static char *
resource_uri (const KmShape *shape,
              const char    *path,
              GPtrArray     *pathed)
{
  g_autofree char *dir = path != NULL ? g_path_get_dirname (path) : NULL;

  if (path != NULL && shape->uri_file != NULL && g_str_has_prefix (shape->uri, "package://"))
    {
      g_autofree char *found = km_package_uri_resolve (shape->uri, path, NULL, NULL);
      g_autofree char *same = found != NULL ? g_canonicalize_filename (found, NULL) : NULL;

      if (g_strcmp0 (same, shape->uri_file) != 0)
        {
          g_autofree char *to = g_canonicalize_filename (dir, NULL);
          char *relative = km_path_climbing (to, shape->uri_file, 1, NULL);

          if (!g_ptr_array_find_with_equal_func (pathed, shape->uri, g_str_equal, NULL))
            g_ptr_array_add (pathed, shape->uri);
          /* Absolute when the two share only the root, as km_shape_dup_uri_for. */
          return relative != NULL ? relative : g_strdup (shape->uri_file);
        }
    }
  return km_shape_dup_uri_for (shape, dir);
}

/* The Resource of @shape's file (KmShape.uri), written into the file @path (resource_uri);
 * as the geometry of a Shape with @shape's colour when @with_color. */
static KmYamlNode *
resource_node (const KmShape *shape,
               const char    *path,
               gboolean       with_color,
               GPtrArray     *pathed)
{
  g_autofree char *uri = resource_uri (shape, path, pathed);
  KmYamlNode *resource = km_yaml_node_new_mapping (with_color ? KM_YAML_STYLE_FLOW :
                                                   KM_YAML_STYLE_BLOCK);
  KmYamlNode *node;

  km_yaml_mapping_append (resource, "type", km_yaml_node_new_string ("Resource"));
  km_yaml_mapping_append (resource, "uri", km_yaml_node_new_string (uri));
  /* A node of the file: without it, Choreonoid would draw the whole file. */
  if (shape->uri_node != NULL)
    km_yaml_mapping_append (resource, "node", km_yaml_node_new_string (shape->uri_node));
  if (!with_color)
    return resource;
  node = km_yaml_node_new_mapping (KM_YAML_STYLE_BLOCK);
  km_yaml_mapping_append (node, "type", km_yaml_node_new_string ("Shape"));
  km_yaml_mapping_append (node, "geometry", resource);
  km_yaml_mapping_append (node, "appearance", appearance_node (shape));
  return node;
}

/* A scale factor within a few ulps of 1 (what taking a rotating VRML Transform's matrix
 * apart leaves: 0.9999999999999999) is 1. */
static double
written_scale_factor (double s)
{
  return fabs (s - 1) < 1e-12 ? 1 : s;
}

/* @node in a Transform of @transform and @scale, when those place or scale it (a scale
 * within a few ulps of 1 is none). */
static KmYamlNode *
placed_node (KmYamlNode        *node,
             const KmTransform *transform,
             KmVec3             given_scale)
{
  KmQuat q = km_mat3_to_quat (&transform->rot);
  gboolean placed = km_vec3_length (transform->pos) > 0 ||
                    km_quat_angle_between (q, KM_QUAT_IDENTITY) > 1e-12;
  KmVec3 scale = km_vec3 (written_scale_factor (given_scale.x),
                          written_scale_factor (given_scale.y),
                          written_scale_factor (given_scale.z));
  gboolean scaled = scale.x != 1 || scale.y != 1 || scale.z != 1;
  KmYamlNode *t, *elements;

  if (!placed && !scaled)
    return node;
  t = km_yaml_node_new_mapping (KM_YAML_STYLE_BLOCK);
  elements = km_yaml_node_new_sequence (KM_YAML_STYLE_BLOCK);
  km_yaml_mapping_append (t, "type", km_yaml_node_new_string ("Transform"));
  km_yaml_mapping_append (t, "translation", vec3_node (transform->pos));
  km_yaml_mapping_append (t, "rotation", rotation_node (q));
  if (scaled)
    km_yaml_mapping_append (t, "scale", vec3_node (scale));
  km_yaml_sequence_append (elements, node);
  km_yaml_mapping_append (t, "elements", elements);
  return t;
}

/* The element of shape @s of @shapes (a link's), NULL when it has none: a shape read from
 * a mesh file after the file's first is written with the first (its Resource). @path,
 * @pathed: as for body_to_string and resource_uri. */
static KmYamlNode *
shape_node (KmShape * const *shapes,
            guint            n_shapes,
            guint            s,
            const char      *path,
            const char      *link,
            GPtrArray       *notes,
            GPtrArray       *pathed)
{
  const KmShape *shape = shapes[s];
  KmYamlNode *node;

  if (shape->type == KM_SHAPE_MESH && shape->uri != NULL && shape->mesh == NULL)
    {
      /* A mesh file that was not loaded: the reference, placed as the model placed it,
       * with the colour the model gives it (a .body appearance, a URDF material). */
      return placed_node (resource_node (shape, path, has_own_color (shape), pathed),
                          &shape->transform, shape->scale);
    }
  if (shape->type == KM_SHAPE_MESH && shape->uri != NULL)
    {
      /* A loaded mesh file: its reference, once for the file's shapes. */
      gboolean one_mesh = TRUE, with_color;

      if (shape->uri_part > 0)
        return NULL;
      for (guint i = 0; i < n_shapes; i++)
        if (i != s && shapes[i]->uri_part > 0 && g_strcmp0 (shapes[i]->uri, shape->uri) == 0
            && g_strcmp0 (shapes[i]->uri_node, shape->uri_node) == 0)
          one_mesh = FALSE;
      with_color = one_mesh && has_own_color (shape);
      if (!one_mesh && shape->material != NULL)
        km_format_note (notes,
                        /* Translators: a mesh file, then a link name */
                        _("a .body file can colour a mesh file of one mesh only: the colour of "
                          "“%s” of link “%s” is left out"), shape->uri, link);
      return placed_node (resource_node (shape, path, with_color, pathed),
                          &shape->uri_transform, shape->uri_scale);
    }
  if (shape->type == KM_SHAPE_MESH && shape->mesh == NULL)
    return NULL;   /* nothing to draw, nothing to name */
  node = km_yaml_node_new_mapping (KM_YAML_STYLE_BLOCK);
  km_yaml_mapping_append (node, "type", km_yaml_node_new_string ("Shape"));
  km_yaml_mapping_append (node, "geometry", geometry_node (shape));
  km_yaml_mapping_append (node, "appearance", appearance_node (shape));
  return placed_node (node, &shape->transform, shape->scale);
}

/* @unit: as for unit_number_node, for @limit, @displacement (nullable: none) and the
 * velocity of @rates (nullable). */
static KmYamlNode *
link_node (const char    *name,
           const char    *joint_name,
           const char    *parent,
           const char    *type,
           const KmVec3  *offset,
           const KmQuat  *rotation,
           const KmVec3  *axis,
           const KmLimit *limit,
           const double  *displacement,
           double         unit,
           int            joint_id,
           const KmJoint *rates)
{
  KmYamlNode *link = km_yaml_node_new_mapping (KM_YAML_STYLE_BLOCK);

  km_yaml_mapping_append (link, "name", km_yaml_node_new_string (name));
  if (joint_name != NULL && !g_str_equal (joint_name, name))
    km_yaml_mapping_append (link, "joint_name", km_yaml_node_new_string (joint_name));
  if (parent != NULL)
    km_yaml_mapping_append (link, "parent", km_yaml_node_new_string (parent));
  if (offset != NULL)
    km_yaml_mapping_append (link, "translation", vec3_node (*offset));
  if (rotation != NULL)
    km_yaml_mapping_append (link, "rotation", rotation_node (*rotation));
  km_yaml_mapping_append (link, "joint_type", km_yaml_node_new_string (type));
  if (axis != NULL)
    km_yaml_mapping_append (link, "joint_axis", vec3_node (*axis));
  if (joint_id >= 0)
    km_yaml_mapping_append (link, "joint_id", km_yaml_node_new_int (joint_id));
  if (limit != NULL)
    km_yaml_mapping_append (link, "joint_range", range_node (limit, unit));
  /* Absent is 0: a stated pose is written joint by joint where it is not. */
  if (displacement != NULL && fits_unit (*displacement, unit) && *displacement != 0)
    km_yaml_mapping_append (link, "joint_displacement", unit_number_node (*displacement, unit));
  if (rates != NULL && fits_unit (rates->max_velocity, unit))
    km_yaml_mapping_append (link, "max_joint_velocity",
                            unit_number_node (rates->max_velocity, unit));
  if (rates != NULL && isfinite (rates->max_effort))
    km_yaml_mapping_append (link, "max_joint_effort", km_yaml_node_new_number (rates->max_effort));
  return link;
}

/* Kinema's key for a linked (mimic) joint, `kinema_mimic: { joint: LEADER, multiplier: M,
 * offset: O }` (Choreonoid ignores it), appended to @link where joint @j of @skeleton
 * follows another one: the offset in the follower's unit (degrees for a revolute joint,
 * metres), the multiplier as the skeleton's (radians and metres). */
static void
append_mimic (KmYamlNode       *link,
              const KmSkeleton *skeleton,
              const KmJoint    *j)
{
  KmYamlNode *mimic;

  if (j->mimic < 0)
    return;
  mimic = km_yaml_node_new_mapping (KM_YAML_STYLE_FLOW);
  km_yaml_mapping_append (mimic, "joint", km_yaml_node_new_string (
                            km_skeleton_get_joint (skeleton, (guint) j->mimic)->name));
  km_yaml_mapping_append (mimic, "multiplier", km_yaml_node_new_number (j->mimic_ratio));
  km_yaml_mapping_append (mimic, "offset",
                          unit_number_node (j->mimic_offset,
                                            j->type == KM_JOINT_REVOLUTE
                                            ? KM_FORMAT_RADIANS_PER_DEGREE : 1.0));
  km_yaml_mapping_append (link, "kinema_mimic", mimic);
}

/* The names of the first two of the three revolute links a spherical joint becomes (the
 * third has the joint's name). */
static void
spherical_link_names (const KmSkeleton  *skeleton,
                      const KmJoint     *joint,
                      char             **name_x,
                      char             **name_y)
{
  *name_x = g_strdup_printf ("%s_x", joint->name);
  *name_y = g_strdup_printf ("%s_y", joint->name);
  if (km_skeleton_find_joint (skeleton, *name_x) >= 0 ||
      km_skeleton_find_joint (skeleton, *name_y) >= 0)
    {
      g_free (*name_x);
      g_free (*name_y);
      *name_x = g_strdup_printf ("%s_sph_x", joint->name);
      *name_y = g_strdup_printf ("%s_sph_y", joint->name);
    }
}

typedef struct
{
  GHashTable *used;   /* ids written, each + 1 */
  int         next;   /* one past the largest id */
  int         low;    /* where to look for a free one once next is past the largest readable */
} JointIds;

/* An id no joint has yet: the next after the largest, or (past the ids a .body file may
 * have) the smallest free one. */
static int
new_joint_id (JointIds *ids)
{
  int id;

  if (ids->next <= KM_SKELETON_MAX_JOINTS)
    id = ids->next++;
  else
    {
      while (g_hash_table_contains (ids->used, GINT_TO_POINTER (ids->low + 1)))
        ids->low++;
      id = ids->low;
    }
  g_hash_table_add (ids->used, GINT_TO_POINTER (id + 1));
  return id;
}

/**
 * km_body_link_joint_ids:
 *
 * The joint_id of each link km_body_to_string() writes for @skeleton: three for each joint
 * (a spherical joint's three links; other joints have one link, the first), -1 for none.
 * See the mapping above: the ids joints keep first, then new ones in link order; an id no
 * .body file may have (a VRML model's), or one an earlier joint has, is renumbered.
 *
 * Returns: (transfer full): 3 × n_joints ids
 */
int *
km_body_link_joint_ids (const KmSkeleton *skeleton)
{
  guint n = km_skeleton_get_n_joints (skeleton);
  int *link_ids = g_new (int, 3 * (gsize) MAX (n, 1));
  JointIds ids = { g_hash_table_new (NULL, NULL), 0, 0 };

  for (guint i = 0; i < n; i++)
    {
      const KmJoint *j = km_skeleton_get_joint (skeleton, i);
      int *link = &link_ids[3 * (gsize) i];

      link[0] = link[1] = link[2] = -1;
      if (j->joint_id >= 0 && j->joint_id <= KM_SKELETON_MAX_JOINTS
          && !g_hash_table_contains (ids.used, GINT_TO_POINTER (j->joint_id + 1)))
        {
          link[0] = j->joint_id;
          ids.next = MAX (ids.next, j->joint_id + 1);
          g_hash_table_add (ids.used, GINT_TO_POINTER (j->joint_id + 1));
        }
    }
  for (guint i = 0; i < n; i++)
    {
      const KmJoint *j = km_skeleton_get_joint (skeleton, i);
      int *link = &link_ids[3 * (gsize) i];

      if (j->type != KM_JOINT_REVOLUTE && j->type != KM_JOINT_PRISMATIC
          && j->type != KM_JOINT_SPHERICAL)
        continue;
      if (link[0] < 0)
        link[0] = new_joint_id (&ids);
      if (j->type == KM_JOINT_SPHERICAL)
        {
          link[1] = new_joint_id (&ids);
          link[2] = new_joint_id (&ids);
        }
    }
  g_hash_table_unref (ids.used);
  return link_ids;
}

/* km_body_link_joint_ids(), and a note for the ids that were renumbered. */
static int *
link_joint_ids (const KmSkeleton *skeleton,
                GPtrArray        *notes)
{
  guint n = km_skeleton_get_n_joints (skeleton);
  int *link_ids = km_body_link_joint_ids (skeleton);
  const KmJoint *duplicate = NULL, *too_large = NULL;
  guint n_duplicates = 0, n_too_large = 0;

  for (guint i = 0; i < n; i++)
    {
      const KmJoint *j = km_skeleton_get_joint (skeleton, i);

      if (j->joint_id > KM_SKELETON_MAX_JOINTS)
        {
          if (n_too_large++ == 0)
            too_large = j;
        }
      else if (j->joint_id >= 0 && link_ids[3 * (gsize) i] != j->joint_id
               && n_duplicates++ == 0)
        duplicate = j;
    }
  if (duplicate != NULL)
    {
      guint other = 0;

      while (km_skeleton_get_joint (skeleton, other)->joint_id != duplicate->joint_id)
        other++;
      km_format_note (notes, g_dngettext (GETTEXT_PACKAGE,
                                          "%u joint has the joint id of an earlier one: it is "
                                          "written with a new id, or none when it has no DOF "
                                          "(“%s” has %d, like “%s”)",
                                          "%u joints have the joint id of an earlier one: they "
                                          "are written with new ids, or none when they have no "
                                          "DOF (“%s” has %d, like “%s”, …)", n_duplicates),
                      n_duplicates, duplicate->name, duplicate->joint_id,
                      km_skeleton_get_joint (skeleton, other)->name);
    }
  if (too_large != NULL)
    km_format_note (notes, g_dngettext (GETTEXT_PACKAGE,
                                        "%u joint id is larger than %d: it is written as a new "
                                        "id, or none when its joint has no DOF (“%s” has %d)",
                                        "%u joint ids are larger than %d: they are written as "
                                        "new ids, or none when their joints have no DOF (“%s” "
                                        "has %d, …)", n_too_large),
                    n_too_large, KM_SKELETON_MAX_JOINTS, too_large->name, too_large->joint_id);
  return link_ids;
}

/* The package of the package:// name @uri, for messages. */
static char *
package_name (const char *uri)
{
  const char *rest = uri + strlen ("package://");

  return g_strndup (rest, strcspn (rest, "/"));
}

/* Whether the links of @skeleton, named after the links their joints move (with a
 * spherical joint's first two links), have names no other link has, as a .body file's
 * must. */
static gboolean
body_link_names_unique (const KmSkeleton *skeleton)
{
  g_autoptr(GHashTable) names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (guint i = 0; i < km_skeleton_get_n_joints (skeleton); i++)
    {
      const KmJoint *j = km_skeleton_get_joint (skeleton, i);

      if (j->type == KM_JOINT_SPHERICAL)
        {
          char *name_x = NULL, *name_y = NULL;
          gboolean new_x, new_y;

          spherical_link_names (skeleton, j, &name_x, &name_y);
          new_x = g_hash_table_add (names, name_x);
          new_y = g_hash_table_add (names, name_y);
          if (!new_x || !new_y)
            return FALSE;
        }
      if (!g_hash_table_add (names, g_strdup (km_joint_get_link_name (j))))
        return FALSE;
    }
  return TRUE;
}

/* The name of the link of @joint: its link name, or with @by_joint its joint's. */
static const char *
body_link_name (const KmJoint *joint,
                gboolean       by_joint)
{
  return by_joint ? joint->name : km_joint_get_link_name (joint);
}


/* Notes what of @j's angles (its limits, its value in @q, nullable: j->n_dof of them, and
 * its velocity limit) is too large to write in degrees: a range end is written unlimited,
 * a value or a velocity limit is left out. */
static void
note_beyond_degrees (GPtrArray      *notes,
                     const KmJoint  *j,
                     const double   *q)
{
  const double degrees = KM_FORMAT_RADIANS_PER_DEGREE;
  gboolean range = FALSE, value = FALSE;

  for (guint d = 0; d < j->n_dof; d++)
    {
      const KmLimit *limit = &j->limits[d];

      range |= limit->limited && ((isfinite (limit->min) && !fits_unit (limit->min, degrees))
                                  || (isfinite (limit->max) && !fits_unit (limit->max, degrees)));
      value |= q != NULL && isfinite (q[d]) && !fits_unit (q[d], degrees);
    }
  if (range)
    km_format_note (notes, _("joint “%s”: a range end too large to write in degrees is "
                             "written unlimited"), j->name);
  if (value)
    km_format_note (notes, _("joint “%s”: an initial value too large to write in degrees "
                             "is left out"), j->name);
  if (isfinite (j->max_velocity) && !fits_unit (j->max_velocity, degrees))
    km_format_note (notes, _("joint “%s”: a velocity limit too large to write in degrees "
                             "is left out"), j->name);
}
/* The link(s) of joint @i of @skeleton: a spherical joint's first two are appended to
 * @links, the last (the joint's, with its shapes as elements) is returned. @link_ids: as
 * link_joint_ids gives them; @by_joint: links named after their joints (see
 * body_link_names_unique); @initial_q, @path, @pathed: as for body_to_string. */
static KmYamlNode *
joint_link (const KmSkeleton *skeleton,
            guint             i,
            gboolean          by_joint,
            KmYamlNode       *links,
            const int        *link_ids,
            const double     *initial_q,
            const char       *path,
            GPtrArray        *notes,
            GPtrArray        *pathed)
{
  const KmJoint *j = km_skeleton_get_joint (skeleton, i);
  const char *parent = j->parent >= 0
                       ? body_link_name (km_skeleton_get_joint (skeleton, (guint) j->parent),
                                         by_joint)
                       : NULL;
  const char *name = body_link_name (j, by_joint);
  const KmQuat *rotation = j->has_rotation ? &j->rotation : NULL;
  double degrees = KM_FORMAT_RADIANS_PER_DEGREE;
  const double *q = initial_q != NULL && j->n_dof > 0 ? &initial_q[j->dof_index] : NULL;
  KmYamlNode *link;
  guint n_shapes = 0;
  KmShape * const *shapes = km_skeleton_get_shapes (skeleton, i, &n_shapes);

  switch (j->type)
    {
    case KM_JOINT_REVOLUTE:
    case KM_JOINT_PRISMATIC:
      if (j->type == KM_JOINT_REVOLUTE)
        note_beyond_degrees (notes, j, q);
      link = link_node (name, j->name, parent,
                        j->type == KM_JOINT_REVOLUTE ? "revolute" : "prismatic",
                        &j->offset, rotation, &j->axis, &j->limits[0], q,
                        j->type == KM_JOINT_REVOLUTE ? degrees : 1.0,
                        link_ids[3 * (gsize) i], j);
      append_mimic (link, skeleton, j);
      break;
    case KM_JOINT_SPHERICAL:
      {
        g_autofree char *name_x = NULL;
        g_autofree char *name_y = NULL;
        KmVec3 ax = km_vec3 (1, 0, 0), ay = km_vec3 (0, 1, 0), az = km_vec3 (0, 0, 1);

        spherical_link_names (skeleton, j, &name_x, &name_y);
        note_beyond_degrees (notes, j, q);
        km_format_note (notes, _("spherical joint “%s” has no .body equivalent: written as "
                                 "three revolute links %s, %s and %s about X, Y and Z"),
                        j->name, name_x, name_y, j->name);
        /* The euler XYZ angles, one to each link (km_body_map_dofs). */
        km_yaml_sequence_append (links, link_node (name_x, NULL, parent, "revolute", &j->offset,
                                                   rotation, &ax, &j->limits[0], q,
                                                   degrees, link_ids[3 * (gsize) i], j));
        km_yaml_sequence_append (links, link_node (name_y, NULL, name_x, "revolute", NULL, NULL,
                                                   &ay, &j->limits[1],
                                                   q != NULL ? q + 1 : NULL, degrees,
                                                   link_ids[3 * (gsize) i + 1], j));
        link = link_node (name, j->name, name_y, "revolute", NULL, NULL, &az, &j->limits[2],
                          q != NULL ? q + 2 : NULL, degrees,
                          link_ids[3 * (gsize) i + 2], j);
      }
      break;
    case KM_JOINT_FREE:
      link = link_node (name, j->name, parent, "free", &j->offset, rotation, NULL, NULL, NULL, 1,
                        link_ids[3 * (gsize) i], NULL);
      break;
    case KM_JOINT_FIXED:
    default:
      link = link_node (name, j->name, parent, "fixed", &j->offset, rotation, NULL, NULL, NULL,
                        1, link_ids[3 * (gsize) i], NULL);
      break;
    }
  if (n_shapes > 0)
    {
      KmYamlNode *elements = km_yaml_node_new_sequence (KM_YAML_STYLE_BLOCK);

      for (guint s = 0; s < n_shapes; s++)
        {
          KmYamlNode *element = shape_node (shapes, n_shapes, s, path, j->name, notes,
                                            pathed);

          if (element != NULL)
            km_yaml_sequence_append (elements, element);
        }
      km_yaml_mapping_append (link, "elements", elements);
    }
  return link;
}

/* @path: the file the text is written into, where relative Resource uris must lead from
 * (km_shape_dup_uri_for, resource_uri); NULL: as the model wrote them. @initial_q
 * (nullable): the pose the model states, one value per DOF. */
static char *
body_to_string (const KmSkeleton *skeleton,
                const double     *initial_q,
                const char       *path,
                GPtrArray        *notes)
{
  g_autoptr(KmYamlNode) root = NULL;
  /* package:// names written as paths (resource_uri), borrowed from the shapes */
  g_autoptr(GPtrArray) pathed = g_ptr_array_new ();
  KmYamlNode *links;
  const char * const *handlers;
  const char *root_name;
  g_autofree int *link_ids = NULL;
  g_autofree guint *order = NULL;
  const KmJoint *own_link = NULL;
  guint n_own_links = 0;
  gboolean by_joint;
  guint n;

  g_return_val_if_fail (skeleton != NULL, NULL);

  n = km_skeleton_get_n_joints (skeleton);
  by_joint = !body_link_names_unique (skeleton);
  root_name = km_skeleton_get_joint (skeleton, 0)->name;
  root = km_yaml_node_new_mapping (KM_YAML_STYLE_BLOCK);
  km_yaml_mapping_append (root, "format", km_yaml_node_new_string ("ChoreonoidBody"));
  km_yaml_mapping_append (root, "format_version", km_yaml_node_new_scalar ("2.0",
                                                                           KM_YAML_STYLE_PLAIN));
  km_yaml_mapping_append (root, "angle_unit", km_yaml_node_new_string ("degree"));
  km_yaml_mapping_append (root, "name", km_yaml_node_new_string (
                            km_skeleton_get_model_name (skeleton) != NULL ?
                            km_skeleton_get_model_name (skeleton) : root_name));
  km_yaml_mapping_append (root, "root_link", km_yaml_node_new_string (
                            body_link_name (km_skeleton_get_joint (skeleton, 0), by_joint)));
  handlers = km_skeleton_get_body_handlers (skeleton);
  if (handlers != NULL && handlers[0] != NULL)
    {
      KmYamlNode *list = km_yaml_node_new_sequence (KM_YAML_STYLE_FLOW);

      for (guint h = 0; handlers[h] != NULL; h++)
        km_yaml_sequence_append (list, km_yaml_node_new_string (handlers[h]));
      km_yaml_mapping_append (root, "body_handlers", list);
    }

  link_ids = link_joint_ids (skeleton, notes);
  links = km_yaml_node_new_sequence (KM_YAML_STYLE_BLOCK);
  /* Parents first, with the default effector last among the leaves, as the file that was
   * read had it (km_skeleton_dup_write_order()). */
  order = km_skeleton_dup_write_order (skeleton);
  for (guint k = 0; k < n; k++)
    {
      guint i = order[k];
      const KmJoint *j = km_skeleton_get_joint (skeleton, i);

      if (by_joint && j->link_name != NULL && n_own_links++ == 0)
        own_link = j;
      km_yaml_sequence_append (links, joint_link (skeleton, i, by_joint, links, link_ids,
                                                  initial_q, path, notes, pathed));
    }
  km_yaml_mapping_append (root, "links", links);
  if (n_own_links == 1)
    km_format_note (notes, _("a .body link is named after its joint: the link “%s” of joint "
                             "“%s” is written as “%s”"),
                    own_link->link_name, own_link->name, own_link->name);
  else if (n_own_links > 1)
    km_format_note (notes, g_dngettext (GETTEXT_PACKAGE,
                                        "a .body link is named after its joint: %u link name is "
                                        "left out (the link “%s” of joint “%s” is written as "
                                        "“%s”, …)",
                                        "a .body link is named after its joint: %u link names "
                                        "are left out (the link “%s” of joint “%s” is written "
                                        "as “%s”, …)", n_own_links),
                    n_own_links, own_link->link_name, own_link->name, own_link->name);
  if (pathed->len == 1)
    {
      g_autofree char *package = package_name (pathed->pdata[0]);

      km_format_note (notes, _("package:// mesh “%s” is written as a path: the saved file lies "
                               "outside package “%s”"), (char *) pathed->pdata[0], package);
    }
  else if (pathed->len > 1)
    km_format_note (notes, g_dngettext (GETTEXT_PACKAGE,
                                        "%u package:// mesh is written as a path: the saved "
                                        "file lies outside its package (“%s”, …)",
                                        "%u package:// meshes are written as paths: the saved "
                                        "file lies outside their packages (“%s”, …)",
                                        pathed->len),
                    pathed->len, (char *) pathed->pdata[0]);
  return km_yaml_emit_to_string (root, NULL);
}

/**
 * km_body_to_string:
 * @notes: (nullable) (element-type utf8): receives a translated line for each thing the
 *   format cannot carry (the array needs g_free as its free function)
 *
 * Resource uris are written as the model wrote them.
 *
 * Returns: (transfer full): the .body text
 */
char *
km_body_to_string (const KmSkeleton *skeleton,
                   GPtrArray        *notes)
{
  g_return_val_if_fail (skeleton != NULL, NULL);

  return body_to_string (skeleton, NULL, NULL, notes);
}

/**
 * km_body_to_string_with_pose:
 * @initial_q: (nullable) (array): the pose the model states (KmModelExtras.initial_q),
 *   one value per DOF of @skeleton; %NULL: none, the zero pose
 * @notes: (nullable) (element-type utf8): as for km_body_to_string()
 *
 * km_body_to_string(), with each joint's value in @initial_q written as its
 * `joint_displacement` (where it is not 0), which km_body_load_with_pose() reads back.
 *
 * Returns: (transfer full): the .body text
 */
char *
km_body_to_string_with_pose (const KmSkeleton *skeleton,
                             const double     *initial_q,
                             GPtrArray        *notes)
{
  g_return_val_if_fail (skeleton != NULL, NULL);

  return body_to_string (skeleton, initial_q, NULL, notes);
}

/**
 * km_body_save:
 * @notes: (nullable) (element-type utf8): as for km_body_to_string()
 *
 * Writes atomically: a failed save leaves an existing file as it was. A Resource uri
 * relative to the model's folder (KmShape.uri_dir) is written relative to @path's folder,
 * so that it names the same file from there; into the model's own folder, as written. A
 * package:// name that was found is written as a path to its file, when it would not
 * lead there from @path without package paths (one note).
 */
/**
 * km_body_to_string_for_path:
 * @initial_q: (nullable) (array): as for km_body_to_string_with_pose()
 * @path: where the text is to go: relative mesh references lead from its folder
 * @notes: (nullable) (element-type utf8): as for km_body_to_string()
 *
 * Returns: (transfer full): the text km_body_save_with_pose() writes to @path
 */
char *
km_body_to_string_for_path (const KmSkeleton *skeleton,
                            const double     *initial_q,
                            const char       *path,
                            GPtrArray        *notes)
{
  g_return_val_if_fail (skeleton != NULL, NULL);
  g_return_val_if_fail (path != NULL, NULL);

  return body_to_string (skeleton, initial_q, path, notes);
}

gboolean
km_body_save (const KmSkeleton  *skeleton,
              const char        *path,
              GPtrArray         *notes,
              GError           **error)
{
  return km_body_save_with_pose (skeleton, NULL, path, notes, error);
}

/**
 * km_body_save_with_pose:
 * @initial_q: (nullable) (array): as for km_body_to_string_with_pose()
 * @notes: (nullable) (element-type utf8): as for km_body_to_string()
 *
 * km_body_save(), with the pose the model states (km_body_to_string_with_pose()).
 */
gboolean
km_body_save_with_pose (const KmSkeleton  *skeleton,
                        const double      *initial_q,
                        const char        *path,
                        GPtrArray         *notes,
                        GError           **error)
{
  g_autofree char *text = NULL;

  g_return_val_if_fail (skeleton != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  text = body_to_string (skeleton, initial_q, path, notes);
  return km_format_save_text (path, text, error);
}

/* ---- Writing over the model file ----------------------------------------------------
 *
 * km_body_save_over() writes the original .body document again (km-yaml's tree keeps key
 * order, styles, tags and the keys Kinema does not read), changed only where the edited
 * skeleton differs from the skeleton the original reads as:
 * - a link is matched to a joint by name, else (a renamed one) by its joint id, or, for a
 *   link without one, by the one unmatched link of the same type, parent and number of
 *   shapes; the root must stay the root (a link is found by its `name`, the link name of
 *   its joint, which differs from the joint's where the link has a `joint_name`);
 * - of a matched link, only the keys Kinema owns are written, and only where the value
 *   Kinema would write for the edited joint differs from the one it would write for the
 *   original's (so a `joint_axis: Y` stays as it is): translation, rotation, joint_type,
 *   joint_axis, joint_range, joint_displacement, max_joint_velocity, max_joint_effort,
 *   kinema_mimic, under the spelling the link uses (jointRange, …); name, joint_name and
 *   parent where they changed;
 *   mass, inertia, elements (shapes, sensors, devices) and every other key stay;
 * - a link whose joint was deleted is left out; new joints are written as
 *   km_body_to_string() writes them, in its order, at the end of the links or, where the
 *   default end effector is a link of the file, right before it (so that the file reads
 *   back with the same one, which the check below also compares); a renamed link is
 *   renamed in root_link and in the other top-level keys that name it, as a value or as a
 *   mapping key (link_group, foot_links, default_ik_setup, …);
 * - a relative or package:// uri that would not lead to the same file from the new place
 *   is rewritten (km_keep_moved_uri);
 * - the text is the original's, patched where the edited tree differs (patch_node below):
 *   a changed scalar or flow collection is replaced in its span (km_yaml_node_get_span),
 *   a removed key or link is cut out with its lines, an added key or link is inserted
 *   after the last one at their indentation; so comments, anchors, aliases and the
 *   formatting of what did not change stay byte for byte, as km_urdf_save_over() keeps
 *   a URDF. The patched text must parse to the edited tree (and read as the skeleton);
 *   where it cannot be patched so (a change inside an anchored node or under an alias,
 *   in a literal scalar, a block collection that became something else, …), the edited
 *   tree is written as a whole, and what the YAML tree does not keep (comments, anchors:
 *   an alias is written as a copy) is lost, with a note when the original had any.
 * Where that cannot be done safely (the original is gone or no longer reads, has
 * sub-bodies, merge keys in links or angles in radians, the skeleton has a spherical
 * joint, or the result does not read back as the skeleton would), the skeleton is written
 * alone as km_body_save_with_pose() does, with a note that names what is lost.
 */

static void
ignore_warning (const char *message,
                gpointer    user_data)
{
}

/* What Kinema writes for the keys it owns of joint @i of @skeleton (with the pose
 * @initial_q, nullable), as a mapping to compare. */
static KmYamlNode *
owned_node (const KmSkeleton *skeleton,
            guint             i,
            const double     *initial_q)
{
  const KmJoint *j = km_skeleton_get_joint (skeleton, i);
  const KmQuat *rotation = j->has_rotation ? &j->rotation : NULL;
  const double *q = initial_q != NULL && j->n_dof > 0 ? &initial_q[j->dof_index] : NULL;

  switch (j->type)
    {
    case KM_JOINT_REVOLUTE:
    case KM_JOINT_PRISMATIC:
      {
        KmYamlNode *link = link_node ("", NULL, NULL,
                                      j->type == KM_JOINT_REVOLUTE ? "revolute" : "prismatic",
                                      &j->offset, rotation, &j->axis, &j->limits[0], q,
                                      j->type == KM_JOINT_REVOLUTE ? KM_FORMAT_RADIANS_PER_DEGREE
                                                                   : 1.0, -1, j);

        append_mimic (link, skeleton, j);
        return link;
      }
    case KM_JOINT_FREE:
      return link_node ("", NULL, NULL, "free", &j->offset, rotation, NULL, NULL, NULL, 1, -1, NULL);
    case KM_JOINT_FIXED:
    case KM_JOINT_SPHERICAL:
    default:
      return link_node ("", NULL, NULL, "fixed", &j->offset, rotation, NULL, NULL, NULL, 1, -1, NULL);
    }
}

/* The keys Kinema owns: the spelling it writes first, then the others a reader takes. */
static const char * const owned_keys[][5] = {
  { "translation", NULL },
  { "rotation", NULL },
  { "joint_type", "jointType", NULL },
  { "joint_axis", "jointAxis", NULL },
  { "joint_range", "jointRange", NULL },
  { "joint_displacement", "jointDisplacement", "joint_angle", "jointAngle", NULL },
  { "max_joint_velocity", "maxJointVelocity", NULL },
  { "max_joint_effort", "maxJointEffort", NULL },
  { "kinema_mimic", NULL },
};

/* Writes @after (nullable: none) as the value of the key @keys names in @link, where it
 * differs from @before: under the spelling @link uses, the others removed. */
static void
update_key (KmYamlNode         *link,
            const char * const *keys,
            KmYamlNode         *before,
            KmYamlNode         *after)
{
  const char *used = keys[0];

  if (before == NULL && after == NULL)
    return;
  if (before != NULL && after != NULL && km_yaml_node_equal (before, after))
    return;
  for (guint k = 0; keys[k] != NULL; k++)
    if (km_yaml_mapping_lookup (link, keys[k]) != NULL)
      {
        used = keys[k];
        break;
      }
  for (guint k = 0; keys[k] != NULL; k++)
    if (after == NULL || keys[k] != used)
      km_yaml_mapping_remove (link, keys[k]);
  if (after != NULL)
    km_yaml_mapping_set (link, used, km_yaml_node_copy (after));
}

/* Rewrites the uris of Resources (and any `uri` or `url` key) under @node for the file
 * @path (km_keep_moved_uri). */
static void
move_uris (KmYamlNode *node,
           const char *original,
           const char *path)
{
  for (guint i = 0; i < km_yaml_node_get_length (node); i++)
    {
      KmYamlNode *value;

      if (km_yaml_node_get_kind (node) == KM_YAML_SEQUENCE)
        {
          move_uris (km_yaml_sequence_get (node, i), original, path);
          continue;
        }
      value = km_yaml_mapping_get_value (node, i);
      if (km_yaml_node_get_kind (value) == KM_YAML_SCALAR)
        {
          const char *key = km_yaml_node_get_scalar (km_yaml_mapping_get_key (node, i), NULL);
          g_autofree char *moved = NULL;

          if ((g_strcmp0 (key, "uri") == 0 || g_strcmp0 (key, "url") == 0)
              && (moved = km_keep_moved_uri (km_yaml_node_get_scalar (value, NULL), original,
                                             path)) != NULL)
            km_yaml_mapping_set (node, key, km_yaml_node_new_string (moved));
        }
      else
        move_uris (value, original, path);
    }
}

/* @node with every scalar that is an old name in @renames (old → new) renamed, a mapping
 * key as well as a value (default_ik_setup is keyed by link name): a new node, or NULL
 * when none is there. The values of a mapping whose keys stay are changed in place. */
static KmYamlNode *
renamed_node (KmYamlNode *node,
              GHashTable *renames)
{
  KmYamlNode *copy = NULL;

  switch (km_yaml_node_get_kind (node))
    {
    case KM_YAML_SCALAR:
      {
        const char *to = g_hash_table_lookup (renames, km_yaml_node_get_scalar (node, NULL));

        return to != NULL ? km_yaml_node_new_scalar (to, km_yaml_node_get_style (node)) : NULL;
      }
    case KM_YAML_MAPPING:
      for (guint i = 0; i < km_yaml_node_get_length (node) && copy == NULL; i++)
        {
          const char *key = km_yaml_node_get_scalar (km_yaml_mapping_get_key (node, i), NULL);

          if (key != NULL && g_hash_table_contains (renames, key))
            copy = km_yaml_node_new_mapping (km_yaml_node_get_style (node));
        }
      for (guint i = 0; i < km_yaml_node_get_length (node); i++)
        {
          KmYamlNode *key = km_yaml_mapping_get_key (node, i);
          KmYamlNode *value = renamed_node (km_yaml_mapping_get_value (node, i), renames);
          const char *name = km_yaml_node_get_scalar (key, NULL);

          if (copy != NULL)
            {
              KmYamlNode *new_key = renamed_node (key, renames);

              km_yaml_mapping_append_node (copy, new_key != NULL ? new_key
                                                                 : km_yaml_node_ref (key),
                                           value != NULL ? value : km_yaml_node_ref (
                                             km_yaml_mapping_get_value (node, i)));
            }
          else if (value != NULL && name != NULL)
            km_yaml_mapping_set (node, name, value);
          else if (value != NULL)
            km_yaml_node_unref (value);
        }
      return copy;
    case KM_YAML_SEQUENCE:
    default:
      for (guint i = 0; i < km_yaml_node_get_length (node); i++)
        {
          KmYamlNode *item = km_yaml_sequence_get (node, i);
          KmYamlNode *value = renamed_node (item, renames);

          if (value != NULL && copy == NULL)
            {
              copy = km_yaml_node_new_sequence (km_yaml_node_get_style (node));
              for (guint k = 0; k < i; k++)
                km_yaml_sequence_append (copy, km_yaml_node_ref (km_yaml_sequence_get (node, k)));
            }
          if (copy != NULL)
            km_yaml_sequence_append (copy, value != NULL ? value : km_yaml_node_ref (item));
        }
      return copy;
    }
}

/* For each joint of @skeleton, the joint of @original it is (see above), or -1: new. */
static int *
match_joints (const KmSkeleton *skeleton,
              const KmSkeleton *original)
{
  guint n = km_skeleton_get_n_joints (skeleton), n_original = km_skeleton_get_n_joints (original);
  int *match = g_new (int, n);
  g_autofree gboolean *taken = g_new0 (gboolean, n_original);

  for (guint i = 0; i < n; i++)
    {
      match[i] = km_skeleton_find_joint (original, km_skeleton_get_joint (skeleton, i)->name);
      if (match[i] >= 0)
        taken[match[i]] = TRUE;
    }
  /* Renamed ones, in preorder: a parent is matched before its children. */
  for (guint i = 0; i < n; i++)
    {
      const KmJoint *e = km_skeleton_get_joint (skeleton, i);
      guint n_shapes = 0;
      int found = -1, n_found = 0;

      if (match[i] >= 0)
        continue;
      km_skeleton_get_shapes (skeleton, i, &n_shapes);
      for (guint o = 0; o < n_original; o++)
        {
          const KmJoint *j = km_skeleton_get_joint (original, o);
          guint n_original_shapes = 0;
          gboolean same;

          if (taken[o])
            continue;
          km_skeleton_get_shapes (original, o, &n_original_shapes);
          if (e->joint_id >= 0 || j->joint_id >= 0)
            same = e->joint_id == j->joint_id;
          else
            same = e->type == j->type && n_shapes > 0 && n_shapes == n_original_shapes
                   && (e->parent < 0 ? j->parent < 0 : match[e->parent] == j->parent);
          if (same)
            {
              found = (int) o;
              n_found++;
            }
        }
      if (n_found == 1)
        {
          match[i] = found;
          taken[found] = TRUE;
        }
    }
  return match;
}

/* ---- Patching the original text ----
 *
 * patch_node() walks the original tree and the edited one together and records, as
 * splices of the original text, what turns the one into the other. Nodes the original
 * reaches more than once (an anchored node and its aliases, everything under them) are
 * never patched: their text is one for all the places. */

typedef struct
{
  const char       *text;
  gsize             length;
  GHashTable       *places;     /* original node → times the tree reaches it */
  const KmYamlNode *links;      /* the original's list of links */
  const KmYamlNode *kept;       /* the edited list */
  const int        *kept_from;  /* for each item of @kept: its link in @links, or -1 */
  KmKeepSplices    *splices;
} Patch;

static void
count_places (GHashTable       *places,
              const KmYamlNode *node)
{
  guint n = GPOINTER_TO_UINT (g_hash_table_lookup (places, node));

  g_hash_table_insert (places, (gpointer) node, GUINT_TO_POINTER (n + 1));
  if (n > 0)
    return;   /* under an alias: counted once is enough, shared is inherited */
  for (guint i = 0; i < km_yaml_node_get_length (node); i++)
    {
      if (km_yaml_node_get_kind (node) == KM_YAML_MAPPING)
        {
          count_places (places, km_yaml_mapping_get_key (node, i));
          count_places (places, km_yaml_mapping_get_value (node, i));
        }
      else
        count_places (places, km_yaml_sequence_get (node, i));
    }
}

static gboolean
is_shared (const Patch      *p,
           const KmYamlNode *node)
{
  return GPOINTER_TO_UINT (g_hash_table_lookup (p->places, node)) > 1;
}

/* Whether @node or a node under it is shared (see above). */
static gboolean
holds_shared (const Patch      *p,
              const KmYamlNode *node)
{
  if (is_shared (p, node))
    return TRUE;
  for (guint i = 0; i < km_yaml_node_get_length (node); i++)
    if (km_yaml_node_get_kind (node) == KM_YAML_MAPPING
        ? holds_shared (p, km_yaml_mapping_get_key (node, i))
          || holds_shared (p, km_yaml_mapping_get_value (node, i))
        : holds_shared (p, km_yaml_sequence_get (node, i)))
      return TRUE;
  return FALSE;
}

static gboolean
is_block (const KmYamlNode *node)
{
  return km_yaml_node_get_kind (node) != KM_YAML_SCALAR
         && km_yaml_node_get_style (node) != KM_YAML_STYLE_FLOW
         && km_yaml_node_get_length (node) > 0;
}

/* One past the alias ("*name") that follows @after after indicators and blanks, or
 * G_MAXSIZE. */
static gsize
alias_end (const Patch *p,
           gsize        after)
{
  gsize i = after;

  while (i < p->length && strchr (" \t\r\n-:?", p->text[i]) != NULL)
    i++;
  if (i >= p->length || p->text[i] != '*')
    return G_MAXSIZE;
  while (i < p->length && !g_ascii_isspace (p->text[i]) && strchr (",]}", p->text[i]) == NULL)
    i++;
  return i;
}

/* One past the last character of @node's own text (a block collection's span runs on to
 * the next token), read after @after; G_MAXSIZE when it cannot be told. A node that does
 * not lie after @after is an alias, whose span is its anchor's. */
static gsize
content_end (const Patch      *p,
             const KmYamlNode *node,
             gsize             after)
{
  gsize start, end;
  guint n = km_yaml_node_get_length (node);

  if (!km_yaml_node_get_span (node, &start, &end))
    return G_MAXSIZE;
  if (start < after)
    return alias_end (p, after);
  if (!is_block (node))
    return end;
  if (km_yaml_node_get_kind (node) == KM_YAML_MAPPING)
    {
      gsize key_end = content_end (p, km_yaml_mapping_get_key (node, n - 1), start);

      return key_end != G_MAXSIZE
             ? content_end (p, km_yaml_mapping_get_value (node, n - 1), key_end) : G_MAXSIZE;
    }
  if (n > 1)
    {
      gsize before_end = content_end (p, km_yaml_sequence_get (node, n - 2), start);

      if (before_end == G_MAXSIZE)
        return G_MAXSIZE;
      start = before_end;
    }
  return content_end (p, km_yaml_sequence_get (node, n - 1), start);
}

/* The start of the line after the one @offset is on (the length at the end). */
static gsize
next_line (const Patch *p,
           gsize        offset)
{
  const char *nl = offset < p->length ? memchr (p->text + offset, '\n', p->length - offset)
                                      : NULL;

  return nl != NULL ? (gsize) (nl - p->text) + 1 : p->length;
}

/* The start of the line of @offset, when only spaces (and, with @dash, the "- " of
 * sequence items) lie before it on its line; else G_MAXSIZE. */
static gsize
line_start (const Patch *p,
            gsize        offset,
            gboolean     dash)
{
  gsize s = offset;

  while (s > 0 && p->text[s - 1] != '\n')
    {
      if (p->text[s - 1] != ' ' && !(dash && p->text[s - 1] == '-'))
        return G_MAXSIZE;
      s--;
    }
  return s;
}

/* The "-" of the block sequence item @item (it must have a span), or G_MAXSIZE. */
static gsize
item_dash (const Patch      *p,
           const KmYamlNode *item)
{
  gsize s;

  km_yaml_node_get_span (item, &s, NULL);
  while (s > 0 && (p->text[s - 1] == ' ' || p->text[s - 1] == '\n' || p->text[s - 1] == '\r'))
    s--;
  return s > 0 && p->text[s - 1] == '-' ? s - 1 : G_MAXSIZE;
}

/* @node written on one line, for the place of @was: a string (Kinema writes new ones
 * double-quoted) takes the style @was had, plain where it reads back so. NULL where it
 * cannot be (a block collection). */
static char *
inline_text (const KmYamlNode *node,
             const KmYamlNode *was)
{
  g_autoptr(KmYamlNode) quoted = NULL;
  g_autofree char *text = NULL;
  gsize length;

  if (is_block (node))
    return NULL;
  if (km_yaml_node_get_kind (node) == KM_YAML_SCALAR
      && (km_yaml_node_get_style (node) == KM_YAML_STYLE_ANY
          || km_yaml_node_get_style (node) == KM_YAML_STYLE_DOUBLE_QUOTED)
      && km_yaml_node_get_kind (was) == KM_YAML_SCALAR
      && (km_yaml_node_get_style (was) == KM_YAML_STYLE_PLAIN
          || km_yaml_node_get_style (was) == KM_YAML_STYLE_SINGLE_QUOTED))
    {
      quoted = km_yaml_node_copy (node);
      km_yaml_node_set_style (quoted, km_yaml_node_get_style (was));
      node = quoted;
    }
  text = km_yaml_emit_to_string (node, &length);
  if (length > 0 && text[length - 1] == '\n')
    text[--length] = '\0';
  if (strchr (text, '\n') != NULL)
    return NULL;
  return g_steal_pointer (&text);
}

/* @nodes (a block sequence or mapping) written as lines at the indentation @indent,
 * inserted at @at. */
static void
insert_block (Patch            *p,
              gsize             at,
              const KmYamlNode *nodes,
              gsize             indent)
{
  g_autofree char *text = km_yaml_emit_to_string (nodes, NULL);
  g_autofree char *pad = g_strnfill (indent, ' ');
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  GString *out = g_string_new (at > 0 && p->text[at - 1] != '\n' ? "\n" : NULL);

  for (guint l = 0; lines[l] != NULL; l++)
    if (lines[l][0] != '\0')
      g_string_append_printf (out, "%s%s\n", pad, lines[l]);
  km_keep_splice (p->splices, at, at, out->str);
  g_string_free (out, TRUE);
}

static gboolean patch_node (Patch *p, const KmYamlNode *before, const KmYamlNode *after);

/* A block mapping that lost keys or got new ones at its end. */
static gboolean
patch_block_mapping (Patch            *p,
                     const KmYamlNode *before,
                     const KmYamlNode *after)
{
  guint n_before = km_yaml_node_get_length (before), n_after = km_yaml_node_get_length (after);
  g_autofree int *found = g_new (int, MAX (n_after, 1));
  g_autoptr(KmYamlNode) added = NULL;
  gsize start, last_end, first, indent;
  int last = -1;

  km_yaml_node_get_span (before, &start, NULL);
  for (guint j = 0; j < n_after; j++)
    {
      const char *key = km_yaml_node_get_scalar (km_yaml_mapping_get_key (after, j), NULL);

      found[j] = -1;
      for (guint i = 0; key != NULL && i < n_before; i++)
        if (g_strcmp0 (km_yaml_node_get_scalar (km_yaml_mapping_get_key (before, i), NULL),
                       key) == 0)
          found[j] = (int) i;
      if (found[j] >= 0 && (found[j] <= last || added != NULL))
        return FALSE;   /* moved keys */
      if (found[j] >= 0)
        last = found[j];
      else
        {
          if (added == NULL)
            added = km_yaml_node_new_mapping (KM_YAML_STYLE_BLOCK);
          km_yaml_mapping_append_node (added,
                                       km_yaml_node_ref (km_yaml_mapping_get_key (after, j)),
                                       km_yaml_node_ref (km_yaml_mapping_get_value (after, j)));
        }
    }
  /* Where the lines of each pair begin: its key first on its line. */
  km_yaml_node_get_span (km_yaml_mapping_get_key (before, 0), &first, NULL);
  if (line_start (p, first, TRUE) == G_MAXSIZE)
    return FALSE;
  indent = first - line_start (p, first, TRUE);
  /* (needed where the last pair goes or pairs are added) */
  last_end = content_end (p, before, start);
  for (guint i = 0; i < n_before; i++)
    {
      gboolean kept = FALSE;
      gsize key_start, from, to;

      for (guint j = 0; j < n_after && !kept; j++)
        if (found[j] == (int) i)
          {
            kept = TRUE;
            if (!patch_node (p, km_yaml_mapping_get_value (before, i),
                             km_yaml_mapping_get_value (after, j)))
              return FALSE;
          }
      if (kept)
        continue;
      /* A removed pair: its lines, up to the next key's line or past its text. */
      km_yaml_node_get_span (km_yaml_mapping_get_key (before, i), &key_start, NULL);
      from = line_start (p, key_start, FALSE);
      if (from == G_MAXSIZE)
        return FALSE;   /* the first key of "- key: value" */
      if (i + 1 < n_before)
        {
          gsize next;

          km_yaml_node_get_span (km_yaml_mapping_get_key (before, i + 1), &next, NULL);
          to = line_start (p, next, FALSE);
          if (to == G_MAXSIZE)
            return FALSE;
        }
      else if (last_end != G_MAXSIZE)
        to = next_line (p, last_end);
      else
        return FALSE;
      km_keep_splice (p->splices, from, to, "");
    }
  if (added != NULL && last_end == G_MAXSIZE)
    return FALSE;
  if (added != NULL)
    insert_block (p, next_line (p, last_end), added, indent);
  return TRUE;
}

/* The list of links: links removed (their lines), kept (patched) and added, before the
 * kept link that follows them in @p->kept or at the end of the list. */
static gboolean
patch_links (Patch *p)
{
  guint n_before = km_yaml_node_get_length (p->links), n_after = km_yaml_node_get_length (p->kept);
  g_autoptr(KmYamlNode) added = km_yaml_node_new_sequence (KM_YAML_STYLE_BLOCK);
  g_autofree int *edited_of = g_new (int, MAX (n_before, 1));
  gsize start, last_end, first_dash, indent;

  if (!is_block (p->links) || is_shared (p, p->links))
    return FALSE;
  km_yaml_node_get_span (p->links, &start, NULL);
  last_end = content_end (p, p->links, start);
  first_dash = item_dash (p, km_yaml_sequence_get (p->links, 0));
  if (first_dash == G_MAXSIZE
      || line_start (p, first_dash, FALSE) == G_MAXSIZE)
    return FALSE;
  indent = first_dash - line_start (p, first_dash, FALSE);
  for (guint i = 0; i < n_before; i++)
    edited_of[i] = -1;
  for (guint j = 0; j < n_after; j++)
    if (p->kept_from[j] >= 0)
      edited_of[p->kept_from[j]] = (int) j;
  for (guint i = 0; i < n_before; i++)
    {
      const KmYamlNode *item = km_yaml_sequence_get (p->links, i);
      gsize from, to;

      if (edited_of[i] >= 0)
        {
          if (!patch_node (p, item, km_yaml_sequence_get (p->kept, (guint) edited_of[i])))
            return FALSE;
          continue;
        }
      from = item_dash (p, item);
      from = from != G_MAXSIZE ? line_start (p, from, FALSE) : G_MAXSIZE;
      if (i + 1 < n_before)
        {
          to = item_dash (p, km_yaml_sequence_get (p->links, i + 1));
          to = to != G_MAXSIZE ? line_start (p, to, FALSE) : G_MAXSIZE;
        }
      else
        to = last_end != G_MAXSIZE ? next_line (p, last_end) : G_MAXSIZE;
      if (from == G_MAXSIZE || to == G_MAXSIZE)
        return FALSE;
      km_keep_splice (p->splices, from, to, "");
    }
  /* Added links, after what the patches above insert at the end of the link before. */
  for (guint j = 0; j < n_after; j++)
    if (p->kept_from[j] < 0)
      km_yaml_sequence_append (added, km_yaml_node_ref (km_yaml_sequence_get (p->kept, j)));
    else if (km_yaml_node_get_length (added) > 0)
      {
        gsize dash = item_dash (p, km_yaml_sequence_get (p->links, (guint) p->kept_from[j]));
        gsize at = dash != G_MAXSIZE ? line_start (p, dash, FALSE) : G_MAXSIZE;
        g_autoptr(KmYamlNode) run = g_steal_pointer (&added);

        if (at == G_MAXSIZE)
          return FALSE;
        insert_block (p, at, run, indent);
        added = km_yaml_node_new_sequence (KM_YAML_STYLE_BLOCK);
      }
  if (km_yaml_node_get_length (added) > 0 && last_end == G_MAXSIZE)
    return FALSE;
  if (km_yaml_node_get_length (added) > 0)
    insert_block (p, next_line (p, last_end), added, indent);
  return TRUE;
}

/* Whether the keys of the mappings @before and @after (of one length) are at the same
 * places: the same, or renamed to one @before does not have. */
static gboolean
keys_in_place (const KmYamlNode *before,
               const KmYamlNode *after)
{
  for (guint i = 0; i < km_yaml_node_get_length (after); i++)
    {
      KmYamlNode *key = km_yaml_mapping_get_key (after, i);
      const char *name = km_yaml_node_get_scalar (key, NULL);

      if (!km_yaml_node_equal (km_yaml_mapping_get_key (before, i), key)
          && name != NULL && km_yaml_mapping_lookup (before, name) != NULL)
        return FALSE;
    }
  return TRUE;
}

/* Records the splices that make the text of @before (original) that of @after (edited);
 * FALSE where that cannot be done safely. */
static gboolean
patch_node (Patch            *p,
            const KmYamlNode *before,
            const KmYamlNode *after)
{
  KmYamlKind kind = km_yaml_node_get_kind (before);
  gsize start, end;
  guint n = km_yaml_node_get_length (before);
  g_autofree char *text = NULL;

  if (km_yaml_node_equal (before, after))
    return TRUE;
  if (is_shared (p, before) || !km_yaml_node_get_span (before, &start, &end))
    return FALSE;
  if (before == p->links && after == p->kept)
    return patch_links (p);
  if (kind == km_yaml_node_get_kind (after) && kind != KM_YAML_SCALAR
      && g_strcmp0 (km_yaml_node_get_tag (before), km_yaml_node_get_tag (after)) == 0
      && n == km_yaml_node_get_length (after)
      && (kind == KM_YAML_SEQUENCE || keys_in_place (before, after)))
    {
      for (guint i = 0; i < n; i++)
        if (kind == KM_YAML_MAPPING
            ? !patch_node (p, km_yaml_mapping_get_key (before, i),
                           km_yaml_mapping_get_key (after, i))
              || !patch_node (p, km_yaml_mapping_get_value (before, i),
                              km_yaml_mapping_get_value (after, i))
            : !patch_node (p, km_yaml_sequence_get (before, i), km_yaml_sequence_get (after, i)))
          return FALSE;
      return TRUE;
    }
  if (kind == KM_YAML_MAPPING && km_yaml_node_get_kind (after) == KM_YAML_MAPPING
      && is_block (before) && is_block (after)
      && g_strcmp0 (km_yaml_node_get_tag (before), km_yaml_node_get_tag (after)) == 0)
    return patch_block_mapping (p, before, after);
  /* Replaced as a whole: a scalar (not a literal or folded one, whose span runs on) or a
   * flow collection, by what is written on one line, anchoring nothing used elsewhere. */
  if (is_block (before) || holds_shared (p, before)
      || km_yaml_node_get_style (before) == KM_YAML_STYLE_LITERAL
      || km_yaml_node_get_style (before) == KM_YAML_STYLE_FOLDED
      || (text = inline_text (after, before)) == NULL)
    return FALSE;
  km_keep_splice (p->splices, start, end, text);
  return TRUE;
}

/* The original @text patched into @edited (see above), or NULL. */
static char *
patch_text (const char       *text,
            gsize             length,
            const KmYamlNode *document,
            const KmYamlNode *edited,
            const int        *kept_from)
{
  g_autoptr(GHashTable) places = g_hash_table_new (NULL, NULL);
  g_autoptr(KmKeepSplices) splices = km_keep_splices_new ();
  Patch p = { text, length, places, km_yaml_mapping_lookup (document, "links"),
              km_yaml_mapping_lookup (edited, "links"), kept_from, splices };

  count_places (places, document);
  if (!patch_node (&p, document, edited))
    return NULL;
  return km_keep_splices_apply (splices, text, length);
}

static void
collect_marks (const KmYamlNode *node,
               const char       *text,
               GHashTable       *seen,
               GArray           *scalars,
               gboolean         *anchors)
{
  gsize span[2];

  if (g_hash_table_contains (seen, node))
    {
      *anchors = TRUE;   /* an alias */
      return;
    }
  g_hash_table_add (seen, (gpointer) node);
  if (!km_yaml_node_get_span (node, &span[0], &span[1]))
    return;
  if (span[0] < span[1] && text[span[0]] == '&')
    *anchors = TRUE;
  if (km_yaml_node_get_kind (node) == KM_YAML_SCALAR)
    g_array_append_vals (scalars, span, 1);
  for (guint i = 0; i < km_yaml_node_get_length (node); i++)
    {
      if (km_yaml_node_get_kind (node) == KM_YAML_MAPPING)
        {
          collect_marks (km_yaml_mapping_get_key (node, i), text, seen, scalars, anchors);
          collect_marks (km_yaml_mapping_get_value (node, i), text, seen, scalars, anchors);
        }
      else
        collect_marks (km_yaml_sequence_get (node, i), text, seen, scalars, anchors);
    }
}

static int
compare_spans (gconstpointer a,
               gconstpointer b)
{
  gsize x = *(const gsize *) a, y = *(const gsize *) b;

  return x < y ? -1 : x > y;
}

/* Whether the text of @document has comments (a "#" after a blank, outside every scalar)
 * and anchors, which a rewrite of its tree loses. */
static void
find_marks (const KmYamlNode *document,
            const char       *text,
            gsize             length,
            gboolean         *comments,
            gboolean         *anchors)
{
  g_autoptr(GHashTable) seen = g_hash_table_new (NULL, NULL);
  g_autoptr(GArray) scalars = g_array_new (FALSE, FALSE, 2 * sizeof (gsize));
  guint s = 0;

  *comments = *anchors = FALSE;
  collect_marks (document, text, seen, scalars, anchors);
  g_array_sort (scalars, compare_spans);
  for (gsize i = 0; i < length && !*comments; i++)
    {
      while (s < scalars->len && g_array_index (scalars, gsize, 2 * s + 1) <= i)
        s++;
      if (s < scalars->len && g_array_index (scalars, gsize, 2 * s) <= i)
        i = g_array_index (scalars, gsize, 2 * s + 1) - 1;
      else if (text[i] == '#' && (i == 0 || g_ascii_isspace (text[i - 1])))
        *comments = TRUE;
    }
}

/* The note of a write-over that could not keep the text of @original. */
static void
note_rewritten (GPtrArray        *notes,
                const KmYamlNode *document,
                const char       *text,
                gsize             length,
                const char       *original)
{
  g_autofree char *base = g_path_get_basename (original);
  /* As every message shows a file name (km_parse_shown_file()). */
  g_autofree char *name = km_parse_shown_file (base);
  gboolean comments, anchors;

  find_marks (document, text, length, &comments, &anchors);
  if (comments && anchors)
    km_format_note (notes, _("the edits of “%s” could not be made in its text: it is written "
                             "again as a whole, without its comments and anchors (an alias "
                             "is written as a copy of what it names)"), name);
  else if (comments)
    km_format_note (notes, _("the edits of “%s” could not be made in its text: it is written "
                             "again as a whole, without its comments"), name);
  else if (anchors)
    km_format_note (notes, _("the edits of “%s” could not be made in its text: it is written "
                             "again as a whole, without its anchors (an alias is written as "
                             "a copy of what it names)"), name);
}

/* The joint of @skeleton whose link is called @name, or -1. */
static int
find_link (const KmSkeleton *skeleton,
           const char       *name)
{
  for (guint i = 0; i < km_skeleton_get_n_joints (skeleton); i++)
    if (g_strcmp0 (km_joint_get_link_name (km_skeleton_get_joint (skeleton, i)), name) == 0)
      return (int) i;
  return -1;
}

static const char * const joint_name_keys[] = { "joint_name", "jointName", NULL };

/* The `joint_name` of @joint's link: its name where its link has another one, else none. */
static KmYamlNode *
joint_name_node (const KmJoint *joint)
{
  return joint->link_name != NULL ? km_yaml_node_new_string (joint->name) : NULL;
}

/* Appends to @kept the links of the joints of @skeleton that @match matches to no link of
 * the original (new joints), in write order (parents first, the default effector last:
 * km_skeleton_dup_write_order()), each with -1 in @kept_from. */
static void
append_new_links (KmYamlNode       *kept,
                  GArray           *kept_from,
                  const KmSkeleton *skeleton,
                  const int        *match,
                  const double     *initial_q,
                  const char       *path,
                  GPtrArray        *notes,
                  GPtrArray        *pathed)
{
  g_autofree int *link_ids = link_joint_ids (skeleton, NULL);
  g_autofree guint *order = km_skeleton_dup_write_order (skeleton);
  guint n = km_skeleton_get_n_joints (skeleton);

  for (guint w = 0; w < n; w++)
    if (match[order[w]] < 0)
      {
        int none = -1;

        km_yaml_sequence_append (kept, joint_link (skeleton, order[w], FALSE, kept, link_ids,
                                                   initial_q, path, notes, pathed));
        g_array_append_val (kept_from, none);
      }
}

/* The text of @original (@original_text when given, else the file read) with @skeleton's
 * edits (see above), or NULL with @reason set. */
static char *
body_over_string (const KmSkeleton  *skeleton,
                  const double      *initial_q,
                  const char        *original,
                  GBytes            *original_text,
                  const char        *path,
                  GPtrArray         *notes,
                  char             **reason)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(KmSkeleton) before = NULL;
  g_autofree double *before_q = NULL;
  g_autoptr(KmYamlNode) document = NULL;
  g_autoptr(KmYamlNode) root = NULL;
  g_autoptr(GHashTable) items = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GHashTable) renames = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GPtrArray) pathed = g_ptr_array_new ();
  g_autoptr(GArray) kept_from = g_array_new (FALSE, FALSE, sizeof (int));
  g_autoptr(KmSkeleton) written = NULL;
  g_autoptr(KmSkeleton) expected = NULL;
  g_autofree char *text = NULL;
  g_autofree char *patched = NULL;
  g_autofree char *full = NULL;
  g_autofree int *match = NULL;
  g_autofree int *edited_of = NULL;
  KmBodyOptions options = { .load_meshes = FALSE };
  KmYamlNode *links, *kept, *v;
  gboolean added_links = FALSE;
  const char *data;
  gsize length;
  guint n = km_skeleton_get_n_joints (skeleton), n_before;

  km_parse_warnings_push (ignore_warning, NULL);
  bytes = original_text != NULL ? g_bytes_ref (original_text)
                                : km_format_read_file (original, KM_FORMAT_MAX_FILE_SIZE, &error);
  data = bytes != NULL ? g_bytes_get_data (bytes, &length) : NULL;
  if (bytes != NULL)
    before = km_body_load_with_pose (original, data != NULL ? data : "", length, &options,
                                     &before_q, &error);
  if (before != NULL)
    document = km_yaml_parse (original, data != NULL ? data : "", length, NULL, &error);
  km_parse_warnings_pop ();
  if (document == NULL)
    {
      *reason = g_strdup (error->message);
      return NULL;
    }
  links = km_yaml_mapping_lookup (document, "links");
  if (links == NULL || km_yaml_node_get_kind (links) != KM_YAML_SEQUENCE)
    {
      *reason = g_strdup (_("it has no list of links"));
      return NULL;
    }
  if ((v = km_yaml_mapping_lookup_any (document, (const char *[]) { "angle_unit", "angleUnit",
                                                                     NULL })) != NULL
      && g_strcmp0 (km_yaml_node_get_scalar (v, NULL), "radian") == 0)
    {
      *reason = g_strdup (_("its angles are in radians"));
      return NULL;
    }
  for (guint i = 0; i < n; i++)
    if (km_skeleton_get_joint (skeleton, i)->type == KM_JOINT_SPHERICAL)
      {
        *reason = g_strdup (_("a spherical joint becomes three links"));
        return NULL;
      }
  if (!body_link_names_unique (skeleton))
    {
      *reason = g_strdup (_("two of its links would have the same name"));
      return NULL;
    }
  root = km_yaml_node_copy (document);
  links = km_yaml_mapping_lookup (root, "links");
  for (guint f = 0; f < km_yaml_node_get_length (links); f++)
    {
      KmYamlNode *link = km_yaml_sequence_get (links, f);
      KmYamlNode *type = km_yaml_mapping_lookup (link, "type");
      const char *name = km_yaml_node_get_scalar (km_yaml_mapping_lookup (link, "name"), NULL);

      if (km_yaml_node_get_kind (link) != KM_YAML_MAPPING || name == NULL
          || km_yaml_mapping_lookup (link, "<<") != NULL
          || (type != NULL && g_strcmp0 (km_yaml_node_get_scalar (type, NULL), "Link") != 0)
          || g_hash_table_contains (items, name))
        {
          *reason = g_strdup_printf (_("its link %u is no plain link of its own name"), f + 1);
          return NULL;
        }
      g_hash_table_insert (items, (gpointer) name, GUINT_TO_POINTER (f + 1));
    }
  n_before = km_skeleton_get_n_joints (before);
  if (n_before != km_yaml_node_get_length (links))
    {
      *reason = g_strdup (_("its links are not its joints one by one"));
      return NULL;
    }
  for (guint o = 0; o < n_before; o++)
    if (!g_hash_table_contains (items, km_joint_get_link_name (km_skeleton_get_joint (before, o))))
      {
        *reason = g_strdup (_("its links are not its joints one by one"));
        return NULL;
      }
  match = match_joints (skeleton, before);
  if (match[0] != 0)
    {
      *reason = g_strdup (_("the root link changed"));
      return NULL;
    }
  edited_of = g_new (int, n_before);
  for (guint o = 0; o < n_before; o++)
    edited_of[o] = -1;
  for (guint i = 0; i < n; i++)
    if (match[i] >= 0)
      edited_of[match[i]] = (int) i;

  move_uris (root, original, path);
  kept = km_yaml_node_new_sequence (km_yaml_node_get_style (links));
  for (guint f = 0; f < km_yaml_node_get_length (links); f++)
    {
      KmYamlNode *link = km_yaml_sequence_get (links, f);
      const char *name = km_yaml_node_get_scalar (km_yaml_mapping_lookup (link, "name"), NULL);
      int o = find_link (before, name);
      int e = edited_of[o];
      const KmJoint *j;
      g_autoptr(KmYamlNode) old_keys = NULL;
      g_autoptr(KmYamlNode) new_keys = NULL;
      g_autoptr(KmYamlNode) old_joint_name = NULL;
      g_autoptr(KmYamlNode) new_joint_name = NULL;

      /* New links go before the default effector where it is a link of the file (the last
       * leaf there), so that it stays the last leaf and the file reads back with it; else
       * at the end. */
      if (e >= 0 && e == km_skeleton_get_default_effector (skeleton) && !added_links)
        {
          append_new_links (kept, kept_from, skeleton, match, initial_q, path, notes, pathed);
          added_links = TRUE;
        }

      if (e < 0)
        continue;   /* its joint was deleted */
      j = km_skeleton_get_joint (skeleton, (guint) e);
      old_keys = owned_node (before, (guint) o, before_q);
      new_keys = owned_node (skeleton, (guint) e, initial_q);
      for (guint k = 0; k < G_N_ELEMENTS (owned_keys); k++)
        update_key (link, owned_keys[k], km_yaml_mapping_lookup (old_keys, owned_keys[k][0]),
                    km_yaml_mapping_lookup (new_keys, owned_keys[k][0]));
      old_joint_name = joint_name_node (km_skeleton_get_joint (before, (guint) o));
      new_joint_name = joint_name_node (j);
      update_key (link, joint_name_keys, old_joint_name, new_joint_name);
      if (j->parent >= 0)
        {
          const char *parent = km_joint_get_link_name (km_skeleton_get_joint (skeleton,
                                                                              (guint) j->parent));

          if (g_strcmp0 (km_yaml_node_get_scalar (km_yaml_mapping_lookup (link, "parent"),
                                                  NULL), parent) != 0)
            km_yaml_mapping_set (link, "parent", km_yaml_node_new_string (parent));
        }
      if (!g_str_equal (name, km_joint_get_link_name (j)))
        {
          /* Keys borrowed from @before: setting the name frees @name. */
          g_hash_table_insert (renames,
                               (gpointer) km_joint_get_link_name (km_skeleton_get_joint (before,
                                                                                         (guint) o)),
                               (gpointer) km_joint_get_link_name (j));
          km_yaml_mapping_set (link, "name", km_yaml_node_new_string (km_joint_get_link_name (j)));
        }
      km_yaml_sequence_append (kept, km_yaml_node_ref (link));
      g_array_append_val (kept_from, f);
    }
  if (!added_links)
    append_new_links (kept, kept_from, skeleton, match, initial_q, path, notes, pathed);
  if (g_hash_table_size (renames) > 0)
    for (guint k = 0; k < km_yaml_node_get_length (root); k++)
      {
        const char *key = km_yaml_node_get_scalar (km_yaml_mapping_get_key (root, k), NULL);
        KmYamlNode *value;

        if (key == NULL || g_str_equal (key, "links") || g_str_equal (key, "name"))
          continue;
        value = renamed_node (km_yaml_mapping_get_value (root, k), renames);
        if (value != NULL)
          km_yaml_mapping_set (root, key, value);
      }
  km_yaml_mapping_set (root, "links", kept);
  text = km_yaml_emit_to_string (root, NULL);

  /* The check: the file reads back as the skeleton written alone would. */
  full = body_to_string (skeleton, initial_q, path, NULL);
  km_parse_warnings_push (ignore_warning, NULL);
  written = km_body_load (path, text, strlen (text), &options, NULL);
  expected = km_body_load (path, full, strlen (full), &options, NULL);
  km_parse_warnings_pop ();
  if (written == NULL || expected == NULL
      || !km_keep_same_kinematics (expected, written, FALSE, reason))
    {
      if (*reason == NULL)
        *reason = g_strdup (_("it does not read back as the skeleton"));
      return NULL;
    }

  /* The original's text with the edits, where it reads back as the tree just written. */
  patched = patch_text (data != NULL ? data : "", length, document, root,
                        (const int *) (gpointer) kept_from->data);
  if (patched != NULL)
    {
      g_autoptr(KmYamlNode) reread = km_yaml_parse (path, patched, strlen (patched), NULL,
                                                     NULL);
      g_autoptr(KmSkeleton) patched_skeleton = NULL;
      g_autofree char *why = NULL;

      km_parse_warnings_push (ignore_warning, NULL);
      if (reread != NULL && km_yaml_node_equal (reread, root))
        patched_skeleton = km_body_load (path, patched, strlen (patched), &options, NULL);
      km_parse_warnings_pop ();
      if (patched_skeleton != NULL
          && km_keep_same_kinematics (written, patched_skeleton, TRUE, &why))
        return g_steal_pointer (&patched);
    }
  note_rewritten (notes, document, data != NULL ? data : "", length, original);
  return g_steal_pointer (&text);
}

/**
 * km_body_save_over:
 * @initial_q: (nullable) (array): as for km_body_to_string_with_pose()
 * @original: the .body file @skeleton was read from (and edited since)
 * @path: where to write; may be @original
 * @notes: (nullable) (element-type utf8): as for km_body_to_string()
 *
 * km_body_save_with_pose(), keeping what @original has and Kinema does not model (mass,
 * inertia, sensors, devices, shapes, keys it does not read): @original written again with
 * the edits of the skeleton (see above), its text kept but for what the edits change.
 * Where that cannot be done, the skeleton is written alone, with a note saying what of
 * @original is lost.
 */
gboolean
km_body_save_over (const KmSkeleton  *skeleton,
                   const double      *initial_q,
                   const char        *original,
                   const char        *path,
                   GPtrArray         *notes,
                   GError           **error)
{
  return km_body_save_over_text (skeleton, initial_q, original, NULL, path, notes, error);
}

/**
 * km_body_save_over_text:
 * @initial_q: (nullable) (array): as for km_body_to_string_with_pose()
 * @original: the .body file @skeleton was read from: its name, for notes and the
 *   references in it
 * @original_text: (nullable): the text @original held when it was read; NULL: the file as
 *   it is now
 * @path: where to write; may be @original
 * @notes: (nullable) (element-type utf8): as for km_body_to_string()
 *
 * km_body_save_over() written over @original_text, not over the file, which need not be
 * there any more (deleted by another program since it was read): what Kinema does not
 * model is kept from the text as from a file.
 */
gboolean
km_body_save_over_text (const KmSkeleton  *skeleton,
                        const double      *initial_q,
                        const char        *original,
                        GBytes            *original_text,
                        const char        *path,
                        GPtrArray         *notes,
                        GError           **error)
{
  g_autofree char *reason = NULL;
  g_autofree char *text = NULL;

  g_return_val_if_fail (skeleton != NULL, FALSE);
  g_return_val_if_fail (original != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  text = body_over_string (skeleton, initial_q, original, original_text, path, notes, &reason);
  if (text == NULL)
    {
      km_keep_note_lost (notes, original, reason,
                         _("mass and inertia, sensors and devices, shapes and the keys Kinema "
                           "does not read"));
      text = body_to_string (skeleton, initial_q, path, notes);
    }
  return km_format_save_text (path, text, error);
}

/* Maps the joint named @name of @body, which must be a one-DOF joint of @type, to the DOF
 * @dof of the original. */
static gboolean
map_one_dof (const KmSkeleton *body,
             const char       *name,
             KmJointType       type,
             int               dof,
             int              *map)
{
  int index = km_skeleton_find_joint (body, name);
  const KmJoint *joint;

  if (index < 0)
    return FALSE;
  joint = km_skeleton_get_joint (body, (guint) index);
  if (joint->type != type || joint->n_dof != 1 || map[joint->dof_index] >= 0)
    return FALSE;
  map[joint->dof_index] = dof;
  return TRUE;
}

/**
 * km_body_map_dofs:
 * @skeleton: the skeleton km_body_to_string() wrote
 * @body: that .body file as km_body_load() read it back
 *
 * Where each degree of freedom of @skeleton went: a revolute or prismatic joint keeps its
 * name, and a spherical joint's euler XYZ angles become the values of its three revolute
 * links about X, Y and Z, in that order. A state vector of @skeleton re-expressed for
 * @body is `q_body[k] = q[map[k]]`, and both have the same forward kinematics.
 *
 * Returns: (transfer full) (array) (nullable): for each DOF of @body, the DOF of @skeleton
 *   it carries; NULL when @body is not what km_body_to_string() wrote for @skeleton (a DOF
 *   has no joint of the right name and type in @body, or @body has other DOFs)
 */
int *
km_body_map_dofs (const KmSkeleton *skeleton,
                  const KmSkeleton *body)
{
  g_autofree int *map = NULL;
  guint n_dof;

  g_return_val_if_fail (skeleton != NULL, NULL);
  g_return_val_if_fail (body != NULL, NULL);

  n_dof = km_skeleton_get_n_dof (body);
  if (n_dof != km_skeleton_get_n_dof (skeleton))
    return NULL;
  map = g_new (int, MAX (n_dof, 1));
  for (guint k = 0; k < n_dof; k++)
    map[k] = -1;
  for (guint i = 0; i < km_skeleton_get_n_joints (skeleton); i++)
    {
      const KmJoint *j = km_skeleton_get_joint (skeleton, i);

      switch (j->type)
        {
        case KM_JOINT_REVOLUTE:
        case KM_JOINT_PRISMATIC:
          if (!map_one_dof (body, j->name, j->type, j->dof_index, map))
            return NULL;
          break;
        case KM_JOINT_SPHERICAL:
          {
            g_autofree char *name_x = NULL;
            g_autofree char *name_y = NULL;

            spherical_link_names (skeleton, j, &name_x, &name_y);
            if (!map_one_dof (body, name_x, KM_JOINT_REVOLUTE, j->dof_index, map)
                || !map_one_dof (body, name_y, KM_JOINT_REVOLUTE, j->dof_index + 1, map)
                || !map_one_dof (body, j->name, KM_JOINT_REVOLUTE, j->dof_index + 2, map))
              return NULL;
          }
          break;
        case KM_JOINT_FIXED:
        case KM_JOINT_FREE:
        default:
          break;
        }
    }
  return g_steal_pointer (&map);
}
