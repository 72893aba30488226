#include "voxen/play/collision.h"

#include <algorithm>
#include <cmath>

#include "voxen/mesh/shapes.h"

namespace voxen::play {
namespace {

// Boxes of a 2x2x2 sub-cell occupancy (mesh/shapes.h: bit hx | hy << 1 | hz << 2): a full half-layer (4 sub-cells
// at one hy) becomes one box, both layers full one cube, a full row along x or z one box, the rest single
// half-cubes. The union is exactly the occupied sub-cells.
CellBoxes boxes_of_occupancy(uint8_t occ) {
  CellBoxes out;
  if (occ == 0xFF) {
    out.add({{0, 0, 0}, {1, 1, 1}});
    return out;
  }
  for (int hy = 0; hy < 2; ++hy) {
    const double y0 = hy * 0.5, y1 = y0 + 0.5;
    auto bit = [&](int hx, int hz) { return (occ >> mesh::subcell_bit(hx, hy, hz)) & 1; };
    if (bit(0, 0) && bit(1, 0) && bit(0, 1) && bit(1, 1)) {
      out.add({{0, y0, 0}, {1, y1, 1}});
      continue;
    }
    bool used[2][2] = {{false, false}, {false, false}};
    for (int hz = 0; hz < 2; ++hz)
      if (bit(0, hz) && bit(1, hz)) {
        out.add({{0, y0, hz * 0.5}, {1, y1, hz * 0.5 + 0.5}});
        used[0][hz] = used[1][hz] = true;
      }
    for (int hx = 0; hx < 2; ++hx)
      if (!used[hx][0] && !used[hx][1] && bit(hx, 0) && bit(hx, 1)) {
        out.add({{hx * 0.5, y0, 0}, {hx * 0.5 + 0.5, y1, 1}});
        used[hx][0] = used[hx][1] = true;
      }
    for (int hz = 0; hz < 2; ++hz)
      for (int hx = 0; hx < 2; ++hx)
        if (!used[hx][hz] && bit(hx, hz)) out.add({{hx * 0.5, y0, hz * 0.5}, {hx * 0.5 + 0.5, y1, hz * 0.5 + 0.5}});
  }
  return out;
}

}  // namespace

CellBoxes collision_boxes(const BlockDef& def, uint8_t state) {
  if (!def.solid) return {};
  const uint8_t s = static_cast<uint8_t>(state & def.state_mask);
  switch (def.shape) {
    case Shape::kCube:
    case Shape::kSlab:
    case Shape::kStairs: return boxes_of_occupancy(mesh::box_occupancy(def.shape, s));
    case Shape::kSlope: return boxes_of_occupancy(mesh::box_occupancy(Shape::kStairs, s));
    case Shape::kCross: {  // a solid cross (no such block today): its picking box
      CellBoxes out;
      out.add({{0.2, 0.0, 0.2}, {0.8, 0.8, 0.8}});
      return out;
    }
    case Shape::kNone:
    case Shape::kFluid: return {};
  }
  return {};
}

CellBoxes pick_boxes(const BlockDef& def, uint8_t state) {
  if (def.shape == Shape::kNone || def.shape == Shape::kFluid) return {};
  if (def.solid) return collision_boxes(def, state);
  CellBoxes out;
  if (def.shape == Shape::kCross) out.add({{0.2, 0.0, 0.2}, {0.8, 0.8, 0.8}});
  else out.add({{0, 0, 0}, {1, 1, 1}});
  return out;
}

void CollisionWorld::collect(const BlockPos& origin, const Aabb& region, std::vector<Aabb>& out) const {
  const int64_t x0 = static_cast<int64_t>(std::floor(region.min.x)), x1 = static_cast<int64_t>(std::floor(region.max.x));
  const int64_t y0 = static_cast<int64_t>(std::floor(region.min.y)), y1 = static_cast<int64_t>(std::floor(region.max.y));
  const int64_t z0 = static_cast<int64_t>(std::floor(region.min.z)), z1 = static_cast<int64_t>(std::floor(region.max.z));
  const CellBoxes full = [] {
    CellBoxes b;
    b.add({{0, 0, 0}, {1, 1, 1}});
    return b;
  }();
  for (int64_t lx = x0; lx <= x1; ++lx)
    for (int64_t lz = z0; lz <= z1; ++lz) {
      const int64_t wx = origin.x + lx, wz = origin.z + lz;
      const Column* col = m_world.find({column_of(wx), column_of(wz)});
      for (int64_t ly = y0; ly <= y1; ++ly) {
        const int64_t wy = origin.y + ly;
        CellBoxes boxes;
        if (wy > kMaxY) continue;
        if (wy < kMinY || !col) {
          boxes = full;
        } else {
          const Cell c = col->get(local_of(wx), wy, local_of(wz));
          if (c.id == kAirId) continue;
          boxes = collision_boxes(m_registry[c.id], c.state);
        }
        const glm::dvec3 base(static_cast<double>(lx), static_cast<double>(ly), static_cast<double>(lz));
        for (int i = 0; i < boxes.count; ++i) out.push_back(boxes.box[static_cast<size_t>(i)].moved(base));
      }
    }
}

bool CollisionWorld::box_inside_solid(const BlockPos& origin, const Aabb& box, double eps) const {
  const int64_t x0 = static_cast<int64_t>(std::floor(box.min.x)), x1 = static_cast<int64_t>(std::floor(box.max.x));
  const int64_t y0 = static_cast<int64_t>(std::floor(box.min.y)), y1 = static_cast<int64_t>(std::floor(box.max.y));
  const int64_t z0 = static_cast<int64_t>(std::floor(box.min.z)), z1 = static_cast<int64_t>(std::floor(box.max.z));
  for (int64_t lx = x0; lx <= x1; ++lx)
    for (int64_t lz = z0; lz <= z1; ++lz) {
      const int64_t wx = origin.x + lx, wz = origin.z + lz;
      const Column* col = m_world.find({column_of(wx), column_of(wz)});
      if (!col) continue;
      for (int64_t ly = y0; ly <= y1; ++ly) {
        const int64_t wy = origin.y + ly;
        if (!y_in_range(wy)) continue;
        const Cell c = col->get(local_of(wx), wy, local_of(wz));
        if (c.id == kAirId) continue;
        const CellBoxes boxes = collision_boxes(m_registry[c.id], c.state);
        const glm::dvec3 base(static_cast<double>(lx), static_cast<double>(ly), static_cast<double>(lz));
        for (int i = 0; i < boxes.count; ++i)
          if (boxes.box[static_cast<size_t>(i)].moved(base).overlaps(box, eps)) return true;
      }
    }
  return false;
}

double clip_axis(const Aabb& box, int axis, double delta, const std::vector<Aabb>& obstacles) {
  constexpr double kEps = 1e-7;
  const int b = (axis + 1) % 3, c = (axis + 2) % 3;
  for (const Aabb& o : obstacles) {
    if (o.max[b] <= box.min[b] + kEps || o.min[b] >= box.max[b] - kEps) continue;
    if (o.max[c] <= box.min[c] + kEps || o.min[c] >= box.max[c] - kEps) continue;
    if (delta > 0.0 && o.min[axis] >= box.max[axis] - kEps) {
      delta = std::min(delta, o.min[axis] - box.max[axis]);
    } else if (delta < 0.0 && o.max[axis] <= box.min[axis] + kEps) {
      delta = std::max(delta, o.max[axis] - box.min[axis]);
    }
  }
  return delta;
}

glm::dvec3 sweep(Aabb& box, const glm::dvec3& delta, const std::vector<Aabb>& obstacles, bool blocked[3]) {
  glm::dvec3 moved(0.0);
  for (int axis : {1, 0, 2}) {
    const double want = delta[axis];
    const double got = want == 0.0 ? 0.0 : clip_axis(box, axis, want, obstacles);
    blocked[axis] = got != want;
    moved[axis] = got;
    box.min[axis] += got;
    box.max[axis] += got;
  }
  return moved;
}

}  // namespace voxen::play
