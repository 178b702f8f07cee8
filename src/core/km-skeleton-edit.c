/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-skeleton-edit"

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "km-skeleton-edit.h"

/*
 * Every edit copies the skeleton into a Draft (a plain array of joints with parent
 * indices into the same array), changes the draft and builds a new skeleton from it. The
 * draft's array order is the sibling order of the result: the build emits a preorder in
 * which the children of a joint come in array order, so an inserted joint takes the place
 * of the joint it is inserted above, and a new child or copy goes after its siblings.
 *
 * The result keeps the source's default end effector (km_skeleton_get_default_effector()),
 * renamed or moved: a new leaf after it in the preorder would otherwise take over. When it
 * gets children, the last leaf below it (the new end of its chain) does; when it is
 * deleted, the result's own default (its last leaf in preorder).
 */

typedef struct
{
  KmJoint    j;        /* j.name and j.link_name owned; j.parent is a draft index */
  GPtrArray *shapes;   /* KmShape, owned references; NULL when none */
  gboolean   effector; /* the source's default end effector (not its copies) */
} DraftJoint;

typedef struct
{
  GArray            *joints;    /* DraftJoint */
  const KmSkeleton  *source;
} Draft;

G_DEFINE_QUARK (km-skeleton-edit-error-quark, km_skeleton_edit_error)

static void
draft_joint_clear (gpointer data)
{
  DraftJoint *dj = data;

  g_clear_pointer (&dj->j.name, g_free);
  g_clear_pointer (&dj->j.link_name, g_free);
  g_clear_pointer (&dj->shapes, g_ptr_array_unref);
}

