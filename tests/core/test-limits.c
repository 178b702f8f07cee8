/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 *
 * The resource limits of the loaders (issue 11), each at limit + 1 with the error it
 * gives. The list of every limit, with where each one is tested, is in
 * tests/fuzz/README.md ("Limits"); the ones tested next to their loader (JSON/YAML depth,
 * YAML aliases, STL triangles, VRML depth, URDF depth, expression depth, sub-project and
 * import cycles) are not repeated here.
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "km-animation-json.h"
#include "km-animation.h"
#include "km-body.h"
#include "km-cnoid.h"
#include "km-error.h"
#include "km-format.h"
#include "km-mesh-loader.h"
#include "km-project.h"
#include "km-scenebuilder.h"
#include "km-skeleton-json.h"
#include "km-sub-project-item.h"
#include "km-skeleton.h"
#include "km-target-track.h"
#include "km-targets-json.h"
#include "km-urdf.h"
#include "km-test-tmp.h"

static void
assert_message (const GError *error,
                const char   *prefix,
                const char   *text)
{
  g_assert_nonnull (error);
  g_assert_true (error->domain == KM_PARSE_ERROR);
  if (!g_str_has_prefix (error->message, prefix) || strstr (error->message, text) == NULL)
    g_error ("expected “%s…%s…”, got “%s”", prefix, text, error->message);
}

/* File size: a bounded read, also of a file that has no size (/dev/zero). */
static void
test_file_size (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autofree char *dir = km_test_make_tmp_dir ("km-limits-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "big.json", NULL);
  g_autofree char *prefix = g_strconcat (path, ": ", NULL);
  g_autofree char *data = g_strnfill (101, ' ');

  g_assert_true (g_file_set_contents (path, data, 101, NULL));
  bytes = km_format_read_file (path, 100, &error);
  g_assert_null (bytes);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT);
  assert_message (error, prefix, "the file is larger than 100 bytes");
  g_clear_error (&error);

  bytes = km_format_read_file (path, 101, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_bytes_get_size (bytes), ==, 101);
  g_clear_pointer (&bytes, g_bytes_unref);

  if (g_file_test ("/dev/zero", G_FILE_TEST_EXISTS))
    {
      bytes = km_format_read_file ("/dev/zero", 1024 * 1024, &error);
      g_assert_null (bytes);
      g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT);
      g_assert_cmpstr (error->message, ==, "/dev/zero: the file is larger than 1 MiB");
      g_clear_error (&error);
    }
  g_unlink (path);
  g_rmdir (dir);
}

/* The address space the process has now, in bytes (0: unknown). */
static guint64
address_space_now (void)
{
  g_autofree char *statm = NULL;

  if (!g_file_get_contents ("/proc/self/statm", &statm, NULL, NULL))
    return 0;
  return g_ascii_strtoull (statm, NULL, 10) * (guint64) sysconf (_SC_PAGESIZE);
}

/* A regular file over the limit is refused at once, from its size, not read up to the
 * limit first (256 MiB held and seconds spent for a 300 MB file). The file is sparse; the
 * child that reads it could not hold 64 MiB more than it has. */
static void
test_file_size_at_once (void)
{
  g_autofree char *dir = km_test_make_tmp_dir ("km-limits-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "huge.json", NULL);
  const char *preload = g_getenv ("LD_PRELOAD");
  int status = 0;
  pid_t pid;
  int fd;

#if defined(__SANITIZE_ADDRESS__)
  g_test_skip ("AddressSanitizer reserves more address space than the child may have");
  return;
#endif
  if (preload != NULL && strstr (preload, "vgpreload") != NULL)
    {
      g_test_skip ("valgrind manages the address space itself");
      return;
    }
  if (address_space_now () == 0)
    {
      g_test_skip ("no /proc/self/statm");
      return;
    }
  fd = g_open (path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (ftruncate (fd, (off_t) 300 * 1000 * 1000), ==, 0);
  close (fd);

  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      struct rlimit limit;
      GError *error = NULL;
      GBytes *bytes;

      limit.rlim_cur = limit.rlim_max = address_space_now () + 64 * 1024 * 1024;
      if (setrlimit (RLIMIT_AS, &limit) != 0)
        _exit (2);
      bytes = km_format_read_file (path, KM_FORMAT_MAX_FILE_SIZE, &error);
      _exit (bytes == NULL && g_error_matches (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT)
             && g_str_has_suffix (error->message, ": the file is larger than 256 MiB")
             ? 0 : 1);
    }
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_unlink (path);
  g_rmdir (dir);
  /* Without the size asked first, the child runs out of memory at about 64 MiB read. */
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);
}

