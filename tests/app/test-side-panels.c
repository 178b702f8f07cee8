/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#ifdef GDK_WINDOWING_X11
#include <gdk/x11/gdkx.h>
#endif

#include "km-joint-inspector.h"
#include "km-joint-panel.h"
#include "km-skeleton-edit.h"
#include "km-skeleton-outline.h"
#include "km-window.h"
#include "km-document-skeleton.h"
#include "km-item-row.h"
#include "km-item-tree.h"

#include "test-app-util.h"
#include "km-test-tmp.h"

/*
 * The Pose and Skeleton tabs of the editor window at its default size, with real pointer
 * input under Xvfb (the independent GUI review): the mouse wheel scrolls them instead of
 * editing the value under the pointer, the inspector's fields fit the pane, and a row's
 * name and limits both stay readable: the name whole where it fits (LARM_SHOULDER_P and
 * LARM_SHOULDER_R told apart), the limits beside it or under it.
 */

typedef struct
{
  KmWindow   *window;
  KmDocument *document;
  GtkWidget  *panel;
  GtkWidget  *inspector;
} Fixture;

static gboolean
laid_out (gpointer data)
{
  Fixture *f = data;

  return gtk_widget_get_width (f->panel) > 0
         && km_joint_panel_get_n_rows (KM_JOINT_PANEL (f->panel)) > 0;
}

/* Choreonoid's SR1 (29 rows in the Pose tab), or the model @data names in tests/data/
 * choreonoid, in a window of the default size. */
static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "choreonoid",
                                                 data != NULL ? data : "SR1.body", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);

  f->window = km_window_new (NULL);
  gtk_window_set_default_size (GTK_WINDOW (f->window), 1280, 800);
  f->document = km_window_get_document (f->window);
  f->panel = km_window_get_joint_panel (f->window);
  f->inspector = test_app_find_widget (GTK_WIDGET (f->window), KM_TYPE_JOINT_INSPECTOR);
  g_assert_nonnull (f->inspector);
  g_assert_true (test_app_open_file (f->window, file));
  gtk_window_present (GTK_WINDOW (f->window));
  g_assert_true (test_app_wait_until (laid_out, f, 10000));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  /* The panes take their positions once the paneds have a size. */
  test_app_spin_for (300);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_object_add_weak_pointer (G_OBJECT (f->window), (gpointer *) &f->window);
  gtk_window_destroy (GTK_WINDOW (f->window));
  test_app_spin ();
  g_assert_null (f->window);
}

/* Every widget of @type at or below @widget, depth first. */
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

static GtkWidget *
nth_widget (GtkWidget *root,
            GType      type,
            guint      n)
{
  g_autoptr(GPtrArray) found = g_ptr_array_new ();

  collect (root, type, found);
  g_assert_cmpuint (found->len, >, n);
  return found->pdata[n];
}

static void
show_tab (Fixture   *f,
          GtkWidget *page)
{
  GtkNotebook *notebook = GTK_NOTEBOOK (gtk_widget_get_ancestor (page, GTK_TYPE_NOTEBOOK));

  gtk_notebook_set_current_page (notebook, gtk_notebook_page_num (notebook, page));
  test_app_spin_for (200);
}

#ifdef GDK_WINDOWING_X11
/* Turns the wheel @clicks detents down over the middle of @widget, with nothing focused. */
static void
wheel_over (Fixture   *f,
            GtkWidget *widget,
            int        clicks)
{
  GtkWidget *window = GTK_WIDGET (f->window);
  g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);

  gtk_window_set_focus (GTK_WINDOW (window), NULL);
  test_app_add_pointer_move (args, widget);
  g_ptr_array_add (args, g_strdup ("sleep"));
  g_ptr_array_add (args, g_strdup ("0.2"));
  g_ptr_array_add (args, g_strdup ("click"));
  g_ptr_array_add (args, g_strdup ("--repeat"));
  g_ptr_array_add (args, g_strdup_printf ("%d", clicks));
  g_ptr_array_add (args, g_strdup ("--delay"));
  g_ptr_array_add (args, g_strdup ("50"));
  g_ptr_array_add (args, g_strdup ("5"));
  test_app_xdotool (window, args);
  test_app_spin_for (100);
}

static gboolean
can_use_pointer (Fixture *f)
{
  g_autofree char *xdotool = g_find_program_in_path ("xdotool");

  return GDK_IS_X11_DISPLAY (gtk_widget_get_display (GTK_WIDGET (f->window))) && xdotool != NULL;
}
#endif

static GtkAdjustment *
scrolled_vadjustment (GtkWidget *widget)
{
  GtkWidget *scrolled = gtk_widget_get_ancestor (widget, GTK_TYPE_SCROLLED_WINDOW);

  g_assert_nonnull (scrolled);
  return gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scrolled));
}

/* The wheel over a Pose-tab slider or spin button scrolls the rows and moves no joint;
 * clicked into, a spin button takes the wheel. */
