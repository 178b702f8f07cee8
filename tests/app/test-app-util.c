/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "km-document-skeleton.h"
#include "km-item-tree.h"
#include "km-joint-panel.h"
#include "km-message.h"
#include "test-app-util.h"

#ifdef GDK_WINDOWING_X11
#include <gdk/x11/gdkx.h>
#endif

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

/* The _finish of whichever of the document's save, export, recover or autosave calls
 * @result is of (told by its source tag). */
gboolean
test_app_document_finish (KmDocument    *document,
                          GAsyncResult  *result,
                          GError       **error)
{
  gpointer tag = g_task_get_source_tag (G_TASK (result));

  if (tag == km_document_save_async)
    return km_document_save_finish (document, result, error);
  if (tag == km_document_save_skeleton_async)
    return km_document_save_skeleton_finish (document, result, error);
  if (tag == km_document_export_skeleton_async)
    return km_document_export_skeleton_finish (document, result, error);
  if (tag == km_document_save_with_body_copies_async)
    return km_document_save_with_body_copies_finish (document, result, error);
  if (tag == km_document_recover_async)
    return km_document_recover_finish (document, result, error);
  if (tag == km_document_write_autosave_async)
    return km_document_write_autosave_finish (document, result, error);
  g_assert_not_reached ();
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

/* Runs the main loop until @window has no file left to open or recover (at most 20 s).
 * Returns whether it has none. */
gboolean
test_app_wait_loaded (KmWindow *window)
{
  return test_app_wait_until (loaded, window, 20000);
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

static gboolean
not_saving (gpointer window)
{
  return !km_window_get_saving (window);
}

/* Runs the main loop until @window's project save is written (at most 20 s). Returns
 * whether it is. */
gboolean
test_app_wait_saved (KmWindow *window)
{
  return test_app_wait_until (not_saving, window, 20000);
}

static gboolean
document_not_saving (gpointer document)
{
  return !km_document_get_saving (document);
}

/* The same for a save started on @document itself (km_document_save_async). */
gboolean
test_app_wait_document_saved (KmDocument *document)
{
  return test_app_wait_until (document_not_saving, document, 20000);
}

static gboolean
not_reloading (gpointer tree)
{
  return !km_item_tree_get_reloading (tree);
}

/* Runs the main loop until the Reloads of @tree (a KmItemTree) read their files and were
 * applied (at most 20 s). Returns whether they were. */
gboolean
test_app_wait_reloaded (GtkWidget *tree)
{
  return test_app_wait_until (not_reloading, tree, 20000);
}

static gboolean
flag_set (gpointer flag)
{
  return *(gboolean *) flag;
}

/* Runs the main loop until *@flag is TRUE (an async callback set it), for at most @ms
 * milliseconds. Returns whether it is. */
gboolean
test_app_wait_flag (gboolean *flag,
                    guint     ms)
{
  return test_app_wait_until (flag_set, flag, ms);
}

static gboolean
pointer_cleared (gpointer location)
{
  return *(gpointer *) location == NULL;
}

/* Drops the caller's reference to @object, then runs the main loop until it is finalized
 * (at most @ms milliseconds): a worker that held it a moment longer (a solve, a save)
 * hands it back through the main loop. Returns whether it was finalized. */
gboolean
test_app_unref_and_wait_finalized (gpointer object,
                                   guint    ms)
{
  gpointer watched = object;

  g_object_add_weak_pointer (object, &watched);
  g_object_unref (object);
  test_app_spin ();
  return test_app_wait_until (pointer_cleared, &watched, ms);
}

/* A window of @width × @height on the built-in example, presented; its first solve may
 * still be running. */
KmWindow *
test_app_example_window (int width,
                         int height)
{
  KmWindow *window = km_window_new (NULL);

  gtk_window_set_default_size (GTK_WINDOW (window), width, height);
  g_assert_true (km_window_open_example (window));
  gtk_window_present (GTK_WINDOW (window));
  return window;
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

static void
xdotool_done_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  g_subprocess_wait_check_finish (G_SUBPROCESS (object), result, &error);
  g_assert_no_error (error);
  *(gboolean *) user_data = TRUE;
}

/* Runs xdotool with @args (its arguments; the program name and the NULL end are added)
 * while the main loop keeps going, then handles the events it sent: xdotool has exited,
 * but its events may still wait in our queue, and a round trip to the X server of
 * @widget's display puts every one of them there. */
void
test_app_xdotool (GtkWidget *widget,
                  GPtrArray *args)
{
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;
  gboolean done = FALSE;

#ifdef GDK_WINDOWING_X11
  /* A key the server sees held past its autorepeat delay (a loaded machine can deschedule
   * xdotool between press and release) would arrive twice or more; tests count presses. */
  if (GDK_IS_X11_DISPLAY (gtk_widget_get_display (widget)))
    {
      Display *xdisplay = gdk_x11_display_get_xdisplay (gtk_widget_get_display (widget));

      XAutoRepeatOff (xdisplay);
      XSync (xdisplay, False);
    }
#endif
  g_ptr_array_insert (args, 0, g_find_program_in_path ("xdotool"));
  g_ptr_array_add (args, NULL);
  process = g_subprocess_newv ((const char * const *) args->pdata, G_SUBPROCESS_FLAGS_NONE,
                               &error);
  g_assert_no_error (error);
  g_subprocess_wait_check_async (process, NULL, xdotool_done_cb, &done);
  g_assert_true (test_app_wait_flag (&done, 20000));
  gdk_display_sync (gtk_widget_get_display (widget));
  test_app_spin_for (60);
}

/* Destroys *@window once its document's solve has finished, and asserts that the window
 * and the document (*@document, the window's) are both finalized, nothing holding them. */
void
test_app_destroy_window (KmWindow   **window,
                         KmDocument **document)
{
  g_assert_true (test_app_wait_idle_solve (*document, 20000));
  g_object_add_weak_pointer (G_OBJECT (*document), (gpointer *) document);
  g_object_add_weak_pointer (G_OBJECT (*window), (gpointer *) window);
  /* Whatever a test left unsaved is dropped: destroying does not ask. */
  gtk_window_destroy (GTK_WINDOW (*window));
  test_app_spin ();
  g_assert_null (*window);
  g_assert_null (*document);
}

/* Appends to @args the xdotool command that moves the pointer to (@x, @y) of @widget
 * (its coordinates, in its toplevel X window; on another backend, nothing). */
void
test_app_add_pointer_move_to (GPtrArray *args,
                              GtkWidget *widget,
                              double     x,
                              double     y)
{
#ifdef GDK_WINDOWING_X11
  GtkWidget *window = GTK_WIDGET (gtk_widget_get_root (widget));
  GdkSurface *surface = gtk_native_get_surface (GTK_NATIVE (window));
  double wx, wy, sx, sy;

  if (!GDK_IS_X11_SURFACE (surface))
    return;
  g_assert_true (gtk_widget_translate_coordinates (widget, window, x, y, &wx, &wy));
  gtk_native_get_surface_transform (GTK_NATIVE (window), &sx, &sy);
  g_ptr_array_add (args, g_strdup ("mousemove"));
  g_ptr_array_add (args, g_strdup ("--window"));
  g_ptr_array_add (args, g_strdup_printf ("%lu", (gulong) gdk_x11_surface_get_xid (surface)));
  g_ptr_array_add (args, g_strdup_printf ("%ld", lround (wx + sx)));
  g_ptr_array_add (args, g_strdup_printf ("%ld", lround (wy + sy)));
#endif
}

/* The same, to the middle of @widget. */
void
test_app_add_pointer_move (GPtrArray *args,
                           GtkWidget *widget)
{
  test_app_add_pointer_move_to (args, widget, gtk_widget_get_width (widget) / 2.0,
                                gtk_widget_get_height (widget) / 2.0);
}

typedef struct
{
  KmSceneView *view;
  guint        renders;
} RenderWait;

static gboolean
rendered_since (gpointer data)
{
  RenderWait *wait = data;

  return km_scene_view_get_n_renders (wait->view) > wait->renders;
}

/* The scene as @view draws it next (B, G, R, A; free with g_free). */
guint8 *
test_app_scene_pixels (KmSceneView *view,
                       int         *width,
                       int         *height)
{
  RenderWait wait = { view, km_scene_view_get_n_renders (view) };
  g_autoptr(GdkTexture) texture = NULL;
  guint8 *pixels;

  gtk_gl_area_queue_render (GTK_GL_AREA (view));
  g_assert_true (test_app_wait_until (rendered_since, &wait, 5000));
  texture = km_scene_view_grab_texture (view);
  g_assert_nonnull (texture);
  *width = gdk_texture_get_width (texture);
  *height = gdk_texture_get_height (texture);
  pixels = g_malloc ((gsize) *width * *height * 4);
  gdk_texture_download (texture, pixels, (gsize) *width * 4);
  return pixels;
}

/* Where @world shows in @view, in the view's logical pixels (asserts it is in front). */
void
test_app_project (KmSceneView *view,
                  KmVec3       world,
                  double      *x,
                  double      *y)
{
  g_assert_true (km_camera_project (km_scene_view_get_camera (view), world,
                                    gtk_widget_get_width (GTK_WIDGET (view)),
                                    gtk_widget_get_height (GTK_WIDGET (view)), x, y));
}

/* Dispatches every pending source without blocking. */
void
test_app_spin (void)
{
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

/* What every GUI test's main() does first: GTK's software renderer unless the environment
 * chose one, GTest with isolated user folders, GTK. */
void
test_app_init (int    *argc,
               char ***argv)
{
  g_setenv ("GSK_RENDERER", "cairo", FALSE);
  g_test_init (argc, argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  gtk_init ();
}

typedef gboolean (*WidgetMatch) (GtkWidget    *widget,
                                 gconstpointer data);

/* The first widget at or below @widget, depth first, of @type that @match accepts. */
static GtkWidget *
find_widget (GtkWidget    *widget,
             GType         type,
             WidgetMatch   match,
             gconstpointer data)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type) && (match == NULL || match (widget, data)))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_widget (child, type, match, data);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The first item of @type below @item, in preorder, or NULL. */
KmItem *
test_app_find_item (KmItem *item,
                    GType   type)
{
  for (guint i = 0; i < km_item_get_n_children (item); i++)
    {
      KmItem *child = km_item_get_child (item, i);
      KmItem *found = G_TYPE_CHECK_INSTANCE_TYPE (child, type) ? child
                                                                : test_app_find_item (child, type);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The first widget of @type at or below @root, or NULL. */
GtkWidget *
test_app_find_widget (GtkWidget *root,
                      GType      type)
{
  return find_widget (root, type, NULL, NULL);
}

static gboolean
label_is (GtkWidget    *widget,
          gconstpointer text)
{
  return g_strcmp0 (gtk_label_get_text (GTK_LABEL (widget)), text) == 0;
}

/* The first label at or below @root that shows @text, or NULL. */
GtkWidget *
test_app_find_label (GtkWidget  *root,
                     const char *text)
{
  return find_widget (root, GTK_TYPE_LABEL, label_is, text);
}

static gboolean
action_is (GtkWidget    *widget,
           gconstpointer action_name)
{
  return GTK_IS_ACTIONABLE (widget)
         && g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (widget)),
                       action_name) == 0;
}

/* The first actionable widget of @type at or below @root bound to @action_name, or NULL. */
GtkWidget *
test_app_find_action (GtkWidget  *root,
                      GType       type,
                      const char *action_name)
{
  return find_widget (root, type, action_is, action_name);
}

static gboolean
is_pose_list (GtkWidget    *widget,
              gconstpointer data)
{
  GtkSelectionModel *model = gtk_list_view_get_model (GTK_LIST_VIEW (widget));

  return GTK_IS_NO_SELECTION (model)
         && g_list_model_get_item_type (gtk_no_selection_get_model (GTK_NO_SELECTION (model)))
            == GTK_TYPE_ADJUSTMENT;
}

/* The Pose tab's list of rows at or below @root: the list view over the DOFs' adjustments
 * (the configuration bar's drop-down has a list view too), or NULL. */
GtkWidget *
test_app_find_pose_list (GtkWidget *root)
{
  return find_widget (root, GTK_TYPE_LIST_VIEW, is_pose_list, NULL);
}

/* For test_app_wait_until: whether the Pose tab's list of the KmJointPanel @panel has a row
 * for each of its DOFs (it may be given them in idle chunks). */
gboolean
test_app_pose_list_filled (gpointer panel)
{
  GtkWidget *list = test_app_find_pose_list (GTK_WIDGET (panel));

  return list != NULL
         && g_list_model_get_n_items (G_LIST_MODEL (gtk_list_view_get_model (GTK_LIST_VIEW (list))))
            == km_joint_panel_get_n_rows (KM_JOINT_PANEL (panel));
}

/* @widget as the user sees it, drawn over white by GSK's cairo renderer (no GL): B, G,
 * R, A premultiplied, *@w_out × *@h_out, freed with g_free(). */
guint8 *
test_app_render_widget (GtkWidget *widget,
                        int       *w_out,
                        int       *h_out)
{
  g_autoptr(GdkPaintable) paintable = NULL;
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  g_autoptr(GskRenderer) renderer = gsk_cairo_renderer_new ();
  g_autoptr(GError) error = NULL;
  GtkSnapshot *snapshot;
  guint8 *pixels;
  int w, h;

  g_assert_true (gsk_renderer_realize (renderer, NULL, &error));
  g_assert_no_error (error);
  w = gtk_widget_get_width (widget);
  h = gtk_widget_get_height (widget);
  g_assert_cmpint (w, >, 0);
  g_assert_cmpint (h, >, 0);
  paintable = gtk_widget_paintable_new (widget);
  snapshot = gtk_snapshot_new ();
  gtk_snapshot_append_color (snapshot, &(GdkRGBA) { 1, 1, 1, 1 },
                             &GRAPHENE_RECT_INIT (0, 0, w, h));
  gdk_paintable_snapshot (paintable, snapshot, w, h);
  node = gtk_snapshot_free_to_node (snapshot);
  texture = gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, w, h));
  pixels = g_malloc ((gsize) w * h * 4);
  gdk_texture_download (texture, pixels, (gsize) w * 4);
  gsk_renderer_unrealize (renderer);
  *w_out = w;
  *h_out = h;
  return pixels;
}

