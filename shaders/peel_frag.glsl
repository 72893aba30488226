// Depth-peeling reference (renderer.h FrameParams::reference_translucency), full-screen passes over sky_vert's
// triangle: copies a float texture (a peeled layer or the accumulation, premultiplied colour and alpha) to the
// target, where the renderer's blending puts it under the earlier layers or over the opaque frame.
uniform sampler2D u_source;
layout(location = 0) out vec4 o_color;

void main() { o_color = texelFetch(u_source, ivec2(gl_FragCoord.xy), 0); }
