// Terrain shading, shared by the raster passes (terrain_frag.glsl) and the ray march (raymarch_comp.glsl), so both
// paths turn the same texel, normal, light and AO into the same colour: texel * (sky light * (ambient * face shade +
// sun diffuse), or the block light where that is brighter, per channel) * ambient occlusion, then distance fog
// toward the sky colour behind the point (sky_common.glsl, prepended).
uniform vec2 u_fog;  // horizontal distance (blocks) where fog starts and where it is complete
uniform uvec4 u_emissive[8];  // bit per texture layer (layer / 32 -> word, layer % 32 -> bit): the layer glows
// The layer tints (Renderer::set_layer_tint): 1024 x 1 RGBA8, texel `layer` multiplies that texture layer's rgb.
// White (1.0 exactly) where a layer is not tinted, so its texels are unchanged to the bit; a tinted layer's texture
// is plain white (BlockDef::tinted), so its texel is the tint: a .vox palette colour, recoloured by one texel write.
uniform sampler2D u_layer_tint;

// Light level (0..1) to brightness: a convex curve like Minecraft's, so torchlight falls off over ~14 blocks.
float brightness(float l) { return l / (4.0 - 3.0 * l); }

// The tint of texture layer `layer` (rgb, 0..1).
vec3 layer_tint(float layer) { return texelFetch(u_layer_tint, ivec2(int(layer + 0.5), 0), 0).rgb; }

bool emissive(int layer) {
  uvec4 words = u_emissive[layer >> 7];
  int word = (layer >> 5) & 3;
  uint bits = word == 0 ? words.x : (word == 1 ? words.y : (word == 2 ? words.z : words.w));
  return ((bits >> uint(layer & 31)) & 1u) != 0u;
}

// The colour of a lit surface point: `texel` (rgb, as it should look in full light), shading normal `n` (world,
// unit), `light4` (sky, red, green, blue, 0..1), `ao_level` (0..3, 3 = open), `rel` (camera-relative position,
// blocks), `sun_lit` (1 where the sun reaches the point; 0 in a traced shadow: the sun's diffuse term goes) and
// `glows` (the surface shows its own colour whatever the light). Terrain (shade_terrain) and the box pass
// (box_frag.glsl: creatures) both shade through it.
vec3 shade_surface(vec3 texel, vec3 n, vec4 light4, float ao_level, vec3 rel, float sun_lit, bool glows) {
  // Directional face shading (top 1.0, north/south 0.8, east/west 0.6, bottom 0.5), weighted for slopes.
  float shade = n.x * n.x * 0.6 + n.z * n.z * 0.8 + n.y * n.y * (n.y > 0.0 ? 1.0 : 0.5);
  float sun = max(dot(n, u_sun_dir), 0.0) * smoothstep(-0.05, 0.1, u_sun_dir.y);
  if (sun_lit < 1.0) sun *= sun_lit;
  float sky_scale = mix(0.10, 1.0, u_day);
  // The sun's part takes the colour of the sunlight (u_sun_color: white with the sun high, so day scenes are as
  // they were; orange to red at sunrise and sunset).
  vec3 sky = brightness(light4.x) * sky_scale * (0.7 * shade + 0.4 * sun * u_sun_color);
  // Block light keeps its hue: the curve is applied to the brightest channel and the others keep their ratio.
  float peak = max(light4.y, max(light4.z, light4.w));
  vec3 block = peak > 0.0 ? light4.yzw * (brightness(peak) / peak) * (0.55 + 0.45 * shade) : vec3(0.0);
  vec3 light = max(sky, block) + vec3(0.03);
  float ao = 0.45 + 0.55 * (ao_level / 3.0);
  vec3 color = texel * light * ao;
  // Glowing blocks (lava, glowstone, lamps, torches, magma) show their own colour whatever the light.
  if (glows) color = max(color, texel * (0.85 + 0.15 * ao));

  float dist = length(rel.xz);
  float fog = smoothstep(u_fog.x, u_fog.y, dist);
  if (fog > 0.0) color = mix(color, sky_color(normalize(rel)), fog);  // the sky colour only where it shows
  return color;
}

// The colour of a terrain point: `texel` (rgb as fetched from texture `layer`, untinted) and the rest as
// shade_surface. The layer's tint is multiplied in first, here, so every caller (the raster passes, their far and
// peel variants, the ray march) applies it to whatever texel it shades, the far pass's cutout fill included; the
// layer's emissive bit makes it glow.
vec3 shade_terrain(vec3 texel, vec3 n, vec4 light4, float ao_level, float layer, vec3 rel, float sun_lit) {
  return shade_surface(texel * layer_tint(layer), n, light4, ao_level, rel, sun_lit, emissive(int(layer + 0.5)));
}
