/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-body-item"

#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "km-body-handler.h"
#include "km-body-item.h"
#include "km-cnoid.h"
#include "km-format.h"
#include "km-openhrp.h"

#define MAX_JOINT_VALUES 100000

struct _KmBodyItem
{
  KmItem       parent_instance;

  /* Owned */
  char        *file;
  char        *format;
  char        *base_link;
  KmSkeleton  *skeleton;
  KmBodyHandlerSet *handlers;
  char       **extra_handlers;
  char        *model_dir;
  double      *q;
  double      *raw;

  guint        n_dof;
  guint        n_raw;
  gint64       schema;
  /* The raw values were read from the older jointPositions (radians). */
  gboolean     raw_radians;
  KmTransform  root;
  gboolean     fix_root;
  /* The joint state is a pose edited at the saved time and not keyed there (Kinema's own
   * key, kinema_pose_unkeyed: km_body_item_set_pose_unkeyed). */
  gboolean     pose_unkeyed;
  /* The name of the joint the editor selects in the body (Kinema's own key,
   * kinema_selected_joint: km_body_item_set_selected_joint), or NULL; and whether it was
   * set since the data was read, which store then writes without rewriting the rest. */
  char        *selected_joint;
  gboolean     selection_changed;
  /* The state differs from the data it was read from: store writes it (schema 2). */
  gboolean     state_modified;
  /* The pose the model file states (a .body's joint_displacement, a scene's joint pos) and
   * the model it was stated for: kept by joint name through skeleton edits, so that an
   * edited model written back keeps it (km_body_item_dup_model_pose). NULL: none. */
  KmSkeleton  *pose_skeleton;
  double      *pose_q;
  /* The text the model was read from and its format's name (km_body_item_get_model_text):
   * what a save writes the edited model over when the file is gone. NULL: none kept. */
  GBytes      *model_text;
  char        *model_text_format;
  char        *model_checksum;   /* km_body_item_get_model_checksum */
};

G_DEFINE_FINAL_TYPE (KmBodyItem, km_body_item, KM_TYPE_ITEM)

static const char * const file_keys[] = { "file", "modelFile", NULL };
static const char * const base_link_keys[] = { "current_base_link", "currentBaseLink", NULL };
static const char * const translation_keys[] = { "root_translation", "rootPosition", NULL };
/* jointPositions: the older key, in radians. */
static const char * const displacement_keys[] = {
  "joint_displacements", "jointDisplacements", "jointPositions", NULL
};

/* A joint id no joint has, in value_order(): Choreonoid's dummy joint there. */
#define NO_JOINT G_MAXUINT

/* One value of joint_displacements: DOF @dof of joint @joint (NO_JOINT: a dummy's). */
typedef struct
{
  guint joint;
  guint dof;
} Slot;

/* The values joint_displacements lists, in order. With joint ids, that is Choreonoid's
 * joint array: by id, one value for each id up to the largest (a joint without DOF that
 * has an id has a value too, and so has each id no joint has: NO_JOINT, a dummy joint for
 * Choreonoid), then the joints with DOF and no id in link order, among them a joint with
 * an id an earlier one has (Choreonoid keeps the first; km_body_save writes the others
 * so). Without ids: the joints with DOF in DOF order.
 *
 * A spherical joint: Choreonoid has none (its joint array holds one value per joint), and
 * neither the Choreonoid documents nor the specs say more. It is laid out as km_body_save
 * writes it, three revolute links about X, Y and Z: the first DOF at the joint's id, the
 * other two among the joints without an id, at the joint's place in link order (the new
 * ids the writer gives them), so that a project saved with the edited model reads back
 * into the .body file saved from it. (Three consecutive ids from the joint's would take
 * the ids of the next joints, which a Choreonoid model usually numbers densely.) Without
 * an id its three DOFs are in link order like any joint's. */
static GArray *
value_order (KmSkeleton *skeleton)
{
  GArray *order = g_array_new (FALSE, FALSE, sizeof (Slot));
  guint n = km_skeleton_get_n_joints (skeleton);
  int max_id = -1;

  /* (ids past the most values a list may have count as none: no file lists them) */
  for (guint i = 0; i < n; i++)
    if (km_skeleton_get_joint (skeleton, i)->joint_id < MAX_JOINT_VALUES)
      max_id = MAX (max_id, km_skeleton_get_joint (skeleton, i)->joint_id);

  if (max_id >= 0)
    {
      g_autofree guint *by_id = g_new (guint, (gsize) max_id + 1);
      g_autofree gboolean *listed = g_new0 (gboolean, MAX (n, 1));

      for (int id = 0; id <= max_id; id++)
        by_id[id] = NO_JOINT;
      for (guint i = 0; i < n; i++)
        {
          int id = km_skeleton_get_joint (skeleton, i)->joint_id;

          if (id >= 0 && id <= max_id && by_id[id] == NO_JOINT)
            {
              by_id[id] = i;
              listed[i] = TRUE;
            }
        }
      for (int id = 0; id <= max_id; id++)
        g_array_append_val (order, ((Slot) { by_id[id], 0 }));
      for (guint i = 0; i < n; i++)
        {
          const KmJoint *joint = km_skeleton_get_joint (skeleton, i);

          if (joint->n_dof == 0 || joint->type == KM_JOINT_FREE)
            continue;
          /* (a listed joint's first DOF is at its id: a spherical one's others here) */
          for (guint d = listed[i] ? 1 : 0; d < joint->n_dof; d++)
            g_array_append_val (order, ((Slot) { i, d }));
        }
      return order;
    }
  for (guint i = 0; i < n; i++)
    {
      const KmJoint *joint = km_skeleton_get_joint (skeleton, i);

      if (joint->n_dof > 0 && joint->type != KM_JOINT_FREE)
        for (guint d = 0; d < joint->n_dof; d++)
          g_array_append_val (order, ((Slot) { i, d }));
    }
  return order;
}

