/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <gtk/gtk.h>

#include "km-joint-panel.h"
#include "km-time-bar.h"
#include "km-window.h"
#include "test-app-util.h"

/*
 * The editor window at moderate and at its smallest sizes, under Xvfb (no window manager,
 * so the window gets the size asked for): the right pane's widgets must lie inside the
 * window, the scene view giving up its width before the panels are cut off.
 */

typedef struct
{
  KmWindow  *window;
  GtkWidget *joint_panel;
} Fixture;

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_object_add_weak_pointer (G_OBJECT (f->window), (gpointer *) &f->window);
  gtk_window_destroy (GTK_WINDOW (f->window));
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_assert_null (f->window);
}

static gboolean
laid_out (gpointer data)
{
  Fixture *f = data;

  return gtk_widget_get_width (f->joint_panel) > 0
         && km_joint_panel_get_n_rows (KM_JOINT_PANEL (f->joint_panel)) > 0;
}

static void
open_window (Fixture *f,
             int      width,
             int      height)
{
  f->window = test_app_example_window (width, height);
  f->joint_panel = km_window_get_joint_panel (f->window);
  g_assert_true (test_app_wait_until (laid_out, f, 10000));
  /* The panes take their remembered positions once the paneds have a size. */
  test_app_spin_for (300);
}

/* @widget's bounds in the window's coordinates. */
static graphene_rect_t
bounds_in_window (Fixture   *f,
                  GtkWidget *widget)
{
  graphene_rect_t bounds;

  g_assert_true (gtk_widget_compute_bounds (widget, GTK_WIDGET (f->window), &bounds));
  return bounds;
}

static void
assert_inside_window (Fixture         *f,
                      GtkWidget       *widget,
                      gboolean         vertically)
{
  graphene_rect_t b = bounds_in_window (f, widget);
  int width = gtk_widget_get_width (GTK_WIDGET (f->window));
  int height = gtk_widget_get_height (GTK_WIDGET (f->window));

  g_test_message ("%s at %.0f,%.0f %.0fx%.0f in a %dx%d window",
                  G_OBJECT_TYPE_NAME (widget), b.origin.x, b.origin.y, b.size.width,
                  b.size.height, width, height);
  g_assert_cmpfloat (b.size.width, >, 0.0);
  g_assert_cmpfloat (b.origin.x, >=, 0.0);
  g_assert_cmpfloat (b.origin.x + b.size.width, <=, width);
  if (vertically)
    {
      g_assert_cmpfloat (b.origin.y, >=, 0.0);
      g_assert_cmpfloat (b.origin.y + b.size.height, <=, height);
    }
}

/* Every widget of @type at or below @widget, depth first (the rows' spin buttons in the
 * order of the rows). */
static void
collect (GtkWidget *widget,
         GType      type,
         GPtrArray *found)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type))
    g_ptr_array_add (found, widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    collect (child, type, found);
}

/* The joint rows may scroll vertically, but every spin button and unit is within the
 * window's width, and the first row is wholly visible; so is every field above the rows
 * (the End Effector section's). */
static void
assert_joint_rows_inside (Fixture *f)
{
  GtkWidget *rows = test_app_find_pose_list (f->joint_panel);
  g_autoptr(GPtrArray) spins = g_ptr_array_new ();
  g_autoptr(GPtrArray) all_spins = g_ptr_array_new ();

  g_assert_nonnull (rows);
  collect (rows, GTK_TYPE_SPIN_BUTTON, spins);
  g_assert_cmpuint (spins->len, ==, km_joint_panel_get_n_rows (KM_JOINT_PANEL (f->joint_panel)));
  for (guint i = 0; i < spins->len; i++)
    assert_inside_window (f, spins->pdata[i], i == 0);
  collect (f->joint_panel, GTK_TYPE_SPIN_BUTTON, all_spins);
  for (guint i = 0; i < all_spins->len; i++)
    if (!gtk_widget_is_ancestor (all_spins->pdata[i], rows))
      assert_inside_window (f, all_spins->pdata[i], TRUE);
  assert_inside_window (f, f->joint_panel, TRUE);
}

