/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-pose-seq"

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "km-pose-seq.h"
#include "km-error.h"
#include "km-format.h"
#include "km-ik.h"
#include "km-yaml.h"

/* Joint ids above this are refused: Choreonoid numbers joints 0 … n-1. */
#define MAX_JOINT_ID 1000000
/* How far a rotation matrix may be from orthonormal (the files hold 9 digits). */
#define ROTATION_TOLERANCE 1e-3
/* The IK budget per link track and frame: it starts next to the answer. */
#define TRACK_MAX_ITERATIONS 200

struct _KmPoseSeq
{
  gatomicrefcount  ref_count;
  char            *name;
  char            *target_body;
  KmPoseSeqKey    *keys;
  guint            n_keys;
  guint            n_skipped;
  gboolean         degrees;     /* angleUnit: degree: revolute joints' q in degrees */
};

G_DEFINE_BOXED_TYPE (KmPoseSeq, km_pose_seq, km_pose_seq_ref, km_pose_seq_unref)

static void
key_clear (KmPoseSeqKey *key)
{
  g_clear_pointer (&key->joints, g_free);
  g_clear_pointer (&key->q, g_free);
  for (guint i = 0; i < key->n_links; i++)
    g_free (key->links[i].name);
  g_clear_pointer (&key->links, g_free);
}

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

/* The camelCase keys of Choreonoid 1.x and the snake_case ones of Choreonoid 2 (both are
 * read; Kinema writes camelCase, which Choreonoid 2 reads too). */
static const char * const name_keys[] = { "name", NULL };
static const char * const target_body_keys[] = { "targetBody", "target_body", NULL };
static const char * const angle_unit_keys[] = { "angleUnit", "angle_unit", NULL };
static const char * const ik_links_keys[] = { "ikLinks", "ik_links", NULL };
static const char * const is_base_link_keys[] = { "isBaseLink", "is_base_link", NULL };
static const char * const is_touching_keys[] = { "isTouching", "is_touching", NULL };
static const char * const max_transition_time_keys[] = {
  "maxTransitionTime", "max_transition_time", NULL
};

/* An optional string value of the first of @keys; FALSE with @error when it is there and no string. */
static gboolean
optional_string (const KmYamlNode   *map,
                 const char * const *keys,
                 char              **out,
                 GError            **error)
{
  KmYamlNode *v = km_yaml_mapping_lookup_any (map, keys);
  const char *s;

  if (v == NULL)
    return TRUE;
  if ((s = km_yaml_expect_string (v, error)) == NULL)
    return FALSE;
  *out = g_strdup (s);
  return TRUE;
}

static gboolean
optional_bool (const KmYamlNode   *map,
               const char * const *keys,
               gboolean           *out,
               GError            **error)
{
  KmYamlNode *v = km_yaml_mapping_lookup_any (map, keys);

  return v == NULL || km_yaml_expect_bool (v, out, error);
}

static gboolean
read_rotation (const KmYamlNode *node,
               KmMat3           *out,
               GError          **error)
{
  double m[9];

  if (!km_yaml_expect_numbers (node, m, 9, error))
    return FALSE;
  memcpy (out->m, m, sizeof m);
  if (!km_mat3_is_rotation (out, ROTATION_TOLERANCE))
    return error_at (error, KM_PARSE_ERROR_INVALID, node,
                     _("expected a rotation matrix (9 numbers, row-major)"));
  return TRUE;
}

static gboolean
read_link (const KmYamlNode *node,
           KmPoseSeqLink    *link,
           GError          **error)
{
  KmYamlNode *v;
  const char *name;
  gint64 index;

  link->index = -1;
  if (!km_yaml_expect_mapping (node, error))
    return FALSE;
  if ((v = km_yaml_expect_key (node, "name", error)) == NULL ||
      (name = km_yaml_expect_string (v, error)) == NULL)
    return FALSE;
  link->name = g_strdup (name);
  if ((v = km_yaml_mapping_lookup (node, "index")) != NULL)
    {
      if (!km_yaml_expect_int (v, &index, error))
        return FALSE;
      if (index < 0 || index > MAX_JOINT_ID)
        return error_at (error, KM_PARSE_ERROR_INVALID, v,
                         _("expected a link index ≥ 0"));
      link->index = (int) index;
    }
  if (!optional_bool (node, is_base_link_keys, &link->is_base_link, error) ||
      !optional_bool (node, is_touching_keys, &link->is_touching, error))
    return FALSE;
  if ((v = km_yaml_expect_key (node, "translation", error)) == NULL ||
      !km_yaml_expect_vec3 (v, &link->translation, error))
    return FALSE;
  if ((v = km_yaml_expect_key (node, "rotation", error)) == NULL ||
      !read_rotation (v, &link->rotation, error))
    return FALSE;
  return TRUE;
}

