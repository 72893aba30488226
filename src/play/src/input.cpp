#include "voxen/play/input.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "voxen/sim/scenario.h"

namespace voxen::play {
namespace {

constexpr std::array<std::string_view, kKeyCount> kKeyNames = {
    "w", "a", "s", "d", "space", "shift", "ctrl", "escape", "f", "f2", "f3", "1", "2", "3", "4", "5", "6", "7", "8", "9", "b", "g"};
constexpr std::array<std::string_view, kButtonCount> kButtonNames = {"left", "right", "middle"};
constexpr std::array<std::string_view, static_cast<size_t>(EventKind::kCount)> kKindNames = {
    "key_down", "key_up", "button_down", "button_up", "mouse", "scroll", "frame_time",
    "teleport", "look",   "set_fly",     "fly_speed", "blast", "scenario"};

template <class E, size_t N>
std::optional<E> lookup(const std::array<std::string_view, N>& names, std::string_view name) {
  for (size_t i = 0; i < N; ++i)
    if (names[i] == name) return static_cast<E>(i);
  return std::nullopt;
}

}  // namespace

std::string_view key_name(Key key) {
  const auto i = static_cast<size_t>(key);
  return i < kKeyNames.size() ? kKeyNames[i] : std::string_view{};
}
std::string_view button_name(MouseButton button) {
  const auto i = static_cast<size_t>(button);
  return i < kButtonNames.size() ? kButtonNames[i] : std::string_view{};
}
std::string_view event_kind_name(EventKind kind) {
  const auto i = static_cast<size_t>(kind);
  return i < kKindNames.size() ? kKindNames[i] : std::string_view{};
}
std::optional<Key> parse_key(std::string_view name) { return lookup<Key>(kKeyNames, name); }
std::optional<MouseButton> parse_button(std::string_view name) { return lookup<MouseButton>(kButtonNames, name); }
std::optional<EventKind> parse_event_kind(std::string_view name) { return lookup<EventKind>(kKindNames, name); }

void InputHandler::set_look(double yaw, double pitch) {
  m_controls.yaw = yaw;
  m_controls.pitch = std::clamp(pitch, -m_config.max_pitch, m_config.max_pitch);
}

void InputHandler::handle(const InputEvent& e) {
  if (!std::isfinite(e.x) || !std::isfinite(e.y) || !std::isfinite(e.z)) return;
  Controls& c = m_controls;
  switch (e.kind) {
    case EventKind::kKeyDown: {
      if (e.code < 0 || e.code >= kKeyCount) return;
      const Key k = static_cast<Key>(e.code);
      const bool was_held = c.held[static_cast<size_t>(e.code)];
      c.held.set(static_cast<size_t>(e.code));
      if (was_held) return;  // key repeat: only the first press acts
      switch (k) {
        case Key::kSpace:
          if (m_time - m_last_space <= m_config.double_tap_seconds) {
            m_requests.toggle_fly = !m_requests.toggle_fly;
            m_last_space = -1e300;  // a third press starts a new double tap
          } else {
            m_last_space = m_time;
          }
          break;
        case Key::kF: m_requests.toggle_fly = !m_requests.toggle_fly; break;
        case Key::kEscape: c.cursor_captured = false; break;
        case Key::kF2: m_requests.screenshot = true; break;
        case Key::kF3: c.overlay = !c.overlay; break;
        case Key::kB:
          if (c.cursor_captured) m_requests.blasts.push_back({std::nullopt, std::clamp(m_config.blast_radius, 1, kMaxBlastRadius)});
          break;
        case Key::kG:
          if (c.cursor_captured) m_requests.scenarios.push_back({std::nullopt, 0});  // dam-break
          break;
        default:
          if (k >= Key::k1 && k <= Key::k9) c.slot = e.code - static_cast<int>(Key::k1);
          break;
      }
      return;
    }
    case EventKind::kKeyUp:
      if (e.code >= 0 && e.code < kKeyCount) c.held.reset(static_cast<size_t>(e.code));
      return;
    case EventKind::kButtonDown: {
      if (e.code < 0 || e.code >= kButtonCount) return;
      const bool was_down = c.buttons[static_cast<size_t>(e.code)];
      c.buttons.set(static_cast<size_t>(e.code));
      if (was_down) return;
      if (!c.cursor_captured) {  // the click that captures the cursor does nothing else
        c.cursor_captured = true;
        return;
      }
      if (e.code == static_cast<int>(MouseButton::kLeft)) ++m_requests.breaks;
      if (e.code == static_cast<int>(MouseButton::kRight)) ++m_requests.places;
      return;
    }
    case EventKind::kButtonUp:
      if (e.code >= 0 && e.code < kButtonCount) c.buttons.reset(static_cast<size_t>(e.code));
      return;
    case EventKind::kMouseMove:
      if (!c.cursor_captured) return;
      c.yaw = std::remainder(c.yaw + e.x * m_config.mouse_degrees_per_pixel, 360.0);
      c.pitch = std::clamp(c.pitch - e.y * m_config.mouse_degrees_per_pixel, -m_config.max_pitch, m_config.max_pitch);
      return;
    case EventKind::kScroll: {
      if (!c.cursor_captured || e.y == 0.0) return;
      const int step = e.y > 0 ? -1 : 1;
      c.slot = (c.slot + step + kHotbarSlots) % kHotbarSlots;
      return;
    }
    case EventKind::kFrameTime:
      if (e.x >= 0.0 && e.x <= 1.0) c.frame_seconds = e.x;
      return;
    case EventKind::kTeleport:
      m_requests.teleport[0] = e.x;
      m_requests.teleport[1] = e.y;
      m_requests.teleport[2] = e.z;
      return;
    case EventKind::kLook: set_look(std::remainder(e.x, 360.0), e.y); return;
    case EventKind::kSetFly: m_requests.set_fly = e.code != 0; return;
    case EventKind::kFlySpeed:
      if (e.x >= 0.0 && e.x <= 10000.0) m_requests.fly_speed = e.x;
      return;
    case EventKind::kBlast:
      if (e.code < 1 || e.code > kMaxBlastRadius || std::fabs(e.x) > 0x1p62 || std::fabs(e.y) > 0x1p20 ||
          std::fabs(e.z) > 0x1p62)
        return;
      m_requests.blasts.push_back({std::array<int64_t, 3>{static_cast<int64_t>(std::floor(e.x)),
                                                          static_cast<int64_t>(std::floor(e.y)),
                                                          static_cast<int64_t>(std::floor(e.z))},
                                   e.code});
      return;
    case EventKind::kScenario:
      if (e.code < 0 || e.code >= static_cast<int32_t>(sim::scenario_names().size()) || std::fabs(e.x) > 0x1p62 ||
          std::fabs(e.z) > 0x1p62)
        return;
      m_requests.scenarios.push_back(
          {std::array<int64_t, 2>{static_cast<int64_t>(std::floor(e.x)), static_cast<int64_t>(std::floor(e.z))}, e.code});
      return;
    case EventKind::kCount: return;
  }
}

Requests InputHandler::take_requests() {
  Requests r = m_requests;
  m_requests = Requests{};
  return r;
}

}  // namespace voxen::play
