// LOD storage: a world section's mip chain, bricks of 8^3 LOD cells and LOD sections of 32^3 (docs/ARCHITECTURE.md,
// "Far view (LOD)").
//
// Mip chain (after Voxy's VoxelizedSection): one world section's 16^3 cells with their light (level 0) and the four
// levels above them inside the section, 8^3, 4^3, 2^3 and 1^3: 4,096 + 585 = 4,681 LOD cells (+14.3%). A level-k
// cell of the chain lies at index kMipOffset[k] + ((y * n + z) * n + x), n = 16 >> k, x, y, z the level-k cell's
// position inside the section (0..n-1): at level 0 that is world::section_index.
//
// LOD section (after Voxy's WorldSection): a fixed 32^3 cells of one level L, so it covers (32 * 2^L)^3 blocks
// (level 0: 32^3, level 4: 512^3, level 5: 1,024^3). Keyed by LodSectionPos{L, x, y, z} in LOD-section units:
// the section holding level-L cell c is c >> 5 per axis (floor division), and the cell's local position is c & 31.
// Cell index inside a section, as world::Section's: (y << 10) | (z << 5) | x.
//
// Storage: a LOD section is uniform (one LodCell, no allocation: air above the ground, rock below it, space no
// column is loaded in) or 64 bricks of 8^3 cells, brick (bx, by, bz) = local cell >> 3 at index by << 4 | bz << 2 | bx.
// A brick is uniform (one value) or paletted: a palette of its distinct LodCells and 512 indices of `bits` bits,
// bits = 1, 2, 4, 8 or 16 (the smallest power of two >= log2(palette size)), so no index straddles a 64-bit word;
// index i sits at bits [i * bits, i * bits + bits) of the little-endian word stream. Bricks keep mixed data local:
// ground, water and the light gradients above them make a few small palettes, and the rest of the section stays
// uniform bricks.
//
// Threads: no internal locking; one writer or many readers at a time.
#pragma once

#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "voxen/core/coords.h"
#include "voxen/lod/cell.h"
#include "voxen/world/section.h"

namespace voxen::lod {

/// First index of each level of a section's mip chain; kMipOffset[5] is the chain's size (4,681).
inline constexpr int kMipOffset[6] = {0, 4096, 4096 + 512, 4096 + 512 + 64, 4096 + 512 + 64 + 8, 4096 + 585};
inline constexpr int kMipCells = kMipOffset[5];

/// One world section's mip chain, levels 0..4 (see the file comment for the layout).
struct SectionMips {
  std::array<LodCell, kMipCells> cells;
  /// Index of level-k cell (x, y, z), each 0..(16 >> k) - 1, in `cells`.
  static constexpr int index(int level, int x, int y, int z) {
    const int n = 16 >> level;
    return kMipOffset[level] + (y * n + z) * n + x;
  }
  LodCell get(int level, int x, int y, int z) const { return cells[static_cast<size_t>(index(level, x, y, z))]; }
};

/// Builds the mip chain of one world section: level 0 is LodCell::make(cell, light) of each of its 4,096 cells,
/// each level above the Mipper over 8 children of the level below. A uniform section with uniform light gives the
/// same value at every level (its fast path). Pure function; any thread.
void mip_section(const Section& cells, const LightSection& light, const Mipper& mipper, SectionMips& out);

/// A LOD section's key: its level and its position in LOD-section units of that level (int64 each; floor
/// division of level-L cell coordinates by 32, so the section covers world blocks [x * (32 << L), (x + 1) * (32 << L))
/// in x, likewise y and z). Never a pointer.
struct LodSectionPos {
  int level = 0;
  int64_t x = 0, y = 0, z = 0;
  friend constexpr bool operator==(const LodSectionPos&, const LodSectionPos&) = default;
  friend constexpr auto operator<=>(const LodSectionPos&, const LodSectionPos&) = default;
  /// World block of the section's lowest corner.
  constexpr BlockPos min_block() const {
    return {x * (int64_t{32} << level), y * (int64_t{32} << level), z * (int64_t{32} << level)};
  }
};

/// The LOD section holding level-`level` cell (cx, cy, cz).
constexpr LodSectionPos lod_section_of(int level, int64_t cx, int64_t cy, int64_t cz) {
  return {level, cx >> 5, cy >> 5, cz >> 5};
}

/// Hash for unordered containers keyed by LOD section (a mix of the four numbers; never a pointer).
struct LodSectionPosHash {
  size_t operator()(const LodSectionPos& s) const noexcept {
    uint64_t h = static_cast<uint64_t>(s.x) * 0x9E3779B97F4A7C15ull ^ static_cast<uint64_t>(s.z) * 0xC2B2AE3D27D4EB4Full ^
                 static_cast<uint64_t>(s.y) * 0x165667B19E3779F9ull ^ static_cast<uint64_t>(s.level) * 0x27D4EB2F165667C5ull;
    h ^= h >> 31;
    return static_cast<size_t>(h * 0xBF58476D1CE4E5B9ull);
  }
};

/// 8^3 LOD cells, uniform or paletted (see the file comment). Cell index (y << 6) | (z << 3) | x, each 0..7.
class LodBrick {
 public:
  static constexpr int kSize = 8;
  static constexpr int kVolume = 512;

