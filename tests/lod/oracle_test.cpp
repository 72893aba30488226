// The incremental pyramid against the oracle (a from-scratch rebuild from the World): seeded random edit sequences
// (hashes of (seed, step), no global random stream) on generated terrain, many at column and LOD-section borders,
// at the origin, below zero and at |x| ~ 2^40; columns stitched in and unloaded with their light changes; and
// parallel building, byte-identical to single-threaded for any pool size.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "lod_test_util.h"
#include "voxen/core/hash.h"

namespace voxen::lod {
namespace {

using lodtest::area;
using lodtest::block;
using lodtest::edit;
using lodtest::generated_world;
using lodtest::matches_rebuild;
using lodtest::mipper;
using lodtest::pyramid_of;
using lodtest::table;

/// A coordinate in [lo, lo + span) from a hash; half the time pushed onto a border: a column border (15 | 16 mod
/// 16) or an LOD-section border of level 0 or 1 (31 | 32 mod 32, 63 | 64 mod 64).
int64_t pick(uint64_t h, int64_t lo, int64_t span) {
  int64_t v = lo + static_cast<int64_t>(h % static_cast<uint64_t>(span));
  switch ((h >> 32) % 8) {
    case 0: v = (v & ~int64_t{15}) + 15; break;
    case 1: v = v & ~int64_t{15}; break;
    case 2: v = (v & ~int64_t{31}) + 31; break;
    case 3: v = (v & ~int64_t{63}) + 63; break;
    default: break;
  }
  return std::min(std::max(v, lo), lo + span - 1);
}

/// `count` seeded edits in the 4 x 4 columns from (cx0, cz0), compared with the rebuild every `check_every` edits.
void random_edits(uint64_t seed, int64_t cx0, int64_t cz0, int count, int check_every) {
  World w = generated_world(seed, cx0, cx0 + 3, cz0, cz0 + 3);
  Pyramid p = pyramid_of(w);
  ASSERT_TRUE(matches_rebuild(p, w));
  const Cell palette[] = {kAir, kAir, block("stone"), block("glass"), block("oak_leaves"), block("torch"),
                          block("water"), block("glowstone"), block("red_lamp"), block("dirt")};
  int levels_seen[kMaxLevels + 1] = {};
  for (int step = 0; step < count; ++step) {
    const uint64_t h = hash2(seed, step, 0x10d);
    const BlockPos b{pick(hash1(h, 1), cx0 * 16, 64), pick(hash1(h, 2), 24, 104), pick(hash1(h, 3), cz0 * 16, 64)};
    const Cell c = palette[hash1(h, 4) % std::size(palette)];
    const LodUpdate u = edit(w, p, b, c);
    ++levels_seen[u.levels];
    if ((step + 1) % check_every == 0) {
      ASSERT_TRUE(matches_rebuild(p, w)) << "after edit " << step << " at " << b.x << ',' << b.y << ',' << b.z;
    }
  }
  // Not every edit climbs to the top: early stops happened, and some reached it.
  EXPECT_GT(levels_seen[1] + levels_seen[2] + levels_seen[3], 0);
  EXPECT_GT(levels_seen[kDefaultLevels], 0);
}

TEST(PyramidOracle, RandomEditsAtTheOrigin) { random_edits(11, 0, 0, 90, 30); }
TEST(PyramidOracle, RandomEditsBelowZero) { random_edits(12, -4, -3, 90, 30); }
TEST(PyramidOracle, RandomEditsAtTwoToTheForty) {
  random_edits(13, (int64_t{1} << 36) - 2, -(int64_t{1} << 36) - 2, 90, 30);  // blocks ~ +-2^40, across column 2^36
}

TEST(PyramidOracle, ColumnsStitchedInAndUnloadedWithTheirLight) {
  // The streaming order: insert, light locally, stitch (light changes in the neighbours), add to the pyramid and
  // re-read the changed light; unload (light changes in the neighbours), remove, re-read.
  auto g = gen::make_generator("default", 21, lodtest::registry());
  ASSERT_TRUE(g.ok());
  World w;
  Pyramid p(mipper());
  const std::vector<ColumnPos> order = {{0, 0}, {1, 0}, {1, 1}, {-1, 0}, {0, 1}, {2, 1}, {-1, 1}, {0, -1}};
  auto columns = gen::generate_columns(**g, order, nullptr);
  for (size_t i = 0; i < order.size(); ++i) {
    Column& c = w.insert(std::move(columns[i]));
    light::light_column_local(c, table());
    const light::LightChanges lc = light::stitch(w, table(), order[i]);
    p.add_column(*w.find(order[i]));
    p.update_light(w, lc);
    ASSERT_TRUE(matches_rebuild(p, w)) << "after adding column " << i;
  }
  edit(w, p, {16, 80, 15}, block("glowstone"));  // a column corner
  edit(w, p, {-1, 70, 0}, kAir);
  for (const ColumnPos& gone : {ColumnPos{1, 0}, ColumnPos{-1, 1}}) {
    light::UnloadResult ur = light::unload_column(w, table(), gone);
    p.remove_column(gone);
    p.update_light(w, ur.light);
    ASSERT_TRUE(matches_rebuild(p, w)) << "after removing column " << gone.x << ',' << gone.z;
  }
}

TEST(PyramidOracle, ParallelBuildingIsByteIdentical) {
  const World w = generated_world(31, -3, 2, -2, 3);
  const std::vector<ColumnPos> positions = area(-3, 2, -2, 3);
  Pyramid single(mipper());
  const LodUpdate u0 = single.add_columns(w, positions, nullptr);
  EXPECT_TRUE(matches_rebuild(single, w));
  for (int threads : {1, 2, 3}) {
    JobPool pool(threads);
    Pyramid parallel(mipper());
    const LodUpdate u = parallel.add_columns(w, positions, &pool);
    EXPECT_TRUE(parallel.identical(single)) << threads << " threads";
    EXPECT_EQ(u.sections, u0.sections);
    EXPECT_EQ(u.cells, u0.cells);
  }
}

}  // namespace
}  // namespace voxen::lod
