/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-body-motion"

#include "config.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "km-body-motion.h"
#include "km-body-writer.h"
#include "km-error.h"
#include "km-format.h"
#include "km-yaml.h"

typedef enum
{
  LINK_FORMAT_XYZQWXYZ,
  LINK_FORMAT_XYZRPY,
} LinkFormat;

/*
 * A motion's frames are most of its file, a number each (30 values a frame at 1 kHz for
 * a simulation's result): the loader reads them as YAML tables (km_yaml_parse_with_tables),
 * 8 bytes a value, where a tree would take a node each and stop at the node limit after
 * two minutes of motion. The tables are the `frames` of the first joint and link
 * components, or of a bare joint sequence, when `type` and `content` come before them (as
 * Choreonoid writes them). A frame that fails the checks is read again as a tree and
 * checked as one, so that the errors are those of a tree, at the same places. In any other
 * case (a table where no joint or link part is read, an anchor or alias in one), the file
 * is parsed again without tables.
 */
typedef struct
{
  const char *data;       /* the file, to read a frame of a table again */
  gsize       length;
  guint       n_tables;   /* made */
  guint       n_used;     /* read as a joint or link part */
  gboolean    joints_taken;
  gboolean    links_taken;
  gboolean    retry;      /* parse again without tables (no error set) */
} Loading;

struct _KmBodyMotion
{
  gatomicrefcount  ref_count;
  KmYamlNode      *root;          /* as read: the writer keeps its keys and other parts */
  double           format_version;
  double           frame_rate;
  guint            n_frames;

  int              joint_component;   /* index in `components`, -1 when none or bare */
  guint            n_joints;
  double          *joints;        /* n_frames × n_joints */

  int              link_component;
  guint            n_links;
  LinkFormat       link_format;
  KmTransform     *links;         /* n_frames × n_links */

  Loading         *loading;       /* during km_body_motion_load only */
};

G_DEFINE_BOXED_TYPE (KmBodyMotion, km_body_motion, km_body_motion_ref, km_body_motion_unref)

static gboolean
error_at (GError          **error,
          KmParseError      code,
          const KmYamlNode *node,
          const char       *message)
{
  km_parse_error_set (error, code, km_yaml_node_get_file (node), km_yaml_node_get_pos (node),
                      "%s", message);
  return FALSE;
}

/* Choreonoid 2's snake_case spellings of the header keys, and the camelCase ones of 1.x
 * (both are read, as Choreonoid reads them; Kinema writes camelCase). */
static const char * const frame_rate_keys[] = { "frameRate", "frame_rate", NULL };
static const char * const num_frames_keys[] = { "numFrames", "num_frames", NULL };
static const char * const num_parts_keys[] = { "numParts", "num_parts", NULL };
static const char * const format_version_keys[] = { "formatVersion", "format_version", NULL };
static const char * const type_keys[] = { "type", NULL };

/* The value of `content`, or of Choreonoid 1.x's `purpose` when there is no `content`:
 * what content_of reads, and where an error about it points. */
static KmYamlNode *
content_node (const KmYamlNode *map)
{
  static const char * const keys[] = { "content", "purpose", NULL };

  return km_yaml_mapping_lookup_any (map, keys);
}

/* `content`, or Choreonoid 1.x's `purpose`; NULL when neither is a string. */
static const char *
content_of (const KmYamlNode *map)
{
  KmYamlNode *v = content_node (map);

  if (v == NULL || km_yaml_node_get_kind (v) != KM_YAML_SCALAR)
    return NULL;
  return km_yaml_node_get_scalar (v, NULL);
}


static gboolean
read_frame_rate (const KmYamlNode *v,
                 double           *out,
                 GError          **error)
{
  if (!km_yaml_expect_number (v, out, error))
    return FALSE;
  if (!(*out >= KM_BODY_MOTION_MIN_RATE) || *out > KM_BODY_MOTION_MAX_RATE)
    {
      g_autofree char *message =
        /* Translators: frames per second, twice */
        g_strdup_printf (_("expected a frame rate from %g to %g frames per second"),
                         KM_BODY_MOTION_MIN_RATE, KM_BODY_MOTION_MAX_RATE);

      return error_at (error, KM_PARSE_ERROR_INVALID, v, message);
    }
  return TRUE;
}

static gboolean
read_count (const KmYamlNode *v,
            guint             max,
            guint            *out,
            GError          **error)
{
  gint64 n;

  if (!km_yaml_expect_int (v, &n, error))
    return FALSE;
  if (n < 0 || n > max)
    {
      g_autofree char *message = g_strdup_printf (_("expected a count from 0 to %u"), max);

      return error_at (error, n < 0 ? KM_PARSE_ERROR_INVALID : KM_PARSE_ERROR_LIMIT, v,
                       message);
    }
  *out = (guint) n;
  return TRUE;
}

/* A component's frame rate (optional: the motion's) and frame count, and its `frames`
 * list, which must hold exactly that many frames. */
static KmYamlNode *
component_frames (KmBodyMotion     *self,
                  const KmYamlNode *component,
                  GError          **error)
{
  KmYamlNode *v, *frames;
  guint n_frames;

  if ((v = km_yaml_mapping_lookup_any (component, frame_rate_keys)) != NULL)
    {
      double rate;

      if (!read_frame_rate (v, &rate, error))
        return NULL;
      if (rate != self->frame_rate)
        {
          /* Translators: %g is the motion's frame rate in frames per second */
          g_autofree char *message =
            g_strdup_printf (_("expected the motion’s frame rate, %g"), self->frame_rate);

          error_at (error, KM_PARSE_ERROR_INVALID, v, message);
          return NULL;
        }
    }
  if ((v = km_yaml_expect_key_any (component, num_frames_keys, error)) == NULL ||
      !read_count (v, KM_BODY_MOTION_MAX_FRAMES, &n_frames, error))
    return NULL;
  if (n_frames != self->n_frames)
    {
      g_autofree char *message =
        g_strdup_printf (_("expected %u frames, as the motion’s numFrames says"),
                         self->n_frames);

      error_at (error, KM_PARSE_ERROR_INVALID, v, message);
      return NULL;
    }
  if ((frames = km_yaml_expect_key (component, "frames", error)) == NULL ||
      !km_yaml_expect_sequence (frames, error))
    return NULL;
  if ((km_yaml_table_get_depth (frames) > 0 ? km_yaml_table_get_length (frames, 0, 0)
                                            : km_yaml_node_get_length (frames)) != n_frames)
    {
      g_autofree char *message =
        g_strdup_printf (_("expected %u frames, as numFrames says"), n_frames);

      error_at (error, KM_PARSE_ERROR_INVALID, frames, message);
      return NULL;
    }
  return frames;
}

