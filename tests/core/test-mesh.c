/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "km-error.h"
#include "km-mesh-loader.h"
#include "km-openhrp.h"
#include "km-shape.h"

#include "km-test-tmp.h"
#include "test-util.h"

static char *
data_path (const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "data", "meshes", name, NULL);
}

static GPtrArray *
load (const char  *name,
      const char  *node,
      GError     **error)
{
  g_autofree char *path = data_path (name);

  return km_mesh_load_file (path, node, error);
}

static void
assert_error_at (const char *name,
                 const char *location,
                 const char *words)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) shapes = load (name, NULL, &error);
  g_autofree char *path = data_path (name);
  g_autofree char *prefix = g_strdup_printf ("%s:%s: ", path, location);

  g_assert_null (shapes);
  g_assert_error (error, KM_PARSE_ERROR, error->code);
  if (!g_str_has_prefix (error->message, prefix) || strstr (error->message, words) == NULL)
    g_error ("expected “%s…%s”, got “%s”", prefix, words, error->message);
}

static void
test_shape_basics (void)
{
  g_autoptr(KmShape) box = km_shape_new_box (km_vec3 (1, 2, 3));
  g_autoptr(KmShape) cyl = km_shape_new_cylinder (0.5, 2);
  g_autoptr(KmShape) copy = NULL;
  KmVec3 min, max;
  KmMat3 lin;
  mat4 m;

  km_shape_get_bounds (box, &min, &max);
  g_assert_cmpfloat (max.y, ==, 1.0);
  g_assert_cmpfloat (min.z, ==, -1.5);
  km_shape_get_bounds (cyl, &min, &max);
  g_assert_cmpfloat (max.y, ==, 1.0);      /* along +Y */
  g_assert_cmpfloat (max.x, ==, 0.5);

  /* A rotation about Z by 90° times diag (2, 3, 4) is represented exactly. */
  lin = (KmMat3) { { { 0, -3, 0 }, { 2, 0, 0 }, { 0, 0, 4 } } };
  g_assert_true (km_shape_set_affine (box, &lin, km_vec3 (1, 0, 0)));
  g_assert_cmpfloat_with_epsilon (box->scale.x, 2, 1e-12);
  g_assert_cmpfloat_with_epsilon (box->scale.y, 3, 1e-12);
  g_assert_cmpfloat_with_epsilon (box->scale.z, 4, 1e-12);
  g_assert_cmpfloat_with_epsilon (box->transform.rot.m[1][0], 1, 1e-12);
  km_shape_get_mat4 (box, m);
  g_assert_cmpfloat_with_epsilon (m[0][1], 2, 1e-6);   /* column 0 = R e_x · 2 = (0, 2, 0) */
  g_assert_cmpfloat_with_epsilon (m[3][0], 1, 1e-6);
  /* A shear is not exact. */
  lin = (KmMat3) { { { 1, 1, 0 }, { 0, 1, 0 }, { 0, 0, 1 } } };
  g_assert_false (km_shape_set_affine (box, &lin, KM_VEC3_ZERO));

  km_shape_set_name (cyl, "c");
  copy = km_shape_copy (cyl);
  g_assert_cmpstr (copy->name, ==, "c");
  g_assert_cmpfloat (copy->height, ==, 2);
}

static void
test_mesh_checks (void)
{
  static const float v[] = { 0, 0, 0, 1, 0, 0, 0, 1, 0 };
  static const guint32 good[] = { 0, 1, 2 };
  static const guint32 bad[] = { 0, 1, 3 };
  g_autoptr(GError) error = NULL;
  g_autoptr(KmMesh) mesh = km_mesh_new (v, 3, NULL, good, 1, &error);
  KmMesh *none;
  KmColor c;

  g_assert_no_error (error);
  g_assert_cmpfloat (km_mesh_get_normals (mesh)[2], ==, 1.0f);   /* counter-clockwise: +Z */
  g_assert_false (km_mesh_get_color (mesh, &c));
  none = km_mesh_new (v, 3, NULL, bad, 1, &error);
  g_assert_null (none);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "vertex 3"));
}

/* 84 + 50 · 12 bytes: binary although the header starts with "solid". */
static void
test_stl_binary (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) shapes = load ("cube-binary.stl", NULL, &error);
  KmShape *s;
  KmVec3 min, max;

  g_assert_no_error (error);
  g_assert_cmpuint (shapes->len, ==, 1);
  s = g_ptr_array_index (shapes, 0);
  g_assert_cmpint (s->type, ==, KM_SHAPE_MESH);
  g_assert_cmpuint (km_mesh_get_n_triangles (s->mesh), ==, 12);
  g_assert_cmpuint (km_mesh_get_n_vertices (s->mesh), ==, 36);
  km_mesh_get_bounds (s->mesh, &min, &max);
  g_assert_cmpfloat (min.x, ==, -0.5);
  g_assert_cmpfloat (max.z, ==, 0.5);
}

/* A binary STL padded after its last triangle, as some exporters write it: the counted
 * triangles load, with a warning about the bytes after them. */
static void
test_stl_binary_padded (void)
{
  g_autofree char *path = data_path ("cube-binary.stl");
  g_autofree char *data = NULL;
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) shapes = NULL;
  g_autoptr(GError) error = NULL;
  gsize length;
  char *padded;

  g_assert_true (g_file_get_contents (path, &data, &length, NULL));
  g_assert_cmpuint (length, ==, 84 + 50 * 12);
  padded = g_malloc0 (length + 7);
  memcpy (padded, data, length);
  test_util_push_warnings (warnings);
  shapes = km_mesh_load_stl ("padded.stl", padded, length + 7, &error);
  test_util_pop_warnings (warnings);
  g_free (padded);
  g_assert_no_error (error);
  g_assert_cmpuint (shapes->len, ==, 1);
  g_assert_cmpuint (km_mesh_get_n_triangles (((KmShape *) g_ptr_array_index (shapes, 0))->mesh), ==, 12);
  g_assert_cmpuint (warnings->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (warnings, 0),
                            "padded.stl: 7 bytes after the last of the 12 triangles"));
}

