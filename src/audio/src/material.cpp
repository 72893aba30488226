#include "voxen/audio/material.h"

#include <string>

namespace voxen::audio {
namespace {

constexpr std::array<std::string_view, kMaterials.size()> kNames = {"stone", "dirt",  "sand",  "gravel", "wood",
                                                                   "snow",  "water", "glass", "leaves"};

bool has(std::string_view name, std::string_view word) { return name.find(word) != std::string_view::npos; }

}  // namespace

std::string_view material_name(Material m) { return kNames[static_cast<size_t>(m)]; }

std::optional<Material> material_from_name(std::string_view name) {
  for (size_t i = 0; i < kNames.size(); ++i)
    if (kNames[i] == name) return kMaterials[i];
  return std::nullopt;
}

std::optional<Material> material_of(const BlockDef& block) {
  if (!block.defined || block.is_air()) return std::nullopt;
  if (block.shape == Shape::kFluid) return Material::kWater;
  if (block.shape == Shape::kCross) return Material::kLeaves;
  const std::string_view n = block.name;
  if (has(n, "snow") || has(n, "powder")) return Material::kSnow;
  if (has(n, "glass") || has(n, "ice")) return Material::kGlass;
  if (has(n, "leaves") || has(n, "wool") || has(n, "hay") || n == "moss_block") return Material::kLeaves;
  if (has(n, "gravel")) return Material::kGravel;
  if ((has(n, "sand") && !has(n, "sandstone")) || n == "soul_soil") return Material::kSand;
  for (std::string_view w : {"log", "planks", "wood", "stem", "chest", "table", "bookshelf", "pumpkin", "melon",
                             "note_block"})
    if (has(n, w)) return Material::kWood;
  for (std::string_view w : {"dirt", "grass", "podzol", "mycelium", "clay", "farmland", "mud"})
    if (has(n, w)) return Material::kDirt;
  return Material::kStone;
}

}  // namespace voxen::audio
