// Test support for the play module: headless sessions (EGL, tiny frames, small render distance) and recordings
// built in code, written to a file and read back, then run through the real InputHandler and frame loop.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "voxen/play/input.h"
#include "voxen/play/recording.h"
#include "voxen/play/session.h"
#include "voxen/world/block_registry.h"
#include "voxen/world/world.h"

namespace voxen::play::testing {

inline const BlockRegistry& registry() {
  static const BlockRegistry reg = [] {
    auto r = BlockRegistry::load_default();
    if (!r) {
      std::fprintf(stderr, "registry: %s\n", r.error().to_string().c_str());
      std::abort();
    }
    return std::move(*r);
  }();
  return reg;
}

/// A fresh temporary directory for one test.
inline std::string temp_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("voxen_play_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

/// A header for the flat world (ground top at y = 0, so the feet stand at y = 1) with the feet at (x, y, z).
inline RecordingHeader flat_header(double x, double y, double z, double yaw, double pitch, int render_distance = 2) {
  RecordingHeader h;
  h.seed = 7;
  h.generator = "flat";
  h.render_distance = render_distance;
  h.width = 64;
  h.height = 36;
  h.start_block = {static_cast<int64_t>(std::floor(x)), static_cast<int64_t>(std::floor(y)), static_cast<int64_t>(std::floor(z))};
  h.start_frac = {x - std::floor(x), y - std::floor(y), z - std::floor(z)};
  h.start_yaw = yaw;
  h.start_pitch = pitch;
  return h;
}

/// Builds a recording's events frame by frame.
class RecordingBuilder {
 public:
  explicit RecordingBuilder(RecordingHeader h) { m_rec.header = std::move(h); }
  RecordingBuilder& key(uint64_t frame, Key k, bool down) { return add(frame, down ? EventKind::kKeyDown : EventKind::kKeyUp, static_cast<int>(k)); }
  RecordingBuilder& tap(uint64_t frame, Key k) { return key(frame, k, true).key(frame, k, false); }
  RecordingBuilder& click(uint64_t frame, MouseButton b) {
    add(frame, EventKind::kButtonDown, static_cast<int>(b));
    return add(frame + 1, EventKind::kButtonUp, static_cast<int>(b));
  }
  RecordingBuilder& look(uint64_t frame, double yaw, double pitch) { return add(frame, EventKind::kLook, 0, yaw, pitch); }
  RecordingBuilder& fly(uint64_t frame, bool on) { return add(frame, EventKind::kSetFly, on ? 1 : 0); }
  RecordingBuilder& fly_speed(uint64_t frame, double v) { return add(frame, EventKind::kFlySpeed, 0, v); }
  RecordingBuilder& mouse(uint64_t frame, double dx, double dy) { return add(frame, EventKind::kMouseMove, 0, dx, dy); }
  RecordingBuilder& add(uint64_t frame, EventKind kind, int code = 0, double x = 0, double y = 0, double z = 0) {
    m_rec.events.push_back(InputEvent{frame, kind, code, x, y, z});
    return *this;
  }
  /// The recording covering `frames` frames, written to `path` and read back (the file format in the loop).
  Recording finish(uint64_t frames, const std::string& path) {
    std::stable_sort(m_rec.events.begin(), m_rec.events.end(), [](const InputEvent& a, const InputEvent& b) { return a.frame < b.frame; });
    m_rec.frames = frames;
    m_rec.complete = true;
    EXPECT_TRUE(write_recording(path, m_rec).ok());
    auto back = read_recording(path);
    EXPECT_TRUE(back.ok()) << (back.ok() ? "" : back.error().to_string());
    return back.ok() ? *back : m_rec;
  }

 private:
  Recording m_rec;
};

/// On the flat world, feet at (5.5, 1, 5.5) looking straight down, 60 frames written to `path`: a right click at
/// frame 40 would place into the feet's cell (the target is the block under the feet, whose top face leads there),
/// so it is refused; then at frame 50 the look turns 45 degrees down to the east, at the ground block (7, 0, 5),
/// and the right click at frame 52 places a stone at (7, 1, 5).
inline Recording place_self_recording(const std::string& path) {
  RecordingBuilder b(flat_header(5.5, 1.0, 5.5, 0.0, -90.0));
  b.click(40, MouseButton::kRight);
  b.look(50, 90.0, -45.0).click(52, MouseButton::kRight);
  return b.finish(60, path);
}

/// Opens a headless session for a recording's header.
inline std::unique_ptr<PlaySession> open_session(const RecordingHeader& h) {
  SessionOptions so;
  so.window = false;
  so.threads = 2;
  auto s = PlaySession::open(h, so, registry());
  if (!s) {
    ADD_FAILURE() << "session: " << s.error().to_string();
    return nullptr;
  }
  return std::move(*s);
}

/// Every loaded column of `w`, copied (cells and light): the world before an edit, for comparing.
inline World copy_world(const World& w) {
  World out;
  for (const ColumnPos& p : w.positions()) out.insert(std::make_unique<Column>(*w.find(p)));
  return out;
}

/// Degrees of pitch (negative: down) from an eye at height `eye_y` to a point `dist` blocks away horizontally at `y`.
inline double pitch_to(double eye_y, double y, double dist) { return std::atan2(y - eye_y, dist) * 180.0 / 3.14159265358979323846; }

}  // namespace voxen::play::testing