/* File value → internal value. @radians: the older jointPositions (no conversion). */
static double
value_in (const KmJoint *joint,
          double         v,
          gint64         schema,
          gboolean       radians)
{
  if (radians)
    return v;
  if (joint->type == KM_JOINT_PRISMATIC && schema >= 2)
    return v;
  return km_deg_to_rad (v);
}

/* An angle in degrees, as the .body writer writes them (km_format_scaled_number): the
 * shortest text that the reader (km_deg_to_rad) takes back to the same @radians ("-30",
 * not the "-29.999999999999996" of km_rad_to_deg). */
static KmYamlNode *
degrees_node (double radians)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];

  km_format_scaled_number (radians, KM_FORMAT_RADIANS_PER_DEGREE, buffer, sizeof buffer);
  return km_yaml_node_new_scalar (buffer, KM_YAML_STYLE_PLAIN);
}

/* Internal value → file value (the inverse of value_in). */
static KmYamlNode *
value_out (const KmJoint *joint,
           double         v)
{
  return joint->type == KM_JOINT_PRISMATIC ? km_yaml_node_new_number (v) : degrees_node (v);
}

/* Poses the body from the values read; returns how many values its list has (0 without a
 * model). */
static guint
apply_raw (KmBodyItem *self,
           gboolean    radians)
{
  g_autoptr(GArray) order = NULL;

  if (self->skeleton == NULL)
    return 0;
  order = value_order (self->skeleton);
  for (guint i = 0; i < order->len && i < self->n_raw; i++)
    {
      const Slot *slot = &g_array_index (order, Slot, i);
      const KmJoint *joint = slot->joint != NO_JOINT
                             ? km_skeleton_get_joint (self->skeleton, slot->joint) : NULL;

      /* (a dummy's or a joint's without DOF: nothing to move) */
      if (joint == NULL || slot->dof >= joint->n_dof)
        continue;
      self->q[joint->dof_index + slot->dof] = value_in (joint, self->raw[i], self->schema,
                                                        radians);
    }
  return order->len;
}

static KmYamlNode *
state_values (KmBodyItem *self)
{
  g_autoptr(GArray) order = value_order (self->skeleton);
  KmYamlNode *values = km_yaml_node_new_sequence (KM_YAML_STYLE_FLOW);

  for (guint i = 0; i < order->len; i++)
    {
      const Slot *slot = &g_array_index (order, Slot, i);
      const KmJoint *joint = slot->joint != NO_JOINT
                             ? km_skeleton_get_joint (self->skeleton, slot->joint) : NULL;

      km_yaml_sequence_append (values, joint != NULL && slot->dof < joint->n_dof
                                       ? value_out (joint, self->q[joint->dof_index + slot->dof])
                                       : km_yaml_node_new_number (0));
    }
  return values;
}

/* Body handlers never fail a load: what became of each is in the set's reports, which
 * the front end shows in its message view. */
/* As Choreonoid updates a body's linked joints when its state is set: a pose (the model's
 * own, a project's joint values) that breaks the coupling the body's handlers define is
 * re-synced from the values it states. */
static void
sync_linked_joints (KmBodyItem *self)
{
  if (self->handlers != NULL && self->q != NULL &&
      km_body_handler_set_has_linked_joints (self->handlers))
    km_body_handler_set_apply_linked (self->handlers, -1, 0.0, self->q);
}

static void
attach_handlers (KmBodyItem *self)
{
  g_clear_pointer (&self->handlers, km_body_handler_set_unref);
  if (self->skeleton != NULL)
    self->handlers = km_body_handler_loader_attach (km_body_handler_loader_get_default (),
                                                    self->skeleton,
                                                    (const char * const *) self->extra_handlers,
                                                    self->model_dir);
  sync_linked_joints (self);
}

/**
 * km_body_item_model_file_format:
 * @format: (nullable): the format a project names the model @path under
 *
 * The format the model file is in: Choreonoid's body loader reads URDF and OpenHRP VRML
 * models under CHOREONOID-BODY too, choosing by the extension.
 *
 * Returns: "URDF" or "OPENHRP-VRML-MODEL" for such a file, @format otherwise
 */
