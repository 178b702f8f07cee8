/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <glib-object.h>

#include "km-math.h"
#include "km-shape.h"

G_BEGIN_DECLS

#define KM_TYPE_SKELETON (km_skeleton_get_type ())
#define KM_SKELETON_ERROR (km_skeleton_error_quark ())

/* Upper bounds that keep hostile files from allocating without bound. */
#define KM_SKELETON_MAX_JOINTS 100000
#define KM_SKELETON_MAX_NAME   1024

typedef enum
{
  KM_SKELETON_ERROR_EMPTY,
  KM_SKELETON_ERROR_DUPLICATE_NAME,
  KM_SKELETON_ERROR_UNKNOWN_PARENT,
  KM_SKELETON_ERROR_CYCLE,
  KM_SKELETON_ERROR_NO_ROOT,
  KM_SKELETON_ERROR_MULTIPLE_ROOTS,
  KM_SKELETON_ERROR_ROOT_MISMATCH,
  KM_SKELETON_ERROR_ZERO_AXIS,
  KM_SKELETON_ERROR_BAD_LIMITS,
  KM_SKELETON_ERROR_BAD_VALUE,
  KM_SKELETON_ERROR_TOO_LARGE,
  KM_SKELETON_ERROR_BAD_MIMIC,
} KmSkeletonError;

typedef enum
{
  KM_JOINT_FIXED,
  KM_JOINT_REVOLUTE,
  KM_JOINT_PRISMATIC,
  KM_JOINT_SPHERICAL,
  /* A floating base (Choreonoid's "free" root). Its pose is the state's root pose, not DOFs. */
  KM_JOINT_FREE,
} KmJointType;

/* Which part of a joint a build error is about, so that a reader can point at the value. */
typedef enum
{
  KM_JOINT_FIELD_NONE,
  KM_JOINT_FIELD_NAME,
  KM_JOINT_FIELD_TYPE,
  KM_JOINT_FIELD_PARENT,
  KM_JOINT_FIELD_OFFSET,
  KM_JOINT_FIELD_ROTATION,
  KM_JOINT_FIELD_AXIS,
  KM_JOINT_FIELD_LIMITS,
  KM_JOINT_FIELD_MIMIC,
} KmJointField;

typedef struct
{
  /* Index of the joint in the order it was added to the builder (file order). */
  guint        joint;
  KmJointField field;
  /* For KM_JOINT_FIELD_LIMITS on a spherical joint: 0, 1 or 2 (X, Y, Z). */
  guint        axis;
} KmSkeletonProblem;

typedef struct
{
  /* FALSE = unlimited; min and max are then -INFINITY and +INFINITY. TRUE: min ≤ max, and
   * one end may be infinite (limited on one side only, e.g. [-INFINITY, 0.5]); never both,
   * which the builder makes unlimited. */
  gboolean limited;
  double   min;
  double   max;
} KmLimit;

/*
 * A joint of a built skeleton. Units: metres and radians. The transform from the parent
 * joint's frame is Translate(offset) · Rotate(rotation) · Motion(q): Motion rotates about
 * `axis` (revolute), translates along it (prismatic), is the euler XYZ rotation
 * Rx·Ry·Rz (spherical, 3 DOF in that order) or identity (fixed, free).
 */
typedef struct
{
  char        *name;
  KmJointType  type;
  int          parent;        /* topological index, -1 for the root */
  guint        file_index;    /* position in the source file */
  guint        subtree_end;   /* one past the last descendant (preorder) */
  KmVec3       offset;
  KmQuat       rotation;      /* constant, [w, x, y, z]; identity when the file has none */
  gboolean     has_rotation;
  KmVec3       axis;          /* unit length for revolute and prismatic */
  KmLimit      limits[3];     /* [0] for 1-DOF joints; X, Y, Z euler angles for spherical */
  int          dof_index;     /* first DOF in a state vector, -1 for joints without DOF */
  guint        n_dof;
  int          joint_id;      /* Choreonoid joint id, -1 when none */
  /* A linked (mimic) joint follows another one: q = mimic_ratio · q[mimic] + mimic_offset.
   * Both are revolute or prismatic, and the master is never a follower itself. */
  int          mimic;         /* topological index of the master, -1 when independent */
  double       mimic_ratio;
  double       mimic_offset;
  /* The name of the link the joint moves (URDF's child link; the root link for the root),
   * or NULL when that link has no name of its own: the format has none (a .body link is
   * its joint) or it is the joint's name. km_joint_get_link_name() reads either. */
  char        *link_name;
  /* The effort limit (N·m or N) and velocity limit (rad/s or m/s) the model gives the joint
   * (URDF <limit effort velocity>, .body max_joint_effort and max_joint_velocity), kept
   * for writers: the solver does not use them. NAN when the model gives none. */
  double       max_effort;
  double       max_velocity;
} KmJoint;

