// Block textures generated in code at start (no asset files, as in VoxelBlox): one 16x16 RGBA8 layer per
// texture name of the registry (BlockRegistry::textures(); layer index = BlockDef::face_texture_index), with a full
// mip chain (16, 8, 4, 2, 1), uploaded by the renderer into one sampler2DArray.
//
// Each texture is a pure function of its name and the colour/transparency/shape of the first block (lowest id,
// then face order) that uses it: patterns are picked by the name's words (stone, dirt, grass_top, grass_side,
// *_log, *_log_top, *_leaves, *_ore, planks, cobblestone, bricks, glass, ice, water, lava, magma, glowstone,
// *_lamp, cactus_*, sand, snow, gravel, ...), cross-shaped plants get plant shapes (blades, flowers, torch), and
// any other name gets a grainy texture of its block's colour. A tinted block's texture (BlockDef::tinted: .vox
// palette colours) is plain white with the colour's alpha, at every mip: the renderer multiplies it by the layer's
// tint (Renderer::set_layer_tint). Noise is hash-based (core/hash.h) and tiles with a period of 16 pixels, so
// world-space texture coordinates repeat seamlessly across merged (greedy) quads.
// Cutout textures have alpha exactly 0 or 255 (leaves have holes); translucent ones take their alpha from the
// block's colour (water, glass, ice). Fully transparent texels carry the texture's mean colour so filtering never
// bleeds black.
// Mips: 2x2 box filter of alpha-weighted colour (transparent texels do not darken their parents).
// Threads: generate_textures is a pure function.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "voxen/render/image.h"
#include "voxen/world/block_registry.h"

namespace voxen::render {

inline constexpr int kTextureSize = 16;      // pixels per side of mip level 0
inline constexpr int kTextureMipLevels = 5;  // 16, 8, 4, 2, 1

/// One texture: its name and RGBA8 pixels for each mip level (level l is (16 >> l)^2 pixels, rows top first).
struct TextureLayer {
  std::string name;
  std::array<std::vector<uint8_t>, kTextureMipLevels> mips;
};

/// All textures of a registry, layer i = registry.textures()[i].
struct TextureSet {
  std::vector<TextureLayer> layers;
};

/// Generates every texture the registry names. Deterministic: the same registry gives the same bytes.
TextureSet generate_textures(const BlockRegistry& registry);

/// A contact sheet of every layer's level 0, `scale` times enlarged, `columns` per row, on a grey checkerboard
/// (so alpha shows). For docs and for looking at the textures.
Image texture_sheet(const TextureSet& set, int scale = 4, int columns = 8);

}  // namespace voxen::render
