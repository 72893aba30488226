// The overlay's bitmap font (overlay.h): 5 x 7 glyphs drawn in code (no asset files), one 6 x 8 cell each in a
// 16 x 6 cell atlas for the printable ASCII range 32..127. Lower-case letters draw as capitals; characters without
// a glyph draw as a hollow box. Public so that layouts can measure text (a character advances kCellW pixels per
// unit of scale, a line kCellH) and tests can read text back from pixels.
#pragma once

#include <cstdint>
#include <vector>

namespace voxen::render::font {

inline constexpr int kGlyphW = 5, kGlyphH = 7;  // glyph pixels
inline constexpr int kCellW = 6, kCellH = 8;    // atlas cell (one pixel of spacing right and below)
inline constexpr int kAtlasCols = 16, kAtlasRows = 6;
inline constexpr int kAtlasW = kCellW * kAtlasCols, kAtlasH = kCellH * kAtlasRows;  // 96 x 48

/// The atlas as R8 texels (255 = ink), row 0 at the top, kAtlasW x kAtlasH; character c (32..127) sits in cell
/// (c - 32) % 16, (c - 32) / 16.
std::vector<uint8_t> build_atlas();

}  // namespace voxen::render::font
