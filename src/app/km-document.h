/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <gio/gio.h>

#include "km-animation.h"
#include "km-body-handler.h"
#include "km-item.h"
#include "km-project.h"
#include "km-skeleton.h"
#include "km-target-track.h"

G_BEGIN_DECLS

#define KM_TYPE_DOCUMENT (km_document_get_type ())

G_DECLARE_FINAL_TYPE (KmDocument, km_document, KM, DOCUMENT, GObject)

/* Stores the animation a km_document_solve_completing() solve produced for @body. */
typedef void (*KmDocumentSolvedFunc) (KmDocument  *self,
                                      KmItem      *body,
                                      KmAnimation *animation,
                                      gpointer     user_data);

/*
 * What the editor window shows: a KmProject (the item tree, undo stack, file and
 * modified flag) and a view of its current body: the body's KmSkeleton and pose, the IK
 * targets of its end effector (its first IK targets item), the solved animation (its first
 * IK animation item), the current frame and the message log. Every view observes it
 * through properties and `notify`; no view talks to another. Every edit made through it
 * is an undoable project command.
 *
 * Units: metres and radians; the pose is a flat DOF vector in the skeleton's DOF order.
 */

KmDocument        *km_document_new                (void);
KmProject         *km_document_get_project        (KmDocument         *self);
KmItem            *km_document_get_body_item      (KmDocument         *self);
KmBodyHandlerSet  *km_document_get_body_handlers  (KmDocument         *self);
void               km_document_set_current_body   (KmDocument         *self,
                                                   KmItem             *body);
void               km_document_new_project        (KmDocument         *self);

/* Files (km-document-io.c). The editor uses the asynchronous calls: only their
 * serialisation of the project (km_cnoid_to_string) runs on the main thread. */
gboolean           km_document_save               (KmDocument         *self,
                                                   GFile              *file,
                                                   GError            **error);
void               km_document_save_async         (KmDocument         *self,
                                                   GFile              *file,
                                                   GCancellable       *cancellable,
                                                   GAsyncReadyCallback callback,
                                                   gpointer            user_data);
gboolean           km_document_save_finish        (KmDocument         *self,
                                                   GAsyncResult       *result,
                                                   GError            **error);

/* Why a project save did not write: the document's file is not what it read or wrote
 * there last (km_document_get_file_identity), or a sub-project file the save would write
 * is not what was read or written there (compared by content): another program changed it
 * (CHANGED; also a sub-project file that cannot be read) or removed it (DELETED) since. The
 * error's message names the file. km_document_save_full_async() with
 * %KM_DOCUMENT_SAVE_OVERWRITE writes all the same. */
#define KM_DOCUMENT_ERROR (km_document_error_quark ())

typedef enum
{
  KM_DOCUMENT_ERROR_CHANGED_ON_DISK,
  KM_DOCUMENT_ERROR_DELETED_ON_DISK,
  /* The project was written, but not all its model files (edited bodies): no disk
   * conflict; the message says so. */
  KM_DOCUMENT_ERROR_MODELS_NOT_SAVED,
} KmDocumentError;

GQuark             km_document_error_quark        (void);

/* How a save treats the file it writes over. */
typedef enum
{
  KM_DOCUMENT_SAVE_NONE      = 0,
  /* Write even when the document's file changed on disk since it was read or written
   * (the user chose to overwrite another program's changes); for a sub-project file, over
   * the version the last refused save found there (a later change still refuses). */
  KM_DOCUMENT_SAVE_OVERWRITE = 1 << 0,
} KmDocumentSaveFlags;

void               km_document_save_full_async    (KmDocument         *self,
                                                   GFile              *file,
                                                   KmDocumentSaveFlags flags,
                                                   GCancellable       *cancellable,
                                                   GAsyncReadyCallback callback,
                                                   gpointer            user_data);

/* What a file is on disk (its ETag, size and inode), to tell that another program changed
 * it: the attributes to query and the identity of the GFileInfo they give. The query is
 * file I/O: a worker's, or g_file_query_info_async()'s. */
#define KM_DOCUMENT_FILE_IDENTITY_ATTRIBUTES \
  G_FILE_ATTRIBUTE_ETAG_VALUE "," G_FILE_ATTRIBUTE_STANDARD_SIZE "," G_FILE_ATTRIBUTE_UNIX_INODE
char              *km_document_file_info_identity (GFileInfo          *info);
char              *km_document_query_file_identity (GFile             *file,
                                                   GError            **error);
const char        *km_document_get_file_identity  (KmDocument         *self);
gboolean           km_document_get_saving         (KmDocument         *self);
/* The KM_DOCUMENT_ERROR the last project save to the document's file failed with (also one
 * another save started, as Save for Choreonoid's), or NULL; accepting it makes the next
 * save write over the version of the file that save found (but not over a later change):
 * the user chose to overwrite it. */
