/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-document-skeleton"

#include "config.h"

#include <string.h>
#include <glib/gi18n.h>

#include "km-document-skeleton.h"

#include "km-body-item.h"
#include "km-body-writer.h"
#include "km-skeleton-edit.h"
#include "km-skeleton-json.h"
#include "km-urdf-writer.h"

#define SKELETON_JSON_FORMAT "SKELETON-JSON"
/* Set on a body item while its skeleton differs from its model file. */
#define MODIFIED_KEY "km-skeleton-modified"

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
} BodyModel;

typedef struct
{
  KmDocument *document;
  KmBodyItem *body;
  BodyModel   before;
  BodyModel   after;
} SkeletonEdit;

static void
body_model_clear (BodyModel *model)
{
  g_clear_pointer (&model->skeleton, km_skeleton_unref);
  g_clear_pointer (&model->file, g_free);
  g_clear_pointer (&model->format, g_free);
  g_clear_pointer (&model->q, g_free);
  g_clear_pointer (&model->selected, g_free);
}

static void
skeleton_edit_free (gpointer data)
{
  SkeletonEdit *edit = data;

  g_clear_object (&edit->body);
  body_model_clear (&edit->before);
  body_model_clear (&edit->after);
  g_free (edit);
}

static void
skeleton_edit_apply (SkeletonEdit    *edit,
                     const BodyModel *model)
{
  KmDocument *self = edit->document;
  KmSkeleton *shown;
  int joint = -1;

  km_body_item_set_model (edit->body, model->file, model->format, model->skeleton);
  if (model->n_dof > 0)
    km_body_item_set_joint_state (edit->body, model->q, model->n_dof);
  g_object_set_data (G_OBJECT (edit->body), MODIFIED_KEY, GINT_TO_POINTER (model->modified));
  km_document_reload (self);

  shown = km_document_get_skeleton (self);
  if (shown == model->skeleton && model->selected != NULL)
    joint = km_skeleton_find_joint (shown, model->selected);
  if (shown == model->skeleton)
    km_document_set_selected_joint (self, joint);
}

