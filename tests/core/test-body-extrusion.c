/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "km-body.h"
#include "km-error.h"
#include "km-extrusion.h"
#include "km-mesh-loader.h"
#include "km-polygon.h"
#include "km-shape.h"

#include "test-util.h"

/*
 * Extrusion geometry in Choreonoid bodies (crawler tracks in Choreonoid's Tank-like
 * models): the cross-section swept along the spine, with caps, as a mesh; and
 * ElevationGrid (terrain): a height field over the XZ plane. The same Extrusion in a VRML
 * mesh file.
 */

static KmSkeleton *
load (const char  *geometry,
      GError     **error)
{
  g_autofree char *text = g_strdup_printf ("format: ChoreonoidBody\n"
                                           "formatVersion: 1.0\n"
                                           "links:\n"
                                           "  - name: TRACK\n"
                                           "    jointType: fixed\n"
                                           "    elements:\n"
                                           "      Shape:\n"
                                           "        geometry: %s\n", geometry);

  return km_body_load ("t.body", text, strlen (text), NULL, error);
}

static const KmMesh *
only_mesh (const KmSkeleton *skel)
{
  KmShape * const *shapes;
  guint n = 0;

  shapes = km_skeleton_get_shapes (skel, 0, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpint (shapes[0]->type, ==, KM_SHAPE_MESH);
  g_assert_nonnull (shapes[0]->mesh);
  return shapes[0]->mesh;
}

static void
assert_bounds (const KmMesh *mesh,
               double        x0,
               double        y0,
               double        z0,
               double        x1,
               double        y1,
               double        z1)
{
  KmVec3 lo, hi;

  km_mesh_get_bounds (mesh, &lo, &hi);
  g_assert_cmpfloat_with_epsilon (lo.x, x0, 1e-6);
  g_assert_cmpfloat_with_epsilon (lo.y, y0, 1e-6);
  g_assert_cmpfloat_with_epsilon (lo.z, z0, 1e-6);
  g_assert_cmpfloat_with_epsilon (hi.x, x1, 1e-6);
  g_assert_cmpfloat_with_epsilon (hi.y, y1, 1e-6);
  g_assert_cmpfloat_with_epsilon (hi.z, z1, 1e-6);
}

/* Choreonoid's track outline: a closed trapezoid (x, z) swept 0.1 along +Y. */
static void
test_track (void)
{
  g_autoptr(GError) error = NULL;
  KmSkeleton *skel = load ("{ type: Extrusion, "
                           "crossSection: [ -0.22, -0.1, 0.22, -0.1, 0.34, 0.06, -0.34, 0.06, "
                           "-0.22, -0.1 ], spine: [ 0, -0.05, 0, 0, 0.05, 0 ] }", &error);
  const KmMesh *mesh;

  g_assert_no_error (error);
  mesh = only_mesh (skel);
  /* 4 outline points at 2 spine points; 4 side quads and 2 two-triangle caps. */
  g_assert_cmpuint (km_mesh_get_n_vertices (mesh), ==, 8);
  g_assert_cmpuint (km_mesh_get_n_triangles (mesh), ==, 12);
  assert_bounds (mesh, -0.34, -0.05, -0.1, 0.34, 0.05, 0.06);
  km_skeleton_unref (skel);
}

/* A straight spine along +X: the outline's plane turns with it (+Y onto +X), a scale per
 * spine point, no caps. */
static void
test_straight_spine (void)
{
  g_autoptr(GError) error = NULL;
  KmSkeleton *skel = load ("{ type: Extrusion, crossSection: [ 1, 1, 1, -1, -1, -1, -1, 1, "
                           "1, 1 ], spine: [ 0, 0, 0, 2, 0, 0 ], scale: [ 1, 1, 0.5, 0.5 ], "
                           "beginCap: false, endCap: false }", &error);
  const KmMesh *mesh;

  g_assert_no_error (error);
  mesh = only_mesh (skel);
  g_assert_cmpuint (km_mesh_get_n_vertices (mesh), ==, 8);
  g_assert_cmpuint (km_mesh_get_n_triangles (mesh), ==, 8);
  assert_bounds (mesh, 0, -1, -1, 2, 1, 1);
  km_skeleton_unref (skel);
}

/* A bent spine (an L in the XY plane): each outline lies across the spine there. */
static void
test_bent_spine (void)
{
  g_autoptr(GError) error = NULL;
  KmSkeleton *skel = load ("{ type: Extrusion, crossSection: [ 0.1, 0.1, 0.1, -0.1, -0.1, "
                           "-0.1, -0.1, 0.1, 0.1, 0.1 ], spine: [ 0, 0, 0, 0, 1, 0, 1, 1, 0 ] }",
                           &error);
  const KmMesh *mesh;
  KmVec3 lo, hi;

  g_assert_no_error (error);
  mesh = only_mesh (skel);
  g_assert_cmpuint (km_mesh_get_n_vertices (mesh), ==, 12);
  g_assert_cmpuint (km_mesh_get_n_triangles (mesh), ==, 2 * 4 * 2 + 2 * 2);
  km_mesh_get_bounds (mesh, &lo, &hi);
  /* The tube's thickness stays 0.2 across Z, and it reaches both spine ends. */
  g_assert_cmpfloat_with_epsilon (lo.z, -0.1, 1e-6);
  g_assert_cmpfloat_with_epsilon (hi.z, 0.1, 1e-6);
  g_assert_cmpfloat (hi.x, >=, 1.0 - 1e-6);
  g_assert_cmpfloat (lo.y, <=, 1e-6);
  km_skeleton_unref (skel);
}

/* A bad extrusion is reported at the offending value and left out, like other bad
 * elements. */
static void
test_errors (void)
{
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  KmSkeleton *skel;
  guint n = 0;

  test_util_push_warnings (warnings);
  skel = load ("{ type: Extrusion, crossSection: [ 1, 1, 1 ] }", &error);
  g_assert_no_error (error);
  km_skeleton_get_shapes (skel, 0, &n);
  g_assert_cmpuint (n, ==, 0);
  km_skeleton_unref (skel);
  skel = load ("{ type: Extrusion, spine: [ 0, 0, 0 ] }", &error);
  g_assert_no_error (error);
  km_skeleton_get_shapes (skel, 0, &n);
  g_assert_cmpuint (n, ==, 0);
  km_skeleton_unref (skel);
  test_util_pop_warnings (warnings);

  g_assert_cmpuint (warnings->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (warnings, 0), ==,
                   "t.body:8:52: expected pairs of numbers (the element is skipped)");
  g_assert_cmpstr (g_ptr_array_index (warnings, 1), ==,
                   "t.body:8:19: expected at least 2 spine points and 2 cross-section points "
                   "(the element is skipped)");
}

/* The warning keeps the element's location when the file's name holds one of its own
 * (":3:4: ") or a character shown escaped: it is read back as the file's. */
static void
test_error_location_in_odd_name (void)
{
  static const char text[] = "format: ChoreonoidBody\n"
                             "formatVersion: 1.0\n"
                             "links:\n"
                             "  - name: TRACK\n"
                             "    jointType: fixed\n"
                             "    elements:\n"
                             "      Shape:\n"
                             "        geometry: { type: Extrusion, crossSection: [ 1, 1, 1 ] }\n";
  static const char * const names[] = { "a:3:4: t.body", "a: t\\x.body" };
  static const char * const expected[] = {
    "a:3:4: t.body:8:52: expected pairs of numbers (the element is skipped)",
    "a: t\\\\x.body:8:52: expected pairs of numbers (the element is skipped)",
  };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
      g_autoptr(GError) error = NULL;
      KmSkeleton *skel;

      test_util_push_warnings (warnings);
      skel = km_body_load (names[i], text, strlen (text), NULL, &error);
      test_util_pop_warnings (warnings);
      g_assert_no_error (error);
      km_skeleton_unref (skel);
      g_assert_cmpuint (warnings->len, ==, 1);
      g_assert_cmpstr (g_ptr_array_index (warnings, 0), ==, expected[i]);
    }
}

