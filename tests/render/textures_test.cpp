// Procedural textures: one layer per registry texture, deterministic, with the alpha each transparency needs,
// tileable noise, and a correct mip chain.
#include <gtest/gtest.h>

#include "voxen/render/textures.h"
#include "voxen/world/block_registry.h"

using namespace voxen;
using namespace voxen::render;

namespace {

const BlockRegistry& registry() {
  static const BlockRegistry reg = [] {
    auto r = BlockRegistry::load_default();
    EXPECT_TRUE(r.ok());
    return std::move(r).value();
  }();
  return reg;
}

const TextureLayer& layer_of(const TextureSet& set, const char* block, int face) {
  return set.layers[registry()[registry().id(block)].face_texture_index[static_cast<size_t>(face)]];
}

int count_alpha(const std::vector<uint8_t>& px, uint8_t a) {
  int n = 0;
  for (size_t i = 3; i < px.size(); i += 4) n += px[i] == a;
  return n;
}

TEST(Textures, OneLayerPerRegistryTextureWithAFullMipChain) {
  const TextureSet set = generate_textures(registry());
  ASSERT_EQ(set.layers.size(), registry().textures().size());
  for (size_t i = 0; i < set.layers.size(); ++i) {
    EXPECT_EQ(set.layers[i].name, registry().textures()[i]);
    for (int l = 0; l < kTextureMipLevels; ++l) {
      const size_t side = static_cast<size_t>(kTextureSize >> l);
      EXPECT_EQ(set.layers[i].mips[static_cast<size_t>(l)].size(), side * side * 4) << set.layers[i].name << " level " << l;
    }
  }
}

TEST(Textures, AreDeterministic) {
  const TextureSet a = generate_textures(registry());
  const TextureSet b = generate_textures(registry());
  ASSERT_EQ(a.layers.size(), b.layers.size());
  for (size_t i = 0; i < a.layers.size(); ++i) EXPECT_EQ(a.layers[i].mips, b.layers[i].mips) << a.layers[i].name;
}

TEST(Textures, AlphaFollowsTransparency) {
  const TextureSet set = generate_textures(registry());
  constexpr int kPixels = kTextureSize * kTextureSize;
  // Opaque blocks: every texel opaque.
  for (const char* b : {"stone", "dirt", "oak_log", "planks", "diamond_ore"})
    EXPECT_EQ(count_alpha(layer_of(set, b, kFacePosX).mips[0], 255), kPixels) << b;
  // Cutout leaves: only 0 or 255, with holes (some of each).
  const auto& leaves = layer_of(set, "oak_leaves", kFacePosY).mips[0];
  const int holes = count_alpha(leaves, 0), solid = count_alpha(leaves, 255);
  EXPECT_EQ(holes + solid, kPixels);
  EXPECT_GT(holes, kPixels / 10);
  EXPECT_GT(solid, kPixels / 2);
  // Cross plants: mostly transparent background.
  EXPECT_GT(count_alpha(layer_of(set, "poppy", kFacePosY).mips[0], 0), kPixels / 2);
  // Translucent water: the registry colour's alpha (0xa0) on every texel.
  EXPECT_EQ(count_alpha(layer_of(set, "water", kFacePosY).mips[0], 0xa0), kPixels);
}

TEST(Textures, GrassSideHasTurfOnTopAndDirtBelow) {
  const TextureSet set = generate_textures(registry());
  const auto& px = layer_of(set, "grass_block", kFacePosX).mips[0];
  // Row 0 (top) is green-dominated, the bottom row is the dirt colour (red > green).
  for (int x = 0; x < kTextureSize; ++x) {
    const uint8_t* top = &px[static_cast<size_t>(x) * 4];
    const uint8_t* bottom = &px[static_cast<size_t>((kTextureSize - 1) * kTextureSize + x) * 4];
    EXPECT_GT(top[1], top[0]) << "x " << x;
    EXPECT_GT(bottom[0], bottom[1]) << "x " << x;
  }
}

TEST(Textures, MipLevelsAverageTheirParents) {
  const TextureSet set = generate_textures(registry());
  const auto& l0 = layer_of(set, "stone", kFacePosY).mips[0];
  const auto& l1 = layer_of(set, "stone", kFacePosY).mips[1];
  // Opaque texture: level 1 texel (x, y) = rounded mean of level 0 texels (2x..2x+1, 2y..2y+1).
  for (int y = 0; y < kTextureSize / 2; ++y)
    for (int x = 0; x < kTextureSize / 2; ++x)
      for (int c = 0; c < 3; ++c) {
        int sum = 0;
        for (int k = 0; k < 4; ++k) sum += l0[static_cast<size_t>(((2 * y + k / 2) * kTextureSize + 2 * x + k % 2) * 4 + c)];
        EXPECT_NEAR(l1[static_cast<size_t>((y * kTextureSize / 2 + x) * 4 + c)], sum / 4.0, 0.51);
      }
  // The last level is one texel.
  EXPECT_EQ(layer_of(set, "stone", kFacePosY).mips[kTextureMipLevels - 1].size(), 4u);
}

TEST(Textures, DifferentTexturesDiffer) {
  const TextureSet set = generate_textures(registry());
  EXPECT_NE(layer_of(set, "stone", 0).mips[0], layer_of(set, "cobblestone", 0).mips[0]);
  EXPECT_NE(layer_of(set, "oak_log", kFacePosX).mips[0], layer_of(set, "oak_log", kFacePosY).mips[0]);
}

}  // namespace
