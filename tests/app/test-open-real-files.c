/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <math.h>
#include <gtk/gtk.h>

#include "km-body-item.h"
#include "km-item-row.h"
#include "km-item-tree.h"
#include "km-scene-view.h"
#include "km-shape.h"
#include "km-window.h"

#include "test-app-util.h"

/*
 * Real files from other tools (Choreonoid's sample project and models, a DART URDF with
 * STL meshes, Scenebuilder scenes), each opened in an editor window under Xvfb the way
 * `kinema FILE` opens it: no critical or warning (G_DEBUG=fatal-warnings makes them
 * abort), a body in the item tree, the body placed by forward kinematics, the model in
 * the middle of the scene view, and the camera framing it (reset on open, or a project's
 * own camera).
 */

typedef struct
{
  const char *path;          /* below tests/data */
  const char *body_name;     /* the body item the tree must list */
  gboolean    own_camera;    /* the project stores a camera, restored instead of a reset */
  double      min_coverage;  /* fraction of the view's centre the model must cover */
} RealFile;

static const RealFile real_files[] = {
  /* SR1 with a floor and simulator items; ${SHARE} is tests/data/cnoid/share (main). */
  { "cnoid/share/project/SR1Walk.cnoid", "SR1", FALSE, 0.05 },
  /* A closed-link body and a saved Choreonoid camera. */
  { "cnoid/share/project/ClosedLinkSample.cnoid", "ClosedLinkSample", TRUE, 0.05 },
  /* A humanoid, 29 DOF, primitives only. */
  { "choreonoid/SR1.body", "SR1.body", FALSE, 0.05 },
  /* One fixed link: every joint's place comes from forward kinematics of no DOF at all. */
  { "choreonoid/floor.body", "floor.body", FALSE, 0.30 },
  /* A DART URDF with seven binary STL meshes (and a space in its name). */
  { "dart/KR5/KR5 sixx R650.urdf", "KR5 sixx R650.urdf", FALSE, 0.05 },
  /* Scenebuilder: a wheeled chassis with shapes; a scene of fixed bodies only. */
  { "scenebuilder/wheels_module.xml", "wheels_module.xml", FALSE, 0.05 },
  { "scenebuilder/attr_namespaces.xml", "attr_namespaces.xml", FALSE, 0.005 },
};

typedef struct
{
  KmWindow    *window;
  KmDocument  *document;
  KmSceneView *view;
} Opened;

static gboolean
rendered (gpointer data)
{
  Opened *o = data;

  return km_scene_view_get_n_renders (o->view) > 0
         && gtk_widget_get_width (GTK_WIDGET (o->view)) > 0
         && !km_document_get_solving (o->document);
}

/* Whether the item tree has a row for a body item called @name. */
static gboolean
tree_has_body (KmWindow   *window,
               const char *name)
{
  KmItemTree *tree = KM_ITEM_TREE (km_window_get_item_tree (window));
  GListModel *rows = G_LIST_MODEL (km_item_tree_get_selection_model (tree));

  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(GtkTreeListRow) row = g_list_model_get_item (rows, i);
      g_autoptr(KmItemRow) item_row = gtk_tree_list_row_get_item (row);
      KmItem *item = km_item_row_get_item (item_row);

      if (km_item_row_get_joint (item_row) < 0 && KM_IS_BODY_ITEM (item)
          && g_strcmp0 (km_item_get_name (item), name) == 0)
        return TRUE;
    }
  return FALSE;
}

static void
grow (KmVec3 *min,
      KmVec3 *max,
      KmVec3  p)
{
  min->x = MIN (min->x, p.x), min->y = MIN (min->y, p.y), min->z = MIN (min->z, p.z);
  max->x = MAX (max->x, p.x), max->y = MAX (max->y, p.y), max->z = MAX (max->z, p.z);
}

