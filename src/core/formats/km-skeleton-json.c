/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-skeleton-json"

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "km-skeleton-json.h"
#include "km-error.h"
#include "km-format.h"
#include "km-json.h"

/*
 * The reader checks shapes and types itself (so that each error points at the value) and
 * leaves the tree rules (unique names, parents, cycles, roots, zero axes, min ≤ max) to
 * KmSkeletonBuilder, mapping its KmSkeletonProblem back to the node it is about.
 */

typedef struct
{
  const KmJsonNode *object;
  const KmJsonNode *name;
  const KmJsonNode *type;
  const KmJsonNode *parent;
  const KmJsonNode *offset;
  const KmJsonNode *quaternion;
  const KmJsonNode *axis;
  const KmJsonNode *limits;
  const KmJsonNode *mimic;
  const KmJsonNode *mimic_joint;
  const KmJsonNode *link;
} JointNodes;

static const char * const top_keys[] = { "root_name", "joints", "body_handlers", "model_name",
                                         NULL };
static const char * const joint_keys[] = { "name", "type", "offset", "parent", "axis", "limits",
                                           "quaternion", "mimic", "link", "max_effort",
                                           "max_velocity", NULL };
static const char * const mimic_keys[] = { "joint", "ratio", "offset", NULL };

/* One end of a [min, max] pair: a number, or null for an open end (@open_value: -∞ for
 * min, +∞ for max), so that a joint limited on one side only is [null, 0.5]. */
static gboolean
read_end (const KmJsonDocument  *doc,
          const KmJsonNode      *node,
          double                 open_value,
          double                *out,
          GError               **error)
{
  if (km_json_node_type (node) == KM_JSON_NULL)
    {
      *out = open_value;
      return TRUE;
    }
  return km_json_expect_number (doc, node, out, error);
}

static gboolean
read_pair (const KmJsonDocument  *doc,
           const KmJsonNode      *node,
           gboolean              *limited,
           double                *min,
           double                *max,
           GError               **error)
{
  *limited = FALSE;
  if (km_json_node_type (node) == KM_JSON_NULL)
    return TRUE;
  if (km_json_node_type (node) != KM_JSON_ARRAY || km_json_node_get_length (node) != 2)
    {
      if (km_json_node_get_key (node) != NULL)
        km_json_error_at (doc, node, KM_PARSE_ERROR_INVALID, error,
                          _("expected [min, max] or null for “%s”"), km_json_node_get_key (node));
      else
        km_json_error_at (doc, node, KM_PARSE_ERROR_INVALID, error,
                          _("expected [min, max] or null"));
      return FALSE;
    }
  if (!read_end (doc, km_json_node_get_element (node, 0), -INFINITY, min, error) ||
      !read_end (doc, km_json_node_get_element (node, 1), INFINITY, max, error))
    return FALSE;
  /* [null, null] is no limit, like null. */
  *limited = isfinite (*min) || isfinite (*max);
  return TRUE;
}

static gboolean
read_limits (const KmJsonDocument  *doc,
             KmSkeletonBuilder     *builder,
             guint                  index,
             KmJointType            type,
             const KmJsonNode      *limits,
             GError               **error)
{
  gboolean limited;
  double min, max;

  if (km_json_node_type (limits) == KM_JSON_NULL)
    return TRUE;
  if (type != KM_JOINT_SPHERICAL)
    {
      if (!read_pair (doc, limits, &limited, &min, &max, error))
        return FALSE;
      if (type == KM_JOINT_REVOLUTE || type == KM_JOINT_PRISMATIC)
        km_skeleton_builder_set_limit (builder, index, 0, min, max);
      return TRUE;
    }

  if (km_json_node_type (limits) != KM_JSON_ARRAY || km_json_node_get_length (limits) != 3)
    {
      km_json_error_at (doc, limits, KM_PARSE_ERROR_INVALID, error,
                        _("expected null or an array of three [min, max] or null (X, Y, Z) "
                          "for the “limits” of a spherical joint"));
      return FALSE;
    }
  for (guint a = 0; a < 3; a++)
    {
      if (!read_pair (doc, km_json_node_get_element (limits, a), &limited, &min, &max, error))
        return FALSE;
      if (limited)
        km_skeleton_builder_set_limit (builder, index, a, min, max);
    }
  return TRUE;
}

/* Kinema's extension: "mimic": {"joint": MASTER, "ratio": R, "offset": O} (R defaults to 1,
 * O to 0), or null. The builder checks the master (exists, 1-DOF, not itself linked). */
