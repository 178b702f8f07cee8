// SPDX-License-Identifier: GPL-3.0-or-later
// Joint markers: mesh.frag.glsl's lighting, with the colour from the instance.
in vec3 v_normal;
flat in vec4 v_color;

out vec4 frag_color;

void
main ()
{
  float facing = abs (normalize (v_normal).z);
  frag_color = vec4 (v_color.rgb * (0.35 + 0.65 * facing), v_color.a);
}
