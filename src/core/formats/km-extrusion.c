/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-extrusion"

#include "config.h"

#include <math.h>
#include <glib/gi18n-lib.h>

#include "km-error.h"
#include "km-extrusion.h"
#include "km-polygon.h"

/* The outline's distinct points: a closed outline repeats its first point. */
guint
km_extrusion_ring_size (const double *section,
                        guint         n_section)
{
  g_return_val_if_fail (section != NULL || n_section == 0, 0);

  if (n_section > 1 && section[0] == section[2 * (n_section - 1)]
      && section[1] == section[2 * (n_section - 1) + 1])
    return n_section - 1;
  return n_section;
}

/* The turn of the outline at spine point @i: identity without an orientation. */
static void
section_turn (const KmExtrusion *e,
              guint              i,
              KmMat3            *out)
{
  const double *o;
  KmVec3 axis;
  double length;

  km_mat3_identity (out);
  if (e->n_orientation == 0)
    return;
  o = e->orientation + 4 * MIN (i, e->n_orientation - 1);
  axis = km_vec3 (o[0], o[1], o[2]);
  length = km_vec3_length (axis);
  if (length > 1e-12 && isfinite (o[3]))
    km_mat3_from_axis_angle (km_vec3_scale (axis, 1 / length), o[3], out);
}

