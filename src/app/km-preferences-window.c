/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-preferences-window"

#include "config.h"

#include <glib/gi18n.h>

#include "km-preferences-window.h"

/*
 * The preferences window edits the application's GSettings directly: the unit radio
 * buttons are GSettings actions (prefs.angle-unit, prefs.length-unit), the autosave spin
 * button and the share folder entry are bound to their keys, and the trusted body-handler
 * folders are a list rebuilt whenever the key changes. Clear Recent Files removes only the
 * recent-file entries this application registered (see
 * km_preferences_window_clear_recent_files()). Whoever uses a setting follows the
 * key, so nothing here needs an Apply button.
 */

struct _KmPreferencesWindow
{
  GtkWindow      parent_instance;

  /* Template widgets */
  GtkAdjustment *autosave_adjustment;
  GtkAdjustment *recent_adjustment;
  GtkSwitch     *save_layout_switch;
  GtkListBox    *directory_list;
  GtkEntry      *directory_entry;
  GtkEntry      *share_entry;

  /* Owned */
  GSettings     *settings;
};

enum {
  PROP_0,
  PROP_SETTINGS,
  N_PROPS
};

G_DEFINE_FINAL_TYPE (KmPreferencesWindow, km_preferences_window, GTK_TYPE_WINDOW)

static GParamSpec *properties[N_PROPS];

static void
remove_button_clicked_cb (KmPreferencesWindow *self,
                          GtkButton           *button)
{
  const char *directory = g_object_get_data (G_OBJECT (button), "km-directory");

  g_assert (KM_IS_PREFERENCES_WINDOW (self));

  km_preferences_window_remove_handler_directory (self, directory);
}

static void
settings_directories_changed_cb (KmPreferencesWindow *self)
{
  g_auto(GStrv) directories = g_settings_get_strv (self->settings,
                                                   "trusted-handler-directories");
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->directory_list))) != NULL)
    gtk_list_box_remove (self->directory_list, child);

  for (guint i = 0; directories[i] != NULL; i++)
    {
      GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
      GtkWidget *label = gtk_label_new (directories[i]);
      GtkWidget *button = gtk_button_new_from_icon_name ("list-remove-symbolic");

      gtk_widget_set_margin_start (box, 6);
      gtk_widget_set_margin_end (box, 6);
      gtk_widget_set_margin_top (box, 3);
      gtk_widget_set_margin_bottom (box, 3);
      gtk_label_set_xalign (GTK_LABEL (label), 0.0);
      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_MIDDLE);
      gtk_widget_set_hexpand (label, TRUE);
      gtk_box_append (GTK_BOX (box), label);
      gtk_widget_set_tooltip_text (button, _("Stop Trusting This Folder"));
      gtk_widget_add_css_class (button, "flat");
      g_object_set_data_full (G_OBJECT (button), "km-directory", g_strdup (directories[i]),
                              g_free);
      g_signal_connect_object (button, "clicked", G_CALLBACK (remove_button_clicked_cb), self,
                               G_CONNECT_SWAPPED);
      gtk_box_append (GTK_BOX (box), button);
      gtk_list_box_append (self->directory_list, box);
    }
}

static void
add_directory_cb (KmPreferencesWindow *self)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->directory_entry));

  g_assert (KM_IS_PREFERENCES_WINDOW (self));

  if (text == NULL || *text == '\0')
    return;
  km_preferences_window_add_handler_directory (self, text);
  gtk_editable_set_text (GTK_EDITABLE (self->directory_entry), "");
}

static void
folder_chooser_response_cb (KmPreferencesWindow  *self,
                            int                   response,
                            GtkFileChooserNative *dialog)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *path = file ? g_file_get_path (file) : NULL;

      if (path != NULL)
        km_preferences_window_add_handler_directory (self, path);
    }
  gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (dialog));
  g_object_unref (dialog);
}

