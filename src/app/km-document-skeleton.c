/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-document-skeleton"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "km-document-skeleton.h"
#include "km-document-edit.h"

#include "km-document-private.h"
#include "km-body-item.h"
#include "km-body.h"
#include "km-body-writer.h"
#include "km-copy-stamp.h"
#include "km-cnoid.h"
#include "km-error.h"
#include "km-format.h"
#include "km-ik-animation-item.h"
#include "km-ik-targets-item.h"
#include "km-item-file-watch.h"
#include "km-local-file.h"
#include "km-skeleton-edit.h"
#include "km-skeleton-json.h"
#include "km-sub-project-item.h"
#include "km-urdf-writer.h"
#include "km-world-item.h"

#define SKELETON_JSON_FORMAT "SKELETON-JSON"
#define BODY_FORMAT "CHOREONOID-BODY"
#define URDF_FORMAT "URDF"
/* Set on the built-in example's body while its model is the embedded one. */
#define EMBEDDED_KEY "km-embedded-model"
/* Set on a body item while its skeleton differs from its model file. */
#define MODIFIED_KEY "km-skeleton-modified"
/* Set on the document while a Skeleton tab save runs: the file it writes. */
#define SAVING_KEY "km-skeleton-saving"
/* Set on a body item while a project save writes its skeleton, its EditedBody: the file it
 * refers to may not hold it yet, or ever (_km_document_take_edited_skeletons to
 * _km_document_edited_skeletons_done). */
#define PENDING_KEY "km-skeleton-pending"
/* The key file beside an autosave's skeleton copies: what each body referred to. */
#define AUTOSAVE_INDEX "index.ini"

/* The file a project save writes a body's edited skeleton to, shared with every state of
 * the body recorded while that save runs (BodyModel.pending): should the save fail, those
 * states refer to the file the body had before, their skeleton edited, as the body itself
 * does then (_km_document_edited_skeletons_done). Main thread only. */
typedef struct
{
  guint     ref_count;
  char     *path;          /* the file written */
  char     *old_file;
  char     *old_format;
  gboolean  was_embedded;
  gboolean  failed;        /* the save failed: nothing refers to path */
} PendingFile;

static PendingFile *
pending_file_ref (PendingFile *pending)
{
  pending->ref_count++;
  return pending;
}

static void
pending_file_unref (PendingFile *pending)
{
  if (--pending->ref_count > 0)
    return;
  g_free (pending->path);
  g_free (pending->old_file);
  g_free (pending->old_format);
  g_free (pending);
}

/*
 * The model copies this document's project saves wrote beside the project (a body's edited
 * skeleton in a format Kinema does not write back: .body, URDF): path → OwnCopy, main
 * thread only. A copy is Kinema's while the file is as it left it (its identity): a later
 * save of the same project writes the body's next edits to it again rather than to a
 * numbered new copy, and removes it once no body refers to it any more. Files that
 * Kinema did not write, or that changed since, are never written over or removed.
 */
#define OWN_COPIES_KEY "km-own-model-copies"
/* The paths of model files a save found changed or replaced by another program (a
 * GHashTable set): never written over by a later save, which writes a new copy instead. */
#define DISOWNED_KEY "km-disowned-model-files"

typedef struct
{
  char       *identity;      /* km_document_query_file_identity() once it was written */
  char       *project_path;  /* the project file saved with it */
  char       *original;      /* nullable: the model file it is a copy of (what Kinema does
                              * not model comes from there should the copy be written anew) */
  KmSkeleton *skeleton;      /* what it holds */
  gboolean    removed;       /* a save removed it: no body referred to it */
} OwnCopy;

static void
own_copy_free (gpointer data)
{
  OwnCopy *copy = data;

  g_free (copy->identity);
  g_free (copy->project_path);
  g_free (copy->original);
  g_clear_pointer (&copy->skeleton, km_skeleton_unref);
  g_free (copy);
}

static GHashTable *
own_copies (KmDocument *self)
{
  GHashTable *copies = g_object_get_data (G_OBJECT (self), OWN_COPIES_KEY);

  if (copies == NULL)
    {
      copies = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, own_copy_free);
      g_object_set_data_full (G_OBJECT (self), OWN_COPIES_KEY, copies,
                              (GDestroyNotify) g_hash_table_unref);
    }
  return copies;
}

static void
disown_file (KmDocument *self,
             const char *path)
{
  GHashTable *disowned = g_object_get_data (G_OBJECT (self), DISOWNED_KEY);

  if (disowned == NULL)
    {
      disowned = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      g_object_set_data_full (G_OBJECT (self), DISOWNED_KEY, disowned,
                              (GDestroyNotify) g_hash_table_unref);
    }
  g_hash_table_add (disowned, g_strdup (path));
}

static gboolean
is_disowned (KmDocument *self,
             const char *path)
{
  GHashTable *disowned = g_object_get_data (G_OBJECT (self), DISOWNED_KEY);

  return disowned != NULL && path != NULL && g_hash_table_contains (disowned, path);
}

/* The copy this document wrote at @path (absolute), or NULL. */
static OwnCopy *
lookup_own_copy (KmDocument *self,
                 const char *path)
{
  GHashTable *copies = g_object_get_data (G_OBJECT (self), OWN_COPIES_KEY);

  return copies != NULL && path != NULL ? g_hash_table_lookup (copies, path) : NULL;
}

/* Whether the file at @path is still as this document wrote it (@copy). File I/O (one
 * stat), as the other checks of a save's planning. */
static gboolean
own_copy_unchanged (const OwnCopy *copy,
                    const char    *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autofree char *identity = km_document_query_file_identity (file, NULL);

  return !copy->removed && identity != NULL && g_strcmp0 (identity, copy->identity) == 0;
}

/* A copy of this document's that a save removes once the project is written: no body
 * refers to it any more. */
typedef struct
{
  char *path;
  char *identity;
  gboolean removed;   /* the worker's */
} StaleCopy;

static void
stale_copy_free (gpointer data)
{
  StaleCopy *stale = data;

  g_free (stale->path);
  g_free (stale->identity);
  g_free (stale);
}

/* One body whose edited skeleton a project save writes, and what it referred to before
 * (put back when the save fails). */
typedef struct
{
  KmBodyItem  *body;
  char        *path;           /* the file written */
  char        *old_file;
  char        *old_format;
  gboolean     switched;       /* the body refers to path now (a copy, not written back) */
  gboolean     was_embedded;   /* it was the built-in example's model */
  gboolean     missing;        /* its model file was gone: not edited, its skeleton in no file */
  gboolean     was_modified;   /* its skeleton was edited (not only its model file gone) */
  char        *copy_of;        /* an own copy (new or rewritten): the model it copies */
  PendingFile *pending;        /* a project save's: the same, for the states recorded */
} EditedBody;

/* One side (before or after) of a skeleton edit: everything the body item is reset to. */
typedef struct
{
  KmSkeleton *skeleton;
  char       *file;
  char       *format;
  double     *q;
  guint       n_dof;
  char       *selected;   /* joint name to select, or NULL */
  gboolean    modified;
  gboolean    embedded;   /* the built-in example's embedded model (EMBEDDED_KEY) */
  PendingFile *pending;   /* recorded while a project save wrote the body's skeleton */
} BodyModel;

typedef struct _SolveLink SolveLink;

/*
 * A skeleton edit and the re-solve it starts are one step: the solve that the edit's redo
 * starts hands its animation to the edit (km_document_solve_completing) instead of
 * recording a step of its own. Undo puts the animation the body's animation item had back
 * (and removes an item the solve had to add); redo puts the solved one back, or solves
 * again when the first solve never finished (it was cancelled by undo or a newer edit).
 */
typedef struct
{
  KmDocument  *document;
  KmBodyItem  *body;
  BodyModel    before;
  BodyModel    after;

  gboolean     resolves;          /* the edit changes the skeleton: its motion is solved again */
  KmItem      *animation_item;    /* the body's (first) IK animation item, or NULL */
  gboolean     item_created;      /* the solve added animation_item */
  KmAnimation *animation_before;  /* what animation_item held before the edit */
  KmAnimation *animation_after;   /* the solve's result; NULL until it finished */
  SolveLink   *link;              /* the running solve that completes this step */

  /* Targets that name no effector follow the skeleton's default one (the last leaf): an
   * edit that changes which joint that is names the old one on the targets instead. */
  KmItem        *targets_item;
  KmTargetTrack *targets_after;
  /* The item as it was (its targets.json link too), which undo puts back. */
  KmIkTargetsItemState *targets_state;

  /* Items below the body re-expressed for the new model (ItemSwap), set with it. */
  GPtrArray     *swaps;
} SkeletonEdit;

/* One item below a body and what it holds before and after a model conversion: an IK
 * animation item's animation or an IK targets item's track. */
typedef struct
{
  KmItem        *item;
  KmAnimation   *animation_before;
  KmAnimation   *animation_after;
  KmTargetTrack *track_before;
  KmTargetTrack *track_after;
} ItemSwap;

static void
item_swap_free (gpointer data)
{
  ItemSwap *swap = data;

  g_clear_object (&swap->item);
  g_clear_pointer (&swap->animation_before, km_animation_unref);
  g_clear_pointer (&swap->animation_after, km_animation_unref);
  g_clear_pointer (&swap->track_before, km_target_track_unref);
  g_clear_pointer (&swap->track_after, km_target_track_unref);
  g_free (swap);
}

static void
item_swap_apply (ItemSwap *swap,
                 gboolean  after)
{
  if (KM_IS_IK_ANIMATION_ITEM (swap->item))
    km_ik_animation_item_set_animation (KM_IK_ANIMATION_ITEM (swap->item),
                                        after ? swap->animation_after : swap->animation_before);
  else if (KM_IS_IK_TARGETS_ITEM (swap->item))
    km_ik_targets_item_set_track (KM_IK_TARGETS_ITEM (swap->item),
                                  after ? swap->track_after : swap->track_before);
}

/* Shared by an edit and the solve that completes it; whichever goes first unlinks. */
struct _SolveLink
{
  SkeletonEdit *edit;
};

static void
body_model_clear (BodyModel *model)
{
  g_clear_pointer (&model->skeleton, km_skeleton_unref);
  g_clear_pointer (&model->file, g_free);
  g_clear_pointer (&model->format, g_free);
  g_clear_pointer (&model->q, g_free);
  g_clear_pointer (&model->selected, g_free);
  g_clear_pointer (&model->pending, pending_file_unref);
}

static void
skeleton_edit_free (gpointer data)
{
  SkeletonEdit *edit = data;

  if (edit->link != NULL)
    edit->link->edit = NULL;
  g_clear_object (&edit->body);
  g_clear_object (&edit->animation_item);
  g_clear_pointer (&edit->animation_before, km_animation_unref);
  g_clear_pointer (&edit->animation_after, km_animation_unref);
  g_clear_object (&edit->targets_item);
  g_clear_pointer (&edit->targets_after, km_target_track_unref);
  g_clear_pointer (&edit->targets_state, km_ik_targets_item_state_free);
  g_clear_pointer (&edit->swaps, g_ptr_array_unref);
  body_model_clear (&edit->before);
  body_model_clear (&edit->after);
  g_free (edit);
}

static void
solve_link_free (gpointer data)
{
  SolveLink *link = data;

  if (link->edit != NULL)
    link->edit->link = NULL;
  g_free (link);
}

static KmItem *
find_animation_item (KmBodyItem *body)
{
  return km_item_find_child_by_type (KM_ITEM (body), KM_TYPE_IK_ANIMATION_ITEM);
}

/* When @edit's targets follow the default effector and the new skeleton's default is
 * another joint, the targets name the old one (which must survive the edit). */
static void
pin_default_effector (SkeletonEdit *edit)
{
  KmItem *item = km_item_find_child_by_type (KM_ITEM (edit->body),
                                             KM_TYPE_IK_TARGETS_ITEM);
  KmTargetTrack *track = item != NULL ? km_ik_targets_item_get_track (KM_IK_TARGETS_ITEM (item))
                                      : NULL;
  int old_default, new_default;
  const char *name;

  if (track == NULL || km_target_track_get_effector (track) != NULL)
    return;
  old_default = km_skeleton_get_default_effector (edit->before.skeleton);
  new_default = km_skeleton_get_default_effector (edit->after.skeleton);
  if (old_default < 0)
    return;
  name = km_skeleton_get_joint (edit->before.skeleton, (guint) old_default)->name;
  if (km_skeleton_find_joint (edit->after.skeleton, name) < 0
      || (new_default >= 0
          && g_str_equal (km_skeleton_get_joint (edit->after.skeleton, (guint) new_default)->name,
                          name)))
    return;
  edit->targets_item = g_object_ref (item);
  edit->targets_state = km_ik_targets_item_save_state (KM_IK_TARGETS_ITEM (item));
  edit->targets_after = km_target_track_with_effector (track, name);
}

/* When @edit deletes the joint its targets move (the one they name, else the default one),
 * they go to its nearest joint that survives, its parent, and name it, so that the
 * effector the project says is the one that moves. Targets that name a renamed joint (a
 * rename keeps every joint at its index) name its new name, and undo gives them the old
 * one back. Targets that name a joint the body lacks stay as they are: the document says
 * which joint follows targets keyed for a name it lacks.
 *
 * Returns: (transfer full) (nullable): the deleted effector's name when the targets were
 *   handed to another joint (edit->targets_after names it), else %NULL */
static char *
follow_effector (SkeletonEdit *edit)
{
  const KmSkeleton *before = edit->before.skeleton;
  const KmSkeleton *after = edit->after.skeleton;
  KmItem *item = km_item_find_child_by_type (KM_ITEM (edit->body), KM_TYPE_IK_TARGETS_ITEM);
  KmTargetTrack *track = item != NULL ? km_ik_targets_item_get_track (KM_IK_TARGETS_ITEM (item))
                                      : NULL;
  const char *named = track != NULL ? km_target_track_get_effector (track) : NULL;
  const KmJoint *effector, *same;
  int index, kept = -1;

  if (track == NULL)
    return NULL;
  index = named != NULL ? km_skeleton_find_effector (before, named)
                        : km_skeleton_get_default_effector (before);
  if (index < 0)
    return NULL;
  effector = km_skeleton_get_joint (before, (guint) index);
  if (named != NULL ? km_skeleton_find_effector (after, named) >= 0
                    : km_skeleton_find_joint (after, effector->name) >= 0)
    return NULL;
  same = km_skeleton_get_n_joints (after) == km_skeleton_get_n_joints (before)
         ? km_skeleton_get_joint (after, (guint) index) : NULL;
  if (same != NULL && same->parent == effector->parent && same->type == effector->type)
    {
      /* Renamed: the targets that named it name it still. */
      if (named != NULL && g_strcmp0 (same->name, effector->name) != 0)
        {
          edit->targets_item = g_object_ref (item);
          edit->targets_state = km_ik_targets_item_save_state (KM_IK_TARGETS_ITEM (item));
          edit->targets_after = km_target_track_with_effector (track, same->name);
        }
      return NULL;
    }

  for (int p = effector->parent; p >= 0 && kept < 0;
       p = km_skeleton_get_joint (before, (guint) p)->parent)
    kept = km_skeleton_find_joint (after, km_skeleton_get_joint (before, (guint) p)->name);
  if (kept < 0)
    return NULL;
  edit->targets_item = g_object_ref (item);
  edit->targets_state = km_ik_targets_item_save_state (KM_IK_TARGETS_ITEM (item));
  edit->targets_after = km_target_track_with_effector (
    track, km_skeleton_get_joint (after, (guint) kept)->name);
  return g_strdup (effector->name);
}

