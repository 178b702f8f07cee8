/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#define G_LOG_DOMAIN "km-renderer"

#include "config.h"

#include <math.h>
#include <string.h>
#include <epoxy/gl.h>
#include <glib/gi18n.h>

#include "km-renderer.h"

/*
 * The renderer owns every GL name the scene needs and is only ever used with its context
 * current (GtkGLArea's realize/render/unrealize). Meshes are unit shapes placed by a model
 * matrix per draw. A body's joint markers (each joint's bone and sphere) are one instanced
 * draw, however many joints it has: a model of thousands of joints drew as many meshes, one
 * call each, and stalled the view (the draw calls of a frame do not grow with the joints,
 * km_renderer_get_n_draw_calls()).
 * A marker a few pixels wide is drawn with a coarser sphere and bone than a large one
 * (MarkerDetail): a model of thousands of joints framed whole has markers of 3 pixels, and
 * 320 triangles each made the one draw take llvmpipe 0.2 s a frame, its vertex stage running
 * on the main thread (km_renderer_get_n_marker_vertices()).
 * The meshes have no triangles of no area (km_renderer_get_n_degenerate_triangles()), and
 * the programs are run once, drawing nothing, in the first frame (warm_up()): the driver's
 * code for them is compiled before a model is opened, not in its first frame.
 * Lines (grid, axes, trajectory) carry a colour per vertex; the dynamic ones are rebuilt
 * every frame into one buffer that only reallocates when it has to grow.
 */

#define SHADER_PREFIX "/io/github/kinema/Kinema/shaders/"
#define SPHERE_SLICES 16
#define SPHERE_STACKS 10
#define CYLINDER_SLICES 14
#define GRID_HALF_EXTENT 5      /* metres */
#define GRID_STEP 0.5           /* metres */
/* An uploaded KmMesh that no body has drawn for this many frames is deleted. */
#define MESH_CACHE_FRAMES 600
/* The least radius of a joint marker, as a part of the height the view shows at its
 * target (km_renderer_view_marker_radius()): about 3 pixels in a view 600 pixels high. */
#define MIN_MARKER_VIEW_FRACTION 0.005

typedef struct
{
  GLuint vao;
  GLuint vbo;
  GLuint ebo;
  GLsizei n_indices;
  GLenum index_type;
  guint n_degenerate;   /* triangles of no area (km_renderer_get_n_degenerate_triangles()) */
} Mesh;

/* The tessellations of the joint markers, coarsest first, each for markers whose radius
 * on screen is under below_px device pixels (the polygon's edge strays from the circle by
 * under half a pixel where it is chosen; the finest is the shapes' sphere). */
typedef enum
{
  MARKER_COARSE,
  MARKER_MEDIUM,
  MARKER_FINE,
  N_MARKER_DETAILS
} MarkerDetail;

static const struct
{
  guint  slices;
  guint  stacks;
  guint  bone_slices;
  double below_px;
} marker_details[N_MARKER_DETAILS] = {
  { 6, 4, 6, 3.0 },
  { 10, 6, 8, 8.0 },
  { SPHERE_SLICES, SPHERE_STACKS, CYLINDER_SLICES, INFINITY },
};

/* How large a marker shows (MarkerDetail): its radius in device pixels is radius · scale
 * (over its depth along forward from eye in a perspective view). */
typedef struct
{
  KmVec3   eye;
  KmVec3   forward;
  gboolean orthographic;
  double   scale;
} MarkerView;

/* One joint's markers (marker.vert.glsl): its bone, then its sphere. */
typedef struct
{
  float bone[12];       /* columns x·radius, y·radius, parent-to-joint, then the origin; zero
                         * for no bone */
  float sphere[4];      /* centre, radius */
  float bone_rgba[4];
  float sphere_rgba[4];
} MarkerInstance;

/* The colours of a body's markers: every joint in @joint but the three special ones. */
typedef struct
{
  const float *bone;
  const float *joint;
  const float *hover;
  const float *selected;
  const float *effector;
  int          hover_joint;          /* -1 for none */
  int          selected_joint;
  int          effector_joint;
  /* A tool point (KmRenderScene.tool_point) marked in @tool, joined to the effector joint
   * (then in @joint's colour) by a bone; NULL for none. */
  const KmVec3 *tool_point;
  const float  *tool;
} MarkerColours;

/* A KmMesh uploaded once, however many shapes and bodies share it. */
typedef struct
{
  Mesh     gl;
  KmMesh  *mesh;        /* owned reference: the key stays valid while cached */
  guint64  last_frame;
} CachedMesh;

struct _KmRenderer
{
  gboolean use_es;

  GLuint   mesh_program;
  GLint    u_model_view_proj;
  GLint    u_normal_view;
  GLint    u_color;

  GLuint   line_program;
  GLint    u_view_proj;

  GLuint   marker_program;
  GLint    u_marker_view_proj;
  GLint    u_marker_normal_view;
  GLint    u_marker_bone_vertices;

  Mesh     sphere;
  /* The joint markers, at each MarkerDetail: a bone's cylinder (marker_bone_vertices
   * vertices), then a joint's sphere, drawn once per joint from marker_instances. */
  Mesh     markers[N_MARKER_DETAILS];
  GLint    marker_bone_vertices[N_MARKER_DETAILS];
  GLint    marker_vertices[N_MARKER_DETAILS];
  GLuint   marker_instance_vbo[N_MARKER_DETAILS];
  GArray  *marker_instances[N_MARKER_DETAILS];   /* MarkerInstance */
  /* Unit primitives for shapes: ±0.5 box; cylinder and cone of radius 1 along Y over ±0.5. */
  Mesh     box;
  Mesh     shape_cylinder;
  Mesh     cone;
  GHashTable *meshes;          /* KmMesh * → CachedMesh */
  guint64  frame;
  int      blending;       /* GL_BLEND as last set while drawing shapes: 0, 1, -1 unknown */
  int      culling;        /* GL_CULL_FACE likewise */
  int      front_ccw;      /* glFrontFace likewise: 1 GL_CCW, 0 GL_CW */

  GLuint   grid_vao;
  GLuint   grid_vbo;
  GLsizei  grid_n_vertices;

  GLuint   lines_vao;
  GLuint   lines_vbo;
  gsize    lines_capacity;     /* bytes allocated in lines_vbo */
  GArray  *lines;              /* float: x y z r g b per vertex */
  guint    n_scene_floats;     /* lines[0..n) are depth-tested; the rest is the gizmo */

  gboolean warmed;             /* warm_up() has run */
  guint    n_draw_calls;       /* in the last km_renderer_render() */
  guint    n_marker_vertices;  /* likewise, the joint markers' vertices (all instances) */
};

G_DEFINE_QUARK (km-renderer-error-quark, km_renderer_error)

static GLuint
compile_shader (GLenum       type,
                const char  *name,
                gboolean     use_es,
                GError     **error)
{
  g_autoptr(GBytes) bytes = NULL;
  g_autofree char *path = g_strconcat (SHADER_PREFIX, name, NULL);
  const char *header = use_es ? "#version 300 es\nprecision highp float;\n" : "#version 330 core\n";
  const char *sources[2];
  GLint lengths[2];
  GLint status = GL_FALSE;
  GLuint shader;
  gsize size;

  bytes = g_resources_lookup_data (path, G_RESOURCE_LOOKUP_FLAGS_NONE, error);
  if (bytes == NULL)
    return 0;

  sources[0] = header;
  lengths[0] = (GLint) strlen (header);
  sources[1] = g_bytes_get_data (bytes, &size);
  lengths[1] = (GLint) size;

  shader = glCreateShader (type);
  glShaderSource (shader, 2, sources, lengths);
  glCompileShader (shader);
  glGetShaderiv (shader, GL_COMPILE_STATUS, &status);
  if (status != GL_TRUE)
    {
      char log[2048] = "";

      glGetShaderInfoLog (shader, sizeof log, NULL, log);
      g_warning ("Compiling %s failed: %s", name, log);
      g_set_error (error, KM_RENDERER_ERROR, KM_RENDERER_ERROR_SHADER,
                   /* Translators: %s is a shader file name, then the compiler's log */
                   _("Could not compile the shader %s: %s"), name, log);
      glDeleteShader (shader);
      return 0;
    }
  return shader;
}

