#include "voxen/stream/view.h"

#include <algorithm>
#include <cmath>

#include "voxen/render/camera.h"

namespace voxen::stream {
using render::Camera;
using render::Frustum;

namespace {

// Camera-relative min corner of a column's full-height box.
glm::dvec3 column_min(const Camera& cam, const ColumnPos& c) {
  return cam.relative({c.min_x(), kMinY, c.min_z()});
}

constexpr glm::dvec3 kColumnSize{kColumnWidth, kColumnHeight, kColumnWidth};

}  // namespace

std::vector<ColumnPos> columns_for_view(const Camera& camera, double radius_blocks, bool frustum) {
  const Frustum f = Frustum::from_matrix(camera.view_projection());
  const ColumnPos eye = column_pos_of(camera.block);
  const int64_t reach = static_cast<int64_t>(std::ceil(radius_blocks / kColumnWidth)) + 1;
  struct Entry {
    double d2;
    ColumnPos pos;
  };
  std::vector<Entry> found;
  for (int64_t dx = -reach; dx <= reach; ++dx)
    for (int64_t dz = -reach; dz <= reach; ++dz) {
      const ColumnPos c{eye.x + dx, eye.z + dz};
      const glm::dvec3 mn = column_min(camera, c);
      if (render::footprint_distance(mn.x, mn.z) > radius_blocks) continue;
      if (frustum && !f.intersects_box(mn, kColumnSize)) continue;
      const double cx = mn.x + kColumnWidth / 2.0, cz = mn.z + kColumnWidth / 2.0;
      found.push_back({cx * cx + cz * cz, c});
    }
  std::sort(found.begin(), found.end(), [](const Entry& a, const Entry& b) {
    return a.d2 != b.d2 ? a.d2 < b.d2 : a.pos < b.pos;
  });
  std::vector<ColumnPos> out;
  out.reserve(found.size());
  for (const auto& e : found) out.push_back(e.pos);
  return out;
}

std::vector<ColumnPos> with_neighbour_ring(const std::vector<ColumnPos>& draw) {
  std::vector<ColumnPos> out;
  out.reserve(draw.size() * 2 + 8);
  for (const ColumnPos& c : draw)
    for (int64_t dx = -1; dx <= 1; ++dx)
      for (int64_t dz = -1; dz <= 1; ++dz) out.push_back({c.x + dx, c.z + dz});
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace voxen::stream
