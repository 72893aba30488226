// LOD storage: a section's mip chain (sizes, level 0 = the section's cells and light, each level the rule over the
// one below, the uniform fast path), bricks (palette growth through every width, compaction, non-air counts) and
// LOD sections (uniform until split, back to uniform, brick replacement reporting the faces it changed).
#include <gtest/gtest.h>

#include <array>
#include <vector>

#include "lod_test_util.h"
#include "voxen/core/hash.h"
#include "voxen/lod/section.h"

namespace voxen::lod {
namespace {

using lodtest::block;
using lodtest::lod_cell;
using lodtest::mipper;

/// A section of hashed cells (air, stone, water, leaves, torch) with hashed dense light.
void hashed_section(uint64_t seed, Section& cells, LightSection& light) {
  const Cell choice[5] = {kAir, block("stone"), block("water"), block("oak_leaves"), block("torch")};
  for (int i = 0; i < kSectionVolume; ++i) {
    const uint64_t h = hash1(seed, i);
    cells.set(i, choice[h % 5]);
    light.set(i, static_cast<Light>((h >> 8) & 0xFFFF));
  }
}

TEST(SectionMips, ChainHas4096Plus585Cells) {
  EXPECT_EQ(kMipCells, 4096 + 512 + 64 + 8 + 1);
  EXPECT_EQ(kMipCells - 4096, 585);
  EXPECT_EQ(SectionMips::index(0, 3, 5, 7), section_index(3, 5, 7));
  EXPECT_EQ(SectionMips::index(4, 0, 0, 0), kMipCells - 1);
}

TEST(SectionMips, LevelZeroIsTheSectionAndEachLevelTheRuleOverTheOneBelow) {
  Section cells;
  LightSection light;
  hashed_section(7, cells, light);
  auto mips = std::make_unique<SectionMips>();
  mip_section(cells, light, mipper(), *mips);
  for (int y = 0; y < 16; ++y)
    for (int z = 0; z < 16; ++z)
      for (int x = 0; x < 16; ++x)
        ASSERT_EQ(mips->get(0, x, y, z), LodCell::make(cells.get(x, y, z), light.get(section_index(x, y, z))));
  for (int level = 1; level <= 4; ++level) {
    const int n = 16 >> level;
    for (int y = 0; y < n; ++y)
      for (int z = 0; z < n; ++z)
        for (int x = 0; x < n; ++x) {
          std::array<LodCell, 8> c;
          for (int dy = 0; dy < 2; ++dy)
            for (int dz = 0; dz < 2; ++dz)
              for (int dx = 0; dx < 2; ++dx)
                c[static_cast<size_t>(child_index(dx, dy, dz))] = mips->get(level - 1, 2 * x + dx, 2 * y + dy, 2 * z + dz);
          ASSERT_EQ(mips->get(level, x, y, z), mipper().mip(c)) << "level " << level << " cell " << x << ',' << y << ',' << z;
        }
  }
}

TEST(SectionMips, UniformFastPathEqualsTheGeneralPath) {
  for (const LodCell v : {lod_cell("stone"), LodCell::make(kAir, make_light(15, 0, 0, 0)),
                          LodCell::make(Cell{kAirId, 3}, make_light(9, 1, 2, 3))}) {
    const Section cells(v.cell());
    const LightSection light(v.light());
    // The same cells with the light stored densely (one value everywhere) take the general path.
    LightSection dense(v.light());
    dense.dense_mut();
    ASSERT_FALSE(dense.is_uniform());
    auto fast = std::make_unique<SectionMips>(), general = std::make_unique<SectionMips>();
    mip_section(cells, light, mipper(), *fast);
    mip_section(cells, dense, mipper(), *general);
    EXPECT_EQ(fast->cells, general->cells);
  }
}

TEST(LodBrick, GrowsThroughEveryWidthAndCompactsBack) {
  LodBrick b(lod_cell("stone"));
  EXPECT_TRUE(b.is_uniform());
  EXPECT_EQ(b.nonair(), 512);
  std::vector<LodCell> expect(512, lod_cell("stone"));
  // 300 distinct values (air with light v): widths 1, 2, 4, 8 and 16 bits in turn.
  std::vector<int> widths;
  for (int v = 0; v < 300; ++v) {
    const int i = static_cast<int>(hash1(3, v) % 512);
    const LodCell value = LodCell::make(kAir, static_cast<Light>(v + 1));
    EXPECT_EQ(b.set(i, value), expect[static_cast<size_t>(i)] != value);
    expect[static_cast<size_t>(i)] = value;
    if (widths.empty() || widths.back() != b.bits()) widths.push_back(b.bits());
    if (v % 37 == 0) {
      for (int k = 0; k < 512; ++k) ASSERT_EQ(b.get(k), expect[static_cast<size_t>(k)]) << "after " << v << " at " << k;
    }
  }
  EXPECT_EQ(widths, (std::vector<int>{1, 2, 4, 8, 16}));
  int nonair = 0;
  for (int k = 0; k < 512; ++k) {
    ASSERT_EQ(b.get(k), expect[static_cast<size_t>(k)]);
    nonair += expect[static_cast<size_t>(k)].is_air() ? 0 : 1;
  }
  EXPECT_EQ(b.nonair(), nonair);
  EXPECT_FALSE(b.set(0, b.get(0)));  // the same value: no change
  // Back to one value: compact() makes it uniform again.
  for (int k = 0; k < 512; ++k) b.set(k, lod_cell("dirt"));
  EXPECT_FALSE(b.is_uniform());
  b.compact();
  EXPECT_TRUE(b.is_uniform());
  EXPECT_EQ(b.uniform_value(), lod_cell("dirt"));
  EXPECT_EQ(b.heap_bytes(), 0u);
}

TEST(LodBrick, CompactDropsUnusedValuesAndNarrows) {
  LodBrick b;
  for (int k = 0; k < 20; ++k) b.set(k, LodCell::make(kAir, static_cast<Light>(k + 1)));  // 21 values: 8 bits
  EXPECT_EQ(b.bits(), 8);
  for (int k = 2; k < 20; ++k) b.set(k, LodCell{});  // 3 values left in use
  b.compact();
  EXPECT_EQ(b.palette_size(), 3);
  EXPECT_EQ(b.bits(), 2);
  EXPECT_EQ(b.get(0), LodCell::make(kAir, 1));
  EXPECT_EQ(b.get(1), LodCell::make(kAir, 2));
  EXPECT_EQ(b.get(2), LodCell{});
}

TEST(LodBrick, PackGivesFirstAppearanceOrderAndTheNarrowestWidth) {
  std::array<LodCell, 512> cells;
  for (int k = 0; k < 512; ++k) cells[static_cast<size_t>(k)] = k % 3 == 0 ? lod_cell("stone") : LodCell{};
  LodBrick a, b;
  a.pack(cells.data());
  EXPECT_EQ(a.bits(), 1);
  EXPECT_EQ(a.nonair(), 171);
  for (int k = 0; k < 512; ++k) b.set(k, cells[static_cast<size_t>(k)]);
  EXPECT_TRUE(a.same_cells(b));
  // b started from air, so its palette is [air, stone] and a's [stone, air]: same cells, different bytes.
  EXPECT_FALSE(a.identical(b));
  std::array<LodCell, 512> out;
  a.unpack(out.data());
  EXPECT_EQ(out, cells);
}

TEST(LodSection, UniformUntilSplitAndBackAfterCompact) {
  LodSection s(lod_cell("stone"));
  EXPECT_TRUE(s.is_uniform());
  EXPECT_EQ(s.memory_bytes(), sizeof(LodSection));
  EXPECT_EQ(s.nonair(), 32768u);
  EXPECT_FALSE(s.set(31, 31, 31, lod_cell("stone")));
  EXPECT_TRUE(s.is_uniform());
  EXPECT_TRUE(s.set(31, 0, 5, LodCell{}));
  EXPECT_FALSE(s.is_uniform());
  EXPECT_EQ(s.get(31, 0, 5), LodCell{});
  EXPECT_EQ(s.get(30, 0, 5), lod_cell("stone"));
  EXPECT_EQ(s.nonair(), 32767u);
  EXPECT_GT(s.memory_bytes(), sizeof(LodSection) + 64 * sizeof(LodBrick));
  s.set(31, 0, 5, lod_cell("stone"));
  s.compact();
  EXPECT_TRUE(s.is_uniform());
  EXPECT_EQ(s.memory_bytes(), sizeof(LodSection));
}

TEST(LodSection, ReplaceBrickCountsChangedCellsAndTheFacesTheyLieOn) {
  LodSection s;
  // Brick (3, 0, 1): x 24..31 (on +X), y 0..7 (on -Y), z 8..15 (interior in z).
  const int b = LodSection::brick_of(24, 0, 8);
  LodSection::BrickChange ch = s.replace_brick(b, LodBrick(lod_cell("stone")));
  EXPECT_EQ(ch.cells, 512);
  EXPECT_EQ(ch.faces, (1u << kFacePosX) | (1u << kFaceNegY));
  EXPECT_EQ(s.get(27, 3, 12), lod_cell("stone"));
  // The same again: nothing changes.
  ch = s.replace_brick(b, LodBrick(lod_cell("stone")));
  EXPECT_EQ(ch.cells, 0);
  // One interior cell of the brick changed: no face.
  std::array<LodCell, 512> cells;
  cells.fill(lod_cell("stone"));
  cells[static_cast<size_t>(LodBrick::index(1, 1, 1))] = LodCell{};
  LodBrick mixed;
  mixed.pack(cells.data());
  ch = s.replace_brick(b, mixed);
  EXPECT_EQ(ch.cells, 1);
  EXPECT_EQ(ch.faces, 0);
  // A cell at local x = 31 (brick x 7): the +X face only.
  cells[static_cast<size_t>(LodBrick::index(7, 2, 2))] = LodCell{};
  mixed.pack(cells.data());
  ch = s.replace_brick(b, mixed);
  EXPECT_EQ(ch.cells, 1);
  EXPECT_EQ(ch.faces, 1u << kFacePosX);
  EXPECT_EQ(LodSection::faces_of(0, 31, 0), (1u << kFaceNegX) | (1u << kFacePosY) | (1u << kFaceNegZ));
}

}  // namespace
}  // namespace voxen::lod
