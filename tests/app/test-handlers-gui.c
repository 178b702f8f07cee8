/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gstdio.h>
#include <gtk/gtk.h>

#include "km-body-item.h"
#include "km-configuration-bar.h"
#include "km-document-skeleton.h"
#include "km-graph-view.h"
#include "km-ik-job.h"
#include "km-joint-panel.h"
#include "km-message.h"
#include "km-skeleton-edit.h"
#include "km-targets-json.h"

#include "test-app-util.h"
#include "km-test-tmp.h"

/*
 * Body handlers in the editor: the joint panel shows a presenting handler's unit and value
 * (LinearActuatorSampleHandler: the boom's actuator length in mm), edits go back through
 * from_shown, linked joints follow a panel edit (ClosedLinkSampleHandler: J3 = J0,
 * J1 = −J0), and the handler reports reach the message log. The sample handlers are
 * found through KINEMA_BODYHANDLER_PATH, which meson points at the build's src/handlers.
 */

typedef struct
{
  KmDocument   *document;
  KmJointPanel *panel;
  GtkWindow    *window;   /* the panel's: a list makes its rows' widgets once shown */
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  f->document = km_document_new ();
  f->panel = KM_JOINT_PANEL (g_object_ref_sink (km_joint_panel_new ()));
  km_joint_panel_set_document (f->panel, f->document);
  f->window = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_default_size (f->window, 400, 600);
  gtk_window_set_child (f->window, GTK_WIDGET (f->panel));
  gtk_window_present (f->window);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  gint64 end = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;

  km_document_cancel_solve (f->document);
  gtk_window_destroy (f->window);
  g_clear_object (&f->panel);
  /* A cancelled solve's callback holds the document until its worker has stopped. */
  while (G_OBJECT (f->document)->ref_count > 1 && g_get_monotonic_time () < end)
    {
      if (!g_main_context_iteration (NULL, FALSE))
        g_usleep (1000);
    }
  g_assert_finalize_object (f->document);
}

static void
import_data (Fixture    *f,
             const char *name)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = NULL;
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", name, NULL);

  file = g_file_new_for_path (path);
  g_assert_true (km_document_import_file (f->document, file, &error));
  g_assert_no_error (error);
}

static void
test_presented_unit (Fixture       *f,
                     gconstpointer  data)
{
  KmBodyHandlerSet *handlers;
  GtkAdjustment *adjustment;
  const double *pose;
  double shown, value;
  guint n_dof;
  int boom;

  import_data (f, "linear-actuator-arm.json");
  handlers = km_document_get_body_handlers (f->document);
  g_assert_nonnull (handlers);
  g_assert_true (km_body_handler_set_is_attached (handlers, "LinearActuatorSampleHandler"));

  boom = km_skeleton_find_joint (km_document_get_skeleton (f->document), "boom");
  g_assert_cmpint (boom, >=, 0);
  g_assert_cmpuint (km_joint_panel_get_n_rows (f->panel), ==, 1);
  g_assert_cmpstr (km_joint_panel_get_unit (f->panel, 0), ==, "mm");
  adjustment = km_joint_panel_get_adjustment (f->panel, 0);

  /* The row is in mm, not degrees: the boom's ±1.2 rad would be ±68.75°. */
  g_assert_cmpfloat (gtk_adjustment_get_upper (adjustment) - gtk_adjustment_get_lower (adjustment),
                     >, 100.0);
  pose = km_document_get_pose (f->document, &n_dof);
  g_assert_cmpuint (n_dof, ==, 1);
  g_assert_cmpfloat_with_epsilon (gtk_adjustment_get_value (adjustment),
                                  km_body_handler_set_to_shown (handlers, boom, pose[0]), 1e-9);

  /* An edit in mm goes through from_shown; shown again it round-trips. */
  shown = gtk_adjustment_get_lower (adjustment)
          + 0.3 * (gtk_adjustment_get_upper (adjustment) - gtk_adjustment_get_lower (adjustment));
  gtk_adjustment_set_value (adjustment, shown);
  pose = km_document_get_pose (f->document, NULL);
  g_assert_true (km_body_handler_set_from_shown (handlers, boom, shown, &value));
  g_assert_cmpfloat_with_epsilon (pose[0], value, 1e-9);
  g_assert_cmpfloat (fabs (pose[0] - shown * G_PI / 180.0), >, 1e-3);
  g_assert_cmpfloat_with_epsilon (km_body_handler_set_to_shown (handlers, boom, pose[0]), shown, 1e-6);
  g_assert_cmpfloat_with_epsilon (gtk_adjustment_get_value (adjustment), shown, 1e-6);

  /* Undo comes back through to_shown as well. */
  km_document_close_edit (f->document);
  g_assert_true (km_document_undo (f->document));
  pose = km_document_get_pose (f->document, NULL);
  g_assert_cmpfloat_with_epsilon (gtk_adjustment_get_value (adjustment),
                                  km_body_handler_set_to_shown (handlers, boom, pose[0]), 1e-9);
}

