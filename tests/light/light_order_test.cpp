// Order independence: columns made and lit (local part) on 2 worker threads, arriving on the main thread in
// whatever order the workers finish and stitched as they arrive, give byte-identical light to lighting everything
// on one thread in sorted order; and a column whose 8 neighbours are loaded has its final light (the same as in a
// larger world).
#include <gtest/gtest.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>

#include "light_hashed_world.h"
#include "voxen/core/job_pool.h"
#include "voxen/gen/generator.h"

namespace voxen {
namespace {

using namespace lighttest;

using MakeColumn = std::function<std::unique_ptr<Column>(ColumnPos)>;

std::vector<ColumnPos> square(int64_t r) {
  std::vector<ColumnPos> out;
  for (int64_t x = -r; x <= r; ++x)
    for (int64_t z = -r; z <= r; ++z) out.push_back({x, z});
  return out;
}

/// Everything made first, then lit on the calling thread, stitched in sorted order.
World reference_world(const MakeColumn& make, const std::vector<ColumnPos>& positions) {
  World w;
  for (const ColumnPos& p : positions) w.insert(make(p));
  light_all(w);
  return w;
}

/// Columns made and locally lit by a 2-thread pool, submitted in a shuffled order with shuffled priorities, and
/// inserted + stitched on this thread in the order they finish (which the scheduler decides).
World streamed_world(const MakeColumn& make, std::vector<ColumnPos> positions, uint64_t order_seed) {
  HashStream rng(hash1(order_seed, 0x0D3E));
  for (size_t i = positions.size(); i > 1; --i) std::swap(positions[i - 1], positions[rng.below(i)]);
  std::mutex m;
  std::condition_variable cv;
  std::deque<std::unique_ptr<Column>> done;
  World w;
  {
    JobPool pool(2);
    for (const ColumnPos& p : positions)
      pool.submit(static_cast<double>(rng.below(1000)), [&, p] {
        auto c = make(p);
        light::light_column_local(*c, table());
        std::lock_guard<std::mutex> lock(m);
        done.push_back(std::move(c));
        cv.notify_one();
      });
    for (size_t arrived = 0; arrived < positions.size(); ++arrived) {
      std::unique_ptr<Column> c;
      {
        std::unique_lock<std::mutex> lock(m);
        cv.wait(lock, [&] { return !done.empty(); });
        c = std::move(done.front());
        done.pop_front();
      }
      const ColumnPos p = c->pos();
      w.insert(std::move(c));
      light::stitch(w, table(), p);
    }
  }
  return w;
}

void expect_identical(const World& a, const World& b) {
  EXPECT_SAME_LIGHT(a, b);
  for (const ColumnPos& p : a.positions()) {
    ASSERT_NE(b.find(p), nullptr);
    EXPECT_EQ(a.find(p)->content_hash(true), b.find(p)->content_hash(true)) << "column " << p.x << "," << p.z;
  }
}

MakeColumn hashed(uint64_t seed) {
  return [seed](ColumnPos p) { return hashed_column(seed, p); };
}

TEST(LightOrder, StreamingInAnyOrderOnTwoThreadsEqualsSingleThreadedLighting) {
  const auto positions = square(2);  // 5x5 columns
  const MakeColumn make = hashed(21);
  const World ref = reference_world(make, positions);
  EXPECT_MATCHES_ORACLE(ref);
  for (uint64_t order = 1; order <= 3; ++order) {
    SCOPED_TRACE("order seed " + std::to_string(order));
    expect_identical(streamed_world(make, positions, order), ref);
  }
}

/// Columns of a real generator ("default" or "flat"), generated on whichever thread calls it.
MakeColumn generated(const char* name, uint64_t seed) {
  auto g = gen::make_generator(name, seed, registry());
  EXPECT_TRUE(g.ok()) << name;
  std::shared_ptr<gen::Generator> shared(std::move(g.value()));
  return [shared](ColumnPos p) {
    auto c = std::make_unique<Column>(p);
    shared->generate(*c);
    return c;
  };
}

class GeneratedOrder : public ::testing::TestWithParam<const char*> {};

TEST_P(GeneratedOrder, StreamingOnTwoThreadsEqualsSingleThreadedLightingAndTheOracle) {
  // Around a spot away from the origin (negative coordinates on one axis) so borders at x = -1/0 are not the only
  // ones crossed.
  std::vector<ColumnPos> positions;
  for (int64_t x = -3; x <= 1; ++x)
    for (int64_t z = 4; z <= 8; ++z) positions.push_back({x, z});
  const MakeColumn make = generated(GetParam(), 77);
  const World ref = reference_world(make, positions);
  for (uint64_t order = 1; order <= 2; ++order) {
    SCOPED_TRACE("order seed " + std::to_string(order));
    expect_identical(streamed_world(make, positions, order), ref);
  }
  // The oracle on the inner 3x3 (a world of its own: its edge columns lose their outer neighbours, the centre
  // column keeps its final light, which must match the 5x5 world's).
  World inner;
  for (int64_t x = -2; x <= 0; ++x)
    for (int64_t z = 5; z <= 7; ++z) inner.insert(make({x, z}));
  light_all(inner);
  EXPECT_MATCHES_ORACLE(inner);
  EXPECT_EQ(inner.find({-1, 6})->content_hash(true), ref.find({-1, 6})->content_hash(true));
}

INSTANTIATE_TEST_SUITE_P(Light, GeneratedOrder, ::testing::Values("default", "flat"),
                         [](const auto& tp) { return std::string(tp.param); });

TEST(LightOrder, OneAtATimeInRandomOrderAndBatchedOnAPoolGiveTheSameLight) {
  const auto positions = square(1);
  const MakeColumn make = hashed(22);
  const World ref = reference_world(make, positions);
  // light_column per arrival, one thread, a shuffled order.
  auto shuffled = positions;
  HashStream rng(hash1(22, 5));
  for (size_t i = shuffled.size(); i > 1; --i) std::swap(shuffled[i - 1], shuffled[rng.below(i)]);
  World one;
  for (const ColumnPos& p : shuffled) {
    one.insert(make(p));
    light::light_column(one, table(), p);
  }
  expect_identical(one, ref);
  // light_columns with the local part on a pool, stitched in reverse order.
  World batch;
  for (const ColumnPos& p : positions) batch.insert(make(p));
  std::vector<ColumnPos> reversed(positions.rbegin(), positions.rend());
  JobPool pool(2);
  light::light_columns(batch, table(), reversed, &pool);
  expect_identical(batch, ref);
}

TEST(LightOrder, AColumnWithItsEightNeighboursLoadedHasItsFinalLight) {
  // The centre column of a 3x3 world against the same column inside a 5x5 world: light never travels 16 blocks
  // sideways, so the ring of columns further out cannot change it.
  const MakeColumn make = hashed(23);
  const World small = reference_world(make, square(1));
  const World big = reference_world(make, square(2));
  const ColumnPos centre{0, 0};
  for (int s = 0; s < kSectionsPerColumn; ++s)
    ASSERT_TRUE(small.find(centre)->light_section(s) == big.find(centre)->light_section(s)) << "section " << s;
  EXPECT_EQ(small.find(centre)->content_hash(true), big.find(centre)->content_hash(true));
  // Its neighbours, missing some of their own neighbours in the small world, may differ (that is the point of
  // the 3x3 rule); the edge columns of the small world are not final.
}

}  // namespace
}  // namespace voxen
