// Movement does not depend on the frame time, through the real frame loop (headless, flat world): a jump's apex is
// the model's jump_speed^2 / (2 g) for every frame time from 1/480 to 1/5 s, and the whole path of a jump is the
// same step for step; the drawn eye moves every frame between the steps; a 1.5-block ledge is never climbed by
// jumping at any of those frame times while a 1-block one always is; and a recording with walking, jumping,
// sprinting, flying and edits played at 30, at 144 and at an irregular number of frames a second gives the same
// positions at the same simulation times and the same world.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "play_test_util.h"
#include "voxen/core/hash.h"

namespace voxen::play::testing {
namespace {

// Times are counted in ticks of 1/720 s: 1/30 s is 24 ticks, 1/144 s 5, a physics step (1/240 s) 3.
constexpr int64_t kTicksPerSecond = 720;

/// An event at a time (in ticks) rather than at a frame.
struct Timed {
  int64_t tick;
  InputEvent event;  // its frame is set by pace()
};

/// The events of `script` for frames of the given lengths in ticks (a kFrameTime event at the first frame and
/// wherever the length changes): each event goes to the frame that starts at its time, which must be a frame
/// start. Also returns the frame count.
std::vector<InputEvent> pace(const std::vector<Timed>& script, const std::vector<int64_t>& frame_ticks) {
  std::vector<InputEvent> out;
  std::map<int64_t, uint64_t> frame_at;  // start tick -> frame
  int64_t t = 0, last_len = -1;
  for (size_t f = 0; f < frame_ticks.size(); ++f) {
    frame_at[t] = f;
    if (frame_ticks[f] != last_len) {
      out.push_back({f, EventKind::kFrameTime, 0, static_cast<double>(frame_ticks[f]) / kTicksPerSecond, 0, 0});
      last_len = frame_ticks[f];
    }
    t += frame_ticks[f];
  }
  for (const Timed& e : script) {
    const auto it = frame_at.find(e.tick);
    EXPECT_NE(it, frame_at.end()) << "tick " << e.tick << " is not a frame start";
    if (it == frame_at.end()) continue;
    InputEvent ev = e.event;
    ev.frame = it->second;
    out.push_back(ev);
  }
  std::stable_sort(out.begin(), out.end(), [](const InputEvent& a, const InputEvent& b) { return a.frame < b.frame; });
  return out;
}

/// `seconds` of frames `ticks` long each.
std::vector<int64_t> even_frames(int64_t ticks, double seconds) {
  return std::vector<int64_t>(static_cast<size_t>(std::llround(seconds * kTicksPerSecond / static_cast<double>(ticks))), ticks);
}

Timed key_at(double seconds, Key k, bool down) {
  return {std::llround(seconds * kTicksPerSecond), {0, down ? EventKind::kKeyDown : EventKind::kKeyUp, static_cast<int>(k), 0, 0, 0}};
}
Timed event_at(double seconds, EventKind kind, int code = 0, double x = 0, double y = 0, double z = 0) {
  return {std::llround(seconds * kTicksPerSecond), {0, kind, code, x, y, z}};
}

// The frame times tried, in ticks: 1/480 s is not a whole tick, so it is run on its own below.
const int64_t kFrameTicks[] = {3, 5, 12, 24, 36, 72, 144};  // 1/240, 1/144, 1/60, 1/30, 1/20, 1/10, 1/5 s

/// Runs `events` for `frames` frames on a fresh headless session of `header`, not drawing (the last frame is).
std::unique_ptr<PlaySession> run(const RecordingHeader& header, const std::vector<InputEvent>& events, uint64_t frames,
                                 const Game::StepObserver& observer = nullptr, const FrameCallback& on_frame = nullptr) {
  auto s = open_session(header);
  if (!s) return nullptr;
  s->game().set_step_observer(observer);
  const RunResult r = run_events(s->game(), events, frames, 1 << 30, true, on_frame);
  EXPECT_TRUE(r.failures.empty()) << r.failures.front();
  EXPECT_EQ(r.frames, frames);
  return s;
}

TEST(FramePacing, JumpApexIsTheModelsAtEveryFrameTime) {
  // Standing on the flat world's ground (feet at y = 1), Space held from 1.0 s to 1.1 s: the jump starts at the
  // step after 1.0 s whatever the frame time, so every run's steps are the same, and the highest step lies within
  // g h^2 / 8 (h = 1/240 s) of the model's apex, 9^2 / (2 * 32) = 1.265625 blocks.
  const double kApex = 9.0 * 9.0 / (2.0 * 32.0);
  const RecordingHeader h = flat_header(4.5, 1.0, 4.5, 0.0, 0.0);
  std::vector<std::vector<double>> paths;  // feet y of every step, per frame time
  std::vector<std::string> names;
  auto one = [&](const std::vector<InputEvent>& events, uint64_t frames, const std::string& name) {
    std::vector<double> path;
    double top = 0.0;
    run(h, events, frames, [&](uint64_t, const PlayerState& p) {
      path.push_back(p.feet().y);
      top = std::max(top, p.feet().y);
    });
    EXPECT_NEAR(top - 1.0, kApex, 1.0 / 256.0) << "frame time " << name;
    EXPECT_NEAR(top - 1.0, kApex, 32.0 / (240.0 * 240.0) / 8.0 + 1e-12) << "frame time " << name;
    EXPECT_EQ(path.back(), 1.0) << "frame time " << name << ": landed again";
    paths.push_back(path);
    names.push_back(name);
  };
  for (const int64_t ticks : kFrameTicks) {
    // Space released at the first frame start from 1.1 s on, in the air whatever the frame time.
    const int64_t release = (static_cast<int64_t>(1.1 * kTicksPerSecond) + ticks - 1) / ticks * ticks;
    const std::vector<Timed> script = {key_at(1.0, Key::kSpace, true),
                                       {release, {0, EventKind::kKeyUp, static_cast<int>(Key::kSpace), 0, 0, 0}}};
    const std::vector<int64_t> frames = even_frames(ticks, 2.0);
    one(pace(script, frames), frames.size(), "1/" + std::to_string(kTicksPerSecond / ticks));
  }
  // 1/480 s: half a step per frame, 960 frames.
  std::vector<InputEvent> fine = {{0, EventKind::kFrameTime, 0, 1.0 / 480.0, 0, 0},
                                  {480, EventKind::kKeyDown, static_cast<int>(Key::kSpace), 0, 0, 0},
                                  {528, EventKind::kKeyUp, static_cast<int>(Key::kSpace), 0, 0, 0}};
  one(fine, 960, "1/480");
  for (size_t i = 1; i < paths.size(); ++i) {
    ASSERT_EQ(paths[i].size(), paths[0].size()) << names[i];
    EXPECT_EQ(paths[i], paths[0]) << "frame time " << names[i] << " moved otherwise than " << names[0];
  }
}

TEST(FramePacing, ALedgeOneAndAHalfBlocksHighIsNeverClimbedAndOneBlockAlwaysIs) {
  // Two walls across the player's way east on the flat world's ground (y 0, so the feet stand at y 1): at z 8..10
  // stone at y 1 with a bottom slab on it (1.5 blocks high), at z 2..4 stone at y 1 alone (1 block). Walking east
  // into each, Space held, for 2 s from x 6.5 (the walls' west faces are at x 8).
  const RecordingHeader h = flat_header(6.5, 1.0, 9.5, 90.0, 0.0);
  std::vector<int64_t> frame_ticks(std::begin(kFrameTicks), std::end(kFrameTicks));
  frame_ticks.push_back(0);  // 0: 1/480 s
  for (const int64_t ticks : frame_ticks) {
    const double ft = ticks ? static_cast<double>(ticks) / kTicksPerSecond : 1.0 / 480.0;
    const uint64_t per_second = static_cast<uint64_t>(std::llround(1.0 / ft));
    auto s = open_session(h);
    ASSERT_TRUE(s);
    Game& g = s->game();
    std::vector<InputEvent> settle = {{0, EventKind::kFrameTime, 0, ft, 0, 0}};
    run_events(g, settle, 20, 1 << 30, false);
    const Cell stone{registry().id("stone"), 0}, slab{registry().id("stone_slab"), 0};
    for (int64_t z = 2; z <= 10; ++z) {
      if (z > 4 && z < 8) continue;
      auto e = g.world().make_edit({8, 1, z}, stone);
      ASSERT_TRUE(e) << "column not loaded";
      ASSERT_TRUE(g.streamer().apply_edit(*e).applied);
      if (z >= 8) {
        ASSERT_TRUE(g.streamer().apply_edit(*g.world().make_edit({8, 2, z}, slab)).applied);
      }
    }
    for (const double z : {9.5, 3.5}) {
      const uint64_t f0 = g.frame_number();
      const std::vector<InputEvent> go = {{f0, EventKind::kTeleport, 0, 6.5, 1.0, z},
                                          {f0 + 1, EventKind::kKeyDown, static_cast<int>(Key::kW), 0, 0, 0},
                                          {f0 + 1, EventKind::kKeyDown, static_cast<int>(Key::kSpace), 0, 0, 0},
                                          {f0 + 1 + 2 * per_second, EventKind::kKeyUp, static_cast<int>(Key::kW), 0, 0, 0},
                                          {f0 + 1 + 2 * per_second, EventKind::kKeyUp, static_cast<int>(Key::kSpace), 0, 0, 0}};
      double top = 0.0;
      g.set_step_observer([&](uint64_t, const PlayerState& p) { top = std::max(top, p.feet().y); });
      const RunResult r = run_events(g, go, 2 * per_second + 1 + per_second, 1 << 30, true);
      EXPECT_TRUE(r.failures.empty()) << r.failures.front();
      const glm::dvec3 f = g.player().feet();
      const std::string what = "frame time " + std::to_string(ft) + " s, wall at z " + std::to_string(z);
      // The walls are one block thick (x 8..9): the box (half width 0.3) is past one only over its top.
      if (z > 5) {
        EXPECT_LT(top, 2.5) << what << ": the feet rose to the 1.5-block ledge's top";
        EXPECT_LE(f.x, 7.7 + 1e-9) << what << ": the player got over the 1.5-block ledge";
      } else {
        EXPECT_GE(top, 2.0) << what;
        EXPECT_GT(f.x, 9.3) << what << ": the player should have jumped over the 1-block ledge";
      }
      EXPECT_EQ(f.y, 1.0) << what << ": back on the ground";
    }
  }
}

TEST(FramePacing, TheDrawnEyeMovesEveryFrameBetweenTheSteps) {
  // Walking east on the flat world at 480 frames a second: a physics step every other frame. The drawn player
  // (and the camera) lies between the states before and after the last step by the clock's remainder, so it moves
  // every frame, half a step's motion at a time, one step behind the simulation and never ahead of it.
  const RecordingHeader h = flat_header(2.5, 1.0, 5.5, 90.0, 0.0);
  const std::vector<InputEvent> events = {{0, EventKind::kFrameTime, 0, 1.0 / 480.0, 0, 0},
                                          {20, EventKind::kKeyDown, static_cast<int>(Key::kW), 0, 0, 0}};
  auto s = open_session(h);
  ASSERT_TRUE(s);
  Game& g = s->game();
  double last_drawn = -1.0;
  int moved = 0, checked = 0;
  std::vector<int> steps;
  const RunResult r = run_events(g, events, 400, 1 << 30, true, [&](const FrameReport& rep) {
    steps.push_back(rep.steps);
    const double drawn = g.drawn_player().feet().x, sim = g.player().feet().x;
    EXPECT_NEAR(g.camera().block.x + g.camera().frac.x, drawn, 1e-9) << "frame " << rep.frame;
    if (rep.frame >= 300) {  // walking at a steady speed by then
      ++checked;
      EXPECT_LE(drawn, sim) << "frame " << rep.frame << ": drawn ahead of the simulation";
      EXPECT_GE(drawn, sim - 4.317 / 240.0 - 1e-9) << "frame " << rep.frame << ": drawn more than a step behind";
      if (drawn > last_drawn + 4.317 / 480.0 * 0.9) ++moved;
    }
    last_drawn = drawn;
    return true;
  });
  EXPECT_TRUE(r.failures.empty()) << r.failures.front();
  EXPECT_EQ(std::count(steps.begin() + 100, steps.end(), 0), 150) << "a step every other frame";
  EXPECT_EQ(moved, checked) << "the drawn player stood still on frames without a step";
}

/// The player's state as exact bits: block, fraction and velocity.
std::string state_bits(const PlayerState& p) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%lld %lld %lld %a %a %a %a %a %a %d %d", static_cast<long long>(p.block.x),
                static_cast<long long>(p.block.y), static_cast<long long>(p.block.z), p.frac.x, p.frac.y, p.frac.z,
                p.velocity.x, p.velocity.y, p.velocity.z, p.flying ? 1 : 0, p.on_ground ? 1 : 0);
  return buf;
}

