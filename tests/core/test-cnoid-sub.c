/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <string.h>
#include <utime.h>

#include <glib.h>
#include <gio/gio.h>
#include <glib/gstdio.h>

#include "km-cnoid.h"
#include "km-sub-project-item.h"

#include "test-util.h"
#include "km-test-tmp.h"

/*
 * A sub-project's file that another program changed, removed or made unreadable since it
 * was read is not written over by a save of the project (km_cnoid_sub_save_check), as the
 * project's own file is not in the editor: nothing is written, neither the sub-project nor
 * the project, which stays modified. The user's choice to write over it
 * (km_cnoid_accept_sub_project_file) holds for the version found, not for a later change.
 */

static const char main_text[] =
  "items:\n"
  "  id: 0\n"
  "  name: \"RootItem\"\n"
  "  plugin: Base\n"
  "  class: RootItem\n"
  "  is_builtin_item: true\n"
  "  children:\n"
  "    -\n"
  "      id: 1\n"
  "      name: \"Robot part\"\n"
  "      plugin: Base\n"
  "      class: SubProjectItem\n"
  "      data:\n"
  "        file: \"sub/part.cnoid\"\n"
  "    -\n"
  "      id: 2\n"
  "      name: \"Main folder\"\n"
  "      plugin: Base\n"
  "      class: FolderItem\n";

static const char part_text[] =
  "items:\n"
  "  id: 0\n"
  "  name: \"RootItem\"\n"
  "  plugin: Base\n"
  "  class: RootItem\n"
  "  is_builtin_item: true\n"
  "  children:\n"
  "    -\n"
  "      id: 1\n"
  "      name: \"Folder\"\n"
  "      plugin: Base\n"
  "      class: FolderItem\n";

/* What another program makes of the sub-project. */
static const char their_text[] =
  "items:\n"
  "  id: 0\n"
  "  name: \"RootItem\"\n"
  "  plugin: Base\n"
  "  class: RootItem\n"
  "  is_builtin_item: true\n"
  "  children:\n"
  "    -\n"
  "      id: 1\n"
  "      name: \"Their folder\"\n"
  "      plugin: Base\n"
  "      class: FolderItem\n";

typedef struct
{
  char      *dir;
  char      *main_path;
  char      *part_path;
  KmProject *project;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *sub = NULL;

  f->dir = km_test_make_tmp_dir ("kinema-cnoid-sub-XXXXXX");
  sub = g_build_filename (f->dir, "sub", NULL);
  g_assert_cmpint (g_mkdir (sub, 0755), ==, 0);
  f->main_path = g_build_filename (f->dir, "main.cnoid", NULL);
  f->part_path = g_build_filename (sub, "part.cnoid", NULL);
  g_assert_true (g_file_set_contents (f->main_path, main_text, -1, NULL));
  g_assert_true (g_file_set_contents (f->part_path, part_text, -1, NULL));
  f->project = km_cnoid_load (f->main_path, &error);
  g_assert_no_error (error);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_clear_object (&f->project);
  g_chmod (f->part_path, 0644);
  km_test_remove_tree (f->dir);
  g_free (f->dir);
  g_free (f->main_path);
  g_free (f->part_path);
}

static KmItem *
sub_child (KmProject  *project,
           const char *name)
{
  KmItem *sub = km_project_find_item_by_id (project, 1);

  g_assert_true (KM_IS_SUB_PROJECT_ITEM (sub));
  return km_item_find_child_by_name (sub, name);
}

/* The sub-project and the project edited. */
static void
edit_both (Fixture    *f,
           const char *name)
{
  KmItem *folder = km_item_get_child (km_project_find_item_by_id (f->project, 1), 0);

  km_project_rename_item (f->project, folder, name);
  km_project_rename_item (f->project, km_project_find_item_by_id (f->project, 2), name);
  g_assert_true (km_project_get_modified (f->project));
}

static void
write_theirs (Fixture    *f,
              const char *text)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_set_contents (f->part_path, text, -1, &error));
  g_assert_no_error (error);
}

/* Nothing was written: both files as they were, the project still modified. */
static void
assert_nothing_written (Fixture    *f,
                        const char *part)
{
  g_autofree char *main_now = test_util_read_file (f->main_path, NULL);

  g_assert_cmpstr (main_now, ==, main_text);
  if (part != NULL)
    {
      g_autofree char *part_now = test_util_read_file (f->part_path, NULL);

      g_assert_cmpstr (part_now, ==, part);
    }
  g_assert_true (km_project_get_modified (f->project));
}

/* The user's choice to write over what the check of the sub-project finds there (which
 * fails with @code). */
static void
accept_found (Fixture *f,
              gint     code)
{
  g_autoptr(GPtrArray) subs = km_cnoid_build_sub_projects (f->project);
  g_autoptr(GError) error = NULL;
  KmCnoidSubSave *sub;

  g_assert_cmpuint (subs->len, ==, 1);
  sub = g_ptr_array_index (subs, 0);
  g_assert_false (km_cnoid_sub_save_check (sub, &error));
  g_assert_error (error, G_IO_ERROR, code);
  g_assert_true ((km_cnoid_sub_save_get_found (sub) == NULL) == (code == G_IO_ERROR_NOT_FOUND));
  km_cnoid_accept_sub_project_file (f->project, km_cnoid_sub_save_get_path (sub),
                                    km_cnoid_sub_save_get_found (sub));
}

