// Scratch state of the `default` generator while it builds one column: the dense cell buffer, the terrain
// samples of the column and a margin around it, and per-(x, z) results. One per worker thread (thread_local),
// reused from column to column so generation allocates nothing in steady state.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "caves.h"
#include "voxen/core/coords.h"
#include "voxen/gen/structures.h"
#include "voxen/gen/terrain_model.h"

namespace voxen::gen {

/// Terrain samples are taken for the column and this many blocks around it: trees reach 3 blocks across a
/// border and need their origin's slope (one more block).
inline constexpr int kMapMargin = 4;
inline constexpr int kMapWidth = kColumnWidth + 2 * kMapMargin;  // 24

/// Lowest y caves and ravines may reach (above the rough bedrock floor).
inline constexpr int kCarveFloor = kMinY + 5;
/// Under this many blocks of ground next to water nothing is carved (keeps lakes and sea floors sealed).
inline constexpr int kWaterSeal = 4;

/// Lava fills carved cells at or below this world y.
inline constexpr int kLavaLevel = -116;

/// Index of column-local (lx, lz) and world y in the dense buffer: the 24 sections one after another, each in
/// section index order, so section s is cells[s * 4096 .. s * 4096 + 4095] and can be packed directly.
constexpr int cell_index(int lx, int y, int lz) { return ((y - kMinY) << 8) | (lz << 4) | lx; }

/// Surface blocks of one (x, z): top block at the terrain height, `under_depth` blocks of `under` below it,
/// then `deep_depth` blocks of `deep`, then rock.
struct SurfaceLayers {
  uint16_t top = 0, under = 0, deep = 0;
  int under_depth = 0, deep_depth = 0;
};

/// Per (x, z) of the column.
struct StripeInfo {
  int height = 0;     // terrain top (world y) before carving
  int carve_top = 0;  // caves and ravines carve only at or below this y (keeps water and sea floors sealed)
  SurfaceLayers layers;
  bool frozen = false;  // surface water freezes
};

struct ColumnWork {
  ColumnPos pos;
  int64_t x0 = 0, z0 = 0;  // world x, z of local (0, 0)
  /// Samples of world x in [x0 - 4, x0 + 20), z likewise; index map_index(lx, lz) for lx, lz in -4..19.
  std::array<TerrainSample, kMapWidth * kMapWidth> map;
  std::array<StripeInfo, 256> stripes;  // index (lz << 4) | lx
  int top_y = 0;                        // no cell above this world y is anything but air
  std::vector<uint32_t> cells = std::vector<uint32_t>(static_cast<size_t>(kColumnHeight) * 256);
  std::vector<CaveNode> cave_nodes;
  /// The structures whose boxes meet this column (StructurePlanner::find), in the planner's order.
  std::vector<Structure> structures;
  /// What the buffer holds: the serial number of the generator instance that built it (0: nothing yet) and the
  /// column, so repeated surface_y() calls in one column reuse the build.
  uint64_t built_by = 0;
  ColumnPos built_pos;

  static constexpr int map_index(int lx, int lz) { return (lz + kMapMargin) * kMapWidth + (lx + kMapMargin); }
  const TerrainSample& sample(int lx, int lz) const { return map[static_cast<size_t>(map_index(lx, lz))]; }
  /// Largest height difference to the four horizontal neighbours (lx, lz in -3..18).
  int slope(int lx, int lz) const {
    const int h = sample(lx, lz).height;
    int s = 0;
    const int n[4] = {sample(lx - 1, lz).height, sample(lx + 1, lz).height, sample(lx, lz - 1).height,
                      sample(lx, lz + 1).height};
    for (int v : n) s = std::max(s, v > h ? v - h : h - v);
    return s;
  }
  uint32_t& at(int lx, int y, int lz) { return cells[static_cast<size_t>(cell_index(lx, y, lz))]; }
};

}  // namespace voxen::gen
