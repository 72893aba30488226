// The arena allocator: a pure CPU first-fit sub-allocator of spans inside one big buffer (after the VoxelBlox
// seed's mesh arena and filament's BufferAllocator). No GL here: ArenaBuffer (arena_buffer.h) wraps it around a
// GL buffer object and copies bytes; this class only decides where each mesh goes.
//
// Units: the allocator counts ELEMENTS (for voxen's arenas an element is one packed quad: 16 bytes in the opaque
// arena, 20 bytes in the translucent one). Offsets and sizes are typed (ElemOffset, ElemCount) so they cannot be
// mixed with byte quantities (ByteOffset, ByteSize); to_bytes() converts with an explicit stride.
//
// Policy: every request is rounded up to a multiple of the granularity (a "span", e.g. 64 quads), then placed in
// the lowest-addressed free block large enough (first fit). Freeing merges the block with free neighbours on both
// sides, so free space never sits in two adjacent blocks. grow() extends the capacity at the end (merging with a
// free tail); nothing already allocated ever moves.
// Threads: not thread-safe; the main thread owns it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

namespace voxen::render {

/// A number of elements (quads).
struct ElemCount {
  uint64_t value = 0;
  constexpr ElemCount() = default;
  constexpr explicit ElemCount(uint64_t v) : value(v) {}
  friend constexpr bool operator==(ElemCount, ElemCount) = default;
  friend constexpr auto operator<=>(ElemCount, ElemCount) = default;
};
/// An offset from the arena's start, in elements.
struct ElemOffset {
  uint64_t value = 0;
  constexpr ElemOffset() = default;
  constexpr explicit ElemOffset(uint64_t v) : value(v) {}
  friend constexpr bool operator==(ElemOffset, ElemOffset) = default;
  friend constexpr auto operator<=>(ElemOffset, ElemOffset) = default;
};
/// A size in bytes.
struct ByteSize {
  uint64_t value = 0;
  constexpr ByteSize() = default;
  constexpr explicit ByteSize(uint64_t v) : value(v) {}
  friend constexpr bool operator==(ByteSize, ByteSize) = default;
  friend constexpr auto operator<=>(ByteSize, ByteSize) = default;
};
/// An offset from the arena's start, in bytes.
struct ByteOffset {
  uint64_t value = 0;
  constexpr ByteOffset() = default;
  constexpr explicit ByteOffset(uint64_t v) : value(v) {}
  friend constexpr bool operator==(ByteOffset, ByteOffset) = default;
  friend constexpr auto operator<=>(ByteOffset, ByteOffset) = default;
};

/// Converts elements to bytes with the arena's element stride (bytes per element).
constexpr ByteSize to_bytes(ElemCount n, uint32_t stride) { return ByteSize{n.value * stride}; }
constexpr ByteOffset to_bytes(ElemOffset o, uint32_t stride) { return ByteOffset{o.value * stride}; }

/// One allocation: where it starts and how many elements it reserves (the request rounded up to the granularity),
/// and which of an ArenaBuffer's GL buffers holds it (always 0 from an ArenaAllocator, which manages one buffer).
struct Span {
  ElemOffset offset;
  ElemCount count;
  uint32_t buffer = 0;
  friend constexpr bool operator==(const Span&, const Span&) = default;
  constexpr uint64_t end() const { return offset.value + count.value; }
};

class ArenaAllocator {
 public:
  /// An arena of `capacity` elements handing out multiples of `granularity` elements. capacity must be a
  /// multiple of granularity (may be 0); granularity > 0. Violations are programmer errors (VOXEN_ASSERT).
  ArenaAllocator(ElemCount capacity, ElemCount granularity);

  /// Reserves at least `count` (> 0) elements, rounded up to the granularity, at the lowest free address that
  /// fits. nullopt when no free block is large enough: the caller grows the arena and tries again.
  std::optional<Span> allocate(ElemCount count);
  /// Returns a span given by allocate() (its offset must be the start of a live allocation: VOXEN_ASSERT).
  void free(ElemOffset offset);
  /// Extends the arena to new_capacity (>= capacity(), a multiple of the granularity). Live spans keep their
  /// offsets; the new space joins a free block that ends at the old capacity, if any.
  void grow(ElemCount new_capacity);

  /// Rounds a request up to the granularity.
  ElemCount round_up(ElemCount count) const;
  /// The smallest capacity, doubling from the current one (or from one granularity when empty), that would have
  /// a free tail able to take `count` elements. Used by ArenaBuffer to size its growth.
  ElemCount grown_capacity_for(ElemCount count) const;

  ElemCount capacity() const { return ElemCount{m_capacity}; }
  ElemCount granularity() const { return ElemCount{m_granularity}; }
  /// Elements held by live allocations (rounded sizes).
  ElemCount used() const { return ElemCount{m_used}; }
  /// Elements free in total (capacity - used).
  ElemCount free_total() const { return ElemCount{m_capacity - m_used}; }
  /// The largest single free block (the biggest request that can succeed without growing).
  ElemCount largest_free() const;
  /// The free block that ends at the capacity (0 when the last element is live): what a grow lengthens.
  ElemCount free_tail() const;
  /// One past the last element of the highest live span (0 when empty): what a grow must copy.
  ElemCount high_water() const;
  size_t free_block_count() const { return m_free.size(); }
  size_t allocation_count() const { return m_live.size(); }
  /// External fragmentation: 1 - largest_free / free_total; 0 when nothing (or one block) is free.
  double fragmentation() const;
  /// The span allocated at `offset`, if any (for checks).
  std::optional<Span> find(ElemOffset offset) const;
  /// Every live span, by address.
  std::vector<Span> live_spans() const;

 private:
  void insert_free(uint64_t offset, uint64_t count);  // merges with neighbours

  uint64_t m_capacity = 0;
  uint64_t m_granularity = 1;
  uint64_t m_used = 0;
  std::map<uint64_t, uint64_t> m_free;  // free blocks: offset -> count, by address; never two adjacent
  std::map<uint64_t, uint64_t> m_live;  // live allocations: offset -> rounded count
};

}  // namespace voxen::render
