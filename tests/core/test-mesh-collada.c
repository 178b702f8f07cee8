/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gstdio.h>

#include "km-mesh-loader.h"
#include "km-shape.h"
#include "km-skeleton.h"
#include "km-urdf.h"

#include "test-util.h"
#include "km-test-tmp.h"

static gboolean
has_warning (GPtrArray  *warnings,
             const char *prefix,
             const char *words)
{
  for (guint i = 0; i < warnings->len; i++)
    {
      const char *w = g_ptr_array_index (warnings, i);

      if (g_str_has_prefix (w, prefix) && strstr (w, words) != NULL)
        return TRUE;
    }
  return FALSE;
}

static char *
data_path (const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "data", "meshes", name, NULL);
}

static GPtrArray *
load (const char  *name,
      GPtrArray   *warnings,
      GError     **error)
{
  g_autofree char *path = data_path (name);
  GPtrArray *shapes;

  test_util_push_warnings (warnings);
  shapes = km_mesh_load_file (path, NULL, error);
  test_util_pop_warnings (warnings);
  return shapes;
}

static KmVec3
shape_point (const KmShape *shape,
             guint          vertex)
{
  const float *v = km_mesh_get_vertices (shape->mesh) + 3 * vertex;
  KmVec3 local = km_vec3 (v[0] * shape->scale.x, v[1] * shape->scale.y,
                          v[2] * shape->scale.z);

  return km_transform_apply (&shape->transform, local);
}

/* Bounds of all shapes' vertices in the file's frame. */
static void
world_bounds (GPtrArray *shapes,
              KmVec3    *min,
              KmVec3    *max)
{
  *min = km_vec3 (INFINITY, INFINITY, INFINITY);
  *max = km_vec3 (-INFINITY, -INFINITY, -INFINITY);
  for (guint i = 0; i < shapes->len; i++)
    {
      const KmShape *s = g_ptr_array_index (shapes, i);

      for (guint k = 0; k < km_mesh_get_n_vertices (s->mesh); k++)
        {
          KmVec3 q = shape_point (s, k);

          *min = km_vec3 (MIN (min->x, q.x), MIN (min->y, q.y), MIN (min->z, q.z));
          *max = km_vec3 (MAX (max->x, q.x), MAX (max->y, q.y), MAX (max->z, q.z));
        }
    }
}

#define assert_vec3(v, x, y, z) test_util_assert_vec3 ((v), (x), (y), (z), 1e-6)

static guint
total_triangles (GPtrArray *shapes)
{
  guint n = 0;

  for (guint i = 0; i < shapes->len; i++)
    n += km_mesh_get_n_triangles (((KmShape *) g_ptr_array_index (shapes, i))->mesh);
  return n;
}

static void
assert_unit_cube (GPtrArray *shapes)
{
  KmVec3 min, max;

  g_assert_cmpuint (total_triangles (shapes), ==, 12);
  world_bounds (shapes, &min, &max);
  assert_vec3 (min, -0.5, -0.5, -0.5);
  assert_vec3 (max, 0.5, 0.5, 0.5);
}

static void
test_triangles (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) shapes = load ("collada-cube.dae", NULL, &error);
  const KmShape *s;
  const float *n;

  g_assert_no_error (error);
  g_assert_cmpuint (shapes->len, ==, 1);
  assert_unit_cube (shapes);
  s = g_ptr_array_index (shapes, 0);
  g_assert_cmpint (s->type, ==, KM_SHAPE_MESH);
  g_assert_cmpstr (s->name, ==, "cube-node");
  /* Six faces of four corners, each with the face's own normal. */
  g_assert_cmpuint (km_mesh_get_n_vertices (s->mesh), ==, 24);
  n = km_mesh_get_normals (s->mesh);
  g_assert_nonnull (n);
  /* The first corner is position 0 of the bottom face, normal 0 (0, 0, −1). */
  g_assert_cmpfloat (n[0], ==, 0);
  g_assert_cmpfloat (n[1], ==, 0);
  g_assert_cmpfloat (n[2], ==, -1);
  g_assert_cmpfloat_with_epsilon (s->color.r, 0.8, 1e-6);
  g_assert_cmpfloat_with_epsilon (s->color.g, 0.1, 1e-6);
  g_assert_cmpfloat_with_epsilon (s->color.b, 0.1, 1e-6);
  g_assert_cmpfloat (s->color.a, ==, 1);
}

