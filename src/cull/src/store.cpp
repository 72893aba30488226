// The culling data of meshed sections (voxen/cull/store.h).
#include "voxen/cull/store.h"

#include <array>
#include <cmath>

namespace voxen::cull {

SectionVisibility section_visibility(const mesh::SectionInput& input, const SightTable& sight) {
  // Opacity as bit rows: rows[y + 1][z + 1] bit x + 1 for padded x, y, z in -1..16.
  std::array<std::array<uint32_t, mesh::kPadded>, mesh::kPadded> rows{};
  for (int y = 0; y < mesh::kPadded; ++y)
    for (int z = 0; z < mesh::kPadded; ++z) {
      uint32_t r = 0;
      const size_t row = static_cast<size_t>(y * mesh::kPaddedArea + z * mesh::kPadded);
      for (int x = 0; x < mesh::kPadded; ++x)
        r |= static_cast<uint32_t>(sight.blocks(static_cast<uint16_t>(input.cells[row + static_cast<size_t>(x)] & 0xFFFFu))) << x;
      rows[static_cast<size_t>(y)][static_cast<size_t>(z)] = r;
    }
  constexpr uint32_t kInner = 0x1FFFEu;  // padded x 1..16: the section's own cells
  std::array<uint8_t, kSectionVolume> opaque, exposed;
  SectionVisibility v;
  bool any = false, all = true;
  for (int y = 1; y <= 16; ++y) {
    bool layer_full = true;
    for (int z = 1; z <= 16; ++z) {
      const uint32_t o = rows[static_cast<size_t>(y)][static_cast<size_t>(z)];
      // Opaque cells whose six neighbours are all opaque are not exposed.
      const uint32_t buried = o & (o << 1) & (o >> 1) & rows[static_cast<size_t>(y)][static_cast<size_t>(z - 1)] &
                              rows[static_cast<size_t>(y)][static_cast<size_t>(z + 1)] &
                              rows[static_cast<size_t>(y - 1)][static_cast<size_t>(z)] &
                              rows[static_cast<size_t>(y + 1)][static_cast<size_t>(z)];
      const uint32_t inner = o & kInner, shown = inner & ~buried;
      any |= inner != 0;
      all &= inner == kInner;
      layer_full &= inner == kInner;
      const size_t base = static_cast<size_t>(section_index(0, y - 1, z - 1));
      for (int x = 0; x < 16; ++x) {
        opaque[base + static_cast<size_t>(x)] = (inner >> (x + 1)) & 1u;
        exposed[base + static_cast<size_t>(x)] = (shown >> (x + 1)) & 1u;
      }
    }
    if (layer_full) v.full_layers = static_cast<uint16_t>(v.full_layers | (1u << (y - 1)));
  }
  if (!any) return v;
  v.links = all ? FaceLinks{0} : face_links(opaque.data());
  v.occluders = find_occluders(opaque.data(), exposed.data());
  return v;
}

void VisibilityStore::set(const SectionPos& pos, SectionVisibility v) {
  ColumnEntry& c = m_columns[pos.column()];
  c.sections |= 1u << pos.y;
  c.full_layers[static_cast<size_t>(pos.y)] = v.full_layers;
  m_sections[pos] = std::move(v);
  ++m_version;
}

void VisibilityStore::erase_column(ColumnPos pos) {
  auto it = m_columns.find(pos);
  if (it == m_columns.end()) return;
  for (int y = 0; y < kSectionsPerColumn; ++y)
    if (it->second.sections & (1u << y)) m_sections.erase(SectionPos{pos.x, y, pos.z});
  m_columns.erase(it);
  ++m_version;
}

void VisibilityStore::clear() {
  m_sections.clear();
  m_columns.clear();
  ++m_version;
}

const SectionVisibility* VisibilityStore::find(const SectionPos& pos) const {
  auto it = m_sections.find(pos);
  return it == m_sections.end() ? nullptr : &it->second;
}

uint32_t VisibilityStore::sections_of(ColumnPos pos) const {
  auto it = m_columns.find(pos);
  return it == m_columns.end() ? 0u : it->second.sections;
}

bool VisibilityStore::clear_around(const BlockPos& eye, const glm::dvec3& frac, double radius,
                                   const std::function<bool(const SectionPos&)>& in_view) const {
  // The eye relative to the eye's section's min corner; sections within `radius` of it.
  const int64_t ecx = column_of(eye.x), ecz = column_of(eye.z);
  const int64_t ey = floor_div(eye.y - kMinY, kSectionSize);
  const glm::dvec3 e(static_cast<double>(eye.x & 15) + frac.x, static_cast<double>(floor_mod(eye.y - kMinY, kSectionSize)) + frac.y,
                     static_cast<double>(eye.z & 15) + frac.z);
  const int reach = static_cast<int>(std::ceil(radius / kSectionSize)) + 1;
  const auto box_distance = [&](const glm::dvec3& lo, const glm::dvec3& hi) {
    const glm::dvec3 gap = glm::max(glm::max(lo - e, e - hi), glm::dvec3(0.0));
    return glm::length(gap);
  };
  for (int dy = -reach; dy <= reach; ++dy) {
    const int64_t sy = ey + dy;
    if (sy < 0 || sy >= kSectionsPerColumn) continue;
    for (int dz = -reach; dz <= reach; ++dz)
      for (int dx = -reach; dx <= reach; ++dx) {
        const glm::dvec3 base(dx * 16.0, dy * 16.0, dz * 16.0);
        if (box_distance(base, base + 16.0) > radius) continue;
        const SectionPos pos{static_cast<int64_t>(static_cast<uint64_t>(ecx) + static_cast<uint64_t>(dx)), static_cast<int>(sy),
                             static_cast<int64_t>(static_cast<uint64_t>(ecz) + static_cast<uint64_t>(dz))};
        if (!in_view(pos)) continue;
        const SectionVisibility* v = find(pos);
        if (v == nullptr || v->full_layers == 0xFFFF) return false;  // unknown, or opaque throughout
        for (const OccluderBox& b : v->occluders) {
          const glm::dvec3 lo = base + glm::dvec3(b.x, b.y, b.z);
          if (box_distance(lo, lo + glm::dvec3(b.sx, b.sy, b.sz)) <= radius) return false;
        }
      }
  }
  return true;
}

}  // namespace voxen::cull
