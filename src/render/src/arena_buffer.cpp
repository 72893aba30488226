#include <epoxy/gl.h>

#include "voxen/render/arena_buffer.h"

#include <algorithm>
#include <limits>

#include "voxen/core/error.h"

namespace voxen::render {
namespace {

GLuint make_buffer(ByteSize size, bool dsa) {
  GLuint b = 0;
  if (dsa) {
    glCreateBuffers(1, &b);
    glNamedBufferData(b, static_cast<GLsizeiptr>(size.value), nullptr, GL_DYNAMIC_DRAW);
  } else {
    glGenBuffers(1, &b);
    glBindBuffer(GL_COPY_WRITE_BUFFER, b);
    glBufferData(GL_COPY_WRITE_BUFFER, static_cast<GLsizeiptr>(size.value), nullptr, GL_DYNAMIC_DRAW);
    glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
  }
  return b;
}

// Copies `bytes` from `src` at `from` to `dst` at `to` on the GPU.
void copy(GLuint src, GLuint dst, uint64_t from, uint64_t to, uint64_t bytes, bool dsa) {
  if (bytes == 0) return;
  if (dsa) {
    glCopyNamedBufferSubData(src, dst, static_cast<GLintptr>(from), static_cast<GLintptr>(to), static_cast<GLsizeiptr>(bytes));
  } else {
    glBindBuffer(GL_COPY_READ_BUFFER, src);
    glBindBuffer(GL_COPY_WRITE_BUFFER, dst);
    glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, static_cast<GLintptr>(from), static_cast<GLintptr>(to),
                        static_cast<GLsizeiptr>(bytes));
    glBindBuffer(GL_COPY_READ_BUFFER, 0);
    glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
  }
}

uint64_t round_up(uint64_t n, uint64_t granularity) { return (n + granularity - 1) / granularity * granularity; }

}  // namespace

ArenaBuffer::ArenaBuffer(uint32_t stride, ElemCount initial_capacity, ElemCount granularity, bool dsa,
                         ByteSize max_buffer_bytes)
    : m_stride(stride), m_granularity(granularity.value), m_dsa(dsa) {
  VOXEN_ASSERT(stride > 0);
  VOXEN_ASSERT(m_granularity > 0);
  // gl_VertexID (a GLint) reaches 6 * the buffer's quads: the vertex index range bounds a buffer too.
  const uint64_t vertex_bound = static_cast<uint64_t>(std::numeric_limits<int32_t>::max()) / 6;
  const uint64_t byte_bound = max_buffer_bytes.value > 0 ? max_buffer_bytes.value / stride : vertex_bound;
  m_max_elems = std::min(vertex_bound, byte_bound) / m_granularity * m_granularity;
  m_initial = std::min(round_up(std::max<uint64_t>(initial_capacity.value, 1), m_granularity), m_max_elems);
  m_pages.push_back(Page{ArenaAllocator(ElemCount{m_initial}, granularity), 0});
}

ArenaBuffer::~ArenaBuffer() {
  for (Page& p : m_pages)
    if (p.name) glDeleteBuffers(1, &p.name);
}

uint32_t ArenaBuffer::live_buffer_count() const {
  uint32_t n = 0;
  for (const Page& p : m_pages) n += p.name != 0;
  return n;
}

ByteSize ArenaBuffer::capacity_bytes() const {
  uint64_t elems = 0;
  for (const Page& p : m_pages)
    if (p.name) elems += p.alloc.capacity().value;
  return to_bytes(ElemCount{elems}, m_stride);
}

ByteSize ArenaBuffer::used_bytes() const {
  uint64_t elems = 0;
  for (const Page& p : m_pages) elems += p.alloc.used().value;
  return to_bytes(ElemCount{elems}, m_stride);
}

