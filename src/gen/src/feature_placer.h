// Features of the `default` generator placed after the terrain: ore veins, plants and cacti, trees.
//
// Cross-border rule: a feature is decided entirely at its origin, from hash(seed, origin) and pure functions of
// the origin's coordinates (the terrain sample, the surface rules, the cave shape), never from cells of the
// column being built. A column enumerates every origin whose feature can reach it (its own and those in a
// margin around it: ore veins 3 blocks, trees 3 blocks) in a fixed world order and writes only the cells that
// fall inside itself. So a tree whose trunk stands in one column has the same leaves in the neighbouring column
// whichever column is generated first, or alone.
//
// Threads: const; all state lives in the ColumnWork passed in.
#pragma once

#include <cstdint>
#include <cstdlib>

#include "voxen/core/hash.h"

#include "caves.h"
#include "column_work.h"
#include "gen_blocks.h"
#include "surface.h"
#include "voxen/gen/structures.h"

namespace voxen::gen {

/// Depth bands of the ores (world y, inclusive): no ore cell lies outside its band.
struct OreBand {
  int min_y, max_y;
};
inline constexpr OreBand kCoalBand{0, 143};
inline constexpr OreBand kIronBand{-64, 63};
inline constexpr OreBand kGoldBand{-96, -33};
inline constexpr OreBand kDiamondBand{-128, -65};

/// A planned tree: trunk at world (x, z), logs from y = base up `height` blocks; kind 0 oak, 1 birch, 2 spruce.
struct PlannedTree {
  int64_t x = 0, z = 0;
  int base = 0, height = 0;
  uint8_t kind = 0;
  uint64_t hash = 0;
};

class FeaturePlacer {
 public:
  /// Tree candidates: one per cell of a world-aligned 4 x 4-block grid, at a hashed offset inside the cell.
  static constexpr int kTreeGridShift = 2;
  /// Largest distance (blocks, per axis) a tree's leaves lie from its trunk.
  static constexpr int kTreeReach = 3;

  /// The candidate trunk of tree grid cell (gx, gz).
  void tree_origin(int64_t gx, int64_t gz, int64_t& x, int64_t& z) const;
  /// The decision at the origin of grid cell (gx, gz) from its terrain sample and slope; `check_caves` adds the
  /// cave and ravine tests the generator makes. Shared by place_trees and gen::SurfaceModel.
  bool decide_tree(int64_t gx, int64_t gz, const TerrainSample& s, int slope, bool check_caves, PlannedTree& t) const;
  /// Calls fn(dx, y, dz) for each leaf of the tree (offsets from the trunk, world y), in the generator's order.
  template <class F>
  static void for_each_leaf(const PlannedTree& t, F&& fn);
  /// The plant at world (x, z) over ground block `ground` at terrain sample s: id 0 for none, else the plant and
  /// its height (cacti 1..3, others 1). Shared by place_plants and gen::SurfaceModel.
  void decide_plant(int64_t x, int64_t z, const TerrainSample& s, uint16_t ground, uint16_t& id, int& tall) const;

  /// `structures` (may be null: no structures) suppresses trees near structures (StructurePlanner::tree_blocked);
  /// it must outlive the placer.
  FeaturePlacer(uint64_t seed, const BlockIds& ids, const CaveModel& caves, const SurfaceRules& surface,
                const StructurePlanner* structures = nullptr);

  /// Ore veins: random walks of 3..16 cells from origins hashed per (column, ore, attempt), replacing stone and
  /// deepslate inside the ore's band. Reads the carved cells (ore never fills a cave).
  void place_ores(ColumnWork& w) const;
  /// Tall grass and flowers on grass, cacti on desert sand: per (x, z) of the column, on the carved surface.
  void place_plants(ColumnWork& w) const;
  /// Oak, birch and spruce trees from a jittered 4 x 4-block grid of candidate origins.
  void place_trees(ColumnWork& w) const;

 private:
  bool plan_tree(const ColumnWork& w, int64_t gx, int64_t gz, PlannedTree& t) const;
  void write_tree(ColumnWork& w, const PlannedTree& t) const;

  const BlockIds& m_ids;
  const CaveModel& m_caves;
  const SurfaceRules& m_surface;
  const StructurePlanner* m_structures;
  uint64_t m_ore_seed, m_plant_seed, m_tree_seed;
};

template <class F>
void FeaturePlacer::for_each_leaf(const PlannedTree& t, F&& fn) {
  const int top = t.base + t.height - 1;  // highest log
  HashStream st(t.hash);
  if (t.kind == 2) {
    // Spruce: a cone, a single leaf on top, then alternating narrow and wide rings growing downwards.
    for (int y = top + 1, k = 0; y >= t.base + 2; --y, ++k) {
      int r = (k == 0) ? 0 : (k % 2 == 1 ? 1 : 2);
      if (k >= 5 && k % 2 == 0) r = 3;
      for (int dz = -r; dz <= r; ++dz)
        for (int dx = -r; dx <= r; ++dx) {
          if (std::abs(dx) + std::abs(dz) > r + (r >= 2 ? 1 : 0)) continue;
          if (dx == 0 && dz == 0 && y <= top) continue;
          fn(dx, y, dz);
        }
    }
  } else {
    // Oak and birch: two wide layers (radius 2) below the top log, two narrow ones (radius 1) above; corners
    // are dropped at random, except none survive on the very top.
    for (int dy = -2; dy <= 1; ++dy) {
      const int r = dy <= -1 ? 2 : 1;
      for (int dz = -r; dz <= r; ++dz)
        for (int dx = -r; dx <= r; ++dx) {
          const bool corner = std::abs(dx) == r && std::abs(dz) == r;
          const bool drop = st.next() & 1;  // drawn for every cell so the pattern does not depend on clipping
          if (corner && (dy == 1 || drop)) continue;
          if (dx == 0 && dz == 0 && dy <= 0) continue;
          fn(dx, top + dy, dz);
        }
    }
  }
}

}  // namespace voxen::gen