static GLuint
link_program (const char  *vertex_name,
              const char  *fragment_name,
              gboolean     use_es,
              GError     **error)
{
  GLuint vs, fs, program;
  GLint status = GL_FALSE;

  if (!(vs = compile_shader (GL_VERTEX_SHADER, vertex_name, use_es, error)))
    return 0;
  if (!(fs = compile_shader (GL_FRAGMENT_SHADER, fragment_name, use_es, error)))
    {
      glDeleteShader (vs);
      return 0;
    }

  program = glCreateProgram ();
  glAttachShader (program, vs);
  glAttachShader (program, fs);
  glLinkProgram (program);
  glDetachShader (program, vs);
  glDetachShader (program, fs);
  glDeleteShader (vs);
  glDeleteShader (fs);

  glGetProgramiv (program, GL_LINK_STATUS, &status);
  if (status != GL_TRUE)
    {
      char log[2048] = "";

      glGetProgramInfoLog (program, sizeof log, NULL, log);
      g_warning ("Linking %s + %s failed: %s", vertex_name, fragment_name, log);
      g_set_error (error, KM_RENDERER_ERROR, KM_RENDERER_ERROR_SHADER,
                   /* Translators: %s is the linker's log */
                   _("Could not link the shader program: %s"), log);
      glDeleteProgram (program);
      return 0;
    }
  return program;
}

/* Triangles of @idx over @vertices (x y z nx ny nz) with no area: two corners at one
 * point, to rounding. */
static guint
count_degenerate (const GArray *vertices,
                  const GArray *indices)
{
  const float *v = (const float *) (gpointer) vertices->data;
  const guint16 *idx = (const guint16 *) (gpointer) indices->data;
  guint n = 0;

  for (guint t = 0; t + 2 < indices->len; t += 3)
    {
      const float *p0 = v + 6 * idx[t], *p1 = v + 6 * idx[t + 1], *p2 = v + 6 * idx[t + 2];
      KmVec3 e1 = km_vec3 (p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]);
      KmVec3 e2 = km_vec3 (p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]);

      if (km_vec3_length (km_vec3_cross (e1, e2)) < 1e-9)
        n++;
    }
  return n;
}

/* Vertices are x y z nx ny nz. */
static void
mesh_upload (Mesh          *mesh,
             const GArray  *vertices,
             const GArray  *indices)
{
  glGenVertexArrays (1, &mesh->vao);
  glGenBuffers (1, &mesh->vbo);
  glGenBuffers (1, &mesh->ebo);

  glBindVertexArray (mesh->vao);
  glBindBuffer (GL_ARRAY_BUFFER, mesh->vbo);
  glBufferData (GL_ARRAY_BUFFER, vertices->len * sizeof (float), vertices->data, GL_STATIC_DRAW);
  glBindBuffer (GL_ELEMENT_ARRAY_BUFFER, mesh->ebo);
  glBufferData (GL_ELEMENT_ARRAY_BUFFER, indices->len * sizeof (guint16), indices->data,
                GL_STATIC_DRAW);
  glEnableVertexAttribArray (0);
  glVertexAttribPointer (0, 3, GL_FLOAT, GL_FALSE, 6 * sizeof (float), (void *) 0);
  glEnableVertexAttribArray (1);
  glVertexAttribPointer (1, 3, GL_FLOAT, GL_FALSE, 6 * sizeof (float),
                         (void *) (3 * sizeof (float)));
  glBindVertexArray (0);

  mesh->n_indices = (GLsizei) indices->len;
  mesh->index_type = GL_UNSIGNED_SHORT;
  mesh->n_degenerate = count_degenerate (vertices, indices);
}

static void
mesh_clear (Mesh *mesh)
{
  if (mesh->vao)
    glDeleteVertexArrays (1, &mesh->vao);
  if (mesh->vbo)
    glDeleteBuffers (1, &mesh->vbo);
  if (mesh->ebo)
    glDeleteBuffers (1, &mesh->ebo);
  *mesh = (Mesh) { 0 };
}

static void
push6 (GArray *a,
       float   x,
       float   y,
       float   z,
       float   u,
       float   v,
       float   w)
{
  float f[6] = { x, y, z, u, v, w };

  g_array_append_vals (a, f, 6);
}

static void
push_index3 (GArray  *a,
             guint    i0,
             guint    i1,
             guint    i2)
{
  guint16 idx[3] = { (guint16) i0, (guint16) i1, (guint16) i2 };

  g_array_append_vals (a, idx, 3);
}

/* Unit sphere at the origin, appended to @v and @idx. */
static void
sphere_geometry (GArray *v,
                 GArray *idx,
                 guint   slices,
                 guint   stacks)
{
  guint base = v->len / 6;

  for (guint s = 0; s <= stacks; s++)
    {
      double phi = G_PI * s / stacks;

      for (guint l = 0; l <= slices; l++)
        {
          double theta = 2 * G_PI * l / slices;
          float x = (float) (sin (phi) * cos (theta));
          float y = (float) (sin (phi) * sin (theta));
          float z = (float) cos (phi);

          push6 (v, x, y, z, x, y, z);
        }
    }
  /* The first and last rows are all one point (a pole): of each quad of the rows next to
   * them, the triangle with two corners there has no area and is left out. */
  for (guint s = 0; s < stacks; s++)
    for (guint l = 0; l < slices; l++)
      {
        guint a = base + s * (slices + 1) + l;
        guint b = a + slices + 1;

        if (s > 0)
          push_index3 (idx, a, b, a + 1);
        if (s + 1 < stacks)
          push_index3 (idx, a + 1, b, b + 1);
      }
}

static void
build_sphere (Mesh *mesh)
{
  g_autoptr(GArray) v = g_array_new (FALSE, FALSE, sizeof (float));
  g_autoptr(GArray) idx = g_array_new (FALSE, FALSE, sizeof (guint16));

  sphere_geometry (v, idx, SPHERE_SLICES, SPHERE_STACKS);
  mesh_upload (mesh, v, idx);
}

/* Unit-radius cylinder from z = 0 to z = 1, open ends (joint spheres cover them), appended
 * to @v and @idx. */
static void
cylinder_geometry (GArray *v,
                   GArray *idx,
                   guint   slices)
{
  guint base = v->len / 6;

  for (guint l = 0; l <= slices; l++)
    {
      double theta = 2 * G_PI * l / slices;
      float x = (float) cos (theta), y = (float) sin (theta);

      push6 (v, x, y, 0.0f, x, y, 0.0f);
      push6 (v, x, y, 1.0f, x, y, 0.0f);
    }
  for (guint l = 0; l < slices; l++)
    {
      guint a = base + 2 * l;

      push_index3 (idx, a, a + 2, a + 1);
      push_index3 (idx, a + 1, a + 2, a + 3);
    }
}

/* The joint markers' mesh (a bone, then a sphere) and their per-joint attributes
 * (MarkerInstance, marker.vert.glsl), advancing once per instance. */
static void
build_markers (KmRenderer *self)
{
  static const struct { GLuint location; GLint size; gsize offset; } attributes[] = {
    { 2, 3, G_STRUCT_OFFSET (MarkerInstance, bone) },
    { 3, 3, G_STRUCT_OFFSET (MarkerInstance, bone) + 3 * sizeof (float) },
    { 4, 3, G_STRUCT_OFFSET (MarkerInstance, bone) + 6 * sizeof (float) },
    { 5, 3, G_STRUCT_OFFSET (MarkerInstance, bone) + 9 * sizeof (float) },
    { 6, 4, G_STRUCT_OFFSET (MarkerInstance, sphere) },
    { 7, 4, G_STRUCT_OFFSET (MarkerInstance, bone_rgba) },
    { 8, 4, G_STRUCT_OFFSET (MarkerInstance, sphere_rgba) },
  };

  for (guint d = 0; d < N_MARKER_DETAILS; d++)
    {
      g_autoptr(GArray) v = g_array_new (FALSE, FALSE, sizeof (float));
      g_autoptr(GArray) idx = g_array_new (FALSE, FALSE, sizeof (guint16));

      cylinder_geometry (v, idx, marker_details[d].bone_slices);
      self->marker_bone_vertices[d] = (GLint) (v->len / 6);
      sphere_geometry (v, idx, marker_details[d].slices, marker_details[d].stacks);
      self->marker_vertices[d] = (GLint) (v->len / 6);
      mesh_upload (&self->markers[d], v, idx);

      glGenBuffers (1, &self->marker_instance_vbo[d]);
      glBindVertexArray (self->markers[d].vao);
      glBindBuffer (GL_ARRAY_BUFFER, self->marker_instance_vbo[d]);
      for (guint a = 0; a < G_N_ELEMENTS (attributes); a++)
        {
          glEnableVertexAttribArray (attributes[a].location);
          glVertexAttribPointer (attributes[a].location, attributes[a].size, GL_FLOAT, GL_FALSE,
                                 sizeof (MarkerInstance), (void *) attributes[a].offset);
          glVertexAttribDivisor (attributes[a].location, 1);
        }
      glBindVertexArray (0);
    }
}