static void
test_joint_panel_1024x600 (Fixture       *f,
                           gconstpointer  data)
{
  GtkWidget *notebook;

  open_window (f, 1024, 600);
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (f->window)), <=, 1024);
  assert_joint_rows_inside (f);

  /* The tabs (Graph the last) are in the window too. */
  notebook = gtk_widget_get_ancestor (f->joint_panel, GTK_TYPE_NOTEBOOK);
  g_assert_nonnull (notebook);
  for (int i = 0; i < gtk_notebook_get_n_pages (GTK_NOTEBOOK (notebook)); i++)
    assert_inside_window (f, gtk_notebook_get_tab_label (GTK_NOTEBOOK (notebook),
                                                         gtk_notebook_get_nth_page (GTK_NOTEBOOK (notebook), i)),
                          TRUE);
  /* The scene view gave up its width, not the panel. */
  g_assert_cmpint (gtk_widget_get_width (f->joint_panel), >=, 300);
  g_assert_cmpint (gtk_widget_get_width (km_window_get_scene_view (f->window)), <,
                   gtk_widget_get_width (f->joint_panel) + 400);
}

/* Pane positions remembered from a larger window (the settings bind side_paned's, the
 * joint pane's is set from them) are clamped: the panels stay inside the window. */
static void
test_remembered_panes_clamped (Fixture       *f,
                               gconstpointer  data)
{
  GtkWidget *side_paned, *scene_paned;

  open_window (f, 1024, 600);
  side_paned = gtk_widget_get_parent (km_window_get_item_tree (f->window));
  scene_paned = gtk_widget_get_parent (km_window_get_scene_view (f->window));
  gtk_paned_set_position (GTK_PANED (side_paned), 900);
  gtk_paned_set_position (GTK_PANED (scene_paned), 5000);
  test_app_spin_for (200);
  assert_joint_rows_inside (f);
  assert_inside_window (f, km_window_get_scene_view (f->window), TRUE);
}

/* The time slider is long enough to scrub, not just its knob: the frame text gave way. */
static void
assert_time_slider_usable (Fixture *f)
{
  GtkWidget *scale = test_app_find_widget (km_window_get_time_bar (f->window), GTK_TYPE_SCALE);

  g_assert_nonnull (scale);
  g_test_message ("time slider %d px in a %d px window", gtk_widget_get_width (scale),
                  gtk_widget_get_width (GTK_WIDGET (f->window)));
  g_assert_cmpint (gtk_widget_get_width (scale), >=, 120);
  assert_inside_window (f, scale, TRUE);
}

/* A time bar at its least width keeps a slider to scrub with (the review's 716 px window
 * left only its knob); the frame text gives way, ellipsized, and the least width drops. */
static void
test_narrow_time_bar (void)
{
  GtkWindow *window = GTK_WINDOW (gtk_window_new ());
  GtkWidget *time_bar = km_time_bar_new ();
  GtkWidget *scale = test_app_find_widget (time_bar, GTK_TYPE_SCALE);
  g_autoptr(KmDocument) document = km_document_new ();
  int min_width = 0;

  g_assert_true (km_document_load_defaults (document, NULL));
  km_time_bar_set_document (KM_TIME_BAR (time_bar), document);
  gtk_window_set_child (window, time_bar);
  gtk_window_present (window);
  test_app_spin_for (300);
  /* Laid out at its least width, as in a window that narrow (without a window manager a
   * window asked to be narrower than its minimum takes its natural width instead). */
  gtk_widget_measure (time_bar, GTK_ORIENTATION_HORIZONTAL, -1, &min_width, NULL, NULL, NULL);
  gtk_widget_size_allocate (time_bar,
                            &(GtkAllocation) { 0, 0, min_width,
                                               gtk_widget_get_height (time_bar) }, -1);
  g_test_message ("time bar at least %d px; its slider then %d px", min_width,
                  gtk_widget_get_width (scale));
  g_assert_cmpint (min_width, <, 716);
  g_assert_cmpint (gtk_widget_get_width (scale), >=, 120);
  gtk_window_destroy (window);
  test_app_spin ();
}

/* The time bar's frame readout shows its text whole (no ellipsis: it was cut to "Fram…"
 * at the least width), and that text names the current frame @frame. */
