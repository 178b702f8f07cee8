/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-window"

#include "config.h"

#include <string.h>
#include <glib/gi18n.h>

#include "km-window.h"
#include "km-animation-json.h"
#include "km-autosave.h"
#include "km-body-item.h"
#include "km-document-private.h"
#include "km-document-skeleton.h"
#include "km-effector-fields.h"
#include "km-file-chooser-folder.h"
#include "km-format.h"
#include "km-graph-view.h"
#include "km-ik-animation-item.h"
#include "km-ik-targets-item.h"
#include "km-item-file-watch.h"
#include "km-item-row.h"
#include "km-item-tree.h"
#include "km-joint-inspector.h"
#include "km-joint-panel.h"
#include "km-layout-state.h"
#include "km-message-view.h"
#include "km-number-field.h"
#include "km-scene-view.h"
#include "km-task.h"
#include "km-time-bar.h"

/* What a save that failed saved (the failed-save bar says it, and offers to try again). */
typedef enum
{
  SAVE_FAILED_PROJECT,
  SAVE_FAILED_ITEM,            /* Save Item As */
  SAVE_FAILED_BODY_MOTION,     /* Export Body Motion */
  SAVE_FAILED_SKELETON,        /* the Skeleton tab's Save, Save As */
  SAVE_FAILED_EXPORT_BODY,
  SAVE_FAILED_EXPORT_URDF,
  SAVE_FAILED_FOR_CHOREONOID,  /* Save for Choreonoid */
} SaveFailed;

/* What to do once the unsaved changes are saved or discarded. */
typedef enum
{
  PENDING_NONE,
  PENDING_CLOSE,
  PENDING_NEW,
  PENDING_OPEN,
  PENDING_EXAMPLE,
} PendingAction;

struct _KmWindow
{
  GtkApplicationWindow  parent_instance;

  /* Template widgets */
  KmItemTree           *item_tree;
  KmJointInspector     *joint_inspector;
  KmGraphView          *graph_view;
  KmJointPanel         *joint_panel;
  KmMessageView        *message_view;
  KmSceneView          *scene_view;
  KmTimeBar            *time_bar;
  GtkPaned             *main_paned;
  GtkPaned             *side_paned;
  GtkPaned             *scene_paned;
  GtkInfoBar           *recovery_bar;
  GtkLabel             *recovery_label;
  GtkSpinner           *open_spinner;
  GtkRevealer          *disk_bar;
  GtkLabel             *disk_label;
  GtkWidget            *disk_reload_button;
  GtkRevealer          *item_bar;      /* says that item files changed */
  GtkLabel             *item_label;
  GtkWidget            *item_reload;   /* its Reload button */
  GtkWidget            *save_failed_bar; /* says that a save failed (show_save_failed) */
  GtkLabel             *save_failed_label;
  GtkButton            *save_failed_save_as; /* its button: try again, elsewhere */

  /* Owned */
  KmDocument           *document;
  GtkWindow            *question;      /* the unsaved-changes dialog (or the one asking
                                        * whether to write over another program's changes)
                                        * while it asks */
  GFile                *conflict_file; /* the file that question is about */
  GFile                *open_folder;   /* the folder Open last opened a file from */
  gboolean              conflict_copies; /* that question is about a Save for Choreonoid
                                          * (a project save with body copies) */
  gboolean              other_save;    /* a project save the window did not start ran
                                        * (Save for Choreonoid's) since the last Skeleton
                                        * tab save ended */
  GFileMonitor         *monitor;       /* on the document's file, or NULL */
  GCancellable         *disk_check;    /* the query check_disk runs, or NULL */
  KmDocumentError       disk_change;   /* what the bar says, while it shows */
  KmItemFileWatch      *item_watch;    /* the files the items were read from */
  GtkEventController   *escape_key;    /* Esc toggles edit mode (setup_escape_key) */
  GFile                *pending_file;
  GSettings            *settings;      /* NULL when the schema is not installed */
  KmAutosave           *autosave;
  GFile                *recovery_file; /* the autosave the recovery bar offers */
  GQueue                open_queue;    /* of GFile: files to open after the current one */
  GFile                *opening_file;  /* the file read in the background, or NULL */
  GCancellable         *opening;
  GFile                *saving_file;   /* the project file being written, or NULL */
  GApplication         *saving_app;    /* held while the project is written */
  SaveFailed            save_failed;   /* what the failed-save bar is about, while shown */
  KmItem               *save_failed_item; /* SAVE_FAILED_ITEM, _BODY_MOTION: the item */
  KmItem               *chosen_item;   /* the item a Save Item As or Export Body Motion
                                        * dialog is open for */

  PendingAction         pending;
  gboolean              close_after_save;
  gboolean              show_messages;
  gboolean              revealing_messages; /* reveal_messages: not the user's choice */
  gboolean              close_confirmed;
  gboolean              side_panes_restored;
  gboolean              message_pane_restored;

  /* The side panes' widths the user chose (by dragging a handle, or as the settings keep
   * them): what a pane gets while it fits, and all that is saved. A window too narrow for
   * them gives up width for the scene view's share (joint_fitted) without changing them,
   * so a squeezed pane gets its width back when the window grows again. */
  int                   item_width;
  int                   joint_width;
  int                   joint_fitted;  /* joint_width, given up for the scene view's share */
  /* The scene view's width a drag of the user's left it, when less than its share of the
   * window (scene_least_width()); 0 when it had its share. */
  int                   scene_least;
  /* The paneds' positions last set from those widths, and their sizes then: a position
   * that changes to another while the paned keeps its size is the user's. */
  int                   side_position;
  int                   scene_position;
  int                   side_size;
  int                   scene_size;
  /* The same for the Messages pane's height: the one the user chose (or the settings
   * keep), the upper panes' height a drag of the user's left them when less than their
   * share (upper_least_height()), and the main paned's position last set and its size. */
  int                   message_height;
  int                   upper_least;
  int                   message_position;
  int                   message_size;
  gboolean              fitting;       /* while the window sets the positions itself */
  /* The window's size when it was last neither maximized nor full screen: what the
   * settings keep (window_size_cb), so that a window quit maximized comes back that size. */
  int                   normal_width;
  int                   normal_height;
  gboolean              restore_maximized; /* the settings say it was quit maximized */
};

enum {
  PROP_0,
  PROP_DOCUMENT,
  PROP_SHOW_JOINT_AXES,
  PROP_ORTHOGRAPHIC,
  PROP_EDIT_MODE,
  PROP_SHOW_MESSAGES,
  PROP_LOADING,
  PROP_SAVING,
  N_PROPS
};

G_DEFINE_FINAL_TYPE (KmWindow, km_window, GTK_TYPE_APPLICATION_WINDOW)

static GParamSpec *properties[N_PROPS];

static void
document_changed_cb (KmWindow *self)
{
  if (self->document == NULL)
    return;
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.solve",
                                 km_document_get_skeleton (self->document) != NULL
                                 && km_document_get_targets (self->document) != NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.export-animation",
                                 km_document_get_animation (self->document) != NULL
                                 && !km_document_get_solving (self->document));
}

/* Copy and Delete Keyframe act on the keyframe at the current frame, Paste Keyframe needs a
 * copy: the time bar holds the copy, the Motion menu and Ctrl+Shift+C/V reach it here. */
static void
update_keyframe_actions (KmWindow *self)
{
  KmTargetTrack *targets = self->document ? km_document_get_targets (self->document) : NULL;
  gboolean keyed = targets != NULL
                   && km_target_track_find_keyframe (targets,
                                                     km_document_get_current_frame (self->document))
                      >= 0;

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.copy-keyframe", keyed);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.delete-keyframe", keyed);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.paste-keyframe",
                                 km_time_bar_get_has_clipboard (self->time_bar));
}

/* The Motion menu's keyframe and playback items, and their Ctrl accelerators (which work in
 * a text field too, where K, Shift+K and Space are text): the time bar's actions of the
 * same name ("win.set-keyframe" → "time.set-keyframe"). */
static void
forward_to_time_bar (KmWindow   *self,
                     const char *action_name)
{
  g_autofree char *time_action = NULL;

  g_assert (g_str_has_prefix (action_name, "win."));
  time_action = g_strconcat ("time.", action_name + strlen ("win."), NULL);
  gtk_widget_activate_action (GTK_WIDGET (self->time_bar), time_action, NULL);
}

#define DEFERRED_ACTION_KEY "km-window-deferred-action"

/* The End Effector field's typed value is in place (or dropped): the action waiting for it
 * goes on. */
static void
effector_fields_busy_cb (KmEffectorFields *fields,
                         GParamSpec       *pspec,
                         KmWindow         *self)
{
  g_autofree char *action_name = NULL;

  if (km_effector_fields_get_busy (fields))
    return;
  action_name = g_strdup (g_object_get_data (G_OBJECT (fields), DEFERRED_ACTION_KEY));
  g_signal_handlers_disconnect_by_func (fields, effector_fields_busy_cb, self);
  g_object_set_data (G_OBJECT (fields), DEFERRED_ACTION_KEY, NULL);
  if (action_name != NULL && self->document != NULL)
    forward_to_time_bar (self, action_name);
}

static void
time_bar_forward_action (GtkWidget  *widget,
                         const char *action_name,
                         GVariant   *parameter)
{
  KmWindow *self = KM_WINDOW (widget);
  GtkSpinButton *committed;
  GtkWidget *fields;

  /* A value typed but not yet committed (a joint's, the end effector's) is the pose the
   * user means: it goes in first, as Return would, and is keyed, not left pending to be
   * applied after as an unkeyed edit. */
  committed = km_number_field_commit_focus (widget);
  fields = committed != NULL ? gtk_widget_get_ancestor (GTK_WIDGET (committed),
                                                        KM_TYPE_EFFECTOR_FIELDS)
                             : NULL;
  /* The End Effector's value goes through the IK on a worker: the action waits for it. */
  if (fields != NULL && km_effector_fields_get_busy (KM_EFFECTOR_FIELDS (fields)))
    {
      if (g_object_get_data (G_OBJECT (fields), DEFERRED_ACTION_KEY) == NULL)
        g_signal_connect_object (fields, "notify::busy", G_CALLBACK (effector_fields_busy_cb),
                                 self, 0);
      g_object_set_data_full (G_OBJECT (fields), DEFERRED_ACTION_KEY, g_strdup (action_name),
                              g_free);
      return;
    }
  forward_to_time_bar (self, action_name);
}

static void
document_history_changed_cb (KmWindow *self)
{
  if (self->document == NULL)
    return;  /* disposed: a focused entry may still commit its text as the window goes */
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.undo",
                                 km_document_can_undo (self->document));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.redo",
                                 km_document_can_redo (self->document));
}

static void
scene_view_show_joint_axes_cb (KmWindow *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SHOW_JOINT_AXES]);
}

/* View → Orthographic's check: the scene view's projection, however it was changed. */
static void
scene_view_orthographic_cb (KmWindow *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ORTHOGRAPHIC]);
}

/* scene.* actions reach only widgets inside the scene view; the header bar's toggle uses
 * this window-level mirror of the scene view's edit-mode. */
static void
scene_view_edit_mode_cb (KmWindow *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_EDIT_MODE]);
}

typedef void (*FileChosenFunc) (KmWindow *self,
                                GFile    *file);

/* @file as a save dialog's answer for @suggested_name: with that name's extension (".cnoid",
 * ".seq" …) when the name chosen has none at all (a new reference). A name with another
 * extension is the user's, kept as it is. */
static GFile *
file_with_extension (GFile      *file,
                     const char *suggested_name)
{
  const char *extension = suggested_name != NULL ? strrchr (suggested_name, '.') : NULL;
  g_autofree char *name = g_file_get_basename (file);
  g_autofree char *with = NULL;
  g_autoptr(GFile) parent = NULL;
  g_autoptr(GFile) named = NULL;
  const char *dot = name != NULL ? strrchr (name, '.') : NULL;

  /* (A leading dot is a hidden file's, no extension.) */
  if (extension == NULL || extension == suggested_name || extension[1] == '\0'
      || name == NULL || (dot != NULL && dot != name)
      || (parent = g_file_get_parent (file)) == NULL)
    return g_object_ref (file);
  with = g_strconcat (name, extension, NULL);
  named = g_file_get_child (parent, with);
  /* The dialog asked about replacing the name typed, not this one: an existing file of
   * this name is never replaced unasked (the name typed is used then, as before). One
   * stat of a file the user just chose a folder of. */
  if (g_file_query_exists (named, NULL))
    return g_object_ref (file);
  return g_steal_pointer (&named);
}

#if GTK_CHECK_VERSION (4, 10, 0)
typedef struct
{
  KmWindow      *window;
  FileChosenFunc func;
  gboolean       save;
  char          *suggested_name; /* a save's, whose extension a name without one gets */
} DialogData;

static void
file_dialog_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  DialogData *data = user_data;
  g_autoptr(GFile) file = NULL;

  if (data->save)
    file = gtk_file_dialog_save_finish (GTK_FILE_DIALOG (object), result, NULL);
  else
    file = gtk_file_dialog_open_finish (GTK_FILE_DIALOG (object), result, NULL);
  if (file != NULL && data->save)
    {
      g_autoptr(GFile) named = file_with_extension (file, data->suggested_name);

      data->func (data->window, named);
    }
  else if (file != NULL)
    data->func (data->window, file);
  g_object_unref (data->window);
  g_free (data->suggested_name);
  g_free (data);
}
#else
static void
file_chooser_response_cb (GtkNativeDialog *dialog,
                          int              response,
                          KmWindow        *self)
{
  FileChosenFunc func = g_object_get_data (G_OBJECT (dialog), "km-func");

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      const char *suggested_name = g_object_get_data (G_OBJECT (dialog), "km-suggested-name");

      if (file != NULL && suggested_name != NULL)
        {
          g_autoptr(GFile) named = file_with_extension (file, suggested_name);

          func (self, named);
        }
      else if (file != NULL)
        func (self, file);
    }
  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
}
#endif

/* GtkFileDialog where GTK has it (4.10), GtkFileChooserNative on Debian 12's 4.8. The
 * dialog starts in @folder (km_file_chooser_folder_for_item and the like; NULL: where GTK
 * would, the working directory). */
