/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <math.h>
#include <string.h>
#include <gtk/gtk.h>

#include "km-application.h"
#include "km-document.h"
#include "km-document-edit.h"
#include "km-effector-fields.h"
#include "km-joint-panel.h"
#include "km-window.h"

#include "test-app-util.h"

/*
 * The Pose tab's End Effector section, under Xvfb: its X, Y, Z and roll, pitch, yaw fields
 * show the forward kinematics of the pose shown; a value typed moves the end effector there
 * through the IK (as a 3-D drag of it does), one undo step that Ctrl+Z takes back, the pose
 * unkeyed; targets for the position only leave the orientation fields read-only.
 */

typedef struct
{
  KmApplication *app;
  KmWindow      *window;
  KmDocument    *document;
  GtkWidget     *fields;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  GtkWidget *expander;

  f->app = km_application_new ();
  g_application_set_flags (G_APPLICATION (f->app), G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (f->app), NULL, &error));
  g_assert_no_error (error);
  f->window = km_window_new (GTK_APPLICATION (f->app));
  gtk_window_set_default_size (GTK_WINDOW (f->window), 1000, 700);
  g_assert_true (km_window_open_example (f->window));
  gtk_window_present (GTK_WINDOW (f->window));
  f->document = g_object_ref (km_window_get_document (f->window));
  f->fields = test_app_find_widget (km_window_get_joint_panel (f->window),
                                    KM_TYPE_EFFECTOR_FIELDS);
  g_assert_nonnull (f->fields);
  /* The section starts closed; the user opens it. */
  expander = test_app_find_widget (f->fields, GTK_TYPE_EXPANDER);
  g_assert_nonnull (expander);
  g_assert_false (gtk_expander_get_expanded (GTK_EXPANDER (expander)));
  gtk_expander_set_expanded (GTK_EXPANDER (expander), TRUE);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  test_app_spin_for (100);
  g_assert_false (km_document_can_undo (f->document));
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
field (Fixture    *f,
       const char *name)
{
  GObject *object = gtk_widget_get_template_child (f->fields, KM_TYPE_EFFECTOR_FIELDS, name);

  g_assert_true (GTK_IS_SPIN_BUTTON (object));
  return GTK_SPIN_BUTTON (object);
}

/* The end effector's point in the pose shown, by forward kinematics of the document's pose
 * (the targets' tool point where they have one). */
static KmTransform
effector_fk (Fixture *f)
{
  KmSkeleton *skeleton = km_document_get_skeleton (f->document);
  KmTargetTrack *targets = km_document_get_targets (f->document);
  int effector = km_document_get_effector (f->document);
  g_autofree KmTransform *world = g_new (KmTransform, km_skeleton_get_n_joints (skeleton));
  KmTransform root, point;

  g_assert_cmpint (effector, >=, 0);
  km_document_get_root_pose (f->document, &root);
  km_skeleton_forward_kinematics (skeleton, km_document_get_pose (f->document, NULL), &root,
                                  world);
  point = world[effector];
  if (targets != NULL && km_target_track_has_effector_offset (targets))
    point.pos = km_transform_apply (&world[effector],
                                    km_target_track_get_effector_offset (targets));
  return point;
}

static gboolean
fields_idle (gpointer data)
{
  return !km_effector_fields_get_busy (KM_EFFECTOR_FIELDS (data));
}

static void
type_and_enter (GtkSpinButton *spin,
                const char    *text)
{
  gtk_editable_set_text (GTK_EDITABLE (spin), text);
  gtk_spin_button_update (spin);
  test_app_spin ();
}