/* Unit cube of edge 1 centred on the origin, flat normals. */
static void
build_box (Mesh *mesh)
{
  g_autoptr(GArray) v = g_array_new (FALSE, FALSE, sizeof (float));
  g_autoptr(GArray) idx = g_array_new (FALSE, FALSE, sizeof (guint16));

  for (guint axis = 0; axis < 3; axis++)
    for (int sign = -1; sign <= 1; sign += 2)
      {
        guint u = (axis + 1) % 3, w = (axis + 2) % 3, base = v->len / 6;
        /* Corners in an order that is counter-clockwise seen from outside. */
        static const float corner[4][2] = { { -1, -1 }, { 1, -1 }, { 1, 1 }, { -1, 1 } };

        for (guint c = 0; c < 4; c++)
          {
            float p[3], n[3] = { 0, 0, 0 };

            p[axis] = 0.5f * sign;
            p[u] = 0.5f * corner[c][0];
            p[w] = 0.5f * corner[c][1] * sign;
            n[axis] = (float) sign;
            push6 (v, p[0], p[1], p[2], n[0], n[1], n[2]);
          }
        push_index3 (idx, base, base + 1, base + 2);
        push_index3 (idx, base, base + 2, base + 3);
      }
  mesh_upload (mesh, v, idx);
}

/* A disc of radius 1 at height y facing +Y (up) or -Y, for cylinder and cone ends. */
static void
push_disc (GArray *v,
           GArray *idx,
           float   y,
           gboolean up)
{
  guint centre = v->len / 6;
  float ny = up ? 1.0f : -1.0f;

  push6 (v, 0.0f, y, 0.0f, 0.0f, ny, 0.0f);
  for (guint l = 0; l <= CYLINDER_SLICES; l++)
    {
      double theta = 2 * G_PI * l / CYLINDER_SLICES;

      push6 (v, (float) cos (theta), y, (float) sin (theta), 0.0f, ny, 0.0f);
    }
  for (guint l = 0; l < CYLINDER_SLICES; l++)
    {
      if (up)
        push_index3 (idx, centre, centre + 2 + l, centre + 1 + l);
      else
        push_index3 (idx, centre, centre + 1 + l, centre + 2 + l);
    }
}

/* Closed cylinder (@cone FALSE) or cone of radius 1 along Y, from y = -0.5 to 0.5; the
 * cone's base is at -0.5 and its apex at 0.5. */
static void
build_shape_cylinder (Mesh     *mesh,
                      gboolean  cone)
{
  g_autoptr(GArray) v = g_array_new (FALSE, FALSE, sizeof (float));
  g_autoptr(GArray) idx = g_array_new (FALSE, FALSE, sizeof (guint16));
  /* The cone's side normal leans up by atan (radius / height) = 45° for the unit cone. */
  float ny = cone ? (float) G_SQRT2 / 2 : 0.0f;
  float nr = cone ? (float) G_SQRT2 / 2 : 1.0f;

  for (guint l = 0; l <= CYLINDER_SLICES; l++)
    {
      double theta = 2 * G_PI * l / CYLINDER_SLICES;
      float x = (float) cos (theta), z = (float) sin (theta);

      push6 (v, x, -0.5f, z, x * nr, ny, z * nr);
      if (cone)
        push6 (v, 0.0f, 0.5f, 0.0f, x * nr, ny, z * nr);
      else
        push6 (v, x, 0.5f, z, x, 0.0f, z);
    }
  for (guint l = 0; l < CYLINDER_SLICES; l++)
    {
      guint a = 2 * l;

      /* Seen from outside (+x at theta 0, growing towards +z), the bottom ring runs
       * clockwise: wind accordingly. */
      push_index3 (idx, a, a + 1, a + 2);
      /* The cone's top corners are all its apex. */
      if (!cone)
        push_index3 (idx, a + 1, a + 3, a + 2);
    }
  push_disc (v, idx, -0.5f, FALSE);
  if (!cone)
    push_disc (v, idx, 0.5f, TRUE);
  mesh_upload (mesh, v, idx);
}

static void
cached_mesh_free (gpointer data)
{
  CachedMesh *cached = data;

  mesh_clear (&cached->gl);
  km_mesh_unref (cached->mesh);
  g_free (cached);
}

static CachedMesh *
lookup_mesh (KmRenderer *self,
             KmMesh     *kmesh)
{
  CachedMesh *cached = g_hash_table_lookup (self->meshes, kmesh);
  guint n_vertices, n_triangles;
  gsize position_bytes;

  if (cached != NULL)
    {
      cached->last_frame = self->frame;
      return cached;
    }

  n_vertices = km_mesh_get_n_vertices (kmesh);
  n_triangles = km_mesh_get_n_triangles (kmesh);
  cached = g_new0 (CachedMesh, 1);
  cached->mesh = km_mesh_ref (kmesh);
  cached->last_frame = self->frame;
  g_hash_table_insert (self->meshes, kmesh, cached);
  if (n_vertices == 0 || n_triangles == 0)
    return cached;

  /* Positions, then normals, in one buffer. */
  position_bytes = (gsize) n_vertices * 3 * sizeof (float);
  glGenVertexArrays (1, &cached->gl.vao);
  glGenBuffers (1, &cached->gl.vbo);
  glGenBuffers (1, &cached->gl.ebo);
  glBindVertexArray (cached->gl.vao);
  glBindBuffer (GL_ARRAY_BUFFER, cached->gl.vbo);
  glBufferData (GL_ARRAY_BUFFER, 2 * position_bytes, NULL, GL_STATIC_DRAW);
  glBufferSubData (GL_ARRAY_BUFFER, 0, position_bytes, km_mesh_get_vertices (kmesh));
  glBufferSubData (GL_ARRAY_BUFFER, position_bytes, position_bytes, km_mesh_get_normals (kmesh));
  glBindBuffer (GL_ELEMENT_ARRAY_BUFFER, cached->gl.ebo);
  glBufferData (GL_ELEMENT_ARRAY_BUFFER, (gsize) n_triangles * 3 * sizeof (guint32),
                km_mesh_get_indices (kmesh), GL_STATIC_DRAW);
  glEnableVertexAttribArray (0);
  glVertexAttribPointer (0, 3, GL_FLOAT, GL_FALSE, 0, (void *) 0);
  glEnableVertexAttribArray (1);
  glVertexAttribPointer (1, 3, GL_FLOAT, GL_FALSE, 0, (void *) position_bytes);
  glBindVertexArray (0);
  cached->gl.n_indices = (GLsizei) MIN ((gsize) n_triangles * 3, (gsize) G_MAXINT32);
  cached->gl.index_type = GL_UNSIGNED_INT;
  return cached;
}

static gboolean
mesh_unused (gpointer key,
             gpointer value,
             gpointer user_data)
{
  const CachedMesh *cached = value;
  const KmRenderer *self = user_data;

  return self->frame - cached->last_frame > MESH_CACHE_FRAMES;
}

static void
line_vertex (GArray       *a,
             KmVec3        p,
             const float   rgb[3])
{
  push6 (a, (float) p.x, (float) p.y, (float) p.z, rgb[0], rgb[1], rgb[2]);
}

static void
line (GArray       *a,
      KmVec3        p0,
      KmVec3        p1,
      const float   rgb[3])
{
  line_vertex (a, p0, rgb);
  line_vertex (a, p1, rgb);
}