static void
test_stl_ascii (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) shapes = load ("tetra-ascii.stl", NULL, &error);
  KmShape *s;
  KmVec3 min, max;

  g_assert_no_error (error);
  g_assert_cmpuint (shapes->len, ==, 1);
  s = g_ptr_array_index (shapes, 0);
  g_assert_cmpuint (km_mesh_get_n_triangles (s->mesh), ==, 4);
  km_mesh_get_bounds (s->mesh, &min, &max);
  g_assert_cmpfloat (max.z, ==, 2.5);

  /* "zero" on line 5, column 16. */
  assert_error_at ("bad-ascii.stl", "5:16", "expected a finite number");
}

static void
test_obj (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) shapes = load ("two-colours.obj", NULL, &error);
  KmShape *red, *green;

  g_assert_no_error (error);
  g_assert_cmpuint (shapes->len, ==, 2);
  red = g_ptr_array_index (shapes, 0);
  green = g_ptr_array_index (shapes, 1);
  /* red: the quad as two triangles plus the face with negative indices. */
  g_assert_cmpuint (km_mesh_get_n_triangles (red->mesh), ==, 3);
  g_assert_cmpfloat (red->color.r, ==, 1.0f);
  g_assert_cmpfloat (red->color.g, ==, 0.0f);
  g_assert_cmpuint (km_mesh_get_n_triangles (green->mesh), ==, 1);
  g_assert_cmpfloat (green->color.g, ==, 1.0f);
  g_assert_cmpfloat (green->color.a, ==, 0.5f);
}

static void
test_obj_errors (void)
{
  static const char text[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 1 2 9\n";
  static const char text2[] = "v 0 0 0\nv 1 x 0\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) shapes = km_mesh_load_obj ("m.obj", text, sizeof text - 1, &error);

  g_assert_null (shapes);
  g_assert_cmpstr (error->message, ==, "m.obj:5:7: expected a vertex index between 1 and 3");
  g_clear_error (&error);
  shapes = km_mesh_load_obj ("m.obj", text2, sizeof text2 - 1, &error);
  g_assert_null (shapes);
  g_assert_cmpstr (error->message, ==, "m.obj:2:5: expected a finite number");
  g_clear_error (&error);
  /* A number too small for a double is a finite one (a subnormal or zero); one too large
   * is not. */
  {
    static const char tiny[] = "v 0 0 0\nv 1 1e-310 0\nv 0 1 -1e-400\nf 1 2 3\n";
    static const char huge[] = "v 0 0 0\nv 1 -1e309 0\n";
    g_autoptr(GPtrArray) loaded = km_mesh_load_obj ("m.obj", tiny, sizeof tiny - 1, &error);

    g_assert_no_error (error);
    g_assert_cmpuint (loaded->len, ==, 1);
    shapes = km_mesh_load_obj ("m.obj", huge, sizeof huge - 1, &error);
    g_assert_null (shapes);
    g_assert_cmpstr (error->message, ==, "m.obj:2:5: expected a finite number");
  }
}

/* Found by loading assimp's test models: a UTF-16 OBJ (box_UTF16BE.obj, a cube) read as
 * no shapes at all, and a UTF-8 byte order mark hid the first line. */
static void
test_obj_encodings (void)
{
  static const char bom[] = "\xef\xbb\xbfv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
  static const char odd[] = "\xff\xfev\0 \0""0";
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) shapes = NULL;
  KmShape *shape;
  KmVec3 min, max;

  test_util_push_warnings (warnings);
  shapes = load ("obj-utf16be.obj", NULL, &error);
  test_util_pop_warnings (warnings);
  g_assert_no_error (error);
  g_assert_cmpuint (shapes->len, ==, 1);
  shape = g_ptr_array_index (shapes, 0);
  g_assert_cmpuint (km_mesh_get_n_vertices (shape->mesh), ==, 8);
  g_assert_cmpuint (km_mesh_get_n_triangles (shape->mesh), ==, 12);
  km_mesh_get_bounds (shape->mesh, &min, &max);
  g_assert_cmpfloat (min.x, ==, -0.5);
  g_assert_cmpfloat (max.z, ==, 0.5);
  /* Its "usemtl Default" has no library. */
  g_assert_cmpuint (warnings->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (warnings, 0), "“Default” is not defined"));
  g_clear_pointer (&shapes, g_ptr_array_unref);

  shapes = km_mesh_load_obj ("m.obj", bom, sizeof bom - 1, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (shapes->len, ==, 1);
  shape = g_ptr_array_index (shapes, 0);
  g_assert_cmpuint (km_mesh_get_n_triangles (shape->mesh), ==, 1);
  g_clear_pointer (&shapes, g_ptr_array_unref);

  /* An odd number of UTF-16 bytes: located after the characters before it. */
  shapes = km_mesh_load_obj ("m.obj", odd, sizeof odd - 1, &error);
  g_assert_null (shapes);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_SYNTAX);
  g_assert_true (g_str_has_prefix (error->message,
                                   "m.obj:1:3: expected UTF-16LE text after the byte order mark"));
}

/* assimp's empty_mat.obj (from Blender): "newmtl " and "usemtl " with no name are the
 * same material (Kd 0.8 0.8 0.8); it was "not defined". */
