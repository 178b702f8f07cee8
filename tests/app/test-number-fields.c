/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <math.h>
#include <string.h>
#include <gtk/gtk.h>

#include "km-application.h"
#include "km-document.h"
#include "km-document-skeleton.h"
#include "km-joint-inspector.h"
#include "km-joint-panel.h"
#include "km-skeleton-edit.h"
#include "km-window.h"

#include "test-app-util.h"


/*
 * The numeric fields of the Pose tab and the Skeleton inspector, as a user types into
 * them: text that is no number (or no text) is refused at the field with the reason and
 * changes nothing; Ctrl+Z and Ctrl+Shift+Z in a field undo and redo the document's edits;
 * passing through a field, or leaving it as it shows the value (rounded), is no edit.
 */

#define SHOULDER_X 0
#define ELBOW 3

typedef struct
{
  KmApplication *app;
  KmWindow      *window;
  KmDocument    *document;
  GtkWidget     *panel;
  GtkWidget     *inspector;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  f->app = km_application_new ();
  g_application_set_flags (G_APPLICATION (f->app), G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (f->app), NULL, &error));
  g_assert_no_error (error);
  f->window = km_window_new (GTK_APPLICATION (f->app));
  gtk_window_set_default_size (GTK_WINDOW (f->window), 1000, 700);
  g_assert_true (km_window_open_example (f->window));
  gtk_window_present (GTK_WINDOW (f->window));
  f->document = g_object_ref (km_window_get_document (f->window));
  f->panel = km_window_get_joint_panel (f->window);
  f->inspector = test_app_find_widget (GTK_WIDGET (f->window), KM_TYPE_JOINT_INSPECTOR);
  g_assert_nonnull (f->inspector);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  test_app_spin_for (100);
  km_document_set_selected_joint (f->document,
                                  km_skeleton_find_joint (km_document_get_skeleton (f->document),
                                                          "Elbow"));
  g_assert_false (km_document_can_undo (f->document));
  g_assert_false (km_document_get_modified (f->document));
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  km_document_set_modified (f->document, FALSE);
  gtk_window_destroy (GTK_WINDOW (f->window));
  test_app_spin ();
  g_assert_true (test_app_unref_and_wait_finalized (f->document, 5000));
  g_clear_object (&f->app);
}

static GtkSpinButton *
inspector_field (Fixture    *f,
                 const char *name)
{
  GObject *object = gtk_widget_get_template_child (f->inspector, KM_TYPE_JOINT_INSPECTOR, name);

  g_assert_true (GTK_IS_SPIN_BUTTON (object));
  return GTK_SPIN_BUTTON (object);
}

static GtkWidget *
inspector_label (Fixture    *f,
                 const char *name)
{
  GObject *object = gtk_widget_get_template_child (f->inspector, KM_TYPE_JOINT_INSPECTOR, name);

  g_assert_true (GTK_IS_LABEL (object));
  return GTK_WIDGET (object);
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

/* The Pose tab's spin button of a DOF. */
static GtkSpinButton *
pose_field (Fixture *f,
            guint    dof)
{
  GtkSpinButton *spin = find_spin (f->panel,
                                   km_joint_panel_get_adjustment (KM_JOINT_PANEL (f->panel), dof));

  g_assert_nonnull (spin);
  return spin;
}

static double
dof_value (Fixture *f,
           guint    dof)
{
  guint n = 0;
  const double *pose = km_document_get_pose (f->document, &n);

  g_assert_cmpuint (dof, <, n);
  return pose[dof];
}

/* The text of a shown error label (style class "error") at or below @widget, or NULL. */
static const char *
shown_error (GtkWidget *widget)
{
  if (!gtk_widget_get_visible (widget))
    return NULL;
  if (GTK_IS_LABEL (widget) && gtk_widget_has_css_class (widget, "error")
      && *gtk_label_get_text (GTK_LABEL (widget)) != '\0')
    return gtk_label_get_text (GTK_LABEL (widget));
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      const char *found = shown_error (child);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The user types @text and presses Return (what matters here is the text the spin
 * button reads, not how it came in). */
static void
type_and_enter (GtkSpinButton *spin,
                const char    *text)
{
  gtk_editable_set_text (GTK_EDITABLE (spin), text);
  gtk_spin_button_update (spin);
  test_app_spin ();
}

/* "abc" (or nothing) in a joint value: refused with the reason, the pose as it was. */
static void
test_junk_in_pose (Fixture       *f,
                   gconstpointer  data)
{
  GtkSpinButton *spin = pose_field (f, ELBOW);
  double before = dof_value (f, ELBOW);
  g_autofree char *shown = g_strdup (gtk_editable_get_text (GTK_EDITABLE (spin)));
  const char *texts[] = { "abc", "", "  ", "1.2.3", "nan", "12 kg" };

  g_assert_null (shown_error (f->panel));
  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      g_test_message ("typed “%s”", texts[i]);
      type_and_enter (spin, texts[i]);
      g_assert_cmpfloat (dof_value (f, ELBOW), ==, before);
      g_assert_false (km_document_can_undo (f->document));
      g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (spin)), ==, shown);
      g_assert_nonnull (shown_error (f->panel));
    }

  /* A number is taken, and the reason goes. */
  type_and_enter (spin, "30");
  g_assert_cmpfloat_with_epsilon (dof_value (f, ELBOW), 30.0 * G_PI / 180.0, 1e-9);
  g_assert_true (km_document_can_undo (f->document));
  g_assert_null (shown_error (f->panel));
}

