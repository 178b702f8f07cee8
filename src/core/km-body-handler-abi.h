/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

/*
 * km-body-handler-abi.h — the stable C ABI between Kinema and body-handler plug-ins.
 *
 * Installed as <kinema/km-body-handler-abi.h>. It needs nothing but a C99 compiler: no
 * GLib, no Kinema library, plain C types only, so a handler is one .c file built as a
 * shared module:
 *
 *   cc -shared -fPIC -fvisibility=hidden -I$PREFIX/include MyHandler.c -o MyHandler.so
 *
 * or, with meson:
 *
 *   shared_module('MyHandler', 'MyHandler.c', name_prefix: '',
 *     include_directories: ..., install: true,
 *     install_dir: get_option('libdir') / 'kinema' / 'bodyhandler')
 *
 * A model names its handlers (`body_handlers: MyHandler` in a .body file or skeleton.json,
 * `extra_body_handlers` on a project's body item); handler NAME is the module NAME.so (no
 * `lib` prefix), looked up only in trusted directories (see km-body-handler.h).
 *
 * What a module provides: the factory KM_BODY_HANDLER_FACTORY_NAME, which receives the
 * host's ABI version and returns the handler's class table, or NULL when the handler was
 * built for another version. KM_BODY_HANDLER_DEFINE (class_table) writes it (and the
 * exported version number the host prints on a mismatch). Example:
 *
 *   typedef struct { int joint; } MyHandler;           // the instance
 *
 *   static int my_initialize (void *instance, const KmBodyHandlerSkeleton *skeleton,
 *                             KmBodyHandlerLogFunc log, void *log_data) { ... }
 *
 *   static const KmBodyHandlerClass my_class = {
 *     .abi_version = KM_BODY_HANDLER_ABI_VERSION,
 *     .struct_size = sizeof (KmBodyHandlerClass),
 *     .name = "MyHandler",
 *     .instance_size = sizeof (MyHandler),
 *     .initialize = my_initialize,
 *     .linked_joints = &my_linked_joints,
 *   };
 *   KM_BODY_HANDLER_DEFINE (my_class)
 *
 * Instances. The host allocates `instance_size` zeroed bytes (aligned for any C type),
 * calls initialize() once, and later clone() into another zeroed block and finalize()
 * before freeing a block. An instance never holds pointers into the host other than the
 * skeleton view it was initialized with, which stays valid until that instance (and every
 * clone made from it) is finalized.
 *
 * Threads. initialize() runs on the thread that attaches the handler (normally the main
 * thread). The host gives each worker thread its own clone: clone() may run on any thread
 * and only reads its source. Functions that take a `const void *instance` (joint path,
 * presentation, queries) must only read the instance: the host may call them on one
 * instance from several threads at once. Functions that take `void *instance` (linked
 * joints) are called by one thread at a time per instance.
 *
 * Failure. initialize() returning 0 means "not attached": the model loads without the
 * handler and the message logged says why. Other functions report "no answer" through
 * their return value; none may abort the process. A handler that crashes takes the host
 * with it: native code cannot be contained in-process, which is why only trusted
 * directories are searched.
 *
 * Units: metres and radians; rotations are 3×3 row-major matrices; quaternions [w,x,y,z].
 * Joint values are DOF vectors of the skeleton (see KmBodyHandlerJoint.dof_index).
 */

#ifndef KM_BODY_HANDLER_ABI_H
#define KM_BODY_HANDLER_ABI_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever any struct or function type below changes incompatibly. */
#define KM_BODY_HANDLER_ABI_VERSION 1

/* The exported symbols a module must provide (KM_BODY_HANDLER_DEFINE writes both). */
#define KM_BODY_HANDLER_FACTORY_NAME "kinema_body_handler_get_class"
#define KM_BODY_HANDLER_VERSION_NAME "kinema_body_handler_abi_version"

#if defined(_WIN32) || defined(__CYGWIN__)
#define KM_BODY_HANDLER_EXPORT __declspec(dllexport)
#else
#define KM_BODY_HANDLER_EXPORT __attribute__((visibility ("default")))
#endif

/* Joint types, the same values as Kinema's KmJointType. */
typedef enum
{
  KM_BODY_HANDLER_JOINT_FIXED = 0,
  KM_BODY_HANDLER_JOINT_REVOLUTE = 1,
  KM_BODY_HANDLER_JOINT_PRISMATIC = 2,
  KM_BODY_HANDLER_JOINT_SPHERICAL = 3,
  KM_BODY_HANDLER_JOINT_FREE = 4,
} KmBodyHandlerJointType;

