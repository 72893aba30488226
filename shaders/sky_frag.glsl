// Sky pass: the gradient sky (sky_common.glsl), the sun's disc and glow, the moon opposite the sun, stars fixed to
// the turning sky at night, and a drifting cloud layer. No depth is written: terrain drawn after covers it, and
// the clouds punch no holes in the terrain's depth. u_inv_view_proj is the inverse of the rotation-only
// view-projection, so it maps a clip position straight to a world-space direction.
uniform mat4 u_inv_view_proj;
uniform mat3 u_sky_rotation;  // world direction -> the star sphere's frame (turns with the time of day)
uniform float u_pixel_angle;  // radians per pixel, vertically
// Clouds: x on (1) or off (0); y the cloud base's height above the eye (blocks, < 0 when the eye is above it);
// zw the eye's position in the cloud field (blocks, wrapped into [0, 4096): the field repeats every 4096 blocks).
uniform vec4 u_clouds;
in vec2 v_ndc;
layout(location = 0) out vec4 o_color;

// A hash of three integers (pcg3d: Jarzynski and Olano, "Hash Functions for GPU Rendering", JCGT 2020): the same
// bits on every GPU, unlike sin-based hashes.
uvec3 pcg3d(uvec3 v) {
  v = v * 1664525u + 1013904223u;
  v.x += v.y * v.z; v.y += v.z * v.x; v.z += v.x * v.y;
  v ^= v >> 16u;
  v.x += v.y * v.z; v.y += v.z * v.x; v.z += v.x * v.y;
  return v;
}
vec3 hash3(ivec3 p) { return vec3(pcg3d(uvec3(p))) * (1.0 / 4294967296.0); }

// Stars: the direction in the sky's frame picks a cell of a cube map (96 x 96 a face); about one cell in seventeen
// holds a star at a hashed point, of hashed brightness; each is a soft dot of about a pixel.
vec3 stars(vec3 dir) {
  vec3 s = u_sky_rotation * dir;
  vec3 a = abs(s);
  int face = a.x >= a.y && a.x >= a.z ? (s.x > 0.0 ? 0 : 1) : (a.y >= a.z ? (s.y > 0.0 ? 2 : 3) : (s.z > 0.0 ? 4 : 5));
  vec2 uv = face < 2 ? s.yz / a.x : (face < 4 ? s.xz / a.y : s.xy / a.z);
  const float kCells = 96.0;
  vec2 g = (uv * 0.5 + 0.5) * kCells;
  vec3 sum = vec3(0.0);
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      ivec2 cell = ivec2(floor(g)) + ivec2(dx, dy);
      vec3 h = hash3(ivec3(cell, face));
      if (h.z > 0.06) continue;
      vec2 at = (vec2(cell) + 0.15 + 0.7 * h.xy) / kCells * 2.0 - 1.0;  // the star's point on the face
      vec3 p = face < 2 ? vec3(face == 0 ? 1.0 : -1.0, at) :
               (face < 4 ? vec3(at.x, face == 2 ? 1.0 : -1.0, at.y) : vec3(at, face == 4 ? 1.0 : -1.0));
      float ang = acos(clamp(dot(normalize(p), s), -1.0, 1.0));
      float bright = pow(1.0 - h.z / 0.06, 3.0);  // a few bright stars, many faint
      float tint = fract(h.x * 7.0 + h.y * 3.0);
      vec3 col = mix(vec3(0.75, 0.82, 1.0), vec3(1.0, 0.9, 0.75), tint);
      sum += col * (0.25 + 1.6 * bright) * (1.0 - smoothstep(0.0, 0.9 * u_pixel_angle, ang));
    }
  return sum;
}