/* The world box of the edited body's joints and shapes at @world. */
static void
model_bounds (const KmSkeleton  *skeleton,
              const KmTransform *world,
              KmVec3            *min,
              KmVec3            *max)
{
  *min = km_vec3 (G_MAXDOUBLE, G_MAXDOUBLE, G_MAXDOUBLE);
  *max = km_vec3 (-G_MAXDOUBLE, -G_MAXDOUBLE, -G_MAXDOUBLE);
  for (guint i = 0; i < km_skeleton_get_n_joints (skeleton); i++)
    {
      KmShape * const *shapes;
      guint n_shapes = 0;
      mat4 joint, model;

      grow (min, max, world[i].pos);
      shapes = km_skeleton_get_shapes (skeleton, i, &n_shapes);
      km_transform_to_mat4 (&world[i], joint);
      for (guint k = 0; k < n_shapes; k++)
        {
          KmVec3 lo, hi;

          km_shape_get_bounds (shapes[k], &lo, &hi);
          km_shape_get_mat4 (shapes[k], model);
          glm_mat4_mul (joint, model, model);
          for (int c = 0; c < 8; c++)
            {
              vec4 p = { (float) (c & 1 ? hi.x : lo.x), (float) (c & 2 ? hi.y : lo.y),
                         (float) (c & 4 ? hi.z : lo.z), 1.0f };
              vec4 out;

              glm_mat4_mulv (model, p, out);
              grow (min, max, km_vec3 (out[0], out[1], out[2]));
            }
        }
    }
}

/* The fraction of pixels in the middle half (both ways) of the scene view that are
 * clearly not background (grid lines are thin and dim, so they add little). */
static double
centre_coverage (KmSceneView *view)
{
  g_autoptr(GdkTexture) texture = km_scene_view_grab_texture (view);
  g_autofree guint8 *pixels = NULL;
  int w, h, n = 0, total = 0;

  g_assert_nonnull (texture);
  w = gdk_texture_get_width (texture);
  h = gdk_texture_get_height (texture);
  pixels = g_malloc ((gsize) w * h * 4);
  gdk_texture_download (texture, pixels, (gsize) w * 4);
  for (int y = h / 4; y < 3 * h / 4; y++)
    for (int x = w / 4; x < 3 * w / 4; x++)
      {
        const guint8 *p = pixels + ((gsize) y * w + x) * 4;   /* B G R A */
        int d = abs (p[2] - 46) + abs (p[1] - 47) + abs (p[0] - 50);

        n += d > 60;
        total++;
      }
  return total > 0 ? (double) n / total : 0.0;
}