static void
test_elevation_grid (void)
{
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  KmSkeleton *skel = load ("{ type: ElevationGrid, xDimension: 3, zDimension: 2, "
                           "xSpacing: 0.5, zSpacing: 2, height: [ 0, 1, 0, -1, 0, 3 ] }",
                           &error);
  const KmMesh *mesh;
  guint n = 0;

  g_assert_no_error (error);
  mesh = only_mesh (skel);
  g_assert_cmpuint (km_mesh_get_n_vertices (mesh), ==, 6);
  g_assert_cmpuint (km_mesh_get_n_triangles (mesh), ==, 4);
  assert_bounds (mesh, 0, -1, 0, 1, 3, 2);
  /* The last point: x = 2 × 0.5, z = 1 × 2, height 3. */
  g_assert_cmpfloat (km_mesh_get_vertices (mesh)[5 * 3 + 0], ==, 1.0f);
  g_assert_cmpfloat (km_mesh_get_vertices (mesh)[5 * 3 + 1], ==, 3.0f);
  g_assert_cmpfloat (km_mesh_get_vertices (mesh)[5 * 3 + 2], ==, 2.0f);
  km_skeleton_unref (skel);

  test_util_push_warnings (warnings);
  skel = load ("{ type: ElevationGrid, xDimension: 2, zDimension: 2, height: [ 0, 1, 2 ] }",
               &error);
  test_util_pop_warnings (warnings);
  g_assert_no_error (error);
  km_skeleton_get_shapes (skel, 0, &n);
  g_assert_cmpuint (n, ==, 0);
  km_skeleton_unref (skel);
  g_assert_cmpuint (warnings->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (warnings, 0), ==,
                   "t.body:8:80: expected 4 heights (xDimension × zDimension), not 3 "
                   "(the element is skipped)");
}

