/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <math.h>
#include <glib/gstdio.h>
#include <gtk/gtk.h>

#include "km-body-item.h"
#include "km-document-skeleton.h"
#include "km-document.h"
#include "km-joint-inspector.h"
#include "km-skeleton-edit.h"
#include "km-skeleton-json.h"
#include "km-skeleton-outline.h"
#include "km-urdf.h"

#include "test-app-util.h"

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
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  km_document_cancel_solve (f->document);
  gtk_window_destroy (GTK_WINDOW (f->window));
  test_app_spin ();
  g_assert_finalize_object (f->document);
}

static KmSkeleton *
skeleton (Fixture *f)
{
  return km_document_get_skeleton (f->document);
}

static int
find (Fixture    *f,
      const char *name)
{
  return km_skeleton_find_joint (skeleton (f), name);
}

static void
select_joint (Fixture    *f,
              const char *name)
{
  g_assert_cmpint (find (f, name), >=, 0);
  km_document_set_selected_joint (f->document, find (f, name));
  g_assert_cmpint (km_document_get_selected_joint (f->document), ==, find (f, name));
}

static const char *
parent_name (Fixture    *f,
             const char *name)
{
  const KmJoint *joint = km_skeleton_get_joint (skeleton (f), (guint) find (f, name));

  return joint->parent >= 0 ? km_skeleton_get_joint (skeleton (f), joint->parent)->name : NULL;
}

static gboolean
activate (Fixture    *f,
          const char *action)
{
  return gtk_widget_activate_action (f->inspector, action, NULL);
}

static void
test_rename_undo (Fixture       *f,
                  gconstpointer  data)
{
  GtkEditable *entry = child (f, "name_entry");

  select_joint (f, "Elbow");
  g_assert_cmpstr (gtk_editable_get_text (entry), ==, "Elbow");
  g_assert_false (km_document_can_undo (f->document));

  gtk_editable_set_text (entry, "Forearm");
  g_signal_emit_by_name (entry, "activate");
  g_assert_cmpint (find (f, "Elbow"), ==, -1);
  g_assert_cmpint (find (f, "Forearm"), ==, 2);
  g_assert_cmpstr (parent_name (f, "Piston"), ==, "Forearm");
  g_assert_cmpuint (km_skeleton_get_n_joints (skeleton (f)), ==, 5);
  /* The renamed joint stays selected and shown. */
  g_assert_cmpint (km_document_get_selected_joint (f->document), ==, 2);
  g_assert_cmpstr (gtk_editable_get_text (entry), ==, "Forearm");
  g_assert_true (km_document_get_skeleton_modified (f->document));

  g_assert_true (km_document_undo (f->document));
  g_assert_cmpint (find (f, "Elbow"), ==, 2);
  g_assert_cmpint (find (f, "Forearm"), ==, -1);
  g_assert_false (km_document_get_skeleton_modified (f->document));
  g_assert_false (km_document_can_undo (f->document));
  g_assert_true (km_document_redo (f->document));
  g_assert_cmpint (find (f, "Forearm"), ==, 2);
}

static void
test_duplicate_name_refused (Fixture       *f,
                             gconstpointer  data)
{
  GtkEditable *entry = child (f, "name_entry");
  GtkWidget *error_label = child (f, "name_error");
  KmSkeleton *before = skeleton (f);
  g_autoptr(GError) expected = NULL;

  g_assert_null (km_skeleton_edit_set_name (before, 2, "Piston", &expected));
  g_assert_error (expected, KM_SKELETON_EDIT_ERROR, KM_SKELETON_EDIT_ERROR_DUPLICATE_NAME);

  select_joint (f, "Elbow");
  g_assert_false (gtk_widget_get_visible (error_label));
  gtk_editable_set_text (entry, "Piston");
  g_signal_emit_by_name (entry, "activate");

  g_assert_true (skeleton (f) == before);
  g_assert_false (km_document_can_undo (f->document));
  g_assert_true (gtk_widget_get_visible (error_label));
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (error_label)), ==, expected->message);
  g_assert_cmpstr (gtk_editable_get_text (entry), ==, "Elbow");

  /* Another joint: the reason goes away with the field's old value. */
  select_joint (f, "Piston");
  g_assert_false (gtk_widget_get_visible (error_label));
}