const char *
km_body_item_model_file_format (const char *format,
                                const char *path)
{
  g_autofree char *lower = NULL;

  if (format == NULL || path == NULL || g_ascii_strcasecmp (format, "CHOREONOID-BODY") != 0)
    return format;
  if (km_openhrp_body_item_format (format, path) == NULL)
    return "OPENHRP-VRML-MODEL";
  lower = g_ascii_strdown (path, -1);
  if (g_str_has_suffix (lower, ".urdf"))
    return "URDF";
  return format;
}

/* The reader for a model: one in another format than the project names (see
 * km_body_item_model_file_format) is detected from the file. */
static const char *
model_format (const char *format,
              const char *path)
{
  return km_body_item_model_file_format (format, path) == format ? format : NULL;
}

static void
load_model (KmBodyItem       *self,
            const KmYamlNode *file_node,
            KmItemIo         *io)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  g_autofree char *shown = NULL;
  g_autoptr(KmModelExtras) extras = NULL;
  const KmFormat *format = NULL;
  gpointer result;

  km_body_item_set_model_text (self, NULL, NULL);
  km_body_item_set_model_checksum (self, NULL);
  path = km_item_io_expand_path (io, self->file, &error);
  if (path == NULL)
    {
      km_item_io_problem (io, KM_ITEM (self), file_node, error->message);
      return;
    }
  /* The model is read under the path the user knows it by, so that its loader's messages
   * name it so (DESIGN.md, "Error locations"). */
  shown = km_cnoid_shown_path (io, self->file, path);
  if (self->format != NULL && km_format_lookup (self->format) == NULL)
    {
      g_autofree char *message =
        g_strdup_printf (_("no reader for the model format “%s” yet; the body is kept "
                           "but not shown"), self->format);

      km_item_io_problem (io, KM_ITEM (self), file_node, message);
      return;
    }
  result = km_format_load_model_file (shown, model_format (self->format, path),
                                      &format, &extras, &error);
  if (result == NULL)
    {
      /* The model's own "FILE:LINE:COLUMN: …" first, then where the project names it. */
      km_cnoid_report_file_error (io, KM_ITEM (self), file_node, error);
      return;
    }
  if (format->kind != KM_FILE_KIND_MODEL)
    {
      g_autofree char *escaped = km_parse_shown_file (shown);
      g_autofree char *message = g_strdup_printf (_("“%s” is not a model file"), escaped);

      format->free_result (result);
      km_item_io_problem (io, KM_ITEM (self), file_node, message);
      return;
    }
  self->skeleton = result;
  self->n_dof = km_skeleton_get_n_dof (self->skeleton);
  self->q = g_new0 (double, MAX (self->n_dof, 1));
  /* The pose the model file states (a .body's joint_displacement, a scene's joint pos), as
   * Choreonoid starts a body at its file's initial pose: joint_displacements then sets the
   * joints it lists. */
  if (extras->initial_q != NULL && extras->n_initial_q == self->n_dof)
    {
      memcpy (self->q, extras->initial_q, self->n_dof * sizeof (double));
      km_skeleton_apply_mimic (self->skeleton, self->q);
      km_body_item_set_model_pose (self, self->skeleton, extras->initial_q);
    }
  km_body_item_set_model_text (self, format->name, extras->text);
  km_body_item_set_model_checksum (self, extras->checksum);
  self->model_dir = g_path_get_dirname (path);
  attach_handlers (self);
}


/* A rotation matrix of 9 numbers, row by row (Choreonoid's rootAttitude): TRUE and @rot
 * when they are orthonormal with a determinant of +1, to the precision a project keeps
 * (Choreonoid writes 9 significant digits); made exactly orthonormal then. */
static gboolean
rotation_from_numbers (const double *m,
                       KmMat3       *rot)
{
  KmMat3 r;

  memcpy (r.m, m, sizeof r.m);
  if (!km_mat3_is_rotation (&r, 1e-6))
    return FALSE;
  km_mat3_from_quat (km_quat_normalize (km_mat3_to_quat (&r)), rot);
  return TRUE;
}

/* root_rotation, [ AXIS_X, AXIS_Y, AXIS_Z, DEGREES ], or a rotation matrix of 9 numbers
 * (as Choreonoid writes rootAttitude); rootAttitude, 9 numbers. FALSE, with a warning,
 * for anything else. */
