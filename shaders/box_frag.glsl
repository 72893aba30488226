// The box pass's colour (box_vert.glsl): the skin texel, shaded as terrain is (shade_common.glsl shade_surface:
// sky light by the time of day, block light, fog) with the instance's light and no ambient occlusion. The renderer
// prepends #version, sky_common.glsl and shade_common.glsl.
uniform sampler2DArray u_skins;
in vec3 v_rel;
in vec3 v_normal;
in vec2 v_uv;
flat in float v_layer;
in vec4 v_light;
layout(location = 0) out vec4 o_color;

void main() {
  vec4 tex = texture(u_skins, vec3(v_uv, v_layer));
  o_color = vec4(shade_surface(tex.rgb, normalize(v_normal), v_light, 3.0, v_rel, 1.0, false), 1.0);
}