// Value noise on a lattice of `cells` a period, wrapping (so the field repeats every 4096 blocks), smoothly
// interpolated (smoothstep weights).
float value_noise(vec2 p, int cells, int octave) {
  vec2 i = floor(p), f = p - i;
  f = f * f * (3.0 - 2.0 * f);
  ivec2 c = ivec2(i);
  float v00 = hash3(ivec3((c + ivec2(0, 0)) & (cells - 1), octave)).x;
  float v10 = hash3(ivec3((c + ivec2(1, 0)) & (cells - 1), octave)).x;
  float v01 = hash3(ivec3((c + ivec2(0, 1)) & (cells - 1), octave)).x;
  float v11 = hash3(ivec3((c + ivec2(1, 1)) & (cells - 1), octave)).x;
  return mix(mix(v00, v10, f.x), mix(v01, v11, f.x), f.y);
}

// Cloud cover (0..1) at field position p (blocks): four octaves of value noise from 256-block features down to
// 32, thresholded into clouds with soft edges.
float cloud_cover(vec2 p) {
  float n = 0.0, amp = 0.5;
  int cells = 16;  // 4096 / 256
  for (int o = 0; o < 4; ++o) {
    n += amp * value_noise(p * (float(cells) / 4096.0), cells, o);
    amp *= 0.5;
    cells *= 2;
  }
  return smoothstep(0.50, 0.68, n / 0.9375);
}

void main() {
  vec4 far = u_inv_view_proj * vec4(v_ndc, 1.0, 1.0);
  vec3 dir = normalize(far.xyz / far.w);
  vec3 c = sky_color(dir);
  float toward = dot(dir, u_sun_dir);
  // The sun: a disc of about 1.6 degrees with a soft glow, visible while above the horizon.
  float above = smoothstep(-0.05, 0.02, u_sun_dir.y) * u_sky_seen;
  vec3 sun_light = u_sun_color * vec3(1.0, 0.96, 0.85);
  c += sun_light * smoothstep(0.99955, 0.99975, toward) * above;
  c += u_sun_color * vec3(1.0, 0.85, 0.6) * pow(max(toward, 0.0), 180.0) * 0.35 * above;
  float night = 1.0 - u_day;
  // The moon, opposite the sun: a pale disc of about 2 degrees with darker seas and a faint halo.
  vec3 moon_dir = -u_sun_dir;
  float moon_up = smoothstep(-0.05, 0.02, moon_dir.y) * u_sky_seen * night;
  if (moon_up > 0.0) {
    float m = dot(dir, moon_dir);
    float disc = smoothstep(0.99935, 0.99955, m);
    vec3 side = normalize(cross(moon_dir, vec3(0.0, 0.0, 1.0)));
    vec2 local = vec2(dot(dir, side), dot(dir, cross(side, moon_dir))) * 900.0;
    float seas = value_noise(local * 0.12 + 3.0, 16, 7);
    c += vec3(0.80, 0.82, 0.88) * (0.75 + 0.25 * seas) * disc * moon_up;
    c += vec3(0.30, 0.34, 0.45) * pow(max(m, 0.0), 900.0) * 0.5 * moon_up;
  }
  // Stars above the horizon, fading in as the day ends.
  if (night > 0.0 && dir.y > 0.0) c += stars(dir) * night * night * smoothstep(0.0, 0.15, dir.y) * u_sky_seen;
  // Clouds: a flat layer at the cloud base, where the view ray meets it within 3,000 blocks, thinning with distance
  // into the haze; lit by the sun's colour by day (the moon's grey by night), darker underneath.
  if (u_clouds.x > 0.0 && dir.y * u_clouds.y > 0.0) {
    float t = u_clouds.y / dir.y;
    if (t < 3000.0) {
      vec2 p = u_clouds.zw + dir.xz * t;
      float cover = cloud_cover(p);
      float fade = 1.0 - smoothstep(600.0, 3000.0, t);
      float thick = cloud_cover(p + u_sun_dir.xz * 24.0);  // cover toward the sun: self-shadowing
      vec3 lit = mix(vec3(0.10, 0.11, 0.16), u_sun_color * 1.02, u_day);
      vec3 col = lit * (1.0 - 0.35 * thick) * (dir.y > 0.0 ? 0.92 : 1.0);
      c = mix(c, mix(sky_color(dir), col * u_sky_seen, fade), cover * 0.9);
    }
  }
  o_color = vec4(c, 1.0);
}
