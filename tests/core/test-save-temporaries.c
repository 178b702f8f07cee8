/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 *
 * The registry of temporary files that a signal ending the program removes
 * (km_format_remove_temporary_files()): only registered files, each once, and every
 * atomic save's temporary file while it is written.
 */

#include "config.h"

#include <string.h>
#include <glib/gstdio.h>

#include "km-format.h"
#include "km-test-tmp.h"

static char *
touch (const char *dir,
       const char *name)
{
  g_autoptr(GError) error = NULL;
  char *path = g_build_filename (dir, name, NULL);

  g_assert_true (g_file_set_contents (path, "x", 1, &error));
  g_assert_no_error (error);
  return path;
}

static void
test_registry (void)
{
  g_autofree char *dir = km_test_make_tmp_dir ("save-temporaries-XXXXXX");
  g_autofree char *a = touch (dir, "a.json.AAAAAA");
  g_autofree char *b = touch (dir, "b.json.BBBBBB");
  g_autofree char *c = touch (dir, "c.json");
  int slot_a = km_format_register_temporary (a);
  int slot_b = km_format_register_temporary (b);

  g_assert_cmpint (slot_a, >=, 0);
  g_assert_cmpint (slot_b, >=, 0);
  g_assert_cmpint (slot_a, !=, slot_b);
  km_format_unregister_temporary (slot_b);

  /* Only the registered one that is still registered. */
  g_assert_cmpuint (km_format_remove_temporary_files (), ==, 1);
  g_assert_false (g_file_test (a, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (b, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (c, G_FILE_TEST_EXISTS));
  /* Once: a file of that name made again is not removed by another call. */
  g_free (touch (dir, "a.json.AAAAAA"));
  g_assert_cmpuint (km_format_remove_temporary_files (), ==, 0);
  g_assert_true (g_file_test (a, G_FILE_TEST_EXISTS));
  /* The owner frees its slot after a removal as after none; nothing to do for -1. */
  km_format_unregister_temporary (slot_a);
  km_format_unregister_temporary (-1);
  g_assert_cmpint (km_format_register_temporary (c), >=, 0);
  g_assert_cmpuint (km_format_remove_temporary_files (), ==, 1);
  g_assert_false (g_file_test (c, G_FILE_TEST_EXISTS));

  km_test_remove_tree (dir);
}

typedef struct
{
  const char *dir;
  guint       removed;
  char       *seen;     /* the temporary file's name */
} Probe;

/* Mid-write, as a signal handler would: the save's temporary file is registered. */
static gboolean
write_and_remove (KmFormatSink *sink,
                  gpointer      user_data,
                  GError      **error)
{
  Probe *probe = user_data;
  g_autoptr(GDir) listing = NULL;
  const char *entry;
  char block[1024];

  memset (block, 'x', sizeof block);
  for (guint i = 0; i < 200; i++)
    km_format_sink_write (sink, block, sizeof block);
  listing = g_dir_open (probe->dir, 0, NULL);
  while ((entry = g_dir_read_name (listing)) != NULL)
    if (g_str_has_prefix (entry, "out.json."))
      probe->seen = g_strdup (entry);
  probe->removed = km_format_remove_temporary_files ();
  return TRUE;
}

static void
test_save_registers (void)
{
  g_autofree char *dir = km_test_make_tmp_dir ("save-temporaries-XXXXXX");
  g_autofree char *out = g_build_filename (dir, "out.json", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GDir) listing = NULL;
  g_autofree char *text = NULL;
  Probe probe = { dir, 0, NULL };

  g_assert_true (km_format_save_data (out, "old\n", -1, &error));
  g_assert_no_error (error);
  /* The temporary file is removed under the save: its rename fails, the old file stays. */
  g_assert_false (km_format_save_stream (out, 0666, write_and_remove, &probe, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (probe.seen);
  g_assert_cmpuint (probe.removed, ==, 1);
  g_assert_true (g_file_get_contents (out, &text, NULL, NULL));
  g_assert_cmpstr (text, ==, "old\n");
  listing = g_dir_open (dir, 0, NULL);
  g_assert_cmpstr (g_dir_read_name (listing), ==, "out.json");
  g_assert_null (g_dir_read_name (listing));
  /* A save that ended is no longer registered. */
  g_clear_error (&error);
  g_assert_true (km_format_save_data (out, "new\n", -1, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (km_format_remove_temporary_files (), ==, 0);

  g_free (probe.seen);
  km_test_remove_tree (dir);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/format/temporaries/registry", test_registry);
  g_test_add_func ("/format/temporaries/save-registers", test_save_registers);
  return g_test_run ();
}