/* Every frame has @n_parts entries, checked before the frames × parts values are
 * allocated: the YAML reader bounds the document with aliases expanded, so frames that
 * pass hold at most that many values (numParts and numFrames alone bound nothing). */
static gboolean
check_frame (const KmYamlNode *frame,
             guint             n_parts,
             gboolean          links,
             GError          **error)
{
  g_autofree char *message = NULL;

  if (km_yaml_node_get_kind (frame) == KM_YAML_SEQUENCE &&
      km_yaml_node_get_length (frame) == n_parts)
    return TRUE;
  if (!links)
    message = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "expected a list of %u number",
                                            "expected a list of %u numbers", n_parts),
                               n_parts);
  else
    message = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                            "expected %u link, as numParts says",
                                            "expected %u links, as numParts says", n_parts),
                               n_parts);
  return error_at (error, KM_PARSE_ERROR_INVALID, frame, message);
}

static gboolean
check_lengths (const KmYamlNode *frames,
               guint             n_parts,
               gboolean          links,
               GError          **error)
{
  for (guint f = 0; f < km_yaml_node_get_length (frames); f++)
    if (!check_frame (km_yaml_sequence_get (frames, f), n_parts, links, error))
      return FALSE;
  return TRUE;
}

static gboolean read_link_part (KmBodyMotion *self, const KmYamlNode *node, KmTransform *pose,
                                GError **error);

/* Frame @f of the table @frames failed a check: read again as a tree, the checks of a
 * tree say what is wrong and where. */
static gboolean
table_frame_error (KmBodyMotion     *self,
                   const KmYamlNode *frames,
                   guint             f,
                   gboolean          links,
                   GError          **error)
{
  g_autoptr(KmYamlNode) frame = NULL;
  guint n_parts = links ? self->n_links : self->n_joints;

  frame = km_yaml_table_get_item (frames, self->loading->data, self->loading->length, f, error);
  if (frame == NULL || !check_frame (frame, n_parts, links, error))
    return FALSE;
  if (!links)
    {
      g_autofree double *row = g_new0 (double, MAX (n_parts, 1));

      if (!km_yaml_expect_numbers (frame, row, n_parts, error))
        return FALSE;
    }
  else
    for (guint p = 0; p < n_parts; p++)
      {
        KmTransform pose;

        if (!read_link_part (self, km_yaml_sequence_get (frame, p), &pose, error))
          return FALSE;
      }
  /* (not reached: a table reads numbers as the tree does) */
  return error_at (error, KM_PARSE_ERROR_INVALID, frame, _("expected a list of numbers"));
}

/* Is @frames a table of @depth levels, or no table? Else (a table made for the other kind
 * of part) the file is parsed again without tables. */
static gboolean
table_fits (KmBodyMotion     *self,
            const KmYamlNode *frames,
            guint             depth)
{
  guint d = km_yaml_table_get_depth (frames);

  if (d == 0)
    return TRUE;
  if (d != depth)
    {
      self->loading->retry = TRUE;
      return FALSE;
    }
  self->loading->n_used++;
  return TRUE;
}

static gboolean
read_joint_table (KmBodyMotion *self,
                  KmYamlNode   *frames,
                  GError      **error)
{
  const double *values = km_yaml_table_get_values (frames, NULL);
  gsize n_values;

  for (guint f = 0; f < self->n_frames; f++)
    if (km_yaml_table_get_length (frames, 1, f) != self->n_joints)
      return table_frame_error (self, frames, f, FALSE, error);
  for (guint f = 0; f < self->n_frames; f++)
    {
      const double *row = values + km_yaml_table_get_first (frames, 1, f);

      for (guint j = 0; j < self->n_joints; j++)
        if (!isfinite (row[j]))
          return table_frame_error (self, frames, f, FALSE, error);
    }
  /* Every frame is a list of n_joints numbers: the values are the frames, row by row. */
  self->joints = km_yaml_table_steal_values (frames, &n_values);
  g_assert (n_values == (gsize) self->n_frames * self->n_joints);
  if (self->joints == NULL)
    self->joints = g_new0 (double, 1);
  return TRUE;
}

static gboolean
read_joints (KmBodyMotion     *self,
             const KmYamlNode *component,
             GError          **error)
{
  KmYamlNode *v, *frames;

  if ((v = km_yaml_expect_key_any (component, num_parts_keys, error)) == NULL ||
      !read_count (v, KM_BODY_MOTION_MAX_PARTS, &self->n_joints, error))
    return FALSE;
  if ((frames = component_frames (self, component, error)) == NULL ||
      !table_fits (self, frames, 2))
    return FALSE;
  if (km_yaml_table_get_depth (frames) > 0)
    return read_joint_table (self, frames, error);
  if (!check_lengths (frames, self->n_joints, FALSE, error))
    return FALSE;
  self->joints = g_new0 (double, MAX ((gsize) self->n_frames * self->n_joints, 1));
  for (guint f = 0; f < self->n_frames; f++)
    if (!km_yaml_expect_numbers (km_yaml_sequence_get (frames, f),
                                 self->joints + (gsize) f * self->n_joints, self->n_joints,
                                 error))
      return FALSE;
  return TRUE;
}

/* Choreonoid's rotFromRpy: Rz(yaw) · Ry(pitch) · Rx(roll). */
static void
rotation_from_rpy (double  roll,
                   double  pitch,
                   double  yaw,
                   KmMat3 *out)
{
  KmMat3 rx, ry, rz, zy;

  km_mat3_from_axis_angle (km_vec3 (1, 0, 0), roll, &rx);
  km_mat3_from_axis_angle (km_vec3 (0, 1, 0), pitch, &ry);
  km_mat3_from_axis_angle (km_vec3 (0, 0, 1), yaw, &rz);
  km_mat3_mul (&rz, &ry, &zy);
  km_mat3_mul (&zy, &rx, out);
}

static guint
link_part_length (const KmBodyMotion *self)
{
  return self->link_format == LINK_FORMAT_XYZRPY ? 6 : 7;
}

/* @v: link_part_length() values; FALSE for a quaternion that is no rotation. */
static gboolean
link_pose (const KmBodyMotion *self,
           const double       *v,
           KmTransform        *pose)
{
  if (self->link_format == LINK_FORMAT_XYZRPY)
    rotation_from_rpy (v[3], v[4], v[5], &pose->rot);
  else
    {
      KmQuat q = { v[3], v[4], v[5], v[6] };

      if (!(km_quat_length (q) > 0.5 && km_quat_length (q) < 1.5))
        return FALSE;
      km_mat3_from_quat (km_quat_normalize (q), &pose->rot);
    }
  pose->pos = km_vec3 (v[0], v[1], v[2]);
  return TRUE;
}

