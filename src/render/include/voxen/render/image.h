// An RGBA8 image in memory and its PNG file form (stb_image / stb_image_write from Debian's libstb).
//
// Layout: rows top to bottom, pixels left to right, 4 bytes each (R, G, B, A), no padding: the byte of channel c
// of pixel (x, y) is pixels[(y * width + x) * 4 + c]. y = 0 is the top row of the picture (glReadPixels' bottom-up
// rows are flipped by the renderer before they land here).
// Threads: plain value type; the PNG functions are reentrant.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "voxen/core/error.h"

namespace voxen::render {

struct Image {
  int width = 0;
  int height = 0;
  std::vector<uint8_t> pixels;  // width * height * 4 bytes, RGBA, top row first

  Image() = default;
  /// A width x height image filled with one RGBA colour (0xAARRGGBB).
  Image(int w, int h, uint32_t argb = 0xFF000000u);

  const uint8_t* at(int x, int y) const { return &pixels[(static_cast<size_t>(y) * static_cast<size_t>(width) + static_cast<size_t>(x)) * 4]; }
  uint8_t* at(int x, int y) { return &pixels[(static_cast<size_t>(y) * static_cast<size_t>(width) + static_cast<size_t>(x)) * 4]; }
  size_t pixel_count() const { return static_cast<size_t>(width) * static_cast<size_t>(height); }
  friend bool operator==(const Image&, const Image&) = default;
};

/// Reads a PNG (any bit depth / channel count stb_image accepts, converted to RGBA8). Errors name the file and
/// stb's reason (missing file, not a PNG, truncated data).
Result<Image> load_png(const std::string& path);
/// Writes an RGBA8 PNG. The bytes depend only on the pixels (stb's deflate is deterministic). Errors name the file.
Status save_png(const Image& image, const std::string& path);

}  // namespace voxen::render
