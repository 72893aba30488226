// The ray-march store on the GPU (not public; renderer.h uses it): every drawn section's record
// (voxen/trace/section_record.h) in one storage buffer sub-allocated by an ArenaBuffer (64-word spans), and the
// table of 128 x 128 columns x 24 sections that trace_common.glsl reads (layout there). A section's record is built
// when its mesh is set and written into its own span only, so an edit uploads the edited sections' records and
// their table slots, nothing else. The shadow layer comes from the cells (set_cells, called before the mesh).
// Limits: records live in the arena's first buffer (the one bound), at most the GL's storage block size (llvmpipe:
// 128 MiB, about 17,000 sections of the default generator, render distance ~45); a record that does not fit there
// is not traced (the first is logged, all are counted). Two sections 128 columns apart share a table slot: the later one set holds it (logged once).
// Threads: the GL context's thread only.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "voxen/core/coords.h"
#include "voxen/mesh/quad.h"
#include "voxen/render/arena_buffer.h"
#include "voxen/trace/occupancy.h"
#include "voxen/world/section.h"

namespace voxen::render {

class TraceStore {
 public:
  static constexpr int kTableSide = 128;  // columns a side (trace_common.glsl)
  static constexpr size_t kTableWords = size_t{kTableSide} * kTableSide * kSectionsPerColumn * 2;

  /// `max_buffer_bytes`: the largest storage buffer the context allows (0: no limit known).
  TraceStore(const BlockRegistry& registry, bool dsa, uint64_t max_buffer_bytes, std::function<void(const std::string&)> log);
  ~TraceStore();
  TraceStore(const TraceStore&) = delete;
  TraceStore& operator=(const TraceStore&) = delete;

  /// The section's cells now: their shadow layer is used by the next set_section of that section.
  void set_cells(const SectionPos& pos, const Section& cells);
  /// The section's quads now (opaque then cutout, and translucent): builds and uploads its record; both empty
  /// removes it.
  void set_section(const SectionPos& pos, std::span<const mesh::Quad> opaque, std::span<const mesh::FluidQuad> translucent);
  void remove_section(const SectionPos& pos);
  void clear();
  /// Between frames: compacts the arena (moved records get their table slots rewritten), uploads the table's changed
  /// slots, binds the records at storage binding 1 and the table at 2.
  void prepare();
  /// The record words held for a section (empty when none): the CPU copy of what the GPU holds.
  std::span<const uint32_t> record(const SectionPos& pos) const;
  size_t sections() const { return m_sections.size(); }
  uint64_t record_bytes() const { return m_arena->used_bytes().value; }
  uint64_t gpu_bytes() const { return m_arena->capacity_bytes().value + kTableWords * 4; }
  /// Records refused because the store's buffer was full (logged once, at the first).
  uint64_t not_traced() const { return m_not_traced; }
  /// Sections whose set_cells waits for its set_section (or remove_section).
  size_t pending_cells() const { return m_cells.size(); }
  uint64_t bytes_uploaded() const { return m_arena->bytes_uploaded() + m_table_bytes_uploaded; }

 private:
  struct Entry {
    std::vector<uint32_t> words;
    Span span{};
  };
  static size_t slot(const SectionPos& pos);
  static uint32_t tag(const SectionPos& pos);
  void write_slot(const SectionPos& pos, uint32_t value);

  trace::OccupancyTable m_table;
  std::function<void(const std::string&)> m_log;
  std::unique_ptr<ArenaBuffer> m_arena;
  std::unordered_map<SectionPos, Entry, SectionPosHash> m_sections;
  std::unordered_map<SectionPos, trace::SectionOccupancy, SectionPosHash> m_cells;  // set_cells, until set_section
  std::vector<uint32_t> m_slots;  // kTableWords: per slot (record offset + 1, tag)
  size_t m_dirty_lo = SIZE_MAX, m_dirty_hi = 0;  // table words to upload, [lo, hi)
  uint32_t m_table_buffer = 0;
  uint64_t m_table_bytes_uploaded = 0;
  bool m_collision_logged = false;
  uint64_t m_not_traced = 0;
};

}  // namespace voxen::render
