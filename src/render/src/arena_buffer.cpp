#include <epoxy/gl.h>

#include "voxen/render/arena_buffer.h"

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

ElemCount rounded(ElemCount n, ElemCount granularity) {
  return ElemCount{(n.value + granularity.value - 1) / granularity.value * granularity.value};
}

}  // namespace

ArenaBuffer::ArenaBuffer(uint32_t stride, ElemCount initial_capacity, ElemCount granularity, bool dsa)
    : m_alloc(rounded(initial_capacity, granularity), granularity), m_stride(stride), m_dsa(dsa) {
  VOXEN_ASSERT(stride > 0);
}

ArenaBuffer::~ArenaBuffer() {
  if (m_buffer) glDeleteBuffers(1, &m_buffer);
}

void ArenaBuffer::ensure_capacity_for(ElemCount count) {
  const ElemCount cap = m_alloc.grown_capacity_for(count);
  if (m_buffer && cap == m_alloc.capacity()) return;
  const GLuint fresh = make_buffer(to_bytes(cap, m_stride), m_dsa);
  if (m_buffer) {
    // Copy only what live spans cover; the rest of the old buffer holds nothing anyone draws.
    const ByteSize live = to_bytes(m_alloc.high_water(), m_stride);
    if (live.value > 0) {
      if (m_dsa) {
        glCopyNamedBufferSubData(m_buffer, fresh, 0, 0, static_cast<GLsizeiptr>(live.value));
      } else {
        glBindBuffer(GL_COPY_READ_BUFFER, m_buffer);
        glBindBuffer(GL_COPY_WRITE_BUFFER, fresh);
        glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, 0, 0, static_cast<GLsizeiptr>(live.value));
        glBindBuffer(GL_COPY_READ_BUFFER, 0);
        glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
      }
    }
    glDeleteBuffers(1, &m_buffer);
    ++m_grows;
  }
  m_buffer = fresh;
  ++m_generation;
  m_alloc.grow(cap);
}

void ArenaBuffer::write(Span span, const void* data, ElemCount count) {
  VOXEN_ASSERT(count.value <= span.count.value);
  const ByteOffset at = to_bytes(span.offset, m_stride);
  const ByteSize size = to_bytes(count, m_stride);
  if (m_dsa) {
    glNamedBufferSubData(m_buffer, static_cast<GLintptr>(at.value), static_cast<GLsizeiptr>(size.value), data);
  } else {
    glBindBuffer(GL_COPY_WRITE_BUFFER, m_buffer);
    glBufferSubData(GL_COPY_WRITE_BUFFER, static_cast<GLintptr>(at.value), static_cast<GLsizeiptr>(size.value), data);
    glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
  }
  m_uploaded += size.value;
}

Span ArenaBuffer::allocate(const void* data, ElemCount count) {
  VOXEN_ASSERT(count.value > 0);
  if (!m_buffer) ensure_capacity_for(count);
  std::optional<Span> span = m_alloc.allocate(count);
  if (!span) {
    ensure_capacity_for(count);
    span = m_alloc.allocate(count);
    VOXEN_ASSERT(span.has_value());
  }
  write(*span, data, count);
  return *span;
}

Span ArenaBuffer::replace(Span old, const void* data, ElemCount count) {
  VOXEN_ASSERT(count.value > 0);
  // In place when the new mesh needs exactly the old span's rounded size: nothing else moves.
  if (m_alloc.round_up(count) == old.count) {
    write(old, data, count);
    return old;
  }
  m_alloc.free(old.offset);
  return allocate(data, count);
}

void ArenaBuffer::free(Span span) { m_alloc.free(span.offset); }

}  // namespace voxen::render