typedef struct _KmSkeleton KmSkeleton;
typedef struct _KmSkeletonBuilder KmSkeletonBuilder;

/* The build dropped @joint's link (file index): its limits cannot be met while it follows
 * its master; @reason says why (see km_skeleton_builder_set_unlink_func()). */
typedef void (*KmSkeletonUnlinkFunc) (guint       joint,
                                      const char *reason,
                                      gpointer    user_data);

GQuark              km_skeleton_error_quark              (void);
GType               km_skeleton_get_type                 (void) G_GNUC_CONST;

const char         *km_joint_type_to_string              (KmJointType              type);
gboolean            km_joint_type_from_string            (const char              *str,
                                                          KmJointType             *type);
guint               km_joint_type_n_dof                  (KmJointType              type);
void                km_joint_local_transform             (const KmJoint           *joint,
                                                          const double            *q,
                                                          KmTransform             *out);
const char         *km_joint_get_link_name               (const KmJoint           *joint);

KmSkeletonBuilder  *km_skeleton_builder_new              (void);
void                km_skeleton_builder_free             (KmSkeletonBuilder       *builder);
void                km_skeleton_builder_set_root_name    (KmSkeletonBuilder       *builder,
                                                          const char              *root_name);
void                km_skeleton_builder_add_body_handler (KmSkeletonBuilder       *builder,
                                                          const char              *name);
void                km_skeleton_builder_set_body_handler_location (KmSkeletonBuilder *builder,
                                                          const char              *name,
                                                          const char              *location);
guint               km_skeleton_builder_add_joint        (KmSkeletonBuilder       *builder,
                                                          const char              *name,
                                                          KmJointType              type,
                                                          const char              *parent);
guint               km_skeleton_builder_get_n_joints     (KmSkeletonBuilder       *builder);
void                km_skeleton_builder_set_offset       (KmSkeletonBuilder       *builder,
                                                          guint                    joint,
                                                          KmVec3                   offset);
void                km_skeleton_builder_set_rotation     (KmSkeletonBuilder       *builder,
                                                          guint                    joint,
                                                          KmQuat                   rotation);
void                km_skeleton_builder_set_axis         (KmSkeletonBuilder       *builder,
                                                          guint                    joint,
                                                          KmVec3                   axis);
void                km_skeleton_builder_set_limit        (KmSkeletonBuilder       *builder,
                                                          guint                    joint,
                                                          guint                    axis_index,
                                                          double                   min,
                                                          double                   max);
void                km_skeleton_builder_set_joint_id     (KmSkeletonBuilder       *builder,
                                                          guint                    joint,
                                                          int                      joint_id);
void                km_skeleton_builder_set_mimic        (KmSkeletonBuilder       *builder,
                                                          guint                    joint,
                                                          const char              *master,
                                                          double                   ratio,
                                                          double                   offset);
void                km_skeleton_builder_set_unlink_func  (KmSkeletonBuilder       *builder,
                                                          KmSkeletonUnlinkFunc     func,
                                                          gpointer                 user_data);
void                km_skeleton_builder_set_link_name    (KmSkeletonBuilder       *builder,
                                                          guint                    joint,
                                                          const char              *link_name);
void                km_skeleton_builder_set_max_effort   (KmSkeletonBuilder       *builder,
                                                          guint                    joint,
                                                          double                   effort);
void                km_skeleton_builder_set_max_velocity (KmSkeletonBuilder       *builder,
                                                          guint                    joint,
                                                          double                   velocity);