static void
skeleton_edit_redo (gpointer data)
{
  SkeletonEdit *edit = data;

  skeleton_edit_apply (edit, &edit->after);
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
 * Returns: %FALSE when there is no body or @skeleton equals the current one (no step).
 */
gboolean
km_document_edit_skeleton (KmDocument *self,
                           KmSkeleton *skeleton,
                           const char *label,
                           const char *select_joint)
{
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
  map_state (edit->before.skeleton, edit->before.q, skeleton, edit->after.q);
  edit->after.selected = g_strdup (select_joint != NULL ? select_joint : edit->before.selected);
  edit->after.modified = TRUE;

  push_edit (self, edit, label);
  km_document_solve (self);
  return TRUE;
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

/**
 * km_document_dup_skeleton_file:
 *
 * Returns: (transfer full) (nullable): the current body's model file when it is a
 *   skeleton.json that Save can write to, else %NULL (Save As is needed).
 */
GFile *
km_document_dup_skeleton_file (KmDocument *self)
{
  KmBodyItem *body;
  const char *file;

  g_return_val_if_fail (KM_IS_DOCUMENT (self), NULL);

  body = current_body (self);
  if (body == NULL || g_strcmp0 (km_body_item_get_format (body), SKELETON_JSON_FORMAT) != 0)
    return NULL;
  file = km_body_item_get_file (body);
  if (file == NULL || !g_path_is_absolute (file))
    return NULL;
  return g_file_new_for_path (file);
}

static char *
local_path (GFile   *file,
            GError **error)
{
  char *path = g_file_get_path (file);

  if (path == NULL)
    {
      g_autofree char *uri = g_file_get_uri (file);

      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   _("%s: only local files can be written"), uri);
    }
  return path;
}

/* What skeleton.json has no place for. */
static void
skeleton_json_notes (const KmSkeleton *skeleton,
                     GPtrArray        *notes)
{
  guint n_shapes = 0;
  guint n_ids = 0;

  for (guint i = 0; i < km_skeleton_get_n_joints (skeleton); i++)
    {
      guint n = 0;

      km_skeleton_get_shapes (skeleton, i, &n);
      n_shapes += n;
      if (km_skeleton_get_joint (skeleton, i)->joint_id >= 0)
        n_ids++;
    }
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

static void
log_notes (KmDocument *self,
           const char *path,
           GPtrArray  *notes)
{
  for (guint i = 0; i < notes->len; i++)
    km_document_log (self, G_LOG_LEVEL_WARNING, "%s: %s", path,
                     (const char *) g_ptr_array_index (notes, i));
}

/**
 * km_document_save_skeleton:
 * @file: where to write skeleton.json
 *
 * Writes the current body's skeleton as skeleton.json. When @file is not the body's model
 * file, the body then refers to @file (an undoable step, as Save As does). What
 * skeleton.json does not carry is listed in the message view.
 */
gboolean
km_document_save_skeleton (KmDocument  *self,
                           GFile       *file,
                           GError     **error)
{
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *path = NULL;
  KmBodyItem *body;
  KmSkeleton *skeleton;

  g_return_val_if_fail (KM_IS_DOCUMENT (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  body = current_body (self);
  if (body == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _("There is no body to save"));
      return FALSE;
    }
  path = local_path (file, error);
  if (path == NULL)
    return FALSE;
  skeleton = km_body_item_get_skeleton (body);
  if (!km_skeleton_json_save (skeleton, path, error))
    return FALSE;

  skeleton_json_notes (skeleton, notes);
  log_notes (self, path, notes);

  if (g_strcmp0 (km_body_item_get_file (body), path) != 0
      || g_strcmp0 (km_body_item_get_format (body), SKELETON_JSON_FORMAT) != 0)
    {
      SkeletonEdit *edit = g_new0 (SkeletonEdit, 1);

      edit->document = self;
      edit->body = g_object_ref (body);
      body_model_init_current (&edit->before, self, body);
      body_model_init_current (&edit->after, self, body);
      g_free (edit->after.file);
      g_free (edit->after.format);
      edit->after.file = g_strdup (path);
      edit->after.format = g_strdup (SKELETON_JSON_FORMAT);
      edit->after.modified = FALSE;
      push_edit (self, edit, _("Save Skeleton As"));
    }
  else
    g_object_set_data (G_OBJECT (body), MODIFIED_KEY, GINT_TO_POINTER (FALSE));

  km_document_log (self, G_LOG_LEVEL_INFO, _("Saved the skeleton to %s."), path);
  return TRUE;
}

/**
 * km_document_export_skeleton:
 *
 * Writes a copy of the current body's skeleton as a Choreonoid .body file or URDF. The
 * project does not change; what the format cannot carry is listed in the message view.
 */
gboolean
km_document_export_skeleton (KmDocument        *self,
                             KmSkeletonExport   format,
                             GFile             *file,
                             GError           **error)
{
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *path = NULL;
  KmBodyItem *body;
  gboolean ok;

  g_return_val_if_fail (KM_IS_DOCUMENT (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  body = current_body (self);
  if (body == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                           _("There is no body to export"));
      return FALSE;
    }
  path = local_path (file, error);
  if (path == NULL)
    return FALSE;

  if (format == KM_SKELETON_EXPORT_BODY)
    ok = km_body_save (km_body_item_get_skeleton (body), path, notes, error);
  else
    ok = km_urdf_save (km_body_item_get_skeleton (body), path, notes, error);
  if (!ok)
    return FALSE;

  log_notes (self, path, notes);
  km_document_log (self, G_LOG_LEVEL_INFO, _("Exported the skeleton to %s."), path);
  return TRUE;
}
