/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-skeleton"

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "km-skeleton.h"
#include "km-error.h"

/*
 * A KmSkeleton is immutable once built and reference counted atomically, so that the
 * solver's worker threads can read it without locks. Joints are stored in depth-first
 * preorder (parents before children, siblings in file order), which makes every subtree a
 * contiguous range [i, subtree_end).
 */
struct _KmSkeleton
{
  KmJoint  *joints;
  KmMat3   *frame_rotations;  /* rotation matrix of each joint's constant `rotation` */
  guint     n_joints;
  guint     n_dof;
  int      *dof_joints;       /* joint index of every DOF */
  char     *root_name;
  char     *model_name;       /* the model's own name (URDF <robot name>), NULL when none */
  char    **body_handlers;
  GHashTable *handler_locations; /* name → "FILE:LINE:COLUMN" where the model names it */
  GHashTable *by_name;        /* name → index + 1 */
  GPtrArray **shapes;         /* per joint (topological), KmShape; NULL when none */
  gboolean  has_mimic;
  /* Per joint (topological), lower and upper: the range of a 1-DOF joint that keeps every
   * joint linked to it within its limits (km_skeleton_get_mimic_range()); NULL without
   * links. */
  double   *mimic_range;
  /* The default end effector an edit kept (km_skeleton_builder_set_default_effector()), a
   * leaf; -1 when it is the last leaf in file order. */
  int       default_effector;
};

typedef struct
{
  KmJoint  joint;
  char    *parent_name;
  gboolean axis_set;
  GPtrArray *shapes;          /* KmShape, owned references; NULL until the first */
  char    *mimic_name;        /* the master's name, NULL when independent */
} BuilderJoint;

struct _KmSkeletonBuilder
{
  GArray    *joints;          /* BuilderJoint, file order */
  char      *root_name;
  char      *model_name;
  char      *default_effector;
  GPtrArray *handlers;
  GHashTable *handler_locations;
  KmSkeletonUnlinkFunc unlink_func;
  gpointer   unlink_data;
};

G_DEFINE_QUARK (km-skeleton-error-quark, km_skeleton_error)
G_DEFINE_BOXED_TYPE (KmSkeleton, km_skeleton, km_skeleton_ref, km_skeleton_unref)

static const char * const joint_type_names[] = {
  [KM_JOINT_FIXED] = "fixed",
  [KM_JOINT_REVOLUTE] = "revolute",
  [KM_JOINT_PRISMATIC] = "prismatic",
  [KM_JOINT_SPHERICAL] = "spherical",
  [KM_JOINT_FREE] = "free",
};

const char *
km_joint_type_to_string (KmJointType type)
{
  g_return_val_if_fail (type <= KM_JOINT_FREE, NULL);

  return joint_type_names[type];
}

gboolean
km_joint_type_from_string (const char  *str,
                           KmJointType *type)
{
  g_return_val_if_fail (str != NULL, FALSE);

  for (guint i = 0; i < G_N_ELEMENTS (joint_type_names); i++)
    if (g_str_equal (str, joint_type_names[i]))
      {
        *type = i;
        return TRUE;
      }
  return FALSE;
}

guint
km_joint_type_n_dof (KmJointType type)
{
  switch (type)
    {
    case KM_JOINT_REVOLUTE:
    case KM_JOINT_PRISMATIC:
      return 1;
    case KM_JOINT_SPHERICAL:
      return 3;
    case KM_JOINT_FIXED:
    case KM_JOINT_FREE:
    default:
      return 0;
    }
}

static void
joint_motion (const KmJoint *joint,
              const double  *q,
              KmMat3        *rot,
              KmVec3        *trans)
{
  switch (joint->type)
    {
    case KM_JOINT_REVOLUTE:
      km_mat3_from_axis_angle (joint->axis, q[0], rot);
      *trans = KM_VEC3_ZERO;
      break;
    case KM_JOINT_PRISMATIC:
      km_mat3_identity (rot);
      *trans = km_vec3_scale (joint->axis, q[0]);
      break;
    case KM_JOINT_SPHERICAL:
      km_mat3_from_euler_xyz (km_vec3 (q[0], q[1], q[2]), rot);
      *trans = KM_VEC3_ZERO;
      break;
    case KM_JOINT_FIXED:
    case KM_JOINT_FREE:
    default:
      km_mat3_identity (rot);
      *trans = KM_VEC3_ZERO;
      break;
    }
}

static void
local_transform (const KmJoint *joint,
                 const KmMat3  *frame_rotation,
                 const double  *q,
                 KmTransform   *out)
{
  KmMat3 motion;
  KmVec3 trans;

  joint_motion (joint, q, &motion, &trans);
  if (joint->has_rotation)
    {
      km_mat3_mul (frame_rotation, &motion, &out->rot);
      out->pos = km_vec3_add (joint->offset, km_mat3_mul_vec3 (frame_rotation, trans));
    }
  else
    {
      out->rot = motion;
      out->pos = km_vec3_add (joint->offset, trans);
    }
}

/**
 * km_joint_local_transform:
 * @joint: a joint
 * @q: (nullable): the joint's DOF values (@joint->n_dof of them), or %NULL for zero
 * @out: (out): the transform from the parent joint's frame
 */
void
km_joint_local_transform (const KmJoint *joint,
                          const double  *q,
                          KmTransform   *out)
{
  static const double zero[3] = { 0, 0, 0 };
  KmMat3 frame;

  g_return_if_fail (joint != NULL);
  g_return_if_fail (out != NULL);

  km_mat3_from_quat (joint->rotation, &frame);
  local_transform (joint, &frame, q ? q : zero, out);
}

/**
 * km_joint_get_link_name:
 *
 * Returns: the name of the link @joint moves: #KmJoint.link_name, or the joint's own name
 *   when the link has none of its own
 */
const char *
km_joint_get_link_name (const KmJoint *joint)
{
  g_return_val_if_fail (joint != NULL, NULL);

  return joint->link_name != NULL ? joint->link_name : joint->name;
}

KmSkeletonBuilder *
km_skeleton_builder_new (void)
{
  KmSkeletonBuilder *self = g_new0 (KmSkeletonBuilder, 1);

  self->joints = g_array_new (FALSE, TRUE, sizeof (BuilderJoint));
  self->handlers = g_ptr_array_new_with_free_func (g_free);
  self->handler_locations = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  return self;
}

static void
builder_joint_clear (BuilderJoint *bj)
{
  g_clear_pointer (&bj->joint.name, g_free);
  g_clear_pointer (&bj->joint.link_name, g_free);
  g_clear_pointer (&bj->parent_name, g_free);
  g_clear_pointer (&bj->shapes, g_ptr_array_unref);
  g_clear_pointer (&bj->mimic_name, g_free);
}

void
km_skeleton_builder_free (KmSkeletonBuilder *self)
{
  if (self == NULL)
    return;
  for (guint i = 0; i < self->joints->len; i++)
    builder_joint_clear (&g_array_index (self->joints, BuilderJoint, i));
  g_array_unref (self->joints);
  g_ptr_array_unref (self->handlers);
  g_hash_table_unref (self->handler_locations);
  g_free (self->root_name);
  g_free (self->model_name);
  g_free (self->default_effector);
  g_free (self);
}

void
km_skeleton_builder_set_root_name (KmSkeletonBuilder *self,
                                   const char        *root_name)
{
  g_return_if_fail (self != NULL);

  g_free (self->root_name);
  self->root_name = g_strdup (root_name);
}

void
km_skeleton_builder_add_body_handler (KmSkeletonBuilder *self,
                                      const char        *name)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (name != NULL);

  for (guint i = 0; i < self->handlers->len; i++)
    if (g_str_equal (g_ptr_array_index (self->handlers, i), name))
      return;
  g_ptr_array_add (self->handlers, g_strdup (name));
}

/* Where the model file names handler @name ("FILE:LINE:COLUMN", km_parse_location()), for
 * the messages about it; the first one stated is kept. */