/* The fields show the pose shown, in metres and degrees (the defaults). */
static void
assert_fields_show (Fixture           *f,
                    const KmTransform *point)
{
  KmVec3 rpy = {
    km_deg_to_rad (gtk_spin_button_get_value (field (f, "roll_field"))),
    km_deg_to_rad (gtk_spin_button_get_value (field (f, "pitch_field"))),
    km_deg_to_rad (gtk_spin_button_get_value (field (f, "yaw_field"))),
  };
  KmMat3 rot;

  g_assert_cmpfloat_with_epsilon (gtk_spin_button_get_value (field (f, "x_field")),
                                  point->pos.x, 1e-9);
  g_assert_cmpfloat_with_epsilon (gtk_spin_button_get_value (field (f, "y_field")),
                                  point->pos.y, 1e-9);
  g_assert_cmpfloat_with_epsilon (gtk_spin_button_get_value (field (f, "z_field")),
                                  point->pos.z, 1e-9);
  km_effector_fields_mat3_from_rpy (rpy, &rot);
  g_assert_cmpfloat (km_mat3_rotation_angle (&rot, &point->rot), <, 1e-9);
}

/* R = Rz(yaw) · Ry(pitch) · Rx(roll), and back. */
static void
test_rpy_convention (void)
{
  KmVec3 rpy = { 0.3, -0.4, 1.2 }, back;
  KmMat3 rx, ry, rz, ryx, expected, rot;

  km_mat3_from_axis_angle ((KmVec3) { 1, 0, 0 }, rpy.x, &rx);
  km_mat3_from_axis_angle ((KmVec3) { 0, 1, 0 }, rpy.y, &ry);
  km_mat3_from_axis_angle ((KmVec3) { 0, 0, 1 }, rpy.z, &rz);
  km_mat3_mul (&ry, &rx, &ryx);
  km_mat3_mul (&rz, &ryx, &expected);
  km_effector_fields_mat3_from_rpy (rpy, &rot);
  g_assert_cmpfloat (km_mat3_rotation_angle (&rot, &expected), <, 1e-12);
  back = km_effector_fields_rpy_from_mat3 (&rot);
  g_assert_cmpfloat_with_epsilon (back.x, rpy.x, 1e-12);
  g_assert_cmpfloat_with_epsilon (back.y, rpy.y, 1e-12);
  g_assert_cmpfloat_with_epsilon (back.z, rpy.z, 1e-12);
}

/* The fields show the FK of the pose shown, and follow it to another frame. */
static void
test_shows_fk (Fixture       *f,
               gconstpointer  data)
{
  KmTransform point = effector_fk (f);

  g_assert_true (gtk_widget_is_sensitive (GTK_WIDGET (field (f, "x_field"))));
  g_assert_true (gtk_editable_get_editable (GTK_EDITABLE (field (f, "roll_field"))));
  assert_fields_show (f, &point);

  km_document_set_current_frame (f->document, km_document_get_n_frames (f->document) / 2);
  test_app_spin ();
  point = effector_fk (f);
  assert_fields_show (f, &point);

  /* In the Pose tab's length unit. */
  g_object_set (km_window_get_joint_panel (f->window), "length-unit", "millimetres", NULL);
  test_app_spin ();
  g_assert_cmpfloat_with_epsilon (gtk_spin_button_get_value (field (f, "z_field")),
                                  point.pos.z * 1000.0, 1e-9);
  g_assert_cmpuint (gtk_spin_button_get_digits (field (f, "z_field")), ==, 1);
}

/* Open, the section is no wider than the Pose tab asks to be (its width-request): opening
 * it does not take width from the 3-D view. */
static void
test_fits_panel_width (Fixture       *f,
                       gconstpointer  data)
{
  GtkWidget *panel = km_window_get_joint_panel (f->window);
  int panel_request = 0, fields_minimum = 0;

  gtk_widget_get_size_request (panel, &panel_request, NULL);
  g_assert_cmpint (panel_request, >, 0);
  /* In millimetres, the widest unit's fields. */
  g_object_set (panel, "length-unit", "millimetres", NULL);
  test_app_spin ();
  gtk_widget_measure (f->fields, GTK_ORIENTATION_HORIZONTAL, -1, &fields_minimum, NULL, NULL,
                      NULL);
  g_test_message ("section at least %d px wide, the panel asks for %d px", fields_minimum,
                  panel_request);
  g_assert_cmpint (fields_minimum, <=, panel_request);
}

