// SPDX-License-Identifier: GPL-3.0-or-later
// Joint markers, one instance per joint: the bone from its parent (the mesh's first
// u_bone_vertices vertices, a unit cylinder along Z), then the joint's sphere (a unit
// sphere), lit as mesh.vert.glsl lights a mesh. The renderer prepends the #version line.
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
// Per instance: the bone's frame (columns x·radius, y·radius, parent-to-joint; all zero
// for no bone) and origin, the sphere's centre and radius, and the two colours.
layout(location = 2) in vec3 i_bone_x;
layout(location = 3) in vec3 i_bone_y;
layout(location = 4) in vec3 i_bone_z;
layout(location = 5) in vec3 i_bone_origin;
layout(location = 6) in vec4 i_sphere;
layout(location = 7) in vec4 i_bone_color;
layout(location = 8) in vec4 i_sphere_color;

uniform mat4 u_view_proj;
uniform mat3 u_normal_view;
uniform int u_bone_vertices;

out vec3 v_normal;
flat out vec4 v_color;

void
main ()
{
  vec3 world;

  if (gl_VertexID < u_bone_vertices)
    {
      // The columns are orthogonal: the inverse transpose divides each by its length squared.
      mat3 frame = mat3 (i_bone_x, i_bone_y, i_bone_z);
      mat3 normal = mat3 (i_bone_x / max (dot (i_bone_x, i_bone_x), 1e-30),
                          i_bone_y / max (dot (i_bone_y, i_bone_y), 1e-30),
                          i_bone_z / max (dot (i_bone_z, i_bone_z), 1e-30));

      world = frame * a_position + i_bone_origin;
      v_normal = u_normal_view * (normal * a_normal);
      v_color = i_bone_color;
    }
  else
    {
      world = i_sphere.xyz + i_sphere.w * a_position;
      v_normal = u_normal_view * a_normal;
      v_color = i_sphere_color;
    }
  gl_Position = u_view_proj * vec4 (world, 1.0);
}