static void
choose_file (KmWindow       *self,
             const char     *title,
             gboolean        save,
             const char     *suggested_name,
             GFile          *folder,
             FileChosenFunc  func)
{
#if GTK_CHECK_VERSION (4, 10, 0)
  g_autoptr(GtkFileDialog) dialog = gtk_file_dialog_new ();
  DialogData *data = g_new0 (DialogData, 1);

  data->window = g_object_ref (self);
  data->func = func;
  data->save = save;
  data->suggested_name = g_strdup (suggested_name);
  gtk_file_dialog_set_title (dialog, title);
  if (folder != NULL)
    gtk_file_dialog_set_initial_folder (dialog, folder);
  if (save)
    {
      gtk_file_dialog_set_initial_name (dialog, suggested_name);
      gtk_file_dialog_save (dialog, GTK_WINDOW (self), NULL, file_dialog_cb, data);
    }
  else
    gtk_file_dialog_open (dialog, GTK_WINDOW (self), NULL, file_dialog_cb, data);
#else
  GtkFileChooserNative *dialog;

  dialog = gtk_file_chooser_native_new (title, GTK_WINDOW (self),
                                        save ? GTK_FILE_CHOOSER_ACTION_SAVE
                                             : GTK_FILE_CHOOSER_ACTION_OPEN,
                                        save ? _("_Save") : _("_Open"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (dialog), TRUE);
  /* (before the name: a save dialog's name goes in the folder it shows) */
  if (folder != NULL)
    gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (dialog), folder, NULL);
  if (save && suggested_name != NULL)
    gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (dialog), suggested_name);
  g_object_set_data (G_OBJECT (dialog), "km-func", func);
  if (save)
    g_object_set_data_full (G_OBJECT (dialog), "km-suggested-name", g_strdup (suggested_name),
                            g_free);
  g_signal_connect_object (dialog, "response", G_CALLBACK (file_chooser_response_cb), self, 0);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
#endif
}

static void
open_chosen (KmWindow *self,
             GFile    *file)
{
  g_clear_object (&self->open_folder);
  self->open_folder = g_file_get_parent (file);
  km_window_open_file (self, file);
}

static gint64
recent_last_used (GtkRecentInfo *info)
{
  GDateTime *visited = gtk_recent_info_get_visited (info);
  GDateTime *modified = gtk_recent_info_get_modified (info);

  return MAX (visited != NULL ? g_date_time_to_unix (visited) : 0,
              modified != NULL ? g_date_time_to_unix (modified) : 0);
}

/* Where Open starts when the project has no folder: the folder a file was last opened
 * from, in this window, else as File → Open Recent remembers it (the application's list:
 * a window on its own, as in tests, has none). */
static GFile *
last_open_folder (KmWindow *self)
{
  g_autoptr(GtkRecentInfo) newest = NULL;
  GList *all;

  if (self->open_folder != NULL)
    return g_object_ref (self->open_folder);
  if (gtk_window_get_application (GTK_WINDOW (self)) == NULL)
    return NULL;
  all = gtk_recent_manager_get_items (gtk_recent_manager_get_default ());
  for (GList *l = all; l != NULL; l = l->next)
    {
      GtkRecentInfo *info = l->data;

      if (gtk_recent_info_has_application (info, g_get_application_name ())
          && gtk_recent_info_has_group (info, KM_RECENT_GROUP)
          && gtk_recent_info_is_local (info)
          && (newest == NULL || recent_last_used (info) > recent_last_used (newest)))
        {
          g_clear_pointer (&newest, gtk_recent_info_unref);
          newest = gtk_recent_info_ref (info);
        }
    }
  g_list_free_full (all, (GDestroyNotify) gtk_recent_info_unref);
  if (newest == NULL)
    return NULL;
  {
    g_autoptr(GFile) file = g_file_new_for_uri (gtk_recent_info_get_uri (newest));

    return g_file_get_parent (file);
  }
}

static void
export_image_done_cb (GObject      *source,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  KmWindow *self = KM_WINDOW (source);
  g_autoptr(GFile) file = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *name = g_file_get_parse_name (file);
  gboolean ok = km_window_export_image_finish (self, result, &error);

  if (self->document == NULL)
    return;   /* the window closed meanwhile */
  if (ok)
    km_document_log (self->document, G_LOG_LEVEL_INFO, _("Exported the scene to %s."), name);
  else
    km_document_log (self->document, G_LOG_LEVEL_WARNING, "%s", error->message);
}

static void
export_image_chosen (KmWindow *self,
                     GFile    *file)
{
  km_window_export_image_async (self, file, NULL, export_image_done_cb, g_object_ref (file));
}

static void
export_animation_done_cb (GObject      *source,
                          GAsyncResult *result,
                          gpointer      user_data)
{
  g_autoptr(KmWindow) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!km_document_export_animation_finish (KM_DOCUMENT (source), result, &error))
    km_document_log (KM_DOCUMENT (source), G_LOG_LEVEL_WARNING, "%s", error->message);
}

/* The animation is copied now and written on a worker thread. */
static void
export_animation_chosen (KmWindow *self,
                         GFile    *file)
{
  km_document_export_animation_async (self->document, file, NULL, export_animation_done_cb,
                                      g_object_ref (self));
}

/* Recent files are the application's (File → Open Recent); a window on its own, as in
 * tests, leaves the user's list alone. Files Kinema opened or saved as a project carry
 * KM_RECENT_GROUP: File → Open Recent lists only those, not what the file chooser adds by
 * itself (an exported image or animation, which Kinema cannot open). */
static void
add_recent (KmWindow *self,
            GFile    *file)
{
  g_autofree char *uri = NULL;
  g_autofree char *content_type = NULL;
  g_autofree char *mime_type = NULL;
  g_autofree char *basename = NULL;
  g_autofree char *exec = NULL;
  char *groups[] = { (char *) KM_RECENT_GROUP, NULL };
  GtkRecentData data = { 0, };

  if (gtk_window_get_application (GTK_WINDOW (self)) == NULL)
    return;
  uri = g_file_get_uri (file);
  basename = g_file_get_basename (file);
  content_type = g_content_type_guess (basename, NULL, 0, NULL);
  mime_type = g_content_type_get_mime_type (content_type);
  exec = g_strdup_printf ("%s %%u", g_get_prgname () ? g_get_prgname () : "kinema");
  data.mime_type = mime_type ? mime_type : (char *) "application/octet-stream";
  data.app_name = (char *) g_get_application_name ();
  data.app_exec = exec;
  data.groups = groups;
  gtk_recent_manager_add_full (gtk_recent_manager_get_default (), uri, &data);
}

/* @file's name as widgets show it: UTF-8, whatever bytes it has (U+FFFD for those that are
 * not in the file name encoding), never the raw name Pango and GTK reject. */
static char *
display_basename (GFile *file)
{
  g_autofree char *base = g_file_get_basename (file);

  return g_filename_display_name (base);
}

/* The spinner shows a file being opened, or the project or a Skeleton tab file being
 * written. */
static void
update_spinner (KmWindow *self)
{
  g_autoptr(GFile) skeleton_file = NULL;
  GFile *file;
  g_autofree char *name = NULL;
  g_autofree char *tooltip = NULL;

  /* (A Skeleton tab file may be written after the window's widgets are gone.) */
  if (self->open_spinner == NULL)
    return;
  if (self->joint_inspector != NULL)
    g_object_get (self->joint_inspector, "saving-file", &skeleton_file, NULL);
  file = self->opening_file != NULL ? self->opening_file
         : self->saving_file != NULL ? self->saving_file : skeleton_file;
  name = file != NULL ? display_basename (file) : NULL;
  gtk_spinner_set_spinning (self->open_spinner, file != NULL);
  gtk_widget_set_visible (GTK_WIDGET (self->open_spinner), file != NULL);
  if (self->opening_file != NULL)
    /* Translators: shown over the spinner while a file loads; %s is its name */
    tooltip = g_strdup_printf (_("Opening %s…"), name);
  else if (file != NULL)
    /* Translators: shown over the spinner while the project is written; %s is its name */
    tooltip = g_strdup_printf (_("Saving %s…"), name);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->open_spinner), tooltip);
}

static void ask_then (KmWindow      *self,
                      PendingAction  pending,
                      GFile         *file);
static void ask_disk_conflict (KmWindow     *self,
                               GFile        *file,
                               const GError *error);

/* Shows the bar saying that a save of @kind (of @item, for an item's) failed and why
 * (@error, which names the file), with a button that saves it again elsewhere (the Save
 * As of that kind): a line in Messages is easy to miss. Every user-initiated save that
 * fails comes here. */
static void
show_save_failed (KmWindow     *self,
                  SaveFailed    kind,
                  KmItem       *item,
                  const GError *error)
{
  g_autofree char *prefix = g_strdup_printf (_("The project was not saved: %s"), "");
  g_autofree char *text = NULL;
  const char *reason = error->message;
  const char *button = NULL;
  const char *action = NULL;

  /* (Most project save errors say it already, as km_document_save does.) */
  if (g_str_has_prefix (reason, prefix))
    reason += strlen (prefix);
  switch (kind)
    {
    case SAVE_FAILED_PROJECT:
      /* (The project was written, only model files were not: the message says it.) */
      if (g_error_matches (error, KM_DOCUMENT_ERROR, KM_DOCUMENT_ERROR_MODELS_NOT_SAVED))
        text = g_strdup (reason);
      else
        text = g_strdup_printf (_("The project was not saved: %s"), reason);
      button = _("Save _As…");
      action = "win.save-as";
      break;
    case SAVE_FAILED_ITEM:
      /* Translators: the first %s is an item's name, the second why (it names the file) */
      text = g_strdup_printf (_("“%s” was not saved: %s"), km_item_get_name (item), reason);
      button = _("_Save Item As…");
      action = "win.retry-failed-save";
      break;
    case SAVE_FAILED_BODY_MOTION:
      /* Translators: the first %s is an IK animation item's name, the second why (it names
       * the file) */
      text = g_strdup_printf (_("The body motion of “%s” was not exported: %s"),
                              km_item_get_name (item), reason);
      button = _("Export _Body Motion…");
      action = "win.retry-failed-save";
      break;
    case SAVE_FAILED_SKELETON:
      /* Translators: %s says why (it names the file) */
      text = g_strdup_printf (_("The skeleton was not saved: %s"), reason);
      button = _("Save Skeleton _As…");
      action = "skeleton.save-as";
      break;
    case SAVE_FAILED_EXPORT_BODY:
    case SAVE_FAILED_EXPORT_URDF:
      /* Translators: %s says why (it names the file) */
      text = g_strdup_printf (_("The skeleton was not exported: %s"), reason);
      button = kind == SAVE_FAILED_EXPORT_BODY ? _("Export as Choreonoid _Body…")
                                               : _("Export as _URDF…");
      action = kind == SAVE_FAILED_EXPORT_BODY ? "skeleton.export-body" : "skeleton.export-urdf";
      break;
    case SAVE_FAILED_FOR_CHOREONOID:
      /* Translators: %s says why (it names the file) */
      text = g_strdup_printf (_("The project was not saved for Choreonoid: %s"), reason);
      button = _("Save for _Choreonoid…");
      action = "skeleton.save-project-with-body";
      break;
    default:
      g_assert_not_reached ();
    }
  self->save_failed = kind;
  g_set_object (&self->save_failed_item, item);
  gtk_label_set_text (self->save_failed_label, text);
  gtk_button_set_label (self->save_failed_save_as, button);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (self->save_failed_save_as), action);
  gtk_widget_set_visible (self->save_failed_bar, TRUE);
}

/* A save of @kind succeeded: the bar about one that failed goes. */
static void
save_succeeded (KmWindow   *self,
                SaveFailed  kind)
{
  if (self->save_failed_bar == NULL || self->save_failed != kind)
    return;
  gtk_widget_set_visible (self->save_failed_bar, FALSE);
  g_clear_object (&self->save_failed_item);
}

/* Shows the message view for something the user should read (a failure). Unlike View →
 * Messages, this is not remembered as the user's choice: the next window shows the view
 * as the user last left it. */
static void
reveal_messages (KmWindow *self)
{
  self->revealing_messages = TRUE;
  g_object_set (self, "show-messages", TRUE, NULL);
  self->revealing_messages = FALSE;
}

/* Messages has the warning too; it shows, and so does the bar. */
static void
report_save_failed (KmWindow     *self,
                    SaveFailed    kind,
                    KmItem       *item,
                    const GError *error)
{
  km_document_log (self->document, G_LOG_LEVEL_WARNING, "%s", error->message);
  reveal_messages (self);
  show_save_failed (self, kind, item, error);
}

/* The project is written: what waited for it runs now, unless the save failed. */
static void
save_done_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(KmWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = g_steal_pointer (&self->saving_file);
  g_autoptr(GFile) pending_file = NULL;
  g_autoptr(GApplication) app = g_steal_pointer (&self->saving_app);
  gboolean saved = km_document_save_finish (KM_DOCUMENT (source), result, &error);
  PendingAction pending;

  if (app != NULL)
    g_application_release (app);
  /* Destroyed meanwhile: the document has taken the result, nothing waits for it here. */
  if (self->document == NULL)
    return;

  update_spinner (self);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.save", TRUE);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.save-as", TRUE);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SAVING]);

  pending = self->close_after_save ? PENDING_CLOSE : self->pending;
  pending_file = g_steal_pointer (&self->pending_file);
  self->pending = PENDING_NONE;
  self->close_after_save = FALSE;
  if (!saved && error->domain == KM_DOCUMENT_ERROR
      && error->code != KM_DOCUMENT_ERROR_MODELS_NOT_SAVED && self->question == NULL)
    {
      /* Nothing was written: another program changed the file. What waited for the save
       * waits for the answer (Overwrite), or is forgotten. */
      self->pending = pending;
      g_set_object (&self->pending_file, pending_file);
      km_document_log (self->document, G_LOG_LEVEL_WARNING, "%s", error->message);
      ask_disk_conflict (self, file, error);
      return;
    }
  if (!saved)
    {
      /* Nothing that waited for the save runs: the changes are not on disk. */
      report_save_failed (self, SAVE_FAILED_PROJECT, NULL, error);
      return;
    }
  save_succeeded (self, SAVE_FAILED_PROJECT);
  add_recent (self, file);
  /* Asks again if the project was edited while it was written. */
  if (pending != PENDING_NONE)
    ask_then (self, pending, pending_file);
}

/* Starts writing the project to @file on a worker thread (KmWindow:saving meanwhile);
 * what is pending runs once it is written. Unless @flags say to overwrite, a file another
 * program changed since the document read or wrote it is not written (save_done_cb asks
 * then). */
static void
save_to_full (KmWindow            *self,
              GFile               *file,
              KmDocumentSaveFlags  flags)
{
  GApplication *app = G_APPLICATION (gtk_window_get_application (GTK_WINDOW (self)));

  if (self->saving_file != NULL)
    return;
  km_layout_state_store (km_document_get_project (self->document), self->scene_view,
                         self->time_bar);
  self->saving_file = g_object_ref (file);
  /* The application does not quit before the file is complete. */
  if (app != NULL)
    {
      self->saving_app = g_object_ref (app);
      g_application_hold (app);
    }
  update_spinner (self);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.save", FALSE);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.save-as", FALSE);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SAVING]);
  km_document_save_full_async (self->document, file, flags, NULL, save_done_cb,
                               g_object_ref (self));
}

static void
save_to (KmWindow *self,
         GFile    *file)
{
  save_to_full (self, file, KM_DOCUMENT_SAVE_NONE);
}

static void
save_as_chosen (KmWindow *self,
                GFile    *file)
{
  save_to (self, file);
}

