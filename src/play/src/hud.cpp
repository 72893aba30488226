#include "voxen/play/hud.h"

#include <algorithm>
#include <cmath>

#include "voxen/render/bitmap_font.h"

namespace voxen::play {
namespace {

glm::vec4 rgba(uint32_t argb) {
  return {static_cast<float>((argb >> 16) & 255) / 255.0f, static_cast<float>((argb >> 8) & 255) / 255.0f,
          static_cast<float>(argb & 255) / 255.0f, static_cast<float>(argb >> 24) / 255.0f};
}

}  // namespace

render::OverlayList layout_hud(const HudFrame& f) {
  namespace font = render::font;
  render::OverlayList b(f.width, f.height);
  if (f.width <= 0 || f.height <= 0) return b;
  const float u = std::max(1.0f, std::floor(static_cast<float>(f.height) / 360.0f));  // one HUD unit in pixels
  const float cx = std::floor(f.width / 2.0f), cy = std::floor(f.height / 2.0f);
  const glm::vec4 white{1, 1, 1, 1}, dark{0, 0, 0, 0.75f}, shadow{0.1f, 0.1f, 0.1f, 1};

  // Outline of the targeted block: its 12 edges, slightly enlarged so the terrain does not hide them.
  if (f.outline) {
    const glm::dvec3 pad(0.004);
    b.box_edges(f.view_projection, f.outline->first - pad, f.outline->second + 2.0 * pad, {0.05f, 0.05f, 0.05f, 1});
  }

  // Figures: the box's edges, then the name tag over the projected point above it.
  for (const HudFigure& fig : f.figures) {
    b.box_edges(f.view_projection, fig.min, fig.size, rgba(fig.color));
    if (fig.label.empty()) continue;
    const glm::dvec3 top = fig.min + glm::dvec3(fig.size.x / 2, fig.size.y + 0.3, fig.size.z / 2);
    const glm::dvec4 clip = f.view_projection * glm::dvec4(top, 1.0);
    if (clip.w <= 0.01) continue;  // behind the eye
    const double px = (clip.x / clip.w + 1.0) / 2.0 * f.width, py = (1.0 - clip.y / clip.w) / 2.0 * f.height;
    const float tw = static_cast<float>(fig.label.size()) * font::kCellW * u, th = font::kCellH * u;
    const float x = std::floor(static_cast<float>(px) - tw / 2), y = std::floor(static_cast<float>(py) - th);
    if (!(x >= 0 && y >= 0 && x + tw <= static_cast<float>(f.width) && y + th <= static_cast<float>(f.height))) continue;
    b.rect(x - u, y - u, tw + 2 * u, th + u, {0, 0, 0, 0.45f});
    b.text(x, y, fig.label, u, white);
  }

  // Crosshair: a plus with a dark border.
  if (f.crosshair) {
    const float len = 5 * u, t = u;
    b.rect(cx - len - t, cy - t - t / 2, 2 * len + 2 * t, 3 * t, dark);
    b.rect(cx - t - t / 2, cy - len - t, 3 * t, 2 * len + 2 * t, dark);
    b.rect(cx - len, cy - t / 2, 2 * len, t, white);
    b.rect(cx - t / 2, cy - len, t, 2 * len, white);
  }

  // Hotbar: nine boxes centred at the bottom.
  const float box = 18 * u, gap = 2 * u;
  const float total = 9 * box + 8 * gap;
  const float x0 = std::floor((static_cast<float>(f.width) - total) / 2.0f), y0 = static_cast<float>(f.height) - box - 4 * u;
  for (int i = 0; i < 9; ++i) {
    const float x = x0 + static_cast<float>(i) * (box + gap);
    b.rect(x, y0, box, box, dark);
    glm::vec4 c = rgba(f.hotbar_colors[static_cast<size_t>(i)]);
    c.a = 1.0f;
    b.rect(x + 3 * u, y0 + 3 * u, box - 6 * u, box - 6 * u, c);
    if (i == f.slot) b.rect_outline(x - u, y0 - u, box + 2 * u, box + 2 * u, 2 * u, white);
    b.text(x + u, y0 + u, std::to_string(i + 1), u, white);
  }

  // Status line and overlay, with a backing box and a shadow under the text.
  float y = 2 * u;
  auto line = [&](const std::string& s) {
    b.rect(2 * u, y - u, static_cast<float>(s.size()) * font::kCellW * u + 2 * u, font::kCellH * u + u, {0, 0, 0, 0.45f});
    b.text(3 * u + u, y + u, s, u, shadow);
    b.text(3 * u, y, s, u, white);
    y += (font::kCellH + 1) * u;
  };
  if (!f.status.empty()) line(f.status);
  for (const std::string& s : f.overlay) line(s);
  // Messages, each wrapped to the frame's width (a 256-byte chat line is wider than most frames).
  const size_t per_line = static_cast<size_t>(std::max(1.0f, std::floor((static_cast<float>(f.width) - 6 * u) / (font::kCellW * u))));
  std::vector<std::string> wrapped;
  for (const std::string& s : f.messages)
    for (size_t at = 0; at < s.size(); at += per_line) wrapped.push_back(s.substr(at, per_line));
  y = y0 - 6 * u - static_cast<float>(wrapped.size()) * (font::kCellH + 1) * u;
  for (const std::string& s : wrapped) line(s);
  return b;
}

}  // namespace voxen::play
