/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "km-body.h"
#include "km-mesh-loader.h"
#include "km-polygon.h"
#include "km-shape.h"

#include "test-util.h"

/*
 * The polygon triangulator (km-polygon.h) and the face lists that use it: concave faces
 * must give triangles that tile the polygon exactly (a fan from the first vertex covers
 * the notch of a U), convex ones the fan they always gave, and degenerate or huge input
 * neither crashes nor hangs.
 */

/* A U (area 5): a fan from its first corner, (0, 0), covers the notch 1…2 × 1…2. */
static const double u_shape[] = { 0, 0, 3, 0, 3, 2, 2, 2, 2, 1, 1, 1, 1, 2, 0, 2 };
/* An L (area 3): the fan's triangle (2, 0), (1, 1), (1, 2) covers its notch. */
static const double l_shape[] = { 2, 0, 2, 1, 1, 1, 1, 2, 0, 2, 0, 0 };

static double
polygon_area (const double *p,
              guint         n)
{
  double sum = 0;

  for (guint i = 0; i < n; i++)
    {
      guint j = (i + 1) % n;

      sum += p[2 * i] * p[2 * j + 1] - p[2 * j] * p[2 * i + 1];
    }
  return sum / 2;
}

static gboolean
point_in_polygon (const double *p,
                  guint         n,
                  double        x,
                  double        y)
{
  gboolean inside = FALSE;

  for (guint i = 0, j = n - 1; i < n; j = i++)
    if ((p[2 * i + 1] > y) != (p[2 * j + 1] > y)
        && x < (p[2 * j] - p[2 * i]) * (y - p[2 * i + 1]) / (p[2 * j + 1] - p[2 * i + 1])
               + p[2 * i])
      inside = !inside;
  return inside;
}

