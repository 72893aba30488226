#include "voxen/mesh/quad_geometry.h"

#include "voxen/mesh/shapes.h"

namespace voxen::mesh {

namespace {

Corner64 at(int x, int y, int z) { return {static_cast<double>(x), static_cast<double>(y), static_cast<double>(z)}; }

}  // namespace

std::array<Corner64, 4> quad_corners(const QuadFields& f, bool fluid_record) {
  constexpr int kHalf = 32;  // 1/64 units per half-block
  const int ox = f.x * kHalf, oy = f.y * kHalf, oz = f.z * kHalf;
  const int w = f.w * kHalf, h = f.h * kHalf;
  std::array<Corner64, 4> c{};
  switch (f.kind) {
    case QuadKind::kCrossA:
      c = {at(ox, oy, oz), at(ox + w, oy, oz + w), at(ox + w, oy + h, oz + w), at(ox, oy + h, oz)};
      return c;
    case QuadKind::kCrossB:
      c = {at(ox + w, oy, oz), at(ox, oy, oz + w), at(ox, oy + h, oz + w), at(ox + w, oy + h, oz)};
      return c;
    case QuadKind::kSlope: {
      // Corners in +Y order over the cell's x-z square (w along X, h along Z); those on the back side (`face`) are
      // high (low when upside-down, flow bit 0), the others low (high); the rise is one block.
      const bool upside = (f.flow & 1) != 0;
      const FaceAxes& back = kFaceAxes[f.face];
      for (int k = 0; k < 4; ++k) {
        const int ux = (k == 1 || k == 2) ? 1 : 0, vz = (k >= 2) ? 1 : 0;
        const int along = back.axis == 0 ? ux : vz;
        const bool on_back = (back.sign > 0) == (along == 1);
        const bool high = upside ? !on_back : on_back;
        c[static_cast<size_t>(k)] = at(ox + ux * w, oy + (high ? 2 * kHalf : 0), oz + vz * h);
      }
      return c;
    }
    case QuadKind::kAxis:
    case QuadKind::kTriangle:
    default: {
      const FaceAxes& fa = kFaceAxes[f.face % 6];
      for (int k = 0; k < 4; ++k) {
        int p[3] = {ox, oy, oz};
        if (k == 1 || k == 2) p[fa.u] += w;
        if (k >= 2) p[fa.v] += h;
        c[static_cast<size_t>(k)] = at(p[0], p[1], p[2]);
      }
      if (f.kind == QuadKind::kTriangle) {
        // The removed corner collapses onto its neighbour along V: 2 -> 1, 3 -> 0, 1 -> 2, 0 -> 3.
        constexpr int kOnto[4] = {3, 2, 1, 0};
        const int r = f.flow & 3;
        c[static_cast<size_t>(r)] = c[static_cast<size_t>(kOnto[r])];
        return c;
      }
      if (fluid_record && (f.height[0] | f.height[1] | f.height[2] | f.height[3])) {
        for (int k = 0; k < 4; ++k) c[static_cast<size_t>(k)].y = oy + f.height[k];
        if (fa.v == 1) {
          // A side piece: top minus bottom at the U-low end (corners 0, 3) and the U-high end (1, 2). Where one is
          // negative, that end's corners move to the crossing of the two edges, at fraction s along U.
          const double gap_lo = f.height[3] - f.height[0], gap_hi = f.height[2] - f.height[1];
          if ((gap_lo < 0) != (gap_hi < 0)) {
            const double s = gap_lo / (gap_lo - gap_hi);
            Corner64 cross = c[0];
            cross.y = oy + f.height[0] + s * (f.height[1] - f.height[0]);
            (fa.u == 0 ? cross.x : cross.z) += s * w;
            if (gap_lo < 0) c[0] = c[3] = cross;
            else c[1] = c[2] = cross;
          }
        }
      }
      return c;
    }
  }
}

}  // namespace voxen::mesh