static void
test_pose_wheel_scrolls (Fixture       *f,
                         gconstpointer  data)
{
#ifdef GDK_WINDOWING_X11
  g_autofree double *before = NULL;
  GtkAdjustment *rows;
  GtkWidget *rows_view, *slider, *spin;
  const double *pose;
  guint n_dof;
  double top;

  if (!can_use_pointer (f))
    {
      g_test_skip ("needs X11 and xdotool for real pointer input");
      return;
    }
  show_tab (f, f->panel);
  /* The third joint row's (not a field above the rows, which do not scroll). */
  rows_view = test_app_find_pose_list (f->panel);
  g_assert_nonnull (rows_view);
  slider = nth_widget (rows_view, GTK_TYPE_SCALE, 2);
  spin = nth_widget (rows_view, GTK_TYPE_SPIN_BUTTON, 2);
  rows = scrolled_vadjustment (slider);
  g_assert_cmpfloat (gtk_adjustment_get_upper (rows), >, gtk_adjustment_get_page_size (rows));
  pose = km_document_get_pose (f->document, &n_dof);
  before = g_memdup2 (pose, n_dof * sizeof (double));

  top = gtk_adjustment_get_value (rows);
  wheel_over (f, slider, 2);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  pose = km_document_get_pose (f->document, &n_dof);
  for (guint d = 0; d < n_dof; d++)
    g_assert_cmpfloat_with_epsilon (pose[d], before[d], 1e-12);
  g_assert_cmpfloat (gtk_adjustment_get_value (rows), >, top);

  gtk_adjustment_set_value (rows, 0.0);
  test_app_spin_for (100);
  wheel_over (f, spin, 2);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  pose = km_document_get_pose (f->document, &n_dof);
  for (guint d = 0; d < n_dof; d++)
    g_assert_cmpfloat_with_epsilon (pose[d], before[d], 1e-12);
  g_assert_cmpfloat (gtk_adjustment_get_value (rows), >, 0.0);

  /* Focused (the user clicked into it), the spin button takes the wheel. */
  gtk_adjustment_set_value (rows, 0.0);
  test_app_spin_for (100);
  g_assert_true (gtk_widget_grab_focus (spin));
  {
    double value = gtk_spin_button_get_value (GTK_SPIN_BUTTON (spin));
    GtkWidget *window = GTK_WIDGET (f->window);
    g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);

    test_app_add_pointer_move (args, spin);
    g_ptr_array_add (args, g_strdup ("sleep"));
    g_ptr_array_add (args, g_strdup ("0.2"));
    g_ptr_array_add (args, g_strdup ("click"));
    g_ptr_array_add (args, g_strdup ("4"));
    test_app_xdotool (window, args);
    test_app_spin_for (100);
    g_assert_cmpfloat (gtk_spin_button_get_value (GTK_SPIN_BUTTON (spin)), !=, value);
  }
#else
  g_test_skip ("needs X11 for real pointer input");
#endif
}

/* The wheel over the inspector's Offset Y (the reviewer's Elbow, in SR1 a hip) leaves
 * the skeleton as it is. */
static void
test_inspector_wheel_scrolls (Fixture       *f,
                              gconstpointer  data)
{
#ifdef GDK_WINDOWING_X11
  KmSkeleton *skeleton;
  GtkWidget *offset_y;
  KmVec3 offset;
  int joint;

  if (!can_use_pointer (f))
    {
      g_test_skip ("needs X11 and xdotool for real pointer input");
      return;
    }
  skeleton = km_document_get_skeleton (f->document);
  joint = km_skeleton_find_joint (skeleton, "RLEG_HIP_P");
  g_assert_cmpint (joint, >=, 0);
  offset = km_skeleton_get_joint (skeleton, joint)->offset;
  show_tab (f, f->inspector);
  km_document_set_selected_joint (f->document, joint);
  test_app_spin_for (200);
  offset_y = nth_widget (f->inspector, GTK_TYPE_SPIN_BUTTON, 1);
  g_assert_true (gtk_widget_get_mapped (offset_y));

  wheel_over (f, offset_y, 3);
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  skeleton = km_document_get_skeleton (f->document);
  g_assert_cmpfloat (km_skeleton_get_joint (skeleton, joint)->offset.x, ==, offset.x);
  g_assert_cmpfloat (km_skeleton_get_joint (skeleton, joint)->offset.y, ==, offset.y);
  g_assert_cmpfloat (km_skeleton_get_joint (skeleton, joint)->offset.z, ==, offset.z);
#else
  g_test_skip ("needs X11 for real pointer input");
#endif
}

/* The inspector's controls (fields, with their - and + buttons, and labels: "rad" beside
 * a limit) are all within what its scrolled window shows, left of the vertical scrollbar
 * (which covered the + buttons as an overlay), and nothing is behind a horizontal
 * scrollbar. */
