// The game loop driven by recordings through the real InputHandler, headless (EGL, 64 x 36 frames): walls stop the
// player (walking and at 112 blocks/s), a click removes exactly the targeted block, placing into the player's own
// box is refused, and slabs and stairs are stepped up. (A fast flight never leaving the ground near the player
// undrawn is checked with the holes measurement: tests/playtest/fast_flight_test.cpp.)
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "play_test_util.h"
#include "voxen/play/spawn.h"

namespace voxen::play::testing {
namespace {

constexpr double kEyeHeight = 1.62;

// The flat world (gen/flat_generator.cpp): a cobblestone pillar 8 high at (36, 1..8, 6); a bottom stone slab at
// (54, 1, 20) and a top one at (56, 1, 20); planks and cobblestone ground at y = 0 for x, z in 0..15.

TEST(PlayLoop, WalkingIntoAWallStopsOutsideIt) {
  const std::string dir = temp_dir("wall");
  RecordingBuilder b(flat_header(33.5, 1.0, 6.5, 90.0, 0.0));
  b.key(10, Key::kW, true).key(130, Key::kW, false);
  const Recording rec = b.finish(140, dir + "/wall.rec");
  auto s = open_session(rec.header);
  ASSERT_TRUE(s);
  const RunResult r = run_events(s->game(), rec.events, rec.frames, 4, true);
  EXPECT_TRUE(r.failures.empty()) << r.failures.front();
  const glm::dvec3 f = s->game().player().feet();
  // The pillar's west face is x = 36; the box is 0.6 wide, so the feet stop at 35.7, touching it.
  EXPECT_LE(f.x, 35.7 + 1e-9);
  EXPECT_GE(f.x, 35.7 - 1e-6) << "the player should have walked up to the wall";
  EXPECT_DOUBLE_EQ(f.z, 6.5);
  EXPECT_EQ(s->game().world().get({36, 1, 6}).id, registry().id("cobblestone"));
}

TEST(PlayLoop, FlyingIntoAWallAt112BlocksPerSecondDoesNotTunnel) {
  const std::string dir = temp_dir("wall_fast");
  // At y 6 the box clears the pillars of 1 to 5 blocks at x 20..32 and meets the 8-block one at x 36. At 112 blocks/s
  // a frame moves 1.87 blocks, more than the pillar's width plus the box's: eight runs from starts 0.23 block apart
  // put the pillar at every phase of the steps.
  RecordingBuilder b(flat_header(18.5, 6.0, 6.5, 90.0, 0.0));
  b.fly(0, true).fly_speed(0, 112.0);
  constexpr int kRuns = 8;
  for (int k = 0; k < kRuns; ++k) {
    const uint64_t f0 = 10 + 40 * static_cast<uint64_t>(k);
    b.add(f0, EventKind::kTeleport, 0, 18.5 + 0.23 * k, 6.0, 6.5).key(f0 + 1, Key::kW, true).key(f0 + 30, Key::kW, false);
  }
  const Recording rec = b.finish(10 + 40 * kRuns, dir + "/wall_fast.rec");
  auto s = open_session(rec.header);
  ASSERT_TRUE(s);
  double max_x = 0;
  int stopped_at_wall = 0;
  const RunResult r = run_events(s->game(), rec.events, rec.frames, 8, true, [&](const FrameReport& rep) {
    const double x = s->game().player().feet().x;
    max_x = std::max(max_x, x);
    if (rep.frame >= 10 && (rep.frame - 10) % 40 == 39 && std::abs(x - 35.7) < 1e-6) ++stopped_at_wall;
    return true;
  });
  EXPECT_TRUE(r.failures.empty()) << r.failures.front();
  // Without swept collision the box would jump through the one-block pillar on some of the runs.
  EXPECT_LE(max_x, 35.7 + 1e-9);
  EXPECT_EQ(stopped_at_wall, kRuns);
}

TEST(PlayLoop, DigRemovesExactlyTheTargetedBlock) {
  const std::string dir = temp_dir("dig");
  // Feet at (5.5, 1, 5.5); aim at the top centre of the ground block (7, 0, 5).
  const double pitch = pitch_to(1.0 + kEyeHeight, 1.0, 2.0);
  RecordingBuilder b(flat_header(5.5, 1.0, 5.5, 90.0, pitch));
  b.click(40, MouseButton::kLeft);
  const Recording rec = b.finish(50, dir + "/dig.rec");
  auto s = open_session(rec.header);
  ASSERT_TRUE(s);
  Game& g = s->game();
  run_events(g, rec.events, 40, 4, true);
  // Every cell of the loaded columns before the click.
  std::map<ColumnPos, std::unique_ptr<Column>> before;
  for (const ColumnPos& p : g.world().positions()) before[p] = std::make_unique<Column>(*g.world().find(p));
  ASSERT_TRUE(before.count({0, 0}));
  const RunResult r = run_events(g, rec.events, 10, 4, true);
  EXPECT_TRUE(r.failures.empty());
  EXPECT_EQ(r.edits_applied, 1u);
  std::vector<BlockPos> changed;
  for (const auto& [p, col] : before) {
    const Column* now = g.world().find(p);
    ASSERT_TRUE(now);
    for (int s2 = 0; s2 < kSectionsPerColumn; ++s2) {
      if (col->section(s2).same_cells(now->section(s2))) continue;
      for (int i = 0; i < kSectionVolume; ++i)
        if (col->section(s2).get(i) != now->section(s2).get(i))
          changed.push_back({p.min_x() + (i & 15), section_base_y(s2) + (i >> 8), p.min_z() + ((i >> 4) & 15)});
    }
  }
  ASSERT_EQ(changed.size(), 1u);
  EXPECT_EQ(changed[0], (BlockPos{7, 0, 5}));
  EXPECT_EQ(g.world().get({7, 0, 5}), kAir);
}

TEST(PlayLoop, PlacingIntoThePlayersOwnBoxIsRefused) {
  const std::string dir = temp_dir("place_self");
  const Recording rec = place_self_recording(dir + "/place_self.rec");
  auto s = open_session(rec.header);
  ASSERT_TRUE(s);
  Game& g = s->game();
  const RunResult first = run_events(g, rec.events, 45, 4, true);
  EXPECT_TRUE(first.failures.empty());
  EXPECT_EQ(first.edits_applied, 0u);
  EXPECT_EQ(first.edits_refused, 1u);
  EXPECT_EQ(g.world().get({5, 1, 5}), kAir);
  EXPECT_EQ(g.world().get({5, 2, 5}), kAir);
  EXPECT_EQ(g.player().feet(), glm::dvec3(5.5, 1.0, 5.5));
  const RunResult second = run_events(g, rec.events, 15, 4, true);
  EXPECT_TRUE(second.failures.empty());
  EXPECT_EQ(second.edits_applied, 1u);
  EXPECT_EQ(g.world().get({7, 1, 5}).id, registry().id("stone"));
}

TEST(PlayLoop, WalkingIntoABottomSlabStepsUp) {
  const std::string dir = temp_dir("slab");
  RecordingBuilder b(flat_header(52.5, 1.0, 20.5, 90.0, 0.0));
  b.key(10, Key::kW, true).key(38, Key::kW, false);
  const Recording rec = b.finish(70, dir + "/slab.rec");
  auto s = open_session(rec.header);
  ASSERT_TRUE(s);
  const RunResult r = run_events(s->game(), rec.events, rec.frames, 4, true);
  EXPECT_TRUE(r.failures.empty()) << r.failures.front();
  const glm::dvec3 f = s->game().player().feet();
  EXPECT_DOUBLE_EQ(f.y, 1.5) << "feet at " << f.x << " " << f.y << " " << f.z;
  EXPECT_GT(f.x, 53.7 + 0.05);
  EXPECT_LT(f.x, 55.3);
  EXPECT_TRUE(s->game().player().on_ground);
}

TEST(PlayLoop, JumpingOntoATopSlabLandsOnIt) {
  const std::string dir = temp_dir("jump_slab");
  // The top slab at (56, 1, 20) fills y 1.5..2: too high to step, so jump while walking north onto it.
  RecordingBuilder b(flat_header(56.5, 1.0, 22.5, 0.0, 0.0));
  b.key(10, Key::kW, true).key(10, Key::kSpace, true).key(36, Key::kW, false).key(36, Key::kSpace, false);
  const Recording rec = b.finish(80, dir + "/jump_slab.rec");
  auto s = open_session(rec.header);
  ASSERT_TRUE(s);
  bool stood_on_slab = false;
  const RunResult r = run_events(s->game(), rec.events, rec.frames, 4, true, [&](const FrameReport&) {
    const PlayerState& p = s->game().player();
    const glm::dvec3 f = p.feet();
    if (p.on_ground && f.y == 2.0 && f.z > 20.0 - 0.3 && f.z < 21.0 + 0.3) stood_on_slab = true;
    return true;
  });
  EXPECT_TRUE(r.failures.empty()) << r.failures.front();
  EXPECT_TRUE(stood_on_slab);
}

TEST(PlayLoop, StairsFromTheHotbarFaceThePlayerAndAreClimbed) {
  const std::string dir = temp_dir("stairs");
  // Aim north at the top centre of the ground block (10, 0, 28), two blocks ahead; slot 9 holds the stairs.
  const double pitch = pitch_to(1.0 + kEyeHeight, 1.0, 2.0);
  RecordingBuilder b(flat_header(10.5, 1.0, 30.5, 0.0, pitch));
  b.tap(30, Key::k9).click(32, MouseButton::kRight).look(40, 0.0, 0.0).key(45, Key::kW, true).key(85, Key::kW, false);
  const Recording rec = b.finish(100, dir + "/stairs.rec");
  auto s = open_session(rec.header);
  ASSERT_TRUE(s);
  double top = 0;
  const RunResult r = run_events(s->game(), rec.events, rec.frames, 4, true, [&](const FrameReport&) {
    const PlayerState& p = s->game().player();
    if (p.on_ground) top = std::max(top, p.feet().y);
    return true;
  });
  EXPECT_TRUE(r.failures.empty()) << r.failures.front();
  EXPECT_EQ(r.edits_applied, 1u);
  const Cell c = s->game().world().get({10, 1, 28});
  EXPECT_EQ(c.id, registry().id("stone_stairs"));
  EXPECT_EQ(state::facing(c.state), state::kNorth) << "the tall back lies the way the player looked";
  EXPECT_FALSE(state::top_half(c.state));
  EXPECT_DOUBLE_EQ(top, 2.0) << "two half-block step-ups onto the stairs' back";
}

}  // namespace
}  // namespace voxen::play::testing
