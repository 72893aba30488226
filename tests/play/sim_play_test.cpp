// The world simulation inside the game loop: the G key floods at the target, a kScenario event does the same from a
// script, the flow is a function of the recording (two runs, 1 or 2 worker threads, and a replay through the file
// format end with the same world hash), recordings made before the simulation replay without it, and a saved world
// closed mid-flow resumes it and settles as an uninterrupted run.
#include <gtest/gtest.h>

#include "play_test_util.h"
#include "saved_world_util.h"
#include "voxen/play/session.h"

namespace voxen::play::testing {
namespace {

constexpr double kEyeHeight = 1.62;  // the player's eye over its feet (player.h's standing eye)

/// Flat world, hovering 6 blocks up at (0.5, 7, 0.5) looking east and down at the ground 12 blocks away; a dam
/// break scripted there at frame 5, then `frames` frames.
Recording flood_recording(const std::string& path, uint64_t frames) {
  RecordingBuilder b(flat_header(0.5, 7.0, 0.5, 90.0, pitch_to(7.0 + kEyeHeight, 0.5, 12.0), 3));
  b.fly(0, true);
  b.add(5, EventKind::kScenario, 0, 20.5, 0.0, 0.5);
  return b.finish(frames, path);
}

struct Outcome {
  uint64_t hash = 0;
  uint64_t sim_changes = 0, sim_ticks = 0;
  size_t water = 0;
};

Outcome run(const Recording& rec, int threads) {
  SessionOptions so;
  so.window = false;
  so.threads = threads;
  auto s = PlaySession::open(rec.header, so, registry());
  EXPECT_TRUE(s) << (s ? "" : s.error().to_string());
  if (!s) return {};
  Outcome o;
  const RunResult r = run_events((*s)->game(), rec.events, rec.frames, 8, true, [&](const FrameReport& rep) {
    o.sim_changes += static_cast<uint64_t>(rep.sim_changes);
    o.sim_ticks += static_cast<uint64_t>(rep.sim_ticks);
    return true;
  });
  EXPECT_TRUE(r.failures.empty()) << r.failures.front();
  const World& w = (*s)->game().world();
  o.hash = world_hash(w);
  const uint16_t water = registry().id("water");
  for (int64_t z = 0; z <= 2; ++z)
    for (int64_t x = 27; x <= 32; ++x) o.water += w.get({x, 1, z}).id == water ? 1 : 0;
  return o;
}

TEST(SimPlay, AScriptedDamBreakFlowsAndReplaysToTheSameWorld) {
  const std::string dir = temp_dir("sim_play");
  const Recording rec = flood_recording(dir + "/flood.rec", 90);
  EXPECT_EQ(rec.header.tick_rate, 20.0);
  const Outcome a = run(rec, 2);
  // 90 frames at 1/60 s: 30 ticks at 20 Hz.
  EXPECT_EQ(a.sim_ticks, 30u);
  EXPECT_GT(a.sim_changes, 50u);
  EXPECT_GT(a.water, 0u) << "the water should have run out of the open east wall onto the ground";
  const Outcome b = run(rec, 1);
  EXPECT_EQ(a.hash, b.hash) << "one worker thread or two: the same world";
  EXPECT_EQ(a.sim_changes, b.sim_changes);
  // Read back through the file format again (the replay path).
  auto back = read_recording(dir + "/flood.rec");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(run(*back, 2).hash, a.hash);
}

TEST(SimPlay, TheGKeyFloodsAtTheTargetedBlock) {
  const std::string dir = temp_dir("sim_gkey");
  // Standing on the ground, looking east at the ground block 7 east (the top of (7, 0, 0), within reach): the
  // lake's platform starts a block east of the player. First, looking at the block 5 east, the lake would wall the
  // player in: refused.
  RecordingBuilder b(flat_header(0.5, 1.0, 0.5, 90.0, pitch_to(1.0 + kEyeHeight, 1.0, 5.5), 3));
  b.tap(3, Key::kG);
  b.look(4, 90.0, pitch_to(1.0 + kEyeHeight, 1.0, 7.5));
  b.tap(5, Key::kG);
  const Recording rec = b.finish(60, dir + "/g.rec");
  auto s = open_session(rec.header);
  ASSERT_TRUE(s);
  int scenarios = 0, changes = 0, refused = 0;
  const RunResult r = run_events(s->game(), rec.events, rec.frames, 8, true, [&](const FrameReport& rep) {
    scenarios += rep.scenarios;
    refused += rep.edits_refused;
    changes += rep.sim_changes;
    return true;
  });
  ASSERT_TRUE(r.failures.empty()) << r.failures.front();
  EXPECT_EQ(scenarios, 1);
  EXPECT_EQ(refused, 1);
  EXPECT_GT(changes, 0);
  ASSERT_TRUE(s->game().simulator());
  // The lake stands on a platform one block over the targeted ground, around the targeted (x, z).
  const int64_t target_x = 7;
  EXPECT_EQ(s->game().world().get({target_x, 1, 0}), (Cell{registry().id("stone"), 0}));
  EXPECT_EQ(s->game().world().get({target_x, 2, 0}).id, registry().id("water"));
}

TEST(SimPlay, RecordingsFromBeforeTheSimulationReplayWithoutIt) {
  const char* text =
      "voxen-input-recording 1\nseed 7\ngenerator flat\nrender_distance 2\nsize 64x36\nfov 70\nstep 0.0166666666666667\n"
      "stream 1 6 6\nstart 0 1 0 0.5 0 0.5 0 0 0\nend 10\n";
  auto rec = parse_recording(text, "old.rec");
  ASSERT_TRUE(rec.ok()) << rec.error().to_string();
  EXPECT_EQ(rec->header.tick_rate, 0.0);
  auto s = open_session(rec->header);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->game().simulator(), nullptr);
  // A version 5 recording keeps its rate; a bad one is refused naming the line.
  RecordingHeader h = flat_header(0.5, 1.0, 0.5, 0, 0);
  h.tick_rate = 10;
  Recording r5;
  r5.header = h;
  r5.frames = 1;
  r5.complete = true;
  auto again = parse_recording(format_recording(r5), "r5.rec");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->header.tick_rate, 10.0);
  std::string bad = format_recording(r5);
  bad.replace(bad.find("tick_rate 10"), 12, "tick_rate -1");
  auto refused = parse_recording(bad, "bad.rec");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().to_string().find("tick_rate"), std::string::npos);
  // The scenario event round-trips through the text format and an unknown name is refused.
  InputEvent e{3, EventKind::kScenario, 2, 10.0, 0.0, -4.0};
  EXPECT_EQ(format_event(e), "3 scenario 10 -4 lava-meets-water");
  std::string with_event = format_header(h) + "3 scenario 10 -4 volcano\nend 4\n";
  auto unknown = parse_recording(with_event, "u.rec");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().to_string().find("volcano"), std::string::npos);
}

}  // namespace
}  // namespace voxen::play::testing