static gboolean
read_link_part (KmBodyMotion     *self,
                const KmYamlNode *node,
                KmTransform      *pose,
                GError          **error)
{
  double v[7];

  if (!km_yaml_expect_numbers (node, v, link_part_length (self), error))
    return FALSE;
  if (!link_pose (self, v, pose))
    return error_at (error, KM_PARSE_ERROR_INVALID, km_yaml_sequence_get (node, 3),
                     _("expected a unit quaternion w, x, y, z"));
  return TRUE;
}

static gboolean
read_link_table (KmBodyMotion *self,
                 KmYamlNode   *frames,
                 GError      **error)
{
  const double *values = km_yaml_table_get_values (frames, NULL);
  guint n = link_part_length (self);

  for (guint f = 0; f < self->n_frames; f++)
    if (km_yaml_table_get_length (frames, 1, f) != self->n_links)
      return table_frame_error (self, frames, f, TRUE, error);
  self->links = g_new0 (KmTransform, MAX ((gsize) self->n_frames * self->n_links, 1));
  for (guint f = 0; f < self->n_frames; f++)
    {
      gsize first = km_yaml_table_get_first (frames, 1, f);

      for (guint p = 0; p < self->n_links; p++)
        {
          const double *v = values + km_yaml_table_get_first (frames, 2, first + p);
          gboolean ok = km_yaml_table_get_length (frames, 2, first + p) == n;

          for (guint i = 0; ok && i < n; i++)
            ok = isfinite (v[i]);
          if (!ok || !link_pose (self, v, &self->links[(gsize) f * self->n_links + p]))
            return table_frame_error (self, frames, f, TRUE, error);
        }
    }
  g_free (km_yaml_table_steal_values (frames, NULL));
  return TRUE;
}

static gboolean
read_links (KmBodyMotion     *self,
            const KmYamlNode *component,
            gboolean          old_type,
            GError          **error)
{
  KmYamlNode *v, *frames;

  if ((v = km_yaml_expect_key_any (component, num_parts_keys, error)) == NULL ||
      !read_count (v, KM_BODY_MOTION_MAX_PARTS, &self->n_links, error))
    return FALSE;
  /* MultiAffine3Seq (1.x) wrote XYZRPY unless it said otherwise. */
  self->link_format = old_type ? LINK_FORMAT_XYZRPY : LINK_FORMAT_XYZQWXYZ;
  if ((v = km_yaml_mapping_lookup (component, "format")) != NULL)
    {
      const char *name = km_yaml_expect_string (v, error);

      if (name == NULL)
        return FALSE;
      if (g_ascii_strcasecmp (name, "XYZQWXYZ") == 0)
        self->link_format = LINK_FORMAT_XYZQWXYZ;
      else if (g_ascii_strcasecmp (name, "XYZRPY") == 0)
        self->link_format = LINK_FORMAT_XYZRPY;
      else
        return error_at (error, KM_PARSE_ERROR_INVALID, v,
                         _("expected “XYZQWXYZ” or “XYZRPY”"));
    }
  if ((frames = component_frames (self, component, error)) == NULL ||
      !table_fits (self, frames, 3))
    return FALSE;
  if (km_yaml_table_get_depth (frames) > 0)
    return read_link_table (self, frames, error);
  if (!check_lengths (frames, self->n_links, TRUE, error))
    return FALSE;
  self->links = g_new0 (KmTransform, MAX ((gsize) self->n_frames * self->n_links, 1));
  for (guint f = 0; f < self->n_frames; f++)
    {
      KmYamlNode *frame = km_yaml_sequence_get (frames, f);

      for (guint p = 0; p < self->n_links; p++)
        if (!read_link_part (self, km_yaml_sequence_get (frame, p),
                             &self->links[(gsize) f * self->n_links + p], error))
          return FALSE;
    }
  return TRUE;
}

static gboolean
is_joint_content (const char *content)
{
  return g_strcmp0 (content, "JointDisplacement") == 0 ||
         g_strcmp0 (content, "JointPosition") == 0;
}

/* One entry of `components`: the joint or link part is read, any other is kept as it is
 * (a second joint or link part too: Choreonoid reads the first). */
static gboolean
read_component (KmBodyMotion     *self,
                const KmYamlNode *component,
                guint             index,
                GError          **error)
{
  KmYamlNode *v;
  const char *type, *content;

  if (!km_yaml_expect_mapping (component, error) ||
      (v = km_yaml_expect_key (component, "type", error)) == NULL ||
      (type = km_yaml_expect_string (v, error)) == NULL)
    return FALSE;
  content = content_of (component);
  if (strcmp (type, "MultiValueSeq") == 0 && is_joint_content (content) &&
      self->joint_component < 0)
    {
      self->joint_component = (int) index;
      return read_joints (self, component, error);
    }
  if ((strcmp (type, "MultiSE3Seq") == 0 || strcmp (type, "MultiAffine3Seq") == 0) &&
      g_strcmp0 (content, "LinkPosition") == 0 && self->link_component < 0)
    {
      self->link_component = (int) index;
      return read_links (self, component, strcmp (type, "MultiAffine3Seq") == 0, error);
    }
  return TRUE;
}

/* Where the motion's @keys (its rate or length) are: the header, else, as Choreonoid 1.x
 * reads a BodyMotion that gives them in its components only, the first component. */
static const KmYamlNode *
header_with (const KmYamlNode   *root,
             const char * const *keys)
{
  KmYamlNode *components, *first;

  if (km_yaml_mapping_lookup_any (root, keys) != NULL)
    return root;
  components = km_yaml_mapping_lookup (root, "components");
  if (components == NULL || km_yaml_node_get_kind (components) != KM_YAML_SEQUENCE ||
      km_yaml_node_get_length (components) == 0)
    return root;
  first = km_yaml_sequence_get (components, 0);
  if (km_yaml_node_get_kind (first) != KM_YAML_MAPPING ||
      km_yaml_mapping_lookup_any (first, keys) == NULL)
    return root;
  return first;
}

static gboolean
read_header (KmBodyMotion     *self,
             const KmYamlNode *root,
             GError          **error)
{
  KmYamlNode *v;

  if ((v = km_yaml_mapping_lookup_any (root, format_version_keys)) != NULL)
    {
      if (!km_yaml_expect_number (v, &self->format_version, error))
        return FALSE;
      if (self->format_version != 1.0 && self->format_version != 2.0)
        return error_at (error, KM_PARSE_ERROR_INVALID, v,
                         _("expected format version 1.0 or 2.0"));
    }
  if ((v = km_yaml_expect_key_any (header_with (root, frame_rate_keys), frame_rate_keys, error)) == NULL ||
      !read_frame_rate (v, &self->frame_rate, error))
    return FALSE;
  if ((v = km_yaml_expect_key_any (header_with (root, num_frames_keys), num_frames_keys, error)) == NULL ||
      !read_count (v, KM_BODY_MOTION_MAX_FRAMES, &self->n_frames, error))
    return FALSE;
  return TRUE;
}