const GError      *km_document_get_disk_conflict  (KmDocument         *self);
gboolean           km_document_accept_disk_conflict (KmDocument       *self);
/* The body items whose model file that conflict is about (a skeleton.json the save would
 * have written back), in tree order (element-type KmItem, full references); empty when it
 * is about the project's or a sub-project's file, or there is none. */
GPtrArray         *km_document_dup_disk_conflict_items (KmDocument    *self);
/* Whether the document writes files (a save, a Save Item As, an export; not an autosave)
 * on a worker thread; KmDocument::files-written tells when the last one ends. */
gboolean           km_document_get_writing        (KmDocument         *self);
/* The files those writes wrote (canonical paths), from when the first began: at
 * files-written, the files whose change on disk is the document's own. */
GStrv              km_document_dup_written_paths  (KmDocument         *self);

gboolean           km_document_write_autosave     (KmDocument         *self,
                                                   const char         *path,
                                                   GError            **error);
void               km_document_write_autosave_async (KmDocument       *self,
                                                   const char         *path,
                                                   GCancellable       *cancellable,
                                                   GAsyncReadyCallback callback,
                                                   gpointer            user_data);
gboolean           km_document_write_autosave_finish (KmDocument      *self,
                                                   GAsyncResult       *result,
                                                   GError            **error);
void               km_document_recover_async      (KmDocument         *self,
                                                   GFile              *file,
                                                   GCancellable       *cancellable,
                                                   GAsyncReadyCallback callback,
                                                   gpointer            user_data);
gboolean           km_document_recover_finish     (KmDocument         *self,
                                                   GAsyncResult       *result,
                                                   GError            **error);

gboolean           km_document_load_defaults      (KmDocument         *self,
                                                   GError            **error);
gboolean           km_document_import_file        (KmDocument         *self,
                                                   GFile              *file,
                                                   GError            **error);
void               km_document_import_file_async  (KmDocument         *self,
                                                   GFile              *file,
                                                   GCancellable       *cancellable,
                                                   GAsyncReadyCallback callback,
                                                   gpointer            user_data);
gboolean           km_document_import_file_finish (KmDocument         *self,
                                                   GAsyncResult       *result,
                                                   GError            **error);

/* Undo and edits (each edit is one undoable step of the project) */
gboolean           km_document_can_undo           (KmDocument         *self);
gboolean           km_document_can_redo           (KmDocument         *self);
gboolean           km_document_undo               (KmDocument         *self);
gboolean           km_document_redo               (KmDocument         *self);
void               km_document_close_edit         (KmDocument         *self);
void               km_document_hold_edit          (KmDocument         *self,
                                                   gconstpointer       holder);
void               km_document_release_edit       (KmDocument         *self,
                                                   gconstpointer       holder);
gboolean           km_document_edit_held_by       (KmDocument         *self,
                                                   gconstpointer       holder);
void               km_document_reload             (KmDocument         *self);
void               km_document_set_targets        (KmDocument         *self,
                                                   KmTargetTrack      *targets);
void               km_document_remove_items       (KmDocument         *self,
                                                   GPtrArray          *items);
void               km_document_duplicate_items    (KmDocument         *self,
                                                   GPtrArray          *items);
gboolean           km_document_save_item          (KmDocument         *self,
                                                   KmItem             *item,
                                                   GFile              *file,
                                                   GError            **error);
void               km_document_save_item_async    (KmDocument         *self,
                                                   KmItem             *item,
                                                   GFile              *file,
                                                   GCancellable       *cancellable,
                                                   GAsyncReadyCallback callback,
                                                   gpointer            user_data);
gboolean           km_document_save_item_finish   (KmDocument         *self,
                                                   GAsyncResult       *result,
                                                   GError            **error);
void               km_document_rename_item        (KmDocument         *self,
                                                   KmItem             *item,
                                                   const char         *name);
void               km_document_check_item         (KmDocument         *self,
                                                   KmItem             *item,
                                                   gboolean            checked);
gboolean           km_document_item_accepts       (KmItem             *parent,
                                                   KmItem             *item);
gboolean           km_document_move_item          (KmDocument         *self,
                                                   KmItem             *item,
                                                   KmItem             *parent,
                                                   guint               position);

KmSkeleton        *km_document_get_skeleton       (KmDocument         *self);
KmTargetTrack     *km_document_get_targets        (KmDocument         *self);
KmAnimation       *km_document_get_animation      (KmDocument         *self);
guint              km_document_get_pose_key_frame (KmDocument         *self,
                                                   guint               index);
guint              km_document_get_n_pose_keys    (KmDocument         *self);
GFile             *km_document_get_file           (KmDocument         *self);
const char        *km_document_get_title          (KmDocument         *self);
gboolean           km_document_get_modified       (KmDocument         *self);
void               km_document_set_modified       (KmDocument         *self,
                                                   gboolean            modified);

const double      *km_document_get_pose           (KmDocument         *self,
                                                   guint              *n_dof);