/* The completing solve finished: its animation becomes the body's motion and the step's. */
static void
edit_solved_cb (KmDocument  *self,
                KmItem      *body,
                KmAnimation *animation,
                gpointer     user_data)
{
  SolveLink *link = user_data;
  SkeletonEdit *edit = link->edit;

  if (edit == NULL || body != KM_ITEM (edit->body)
      || km_body_item_get_skeleton (edit->body) != edit->after.skeleton)
    {
      km_document_reload (self);
      return;
    }

  if (edit->animation_item == NULL)
    {
      edit->animation_item = km_ik_animation_item_new ();
      km_item_set_name (edit->animation_item, _("Solved Animation"));
      km_item_set_checked (edit->animation_item, TRUE);
      edit->item_created = TRUE;
      km_item_append_child (body, edit->animation_item);
    }
  g_clear_pointer (&edit->animation_after, km_animation_unref);
  edit->animation_after = km_animation_ref (animation);
  km_ik_animation_item_set_animation (KM_IK_ANIMATION_ITEM (edit->animation_item), animation);
  /* Saved while it solved: the file has the motion from before. */
  if (!km_document_get_modified (self))
    km_document_set_modified (self, TRUE);
  km_document_reload (self);
}

/* Puts the motion of one side of the edit into the body's animation item. */
static void
skeleton_edit_apply_animation (SkeletonEdit *edit,
                               gboolean      after)
{
  KmItem *item = edit->animation_item;

  if (item == NULL || edit->animation_after == NULL)
    return;
  if (edit->item_created)
    {
      if (after && km_item_get_parent (item) == NULL)
        km_item_append_child (KM_ITEM (edit->body), item);
      else if (!after && km_item_get_parent (item) == KM_ITEM (edit->body))
        km_item_remove_child (KM_ITEM (edit->body), item);
    }
  km_ik_animation_item_set_animation (KM_IK_ANIMATION_ITEM (item),
                                      after ? edit->animation_after : edit->animation_before);
}

/* What became of each body handler name on @body's model (name → KmBodyHandlerStatus), to
 * tell what a skeleton edit changed about them (log_handler_changes()). */
static GHashTable *
handler_states (KmBodyItem *body)
{
  KmBodyHandlerSet *set = km_body_item_get_body_handlers (body);
  GHashTable *states = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  guint n = set != NULL ? km_body_handler_set_get_n_reports (set) : 0;

  for (guint i = 0; i < n; i++)
    {
      const KmBodyHandlerReport *report = km_body_handler_set_get_report (set, i);

      g_hash_table_insert (states, g_strdup (report->name), GINT_TO_POINTER (report->status));
    }
  return states;
}

/* A skeleton edit (or its undo, or redo) attaches the model's handlers again to the skeleton
 * it gives: one that needs a joint the edit renamed, deleted or moved fails to, and the
 * closed loop or analytic IK it gave is gone. The message view says so, in the loader's
 * words, once for the step; and when a step brings a handler back. A handler whose state
 * the step did not change adds nothing. */
static void
log_handler_changes (KmDocument *self,
                     KmBodyItem *body,
                     GHashTable *before)
{
  KmBodyHandlerSet *set = km_body_item_get_body_handlers (body);
  guint n = set != NULL ? km_body_handler_set_get_n_reports (set) : 0;

  for (guint i = 0; i < n; i++)
    {
      const KmBodyHandlerReport *report = km_body_handler_set_get_report (set, i);
      gpointer old_status;
      gboolean attached = report->status == KM_BODY_HANDLER_ATTACHED;

      if (g_hash_table_lookup_extended (before, report->name, NULL, &old_status)
          && (GPOINTER_TO_INT (old_status) == KM_BODY_HANDLER_ATTACHED) == attached)
        continue;
      km_document_log (self, attached ? G_LOG_LEVEL_INFO : G_LOG_LEVEL_WARNING, "%s",
                       report->message);
    }
}

static void
skeleton_edit_apply (SkeletonEdit    *edit,
                     const BodyModel *model)
{
  KmDocument *self = edit->document;
  KmSkeleton *shown;
  g_autoptr(GHashTable) handlers_before = NULL;
  int joint = -1;
  const char *file = model->file;
  const char *format = model->format;
  gboolean modified = model->modified;
  gboolean embedded = model->embedded;

  /* Recorded while a save wrote the skeleton to the file, which it then did not: the body
   * is on its file from before the save, its skeleton not in it. */
  if (model->pending != NULL && model->pending->failed
      && g_strcmp0 (file, model->pending->path) == 0)
    {
      file = model->pending->old_file;
      format = model->pending->old_format;
      embedded = model->pending->was_embedded;
      modified = TRUE;
    }
  /* A copy of Kinema's that a later save wrote other edits to: the file does not hold
   * this skeleton any more. */
  if (!modified && file != NULL)
    {
      OwnCopy *copy = lookup_own_copy (self, file);

      if (copy != NULL && !copy->removed && copy->skeleton != model->skeleton
          && !km_skeleton_equal (copy->skeleton, model->skeleton, 0.0))
        modified = TRUE;
    }
  handlers_before = handler_states (edit->body);
  km_body_item_set_model (edit->body, file, format, model->skeleton);
  /* As Set Keyframe's step: the edited targets are the item's own (inline) until saved,
   * and undo gives back the item as it was, still linked to the file it was read from. */
  if (edit->targets_item != NULL && model == &edit->after)
    km_ik_targets_item_set_track (KM_IK_TARGETS_ITEM (edit->targets_item),
                                  edit->targets_after);
  else if (edit->targets_item != NULL)
    km_ik_targets_item_restore_state (KM_IK_TARGETS_ITEM (edit->targets_item),
                                      edit->targets_state);
  for (guint i = 0; edit->swaps != NULL && i < edit->swaps->len; i++)
    item_swap_apply (g_ptr_array_index (edit->swaps, i), model == &edit->after);
  if (model->n_dof > 0)
    km_body_item_set_joint_state (edit->body, model->q, model->n_dof);
  g_object_set_data (G_OBJECT (edit->body), MODIFIED_KEY, GINT_TO_POINTER (modified));
  g_object_set_data (G_OBJECT (edit->body), EMBEDDED_KEY,
                     embedded ? GINT_TO_POINTER (TRUE) : NULL);
  if (edit->resolves)
    skeleton_edit_apply_animation (edit, model == &edit->after);
  km_document_reload (self);

  shown = km_document_get_skeleton (self);
  if (shown == model->skeleton && model->selected != NULL)
    joint = km_skeleton_find_joint (shown, model->selected);
  if (shown == model->skeleton)
    km_document_set_selected_joint (self, joint);
  log_handler_changes (self, edit->body, handlers_before);
}

static void
skeleton_edit_redo (gpointer data)
{
  SkeletonEdit *edit = data;

  skeleton_edit_apply (edit, &edit->after);
  if (edit->resolves && edit->animation_after == NULL
      && km_document_get_skeleton (edit->document) == edit->after.skeleton)
    {
      SolveLink *link = g_new0 (SolveLink, 1);

      link->edit = edit;
      edit->link = link;
      km_document_solve_completing (edit->document, edit_solved_cb, link, solve_link_free);
    }
}

static void
skeleton_edit_undo (gpointer data)
{
  SkeletonEdit *edit = data;

  skeleton_edit_apply (edit, &edit->before);
}

/* Edits that keep every joint at its index (name, offset, axis, limits) keep the values by
 * index, so that a renamed joint keeps its value too; others map them by name. */
static void
map_state (const KmSkeleton *old_skeleton,
           const double     *old_q,
           const KmSkeleton *new_skeleton,
           double           *new_q)
{
  guint n = km_skeleton_get_n_joints (new_skeleton);
  gboolean same_layout = n == km_skeleton_get_n_joints (old_skeleton)
                         && km_skeleton_get_n_dof (new_skeleton)
                            == km_skeleton_get_n_dof (old_skeleton);

  for (guint i = 0; same_layout && i < n; i++)
    {
      const KmJoint *a = km_skeleton_get_joint (old_skeleton, i);
      const KmJoint *b = km_skeleton_get_joint (new_skeleton, i);

      same_layout = a->type == b->type && a->dof_index == b->dof_index && a->parent == b->parent;
    }

  if (same_layout)
    {
      memcpy (new_q, old_q, km_skeleton_get_n_dof (new_skeleton) * sizeof (double));
      km_skeleton_clamp (new_skeleton, new_q);
    }
  else
    km_skeleton_edit_map_state (old_skeleton, old_q, new_skeleton, new_q);
}

static KmBodyItem *
current_body (KmDocument *self)
{
  KmItem *item = km_document_get_body_item (self);

  if (!KM_IS_BODY_ITEM (item) || km_body_item_get_skeleton (KM_BODY_ITEM (item)) == NULL)
    return NULL;
  return KM_BODY_ITEM (item);
}

static void
body_model_init_current (BodyModel  *model,
                         KmDocument *self,
                         KmBodyItem *body)
{
  KmSkeleton *skeleton = km_body_item_get_skeleton (body);
  EditedBody *pending = g_object_get_data (G_OBJECT (body), PENDING_KEY);
  int selected = km_document_get_selected_joint (self);
  guint n = 0;
  const double *q = km_body_item_get_joint_state (body, &n);

  model->skeleton = km_skeleton_ref (skeleton);
  model->file = g_strdup (km_body_item_get_file (body));
  model->format = g_strdup (km_body_item_get_format (body));
  model->n_dof = km_skeleton_get_n_dof (skeleton);
  model->q = g_new0 (double, MAX (model->n_dof, 1));
  if (q != NULL && n == model->n_dof)
    memcpy (model->q, q, n * sizeof (double));
  if (selected >= 0 && (guint) selected < km_skeleton_get_n_joints (skeleton))
    model->selected = g_strdup (km_skeleton_get_joint (skeleton, selected)->name);
  model->modified = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (body), MODIFIED_KEY));
  model->embedded = g_object_get_data (G_OBJECT (body), EMBEDDED_KEY) != NULL;
  if (pending != NULL)
    model->pending = pending_file_ref (pending->pending);
}

/* The pose @model's body shows now: where the edit starts from. The body's joint state
 * may hold a pose edited and not keyed that a frame change replaced with the motion (or
 * whose key was undone): thrown away, it must not come back through the edit and the
 * re-solve that starts from it. */
static const double *
shown_state (KmDocument      *self,
             const BodyModel *model)
{
  guint n = 0;
  const double *shown = km_document_get_pose (self, &n);

  if (km_document_get_skeleton (self) != model->skeleton || shown == NULL
      || n != model->n_dof)
    return model->q;
  return shown;
}

static void
push_edit (KmDocument   *self,
           SkeletonEdit *edit,
           const char   *label)
{
  km_document_close_edit (self);
  km_project_push_command (km_document_get_project (self), label,
                           skeleton_edit_redo, skeleton_edit_undo, NULL, NULL,
                           edit, skeleton_edit_free);
  km_document_close_edit (self);
}

/**
 * km_document_edit_skeleton:
 * @skeleton: the new skeleton of the current body (from a km_skeleton_edit_* function)
 * @label: the undo label
 * @select_joint: (nullable): the joint to select afterwards; %NULL keeps the selected joint
 *   (by name) when it survives
 *
 * The end effector of the body's IK targets stays the joint it was: when the edit deletes
 * that joint, the targets name its parent from then on (part of the step), and the message
 * view says so.
 *
 * Returns: %FALSE when there is no body or @skeleton equals the current one (no step).
 */
gboolean
km_document_edit_skeleton (KmDocument *self,
                           KmSkeleton *skeleton,
                           const char *label,
                           const char *select_joint)
{
  g_autofree char *deleted_effector = NULL;
  g_autofree char *targets_name = NULL;
  g_autofree char *new_effector = NULL;
  KmBodyItem *body;
  SkeletonEdit *edit;

  g_return_val_if_fail (KM_IS_DOCUMENT (self), FALSE);
  g_return_val_if_fail (skeleton != NULL, FALSE);
  g_return_val_if_fail (label != NULL, FALSE);

  body = current_body (self);
  if (body == NULL || km_skeleton_equal (km_body_item_get_skeleton (body), skeleton, 0.0))
    return FALSE;

  edit = g_new0 (SkeletonEdit, 1);
  edit->document = self;
  edit->body = g_object_ref (body);
  body_model_init_current (&edit->before, self, body);

  edit->after.skeleton = km_skeleton_ref (skeleton);
  edit->after.file = g_strdup (edit->before.file);
  edit->after.format = g_strdup (edit->before.format);
  edit->after.n_dof = km_skeleton_get_n_dof (skeleton);
  edit->after.q = g_new0 (double, MAX (edit->after.n_dof, 1));
  map_state (edit->before.skeleton, shown_state (self, &edit->before), skeleton, edit->after.q);
  edit->after.selected = g_strdup (select_joint != NULL ? select_joint : edit->before.selected);
  edit->after.modified = TRUE;
  edit->after.embedded = edit->before.embedded;
  if (edit->before.pending != NULL)
    edit->after.pending = pending_file_ref (edit->before.pending);

  edit->resolves = TRUE;
  deleted_effector = follow_effector (edit);
  if (edit->targets_item == NULL)
    pin_default_effector (edit);
  edit->animation_item = find_animation_item (body);
  if (edit->animation_item != NULL)
    {
      KmAnimation *animation;

      g_object_ref (edit->animation_item);
      animation = km_ik_animation_item_get_animation (KM_IK_ANIMATION_ITEM (edit->animation_item));
      edit->animation_before = animation != NULL ? km_animation_ref (animation) : NULL;
    }

  if (deleted_effector != NULL)
    {
      targets_name = g_strdup (km_item_get_name (edit->targets_item));
      new_effector = g_strdup (km_target_track_get_effector (edit->targets_after));
    }

  /* Followers whose master this edit deletes or fixes move on their own: said. */
  km_document_note_dropped_mimic (self, edit->before.skeleton, skeleton);
  /* The redo that pushing runs starts the solve that completes this step. */
  push_edit (self, edit, label);
  if (deleted_effector != NULL)
    km_document_log (self, G_LOG_LEVEL_WARNING,
                     /* Translators: a joint's name, an IK targets item's name, another
                      * joint's name, then the first joint's name again */
                     _("The end effector “%s” was deleted: the IK targets “%s” now belong "
                       "to “%s”. Ctrl+Z brings “%s” back."),
                     deleted_effector, targets_name, new_effector, deleted_effector);
  return TRUE;
}

/* Adding a body item (New Skeleton): redo inserts it and makes it the current body. */
typedef struct
{
  KmDocument *document;
  KmItem     *parent;
  KmItem     *body;
  KmItem     *previous;   /* the current body before, or NULL */
  guint       position;
} NewBody;

static void
new_body_free (gpointer data)
{
  NewBody *edit = data;

  g_clear_object (&edit->parent);
  g_clear_object (&edit->body);
  g_clear_object (&edit->previous);
  g_free (edit);
}

static void
new_body_redo (gpointer data)
{
  NewBody *edit = data;
  KmProject *project = km_document_get_project (edit->document);

  km_item_insert_child (edit->parent, MIN (edit->position, km_item_get_n_children (edit->parent)),
                        edit->body);
  km_project_set_current_body (project, edit->body);
  km_project_select (project, edit->body, FALSE);
  km_document_reload (edit->document);
  if (km_document_get_body_item (edit->document) == edit->body)
    km_document_set_selected_joint (edit->document, 0);
}

static void
new_body_undo (gpointer data)
{
  NewBody *edit = data;
  KmProject *project = km_document_get_project (edit->document);

  km_project_clear_selection (project);
  km_item_remove_child (edit->parent, edit->body);
  km_project_set_current_body (project, edit->previous);
  km_document_reload (edit->document);
}

/**
 * km_document_new_skeleton:
 * @root_name: (nullable): the root joint's name, "Root" when %NULL
 *
 * Adds a body item whose skeleton is a single fixed root joint (to the first world item,
 * else the project's root item) as one undoable step, makes it the current body, selects
 * it and its root joint. The body has no file until its skeleton is saved (Save Skeleton
 * asks where).
 *
 * Returns: (transfer none): the new body item
 */