/* The name Save As suggests for an untitled project: the shown body's model name, if it
 * has one, else "Untitled"; with .cnoid. */
static char *
untitled_project_name (KmWindow *self)
{
  KmItem *body = km_document_get_body_item (self->document);
  KmSkeleton *skeleton = KM_IS_BODY_ITEM (body) ? km_body_item_get_skeleton (KM_BODY_ITEM (body))
                                                : NULL;
  const char *model = skeleton != NULL ? km_skeleton_get_model_name (skeleton) : NULL;
  g_autofree char *stem = NULL;

  if (model == NULL || model[0] == '\0' || g_str_equal (model, ".") || g_str_equal (model, ".."))
    return g_strdup (_("Untitled.cnoid"));
  stem = g_strdelimit (g_strdup (model), G_DIR_SEPARATOR_S, '_');
  return g_strconcat (stem, ".cnoid", NULL);
}

static void
save_as (KmWindow *self)
{
  GFile *file = km_document_get_file (self->document);
  g_autofree char *name = file ? display_basename (file) : untitled_project_name (self);
  g_autoptr(GFile) folder = NULL;

  if (!g_str_has_suffix (name, ".cnoid"))
    {
      char *dot = strrchr (name, '.');
      g_autofree char *stem = dot ? g_strndup (name, dot - name) : g_strdup (name);

      g_free (name);
      name = g_strconcat (stem, ".cnoid", NULL);
    }
  folder = km_file_chooser_folder_for_project (self->document);
  choose_file (self, _("Save Project As"), TRUE, name, folder, save_as_chosen);
}

/* Saves to the project's file, or asks for one; what was pending runs once it is
 * written. */
static void
save (KmWindow *self)
{
  GFile *file = km_document_get_file (self->document);

  if (file == NULL)
    save_as (self);
  else
    save_to (self, file);
}

/* Whether @file is a project (it replaces the open one) rather than a file to import:
 * what its start says (the first 64 KiB of a regular file). Anything else (a named pipe,
 * a device) is not read here, on the main thread: opening a pipe waits for a writer, and
 * what it gives is the load's to read; its name says. */
static gboolean
is_project_file (GFile *file)
{
  g_autoptr(GFileInputStream) stream = NULL;
  g_autofree char *data = NULL;
  gsize length = 0;
  const KmFormat *format;

  if (g_file_query_file_type (file, G_FILE_QUERY_INFO_NONE, NULL) != G_FILE_TYPE_REGULAR)
    {
      g_autofree char *name = g_file_get_basename (file);
      g_autofree char *folded = name != NULL ? g_utf8_casefold (name, -1) : NULL;

      return folded != NULL && g_str_has_suffix (folded, ".cnoid");
    }
  stream = g_file_read (file, NULL, NULL);
  data = g_malloc (64 * 1024);
  if (stream == NULL
      || !g_input_stream_read_all (G_INPUT_STREAM (stream), data, 64 * 1024, &length, NULL, NULL))
    return FALSE;
  format = km_format_detect (data, length);
  return format != NULL && format->kind == KM_FILE_KIND_PROJECT;
}

static void open_next (KmWindow *self);

/* The autosave keeps the camera and the current time, as a save does (save_to_full). */
static void
autosave_will_write_cb (KmWindow *self)
{
  /* (an autosave written while the window is being torn down) */
  if (self->scene_view != NULL && self->time_bar != NULL)
    km_layout_state_store (km_document_get_project (self->document), self->scene_view,
                           self->time_bar);
}

/* Marks a queued file as an autosave to recover rather than a file to open. */
#define RECOVERY_KEY "km-window-recovery"

static void
open_done_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(KmWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = NULL;
  KmProject *before;
  gboolean opened;

  /* Disposed meanwhile (which cancels the load and drops the document): nothing to show the
   * file in, and the document was left as it was. */
  if (self->opening == NULL || g_cancellable_is_cancelled (self->opening))
    return;
  before = km_document_get_project (self->document);
  file = g_steal_pointer (&self->opening_file);
  g_clear_object (&self->opening);
  if (g_object_get_data (G_OBJECT (file), RECOVERY_KEY) != NULL)
    {
      /* Recovered work is autosaved again under this window's own name while it stays
       * unsaved. */
      if (km_document_recover_finish (KM_DOCUMENT (source), result, &error))
        {
          /* Where the work was: the camera and time the autosave stored (will_write_cb). */
          km_layout_state_restore (km_document_get_project (self->document),
                                   self->scene_view, self->time_bar);
          /* With its lock file: nothing of the crashed instance stays behind. */
          km_autosave_remove_recovered (file);
        }
      else
        {
          km_document_log (self->document, G_LOG_LEVEL_CRITICAL, "%s", error->message);
          reveal_messages (self);
        }
      open_next (self);
      return;
    }
  opened = km_document_import_file_finish (KM_DOCUMENT (source), result, &error);
  if (opened)
    {
      /* A project opened (not a file imported into this one): its camera and time. */
      if (km_document_get_project (self->document) != before)
        km_layout_state_restore (km_document_get_project (self->document), self->scene_view,
                                 self->time_bar);
      add_recent (self, file);
    }
  else
    {
      /* The file was not opened: an error (Messages shows its severity), not a warning. */
      km_document_log (self->document, G_LOG_LEVEL_CRITICAL, "%s", error->message);
      reveal_messages (self);
    }
  open_next (self);
}

/* Starts reading the next queued file on a worker thread, or says that loading is over. */
static void
open_next (KmWindow *self)
{
  g_return_if_fail (self->opening == NULL);

  self->opening_file = g_queue_pop_head (&self->open_queue);
  update_spinner (self);
  if (self->opening_file == NULL)
    {
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOADING]);
      return;
    }

  self->opening = g_cancellable_new ();
  if (g_object_get_data (G_OBJECT (self->opening_file), RECOVERY_KEY) != NULL)
    km_document_recover_async (self->document, self->opening_file, self->opening,
                               open_done_cb, g_object_ref (self));
  else
    km_document_import_file_async (self->document, self->opening_file, self->opening,
                                   open_done_cb, g_object_ref (self));
}

/* Opens @file after the files already being opened: they are read and parsed on a worker
 * thread (meshes can take seconds), one after another, and applied in order. */
static void
open_now (KmWindow *self,
          GFile    *file)
{
  gboolean was_loading = km_window_get_loading (self);

  g_queue_push_tail (&self->open_queue, g_object_ref (file));
  if (self->opening == NULL)
    open_next (self);
  if (!was_loading)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOADING]);
}

static void
open_example_now (KmWindow *self)
{
  g_autoptr(GError) error = NULL;

  if (!km_document_load_defaults (self->document, &error))
    km_document_log (self->document, G_LOG_LEVEL_WARNING, "%s", error->message);
}

static void
run_pending (KmWindow *self)
{
  PendingAction pending = self->pending;
  g_autoptr(GFile) file = g_steal_pointer (&self->pending_file);

  self->pending = PENDING_NONE;
  switch (pending)
    {
    case PENDING_NONE:
      break;
    case PENDING_CLOSE:
      self->close_confirmed = TRUE;
      gtk_window_close (GTK_WINDOW (self));
      break;
    case PENDING_NEW:
      km_document_new_project (self->document);
      break;
    case PENDING_OPEN:
      open_now (self, file);
      break;
    case PENDING_EXAMPLE:
      open_example_now (self);
      break;
    default:
      g_assert_not_reached ();
    }
}

static void
question_response_cb (KmWindow  *self,
                      int        response,
                      GtkDialog *dialog)
{
  g_autoptr(KmWindow) hold = g_object_ref (self);

  g_assert (KM_IS_WINDOW (self));

  /* The dialog outlives this handler, and the answer may destroy this window. */
  self->question = NULL;
  gtk_window_set_transient_for (GTK_WINDOW (dialog), NULL);
  gtk_window_destroy (GTK_WINDOW (dialog));

  switch (response)
    {
    case GTK_RESPONSE_ACCEPT:
      save (self);
      break;
    case GTK_RESPONSE_REJECT:
      run_pending (self);
      break;
    default:
      self->pending = PENDING_NONE;
      g_clear_object (&self->pending_file);
      break;
    }
}

/* Runs @pending now when nothing is unsaved, otherwise asks first (Save / Discard /
 * Cancel); while a question is open, a second one is not asked. While the project is
 * being written, @pending waits for that (and is forgotten if the save fails). */
static void
ask_then (KmWindow      *self,
          PendingAction  pending,
          GFile         *file)
{
  GtkWidget *dialog;
  GFile *current;
  g_autofree char *name = NULL;

  if (self->question != NULL)
    {
      gtk_window_present (self->question);
      return;
    }

  self->pending = pending;
  g_set_object (&self->pending_file, file);
  if (self->saving_file != NULL)
    return;
  if (!km_document_get_modified (self->document))
    {
      run_pending (self);
      return;
    }

  current = km_document_get_file (self->document);
  name = current ? display_basename (current) : g_strdup (_("Untitled"));
  dialog = gtk_message_dialog_new (GTK_WINDOW (self),
                                   GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT,
                                   GTK_MESSAGE_QUESTION, GTK_BUTTONS_NONE,
                                   /* Translators: %s is the project's file name */
                                   _("Save the changes to “%s”?"), name);
  gtk_message_dialog_format_secondary_text (GTK_MESSAGE_DIALOG (dialog), "%s",
                                            _("Unsaved changes are lost otherwise."));
  gtk_dialog_add_buttons (GTK_DIALOG (dialog),
                          _("_Cancel"), GTK_RESPONSE_CANCEL,
                          _("_Discard"), GTK_RESPONSE_REJECT,
                          _("_Save"), GTK_RESPONSE_ACCEPT,
                          NULL);
  gtk_dialog_set_default_response (GTK_DIALOG (dialog), GTK_RESPONSE_ACCEPT);
  g_signal_connect_object (dialog, "response", G_CALLBACK (question_response_cb), self,
                           G_CONNECT_SWAPPED);
  self->question = GTK_WINDOW (dialog);
  gtk_window_present (self->question);
}

/* ---- Changes another program made to the project file -------------------------------- */

static void reload_items (KmWindow  *self,
                          GPtrArray *items);

/* Reads the project file again, as it is on disk (the open path, without asking: the
 * user chose to drop what is unsaved). */
static void
reload_project (KmWindow *self)
{
  GFile *file = km_document_get_file (self->document);

  if (file == NULL || self->saving_file != NULL)
    return;
  gtk_revealer_set_reveal_child (self->disk_bar, FALSE);
  open_now (self, file);
}

static void
disk_question_response_cb (KmWindow  *self,
                           int        response,
                           GtkDialog *dialog)
{
  g_autoptr(KmWindow) hold = g_object_ref (self);
  g_autoptr(GFile) file = g_steal_pointer (&self->conflict_file);

  g_assert (KM_IS_WINDOW (self));

  /* The dialog outlives this handler, and the answer may destroy this window. */
  self->question = NULL;
  gtk_window_set_transient_for (GTK_WINDOW (dialog), NULL);
  gtk_window_destroy (GTK_WINDOW (dialog));

  if (response == GTK_RESPONSE_ACCEPT && file != NULL && self->conflict_copies)
    {
      /* Over the version the save found, not over a later one (which asks again). */
      km_document_accept_disk_conflict (self->document);
      km_joint_inspector_save_project_with_body (self->joint_inspector, file);
      return;
    }
  if (response == GTK_RESPONSE_ACCEPT && file != NULL)
    {
      /* What waited for the save runs once it is written. */
      save_to_full (self, file, KM_DOCUMENT_SAVE_OVERWRITE);
      return;
    }
  self->pending = PENDING_NONE;
  g_clear_object (&self->pending_file);
  if (response == GTK_RESPONSE_REJECT)
    {
      g_autoptr(GPtrArray) items = km_document_dup_disk_conflict_items (self->document);

      /* A model file the save would have written back: its bodies read it again (the
       * item tree's Reload, undoable), the rest of the project stays as it is. */
      if (items->len > 0)
        reload_items (self, items);
      else
        reload_project (self);
    }
}

/* A save of @file found that another program changed or removed it, or one of its
 * sub-projects (@error, of KM_DOCUMENT_ERROR, whose message names that file): asks whether
 * to overwrite it, or (changed) to reload the project. */
static void
ask_disk_conflict (KmWindow     *self,
                   GFile        *file,
                   const GError *error)
{
  GtkWidget *dialog;
  gboolean deleted = g_error_matches (error, KM_DOCUMENT_ERROR,
                                      KM_DOCUMENT_ERROR_DELETED_ON_DISK);

  g_set_object (&self->conflict_file, file);
  self->conflict_copies = FALSE;
  if (deleted)
    {
      dialog = gtk_message_dialog_new (GTK_WINDOW (self),
                                       GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT,
                                       GTK_MESSAGE_WARNING, GTK_BUTTONS_NONE,
                                       "%s", error->message);
      gtk_message_dialog_format_secondary_text (GTK_MESSAGE_DIALOG (dialog), "%s",
                                                _("Save your version there again?"));
      gtk_dialog_add_buttons (GTK_DIALOG (dialog),
                              _("_Cancel"), GTK_RESPONSE_CANCEL,
                              _("_Save"), GTK_RESPONSE_ACCEPT,
                              NULL);
    }
  else
    {
      dialog = gtk_message_dialog_new (GTK_WINDOW (self),
                                       GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT,
                                       GTK_MESSAGE_WARNING, GTK_BUTTONS_NONE,
                                       "%s", error->message);
      gtk_message_dialog_format_secondary_text (GTK_MESSAGE_DIALOG (dialog), "%s",
                                                _("Overwrite it with your version, or keep "
                                                  "the file and reload it?"));
      gtk_dialog_add_buttons (GTK_DIALOG (dialog),
                              _("_Cancel"), GTK_RESPONSE_CANCEL,
                              /* Translators: reads the project file as the other program
                               * left it, dropping the version in the window */
                              _("_Reload"), GTK_RESPONSE_REJECT,
                              _("_Overwrite"), GTK_RESPONSE_ACCEPT,
                              NULL);
    }
  /* Either other answer drops someone's changes: neither is the default. */
  gtk_dialog_set_default_response (GTK_DIALOG (dialog), GTK_RESPONSE_CANCEL);
  g_signal_connect_object (dialog, "response", G_CALLBACK (disk_question_response_cb), self,
                           G_CONNECT_SWAPPED);
  self->question = GTK_WINDOW (dialog);
  gtk_window_present (self->question);
}

static void
update_disk_label (KmWindow *self)
{
  const char *text;

  /* (The document may outlive the window's widgets.) */
  if (self->document == NULL || self->disk_label == NULL)
    return;
  if (self->disk_change == KM_DOCUMENT_ERROR_DELETED_ON_DISK)
    text = _("The project file was deleted or moved. Save writes it again.");
  else if (km_document_get_modified (self->document))
    text = _("The project file changed on disk. Reloading it drops your unsaved changes.");
  else
    text = _("The project file changed on disk.");
  gtk_label_set_text (self->disk_label, text);
}

