// Test support for play tests: reads the HUD's text back from a frame's pixels with the HUD's own glyphs, so a
// test can ask what a player sees written on the screen.
#pragma once

#include <string>
#include <vector>

#include "voxen/render/bitmap_font.h"  // the HUD's glyphs (the overlay's font)
#include "voxen/render/image.h"

namespace voxen::play::testing {

/// Reads the HUD's status line off a frame (top row first): the white ink of each 6 x 8 character cell from
/// pixel (left, top) on (one HUD unit = 1 pixel below 360 pixels of height), matched against the font's glyphs.
/// Characters that match no glyph read as '?'; trailing blanks are dropped. read_status_line reads the status line,
/// from (3, 2).
inline std::string read_hud_line(const render::Image& img, int left, int top) {
  namespace font = render::font;
  const std::vector<uint8_t> atlas = font::build_atlas();
  auto ink = [&](int x, int y) {
    if (x < 0 || y < 0 || x >= img.width || y >= img.height) return false;
    const uint8_t* p = &img.pixels[(static_cast<size_t>(y) * static_cast<size_t>(img.width) + static_cast<size_t>(x)) * 4];
    return p[0] >= 250 && p[1] >= 250 && p[2] >= 250;
  };
  std::string out;
  for (int i = 0; left + (i + 1) * font::kCellW <= img.width; ++i) {
    char found = '?';
    for (int c = 32; c < 127 && found == '?'; ++c) {
      const int ax = ((c - 32) % font::kAtlasCols) * font::kCellW, ay = ((c - 32) / font::kAtlasCols) * font::kCellH;
      bool same = true;
      for (int y = 0; y < font::kCellH && same; ++y)
        for (int x = 0; x < font::kCellW && same; ++x)
          same = (atlas[static_cast<size_t>((ay + y) * font::kAtlasW + ax + x)] >= 128) == ink(left + i * font::kCellW + x, top + y);
      if (same) found = static_cast<char>(c);
    }
    out.push_back(found);
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

inline std::string read_status_line(const render::Image& img) { return read_hud_line(img, 3, 2); }

/// Reads the HUD's message lines (chat, players joining and leaving) off a frame whose HUD unit is 1 pixel, `count`
/// lines above the hotbar, oldest first (hud.h's layout: the lowest line 6 units over the hotbar's top, lines 9
/// units apart, text from 3 units from the left).
inline std::vector<std::string> read_message_lines(const render::Image& img, int count) {
  const int hotbar_top = img.height - 18 - 4;
  std::vector<std::string> out;
  for (int i = 0; i < count; ++i) out.push_back(read_hud_line(img, 3, hotbar_top - 6 - (count - i) * (render::font::kCellH + 1)));
  return out;
}

}  // namespace voxen::play::testing