KmMesh *
km_extrusion_mesh (const KmExtrusion *e,
                   GError           **error)
{
  g_autofree KmVec3 *xs = NULL, *ys = NULL, *zs = NULL;
  g_autoptr(GArray) tris = NULL;
  g_autofree float *vertices = NULL;
  g_autofree guint32 *cap = NULL;
  const double *section, *spine, *scale;
  gboolean any_z = FALSE;
  guint ring, nc, ns, nscale, n_cap = 0;

  g_return_val_if_fail (e != NULL, NULL);
  g_return_val_if_fail (e->section != NULL && e->spine != NULL && e->scale != NULL, NULL);
  g_return_val_if_fail (e->n_spine >= 2 && e->n_scale >= 1, NULL);
  g_return_val_if_fail (e->orientation != NULL || e->n_orientation == 0, NULL);

  section = e->section, spine = e->spine, scale = e->scale;
  nc = e->n_section, ns = e->n_spine, nscale = e->n_scale;

  ring = km_extrusion_ring_size (section, nc);
  g_return_val_if_fail (ring >= 2, NULL);
  if ((guint64) ns * ring > KM_MESH_MAX_VERTICES
      || 2 * (guint64) (ns + 1) * ring > KM_MESH_MAX_TRIANGLES)
    {
      g_set_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT,
                   _("the extrusion has too many points (%u along the spine, %u around)"),
                   ns, ring);
      return NULL;
    }
  tris = g_array_new (FALSE, FALSE, sizeof (guint32));

  xs = g_new0 (KmVec3, ns);
  ys = g_new0 (KmVec3, ns);
  zs = g_new0 (KmVec3, ns);
  for (guint i = 0; i < ns; i++)
    {
      KmVec3 p = km_vec3 (spine[3 * i], spine[3 * i + 1], spine[3 * i + 2]);
      KmVec3 prev = i > 0 ? km_vec3 (spine[3 * i - 3], spine[3 * i - 2], spine[3 * i - 1]) : p;
      KmVec3 next = i + 1 < ns ? km_vec3 (spine[3 * i + 3], spine[3 * i + 4], spine[3 * i + 5])
                               : p;

      ys[i] = km_vec3_sub (next, prev);
      if (i > 0 && i + 1 < ns)
        zs[i] = km_vec3_cross (km_vec3_sub (next, p), km_vec3_sub (prev, p));
    }
  for (guint i = 0; i < ns; i++)
    {
      double ly = km_vec3_length (ys[i]), lz = km_vec3_length (zs[i]);

      ys[i] = ly > 1e-12 ? km_vec3_scale (ys[i], 1 / ly) : (i > 0 ? ys[i - 1] : km_vec3 (0, 1, 0));
      if (lz > 1e-12)
        {
          zs[i] = km_vec3_scale (zs[i], 1 / lz);
          any_z = TRUE;
        }
      else
        zs[i] = km_vec3 (0, 0, 0);
    }
  for (guint i = 0; i < ns; i++)
    {
      if (!any_z)
        {
          /* Straight spine: rotate the standard frame so that +Y runs along it. */
          KmVec3 up = km_vec3 (0, 1, 0), axis = km_vec3_cross (up, ys[i]);
          double sin_a = km_vec3_length (axis), cos_a = km_vec3_dot (up, ys[i]);
          KmVec3 z = km_vec3 (0, 0, 1);

          if (sin_a > 1e-12)
            {
              KmVec3 k = km_vec3_scale (axis, 1 / sin_a);

              /* Rodrigues: z cos + (k × z) sin + k (k · z)(1 − cos) */
              z = km_vec3_add (km_vec3_add (km_vec3_scale (z, cos_a),
                                            km_vec3_scale (km_vec3_cross (k, z), sin_a)),
                               km_vec3_scale (k, km_vec3_dot (k, z) * (1 - cos_a)));
            }
          else if (cos_a < 0)
            z = km_vec3 (0, 0, -1);
          zs[i] = z;
        }
      else if (km_vec3_length (zs[i]) == 0)
        {
          /* An end, or a straight stretch: the neighbour's plane. */
          guint j = i;

          while (j > 0 && km_vec3_length (zs[j]) == 0)
            j--;
          if (km_vec3_length (zs[j]) == 0)
            for (j = i; j + 1 < ns && km_vec3_length (zs[j]) == 0; j++)
              ;
          zs[i] = zs[j];
        }
      else if (i > 0 && km_vec3_dot (zs[i], zs[i - 1]) < 0)
        zs[i] = km_vec3_scale (zs[i], -1);
      xs[i] = km_vec3_cross (ys[i], zs[i]);
    }

  vertices = g_new (float, (gsize) ns * ring * 3);
  for (guint i = 0; i < ns; i++)
    {
      KmVec3 p = km_vec3 (spine[3 * i], spine[3 * i + 1], spine[3 * i + 2]);
      const double *sc = scale + 2 * MIN (i, nscale - 1);
      KmMat3 turn;

      section_turn (e, i, &turn);
      for (guint j = 0; j < ring; j++)
        {
          KmVec3 local = km_mat3_mul_vec3 (&turn, km_vec3 (sc[0] * section[2 * j], 0,
                                                           sc[1] * section[2 * j + 1]));
          KmVec3 v = km_vec3_add (p, km_vec3_add (km_vec3_add (km_vec3_scale (xs[i], local.x),
                                                               km_vec3_scale (ys[i], local.y)),
                                                  km_vec3_scale (zs[i], local.z)));
          float *out = vertices + ((gsize) i * ring + j) * 3;

          out[0] = (float) v.x, out[1] = (float) v.y, out[2] = (float) v.z;
        }
    }
  for (guint i = 0; i + 1 < ns; i++)
    for (guint j = 0; j + 1 < nc; j++)
      {
        guint32 a = i * ring + j, c = i * ring + (j + 1) % ring;
        guint32 quad[6] = { a, c, c + ring, a, c + ring, a + ring };

        g_array_append_vals (tris, quad, 6);
      }
  if ((e->begin_cap || e->end_cap) && ring >= 3)
    {
      cap = g_new (guint32, 3 * (ring - 2));
      n_cap = km_polygon_triangulate_2d (section, ring, cap);
    }
  for (guint k = 0; k < n_cap; k++)
    {
      const guint32 *t = cap + 3 * k;
      guint32 last = (ns - 1) * ring;

      /* The begin cap faces back along the spine, the end cap forward. */
      if (e->begin_cap)
        g_array_append_vals (tris, ((guint32[]) { t[0], t[2], t[1] }), 3);
      if (e->end_cap)
        g_array_append_vals (tris, ((guint32[]) { last + t[0], last + t[1], last + t[2] }), 3);
    }
  {
    guint nt = tris->len / 3;

    return km_mesh_new_take (g_steal_pointer (&vertices), ns * ring, NULL,
                             (guint32 *) g_array_free (g_steal_pointer (&tris), FALSE), nt, error);
  }
}