static void
test_zero_axis_refused (Fixture       *f,
                        gconstpointer  data)
{
  GtkSpinButton *axis_x = child (f, "axis_x");
  GtkWidget *error_label = child (f, "axis_error");
  KmSkeleton *before = skeleton (f);
  g_autoptr(GError) expected = NULL;

  g_assert_null (km_skeleton_edit_set_axis (before, 2, (KmVec3) { 0, 0, 0 }, &expected));

  select_joint (f, "Elbow");
  g_assert_cmpfloat_with_epsilon (gtk_spin_button_get_value (axis_x), 1.0, 1e-9);
  gtk_spin_button_set_value (axis_x, 0.0);

  g_assert_true (skeleton (f) == before);
  g_assert_true (gtk_widget_get_visible (error_label));
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (error_label)), ==, expected->message);
  g_assert_cmpfloat_with_epsilon (gtk_spin_button_get_value (axis_x), 1.0, 1e-9);

  /* The Z preset then works, and a non-unit axis is normalised. */
  g_assert_true (gtk_widget_activate_action (f->inspector, "skeleton.axis-preset", "s", "z"));
  g_assert_cmpfloat_with_epsilon (km_skeleton_get_joint (skeleton (f), 2)->axis.z, 1.0, 1e-12);
  g_assert_false (gtk_widget_get_visible (error_label));
  gtk_spin_button_set_value (child (f, "axis_y"), 1.0);
  g_assert_cmpfloat_with_epsilon (km_skeleton_get_joint (skeleton (f), 2)->axis.y, M_SQRT1_2,
                                  1e-9);
  g_assert_cmpfloat_with_epsilon (km_skeleton_get_joint (skeleton (f), 2)->axis.z, M_SQRT1_2,
                                  1e-9);
}

static void
test_min_above_max_refused (Fixture       *f,
                            gconstpointer  data)
{
  GtkSpinButton *min = child (f, "min_0");
  GtkWidget *error_label = child (f, "limit_error");
  KmSkeleton *before = skeleton (f);
  g_autoptr(GError) expected = NULL;
  double rad = 200.0 * G_PI / 180.0;

  g_assert_null (km_skeleton_edit_set_limit (before, 2, 0, TRUE, rad, 2.5, &expected));

  select_joint (f, "Elbow");
  g_assert_cmpfloat_with_epsilon (gtk_spin_button_get_value (child (f, "max_0")),
                                  2.5 * 180.0 / G_PI, 1e-3);
  gtk_spin_button_set_value (min, 200.0);

  g_assert_true (skeleton (f) == before);
  g_assert_false (km_document_can_undo (f->document));
  g_assert_true (gtk_widget_get_visible (error_label));
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (error_label)), ==, expected->message);
  g_assert_cmpfloat_with_epsilon (gtk_spin_button_get_value (min), 0.0, 1e-9);

  /* Unlimited is accepted, one undo step. */
  gtk_check_button_set_active (child (f, "limited_0"), FALSE);
  g_assert_false (km_skeleton_get_joint (skeleton (f), 2)->limits[0].limited);
  g_assert_true (km_document_undo (f->document));
  g_assert_true (km_skeleton_get_joint (skeleton (f), 2)->limits[0].limited);
  g_assert_cmpfloat_with_epsilon (km_skeleton_get_joint (skeleton (f), 2)->limits[0].max, 2.5,
                                  1e-12);
}

static void
test_add_delete_undo (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(KmSkeleton) original = km_skeleton_ref (skeleton (f));
  g_autoptr(KmSkeleton) added = NULL;
  g_autoptr(KmSkeleton) deleted = NULL;

  select_joint (f, "Elbow");
  g_assert_true (activate (f, "skeleton.add-child"));
  g_assert_cmpuint (km_skeleton_get_n_joints (skeleton (f)), ==, 6);
  g_assert_cmpint (find (f, "joint1"), >=, 0);
  g_assert_cmpstr (parent_name (f, "joint1"), ==, "Elbow");
  g_assert_cmpint (km_document_get_selected_joint (f->document), ==, find (f, "joint1"));
  added = km_skeleton_ref (skeleton (f));

  select_joint (f, "Piston");
  g_assert_true (activate (f, "skeleton.delete-joint"));
  g_assert_cmpuint (km_skeleton_get_n_joints (skeleton (f)), ==, 5);
  g_assert_cmpint (find (f, "Piston"), ==, -1);
  g_assert_cmpstr (parent_name (f, "EndEffector"), ==, "Elbow");
  g_assert_cmpint (km_document_get_selected_joint (f->document), ==, find (f, "Elbow"));
  deleted = km_skeleton_ref (skeleton (f));

  g_assert_true (km_document_undo (f->document));
  g_assert_true (km_skeleton_equal (skeleton (f), added, 0.0));
  g_assert_cmpstr (parent_name (f, "EndEffector"), ==, "Piston");
  g_assert_true (km_document_undo (f->document));
  g_assert_true (km_skeleton_equal (skeleton (f), original, 0.0));
  g_assert_false (km_document_can_undo (f->document));
  g_assert_true (km_document_redo (f->document));
  g_assert_true (km_skeleton_equal (skeleton (f), added, 0.0));
  g_assert_true (km_document_redo (f->document));
  g_assert_true (km_skeleton_equal (skeleton (f), deleted, 0.0));
  g_assert_false (km_document_can_redo (f->document));

  /* The root cannot be deleted. */
  select_joint (f, "Root");
  g_assert_false (g_action_group_get_action_enabled (
                    km_joint_inspector_get_actions (KM_JOINT_INSPECTOR (f->inspector)),
                    "delete-joint"));
}