gboolean           km_document_get_pose_unkeyed   (KmDocument         *self,
                                                   guint              *frame);
void               km_document_mark_pose_keyed    (KmDocument         *self);
gboolean           km_document_get_dof_range      (KmDocument         *self,
                                                   guint               dof,
                                                   double             *lower,
                                                   double             *upper);
void               km_document_set_dof_value      (KmDocument         *self,
                                                   guint               dof,
                                                   double              value);
const KmTransform *km_document_get_joint_world    (KmDocument         *self,
                                                   guint              *n_joints);
gboolean           km_document_get_root_pose      (KmDocument         *self,
                                                   KmTransform        *root_pose);
guint              km_document_get_solved_dofs    (KmDocument         *self,
                                                   gboolean           *moving);
gboolean           km_document_get_solves_orientation (KmDocument     *self);
gboolean           km_document_get_animation_solved (KmDocument       *self);
int                km_document_get_effector       (KmDocument         *self);
gboolean           km_document_get_effector_point (KmDocument         *self,
                                                   KmTransform        *point);
gboolean           km_document_get_target_pose    (KmDocument         *self,
                                                   KmTransform        *target);
const KmVec3      *km_document_get_trajectory     (KmDocument         *self,
                                                   guint              *n_points);
void               km_document_get_bounds         (KmDocument         *self,
                                                   KmVec3             *min,
                                                   KmVec3             *max);

int                km_document_get_selected_joint (KmDocument         *self);
void               km_document_set_selected_joint (KmDocument         *self,
                                                   int                 joint);

guint              km_document_get_current_frame  (KmDocument         *self);
void               km_document_set_current_frame  (KmDocument         *self,
                                                   guint               frame);
void               km_document_set_current_time   (KmDocument         *self,
                                                   double              seconds);
guint              km_document_get_n_frames       (KmDocument         *self);
guint              km_document_get_timeline_frames (KmDocument        *self);
double             km_document_get_frame_rate     (KmDocument         *self);
double             km_document_get_project_frame_rate (KmDocument     *self);
double             km_document_get_project_max_time (KmDocument       *self);
double             km_document_get_project_min_time (KmDocument       *self);

void               km_document_solve              (KmDocument         *self);
gboolean           km_document_solve_completing   (KmDocument         *self,
                                                   KmDocumentSolvedFunc func,
                                                   gpointer            user_data,
                                                   GDestroyNotify      destroy);
void               km_document_cancel_solve       (KmDocument         *self);
gboolean           km_document_get_solving        (KmDocument         *self);
double             km_document_get_solve_progress (KmDocument         *self);

GListModel        *km_document_get_messages       (KmDocument         *self);
void               km_document_log                (KmDocument         *self,
                                                   GLogLevelFlags      level,
                                                   const char         *format,
                                                   ...) G_GNUC_PRINTF (3, 4);
void               km_document_clear_messages     (KmDocument         *self);
void               km_document_set_joint_values   (KmDocument         *self,
                                                   const double       *q,
                                                   guint               n);

void               km_document_export_animation_async  (KmDocument          *self,
                                                        GFile               *file,
                                                        GCancellable        *cancellable,
                                                        GAsyncReadyCallback  callback,
                                                        gpointer             user_data);
gboolean           km_document_export_animation_finish (KmDocument          *self,
                                                        GAsyncResult        *result,
                                                        GError             **error);
void               km_document_export_body_motion_async  (KmDocument          *self,
                                                          KmItem              *item,
                                                          GFile               *file,
                                                          GCancellable        *cancellable,
                                                          GAsyncReadyCallback  callback,
                                                          gpointer             user_data);
gboolean           km_document_export_body_motion_finish (KmDocument          *self,
                                                          GAsyncResult        *result,
                                                          GError             **error);

/* What an item of the document's project needs to read or copy its files: references
 * resolve as the project's were read (km_cnoid_reference_dir), messages are collected. */
typedef struct
{
  KmItemIo   io;
  char      *dir;
  char      *share_dir;
  GPtrArray *messages;      /* of char * */
  GPtrArray *open_files;
} KmDocumentItemIo;

void               km_document_item_io_init       (KmDocument         *self,
                                                   KmDocumentItemIo   *io);
void               km_document_item_io_clear      (KmDocumentItemIo   *io);
KmItem            *km_document_reread_item        (KmDocument         *self,
                                                   KmItem             *item,
                                                   GError            **error);
void               km_document_reread_item_async  (KmDocument         *self,
                                                   KmItem             *item,
                                                   GCancellable       *cancellable,
                                                   GAsyncReadyCallback callback,
                                                   gpointer            user_data);
KmItem            *km_document_reread_item_finish (KmDocument         *self,
                                                   GAsyncResult       *result,
                                                   GError            **error);
char              *km_document_dup_shown_item_file (KmDocument        *self,
                                                    KmItem            *item);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (KmDocumentItemIo, km_document_item_io_clear)

G_END_DECLS