static void
draft_clear (Draft *d)
{
  g_clear_pointer (&d->joints, g_array_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Draft, draft_clear)

static GPtrArray *
shapes_copy (KmShape * const *shapes,
             guint            n_shapes)
{
  GPtrArray *copy;

  if (n_shapes == 0)
    return NULL;
  copy = g_ptr_array_new_with_free_func ((GDestroyNotify) km_shape_unref);
  for (guint s = 0; s < n_shapes; s++)
    g_ptr_array_add (copy, km_shape_ref (shapes[s]));
  return copy;
}

static void
draft_init (Draft            *d,
            const KmSkeleton *skeleton)
{
  guint n = km_skeleton_get_n_joints (skeleton);
  int effector = km_skeleton_get_default_effector (skeleton);

  d->source = skeleton;
  d->joints = g_array_sized_new (FALSE, TRUE, sizeof (DraftJoint), n + 1);
  g_array_set_clear_func (d->joints, draft_joint_clear);
  for (guint i = 0; i < n; i++)
    {
      DraftJoint dj = { 0 };
      KmShape * const *shapes;
      guint n_shapes = 0;

      dj.j = *km_skeleton_get_joint (skeleton, i);
      dj.j.name = g_strdup (dj.j.name);
      dj.j.link_name = g_strdup (dj.j.link_name);
      shapes = km_skeleton_get_shapes (skeleton, i, &n_shapes);
      dj.shapes = shapes_copy (shapes, n_shapes);
      dj.effector = (int) i == effector;
      g_array_append_val (d->joints, dj);
    }
}

static inline DraftJoint *
draft_get (Draft *d,
           guint  i)
{
  return &g_array_index (d->joints, DraftJoint, i);
}

static gboolean
draft_name_taken (Draft      *d,
                  const char *name,
                  int         except)
{
  for (guint i = 0; i < d->joints->len; i++)
    if ((int) i != except && g_str_equal (draft_get (d, i)->j.name, name))
      return TRUE;
  return FALSE;
}

/* @base if free, else @base_2, @base_3, … */
static char *
draft_unique_name (Draft      *d,
                   const char *base)
{
  if (!draft_name_taken (d, base, -1))
    return g_strdup (base);
  for (guint k = 2;; k++)
    {
      g_autofree char *name = g_strdup_printf ("%s_%u", base, k);

      if (!draft_name_taken (d, name, -1))
        return g_steal_pointer (&name);
    }
}

/* Whether a joint's link is called @name (its own link name, or its name when it has none). */
static gboolean
draft_link_name_taken (Draft      *d,
                       const char *name)
{
  for (guint i = 0; i < d->joints->len; i++)
    if (g_str_equal (km_joint_get_link_name (&draft_get (d, i)->j), name))
      return TRUE;
  return FALSE;
}

/* A link name: @base if no link has it, else @base_2, @base_3, … */
static char *
draft_unique_link_name (Draft      *d,
                        const char *base)
{
  if (!draft_link_name_taken (d, base))
    return g_strdup (base);
  for (guint k = 2;; k++)
    {
      g_autofree char *name = g_strdup_printf ("%s_%u", base, k);

      if (!draft_link_name_taken (d, name))
        return g_steal_pointer (&name);
    }
}

static gboolean
draft_is_ancestor (Draft *d,
                   guint  ancestor,
                   guint  joint)
{
  for (int i = (int) joint; i >= 0; i = draft_get (d, (guint) i)->j.parent)
    if ((guint) i == ancestor)
      return TRUE;
  return FALSE;
}

/* The joint's pose at zero (all values 0, identity root pose). */
static void
draft_world_at_zero (Draft       *d,
                     guint        joint,
                     KmTransform *out)
{
  static const double zero[3] = { 0, 0, 0 };
  KmTransform local;

  km_joint_local_transform (&draft_get (d, joint)->j, zero, &local);
  if (draft_get (d, joint)->j.parent < 0)
    {
      *out = local;
      return;
    }
  draft_world_at_zero (d, (guint) draft_get (d, joint)->j.parent, out);
  km_transform_mul (out, &local, out);
}

/* Sets the constant part of a joint's local transform (offset and rotation). */
static void
joint_set_frame (KmJoint           *j,
                 const KmTransform *frame)
{
  KmQuat q = km_quat_normalize (km_mat3_to_quat (&frame->rot));

  j->offset = frame->pos;
  j->rotation = q;
  j->has_rotation = km_quat_angle_between (q, KM_QUAT_IDENTITY) > 1e-15;
  if (!j->has_rotation)
    j->rotation = KM_QUAT_IDENTITY;
}

static void
joint_get_frame (const KmJoint *j,
                 KmTransform   *frame)
{
  km_transform_from_pos_quat (j->offset, j->rotation, frame);
}

/* Drops the links a joint of @joint's (new) type cannot keep: its own and its followers'. */
static void
draft_drop_mimic_of (Draft *d,
                     guint  joint)
{
  KmJointType type = draft_get (d, joint)->j.type;

  if (type == KM_JOINT_REVOLUTE || type == KM_JOINT_PRISMATIC)
    return;
  for (guint i = 0; i < d->joints->len; i++)
    {
      KmJoint *o = &draft_get (d, i)->j;

      if (i == joint || o->mimic == (int) joint)
        o->mimic = -1;
    }
}

static void
add_to_builder (Draft             *d,
                KmSkeletonBuilder *builder,
                guint              i)
{
  DraftJoint *dj = draft_get (d, i);
  guint n_limits = dj->j.type == KM_JOINT_SPHERICAL ? 3 : 1;
  int parent = dj->j.parent;
  guint index;

  index = km_skeleton_builder_add_joint (builder, dj->j.name, dj->j.type,
                                         parent >= 0 ? draft_get (d, (guint) parent)->j.name : NULL);
  km_skeleton_builder_set_link_name (builder, index, dj->j.link_name);
  km_skeleton_builder_set_offset (builder, index, dj->j.offset);
  if (dj->j.has_rotation)
    km_skeleton_builder_set_rotation (builder, index, dj->j.rotation);
  if (dj->j.type == KM_JOINT_REVOLUTE || dj->j.type == KM_JOINT_PRISMATIC)
    km_skeleton_builder_set_axis (builder, index, dj->j.axis);
  for (guint a = 0; a < n_limits; a++)
    if (dj->j.limits[a].limited)
      km_skeleton_builder_set_limit (builder, index, a, dj->j.limits[a].min,
                                     dj->j.limits[a].max);
  if (dj->j.joint_id >= 0)
    km_skeleton_builder_set_joint_id (builder, index, dj->j.joint_id);
  km_skeleton_builder_set_max_effort (builder, index, dj->j.max_effort);
  km_skeleton_builder_set_max_velocity (builder, index, dj->j.max_velocity);
  if (dj->j.mimic >= 0)
    km_skeleton_builder_set_mimic (builder, index, draft_get (d, (guint) dj->j.mimic)->j.name,
                                   dj->j.mimic_ratio, dj->j.mimic_offset);
  for (guint s = 0; dj->shapes != NULL && s < dj->shapes->len; s++)
    km_skeleton_builder_add_shape (builder, index, g_ptr_array_index (dj->shapes, s));
}

/* The last child of @joint in array order (the last in the result's preorder), or -1. */
static int
draft_last_child (Draft *d,
                  guint  joint)
{
  for (guint c = d->joints->len; c-- > 0;)
    if (draft_get (d, c)->j.parent == (int) joint)
      return (int) c;
  return -1;
}

static KmSkeleton *
draft_build (Draft   *d,
             GError **error)
{
  g_autoptr(KmSkeletonBuilder) builder = km_skeleton_builder_new ();
  g_autoptr(GError) local_error = NULL;
  const char * const *handlers = km_skeleton_get_body_handlers (d->source);
  g_autofree guint *stack = g_new (guint, d->joints->len + 1);
  guint n_stack = 0;
  KmSkeleton *skel;
  int root = -1;

  for (guint i = 0; i < d->joints->len; i++)
    {
      if (draft_get (d, i)->j.parent < 0)
        root = (int) i;
      if (draft_get (d, i)->effector)
        {
          /* A default effector is a leaf: one that got children hands over to the last
           * leaf below it, the new end of its chain. */
          guint e = i;

          for (int c = draft_last_child (d, e); c >= 0; c = draft_last_child (d, e))
            e = (guint) c;
          km_skeleton_builder_set_default_effector (builder, draft_get (d, e)->j.name);
        }
    }
  g_assert (root >= 0);

  /* Preorder, children in array order: push them in reverse. */
  stack[n_stack++] = (guint) root;
  while (n_stack > 0)
    {
      guint i = stack[--n_stack];

      add_to_builder (d, builder, i);
      for (guint c = d->joints->len; c-- > 0;)
        if (draft_get (d, c)->j.parent == (int) i)
          stack[n_stack++] = c;
    }

  if (km_skeleton_get_root_name (d->source) != NULL)
    km_skeleton_builder_set_root_name (builder, draft_get (d, (guint) root)->j.name);
  km_skeleton_builder_set_model_name (builder, km_skeleton_get_model_name (d->source));
  for (guint h = 0; handlers != NULL && handlers[h] != NULL; h++)
    {
      /* Where the model names it goes along: messages about it after an edit point there. */
      const char *location = km_skeleton_get_body_handler_location (d->source, handlers[h]);

      km_skeleton_builder_add_body_handler (builder, handlers[h]);
      if (location != NULL)
        km_skeleton_builder_set_body_handler_location (builder, handlers[h], location);
    }

  skel = km_skeleton_builder_build (builder, NULL, &local_error);
  if (skel == NULL)
    g_set_error_literal (error, KM_SKELETON_EDIT_ERROR, KM_SKELETON_EDIT_ERROR_FAILED,
                         local_error->message);
  return skel;
}

static KmSkeleton *
draft_build_find (Draft      *d,
                  const char *name,
                  int        *out_joint,
                  GError    **error)
{
  KmSkeleton *skel = draft_build (d, error);

  if (out_joint != NULL)
    *out_joint = skel != NULL ? km_skeleton_find_joint (skel, name) : -1;
  return skel;
}

static gboolean
check_joint (const KmSkeleton  *skeleton,
             guint              joint,
             GError           **error)
{
  if (joint < km_skeleton_get_n_joints (skeleton))
    return TRUE;
  g_set_error (error, KM_SKELETON_EDIT_ERROR, KM_SKELETON_EDIT_ERROR_UNKNOWN_JOINT,
               _("there is no joint number %u"), joint);
  return FALSE;
}

static gboolean
check_new_name (Draft       *d,
                const char  *name,
                int          except,
                GError     **error)
{
  if (name == NULL || name[0] == '\0' || strlen (name) > KM_SKELETON_MAX_NAME ||
      !g_utf8_validate (name, -1, NULL))
    {
      g_set_error (error, KM_SKELETON_EDIT_ERROR, KM_SKELETON_EDIT_ERROR_BAD_NAME,
                   _("a joint name must be UTF-8 text between 1 and %d bytes long"),
                   KM_SKELETON_MAX_NAME);
      return FALSE;
    }
  if (draft_name_taken (d, name, except))
    {
      g_set_error (error, KM_SKELETON_EDIT_ERROR, KM_SKELETON_EDIT_ERROR_DUPLICATE_NAME,
                   _("duplicate joint name “%s”"), name);
      return FALSE;
    }
  return TRUE;
}

static gboolean
check_type (Draft        *d,
            guint         joint,
            KmJointType   type,
            GError      **error)
{
  if (type > KM_JOINT_FREE)
    {
      g_set_error (error, KM_SKELETON_EDIT_ERROR, KM_SKELETON_EDIT_ERROR_BAD_TYPE,
                   _("unknown joint type %d"), (int) type);
      return FALSE;
    }
  if (type == KM_JOINT_FREE && (d == NULL || draft_get (d, joint)->j.parent >= 0))
    {
      g_set_error (error, KM_SKELETON_EDIT_ERROR, KM_SKELETON_EDIT_ERROR_BAD_TYPE,
                   _("only the root can be a free joint"));
      return FALSE;
    }
  return TRUE;
}

/* Gives a joint that moves about or along an axis one (Z) when it has none. */
static void
joint_ensure_axis (KmJoint *j)
{
  if ((j->type == KM_JOINT_REVOLUTE || j->type == KM_JOINT_PRISMATIC) &&
      km_vec3_length (j->axis) < 1e-12)
    j->axis = km_vec3 (0, 0, 1);
}

static void
joint_reset_limits (KmJoint *j)
{
  for (guint a = 0; a < 3; a++)
    j->limits[a] = (KmLimit) { FALSE, -INFINITY, INFINITY };
}

/**
 * km_skeleton_edit_set_name:
 * @name: the new name; unique among the joints, 1 to KM_SKELETON_MAX_NAME bytes of UTF-8
 *
 * Renames a joint (the root too). Values do not follow a renamed joint in
 * km_skeleton_edit_map_state(): a caller that wants them kept copies them itself.
 *
 * Returns: (transfer full) (nullable): the new skeleton, or %NULL with @error set
 */
KmSkeleton *
km_skeleton_edit_set_name (const KmSkeleton  *skeleton,
                           guint              joint,
                           const char        *name,
                           GError           **error)
{
  g_auto(Draft) d = { 0 };

  g_return_val_if_fail (skeleton != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!check_joint (skeleton, joint, error))
    return NULL;
  draft_init (&d, skeleton);
  if (!check_new_name (&d, name, (int) joint, error))
    return NULL;
  g_free (draft_get (&d, joint)->j.name);
  draft_get (&d, joint)->j.name = g_strdup (name);
  return draft_build (&d, error);
}

/**
 * km_skeleton_edit_set_type:
 *
 * Changes the joint type. A revolute or prismatic joint without an axis gets Z; the
 * limits are kept between revolute and spherical (radians both: the first axis's limit
 * becomes X's and back) and reset to unlimited when the unit changes (radians ↔ metres).
 * Only the root may be %KM_JOINT_FREE.
 *
 * Returns: (transfer full) (nullable): the new skeleton, or %NULL with @error set
 */
KmSkeleton *
km_skeleton_edit_set_type (const KmSkeleton  *skeleton,
                           guint              joint,
                           KmJointType        type,
                           GError           **error)
{
  g_auto(Draft) d = { 0 };
  KmJoint *j;

  g_return_val_if_fail (skeleton != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!check_joint (skeleton, joint, error))
    return NULL;
  draft_init (&d, skeleton);
  if (!check_type (&d, joint, type, error))
    return NULL;
  j = &draft_get (&d, joint)->j;
  if ((j->type == KM_JOINT_PRISMATIC) != (type == KM_JOINT_PRISMATIC))
    joint_reset_limits (j);
  j->type = type;
  joint_ensure_axis (j);
  draft_drop_mimic_of (&d, joint);
  return draft_build (&d, error);
}

/**
 * km_skeleton_edit_set_parent:
 * @parent: the new parent's index; not @joint nor one of its descendants
 *
 * Moves @joint with its subtree under @parent, keeping its world pose at zero (its
 * offset and rotation are recomputed relative to the new parent), so nothing jumps on
 * screen. The root cannot be moved. Among its new siblings it keeps its place in the
 * old preorder.
 *
 * Returns: (transfer full) (nullable): the new skeleton, or %NULL with @error set
 */
KmSkeleton *
km_skeleton_edit_set_parent (const KmSkeleton  *skeleton,
                             guint              joint,
                             guint              parent,
                             GError           **error)
{
  g_auto(Draft) d = { 0 };
  KmTransform world, parent_world, inverse, local;
  DraftJoint *dj;

  g_return_val_if_fail (skeleton != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!check_joint (skeleton, joint, error) || !check_joint (skeleton, parent, error))
    return NULL;
  draft_init (&d, skeleton);
  dj = draft_get (&d, joint);
  if (dj->j.parent < 0)
    {
      g_set_error (error, KM_SKELETON_EDIT_ERROR, KM_SKELETON_EDIT_ERROR_ROOT,
                   _("the root joint cannot be given a parent"));
      return NULL;
    }
  if (draft_is_ancestor (&d, joint, parent))
    {
      g_set_error (error, KM_SKELETON_EDIT_ERROR, KM_SKELETON_EDIT_ERROR_CYCLE,
                   /* Translators: both are joint names */
                   _("“%s” cannot be the parent of “%s”: it is part of that joint’s subtree, "
                     "which would make a cycle"),
                   draft_get (&d, parent)->j.name, dj->j.name);
      return NULL;
    }
  if (dj->j.parent == (int) parent)
    return km_skeleton_ref ((KmSkeleton *) skeleton);

  draft_world_at_zero (&d, (guint) dj->j.parent, &parent_world);
  joint_get_frame (&dj->j, &local);
  km_transform_mul (&parent_world, &local, &world);
  draft_world_at_zero (&d, parent, &parent_world);
  km_transform_inverse (&parent_world, &inverse);
  km_transform_mul (&inverse, &world, &local);
  joint_set_frame (&dj->j, &local);
  dj->j.parent = (int) parent;

  return draft_build (&d, error);
}

/**
 * km_skeleton_edit_set_offset:
 * @offset: the translation from the parent's frame, in metres (finite)
 *
 * Returns: (transfer full) (nullable): the new skeleton, or %NULL with @error set
 */
KmSkeleton *
km_skeleton_edit_set_offset (const KmSkeleton  *skeleton,
                             guint              joint,
                             KmVec3             offset,
                             GError           **error)
{
  g_auto(Draft) d = { 0 };

  g_return_val_if_fail (skeleton != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!check_joint (skeleton, joint, error))
    return NULL;
  if (!km_vec3_is_finite (offset))
    {
      g_set_error (error, KM_SKELETON_EDIT_ERROR, KM_SKELETON_EDIT_ERROR_BAD_VALUE,
                   _("the offset must be three finite numbers"));
      return NULL;
    }
  draft_init (&d, skeleton);
  draft_get (&d, joint)->j.offset = offset;
  return draft_build (&d, error);
}

/**
 * km_skeleton_edit_set_rotation:
 * @rotation: the constant rotation from the parent's frame, [w, x, y, z]; normalised
 *
 * Returns: (transfer full) (nullable): the new skeleton, or %NULL with @error set
 */
KmSkeleton *
km_skeleton_edit_set_rotation (const KmSkeleton  *skeleton,
                               guint              joint,
                               KmQuat             rotation,
                               GError           **error)
{
  g_auto(Draft) d = { 0 };
  double n = km_quat_length (rotation);
  KmJoint *j;

  g_return_val_if_fail (skeleton != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!check_joint (skeleton, joint, error))
    return NULL;
  if (!isfinite (n) || n < 1e-9)
    {
      g_set_error (error, KM_SKELETON_EDIT_ERROR, KM_SKELETON_EDIT_ERROR_BAD_VALUE,
                   _("the rotation must be a finite quaternion that is not zero"));
      return NULL;
    }
  draft_init (&d, skeleton);
  j = &draft_get (&d, joint)->j;
  j->rotation = km_quat_normalize (rotation);
  j->has_rotation = TRUE;
  return draft_build (&d, error);
}

/**
 * km_skeleton_edit_set_axis:
 * @axis: the motion axis in the joint's frame; normalised, must not be zero
 *
 * Only revolute and prismatic joints have an axis (a spherical joint's are its frame's X,
 * Y and Z).
 *
 * Returns: (transfer full) (nullable): the new skeleton, or %NULL with @error set
 */
KmSkeleton *
km_skeleton_edit_set_axis (const KmSkeleton  *skeleton,
                           guint              joint,
                           KmVec3             axis,
                           GError           **error)
{
  g_auto(Draft) d = { 0 };
  double len = km_vec3_length (axis);
  KmJoint *j;

  g_return_val_if_fail (skeleton != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!check_joint (skeleton, joint, error))
    return NULL;
  if (!isfinite (len) || len < 1e-12)
    {
      g_set_error (error, KM_SKELETON_EDIT_ERROR, KM_SKELETON_EDIT_ERROR_ZERO_AXIS,
                   _("the axis must be finite and not zero"));
      return NULL;
    }
  draft_init (&d, skeleton);
  j = &draft_get (&d, joint)->j;
  if (j->type != KM_JOINT_REVOLUTE && j->type != KM_JOINT_PRISMATIC)
    {
      g_set_error (error, KM_SKELETON_EDIT_ERROR, KM_SKELETON_EDIT_ERROR_BAD_TYPE,
                   /* Translators: %s is a joint type such as spherical */
                   _("a %s joint has no axis to set"), km_joint_type_to_string (j->type));
      return NULL;
    }
  j->axis = km_vec3_scale (axis, 1.0 / len);
  return draft_build (&d, error);
}

/**
 * km_skeleton_edit_set_limit:
 * @axis_index: 0 for revolute and prismatic joints; 0, 1, 2 (X, Y, Z) for spherical ones
 * @limited: %FALSE makes the axis unlimited (@min and @max are then ignored)
 * @min: lower limit (radians or metres); may be -INFINITY
 * @max: upper limit; at least @min
 *
 * Returns: (transfer full) (nullable): the new skeleton, or %NULL with @error set
 */
KmSkeleton *
km_skeleton_edit_set_limit (const KmSkeleton  *skeleton,
                            guint              joint,
                            guint              axis_index,
                            gboolean           limited,
                            double             min,
                            double             max,
                            GError           **error)
{
  g_auto(Draft) d = { 0 };
  KmJoint *j;

  g_return_val_if_fail (skeleton != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!check_joint (skeleton, joint, error))
    return NULL;
  draft_init (&d, skeleton);
  j = &draft_get (&d, joint)->j;
  if (axis_index >= km_joint_type_n_dof (j->type))
    {
      g_set_error (error, KM_SKELETON_EDIT_ERROR, KM_SKELETON_EDIT_ERROR_BAD_LIMITS,
                   /* Translators: %s is a joint type such as fixed */
                   _("a %s joint has no limit number %u"), km_joint_type_to_string (j->type),
                   axis_index);
      return NULL;
    }
  if (limited && (isnan (min) || isnan (max) || min > max))
    {
      g_set_error (error, KM_SKELETON_EDIT_ERROR, KM_SKELETON_EDIT_ERROR_BAD_LIMITS,
                   _("the minimum must not be greater than the maximum"));
      return NULL;
    }
  j->limits[axis_index] = limited ? (KmLimit) { TRUE, min, max } :
                                    (KmLimit) { FALSE, -INFINITY, INFINITY };
  return draft_build (&d, error);
}

/**
 * km_skeleton_edit_set_mimic:
 * @master: the joint @joint follows, or -1 to make it independent
 * @ratio: q = @ratio · q[@master] + @offset (finite)
 *
 * Links @joint to @master (both revolute or prismatic; @master must not follow another
 * joint, and nothing may follow @joint).
 *
 * Returns: (transfer full) (nullable): the new skeleton, or %NULL with @error set
 */
KmSkeleton *
km_skeleton_edit_set_mimic (const KmSkeleton  *skeleton,
                            guint              joint,
                            int                master,
                            double             ratio,
                            double             offset,
                            GError           **error)
{
  g_auto(Draft) d = { 0 };
  KmJoint *j;

  g_return_val_if_fail (skeleton != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!check_joint (skeleton, joint, error) ||
      (master >= 0 && !check_joint (skeleton, (guint) master, error)))
    return NULL;
  draft_init (&d, skeleton);
  j = &draft_get (&d, joint)->j;
  if (master < 0)
    {
      j->mimic = -1;
      return draft_build (&d, error);
    }
  if (!isfinite (ratio) || !isfinite (offset))
    {
      g_set_error (error, KM_SKELETON_EDIT_ERROR, KM_SKELETON_EDIT_ERROR_BAD_VALUE,
                   _("the ratio and offset must be finite numbers"));
      return NULL;
    }
  if ((guint) master == joint || draft_get (&d, (guint) master)->j.mimic >= 0)
    {
      g_set_error (error, KM_SKELETON_EDIT_ERROR, KM_SKELETON_EDIT_ERROR_BAD_VALUE,
                   _("a joint can only follow an independent joint other than itself"));
      return NULL;
    }
  for (guint i = 0; i < d.joints->len; i++)
    if (draft_get (&d, i)->j.mimic == (int) joint)
      {
        g_set_error (error, KM_SKELETON_EDIT_ERROR, KM_SKELETON_EDIT_ERROR_BAD_VALUE,
                     _("“%s” is followed by “%s”, so it cannot follow another joint"),
                     j->name, draft_get (&d, i)->j.name);
        return NULL;
      }
  j->mimic = master;
  j->mimic_ratio = ratio;
  j->mimic_offset = offset;
  return draft_build (&d, error);
}

static void
draft_joint_init_new (DraftJoint  *dj,
                      const char  *name,
                      KmJointType  type,
                      int          parent)
{
  memset (dj, 0, sizeof *dj);
  dj->j.name = g_strdup (name);
  dj->j.type = type;
  dj->j.parent = parent;
  dj->j.rotation = KM_QUAT_IDENTITY;
  dj->j.joint_id = -1;
  dj->j.mimic = -1;
  dj->j.dof_index = -1;
  /* Unknown, as a model without them says (0 would be a limit that stops the joint). */
  dj->j.max_effort = NAN;
  dj->j.max_velocity = NAN;
  joint_reset_limits (&dj->j);
  joint_ensure_axis (&dj->j);
}

/* The axis a new revolute child of @parent at @offset turns about: one across its offset, so
 * that turning it moves what hangs below it (an axis along the offset only spins the chain
 * about its own length). The parent's axis when that is across already, so that adding
 * children one below the other gives a chain of pitch joints; else the coordinate axis
 * least along the offset (Y first), made perpendicular to it. The first joint on a fixed
 * root, a robot's base, turns about Z: it swings the chain round the vertical, and the
 * joints below it then lift it. A joint at the parent's origin keeps Z. */
static KmVec3
default_child_axis (const KmSkeleton *skeleton,
                    guint             parent,
                    KmVec3            offset)
{
  static const KmVec3 candidates[] = { { 0, 1, 0 }, { 1, 0, 0 }, { 0, 0, 1 } };
  const KmJoint *p = km_skeleton_get_joint (skeleton, parent);
  double length = km_vec3_length (offset);
  KmVec3 dir, best;
  double best_dot = INFINITY;

  if ((p->parent < 0 && p->type == KM_JOINT_FIXED) || length < 1e-12)
    return km_vec3 (0, 0, 1);
  dir = km_vec3_scale (offset, 1.0 / length);
  if (p->type == KM_JOINT_REVOLUTE && fabs (km_vec3_dot (p->axis, dir)) < 1e-9)
    return p->axis;
  best = candidates[0];
  for (guint i = 0; i < G_N_ELEMENTS (candidates); i++)
    {
      double d = fabs (km_vec3_dot (candidates[i], dir));

      if (d < best_dot - 1e-12)
        {
          best_dot = d;
          best = candidates[i];
        }
    }
  return km_vec3_normalize (km_vec3_sub (best, km_vec3_scale (dir, km_vec3_dot (best, dir))));
}

/**
 * km_skeleton_edit_add_child:
 * @parent: the joint to attach to
 * @name: (nullable): the new joint's name; %NULL picks an unused "joint", "joint_2", …
 * @type: fixed, revolute, prismatic or spherical (unlimited; a prismatic joint slides
 *   along Z, a revolute one turns about an axis across @offset, default_child_axis())
 * @offset: from the parent's frame, in metres
 * @out_joint: (out) (optional): the new joint's index in the result
 *
 * Returns: (transfer full) (nullable): the new skeleton, or %NULL with @error set
 */
KmSkeleton *
km_skeleton_edit_add_child (const KmSkeleton  *skeleton,
                            guint              parent,
                            const char        *name,
                            KmJointType        type,
                            KmVec3             offset,
                            int               *out_joint,
                            GError           **error)
{
  g_auto(Draft) d = { 0 };
  g_autofree char *chosen = NULL;
  DraftJoint dj;

  g_return_val_if_fail (skeleton != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (out_joint != NULL)
    *out_joint = -1;
  if (!check_joint (skeleton, parent, error) || !check_type (NULL, 0, type, error))
    return NULL;
  if (!km_vec3_is_finite (offset))
    {
      g_set_error (error, KM_SKELETON_EDIT_ERROR, KM_SKELETON_EDIT_ERROR_BAD_VALUE,
                   _("the offset must be three finite numbers"));
      return NULL;
    }
  draft_init (&d, skeleton);
  chosen = name != NULL ? g_strdup (name) : draft_unique_name (&d, "joint");
  if (!check_new_name (&d, chosen, -1, error))
    return NULL;
  draft_joint_init_new (&dj, chosen, type, (int) parent);
  dj.j.offset = offset;
  if (type == KM_JOINT_REVOLUTE)
    dj.j.axis = default_child_axis (skeleton, parent, offset);
  g_array_append_val (d.joints, dj);
  return draft_build_find (&d, chosen, out_joint, error);
}

/**
 * km_skeleton_edit_insert_parent:
 * @joint: the joint to insert above (not the root)
 * @name: (nullable): the new joint's name; %NULL picks an unused one
 * @type: fixed, revolute, prismatic or spherical (axis Z, unlimited)
 * @out_joint: (out) (optional): the new joint's index in the result
 *
 * Inserts a joint between @joint and its parent. The new joint takes @joint's offset and
 * rotation, and @joint gets none, so every world pose at zero stays where it was.
 *
 * Returns: (transfer full) (nullable): the new skeleton, or %NULL with @error set
 */
KmSkeleton *
km_skeleton_edit_insert_parent (const KmSkeleton  *skeleton,
                                guint              joint,
                                const char        *name,
                                KmJointType        type,
                                int               *out_joint,
                                GError           **error)
{
  g_auto(Draft) d = { 0 };
  g_autofree char *chosen = NULL;
  DraftJoint dj;
  KmJoint *child;

  g_return_val_if_fail (skeleton != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (out_joint != NULL)
    *out_joint = -1;
  if (!check_joint (skeleton, joint, error) || !check_type (NULL, 0, type, error))
    return NULL;
  draft_init (&d, skeleton);
  if (draft_get (&d, joint)->j.parent < 0)
    {
      g_set_error (error, KM_SKELETON_EDIT_ERROR, KM_SKELETON_EDIT_ERROR_ROOT,
                   _("the root joint has no parent to insert a joint below"));
      return NULL;
    }
  chosen = name != NULL ? g_strdup (name) : draft_unique_name (&d, "joint");
  if (!check_new_name (&d, chosen, -1, error))
    return NULL;

  child = &draft_get (&d, joint)->j;
  draft_joint_init_new (&dj, chosen, type, child->parent);
  dj.j.offset = child->offset;
  dj.j.rotation = child->rotation;
  dj.j.has_rotation = child->has_rotation;
  child->offset = KM_VEC3_ZERO;
  child->rotation = KM_QUAT_IDENTITY;
  child->has_rotation = FALSE;

  /* The new joint takes @joint's place among its siblings: insert it at @joint's index. */
  g_array_insert_val (d.joints, joint, dj);
  for (guint i = 0; i < d.joints->len; i++)
    {
      DraftJoint *o = draft_get (&d, i);

      if (i != joint && o->j.parent >= (int) joint)
        o->j.parent++;
      if (i != joint && o->j.mimic >= (int) joint)
        o->j.mimic++;
    }
  draft_get (&d, joint + 1)->j.parent = (int) joint;
  return draft_build_find (&d, chosen, out_joint, error);
}

/**
 * km_skeleton_edit_delete:
 * @joint: the joint to delete (not the root)
 *
 * Deletes one joint. Its children re-attach to its parent with its offset and rotation
 * composed into theirs, so their world poses at zero stay the same; the deleted joint's
 * own shapes go with it.
 *
 * Returns: (transfer full) (nullable): the new skeleton, or %NULL with @error set
 */
KmSkeleton *
km_skeleton_edit_delete (const KmSkeleton  *skeleton,
                         guint              joint,
                         GError           **error)
{
  g_auto(Draft) d = { 0 };
  KmTransform frame;
  int parent;

  g_return_val_if_fail (skeleton != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!check_joint (skeleton, joint, error))
    return NULL;
  draft_init (&d, skeleton);
  parent = draft_get (&d, joint)->j.parent;
  if (parent < 0)
    {
      g_set_error (error, KM_SKELETON_EDIT_ERROR, KM_SKELETON_EDIT_ERROR_ROOT,
                   _("the root joint cannot be deleted"));
      return NULL;
    }
  joint_get_frame (&draft_get (&d, joint)->j, &frame);
  for (guint i = 0; i < d.joints->len; i++)
    {
      DraftJoint *o = draft_get (&d, i);
      KmTransform local;

      if (o->j.parent != (int) joint)
        continue;
      joint_get_frame (&o->j, &local);
      km_transform_mul (&frame, &local, &local);
      joint_set_frame (&o->j, &local);
      o->j.parent = parent;
    }
  g_array_remove_index (d.joints, joint);
  for (guint i = 0; i < d.joints->len; i++)
    {
      DraftJoint *o = draft_get (&d, i);

      if (o->j.parent > (int) joint)
        o->j.parent--;
      /* Followers of the deleted joint move on their own from now on. */
      if (o->j.mimic == (int) joint)
        o->j.mimic = -1;
      else if (o->j.mimic > (int) joint)
        o->j.mimic--;
    }
  return draft_build (&d, error);
}

/* The name a copy would like (made unique by the caller). */
typedef char *(*RenameFunc) (const char *name);

static char *
rename_copy (const char *name)
{
  return g_strdup (name);
}

static char *
rename_mirror (const char *name)
{
  return km_skeleton_edit_mirror_name (name);
}

/* Appends a copy of the subtree of @joint (in the source skeleton's preorder, which the
 * draft starts with) under @parent. Returns the copy's first index. */
static guint
draft_copy_subtree (Draft      *d,
                    guint       joint,
                    int         parent,
                    RenameFunc  rename)
{
  const KmJoint *src = km_skeleton_get_joint (d->source, joint);
  guint end = src->subtree_end, first = d->joints->len;

  for (guint i = joint; i < end; i++)
    {
      DraftJoint copy = { 0 };
      DraftJoint *orig = draft_get (d, i);
      g_autofree char *wanted = rename (orig->j.name);

      copy.j = orig->j;
      copy.j.name = draft_unique_name (d, wanted);
      /* A link of its own name gets one the same way, unique among the links. */
      copy.j.link_name = NULL;
      if (orig->j.link_name != NULL)
        {
          g_autofree char *wanted_link = rename (orig->j.link_name);

          copy.j.link_name = draft_unique_link_name (d, wanted_link);
        }
      copy.j.joint_id = -1;
      copy.j.parent = i == joint ? parent : (int) (first + ((guint) orig->j.parent - joint));
      /* A copied follower follows the copy of its master when that is copied too. */
      if (orig->j.mimic >= (int) joint && orig->j.mimic < (int) end)
        copy.j.mimic = (int) (first + ((guint) orig->j.mimic - joint));
      if (orig->shapes != NULL)
        copy.shapes = g_ptr_array_ref (orig->shapes);
      /* Names must be unique before the next one is chosen. */
      g_array_append_val (d->joints, copy);
    }
  return first;
}

/**
 * km_skeleton_edit_duplicate:
 * @joint: the first joint of the sub-chain (not the root)
 * @out_joint: (out) (optional): the copy of @joint in the result
 *
 * Copies @joint with its whole subtree under the same parent, at the same place. The
 * copies get unique names: "NAME_2" (or _3, … when taken); no Choreonoid joint ids.
 *
 * Returns: (transfer full) (nullable): the new skeleton, or %NULL with @error set
 */
KmSkeleton *
km_skeleton_edit_duplicate (const KmSkeleton  *skeleton,
                            guint              joint,
                            int               *out_joint,
                            GError           **error)
{
  g_auto(Draft) d = { 0 };
  g_autofree char *name = NULL;
  guint first;

  g_return_val_if_fail (skeleton != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (out_joint != NULL)
    *out_joint = -1;
  if (!check_joint (skeleton, joint, error))
    return NULL;
  draft_init (&d, skeleton);
  if (draft_get (&d, joint)->j.parent < 0)
    {
      g_set_error (error, KM_SKELETON_EDIT_ERROR, KM_SKELETON_EDIT_ERROR_ROOT,
                   _("the root joint cannot be duplicated"));
      return NULL;
    }
  first = draft_copy_subtree (&d, joint, draft_get (&d, joint)->j.parent, rename_copy);
  name = g_strdup (draft_get (&d, first)->j.name);
  return draft_build_find (&d, name, out_joint, error);
}

/* Mirror names: whole words (between _ . - space or the ends) L↔R, l↔r, Left↔Right,
 * left↔right, LEFT↔RIGHT; failing those, a leading Left/Right/left/right (LeftArm), a
 * trailing one (ArmLeft), or a leading L/R before a capital (LARM_JOINT0, Choreonoid's
 * sample robots). */
static const char *const mirror_words[][2] = {
  { "L", "R" }, { "l", "r" }, { "Left", "Right" }, { "left", "right" }, { "LEFT", "RIGHT" },
};

static const char *
mirror_word (const char *word,
             gsize       len)
{
  for (guint k = 0; k < G_N_ELEMENTS (mirror_words); k++)
    for (guint s = 0; s < 2; s++)
      if (strlen (mirror_words[k][s]) == len && strncmp (word, mirror_words[k][s], len) == 0)
        return mirror_words[k][1 - s];
  return NULL;
}

static gboolean
is_separator (char c)
{
  return c == '_' || c == '.' || c == '-' || c == ' ';
}

/**
 * km_skeleton_edit_mirror_name:
 *
 * The left/right counterpart of a joint name (see the rules above), or a copy of @name
 * when it has no side.
 *
 * Returns: (transfer full): the mirrored name
 */
char *
km_skeleton_edit_mirror_name (const char *name)
{
  GString *out;
  gboolean swapped = FALSE;
  const char *p;

  g_return_val_if_fail (name != NULL, NULL);

  out = g_string_new (NULL);
  for (p = name; *p != '\0';)
    {
      const char *end = p;
      const char *swap;

      if (is_separator (*p))
        {
          g_string_append_c (out, *p++);
          continue;
        }
      while (*end != '\0' && !is_separator (*end))
        end++;
      swap = mirror_word (p, (gsize) (end - p));
      if (swap != NULL)
        {
          g_string_append (out, swap);
          swapped = TRUE;
        }
      else
        g_string_append_len (out, p, end - p);
      p = end;
    }
  if (swapped)
    return g_string_free (out, FALSE);
  g_string_free (out, TRUE);

  for (guint k = 2; k < G_N_ELEMENTS (mirror_words); k++)
    for (guint s = 0; s < 2; s++)
      {
        const char *from = mirror_words[k][s], *to = mirror_words[k][1 - s];
        gsize len = strlen (from), n = strlen (name);

        if (g_str_has_prefix (name, from))
          return g_strconcat (to, name + len, NULL);
        if (n > len && g_str_has_suffix (name, from))
          return g_strdup_printf ("%.*s%s", (int) (n - len), name, to);
      }
  if ((name[0] == 'L' || name[0] == 'R') && g_ascii_isupper (name[1]))
    return g_strdup_printf ("%c%s", name[0] == 'L' ? 'R' : 'L', name + 1);
  return g_strdup (name);
}

/* Reflection across a coordinate plane: the diagonal of M. */
static KmVec3
plane_diagonal (KmMirrorPlane plane)
{
  switch (plane)
    {
    case KM_MIRROR_PLANE_YZ:
      return km_vec3 (-1, 1, 1);
    case KM_MIRROR_PLANE_XY:
      return km_vec3 (1, 1, -1);
    case KM_MIRROR_PLANE_XZ:
    default:
      return km_vec3 (1, -1, 1);
    }
}

static inline KmVec3
reflect (KmVec3 m,
         KmVec3 v)
{
  return km_vec3 (m.x * v.x, m.y * v.y, m.z * v.z);
}

/* M R M for a rotation R: the quaternion's vector part is mirrored and negated. */
static KmQuat
reflect_quat (KmVec3 m,
              KmQuat q)
{
  return (KmQuat) { q.w, -m.x * q.x, -m.y * q.y, -m.z * q.z };
}

static void
reflect_transform (KmVec3             m,
                   const KmTransform *t,
                   KmTransform       *out)
{
  KmTransform r;

  for (guint a = 0; a < 3; a++)
    for (guint b = 0; b < 3; b++)
      r.rot.m[a][b] = (&m.x)[a] * t->rot.m[a][b] * (&m.x)[b];
  r.pos = reflect (m, t->pos);
  *out = r;
}

static KmMesh *
reflect_mesh (KmVec3  m,
              KmMesh *mesh)
{
  guint nv = km_mesh_get_n_vertices (mesh), nt = km_mesh_get_n_triangles (mesh);
  const float *v = km_mesh_get_vertices (mesh), *n = km_mesh_get_normals (mesh);
  const guint32 *idx = km_mesh_get_indices (mesh);
  g_autofree float *vertices = g_new (float, 3 * (gsize) nv);
  g_autofree float *normals = n ? g_new (float, 3 * (gsize) nv) : NULL;
  g_autofree guint32 *indices = g_new (guint32, 3 * (gsize) nt);
  KmMesh *copy;
  KmColor color;

  for (gsize i = 0; i < 3 * (gsize) nv; i++)
    {
      vertices[i] = v[i] * (float) (&m.x)[i % 3];
      if (normals)
        normals[i] = n[i] * (float) (&m.x)[i % 3];
    }
  /* A reflection turns the winding around. */
  for (gsize t = 0; t < nt; t++)
    {
      indices[3 * t] = idx[3 * t];
      indices[3 * t + 1] = idx[3 * t + 2];
      indices[3 * t + 2] = idx[3 * t + 1];
    }
  copy = km_mesh_new (vertices, nv, normals, indices, nt, NULL);
  if (copy != NULL && km_mesh_get_color (mesh, &color))
    km_mesh_set_color (copy, color);
  return copy;
}

static KmShape *
reflect_shape (KmVec3         m,
               const KmShape *shape)
{
  KmShape *copy = km_shape_copy (shape);

  reflect_transform (m, &shape->transform, &copy->transform);
  /* The primitives are symmetric in each coordinate plane of their own frame, except a
   * cone along Y: turn it half round X so that its apex mirrors too. */
  if (shape->type == KM_SHAPE_CONE && m.y < 0)
    {
      KmTransform flip = { 0 };

      km_mat3_from_axis_angle (km_vec3 (1, 0, 0), G_PI, &flip.rot);
      km_transform_mul (&copy->transform, &flip, &copy->transform);
    }
  if (shape->type == KM_SHAPE_MESH && shape->mesh != NULL)
    {
      KmMesh *mirrored = reflect_mesh (m, shape->mesh);

      if (mirrored == NULL)
        {
          km_shape_unref (copy);
          return NULL;
        }
      km_mesh_unref (copy->mesh);
      copy->mesh = mirrored;
      /* The file it was loaded from is not mirrored: its reference mirrors like one that
       * was not loaded (below), so that writers place the file mirrored. */
      if (shape->uri != NULL)
        {
          reflect_transform (m, &shape->uri_transform, &copy->uri_transform);
          copy->uri_scale = reflect (m, shape->uri_scale);
        }
    }
  else if (shape->type == KM_SHAPE_MESH)
    {
      /* A mesh file that was not loaded cannot be mirrored vertex by vertex: its scale
       * mirrors instead (M·T·S = (M·T·M)·(M·S), M diagonal). */
      copy->scale = reflect (m, shape->scale);
    }
  return copy;
}

static void
mirror_joint (KmVec3   m,
              KmJoint *j)
{
  j->offset = reflect (m, j->offset);
  j->rotation = reflect_quat (m, j->rotation);
  /* A rotation's axis is a pseudo-vector: it mirrors with a sign flip, so that the same
   * value turns the mirrored way. A translation axis mirrors plainly. */
  if (j->type == KM_JOINT_REVOLUTE)
    j->axis = km_vec3_scale (reflect (m, j->axis), -1);
  else if (j->type == KM_JOINT_PRISMATIC)
    j->axis = reflect (m, j->axis);
  else if (j->type == KM_JOINT_SPHERICAL)
    {
      /* Euler X, Y, Z keep their axes: the motion mirrors when the values about the two
       * axes that lie in the plane are negated, so mirror those limits. */
      for (guint a = 0; a < 3; a++)
        if ((&m.x)[a] > 0 && j->limits[a].limited)
          j->limits[a] = (KmLimit) { TRUE, -j->limits[a].max, -j->limits[a].min };
    }
}

/**
 * km_skeleton_edit_mirror:
 * @joint: the first joint of the sub-chain (not the root)
 * @plane: the mirror plane in the skeleton's frame
 * @out_joint: (out) (optional): the mirrored copy of @joint in the result
 *
 * Adds a mirrored copy of @joint's subtree (the existing one stays). Names are swapped
 * left/right (km_skeleton_edit_mirror_name(), made unique with _2, … when the name is
 * taken or has no side). The copy hangs from the mirror counterpart of @joint's parent
 * when there is one (mirroring LARM under LSHOULDER hangs RARM under RSHOULDER), else
 * from the same parent.
 *
 * Convention: with M the reflection across @plane, every joint of the copy has the world
 * pose at zero M·W·M of its original (positions mirrored, frames conjugated, so a frame
 * stays right-handed). Revolute axes become −M·axis and prismatic axes M·axis in the
 * joint frame, so the same joint value gives the mirrored motion, and limits are kept.
 * A spherical joint keeps its euler axes: its motion mirrors when the values about the
 * two axes in the plane are negated, and those limits are mirrored ([a, b] → [−b, −a]).
 * Shapes are mirrored (see the header).
 *
 * Returns: (transfer full) (nullable): the new skeleton, or %NULL with @error set
 */
KmSkeleton *
km_skeleton_edit_mirror (const KmSkeleton  *skeleton,
                         guint              joint,
                         KmMirrorPlane      plane,
                         int               *out_joint,
                         GError           **error)
{
  g_auto(Draft) d = { 0 };
  g_autofree char *name = NULL;
  g_autofree char *parent_mirror = NULL;
  KmVec3 m = plane_diagonal (plane);
  KmTransform world, parent_world, inverse, local;
  int parent, counterpart;
  guint first, n;

  g_return_val_if_fail (skeleton != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (out_joint != NULL)
    *out_joint = -1;
  if (!check_joint (skeleton, joint, error))
    return NULL;
  draft_init (&d, skeleton);
  parent = draft_get (&d, joint)->j.parent;
  if (parent < 0)
    {
      g_set_error (error, KM_SKELETON_EDIT_ERROR, KM_SKELETON_EDIT_ERROR_ROOT,
                   _("the root joint cannot be mirrored"));
      return NULL;
    }
  parent_mirror = km_skeleton_edit_mirror_name (draft_get (&d, (guint) parent)->j.name);
  counterpart = km_skeleton_find_joint (skeleton, parent_mirror);
  if (counterpart < 0 || draft_is_ancestor (&d, joint, (guint) counterpart))
    counterpart = parent;

  draft_world_at_zero (&d, joint, &world);
  n = d.joints->len;
  first = draft_copy_subtree (&d, joint, counterpart, rename_mirror);
  for (guint i = first; i < d.joints->len; i++)
    {
      DraftJoint *dj = draft_get (&d, i);

      mirror_joint (m, &dj->j);
      if (dj->shapes != NULL)
        {
          GPtrArray *mirrored = g_ptr_array_new_with_free_func ((GDestroyNotify) km_shape_unref);

          for (guint s = 0; s < dj->shapes->len; s++)
            {
              KmShape *shape = reflect_shape (m, g_ptr_array_index (dj->shapes, s));

              if (shape != NULL)
                g_ptr_array_add (mirrored, shape);
            }
          g_ptr_array_unref (dj->shapes);
          dj->shapes = mirrored;
        }
    }
  /* The copy's first joint: place it at M·W·M relative to where it hangs. */
  reflect_transform (m, &world, &world);
  draft_world_at_zero (&d, (guint) counterpart, &parent_world);
  km_transform_inverse (&parent_world, &inverse);
  km_transform_mul (&inverse, &world, &local);
  joint_set_frame (&draft_get (&d, first)->j, &local);
  g_assert (first == n);

  name = g_strdup (draft_get (&d, first)->j.name);
  return draft_build_find (&d, name, out_joint, error);
}

/**
 * km_skeleton_edit_map_state:
 * @old_skeleton: the skeleton @old_q belongs to
 * @old_q: its DOF values (km_skeleton_get_n_dof (@old_skeleton) of them)
 * @new_skeleton: the edited skeleton
 * @new_q: (out caller-allocates): km_skeleton_get_n_dof (@new_skeleton) values
 *
 * Carries joint values over an edit: a joint of @new_skeleton takes the values of the
 * joint of @old_skeleton with the same name and type, DOF by DOF. Every other joint (new,
 * renamed or of another type) starts at 0. Every value is then clamped into the new
 * limits.
 *
 * Returns: how many DOF values were carried over
 */
guint
km_skeleton_edit_map_state (const KmSkeleton *old_skeleton,
                            const double     *old_q,
                            const KmSkeleton *new_skeleton,
                            double           *new_q)
{
  guint n_new, carried = 0;

  g_return_val_if_fail (old_skeleton != NULL, 0);
  g_return_val_if_fail (new_skeleton != NULL, 0);
  g_return_val_if_fail (old_q != NULL || km_skeleton_get_n_dof (old_skeleton) == 0, 0);
  g_return_val_if_fail (new_q != NULL || km_skeleton_get_n_dof (new_skeleton) == 0, 0);

  n_new = km_skeleton_get_n_dof (new_skeleton);
  for (guint d = 0; d < n_new; d++)
    new_q[d] = 0;
  for (guint i = 0; i < km_skeleton_get_n_joints (new_skeleton); i++)
    {
      const KmJoint *j = km_skeleton_get_joint (new_skeleton, i);
      const KmJoint *o;
      int old;

      if (j->n_dof == 0)
        continue;
      old = km_skeleton_find_joint (old_skeleton, j->name);
      if (old < 0)
        continue;
      o = km_skeleton_get_joint (old_skeleton, (guint) old);
      if (o->type != j->type || o->n_dof != j->n_dof)
        continue;
      for (guint k = 0; k < j->n_dof; k++)
        new_q[j->dof_index + (int) k] = old_q[o->dof_index + (int) k];
      carried += j->n_dof;
    }
  km_skeleton_clamp (new_skeleton, new_q);
  return carried;
}