/* Whether real input (xdotool, through the X server) can reach @widget: on X11 with
 * xdotool installed. Otherwise the test is skipped, saying why. */
gboolean
test_app_real_input_or_skip (GtkWidget *widget)
{
  g_autofree char *xdotool = g_find_program_in_path ("xdotool");

#ifdef GDK_WINDOWING_X11
  if (!GDK_IS_X11_DISPLAY (gtk_widget_get_display (widget)))
#endif
    {
      g_test_skip ("not on X11");
      return FALSE;
    }
  if (xdotool == NULL)
    {
      g_test_skip ("xdotool is not installed");
      return FALSE;
    }
  return TRUE;
}

/* Real key presses: gives @window the X focus (and @focus, when not NULL, the keyboard
 * focus), then runs the xdotool commands @first, … (NULL-terminated): "key", "ctrl+z",
 * "type", "200", …. */
void
test_app_real_keys (GtkWidget  *window,
                    GtkWidget  *focus,
                    const char *first,
                    ...)
{
#ifdef GDK_WINDOWING_X11
  g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  GdkSurface *surface = gtk_native_get_surface (GTK_NATIVE (window));
  va_list ap;

  if (!GDK_IS_X11_SURFACE (surface))
    return;
  if (focus != NULL)
    g_assert_true (gtk_widget_grab_focus (focus));
  g_ptr_array_add (args, g_strdup ("windowfocus"));
  g_ptr_array_add (args, g_strdup ("--sync"));
  g_ptr_array_add (args, g_strdup_printf ("%lu", (gulong) gdk_x11_surface_get_xid (surface)));
  va_start (ap, first);
  for (const char *arg = first; arg != NULL; arg = va_arg (ap, const char *))
    g_ptr_array_add (args, g_strdup (arg));
  va_end (ap);
  test_app_xdotool (window, args);
  test_app_spin_for (100);
#endif
}