std::vector<uint64_t> ArenaBuffer::gl_buffer_sizes() const {
  std::vector<uint64_t> sizes;
  for (const Page& p : m_pages) {
    GLint64 size = 0;
    if (p.name) {
      if (m_dsa) {
        glGetNamedBufferParameteri64v(p.name, GL_BUFFER_SIZE, &size);
      } else {
        glBindBuffer(GL_COPY_READ_BUFFER, p.name);
        glGetBufferParameteri64v(GL_COPY_READ_BUFFER, GL_BUFFER_SIZE, &size);
        glBindBuffer(GL_COPY_READ_BUFFER, 0);
      }
    }
    sizes.push_back(static_cast<uint64_t>(size));
  }
  return sizes;
}

void ArenaBuffer::ensure_buffer(uint32_t index) {
  Page& p = m_pages[index];
  if (p.name) return;
  p.name = make_buffer(to_bytes(p.alloc.capacity(), m_stride), m_dsa);
  ++m_generation;
}

void ArenaBuffer::resize(uint32_t index, ElemCount capacity) {
  Page& p = m_pages[index];
  VOXEN_ASSERT(capacity.value <= m_max_elems);
  const GLuint fresh = make_buffer(to_bytes(capacity, m_stride), m_dsa);
  if (p.name) {
    // Copy only what live spans cover; the rest of the old buffer holds nothing anyone draws.
    copy(p.name, fresh, 0, 0, to_bytes(p.alloc.high_water(), m_stride).value, m_dsa);
    glDeleteBuffers(1, &p.name);
    ++m_grows;
  }
  p.name = fresh;
  ++m_generation;
  p.alloc.grow(capacity);
}

std::optional<uint64_t> ArenaBuffer::growth_for(const Page& page, ElemCount count) const {
  const uint64_t cap = page.alloc.capacity().value;
  if (cap == 0 || cap >= m_max_elems) return std::nullopt;
  const uint64_t doubled = page.alloc.grown_capacity_for(count).value;
  if (doubled <= m_max_elems) return doubled;
  // Doubling passes the limit: the limit itself, if the free tail reaches far enough there.
  if (m_max_elems - cap + page.alloc.free_tail().value >= page.alloc.round_up(count).value) return m_max_elems;
  return std::nullopt;
}

void ArenaBuffer::write(Span span, const void* data, ElemCount count) {
  VOXEN_ASSERT(count.value <= span.count.value);
  const GLuint name = m_pages[span.buffer].name;
  const ByteOffset at = to_bytes(span.offset, m_stride);
  const ByteSize size = to_bytes(count, m_stride);
  if (m_dsa) {
    glNamedBufferSubData(name, static_cast<GLintptr>(at.value), static_cast<GLsizeiptr>(size.value), data);
  } else {
    glBindBuffer(GL_COPY_WRITE_BUFFER, name);
    glBufferSubData(GL_COPY_WRITE_BUFFER, static_cast<GLintptr>(at.value), static_cast<GLsizeiptr>(size.value), data);
    glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
  }
}

std::optional<Span> ArenaBuffer::allocate(const void* data, ElemCount count) {
  VOXEN_ASSERT(count.value > 0);
  if (round_up(count.value, m_granularity) > m_max_elems) return std::nullopt;
  std::optional<Span> span;
  uint32_t index = 0;
  // 1. The first buffer with a free block that fits.
  for (; index < m_pages.size() && !span; ++index)
    if (m_pages[index].alloc.capacity().value > 0) span = m_pages[index].alloc.allocate(count);
  if (span) {
    --index;
  } else {
    // 2. The lowest buffer that can grow (within the limit) to take it.
    for (index = 0; index < m_pages.size(); ++index)
      if (auto cap = growth_for(m_pages[index], count)) {
        resize(index, ElemCount{*cap});
        span = m_pages[index].alloc.allocate(count);
        break;
      }
  }
  if (!span) {
    // 3. Another buffer, in the first empty slot, at the initial capacity (doubled until the request fits).
    for (index = 0; index < m_pages.size() && m_pages[index].alloc.capacity().value > 0; ++index) {
    }
    uint64_t cap = m_initial;
    while (cap < round_up(count.value, m_granularity)) cap *= 2;
    cap = std::min(cap, m_max_elems);
    const Page fresh{ArenaAllocator(ElemCount{cap}, ElemCount{m_granularity}), 0};
    if (index == m_pages.size()) m_pages.push_back(fresh);
    else m_pages[index] = fresh;
    span = m_pages[index].alloc.allocate(count);
  }
  VOXEN_ASSERT(span.has_value());
  ensure_buffer(index);
  span->buffer = index;
  write(*span, data, count);
  m_uploaded += to_bytes(count, m_stride).value;
  return span;
}

