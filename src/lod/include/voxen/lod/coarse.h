// The far view's coarse terrain path (docs/ARCHITECTURE.md, "Far view (LOD)"): LOD sections built straight from the
// generator's terrain model sampled at their own resolution, without generating the full columns under them
// (generating every column to 8,192 blocks would be ~260,000 columns). Heights, surface and filler blocks, water
// and ice, and tree canopies are approximated as the Mipper (cell.h) would rank them, so a coarse level-L cell
// agrees with the one mipped from full columns (figures: docs/PERFORMANCE.md, "Coarse terrain agreement").
//
// Space: LodSectionPos (section.h); world blocks Y up, y in [kMinY, kMaxY]; cells outside that range are
// background_cell().
// Threads: const methods are safe to call concurrently.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "voxen/lod/cell.h"
#include "voxen/lod/pyramid.h"
#include "voxen/lod/section.h"
#include "voxen/world/block_registry.h"

namespace voxen::gen {
class Generator;
}

namespace voxen::lod {

/// A LOD section's 32^3 cells plus a one-cell border taken from its six same-level face neighbours: 34^3 dense
/// cells, local coordinates -1..32 per axis (the 12 edges and 8 corners of the border are unused and hold air).
/// What the LOD mesher reads (voxen/mesh/lod_mesher.h).
struct PaddedLodSection {
  static constexpr int kSide = 34;
  LodSectionPos pos;
  std::vector<LodCell> cells = std::vector<LodCell>(static_cast<size_t>(kSide) * kSide * kSide);
  /// Index of local cell (x, y, z), each -1..32.
  static constexpr size_t index(int x, int y, int z) {
    return (static_cast<size_t>(y + 1) * kSide + static_cast<size_t>(z + 1)) * kSide + static_cast<size_t>(x + 1);
  }
  LodCell get(int x, int y, int z) const { return cells[index(x, y, z)]; }
  void set(int x, int y, int z, LodCell c) { cells[index(x, y, z)] = c; }
};

/// The inner 32^3 cells of a padded section as a LodSection (bricked, compacted).
LodSection to_section(const PaddedLodSection& padded);

/// Real columns (loaded, saved or edited) win over the coarse path: overwrites every cell of `padded`, inner and
/// border, whose whole footprint lies in columns `find` returns (nullptr: no real column there) with the value the
/// Pyramid would hold for those columns: at levels 0..4 the column's own mip cell (ColumnMips::get); above, the
/// Mipper over the 8 children, recursively down to level 4. A cell over a real column and a missing one keeps its
/// coarse value (levels 5 and up: 2^(L-4) columns a side). Returns the number of cells overwritten. With `real_xz`,
/// it is resized to 34 x 34 and set to 1 where the padded (x, z) (-1..32 each, index (z + 1) * 34 + x + 1; edges and
/// corners 0) took real cells, 0 elsewhere. Any thread.
uint32_t overlay_columns(PaddedLodSection& padded, const std::function<const ColumnMips*(ColumnPos)>& find,
                         const Mipper& mipper, std::vector<uint8_t>* real_xz = nullptr);

class CoarseTerrain {
 public:
  /// For one generator (its seed and kind: "default" or "flat") and the registry its blocks come from; both must
  /// outlive this object.
  CoarseTerrain(const gen::Generator& generator, const BlockRegistry& registry, const Mipper& mipper);
  ~CoarseTerrain();

  /// The level-pos.level LOD section at `pos` with its one-cell border, from the terrain model sampled at that
  /// level's resolution. Pure function of (generator seed and kind, pos). Level 0..kMaxLevels - 1.
  PaddedLodSection build(const LodSectionPos& pos) const;

  /// The whole stack of level-`level` LOD sections at section coordinates (x, z), bottom to top, from one sampling
  /// of the terrain model (build() samples it again per section: 12 times for a level-0 stack). `visit` gets each
  /// section equal to build() of it, except the sections it skips: those whose cells and border cells are all
  /// open air (above every block of the stack) or all wholly in the ground (below its lowest ground, above kMinY),
  /// which mesh to no faces (with `skip` false every section of the stack is visited: a caller that overwrites cells,
  /// overlay_columns, needs them all). The section handed to `visit` is valid only during the call; `visit` must not
  /// call build() or build_stack() on the same thread (they share its scratch: VOXEN_ASSERT).
  void build_stack(int level, int64_t x, int64_t z, const std::function<void(const PaddedLodSection&)>& visit,
                   bool skip = true) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace voxen::lod
