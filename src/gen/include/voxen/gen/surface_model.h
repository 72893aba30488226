// The `default` generator's per-(x, z) decisions, exposed for the far view's coarse terrain path
// (voxen/lod/coarse.h), which builds far LOD cells from the terrain model without generating full columns.
// Every function here is the very code the column builder runs (terrain_generator.cpp, surface.cpp,
// feature_placer.cpp call the same functions), so a caller that feeds it exact terrain samples gets exactly the
// generator's blocks, except what is not modelled here: caves, ravines and ore veins (all underground, plus the
// rare cave mouth that opens the surface).
//
// Space: world blocks, Y up. Threads: const methods are safe to call concurrently.
#pragma once

#include <cstdint>
#include <memory>
#include <type_traits>

#include "voxen/gen/structures.h"
#include "voxen/gen/terrain_model.h"
#include "voxen/world/block_registry.h"

namespace voxen::gen {

/// The blocks of one (x, z) stripe: top block at `height`, `under_depth` blocks of `under` below it, then
/// `deep_depth` of `deep`, then rock (deepslate below y = -8, stone from 0, dithered between, bedrock floor).
struct StripeSurface {
  int height = 0;  // world y of the top terrain block
  uint16_t top = 0, under = 0, deep = 0;
  int under_depth = 0, deep_depth = 0;
  bool frozen = false;  // water at sea level is ice
};

/// A tree as the feature placer plants it: trunk at world (x, z), logs from y = base to base + height - 1.
struct TreeSite {
  int64_t x = 0, z = 0;
  int base = 0, height = 0;
  uint16_t log = 0, leaves = 0;  // block ids
  uint8_t kind = 0;              // 0 oak, 1 birch, 2 spruce
  uint64_t hash = 0;             // drives the dropped leaf corners
};

class SurfaceModel {
 public:
  /// Tree candidates lie one per world-aligned 4 x 4-block grid cell: grid cell (gx, gz) = (x >> 2, z >> 2).
  static constexpr int kTreeGridShift = 2;
  /// Farthest a tree's leaves reach from its trunk, blocks per axis.
  static constexpr int kTreeReach = 3;

  /// For `seed`; the registry must hold every block of the default generator (make_generator checks it; this
  /// aborts through BlockRegistry::id otherwise). The registry must outlive the model.
  SurfaceModel(uint64_t seed, const BlockRegistry& registry);
  ~SurfaceModel();

  const TerrainModel& terrain() const;
  /// The generator's structure planner (the far view draws structures from their own cells through it).
  const StructurePlanner& structures() const;

  /// The stripe at world (x, z) whose terrain sample is `s` and whose slope (largest height step to a
  /// 4-neighbour, blocks) is `slope`: exactly the generator's surface layers and freezing.
  StripeSurface stripe(int64_t x, int64_t z, const TerrainSample& s, int slope) const;

  /// The generated block id (state 0) at world y of a stripe before caves, ores and features: bedrock floor,
  /// rock, soil layers, top block, water up to sea level (ice on top when frozen), air. y outside
  /// [kMinY, kMaxY] is air.
  uint16_t block(int64_t x, int64_t y, int64_t z, const StripeSurface& st) const;

  /// The plant the generator puts on the stripe at (x, z) (tall grass, a flower, or a cactus of `height` blocks
  /// from y = st.height + 1); id 0 when none. Ignores caves (the generator reads the carved ground).
  struct Plant {
    uint16_t id = 0;
    int height = 0;
  };
  Plant plant(int64_t x, int64_t z, const TerrainSample& s, const StripeSurface& st) const;

  /// The blocks a ravine removes at (x, z) (world y in [bottom, top], empty when bottom > top), as the generator
  /// carves them: the ravine shape at the stripe's height, above the carve floor, and never within 4 blocks under
  /// the ground where water lies within 2 blocks (`lowest_nearby`: the lowest terrain height within 2 blocks in x
  /// and z, the stripe's own included). A ravine that is not sealed reaches the surface: the stripe's top is then
  /// bottom - 1. Ravines never reach the lava level.
  struct Cut {
    int bottom = 1, top = 0;
    bool any = false;  // the ravine shape is there (even where sealed): no tree grows on it
    bool empty() const { return bottom > top; }
  };
  Cut ravine(int64_t x, int64_t z, int height, int lowest_nearby) const;

  /// The candidate trunk position of tree grid cell (gx, gz), from hash(seed, gx, gz).
  void tree_origin(int64_t gx, int64_t gz, int64_t& x, int64_t& z) const;

  /// Whether grid cell (gx, gz) grows a tree, given the terrain sample and slope at its origin (tree_origin):
  /// the feature placer's decision. `check_caves` adds the cave and ravine tests at the origin (a few
  /// microseconds); without them a tree over a cave mouth is kept. Fills `out` when it returns true.
  bool plan_tree(int64_t gx, int64_t gz, const TerrainSample& origin, int slope, bool check_caves, TreeSite& out) const;

  /// Calls emit(x, y, z, id, is_log) for every block the tree writes, in the generator's order (leaves, then
  /// logs); the generator writes a leaf only into air or a plant, a log into air, a plant or leaves.
  template <class F>
  void tree_blocks(const TreeSite& t, F&& emit) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
  /// Leaf offsets of a tree (dx, y, dz), written by the same code as the generator's (feature_placer.cpp).
  void tree_leaves(const TreeSite& t, void (*fn)(void*, int, int, int), void* ctx) const;
};

template <class F>
void SurfaceModel::tree_blocks(const TreeSite& t, F&& emit) const {
  using Fn = std::remove_reference_t<F>;
  struct Ctx {
    Fn* f;
    const TreeSite* t;
  } ctx{&emit, &t};
  tree_leaves(t, [](void* p, int dx, int y, int dz) {
    auto* c = static_cast<Ctx*>(p);
    (*c->f)(c->t->x + dx, y, c->t->z + dz, c->t->leaves, false);
  }, &ctx);
  for (int y = t.base; y <= t.base + t.height - 1; ++y) emit(t.x, y, t.z, t.log, true);
}

}  // namespace voxen::gen