void
km_skeleton_builder_set_body_handler_location (KmSkeletonBuilder *self,
                                               const char        *name,
                                               const char        *location)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (name != NULL);
  g_return_if_fail (location != NULL);

  if (!g_hash_table_contains (self->handler_locations, name))
    g_hash_table_insert (self->handler_locations, g_strdup (name), g_strdup (location));
}

/**
 * km_skeleton_builder_add_joint:
 * @parent: (nullable): the parent's name, %NULL for the root
 *
 * Returns: the joint's index in file order, used by the setters and in problems
 */
guint
km_skeleton_builder_add_joint (KmSkeletonBuilder *self,
                               const char        *name,
                               KmJointType        type,
                               const char        *parent)
{
  BuilderJoint bj = { 0 };

  g_return_val_if_fail (self != NULL, 0);
  g_return_val_if_fail (name != NULL, 0);

  bj.joint.name = g_strdup (name);
  bj.joint.type = type;
  bj.joint.rotation = KM_QUAT_IDENTITY;
  bj.joint.joint_id = -1;
  bj.joint.mimic = -1;
  bj.joint.max_effort = NAN;
  bj.joint.max_velocity = NAN;
  for (guint i = 0; i < 3; i++)
    bj.joint.limits[i] = (KmLimit) { FALSE, -INFINITY, INFINITY };
  bj.parent_name = g_strdup (parent);
  g_array_append_val (self->joints, bj);
  return self->joints->len - 1;
}

guint
km_skeleton_builder_get_n_joints (KmSkeletonBuilder *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->joints->len;
}

static BuilderJoint *
builder_joint (KmSkeletonBuilder *self,
               guint              joint)
{
  g_return_val_if_fail (joint < self->joints->len, NULL);

  return &g_array_index (self->joints, BuilderJoint, joint);
}

void
km_skeleton_builder_set_offset (KmSkeletonBuilder *self,
                                guint              joint,
                                KmVec3             offset)
{
  BuilderJoint *bj = builder_joint (self, joint);

  if (bj)
    bj->joint.offset = offset;
}

void
km_skeleton_builder_set_rotation (KmSkeletonBuilder *self,
                                  guint              joint,
                                  KmQuat             rotation)
{
  BuilderJoint *bj = builder_joint (self, joint);

  if (bj)
    {
      bj->joint.rotation = rotation;
      bj->joint.has_rotation = TRUE;
    }
}

void
km_skeleton_builder_set_axis (KmSkeletonBuilder *self,
                              guint              joint,
                              KmVec3             axis)
{
  BuilderJoint *bj = builder_joint (self, joint);

  if (bj)
    {
      bj->joint.axis = axis;
      bj->axis_set = TRUE;
    }
}

void
km_skeleton_builder_set_limit (KmSkeletonBuilder *self,
                               guint              joint,
                               guint              axis_index,
                               double             min,
                               double             max)
{
  BuilderJoint *bj = builder_joint (self, joint);

  g_return_if_fail (axis_index < 3);

  if (bj)
    bj->joint.limits[axis_index] = (KmLimit) { TRUE, min, max };
}

void
km_skeleton_builder_set_joint_id (KmSkeletonBuilder *self,
                                  guint              joint,
                                  int                joint_id)
{
  BuilderJoint *bj = builder_joint (self, joint);

  if (bj)
    bj->joint.joint_id = joint_id;
}

/**
 * km_skeleton_builder_set_link_name:
 * @joint: the joint's index as km_skeleton_builder_add_joint() returned it
 * @link_name: (nullable): the name of the link the joint moves (1 to KM_SKELETON_MAX_NAME
 *   bytes), %NULL when it has none of its own; the joint's own name is the same as %NULL
 */
void
km_skeleton_builder_set_link_name (KmSkeletonBuilder *self,
                                   guint              joint,
                                   const char        *link_name)
{
  BuilderJoint *bj = builder_joint (self, joint);

  g_return_if_fail (bj != NULL);

  g_free (bj->joint.link_name);
  bj->joint.link_name = g_strcmp0 (link_name, bj->joint.name) == 0 ? NULL : g_strdup (link_name);
}

/**
 * km_skeleton_builder_set_max_effort:
 * @effort: the joint's effort limit (N·m or N) as the model gives it, NAN when none
 *
 * Kept for writers (#KmJoint.max_effort); the solver does not use it.
 */
void
km_skeleton_builder_set_max_effort (KmSkeletonBuilder *self,
                                    guint              joint,
                                    double             effort)
{
  BuilderJoint *bj = builder_joint (self, joint);

  if (bj)
    bj->joint.max_effort = effort;
}

/**
 * km_skeleton_builder_set_max_velocity:
 * @velocity: the joint's velocity limit (rad/s or m/s) as the model gives it, NAN when none
 *
 * Kept for writers (#KmJoint.max_velocity); the solver does not use it.
 */
void
km_skeleton_builder_set_max_velocity (KmSkeletonBuilder *self,
                                      guint              joint,
                                      double             velocity)
{
  BuilderJoint *bj = builder_joint (self, joint);

  if (bj)
    bj->joint.max_velocity = velocity;
}

/**
 * km_skeleton_builder_set_model_name:
 * @model_name: (nullable): the model's own name (URDF <robot name>, .body name), kept for
 *   writers; %NULL when it has none
 */
void
km_skeleton_builder_set_model_name (KmSkeletonBuilder *self,
                                    const char        *model_name)
{
  g_return_if_fail (self != NULL);

  g_free (self->model_name);
  self->model_name = model_name != NULL && model_name[0] != '\0' ? g_strdup (model_name) : NULL;
}

/**
 * km_skeleton_builder_set_default_effector:
 * @name: (nullable): a joint's name, %NULL for the last leaf in file order
 *
 * The end effector the built skeleton has when nothing names one
 * (km_skeleton_get_default_effector()), so that an edit keeps the one the skeleton had
 * before it. Ignored when the skeleton has no such joint or it is not a leaf (a default
 * effector is one; the writers list it last, km_skeleton_dup_write_order(), so that the
 * file reads back with the same one).
 */
void
km_skeleton_builder_set_default_effector (KmSkeletonBuilder *self,
                                          const char        *name)
{
  g_return_if_fail (self != NULL);

  g_free (self->default_effector);
  self->default_effector = g_strdup (name);
}

/**
 * km_skeleton_builder_add_shape:
 * @joint: the joint's index as km_skeleton_builder_add_joint() returned it
 * @shape: (transfer none): display geometry in the joint's frame; the builder takes a
 *   reference, and so does every skeleton built from it, so do not change @shape afterwards
 */
void
km_skeleton_builder_add_shape (KmSkeletonBuilder *self,
                               guint              joint,
                               KmShape           *shape)
{
  BuilderJoint *bj;

  g_return_if_fail (self != NULL);
  g_return_if_fail (shape != NULL);

  bj = builder_joint (self, joint);
  if (bj == NULL)
    return;
  if (bj->shapes == NULL)
    bj->shapes = g_ptr_array_new_with_free_func ((GDestroyNotify) km_shape_unref);
  g_ptr_array_add (bj->shapes, km_shape_ref (shape));
}

/**
 * km_skeleton_builder_set_mimic:
 * @master: (nullable): the joint @joint follows, %NULL to make it independent again
 *
 * Links @joint to @master: q = @ratio · q[@master] + @offset (a URDF `mimic`, a
 * Scenebuilder `gear`). Checked at build: both revolute or prismatic, @master exists, is
 * not @joint and follows nobody itself, and @ratio and @offset are finite.
 */
void
km_skeleton_builder_set_mimic (KmSkeletonBuilder *self,
                               guint              joint,
                               const char        *master,
                               double             ratio,
                               double             offset)
{
  BuilderJoint *bj = builder_joint (self, joint);

  g_return_if_fail (bj != NULL);

  g_free (bj->mimic_name);
  bj->mimic_name = g_strdup (master);
  bj->joint.mimic_ratio = master != NULL ? ratio : 0.0;
  bj->joint.mimic_offset = master != NULL ? offset : 0.0;
}

