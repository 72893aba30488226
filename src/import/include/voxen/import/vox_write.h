// Writing a region of a voxen World as a MagicaVoxel .vox file (version 150).
//
// Layout written: "VOX " 150, MAIN with children
//   SIZE/XYZI per model: the region is cut into 256^3 tiles in MagicaVoxel axes; every tile holding a non-air
//     cell becomes one model of the tight bounds of its cells (so every model is at most 256^3);
//   nTRN 0 (root) -> nGRP 1 -> per model k: nTRN 2+2k (layer 0, frame _t = the tile's position) -> nSHP 3+2k
//     (model k). The scene graph is written even for one model, so positions survive: reading the file back
//     with VoxAnchor::kScene puts every cell where it was in the world;
//   LAYR 0 "voxen";
//   RGBA: one palette entry per distinct cell (block id and state) in the region, sorted by Cell::packed(),
//     colour = the block's top face colour; at most 255 entries: more is an error that names the count
//     (no quantisation, which would merge blocks);
//   MATL per used entry: _type _diffuse, _glass (translucent blocks, _trans = 1 - alpha) or _emit (emitting
//     blocks, _emit from the brightest emission channel / 15), plus "_voxen_block" = "name:state", which
//     the importer maps back to the same cell.
// Axes: voxen cell (x, y, z) -> MagicaVoxel cell (x, -z - 1, y) (vox_scene.h); translations are int32.
// Threads: reads `world` and `registry` only.
#pragma once

#include <cstdint>
#include <vector>

#include "voxen/core/coords.h"
#include "voxen/core/error.h"
#include "voxen/import/vox_scene.h"
#include "voxen/world/block_registry.h"
#include "voxen/world/world.h"

namespace voxen::import {

struct VoxWriteStats {
  uint32_t models = 0;     // models written
  uint64_t voxels = 0;     // non-air cells written
  uint32_t palette = 0;    // palette entries used
};

/// Writes the inclusive world region [from, to] (any corner order; y is clamped to the world) as .vox bytes.
/// Cells of unloaded columns are air. Errors: more than 255 distinct cells in the region; more than `max_voxels`
/// non-air cells (default kMaxSceneVoxels, the importer's cap: a larger file would not read back); a translation
/// or region extent outside int32.
Result<std::vector<uint8_t>> write_vox(const World& world, const BlockRegistry& registry, const BlockPos& from,
                                       const BlockPos& to, VoxWriteStats* stats = nullptr,
                                       uint64_t max_voxels = kMaxSceneVoxels);

}  // namespace voxen::import