static void
assert_frame_readout_whole (Fixture *f,
                            guint    frame)
{
  GtkWidget *label = test_app_find_widget (km_window_get_time_bar (f->window),
                                           GTK_TYPE_INSCRIPTION);
  g_autofree char *number = g_strdup_printf ("%u", frame);
  g_autoptr(PangoLayout) layout = NULL;
  const char *text;
  int text_width = 0;

  g_assert_nonnull (label);
  text = gtk_inscription_get_text (GTK_INSCRIPTION (label));
  layout = gtk_widget_create_pango_layout (label, text);
  pango_layout_set_attributes (layout, gtk_inscription_get_attributes (GTK_INSCRIPTION (label)));
  pango_layout_get_pixel_size (layout, &text_width, NULL);
  g_test_message ("frame readout \"%s\": %d px of text in %d px", text, text_width,
                  gtk_widget_get_width (label));
  g_assert_nonnull (strstr (text, number));
  g_assert_cmpint (text_width, <=, gtk_widget_get_width (label));
}

/* Asked for less than it can be, the window takes its minimum size: nothing of the right
 * pane is then drawn past its edge. */
static void
test_minimum_size (Fixture       *f,
                   gconstpointer  data)
{
  GtkWidget *notebook;
  int min_width = 0;

  open_window (f, 200, 200);
  gtk_widget_measure (GTK_WIDGET (f->window), GTK_ORIENTATION_HORIZONTAL, -1, &min_width, NULL,
                      NULL, NULL);
  g_test_message ("minimum width %d, window %dx%d", min_width,
                  gtk_widget_get_width (GTK_WIDGET (f->window)),
                  gtk_widget_get_height (GTK_WIDGET (f->window)));
  assert_joint_rows_inside (f);
  notebook = gtk_widget_get_ancestor (f->joint_panel, GTK_TYPE_NOTEBOOK);
  assert_inside_window (f, notebook, TRUE);
  assert_inside_window (f, km_window_get_scene_view (f->window), TRUE);
  assert_inside_window (f, km_window_get_time_bar (f->window), TRUE);
  assert_time_slider_usable (f);
  /* The current frame can be read: the readout gives way to it, not to "Fram…". */
  km_document_set_current_frame (km_window_get_document (f->window), 123);
  test_app_spin_for (100);
  assert_frame_readout_whole (f, 123);
}


/* ---- Sizes kept in the settings (the built schema, memory backend) ---------------------- */

#define APP_ID "io.github.kinema.Kinema"

static gboolean
have_schema (void)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr(GSettingsSchema) schema = NULL;

  if (source != NULL)
    schema = g_settings_schema_source_lookup (source, APP_ID, TRUE);
  if (schema == NULL)
    g_test_skip ("the settings schema is not built");
  return schema != NULL;
}

/* A window as the application opens it: no size but the one the settings keep. */
static void
open_remembered (Fixture *f)
{
  f->window = km_window_new (NULL);
  f->joint_panel = km_window_get_joint_panel (f->window);
  g_assert_true (km_window_open_example (f->window));
  gtk_window_present (GTK_WINDOW (f->window));
  g_assert_true (test_app_wait_until (laid_out, f, 10000));
  test_app_spin_for (300);
}

/* Quits the window as Ctrl+Q does: its close-request saves the pane sizes. */
static void
close_window (Fixture *f)
{
  g_object_add_weak_pointer (G_OBJECT (f->window), (gpointer *) &f->window);
  gtk_window_close (GTK_WINDOW (f->window));
  test_app_spin ();
  g_assert_null (f->window);
}

/* A size the window can have comes back exactly: the panes give way, the window does not
 * grow (an 800 × 600 window opened 898 px wide). */
static void
test_remembered_size (Fixture       *f,
                      gconstpointer  data)
{
  const int *size = data;
  g_autoptr(GSettings) settings = NULL;
  GdkSurface *surface;

  if (!have_schema ())
    return;
  settings = g_settings_new (APP_ID);
  g_settings_set_int (settings, "window-width", size[0]);
  g_settings_set_int (settings, "window-height", size[1]);
  open_remembered (f);
  surface = gtk_native_get_surface (GTK_NATIVE (f->window));
  g_test_message ("window %dx%d, asked %dx%d", gdk_surface_get_width (surface),
                  gdk_surface_get_height (surface), size[0], size[1]);
  g_assert_cmpint (gdk_surface_get_width (surface), ==, size[0]);
  g_assert_cmpint (gdk_surface_get_height (surface), ==, size[1]);
  close_window (f);
  g_assert_cmpint (g_settings_get_int (settings, "window-width"), ==, size[0]);
  g_assert_cmpint (g_settings_get_int (settings, "window-height"), ==, size[1]);
  g_settings_reset (settings, "window-width");
  g_settings_reset (settings, "window-height");
}

