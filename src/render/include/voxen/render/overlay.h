// The overlay: what is drawn over a rendered frame (the game's HUD draws through it): coloured rectangles and text
// in pixel space, and lines in 3D depth-tested against the terrain already in the framebuffer.
//
// Two halves. `OverlayList` is plain CPU data (no GL; any thread): primitives in the order they are added,
// converted to clip space as they are added: pixel positions (x right, y down from the frame's top-left corner)
// with 2x/width - 1 and 1 - 2y/height, 3D points (camera-relative blocks, as Camera::relative gives) with a
// view-projection matrix in double precision, then rounded to float. `Overlay` owns the GL objects (a program from
// shaders/overlay_vert.glsl and overlay_frag.glsl, the font atlas texture, one streamed vertex buffer) and draws a
// list with two calls: the lines (GL_LINES, depth test LEQUAL, no depth write, so a block outline's hidden edges
// stay hidden), then the quads (no depth test, in the order added: painter's order). Everything is blended with
// SRC_ALPHA, ONE_MINUS_SRC_ALPHA (alpha: ONE, ONE_MINUS_SRC_ALPHA); colours are straight-alpha RGBA in 0..1.
// Text uses the 5 x 7 bitmap font of bitmap_font.h: each character is a quad over its 6 x 8 atlas cell, sampled
// nearest, and only texels with ink are drawn (the fragment shader discards the rest), so glyphs have hard edges.
// VoxelBlox's rule: the HUD is GL quads over the frame, no CPU surfaces.
// Threads: Overlay on the GL context's thread; OverlayList anywhere.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include <glm/glm.hpp>

#include "voxen/core/error.h"

namespace voxen::render {

/// One overlay vertex (40 bytes): clip-space position, font-atlas coordinate (u < 0: plain colour), colour.
struct OverlayVertex {
  float x, y, z, w;  // clip space
  float u, v;        // font atlas, 0..1 (v = 0 at the atlas's top row); u < 0: plain colour
  float r, g, b, a;  // straight alpha, 0..1
};

/// A frame's overlay primitives (see the file comment). Sizes and positions are pixels of a width x height frame.
class OverlayList {
 public:
  OverlayList(int width, int height) : m_w(width), m_h(height) {}
  int width() const { return m_w; }
  int height() const { return m_h; }

  /// A rectangle filled with `colour`; (x, y) is its top-left corner, w x h its size.
  void rect(float x, float y, float w, float h, const glm::vec4& colour);
  /// The border of the rectangle (x, y, w, h), `thickness` pixels wide inside it: four rectangles (top, bottom,
  /// left, right; the sides between the top and bottom ones, so no pixel is covered twice).
  void rect_outline(float x, float y, float w, float h, float thickness, const glm::vec4& colour);
  /// Text whose first character cell has its top-left corner at (x, y); each font pixel is `scale` pixels square
  /// and a character advances font::kCellW * scale. Bytes outside 32..127 draw as character 127 (a hollow box).
  void text(float x, float y, std::string_view s, float scale, const glm::vec4& colour);
  /// A line between two camera-relative points (blocks from the eye), projected with `view_projection` (the
  /// camera's, its aspect that of this frame). Dropped unless both ends are in front of the eye (clip w > 0.01):
  /// lines are not clipped against the near plane.
  void line(const glm::dmat4& view_projection, const glm::dvec3& a, const glm::dvec3& b, const glm::vec4& colour);
  /// The 12 edges of the box from `min` (camera-relative blocks) spanning `size`, each as line() draws it.
  void box_edges(const glm::dmat4& view_projection, const glm::dvec3& min, const glm::dvec3& size, const glm::vec4& colour);

  /// The triangles of the quads (6 vertices each) and the lines' ends (2 each), in the order added.
  const std::vector<OverlayVertex>& quad_vertices() const { return m_quads; }
  const std::vector<OverlayVertex>& line_vertices() const { return m_lines; }

 private:
  void quad(float x, float y, float w, float h, float u0, float v0, float u1, float v1, const glm::vec4& c);
  void line_clip(const glm::dvec4& a, const glm::dvec4& b, const glm::vec4& c);
  OverlayVertex pixel_vertex(float x, float y, float u, float v, const glm::vec4& c) const;
  int m_w, m_h;
  std::vector<OverlayVertex> m_quads, m_lines;
};

/// The GL side of the overlay (see the file comment).
class Overlay {
 public:
  /// Builds the program, the font atlas texture and the vertex buffer on the current context. Errors: the
  /// shader compiler's or linker's log, GL errors while creating.
  static Result<std::unique_ptr<Overlay>> create();
  ~Overlay();
  Overlay(const Overlay&) = delete;
  Overlay& operator=(const Overlay&) = delete;

  /// Draws `list` into `framebuffer` (a platform's draw target, Platform::framebuffer()) over what is there, with
  /// the viewport set to the list's size; nothing when either side is 0 or less. Leaves depth test, blending and
  /// face culling off and depth writes on.
  void draw(const OverlayList& list, uint32_t framebuffer);

 private:
  Overlay();
  struct Gl;
  std::unique_ptr<Gl> m_gl;
};

}  // namespace voxen::render
