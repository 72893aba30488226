// The ray march's composite (with sky_vert.glsl): its colour (premultiplied: opaque hits alpha 1, translucent
// layers over nothing opaque their coverage) blended over what the sky and far passes drew (ONE, ONE_MINUS_SRC_ALPHA),
// and its depth written as the fragment's (1 where no opaque hit: the near passes write no depth there either).
uniform sampler2D u_march_color;
uniform sampler2D u_march_depth;
in vec2 v_ndc;
layout(location = 0) out vec4 o_color;

void main() {
  ivec2 px = ivec2(gl_FragCoord.xy);
  vec4 c = texelFetch(u_march_color, px, 0);
  float z = texelFetch(u_march_depth, px, 0).r;
  if (c.a == 0.0) discard;
  o_color = c;
  gl_FragDepth = z;
}