/* Opening and quitting without touching the panes leaves them as they were, however
 * often (the message pane lost a pixel each time). */
static void
test_panes_kept (Fixture       *f,
                 gconstpointer  data)
{
  static const char * const keys[] = {
    "side-pane-position", "joint-pane-position", "message-pane-position"
  };
  g_autoptr(GSettings) settings = NULL;
  int first[G_N_ELEMENTS (keys)];
  int message_height = 0, item_width = 0, joint_width = 0;

  if (!have_schema ())
    return;
  settings = g_settings_new (APP_ID);
  g_settings_set_int (settings, "side-pane-position", 280);
  g_settings_set_int (settings, "joint-pane-position", 320);
  g_settings_set_int (settings, "message-pane-position", 150);
  for (guint k = 0; k < G_N_ELEMENTS (keys); k++)
    first[k] = g_settings_get_int (settings, keys[k]);
  for (int run = 0; run < 3; run++)
    {
      GtkWidget *message_view;

      open_remembered (f);
      message_view = gtk_paned_get_end_child (GTK_PANED (gtk_widget_get_parent (
        gtk_widget_get_parent (km_window_get_item_tree (f->window)))));
      g_test_message ("run %d: item tree %d, joint panel %d, messages %d wide/high", run,
                      gtk_widget_get_width (km_window_get_item_tree (f->window)),
                      gtk_widget_get_width (f->joint_panel),
                      gtk_widget_get_height (message_view));
      if (run == 0)
        {
          item_width = gtk_widget_get_width (km_window_get_item_tree (f->window));
          joint_width = gtk_widget_get_width (gtk_widget_get_ancestor (f->joint_panel,
                                                                       GTK_TYPE_NOTEBOOK));
          message_height = gtk_widget_get_height (message_view);
        }
      g_assert_cmpint (gtk_widget_get_width (km_window_get_item_tree (f->window)), ==, item_width);
      g_assert_cmpint (gtk_widget_get_width (gtk_widget_get_ancestor (f->joint_panel,
                                                                      GTK_TYPE_NOTEBOOK)),
                       ==, joint_width);
      g_assert_cmpint (gtk_widget_get_height (message_view), ==, message_height);
      close_window (f);
      for (guint k = 0; k < G_N_ELEMENTS (keys); k++)
        {
          g_test_message ("run %d: %s %d", run, keys[k], g_settings_get_int (settings, keys[k]));
          g_assert_cmpint (g_settings_get_int (settings, keys[k]), ==, first[k]);
        }
    }
  /* The message view is as high as the settings say, the joint panel's notebook as wide
   * (but for the pixel or two of the paned's handle). */
  g_assert_cmpint (abs (message_height - 150), <=, 3);
  g_assert_cmpint (abs (joint_width - 320), <=, 3);
  for (guint k = 0; k < G_N_ELEMENTS (keys); k++)
    g_settings_reset (settings, keys[k]);
}

/* At 800 × 600 the scene view keeps a usable share of the width (the side panes give
 * way), and the time bar's frame text stays on one line. */
static void
test_layout_800x600 (Fixture       *f,
                     gconstpointer  data)
{
  GtkWidget *frame_label;
  int window_width, scene_width, line_height = 0;

  open_window (f, 800, 600);
  g_assert_cmpint (gdk_surface_get_width (gtk_native_get_surface (GTK_NATIVE (f->window))), ==,
                   800);
  window_width = gtk_widget_get_width (GTK_WIDGET (f->window));
  scene_width = gtk_widget_get_width (km_window_get_scene_view (f->window));
  g_test_message ("scene view %d px in a %d px window (item tree %d, joint panel %d)",
                  scene_width, window_width,
                  gtk_widget_get_width (km_window_get_item_tree (f->window)),
                  gtk_widget_get_width (f->joint_panel));
  g_assert_cmpint (scene_width * 10, >=, window_width * 4);
  assert_joint_rows_inside (f);

  frame_label = test_app_find_widget (km_window_get_time_bar (f->window), GTK_TYPE_INSCRIPTION);
  g_assert_nonnull (frame_label);
  gtk_widget_measure (frame_label, GTK_ORIENTATION_VERTICAL, -1, &line_height, NULL, NULL, NULL);
  g_test_message ("frame text %dx%d, a line %d high",
                  gtk_widget_get_width (frame_label), gtk_widget_get_height (frame_label),
                  line_height);
  g_assert_cmpint (line_height, >, 0);
  g_assert_cmpint (gtk_widget_get_height (frame_label), <, 2 * line_height);
  assert_inside_window (f, frame_label, TRUE);
}


