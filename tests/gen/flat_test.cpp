// The flat generator repeats every 64 blocks in x and z, across negative coordinates and 2^40 blocks out (the
// floating-origin render check compares the view at the origin with the view there).
#include <gtest/gtest.h>

#include "gen_test_util.h"

namespace voxen {
namespace {

using gentest::make;

TEST(Flat, RepeatsEvery64BlocksIncludingNegativeAndHugeOffsets) {
  const auto g = make("flat", 0);
  ASSERT_TRUE(g);
  const int64_t big = int64_t{1} << 36;  // columns: 2^40 blocks
  for (int64_t cx = 0; cx < 4; ++cx)
    for (int64_t cz = 0; cz < 4; ++cz) {
      Column base({cx, cz});
      g->generate(base);
      for (const ColumnPos off : {ColumnPos{4, 0}, ColumnPos{0, 4}, ColumnPos{-4, -4}, ColumnPos{-8, 12},
                                  ColumnPos{big, 0}, ColumnPos{0, -big}, ColumnPos{-big, big}}) {
        Column other({cx + off.x, cz + off.z});
        g->generate(other);
        EXPECT_EQ(base.content_hash(), other.content_hash()) << "offset " << off.x << "," << off.z;
        EXPECT_TRUE(gentest::same_cells(base, other));
      }
    }
  // Within one period the tile is not uniform: neighbouring columns differ.
  Column a({0, 0}), b({1, 0}), c({2, 2});
  g->generate(a);
  g->generate(b);
  g->generate(c);
  EXPECT_NE(a.content_hash(), b.content_hash());
  EXPECT_NE(a.content_hash(), c.content_hash());
}

TEST(Flat, SurfaceYRepeatsAndMatchesCells) {
  const auto g = make("flat", 0);
  ASSERT_TRUE(g);
  for (int64_t x = -70; x < 70; x += 3)
    for (int64_t z = -70; z < 70; z += 5) {
      EXPECT_EQ(g->surface_y(x, z), g->surface_y(x + 64, z - 128));
      EXPECT_EQ(g->surface_y(x, z), g->surface_y(x + (int64_t{1} << 40), z - (int64_t{1} << 40)));
    }
  // The ground at a plain grass block is y 0, and surface_y agrees with the cells over a whole 64 x 64 tile.
  EXPECT_EQ(g->surface_y(30, 30), 0);
  for (int64_t cz = 0; cz < 4; ++cz)
    for (int64_t cx = 0; cx < 4; ++cx) {
      Column tile({cx, cz});
      g->generate(tile);
      for (int lz = 0; lz < 16; ++lz)
        for (int lx = 0; lx < 16; ++lx)
          ASSERT_EQ(g->surface_y(cx * 16 + lx, cz * 16 + lz), gentest::top_ground(tile, lx, lz)) << lx << "," << lz;
    }
  Column col({0, 0});
  g->generate(col);
  EXPECT_EQ(col.get(0, kMinY, 0).id, gentest::id("bedrock"));
}

}  // namespace
}  // namespace voxen