static void
test_obj_empty_material_name (void)
{
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) shapes = NULL;
  KmShape *shape;
  KmColor color;

  test_util_push_warnings (warnings);
  shapes = load ("empty_mat.obj", NULL, &error);
  test_util_pop_warnings (warnings);
  g_assert_no_error (error);
  test_util_assert_no_warnings (warnings);
  g_assert_cmpuint (shapes->len, ==, 1);
  shape = g_ptr_array_index (shapes, 0);
  g_assert_cmpuint (km_mesh_get_n_triangles (shape->mesh), ==, 256);
  g_assert_true (km_mesh_get_color (shape->mesh, &color));
  g_assert_cmpfloat_with_epsilon (color.r, 0.8, 1e-6);
  g_assert_cmpfloat_with_epsilon (color.b, 0.8, 1e-6);
  g_assert_cmpfloat (color.a, ==, 1);
}

/* A zipped COLLADA file (.zae, as in assimp's test models) is refused as such. */
static void
test_zipped (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) shapes = load ("collada-cube.zae", NULL, &error);
  g_autofree char *path = data_path ("collada-cube.zae");
  g_autofree char *expected = g_strconcat (path, ": zipped files (such as COLLADA .zae) are "
                                           "not read", NULL);

  g_assert_null (shapes);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_UNKNOWN);
  g_assert_true (g_str_has_prefix (error->message, expected));
}

static void
test_vrml (void)
{
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) shapes = NULL;
  KmShape *box, *box2, *tri, *cyl, *sphere;
  KmVec3 p;

  test_util_push_warnings (warnings);
  shapes = load ("scene.wrl", NULL, &error);
  test_util_pop_warnings (warnings);
  g_assert_no_error (error);
  /* Box, USEd box, face set, cylinder (under ROOT), then the lone sphere. */
  g_assert_cmpuint (shapes->len, ==, 5);
  box = g_ptr_array_index (shapes, 0);
  box2 = g_ptr_array_index (shapes, 1);
  tri = g_ptr_array_index (shapes, 2);
  cyl = g_ptr_array_index (shapes, 3);
  sphere = g_ptr_array_index (shapes, 4);

  g_assert_cmpint (box->type, ==, KM_SHAPE_BOX);
  g_assert_cmpfloat_with_epsilon (box->size.z, 0.3, 1e-12);
  g_assert_cmpfloat (box->color.r, ==, 1.0f);
  g_assert_cmpfloat (box->color.a, ==, 0.75f);
  g_assert_cmpfloat_with_epsilon (box->transform.pos.x, 1, 1e-12);
  g_assert_cmpfloat_with_epsilon (box->transform.pos.z, 3, 1e-12);
  /* The inner Transform: (0, 0, 1) under the 90° turn about Z stays (1, 2, 4); scale 2. */
  g_assert_cmpfloat_with_epsilon (box2->transform.pos.z, 4, 1e-12);
  g_assert_cmpfloat_with_epsilon (box2->scale.x, 2, 1e-9);
  /* x of the box frame maps to world +Y (rotation about Z by 90°). */
  p = km_mat3_mul_vec3 (&box2->transform.rot, km_vec3 (1, 0, 0));
  g_assert_cmpfloat_with_epsilon (p.y, 1, 1e-6);

  g_assert_cmpint (tri->type, ==, KM_SHAPE_MESH);
  /* A quad (two triangles) and a clockwise-listed triangle without a closing -1. */
  g_assert_cmpuint (km_mesh_get_n_triangles (tri->mesh), ==, 3);
  g_assert_cmpuint (km_mesh_get_n_vertices (tri->mesh), ==, 4);

  g_assert_cmpint (cyl->type, ==, KM_SHAPE_CYLINDER);
  g_assert_cmpfloat (cyl->radius, ==, 0.5);
  g_assert_cmpfloat (cyl->height, ==, 2);
  g_assert_cmpint (sphere->type, ==, KM_SHAPE_SPHERE);
  g_assert_cmpfloat_with_epsilon (sphere->radius, 0.7, 1e-12);

  /* The PointLight is skipped with one warning. */
  g_assert_cmpuint (warnings->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (warnings, 0), "PointLight"));
  g_assert_nonnull (strstr (g_ptr_array_index (warnings, 0), "scene.wrl:23:5: "));

  /* One DEF node alone, in its own frame. */
  g_clear_pointer (&shapes, g_ptr_array_unref);
  shapes = load ("scene.wrl", "TRI", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (shapes->len, ==, 1);   /* a geometry node alone is a shape too */
  g_clear_pointer (&shapes, g_ptr_array_unref);
  shapes = load ("scene.wrl", "NOPE", &error);
  g_assert_null (shapes);
  g_assert_nonnull (strstr (error->message, "“NOPE”"));
  g_clear_error (&error);
  shapes = load ("scene.wrl", "BOX_SHAPE", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (shapes->len, ==, 1);
  g_assert_cmpfloat (((KmShape *) g_ptr_array_index (shapes, 0))->transform.pos.x, ==, 0);
}

static void
test_vrml_errors (void)
{
  assert_error_at ("bad-index.wrl", "5:16", "coordIndex value 7");
  assert_error_at ("bad-syntax.wrl", "4:39", "expected a field name");
}

/* Numbers as VRML writes them: a hexadecimal float (which g_ascii_strtod reads) fails where
 * it stands, and so does a hexadecimal integer in a float field; in an integer field
 * (SFInt32, MFInt32) one is VRML's. */
static void
test_vrml_numbers (void)
{
  static const struct
  {
    const char *text;
    const char *error;   /* NULL: loads */
  } cases[] = {
    { "Shape { geometry Box { size 1 0x1p1 1 } }", "n.wrl:1:31: expected a finite number" },
    { "Transform { translation 0 0 -0x1.8p+1 children [ ] }",
      "n.wrl:1:29: expected a finite number" },
    { "Shape { geometry Sphere { radius 0x2 } }", "n.wrl:1:34: expected a finite number" },
    { "Shape { geometry Box { size 1 1e 1 } }", "n.wrl:1:31: expected a finite number" },
    /* Too small for a double: a subnormal or zero, finite (strtod's ERANGE is no error);
     * too large: not finite. */
    { "Transform { translation 1e-310 -4.9e-324 1e-400\n"
      "  children [ Shape { geometry Box { size 1 2.2250738585072014e-308 1 } } ] }", NULL },
    { "Transform { translation 0 0 1e309 children [ ] }", "n.wrl:1:29: expected a finite number" },
    { "Shape { geometry Box { size 1 1. .5 } }", NULL },
    { "Shape { geometry Box { size +1 1E-1 1e+1 } }", NULL },
    { "Switch { whichChoice 0x0 choice [ Shape { geometry Box { } } ] }", NULL },
    { "Shape { geometry IndexedFaceSet { coord Coordinate { point [ 0 0 0 1 0 0 0 1 0 ] }\n"
      "  coordIndex [ 0x0 0x1 0X2 -1 ] } }", NULL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GPtrArray) shapes = km_mesh_load_vrml ("n.wrl", cases[i].text,
                                                       strlen (cases[i].text), NULL, &error);

      g_test_message ("case %u: %s", i, cases[i].text);
      if (cases[i].error == NULL)
        {
          g_assert_no_error (error);
          g_assert_cmpuint (shapes->len, ==, 1);
        }
      else
        {
          g_assert_null (shapes);
          g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_SYNTAX);
          g_assert_cmpstr (error->message, ==, cases[i].error);
        }
    }
}