/* The same in the inspector's offset and axis fields: the elbow stays where it is. */
static void
test_junk_in_inspector (Fixture       *f,
                        gconstpointer  data)
{
  const char *fields[] = { "offset_z", "axis_x", "rotation_y", "max_0" };
  const char *errors[] = { "offset_error", "axis_error", "rotation_error", "limit_error" };

  for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
    {
      GtkSpinButton *spin = inspector_field (f, fields[i]);
      GtkWidget *error = inspector_label (f, errors[i]);
      KmSkeleton *before = km_document_get_skeleton (f->document);
      g_autofree char *shown = g_strdup (gtk_editable_get_text (GTK_EDITABLE (spin)));

      g_test_message ("%s shows “%s”", fields[i], shown);
      type_and_enter (spin, "abc");
      g_assert_true (km_document_get_skeleton (f->document) == before);
      g_assert_false (km_document_can_undo (f->document));
      g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (spin)), ==, shown);
      g_assert_true (gtk_widget_get_visible (error));
      g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (error)), !=, "");

      type_and_enter (spin, "");
      g_assert_true (km_document_get_skeleton (f->document) == before);
      g_assert_false (km_document_can_undo (f->document));
      g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (spin)), ==, shown);
      g_assert_true (gtk_widget_get_visible (error));
    }
}

/* A number with a unit is read in that unit, into the field's. */
static void
test_units_in_inspector (Fixture       *f,
                         gconstpointer  data)
{
  GtkSpinButton *spin = inspector_field (f, "offset_z");
  guint elbow = (guint) km_document_get_selected_joint (f->document);

  type_and_enter (spin, "0.5m");
  g_assert_cmpfloat_with_epsilon (km_skeleton_get_joint (km_document_get_skeleton (f->document),
                                                         elbow)->offset.z, 0.5, 1e-12);
  type_and_enter (spin, "750 mm");
  g_assert_cmpfloat_with_epsilon (km_skeleton_get_joint (km_document_get_skeleton (f->document),
                                                         elbow)->offset.z, 0.75, 1e-12);
  g_assert_false (gtk_widget_get_visible (inspector_label (f, "offset_error")));

  spin = inspector_field (f, "max_0");
  type_and_enter (spin, "2 rad");
  g_assert_cmpfloat_with_epsilon (km_skeleton_get_joint (km_document_get_skeleton (f->document),
                                                         elbow)->limits[0].max, 2.0, 1e-9);
  type_and_enter (spin, "100°");
  g_assert_cmpfloat_with_epsilon (km_skeleton_get_joint (km_document_get_skeleton (f->document),
                                                         elbow)->limits[0].max,
                                  100.0 * G_PI / 180.0, 1e-9);
  /* A length is no angle. */
  type_and_enter (spin, "2 m");
  g_assert_cmpfloat_with_epsilon (km_skeleton_get_joint (km_document_get_skeleton (f->document),
                                                         elbow)->limits[0].max,
                                  100.0 * G_PI / 180.0, 1e-9);
  g_assert_true (gtk_widget_get_visible (inspector_label (f, "limit_error")));
}

/* Leaving a field as it shows the value (GtkSpinButton reads it back on focus-out) is no
 * edit, also where the text is the value rounded: 2.5 rad shows as 143.239°. */