static void
test_changed_refused (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *part = NULL;

  edit_both (f, "Ours");
  write_theirs (f, their_text);
  g_assert_false (km_cnoid_save (f->project, f->main_path, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_WRONG_ETAG);
  g_assert_cmpstr (error->message, ==,
                   "The sub-project “part.cnoid” has changed on disk since Kinema last "
                   "read or saved it.");
  assert_nothing_written (f, their_text);
  g_clear_error (&error);

  /* The user chooses to write over that version: the save writes ours. */
  accept_found (f, G_IO_ERROR_WRONG_ETAG);
  g_assert_true (km_cnoid_save (f->project, f->main_path, &error));
  g_assert_no_error (error);
  part = test_util_read_file (f->part_path, NULL);
  g_assert_nonnull (strstr (part, "\"Ours\""));
  g_assert_false (km_project_get_modified (f->project));

  /* Our own write is no change; theirs after it is. */
  edit_both (f, "Again");
  g_assert_true (km_cnoid_save (f->project, f->main_path, &error));
  g_assert_no_error (error);
  edit_both (f, "Third");
  write_theirs (f, their_text);
  g_assert_false (km_cnoid_save (f->project, f->main_path, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_WRONG_ETAG);
  g_clear_pointer (&part, g_free);
  part = test_util_read_file (f->part_path, NULL);
  g_assert_cmpstr (part, ==, their_text);
}

/* An accepted version is written over, not a later change of it. */
static void
test_accept_not_later (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *later = NULL;

  edit_both (f, "Ours");
  write_theirs (f, their_text);
  accept_found (f, G_IO_ERROR_WRONG_ETAG);
  later = g_strconcat (their_text, "# later\n", NULL);
  write_theirs (f, later);
  g_assert_false (km_cnoid_save (f->project, f->main_path, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_WRONG_ETAG);
  assert_nothing_written (f, later);
}

/* Removed since it was read: not written again unasked; asked, it is. */
static void
test_deleted_refused (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *part = NULL;

  edit_both (f, "Ours");
  g_assert_cmpint (g_unlink (f->part_path), ==, 0);
  g_assert_false (km_cnoid_save (f->project, f->main_path, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_cmpstr (error->message, ==,
                   "The sub-project “part.cnoid” was deleted or moved since Kinema last "
                   "read or saved it.");
  assert_nothing_written (f, NULL);
  g_assert_false (g_file_test (f->part_path, G_FILE_TEST_EXISTS));
  g_clear_error (&error);

  accept_found (f, G_IO_ERROR_NOT_FOUND);
  g_assert_true (km_cnoid_save (f->project, f->main_path, &error));
  g_assert_no_error (error);
  part = test_util_read_file (f->part_path, NULL);
  g_assert_nonnull (strstr (part, "\"Ours\""));
}

/* What cannot be read cannot be told unchanged: not written over unasked either. (A folder
 * in its place: a mode of 0 does not stop root.) */
static void
test_unreadable_refused (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  edit_both (f, "Ours");
  g_assert_cmpint (g_unlink (f->part_path), ==, 0);
  g_assert_cmpint (g_mkdir (f->part_path, 0755), ==, 0);
  g_assert_false (km_cnoid_save (f->project, f->main_path, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_WRONG_ETAG);
  g_assert_true (g_str_has_prefix (error->message,
                                   "The sub-project “part.cnoid” cannot be read to check it"));
  assert_nothing_written (f, NULL);
  g_assert_true (g_file_test (f->part_path, G_FILE_TEST_IS_DIR));
  g_rmdir (f->part_path);
}

/* A sub-project the save does not write (unchanged here) is not checked: their change
 * stays, the project is saved. A `touch`, or their writing the same bytes, is no change. */
static void
test_unwritten_not_checked (Fixture       *f,
                            gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *part = NULL;
  struct utimbuf later = { 2000000000, 2000000000 };

  km_project_rename_item (f->project, km_project_find_item_by_id (f->project, 2), "Edited");
  write_theirs (f, their_text);
  g_assert_true (km_cnoid_save (f->project, f->main_path, &error));
  g_assert_no_error (error);
  part = test_util_read_file (f->part_path, NULL);
  g_assert_cmpstr (part, ==, their_text);
  g_clear_object (&f->project);

  /* Read again, then touched and rewritten as it was: the edit is saved. */
  write_theirs (f, part_text);
  f->project = km_cnoid_load (f->main_path, &error);
  g_assert_no_error (error);
  g_assert_nonnull (sub_child (f->project, "Folder"));
  write_theirs (f, part_text);
  g_assert_cmpint (g_utime (f->part_path, &later), ==, 0);
  km_project_rename_item (f->project, sub_child (f->project, "Folder"), "Ours");
  g_assert_true (km_cnoid_save (f->project, f->main_path, &error));
  g_assert_no_error (error);
  g_clear_pointer (&part, g_free);
  part = test_util_read_file (f->part_path, NULL);
  g_assert_nonnull (strstr (part, "\"Ours\""));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_unsetenv ("KINEMA_CHOREONOID_SHARE");

  g_test_add ("/kinema/CnoidSub/changed-refused", Fixture, NULL, fixture_setup,
              test_changed_refused, fixture_teardown);
  g_test_add ("/kinema/CnoidSub/accept-not-later", Fixture, NULL, fixture_setup,
              test_accept_not_later, fixture_teardown);
  g_test_add ("/kinema/CnoidSub/deleted-refused", Fixture, NULL, fixture_setup,
              test_deleted_refused, fixture_teardown);
  g_test_add ("/kinema/CnoidSub/unreadable-refused", Fixture, NULL, fixture_setup,
              test_unreadable_refused, fixture_teardown);
  g_test_add ("/kinema/CnoidSub/unwritten-not-checked", Fixture, NULL, fixture_setup,
              test_unwritten_not_checked, fixture_teardown);
  return g_test_run ();
}