/**
 * km_skeleton_builder_set_unlink_func:
 * @func: (nullable): called for each link the build drops, %NULL to refuse such links
 *
 * What the build does with a linked joint whose limits no value of its master's range
 * can meet (see km_skeleton_get_mimic_range()): without @func (strict readers, edits) the
 * build fails at the joint's %KM_JOINT_FIELD_MIMIC; with it (lenient importers) the link is
 * dropped, the joint moves on its own within its limits, and @func gets the joint's file
 * index and the reason to warn with.
 */
void
km_skeleton_builder_set_unlink_func (KmSkeletonBuilder    *self,
                                     KmSkeletonUnlinkFunc  func,
                                     gpointer              user_data)
{
  g_return_if_fail (self != NULL);

  self->unlink_func = func;
  self->unlink_data = user_data;
}

static gboolean
fail (KmSkeletonProblem *problem,
      guint              joint,
      KmJointField       field,
      guint              axis)
{
  if (problem)
    *problem = (KmSkeletonProblem) { joint, field, axis };
  return FALSE;
}

static gboolean
check_joint_values (BuilderJoint      *bj,
                    guint              index,
                    KmSkeletonProblem *problem,
                    GError           **error)
{
  KmJoint *j = &bj->joint;
  guint n_limits = j->type == KM_JOINT_SPHERICAL ? 3 : 1;

  if (j->name[0] == '\0' || strlen (j->name) > KM_SKELETON_MAX_NAME)
    {
      g_set_error (error, KM_SKELETON_ERROR, KM_SKELETON_ERROR_BAD_VALUE,
                   _("a joint name must be between 1 and %d bytes long"), KM_SKELETON_MAX_NAME);
      return fail (problem, index, KM_JOINT_FIELD_NAME, 0);
    }
  if (j->link_name != NULL &&
      (j->link_name[0] == '\0' || strlen (j->link_name) > KM_SKELETON_MAX_NAME))
    {
      g_set_error (error, KM_SKELETON_ERROR, KM_SKELETON_ERROR_BAD_VALUE,
                   _("a link name must be between 1 and %d bytes long"), KM_SKELETON_MAX_NAME);
      return fail (problem, index, KM_JOINT_FIELD_NAME, 0);
    }
  if (!km_vec3_is_finite (j->offset))
    {
      g_set_error (error, KM_SKELETON_ERROR, KM_SKELETON_ERROR_BAD_VALUE,
                   _("the offset must be three finite numbers"));
      return fail (problem, index, KM_JOINT_FIELD_OFFSET, 0);
    }
  if (j->has_rotation)
    {
      double n = km_quat_length (j->rotation);

      if (!isfinite (n) || n < 1e-9)
        {
          g_set_error (error, KM_SKELETON_ERROR, KM_SKELETON_ERROR_BAD_VALUE,
                       _("the quaternion must be finite and not zero"));
          return fail (problem, index, KM_JOINT_FIELD_ROTATION, 0);
        }
      j->rotation = km_quat_normalize (j->rotation);
    }

  if (j->type == KM_JOINT_REVOLUTE || j->type == KM_JOINT_PRISMATIC)
    {
      KmVec3 unit;

      /* Any finite magnitude (km_vec3_direction()): only a zero axis is none. */
      if (!bj->axis_set || !km_vec3_direction (j->axis, &unit))
        {
          g_set_error (error, KM_SKELETON_ERROR, KM_SKELETON_ERROR_ZERO_AXIS,
                       _("the axis of joint “%s” must not be zero"), j->name);
          return fail (problem, index, KM_JOINT_FIELD_AXIS, 0);
        }
      j->axis = unit;
    }
  else
    {
      j->axis = KM_VEC3_ZERO;
    }

  for (guint a = 0; a < 3; a++)
    {
      KmLimit *l = &j->limits[a];

      if (a >= n_limits || j->type == KM_JOINT_FIXED || j->type == KM_JOINT_FREE)
        {
          *l = (KmLimit) { FALSE, -INFINITY, INFINITY };
          continue;
        }
      /* Both ends open is no limit at all; an end open the wrong way (min = +∞, max = -∞)
       * leaves no value. */
      if (!l->limited || (isinf (l->min) && isinf (l->max) && l->min < l->max))
        {
          *l = (KmLimit) { FALSE, -INFINITY, INFINITY };
          continue;
        }
      if (isnan (l->min) || isnan (l->max) || l->min > l->max || l->min == INFINITY ||
          l->max == -INFINITY)
        {
          g_set_error (error, KM_SKELETON_ERROR, KM_SKELETON_ERROR_BAD_LIMITS,
                       _("limits must be [min, max] with min ≤ max"));
          return fail (problem, index, KM_JOINT_FIELD_LIMITS, a);
        }
    }
  return TRUE;
}

static gboolean
mimic_capable (const KmJoint *joint)
{
  return joint->type == KM_JOINT_REVOLUTE || joint->type == KM_JOINT_PRISMATIC;
}

/* Points @joint (topological, in @skel) at its master, checking what set_mimic promises. */
static gboolean
resolve_mimic (KmSkeleton        *skel,
               KmSkeletonBuilder *builder,
               guint              file_index,
               KmJoint           *joint,
               KmSkeletonProblem *problem,
               GError           **error)
{
  const BuilderJoint *bj = builder_joint (builder, file_index);
  gpointer found = g_hash_table_lookup (skel->by_name, bj->mimic_name);
  const KmJoint *master;

  if (found == NULL)
    {
      g_set_error (error, KM_SKELETON_ERROR, KM_SKELETON_ERROR_BAD_MIMIC,
                   _("joint “%s” follows an unknown joint “%s”"), joint->name, bj->mimic_name);
      return fail (problem, file_index, KM_JOINT_FIELD_MIMIC, 0);
    }
  master = &skel->joints[GPOINTER_TO_UINT (found) - 1];
  if (master == joint)
    {
      g_set_error (error, KM_SKELETON_ERROR, KM_SKELETON_ERROR_BAD_MIMIC,
                   _("joint “%s” cannot follow itself"), joint->name);
      return fail (problem, file_index, KM_JOINT_FIELD_MIMIC, 0);
    }
  if (!mimic_capable (joint) || !mimic_capable (master))
    {
      g_set_error (error, KM_SKELETON_ERROR, KM_SKELETON_ERROR_BAD_MIMIC,
                   _("only revolute and prismatic joints can be linked (“%s” follows “%s”)"),
                   joint->name, master->name);
      return fail (problem, file_index, KM_JOINT_FIELD_MIMIC, 0);
    }
  if (builder_joint (builder, master->file_index)->mimic_name != NULL)
    {
      g_set_error (error, KM_SKELETON_ERROR, KM_SKELETON_ERROR_BAD_MIMIC,
                   _("joint “%s” follows “%s”, which follows another joint itself"),
                   joint->name, master->name);
      return fail (problem, file_index, KM_JOINT_FIELD_MIMIC, 0);
    }
  if (!isfinite (joint->mimic_ratio) || !isfinite (joint->mimic_offset))
    {
      g_set_error (error, KM_SKELETON_ERROR, KM_SKELETON_ERROR_BAD_MIMIC,
                   _("the ratio and offset of a linked joint must be finite"));
      return fail (problem, file_index, KM_JOINT_FIELD_MIMIC, 0);
    }
  joint->mimic = (int) (master - skel->joints);
  skel->has_mimic = TRUE;
  return TRUE;
}

/*
 * Narrows [*lower, *upper], a range of @follower's master, to the values that keep
 * @follower (q_f = r · q_m + o) within its limits: q_m within (limits − o) / r, rounded
 * inwards so that the follower computed back from a bound is inside. Returns FALSE, and
 * leaves the range alone, when no value of it does. A range that only rounding empties (a
 * follower's limits narrower than a step of r · q_m) keeps the exact bounds; the follower
 * is clamped to its limits by km_skeleton_apply_mimic() then.
 */