static gboolean
read_mimic (const KmJsonDocument  *doc,
            KmSkeletonBuilder     *builder,
            guint                  index,
            JointNodes            *jn,
            GError               **error)
{
  const KmJsonNode *ratio_node, *offset_node;
  const char *master;
  double ratio = 1.0, offset = 0.0;

  if (km_json_node_type (jn->mimic) == KM_JSON_NULL)
    return TRUE;
  if (km_json_node_type (jn->mimic) != KM_JSON_OBJECT)
    {
      km_json_error_at (doc, jn->mimic, KM_PARSE_ERROR_INVALID, error,
                        _("expected null or an object {\"joint\": NAME, \"ratio\": R, "
                          "\"offset\": O} for “mimic”, found %s"),
                        km_json_type_describe (km_json_node_type (jn->mimic)));
      return FALSE;
    }
  km_json_warn_unknown_keys (doc, jn->mimic, mimic_keys);
  if (!km_json_expect_member (doc, jn->mimic, "joint", TRUE, &jn->mimic_joint, error) ||
      !km_json_expect_string (doc, jn->mimic_joint, &master, error))
    return FALSE;
  if (!km_json_expect_member (doc, jn->mimic, "ratio", FALSE, &ratio_node, error) ||
      (ratio_node != NULL && !km_json_expect_number (doc, ratio_node, &ratio, error)))
    return FALSE;
  if (!km_json_expect_member (doc, jn->mimic, "offset", FALSE, &offset_node, error) ||
      (offset_node != NULL && !km_json_expect_number (doc, offset_node, &offset, error)))
    return FALSE;
  km_skeleton_builder_set_mimic (builder, index, master, ratio, offset);
  return TRUE;
}

static gboolean
read_joint (const KmJsonDocument  *doc,
            KmSkeletonBuilder     *builder,
            const char            *root_name,
            JointNodes            *jn,
            GError               **error)
{
  const char *name, *type_name, *parent = NULL;
  KmJointType type;
  KmVec3 offset;
  guint index;

  if (!km_json_expect_object (doc, jn->object, error))
    return FALSE;
  km_json_warn_unknown_keys (doc, jn->object, joint_keys);

  if (!km_json_expect_member (doc, jn->object, "name", TRUE, &jn->name, error) ||
      !km_json_expect_string (doc, jn->name, &name, error))
    return FALSE;
  if (!km_json_expect_member (doc, jn->object, "type", TRUE, &jn->type, error) ||
      !km_json_expect_string (doc, jn->type, &type_name, error))
    return FALSE;
  if (!km_joint_type_from_string (type_name, &type))
    {
      km_json_error_at (doc, jn->type, KM_PARSE_ERROR_INVALID, error,
                        _("expected “fixed”, “revolute”, “prismatic” or “spherical” for "
                          "“type”"));
      return FALSE;
    }
  if (!km_json_expect_member (doc, jn->object, "offset", TRUE, &jn->offset, error) ||
      !km_json_expect_vec3 (doc, jn->offset, &offset, error))
    return FALSE;

  /* The spec's table makes "parent" required; files in the wild omit it on the root. */
  if (!km_json_expect_member (doc, jn->object, "parent",
                              root_name == NULL || strcmp (name, root_name) != 0,
                              &jn->parent, error))
    return FALSE;
  if (jn->parent != NULL && km_json_node_type (jn->parent) != KM_JSON_NULL)
    {
      if (km_json_node_type (jn->parent) != KM_JSON_STRING)
        {
          km_json_error_at (doc, jn->parent, KM_PARSE_ERROR_INVALID, error,
                            _("expected a joint name or null for “parent”, found %s"),
                            km_json_type_describe (km_json_node_type (jn->parent)));
          return FALSE;
        }
      if (!km_json_expect_string (doc, jn->parent, &parent, error))
        return FALSE;
    }

  index = km_skeleton_builder_add_joint (builder, name, type, parent);
  km_skeleton_builder_set_offset (builder, index, offset);

  if (!km_json_expect_member (doc, jn->object, "quaternion", FALSE, &jn->quaternion, error))
    return FALSE;
  if (jn->quaternion != NULL)
    {
      KmQuat q;

      if (!km_json_expect_quat (doc, jn->quaternion, &q, error))
        return FALSE;
      km_skeleton_builder_set_rotation (builder, index, q);
    }

  if (!km_json_expect_member (doc, jn->object, "axis",
                              type == KM_JOINT_REVOLUTE || type == KM_JOINT_PRISMATIC,
                              &jn->axis, error))
    return FALSE;
  if (jn->axis != NULL)
    {
      KmVec3 axis;

      /* Checked on every joint, used only where the type has an axis. */
      if (!km_json_expect_vec3 (doc, jn->axis, &axis, error))
        return FALSE;
      if (type == KM_JOINT_REVOLUTE || type == KM_JOINT_PRISMATIC)
        km_skeleton_builder_set_axis (builder, index, axis);
    }

  if (!km_json_expect_member (doc, jn->object, "limits", FALSE, &jn->limits, error))
    return FALSE;
  if (jn->limits != NULL && !read_limits (doc, builder, index, type, jn->limits, error))
    return FALSE;

  if (!km_json_expect_member (doc, jn->object, "mimic", FALSE, &jn->mimic, error))
    return FALSE;
  if (jn->mimic != NULL && !read_mimic (doc, builder, index, jn, error))
    return FALSE;

  /* Kinema's extension: "link": NAME, the name of the link the joint moves (a URDF child
   * link), so that URDF → skeleton.json → URDF keeps the frames' names. */
  if (!km_json_expect_member (doc, jn->object, "link", FALSE, &jn->link, error))
    return FALSE;
  if (jn->link != NULL)
    {
      const char *link;

      if (!km_json_expect_string (doc, jn->link, &link, error))
        return FALSE;
      if (link[0] == '\0' || strlen (link) > KM_SKELETON_MAX_NAME)
        {
          km_json_error_at (doc, jn->link, KM_PARSE_ERROR_INVALID, error,
                            _("a link name must be between 1 and %d bytes long"),
                            KM_SKELETON_MAX_NAME);
          return FALSE;
        }
      km_skeleton_builder_set_link_name (builder, index, link);
    }

  /* Kinema's extension: "max_effort" and "max_velocity", the limits a URDF <limit> gives
   * (N·m or N, rad/s or m/s), so that URDF → skeleton.json → URDF keeps them. */
  {
    static const char * const rate_keys[] = { "max_effort", "max_velocity" };

    for (guint k = 0; k < G_N_ELEMENTS (rate_keys); k++)
      {
        const KmJsonNode *node;
        double value;

        if (!km_json_expect_member (doc, jn->object, rate_keys[k], FALSE, &node, error))
          return FALSE;
        if (node == NULL)
          continue;
        if (!km_json_expect_number (doc, node, &value, error))
          return FALSE;
        if (k == 0)
          km_skeleton_builder_set_max_effort (builder, index, value);
        else
          km_skeleton_builder_set_max_velocity (builder, index, value);
      }
  }

  return TRUE;
}