static gboolean
restore_rotation (const KmYamlNode *node,
                  const char       *key,
                  KmItemIo         *io,
                  KmMat3           *rot)
{
  g_autoptr(GError) error = NULL;
  double v[9];
  guint n = km_yaml_node_get_kind (node) == KM_YAML_SEQUENCE ? km_yaml_node_get_length (node)
                                                              : 0;

  if (n == 4 && g_str_equal (key, "root_rotation"))
    {
      if (!km_yaml_expect_numbers (node, v, 4, &error))
        {
          km_item_io_ignore_value (io, node, key, &error);
          return FALSE;
        }
      if (v[0] != 0 || v[1] != 0 || v[2] != 0)
        km_mat3_from_axis_angle (km_vec3_normalize (km_vec3 (v[0], v[1], v[2])),
                                 km_deg_to_rad (v[3]), rot);
      else
        km_mat3_identity (rot);
      return TRUE;
    }
  if (n == 9)
    {
      if (!km_yaml_expect_numbers (node, v, 9, &error))
        {
          km_item_io_ignore_value (io, node, key, &error);
          return FALSE;
        }
      if (rotation_from_numbers (v, rot))
        return TRUE;
      km_item_io_warn (io, node, _("“%s” is ignored: its 9 numbers are not a rotation matrix"),
                       key);
      return FALSE;
    }
  if (g_str_equal (key, "root_rotation"))
    km_item_io_warn (io, node, _("“%s” is ignored: expected a list of 4 numbers (an axis and "
                                 "an angle in degrees) or 9 (a rotation matrix)"), key);
  else
    km_item_io_warn (io, node, _("“%s” is ignored: expected a list of 9 numbers (a rotation "
                                 "matrix)"), key);
  return FALSE;
}

/* The item's data: a malformed optional value is ignored (km_item_io_ignore_value()); only data that
 * is not a mapping, or a bad model file reference, fails the item. */
static gboolean
km_body_item_restore (KmItem           *item,
                      const KmYamlNode *data,
                      KmItemIo         *io,
                      GError          **error)
{
  KmBodyItem *self = KM_BODY_ITEM (item);
  g_autoptr(GError) bad = NULL;
  KmYamlNode *node;
  KmYamlNode *displacements;
  gboolean radians = FALSE;

  if (!KM_ITEM_CLASS (km_body_item_parent_class)->restore (item, data, io, error))
    return FALSE;
  if (data == NULL)
    return TRUE;
  if (!km_yaml_expect_mapping (data, error))
    return FALSE;

  if ((node = km_yaml_mapping_lookup (data, "schema")) != NULL)
    {
      if (!km_yaml_expect_int (node, &self->schema, &bad))
        {
          self->schema = 1;
          km_item_io_ignore_value (io, node, "schema", &bad);
        }
      else if (self->schema > KM_BODY_ITEM_SCHEMA)
        km_item_io_warn (io, node, _("body item schema %lld is newer than %d; "
                                     "loading what can be read"),
                         (long long) self->schema, KM_BODY_ITEM_SCHEMA);
    }

  if ((node = km_yaml_mapping_lookup_any (data, translation_keys)) != NULL &&
      !km_yaml_expect_vec3 (node, &self->root.pos, &bad))
    {
      self->root.pos = km_vec3 (0, 0, 0);
      km_item_io_ignore_value (io, node, km_yaml_mapping_key_any (data, translation_keys),
                               &bad);
    }
  /* A bad root_rotation leaves rootAttitude, when the data has both, to say it. */
  if (((node = km_yaml_mapping_lookup (data, "root_rotation")) == NULL ||
       !restore_rotation (node, "root_rotation", io, &self->root.rot)) &&
      (node = km_yaml_mapping_lookup (data, "rootAttitude")) != NULL)
    restore_rotation (node, "rootAttitude", io, &self->root.rot);

  if ((node = km_yaml_mapping_lookup (data, "fix_root")) != NULL &&
      !km_yaml_expect_bool (node, &self->fix_root, &bad))
    km_item_io_ignore_value (io, node, "fix_root", &bad);
  if ((node = km_yaml_mapping_lookup (data, "kinema_pose_unkeyed")) != NULL &&
      !km_yaml_expect_bool (node, &self->pose_unkeyed, &bad))
    km_item_io_ignore_value (io, node, "kinema_pose_unkeyed", &bad);
  if ((node = km_yaml_mapping_lookup (data, "kinema_selected_joint")) != NULL)
    {
      const char *s = km_yaml_expect_string (node, &bad);

      if (s == NULL)
        km_item_io_ignore_value (io, node, "kinema_selected_joint", &bad);
      else if (*s != '\0')
        self->selected_joint = g_strdup (s);
    }
  if ((node = km_yaml_mapping_lookup_any (data, base_link_keys)) != NULL)
    {
      const char *s = km_yaml_expect_string (node, &bad);

      if (s == NULL)
        km_item_io_ignore_value (io, node, km_yaml_mapping_key_any (data, base_link_keys),
                               &bad);
      else
        self->base_link = g_strdup (s);
    }

  node = displacements = km_yaml_mapping_lookup_any (data, displacement_keys);
  radians = node != NULL && g_str_equal (km_yaml_mapping_key_any (data, displacement_keys), "jointPositions");
  self->raw_radians = radians;
  if (node != NULL &&
      (self->raw = km_yaml_expect_number_list (node, MAX_JOINT_VALUES, &self->n_raw,
                                               &bad)) == NULL)
    {
      self->n_raw = 0;
      km_item_io_ignore_value (io, node, km_yaml_mapping_key_any (data, displacement_keys),
                               &bad);
      displacements = NULL;
    }

  /* Kinema's addition: handlers the project adds to the model's own `body_handlers`
   * (a name or a list of names). */
  if ((node = km_yaml_mapping_lookup (data, "extra_body_handlers")) != NULL)
    {
      g_autoptr(GStrvBuilder) names = g_strv_builder_new ();
      gboolean ok = TRUE;

      if (km_yaml_node_get_kind (node) == KM_YAML_SCALAR)
        g_strv_builder_add (names, km_yaml_node_get_scalar (node, NULL));
      else
        ok = km_yaml_expect_sequence (node, &bad);
      if (ok && km_yaml_node_get_kind (node) == KM_YAML_SEQUENCE)
        for (guint i = 0; ok && i < km_yaml_node_get_length (node) && i < 1024; i++)
          {
            const char *s = km_yaml_expect_string (km_yaml_sequence_get (node, i), &bad);

            if (s == NULL)
              ok = FALSE;
            else
              g_strv_builder_add (names, s);
          }
      if (ok)
        self->extra_handlers = g_strv_builder_end (names);
      else
        km_item_io_ignore_value (io, node, "extra_body_handlers", &bad);
    }

  if (!km_item_restore_file_ref (data, file_keys, &self->file, &self->format, &node, error))
    return FALSE;
  if (node != NULL)
    {
      guint n_values;

      load_model (self, node, io);
      n_values = apply_raw (self, radians);
      sync_linked_joints (self);
      /* Choreonoid sets the joints listed and leaves the others, as Kinema does, but a
       * list that does not fit was usually written for another model. */
      if (displacements != NULL && self->skeleton != NULL && self->n_raw != n_values)
        km_item_io_warn (io, displacements,
                         /* Translators: %s is a key such as joint_displacements */
                         g_dngettext (GETTEXT_PACKAGE,
                                      "“%s” lists %u value where the model has %u; joints it "
                                      "does not list keep the model’s pose, values past the "
                                      "model’s are ignored",
                                      "“%s” lists %u values where the model has %u; joints it "
                                      "does not list keep the model’s pose, values past the "
                                      "model’s are ignored", self->n_raw),
                         km_yaml_mapping_key_any (data, displacement_keys), self->n_raw, n_values);
    }
  else
    km_item_set_problem (item, _("the body item names no model file"));
  return TRUE;
}