static GtkSpinButton *
find_spin (GtkWidget     *widget,
           GtkAdjustment *adjustment)
{
  if (GTK_IS_SPIN_BUTTON (widget)
      && gtk_spin_button_get_adjustment (GTK_SPIN_BUTTON (widget)) == adjustment)
    return GTK_SPIN_BUTTON (widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkSpinButton *found = find_spin (child, adjustment);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The user types @text into @spin and presses Return. */
static void
type_and_enter (GtkSpinButton *spin,
                const char    *text)
{
  gtk_editable_set_text (GTK_EDITABLE (spin), text);
  gtk_spin_button_update (spin);
}

/* The boom's field is in mm, a length unit Kinema knows: it takes a number in another
 * length unit, converted, as every built-in mm field does ("0.3 m" is 300 mm); an angle
 * stays refused (rev16-gui finding 3). */
static void
test_presented_unit_typed (Fixture       *f,
                           gconstpointer  data)
{
  KmBodyHandlerSet *handlers;
  GtkAdjustment *adjustment;
  GtkSpinButton *spin;
  const double *pose;
  double value, before;
  int boom;

  import_data (f, "linear-actuator-arm.json");
  handlers = km_document_get_body_handlers (f->document);
  g_assert_true (km_body_handler_set_is_attached (handlers, "LinearActuatorSampleHandler"));
  boom = km_skeleton_find_joint (km_document_get_skeleton (f->document), "boom");
  g_assert_cmpstr (km_joint_panel_get_unit (f->panel, 0), ==, "mm");
  adjustment = km_joint_panel_get_adjustment (f->panel, 0);
  spin = find_spin (GTK_WIDGET (f->panel), adjustment);
  g_assert_nonnull (spin);
  g_assert_cmpfloat (gtk_adjustment_get_lower (adjustment), <, 250.0);
  g_assert_cmpfloat (gtk_adjustment_get_upper (adjustment), >, 300.0);

  type_and_enter (spin, "0.3 m");
  g_assert_cmpfloat_with_epsilon (gtk_adjustment_get_value (adjustment), 300.0, 1e-9);
  g_assert_true (km_body_handler_set_from_shown (handlers, boom, 300.0, &value));
  pose = km_document_get_pose (f->document, NULL);
  g_assert_cmpfloat_with_epsilon (pose[0], value, 1e-9);

  type_and_enter (spin, "25 cm");
  g_assert_cmpfloat_with_epsilon (gtk_adjustment_get_value (adjustment), 250.0, 1e-9);
  type_and_enter (spin, "260 mm");
  g_assert_cmpfloat_with_epsilon (gtk_adjustment_get_value (adjustment), 260.0, 1e-9);
  type_and_enter (spin, "270");
  g_assert_cmpfloat_with_epsilon (gtk_adjustment_get_value (adjustment), 270.0, 1e-9);

  /* An angle is no length: refused, the value as it was. */
  before = km_document_get_pose (f->document, NULL)[0];
  type_and_enter (spin, "0.3 rad");
  g_assert_cmpfloat_with_epsilon (gtk_adjustment_get_value (adjustment), 270.0, 1e-9);
  g_assert_cmpfloat (km_document_get_pose (f->document, NULL)[0], ==, before);
}

/* The Graph tab plots the boom as the Pose tab shows it: the actuator's length in mm, on an
 * axis labelled in mm over the shown range, not the joint's angle in rad (rev16-gui
 * finding 3). */
static void
test_presented_unit_graph (Fixture       *f,
                           gconstpointer  data)
{
  GtkWindow *window = GTK_WINDOW (gtk_window_new ());
  KmGraphView *graph = KM_GRAPH_VIEW (km_graph_view_new ());
  KmJointPresentation presentation;
  g_auto(GStrv) labels = NULL;
  g_autofree char *top = NULL, *bottom = NULL, *joined = NULL;
  double lo, hi;
  int boom;

  gtk_widget_set_size_request (GTK_WIDGET (graph), 600, 240);
  gtk_window_set_child (window, GTK_WIDGET (graph));
  km_graph_view_set_document (graph, f->document);
  gtk_window_present (window);
  import_data (f, "linear-actuator-arm.json");
  boom = km_skeleton_find_joint (km_document_get_skeleton (f->document), "boom");
  g_assert_true (km_body_handler_set_get_presentation (km_document_get_body_handlers (f->document),
                                                       boom, &presentation));
  km_document_set_selected_joint (f->document, boom);
  test_app_spin_for (200);

  labels = km_graph_view_dup_axis_labels (graph, GTK_POS_LEFT);
  joined = g_strjoinv ("|", labels);
  g_test_message ("axis: %s", joined);
  top = g_strdup_printf ("%.0f mm", presentation.shown_max);
  bottom = g_strdup_printf ("%.0f mm", presentation.shown_min);
  g_assert_cmpuint (g_strv_length (labels), ==, 3);
  g_assert_cmpstr (labels[0], ==, top);
  g_assert_cmpstr (labels[2], ==, bottom);
  g_assert_null (strstr (joined, "rad"));
  g_assert_true (km_graph_view_get_axis_range (graph, GTK_POS_LEFT, &lo, &hi));
  g_assert_cmpfloat_with_epsilon (hi * 1000.0, presentation.shown_max, 1e-6);
  g_assert_cmpfloat_with_epsilon (lo * 1000.0, presentation.shown_min, 1e-6);
  g_assert_false (km_graph_view_get_axis_range (graph, GTK_POS_RIGHT, &lo, &hi));

  /* All joints shown: the same axis (the body has only the boom). */
  km_document_set_selected_joint (f->document, -1);
  test_app_spin_for (50);
  g_strfreev (labels);
  labels = km_graph_view_dup_axis_labels (graph, GTK_POS_LEFT);
  g_assert_cmpstr (labels[0], ==, top);

  km_graph_view_set_document (graph, NULL);
  gtk_window_destroy (window);
  test_app_spin ();
}

static void
test_linked_joints (Fixture       *f,
                    gconstpointer  data)
{
  KmSkeleton *skeleton;
  const double *pose;
  int j0, j1, j3;
  guint d0, d1, d3;

  import_data (f, "choreonoid/ClosedLinkSample.body");
  g_assert_true (km_body_handler_set_is_attached (km_document_get_body_handlers (f->document),
                                                  "ClosedLinkSampleHandler"));
  skeleton = km_document_get_skeleton (f->document);
  j0 = km_skeleton_find_joint (skeleton, "J0");
  j1 = km_skeleton_find_joint (skeleton, "J1");
  j3 = km_skeleton_find_joint (skeleton, "J3");
  g_assert_cmpint (j0, >=, 0);
  g_assert_cmpint (j1, >=, 0);
  g_assert_cmpint (j3, >=, 0);
  d0 = km_skeleton_get_joint (skeleton, j0)->dof_index;
  d1 = km_skeleton_get_joint (skeleton, j1)->dof_index;
  d3 = km_skeleton_get_joint (skeleton, j3)->dof_index;

  /* Each of the three drives the other two, through the panel. */
  gtk_adjustment_set_value (km_joint_panel_get_adjustment (f->panel, d0), 20.0);
  pose = km_document_get_pose (f->document, NULL);
  g_assert_cmpfloat_with_epsilon (pose[d0], 20.0 * G_PI / 180.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (pose[d3], pose[d0], 1e-9);
  g_assert_cmpfloat_with_epsilon (pose[d1], -pose[d0], 1e-9);
  g_assert_cmpfloat_with_epsilon (gtk_adjustment_get_value (km_joint_panel_get_adjustment (f->panel, d1)),
                                  -20.0, 1e-6);
  g_assert_cmpfloat_with_epsilon (gtk_adjustment_get_value (km_joint_panel_get_adjustment (f->panel, d3)),
                                  20.0, 1e-6);

  gtk_adjustment_set_value (km_joint_panel_get_adjustment (f->panel, d1), 10.0);
  pose = km_document_get_pose (f->document, NULL);
  g_assert_cmpfloat_with_epsilon (pose[d1], 10.0 * G_PI / 180.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (pose[d0], -pose[d1], 1e-9);
  g_assert_cmpfloat_with_epsilon (pose[d3], -pose[d1], 1e-9);

  gtk_adjustment_set_value (km_joint_panel_get_adjustment (f->panel, d3), -15.0);
  pose = km_document_get_pose (f->document, NULL);
  g_assert_cmpfloat_with_epsilon (pose[d0], -15.0 * G_PI / 180.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (pose[d1], 15.0 * G_PI / 180.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (gtk_adjustment_get_value (km_joint_panel_get_adjustment (f->panel, d0)),
                                  -15.0, 1e-6);

  /* The linked move is one undoable step with the edit. */
  km_document_close_edit (f->document);
  g_assert_true (km_document_undo (f->document));
  pose = km_document_get_pose (f->document, NULL);
  g_assert_cmpfloat_with_epsilon (pose[d3], pose[d0], 1e-9);
  g_assert_cmpfloat_with_epsilon (pose[d1], -pose[d0], 1e-9);
}

/* An IK drag answer is a whole pose: km_document_set_joint_values() re-syncs the linked
 * joints from J0, so a pose that moved J0 alone still closes the loop. */
static void
test_linked_joint_values (Fixture       *f,
                          gconstpointer  data)
{
  KmSkeleton *skeleton;
  const double *pose;
  g_autofree double *q = NULL;
  double before[3];
  guint n_dof, d0, d1, d3;

  import_data (f, "choreonoid/ClosedLinkSample.body");
  g_assert_true (km_body_handler_set_has_linked_joints (km_document_get_body_handlers (f->document)));
  skeleton = km_document_get_skeleton (f->document);
  d0 = km_skeleton_get_joint (skeleton, km_skeleton_find_joint (skeleton, "J0"))->dof_index;
  d1 = km_skeleton_get_joint (skeleton, km_skeleton_find_joint (skeleton, "J1"))->dof_index;
  d3 = km_skeleton_get_joint (skeleton, km_skeleton_find_joint (skeleton, "J3"))->dof_index;

  pose = km_document_get_pose (f->document, &n_dof);
  q = g_memdup2 (pose, n_dof * sizeof (double));
  before[0] = pose[d0];
  before[1] = pose[d1];
  before[2] = pose[d3];
  q[d0] = 0.3;
  q[d1] = 0.05;
  q[d3] = -0.2;
  km_document_set_joint_values (f->document, q, n_dof);
  pose = km_document_get_pose (f->document, NULL);
  g_assert_cmpfloat_with_epsilon (pose[d0], 0.3, 1e-9);
  g_assert_cmpfloat_with_epsilon (pose[d3], 0.3, 1e-9);
  g_assert_cmpfloat_with_epsilon (pose[d1], -0.3, 1e-9);
  g_assert_cmpfloat_with_epsilon (gtk_adjustment_get_value (km_joint_panel_get_adjustment (f->panel, d1)),
                                  -0.3 * 180.0 / G_PI, 1e-6);

  /* One undo step back to the pose before. */
  km_document_close_edit (f->document);
  g_assert_true (km_document_undo (f->document));
  pose = km_document_get_pose (f->document, NULL);
  g_assert_cmpfloat_with_epsilon (pose[d0], before[0], 1e-9);
  g_assert_cmpfloat_with_epsilon (pose[d1], before[1], 1e-9);
  g_assert_cmpfloat_with_epsilon (pose[d3], before[2], 1e-9);
}

static guint
count_off (Fixture *f)
{
  return test_app_count_messages (f->document, G_LOG_LEVEL_WARNING, "ClosedLinkSampleHandler",
                                  "failed to initialize", "J1 is not found", NULL);
}

static guint
count_loaded (Fixture *f)
{
  return test_app_count_messages (f->document, G_LOG_LEVEL_INFO, "ClosedLinkSampleHandler",
                                  "has been loaded", NULL);
}

/* A skeleton edit that renames a joint the handler needs switches the handler off (the
 * closed loop comes apart): the message view says which handler and why, in the
 * loader's words, once for the edit; undo brings it back and says so, redo says it again,
 * and a further edit that leaves it off adds nothing (review: handler switched off
 * silently). */
static void
test_edit_detaches_handler (Fixture       *f,
                            gconstpointer  data)
{
  g_autoptr(KmSkeleton) renamed = NULL;
  g_autoptr(KmSkeleton) again = NULL;
  g_autoptr(GError) error = NULL;
  KmSkeleton *skeleton;
  guint n_warnings;
  int j1, j0;

  import_data (f, "choreonoid/ClosedLinkSample.body");
  g_assert_true (km_body_handler_set_is_attached (km_document_get_body_handlers (f->document),
                                                  "ClosedLinkSampleHandler"));
  g_assert_cmpuint (count_loaded (f), ==, 1);
  g_assert_cmpuint (count_off (f), ==, 0);
  n_warnings = test_app_count_messages (f->document, G_LOG_LEVEL_WARNING, NULL);

  skeleton = km_document_get_skeleton (f->document);
  j1 = km_skeleton_find_joint (skeleton, "J1");
  g_assert_cmpint (j1, >=, 0);
  renamed = km_skeleton_edit_set_name (skeleton, j1, "Coupler", &error);
  g_assert_no_error (error);
  g_assert_true (km_document_edit_skeleton (f->document, renamed, "Rename Joint", NULL));
  g_assert_false (km_body_handler_set_is_attached (km_document_get_body_handlers (f->document),
                                                   "ClosedLinkSampleHandler"));
  g_assert_cmpuint (count_off (f), ==, 1);
  g_assert_cmpuint (test_app_count_messages (f->document, G_LOG_LEVEL_WARNING, NULL), ==,
                    n_warnings + 1);

  /* Undo re-attaches it, and the log says it is back. */
  g_assert_true (km_document_undo (f->document));
  g_assert_true (km_body_handler_set_is_attached (km_document_get_body_handlers (f->document),
                                                  "ClosedLinkSampleHandler"));
  g_assert_cmpuint (count_loaded (f), ==, 2);
  g_assert_cmpuint (count_off (f), ==, 1);

  g_assert_true (km_document_redo (f->document));
  g_assert_false (km_body_handler_set_is_attached (km_document_get_body_handlers (f->document),
                                                   "ClosedLinkSampleHandler"));
  g_assert_cmpuint (count_off (f), ==, 2);
  g_assert_cmpuint (count_loaded (f), ==, 2);

  /* Off already: another edit changes nothing about it, and says nothing. */
  skeleton = km_document_get_skeleton (f->document);
  j0 = km_skeleton_find_joint (skeleton, "J0");
  g_assert_cmpint (j0, >=, 0);
  again = km_skeleton_edit_set_name (skeleton, j0, "Crank", &error);
  g_assert_no_error (error);
  g_assert_true (km_document_edit_skeleton (f->document, again, "Rename Joint", NULL));
  g_assert_cmpuint (test_app_count_messages (f->document, G_LOG_LEVEL_WARNING, NULL), ==,
                    n_warnings + 2);
  g_assert_cmpuint (count_loaded (f), ==, 2);
}

static void
test_handler_messages (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-handlers-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "missing-handler.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  const char *model =
    "{ \"root_name\": \"base\", \"body_handlers\": [\"NoSuchHandler\", \"../evil\"],\n"
    "  \"joints\": [ { \"name\": \"base\", \"type\": \"fixed\", \"offset\": [0, 0, 0] },\n"
    "    { \"name\": \"j\", \"type\": \"revolute\", \"parent\": \"base\",\n"
    "      \"offset\": [0, 0, 0.1], \"axis\": [0, 0, 1], \"limits\": [-1, 1] } ] }\n";

  import_data (f, "linear-actuator-arm.json");
  g_assert_true (test_app_has_message (f->document, G_LOG_LEVEL_INFO,
                                       "LinearActuatorSampleHandler", "has been loaded", NULL));

  /* Missing and refused handlers: warnings naming them; the model still loads. */
  g_assert_true (g_file_set_contents (path, model, -1, NULL));
  g_assert_true (km_document_import_file (f->document, file, &error));
  g_assert_no_error (error);
  g_assert_nonnull (km_document_get_skeleton (f->document));
  g_assert_true (test_app_has_message (f->document, G_LOG_LEVEL_WARNING, "NoSuchHandler", NULL));
  g_assert_true (test_app_has_message (f->document, G_LOG_LEVEL_WARNING, "../evil", "refused", NULL));
  /* Each said where the model names it. */
  g_assert_true (test_app_has_message (f->document, G_LOG_LEVEL_WARNING,
                                       "missing-handler.json:1:42: Body handler NoSuchHandler",
                                       NULL));
  g_assert_true (test_app_has_message (f->document, G_LOG_LEVEL_WARNING,
                                       "missing-handler.json:1:59: Body handler “../evil”",
                                       NULL));
  g_assert_cmpuint (km_joint_panel_get_n_rows (f->panel), ==, 1);
  g_assert_cmpstr (km_joint_panel_get_unit (f->panel, 0), ==, "°");

  g_unlink (path);
  g_rmdir (dir);
}

static void
test_units (Fixture       *f,
            gconstpointer  data)
{
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-units-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "slider.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  GtkAdjustment *adjustment;
  const double *pose;
  const char *model =
    "{ \"root_name\": \"base\",\n"
    "  \"joints\": [ { \"name\": \"base\", \"type\": \"fixed\", \"offset\": [0, 0, 0] },\n"
    "    { \"name\": \"turn\", \"type\": \"revolute\", \"parent\": \"base\",\n"
    "      \"offset\": [0, 0, 0.1], \"axis\": [0, 0, 1], \"limits\": [-1, 1] },\n"
    "    { \"name\": \"slide\", \"type\": \"prismatic\", \"parent\": \"turn\",\n"
    "      \"offset\": [0.1, 0, 0], \"axis\": [1, 0, 0], \"limits\": [0, 0.5] } ] }\n";

  g_assert_true (g_file_set_contents (path, model, -1, NULL));
  g_assert_true (km_document_import_file (f->document, file, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (km_joint_panel_get_n_rows (f->panel), ==, 2);
  g_assert_cmpstr (km_joint_panel_get_unit (f->panel, 0), ==, "°");
  g_assert_cmpstr (km_joint_panel_get_unit (f->panel, 1), ==, "m");
  g_assert_cmpfloat_with_epsilon (gtk_adjustment_get_upper (km_joint_panel_get_adjustment (f->panel, 0)),
                                  180.0 / G_PI, 1e-9);

  g_object_set (f->panel, "angle-unit", "radians", "length-unit", "millimetres", NULL);
  g_assert_cmpstr (km_joint_panel_get_unit (f->panel, 0), ==, "rad");
  g_assert_cmpstr (km_joint_panel_get_unit (f->panel, 1), ==, "mm");
  g_assert_cmpfloat_with_epsilon (gtk_adjustment_get_upper (km_joint_panel_get_adjustment (f->panel, 0)),
                                  1.0, 1e-9);
  adjustment = km_joint_panel_get_adjustment (f->panel, 1);
  g_assert_cmpfloat_with_epsilon (gtk_adjustment_get_upper (adjustment), 500.0, 1e-9);

  gtk_adjustment_set_value (adjustment, 125.0);
  pose = km_document_get_pose (f->document, NULL);
  g_assert_cmpfloat_with_epsilon (pose[1], 0.125, 1e-12);
  gtk_adjustment_set_value (km_joint_panel_get_adjustment (f->panel, 0), 0.5);
  pose = km_document_get_pose (f->document, NULL);
  g_assert_cmpfloat_with_epsilon (pose[0], 0.5, 1e-12);

  g_object_set (f->panel, "angle-unit", "degrees", "length-unit", "metres", NULL);
  g_assert_cmpfloat_with_epsilon (gtk_adjustment_get_value (km_joint_panel_get_adjustment (f->panel, 1)),
                                  0.125, 1e-12);
  g_assert_cmpfloat_with_epsilon (gtk_adjustment_get_value (km_joint_panel_get_adjustment (f->panel, 0)),
                                  0.5 * 180.0 / G_PI, 1e-9);

  g_unlink (path);
  g_rmdir (dir);
}

static void
timeout_cb (gpointer data)
{
  *(gboolean *) data = TRUE;
}

/* The UR5 names its analytic IK handler: the document's solve installs the hook. */
static void
test_analytic_solve (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-ur5-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "targets.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  gboolean late = FALSE;
  guint id;
  const char *targets =
    "[ { \"frame\": 0, \"pos\": [0.4, 0.2, 0.4], \"euler\": [180.0, 0.0, 0.0] },\n"
    "  { \"frame\": 10, \"pos\": [0.3, -0.2, 0.5], \"euler\": [180.0, 0.0, 30.0] } ]\n";

  import_data (f, "ur5-analytic.json");
  g_assert_true (km_body_handler_set_is_attached (km_document_get_body_handlers (f->document),
                                                  "UR5AnalyticIkHandler"));
  g_assert_true (g_file_set_contents (path, targets, -1, NULL));
  g_assert_true (km_document_import_file (f->document, file, &error));
  g_assert_no_error (error);

  km_document_solve (f->document);
  id = g_timeout_add_once (20000, timeout_cb, &late);
  while (km_document_get_solving (f->document) && !late)
    g_main_context_iteration (NULL, TRUE);
  if (!late)
    g_source_remove (id);
  g_assert_false (km_document_get_solving (f->document));
  g_assert_true (test_app_has_message (f->document, G_LOG_LEVEL_INFO, "analytic IK", NULL));
  g_assert_true (test_app_has_message (f->document, G_LOG_LEVEL_INFO, "Solved 11 frames", NULL));
  g_assert_nonnull (km_document_get_animation (f->document));

  g_unlink (path);
  g_rmdir (dir);
}

/* The editor's solve sends every solved frame through the body's linked joints
 * (ClosedLinkSampleHandler: J1 = −J0, J3 = J0), as a drag does. */
static void
test_linked_solve (Fixture       *f,
                   gconstpointer  data)
{
  KmAnimation *animation;
  KmSkeleton *skel;
  gboolean late = FALSE;
  gboolean moved = FALSE;
  guint id;
  int d0, d1, d3;

  g_autofree char *dir = km_test_make_tmp_dir ("kinema-closed-link-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "targets.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  const char *targets =
    "[ { \"frame\": 0, \"effector\": \"J1\", \"pos\": [0, 0.1, 0.16], \"euler\": [0, 0, 0] },\n"
    "  { \"frame\": 10, \"effector\": \"J1\", \"pos\": [-0.0295520206661340, "
    "0.0955336489125606, 0.16], \"euler\": [0, 0, 0] } ]\n";

  import_data (f, "choreonoid/ClosedLinkSample.body");
  g_assert_true (g_file_set_contents (path, targets, -1, NULL));
  g_assert_true (km_document_import_file (f->document, file, &error));
  g_assert_no_error (error);
  km_document_solve (f->document);
  id = g_timeout_add_once (20000, timeout_cb, &late);
  while (km_document_get_solving (f->document) && !late)
    g_main_context_iteration (NULL, TRUE);
  if (!late)
    g_source_remove (id);
  g_assert_false (km_document_get_solving (f->document));
  animation = km_document_get_animation (f->document);
  g_assert_nonnull (animation);
  skel = km_document_get_skeleton (f->document);
  d0 = km_skeleton_get_joint (skel, km_skeleton_find_joint (skel, "J0"))->dof_index;
  d1 = km_skeleton_get_joint (skel, km_skeleton_find_joint (skel, "J1"))->dof_index;
  d3 = km_skeleton_get_joint (skel, km_skeleton_find_joint (skel, "J3"))->dof_index;
  for (guint i = 0; i < km_animation_get_n_frames (animation); i++)
    {
      const double *q = km_animation_get_frame (animation, i);

      moved |= q[d0] != 0.0;
      g_assert_cmpfloat (q[d1], ==, -q[d0]);
      g_assert_cmpfloat (q[d3], ==, q[d0]);
    }
  g_assert_true (moved);
  g_unlink (path);
  g_rmdir (dir);
}

/* The editor's solved frames carry the residuals of the pose they hold after the linked
 * joints moved (the time bar's red marks, the "Solved … largest error" message): with a
 * tool on J1's link the solver turns J1 freely, and J1 = −J0 swings the tool off its
 * target. They were the solver's, of the pose before. */
static void
test_linked_solve_residuals (Fixture       *f,
                             gconstpointer  data)
{
  KmAnimation *animation;
  KmSkeleton *skel;
  gboolean late = FALSE;
  guint id;
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-closed-link-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "targets.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmTargetTrack) track = NULL;
  g_autoptr(KmIkProblem) problem = NULL;
  g_autofree double *measured = NULL;
  double max_pos = 0.0;
  const char *targets =
    "[ { \"frame\": 0, \"effector\": \"J1\", \"pos\": [0, 0.3, 0.16], \"euler\": [0, 0, 0],\n"
    "    \"effector_offset\": [0.2, 0, 0], \"position_only\": true },\n"
    "  { \"frame\": 10, \"effector\": \"J1\", \"pos\": [-0.1, 0.28, 0.16], "
    "\"euler\": [0, 0, 0],\n"
    "    \"effector_offset\": [0.2, 0, 0], \"position_only\": true } ]\n";

  import_data (f, "choreonoid/ClosedLinkSample.body");
  g_assert_true (g_file_set_contents (path, targets, -1, NULL));
  g_assert_true (km_document_import_file (f->document, file, &error));
  g_assert_no_error (error);
  km_document_solve (f->document);
  id = g_timeout_add_once (20000, timeout_cb, &late);
  while (km_document_get_solving (f->document) && !late)
    g_main_context_iteration (NULL, TRUE);
  if (!late)
    g_source_remove (id);
  g_assert_false (km_document_get_solving (f->document));
  animation = km_document_get_animation (f->document);
  g_assert_nonnull (animation);
  skel = km_document_get_skeleton (f->document);
  track = km_targets_json_load_file (path, &error);
  g_assert_no_error (error);
  problem = km_ik_problem_new (skel, km_skeleton_find_joint (skel, "J1"));
  measured = km_ik_measure_track (problem, track, animation, NULL);
  for (guint i = 0; i < km_animation_get_n_frames (animation); i++)
    {
      double pos_err, rot_err;

      g_assert_true (km_animation_get_residual (animation, i, &pos_err, &rot_err));
      g_assert_cmpfloat_with_epsilon (pos_err, measured[2 * i], 1e-12);
      g_assert_cmpfloat_with_epsilon (rot_err, measured[2 * i + 1], 1e-12);
      max_pos = MAX (max_pos, pos_err);
    }
  g_assert_cmpfloat (max_pos, >, 0.2);  /* the tool is off its targets */
  g_unlink (path);
  g_rmdir (dir);
}

/* The configuration drop-down of @widget's tree, or NULL. */
static KmConfigurationBar *
find_configuration_bar (GtkWidget *widget)
{
  if (KM_IS_CONFIGURATION_BAR (widget))
    return KM_CONFIGURATION_BAR (widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      KmConfigurationBar *found = find_configuration_bar (child);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The UR5's analytic IK knows eight configurations: the Pose tab shows the one the pose is
 * in, and choosing another reaches the same end-effector pose in it (one undo step); a
 * body without such a handler shows none (the body handler spec: configurations "can be
 * checked and switched on the GUI"). */
static void
test_configurations (Fixture       *f,
                     gconstpointer  data)
{
  static const double bent[] = { 0.3, -1.0, 1.2, -0.6, 0.8, 0.2 };
  KmConfigurationBar *bar = find_configuration_bar (GTK_WIDGET (f->panel));
  g_autofree double *before = NULL;
  const double *pose;
  const KmTransform *world;
  KmTransform tip;
  guint n_dof = 0, n_joints = 0;
  int effector, shown, chosen = -1;

  g_assert_nonnull (bar);
  import_data (f, "bench-ur5.json");
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (bar)));

  import_data (f, "ur5-analytic.json");
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  for (guint i = 0; i < G_N_ELEMENTS (bent); i++)
    km_document_set_dof_value (f->document, i, bent[i]);
  km_document_close_edit (f->document);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (bar)));
  shown = km_configuration_bar_get_shown (bar);
  g_assert_cmpint (shown, >=, 0);

  effector = km_document_get_effector (f->document);
  g_assert_cmpint (effector, >=, 0);
  world = km_document_get_joint_world (f->document, &n_joints);
  tip = world[effector];
  pose = km_document_get_pose (f->document, &n_dof);
  before = g_memdup2 (pose, n_dof * sizeof (double));

  for (guint c = 0; c < 8 && chosen < 0; c++)
    if ((int) c != shown && km_configuration_bar_choose (bar, c))
      chosen = (int) c;
  g_assert_cmpint (chosen, >=, 0);
  g_assert_cmpint (km_configuration_bar_get_shown (bar), ==, chosen);
  world = km_document_get_joint_world (f->document, &n_joints);
  g_assert_cmpfloat_with_epsilon (world[effector].pos.x, tip.pos.x, 1e-6);
  g_assert_cmpfloat_with_epsilon (world[effector].pos.y, tip.pos.y, 1e-6);
  g_assert_cmpfloat_with_epsilon (world[effector].pos.z, tip.pos.z, 1e-6);
  for (guint r = 0; r < 3; r++)
    for (guint c = 0; c < 3; c++)
      g_assert_cmpfloat_with_epsilon (world[effector].rot.m[r][c], tip.rot.m[r][c], 1e-6);
  g_assert_true (km_skeleton_within_limits (km_document_get_skeleton (f->document),
                                            km_document_get_pose (f->document, NULL), 1e-9));

  /* One step back to the pose (and configuration) of before. */
  g_assert_true (km_document_undo (f->document));
  for (guint d = 0; d < n_dof; d++)
    g_assert_cmpfloat_with_epsilon (km_document_get_pose (f->document, NULL)[d], before[d], 1e-12);
  g_assert_cmpint (km_configuration_bar_get_shown (bar), ==, shown);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  gtk_init ();

  g_test_add ("/kinema/JointPanel/presented-unit", Fixture, NULL,
              fixture_setup, test_presented_unit, fixture_teardown);
  g_test_add ("/kinema/JointPanel/presented-unit-typed", Fixture, NULL,
              fixture_setup, test_presented_unit_typed, fixture_teardown);
  g_test_add ("/kinema/GraphView/presented-unit", Fixture, NULL,
              fixture_setup, test_presented_unit_graph, fixture_teardown);
  g_test_add ("/kinema/JointPanel/linked-joints", Fixture, NULL,
              fixture_setup, test_linked_joints, fixture_teardown);
  g_test_add ("/kinema/Document/linked-joint-values", Fixture, NULL,
              fixture_setup, test_linked_joint_values, fixture_teardown);
  g_test_add ("/kinema/Document/edit-detaches-handler", Fixture, NULL,
              fixture_setup, test_edit_detaches_handler, fixture_teardown);
  g_test_add ("/kinema/JointPanel/handler-messages", Fixture, NULL,
              fixture_setup, test_handler_messages, fixture_teardown);
  g_test_add ("/kinema/JointPanel/units", Fixture, NULL,
              fixture_setup, test_units, fixture_teardown);
  g_test_add ("/kinema/JointPanel/configurations", Fixture, NULL,
              fixture_setup, test_configurations, fixture_teardown);
  g_test_add ("/kinema/Document/analytic-solve", Fixture, NULL,
              fixture_setup, test_analytic_solve, fixture_teardown);
  g_test_add ("/kinema/Document/linked-solve", Fixture, NULL,
              fixture_setup, test_linked_solve, fixture_teardown);
  g_test_add ("/kinema/Document/linked-solve-residuals", Fixture, NULL,
              fixture_setup, test_linked_solve_residuals, fixture_teardown);
  return g_test_run ();
}