/* The XML loaders refuse an oversized text before parsing it. */
static void
test_xml_size (void)
{
  gsize n = KM_URDF_MAX_SIZE + 1;
  g_autofree char *text = g_malloc (n);
  KmUrdfOptions options = { .package_paths = NULL, .load_meshes = FALSE };
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skeleton = NULL;
  g_autoptr(KmScenebuilderModel) model = NULL;

  g_assert_cmpuint (KM_URDF_MAX_SIZE, ==, KM_SCENEBUILDER_MAX_SIZE);
  memset (text, ' ', n);
  memcpy (text, "<robot name=\"r\">", strlen ("<robot name=\"r\">"));
  skeleton = km_urdf_load ("big.urdf", text, n, &options, &error);
  g_assert_null (skeleton);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT);
  assert_message (error, "big.urdf: ", "larger than 64 MiB");
  g_clear_error (&error);

  model = km_scenebuilder_load ("big.xml", text, n, &error);
  g_assert_null (model);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT);
  assert_message (error, "big.xml: ", "larger than 64 MiB");
}

static void
test_skeleton_joints (void)
{
  GString *text = g_string_new ("{\"root_name\": \"j0\",\n\"joints\": [");
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skeleton = NULL;

  for (guint i = 0; i <= KM_SKELETON_MAX_JOINTS; i++)
    g_string_append_printf (text, "%s{\"name\": \"j%u\", \"type\": \"fixed\"}",
                            i > 0 ? "," : "", i);
  g_string_append (text, "]}");
  skeleton = km_skeleton_json_load ("many.json", text->str, text->len, &error);
  g_assert_null (skeleton);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT);
  g_assert_cmpstr (error->message, ==,
                   "many.json:2:11: expected at most 100000 joints, found 100001");
  g_string_free (text, TRUE);
}

static void
test_joint_name_length (void)
{
  g_autofree char *name = g_strnfill (KM_SKELETON_MAX_NAME + 1, 'n');
  g_autofree char *text = g_strdup_printf ("{\"root_name\": \"%s\",\n\"joints\": "
                                           "[{\"name\": \"%s\", \"type\": \"fixed\", "
                                           "\"offset\": [0, 0, 0]}]}",
                                           name, name);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skeleton = km_skeleton_json_load ("name.json", text, strlen (text),
                                                          &error);

  g_assert_null (skeleton);
  assert_message (error, "name.json:2:", "between 1 and 1024 bytes");
}

static void
test_target_frames (void)
{
  const char *text = "[\n  { \"frame\": 1000001, \"pos\": [0, 0, 0] }\n]";
  g_autoptr(GBytes) bytes = g_bytes_new_static (text, strlen (text));
  g_autoptr(GError) error = NULL;
  g_autoptr(KmTargetTrack) track = km_targets_json_load ("t.json", bytes, &error);

  g_assert_null (track);
  assert_message (error, "t.json:2:14: ", "1000000");
}

static void
test_animation_frames (void)
{
  GString *text = g_string_new ("{\"frames\": [");
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(KmAnimation) animation = NULL;

  for (guint i = 0; i <= KM_ANIMATION_MAX_FRAMES; i++)
    g_string_append (text, i > 0 ? ",0" : "0");
  g_string_append (text, "]}");
  bytes = g_bytes_new_take (text->str, text->len);
  g_string_free (text, FALSE);
  animation = km_animation_json_load ("a.json", bytes, NULL, &error);
  g_assert_null (animation);
  assert_message (error, "a.json:1:12: ", "1000001");
}

