// Caves and ravines of the `default` generator: which underground cells are carved out.
//
// Caves are 3D noise evaluated on a coarse world-aligned lattice of 4 x 8 x 4 blocks (nodes at world x, z
// multiples of 4 and y multiples of 8) and trilinearly interpolated to each cell, after Minecraft's noise caves:
//   - "spaghetti" tunnels: cells where two independent noise fields are both near zero, a^2 + b^2 < r^2 (the
//     intersection of two zero isosurfaces is a winding curve, thickened to a tunnel);
//   - "cheese" caverns: cells where a third, lower-frequency field exceeds a threshold that falls with depth
//     (q = c - threshold(y) > 0), so large rooms become more common deeper down.
// The three fields are interpolated separately (not their combination) so thin tunnels between nodes survive.
// A coarse cell is skipped without visiting its cells when its corners prove no cell inside can be carved
// (trilinear interpolation is a convex combination of the corners, so it cannot leave their range).
//
// Ravines are 2D: where a rare low-frequency mask is high, cells within a few blocks of the zero line of a path
// noise are cut from the surface down to a floor, narrowing with depth (a V-shaped profile).
//
// Pure functions of (seed, coordinates): carved_point() evaluates exactly what the coarse-grid path computes for
// that cell (same nodes, same arithmetic), so features decided from another column agree with the cells.
// Threads: immutable after construction.
#pragma once

#include <cstdint>

#include "noise.h"

namespace voxen::gen {

/// Coarse cave lattice spacing (blocks) and its log2, per axis.
inline constexpr int kCaveShiftXZ = 2, kCaveShiftY = 3;
inline constexpr int kCaveStepXZ = 1 << kCaveShiftXZ, kCaveStepY = 1 << kCaveShiftY;

/// Caverns stay this many blocks below the terrain top (so they do not open wide pits); tunnels may break out.
inline constexpr int kCavernCover = 12;

/// The three cave fields at one lattice node.
struct CaveNode {
  double a, b;  // spaghetti fields: a tunnel where a^2 + b^2 < kTunnelRadius2
  double q;     // cheese field minus its depth threshold: a cavern where q > 0
};

/// A vertical run of cells a ravine removes at one (x, z): y in [bottom, top]; empty when bottom > top.
struct RavineSpan {
  int bottom = 1, top = 0;
  bool empty() const { return bottom > top; }
};

class CaveModel {
 public:
  explicit CaveModel(uint64_t seed);

  /// The node at lattice (i, j, k): world (4i, 8j, 4k).
  CaveNode node(int64_t i, int64_t j, int64_t k) const;

  /// True if no cell inside the coarse cell with these 8 corners can be carved (corner order: index
  /// = dx + 2 dz + 4 dy, each 0 or 1).
  static bool cell_is_solid(const CaveNode corners[8]);

  /// The three fields bilinearly interpolated at offset (fx 0..3, fz 0..3) on the bottom (suffix 0) and top
  /// (suffix 1) faces of a coarse cell; the cells above that offset interpolate between them in y.
  struct Ends {
    double a0, a1, b0, b1, q0, q1;
  };
  static Ends ends(const CaveNode corners[8], int fx, int fz);
  /// The carve test for the cell at height offset fy (0..7) above the bottom face, given that offset's Ends;
  /// caverns count only where `cavern` is true (the generator allows them kCavernCover blocks under the surface).
  static bool carves(const Ends& e, int fy, bool cavern);

  /// Cave shape at one world cell whose column's terrain top is `surface`, without the water limit the generator
  /// adds: exactly the coarse-grid result for that cell (computes its 8 nodes).
  bool carved_point(int64_t x, int64_t y, int64_t z, int surface) const;

  /// The ravine span at world (x, z) whose terrain top is `surface` (world y); may be empty.
  RavineSpan ravine(int64_t x, int64_t z, int surface) const;

 private:
  Fbm3 m_a, m_b, m_cheese;
  Fbm2 m_ravine_mask, m_ravine_path, m_ravine_floor;
};

}  // namespace voxen::gen