static gboolean
narrow_for_follower (const KmJoint *follower,
                     double        *lower,
                     double        *upper)
{
  double r = follower->mimic_ratio, o = follower->mimic_offset, flo, fhi, x, y, x0, y0;

  if (!follower->limits[0].limited)
    return TRUE;
  flo = follower->limits[0].min;
  fhi = follower->limits[0].max;
  if (r == 0.0)
    return flo <= o && o <= fhi;
  x0 = x = (flo - o) / r;
  y0 = y = (fhi - o) / r;
  if (x > y)
    {
      double tmp = x;

      x0 = x = y, y0 = y = tmp;
    }
  if (!(MAX (*lower, x0) <= MIN (*upper, y0)))
    return FALSE;
  for (int i = 0; i < 8 && (r * x + o < flo || r * x + o > fhi); i++)
    x = nextafter (x, INFINITY);
  for (int i = 0; i < 8 && (r * y + o < flo || r * y + o > fhi); i++)
    y = nextafter (y, -INFINITY);
  if (MAX (*lower, x) <= MIN (*upper, y))
    x0 = x, y0 = y;
  *lower = MAX (*lower, x0);
  *upper = MIN (*upper, y0);
  return TRUE;
}

/* Why @follower's limits cannot be met over [lower, upper], its master's range left. */
static char *
describe_unreachable (const KmSkeleton *skel,
                      const KmJoint    *follower,
                      double            lower,
                      double            upper)
{
  double r = follower->mimic_ratio, o = follower->mimic_offset;
  const char *master = skel->joints[follower->mimic].name;
  double a, b;

  if (r == 0.0)
    return g_strdup_printf (_("expected limits of “%s” that it can reach following “%s”: "
                              "with ratio 0 it stays at its offset %g, outside its limits "
                              "[%g, %g]"),
                            follower->name, master, o, follower->limits[0].min,
                            follower->limits[0].max);
  a = r * lower + o;
  b = r * upper + o;
  return g_strdup_printf (_("expected limits of “%s” that it can reach following “%s”: "
                            "with ratio %g and offset %g it moves within [%g, %g], outside "
                            "its limits [%g, %g]"),
                          follower->name, master, r, o, MIN (a, b), MAX (a, b),
                          follower->limits[0].min, follower->limits[0].max);
}

/*
 * Every master's range narrowed by its followers (in topological order), so that the
 * solver and the Pose tab keep them within their limits. A follower whose limits the range
 * left cannot meet fails the build, or loses its link through the builder's unlink
 * function.
 */
static gboolean
check_mimic_ranges (KmSkeleton        *skel,
                    KmSkeletonBuilder *builder,
                    KmSkeletonProblem *problem,
                    GError           **error)
{
  guint n = skel->n_joints;

  skel->mimic_range = g_new (double, 2 * n);
  for (guint t = 0; t < n; t++)
    {
      const KmLimit *l = &skel->joints[t].limits[0];

      skel->mimic_range[2 * t] = l->limited ? l->min : -INFINITY;
      skel->mimic_range[2 * t + 1] = l->limited ? l->max : INFINITY;
    }
  skel->has_mimic = FALSE;
  for (guint t = 0; t < n; t++)
    {
      KmJoint *f = &skel->joints[t];
      double *range;
      g_autofree char *reason = NULL;

      if (f->mimic < 0)
        continue;
      range = &skel->mimic_range[2 * f->mimic];
      if (narrow_for_follower (f, &range[0], &range[1]))
        {
          skel->has_mimic = TRUE;
          continue;
        }
      reason = describe_unreachable (skel, f, range[0], range[1]);
      if (builder->unlink_func == NULL)
        {
          g_set_error_literal (error, KM_SKELETON_ERROR, KM_SKELETON_ERROR_BAD_MIMIC, reason);
          return fail (problem, f->file_index, KM_JOINT_FIELD_MIMIC, 0);
        }
      builder->unlink_func (f->file_index, reason, builder->unlink_data);
      f->mimic = -1;
      f->mimic_ratio = 0.0;
      f->mimic_offset = 0.0;
    }
  if (!skel->has_mimic)
    g_clear_pointer (&skel->mimic_range, g_free);
  return TRUE;
}

/**
 * km_skeleton_builder_build:
 * @problem: (out) (optional): on failure, which joint and field are wrong
 *
 * Validates the joints (unique names, existing parents, one root, no cycle, non-zero axes,
 * min ≤ max, links whose followers can stay within their limits: see
 * km_skeleton_builder_set_unlink_func()) and orders them topologically. The builder may be
 * reused afterwards.
 *
 * Returns: (transfer full) (nullable): the skeleton, or %NULL with @error set
 */
static KmSkeleton *builder_build (KmSkeletonBuilder  *self,
                                  KmSkeletonProblem  *problem,
                                  GError            **error);

KmSkeleton *
km_skeleton_builder_build (KmSkeletonBuilder  *self,
                           KmSkeletonProblem  *problem,
                           GError            **error)
{
  GError *local = NULL;
  KmSkeleton *skel = builder_build (self, problem, &local);

  if (local != NULL)
    {
      /* The messages quote joint names as they are: escaped C-style, as files and `info`
       * show them (km_parse_shown_file(), km_format_append_value()), so that a name with a
       * newline, a control character or a backslash keeps a message on one line. The
       * messages' own text has none of these. */
      char *shown = km_parse_shown_file (local->message);

      g_free (local->message);
      local->message = shown;
      g_propagate_error (error, local);
    }
  return skel;
}