static void
test_polylist (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) shapes = load ("collada-cube-polylist.dae", NULL, &error);
  const KmShape *s;
  KmColor def = KM_COLOR_DEFAULT;

  g_assert_no_error (error);
  g_assert_cmpuint (shapes->len, ==, 1);
  assert_unit_cube (shapes);
  s = g_ptr_array_index (shapes, 0);
  /* No scene: the geometry in the file's frame, named after it. */
  g_assert_cmpstr (s->name, ==, "cube");
  /* No normals: corners share their positions. */
  g_assert_cmpuint (km_mesh_get_n_vertices (s->mesh), ==, 8);
  g_assert_cmpfloat (s->color.r, ==, def.r);
}

static void
test_polygons (void)
{
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) shapes = load ("collada-cube-polygons.dae", warnings, &error);
  g_autofree char *path = data_path ("collada-cube-polygons.dae");
  g_autofree char *prefix = g_strdup_printf ("%s:42:11: ", path);

  g_assert_no_error (error);
  g_assert_cmpuint (shapes->len, ==, 1);
  assert_unit_cube (shapes);
  g_assert_cmpuint (km_mesh_get_n_vertices (((KmShape *) shapes->pdata[0])->mesh), ==, 24);
  g_assert_true (has_warning (warnings, prefix, "holes"));
}

static void
test_units_up_axis (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) shapes = load ("collada-units-yup.dae", NULL, &error);
  KmVec3 min, max;

  g_assert_no_error (error);
  /* A fan and a strip of four corners: two triangles each. */
  g_assert_cmpuint (shapes->len, ==, 2);
  g_assert_cmpuint (km_mesh_get_n_triangles (((KmShape *) shapes->pdata[0])->mesh), ==, 2);
  g_assert_cmpuint (km_mesh_get_n_triangles (((KmShape *) shapes->pdata[1])->mesh), ==, 2);
  /* Millimetres to metres, translation included: x in [0, 100] + 10, y in [0, 200] + 20,
   * z in [0, 300] + 30 (mm). Y_UP does not turn the file (the ROS convention: the file's
   * axes are the link's; km-mesh-collada.c explains). */
  world_bounds (shapes, &min, &max);
  assert_vec3 (min, 0.01, 0.02, 0.03);
  assert_vec3 (max, 0.11, 0.22, 0.33);
  /* A uniform scale stays a scale; the shape transform is a proper rotation. */
  g_assert_cmpfloat_with_epsilon (((KmShape *) shapes->pdata[0])->scale.x, 0.001, 1e-12);
}

static void
test_nodes (void)
{
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) shapes = load ("collada-nodes.dae", warnings, &error);
  g_autofree char *path = data_path ("collada-nodes.dae");
  g_autofree char *prefix = g_strdup_printf ("%s:51:9: ", path);
  const KmShape *s;

  g_assert_no_error (error);
  g_assert_cmpuint (shapes->len, ==, 3);

  /* translate (1, 2, 3) · rotate 90° about Z, on (0,0,0), (1,0,0), (0,1,0). */
  s = g_ptr_array_index (shapes, 0);
  g_assert_cmpstr (s->name, ==, "translated-rotated");
  assert_vec3 (shape_point (s, 0), 1, 2, 3);
  assert_vec3 (shape_point (s, 1), 1, 3, 3);
  assert_vec3 (shape_point (s, 2), 0, 2, 3);

  /* matrix (row-major: x' = z + 5, y' = y, z' = −x) · scale 2. */
  s = g_ptr_array_index (shapes, 1);
  g_assert_cmpstr (s->name, ==, "matrix-scaled");
  assert_vec3 (shape_point (s, 0), 5, 0, 0);
  assert_vec3 (shape_point (s, 1), 5, 0, -2);
  assert_vec3 (shape_point (s, 2), 5, 2, 0);

  /* translate (0, 0, 10), then the library node's translate (1, 0, 0). */
  s = g_ptr_array_index (shapes, 2);
  g_assert_cmpstr (s->name, ==, "from-library");
  assert_vec3 (shape_point (s, 0), 1, 0, 10);
  assert_vec3 (shape_point (s, 2), 1, 1, 10);

  /* The three instances share one mesh. */
  g_assert_true (((KmShape *) shapes->pdata[0])->mesh == ((KmShape *) shapes->pdata[2])->mesh);
  g_assert_true (has_warning (warnings, prefix, "<lookat>"));
}