/* X = current + 0.05 m and Enter: the end effector goes there (its Y, Z and orientation
 * stay), one undo step, not keyed; Ctrl+Z brings the pose back. */
static void
test_typed_x_moves_effector (Fixture       *f,
                             gconstpointer  data)
{
  KmTransform before = effector_fk (f), after;
  guint n_dof = 0;
  const double *shown = km_document_get_pose (f->document, &n_dof);
  g_autofree double *pose = g_memdup2 (shown, sizeof (double) * MAX (n_dof, 1));
  GtkSpinButton *x = field (f, "x_field");
  char number[G_ASCII_DTOSTR_BUF_SIZE];
  g_autofree char *text = g_strdup_printf ("%s m", g_ascii_dtostr (number, sizeof number,
                                                                    before.pos.x + 0.05));

  g_assert_cmpuint (n_dof, >, 0);
  gtk_widget_grab_focus (GTK_WIDGET (x));
  type_and_enter (x, text);
  g_assert_true (test_app_wait_until (fields_idle, f->fields, 10000));
  test_app_spin ();

  after = effector_fk (f);
  g_test_message ("x %.6f → %.6f", before.pos.x, after.pos.x);
  g_assert_cmpfloat_with_epsilon (after.pos.x, before.pos.x + 0.05, 1e-4);
  g_assert_cmpfloat_with_epsilon (after.pos.y, before.pos.y, 1e-4);
  g_assert_cmpfloat_with_epsilon (after.pos.z, before.pos.z, 1e-4);
  /* The example arm has 5 DOF: it keeps its orientation only as far as its joints allow. */
  if (km_document_get_solves_orientation (f->document))
    g_assert_cmpfloat (km_mat3_rotation_angle (&after.rot, &before.rot), <, 1e-4);
  assert_fields_show (f, &after);
  g_assert_true (km_document_get_limits_held (f->document, 1e-9));
  g_assert_true (km_document_get_pose_unkeyed (f->document, NULL));
  g_assert_true (km_document_can_undo (f->document));

  if (test_app_real_input_or_skip (GTK_WIDGET (f->window)))
    test_app_real_keys (GTK_WIDGET (f->window), GTK_WIDGET (x),
                        "key", "--delay", "60", "ctrl+z", NULL);
  else
    g_assert_true (km_document_undo (f->document));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  test_app_spin ();

  /* One step: the pose before the typed value, and nothing more to undo. */
  g_assert_false (km_document_can_undo (f->document));
  for (guint i = 0; i < n_dof; i++)
    g_assert_cmpfloat (km_document_get_pose (f->document, NULL)[i], ==, pose[i]);
  assert_fields_show (f, &before);
}

/* Targets for a tool point, position only (the Scenebuilder planar arm): the fields show
 * that point, and the orientation fields do not take a value. */