static void
test_leaving_rounded_values (Fixture       *f,
                             gconstpointer  data)
{
  const char *fields[] = {
    "offset_x", "offset_y", "offset_z", "rotation_x", "rotation_y", "rotation_z",
    "axis_x", "axis_y", "axis_z", "min_0", "max_0",
  };
  KmSkeleton *skeleton = km_document_get_skeleton (f->document);
  guint elbow = (guint) km_document_get_selected_joint (f->document);
  g_autoptr(GError) error = NULL;
  KmSkeleton *edited;
  double before;

  /* Values no field shows exactly. */
  edited = km_skeleton_edit_set_offset (skeleton, elbow, km_vec3 (1.0 / 3.0, 0.0, 2.0), &error);
  g_assert_no_error (error);
  g_assert_true (km_document_edit_skeleton (f->document, edited, "test", NULL));
  km_skeleton_unref (edited);
  edited = km_skeleton_edit_set_axis (km_document_get_skeleton (f->document), elbow,
                                      km_vec3 (1.0, 1.0, 0.0), &error);
  g_assert_no_error (error);
  g_assert_true (km_document_edit_skeleton (f->document, edited, "test", NULL));
  km_skeleton_unref (edited);
  edited = km_skeleton_edit_set_rotation (km_document_get_skeleton (f->document), elbow,
                                          km_quat_from_euler_xyz (km_vec3 (0.1, 0.2, 0.3)),
                                          &error);
  g_assert_no_error (error);
  g_assert_true (km_document_edit_skeleton (f->document, edited, "test", NULL));
  km_skeleton_unref (edited);
  test_app_spin ();
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  km_document_set_modified (f->document, FALSE);

  skeleton = km_document_get_skeleton (f->document);
  for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
    {
      GtkSpinButton *spin = inspector_field (f, fields[i]);

      g_test_message ("%s shows “%s”", fields[i], gtk_editable_get_text (GTK_EDITABLE (spin)));
      gtk_spin_button_update (spin);
      test_app_spin ();
      g_assert_true (km_document_get_skeleton (f->document) == skeleton);
      g_assert_false (km_document_get_modified (f->document));
    }

  /* A joint value 0.4 rad shows as 22.9°. */
  km_document_set_dof_value (f->document, ELBOW, 0.4);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  test_app_spin ();
  km_document_set_modified (f->document, FALSE);
  before = dof_value (f, ELBOW);
  gtk_spin_button_update (pose_field (f, ELBOW));
  test_app_spin ();
  g_assert_cmpfloat (dof_value (f, ELBOW), ==, before);
  g_assert_false (km_document_get_modified (f->document));
}

/* Tab through a joint value, with real keys: nothing changes, no undo step, no "*". */
static void
test_tab_through_pose (Fixture       *f,
                       gconstpointer  data)
{
  GtkSpinButton *spin = pose_field (f, SHOULDER_X);
  double before = dof_value (f, SHOULDER_X);

  if (!test_app_real_input_or_skip (GTK_WIDGET (f->window)))
    return;
  test_app_real_keys (GTK_WIDGET (f->window), GTK_WIDGET (spin),
                      "key", "--delay", "60", "Tab", NULL);
  g_assert_false (gtk_widget_has_focus (GTK_WIDGET (spin)));
  g_assert_cmpfloat (dof_value (f, SHOULDER_X), ==, before);
  g_assert_false (km_document_can_undo (f->document));
  g_assert_false (km_document_get_modified (f->document));
}

/* Ctrl+Z in a field undoes the document's last edit (not the field's text), and leaving
 * the field afterwards changes nothing; Ctrl+Shift+Z redoes. */
static void
test_undo_keys_in_field (Fixture       *f,
                         gconstpointer  data)
{
  GtkSpinButton *spin = pose_field (f, SHOULDER_X);
  double shoulder = dof_value (f, SHOULDER_X);
  double elbow = dof_value (f, ELBOW);
  g_autofree char *shown = g_strdup (gtk_editable_get_text (GTK_EDITABLE (spin)));

  if (!test_app_real_input_or_skip (GTK_WIDGET (f->window)))
    return;
  /* Nothing to undo yet: the field keeps its text (GtkText's own undo would empty it), and
   * leaving it commits nothing. */
  test_app_real_keys (GTK_WIDGET (f->window), GTK_WIDGET (spin),
                      "key", "--delay", "60", "ctrl+z", NULL);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (spin)), ==, shown);
  test_app_real_keys (GTK_WIDGET (f->window), NULL, "key", "--delay", "60", "Tab", NULL);
  g_assert_cmpfloat (dof_value (f, SHOULDER_X), ==, shoulder);
  g_assert_false (km_document_can_undo (f->document));

  km_document_set_dof_value (f->document, ELBOW, elbow - 0.25);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_true (km_document_can_undo (f->document));

  test_app_real_keys (GTK_WIDGET (f->window), GTK_WIDGET (spin),
                      "key", "--delay", "60", "ctrl+z", NULL);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_cmpfloat (dof_value (f, ELBOW), ==, elbow);
  g_assert_false (km_document_can_undo (f->document));
  g_assert_true (km_document_can_redo (f->document));
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (spin)), ==, shown);

  test_app_real_keys (GTK_WIDGET (f->window), NULL,
                      "key", "--delay", "60", "ctrl+shift+z", NULL);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_cmpfloat_with_epsilon (dof_value (f, ELBOW), elbow - 0.25, 1e-12);
  g_assert_false (km_document_can_redo (f->document));

  test_app_real_keys (GTK_WIDGET (f->window), NULL,
                      "key", "--delay", "60", "ctrl+z", "Tab", NULL);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_cmpfloat (dof_value (f, SHOULDER_X), ==, shoulder);
  g_assert_cmpfloat (dof_value (f, ELBOW), ==, elbow);
  g_assert_false (km_document_can_undo (f->document));
  g_assert_false (km_document_get_modified (f->document));
}

