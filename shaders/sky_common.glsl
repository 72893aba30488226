// Sky colour shared by the sky pass and the terrain's distance fog (so terrain fades into exactly the sky
// behind it). Directions are world-space unit vectors, Y up. u_day: 0 at night, 1 in full day. u_sky_seen: how
// much of the sky the eye sees (from the sky light at the eye: 1 outdoors, 0 deep in a cave), so underground the
// fog and the background beyond the loaded area fade to black instead of showing a sky.
uniform vec3 u_sun_dir;
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
  // Sunrise and sunset: an orange glow around the sun while it is low.
  float low = 1.0 - smoothstep(0.0, 0.35, abs(u_sun_dir.y));
  float toward = max(dot(dir, u_sun_dir), 0.0);
  c += vec3(1.0, 0.45, 0.15) * (low * pow(toward, 6.0) * (0.25 + 0.75 * t) * 0.8);
  return c * u_sky_seen;
}