/* ---- Resizing the window (as a user, or xdotool without a window manager, does) -------- */

/* As in km-window.c: the scene view's least share of the width between the window's
 * edges once the side panes have given up what they can. */
#define SCENE_SHARE_PERCENT 40

typedef struct
{
  int side;     /* the side paned: the window's width, but for its border */
  int item;     /* the item tree */
  int scene;    /* the scene view */
  int joint;    /* the joint panel's notebook */
} Widths;

static GtkWidget *
joint_pane (Fixture *f)
{
  return gtk_widget_get_ancestor (f->joint_panel, GTK_TYPE_NOTEBOOK);
}

static int
natural_width (GtkWidget *widget)
{
  int min = 0, natural = 0;

  gtk_widget_measure (widget, GTK_ORIENTATION_HORIZONTAL, -1, &min, &natural, NULL, NULL);
  return MAX (min, natural);
}

static Widths
get_widths (Fixture    *f,
            const char *when)
{
  Widths w = {
    .side = gtk_widget_get_width (gtk_widget_get_parent (km_window_get_item_tree (f->window))),
    .item = gtk_widget_get_width (km_window_get_item_tree (f->window)),
    .scene = gtk_widget_get_width (km_window_get_scene_view (f->window)),
    .joint = gtk_widget_get_width (joint_pane (f)),
  };

  g_test_message ("%s: window %d: item tree %d, scene view %d, joint panel %d", when,
                  w.side, w.item, w.scene, w.joint);
  return w;
}

/* Resizes the shown window (without a window manager it gets what it asks for, or its
 * minimum size) and lets it lay out. */
static void
resize_window (Fixture *f,
               int      width,
               int      height)
{
  gtk_window_set_default_size (GTK_WINDOW (f->window), width, height);
  test_app_spin_for (500);
}

static void
assert_same_widths (Widths a,
                    Widths b)
{
  g_assert_cmpint (abs (a.item - b.item), <=, 1);
  g_assert_cmpint (abs (a.joint - b.joint), <=, 1);
  g_assert_cmpint (abs (a.scene - b.scene), <=, 1);
}

/* After the window shrank from @before: neither side pane grew, and one that gave up
 * width did so only for the scene view's share (or is at its minimum). */
static void
assert_scene_absorbed (Fixture *f,
                       Widths   before,
                       Widths   now)
{
  int item_min = natural_width (km_window_get_item_tree (f->window));
  int joint_min = 0;
  gboolean at_minimum;

  gtk_widget_measure (joint_pane (f), GTK_ORIENTATION_HORIZONTAL, -1, &joint_min, NULL,
                      NULL, NULL);
  at_minimum = now.item <= item_min && now.joint <= joint_min + 1;
  g_assert_cmpint (now.item, <=, before.item);
  g_assert_cmpint (now.joint, <=, before.joint);
  /* The scene view keeps its share while the panes can give it width. */
  if (!at_minimum)
    g_assert_cmpint (now.scene * 100, >=, now.side * SCENE_SHARE_PERCENT - 100);
  /* A pane gave up width only as far as the scene view's share needed it. */
  if (now.item < before.item || now.joint < before.joint)
    g_assert_cmpint (now.scene * 100, <=, now.side * SCENE_SHARE_PERCENT + 300);
}

/* A narrower window takes its width from the scene view, not the side panes: the review's
 * 1280 → 1000 px window gave the Pose panel 530 px and left the scene view 175. */
static void
test_shrink_takes_scene (Fixture       *f,
                         gconstpointer  data)
{
  Widths wide, w1000, w700;

  open_window (f, 1280, 800);
  wide = get_widths (f, "1280 × 800");
  resize_window (f, 1000, 650);
  w1000 = get_widths (f, "1000 × 650");
  assert_scene_absorbed (f, wide, w1000);
  g_assert_cmpint (w1000.scene, <, wide.scene);
  resize_window (f, 700, 450);
  w700 = get_widths (f, "700 × 450");
  assert_scene_absorbed (f, w1000, w700);
  assert_joint_rows_inside (f);
  assert_inside_window (f, km_window_get_scene_view (f->window), TRUE);
}

