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
// VOXEN_SHADOWS 1 (FrameParams::shadows traced; GLSL 4.30, trace_common.glsl prepended): a sun ray from each
// fragment through the ray-march store; where it meets a shadow cell the sun's diffuse term goes.
#ifndef VOXEN_LOD
#define VOXEN_LOD 0
#endif
#ifndef VOXEN_SHADOWS
#define VOXEN_SHADOWS 0
#endif
uniform sampler2DArray u_textures;

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

#if VOXEN_SHADOWS
float sun_lit() {
  uint steps = 0u;
  return shadow_probe(v_rel, v_normal, steps).w == 0.0 ? 0.0 : 1.0;
}
#else
float sun_lit() { return 1.0; }
#endif

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
  vec3 color = shade_terrain(tex.rgb, v_normal, v_light, v_ao, v_layer, v_rel, sun_lit());
#if VOXEN_PEEL
  o_color = clamp(vec4(color, tex.a), 0.0, 1.0);
#elif VOXEN_FLUID
  o_color = vec4(color, tex.a);
#else
  o_color = vec4(color, 1.0);  // a kept cutout fragment is opaque (the framebuffer's alpha reaches the PNG)
#endif
}