static void
test_materials (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) shapes = load ("collada-materials.dae", NULL, &error);
  KmColor def = KM_COLOR_DEFAULT;
  const KmShape *s;

  g_assert_no_error (error);
  /* Two instances × two triangle groups (the <lines> are not drawn). */
  g_assert_cmpuint (shapes->len, ==, 4);

  s = g_ptr_array_index (shapes, 0);
  g_assert_cmpuint (km_mesh_get_n_triangles (s->mesh), ==, 1);
  g_assert_cmpfloat (s->color.r, ==, 1);
  g_assert_cmpfloat (s->color.g, ==, 0);
  g_assert_cmpfloat (s->color.b, ==, 0);
  g_assert_cmpfloat (s->color.a, ==, 1);

  s = g_ptr_array_index (shapes, 1);
  g_assert_cmpuint (km_mesh_get_n_triangles (s->mesh), ==, 2);
  g_assert_cmpfloat (s->color.r, ==, 0);
  g_assert_cmpfloat (s->color.b, ==, 1);
  g_assert_cmpfloat_with_epsilon (s->color.a, 0.5, 1e-6);

  /* The other instance binds "first" to blue and leaves "second" unbound. */
  s = g_ptr_array_index (shapes, 2);
  g_assert_true (s->mesh == ((KmShape *) shapes->pdata[0])->mesh);
  g_assert_cmpfloat (s->color.r, ==, 0);
  g_assert_cmpfloat (s->color.b, ==, 1);
  s = g_ptr_array_index (shapes, 3);
  g_assert_cmpfloat (s->color.r, ==, def.r);
  g_assert_cmpfloat (s->color.g, ==, def.g);
  g_assert_cmpfloat (s->color.a, ==, def.a);
}

/* assimp's cube_emptyTags.dae: <library_materials/> is empty but the instance binds
 * "#Blue"; the cube loads with the default colour and a warning at the target (it was
 * refused as a whole). */
static void
test_missing_material (void)
{
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) shapes = load ("collada-empty-material.dae", warnings, &error);
  g_autofree char *path = data_path ("collada-empty-material.dae");
  g_autofree char *prefix = g_strconcat (path, ":66:72: ", NULL);
  KmColor def = KM_COLOR_DEFAULT;
  const KmShape *s;
  KmVec3 min, max;

  g_assert_no_error (error);
  g_assert_cmpuint (shapes->len, ==, 1);
  s = g_ptr_array_index (shapes, 0);
  g_assert_cmpuint (km_mesh_get_n_triangles (s->mesh), ==, 12);
  g_assert_cmpfloat (s->color.r, ==, def.r);
  g_assert_cmpfloat (s->color.g, ==, def.g);
  g_assert_cmpfloat (s->color.b, ==, def.b);
  world_bounds (shapes, &min, &max);
  g_assert_cmpfloat_with_epsilon (min.x, -50, 1e-4);
  g_assert_cmpfloat_with_epsilon (max.y, 50, 1e-4);
  g_assert_cmpuint (warnings->len, ==, 1);
  g_assert_true (has_warning (warnings, prefix, "found “#Blue”; the default colour is used"));
}

/* assimp's cube_UTF16LE.dae (a byte order mark, as XML wants for UTF-16) was refused as
 * "expected UTF-8 text". */