/* A UTF-8 byte order mark is skipped: it was read as a node's type (the "#VRML" header
 * after it a comment), failing at the next token. Columns of the first line count from
 * after it. */
static void
test_vrml_byte_order_mark (void)
{
  static const char text[] = "\xef\xbb\xbf#VRML V2.0 utf8\n"
                             "Shape { geometry Box { size 1 2 3 } }\n";
  static const char bad[] = "\xef\xbb\xbfShape { geometry Box { size 1 x 3 } }\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) shapes = km_mesh_load_vrml ("bom.wrl", text, sizeof text - 1, NULL,
                                                   &error);

  g_assert_no_error (error);
  g_assert_cmpuint (shapes->len, ==, 1);
  g_assert_cmpint (((KmShape *) g_ptr_array_index (shapes, 0))->type, ==, KM_SHAPE_BOX);
  g_assert_cmpfloat (((KmShape *) g_ptr_array_index (shapes, 0))->size.y, ==, 2);
  g_clear_pointer (&shapes, g_ptr_array_unref);

  shapes = km_mesh_load_vrml ("bom.wrl", bad, sizeof bad - 1, NULL, &error);
  g_assert_null (shapes);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_SYNTAX);
  g_assert_cmpstr (error->message, ==, "bom.wrl:1:31: expected a finite number");
}

/* Old Mac files end lines with a lone CR, which VRML97 (and the OBJ and STL readers) take
 * as a line end as LF is: the "#VRML V2.0 utf8" header comment swallowed a whole CR-only
 * file, and lines were miscounted in messages. CRLF stays one line end. */
static void
check_cr_error (GPtrArray  *shapes,
                GError     *error,
                const char *expected)
{
  g_assert_null (shapes);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_SYNTAX);
  g_assert_cmpstr (error->message, ==, expected);
}

static void
test_vrml_cr_line_ends (void)
{
  static const char text[] = "#VRML V2.0 utf8\r# a comment\rShape { geometry Box { size 1 2 3 } }\r";
  static const struct
  {
    const char *text;
    const char *error;
  } bad[] = {
    { "#VRML V2.0 utf8\r\rShape {\r  geometry Box { size 1 x 3 } }\r",
      "cr.wrl:4:25: expected a finite number" },
    { "#VRML V2.0 utf8\r\n# crlf\r\nShape {\r geometry Box { size 1 x 3 } }\n",
      "cr.wrl:4:24: expected a finite number" },
    /* Lines counted inside a string too: "a", "b" and "c" on lines 1 to 3. */
    { "WorldInfo { info [ \"a\rb\r\nc\" ] }\rShape { geometry Box { size 1 x 3 } }",
      "cr.wrl:4:31: expected a finite number" },
  };
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) shapes = km_mesh_load_vrml ("cr.wrl", text, sizeof text - 1, NULL,
                                                   &error);

  g_assert_no_error (error);
  g_assert_cmpuint (shapes->len, ==, 1);
  g_assert_cmpint (((KmShape *) g_ptr_array_index (shapes, 0))->type, ==, KM_SHAPE_BOX);
  g_assert_cmpfloat (((KmShape *) g_ptr_array_index (shapes, 0))->size.y, ==, 2);

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) bad_error = NULL;
      g_autoptr(GPtrArray) none = NULL;

      g_test_message ("case %u", i);
      test_util_push_warnings (warnings);
      none = km_mesh_load_vrml ("cr.wrl", bad[i].text, strlen (bad[i].text), NULL, &bad_error);
      test_util_pop_warnings (warnings);
      check_cr_error (none, bad_error, bad[i].error);
    }
}

static void
test_obj_cr_line_ends (void)
{
  static const char text[] = "# a comment\rv 0 0 0\rv 1 0 0\rv 0 1 0\rf 1 2 3\r";
  static const char bad[] = "v 0 0 0\rv 1 0 0\r\nv 0 1 0\rf 1 2 3\rf 1 2 9\r";
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) shapes = km_mesh_load_obj ("cr.obj", text, sizeof text - 1, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (shapes->len, ==, 1);
  g_assert_cmpuint (km_mesh_get_n_triangles (((KmShape *) g_ptr_array_index (shapes, 0))->mesh),
                    ==, 1);
  g_clear_pointer (&shapes, g_ptr_array_unref);

  shapes = km_mesh_load_obj ("cr.obj", bad, sizeof bad - 1, &error);
  g_assert_null (shapes);
  g_assert_nonnull (error);
  g_assert_cmpstr (error->message, ==, "cr.obj:5:7: expected a vertex index between 1 and 3");
}

