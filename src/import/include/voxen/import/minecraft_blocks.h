// Minecraft block states to voxen cells, from a data file (data/minecraft_blocks.toml), for Anvil import (issue 17).
//
// File format (TOML):
//   [blocks]                      # Minecraft name (the "minecraft:" namespace left out) = voxen registry block
//   stone = "stone"
//   cave_air = "air"
//   oak_slab = { block = "oak_slab", double = "oak_planks" }   # a slab's type=double becomes the `double` block
//   [map_colors]                  # names with no voxen block: their map colour (minecraft.wiki "Map item format")
//   note_block = "wood"           # -> the fallback block "map_wood" (data/blocks.toml has one per map colour)
// The properties voxen represents are read by what the target block uses (BlockDef::states, cell.h's bit layout):
//   axis   (logs)            axis=x|y|z -> state::make_axis(1|0|2)
//   facing (stairs, slopes)  facing=north|east|south|west -> 0|1|2|3; the tall back side is on that side in both
//   half   (slabs, stairs)   half=top or type=top -> the half bit; type=double -> the `double` block
//   level  (water, lava)     level=0..15 -> level & 7, falling when level >= 8 (Minecraft: 8..15 fall)
// Stair shape (inner/outer corners) has no voxen equivalent: a corner stair keeps its facing (a straight stair).
// A block with waterlogged=true whose voxen block is not solid (a cross, say) becomes a water source: a cell holds
// one block, and the water is what a player sees and swims in. Names absent from [blocks] fall back: to
// "map_<colour>" when [map_colors] knows their colour, else to the registry's "unknown" block; map() says which.
// Errors (load/parse) name the file, the line and the key: a voxen block the registry lacks, a map colour without
// its map_<colour> block, a key that is not a table or string.
// Threads: immutable after load; map() may be called from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "voxen/core/error.h"
#include "voxen/world/block_registry.h"
#include "voxen/world/cell.h"

namespace voxen::import {

/// One Minecraft block state as a chunk's palette writes it: the namespaced name and its properties (string values).
struct MinecraftBlockState {
  std::string name;                                             // e.g. "minecraft:oak_stairs"
  std::vector<std::pair<std::string, std::string>> properties;  // e.g. {"facing", "east"}, {"half", "bottom"}
  /// The property's value, or an empty view when absent.
  std::string_view property(std::string_view key) const;
  /// "minecraft:oak_stairs[facing=east,half=bottom]" with the properties sorted by key: equal for equal states, for
  /// people to read (a name may itself contain "[k=v]", so two states can share it: see key()).
  std::string canonical() const;
  /// An unambiguous identity: every string length-prefixed, the properties sorted by key. Equal exactly for equal
  /// states (the block-state cache and the distinct-state count use it).
  std::string key() const;
};

class MinecraftBlockMap {
 public:
  /// What a block state becomes.
  struct Mapping {
    Cell cell;
    bool fallback = false;  // the name has no voxen block: cell is a map-colour block or "unknown"
  };

  /// Parses a mapping file against a registry. Errors as described above.
  static Result<MinecraftBlockMap> parse(std::string_view text, const std::string& path, const BlockRegistry& registry);
  static Result<MinecraftBlockMap> load(const std::string& path, const BlockRegistry& registry);
  /// $VOXEN_DATA_DIR/minecraft_blocks.toml when set, else the source tree's data/minecraft_blocks.toml (compiled in),
  /// else data/minecraft_blocks.toml in the working directory.
  static Result<MinecraftBlockMap> load_default(const BlockRegistry& registry);

  /// The voxen cell of a block state (rules above).
  Mapping map(const MinecraftBlockState& state) const;
  /// True when the name (namespaced or not) has a [blocks] entry.
  bool has_block(std::string_view name) const;
  /// Number of [blocks] entries.
  size_t size() const { return m_blocks.size(); }

 private:
  struct Target {
    uint16_t id = 0;
    uint16_t double_id = 0;  // type=double
    bool has_double = false;
  };
  const BlockRegistry* m_registry = nullptr;
  std::unordered_map<std::string, Target> m_blocks;        // by name without namespace
  std::unordered_map<std::string, uint16_t> m_map_colour;  // by name without namespace: fallback block id
  uint16_t m_unknown = 0;
  uint16_t m_water = 0;
};

}  // namespace voxen::import
