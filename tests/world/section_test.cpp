// Paletted sections: set/get round trips, palette growth past 256 entries and back, pack/unpack, uniformity.
#include <gtest/gtest.h>

#include <vector>

#include "voxen/core/hash.h"
#include "voxen/world/section.h"

namespace voxen {
namespace {

Cell cell_n(int n) { return Cell{static_cast<uint16_t>(1 + n % 2000), static_cast<uint8_t>(n / 2000)}; }

TEST(Section, StartsUniformAndSmall) {
  Section s;
  EXPECT_TRUE(s.is_uniform());
  EXPECT_TRUE(s.is_empty());
  EXPECT_EQ(s.get(0, 0, 0), kAir);
  EXPECT_EQ(s.get(15, 15, 15), kAir);
  EXPECT_LT(s.memory_bytes(), 128u);
  Section stone(Cell{1, 0});
  EXPECT_TRUE(stone.is_uniform());
  EXPECT_FALSE(stone.is_empty());
  EXPECT_EQ(stone.get(7, 3, 9), (Cell{1, 0}));
}

TEST(Section, SetGetRoundTripKeepsIdAndState) {
  Section s;
  s.set(1, 2, 3, Cell{5, 7});
  s.set(15, 15, 15, Cell{65535, 255});
  EXPECT_EQ(s.get(1, 2, 3), (Cell{5, 7}));
  EXPECT_EQ(s.get(15, 15, 15), (Cell{65535, 255}));
  EXPECT_EQ(s.get(0, 0, 0), kAir);
  EXPECT_FALSE(s.is_uniform());
  EXPECT_EQ(s.bits(), 2);  // palette {air, (5,7), (65535,255)}
}

TEST(Section, PaletteGrowsPast256EntriesAndEveryCellSurvives) {
  Section s;
  std::vector<Cell> expect(kSectionVolume, kAir);
  // 3000 distinct cells at hashed indices: the index width must grow through 1..12 bits.
  for (int n = 0; n < 3000; ++n) {
    const int idx = static_cast<int>(hash1(42, n) % kSectionVolume);
    s.set(idx, cell_n(n));
    expect[static_cast<size_t>(idx)] = cell_n(n);
    if (n == 300) {
      EXPECT_GT(s.palette().size(), 256u);
      EXPECT_GE(s.bits(), 9);
    }
  }
  for (int i = 0; i < kSectionVolume; ++i) ASSERT_EQ(s.get(i), expect[static_cast<size_t>(i)]) << i;
  EXPECT_GE(s.bits(), 11);

  // ...and back: overwrite all but two values, compact, and the width narrows to 1 bit.
  for (int i = 0; i < kSectionVolume; ++i) {
    s.set(i, (i % 3 == 0) ? Cell{9, 1} : Cell{1, 0});
    expect[static_cast<size_t>(i)] = (i % 3 == 0) ? Cell{9, 1} : Cell{1, 0};
  }
  s.compact();
  EXPECT_EQ(s.palette().size(), 2u);
  EXPECT_EQ(s.bits(), 1);
  for (int i = 0; i < kSectionVolume; ++i) ASSERT_EQ(s.get(i), expect[static_cast<size_t>(i)]) << i;

  // One value left: compact returns to uniform storage.
  for (int i = 0; i < kSectionVolume; ++i) s.set(i, Cell{4, 0});
  s.compact();
  EXPECT_TRUE(s.is_uniform());
  EXPECT_EQ(s.get(100), (Cell{4, 0}));
}

TEST(Section, EveryIndexWidthRoundTripsAtWordBoundaries) {
  // For each palette size 2..4096 (widths 1..12), write a pattern that exercises indices straddling 64-bit
  // words, and read every cell back.
  for (int size : {2, 3, 5, 8, 9, 17, 33, 64, 65, 129, 255, 256, 257, 600, 1025, 2049, 4096}) {
    std::vector<uint32_t> in(kSectionVolume);
    for (int i = 0; i < kSectionVolume; ++i) in[static_cast<size_t>(i)] = cell_n(static_cast<int>(hash1(size, i) % static_cast<uint64_t>(size))).packed();
    for (int v = 0; v < size && v < kSectionVolume; ++v) in[static_cast<size_t>(v)] = cell_n(v).packed();  // all values present
    Section s;
    s.pack(in.data());
    EXPECT_EQ(static_cast<int>(s.palette().size()), size);
    std::vector<uint32_t> out(kSectionVolume);
    s.unpack(out.data());
    ASSERT_EQ(out, in) << "palette size " << size;
    // Random single-cell rewrites keep neighbours intact.
    for (int k = 0; k < 500; ++k) {
      const int idx = static_cast<int>(hash2(size, k, 1) % kSectionVolume);
      const uint32_t v = cell_n(static_cast<int>(hash2(size, k, 2) % static_cast<uint64_t>(size))).packed();
      s.set(idx, Cell::from_packed(v));
      in[static_cast<size_t>(idx)] = v;
    }
    s.unpack(out.data());
    ASSERT_EQ(out, in) << "palette size " << size << " after rewrites";
  }
}

TEST(Section, SameCellsIgnoresPaletteOrder) {
  Section a, b;
  a.set(0, Cell{1, 0});
  a.set(1, Cell{2, 0});
  b.set(1, Cell{2, 0});
  b.set(0, Cell{1, 0});
  EXPECT_TRUE(a.same_cells(b));
  b.set(2, Cell{2, 1});
  EXPECT_FALSE(a.same_cells(b));
}

TEST(LightSection, UniformUntilAValueDiffers) {
  LightSection l(make_light(15, 0, 0, 0));
  EXPECT_TRUE(l.is_uniform());
  l.set(5, make_light(15, 0, 0, 0));
  EXPECT_TRUE(l.is_uniform());
  l.set(5, make_light(3, 14, 12, 8));
  EXPECT_FALSE(l.is_uniform());
  EXPECT_EQ(l.get(5), make_light(3, 14, 12, 8));
  EXPECT_EQ(l.get(6), make_light(15, 0, 0, 0));
  EXPECT_EQ(light_sky(l.get(5)), 3);
  EXPECT_EQ(light_r(l.get(5)), 14);
  EXPECT_EQ(light_g(l.get(5)), 12);
  EXPECT_EQ(light_b(l.get(5)), 8);
  l.set(5, make_light(15, 0, 0, 0));
  l.compact();
  EXPECT_TRUE(l.is_uniform());
}

}  // namespace
}  // namespace voxen
