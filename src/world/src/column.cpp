#include "voxen/world/column.h"

#include "voxen/core/hash.h"

namespace voxen {

void Column::compact() {
  for (auto& s : m_sections) s.compact();
  for (auto& l : m_light) l.compact();
}

size_t Column::cell_bytes() const {
  size_t n = sizeof(ColumnPos);
  for (const auto& s : m_sections) n += s.memory_bytes();
  return n;
}

size_t Column::light_bytes() const {
  size_t n = 0;
  for (const auto& l : m_light) n += l.memory_bytes();
  return n;
}

uint64_t Column::content_hash(bool include_light) const {
  // A streaming 64-bit hash over (section, index, cell[, light]) in fixed order: uniform sections hash the same
  // as their expanded form because every cell is visited.
  uint64_t h = 0x243F6A8885A308D3ull;
  uint32_t buf[kSectionVolume];
  for (int s = 0; s < kSectionsPerColumn; ++s) {
    m_sections[static_cast<size_t>(s)].unpack(buf);
    const LightSection& ls = m_light[static_cast<size_t>(s)];
    for (int i = 0; i < kSectionVolume; ++i) {
      uint64_t v = buf[i];
      if (include_light) v |= static_cast<uint64_t>(ls.get(i)) << 32;
      h = mix64(h ^ (v + 0x9E3779B97F4A7C15ull));
    }
  }
  return h;
}

}  // namespace voxen