static guint
count_messages_va (KmDocument     *document,
                   GLogLevelFlags  level,
                   va_list         parts)
{
  GListModel *messages = km_document_get_messages (document);
  guint n = 0;

  for (guint i = 0; i < g_list_model_get_n_items (messages); i++)
    {
      g_autoptr(KmMessage) message = g_list_model_get_item (messages, i);
      gboolean all = level == 0 || km_message_get_level (message) == level;
      const char *part;
      va_list args;

      va_copy (args, parts);
      while (all && (part = va_arg (args, const char *)) != NULL)
        all = strstr (km_message_get_text (message), part) != NULL;
      va_end (args);
      if (all)
        n++;
    }
  return n;
}

/* How many messages of @level (0: any) in @document's message view contain every one of
 * the NULL-terminated strings that follow. */
guint
test_app_count_messages (KmDocument     *document,
                         GLogLevelFlags  level,
                         ...)
{
  va_list parts;
  guint n;

  va_start (parts, level);
  n = count_messages_va (document, level, parts);
  va_end (parts);
  return n;
}

/* Whether a message of @level (0: any) contains every one of the NULL-terminated strings
 * that follow. */
gboolean
test_app_has_message (KmDocument     *document,
                      GLogLevelFlags  level,
                      ...)
{
  va_list parts;
  guint n;

  va_start (parts, level);
  n = count_messages_va (document, level, parts);
  va_end (parts);
  return n > 0;
}