static void
choose_directory_cb (KmPreferencesWindow *self)
{
  GtkFileChooserNative *dialog;

  g_assert (KM_IS_PREFERENCES_WINDOW (self));

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  dialog = gtk_file_chooser_native_new (_("Trust a Body-Handler Folder"), GTK_WINDOW (self),
                                        GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER, _("_Trust"),
                                        _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (dialog), TRUE);
  g_signal_connect_object (dialog, "response", G_CALLBACK (folder_chooser_response_cb), self,
                           G_CONNECT_SWAPPED);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
  G_GNUC_END_IGNORE_DEPRECATIONS
}

static void
clear_recent_cb (KmPreferencesWindow *self)
{
  g_assert (KM_IS_PREFERENCES_WINDOW (self));

  km_preferences_window_clear_recent_files (self);
}

static void
set_settings (KmPreferencesWindow *self,
              GSettings           *settings)
{
  g_autoptr(GSimpleActionGroup) group = g_simple_action_group_new ();
  g_autoptr(GAction) angle = NULL;
  g_autoptr(GAction) length = NULL;

  g_assert (self->settings == NULL);
  g_assert (G_IS_SETTINGS (settings));

  self->settings = g_object_ref (settings);
  angle = g_settings_create_action (settings, "angle-unit");
  length = g_settings_create_action (settings, "length-unit");
  g_action_map_add_action (G_ACTION_MAP (group), angle);
  g_action_map_add_action (G_ACTION_MAP (group), length);
  gtk_widget_insert_action_group (GTK_WIDGET (self), "prefs", G_ACTION_GROUP (group));

  g_settings_bind (settings, "autosave-interval", self->autosave_adjustment, "value",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "choreonoid-share-directory", self->share_entry, "text",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "save-layout", self->save_layout_switch, "active",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "recent-files-limit", self->recent_adjustment, "value",
                   G_SETTINGS_BIND_DEFAULT);
  g_signal_connect_object (settings, "changed::trusted-handler-directories",
                           G_CALLBACK (settings_directories_changed_cb), self,
                           G_CONNECT_SWAPPED);
  settings_directories_changed_cb (self);
}

static void
km_preferences_window_dispose (GObject *object)
{
  KmPreferencesWindow *self = KM_PREFERENCES_WINDOW (object);

  gtk_widget_dispose_template (GTK_WIDGET (self), KM_TYPE_PREFERENCES_WINDOW);
  g_clear_object (&self->settings);

  G_OBJECT_CLASS (km_preferences_window_parent_class)->dispose (object);
}