int
km_body_motion_sniff (const char *data,
                      gsize       length)
{
  gsize n = MIN (length, 4096);

  if (data == NULL || !km_yaml_sniff_top_key (data, length, "type"))
    return 0;
  if (g_strstr_len (data, n, "BodyMotion") != NULL)
    return 90;
  if (g_strstr_len (data, n, "MultiValueSeq") != NULL &&
      (g_strstr_len (data, n, "JointDisplacement") != NULL ||
       g_strstr_len (data, n, "JointPosition") != NULL))
    return 80;
  return 0;
}

/* km_yaml_parse_with_tables: which `frames` become tables (see Loading). */
static guint
frames_table_depth (const KmYamlNode *mapping,
                    const KmYamlNode *key,
                    guint             depth,
                    gpointer          user_data)
{
  Loading *loading = user_data;
  KmYamlNode *v;
  const char *type;

  if (g_strcmp0 (km_yaml_node_get_scalar (key, NULL), "frames") != 0 ||
      (depth != 1 && depth != 3))
    return 0;
  v = km_yaml_mapping_lookup (mapping, "type");
  type = v != NULL ? km_yaml_node_get_scalar (v, NULL) : NULL;
  if (g_strcmp0 (type, "MultiValueSeq") == 0 && is_joint_content (content_of (mapping)) &&
      !loading->joints_taken)
    {
      loading->joints_taken = TRUE;
      loading->n_tables++;
      return 2;
    }
  if (depth == 3 && (g_strcmp0 (type, "MultiSE3Seq") == 0 ||
                     g_strcmp0 (type, "MultiAffine3Seq") == 0) &&
      g_strcmp0 (content_of (mapping), "LinkPosition") == 0 && !loading->links_taken)
    {
      loading->links_taken = TRUE;
      loading->n_tables++;
      return 3;
    }
  return 0;
}

/* With @loading, frames as tables; without, the whole file as a tree. NULL without an
 * error when loading->retry is set. */
static KmBodyMotion *
load (const char  *path,
      const char  *data,
      gsize        length,
      Loading     *loading,
      GError     **error)
{
  g_autoptr(KmYamlNode) root = NULL;
  g_autoptr(KmBodyMotion) self = NULL;
  KmYamlNode *v, *components;
  const char *type, *content;

  if (loading != NULL)
    root = km_yaml_parse_with_tables (path, data, length, NULL, frames_table_depth, loading,
                                      &loading->retry, error);
  else
    root = km_yaml_parse (path, data, length, NULL, error);
  if (root == NULL || !km_yaml_expect_mapping (root, error))
    return NULL;
  if ((v = km_yaml_expect_key (root, "type", error)) == NULL ||
      (type = km_yaml_expect_string (v, error)) == NULL)
    return NULL;

  self = g_new0 (KmBodyMotion, 1);
  g_atomic_ref_count_init (&self->ref_count);
  self->root = km_yaml_node_ref (root);
  self->joint_component = -1;
  self->link_component = -1;
  self->loading = loading;
  content = content_of (root);

  if (strcmp (type, "MultiValueSeq") == 0)
    {
      /* A joint-only motion: the sequence is the whole file. */
      if (!is_joint_content (content))
        {
          error_at (error, KM_PARSE_ERROR_INVALID,
                    content_node (root) != NULL ? content_node (root) : root,
                    _("expected “content: JointDisplacement” or “JointPosition”"));
          return NULL;
        }
      if (!read_header (self, root, error) || !read_joints (self, root, error))
        return NULL;
    }
  else
    {
      if (strcmp (type, "CompositeSeq") != 0 && strcmp (type, "BodyMotion") != 0)
        {
          error_at (error, KM_PARSE_ERROR_INVALID, v,
                    _("expected “CompositeSeq”, “BodyMotion” or “MultiValueSeq”"));
          return NULL;
        }
      if (content != NULL && strcmp (content, "BodyMotion") != 0)
        {
          /* content_node, not `content`: a 1.x file may say `purpose` instead. */
          error_at (error, KM_PARSE_ERROR_INVALID, content_node (root),
                    _("expected “BodyMotion”"));
          return NULL;
        }
      if (!read_header (self, root, error))
        return NULL;
      if ((components = km_yaml_expect_key (root, "components", error)) == NULL ||
          !km_yaml_expect_sequence (components, error))
        return NULL;
      for (guint i = 0; i < km_yaml_node_get_length (components); i++)
        if (!read_component (self, km_yaml_sequence_get (components, i), i, error))
          return NULL;
    }
  if (loading != NULL && loading->n_used != loading->n_tables)
    {
      /* A table where the motion reads no part: kept, it would be written empty. */
      loading->retry = TRUE;
      return NULL;
    }
  self->loading = NULL;
  return g_steal_pointer (&self);
}

/**
 * km_body_motion_load:
 * @path: the path as given, for messages
 * @contents: the file's bytes
 *
 * Returns: (transfer full) (nullable): the motion, or NULL with a KM_PARSE_ERROR
 */