static void
test_position_only (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "scenebuilder",
                                                 "arm2_mm_deg.xml", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  GtkSpinButton *roll;
  KmTransform point;
  guint n_dof = 0;
  g_autofree double *pose = NULL;
  g_autofree char *recent = NULL;
  g_autofree char *recent_folder = NULL;

  /* Opening a file adds it to the default recent manager, which keeps the file of the test
   * that first asked for it, whose isolated folder is gone by now: it gets its folder back
   * (else GTK warns that it cannot store the list). */
  g_object_get (gtk_recent_manager_get_default (), "filename", &recent, NULL);
  recent_folder = g_path_get_dirname (recent);
  g_assert_cmpint (g_mkdir_with_parents (recent_folder, 0700), ==, 0);
  g_assert_true (test_app_open_file (f->window, file));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  test_app_spin ();
  g_assert_true (km_target_track_get_position_only (km_document_get_targets (f->document)));
  point = effector_fk (f);
  assert_fields_show (f, &point);

  roll = field (f, "roll_field");
  g_assert_false (gtk_editable_get_editable (GTK_EDITABLE (roll)));
  /* Read-only all through: its +/− buttons too, and it says why. */
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (roll)); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_BUTTON (child))
      g_assert_false (gtk_widget_get_sensitive (child));
  g_assert_nonnull (gtk_widget_get_tooltip_text (GTK_WIDGET (roll)));
  km_document_get_pose (f->document, &n_dof);
  pose = g_memdup2 (km_document_get_pose (f->document, NULL), sizeof (double) * MAX (n_dof, 1));
  gtk_spin_button_set_value (roll, gtk_spin_button_get_value (roll) + 20.0);
  g_assert_true (test_app_wait_until (fields_idle, f->fields, 10000));
  test_app_spin ();
  for (guint i = 0; i < n_dof; i++)
    g_assert_cmpfloat (km_document_get_pose (f->document, NULL)[i], ==, pose[i]);
  assert_fields_show (f, &point);
}

/* At the default window size each field shows 7 characters and more ("-0.2870", "-442.00"),
 * each name in full (not "Pi…"). */
static void
test_fields_show_seven_chars (Fixture       *f,
                              gconstpointer  data)
{
  const char *names[] = { "x_field", "y_field", "z_field", "roll_field", "pitch_field",
                          "yaw_field" };
  GtkWidget *grid = GTK_WIDGET (gtk_widget_get_template_child (f->fields,
                                                               KM_TYPE_EFFECTOR_FIELDS, "grid"));

  gtk_window_set_default_size (GTK_WINDOW (f->window), 1280, 800);
  g_object_set (km_window_get_joint_panel (f->window), "length-unit", "millimetres", NULL);
  test_app_spin_for (300);

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      GtkWidget *spin = GTK_WIDGET (field (f, names[i]));
      GtkWidget *text = NULL;
      g_autoptr(PangoLayout) layout = NULL;
      int seven = 0;

      for (GtkWidget *child = gtk_widget_get_first_child (spin); child != NULL;
           child = gtk_widget_get_next_sibling (child))
        if (GTK_IS_TEXT (child))
          text = child;
      g_assert_nonnull (text);
      layout = gtk_widget_create_pango_layout (text, "-442.00");
      pango_layout_get_pixel_size (layout, &seven, NULL);
      g_test_message ("%s: text %d px, 7 characters %d px", names[i],
                      gtk_widget_get_width (text), seven);
      g_assert_cmpint (gtk_widget_get_width (text), >=, seven);
    }
  for (GtkWidget *child = gtk_widget_get_first_child (grid); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_LABEL (child) && gtk_widget_get_visible (child))
      {
        int natural = 0;

        gtk_widget_measure (child, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &natural, NULL,
                            NULL);
        g_test_message ("\"%s\": %d px of %d", gtk_label_get_text (GTK_LABEL (child)),
                        gtk_widget_get_width (child), natural);
        g_assert_cmpint (gtk_widget_get_width (child), >=, natural);
      }
}

static GtkWidget *
error_label (Fixture *f)
{
  GObject *object = gtk_widget_get_template_child (f->fields, KM_TYPE_EFFECTOR_FIELDS,
                                                   "error_label");

  g_assert_true (GTK_IS_WIDGET (object));
  return GTK_WIDGET (object);
}

/* X typed far out of reach: "Not reached …"; then it goes once the pose shown changes by
 * something else than that value: Ctrl+Z, another frame. */