static gboolean
read_pose (const KmYamlNode *refer,
           KmPoseSeqKey     *key,
           GError          **error)
{
  KmYamlNode *joints = km_yaml_mapping_lookup (refer, "joints");
  KmYamlNode *q = km_yaml_mapping_lookup (refer, "q");
  KmYamlNode *links, *zmp;

  key->base_link = -1;
  if (joints != NULL || q != NULL)
    {
      g_autoptr(GHashTable) seen = g_hash_table_new (NULL, NULL);
      guint n_q = 0;

      if (joints == NULL)
        joints = km_yaml_expect_key (refer, "joints", error);
      if (joints == NULL || !km_yaml_expect_sequence (joints, error))
        return FALSE;
      if (km_yaml_node_get_length (joints) > KM_POSE_SEQ_MAX_JOINTS)
        {
          g_autofree char *message = g_strdup_printf (_("expected at most %u joints"),
                                                      (guint) KM_POSE_SEQ_MAX_JOINTS);

          return error_at (error, KM_PARSE_ERROR_LIMIT, joints, message);
        }
      key->n_joints = km_yaml_node_get_length (joints);
      key->joints = g_new0 (int, MAX (key->n_joints, 1));
      for (guint i = 0; i < key->n_joints; i++)
        {
          KmYamlNode *id_node = km_yaml_sequence_get (joints, i);
          gint64 id;

          if (!km_yaml_expect_int (id_node, &id, error))
            return FALSE;
          if (id < 0 || id > MAX_JOINT_ID)
            return error_at (error, KM_PARSE_ERROR_INVALID, id_node,
                             _("expected a joint id ≥ 0"));
          if (g_hash_table_contains (seen, GINT_TO_POINTER ((int) id + 1)))
            return error_at (error, KM_PARSE_ERROR_INVALID, id_node,
                             _("expected each joint once in a pose"));
          g_hash_table_add (seen, GINT_TO_POINTER ((int) id + 1));
          key->joints[i] = (int) id;
        }
      if (q == NULL && (q = km_yaml_expect_key (refer, "q", error)) == NULL)
        return FALSE;
      key->q = km_yaml_expect_number_list (q, KM_POSE_SEQ_MAX_JOINTS, &n_q, error);
      if (key->q == NULL)
        return FALSE;
      if (n_q != key->n_joints)
        {
          g_autofree char *message =
            g_strdup_printf (_("expected %u values, one per joint"), key->n_joints);

          return error_at (error, KM_PARSE_ERROR_INVALID, q, message);
        }
    }

  if ((links = km_yaml_mapping_lookup_any (refer, ik_links_keys)) != NULL)
    {
      if (!km_yaml_expect_sequence (links, error))
        return FALSE;
      if (km_yaml_node_get_length (links) > KM_POSE_SEQ_MAX_LINKS)
        {
          g_autofree char *message = g_strdup_printf (_("expected at most %u links"),
                                                      (guint) KM_POSE_SEQ_MAX_LINKS);

          return error_at (error, KM_PARSE_ERROR_LIMIT, links, message);
        }
      key->links = g_new0 (KmPoseSeqLink, MAX (km_yaml_node_get_length (links), 1));
      for (guint i = 0; i < km_yaml_node_get_length (links); i++)
        {
          KmYamlNode *node = km_yaml_sequence_get (links, i);

          key->n_links = i + 1;
          if (!read_link (node, &key->links[i], error))
            return FALSE;
          if (key->links[i].is_base_link)
            {
              if (key->base_link >= 0)
                return error_at (error, KM_PARSE_ERROR_INVALID,
                                 km_yaml_mapping_lookup_any (node, is_base_link_keys),
                                 _("expected one base link per pose"));
              key->base_link = (int) i;
            }
        }
    }

  if ((zmp = km_yaml_mapping_lookup (refer, "zmp")) != NULL)
    {
      if (!km_yaml_expect_vec3 (zmp, &key->zmp, error))
        return FALSE;
      key->has_zmp = TRUE;
    }
  return TRUE;
}

/* Reads one ref into @key; *@skipped when it is no pose (the first such ref is reported:
 * a lip-sync sequence has thousands). */
