#include "play_cli.h"

#include <cstdio>
#include <filesystem>
#include <system_error>

#include "cli_util.h"
#include "voxen/core/hash.h"

namespace voxen::app {

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