static void
test_not_reached_clears (Fixture       *f,
                         gconstpointer  data)
{
  GtkSpinButton *x = field (f, "x_field");
  KmTransform before = effector_fk (f);
  char number[G_ASCII_DTOSTR_BUF_SIZE];
  g_autofree char *text = g_strdup_printf ("%s m", g_ascii_dtostr (number, sizeof number,
                                                                    before.pos.x + 100.0));

  gtk_widget_grab_focus (GTK_WIDGET (x));
  type_and_enter (x, text);
  g_assert_true (test_app_wait_until (fields_idle, f->fields, 10000));
  test_app_spin ();
  g_assert_true (gtk_widget_get_visible (error_label (f)));

  g_assert_true (km_document_undo (f->document));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  test_app_spin ();
  g_assert_false (gtk_widget_get_visible (error_label (f)));

  type_and_enter (x, text);
  g_assert_true (test_app_wait_until (fields_idle, f->fields, 10000));
  test_app_spin ();
  g_assert_true (gtk_widget_get_visible (error_label (f)));
  km_document_set_current_frame (f->document, km_document_get_n_frames (f->document) / 2);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  test_app_spin ();
  g_assert_false (gtk_widget_get_visible (error_label (f)));
}

/* Set Keyframe (Ctrl+K) with a value typed in X, not yet applied: the value goes in first,
 * as Return would, and the pose keyed is the one with the end effector there. */
static void
test_set_keyframe_commits_typed (Fixture       *f,
                                 gconstpointer  data)
{
  GtkSpinButton *x = field (f, "x_field");
  KmTransform before = effector_fk (f), after;
  char number[G_ASCII_DTOSTR_BUF_SIZE];
  g_autofree char *text = g_strdup_printf ("%s m", g_ascii_dtostr (number, sizeof number,
                                                                    before.pos.x + 0.05));

  gtk_widget_grab_focus (GTK_WIDGET (x));
  gtk_editable_set_text (GTK_EDITABLE (x), text);
  test_app_spin ();
  g_assert_true (gtk_widget_has_css_class (GTK_WIDGET (x), "pending"));

  if (test_app_real_input_or_skip (GTK_WIDGET (f->window)))
    test_app_real_keys (GTK_WIDGET (f->window), GTK_WIDGET (x),
                        "key", "--delay", "60", "ctrl+k", NULL);
  else
    g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.set-keyframe",
                                               NULL));
  g_assert_true (test_app_wait_until (fields_idle, f->fields, 10000));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  test_app_spin ();

  after = effector_fk (f);
  g_test_message ("x %.6f → %.6f", before.pos.x, after.pos.x);
  g_assert_cmpfloat_with_epsilon (after.pos.x, before.pos.x + 0.05, 1e-4);
  g_assert_false (gtk_widget_has_css_class (GTK_WIDGET (x), "pending"));
  g_assert_false (km_document_get_pose_unkeyed (f->document, NULL));
  g_assert_cmpint (km_target_track_find_keyframe (km_document_get_targets (f->document),
                                                  km_document_get_current_frame (f->document)),
                   >=, 0);
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

