/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <math.h>
#include <gtk/gtk.h>

#include "km-application.h"
#include "km-document.h"
#include "km-graph-view.h"
#include "km-joint-inspector.h"
#include "km-skeleton-edit.h"

#include "test-app-util.h"

#ifdef GDK_WINDOWING_X11
#include <gdk/x11/gdkx.h>
#endif

/*
 * What the editor tells the user where there is little to show: the Graph tab with no body
 * to plot, a refused joint limit's reason (gone once an edit, undo or another selection
 * makes it stale, or the user types again), and the application's icon when Kinema runs
 * from the build tree (the About dialog's logo).
 */

/* The graph as the user sees it, over a white window: B,G,R,A premultiplied, w × h. */
static guint8 *
render_widget (GtkWidget *widget,
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

/* How many pixels of a w × h download are not white. */
static guint
count_not_white (const guint8 *pixels,
                 int           w,
                 int           h)
{
  guint n = 0;

  for (gsize i = 0; i < (gsize) w * h; i++)
    if (pixels[4 * i] != 0xff || pixels[4 * i + 1] != 0xff || pixels[4 * i + 2] != 0xff)
      n++;
  return n;
}

static gboolean
has_no_skeleton (gpointer document)
{
  return km_document_get_skeleton (document) == NULL;
}

/* Deleting the only body leaves the Graph tab with a hint, centred, not a blank page. */
static void
test_graph_without_body (void)
{
  KmWindow *window = test_app_example_window (1000, 700);
  KmDocument *document = km_window_get_document (window);
  GtkWidget *graph = test_app_find_widget (GTK_WIDGET (window), KM_TYPE_GRAPH_VIEW);
  GtkNotebook *notebook = GTK_NOTEBOOK (gtk_widget_get_ancestor (graph, GTK_TYPE_NOTEBOOK));
  g_autoptr(GPtrArray) items = g_ptr_array_new ();
  g_autofree guint8 *pixels = NULL;
  GtkWidget *hint;
  double x, y;
  int w, h;

  g_assert_nonnull (notebook);
  g_assert_true (test_app_wait_idle_solve (document, 20000));
  g_ptr_array_add (items, km_document_get_body_item (document));
  km_document_remove_items (document, items);
  g_assert_true (test_app_wait_until (has_no_skeleton, document, 5000));
  gtk_notebook_set_current_page (notebook, gtk_notebook_page_num (notebook, graph));
  test_app_spin_for (200);
  g_assert_true (gtk_widget_get_mapped (graph));

  hint = test_app_find_label (graph, "No body to plot");
  g_assert_nonnull (hint);
  g_assert_true (gtk_widget_get_mapped (hint));
  /* In the middle of the tab. */
  g_assert_true (gtk_widget_translate_coordinates (hint, graph,
                                                   gtk_widget_get_width (hint) / 2.0,
                                                   gtk_widget_get_height (hint) / 2.0, &x, &y));
  g_assert_cmpfloat (fabs (x - gtk_widget_get_width (graph) / 2.0), <, 2.0);
  g_assert_cmpfloat (fabs (y - gtk_widget_get_height (graph) / 2.0), <, 2.0);

  pixels = render_widget (graph, &w, &h);
  g_test_message ("%u of %d pixels not white", count_not_white (pixels, w, h), w * h);
  g_assert_cmpuint (count_not_white (pixels, w, h), >, 50);

  /* Undo brings the body back, and the hint goes. */
  g_assert_true (km_document_undo (document));
  g_assert_nonnull (km_document_get_skeleton (document));
  test_app_spin ();
  g_assert_false (gtk_widget_get_visible (hint));

  g_assert_true (test_app_wait_idle_solve (document, 20000));
  gtk_window_destroy (GTK_WINDOW (window));
  test_app_spin ();
}

typedef struct
{
  GtkWidget  *window;
  GtkWidget  *inspector;
  KmDocument *document;
} Fixture;

static gpointer
child (Fixture    *f,
       const char *name)
{
  GObject *object = gtk_widget_get_template_child (f->inspector, KM_TYPE_JOINT_INSPECTOR, name);

  g_assert_nonnull (object);
  return object;
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  f->document = km_document_new ();
  g_assert_true (km_document_load_defaults (f->document, &error));
  g_assert_no_error (error);
  f->inspector = km_joint_inspector_new ();
  km_joint_inspector_set_document (KM_JOINT_INSPECTOR (f->inspector), f->document);
  f->window = gtk_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (f->window), 400, 700);
  gtk_window_set_child (GTK_WINDOW (f->window), f->inspector);
  gtk_window_present (GTK_WINDOW (f->window));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  test_app_spin ();
  km_document_set_selected_joint (f->document,
                                  km_skeleton_find_joint (km_document_get_skeleton (f->document),
                                                          "Elbow"));
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  gtk_window_destroy (GTK_WINDOW (f->window));
  test_app_spin ();
  g_assert_finalize_object (f->document);
}

