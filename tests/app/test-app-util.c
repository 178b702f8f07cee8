/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include "test-app-util.h"

static void
timeout_cb (gpointer data)
{
  *(gboolean *) data = TRUE;
}

/* Runs the main loop until @document has no solve running, for at most @ms
 * milliseconds. Returns whether the solve finished. */
gboolean
test_app_wait_idle_solve (KmDocument *document,
                          guint       ms)
{
  gboolean late = FALSE;
  guint id = g_timeout_add_once (ms, timeout_cb, &late);

  while (km_document_get_solving (document) && !late)
    g_main_context_iteration (NULL, TRUE);
  if (!late)
    g_source_remove (id);
  return !km_document_get_solving (document);
}

/* Dispatches every pending source without blocking. */
void
test_app_spin (void)
{
  while (g_main_context_iteration (NULL, FALSE))
    ;
}
