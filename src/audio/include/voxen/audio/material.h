// Surface materials: the classes of block a sound is chosen by (a footstep on sand, digging glass). Every block of
// the registry falls in one class by its definition: fluids are water, plants (cross shape) are leaves, and other
// blocks by words of their name (sand, gravel, snow, glass, ice, leaves, log, planks, dirt, grass, ...), stone
// otherwise. Pure functions.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "voxen/world/block_registry.h"

namespace voxen::audio {

/// The surface classes, each with its own footstep, dig and place sounds.
enum class Material : uint8_t { kStone, kDirt, kSand, kGravel, kWood, kSnow, kWater, kGlass, kLeaves };

/// Every material, in enum order.
inline constexpr std::array<Material, 9> kMaterials = {Material::kStone, Material::kDirt,  Material::kSand,
                                                       Material::kGravel, Material::kWood, Material::kSnow,
                                                       Material::kWater, Material::kGlass, Material::kLeaves};

/// The material's name as used in sound names ("stone", "dirt", "sand", "gravel", "wood", "snow", "water",
/// "glass", "leaves").
std::string_view material_name(Material m);
/// The material of that name (material_name's inverse); nullopt for any other text.
std::optional<Material> material_from_name(std::string_view name);

/// The material a block sounds like. Air (and undefined ids) have none: nullopt. Fluids (shape fluid) are water
/// (lava too: stepping into lava is a splash); plants (shape cross) are leaves; then by the first word of the
/// name that matches, in this order: snow/powder -> snow; glass, ice -> glass; leaves, wool, hay, moss_block ->
/// leaves; gravel -> gravel; sand (not sandstone), soul_soil -> sand; log, planks, wood, stem, chest, table,
/// bookshelf, pumpkin, melon, note_block -> wood; dirt, grass, podzol, mycelium, clay, farmland, mud -> dirt;
/// anything else -> stone.
std::optional<Material> material_of(const BlockDef& block);

}  // namespace voxen::audio