/* Shows the bar saying that the project file is not what the document read or wrote
 * (@change), and logs it once. */
static void
show_disk_bar (KmWindow        *self,
               KmDocumentError  change)
{
  g_autofree char *name = NULL;

  if (gtk_revealer_get_reveal_child (self->disk_bar) && self->disk_change == change)
    return;
  self->disk_change = change;
  update_disk_label (self);
  gtk_widget_set_visible (self->disk_reload_button, change == KM_DOCUMENT_ERROR_CHANGED_ON_DISK);
  gtk_revealer_set_reveal_child (self->disk_bar, TRUE);
  name = g_file_get_parse_name (km_document_get_file (self->document));
  if (change == KM_DOCUMENT_ERROR_DELETED_ON_DISK)
    km_document_log (self->document, G_LOG_LEVEL_WARNING,
                     _("%s: the project file was deleted or moved."), name);
  else
    km_document_log (self->document, G_LOG_LEVEL_WARNING,
                     _("%s: the project file changed on disk."), name);
}

static void
disk_checked_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  KmWindow *self;
  g_autoptr(GError) error = NULL;
  g_autoptr(GFileInfo) info = g_file_query_info_finish (G_FILE (source), result, &error);
  g_autofree char *identity = NULL;
  const char *known;
  GFile *file;

  /* Cancelled: another check replaced it, or the window went (the window is not held:
   * it is not kept from closing by a query). */
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  self = KM_WINDOW (user_data);
  g_clear_object (&self->disk_check);
  if (self->document == NULL || self->disk_bar == NULL
      || km_document_get_saving (self->document))
    return;
  file = km_document_get_file (self->document);
  known = km_document_get_file_identity (self->document);
  if (file == NULL || known == NULL || !g_file_equal (file, G_FILE (source)))
    return;
  if (info == NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        show_disk_bar (self, KM_DOCUMENT_ERROR_DELETED_ON_DISK);
      return;
    }
  identity = km_document_file_info_identity (info);
  if (strcmp (identity, known) == 0)
    gtk_revealer_set_reveal_child (self->disk_bar, FALSE);
  else
    show_disk_bar (self, KM_DOCUMENT_ERROR_CHANGED_ON_DISK);
}

/* Compares the project file with what the document last read or wrote there: the query
 * runs off the main thread. Not while the document writes it (its end checks again):
 * the file is neither the old one nor the one it is writing then. */
static void
check_disk (KmWindow *self)
{
  GFile *file;

  if (self->document == NULL || km_document_get_saving (self->document))
    return;
  file = km_document_get_file (self->document);
  if (file == NULL)
    return;
  if (self->disk_check != NULL)
    g_cancellable_cancel (self->disk_check);
  g_clear_object (&self->disk_check);
  self->disk_check = g_cancellable_new ();
  /* Answered in the window's main loop, also when a synchronous save ends
   * (km_document_save runs its own context). */
  g_main_context_push_thread_default (g_main_context_default ());
  g_file_query_info_async (file, KM_DOCUMENT_FILE_IDENTITY_ATTRIBUTES, G_FILE_QUERY_INFO_NONE,
                           G_PRIORITY_DEFAULT, self->disk_check, disk_checked_cb, self);
  g_main_context_pop_thread_default (g_main_context_default ());
}

static void
monitor_changed_cb (KmWindow          *self,
                    GFile             *file,
                    GFile             *other,
                    GFileMonitorEvent  event,
                    GFileMonitor      *monitor)
{
  check_disk (self);
}

static void
unwatch_file (KmWindow *self)
{
  if (self->monitor != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->monitor, self);
      g_file_monitor_cancel (self->monitor);
      g_clear_object (&self->monitor);
    }
  if (self->disk_check != NULL)
    g_cancellable_cancel (self->disk_check);
  g_clear_object (&self->disk_check);
}

/* Watches the document's file for changes other programs make (Kinema's own saves give
 * it the identity it has after them: they are no change). */
static void
watch_file (KmWindow *self)
{
  GFile *file;
  g_autoptr(GError) error = NULL;

  unwatch_file (self);
  if (self->document == NULL || self->disk_bar == NULL)
    return;
  gtk_revealer_set_reveal_child (self->disk_bar, FALSE);
  file = km_document_get_file (self->document);
  if (file == NULL)
    return;
  /* Reporting to the window's main loop, also when a synchronous save gave the document
   * its file (km_document_save runs its own context). */
  g_main_context_push_thread_default (g_main_context_default ());
  self->monitor = g_file_monitor_file (file, G_FILE_MONITOR_NONE, NULL, &error);
  g_main_context_pop_thread_default (g_main_context_default ());
  if (self->monitor == NULL)
    {
      g_debug ("Cannot watch the project file: %s", error->message);
      return;
    }
  g_signal_connect_object (self->monitor, "changed", G_CALLBACK (monitor_changed_cb), self,
                           G_CONNECT_SWAPPED);
}

static void
reload_project_action (GtkWidget  *widget,
                       const char *action_name,
                       GVariant   *parameter)
{
  reload_project (KM_WINDOW (widget));
}

/* Another project: the failed save was of the one before. */
static void
hide_save_failed (KmWindow *self)
{
  if (self->save_failed_bar != NULL)
    gtk_widget_set_visible (self->save_failed_bar, FALSE);
  g_clear_object (&self->save_failed_item);
}

static void
dismiss_save_failed_action (GtkWidget  *widget,
                            const char *action_name,
                            GVariant   *parameter)
{
  hide_save_failed (KM_WINDOW (widget));
}

static void
dismiss_disk_change_action (GtkWidget  *widget,
                            const char *action_name,
                            GVariant   *parameter)
{
  gtk_revealer_set_reveal_child (KM_WINDOW (widget)->disk_bar, FALSE);
}

/* ---- Changes another program made to the files the items were read from --------------- */

/* The bar says which (KmItemFileWatch::changed), or goes. */
static void
item_files_changed_cb (KmWindow *self)
{
  g_autoptr(GPtrArray) paths = NULL;
  g_autofree char *text = NULL;
  guint readable = 0;

  if (self->item_watch == NULL || self->item_bar == NULL)
    return;
  paths = km_item_file_watch_dup_paths (self->item_watch);
  for (guint i = 0; i < paths->len; i++)
    if (!km_item_file_watch_get_deleted (self->item_watch, g_ptr_array_index (paths, i)))
      readable++;
  if (paths->len == 1)
    {
      g_autofree char *name = g_filename_display_basename (g_ptr_array_index (paths, 0));

      if (readable == 0)
        /* Translators: %s is a file's name, of a model, targets or an animation */
        text = g_strdup_printf (_("“%s” was deleted or moved."), name);
      else
        /* Translators: %s is a file's name, of a model, targets or an animation */
        text = g_strdup_printf (_("“%s” changed on disk."), name);
    }
  else if (paths->len > 1)
    text = g_strdup_printf (ngettext ("%u file of the project changed on disk.",
                                      "%u files of the project changed on disk.", paths->len),
                            paths->len);
  if (text != NULL)
    gtk_label_set_text (self->item_label, text);
  /* Nothing to read where every file is gone. */
  gtk_widget_set_visible (self->item_reload, readable > 0);
  gtk_revealer_set_reveal_child (self->item_bar, text != NULL);
}

/* Selects @item's row in the item tree (expanding the rows above it): its actions act on
 * it then. */
static gboolean
select_item_row (KmWindow *self,
                 KmItem   *item)
{
  GListModel *rows = G_LIST_MODEL (km_item_tree_get_selection_model (self->item_tree));
  g_autoptr(GPtrArray) path = g_ptr_array_new ();

  for (KmItem *it = item; it != NULL; it = km_item_get_parent (it))
    g_ptr_array_insert (path, 0, it);
  /* From the top down: each row is in the list once the one above it is expanded. */
  for (guint k = 0; k < path->len; k++)
    for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
      {
        g_autoptr(GtkTreeListRow) row = g_list_model_get_item (rows, i);
        g_autoptr(KmItemRow) item_row = gtk_tree_list_row_get_item (row);

        if (km_item_row_get_item (item_row) != g_ptr_array_index (path, k)
            || km_item_row_get_joint (item_row) >= 0)
          continue;
        if (k + 1 < path->len)
          gtk_tree_list_row_set_expanded (row, TRUE);
        else
          return gtk_selection_model_select_item (GTK_SELECTION_MODEL (rows), i, TRUE);
        break;
      }
  return FALSE;
}

/* Delete in the item tree on a joint's row: the item tree deletes items (tree.delete,
 * which takes only item rows and so lets the key go on), the joint is deleted as
 * Skeleton → Delete Joint does (the same action: one undoable step, the motion solved
 * again). A joint that cannot be deleted (the root) is said why, not passed over. */
static gboolean
item_tree_delete_cb (GtkWidget *widget,
                     GVariant  *args,
                     gpointer   user_data)
{
  KmWindow *self = KM_WINDOW (user_data);
  GtkSelectionModel *rows = GTK_SELECTION_MODEL (km_item_tree_get_selection_model (self->item_tree));
  g_autoptr(GtkBitset) selected = gtk_selection_model_get_selection (rows);
  GActionGroup *skeleton_actions = km_joint_inspector_get_actions (self->joint_inspector);
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));
  KmSkeleton *skeleton = km_document_get_skeleton (self->document);
  int joint = km_document_get_selected_joint (self->document);
  gboolean joint_row = FALSE;
  GtkBitsetIter iter;
  guint position;

  /* (Text being typed, a rename, keeps its Delete.) */
  if (focus != NULL && gtk_widget_get_ancestor (focus, GTK_TYPE_EDITABLE) != NULL)
    return FALSE;
  for (gboolean ok = gtk_bitset_iter_init_first (&iter, selected, &position); ok;
       ok = gtk_bitset_iter_next (&iter, &position))
    {
      g_autoptr(GtkTreeListRow) row = g_list_model_get_item (G_LIST_MODEL (rows), position);
      g_autoptr(KmItemRow) item_row = row != NULL ? gtk_tree_list_row_get_item (row) : NULL;

      if (item_row == NULL)
        continue;
      if (km_item_row_get_joint (item_row) < 0)
        return FALSE;  /* items are the item tree's to delete */
      joint_row = TRUE;
    }
  if (!joint_row || skeleton == NULL || joint < 0
      || (guint) joint >= km_skeleton_get_n_joints (skeleton))
    return FALSE;

  if (g_action_group_get_action_enabled (skeleton_actions, "delete-joint"))
    g_action_group_activate_action (skeleton_actions, "delete-joint", NULL);
  else if (km_skeleton_get_joint (skeleton, (guint) joint)->parent < 0)
    km_document_log (self->document, G_LOG_LEVEL_WARNING,
                     /* Translators: a joint's name */
                     _("“%s” is the skeleton’s root joint, which cannot be deleted: delete "
                       "the body’s item to remove the whole body."),
                     km_skeleton_get_joint (skeleton, (guint) joint)->name);
  else
    km_document_log (self->document, G_LOG_LEVEL_WARNING,
                     /* Translators: a joint's name */
                     _("“%s” cannot be deleted now."),
                     km_skeleton_get_joint (skeleton, (guint) joint)->name);
  return TRUE;
}

static void
setup_item_tree_delete (KmWindow *self)
{
  GtkEventController *controller = gtk_shortcut_controller_new ();
  static const guint keys[] = { GDK_KEY_Delete, GDK_KEY_KP_Delete };

  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    gtk_shortcut_controller_add_shortcut (
      GTK_SHORTCUT_CONTROLLER (controller),
      gtk_shortcut_new (gtk_keyval_trigger_new (keys[i], 0),
                        gtk_callback_action_new (item_tree_delete_cb, self, NULL)));
  gtk_widget_add_controller (GTK_WIDGET (self->item_tree), controller);
}

/* Whether the key event @controller handles now belongs to a widget that takes it itself:
 * text (an entry, a spin button, the tree's rename field: Escape drops what was typed), or
 * a popover or dialog (a menu, a drop-down list: Escape closes it). */
static gboolean
key_is_for_focus (KmWindow           *self,
                  GtkEventController *controller)
{
  GdkEvent *event = gtk_event_controller_get_current_event (controller);
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));

  if (event != NULL
      && gdk_event_get_surface (event) != gtk_native_get_surface (GTK_NATIVE (self)))
    return TRUE;
  for (GtkWidget *w = focus; w != NULL && w != GTK_WIDGET (self); w = gtk_widget_get_parent (w))
    if (GTK_IS_EDITABLE (w) || GTK_IS_POPOVER (w))
      return TRUE;
  return FALSE;
}

static gboolean
escape_key_cb (GtkWidget *widget,
               GVariant  *args,
               gpointer   user_data)
{
  KmWindow *self = KM_WINDOW (widget);

  if (key_is_for_focus (self, self->escape_key))
    return FALSE;
  return gtk_widget_activate_action (widget, "win.edit-mode", NULL);
}

/*
 * Esc toggles edit mode wherever the keyboard focus is in the window (the item tree has it
 * at start-up and after Space), as the time bar's keys do, except in text and popovers,
 * which take Escape themselves; dialogs are windows of their own. The controller runs in
 * the capture phase, before the focused widget (the scene view's own Esc binding then only
 * serves a scene view outside a KmWindow).
 */
static void
setup_escape_key (KmWindow *self)
{
  GtkShortcut *shortcut = gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_Escape, 0),
                                            gtk_callback_action_new (escape_key_cb, NULL,
                                                                     NULL));

  self->escape_key = gtk_shortcut_controller_new ();
  gtk_event_controller_set_name (self->escape_key, "km-window-escape");
  gtk_event_controller_set_propagation_phase (self->escape_key, GTK_PHASE_CAPTURE);
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (self->escape_key), shortcut);
  gtk_widget_add_controller (GTK_WIDGET (self), self->escape_key);
}

/* Reads @items (of KmItem) again, through the item tree's Reload (one undoable step each,
 * and what it says when a file cannot be read). */
static void
reload_items (KmWindow  *self,
              GPtrArray *items)
{
  for (guint i = 0; i < items->len; i++)
    {
      KmItem *item = g_ptr_array_index (items, i);

      /* (gone meanwhile: reloaded with another, or deleted) */
      if (km_item_get_parent (item) == NULL || !select_item_row (self, item))
        continue;
      gtk_widget_activate_action (GTK_WIDGET (self->item_tree), "tree.reload", NULL);
    }
}

/* Reads each changed file's items again. */
static void
reload_item_files_action (GtkWidget  *widget,
                          const char *action_name,
                          GVariant   *parameter)
{
  KmWindow *self = KM_WINDOW (widget);
  g_autoptr(GPtrArray) items = NULL;

  if (self->item_watch == NULL)
    return;
  items = km_item_file_watch_dup_items (self->item_watch);
  reload_items (self, items);
  /* Read again now, or not readable (which the message view says): asked no more. */
  km_item_file_watch_forget (self->item_watch);
}