static gboolean
read_ref (const KmYamlNode *node,
          double            previous_time,
          gboolean          first_skipped,
          KmPoseSeqKey     *key,
          gboolean         *skipped,
          GError          **error)
{
  KmYamlNode *v, *refer, *type;
  const char *type_name;

  *skipped = FALSE;
  if (!km_yaml_expect_mapping (node, error))
    return FALSE;
  key->pos = km_yaml_node_get_pos (node);
  if ((v = km_yaml_expect_key (node, "time", error)) == NULL ||
      !km_yaml_expect_number (v, &key->time, error))
    return FALSE;
  if (key->time < 0 || key->time > KM_POSE_SEQ_MAX_TIME)
    {
      g_autofree char *message = g_strdup_printf (_("expected a time from 0 to %g s"),
                                                  KM_POSE_SEQ_MAX_TIME);

      return error_at (error, KM_PARSE_ERROR_INVALID, v, message);
    }
  if (key->time < previous_time)
    {
      g_autofree char *message =
        g_strdup_printf (_("expected a time ≥ %g s, the time of the ref before"), previous_time);

      return error_at (error, KM_PARSE_ERROR_INVALID, v, message);
    }
  if ((v = km_yaml_mapping_lookup_any (node, max_transition_time_keys)) != NULL)
    {
      if (!km_yaml_expect_number (v, &key->max_transition_time, error))
        return FALSE;
      if (key->max_transition_time < 0)
        return error_at (error, KM_PARSE_ERROR_INVALID, v,
                         _("expected a transition time ≥ 0"));
    }
  if ((refer = km_yaml_expect_key (node, "refer", error)) == NULL ||
      !km_yaml_expect_mapping (refer, error))
    return FALSE;
  if ((type = km_yaml_mapping_lookup (refer, "type")) == NULL)
    return error_at (error, KM_PARSE_ERROR_INVALID, refer,
                     _("expected a “type” key in “refer” (“type: Pose” for a pose)"));
  if ((type_name = km_yaml_expect_string (type, error)) == NULL)
    return FALSE;
  if (strcmp (type_name, "Pose") != 0)
    {
      if (first_skipped)
        km_parse_warning (km_yaml_node_get_file (type), km_yaml_node_get_pos (type),
                          _("a “%s” ref is skipped, as is every other ref that is no pose: "
                            "only poses are played"), type_name);
      *skipped = TRUE;
      return TRUE;
    }
  return read_pose (refer, key, error);
}

int
km_pose_seq_sniff (const char *data,
                   gsize       length)
{
  if (data == NULL || !km_yaml_sniff_top_key (data, length, "type"))
    return 0;
  return g_strstr_len (data, MIN (length, 4096), "PoseSeq") != NULL ? 90 : 0;
}

/**
 * km_pose_seq_load:
 * @path: the path as given, for messages
 * @contents: the file's bytes
 *
 * Returns: (transfer full) (nullable): the sequence, or NULL with a KM_PARSE_ERROR
 */
KmPoseSeq *
km_pose_seq_load (const char  *path,
                  GBytes      *contents,
                  GError     **error)
{
  g_autoptr(KmYamlNode) root = NULL;
  g_autoptr(KmPoseSeq) self = NULL;
  KmYamlNode *v, *refs;
  const char *type;
  const char *data;
  double previous_time = 0;
  gsize length;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (contents != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  data = g_bytes_get_data (contents, &length);
  root = km_yaml_parse (path, data != NULL ? data : "", length, NULL, error);
  if (root == NULL || !km_yaml_expect_mapping (root, error))
    return NULL;
  if ((v = km_yaml_mapping_lookup (root, "type")) == NULL)
    {
      error_at (error, KM_PARSE_ERROR_INVALID, root,
                _("expected a “type: PoseSeq” key, which a Choreonoid pose sequence starts "
                  "with"));
      return NULL;
    }
  if ((type = km_yaml_expect_string (v, error)) == NULL)
    return NULL;
  if (strcmp (type, "PoseSeq") != 0)
    {
      error_at (error, KM_PARSE_ERROR_INVALID, v, _("expected “PoseSeq”"));
      return NULL;
    }

  self = g_new0 (KmPoseSeq, 1);
  g_atomic_ref_count_init (&self->ref_count);
  if (!optional_string (root, name_keys, &self->name, error) ||
      !optional_string (root, target_body_keys, &self->target_body, error))
    return NULL;
  /* As in Choreonoid's other YAML files: degrees apply to revolute joints' values. */
  if ((v = km_yaml_mapping_lookup_any (root, angle_unit_keys)) != NULL)
    {
      const char *unit = km_yaml_expect_string (v, error);

      if (unit == NULL)
        return NULL;
      if (g_ascii_strcasecmp (unit, "degree") == 0)
        self->degrees = TRUE;
      else if (g_ascii_strcasecmp (unit, "radian") != 0)
        {
          error_at (error, KM_PARSE_ERROR_INVALID, v, _("expected “degree” or “radian”"));
          return NULL;
        }
    }
  if ((refs = km_yaml_expect_key (root, "refs", error)) == NULL ||
      !km_yaml_expect_sequence (refs, error))
    return NULL;
  if (km_yaml_node_get_length (refs) > KM_POSE_SEQ_MAX_KEYS)
    {
      g_autofree char *message = g_strdup_printf (_("expected at most %u refs"),
                                                  (guint) KM_POSE_SEQ_MAX_KEYS);

      error_at (error, KM_PARSE_ERROR_LIMIT, refs, message);
      return NULL;
    }

  self->keys = g_new0 (KmPoseSeqKey, MAX (km_yaml_node_get_length (refs), 1));
  for (guint i = 0; i < km_yaml_node_get_length (refs); i++)
    {
      KmPoseSeqKey *key = &self->keys[self->n_keys];
      gboolean skipped;

      /* Counted before reading, so that a half-read key is freed with the sequence. */
      self->n_keys++;
      if (!read_ref (km_yaml_sequence_get (refs, i), previous_time, self->n_skipped == 0, key,
                     &skipped, error))
        return NULL;
      previous_time = key->time;
      if (skipped)
        {
          key_clear (key);
          memset (key, 0, sizeof *key);
          self->n_keys--;
          self->n_skipped++;
        }
    }
  if (self->name == NULL)
    self->name = g_strdup ("");
  return g_steal_pointer (&self);
}

KmPoseSeq *
km_pose_seq_load_file (const char  *path,
                       GError     **error)
{
  g_autoptr(GBytes) contents = NULL;

  g_return_val_if_fail (path != NULL, NULL);

  contents = km_format_read_file (path, KM_FORMAT_MAX_FILE_SIZE, error);
  if (contents == NULL)
    return NULL;
  return km_pose_seq_load (path, contents, error);
}

KmPoseSeq *
km_pose_seq_ref (KmPoseSeq *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

void
km_pose_seq_unref (KmPoseSeq *self)
{
  g_return_if_fail (self != NULL);

  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;
  for (guint i = 0; i < self->n_keys; i++)
    key_clear (&self->keys[i]);
  g_free (self->keys);
  g_free (self->name);
  g_free (self->target_body);
  g_free (self);
}

const char *
km_pose_seq_get_name (const KmPoseSeq *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->name;
}

const char *
km_pose_seq_get_target_body (const KmPoseSeq *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->target_body;
}

guint
km_pose_seq_get_n_keys (const KmPoseSeq *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->n_keys;
}

const KmPoseSeqKey *
km_pose_seq_get_key (const KmPoseSeq *self,
                     guint            index)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (index < self->n_keys, NULL);
  return &self->keys[index];
}

double
km_pose_seq_get_duration (const KmPoseSeq *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->n_keys > 0 ? self->keys[self->n_keys - 1].time : 0;
}

guint
km_pose_seq_get_n_skipped (const KmPoseSeq *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->n_skipped;
}

void
km_pose_seq_describe (const KmPoseSeq *self,
                      GString         *out)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];

  g_return_if_fail (self != NULL);
  g_return_if_fail (out != NULL);

  g_string_append_printf (out, "format=%s\n", KM_POSE_SEQ_FORMAT);
  g_string_append (out, "name=");
  km_format_append_field (out, self->name);
  g_string_append_c (out, '\n');
  for (guint i = 0; i < self->n_keys; i++)
    {
      const KmPoseSeqKey *key = &self->keys[i];
      const char *base = key->base_link >= 0 ? key->links[key->base_link].name : "-";

      km_yaml_format_number (key->time, buffer, sizeof buffer);
      g_string_append_printf (out, "key %u: time=%s joints=%u links=%u base=", i, buffer,
                              key->n_joints, key->n_links);
      km_format_append_field (out, base);
      if (key->max_transition_time > 0)
        {
          km_yaml_format_number (key->max_transition_time, buffer, sizeof buffer);
          g_string_append_printf (out, " max_transition_time=%s", buffer);
        }
      g_string_append_c (out, '\n');
    }
  if (self->n_skipped > 0)
    g_string_append_printf (out, "skipped=%u\n", self->n_skipped);
  km_yaml_format_number (km_pose_seq_get_duration (self), buffer, sizeof buffer);
  g_string_append_printf (out, "keys=%u duration=%s target_body=", self->n_keys, buffer);
  km_format_append_field (out, self->target_body != NULL ? self->target_body : "-");
  g_string_append_c (out, '\n');
}