KmItem *
km_document_new_skeleton (KmDocument *self,
                          const char *root_name)
{
  g_autoptr(KmSkeletonBuilder) builder = km_skeleton_builder_new ();
  g_autoptr(KmSkeleton) skeleton = NULL;
  g_autoptr(GError) error = NULL;
  KmProject *project;
  KmItem *root;
  NewBody *edit;

  g_return_val_if_fail (KM_IS_DOCUMENT (self), NULL);

  if (root_name == NULL || *root_name == '\0')
    root_name = "Root";
  km_skeleton_builder_set_root_name (builder, root_name);
  km_skeleton_builder_add_joint (builder, root_name, KM_JOINT_FIXED, NULL);
  skeleton = km_skeleton_builder_build (builder, NULL, &error);
  g_return_val_if_fail (skeleton != NULL, NULL);

  project = km_document_get_project (self);
  root = km_project_get_root_item (project);
  edit = g_new0 (NewBody, 1);
  edit->document = self;
  edit->parent = NULL;
  for (guint i = 0; i < km_item_get_n_children (root) && edit->parent == NULL; i++)
    if (KM_IS_WORLD_ITEM (km_item_get_child (root, i)))
      edit->parent = g_object_ref (km_item_get_child (root, i));
  if (edit->parent == NULL)
    edit->parent = g_object_ref (root);
  edit->position = km_item_get_n_children (edit->parent);
  edit->previous = km_document_get_body_item (self);
  if (edit->previous != NULL)
    g_object_ref (edit->previous);

  edit->body = km_body_item_new ();
  km_item_set_name (edit->body, _("New Skeleton"));
  km_item_set_checked (edit->body, TRUE);
  km_body_item_set_model (KM_BODY_ITEM (edit->body), NULL, SKELETON_JSON_FORMAT, skeleton);
  g_object_set_data (G_OBJECT (edit->body), MODIFIED_KEY, GINT_TO_POINTER (TRUE));

  km_document_close_edit (self);
  km_project_push_command (project, _("New Skeleton"), new_body_redo, new_body_undo, NULL, NULL,
                           edit, new_body_free);
  km_document_close_edit (self);
  return edit->body;
}

/* Whether the current body's skeleton was edited since it was loaded or saved. */
gboolean
km_document_get_skeleton_modified (KmDocument *self)
{
  KmBodyItem *body;

  g_return_val_if_fail (KM_IS_DOCUMENT (self), FALSE);

  body = current_body (self);
  return body != NULL && GPOINTER_TO_INT (g_object_get_data (G_OBJECT (body), MODIFIED_KEY));
}

static char *write_back_path (KmItemIo   *io,
                              KmBodyItem *body);

/* The skeleton.json of the user's that @body's model is read from, as its project
 * resolves the reference (a reopened project names it relative to its folder), or NULL. */
static char *
own_skeleton_path (KmDocument *self,
                   KmBodyItem *body)
{
  g_auto(KmDocumentItemIo) io = { 0 };

  km_document_item_io_init (self, &io);
  return write_back_path (&io.io, body);
}

/**
 * km_document_dup_skeleton_file:
 *
 * Returns: (transfer full) (nullable): the current body's model file when it is a
 *   skeleton.json of the user's that Save can write to (also one the project names
 *   relative to its folder), else %NULL (Save As is needed).
 */
GFile *
km_document_dup_skeleton_file (KmDocument *self)
{
  KmBodyItem *body;
  g_autofree char *path = NULL;

  g_return_val_if_fail (KM_IS_DOCUMENT (self), NULL);

  body = current_body (self);
  if (body == NULL)
    return NULL;
  path = own_skeleton_path (self, body);
  return path != NULL ? g_file_new_for_path (path) : NULL;
}

/* Counts what skeleton.json has no place for: display shapes and joint ids. */
static void
count_json_losses (const KmSkeleton *skeleton,
                   guint            *n_shapes,
                   guint            *n_ids)
{
  *n_shapes = 0;
  *n_ids = 0;
  for (guint i = 0; i < km_skeleton_get_n_joints (skeleton); i++)
    {
      guint n = 0;

      km_skeleton_get_shapes (skeleton, i, &n);
      *n_shapes += n;
    }
  *n_ids = km_skeleton_count_joint_ids (skeleton);
}

/* What skeleton.json has no place for. */
static void
skeleton_json_notes (const KmSkeleton *skeleton,
                     GPtrArray        *notes)
{
  guint n_shapes, n_ids;

  count_json_losses (skeleton, &n_shapes, &n_ids);
  if (n_shapes > 0)
    g_ptr_array_add (notes, g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                          "%u display shape is not saved",
                                                          "%u display shapes are not saved",
                                                          n_shapes), n_shapes));
  if (n_ids > 0)
    g_ptr_array_add (notes, g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                          "%u joint id is not saved",
                                                          "%u joint ids are not saved",
                                                          n_ids), n_ids));
}

/* Writes @skeleton to @path in @format (SKELETON-JSON, CHOREONOID-BODY or URDF), adding to
 * @notes what that format cannot carry; a .body with the pose its model file stated
 * (@initial_q, nullable: km_body_item_dup_model_pose), and, as a copy written for the
 * project file named @stamp_for (nullable), with that project's stamp (km-copy-stamp.h).
 * @original (nullable): the model file
 * of @format the skeleton was read from, written over with the edits so that what Kinema
 * does not model (mass, inertia, sensors, collisions, …) stays (km_body_save_over,
 * km_urdf_save_over); of a skeleton.json of the user's written back, the keys Kinema does
 * not interpret (km_skeleton_json_save_over). @original_text (nullable): the text @original
 * held when it was read, written over instead of the file (gone since: *_save_over_text).
 * Every writer is atomic. Touches no document: runs on any thread. */
static gboolean
write_skeleton (const KmSkeleton  *skeleton,
                const double      *initial_q,
                const char        *original,
                GBytes            *original_text,
                const char        *format,
                const char        *path,
                const char        *stamp_for,
                GPtrArray         *notes,
                GError           **error)
{
  if (g_strcmp0 (format, BODY_FORMAT) == 0 && original != NULL)
    return km_body_save_over_text (skeleton, initial_q, original, original_text, path, notes,
                                   error);
  if (g_strcmp0 (format, BODY_FORMAT) == 0 && stamp_for != NULL)
    {
      g_autofree char *text = km_body_to_string_for_path (skeleton, initial_q, path, notes);
      g_autofree char *stamped = km_copy_stamp_append (text, stamp_for);

      return km_format_save_text (path, stamped, error);
    }
  if (g_strcmp0 (format, BODY_FORMAT) == 0)
    return km_body_save_with_pose (skeleton, initial_q, path, notes, error);
  if (g_strcmp0 (format, URDF_FORMAT) == 0 && original != NULL)
    return km_urdf_save_over_text (skeleton, original, original_text, path, notes, error);
  if (g_strcmp0 (format, URDF_FORMAT) == 0)
    return km_urdf_save (skeleton, path, notes, error);
  if (original != NULL ? !km_skeleton_json_save_over_text (skeleton, original, original_text,
                                                           path, notes, error)
                       : !km_skeleton_json_save (skeleton, path, error))
    return FALSE;
  skeleton_json_notes (skeleton, notes);
  return TRUE;
}

/* ---- Writing skeleton files on a worker thread ------------------------------------ */

/* One file to write: an immutable skeleton, so the worker may hold it. */
typedef struct
{
  KmSkeleton *skeleton;
  double     *initial_q;  /* nullable: the pose the model file stated, for a .body */
  char       *original;   /* nullable: the model file of @format the skeleton came from */
  GBytes     *original_text; /* nullable: what @original held when read, written over
                              * instead of the file (gone since) */
  char       *format;
  char       *path;
  gboolean    is_new;   /* no file was there: a failed save removes it again */
  gboolean    replace;  /* a file of the user's, replaced only once the project is written:
                         * the write goes to @temp (the worker's) */
  char       *temp;
  int         temp_slot; /* @temp's in the temporary files a fatal signal removes, or -1 */
  gboolean    read_back; /* the written file is read back into @written */
  KmSkeleton *written;
  gboolean    own;      /* a copy Kinema writes (new, or its own copy of this session) */
  char       *identity; /* @own: what the file is once the project is written (the worker's) */
  char       *expected; /* an own copy written again where it is: what the file must still
                         * be (its identity when Kinema last wrote it) to be written over */
  gboolean    changed;  /* @expected: another program replaced or changed the file since
                         * (the worker's): it was left as it is */
  gboolean    users;    /* @expected is that of a file of the user's written back, not of
                         * a copy of Kinema's */
  char       *copy_stem; /* nullable: a save for Choreonoid's copy, @path not chosen yet:
                          * the worker names it (write_body_copies) */
  char       *stamp_for; /* nullable: a copy for the project file of that name, stamped
                          * as its own (km-copy-stamp.h) */
  GBytes     *written_text; /* @replace, a skeleton.json: the text written (the worker's),
                             * which the body keeps then (km_body_item_set_model_text) */
  gboolean    not_replaced; /* @replace: the project was written, but this file could not
                             * be replaced (the worker's): it is as it was, its body edited */
} SkeletonFile;

static void
skeleton_file_free (gpointer data)
{
  SkeletonFile *file = data;

  km_skeleton_unref (file->skeleton);
  g_free (file->initial_q);
  g_free (file->original);
  g_clear_pointer (&file->original_text, g_bytes_unref);
  g_clear_pointer (&file->written_text, g_bytes_unref);
  g_clear_pointer (&file->written, km_skeleton_unref);
  g_free (file->format);
  g_free (file->path);
  km_format_unregister_temporary (file->temp_slot);
  g_free (file->temp);
  g_free (file->identity);
  g_free (file->expected);
  g_free (file->stamp_for);
  g_free (file->copy_stem);
  g_free (file);
}

static GPtrArray *
skeleton_files_new (void)
{
  return g_ptr_array_new_with_free_func (skeleton_file_free);
}

static void
skeleton_files_add (GPtrArray  *files,
                    KmSkeleton *skeleton,
                    const char *format,
                    const char *path)
{
  SkeletonFile *file = g_new0 (SkeletonFile, 1);

  file->skeleton = km_skeleton_ref (skeleton);
  file->format = g_strdup (format);
  file->path = g_strdup (path);
  file->temp_slot = -1;
  g_ptr_array_add (files, file);
}

/* A new file beside @path for what is to replace it, with the permissions a save gives
 * (as km_format_save_data() does): private (0600) while it is written when @path is there,
 * since km_format_replace_file() gives it the old file's mode; for a file that is not there
 * (deleted since it was read), 0666 less the umask, as any new file. */
static char *
reserve_temp (const char  *path,
              int         *slot,
              GError     **error)
{
  g_autofree char *temp = g_strconcat (path, ".XXXXXX", NULL);
  GStatBuf st;
  int fd = g_mkstemp_full (temp, O_RDWR | O_CLOEXEC, g_stat (path, &st) == 0 ? 0600 : 0666);

  if (fd < 0)
    {
      int saved_errno = errno;

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   _("%s: cannot write the file: %s"), path, g_strerror (saved_errno));
      return NULL;
    }
  close (fd);
  /* Removed by a signal that ends the program before it replaces @path or goes. */
  *slot = km_format_register_temporary (temp);
  return g_steal_pointer (&temp);
}

/* @file's temporary file renamed or removed: forgotten. */
static void
clear_temp (SkeletonFile *file)
{
  km_format_unregister_temporary (file->temp_slot);
  file->temp_slot = -1;
  g_clear_pointer (&file->temp, g_free);
}

/* An error about the file @temp, written to replace @path, names @path: the user never
 * asked for the temporary file (“arm.json.4KX2Q1”: cannot write the file: …). */
static void
name_user_file (GError     **error,
                const char  *temp,
                const char  *path)
{
  g_autoptr(GString) message = NULL;

  if (error == NULL || *error == NULL)
    return;
  message = g_string_new ((*error)->message);
  g_string_replace (message, temp, path, 0);
  g_free ((*error)->message);
  (*error)->message = g_string_free (g_steal_pointer (&message), FALSE);
}

static void
add_read_back_warning (const char *message,
                       gpointer    user_data)
{
  g_ptr_array_add (user_data, g_strdup (message));
}

/* Reads the .body file @file wrote back, as a project that refers to it loads it. */
static gboolean
read_back_body (SkeletonFile  *file,
                GPtrArray     *warnings,
                GError       **error)
{
  g_autofree char *data = NULL;
  gsize length = 0;
  KmBodyOptions options = { .load_meshes = TRUE };

  if (!g_file_get_contents (file->temp != NULL ? file->temp : file->path, &data, &length, error))
    return FALSE;
  km_parse_warnings_push (add_read_back_warning, warnings);
  file->written = km_body_load (file->path, data, length, &options, error);
  km_parse_warnings_pop ();
  return file->written != NULL;
}

/* Whether the own copy @file writes again is still the file Kinema wrote (@file->expected);
 * else notes that it is not (@file->changed) with why in @error: a file another program
 * put there since, or changed, is the user's, never written over. One stat. */
static gboolean
own_copy_still_there (SkeletonFile  *file,
                      GError       **error)
{
  g_autoptr(GFile) gfile = NULL;
  g_autofree char *identity = NULL;

  if (file->expected == NULL)
    return TRUE;
  gfile = g_file_new_for_path (file->path);
  identity = km_document_query_file_identity (gfile, NULL);
  if (identity != NULL && strcmp (identity, file->expected) == 0)
    return TRUE;
  file->changed = TRUE;
  if (file->users)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_WRONG_ETAG,
                 /* Translators: a model file of the user's that a save was to write back */
                 _("%s was changed or replaced by another program while Kinema saved: it is "
                   "left as it is"), file->path);
  else
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_WRONG_ETAG,
                 /* Translators: a model file Kinema wrote as a copy of an edited model */
                 _("%s was changed or replaced by another program since Kinema saved it: it "
                   "is left as it is"), file->path);
  return FALSE;
}

/* Writes @files (a GPtrArray of SkeletonFile) in order, stopping at the first failure;
 * what the formats cannot carry goes to @warnings as "PATH: note". A KmDocumentWriteFunc. */
static gboolean
write_skeleton_files (gpointer    data,
                      GPtrArray  *warnings,
                      GError    **error)
{
  GPtrArray *files = data;

  for (guint i = 0; i < files->len; i++)
    {
      SkeletonFile *file = g_ptr_array_index (files, i);
      g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
      gboolean ok;

      /* An own copy is written over only while it is the file Kinema wrote: the user may
       * have put a file of theirs there since the save was planned. */
      if (!own_copy_still_there (file, error))
        return FALSE;
      if (file->replace
          && (file->temp = reserve_temp (file->path, &file->temp_slot, error)) == NULL)
        return FALSE;
      ok = write_skeleton (file->skeleton, file->initial_q, file->original,
                           file->original_text, file->format,
                           file->temp != NULL ? file->temp : file->path, file->stamp_for,
                           notes, error);
      if (!ok && file->temp != NULL)
        name_user_file (error, file->temp, file->path);

      for (guint n = 0; n < notes->len; n++)
        g_ptr_array_add (warnings, g_strdup_printf ("%s: %s", file->path,
                                                    (const char *) g_ptr_array_index (notes, n)));
      if (!ok)
        return FALSE;
      /* A skeleton.json of the user's written back: the text it holds now is what a save
       * that finds it gone writes over (read back: a few kilobytes). */
      if (file->replace && g_strcmp0 (file->format, SKELETON_JSON_FORMAT) == 0)
        {
          char *text = NULL;
          gsize length = 0;

          if (g_file_get_contents (file->temp != NULL ? file->temp : file->path, &text, &length,
                                   NULL))
            {
              if (length <= KM_MODEL_TEXT_KEEP_MAX)
                file->written_text = g_bytes_new_take (g_steal_pointer (&text), length);
              g_free (text);
            }
        }
      /* (a file of the user's is replaced by its temporary one before the write ends) */
      _km_document_note_written (file->path);
      if (file->read_back && g_strcmp0 (file->format, BODY_FORMAT) == 0
          && !read_back_body (file, warnings, error))
        return FALSE;
    }
  return TRUE;
}