static void
setup_line_vao (GLuint *vao,
                GLuint *vbo)
{
  glGenVertexArrays (1, vao);
  glGenBuffers (1, vbo);
  glBindVertexArray (*vao);
  glBindBuffer (GL_ARRAY_BUFFER, *vbo);
  glEnableVertexAttribArray (0);
  glVertexAttribPointer (0, 3, GL_FLOAT, GL_FALSE, 6 * sizeof (float), (void *) 0);
  glEnableVertexAttribArray (1);
  glVertexAttribPointer (1, 3, GL_FLOAT, GL_FALSE, 6 * sizeof (float),
                         (void *) (3 * sizeof (float)));
  glBindVertexArray (0);
}

/* Floor grid in XY with heavier lines every metre and the world X/Y axes through the origin. */
static void
build_grid (KmRenderer *self)
{
  static const float minor[3] = { 0.255f, 0.259f, 0.275f };
  static const float major[3] = { 0.340f, 0.345f, 0.365f };
  static const float x_axis[3] = { 0.800f, 0.250f, 0.250f };
  static const float y_axis[3] = { 0.300f, 0.720f, 0.300f };
  static const float z_axis[3] = { 0.300f, 0.450f, 0.900f };
  g_autoptr(GArray) v = g_array_new (FALSE, FALSE, sizeof (float));
  int n = (int) (GRID_HALF_EXTENT / GRID_STEP);
  double e = GRID_HALF_EXTENT;

  for (int i = -n; i <= n; i++)
    {
      double c = i * GRID_STEP;
      const float *rgb = (i % 2 == 0) ? major : minor;

      if (i == 0)
        {
          line (v, km_vec3 (-e, 0, 0), km_vec3 (0, 0, 0), major);
          line (v, km_vec3 (0, 0, 0), km_vec3 (e, 0, 0), x_axis);
          line (v, km_vec3 (0, -e, 0), km_vec3 (0, 0, 0), major);
          line (v, km_vec3 (0, 0, 0), km_vec3 (0, e, 0), y_axis);
          continue;
        }
      line (v, km_vec3 (c, -e, 0), km_vec3 (c, e, 0), rgb);
      line (v, km_vec3 (-e, c, 0), km_vec3 (e, c, 0), rgb);
    }
  line (v, km_vec3 (0, 0, 0), km_vec3 (0, 0, 1.0), z_axis);

  setup_line_vao (&self->grid_vao, &self->grid_vbo);
  glBindBuffer (GL_ARRAY_BUFFER, self->grid_vbo);
  glBufferData (GL_ARRAY_BUFFER, v->len * sizeof (float), v->data, GL_STATIC_DRAW);
  self->grid_n_vertices = (GLsizei) (v->len / 6);
}

/**
 * km_renderer_grid_scale_for:
 * @extent: metres, the size (diagonal) of what is shown
 *
 * The KmRenderScene.grid_scale for a scene of @extent: the power of ten nearest to it,
 * at most 1 (the grid's own 0.5 m lines suit anything from about a metre up) and at least
 * 0.001 (half-millimetre lines).
 *
 * Returns: the scale
 */
double
km_renderer_grid_scale_for (double extent)
{
  if (!(extent > 0.0) || !isfinite (extent))
    return 1.0;
  return CLAMP (pow (10.0, round (log10 (extent))), 1e-3, 1.0);
}

/**
 * km_renderer_new:
 * @use_es: whether the current context is OpenGL ES (3.0) rather than OpenGL (3.3 core)
 *
 * Creates the renderer's GL objects in the current context. The shaders come from the
 * application's GResources, which must be registered.
 *
 * Returns: (transfer full) (nullable): the renderer, or %NULL with @error set
 */
KmRenderer *
km_renderer_new (gboolean   use_es,
                 GError   **error)
{
  g_autoptr(KmRenderer) self = g_new0 (KmRenderer, 1);

  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  self->use_es = use_es;
  self->lines = g_array_new (FALSE, FALSE, sizeof (float));
  for (guint d = 0; d < N_MARKER_DETAILS; d++)
    self->marker_instances[d] = g_array_new (FALSE, FALSE, sizeof (MarkerInstance));
  self->meshes = g_hash_table_new_full (NULL, NULL, NULL, cached_mesh_free);

  self->mesh_program = link_program ("mesh.vert.glsl", "mesh.frag.glsl", use_es, error);
  if (self->mesh_program == 0)
    return NULL;
  self->u_model_view_proj = glGetUniformLocation (self->mesh_program, "u_model_view_proj");
  self->u_normal_view = glGetUniformLocation (self->mesh_program, "u_normal_view");
  self->u_color = glGetUniformLocation (self->mesh_program, "u_color");

  self->line_program = link_program ("line.vert.glsl", "line.frag.glsl", use_es, error);
  if (self->line_program == 0)
    return NULL;
  self->u_view_proj = glGetUniformLocation (self->line_program, "u_view_proj");

  self->marker_program = link_program ("marker.vert.glsl", "marker.frag.glsl", use_es, error);
  if (self->marker_program == 0)
    return NULL;
  self->u_marker_view_proj = glGetUniformLocation (self->marker_program, "u_view_proj");
  self->u_marker_normal_view = glGetUniformLocation (self->marker_program, "u_normal_view");
  self->u_marker_bone_vertices = glGetUniformLocation (self->marker_program, "u_bone_vertices");

  build_sphere (&self->sphere);
  build_markers (self);
  build_box (&self->box);
  build_shape_cylinder (&self->shape_cylinder, FALSE);
  build_shape_cylinder (&self->cone, TRUE);
  build_grid (self);
  setup_line_vao (&self->lines_vao, &self->lines_vbo);

  return g_steal_pointer (&self);
}

/* Must run with the renderer's context current. */
void
km_renderer_free (KmRenderer *self)
{
  if (self == NULL)
    return;

  if (self->mesh_program)
    glDeleteProgram (self->mesh_program);
  if (self->line_program)
    glDeleteProgram (self->line_program);
  if (self->marker_program)
    glDeleteProgram (self->marker_program);
  mesh_clear (&self->sphere);
  for (guint d = 0; d < N_MARKER_DETAILS; d++)
    {
      mesh_clear (&self->markers[d]);
      if (self->marker_instance_vbo[d])
        glDeleteBuffers (1, &self->marker_instance_vbo[d]);
      g_clear_pointer (&self->marker_instances[d], g_array_unref);
    }
  mesh_clear (&self->box);
  mesh_clear (&self->shape_cylinder);
  mesh_clear (&self->cone);
  g_clear_pointer (&self->meshes, g_hash_table_unref);
  if (self->grid_vao)
    glDeleteVertexArrays (1, &self->grid_vao);
  if (self->grid_vbo)
    glDeleteBuffers (1, &self->grid_vbo);
  if (self->lines_vao)
    glDeleteVertexArrays (1, &self->lines_vao);
  if (self->lines_vbo)
    glDeleteBuffers (1, &self->lines_vbo);
  g_clear_pointer (&self->lines, g_array_unref);
  g_free (self);
}

/**
 * km_renderer_joint_radius:
 *
 * km_renderer_marker_radius() for a scene of unknown size: the bounds a model of a metre
 * or more is marked within.
 */
double
km_renderer_joint_radius (const KmSkeleton *skeleton)
{
  return km_renderer_marker_radius (skeleton, 0.0);
}

/**
 * km_renderer_marker_radius:
 * @skeleton: the body whose joints are marked
 * @extent: metres, the size (diagonal) of the model as framed (KmRenderScene.model_extent),
 *   0 when unknown
 *
 * The radius of a joint marker, which sizes all the markers drawn and picked for the body
 * (its joint spheres, bone cylinders, target and axes): 8 % of the mean bone length at
 * rest, so that a robot arm and a finger both read well. Its floor (2 mm) and the size
 * without bones (5 cm, a new skeleton's lone root) are world sizes that suit a model of a
 * metre or more; a smaller one has them shrunk with its @extent, as it has its floor grid
 * (km_renderer_grid_scale_for()), so that framed, a 5 cm gripper's markers look like a 2 m
 * robot's instead of swamping it. Continuous, not a power of ten like the grid: a marker
 * has no lines to keep round.
 *
 * Returns: the radius, metres
 */
