/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

/*
 * bench-urdf-one-line: reads a generated URDF of 20,000 links and joints written on one
 * line, as minifiers and some generators write XML, and prints one key=value line:
 *   links=N bytes=B load_ms=…
 * Every element's position is looked up for its messages; counting each column from the
 * start of its line made this quadratic (7.6 minutes), counts kept per 256-byte block make
 * it linear. Never fails on timing (a meson benchmark); exits 1 only when the load fails.
 */

#include "config.h"

#include <stdio.h>
#include <glib.h>

#include "km-urdf.h"

#define N_LINKS 20000

int
main (int    argc,
      char **argv)
{
  g_autoptr(GString) text = g_string_new ("<robot name=\"one_line\"><link name=\"l0\"/>");
  g_autoptr(KmSkeleton) skeleton = NULL;
  g_autoptr(GError) error = NULL;
  KmUrdfOptions options = { .load_meshes = FALSE };
  gint64 t0, t1;

  for (guint i = 1; i < N_LINKS; i++)
    g_string_append_printf (text, "<link name=\"l%u\"/><joint name=\"j%u\" type=\"revolute\">"
                                  "<parent link=\"l%u\"/><child link=\"l%u\"/>"
                                  "<origin xyz=\"0 0 0.01\"/><axis xyz=\"0 0 1\"/>"
                                  "<limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/>"
                                  "</joint>", i, i, i - 1, i);
  g_string_append (text, "</robot>");

  t0 = g_get_monotonic_time ();
  skeleton = km_urdf_load ("one-line.urdf", text->str, text->len, &options, &error);
  t1 = g_get_monotonic_time ();
  if (skeleton == NULL)
    {
      fprintf (stderr, "%s\n", error->message);
      return 1;
    }
  printf ("links=%u bytes=%" G_GSIZE_FORMAT " load_ms=%.1f\n", (guint) N_LINKS, text->len,
          (t1 - t0) / 1000.0);
  return 0;
}
