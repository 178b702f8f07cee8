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
static gboolean
not_solving (gpointer document)
{
  return !km_document_get_solving (document);
}

gboolean
test_app_wait_idle_solve (KmDocument *document,
                          guint       ms)
{
  return test_app_wait_until (not_solving, document, ms);
}

/* Runs the main loop until @condition (@data) holds, for at most @ms milliseconds.
 * Returns whether it holds. */
gboolean
test_app_wait_until (GSourceFunc condition,
                     gpointer    data,
                     guint       ms)
{
  gboolean late = FALSE;
  guint id = g_timeout_add_once (ms, timeout_cb, &late);

  while (!condition (data) && !late)
    g_main_context_iteration (NULL, TRUE);
  if (!late)
    g_source_remove (id);
  return condition (data);
}

static gboolean
loaded (gpointer window)
{
  return !km_window_get_loading (window);
}

/* km_window_open_file(), then the main loop until the file is read and applied (at most
 * 20 s). Returns what km_window_open_file() returned. */
gboolean
test_app_open_file (KmWindow *window,
                    GFile    *file)
{
  if (!km_window_open_file (window, file))
    return FALSE;
  g_assert_true (test_app_wait_until (loaded, window, 20000));
  return TRUE;
}

/* Runs the main loop for @ms milliseconds. */
void
test_app_spin_for (guint ms)
{
  gboolean late = FALSE;

  g_timeout_add_once (ms, timeout_cb, &late);
  while (!late)
    g_main_context_iteration (NULL, TRUE);
}

/* Dispatches every pending source without blocking. */
void
test_app_spin (void)
{
  while (g_main_context_iteration (NULL, FALSE))
    ;
}