static void
assert_inspector_fits (Fixture    *f,
                       const char *angle_unit,
                       const char *length_unit)
{
  g_autoptr(GPtrArray) spins = g_ptr_array_new ();
  g_autoptr(GPtrArray) controls = g_ptr_array_new ();
  GtkWidget *scrolled, *vbar;
  GtkAdjustment *h;
  double right;
  int joint;

  g_object_set (f->inspector, "angle-unit", angle_unit, "length-unit", length_unit, NULL);
  joint = km_skeleton_find_joint (km_document_get_skeleton (f->document), "RARM_ELBOW");
  g_assert_cmpint (joint, >=, 0);
  show_tab (f, f->inspector);
  km_document_set_selected_joint (f->document, joint);
  test_app_spin_for (300);

  collect (f->inspector, GTK_TYPE_SPIN_BUTTON, spins);
  scrolled = gtk_widget_get_ancestor (spins->pdata[0], GTK_TYPE_SCROLLED_WINDOW);
  collect (gtk_scrolled_window_get_child (GTK_SCROLLED_WINDOW (scrolled)), GTK_TYPE_SPIN_BUTTON,
           controls);
  collect (gtk_scrolled_window_get_child (GTK_SCROLLED_WINDOW (scrolled)), GTK_TYPE_LABEL,
           controls);
  collect (gtk_scrolled_window_get_child (GTK_SCROLLED_WINDOW (scrolled)), GTK_TYPE_CHECK_BUTTON,
           controls);
  h = gtk_scrolled_window_get_hadjustment (GTK_SCROLLED_WINDOW (scrolled));
  vbar = gtk_scrolled_window_get_vscrollbar (GTK_SCROLLED_WINDOW (scrolled));
  right = gtk_widget_get_width (scrolled);
  if (vbar != NULL && gtk_widget_get_mapped (vbar))
    {
      graphene_rect_t b;

      g_assert_true (gtk_widget_compute_bounds (vbar, scrolled, &b));
      right = MIN (right, b.origin.x);
    }
  g_test_message ("%s, %s: inspector %d px, content %.0f px, page %.0f px, controls up to "
                  "%.0f px", angle_unit, length_unit, gtk_widget_get_width (f->inspector),
                  gtk_adjustment_get_upper (h), gtk_adjustment_get_page_size (h), right);
  g_assert_cmpfloat (gtk_adjustment_get_upper (h), <=, gtk_adjustment_get_page_size (h) + 0.5);
  for (guint i = 0; i < controls->len; i++)
    {
      GtkWidget *widget = controls->pdata[i];
      graphene_rect_t b;

      if (!gtk_widget_get_mapped (widget))
        continue;
      g_assert_true (gtk_widget_compute_bounds (widget, scrolled, &b));
      if (b.origin.x + b.size.width > right + 0.5)
        g_test_message ("%s \"%s\" ends at %.0f px", G_OBJECT_TYPE_NAME (widget),
                        GTK_IS_LABEL (widget) ? gtk_label_get_text (GTK_LABEL (widget)) : "",
                        b.origin.x + b.size.width);
      g_assert_cmpfloat (b.origin.x, >=, 0.0);
      g_assert_cmpfloat (b.origin.x + b.size.width, <=, right + 0.5);
    }
}

/* At the default window size the inspector's fields, their buttons and units are all
 * within the pane, in degrees and metres and in radians and millimetres. */
static void
test_inspector_fits (Fixture       *f,
                     gconstpointer  data)
{
  assert_inspector_fits (f, "degrees", "metres");
}

static void
test_inspector_fits_radians_mm (Fixture       *f,
                                gconstpointer  data)
{
  assert_inspector_fits (f, "radians", "millimetres");
  /* Back to the defaults: the inspector writes them to the settings, which later tests
   * of this process read. */
  g_object_set (f->inspector, "angle-unit", "degrees", "length-unit", "metres", NULL);
}

/* The name label of joint @name's row as shown now (the plain or the bold one). */
static GtkWidget *
shown_name (Fixture    *f,
            const char *name)
{
  GtkWidget *label = test_app_find_label (f->panel, name);
  GtkAdjustment *rows;
  GtkWidget *parent;

  g_assert_nonnull (label);
  /* The Pose tab is a list: a row below the visible ones is scrolled to. */
  rows = scrolled_vadjustment (label);
  gtk_adjustment_set_value (rows, 0.0);
  test_app_spin_for (50);
  while (!gtk_widget_get_mapped (label)
         && gtk_adjustment_get_value (rows) + gtk_adjustment_get_page_size (rows)
            < gtk_adjustment_get_upper (rows))
    {
      gtk_adjustment_set_value (rows, gtk_adjustment_get_value (rows)
                                      + gtk_adjustment_get_page_size (rows) / 2);
      test_app_spin_for (50);
    }
  parent = gtk_widget_get_parent (label);
  if (GTK_IS_STACK (parent))
    label = gtk_stack_get_visible_child (GTK_STACK (parent));
  g_assert_true (GTK_IS_LABEL (label));
  g_assert_true (gtk_widget_get_mapped (label));
  return label;
}

/* The limits caption of the row whose name label is @name. */
static GtkWidget *
limits_of (GtkWidget *name)
{
  GtkWidget *limits = gtk_widget_get_parent (name);

  if (GTK_IS_STACK (limits))
    limits = gtk_widget_get_next_sibling (limits);
  else
    limits = gtk_widget_get_next_sibling (name);
  g_assert_true (GTK_IS_LABEL (limits));
  return limits;
}

/* The tooltip a Pose tab row's @widget shows, built when GTK asks for it (query-tooltip);
 * the widget sets no tooltip text of its own. */
static const char *
row_tooltip (Fixture   *f,
             GtkWidget *widget)
{
  g_assert_null (gtk_widget_get_tooltip_text (widget));
  return km_joint_panel_get_row_tooltip (KM_JOINT_PANEL (f->panel), widget);
}