double
km_renderer_marker_radius (const KmSkeleton *skeleton,
                           double            extent)
{
  double scale = extent > 0.0 && isfinite (extent) ? CLAMP (extent, 1e-3, 1.0) : 1.0;
  double sum = 0.0;
  guint n = 0;

  g_return_val_if_fail (skeleton != NULL, 0.05 * scale);

  for (guint i = 0; i < km_skeleton_get_n_joints (skeleton); i++)
    {
      double len = km_vec3_length (km_skeleton_get_joint (skeleton, i)->offset);

      if (len > 1e-9 && isfinite (len))
        sum += len, n++;
    }
  return n ? CLAMP (0.08 * sum / n, 0.002 * scale, 1.0) : 0.05 * scale;
}

/**
 * km_renderer_view_marker_radius:
 * @skeleton: the body whose joints are marked
 * @extent: as for km_renderer_marker_radius()
 * @camera: (nullable): the view the markers are drawn in
 *
 * The radius of the body's markers as drawn and picked in @camera's view:
 * km_renderer_marker_radius(), but never less than a small part of the height the view
 * shows at its target (a few pixels). Markers sized to the links alone vanish where the
 * links are short for the model: a chain of 200 links of 2 cm, 4 m tall, framed whole has
 * markers of a third of a pixel and showed nothing at all. Models whose markers are larger
 * than that keep them; zoomed out, the markers stay as large on screen instead of shrinking
 * away. Without a camera, km_renderer_marker_radius().
 *
 * Returns: the radius, metres
 */
double
km_renderer_view_marker_radius (const KmSkeleton *skeleton,
                                double            extent,
                                const KmCamera   *camera)
{
  double radius = km_renderer_marker_radius (skeleton, extent);
  double shown;

  if (camera == NULL)
    return radius;
  /* The height shown at the target: the same in both projections (km-camera.h). */
  shown = 2.0 * camera->distance * tan (camera->fov_y / 2);
  if (isfinite (shown) && shown > 0.0)
    radius = MAX (radius, MIN_MARKER_VIEW_FRACTION * shown);
  return radius;
}

/**
 * km_renderer_get_n_degenerate_triangles:
 *
 * How many triangles of no area the renderer's own meshes (joint markers, primitives) have:
 * each draws nothing, yet is work for the driver on the thread that draws, once per marker
 * of a model of thousands of joints (tests check there are none).
 *
 * Returns: the count
 */
guint
km_renderer_get_n_degenerate_triangles (KmRenderer *self)
{
  guint n;

  g_return_val_if_fail (self != NULL, 0);

  n = self->sphere.n_degenerate + self->box.n_degenerate + self->shape_cylinder.n_degenerate
      + self->cone.n_degenerate;
  for (guint d = 0; d < N_MARKER_DETAILS; d++)
    n += self->markers[d].n_degenerate;
  return n;
}

/* How many KmMesh uploads the renderer holds (tests check the cache). */
guint
km_renderer_get_n_cached_meshes (KmRenderer *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return g_hash_table_size (self->meshes);
}

/**
 * km_renderer_get_n_draw_calls:
 *
 * How many draw calls the last km_renderer_render() made: a number that does not grow with
 * the joints of the bodies drawn, only with their shapes (tests check the batching).
 *
 * Returns: the count
 */
guint
km_renderer_get_n_draw_calls (KmRenderer *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->n_draw_calls;
}

/**
 * km_renderer_get_n_marker_vertices:
 *
 * How many vertices the joint markers of the last km_renderer_render() had, all instances
 * together: markers a few pixels wide have fewer each (tests check the detail chosen).
 *
 * Returns: the count
 */
guint
km_renderer_get_n_marker_vertices (KmRenderer *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->n_marker_vertices;
}

static void
draw_mesh (KmRenderer  *self,
           const Mesh  *mesh,
           mat4         view,
           mat4         view_proj,
           mat4         model,
           const float  rgba[4])
{
  mat4 mvp, mv;
  mat3 normal, inv;

  glm_mat4_mul (view_proj, model, mvp);
  glm_mat4_mul (view, model, mv);
  glm_mat4_pick3 (mv, normal);
  glm_mat3_inv (normal, inv);
  glm_mat3_transpose_to (inv, normal);

  glUniformMatrix4fv (self->u_model_view_proj, 1, GL_FALSE, (const float *) mvp);
  glUniformMatrix3fv (self->u_normal_view, 1, GL_FALSE, (const float *) normal);
  glUniform4fv (self->u_color, 1, rgba);
  glBindVertexArray (mesh->vao);
  glDrawElements (GL_TRIANGLES, mesh->n_indices, mesh->index_type, NULL);
  self->n_draw_calls++;
}

static void
sphere_model (KmVec3   centre,
              double   radius,
              mat4     out)
{
  glm_mat4_identity (out);
  out[0][0] = out[1][1] = out[2][2] = (float) radius;
  out[3][0] = (float) centre.x;
  out[3][1] = (float) centre.y;
  out[3][2] = (float) centre.z;
}

/* Cylinder of @radius from @a to @b; FALSE when the two points coincide. */
static gboolean
bone_model (KmVec3   a,
            KmVec3   b,
            double   radius,
            mat4     out)
{
  KmVec3 d = km_vec3_sub (b, a), z, x, y;
  double len = km_vec3_length (d);

  if (!(len > 1e-9) || !isfinite (len))
    return FALSE;

  z = km_vec3_scale (d, 1.0 / len);
  x = km_vec3_cross (fabs (z.z) < 0.9 ? km_vec3 (0, 0, 1) : km_vec3 (1, 0, 0), z);
  x = km_vec3_normalize (x);
  y = km_vec3_cross (z, x);

  glm_mat4_identity (out);
  out[0][0] = (float) (x.x * radius), out[0][1] = (float) (x.y * radius), out[0][2] = (float) (x.z * radius);
  out[1][0] = (float) (y.x * radius), out[1][1] = (float) (y.y * radius), out[1][2] = (float) (y.z * radius);
  out[2][0] = (float) d.x, out[2][1] = (float) d.y, out[2][2] = (float) d.z;
  out[3][0] = (float) a.x, out[3][1] = (float) a.y, out[3][2] = (float) a.z;
  return TRUE;
}

static void
copy_rgba (float       *to,
           const float *from)
{
  memcpy (to, from, 4 * sizeof (float));
}

/* The detail a marker of @radius at @centre is drawn with. */
static MarkerDetail
marker_detail (const MarkerView *mv,
               KmVec3            centre,
               double            radius)
{
  double px = radius * mv->scale;

  if (!mv->orthographic)
    {
      double depth = km_vec3_dot (km_vec3_sub (centre, mv->eye), mv->forward);

      /* At or behind the eye: as large as can be. */
      px = depth > 1e-9 ? px / depth : INFINITY;
    }
  for (guint d = 0; d < MARKER_FINE; d++)
    if (px < marker_details[d].below_px)
      return (MarkerDetail) d;
  return MARKER_FINE;
}

static MarkerInstance *
add_marker (KmRenderer       *self,
            const MarkerView *mv,
            KmVec3            centre,
            double            radius)
{
  GArray *a = self->marker_instances[marker_detail (mv, centre, radius)];

  g_array_set_size (a, a->len + 1);
  return &g_array_index (a, MarkerInstance, a->len - 1);
}

/* Sets @m's bone from @a to @b of @radius (none where they coincide) and sphere. */
static void
set_marker (MarkerInstance *m,
            const KmVec3   *a,
            KmVec3          b,
            double          bone_radius,
            double          radius,
            const float    *bone_rgba,
            const float    *sphere_rgba)
{
  mat4 bone;

  if (a != NULL && bone_model (*a, b, bone_radius, bone))
    for (guint c = 0; c < 4; c++)
      memcpy (&m->bone[3 * c], bone[c], 3 * sizeof (float));
  else
    memset (m->bone, 0, sizeof m->bone);
  m->sphere[0] = (float) b.x;
  m->sphere[1] = (float) b.y;
  m->sphere[2] = (float) b.z;
  m->sphere[3] = (float) radius;
  copy_rgba (m->bone_rgba, bone_rgba);
  copy_rgba (m->sphere_rgba, sphere_rgba);
}

