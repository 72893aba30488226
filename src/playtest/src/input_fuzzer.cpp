#include "voxen/playtest/input_fuzzer.h"

#include <iterator>

#include "voxen/core/hash.h"

namespace voxen::playtest {

using play::Controls;
using play::EventKind;
using play::InputEvent;
using play::Key;
using play::MouseButton;
using play::kButtonCount;

std::vector<InputEvent> InputFuzzer::events(uint64_t frame, const Controls& c) const {
  std::vector<InputEvent> out;
  HashStream rng(hash2(m_seed, static_cast<int64_t>(frame), 0x66757A7Aull));
  auto ev = [&](EventKind k, int code, double x = 0, double y = 0) { out.push_back(InputEvent{frame, k, code, x, y, 0.0}); };
  // Movement keys: each may flip between held and released; W is held more often than the others.
  const Key movement[] = {Key::kW, Key::kA, Key::kS, Key::kD, Key::kSpace, Key::kShift, Key::kCtrl};
  const double press_p[] = {0.08, 0.03, 0.02, 0.03, 0.03, 0.02, 0.03};
  const double release_p[] = {0.03, 0.08, 0.10, 0.08, 0.10, 0.10, 0.05};
  for (size_t i = 0; i < std::size(movement); ++i) {
    const bool held = c.held_key(movement[i]);
    if (rng.unit() < (held ? release_p[i] : press_p[i]))
      ev(held ? EventKind::kKeyUp : EventKind::kKeyDown, static_cast<int>(movement[i]));
  }
  // Buttons pressed last frame are released; new clicks now and then.
  for (int b = 0; b < kButtonCount; ++b)
    if (c.buttons[static_cast<size_t>(b)]) ev(EventKind::kButtonUp, b);
  const double click = rng.unit();
  if (click < 0.05) ev(EventKind::kButtonDown, static_cast<int>(MouseButton::kLeft));
  else if (click < 0.10) ev(EventKind::kButtonDown, static_cast<int>(MouseButton::kRight));
  // Mouse motion most frames; looking down more than up, so the fuzzer digs and builds.
  if (rng.unit() < 0.6) ev(EventKind::kMouseMove, 0, (rng.unit() - 0.5) * 40.0, (rng.unit() - 0.45) * 24.0);
  // Occasional hotbar choices, fly toggles, overlay and cursor release.
  const double misc = rng.unit();
  if (misc < 0.010) ev(EventKind::kScroll, 0, 0.0, rng.unit() < 0.5 ? 1.0 : -1.0);
  else if (misc < 0.020) {
    const int k = static_cast<int>(Key::k1) + static_cast<int>(rng.below(9));
    ev(EventKind::kKeyDown, k);
    ev(EventKind::kKeyUp, k);
  } else if (misc < 0.025) {
    ev(EventKind::kKeyDown, static_cast<int>(Key::kF));
    ev(EventKind::kKeyUp, static_cast<int>(Key::kF));
  } else if (misc < 0.028) {
    ev(EventKind::kKeyDown, static_cast<int>(Key::kF3));
    ev(EventKind::kKeyUp, static_cast<int>(Key::kF3));
  } else if (misc < 0.030) {
    ev(EventKind::kKeyDown, static_cast<int>(Key::kEscape));
    ev(EventKind::kKeyUp, static_cast<int>(Key::kEscape));
  } else if (misc < 0.031) {  // a blast at the targeted block: a few thousand edits in one frame
    ev(EventKind::kKeyDown, static_cast<int>(Key::kB));
    ev(EventKind::kKeyUp, static_cast<int>(Key::kB));
  }
  return out;
}

}  // namespace voxen::playtest
