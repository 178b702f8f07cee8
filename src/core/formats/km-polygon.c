/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-polygon"

#include "config.h"

#include <math.h>

#include "km-polygon.h"

/* Polygons of up to this many points are clipped without a heap allocation. */
#define STACK_CORNERS 64
/* Whole rounds of fresh ear tests after a round found no ear (each O(n²)), per polygon. */
#define MAX_RECHECKS 4

typedef enum
{
  CORNER_UNKNOWN,
  CORNER_EAR,
  CORNER_NOT_EAR,
} CornerState;

/* One point of the ring that is being clipped: its projected position and its remaining
 * neighbours. */
typedef struct
{
  double  x, y;
  guint32 prev, next;
  guint8  state;
} Corner;

/* sign × twice the signed area of the corner a, b, d: positive where it turns the
 * polygon's way (convex), negative where it turns back (reflex), zero where the three
 * points are collinear or repeated. */
static double
turn (const Corner *c,
      double        sign,
      guint32       a,
      guint32       b,
      guint32       d)
{
  return sign * ((c[b].x - c[a].x) * (c[d].y - c[b].y) - (c[b].y - c[a].y) * (c[d].x - c[b].x));
}

static gboolean
same_point (const Corner *c,
            guint32       a,
            guint32       b)
{
  return c[a].x == c[b].x && c[a].y == c[b].y;
}

/* Whether point @q lies inside the triangle a, b, d (turning the polygon's way) or on
 * its edges. */
static gboolean
in_triangle (const Corner *c,
             double        sign,
             guint32       a,
             guint32       b,
             guint32       d,
             guint32       q)
{
  return turn (c, sign, a, b, q) >= 0 && turn (c, sign, b, d, q) >= 0
         && turn (c, sign, d, a, q) >= 0;
}

/* Whether the corner at @b can be cut off. A collinear or repeated corner always can (a
 * zero-area triangle: the rest covers the same region). A convex one can when no reflex
 * or collinear point of the rest lies in its triangle: such a point is what a diagonal
 * a–d would cross. Points on a or d (an outline that touches itself there) do not count. */
static CornerState
corner_state (const Corner *c,
              double        sign,
              guint32       b)
{
  guint32 a = c[b].prev, d = c[b].next;
  double t = turn (c, sign, a, b, d);
  double min_x, max_x, min_y, max_y;

  if (t == 0)
    return CORNER_EAR;
  if (!(t > 0))
    return CORNER_NOT_EAR;
  min_x = MIN (c[a].x, MIN (c[b].x, c[d].x));
  max_x = MAX (c[a].x, MAX (c[b].x, c[d].x));
  min_y = MIN (c[a].y, MIN (c[b].y, c[d].y));
  max_y = MAX (c[a].y, MAX (c[b].y, c[d].y));
  for (guint32 q = c[d].next; q != a; q = c[q].next)
    {
      if (c[q].x < min_x || c[q].x > max_x || c[q].y < min_y || c[q].y > max_y)
        continue;
      if (same_point (c, q, a) || same_point (c, q, d))
        continue;
      if (turn (c, sign, c[q].prev, q, c[q].next) > 0)
        continue;
      if (in_triangle (c, sign, a, b, d, q))
        return CORNER_NOT_EAR;
    }
  return CORNER_EAR;
}

/* The fan 0, k, k + 1 of @n points. */
static guint
fan (guint    n,
     guint32 *triangles)
{
  for (guint k = 1; k + 1 < n; k++)
    {
      triangles[3 * (k - 1)] = 0;
      triangles[3 * (k - 1) + 1] = k;
      triangles[3 * (k - 1) + 2] = k + 1;
    }
  return n - 2;
}

static void
put (guint32 *triangles,
     guint    k,
     guint32  a,
     guint32  b,
     guint32  d)
{
  triangles[3 * k] = a;
  triangles[3 * k + 1] = b;
  triangles[3 * k + 2] = d;
}

/* Ear clipping of the @n corners (positions set, n ≥ 3): writes n − 2 triangles of
 * corner numbers into @triangles. */