/* The Skeleton tab's saves run one at a time: the document keeps the file being written
 * (km_document_get_skeleton_saving_file). FALSE with %G_IO_ERROR_PENDING while one runs. */
static gboolean
begin_skeleton_save (KmDocument  *self,
                     GFile       *file,
                     GError     **error)
{
  if (g_object_get_data (G_OBJECT (self), SAVING_KEY) != NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_PENDING,
                           _("A skeleton file is being saved already"));
      return FALSE;
    }
  g_object_set_data_full (G_OBJECT (self), SAVING_KEY, g_object_ref (file), g_object_unref);
  return TRUE;
}

static void
end_skeleton_save (KmDocument *self)
{
  g_object_set_data (G_OBJECT (self), SAVING_KEY, NULL);
}

/**
 * km_document_get_skeleton_saving_file:
 *
 * Returns: (transfer none) (nullable): the file a Skeleton tab save
 *   (km_document_save_skeleton_async() and the others) is writing, or %NULL
 */
GFile *
km_document_get_skeleton_saving_file (KmDocument *self)
{
  g_return_val_if_fail (KM_IS_DOCUMENT (self), NULL);

  return g_object_get_data (G_OBJECT (self), SAVING_KEY);
}

/* The outer task of a Skeleton tab save, its file taken as the one being written; NULL
 * when another runs (the task has failed then, and is gone). */
static GTask *
skeleton_task_new (KmDocument          *self,
                   GFile               *file,
                   GCancellable        *cancellable,
                   GAsyncReadyCallback  callback,
                   gpointer             user_data,
                   gpointer             source_tag)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  GError *error = NULL;

  g_task_set_source_tag (task, source_tag);
  if (!begin_skeleton_save (self, file, &error))
    {
      g_task_return_error (task, error);
      return NULL;
    }
  return g_steal_pointer (&task);
}

/* What the last Skeleton tab save that ended was, and its error
 * (_km_document_get_skeleton_save_result). */
#define SAVE_KIND_KEY  "km-skeleton-save-kind"
#define SAVE_ERROR_KEY "km-skeleton-save-error"

/* What @task saves (a KmSkeletonSaveKind), as its outer task. */
static KmSkeletonSaveKind
skeleton_task_kind (GTask *task)
{
  gpointer tag = g_task_get_source_tag (task);

  if (tag == km_document_save_with_body_copies_async)
    return KM_SKELETON_SAVE_KIND_FOR_CHOREONOID;
  if (tag == km_document_export_skeleton_async)
    return GPOINTER_TO_INT (g_object_get_data (G_OBJECT (task), SAVE_KIND_KEY));
  return KM_SKELETON_SAVE_KIND_SKELETON;
}

/* Ends @task (taken) and the save it stands for: with @error (taken) when not NULL. */
static void
skeleton_task_return (GTask  *task,
                      GError *error)
{
  g_autoptr(KmDocument) self = g_object_ref (g_task_get_source_object (task));
  gboolean ok = error == NULL;

  end_skeleton_save (self);
  g_object_set_data (G_OBJECT (self), SAVE_KIND_KEY,
                     GINT_TO_POINTER (skeleton_task_kind (task)));
  g_object_set_data_full (G_OBJECT (self), SAVE_ERROR_KEY,
                          error != NULL ? g_error_copy (error) : NULL,
                          (GDestroyNotify) g_error_free);
  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
  g_object_unref (task);
  /* (After the caller's callback when it ran now, which logs what went wrong.) */
  g_signal_emit_by_name (self, "skeleton-save-ended", ok);
}

const GError *
_km_document_get_skeleton_save_result (KmDocument         *self,
                                       KmSkeletonSaveKind *kind)
{
  g_return_val_if_fail (KM_IS_DOCUMENT (self), NULL);
  g_return_val_if_fail (kind != NULL, NULL);

  *kind = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (self), SAVE_KIND_KEY));
  return g_object_get_data (G_OBJECT (self), SAVE_ERROR_KEY);
}

/* ---- Save Skeleton, Export ---------------------------------------------------------- */

/* What a skeleton save or export writes: the current body's skeleton to @path. */
typedef struct
{
  KmBodyItem *body;
  KmSkeleton *skeleton;
  char       *path;
  gboolean    export;
} SkeletonSave;

static void
skeleton_save_free (SkeletonSave *save)
{
  g_clear_object (&save->body);
  g_clear_pointer (&save->skeleton, km_skeleton_unref);
  g_free (save->path);
  g_free (save);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SkeletonSave, skeleton_save_free)

static SkeletonSave *
skeleton_save_new (KmDocument  *self,
                   GFile       *file,
                   gboolean     export,
                   GError     **error)
{
  g_autoptr(SkeletonSave) save = g_new0 (SkeletonSave, 1);
  KmBodyItem *body = current_body (self);

  if (body == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                           export ? _("There is no body to export") : _("There is no body to save"));
      return NULL;
    }
  save->path = km_local_file_get_path (file, error);
  if (save->path == NULL)
    return NULL;
  save->body = g_object_ref (body);
  save->skeleton = km_skeleton_ref (km_body_item_get_skeleton (body));
  save->export = export;
  return g_steal_pointer (&save);
}

/* After skeleton.json is written: when it is not the body's model file, the body refers
 * to it from now on (an undoable step, as Save As does). The body is unmodified unless its
 * skeleton changed while the file was written. */
static void
skeleton_saved (KmDocument   *self,
                SkeletonSave *save)
{
  KmBodyItem *body = save->body;
  gboolean current = km_body_item_get_skeleton (body) == save->skeleton;
  g_autofree char *own = own_skeleton_path (self, body);
  g_autofree char *saved = g_canonicalize_filename (save->path, NULL);

  /* (A body removed while the file was written stays as it is.) A save to the file the
   * body names, also relatively, keeps the reference as the project wrote it. */
  if (km_item_get_parent (KM_ITEM (body)) == NULL)
    ;
  else if (g_strcmp0 (own, saved) != 0
           && (g_strcmp0 (km_body_item_get_file (body), save->path) != 0
               || g_strcmp0 (km_body_item_get_format (body), SKELETON_JSON_FORMAT) != 0))
    {
      SkeletonEdit *edit = g_new0 (SkeletonEdit, 1);

      edit->document = self;
      edit->body = g_object_ref (body);
      body_model_init_current (&edit->before, self, body);
      body_model_init_current (&edit->after, self, body);
      g_free (edit->after.file);
      g_free (edit->after.format);
      edit->after.file = g_strdup (save->path);
      edit->after.format = g_strdup (SKELETON_JSON_FORMAT);
      edit->after.modified = !current;
      /* (the body's model is the user's file now, no longer the embedded one) */
      edit->after.embedded = FALSE;
      push_edit (self, edit, _("Save Skeleton As"));
    }
  else if (current)
    g_object_set_data (G_OBJECT (body), MODIFIED_KEY, GINT_TO_POINTER (FALSE));

  km_document_log (self, G_LOG_LEVEL_INFO, _("Saved the skeleton to %s."), save->path);
}

/**
 * km_document_save_skeleton:
 * @file: where to write skeleton.json
 *
 * km_document_save_skeleton_async() run to its end on the calling thread: writes the
 * current body's skeleton as skeleton.json. When @file is not the body's model file, the
 * body then refers to @file (an undoable step, as Save As does). What skeleton.json does
 * not carry is listed in the message view.
 */