/* Side panes squeezed by a window smaller than its minimum get their widths back when
 * it grows again (the item tree stayed 150 px wide, its names cut). */
static void
test_squeeze_and_grow (Fixture       *f,
                       gconstpointer  data)
{
  Widths wide, small, again;

  open_window (f, 1280, 800);
  wide = get_widths (f, "1280 × 800");
  resize_window (f, 300, 200);
  small = get_widths (f, "300 × 200");
  assert_scene_absorbed (f, wide, small);
  resize_window (f, 1000, 650);
  resize_window (f, 1280, 800);
  again = get_widths (f, "1280 × 800 again");
  assert_same_widths (wide, again);
}

/* Handles moved by the user are kept, across a squeeze too: the width dragged is the one
 * the pane gets back. */
static void
test_dragged_widths_kept (Fixture       *f,
                          gconstpointer  data)
{
  GtkPaned *side_paned, *scene_paned;
  Widths dragged, again;

  open_window (f, 1280, 800);
  side_paned = GTK_PANED (gtk_widget_get_parent (km_window_get_item_tree (f->window)));
  scene_paned = GTK_PANED (gtk_widget_get_parent (km_window_get_scene_view (f->window)));
  gtk_paned_set_position (side_paned, 260);
  test_app_spin_for (200);
  /* The joint panel 60 px wider, about 360 px (the handle and the notebook's margins take
   * a few pixels of the position's change). */
  gtk_paned_set_position (scene_paned, gtk_widget_get_width (GTK_WIDGET (scene_paned))
                                         - gtk_widget_get_width (joint_pane (f)) - 60);
  test_app_spin_for (200);
  dragged = get_widths (f, "dragged");
  g_assert_cmpint (dragged.item, ==, 260);
  g_assert_cmpint (abs (dragged.joint - 360), <=, 3);
  resize_window (f, 300, 200);
  get_widths (f, "300 × 200");
  resize_window (f, 1280, 800);
  again = get_widths (f, "1280 × 800 again");
  assert_same_widths (dragged, again);
}

static void
set_widths_setting (GSettings *settings,
                    int        item,
                    int        joint,
                    int        width,
                    int        height)
{
  g_settings_set_int (settings, "side-pane-position", item);
  g_settings_set_int (settings, "joint-pane-position", joint);
  g_settings_set_int (settings, "window-width", width);
  g_settings_set_int (settings, "window-height", height);
}

static void
reset_widths_setting (GSettings *settings)
{
  g_settings_reset (settings, "side-pane-position");
  g_settings_reset (settings, "joint-pane-position");
  g_settings_reset (settings, "window-width");
  g_settings_reset (settings, "window-height");
}

/* Only the widths the user chose are saved: a window quit while squeezed, or squeezed and
 * grown again, saves the widths it had before, and the next one shows them. */
static void
test_squeezed_not_saved (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(GSettings) settings = NULL;
  Widths first, again;

  if (!have_schema ())
    return;
  settings = g_settings_new (APP_ID);
  set_widths_setting (settings, 315, 320, 1280, 800);
  open_remembered (f);
  first = get_widths (f, "opened");
  resize_window (f, 300, 200);
  get_widths (f, "300 × 200");
  close_window (f);
  g_assert_cmpint (g_settings_get_int (settings, "side-pane-position"), ==, 315);
  g_assert_cmpint (g_settings_get_int (settings, "joint-pane-position"), ==, 320);

  g_settings_set_int (settings, "window-width", 1280);
  g_settings_set_int (settings, "window-height", 800);
  open_remembered (f);
  assert_same_widths (first, get_widths (f, "reopened"));
  resize_window (f, 300, 200);
  resize_window (f, 1280, 800);
  close_window (f);
  g_assert_cmpint (g_settings_get_int (settings, "side-pane-position"), ==, 315);
  g_assert_cmpint (g_settings_get_int (settings, "joint-pane-position"), ==, 320);
  open_remembered (f);
  again = get_widths (f, "reopened after a squeeze");
  assert_same_widths (first, again);
  close_window (f);
  reset_widths_setting (settings);
}

