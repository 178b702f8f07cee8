/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-application"

#include "config.h"

#include <signal.h>
#include <string.h>
#include <glib/gi18n.h>
#include <glib-unix.h>

#include "km-application.h"
#include "km-autosave.h"
#include "km-body-handler.h"
#include "km-format.h"
#include "km-preferences-window.h"
#include "km-window.h"

/* How many recently used files File → Open Recent lists without settings. */
#define DEFAULT_RECENT_LIMIT 10

/* The signals that end Kinema as Quit does (quit_signal_cb). */
static const int quit_signals[] = { SIGTERM, SIGINT, SIGHUP };

struct _KmApplication
{
  GtkApplication    parent_instance;

  /* Owned */
  GBindingGroup    *history_bindings;  /* the active window's document → app.undo/redo/save */
  GSettings        *settings;          /* NULL when the schema is not installed */
  char             *initial_share;     /* $KINEMA_CHOREONOID_SHARE as Kinema started */

  gboolean          recovery_offered;
  GSource          *signal_sources[G_N_ELEMENTS (quit_signals)];   /* quit_signal_cb */

  /* Borrowed */
  GtkRecentManager *recent;
};

/* The quit signals' sources once one of them came (quit_signal_cb): destroyed, and kept
 * for as long as the process runs. */
static GSource *spent_signal_sources[G_N_ELEMENTS (quit_signals)];

G_DEFINE_FINAL_TYPE (KmApplication, km_application, GTK_TYPE_APPLICATION)

static KmWindow *
get_or_create_window (KmApplication *self,
                      gboolean      *created)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (self));

  *created = window == NULL;
  if (window == NULL)
    window = GTK_WINDOW (km_window_new (GTK_APPLICATION (self)));
  return KM_WINDOW (window);
}

static void
open_activated (GSimpleAction *action,
                GVariant      *parameter,
                gpointer       user_data)
{
  KmApplication *self = user_data;
  gboolean created;
  KmWindow *window = get_or_create_window (self, &created);

  gtk_window_present (GTK_WINDOW (window));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.open", NULL);
}

/* File and edit actions act on the active window (opening one when there is none). */
static void
forward_activated (GSimpleAction *action,
                   GVariant      *parameter,
                   gpointer       user_data)
{
  KmApplication *self = user_data;
  gboolean created;
  KmWindow *window = get_or_create_window (self, &created);
  g_autofree char *name = g_strconcat ("win.", g_action_get_name (G_ACTION (action)), NULL);

  gtk_window_present (GTK_WINDOW (window));
  gtk_widget_activate_action_variant (GTK_WIDGET (window), name, parameter);
}

/* Closing each window asks about its unsaved changes; the application ends with the last. */
static void
quit_activated (GSimpleAction *action,
                GVariant      *parameter,
                gpointer       user_data)
{
  GList *windows = g_list_copy_deep (gtk_application_get_windows (GTK_APPLICATION (user_data)),
                                     (GCopyFunc) (void (*) (void)) g_object_ref, NULL);

  for (GList *l = windows; l != NULL; l = l->next)
    gtk_window_close (l->data);
  g_list_free_full (windows, g_object_unref);
}

/* SIGTERM, SIGINT or SIGHUP (a logout, Ctrl+C in the terminal, kill): Kinema ends as Quit
 * ends it, but without asking about unsaved changes. Unsaved work is autosaved once more
 * and kept, so the next start offers it for recovery as after a crash; the windows then go
 * as they do when closed, which removes what an orderly end removes (each autosave's lock
 * file, the autosaves of saved work). */