static void
test_stl_ascii_cr_line_ends (void)
{
  static const char text[] = "solid t\rfacet normal 0 0 1\r outer loop\r  vertex 0 0 0\r"
                             "  vertex 1 0 0\r  vertex 0 1 0\r endloop\rendfacet\rendsolid t\r";
  static const char bad[] = "solid t\rfacet normal 0 0 1\r\n outer loop\r  vertex 0 0 0\r"
                            "  vertex 1 zero 0\r  vertex 0 1 0\r endloop\rendfacet\rendsolid t\r";
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) shapes = km_mesh_load_stl ("cr.stl", text, sizeof text - 1, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (shapes->len, ==, 1);
  g_assert_cmpuint (km_mesh_get_n_triangles (((KmShape *) g_ptr_array_index (shapes, 0))->mesh),
                    ==, 1);
  g_clear_pointer (&shapes, g_ptr_array_unref);

  shapes = km_mesh_load_stl ("cr.stl", bad, sizeof bad - 1, &error);
  check_cr_error (shapes, error, "cr.stl:5:12: expected a finite number");
}

static void
test_cache (void)
{
  g_autoptr(KmMeshCache) cache = km_mesh_cache_new ();
  g_autofree char *path = data_path ("cube-binary.stl");
  g_autofree char *missing = data_path ("missing.stl");
  g_autoptr(GPtrArray) a = km_mesh_cache_load (cache, path, NULL, NULL);
  g_autoptr(GPtrArray) b = km_mesh_cache_load (cache, path, NULL, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) c = km_mesh_cache_load (cache, missing, NULL, &error);

  g_assert_nonnull (a);
  /* Loaded once: the same mesh object. */
  g_assert_true (((KmShape *) g_ptr_array_index (a, 0))->mesh ==
                 ((KmShape *) g_ptr_array_index (b, 0))->mesh);
  g_assert_null (c);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_IO);
}

static void
test_hostile (void)
{
  GString *deep = g_string_new ("");
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) shapes = NULL;
  char stl[84] = "solid";
  guint32 n = GUINT32_TO_LE (1000000000u);

  for (int i = 0; i < 200; i++)
    g_string_append (deep, "Group { children [ ");
  shapes = km_mesh_load_vrml ("deep.wrl", deep->str, deep->len, NULL, &error);
  g_assert_null (shapes);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT);
  g_clear_error (&error);
  g_string_free (deep, TRUE);

  /* A count that does not match the size: read as ASCII, which it is not. */
  memcpy (stl + 80, &n, 4);
  shapes = km_mesh_load_stl ("huge.stl", stl, sizeof stl, &error);
  g_assert_null (shapes);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_SYNTAX);
}

static void
collect_warning (const char *message,
                 gpointer    user_data)
{
  g_ptr_array_add (user_data, g_strdup (message));
}

/* A mesh (or an OBJ's material library) that is not a regular file is refused at once,
 * nothing read (rev23-cli finding 4): /dev/zero was read up to 512 MiB first, a named pipe
 * opened (with no writer, it must not block). A folder is said as before; a regular file
 * larger than the limit is refused by its size, before a byte is read (a sparse file). */
static void
test_not_regular (void)
{
  static const char * const devices[] = { "/dev/zero", "/dev/urandom", "/dev/null" };
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-mesh-fifo-XXXXXX");
  g_autofree char *fifo = g_build_filename (dir, "pipe.stl", NULL);
  g_autofree char *obj = g_build_filename (dir, "m.obj", NULL);
  g_autofree char *big = g_build_filename (dir, "big.stl", NULL);
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) shapes = NULL;
  g_autoptr(GError) error = NULL;
  int fd;

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (devices) + 1; i++)
    {
      const char *path = i < G_N_ELEMENTS (devices) ? devices[i] : fifo;

      if (!g_file_test (path, G_FILE_TEST_EXISTS))
        continue;
      shapes = km_mesh_load_file (path, NULL, &error);
      g_test_message ("%s: %s", path, error != NULL ? error->message : "(loaded)");
      g_assert_null (shapes);
      g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_IO);
      g_assert_true (g_str_has_suffix (error->message, ": not a file Kinema can read: not a "
                                       "regular file (a device, a pipe or a socket)"));
      g_clear_error (&error);
    }

  /* A material library that is a device: warned of, the mesh still read. */
  g_assert_true (g_file_set_contents (obj, "mtllib /dev/zero\nv 0 0 0\nv 1 0 0\nv 0 1 0\n"
                                      "f 1 2 3\n", -1, NULL));
  km_parse_warnings_push (collect_warning, warnings);
  shapes = km_mesh_load_file (obj, NULL, &error);
  km_parse_warnings_pop ();
  g_assert_no_error (error);
  g_assert_nonnull (shapes);
  g_assert_cmpuint (warnings->len, ==, 1);
  g_test_message ("%s", (char *) g_ptr_array_index (warnings, 0));
  g_assert_nonnull (strstr (g_ptr_array_index (warnings, 0), "/dev/zero: not a file Kinema can "
                                                             "read: not a regular file"));
  g_clear_pointer (&shapes, g_ptr_array_unref);

  shapes = km_mesh_load_file (dir, NULL, &error);
  g_assert_null (shapes);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_IO);
  g_assert_true (g_str_has_suffix (error->message, g_strerror (EISDIR)));
  g_clear_error (&error);

  fd = g_open (big, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (ftruncate (fd, (off_t) KM_MESH_MAX_FILE_SIZE + 1), ==, 0);
  close (fd);
  shapes = km_mesh_load_file (big, NULL, &error);
  g_assert_null (shapes);
  g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_LIMIT);
  g_clear_error (&error);

  g_unlink (fifo);
  g_unlink (obj);
  g_unlink (big);
  km_test_remove_tree (dir);
}