static gpointer
format_load (const char *path,
             GBytes     *contents,
             GError    **error)
{
  return km_pose_seq_load (path, contents, error);
}

static void
format_free_result (gpointer result)
{
  km_pose_seq_unref (result);
}

static void
format_describe (gpointer  result,
                 GString  *out)
{
  km_pose_seq_describe (result, out);
}

const KmFormat km_format_pose_seq = {
  .name = KM_POSE_SEQ_FORMAT,
  .kind = KM_FILE_KIND_POSE_SEQ,
  .description = N_("Choreonoid pose sequence (.pseq)"),
  .sniff = km_pose_seq_sniff,
  .load = format_load,
  .free_result = format_free_result,
  .describe = format_describe,
};

/* Interpolation ----------------------------------------------------------------------- */

typedef struct
{
  double t;
  double v;
  double m;   /* tangent, per second */
} Knot;

/* Appends the knot (@t, @v) of a key with @max_transition_time: when the key limits its
 * transition, the value before it is held until t − max_transition_time (an extra knot). */
static void
add_knot (GArray *knots,
          double  t,
          double  v,
          double  max_transition_time)
{
  Knot k = { t, v, 0 };

  if (knots->len > 0)
    {
      Knot *last = &g_array_index (knots, Knot, knots->len - 1);

      if (max_transition_time > 0 && t - max_transition_time > last->t)
        {
          Knot hold = { t - max_transition_time, last->v, 0 };

          g_array_append_val (knots, hold);
        }
      else if (t <= g_array_index (knots, Knot, knots->len - 1).t)
        {
          /* Two keys at one time: the later one wins. */
          g_array_index (knots, Knot, knots->len - 1).v = v;
          return;
        }
    }
  g_array_append_val (knots, k);
}