static KmYamlNode *
km_body_item_store (KmItem   *item,
                    KmItemIo *io)
{
  static const char * const replaced[] = {
    "schema", "file", "modelFile", "format", "current_base_link", "currentBaseLink",
    "root_translation", "rootPosition", "root_rotation", "rootAttitude",
    "joint_displacements", "jointDisplacements", "jointPositions", "fix_root",
    "kinema_pose_unkeyed", "kinema_selected_joint", NULL
  };
  KmBodyItem *self = KM_BODY_ITEM (item);
  KmYamlNode *data = km_item_get_data (item);
  KmYamlNode *out;
  KmVec3 axis;
  double angle;
  double aa[3];
  KmYamlNode *rotation;
  double pos[3] = { self->root.pos.x, self->root.pos.y, self->root.pos.z };

  if (data != NULL && !self->state_modified && !self->selection_changed)
    return km_yaml_node_ref (data);
  /* Only the selection changed: the data as read, with it (the editor's view state, which
   * alone does not make the rest worth writing anew). */
  if (data != NULL && !self->state_modified)
    {
      out = km_yaml_node_copy (data);
      if (self->selected_joint != NULL)
        km_yaml_mapping_set (out, "kinema_selected_joint",
                             km_yaml_node_new_string (self->selected_joint));
      else
        km_yaml_mapping_remove (out, "kinema_selected_joint");
      return out;
    }

  out = km_yaml_node_new_mapping (KM_YAML_STYLE_BLOCK);
  /* Without the model, the joint values read cannot be converted: they are written as
   * they were, under their schema (no key for schema 1) and key. */
  if (self->skeleton != NULL || self->raw == NULL)
    km_yaml_mapping_append (out, "schema", km_yaml_node_new_int (KM_BODY_ITEM_SCHEMA));
  else if (self->schema != 1)
    km_yaml_mapping_append (out, "schema", km_yaml_node_new_int (self->schema));
  km_item_store_file_ref (out, self->file, self->format);
  if (self->base_link != NULL)
    km_yaml_mapping_append (out, "current_base_link", km_yaml_node_new_string (self->base_link));
  km_yaml_mapping_append (out, "root_translation", km_yaml_node_new_numbers (pos, 3));
  km_quat_to_axis_angle (km_mat3_to_quat (&self->root.rot), &axis, &angle);
  aa[0] = axis.x;
  aa[1] = axis.y;
  aa[2] = axis.z;
  if (angle == 0.0)
    {
      aa[0] = 1;
      aa[1] = aa[2] = 0;
    }
  rotation = km_yaml_node_new_numbers (aa, 3);
  km_yaml_sequence_append (rotation, degrees_node (angle));
  km_yaml_mapping_append (out, "root_rotation", rotation);
  if (self->skeleton != NULL)
    km_yaml_mapping_append (out, "joint_displacements", state_values (self));
  else if (self->raw != NULL)
    km_yaml_mapping_append (out, self->raw_radians ? "jointPositions" : "joint_displacements",
                            km_yaml_node_new_numbers (self->raw, self->n_raw));
  km_yaml_mapping_append (out, "fix_root", km_yaml_node_new_bool (self->fix_root));
  /* Only when set: Choreonoid ignores the key, and most bodies show their motion. */
  if (self->pose_unkeyed)
    km_yaml_mapping_append (out, "kinema_pose_unkeyed", km_yaml_node_new_bool (TRUE));
  if (self->selected_joint != NULL)
    km_yaml_mapping_append (out, "kinema_selected_joint",
                            km_yaml_node_new_string (self->selected_joint));
  km_yaml_mapping_append_except (out, data, replaced);
  return out;
}

