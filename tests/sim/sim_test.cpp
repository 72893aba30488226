// The simulation's rules, each on a hand-built scene with the exact cells expected after k ticks
// (docs/ARCHITECTURE.md, Simulation), and its promises: thread-count independence, the border wait, the saved state,
// light kept equal to a from-scratch relight after every tick, and a quiet world that costs no section.
#include <gtest/gtest.h>

#include <cstdlib>

#include "../light/light_test_util.h"
#include "voxen/core/job_pool.h"
#include "voxen/sim/simulator.h"

namespace voxen::sim {
namespace {

using lighttest::block;
using lighttest::registry;

Cell water(int level = 0, bool falling = false) { return Cell{registry().id("water"), state::make_fluid(level, falling)}; }
Cell lava(int level = 0, bool falling = false) { return Cell{registry().id("lava"), state::make_fluid(level, falling)}; }
Cell smoke(int age = 0) { return Cell{registry().id("smoke"), static_cast<uint8_t>(age)}; }

/// A world of columns cx0..cx1 x cz0..cz1 with stone at y <= 0 and air above, and its simulator. Changes are
/// applied as edits, with light when `lit`.
struct Scene {
  World world;
  Simulator sim{registry(), 7};
  bool lit = false;

  Scene(int64_t cx0 = -1, int64_t cx1 = 1, int64_t cz0 = -1, int64_t cz1 = 1)
      : world(lighttest::make_world(cx0, cx1, cz0, cz1, block("stone"), 0)) {}