/* SR1's shoulder joints at the default size: each whole name shows (the suffix _P or _R
 * tells them apart; they were "LARM_SHOULD…" and "LARM_SHOULDE…" beside their limits), and
 * the tooltips give the whole name and limits. The same when the row is selected (bold). */
static void
test_names_whole (Fixture       *f,
                  gconstpointer  data)
{
  static const char *names[] = { "LARM_SHOULDER_P", "LARM_SHOULDER_R", "RARM_SHOULDER_P",
                                 "RARM_SHOULDER_R", "LARM_SHOULDER_Y" };
  KmSkeleton *skeleton = km_document_get_skeleton (f->document);

  show_tab (f, f->panel);
  for (guint selected = 0; selected < 2; selected++)
    for (guint i = 0; i < G_N_ELEMENTS (names); i++)
      {
        GtkWidget *name, *limits;
        g_autofree char *tooltip = NULL;

        if (selected)
          {
            km_document_set_selected_joint (f->document,
                                            km_skeleton_find_joint (skeleton, names[i]));
            test_app_spin_for (100);
          }
        name = shown_name (f, names[i]);
        limits = limits_of (name);
        g_test_message ("%s: %d px, limits \"%s\" %d px", names[i], gtk_widget_get_width (name),
                        gtk_label_get_text (GTK_LABEL (limits)), gtk_widget_get_width (limits));
        g_assert_false (pango_layout_is_ellipsized (gtk_label_get_layout (GTK_LABEL (name))));
        g_assert_true (gtk_widget_get_has_tooltip (name));
        g_assert_cmpstr (row_tooltip (f, name), ==, names[i]);
        g_assert_false (pango_layout_is_ellipsized (gtk_label_get_layout (GTK_LABEL (limits))));
        g_assert_true (gtk_widget_get_has_tooltip (limits));
        g_assert_true (g_str_has_prefix (row_tooltip (f, limits), "Limits: "));
        g_assert_cmpstr (row_tooltip (f, limits), ==, gtk_label_get_text (GTK_LABEL (limits)));
      }
}

/* A row of a joint with a name too long for the pane shows its limits whole under the
 * name, and as much of the name as fits, its end (the suffix) included. */
static void
test_limits_beside_long_name (Fixture       *f,
                              gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  KmSkeleton *skeleton = km_document_get_skeleton (f->document);
  int joint = km_skeleton_find_joint (skeleton, "RARM_SHOULDER_P");
  KmSkeleton *renamed;
  GtkWidget *name, *limits;

  g_assert_cmpint (joint, >=, 0);
  renamed = km_skeleton_edit_set_name (skeleton, joint,
                                       "RIGHT_ARM_SHOULDER_PITCH_WITH_A_VERY_LONG_NAME", &error);
  g_assert_no_error (error);
  g_assert_true (km_document_edit_skeleton (f->document, renamed, "Rename", NULL));
  show_tab (f, f->panel);
  test_app_spin_for (300);

  name = shown_name (f, "RIGHT_ARM_SHOULDER_PITCH_WITH_A_VERY_LONG_NAME");
  limits = limits_of (name);
  g_test_message ("limits \"%s\": %d px", gtk_label_get_text (GTK_LABEL (limits)),
                  gtk_widget_get_width (limits));
  g_assert_true (g_str_has_prefix (gtk_label_get_text (GTK_LABEL (limits)), "Limits"));
  g_assert_false (pango_layout_is_ellipsized (gtk_label_get_layout (GTK_LABEL (limits))));
  g_assert_true (pango_layout_is_ellipsized (gtk_label_get_layout (GTK_LABEL (name))));
  g_assert_cmpint (gtk_label_get_ellipsize (GTK_LABEL (name)), ==, PANGO_ELLIPSIZE_MIDDLE);
  g_assert_cmpstr (row_tooltip (f, name), ==, "RIGHT_ARM_SHOULDER_PITCH_WITH_A_VERY_LONG_NAME");
}

typedef struct
{
  GtkWidget  *list_view;
  const char *name;
} OutlineRow;

/* The outline's label showing @name, if the list made its row and laid it out. */
static GtkWidget *
outline_label (GtkWidget  *list_view,
               const char *name)
{
  GtkWidget *label = test_app_find_label (list_view, name);

  return label != NULL && gtk_widget_get_mapped (label) && gtk_widget_get_width (label) > 0
         ? label : NULL;
}

/* Whether the label of @data's row lies whole inside the outline's visible part. */
static gboolean
outline_name_shown (gpointer data)
{
  OutlineRow *o = data;
  GtkWidget *label = outline_label (o->list_view, o->name);
  GtkWidget *scrolled = gtk_widget_get_ancestor (o->list_view, GTK_TYPE_SCROLLED_WINDOW);
  graphene_rect_t bounds;
  int natural = 0;

  if (label == NULL || !gtk_widget_compute_bounds (label, scrolled, &bounds))
    return FALSE;
  gtk_widget_measure (label, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &natural, NULL, NULL);
  return bounds.origin.x >= -0.5
         && bounds.origin.x + natural <= gtk_widget_get_width (scrolled) + 0.5
         && bounds.origin.y >= -0.5
         && bounds.origin.y + bounds.size.height <= gtk_widget_get_height (scrolled) + 0.5;
}

