/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <math.h>
#include <string.h>
#include <gtk/gtk.h>

#include "km-camera.h"
#include "km-scene-view.h"
#include "km-time-bar.h"
#include "km-window.h"
#include "test-app-util.h"

/*
 * The View menu's Camera section (review: the standard views, orthographic and framing
 * were only keys and a header button) and the playback speed button's label, in the
 * editor window on the built-in example, under Xvfb.
 */

typedef struct
{
  KmWindow    *window;
  KmDocument  *document;
  KmSceneView *view;
} Fixture;

static gboolean
allocated (gpointer view)
{
  return gtk_widget_get_width (view) > 0 && gtk_widget_get_height (view) > 0;
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  f->window = test_app_example_window (1100, 700);
  f->document = km_window_get_document (f->window);
  f->view = KM_SCENE_VIEW (km_window_get_scene_view (f->window));
  g_assert_true (test_app_wait_until (allocated, f->view, 10000));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  test_app_spin ();
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  gtk_window_destroy (GTK_WINDOW (f->window));
  test_app_spin ();
}

/* The item of @model (or of a section or submenu below it) bound to @action, or -1;
 * @found_in and @found_at say where. */
static gboolean
find_item (GMenuModel  *model,
           const char  *action,
           GMenuModel **found_in,
           int         *found_at)
{
  for (int i = 0; i < g_menu_model_get_n_items (model); i++)
    {
      g_autofree char *name = NULL;
      GMenuLinkIter *links;
      const char *link;
      GMenuModel *child;
      gboolean found = FALSE;

      if (g_menu_model_get_item_attribute (model, i, G_MENU_ATTRIBUTE_ACTION, "s", &name)
          && g_str_equal (name, action))
        {
          *found_in = model;
          *found_at = i;
          return TRUE;
        }
      links = g_menu_model_iterate_item_links (model, i);
      while (!found && g_menu_link_iter_get_next (links, &link, &child))
        {
          found = find_item (child, action, found_in, found_at);
          g_object_unref (child);
        }
      g_object_unref (links);
      if (found)
        return TRUE;
    }
  return FALSE;
}

/* The menu bar's View menu has a Camera section with the standard views, orthographic
 * and framing, each showing the key that does the same in the view. */
static void
test_menu_items (void)
{
  static const struct
  {
    const char *action;
    const char *accel;
  } items[] = {
    { "win.view-front", "1" },
    { "win.view-side", "3" },
    { "win.view-top", "7" },
    { "win.orthographic", "5" },
    { "win.frame-all", "a" },
    { "win.frame-selection", "f" },
  };
  g_autoptr(GtkBuilder) builder =
    gtk_builder_new_from_resource ("/io/github/kinema/Kinema/gtk/menus.ui");
  GMenuModel *menubar = G_MENU_MODEL (gtk_builder_get_object (builder, "menubar"));
  GMenuModel *camera = NULL;
  int reset_at = -1;

  g_assert_nonnull (menubar);
  for (guint i = 0; i < G_N_ELEMENTS (items); i++)
    {
      GMenuModel *section = NULL;
      int at = -1;
      g_autofree char *accel = NULL;
      g_autofree char *label = NULL;

      g_test_message ("%s", items[i].action);
      g_assert_true (find_item (menubar, items[i].action, &section, &at));
      /* All in the same section, in this order. */
      if (camera == NULL)
        camera = section;
      g_assert_true (section == camera);
      g_assert_cmpint (at, ==, (int) i);
      g_assert_true (g_menu_model_get_item_attribute (section, at, "accel", "s", &accel));
      g_assert_cmpstr (accel, ==, items[i].accel);
      g_assert_true (g_menu_model_get_item_attribute (section, at, G_MENU_ATTRIBUTE_LABEL,
                                                      "s", &label));
    }
  /* Reset Camera stays in the View menu. */
  g_assert_true (find_item (menubar, "win.reset-camera", &camera, &reset_at));
}

static void
assert_same_camera (const KmCamera *a,
                    const KmCamera *b)
{
  g_assert_cmpfloat_with_epsilon (a->yaw, b->yaw, 1e-9);
  g_assert_cmpfloat_with_epsilon (a->pitch, b->pitch, 1e-9);
  g_assert_cmpfloat_with_epsilon (a->distance, b->distance, 1e-9);
  g_assert_cmpfloat_with_epsilon (a->fov_y, b->fov_y, 1e-9);
  g_assert_cmpfloat_with_epsilon (a->target.x, b->target.x, 1e-9);
  g_assert_cmpfloat_with_epsilon (a->target.y, b->target.y, 1e-9);
  g_assert_cmpfloat_with_epsilon (a->target.z, b->target.z, 1e-9);
  g_assert_cmpint (!!a->orthographic, ==, !!b->orthographic);
}

static gboolean
differs (const KmCamera *a,
         const KmCamera *b)
{
  return fabs (a->yaw - b->yaw) > 1e-6 || fabs (a->pitch - b->pitch) > 1e-6
         || fabs (a->distance - b->distance) > 1e-6
         || fabs (a->target.x - b->target.x) > 1e-6
         || fabs (a->target.y - b->target.y) > 1e-6
         || fabs (a->target.z - b->target.z) > 1e-6
         || !a->orthographic != !b->orthographic;
}

/* Each Camera item's window action moves the camera as the view's key does (the keys run
 * the view's scene.* actions), from a camera moved away from every one of them. */
