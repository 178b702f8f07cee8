// SPDX-License-Identifier: GPL-3.0-or-later
// Lit meshes (joints, bones, shapes). The renderer prepends the #version line.
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;

uniform mat4 u_model_view_proj;
uniform mat3 u_normal_view;

out vec3 v_normal;

void
main ()
{
  v_normal = u_normal_view * a_normal;
  gl_Position = u_model_view_proj * vec4 (a_position, 1.0);
}