  /// A uniform brick of `fill`.
  explicit LodBrick(LodCell fill = {}) : m_uniform(fill), m_nonair(fill.is_air() ? 0 : kVolume) {}

  static constexpr int index(int x, int y, int z) { return (y << 6) | (z << 3) | x; }

  LodCell get(int i) const {
    if (m_bits == 0) return m_uniform;
    const unsigned bit = static_cast<unsigned>(i) * m_bits;
    const uint64_t word = m_data[m_palette_size + (bit >> 6)];
    const uint64_t slot = (word >> (bit & 63u)) & ((uint64_t{1} << m_bits) - 1);
    return LodCell{m_data[slot]};
  }
  /// Sets cell i; returns whether its value changed. A value new to the brick joins the palette (widening the
  /// indices when the palette outgrows 2^bits).
  bool set(int i, LodCell value);
  /// Makes the brick uniform.
  void fill(LodCell value);
  /// Replaces all 512 cells (index order): palette in order of first appearance, the narrowest width.
  void pack(const LodCell* cells);
  /// Writes all 512 cells, index order.
  void unpack(LodCell* out) const;
  /// Drops palette entries no cell uses (keeping the others' order) and narrows the width; uniform when one value
  /// remains.
  void compact();

  bool is_uniform() const { return m_bits == 0; }
  /// The value of a uniform brick (meaningful only when is_uniform()).
  LodCell uniform_value() const { return m_uniform; }
  /// Cells that are not air.
  int nonair() const { return m_nonair; }
  int palette_size() const { return m_palette_size; }
  int bits() const { return m_bits; }
  /// Heap bytes (palette and index words); the object itself is sizeof(LodBrick).
  size_t heap_bytes() const { return m_data.capacity() * sizeof(uint64_t); }
  /// The same value at every index (whatever the representation).
  bool same_cells(const LodBrick& other) const;
  /// The same representation: width, palette (in order) and index words, or the same uniform value.
  bool identical(const LodBrick& other) const;

 private:
  void repack(std::vector<uint64_t> palette, const uint16_t* slots);
  /// The 512 palette indices of a paletted brick.
  void read_slots(uint16_t* slots) const;

  std::vector<uint64_t> m_data;  // empty when uniform; else the palette (m_palette_size values) then 8 * bits words
  LodCell m_uniform;             // the value when uniform
  uint16_t m_palette_size = 1;
  uint16_t m_nonair = 0;
  uint8_t m_bits = 0;
};

/// 32^3 LOD cells of one level: uniform, or 64 bricks (see the file comment). Local cell coordinates 0..31.
class LodSection {
 public:
  static constexpr int kSize = 32;
  static constexpr int kVolume = 32 * 32 * 32;
  static constexpr int kBricks = 64;

  /// A uniform section of `fill`.
  explicit LodSection(LodCell fill = {}) : m_uniform(fill) {}

  /// Brick index of local cell (x, y, z), and the cell's index inside its brick.
  static constexpr int brick_of(int x, int y, int z) { return ((y >> 3) << 4) | ((z >> 3) << 2) | (x >> 3); }
  static constexpr int in_brick(int x, int y, int z) { return LodBrick::index(x & 7, y & 7, z & 7); }

  LodCell get(int x, int y, int z) const {
    return m_bricks.empty() ? m_uniform : m_bricks[static_cast<size_t>(brick_of(x, y, z))].get(in_brick(x, y, z));
  }
  /// Sets a cell; returns whether its value changed. Splits a uniform section into 64 uniform bricks first.
  bool set(int x, int y, int z, LodCell value);
  /// Makes the section uniform.
  void fill(LodCell value);
  /// Replaces brick b (0..63) and returns what changed: the number of cells whose value differs and the faces of
  /// this section (bit 1 << Face) on which such a cell lies.
  struct BrickChange {
    int cells = 0;
    uint8_t faces = 0;
  };
  BrickChange replace_brick(int b, LodBrick brick);
  /// The 64 bricks (index brick_of(x, y, z)); empty when the section is uniform.
  const std::vector<LodBrick>& bricks() const { return m_bricks; }
  /// Compacts the bricks changed since the last call and returns to uniform when every brick holds one same value.
  void compact();

  bool is_uniform() const { return m_bricks.empty(); }
  LodCell uniform_value() const { return m_uniform; }
  /// Cells that are not air; 0 for an empty (all-air) section.
  uint32_t nonair() const;
  /// Bytes held: the object, the brick array and each brick's palette and indices.
  size_t memory_bytes() const;
  bool same_cells(const LodSection& other) const;
  /// The same representation (uniform value, or each brick identical()).
  bool identical(const LodSection& other) const;

  /// The faces of a 32^3 section (bit 1 << Face) that local cell (x, y, z) lies on.
  static uint8_t faces_of(int x, int y, int z);

 private:
  void split();

  std::vector<LodBrick> m_bricks;  // empty when uniform, else kBricks
  LodCell m_uniform;               // the value when uniform
  uint64_t m_dirty = 0;            // bricks set since the last compact()
};

}  // namespace voxen::lod