/*
 * Tangents for a C1 cubic Hermite spline: zero at the first and last knot; inside, the
 * Fritsch–Butland weighted harmonic mean of the two neighbouring slopes, zero where they
 * differ in sign or one is flat. Each segment then stays within its two knot values (no
 * overshoot, which a Catmull–Rom spline would give at a foot landing) and a held value
 * (maxTransitionTime) stays flat. Choreonoid's PoseSeqInterpolator uses natural cubic
 * splines, which overshoot; this is Kinema's choice.
 */
static void
compute_tangents (GArray *knots)
{
  Knot *k = (Knot *) knots->data;

  for (guint i = 0; i < knots->len; i++)
    {
      double h0, h1, d0, d1;

      k[i].m = 0;
      if (i == 0 || i + 1 >= knots->len)
        continue;
      h0 = k[i].t - k[i - 1].t;
      h1 = k[i + 1].t - k[i].t;
      d0 = (k[i].v - k[i - 1].v) / h0;
      d1 = (k[i + 1].v - k[i].v) / h1;
      if (d0 * d1 <= 0)
        continue;
      k[i].m = 3 * (h0 + h1) / ((2 * h1 + h0) / d0 + (h1 + 2 * h0) / d1);
    }
}

/* The segment [i, i+1] holding @t: i = -1 before the first knot, len-1 at or after the
 * last. */
static int
find_segment (const GArray *knots,
              double        t)
{
  const Knot *k = (const Knot *) knots->data;
  int lo = 0, hi = (int) knots->len - 1;

  if (knots->len == 0 || t < k[0].t)
    return -1;
  while (lo < hi)
    {
      int mid = (lo + hi + 1) / 2;

      if (k[mid].t <= t)
        lo = mid;
      else
        hi = mid - 1;
    }
  return lo;
}

static double
hermite (const GArray *knots,
         double        t)
{
  const Knot *k = (const Knot *) knots->data;
  int i = find_segment (knots, t);
  double h, s, s2, s3;

  if (i < 0)
    return k[0].v;
  if (i + 1 >= (int) knots->len || t == k[i].t)
    return k[i].v;
  h = k[i + 1].t - k[i].t;
  s = (t - k[i].t) / h;
  s2 = s * s;
  s3 = s2 * s;
  return (2 * s3 - 3 * s2 + 1) * k[i].v + (s3 - 2 * s2 + s) * h * k[i].m
         + (-2 * s3 + 3 * s2) * k[i + 1].v + (s3 - s2) * h * k[i + 1].m;
}

typedef struct
{
  double t;
  KmQuat q;
} RotKnot;

static KmQuat
slerp_at (const GArray *knots,
          double        t)
{
  const RotKnot *k = (const RotKnot *) knots->data;
  int lo = 0, hi = (int) knots->len - 1;

  if (t <= k[0].t)
    return k[0].q;
  while (lo < hi)
    {
      int mid = (lo + hi + 1) / 2;

      if (k[mid].t <= t)
        lo = mid;
      else
        hi = mid - 1;
    }
  if (lo + 1 >= (int) knots->len || t == k[lo].t)
    return k[lo].q;
  return km_quat_slerp (k[lo].q, k[lo + 1].q, (t - k[lo].t) / (k[lo + 1].t - k[lo].t));
}

static void
add_rot_knot (GArray *knots,
              double  t,
              KmQuat  q,
              double  max_transition_time)
{
  RotKnot k = { t, q };

  if (knots->len > 0)
    {
      RotKnot *last = &g_array_index (knots, RotKnot, knots->len - 1);

      if (max_transition_time > 0 && t - max_transition_time > last->t)
        {
          RotKnot hold = { t - max_transition_time, last->q };

          g_array_append_val (knots, hold);
        }
      else if (t <= last->t)
        {
          last->q = q;
          return;
        }
    }
  g_array_append_val (knots, k);
}

static void
free_knots (gpointer knots)
{
  if (knots != NULL)
    g_array_unref (knots);
}

/*
 * The ikLinks other than the base (feet, hands) have their own tracks: at each key that
 * lists one, its world pose, interpolated like the joints (positions on the same splines,
 * attitudes by slerp, held before a key with maxTransitionTime, held before the first and
 * after the last key that lists it). Each frame the chain from the root to the link is
 * solved with Kinema's IK for the track's pose, seeded with the interpolated joint values:
 * a touching foot stays planted while the waist moves, a swinging one follows its keyed
 * path. At a key whose joint values cover the chain the track takes the pose those values
 * give (not the rounded pose the file records), so the key's joint values stay exact.
 */
typedef struct
{
  int       link;       /* topological joint index */
  GArray   *pos[3];     /* Knot */
  GArray   *rot;        /* RotKnot */
} LinkTrack;

static void
link_track_free (gpointer data)
{
  LinkTrack *track = data;

  for (guint c = 0; c < 3; c++)
    g_array_unref (track->pos[c]);
  g_array_unref (track->rot);
  g_free (track);
}