/* @skeleton's joint markers at @world, in one instanced draw per MarkerDetail (three at
 * most, whatever the joints) with the mesh program's state (blending, culling) as it is:
 * for each joint in order, the bone from its parent (where it has one of some length), then
 * its sphere, as they were drawn one by one, so that translucent markers of a detail still
 * blend over each other in that order. Then the tool point's, if any. Leaves the mesh
 * program in use. */
static void
draw_markers (KmRenderer          *self,
              const KmSkeleton    *skeleton,
              const KmTransform   *world,
              double               radius,
              const MarkerColours *colours,
              const MarkerView    *mv,
              mat4                 view,
              mat4                 view_proj)
{
  guint n = km_skeleton_get_n_joints (skeleton);
  double bone_radius = radius * KM_PICK_BONE_RADIUS_FACTOR;
  mat3 normal, inv;

  if (n == 0)
    return;
  for (guint d = 0; d < N_MARKER_DETAILS; d++)
    g_array_set_size (self->marker_instances[d], 0);
  for (guint i = 0; i < n; i++)
    {
      const KmJoint *j = km_skeleton_get_joint (skeleton, i);
      const float *rgba = colours->joint;

      if ((int) i == colours->hover_joint)
        rgba = colours->hover;
      else if ((int) i == colours->selected_joint)
        rgba = colours->selected;
      else if ((int) i == colours->effector_joint && colours->tool_point == NULL)
        rgba = colours->effector;
      set_marker (add_marker (self, mv, world[i].pos, radius),
                  j->parent >= 0 ? &world[j->parent].pos : NULL, world[i].pos, bone_radius,
                  radius, colours->bone, rgba);
    }
  if (colours->tool_point != NULL && colours->effector_joint >= 0
      && (guint) colours->effector_joint < n)
    {
      /* A thinner bone, in the tool's colour, from the joint that carries it. */
      set_marker (add_marker (self, mv, *colours->tool_point, radius),
                  &world[colours->effector_joint].pos, *colours->tool_point,
                  bone_radius * 0.5, radius, colours->tool, colours->tool);
    }

  /* The view's normal matrix, as draw_mesh() makes it for a model of identity. */
  glm_mat4_pick3 (view, normal);
  glm_mat3_inv (normal, inv);
  glm_mat3_transpose_to (inv, normal);

  glUseProgram (self->marker_program);
  glUniformMatrix4fv (self->u_marker_view_proj, 1, GL_FALSE, (const float *) view_proj);
  glUniformMatrix3fv (self->u_marker_normal_view, 1, GL_FALSE, (const float *) normal);
  for (guint d = 0; d < N_MARKER_DETAILS; d++)
    {
      GArray *a = self->marker_instances[d];

      if (a->len == 0)
        continue;
      glUniform1i (self->u_marker_bone_vertices, self->marker_bone_vertices[d]);
      glBindVertexArray (self->markers[d].vao);
      glBindBuffer (GL_ARRAY_BUFFER, self->marker_instance_vbo[d]);
      /* A new store every draw: the bodies of a frame do not wait on each other's. */
      glBufferData (GL_ARRAY_BUFFER, (GLsizeiptr) (a->len * sizeof (MarkerInstance)),
                    a->data, GL_STREAM_DRAW);
      glDrawElementsInstanced (GL_TRIANGLES, self->markers[d].n_indices,
                               self->markers[d].index_type, NULL, (GLsizei) a->len);
      self->n_draw_calls++;
      self->n_marker_vertices += (guint) self->marker_vertices[d] * a->len;
    }
  glUseProgram (self->mesh_program);
}

/* The primitives are closed and wound counter-clockwise outwards: their back faces, hidden
 * anyway, need not be rasterised (a mirroring transform turns the winding round). Mesh
 * files do not agree on winding: both sides. */
static void
set_culling (KmRenderer *self,
             gboolean    closed,
             mat4        model)
{
  mat3 linear;

  if (self->culling != closed)
    {
      self->culling = closed;
      if (closed)
        glEnable (GL_CULL_FACE);
      else
        glDisable (GL_CULL_FACE);
    }
  if (closed)
    {
      int ccw;

      glm_mat4_pick3 (model, linear);
      ccw = glm_mat3_det (linear) >= 0.0f;
      if (self->front_ccw != ccw)
        {
          self->front_ccw = ccw;
          glFrontFace (ccw ? GL_CCW : GL_CW);
        }
    }
}

static void
draw_shape (KmRenderer         *self,
            const KmShape      *shape,
            mat4                joint,
            mat4                view,
            mat4                view_proj)
{
  const float rgba[4] = { shape->color.r, shape->color.g, shape->color.b, shape->color.a };
  const Mesh *mesh = NULL;
  mat4 frame, model;
  vec3 scale = { 1.0f, 1.0f, 1.0f };

  if (!(shape->color.a > 0.0f))
    return;
  /* Blending an opaque colour gives that colour: skip the blend unit's work. */
  if (self->blending != (shape->color.a < 1.0f))
    {
      self->blending = shape->color.a < 1.0f;
      if (self->blending)
        glEnable (GL_BLEND);
      else
        glDisable (GL_BLEND);
    }

  km_shape_get_mat4 (shape, frame);
  glm_mat4_mul (joint, frame, frame);
  switch (shape->type)
    {
    case KM_SHAPE_BOX:
      mesh = &self->box;
      scale[0] = (float) shape->size.x, scale[1] = (float) shape->size.y;
      scale[2] = (float) shape->size.z;
      break;
    case KM_SHAPE_SPHERE:
      mesh = &self->sphere;
      scale[0] = scale[1] = scale[2] = (float) shape->radius;
      break;
    case KM_SHAPE_CYLINDER:
    case KM_SHAPE_CONE:
      mesh = shape->type == KM_SHAPE_CONE ? &self->cone : &self->shape_cylinder;
      scale[0] = scale[2] = (float) shape->radius;
      scale[1] = (float) shape->height;
      break;
    case KM_SHAPE_CAPSULE:
      /* A cylinder and two spheres: a non-uniformly scaled mesh would squash the caps. */
      for (int end = -1; end <= 1; end += 2)
        {
          glm_mat4_copy (frame, model);
          glm_translate (model, (vec3) { 0.0f, (float) (end * shape->height / 2), 0.0f });
          glm_scale_uni (model, (float) shape->radius);
          set_culling (self, TRUE, model);
          draw_mesh (self, &self->sphere, view, view_proj, model, rgba);
        }
      mesh = &self->shape_cylinder;
      scale[0] = scale[2] = (float) shape->radius;
      scale[1] = (float) shape->height;
      break;
    case KM_SHAPE_MESH:
      if (shape->mesh != NULL)
        mesh = &lookup_mesh (self, shape->mesh)->gl;
      break;
    default:
      break;
    }
  if (mesh == NULL || mesh->vao == 0)
    return;
  glm_mat4_copy (frame, model);
  glm_scale (model, scale);
  set_culling (self, shape->type != KM_SHAPE_MESH, model);
  draw_mesh (self, mesh, view, view_proj, model, rgba);
}

static gboolean
skeleton_has_shapes (const KmSkeleton *skeleton)
{
  for (guint i = 0; i < km_skeleton_get_n_joints (skeleton); i++)
    {
      guint n = 0;

      km_skeleton_get_shapes (skeleton, i, &n);
      if (n > 0)
        return TRUE;
    }
  return FALSE;
}

/* A body's shapes, or its bones where it has none (the edited body draws its own). */
static void
draw_body (KmRenderer         *self,
           const KmRenderBody *body,
           gboolean            bones,
           double              model_extent,
           const KmCamera     *camera,
           const MarkerView   *mv,
           mat4                view,
           mat4                view_proj)
{
  static const float bone_rgba[4] = { KM_RENDER_BONE_RGB, 1.0f };
  guint n_joints = km_skeleton_get_n_joints (body->skeleton);
  mat4 joint;

  if (bones)
    {
      MarkerColours colours = { bone_rgba, bone_rgba, NULL, NULL, NULL, -1, -1, -1, NULL, NULL };
      double radius = km_renderer_view_marker_radius (body->skeleton, model_extent, camera);

      draw_markers (self, body->skeleton, body->joint_world, radius, &colours, mv, view,
                    view_proj);
      return;
    }

  for (guint i = 0; i < n_joints; i++)
    {
      KmShape * const *shapes;
      guint n_shapes = 0;

      shapes = km_skeleton_get_shapes (body->skeleton, i, &n_shapes);
      if (n_shapes == 0)
        continue;
      km_transform_to_mat4 (&body->joint_world[i], joint);
      for (guint k = 0; k < n_shapes; k++)
        draw_shape (self, shapes[k], joint, view, view_proj);
    }
}