static void
test_vrml_shapes (void)
{
  /* Instances (USE) count: the limit is on shapes made, not on text. */
  GString *text = g_string_new ("#VRML V2.0 utf8\n"
                                "DEF S Shape { geometry Box { size 1 1 1 } }\n"
                                "Group { children [\n");
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) shapes = NULL;

  for (guint i = 0; i < 65536; i++)
    g_string_append (text, "USE S\n");
  g_string_append (text, "] }\n");
  shapes = km_mesh_load_vrml ("s.wrl", text->str, text->len, NULL, &error);
  g_assert_null (shapes);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT);
  assert_message (error, "s.wrl:2:7: ", "too many shapes (at most 65536)");
  g_string_free (text, TRUE);
}

static void
test_body_element_depth (void)
{
  GString *text = g_string_new ("format: ChoreonoidBody\n"
                                "format_version: 1.0\n"
                                "name: Deep\n"
                                "links:\n"
                                "  - name: BASE\n"
                                "    jointType: free\n"
                                "    elements: ");
  KmBodyOptions options = { .load_meshes = FALSE };
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skeleton = NULL;

  for (guint i = 0; i < 80; i++)
    g_string_append (text, "{ Transform: { elements: ");
  g_string_append (text, "[ ]");
  for (guint i = 0; i < 80; i++)
    g_string_append (text, " } }");
  g_string_append_c (text, '\n');
  skeleton = km_body_load ("deep.body", text->str, text->len, &options, &error);
  g_assert_null (skeleton);
  assert_message (error, "deep.body:7:", "nested too deeply (at most 64 levels)");
  g_string_free (text, TRUE);
}

static void
test_scenebuilder_elements (void)
{
  GString *text = g_string_new ("<namespace>\n");
  g_autoptr(GError) error = NULL;
  g_autoptr(KmScenebuilderModel) model = NULL;

  for (guint i = 0; i < KM_SCENEBUILDER_MAX_OBJECTS; i++)
    g_string_append (text, "<a/>\n");
  g_string_append (text, "</namespace>\n");
  model = km_scenebuilder_load ("many.xml", text->str, text->len, &error);
  g_assert_null (model);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT);
  assert_message (error, "many.xml:100001:", "too many elements (at most 100000)");
  g_string_free (text, TRUE);
}

/* A chain of files f0 → f1 → … → fN, each including the next. */
static char *
write_chain (const char *dir,
             const char *ext,
             guint       n,
             char     *(*make) (guint i, guint n))
{
  for (guint i = 0; i <= n; i++)
    {
      g_autofree char *name = g_strdup_printf ("f%u.%s", i, ext);
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autofree char *text = make (i, n);

      g_assert_true (g_file_set_contents (path, text, -1, NULL));
    }
  return g_strdup_printf ("%s/f0.%s", dir, ext);
}

static void
remove_chain (const char *dir,
              const char *ext,
              guint       n)
{
  for (guint i = 0; i <= n; i++)
    {
      g_autofree char *name = g_strdup_printf ("f%u.%s", i, ext);
      g_autofree char *path = g_build_filename (dir, name, NULL);

      g_unlink (path);
    }
}

static char *
import_file (guint i,
             guint n)
{
  if (i == n)
    return g_strdup ("<namespace>\n  <body name=\"b\"/>\n</namespace>\n");
  return g_strdup_printf ("<namespace>\n  <import name=\"n\" filename=\"f%u.xml\"/>\n"
                          "</namespace>\n", i + 1);
}

