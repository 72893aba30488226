// The HUD, drawn in GL over the rendered frame with its own quads (no CPU surfaces; the VoxelBlox seed's rule):
// a crosshair, the hotbar (nine boxes in the blocks' colours, the selected one framed), a status line, the F3
// debug overlay text (a 5 x 7 bitmap font built in code, font.h) and an outline of the targeted block.
//
// Every element is a quad (or, for the outline, a line) with a clip-space position computed on the CPU, a texture
// coordinate into the font atlas (negative: plain colour) and a colour; one vertex buffer is streamed and drawn
// with two calls per frame (lines, then quads). The outline is depth-tested against the terrain (so hidden edges
// stay hidden) and writes no depth; the 2D parts ignore depth. Pixel sizes scale with the frame height (1 unit =
// height / 360 pixels, at least 1), so a 320 x 180 test frame and a 1080p window show the same layout.
// Threads: the GL context's thread.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "voxen/core/error.h"

namespace voxen::play {

/// What to draw this frame.
struct HudFrame {
  int width = 0, height = 0;                 // framebuffer pixels
  std::array<uint32_t, 9> hotbar_colors{};   // 0xAARRGGBB per slot
  int slot = 0;                              // selected slot
  std::string status;                        // one line at the top left (always shown)
  std::vector<std::string> overlay;          // F3 lines under it (empty: overlay hidden)
  bool crosshair = true;
  /// The targeted block's box, camera-relative (min corner and size, blocks), and the view-projection matrix that
  /// maps camera-relative positions to clip space.
  std::optional<std::pair<glm::dvec3, glm::dvec3>> outline;
  glm::dmat4 view_projection{1.0};
};

class Hud {
 public:
  /// Builds the program, the font texture and the buffers on the current context. Errors: shader compile/link
  /// logs, GL errors.
  static Result<std::unique_ptr<Hud>> create();
  ~Hud();
  Hud(const Hud&) = delete;
  Hud& operator=(const Hud&) = delete;

  /// Draws the HUD into `framebuffer` (the platform's draw target) over what is there.
  void draw(const HudFrame& frame, uint32_t framebuffer);
  /// Vertices drawn by the last draw() (for reports).
  size_t last_vertex_count() const { return m_last_vertices; }

 private:
  Hud() = default;
  struct Gl;
  std::unique_ptr<Gl> m_gl;
  size_t m_last_vertices = 0;
};

}  // namespace voxen::play