/* The same with a value typed in a Pose joint field: the joint value typed is keyed. */
static void
test_set_keyframe_commits_joint (Fixture       *f,
                                 gconstpointer  data)
{
  GtkWidget *panel = km_window_get_joint_panel (f->window);
  guint dof = km_skeleton_get_n_dof (km_document_get_skeleton (f->document)) - 1;
  GtkSpinButton *spin = find_spin (panel, km_joint_panel_get_adjustment (KM_JOINT_PANEL (panel),
                                                                         dof));
  GtkAdjustment *adjustment = gtk_spin_button_get_adjustment (spin);
  double before = gtk_spin_button_get_value (spin);
  double lower = gtk_adjustment_get_lower (adjustment);
  double upper = gtk_adjustment_get_upper (adjustment);
  double wanted = round ((lower + 0.25 * (upper - lower)) * 10.0) / 10.0;
  char number[G_ASCII_DTOSTR_BUF_SIZE];

  g_assert_nonnull (spin);
  g_assert_cmpfloat (fabs (wanted - before), >, 0.05);
  gtk_widget_grab_focus (GTK_WIDGET (spin));
  gtk_editable_set_text (GTK_EDITABLE (spin),
                         g_ascii_formatd (number, sizeof number, "%.1f", wanted));
  test_app_spin ();
  g_assert_true (gtk_widget_has_css_class (GTK_WIDGET (spin), "pending"));

  if (test_app_real_input_or_skip (GTK_WIDGET (f->window)))
    test_app_real_keys (GTK_WIDGET (f->window), GTK_WIDGET (spin),
                        "key", "--delay", "60", "ctrl+k", NULL);
  else
    g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.set-keyframe",
                                               NULL));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  test_app_spin ();

  g_test_message ("joint %u: %.3f → %.3f", dof, before, gtk_spin_button_get_value (spin));
  g_assert_cmpfloat_with_epsilon (gtk_spin_button_get_value (spin), wanted, 1e-6);
  g_assert_false (gtk_widget_has_css_class (GTK_WIDGET (spin), "pending"));
  g_assert_false (km_document_get_pose_unkeyed (f->document, NULL));
}

/* The distance a missed value stops away is shown with digits that show it; the IK's own
 * tolerance decides whether it was missed. */
static void
test_describe_miss (void)
{
  KmIkSolution solution = { 0 };
  g_autofree char *tiny = NULL, *small = NULL, *large = NULL, *turned = NULL;
  g_autofree char *converged = NULL, *within = NULL;

  solution.converged = FALSE;
  solution.pos_err = 2.4e-6;
  tiny = km_effector_fields_describe_miss (&solution, FALSE);
  g_assert_nonnull (tiny);
  g_test_message ("%s", tiny);
  g_assert_null (strstr (tiny, "0.000"));
  g_assert_nonnull (strstr (tiny, "0.0024 mm"));
  solution.pos_err = 0.0031;
  small = km_effector_fields_describe_miss (&solution, FALSE);
  g_assert_nonnull (strstr (small, "3.1 mm"));
  solution.pos_err = 0.25;
  large = km_effector_fields_describe_miss (&solution, FALSE);
  g_assert_nonnull (strstr (large, "0.250 m"));
  solution.pos_err = 1e-7;
  solution.rot_err = 3e-5;
  turned = km_effector_fields_describe_miss (&solution, TRUE);
  g_assert_null (strstr (turned, "0.0°"));
  g_assert_nonnull (strstr (turned, "0.0017°"));
  /* Within the tolerance, or the IK says it converged (its problem's own tolerance). */
  solution.rot_err = 0.0;
  within = km_effector_fields_describe_miss (&solution, TRUE);
  g_assert_null (within);
  solution.pos_err = 5e-6;
  solution.converged = TRUE;
  converged = km_effector_fields_describe_miss (&solution, TRUE);
  g_assert_null (converged);
}

int
main (int   argc,
      char *argv[])
{
  test_app_init (&argc, &argv);

  g_test_add_func ("/kinema/EffectorFields/rpy-convention", test_rpy_convention);
  g_test_add_func ("/kinema/EffectorFields/describe-miss", test_describe_miss);
#define ADD(path, func) \
  g_test_add ("/kinema/EffectorFields/" path, Fixture, NULL, fixture_setup, func, fixture_teardown)
  ADD ("shows-fk", test_shows_fk);
  ADD ("fits-panel-width", test_fits_panel_width);
  ADD ("typed-x", test_typed_x_moves_effector);
  ADD ("position-only", test_position_only);
  ADD ("not-reached-clears", test_not_reached_clears);
  ADD ("fields-show-seven-chars", test_fields_show_seven_chars);
  ADD ("set-keyframe-commits-typed", test_set_keyframe_commits_typed);
  ADD ("set-keyframe-commits-joint", test_set_keyframe_commits_joint);
#undef ADD

  return g_test_run ();
}
