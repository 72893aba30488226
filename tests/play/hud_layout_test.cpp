// The HUD's layout (play/hud.h) as overlay primitives, without GL: a message wider than the frame is cut into lines
// that stay inside it, stacked upward from above the hotbar.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "voxen/play/hud.h"

namespace voxen::play {
namespace {

TEST(HudLayout, AMessageWiderThanTheFrameIsCutIntoLinesInsideIt) {
  HudFrame f;
  f.width = 320;
  f.height = 180;  // one HUD unit = 1 pixel
  f.crosshair = false;
  f.messages = {"BOB: " + std::string(200, 'X')};  // 205 characters of 6 pixels: 1,230 pixels
  const render::OverlayList list = layout_hud(f);
  float max_x = -2, max_y = -2;
  for (const render::OverlayVertex& v : list.quad_vertices()) {
    max_x = std::max(max_x, v.x / v.w);
    max_y = std::max(max_y, v.y / v.w);
  }
  EXPECT_LE(max_x, 1.0f) << "a text quad reaches past the frame's right edge";
  // 52 characters fit a line ((320 - 6) / 6): 4 lines, the top one 4 x 9 pixels over the lowest line's top.
  const float hotbar_top = 180 - 18 - 4, lowest_top = hotbar_top - 6 - 9;
  const float top_line = lowest_top - 3 * 9;
  EXPECT_NEAR(max_y, 1.0f - 2.0f * (top_line - 1) / 180.0f, 1e-4f) << "the backing box of the top line (1 unit above it)";
}

}  // namespace
}  // namespace voxen::play