/* A handler name, with where the file names it (for the messages about the handler). */
static void
add_body_handler (const KmJsonDocument *doc,
                  KmSkeletonBuilder    *builder,
                  const KmJsonNode     *node,
                  const char           *name)
{
  g_autofree char *location = NULL;

  km_skeleton_builder_add_body_handler (builder, name);
  if (km_json_document_get_path (doc) != NULL)
    {
      location = km_parse_location (km_json_document_get_path (doc), km_json_node_get_pos (node));
      km_skeleton_builder_set_body_handler_location (builder, name, location);
    }
}

static gboolean
read_body_handlers (const KmJsonDocument  *doc,
                    KmSkeletonBuilder     *builder,
                    const KmJsonNode      *node,
                    GError               **error)
{
  const char *name;
  guint n;

  if (km_json_node_type (node) == KM_JSON_STRING)
    {
      if (!km_json_expect_string (doc, node, &name, error))
        return FALSE;
      if (*name == '\0')
        {
          km_json_error_at (doc, node, KM_PARSE_ERROR_INVALID, error,
                            _("expected a non-empty body handler name"));
          return FALSE;
        }
      add_body_handler (doc, builder, node, name);
      return TRUE;
    }
  if (km_json_node_type (node) != KM_JSON_ARRAY)
    {
      km_json_error_at (doc, node, KM_PARSE_ERROR_INVALID, error,
                        _("expected a name or a list of names for “body_handlers”, found %s"),
                        km_json_type_describe (km_json_node_type (node)));
      return FALSE;
    }
  n = km_json_node_get_length (node);
  for (guint i = 0; i < n; i++)
    {
      const KmJsonNode *element = km_json_node_get_element (node, i);

      if (!km_json_expect_string (doc, element, &name, error))
        return FALSE;
      if (*name == '\0')
        {
          km_json_error_at (doc, element, KM_PARSE_ERROR_INVALID, error,
                            _("expected a non-empty body handler name"));
          return FALSE;
        }
      add_body_handler (doc, builder, element, name);
    }
  return TRUE;
}

