// Terrain fragment shader: texel * (sky light * (ambient * face shade + sun diffuse), or the block light where
// that is brighter, per channel) * ambient occlusion, then distance fog toward the sky colour behind the
// fragment. VOXEN_FLUID 0: alpha-tested (cutout leaves and plants; opaque textures have alpha 1); 1: blended
// (the alpha comes from the texture).
// VOXEN_PEEL 1 (the depth-peeling reference, renderer.h FrameParams::reference_translucency): fragments within a
// tie window of or in front of the previous layer's depth (u_peel_prev, R32F gl_FragCoord.z) are discarded; pass 0
// writes the fragment's depth to a second output (the depth test keeps the nearest), pass 1 also discards those
// behind this layer's depth (u_peel_layer) plus the window, and its colour is clamped (as an RGBA8 target clamps
// a fragment before blending) for blending into a float layer.
// VOXEN_LOD 1 (the far pass, lod_vert.glsl; opaque, VOXEN_FLUID 0): fragments over a column the near pass draws
// are discarded (the hand-over mask, u_near_mask: the column of the point half a cell inside the face, v_inward,
// relative to the camera's column), and so are those wholly fog (at or past the fog end); a cutout texel with
// alpha < 0.5 takes the layer's mean colour (its 1 x 1 mip) instead of leaving a hole (a far canopy is a solid cube).
#ifndef VOXEN_LOD
#define VOXEN_LOD 0
#endif
uniform sampler2DArray u_textures;
uniform vec2 u_fog;  // horizontal distance (blocks) where fog starts and where it is complete
uniform uvec4 u_emissive[8];  // bit per texture layer (layer / 32 -> word, layer % 32 -> bit): the layer glows

in vec3 v_rel;
in vec2 v_uv;
flat in float v_layer;
flat in vec3 v_normal;
in vec4 v_light;
in float v_ao;
layout(location = 0) out vec4 o_color;
#if VOXEN_PEEL
uniform sampler2D u_peel_prev;
uniform sampler2D u_peel_layer;
uniform int u_peel_pass;
layout(location = 1) out float o_depth;
// Depths closer than this count as one (a few float ulps near 1: 4e-4 blocks at 10 blocks from the eye).
const float kPeelTie = 4e-7;
#endif
#if VOXEN_LOD
uniform sampler2D u_near_mask;  // R8, 256 x 256: texel (column - camera column + 128) is 1 where a near column is drawn
uniform vec2 u_eye_in_column;   // the eye's x and z within its column, blocks, [0, 16)
in vec3 v_inward;
#endif

// Light level (0..1) to brightness: a convex curve like Minecraft's, so torchlight falls off over ~14 blocks.
float brightness(float l) { return l / (4.0 - 3.0 * l); }

bool emissive(int layer) {
  uvec4 words = u_emissive[layer >> 7];
  int word = (layer >> 5) & 3;
  uint bits = word == 0 ? words.x : (word == 1 ? words.y : (word == 2 ? words.z : words.w));
  return ((bits >> uint(layer & 31)) & 1u) != 0u;
}

void main() {
  vec4 tex = texture(u_textures, vec3(v_uv, v_layer));
#if VOXEN_PEEL
  // After the texture fetch: a discard before it would change the 2x2 quad's derivatives, hence the mip level.
  ivec2 px = ivec2(gl_FragCoord.xy);
  if (gl_FragCoord.z <= texelFetch(u_peel_prev, px, 0).r + kPeelTie) discard;
  if (u_peel_pass == 1 && gl_FragCoord.z > texelFetch(u_peel_layer, px, 0).r + kPeelTie) discard;
  o_depth = gl_FragCoord.z;
#endif
#if VOXEN_LOD
  // After the texture fetch (a discard before it would change the 2x2 quad's derivatives).
  vec2 column = floor((v_inward.xz + u_eye_in_column) / 16.0) + 128.0;
  if (all(greaterThanEqual(column, vec2(0.0))) && all(lessThan(column, vec2(256.0))) &&
      texelFetch(u_near_mask, ivec2(column), 0).r > 0.5)
    discard;
  // Wholly fog (at or past the fog end, horizontally): the sky shows there, so the far pass leaves the sky pass's
  // pixel (with its sun disc, glow and stars, which the fog colour lacks) and marks no stencil (read_depth: terrain
  // shows only where it is not wholly fog). A LOD section is drawn whole when its nearest point is within the fog
  // end, the far pass's only cut.
  if (length(v_rel.xz) >= u_fog.y) discard;
  if (tex.a < 0.5) tex.rgb = textureLod(u_textures, vec3(v_uv, v_layer), 4.0).rgb;
#elif !VOXEN_FLUID
  if (tex.a < 0.5) discard;
#endif
  vec3 n = v_normal;
  // Directional face shading (top 1.0, north/south 0.8, east/west 0.6, bottom 0.5), weighted for slopes.
  float shade = n.x * n.x * 0.6 + n.z * n.z * 0.8 + n.y * n.y * (n.y > 0.0 ? 1.0 : 0.5);
  float sun = max(dot(n, u_sun_dir), 0.0) * smoothstep(-0.05, 0.1, u_sun_dir.y);
  float sky_scale = mix(0.10, 1.0, u_day);
  float sky = brightness(v_light.x) * sky_scale * (0.7 * shade + 0.4 * sun);
  // Block light keeps its hue: the curve is applied to the brightest channel and the others keep their ratio.
  float peak = max(v_light.y, max(v_light.z, v_light.w));
  vec3 block = peak > 0.0 ? v_light.yzw * (brightness(peak) / peak) * (0.55 + 0.45 * shade) : vec3(0.0);
  vec3 light = max(vec3(sky), block) + vec3(0.03);
  float ao = 0.45 + 0.55 * (v_ao / 3.0);
  vec3 color = tex.rgb * light * ao;
  // Glowing blocks (lava, glowstone, lamps, torches, magma) show their own colour whatever the light.
  if (emissive(int(v_layer + 0.5))) color = max(color, tex.rgb * (0.85 + 0.15 * ao));

  float dist = length(v_rel.xz);
  float fog = smoothstep(u_fog.x, u_fog.y, dist);
  if (fog > 0.0) color = mix(color, sky_color(normalize(v_rel)), fog);  // the sky colour only where it shows
#if VOXEN_PEEL
  o_color = clamp(vec4(color, tex.a), 0.0, 1.0);
#elif VOXEN_FLUID
  o_color = vec4(color, tex.a);
#else
  o_color = vec4(color, 1.0);  // a kept cutout fragment is opaque (the framebuffer's alpha reaches the PNG)
#endif
}