/*
 * One joint of the skeleton, in topological order (parents before children). The local
 * transform from the parent joint's frame is Translate(offset) · Rotate(rotation) ·
 * Motion(q), Motion rotating about `axis` (revolute) or translating along it (prismatic).
 */
typedef struct
{
  const char *name;          /* UTF-8, unique within the skeleton */
  int         type;          /* KmBodyHandlerJointType */
  int         parent;        /* index of the parent joint, -1 for the root */
  int         dof_index;     /* first DOF in a joint-value vector, -1 without DOF */
  unsigned    n_dof;         /* 0, 1, or 3 (spherical) */
  int         joint_id;      /* Choreonoid joint id, -1 when none */
  double      offset[3];
  double      rotation[4];   /* [w, x, y, z] */
  double      axis[3];       /* unit length for revolute and prismatic */
  double      lower;         /* limits of the first DOF; -HUGE_VAL / HUGE_VAL when free */
  double      upper;
} KmBodyHandlerJoint;

/* A read-only view of the skeleton a handler is attached to. */
typedef struct
{
  unsigned                  struct_size;  /* sizeof (KmBodyHandlerSkeleton) of the host */
  const char               *name;         /* the model's root name */
  unsigned                  n_joints;
  unsigned                  n_dof;
  const KmBodyHandlerJoint *joints;       /* n_joints entries */
} KmBodyHandlerSkeleton;

typedef enum
{
  KM_BODY_HANDLER_LOG_INFO = 0,
  KM_BODY_HANDLER_LOG_WARNING = 1,
  KM_BODY_HANDLER_LOG_ERROR = 2,
} KmBodyHandlerLogLevel;

/* Sends one message (UTF-8, no trailing newline needed) to the host's message view. Valid
 * only during initialize(). */
typedef void (*KmBodyHandlerLogFunc) (void       *log_data,
                                      int         level,
                                      const char *message);

/* Pass as `configuration` to solve(): the configuration nearest to the seed (continuous
 * along a trajectory). */
#define KM_BODY_HANDLER_CONFIGURATION_NEAREST (-1)

/*
 * Custom joint path: analytic inverse kinematics between two joints, with joint-space
 * configurations (elbow up/down and so on) that can be listed, named and chosen.
 *
 * A path is (base, end): joint indices; base -1 means "from the skeleton's root frame",
 * i.e. the frame the root joint's offset is expressed in. The path's moving DOFs are those
 * of the joints from `end` up to, not including, `base`.
 */
typedef struct
{
  unsigned    struct_size;  /* sizeof (KmBodyHandlerJointPathIface) the handler was built with */
  /* Nonzero when the handler solves this path. */
  int         (*covers)                 (const void *instance,
                                         int         base,
                                         int         end);
  /* How many configurations the path has (at least 1). */
  unsigned    (*get_n_configurations)   (const void *instance,
                                         int         base,
                                         int         end);
  /* A short static UTF-8 name ("shoulder left, elbow up, wrist no flip"), or NULL. */
  const char *(*get_configuration_name) (const void *instance,
                                         int         base,
                                         int         end,
                                         unsigned    index);
  /*
   * Solves for `end`'s frame reaching target_pos / target_rot, expressed in `base`'s frame
   * (its frame after its own motion; the skeleton's root frame for base -1). q holds the
   * skeleton's n_dof values: the seed on entry, the answer on return (only the path's DOFs
   * change). configuration: an index below get_n_configurations(), or
   * KM_BODY_HANDLER_CONFIGURATION_NEAREST. Returns the configuration index used, or -1
   * when there is no solution (q is then left unchanged).
   */
  int         (*solve)                  (const void   *instance,
                                         int           base,
                                         int           end,
                                         const double  target_pos[3],
                                         const double  target_rot[9],
                                         int           configuration,
                                         double       *q);
  /* Which configuration q is in, or -1 when that cannot be told (a singular pose). */
  int         (*get_configuration)      (const void   *instance,
                                         int           base,
                                         int           end,
                                         const double *q);
} KmBodyHandlerJointPathIface;

/*
 * Linked joints: joints that move together (closed links, coupled axes).
 */
typedef struct
{
  unsigned struct_size;
  /* Nonzero when the joint (index) is one of the handler's linked joints. */
  int      (*is_linked)   (const void *instance,
                           int         joint);
  /*
   * Sets the master joint's first DOF to `value` in q and updates the joints linked to it.
   * master -1: re-synchronises every linked joint from the current values (value unused).
   * Returns nonzero when q was changed consistently, 0 when the master is not one of the
   * handler's joints (q is then left unchanged).
   */
  int      (*update)      (void       *instance,
                           int         master,
                           double      value,
                           double     *q);
} KmBodyHandlerLinkedJointsIface;