/* Which degrees of freedom are revolute joints' (n_dof entries). */
static gboolean *
revolute_dofs (KmSkeleton *skeleton)
{
  gboolean *angular = g_new0 (gboolean, MAX (km_skeleton_get_n_dof (skeleton), 1));

  for (guint j = 0; j < km_skeleton_get_n_joints (skeleton); j++)
    {
      const KmJoint *joint = km_skeleton_get_joint (skeleton, j);

      if (joint->type == KM_JOINT_REVOLUTE && joint->dof_index >= 0)
        angular[joint->dof_index] = TRUE;
    }
  return angular;
}

/* The joint that moves the ikLinks entry's link @name. Choreonoid finds it by link name
 * (Body::link()), and a .body link's joint_name may be another link's name (link ARM with
 * joint HAND, link HAND with joint WRIST: the link HAND is the one meant), so link names
 * come first (km_skeleton_find_effector tries joint names first); a name that is no
 * link's, only a joint's, still means that joint, as it did. Returns -1 when neither. */
static int
find_link (KmSkeleton *skeleton,
           const char *name)
{
  for (guint j = 0; j < km_skeleton_get_n_joints (skeleton); j++)
    if (g_strcmp0 (km_joint_get_link_name (km_skeleton_get_joint (skeleton, j)), name) == 0)
      return (int) j;
  return km_skeleton_find_joint (skeleton, name);
}

/* Whether @key lists every joint with a degree of freedom from the root to @link. */
static gboolean
key_covers_chain (const KmPoseSeqKey *key,
                  KmSkeleton         *skeleton,
                  int                 link)
{
  for (int j = link; j >= 0; j = km_skeleton_get_joint (skeleton, j)->parent)
    {
      const KmJoint *joint = km_skeleton_get_joint (skeleton, j);
      gboolean listed = FALSE;

      if (joint->n_dof == 0 || joint->mimic >= 0)
        continue;
      for (guint i = 0; i < key->n_joints && !listed; i++)
        listed = key->joints[i] == joint->joint_id;
      if (!listed || joint->joint_id < 0)
        return FALSE;
    }
  return TRUE;
}

static void
free_problem (gpointer problem)
{
  if (problem != NULL)
    km_ik_problem_free (problem);
}

/* The interpolated joint values and root pose at @t, before the link tracks. */
static void
sample (GPtrArray         *channels,
        const double      *initial_q,
        KmSkeleton        *skeleton,
        GArray           **root_pos,
        GArray            *root_rot,
        const KmTransform *initial_root,
        double             t,
        double            *q,
        KmTransform       *root)
{
  for (guint d = 0; d < channels->len; d++)
    q[d] = channels->pdata[d] != NULL ? hermite (channels->pdata[d], t) : initial_q[d];
  if (km_skeleton_has_mimic (skeleton))
    km_skeleton_apply_mimic (skeleton, q);
  if (root_rot != NULL)
    {
      KmVec3 p = km_vec3 (hermite (root_pos[0], t), hermite (root_pos[1], t),
                          hermite (root_pos[2], t));

      km_transform_from_pos_quat (p, slerp_at (root_rot, t), root);
    }
  else
    *root = *initial_root;
}

/* The link tracks (one per link, in joint order) from the keys' non-base ikLinks. */
static GPtrArray *
link_tracks (const KmPoseSeq   *self,
             KmSkeleton        *skeleton,
             GPtrArray         *channels,
             const double      *initial_q,
             GArray           **root_pos,
             GArray            *root_rot,
             const KmTransform *initial_root,
             double            *q,
             KmTransform       *world)
{
  guint n_joints = km_skeleton_get_n_joints (skeleton);
  g_autofree LinkTrack **by_joint = g_new0 (LinkTrack *, MAX (n_joints, 1));
  GPtrArray *tracks = g_ptr_array_new_with_free_func (link_track_free);

  for (guint i = 0; i < self->n_keys; i++)
    {
      const KmPoseSeqKey *key = &self->keys[i];
      gboolean sampled = FALSE;
      KmTransform root;

      for (guint l = 0; l < key->n_links; l++)
        {
          const KmPoseSeqLink *link = &key->links[l];
          int joint = find_link (skeleton, link->name);
          LinkTrack *track;
          KmTransform pose;

          if ((int) l == key->base_link || joint <= 0 ||
              km_skeleton_get_joint (skeleton, joint)->parent < 0)
            continue;
          if (key_covers_chain (key, skeleton, joint))
            {
              if (!sampled)
                {
                  sample (channels, initial_q, skeleton, root_pos, root_rot, initial_root,
                          key->time, q, &root);
                  km_skeleton_forward_kinematics (skeleton, q, &root, world);
                  sampled = TRUE;
                }
              pose = world[joint];
            }
          else
            {
              pose.pos = link->translation;
              pose.rot = link->rotation;
            }
          if ((track = by_joint[joint]) == NULL)
            {
              track = g_new0 (LinkTrack, 1);
              track->link = joint;
              for (guint c = 0; c < 3; c++)
                track->pos[c] = g_array_new (FALSE, FALSE, sizeof (Knot));
              track->rot = g_array_new (FALSE, FALSE, sizeof (RotKnot));
              by_joint[joint] = track;
            }
          add_knot (track->pos[0], key->time, pose.pos.x, key->max_transition_time);
          add_knot (track->pos[1], key->time, pose.pos.y, key->max_transition_time);
          add_knot (track->pos[2], key->time, pose.pos.z, key->max_transition_time);
          add_rot_knot (track->rot, key->time, km_quat_normalize (km_mat3_to_quat (&pose.rot)),
                        key->max_transition_time);
        }
    }
  for (guint j = 0; j < n_joints; j++)
    if (by_joint[j] != NULL)
      {
        for (guint c = 0; c < 3; c++)
          compute_tangents (by_joint[j]->pos[c]);
        g_ptr_array_add (tracks, by_joint[j]);
      }
  return tracks;
}