static void
test_utf16 (void)
{
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) shapes = load ("collada-utf16le.dae", warnings, &error);
  const KmShape *s;
  KmVec3 min, max;

  g_assert_no_error (error);
  g_assert_cmpuint (shapes->len, ==, 1);
  s = g_ptr_array_index (shapes, 0);
  g_assert_cmpuint (km_mesh_get_n_triangles (s->mesh), ==, 12);
  /* The phong diffuse colour of its material. */
  g_assert_cmpfloat_with_epsilon (s->color.r, 0.137255, 1e-6);
  g_assert_cmpfloat_with_epsilon (s->color.g, 0.403922, 1e-6);
  g_assert_cmpfloat_with_epsilon (s->color.b, 0.870588, 1e-6);
  /* <unit meter="0.01">: a 100-unit cube is 1 m. */
  world_bounds (shapes, &min, &max);
  g_assert_cmpfloat_with_epsilon (max.x - min.x, 1, 1e-4);
  test_util_assert_no_warnings (warnings);
}

/* A real file: DART's HERB WAM upper arm (3ds Max, Y_UP, textured, five inputs). */
static void
test_real_file (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) shapes = load ("collada-wam3.dae", NULL, &error);
  KmColor def = KM_COLOR_DEFAULT;
  const KmShape *s;
  KmVec3 min, max;

  g_assert_no_error (error);
  g_assert_cmpuint (shapes->len, ==, 1);
  s = g_ptr_array_index (shapes, 0);
  g_assert_cmpstr (s->name, ==, "wamUpperArmLink3");
  g_assert_cmpuint (km_mesh_get_n_triangles (s->mesh), ==, 709);
  g_assert_nonnull (km_mesh_get_normals (s->mesh));
  /* The arm runs 0.59 m along the file's +Z (as the URDF expects, Y_UP notwithstanding). */
  world_bounds (shapes, &min, &max);
  assert_vec3 (min, -0.0445, -0.0445, 0);
  assert_vec3 (max, 0.085, 0.0445, 0.59);
  /* A textured diffuse: the default colour. */
  g_assert_cmpfloat (s->color.r, ==, def.r);
  g_assert_cmpfloat (s->color.a, ==, 1);
}

/* A small valid document, with lines 1, 3, 4, 5, 6 and 8 replaceable (NULL: default). */
static char *
doc (const char *l1,
     const char *l3,
     const char *l4,
     const char *l5,
     const char *l6,
     const char *l8)
{
  return g_strconcat (
    l1 ? l1 : "<COLLADA>", "\n",
    "<library_geometries><geometry id=\"g\"><mesh>\n",
    l3 ? l3 : "<source id=\"s\"><float_array id=\"a\" count=\"9\">0 0 0 1 0 0 0 1 0"
              "</float_array>", "\n",
    l4 ? l4 : "<technique_common><accessor source=\"#a\" count=\"3\" stride=\"3\"/>"
              "</technique_common></source>", "\n",
    l5 ? l5 : "<vertices id=\"v\"><input semantic=\"POSITION\" source=\"#s\"/></vertices>", "\n",
    l6 ? l6 : "<triangles count=\"1\"><input semantic=\"VERTEX\" source=\"#v\" offset=\"0\"/>"
              "<p>0 1 2</p></triangles>", "\n",
    "</mesh></geometry></library_geometries>\n",
    l8 ? l8 : "<library_visual_scenes><visual_scene id=\"vs\"><node id=\"n\">"
              "<instance_geometry url=\"#g\"/></node></visual_scene></library_visual_scenes>",
    "\n",
    "<scene><instance_visual_scene url=\"#vs\"/></scene></COLLADA>\n", NULL);
}

static void
assert_error (char       *text,
              int         code,
              const char *prefix,
              const char *words)
{
  g_autofree char *owned = text;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) shapes = km_mesh_load_collada ("t.dae", text, strlen (text), &error);

  g_assert_null (shapes);
  g_assert_error (error, KM_PARSE_ERROR, code);
  if (!g_str_has_prefix (error->message, prefix) || strstr (error->message, words) == NULL)
    g_error ("expected “%s…%s”, got “%s”", prefix, words, error->message);
}

