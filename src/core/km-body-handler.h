/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <glib-object.h>

#include "km-animation.h"
#include "km-body-handler-abi.h"
#include "km-ik.h"
#include "km-skeleton.h"
#include "km-target-track.h"

G_BEGIN_DECLS

/*
 * Body handlers, host side: finding, trusting, loading and attaching the plug-ins a model
 * names (the ABI is km-body-handler-abi.h), and the queries every consumer makes.
 *
 * Trust. A handler name resolves to NAME.so only in trusted directories, in this order:
 * the directories the front end added (preferences, km_body_handler_loader_add_directory),
 * the entries of $KINEMA_BODYHANDLER_PATH, $XDG_DATA_HOME/kinema/bodyhandler and the
 * install's <libdir>/kinema/bodyhandler. A name that is a path (absolute, or containing a
 * directory separator) or anything but letters, digits, `_`, `-`, `+` and `.` is refused,
 * unless the user allowed handler paths (km_body_handler_loader_set_allow_paths) or that
 * exact file (km_body_handler_loader_allow_file). Missing, refused and failing handlers
 * never fail a model load: each has a report saying which, why and what happens instead.
 *
 * Modules are opened with G_MODULE_BIND_LOCAL, once per file, and stay loaded for the
 * life of the process (clones may still run on workers). A crash inside a handler cannot
 * be caught in-process: it takes Kinema down, which is why only trusted code is loaded.
 *
 * Consumers. A body item attaches its model's handlers when it loads it
 * (km_body_item_get_body_handlers); the reports go to the message view. The joint panel
 * asks km_body_handler_set_get_presentation() for a joint's unit and range and converts
 * with to_shown / from_shown; an edit of joint J (panel or scene drag) is
 * km_body_handler_set_apply_linked (set, J, value, q) on the main thread's set, which
 * writes J and every joint linked to it into q. The solver installs a
 * KmBodyHandlerIkHook on its problem; a worker thread that applies linked joints takes
 * its own km_body_handler_set_clone().
 */

typedef enum
{
  KM_BODY_HANDLER_ATTACHED,
  KM_BODY_HANDLER_NOT_FOUND,
  KM_BODY_HANDLER_REFUSED,
  KM_BODY_HANDLER_FAILED,
} KmBodyHandlerStatus;

/* Which interfaces an attached handler provides (flags). */
typedef enum
{
  KM_BODY_HANDLER_IFACE_NONE = 0,
  KM_BODY_HANDLER_IFACE_JOINT_PATH = 1 << 0,
  KM_BODY_HANDLER_IFACE_LINKED_JOINTS = 1 << 1,
  KM_BODY_HANDLER_IFACE_PRESENTATION = 1 << 2,
} KmBodyHandlerIfaces;

/* What became of one handler name. Strings owned by the set. */
typedef struct
{
  const char          *name;
  KmBodyHandlerStatus  status;
  const char          *path;      /* the file found, or NULL */
  KmBodyHandlerIfaces  ifaces;    /* for ATTACHED */
  const char          *message;   /* one or more lines, for the message view */
  const char          *location;  /* "FILE:LINE:COLUMN" where the model names it, or NULL */
} KmBodyHandlerReport;

/* How a joint's value is shown (from the presentation interface, or the default). */
typedef struct
{
  KmBodyHandlerUnitKind kind;
  const char           *unit_label;  /* "mm"; "deg" / "m" for the defaults */
  double                shown_min;
  double                shown_max;
} KmJointPresentation;

typedef struct _KmBodyHandlerLoader KmBodyHandlerLoader;
typedef struct _KmBodyHandlerSet KmBodyHandlerSet;
typedef struct _KmBodyHandlerIkHook KmBodyHandlerIkHook;

#define KM_TYPE_BODY_HANDLER_SET (km_body_handler_set_get_type ())

const char          *km_body_handler_status_to_string     (KmBodyHandlerStatus  status);

