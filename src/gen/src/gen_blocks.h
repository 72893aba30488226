// Block ids the `default` generator places, looked up once from the registry by name.
#pragma once

#include <cstdint>
#include <string_view>

#include "voxen/world/block_registry.h"
#include "voxen/world/cell.h"

namespace voxen::gen {

/// Names of every block the default generator places (checked by make_generator before construction).
inline constexpr std::string_view kTerrainBlockNames[] = {
    "stone",       "deepslate",   "bedrock",       "dirt",       "grass_block",  "sand",        "sandstone",
    "gravel",      "snow",        "ice",           "clay",       "water",        "lava",        "magma",
    "oak_log",     "oak_leaves",  "birch_log",     "birch_leaves", "spruce_log", "spruce_leaves", "cactus",
    "tall_grass",  "poppy",       "dandelion",     "coal_ore",   "iron_ore",     "gold_ore",    "diamond_ore"};

/// Names of the blocks structures place (structures.h).
inline constexpr std::string_view kStructureBlockNames[] = {
    "planks", "glass", "oak_stairs", "oak_slab", "oak_log", "cobblestone", "mossy_cobblestone", "gravel",
    "stone_bricks", "mossy_stone_bricks", "stone_brick_stairs", "sandstone", "red_sandstone", "glowstone",
    "red_lamp", "green_lamp", "blue_lamp"};

/// Registry ids of the generator's blocks, and their packed cells (Cell::packed(), state 0: logs stand along y,
/// fluids are full sources).
struct BlockIds {
  uint16_t stone, deepslate, bedrock, dirt, grass, sand, sandstone, gravel, snow, ice, clay, water, lava, magma,
      oak_log, oak_leaves, birch_log, birch_leaves, spruce_log, spruce_leaves, cactus, tall_grass, poppy,
      dandelion, coal_ore, iron_ore, gold_ore, diamond_ore;

  /// Looks every block up; the registry must hold all of kTerrainBlockNames (BlockRegistry::id aborts otherwise).
  explicit BlockIds(const BlockRegistry& r)
      : stone(r.id("stone")), deepslate(r.id("deepslate")), bedrock(r.id("bedrock")), dirt(r.id("dirt")),
        grass(r.id("grass_block")), sand(r.id("sand")), sandstone(r.id("sandstone")), gravel(r.id("gravel")),
        snow(r.id("snow")), ice(r.id("ice")), clay(r.id("clay")), water(r.id("water")), lava(r.id("lava")),
        magma(r.id("magma")), oak_log(r.id("oak_log")), oak_leaves(r.id("oak_leaves")),
        birch_log(r.id("birch_log")), birch_leaves(r.id("birch_leaves")), spruce_log(r.id("spruce_log")),
        spruce_leaves(r.id("spruce_leaves")), cactus(r.id("cactus")), tall_grass(r.id("tall_grass")),
        poppy(r.id("poppy")), dandelion(r.id("dandelion")), coal_ore(r.id("coal_ore")),
        iron_ore(r.id("iron_ore")), gold_ore(r.id("gold_ore")), diamond_ore(r.id("diamond_ore")) {}

  /// Small plants that features may overwrite (cross-shaped, no collision).
  bool is_plant(uint32_t packed) const {
    const uint32_t id = packed & 0xFFFF;
    return id == tall_grass || id == poppy || id == dandelion;
  }
  bool is_leaves(uint32_t packed) const {
    const uint32_t id = packed & 0xFFFF;
    return id == oak_leaves || id == birch_leaves || id == spruce_leaves;
  }
  /// Rock that ores replace.
  bool is_host_rock(uint32_t packed) const {
    const uint32_t id = packed & 0xFFFF;
    return id == stone || id == deepslate;
  }
  /// Terrain that caves and ravines may carve (not bedrock, fluids or ice).
  bool is_carvable(uint32_t packed) const {
    const uint32_t id = packed & 0xFFFF;
    return id == stone || id == deepslate || id == dirt || id == grass || id == sand || id == sandstone ||
           id == gravel || id == snow || id == clay;
  }
};

}  // namespace voxen::gen
