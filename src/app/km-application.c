/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-application"

#include "config.h"

#include <glib/gi18n.h>

#include "km-application.h"
#include "km-window.h"

/* How many recently used files File → Open Recent lists. */
#define MAX_RECENT 10

struct _KmApplication
{
  GtkApplication    parent_instance;

  /* Owned */
  GBindingGroup    *history_bindings;  /* the active window's document → app.undo/redo */

  /* Borrowed */
  GtkRecentManager *recent;
};

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

static void
update_recent_menu (KmApplication *self)
{
  GMenu *menu = gtk_application_get_menu_by_id (GTK_APPLICATION (self), "recent-files");
  GList *infos;
  guint n = 0;

  if (menu == NULL)
    return;
  g_menu_remove_all (menu);
  infos = gtk_recent_manager_get_items (self->recent);
  for (GList *l = infos; l != NULL && n < MAX_RECENT; l = l->next)
    {
      GtkRecentInfo *info = l->data;
      g_autoptr(GMenuItem) item = NULL;

      if (!gtk_recent_info_has_application (info, g_get_application_name ())
          || !gtk_recent_info_exists (info))
        continue;
      item = g_menu_item_new (gtk_recent_info_get_display_name (info), NULL);
      g_menu_item_set_action_and_target_value (item, "app.open-recent",
                                               g_variant_new_string (gtk_recent_info_get_uri (info)));
      g_menu_append_item (menu, item);
      n++;
    }
  g_list_free_full (infos, (GDestroyNotify) gtk_recent_info_unref);
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
    { "win.solve", { "F5", NULL } },
    { "win.export-image", { "<Control><Shift>e", NULL } },
    { "win.reset-camera", { "<Control>0", NULL } },
    { "win.show-joint-axes", { "<Control>j", NULL } },
    { "win.show-messages", { "<Control>m", NULL } },
    { "win.show-help-overlay", { "<Control>question", NULL } },
  };

  KmApplication *self = KM_APPLICATION (application);

  G_APPLICATION_CLASS (km_application_parent_class)->startup (application);

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
  g_signal_connect (self, "notify::active-window", G_CALLBACK (active_window_changed_cb), NULL);
  active_window_changed_cb (self);

  self->recent = gtk_recent_manager_get_default ();
  g_signal_connect_object (self->recent, "changed", G_CALLBACK (update_recent_menu), self,
                           G_CONNECT_SWAPPED);
  update_recent_menu (self);
}

/* No file: the built-in example (skeleton + targets, solved). */
static void
km_application_activate (GApplication *application)
{
  gboolean created;
  KmWindow *window = get_or_create_window (KM_APPLICATION (application), &created);

  if (created)
    km_window_open_example (window);
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
  gtk_window_present (GTK_WINDOW (window));
}

static void
km_application_dispose (GObject *object)
{
  KmApplication *self = KM_APPLICATION (object);

  g_clear_object (&self->history_bindings);

  G_OBJECT_CLASS (km_application_parent_class)->dispose (object);
}

static void
km_application_class_init (KmApplicationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  object_class->dispose = km_application_dispose;

  app_class->startup = km_application_startup;
  app_class->activate = km_application_activate;
  app_class->open = km_application_open;
}

static void
km_application_init (KmApplication *self)
{
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