gboolean
km_document_save_skeleton (KmDocument  *self,
                           GFile       *file,
                           GError     **error)
{
  g_autoptr(GAsyncResult) result = NULL;
  KmSyncCall call;

  g_return_val_if_fail (KM_IS_DOCUMENT (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  _km_sync_call_begin (&call);
  km_document_save_skeleton_async (self, file, NULL, _km_sync_call_done_cb, &call);
  result = _km_sync_call_wait (&call);
  return km_document_save_skeleton_finish (self, result, error);
}

static void
skeleton_exported (KmDocument   *self,
                   SkeletonSave *save)
{
  km_document_log (self, G_LOG_LEVEL_INFO, _("Exported the skeleton to %s."), save->path);
}

/**
 * km_document_export_skeleton:
 *
 * km_document_export_skeleton_async() run to its end on the calling thread: writes a copy
 * of the current body's skeleton as a Choreonoid .body file or URDF. The project does not
 * change; what the format cannot carry is listed in the message view.
 */
gboolean
km_document_export_skeleton (KmDocument        *self,
                             KmSkeletonExport   format,
                             GFile             *file,
                             GError           **error)
{
  g_autoptr(GAsyncResult) result = NULL;
  KmSyncCall call;

  g_return_val_if_fail (KM_IS_DOCUMENT (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  _km_sync_call_begin (&call);
  km_document_export_skeleton_async (self, format, file, NULL, _km_sync_call_done_cb, &call);
  result = _km_sync_call_wait (&call);
  return km_document_export_skeleton_finish (self, result, error);
}

/* The skeleton file is written: the document takes it in, then the caller. */
static void
skeleton_written_cb (GObject      *source,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  GTask *task = user_data;
  KmDocument *self = KM_DOCUMENT (source);
  SkeletonSave *save = g_task_get_task_data (task);
  GError *error = NULL;

  if (_km_document_write_finish (self, result, &error))
    {
      if (save->export)
        skeleton_exported (self, save);
      else
        skeleton_saved (self, save);
    }
  skeleton_task_return (task, error);
}

static char *expand_item_file (KmItemIo   *io,
                               KmItem     *item,
                               const char *file);

/* The model file @body was read from, when it is a file of @format that is still there
 * (not an embedded model's, not the built-in example's), else NULL: an export in the
 * model's own format writes it with the edits, as a project save writes a copy, so that
 * what Kinema does not model (mass, inertia, sensors, collisions, …) stays. */
static char *
export_original (KmDocument *self,
                 KmBodyItem *body,
                 const char *format)
{
  g_auto(KmDocumentItemIo) io = { 0 };
  const char *file = km_body_item_get_file (body);
  g_autofree char *path = NULL;

  /* (A URDF a project names under CHOREONOID-BODY, as Choreonoid does, is a URDF.) */
  if (file == NULL || *file == '\0'
      || g_strcmp0 (km_body_item_model_file_format (km_body_item_get_format (body), file),
                    format) != 0
      || g_strcmp0 (format, SKELETON_JSON_FORMAT) == 0
      || g_object_get_data (G_OBJECT (body), EMBEDDED_KEY) != NULL)
    return NULL;
  km_document_item_io_init (self, &io);
  path = expand_item_file (&io.io, KM_ITEM (body), file);
  if (path == NULL || !g_file_test (path, G_FILE_TEST_IS_REGULAR))
    return NULL;
  return g_steal_pointer (&path);
}

/* Starts writing the current body's skeleton to @file in @format on a worker thread. */
static void
save_skeleton_async (KmDocument          *self,
                     const char          *format,
                     GFile               *file,
                     GCancellable        *cancellable,
                     GAsyncReadyCallback  callback,
                     gpointer             user_data,
                     gpointer             source_tag)
{
  gboolean export = g_strcmp0 (format, SKELETON_JSON_FORMAT) != 0;
  GTask *task = skeleton_task_new (self, file, cancellable, callback, user_data, source_tag);
  GPtrArray *files;
  SkeletonSave *save;
  GError *error = NULL;

  if (task == NULL)
    return;
  g_object_set_data (G_OBJECT (task), SAVE_KIND_KEY,
                     GINT_TO_POINTER (g_strcmp0 (format, URDF_FORMAT) == 0
                                      ? KM_SKELETON_SAVE_KIND_EXPORT_URDF
                                      : KM_SKELETON_SAVE_KIND_EXPORT_BODY));
  save = skeleton_save_new (self, file, export, &error);
  if (save == NULL)
    {
      skeleton_task_return (task, error);
      return;
    }
  g_task_set_task_data (task, save, (GDestroyNotify) skeleton_save_free);
  files = skeleton_files_new ();
  skeleton_files_add (files, save->skeleton, format, save->path);
  /* Saved to the skeleton.json of the user's it was read from: the keys Kinema does not
   * interpret stay. */
  if (!export)
    {
      g_autofree char *own = own_skeleton_path (self, save->body);
      g_autofree char *saved = g_canonicalize_filename (save->path, NULL);

      if (own != NULL && g_strcmp0 (own, saved) == 0)
        ((SkeletonFile *) g_ptr_array_index (files, files->len - 1))->original =
          g_steal_pointer (&saved);
    }
  if (export)
    {
      SkeletonFile *added = g_ptr_array_index (files, files->len - 1);

      added->original = export_original (self, save->body, format);
      /* The pose the model file states (a .body file's joint_displacement, a scene's
       * joint pos values) goes into a .body export as kinema-cli convert writes it, with
       * or without an original to write over (write_skeleton ignores it for the other
       * formats). */
      added->initial_q = km_body_item_dup_model_pose (save->body, save->skeleton);
    }
  _km_document_write_async (self, write_skeleton_files, files,
                            (GDestroyNotify) g_ptr_array_unref, skeleton_written_cb, task);
}

/**
 * km_document_save_skeleton_async:
 *
 * km_document_save_skeleton() with the file written on a worker thread (the skeleton is
 * immutable; the body refers to the file once it is written, back on the main thread).
 * One Skeleton tab save runs at a time (km_document_get_skeleton_saving_file() is the
 * file meanwhile): another fails with %G_IO_ERROR_PENDING.
 */
void
km_document_save_skeleton_async (KmDocument          *self,
                                 GFile               *file,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  g_return_if_fail (KM_IS_DOCUMENT (self));
  g_return_if_fail (G_IS_FILE (file));

  save_skeleton_async (self, SKELETON_JSON_FORMAT, file, cancellable, callback, user_data,
                       km_document_save_skeleton_async);
}

gboolean
km_document_save_skeleton_finish (KmDocument    *self,
                                  GAsyncResult  *result,
                                  GError       **error)
{
  return _km_document_task_finish (self, result, km_document_save_skeleton_async, error);
}

/**
 * km_document_export_skeleton_async:
 *
 * km_document_export_skeleton() with the file written on a worker thread, one Skeleton
 * tab save at a time (as km_document_save_skeleton_async()).
 */
void
km_document_export_skeleton_async (KmDocument          *self,
                                   KmSkeletonExport     format,
                                   GFile               *file,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  g_return_if_fail (KM_IS_DOCUMENT (self));
  g_return_if_fail (G_IS_FILE (file));

  save_skeleton_async (self, format == KM_SKELETON_EXPORT_BODY ? BODY_FORMAT : URDF_FORMAT,
                       file, cancellable, callback, user_data,
                       km_document_export_skeleton_async);
}

gboolean
km_document_export_skeleton_finish (KmDocument    *self,
                                    GAsyncResult  *result,
                                    GError       **error)
{
  return _km_document_task_finish (self, result, km_document_export_skeleton_async, error);
}

/* A file-name stem for a copy of @body's model: its model file's name without the
 * extension, else the item's name, with path separators replaced. */
static char *
body_file_stem (KmBodyItem *body)
{
  const char *file = km_body_item_get_file (body);
  g_autofree char *base = file != NULL ? g_path_get_basename (file)
                                       : g_strdup (km_item_get_name (KM_ITEM (body)));
  char *dot = strrchr (base, '.');

  if (dot != NULL && dot != base)
    *dot = '\0';
  g_strdelimit (base, G_DIR_SEPARATOR_S "/\\:", '_');
  if (*base == '\0' || strcmp (base, ".") == 0 || strcmp (base, "..") == 0)
    return g_strdup ("body");
  return g_steal_pointer (&base);
}

/* What a project save (or an autosave) writes of the edited skeletons: @files
 * (SkeletonFile, immutable: the worker writes them) and @bodies (main thread only), in
 * the same order. An autosave's copies go to their own folder, @dir, with an index of what
 * the bodies referred to (@index, its text). */
struct _KmEditedSkeletons
{
  GPtrArray *files;
  GPtrArray *bodies;
  char      *dir;      /* an autosave's: made by the write */
  char      *index;
  char      *project_path;  /* a project save's */
  GPtrArray *stale;    /* of StaleCopy: own copies removed once the project is written */
};

static void
edited_body_free (gpointer data)
{
  EditedBody *edited = data;

  if (g_object_get_data (G_OBJECT (edited->body), PENDING_KEY) == edited)
    g_object_set_data (G_OBJECT (edited->body), PENDING_KEY, NULL);
  g_object_unref (edited->body);
  g_clear_pointer (&edited->pending, pending_file_unref);
  g_free (edited->path);
  g_free (edited->old_file);
  g_free (edited->old_format);
  g_free (edited->copy_of);
  g_free (edited);
}

typedef struct
{
  const char        *dir;
  GHashTable        *used;     /* file names chosen in this save; NULL for an autosave */
  KmEditedSkeletons *edited;
  GKeyFile          *index;    /* an autosave's */
  char              *reference_dir;   /* an autosave's: where relative files are */
  KmItemIo          *io;       /* resolves the bodies' files as the project does */
  KmDocument        *document;
  const char        *project_path;   /* a project save's */
} EditedScan;

/* Whether @scan plans a save to the document's own file (Save, not Save As elsewhere). */
static gboolean
saving_to_own_file (EditedScan *scan)
{
  GFile *file = km_document_get_file (scan->document);
  g_autofree char *own = file != NULL ? g_file_get_path (file) : NULL;

  return own != NULL && scan->project_path != NULL && g_strcmp0 (own, scan->project_path) == 0;
}

char *
_km_numbered_file_name (const char *stem,
                        const char *extension,
                        guint       i)
{
  return i == 1 ? g_strdup_printf ("%s.%s", stem, extension)
                : g_strdup_printf ("%s-%u.%s", stem, i, extension);
}

/* "DIR/STEM.EXT" for a body's saved skeleton: STEM from its model file or its name, made
 * unique among this save's files and the files already in DIR. */
static char *
edited_copy_path (KmBodyItem *body,
                  const char *dir,
                  const char *extension,
                  GHashTable *used)
{
  g_autofree char *stem = body_file_stem (body);

  for (guint i = 1;; i++)
    {
      g_autofree char *name = _km_numbered_file_name (stem, extension, i);
      g_autofree char *path = g_build_filename (dir, name, NULL);

      if (!g_hash_table_contains (used, name) && !g_file_test (path, G_FILE_TEST_EXISTS))
        {
          g_hash_table_add (used, g_steal_pointer (&name));
          return g_steal_pointer (&path);
        }
    }
}

void
_km_body_switch_model (KmBodyItem *body,
                       const char *file,
                       const char *format)
{
  guint n_dof = 0;
  const double *state = km_body_item_get_joint_state (body, &n_dof);
  g_autofree double *q = state != NULL ? g_memdup2 (state, MAX (n_dof, 1) * sizeof (double))
                                       : NULL;

  km_body_item_set_model (body, file, format, km_body_item_get_skeleton (body));
  if (q != NULL)
    km_body_item_set_joint_state (body, q, n_dof);
}

/* Puts @edited's body back on the file it referred to before it was switched. */
static void
edited_body_put_back (EditedBody *edited)
{
  _km_body_switch_model (edited->body, edited->old_file, edited->old_format);
  if (edited->was_embedded)
    g_object_set_data (G_OBJECT (edited->body), EMBEDDED_KEY, GINT_TO_POINTER (TRUE));
}

/* The folder @item's relative file references are relative to: that of the sub-project
 * file it was read from (the nearest sub-project item above it, whose own reference is
 * relative to the folder above, and so on), else @project_dir, the project's. */
char *
_km_item_reference_dir (KmItem     *item,
                        const char *project_dir)
{
  KmItem *sub = km_item_find_ancestor_by_type (item, KM_TYPE_SUB_PROJECT_ITEM);
  g_autofree char *above = NULL;
  g_autofree char *path = NULL;
  const char *file;

  if (sub == NULL)
    return g_strdup (project_dir);
  file = km_sub_project_item_get_file (KM_SUB_PROJECT_ITEM (sub));
  above = _km_item_reference_dir (sub, project_dir);
  if (file == NULL || *file == '\0' || (above == NULL && !g_path_is_absolute (file)))
    return g_steal_pointer (&above);
  path = g_canonicalize_filename (file, above);
  return g_path_get_dirname (path);
}

/* The path of @file, which @item (of the project @io reads) refers to: as the project
 * resolves it (km_item_io_expand_path), but a plain relative reference of an item of a
 * sub-project relative to the sub-project's folder, as it was read. NULL when it cannot be
 * expanded. */
static char *
expand_item_file (KmItemIo   *io,
                  KmItem     *item,
                  const char *file)
{
  g_autofree char *dir = NULL;
  KmItemIo sub_io;

  if (g_path_is_absolute (file))
    return g_strdup (file);
  if (km_item_find_ancestor_by_type (item, KM_TYPE_SUB_PROJECT_ITEM) == NULL
      || (dir = _km_item_reference_dir (item, io->dir)) == NULL)
    return km_item_io_expand_path (io, file, NULL);
  sub_io = *io;
  sub_io.dir = dir;
  return km_item_io_expand_path (&sub_io, file, NULL);
}

/* Notes in an autosave's index, under @name (its copy's), the file @body refers to, so
 * that a recovery puts it back there: while a project save writes its skeleton, the one it
 * referred to before (the file that save writes may never be). */
static void
index_autosaved_body (EditedScan *scan,
                      const char *name,
                      KmBodyItem *body)
{
  EditedBody *pending = g_object_get_data (G_OBJECT (body), PENDING_KEY);
  const char *file = pending != NULL ? pending->old_file : km_body_item_get_file (body);
  const char *format = pending != NULL ? pending->old_format : km_body_item_get_format (body);
  gboolean embedded = pending != NULL
                      ? pending->was_embedded
                      : g_object_get_data (G_OBJECT (body), EMBEDDED_KEY) != NULL;
  g_autofree char *reference_dir = NULL;
  const char *read_path;
  const char *read_checksum;

  /* The recovered project is read from another folder: the file as the body's project
   * found it (a body inside a sub-project: relative to the sub-project's folder), but the
   * built-in example's model, which goes beside any project. */
  if (file != NULL && !g_path_is_absolute (file) && !embedded)
    reference_dir = _km_item_reference_dir (KM_ITEM (body), scan->reference_dir);
  if (file != NULL && !g_path_is_absolute (file) && reference_dir != NULL && !embedded)
    {
      g_autofree char *absolute = g_canonicalize_filename (file, reference_dir);

      g_key_file_set_string (scan->index, name, "file", absolute);
    }
  else if (file != NULL)
    g_key_file_set_string (scan->index, name, "file", file);
  if (format != NULL)
    g_key_file_set_string (scan->index, name, "format", format);
  g_key_file_set_boolean (scan->index, name, "embedded", embedded);
  /* What the body's data goes with (the file it was read from or last written to, and
   * what that held then), so that a save of the recovered work still asks before writing
   * over a change another program made to the file since: after the crash too. */
  if (km_item_file_watch_get_item_read (KM_ITEM (body), &read_path, &read_checksum))
    {
      g_key_file_set_string (scan->index, name, "read-path", read_path);
      if (read_checksum != NULL)
        g_key_file_set_string (scan->index, name, "read-checksum", read_checksum);
    }
}

/* Whether skeleton.json holds all of @skeleton (no display shapes, no joint ids). */
static gboolean
skeleton_json_carries (const KmSkeleton *skeleton)
{
  guint n_shapes, n_ids;

  count_json_losses (skeleton, &n_shapes, &n_ids);
  return n_shapes == 0 && n_ids == 0;
}

static gboolean
has_spherical_joint (const KmSkeleton *skeleton)
{
  for (guint i = 0; i < km_skeleton_get_n_joints (skeleton); i++)
    if (km_skeleton_get_joint (skeleton, i)->type == KM_JOINT_SPHERICAL)
      return TRUE;
  return FALSE;
}

/* Whether a .body copy keeps more of @skeleton than skeleton.json: its display shapes and
 * joint ids, which skeleton.json has no place for, while a .body has one for all else it
 * holds, linked (mimic) joints included (Kinema's own `kinema_mimic` link key; a
 * spherical joint is checked before). */
static gboolean
body_keeps_more (const KmSkeleton *skeleton)
{
  return !skeleton_json_carries (skeleton);
}

/* The skeleton.json of the user's that @body's model is read from, which a project save
 * writes back (its path as @io resolves the body's reference: a project read from its
 * file refers to it relative to its folder), or NULL when there is none: a model in
 * another format or the built-in example's, or a file named through Choreonoid's share
 * folder (${SHARE}, ${PROGRAM_TOP}: an installation's, not the user's). */
static char *
write_back_path (KmItemIo   *io,
                 KmBodyItem *body)
{
  const char *file = km_body_item_get_file (body);

  if (file == NULL || *file == '\0'
      || g_strcmp0 (km_body_item_get_format (body), SKELETON_JSON_FORMAT) != 0
      || g_object_get_data (G_OBJECT (body), EMBEDDED_KEY))
    return NULL;
  if (g_path_is_absolute (file))
    return g_strdup (file);
  if (strstr (file, "${SHARE}") != NULL || strstr (file, "${PROGRAM_TOP}") != NULL)
    return NULL;
  return expand_item_file (io, KM_ITEM (body), file);
}

/* Whether the model file @body was read from (as @io resolves its reference) is gone:
 * another program deleted or moved it since. The skeleton the body shows is then in no
 * file, and a project referring to it would reopen without it. (The built-in example's
 * model is no file; a reference that does not resolve is not known to be gone.) */
static gboolean
model_file_missing (KmItemIo   *io,
                    KmBodyItem *body)
{
  const char *file = km_body_item_get_file (body);
  g_autofree char *path = NULL;

  if (file == NULL || *file == '\0' || g_object_get_data (G_OBJECT (body), EMBEDDED_KEY))
    return FALSE;
  path = expand_item_file (io, KM_ITEM (body), file);
  return path != NULL && !g_file_test (path, G_FILE_TEST_EXISTS);
}

static gboolean
parent_folder_exists (const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);

  return g_file_test (dir, G_FILE_TEST_IS_DIR);
}

/* Whether a save can write @body's model file, gone since it was read, again as it was
 * with the edits: a skeleton.json, or a .body or URDF whose text was kept when read (what
 * Kinema does not model stays), that holds the skeleton as it is (a spherical joint only
 * in skeleton.json). */
static gboolean
restorable_model (KmBodyItem       *body,
                  const char       *file_format,
                  const KmSkeleton *skeleton)
{
  const char *text_format = NULL;

  if (g_object_get_data (G_OBJECT (body), EMBEDDED_KEY) != NULL)
    return FALSE;
  if (g_strcmp0 (file_format, SKELETON_JSON_FORMAT) == 0)
    return TRUE;
  if ((g_strcmp0 (file_format, BODY_FORMAT) != 0 && g_strcmp0 (file_format, URDF_FORMAT) != 0)
      || has_spherical_joint (skeleton))
    return FALSE;
  return km_body_item_get_model_text (body, &text_format) != NULL
         && g_strcmp0 (text_format, file_format) == 0;
}

/* Plans the write of @item's skeleton when it was edited, or when its model file is gone
 * (model_file_missing: a save makes the project whole again, as Save As does for the
 * built-in example's model), and switches the body to the file it goes to. A project save
 * writes a skeleton.json of the user's back (where it was, while its folder is there) and
 * the others as copies beside the project; an autosave writes every one as a copy in its
 * own folder, also those a running project save has not written yet. */
static void
take_edited_skeleton (gpointer item,
                      gpointer user_data)
{
  EditedScan *scan = user_data;
  gboolean autosave = scan->used == NULL;
  EditedBody *edited;
  KmBodyItem *body;
  KmSkeleton *skeleton;
  const char *file, *format, *file_format, *new_format, *body_format, *extension;
  gboolean in_place, missing, copy_in_place = FALSE, gone_copy = FALSE, restore = FALSE;
  g_autofree char *path = NULL;
  g_autofree char *own_file = NULL;
  g_autofree char *resolved = NULL;
  OwnCopy *copy = NULL;

  if (!KM_IS_BODY_ITEM (item))
    return;
  body = KM_BODY_ITEM (item);
  skeleton = km_body_item_get_skeleton (body);
  file = km_body_item_get_file (body);
  format = km_body_item_get_format (body);
  file_format = km_body_item_model_file_format (format, file);
  if (skeleton == NULL)
    return;
  missing = model_file_missing (scan->io, body);
  if (file != NULL && !GPOINTER_TO_INT (g_object_get_data (item, MODIFIED_KEY))
      && !(autosave && g_object_get_data (item, PENDING_KEY) != NULL) && !missing)
    return;

  /* A copy an earlier save of this document wrote: written again where it is, when it is
   * this project's and as Kinema left it; written anew from the model it copies, when a
   * save removed it (an undo took the body back to it). */
  if (file != NULL && *file != '\0' && !autosave)
    {
      resolved = expand_item_file (scan->io, KM_ITEM (body), file);
      copy = lookup_own_copy (scan->document, resolved);
    }
  if (copy != NULL && copy->removed && missing)
    gone_copy = TRUE, missing = FALSE;
  else if (copy != NULL && !missing && g_strcmp0 (copy->project_path, scan->project_path) == 0
           && own_copy_unchanged (copy, resolved))
    copy_in_place = TRUE;

  /* A skeleton.json of the user's is written back; a model in another format is never
   * overwritten (Kinema's writers would drop what they do not know), so an edited one is
   * saved as a copy beside the project in the same format where Kinema writes it, unless
   * that format splits a spherical joint into three (the body's animations and joint
   * values, saved with the project, would no longer fit the model it loads): skeleton.json
   * then. (A URDF model a project names as Choreonoid does, under CHOREONOID-BODY, is a
   * URDF.) A model in a format Kinema reads but does not write (OpenHRP VRML, Scenebuilder
   * XML) goes to a .body copy where skeleton.json has no place for all of it (display
   * shapes, joint ids) and the .body has (body_keeps_more), so that the reopened project
   * shows it as it was; skeleton.json otherwise. An autosave does the same for every model,
   * a skeleton.json of the user's too (it keeps all the user had; a recovery reads it
   * back). */
  own_file = write_back_path (scan->io, body);
  /* (not one a save found another program's: a copy of Kinema's replaced meanwhile, which
   * the body may still refer to as to a skeleton.json of the user's) */
  if (own_file != NULL && !autosave && is_disowned (scan->document, own_file))
    g_clear_pointer (&own_file, g_free);
  /* A model file gone (another program deleted or moved it) is written again where the
   * project names it, in its format, a .body or URDF over the text it held when read (so
   * what Kinema does not model stays), one under ${SHARE} too: the project is not pointed
   * at a copy behind the user's back. When its folder is gone as well (an unmounted
   * share, a renamed folder), a save to the document's file still plans it there, and
   * fails before it writes anything, naming it (_km_edited_skeletons_check_folders); a
   * Save As elsewhere writes a copy beside the new project then, as Messages says. */
  if (missing && !autosave && !gone_copy && restorable_model (body, file_format, skeleton))
    {
      g_autofree char *named = expand_item_file (scan->io, KM_ITEM (body), file);

      if (named != NULL && (parent_folder_exists (named) || saving_to_own_file (scan)))
        {
          g_free (own_file);
          own_file = g_steal_pointer (&named);
          restore = TRUE;
        }
    }
  in_place = own_file != NULL && (!missing || restore || parent_folder_exists (own_file));
  if (restore)
    {
      new_format = file_format;
      extension = NULL;
    }
  else if (has_spherical_joint (skeleton))
    {
      new_format = SKELETON_JSON_FORMAT;
      extension = "json";
    }
  else if (!in_place && g_strcmp0 (file_format, URDF_FORMAT) == 0)
    {
      new_format = URDF_FORMAT;
      extension = "urdf";
    }
  else if ((!in_place || autosave)
           && (g_strcmp0 (format, BODY_FORMAT) == 0 || body_keeps_more (skeleton)))
    {
      new_format = BODY_FORMAT;
      extension = "body";
    }
  else
    {
      new_format = SKELETON_JSON_FORMAT;
      extension = "json";
    }
  /* (A URDF copy of a model named under CHOREONOID-BODY is named so too: it reads as a
   * URDF by its extension, and Choreonoid reads the project.) */
  body_format = restore ? format
                : g_strcmp0 (format, BODY_FORMAT) == 0 && g_strcmp0 (new_format, URDF_FORMAT) == 0
                ? BODY_FORMAT : new_format;
  if (autosave)
    {
      g_autofree char *name = g_strdup_printf ("%u.%s", scan->edited->bodies->len + 1,
                                               extension);

      path = g_build_filename (scan->dir, name, NULL);
      index_autosaved_body (scan, name, body);
    }
  else if (in_place)
    path = g_steal_pointer (&own_file);
  else if (copy_in_place && g_strcmp0 (new_format, file_format) == 0)
    {
      path = g_strdup (resolved);
      g_hash_table_add (scan->used, g_path_get_basename (path));
    }
  else
    {
      copy_in_place = FALSE;
      path = edited_copy_path (body, scan->dir, extension, scan->used);
    }

  edited = g_new0 (EditedBody, 1);
  edited->body = g_object_ref (body);
  edited->path = g_strdup (path);
  edited->old_file = g_strdup (file);
  edited->old_format = g_strdup (format);
  edited->switched = autosave || !(in_place || copy_in_place);
  edited->was_embedded = g_object_get_data (item, EMBEDDED_KEY) != NULL;
  edited->missing = missing;
  edited->was_modified = file == NULL || GPOINTER_TO_INT (g_object_get_data (item, MODIFIED_KEY))
                         || (autosave && g_object_get_data (item, PENDING_KEY) != NULL);
  skeleton_files_add (scan->edited->files, skeleton, new_format, path);
  ((SkeletonFile *) g_ptr_array_index (scan->edited->files, scan->edited->files->len - 1))
    ->initial_q = km_body_item_dup_model_pose (body, skeleton);
  /* A copy in the model's own format is the model file with the edits: what Kinema does
   * not model (mass, inertia, sensors, collisions, …) stays. */
  if (file != NULL && *file != '\0' && g_strcmp0 (new_format, file_format) == 0
      && g_strcmp0 (file_format, SKELETON_JSON_FORMAT) != 0
      && g_object_get_data (item, EMBEDDED_KEY) == NULL && !missing)
    ((SkeletonFile *) g_ptr_array_index (scan->edited->files, scan->edited->files->len - 1))
      ->original = expand_item_file (scan->io, KM_ITEM (body), file);
  /* A skeleton.json of the user's written back: the keys Kinema does not interpret (a
   * "comment", …) stay. */
  else if (!autosave && in_place && g_strcmp0 (new_format, SKELETON_JSON_FORMAT) == 0)
    {
      SkeletonFile *written = g_ptr_array_index (scan->edited->files,
                                                 scan->edited->files->len - 1);
      const char *text_format = NULL;
      GBytes *text = km_body_item_get_model_text (body, &text_format);

      written->original = g_strdup (path);
      /* Kept from the version the user read (or Kinema last wrote), not from one another
       * program left since: a save writes over that only when the user chose to
       * (Overwrite), and then no half of their edit is folded in. */
      if (text != NULL && g_strcmp0 (text_format, SKELETON_JSON_FORMAT) == 0)
        written->original_text = g_bytes_ref (text);
    }
  /* (a removed copy: the model it copied, while it is there) */
  else if (gone_copy && copy->original != NULL && g_strcmp0 (new_format, file_format) == 0
           && g_file_test (copy->original, G_FILE_TEST_IS_REGULAR))
    ((SkeletonFile *) g_ptr_array_index (scan->edited->files, scan->edited->files->len - 1))
      ->original = g_strdup (copy->original);
  if (copy_in_place || gone_copy)
    edited->copy_of = g_strdup (copy->original);
  else if (edited->switched && !autosave)
    edited->copy_of = g_strdup (((SkeletonFile *) g_ptr_array_index (scan->edited->files,
                                                                     scan->edited->files->len - 1))
                                  ->original);
  /* A model file gone since it was read: written again over the text it held then (kept
   * with the body), so that what Kinema does not model stays as it would over the file.
   * (No model is there to copy: @copy_of stays unset.) */
  if (missing && g_object_get_data (item, EMBEDDED_KEY) == NULL)
    {
      SkeletonFile *written = g_ptr_array_index (scan->edited->files,
                                                 scan->edited->files->len - 1);
      const char *text_format = NULL;
      GBytes *text = km_body_item_get_model_text (body, &text_format);

      if (text != NULL && g_strcmp0 (text_format, new_format) == 0)
        {
          written->original_text = g_bytes_ref (text);
          if (written->original == NULL)
            written->original = expand_item_file (scan->io, KM_ITEM (body), file);
        }
    }
  g_ptr_array_add (scan->edited->bodies, edited);
  /* A project save's copy is a new file (edited_copy_path picked a name not taken); a file
   * of the user's it writes back is replaced once the project is written. */
  if (!autosave)
    {
      SkeletonFile *written = g_ptr_array_index (scan->edited->files,
                                                 scan->edited->files->len - 1);

      written->is_new = edited->switched;
      written->replace = !edited->switched;
      written->own = edited->switched || copy_in_place;
      if (copy_in_place)
        written->expected = g_strdup (copy->identity);
      /* A file of the user's written back: as it is now, not as another program may
       * make it while the save runs. */
      else if (in_place)
        {
          g_autoptr(GFile) gfile = g_file_new_for_path (path);

          written->expected = km_document_query_file_identity (gfile, NULL);
          written->users = TRUE;
        }
    }

  if (edited->switched)
    {
      _km_body_switch_model (body, path, body_format);
      g_object_set_data (item, EMBEDDED_KEY, NULL);
    }
  if (autosave)
    return;
  edited->pending = g_new0 (PendingFile, 1);
  edited->pending->ref_count = 1;
  edited->pending->path = g_strdup (path);
  edited->pending->old_file = g_strdup (edited->old_file);
  edited->pending->old_format = g_strdup (edited->old_format);
  edited->pending->was_embedded = edited->was_embedded;
  /* Cleared now: an edit made while the file is written sets it again. */
  g_object_set_data (item, MODIFIED_KEY, GINT_TO_POINTER (FALSE));
  g_object_set_data (item, PENDING_KEY, edited);
}

typedef struct
{
  KmItemIo   *io;
  GHashTable *files;   /* the bodies' files, resolved */
} ReferenceScan;

static void
collect_body_file (gpointer item,
                   gpointer user_data)
{
  ReferenceScan *scan = user_data;
  const char *file;
  char *path;

  if (!KM_IS_BODY_ITEM (item) || (file = km_body_item_get_file (item)) == NULL || *file == '\0')
    return;
  path = expand_item_file (scan->io, item, file);
  if (path != NULL)
    g_hash_table_add (scan->files, path);
}

/* Adds the files the bodies of @document's project refer to to @files. */
static void
collect_document_files (KmDocument *document,
                        GHashTable *files)
{
  g_auto(KmDocumentItemIo) io = { 0 };
  ReferenceScan scan;

  km_document_item_io_init (document, &io);
  scan = (ReferenceScan) { &io.io, files };
  km_item_foreach (km_project_get_root_item (km_document_get_project (document)),
                   collect_body_file, &scan);
}

/* The copies @self wrote with the project at @project_path that no body refers to any
 * more, of the project (the body items already refer to the files this save writes, a
 * sub-project's included) or of another open document (which may have imported one):
 * this save removes them once the project is written, if they are still as Kinema wrote
 * them. (A copy saved with another project file stays: that file may refer to it.) */
static GPtrArray *
take_stale_copies (KmDocument *self,
                   const char *project_path)
{
  GHashTable *copies = g_object_get_data (G_OBJECT (self), OWN_COPIES_KEY);
  g_autoptr(GHashTable) files = NULL;
  GPtrArray *stale;
  GHashTableIter iter;
  gpointer key, value;

  if (copies == NULL)
    return NULL;
  files = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (GList *l = _km_document_get_all (); l != NULL; l = l->next)
    collect_document_files (l->data, files);
  stale = g_ptr_array_new_with_free_func (stale_copy_free);
  g_hash_table_iter_init (&iter, copies);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      OwnCopy *copy = value;
      StaleCopy *item;

      if (copy->removed || g_strcmp0 (copy->project_path, project_path) != 0
          || g_hash_table_contains (files, key))
        continue;
      item = g_new0 (StaleCopy, 1);
      item->path = g_strdup (key);
      item->identity = g_strdup (copy->identity);
      g_ptr_array_add (stale, item);
    }
  return stale;
}

/* The edited skeletons of @self's project, planned by take_edited_skeleton (@used NULL for
 * an autosave); NULL when there are none. */
static KmEditedSkeletons *
take_edited_skeletons (KmDocument *self,
                       const char *dir,
                       GHashTable *used,
                       const char *project_path)
{
  KmEditedSkeletons *edited = g_new0 (KmEditedSkeletons, 1);
  g_autoptr(GKeyFile) index = used == NULL ? g_key_file_new () : NULL;
  KmProject *project = km_document_get_project (self);
  g_autofree char *reference_dir = index != NULL ? km_cnoid_reference_dir (project) : NULL;
  g_auto(KmDocumentItemIo) io = { 0 };
  EditedScan scan = { dir, used, edited, index, reference_dir, &io.io, self, project_path };

  km_document_item_io_init (self, &io);

  edited->files = skeleton_files_new ();
  edited->bodies = g_ptr_array_new_with_free_func (edited_body_free);
  km_item_foreach (km_project_get_root_item (project), take_edited_skeleton, &scan);
  if (project_path != NULL)
    {
      edited->project_path = g_strdup (project_path);
      edited->stale = take_stale_copies (self, project_path);
    }
  if (edited->files->len == 0 && (edited->stale == NULL || edited->stale->len == 0))
    {
      _km_edited_skeletons_free (edited);
      return NULL;
    }
  if (index != NULL)
    {
      edited->dir = g_strdup (dir);
      edited->index = g_key_file_to_data (index, NULL, NULL);
    }
  return edited;
}

/**
 * _km_document_take_edited_skeletons:
 * @project_path: the project file about to be written
 *
 * The first half of a project save's skeleton writes, on the main thread: finds the
 * edited skeletons, picks their files and switches the body items to them (so that the
 * project written next refers to them), and marks them saved.
 *
 * Returns: (transfer full) (nullable): what to write (_km_edited_skeletons_write()), then
 *   hand to _km_document_edited_skeletons_done(); %NULL when no skeleton was edited
 */
KmEditedSkeletons *
_km_document_take_edited_skeletons (KmDocument *self,
                                    const char *project_path)
{
  g_autoptr(GHashTable) used = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autofree char *dir = NULL;

  g_return_val_if_fail (KM_IS_DOCUMENT (self), NULL);
  g_return_val_if_fail (project_path != NULL, NULL);

  dir = g_path_get_dirname (project_path);
  return take_edited_skeletons (self, dir, used, project_path);
}

/**
 * _km_document_take_autosave_skeletons:
 * @dir: the folder of this autosave's copies (not there yet: the write makes it)
 *
 * What an autosave must write beside it so that recovering it gives back every skeleton
 * edit: the skeleton of every body that its model file does not hold (edited, new, or
 * being written by a project save that may still fail) goes to @dir, and the body items
 * refer to those copies until _km_document_put_back_skeletons(), called once the
 * autosave's tree is made. Nothing else changes: the bodies stay modified.
 *
 * Returns: (transfer full) (nullable): what to write (_km_edited_skeletons_write()), %NULL
 *   when every skeleton is in its file
 */
KmEditedSkeletons *
_km_document_take_autosave_skeletons (KmDocument *self,
                                      const char *dir)
{
  g_return_val_if_fail (KM_IS_DOCUMENT (self), NULL);
  g_return_val_if_fail (dir != NULL, NULL);

  return take_edited_skeletons (self, dir, NULL, NULL);
}

/* The body items of an autosave's @edited refer to their own files again. */
void
_km_document_put_back_skeletons (KmDocument        *self,
                                 KmEditedSkeletons *edited)
{
  g_return_if_fail (KM_IS_DOCUMENT (self));
  g_return_if_fail (edited != NULL);

  for (guint i = 0; i < edited->bodies->len; i++)
    edited_body_put_back (g_ptr_array_index (edited->bodies, i));
}

/* Whether @file (as a body item of the project read from @project_dir refers to it) lies
 * in @dir; its absolute path in *@path then. */
static gboolean
file_in_dir (const char  *file,
             const char  *project_dir,
             const char  *dir,
             char       **path)
{
  g_autofree char *absolute = NULL;
  g_autofree char *parent = NULL;

  if (file == NULL)
    return FALSE;
  absolute = g_canonicalize_filename (file, project_dir);
  parent = g_path_get_dirname (absolute);
  if (!g_str_has_prefix (parent, dir)
      || (parent[strlen (dir)] != '\0' && parent[strlen (dir)] != G_DIR_SEPARATOR))
    return FALSE;
  *path = g_steal_pointer (&absolute);
  return TRUE;
}

typedef struct
{
  const char *project_dir;
  char       *models_dir;
  GHashTable *indexes;   /* folder → GKeyFile */
} RestoreScan;

static void
restore_autosaved_skeleton (gpointer item,
                            gpointer user_data)
{
  RestoreScan *scan = user_data;
  g_autofree char *path = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *name = NULL;
  g_autofree char *file = NULL;
  g_autofree char *format = NULL;
  g_autofree char *read_path = NULL;
  g_autofree char *read_checksum = NULL;
  GKeyFile *index;

  if (!KM_IS_BODY_ITEM (item) || km_body_item_get_skeleton (item) == NULL
      || !file_in_dir (km_body_item_get_file (item), scan->project_dir, scan->models_dir,
                       &path))
    return;
  dir = g_path_get_dirname (path);
  index = g_hash_table_lookup (scan->indexes, dir);
  if (index == NULL)
    {
      g_autofree char *index_path = g_build_filename (dir, AUTOSAVE_INDEX, NULL);

      index = g_key_file_new ();
      g_key_file_load_from_file (index, index_path, G_KEY_FILE_NONE, NULL);
      g_hash_table_insert (scan->indexes, g_strdup (dir), index);
    }
  name = g_path_get_basename (path);
  file = g_key_file_get_string (index, name, "file", NULL);
  format = g_key_file_get_string (index, name, "format", NULL);
  /* (No index: the body has no file, as a new skeleton, and keeps the format read.) */
  _km_body_switch_model (item, file, format != NULL ? format : km_body_item_get_format (item));
  if (g_key_file_get_boolean (index, name, "embedded", NULL))
    g_object_set_data (item, EMBEDDED_KEY, GINT_TO_POINTER (TRUE));
  g_object_set_data (item, MODIFIED_KEY, GINT_TO_POINTER (TRUE));
  /* What it went with when autosaved (not what the file holds now, which another program
   * may have changed since): a save asks before writing over such a change. */
  read_path = g_key_file_get_string (index, name, "read-path", NULL);
  read_checksum = g_key_file_get_string (index, name, "read-checksum", NULL);
  if (read_path != NULL)
    km_item_file_watch_set_item_read (item, read_path, read_checksum);
}

/**
 * _km_project_restore_autosaved_skeletons:
 * @project: the project read from @autosave_path, not shown yet
 * @autosave_path: the autosave being recovered
 * @models_dir: the folder of its skeleton copies
 *
 * The bodies whose skeletons were read from the autosave's copies refer to the files they
 * referred to when it was written again, their skeletons edited (a save writes them).
 */
void
_km_project_restore_autosaved_skeletons (KmProject  *project,
                                         const char *autosave_path,
                                         const char *models_dir)
{
  g_autofree char *project_dir = NULL;
  RestoreScan scan;

  g_return_if_fail (KM_IS_PROJECT (project));
  g_return_if_fail (autosave_path != NULL && models_dir != NULL);

  project_dir = g_path_get_dirname (autosave_path);
  scan.project_dir = project_dir;
  scan.models_dir = g_canonicalize_filename (models_dir, project_dir);
  scan.indexes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                        (GDestroyNotify) g_key_file_unref);
  km_item_foreach (km_project_get_root_item (project), restore_autosaved_skeleton, &scan);
  g_hash_table_unref (scan.indexes);
  g_free (scan.models_dir);
}

/**
 * _km_edited_skeletons_write:
 * @warnings: (element-type utf8): what the formats cannot carry, as "PATH: note"
 *
 * Writes the edited skeletons, stopping at the first failure. Touches no document or
 * item: runs on any thread.
 */
gboolean
_km_edited_skeletons_write (KmEditedSkeletons  *edited,
                            GPtrArray          *warnings,
                            GError            **error)
{
  g_autofree char *index_path = NULL;

  g_return_val_if_fail (edited != NULL, FALSE);

  if (edited->dir == NULL)
    return write_skeleton_files (edited->files, warnings, error);
  /* An autosave's: its folder, the copies, then what they stand for. */
  if (g_mkdir_with_parents (edited->dir, 0700) != 0)
    {
      int saved_errno = errno;

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   /* Translators: a folder, then the system's reason */
                   _("%s: cannot create the folder: %s"), edited->dir,
                   g_strerror (saved_errno));
      return FALSE;
    }
  index_path = g_build_filename (edited->dir, AUTOSAVE_INDEX, NULL);
  return write_skeleton_files (edited->files, warnings, error)
         && km_format_save_data_full (index_path, edited->index, -1, 0600, error);
}