/* Typing junk with real keys: the field refuses it, also when left with Tab. */
static void
test_junk_typed (Fixture       *f,
                 gconstpointer  data)
{
  GtkSpinButton *spin = pose_field (f, ELBOW);
  double before = dof_value (f, ELBOW);
  g_autofree char *shown = g_strdup (gtk_editable_get_text (GTK_EDITABLE (spin)));

  if (!test_app_real_input_or_skip (GTK_WIDGET (f->window)))
    return;
  test_app_real_keys (GTK_WIDGET (f->window), GTK_WIDGET (spin),
                      "key", "--delay", "60", "ctrl+a", "a", "b", "c", "Return", NULL);
  g_assert_cmpfloat (dof_value (f, ELBOW), ==, before);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (spin)), ==, shown);
  g_assert_nonnull (shown_error (f->panel));
  test_app_real_keys (GTK_WIDGET (f->window), NULL,
                      "key", "--delay", "60", "ctrl+a", "BackSpace", "Tab", NULL);
  g_assert_cmpfloat (dof_value (f, ELBOW), ==, before);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (spin)), ==, shown);
  g_assert_false (km_document_can_undo (f->document));
  g_assert_false (km_document_get_modified (f->document));
}

/* The text a field shows for the document's value of an (angular) DOF, in degrees. */
static char *
shown_text (Fixture *f,
            guint    dof)
{
  GtkSpinButton *spin = pose_field (f, dof);

  g_assert_cmpstr (km_joint_panel_get_unit (KM_JOINT_PANEL (f->panel), dof), ==, "°");
  return g_strdup_printf ("%.*f", (int) gtk_spin_button_get_digits (spin),
                          dof_value (f, dof) * 180.0 / G_PI);
}

/* Playback (or a scrub, a keyframe jump) changes the current frame, and the panel shows
 * the pose there. */
static void
go_to_frame (Fixture *f,
             guint    frame)
{
  km_document_set_current_frame (f->document, frame);
  test_app_spin ();
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  test_app_spin ();
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, frame);
}

/* Text typed into a joint value, not yet entered, outlives a change of the current frame:
 * the field keeps it (marked pending) while the fields not being edited show the new
 * frame's pose; Return applies it at the frame then current, Escape brings back the
 * document's value, and leaving the field commits it as Return does. */