static void
test_errors (void)
{
  /* The template itself loads. */
  {
    g_autofree char *text = doc (NULL, NULL, NULL, NULL, NULL, NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(GPtrArray) shapes = km_mesh_load_collada ("t.dae", text, strlen (text), &error);

    g_assert_no_error (error);
    g_assert_cmpuint (shapes->len, ==, 1);
    g_assert_cmpuint (total_triangles (shapes), ==, 1);
  }

  /* An index past the end of its source: at the index. */
  assert_error (doc (NULL, NULL, NULL, NULL,
                     "<triangles count=\"1\"><input semantic=\"VERTEX\" source=\"#v\" "
                     "offset=\"0\"/><p>0 1 3</p></triangles>", NULL),
                KM_PARSE_ERROR_INVALID, "t.dae:6:78: ", "expected an index below 3");
  /* A number too small for a double (or for a float) is a finite number, a subnormal or
   * zero, in a float_array and in a node's transform; one too large is not. */
  {
    g_autofree char *text = doc (NULL,
                                 "<source id=\"s\"><float_array id=\"a\" count=\"9\">0 0 1e-310 "
                                 "1 1e-40 0 0 1 -4.9e-324</float_array>", NULL, NULL, NULL,
                                 "<library_visual_scenes><visual_scene id=\"vs\"><node id=\"n\">"
                                 "<translate>1e-310 0 1e-400</translate>"
                                 "<instance_geometry url=\"#g\"/></node></visual_scene>"
                                 "</library_visual_scenes>");
    g_autoptr(GError) error = NULL;
    g_autoptr(GPtrArray) shapes = km_mesh_load_collada ("t.dae", text, strlen (text), &error);

    g_assert_no_error (error);
    g_assert_cmpuint (total_triangles (shapes), ==, 1);
  }
  assert_error (doc (NULL,
                     "<source id=\"s\"><float_array id=\"a\" count=\"9\">0 0 0 1 1e309 0 0 1 0"
                     "</float_array>", NULL, NULL, NULL, NULL),
                KM_PARSE_ERROR_INVALID, "t.dae:3:54: ", "expected a finite number");
  /* Not a number in a float_array: at the value. */
  assert_error (doc (NULL,
                     "<source id=\"s\"><float_array id=\"a\" count=\"9\">0 0 0 1 x 0 0 1 0"
                     "</float_array>", NULL, NULL, NULL, NULL),
                KM_PARSE_ERROR_INVALID, "t.dae:3:54: ", "expected a finite number");
  /* float_array count that does not match its numbers: at the count. */
  assert_error (doc (NULL,
                     "<source id=\"s\"><float_array id=\"a\" count=\"10\">0 0 0 1 0 0 0 1 0"
                     "</float_array>", NULL, NULL, NULL, NULL),
                KM_PARSE_ERROR_INVALID, "t.dae:3:43: ", "expected 10 numbers");
  /* An accessor reaching past its array. */
  assert_error (doc (NULL, NULL,
                     "<technique_common><accessor source=\"#a\" count=\"4\" stride=\"3\"/>"
                     "</technique_common></source>", NULL, NULL, NULL),
                KM_PARSE_ERROR_INVALID, "t.dae:4:48: ", "expected an accessor within");
  /* <p> that is not whole corners (two inputs, five indices): at the <p>. */
  assert_error (doc (NULL, NULL, NULL, NULL,
                     "<triangles count=\"1\"><input semantic=\"VERTEX\" source=\"#v\" "
                     "offset=\"0\"/><input semantic=\"NORMAL\" source=\"#s\" offset=\"1\"/>"
                     "<p>0 0 1 1 2</p></triangles>", NULL),
                KM_PARSE_ERROR_INVALID, "t.dae:6:120: ", "expected a multiple of 2 indices");
  /* An input offset past the limit (a stride of that many indices per corner). */
  assert_error (doc (NULL, NULL, NULL, NULL,
                     "<triangles count=\"1\"><input semantic=\"VERTEX\" source=\"#v\" "
                     "offset=\"64\"/><p>0 1 2</p></triangles>", NULL),
                KM_PARSE_ERROR_LIMIT, "t.dae:6:67: ", "expected an input offset below 64");
  /* A triangle count that does not match <p>. */
  assert_error (doc (NULL, NULL, NULL, NULL,
                     "<triangles count=\"2\"><input semantic=\"VERTEX\" source=\"#v\" "
                     "offset=\"0\"/><p>0 1 2</p></triangles>", NULL),
                KM_PARSE_ERROR_INVALID, "t.dae:6:19: ", "expected 2 as “count”");
  /* An unknown #id: at the reference. */
  assert_error (doc (NULL, NULL, NULL, NULL, NULL,
                     "<library_visual_scenes><visual_scene id=\"vs\"><node id=\"n\">"
                     "<instance_geometry url=\"#nope\"/></node></visual_scene>"
                     "</library_visual_scenes>"),
                KM_PARSE_ERROR_INVALID, "t.dae:8:83: ", "“nope” is none");
  /* A reference into another file. */
  assert_error (doc (NULL, NULL, NULL, NULL, NULL,
                     "<library_visual_scenes><visual_scene id=\"vs\"><node id=\"n\">"
                     "<instance_geometry url=\"other.dae#g\"/></node></visual_scene>"
                     "</library_visual_scenes>"),
                KM_PARSE_ERROR_INVALID, "t.dae:8:83: ", "other files are not read");
  /* A 17th number in <matrix>: at it. */
  assert_error (doc (NULL, NULL, NULL, NULL, NULL,
                     "<library_visual_scenes><visual_scene id=\"vs\"><node id=\"n\"><matrix>"
                     "1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1 9</matrix><instance_geometry url=\"#g\"/>"
                     "</node></visual_scene></library_visual_scenes>"),
                KM_PARSE_ERROR_INVALID, "t.dae:8:99: ", "expected at most 16 numbers in <matrix>");
  /* Scales that overflow: at the instance. */
  assert_error (doc (NULL, NULL, NULL, NULL, NULL,
                     "<library_visual_scenes><visual_scene id=\"vs\"><node id=\"n\"><scale>"
                     "1e300 1 1</scale><scale>1e300 1 1</scale><instance_geometry url=\"#g\"/>"
                     "</node></visual_scene></library_visual_scenes>"),
                KM_PARSE_ERROR_INVALID, "t.dae:8:107: ", "finite");
  /* <vertices> without POSITION: at <vertices>. */
  assert_error (doc (NULL, NULL, NULL,
                     "<vertices id=\"v\"><input semantic=\"NORMAL\" source=\"#s\"/></vertices>",
                     NULL, NULL),
                KM_PARSE_ERROR_INVALID, "t.dae:5:1: ", "semantic=\"POSITION\"");
  /* An unknown up axis: at its value. */
  assert_error (doc ("<COLLADA><asset><up_axis> W_UP</up_axis></asset>",
                     NULL, NULL, NULL, NULL, NULL),
                KM_PARSE_ERROR_INVALID, "t.dae:1:27: ", "expected X_UP, Y_UP or Z_UP");
  /* A node that instances itself: bounded. */
  assert_error (doc (NULL, NULL, NULL, NULL, NULL,
                     "<library_nodes><node id=\"loop\"><instance_node url=\"#loop\"/></node>"
                     "</library_nodes><library_visual_scenes><visual_scene id=\"vs\">"
                     "<node id=\"n\"><instance_node url=\"#loop\"/></node></visual_scene>"
                     "</library_visual_scenes>"),
                KM_PARSE_ERROR_LIMIT, "t.dae:8:16: ", "nested too deeply");
  /* An internal DTD subset: refused at its first entity declaration (entities are never
   * expanded); a DOCTYPE without one is only skipped. */
  assert_error (doc ("<?xml version='1.0'?><!DOCTYPE COLLADA [ <!ENTITY a 'b'> ]>\n<COLLADA>",
                     NULL, NULL, NULL, NULL, NULL),
                KM_PARSE_ERROR_INVALID, "t.dae:1:42: ", "expected no entity declarations");
  {
    g_autofree char *text = doc ("<!DOCTYPE COLLADA SYSTEM 'c[1].dtd'><COLLADA>",
                                 NULL, NULL, NULL, NULL, NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(GPtrArray) shapes = km_mesh_load_collada ("t.dae", text, strlen (text), &error);

    g_assert_no_error (error);
    g_assert_cmpuint (total_triangles (shapes), ==, 1);
  }
  /* Not COLLADA; not well-formed. */
  assert_error (g_strdup ("<?xml version='1.0'?>\n<robot name='r'/>"),
                KM_PARSE_ERROR_INVALID, "t.dae:2:1: ", "expected <COLLADA>");
  assert_error (g_strdup ("<COLLADA>\n<asset></COLLADA>"),
                KM_PARSE_ERROR_SYNTAX, "t.dae:2:8: ", "expected “</asset>” instead of “</COLLADA>”");
  assert_error (g_strdup ("<COLLADA>\xff</COLLADA>"),
                KM_PARSE_ERROR_SYNTAX, "t.dae:1:10: ", "expected UTF-8");
}

static void
test_hostile (void)
{
  g_autoptr(GString) s = g_string_new ("<COLLADA><library_geometries><geometry id=\"g\"><mesh>"
                                       "<source id=\"s\"><float_array id=\"a\" count=\"9\">"
                                       "0 0 0 1 0 0 0 1 0</float_array><technique_common>"
                                       "<accessor source=\"#a\" count=\"3\" stride=\"3\"/>"
                                       "</technique_common></source><vertices id=\"v\">"
                                       "<input semantic=\"POSITION\" source=\"#s\"/></vertices>"
                                       "<triangles count=\"1\"><input semantic=\"VERTEX\" "
                                       "source=\"#v\" offset=\"0\"/><p>0 1 2</p></triangles>"
                                       "</mesh></geometry></library_geometries>"
                                       "<library_nodes>");
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) shapes = NULL;

  /* 2^24 instances from 24 nodes that each instance the next one twice. */
  for (int i = 0; i < 24; i++)
    g_string_append_printf (s, "<node id=\"n%d\"><instance_node url=\"#n%d\"/>"
                            "<instance_node url=\"#n%d\"/></node>", i, i + 1, i + 1);
  g_string_append (s, "<node id=\"n24\"><instance_geometry url=\"#g\"/></node></library_nodes>"
                      "<library_visual_scenes><visual_scene id=\"vs\"><node id=\"root\">"
                      "<instance_node url=\"#n0\"/></node></visual_scene>"
                      "</library_visual_scenes></COLLADA>");
  shapes = km_mesh_load_collada ("t.dae", s->str, s->len, &error);
  g_assert_null (shapes);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT);
  g_clear_error (&error);

  /* A huge stated count with no data behind it: a mismatch, not an allocation. */
  {
    g_autofree char *text = doc (NULL, "<source id=\"s\"><float_array id=\"a\" "
                                 "count=\"4000000000\">0 0 0 1 0 0 0 1 0</float_array>",
                                 "<technique_common><accessor source=\"#a\" "
                                 "count=\"1333333333\" stride=\"3\"/></technique_common>"
                                 "</source>", NULL, NULL, NULL);

    shapes = km_mesh_load_collada ("t.dae", text, strlen (text), &error);
    g_assert_null (shapes);
    g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_INVALID);
    g_assert_true (g_str_has_prefix (error->message, "t.dae:3:43: "));
    g_clear_error (&error);
  }

  /* Deep nesting. */
  g_string_assign (s, "<COLLADA>");
  for (int i = 0; i < 10000; i++)
    g_string_append (s, "<node>");
  shapes = km_mesh_load_collada ("t.dae", s->str, s->len, &error);
  g_assert_null (shapes);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT);
  g_clear_error (&error);

  /* Empty, and a document with nothing to draw. */
  shapes = km_mesh_load_collada ("t.dae", "", 0, &error);
  g_assert_null (shapes);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_SYNTAX);
  g_clear_error (&error);
  shapes = km_mesh_load_collada ("t.dae", "<COLLADA/>", 10, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (shapes->len, ==, 0);
}