/**
 * _km_edited_skeletons_check_folders:
 *
 * Before anything is written: whether the folder of each model file of the user's that the
 * save writes (back, or again where the project names it once another program deleted or
 * moved it) is there; else an error naming the file and its folder. A save never writes
 * such a model elsewhere instead, which would point the project at another file unasked.
 * Touches no document or item: runs on any thread.
 */
gboolean
_km_edited_skeletons_check_folders (KmEditedSkeletons  *edited,
                                    GError            **error)
{
  g_return_val_if_fail (edited != NULL, FALSE);

  for (guint i = 0; edited->dir == NULL && i < edited->files->len; i++)
    {
      SkeletonFile *file = g_ptr_array_index (edited->files, i);
      g_autofree char *folder = NULL;

      if (!file->replace)
        continue;
      folder = g_path_get_dirname (file->path);
      if (g_file_test (folder, G_FILE_TEST_IS_DIR))
        continue;
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                   /* Translators: a model file the project refers to, then its folder */
                   _("The project was not saved: its model file %s is gone, and so is its "
                     "folder %s (deleted, moved or renamed by another program, or on a disk "
                     "that is not mounted). Put the folder back and save again, or save the "
                     "project elsewhere with Save As."),
                   file->path, folder);
      return FALSE;
    }
  return TRUE;
}