/* A window resized and quit opens as it was quit. */
static void
test_resized_restart (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(GSettings) settings = NULL;
  Widths quit, reopened;

  if (!have_schema ())
    return;
  settings = g_settings_new (APP_ID);
  set_widths_setting (settings, 315, 320, 1280, 800);
  open_remembered (f);
  resize_window (f, 1000, 650);
  quit = get_widths (f, "quit at 1000 × 650");
  close_window (f);
  open_remembered (f);
  reopened = get_widths (f, "reopened");
  g_assert_cmpint (reopened.side, ==, quit.side);
  assert_same_widths (quit, reopened);
  close_window (f);
  reset_widths_setting (settings);
}

/* The main paned (messages below) and the Messages pane's height in it. */
static GtkPaned *
main_paned (Fixture *f)
{
  GtkWidget *side = gtk_widget_get_parent (km_window_get_item_tree (f->window));

  return GTK_PANED (gtk_widget_get_parent (side));
}

static int
message_height (Fixture *f)
{
  GtkWidget *messages = gtk_paned_get_end_child (main_paned (f));
  int height = gtk_widget_get_height (messages);

  g_test_message ("Messages %d px high in a %d px main paned", height,
                  gtk_widget_get_height (GTK_WIDGET (main_paned (f))));
  return height;
}

/* A Messages pane made tall in a large (maximized) window gives up height when the window
 * gets smaller (un-maximized), so that the panes above keep their share, and gets it back
 * when the window grows again; the height saved is the one the user chose. A review
 * found the scene about 200 px high after un-maximizing. */
static void
test_tall_messages_shrink (Fixture       *f,
                           gconstpointer  data)
{
  g_autoptr(GSettings) settings = NULL;
  GtkPaned *paned;
  int chosen, small;

  if (!have_schema ())
    return;
  settings = g_settings_new (APP_ID);
  set_widths_setting (settings, 315, 320, 1280, 800);
  open_remembered (f);
  paned = main_paned (f);
  /* The user drags the handle: Messages 300 px high, the panes above about 380. */
  gtk_paned_set_position (paned, gtk_widget_get_height (GTK_WIDGET (paned)) - 300
                                   - (gtk_widget_get_height (GTK_WIDGET (paned))
                                      - gtk_paned_get_position (paned)
                                      - message_height (f)));
  test_app_spin_for (200);
  chosen = message_height (f);
  g_assert_cmpint (abs (chosen - 300), <=, 2);

  resize_window (f, 1000, 560);
  small = message_height (f);
  g_assert_cmpint (small, <, chosen);
  g_assert_cmpint (gtk_paned_get_position (paned) * 100, >=,
                   gtk_widget_get_height (GTK_WIDGET (paned)) * 45);
  g_assert_cmpint (small, >=, 130);

  resize_window (f, 1280, 800);
  g_assert_cmpint (abs (message_height (f) - chosen), <=, 1);
  resize_window (f, 1000, 560);
  close_window (f);
  g_assert_cmpint (abs (g_settings_get_int (settings, "message-pane-position") - chosen), <=, 1);
  g_settings_reset (settings, "message-pane-position");
  reset_widths_setting (settings);
}

/* A Messages pane the user made taller than the share comes back as tall at the next start
 * in a window of the same size (the review's maximized window: 697 px saved, 410 shown). */
static void
test_tall_messages_restored (Fixture       *f,
                             gconstpointer  data)
{
  g_autoptr(GSettings) settings = NULL;

  if (!have_schema ())
    return;
  settings = g_settings_new (APP_ID);
  set_widths_setting (settings, 315, 320, 1280, 800);
  g_settings_set_int (settings, "message-pane-position", 450);
  open_remembered (f);
  g_assert_cmpint (abs (message_height (f) - 450), <=, 1);
  close_window (f);
  g_assert_cmpint (g_settings_get_int (settings, "message-pane-position"), ==, 450);
  g_settings_reset (settings, "message-pane-position");
  reset_widths_setting (settings);
}

/* Saved widths no pane should have (narrower than the pane's natural width, wider than
 * the window) are not taken as they are, nor saved again. */