static void
test_scenebuilder_import_depth (void)
{
  g_autofree char *dir = km_test_make_tmp_dir ("km-limits-XXXXXX");
  g_autofree char *first = NULL;
  g_autofree char *data = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(KmScenebuilderModel) model = NULL;
  g_autofree char *prefix = NULL;
  gsize length = 0;

  /* KM_SCENEBUILDER_MAX_IMPORTS levels load; one more fails. */
  first = write_chain (dir, "xml", KM_SCENEBUILDER_MAX_IMPORTS, import_file);
  g_assert_true (g_file_get_contents (first, &data, &length, NULL));
  model = km_scenebuilder_load (first, data, length, &error);
  g_assert_no_error (error);
  g_clear_pointer (&model, km_scenebuilder_model_free);
  remove_chain (dir, "xml", KM_SCENEBUILDER_MAX_IMPORTS);

  g_free (first);
  first = write_chain (dir, "xml", KM_SCENEBUILDER_MAX_IMPORTS + 1, import_file);
  model = km_scenebuilder_load (first, data, length, &error);
  g_assert_null (model);
  prefix = g_strdup_printf ("%s/f%d.xml:2:3: ", dir, KM_SCENEBUILDER_MAX_IMPORTS);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT);
  assert_message (error, prefix, "imports nested too deeply (at most 16 levels)");
  remove_chain (dir, "xml", KM_SCENEBUILDER_MAX_IMPORTS + 1);
  g_rmdir (dir);
}

/* A 4 MiB file imported 17 times: each import is small, together they are too large. */
static void
test_scenebuilder_import_bytes (void)
{
  g_autofree char *dir = km_test_make_tmp_dir ("km-limits-XXXXXX");
  g_autofree char *big = g_build_filename (dir, "big.xml", NULL);
  g_autofree char *top = g_build_filename (dir, "top.xml", NULL);
  g_autofree char *filler = g_strnfill (4 * 1024 * 1024, 'x');
  g_autofree char *big_text = g_strdup_printf ("<namespace>\n<!-- %s -->\n"
                                               "<body name=\"b\"/>\n</namespace>\n", filler);
  GString *text = g_string_new ("<namespace>\n");
  g_autoptr(GError) error = NULL;
  g_autoptr(KmScenebuilderModel) model = NULL;
  g_autofree char *prefix = g_strdup_printf ("%s:17:30: ", top);

  for (guint i = 0; i < 17; i++)
    g_string_append_printf (text, "<import name=\"n%u\" filename=\"big.xml\"/>\n", i);
  g_string_append (text, "</namespace>\n");
  g_assert_true (g_file_set_contents (big, big_text, -1, NULL));
  g_assert_true (g_file_set_contents (top, text->str, text->len, NULL));
  model = km_scenebuilder_load (top, text->str, text->len, &error);
  g_assert_null (model);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT);
  assert_message (error, prefix, "the imported files are larger than 64 MiB in all");
  g_string_free (text, TRUE);
  g_unlink (big);
  g_unlink (top);
  g_rmdir (dir);
}

/* An imported file too large to read is an error about that whole file: located at
 * FILE:1:1, as the same file read directly is (km_format_load_model_file()), then where it
 * was imported (rev19-cli finding 3). A regular file (sparse, refused by its size) and
 * /dev/zero (no size: counted as read). */
static void
test_scenebuilder_import_too_large (void)
{
  g_autofree char *dir = km_test_make_tmp_dir ("km-limits-XXXXXX");
  g_autofree char *big = g_build_filename (dir, "big.xml", NULL);
  g_autofree char *top = g_build_filename (dir, "top.xml", NULL);
  const char *imported[] = { big, "/dev/zero" };
  int fd;

  fd = g_open (big, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (ftruncate (fd, (off_t) KM_SCENEBUILDER_MAX_SIZE + 1), ==, 0);
  g_assert_cmpint (close (fd), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (imported); i++)
    {
      g_autofree char *text = g_strdup_printf ("<namespace>\n<import name=\"f\" "
                                               "filename=\"%s\"/>\n</namespace>\n",
                                               imported[i]);
      g_autofree char *expected = g_strdup_printf ("%s:1:1: the file is larger than 64 MiB\n"
                                                   "included from %s:2:28", imported[i], top);
      g_autoptr(GError) error = NULL;
      g_autoptr(KmScenebuilderModel) model = NULL;

      if (!g_file_test (imported[i], G_FILE_TEST_EXISTS))
        continue;
      model = km_scenebuilder_load (top, text, strlen (text), &error);
      g_assert_null (model);
      g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT);
      g_assert_cmpstr (error->message, ==, expected);
    }
  g_unlink (big);
  g_rmdir (dir);
}