/* Removes the files meant to replace the user's ones, and with @copies the copies. */
static void
remove_written (KmEditedSkeletons *edited,
                gboolean           copies)
{
  for (guint i = 0; i < edited->files->len; i++)
    {
      SkeletonFile *file = g_ptr_array_index (edited->files, i);
      const char *path = file->temp != NULL ? file->temp
                         : copies && file->is_new ? file->path : NULL;

      /* (Nothing there to remove: gone, or its folder is no folder any more.) */
      if (path != NULL && g_unlink (path) != 0 && errno != ENOENT && errno != ENOTDIR)
        g_warning ("Cannot remove %s: %s", path, g_strerror (errno));
      clear_temp (file);
    }
}

/* The error of a commit that could not replace some files (@failed, their paths; @first,
 * the first one's error): the project is saved, these files are not. */
static void
set_not_replaced_error (GError      **error,
                        GPtrArray    *failed,
                        const GError *first)
{
  g_autofree char *names = NULL;

  g_ptr_array_add (failed, NULL);
  names = g_strjoinv (", ", (char **) failed->pdata);
  g_ptr_array_remove_index (failed, failed->len - 1);
  g_set_error (error, KM_DOCUMENT_ERROR, KM_DOCUMENT_ERROR_MODELS_NOT_SAVED,
               /* Translators: the first %s lists model files (paths, comma-separated), the
                * second is why the first of them could not be written */
               g_dngettext (GETTEXT_PACKAGE,
                            "The project was saved, but not its model file %s: its body "
                            "stays edited, and the next save writes it again (%s).",
                            "The project was saved, but not its model files %s: their bodies "
                            "stay edited, and the next save writes them again (%s).",
                            failed->len),
               names, first->message);
}

/**
 * _km_edited_skeletons_commit:
 *
 * Once the project is written: the files of the user's that _km_edited_skeletons_write()
 * wrote beside them replace them. One that cannot is left as it was (what was written for
 * it goes) and the others are replaced all the same, the project written referring to
 * them: the error names those not replaced, whose bodies stay edited
 * (_km_document_edited_skeletons_done() with @ok %TRUE). Touches no document or item: runs
 * on any thread.
 */
gboolean
_km_edited_skeletons_commit (KmEditedSkeletons  *edited,
                             GError            **error)
{
  g_autoptr(GPtrArray) failed = g_ptr_array_new ();
  g_autoptr(GError) first = NULL;

  g_return_val_if_fail (edited != NULL, FALSE);

  for (guint i = 0; i < edited->files->len; i++)
    {
      SkeletonFile *file = g_ptr_array_index (edited->files, i);
      g_autoptr(GError) local_error = NULL;

      if (file->temp == NULL)
        continue;
      /* Checked again right before the file is replaced: one the user put there
       * meanwhile stays, and what was written for it goes. */
      if (file->expected != NULL && !own_copy_still_there (file, NULL))
        {
          if (g_unlink (file->temp) != 0 && errno != ENOENT && errno != ENOTDIR)
            g_warning ("Cannot remove %s: %s", file->temp, g_strerror (errno));
          clear_temp (file);
          continue;
        }
      if (!km_format_replace_file (file->temp, file->path, &local_error))
        {
          if (g_unlink (file->temp) != 0 && errno != ENOENT && errno != ENOTDIR)
            g_warning ("Cannot remove %s: %s", file->temp, g_strerror (errno));
          file->not_replaced = TRUE;
          g_ptr_array_add (failed, file->path);
          if (first == NULL)
            first = g_steal_pointer (&local_error);
        }
      clear_temp (file);
    }
  /* What Kinema's own copies are now, to know them by later. */
  for (guint i = 0; i < edited->files->len; i++)
    {
      SkeletonFile *file = g_ptr_array_index (edited->files, i);
      g_autoptr(GFile) written = NULL;

      if (!file->own || file->changed)
        continue;
      written = g_file_new_for_path (file->path);
      file->identity = km_document_query_file_identity (written, NULL);
    }
  /* The copies nothing refers to any more, unless another program changed them since. */
  for (guint i = 0; edited->stale != NULL && i < edited->stale->len; i++)
    {
      StaleCopy *stale = g_ptr_array_index (edited->stale, i);
      g_autoptr(GFile) file = g_file_new_for_path (stale->path);
      g_autofree char *identity = km_document_query_file_identity (file, NULL);

      if (identity == NULL)
        stale->removed = TRUE;
      else if (g_strcmp0 (identity, stale->identity) == 0)
        {
          if (g_unlink (stale->path) == 0)
            stale->removed = TRUE;
          else
            g_warning ("Cannot remove %s: %s", stale->path, g_strerror (errno));
        }
    }
  if (first != NULL)
    {
      set_not_replaced_error (error, failed, first);
      return FALSE;
    }
  return TRUE;
}

/**
 * _km_edited_skeletons_abort:
 *
 * After a failed save: removes what _km_edited_skeletons_write() wrote (the copies beside
 * the project, which no body will refer to, and the files meant to replace the user's
 * ones), so that every file is as it was. Touches no document or item: runs on any thread.
 */
void
_km_edited_skeletons_abort (KmEditedSkeletons *edited)
{
  g_return_if_fail (edited != NULL);

  remove_written (edited, TRUE);
}

/**
 * _km_document_edited_skeletons_done:
 * @ok: whether the project was written (the skeletons before it)
 *
 * Back on the main thread: on success logs where the copies went; on failure puts the
 * body items back to the files they referred to, their skeletons edited again. A file of
 * the user's that the commit could not replace, the project written all the same, leaves
 * its body on that file, its skeleton edited again: the next save writes it.
 */
void
_km_document_edited_skeletons_done (KmDocument        *self,
                                    KmEditedSkeletons *edited,
                                    gboolean           ok)
{
  g_return_if_fail (KM_IS_DOCUMENT (self));
  g_return_if_fail (edited != NULL);

  for (guint i = 0; ok && edited->stale != NULL && i < edited->stale->len; i++)
    {
      StaleCopy *stale = g_ptr_array_index (edited->stale, i);
      OwnCopy *copy = lookup_own_copy (self, stale->path);

      if (stale->removed && copy != NULL)
        copy->removed = TRUE;
    }
  for (guint i = 0; i < edited->bodies->len; i++)
    {
      EditedBody *e = g_ptr_array_index (edited->bodies, i);
      SkeletonFile *written = g_ptr_array_index (edited->files, i);
      KmItem *item = KM_ITEM (e->body);

      g_object_set_data (G_OBJECT (item), PENDING_KEY, NULL);
      /* Another program's file now: never written over or removed by Kinema. The body's
       * skeleton is in no file then: it stays edited, and the next save writes a new copy. */
      if (written->changed)
        {
          if (written->users)
            km_document_log (self, G_LOG_LEVEL_WARNING,
                             /* Translators: a model file, then a body item's name */
                             _("%s was changed or replaced by another program while Kinema "
                               "saved: it is left as it is, and the edited skeleton of “%s” "
                               "goes to a new copy."),
                             written->path, km_item_get_name (item));
          else
            km_document_log (self, G_LOG_LEVEL_WARNING,
                             /* Translators: a model file, then a body item's name */
                             _("%s was changed or replaced by another program since Kinema "
                               "saved it: it is left as it is, and the edited skeleton of “%s” "
                               "goes to a new copy."),
                             written->path, km_item_get_name (item));
          g_hash_table_remove (own_copies (self), written->path);
          disown_file (self, written->path);
          if (ok && km_body_item_get_skeleton (e->body) == written->skeleton)
            g_object_set_data (G_OBJECT (item), MODIFIED_KEY, GINT_TO_POINTER (TRUE));
          if (ok)
            continue;
        }
      else if (ok && written->not_replaced)
        {
          /* The states recorded meanwhile are edited too (their file is this one). */
          if (!e->switched)
            e->pending->failed = TRUE;
          if (e->switched ? g_strcmp0 (km_body_item_get_file (e->body), e->path) == 0
                          : km_body_item_get_skeleton (e->body) == written->skeleton)
            g_object_set_data (G_OBJECT (item), MODIFIED_KEY, GINT_TO_POINTER (TRUE));
          continue;
        }
      else if (ok && written->own && written->identity != NULL)
        {
          OwnCopy *copy = g_new0 (OwnCopy, 1);

          copy->identity = g_strdup (written->identity);
          copy->project_path = g_strdup (edited->project_path);
          copy->original = g_strdup (e->copy_of);
          copy->skeleton = km_skeleton_ref (written->skeleton);
          g_hash_table_insert (own_copies (self), g_strdup (written->path), copy);
        }
      if (ok)
        {
          g_autofree char *written_checksum = NULL;

          if (written->written_text != NULL)
            {
              km_body_item_set_model_text (e->body, written->format, written->written_text);
              written_checksum = g_compute_checksum_for_bytes (G_CHECKSUM_SHA256,
                                                               written->written_text);
            }
          /* What the file holds now is what was written, not what was read before. */
          km_body_item_set_model_checksum (e->body, written_checksum);
          if (e->missing && !e->switched)
            km_document_log (self, G_LOG_LEVEL_INFO,
                             /* Translators: a body item's name, then the model file another
                              * program deleted or moved, which the save wrote again */
                             _("The model file of “%s”, %s, was missing: it is written again "
                               "with the project."),
                             km_item_get_name (item), e->path);
          else if (e->missing)
            km_document_log (self, G_LOG_LEVEL_INFO,
                             /* Translators: a body item's name, the file it was read from,
                              * then the file its skeleton was written to */
                             _("The model file of “%s”, %s, was missing: its skeleton is "
                               "saved as %s."),
                             km_item_get_name (item), e->old_file, e->path);
          else if (e->switched)
            /* Translators: a body item's name, then a file */
            km_document_log (self, G_LOG_LEVEL_INFO,
                             _("The edited skeleton of “%s” is saved as %s."),
                             km_item_get_name (item), e->path);
          continue;
        }
      /* The states recorded meanwhile (undo steps) follow when they are applied. */
      e->pending->failed = TRUE;
      /* The body's state is the one written or an edit made meanwhile, unless an undo took
       * it back to a state from before the save, which stays as it was recorded. */
      if (e->switched ? g_strcmp0 (km_body_item_get_file (e->body), e->path) != 0
                      : km_body_item_get_skeleton (e->body) != written->skeleton)
        continue;
      if (e->switched)
        edited_body_put_back (e);
      /* (A model file only gone, its skeleton not edited: the next save writes it again
       * while it is gone, and leaves it alone once it is back, as its folder may be.) */
      if (e->was_modified)
        g_object_set_data (G_OBJECT (item), MODIFIED_KEY, GINT_TO_POINTER (TRUE));
    }
}

/* Whether an own copy the save was to write again had been changed or replaced by another
 * program (left as it is, no longer Kinema's): a save planned again writes a new copy. */
gboolean
_km_edited_skeletons_found_changed (KmEditedSkeletons *edited)
{
  g_return_val_if_fail (edited != NULL, FALSE);

  for (guint i = 0; i < edited->files->len; i++)
    if (((SkeletonFile *) g_ptr_array_index (edited->files, i))->changed)
      return TRUE;
  return FALSE;
}

void
_km_edited_skeletons_free (KmEditedSkeletons *edited)
{
  if (edited == NULL)
    return;
  g_ptr_array_unref (edited->files);
  g_ptr_array_unref (edited->bodies);
  g_free (edited->dir);
  g_free (edited->index);
  g_free (edited->project_path);
  g_clear_pointer (&edited->stale, g_ptr_array_unref);
  g_free (edited);
}

/* Several bodies switched to their .body copies as one step. */
static void
edits_redo (gpointer data)
{
  GPtrArray *edits = data;

  for (guint i = 0; i < edits->len; i++)
    skeleton_edit_redo (g_ptr_array_index (edits, i));
}

static void
edits_undo (gpointer data)
{
  GPtrArray *edits = data;

  for (guint i = edits->len; i-- > 0;)
    skeleton_edit_undo (g_ptr_array_index (edits, i));
}

typedef struct
{
  GPtrArray *bodies;
} BodyScan;

/* Whether Choreonoid itself loads @body's model: a .body (or YAML) file, an OpenHRP VRML
 * model, a URDF (Choreonoid 2 reads it, under CHOREONOID-BODY or URDF). Not a skeleton.json
 * (Kinema's own, also a new skeleton's) or a Scenebuilder XML model. */
static gboolean
choreonoid_loads (KmBodyItem *body)
{
  const char *format = km_body_item_model_file_format (km_body_item_get_format (body),
                                                       km_body_item_get_file (body));

  return format != NULL
         && (g_ascii_strcasecmp (format, BODY_FORMAT) == 0
             || g_ascii_strcasecmp (format, "OPENHRP-VRML-MODEL") == 0
             || g_ascii_strcasecmp (format, URDF_FORMAT) == 0);
}

