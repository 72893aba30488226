// The pyramid: keys by floor division, level 0 = the World's cells and light, building equal to the rebuild,
// removal back to nothing, empty sections costing nothing, and change propagation counted per edit: an edit inside
// a stone mass touches one level, the last block of a floating island every level, and an edit on an LOD section's
// face marks that neighbour's direction.
#include <gtest/gtest.h>

#include "lod_test_util.h"

namespace voxen::lod {
namespace {

using lodtest::block;
using lodtest::edit;
using lodtest::filled_world;
using lodtest::generated_world;
using lodtest::matches_rebuild;
using lodtest::mipper;
using lodtest::pyramid_of;

constexpr uint8_t bit(Face f) { return static_cast<uint8_t>(1u << f); }

TEST(LodKeys, FloorDivisionForNegativeCoordinates) {
  EXPECT_EQ(lod_section_of(0, -1, -1, -1), (LodSectionPos{0, -1, -1, -1}));
  EXPECT_EQ(lod_section_of(0, -32, 31, -33), (LodSectionPos{0, -1, 0, -2}));
  // Block x = -1 is level-3 cell -1 (blocks -8..-1), in level-3 section -1 (blocks -256..-1).
  EXPECT_EQ(int64_t{-1} >> 3, -1);
  EXPECT_EQ(lod_section_of(3, int64_t{-1} >> 3, 0, 0).x, -1);
  EXPECT_EQ((LodSectionPos{5, -1, 0, 2}.min_block()), (BlockPos{-1024, 0, 2048}));
  // A column at (-1, -1) is held in the sections below zero at every level, and in y from -128 to 255 only.
  const World w = filled_world(-1, -1, -1, -1, block("stone"), 10);
  const Pyramid p = pyramid_of(w);
  for (const LodSectionPos& s : p.positions()) {
    EXPECT_EQ(s.x, -1);
    EXPECT_EQ(s.z, -1);
  }
  EXPECT_EQ(p.section_count(), 12u + 6 + 3 + 2 + 2 + 2);  // y sections per level: 384 / 32, 384 / 64, ..., then -1..0
  EXPECT_NE(p.find({0, -1, -4, -1}), nullptr);
  EXPECT_NE(p.find({0, -1, 7, -1}), nullptr);
  EXPECT_EQ(p.find({0, -1, 8, -1}), nullptr);
  EXPECT_EQ(p.find({0, -1, -5, -1}), nullptr);
}

TEST(Pyramid, LevelZeroIsTheWorldsCellsAndLight) {
  const World w = generated_world(1, -2, 1, -2, 1);
  const Pyramid p = pyramid_of(w);
  for (int64_t x = -32; x < 32; x += 3)
    for (int64_t z = -32; z < 32; z += 5)
      for (int64_t y = kMinY; y <= kMaxY; y += 7) {
        const BlockPos b{x, y, z};
        ASSERT_EQ(p.get(0, x, y, z), LodCell::make(w.get(b), w.light(b))) << x << ',' << y << ',' << z;
      }
  // Outside the loaded columns and above the world: background.
  EXPECT_EQ(p.get(0, 100, 10, 0), LodCell{});
  EXPECT_EQ(p.get(3, 0, 300 >> 3, 0), LodCell::make(kAir, make_light(15, 0, 0, 0)));
  EXPECT_EQ(p.get(3, 0, -200 >> 3, 0), LodCell{});
}

TEST(Pyramid, BuiltColumnByColumnEqualsTheRebuild) {
  const World w = generated_world(3, -2, 1, -2, 1);
  EXPECT_TRUE(matches_rebuild(pyramid_of(w), w));
  // Every level kept, 0..8.
  EXPECT_TRUE(matches_rebuild(pyramid_of(w, kMaxLevels), w));
  EXPECT_TRUE(matches_rebuild(pyramid_of(w, kMinLevels), w));
}

TEST(Pyramid, RemovingColumnsRestoresTheBackgroundAndDropsSections) {
  World w = generated_world(5, 0, 3, 0, 1);
  Pyramid p = pyramid_of(w);
  // Remove the columns x = 2, 3: the level-0 sections over x 32..63 go; the rest equals the remaining world's rebuild.
  for (int64_t cx = 2; cx <= 3; ++cx)
    for (int64_t cz = 0; cz <= 1; ++cz) {
      const LodUpdate u = p.remove_column({cx, cz});
      EXPECT_GT(u.cells[0], 0u);
      w.remove({cx, cz});
    }
  EXPECT_EQ(p.find({0, 1, 2, 0}), nullptr);
  EXPECT_NE(p.find({0, 0, 2, 0}), nullptr);
  EXPECT_TRUE(matches_rebuild(p, w));
  for (const ColumnPos& c : w.positions()) p.remove_column(c);
  EXPECT_EQ(p.section_count(), 0u);
  EXPECT_EQ(p.column_count(), 0u);
  EXPECT_EQ(p.remove_column({0, 0}).levels, 0);
}

TEST(Pyramid, EmptySectionsAreUniformAndCostOnlyTheirObject) {
  const World w = filled_world(0, 1, 0, 1, kAir, kMinY - 1);  // all air, sky-lit: the whole level-0 footprint
  const Pyramid p = pyramid_of(w);
  for (int64_t sy = -4; sy <= 7; ++sy) {
    const LodSection* s = p.find({0, 0, sy, 0});
    ASSERT_NE(s, nullptr);
    EXPECT_TRUE(s->is_uniform());
    EXPECT_EQ(s->memory_bytes(), sizeof(LodSection));
    EXPECT_EQ(s->nonair(), 0u);
  }
  // Generated terrain: the sections wholly above the ground are uniform too.
  const World g = generated_world(1, 0, 1, 0, 1);
  const Pyramid q = pyramid_of(g);
  EXPECT_TRUE(q.find({0, 0, 7, 0})->is_uniform());
}

TEST(Propagation, AnEditInsideAStoneMassTouchesOneLevel) {
  World w = filled_world(0, 1, 0, 1, block("stone"), 100);
  Pyramid p = pyramid_of(w);
  // Deep inside: the removed stone becomes dark air (light 0, like the stone), so only its own level-0 cell changes;
  // its level-1 parent still picks a stone (same id, state and light): propagation stops at level 1.
  for (const BlockPos b : {BlockPos{5, 20, 5}, BlockPos{7, 21, 9}, BlockPos{16, 32, 16}}) {
    const LodUpdate u = edit(w, p, b, kAir);
    EXPECT_EQ(u.levels, 1) << b.x << ',' << b.y << ',' << b.z;
    EXPECT_EQ(u.cells[0], 1u);
    EXPECT_EQ(u.cells[1], 0u);
    EXPECT_EQ(u.recomputed[1], 1u);  // the parent was recomputed, found unchanged ...
    EXPECT_EQ(u.recomputed[2], 0u);  // ... and nothing above it was
    ASSERT_EQ(u.sections.size(), 1u);
    EXPECT_EQ(u.sections[0].pos.level, 0);
    EXPECT_FALSE(u.sections[0].presence);
  }
  EXPECT_TRUE(matches_rebuild(p, w));
}

TEST(Propagation, TheLastBlockOfAFloatingIslandTouchesEveryLevel) {
  World w = filled_world(2, 3, 2, 3, kAir, kMinY - 1);  // sky-lit air over blocks 32..63 in x and z
  Pyramid p = pyramid_of(w);
  const BlockPos island{40, 150, 40};
  const LodUpdate placed = edit(w, p, island, block("stone"));
  EXPECT_EQ(placed.levels, kDefaultLevels);
  const LodUpdate removed = edit(w, p, island, kAir);
  EXPECT_EQ(removed.levels, kDefaultLevels);
  // Level 0: the island and the shadow under it (sky 14, from the sides, down to y = -128): 1 + 278 cells.
  EXPECT_EQ(removed.cells[0], 1u + 150 - kMinY);
  for (int level = 1; level < kDefaultLevels; ++level) {
    // Above level 0 only the island's own cell changes: sky rounds up, so 7 cells of sky 15 and one of 14 give 15.
    EXPECT_EQ(removed.cells[static_cast<size_t>(level)], 1u) << "level " << level;
    // Level 1 recomputes the parents of all 279 changed cells (x = z = 40, y -128..150: 140 distinct parents, y >> 1
    // from -64 to 75); each level above only the parent of the one cell that changed below it.
    EXPECT_EQ(removed.recomputed[static_cast<size_t>(level)], level == 1 ? 140u : 1u) << "level " << level;
    EXPECT_EQ(removed.sections_at(level), 1u) << "level " << level;
    const LodSectionPos s = lod_section_of(level, island.x >> level, island.y >> level, island.z >> level);
    const LodSectionChange* c = removed.find(s);
    ASSERT_NE(c, nullptr) << "level " << level;
    EXPECT_TRUE(c->presence) << "level " << level;  // the island was the section's only non-air cell
  }
  EXPECT_EQ(removed.sections_at(0), 9u);  // the shadow crosses y sections -4..4
  EXPECT_TRUE(matches_rebuild(p, w));
}

TEST(Propagation, AnEditOnASectionFaceMarksThatNeighboursDirection) {
  // Stone up to y = 40 under sky, columns 0..3 in x and 0..1 in z: level-0 sections x = 0 (blocks 0..31) and
  // x = 1 (32..63). The edits stand at z = 24, inside every level's section in z (24 >> L is neither 0 nor 31).
  World w = filled_world(0, 3, 0, 1, block("stone"), 40);
  Pyramid p = pyramid_of(w);
  // x = 31 is the +X face of section x = 0; the block and its shadow (x = 31, y 41..49) lie in y section 1.
  LodUpdate u = edit(w, p, {31, 50, 24}, block("stone"));
  const LodSectionChange* c = u.find({0, 0, 1, 0});
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->borders, bit(kFacePosX));
  EXPECT_EQ(u.sections_at(0), 1u);
  for (const LodSectionChange& s : u.sections) {
    if (s.pos.level > 0) {
      EXPECT_EQ(s.borders, 0) << "level " << s.pos.level;  // 31 >> L is inside for L > 0
    }
  }
  // Level 5's cell (blocks 0..31, 32..63, 0..31) keeps a stone: the new block's branch is stone with light 0, like
  // the ground's, so the value does not change and propagation stops there.
  EXPECT_EQ(u.levels, 5);
  // x = 32 is the -X face of section x = 1.
  u = edit(w, p, {32, 50, 24}, block("stone"));
  c = u.find({0, 1, 1, 0});
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->borders, bit(kFaceNegX));
  EXPECT_EQ(u.sections_at(0), 1u);
  // z = 0: the -Z face of section z = 0.
  u = edit(w, p, {8, 50, 0}, block("stone"));
  c = u.find({0, 0, 1, 0});
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->borders, bit(kFaceNegZ));
  // y = 64 is the -Y face of y section 2, and its shadow's top cell (y = 63) the +Y face of y section 1: a light
  // change on a face marks it like a block change.
  u = edit(w, p, {20, 64, 24}, block("stone"));
  c = u.find({0, 0, 2, 0});
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->borders, bit(kFaceNegY));
  c = u.find({0, 0, 1, 0});
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->borders, bit(kFacePosY));
  EXPECT_TRUE(matches_rebuild(p, w));
}

TEST(Propagation, ChangesOutsideTheAddedColumnsAreIgnored) {
  World w = filled_world(0, 1, 0, 0, block("stone"), 40);
  Pyramid p(mipper());
  p.add_column(*w.find({0, 0}));
  // Column (1, 0) is loaded in the World but not added: an edit there changes nothing in the pyramid.
  const LodUpdate u = edit(w, p, {20, 50, 3}, block("stone"));
  EXPECT_EQ(u.levels, 0);
  EXPECT_TRUE(u.sections.empty());
  EXPECT_EQ(p.get(0, 20, 50, 3), LodCell{});
}

}  // namespace
}  // namespace voxen::lod