static void
test_typed_survives_frame_change (Fixture       *f,
                                  gconstpointer  data)
{
  GtkSpinButton *spin = pose_field (f, ELBOW);
  GtkSpinButton *shoulder = pose_field (f, SHOULDER_X);
  g_autofree char *shoulder_before = NULL;
  double elbow_before;

  if (!test_app_real_input_or_skip (GTK_WIDGET (f->window)))
    return;
  go_to_frame (f, 0);
  elbow_before = dof_value (f, ELBOW);
  shoulder_before = g_strdup (gtk_editable_get_text (GTK_EDITABLE (shoulder)));

  test_app_real_keys (GTK_WIDGET (f->window), GTK_WIDGET (spin),
                      "key", "--delay", "60", "ctrl+a", "4", "5", NULL);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (spin)), ==, "45");
  go_to_frame (f, 40);
  /* The motion moves the elbow between these frames: the panel did refresh. */
  g_assert_cmpfloat (dof_value (f, ELBOW), !=, elbow_before);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (shoulder)), !=, shoulder_before);
  {
    g_autofree char *shoulder_now = NULL;

    shoulder_now = g_strdup_printf ("%.*f", (int) gtk_spin_button_get_digits (shoulder),
                                    dof_value (f, SHOULDER_X) * 180.0 / G_PI);
    g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (shoulder)), ==, shoulder_now);
  }
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (spin)), ==, "45");
  g_assert_true (gtk_widget_has_css_class (GTK_WIDGET (spin), "pending"));

  test_app_real_keys (GTK_WIDGET (f->window), NULL, "key", "--delay", "60", "Return", NULL);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 40);
  g_assert_cmpfloat_with_epsilon (dof_value (f, ELBOW), 45.0 * G_PI / 180.0, 1e-9);
  g_assert_false (gtk_widget_has_css_class (GTK_WIDGET (spin), "pending"));
  g_assert_null (shown_error (f->panel));

  /* Escape: the typed text goes, the field shows the document's value (the new frame's). */
  test_app_real_keys (GTK_WIDGET (f->window), GTK_WIDGET (spin),
                      "key", "--delay", "60", "ctrl+a", "1", "2", NULL);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (spin)), ==, "12");
  go_to_frame (f, 0);
  g_assert_cmpfloat (dof_value (f, ELBOW), ==, elbow_before);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (spin)), ==, "12");
  test_app_real_keys (GTK_WIDGET (f->window), NULL, "key", "--delay", "60", "Escape", NULL);
  {
    g_autofree char *expected = shown_text (f, ELBOW);

    g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (spin)), ==, expected);
  }
  g_assert_false (gtk_widget_has_css_class (GTK_WIDGET (spin), "pending"));
  g_assert_cmpfloat (dof_value (f, ELBOW), ==, elbow_before);
  g_assert_true (gtk_widget_has_focus (gtk_widget_get_focus_child (GTK_WIDGET (spin)))
                 || gtk_widget_has_focus (GTK_WIDGET (spin)));
  /* Leaving the field now is no edit. */
  test_app_real_keys (GTK_WIDGET (f->window), NULL, "key", "--delay", "60", "Tab", NULL);
  g_assert_cmpfloat (dof_value (f, ELBOW), ==, elbow_before);

  /* Leaving the field with typed text commits it, at the frame then current. */
  test_app_real_keys (GTK_WIDGET (f->window), GTK_WIDGET (spin),
                      "key", "--delay", "60", "ctrl+a", "2", "0", NULL);
  go_to_frame (f, 40);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (spin)), ==, "20");
  test_app_real_keys (GTK_WIDGET (f->window), NULL, "key", "--delay", "60", "Tab", NULL);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_cmpuint (km_document_get_current_frame (f->document), ==, 40);
  g_assert_cmpfloat_with_epsilon (dof_value (f, ELBOW), 20.0 * G_PI / 180.0, 1e-9);
  g_assert_false (gtk_widget_has_css_class (GTK_WIDGET (spin), "pending"));
}

/* Escape after a refused text (typed and entered: the field shows the value again, the
 * reason under it) dismisses the reason, which is about a text no longer shown: in the
 * Pose tab and in the inspector. Nothing changes. */
static void
test_escape_after_refusal (Fixture       *f,
                           gconstpointer  data)
{
  GtkSpinButton *spins[] = { pose_field (f, ELBOW), inspector_field (f, "offset_z") };
  GtkWidget *errors[] = { f->panel, inspector_label (f, "offset_error") };

  if (!test_app_real_input_or_skip (GTK_WIDGET (f->window)))
    return;
  for (guint i = 0; i < G_N_ELEMENTS (spins); i++)
    {
      GtkSpinButton *spin = spins[i];
      GtkWidget *page = i == 0 ? f->panel : f->inspector;
      GtkNotebook *notebook = GTK_NOTEBOOK (gtk_widget_get_ancestor (page, GTK_TYPE_NOTEBOOK));
      g_autofree char *shown = NULL;
      KmSkeleton *skeleton = km_document_get_skeleton (f->document);
      double before = dof_value (f, ELBOW);

      /* (Its tab shows, for the field to take keys.) */
      while (gtk_widget_get_parent (page) != NULL
             && gtk_notebook_page_num (notebook, page) < 0)
        page = gtk_widget_get_parent (page);
      gtk_notebook_set_current_page (notebook, gtk_notebook_page_num (notebook, page));
      test_app_spin_for (100);
      shown = g_strdup (gtk_editable_get_text (GTK_EDITABLE (spin)));
      g_test_message ("field %u shows “%s”", i, shown);
      test_app_real_keys (GTK_WIDGET (f->window), GTK_WIDGET (spin), "key", "--delay", "60",
                          "ctrl+a", "a", "b", "c", "Return", NULL);
      g_test_message ("after Return: “%s”, reason “%s”",
                      gtk_editable_get_text (GTK_EDITABLE (spin)),
                      shown_error (errors[i]) ? shown_error (errors[i]) : "");
      g_assert_nonnull (shown_error (errors[i]));
      test_app_real_keys (GTK_WIDGET (f->window), NULL, "key", "--delay", "60", "Escape", NULL);
      g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (spin)), ==, shown);
      g_assert_null (shown_error (errors[i]));
      g_assert_true (km_document_get_skeleton (f->document) == skeleton);
      g_assert_cmpfloat (dof_value (f, ELBOW), ==, before);
      g_assert_false (km_document_can_undo (f->document));
    }
}

