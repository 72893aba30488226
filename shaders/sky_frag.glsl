// Sky pass: gradient sky, sun disc and glow, a few stars at night. u_inv_view_proj is the inverse of the
// rotation-only view-projection, so it maps a clip position straight to a world-space direction.
uniform mat4 u_inv_view_proj;
in vec2 v_ndc;
layout(location = 0) out vec4 o_color;

void main() {
  vec4 far = u_inv_view_proj * vec4(v_ndc, 1.0, 1.0);
  vec3 dir = normalize(far.xyz / far.w);
  vec3 c = sky_color(dir);
  float toward = dot(dir, u_sun_dir);
  // The sun: a disc of about 1.6 degrees with a soft glow, visible while above the horizon.
  float above = smoothstep(-0.05, 0.02, u_sun_dir.y) * u_sky_seen;
  c += vec3(1.0, 0.96, 0.85) * smoothstep(0.99955, 0.99975, toward) * above;
  c += vec3(1.0, 0.85, 0.6) * pow(max(toward, 0.0), 180.0) * 0.35 * above;
  // Stars: sparse cells of a direction grid, only in the night sky above the horizon.
  if (u_day < 0.5 && dir.y > 0.0) {
    vec3 cell = floor(dir * 160.0);
    float h = fract(sin(dot(cell, vec3(12.9898, 78.233, 37.719))) * 43758.5453);
    if (h > 0.9965) c += vec3(0.7) * (1.0 - 2.0 * u_day) * smoothstep(0.0, 0.15, dir.y) * u_sky_seen;
  }
  o_color = vec4(c, 1.0);
}
