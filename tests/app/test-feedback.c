/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <math.h>
#include <gtk/gtk.h>

#include "km-application.h"
#include "km-document-skeleton.h"
#include "km-document.h"
#include "km-graph-view.h"
#include "km-ik.h"
#include "km-skeleton-edit.h"

#include "test-app-util.h"


/*
 * What the editor shows where there is little to show: the Graph tab with no body to plot,
 * and the application's icon when Kinema runs from the build tree (the About dialog's
 * logo), and a solve that misses its targets, which the message view tells as a warning.
 * (A refused joint limit's reason is tested with the inspector, in
 * test-skeleton-editing.c.)
 */

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
/* A cancelled solve does not hold its document until the worker returns: dropped at
 * once, the document is finalized (a test's teardown waited for no solve and found the
 * document alive when the machine was busy). */
static void
test_cancelled_solve_lets_go (void)
{
  KmDocument *document = km_document_new ();
  g_autoptr(GError) error = NULL;

  g_assert_true (km_document_load_defaults (document, &error));
  g_assert_no_error (error);
  g_assert_true (km_document_get_solving (document));
  km_document_cancel_solve (document);
  g_assert_false (km_document_get_solving (document));
  g_assert_finalize_object (document);
  /* The worker's callback, which finds no document, before the test ends. */
  test_app_spin_for (500);
}

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

  pixels = test_app_render_widget (graph, &w, &h);
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

/* The frames of @animation the time bar marks red: a position residual above the solver's
 * tolerance (or an orientation residual, where the chain is solved for it). */
static guint
count_missed (KmDocument *document)
{
  KmAnimation *animation = km_document_get_animation (document);
  gboolean orientation = km_document_get_solves_orientation (document);
  guint n = 0;

  g_assert_nonnull (animation);
  for (guint f = 0; f < km_animation_get_n_frames (animation); f++)
    {
      double pos_err, rot_err;

      g_assert_true (km_animation_get_residual (animation, f, &pos_err, &rot_err));
      if (pos_err > KM_IK_DEFAULT_POSITION_TOLERANCE
          || (orientation && rot_err > KM_IK_DEFAULT_ORIENTATION_TOLERANCE))
        n++;
    }
  return n;
}

/* The default arm's solve meets its targets: Info. Without its Shoulder the arm cannot
 * reach them (the time bar turns red over the whole motion): the solve's message is a
 * warning that counts the frames that missed. */
static void
test_missed_solve_warns (void)
{
  g_autoptr(KmDocument) document = km_document_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) edited = NULL;
  g_autofree char *missed = NULL;
  guint n_frames, n_info;
  int shoulder;

  g_assert_true (km_document_load_defaults (document, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_wait_idle_solve (document, 20000));
  n_frames = km_document_get_n_frames (document);
  g_assert_cmpuint (count_missed (document), ==, 0);
  g_assert_true (test_app_has_message (document, G_LOG_LEVEL_INFO, "Solved ", NULL));
  g_assert_false (test_app_has_message (document, 0, "did not reach", NULL));
  n_info = test_app_count_messages (document, G_LOG_LEVEL_INFO, "Solved ", NULL);

  shoulder = km_skeleton_find_joint (km_document_get_skeleton (document), "Shoulder");
  g_assert_cmpint (shoulder, >=, 0);
  edited = km_skeleton_edit_delete (km_document_get_skeleton (document), (guint) shoulder,
                                    &error);
  g_assert_no_error (error);
  g_assert_true (km_document_edit_skeleton (document, edited, "Delete Joint", NULL));
  g_assert_true (test_app_wait_idle_solve (document, 20000));

  g_assert_cmpuint (km_document_get_n_frames (document), ==, n_frames);
  g_assert_cmpuint (count_missed (document), ==, n_frames);
  missed = g_strdup_printf ("Solved %u frames; %u did not reach their target (largest "
                            "position error ", n_frames, n_frames);
  g_assert_cmpuint (test_app_count_messages (document, G_LOG_LEVEL_WARNING, missed, NULL), ==, 1);
  /* No Info for it. */
  g_assert_cmpuint (test_app_count_messages (document, G_LOG_LEVEL_INFO, "Solved ", NULL), ==,
                    n_info);
}

/* Keyframes the motion misses beyond the bound of the check for a branch that meets them
 * are counted in Messages, not left unsaid: a hundred orientations the default arm's five
 * DOFs cannot take, each of which would cost a whole solve to rule out. */
static void
test_unchecked_keys_said (void)
{
  g_autoptr(KmDocument) document = km_document_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(KmTargetTrack) track = NULL;
  KmTargetKeyframe keys[100];
  guint unchecked;

  g_assert_true (km_document_load_defaults (document, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_wait_idle_solve (document, 20000));
  for (guint k = 0; k < G_N_ELEMENTS (keys); k++)
    {
      keys[k] = (KmTargetKeyframe) { 0, };
      keys[k].frame = 2 * k;
      keys[k].position = km_vec3 (0.3 + 0.002 * k, 0.5, 0.4);
      keys[k].orientation = km_quat_from_euler_xyz (km_vec3 (k * 0.37, k * 0.53, k * 0.71));
    }
  track = km_target_track_new (keys, G_N_ELEMENTS (keys), NULL, 30.0, &error);
  g_assert_no_error (error);
  km_document_set_targets (document, track);
  g_assert_true (test_app_wait_idle_solve (document, 60000));

  unchecked = km_animation_get_unchecked_keys (km_document_get_animation (document));
  g_assert_cmpuint (unchecked, >, 0);
  g_assert_cmpuint (test_app_count_messages (document, G_LOG_LEVEL_INFO,
                                             "keyframes the motion misses were not checked",
                                             NULL), ==, 1);
}

int
main (int   argc,
      char *argv[])
{
  test_app_init (&argc, &argv);

  g_test_add_func ("/kinema/Feedback/graph-without-body", test_graph_without_body);
  g_test_add_func ("/kinema/Feedback/cancelled-solve-lets-go", test_cancelled_solve_lets_go);
  g_test_add_func ("/kinema/Feedback/icon-in-build-tree", test_icon_in_build_tree);
  g_test_add_func ("/kinema/Feedback/missed-solve-warns", test_missed_solve_warns);
  g_test_add_func ("/kinema/Feedback/unchecked-keys-said", test_unchecked_keys_said);

  return g_test_run ();
}
