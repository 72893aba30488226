// A column: 16 x 16 blocks in x and z, 384 tall (world y -128..255), as 24 sections of 16^3 cells plus 24
// LightSections. Identified by its ColumnPos (x >> 4, z >> 4).
//
// Space: column-local x and z (0..15) and world y (kMinY..kMaxY), Y up. Section s covers world y
// [section_base_y(s), section_base_y(s) + 15].
// Threads: a Column is owned by one thread at a time (a worker while generating, then the main thread).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "voxen/core/coords.h"
#include "voxen/world/cell.h"
#include "voxen/world/section.h"

namespace voxen {

class Column {
 public:
  explicit Column(ColumnPos pos = {}) : m_pos(pos) {}

  ColumnPos pos() const { return m_pos; }

  /// Cell at column-local x, z (0..15) and world y; y outside kMinY..kMaxY returns air.
  Cell get(int x, int64_t y, int z) const {
    if (!y_in_range(y)) return kAir;
    const int s = section_of_y(y);
    return m_sections[static_cast<size_t>(s)].get(x, static_cast<int>(y - section_base_y(s)), z);
  }
  /// Sets a cell; y must be in range (VOXEN_ASSERT otherwise is the caller's job: callers validate input).
  void set(int x, int64_t y, int z, Cell c) {
    const int s = section_of_y(y);
    m_sections[static_cast<size_t>(s)].set(x, static_cast<int>(y - section_base_y(s)), z, c);
  }
  /// Light at column-local x, z and world y; above the world is full sky (15), below it dark.
  Light light(int x, int64_t y, int z) const {
    if (y > kMaxY) return make_light(15, 0, 0, 0);
    if (y < kMinY) return 0;
    const int s = section_of_y(y);
    return m_light[static_cast<size_t>(s)].get(section_index(x, static_cast<int>(y - section_base_y(s)), z));
  }
  void set_light(int x, int64_t y, int z, Light l) {
    const int s = section_of_y(y);
    m_light[static_cast<size_t>(s)].set(section_index(x, static_cast<int>(y - section_base_y(s)), z), l);
  }

  Section& section(int s) { return m_sections[static_cast<size_t>(s)]; }
  const Section& section(int s) const { return m_sections[static_cast<size_t>(s)]; }
  LightSection& light_section(int s) { return m_light[static_cast<size_t>(s)]; }
  const LightSection& light_section(int s) const { return m_light[static_cast<size_t>(s)]; }

  /// Compacts every section's palette and light storage.
  void compact();
  /// Bytes held by cells (sections) and by light, for memory reports.
  size_t cell_bytes() const;
  size_t light_bytes() const;

  /// 64-bit hash of every cell (id and state) in fixed order (section, then index): equal for equal content,
  /// independent of palette order. With include_light, every light value too.
  uint64_t content_hash(bool include_light = false) const;

 private:
  ColumnPos m_pos;
  std::array<Section, kSectionsPerColumn> m_sections;
  std::array<LightSection, kSectionsPerColumn> m_light;
};

}  // namespace voxen