/* DESIGN.md, "Error locations": a mesh refused after it is read (a coordinate that is not
 * finite) is named as every location names a file (km_parse_shown_file()): the message
 * reads back (km_parse_read_location()) to the file's own name, colon, space, line break
 * and stray byte included. */
static void
test_escaped_file_names (void)
{
  static const char odd[] = "dir/m:e s\nh\xff.stl";
  static const char ascii[] =
    "solid x\n"
    "facet normal 0 0 1\n"
    "outer loop\n"
    "vertex 1e39 0 0\n"
    "vertex 1 0 0\n"
    "vertex 0 1 0\n"
    "endloop\n"
    "endfacet\n"
    "endsolid x\n";
  char binary[84 + 50] = { 0 };
  guint32 n = GUINT32_TO_LE (1);
  float nan_value = NAN;
  const char *data[] = { binary, ascii };
  gsize lengths[] = { sizeof binary, sizeof ascii - 1 };

  memcpy (binary + 80, &n, 4);
  memcpy (binary + 84 + 12, &nan_value, 4);
  for (guint i = 0; i < G_N_ELEMENTS (data); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GPtrArray) shapes = km_mesh_load_stl (odd, data[i], lengths[i], &error);
      g_autofree char *file = NULL;
      KmSourcePos pos;
      const char *rest;

      g_assert_null (shapes);
      g_assert_nonnull (error);
      g_test_message ("%s", error->message);
      g_assert_true (g_utf8_validate (error->message, -1, NULL));
      g_assert_null (strchr (error->message, '\n'));
      if (!km_parse_read_location (error->message, &file, &pos, &rest))
        g_error ("no location in “%s”", error->message);
      g_assert_cmpstr (file, ==, odd);
      g_assert_nonnull (strstr (rest, "not a finite number"));
    }
}

/* A scale above a rotation shears: the map is baked into a copy of the vertices, and the
 * shape's own transform is the identity. */
static void
test_vrml_shear_baked (void)
{
  static const char text[] =
    "#VRML V2.0 utf8\n"
    "Transform { scale 2 1 1 children Transform { rotation 0 0 1 0.7853981633974483\n"
    "  translation 0 0 1 children Shape { geometry IndexedFaceSet {\n"
    "    coord Coordinate { point [ 0 0 0, 1 0 0, 0 1 0 ] } coordIndex [ 0 1 2 -1 ] } } } }\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) shapes = km_mesh_load_vrml ("shear.wrl", text, sizeof text - 1, NULL,
                                                   &error);
  const KmShape *shape;
  const float *v;
  const double r = G_SQRT2 / 2;

  g_assert_no_error (error);
  g_assert_cmpuint (shapes->len, ==, 1);
  shape = g_ptr_array_index (shapes, 0);
  g_assert_cmpfloat (shape->transform.pos.z, ==, 0.0);
  g_assert_cmpfloat (shape->scale.x, ==, 1.0);
  g_assert_cmpuint (km_mesh_get_n_vertices (shape->mesh), ==, 3);
  v = km_mesh_get_vertices (shape->mesh);
  /* S(2, 1, 1) · (T(0, 0, 1) · R(z, 45°) · p) */
  g_assert_cmpfloat_with_epsilon (v[0], 0.0, 1e-6);
  g_assert_cmpfloat_with_epsilon (v[2], 1.0, 1e-6);
  g_assert_cmpfloat_with_epsilon (v[3], 2 * r, 1e-6);
  g_assert_cmpfloat_with_epsilon (v[4], r, 1e-6);
  g_assert_cmpfloat_with_epsilon (v[6], -2 * r, 1e-6);
  g_assert_cmpfloat_with_epsilon (v[7], r, 1e-6);
  g_assert_cmpfloat_with_epsilon (v[8], 1.0, 1e-6);
}

/* Files a mesh file names (an OBJ's mtllib, a VRML Inline) are named in messages as the
 * user would name them: joined to the including file's path as given, without "./" when
 * that is a bare name; and found from the working folder. */