static void
collect_copied_body (gpointer item,
                     gpointer user_data)
{
  BodyScan *scan = user_data;

  if (KM_IS_BODY_ITEM (item) && km_body_item_get_skeleton (item) != NULL
      && !choreonoid_loads (item))
    g_ptr_array_add (scan->bodies, g_object_ref (item));
}

/* The identity of the file at @path when it is a copy a save for Choreonoid of the project
 * file @project_path wrote, in this run of the editor or an earlier one, as that save left
 * it (its stamp, km-copy-stamp.h); else NULL. A later save for Choreonoid of the same
 * project that copies the body again writes the copy again rather than a numbered new one.
 * Any other file is never written over. Reads the whole file (the stamp hashes it): the
 * worker's (write_body_copies), never the main thread's. */
static char *
own_body_copy_identity (const char *path,
                        const char *project_path)
{
  g_autofree char *project_name = g_path_get_basename (project_path);
  g_autoptr(GFile) file = NULL;

  if (!km_copy_stamp_file_matches (path, project_name))
    return NULL;
  file = g_file_new_for_path (path);
  return km_document_query_file_identity (file, NULL);
}

/* "DIR/STEM.body", @stem from the body's model file name (else its item name), numbered
 * ("STEM-2.body", …) to a name that none of this save's copies has and that is free in
 * DIR: no file has it, or the copy there is one an earlier save for Choreonoid of this
 * project (@project_path) wrote and is as it left it, which is written again then (its
 * identity in @expected, for the write to check again; else NULL). A file of the user's
 * is never written over. Reads files: the worker's. */
static char *
body_copy_path (const char  *stem,
                const char  *dir,
                const char  *project_path,
                GHashTable  *used,
                char       **expected)
{
  *expected = NULL;
  for (guint i = 1;; i++)
    {
      g_autofree char *name = _km_numbered_file_name (stem, "body", i);
      g_autofree char *path = g_build_filename (dir, name, NULL);

      if (g_hash_table_contains (used, name))
        continue;
      /* (a dangling link too is a name taken: writing there would follow it) */
      if (g_file_test (path, G_FILE_TEST_EXISTS | G_FILE_TEST_IS_SYMLINK)
          && (*expected = own_body_copy_identity (path, project_path)) == NULL)
        continue;
      g_hash_table_add (used, g_steal_pointer (&name));
      return g_steal_pointer (&path);
    }
}

/* A save with body copies: the bodies whose model Choreonoid does not load (skeleton.json,
 * Scenebuilder XML) and the .body copy each gets, then the project. */
typedef struct
{
  GPtrArray *bodies;   /* of KmBodyItem */
  GPtrArray *files;    /* of SkeletonFile, one for each body */
  GFile     *project;
  char      *project_path;
} CopiesSave;

static void
copies_save_free (CopiesSave *save)
{
  g_ptr_array_unref (save->bodies);
  g_ptr_array_unref (save->files);
  g_clear_object (&save->project);
  g_free (save->project_path);
  g_free (save);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CopiesSave, copies_save_free)

/* What the worker of a save for Choreonoid writes: the copies, named there (the names
 * depend on what the files in @dir hold), then written. */
typedef struct
{
  GPtrArray *files;   /* of SkeletonFile, the CopiesSave's: the main thread reads them
                       * only once the write has ended */
  char      *dir;
  char      *project_path;
} CopiesWrite;

static void
copies_write_free (CopiesWrite *write)
{
  g_ptr_array_unref (write->files);
  g_free (write->dir);
  g_free (write->project_path);
  g_free (write);
}

/* Names each copy (body_copy_path), then writes them. A KmDocumentWriteFunc. */
static gboolean
write_body_copies (gpointer    data,
                   GPtrArray  *warnings,
                   GError    **error)
{
  CopiesWrite *write = data;
  g_autoptr(GHashTable) used = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (guint i = 0; i < write->files->len; i++)
    {
      SkeletonFile *file = g_ptr_array_index (write->files, i);

      if (file->copy_stem == NULL)
        continue;
      g_clear_pointer (&file->expected, g_free);
      g_free (file->path);
      file->path = body_copy_path (file->copy_stem, write->dir, write->project_path, used,
                                   &file->expected);
      g_clear_pointer (&file->copy_stem, g_free);
    }
  return write_skeleton_files (write->files, warnings, error);
}

static CopiesSave *
copies_save_new (KmDocument  *self,
                 GFile       *file,
                 GError     **error)
{
  g_autoptr(CopiesSave) save = g_new0 (CopiesSave, 1);
  g_autofree char *path = NULL;
  BodyScan scan;

  path = km_local_file_get_path (file, error);
  if (path == NULL)
    return NULL;
  save->bodies = g_ptr_array_new_with_free_func (g_object_unref);
  save->files = skeleton_files_new ();
  save->project = g_object_ref (file);
  save->project_path = g_strdup (path);
  scan.bodies = save->bodies;
  km_item_foreach (km_project_get_root_item (km_document_get_project (self)),
                   collect_copied_body, &scan);
  for (guint i = 0; i < save->bodies->len; i++)
    {
      KmBodyItem *body = g_ptr_array_index (save->bodies, i);
      SkeletonFile *added;

      /* (named by the worker: write_body_copies) */
      skeleton_files_add (save->files, km_body_item_get_skeleton (body), BODY_FORMAT, NULL);
      added = g_ptr_array_index (save->files, save->files->len - 1);
      added->copy_stem = body_file_stem (body);
      added->initial_q = km_body_item_dup_model_pose (body, km_body_item_get_skeleton (body));
      /* The body takes the model as the project will load it from the copy. */
      added->read_back = TRUE;
      added->stamp_for = g_path_get_basename (path);
    }
  return g_steal_pointer (&save);
}

#define USE_COPIES_LABEL N_("Use Choreonoid Body Copies")

/* Whether @animation's channels are @skeleton's DOF joints, at their DOFs. */
static gboolean
animation_fits (const KmAnimation *animation,
                const KmSkeleton  *skeleton)
{
  if (km_animation_get_n_dof (animation) != km_skeleton_get_n_dof (skeleton))
    return FALSE;
  for (guint c = 0; c < km_animation_get_n_channels (animation); c++)
    {
      const KmAnimationChannel *channel = km_animation_get_channel (animation, c);
      int index = km_skeleton_find_joint (skeleton, channel->name);
      const KmJoint *joint = index >= 0 ? km_skeleton_get_joint (skeleton, (guint) index) : NULL;

      if (joint == NULL || joint->type != channel->type
          || joint->dof_index != (int) channel->dof_index)
        return FALSE;
    }
  return TRUE;
}

/* The body takes the model its copy holds (as the project loads it from there): the joint
 * values and the animations below it are re-expressed DOF by DOF (a spherical joint's euler
 * angles become its three revolute links' values, which have the same forward kinematics).
 * Targets are in the world frame and keep their effector's name, which the copy keeps. */
static SkeletonEdit *
body_copy_edit (KmDocument    *self,
                KmBodyItem    *body,
                SkeletonFile  *copy,
                GError       **error)
{
  SkeletonEdit *edit;
  g_autofree int *map = NULL;

  if (km_body_item_get_skeleton (body) != copy->skeleton)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   _("The skeleton was edited while its Choreonoid copy %s was written; "
                     "save again"), copy->path);
      return NULL;
    }
  map = km_body_map_dofs (copy->skeleton, copy->written);
  if (map == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   _("%s: the Choreonoid copy does not have the joints of the skeleton"),
                   copy->path);
      return NULL;
    }

  edit = g_new0 (SkeletonEdit, 1);
  edit->document = self;
  edit->body = g_object_ref (body);
  body_model_init_current (&edit->before, self, body);
  edit->after.skeleton = km_skeleton_ref (copy->written);
  edit->after.file = g_strdup (copy->path);
  edit->after.format = g_strdup (BODY_FORMAT);
  edit->after.n_dof = km_skeleton_get_n_dof (copy->written);
  edit->after.q = g_new0 (double, MAX (edit->after.n_dof, 1));
  for (guint k = 0; k < edit->after.n_dof; k++)
    edit->after.q[k] = edit->before.q[map[k]];
  edit->after.selected = g_strdup (edit->before.selected);
  edit->after.modified = FALSE;
  edit->after.embedded = FALSE;
  pin_default_effector (edit);

  edit->swaps = g_ptr_array_new_with_free_func (item_swap_free);
  for (guint i = 0; i < km_item_get_n_children (KM_ITEM (body)); i++)
    {
      KmItem *child = km_item_get_child (KM_ITEM (body), i);
      KmAnimation *animation;
      KmAnimation *remapped;
      ItemSwap *swap;

      if (!KM_IS_IK_ANIMATION_ITEM (child))
        continue;
      animation = km_ik_animation_item_get_animation (KM_IK_ANIMATION_ITEM (child));
      /* (an animation that did not fit the skeleton keeps its data as read) */
      if (animation == NULL || !animation_fits (animation, copy->skeleton))
        continue;
      remapped = km_animation_remap (animation, copy->written, map);
      if (remapped == NULL)
        continue;
      swap = g_new0 (ItemSwap, 1);
      swap->item = g_object_ref (child);
      swap->animation_before = km_animation_ref (animation);
      swap->animation_after = remapped;
      g_ptr_array_add (edit->swaps, swap);
    }
  return edit;
}

/* Once the copies are written: the bodies refer to them and take the models they hold,
 * one undoable step. */
static gboolean
use_body_copies (KmDocument  *self,
                 CopiesSave  *save,
                 GError     **error)
{
  g_autoptr(GPtrArray) edits = NULL;

  if (save->bodies->len == 0)
    return TRUE;
  edits = g_ptr_array_new_with_free_func (skeleton_edit_free);
  for (guint i = 0; i < save->bodies->len; i++)
    {
      SkeletonEdit *edit = body_copy_edit (self, g_ptr_array_index (save->bodies, i),
                                           g_ptr_array_index (save->files, i), error);

      if (edit == NULL)
        return FALSE;
      g_ptr_array_add (edits, edit);
    }
  km_document_close_edit (self);
  km_project_push_command (km_document_get_project (self), _(USE_COPIES_LABEL),
                           edits_redo, edits_undo, NULL, NULL, g_steal_pointer (&edits),
                           (GDestroyNotify) g_ptr_array_unref);
  km_document_close_edit (self);
  return TRUE;
}

/* The project was not written: the bodies keep their model files again, unless the step
 * that switched them is no longer the last one (the copies exist, so the bodies may refer
 * to them). */
static void
unuse_body_copies (KmDocument *self,
                   CopiesSave *save)
{
  KmProject *project = km_document_get_project (self);

  if (save->bodies->len > 0 && km_project_can_undo (project)
      && g_strcmp0 (km_project_get_undo_label (project), _(USE_COPIES_LABEL)) == 0)
    km_document_undo (self);
}

static void
body_copies_written (KmDocument *self,
                     CopiesSave *save)
{
  for (guint i = 0; i < save->files->len; i++)
    km_document_log (self, G_LOG_LEVEL_INFO, _("Wrote the Choreonoid body copy %s."),
                     ((SkeletonFile *) g_ptr_array_index (save->files, i))->path);
}

/**
 * km_document_save_with_body_copies:
 *
 * km_document_save_with_body_copies_async() run to its end on the calling thread.
 *
 * Returns: whether the copies and the project were written; on failure the bodies keep
 *   their model files.
 */
gboolean
km_document_save_with_body_copies (KmDocument  *self,
                                   GFile       *file,
                                   GError     **error)
{
  g_autoptr(GAsyncResult) result = NULL;
  KmSyncCall call;

  g_return_val_if_fail (KM_IS_DOCUMENT (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  _km_sync_call_begin (&call);
  km_document_save_with_body_copies_async (self, file, NULL, _km_sync_call_done_cb, &call);
  result = _km_sync_call_wait (&call);
  return km_document_save_with_body_copies_finish (self, result, error);
}

static void
copies_project_saved_cb (GObject      *source,
                         GAsyncResult *result,
                         gpointer      user_data)
{
  GTask *task = user_data;
  KmDocument *self = KM_DOCUMENT (source);
  CopiesSave *save = g_task_get_task_data (task);
  GError *error = NULL;

  if (km_document_save_finish (self, result, &error))
    body_copies_written (self, save);
  else
    unuse_body_copies (self, save);
  skeleton_task_return (task, error);
}

static void
copies_written_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  GTask *task = user_data;
  KmDocument *self = KM_DOCUMENT (source);
  CopiesSave *save = g_task_get_task_data (task);
  GError *error = NULL;

  if (!_km_document_write_finish (self, result, &error))
    {
      skeleton_task_return (task, error);
      return;
    }
  /* A project save that began meanwhile would refuse this one: the bodies stay as they
   * are then. */
  if (km_document_get_saving (self))
    {
      skeleton_task_return (task, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_PENDING,
                                                       _("The project is being saved already")));
      return;
    }
  if (!use_body_copies (self, save, &error))
    {
      skeleton_task_return (task, error);
      return;
    }
  km_document_save_async (self, save->project, NULL, copies_project_saved_cb, task);
}

/**
 * km_document_save_with_body_copies_async:
 *
 * Saves the project so that Choreonoid opens it: every body whose model is in a format
 * Choreonoid cannot read (a skeleton.json, a Scenebuilder XML model; not a .body, OpenHRP
 * VRML or URDF model, which stay as they are) gets a Choreonoid `.body` copy, with its
 * display shapes and joint ids, beside the project file, named after its model file
 * (`arm.json` → `arm.body`; numbered, `arm-2.body`, where a file that is not a copy an
 * earlier save for Choreonoid of this project wrote has that name: never written over),
 * and the body items refer to
 * those copies and take the models they hold, as the project loads them (one undoable
 * step, so the open project is what the file says), then the project is written to @file
 * (km_document_save_async()). A spherical joint becomes three revolute ones in a `.body`
 * file: the joint values and animations below the body are re-expressed for them (the same
 * motion), targets stay as they are (world frame; the effector keeps its name). The copies
 * and then the project are written on a worker thread; the bodies refer to the copies once
 * those are written, and keep their model files when the project is not. The model files
 * stay as they were. What a `.body` file cannot carry (spherical joints become three
 * revolute ones, linked joints independent ones) is listed in the message view. It fails
 * when a body's skeleton was edited while its copy was written. One Skeleton tab
 * save runs at a time (as km_document_save_skeleton_async()), and none while the project
 * is being saved: it fails with %G_IO_ERROR_PENDING then.
 */
void
km_document_save_with_body_copies_async (KmDocument          *self,
                                         GFile               *file,
                                         GCancellable        *cancellable,
                                         GAsyncReadyCallback  callback,
                                         gpointer             user_data)
{
  GTask *task;
  CopiesSave *save;
  CopiesWrite *write;
  GError *error = NULL;

  g_return_if_fail (KM_IS_DOCUMENT (self));
  g_return_if_fail (G_IS_FILE (file));

  task = skeleton_task_new (self, file, cancellable, callback, user_data,
                            km_document_save_with_body_copies_async);
  if (task == NULL)
    return;
  if (km_document_get_saving (self))
    {
      skeleton_task_return (task, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_PENDING,
                                                       _("The project is being saved already")));
      return;
    }
  save = copies_save_new (self, file, &error);
  if (save == NULL)
    {
      skeleton_task_return (task, error);
      return;
    }
  g_task_set_task_data (task, save, (GDestroyNotify) copies_save_free);
  write = g_new0 (CopiesWrite, 1);
  write->files = g_ptr_array_ref (save->files);
  write->dir = g_path_get_dirname (save->project_path);
  write->project_path = g_strdup (save->project_path);
  _km_document_write_async (self, write_body_copies, write,
                            (GDestroyNotify) copies_write_free, copies_written_cb, task);
}

gboolean
km_document_save_with_body_copies_finish (KmDocument    *self,
                                          GAsyncResult  *result,
                                          GError       **error)
{
  return _km_document_task_finish (self, result, km_document_save_with_body_copies_async, error);
}