static gboolean
quit_signal_cb (gpointer user_data)
{
  KmApplication *self = user_data;
  GList *windows;

  /* Once. From now on these signals end Kinema at once (their default action, after the
   * temporary file of a save under way is removed: km_format_remove_temporary_files()),
   * even while the autosave write below hangs (a network file system gone away): these
   * callbacks run from the main loop, which that write keeps waiting, so they could not
   * do it. The handler set here replaces GLib's, for the rest of the process: GLib gives
   * a signal its default action back when the last source of it is freed, and frees the
   * source dispatched now only after this returns (a second signal while Kinema winds up
   * then ended it without removing the temporary file), so the sources are destroyed
   * but never freed. */
  for (guint i = 0; i < G_N_ELEMENTS (self->signal_sources); i++)
    {
      if (self->signal_sources[i] == NULL)
        continue;
      g_source_destroy (self->signal_sources[i]);
      if (spent_signal_sources[i] == NULL)
        spent_signal_sources[i] = g_steal_pointer (&self->signal_sources[i]);
      else
        g_clear_pointer (&self->signal_sources[i], g_source_unref);   /* (one is enough) */
      km_format_remove_temporary_files_on_signal (quit_signals[i]);
    }
  windows = g_list_copy_deep (gtk_application_get_windows (GTK_APPLICATION (self)),
                              (GCopyFunc) (void (*) (void)) g_object_ref, NULL);
  for (GList *l = windows; l != NULL; l = l->next)
    if (KM_IS_WINDOW (l->data) && km_window_get_autosave (l->data) != NULL)
      {
        g_autoptr(GError) error = NULL;

        if (!km_autosave_keep (km_window_get_autosave (l->data), &error))
          g_warning ("Autosave failed: %s", error->message);
      }
  for (GList *l = windows; l != NULL; l = l->next)
    gtk_window_destroy (l->data);
  g_list_free_full (windows, g_object_unref);
  g_application_quit (G_APPLICATION (self));
  return G_SOURCE_REMOVE;
}

/* When @info was last used: opened or saved again (visited, modified), newest of both. */
static gint64
recent_last_used (GtkRecentInfo *info)
{
  GDateTime *visited = gtk_recent_info_get_visited (info);
  GDateTime *modified = gtk_recent_info_get_modified (info);
  gint64 t = G_MININT64;

  if (visited != NULL)
    t = MAX (t, g_date_time_to_unix (visited) * G_USEC_PER_SEC
                + g_date_time_get_microsecond (visited));
  if (modified != NULL)
    t = MAX (t, g_date_time_to_unix (modified) * G_USEC_PER_SEC
                + g_date_time_get_microsecond (modified));
  return t;
}

/* Newest first; the same time by URI, so that the order is stable. */
static int
compare_recent (gconstpointer a,
                gconstpointer b)
{
  GtkRecentInfo *ia = *(GtkRecentInfo **) a;
  GtkRecentInfo *ib = *(GtkRecentInfo **) b;
  gint64 ta = recent_last_used (ia);
  gint64 tb = recent_last_used (ib);

  if (ta != tb)
    return ta > tb ? -1 : 1;
  return g_strcmp0 (gtk_recent_info_get_uri (ia), gtk_recent_info_get_uri (ib));
}

/* The folder of @info's file, split into its names (root first). */
static char **
recent_folder_names (GtkRecentInfo *info)
{
  g_autoptr(GFile) file = g_file_new_for_uri (gtk_recent_info_get_uri (info));
  g_autoptr(GFile) parent = g_file_get_parent (file);
  g_autofree char *name = parent != NULL ? g_file_get_parse_name (parent) : g_strdup ("");

  return g_strsplit (name, G_DIR_SEPARATOR_S, -1);
}

/* The last @depth names of @names joined ("model/SR1"), the whole folder when it has no
 * more. */
static char *
folder_tail (char  **names,
             guint   depth)
{
  guint n = g_strv_length (names);

  if (depth >= n)
    return g_strjoinv (G_DIR_SEPARATOR_S, names);
  return g_strjoinv (G_DIR_SEPARATOR_S, names + n - depth);
}

/* The menu labels of @infos: their names, and for a name listed more than once as much of
 * each one's folder as tells them apart ("SR1.body — model/SR1"). */
static GPtrArray *
recent_labels (GPtrArray *infos)
{
  GPtrArray *labels = g_ptr_array_new_full (infos->len, g_free);

  for (guint i = 0; i < infos->len; i++)
    {
      const char *name = gtk_recent_info_get_display_name (infos->pdata[i]);
      g_autoptr(GPtrArray) same = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
      g_auto(GStrv) own = recent_folder_names (infos->pdata[i]);
      g_autofree char *tail = NULL;
      guint depth;

      for (guint j = 0; j < infos->len; j++)
        if (j != i && g_strcmp0 (gtk_recent_info_get_display_name (infos->pdata[j]), name) == 0)
          g_ptr_array_add (same, recent_folder_names (infos->pdata[j]));
      if (same->len == 0)
        {
          g_ptr_array_add (labels, g_strdup (name));
          continue;
        }
      /* The fewest folder names that no other file of that name ends in. */
      for (depth = 1; depth < g_strv_length (own); depth++)
        {
          g_autofree char *mine = folder_tail (own, depth);
          gboolean unique = TRUE;

          for (guint k = 0; k < same->len && unique; k++)
            {
              g_autofree char *theirs = folder_tail (same->pdata[k], depth);

              unique = strcmp (mine, theirs) != 0;
            }
          if (unique)
            break;
        }
      tail = folder_tail (own, depth);
      /* Translators: a recently used file in File → Open Recent, where another of that
       * name is listed too: its name, then the end of its folder ("model/SR1") */
      g_ptr_array_add (labels, g_strdup_printf (_("%s — %s"), name, tail));
    }
  return labels;
}