static void
test_vrml (void)
{
  static const char text[] =
    "#VRML V2.0 utf8\n"
    "Shape { geometry Extrusion {\n"
    "  crossSection [ -0.22 -0.1, 0.22 -0.1, 0.34 0.06, -0.34 0.06, -0.22 -0.1 ]\n"
    "  spine [ 0 -0.05 0, 0 0.05 0 ] endCap FALSE } }\n";
  static const char bad[] =
    "#VRML V2.0 utf8\n"
    "Shape { geometry Extrusion { spine [ 0 0 0 ] } }\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) shapes = km_mesh_load_vrml ("m.wrl", text, sizeof text - 1, NULL,
                                                   &error);
  const KmShape *shape;

  /* One mesh: 4 outline points at 2 spine points, 4 side quads and the begin cap. */
  g_assert_no_error (error);
  g_assert_cmpuint (shapes->len, ==, 1);
  shape = g_ptr_array_index (shapes, 0);
  g_assert_cmpint (shape->type, ==, KM_SHAPE_MESH);
  g_assert_cmpuint (km_mesh_get_n_vertices (shape->mesh), ==, 8);
  g_assert_cmpuint (km_mesh_get_n_triangles (shape->mesh), ==, 10);
  assert_bounds (shape->mesh, -0.34, -0.05, -0.1, 0.34, 0.05, 0.06);
  g_clear_pointer (&shapes, g_ptr_array_unref);

  /* A spine of one point is an error at the node. */
  shapes = km_mesh_load_vrml ("m.wrl", bad, sizeof bad - 1, NULL, &error);
  g_assert_null (shapes);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "m.wrl:2:18: "));
}

/* Twice the signed area of triangle a, b, c of the outline. */
static double
triangle_area2 (const double *p,
                guint32       a,
                guint32       b,
                guint32       c)
{
  return (p[2 * b] - p[2 * a]) * (p[2 * c + 1] - p[2 * a + 1])
         - (p[2 * b + 1] - p[2 * a + 1]) * (p[2 * c] - p[2 * a]);
}

/* A U-shaped outline (area 5) is concave: a fan from its first corner would cover the
 * notch. Ear clipping gives n − 2 triangles, all wound like the outline, that add up to
 * its area; a clockwise outline gives clockwise triangles. */
static void
test_concave_cap (void)
{
  static const double u[] = { 0, 0, 3, 0, 3, 2, 2, 2, 2, 1, 1, 1, 1, 2, 0, 2 };
  double reversed[G_N_ELEMENTS (u)];
  guint32 tris[3 * 6];
  guint n = G_N_ELEMENTS (u) / 2;

  for (int pass = 0; pass < 2; pass++)
    {
      const double *p = pass == 0 ? u : reversed;
      double sign = pass == 0 ? 1 : -1, total = 0;
      guint n_tri;

      if (pass == 1)
        for (guint i = 0; i < n; i++)
          {
            reversed[2 * i] = u[2 * (n - 1 - i)];
            reversed[2 * i + 1] = u[2 * (n - 1 - i) + 1];
          }
      n_tri = km_polygon_triangulate_2d (p, n, tris);
      g_assert_cmpuint (n_tri, ==, n - 2);
      for (guint k = 0; k < n_tri; k++)
        {
          double a2 = sign * triangle_area2 (p, tris[3 * k], tris[3 * k + 1], tris[3 * k + 2]);

          g_assert_cmpfloat (a2, >, 0);
          total += a2 / 2;
        }
      g_assert_cmpfloat_with_epsilon (total, 5, 1e-12);
    }

  /* Collinear points still give n − 2 triangles (degenerate ones included), no loop. */
  {
    static const double line[] = { 0, 0, 1, 0, 2, 0, 3, 0 };

    g_assert_cmpuint (km_polygon_triangulate_2d (line, 4, tris), ==, 2);
  }
}

/* The caps of an extrusion with a U outline (area 5, counter-clockwise in x, z) along +Y:
 * 6 triangles each (after the 2 × 8 side triangles), each turned the same way (−Y at the
 * end, +Y at the begin cap, as the outline's winding gives), adding up to the U. */