/* The wheel over a field being edited spins from the typed number, as Up does (GtkSpinButton
 * commits typed text before the arrow keys, not before the wheel): the text never stays
 * pending while the value moves under it. */
static void
test_wheel_over_typed (Fixture       *f,
                       gconstpointer  data)
{
  GtkSpinButton *spin = pose_field (f, ELBOW);
  g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *expected = NULL;

  if (!test_app_real_input_or_skip (GTK_WIDGET (f->window)))
    return;
  test_app_real_keys (GTK_WIDGET (f->window), GTK_WIDGET (spin),
                      "key", "--delay", "60", "ctrl+a", "6", "0", NULL);
  g_assert_true (gtk_widget_has_css_class (GTK_WIDGET (spin), "pending"));
  test_app_add_pointer_move (args, GTK_WIDGET (spin));
  g_ptr_array_add (args, g_strdup ("click"));
  g_ptr_array_add (args, g_strdup ("4"));     /* wheel up */
  test_app_xdotool (GTK_WIDGET (f->window), args);
  test_app_spin_for (100);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_cmpfloat_with_epsilon (dof_value (f, ELBOW),
                                  (60.0 + gtk_adjustment_get_step_increment (
                                     gtk_spin_button_get_adjustment (spin))) * G_PI / 180.0,
                                  1e-9);
  expected = shown_text (f, ELBOW);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (spin)), ==, expected);
  g_assert_false (gtk_widget_has_css_class (GTK_WIDGET (spin), "pending"));
}

/* A number outside a joint's limits is clamped to them, and the field says so where it
 * gives its refusals' reasons, in its own units. */
static void
test_out_of_range_says_so (Fixture       *f,
                           gconstpointer  data)
{
  GtkSpinButton *spin = pose_field (f, ELBOW);
  GtkAdjustment *adjustment = gtk_spin_button_get_adjustment (spin);
  int digits = (int) gtk_spin_button_get_digits (spin);
  g_autofree char *upper_text = g_strdup_printf ("%.*f", digits,
                                                 gtk_adjustment_get_upper (adjustment));
  g_autofree char *upper = g_strdup_printf ("%s°", upper_text);
  g_autofree char *lower = g_strdup_printf ("%.*f°", digits,
                                            gtk_adjustment_get_lower (adjustment));
  g_autofree char *typed = g_strdup_printf ("%.*f°", digits, 500.0);
  double lo, hi;
  const char *message;

  g_assert_true (km_document_get_dof_range (f->document, ELBOW, &lo, &hi));
  g_assert_null (shown_error (f->panel));
  type_and_enter (spin, "500");
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  test_app_spin ();
  g_assert_cmpfloat_with_epsilon (dof_value (f, ELBOW), hi, 1e-9);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (spin)), ==, upper_text);
  message = shown_error (f->panel);
  g_assert_nonnull (message);
  g_test_message ("%s", message);
  g_assert_nonnull (strstr (message, "Elbow"));
  g_assert_nonnull (strstr (message, typed));
  g_assert_nonnull (strstr (message, lower));
  g_assert_nonnull (strstr (message, upper));

  /* Typing again takes the message away; a number within the limits gives none. */
  type_and_enter (spin, "-20");
  g_assert_cmpfloat_with_epsilon (dof_value (f, ELBOW), lo, 1e-9);
  g_assert_nonnull (shown_error (f->panel));
  type_and_enter (spin, "30");
  g_assert_cmpfloat_with_epsilon (dof_value (f, ELBOW), 30.0 * G_PI / 180.0, 1e-9);
  g_assert_null (shown_error (f->panel));

  /* The inspector's fields say it the same way under theirs (rotations go to ±360°). */
  type_and_enter (inspector_field (f, "rotation_x"), "500");
  g_assert_true (gtk_widget_get_visible (inspector_label (f, "rotation_error")));
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (inspector_label (f, "rotation_error"))),
                            "500"));
}

/* An unlimited DOF (the example's Shoulder Y) shows its true value, however many turns it
 * is from 0, with room to spin either way, and takes any finite number typed. */
