/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

/*
 * bench-cnoid: loads and saves a generated project of 10,000 items (issue 4's budget:
 * "well under a second") and prints one key=value line:
 *   items=N bytes=B load_ms=… save_ms=…
 * Never fails on timing (a meson benchmark); exits 1 only when the load or save fails or
 * the saved text differs from what was loaded.
 */

#include "config.h"

#include <stdio.h>
#include <string.h>
#include <glib.h>

#include "km-cnoid.h"
#include "km-project.h"

#define N_FOLDERS 100
#define N_PER_FOLDER 99  /* 1 root + 100 folders + 100 × 99 children = 10,001 items */

static char *
generate_project (void)
{
  GString *out = g_string_new ("items:\n  id: 0\n  name: \"RootItem\"\n  plugin: Base\n"
                               "  class: RootItem\n  is_builtin_item: true\n  children:\n");
  guint id = 1;

  for (guint f = 0; f < N_FOLDERS; f++)
    {
      g_string_append_printf (out, "    -\n      id: %u\n      name: \"Folder %u\"\n"
                                   "      plugin: Base\n      class: FolderItem\n"
                                   "      children:\n", id++, f);
      for (guint c = 0; c < N_PER_FOLDER; c++)
        g_string_append_printf (out, "        -\n          id: %u\n          name: \"Item %u.%u\"\n"
                                     "          plugin: Base\n          class: FolderItem\n"
                                     "          is_checked: true\n", id++, f, c);
    }
  return g_string_free (out, FALSE);
}

int
main (int    argc,
      char **argv)
{
  g_autofree char *text = generate_project ();
  g_autoptr(GBytes) bytes = g_bytes_new_static (text, strlen (text));
  g_autoptr(KmProject) project = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *saved = NULL;
  gint64 t0, t1, t2;
  gsize length = 0;

  t0 = g_get_monotonic_time ();
  project = km_cnoid_load_full ("generated.cnoid", bytes, NULL, &error);
  t1 = g_get_monotonic_time ();
  if (project == NULL)
    {
      fprintf (stderr, "%s\n", error->message);
      return 1;
    }
  saved = km_cnoid_to_string (project, "generated.cnoid", &length, &error);
  t2 = g_get_monotonic_time ();
  if (saved == NULL)
    {
      fprintf (stderr, "%s\n", error->message);
      return 1;
    }

  printf ("items=%u bytes=%zu load_ms=%.1f save_ms=%.1f\n", 1 + N_FOLDERS * (1 + N_PER_FOLDER),
          strlen (text), (t1 - t0) / 1000.0, (t2 - t1) / 1000.0);
  return g_str_equal (saved, text) ? 0 : 1;
}