static void
test_restored_widths_checked (Fixture       *f,
                              gconstpointer  data)
{
  g_autoptr(GSettings) settings = NULL;
  int item_natural, joint_natural;
  Widths w;

  if (!have_schema ())
    return;
  settings = g_settings_new (APP_ID);
  set_widths_setting (settings, 20, 5000, 1280, 800);
  open_remembered (f);
  w = get_widths (f, "opened with 20 and 5000");
  item_natural = natural_width (km_window_get_item_tree (f->window));
  joint_natural = natural_width (joint_pane (f));
  g_assert_cmpint (w.item, >=, item_natural);
  g_assert_cmpint (w.scene * 100, >=, w.side * SCENE_SHARE_PERCENT - 100);
  assert_joint_rows_inside (f);
  close_window (f);
  g_test_message ("saved %d and %d", g_settings_get_int (settings, "side-pane-position"),
                  g_settings_get_int (settings, "joint-pane-position"));
  g_assert_cmpint (g_settings_get_int (settings, "side-pane-position"), >=, item_natural);
  g_assert_cmpint (g_settings_get_int (settings, "joint-pane-position"), >=, joint_natural - 3);
  g_assert_cmpint (g_settings_get_int (settings, "joint-pane-position"), <, w.side);
  reset_widths_setting (settings);
}

int
main (int    argc,
      char **argv)
{
  static const int small[] = { 800, 600 }, large[] = { 1200, 760 };
  const char *build_dir = g_getenv ("G_TEST_BUILDDIR");
  g_autofree char *schema_dir = NULL;
  g_autofree char *compiled = NULL;

  /* The settings tests take the schema built beside the tests (never an installed one),
   * before GTK looks for schemas; without it they are skipped. */
  schema_dir = g_build_filename (build_dir != NULL ? build_dir : ".", "..", "data", NULL);
  compiled = g_build_filename (schema_dir, "gschemas.compiled", NULL);
  if (g_file_test (compiled, G_FILE_TEST_EXISTS))
    g_setenv ("GSETTINGS_SCHEMA_DIR", schema_dir, TRUE);
  test_app_init (&argc, &argv);

  g_test_add ("/kinema/WindowSize/joint-panel-1024x600", Fixture, NULL,
              NULL, test_joint_panel_1024x600, fixture_teardown);
  g_test_add ("/kinema/WindowSize/remembered-panes-clamped", Fixture, NULL,
              NULL, test_remembered_panes_clamped, fixture_teardown);
  g_test_add ("/kinema/WindowSize/minimum-size", Fixture, NULL,
              NULL, test_minimum_size, fixture_teardown);
  g_test_add_func ("/kinema/WindowSize/narrow-time-bar", test_narrow_time_bar);
  g_test_add ("/kinema/WindowSize/layout-800x600", Fixture, NULL,
              NULL, test_layout_800x600, fixture_teardown);
  g_test_add ("/kinema/WindowSize/remembered-800x600", Fixture, small,
              NULL, test_remembered_size, NULL);
  g_test_add ("/kinema/WindowSize/remembered-1200x760", Fixture, large,
              NULL, test_remembered_size, NULL);
  g_test_add ("/kinema/WindowSize/panes-kept", Fixture, NULL,
              NULL, test_panes_kept, NULL);
  g_test_add ("/kinema/WindowSize/shrink-takes-scene", Fixture, NULL,
              NULL, test_shrink_takes_scene, fixture_teardown);
  g_test_add ("/kinema/WindowSize/squeeze-and-grow", Fixture, NULL,
              NULL, test_squeeze_and_grow, fixture_teardown);
  g_test_add ("/kinema/WindowSize/dragged-widths-kept", Fixture, NULL,
              NULL, test_dragged_widths_kept, fixture_teardown);
  g_test_add ("/kinema/WindowSize/squeezed-not-saved", Fixture, NULL,
              NULL, test_squeezed_not_saved, NULL);
  g_test_add ("/kinema/WindowSize/resized-restart", Fixture, NULL,
              NULL, test_resized_restart, NULL);
  g_test_add ("/kinema/WindowSize/tall-messages-shrink", Fixture, NULL,
              NULL, test_tall_messages_shrink, NULL);
  g_test_add ("/kinema/WindowSize/tall-messages-restored", Fixture, NULL,
              NULL, test_tall_messages_restored, NULL);
  g_test_add ("/kinema/WindowSize/restored-widths-checked", Fixture, NULL,
              NULL, test_restored_widths_checked, NULL);
  return g_test_run ();
}
