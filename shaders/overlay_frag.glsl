// Overlay pass (overlay.h): a plain colour (u < 0) or the colour where the font atlas has ink (R8 texel at least
// 0.5; the rest of the glyph cell is discarded, so text has hard 1-pixel edges). Blended by the overlay with
// SRC_ALPHA, ONE_MINUS_SRC_ALPHA.
uniform sampler2D u_font;
in vec2 v_uv;
in vec4 v_color;
out vec4 o_color;
void main() {
  float ink = v_uv.x < 0.0 ? 1.0 : texture(u_font, v_uv).r;
  if (ink < 0.5) discard;
  o_color = v_color;
}