KmBodyMotion *
km_body_motion_load (const char  *path,
                     GBytes      *contents,
                     GError     **error)
{
  Loading loading = { NULL, };
  KmBodyMotion *self;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (contents != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  loading.data = g_bytes_get_data (contents, &loading.length);
  if (loading.data == NULL)
    loading.data = "";
  self = load (path, loading.data, loading.length, &loading, error);
  if (self == NULL && loading.retry)
    self = load (path, loading.data, loading.length, NULL, error);
  return self;
}

KmBodyMotion *
km_body_motion_load_file (const char  *path,
                          GError     **error)
{
  g_autoptr(GBytes) contents = NULL;

  g_return_val_if_fail (path != NULL, NULL);

  contents = km_format_read_file (path, KM_FORMAT_MAX_FILE_SIZE, error);
  if (contents == NULL)
    return NULL;
  return km_body_motion_load (path, contents, error);
}

KmBodyMotion *
km_body_motion_ref (KmBodyMotion *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

void
km_body_motion_unref (KmBodyMotion *self)
{
  g_return_if_fail (self != NULL);

  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;
  g_clear_pointer (&self->root, km_yaml_node_unref);
  g_free (self->joints);
  g_free (self->links);
  g_free (self);
}

double
km_body_motion_get_format_version (const KmBodyMotion *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->format_version;
}

double
km_body_motion_get_frame_rate (const KmBodyMotion *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->frame_rate;
}

guint
km_body_motion_get_n_frames (const KmBodyMotion *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->n_frames;
}

double
km_body_motion_get_duration (const KmBodyMotion *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->n_frames > 1 ? (self->n_frames - 1) / self->frame_rate : 0;
}

guint
km_body_motion_get_n_joints (const KmBodyMotion *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->joints != NULL ? self->n_joints : 0;
}

const double *
km_body_motion_get_joint_frame (const KmBodyMotion *self,
                                guint               frame)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (frame < self->n_frames, NULL);

  if (self->joints == NULL)
    return NULL;
  return self->joints + (gsize) frame * self->n_joints;
}

guint
km_body_motion_get_n_links (const KmBodyMotion *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->links != NULL ? self->n_links : 0;
}

gboolean
km_body_motion_get_link_pose (const KmBodyMotion *self,
                              guint               frame,
                              guint               link,
                              KmTransform        *pose)
{
  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (pose != NULL, FALSE);

  if (self->links == NULL || frame >= self->n_frames || link >= self->n_links)
    return FALSE;
  *pose = self->links[(gsize) frame * self->n_links + link];
  return TRUE;
}

/* The frames around @time and the weight of the later one. */
static void
locate (const KmBodyMotion *self,
        double              time,
        guint              *a,
        guint              *b,
        double             *t)
{
  double f = time * self->frame_rate;

  if (!(f > 0) || self->n_frames < 2)
    {
      *a = *b = 0;
      *t = 0;
      return;
    }
  if (f >= self->n_frames - 1)
    {
      *a = *b = self->n_frames - 1;
      *t = 0;
      return;
    }
  *a = (guint) floor (f);
  *b = *a + 1;
  *t = f - *a;
}

gboolean
km_body_motion_sample_joints (const KmBodyMotion *self,
                              double              time,
                              double             *q)
{
  const double *qa, *qb;
  guint a, b;
  double t;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (q != NULL || self->n_joints == 0, FALSE);

  if (self->joints == NULL || self->n_frames == 0)
    return FALSE;
  locate (self, time, &a, &b, &t);
  qa = self->joints + (gsize) a * self->n_joints;
  qb = self->joints + (gsize) b * self->n_joints;
  for (guint j = 0; j < self->n_joints; j++)
    q[j] = t == 0 ? qa[j] : qa[j] + (qb[j] - qa[j]) * t;
  return TRUE;
}

gboolean
km_body_motion_sample_link (const KmBodyMotion *self,
                            double              time,
                            guint               link,
                            KmTransform        *pose)
{
  KmTransform pa, pb;
  guint a, b;
  double t;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (pose != NULL, FALSE);

  if (self->links == NULL || self->n_frames == 0 || link >= self->n_links)
    return FALSE;
  locate (self, time, &a, &b, &t);
  km_body_motion_get_link_pose (self, a, link, &pa);
  if (t == 0)
    {
      *pose = pa;
      return TRUE;
    }
  km_body_motion_get_link_pose (self, b, link, &pb);
  pose->pos = km_vec3 (pa.pos.x + (pb.pos.x - pa.pos.x) * t,
                       pa.pos.y + (pb.pos.y - pa.pos.y) * t,
                       pa.pos.z + (pb.pos.z - pa.pos.z) * t);
  km_mat3_from_quat (km_quat_slerp (km_mat3_to_quat (&pa.rot), km_mat3_to_quat (&pb.rot), t),
                     &pose->rot);
  return TRUE;
}

/* The scalar value of the first of @keys in @map, else @fallback. */
static const char *
scalar_or (const KmYamlNode   *map,
           const char * const *keys,
           const char         *fallback)
{
  KmYamlNode *v = km_yaml_mapping_lookup_any (map, keys);

  if (v == NULL || km_yaml_node_get_kind (v) != KM_YAML_SCALAR)
    return fallback;
  return km_yaml_node_get_scalar (v, NULL);
}

void
km_body_motion_describe (const KmBodyMotion *self,
                         GString            *out)
{
  KmYamlNode *components;
  char rate[G_ASCII_DTOSTR_BUF_SIZE];
  char duration[G_ASCII_DTOSTR_BUF_SIZE];
  guint n_components = 0;

  g_return_if_fail (self != NULL);
  g_return_if_fail (out != NULL);

  g_string_append_printf (out, "format=%s\n", KM_BODY_MOTION_FORMAT);
  if (self->format_version > 0)
    {
      km_yaml_format_number (self->format_version, rate, sizeof rate);
      g_string_append_printf (out, "format_version=%s\n", rate);
    }
  components = km_yaml_mapping_lookup (self->root, "components");
  if (components != NULL && km_yaml_node_get_kind (components) == KM_YAML_SEQUENCE)
    {
      n_components = km_yaml_node_get_length (components);
      for (guint i = 0; i < n_components; i++)
        {
          KmYamlNode *c = km_yaml_sequence_get (components, i);
          const char *use = (int) i == self->joint_component ? "joints"
                            : (int) i == self->link_component ? "links" : "kept";

          /* The file's words, one field each (km_format_append_field()). */
          g_string_append_printf (out, "component %u: type=", i);
          km_format_append_field (out, scalar_or (c, type_keys, "-"));
          g_string_append (out, " content=");
          km_format_append_field (out, content_of (c) != NULL ? content_of (c) : "-");
          g_string_append (out, " parts=");
          km_format_append_field (out, scalar_or (c, num_parts_keys, "-"));
          g_string_append_printf (out, " use=%s\n", use);
        }
    }
  else
    {
      n_components = 1;
      g_string_append_printf (out, "component 0: type=MultiValueSeq content=%s parts=%u "
                              "use=joints\n", content_of (self->root), self->n_joints);
    }
  km_yaml_format_number (self->frame_rate, rate, sizeof rate);
  km_yaml_format_number (km_body_motion_get_duration (self), duration, sizeof duration);
  g_string_append_printf (out, "frames=%u frame_rate=%s duration=%s joints=%u links=%u "
                          "components=%u\n", self->n_frames, rate, duration,
                          km_body_motion_get_n_joints (self), km_body_motion_get_n_links (self),
                          n_components);
}

/* Writing ----------------------------------------------------------------------------- */

static KmYamlNode *
joint_frames (const KmBodyMotion *self)
{
  KmYamlNode *frames = km_yaml_node_new_sequence (KM_YAML_STYLE_BLOCK);

  for (guint f = 0; f < self->n_frames; f++)
    {
      KmYamlNode *row = km_yaml_node_new_numbers (self->joints + (gsize) f * self->n_joints,
                                                  self->n_joints);

      km_yaml_node_set_style (row, KM_YAML_STYLE_FLOW);
      km_yaml_sequence_append (frames, row);
    }
  return frames;
}

static KmYamlNode *
link_frames (const KmBodyMotion *self)
{
  KmYamlNode *frames = km_yaml_node_new_sequence (KM_YAML_STYLE_BLOCK);

  for (guint f = 0; f < self->n_frames; f++)
    {
      KmYamlNode *parts = km_yaml_node_new_sequence (KM_YAML_STYLE_BLOCK);

      for (guint p = 0; p < self->n_links; p++)
        {
          const KmTransform *pose = &self->links[(gsize) f * self->n_links + p];
          double v[7] = { pose->pos.x, pose->pos.y, pose->pos.z };
          KmYamlNode *part;
          guint n;

          if (self->link_format == LINK_FORMAT_XYZRPY)
            {
              /* The inverse of rotation_from_rpy (Rz · Ry · Rx). */
              const double (*m)[3] = pose->rot.m;

              v[3] = atan2 (m[2][1], m[2][2]);
              v[4] = asin (CLAMP (-m[2][0], -1.0, 1.0));
              v[5] = atan2 (m[1][0], m[0][0]);
              n = 6;
            }
          else
            {
              KmQuat q = km_mat3_to_quat (&pose->rot);

              v[3] = q.w;
              v[4] = q.x;
              v[5] = q.y;
              v[6] = q.z;
              n = 7;
            }
          part = km_yaml_node_new_numbers (v, n);
          km_yaml_node_set_style (part, KM_YAML_STYLE_FLOW);
          km_yaml_sequence_append (parts, part);
        }
      km_yaml_sequence_append (frames, parts);
    }
  return frames;
}

/* @map's pairs in their order, the value of @key replaced by @value (full transfer). */
static KmYamlNode *
with_value (const KmYamlNode *map,
            const char       *key,
            KmYamlNode       *value)
{
  KmYamlNode *out = km_yaml_node_new_mapping (KM_YAML_STYLE_BLOCK);

  for (guint i = 0; i < km_yaml_node_get_length (map); i++)
    {
      KmYamlNode *k = km_yaml_mapping_get_key (map, i);
      KmYamlNode *v = km_yaml_mapping_get_value (map, i);

      if (g_strcmp0 (km_yaml_node_get_scalar (k, NULL), key) == 0)
        v = value;
      km_yaml_mapping_append_node (out, km_yaml_node_ref (k), km_yaml_node_ref (v));
    }
  km_yaml_node_unref (value);
  return out;
}

/* The tree written for @self, its frames generated as they are written. */
static KmYamlNode *
motion_tree (const KmBodyMotion *self)
{
  KmYamlNode *tree;
  KmYamlNode *components;
  KmYamlNode *written;

  components = km_yaml_mapping_lookup (self->root, "components");
  if (components == NULL)
    tree = with_value (self->root, "frames", joint_frames (self));
  else
    {
      written = km_yaml_node_new_sequence (KM_YAML_STYLE_BLOCK);
      for (guint i = 0; i < km_yaml_node_get_length (components); i++)
        {
          KmYamlNode *c = km_yaml_sequence_get (components, i);

          if ((int) i == self->joint_component)
            km_yaml_sequence_append (written, with_value (c, "frames", joint_frames (self)));
          else if ((int) i == self->link_component)
            km_yaml_sequence_append (written, with_value (c, "frames", link_frames (self)));
          else
            km_yaml_sequence_append (written, km_yaml_node_ref (c));
        }
      tree = with_value (self->root, "components", written);
    }
  return tree;
}

char *
km_body_motion_to_string (const KmBodyMotion *self,
                          gsize              *length)
{
  g_autoptr(KmYamlNode) tree = NULL;

  g_return_val_if_fail (self != NULL, NULL);

  tree = motion_tree (self);
  return km_yaml_emit_to_string (tree, length);
}

/* Building from an animation --------------------------------------------------------- */

/*
 * For each Choreonoid joint id 0 … *n_ids − 1, the DOF of @skeleton whose value it carries
 * (-1: none, written as 0). The numbering is the .body writer's (km_body_link_joint_ids()),
 * not km_skeleton_dofs_by_joint_id(): that one maps a motion read back onto the skeleton,
 * where a follower takes its master's value and a spherical joint has no id; a motion
 * written for Choreonoid needs a value for each of them.
 */
static int *
dofs_for_ids (const KmSkeleton *skeleton,
              guint            *n_ids)
{
  guint n = km_skeleton_get_n_joints (skeleton);
  g_autofree int *link_ids = km_body_link_joint_ids (skeleton);
  g_autoptr(GArray) dofs = g_array_new (FALSE, FALSE, sizeof (int));
  int none = -1;

  for (guint i = 0; i < n; i++)
    {
      const KmJoint *j = km_skeleton_get_joint (skeleton, i);

      for (guint k = 0; k < 3; k++)
        {
          int id = link_ids[3 * (gsize) i + k];

          if (id < 0)
            continue;
          /* Up to the largest id, a fixed joint's too: Choreonoid counts it in numJoints. */
          while (dofs->len <= (guint) id)
            g_array_append_val (dofs, none);
          if (j->n_dof > k && j->type != KM_JOINT_FREE)
            g_array_index (dofs, int, id) = j->dof_index + (int) k;
        }
    }
  *n_ids = dofs->len;
  if (dofs->len == 0)
    g_array_append_val (dofs, none);
  return (int *) g_array_free (g_steal_pointer (&dofs), FALSE);
}

/* Names and numbers unquoted, as Choreonoid writes them. */
static KmYamlNode *
plain (const char *text)
{
  return km_yaml_node_new_scalar (text, KM_YAML_STYLE_PLAIN);
}

/* A component mapping with the motion's rate and length and an empty `frames`, which
 * km_body_motion_to_string() fills from the values. */
static KmYamlNode *
new_component (const char *type,
               const char *content,
               double      frame_rate,
               guint       n_frames,
               guint       n_parts)
{
  KmYamlNode *c = km_yaml_node_new_mapping (KM_YAML_STYLE_BLOCK);

  km_yaml_mapping_append (c, "type", plain (type));
  km_yaml_mapping_append (c, "content", plain (content));
  km_yaml_mapping_append (c, "frameRate", km_yaml_node_new_number (frame_rate));
  km_yaml_mapping_append (c, "numFrames", km_yaml_node_new_int (n_frames));
  km_yaml_mapping_append (c, "numParts", km_yaml_node_new_int (n_parts));
  return c;
}

static KmYamlNode *
new_header (double frame_rate,
            guint  n_frames,
            guint  n_joints)
{
  KmYamlNode *root = km_yaml_node_new_mapping (KM_YAML_STYLE_BLOCK);
  KmYamlNode *components = km_yaml_node_new_sequence (KM_YAML_STYLE_BLOCK);
  KmYamlNode *joints, *links;

  km_yaml_mapping_append (root, "type", plain ("CompositeSeq"));
  km_yaml_mapping_append (root, "content", plain ("BodyMotion"));
  /* "2.0" as Choreonoid writes it, not the shortest "2". */
  km_yaml_mapping_append (root, "formatVersion", plain ("2.0"));
  km_yaml_mapping_append (root, "frameRate", km_yaml_node_new_number (frame_rate));
  km_yaml_mapping_append (root, "numFrames", km_yaml_node_new_int (n_frames));

  joints = new_component ("MultiValueSeq", "JointDisplacement", frame_rate, n_frames,
                          n_joints);
  km_yaml_mapping_append (joints, "frames", km_yaml_node_new_sequence (KM_YAML_STYLE_BLOCK));
  km_yaml_sequence_append (components, joints);
  links = new_component ("MultiSE3Seq", "LinkPosition", frame_rate, n_frames, 1);
  km_yaml_mapping_append (links, "format", plain ("XYZQWXYZ"));
  km_yaml_mapping_append (links, "frames", km_yaml_node_new_sequence (KM_YAML_STYLE_BLOCK));
  km_yaml_sequence_append (components, links);
  km_yaml_mapping_append (root, "components", components);
  return root;
}

/* The root link's world pose: see the header (a spherical root keeps only its X angle). */
static void
root_link_pose (const KmSkeleton  *skeleton,
                const double      *q,
                const KmTransform *root_pose,
                KmTransform       *out)
{
  const KmJoint *root = km_skeleton_get_joint (skeleton, 0);
  double own[3] = { 0, 0, 0 };
  KmTransform local;

  if (root->dof_index >= 0)
    own[0] = q[root->dof_index];
  km_joint_local_transform (root, own, &local);
  km_transform_mul (root_pose, &local, out);
}

/**
 * km_body_motion_new_from_animation:
 * @skeleton: the model @animation was solved for
 * @animation: frames of @skeleton's state vector (km_animation_new() for @skeleton)
 * @frame_rate: frames per second, above 0 and at most KM_BODY_MOTION_MAX_RATE
 * @root_pose: (nullable): where the body stands in the world; NULL: identity
 *
 * See the header for the joint numbering and the root link.
 *
 * Returns: (transfer full) (nullable): the motion, or NULL with KM_PARSE_ERROR_LIMIT when
 *   the model needs more joint values than a body motion may hold or @frame_rate is below
 *   the least the reader takes (a frame every 1000 s: KM_BODY_MOTION_MIN_RATE)
 */
KmBodyMotion *
km_body_motion_new_from_animation (const KmSkeleton   *skeleton,
                                   const KmAnimation  *animation,
                                   double              frame_rate,
                                   const KmTransform  *root_pose,
                                   GError            **error)
{
  g_autoptr(KmBodyMotion) self = NULL;
  g_autofree int *dofs = NULL;
  g_autofree double *q = NULL;
  KmTransform identity;
  guint n_dof, n_ids;

  g_return_val_if_fail (skeleton != NULL, NULL);
  g_return_val_if_fail (animation != NULL, NULL);
  g_return_val_if_fail (km_animation_get_n_dof (animation) == km_skeleton_get_n_dof (skeleton),
                        NULL);
  g_return_val_if_fail (frame_rate > 0 && frame_rate <= KM_BODY_MOTION_MAX_RATE, NULL);
  g_return_val_if_fail (km_skeleton_get_n_joints (skeleton) > 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  /* Nothing the reader refuses (read_frame_rate()) is made. */
  if (frame_rate < KM_BODY_MOTION_MIN_RATE)
    {
      g_set_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT,
                   /* Translators: frames per second, twice */
                   _("a body motion cannot have %g frames per second (at least %g)"),
                   frame_rate, KM_BODY_MOTION_MIN_RATE);
      return NULL;
    }
  dofs = dofs_for_ids (skeleton, &n_ids);
  /* Sparse ids (one joint with id 9999) could make a long motion far larger than the
   * animation it comes from: bound the values, as the reader does through the YAML node
   * limit, though more generously (64 Mi values, 512 MiB). */
  if (n_ids > KM_BODY_MOTION_MAX_PARTS ||
      (gsize) km_animation_get_n_frames (animation) * n_ids > (gsize) 1 << 26)
    {
      g_set_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT,
                   /* Translators: joint values per frame, then frames */
                   _("a body motion of %u joint values per frame and %u frames is too large "
                     "to write (at most %u values per frame, 67108864 in all)"),
                   n_ids, km_animation_get_n_frames (animation), KM_BODY_MOTION_MAX_PARTS);
      return NULL;
    }
  if (root_pose == NULL)
    {
      km_transform_identity (&identity);
      root_pose = &identity;
    }

  self = g_new0 (KmBodyMotion, 1);
  g_atomic_ref_count_init (&self->ref_count);
  self->format_version = 2.0;
  self->frame_rate = frame_rate;
  self->n_frames = km_animation_get_n_frames (animation);
  self->root = new_header (frame_rate, self->n_frames, n_ids);
  self->joint_component = 0;
  self->n_joints = n_ids;
  self->joints = g_new0 (double, MAX ((gsize) self->n_frames * n_ids, 1));
  self->link_component = 1;
  self->n_links = 1;
  self->link_format = LINK_FORMAT_XYZQWXYZ;
  self->links = g_new (KmTransform, MAX (self->n_frames, 1));

  n_dof = km_skeleton_get_n_dof (skeleton);
  q = g_new0 (double, MAX (n_dof, 1));
  for (guint f = 0; f < self->n_frames; f++)
    {
      double *row = self->joints + (gsize) f * n_ids;

      memcpy (q, km_animation_get_frame (animation, f), n_dof * sizeof *q);
      /* A follower at the value its master puts it at, whatever the frame holds. */
      if (km_skeleton_has_mimic (skeleton))
        km_skeleton_apply_mimic (skeleton, q);
      for (guint i = 0; i < n_ids; i++)
        row[i] = dofs[i] >= 0 ? q[dofs[i]] : 0;
      root_link_pose (skeleton, q, root_pose, &self->links[f]);
    }
  return g_steal_pointer (&self);
}