  void light_all() {
    std::vector<ColumnPos> cols = world.positions();
    light::light_columns(world, lighttest::table(), cols, nullptr);
    lit = true;
  }
  void place(BlockPos p, Cell c) {
    auto e = world.make_edit(p, c);
    ASSERT_TRUE(e);
    if (lit) light::apply_edit(world, lighttest::table(), *e);
    else world.apply(*e);
    sim.wake(p);
  }
  void box(BlockPos lo, BlockPos hi, Cell c) {
    for (int64_t y = lo.y; y <= hi.y; ++y)
      for (int64_t z = lo.z; z <= hi.z; ++z)
        for (int64_t x = lo.x; x <= hi.x; ++x) place({x, y, z}, c);
  }
  TickReport tick(JobPool* pool = nullptr) {
    TickReport r = sim.step(world, pool);
    std::vector<Edit> edits;
    for (const CellChange& c : r.changes) {
      auto e = world.make_edit(c.pos, c.after);
      EXPECT_TRUE(e) << c.pos.x << "," << c.pos.y << "," << c.pos.z;
      if (e) edits.push_back(*e);
    }
    if (lit) light::apply_edits(world, lighttest::table(), edits);
    else
      for (const Edit& e : edits) world.apply(e);
    return r;
  }
  void ticks(int n) {
    for (int i = 0; i < n; ++i) tick();
  }
  Cell at(int64_t x, int64_t y, int64_t z) const { return world.get({x, y, z}); }
  /// Cells of c's block (any state), or exactly c, at y 1..39 of the loaded columns.
  size_t count(Cell c, bool exact = false) const {
    size_t n = 0;
    for (const ColumnPos& p : world.positions())
      for (int64_t y = 1; y < 40; ++y)
        for (int z = 0; z < 16; ++z)
          for (int x = 0; x < 16; ++x) {
            const Cell got = world.find(p)->get(x, y, z);
            n += (exact ? got == c : got.id == c.id) ? 1 : 0;
          }
    return n;
  }
  size_t count_exact(Cell c) const { return count(c, true); }
};

TEST(SimFluid, WaterOnFlatGroundSpreadsAsADiamondOfLevels) {
  Scene s;
  s.place({8, 1, 8}, water());
  for (int k = 1; k <= 9; ++k) {
    s.tick();
    for (int64_t dz = -9; dz <= 9; ++dz)
      for (int64_t dx = -9; dx <= 9; ++dx) {
        const int d = static_cast<int>(std::llabs(dx) + std::llabs(dz));
        const Cell got = s.at(8 + dx, 1, 8 + dz);
        if (d <= std::min(k, 7)) EXPECT_EQ(got, water(d)) << "tick " << k << " at " << dx << "," << dz;
        else EXPECT_EQ(got, kAir) << "tick " << k << " at " << dx << "," << dz;
      }
  }
  // Settled: a few more ticks change nothing, and the simulation goes quiet.
  for (int k = 0; k < 3; ++k) EXPECT_TRUE(s.tick().changes.empty());
  EXPECT_EQ(s.sim.active_sections(), 0u);
  EXPECT_EQ(s.tick().sections_stepped, 0u);
}

TEST(SimFluid, FlowsDownFirstThenSideways) {
  Scene s;
  s.place({8, 5, 8}, block("stone"));  // a pillar top; air down to the floor at y 0
  s.place({8, 6, 8}, water());
  s.tick();
  EXPECT_EQ(s.at(9, 6, 8), water(1));
  EXPECT_EQ(s.at(8, 5, 8), block("stone"));
  s.tick();
  // The flowing cell over air falls instead of spreading on.
  EXPECT_EQ(s.at(9, 5, 8), water(0, true));
  EXPECT_EQ(s.at(10, 6, 8), kAir);
  s.ticks(3);  // one cell a tick: y 4, 3, 2
  EXPECT_EQ(s.at(9, 2, 8), water(0, true));
  EXPECT_EQ(s.at(9, 1, 8), kAir);
  s.tick();
  EXPECT_EQ(s.at(9, 1, 8), water(0, true));
  EXPECT_EQ(s.at(10, 1, 8), kAir);
  s.tick();
  // Landed: falling water spreads with 7 left (level 1).
  EXPECT_EQ(s.at(10, 1, 8), water(1));
  EXPECT_EQ(s.at(9, 1, 9), water(1));
}

TEST(SimFluid, SpreadsOnlyTowardsTheNearestDrop) {
  Scene s;
  s.place({11, 0, 8}, kAir);  // a hole 3 blocks east of the source
  s.place({8, 1, 8}, water());
  s.tick();
  EXPECT_EQ(s.at(9, 1, 8), water(1));
  EXPECT_EQ(s.at(7, 1, 8), kAir);
  EXPECT_EQ(s.at(8, 1, 9), kAir);
  EXPECT_EQ(s.at(8, 1, 7), kAir);
  s.ticks(2);
  EXPECT_EQ(s.at(11, 1, 8), water(3));
  s.tick();
  EXPECT_EQ(s.at(11, 0, 8), water(0, true));
}

TEST(SimFluid, TwoWaterSourcesRenewTheCellBetweenButLavaDoesNot) {
  Scene s;
  s.place({7, 1, 8}, water());
  s.place({9, 1, 8}, water());
  s.tick();
  EXPECT_EQ(s.at(8, 1, 8), water(0));
  // Over a drop there is no renewal: the water falls.
  Scene d;
  d.place({8, 0, 8}, kAir);
  d.place({7, 1, 8}, water());
  d.place({9, 1, 8}, water());
  d.tick();
  EXPECT_NE(d.at(8, 1, 8), water(0));
  EXPECT_EQ(d.at(8, 1, 8).id, water().id);
  Scene l;
  l.place({7, 1, 8}, lava());
  l.place({9, 1, 8}, lava());
  l.ticks(3);
  EXPECT_EQ(l.at(8, 1, 8), lava(2));
}

TEST(SimFluid, FlowWithoutAFeedDrainsAway) {
  Scene s;
  s.place({8, 1, 8}, water());
  s.ticks(10);
  EXPECT_EQ(s.count(water()), 113u);  // the diamond of radius 7: 2 * 7 * 8 + 1
  s.place({8, 1, 8}, kAir);
  s.ticks(8);
  EXPECT_EQ(s.count(water()), 0u);
  s.ticks(2);
  EXPECT_EQ(s.sim.active_sections(), 0u);
}

TEST(SimFluid, LavaMovesEveryThirdTickAndDropsTwoLevels) {
  Scene s;
  s.place({8, 1, 8}, lava());
  s.tick();  // tick 1
  EXPECT_EQ(s.at(9, 1, 8), kAir);
  s.tick();  // tick 2
  EXPECT_EQ(s.at(9, 1, 8), kAir);
  s.tick();  // tick 3
  EXPECT_EQ(s.at(9, 1, 8), lava(2));
  s.ticks(3);  // tick 6
  EXPECT_EQ(s.at(10, 1, 8), lava(4));
  s.ticks(9);
  EXPECT_EQ(s.at(11, 1, 8), lava(6));
  EXPECT_EQ(s.at(12, 1, 8), kAir);  // lava reaches 3 blocks
}

TEST(SimFluid, LavaMeetingWaterMakesObsidianCobblestoneAndStone) {
  Scene s;
  s.place({8, 1, 8}, lava());
  s.place({9, 1, 8}, water());
  s.tick();
  EXPECT_EQ(s.at(8, 1, 8), block("obsidian"));
  Scene f;
  f.place({8, 1, 8}, lava(2));
  f.place({8, 1, 9}, block("stone"));
  f.place({8, 2, 8}, water(3));
  f.tick();
  EXPECT_EQ(f.at(8, 1, 8), block("cobblestone"));
  Scene b;
  b.place({8, 1, 8}, water());
  b.place({8, 2, 8}, lava(0, true));
  b.tick();
  EXPECT_EQ(b.at(8, 1, 8), block("stone"));
}

TEST(SimGranular, AColumnOfSandFallsAndLandsAsAColumn) {
  Scene s;
  const Cell sand = block("sand"), gravel = block("gravel");
  for (int64_t y = 10; y <= 14; ++y) s.place({3, y, 4}, y == 12 ? gravel : sand);
  s.tick();
  for (int64_t y = 9; y <= 13; ++y) EXPECT_EQ(s.at(3, y, 4), y == 11 ? gravel : sand) << y;
  EXPECT_EQ(s.at(3, 14, 4), kAir);
  s.ticks(20);
  for (int64_t y = 1; y <= 5; ++y) EXPECT_EQ(s.at(3, y, 4), y == 3 ? gravel : sand) << y;
  EXPECT_EQ(s.at(3, 6, 4), kAir);
  EXPECT_EQ(s.sim.active_sections(), 0u);
}

TEST(SimGranular, SandFallsThroughWaterAndTakesItsCell) {
  Scene s;
  s.place({4, 1, 4}, water());
  s.place({4, 2, 4}, block("sand"));
  s.tick();
  EXPECT_EQ(s.at(4, 1, 4), block("sand"));
  EXPECT_EQ(s.at(4, 2, 4), kAir);
}

TEST(SimGranular, DiggingUnderATallTowerDropsAllOfIt) {
  Scene s;
  s.box({5, 1, 5}, {5, 40, 5}, block("sand"));  // 40 tall: three sections
  s.ticks(2);
  EXPECT_EQ(s.sim.active_sections(), 0u);
  s.place({5, 1, 5}, kAir);  // dig the bottom one out
  s.tick();
  EXPECT_EQ(s.at(5, 1, 5), block("sand"));
  EXPECT_EQ(s.at(5, 40, 5), kAir);
  EXPECT_EQ(s.at(5, 39, 5), block("sand"));
}

TEST(SimGas, SmokeRisesSpreadsUnderTheCeilingAndDissipates) {
  Scene s;
  s.box({0, 1, 0}, {9, 6, 9}, block("stone"));  // a closed room: air inside x, z 1..8, y 1..5, ceiling at y 6
  s.box({1, 1, 1}, {8, 5, 8}, kAir);
  s.box({4, 1, 4}, {5, 1, 5}, smoke());
  s.tick();
  EXPECT_EQ(s.at(4, 2, 4), smoke(1));
  EXPECT_EQ(s.at(4, 1, 4), kAir);
  s.ticks(3);
  EXPECT_EQ(s.at(5, 5, 5), smoke(4));
  const size_t n = s.count(smoke());
  EXPECT_EQ(n, 4u);
  s.ticks(20);
  EXPECT_EQ(s.count(smoke()), 4u);  // it spreads under the ceiling, never merging or splitting
  size_t under_ceiling = 0;
  for (int64_t z = 0; z < 16; ++z)
    for (int64_t x = 0; x < 16; ++x) under_ceiling += s.at(x, 5, z).id == smoke().id ? 1 : 0;
  EXPECT_EQ(under_ceiling, 4u);
  s.ticks(100 - 24 - 1);
  EXPECT_EQ(s.count(smoke()), 4u);
  s.tick();  // tick 100: every cell reached its life
  EXPECT_EQ(s.count(smoke()), 0u);
}

TEST(SimGas, SmokeWithNowhereToGoAgesInPlaceAndIsGoneAtItsLife) {
  Scene s;
  s.box({3, 1, 3}, {5, 3, 5}, block("stone"));  // a one-cell cavity at (4, 2, 4)
  s.place({4, 2, 4}, smoke(0));
  s.ticks(99);
  EXPECT_EQ(s.at(4, 2, 4), smoke(99));
  s.tick();
  EXPECT_EQ(s.at(4, 2, 4), kAir);
  s.ticks(2);
  EXPECT_EQ(s.sim.active_sections(), 0u);
}

/// A dam break: a walled lake whose east wall is removed, over a floor with holes.
void build_dam(Scene& s) {
  s.box({-6, 1, -6}, {6, 4, 6}, block("stone"));
  s.box({-5, 2, -5}, {5, 4, 5}, water());
  s.box({3, 0, 9}, {9, 0, 12}, kAir);
  s.box({6, 2, -3}, {6, 4, 3}, kAir);  // the wall opens
}

TEST(SimDeterminism, ThreadCountChangesNothing) {
  Scene one, two;
  build_dam(one);
  build_dam(two);
  JobPool pool(2);
  for (int k = 0; k < 40; ++k) {
    TickReport a = one.tick(nullptr);
    TickReport b = two.tick(&pool);
    ASSERT_EQ(a.changes, b.changes) << "tick " << k + 1;
    ASSERT_EQ(a.sections_stepped, b.sections_stepped);
  }
  EXPECT_EQ(cells_hash(one.world), cells_hash(two.world));
}

TEST(SimBorder, FlowWaitsForAnUnloadedColumnAndResumesWhenItLoads) {
  // Reference: both columns loaded from the start.
  Scene ref(-1, 1, 0, 0);
  ref.place({9, 1, 8}, water());
  ref.ticks(30);
  EXPECT_EQ(ref.at(16, 1, 8), water(7));
  // Column 1 absent at first.
  Scene s(-1, 1, 0, 0);
  auto col1 = s.world.remove(ColumnPos{1, 0});
  s.place({9, 1, 8}, water());
  size_t frozen = 0;
  for (int k = 0; k < 30; ++k) frozen += s.tick().frozen_cells;
  EXPECT_GT(frozen, 0u);
  // The flow east stops where its next cell's rule reads the unloaded column (a neighbour's search for a drop
  // looks 5 blocks past it): no wall of water at the border, no new source; westwards it spreads in full.
  EXPECT_EQ(s.at(10, 1, 8), water(1));
  EXPECT_EQ(s.at(11, 1, 8), water(2));
  for (int64_t x = 12; x <= 15; ++x) EXPECT_EQ(s.at(x, 1, 8), kAir) << x;
  EXPECT_EQ(s.at(2, 1, 8), water(7));
  EXPECT_EQ(s.count_exact(water(0)), 1u);
  EXPECT_EQ(s.sim.active_sections(), 0u);  // waiting costs no tick
  EXPECT_EQ(s.tick().sections_stepped, 0u);
  s.world.insert(std::move(col1));
  s.ticks(30);
  EXPECT_EQ(s.at(16, 1, 8), water(7));
  EXPECT_EQ(cells_hash(s.world), cells_hash(ref.world));
  EXPECT_EQ(s.sim.waiting_sections(), ref.sim.waiting_sections());
}

TEST(SimState, SavedStateRestoresTheTickAndThePendingSections) {
  Scene s;
  build_dam(s);
  s.ticks(7);
  const std::string bytes = s.sim.save_state();
  Simulator back(registry(), 7);
  ASSERT_TRUE(back.load_state(bytes).ok());
  EXPECT_EQ(back.tick(), 7u);
  EXPECT_GE(back.waiting_sections(), s.sim.active_sections());
  // The restored simulator finishes the flow exactly as the uninterrupted one.
  Scene copy;
  build_dam(copy);
  copy.ticks(7);
  for (int k = 0; k < 30; ++k) {
    TickReport a = s.sim.step(s.world);
    TickReport b = back.step(copy.world);
    ASSERT_EQ(a.changes, b.changes) << k;
    for (const CellChange& c : a.changes) {
      s.world.apply(*s.world.make_edit(c.pos, c.after));
      copy.world.apply(*copy.world.make_edit(c.pos, c.after));
    }
  }
  // Damaged bytes are refused with the offset, and change nothing.
  Simulator bad(registry(), 7);
  std::string cut = bytes.substr(0, bytes.size() - 3);
  auto r = bad.load_state(cut);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("bytes"), std::string::npos) << r.error().message;
  EXPECT_EQ(bad.tick(), 0u);
  std::string magic = bytes;
  magic[0] = 'Q';
  EXPECT_FALSE(bad.load_state(magic).ok());
  std::string section = bytes;
  section[18 + 8] = 30;
  auto rs = bad.load_state(section);
  ASSERT_FALSE(rs.ok());
  EXPECT_EQ(rs.error().offset, 26);
}

TEST(SimLight, LavaFlowingAndDrainingKeepsLightEqualToARelight) {
  Scene s(0, 1, 0, 0);
  s.light_all();
  s.place({14, 1, 8}, lava());
  for (int k = 0; k < 12; ++k) {
    s.tick();
    auto d = light::verify_light(s.world, lighttest::table());
    ASSERT_TRUE(d.equal()) << "tick " << k + 1 << ": " << d.to_string();
  }
  EXPECT_EQ(s.at(17, 1, 8), lava(6));  // across the column border
  s.place({14, 1, 8}, kAir);
  for (int k = 0; k < 15; ++k) {
    s.tick();
    auto d = light::verify_light(s.world, lighttest::table());
    ASSERT_TRUE(d.equal()) << "drain tick " << k + 1 << ": " << d.to_string();
  }
  EXPECT_EQ(s.count(lava()), 0u);
  EXPECT_EQ(s.world.light({17, 1, 8}) & 0x0FFF, 0) << "no block light left behind at the border";
}

TEST(SimQuiet, AQuietWorldStepsNoSection) {
  Scene s;
  TickReport r = s.tick();
  EXPECT_EQ(r.sections_stepped, 0u);
  EXPECT_TRUE(s.sim.quiet());
  // Waking a cell among inert blocks steps its neighbourhood once, then nothing.
  s.place({8, 10, 8}, block("stone"));
  EXPECT_GT(s.tick().sections_stepped, 0u);
  EXPECT_EQ(s.tick().sections_stepped, 0u);
}

}  // namespace
}  // namespace voxen::sim