static void
dismiss_item_files_change_action (GtkWidget  *widget,
                                  const char *action_name,
                                  GVariant   *parameter)
{
  KmWindow *self = KM_WINDOW (widget);

  if (self->item_watch != NULL)
    km_item_file_watch_forget (self->item_watch);
}

static void
new_action (GtkWidget  *widget,
            const char *action_name,
            GVariant   *parameter)
{
  ask_then (KM_WINDOW (widget), PENDING_NEW, NULL);
}

static void
save_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  KmWindow *self = KM_WINDOW (widget);

  if (self->saving_file != NULL)
    return;
  self->pending = PENDING_NONE;
  save (self);
}

static void
save_as_action (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  KmWindow *self = KM_WINDOW (widget);

  if (self->saving_file != NULL)
    return;
  self->pending = PENDING_NONE;
  save_as (self);
}

static void
open_recent_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  g_autoptr(GFile) file = g_file_new_for_uri (g_variant_get_string (parameter, NULL));

  km_window_open_file (KM_WINDOW (widget), file);
}

static void
undo_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  km_document_undo (KM_WINDOW (widget)->document);
}

static void
redo_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  km_document_redo (KM_WINDOW (widget)->document);
}

/* The size of @paned's handle along its orientation. */
static int
paned_handle_size (GtkPaned *paned)
{
  GtkOrientation orientation = gtk_orientable_get_orientation (GTK_ORIENTABLE (paned));

  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (paned)); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (child != gtk_paned_get_start_child (paned) && child != gtk_paned_get_end_child (paned))
      {
        int size = 0;

        gtk_widget_measure (child, orientation, -1, &size, NULL, NULL, NULL);
        return size;
      }
  return 0;
}

static int
paned_size (GtkPaned *paned)
{
  return gtk_orientable_get_orientation (GTK_ORIENTABLE (paned)) == GTK_ORIENTATION_HORIZONTAL
         ? gtk_widget_get_width (GTK_WIDGET (paned)) : gtk_widget_get_height (GTK_WIDGET (paned));
}

/* What the end child of @paned gets at @position: the inverse of end_position(). */
static int
end_size (GtkPaned *paned,
          int       position)
{
  return paned_size (paned) - position - paned_handle_size (paned);
}

/* Where @paned's handle goes for its end child to get @end: the same sum (position,
 * handle and end child fill the paned) read the other way. */
static int
end_position (GtkPaned *paned,
              int       end)
{
  return end_size (paned, end);
}

/* @position within @paned's limits (those of its size now). The paned clamps a position
 * only when it is next allocated: one set while it is allocated would be taken as it is. */
static int
clamp_position (GtkPaned *paned,
                int       position)
{
  int min_position = 0, max_position = 0;

  g_object_get (paned, "min-position", &min_position, "max-position", &max_position, NULL);
  return CLAMP (position, min_position, MAX (min_position, max_position));
}

/* Sets @paned's position as the window fits the panes (not the user's choice), noting
 * where it went and at which size of the paned. */
static void
fit_pane (KmWindow *self,
          GtkPaned *paned,
          int       position)
{
  self->fitting = TRUE;
  gtk_paned_set_position (paned, clamp_position (paned, position));
  self->fitting = FALSE;
  if (paned == self->side_paned)
    {
      self->side_position = gtk_paned_get_position (paned);
      self->side_size = paned_size (paned);
    }
  else
    {
      self->scene_position = gtk_paned_get_position (paned);
      self->scene_size = paned_size (paned);
    }
}

static void note_scene_width (KmWindow *self);

/* A side paned's position changed. A paned allocated another size moves its handle itself
 * (the scene paned keeps the joint panel's width) and the window fits the panes again
 * then; at the same size, a move that is not the paned keeping a child's minimum width
 * (one that changed) is the user's: a dragged handle (or one moved with the keyboard)
 * gives the pane's chosen width. */
static void
side_position_cb (GtkPaned   *paned,
                  GParamSpec *pspec,
                  KmWindow   *self)
{
  gboolean side = paned == self->side_paned;
  int position = clamp_position (paned, gtk_paned_get_position (paned));
  int *last = side ? &self->side_position : &self->scene_position;

  if (self->fitting || !self->side_panes_restored || position == *last
      || paned_size (paned) != (side ? self->side_size : self->scene_size))
    return;
  if (position != clamp_position (paned, *last))
    {
      if (side)
        self->item_width = position;
      else
        self->joint_width = self->joint_fitted = end_size (paned, position);
      note_scene_width (self);
    }
  *last = position;
}

/* The side panes' widths the user chose and the message view's height are what the
 * settings keep, so the panes come back the same size in a window of another size (a
 * pane squeezed by a small window comes back as it was chosen); each saved as it is
 * restored (handles included), so that they never drift from run to run. */
static void
save_pane_sizes (KmWindow *self)
{
  if (self->settings == NULL)
    return;
  if (self->side_panes_restored)
    {
      g_settings_set_int (self->settings, "side-pane-position", self->item_width);
      g_settings_set_int (self->settings, "joint-pane-position", self->joint_width);
      g_settings_set_int (self->settings, "scene-pane-least-width", self->scene_least);
    }
  /* (0: the split was neither restored nor moved, the key stays as it is.) */
  if (km_joint_inspector_get_split_height (self->joint_inspector) > 0)
    g_settings_set_int (self->settings, "skeleton-pane-position",
                        km_joint_inspector_get_split_height (self->joint_inspector));
  if (self->message_pane_restored)
    g_settings_set_int (self->settings, "message-pane-position", self->message_height);
}

/* A Skeleton tab save ended: a close that waited for it goes on, unless the file was not
 * written (the error is in the log, which shows then) or the project is still written
 * (save_done_cb goes on then). */
/* Notes a project save that a Skeleton tab save runs (Save for Choreonoid's). */
static void
saving_changed_cb (KmWindow *self)
{
  if (self->document != NULL && km_document_get_saving (self->document)
      && self->saving_file == NULL
      && km_document_get_skeleton_saving_file (self->document) != NULL)
    self->other_save = TRUE;
}

static void
skeleton_save_ended_cb (KmWindow *self,
                        gboolean  ok)
{
  static const SaveFailed kinds[] = {
    [KM_SKELETON_SAVE_KIND_SKELETON] = SAVE_FAILED_SKELETON,
    [KM_SKELETON_SAVE_KIND_EXPORT_BODY] = SAVE_FAILED_EXPORT_BODY,
    [KM_SKELETON_SAVE_KIND_EXPORT_URDF] = SAVE_FAILED_EXPORT_URDF,
    [KM_SKELETON_SAVE_KIND_FOR_CHOREONOID] = SAVE_FAILED_FOR_CHOREONOID,
  };
  gboolean other_save = self->other_save;
  const GError *conflict;
  const GError *error = NULL;
  KmSkeletonSaveKind kind = KM_SKELETON_SAVE_KIND_SKELETON;

  self->other_save = FALSE;
  if (self->document != NULL)
    error = _km_document_get_skeleton_save_result (self->document, &kind);
  /* Save for Choreonoid found the project file changed by another program: asked as
   * Save asks (ask_disk_conflict), its Overwrite saves with the copies again. */
  conflict = !ok && other_save && self->document != NULL
             ? km_document_get_disk_conflict (self->document) : NULL;
  if (conflict != NULL && self->question == NULL && km_document_get_file (self->document))
    {
      ask_disk_conflict (self, km_document_get_file (self->document), conflict);
      self->conflict_copies = TRUE;
    }
  else if (!ok && error != NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED)
           && self->document != NULL)
    {
      /* (The caller logged the warning: its callback ran before this signal.) */
      reveal_messages (self);
      show_save_failed (self, kinds[kind], NULL, error);
    }
  else if (ok)
    save_succeeded (self, kinds[kind]);

  if (!self->close_after_save || self->saving_file != NULL)
    return;
  self->close_after_save = FALSE;
  if (!ok)
    {
      self->close_confirmed = FALSE;
      reveal_messages (self);
      return;
    }
  if (self->close_confirmed)
    gtk_window_close (GTK_WINDOW (self));
  else
    ask_then (self, PENDING_CLOSE, NULL);
}

/* Whether the window is maximized, as the window manager last said, is remembered as the
 * window goes: closed, or destroyed as a signal ends Kinema (its un-maximized size is kept
 * as it changes, window_size_cb). */
static void
save_maximized (KmWindow *self)
{
  if (self->settings != NULL)
    g_settings_set_boolean (self->settings, "window-maximized",
                            gtk_window_is_maximized (GTK_WINDOW (self)));
}

static void
km_window_unmap (GtkWidget *widget)
{
  save_maximized (KM_WINDOW (widget));
  GTK_WIDGET_CLASS (km_window_parent_class)->unmap (widget);
}

static gboolean
km_window_close_request (GtkWindow *window)
{
  KmWindow *self = KM_WINDOW (window);

  save_pane_sizes (self);
  save_maximized (self);

  /* Closing waits for the project or a Skeleton tab file to be written (and asks then if
   * the project is still modified): the process must not end in the middle of a write. */
  if (self->saving_file != NULL
      || (self->document != NULL
          && km_document_get_skeleton_saving_file (self->document) != NULL))
    {
      self->close_after_save = TRUE;
      return TRUE;
    }
  if (self->close_confirmed || !km_document_get_modified (self->document))
    return GTK_WINDOW_CLASS (km_window_parent_class)->close_request (window);

  ask_then (self, PENDING_CLOSE, NULL);
  return TRUE;
}

/* A Save Item As or Export Body Motion on a worker thread: what its callback needs. */
typedef struct
{
  KmWindow *window;
  KmItem   *item;
} ItemSave;

static ItemSave *
item_save_new (KmWindow *self,
               KmItem   *item)
{
  ItemSave *save = g_new0 (ItemSave, 1);

  save->window = g_object_ref (self);
  save->item = g_object_ref (item);
  return save;
}

static void
item_save_free (ItemSave *save)
{
  g_object_unref (save->window);
  g_object_unref (save->item);
  g_free (save);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ItemSave, item_save_free)

static void
save_item_done_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(ItemSave) save = user_data;
  g_autoptr(GError) error = NULL;

  if (km_document_save_item_finish (KM_DOCUMENT (source), result, &error))
    {
      save_succeeded (save->window, SAVE_FAILED_ITEM);
      return;
    }
  if (save->window->document == NULL)
    km_document_log (KM_DOCUMENT (source), G_LOG_LEVEL_WARNING, "%s", error->message);
  else
    report_save_failed (save->window, SAVE_FAILED_ITEM, save->item, error);
}

/* The item's contents (of the item the dialog was opened for) are taken now and written
 * on a worker thread. */
static void
save_item_chosen (KmWindow *self,
                  GFile    *file)
{
  g_autoptr(KmItem) item = g_steal_pointer (&self->chosen_item);

  if (item == NULL)
    return;
  km_document_save_item_async (self->document, item, file, NULL, save_item_done_cb,
                               item_save_new (self, item));
}

/* The file name Save Item As proposes for what @item holds on its own (a body's model,
 * IK targets, a solved animation: km_document_save_item), or NULL when it holds nothing
 * that can be saved on its own (a pose sequence or a body motion only refers to its file,
 * which Kinema never writes; a folder; a body without a model). */
static const char *
savable_item_name (KmItem *item)
{
  if (KM_IS_BODY_ITEM (item) && km_body_item_get_skeleton (KM_BODY_ITEM (item)) != NULL)
    return "skeleton.json";
  if (KM_IS_IK_TARGETS_ITEM (item) && km_ik_targets_item_get_track (KM_IK_TARGETS_ITEM (item)))
    return "targets.json";
  if (KM_IS_IK_ANIMATION_ITEM (item)
      && km_ik_animation_item_get_animation (KM_IK_ANIMATION_ITEM (item)) != NULL)
    return "animation.json";
  return NULL;
}

/* The one selected item, or NULL (a full reference). */
static KmItem *
single_selected_item (KmWindow *self)
{
  GListModel *selection = km_project_get_selection (km_document_get_project (self->document));

  if (g_list_model_get_n_items (selection) != 1)
    return NULL;
  return g_list_model_get_item (selection, 0);
}

static gboolean
is_solved_animation_item (KmItem *item)
{
  return KM_IS_IK_ANIMATION_ITEM (item)
         && km_ik_animation_item_get_animation (KM_IK_ANIMATION_ITEM (item)) != NULL;
}

/* Save Item As is offered for one selected item that holds something to save, Export Body
 * Motion for one selected IK animation. */
static void
update_save_item_action (KmWindow *self)
{
  g_autoptr(KmItem) item = NULL;

  if (self->document == NULL)
    return;
  item = single_selected_item (self);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.save-item-as",
                                 item != NULL && savable_item_name (item) != NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.export-body-motion",
                                 item != NULL && is_solved_animation_item (item));
}

static void
export_body_motion_done_cb (GObject      *source,
                            GAsyncResult *result,
                            gpointer      user_data)
{
  g_autoptr(ItemSave) save = user_data;
  g_autoptr(GError) error = NULL;

  if (km_document_export_body_motion_finish (KM_DOCUMENT (source), result, &error))
    {
      save_succeeded (save->window, SAVE_FAILED_BODY_MOTION);
      return;
    }
  if (save->window->document == NULL)
    km_document_log (KM_DOCUMENT (source), G_LOG_LEVEL_WARNING, "%s", error->message);
  else
    report_save_failed (save->window, SAVE_FAILED_BODY_MOTION, save->item, error);
}

/* The animation (of the item the dialog was opened for) is copied now; the motion is
 * built and written on a worker thread. */
static void
export_body_motion_chosen (KmWindow *self,
                           GFile    *file)
{
  g_autoptr(KmItem) item = g_steal_pointer (&self->chosen_item);

  if (item == NULL)
    return;
  km_document_export_body_motion_async (self->document, item, file, NULL,
                                        export_body_motion_done_cb, item_save_new (self, item));
}

/* The Export Body Motion dialog, for @item. */
static void
choose_body_motion_file (KmWindow *self,
                         KmItem   *item)
{
  g_autoptr(GFile) folder = km_file_chooser_folder_for_item (self->document, item);

  g_set_object (&self->chosen_item, item);
  choose_file (self, _("Export Body Motion"), TRUE, "motion.seq", folder,
               export_body_motion_chosen);
}

/* The Save Item As dialog, for @item (which holds something to save: savable_item_name). */
static void
choose_item_file (KmWindow *self,
                  KmItem   *item)
{
  g_autoptr(GFile) folder = km_file_chooser_folder_for_item (self->document, item);

  g_set_object (&self->chosen_item, item);
  choose_file (self, _("Save Item As"), TRUE, savable_item_name (item), folder,
               save_item_chosen);
}

/* Writes the one selected IK animation as a Choreonoid body motion (.seq). */
static void
export_body_motion_action (GtkWidget  *widget,
                           const char *action_name,
                           GVariant   *parameter)
{
  KmWindow *self = KM_WINDOW (widget);
  g_autoptr(KmItem) item = single_selected_item (self);
  g_autoptr(GFile) folder = NULL;

  if (item == NULL || !is_solved_animation_item (item))
    {
      km_document_log (self->document, G_LOG_LEVEL_WARNING,
                       _("Select one solved IK animation to export as a body motion."));
      return;
    }
  choose_body_motion_file (self, item);
}