static void
test_open (gconstpointer data)
{
  const RealFile *rf = data;
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", rf->path, NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  Opened o;
  KmSkeleton *skeleton;
  const KmTransform *world;
  g_autofree KmTransform *expected = NULL;
  const double *pose;
  guint n_dof = 0, n_joints = 0;
  KmCamera camera, reset;
  KmVec3 min, max;
  double x0 = G_MAXDOUBLE, y0 = G_MAXDOUBLE, x1 = -G_MAXDOUBLE, y1 = -G_MAXDOUBLE;
  double coverage;
  int w, h;

  o.window = km_window_new (NULL);
  gtk_window_set_default_size (GTK_WINDOW (o.window), 900, 600);
  o.document = km_window_get_document (o.window);
  o.view = KM_SCENE_VIEW (km_window_get_scene_view (o.window));
  /* What KmApplication::open does for `kinema FILE`. */
  g_assert_true (test_app_open_file (o.window, file));
  gtk_window_present (GTK_WINDOW (o.window));
  g_assert_true (test_app_wait_until (rendered, &o, 20000));
  test_app_spin ();

  /* The item tree lists the body, and the document edits it. */
  g_assert_true (tree_has_body (o.window, rf->body_name));
  skeleton = km_document_get_skeleton (o.document);
  g_assert_nonnull (skeleton);
  g_assert_cmpuint (km_skeleton_get_n_joints (skeleton), >, 0);

  /* Every joint is where forward kinematics of the shown pose puts it, also for a body
   * with no movable joint at all. */
  pose = km_document_get_pose (o.document, &n_dof);
  g_assert_cmpuint (n_dof, ==, km_skeleton_get_n_dof (skeleton));
  world = km_document_get_joint_world (o.document, &n_joints);
  g_assert_cmpuint (n_joints, ==, km_skeleton_get_n_joints (skeleton));
  expected = g_new0 (KmTransform, n_joints);
  km_skeleton_forward_kinematics (skeleton, pose, NULL, expected);
  for (guint i = 0; i < n_joints; i++)
    {
      g_assert_cmpfloat_with_epsilon (world[i].pos.x, expected[i].pos.x, 1e-9);
      g_assert_cmpfloat_with_epsilon (world[i].pos.y, expected[i].pos.y, 1e-9);
      g_assert_cmpfloat_with_epsilon (world[i].pos.z, expected[i].pos.z, 1e-9);
      for (guint k = 0; k < 9; k++)
        g_assert_cmpfloat_with_epsilon (world[i].rot.m[k / 3][k % 3],
                                        expected[i].rot.m[k / 3][k % 3], 1e-9);
    }

  /* The camera frames the whole model: each corner of its box projects into the view,
   * and the box is not a speck in it. */
  w = gtk_widget_get_width (GTK_WIDGET (o.view));
  h = gtk_widget_get_height (GTK_WIDGET (o.view));
  camera = *km_scene_view_get_camera (o.view);
  model_bounds (skeleton, expected, &min, &max);
  for (int c = 0; c < 8; c++)
    {
      KmVec3 p = km_vec3 (c & 1 ? max.x : min.x, c & 2 ? max.y : min.y, c & 4 ? max.z : min.z);
      double x, y;

      g_assert_true (km_camera_project (&camera, p, w, h, &x, &y));
      x0 = MIN (x0, x), x1 = MAX (x1, x), y0 = MIN (y0, y), y1 = MAX (y1, y);
    }
  g_test_message ("%s: view %dx%d, model box projects to (%.0f, %.0f)-(%.0f, %.0f)",
                  rf->path, w, h, x0, y0, x1, y1);
  g_assert_cmpfloat (x0, >=, -1.0);
  g_assert_cmpfloat (y0, >=, -1.0);
  g_assert_cmpfloat (x1, <=, w + 1.0);
  g_assert_cmpfloat (y1, <=, h + 1.0);
  g_assert_cmpfloat (MAX (x1 - x0, y1 - y0), >=, 0.25 * MIN (w, h));

  /* It is drawn there. */
  coverage = centre_coverage (o.view);
  g_test_message ("%s: %.1f %% of the view's centre covered", rf->path, 100 * coverage);
  g_assert_cmpfloat (coverage, >=, rf->min_coverage);

  /* Opening a model framed it, as View → Reset camera does; a project keeps its own. */
  km_scene_view_reset_camera (o.view);
  reset = *km_scene_view_get_camera (o.view);
  if (rf->own_camera)
    g_assert_cmpfloat (fabs (camera.distance - reset.distance)
                       + km_vec3_length (km_vec3_sub (camera.target, reset.target))
                       + fabs (camera.yaw - reset.yaw) + fabs (camera.pitch - reset.pitch),
                       >, 1e-6);
  else
    {
      g_assert_cmpfloat_with_epsilon (camera.distance, reset.distance, 1e-9);
      g_assert_cmpfloat_with_epsilon (camera.yaw, reset.yaw, 1e-9);
      g_assert_cmpfloat_with_epsilon (camera.pitch, reset.pitch, 1e-9);
      g_assert_cmpfloat_with_epsilon (camera.target.x, reset.target.x, 1e-9);
      g_assert_cmpfloat_with_epsilon (camera.target.y, reset.target.y, 1e-9);
      g_assert_cmpfloat_with_epsilon (camera.target.z, reset.target.z, 1e-9);
    }

  g_object_add_weak_pointer (G_OBJECT (o.window), (gpointer *) &o.window);
  gtk_window_destroy (GTK_WINDOW (o.window));
  test_app_spin ();
  g_assert_null (o.window);
}

int
main (int    argc,
      char **argv)
{
  test_app_init (&argc, &argv);

  /* ${SHARE} in the Choreonoid sample projects: the copy of Choreonoid's share tree. */
  {
    g_autofree char *share = g_test_build_filename (G_TEST_DIST, "data", "cnoid", "share",
                                                    NULL);

    g_setenv ("KINEMA_CHOREONOID_SHARE", share, TRUE);
  }

  for (guint i = 0; i < G_N_ELEMENTS (real_files); i++)
    {
      g_autofree char *name = g_path_get_basename (real_files[i].path);
      g_autofree char *test_path = NULL;

      g_strdelimit (name, " ", '-');
      test_path = g_strdup_printf ("/kinema/OpenRealFiles/%s", name);

      g_test_add_data_func (test_path, &real_files[i], test_open);
    }
  return g_test_run ();
}