/* SR1's wrist, ten levels down, in the Skeleton tab's outline at the default pane width:
 * its name is whole ("LARM_WRIST_R", not "LARM… ST_R") with the whole name in its tooltip,
 * the outline scrolls sideways to it, and each level indents modestly. */
static void
test_outline_deep_names (Fixture       *f,
                         gconstpointer  data)
{
  static const char *names[] = { "LARM_WRIST_R", "LARM_WRIST_P", "RARM_WRIST_Y", "WAIST" };
  KmSkeleton *skeleton = km_document_get_skeleton (f->document);
  GtkWidget *outline = test_app_find_widget (f->inspector, KM_TYPE_SKELETON_OUTLINE);
  GtkWidget *scrolled;
  OutlineRow o;

  g_assert_nonnull (outline);
  o.list_view = test_app_find_widget (outline, GTK_TYPE_LIST_VIEW);
  g_assert_nonnull (o.list_view);
  scrolled = gtk_widget_get_ancestor (o.list_view, GTK_TYPE_SCROLLED_WINDOW);
  show_tab (f, f->inspector);
  g_test_message ("outline %d px wide", gtk_widget_get_width (scrolled));
  g_assert_cmpint (gtk_widget_get_width (scrolled), <=, 420);

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      GtkWidget *label, *expander;
      graphene_rect_t bounds;

      o.name = names[i];
      km_document_set_selected_joint (f->document, km_skeleton_find_joint (skeleton, names[i]));
      g_assert_true (test_app_wait_until (outline_name_shown, &o, 3000));
      label = outline_label (o.list_view, names[i]);
      g_assert_nonnull (label);
      g_test_message ("%s: %d px of %d px, scrolled to %.0f of %.0f", names[i],
                      gtk_widget_get_width (label), gtk_widget_get_width (scrolled),
                      gtk_adjustment_get_value (gtk_scrollable_get_hadjustment (
                                                  GTK_SCROLLABLE (o.list_view))),
                      gtk_adjustment_get_upper (gtk_scrollable_get_hadjustment (
                                                  GTK_SCROLLABLE (o.list_view))));
      g_assert_false (pango_layout_is_ellipsized (gtk_label_get_layout (GTK_LABEL (label))));
      /* Built when asked (query-tooltip): the label sets none. */
      g_assert_null (gtk_widget_get_tooltip_text (label));
      g_assert_cmpstr (km_skeleton_outline_get_row_tooltip (KM_SKELETON_OUTLINE (outline),
                                                            label), ==, names[i]);
      /* At most a row height per level: the wrist's name starts within 20 px a level. */
      expander = gtk_widget_get_ancestor (label, GTK_TYPE_TREE_EXPANDER);
      g_assert_nonnull (expander);
      g_assert_true (gtk_widget_compute_bounds (label, expander, &bounds));
      g_assert_cmpfloat (bounds.origin.x, <=, 20.0 * 11 + 16.0);
    }
  /* The root's row fits: shown from its start, its expander arrow too. */
  g_assert_cmpfloat (gtk_adjustment_get_value (gtk_scrollable_get_hadjustment (
                                                 GTK_SCROLLABLE (o.list_view))), ==, 0.0);
}

/* The Pose-tab field of a DOF. */
static GtkSpinButton *
pose_spin (Fixture *f,
           guint    dof)
{
  GtkAdjustment *adjustment = km_joint_panel_get_adjustment (KM_JOINT_PANEL (f->panel), dof);
  g_autoptr(GPtrArray) found = g_ptr_array_new ();

  collect (f->panel, GTK_TYPE_SPIN_BUTTON, found);
  for (guint i = 0; i < found->len; i++)
    if (gtk_spin_button_get_adjustment (found->pdata[i]) == adjustment)
      return found->pdata[i];
  g_assert_not_reached ();
}

/* ClosedLinkSample's J0 has no limits ("Unlimited"), shown in radians: the field shows a
 * value turns away from 0 as it is, and takes 7 typed (no "outside its range"). */
static void
test_unlimited_joint (Fixture       *f,
                      gconstpointer  data)
{
  KmSkeleton *skeleton = km_document_get_skeleton (f->document);
  int j0 = km_skeleton_find_joint (skeleton, "J0");
  guint d0;
  GtkSpinButton *spin;
  const double *pose;

  g_assert_cmpint (j0, >=, 0);
  d0 = km_skeleton_get_joint (skeleton, j0)->dof_index;
  g_object_set (f->panel, "angle-unit", "radians", NULL);
  test_app_spin_for (200);
  spin = pose_spin (f, d0);

  km_document_set_dof_value (f->document, d0, -18.7248);
  test_app_spin ();
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (spin)), ==, "-18.725");

  gtk_editable_set_text (GTK_EDITABLE (spin), "7");
  gtk_spin_button_update (spin);
  test_app_spin ();
  pose = km_document_get_pose (f->document, NULL);
  g_assert_cmpfloat_with_epsilon (pose[d0], 7.0, 1e-12);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (spin)), ==, "7.000");
}