static void
test_unlimited_pose (Fixture       *f,
                     gconstpointer  data)
{
  guint shoulder_y = SHOULDER_X + 1;
  GtkSpinButton *spin = pose_field (f, shoulder_y);
  GtkAdjustment *adjustment = gtk_spin_button_get_adjustment (spin);
  double lower, upper;

  g_assert_true (km_document_get_dof_range (f->document, shoulder_y, &lower, &upper));
  g_assert_true (isinf (lower) && isinf (upper));

  km_document_set_dof_value (f->document, shoulder_y, -18.7248);
  test_app_spin ();
  g_assert_cmpfloat (dof_value (f, shoulder_y), ==, -18.7248);
  g_assert_cmpfloat_with_epsilon (g_strtod (gtk_editable_get_text (GTK_EDITABLE (spin)), NULL),
                                  -18.7248 * 180.0 / G_PI, 0.05);
  g_assert_cmpfloat (gtk_adjustment_get_lower (adjustment), <,
                     gtk_adjustment_get_value (adjustment));
  g_assert_cmpfloat (gtk_adjustment_get_value (adjustment), <,
                     gtk_adjustment_get_upper (adjustment));
  /* Leaving the field as it shows the value is still no edit. */
  km_document_close_edit (f->document);
  gtk_spin_button_update (spin);
  test_app_spin ();
  g_assert_cmpfloat (dof_value (f, shoulder_y), ==, -18.7248);

  type_and_enter (spin, "7 rad");
  g_assert_cmpfloat_with_epsilon (dof_value (f, shoulder_y), 7.0, 1e-9);
  g_assert_null (shown_error (f->panel));
  type_and_enter (spin, "-1000");
  g_assert_cmpfloat_with_epsilon (dof_value (f, shoulder_y), -1000.0 * G_PI / 180.0, 1e-9);
  g_assert_null (shown_error (f->panel));
  g_assert_cmpfloat_with_epsilon (g_strtod (gtk_editable_get_text (GTK_EDITABLE (spin)), NULL),
                                  -1000.0, 1e-9);

  /* A limited one is still held to its limits. */
  type_and_enter (pose_field (f, ELBOW), "500");
  g_assert_cmpfloat_with_epsilon (dof_value (f, ELBOW), 2.5, 1e-9);
  g_assert_nonnull (shown_error (f->panel));
}

static GtkWidget *
find_slider (GtkWidget     *widget,
             GtkAdjustment *adjustment)
{
  if (GTK_IS_SCALE (widget) && gtk_range_get_adjustment (GTK_RANGE (widget)) == adjustment)
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_slider (child, adjustment);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* A real pointer drag of a Pose-tab slider, pausing between its moves longer than edits
 * in quick succession merge: one undo step, which brings back the value from before. */
static void
test_slider_drag_one_step (Fixture       *f,
                           gconstpointer  data)
{
  GtkWidget *slider = find_slider (f->panel,
                                   km_joint_panel_get_adjustment (KM_JOINT_PANEL (f->panel),
                                                                  ELBOW));
  g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  double before = dof_value (f, ELBOW);
  int width, height;

  g_assert_nonnull (slider);
  if (!test_app_real_input_or_skip (GTK_WIDGET (f->window)))
    return;
  width = gtk_widget_get_width (slider);
  height = gtk_widget_get_height (slider);
  g_assert_cmpint (width, >, 50);
  test_app_add_pointer_move_to (args, slider, width * 0.3, height / 2.0);
  g_ptr_array_add (args, g_strdup ("sleep"));
  g_ptr_array_add (args, g_strdup ("0.2"));
  g_ptr_array_add (args, g_strdup ("mousedown"));
  g_ptr_array_add (args, g_strdup ("1"));
  for (guint i = 1; i <= 5; i++)
    {
      g_ptr_array_add (args, g_strdup ("sleep"));
      g_ptr_array_add (args, g_strdup ("0.7"));
      test_app_add_pointer_move_to (args, slider, width * (0.3 + 0.1 * i), height / 2.0);
    }
  g_ptr_array_add (args, g_strdup ("sleep"));
  g_ptr_array_add (args, g_strdup ("0.2"));
  g_ptr_array_add (args, g_strdup ("mouseup"));
  g_ptr_array_add (args, g_strdup ("1"));
  test_app_xdotool (GTK_WIDGET (f->window), args);
  test_app_spin_for (700);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));

  g_assert_cmpfloat (fabs (dof_value (f, ELBOW) - before), >, 0.3);
  g_assert_true (km_document_can_undo (f->document));
  g_assert_true (km_document_undo (f->document));
  test_app_spin ();
  g_assert_cmpfloat (dof_value (f, ELBOW), ==, before);
  g_assert_false (km_document_can_undo (f->document));
}

/* Presses (@down) or releases the first pointer button, after moving the pointer over
 * @slider's left third when pressing. */
