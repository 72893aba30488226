// An imported .vox scene laid over generated terrain (or over an empty world), as a gen::Generator, so every
// command that streams a world from a generator (`voxen shot --vox`) shows the scene with no other change: the
// streamer generates, lights and meshes the columns as usual, and the scene's cells are simply part of them.
//
// The scene is read, validated and placed once (import::plan_vox_placement; its colours registered in the
// registry) before any column is generated; generate() then writes the base terrain and the scene's cells of that
// column. Threads: generate() and surface_y() only read the prepared tables, so they are safe on any thread like
// every Generator.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "voxen/core/coords.h"
#include "voxen/gen/generator.h"
#include "voxen/import/vox_place.h"
#include "voxen/world/block_registry.h"

namespace voxen::app {

class VoxOverlayGenerator : public gen::Generator {
 public:
  /// `base` may be null (an empty world: air everywhere except the scene).
  VoxOverlayGenerator(std::unique_ptr<gen::Generator> base, const import::VoxPlacement& placement,
                      const std::array<Cell, 256>& cells);
  void generate(Column& out) const override;
  /// The higher of the base terrain's surface and the scene's top cell at (x, z); kMinY - 1 where neither has one.
  int64_t surface_y(int64_t x, int64_t z) const override;
  std::string_view name() const override { return m_name; }
  uint64_t seed() const override { return m_base ? m_base->seed() : 0; }

  /// Inclusive world bounds of the scene's cells.
  BlockPos min() const { return m_min; }
  BlockPos max() const { return m_max; }
  uint64_t placed_voxels() const { return m_placed; }

 private:
  struct Entry {
    uint8_t x, z;  // column-local
    int16_t y;     // world y
    Cell cell;
  };
  std::unique_ptr<gen::Generator> m_base;
  std::string m_name;
  std::unordered_map<ColumnPos, std::vector<Entry>, ColumnPosHash> m_cells;
  std::unordered_map<ColumnPos, std::array<int16_t, 256>, ColumnPosHash> m_top;  // per column-local x + 16 z
  BlockPos m_min{}, m_max{};
  uint64_t m_placed = 0;
};

/// Where `voxen shot --vox` puts a scene: its bounds centred on at.x / at.z with its lowest cell at at.y, where
/// at.y = nullopt means "on the surface": one above the base terrain's surface at (at.x, at.z) (y 0 without base).
struct VoxOverlayOptions {
  std::string path;
  int64_t x = 0, z = 0;
  std::optional<int64_t> y;
};

/// Parses `voxen shot`'s --vox-at "X,Y,Z" (Y may be `surface`); throws UsageError("--vox-at") when malformed.
VoxOverlayOptions parse_vox_overlay_options(const std::string& path, const std::string& at);

/// Reads and places the scene, registers its colours in `registry` (before the renderer, the light table and the
/// mesher's tables are made from it) and wraps `base`. Throws RunError naming the file and byte offset on a bad
/// file or a scene that does not fit the world's height.
std::unique_ptr<VoxOverlayGenerator> make_vox_overlay(BlockRegistry& registry, std::unique_ptr<gen::Generator> base,
                                                      const VoxOverlayOptions& options);

}  // namespace voxen::app