/* The failed-save bar's button after a Save Item As or Export Body Motion failed: the
 * same for the same item, whatever is selected now. */
static void
retry_failed_save_action (GtkWidget  *widget,
                          const char *action_name,
                          GVariant   *parameter)
{
  KmWindow *self = KM_WINDOW (widget);
  g_autoptr(KmItem) item = self->save_failed_item != NULL
                           ? g_object_ref (self->save_failed_item) : NULL;

  if (item == NULL || self->document == NULL)
    return;
  if (self->save_failed == SAVE_FAILED_BODY_MOTION && is_solved_animation_item (item))
    choose_body_motion_file (self, item);
  else if (self->save_failed == SAVE_FAILED_ITEM && savable_item_name (item) != NULL)
    choose_item_file (self, item);
  else
    /* Translators: %s is an item's name */
    km_document_log (self->document, G_LOG_LEVEL_WARNING,
                     _("“%s” holds nothing that can be saved on its own"),
                     km_item_get_name (item));
}

static void
watch_selection (KmWindow *self)
{
  g_signal_connect_object (km_project_get_selection (km_document_get_project (self->document)),
                           "items-changed", G_CALLBACK (update_save_item_action), self,
                           G_CONNECT_SWAPPED);
  update_save_item_action (self);
}

/* Saves the one selected item's contents (model, targets or animation) to a file. */
static void
save_item_as_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *parameter)
{
  KmWindow *self = KM_WINDOW (widget);
  g_autoptr(KmItem) item = single_selected_item (self);

  if (item == NULL)
    {
      km_document_log (self->document, G_LOG_LEVEL_WARNING, _("Select one item to save."));
      return;
    }
  if (savable_item_name (item) == NULL)
    {
      /* Translators: %s is an item's name */
      km_document_log (self->document, G_LOG_LEVEL_WARNING,
                       _("“%s” holds nothing that can be saved on its own"),
                       km_item_get_name (item));
      return;
    }
  choose_item_file (self, item);
}

static void
open_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  KmWindow *self = KM_WINDOW (widget);
  g_autoptr(GFile) last = last_open_folder (self);
  g_autoptr(GFile) folder = km_file_chooser_folder_for_open (self->document, last);

  choose_file (self, _("Open a Project, Model or Targets File"), FALSE, NULL, folder,
               open_chosen);
}

static void
open_example_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *parameter)
{
  km_window_open_example (KM_WINDOW (widget));
}

static void
export_image_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *parameter)
{
  KmWindow *self = KM_WINDOW (widget);
  g_autoptr(GFile) folder = km_file_chooser_folder_for_project (self->document);

  choose_file (self, _("Export Image"), TRUE, "kinema.png", folder, export_image_chosen);
}

static void
export_animation_action (GtkWidget  *widget,
                         const char *action_name,
                         GVariant   *parameter)
{
  KmWindow *self = KM_WINDOW (widget);
  g_autoptr(GFile) folder = km_file_chooser_folder_for_project (self->document);

  choose_file (self, _("Export Animation"), TRUE, "animation.json", folder,
               export_animation_chosen);
}

static void
solve_action (GtkWidget  *widget,
              const char *action_name,
              GVariant   *parameter)
{
  km_document_solve (KM_WINDOW (widget)->document);
}

static void
reset_camera_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *parameter)
{
  km_scene_view_reset_camera (KM_WINDOW (widget)->scene_view);
}

/* View → Camera (win.view-front, win.frame-all …): the scene view's own action of the same
 * name (scene.view-front …), the one its key (1, 3, 7, a, f) runs. The menu bar is outside
 * the scene view, where scene.* actions do not reach. */
static void
scene_camera_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *parameter)
{
  g_autofree char *scene_action = g_strconcat ("scene.", action_name + strlen ("win."), NULL);

  gtk_widget_activate_action (GTK_WIDGET (KM_WINDOW (widget)->scene_view), scene_action, NULL);
}

static gboolean
drop_cb (KmWindow      *self,
         const GValue  *value,
         double         x,
         double         y,
         GtkDropTarget *target)
{
  GSList *files;

  if (!G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST))
    return FALSE;

  files = g_value_get_boxed (value);
  for (GSList *l = files; l != NULL; l = l->next)
    km_window_open_file (self, l->data);
  return files != NULL;
}

/* The settings' value of @key; run uninstalled, without the schema, the schema's default. */
static int
pane_setting (KmWindow   *self,
              const char *key,
              int         default_value)
{
  return self->settings != NULL ? g_settings_get_int (self->settings, key) : default_value;
}

/* The scene view keeps at least this share of the side panes' width: in a narrow window
 * the item tree and the joint panel give up width (down to their minimums), in proportion
 * to what they could give, instead of leaving the scene a sliver. */
#define SCENE_SHARE_PERCENT 40

/* What the side panes leave the scene view at least in a row @width wide: its share, or
 * less where a drag of the user's left it less (scene_least), so that the panes come back
 * as the user left them in a window of the same size and the window does not take back
 * width the user gave them. */
static int
scene_least_width (KmWindow *self,
                   int       width)
{
  int share = (width * SCENE_SHARE_PERCENT + 99) / 100;

  return self->scene_least > 0 ? MIN (share, self->scene_least) : share;
}

/* The user dragged a side pane's handle: the scene view's width then, if less than its
 * share, is what the panes leave it from now on (scene_least_width()). */
static void
note_scene_width (KmWindow *self)
{
  int width = paned_size (self->side_paned);
  int scene = width - paned_handle_size (self->side_paned)
              - paned_handle_size (self->scene_paned)
              - gtk_paned_get_position (self->side_paned) - self->joint_fitted;

  self->scene_least = scene < (width * SCENE_SHARE_PERCENT + 99) / 100 ? MAX (scene, 1) : 0;
}

static int
min_width (GtkWidget *widget)
{
  int width = 0;

  gtk_widget_measure (widget, GTK_ORIENTATION_HORIZONTAL, -1, &width, NULL, NULL, NULL);
  return width;
}

static int
natural_width (GtkWidget *widget)
{
  int min = 0, natural = 0;

  gtk_widget_measure (widget, GTK_ORIENTATION_HORIZONTAL, -1, &min, &natural, NULL, NULL);
  return MAX (min, natural);
}

/* The widest the window can be: that of its monitor (or its own, when larger or when the
 * monitor is not known). */
static int
widest_window (KmWindow *self,
               int       width)
{
  GdkSurface *surface = gtk_native_get_surface (GTK_NATIVE (self));
  GdkMonitor *monitor = NULL;
  GdkRectangle geometry = { 0 };

  if (surface != NULL)
    monitor = gdk_display_get_monitor_at_surface (gtk_widget_get_display (GTK_WIDGET (self)),
                                                  surface);
  if (monitor != NULL)
    gdk_monitor_get_geometry (monitor, &geometry);
  return MAX (width, geometry.width);
}

/* A saved width of a side pane, within what the pane can sensibly have: at least its
 * natural width, and no more than the window can show (at its widest) beside the other
 * pane at its natural width and the scene view's share. */
static int
restored_width (KmWindow   *self,
                const char *key,
                int         default_value,
                GtkWidget  *pane,
                GtkWidget  *other,
                int         handles,
                int         width)
{
  int least = natural_width (pane);
  int widest = widest_window (self, width);
  int most = widest - handles - natural_width (other) - scene_least_width (self, widest);

  return CLAMP (pane_setting (self, key, default_value), least, MAX (least, most));
}

/* Once the side paned has its width (its max-position changes on each allocation), the
 * item tree and the joint panel get the widths the user chose, or less if the scene view's
 * share needs it: a narrower window takes the width from the scene view, then (down to
 * the share) from the panes. The paned clamps what is past its limits. */
static void
side_paned_max_position_cb (KmWindow *self)
{
  GtkWidget *notebook = gtk_paned_get_end_child (self->scene_paned);
  int width = paned_size (self->side_paned);
  int handles, item_min, joint_min, item, joint, item_spare, joint_spare, excess;

  if (width <= 0)
    return;

  handles = paned_handle_size (self->side_paned) + paned_handle_size (self->scene_paned);
  if (!self->side_panes_restored)
    {
      self->scene_least = MAX (pane_setting (self, "scene-pane-least-width", 0), 0);
      self->item_width = restored_width (self, "side-pane-position", 310,
                                         GTK_WIDGET (self->item_tree), notebook, handles, width);
      self->joint_width = restored_width (self, "joint-pane-position", 300, notebook,
                                          GTK_WIDGET (self->item_tree), handles, width);
      self->side_panes_restored = TRUE;
    }

  item_min = min_width (GTK_WIDGET (self->item_tree));
  joint_min = min_width (notebook);
  item = MAX (self->item_width, item_min);
  joint = MAX (self->joint_width, joint_min);
  excess = item + joint + handles + scene_least_width (self, width) - width;
  item_spare = item - item_min;
  joint_spare = joint - joint_min;
  if (excess > 0 && item_spare + joint_spare > 0)
    {
      int give = MIN (excess, item_spare + joint_spare);
      int item_gives = (int) ((gint64) give * item_spare / (item_spare + joint_spare));

      item -= item_gives;
      joint -= give - item_gives;
    }

  self->joint_fitted = joint;
  fit_pane (self, self->side_paned, item);
  /* The scene paned places the joint panel when it gets its new width (it would move a
   * position set for that width now by the change again); when its width stays, now. */
  if (width - self->side_position - paned_handle_size (self->side_paned)
      == paned_size (self->scene_paned))
    fit_pane (self, self->scene_paned, end_position (self->scene_paned, joint));
}

/* The scene paned has its width (the window's, or the item tree's handle, changed it):
 * the joint panel keeps the width fitted to the window, the scene view takes the rest. */
static void
scene_paned_max_position_cb (KmWindow *self)
{
  if (!self->side_panes_restored || paned_size (self->scene_paned) <= 0)
    return;
  fit_pane (self, self->scene_paned, end_position (self->scene_paned, self->joint_fitted));
}

/* The panes above the Messages pane keep at least this share of the main paned's height
 * as the window shrinks (un-maximized, say), the Messages pane giving up height first. */
#define UPPER_SHARE_PERCENT 50

/* What the Messages pane leaves the panes above it at least in a main paned @height
 * high: their share, or less where a drag of the user's left them less (upper_least). */
static int
upper_least_height (KmWindow *self,
                    int       height)
{
  int share = (height * UPPER_SHARE_PERCENT + 99) / 100;

  return self->upper_least > 0 ? MIN (share, self->upper_least) : share;
}

/* Gives the Messages pane the height the user chose, or less where the panes above it
 * need their share of a smaller window; noted as the window's own move (main_position_cb). */
static void
fit_message_pane (KmWindow *self)
{
  int size = paned_size (self->main_paned);
  int handle = paned_handle_size (self->main_paned);
  int end;

  if (!self->message_pane_restored || !self->show_messages || size <= 0)
    return;
  end = MIN (self->message_height, size - handle - upper_least_height (self, size));
  self->fitting = TRUE;
  gtk_paned_set_position (self->main_paned,
                          clamp_position (self->main_paned, end_position (self->main_paned,
                                                                          MAX (end, 0))));
  self->fitting = FALSE;
  self->message_position = gtk_paned_get_position (self->main_paned);
  self->message_size = size;
}

/* Once the main paned has its height, the message view gets the height the settings
 * keep; each later height fits it again (fit_message_pane()). Never past max-position:
 * the end child keeps its minimum. */
static void
main_paned_max_position_cb (KmWindow *self)
{
  if (paned_size (self->main_paned) <= 0)
    return;
  if (!self->message_pane_restored)
    {
      int height = pane_setting (self, "message-pane-position", 140);
      int size = paned_size (self->main_paned);
      int upper = size - paned_handle_size (self->main_paned) - height;

      self->message_height = height > 0 ? height : 140;
      self->message_pane_restored = TRUE;
      /* A height the user chose past the share in a window of this size (the settings
       * keep no more than the height) is theirs again, as when it was dragged. */
      if (height > 0 && upper > 0 && upper < (size * UPPER_SHARE_PERCENT + 99) / 100)
        self->upper_least = upper;
    }
  fit_message_pane (self);
}

/* The main paned's position changed at the same size, not by the window: the user
 * dragged the Messages pane's handle (or moved it with the keyboard), choosing its
 * height; an upper area left less than its share is what it keeps in smaller windows. */
static void
main_position_cb (KmWindow *self)
{
  int size = paned_size (self->main_paned);
  int position = gtk_paned_get_position (self->main_paned);

  if (self->fitting || !self->message_pane_restored || !self->show_messages
      || size != self->message_size || position == self->message_position)
    return;
  self->message_position = position;
  self->message_height = end_size (self->main_paned, position);
  self->upper_least = position < (size * UPPER_SHARE_PERCENT + 99) / 100 ? MAX (position, 1)
                                                                         : 0;
}

static void
recovery_bar_response_cb (KmWindow   *self,
                          int         response,
                          GtkInfoBar *bar)
{
  g_autoptr(GFile) file = g_steal_pointer (&self->recovery_file);

  g_assert (KM_IS_WINDOW (self));

  gtk_info_bar_set_revealed (self->recovery_bar, FALSE);
  if (file == NULL)
    return;
  if (response == GTK_RESPONSE_ACCEPT)
    {
      /* Read on a worker thread like any file opened (KmWindow:loading meanwhile), after
       * the files being opened; it is removed once recovered. */
      g_autoptr(GFile) recovery = g_file_dup (file);

      g_object_set_data (G_OBJECT (recovery), RECOVERY_KEY, GINT_TO_POINTER (TRUE));
      open_now (self, recovery);
    }
  /* Declined work is gone, and so is its lock file. */
  else if (response == GTK_RESPONSE_REJECT)
    km_autosave_remove_recovered (file);
}

/* Whether saved projects keep the views and toolbars layout is a preference: it follows
 * the key on whichever project the document has. */
static void
document_project_changed_cb (KmWindow *self)
{
  KmProject *project = km_document_get_project (self->document);

  if (self->settings != NULL && project != NULL)
    g_settings_bind (self->settings, "save-layout", project, "save-layout", G_SETTINGS_BIND_GET);
}

/* The window's size changed: remembered while it is neither maximized nor full screen (the
 * size it then has is not the one to come back to). */
static void
window_size_cb (KmWindow *self)
{
  int width = 0, height = 0;

  if (gtk_window_is_maximized (GTK_WINDOW (self)) || gtk_window_is_fullscreen (GTK_WINDOW (self)))
    return;
  gtk_window_get_default_size (GTK_WINDOW (self), &width, &height);
  if (width > 0 && width != self->normal_width)
    {
      self->normal_width = width;
      g_settings_set_int (self->settings, "window-width", width);
    }
  if (height > 0 && height != self->normal_height)
    {
      self->normal_height = height;
      g_settings_set_int (self->settings, "window-height", height);
    }
}