static void
test_concave_cap_mesh (void)
{
  g_autoptr(GError) error = NULL;
  KmSkeleton *skel = load ("{ type: Extrusion, crossSection: [ 0, 0, 3, 0, 3, 2, 2, 2, 2, 1, "
                           "1, 1, 1, 2, 0, 2, 0, 0 ], spine: [ 0, 0, 0, 0, 1, 0 ] }", &error);
  const KmMesh *mesh;
  const float *v;
  const guint32 *idx;
  double area[2] = { 0, 0 };

  g_assert_no_error (error);
  mesh = only_mesh (skel);
  g_assert_cmpuint (km_mesh_get_n_triangles (mesh), ==, 2 * 8 + 2 * 6);
  v = km_mesh_get_vertices (mesh);
  idx = km_mesh_get_indices (mesh);
  for (guint k = 2 * 8; k < 2 * 8 + 2 * 6; k++)
    {
      const float *a = v + 3 * idx[3 * k], *b = v + 3 * idx[3 * k + 1];
      const float *c = v + 3 * idx[3 * k + 2];
      KmVec3 n = km_vec3_cross (km_vec3 (b[0] - a[0], b[1] - a[1], b[2] - a[2]),
                                km_vec3 (c[0] - a[0], c[1] - a[1], c[2] - a[2]));
      gboolean end = a[1] > 0.5f;

      g_assert_cmpfloat (a[1], ==, b[1]);
      g_assert_cmpfloat (a[1], ==, c[1]);
      g_assert_cmpfloat (end ? -n.y : n.y, >, 0);
      area[end] += fabs (n.y) / 2;
    }
  g_assert_cmpfloat_with_epsilon (area[0], 5, 1e-6);
  g_assert_cmpfloat_with_epsilon (area[1], 5, 1e-6);
  km_skeleton_unref (skel);
}

/* VRML's orientation turns each cross-section in its plane's frame: a 2 × 1 outline
 * turned 90° about the spine (Y) lies 1 wide in X and 2 in Z; a turn about X tilts it out
 * of the plane; a count that is not a multiple of 4 is an error at the node. */
static void
test_vrml_orientation (void)
{
  static const char about_y[] =
    "#VRML V2.0 utf8\n"
    "Shape { geometry Extrusion {\n"
    "  crossSection [ -1 -0.5, 1 -0.5, 1 0.5, -1 0.5, -1 -0.5 ]\n"
    "  spine [ 0 0 0, 0 1 0 ] orientation 0 1 0 1.5707963267948966 } }\n";
  static const char about_x[] =
    "#VRML V2.0 utf8\n"
    "Shape { geometry Extrusion {\n"
    "  crossSection [ -1 -0.5, 1 -0.5, 1 0.5, -1 0.5, -1 -0.5 ]\n"
    "  spine [ 0 0 0, 0 1 0 ] orientation [ 1 0 0 0, 1 0 0 1.5707963267948966 ] } }\n";
  static const char bad[] =
    "#VRML V2.0 utf8\n"
    "Shape { geometry Extrusion { orientation [ 0 1 0 ] } }\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) shapes = NULL;

  shapes = km_mesh_load_vrml ("m.wrl", about_y, sizeof about_y - 1, NULL, &error);
  g_assert_no_error (error);
  assert_bounds (((KmShape *) g_ptr_array_index (shapes, 0))->mesh,
                 -0.5, 0, -1, 0.5, 1, 1);
  g_clear_pointer (&shapes, g_ptr_array_unref);

  /* The first section lies flat at y = 0; the second stands up around y = 1. */
  shapes = km_mesh_load_vrml ("m.wrl", about_x, sizeof about_x - 1, NULL, &error);
  g_assert_no_error (error);
  assert_bounds (((KmShape *) g_ptr_array_index (shapes, 0))->mesh,
                 -1, 0, -0.5, 1, 1.5, 0.5);
  g_clear_pointer (&shapes, g_ptr_array_unref);

  shapes = km_mesh_load_vrml ("m.wrl", bad, sizeof bad - 1, NULL, &error);
  g_assert_null (shapes);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "m.wrl:2:18: "));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/kinema/Body/extrusion-track", test_track);
  g_test_add_func ("/kinema/Body/extrusion-straight-spine", test_straight_spine);
  g_test_add_func ("/kinema/Body/extrusion-bent-spine", test_bent_spine);
  g_test_add_func ("/kinema/Body/extrusion-errors", test_errors);
  g_test_add_func ("/kinema/Body/extrusion-error-location-in-odd-name", test_error_location_in_odd_name);
  g_test_add_func ("/kinema/Body/elevation-grid", test_elevation_grid);
  g_test_add_func ("/kinema/Mesh/vrml-extrusion", test_vrml);
  g_test_add_func ("/kinema/Mesh/extrusion-concave-cap", test_concave_cap);
  g_test_add_func ("/kinema/Body/extrusion-concave-cap", test_concave_cap_mesh);
  g_test_add_func ("/kinema/Mesh/vrml-extrusion-orientation", test_vrml_orientation);
  return g_test_run ();
}