/* Writes a skeleton.json of @n_joints joints to @path: a fixed root "j0", then revolute
 * joints "j1" … each hung on one of the five joints before it (seeded, so the same tree
 * every time: about n_joints / 3 levels deep), as a large model for tests and benchmarks. */
void
test_app_write_tree (const char *path,
                     guint       n_joints)
{
  g_autoptr(GString) json = g_string_new ("{\"root_name\": \"j0\", \"joints\": "
                                          "[{\"name\": \"j0\", \"type\": \"fixed\", "
                                          "\"offset\": [0, 0, 0]}");
  g_autoptr(GRand) rand = g_rand_new_with_seed (17);
  g_autoptr(GError) error = NULL;

  for (guint i = 1; i < n_joints; i++)
    {
      guint parent = i - (guint) g_rand_int_range (rand, 1, MIN ((gint32) i, 5) + 1);

      g_string_append_printf (json, ", {\"name\": \"j%u\", \"type\": \"revolute\", "
                              "\"parent\": \"j%u\", \"offset\": [0.05, %d.05, 0.1], "
                              "\"axis\": [0, %u, %u], \"limits\": [-1.5, 1.5]}", i, parent,
                              (int) (i % 3) - 1, i % 2, (i + 1) % 2);
    }
  g_string_append (json, "]}");
  if (!g_file_set_contents (path, json->str, (gssize) json->len, &error))
    g_error ("%s", error->message);
}

