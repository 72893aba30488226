// An imported .vox scene laid over generated terrain (or over an empty world) for `voxen shot --vox`. The scene is
// read, validated and placed once (import::plan_vox_placement, then import::apply_vox_placement into columns of its
// own; its colours registered in the registry) before any column is loaded; a stream::PreparedSource then lays
// those columns' cells over the terrain generator's columns as the streamer loads them (every other column is the
// terrain's alone), so the scene is simply part of the world. `voxen view` draws its scene through the same
// source. The terrain is generated only where the view asks for it; the scene costs its own columns (paletted
// cells) whatever the view.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "voxen/core/coords.h"
#include "voxen/gen/generator.h"
#include "voxen/world/block_registry.h"
#include "voxen/world/column.h"

namespace voxen::app {

/// Where `voxen shot --vox` puts a scene: its bounds centred on at.x / at.z with its lowest cell at at.y, where
/// at.y = nullopt means "on the surface": one above the base terrain's surface at (at.x, at.z) (y 0 without base).
struct VoxOverlayOptions {
  std::string path;
  int64_t x = 0, z = 0;
  std::optional<int64_t> y;
};

/// Parses `voxen shot`'s --vox-at "X,Y,Z" (Y may be `surface`); throws UsageError("--vox-at") when malformed.
VoxOverlayOptions parse_vox_overlay_options(const std::string& path, const std::string& at);

/// Reads and places the scene (--vox-at's `surface` is `base`'s surface, y 0 without base), registers its colours
/// in `registry` (before the renderer, the light table and the mesher's tables are made from it) and returns the
/// columns holding its cells (air elsewhere, no light): what a stream::PreparedSource lays over `base`. Throws
/// RunError naming the file and byte offset on a bad file or a scene that does not fit the world's height.
std::vector<std::unique_ptr<Column>> make_vox_overlay(BlockRegistry& registry, const gen::Generator* base,
                                                      const VoxOverlayOptions& options);

}  // namespace voxen::app