static guint
clip_ears (Corner  *c,
           guint    n,
           guint32 *triangles)
{
  double area2 = 0, sign;
  guint remaining = n, n_tri = 0, steps = 0, rechecks = 0;
  gboolean rechecked = FALSE;
  guint32 b = 1;

  if (n == 3 || n > KM_POLYGON_MAX_CLIPPED)
    return fan (n, triangles);
  for (guint i = 0; i < n; i++)
    {
      guint j = i + 1 < n ? i + 1 : 0;

      area2 += c[i].x * c[j].y - c[j].x * c[i].y;
      c[i].prev = i > 0 ? i - 1 : n - 1;
      c[i].next = j;
      c[i].state = CORNER_UNKNOWN;
    }
  if (!isfinite (area2))
    return fan (n, triangles);
  sign = area2 < 0 ? -1 : 1;

  /* Starting at corner 1 and moving on after each cut gives the fan 0, k, k + 1 for a
   * convex polygon. A cut changes the corners next to it only: in a simple polygon, no
   * other corner becomes an ear or stops being one (a corner's triangle that holds some
   * point holds a reflex one, and cutting an ear removes a convex point), so the other
   * corners keep what was found out about them. */
  while (remaining > 3)
    {
      if (c[b].state == CORNER_UNKNOWN)
        c[b].state = corner_state (c, sign, b);
      if (c[b].state != CORNER_EAR)
        {
          guint32 start;

          b = c[b].next;
          if (++steps < remaining)
            continue;
          /* A whole round without an ear: test every corner afresh once (a collinear
           * point cut away may have been all that blocked one). */
          if (!rechecked && rechecks < MAX_RECHECKS)
            {
              for (guint32 q = c[b].next; q != b; q = c[q].next)
                c[q].state = CORNER_UNKNOWN;
              c[b].state = CORNER_UNKNOWN;
              rechecked = TRUE;
              rechecks++;
              steps = 0;
              continue;
            }
          /* Still none (a self-crossing outline): cut the next convex corner anyway, or,
           * without one, finish with a fan. */
          start = b;
          while (!(turn (c, sign, c[b].prev, b, c[b].next) > 0))
            {
              b = c[b].next;
              if (b == start)
                {
                  for (guint32 q = c[b].next; c[q].next != b; q = c[q].next)
                    put (triangles, n_tri++, b, q, c[q].next);
                  return n_tri;
                }
            }
        }
      put (triangles, n_tri++, c[b].prev, b, c[b].next);
      c[c[b].prev].next = c[b].next;
      c[c[b].next].prev = c[b].prev;
      c[c[b].prev].state = CORNER_UNKNOWN;
      c[c[b].next].state = CORNER_UNKNOWN;
      b = c[b].next;
      remaining--;
      steps = 0;
      rechecked = FALSE;
    }
  /* The last triangle, rotated to start at its lowest corner (the fan's 0, n − 2, n − 1). */
  {
    guint32 a = c[b].prev, d = c[b].next;

    if (a < b && a < d)
      put (triangles, n_tri++, a, b, d);
    else if (b < d)
      put (triangles, n_tri++, b, d, a);
    else
      put (triangles, n_tri++, d, a, b);
  }
  return n_tri;
}

/**
 * km_polygon_triangulate_2d:
 * @points: @n_points x, y pairs, a polygon (not closed by a repeated point)
 * @n_points: the number of points
 * @triangles: (out caller-allocates): room for 3 × (@n_points − 2) indices
 *
 * Triangulates a polygon in the plane by ear clipping (km-polygon.h). The triangles
 * index @points and turn the way the polygon does (clockwise ones for a clockwise
 * polygon).
 *
 * Returns: the number of triangles written: @n_points − 2, or 0 for fewer than 3 points
 */
guint
km_polygon_triangulate_2d (const double *points,
                           guint         n_points,
                           guint32      *triangles)
{
  Corner stack[STACK_CORNERS];
  g_autofree Corner *heap = NULL;
  Corner *c;

  g_return_val_if_fail (points != NULL || n_points == 0, 0);
  g_return_val_if_fail (triangles != NULL || n_points < 3, 0);

  if (n_points < 3)
    return 0;
  if (n_points > KM_POLYGON_MAX_CLIPPED)
    return fan (n_points, triangles);
  c = n_points <= STACK_CORNERS ? stack : (heap = g_new (Corner, n_points));
  for (guint i = 0; i < n_points; i++)
    {
      c[i].x = points[2 * i];
      c[i].y = points[2 * i + 1];
    }
  return clip_ears (c, n_points, triangles);
}

/**
 * km_polygon_triangulate:
 * @vertices: x, y, z of every vertex the polygon uses
 * @polygon: (array length=n): the polygon's vertex indices into @vertices, in order
 * @n: the number of indices
 * @triangles: (out caller-allocates): room for 3 × (@n − 2) indices
 *
 * Triangulates a face of a mesh, planar or nearly so: its points are projected onto the
 * plane of its Newell normal and ear-clipped there (km-polygon.h). The triangles hold
 * vertex indices from @polygon and turn the way the polygon does, so their normals point
 * where the face's does. A face without a normal (all points collinear or repeated, or
 * not finite) becomes a fan.
 *
 * Returns: the number of triangles written: @n − 2, or 0 for fewer than 3 indices
 */