/* Moves the chain of @track's link to the track's pose at @t (nothing when it is there). */
static void
follow_track (const LinkTrack   *track,
              KmIkProblem       *problem,
              KmIkSolution      *solution,
              const KmTransform *root,
              double             t,
              double            *q,
              KmTransform       *world)
{
  KmSkeleton *skeleton = problem->skeleton;
  KmTransform target;

  km_transform_from_pos_quat (km_vec3 (hermite (track->pos[0], t), hermite (track->pos[1], t),
                                       hermite (track->pos[2], t)),
                              slerp_at (track->rot, t), &target);
  km_skeleton_forward_kinematics (skeleton, q, root, world);
  if (km_vec3_length (km_vec3_sub (world[track->link].pos, target.pos)) < 1e-9 &&
      km_mat3_rotation_angle (&world[track->link].rot, &target.rot) < 1e-9)
    return;
  problem->root_pose = *root;
  problem->target = target;
  memcpy (problem->seed, q, problem->n_dof * sizeof (double));
  if (km_ik_solve (problem, solution, NULL, NULL) && solution->converged)
    memcpy (q, solution->q, problem->n_dof * sizeof (double));
}

/**
 * km_pose_seq_interpolate:
 * @skeleton: the target body's model
 * @initial_q: (array): its DOF values, kept by joints no key lists
 * @initial_root: (nullable): the root pose kept when no key has a base link (NULL:
 *   identity)
 * @frame_rate: frames per second of the result
 * @root_poses: (out) (optional) (transfer full) (array): per frame, the root pose to pass
 *   to km_skeleton_forward_kinematics (it places the skeleton's root joint, whose own
 *   offset comes after it), g_free
 * @cancellable: (nullable): checked between frames (a build on a worker that is no longer
 *   wanted stops there)
 *
 * Samples the sequence at frames 0 … duration × @frame_rate. Each joint follows a C1
 * cubic Hermite spline through the keys that list it (see compute_tangents): the first
 * key's value before it, the last one's after it. A key with maxTransitionTime T > 0 holds
 * the value before it until (its time − T). Joint ids the skeleton lacks are ignored.
 * The root follows the keys' base links: each key's base link pose, with the key's joint
 * values, gives a root pose; positions follow the same splines, attitudes slerp between
 * the keys. The other ikLinks (feet) are then held on their own tracks with inverse
 * kinematics (see LinkTrack), so a foot on the ground stays there.
 *
 * Returns: (transfer full) (nullable): the animation, or NULL with a KM_PARSE_ERROR_LIMIT
 *   error when it would have more than KM_ANIMATION_MAX_FRAMES frames, or
 *   %G_IO_ERROR_CANCELLED
 */