/* Loader: the trust settings. Thread-safe: a setting may change (main thread) while a
 * worker attaches with it. */
KmBodyHandlerLoader *km_body_handler_loader_new           (void);
void                 km_body_handler_loader_free          (KmBodyHandlerLoader *loader);
/* The process-wide loader body items use; front ends configure it at start-up. */
KmBodyHandlerLoader *km_body_handler_loader_get_default   (void);
void                 km_body_handler_loader_add_directory (KmBodyHandlerLoader *loader,
                                                           const char          *directory);
void                 km_body_handler_loader_set_allow_paths (KmBodyHandlerLoader *loader,
                                                           gboolean             allow);
void                 km_body_handler_loader_allow_file    (KmBodyHandlerLoader *loader,
                                                           const char          *path);
/* The trusted directories in search order (NULL-terminated, free with g_strfreev). */
char               **km_body_handler_loader_get_directories (KmBodyHandlerLoader *loader);
/*
 * Attaches the handlers @skeleton names plus @extra_names (nullable, NULL-terminated).
 * @model_dir (nullable; relative means relative to the current directory) resolves
 * relative handler paths where paths are allowed. Never fails: the set reports what
 * became of each name.
 */
KmBodyHandlerSet    *km_body_handler_loader_attach        (KmBodyHandlerLoader *loader,
                                                           KmSkeleton          *skeleton,
                                                           const char * const  *extra_names,
                                                           const char          *model_dir);

/* Set: the handlers attached to one skeleton. Atomically ref-counted; the queries that
 * take a const set may run on any thread at once; linked-joint updates need a clone per
 * thread (km_body_handler_set_clone). */
GType                km_body_handler_set_get_type         (void) G_GNUC_CONST;
KmBodyHandlerSet    *km_body_handler_set_ref              (KmBodyHandlerSet    *self);
void                 km_body_handler_set_unref            (KmBodyHandlerSet    *self);
KmBodyHandlerSet    *km_body_handler_set_clone            (const KmBodyHandlerSet *self);
KmSkeleton          *km_body_handler_set_get_skeleton     (const KmBodyHandlerSet *self);
guint                km_body_handler_set_get_n_reports    (const KmBodyHandlerSet *self);
const KmBodyHandlerReport *km_body_handler_set_get_report (const KmBodyHandlerSet *self,
                                                           guint                index);
guint                km_body_handler_set_get_n_attached   (const KmBodyHandlerSet *self);
gboolean             km_body_handler_set_is_attached      (const KmBodyHandlerSet *self,
                                                           const char          *name);
/* Appends one line per report ("handler NAME: attached (linked-joints) …"). */
void                 km_body_handler_set_describe         (const KmBodyHandlerSet *self,
                                                           GString             *out);

/* Custom joint path (analytic IK). @base is -1 for the root frame. */
gboolean             km_body_handler_set_covers_path      (const KmBodyHandlerSet *self,
                                                           int                  base,
                                                           int                  end);
guint                km_body_handler_set_get_n_configurations (const KmBodyHandlerSet *self,
                                                           int                  base,
                                                           int                  end);
const char          *km_body_handler_set_get_configuration_name (const KmBodyHandlerSet *self,
                                                           int                  base,
                                                           int                  end,
                                                           guint                index);
int                  km_body_handler_set_get_configuration (const KmBodyHandlerSet *self,
                                                           int                  base,
                                                           int                  end,
                                                           const double        *q);
/*
 * Solves for @end reaching @target (world frame; @root_pose places the skeleton, NULL =
 * identity). @q: the seed on entry, the answer on return. @configuration: an index or
 * KM_BODY_HANDLER_CONFIGURATION_NEAREST. Returns the configuration used, -1 when no
 * handler covers the path or it has no solution (q unchanged then).
 */
