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

#include "caves.h"
#include "column_work.h"
#include "gen_blocks.h"
#include "surface.h"

namespace voxen::gen {

/// Depth bands of the ores (world y, inclusive): no ore cell lies outside its band.
struct OreBand {
  int min_y, max_y;
};
inline constexpr OreBand kCoalBand{0, 143};
inline constexpr OreBand kIronBand{-64, 63};
inline constexpr OreBand kGoldBand{-96, -33};
inline constexpr OreBand kDiamondBand{-128, -65};

class FeaturePlacer {
 public:
  FeaturePlacer(uint64_t seed, const BlockIds& ids, const CaveModel& caves, const SurfaceRules& surface);

  /// Ore veins: random walks of 3..16 cells from origins hashed per (column, ore, attempt), replacing stone and
  /// deepslate inside the ore's band. Reads the carved cells (ore never fills a cave).
  void place_ores(ColumnWork& w) const;
  /// Tall grass and flowers on grass, cacti on desert sand: per (x, z) of the column, on the carved surface.
  void place_plants(ColumnWork& w) const;
  /// Oak, birch and spruce trees from a jittered 4 x 4-block grid of candidate origins.
  void place_trees(ColumnWork& w) const;

 private:
  struct Tree;
  bool plan_tree(const ColumnWork& w, int64_t gx, int64_t gz, Tree& t) const;
  void write_tree(ColumnWork& w, const Tree& t) const;

  const BlockIds& m_ids;
  const CaveModel& m_caves;
  const SurfaceRules& m_surface;
  uint64_t m_ore_seed, m_plant_seed, m_tree_seed;
};

}  // namespace voxen::gen