/* The node a builder problem is about. */
static const KmJsonNode *
problem_node (const KmSkeletonProblem *problem,
              const GError            *build_error,
              const JointNodes        *joints,
              guint                    n_joints,
              const KmJsonNode        *joints_node,
              const KmJsonNode        *root_name_node)
{
  const JointNodes *jn;

  if (problem->joint >= n_joints)
    return joints_node;
  jn = &joints[problem->joint];

  switch (problem->field)
    {
    case KM_JOINT_FIELD_NAME:
      return jn->name;
    case KM_JOINT_FIELD_TYPE:
      return jn->type;
    case KM_JOINT_FIELD_PARENT:
      return jn->parent != NULL ? jn->parent : jn->object;
    case KM_JOINT_FIELD_OFFSET:
      return jn->offset;
    case KM_JOINT_FIELD_ROTATION:
      return jn->quaternion != NULL ? jn->quaternion : jn->object;
    case KM_JOINT_FIELD_AXIS:
      return jn->axis != NULL ? jn->axis : jn->object;
    case KM_JOINT_FIELD_LIMITS:
      if (jn->limits == NULL)
        return jn->object;
      if (km_json_node_type (jn->limits) == KM_JSON_ARRAY &&
          km_json_node_get_length (jn->limits) == 3 && problem->axis < 3)
        return km_json_node_get_element (jn->limits, problem->axis);
      return jn->limits;
    case KM_JOINT_FIELD_MIMIC:
      if (jn->mimic_joint != NULL)
        return jn->mimic_joint;
      return jn->mimic != NULL ? jn->mimic : jn->object;
    case KM_JOINT_FIELD_NONE:
    default:
      if (g_error_matches (build_error, KM_SKELETON_ERROR, KM_SKELETON_ERROR_ROOT_MISMATCH))
        return root_name_node;
      return joints_node;
    }
}

/**
 * km_skeleton_json_load:
 * @path: the path as given, for messages
 *
 * Returns: (transfer full) (nullable): the skeleton, or %NULL with a KM_PARSE_ERROR
 */
