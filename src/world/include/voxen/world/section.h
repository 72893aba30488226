// A section: 16^3 cells in paletted storage (after Minecraft's paletted containers and Voxy's serializer).
//
// Space: section-local x, y, z each 0..15, Y up; cell index = section_index(x, y, z) = (y << 8) | (z << 4) | x.
// Storage:
//   - uniform: the palette holds one cell and there are no indices (a section of air or stone costs a few bytes);
//   - otherwise: a palette of distinct cells (packed as Cell::packed()) and 4096 indices of `bits` bits each,
//     bits = ceil(log2(palette size)) (1..12), packed densely little-endian into 64-bit words; an index may
//     straddle two words (one padding word at the end keeps the two-word read in bounds).
// The palette grows when set() brings a new cell: the index width is widened and indices repacked, past 256
// entries too (up to 4096). Entries no longer used stay until compact() (which also returns to uniform when
// only one cell remains). Two sections with the same cells compare equal whatever their palettes' order.
//
// Threads: no internal locking; one writer or many readers at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "voxen/core/coords.h"
#include "voxen/world/cell.h"

namespace voxen {

class Section {
 public:
  /// A uniform section of `fill` (air by default).
  explicit Section(Cell fill = kAir);

  /// Cell at a section-local index (0..4095).
  Cell get(int index) const { return Cell::from_packed(m_palette[palette_index(index)]); }
  Cell get(int x, int y, int z) const { return get(section_index(x, y, z)); }
  /// Sets a cell, growing the palette (and index width) if the cell is new to this section.
  void set(int index, Cell c);
  void set(int x, int y, int z, Cell c) { set(section_index(x, y, z), c); }
  /// Makes the section uniform.
  void fill(Cell c);

  /// Writes all 4096 cells, index order, into out[4096] (Cell::packed values).
  void unpack(uint32_t* out) const;
  /// Writes every cell's palette index (into palette()), index order, into out[4096]; all 0 when uniform.
  void indices(uint16_t* out) const;
  /// Replaces the contents with 4096 packed cells (index order), building a minimal palette.
  void pack(const uint32_t* in);

  /// Replaces the contents with a given palette (Cell::packed values, distinct, 1..4096 entries) and 4096 indices
  /// into it (index order), kept as given: the importer's path (an Anvil section's palette, mapped and deduplicated)
  /// without pack()'s search. Entries no index uses stay until compact(), as after set().
  void assign(std::vector<uint32_t> palette, const uint16_t* indices);

  /// Drops unused palette entries and narrows the index width; becomes uniform if one cell remains.
  void compact();

  bool is_uniform() const { return m_bits == 0; }
  /// True if every cell is air (uniform air).
  bool is_empty() const { return m_bits == 0 && m_palette[0] == 0; }
  /// Palette entries as Cell::packed() values (for serialisation and tests).
  const std::vector<uint32_t>& palette() const { return m_palette; }
  /// Bits per index (0 when uniform).
  int bits() const { return m_bits; }
  /// Bytes this section holds on the heap and inline (palette + indices + object), for memory reports.
  size_t memory_bytes() const;

  /// Same cells at every index.
  bool same_cells(const Section& other) const;

 private:
  uint32_t palette_index(int index) const {
    if (m_bits == 0) return 0;
    const uint64_t bit = static_cast<uint64_t>(index) * static_cast<uint64_t>(m_bits);
    const uint64_t w = bit >> 6;
    const unsigned s = static_cast<unsigned>(bit & 63);
    uint64_t v = m_words[w] >> s;
    if (s + static_cast<unsigned>(m_bits) > 64) v |= m_words[w + 1] << (64 - s);
    return static_cast<uint32_t>(v & ((uint64_t{1} << m_bits) - 1));
  }
  void write_index(int index, uint32_t value);
  void store_indices(const uint16_t* indices);  // m_bits and m_words from m_palette's size and 4096 indices
  void resize_bits(int new_bits);
  int find_or_add(uint32_t packed);

  std::vector<uint32_t> m_palette;  // at least one entry
  std::vector<uint64_t> m_words;    // empty when uniform; else ceil(4096 * bits / 64) + 1 words
  int m_bits = 0;
};

/// Light for one section, 4096 Light values (see cell.h for the 16-bit layout), index as Section.
/// Uniform (one value, no allocation) until a cell differs: sections of open sky or deep rock stay small.
class LightSection {
 public:
  explicit LightSection(Light fill = 0) : m_uniform(fill) {}
  LightSection(const LightSection& o) { *this = o; }
  LightSection& operator=(const LightSection& o);
  LightSection(LightSection&&) noexcept = default;
  LightSection& operator=(LightSection&&) noexcept = default;

  Light get(int index) const { return m_dense.empty() ? m_uniform : m_dense[static_cast<size_t>(index)]; }
  void set(int index, Light l) {
    if (m_dense.empty()) {
      if (l == m_uniform) return;
      m_dense.assign(kSectionVolume, m_uniform);
    }
    m_dense[static_cast<size_t>(index)] = l;
  }
  void fill(Light l) { m_dense.clear(); m_dense.shrink_to_fit(); m_uniform = l; }
  /// Returns to uniform storage if every value is the same.
  void compact();
  bool is_uniform() const { return m_dense.empty(); }
  /// The uniform value (meaningful only when is_uniform()).
  Light uniform_value() const { return m_uniform; }
  /// Dense values (4096) or nullptr when uniform.
  const Light* dense() const { return m_dense.empty() ? nullptr : m_dense.data(); }
  Light* dense_mut();
  size_t memory_bytes() const { return sizeof(*this) + m_dense.capacity() * sizeof(Light); }
  bool operator==(const LightSection& o) const;

 private:
  std::vector<Light> m_dense;  // empty, or 4096 values
  Light m_uniform = 0;
};

}  // namespace voxen
