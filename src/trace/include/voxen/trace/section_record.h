// A section's ray-march record (issue 21): what the GPU ray march reads of one section, as uint32 words, built on
// the CPU from the section's meshes and its occupancy and readable here (SectionRecordView) for the tests. The
// renderer keeps one per drawn section in a storage buffer and rewrites it when the section's mesh changes (an
// edit rewrites only the edited sections' records).
//
// What a primary ray stops at is the mesher's own geometry: each cell with a quad on or in it has the hit bit, and
// the record lists, per such cell, the quads that lie in it (a greedy quad over 8 cells is listed in each). A ray
// that reaches a hit cell intersects those quads exactly as the rasteriser's triangles (same corners, same split),
// so it finds the same surface, with the same light and AO values, as the raster path. The shadow layer is the
// cells' own (occupancy.h: opaque and cutout blocks but plants), so a sun ray stops in exactly the voxel shape.
//
// Layout (words from the record's start; cells section-local x, z 0..15 east and south, y 0..15 up):
//   0, 1   hit brick mask (low, high word): bit b set when brick b (occupancy.h brick_of) has a hit cell
//   2, 3   shadow brick mask
//   4      flags: bit 0 = every one of the 4,096 cells casts a shadow (a ray stops where it enters the section);
//          bits 8-15 hit bricks, bits 16-23 shadow bricks (the two masks' popcounts, 0..64)
//   5      offset of the cell table
//   6      offset of the references
//   7      offset of the quad records
//   8      quad count
//   9 ...  per hit brick, in brick order: 3 words: its 64 cell bits (low, high; bit occupancy.h bit_in_brick) and the
//          hit cells in the bricks before it (so a cell's rank = that + the set bits below its own)
//   then   per shadow brick, in brick order: 2 words (low, high)
//   cell table (word 5): per hit cell, by rank: first reference (bits 0-19, into the reference list that follows
//          the table) | reference count (bits 20-31)
//   references (word 6): quad indices (uint16, two per word, the lower index in the low half)
//   quad records (word 7): 5 words per quad: the mesher's 4 words (quad.h) and word 4 = corner heights (0 for an
//          opaque or cutout quad); word 1 bit 25 = 1 marks a translucent record (drawn blended, both sides).
//          Opaque and cutout quads come first (the renderer's opaque span order), then the translucent ones.
// Which cell a quad lies in (section_record.cpp, quad_cells): the cells its corners' box spans; on the axis where
// that box is flat (an axis face on a cell boundary) the cell behind the face, the one it faces out of.
// Sizes: 9 + 3 * hit bricks + 2 * shadow bricks + hit cells + refs / 2 + 5 * quads words.
// Threads: pure functions; a view reads a span it does not own.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "voxen/mesh/quad.h"
#include "voxen/trace/occupancy.h"

namespace voxen::trace {

inline constexpr uint32_t kRecordHeaderWords = 9;
inline constexpr uint32_t kRecordQuadWords = 5;
inline constexpr uint32_t kRecordTranslucentBit = 1u << 25;  // in a record's word 1
inline constexpr uint32_t kRecordShadowFull = 1u;            // in the header's flags word

/// Builds a section's record from its quads (section-local, quad.h) and, for the shadow layer, its occupancy (null:
/// no cell casts a shadow). Quad `i` of the record is opaque[i] for i < opaque.size(), then the translucent ones.
/// Errors: none; quads whose cells fall outside the section (none the mesher makes) are listed in no cell.
std::vector<uint32_t> build_section_record(std::span<const mesh::Quad> opaque, std::span<const mesh::FluidQuad> translucent,
                                           const SectionOccupancy* occupancy);

/// The cells (section-local, each 0..15) a quad lies in, as described above; `fluid_record` for 20-byte records.
/// Appends to `out` as cell indices y << 8 | z << 4 | x.
void quad_cells(const uint32_t* words, bool fluid_record, std::vector<uint16_t>& out);

/// Reads a record (the layout above). The span must hold a record build_section_record made.
class SectionRecordView {
 public:
  explicit SectionRecordView(std::span<const uint32_t> words) : m_w(words) {}
  /// The layer's bit of section-local cell (x, y, z).
  bool hit(int x, int y, int z) const;
  bool shadow(int x, int y, int z) const;
  /// The quads listed in a cell (empty when its hit bit is clear), in the order they were listed (ascending).
  std::vector<uint16_t> quads(int x, int y, int z) const;
  /// Quad `i`'s five words.
  std::span<const uint32_t> quad(uint32_t i) const { return m_w.subspan(m_w[7] + i * kRecordQuadWords, kRecordQuadWords); }
  uint32_t quad_count() const { return m_w[8]; }
  bool shadow_full() const { return m_w[4] & kRecordShadowFull; }

 private:
  uint64_t mask(int at) const { return m_w[at] | uint64_t{m_w[at + 1]} << 32; }
  std::span<const uint32_t> m_w;
};

}  // namespace voxen::trace