static KmSkeleton *
builder_build (KmSkeletonBuilder  *self,
               KmSkeletonProblem  *problem,
               GError            **error)
{
  g_autoptr(GHashTable) by_name = NULL;
  g_autofree int *parent_of = NULL;     /* file order → file order */
  g_autofree guint *first_child = NULL; /* file order linked lists of children */
  g_autofree guint *next_sibling = NULL;
  g_autofree guint *last_child = NULL;
  g_autofree guint *order = NULL;       /* topological position → file index */
  g_autofree guint *file_to_topo = NULL;
  g_autofree guint *stack = NULL;
  guint n, root = G_MAXUINT, n_ordered = 0, n_stack = 0;
  KmSkeleton *skel;

  g_return_val_if_fail (self != NULL, NULL);

  n = self->joints->len;
  if (n == 0)
    {
      g_set_error (error, KM_SKELETON_ERROR, KM_SKELETON_ERROR_EMPTY,
                   _("a skeleton needs at least one joint"));
      fail (problem, 0, KM_JOINT_FIELD_NONE, 0);
      return NULL;
    }
  if (n > KM_SKELETON_MAX_JOINTS)
    {
      g_set_error (error, KM_SKELETON_ERROR, KM_SKELETON_ERROR_TOO_LARGE,
                   _("too many joints (at most %d)"), KM_SKELETON_MAX_JOINTS);
      fail (problem, KM_SKELETON_MAX_JOINTS, KM_JOINT_FIELD_NONE, 0);
      return NULL;
    }

  by_name = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < n; i++)
    {
      BuilderJoint *bj = builder_joint (self, i);

      if (!check_joint_values (bj, i, problem, error))
        return NULL;
      if (g_hash_table_contains (by_name, bj->joint.name))
        {
          g_set_error (error, KM_SKELETON_ERROR, KM_SKELETON_ERROR_DUPLICATE_NAME,
                       _("duplicate joint name “%s”"), bj->joint.name);
          fail (problem, i, KM_JOINT_FIELD_NAME, 0);
          return NULL;
        }
      g_hash_table_insert (by_name, bj->joint.name, GUINT_TO_POINTER (i + 1));
    }

  parent_of = g_new (int, n);
  for (guint i = 0; i < n; i++)
    {
      BuilderJoint *bj = builder_joint (self, i);
      gpointer found;

      if (bj->parent_name == NULL)
        {
          parent_of[i] = -1;
          continue;
        }
      found = g_hash_table_lookup (by_name, bj->parent_name);
      if (found == NULL)
        {
          g_set_error (error, KM_SKELETON_ERROR, KM_SKELETON_ERROR_UNKNOWN_PARENT,
                       _("unknown parent “%s”"), bj->parent_name);
          fail (problem, i, KM_JOINT_FIELD_PARENT, 0);
          return NULL;
        }
      if (GPOINTER_TO_UINT (found) - 1 == i)
        {
          g_set_error (error, KM_SKELETON_ERROR, KM_SKELETON_ERROR_CYCLE,
                       _("joint “%s” is its own parent"), bj->joint.name);
          fail (problem, i, KM_JOINT_FIELD_PARENT, 0);
          return NULL;
        }
      parent_of[i] = (int) GPOINTER_TO_UINT (found) - 1;
    }

  if (self->root_name != NULL)
    {
      gpointer found = g_hash_table_lookup (by_name, self->root_name);

      if (found == NULL)
        {
          g_set_error (error, KM_SKELETON_ERROR, KM_SKELETON_ERROR_ROOT_MISMATCH,
                       _("the root joint “%s” is not among the joints"), self->root_name);
          fail (problem, 0, KM_JOINT_FIELD_NONE, 0);
          return NULL;
        }
      root = GPOINTER_TO_UINT (found) - 1;
      if (parent_of[root] != -1)
        {
          g_set_error (error, KM_SKELETON_ERROR, KM_SKELETON_ERROR_ROOT_MISMATCH,
                       _("the root joint “%s” must not have a parent"), self->root_name);
          fail (problem, root, KM_JOINT_FIELD_PARENT, 0);
          return NULL;
        }
    }
  for (guint i = 0; i < n; i++)
    {
      if (parent_of[i] != -1 || i == root)
        continue;
      if (root != G_MAXUINT)
        {
          g_set_error (error, KM_SKELETON_ERROR, KM_SKELETON_ERROR_MULTIPLE_ROOTS,
                       _("joint “%s” has no parent, but “%s” is the root"),
                       builder_joint (self, i)->joint.name, builder_joint (self, root)->joint.name);
          fail (problem, i, KM_JOINT_FIELD_PARENT, 0);
          return NULL;
        }
      root = i;
    }
  if (root == G_MAXUINT)
    {
      g_set_error (error, KM_SKELETON_ERROR, KM_SKELETON_ERROR_NO_ROOT,
                   _("no joint is the root: every joint has a parent, so they form a cycle"));
      fail (problem, 0, KM_JOINT_FIELD_PARENT, 0);
      return NULL;
    }

  /* Children lists in file order, then an iterative preorder walk (a hostile file may be a
   * chain of 100 000 joints, too deep for recursion). */
  first_child = g_new (guint, n);
  last_child = g_new (guint, n);
  next_sibling = g_new (guint, n);
  for (guint i = 0; i < n; i++)
    first_child[i] = last_child[i] = next_sibling[i] = G_MAXUINT;
  for (guint i = 0; i < n; i++)
    {
      int p = parent_of[i];

      if (p < 0)
        continue;
      if (first_child[p] == G_MAXUINT)
        first_child[p] = i;
      else
        next_sibling[last_child[p]] = i;
      last_child[p] = i;
    }

  order = g_new (guint, n);
  file_to_topo = g_new (guint, n);
  for (guint i = 0; i < n; i++)
    file_to_topo[i] = G_MAXUINT;
  stack = g_new (guint, n);
  stack[n_stack++] = root;
  while (n_stack > 0)
    {
      guint j = stack[--n_stack];
      guint n_children = 0;

      file_to_topo[j] = n_ordered;
      order[n_ordered++] = j;
      /* Push children in reverse file order so that they pop in file order. */
      for (guint c = first_child[j]; c != G_MAXUINT; c = next_sibling[c])
        n_children++;
      n_stack += n_children;
      {
        guint k = n_stack;

        for (guint c = first_child[j]; c != G_MAXUINT; c = next_sibling[c])
          stack[--k] = c;
      }
    }
  if (n_ordered < n)
    {
      for (guint i = 0; i < n; i++)
        if (file_to_topo[i] == G_MAXUINT)
          {
            g_set_error (error, KM_SKELETON_ERROR, KM_SKELETON_ERROR_CYCLE,
                         _("joint “%s” is part of a cycle and cannot be reached from the root"),
                         builder_joint (self, i)->joint.name);
            fail (problem, i, KM_JOINT_FIELD_PARENT, 0);
            return NULL;
          }
    }

  for (guint i = 0; i < n; i++)
    if (builder_joint (self, i)->joint.type == KM_JOINT_FREE && i != root)
      {
        g_set_error (error, KM_SKELETON_ERROR, KM_SKELETON_ERROR_BAD_VALUE,
                     _("only the root joint may be free"));
        fail (problem, i, KM_JOINT_FIELD_TYPE, 0);
        return NULL;
      }

  skel = g_atomic_rc_box_new0 (KmSkeleton);
  skel->n_joints = n;
  skel->joints = g_new0 (KmJoint, n);
  skel->frame_rotations = g_new (KmMat3, n);
  skel->by_name = g_hash_table_new (g_str_hash, g_str_equal);
  skel->shapes = g_new0 (GPtrArray *, n);
  for (guint t = 0; t < n; t++)
    {
      KmJoint *j = &skel->joints[t];
      guint f = order[t];
      GPtrArray *shapes = builder_joint (self, f)->shapes;

      if (shapes != NULL && shapes->len > 0)
        {
          skel->shapes[t] = g_ptr_array_new_full (shapes->len, (GDestroyNotify) km_shape_unref);
          for (guint s = 0; s < shapes->len; s++)
            g_ptr_array_add (skel->shapes[t], km_shape_ref (g_ptr_array_index (shapes, s)));
        }

      *j = builder_joint (self, f)->joint;
      j->name = g_strdup (j->name);
      j->link_name = g_strdup (j->link_name);
      j->parent = parent_of[f] < 0 ? -1 : (int) file_to_topo[parent_of[f]];
      j->file_index = f;
      j->n_dof = km_joint_type_n_dof (j->type);
      j->dof_index = j->n_dof > 0 ? (int) skel->n_dof : -1;
      skel->n_dof += j->n_dof;
      km_mat3_from_quat (j->rotation, &skel->frame_rotations[t]);
      g_hash_table_insert (skel->by_name, j->name, GUINT_TO_POINTER (t + 1));
    }
  /* Preorder: a subtree ends where the next joint that is not a descendant starts. */
  for (guint t = n; t-- > 0;)
    {
      KmJoint *j = &skel->joints[t];
      guint end = t + 1;

      while (end < n && skel->joints[end].parent >= (int) t)
        end = skel->joints[end].subtree_end;
      j->subtree_end = end;
    }
  skel->dof_joints = g_new (int, MAX (skel->n_dof, 1));
  for (guint t = 0; t < n; t++)
    for (guint d = 0; d < skel->joints[t].n_dof; d++)
      skel->dof_joints[skel->joints[t].dof_index + d] = (int) t;
  for (guint t = 0; t < n; t++)
    {
      KmJoint *j = &skel->joints[t];

      j->mimic = -1;
      if (builder_joint (self, order[t])->mimic_name != NULL &&
          !resolve_mimic (skel, self, order[t], j, problem, error))
        {
          km_skeleton_unref (skel);
          return NULL;
        }
    }
  if (skel->has_mimic && !check_mimic_ranges (skel, self, problem, error))
    {
      km_skeleton_unref (skel);
      return NULL;
    }
  skel->root_name = g_strdup (skel->joints[0].name);
  skel->model_name = g_strdup (self->model_name);
  skel->default_effector = -1;
  if (self->default_effector != NULL)
    {
      int effector = km_skeleton_find_joint (skel, self->default_effector);

      if (effector > 0 && skel->joints[effector].subtree_end == (guint) effector + 1)
        skel->default_effector = effector;
    }
  g_ptr_array_add (self->handlers, NULL);
  skel->body_handlers = g_strdupv ((char **) self->handlers->pdata);
  g_ptr_array_set_size (self->handlers, self->handlers->len - 1);
  skel->handler_locations = g_steal_pointer (&self->handler_locations);
  self->handler_locations = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  return skel;
}

KmSkeleton *
km_skeleton_ref (KmSkeleton *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return g_atomic_rc_box_acquire (self);
}

