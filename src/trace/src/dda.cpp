#include "voxen/trace/dda.h"

#include <cmath>
#include <limits>

namespace voxen::trace {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// The DDA's state: the current cell, each axis's step and the ray.
struct Walk {
  const Ray& ray;
  int64_t cell[3];
  int step[3];
  int face = -1;
  double t = 0;
  uint32_t steps = 0;

  explicit Walk(const Ray& r) : ray(r), cell{r.block.x, r.block.y, r.block.z} {
    for (int i = 0; i < 3; ++i) step[i] = r.dir[i] > 0 ? 1 : (r.dir[i] < 0 ? -1 : 0);
  }
  int64_t origin(int i) const { return i == 0 ? ray.block.x : (i == 1 ? ray.block.y : ray.block.z); }
  /// The t at which the ray leaves cell index `c` along axis i (the closed form both tracers use).
  double leave(int i, int64_t c) const {
    if (step[i] == 0) return kInf;
    const double boundary = static_cast<double>(c - origin(i) + (step[i] > 0 ? 1 : 0));
    return (boundary - ray.frac[i]) / ray.dir[i];
  }
  /// One ordinary step: the axis whose crossing comes first, ties to x, then y, then z. False past max_t.
  bool advance(double max_t) {
    int axis = 0;
    double best = leave(0, cell[0]);
    for (int i = 1; i < 3; ++i) {
      const double ti = leave(i, cell[i]);
      if (ti < best) {
        best = ti;
        axis = i;
      }
    }
    if (!(best <= max_t)) return false;  // also an infinite best: a zero direction
    cell[axis] += step[axis];
    face = axis * 2 + (step[axis] > 0 ? 1 : 0);  // entered through the face looking back along the step
    t = best;
    return true;
  }
  /// Walks through the empty box [lo, lo + size) (per axis) holding the current cell: every crossing inside it
  /// before its exit, then the ordinary step out. False past max_t.
  bool skip_box(const int64_t lo[3], int64_t size, double max_t) {
    int64_t last[3];
    double exit = kInf;
    for (int i = 0; i < 3; ++i) {
      last[i] = step[i] > 0 ? lo[i] + size - 1 : lo[i];
      exit = std::min(exit, leave(i, last[i]));
    }
    for (int i = 0; i < 3; ++i)
      while (cell[i] != last[i] && step[i] != 0 && leave(i, cell[i]) < exit) cell[i] += step[i];
    return advance(max_t);
  }
  BlockPos pos() const { return {cell[0], cell[1], cell[2]}; }
};

}  // namespace

std::optional<TraceHit> trace_cells(const OccupancyMap& map, const Ray& ray, double max_t, Layer layer) {
  Walk w(ray);
  for (;;) {
    ++w.steps;
    if (map.at(w.pos(), layer)) return TraceHit{w.pos(), w.face, w.t, w.steps};
    if (!w.advance(max_t)) return std::nullopt;
  }
}

std::optional<TraceHit> trace_hierarchical(const OccupancyMap& map, const Ray& ray, double max_t, Layer layer) {
  Walk w(ray);
  for (;;) {
    ++w.steps;
    const BlockPos p = w.pos();
    // The section holding the cell (floor division: also above and below the world, where nothing is held).
    const int64_t sy = (p.y - kMinY) >= 0 ? (p.y - kMinY) / kSectionSize : -((kMinY - p.y + kSectionSize - 1) / kSectionSize);
    const int64_t section_lo[3] = {column_of(p.x) * kSectionSize, kMinY + sy * kSectionSize, column_of(p.z) * kSectionSize};
    const SectionOccupancy* sec =
        sy >= 0 && sy < kSectionsPerColumn ? map.section({column_of(p.x), static_cast<int>(sy), column_of(p.z)}) : nullptr;
    const uint64_t bricks = sec ? sec->bricks(layer) : 0;
    if (bricks == 0) {
      if (!w.skip_box(section_lo, kSectionSize, max_t)) return std::nullopt;
      continue;
    }
    const int x = local_of(p.x), y = static_cast<int>(p.y - section_lo[1]), z = local_of(p.z);
    const int b = brick_of(x, y, z);
    if (!((bricks >> b) & 1)) {
      const int64_t brick_lo[3] = {section_lo[0] + (x & ~3), section_lo[1] + (y & ~3), section_lo[2] + (z & ~3)};
      if (!w.skip_box(brick_lo, kBrickSize, max_t)) return std::nullopt;
      continue;
    }
    if (sec->at(layer, x, y, z)) return TraceHit{p, w.face, w.t, w.steps};
    if (!w.advance(max_t)) return std::nullopt;
  }
}

}  // namespace voxen::trace
