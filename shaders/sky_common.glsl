// Sky colour shared by the sky pass and the terrain's distance fog (so terrain fades into exactly the sky
// behind it). Directions are world-space unit vectors, Y up. u_day: 0 at night, 1 in full day. u_sky_seen: how
// much of the sky the eye sees (from the sky light at the eye: 1 outdoors, 0 deep in a cave), so underground the
// fog and the background beyond the loaded area fade to black instead of showing a sky.
uniform vec3 u_sun_dir;
uniform vec3 u_sun_color;  // sunlight through the air (renderer.h sun_color): white with the sun high, orange to red low
uniform float u_day;
uniform float u_sky_seen;

vec3 sky_color(vec3 dir) {
  vec3 zenith = mix(vec3(0.010, 0.016, 0.045), vec3(0.30, 0.52, 0.90), u_day);
  vec3 horizon = mix(vec3(0.035, 0.045, 0.095), vec3(0.70, 0.82, 0.95), u_day);
  float up = clamp(dir.y, -1.0, 1.0);
  float t = pow(1.0 - max(up, 0.0), 4.0);
  vec3 c = mix(zenith, horizon, t);
  // Below the horizon the haze darkens a little toward the ground.
  c = mix(c, horizon * 0.78, 1.0 - smoothstep(-0.4, 0.0, up));
  // Sunrise and sunset: while the sun is low the horizon band warms all round, most toward the sun, in the colour
  // of the sunlight that reaches it (scattered out of the long path through the air), and a glow surrounds the sun.
  float low = 1.0 - smoothstep(0.0, 0.35, abs(u_sun_dir.y));
  float toward = max(dot(dir, u_sun_dir), 0.0);
  float side = 0.5 + 0.5 * dot(normalize(dir.xz + vec2(1e-6)), normalize(u_sun_dir.xz + vec2(1e-6)));
  vec3 warm = u_sun_color * vec3(1.0, 0.78, 0.60);
  c = mix(c, warm * max(u_day, 0.15), low * t * (0.15 + 0.35 * side * side) * smoothstep(-0.25, 0.02, u_sun_dir.y));
  c += warm * (low * pow(toward, 6.0) * (0.25 + 0.75 * t) * 0.8);
  return c * u_sky_seen;
}
