// Occupancy for ray marching (issue 21; the voxelG seed's bit pyramid, the Quantum seed's shadow bricks): which
// cells of the loaded world a ray stops in, as bits at three levels, so a ray skips empty space a brick or a section
// at a time instead of a cell at a time.
//
// Layout (section-local coordinates x, z 0..15 east and south, y 0..15 up from the section's base):
//   - a brick is 4 x 4 x 4 cells, one uint64: bit (y & 3) << 4 | (z & 3) << 2 | (x & 3);
//   - a section holds 64 bricks, brick index (y >> 2) << 4 | (z >> 2) << 2 | (x >> 2), so the cell's bit in the
//     section's 4,096 is brick * 64 + bit: the same x-fastest, y-slowest order as the cells (section_index) within
//     each level;
//   - a section's brick mask is one uint64, bit = brick index, set when the brick has any bit;
//   - a column's section mask is 24 bits (bit = section 0..23, bottom to top), set when the section has any brick.
// Why 4^3 bricks in a uint64 and not 8^3 in 16 words: a section is exactly 4 bricks a side, so a brick never
// straddles two sections and the brick mask is one word; a brick test is one 64-bit load (two 32-bit words in GLSL
// without int64); and empty space is skipped 4 cells at a time instead of 8, which the DDA's jump cost (a few
// comparisons per axis) makes worth it. 512 bytes a layer per non-empty section; an empty section stores nothing.
//
// Three layers: `hit` (any drawn cell: a primary ray stops here and resolves the block's shape in the cell),
// `shadow` (a sun ray stops here: opaque and cutout blocks; translucent ones, water and glass, cast none, nor do
// plants, whose two planes would cast a whole cell's shadow) and `fill`
// (opaque full cubes). A brick whose 64 cells all fill is `full` (a ray stops at its entry face without looking
// inside).
// Threads: a value type; build functions are pure.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "voxen/core/coords.h"
#include "voxen/world/block_registry.h"
#include "voxen/world/column.h"
#include "voxen/world/section.h"

namespace voxen::trace {

inline constexpr int kBrickSize = 4;           // cells a side
inline constexpr int kBricksPerSection = 64;   // 4 x 4 x 4

/// The brick index of section-local cell (x, y, z) (each 0..15) and the cell's bit within that brick.
constexpr int brick_of(int x, int y, int z) { return (y >> 2) << 4 | (z >> 2) << 2 | (x >> 2); }
constexpr int bit_in_brick(int x, int y, int z) { return (y & 3) << 4 | (z & 3) << 2 | (x & 3); }

/// Which layer a ray stops in: `hit` for primary rays, `shadow` for sun rays.
enum class Layer : uint8_t { kHit, kShadow };

/// Which occupancy layers a block sets: a drawn block hits; opaque and cutout blocks shadow; an opaque full cube
/// fills. One entry per registry id (air: none).
class OccupancyTable {
 public:
  explicit OccupancyTable(const BlockRegistry& registry);
  bool hits(uint16_t id) const { return id < m_flags.size() && (m_flags[id] & kHit); }
  bool shadows(uint16_t id) const { return id < m_flags.size() && (m_flags[id] & kShadow); }
  bool fills(uint16_t id) const { return id < m_flags.size() && (m_flags[id] & kFull); }

 private:
  static constexpr uint8_t kHit = 1, kShadow = 2, kFull = 4;
  std::vector<uint8_t> m_flags;
};

/// One section's occupancy (see the file comment).
struct SectionOccupancy {
  std::array<uint64_t, kBricksPerSection> hit{}, shadow{}, fill{};  // bit per cell, per brick
  uint64_t hit_bricks = 0, shadow_bricks = 0;  // bit = brick index: the brick has a hit / shadow bit
  uint64_t full_bricks = 0;                    // bit = brick index: all 64 cells fill (opaque full cubes)
  bool empty() const { return hit_bricks == 0; }
  /// The layer's bricks (bit per cell) and brick mask.
  const std::array<uint64_t, kBricksPerSection>& bits(Layer l) const { return l == Layer::kHit ? hit : shadow; }
  uint64_t bricks(Layer l) const { return l == Layer::kHit ? hit_bricks : shadow_bricks; }
  /// The layer's bit of section-local cell (x, y, z).
  bool at(Layer l, int x, int y, int z) const { return (bits(l)[static_cast<size_t>(brick_of(x, y, z))] >> bit_in_brick(x, y, z)) & 1; }
  friend bool operator==(const SectionOccupancy&, const SectionOccupancy&) = default;
};

/// The occupancy of a section's cells. Cost: one pass over 4,096 cells (a uniform section: one lookup).
SectionOccupancy build_section(const Section& section, const OccupancyTable& table);

/// The occupancy of the loaded world: columns added and removed as they load and unload, cells updated as edits
/// apply. Keyed by column position; a column not held is empty to every query.
class OccupancyMap {
 public:
  explicit OccupancyMap(const OccupancyTable& table) : m_table(table) {}
  /// Builds (or rebuilds) the column's occupancy from its cells.
  void set_column(const Column& column);
  void remove_column(ColumnPos pos);
  /// The cell at world block `p` now holds `cell`: its bit and the masks above it follow (an edit; nothing when
  /// the column is not held or y is out of range).
  void set_cell(const BlockPos& p, Cell cell);
  /// A section's occupancy, or null when its column is not held or it is empty.
  const SectionOccupancy* section(const SectionPos& sp) const;
  /// The column's section mask (bit s: section s has a brick that hits); 0 when not held.
  uint32_t section_mask(ColumnPos pos) const;
  /// The layer's bit of the cell at world block `p` (false outside the held columns and the world's y range).
  bool at(const BlockPos& p, Layer l) const;
  size_t columns() const { return m_columns.size(); }

 private:
  struct ColumnOccupancy {
    std::array<std::unique_ptr<SectionOccupancy>, kSectionsPerColumn> sections;  // null: empty
    uint32_t mask = 0;
  };
  const OccupancyTable& m_table;
  std::unordered_map<ColumnPos, ColumnOccupancy, ColumnPosHash> m_columns;
};

}  // namespace voxen::trace