guint
km_polygon_triangulate (const float   *vertices,
                        const guint32 *polygon,
                        guint          n,
                        guint32       *triangles)
{
  Corner stack[STACK_CORNERS];
  g_autofree Corner *heap = NULL;
  Corner *c;
  double nx = 0, ny = 0, nz = 0, length, ux, uy, uz, wx, wy, wz;
  const float *o;
  guint n_tri;

  g_return_val_if_fail (vertices != NULL && polygon != NULL, 0);
  g_return_val_if_fail (triangles != NULL || n < 3, 0);

  if (n < 3)
    return 0;
  if (n == 3 || n > KM_POLYGON_MAX_CLIPPED)
    n_tri = fan (n, triangles);
  else
    {
      /* Newell's normal, from points relative to the first one (for precision). */
      o = vertices + 3 * (gsize) polygon[0];
      for (guint i = 0; i < n; i++)
        {
          const float *p = vertices + 3 * (gsize) polygon[i];
          const float *q = vertices + 3 * (gsize) polygon[i + 1 < n ? i + 1 : 0];
          double py = (double) p[1] - o[1], pz = (double) p[2] - o[2], px = (double) p[0] - o[0];
          double qy = (double) q[1] - o[1], qz = (double) q[2] - o[2], qx = (double) q[0] - o[0];

          nx += (py - qy) * (pz + qz);
          ny += (pz - qz) * (px + qx);
          nz += (px - qx) * (py + qy);
        }
      length = sqrt (nx * nx + ny * ny + nz * nz);
      if (!(length > 0) || !isfinite (length))
        n_tri = fan (n, triangles);
      else
        {
          nx /= length, ny /= length, nz /= length;
          /* u: perpendicular to the normal, away from its largest component; w = n × u,
           * so that the polygon turns counter-clockwise in (u, w). */
          if (fabs (nx) <= fabs (ny) && fabs (nx) <= fabs (nz))
            ux = 0, uy = nz, uz = -ny;
          else if (fabs (ny) <= fabs (nz))
            ux = -nz, uy = 0, uz = nx;
          else
            ux = ny, uy = -nx, uz = 0;
          length = sqrt (ux * ux + uy * uy + uz * uz);
          ux /= length, uy /= length, uz /= length;
          wx = ny * uz - nz * uy;
          wy = nz * ux - nx * uz;
          wz = nx * uy - ny * ux;
          c = n <= STACK_CORNERS ? stack : (heap = g_new (Corner, n));
          for (guint i = 0; i < n; i++)
            {
              const float *p = vertices + 3 * (gsize) polygon[i];
              double px = (double) p[0] - o[0], py = (double) p[1] - o[1];
              double pz = (double) p[2] - o[2];

              c[i].x = px * ux + py * uy + pz * uz;
              c[i].y = px * wx + py * wy + pz * wz;
            }
          n_tri = clip_ears (c, n, triangles);
        }
    }
  for (guint k = 0; k < 3 * n_tri; k++)
    triangles[k] = polygon[triangles[k]];
  return n_tri;
}

/**
 * km_polygon_triangulate_faces:
 * @vertices: x, y, z of every vertex the faces use
 * @index: (array length=n_index): a face list: vertex indices, each face ended by -1 (the
 *   last one may end with the list); the caller has checked every value
 * @n_index: the length of @index
 * @reverse: whether to reverse every triangle (VRML's `ccw FALSE`)
 * @max_triangles: stop adding triangles once @triangles holds this many
 * @triangles: a GArray of guint32 that the triangles' vertex indices are appended to
 *
 * Triangulates every face of at least 3 vertices with km_polygon_triangulate; shorter
 * faces are skipped.
 */
void
km_polygon_triangulate_faces (const float  *vertices,
                              const double *index,
                              guint         n_index,
                              gboolean      reverse,
                              guint         max_triangles,
                              GArray       *triangles)
{
  g_autofree guint32 *polygon = NULL;
  guint start = 0, room = 0;

  g_return_if_fail (vertices != NULL && (index != NULL || n_index == 0));
  g_return_if_fail (triangles != NULL
                    && g_array_get_element_size (triangles) == sizeof (guint32));

  for (guint i = 0; i <= n_index; i++)
    {
      guint n = i - start, n_tri;
      guint32 *tri;

      if (i < n_index && index[i] != -1)
        continue;
      if (n >= 3)
        {
          /* The face's n indices, then room for its 3 × (n − 2) triangle indices. */
          if (n > room)
            {
              room = MAX (n, MIN (2 * (gsize) room, n_index));
              g_free (polygon);
              polygon = g_new (guint32, 4 * (gsize) room);
            }
          for (guint k = 0; k < n; k++)
            polygon[k] = (guint32) index[start + k];
          tri = polygon + n;
          n_tri = km_polygon_triangulate (vertices, polygon, n, tri);
          for (guint k = 0; k < n_tri && triangles->len / 3 < max_triangles; k++)
            {
              guint32 *t = tri + 3 * k;

              g_array_append_vals (triangles, ((guint32[]) { t[0], reverse ? t[2] : t[1],
                                                             reverse ? t[1] : t[2] }), 3);
            }
        }
      start = i + 1;
    }
}
