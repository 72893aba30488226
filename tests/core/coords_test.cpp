// Coordinate arithmetic at negative and huge coordinates: column keys by floor division, local coordinates 0..15.
#include <gtest/gtest.h>

#include <cstdint>

#include "voxen/core/coords.h"
#include "voxen/core/hash.h"

namespace voxen {
namespace {

TEST(Coords, FloorDivAndModMatchMathematicalFloor) {
  EXPECT_EQ(floor_div(0, 16), 0);
  EXPECT_EQ(floor_div(15, 16), 0);
  EXPECT_EQ(floor_div(16, 16), 1);
  EXPECT_EQ(floor_div(-1, 16), -1);
  EXPECT_EQ(floor_div(-16, 16), -1);
  EXPECT_EQ(floor_div(-17, 16), -2);
  EXPECT_EQ(floor_mod(-1, 16), 15);
  EXPECT_EQ(floor_mod(-16, 16), 0);
  EXPECT_EQ(floor_mod(-17, 64), 47);
}

TEST(Coords, ColumnKeysAreFloorDivisionBySixteen) {
  // Every x in a window around each probe point: column_of == floor_div, local_of == floor_mod, and
  // column * 16 + local reconstructs x exactly.
  const int64_t probes[] = {0, -1, 15, 16, -16, -17, 30'000'000, -30'000'000, int64_t{1} << 40, -(int64_t{1} << 40),
                            (int64_t{1} << 40) - 1, -(int64_t{1} << 40) + 1};
  for (int64_t base : probes) {
    for (int64_t d = -40; d <= 40; ++d) {
      const int64_t x = base + d;
      EXPECT_EQ(column_of(x), floor_div(x, 16)) << x;
      EXPECT_EQ(local_of(x), floor_mod(x, 16)) << x;
      EXPECT_GE(local_of(x), 0);
      EXPECT_LE(local_of(x), 15);
      EXPECT_EQ(column_of(x) * 16 + local_of(x), x) << x;
    }
  }
  EXPECT_EQ(column_of(-30'000'000), -1'875'000);
  EXPECT_EQ(column_of(-30'000'001), -1'875'001);
  EXPECT_EQ(column_of(-(int64_t{1} << 40)), -(int64_t{1} << 36));
  EXPECT_EQ(column_of(-(int64_t{1} << 40) - 1), -(int64_t{1} << 36) - 1);
}

TEST(Coords, ColumnPosOfNegativeBlocks) {
  EXPECT_EQ(column_pos_of(BlockPos{-1, 64, -1}), (ColumnPos{-1, -1}));
  EXPECT_EQ(column_pos_of(BlockPos{0, 64, -16}), (ColumnPos{0, -1}));
  EXPECT_EQ(column_pos_of(BlockPos{-17, 64, 16}), (ColumnPos{-2, 1}));
  EXPECT_EQ((ColumnPos{-2, 1}).min_x(), -32);
  EXPECT_EQ((ColumnPos{-2, 1}).min_z(), 16);
}

TEST(Coords, SectionsCoverTheColumnHeight) {
  EXPECT_EQ(kColumnHeight, 384);
  EXPECT_EQ(kSectionsPerColumn, 24);
  EXPECT_EQ(section_of_y(-128), 0);
  EXPECT_EQ(section_of_y(-113), 0);
  EXPECT_EQ(section_of_y(-112), 1);
  EXPECT_EQ(section_of_y(0), 8);
  EXPECT_EQ(section_of_y(255), 23);
  EXPECT_EQ(section_base_y(8), 0);
  EXPECT_TRUE(y_in_range(-128));
  EXPECT_TRUE(y_in_range(255));
  EXPECT_FALSE(y_in_range(-129));
  EXPECT_FALSE(y_in_range(256));
  EXPECT_EQ(section_pos_of(BlockPos{-1, -1, 17}), (SectionPos{-1, 7, 1}));
}

TEST(Hash, IsAPureFunctionOfSeedAndCoordinates) {
  EXPECT_EQ(hash3(7, 1, 2, 3), hash3(7, 1, 2, 3));
  EXPECT_NE(hash3(7, 1, 2, 3), hash3(8, 1, 2, 3));
  EXPECT_NE(hash3(7, 1, 2, 3), hash3(7, 3, 2, 1));
  EXPECT_NE(hash2(7, -1, 0), hash2(7, 0, -1));
  // Bits are roughly balanced over many inputs (a broken mix shows up as a strong bias).
  int ones = 0;
  for (int64_t i = 0; i < 4096; ++i) ones += static_cast<int>(hash2(1, i, -i) & 1);
  EXPECT_GT(ones, 1800);
  EXPECT_LT(ones, 2300);
  for (int i = 0; i < 1000; ++i) {
    const double u = hash_to_unit(hash1(3, i));
    EXPECT_GE(u, 0.0);
    EXPECT_LT(u, 1.0);
  }
}

}  // namespace
}  // namespace voxen