static void
km_body_item_finalize (GObject *object)
{
  KmBodyItem *self = KM_BODY_ITEM (object);

  g_clear_pointer (&self->file, g_free);
  g_clear_pointer (&self->format, g_free);
  g_clear_pointer (&self->base_link, g_free);
  g_clear_pointer (&self->selected_joint, g_free);
  g_clear_pointer (&self->skeleton, km_skeleton_unref);
  g_clear_pointer (&self->handlers, km_body_handler_set_unref);
  g_clear_pointer (&self->extra_handlers, g_strfreev);
  g_clear_pointer (&self->model_dir, g_free);
  g_clear_pointer (&self->q, g_free);
  g_clear_pointer (&self->raw, g_free);
  g_clear_pointer (&self->pose_skeleton, km_skeleton_unref);
  g_clear_pointer (&self->pose_q, g_free);
  g_clear_pointer (&self->model_text, g_bytes_unref);
  g_clear_pointer (&self->model_text_format, g_free);
  g_clear_pointer (&self->model_checksum, g_free);

  G_OBJECT_CLASS (km_body_item_parent_class)->finalize (object);
}

/* KmItemClass.get_file */
static const char *
item_get_file (KmItem *item)
{
  return km_body_item_get_file (KM_BODY_ITEM (item));
}

static void
km_body_item_class_init (KmBodyItemClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  KmItemClass *item_class = KM_ITEM_CLASS (klass);

  object_class->finalize = km_body_item_finalize;
  item_class->plugin_name = "Body";
  item_class->class_name = "BodyItem";
  item_class->restore = km_body_item_restore;
  item_class->get_file = item_get_file;
  item_class->store = km_body_item_store;
}

static void
km_body_item_init (KmBodyItem *self)
{
  km_transform_identity (&self->root);
  self->schema = 1;
}

KmItem *
km_body_item_new (void)
{
  return g_object_new (KM_TYPE_BODY_ITEM, NULL);
}

const char *
km_body_item_get_file (KmBodyItem *self)
{
  g_return_val_if_fail (KM_IS_BODY_ITEM (self), NULL);
  return self->file;
}

const char *
km_body_item_get_format (KmBodyItem *self)
{
  g_return_val_if_fail (KM_IS_BODY_ITEM (self), NULL);
  return self->format;
}

void
km_body_item_set_model (KmBodyItem *self,
                        const char *file,
                        const char *format,
                        KmSkeleton *skeleton)
{
  char *new_file, *new_format;

  g_return_if_fail (KM_IS_BODY_ITEM (self));

  /* Copied before the old ones go: a caller may pass the item's own strings. */
  new_file = g_strdup (file);
  new_format = g_strdup (format);
  g_free (self->file);
  g_free (self->format);
  self->file = new_file;
  self->format = new_format;
  file = new_file;
  g_clear_pointer (&self->skeleton, km_skeleton_unref);
  g_clear_pointer (&self->q, g_free);
  self->n_dof = 0;
  if (skeleton != NULL)
    {
      self->skeleton = km_skeleton_ref (skeleton);
      self->n_dof = km_skeleton_get_n_dof (skeleton);
      self->q = g_new0 (double, MAX (self->n_dof, 1));
    }
  g_clear_pointer (&self->model_dir, g_free);
  if (file != NULL && g_path_is_absolute (file))
    self->model_dir = g_path_get_dirname (file);
  attach_handlers (self);
  km_item_set_problem (KM_ITEM (self), NULL);
  self->state_modified = TRUE;
}

/**
 * km_body_item_set_model_pose:
 * @skeleton: (nullable): the model @q is for
 * @q: (nullable) (array): its DOF values (radians, metres), the pose the model file states
 *
 * Records the pose the model file states, so that writing an edited model back (a .body's
 * joint_displacement) keeps it for the joints that are still there
 * (km_body_item_dup_model_pose). NULL forgets it. The joint state is not touched.
 */