static void
frame_lines (GArray            *a,
             const KmTransform *t,
             double             length)
{
  static const float rgb[3][3] = {
    { 0.95f, 0.30f, 0.30f }, { 0.35f, 0.85f, 0.35f }, { 0.35f, 0.55f, 1.00f },
  };

  for (guint c = 0; c < 3; c++)
    {
      KmVec3 axis = km_vec3 (t->rot.m[0][c], t->rot.m[1][c], t->rot.m[2][c]);

      line (a, t->pos, km_vec3_add (t->pos, km_vec3_scale (axis, length)), rgb[c]);
    }
}

static void
build_gizmo_lines (const KmRenderScene *scene,
                   GArray              *a)
{
  static const float axis_rgb[3][3] = {
    { 0.95f, 0.30f, 0.30f }, { 0.35f, 0.85f, 0.35f }, { 0.35f, 0.55f, 1.00f },
  };
  static const float active_rgb[3] = { KM_RENDER_GIZMO_ACTIVE_RGB };
  static const float axis_line_rgb[3] = { 0.95f, 0.90f, 0.55f };
  const KmGizmo *g = &scene->gizmo;

  if (g->show_axis)
    line (a, km_vec3_sub (g->centre, km_vec3_scale (g->axis, g->size * 1.2)),
          km_vec3_add (g->centre, km_vec3_scale (g->axis, g->size * 1.2)), axis_line_rgb);
  for (KmGizmoHandle h = KM_GIZMO_MOVE_X;
       h <= (g->translate_only ? KM_GIZMO_MOVE_Z : KM_GIZMO_ROTATE_Z); h++)
    {
      const float *rgb = h == scene->gizmo_hover ? active_rgb
                                                 : axis_rgb[(h - KM_GIZMO_MOVE_X) % 3];
      KmVec3 axis = km_gizmo_axis (h);

      if (h <= KM_GIZMO_MOVE_Z)
        {
          KmVec3 base, tip, side, back;

          km_gizmo_arrow (g, h, &base, &tip);
          side = km_vec3_cross (axis, h == KM_GIZMO_MOVE_Z ? km_vec3 (1, 0, 0)
                                                           : km_vec3 (0, 0, 1));
          back = km_vec3_sub (tip, km_vec3_scale (axis, g->size * 0.15));

          line (a, base, tip, rgb);
          line (a, tip, km_vec3_add (back, km_vec3_scale (side, g->size * 0.06)), rgb);
          line (a, tip, km_vec3_sub (back, km_vec3_scale (side, g->size * 0.06)), rgb);
        }
      else
        for (guint s = 0; s < KM_GIZMO_RING_SEGMENTS; s++)
          line (a, km_gizmo_ring_point (g, h, s), km_gizmo_ring_point (g, h, s + 1), rgb);
    }
}

/* The half lengths of the joints' axis lines (@out, one per joint). Drawn before the shapes
 * (which hide what is inside them), an axis reaches out of the link's shape: it is scaled
 * to the link's length (the longest bone at the joint: its own or one to a child) rather
 * than to the joint marker alone; never shorter than the marker's 3 radii, never more than
 * twice the mean bone (25 radii). */
static void
joint_axis_half_lengths (const KmSkeleton *skeleton,
                         double            radius,
                         double           *out)
{
  guint n = km_skeleton_get_n_joints (skeleton);

  for (guint i = 0; i < n; i++)
    out[i] = 0.0;
  for (guint i = 0; i < n; i++)
    {
      const KmJoint *j = km_skeleton_get_joint (skeleton, i);
      double length = km_vec3_length (j->offset);

      if (!isfinite (length))
        continue;
      out[i] = MAX (out[i], length);
      if (j->parent >= 0 && (guint) j->parent < n)
        out[j->parent] = MAX (out[j->parent], length);
    }
  for (guint i = 0; i < n; i++)
    out[i] = CLAMP (0.6 * out[i], radius * 3, radius * 25);
}

static void
build_dynamic_lines (const KmRenderScene *scene,
                     double               radius,
                     GArray              *a)
{
  static const float trajectory_rgb[3] = { KM_RENDER_TRAJECTORY_RGB };
  static const float joint_axis_rgb[3] = { 0.95f, 0.90f, 0.55f };

  g_array_set_size (a, 0);

  for (guint i = 0; i + 1 < scene->n_trajectory; i++)
    line (a, scene->trajectory[i], scene->trajectory[i + 1], trajectory_rgb);

  if (scene->has_target)
    frame_lines (a, &scene->target, radius * 4);

  if (scene->show_joint_axes && scene->skeleton != NULL)
    {
      g_autofree double *lengths = g_new (double, km_skeleton_get_n_joints (scene->skeleton));

      joint_axis_half_lengths (scene->skeleton, radius, lengths);
      for (guint i = 0; i < km_skeleton_get_n_joints (scene->skeleton); i++)
        {
          const KmJoint *j = km_skeleton_get_joint (scene->skeleton, i);
          const KmTransform *w = &scene->joint_world[i];
          double length;

          if (j->type == KM_JOINT_FIXED)
            continue;
          length = lengths[i];
          if (j->type == KM_JOINT_REVOLUTE || j->type == KM_JOINT_PRISMATIC)
            {
              KmVec3 axis = km_mat3_mul_vec3 (&w->rot, j->axis);

              line (a, km_vec3_sub (w->pos, km_vec3_scale (axis, length)),
                    km_vec3_add (w->pos, km_vec3_scale (axis, length)), joint_axis_rgb);
            }
          else
            frame_lines (a, w, length);
        }
    }
}

/* Draws the joint markers (at each detail) and a mesh, opaque and blended, with nothing in
 * them (every vertex at one point: no pixel changes), so that the driver has compiled the
 * code it runs them with before a model is drawn: llvmpipe compiles a program's code for
 * the state it is drawn in at its first draw in that state, some 25 ms on the main thread
 * that were part of the first frame of a model opened later. Runs once, in the view's first
 * frame (where the framebuffer the rest are drawn into is bound, so the same formats);
 * counts no draw calls. Leaves blending off. */