static double
cross2 (const double *a,
        const double *b,
        const double *c)
{
  return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

/*
 * Whether the @n_tri triangles @tris (indices into the 2-D points @pts) tile the polygon
 * @poly (@n_poly points): each turns the way @sign says, their areas add up to the
 * polygon's, and every point of a fine grid is covered once inside the polygon and never
 * outside (so no triangle pokes out and none overlap). Returns NULL, or what is wrong.
 */
static char *
tiling_error (const double  *pts,
              const guint32 *tris,
              guint          n_tri,
              const double  *poly,
              guint          n_poly,
              double         sign)
{
  double lo[2] = { G_MAXDOUBLE, G_MAXDOUBLE }, hi[2] = { -G_MAXDOUBLE, -G_MAXDOUBLE };
  double total = 0, step;

  for (guint k = 0; k < n_tri; k++)
    {
      double a2 = sign * cross2 (pts + 2 * tris[3 * k], pts + 2 * tris[3 * k + 1],
                                 pts + 2 * tris[3 * k + 2]);

      if (a2 < -1e-6)
        return g_strdup_printf ("triangle %u is turned the wrong way", k);
      total += a2 / 2;
    }
  if (fabs (total - fabs (polygon_area (poly, n_poly))) > 1e-9)
    return g_strdup_printf ("the triangles cover %.17g, the polygon %.17g", total,
                            fabs (polygon_area (poly, n_poly)));
  for (guint i = 0; i < n_poly; i++)
    for (int d = 0; d < 2; d++)
      {
        lo[d] = MIN (lo[d], poly[2 * i + d]);
        hi[d] = MAX (hi[d], poly[2 * i + d]);
      }
  step = MAX (hi[0] - lo[0], hi[1] - lo[1]) / 53;
  /* Odd offsets keep the samples off the edges and diagonals. */
  for (double x = lo[0] + 0.01234567 * step; x < hi[0]; x += step)
    for (double y = lo[1] + 0.03456789 * step; y < hi[1]; y += step)
      {
        double q[2] = { x, y };
        guint covered = 0;

        for (guint k = 0; k < n_tri; k++)
          {
            const double *a = pts + 2 * tris[3 * k], *b = pts + 2 * tris[3 * k + 1];
            const double *c = pts + 2 * tris[3 * k + 2];
            double s = cross2 (a, b, c) < 0 ? -1 : 1;

            if (s * cross2 (a, b, q) > 0 && s * cross2 (b, c, q) > 0
                && s * cross2 (c, a, q) > 0)
              covered++;
          }
        if (covered != (point_in_polygon (poly, n_poly, x, y) ? 1u : 0u))
          return g_strdup_printf ("(%g, %g) is covered by %u triangles", x, y, covered);
      }
  return NULL;
}

static void
assert_tiles (const double  *pts,
              const guint32 *tris,
              guint          n_tri,
              const double  *poly,
              guint          n_poly,
              double         sign)
{
  g_autofree char *message = tiling_error (pts, tris, n_tri, poly, n_poly, sign);

  if (message != NULL)
    g_error ("%s", message);
}

static void
assert_valid_indices (const guint32 *tris,
                      guint          n_tri,
                      guint          n)
{
  for (guint k = 0; k < 3 * n_tri; k++)
    g_assert_cmpuint (tris[k], <, n);
}

/* A comb of @teeth teeth (4 teeth + 2 points), counter-clockwise: deeply concave. */
static double *
comb (guint  teeth,
      guint *n_out)
{
  guint n = 4 * teeth + 2, k = 0;
  double *p = g_new (double, 2 * n);

  p[k++] = 0, p[k++] = 0;
  p[k++] = 2 * teeth, p[k++] = 0;
  for (guint t = teeth; t-- > 0;)
    {
      p[k++] = 2 * t + 1.5, p[k++] = 10;
      p[k++] = 2 * t + 1.5, p[k++] = 1;
      p[k++] = 2 * t + 0.5, p[k++] = 1;
      p[k++] = 2 * t + 0.5, p[k++] = 10;
    }
  g_assert_cmpuint (k, ==, 2 * n);
  *n_out = n;
  return p;
}

static void
reverse (const double *p,
         guint         n,
         double       *out)
{
  for (guint i = 0; i < n; i++)
    {
      out[2 * i] = p[2 * (n - 1 - i)];
      out[2 * i + 1] = p[2 * (n - 1 - i) + 1];
    }
}

/* The 2-D polygon @p placed in a tilted plane: x along (0.6, 0, -0.8) + offset, y along
 * (0, 1, 0), as floats like a mesh's vertices. Its normal is (0.8, 0, 0.6) when @p is
 * counter-clockwise. */
static float *
tilted (const double *p,
        guint         n)
{
  float *v = g_new (float, 3 * n);

  for (guint i = 0; i < n; i++)
    {
      v[3 * i] = (float) (0.6 * p[2 * i] + 100);
      v[3 * i + 1] = (float) p[2 * i + 1];
      v[3 * i + 2] = (float) (-0.8 * p[2 * i] - 50);
    }
  return v;
}

/* Runs both triangulators on @p (counter-clockwise, @n points) and its reverse, in the
 * plane and tilted in space, and checks that each result tiles the polygon. */
static void
check_polygon (const double *p,
               guint         n)
{
  g_autofree double *rev = g_new (double, 2 * n);
  g_autofree guint32 *tris = g_new (guint32, 3 * (n - 2));
  g_autofree guint32 *order = g_new (guint32, n);

  reverse (p, n, rev);
  for (guint i = 0; i < n; i++)
    order[i] = i;
  for (int pass = 0; pass < 2; pass++)
    {
      const double *q = pass == 0 ? p : rev;
      double sign = pass == 0 ? 1 : -1;
      g_autofree float *v = tilted (q, n);
      guint n_tri;

      n_tri = km_polygon_triangulate_2d (q, n, tris);
      g_assert_cmpuint (n_tri, ==, n - 2);
      assert_valid_indices (tris, n_tri, n);
      assert_tiles (q, tris, n_tri, q, n, sign);

      n_tri = km_polygon_triangulate (v, order, n, tris);
      g_assert_cmpuint (n_tri, ==, n - 2);
      assert_valid_indices (tris, n_tri, n);
      /* The plane coordinates, from the floats the triangulator saw. */
      {
        g_autofree double *flat = g_new (double, 2 * n);

        for (guint i = 0; i < n; i++)
          {
            flat[2 * i] = 0.6 * ((double) v[3 * i] - 100) - 0.8 * ((double) v[3 * i + 2] + 50);
            flat[2 * i + 1] = v[3 * i + 1];
          }
        assert_tiles (flat, tris, n_tri, flat, n, sign);
      }
    }
}

static void
test_convex (void)
{
  static const double square[] = { 0, 0, 1, 0, 1, 1, 0, 1 };
  double hexagon[12];
  guint32 tris[3 * 4];
  guint32 order[] = { 3, 0, 2, 1 };
  /* A quad in the plane x + y + z = 1, listed through a permutation of the vertices. */
  static const float v[] = { 0, 0, 1, 1, 0, 0, 0, 1, 0, 0.6f, 0.6f, -0.2f };
  static const guint32 quad[] = { 0, 1, 3, 2 };

  g_assert_cmpuint (km_polygon_triangulate_2d (square, 4, tris), ==, 2);
  g_assert_cmpuint (tris[0], ==, 0);
  g_assert_cmpuint (tris[1], ==, 1);
  g_assert_cmpuint (tris[2], ==, 2);
  g_assert_cmpuint (tris[3], ==, 0);
  g_assert_cmpuint (tris[4], ==, 2);
  g_assert_cmpuint (tris[5], ==, 3);

  /* A convex polygon gives exactly the fan from its first point. */
  for (guint i = 0; i < 6; i++)
    {
      hexagon[2 * i] = cos (i * G_PI / 3);
      hexagon[2 * i + 1] = sin (i * G_PI / 3);
    }
  g_assert_cmpuint (km_polygon_triangulate_2d (hexagon, 6, tris), ==, 4);
  for (guint k = 0; k < 4; k++)
    {
      g_assert_cmpuint (tris[3 * k], ==, 0);
      g_assert_cmpuint (tris[3 * k + 1], ==, k + 1);
      g_assert_cmpuint (tris[3 * k + 2], ==, k + 2);
    }
  check_polygon (hexagon, 6);

  /* In 3-D: the fan of the listed vertex indices. */
  g_assert_cmpuint (km_polygon_triangulate (v, quad, 4, tris), ==, 2);
  g_assert_cmpuint (tris[0], ==, 0);
  g_assert_cmpuint (tris[1], ==, 1);
  g_assert_cmpuint (tris[2], ==, 3);
  g_assert_cmpuint (tris[3], ==, 0);
  g_assert_cmpuint (tris[4], ==, 3);
  g_assert_cmpuint (tris[5], ==, 2);
  /* Indices beyond the polygon's own: a triangle is a triangle. */
  g_assert_cmpuint (km_polygon_triangulate (v, order, 3, tris), ==, 1);
  g_assert_cmpuint (tris[0], ==, 3);
  g_assert_cmpuint (tris[1], ==, 0);
  g_assert_cmpuint (tris[2], ==, 2);
  g_assert_cmpuint (km_polygon_triangulate (v, order, 2, tris), ==, 0);
  g_assert_cmpuint (km_polygon_triangulate_2d (square, 2, tris), ==, 0);
}

static void
test_concave (void)
{
  enum { STAR_POINTS = 7 };
  double star[4 * STAR_POINTS];
  g_autofree double *teeth = NULL;
  g_autofree char *u_error = NULL, *l_error = NULL;
  guint n_teeth;
  guint32 tris[3 * 6];

  /* The fan from the first corner (the readers' old triangles) pokes out of the U and the
   * L: the check can fail. */
  for (guint k = 1; k + 1 < 8; k++)
    {
      tris[3 * (k - 1)] = 0;
      tris[3 * (k - 1) + 1] = k;
      tris[3 * (k - 1) + 2] = k + 1;
    }
  u_error = tiling_error (u_shape, tris, 6, u_shape, 8, 1);
  g_assert_cmpstr (u_error, ==, "triangle 2 is turned the wrong way");
  l_error = tiling_error (l_shape, tris, 4, l_shape, 6, 1);
  g_assert_nonnull (l_error);
  g_test_message ("the fan of the L: %s", l_error);

  check_polygon (u_shape, G_N_ELEMENTS (u_shape) / 2);
  check_polygon (l_shape, G_N_ELEMENTS (l_shape) / 2);
  for (guint i = 0; i < 2 * STAR_POINTS; i++)
    {
      double r = i % 2 == 0 ? 1 : 0.3, a = i * G_PI / STAR_POINTS;

      star[2 * i] = r * cos (a);
      star[2 * i + 1] = r * sin (a);
    }
  check_polygon (star, 2 * STAR_POINTS);
  teeth = comb (25, &n_teeth);
  check_polygon (teeth, n_teeth);
}

/* Degenerate faces: no crash, no loop, n − 2 triangles of the polygon's own indices; where
 * the polygon still has an area, the triangles tile it. */
/* A staircase of @steps steps with every edge cut in 3 by collinear points: corners that
 * are neither convex nor reflex all along a concave outline. */
static double *
staircase (guint  steps,
           guint *n_out)
{
  g_autoptr(GArray) corners = g_array_new (FALSE, FALSE, sizeof (double));
  double *p;
  guint n, k = 0;

  g_array_append_vals (corners, ((double[]) { 0, 0, steps, 0 }), 4);
  for (guint i = steps; i > 0; i--)
    g_array_append_vals (corners, ((double[]) { i, steps - i + 1, i - 1.0, steps - i + 1 }), 4);
  n = corners->len / 2;
  p = g_new (double, 2 * 3 * n);
  for (guint i = 0; i < n; i++)
    {
      const double *a = &g_array_index (corners, double, 2 * i);
      const double *b = &g_array_index (corners, double, 2 * ((i + 1) % n));

      for (guint s = 0; s < 3; s++)
        {
          p[k++] = a[0] + (b[0] - a[0]) * s / 3;
          p[k++] = a[1] + (b[1] - a[1]) * s / 3;
        }
    }
  *n_out = 3 * n;
  return p;
}

static void
test_degenerate (void)
{
  /* The U with a corner repeated and one with its first point repeated at the end. */
  static const double repeated[] = { 0, 0, 3, 0, 3, 0, 3, 2, 2, 2, 2, 1, 1, 1, 1, 2, 0, 2,
                                     0, 0 };
  /* A square with points in the middle of its edges (collinear corners). */
  static const double edged[] = { 0, 0, 1, 0, 2, 0, 2, 1, 2, 2, 1, 2, 0, 2, 0, 1 };
  static const double line[] = { 0, 0, 1, 0, 2, 0, 3, 0 };
  static const double spike[] = { 0, 0, 2, 0, 2, 1, 3, 1, 2, 1, 2, 2, 0, 2 };
  static const double keyhole[] = { 0, 0, 4, 0, 4, 4, 0, 4, 0, 0, 1, 1, 1, 3, 3, 3, 3, 1,
                                    1, 1 };
  static const double bowtie[] = { 0, 0, 2, 2, 2, 0, 0, 2 };
  static const double same[] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 };
  /* A zig-zag crown around the Y axis: far from planar. */
  float crown[3 * 12];
  static const float quads[] = { 0, 0, 0, 1, 0, 0, 1, 1, 1, 0, 1, 0,
                                 NAN, 0, 0, 1, INFINITY, 0 };
  static const guint32 twisted[] = { 0, 1, 2, 3 };
  static const guint32 bad[] = { 4, 0, 5, 1, 2 };
  static const guint32 repeats[] = { 0, 1, 1, 2, 3, 3, 0 };
  g_autofree double *stairs = NULL;
  guint32 order[12], tris[3 * 10];
  guint n_tri, n_stairs;

  n_tri = km_polygon_triangulate_2d (repeated, 10, tris);
  g_assert_cmpuint (n_tri, ==, 8);
  assert_valid_indices (tris, n_tri, 10);
  assert_tiles (repeated, tris, n_tri, u_shape, 8, 1);
  check_polygon (edged, 8);
  stairs = staircase (6, &n_stairs);
  check_polygon (stairs, n_stairs);
  /* A square with a square hole, joined by a bridge there and back (an outline that
   * touches itself at (0, 0) and (1, 1)). */
  check_polygon (keyhole, G_N_ELEMENTS (keyhole) / 2);
  n_tri = km_polygon_triangulate_2d (spike, 7, tris);
  g_assert_cmpuint (n_tri, ==, 5);
  assert_tiles (spike, tris, n_tri, edged, 8, 1);

  g_assert_cmpuint (km_polygon_triangulate_2d (line, 4, tris), ==, 2);
  assert_valid_indices (tris, 2, 4);
  g_assert_cmpuint (km_polygon_triangulate_2d (bowtie, 4, tris), ==, 2);
  assert_valid_indices (tris, 2, 4);
  g_assert_cmpuint (km_polygon_triangulate_2d (same, 5, tris), ==, 3);
  assert_valid_indices (tris, 3, 5);

  for (guint i = 0; i < 12; i++)
    {
      crown[3 * i] = (float) cos (i * G_PI / 6);
      crown[3 * i + 1] = i % 2 == 0 ? 0.0f : 1.0f;
      crown[3 * i + 2] = (float) -sin (i * G_PI / 6);
      order[i] = i;
    }
  n_tri = km_polygon_triangulate (crown, order, 12, tris);
  g_assert_cmpuint (n_tri, ==, 10);
  assert_valid_indices (tris, n_tri, 12);
  g_assert_cmpuint (km_polygon_triangulate (quads, twisted, 4, tris), ==, 2);
  assert_valid_indices (tris, 2, 4);
  /* Not-finite coordinates: a fan. */
  g_assert_cmpuint (km_polygon_triangulate (quads, bad, 5, tris), ==, 3);
  g_assert_cmpuint (tris[0], ==, 4);
  g_assert_cmpuint (tris[8], ==, 2);
  /* Repeated indices (and the first one repeated at the end) of a square. */
  g_assert_cmpuint (km_polygon_triangulate (quads, repeats, 7, tris), ==, 5);
  assert_valid_indices (tris, 5, 4);
}