/* A named pipe with no writer, read with the default settings (the editor's: Reload reads on
 * the main thread): refused at once as a pipe with no writer, never waited for (only
 * kinema-cli asks for a wait, KmFormatLoadOptions.fifo_wait_s). The load has let the pipe
 * go when it returns: a writer that opens then finds no reader (ENXIO), nothing is read. */
static void
test_fifo_no_writer_no_wait (void)
{
  g_autofree char *dir = km_test_make_tmp_dir ("km-limits-XXXXXX");
  g_autofree char *fifo = g_build_filename (dir, "pipe.json", NULL);
  g_autofree char *expected = g_strdup_printf ("%s:1:1: not a file Kinema can read: a pipe "
                                               "with no writer", fifo);
  g_autoptr(GError) error = NULL;
  gpointer loaded;
  int fd;

  if (mkfifo (fifo, 0600) != 0)
    {
      g_test_skip ("mkfifo is not supported here");
      g_rmdir (dir);
      return;
    }
  loaded = km_format_load_model_file (fifo, NULL, NULL, NULL, &error);
  g_assert_null (loaded);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_IO);
  g_assert_cmpstr (error->message, ==, expected);
  fd = g_open (fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC, 0);
  g_assert_cmpint (fd, <, 0);
  g_assert_cmpint (errno, ==, ENXIO);
  g_unlink (fifo);
  g_rmdir (dir);
}

static void
collect_warning (const char *message,
                 gpointer    user_data)
{
  g_ptr_array_add (user_data, g_strdup (message));
}

/* The wait for a pipe's writer is the load's caller's option, not a setting of the
 * process: a load given fifo_wait_s waits that long, for the file itself and for one its
 * loader reads (a scene's import); the loads after it, with the defaults, wait for none,
 * and a load inside another (a project's model) reads as the enclosing one does. */
static void
test_fifo_wait_load_options (void)
{
  g_autofree char *dir = km_test_make_tmp_dir ("km-limits-XXXXXX");
  g_autofree char *fifo = g_build_filename (dir, "pipe.xml", NULL);
  g_autofree char *top = g_build_filename (dir, "top.xml", NULL);
  g_autofree char *project_path = g_build_filename (dir, "p.cnoid", NULL);
  const char *project_text = "items:\n  id: 0\n  plugin: Base\n  class: RootItem\n"
                             "  children:\n    - { id: 1, name: \"m\", plugin: Body, "
                             "class: BodyItem, data: { file: \"pipe.xml\" } }\n";
  const char *scene = "<namespace>\n<body name=\"b\"/>\n"
                      "<import name=\"f\" filename=\"pipe.xml\"/>\n</namespace>\n";
  const KmFormatLoadOptions wait = { .fifo_wait_s = 1 };
  g_autofree char *direct = g_strdup_printf ("%s:1:1: not a file Kinema can read: a pipe "
                                             "with no writer (none came within 1 second)",
                                             fifo);
  const char *waited = "“pipe.xml”: not a file Kinema can read: a pipe with no writer (none "
                       "came within 1 second); nothing is imported";
  const char *refused = "“pipe.xml”: not a file Kinema can read: a pipe with no writer; "
                        "nothing is imported";

  if (mkfifo (fifo, 0600) != 0)
    {
      g_test_skip ("mkfifo is not supported here");
      g_rmdir (dir);
      return;
    }
  g_assert_true (g_file_set_contents (top, scene, -1, NULL));
  g_assert_true (g_file_set_contents (project_path, project_text, -1, NULL));

  for (guint round = 0; round < 2; round++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
      const KmFormat *format = NULL;
      const char *message;
      gpointer loaded;

      /* The pipe itself: waited for only with the option. */
      loaded = km_format_load_model_file_full (fifo, NULL, round == 0 ? &wait : NULL, NULL,
                                               NULL, &error);
      g_assert_null (loaded);
      g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_IO);
      if (round == 0)
        g_assert_cmpstr (error->message, ==, direct);
      else
        g_assert_cmpstr (strstr (error->message, "a pipe with no writer"), ==,
                         "a pipe with no writer");

      /* Imported by a scene: the import is read as the scene is. */
      km_parse_warnings_push (collect_warning, warnings);
      loaded = km_format_load_model_file_full (top, NULL, round == 0 ? &wait : NULL, &format,
                                               NULL, NULL);
      km_parse_warnings_pop ();
      g_assert_nonnull (loaded);
      format->free_result (loaded);
      g_assert_cmpuint (warnings->len, ==, 1);
      if (strstr (g_ptr_array_index (warnings, 0), round == 0 ? waited : refused) == NULL)
        g_error ("round %u: no “%s” in “%s”", round, round == 0 ? waited : refused,
                 (const char *) g_ptr_array_index (warnings, 0));

      /* A project's model: its own load (km_format_load_model_file(), no options) inside
       * the project's reads as the project's does. */
      g_clear_error (&error);
      g_ptr_array_set_size (warnings, 0);
      km_parse_warnings_push (collect_warning, warnings);
      loaded = km_format_load_model_file_full (project_path, NULL, round == 0 ? &wait : NULL,
                                               &format, NULL, &error);
      km_parse_warnings_pop ();
      g_assert_no_error (error);
      g_assert_nonnull (loaded);
      g_assert_cmpint (format->kind, ==, KM_FILE_KIND_PROJECT);
      g_assert_cmpuint (warnings->len, ==, 1);
      message = g_ptr_array_index (warnings, 0);
      if (strstr (message, round == 0 ? "a pipe with no writer (none came within 1 second)\n"
                                      : "a pipe with no writer\n") == NULL)
        g_error ("round %u: “%s”", round, message);
      format->free_result (loaded);
    }
  g_unlink (project_path);
  g_unlink (fifo);
  g_unlink (top);
  g_rmdir (dir);
}

