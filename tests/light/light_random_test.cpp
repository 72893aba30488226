// Seeded random edit sequences, many at column and section borders and at the top and bottom of the world, must
// leave exactly the light the from-scratch oracle computes; each edit's change report must list exactly the cells
// that changed; columns streamed out and back in between edits keep the same invariant.
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>

#include "light_hashed_world.h"

namespace voxen {
namespace {

using namespace lighttest;

/// A world coordinate (x or z) over the three columns -1..1, at or next to a column border half of the time.
int64_t pick_xz(HashStream& rng) {
  const int64_t column = static_cast<int64_t>(rng.below(3)) - 1;
  static constexpr int kNearBorder[] = {0, 1, 14, 15};
  const int local = rng.below(2) == 0 ? kNearBorder[rng.below(4)] : static_cast<int>(rng.below(16));
  return column * 16 + local;
}

int64_t pick_y(HashStream& rng) {
  switch (rng.below(10)) {
    case 0: return kMinY + static_cast<int64_t>(rng.below(3));   // the bottom of the world
    case 1: return kMaxY - static_cast<int64_t>(rng.below(3));   // the top of the world
    case 2:
    case 3:
    case 4: {  // a section border inside the ground (sections start at y = -128 + 16k: ..., 16, 32, 48)
      static constexpr int64_t kBorders[] = {15, 16, 31, 32, 47, 48};
      return kBorders[rng.below(6)];
    }
    default: return 20 + static_cast<int64_t>(rng.below(40));   // the ground, its tunnels and the surface
  }
}

Cell pick_block(HashStream& rng) {
  static const Cell kBlocks[] = {kAir, kAir, kAir, block("stone"), block("stone"), block("stone"), block("torch"),
                                 block("torch"), block("glowstone"), block("red_lamp"), block("blue_lamp"),
                                 block("water"), block("oak_leaves"), block("glass"), block("lava"), block("magma")};
  return kBlocks[rng.below(std::size(kBlocks))];
}

/// Light of every cell of w minus `before`, checked against the edit's report.
void expect_report_matches(const World& before, const World& after, const light::LightChanges& report, int step) {
  size_t cells = 0;
  std::vector<light::SectionLightChange> want;
  for (const ColumnPos& p : after.positions())
    for (int s = 0; s < kSectionsPerColumn; ++s) {
      light::SectionLightChange ch;
      ch.section = {p.x, s, p.z};
      bool any = false;
      const LightSection& a = after.find(p)->light_section(s);
      const LightSection& b = before.find(p)->light_section(s);
      if (a.is_uniform() && b.is_uniform() && a.uniform_value() == b.uniform_value()) continue;
      for (int i = 0; i < kSectionVolume; ++i) {
        if (a.get(i) == b.get(i)) continue;
        any = true;
        ++cells;
        const auto x = static_cast<uint8_t>(i & 15), z = static_cast<uint8_t>((i >> 4) & 15), y = static_cast<uint8_t>(i >> 8);
        ch.min_x = std::min(ch.min_x, x), ch.max_x = std::max(ch.max_x, x);
        ch.min_y = std::min(ch.min_y, y), ch.max_y = std::max(ch.max_y, y);
        ch.min_z = std::min(ch.min_z, z), ch.max_z = std::max(ch.max_z, z);
      }
      if (any) want.push_back(ch);
    }
  std::sort(want.begin(), want.end(), [](const auto& l, const auto& r) { return l.section < r.section; });
  EXPECT_EQ(report.cells, cells) << "edit " << step;
  EXPECT_EQ(report.sections, want) << "edit " << step;
}

class RandomEdits : public ::testing::TestWithParam<uint64_t> {};

TEST_P(RandomEdits, EqualTheOracleAfterEverySequence) {
  const uint64_t seed = GetParam();
  World w = hashed_world(seed, -1, 1, -1, 1);
  light_all(w);
  EXPECT_MATCHES_ORACLE(w);
  HashStream rng(hash1(seed, 0xED17));
  constexpr int kEdits = 240;
  for (int i = 1; i <= kEdits; ++i) {
    const BlockPos p{pick_xz(rng), pick_y(rng), pick_xz(rng)};
    const Cell c = pick_block(rng);
    if (i % 12 == 0) {  // check the change report exactly
      const World before = clone(w);
      const auto r = edit(w, p, c);
      ASSERT_TRUE(r.applied);
      expect_report_matches(before, w, r.light, i);
    } else {
      ASSERT_TRUE(edit(w, p, c).applied);
    }
    if (i % 80 == 0) {
      const auto d = light::verify_light(w, table());
      ASSERT_TRUE(d.equal()) << "after " << i << " edits (last " << p.x << "," << p.y << "," << p.z << "): " << d.to_string();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Light, RandomEdits, ::testing::Values(1u, 2u, 3u));

// Edit storms (light::apply_edits): batches of random edits, scattered over three columns or packed into a ball
// across a column corner (a blast: mostly removals, some repeats of one cell), must leave the oracle's light, the
// same light as the same edits one at a time, and a change report listing exactly the cells that changed.
class RandomBatches : public ::testing::TestWithParam<uint64_t> {};

TEST_P(RandomBatches, EqualTheOracleAndOneAtATime) {
  const uint64_t seed = GetParam();
  World w = hashed_world(seed, -1, 1, -1, 1);
  light_all(w);
  HashStream rng(hash1(seed, 0xBA7C));
  for (int batch = 0; batch < 6; ++batch) {
    std::vector<Edit> edits;
    const bool ball = batch % 2 == 1;
    const int n = 40 + static_cast<int>(rng.below(400));
    const BlockPos centre{static_cast<int64_t>(rng.below(5)) - 2, 20 + static_cast<int64_t>(rng.below(30)),
                          static_cast<int64_t>(rng.below(5)) - 2};
    for (int i = 0; i < n; ++i) {
      BlockPos p{pick_xz(rng), pick_y(rng), pick_xz(rng)};
      if (ball) p = {centre.x + static_cast<int64_t>(rng.below(13)) - 6, centre.y + static_cast<int64_t>(rng.below(13)) - 6,
                     centre.z + static_cast<int64_t>(rng.below(13)) - 6};
      const Cell c = ball && rng.below(4) != 0 ? kAir : pick_block(rng);
      auto e = w.make_edit(p, c);  // `before` as now: a repeated cell's later edit records the earlier one's block
      ASSERT_TRUE(e.has_value());
      edits.push_back(*e);
    }
    World one_at_a_time = clone(w);
    for (const Edit& e : edits) ASSERT_TRUE(light::apply_edit(one_at_a_time, table(), e).applied);
    const World before = clone(w);
    const light::EditsResult r = light::apply_edits(w, table(), edits);
    ASSERT_EQ(r.count, edits.size());
    EXPECT_TRUE(std::all_of(r.applied.begin(), r.applied.end(), [](uint8_t a) { return a == 1; }));
    expect_report_matches(before, w, r.light, batch);
    const auto d = light::verify_light(w, table());
    ASSERT_TRUE(d.equal()) << "batch " << batch << " (" << n << (ball ? " edits in a ball): " : " scattered edits): ")
                           << d.to_string();
    for (const ColumnPos& p : w.positions())
      for (int s = 0; s < kSectionsPerColumn; ++s)
        for (int i = 0; i < kSectionVolume; i += 7)
          ASSERT_EQ(w.find(p)->light_section(s).get(i), one_at_a_time.find(p)->light_section(s).get(i))
              << "batch " << batch << " column " << p.x << "," << p.z << " section " << s << " cell " << i;
  }
  // Edits of unloaded columns and out-of-range y are skipped, the others still applied.
  const Edit outside{{1000, 40, 0}, kAir, block("torch"), 0};
  const Edit too_high{{0, kMaxY + 1, 0}, kAir, block("torch"), 0};
  auto inside = w.make_edit({3, 40, 3}, block("glowstone"));
  ASSERT_TRUE(inside.has_value());
  const std::vector<Edit> mixed{outside, *inside, too_high};
  const light::EditsResult r = light::apply_edits(w, table(), mixed);
  EXPECT_EQ(r.count, 1u);
  EXPECT_EQ(r.applied, (std::vector<uint8_t>{0, 1, 0}));
  EXPECT_TRUE(light::verify_light(w, table()).equal());
}

INSTANTIATE_TEST_SUITE_P(Light, RandomBatches, ::testing::Values(1u, 2u, 3u, 4u));

TEST(LightStreaming, UnloadingAndReloadingColumnsBetweenEditsKeepsTheOracleLight) {
  // 4x3 columns; stream edge columns out and back in (with their edits kept) between random edits.
  const uint64_t seed = 9;
  World w = hashed_world(seed, -1, 2, -1, 1);
  light_all(w);
  HashStream rng(hash1(seed, 0x57EA));
  std::vector<std::unique_ptr<Column>> away;
  for (int round = 0; round < 6; ++round) {
    for (int i = 0; i < 15; ++i) {
      const BlockPos p{pick_xz(rng), pick_y(rng), pick_xz(rng)};
      if (w.find(column_pos_of(p))) edit(w, p, pick_block(rng));
    }
    if (round % 2 == 0) {  // unload one or two edge columns
      const ColumnPos a{2, static_cast<int64_t>(rng.below(3)) - 1};
      auto r = light::unload_column(w, table(), a);
      if (r.column) away.push_back(std::move(r.column));
      if (rng.below(2) == 0) {
        auto r2 = light::unload_column(w, table(), {static_cast<int64_t>(rng.below(4)) - 1, -1});
        if (r2.column) away.push_back(std::move(r2.column));
      }
    } else {  // bring them back (with the light they had when they left: light_column recomputes it)
      for (auto& c : away) {
        const ColumnPos p = c->pos();
        w.insert(std::move(c));
        light::light_column(w, table(), p);
      }
      away.clear();
    }
    const auto d = light::verify_light(w, table());
    ASSERT_TRUE(d.equal()) << "round " << round << ": " << d.to_string();
  }
}

}  // namespace
}  // namespace voxen