/* Ear clipping is O(n²): up to KM_POLYGON_MAX_CLIPPED points it runs (and is right), above
 * that the polygon becomes a fan in linear time. */
static void
test_huge (void)
{
  g_autofree double *teeth = NULL, *big = NULL;
  g_autofree guint32 *tris = NULL, *order = NULL;
  g_autofree float *v = NULL;
  guint n_teeth, n_big, n_tri;
  gint64 t0, t1, t2;

  teeth = comb ((KM_POLYGON_MAX_CLIPPED - 2) / 4, &n_teeth);
  g_assert_cmpuint (n_teeth, <=, KM_POLYGON_MAX_CLIPPED);
  tris = g_new (guint32, 3 * (n_teeth - 2));
  t0 = g_get_monotonic_time ();
  n_tri = km_polygon_triangulate_2d (teeth, n_teeth, tris);
  t1 = g_get_monotonic_time ();
  g_assert_cmpuint (n_tri, ==, n_teeth - 2);
  assert_tiles (teeth, tris, n_tri, teeth, n_teeth, 1);
  g_test_message ("%u-point comb clipped in %.2f ms", n_teeth, (t1 - t0) / 1000.0);
  g_clear_pointer (&tris, g_free);

  /* 10,002 points (a comb of 2,500 teeth) in 3-D. */
  big = comb (2500, &n_big);
  v = tilted (big, n_big);
  order = g_new (guint32, n_big);
  for (guint i = 0; i < n_big; i++)
    order[i] = i;
  tris = g_new (guint32, 3 * (n_big - 2));
  t1 = g_get_monotonic_time ();
  n_tri = km_polygon_triangulate (v, order, n_big, tris);
  t2 = g_get_monotonic_time ();
  g_assert_cmpuint (n_tri, ==, n_big - 2);
  assert_valid_indices (tris, n_tri, n_big);
  g_assert_cmpuint (tris[3 * (n_tri - 1)], ==, 0);
  g_test_message ("%u-point comb as a fan in %.2f ms", n_big, (t2 - t1) / 1000.0);
  /* Generous: a fan of 10,000 points takes microseconds, clipping it would take seconds. */
  g_assert_cmpint (t2 - t1, <, G_USEC_PER_SEC / 4);
}

