// SPDX-License-Identifier: GPL-3.0-or-later
// A head light (directional, along the view axis) plus ambient: a surface facing the eye
// shows exactly u_color, so tests can look for it. Two-sided, because mesh files do not
// agree on winding and a mirroring scale flips it.
in vec3 v_normal;

uniform vec4 u_color;

out vec4 frag_color;

void
main ()
{
  float facing = abs (normalize (v_normal).z);
  frag_color = vec4 (u_color.rgb * (0.35 + 0.65 * facing), u_color.a);
}
