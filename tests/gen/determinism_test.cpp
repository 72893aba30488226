// Generation is a pure function of (seed, column): byte-identical on 1 or 2 threads, in any order, after an
// unload, and from a fresh generator instance.
#include <gtest/gtest.h>

#include <algorithm>

#include "gen_test_util.h"
#include "voxen/core/hash.h"

namespace voxen {
namespace {

using gentest::area;
using gentest::make;

// Generates `positions` one at a time on the calling thread, in the order of `order`, and returns them in the
// order of `positions`.
std::vector<std::unique_ptr<Column>> generate_in_order(const gen::Generator& g, const std::vector<ColumnPos>& positions,
                                                       const std::vector<size_t>& order) {
  std::vector<std::unique_ptr<Column>> out(positions.size());
  for (size_t i : order) {
    out[i] = std::make_unique<Column>(positions[i]);
    g.generate(*out[i]);
  }
  return out;
}

// A permutation of 0..n-1 from hashes of (seed, index): a fixed but scrambled order.
std::vector<size_t> scrambled(size_t n, uint64_t seed) {
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [seed](size_t a, size_t b) {
    return hash1(seed, static_cast<int64_t>(a)) < hash1(seed, static_cast<int64_t>(b));
  });
  return order;
}

class Determinism : public ::testing::TestWithParam<const char*> {};

TEST_P(Determinism, SameCellsOnOneAndTwoThreadsAndInAnyOrder) {
  const auto g = make(GetParam(), 7);
  ASSERT_TRUE(g);
  // A 5 x 5 area around a border-rich spot (negative and positive columns).
  const auto positions = area({-1, 2}, 2);
  const auto single = gen::generate_columns(*g, positions, nullptr);
  JobPool pool(2);
  const auto pooled = gen::generate_columns(*g, positions, &pool, 1000, -1000);
  const auto reversed = [&] {
    std::vector<size_t> order(positions.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = order.size() - 1 - i;
    return generate_in_order(*g, positions, order);
  }();
  const auto shuffled = generate_in_order(*g, positions, scrambled(positions.size(), 99));
  for (size_t i = 0; i < positions.size(); ++i) {
    SCOPED_TRACE(::testing::Message() << "column " << positions[i].x << "," << positions[i].z);
    EXPECT_EQ(single[i]->pos(), positions[i]);
    EXPECT_TRUE(gentest::same_cells(*single[i], *pooled[i]));
    EXPECT_TRUE(gentest::same_cells(*single[i], *reversed[i]));
    EXPECT_TRUE(gentest::same_cells(*single[i], *shuffled[i]));
    EXPECT_EQ(single[i]->content_hash(), pooled[i]->content_hash());
    EXPECT_EQ(single[i]->content_hash(), shuffled[i]->content_hash());
  }
}

TEST_P(Determinism, RegeneratesIdenticallyAfterUnloadAndFromAFreshGenerator) {
  const auto g = make(GetParam(), 123456789);
  ASSERT_TRUE(g);
  World world = gentest::generate_world(*g, area({3, -4}, 1));
  const ColumnPos pos{3, -4};
  const uint64_t before = world.find(pos)->content_hash();
  const auto unloaded = world.remove(pos);
  ASSERT_TRUE(unloaded);
  ASSERT_EQ(world.find(pos), nullptr);

  // Other columns generated in between must not influence the regenerated one.
  for (const ColumnPos& p : area({40, 40}, 1)) {
    Column other(p);
    g->generate(other);
  }
  auto again = std::make_unique<Column>(pos);
  g->generate(*again);
  EXPECT_EQ(again->content_hash(), before);
  EXPECT_TRUE(gentest::same_cells(*again, *unloaded));

  const auto fresh = make(GetParam(), 123456789);
  Column third(pos);
  fresh->generate(third);
  EXPECT_TRUE(gentest::same_cells(third, *unloaded));

  // Regenerating into a column that still holds another column's cells overwrites every section.
  Column stale({40, 40});
  g->generate(stale);
  Column fresh_target(pos);
  g->generate(fresh_target);
  Column rebuilt(pos);
  for (int s = 0; s < kSectionsPerColumn; ++s) rebuilt.section(s) = stale.section(s);
  g->generate(rebuilt);
  EXPECT_TRUE(gentest::same_cells(rebuilt, fresh_target));
}

TEST_P(Determinism, SeedsChangeTheWorld) {
  const auto a = make(GetParam(), 1);
  const auto b = make(GetParam(), 2);
  ASSERT_TRUE(a && b);
  // The flat world ignores the seed by design; the default world must not.
  Column ca({5, 5}), cb({5, 5});
  a->generate(ca);
  b->generate(cb);
  if (std::string_view(GetParam()) == "flat")
    EXPECT_EQ(ca.content_hash(), cb.content_hash());
  else
    EXPECT_NE(ca.content_hash(), cb.content_hash());
  EXPECT_EQ(a->seed(), 1u);
  EXPECT_EQ(b->seed(), 2u);
  EXPECT_EQ(a->name(), GetParam());
}

INSTANTIATE_TEST_SUITE_P(Generators, Determinism, ::testing::Values("default", "flat"));

TEST(Determinism, SurfaceYIsPureAndUnaffectedByOtherCalls) {
  const auto g = make("default", 5);
  ASSERT_TRUE(g);
  const int64_t first = g->surface_y(100, -200);
  // Interleave other generators and columns on this thread.
  const auto other = make("default", 6);
  (void)other->surface_y(100, -200);
  Column c({6, -13});
  g->generate(c);
  (void)g->surface_y(-5000, 7);
  EXPECT_EQ(g->surface_y(100, -200), first);
  EXPECT_EQ(make("default", 5)->surface_y(100, -200), first);
}

TEST(Determinism, UnknownGeneratorAndTrimmedRegistryAreErrors) {
  auto bad = gen::make_generator("nope", 1, gentest::registry());
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("nope"), std::string::npos);

  // A registry without a block only the default generator places: a clear error naming the block.
  auto trimmed = BlockRegistry::parse(R"(
[[block]]
name = "air"
id = 0
opacity = 0
transparency = "translucent"
shape = "none"
[[block]]
name = "stone"
id = 1
opacity = 15
transparency = "opaque"
shape = "cube"
)",
                                      "trimmed.toml");
  ASSERT_TRUE(trimmed) << trimmed.error().to_string();
  auto g = gen::make_generator("default", 1, *trimmed);
  ASSERT_FALSE(g);
  EXPECT_NE(g.error().message.find("needs block"), std::string::npos) << g.error().message;
}

}  // namespace
}  // namespace voxen