/* A face list: faces of fewer than 3 vertices are skipped, the last face needs no -1,
 * @reverse turns every triangle round, and @max_triangles caps the total. */
static void
test_faces (void)
{
  static const float v[] = { 0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0 };
  static const double index[] = { 0, 1, 2, 3, -1, 0, -1, -1, 2, 3, -1, 3, 0, 1 };
  static const guint32 forward[] = { 0, 1, 2, 0, 2, 3, 3, 0, 1 };
  static const guint32 backward[] = { 0, 2, 1, 0, 3, 2, 3, 1, 0 };
  g_autoptr(GArray) tris = g_array_new (FALSE, FALSE, sizeof (guint32));

  km_polygon_triangulate_faces (v, index, G_N_ELEMENTS (index), FALSE, G_MAXUINT, tris);
  g_assert_cmpmem (tris->data, tris->len * sizeof (guint32), forward, sizeof forward);
  g_array_set_size (tris, 0);
  km_polygon_triangulate_faces (v, index, G_N_ELEMENTS (index), TRUE, G_MAXUINT, tris);
  g_assert_cmpmem (tris->data, tris->len * sizeof (guint32), backward, sizeof backward);
  g_array_set_size (tris, 0);
  km_polygon_triangulate_faces (v, index, G_N_ELEMENTS (index), FALSE, 2, tris);
  g_assert_cmpuint (tris->len, ==, 6);
  g_array_set_size (tris, 0);
  km_polygon_triangulate_faces (v, NULL, 0, FALSE, G_MAXUINT, tris);
  g_assert_cmpuint (tris->len, ==, 0);
}