/* @text (a file or folder name) as a menu label that shows it as it is: GTK takes an
 * underscore in a menu item's label for a mnemonic (slider_gear.xml would show as
 * slidergear.xml), and a doubled one for a plain underscore. */
static char *
menu_label_escape (const char *text)
{
  g_auto(GStrv) parts = g_strsplit (text, "_", -1);

  return g_strjoinv ("__", parts);
}

/* File → Open Recent: the files Kinema opened or saved, used last first. */
static void
update_recent_menu (KmApplication *self)
{
  GMenu *menu = gtk_application_get_menu_by_id (GTK_APPLICATION (self), "recent-files");
  GList *all;
  g_autoptr(GPtrArray) infos = NULL;
  g_autoptr(GPtrArray) labels = NULL;
  guint limit = DEFAULT_RECENT_LIMIT;

  if (menu == NULL)
    return;
  if (self->settings != NULL)
    limit = g_settings_get_uint (self->settings, "recent-files-limit");
  g_menu_remove_all (menu);
  infos = g_ptr_array_new_with_free_func ((GDestroyNotify) gtk_recent_info_unref);
  all = gtk_recent_manager_get_items (self->recent);
  for (GList *l = all; l != NULL; l = l->next)
    {
      GtkRecentInfo *info = l->data;

      /* Only what Kinema opened or saved (KM_RECENT_GROUP): the file chooser adds exported
       * files (images, animations) under the application's name too. */
      if (gtk_recent_info_has_application (info, g_get_application_name ())
          && gtk_recent_info_has_group (info, KM_RECENT_GROUP)
          && gtk_recent_info_exists (info))
        g_ptr_array_add (infos, gtk_recent_info_ref (info));
    }
  g_list_free_full (all, (GDestroyNotify) gtk_recent_info_unref);
  /* The manager lists them as they were first added: the menu wants the last used. */
  g_ptr_array_sort (infos, compare_recent);
  if (infos->len > limit)
    g_ptr_array_set_size (infos, limit);

  /* Told apart among those listed only. */
  labels = recent_labels (infos);
  for (guint i = 0; i < infos->len; i++)
    {
      g_autofree char *label = menu_label_escape (labels->pdata[i]);
      g_autoptr(GMenuItem) item = g_menu_item_new (label, NULL);

      g_menu_item_set_action_and_target_value (item, "app.open-recent",
                                               g_variant_new_string (gtk_recent_info_get_uri (infos->pdata[i])));
      g_menu_append_item (menu, item);
    }
}

static void
active_window_changed_cb (KmApplication *self)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (self));
  KmDocument *document = KM_IS_WINDOW (window) ? km_window_get_document (KM_WINDOW (window)) : NULL;

  g_binding_group_set_source (self->history_bindings, document);
  if (document == NULL)
    {
      g_simple_action_set_enabled (G_SIMPLE_ACTION (g_action_map_lookup_action (G_ACTION_MAP (self), "undo")), FALSE);
      g_simple_action_set_enabled (G_SIMPLE_ACTION (g_action_map_lookup_action (G_ACTION_MAP (self), "redo")), FALSE);
    }
}

/* Trusted handler folders only grow while Kinema runs: a handler already loaded from a
 * folder stays loaded (modules are never unloaded), so dropping the folder takes effect at
 * the next start. */
static void
settings_directories_changed_cb (KmApplication *self)
{
  KmBodyHandlerLoader *loader = km_body_handler_loader_get_default ();
  g_auto(GStrv) wanted = g_settings_get_strv (self->settings, "trusted-handler-directories");
  g_auto(GStrv) known = km_body_handler_loader_get_directories (loader);

  for (guint i = 0; wanted[i] != NULL; i++)
    {
      g_autofree char *directory = g_canonicalize_filename (wanted[i], NULL);

      if (!g_strv_contains ((const char * const *) known, directory))
        km_body_handler_loader_add_directory (loader, directory);
    }
}

