// The arena allocator (pure CPU): allocate, free, merge, grow, fragmentation. In the style of filament's
// test_BufferAllocator: named constants, and every expected offset derived in a comment.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <vector>

#include "voxen/core/hash.h"
#include "voxen/render/arena_allocator.h"

using voxen::render::ArenaAllocator;
using voxen::render::ElemCount;
using voxen::render::ElemOffset;
using voxen::render::Span;

namespace {

constexpr uint64_t kSpan = 64;           // granularity: every allocation is a multiple of 64 elements
constexpr uint64_t kCapacity = 16 * kSpan;  // 1024 elements

ElemCount n(uint64_t v) { return ElemCount{v}; }

TEST(ArenaAllocator, RoundsUpToTheGranularity) {
  ArenaAllocator a(n(kCapacity), n(kSpan));
  // 1 element -> one span of 64 at offset 0.
  auto s1 = a.allocate(n(1));
  ASSERT_TRUE(s1);
  EXPECT_EQ(s1->offset.value, 0u);
  EXPECT_EQ(s1->count.value, kSpan);
  // 65 elements -> two spans (128) right after the first: offset 64.
  auto s2 = a.allocate(n(kSpan + 1));
  ASSERT_TRUE(s2);
  EXPECT_EQ(s2->offset.value, kSpan);
  EXPECT_EQ(s2->count.value, 2 * kSpan);
  // Exactly 64 -> 64, at 64 + 128 = 192.
  auto s3 = a.allocate(n(kSpan));
  ASSERT_TRUE(s3);
  EXPECT_EQ(s3->offset.value, 3 * kSpan);
  EXPECT_EQ(a.used().value, 4 * kSpan);
  EXPECT_EQ(a.free_total().value, kCapacity - 4 * kSpan);
  EXPECT_EQ(a.allocation_count(), 3u);
  EXPECT_EQ(a.high_water().value, 4 * kSpan);
}

TEST(ArenaAllocator, FailsWhenNothingFitsAndNeverOverlaps) {
  ArenaAllocator a(n(kCapacity), n(kSpan));
  // The whole arena in one request fits exactly.
  auto all = a.allocate(n(kCapacity));
  ASSERT_TRUE(all);
  EXPECT_EQ(all->offset.value, 0u);
  EXPECT_FALSE(a.allocate(n(1)));
  a.free(all->offset);
  // One more than the capacity never fits.
  EXPECT_FALSE(a.allocate(n(kCapacity + 1)));
  EXPECT_EQ(a.free_block_count(), 1u);
  EXPECT_EQ(a.largest_free().value, kCapacity);
}

TEST(ArenaAllocator, FirstFitTakesTheLowestHoleLargeEnough) {
  ArenaAllocator a(n(kCapacity), n(kSpan));
  // Four blocks: A [0,64) B [64,192) C [192,256) D [256,448).
  auto A = a.allocate(n(kSpan));
  auto B = a.allocate(n(2 * kSpan));
  auto C = a.allocate(n(kSpan));
  auto D = a.allocate(n(3 * kSpan));
  ASSERT_TRUE(A && B && C && D);
  EXPECT_EQ(D->offset.value, 4 * kSpan);
  // Free A (hole of 64 at 0) and C (hole of 64 at 192): not adjacent, so three free blocks (with the tail).
  a.free(A->offset);
  a.free(C->offset);
  EXPECT_EQ(a.free_block_count(), 3u);
  // A 64-element request takes the lowest hole: offset 0.
  auto E = a.allocate(n(kSpan));
  ASSERT_TRUE(E);
  EXPECT_EQ(E->offset.value, 0u);
  // A 128-element request does not fit the 64 hole at 192; the first block large enough is the tail at
  // 448 = 7 * 64 (after D).
  auto F = a.allocate(n(2 * kSpan));
  ASSERT_TRUE(F);
  EXPECT_EQ(F->offset.value, 7 * kSpan);
  // A 64-element request now takes the hole at 192.
  auto G = a.allocate(n(1));
  ASSERT_TRUE(G);
  EXPECT_EQ(G->offset.value, 3 * kSpan);
}

TEST(ArenaAllocator, FreeMergesWithBothNeighbours) {
  ArenaAllocator a(n(kCapacity), n(kSpan));
  std::vector<Span> s;
  for (int i = 0; i < 5; ++i) s.push_back(*a.allocate(n(kSpan)));  // [0,64) [64,128) ... [256,320)
  // Free 1 and 3: two separate holes plus the tail [320, 1024).
  a.free(s[1].offset);
  a.free(s[3].offset);
  EXPECT_EQ(a.free_block_count(), 3u);
  // Free 2: it touches hole 1 on the left and hole 3 on the right -> one hole [64, 256).
  a.free(s[2].offset);
  EXPECT_EQ(a.free_block_count(), 2u);
  EXPECT_EQ(a.largest_free().value, kCapacity - 5 * kSpan + 0);  // the tail (704) is still larger than 192
  // A 192-element request lands exactly in the merged hole at 64.
  auto big = a.allocate(n(3 * kSpan));
  ASSERT_TRUE(big);
  EXPECT_EQ(big->offset.value, kSpan);
  // Free everything: back to one block covering the arena.
  a.free(big->offset);
  a.free(s[0].offset);
  a.free(s[4].offset);
  EXPECT_EQ(a.free_block_count(), 1u);
  EXPECT_EQ(a.largest_free().value, kCapacity);
  EXPECT_EQ(a.used().value, 0u);
  EXPECT_EQ(a.allocation_count(), 0u);
}

TEST(ArenaAllocator, GrowExtendsTheFreeTailAndKeepsOffsets) {
  ArenaAllocator a(n(4 * kSpan), n(kSpan));
  auto A = a.allocate(n(kSpan));      // [0, 64)
  auto B = a.allocate(n(2 * kSpan));  // [64, 192), leaving a tail [192, 256)
  ASSERT_TRUE(A && B);
  // 128 does not fit the 64-element tail.
  EXPECT_FALSE(a.allocate(n(2 * kSpan)));
  // Doubling from 256 -> 512 makes the tail [192, 512): 320 elements, enough for 128.
  EXPECT_EQ(a.grown_capacity_for(n(2 * kSpan)).value, 8 * kSpan);
  a.grow(n(8 * kSpan));
  EXPECT_EQ(a.capacity().value, 8 * kSpan);
  EXPECT_EQ(a.free_block_count(), 1u);  // the old tail and the new space merged
  EXPECT_EQ(a.find(A->offset), A);
  EXPECT_EQ(a.find(B->offset), B);
  auto C = a.allocate(n(2 * kSpan));
  ASSERT_TRUE(C);
  EXPECT_EQ(C->offset.value, 3 * kSpan);  // right after B: 192
}

TEST(ArenaAllocator, GrownCapacityDoublesUntilTheTailFits) {
  ArenaAllocator a(n(4 * kSpan), n(kSpan));
  auto full = a.allocate(n(4 * kSpan));
  ASSERT_TRUE(full);
  // No free tail: a 5-span request needs 256 -> 512 (tail 256, too small) -> 1024 (tail 768).
  EXPECT_EQ(a.grown_capacity_for(n(5 * kSpan)).value, 16 * kSpan);
  // An empty arena of capacity 0 starts from one span and doubles: 1 element -> 64.
  ArenaAllocator empty(n(0), n(kSpan));
  EXPECT_FALSE(empty.allocate(n(1)));
  EXPECT_EQ(empty.grown_capacity_for(n(1)).value, kSpan);
  EXPECT_EQ(empty.grown_capacity_for(n(3 * kSpan)).value, 4 * kSpan);
}

TEST(ArenaAllocator, FragmentationIsMeasured) {
  ArenaAllocator a(n(kCapacity), n(kSpan));
  EXPECT_DOUBLE_EQ(a.fragmentation(), 0.0);  // one free block
  std::vector<Span> s;
  for (uint64_t i = 0; i < kCapacity / kSpan; ++i) s.push_back(*a.allocate(n(kSpan)));
  EXPECT_DOUBLE_EQ(a.fragmentation(), 0.0);  // nothing free
  // Free every other span: 8 holes of 64, largest 64 of 512 free -> fragmentation 1 - 64/512 = 0.875.
  for (size_t i = 0; i < s.size(); i += 2) a.free(s[i].offset);
  EXPECT_EQ(a.free_block_count(), 8u);
  EXPECT_DOUBLE_EQ(a.fragmentation(), 1.0 - 64.0 / 512.0);
  // A 128 request fails although 512 are free: that is what fragmentation costs.
  EXPECT_FALSE(a.allocate(n(2 * kSpan)));
  // Free the rest: all merge into one block again.
  for (size_t i = 1; i < s.size(); i += 2) a.free(s[i].offset);
  EXPECT_EQ(a.free_block_count(), 1u);
  EXPECT_DOUBLE_EQ(a.fragmentation(), 0.0);
}

// A long random mix of allocations and frees (hash-driven, reproducible) checked against a brute-force model:
// spans never overlap, stay inside the arena, used() is the sum of live spans, and no two free blocks touch.
TEST(ArenaAllocator, RandomMixMatchesABruteForceModel) {
  ArenaAllocator a(n(0), n(kSpan));
  std::map<uint64_t, uint64_t> live;  // offset -> count
  for (int step = 0; step < 4000; ++step) {
    const uint64_t h = voxen::hash1(42, step);
    if (live.empty() || (h & 3) != 0) {
      const uint64_t want = 1 + (h >> 8) % (6 * kSpan);
      auto s = a.allocate(n(want));
      if (!s) {
        a.grow(a.grown_capacity_for(n(want)));
        s = a.allocate(n(want));
      }
      ASSERT_TRUE(s);
      EXPECT_EQ(s->count.value % kSpan, 0u);
      EXPECT_GE(s->count.value, want);
      EXPECT_LE(s->end(), a.capacity().value);
      // No overlap with any live span.
      auto next = live.lower_bound(s->offset.value);
      if (next != live.end()) {
        EXPECT_LE(s->end(), next->first);
      }
      if (next != live.begin()) {
        auto prev = std::prev(next);
        EXPECT_LE(prev->first + prev->second, s->offset.value);
      }
      live.emplace(s->offset.value, s->count.value);
    } else {
      auto it = live.begin();
      std::advance(it, static_cast<long>((h >> 8) % live.size()));
      a.free(ElemOffset{it->first});
      live.erase(it);
    }
    uint64_t used = 0;
    for (const auto& [o, c] : live) used += c;
    ASSERT_EQ(a.used().value, used);
    ASSERT_EQ(a.allocation_count(), live.size());
  }
  // Every free block is bounded by live spans (or the arena's ends): count the gaps between live spans.
  size_t gaps = 0;
  uint64_t cursor = 0;
  for (const auto& [o, c] : live) {
    if (o > cursor) ++gaps;
    cursor = o + c;
  }
  if (cursor < a.capacity().value) ++gaps;
  EXPECT_EQ(a.free_block_count(), gaps);
}

}  // namespace