/* Review finding (rev23b-gui 2): the master of a follower with multiplier −1 has its range
 * narrowed to end at −0; its limits caption read "Limits: -0.000 to 0.030 m" (and "-0.0 to
 * 30.0 mm"), as the number fields never show a value. */
static void
test_limits_no_negative_zero (Fixture       *f,
                              gconstpointer  data)
{
  static const char * const units[] = { "metres", "millimetres" };
  static const char * const expected[] = { "Limits: 0.000 to 0.030 m",
                                           "Limits: 0.0 to 30.0 mm" };
  KmSkeleton *skeleton = km_document_get_skeleton (f->document);
  double lower, upper;
  int grip = km_skeleton_find_joint (skeleton, "grip");

  g_assert_cmpint (grip, >=, 0);
  g_assert_true (km_document_get_dof_range (f->document,
                                            (guint) km_skeleton_get_joint (skeleton,
                                                                           grip)->dof_index,
                                            &lower, &upper));
  g_assert_true (lower == 0.0 && signbit (lower));
  show_tab (f, f->panel);
  for (guint i = 0; i < G_N_ELEMENTS (units); i++)
    {
      GtkWidget *limits;

      g_object_set (f->panel, "length-unit", units[i], NULL);
      test_app_spin_for (200);
      limits = limits_of (shown_name (f, "grip"));
      g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (limits)), ==, expected[i]);
      g_assert_cmpstr (row_tooltip (f, limits), ==, expected[i]);
    }
  g_object_set (f->panel, "length-unit", "metres", NULL);
}

/* The DOF the Pose-tab spin button @spin shows, or -1. */
static int
spin_dof (Fixture   *f,
          GtkWidget *spin)
{
  GtkAdjustment *adjustment;

  if (!GTK_IS_SPIN_BUTTON (spin))
    return -1;
  adjustment = gtk_spin_button_get_adjustment (GTK_SPIN_BUTTON (spin));
  for (guint d = 0; d < km_joint_panel_get_n_rows (KM_JOINT_PANEL (f->panel)); d++)
    if (km_joint_panel_get_adjustment (KM_JOINT_PANEL (f->panel), d) == adjustment)
      return (int) d;
  return -1;
}

/* Whether the row widget @child of @list lies whole in the list's visible part. */
static gboolean
in_view (GtkWidget *list,
         GtkWidget *child)
{
  graphene_rect_t bounds;

  return child != NULL && gtk_widget_get_mapped (child)
         && gtk_widget_compute_bounds (child, list, &bounds) && bounds.size.height > 0
         && bounds.origin.y >= -0.5
         && bounds.origin.y + bounds.size.height <= gtk_widget_get_height (list) + 0.5;
}

/* The Pose-tab row widget showing @dof, or NULL. */
static GtkWidget *
pose_row (Fixture *f,
          int      dof)
{
  GtkWidget *list = test_app_find_pose_list (f->panel);

  for (GtkWidget *child = gtk_widget_get_first_child (list); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (spin_dof (f, test_app_find_widget (child, GTK_TYPE_SPIN_BUTTON)) == dof)
      return child;
  return NULL;
}

/* The first (@last: the last) DOF whose Pose-tab row is in view whole. */
static int
pose_row_in_view (Fixture  *f,
                  gboolean  last)
{
  GtkWidget *list = test_app_find_pose_list (f->panel);
  int found = -1;

  for (GtkWidget *child = gtk_widget_get_first_child (list); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      int dof = spin_dof (f, test_app_find_widget (child, GTK_TYPE_SPIN_BUTTON));

      if (dof >= 0 && in_view (list, child)
          && (found < 0 || (last ? dof > found : dof < found)))
        found = dof;
    }
  return found;
}

typedef struct
{
  Fixture *f;
  int      dof;
} DofWait;

/* Whether @data's DOF's field has the focus, its row in view. */
static gboolean
field_focused_in_view (gpointer data)
{
  DofWait *wait = data;
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (wait->f->window));
  GtkWidget *spin = focus != NULL ? gtk_widget_get_ancestor (focus, GTK_TYPE_SPIN_BUTTON) : NULL;

  return spin_dof (wait->f, spin) == wait->dof
         && in_view (test_app_find_pose_list (wait->f->panel), pose_row (wait->f, wait->dof));
}

static gboolean
pose_row_shown (gpointer data)
{
  DofWait *wait = data;

  return in_view (test_app_find_pose_list (wait->f->panel), pose_row (wait->f, wait->dof));
}

/* The item tree's list view and its row widget showing @joint (or NULL). */
static GtkWidget *
tree_list (Fixture *f)
{
  return test_app_find_widget (km_window_get_item_tree (f->window), GTK_TYPE_LIST_VIEW);
}

static GtkWidget *
tree_row (Fixture *f,
          int      joint)
{
  for (GtkWidget *child = gtk_widget_get_first_child (tree_list (f)); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *expander = gtk_widget_get_first_child (child);
      GtkTreeListRow *row = GTK_IS_TREE_EXPANDER (expander)
                            ? gtk_tree_expander_get_list_row (GTK_TREE_EXPANDER (expander)) : NULL;
      g_autoptr(GObject) item = row != NULL ? gtk_tree_list_row_get_item (row) : NULL;

      if (KM_IS_ITEM_ROW (item) && km_item_row_get_joint (KM_ITEM_ROW (item)) == joint)
        return child;
    }
  return NULL;
}