static void
test_menu_actions (Fixture       *f,
                   gconstpointer  data)
{
  static const struct
  {
    const char *menu_action;
    const char *key_action;
  } pairs[] = {
    { "win.view-front", "scene.view-front" },
    { "win.view-side", "scene.view-side" },
    { "win.view-top", "scene.view-top" },
    { "win.frame-all", "scene.frame-all" },
    { "win.frame-selection", "scene.frame-selection" },
  };
  KmCamera moved = *km_scene_view_get_camera (f->view);

  km_camera_orbit (&moved, 0.4, -0.3);
  km_camera_zoom (&moved, 0.3);
  km_camera_pan (&moved, 40.0, 25.0, 800, 600);
  /* Frame Selection has a joint to frame: the last (a hand, away from the model's middle). */
  km_document_set_selected_joint (f->document,
                                  (int) km_skeleton_get_n_joints (
                                    km_document_get_skeleton (f->document)) - 1);
  for (guint i = 0; i < G_N_ELEMENTS (pairs); i++)
    {
      KmCamera by_menu;

      g_test_message ("%s", pairs[i].menu_action);
      km_scene_view_set_camera (f->view, &moved);
      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window),
                                                 pairs[i].menu_action, NULL));
      by_menu = *km_scene_view_get_camera (f->view);
      g_assert_true (differs (&by_menu, &moved));

      km_scene_view_set_camera (f->view, &moved);
      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->view),
                                                 pairs[i].key_action, NULL));
      assert_same_camera (km_scene_view_get_camera (f->view), &by_menu);
    }
}

/* The state of the window's property action @name: its property's value. */
static gboolean
action_state (KmWindow   *window,
              const char *name)
{
  gboolean value = FALSE;

  g_object_get (window, name, &value, NULL);
  return value;
}

/* Orthographic is a check item: it toggles the projection as 5 does, and shows the
 * projection set by the key. */
static void
test_menu_orthographic (Fixture       *f,
                        gconstpointer  data)
{
  const KmCamera *camera = km_scene_view_get_camera (f->view);

  g_assert_false (camera->orthographic);
  /* The check item's state: a property action on the window's "orthographic". */
  g_assert_nonnull (g_object_class_find_property (G_OBJECT_GET_CLASS (f->window),
                                                  "orthographic"));
  g_assert_false (action_state (f->window, "orthographic"));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.orthographic",
                                             NULL));
  g_assert_true (camera->orthographic);
  g_assert_true (km_scene_view_get_orthographic (f->view));
  g_assert_true (action_state (f->window, "orthographic"));

  /* The key (scene.toggle-ortho) back to perspective: the menu's check follows. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->view), "scene.toggle-ortho", NULL));
  g_assert_false (camera->orthographic);
  g_assert_false (action_state (f->window, "orthographic"));
}

/* The first menu button at or below @widget with the tooltip @tooltip. */
static GtkWidget *
find_menu_button (GtkWidget  *widget,
                  const char *tooltip)
{
  if (GTK_IS_MENU_BUTTON (widget)
      && g_strcmp0 (gtk_widget_get_tooltip_text (widget), tooltip) == 0)
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_menu_button (child, tooltip);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The playback speed button shows the speed ("1×"), and follows it as it changes, from
 * its menu (time.speed) or otherwise (a project's saved speed). */
static void
test_speed_label (Fixture       *f,
                  gconstpointer  data)
{
  GtkWidget *time_bar = test_app_find_widget (GTK_WIDGET (f->window), KM_TYPE_TIME_BAR);
  GtkWidget *button;

  g_assert_nonnull (time_bar);
  button = find_menu_button (time_bar, "Playback Speed");
  g_assert_nonnull (button);
  g_assert_cmpstr (gtk_menu_button_get_label (GTK_MENU_BUTTON (button)), ==, "1×");

  g_assert_true (gtk_widget_activate_action (time_bar, "time.speed", "d", 0.5));
  g_assert_cmpfloat (km_time_bar_get_speed (KM_TIME_BAR (time_bar)), ==, 0.5);
  g_assert_cmpstr (gtk_menu_button_get_label (GTK_MENU_BUTTON (button)), ==, "0.5×");

  km_time_bar_set_speed (KM_TIME_BAR (time_bar), 2.0);
  g_assert_cmpstr (gtk_menu_button_get_label (GTK_MENU_BUTTON (button)), ==, "2×");
  km_time_bar_set_speed (KM_TIME_BAR (time_bar), 0.25);
  g_assert_cmpstr (gtk_menu_button_get_label (GTK_MENU_BUTTON (button)), ==, "0.25×");
  /* A speed no menu item gives (a project's saved 1.5) shows as it is. */
  km_time_bar_set_speed (KM_TIME_BAR (time_bar), 1.5);
  g_assert_cmpstr (gtk_menu_button_get_label (GTK_MENU_BUTTON (button)), ==, "1.5×");
}

int
main (int    argc,
      char **argv)
{
  test_app_init (&argc, &argv);

  g_test_add_func ("/view-menu/items", test_menu_items);
  g_test_add ("/view-menu/actions", Fixture, NULL, fixture_setup, test_menu_actions,
              fixture_teardown);
  g_test_add ("/view-menu/orthographic", Fixture, NULL, fixture_setup,
              test_menu_orthographic, fixture_teardown);
  g_test_add ("/time-bar/speed-label", Fixture, NULL, fixture_setup, test_speed_label,
              fixture_teardown);
  return g_test_run ();
}