namespace voxen::play::testing {
namespace {

/// The cells of the box lo..hi, in order (a flood's footprint).
std::vector<Cell> cells_of(const World& w, BlockPos lo, BlockPos hi) {
  std::vector<Cell> out;
  for (int64_t y = lo.y; y <= hi.y; ++y)
    for (int64_t z = lo.z; z <= hi.z; ++z)
      for (int64_t x = lo.x; x <= hi.x; ++x) out.push_back(w.get({x, y, z}));
  return out;
}

TEST(SimPlay, ASavedWorldClosedMidFlowResumesAndSettlesAsAnUninterruptedRun) {
  const std::string dir = temp_dir("sim_saved");
  const BlockPos lo{6, 1, -14}, hi{44, 6, 14};  // the lake, its platform and where its water runs
  // Uninterrupted: the dam at frame 5, then 300 frames (100 ticks: long settled).
  const Recording whole = flood_recording(dir + "/whole.rec", 300);
  std::vector<Cell> expected;
  {
    auto s = open_session(whole.header);
    ASSERT_TRUE(s);
    const RunResult r = run_events(s->game(), whole.events, whole.frames, 50, true);
    ASSERT_TRUE(r.failures.empty()) << r.failures.front();
    expected = cells_of(s->game().world(), lo, hi);
    EXPECT_TRUE(s->game().simulator()->active().empty()) << "the flood should have settled";
  }
  // On a saved world: 20 frames (6 ticks; the dam opens at frame 5, the water still running), closed as
  // `voxen play` closes it ...
  const std::string world = dir + "/world";
  const Recording first = flood_recording(dir + "/first.rec", 20);
  uint64_t closed_at_tick = 0;
  {
    auto ws = open_world(world, first.header.seed, first.header.generator);
    ASSERT_TRUE(ws);
    auto s = open_saved_session(first.header, *ws, /*hud=*/false);
    ASSERT_TRUE(s);
    int scenarios = 0, refused = 0;
    const RunResult r = run_events(s->game(), first.events, first.frames, 20, true, [&](const FrameReport& rep) {
      if (rep.edits_applied > 0) EXPECT_TRUE(ws->commit().ok());
      scenarios += rep.scenarios;
      refused += rep.edits_refused;
      return true;
    });
    EXPECT_EQ(scenarios, 1);
    EXPECT_EQ(refused, 0);
    ASSERT_TRUE(r.failures.empty()) << r.failures.front();
    ASSERT_FALSE(s->game().simulator()->quiet()) << "the flood should still be running when the world closes";
    closed_at_tick = s->game().simulator()->tick();
    s.reset();
    ASSERT_TRUE(ws->close().ok());
  }
  // ... then reopened by a new game with no scenario: it resumes what was pending and settles the same.
  RecordingBuilder b(flat_header(0.5, 7.0, 0.5, 90.0, pitch_to(7.0 + kEyeHeight, 0.5, 12.0), 3));
  b.fly(0, true);
  const Recording rest = b.finish(300, dir + "/rest.rec");
  {
    auto ws = open_world(world, std::nullopt, rest.header.generator);
    ASSERT_TRUE(ws);
    auto s = open_saved_session(rest.header, *ws, /*hud=*/false);
    ASSERT_TRUE(s);
    EXPECT_GT(s->game().simulator()->pending_sections(), 0u) << "the pending updates were not saved";
    EXPECT_EQ(s->game().simulator()->tick(), closed_at_tick);
    const RunResult r = run_events(s->game(), rest.events, rest.frames, 50, true);
    ASSERT_TRUE(r.failures.empty()) << r.failures.front();
    EXPECT_TRUE(cells_of(s->game().world(), lo, hi) == expected) << "the resumed flood settled differently";
    s.reset();
    ASSERT_TRUE(ws->close().ok());
  }
}

}  // namespace
}  // namespace voxen::play::testing