/* Copies the arm project of the test data (data/cnoid/kinema) into @dir: arm.cnoid as
 * @project_name, with the arm.json and targets.json it refers to. */
void
test_app_copy_arm_project (const char *dir,
                           const char *project_name)
{
  static const char * const names[] = { "arm.cnoid", "arm.json", "targets.json" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *from = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "kinema",
                                                     names[i], NULL);
      g_autofree char *to = g_build_filename (dir, i == 0 ? project_name : names[i], NULL);
      g_autofree char *contents = NULL;
      gsize length = 0;

      g_assert_true (g_file_get_contents (from, &contents, &length, NULL));
      g_assert_true (g_file_set_contents (to, contents, (gssize) length, NULL));
    }
}

/* Writes at @path a project whose one item is the sub-project "Robot part" read from @part
 * (as the project names it), followed by @tail (nullable: the project's toolbars). */
void
test_app_write_sub_project_main (const char *path,
                                 const char *part,
                                 const char *tail)
{
  g_autofree char *text = g_strdup_printf ("items:\n"
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
                                           "        file: \"%s\"\n"
                                           "%s", part, tail != NULL ? tail : "");

  g_assert_true (g_file_set_contents (path, text, -1, NULL));
}

/* GTK's file chooser needs its GSettings schema, which the isolated XDG_DATA_DIRS of a
 * test hide: the system's schemas, found before they are hidden (call it before
 * gtk_init), unless a schema folder is given. */