/* Reading back ------------------------------------------------------------------------ */

/*
 * The numbers and lists in a frame of @self's frames that the reader counts against its
 * limit (KM_YAML_DEFAULT_MAX_VALUES: km_yaml_parse_with_tables() counts each item of a
 * table, a list as one): for the joint values, the frame's list and each value; for the
 * link poses, the frame's list of links and, per link, its list and its numbers (the root
 * link alone: 9).
 */
static guint64
frame_values (const KmBodyMotion *self)
{
  guint64 n = 0;

  if (self->joints != NULL)
    n += 1 + (guint64) self->n_joints;
  if (self->link_component >= 0)
    n += 1 + (guint64) self->n_links * (1 + link_part_length (self));
  return n;
}

/* Whether a file of @size bytes and @n_frames frames of @n_values numbers and lists in
 * all is one the reader reads back (km_body_motion_load_file()); else @error names the
 * limit it exceeds (the frames first, then the values: a count of 0 checks nothing). */
static gboolean
check_readable (guint64   size,
                guint64   n_frames,
                guint64   n_values,
                GError  **error)
{
  if (n_frames > KM_BODY_MOTION_MAX_FRAMES)
    km_format_set_save_limit_error (error, KM_FILE_KIND_BODY_MOTION, n_frames,
                                    KM_FORMAT_LIMIT_FRAMES, KM_BODY_MOTION_MAX_FRAMES);
  else if (n_values > KM_YAML_DEFAULT_MAX_VALUES)
    km_format_set_save_limit_error (error, KM_FILE_KIND_BODY_MOTION, n_frames,
                                    KM_FORMAT_LIMIT_VALUES, KM_YAML_DEFAULT_MAX_VALUES);
  else if (size > KM_FORMAT_MAX_FILE_SIZE)
    km_format_set_save_limit_error (error, KM_FILE_KIND_BODY_MOTION, n_frames,
                                    KM_FORMAT_LIMIT_BYTES, KM_FORMAT_MAX_FILE_SIZE);
  else
    return TRUE;
  return FALSE;
}