static void
warm_up (KmRenderer *self,
         mat4        view_proj)
{
  static const MarkerInstance none = { { 0 } };
  static const float rgba[4] = { 0.0f, 0.0f, 0.0f, 0.0f };
  mat4 zero = GLM_MAT4_ZERO_INIT;
  mat3 normal = GLM_MAT3_IDENTITY_INIT;

  glBlendFunc (GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
  for (int blend = 0; blend <= 1; blend++)
    {
      if (blend)
        glEnable (GL_BLEND);
      glUseProgram (self->marker_program);
      glUniformMatrix4fv (self->u_marker_view_proj, 1, GL_FALSE, (const float *) view_proj);
      glUniformMatrix3fv (self->u_marker_normal_view, 1, GL_FALSE, (const float *) normal);
      for (guint d = 0; d < N_MARKER_DETAILS; d++)
        {
          glUniform1i (self->u_marker_bone_vertices, self->marker_bone_vertices[d]);
          glBindVertexArray (self->markers[d].vao);
          glBindBuffer (GL_ARRAY_BUFFER, self->marker_instance_vbo[d]);
          glBufferData (GL_ARRAY_BUFFER, sizeof none, &none, GL_STREAM_DRAW);
          glDrawElementsInstanced (GL_TRIANGLES, self->markers[d].n_indices,
                                   self->markers[d].index_type, NULL, 1);
        }
      glUseProgram (self->mesh_program);
      glUniformMatrix4fv (self->u_model_view_proj, 1, GL_FALSE, (const float *) zero);
      glUniformMatrix3fv (self->u_normal_view, 1, GL_FALSE, (const float *) normal);
      glUniform4fv (self->u_color, 1, rgba);
      glBindVertexArray (self->sphere.vao);
      glDrawElements (GL_TRIANGLES, self->sphere.n_indices, self->sphere.index_type, NULL);
    }
  glDisable (GL_BLEND);
  glBindVertexArray (0);
  self->warmed = TRUE;
}

/**
 * km_renderer_render:
 * @width: framebuffer width in device pixels
 * @height: framebuffer height in device pixels
 *
 * Draws @scene into the bound framebuffer. Needs the renderer's context current.
 */
void
km_renderer_render (KmRenderer          *self,
                    const KmRenderScene *scene,
                    const KmCamera      *camera,
                    int                  width,
                    int                  height)
{
  float joint_rgb[4] = { KM_RENDER_JOINT_RGB, 1.0f };
  float selected_rgb[4] = { KM_RENDER_SELECTED_RGB, 1.0f };
  float bone_rgb[4] = { KM_RENDER_BONE_RGB, 1.0f };
  float effector_rgb[4] = { KM_RENDER_EFFECTOR_RGB, 1.0f };
  static const float target_rgb[4] = { KM_RENDER_TARGET_RGB, 1.0f };
  float hover_rgb[4] = { KM_RENDER_HOVER_RGB, 1.0f };
  mat4 view, proj, view_proj, model;
  double radius = 0.05;
  gboolean overlay = FALSE;
  MarkerView marker_view;
  double half_tan;

  g_return_if_fail (self != NULL);
  g_return_if_fail (scene != NULL);
  g_return_if_fail (camera != NULL);

  if (width <= 0 || height <= 0)
    return;

  km_camera_get_view (camera, view);
  km_camera_get_projection (camera, (double) width / height, proj);
  glm_mat4_mul (proj, view, view_proj);

  /* A radius r at depth z shows r / (z tan (fov / 2)) half heights; in an orthographic view
   * the half height is distance · tan (fov / 2) (km_camera_get_projection()). */
  half_tan = tan (km_camera_get_vertical_fov (camera, (double) width / height) / 2);
  marker_view.eye = km_camera_get_eye (camera);
  marker_view.forward = km_camera_get_forward (camera);
  marker_view.orthographic = camera->orthographic;
  marker_view.scale = height / 2.0 / (camera->orthographic ? camera->distance * half_tan
                                                           : half_tan);
  if (!isfinite (marker_view.scale) || !(marker_view.scale > 0.0))
    marker_view.orthographic = TRUE, marker_view.scale = INFINITY;

  self->n_draw_calls = 0;
  self->n_marker_vertices = 0;
  glViewport (0, 0, width, height);
  glClearColor (KM_RENDER_BACKGROUND_RGB, 1.0f);
  glClearDepthf (1.0f);
  glClear (GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  glEnable (GL_DEPTH_TEST);
  glDepthFunc (GL_LEQUAL);
  glDisable (GL_BLEND);
  glEnable (GL_CULL_FACE);
  glCullFace (GL_BACK);
  glFrontFace (GL_CCW);

  if (!self->warmed)
    warm_up (self, view_proj);

  if (scene->skeleton != NULL)
    radius = km_renderer_view_marker_radius (scene->skeleton, scene->model_extent, camera);

  glUseProgram (self->line_program);
  if (scene->grid_scale > 0.0 && scene->grid_scale != 1.0)
    {
      mat4 grid_view_proj;
      vec3 by = { (float) scene->grid_scale, (float) scene->grid_scale,
                  (float) scene->grid_scale };

      glm_mat4_copy (view_proj, grid_view_proj);
      glm_scale (grid_view_proj, by);
      glUniformMatrix4fv (self->u_view_proj, 1, GL_FALSE, (const float *) grid_view_proj);
    }
  else
    glUniformMatrix4fv (self->u_view_proj, 1, GL_FALSE, (const float *) view_proj);
  glBindVertexArray (self->grid_vao);
  glDrawArrays (GL_LINES, 0, self->grid_n_vertices);
  self->n_draw_calls++;
  glUniformMatrix4fv (self->u_view_proj, 1, GL_FALSE, (const float *) view_proj);

  build_dynamic_lines (scene, radius, self->lines);
  self->n_scene_floats = self->lines->len;
  if (scene->has_gizmo)
    build_gizmo_lines (scene, self->lines);
  if (self->lines->len > 0)
    {
      gsize bytes = self->lines->len * sizeof (float);

      glBindVertexArray (self->lines_vao);
      glBindBuffer (GL_ARRAY_BUFFER, self->lines_vbo);
      if (bytes > self->lines_capacity)
        {
          glBufferData (GL_ARRAY_BUFFER, bytes, self->lines->data, GL_DYNAMIC_DRAW);
          self->lines_capacity = bytes;
        }
      else
        glBufferSubData (GL_ARRAY_BUFFER, 0, bytes, self->lines->data);
      glDrawArrays (GL_LINES, 0, (GLsizei) (self->n_scene_floats / 6));
      self->n_draw_calls++;
    }

  glUseProgram (self->mesh_program);

  self->frame++;
  if (scene->n_bodies > 0)
    {
      /* Shapes: closed primitives culled, meshes two-sided; blended where translucent. */
      glDisable (GL_CULL_FACE);
      glEnable (GL_BLEND);
      glBlendFunc (GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
      self->blending = 1;
      self->culling = 0;
      self->front_ccw = 1;
      for (guint b = 0; b < scene->n_bodies; b++)
        {
          const KmRenderBody *body = &scene->bodies[b];
          gboolean shapes;

          if (body->skeleton == NULL || body->joint_world == NULL)
            continue;
          shapes = skeleton_has_shapes (body->skeleton);
          /* The edited body draws its own bones, below. */
          if (body->joint_world == scene->joint_world)
            overlay |= shapes;
          if (shapes || body->joint_world != scene->joint_world)
            draw_body (self, body, !shapes, scene->model_extent, camera, &marker_view, view,
                       view_proj);
        }
      glDisable (GL_BLEND);
      glEnable (GL_CULL_FACE);
      glFrontFace (GL_CCW);
    }
  g_hash_table_foreach_remove (self->meshes, mesh_unused, self);

  if (scene->has_target)
    {
      sphere_model (scene->target.pos, radius * 0.6, model);
      draw_mesh (self, &self->sphere, view, view_proj, model, target_rgb);
    }

  /* The edited body's joints stay visible, and pickable, through its own shapes. */
  if (overlay)
    {
      joint_rgb[3] = selected_rgb[3] = bone_rgb[3] = effector_rgb[3] = hover_rgb[3]
        = KM_RENDER_OVERLAY_ALPHA;
      glClear (GL_DEPTH_BUFFER_BIT);
      glEnable (GL_BLEND);
      glBlendFunc (GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    }

  if (scene->skeleton != NULL && scene->joint_world != NULL)
    {
      MarkerColours colours = {
        bone_rgb, joint_rgb, hover_rgb, selected_rgb, effector_rgb,
        scene->has_hover ? scene->hover_joint : -1, scene->selected_joint, scene->effector,
        scene->has_tool_point ? &scene->tool_point : NULL,
        scene->hover_tool_point ? hover_rgb : effector_rgb,
      };

      draw_markers (self, scene->skeleton, scene->joint_world, radius, &colours, &marker_view,
                    view, view_proj);
    }
  glDisable (GL_BLEND);

  /* The gizmo stays visible through the body it moves. */
  if (self->lines->len > self->n_scene_floats)
    {
      glDisable (GL_DEPTH_TEST);
      glUseProgram (self->line_program);
      glUniformMatrix4fv (self->u_view_proj, 1, GL_FALSE, (const float *) view_proj);
      glBindVertexArray (self->lines_vao);
      glDrawArrays (GL_LINES, (GLint) (self->n_scene_floats / 6),
                    (GLsizei) ((self->lines->len - self->n_scene_floats) / 6));
      self->n_draw_calls++;
      glEnable (GL_DEPTH_TEST);
    }

  glBindVertexArray (0);
  glUseProgram (0);
  glDisable (GL_CULL_FACE);
}
