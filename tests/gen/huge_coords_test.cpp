// Far from the origin (+-30,000,000 and +-2^40 blocks) generation works as well as at the origin: noise is
// computed from int64 lattice cells and exact fractions, so there is no float precision loss and no NaN garbage.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "gen_test_util.h"
#include "voxen/gen/terrain_model.h"

namespace voxen {
namespace {

using gentest::area;
using gentest::id;
using gentest::make;

constexpr int64_t kFar[] = {30'000'000, -30'000'000, int64_t{1} << 40, -(int64_t{1} << 40)};

TEST(HugeCoordinates, TerrainHeightsStaySaneAndVary) {
  const gen::TerrainModel m(1);
  for (int64_t far : kFar) {
    SCOPED_TRACE(::testing::Message() << "offset " << far);
    std::set<int> heights;
    for (int64_t i = 0; i < 2048; i += 2) {
      // Along a line through (far, far) and its mirror (far, -far).
      for (int64_t zsign : {int64_t{1}, int64_t{-1}}) {
        const gen::TerrainSample s = m.sample(far + i * 3, zsign * far + i);
        ASSERT_GE(s.height, kMinY + 16);
        ASSERT_LE(s.height, 240);
        ASSERT_TRUE(s.temperature > -3 && s.temperature < 3) << s.temperature;  // also false for NaN
        ASSERT_TRUE(s.humidity > -3 && s.humidity < 3) << s.humidity;
        heights.insert(s.height);
      }
    }
    // Terrain varies as it does at the origin (a constant height would mean collapsed noise).
    EXPECT_GT(heights.size(), 10u);
  }
}

TEST(HugeCoordinates, ColumnsGenerateDeterministicallyAndDifferFromTheOrigin) {
  const auto g = make("default", 1);
  ASSERT_TRUE(g);
  Column origin({0, 0});
  g->generate(origin);
  std::set<uint64_t> hashes{origin.content_hash()};
  for (int64_t far : kFar) {
    SCOPED_TRACE(::testing::Message() << "offset " << far);
    const ColumnPos mid{column_of(far), column_of(-far)};
    const auto first = gen::generate_columns(*g, area(mid, 1), nullptr);
    JobPool pool(2);
    const auto second = gen::generate_columns(*g, area(mid, 1), &pool);
    for (size_t i = 0; i < first.size(); ++i) {
      const Column& c = *first[i];
      EXPECT_TRUE(gentest::same_cells(c, *second[i]));
      EXPECT_TRUE(hashes.insert(c.content_hash()).second) << "column content repeats";
      for (int lz = 0; lz < 16; lz += 5)
        for (int lx = 0; lx < 16; lx += 5) {
          EXPECT_EQ(c.get(lx, kMinY, lz).id, id("bedrock"));
          const int64_t x = c.pos().min_x() + lx, z = c.pos().min_z() + lz;
          const int64_t top = g->surface_y(x, z);
          EXPECT_EQ(top, gentest::top_ground(c, lx, lz));
          EXPECT_GE(top, kMinY + 16);
          EXPECT_LE(top, 255);
          EXPECT_EQ(c.get(lx, kMaxY, lz), kAir);
        }
    }
  }
}

}  // namespace
}  // namespace voxen
