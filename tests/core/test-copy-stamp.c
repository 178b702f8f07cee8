/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 *
 * The stamp that lets a later save, in any run of the editor, know a model copy as its own
 * (km-copy-stamp.h).
 */

#include "config.h"

#include <string.h>
#include <glib.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "km-body.h"
#include "km-copy-stamp.h"
#include "km-test-tmp.h"

static const char body_text[] =
  "format: ChoreonoidBody\n"
  "format_version: 2.0\n"
  "name: arm\n"
  "links:\n"
  "  - { name: base, joint_type: fixed }\n";

static void
test_round_trip (void)
{
  g_autofree char *stamped = km_copy_stamp_append (body_text, "arm.cnoid");
  gsize length = strlen (stamped);

  g_assert_true (g_str_has_prefix (stamped, body_text));
  g_assert_true (g_str_has_prefix (stamped + strlen (body_text), "# kinema-copy for=arm.cnoid sha256="));
  g_assert_true (g_str_has_suffix (stamped, "\n"));
  g_assert_true (km_copy_stamp_check (stamped, length, "arm.cnoid"));
  /* Another project's copy is not this one's. */
  g_assert_false (km_copy_stamp_check (stamped, length, "other.cnoid"));
  g_assert_false (km_copy_stamp_check (stamped, length, "arm"));
  /* Without the stamp, or cut short: a file of the user's. */
  g_assert_false (km_copy_stamp_check (body_text, strlen (body_text), "arm.cnoid"));
  g_assert_false (km_copy_stamp_check (stamped, length - 1, "arm.cnoid"));
  g_assert_false (km_copy_stamp_check ("", 0, "arm.cnoid"));
  g_assert_false (km_copy_stamp_check (NULL, 0, "arm.cnoid"));
}

/* Any change above the stamp (one byte), or to the stamp itself, disowns the file. */
static void
test_changed (void)
{
  g_autofree char *stamped = km_copy_stamp_append (body_text, "arm.cnoid");
  gsize length = strlen (stamped);

  for (gsize i = 0; i < length - 1; i++)
    {
      g_autofree char *changed = g_strdup (stamped);

      changed[i] = changed[i] == 'x' ? 'y' : 'x';
      g_assert_false (km_copy_stamp_check (changed, length, "arm.cnoid"));
    }
  /* Text added after the stamp. */
  {
    g_autofree char *more = g_strconcat (stamped, "# mine\n", NULL);

    g_assert_false (km_copy_stamp_check (more, strlen (more), "arm.cnoid"));
  }
}

/* A project name with spaces or line breaks stays one word of the stamp; a text without a
 * final line break gets one before the stamp. */
static void
test_odd_owner (void)
{
  const char *owner = "my arm\nv2 100%.cnoid";
  g_autofree char *stamped = km_copy_stamp_append ("format: ChoreonoidBody", owner);
  const char *line = strrchr (stamped, '#');
  guint spaces = 0;

  g_assert_true (g_str_has_prefix (stamped, "format: ChoreonoidBody\n# kinema-copy for="));
  for (const char *c = line; *c != '\0'; c++)
    spaces += *c == ' ';
  /* "# kinema-copy for=OWNER sha256=HASH": the owner adds no space. */
  g_assert_cmpuint (spaces, ==, 3);
  g_assert_cmpuint (strlen (strchr (stamped, '\n') + 1), ==, strlen (line));
  g_assert_true (km_copy_stamp_check (stamped, strlen (stamped), owner));
  g_assert_false (km_copy_stamp_check (stamped, strlen (stamped), "my arm"));
}

/* The file: a stamped copy is recognised; the copy changed by another program, a link to
 * it, a folder or a missing file are not; and the stamped file is still a .body file. */
static void
test_file (void)
{
  g_autofree char *dir = km_test_make_tmp_dir ("km-copy-stamp-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "arm.body", NULL);
  g_autofree char *link = g_build_filename (dir, "link.body", NULL);
  g_autofree char *stamped = km_copy_stamp_append (body_text, "arm.cnoid");
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) read = NULL;

  g_assert_false (km_copy_stamp_file_matches (path, "arm.cnoid"));
  g_assert_true (g_file_set_contents (path, stamped, -1, &error));
  g_assert_no_error (error);
  g_assert_true (km_copy_stamp_file_matches (path, "arm.cnoid"));
  g_assert_false (km_copy_stamp_file_matches (path, "arm-2.cnoid"));
  g_assert_false (km_copy_stamp_file_matches (dir, "arm.cnoid"));
  g_assert_cmpint (symlink (path, link), ==, 0);
  g_assert_false (km_copy_stamp_file_matches (link, "arm.cnoid"));

  read = km_body_load (path, stamped, strlen (stamped), NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (read);

  g_assert_true (g_file_set_contents (path, body_text, -1, &error));
  g_assert_false (km_copy_stamp_file_matches (path, "arm.cnoid"));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/CopyStamp/round-trip", test_round_trip);
  g_test_add_func ("/CopyStamp/changed", test_changed);
  g_test_add_func ("/CopyStamp/odd-owner", test_odd_owner);
  g_test_add_func ("/CopyStamp/file", test_file);
  return g_test_run ();
}