KmAnimation *
km_pose_seq_interpolate (const KmPoseSeq   *self,
                         KmSkeleton        *skeleton,
                         const double      *initial_q,
                         const KmTransform *initial_root,
                         double             frame_rate,
                         KmTransform      **root_poses,
                         GCancellable      *cancellable,
                         GError           **error)
{
  g_autofree int *dofs = NULL;
  guint n_ids = 0;
  g_autofree gboolean *angular = NULL;   /* with angleUnit: degree */
  g_autoptr(GPtrArray) channels = NULL;   /* GArray of Knot per DOF, NULL when not keyed */
  GArray *root_pos[3] = { NULL, NULL, NULL };
  g_autoptr(GArray) root_rot = NULL;
  g_autoptr(KmAnimation) animation = NULL;
  g_autofree double *q = NULL;
  g_autofree KmTransform *world = NULL;
  g_autofree KmTransform *roots = NULL;
  g_autoptr(GPtrArray) tracks = NULL;
  g_autoptr(GPtrArray) problems = NULL;
  KmIkSolution solution;
  KmTransform identity;
  guint n_dof, n_joints, n_frames;
  double frames;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (skeleton != NULL, NULL);
  g_return_val_if_fail (initial_q != NULL || km_skeleton_get_n_dof (skeleton) == 0, NULL);
  g_return_val_if_fail (frame_rate > 0 && isfinite (frame_rate), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  frames = floor (km_pose_seq_get_duration (self) * frame_rate + 1e-9);
  if (frames >= KM_ANIMATION_MAX_FRAMES)
    {
      g_set_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT,
                   /* Translators: a duration in s, a frame rate, a number of frames */
                   _("%g s at %g frames per second is more than %u frames"),
                   km_pose_seq_get_duration (self), frame_rate, (guint) KM_ANIMATION_MAX_FRAMES);
      return NULL;
    }
  n_frames = (guint) frames + 1;
  n_dof = km_skeleton_get_n_dof (skeleton);
  n_joints = km_skeleton_get_n_joints (skeleton);
  km_transform_identity (&identity);
  if (initial_root == NULL)
    initial_root = &identity;

  for (guint i = 0; i < self->n_keys; i++)
    for (guint j = 0; j < self->keys[i].n_joints; j++)
      n_ids = MAX (n_ids, (guint) MAX (self->keys[i].joints[j] + 1, 0));
  dofs = km_skeleton_dofs_by_joint_id (skeleton, n_ids);
  if (self->degrees)
    angular = revolute_dofs (skeleton);
  channels = g_ptr_array_new_with_free_func (free_knots);
  for (guint d = 0; d < n_dof; d++)
    g_ptr_array_add (channels, NULL);
  for (guint i = 0; i < self->n_keys; i++)
    {
      const KmPoseSeqKey *key = &self->keys[i];

      for (guint j = 0; j < key->n_joints; j++)
        {
          guint dof;

          if (key->joints[j] < 0 || dofs[key->joints[j]] < 0)
            continue;
          dof = (guint) dofs[key->joints[j]];
          if (channels->pdata[dof] == NULL)
            channels->pdata[dof] = g_array_new (FALSE, FALSE, sizeof (Knot));
          add_knot (channels->pdata[dof], key->time,
                    angular != NULL && angular[dof] ? key->q[j] * (G_PI / 180.0) : key->q[j],
                    key->max_transition_time);
        }
    }
  for (guint d = 0; d < n_dof; d++)
    if (channels->pdata[d] != NULL)
      compute_tangents (channels->pdata[d]);

  q = g_new (double, MAX (n_dof, 1));
  world = g_new (KmTransform, MAX (n_joints, 1));

  /* The root pose each base-link key implies, from the joint values at that key. */
  for (guint i = 0; i < self->n_keys; i++)
    {
      const KmPoseSeqKey *key = &self->keys[i];
      const KmPoseSeqLink *link;
      KmTransform base, inverse, root;
      int b;

      if (key->base_link < 0)
        continue;
      link = &key->links[key->base_link];
      b = find_link (skeleton, link->name);
      if (b < 0)
        continue;
      sample (channels, initial_q, skeleton, NULL, NULL, &identity, key->time, q, &root);
      km_skeleton_forward_kinematics (skeleton, q, NULL, world);
      base.rot = link->rotation;
      base.pos = link->translation;
      km_transform_inverse (&world[b], &inverse);
      km_transform_mul (&base, &inverse, &root);
      if (root_rot == NULL)
        {
          root_rot = g_array_new (FALSE, FALSE, sizeof (RotKnot));
          for (guint c = 0; c < 3; c++)
            root_pos[c] = g_array_new (FALSE, FALSE, sizeof (Knot));
        }
      add_knot (root_pos[0], key->time, root.pos.x, key->max_transition_time);
      add_knot (root_pos[1], key->time, root.pos.y, key->max_transition_time);
      add_knot (root_pos[2], key->time, root.pos.z, key->max_transition_time);
      add_rot_knot (root_rot, key->time, km_quat_normalize (km_mat3_to_quat (&root.rot)),
                    key->max_transition_time);
    }
  for (guint c = 0; root_rot != NULL && c < 3; c++)
    compute_tangents (root_pos[c]);

  tracks = link_tracks (self, skeleton, channels, initial_q, root_pos, root_rot, initial_root,
                        q, world);
  problems = g_ptr_array_new_with_free_func (free_problem);
  for (guint i = 0; i < tracks->len; i++)
    {
      const LinkTrack *track = g_ptr_array_index (tracks, i);
      KmIkProblem *problem = km_ik_problem_new (skeleton, track->link);

      problem->max_iterations = TRACK_MAX_ITERATIONS;
      problem->max_restarts = 0;
      g_ptr_array_add (problems, problem);
    }
  km_ik_solution_init (&solution, n_dof);

  animation = km_animation_new (skeleton, n_frames);
  km_animation_set_frame_rate (animation, frame_rate);
  roots = g_new (KmTransform, n_frames);
  for (guint f = 0; f < n_frames; f++)
    {
      double t = f / frame_rate;

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        break;
      sample (channels, initial_q, skeleton, root_pos, root_rot, initial_root, t, q, &roots[f]);
      for (guint i = 0; i < tracks->len; i++)
        follow_track (g_ptr_array_index (tracks, i), g_ptr_array_index (problems, i), &solution,
                      &roots[f], t, q, world);
      km_animation_set_frame (animation, f, q);
    }
  km_ik_solution_clear (&solution);
  for (guint c = 0; c < 3; c++)
    g_clear_pointer (&root_pos[c], g_array_unref);
  if (g_cancellable_is_cancelled (cancellable))
    return NULL;
  if (root_poses != NULL)
    *root_poses = g_steal_pointer (&roots);
  return g_steal_pointer (&animation);
}