void                km_skeleton_builder_set_model_name   (KmSkeletonBuilder       *builder,
                                                          const char              *model_name);
void                km_skeleton_builder_set_default_effector (KmSkeletonBuilder   *builder,
                                                              const char          *name);
void                km_skeleton_builder_add_shape        (KmSkeletonBuilder       *builder,
                                                          guint                    joint,
                                                          KmShape                 *shape);
KmSkeleton         *km_skeleton_builder_build            (KmSkeletonBuilder       *builder,
                                                          KmSkeletonProblem       *problem,
                                                          GError                 **error);

KmSkeleton         *km_skeleton_ref                      (KmSkeleton              *self);
void                km_skeleton_unref                    (KmSkeleton              *self);
guint               km_skeleton_get_n_joints             (const KmSkeleton        *self);
guint               km_skeleton_get_n_dof                (const KmSkeleton        *self);
const KmJoint      *km_skeleton_get_joint                (const KmSkeleton        *self,
                                                          guint                    index);
const KmJoint      *km_skeleton_get_joints               (const KmSkeleton        *self);
int                 km_skeleton_find_joint               (const KmSkeleton        *self,
                                                          const char              *name);
int                 km_skeleton_find_effector            (const KmSkeleton        *self,
                                                          const char              *name);
int                *km_skeleton_dofs_by_joint_id         (const KmSkeleton        *self,
                                                          guint                    n_ids);
const char         *km_skeleton_get_root_name            (const KmSkeleton        *self);
const char         *km_skeleton_get_model_name           (const KmSkeleton        *self);
const char * const *km_skeleton_get_body_handlers        (const KmSkeleton        *self);
const char         *km_skeleton_get_body_handler_location (const KmSkeleton       *self,
                                                          const char              *name);
KmShape * const    *km_skeleton_get_shapes               (const KmSkeleton        *self,
                                                          guint                    index,
                                                          guint                   *n_shapes);
gboolean            km_skeleton_has_free_root            (const KmSkeleton        *self);
int                 km_skeleton_get_default_effector     (const KmSkeleton        *self);
int                 km_skeleton_find_ancestor            (const KmSkeleton        *self,
                                                          int                      joint,
                                                          const char              *name);
guint              *km_skeleton_dup_write_order          (const KmSkeleton        *self);
guint               km_skeleton_count_joint_ids          (const KmSkeleton        *self);
int                 km_skeleton_get_dof_joint            (const KmSkeleton        *self,
                                                          guint                    dof);
void                km_skeleton_get_dof_limits           (const KmSkeleton        *self,
                                                          double                  *lower,
                                                          double                  *upper);
void                km_skeleton_get_mid_range            (const KmSkeleton        *self,
                                                          double                  *q);
void                km_skeleton_clamp                    (const KmSkeleton        *self,
                                                          double                  *q);
double              km_range_seed                        (double                   lower,
                                                          double                   upper,
                                                          gboolean                 linear);
void                km_range_span                        (double                   lower,
                                                          double                   upper,
                                                          double                   centre,
                                                          double                   half_width,
                                                          double                  *from,
                                                          double                  *to);
gboolean            km_skeleton_within_limits            (const KmSkeleton        *self,
                                                          const double            *q,
                                                          double                   slack);
void                km_skeleton_forward_kinematics       (const KmSkeleton        *self,
                                                          const double            *q,
                                                          const KmTransform       *root_pose,
                                                          KmTransform             *world);
gboolean            km_skeleton_has_mimic                (const KmSkeleton        *self);
void                km_skeleton_apply_mimic              (const KmSkeleton        *self,
                                                          double                  *q);
double             *km_skeleton_dup_mimic_rest_pose      (const KmSkeleton        *self);
void                km_skeleton_get_mimic_range          (const KmSkeleton        *self,
                                                          guint                    joint,
                                                          double                  *lower,
                                                          double                  *upper);
gboolean            km_skeleton_equal                    (const KmSkeleton        *a,
                                                          const KmSkeleton        *b,
                                                          double                   epsilon);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KmSkeleton, km_skeleton_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (KmSkeletonBuilder, km_skeleton_builder_free)

G_END_DECLS