/* ${SHARE} in Choreonoid projects: the preference when set, else what the environment said. */
static void
settings_share_changed_cb (KmApplication *self)
{
  g_autofree char *share = g_settings_get_string (self->settings, "choreonoid-share-directory");

  if (share[0] != '\0')
    g_setenv ("KINEMA_CHOREONOID_SHARE", share, TRUE);
  else if (self->initial_share != NULL)
    g_setenv ("KINEMA_CHOREONOID_SHARE", self->initial_share, TRUE);
  else
    g_unsetenv ("KINEMA_CHOREONOID_SHARE");
}

static void
preferences_activated (GSimpleAction *action,
                       GVariant      *parameter,
                       gpointer       user_data)
{
  KmApplication *self = user_data;
  GtkWindow *parent = gtk_application_get_active_window (GTK_APPLICATION (self));
  KmPreferencesWindow *window;

  if (self->settings == NULL)
    {
      if (KM_IS_WINDOW (parent))
        km_document_log (km_window_get_document (KM_WINDOW (parent)), G_LOG_LEVEL_WARNING,
                         _("Preferences are unavailable: the settings schema %s is not "
                           "installed."), APP_ID);
      return;
    }
  /* Not one of the application's windows: those are editor windows (KmWindow). */
  window = km_preferences_window_new (self->settings);
  gtk_window_set_transient_for (GTK_WINDOW (window), parent);
  gtk_window_present (GTK_WINDOW (window));
}

static void
about_activated (GSimpleAction *action,
                 GVariant      *parameter,
                 gpointer       user_data)
{
  static const char *authors[] = { "The Kinema authors", NULL };
  GtkWindow *parent = gtk_application_get_active_window (GTK_APPLICATION (user_data));

  gtk_show_about_dialog (parent,
                         "program-name", "Kinema",
                         "logo-icon-name", APP_ID,
                         "version", PACKAGE_VERSION,
                         "comments", _("Edit articulated skeletons, key their end effectors "
                                       "and solve the motion with inverse kinematics"),
                         "license-type", GTK_LICENSE_GPL_3_0,
                         "website", "https://kinema.github.io/",
                         "authors", authors,
                         "copyright", "© 2026 The Kinema authors",
                         NULL);
}

static const GActionEntry app_actions[] = {
  { .name = "new", .activate = forward_activated },
  { .name = "open", .activate = open_activated },
  { .name = "open-recent", .activate = forward_activated, .parameter_type = "s" },
  { .name = "save", .activate = forward_activated },
  { .name = "save-as", .activate = forward_activated },
  { .name = "undo", .activate = forward_activated },
  { .name = "redo", .activate = forward_activated },
  { .name = "quit", .activate = quit_activated },
  { .name = "about", .activate = about_activated },
  { .name = "preferences", .activate = preferences_activated },
};