static void
test_mirror (Fixture       *f,
             gconstpointer  data)
{
  GtkEditable *entry = child (f, "name_entry");
  const KmJoint *left, *right;

  select_joint (f, "Shoulder");
  gtk_editable_set_text (entry, "Shoulder_L");
  g_signal_emit_by_name (entry, "activate");
  g_assert_cmpint (find (f, "Shoulder_L"), >=, 0);

  g_assert_true (activate (f, "skeleton.mirror"));
  g_assert_cmpuint (km_skeleton_get_n_joints (skeleton (f)), ==, 9);
  g_assert_cmpint (find (f, "Shoulder_R"), >=, 0);
  g_assert_cmpstr (parent_name (f, "Shoulder_R"), ==, "Root");
  g_assert_cmpint (km_document_get_selected_joint (f->document), ==, find (f, "Shoulder_R"));
  left = km_skeleton_get_joint (skeleton (f), (guint) find (f, "Shoulder_L"));
  right = km_skeleton_get_joint (skeleton (f), (guint) find (f, "Shoulder_R"));
  g_assert_cmpfloat_with_epsilon (right->offset.x, left->offset.x, 1e-12);
  g_assert_cmpfloat_with_epsilon (right->offset.y, -left->offset.y, 1e-12);
  g_assert_cmpfloat_with_epsilon (right->offset.z, left->offset.z, 1e-12);
  g_assert_cmpuint (right->subtree_end - (guint) find (f, "Shoulder_R"), ==, 4);

  g_assert_true (km_document_undo (f->document));
  g_assert_cmpuint (km_skeleton_get_n_joints (skeleton (f)), ==, 5);
  g_assert_cmpint (find (f, "Shoulder_R"), ==, -1);
}

static const double *
body_state (Fixture *f)
{
  guint n = 0;
  const double *q = km_body_item_get_joint_state (KM_BODY_ITEM (km_document_get_body_item (f->document)),
                                                  &n);

  g_assert_cmpuint (n, ==, km_skeleton_get_n_dof (skeleton (f)));
  return q;
}

static double
value_of (Fixture    *f,
          const char *joint)
{
  return body_state (f)[km_skeleton_get_joint (skeleton (f), (guint) find (f, joint))->dof_index];
}

static void
test_values_kept (Fixture       *f,
                  gconstpointer  data)
{
  int elbow = km_skeleton_get_joint (skeleton (f), (guint) find (f, "Elbow"))->dof_index;
  int piston = km_skeleton_get_joint (skeleton (f), (guint) find (f, "Piston"))->dof_index;
  GtkEditable *entry = child (f, "name_entry");

  km_document_set_dof_value (f->document, (guint) elbow, 1.25);
  km_document_set_dof_value (f->document, (guint) piston, 0.2);
  km_document_close_edit (f->document);
  g_assert_cmpfloat_with_epsilon (value_of (f, "Elbow"), 1.25, 1e-12);

  /* A joint inserted above the elbow shifts the DOF order; the values follow the joints. */
  select_joint (f, "Elbow");
  g_assert_true (activate (f, "skeleton.insert-parent"));
  g_assert_cmpstr (parent_name (f, "Elbow"), ==, "joint1");
  g_assert_cmpuint (km_skeleton_get_n_dof (skeleton (f)), ==, 6);
  g_assert_cmpfloat_with_epsilon (value_of (f, "Elbow"), 1.25, 1e-12);
  g_assert_cmpfloat_with_epsilon (value_of (f, "Piston"), 0.2, 1e-12);
  g_assert_cmpfloat_with_epsilon (value_of (f, "joint1"), 0.0, 1e-12);

  /* Renaming keeps the value of the renamed joint. */
  select_joint (f, "Piston");
  gtk_editable_set_text (entry, "Slider");
  g_signal_emit_by_name (entry, "activate");
  g_assert_cmpfloat_with_epsilon (value_of (f, "Slider"), 0.2, 1e-12);
  g_assert_cmpfloat_with_epsilon (value_of (f, "Elbow"), 1.25, 1e-12);

  g_assert_true (km_document_undo (f->document));
  g_assert_true (km_document_undo (f->document));
  g_assert_cmpfloat_with_epsilon (value_of (f, "Elbow"), 1.25, 1e-12);
  g_assert_cmpfloat_with_epsilon (value_of (f, "Piston"), 0.2, 1e-12);
}