void
km_body_item_set_model_pose (KmBodyItem       *self,
                             KmSkeleton       *skeleton,
                             const double     *q)
{
  g_return_if_fail (KM_IS_BODY_ITEM (self));

  g_clear_pointer (&self->pose_skeleton, km_skeleton_unref);
  g_clear_pointer (&self->pose_q, g_free);
  if (skeleton == NULL || q == NULL || km_skeleton_get_n_dof (skeleton) == 0)
    return;
  self->pose_skeleton = km_skeleton_ref (skeleton);
  self->pose_q = g_memdup2 (q, km_skeleton_get_n_dof (skeleton) * sizeof (double));
}

/**
 * km_body_item_dup_model_pose:
 * @skeleton: the model to write (the item's own, or an edit of it)
 *
 * The pose the model file stated (km_body_item_set_model_pose) for @skeleton's DOFs: each
 * joint takes the stated values of the joint of its name, when that joint has the same type
 * and DOFs; other joints (added since) are at 0.
 *
 * Returns: (transfer full) (nullable) (array): km_skeleton_get_n_dof (@skeleton) values,
 *   NULL when the model stated no pose
 */
double *
km_body_item_dup_model_pose (KmBodyItem       *self,
                             const KmSkeleton *skeleton)
{
  double *q;

  g_return_val_if_fail (KM_IS_BODY_ITEM (self), NULL);
  g_return_val_if_fail (skeleton != NULL, NULL);

  if (self->pose_skeleton == NULL || km_skeleton_get_n_dof (skeleton) == 0)
    return NULL;
  q = g_new0 (double, km_skeleton_get_n_dof (skeleton));
  for (guint i = 0; i < km_skeleton_get_n_joints (skeleton); i++)
    {
      const KmJoint *joint = km_skeleton_get_joint (skeleton, i);
      int k = km_skeleton_find_joint (self->pose_skeleton, joint->name);
      const KmJoint *stated = k >= 0 ? km_skeleton_get_joint (self->pose_skeleton, (guint) k)
                                     : NULL;

      if (stated != NULL && stated->type == joint->type && stated->n_dof == joint->n_dof)
        memcpy (q + joint->dof_index, self->pose_q + stated->dof_index,
                joint->n_dof * sizeof (double));
    }
  return q;
}

/**
 * km_body_item_set_model_text:
 * @format: (nullable): the name of the format @text is in (the KmFormat it was read as)
 * @text: (nullable): the text the model was read from (KmModelExtras.text); NULL forgets it
 *
 * Keeps @text with the body: the model file as it was read, which a save that finds the file
 * gone (deleted by another program since) writes the edited skeleton over, so that what
 * Kinema does not model is kept (km_body_save_over_text, …). A restore that loads the
 * model sets it; an importer sets it from the load's extras. It stays through
 * km_body_item_set_model(), whose callers give the body its model edited or written
 * elsewhere, the same model.
 */
void
km_body_item_set_model_text (KmBodyItem *self,
                             const char *format,
                             GBytes     *text)
{
  g_return_if_fail (KM_IS_BODY_ITEM (self));

  if (text != NULL)
    g_bytes_ref (text);
  g_clear_pointer (&self->model_text, g_bytes_unref);
  self->model_text = text;
  g_free (self->model_text_format);
  self->model_text_format = text != NULL ? g_strdup (format) : NULL;
}

/**
 * km_body_item_get_model_text:
 * @format: (out) (optional) (transfer none): the name of the format it is in
 *
 * Returns: (transfer none) (nullable): the text km_body_item_set_model_text() kept
 */
GBytes *
km_body_item_get_model_text (KmBodyItem  *self,
                             const char **format)
{
  g_return_val_if_fail (KM_IS_BODY_ITEM (self), NULL);

  if (format != NULL)
    *format = self->model_text_format;
  return self->model_text;
}

/**
 * km_body_item_set_model_checksum:
 * @checksum: (nullable): km_format_file_checksum() of the bytes the model was read from
 *   (KmModelExtras.checksum); NULL forgets it
 *
 * Keeps what the model file held when it was read, as its loader read it (a UTF-16 file's
 * bytes, not the text converted from them; a file too large for its text to be kept too),
 * so that what the body goes with is what was read, not what the file holds later. A
 * restore that loads the model sets it; an importer sets it from the load's extras.
 */
void
km_body_item_set_model_checksum (KmBodyItem *self,
                                 const char *checksum)
{
  g_return_if_fail (KM_IS_BODY_ITEM (self));

  if (checksum == self->model_checksum)
    return;
  g_free (self->model_checksum);
  self->model_checksum = g_strdup (checksum);
}

/**
 * km_body_item_get_model_checksum:
 *
 * Returns: (transfer none) (nullable): the checksum km_body_item_set_model_checksum() kept
 */
const char *
km_body_item_get_model_checksum (KmBodyItem *self)
{
  g_return_val_if_fail (KM_IS_BODY_ITEM (self), NULL);

  return self->model_checksum;
}

KmSkeleton *
km_body_item_get_skeleton (KmBodyItem *self)
{
  g_return_val_if_fail (KM_IS_BODY_ITEM (self), NULL);
  return self->skeleton;
}

/**
 * km_body_item_get_body_handlers:
 *
 * The handlers attached to the model (those its file names plus the item's
 * `extra_body_handlers`), with a report for each name, or %NULL without a model. Worker
 * threads take km_body_handler_set_clone() of it.
 *
 * Returns: (transfer none) (nullable): the handler set
 */
