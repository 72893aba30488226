// The downsampling rule (lod::Mipper), one test per rule: all air (averages and their rounding), ties of opacity
// broken by child index, leaves over air, glass and water (cutout counts as opacity 15), water against stone, a lone
// torch among air (its block light kept), and the whole child kept (id, state, light).
#include <gtest/gtest.h>

#include <array>

#include "lod_test_util.h"

namespace voxen::lod {
namespace {

using lodtest::block;
using lodtest::lod_cell;
using lodtest::mipper;
using lodtest::registry;

LodCell air(int sky, int r = 0, int g = 0, int b = 0) { return LodCell::make(kAir, make_light(sky, r, g, b)); }

/// Eight children of sky-lit air (sky 15), then `child` at index i.
std::array<LodCell, 8> air_with(int i, LodCell child) {
  std::array<LodCell, 8> c;
  c.fill(air(15));
  c[static_cast<size_t>(i)] = child;
  return c;
}

TEST(LodCellLayout, PacksCellAndLightIntoTheDocumentedBits) {
  const Cell stairs{registry().id("stone_stairs"), state::make_facing(state::kEast, true)};
  const LodCell c = LodCell::make(stairs, make_light(9, 1, 2, 3));
  // id in bits 0-15, state in 16-23, light (sky << 12 | r << 8 | g << 4 | b) in 24-39, nothing above.
  EXPECT_EQ(c.bits, uint64_t{stairs.id} | uint64_t{stairs.state} << 16 | uint64_t{0x9123} << 24);
  EXPECT_EQ(c.cell(), stairs);
  EXPECT_EQ(c.light(), make_light(9, 1, 2, 3));
  EXPECT_EQ(c.bits >> 40, 0u);
  EXPECT_TRUE(LodCell{}.is_air());
}

TEST(LodCellLayout, ChildIndexIsXThenZThenY) {
  EXPECT_EQ(child_index(0, 0, 0), 0);
  EXPECT_EQ(child_index(1, 0, 0), 1);
  EXPECT_EQ(child_index(0, 0, 1), 2);
  EXPECT_EQ(child_index(0, 1, 0), 4);
  EXPECT_EQ(child_index(1, 1, 1), 7);
}

TEST(Mipper, AllAirAveragesSkyRoundedUpAndBlockLightRoundedDown) {
  // sky: 7 x 15 + 14 = 119, 119 / 8 = 14.875 -> 15 (up); red: one child 7, 7 / 8 -> 0 (down); green: 8 x 15 -> 15;
  // blue: 7 x 3 + 2 = 23, 23 / 8 = 2.875 -> 2 (down).
  std::array<LodCell, 8> c;
  c.fill(air(15, 0, 15, 3));
  c[0] = air(15, 7, 15, 3);
  c[5] = air(14, 0, 15, 2);
  EXPECT_EQ(mipper().mip(c), air(15, 0, 15, 2));
  // A single sky 1 among dark air rounds up to 1; a single red 15 rounds down to 1 (15 / 8 = 1.875).
  c.fill(air(0));
  c[3] = air(1, 15, 0, 0);
  EXPECT_EQ(mipper().mip(c), air(1, 1, 0, 0));
  // Exact averages stay exact: 4 x 8 + 4 x 0 sky = 4, 4 x 12 + 4 x 4 red = 8.
  for (int i = 0; i < 8; ++i) c[static_cast<size_t>(i)] = i < 4 ? air(8, 12, 0, 0) : air(0, 4, 0, 0);
  EXPECT_EQ(mipper().mip(c), air(4, 8, 0, 0));
  // Air's state bits are not kept: the parent is plain air.
  c.fill(LodCell::make(Cell{kAirId, 5}, make_light(15, 0, 0, 0)));
  EXPECT_EQ(mipper().mip(c), air(15));
}

TEST(Mipper, TiesOfOpacityGoToTheHigherChildIndex) {
  // Eight different opaque blocks (opacity 15 each): the child at index 7 wins; without it, index 6; and so on.
  const char* names[8] = {"stone", "dirt", "grass_block", "sand", "gravel", "clay", "cobblestone", "bricks"};
  std::array<LodCell, 8> c;
  for (int i = 0; i < 8; ++i) c[static_cast<size_t>(i)] = lod_cell(names[i]);
  for (int top = 7; top >= 0; --top) {
    EXPECT_EQ(mipper().mip(c), lod_cell(names[top])) << "highest non-air index " << top;
    c[static_cast<size_t>(top)] = air(15);
  }
  // So grass on dirt keeps the grass: the upper children (dy = 1) hold the higher indices.
  for (int dy = 0; dy < 2; ++dy)
    for (int dz = 0; dz < 2; ++dz)
      for (int dx = 0; dx < 2; ++dx)
        c[static_cast<size_t>(child_index(dx, dy, dz))] = lod_cell(dy ? "grass_block" : "dirt");
  EXPECT_EQ(mipper().mip(c), lod_cell("grass_block"));
}

TEST(Mipper, LeavesWinOverAirGlassAndWater) {
  const LodCell leaves = lod_cell("oak_leaves", make_light(12, 0, 0, 0));
  // Over air: the leaves, with their own light, whatever the air's light.
  EXPECT_EQ(mipper().mip(air_with(0, leaves)), leaves);
  // Over glass (opacity 0) in the highest child.
  auto c = air_with(7, lod_cell("glass", make_light(15, 0, 0, 0)));
  c[0] = leaves;
  EXPECT_EQ(mipper().mip(c), leaves);
  // Over water (opacity 2, above leaves' registry opacity 1): only because cutout counts as 15.
  c = air_with(7, lod_cell("water", make_light(13, 0, 0, 0)));
  c[0] = leaves;
  EXPECT_EQ(mipper().mip(c), leaves);
  // Against stone both rank 15, so the child index decides, either way.
  c = air_with(0, lod_cell("stone"));
  c[7] = leaves;
  EXPECT_EQ(mipper().mip(c), leaves);
  c = air_with(7, lod_cell("stone"));
  c[0] = leaves;
  EXPECT_EQ(mipper().mip(c), lod_cell("stone"));
  EXPECT_EQ(mipper().opacity(registry().id("oak_leaves")), 15);
  EXPECT_EQ(mipper().opacity(registry().id("tall_grass")), 15);
  EXPECT_EQ(mipper().opacity(registry().id("glass")), 0);
  EXPECT_EQ(mipper().opacity(registry().id("water")), 2);
  EXPECT_EQ(mipper().opacity(static_cast<uint16_t>(registry().size() + 10)), 0);  // undefined ids: opacity 0
}

TEST(Mipper, StoneBeatsWaterWhateverTheIndex) {
  const LodCell water = lod_cell("water", make_light(12, 0, 0, 0));
  std::array<LodCell, 8> c;
  c.fill(water);
  c[0] = lod_cell("stone");
  EXPECT_EQ(mipper().mip(c), lod_cell("stone"));
  // Water alone among air is kept, with its light.
  EXPECT_EQ(mipper().mip(air_with(2, water)), water);
}

TEST(Mipper, ALoneTorchAmongAirKeepsItsBlockLight) {
  const LodCell torch = lod_cell("torch", make_light(13, 14, 12, 8));
  EXPECT_EQ(mipper().mip(air_with(3, torch)), torch);
  // Its emission survives the next level too: the torch stays the only non-air child.
  const auto up = air_with(6, mipper().mip(air_with(3, torch)));
  EXPECT_EQ(mipper().mip(up), torch);
}

TEST(Mipper, KeepsTheWholeChildIdStateAndLight) {
  const LodCell stairs = LodCell::make(Cell{registry().id("stone_stairs"), state::make_facing(state::kWest, true)},
                                       make_light(3, 4, 5, 6));
  auto c = air_with(1, stairs);
  c[0] = lod_cell("stone", make_light(15, 15, 15, 15));
  EXPECT_EQ(mipper().mip(c), stairs);
}

}  // namespace
}  // namespace voxen::lod
