// Structures (voxen/gen/structures.h): plans are pure functions of (seed, region) inside their region; a
// structure spanning columns is byte-identical whatever order and thread count its columns generate in (negative
// coordinates and column borders included); a village holds what it says (planks, glass, stairs, slabs, gravel,
// coloured lamps that light their neighbours in their colour) and no tree grows in it.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>

#include "gen_test_util.h"
#include "voxen/core/hash.h"
#include "voxen/gen/structures.h"
#include "voxen/light/light.h"

namespace voxen {
namespace {

using gentest::id;
using gentest::registry;

constexpr uint64_t kSeed = 1;

// The first structure of `kind` (in the planner's order) near the origin whose box lies at negative x and z and
// spans at least two columns each way: found through the planner, not hard-coded.
gen::Structure find_structure(gen::StructureKind kind) {
  const gen::StructurePlanner planner(kSeed, registry());
  std::vector<gen::Structure> found;
  planner.find(-4096, -4096, 4096, 4096, found);
  for (const gen::Structure& s : found)
    if (s.kind == kind && s.box.x1 < 0 && s.box.z1 < 0 && column_of(s.box.x0) != column_of(s.box.x1) &&
        column_of(s.box.z0) != column_of(s.box.z1))
      return s;
  ADD_FAILURE() << "no " << gen::structure_kind_name(kind) << " at negative x and z within 4096 blocks";
  return {};
}

std::vector<ColumnPos> columns_of(const gen::BlockBox& b) {
  std::vector<ColumnPos> out;
  for (int64_t cz = column_of(b.z0); cz <= column_of(b.z1); ++cz)
    for (int64_t cx = column_of(b.x0); cx <= column_of(b.x1); ++cx) out.push_back({cx, cz});
  return out;
}

// Every cell of two columns, compared section by section.
void expect_same_cells(const Column& a, const Column& b) {
  uint32_t ca[kSectionVolume], cb[kSectionVolume];
  for (int s = 0; s < kSectionsPerColumn; ++s) {
    a.section(s).unpack(ca);
    b.section(s).unpack(cb);
    ASSERT_TRUE(std::equal(ca, ca + kSectionVolume, cb)) << "column " << a.pos().x << "," << a.pos().z << " section " << s;
  }
}

TEST(Structures, PlansArePureAndLieInsideTheirRegion) {
  const gen::StructurePlanner a(kSeed, registry()), b(kSeed, registry());
  int planned = 0;
  for (int64_t rz = -6; rz <= 5; ++rz)
    for (int64_t rx = -6; rx <= 5; ++rx) {
      const auto pa = a.plan(rx, rz);
      const auto pb = b.plan(rx, rz);
      ASSERT_EQ(pa.has_value(), pb.has_value());
      if (!pa) continue;
      ++planned;
      EXPECT_EQ(pa->x, pb->x);
      EXPECT_EQ(pa->z, pb->z);
      EXPECT_EQ(pa->base, pb->base);
      EXPECT_EQ(pa->box.y1, pb->box.y1);
      EXPECT_EQ(pa->houses.size(), pb->houses.size());
      const int64_t x0 = rx * gen::StructurePlanner::kRegionSize, z0 = rz * gen::StructurePlanner::kRegionSize;
      EXPECT_GE(pa->box.x0, x0);
      EXPECT_LT(pa->box.x1, x0 + gen::StructurePlanner::kRegionSize);
      EXPECT_GE(pa->box.z0, z0);
      EXPECT_LT(pa->box.z1, z0 + gen::StructurePlanner::kRegionSize);
    }
  EXPECT_GT(planned, 10);
}

// A structure spanning columns at negative coordinates: its columns generated in row order on this thread, in
// reverse order by a fresh generator, on a pool of 3 threads in a hashed order, and each alone by its own fresh
// generator, all byte-identical.
void check_order_independence(const gen::Structure& s, std::vector<ColumnPos> positions) {
  ASSERT_GE(positions.size(), 4u);
  auto g1 = gentest::make("default", kSeed);
  const auto forward = gen::generate_columns(*g1, positions, nullptr);

  std::vector<ColumnPos> reversed(positions.rbegin(), positions.rend());
  auto g2 = gentest::make("default", kSeed);
  const auto backward = gen::generate_columns(*g2, reversed, nullptr);

  std::vector<ColumnPos> hashed = positions;
  std::sort(hashed.begin(), hashed.end(),
            [](ColumnPos a, ColumnPos b) { return hash2(7, a.x, a.z) < hash2(7, b.x, b.z); });
  auto g3 = gentest::make("default", kSeed);
  JobPool pool(3);
  const auto pooled = gen::generate_columns(*g3, hashed, &pool, s.x + 999, s.z - 999);

  int with_structure_cells = 0;
  for (size_t i = 0; i < positions.size(); ++i) {
    const Column& f = *forward[i];
    const Column& b = *backward[positions.size() - 1 - i];
    const size_t k = static_cast<size_t>(std::find(hashed.begin(), hashed.end(), positions[i]) - hashed.begin());
    const Column& p = *pooled[k];
    expect_same_cells(f, b);
    expect_same_cells(f, p);
    auto alone = gentest::make("default", kSeed);
    Column c(positions[i]);
    alone->generate(c);
    expect_same_cells(f, c);
    // The column really holds some of the structure (a block only structures place).
    bool has = false;
    for (int lz = 0; lz < 16 && !has; ++lz)
      for (int lx = 0; lx < 16 && !has; ++lx)
        for (int64_t y = s.box.y0; y <= s.box.y1 && !has; ++y) {
          const uint16_t b_id = f.get(lx, y, lz).id;
          has = b_id == id("planks") || b_id == id("stone_bricks") || b_id == id("cobblestone") ||
                b_id == id("mossy_stone_bricks") || b_id == id("sandstone") || b_id == id("gravel");
        }
    with_structure_cells += has;
  }
  EXPECT_GE(with_structure_cells, 2) << "the structure should span several of the columns compared";
}

TEST(Structures, VillageColumnsAreIdenticalInAnyOrderAndThreadCount) {
  const gen::Structure v = find_structure(gen::StructureKind::kVillage);
  check_order_independence(v, columns_of(v.box));
}

TEST(Structures, ZigguratColumnsAreIdenticalInAnyOrderAndThreadCount) {
  const gen::Structure z = find_structure(gen::StructureKind::kZiggurat);
  ASSERT_GT(z.radius, 0);
  // The 3 x 3 columns around its summit's column (its whole footprint is some 200 columns), and 3 x 3 across its
  // north-west corner, where it meets the terrain.
  std::vector<ColumnPos> positions;
  for (const auto& [x, zz] : {std::pair{z.x, z.z}, std::pair{z.box.x0, z.box.z0}})
    for (int64_t dz = -1; dz <= 1; ++dz)
      for (int64_t dx = -1; dx <= 1; ++dx) positions.push_back({column_of(x) + dx, column_of(zz) + dz});
  check_order_independence(z, positions);
}

TEST(Structures, VillageHoldsItsBlocksAndLampsLightInTheirColour) {
  const gen::Structure v = find_structure(gen::StructureKind::kVillage);
  ASSERT_FALSE(v.houses.empty());
  ASSERT_FALSE(v.lamps.empty());
  auto g = gentest::make("default", kSeed);
  // The village's columns and one ring around them (lit together, so the lamps' light is complete).
  gen::BlockBox ring = v.box;
  ring.x0 -= 16, ring.z0 -= 16, ring.x1 += 16, ring.z1 += 16;
  const std::vector<ColumnPos> positions = columns_of(ring);
  World world = gentest::generate_world(*g, positions);
  std::map<uint16_t, int> count;
  for (int64_t z = v.box.z0; z <= v.box.z1; ++z)
    for (int64_t x = v.box.x0; x <= v.box.x1; ++x)
      for (int64_t y = v.box.y0; y <= v.box.y1; ++y) ++count[world.get({x, y, z}).id];
  for (const char* name : {"planks", "glass", "oak_stairs", "oak_slab", "oak_log", "gravel", "cobblestone"})
    EXPECT_GT(count[id(name)], 0) << name;
  EXPECT_GT(count[id("red_lamp")] + count[id("green_lamp")] + count[id("blue_lamp")], 0);
  // No tree in a village: trees keep clear of structures (leaves reach 3 blocks, the clearance is 4).
  for (const char* name : {"oak_leaves", "birch_leaves", "spruce_leaves"}) EXPECT_EQ(count[id(name)], 0) << name;

  light::light_columns(world, light::LightTable(registry()), positions, nullptr);
  const gen::StructurePlanner planner(kSeed, registry());
  for (const gen::LampPost& l : v.lamps) {
    const BlockPos lamp{l.x, l.ground + 3, l.z};
    ASSERT_EQ(world.get(lamp).id, l.lamp) << "lamp at " << l.x << "," << l.z;
    const BlockDef& d = registry()[l.lamp];
    const Light above = world.light({l.x, l.ground + 4, l.z});
    const int rgb[3] = {light_r(above), light_g(above), light_b(above)};
    for (int c = 0; c < 3; ++c) {
      // The lamp's own channels reach the cell above at emission - 1; its dark channels stay below that.
      if (d.emission[c] == 15) EXPECT_EQ(rgb[c], 14) << d.name << " channel " << c;
      else EXPECT_LT(rgb[c], 14) << d.name << " channel " << c;
    }
  }
}

TEST(Structures, HousesHaveDoorsWindowsAndStairRoofs) {
  const gen::Structure v = find_structure(gen::StructureKind::kVillage);
  const gen::StructurePlanner planner(kSeed, registry());
  for (const gen::House& h : v.houses) {
    const int64_t mx = (h.x0 + h.x1) / 2, mz = (h.z0 + h.z1) / 2;
    const int64_t dx = h.door == 1 ? h.x1 : h.door == 3 ? h.x0 : mx, dz = h.door == 0 ? h.z0 : h.door == 2 ? h.z1 : mz;
    Cell c;
    ASSERT_TRUE(planner.cell_at(v, dx, h.floor + 1, dz, h.floor, c));
    EXPECT_EQ(c, kAir) << "door gap";
    // A window on the x wall without the door, two blocks from its corner.
    ASSERT_TRUE(planner.cell_at(v, h.door == 3 ? h.x1 : h.x0, h.floor + 2, h.z0 + 2, h.floor, c));
    EXPECT_EQ(c.id, id("glass")) << "window";
    // The roof's north row faces south (its back toward the ridge), its south row north.
    ASSERT_TRUE(planner.cell_at(v, mx, h.floor + 5, h.z0 - 1, h.floor, c));
    EXPECT_EQ(c, (Cell{id("oak_stairs"), 2}));
    ASSERT_TRUE(planner.cell_at(v, mx, h.floor + 5, h.z1 + 1, h.floor, c));
    EXPECT_EQ(c, (Cell{id("oak_stairs"), 0}));
  }
}

}  // namespace
}  // namespace voxen