static void
skeleton_clear (KmSkeleton *self)
{
  for (guint i = 0; i < self->n_joints; i++)
    {
      g_free (self->joints[i].name);
      g_free (self->joints[i].link_name);
      g_clear_pointer (&self->shapes[i], g_ptr_array_unref);
    }
  g_free (self->shapes);
  g_free (self->joints);
  g_free (self->frame_rotations);
  g_free (self->dof_joints);
  g_free (self->mimic_range);
  g_free (self->root_name);
  g_free (self->model_name);
  g_strfreev (self->body_handlers);
  g_clear_pointer (&self->handler_locations, g_hash_table_unref);
  g_hash_table_unref (self->by_name);
}

void
km_skeleton_unref (KmSkeleton *self)
{
  g_return_if_fail (self != NULL);

  g_atomic_rc_box_release_full (self, (GDestroyNotify) skeleton_clear);
}

guint
km_skeleton_get_n_joints (const KmSkeleton *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->n_joints;
}

guint
km_skeleton_get_n_dof (const KmSkeleton *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->n_dof;
}

const KmJoint *
km_skeleton_get_joint (const KmSkeleton *self,
                       guint             index)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (index < self->n_joints, NULL);

  return &self->joints[index];
}

/**
 * km_skeleton_get_joints:
 *
 * Returns: (transfer none): all joints in topological (preorder) order
 */
const KmJoint *
km_skeleton_get_joints (const KmSkeleton *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->joints;
}

/**
 * km_skeleton_find_joint:
 *
 * Returns: the topological index of the joint called @name, or -1
 */
int
km_skeleton_find_joint (const KmSkeleton *self,
                        const char       *name)
{
  g_return_val_if_fail (self != NULL, -1);
  g_return_val_if_fail (name != NULL, -1);

  return (int) GPOINTER_TO_UINT (g_hash_table_lookup (self->by_name, name)) - 1;
}

/**
 * km_skeleton_dofs_by_joint_id:
 * @n_ids: how many Choreonoid joint ids to map: 0 … @n_ids − 1
 *
 * The DOF that each Choreonoid joint id drives in a motion (a .pseq pose, a .seq body
 * motion): the one of the 1-DOF joint with that id. -1 where no joint has the id, and
 * where its joint is linked: a follower moves with its master (km_skeleton_apply_mimic).
 *
 * Returns: (transfer full): @n_ids DOF indices (at least one entry)
 */
int *
km_skeleton_dofs_by_joint_id (const KmSkeleton *self,
                              guint             n_ids)
{
  int *dofs;

  g_return_val_if_fail (self != NULL, NULL);

  dofs = g_new (int, MAX (n_ids, 1));
  for (guint i = 0; i < MAX (n_ids, 1); i++)
    dofs[i] = -1;
  for (guint j = 0; j < self->n_joints; j++)
    {
      const KmJoint *joint = &self->joints[j];

      if (joint->joint_id >= 0 && (guint) joint->joint_id < n_ids && joint->n_dof == 1 &&
          joint->dof_index >= 0 && joint->mimic < 0 && dofs[joint->joint_id] < 0)
        dofs[joint->joint_id] = joint->dof_index;
    }
  return dofs;
}

/**
 * km_skeleton_find_effector:
 *
 * The joint an end effector name (`--effector`, targets.json's `effector`) means: the
 * joint called @name, else the joint that moves the link called @name. A URDF names its
 * links apart from its joints, and ROS tools name an end effector by its link ("tool0",
 * whose joint may be "tool0_fixed_joint"); a joint's name wins, so a name that is both
 * keeps meaning the joint. Every caller that resolves an effector name uses this.
 *
 * Returns: the joint's topological index, or -1
 */
int
km_skeleton_find_effector (const KmSkeleton *self,
                           const char       *name)
{
  int index;

  g_return_val_if_fail (self != NULL, -1);
  g_return_val_if_fail (name != NULL, -1);

  index = km_skeleton_find_joint (self, name);
  for (guint j = 0; index < 0 && j < self->n_joints; j++)
    if (g_strcmp0 (self->joints[j].link_name, name) == 0)
      index = (int) j;
  return index;
}

const char *
km_skeleton_get_root_name (const KmSkeleton *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->root_name;
}

/**
 * km_skeleton_get_model_name:
 *
 * Returns: (nullable): the model's own name (URDF <robot name>, .body name), %NULL when the
 *   model has none
 */
const char *
km_skeleton_get_model_name (const KmSkeleton *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->model_name;
}

/**
 * km_skeleton_get_body_handlers:
 *
 * Returns: (transfer none) (array zero-terminated=1): the handler names the model lists
 */
const char * const *
km_skeleton_get_body_handlers (const KmSkeleton *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return (const char * const *) self->body_handlers;
}

/**
 * km_skeleton_get_body_handler_location:
 *
 * Returns: (nullable): where the model file names handler @name ("FILE:LINE:COLUMN"),
 * NULL when the loader did not say (or the skeleton was not read from a file)
 */
const char *
km_skeleton_get_body_handler_location (const KmSkeleton *self,
                                       const char       *name)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (name != NULL, NULL);

  return self->handler_locations != NULL ? g_hash_table_lookup (self->handler_locations, name)
                                         : NULL;
}

/**
 * km_skeleton_get_shapes:
 * @index: a topological joint index
 * @n_shapes: (out): how many shapes the joint has
 *
 * The joint's display geometry, each shape in the joint's frame. Shapes are not part of
 * km_skeleton_equal().
 *
 * Returns: (transfer none) (array length=n_shapes) (nullable): the shapes, %NULL when the
 *   joint has none; valid as long as the skeleton
 */
KmShape * const *
km_skeleton_get_shapes (const KmSkeleton *self,
                        guint             index,
                        guint            *n_shapes)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (n_shapes != NULL, NULL);

  *n_shapes = 0;
  g_return_val_if_fail (index < self->n_joints, NULL);

  if (self->shapes[index] == NULL)
    return NULL;
  *n_shapes = self->shapes[index]->len;
  return (KmShape * const *) self->shapes[index]->pdata;
}

gboolean
km_skeleton_has_free_root (const KmSkeleton *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return self->joints[0].type == KM_JOINT_FREE;
}

/**
 * km_skeleton_find_ancestor:
 * @joint: a joint of @self
 * @name: a joint or link name (km_skeleton_find_effector())
 *
 * The joint @name names, where it lies above @joint (a proper ancestor: a base that bounds
 * @joint's chain, as targets' `base`).
 *
 * Returns: its index, or -1 where @self has no such joint or link, or it is not above @joint
 */
int
km_skeleton_find_ancestor (const KmSkeleton *self,
                           int               joint,
                           const char       *name)
{
  int found;

  g_return_val_if_fail (self != NULL, -1);
  g_return_val_if_fail (joint >= 0 && (guint) joint < self->n_joints, -1);

  found = name != NULL ? km_skeleton_find_effector (self, name) : -1;
  for (int j = self->joints[joint].parent; found >= 0 && j >= 0; j = self->joints[j].parent)
    if (j == found)
      return found;
  return -1;
}

/**
 * km_skeleton_get_default_effector:
 *
 * The end effector when nothing names one: the last leaf joint in file order, or the leaf
 * an edit kept (km_skeleton_builder_set_default_effector()).
 *
 * Returns: a topological joint index
 */
int
km_skeleton_get_default_effector (const KmSkeleton *self)
{
  int best = 0;
  guint best_file = 0;

  g_return_val_if_fail (self != NULL, -1);

  if (self->default_effector > 0)
    return self->default_effector;
  for (guint t = 0; t < self->n_joints; t++)
    {
      const KmJoint *j = &self->joints[t];

      if (j->subtree_end == t + 1 && (best == 0 || j->file_index >= best_file))
        {
          best = (int) t;
          best_file = j->file_index;
        }
    }
  return best;
}