static void
km_application_startup (GApplication *application)
{
  static const struct
  {
    const char *action;
    const char *accels[3];
  } accels[] = {
    { "app.new", { "<Control>n", NULL } },
    { "app.open", { "<Control>o", NULL } },
    { "app.save", { "<Control>s", NULL } },
    { "app.save-as", { "<Control><Shift>s", NULL } },
    { "app.undo", { "<Control>z", NULL } },
    { "app.redo", { "<Control><Shift>z", NULL } },
    { "app.quit", { "<Control>q", NULL } },
    { "app.preferences", { "<Control>comma", NULL } },
    { "win.solve", { "F5", NULL } },
    /* Not Alt+C/Alt+V: Alt+V opens the View menu (Alt+letter belongs to the menu bar). */
    { "win.copy-keyframe", { "<Control><Shift>c", NULL } },
    { "win.paste-keyframe", { "<Control><Shift>v", NULL } },
    /* Not K, Shift+K or Space alone: those are text in a field. Not Ctrl+Space: input
     * methods (fcitx) take it to switch the input language. */
    { "win.set-keyframe", { "<Control>k", NULL } },
    { "win.delete-keyframe", { "<Control><Shift>k", NULL } },
    { "win.toggle-playback", { "<Control>p", NULL } },
    { "win.export-image", { "<Control><Shift>e", NULL } },
    { "win.reset-camera", { "<Control>0", NULL } },
    { "win.show-joint-axes", { "<Control>j", NULL } },
    { "win.show-messages", { "<Control>m", NULL } },
    { "win.show-help-overlay", { "<Control>question", NULL } },
  };

  KmApplication *self = KM_APPLICATION (application);
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr(GSettingsSchema) schema = NULL;

  G_APPLICATION_CLASS (km_application_parent_class)->startup (application);

  /* The editor's own style rules; GtkApplication (unlike AdwApplication) loads none. */
  {
    g_autoptr(GtkCssProvider) css = gtk_css_provider_new ();

    gtk_css_provider_load_from_resource (css, "/io/github/kinema/Kinema/style.css");
    gtk_style_context_add_provider_for_display (gdk_display_get_default (),
                                                GTK_STYLE_PROVIDER (css),
                                                GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
  }

  self->initial_share = g_strdup (g_getenv ("KINEMA_CHOREONOID_SHARE"));
  if (source != NULL)
    schema = g_settings_schema_source_lookup (source, APP_ID, TRUE);
  if (schema != NULL)
    {
      self->settings = g_settings_new (APP_ID);
      g_signal_connect_object (self->settings, "changed::trusted-handler-directories",
                               G_CALLBACK (settings_directories_changed_cb), self,
                               G_CONNECT_SWAPPED);
      g_signal_connect_object (self->settings, "changed::choreonoid-share-directory",
                               G_CALLBACK (settings_share_changed_cb), self, G_CONNECT_SWAPPED);
      settings_directories_changed_cb (self);
      settings_share_changed_cb (self);
    }

  g_action_map_add_action_entries (G_ACTION_MAP (application), app_actions,
                                   G_N_ELEMENTS (app_actions), application);
  for (guint i = 0; i < G_N_ELEMENTS (accels); i++)
    gtk_application_set_accels_for_action (GTK_APPLICATION (application), accels[i].action,
                                           accels[i].accels);

  gtk_window_set_default_icon_name (APP_ID);

  self->history_bindings = g_binding_group_new ();
  g_binding_group_bind (self->history_bindings, "can-undo",
                        g_action_map_lookup_action (G_ACTION_MAP (self), "undo"), "enabled",
                        G_BINDING_SYNC_CREATE);
  g_binding_group_bind (self->history_bindings, "can-redo",
                        g_action_map_lookup_action (G_ACTION_MAP (self), "redo"), "enabled",
                        G_BINDING_SYNC_CREATE);
  /* One save at a time: Save and Save As wait while the document is being written. */
  g_binding_group_bind (self->history_bindings, "saving",
                        g_action_map_lookup_action (G_ACTION_MAP (self), "save"), "enabled",
                        G_BINDING_SYNC_CREATE | G_BINDING_INVERT_BOOLEAN);
  g_binding_group_bind (self->history_bindings, "saving",
                        g_action_map_lookup_action (G_ACTION_MAP (self), "save-as"), "enabled",
                        G_BINDING_SYNC_CREATE | G_BINDING_INVERT_BOOLEAN);
  g_signal_connect (self, "notify::active-window", G_CALLBACK (active_window_changed_cb), NULL);
  active_window_changed_cb (self);

  for (guint i = 0; i < G_N_ELEMENTS (quit_signals); i++)
    {
      self->signal_sources[i] = g_unix_signal_source_new (quit_signals[i]);
      g_source_set_callback (self->signal_sources[i], quit_signal_cb, self, NULL);
      g_source_set_static_name (self->signal_sources[i], "[kinema] quit signal");
      g_source_attach (self->signal_sources[i], NULL);
    }

  self->recent = gtk_recent_manager_get_default ();
  g_signal_connect_object (self->recent, "changed", G_CALLBACK (update_recent_menu), self,
                           G_CONNECT_SWAPPED);
  if (self->settings != NULL)
    g_signal_connect_object (self->settings, "changed::recent-files-limit",
                             G_CALLBACK (update_recent_menu), self, G_CONNECT_SWAPPED);
  update_recent_menu (self);
}

/* No file: the built-in example (skeleton + targets, solved). */
static void
km_application_activate (GApplication *application)
{
  KmApplication *self = KM_APPLICATION (application);
  gboolean created;
  KmWindow *window = get_or_create_window (self, &created);

  if (created)
    km_window_open_example (window);
  km_application_offer_recovery (self, window);
  gtk_window_present (GTK_WINDOW (window));
}

static void
km_application_open (GApplication  *application,
                     GFile        **files,
                     int            n_files,
                     const char    *hint)
{
  KmWindow *window = km_window_new (GTK_APPLICATION (application));

  for (int i = 0; i < n_files; i++)
    km_window_open_file (window, files[i]);
  km_application_offer_recovery (KM_APPLICATION (application), window);
  gtk_window_present (GTK_WINDOW (window));
}

static void
km_application_dispose (GObject *object)
{
  KmApplication *self = KM_APPLICATION (object);

  for (guint i = 0; i < G_N_ELEMENTS (self->signal_sources); i++)
    if (self->signal_sources[i] != NULL)
      {
        g_source_destroy (self->signal_sources[i]);
        g_clear_pointer (&self->signal_sources[i], g_source_unref);
      }
  g_clear_object (&self->history_bindings);
  g_clear_object (&self->settings);

  G_OBJECT_CLASS (km_application_parent_class)->dispose (object);
}

static void
km_application_finalize (GObject *object)
{
  KmApplication *self = KM_APPLICATION (object);

  g_free (self->initial_share);

  G_OBJECT_CLASS (km_application_parent_class)->finalize (object);
}

static void
km_application_class_init (KmApplicationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  object_class->dispose = km_application_dispose;
  object_class->finalize = km_application_finalize;

  app_class->startup = km_application_startup;
  app_class->activate = km_application_activate;
  app_class->open = km_application_open;
}

static void
km_application_init (KmApplication *self)
{
  /* Translators: what follows the options in `kinema --help`'s usage line */
  g_application_set_option_context_parameter_string (G_APPLICATION (self), _("[FILE…]"));
  g_application_set_option_context_summary (G_APPLICATION (self),
                                            /* Translators: `kinema --help`'s summary */
                                            _("Edit articulated skeletons and pose them with "
                                              "inverse kinematics. Opens each FILE given: a "
                                              "project (.cnoid), a model or a targets file."));
}

KmApplication *
km_application_new (void)
{
  return g_object_new (KM_TYPE_APPLICATION,
                       "application-id", APP_ID,
                       "flags", G_APPLICATION_HANDLES_OPEN,
                       "resource-base-path", "/io/github/kinema/Kinema",
                       NULL);
}

/* The application's settings, or NULL when the schema is not installed. */
GSettings *
km_application_get_settings (KmApplication *self)
{
  g_return_val_if_fail (KM_IS_APPLICATION (self), NULL);

  return self->settings;
}

/**
 * km_application_offer_recovery:
 *
 * Once per run, offers @window the newest autosave an earlier session left behind (see
 * km_autosave_list_recovery); the others stay for a later start. Returns whether it did.
 */
gboolean
km_application_offer_recovery (KmApplication *self,
                               KmWindow      *window)
{
  g_autoptr(GPtrArray) files = NULL;
  GFile *newest = NULL;
  guint64 newest_time = 0;

  g_return_val_if_fail (KM_IS_APPLICATION (self), FALSE);
  g_return_val_if_fail (KM_IS_WINDOW (window), FALSE);

  if (self->recovery_offered)
    return FALSE;
  self->recovery_offered = TRUE;

  files = km_autosave_list_recovery ();
  /* The newest that this process can claim: another instance started meanwhile may offer
   * one of them already (km_autosave_claim). */
  while (files->len > 0)
    {
      guint newest_index = 0;

      newest = NULL;
      for (guint i = 0; i < files->len; i++)
        {
          g_autoptr(GFileInfo) info = g_file_query_info (g_ptr_array_index (files, i),
                                                         G_FILE_ATTRIBUTE_TIME_MODIFIED,
                                                         G_FILE_QUERY_INFO_NONE, NULL, NULL);
          guint64 time = info ? g_file_info_get_attribute_uint64 (info,
                                                                  G_FILE_ATTRIBUTE_TIME_MODIFIED)
                              : 0;

          if (newest == NULL || time > newest_time)
            newest = g_ptr_array_index (files, i), newest_time = time, newest_index = i;
        }
      if (km_autosave_claim (newest))
        {
          km_window_offer_recovery (window, newest);
          return TRUE;
        }
      g_ptr_array_remove_index (files, newest_index);
    }
  return FALSE;
}
