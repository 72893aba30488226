// The mesh arena on the GPU: one GL buffer object holding every section's packed quads, sub-allocated by an
// ArenaAllocator (first fit, in spans of `granularity` elements). After the VoxelBlox seed: a new or changed
// mesh writes only its own span, by byte offset (glNamedBufferSubData / glBufferSubData); nothing else moves.
// When no free block fits, the buffer grows: a new buffer of the doubled capacity is created, the old contents up
// to the allocator's high-water mark are copied on the GPU (glCopyNamedBufferSubData / glCopyBufferSubData), the
// old buffer is deleted, and generation() increases so users can re-bind (e.g. a texture buffer view).
//
// With dsa (OpenGL 4.5) the direct-state-access entry points are used; without (3.3) the bind-to-edit ones on
// GL_COPY_READ_BUFFER / GL_COPY_WRITE_BUFFER, so the arena works on the GL 3.3 fallback path too.
// Threads: the GL context's thread only.
#pragma once

#include <cstdint>
#include <optional>

#include "voxen/render/arena_allocator.h"

namespace voxen::render {

class ArenaBuffer {
 public:
  /// An arena of elements of `stride` bytes (16 opaque quads, 20 translucent quads), starting at
  /// `initial_capacity` elements (rounded up to the granularity; the GL buffer is created on first use).
  ArenaBuffer(uint32_t stride, ElemCount initial_capacity, ElemCount granularity, bool dsa);
  ~ArenaBuffer();
  ArenaBuffer(const ArenaBuffer&) = delete;
  ArenaBuffer& operator=(const ArenaBuffer&) = delete;

  /// Allocates a span for `count` (> 0) elements, growing the buffer if needed, and writes `data`
  /// (count * stride bytes) at its start.
  Span allocate(const void* data, ElemCount count);
  /// Replaces a span's contents: written in place when the new data fits the span's rounded size and would not
  /// fit a smaller span, else the old span is freed and a new one allocated. Returns the span now holding it.
  Span replace(Span old, const void* data, ElemCount count);
  /// Returns a span to the free list (its bytes stay until overwritten; nothing draws them).
  void free(Span span);

  /// The GL buffer name (0 until the first allocation). Changes when the buffer grows.
  uint32_t buffer() const { return m_buffer; }
  /// Increases each time buffer() changes.
  uint64_t generation() const { return m_generation; }
  uint32_t stride() const { return m_stride; }
  /// Bytes of the GL buffer's storage.
  ByteSize capacity_bytes() const { return to_bytes(m_alloc.capacity(), m_stride); }
  /// Bytes held by live spans.
  ByteSize used_bytes() const { return to_bytes(m_alloc.used(), m_stride); }
  const ArenaAllocator& allocator() const { return m_alloc; }
  /// How many times the buffer has grown (each a GPU copy).
  int grow_count() const { return m_grows; }
  /// Bytes written by allocate()/replace() since creation (uploads, not counting growth copies).
  uint64_t bytes_uploaded() const { return m_uploaded; }

 private:
  void ensure_capacity_for(ElemCount count);
  void write(Span span, const void* data, ElemCount count);

  ArenaAllocator m_alloc;
  uint32_t m_stride;
  bool m_dsa;
  uint32_t m_buffer = 0;
  uint64_t m_generation = 0;
  int m_grows = 0;
  uint64_t m_uploaded = 0;
};

}  // namespace voxen::render