KmSkeleton *
km_skeleton_json_load (const char  *path,
                       const char  *data,
                       gsize        length,
                       GError     **error)
{
  g_autoptr(KmJsonDocument) doc = NULL;
  g_autoptr(KmSkeletonBuilder) builder = NULL;
  g_autoptr(GError) build_error = NULL;
  g_autofree JointNodes *joints = NULL;
  const KmJsonNode *root, *root_name_node, *joints_node, *handlers_node;
  const char *root_name;
  KmSkeletonProblem problem = { 0 };
  KmSkeleton *skeleton;
  guint n;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (data != NULL || length == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  doc = km_json_parse (path, data, length, error);
  if (doc == NULL)
    return NULL;
  root = km_json_document_get_root (doc);
  if (!km_json_expect_object (doc, root, error))
    return NULL;
  km_json_warn_unknown_keys (doc, root, top_keys);

  builder = km_skeleton_builder_new ();
  if (!km_json_expect_member (doc, root, "root_name", TRUE, &root_name_node, error) ||
      !km_json_expect_string (doc, root_name_node, &root_name, error))
    return NULL;
  km_skeleton_builder_set_root_name (builder, root_name);

  /* Kinema's extension: "model_name", the model's own name (a URDF robot name). */
  {
    const KmJsonNode *model_name_node;
    const char *model_name;

    if (!km_json_expect_member (doc, root, "model_name", FALSE, &model_name_node, error))
      return NULL;
    if (model_name_node != NULL)
      {
        if (!km_json_expect_string (doc, model_name_node, &model_name, error))
          return NULL;
        km_skeleton_builder_set_model_name (builder, model_name);
      }
  }

  if (!km_json_expect_member (doc, root, "body_handlers", FALSE, &handlers_node, error))
    return NULL;
  if (handlers_node != NULL && !read_body_handlers (doc, builder, handlers_node, error))
    return NULL;

  if (!km_json_expect_member (doc, root, "joints", TRUE, &joints_node, error) ||
      !km_json_expect_array (doc, joints_node, 0, G_MAXUINT, error))
    return NULL;
  n = km_json_node_get_length (joints_node);
  if (n == 0)
    {
      km_json_error_at (doc, joints_node, KM_PARSE_ERROR_INVALID, error,
                        _("expected at least one joint in “joints”"));
      return NULL;
    }
  if (n > KM_SKELETON_MAX_JOINTS)
    {
      km_json_error_at (doc, joints_node, KM_PARSE_ERROR_LIMIT, error,
                        _("expected at most %u joints, found %u"),
                        (guint) KM_SKELETON_MAX_JOINTS, n);
      return NULL;
    }

  /* A root_name that names no joint: said at its value, before a joint that is not the
   * root is asked for the "parent" that only the root may leave out. */
  {
    gboolean found = FALSE;

    for (guint i = 0; i < n && !found; i++)
      {
        const KmJsonNode *joint = km_json_node_get_element (joints_node, i);
        const KmJsonNode *name = km_json_node_type (joint) == KM_JSON_OBJECT
                                 ? km_json_node_get_member (joint, "name") : NULL;

        found = name != NULL && km_json_node_type (name) == KM_JSON_STRING &&
                g_strcmp0 (km_json_node_get_string (name, NULL), root_name) == 0;
      }
    if (!found)
      {
        /* Escaped as files are (km_parse_shown_file()): one line. */
        g_autofree char *shown = km_parse_shown_file (root_name);

        km_json_error_at (doc, root_name_node, KM_PARSE_ERROR_INVALID, error,
                          _("the root joint “%s” is not among the joints"), shown);
        return NULL;
      }
  }

  joints = g_new0 (JointNodes, n);
  for (guint i = 0; i < n; i++)
    {
      joints[i].object = km_json_node_get_element (joints_node, i);
      if (!read_joint (doc, builder, root_name, &joints[i], error))
        return NULL;
    }

  skeleton = km_skeleton_builder_build (builder, &problem, &build_error);
  if (skeleton == NULL)
    {
      const KmJsonNode *at = problem_node (&problem, build_error, joints, n, joints_node,
                                           root_name_node);

      km_json_error_at (doc, at, KM_PARSE_ERROR_INVALID, error, "%s", build_error->message);
      return NULL;
    }
  return skeleton;
}

static void
write_limit (KmJsonWriter  *writer,
             const KmLimit *limit)
{
  if (!limit->limited)
    {
      km_json_writer_null (writer);
      return;
    }
  /* An open end (a joint limited on one side only) is null: [null, 0.5]. */
  km_json_writer_begin_inline_array (writer);
  if (isfinite (limit->min))
    km_json_writer_number (writer, limit->min);
  else
    km_json_writer_null (writer);
  if (isfinite (limit->max))
    km_json_writer_number (writer, limit->max);
  else
    km_json_writer_null (writer);
  km_json_writer_end_array (writer);
}

/* ---- Writing over the user's file ---------------------------------------------------- */

/* Whether member @m of @object is one of @keys (compared whole: a name holding a "\u0000"
 * escape is none of them). */
static gboolean
is_known_key (const KmJsonNode   *object,
              guint               m,
              const char * const *keys)
{
  const char *name = km_json_node_get_member_name (object, m);

  return km_json_node_get_member_name_length (object, m) == strlen (name)
         && g_strv_contains (keys, name);
}

/* Writes the members of @original (an object, nullable) that are not @keys, in its
 * order: what the reader does not interpret. */
static void
write_unknown_members (KmJsonWriter       *writer,
                       const KmJsonNode   *original,
                       const char * const *keys)
{
  if (original == NULL || km_json_node_type (original) != KM_JSON_OBJECT)
    return;
  for (guint m = 0; m < km_json_node_get_length (original); m++)
    {
      if (is_known_key (original, m, keys))
        continue;
      km_json_writer_key_len (writer, km_json_node_get_member_name (original, m),
                              km_json_node_get_member_name_length (original, m));
      km_json_writer_node (writer, km_json_node_get_member_value (original, m));
    }
}

/* The joint object of @joints (the original's "joints", nullable) named @name. */
static const KmJsonNode *
find_original_joint (const KmJsonNode *joints,
                     const char       *name)
{
  if (joints == NULL || km_json_node_type (joints) != KM_JSON_ARRAY)
    return NULL;
  for (guint i = 0; i < km_json_node_get_length (joints); i++)
    {
      const KmJsonNode *joint = km_json_node_get_element (joints, i);
      const KmJsonNode *joint_name = km_json_node_type (joint) == KM_JSON_OBJECT
                                     ? km_json_node_get_member (joint, "name") : NULL;

      if (joint_name != NULL && km_json_node_type (joint_name) == KM_JSON_STRING
          && g_strcmp0 (km_json_node_get_string (joint_name, NULL), name) == 0)
        return joint;
    }
  return NULL;
}

static char *skeleton_to_string (const KmSkeleton         *skeleton,
                                 KmSkeletonJsonWriteFlags  flags,
                                 GPtrArray                *notes,
                                 const KmJsonNode         *original);

/**
 * km_skeleton_json_to_string:
 *
 * Returns: (transfer full): the skeleton as skeleton.json text, joints in topological order
 */
char *
km_skeleton_json_to_string (const KmSkeleton *skeleton)
{
  return km_skeleton_json_to_string_full (skeleton, KM_SKELETON_JSON_WRITE_DEFAULT, NULL);
}

/**
 * km_skeleton_json_to_string_full:
 * @notes: (nullable) (element-type utf8): receives what the text does not keep
 *
 * Returns: (transfer full): the skeleton as skeleton.json text, joints in topological order
 */
char *
km_skeleton_json_to_string_full (const KmSkeleton         *skeleton,
                                 KmSkeletonJsonWriteFlags  flags,
                                 GPtrArray                *notes)
{
  g_return_val_if_fail (skeleton != NULL, NULL);

  return skeleton_to_string (skeleton, flags, notes, NULL);
}

/* km_skeleton_json_to_string_full(), with the members of @original (nullable: the object
 * of the file the skeleton was read from) that the reader does not interpret: each joint
 * object's after Kinema's keys (those of the original's joint of the same name), and the
 * top level's at the end, in the original's order. */
static char *
skeleton_to_string (const KmSkeleton         *skeleton,
                    KmSkeletonJsonWriteFlags  flags,
                    GPtrArray                *notes,
                    const KmJsonNode         *original)
{
  const KmJsonNode *original_joints = original != NULL
                                      ? km_json_node_get_member (original, "joints") : NULL;
  KmJsonWriter *writer;
  const char * const *handlers;
  g_autofree guint *order = NULL;
  guint n;

  writer = km_json_writer_new ();
  km_json_writer_begin_object (writer);
  km_json_writer_key (writer, "root_name");
  km_json_writer_string (writer, km_skeleton_get_root_name (skeleton));
  if (km_skeleton_get_model_name (skeleton) != NULL)
    {
      km_json_writer_key (writer, "model_name");
      km_json_writer_string (writer, km_skeleton_get_model_name (skeleton));
    }

  handlers = km_skeleton_get_body_handlers (skeleton);
  if (handlers != NULL && handlers[0] != NULL)
    {
      km_json_writer_key (writer, "body_handlers");
      km_json_writer_begin_inline_array (writer);
      for (guint i = 0; handlers[i] != NULL; i++)
        km_json_writer_string (writer, handlers[i]);
      km_json_writer_end_array (writer);
    }

  km_json_writer_key (writer, "joints");
  km_json_writer_begin_array (writer);
  n = km_skeleton_get_n_joints (skeleton);
  /* Parents first, with the default effector last among the leaves, as the file that was
   * read had it (km_skeleton_dup_write_order()). */
  order = km_skeleton_dup_write_order (skeleton);
  for (guint i = 0; i < n; i++)
    {
      const KmJoint *j = km_skeleton_get_joint (skeleton, order[i]);
      KmJointType type = j->type;

      if (type == KM_JOINT_FREE && (flags & KM_SKELETON_JSON_WRITE_FIX_FREE_ROOT))
        {
          type = KM_JOINT_FIXED;
          km_format_note (notes, _("the free root “%s” is fixed at its initial pose "
                                   "(skeleton.json has no floating base)"), j->name);
        }
      km_json_writer_begin_object (writer);
      km_json_writer_key (writer, "name");
      km_json_writer_string (writer, j->name);
      km_json_writer_key (writer, "type");
      km_json_writer_string (writer, km_joint_type_to_string (type));
      km_json_writer_key (writer, "offset");
      km_json_writer_vec3 (writer, j->offset);
      km_json_writer_key (writer, "parent");
      if (j->parent < 0)
        km_json_writer_null (writer);
      else
        km_json_writer_string (writer, km_skeleton_get_joint (skeleton, j->parent)->name);
      if (j->link_name != NULL)
        {
          km_json_writer_key (writer, "link");
          km_json_writer_string (writer, j->link_name);
        }
      if (j->has_rotation)
        {
          km_json_writer_key (writer, "quaternion");
          km_json_writer_quat (writer, j->rotation);
        }
      if (j->type == KM_JOINT_REVOLUTE || j->type == KM_JOINT_PRISMATIC)
        {
          km_json_writer_key (writer, "axis");
          km_json_writer_vec3 (writer, j->axis);
          km_json_writer_key (writer, "limits");
          write_limit (writer, &j->limits[0]);
          if (j->mimic >= 0)
            {
              km_json_writer_key (writer, "mimic");
              km_json_writer_begin_object (writer);
              km_json_writer_key (writer, "joint");
              km_json_writer_string (writer, km_skeleton_get_joint (skeleton, j->mimic)->name);
              km_json_writer_key (writer, "ratio");
              km_json_writer_number (writer, j->mimic_ratio);
              km_json_writer_key (writer, "offset");
              km_json_writer_number (writer, j->mimic_offset);
              km_json_writer_end_object (writer);
            }
        }
      if (isfinite (j->max_effort))
        {
          km_json_writer_key (writer, "max_effort");
          km_json_writer_number (writer, j->max_effort);
        }
      if (isfinite (j->max_velocity))
        {
          km_json_writer_key (writer, "max_velocity");
          km_json_writer_number (writer, j->max_velocity);
        }
      /* Not an else of the max_velocity branch above: a spherical joint that kept a
       * velocity limit (a URDF revolute joint retyped in the editor) has limits too. */
      if (j->type == KM_JOINT_SPHERICAL)
        {
          km_json_writer_key (writer, "limits");
          if (!j->limits[0].limited && !j->limits[1].limited && !j->limits[2].limited)
            km_json_writer_null (writer);
          else
            {
              km_json_writer_begin_inline_array (writer);
              for (guint a = 0; a < 3; a++)
                write_limit (writer, &j->limits[a]);
              km_json_writer_end_array (writer);
            }
        }
      write_unknown_members (writer, find_original_joint (original_joints, j->name),
                             joint_keys);
      km_json_writer_end_object (writer);
    }
  km_json_writer_end_array (writer);
  write_unknown_members (writer, original, top_keys);
  km_json_writer_end_object (writer);

  return km_json_writer_free_to_string (writer);
}

gboolean
km_skeleton_json_save (const KmSkeleton  *skeleton,
                       const char        *path,
                       GError           **error)
{
  return km_skeleton_json_save_full (skeleton, path, KM_SKELETON_JSON_WRITE_DEFAULT, NULL,
                                     error);
}

gboolean
km_skeleton_json_save_full (const KmSkeleton         *skeleton,
                            const char               *path,
                            KmSkeletonJsonWriteFlags  flags,
                            GPtrArray                *notes,
                            GError                  **error)
{
  g_autofree char *text = NULL;

  g_return_val_if_fail (skeleton != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  text = km_skeleton_json_to_string_full (skeleton, flags, notes);
  return km_format_save_text (path, text, error);
}

/**
 * km_skeleton_json_save_over:
 * @original: the skeleton.json @skeleton was read from (and edited since)
 * @path: where to write; may be @original
 * @notes: (nullable) (element-type utf8): receives what is not kept
 *
 * km_skeleton_json_save(), keeping what @original has and the reader does not interpret:
 * its unknown top-level keys (a "comment", …) and each joint's unknown keys (kept with the
 * joint of the same name), with their values as read, after the keys Kinema writes. A
 * deleted joint's go with it, and so do a renamed joint's. When @original is gone, the
 * skeleton is written alone; when it no longer reads as a JSON object, too, with a note
 * (km_skeleton_json_save_over_text() writes over the text it held when read instead).
 * Atomic, as km_skeleton_json_save().
 */
gboolean
km_skeleton_json_save_over (const KmSkeleton  *skeleton,
                            const char        *original,
                            const char        *path,
                            GPtrArray         *notes,
                            GError           **error)
{
  return km_skeleton_json_save_over_text (skeleton, original, NULL, path, notes, error);
}

/**
 * km_skeleton_json_save_over_text:
 * @original: the skeleton.json @skeleton was read from: its name, for notes
 * @original_text: (nullable): the text @original held when it was read; NULL: the file as
 *   it is now
 * @path: where to write; may be @original
 * @notes: (nullable) (element-type utf8): receives what is not kept
 *
 * km_skeleton_json_save_over() written over @original_text, not over the file, which need
 * not be there any more (deleted by another program since it was read): the keys Kinema
 * does not interpret are kept from the text as from a file.
 */
gboolean
km_skeleton_json_save_over_text (const KmSkeleton  *skeleton,
                                 const char        *original,
                                 GBytes            *original_text,
                                 const char        *path,
                                 GPtrArray         *notes,
                                 GError           **error)
{
  g_autofree char *text = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(KmJsonDocument) original_doc = NULL;
  g_autoptr(GError) read_error = NULL;
  const KmJsonNode *original_root = NULL;

  g_return_val_if_fail (skeleton != NULL, FALSE);
  g_return_val_if_fail (original != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (original_text != NULL)
    bytes = g_bytes_ref (original_text);
  else
    {
      char *data = NULL;
      gsize length = 0;

      if (g_file_get_contents (original, &data, &length, &read_error))
        bytes = g_bytes_new_take (data, length);
    }
  if (bytes != NULL)
    {
      gsize length = 0;
      const char *data = g_bytes_get_data (bytes, &length);

      original_doc = km_json_parse (original, data != NULL ? data : "", length, NULL);
    }
  if (original_doc != NULL)
    original_root = km_json_document_get_root (original_doc);
  if (original_root == NULL || km_json_node_type (original_root) != KM_JSON_OBJECT)
    {
      /* (gone: nothing of it to keep) */
      if (!g_error_matches (read_error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        km_format_note (notes, _("%s no longer reads as a skeleton.json object: the keys "
                                 "Kinema does not read are not kept"), original);
      original_root = NULL;
    }
  text = skeleton_to_string (skeleton, KM_SKELETON_JSON_WRITE_DEFAULT, notes, original_root);
  return km_format_save_text (path, text, error);
}

static void
append_number (GString *out,
               double   value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_string_append (out, km_json_format_number (buf, value));
}

static void
append_limit (GString       *out,
              const KmLimit *limit)
{
  if (!limit->limited)
    {
      g_string_append_c (out, '-');
      return;
    }
  if (isfinite (limit->min))
    append_number (out, limit->min);
  else
    g_string_append (out, "-inf");
  g_string_append_c (out, ':');
  if (isfinite (limit->max))
    append_number (out, limit->max);
  else
    g_string_append (out, "inf");
}

void
km_skeleton_json_describe (gpointer  skeleton,
                           GString  *out)
{
  const KmSkeleton *skel = skeleton;
  guint n;

  g_return_if_fail (skeleton != NULL);
  g_return_if_fail (out != NULL);

  n = km_skeleton_get_n_joints (skel);
  for (guint i = 0; i < n; i++)
    {
      const KmJoint *j = km_skeleton_get_joint (skel, i);

      /* Names are escaped (km_format_append_field()): one line per joint whatever they
       * hold, split on spaces into its fields. */
      g_string_append (out, "joint=");
      km_format_append_field (out, j->name);
      g_string_append_printf (out, " type=%s parent=", km_joint_type_to_string (j->type));
      km_format_append_field (out, j->parent < 0 ? "-" : km_skeleton_get_joint (skel, j->parent)->name);
      g_string_append_printf (out, " dof=%u axis=", j->n_dof);
      if (j->type == KM_JOINT_REVOLUTE || j->type == KM_JOINT_PRISMATIC)
        {
          append_number (out, j->axis.x);
          g_string_append_c (out, ',');
          append_number (out, j->axis.y);
          g_string_append_c (out, ',');
          append_number (out, j->axis.z);
        }
      else
        g_string_append_c (out, '-');
      g_string_append (out, " limits=");
      if (j->n_dof == 0)
        g_string_append_c (out, '-');
      for (guint a = 0; a < j->n_dof && a < 3; a++)
        {
          if (a > 0)
            g_string_append_c (out, ',');
          append_limit (out, &j->limits[a]);
        }
      if (j->mimic >= 0)
        {
          double offset = j->mimic_offset + 0.0; /* + 0.0: no "-0" */

          g_string_append (out, " mimic=");
          km_format_append_field (out, km_skeleton_get_joint (skel, j->mimic)->name);
          g_string_append_c (out, '*');
          append_number (out, j->mimic_ratio);
          if (offset >= 0)
            g_string_append_c (out, '+');
          append_number (out, offset);
        }
      g_string_append_c (out, '\n');
    }
  g_string_append_printf (out, "joints=%u dof=%u", n, km_skeleton_get_n_dof (skel));
  if (km_skeleton_has_free_root (skel))
    g_string_append (out, " free_root=1");
  g_string_append_c (out, '\n');
}

static int
skeleton_json_sniff (const char *data,
                     gsize       length)
{
  gboolean joints, root_name;

  if (km_json_sniff_first_char (data, length) != '{')
    return 0;
  joints = km_json_sniff_has_key (data, length, "joints", 1);
  root_name = km_json_sniff_has_key (data, length, "root_name", 1);
  if (joints && root_name)
    return 95;
  if (joints || root_name)
    return 60;
  return 0;
}

static gpointer
skeleton_json_load (const char  *path,
                    GBytes      *contents,
                    GError     **error)
{
  gsize length;
  const char *data = g_bytes_get_data (contents, &length);

  return km_skeleton_json_load (path, data != NULL ? data : "", length, error);
}

static void
skeleton_json_free_result (gpointer result)
{
  km_skeleton_unref (result);
}

const KmFormat km_format_skeleton_json = {
  .name = "SKELETON-JSON",
  .kind = KM_FILE_KIND_MODEL,
  .description = N_("Kinema skeleton (skeleton.json)"),
  .sniff = skeleton_json_sniff,
  .load = skeleton_json_load,
  .free_result = skeleton_json_free_result,
  .describe = km_skeleton_json_describe,
};
