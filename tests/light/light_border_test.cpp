// Block light across column borders (both directions, negative coordinates, along x and z), coloured light
// mixing per channel, and removals that must leave exactly the light of a world that never had the block.
#include <gtest/gtest.h>

#include <algorithm>

#include "light_test_util.h"

namespace voxen {
namespace {

using namespace lighttest;

// A dark closed box of air inside solid stone spanning the 3x3 columns around (0, 0) (x and z -16..31):
// stone up to y = 120, so no sky reaches y 40..44.
World dark_box(BlockPos lo, BlockPos hi) {
  World w = make_world(-1, 1, -1, 1, block("stone"), 120);
  fill_box(w, lo, hi, kAir);
  return w;
}

struct TorchCase {
  const char* name;
  BlockPos torch;       // in one column
  BlockPos step1, step2;  // one and two steps across the border, in the neighbouring column
};

void PrintTo(const TorchCase& c, std::ostream* os) { *os << c.name; }

class TorchAcrossBorder : public ::testing::TestWithParam<std::tuple<TorchCase, bool>> {};

TEST_P(TorchAcrossBorder, LosesOnePerStepInEveryChannel) {
  const auto& [tc, by_edit] = GetParam();
  World w = dark_box({-12, 40, -12}, {27, 44, 27});
  ASSERT_NE(column_pos_of(tc.torch), column_pos_of(tc.step1)) << "the case must cross a column border";
  if (by_edit) {
    light_all(w);
    EXPECT_EQ(rgb(w, tc.step1), (Rgb{0, 0, 0}));
    const auto r = edit(w, tc.torch, block("torch"));
    EXPECT_TRUE(r.applied);
  } else {
    set_cell(w, tc.torch, block("torch"));
    light_all(w);
  }
  EXPECT_EQ(rgb(w, tc.torch), (Rgb{14, 12, 8}));
  EXPECT_EQ(rgb(w, tc.step1), (Rgb{13, 11, 7}));
  EXPECT_EQ(rgb(w, tc.step2), (Rgb{12, 10, 6}));
  EXPECT_EQ(sky(w, tc.step1), 0);
  EXPECT_MATCHES_ORACLE(w);
}

const TorchCase kTorchCases[] = {
    {"x15_to_x16", {15, 42, 8}, {16, 42, 8}, {17, 42, 8}},
    {"x16_to_x15", {16, 42, 8}, {15, 42, 8}, {14, 42, 8}},
    {"xm1_to_x0", {-1, 42, 8}, {0, 42, 8}, {1, 42, 8}},
    {"x0_to_xm1", {0, 42, 8}, {-1, 42, 8}, {-2, 42, 8}},
    {"z15_to_z16", {8, 42, 15}, {8, 42, 16}, {8, 42, 17}},
    {"z16_to_z15", {8, 42, 16}, {8, 42, 15}, {8, 42, 14}},
    {"zm1_to_z0", {8, 42, -1}, {8, 42, 0}, {8, 42, 1}},
    {"z0_to_zm1", {-5, 42, 0}, {-5, 42, -1}, {-5, 42, -2}},
};

INSTANTIATE_TEST_SUITE_P(Light, TorchAcrossBorder, ::testing::Combine(::testing::ValuesIn(kTorchCases), ::testing::Bool()),
                         [](const auto& tp) {
                           return std::string(std::get<0>(tp.param).name) + (std::get<1>(tp.param) ? "_edit" : "_generated");
                         });

TEST(LightColour, RedAndBlueLampsMixPerChannelAndRemovingOneLeavesTheOther) {
  // Lamps 6 apart across the x = 15/16 border; the cell halfway is 3 steps from each.
  const BlockPos red{12, 42, 8}, blue{18, 42, 8}, mid{15, 42, 8};
  World w = dark_box({-12, 40, -12}, {27, 44, 27});
  light_all(w);
  edit(w, red, block("red_lamp"));
  edit(w, blue, block("blue_lamp"));
  EXPECT_EQ(rgb(w, mid), (Rgb{12, 0, 12}));
  EXPECT_EQ(rgb(w, {16, 42, 8}), (Rgb{11, 0, 13}));
  EXPECT_EQ(rgb(w, red), (Rgb{15, 0, 0}));  // opaque lamps keep their own colour only
  EXPECT_MATCHES_ORACLE(w);

  // Remove the red lamp (air in its place): exactly the light of a world that only ever had the blue lamp.
  edit(w, red, kAir);
  World only_blue = dark_box({-12, 40, -12}, {27, 44, 27});
  set_cell(only_blue, blue, block("blue_lamp"));
  light_all(only_blue);
  EXPECT_SAME_LIGHT(w, only_blue);
  EXPECT_EQ(rgb(w, mid), (Rgb{0, 0, 12}));
  EXPECT_EQ(rgb(w, red), (Rgb{0, 0, 9}));
}

TEST(LightRemoval, RemovingATorchRestoresEveryCellItLit) {
  // Two torches whose light overlaps, near a column corner, and a glowstone further off.
  World base = dark_box({-12, 40, -12}, {27, 44, 27});
  set_cell(base, {3, 42, 20}, block("glowstone"));
  set_cell(base, {14, 41, 18}, block("torch"));
  light_all(base);
  World w = clone(base);
  const auto placed = edit(w, {17, 43, 15}, block("torch"));
  EXPECT_GT(placed.light.cells, 100u);
  EXPECT_EQ(rgb(w, {16, 43, 15}), (Rgb{13, 11, 7}));
  const auto removed = edit(w, {17, 43, 15}, kAir);
  EXPECT_EQ(removed.light.cells, placed.light.cells);  // every cell it lit goes back
  EXPECT_SAME_LIGHT(w, base);
  EXPECT_MATCHES_ORACLE(w);

  // The same with a torch in the open, where sky light overlaps its light.
  World open = make_world(-1, 1, -1, 1, block("stone"), 60);
  light_all(open);
  World before = clone(open);
  edit(open, {0, 61, 15}, block("torch"));
  EXPECT_EQ(rgb(open, {-1, 61, 15}), (Rgb{13, 11, 7}));
  EXPECT_EQ(sky(open, {0, 61, 15}), 15);
  edit(open, {0, 61, 15}, kAir);
  EXPECT_SAME_LIGHT(open, before);
}

TEST(LightRemoval, RemovingABrightLightBesideADimEmitterKeepsTheDimOnesOwnLight) {
  // Magma (6, 2, 0) two blocks from a torch: the torch's light covers the magma's surroundings, so the removal
  // flood clears them; the magma must light them again afterwards. The same for a torch beside a glowstone.
  for (const char* dim : {"magma", "torch"}) {
    SCOPED_TRACE(dim);
    const char* bright = std::string(dim) == "torch" ? "glowstone" : "torch";
    World w = dark_box({-12, 40, -12}, {27, 44, 27});
    set_cell(w, {15, 42, 8}, block(dim));
    light_all(w);
    const World only_dim = clone(w);
    edit(w, {17, 42, 8}, block(bright));
    edit(w, {17, 42, 8}, kAir);
    EXPECT_SAME_LIGHT(w, only_dim);
    EXPECT_MATCHES_ORACLE(w);
  }
}

TEST(LightChangesReport, ListsExactlyTheSectionsWhoseLightChangedWithTheirBoxes) {
  World w = dark_box({-12, 40, -12}, {27, 44, 27});
  light_all(w);
  const World before = clone(w);
  const auto r = edit(w, {15, 47 - 5, 0}, block("torch"));  // y 42, at a column corner (x 15/16, z -1/0)
  ASSERT_TRUE(r.applied);
  // Recompute the expected boxes by comparing every cell.
  std::vector<light::SectionLightChange> want;
  size_t cells = 0;
  for (const ColumnPos& p : w.positions())
    for (int s = 0; s < kSectionsPerColumn; ++s) {
      light::SectionLightChange ch;
      ch.section = {p.x, s, p.z};
      bool any = false;
      for (int i = 0; i < kSectionVolume; ++i) {
        if (w.find(p)->light_section(s).get(i) == before.find(p)->light_section(s).get(i)) continue;
        any = true;
        ++cells;
        const auto x = static_cast<uint8_t>(i & 15), z = static_cast<uint8_t>((i >> 4) & 15), y = static_cast<uint8_t>(i >> 8);
        ch.min_x = std::min(ch.min_x, x), ch.max_x = std::max(ch.max_x, x);
        ch.min_y = std::min(ch.min_y, y), ch.max_y = std::max(ch.max_y, y);
        ch.min_z = std::min(ch.min_z, z), ch.max_z = std::max(ch.max_z, z);
      }
      if (any) want.push_back(ch);
    }
  std::sort(want.begin(), want.end(), [](const auto& l, const auto& r2) { return l.section < r2.section; });
  EXPECT_EQ(r.light.cells, cells);
  EXPECT_EQ(r.light.sections, want);
  EXPECT_EQ(want.size(), 4u);         // the torch's light covers four columns, one section each (y 32..47)
  // Dirty sections for the mesher: every changed box touches its column's border, so the one-cell margin reaches
  // into the neighbouring columns too, and y 40..44 stays inside section 10 (y 32..47).
  const auto dirty = r.light.dirty_sections();
  EXPECT_TRUE(std::is_sorted(dirty.begin(), dirty.end()));
  for (const auto& ch : want) EXPECT_TRUE(std::binary_search(dirty.begin(), dirty.end(), ch.section));
  for (const auto& d : dirty) EXPECT_EQ(d.y, section_of_y(42));

  // An edit that changes no light (stone to dirt, both opaque and dark) reports nothing.
  const auto none = edit(w, {20, 100, 20}, block("dirt"));
  EXPECT_TRUE(none.applied);
  EXPECT_EQ(none.light.cells, 0u);
  EXPECT_TRUE(none.light.sections.empty());
  // An edit outside the loaded world is refused.
  const auto out = light::apply_edit(w, table(), Edit{{1000, 42, 0}, kAir, block("torch"), 99});
  EXPECT_FALSE(out.applied);
}

}  // namespace
}  // namespace voxen
