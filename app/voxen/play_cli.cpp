#include "play_cli.h"

#include <cstdio>
#include <filesystem>
#include <system_error>

#include "cli_util.h"
#include "voxen/core/hash.h"

namespace voxen::app {

void parse_frame_size(const std::string& text, const std::string& arg, int& width, int& height) {
  const size_t x = text.find('x');
  auto w = x == std::string::npos ? std::nullopt : parse_int64(std::string_view(text).substr(0, x));
  auto h = x == std::string::npos ? std::nullopt : parse_int64(std::string_view(text).substr(x + 1));
  if (!w || !h || *w < 16 || *h < 16 || *w > 8192 || *h > 8192)
    throw UsageError(arg, "malformed or out of range '" + text + "' (expected WxH, each 16..8192)");
  width = static_cast<int>(*w);
  height = static_cast<int>(*h);
}

void check_render_distance(int columns, const std::string& arg) {
  if (columns < 1 || columns > 64) throw UsageError(arg, "must be 1..64 columns (got " + std::to_string(columns) + ")");
}

uint64_t image_hash(const render::Image& image) {
  uint64_t h = hash2(0x696D616765ull, image.width, image.height);
  uint64_t word = 0;
  size_t n = 0;
  for (uint8_t b : image.pixels) {
    word = word << 8 | b;
    if (++n == 8) {
      h = mix64(h ^ word);
      word = 0;
      n = 0;
    }
  }
  return mix64(h ^ word ^ (n << 56));
}

void ensure_dir(const std::string& dir, const std::string& arg) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir)) throw RunError(dir + ": cannot create the directory for " + arg + " (" + ec.message() + ")");
}

std::string feet_text(const play::PlayerState& p) {
  const glm::dvec3 f = p.feet();
  char buf[96];
  std::snprintf(buf, sizeof buf, "%.3f %.3f %.3f", f.x, f.y, f.z);
  return buf;
}

}  // namespace voxen::app