std::optional<Span> ArenaBuffer::replace(Span old, const void* data, ElemCount count) {
  VOXEN_ASSERT(count.value > 0);
  // In place when the new mesh needs exactly the old span's rounded size: nothing else moves.
  if (m_pages[old.buffer].alloc.round_up(count) == old.count) {
    write(old, data, count);
    m_uploaded += to_bytes(count, m_stride).value;
    return old;
  }
  free(old);
  return allocate(data, count);
}

void ArenaBuffer::free(Span span) { m_pages[span.buffer].alloc.free(span.offset); }

void ArenaBuffer::rewrite(Span span, const void* data, ElemCount count) {
  VOXEN_ASSERT((m_pages[span.buffer].alloc.find(span.offset) == Span{span.offset, span.count}));
  write(span, data, count);
  m_rewritten += to_bytes(count, m_stride).value;
}

std::vector<ArenaBuffer::Move> ArenaBuffer::trim() {
  std::vector<Move> moves;
  for (uint32_t index = 0; index < m_pages.size(); ++index) {
    Page& p = m_pages[index];
    const uint64_t used = p.alloc.used().value, cap = p.alloc.capacity().value;
    if (!p.name) continue;
    if (used == 0 && index > 0) {
      // An empty further buffer: deleted, its slot left for the next buffer started.
      glDeleteBuffers(1, &p.name);
      p = Page{ArenaAllocator(ElemCount{0}, ElemCount{m_granularity}), 0};
      ++m_generation;
      continue;
    }
    if (cap <= m_initial || used * 4 >= cap) continue;
    uint64_t target = m_initial;
    while (target < 2 * used) target *= 2;
    target = std::min(target, m_max_elems);
    if (target >= cap) continue;
    // Compact: the live spans packed from 0 in address order into a new, smaller buffer.
    const std::vector<Span> live = p.alloc.live_spans();
    ArenaAllocator packed(ElemCount{target}, ElemCount{m_granularity});
    const GLuint fresh = make_buffer(to_bytes(ElemCount{target}, m_stride), m_dsa);
    uint64_t run_from = 0, run_to = 0, run_len = 0;  // coalesced copies of spans contiguous in both buffers
    for (const Span& s : live) {
      const std::optional<Span> to = packed.allocate(s.count);
      VOXEN_ASSERT(to.has_value() && to->count == s.count);
      if (run_len > 0 && run_from + run_len == s.offset.value && run_to + run_len == to->offset.value) {
        run_len += s.count.value;
      } else {
        copy(p.name, fresh, to_bytes(ElemOffset{run_from}, m_stride).value, to_bytes(ElemOffset{run_to}, m_stride).value,
             to_bytes(ElemCount{run_len}, m_stride).value, m_dsa);
        run_from = s.offset.value, run_to = to->offset.value, run_len = s.count.value;
      }
      if (to->offset != s.offset) moves.push_back({Span{s.offset, s.count, index}, Span{to->offset, to->count, index}});
    }
    copy(p.name, fresh, to_bytes(ElemOffset{run_from}, m_stride).value, to_bytes(ElemOffset{run_to}, m_stride).value,
         to_bytes(ElemCount{run_len}, m_stride).value, m_dsa);
    glDeleteBuffers(1, &p.name);
    p.name = fresh;
    p.alloc = std::move(packed);
    ++m_generation;
    ++m_compactions;
  }
  return moves;
}

}  // namespace voxen::render
