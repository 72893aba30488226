#include "voxen/render/imgdiff.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <vector>

namespace voxen::render {
namespace {

int pixel_delta(const uint8_t* p, const uint8_t* q) {
  int d = 0;
  for (int c = 0; c < 4; ++c) d = std::max(d, std::abs(static_cast<int>(p[c]) - static_cast<int>(q[c])));
  return d;
}

// Size of the largest 4-connected component of set cells in mask (w x h, row-major). Iterative flood fill.
uint64_t largest_component(const std::vector<uint8_t>& mask, int w, int h) {
  std::vector<uint8_t> seen(mask.size(), 0);
  std::vector<int> stack;
  uint64_t best = 0;
  for (int start = 0; start < w * h; ++start) {
    if (!mask[static_cast<size_t>(start)] || seen[static_cast<size_t>(start)]) continue;
    uint64_t size = 0;
    stack.push_back(start);
    seen[static_cast<size_t>(start)] = 1;
    while (!stack.empty()) {
      const int i = stack.back();
      stack.pop_back();
      ++size;
      const int x = i % w, y = i / w;
      const int nb[4] = {x > 0 ? i - 1 : -1, x + 1 < w ? i + 1 : -1, y > 0 ? i - w : -1, y + 1 < h ? i + w : -1};
      for (int n : nb) {
        if (n < 0 || !mask[static_cast<size_t>(n)] || seen[static_cast<size_t>(n)]) continue;
        seen[static_cast<size_t>(n)] = 1;
        stack.push_back(n);
      }
    }
    best = std::max(best, size);
  }
  return best;
}

}  // namespace

DiffResult compare_images(const Image& a, const Image& b, DiffMode mode, const LookRule& rule) {
  DiffResult r;
  r.pixels = a.pixel_count();
  if (a.width != b.width || a.height != b.height || a.pixels.size() != b.pixels.size()) {
    r.size_mismatch = true;
    r.pass = false;
    return r;
  }
  std::vector<uint8_t> failing(a.pixel_count(), 0);
  for (size_t i = 0; i < a.pixel_count(); ++i) {
    const int d = pixel_delta(&a.pixels[i * 4], &b.pixels[i * 4]);
    r.max_channel_delta = std::max(r.max_channel_delta, d);
    if (d > 0) ++r.pixels_differing;
    if (d > rule.channel_tolerance) {
      ++r.pixels_failing;
      failing[i] = 1;
    }
  }
  r.largest_blob = r.pixels_failing ? largest_component(failing, a.width, a.height) : 0;
  if (mode == DiffMode::kStrict) {
    r.pass = r.pixels_differing == 0;
  } else {
    const double limit = rule.max_failing_fraction * static_cast<double>(r.pixels);
    r.pass = static_cast<double>(r.pixels_failing) <= limit && r.largest_blob <= static_cast<uint64_t>(rule.max_blob_pixels);
  }
  return r;
}

bool LookRule::fails(const uint8_t* p, const uint8_t* q) const { return pixel_delta(p, q) > channel_tolerance; }

Image diff_image(const Image& a, const Image& b, const LookRule& rule) {
  Image out(a.width, a.height, 0xFFFF0000u);
  if (a.width != b.width || a.height != b.height) return out;
  for (int y = 0; y < a.height; ++y)
    for (int x = 0; x < a.width; ++x) {
      const uint8_t* p = a.at(x, y);
      const uint8_t* q = b.at(x, y);
      uint8_t* o = out.at(x, y);
      const int d = pixel_delta(p, q);
      if (d > rule.channel_tolerance) {
        o[0] = 255, o[1] = 0, o[2] = 0;
      } else if (d > 0) {
        o[0] = 255, o[1] = 220, o[2] = 0;
      } else {
        const int grey = (static_cast<int>(p[0]) * 77 + static_cast<int>(p[1]) * 150 + static_cast<int>(p[2]) * 29) >> 8;
        const auto g = static_cast<uint8_t>(grey / 3 + 20);
        o[0] = g, o[1] = g, o[2] = g;
      }
      o[3] = 255;
    }
  return out;
}

bool parse_diff_mode(std::string_view text, DiffMode& out) {
  if (text == "strict") {
    out = DiffMode::kStrict;
    return true;
  }
  if (text == "look") {
    out = DiffMode::kLook;
    return true;
  }
  return false;
}

}  // namespace voxen::render
