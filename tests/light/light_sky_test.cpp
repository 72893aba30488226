// Sky light as a real flood: a shaft dug into a closed cave, closing it again, and a roof over open ground.
#include <gtest/gtest.h>

#include "light_test_util.h"

namespace voxen {
namespace {

using namespace lighttest;

// Ground of stone up to y = 63 over the 3x3 columns around (0, 0), with a closed cave at y 20..25 that spans a
// column corner (x -6..9, z -6..9).
World cave_world() {
  World w = make_world(-1, 1, -1, 1, block("stone"), 63);
  fill_box(w, {-6, 20, -6}, {9, 25, 9}, kAir);
  return w;
}

TEST(LightSky, DiggingAShaftIntoAClosedCaveLetsSkyDownAndClosingItRestoresTheCave) {
  World w = cave_world();
  light_all(w);
  const World untouched = clone(w);
  EXPECT_EQ(sky(w, {0, 20, 0}), 0);  // the cave is dark
  EXPECT_EQ(sky(w, {0, 64, 0}), 15);

  // Dig a 1x1 shaft at x = -1, z = 0 (the x = -1/0 column border) from the surface down to the cave roof.
  const int64_t sx = -1, sz = 0;
  for (int64_t y = 63; y >= 26; --y) edit(w, {sx, y, sz}, kAir);
  for (int64_t y = 63; y >= 20; --y) ASSERT_EQ(sky(w, {sx, y, sz}), 15) << "y " << y;  // down to the cave floor
  EXPECT_EQ(sky(w, {sx + 1, 20, sz}), 14);  // the cave floor next to the shaft's bottom
  EXPECT_EQ(sky(w, {sx, 20, sz - 1}), 14);
  EXPECT_EQ(sky(w, {sx + 3, 21, sz + 2}), 10);
  EXPECT_EQ(sky(w, {sx, 19, sz}), 0);       // the floor itself is stone
  EXPECT_MATCHES_ORACLE(w);

  // Cap the shaft at the top only: the shaft and the cave go dark again (no light left to reach them).
  World capped = clone(w);
  edit(capped, {sx, 63, sz}, block("stone"));
  EXPECT_EQ(sky(capped, {sx, 40, sz}), 0);
  EXPECT_EQ(sky(capped, {sx + 1, 20, sz}), 0);
  EXPECT_MATCHES_ORACLE(capped);

  // Close the shaft again (refill it bottom up): the light of the untouched world, cell for cell.
  for (int64_t y = 26; y <= 63; ++y) edit(w, {sx, y, sz}, block("stone"));
  EXPECT_SAME_LIGHT(w, untouched);
}

TEST(LightSky, ARoofOverOpenGroundShadesItsCentreAndItsEdgeIsLitFromTheSide) {
  // A 9x9 stone roof at y = 100 centred on the column corner (0, 0), placed by edits into a lit world.
  World w = make_world(-1, 1, -1, 1, block("stone"), 63);
  light_all(w);
  for (int64_t x = -4; x <= 4; ++x)
    for (int64_t z = -4; z <= 4; ++z) edit(w, {x, 100, z}, block("stone"));

  EXPECT_EQ(sky(w, {0, 99, 0}), 10);   // centre: 5 steps in from open sky beside the roof
  EXPECT_EQ(sky(w, {0, 64, 0}), 10);   // the same on the ground under it
  EXPECT_LT(sky(w, {0, 99, 0}), 15);
  EXPECT_EQ(sky(w, {4, 99, 0}), 14);   // edge: sky light from the side
  EXPECT_EQ(sky(w, {-4, 80, 0}), 14);
  EXPECT_EQ(sky(w, {4, 99, 4}), 14);   // corner
  EXPECT_EQ(sky(w, {5, 99, 0}), 15);   // beside the roof: open sky straight down
  EXPECT_EQ(sky(w, {0, 101, 0}), 15);  // on top of it
  EXPECT_EQ(sky(w, {0, 100, 0}), 0);   // the roof itself
  EXPECT_MATCHES_ORACLE(w);

  // The same roof present before lighting gives the same light.
  World g = make_world(-1, 1, -1, 1, block("stone"), 63);
  fill_box(g, {-4, 100, -4}, {4, 100, 4}, block("stone"));
  light_all(g);
  EXPECT_SAME_LIGHT(w, g);

  // Removing the roof again brings full sky back everywhere under it.
  for (int64_t x = -4; x <= 4; ++x)
    for (int64_t z = -4; z <= 4; ++z) edit(w, {x, 100, z}, kAir);
  for (int64_t y = 100; y >= 64; --y) ASSERT_EQ(sky(w, {0, y, 0}), 15) << "y " << y;
  World open = make_world(-1, 1, -1, 1, block("stone"), 63);
  light_all(open);
  EXPECT_SAME_LIGHT(w, open);
}

TEST(LightSky, OverhangsCaveMouthsAndCanopiesAreLitByTheirSurroundings) {
  // A cliff with an overhang and a cave mouth, and a tree canopy, in one lit world (compared with the oracle).
  World w = make_world(-1, 1, -1, 1, block("stone"), 63);
  fill_box(w, {-16, 64, -16}, {-1, 80, 31}, block("stone"));     // a cliff west of x = 0
  fill_box(w, {-6, 64, 2}, {-1, 70, 6}, kAir);                    // a cave mouth into it
  fill_box(w, {8, 72, 8}, {12, 72, 12}, block("oak_leaves"));     // a canopy
  fill_box(w, {10, 64, 10}, {10, 71, 10}, block("oak_log"));
  light_all(w);
  EXPECT_EQ(sky(w, {-1, 66, 4}), 14);  // just inside the mouth
  EXPECT_EQ(sky(w, {-6, 66, 4}), 9);
  EXPECT_EQ(sky(w, {10, 72, 10}), 13);  // in the leaves: 15 - 1 - opacity 1
  EXPECT_EQ(sky(w, {9, 71, 9}), 13);    // under the canopy: 12 from the leaves above, 13 from the open side
  EXPECT_EQ(sky(w, {10, 64, 9}), 13);   // beside the trunk on the ground, 2 steps from open sky
  EXPECT_MATCHES_ORACLE(w);
}

}  // namespace
}  // namespace voxen
