// The light rules one at a time: the SWAR arithmetic against plain per-channel arithmetic, the block table read
// from the registry, sky straight down, opacity of water and leaves, opaque emitters, the top and bottom of the
// world. Small hand-built worlds with exact expected values.
#include <gtest/gtest.h>

#include <algorithm>

#include "light_test_util.h"
#include "voxen/core/hash.h"
#include "voxen/light/rules.h"

namespace voxen {
namespace {

using namespace lighttest;
using light::propagate;

int chan(Light l, int k) { return k == 0 ? light_sky(l) : k == 1 ? light_r(l) : k == 2 ? light_g(l) : light_b(l); }

TEST(LightRules, PropagateMatchesPerChannelArithmeticForEveryValue) {
  for (uint32_t v = 0; v < 65536; ++v)
    for (int op = 0; op <= 15; ++op)
      for (int down = 0; down <= 1; ++down) {
        const Light from = static_cast<Light>(v);
        int want[4];
        for (int k = 0; k < 4; ++k) want[k] = op >= 15 ? 0 : std::max(0, chan(from, k) - 1 - op);
        if (down && op == 0 && light_sky(from) == 15) want[0] = 15;
        const Light got = propagate(from, op, down != 0);
        ASSERT_EQ(got, make_light(want[0], want[1], want[2], want[3])) << "from " << v << " op " << op << " down " << down;
      }
}

TEST(LightRules, MaxAndAnyGreaterMatchPerChannelArithmetic) {
  HashStream rng(hash1(7, 1));
  for (int n = 0; n < 300000; ++n) {
    const Light a = static_cast<Light>(rng.next()), b = static_cast<Light>(rng.next());
    int m[4];
    bool greater = false;
    for (int k = 0; k < 4; ++k) {
      m[k] = std::max(chan(a, k), chan(b, k));
      greater |= chan(a, k) > chan(b, k);
    }
    ASSERT_EQ(light::light_max(a, b), make_light(m[0], m[1], m[2], m[3]));
    ASSERT_EQ(light::any_greater(a, b), greater);
  }
}

TEST(LightRules, TableReadsOpacityAndColouredEmissionFromTheRegistry) {
  const auto& t = table();
  const auto id = [](const char* n) { return registry().id(n); };
  EXPECT_EQ(t.emission(id("torch")), make_light(0, 14, 12, 8));
  EXPECT_EQ(t.emission(id("glowstone")), make_light(0, 15, 14, 10));
  EXPECT_EQ(t.emission(id("lava")), make_light(0, 15, 9, 4));
  EXPECT_EQ(t.emission(id("magma")), make_light(0, 6, 2, 0));
  EXPECT_EQ(t.emission(id("red_lamp")), make_light(0, 15, 0, 0));
  EXPECT_EQ(t.emission(id("blue_lamp")), make_light(0, 0, 0, 15));
  EXPECT_EQ(t.emission(id("stone")), 0);
  EXPECT_EQ(t.opacity(id("air")), 0);
  EXPECT_EQ(t.opacity(id("stone")), 15);
  EXPECT_EQ(t.opacity(id("water")), 2);
  EXPECT_EQ(t.opacity(id("oak_leaves")), 1);
  EXPECT_EQ(t.opacity(id("glass")), 0);
  // The top cell of the world is a sky source when clear; one below it is not.
  EXPECT_EQ(t.source(id("air"), kMaxY), light::kSkyFull);
  EXPECT_EQ(t.source(id("air"), kMaxY - 1), 0);
  EXPECT_EQ(t.source(id("torch"), kMaxY), make_light(15, 14, 12, 8));
  EXPECT_EQ(t.source(id("water"), kMaxY), make_light(12, 0, 0, 0));  // 15 - 1 - opacity 2 from above the world
  EXPECT_EQ(t.source(id("stone"), kMaxY), 0);
  // Ids the registry does not define read as its undefined block.
  EXPECT_EQ(t.opacity(60000), registry()[60000].opacity);
  EXPECT_EQ(t.emission(60000), 0);
}

// One column alone (its neighbours unloaded, so dark and opaque): stone up to y = 0, air above.
World lone_column() { return make_world(0, 0, 0, 0, block("stone"), 0); }

TEST(LightRules, SkyIsFifteenStraightDownThroughAirAndGlassToTheGround) {
  World w = lone_column();
  set_cell(w, {5, 30, 5}, block("glass"));
  light_all(w);
  for (int64_t y = kMaxY; y >= 1; --y) ASSERT_EQ(sky(w, {5, y, 5}), 15) << "y " << y;
  EXPECT_EQ(sky(w, {5, 0, 5}), 0);  // the ground is opaque
  EXPECT_EQ(w.light({5, 300, 5}), light::kSkyFull);  // above the world reads as full sky
  EXPECT_MATCHES_ORACLE(w);
}

TEST(LightRules, WaterLosesThreePerBlockAndLeavesTwoPerBlock) {
  // Water fills the whole column at y 10..14 (neighbours unloaded, so no light from the side).
  World w = lone_column();
  fill_box(w, {0, 10, 0}, {15, 14, 15}, block("water"));
  light_all(w);
  const int want_water[] = {0, 3, 6, 9, 12};  // y = 10..14: 15 - (1 + 2) per block
  for (int i = 0; i < 5; ++i) EXPECT_EQ(sky(w, {7, 10 + i, 7}), want_water[i]) << "y " << 10 + i;
  EXPECT_EQ(sky(w, {7, 9, 7}), 0);
  EXPECT_EQ(sky(w, {7, 15, 7}), 15);
  EXPECT_MATCHES_ORACLE(w);

  World v = lone_column();
  fill_box(v, {0, 20, 0}, {15, 20, 15}, block("oak_leaves"));
  light_all(v);
  EXPECT_EQ(sky(v, {3, 20, 3}), 13);  // 15 - 1 - opacity 1
  EXPECT_EQ(sky(v, {3, 19, 3}), 12);  // air under the canopy: 1 per step, no longer straight-down 15
  EXPECT_EQ(sky(v, {3, 8, 3}), 1);
  EXPECT_EQ(sky(v, {3, 7, 3}), 0);
  EXPECT_MATCHES_ORACLE(v);
}

TEST(LightRules, AnOpaqueEmitterKeepsItsEmissionAndReceivesNone) {
  // A closed stone box (no sky), glowstone beside a torch.
  World w = make_world(0, 0, 0, 0, block("stone"), 100);
  fill_box(w, {4, 50, 4}, {10, 54, 10}, kAir);
  set_cell(w, {7, 52, 7}, block("torch"));
  set_cell(w, {8, 52, 7}, block("glowstone"));
  light_all(w);
  EXPECT_EQ(rgb(w, {8, 52, 7}), (Rgb{15, 14, 10}));  // its own emission, nothing more from the torch
  EXPECT_EQ(rgb(w, {7, 52, 7}), (Rgb{14, 13, 9}));   // the torch cell takes the glowstone's where brighter
  EXPECT_EQ(rgb(w, {9, 52, 7}), (Rgb{14, 13, 9}));
  EXPECT_EQ(rgb(w, {8, 52, 3}), (Rgb{0, 0, 0}));     // the wall is stone: lit by nothing
  EXPECT_EQ(sky(w, {7, 52, 7}), 0);
  EXPECT_MATCHES_ORACLE(w);
}

TEST(LightRules, TheTopAndBottomOfTheWorld) {
  // A roof of stone at y = 255 over the whole (lone) column: no sky anywhere below it.
  World w = lone_column();
  fill_box(w, {0, kMaxY, 0}, {15, kMaxY, 15}, block("stone"));
  fill_box(w, {0, kMinY, 0}, {15, kMinY + 3, 15}, kAir);  // an open layer at the very bottom
  set_cell(w, {2, kMinY, 2}, block("torch"));
  light_all(w);
  EXPECT_EQ(sky(w, {8, 100, 8}), 0);
  EXPECT_EQ(rgb(w, {2, kMinY, 2}), (Rgb{14, 12, 8}));
  EXPECT_EQ(rgb(w, {2, kMinY + 1, 2}), (Rgb{13, 11, 7}));
  EXPECT_EQ(rgb(w, {5, kMinY, 2}), (Rgb{11, 9, 5}));
  EXPECT_MATCHES_ORACLE(w);

  // Leaves and water in the top layer receive from the sky above the world like any other cell.
  World t = lone_column();
  fill_box(t, {0, kMaxY, 0}, {15, kMaxY, 15}, block("stone"));
  set_cell(t, {4, kMaxY, 4}, block("oak_leaves"));
  set_cell(t, {9, kMaxY, 9}, block("water"));
  light_all(t);
  EXPECT_EQ(sky(t, {4, kMaxY, 4}), 13);
  EXPECT_EQ(sky(t, {4, kMaxY - 1, 4}), 12);
  EXPECT_EQ(sky(t, {9, kMaxY, 9}), 12);
  EXPECT_EQ(sky(t, {10, kMaxY - 1, 9}), 10);
  EXPECT_MATCHES_ORACLE(t);
  edit(t, {4, kMaxY, 4}, kAir);
  EXPECT_EQ(sky(t, {4, kMaxY - 1, 4}), 15);
  edit(t, {9, kMaxY, 9}, block("glass"));
  EXPECT_EQ(sky(t, {9, kMaxY - 1, 9}), 15);
  edit(t, {4, kMaxY, 4}, block("water"));
  EXPECT_EQ(sky(t, {4, kMaxY - 1, 4}), 11);
  EXPECT_MATCHES_ORACLE(t);

  // Open one roof cell: a shaft of sky 15 from y = 255 down to the ground.
  edit(w, {6, kMaxY, 6}, kAir);
  for (int64_t y = kMaxY; y >= 1; --y) ASSERT_EQ(sky(w, {6, y, 6}), 15) << "y " << y;
  EXPECT_EQ(sky(w, {7, 200, 6}), 14);
  EXPECT_MATCHES_ORACLE(w);
  // Put it back: dark again.
  edit(w, {6, kMaxY, 6}, block("stone"));
  EXPECT_EQ(sky(w, {6, 100, 6}), 0);
  EXPECT_MATCHES_ORACLE(w);
}

}  // namespace
}  // namespace voxen
