// The culling data of meshed sections (voxen/cull/store.h).
#include "voxen/cull/store.h"

#include <array>
#include <cmath>

namespace voxen::cull {

SectionVisibility section_visibility(const mesh::SectionInput& input, const SightTable& sight) {
  std::array<uint8_t, mesh::kPaddedVolume> blocks;
  bool any = false, all = true;
  for (size_t i = 0; i < blocks.size(); ++i) blocks[i] = sight.blocks(static_cast<uint16_t>(input.cells[i] & 0xFFFFu));
  std::array<uint8_t, kSectionVolume> opaque, exposed;
  for (int y = 0; y < 16; ++y)
    for (int z = 0; z < 16; ++z)
      for (int x = 0; x < 16; ++x) {
        const int p = mesh::padded_index(x, y, z);
        const size_t i = static_cast<size_t>(section_index(x, y, z));
        opaque[i] = blocks[static_cast<size_t>(p)];
        any |= opaque[i] != 0;
        all &= opaque[i] != 0;
        exposed[i] = opaque[i] && !(blocks[static_cast<size_t>(p + 1)] && blocks[static_cast<size_t>(p - 1)] &&
                                    blocks[static_cast<size_t>(p + mesh::kPadded)] && blocks[static_cast<size_t>(p - mesh::kPadded)] &&
                                    blocks[static_cast<size_t>(p + mesh::kPaddedArea)] && blocks[static_cast<size_t>(p - mesh::kPaddedArea)]);
      }
  SectionVisibility v;
  if (!any) return v;
  v.links = all ? FaceLinks{0} : face_links(opaque.data());
  for (int y = 0; y < 16; ++y) {
    bool full = true;
    for (int i = y * 256; i < y * 256 + 256 && full; ++i) full = opaque[static_cast<size_t>(i)] != 0;
    if (full) v.full_layers = static_cast<uint16_t>(v.full_layers | (1u << y));
  }
  v.occluders = find_occluders(opaque.data(), exposed.data());
  return v;
}

void VisibilityStore::set(const SectionPos& pos, SectionVisibility v) {
  m_sections[pos] = std::move(v);
  m_columns[pos.column()] |= 1u << pos.y;
  ++m_version;
}

void VisibilityStore::erase_column(ColumnPos pos) {
  auto it = m_columns.find(pos);
  if (it == m_columns.end()) return;
  for (int y = 0; y < kSectionsPerColumn; ++y)
    if (it->second & (1u << y)) m_sections.erase(SectionPos{pos.x, y, pos.z});
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
  return it == m_columns.end() ? 0u : it->second;
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
