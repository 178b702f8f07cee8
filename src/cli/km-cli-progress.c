/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "kinema-cli"

#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "km-cli.h"

/*
 * The progress line of a long command (`solve`) on a terminal: one line on stderr, drawn
 * over in place ("\r", then "\033[K" that erases what is left of the old one), and erased
 * before anything else is printed (km_cli_progress_hold(): a warning a worker thread
 * prints) and at the end, so that no fragment of it stays on the screen between the other
 * lines or after them. Nothing at all when stderr is not a terminal.
 */

/* Back to the line's start, and the line erased. */
#define ERASE_LINE "\r\033[K"

static GMutex   progress_mutex;
static gboolean progress_active;  /* between begin and end, stderr a terminal */
static gboolean progress_drawn;   /* the line is on the screen now */

gboolean
km_cli_progress_begin (void)
{
  g_mutex_lock (&progress_mutex);
  progress_active = isatty (STDERR_FILENO);
  progress_drawn = FALSE;
  g_mutex_unlock (&progress_mutex);
  return progress_active;
}

void
km_cli_progress_draw (const char *format,
                      ...)
{
  g_autofree char *text = NULL;
  va_list args;

  g_mutex_lock (&progress_mutex);
  if (progress_active)
    {
      va_start (args, format);
      text = g_strdup_vprintf (format, args);
      va_end (args);
      /* What goes to stdout before it (on the same terminal) first. */
      fflush (stdout);
      fprintf (stderr, ERASE_LINE "%s", text);
      fflush (stderr);
      progress_drawn = TRUE;
    }
  g_mutex_unlock (&progress_mutex);
}

/* Erases the line when it is drawn. Called with the mutex held. */
static void
erase (void)
{
  if (progress_drawn)
    {
      fputs (ERASE_LINE, stderr);
      fflush (stderr);
      progress_drawn = FALSE;
    }
}

void
km_cli_progress_end (void)
{
  g_mutex_lock (&progress_mutex);
  erase ();
  progress_active = FALSE;
  g_mutex_unlock (&progress_mutex);
}

void
km_cli_progress_hold (void)
{
  g_mutex_lock (&progress_mutex);
  erase ();
}

void
km_cli_progress_release (void)
{
  fflush (stderr);
  g_mutex_unlock (&progress_mutex);
}
