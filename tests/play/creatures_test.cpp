// Creatures (issue 22; play/creatures.h) in the flat world, through a headless session's real streaming and frame
// loop: spawned from the seed alike in any column order, walking with the player's physics and never inside a
// block, climbing a one-block step, resting without physics until a cell beside them changes, stashed with their
// column and given back as they were, reproduced by a replay, and drawn by the box pass in one instanced draw.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "play_test_util.h"
#include "saved_world_util.h"
#include "voxen/play/creatures.h"

namespace voxen::play::testing {
namespace {

// The flat world's grass east of its plaza (x 16..): the eye at (40.5, 8.5).
std::unique_ptr<PlaySession> flat_session(int render_distance, bool creatures = true, double pitch = 0.0) {
  RecordingHeader h = flat_header(40.5, 1.0, 8.5, 0.0, pitch, render_distance);
  SessionOptions so;
  so.window = false;
  so.threads = 2;
  so.game.creatures = creatures;
  auto s = PlaySession::open(h, so, registry());
  if (!s) {
    ADD_FAILURE() << s.error().to_string();
    return nullptr;
  }
  return std::move(*s);
}

// Runs frames until every column in view is drawn.
void settle(PlaySession& s, int frames = 40) {
  RunResult r = run_events(s.game(), {}, static_cast<uint64_t>(frames), 0, true, [](const FrameReport&) { return true; });
  ASSERT_TRUE(r.failures.empty()) << r.failures.front();
}

std::vector<ColumnPos> drawn(PlaySession& s) { return s.game().streamer().drawn_columns(); }

Edit edit_at(World& w, const BlockPos& p, const std::string& block) {
  auto e = w.make_edit(p, block == "air" ? Cell{} : Cell{*registry().find(block), 0});
  EXPECT_TRUE(e.has_value());
  return *e;
}

TEST(Creatures, SpawnFromTheSeedAlikeInAnyColumnOrderOnGrass) {
  auto s = flat_session(6);
  ASSERT_TRUE(s);
  settle(*s);
  const std::vector<ColumnPos> cols = drawn(*s);
  ASSERT_GT(cols.size(), 100u);
  std::vector<ColumnPos> reversed(cols.rbegin(), cols.rend());
  Creatures a(7, registry()), b(7, registry()), other(8, registry());
  a.sync_columns(s->game().world(), cols);
  b.sync_columns(s->game().world(), reversed);
  other.sync_columns(s->game().world(), cols);
  ASSERT_GT(a.all().size(), 3u) << "a 13-column-wide flat world spawned (almost) nothing";
  EXPECT_EQ(a.all(), b.all());
  EXPECT_EQ(a.state_hash(), b.state_hash());
  EXPECT_NE(a.state_hash(), other.state_hash()) << "another seed spawned the same creatures";
  const uint16_t grass = *registry().find("grass_block");
  for (const Creature& c : a.all()) {
    EXPECT_EQ(c.body.block.y, 1) << creature_kind_name(c.kind);
    EXPECT_EQ(s->game().world().get({c.body.block.x, 0, c.body.block.z}).id, grass);
  }
  // Syncing again changes nothing (no second spawn).
  a.sync_columns(s->game().world(), reversed);
  EXPECT_EQ(a.state_hash(), b.state_hash());
}

TEST(Creatures, WalkWithThePlayersPhysicsAndNeverStandInABlock) {
  auto s = flat_session(3);
  ASSERT_TRUE(s);
  settle(*s);
  Creatures cr(7, registry());
  cr.sync_columns(s->game().world(), drawn(*s));
  for (int k = 0; k < kCreatureKinds; ++k)
    cr.spawn_around(s->game().world(), static_cast<CreatureKind>(k), 40, 8, 6, 12, 100 + static_cast<uint64_t>(k));
  ASSERT_GE(cr.all().size(), 16u);
  std::vector<glm::dvec3> start;
  for (const Creature& c : cr.all()) start.push_back(c.body.feet());
  const CollisionWorld cw(s->game().world(), registry());
  int stepped = 0, rested = 0;
  for (int i = 0; i < 600; ++i) {  // 30 s
    const CreatureTickStats st = cr.advance(Creatures::kTick, cw);
    stepped += st.stepped;
    rested += st.rested;
    for (const Creature& c : cr.all())
      ASSERT_FALSE(player_inside_solid(c.body, cw, creature_body(c.kind))) << creature_kind_name(c.kind) << " in a block";
  }
  size_t moved = 0;
  for (size_t i = 0; i < cr.all().size(); ++i) {
    const glm::dvec3 d = cr.all()[i].body.feet() - start[i];
    moved += std::hypot(d.x, d.z) > 2.0;
    EXPECT_GE(cr.all()[i].body.feet().y, 1.0 - 1e-9);  // on the ground or above it
  }
  std::printf("%zu creatures, %zu walked more than 2 blocks; %d physics steps, %d resting ticks skipped\n",
              cr.all().size(), moved, stepped, rested);
  EXPECT_GT(moved, cr.all().size() / 2);
  EXPECT_GT(rested, stepped / 4) << "idle creatures should rest, skipping physics";
}

TEST(Creatures, ClimbAOneBlockStep) {
  auto s = flat_session(3);
  ASSERT_TRUE(s);
  settle(*s);
  // A wall of stone one block high across x = 44, z 0..16; a pig at x 41.5 walking east (yaw 90).
  std::vector<Edit> edits;
  for (int64_t z = 0; z < 16; ++z) edits.push_back(edit_at(s->game().world(), {44, 1, z}, "stone"));
  for (const Edit& e : edits) s->game().world().apply(e);
  Creatures cr(7, registry());
  cr.sync_columns(s->game().world(), drawn(*s));
  cr.all_mutable().clear();
  ASSERT_EQ(cr.spawn_around(s->game().world(), CreatureKind::kPig, 41, 8, 1, 0, 5), 1);
  Creature& pig = cr.all_mutable()[0];
  pig.body.yaw = pig.target_yaw = 90.0;
  pig.walking = true;
  pig.mode_until = 1000;
  const CollisionWorld cw(s->game().world(), registry());
  int64_t highest = 0;
  for (int i = 0; i < 60; ++i) {
    cr.advance(Creatures::kTick, cw);
    highest = std::max(highest, cr.all()[0].body.block.y);
  }
  // Past the wall (x 44..45) it stood on it (y 2) on the way.
  EXPECT_GT(cr.all()[0].body.feet().x, 45.0) << "the pig did not get over the step";
  EXPECT_EQ(highest, 2);
}

TEST(Creatures, RestWithoutPhysicsUntilACellBesideThemChanges) {
  auto s = flat_session(3);
  ASSERT_TRUE(s);
  settle(*s);
  Creatures cr(7, registry());
  cr.sync_columns(s->game().world(), drawn(*s));
  cr.all_mutable().clear();
  ASSERT_EQ(cr.spawn_around(s->game().world(), CreatureKind::kSheep, 36, 20, 1, 0, 9), 1);
  cr.all_mutable()[0].mode_until = 100000;  // idle for good
  const CollisionWorld cw(s->game().world(), registry());
  CreatureTickStats st = cr.advance(Creatures::kTick * 5, cw);
  EXPECT_TRUE(cr.all()[0].resting);
  st = cr.advance(Creatures::kTick * 20, cw);
  EXPECT_EQ(st.stepped, 0);
  EXPECT_EQ(st.rested, 20);
  // Dig out the ground under it, two deep: the change wakes it and it falls.
  const BlockPos feet = cr.all()[0].body.block;
  std::vector<BlockPos> dug;
  for (int64_t y = feet.y - 1; y >= feet.y - 2; --y) {
    const Edit e = edit_at(s->game().world(), {feet.x, y, feet.z}, "air");
    s->game().world().apply(e);
    dug.push_back(e.pos);
  }
  const double before = cr.all()[0].body.feet().y;
  cr.advance(Creatures::kTick * 20, cw);
  EXPECT_EQ(cr.all()[0].body.feet().y, before) << "a resting creature moved without being woken";
  cr.cells_changed(dug);
  st = cr.advance(Creatures::kTick * 20, cw);
  EXPECT_GT(st.stepped, 0);
  EXPECT_LT(cr.all()[0].body.feet().y, before - 1.5);
}

TEST(Creatures, StashedWithTheirColumnAndGivenBackAsTheyWere) {
  auto s = flat_session(3);
  ASSERT_TRUE(s);
  settle(*s);
  std::vector<ColumnPos> cols = drawn(*s);
  Creatures cr(7, registry());
  cr.sync_columns(s->game().world(), cols);
  cr.spawn_around(s->game().world(), CreatureKind::kCow, 56, 8, 4, 6, 77);
  const CollisionWorld cw(s->game().world(), registry());
  for (int i = 0; i < 50; ++i) cr.advance(Creatures::kTick, cw);
  const size_t n = cr.all().size();
  ASSERT_GT(n, 0u);
  const Creature first = cr.all()[0];
  const ColumnPos home = column_pos_of(first.body.block);
  const uint64_t hash = cr.state_hash();
  std::vector<ColumnPos> without;
  for (const ColumnPos& c : cols)
    if (!(c == home)) without.push_back(c);
  cr.sync_columns(s->game().world(), without);
  EXPECT_LT(cr.all().size(), n);
  EXPECT_GE(cr.stashed(), 1u);
  EXPECT_EQ(std::count_if(cr.all().begin(), cr.all().end(), [&](const Creature& c) { return c.id == first.id; }), 0);
  EXPECT_EQ(cr.state_hash(), hash) << "the stash changed a creature";
  cr.sync_columns(s->game().world(), cols);
  EXPECT_EQ(cr.all().size(), n);
  EXPECT_EQ(cr.stashed(), 0u);
  const auto back = std::find_if(cr.all().begin(), cr.all().end(), [&](const Creature& c) { return c.id == first.id; });
  ASSERT_NE(back, cr.all().end());
  EXPECT_EQ(*back, first);
}

TEST(Creatures, AReplayReproducesThemOnAnyNumberOfThreads) {
  // The flat world at render distance 6, walking north for 3 s: columns stream in and out; twice.
  RecordingHeader h = flat_header(8.5, 1.0, 8.5, 0.0, 0.0, 6);
  const std::vector<InputEvent> events = {{10, EventKind::kKeyDown, static_cast<int>(Key::kW), 0, 0, 0},
                                          {190, EventKind::kKeyUp, static_cast<int>(Key::kW), 0, 0, 0}};
  // The two runs on 1 and 3 worker threads: generation, light and meshing spread differently, the same creatures.
  uint64_t hashes[2] = {0, 0};
  size_t live[2] = {0, 0};
  for (int run = 0; run < 2; ++run) {
    SessionOptions so;
    so.window = false;
    so.threads = run == 0 ? 1 : 3;
    auto opened = PlaySession::open(h, so, registry());
    ASSERT_TRUE(opened) << opened.error().to_string();
    auto s = std::move(*opened);
    RunResult r = run_events(s->game(), events, 240, 30, true, [](const FrameReport&) { return true; });
    ASSERT_TRUE(r.failures.empty()) << r.failures.front();
    ASSERT_NE(s->game().creatures(), nullptr);
    hashes[run] = s->game().creatures()->state_hash();
    live[run] = s->game().creatures()->all().size();
  }
  EXPECT_GT(live[0], 0u);
  EXPECT_EQ(live[0], live[1]);
  EXPECT_EQ(hashes[0], hashes[1]);
}

TEST(Creatures, DrawnByTheBoxPassInOneInstancedDraw) {
  // Three creatures 4 blocks in front of the eye (north, -z), looking slightly down.
  auto with = flat_session(3, true, -10.0);
  auto without = flat_session(3, false, -10.0);
  ASSERT_TRUE(with && without);
  settle(*with, 20);
  settle(*without, 20);
  Creatures* cr = with->game().creatures();
  ASSERT_NE(cr, nullptr);
  cr->all_mutable().clear();
  ASSERT_EQ(cr->spawn_around(with->game().world(), CreatureKind::kCow, 40, 4, 1, 0, 1), 1);
  ASSERT_EQ(cr->spawn_around(with->game().world(), CreatureKind::kPig, 38, 4, 1, 0, 2), 1);
  ASSERT_EQ(cr->spawn_around(with->game().world(), CreatureKind::kChicken, 42, 4, 1, 0, 3), 1);
  for (Creature& c : cr->all_mutable()) c.mode_until = 100000;  // standing
  FrameReport rep_with, rep_without;
  run_events(with->game(), {}, 2, 1, true, [&](const FrameReport& r) { rep_with = r; return true; });
  run_events(without->game(), {}, 2, 1, true, [&](const FrameReport& r) { rep_without = r; return true; });
  const int boxes = Creatures::boxes_of(CreatureKind::kCow) + Creatures::boxes_of(CreatureKind::kPig) +
                    Creatures::boxes_of(CreatureKind::kChicken);
  std::printf("live %zu, rendered %d, pose %.3f ms\n", rep_with.creatures_live, int(rep_with.rendered), rep_with.creature_pose_ms);
  EXPECT_EQ(rep_with.render.boxes_drawn, static_cast<uint32_t>(boxes));
  EXPECT_EQ(rep_without.render.boxes_drawn, 0u);
  const render::Image a = with->game().read_pixels(), b = without->game().read_pixels();
  ASSERT_EQ(a.pixels.size(), b.pixels.size());
  size_t differ = 0;
  for (size_t i = 0; i < a.pixels.size(); i += 4) differ += a.pixels[i] != b.pixels[i] || a.pixels[i + 1] != b.pixels[i + 1];
  std::printf("%zu of %zu pixels show creatures\n", differ, a.pixels.size() / 4);
  EXPECT_GT(differ, 20u);
  EXPECT_LT(differ, a.pixels.size() / 4 / 2);
}

TEST(Creatures, SaveAndLoadRoundTripBitForBit) {
  auto s = flat_session(3);
  ASSERT_TRUE(s);
  settle(*s);
  const std::vector<ColumnPos> cols = drawn(*s);
  Creatures a(7, registry());
  a.sync_columns(s->game().world(), cols);
  a.spawn_around(s->game().world(), CreatureKind::kSheep, 40, 8, 8, 10, 3);
  const CollisionWorld cw(s->game().world(), registry());
  for (int i = 0; i < 37; ++i) a.advance(Creatures::kTick, cw);
  const std::string bytes = a.save_state();
  Creatures b(7, registry());
  ASSERT_TRUE(b.load_state(bytes).ok());
  EXPECT_EQ(b.save_state(), bytes);
  EXPECT_EQ(b.all().size(), 0u) << "loaded creatures wait in their columns' stash";
  EXPECT_EQ(b.stashed(), a.all().size());
  EXPECT_EQ(b.state_hash(), a.state_hash());
  b.sync_columns(s->game().world(), cols);
  EXPECT_EQ(b.all().size(), a.all().size()) << "a spawned column spawned again, or a stash was not given back";
  // Both run on alike.
  for (int i = 0; i < 40; ++i) {
    a.advance(Creatures::kTick, cw);
    b.advance(Creatures::kTick, cw);
  }
  EXPECT_EQ(a.state_hash(), b.state_hash());
}

TEST(Creatures, DamagedBytesAreRefusedNamingTheByteAndChangeNothing) {
  auto s = flat_session(2);
  ASSERT_TRUE(s);
  settle(*s);
  Creatures a(7, registry());
  a.sync_columns(s->game().world(), drawn(*s));
  ASSERT_EQ(a.spawn_around(s->game().world(), CreatureKind::kPig, 40, 8, 1, 0, 3), 1);
  const std::string good = a.save_state();
  const size_t rec = 24;  // the first creature's record
  auto patched = [&](size_t at, uint8_t v) {
    std::string b = good;
    b[at] = static_cast<char>(v);
    return b;
  };
  std::string nan_frac = good;
  const double nan = std::nan("");
  std::memcpy(&nan_frac[rec + 44], &nan, 8);
  const struct {
    std::string bytes;
    const char* says;
    int64_t offset;
  } cases[] = {
      {good.substr(0, 10), "truncated header", 10},
      {patched(0, 'W'), "bad magic", 0},
      {patched(4, 9), "version 9", 4},
      {good + "x", "do not fill", 8},
      {patched(rec + 8, 4), "kind 4", static_cast<int64_t>(rec + 8)},
      {patched(rec + 9, 0x80), "unknown flags", static_cast<int64_t>(rec + 9)},
      {nan_frac, "fraction outside", static_cast<int64_t>(rec + 44)},
  };
  for (const auto& c : cases) {
    Creatures b(7, registry());
    b.sync_columns(s->game().world(), drawn(*s));
    const uint64_t before = b.state_hash();
    const Status st = b.load_state(c.bytes);
    ASSERT_FALSE(st.ok()) << c.says;
    EXPECT_NE(st.error().message.find(c.says), std::string::npos) << st.error().message;
    EXPECT_EQ(st.error().offset, c.offset) << c.says;
    EXPECT_EQ(b.state_hash(), before) << c.says << ": a refused record changed the creatures";
  }
}

TEST(Creatures, ASavedWorldKeepsThemAcrossSessions) {
  const std::string dir = temp_dir("creatures_saved");
  RecordingHeader h = flat_header(40.5, 1.0, 8.5, 0.0, 0.0, 4);
  std::string handed_over;
  size_t live = 0;
  {
    auto ws = open_world(dir + "/world", h.seed, h.generator);
    ASSERT_TRUE(ws);
    auto s = open_saved_session(h, *ws, /*hud=*/false);
    ASSERT_TRUE(s);
    // 60 frames of 1/60 s: 20 creature ticks, handed to the world at the 60th.
    const RunResult r = run_events(s->game(), {}, 60, 0, true);
    ASSERT_TRUE(r.failures.empty()) << r.failures.front();
    ASSERT_NE(s->game().creatures(), nullptr);
    live = s->game().creatures()->all().size();
    handed_over = s->game().creatures()->save_state();
    s.reset();
    ASSERT_TRUE(ws->close().ok());
  }
  ASSERT_GT(live, 0u) << "nothing spawned in the flat world's 81 columns";
  {
    auto ws = open_world(dir + "/world", std::nullopt, h.generator);
    ASSERT_TRUE(ws);
    auto s = open_saved_session(h, *ws, /*hud=*/false);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->game().creatures()->save_state(), handed_over) << "the creatures were not saved with the world";
    const RunResult r = run_events(s->game(), {}, 30, 0, true);
    ASSERT_TRUE(r.failures.empty()) << r.failures.front();
    EXPECT_EQ(s->game().creatures()->all().size(), live) << "restored creatures plus none spawned twice";
    s.reset();
    ASSERT_TRUE(ws->close().ok());
  }
}

}  // namespace
}  // namespace voxen::play::testing