static gboolean
tree_row_shown (gpointer data)
{
  DofWait *wait = data;

  return in_view (tree_list (wait->f), tree_row (wait->f, wait->dof));
}

/* Review of keyboard and selection, 1: Tab in a Pose-tab field goes to the next row's field
 * also from the last row in view, scrolling it into view, down to the last DOF; Shift+Tab
 * likewise upwards from the first row in view. GTK 4.8's list view went on to the widgets
 * after the list (the Messages' Copy button). */
static void
test_pose_tab_past_view (Fixture       *f,
                         gconstpointer  data)
{
  guint n = km_joint_panel_get_n_rows (KM_JOINT_PANEL (f->panel));
  GtkWidget *list, *spin;
  GtkAdjustment *rows;
  DofWait wait = { f, -1 };
  int last, first;

  if (!test_app_real_input_or_skip (GTK_WIDGET (f->window)))
    return;
  show_tab (f, f->panel);
  g_assert_true (test_app_wait_until (test_app_pose_list_filled, f->panel, 10000));
  test_app_spin_for (200);
  list = test_app_find_pose_list (f->panel);
  rows = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (list));

  /* As just saved: moving through the fields is to leave it so (below). */
  g_assert_false (km_document_can_undo (f->document));
  km_document_set_modified (f->document, FALSE);
  last = pose_row_in_view (f, TRUE);
  g_assert_cmpint (last, >=, 0);
  g_assert_cmpint (last + 1, <, (int) n);
  spin = test_app_find_widget (pose_row (f, last), GTK_TYPE_SPIN_BUTTON);
  test_app_real_keys (GTK_WIDGET (f->window), spin, "key", "--delay", "60", "Tab", NULL);
  for (wait.dof = last + 1; wait.dof < (int) n; wait.dof++)
    {
      if (wait.dof > last + 1)
        test_app_real_keys (GTK_WIDGET (f->window), NULL, "key", "--delay", "60", "Tab", NULL);
      g_assert_true (test_app_wait_until (field_focused_in_view, &wait, 5000));
    }
  g_assert_cmpfloat (gtk_adjustment_get_value (rows), >, 0.0);
  /* Moving through the fields typed nothing: no edit, no undo step, nothing to save. */
  g_assert_false (km_document_can_undo (f->document));
  g_assert_false (km_document_get_modified (f->document));

  /* Upwards from the first row in view, scrolled to the end. */
  gtk_adjustment_set_value (rows, gtk_adjustment_get_upper (rows)
                                  - gtk_adjustment_get_page_size (rows));
  test_app_spin_for (200);
  first = pose_row_in_view (f, FALSE);
  g_assert_cmpint (first, >, 0);
  spin = test_app_find_widget (pose_row (f, first), GTK_TYPE_SPIN_BUTTON);
  test_app_real_keys (GTK_WIDGET (f->window), spin, "key", "--delay", "60", "shift+Tab", NULL);
  wait.dof = first - 1;
  g_assert_true (test_app_wait_until (field_focused_in_view, &wait, 5000));
  g_assert_false (km_document_can_undo (f->document));
  g_assert_false (km_document_get_modified (f->document));
}

/* Review of keyboard and selection, 3: a joint selected elsewhere has its rows brought into
 * view in the Pose tab and the item tree, without their taking the focus; so has one a
 * project opens with selected (kinema_selected_joint), the Pose tab's rows given to its
 * list in chunks after the open. */
static void
test_selected_joint_shown (Fixture       *f,
                           gconstpointer  data)
{
  KmSkeleton *skeleton = km_document_get_skeleton (f->document);
  guint n = km_joint_panel_get_n_rows (KM_JOINT_PANEL (f->panel));
  int dof = (int) n - 1;
  int joint = km_skeleton_get_dof_joint (skeleton, (guint) dof);
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-side-panels-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "selected.cnoid", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  DofWait wait = { f, dof };
  DofWait tree_wait = { f, joint };
  GtkAdjustment *rows, *tree_rows;

  show_tab (f, f->panel);
  g_assert_true (test_app_wait_until (test_app_pose_list_filled, f->panel, 10000));
  test_app_spin_for (200);
  rows = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (test_app_find_pose_list (f->panel)));
  tree_rows = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (tree_list (f)));
  g_assert_false (pose_row_shown (&wait));
  g_assert_false (tree_row_shown (&tree_wait));

  gtk_window_set_focus (GTK_WINDOW (f->window), NULL);
  km_document_set_selected_joint (f->document, joint);
  g_assert_true (test_app_wait_until (pose_row_shown, &wait, 5000));
  g_assert_true (test_app_wait_until (tree_row_shown, &tree_wait, 5000));
  g_assert_null (gtk_root_get_focus (GTK_ROOT (f->window)));

  /* Saved with it selected, opened again scrolled to the top. */
  g_assert_true (km_document_save (f->document, file, &error));
  g_assert_no_error (error);
  km_document_set_selected_joint (f->document, -1);
  gtk_adjustment_set_value (rows, 0.0);
  gtk_adjustment_set_value (tree_rows, 0.0);
  test_app_spin_for (200);
  g_assert_false (pose_row_shown (&wait));
  g_assert_false (tree_row_shown (&tree_wait));
  g_assert_true (test_app_open_file (f->window, file));
  g_assert_true (test_app_wait_idle_solve (f->document, 20000));
  g_assert_cmpint (km_document_get_selected_joint (f->document), ==, joint);
  g_assert_true (test_app_wait_until (pose_row_shown, &wait, 5000));
  g_assert_true (test_app_wait_until (tree_row_shown, &tree_wait, 5000));

  km_test_remove_tree (dir);
}