static void
km_preferences_window_get_property (GObject    *object,
                                    guint       prop_id,
                                    GValue     *value,
                                    GParamSpec *pspec)
{
  KmPreferencesWindow *self = KM_PREFERENCES_WINDOW (object);

  switch (prop_id)
    {
    case PROP_SETTINGS:
      g_value_set_object (value, self->settings);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
km_preferences_window_set_property (GObject      *object,
                                    guint         prop_id,
                                    const GValue *value,
                                    GParamSpec   *pspec)
{
  KmPreferencesWindow *self = KM_PREFERENCES_WINDOW (object);

  switch (prop_id)
    {
    case PROP_SETTINGS:
      set_settings (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
km_preferences_window_class_init (KmPreferencesWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = km_preferences_window_dispose;
  object_class->get_property = km_preferences_window_get_property;
  object_class->set_property = km_preferences_window_set_property;

  properties[PROP_SETTINGS] =
    g_param_spec_object ("settings", NULL, NULL, G_TYPE_SETTINGS,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/kinema/Kinema/ui/km-preferences-window.ui");
  gtk_widget_class_bind_template_child (widget_class, KmPreferencesWindow, autosave_adjustment);
  gtk_widget_class_bind_template_child (widget_class, KmPreferencesWindow, recent_adjustment);
  gtk_widget_class_bind_template_child (widget_class, KmPreferencesWindow, save_layout_switch);
  gtk_widget_class_bind_template_child (widget_class, KmPreferencesWindow, directory_list);
  gtk_widget_class_bind_template_child (widget_class, KmPreferencesWindow, directory_entry);
  gtk_widget_class_bind_template_child (widget_class, KmPreferencesWindow, share_entry);
  gtk_widget_class_bind_template_callback (widget_class, add_directory_cb);
  gtk_widget_class_bind_template_callback (widget_class, choose_directory_cb);
  gtk_widget_class_bind_template_callback (widget_class, clear_recent_cb);
}

static void
km_preferences_window_init (KmPreferencesWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

/* A window editing @settings (the io.github.kinema.Kinema schema). */
KmPreferencesWindow *
km_preferences_window_new (GSettings *settings)
{
  g_return_val_if_fail (G_IS_SETTINGS (settings), NULL);

  return g_object_new (KM_TYPE_PREFERENCES_WINDOW, "settings", settings, NULL);
}

GSettings *
km_preferences_window_get_settings (KmPreferencesWindow *self)
{
  g_return_val_if_fail (KM_IS_PREFERENCES_WINDOW (self), NULL);

  return self->settings;
}

/* Trusts @directory (made absolute) for body handlers, once. */
void
km_preferences_window_add_handler_directory (KmPreferencesWindow *self,
                                             const char          *directory)
{
  g_auto(GStrv) directories = NULL;
  g_autoptr(GStrvBuilder) builder = NULL;
  g_auto(GStrv) updated = NULL;
  g_autofree char *absolute = NULL;

  g_return_if_fail (KM_IS_PREFERENCES_WINDOW (self));
  g_return_if_fail (directory != NULL && *directory != '\0');

  absolute = g_canonicalize_filename (directory, NULL);
  directories = g_settings_get_strv (self->settings, "trusted-handler-directories");
  if (g_strv_contains ((const char * const *) directories, absolute))
    return;
  builder = g_strv_builder_new ();
  g_strv_builder_addv (builder, (const char **) directories);
  g_strv_builder_add (builder, absolute);
  updated = g_strv_builder_end (builder);
  g_settings_set_strv (self->settings, "trusted-handler-directories",
                       (const char * const *) updated);
}

void
km_preferences_window_remove_handler_directory (KmPreferencesWindow *self,
                                                const char          *directory)
{
  g_auto(GStrv) directories = NULL;
  g_autoptr(GStrvBuilder) builder = NULL;
  g_auto(GStrv) updated = NULL;

  g_return_if_fail (KM_IS_PREFERENCES_WINDOW (self));
  g_return_if_fail (directory != NULL);

  directories = g_settings_get_strv (self->settings, "trusted-handler-directories");
  builder = g_strv_builder_new ();
  for (guint i = 0; directories[i] != NULL; i++)
    if (g_strcmp0 (directories[i], directory) != 0)
      g_strv_builder_add (builder, directories[i]);
  updated = g_strv_builder_end (builder);
  g_settings_set_strv (self->settings, "trusted-handler-directories",
                       (const char * const *) updated);
}

/**
 * km_preferences_window_clear_recent_files:
 *
 * Forgets Kinema's recently used files: the entries of the default GtkRecentManager
 * registered by this application (g_get_application_name()), the ones File → Open Recent
 * lists. Entries other applications registered stay, even for the same files.
 *
 * Returns: how many entries were removed
 */
guint
km_preferences_window_clear_recent_files (KmPreferencesWindow *self)
{
  GtkRecentManager *recent = gtk_recent_manager_get_default ();
  const char *app_name = g_get_application_name ();
  GList *infos;
  guint n = 0;

  g_return_val_if_fail (KM_IS_PREFERENCES_WINDOW (self), 0);

  if (app_name == NULL)
    return 0;
  infos = gtk_recent_manager_get_items (recent);
  for (GList *l = infos; l != NULL; l = l->next)
    {
      GtkRecentInfo *info = l->data;
      g_autoptr(GError) error = NULL;

      if (!gtk_recent_info_has_application (info, app_name))
        continue;
      if (gtk_recent_manager_remove_item (recent, gtk_recent_info_get_uri (info), &error))
        n++;
      else
        g_debug ("Could not forget %s: %s", gtk_recent_info_get_uri (info), error->message);
    }
  g_list_free_full (infos, (GDestroyNotify) gtk_recent_info_unref);
  return n;
}
