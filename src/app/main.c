/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "kinema"

#include "config.h"

#include <locale.h>
#include <glib/gi18n.h>

#include "km-application.h"

int
main (int    argc,
      char **argv)
{
  g_autoptr(KmApplication) app = NULL;

  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  g_set_application_name ("Kinema");
  app = km_application_new ();
  return g_application_run (G_APPLICATION (app), argc, argv);
}