/**
 * km_skeleton_dup_write_order:
 *
 * The order in which a writer lists the joints so that the file reads back with the same
 * default end effector (km_skeleton_get_default_effector(): the last leaf in file order,
 * or the leaf an edit kept): parents first, and as close to file order as that allows. A
 * file that lists parents first is written in its own order (its last joint is the default
 * effector), so it reads back with the same topological and DOF order. In one that lists
 * a child before its parent, such a child comes right after its parent (with its own such
 * children), and the default effector last of all.
 *
 * Returns: (transfer full) (array): n_joints topological joint indices
 */
guint *
km_skeleton_dup_write_order (const KmSkeleton *self)
{
  g_autofree guint *topo_of = NULL;   /* file index → topological index */
  g_autofree guint *stack = NULL;
  g_autofree gboolean *written = NULL;
  guint *order;
  guint n_written = 0, last = G_MAXUINT;
  int effector;

  g_return_val_if_fail (self != NULL, NULL);

  order = g_new (guint, MAX (self->n_joints, 1));
  topo_of = g_new (guint, MAX (self->n_joints, 1));
  stack = g_new (guint, MAX (self->n_joints, 1));
  written = g_new0 (gboolean, MAX (self->n_joints, 1));
  for (guint t = 0; t < self->n_joints; t++)
    topo_of[self->joints[t].file_index] = t;
  effector = km_skeleton_get_default_effector (self);
  if (effector > 0)
    last = (guint) effector;
  /* File order, but a joint whose parent is not written yet waits for it: a joint is
   * written once its parent is, then the children that waited for it (earlier in the file
   * than @f), and theirs. The default effector (a leaf) waits until the end. */
  for (guint f = 0; f < self->n_joints; f++)
    {
      guint t = topo_of[f], n_stack = 0;
      int parent = self->joints[t].parent;

      if (t == last || (parent >= 0 && !written[parent]))
        continue;
      stack[n_stack++] = t;
      while (n_stack > 0)
        {
          guint j = stack[--n_stack], n_waiting = 0;

          written[j] = TRUE;
          order[n_written++] = j;
          /* The waiting children, pushed so that they pop in file order (the preorder has
           * a joint's children in file order). */
          for (guint c = j + 1; c < self->joints[j].subtree_end; c = self->joints[c].subtree_end)
            if (self->joints[c].file_index < f && c != last)
              n_waiting++;
          n_stack += n_waiting;
          for (guint c = j + 1, m = n_stack; c < self->joints[j].subtree_end;
               c = self->joints[c].subtree_end)
            if (self->joints[c].file_index < f && c != last)
              stack[--m] = c;
        }
    }
  if (last != G_MAXUINT)
    order[n_written++] = last;
  g_assert (n_written == self->n_joints);
  return order;
}

/**
 * km_skeleton_count_joint_ids:
 *
 * Returns: how many joints have a joint id (KmJoint.joint_id, a Choreonoid .body's
 *   jointId), which formats without ids (URDF, skeleton.json) do not carry
 */
guint
km_skeleton_count_joint_ids (const KmSkeleton *self)
{
  guint n = 0;

  g_return_val_if_fail (self != NULL, 0);

  for (guint t = 0; t < self->n_joints; t++)
    if (self->joints[t].joint_id >= 0)
      n++;
  return n;
}

int
km_skeleton_get_dof_joint (const KmSkeleton *self,
                           guint             dof)
{
  g_return_val_if_fail (self != NULL, -1);
  g_return_val_if_fail (dof < self->n_dof, -1);

  return self->dof_joints[dof];
}

/**
 * km_skeleton_get_dof_limits:
 * @lower: (out caller-allocates) (array): n_dof values; -INFINITY where unlimited
 * @upper: (out caller-allocates) (array): n_dof values; +INFINITY where unlimited
 */
void
km_skeleton_get_dof_limits (const KmSkeleton *self,
                            double           *lower,
                            double           *upper)
{
  g_return_if_fail (self != NULL);

  for (guint d = 0; d < self->n_dof; d++)
    {
      const KmJoint *j = &self->joints[self->dof_joints[d]];
      const KmLimit *l = &j->limits[d - (guint) j->dof_index];

      lower[d] = l->limited ? l->min : -INFINITY;
      upper[d] = l->limited ? l->max : INFINITY;
    }
}

/* How far inside its finite end a DOF limited on one side only is seeded: an eighth of a
 * turn, or 10 cm. */
#define HALF_RANGE_MARGIN_ANGLE (G_PI / 4)
#define HALF_RANGE_MARGIN_LENGTH 0.1

/**
 * km_range_seed:
 * @lower: the lowest value, -∞ when open
 * @upper: the highest value, +∞ when open
 * @linear: %TRUE for a length (metres), %FALSE for an angle (radians)
 *
 * The neutral value of a range: its middle when both ends are finite, 0 when both are
 * open, and for a range limited on one side only 0 kept at least HALF_RANGE_MARGIN (an
 * eighth of a turn, 10 cm) inside the finite end, so that a seed is never on a limit:
 * [-∞, 0.5] gives -0.285, [-π/2, +∞] gives 0, [0, +∞] gives π/4. Always finite.
 */
double
km_range_seed (double   lower,
               double   upper,
               gboolean linear)
{
  double margin = linear ? HALF_RANGE_MARGIN_LENGTH : HALF_RANGE_MARGIN_ANGLE;
  double q;

  if (isfinite (lower) && isfinite (upper))
    q = 0.5 * (lower + upper);
  else if (isfinite (lower))
    q = MAX (0.0, lower + margin);
  else if (isfinite (upper))
    q = MIN (0.0, upper - margin);
  else
    q = 0.0;
  return isfinite (q) ? q : 0.0;
}

/**
 * km_range_span:
 * @centre: where the span is centred (0 when not finite)
 * @half_width: half the span's width
 * @from: (out): the span's low end, finite
 * @to: (out): the span's high end, finite
 *
 * A finite span of [@lower, @upper] to draw values from where a range has an open end:
 * [@centre - @half_width, @centre + @half_width] slid (not shrunk) inside the range, cut
 * to the range where that is narrower. For [-∞, 0.5] and a half-width of π about 0 that
 * is [0.5 - 2π, 0.5]: the finite end and a turn inwards.
 */
void
km_range_span (double  lower,
               double  upper,
               double  centre,
               double  half_width,
               double *from,
               double *to)
{
  double a, b;

  if (!isfinite (centre))
    centre = 0.0;
  if (!(half_width >= 0.0) || !isfinite (half_width))
    half_width = 0.0;
  a = centre - half_width;
  b = centre + half_width;
  if (a < lower)
    b += lower - a, a = lower;
  if (b > upper)
    a -= b - upper, b = upper;
  *from = MAX (a, lower);
  *to = MIN (b, upper);
}

/* The seed of one DOF of @j (km_range_seed). */
static double
limit_seed (const KmJoint *j,
            const KmLimit *l)
{
  return l->limited ? km_range_seed (l->min, l->max, j->type == KM_JOINT_PRISMATIC) : 0.0;
}

/**
 * km_skeleton_get_mid_range:
 * @q: (out caller-allocates) (array): n_dof values
 *
 * The middle of every DOF's limits, 0 where a DOF is unlimited (the benchmarks' seed). A
 * DOF limited on one side only gets 0 kept an eighth of a turn (10 cm for a prismatic
 * joint) inside its finite end (km_range_seed()): finite, within the limits, off them.
 */
void
km_skeleton_get_mid_range (const KmSkeleton *self,
                           double           *q)
{
  g_return_if_fail (self != NULL);

  for (guint d = 0; d < self->n_dof; d++)
    {
      const KmJoint *j = &self->joints[self->dof_joints[d]];
      const KmLimit *l = &j->limits[d - (guint) j->dof_index];

      q[d] = limit_seed (j, l);
    }
}

void
km_skeleton_clamp (const KmSkeleton *self,
                   double           *q)
{
  g_return_if_fail (self != NULL);

  for (guint d = 0; d < self->n_dof; d++)
    {
      const KmJoint *j = &self->joints[self->dof_joints[d]];
      const KmLimit *l = &j->limits[d - (guint) j->dof_index];

      if (!isfinite (q[d]))
        q[d] = limit_seed (j, l);
      if (l->limited)
        q[d] = CLAMP (q[d], l->min, l->max);
    }
}

