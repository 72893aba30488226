#include "voxen/mesh/dirty.h"

#include <algorithm>

namespace voxen::mesh {

std::vector<SectionPos> sections_touching_cell(const BlockPos& pos) {
  std::vector<SectionPos> out;
  if (!y_in_range(pos.y)) return out;
  // Along each axis the cell lies in its own section's box and, when it is on that section's first or last layer,
  // in the neighbour's padding ring too.
  const auto spans = [](int64_t section, int local, int64_t out_of[2]) {
    int n = 0;
    out_of[n++] = section;
    if (local == 0) out_of[n++] = section - 1;
    if (local == 15) out_of[n++] = section + 1;
    return n;
  };
  int64_t xs[2], ys[2], zs[2];
  const int nx = spans(column_of(pos.x), local_of(pos.x), xs);
  const int ny = spans(section_of_y(pos.y), static_cast<int>((pos.y - kMinY) & 15), ys);
  const int nz = spans(column_of(pos.z), local_of(pos.z), zs);
  for (int i = 0; i < nx; ++i)
    for (int j = 0; j < ny; ++j)
      for (int k = 0; k < nz; ++k)
        if (ys[j] >= 0 && ys[j] < kSectionsPerColumn) out.push_back({xs[i], static_cast<int>(ys[j]), zs[k]});
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<SectionPos> sections_dirtied_by(std::span<const Edit> edits, std::span<const SectionPos> light_dirty) {
  std::vector<SectionPos> out(light_dirty.begin(), light_dirty.end());
  for (const Edit& edit : edits) {
    const std::vector<SectionPos> touching = sections_touching_cell(edit.pos);
    out.insert(out.end(), touching.begin(), touching.end());
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<SectionPos> sections_dirtied_by(const Edit& edit, std::span<const SectionPos> light_dirty) {
  return sections_dirtied_by(std::span<const Edit>(&edit, 1), light_dirty);
}

}  // namespace voxen::mesh