/* The body motion of @n_frames frames for @skeleton with every number in its frames one
 * character (the joint values 0, the root link at the origin: 0, 0, 0, 1, 0, 0, 0), the
 * least text a motion of as many frames for it takes; @size (out): that text's length. */
static KmBodyMotion *
least_motion (KmSkeleton  *skeleton,
              guint        n_frames,
              double       frame_rate,
              guint64     *size,
              GError     **error)
{
  g_autoptr(KmAnimation) animation = km_animation_new (skeleton, n_frames);
  g_autofree char *text = NULL;
  KmBodyMotion *motion;

  motion = km_body_motion_new_from_animation (skeleton, animation, frame_rate, NULL, error);
  if (motion == NULL)
    return NULL;   /* more joint values per frame than a body motion holds, too slow */
  for (gsize f = 0; f < (gsize) motion->n_frames * motion->n_links; f++)
    km_transform_identity (&motion->links[f]);
  text = km_body_motion_to_string (motion, NULL);
  *size = strlen (text);
  return motion;
}

/**
 * km_body_motion_check_size:
 * @skeleton: the model
 * @frame_rate: frames per second, above 0 and at most KM_BODY_MOTION_MAX_RATE
 * @n_frames: the frames of an animation for @skeleton
 * @error: where the error goes
 *
 * Whether the body motion km_body_motion_new_from_animation() makes of @n_frames frames
 * for @skeleton could be read back: see the header.
 *
 * Returns: %TRUE when it could
 */
