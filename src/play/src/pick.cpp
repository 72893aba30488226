#include "voxen/play/pick.h"

#include <cmath>
#include <limits>

namespace voxen::play {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct BoxHit {
  double t = kInf;
  int face = 0;
};

// Slab-method ray/box test in the box's own frame: ray q + t d (d unit). A hit needs the entry t >= 0 (a ray that
// starts inside the box does not hit it).
BoxHit ray_box(const glm::dvec3& q, const glm::dvec3& d, const Aabb& b) {
  double t_near = -kInf, t_far = kInf;
  int axis = -1;
  for (int a = 0; a < 3; ++a) {
    if (d[a] == 0.0) {
      if (q[a] < b.min[a] || q[a] > b.max[a]) return {};
      continue;
    }
    double t1 = (b.min[a] - q[a]) / d[a], t2 = (b.max[a] - q[a]) / d[a];
    if (t1 > t2) std::swap(t1, t2);
    if (t1 > t_near) {
      t_near = t1;
      axis = a;
    }
    t_far = std::min(t_far, t2);
  }
  if (axis < 0 || t_near > t_far || t_near < 0.0) return {};
  // Entering along +axis means through the box's -axis side (Face 2a + 1), and the other way round.
  return {t_near, d[axis] > 0.0 ? 2 * axis + 1 : 2 * axis};
}

// The nearest hit among one cell's pick boxes; the ray origin is `o` relative to the eye's block and the cell is at
// `local` relative to the same block.
BoxHit hit_cell(const World& world, const BlockRegistry& reg, const BlockPos& eye_block, const glm::dvec3& o,
                const glm::dvec3& d, int64_t lx, int64_t ly, int64_t lz, BlockPos& cell_out) {
  const BlockPos cell{eye_block.x + lx, eye_block.y + ly, eye_block.z + lz};
  if (!y_in_range(cell.y)) return {};
  const Column* col = world.find(column_pos_of(cell));
  if (!col) return {};
  const Cell c = col->get(local_of(cell.x), cell.y, local_of(cell.z));
  if (c.id == kAirId) return {};
  const CellBoxes boxes = pick_boxes(reg[c.id], c.state);
  const glm::dvec3 q = o - glm::dvec3(static_cast<double>(lx), static_cast<double>(ly), static_cast<double>(lz));
  BoxHit best;
  for (int i = 0; i < boxes.count; ++i) {
    const BoxHit h = ray_box(q, d, boxes.box[static_cast<size_t>(i)]);
    if (h.t < best.t) best = h;
  }
  cell_out = cell;
  return best;
}

PickHit make_hit(const BlockPos& cell, const BoxHit& h, const glm::dvec3& o, const glm::dvec3& d, const BlockPos& eye_block) {
  PickHit out;
  out.cell = cell;
  out.face = h.face;
  out.distance = h.t;
  const glm::dvec3 rel(static_cast<double>(cell.x - eye_block.x), static_cast<double>(cell.y - eye_block.y),
                       static_cast<double>(cell.z - eye_block.z));
  out.point = o + d * h.t - rel;
  return out;
}

}  // namespace

glm::ivec3 face_normal(int face) {
  const int f = face < 0 || face > 5 ? 0 : face;
  return {kFaceStep[f][0], kFaceStep[f][1], kFaceStep[f][2]};
}

BlockPos PickHit::adjacent() const {
  const glm::ivec3 n = face_normal(face);
  return {cell.x + n.x, cell.y + n.y, cell.z + n.z};
}

std::optional<PickHit> pick(const World& world, const BlockRegistry& registry, const BlockPos& eye_block,
                            const glm::dvec3& eye_frac, glm::dvec3 dir, double reach) {
  const double len = glm::length(dir);
  if (!(len > 0.0) || !std::isfinite(len) || !(reach > 0.0)) return std::nullopt;
  const glm::dvec3 d = dir / len;
  const glm::dvec3 o = eye_frac;
  int64_t cell[3] = {static_cast<int64_t>(std::floor(o.x)), static_cast<int64_t>(std::floor(o.y)),
                     static_cast<int64_t>(std::floor(o.z))};
  int step[3];
  double t_max[3], t_delta[3];
  for (int a = 0; a < 3; ++a) {
    if (d[a] > 0.0) {
      step[a] = 1;
      t_max[a] = (static_cast<double>(cell[a]) + 1.0 - o[a]) / d[a];
      t_delta[a] = 1.0 / d[a];
    } else if (d[a] < 0.0) {
      step[a] = -1;
      t_max[a] = (static_cast<double>(cell[a]) - o[a]) / d[a];
      t_delta[a] = -1.0 / d[a];
    } else {
      step[a] = 0;
      t_max[a] = kInf;
      t_delta[a] = kInf;
    }
  }
  double t_enter = 0.0;
  while (t_enter <= reach) {
    BlockPos hit_pos;
    const BoxHit h = hit_cell(world, registry, eye_block, o, d, cell[0], cell[1], cell[2], hit_pos);
    if (h.t <= reach) return make_hit(hit_pos, h, o, d, eye_block);
    // Step into the next cell across the nearest cell boundary (Amanatides and Woo).
    int axis = 0;
    if (t_max[1] < t_max[axis]) axis = 1;
    if (t_max[2] < t_max[axis]) axis = 2;
    t_enter = t_max[axis];
    cell[axis] += step[axis];
    t_max[axis] += t_delta[axis];
  }
  return std::nullopt;
}

std::optional<PickHit> pick_reference(const World& world, const BlockRegistry& registry, const BlockPos& eye_block,
                                      const glm::dvec3& eye_frac, glm::dvec3 dir, double reach) {
  const double len = glm::length(dir);
  if (!(len > 0.0) || !std::isfinite(len) || !(reach > 0.0)) return std::nullopt;
  const glm::dvec3 d = dir / len;
  const glm::dvec3 o = eye_frac;
  constexpr double kSample = 0.25;
  BoxHit best;
  BlockPos best_cell{};
  for (double t = 0.0; t <= reach + kSample; t += kSample) {
    const glm::dvec3 p = o + d * t;
    const int64_t cx = static_cast<int64_t>(std::floor(p.x)), cy = static_cast<int64_t>(std::floor(p.y)),
                  cz = static_cast<int64_t>(std::floor(p.z));
    for (int64_t dx = -1; dx <= 1; ++dx)
      for (int64_t dy = -1; dy <= 1; ++dy)
        for (int64_t dz = -1; dz <= 1; ++dz) {
          BlockPos cell;
          const BoxHit h = hit_cell(world, registry, eye_block, o, d, cx + dx, cy + dy, cz + dz, cell);
          if (h.t <= reach && h.t < best.t) {
            best = h;
            best_cell = cell;
          }
        }
  }
  if (best.t == kInf) return std::nullopt;
  return make_hit(best_cell, best, o, d, eye_block);
}

}  // namespace voxen::play
