// The mesh arena on the GPU: GL buffer objects holding every section's packed quads, each sub-allocated by its own
// ArenaAllocator (first fit, in spans of `granularity` elements). After VoxelBlox: a new or changed mesh
// writes only its own span, by byte offset (glNamedBufferSubData / glBufferSubData); nothing else moves.
//
// Growth, up to a limit. No buffer is ever larger than `max_buffer_bytes` (the renderer passes the smallest of
// the GL limits that apply to how it reads the arena: GL_MAX_SHADER_STORAGE_BLOCK_SIZE for the SSBO of the
// multi-draw path, 4 * GL_MAX_TEXTURE_BUFFER_SIZE for the R32UI texture-buffer view of the per-chunk path, and
// the gl_VertexID range; or a lower override), rounded down to whole spans. A request goes to the first buffer
// (by index) with a free block that fits; if none has one, the lowest buffer that can still double (clamped to
// the limit) to take it grows: a new GL buffer of the larger capacity is created, the old contents up to the
// allocator's high-water mark are copied on the GPU (glCopyNamedBufferSubData / glCopyBufferSubData) and the old
// buffer deleted; if every buffer is at the limit, a further buffer is started (at the initial capacity). Spans
// say which buffer holds them (Span::buffer); the renderer draws each buffer's spans with their own draw call.
//
// Shrinking (trim(), which the renderer calls at the start of a frame, never from allocate/replace/free, so an
// edit moves no other mesh): a buffer other than the first that holds nothing is deleted; a buffer whose live
// spans fill less than a quarter of its capacity (and that is larger than the initial capacity) is compacted
// into a new buffer of the smallest capacity initial * 2^k that is at least twice its live elements, the live
// spans packed from offset 0 in address order (GPU copies). So after a trim every buffer's capacity is at most
// four times its live bytes, or the initial capacity; right after a compaction a buffer is between a quarter and
// half full, so it neither grows nor shrinks again at once.
//
// generation() increases each time any buffer's GL name changes so users can re-bind (e.g. texture-buffer views).
// With dsa (OpenGL 4.5) the direct-state-access entry points are used; without (3.3) the bind-to-edit ones on
// GL_COPY_READ_BUFFER / GL_COPY_WRITE_BUFFER, so the arena works on the GL 3.3 fallback path too.
// Threads: the GL context's thread only.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "voxen/render/arena_allocator.h"

namespace voxen::render {

class ArenaBuffer {
 public:
  /// An arena of elements of `stride` bytes (16 opaque quads, 20 translucent quads). Each buffer starts at
  /// `initial_capacity` elements (rounded up to the granularity, clamped to the limit; the first GL buffer is
  /// created on first use) and grows to at most `max_buffer_bytes` (0: no limit but the gl_VertexID range).
  ArenaBuffer(uint32_t stride, ElemCount initial_capacity, ElemCount granularity, bool dsa,
              ByteSize max_buffer_bytes = ByteSize{0});
  ~ArenaBuffer();
  ArenaBuffer(const ArenaBuffer&) = delete;
  ArenaBuffer& operator=(const ArenaBuffer&) = delete;

  /// Allocates a span for `count` (> 0) elements, growing a buffer or starting another if needed, and writes
  /// `data` (count * stride bytes) at its start. nullopt (nothing changed) when `count` rounded up to the
  /// granularity exceeds max_buffer_elements(): no buffer may hold it.
  std::optional<Span> allocate(const void* data, ElemCount count);
  /// Replaces a span's contents: written in place when the new data needs exactly the span's rounded size, else
  /// the old span is freed and a new one allocated. Returns the span now holding it; nullopt when `count` exceeds
  /// max_buffer_elements() (the old span is freed then).
  std::optional<Span> replace(Span old, const void* data, ElemCount count);
  /// Returns a span to its buffer's free list (its bytes stay until overwritten; nothing draws them).
  void free(Span span);
  /// Writes `data` over the first `count` elements of a live span (count <= its size), e.g. the same quads in
  /// another order. Counted in bytes_rewritten(), not bytes_uploaded().
  void rewrite(Span span, const void* data, ElemCount count);

  /// A span moved by trim(): where it was and where it is now (same buffer, same count).
  struct Move {
    Span from, to;
  };
  /// Deletes empty buffers and compacts sparse ones (rules above). Returns every span that moved.
  std::vector<Move> trim();

  /// Buffer slots (a deleted buffer leaves an empty slot, reused by the next buffer started).
  uint32_t buffer_count() const { return static_cast<uint32_t>(m_pages.size()); }
  /// The GL buffer name of slot `index` (0 when the slot holds none yet).
  uint32_t buffer(uint32_t index) const { return m_pages[index].name; }
  /// Buffers that exist (GL names).
  uint32_t live_buffer_count() const;
  /// Increases each time any buffer's GL name changes (created, grown, compacted, deleted).
  uint64_t generation() const { return m_generation; }
  uint32_t stride() const { return m_stride; }
  /// The most elements one buffer may hold (the byte limit over the stride, in whole spans).
  ElemCount max_buffer_elements() const { return ElemCount{m_max_elems}; }
  /// Capacity and live bytes of one slot.
  ByteSize buffer_capacity_bytes(uint32_t index) const { return to_bytes(m_pages[index].alloc.capacity(), m_stride); }
  ByteSize buffer_used_bytes(uint32_t index) const { return to_bytes(m_pages[index].alloc.used(), m_stride); }
  /// Bytes of every GL buffer's storage together.
  ByteSize capacity_bytes() const;
  /// Bytes held by live spans.
  ByteSize used_bytes() const;
  /// Each existing GL buffer's size as GL reports it (GL_BUFFER_SIZE), by slot; 0 for an empty slot.
  std::vector<uint64_t> gl_buffer_sizes() const;
  /// How many times a buffer has grown (each a GPU copy), and how many compactions trim() made.
  int grow_count() const { return m_grows; }
  int compact_count() const { return m_compactions; }
  /// Bytes written by allocate()/replace() since creation (uploads, not counting growth copies).
  uint64_t bytes_uploaded() const { return m_uploaded; }
  /// Bytes written by rewrite() since creation.
  uint64_t bytes_rewritten() const { return m_rewritten; }

 private:
  struct Page {
    ArenaAllocator alloc;
    uint32_t name = 0;  // GL buffer, 0 until created (or after deletion)
  };
  void ensure_buffer(uint32_t index);
  void resize(uint32_t index, ElemCount capacity);
  void write(Span span, const void* data, ElemCount count);
  std::optional<uint64_t> growth_for(const Page& page, ElemCount count) const;

  std::vector<Page> m_pages;
  uint32_t m_stride;
  uint64_t m_granularity;
  uint64_t m_initial;    // elements
  uint64_t m_max_elems;  // elements
  bool m_dsa;
  uint64_t m_generation = 0;
  int m_grows = 0;
  int m_compactions = 0;
  uint64_t m_uploaded = 0;
  uint64_t m_rewritten = 0;
};

}  // namespace voxen::render