static char *
sub_project_file (guint i,
                  guint n)
{
  GString *s = g_string_new ("items:\n"
                             "  id: 0\n"
                             "  name: \"RootItem\"\n"
                             "  plugin: Base\n"
                             "  class: RootItem\n"
                             "  is_builtin_item: true\n");

  if (i < n)
    g_string_append_printf (s, "  children:\n"
                            "    -\n"
                            "      id: 1\n"
                            "      name: \"Level %u\"\n"
                            "      plugin: Base\n"
                            "      class: SubProjectItem\n"
                            "      data:\n"
                            "        file: \"f%u.cnoid\"\n", i + 1, i + 1);
  return g_string_free (s, FALSE);
}

static void
test_sub_project_depth (void)
{
  g_autofree char *dir = km_test_make_tmp_dir ("km-limits-XXXXXX");
  g_autofree char *first = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(KmProject) project = NULL;
  GPtrArray *messages;
  const char *message;
  g_autofree char *prefix = NULL;

  first = write_chain (dir, "cnoid", KM_CNOID_MAX_SUB_PROJECT_DEPTH, sub_project_file);
  project = km_cnoid_load (first, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (km_project_get_messages (project)->len, ==, 0);
  g_clear_object (&project);
  remove_chain (dir, "cnoid", KM_CNOID_MAX_SUB_PROJECT_DEPTH);

  g_free (first);
  first = write_chain (dir, "cnoid", KM_CNOID_MAX_SUB_PROJECT_DEPTH + 1, sub_project_file);
  project = km_cnoid_load (first, &error);
  g_assert_no_error (error);
  messages = km_project_get_messages (project);
  g_assert_cmpuint (messages->len, ==, 1);
  message = g_ptr_array_index (messages, 0);
  prefix = g_strdup_printf ("%s/f%d.cnoid:14:15: sub-projects are nested more than 16 deep; "
                            "“f%d.cnoid” is not loaded\n", dir,
                            KM_CNOID_MAX_SUB_PROJECT_DEPTH, KM_CNOID_MAX_SUB_PROJECT_DEPTH + 1);
  if (!g_str_has_prefix (message, prefix))
    g_error ("expected “%s…”, got “%s”", prefix, message);
  remove_chain (dir, "cnoid", KM_CNOID_MAX_SUB_PROJECT_DEPTH + 1);
  g_rmdir (dir);
}

static char *
fan_out_file (guint i,
              guint n)
{
  GString *s = g_string_new ("items:\n"
                             "  id: 0\n"
                             "  name: \"RootItem\"\n"
                             "  plugin: Base\n"
                             "  class: RootItem\n"
                             "  is_builtin_item: true\n");

  if (i < n)
    {
      g_string_append (s, "  children:\n");
      for (guint k = 1; k <= 4; k++)
        g_string_append_printf (s, "    -\n"
                                "      id: %u\n"
                                "      name: \"Copy %u\"\n"
                                "      plugin: Base\n"
                                "      class: SubProjectItem\n"
                                "      data:\n"
                                "        file: \"f%u.cnoid\"\n", k, k, i + 1);
    }
  return g_string_free (s, FALSE);
}

/* Sub-project items that were read (a refused one has a problem). */
static guint
count_loaded_sub_projects (KmItem *item)
{
  guint n = 0;

  if (G_TYPE_CHECK_INSTANCE_TYPE (item, KM_TYPE_SUB_PROJECT_ITEM) &&
      km_item_get_problem (item) == NULL)
    n++;
  for (guint i = 0; i < km_item_get_n_children (item); i++)
    n += count_loaded_sub_projects (km_item_get_child (item, i));
  return n;
}

/* Four copies of the next file on each of 6 levels: 5460 sub-projects, shallow ones. */
static void
test_sub_project_count (void)
{
  g_autofree char *dir = km_test_make_tmp_dir ("km-limits-XXXXXX");
  g_autofree char *first = write_chain (dir, "cnoid", 6, fan_out_file);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmProject) project = NULL;
  GPtrArray *messages;
  guint n_refused = 0;

  project = km_cnoid_load (first, &error);
  g_assert_no_error (error);
  /* Depth first: 1024 sub-projects are read, every later one is refused with a message. */
  g_assert_cmpuint (count_loaded_sub_projects (km_project_get_root_item (project)), ==,
                    KM_CNOID_MAX_SUB_PROJECTS);
  messages = km_project_get_messages (project);
  for (guint i = 0; i < messages->len; i++)
    if (strstr (g_ptr_array_index (messages, i),
                "more than 1024 sub-projects in all; “f") != NULL)
      n_refused++;
  g_assert_cmpuint (n_refused, >, 0);
  g_assert_cmpuint (messages->len, ==, n_refused);
  g_clear_object (&project);
  remove_chain (dir, "cnoid", 6);
  g_rmdir (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/kinema/Limits/file-size", test_file_size);
  g_test_add_func ("/kinema/Limits/file-size-at-once", test_file_size_at_once);
  g_test_add_func ("/kinema/Limits/xml-size", test_xml_size);
  g_test_add_func ("/kinema/Limits/skeleton-joints", test_skeleton_joints);
  g_test_add_func ("/kinema/Limits/joint-name-length", test_joint_name_length);
  g_test_add_func ("/kinema/Limits/target-frames", test_target_frames);
  g_test_add_func ("/kinema/Limits/animation-frames", test_animation_frames);
  g_test_add_func ("/kinema/Limits/vrml-shapes", test_vrml_shapes);
  g_test_add_func ("/kinema/Limits/body-element-depth", test_body_element_depth);
  g_test_add_func ("/kinema/Limits/scenebuilder-elements", test_scenebuilder_elements);
  g_test_add_func ("/kinema/Limits/scenebuilder-import-depth", test_scenebuilder_import_depth);
  g_test_add_func ("/kinema/Limits/scenebuilder-import-bytes", test_scenebuilder_import_bytes);
  g_test_add_func ("/kinema/Limits/scenebuilder-import-too-large",
                   test_scenebuilder_import_too_large);
  g_test_add_func ("/kinema/Limits/fifo-no-writer-no-wait", test_fifo_no_writer_no_wait);
  g_test_add_func ("/kinema/Limits/fifo-wait-load-options", test_fifo_wait_load_options);
  g_test_add_func ("/kinema/Limits/sub-project-depth", test_sub_project_depth);
  g_test_add_func ("/kinema/Limits/sub-project-count", test_sub_project_count);

  return g_test_run ();
}