/* The window's size and whether it is maximized, as the settings keep them. Whether it is
 * maximized is saved as the window goes (km_window_unmap), not as it changes: a window is
 * not maximized yet when it is first shown, which is no choice of the user's. */
static void
restore_window_state (KmWindow *self)
{
  self->normal_width = g_settings_get_int (self->settings, "window-width");
  self->normal_height = g_settings_get_int (self->settings, "window-height");
  gtk_window_set_default_size (GTK_WINDOW (self), self->normal_width, self->normal_height);
  /* (Maximized once constructed: the construct property would undo it now.) */
  self->restore_maximized = g_settings_get_boolean (self->settings, "window-maximized");
  g_signal_connect (self, "notify::default-width", G_CALLBACK (window_size_cb), NULL);
  g_signal_connect (self, "notify::default-height", G_CALLBACK (window_size_cb), NULL);
}

static void
setup_settings (KmWindow *self)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr(GSettingsSchema) schema = NULL;

  if (source != NULL)
    schema = g_settings_schema_source_lookup (source, APP_ID, TRUE);
  g_signal_connect_object (self->side_paned, "notify::max-position",
                           G_CALLBACK (side_paned_max_position_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->scene_paned, "notify::max-position",
                           G_CALLBACK (scene_paned_max_position_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->side_paned, "notify::position",
                           G_CALLBACK (side_position_cb), self, 0);
  g_signal_connect_object (self->scene_paned, "notify::position",
                           G_CALLBACK (side_position_cb), self, 0);
  g_signal_connect_object (self->main_paned, "notify::max-position",
                           G_CALLBACK (main_paned_max_position_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->main_paned, "notify::position",
                           G_CALLBACK (main_position_cb), self, G_CONNECT_SWAPPED);
  /* Uninstalled and without GSETTINGS_SCHEMA_DIR: defaults, nothing remembered. */
  if (schema == NULL)
    return;

  self->settings = g_settings_new (APP_ID);
  restore_window_state (self);
  g_settings_bind (self->settings, "loop-playback", self->time_bar, "loop",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "angle-unit", self->joint_panel, "angle-unit",
                   G_SETTINGS_BIND_GET);
  g_settings_bind (self->settings, "length-unit", self->joint_panel, "length-unit",
                   G_SETTINGS_BIND_GET);
  g_settings_bind (self->settings, "angle-unit", self->joint_inspector, "angle-unit",
                   G_SETTINGS_BIND_GET);
  g_settings_bind (self->settings, "length-unit", self->joint_inspector, "length-unit",
                   G_SETTINGS_BIND_GET);
  km_joint_inspector_set_split_height (self->joint_inspector,
                                       g_settings_get_int (self->settings,
                                                           "skeleton-pane-position"));
  /* The message view as the user last left it (not stored back: it is the same). */
  self->show_messages = g_settings_get_boolean (self->settings, "show-messages");
  gtk_widget_set_visible (GTK_WIDGET (self->message_view), self->show_messages);
  g_settings_bind (self->settings, "angle-unit", self->graph_view, "angle-unit",
                   G_SETTINGS_BIND_GET);
  g_settings_bind (self->settings, "length-unit", self->graph_view, "length-unit",
                   G_SETTINGS_BIND_GET);
  g_settings_bind (self->settings, "autosave-interval", self->autosave, "interval",
                   G_SETTINGS_BIND_GET);
  g_signal_connect_object (self->document, "notify::project",
                           G_CALLBACK (document_project_changed_cb), self, G_CONNECT_SWAPPED);
  document_project_changed_cb (self);
}

/* The menu bar (the application's gtk/menus.ui): show-menubar is a construct property, so
 * a template cannot set it (its default would come after); it is set once constructed. */
static void
km_window_constructed (GObject *object)
{
  G_OBJECT_CLASS (km_window_parent_class)->constructed (object);

  gtk_application_window_set_show_menubar (GTK_APPLICATION_WINDOW (object), TRUE);
  if (KM_WINDOW (object)->restore_maximized)
    gtk_window_maximize (GTK_WINDOW (object));
}

static void
km_window_dispose (GObject *object)
{
  KmWindow *self = (KmWindow *) object;

  if (self->document != NULL)
    km_document_cancel_solve (self->document);
  g_cancellable_cancel (self->opening);
  g_clear_object (&self->opening);
  g_clear_object (&self->opening_file);
  g_queue_clear_full (&self->open_queue, g_object_unref);
  if (self->question != NULL)
    gtk_window_destroy (g_steal_pointer (&self->question));
  unwatch_file (self);
  if (self->item_watch != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->item_watch, self);
      km_item_file_watch_stop (self->item_watch);
      g_clear_object (&self->item_watch);
    }
  self->item_bar = NULL;
  self->item_label = NULL;
  g_clear_object (&self->conflict_file);
  g_clear_object (&self->open_folder);
  g_clear_object (&self->save_failed_item);
  g_clear_object (&self->chosen_item);
  gtk_widget_dispose_template (GTK_WIDGET (self), KM_TYPE_WINDOW);
  g_clear_object (&self->autosave);
  g_clear_object (&self->document);
  g_clear_object (&self->pending_file);
  g_clear_object (&self->recovery_file);
  g_clear_object (&self->settings);

  G_OBJECT_CLASS (km_window_parent_class)->dispose (object);
}

static void
km_window_get_property (GObject    *object,
                        guint       prop_id,
                        GValue     *value,
                        GParamSpec *pspec)
{
  KmWindow *self = KM_WINDOW (object);

  switch (prop_id)
    {
    case PROP_DOCUMENT:
      g_value_set_object (value, self->document);
      break;
    case PROP_SHOW_JOINT_AXES:
      g_value_set_boolean (value, km_scene_view_get_show_joint_axes (self->scene_view));
      break;
    case PROP_ORTHOGRAPHIC:
      /* Asked for by the property action also while the template is being torn down. */
      g_value_set_boolean (value, self->scene_view != NULL &&
                                  km_scene_view_get_orthographic (self->scene_view));
      break;
    case PROP_EDIT_MODE:
      /* Asked for by the property action also while the template is being torn down. */
      g_value_set_boolean (value, self->scene_view != NULL &&
                                  km_scene_view_get_edit_mode (self->scene_view));
      break;
    case PROP_SHOW_MESSAGES:
      g_value_set_boolean (value, self->show_messages);
      break;
    case PROP_LOADING:
      g_value_set_boolean (value, km_window_get_loading (self));
      break;
    case PROP_SAVING:
      g_value_set_boolean (value, km_window_get_saving (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
km_window_set_property (GObject      *object,
                        guint         prop_id,
                        const GValue *value,
                        GParamSpec   *pspec)
{
  KmWindow *self = KM_WINDOW (object);

  switch (prop_id)
    {
    case PROP_SHOW_JOINT_AXES:
      km_scene_view_set_show_joint_axes (self->scene_view, g_value_get_boolean (value));
      break;
    case PROP_ORTHOGRAPHIC:
      /* As the view's key 5 (scene.toggle-ortho, its "orthographic" property) does. */
      if (self->scene_view != NULL)
        km_scene_view_set_orthographic (self->scene_view, g_value_get_boolean (value));
      break;
    case PROP_EDIT_MODE:
      if (self->scene_view != NULL)
        km_scene_view_set_edit_mode (self->scene_view, g_value_get_boolean (value));
      break;
    case PROP_SHOW_MESSAGES:
      if (self->show_messages != g_value_get_boolean (value))
        {
          self->show_messages = g_value_get_boolean (value);
          gtk_widget_set_visible (GTK_WIDGET (self->message_view), self->show_messages);
          fit_message_pane (self);
          /* The user's choice (View → Messages) is what the next window starts with. */
          if (self->settings != NULL && !self->revealing_messages)
            g_settings_set_boolean (self->settings, "show-messages", self->show_messages);
          g_object_notify_by_pspec (object, pspec);
        }
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
km_window_class_init (KmWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->constructed = km_window_constructed;
  object_class->dispose = km_window_dispose;
  object_class->get_property = km_window_get_property;
  object_class->set_property = km_window_set_property;
  widget_class->unmap = km_window_unmap;
  window_class->close_request = km_window_close_request;

  properties[PROP_DOCUMENT] =
    g_param_spec_object ("document", NULL, NULL, KM_TYPE_DOCUMENT,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SHOW_JOINT_AXES] =
    g_param_spec_boolean ("show-joint-axes", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* The scene view's projection (View → Orthographic). */
  properties[PROP_ORTHOGRAPHIC] =
    g_param_spec_boolean ("orthographic", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_EDIT_MODE] =
    g_param_spec_boolean ("edit-mode", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SHOW_MESSAGES] =
    g_param_spec_boolean ("show-messages", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * KmWindow:loading:
   *
   * Whether files are being opened in the background (km_window_open_file()).
   */
  properties[PROP_LOADING] =
    g_param_spec_boolean ("loading", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * KmWindow:saving:
   *
   * Whether the project is being written (Save, Save As, or Save in the unsaved-changes
   * question); Save and Save As are disabled meanwhile.
   */
  properties[PROP_SAVING] =
    g_param_spec_boolean ("saving", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/kinema/Kinema/ui/km-window.ui");
  gtk_widget_class_bind_template_child (widget_class, KmWindow, item_tree);
  gtk_widget_class_bind_template_child (widget_class, KmWindow, joint_inspector);
  gtk_widget_class_bind_template_child (widget_class, KmWindow, graph_view);
  gtk_widget_class_bind_template_child (widget_class, KmWindow, joint_panel);
  gtk_widget_class_bind_template_child (widget_class, KmWindow, main_paned);
  gtk_widget_class_bind_template_child (widget_class, KmWindow, message_view);
  gtk_widget_class_bind_template_child (widget_class, KmWindow, recovery_bar);
  gtk_widget_class_bind_template_child (widget_class, KmWindow, open_spinner);
  gtk_widget_class_bind_template_child (widget_class, KmWindow, recovery_label);
  gtk_widget_class_bind_template_child (widget_class, KmWindow, disk_bar);
  gtk_widget_class_bind_template_child (widget_class, KmWindow, disk_label);
  gtk_widget_class_bind_template_child (widget_class, KmWindow, disk_reload_button);
  gtk_widget_class_bind_template_child (widget_class, KmWindow, item_bar);
  gtk_widget_class_bind_template_child (widget_class, KmWindow, item_label);
  gtk_widget_class_bind_template_child (widget_class, KmWindow, item_reload);
  gtk_widget_class_bind_template_child (widget_class, KmWindow, save_failed_bar);
  gtk_widget_class_bind_template_child (widget_class, KmWindow, save_failed_label);
  gtk_widget_class_bind_template_child (widget_class, KmWindow, save_failed_save_as);
  gtk_widget_class_bind_template_child (widget_class, KmWindow, scene_paned);
  gtk_widget_class_bind_template_child (widget_class, KmWindow, side_paned);
  gtk_widget_class_bind_template_child (widget_class, KmWindow, scene_view);
  gtk_widget_class_bind_template_child (widget_class, KmWindow, time_bar);
  gtk_widget_class_bind_template_callback (widget_class, recovery_bar_response_cb);

  gtk_widget_class_install_action (widget_class, "win.new", NULL, new_action);
  gtk_widget_class_install_action (widget_class, "win.open", NULL, open_action);
  gtk_widget_class_install_action (widget_class, "win.open-recent", "s", open_recent_action);
  gtk_widget_class_install_action (widget_class, "win.save", NULL, save_action);
  gtk_widget_class_install_action (widget_class, "win.save-as", NULL, save_as_action);
  gtk_widget_class_install_action (widget_class, "win.reload-project", NULL,
                                   reload_project_action);
  gtk_widget_class_install_action (widget_class, "win.retry-failed-save", NULL,
                                   retry_failed_save_action);
  gtk_widget_class_install_action (widget_class, "win.dismiss-save-failed", NULL,
                                   dismiss_save_failed_action);
  gtk_widget_class_install_action (widget_class, "win.dismiss-disk-change", NULL,
                                   dismiss_disk_change_action);
  gtk_widget_class_install_action (widget_class, "win.reload-item-files", NULL,
                                   reload_item_files_action);
  gtk_widget_class_install_action (widget_class, "win.dismiss-item-files-change", NULL,
                                   dismiss_item_files_change_action);
  gtk_widget_class_install_action (widget_class, "win.save-item-as", NULL, save_item_as_action);
  gtk_widget_class_install_action (widget_class, "win.export-body-motion", NULL,
                                   export_body_motion_action);
  gtk_widget_class_install_action (widget_class, "win.undo", NULL, undo_action);
  gtk_widget_class_install_action (widget_class, "win.redo", NULL, redo_action);
  gtk_widget_class_install_action (widget_class, "win.open-example", NULL, open_example_action);
  gtk_widget_class_install_action (widget_class, "win.export-image", NULL, export_image_action);
  gtk_widget_class_install_action (widget_class, "win.export-animation", NULL,
                                   export_animation_action);
  gtk_widget_class_install_action (widget_class, "win.solve", NULL, solve_action);
  gtk_widget_class_install_action (widget_class, "win.reset-camera", NULL, reset_camera_action);
  gtk_widget_class_install_action (widget_class, "win.view-front", NULL, scene_camera_action);
  gtk_widget_class_install_action (widget_class, "win.view-side", NULL, scene_camera_action);
  gtk_widget_class_install_action (widget_class, "win.view-top", NULL, scene_camera_action);
  gtk_widget_class_install_action (widget_class, "win.frame-all", NULL, scene_camera_action);
  gtk_widget_class_install_action (widget_class, "win.frame-selection", NULL,
                                   scene_camera_action);
  gtk_widget_class_install_property_action (widget_class, "win.orthographic", "orthographic");
  gtk_widget_class_install_action (widget_class, "win.copy-keyframe", NULL,
                                   time_bar_forward_action);
  gtk_widget_class_install_action (widget_class, "win.paste-keyframe", NULL,
                                   time_bar_forward_action);
  gtk_widget_class_install_action (widget_class, "win.set-keyframe", NULL,
                                   time_bar_forward_action);
  gtk_widget_class_install_action (widget_class, "win.delete-keyframe", NULL,
                                   time_bar_forward_action);
  gtk_widget_class_install_action (widget_class, "win.toggle-playback", NULL,
                                   time_bar_forward_action);
  gtk_widget_class_install_property_action (widget_class, "win.show-messages", "show-messages");
  gtk_widget_class_install_property_action (widget_class, "win.show-joint-axes",
                                            "show-joint-axes");
  gtk_widget_class_install_property_action (widget_class, "win.edit-mode", "edit-mode");

  g_type_ensure (KM_TYPE_GRAPH_VIEW);
  g_type_ensure (KM_TYPE_ITEM_TREE);
  g_type_ensure (KM_TYPE_JOINT_INSPECTOR);
  g_type_ensure (KM_TYPE_JOINT_PANEL);
  g_type_ensure (KM_TYPE_MESSAGE_VIEW);
  g_type_ensure (KM_TYPE_SCENE_VIEW);
  g_type_ensure (KM_TYPE_TIME_BAR);
}

static void
km_window_init (KmWindow *self)
{
  GtkDropTarget *drop;

  gtk_widget_init_template (GTK_WIDGET (self));

  self->show_messages = TRUE;
  self->document = km_document_new ();
  g_object_bind_property (self->document, "title", self, "title", G_BINDING_SYNC_CREATE);
  g_signal_connect_object (self->document, "notify::skeleton",
                           G_CALLBACK (document_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->document, "notify::targets",
                           G_CALLBACK (document_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->document, "notify::animation",
                           G_CALLBACK (document_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->document, "notify::solving",
                           G_CALLBACK (document_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->document, "notify::can-undo",
                           G_CALLBACK (document_history_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->document, "notify::can-redo",
                           G_CALLBACK (document_history_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->scene_view, "notify::show-joint-axes",
                           G_CALLBACK (scene_view_show_joint_axes_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->scene_view, "notify::edit-mode",
                           G_CALLBACK (scene_view_edit_mode_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->scene_view, "notify::orthographic",
                           G_CALLBACK (scene_view_orthographic_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->document, "notify::targets",
                           G_CALLBACK (update_keyframe_actions), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->document, "notify::current-frame",
                           G_CALLBACK (update_keyframe_actions), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->time_bar, "notify::has-clipboard",
                           G_CALLBACK (update_keyframe_actions), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->document, "notify::project",
                           G_CALLBACK (watch_selection), self, G_CONNECT_SWAPPED);
  /* A model, targets or an animation the selected item comes to hold */
  g_signal_connect_object (self->document, "notify::skeleton",
                           G_CALLBACK (update_save_item_action), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->document, "notify::targets",
                           G_CALLBACK (update_save_item_action), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->document, "notify::animation",
                           G_CALLBACK (update_save_item_action), self, G_CONNECT_SWAPPED);
  document_changed_cb (self);
  document_history_changed_cb (self);
  update_keyframe_actions (self);
  watch_selection (self);

  km_item_tree_set_document (self->item_tree, self->document);
  km_joint_inspector_set_document (self->joint_inspector, self->document);
  g_signal_connect_object (self->joint_inspector, "notify::saving-file",
                           G_CALLBACK (update_spinner), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->document, "skeleton-save-ended",
                           G_CALLBACK (skeleton_save_ended_cb), self, G_CONNECT_SWAPPED);
  /* The project file: watched while it is the document's, checked again whenever the
   * document reads or writes it (a save's end, a project opened). */
  g_signal_connect_object (self->document, "notify::file",
                           G_CALLBACK (watch_file), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->document, "notify::saving",
                           G_CALLBACK (check_disk), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->document, "notify::saving",
                           G_CALLBACK (saving_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->document, "notify::project",
                           G_CALLBACK (check_disk), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->document, "notify::project",
                           G_CALLBACK (hide_save_failed), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->document, "notify::modified",
                           G_CALLBACK (update_disk_label), self, G_CONNECT_SWAPPED);
  /* The files the items were read from: watched as items come and go. */
  self->item_watch = km_item_file_watch_new (self->document);
  g_signal_connect_object (self->item_watch, "changed", G_CALLBACK (item_files_changed_cb),
                           self, G_CONNECT_SWAPPED);
  gtk_widget_insert_action_group (GTK_WIDGET (self), "skeleton",
                                  km_joint_inspector_get_actions (self->joint_inspector));
  setup_item_tree_delete (self);
  setup_escape_key (self);
  km_joint_panel_set_document (self->joint_panel, self->document);
  km_message_view_set_document (self->message_view, self->document);
  km_scene_view_set_document (self->scene_view, self->document);
  km_time_bar_set_document (self->time_bar, self->document);
  km_graph_view_set_document (self->graph_view, self->document);

  self->autosave = km_autosave_new (self->document);
  g_signal_connect_object (self->autosave, "will-write", G_CALLBACK (autosave_will_write_cb),
                           self, G_CONNECT_SWAPPED);
  setup_settings (self);

  drop = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);
  g_signal_connect_object (drop, "drop", G_CALLBACK (drop_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop));
}

KmWindow *
km_window_new (GtkApplication *application)
{
  g_return_val_if_fail (application == NULL || GTK_IS_APPLICATION (application), NULL);

  return g_object_new (KM_TYPE_WINDOW, "application", application, NULL);
}

KmDocument *
km_window_get_document (KmWindow *self)
{
  g_return_val_if_fail (KM_IS_WINDOW (self), NULL);

  return self->document;
}

/**
 * km_window_open_file:
 *
 * Opens a project (asking first when the open one has unsaved changes) or imports a model,
 * targets or animation file into it. The file is read on a worker thread, after any file
 * still being opened (KmWindow:loading is TRUE meanwhile); a failure is then reported in
 * the message view and leaves the document as it was.
 *
 * Returns: whether the file is being opened (FALSE while the question is open)
 */
gboolean
km_window_open_file (KmWindow *self,
                     GFile    *file)
{
  g_return_val_if_fail (KM_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);

  /* (Nothing to ask about: the file is not even looked at here.) */
  if (!km_document_get_modified (self->document) || !is_project_file (file))
    {
      open_now (self, file);
      return TRUE;
    }

  ask_then (self, PENDING_OPEN, file);
  return FALSE;
}

/**
 * km_window_get_loading:
 *
 * Returns: whether files are being opened in the background
 */
gboolean
km_window_get_loading (KmWindow *self)
{
  g_return_val_if_fail (KM_IS_WINDOW (self), FALSE);

  return self->opening != NULL || !g_queue_is_empty (&self->open_queue);
}

/**
 * km_window_get_saving:
 *
 * Returns: whether the project is being written in the background
 */
gboolean
km_window_get_saving (KmWindow *self)
{
  g_return_val_if_fail (KM_IS_WINDOW (self), FALSE);

  return self->saving_file != NULL;
}

/* Opens the built-in example, asking first about unsaved changes. */
gboolean
km_window_open_example (KmWindow *self)
{
  g_return_val_if_fail (KM_IS_WINDOW (self), FALSE);

  ask_then (self, PENDING_EXAMPLE, NULL);
  return self->question == NULL && km_document_get_skeleton (self->document) != NULL;
}

/**
 * km_window_get_question:
 *
 * The unsaved-changes question while it is open (a GtkDialog: answer it with
 * gtk_dialog_response and GTK_RESPONSE_ACCEPT to save, GTK_RESPONSE_REJECT to discard,
 * GTK_RESPONSE_CANCEL to keep things as they are), else NULL. After a save that found the
 * project file changed by another program, the question whether to write over it
 * (GTK_RESPONSE_ACCEPT: Overwrite; GTK_RESPONSE_REJECT: Reload the file; CANCEL), or,
 * when the file was removed, to write it again (ACCEPT, CANCEL).
 *
 * Returns: (transfer none) (nullable): the dialog
 */
GtkWindow *
km_window_get_question (KmWindow *self)
{
  g_return_val_if_fail (KM_IS_WINDOW (self), NULL);

  return self->question;
}

/* What the worker of km_window_export_image_async() writes. */
typedef struct
{
  GdkTexture *texture;   /* in memory: any thread may read it */
  GFile      *file;
} ImageJob;

static void
image_job_free (ImageJob *job)
{
  g_object_unref (job->texture);
  g_object_unref (job->file);
  g_free (job);
}

static void
export_image_thread (GTask        *task,
                     gpointer      source_object,
                     gpointer      task_data,
                     GCancellable *cancellable)
{
  ImageJob *job = task_data;
  g_autoptr(GBytes) png = gdk_texture_save_to_png_bytes (job->texture);
  const char *path = g_file_peek_path (job->file);
  GError *error = NULL;

  /* A local file as every saved file is written (its permissions kept, through links). */
  if (path != NULL
      ? km_format_save_data (path, g_bytes_get_data (png, NULL), g_bytes_get_size (png), &error)
      : g_file_replace_contents (job->file, g_bytes_get_data (png, NULL), g_bytes_get_size (png),
                                 NULL, FALSE, G_FILE_CREATE_REPLACE_DESTINATION, NULL,
                                 cancellable, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

/* @texture's pixels in a memory texture: a GL texture may only be read where its context
 * lives (this thread). */
static GdkTexture *
memory_texture (GdkTexture *texture)
{
  int width = gdk_texture_get_width (texture);
  int height = gdk_texture_get_height (texture);
  gsize stride = (gsize) width * 4;
  guchar *pixels;
  g_autoptr(GBytes) bytes = NULL;

  if (GDK_IS_MEMORY_TEXTURE (texture))
    return g_object_ref (texture);
  pixels = g_malloc (stride * height);
  gdk_texture_download (texture, pixels, stride);
  bytes = g_bytes_new_take (pixels, stride * height);
  return gdk_memory_texture_new (width, height, GDK_MEMORY_DEFAULT, bytes, stride);
}

/**
 * km_window_export_image_async:
 *
 * Writes the scene view, as shown now, to a PNG file: the image is taken on the calling
 * (main) thread, encoded and written on a worker. It is the scene as view mode draws it,
 * also in edit mode (no gizmo, no hover highlight), without the view's focus ring.
 */
void
km_window_export_image_async (KmWindow            *self,
                              GFile               *file,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  ImageJob *job;

  g_return_if_fail (KM_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (file));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, km_window_export_image_async);
  /* The scene as view mode draws it: not edit mode's gizmo and hover highlight. The
   * window goes on showing them (the view draws again as it was). */
  g_object_set (self->scene_view, "export-look", TRUE, NULL);
  texture = km_scene_view_grab_texture (self->scene_view);
  g_object_set (self->scene_view, "export-look", FALSE, NULL);
  if (texture == NULL)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_FAILED, "%s",
                               _("The scene is not shown, so there is no image to export."));
      return;
    }
  job = g_new0 (ImageJob, 1);
  job->texture = memory_texture (texture);
  job->file = g_object_ref (file);
  /* The window is the task's source object: it must not be finalized on the worker. */
  km_task_run_in_thread_boolean (g_steal_pointer (&task), export_image_thread, job,
                                 (GDestroyNotify) image_job_free);
}

gboolean
km_window_export_image_finish (KmWindow      *self,
                               GAsyncResult  *result,
                               GError       **error)
{
  g_return_val_if_fail (KM_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * km_window_offer_recovery:
 *
 * Shows a bar offering to recover @file, unsaved work an earlier session autosaved
 * (km_autosave_list_recovery). Recovering replaces the project; either answer removes the
 * autosave, closing the bar keeps it for next time.
 */
/* The locale's date and time (%c) without the padding GLib puts in it: its %e pads a
 * one-digit day with a figure space (U+2007), which reads as a double space ("Dec  1"). */
static char *
format_date_time (GDateTime *time)
{
  g_autofree char *text = g_date_time_format (time, "%c");
  GString *out;

  if (text == NULL)
    return NULL;
  out = g_string_new (NULL);
  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (c == 0x2007 || g_unichar_isspace (c))
        {
          if (out->len > 0 && out->str[out->len - 1] != ' ')
            g_string_append_c (out, ' ');
        }
      else
        g_string_append_unichar (out, c);
    }
  if (out->len > 0 && out->str[out->len - 1] == ' ')
    g_string_truncate (out, out->len - 1);
  return g_string_free (out, FALSE);
}

void
km_window_offer_recovery (KmWindow *self,
                          GFile    *file)
{
  g_autofree char *text = NULL;
  g_autoptr(GFileInfo) info = NULL;
  g_autoptr(GDateTime) time = NULL;
  g_autofree char *when = NULL;
  g_autoptr(GFile) project = NULL;
  g_autofree char *name = NULL;

  g_return_if_fail (KM_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (file));

  project = km_autosave_dup_project_file (file);
  name = project != NULL ? display_basename (project) : NULL;

  g_set_object (&self->recovery_file, file);
  info = g_file_query_info (file, G_FILE_ATTRIBUTE_TIME_MODIFIED, G_FILE_QUERY_INFO_NONE,
                            NULL, NULL);
  time = info ? g_file_info_get_modification_date_time (info) : NULL;
  when = time ? format_date_time (time) : NULL;
  if (name != NULL && when != NULL)
    /* Translators: a file name, then a date and time */
    text = g_strdup_printf (_("Kinema ended without saving your work on “%s”. Recover the "
                              "project autosaved on %s?"), name, when);
  else if (name != NULL)
    /* Translators: %s is a file name */
    text = g_strdup_printf (_("Kinema ended without saving your work on “%s”. Recover the "
                              "autosaved project?"), name);
  else if (when != NULL)
    /* Translators: %s is a date and time */
    text = g_strdup_printf (_("Kinema ended without saving your work. Recover the project "
                              "autosaved on %s?"), when);
  else
    text = g_strdup (_("Kinema ended without saving your work. Recover the autosaved project?"));
  gtk_label_set_text (self->recovery_label, text);
  gtk_info_bar_set_revealed (self->recovery_bar, TRUE);
}

/* The bar saying that another program changed the project file (a GtkRevealer, revealed
 * while it shows; its Reload button activates win.reload-project). */
GtkWidget *
km_window_get_disk_change_bar (KmWindow *self)
{
  g_return_val_if_fail (KM_IS_WINDOW (self), NULL);

  return GTK_WIDGET (self->disk_bar);
}

/* The recovery bar (a GtkInfoBar: answer with GTK_RESPONSE_ACCEPT to recover,
 * GTK_RESPONSE_REJECT to discard). */
GtkWidget *
km_window_get_recovery_bar (KmWindow *self)
{
  g_return_val_if_fail (KM_IS_WINDOW (self), NULL);

  return GTK_WIDGET (self->recovery_bar);
}

/* The window's autosave (it follows the autosave-interval setting when there is one). */
KmAutosave *
km_window_get_autosave (KmWindow *self)
{
  g_return_val_if_fail (KM_IS_WINDOW (self), NULL);

  return self->autosave;
}

GtkWidget *
km_window_get_scene_view (KmWindow *self)
{
  g_return_val_if_fail (KM_IS_WINDOW (self), NULL);

  return GTK_WIDGET (self->scene_view);
}

GtkWidget *
km_window_get_item_tree (KmWindow *self)
{
  g_return_val_if_fail (KM_IS_WINDOW (self), NULL);

  return GTK_WIDGET (self->item_tree);
}

GtkWidget *
km_window_get_joint_panel (KmWindow *self)
{
  g_return_val_if_fail (KM_IS_WINDOW (self), NULL);

  return GTK_WIDGET (self->joint_panel);
}

GtkWidget *
km_window_get_time_bar (KmWindow *self)
{
  g_return_val_if_fail (KM_IS_WINDOW (self), NULL);

  return GTK_WIDGET (self->time_bar);
}