static void
slider_button (Fixture   *f,
               GtkWidget *slider,
               gboolean   down)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);

  if (down)
    {
      test_app_add_pointer_move_to (args, slider, gtk_widget_get_width (slider) * 0.3,
                                    gtk_widget_get_height (slider) / 2.0);
      g_ptr_array_add (args, g_strdup ("sleep"));
      g_ptr_array_add (args, g_strdup ("0.2"));
    }
  g_ptr_array_add (args, g_strdup (down ? "mousedown" : "mouseup"));
  g_ptr_array_add (args, g_strdup ("1"));
  test_app_xdotool (GTK_WIDGET (f->window), args);
  test_app_spin_for (300);
}

static GtkWidget *
elbow_slider (Fixture *f)
{
  GtkWidget *slider = find_slider (f->panel,
                                   km_joint_panel_get_adjustment (KM_JOINT_PANEL (f->panel),
                                                                  ELBOW));

  g_assert_nonnull (slider);
  return slider;
}

/* A slider drag whose rows go before the release (the body changed under the pointer: a
 * new skeleton made current, an undo from the keyboard) is over: the release never reaches
 * the panel, which used to stay in the drag and so refused to hold the edit of every later
 * slider drag (each pause then ended a step). */
static void
test_slider_drag_row_gone (Fixture       *f,
                           gconstpointer  data)
{
  if (!test_app_real_input_or_skip (GTK_WIDGET (f->window)))
    return;
  slider_button (f, elbow_slider (f), TRUE);
  g_assert_true (km_document_edit_held_by (f->document, f->panel));

  g_assert_nonnull (km_document_new_skeleton (f->document, "Root"));
  test_app_spin_for (300);
  slider_button (f, NULL, FALSE);
  g_assert_false (km_document_edit_held_by (f->document, f->panel));

  /* The example's rows back, a new press on a slider holds its edit again. */
  g_assert_true (km_document_undo (f->document));
  test_app_spin_for (300);
  slider_button (f, elbow_slider (f), TRUE);
  g_assert_true (km_document_edit_held_by (f->document, f->panel));
  slider_button (f, NULL, FALSE);
  g_assert_false (km_document_edit_held_by (f->document, f->panel));
}

/* A held edit (a drag's) belongs to its holder: another holder's release leaves it, no
 * pause ends it, and its own release does; then one undo takes the whole edit back. (A 3-D
 * drag's late answers once ended a slider drag's step, the one held flag shared.) */
static void
test_held_edit_owner (void)
{
  g_autoptr(KmDocument) document = km_document_new ();
  g_autoptr(GError) error = NULL;
  g_autofree double *before = NULL;
  const double *pose;
  int view, panel;
  guint n_dof;

  g_assert_true (km_document_load_defaults (document, &error));
  g_assert_no_error (error);
  g_assert_true (test_app_wait_idle_solve (document, 20000));
  pose = km_document_get_pose (document, &n_dof);
  before = g_memdup2 (pose, n_dof * sizeof (double));

  km_document_close_edit (document);
  km_document_hold_edit (document, &panel);
  km_document_set_dof_value (document, 0, before[0] + 0.1);
  km_document_release_edit (document, &view);
  g_assert_true (km_document_edit_held_by (document, &panel));
  g_assert_false (km_document_edit_held_by (document, &view));
  /* Past the document's pause. */
  test_app_spin_for (800);
  km_document_set_dof_value (document, 0, before[0] + 0.2);
  km_document_release_edit (document, &panel);
  g_assert_false (km_document_edit_held_by (document, &panel));

  g_assert_true (km_document_undo (document));
  pose = km_document_get_pose (document, NULL);
  g_assert_cmpfloat (pose[0], ==, before[0]);
}

int
main (int   argc,
      char *argv[])
{
  test_app_init (&argc, &argv);

#define ADD(path, func) \
  g_test_add ("/kinema/NumberFields/" path, Fixture, NULL, fixture_setup, func, fixture_teardown)
  ADD ("junk/pose", test_junk_in_pose);
  ADD ("junk/inspector", test_junk_in_inspector);
  ADD ("junk/typed", test_junk_typed);
  ADD ("junk/escape", test_escape_after_refusal);
  ADD ("units/inspector", test_units_in_inspector);
  ADD ("no-edit/rounded-values", test_leaving_rounded_values);
  ADD ("no-edit/tab-through", test_tab_through_pose);
  ADD ("undo-keys", test_undo_keys_in_field);
  ADD ("pending/frame-change", test_typed_survives_frame_change);
  ADD ("pending/wheel", test_wheel_over_typed);
  ADD ("out-of-range", test_out_of_range_says_so);
  ADD ("unlimited/pose", test_unlimited_pose);
  ADD ("slider-drag/one-step", test_slider_drag_one_step);
  ADD ("slider-drag/row-gone", test_slider_drag_row_gone);
#undef ADD
  g_test_add_func ("/kinema/NumberFields/held-edit-owner", test_held_edit_owner);

  return g_test_run ();
}