typedef enum
{
  KM_BODY_HANDLER_UNIT_ANGLE = 0,   /* an angle, in the unit unit_label names ("deg") */
  KM_BODY_HANDLER_UNIT_LENGTH = 1,  /* a length, in the unit unit_label names ("mm") */
  KM_BODY_HANDLER_UNIT_FIXED = 2,   /* dimensionless or custom; unit_label names it */
} KmBodyHandlerUnitKind;

/*
 * Displacement presentation: how a joint's value is shown and entered. Shown values are
 * in the unit unit_label names; the host shows and edits them as they are.
 */
typedef struct
{
  unsigned    struct_size;
  /* Nonzero when the handler presents this joint. */
  int         (*presents)       (const void *instance,
                                 int         joint);
  /* KmBodyHandlerUnitKind of the shown value. */
  int         (*get_unit_kind)  (const void *instance,
                                 int         joint);
  /* A short static UTF-8 label ("mm"), never NULL for a presented joint. */
  const char *(*get_unit_label) (const void *instance,
                                 int         joint);
  /* Joint value (rad or m) → shown value. */
  double      (*to_shown)       (const void *instance,
                                 int         joint,
                                 double      value);
  /* Shown value → joint value. Returns 0 when the shown value is out of reach. */
  int         (*from_shown)     (const void *instance,
                                 int         joint,
                                 double      shown,
                                 double     *value);
  /* The shown range (for sliders and spin buttons). */
  void        (*get_shown_range) (const void *instance,
                                  int         joint,
                                  double     *min,
                                  double     *max);
} KmBodyHandlerPresentationIface;

/* The class table a module returns. Every interface pointer is optional (NULL). */
typedef struct
{
  unsigned    abi_version;    /* KM_BODY_HANDLER_ABI_VERSION when the handler was built */
  unsigned    struct_size;    /* sizeof (KmBodyHandlerClass) when the handler was built */
  const char *name;           /* the handler's name, UTF-8 */
  size_t      instance_size;  /* bytes the host allocates (zeroed) per instance; >= 1 */
  /* Finds its joints in the skeleton; 0 = do not attach (say why through log). */
  int         (*initialize)   (void                        *instance,
                               const KmBodyHandlerSkeleton *skeleton,
                               KmBodyHandlerLogFunc         log,
                               void                        *log_data);
  /* Copies src into the zeroed block dest. NULL = a byte copy is enough. 0 = failed. */
  int         (*clone)        (void                        *dest,
                               const void                  *src);
  /* Releases what the instance owns (not the block itself). NULL = nothing to release. */
  void        (*finalize)     (void                        *instance);
  const KmBodyHandlerJointPathIface    *joint_path;
  const KmBodyHandlerLinkedJointsIface *linked_joints;
  const KmBodyHandlerPresentationIface *presentation;
} KmBodyHandlerClass;

typedef const KmBodyHandlerClass *(*KmBodyHandlerFactoryFunc) (unsigned host_abi_version);

/*
 * Defines the module's exported factory and ABI version for the class table `klass`.
 * Works in C and C++: under C++ both symbols get C linkage (an unmangled factory name),
 * and the visibility attribute sits on the first declaration only, where g++ honours it
 * (on the definition that follows, it would warn and ignore it).
 */
#ifdef __cplusplus
#define KM_BODY_HANDLER_LINKAGE_BEGIN_ extern "C" {
#define KM_BODY_HANDLER_LINKAGE_END_ }
#else
#define KM_BODY_HANDLER_LINKAGE_BEGIN_
#define KM_BODY_HANDLER_LINKAGE_END_
#endif

#define KM_BODY_HANDLER_DEFINE(klass)                                                      \
  KM_BODY_HANDLER_LINKAGE_BEGIN_                                                           \
  KM_BODY_HANDLER_EXPORT extern const unsigned kinema_body_handler_abi_version;            \
  const unsigned kinema_body_handler_abi_version = KM_BODY_HANDLER_ABI_VERSION;            \
  KM_BODY_HANDLER_EXPORT const KmBodyHandlerClass *                                        \
  kinema_body_handler_get_class (unsigned host_abi_version);                               \
  const KmBodyHandlerClass *                                                               \
  kinema_body_handler_get_class (unsigned host_abi_version)                                \
  {                                                                                        \
    return host_abi_version == KM_BODY_HANDLER_ABI_VERSION ? &(klass) : NULL;              \
  }                                                                                        \
  KM_BODY_HANDLER_LINKAGE_END_

#ifdef __cplusplus
}
#endif

#endif /* KM_BODY_HANDLER_ABI_H */