gboolean
km_body_motion_check_size (KmSkeleton  *skeleton,
                           double       frame_rate,
                           guint64      n_frames,
                           GError     **error)
{
  g_autoptr(KmBodyMotion) one = NULL;
  g_autoptr(KmBodyMotion) two = NULL;
  guint64 size_one = 0, size_two = 0, size;

  g_return_val_if_fail (skeleton != NULL, FALSE);
  g_return_val_if_fail (frame_rate > 0 && frame_rate <= KM_BODY_MOTION_MAX_RATE, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (n_frames == 0)
    return TRUE;
  if ((one = least_motion (skeleton, 1, frame_rate, &size_one, error)) == NULL ||
      (two = least_motion (skeleton, 2, frame_rate, &size_two, error)) == NULL)
    return FALSE;
  size = size_one + (n_frames - 1) * (size_two - size_one);
  return check_readable (size, n_frames, n_frames * frame_values (one), error);
}

typedef struct
{
  const KmBodyMotion *motion;
  const char         *path;
  KmFormatSink       *out;     /* the file's; NULL: the text only measured */
  guint64             size;    /* written so far */
} MotionSave;

/* Counts what goes to the file: past what Kinema reads back, the save stops (the emitter
 * makes no more of the text). */
static gboolean
count_flush (const char *data,
             gsize       length,
             gpointer    user_data)
{
  MotionSave *save = user_data;

  save->size += length;
  if (save->size > KM_FORMAT_MAX_FILE_SIZE)
    {
      errno = EFBIG;
      return FALSE;
    }
  return save->out == NULL || km_format_sink_write (save->out, data, (gssize) length);
}

/* The motion's text to @out (NULL: only measured); FALSE with @error for a text too long
 * to read back, FALSE alone when a write to @out failed. */
static gboolean
emit_motion (MotionSave    *save,
             KmFormatSink  *out,
             GError       **error)
{
  g_autoptr(KmYamlNode) tree = motion_tree (save->motion);
  KmFormatSink *counted;

  save->out = out;
  save->size = 0;
  counted = km_format_sink_new (count_flush, save);
  km_yaml_emit_to_sink (tree, counted);
  km_format_sink_free (counted);
  if (!check_readable (save->size, save->motion->n_frames, 0, error))
    {
      km_parse_error_prefix (error, save->path, (KmSourcePos) { 0, 0 });
      return FALSE;
    }
  return out == NULL || !km_format_sink_failed (out);
}

static gboolean
write_motion (KmFormatSink  *sink,
              gpointer       user_data,
              GError       **error)
{
  return emit_motion (user_data, sink, error);
}

/* Writes atomically (km_format_save_stream(), the text written as it is made); refuses a
 * motion that Kinema could not read back (km_body_motion_check_size()), writing nothing
 * to a target written in place. */
gboolean
km_body_motion_save (const KmBodyMotion  *self,
                     const char          *path,
                     GError             **error)
{
  MotionSave save = { self, path, NULL, 0 };

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!check_readable (0, self->n_frames, (guint64) self->n_frames * frame_values (self),
                       error))
    {
      km_parse_error_prefix (error, path, (KmSourcePos) { 0, 0 });
      return FALSE;
    }
  /* Standard output, a pipe or a device keeps what is written to it: a text found too
   * long half-way would be left there cut off. Measured first, it is not written at all
   * (a file's temporary copy is removed instead). */
  if (km_format_save_writes_in_place (path) && !emit_motion (&save, NULL, error))
    return FALSE;
  return km_format_save_stream (path, 0666, write_motion, &save, error);
}

/* The registry ------------------------------------------------------------------------ */

static gpointer
format_load (const char *path,
             GBytes     *contents,
             GError    **error)
{
  return km_body_motion_load (path, contents, error);
}

static void
format_free_result (gpointer result)
{
  km_body_motion_unref (result);
}

static void
format_describe (gpointer  result,
                 GString  *out)
{
  km_body_motion_describe (result, out);
}

const KmFormat km_format_body_motion = {
  .name = KM_BODY_MOTION_FORMAT,
  .kind = KM_FILE_KIND_BODY_MOTION,
  .description = N_("Choreonoid body motion (.seq)"),
  .sniff = km_body_motion_sniff,
  .load = format_load,
  .free_result = format_free_result,
  .describe = format_describe,
};