static void
test_load_file (void)
{
  g_autofree char *cube = data_path ("collada-cube.dae");
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-collada-XXXXXX");
  g_autofree char *by_content = g_build_filename (dir, "cube.mesh", NULL);
  g_autofree char *by_suffix = g_build_filename (dir, "cube.DAE", NULL);
  g_autofree char *bad = g_build_filename (dir, "bad.dae", NULL);
  g_autofree char *unknown = g_build_filename (dir, "what.mesh", NULL);
  g_autofree char *data = NULL;
  g_autofree char *doctype = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) shapes = NULL;
  gsize length;

  g_assert_nonnull (dir);
  data = test_util_read_file (cube, &length);

  /* The content says COLLADA (after the XML declaration and a comment). */
  g_assert_true (g_file_set_contents (by_content, data, (gssize) length, NULL));
  shapes = km_mesh_load_file (by_content, NULL, &error);
  g_assert_no_error (error);
  assert_unit_cube (shapes);
  g_clear_pointer (&shapes, g_ptr_array_unref);

  /* A DOCTYPE first: the content does not say, the suffix does. */
  doctype = g_strconcat ("<!DOCTYPE COLLADA>\n", strstr (data, "<COLLADA"), NULL);
  g_assert_true (g_file_set_contents (by_suffix, doctype, -1, NULL));
  shapes = km_mesh_load_file (by_suffix, NULL, &error);
  g_assert_no_error (error);
  assert_unit_cube (shapes);
  g_clear_pointer (&shapes, g_ptr_array_unref);

  g_assert_true (g_file_set_contents (bad, "<robot/>", -1, NULL));
  shapes = km_mesh_load_file (bad, NULL, &error);
  g_assert_null (shapes);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, ":1:1: expected <COLLADA>"));
  g_clear_error (&error);

  g_assert_true (g_file_set_contents (unknown, "<robot/>", -1, NULL));
  shapes = km_mesh_load_file (unknown, NULL, &error);
  g_assert_null (shapes);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_UNKNOWN);
  g_assert_nonnull (strstr (error->message, "COLLADA"));
  g_clear_error (&error);

  g_unlink (by_content);
  g_unlink (by_suffix);
  g_unlink (bad);
  g_unlink (unknown);
  g_rmdir (dir);
}

