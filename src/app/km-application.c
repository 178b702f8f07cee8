/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-application"

#include "config.h"

#include <glib/gi18n.h>

#include "km-application.h"
#include "km-window.h"

struct _KmApplication
{
  GtkApplication parent_instance;
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

static void
quit_activated (GSimpleAction *action,
                GVariant      *parameter,
                gpointer       user_data)
{
  g_application_quit (G_APPLICATION (user_data));
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
  { .name = "open", .activate = open_activated },
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
    { "app.open", { "<Control>o", NULL } },
    { "app.quit", { "<Control>q", NULL } },
    { "win.solve", { "F5", NULL } },
    { "win.export-image", { "<Control><Shift>e", NULL } },
    { "win.reset-camera", { "<Control>0", NULL } },
    { "win.show-joint-axes", { "<Control>j", NULL } },
    { "win.show-messages", { "<Control>m", NULL } },
    { "win.show-help-overlay", { "<Control>question", NULL } },
  };

  G_APPLICATION_CLASS (km_application_parent_class)->startup (application);

  g_action_map_add_action_entries (G_ACTION_MAP (application), app_actions,
                                   G_N_ELEMENTS (app_actions), application);
  for (guint i = 0; i < G_N_ELEMENTS (accels); i++)
    gtk_application_set_accels_for_action (GTK_APPLICATION (application), accels[i].action,
                                           accels[i].accels);

  gtk_window_set_default_icon_name (APP_ID);
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
km_application_class_init (KmApplicationClass *klass)
{
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

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