/* 2-D coordinates @a0, @a1 of a mesh's vertices. */
static double *
mesh_plane (const KmMesh *mesh,
            int           a0,
            int           a1)
{
  const float *v = km_mesh_get_vertices (mesh);
  guint n = km_mesh_get_n_vertices (mesh);
  double *p = g_new (double, 2 * n);

  for (guint i = 0; i < n; i++)
    {
      p[2 * i] = v[3 * i + a0];
      p[2 * i + 1] = v[3 * i + a1];
    }
  return p;
}

static void
assert_normals (const KmMesh *mesh,
                double        x,
                double        y,
                double        z)
{
  const float *nrm = km_mesh_get_normals (mesh);

  for (guint i = 0; i < km_mesh_get_n_vertices (mesh); i++)
    test_util_assert_vec3 (km_vec3 (nrm[3 * i], nrm[3 * i + 1], nrm[3 * i + 2]), x, y, z, 1e-6);
}

/* A U-shaped face in an IndexedFaceSet (convex left at its default TRUE, as exporters
 * write it) tiles the U; ccw FALSE reverses the triangles (and so the normals); a convex
 * quad is still the two triangles of its fan. */
static void
test_vrml_face (void)
{
  static const char quad[] =
    "#VRML V2.0 utf8\n"
    "Shape { geometry IndexedFaceSet {\n"
    "  coord Coordinate { point [ 0 0 0, 1 0 0, 1 1 0, 0 1 0 ] }\n"
    "  coordIndex [ 0 1 2 3 ] } }\n";

  for (int pass = 0; pass < 3; pass++)
    {
      static const char *const fields[] = { "", "convex FALSE", "ccw FALSE" };
      g_autofree char *text = g_strdup_printf (
        "#VRML V2.0 utf8\n"
        "Shape { geometry IndexedFaceSet {\n"
        "  coord Coordinate { point [ 0 0 0, 3 0 0, 3 2 0, 2 2 0, 2 1 0, 1 1 0, 1 2 0, 0 2 0 ] }\n"
        "  coordIndex [ 0 1 2 3 4 5 6 7 -1 ] %s } }\n", fields[pass]);
      g_autoptr(GError) error = NULL;
      g_autoptr(GPtrArray) shapes = NULL;
      g_autofree double *flat = NULL;
      KmMesh *mesh;

      shapes = km_mesh_load_vrml ("u.wrl", text, strlen (text), NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (shapes->len, ==, 1);
      mesh = ((KmShape *) g_ptr_array_index (shapes, 0))->mesh;
      g_assert_cmpuint (km_mesh_get_n_triangles (mesh), ==, 6);
      flat = mesh_plane (mesh, 0, 1);
      assert_tiles (flat, km_mesh_get_indices (mesh), 6, u_shape, 8, pass == 2 ? -1 : 1);
      assert_normals (mesh, 0, 0, pass == 2 ? -1 : 1);
    }

  {
    g_autoptr(GError) error = NULL;
    g_autoptr(GPtrArray) shapes = km_mesh_load_vrml ("q.wrl", quad, sizeof quad - 1, NULL,
                                                     &error);
    static const guint32 fan[] = { 0, 1, 2, 0, 2, 3 };
    KmMesh *mesh;

    g_assert_no_error (error);
    mesh = ((KmShape *) g_ptr_array_index (shapes, 0))->mesh;
    g_assert_cmpuint (km_mesh_get_n_triangles (mesh), ==, 2);
    g_assert_cmpmem (km_mesh_get_indices (mesh), sizeof fan, fan, sizeof fan);
    assert_normals (mesh, 0, 0, 1);
  }
}

/* Degenerate faces through the VRML reader: a repeated vertex, collinear points and a
 * non-planar face load; a face of 10,000 vertices loads quickly (a fan). */
static void
test_vrml_degenerate (void)
{
  g_autoptr(GString) text = g_string_new ("#VRML V2.0 utf8\nShape { geometry IndexedFaceSet {\n"
                                          "  coord Coordinate { point [ ");
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) shapes = NULL;
  const guint n = 10000;
  KmMesh *mesh;
  gint64 t0;

  for (guint i = 0; i < n; i++)
    g_string_append_printf (text, "%.6f %.6f %.6f, ", cos (2 * G_PI * i / n) * (i % 2 ? 1 : 0.5),
                            sin (2 * G_PI * i / n) * (i % 2 ? 1 : 0.5), i % 3 == 0 ? 0.0 : 0.1);
  g_string_append (text, "] }\n  coordIndex [ 0 1 1 3 -1 0 0 0 0 -1 1 3 5 7 -1 ");
  for (guint i = 0; i < n; i++)
    g_string_append_printf (text, "%u ", i);
  g_string_append (text, "] } }\n");
  t0 = g_get_monotonic_time ();
  shapes = km_mesh_load_vrml ("d.wrl", text->str, text->len, NULL, &error);
  g_test_message ("%u-vertex face loaded in %.1f ms", n,
                  (g_get_monotonic_time () - t0) / 1000.0);
  g_assert_no_error (error);
  mesh = ((KmShape *) g_ptr_array_index (shapes, 0))->mesh;
  g_assert_cmpuint (km_mesh_get_n_triangles (mesh), ==, 2 + 2 + 2 + n - 2);
}