TEST(FramePacing, ARecordingGivesTheSamePositionsAndWorldAtAnyFramePacing) {
  const std::string dir = temp_dir("pacing");
  // Walk east, jump, stop, dig the ground block two ahead, place a stone, sprint north-east jumping, fly up and
  // east, land: every event at a multiple of 1/6 s, a frame start at 30 frames/s, at 144 and in the irregular
  // pacing below.
  const double down2 = pitch_to(1.0 + 1.62, 1.0, 2.0);
  const std::vector<Timed> script = {
      key_at(0.5, Key::kW, true),
      key_at(1.0, Key::kSpace, true),
      key_at(1.5, Key::kSpace, false),
      key_at(2.0, Key::kW, false),
      event_at(2.5, EventKind::kLook, 0, 90.0, down2),
      event_at(3.0, EventKind::kButtonDown, static_cast<int>(MouseButton::kLeft)),
      event_at(3.0 + 1.0 / 6, EventKind::kButtonUp, static_cast<int>(MouseButton::kLeft)),
      event_at(3.5, EventKind::kLook, 0, 0.0, down2),
      event_at(3.5, EventKind::kButtonDown, static_cast<int>(MouseButton::kRight)),
      event_at(3.5 + 1.0 / 6, EventKind::kButtonUp, static_cast<int>(MouseButton::kRight)),
      event_at(4.0, EventKind::kMouseMove, 0, 300.0, 100.0),  // 45 degrees right, 15 up (0.15 degree a pixel)
      key_at(4.0, Key::kW, true),
      key_at(4.0, Key::kCtrl, true),
      key_at(4.0, Key::kSpace, true),
      key_at(5.0, Key::kSpace, false),
      key_at(5.5, Key::kCtrl, false),
      key_at(5.5, Key::kF, true),  // fly
      key_at(5.5, Key::kF, false),
      key_at(5.5, Key::kSpace, true),
      key_at(6.0, Key::kSpace, false),
      key_at(6.5, Key::kW, false),
      key_at(6.5, Key::kF, true),  // walk again: fall to the ground
      key_at(6.5, Key::kF, false),
  };
  constexpr double kSeconds = 8.0;
  // Irregular: each 1/6 s (120 ticks, 40 steps) cut into frames of 1 to 12 steps, a pure function of the index.
  std::vector<int64_t> irregular;
  for (int64_t block = 0; block < static_cast<int64_t>(kSeconds * 6); ++block) {
    int64_t left = 120;
    for (uint64_t i = 0; left > 0; ++i) {
      const int64_t len = std::min<int64_t>(left, 3 * (1 + static_cast<int64_t>(hash2(block, static_cast<int64_t>(i), 77) % 12)));
      irregular.push_back(len);
      left -= len;
    }
  }
  struct Pacing {
    std::string name;
    std::vector<int64_t> frames;
  };
  const Pacing pacings[] = {{"30 fps", even_frames(24, kSeconds)}, {"144 fps", even_frames(5, kSeconds)}, {"irregular", irregular}};
  std::vector<std::map<int64_t, std::string>> states;  // the player's state at every 1/6 s, per pacing
  std::vector<std::unique_ptr<PlaySession>> sessions;
  for (const Pacing& pc : pacings) {
    RecordingBuilder b(flat_header(5.5, 1.0, 5.5, 90.0, 0.0));
    for (const InputEvent& e : pace(script, pc.frames)) b.add(e.frame, e.kind, e.code, e.x, e.y, e.z);
    const Recording rec = b.finish(pc.frames.size(), dir + "/pacing.rec");
    auto s = open_session(rec.header);
    ASSERT_TRUE(s);
    Game& g = s->game();
    std::map<int64_t, std::string> at;
    int64_t t = 0;
    uint64_t edits = 0;
    const RunResult r = run_events(g, rec.events, rec.frames, 1 << 30, true, [&](const FrameReport& rep) {
      t += pc.frames[rep.frame];
      edits += static_cast<uint64_t>(rep.edits_applied);
      if (t % 120 == 0) at[t / 120] = state_bits(g.player());
      return true;
    });
    EXPECT_TRUE(r.failures.empty()) << pc.name << ": " << r.failures.front();
    EXPECT_EQ(edits, 2u) << pc.name << ": the dig and the placement";
    EXPECT_EQ(t, static_cast<int64_t>(kSeconds * kTicksPerSecond)) << pc.name;
    states.push_back(std::move(at));
    sessions.push_back(std::move(s));
  }
  ASSERT_EQ(states[0].size(), static_cast<size_t>(kSeconds * 6));
  for (size_t i = 1; i < states.size(); ++i)
    for (const auto& [k, bits] : states[0])
      EXPECT_EQ(states[i][k], bits) << pacings[i].name << " vs " << pacings[0].name << " at " << k << "/6 s";
  // The path went somewhere: east, up a jump, north-east and up in flight, and back on the ground.
  const PlayerState& end = sessions[0]->game().player();
  EXPECT_GT(end.feet().x, 9.0);
  EXPECT_EQ(end.feet().y, 1.0);
  EXPECT_FALSE(end.flying);
  // The same world: every column loaded in both runs, cell for cell and light for light (the dug and the placed
  // block among them).
  World& w0 = sessions[0]->game().world();
  size_t compared = 0;
  for (size_t i = 1; i < sessions.size(); ++i) {
    World& wi = sessions[i]->game().world();
    for (const ColumnPos& p : w0.positions()) {
      const Column* a = w0.find(p);
      const Column* b2 = wi.find(p);
      if (!b2) continue;
      EXPECT_EQ(a->content_hash(true), b2->content_hash(true)) << pacings[i].name << ": column " << p.x << "," << p.z;
      ++compared;
    }
  }
  EXPECT_GT(compared, 2u * 9u);
}

}  // namespace
}  // namespace voxen::play::testing