/* Min above max is refused: the reason shows under the limits, the field shows the
 * skeleton's value again. */
static void
refuse_min (Fixture *f)
{
  GtkSpinButton *min = child (f, "min_0");
  GtkWidget *error_label = child (f, "limit_error");
  KmSkeleton *before = km_document_get_skeleton (f->document);

  g_assert_false (gtk_widget_get_visible (error_label));
  gtk_spin_button_set_value (min, 200.0);
  g_assert_true (km_document_get_skeleton (f->document) == before);
  g_assert_true (gtk_widget_get_visible (error_label));
  g_assert_cmpfloat_with_epsilon (gtk_spin_button_get_value (min), 0.0, 1e-9);
}

/* Another valid limit edit clears it (as any accepted edit does). */
static void
test_limit_reason_goes_with_valid_edit (Fixture       *f,
                                        gconstpointer  data)
{
  GtkWidget *error_label = child (f, "limit_error");

  refuse_min (f);
  gtk_spin_button_set_value (child (f, "min_0"), 10.0);
  g_assert_true (km_document_can_undo (f->document));
  g_assert_false (gtk_widget_get_visible (error_label));
}

/* Undo puts other values in the fields: the reason was about the old ones. */
static void
test_limit_reason_goes_with_undo (Fixture       *f,
                                  gconstpointer  data)
{
  GtkWidget *error_label = child (f, "limit_error");

  gtk_spin_button_set_value (child (f, "max_0"), 120.0);
  g_assert_true (km_document_can_undo (f->document));
  refuse_min (f);
  g_assert_true (km_document_undo (f->document));
  test_app_spin ();
  g_assert_false (gtk_widget_get_visible (error_label));
}

/* Another joint: its fields, without the reason. */
static void
test_limit_reason_goes_with_selection (Fixture       *f,
                                       gconstpointer  data)
{
  GtkWidget *error_label = child (f, "limit_error");

  refuse_min (f);
  km_document_set_selected_joint (f->document,
                                  km_skeleton_find_joint (km_document_get_skeleton (f->document),
                                                          "Piston"));
  g_assert_false (gtk_widget_get_visible (error_label));
}

/* The user types the value the field shows back in (the skeleton's, so no edit): nothing
 * refused is left to explain. */
static void
test_limit_reason_goes_with_same_value (Fixture       *f,
                                        gconstpointer  data)
{
  GtkSpinButton *min = child (f, "min_0");
  GtkWidget *error_label = child (f, "limit_error");

  refuse_min (f);
  /* The user types once the refusal is handled (the main loop has run). */
  test_app_spin ();
  g_assert_true (gtk_widget_get_visible (error_label));
  gtk_editable_set_text (GTK_EDITABLE (min), "0");
  gtk_spin_button_update (min);
  g_assert_false (km_document_can_undo (f->document));
  g_assert_false (gtk_widget_get_visible (error_label));
}

/* Real key presses (xdotool key names and "type TEXT") to the window, with the keyboard
 * focus on @focus first (when not NULL). */
static void
real_keys (Fixture    *f,
           GtkWidget  *focus,
           const char *first,
           ...)
{
#ifdef GDK_WINDOWING_X11
  g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  GdkSurface *surface = gtk_native_get_surface (GTK_NATIVE (f->window));
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
  test_app_xdotool (f->window, args);
  test_app_spin_for (100);
#endif
}

/* As a user does it, with the keyboard: the reason stays while the reverted field is left
 * as it is, and goes once the user types a new value in. */