/* The same in a Choreonoid body: an L-shaped face in the plane y = 0.5 (listed so that
 * its normal is −Y) and a convex quad in one IndexedFaceSet. */
static void
test_body_face (void)
{
  static const char text[] =
    "format: ChoreonoidBody\n"
    "formatVersion: 1.0\n"
    "links:\n"
    "  - name: L\n"
    "    jointType: fixed\n"
    "    elements:\n"
    "      Shape:\n"
    "        geometry:\n"
    "          type: IndexedFaceSet\n"
    "          vertices: [ 2, 0.5, 0,  2, 0.5, 1,  1, 0.5, 1,  1, 0.5, 2,  0, 0.5, 2,\n"
    "                      0, 0.5, 0,  5, 0.5, 0,  6, 0.5, 0,  6, 0.5, 1,  5, 0.5, 1 ]\n"
    "          faces: [ 0, 1, 2, 3, 4, 5, -1, 6, 7, 8, 9, -1 ]\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = km_body_load ("l.body", text, sizeof text - 1, NULL, &error);
  g_autofree double *flat = NULL;
  static const guint32 fan[] = { 6, 7, 8, 6, 8, 9 };
  KmShape * const *shapes;
  const guint32 *idx;
  const float *nrm;
  KmMesh *mesh;
  guint n = 0;

  g_assert_no_error (error);
  shapes = km_skeleton_get_shapes (skel, 0, &n);
  g_assert_cmpuint (n, ==, 1);
  mesh = shapes[0]->mesh;
  g_assert_cmpuint (km_mesh_get_n_triangles (mesh), ==, 4 + 2);
  idx = km_mesh_get_indices (mesh);
  /* In (x, z) the L runs counter-clockwise: its normal x × z is −Y. */
  flat = mesh_plane (mesh, 0, 2);
  assert_tiles (flat, idx, 4, l_shape, 6, 1);
  g_assert_cmpmem (idx + 12, sizeof fan, fan, sizeof fan);
  nrm = km_mesh_get_normals (mesh);
  for (guint i = 0; i < 10; i++)
    test_util_assert_vec3 (km_vec3 (nrm[3 * i], nrm[3 * i + 1], nrm[3 * i + 2]), 0, -1, 0,
                           1e-6);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/kinema/Polygon/convex", test_convex);
  g_test_add_func ("/kinema/Polygon/concave", test_concave);
  g_test_add_func ("/kinema/Polygon/degenerate", test_degenerate);
  g_test_add_func ("/kinema/Polygon/huge", test_huge);
  g_test_add_func ("/kinema/Polygon/faces", test_faces);
  g_test_add_func ("/kinema/Mesh/vrml-concave-face", test_vrml_face);
  g_test_add_func ("/kinema/Mesh/vrml-degenerate-faces", test_vrml_degenerate);
  g_test_add_func ("/kinema/Body/concave-face", test_body_face);
  return g_test_run ();
}