typedef struct
{
  Fixture   *f;
  GtkWidget *within;
  gboolean   inside;
} FocusWait;

static gboolean
focus_inside_is (gpointer data)
{
  FocusWait *wait = data;
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (wait->f->window));

  return (focus != NULL && gtk_widget_is_ancestor (focus, wait->within)) == wait->inside;
}

/* Review of keyboard and selection, 2: the item tree is one Tab stop; the arrows move
 * between its rows, Tab and Shift+Tab leave it (GTK 4.8's list view took SR1's 38 rows one
 * Tab each). */
static void
test_tree_one_tab_stop (Fixture       *f,
                        gconstpointer  data)
{
  GtkWidget *list = tree_list (f);
  GtkWidget *first = gtk_widget_get_first_child (list);
  FocusWait wait = { f, list, FALSE };
  GtkWidget *focus;

  if (!test_app_real_input_or_skip (GTK_WIDGET (f->window)))
    return;
  g_assert_nonnull (first);
  test_app_real_keys (GTK_WIDGET (f->window), first, "key", "--delay", "60", "Down", NULL);
  focus = gtk_root_get_focus (GTK_ROOT (f->window));
  g_assert_true (focus != NULL && focus != first && gtk_widget_is_ancestor (focus, list));

  test_app_real_keys (GTK_WIDGET (f->window), NULL, "key", "--delay", "60", "Tab", NULL);
  g_assert_true (test_app_wait_until (focus_inside_is, &wait, 2000));
  g_assert_nonnull (gtk_root_get_focus (GTK_ROOT (f->window)));

  /* Back in with Shift+Tab, on the row it left. */
  test_app_real_keys (GTK_WIDGET (f->window), NULL, "key", "--delay", "60", "shift+Tab", NULL);
  wait.inside = TRUE;
  g_assert_true (test_app_wait_until (focus_inside_is, &wait, 2000));
  g_assert_true (gtk_root_get_focus (GTK_ROOT (f->window)) == focus);

  /* And out upwards. */
  test_app_real_keys (GTK_WIDGET (f->window), NULL, "key", "--delay", "60", "shift+Tab", NULL);
  wait.inside = FALSE;
  g_assert_true (test_app_wait_until (focus_inside_is, &wait, 2000));
}

int
main (int    argc,
      char **argv)
{
  test_app_init (&argc, &argv);

  g_test_add ("/kinema/SidePanels/pose-wheel-scrolls", Fixture, NULL, fixture_setup,
              test_pose_wheel_scrolls, fixture_teardown);
  g_test_add ("/kinema/SidePanels/inspector-wheel-scrolls", Fixture, NULL, fixture_setup,
              test_inspector_wheel_scrolls, fixture_teardown);
  g_test_add ("/kinema/SidePanels/inspector-fits", Fixture, NULL, fixture_setup,
              test_inspector_fits, fixture_teardown);
  g_test_add ("/kinema/SidePanels/inspector-fits-radians-mm", Fixture, NULL, fixture_setup,
              test_inspector_fits_radians_mm, fixture_teardown);
  g_test_add ("/kinema/SidePanels/names-whole", Fixture, NULL, fixture_setup,
              test_names_whole, fixture_teardown);
  g_test_add ("/kinema/SidePanels/limits-beside-long-name", Fixture, NULL, fixture_setup,
              test_limits_beside_long_name, fixture_teardown);
  g_test_add ("/kinema/SidePanels/outline-deep-names", Fixture, NULL, fixture_setup,
              test_outline_deep_names, fixture_teardown);
  g_test_add ("/kinema/SidePanels/unlimited-joint", Fixture, "ClosedLinkSample.body",
              fixture_setup, test_unlimited_joint, fixture_teardown);
  g_test_add ("/kinema/SidePanels/limits-no-negative-zero", Fixture, "../urdf-mimic-grip.urdf",
              fixture_setup, test_limits_no_negative_zero, fixture_teardown);
  g_test_add ("/kinema/SidePanels/pose-tab-past-view", Fixture, NULL, fixture_setup,
              test_pose_tab_past_view, fixture_teardown);
  g_test_add ("/kinema/SidePanels/selected-joint-shown", Fixture, NULL, fixture_setup,
              test_selected_joint_shown, fixture_teardown);
  g_test_add ("/kinema/SidePanels/tree-one-tab-stop", Fixture, NULL, fixture_setup,
              test_tree_one_tab_stop, fixture_teardown);
  return g_test_run ();
}