gboolean
km_skeleton_within_limits (const KmSkeleton *self,
                           const double     *q,
                           double            slack)
{
  g_return_val_if_fail (self != NULL, FALSE);

  for (guint d = 0; d < self->n_dof; d++)
    {
      const KmJoint *j = &self->joints[self->dof_joints[d]];
      const KmLimit *l = &j->limits[d - (guint) j->dof_index];

      if (!isfinite (q[d]))
        return FALSE;
      if (l->limited && (q[d] < l->min - slack || q[d] > l->max + slack))
        return FALSE;
    }
  return TRUE;
}

/**
 * km_skeleton_forward_kinematics:
 * @q: (array): n_dof joint values
 * @root_pose: (nullable): where the skeleton stands in the world; %NULL for identity
 * @world: (out caller-allocates) (array): n_joints world transforms, topological order
 *
 * Allocates nothing; safe to call from any thread.
 */
void
km_skeleton_forward_kinematics (const KmSkeleton  *self,
                                const double      *q,
                                const KmTransform *root_pose,
                                KmTransform       *world)
{
  static const double zero[3] = { 0, 0, 0 };

  g_return_if_fail (self != NULL);
  g_return_if_fail (world != NULL);

  for (guint t = 0; t < self->n_joints; t++)
    {
      const KmJoint *j = &self->joints[t];
      const double *qj = j->dof_index >= 0 ? &q[j->dof_index] : zero;
      KmTransform local;

      local_transform (j, &self->frame_rotations[t], qj, &local);
      if (j->parent >= 0)
        km_transform_mul (&world[j->parent], &local, &world[t]);
      else if (root_pose != NULL)
        km_transform_mul (root_pose, &local, &world[t]);
      else
        world[t] = local;
    }
}

static gboolean
close_enough (double a,
              double b,
              double epsilon)
{
  if (isinf (a) || isinf (b))
    return a == b;
  return fabs (a - b) <= epsilon;
}

static gboolean
vec3_close (KmVec3 a,
            KmVec3 b,
            double epsilon)
{
  return close_enough (a.x, b.x, epsilon) && close_enough (a.y, b.y, epsilon) &&
         close_enough (a.z, b.z, epsilon);
}

/**
 * km_skeleton_equal:
 *
 * Whether two skeletons describe the same tree: names, types, parents, offsets, frame
 * rotations, axes, limits and handlers, numbers compared within @epsilon.
 */
/**
 * km_skeleton_has_mimic:
 *
 * Returns: whether any joint follows another one (see #KmJoint.mimic)
 */
gboolean
km_skeleton_has_mimic (const KmSkeleton *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return self->has_mimic;
}

/**
 * km_skeleton_get_mimic_range:
 * @joint: a 1-DOF joint's topological index
 * @lower: (out): the lowest value, -∞ when unlimited
 * @upper: (out): the highest value, +∞ when unlimited
 *
 * The range of @joint (its own limits, or unlimited) narrowed so that every joint linked to
 * it (mimic) stays within its own limits: for q_f = r · q_m + o that is q_m within
 * (limits_f − o) / r, rounded inwards so that the follower computed back from a bound is
 * inside. Never empty: the build refuses (or drops) a link whose follower's limits no
 * value of the master's range can meet. The solver and the Pose tab both keep masters
 * within it.
 */
void
km_skeleton_get_mimic_range (const KmSkeleton *self,
                             guint             joint,
                             double           *lower,
                             double           *upper)
{
  const KmJoint *mj;

  g_return_if_fail (self != NULL);
  g_return_if_fail (joint < self->n_joints);
  g_return_if_fail (lower != NULL && upper != NULL);

  if (self->mimic_range != NULL)
    {
      *lower = self->mimic_range[2 * joint];
      *upper = self->mimic_range[2 * joint + 1];
      return;
    }
  mj = &self->joints[joint];
  *lower = mj->limits[0].limited ? mj->limits[0].min : -INFINITY;
  *upper = mj->limits[0].limited ? mj->limits[0].max : INFINITY;
}

/**
 * km_skeleton_apply_mimic:
 * @q: (array): a state vector of km_skeleton_get_n_dof() values
 *
 * Sets every linked joint's value from its master's: q = ratio · q[master] + offset. A
 * master outside its km_skeleton_get_mimic_range() is first moved to the nearest end of
 * it, and a follower is kept within its limits against rounding, so that no value leaves
 * its limits; for a master within that range (what the solver and the Pose tab keep) the
 * followers are exactly ratio · master + offset.
 */
void
km_skeleton_apply_mimic (const KmSkeleton *self,
                         double           *q)
{
  g_return_if_fail (self != NULL);

  if (!self->has_mimic || q == NULL)
    return;
  for (guint t = 0; t < self->n_joints; t++)
    {
      const KmJoint *j = &self->joints[t];
      const KmLimit *l = &j->limits[0];
      double *m, v;

      if (j->mimic < 0)
        continue;
      m = &q[self->joints[j->mimic].dof_index];
      *m = CLAMP (*m, self->mimic_range[2 * j->mimic], self->mimic_range[2 * j->mimic + 1]);
      v = j->mimic_ratio * *m + j->mimic_offset;
      q[j->dof_index] = l->limited ? CLAMP (v, l->min, l->max) : v;
    }
}

/**
 * km_skeleton_dup_mimic_rest_pose:
 *
 * The pose a model without a stated pose starts at: every joint at 0 except the linked
 * ones, which follow their masters (km_skeleton_apply_mimic(): a follower with an offset
 * is at that offset). A loader gives it as its KmModelExtras.initial_q, so that the
 * body, the solver and a .body export start where the file's links say.
 *
 * Returns: (transfer full) (nullable) (array): km_skeleton_get_n_dof() values, %NULL when
 *   that pose is all zeros (no linked joint, or none moved by its link)
 */
double *
km_skeleton_dup_mimic_rest_pose (const KmSkeleton *self)
{
  g_autofree double *q = NULL;

  g_return_val_if_fail (self != NULL, NULL);

  if (!self->has_mimic || self->n_dof == 0)
    return NULL;
  q = g_new0 (double, self->n_dof);
  km_skeleton_apply_mimic (self, q);
  for (guint d = 0; d < self->n_dof; d++)
    if (q[d] != 0)
      return g_steal_pointer (&q);
  return NULL;
}

gboolean
km_skeleton_equal (const KmSkeleton *a,
                   const KmSkeleton *b,
                   double            epsilon)
{
  g_return_val_if_fail (a != NULL && b != NULL, FALSE);

  if (a->n_joints != b->n_joints || a->n_dof != b->n_dof)
    return FALSE;
  if (g_strv_length (a->body_handlers) != g_strv_length (b->body_handlers))
    return FALSE;
  for (guint i = 0; a->body_handlers[i]; i++)
    if (!g_str_equal (a->body_handlers[i], b->body_handlers[i]))
      return FALSE;
  for (guint t = 0; t < a->n_joints; t++)
    {
      const KmJoint *ja = &a->joints[t], *jb = &b->joints[t];

      if (!g_str_equal (ja->name, jb->name) || ja->type != jb->type || ja->parent != jb->parent)
        return FALSE;
      if (!vec3_close (ja->offset, jb->offset, epsilon) || !vec3_close (ja->axis, jb->axis, epsilon))
        return FALSE;
      if (km_quat_angle_between (ja->rotation, jb->rotation) > epsilon)
        return FALSE;
      if (ja->mimic != jb->mimic ||
          (ja->mimic >= 0 && (!close_enough (ja->mimic_ratio, jb->mimic_ratio, epsilon) ||
                              !close_enough (ja->mimic_offset, jb->mimic_offset, epsilon))))
        return FALSE;
      for (guint l = 0; l < 3; l++)
        if (ja->limits[l].limited != jb->limits[l].limited ||
            !close_enough (ja->limits[l].min, jb->limits[l].min, epsilon) ||
            !close_enough (ja->limits[l].max, jb->limits[l].max, epsilon))
          return FALSE;
    }
  return TRUE;
}