static void
test_included_paths (void)
{
  static const char obj[] =
    "mtllib mats/bad.mtl\nmtllib mats/ok.mtl\nusemtl red\nv 0 0 0\nv 1 0 0\nv 0 1 0\n"
    "f 1 2 3\n";
  static const char bad_mtl[] = "newmtl blue\nKd 0 0 x\n";
  static const char ok_mtl[] = "newmtl red\nKd 1 0 0\n";
  static const char wrl[] =
    "#VRML V2.0 utf8\n"
    "PROTO Joint [ exposedField SFString jointType \"\" exposedField MFNode children [ ] ]\n"
    "{ Group { } }\n"
    "DEF R Joint { jointType \"fixed\" children [\n"
    "  Inline { url \"parts/missing.wrl\" }\n"
    "  Inline { url \"parts/tri.wrl\" } ] }\n";
  static const char tri[] =
    "#VRML V2.0 utf8\n"
    "Shape { geometry IndexedFaceSet {\n"
    "  coord Coordinate { point [ 0 0 0, 1 0 0, 0 1 0 ] } coordIndex [ 0 1 2 -1 ] } }\n";
  g_autofree char *cwd = g_get_current_dir ();
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-mesh-paths-XXXXXX");
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) shapes = NULL;
  g_autoptr(KmSkeleton) skel = NULL;
  KmShape * const *joint_shapes;
  const KmShape *shape;
  guint n = 0;

  g_assert_cmpint (g_chdir (dir), ==, 0);
  g_assert_cmpint (g_mkdir ("mats", 0755), ==, 0);
  g_assert_cmpint (g_mkdir ("parts", 0755), ==, 0);
  g_assert_true (g_file_set_contents ("m.obj", obj, -1, NULL));
  g_assert_true (g_file_set_contents ("mats/bad.mtl", bad_mtl, -1, NULL));
  g_assert_true (g_file_set_contents ("mats/ok.mtl", ok_mtl, -1, NULL));
  g_assert_true (g_file_set_contents ("w.wrl", wrl, -1, NULL));
  g_assert_true (g_file_set_contents ("parts/tri.wrl", tri, -1, NULL));

  test_util_push_warnings (warnings);
  shapes = km_mesh_load_file ("m.obj", NULL, &error);
  test_util_pop_warnings (warnings);
  g_assert_no_error (error);
  g_assert_cmpuint (warnings->len, ==, 1);
  g_assert_true (g_str_has_prefix (g_ptr_array_index (warnings, 0), "mats/bad.mtl:2:8: "));
  g_assert_cmpuint (shapes->len, ==, 1);
  shape = g_ptr_array_index (shapes, 0);
  g_assert_cmpfloat (shape->color.r, ==, 1.0f);
  g_assert_cmpfloat (shape->color.g, ==, 0.0f);
  g_clear_pointer (&shapes, g_ptr_array_unref);

  /* Inline is followed in a model (OpenHRP). */
  g_ptr_array_set_size (warnings, 0);
  test_util_push_warnings (warnings);
  skel = km_openhrp_load ("w.wrl", wrl, sizeof wrl - 1, &error);
  test_util_pop_warnings (warnings);
  g_assert_cmpint (g_chdir (cwd), ==, 0);
  g_assert_no_error (error);
  g_assert_cmpuint (warnings->len, ==, 1);
  if (!g_str_has_prefix (g_ptr_array_index (warnings, 0),
                         "w.wrl:5:16: Inline mesh is left out: parts/missing.wrl: "))
    g_error ("got “%s”", (char *) g_ptr_array_index (warnings, 0));
  joint_shapes = km_skeleton_get_shapes (skel, 0, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpuint (km_mesh_get_n_triangles (joint_shapes[0]->mesh), ==, 1);
}

/* @text in @encoding, after its byte order mark. */
static GBytes *
encode (const char *text,
        const char *encoding)
{
  gsize length = 0;
  g_autofree char *converted = g_convert (text, -1, encoding, "UTF-8", NULL, &length, NULL);
  GByteArray *bytes = g_byte_array_new ();

  g_assert_nonnull (converted);
  if (g_str_equal (encoding, "UTF-16LE"))
    g_byte_array_append (bytes, (const guint8 *) "\xff\xfe", 2);
  else if (g_str_equal (encoding, "UTF-16BE"))
    g_byte_array_append (bytes, (const guint8 *) "\xfe\xff", 2);
  else
    g_byte_array_append (bytes, (const guint8 *) "\xef\xbb\xbf", 3);
  g_byte_array_append (bytes, (const guint8 *) converted, (guint) length);
  return g_byte_array_free_to_bytes (bytes);
}

static void
assert_same_triangle (GPtrArray *shapes)
{
  const KmShape *shape;
  KmVec3 min, max;

  g_assert_nonnull (shapes);
  g_assert_cmpuint (shapes->len, ==, 1);
  shape = g_ptr_array_index (shapes, 0);
  g_assert_cmpuint (km_mesh_get_n_triangles (shape->mesh), ==, 1);
  km_mesh_get_bounds (shape->mesh, &min, &max);
  g_assert_cmpfloat (min.x, ==, 0);
  g_assert_cmpfloat (max.x, ==, 2);
  g_assert_cmpfloat (max.y, ==, 1.5);
  g_assert_cmpfloat (max.z, ==, 0.5);
}

/* VRML with a byte order mark, UTF-8 or UTF-16 (LE or BE, as Windows exporters write):
 * recognised by its content under any name (an Inline url, a mesh uri without suffix; the
 * UTF-8 one was only under .wrl or .vrml, UTF-16 never), and read as the same mesh as the
 * UTF-8 file, with errors at the line and column of the characters. UTF-16 that does not
 * convert is refused where it goes wrong. */
