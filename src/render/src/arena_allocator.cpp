#include "voxen/render/arena_allocator.h"

#include <algorithm>

#include "voxen/core/error.h"

namespace voxen::render {

ArenaAllocator::ArenaAllocator(ElemCount capacity, ElemCount granularity)
    : m_capacity(capacity.value), m_granularity(granularity.value) {
  VOXEN_ASSERT(m_granularity > 0);
  VOXEN_ASSERT(m_capacity % m_granularity == 0);
  if (m_capacity > 0) m_free.emplace(0, m_capacity);
}

ElemCount ArenaAllocator::round_up(ElemCount count) const {
  return ElemCount{(count.value + m_granularity - 1) / m_granularity * m_granularity};
}

std::optional<Span> ArenaAllocator::allocate(ElemCount count) {
  VOXEN_ASSERT(count.value > 0);
  const uint64_t need = round_up(count).value;
  // First fit: the free blocks are ordered by address, so the first one large enough is the lowest.
  for (auto it = m_free.begin(); it != m_free.end(); ++it) {
    if (it->second < need) continue;
    const uint64_t offset = it->first;
    const uint64_t rest = it->second - need;
    m_free.erase(it);
    if (rest > 0) m_free.emplace(offset + need, rest);
    m_live.emplace(offset, need);
    m_used += need;
    return Span{ElemOffset{offset}, ElemCount{need}};
  }
  return std::nullopt;
}

void ArenaAllocator::insert_free(uint64_t offset, uint64_t count) {
  auto next = m_free.lower_bound(offset);
  // Merge with the block that ends exactly at `offset`.
  if (next != m_free.begin()) {
    auto prev = std::prev(next);
    VOXEN_ASSERT(prev->first + prev->second <= offset);
    if (prev->first + prev->second == offset) {
      offset = prev->first;
      count += prev->second;
      m_free.erase(prev);
    }
  }
  // Merge with the block that starts exactly at the end.
  if (next != m_free.end()) {
    VOXEN_ASSERT(offset + count <= next->first);
    if (offset + count == next->first) {
      count += next->second;
      m_free.erase(next);
    }
  }
  m_free.emplace(offset, count);
}

void ArenaAllocator::free(ElemOffset offset) {
  auto it = m_live.find(offset.value);
  VOXEN_ASSERT(it != m_live.end());
  const uint64_t count = it->second;
  m_live.erase(it);
  m_used -= count;
  insert_free(offset.value, count);
}

void ArenaAllocator::grow(ElemCount new_capacity) {
  VOXEN_ASSERT(new_capacity.value >= m_capacity);
  VOXEN_ASSERT(new_capacity.value % m_granularity == 0);
  if (new_capacity.value == m_capacity) return;
  const uint64_t old = m_capacity;
  m_capacity = new_capacity.value;
  insert_free(old, m_capacity - old);
}

ElemCount ArenaAllocator::free_tail() const {
  if (m_free.empty()) return ElemCount{0};
  const auto last = std::prev(m_free.end());
  return ElemCount{last->first + last->second == m_capacity ? last->second : 0};
}

ElemCount ArenaAllocator::grown_capacity_for(ElemCount count) const {
  const uint64_t need = round_up(count).value;
  // A free block touching the end of the arena lengthens when the arena grows.
  const uint64_t tail = free_tail().value;
  uint64_t cap = std::max<uint64_t>(m_capacity, m_granularity);
  while (cap - m_capacity + tail < need) cap *= 2;
  return ElemCount{cap};
}

ElemCount ArenaAllocator::largest_free() const {
  uint64_t best = 0;
  for (const auto& [off, n] : m_free) best = std::max(best, n);
  return ElemCount{best};
}

ElemCount ArenaAllocator::high_water() const {
  if (m_live.empty()) return ElemCount{0};
  const auto last = std::prev(m_live.end());
  return ElemCount{last->first + last->second};
}

double ArenaAllocator::fragmentation() const {
  const uint64_t total = m_capacity - m_used;
  if (total == 0) return 0.0;
  return 1.0 - static_cast<double>(largest_free().value) / static_cast<double>(total);
}

std::optional<Span> ArenaAllocator::find(ElemOffset offset) const {
  auto it = m_live.find(offset.value);
  if (it == m_live.end()) return std::nullopt;
  return Span{ElemOffset{it->first}, ElemCount{it->second}};
}

std::vector<Span> ArenaAllocator::live_spans() const {
  std::vector<Span> out;
  out.reserve(m_live.size());
  for (const auto& [off, n] : m_live) out.push_back(Span{ElemOffset{off}, ElemCount{n}});
  return out;
}

}  // namespace voxen::render
