// Structures of the `default` generator (docs/ARCHITECTURE.md, "Structures"): villages, towers, ruins and one
// megastructure kind (a stepped ziggurat), each a pure function of (seed, position) like the terrain.
//
// Placement. Two world-aligned grids of square regions: small regions of kRegionSize (256) blocks and mega
// regions of kMegaRegionSize (2048) blocks, keyed by floor division of world x and z (x >> 8, x >> 11). Each
// region holds at most one structure, decided by hash(seed, region x, region z) and the terrain model
// (TerrainModel::sample at a few points): a village on flattish land above sea level, a tower or a ruin on high
// or steep ground, a ziggurat on land in about one mega region in three. A structure's bounding box lies wholly
// inside its region, so a column (16 x 16 blocks, never crossing a region border) meets at most one small and one
// mega structure; a small region that a megastructure's box (plus 16 blocks) touches holds nothing.
//
// Cells. A structure is its bounding box and cell_at(x, y, z, ground): the cell it puts at world (x, y, z) given
// the terrain height `ground` (TerrainSample::height at (x, z), before caves) there, or nothing (the terrain's
// cell stays). The generator calls it for every cell of a column inside the box, after terrain, caves, ores,
// plants and trees, so a structure spanning columns is identical whatever order its columns generate in, on any
// thread. Trees are not planted within kTreeClearance blocks of a structure's footprint (tree_blocked).
//
// Space: world blocks (int64), Y up, y in [kMinY, kMaxY]. Threads: const methods are safe to call concurrently;
// plans are memoised per thread (no locks, no shared mutable state).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "voxen/gen/terrain_model.h"
#include "voxen/world/block_registry.h"
#include "voxen/world/cell.h"

namespace voxen::gen {

/// Kinds of structure. Values are stable (tools print them by name).
enum class StructureKind : uint8_t { kVillage = 0, kTower, kRuin, kZiggurat };

/// "village", "tower", "ruin", "ziggurat".
std::string_view structure_kind_name(StructureKind k);

/// An inclusive box of world blocks.
struct BlockBox {
  int64_t x0 = 0, y0 = 0, z0 = 0, x1 = -1, y1 = -1, z1 = -1;
  bool contains_xz(int64_t x, int64_t z) const { return x >= x0 && x <= x1 && z >= z0 && z <= z1; }
  bool intersects_xz(int64_t ax0, int64_t az0, int64_t ax1, int64_t az1) const {
    return ax0 <= x1 && ax1 >= x0 && az0 <= z1 && az1 >= z0;
  }
};

/// A village house: walls on the inclusive rectangle [x0, x1] x [z0, z1] (world blocks), floor (a top-half
/// slab) at world y `floor`, walls up to floor + 4, a gable roof along x above; the door gap on side `door`
/// (0 north -Z, 1 east +X, 2 south +Z, 3 west -X) at the wall's middle.
struct House {
  int64_t x0 = 0, z0 = 0, x1 = 0, z1 = 0;
  int floor = 0;
  uint8_t door = 0;
};

/// A lamp post at world (x, z): two cobblestone blocks on the ground, then a lamp (block id) on top.
struct LampPost {
  int64_t x = 0, z = 0;
  int ground = 0;  // terrain height under the post (world y)
  uint16_t lamp = 0;
};

/// One planned structure: what StructurePlanner::plan returns. Everything follows from (seed, region).
struct Structure {
  StructureKind kind = StructureKind::kVillage;
  int64_t region_x = 0, region_z = 0;  // region coordinates in its grid (small, or mega for a ziggurat)
  int64_t x = 0, z = 0;                // origin: the centre of its footprint (world blocks)
  int base = 0;                        // world y of its ground floor / base
  uint64_t hash = 0;                   // hash(seed, region): the structure's own random bits
  BlockBox box;                        // every cell it writes lies in here
  // Village parts (empty for other kinds).
  std::vector<House> houses;
  std::vector<LampPost> lamps;
  int64_t street = 8;  // the streets run along x = x +- street and z = z +- street, |offset| <= 3 * street
  // Tower and ruin: square walls of half-width `radius` around (x, z), from the ground to base + height.
  // Ziggurat: half-width `radius` at the base, terraces `step` blocks tall and `step` blocks in, `height` tall.
  int radius = 0, height = 0, step = 0;
};

/// The highest non-air cell a structure puts in one block column: world y and cell; y below kMinY when none.
struct StructureTop {
  int y = -1000;
  Cell cell{};
};

class StructurePlanner {
 public:
  /// Small regions: 256 blocks a side (x >> 8); mega regions: 2048 (x >> 11).
  static constexpr int kRegionShift = 8;
  static constexpr int kMegaRegionShift = 11;
  static constexpr int64_t kRegionSize = int64_t{1} << kRegionShift;
  static constexpr int64_t kMegaRegionSize = int64_t{1} << kMegaRegionShift;
  /// Trees are not planted with a trunk within this many blocks (per axis) of a structure's box.
  static constexpr int kTreeClearance = 4;

  /// For `seed`; the registry must hold the blocks structures use (planks, glass, oak_stairs, oak_slab,
  /// oak_log, cobblestone, gravel, stone_bricks, mossy_stone_bricks, stone_brick_stairs, red_lamp,
  /// green_lamp, blue_lamp, glowstone; make_generator checks them). The registry must outlive the planner.
  StructurePlanner(uint64_t seed, const BlockRegistry& registry);
  ~StructurePlanner();

  /// The structure of small region (rx, rz), or none. Pure function of (seed, rx, rz). Cost: about 10-30
  /// terrain samples (20-60 us) the first time on a thread, then a lookup in the thread's memo.
  std::optional<Structure> plan(int64_t rx, int64_t rz) const;
  /// The ziggurat of mega region (mx, mz), or none. Pure function of (seed, mx, mz).
  std::optional<Structure> plan_mega(int64_t mx, int64_t mz) const;

  /// Appends every structure whose box meets the rectangle [x0, x1] x [z0, z1] (world blocks, inclusive) to
  /// `out`, mega structures first, then small ones, each group by region z then x (a fixed world order). An
  /// empty or wrapped rectangle finds nothing.
  void find(int64_t x0, int64_t z0, int64_t x1, int64_t z1, std::vector<Structure>& out) const;

  /// The y range [lo, hi] (world y, inside the box and the world) that `s` may write in block column (x, z)
  /// with terrain height `ground`; lo > hi when it writes nothing there. cell_at is false outside it.
  void span(const Structure& s, int64_t x, int64_t z, int ground, int& lo, int& hi) const;

  /// The cell structure `s` puts at world (x, y, z) where the terrain height (before caves) is `ground`; false
  /// when it puts nothing there (the terrain's cell stays). Air counts as a cell (a house's interior).
  bool cell_at(const Structure& s, int64_t x, int64_t y, int64_t z, int ground, Cell& out) const;

  /// The highest non-air cell `s` puts in the block column (x, z) with terrain height `ground`.
  StructureTop top_at(const Structure& s, int64_t x, int64_t z, int ground) const;

  /// Whether a tree with its trunk at world (x, z) is suppressed: within kTreeClearance of a structure's box.
  bool tree_blocked(int64_t x, int64_t z) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace voxen::gen