static void
test_limit_reason_goes_when_typing (Fixture       *f,
                                    gconstpointer  data)
{
  GtkWidget *min = child (f, "min_0");
  GtkWidget *error_label = child (f, "limit_error");
  KmSkeleton *before = km_document_get_skeleton (f->document);
  g_autofree char *xdotool = g_find_program_in_path ("xdotool");

#ifdef GDK_WINDOWING_X11
  if (!GDK_IS_X11_DISPLAY (gtk_widget_get_display (f->window)) || xdotool == NULL)
#endif
    {
      g_test_skip ("needs X11 and xdotool");
      return;
    }
  test_app_spin_for (200);
  /* (xdotool's type takes every argument after it as text: it ends a command line.) */
  real_keys (f, min, "key", "ctrl+a", "type", "200", NULL);
  real_keys (f, NULL, "key", "Return", NULL);
  g_assert_true (km_document_get_skeleton (f->document) == before);
  g_assert_true (gtk_widget_get_visible (error_label));
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (min)), ==, "0.000");

  /* Left alone, it stays to be read. */
  test_app_spin_for (300);
  g_assert_true (gtk_widget_get_visible (error_label));

  /* Typing a new value: the refused one is gone, and so is its reason. */
  real_keys (f, NULL, "key", "ctrl+a", "type", "10", NULL);
  g_assert_false (gtk_widget_get_visible (error_label));
  g_assert_false (km_document_can_undo (f->document));
  real_keys (f, NULL, "key", "Return", NULL);
  g_assert_true (km_document_can_undo (f->document));
  g_assert_cmpfloat_with_epsilon (km_skeleton_get_joint (km_document_get_skeleton (f->document),
                                                         2)->limits[0].min,
                                  10.0 * G_PI / 180.0, 1e-9);
  g_assert_false (gtk_widget_get_visible (error_label));
}

/* From the build tree the icon theme has the application's icon (the About dialog's logo
 * and the windows' icon): it comes with the resources. */
static void
test_icon_in_build_tree (void)
{
  g_autoptr(KmApplication) app = km_application_new ();
  g_autoptr(GError) error = NULL;
  GtkIconTheme *theme = gtk_icon_theme_get_for_display (gdk_display_get_default ());

  g_application_set_flags (G_APPLICATION (app), G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
  g_assert_no_error (error);
  g_assert_true (gtk_icon_theme_has_icon (theme, APP_ID));
  {
    g_autoptr(GtkIconPaintable) icon = gtk_icon_theme_lookup_icon (theme, APP_ID, NULL, 128, 1,
                                                                   GTK_TEXT_DIR_NONE, 0);
    g_autoptr(GFile) file = gtk_icon_paintable_get_file (icon);
    g_autofree char *uri = file != NULL ? g_file_get_uri (file) : NULL;

    g_test_message ("icon: %s", uri);
    g_assert_nonnull (uri);
    g_assert_true (g_str_has_suffix (uri, APP_ID ".svg") || g_str_has_suffix (uri, APP_ID ".png"));
  }
}

int
main (int   argc,
      char *argv[])
{
  test_app_init (&argc, &argv);

  g_test_add_func ("/kinema/Feedback/graph-without-body", test_graph_without_body);
  g_test_add ("/kinema/Feedback/limit-reason/valid-edit", Fixture, NULL, fixture_setup,
              test_limit_reason_goes_with_valid_edit, fixture_teardown);
  g_test_add ("/kinema/Feedback/limit-reason/undo", Fixture, NULL, fixture_setup,
              test_limit_reason_goes_with_undo, fixture_teardown);
  g_test_add ("/kinema/Feedback/limit-reason/selection", Fixture, NULL, fixture_setup,
              test_limit_reason_goes_with_selection, fixture_teardown);
  g_test_add ("/kinema/Feedback/limit-reason/same-value", Fixture, NULL, fixture_setup,
              test_limit_reason_goes_with_same_value, fixture_teardown);
  g_test_add ("/kinema/Feedback/limit-reason/typing", Fixture, NULL, fixture_setup,
              test_limit_reason_goes_when_typing, fixture_teardown);
  g_test_add_func ("/kinema/Feedback/icon-in-build-tree", test_icon_in_build_tree);

  return g_test_run ();
}