static void
test_save_reload (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *dir = g_dir_make_tmp ("km-skeleton-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "skeleton.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) loaded = NULL;
  g_autofree char *contents = NULL;
  g_autoptr(GFile) target = NULL;
  gsize length;

  g_assert_nonnull (dir);
  select_joint (f, "Elbow");
  g_assert_true (activate (f, "skeleton.add-child"));
  g_assert_true (km_document_save_skeleton (f->document, file, &error));
  g_assert_no_error (error);
  g_assert_false (km_document_get_skeleton_modified (f->document));
  target = km_document_dup_skeleton_file (f->document);
  g_assert_nonnull (target);
  g_assert_true (g_file_equal (target, file));

  g_assert_true (g_file_get_contents (path, &contents, &length, &error));
  loaded = km_skeleton_json_load (path, contents, length, &error);
  g_assert_no_error (error);
  g_assert_true (km_skeleton_equal (loaded, skeleton (f), 1e-12));
  g_assert_cmpuint (km_skeleton_get_n_joints (loaded), ==, 6);

  /* Save As is one step: undo points the body back at its old file. */
  g_assert_true (km_document_undo (f->document));
  g_clear_object (&target);
  target = km_document_dup_skeleton_file (f->document);
  g_assert_true (target == NULL || !g_file_equal (target, file));
  g_assert_true (km_document_get_skeleton_modified (f->document));

  g_remove (path);
  g_rmdir (dir);
}

static void
test_export_urdf (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *dir = g_dir_make_tmp ("km-skeleton-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "arm.urdf", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) loaded = NULL;
  g_autofree char *contents = NULL;
  guint n_messages = g_list_model_get_n_items (km_document_get_messages (f->document));
  guint n_spherical = 0;
  gsize length;

  g_assert_true (km_document_export_skeleton (f->document, KM_SKELETON_EXPORT_URDF, file, &error));
  g_assert_no_error (error);
  g_assert_false (km_document_can_undo (f->document));
  g_assert_cmpuint (g_list_model_get_n_items (km_document_get_messages (f->document)), >,
                    n_messages);

  g_assert_true (g_file_get_contents (path, &contents, &length, &error));
  loaded = km_urdf_load (path, contents, length, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (loaded);
  /* URDF has no spherical joint: the writer splits one into three revolute joints (and
   * says so in the message view). */
  for (guint i = 0; i < km_skeleton_get_n_joints (skeleton (f)); i++)
    if (km_skeleton_get_joint (skeleton (f), i)->type == KM_JOINT_SPHERICAL)
      n_spherical++;
  g_assert_cmpuint (n_spherical, ==, 1);
  g_assert_cmpuint (km_skeleton_get_n_joints (loaded), ==,
                    km_skeleton_get_n_joints (skeleton (f)) + 2 * n_spherical);
  g_assert_cmpuint (km_skeleton_get_n_dof (loaded), ==, km_skeleton_get_n_dof (skeleton (f)));

  g_remove (path);
  g_rmdir (dir);
}

static void
test_outline (Fixture       *f,
              gconstpointer  data)
{
  GListModel *rows = km_skeleton_outline_get_rows (child (f, "outline"));

  g_assert_cmpuint (g_list_model_get_n_items (rows), ==, 5);
  gtk_single_selection_set_selected (GTK_SINGLE_SELECTION (rows), 3);
  g_assert_cmpint (km_document_get_selected_joint (f->document), ==, find (f, "Piston"));

  select_joint (f, "Elbow");
  g_assert_true (activate (f, "skeleton.add-child"));
  g_assert_cmpuint (g_list_model_get_n_items (rows), ==, 6);
  g_assert_cmpuint (gtk_single_selection_get_selected (GTK_SINGLE_SELECTION (rows)), ==, 5);
}

int
main (int    argc,
      char **argv)
{
  g_setenv ("GSK_RENDERER", "cairo", FALSE);
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  gtk_init ();

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, fixture_setup, func, fixture_teardown)
  ADD ("/kinema/JointInspector/rename-undo", test_rename_undo);
  ADD ("/kinema/JointInspector/duplicate-name-refused", test_duplicate_name_refused);
  ADD ("/kinema/JointInspector/zero-axis-refused", test_zero_axis_refused);
  ADD ("/kinema/JointInspector/min-above-max-refused", test_min_above_max_refused);
  ADD ("/kinema/JointInspector/add-delete-undo", test_add_delete_undo);
  ADD ("/kinema/JointInspector/mirror", test_mirror);
  ADD ("/kinema/JointInspector/values-kept", test_values_kept);
  ADD ("/kinema/JointInspector/save-reload", test_save_reload);
  ADD ("/kinema/JointInspector/export-urdf", test_export_urdf);
  ADD ("/kinema/SkeletonOutline/rows", test_outline);
#undef ADD
  return g_test_run ();
}