KmBodyHandlerSet *
km_body_item_get_body_handlers (KmBodyItem *self)
{
  g_return_val_if_fail (KM_IS_BODY_ITEM (self), NULL);
  return self->handlers;
}

const double *
km_body_item_get_joint_state (KmBodyItem *self,
                              guint      *n_dof)
{
  g_return_val_if_fail (KM_IS_BODY_ITEM (self), NULL);
  if (n_dof != NULL)
    *n_dof = self->n_dof;
  return self->q;
}

void
km_body_item_set_joint_state (KmBodyItem   *self,
                              const double *q,
                              guint         n_dof)
{
  g_return_if_fail (KM_IS_BODY_ITEM (self));
  g_return_if_fail (q != NULL && n_dof == self->n_dof);

  if (n_dof == 0 || memcmp (self->q, q, n_dof * sizeof (double)) == 0)
    return;
  memcpy (self->q, q, n_dof * sizeof (double));
  self->state_modified = TRUE;
}

void
km_body_item_get_root_pose (KmBodyItem  *self,
                            KmTransform *pose)
{
  g_return_if_fail (KM_IS_BODY_ITEM (self));
  g_return_if_fail (pose != NULL);
  *pose = self->root;
}

void
km_body_item_set_root_pose (KmBodyItem        *self,
                            const KmTransform *pose)
{
  g_return_if_fail (KM_IS_BODY_ITEM (self));
  g_return_if_fail (pose != NULL);

  if (memcmp (&self->root, pose, sizeof *pose) == 0)
    return;
  self->root = *pose;
  self->state_modified = TRUE;
}

/**
 * km_body_item_get_pose_unkeyed:
 *
 * Whether the joint state is a pose edited at the project's current time that its motion
 * does not give there (not keyed): the editor shows it again, still to be keyed, when the
 * project opens. Stored as `kinema_pose_unkeyed: true`.
 */
gboolean
km_body_item_get_pose_unkeyed (KmBodyItem *self)
{
  g_return_val_if_fail (KM_IS_BODY_ITEM (self), FALSE);
  return self->pose_unkeyed;
}

/* Not an edit of its own: it follows what the editor shows (the project stays clean when
 * the pose is keyed or replaced by the motion), and a save writes it. */
void
km_body_item_set_pose_unkeyed (KmBodyItem *self,
                               gboolean    unkeyed)
{
  g_return_if_fail (KM_IS_BODY_ITEM (self));

  unkeyed = !!unkeyed;
  if (self->pose_unkeyed == unkeyed)
    return;
  self->pose_unkeyed = unkeyed;
  self->state_modified = TRUE;
}

/**
 * km_body_item_get_selected_joint:
 *
 * The name of the joint the editor selects in the body, or NULL: what it selects again
 * when the project opens (a name no joint has selects none). Stored as
 * `kinema_selected_joint: NAME`, which Choreonoid ignores.
 */
const char *
km_body_item_get_selected_joint (KmBodyItem *self)
{
  g_return_val_if_fail (KM_IS_BODY_ITEM (self), NULL);
  return self->selected_joint;
}

/* Not an edit: view state, which a save writes (NULL or "": none). */
void
km_body_item_set_selected_joint (KmBodyItem *self,
                                 const char *name)
{
  g_return_if_fail (KM_IS_BODY_ITEM (self));

  if (name != NULL && *name == '\0')
    name = NULL;
  if (g_strcmp0 (self->selected_joint, name) == 0)
    return;
  g_free (self->selected_joint);
  self->selected_joint = g_strdup (name);
  self->selection_changed = TRUE;
}

gboolean
km_body_item_get_fix_root (KmBodyItem *self)
{
  g_return_val_if_fail (KM_IS_BODY_ITEM (self), FALSE);
  return self->fix_root;
}

void
km_body_item_set_fix_root (KmBodyItem *self,
                           gboolean    fix_root)
{
  g_return_if_fail (KM_IS_BODY_ITEM (self));

  if (self->fix_root == !!fix_root)
    return;
  self->fix_root = !!fix_root;
  self->state_modified = TRUE;
}

const char *
km_body_item_get_current_base_link (KmBodyItem *self)
{
  g_return_val_if_fail (KM_IS_BODY_ITEM (self), NULL);
  return self->base_link;
}

void
km_body_item_set_current_base_link (KmBodyItem *self,
                                    const char *link)
{
  g_return_if_fail (KM_IS_BODY_ITEM (self));

  if (g_strcmp0 (self->base_link, link) == 0)
    return;
  g_free (self->base_link);
  self->base_link = g_strdup (link);
  self->state_modified = TRUE;
}

const double *
km_body_item_get_raw_displacements (KmBodyItem *self,
                                    guint      *n)
{
  g_return_val_if_fail (KM_IS_BODY_ITEM (self), NULL);
  if (n != NULL)
    *n = self->n_raw;
  return self->raw;
}