static void
test_urdf (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "urdf-collada.urdf",
                                                 NULL);
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(KmSkeleton) skel = NULL;
  gsize length;
  g_autofree char *data = test_util_read_file (path, &length);
  KmShape * const *shapes;
  guint n_shapes = 0;

  test_util_push_warnings (warnings);
  skel = km_urdf_load (path, data, length, NULL, &error);
  test_util_pop_warnings (warnings);
  g_assert_no_error (error);
  test_util_assert_no_warnings (warnings);

  shapes = km_skeleton_get_shapes (skel, 0, &n_shapes);
  g_assert_cmpuint (n_shapes, ==, 1);
  g_assert_cmpint (shapes[0]->type, ==, KM_SHAPE_MESH);
  g_assert_cmpuint (km_mesh_get_n_triangles (shapes[0]->mesh), ==, 12);
  g_assert_cmpfloat_with_epsilon (shapes[0]->color.r, 0.8, 1e-6);
  g_assert_cmpfloat_with_epsilon (shapes[0]->color.g, 0.1, 1e-6);
  assert_vec3 (shapes[0]->transform.pos, 0, 0, 1);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/kinema/MeshCollada/triangles", test_triangles);
  g_test_add_func ("/kinema/MeshCollada/polylist", test_polylist);
  g_test_add_func ("/kinema/MeshCollada/polygons", test_polygons);
  g_test_add_func ("/kinema/MeshCollada/units-up-axis", test_units_up_axis);
  g_test_add_func ("/kinema/MeshCollada/nodes", test_nodes);
  g_test_add_func ("/kinema/MeshCollada/materials", test_materials);
  g_test_add_func ("/kinema/MeshCollada/missing-material", test_missing_material);
  g_test_add_func ("/kinema/MeshCollada/utf16", test_utf16);
  g_test_add_func ("/kinema/MeshCollada/real-file", test_real_file);
  g_test_add_func ("/kinema/MeshCollada/errors", test_errors);
  g_test_add_func ("/kinema/MeshCollada/hostile", test_hostile);
  g_test_add_func ("/kinema/MeshCollada/load-file", test_load_file);
  g_test_add_func ("/kinema/MeshCollada/urdf", test_urdf);

  return g_test_run ();
}
