// Terrain fragment shader: texel * (sky light * (ambient * face shade + sun diffuse), or the block light where
// that is brighter, per channel) * ambient occlusion, then distance fog toward the sky colour behind the
// fragment. VOXEN_FLUID 0: alpha-tested (cutout leaves and plants; opaque textures have alpha 1); 1: blended
// (the alpha comes from the texture).
uniform sampler2DArray u_textures;
uniform vec2 u_fog;  // horizontal distance (blocks) where fog starts and where it is complete

in vec3 v_rel;
in vec2 v_uv;
flat in float v_layer;
flat in vec3 v_normal;
in vec4 v_light;
in float v_ao;
layout(location = 0) out vec4 o_color;

// Light level (0..1) to brightness: a convex curve like Minecraft's, so torchlight falls off over ~14 blocks.
vec3 brightness(vec3 l) { return l / (4.0 - 3.0 * l); }

void main() {
  vec4 tex = texture(u_textures, vec3(v_uv, v_layer));
#if !VOXEN_FLUID
  if (tex.a < 0.5) discard;
#endif
  vec3 n = v_normal;
  // Directional face shading (top 1.0, north/south 0.8, east/west 0.6, bottom 0.5), weighted for slopes.
  float shade = n.x * n.x * 0.6 + n.z * n.z * 0.8 + n.y * n.y * (n.y > 0.0 ? 1.0 : 0.5);
  float sun = max(dot(n, u_sun_dir), 0.0) * smoothstep(-0.05, 0.1, u_sun_dir.y);
  float sky_scale = mix(0.10, 1.0, u_day);
  float sky = brightness(vec3(v_light.x)).x * sky_scale * (0.62 * shade + 0.48 * sun);
  vec3 block = brightness(v_light.yzw) * 1.05;
  vec3 light = max(vec3(sky), block) + vec3(0.015);
  float ao = 0.45 + 0.55 * (v_ao / 3.0);
  vec3 color = tex.rgb * light * ao;

  float dist = length(v_rel.xz);
  float fog = smoothstep(u_fog.x, u_fog.y, dist);
  color = mix(color, sky_color(normalize(v_rel)), fog);
  o_color = vec4(color, tex.a);
}
