// The HUD's content and layout: a crosshair, the hotbar (nine boxes in the blocks' colours, the selected one
// framed, numbered 1-9), a status line, the F3 debug overlay text and an outline of the targeted block. `layout_hud`
// turns a HudFrame into an overlay list; render::Overlay (voxen/render/overlay.h) draws it over the frame, so this
// module holds the game's UI rules and render holds every GL call (VoxelBlox's rule: the HUD is GL quads
// over the frame, no CPU surfaces).
//
// Layout: pixel sizes scale with the frame height (1 unit = floor(height / 360) pixels, at least 1), so a 320 x 180
// test frame and a 1080p window show the same layout. The status line and the overlay lines start 2 units from
// the top left, one font line (8 units) + 1 unit apart, white text with a dark shadow 1 unit down and right, over
// a translucent black box; the messages are lines of the same kind stacked upward from 6 units above the hotbar,
// from 2 units from the left edge, the newest lowest, each cut into lines as wide as the frame allows; the hotbar's boxes are 18 units with 2 between, 4 units above the bottom, centred; the
// crosshair is a 10-unit plus, 1 unit thick, with a dark border, at the frame's centre. The outline is the targeted
// box enlarged by 0.004 block each way, so the terrain's faces do not hide its edges (lines are depth-tested). A
// figure is its box's 12 edges, depth-tested, and its name tag: white text at HUD scale over a translucent black
// box, centred on the point 0.3 block above the box's top centre, drawn when that point is in front of the eye and
// the tag fits inside the frame (not depth-tested: a name shows through walls, as in Minecraft).
// Threads: any (pure).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <glm/glm.hpp>

#include "voxen/render/overlay.h"

namespace voxen::play {

/// A box in the world with a name tag: another player (Game::set_figures).
struct HudFigure {
  glm::dvec3 min{0.0}, size{1.0};  // camera-relative min corner and size, blocks
  uint32_t color = 0xFFFFFFFF;     // 0xAARRGGBB of the edges
  std::string label;               // drawn centred 0.3 block above the box's top (empty: none)
};

/// What to show this frame.
struct HudFrame {
  int width = 0, height = 0;                 // framebuffer pixels
  std::array<uint32_t, 9> hotbar_colors{};   // 0xAARRGGBB per slot (drawn opaque)
  int slot = 0;                              // selected slot
  std::string status;                        // one line at the top left (always shown)
  std::vector<std::string> overlay;          // F3 lines under it (empty: overlay hidden)
  std::vector<std::string> messages;         // chat and player lines above the hotbar's left end, newest last
  bool crosshair = true;
  /// The targeted block's box, camera-relative (min corner and size, blocks), and the view-projection matrix that
  /// maps camera-relative positions to clip space.
  std::optional<std::pair<glm::dvec3, glm::dvec3>> outline;
  std::vector<HudFigure> figures;  // other players, drawn like the outline, with their name tags
  glm::dmat4 view_projection{1.0};
};

/// The HUD of `frame` as overlay primitives for a frame.width x frame.height frame (the layout in the file
/// comment): the outline's and figures' lines, then the name tags, the crosshair, the hotbar and the text, in
/// painter's order.
render::OverlayList layout_hud(const HudFrame& frame);

}  // namespace voxen::play