static void
test_vrml_encodings (void)
{
  static const char tri[] =
    "#VRML V2.0 utf8\n"
    "# é\n"
    "Shape { geometry IndexedFaceSet {\n"
    "  coord Coordinate { point [ 0 0 0, 2 0 0.5, 0 1.5 0 ] } coordIndex [ 0 1 2 -1 ] } }\n";
  static const char bad[] = "#VRML V2.0 utf8\r\n# é\r\nShape { geometry Box { size 1 x 3 } }\r\n";
  static const char model[] =
    "#VRML V2.0 utf8\n"
    "PROTO Joint [ exposedField SFString jointType \"\" exposedField MFNode children [ ] ]\n"
    "{ Group { } }\n"
    "DEF R Joint { jointType \"fixed\" children [\n"
    "  Inline { url \"%s\" } ] }\n";
  static const char * const encodings[] = { "UTF-8", "UTF-16LE", "UTF-16BE" };
  g_autofree char *dir = km_test_make_tmp_dir ("kinema-mesh-encodings-XXXXXX");

  for (guint e = 0; e < G_N_ELEMENTS (encodings); e++)
    {
      g_autoptr(GBytes) bytes = encode (tri, encodings[e]);
      g_autoptr(GBytes) bad_bytes = encode (bad, encodings[e]);
      g_autofree char *name = g_strdup_printf ("tri-%s", encodings[e]);
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autofree char *bad_path = g_strconcat (path, "-bad", NULL);
      g_autofree char *model_text = g_strdup_printf (model, name);
      g_autofree char *model_path = g_strconcat (path, "-model.wrl", NULL);
      g_autofree char *expected = g_strdup_printf ("%s:3:31: expected a finite number",
                                                   bad_path);
      g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
      g_autoptr(GError) error = NULL;
      g_autoptr(GPtrArray) shapes = NULL;
      g_autoptr(KmSkeleton) skel = NULL;
      KmShape * const *joint_shapes;
      gsize length;
      const char *data = g_bytes_get_data (bytes, &length);
      guint n = 0;

      g_test_message ("%s", encodings[e]);
      g_assert_true (g_file_set_contents (path, data, (gssize) length, NULL));
      data = g_bytes_get_data (bad_bytes, &length);
      g_assert_true (g_file_set_contents (bad_path, data, (gssize) length, NULL));
      g_assert_true (g_file_set_contents (model_path, model_text, -1, NULL));

      /* The file alone, by name (no suffix) and as text. */
      shapes = km_mesh_load_file (path, NULL, &error);
      g_assert_no_error (error);
      assert_same_triangle (shapes);
      g_clear_pointer (&shapes, g_ptr_array_unref);
      data = g_bytes_get_data (bytes, &length);
      shapes = km_mesh_load_vrml ("t.wrl", data, length, NULL, &error);
      g_assert_no_error (error);
      assert_same_triangle (shapes);
      g_clear_pointer (&shapes, g_ptr_array_unref);

      /* Errors where they are in the characters. */
      shapes = km_mesh_load_file (bad_path, NULL, &error);
      g_assert_null (shapes);
      g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_SYNTAX);
      g_assert_cmpstr (error->message, ==, expected);
      g_clear_error (&error);

      /* Through an Inline url without suffix. */
      test_util_push_warnings (warnings);
      skel = km_openhrp_load (model_path, model_text, strlen (model_text), &error);
      test_util_pop_warnings (warnings);
      g_assert_no_error (error);
      for (guint i = 0; i < warnings->len; i++)
        g_test_message ("warning: %s", (char *) g_ptr_array_index (warnings, i));
      g_assert_cmpuint (warnings->len, ==, 0);
      joint_shapes = km_skeleton_get_shapes (skel, 0, &n);
      g_assert_cmpuint (n, ==, 1);
      g_assert_cmpuint (km_mesh_get_n_triangles (joint_shapes[0]->mesh), ==, 1);
    }

  /* UTF-16 that does not convert: a lone surrogate on line 3, an odd byte at the end. */
  {
    static const struct
    {
      const char *text;
      gsize       length;
      const char *location;
    } broken[] = {
      { "\xff\xfe#\0\n\0\n\0S\0h\0\x00\xd8" "a\0", 16, ":3:3: expected UTF-16LE text" },
      { "\xfe\xff\0#\0\r\0\n\0S\0h\xdc\x00\0a", 16, ":2:3: expected UTF-16BE text" },
      { "\xff\xfe#\0V\0R\0M\0L\0\n\0x", 15, ":2:1: expected UTF-16LE text" },
      { "\xff\xfe#\0\n\0x\0\0\0", 10, ":2:2: expected UTF-16LE text" },
    };

    for (guint i = 0; i < G_N_ELEMENTS (broken); i++)
      {
        g_autofree char *path = g_build_filename (dir, "broken", NULL);
        g_autofree char *expected = g_strconcat (path, broken[i].location, NULL);
        g_autoptr(GError) error = NULL;
        g_autoptr(GPtrArray) shapes = NULL;

        g_test_message ("broken %u", i);
        shapes = km_mesh_load_vrml (path, broken[i].text, broken[i].length, NULL, &error);
        g_assert_null (shapes);
        g_assert_error (error, KM_PARSE_ERROR, KM_PARSE_ERROR_SYNTAX);
        if (!g_str_has_prefix (error->message, expected))
          g_error ("expected “%s…”, got “%s”", expected, error->message);
      }
  }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/kinema/Shape/basics", test_shape_basics);
  g_test_add_func ("/kinema/Mesh/checks", test_mesh_checks);
  g_test_add_func ("/kinema/Mesh/stl-binary", test_stl_binary);
  g_test_add_func ("/kinema/Mesh/stl-binary-padded", test_stl_binary_padded);
  g_test_add_func ("/kinema/Mesh/stl-ascii", test_stl_ascii);
  g_test_add_func ("/kinema/Mesh/obj", test_obj);
  g_test_add_func ("/kinema/Mesh/obj-errors", test_obj_errors);
  g_test_add_func ("/kinema/Mesh/obj-encodings", test_obj_encodings);
  g_test_add_func ("/kinema/Mesh/obj-empty-material-name", test_obj_empty_material_name);
  g_test_add_func ("/kinema/Mesh/zipped", test_zipped);
  g_test_add_func ("/kinema/Mesh/vrml", test_vrml);
  g_test_add_func ("/kinema/Mesh/vrml-errors", test_vrml_errors);
  g_test_add_func ("/kinema/Mesh/vrml-numbers", test_vrml_numbers);
  g_test_add_func ("/kinema/Mesh/vrml-shear-baked", test_vrml_shear_baked);
  g_test_add_func ("/kinema/Mesh/vrml-byte-order-mark", test_vrml_byte_order_mark);
  g_test_add_func ("/kinema/Mesh/vrml-encodings", test_vrml_encodings);
  g_test_add_func ("/kinema/Mesh/vrml-cr-line-ends", test_vrml_cr_line_ends);
  g_test_add_func ("/kinema/Mesh/obj-cr-line-ends", test_obj_cr_line_ends);
  g_test_add_func ("/kinema/Mesh/stl-ascii-cr-line-ends", test_stl_ascii_cr_line_ends);
  g_test_add_func ("/kinema/Mesh/cache", test_cache);
  g_test_add_func ("/kinema/Mesh/included-paths", test_included_paths);
  g_test_add_func ("/kinema/Mesh/hostile", test_hostile);
  g_test_add_func ("/kinema/Mesh/not-regular", test_not_regular);
  g_test_add_func ("/kinema/Mesh/escaped-file-names", test_escaped_file_names);

  return g_test_run ();
}
