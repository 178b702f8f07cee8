// SPDX-License-Identifier: GPL-3.0-or-later
// A head light: a surface facing the eye shows exactly u_color, so tests can look for it.
in vec3 v_normal;

uniform vec3 u_color;

out vec4 frag_color;

void
main ()
{
  float facing = max (normalize (v_normal).z, 0.0);
  frag_color = vec4 (u_color * (0.35 + 0.65 * facing), 1.0);
}