void
test_app_use_system_schemas (void)
{
  const char *dirs = g_getenv ("XDG_DATA_DIRS");
  g_auto(GStrv) split = g_strsplit (dirs != NULL && *dirs != '\0' ? dirs
                                                                   : "/usr/local/share:/usr/share",
                                    G_SEARCHPATH_SEPARATOR_S, -1);

  if (g_getenv ("GSETTINGS_SCHEMA_DIR") != NULL)
    return;
  for (guint i = 0; split[i] != NULL; i++)
    {
      g_autofree char *schemas = g_build_filename (split[i], "glib-2.0", "schemas", NULL);
      g_autofree char *chooser = g_build_filename (schemas,
                                                   "org.gtk.gtk4.Settings.FileChooser.gschema.xml",
                                                   NULL);
      g_autofree char *compiled = g_build_filename (schemas, "gschemas.compiled", NULL);

      if (g_file_test (chooser, G_FILE_TEST_EXISTS) && g_file_test (compiled, G_FILE_TEST_EXISTS))
        {
          g_setenv ("GSETTINGS_SCHEMA_DIR", schemas, TRUE);
          return;
        }
    }
}

/* Whether GTK's file chooser can be shown: its schema was found. */
gboolean
test_app_have_chooser_schema (void)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr(GSettingsSchema) schema = NULL;

  if (source != NULL)
    schema = g_settings_schema_source_lookup (source, "org.gtk.gtk4.Settings.FileChooser", TRUE);
  return schema != NULL;
}

/* The file chooser dialog shown, or NULL (GtkFileDialog on GTK 4.10 and later, and
 * GtkFileChooserNative without a portal, as under Xvfb, show a GtkFileChooserDialog). */
GtkWidget *
test_app_find_chooser (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GObject) window = g_list_model_get_item (toplevels, i);

      if (GTK_IS_FILE_CHOOSER_DIALOG (window) && gtk_widget_get_visible (GTK_WIDGET (window)))
        return GTK_WIDGET (window);
    }
  G_GNUC_END_IGNORE_DEPRECATIONS
  return NULL;
}

/* test_app_wait_until() conditions: a file chooser is shown; none is. */
gboolean
test_app_chooser_shown (gpointer data)
{
  return test_app_find_chooser () != NULL;
}

gboolean
test_app_chooser_gone (gpointer data)
{
  return test_app_find_chooser () == NULL;
}

/* The text of the time bar's frame label (an inscription, "Frame …") under @widget, or
 * NULL. */
const char *
test_app_frame_label_below (GtkWidget *widget)
{
  const char *text = GTK_IS_INSCRIPTION (widget)
                     ? gtk_inscription_get_text (GTK_INSCRIPTION (widget)) : NULL;

  if (text != NULL && g_str_has_prefix (text, "Frame "))
    return text;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      if ((text = test_app_frame_label_below (child)) != NULL)
        return text;
    }
  return NULL;
}

/* How many open files of this process are the pipe at @path. */
guint
test_app_count_opened (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open ("/proc/self/fd", 0, NULL);
  const char *name;
  guint n = 0;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *link = g_strconcat ("/proc/self/fd/", name, NULL);
      g_autofree char *target = g_file_read_link (link, NULL);

      n += g_strcmp0 (target, path) == 0;
    }
  return n;
}