int                  km_body_handler_set_solve_path       (const KmBodyHandlerSet *self,
                                                           int                  base,
                                                           int                  end,
                                                           const KmTransform   *root_pose,
                                                           const KmTransform   *target,
                                                           int                  configuration,
                                                           double              *q);

/*
 * The IK hook: an immutable adapter for KmIkProblem's analytic hook. Install it with
 * km_body_handler_ik_hook_install(); the problem (and its copies, which share it) then
 * try the handler first and fall back to numeric IK when it has no solution. Keep the
 * hook until every problem using it is freed. Safe on any thread.
 */
KmBodyHandlerIkHook *km_body_handler_ik_hook_new          (KmBodyHandlerSet    *set,
                                                           int                  configuration);
void                 km_body_handler_ik_hook_free         (KmBodyHandlerIkHook *hook);
/* Sets problem->analytic / analytic_data when a handler covers the problem's path;
 * returns whether it did. Whatever it returns, when a joint the handlers link is on the
 * path, problem->skeleton becomes a copy of the model with those links as linked (mimic)
 * joints (probed on a clone of the set, at the seed), so that the solver moves the
 * masters that drive them, off the path too; the DOFs stay the model's. */
gboolean             km_body_handler_ik_hook_install      (KmBodyHandlerIkHook *hook,
                                                           KmIkProblem         *problem);
gboolean             km_body_handler_ik_analytic          (const KmIkProblem   *problem,
                                                           const KmTransform   *target,
                                                           double              *q,
                                                           gpointer             hook);

/* Linked joints. */
gboolean             km_body_handler_set_has_linked_joints (const KmBodyHandlerSet *self);
gboolean             km_body_handler_set_is_linked_joint  (const KmBodyHandlerSet *self,
                                                           int                  joint);
/* Sets @joint's value in @q and moves what is linked to it; @joint -1 re-syncs all.
 * The handlers' values are checked: non-finite ones keep the previous value, the rest are
 * clamped into the limits. Returns TRUE when @q changed. Needs this thread's own set
 * (clone). */
gboolean             km_body_handler_set_apply_linked     (KmBodyHandlerSet    *self,
                                                           int                  joint,
                                                           double               value,
                                                           double              *q);
/* The same re-sync (joint -1) on every frame of [@first, @first + @n): what the CLI's
 * solve and the editor's solved frames go through. Returns the frames changed. */
guint                km_body_handler_set_apply_linked_frames (KmBodyHandlerSet *self,
                                                           KmAnimation         *animation,
                                                           guint                first,
                                                           guint                n);
/* The same on a solved motion, whose residuals are then measured again on the frames that
 * changed (forward kinematics against @track's targets, as km_ik_measure_track() does), and
 * its missed keyframes there follow: the stats and red marks tell of the real pose. */
guint                km_body_handler_set_apply_linked_solved (KmBodyHandlerSet *self,
                                                           const KmIkProblem   *problem,
                                                           const KmTargetTrack *track,
                                                           KmAnimation         *animation,
                                                           guint                first,
                                                           guint                n);

/* Presentation. Joints without a presenting handler get the defaults (revolute: angle
 * "deg" over the limits in degrees; prismatic: length "m"); to/from shown then convert
 * radians ↔ degrees or keep metres. */
gboolean             km_body_handler_set_get_presentation (const KmBodyHandlerSet *self,
                                                           int                  joint,
                                                           KmJointPresentation *out);
double               km_body_handler_set_to_shown         (const KmBodyHandlerSet *self,
                                                           int                  joint,
                                                           double               value);
gboolean             km_body_handler_set_from_shown       (const KmBodyHandlerSet *self,
                                                           int                  joint,
                                                           double               shown,
                                                           double              *value);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KmBodyHandlerLoader, km_body_handler_loader_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (KmBodyHandlerSet, km_body_handler_set_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (KmBodyHandlerIkHook, km_body_handler_ik_hook_free)

G_END_DECLS
