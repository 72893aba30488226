// Layer tints (Renderer::set_layer_tint, issue 21's palette recolour as a buffer write), in-process on the headless
// EGL context: a small generated scene of tinted blocks (.vox palette colours: an opaque cube, a glass wall, a second
// opaque block left alone) over stone, drawn on each path (multi-draw indirect, per-chunk, ray march). After the
// tints of two layers are set, the frame equals, byte for byte, the frame of a renderer whose registry has those
// colours to begin with (the same block ids and meshes): the tint is the whole colour. Tinted textures are plain
// white with the colour's alpha at every mip; untinted layers hold white; a layer past the renderer's is refused.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "voxen/import/vox_place.h"
#include "voxen/light/rules.h"
#include "voxen/mesh/baked.h"
#include "voxen/render/renderer.h"
#include "voxen/render/textures.h"
#include "voxen/stream/source.h"
#include "voxen/stream/streamer.h"
#include "gl_suite.h"

using namespace voxen;
using namespace voxen::render;

namespace {

using render_test::kHeight;
using render_test::kWidth;

constexpr import::VoxRgba kCubeColour{200, 40, 40, 255};     // opaque, recoloured
constexpr import::VoxRgba kGlassColour{40, 80, 220, 255};    // glass (alpha 128), recoloured
constexpr import::VoxRgba kKeptColour{30, 200, 90, 255};     // opaque, never recoloured
constexpr import::VoxRgba kCubeRecolour{20, 180, 230, 255};
constexpr import::VoxRgba kGlassRecolour{240, 200, 20, 255};

uint32_t argb(const import::VoxRgba& c) { return 0xFF000000u | uint32_t{c.r} << 16 | uint32_t{c.g} << 8 | c.b; }

import::VoxMaterial glass() {
  import::VoxMaterial m;
  m.present = true;
  m.type = import::VoxMaterialType::kGlass;
  m.trans = 0.5f;
  return m;
}

// A registry with the three palette blocks (in this order: the same ids whatever their colours), a world of one
// drawn column (a stone floor at y 63, the cube, the glass wall and the kept block on it) and its ring, and a
// renderer holding its meshes.
struct TintScene {
  BlockRegistry registry;
  uint16_t cube = 0, glass_wall = 0, kept = 0;
  std::unique_ptr<light::LightTable> light;
  std::unique_ptr<mesh::BakedBlocks> baked;
  std::unique_ptr<Renderer> renderer;
  World world;
  std::unique_ptr<stream::PreparedSource> source;
  std::unique_ptr<stream::ColumnStreamer> streamer;

  static std::unique_ptr<TintScene> make(const render_test::GlSuite& s, const import::VoxRgba& cube_colour,
                                         const import::VoxRgba& glass_colour) {
    auto t = std::make_unique<TintScene>();
    t->registry = s.registry;
    auto add = [&](const BlockDef& def) {
      auto id = t->registry.add(def);
      EXPECT_TRUE(id.ok()) << def.name;
      return id.ok() ? *id : uint16_t{0};
    };
    t->cube = add(import::vox_block_def(cube_colour, {}));
    t->glass_wall = add(import::vox_block_def(glass_colour, glass()));
    t->kept = add(import::vox_block_def(kKeptColour, {}));
    t->light = std::make_unique<light::LightTable>(t->registry);
    auto baked = mesh::BakedBlocks::bake(t->registry);
    EXPECT_TRUE(baked.ok());
    if (!baked.ok()) return nullptr;
    t->baked = std::make_unique<mesh::BakedBlocks>(std::move(baked).value());
    RendererOptions ro;
    ro.trace = true;  // the ray-march path needs the store
    auto r = Renderer::create(*s.platform, t->registry, ro);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
    if (!r.ok()) return nullptr;
    t->renderer = std::move(r).value();

    std::vector<std::unique_ptr<Column>> columns;
    const Cell stone{t->registry.id("stone"), 0};
    for (int64_t cx = -1; cx <= 1; ++cx)
      for (int64_t cz = -1; cz <= 1; ++cz) {
        auto col = std::make_unique<Column>(ColumnPos{cx, cz});
        for (int x = 0; x < 16; ++x)
          for (int z = 0; z < 16; ++z) col->set(x, 63, z, stone);
        if (cx == 0 && cz == 0) {
          for (int x = 3; x <= 5; ++x)
            for (int y = 64; y <= 66; ++y)
              for (int z = 5; z <= 7; ++z) col->set(x, y, z, Cell{t->cube, 0});
          for (int x = 6; x <= 10; ++x)
            for (int y = 64; y <= 65; ++y) col->set(x, y, 10, Cell{t->glass_wall, 0});
          for (int z = 3; z <= 4; ++z) col->set(11, 64, z, Cell{t->kept, 0});
        }
        columns.push_back(std::move(col));
      }
    t->source = std::make_unique<stream::PreparedSource>(std::move(columns), nullptr);
    t->streamer = std::make_unique<stream::ColumnStreamer>(t->world, *t->renderer, *t->source, *t->light, *t->baked, *s.pool);
    auto loaded = t->streamer->load_view({ColumnPos{0, 0}});
    EXPECT_TRUE(loaded.ok());
    if (!loaded.ok()) return nullptr;
    return t;
  }

  uint16_t layer(uint16_t block) const { return registry[block].face_texture_index[0]; }

  Image draw(RenderPath path) {
    EXPECT_TRUE(renderer->set_path(path)) << to_string(path);
    Camera cam = Camera::at({8, 69, 17}, glm::dvec3(0.5, 0.25, 0.5));
    cam.yaw_deg = -10.0;  // looking north (-Z), a little west
    cam.pitch_deg = -35.0;
    cam.aspect = static_cast<double>(kWidth) / kHeight;
    FrameParams fp;
    fp.camera = cam;
    fp.fog_end = 48.0;
    renderer->render(fp);
    return renderer->read_pixels();
  }
};

size_t differing_pixels(const Image& a, const Image& b) {
  size_t n = 0;
  for (size_t i = 0; i < a.pixel_count(); ++i)
    for (size_t c = 0; c < 4; ++c)
      if (a.pixels[i * 4 + c] != b.pixels[i * 4 + c]) {
        ++n;
        break;
      }
  return n;
}

class LayerTint : public render_test::SharedGlTest<render_test::kNoGenerator> {};

TEST_F(LayerTint, ARecolouredLayerDrawsWhatThatColourDrawsOnEveryPath) {
  auto before = TintScene::make(*s_shared, kCubeColour, kGlassColour);
  auto fresh = TintScene::make(*s_shared, kCubeRecolour, kGlassRecolour);
  ASSERT_NE(before, nullptr);
  ASSERT_NE(fresh, nullptr);
  // The same ids and layers in both registries: only the colours differ.
  ASSERT_EQ(before->cube, fresh->cube);
  ASSERT_EQ(before->layer(before->cube), fresh->layer(fresh->cube));
  ASSERT_EQ(before->layer(before->glass_wall), fresh->layer(fresh->glass_wall));
  ASSERT_NE(before->layer(before->cube), before->layer(before->glass_wall));
  EXPECT_EQ(before->renderer->layer_tint(before->layer(before->cube)), argb(kCubeColour));
  EXPECT_EQ(before->renderer->layer_tint(before->layer(before->kept)), argb(kKeptColour));
  EXPECT_EQ(before->renderer->layer_tint(before->layer(before->registry.id("stone"))), 0xFFFFFFFFu);

  const RenderPath paths[] = {RenderPath::kMultiDrawIndirect, RenderPath::kPerChunk, RenderPath::kRayMarch};
  std::vector<Image> original;
  for (const RenderPath path : paths) original.push_back(before->draw(path));
  ASSERT_TRUE(before->renderer->set_layer_tint(before->layer(before->cube), argb(kCubeRecolour)).ok());
  // The alpha byte is ignored: the glass keeps its texture's alpha.
  ASSERT_TRUE(before->renderer->set_layer_tint(before->layer(before->glass_wall), 0x00FFFFFFu & argb(kGlassRecolour)).ok());
  EXPECT_EQ(before->renderer->layer_tint(before->layer(before->cube)), argb(kCubeRecolour));
  EXPECT_EQ(before->renderer->layer_tint(before->layer(before->glass_wall)), argb(kGlassRecolour));
  for (size_t p = 0; p < std::size(paths); ++p) {
    const char* name = to_string(paths[p]).data();
    const Image tinted = before->draw(paths[p]);
    const Image expected = fresh->draw(paths[p]);
    const size_t changed = differing_pixels(original[p], tinted);
    const size_t off = differing_pixels(tinted, expected);
    std::printf("%s: the recolour changed %zu pixels; %zu differ from the fresh colours\n", name, changed, off);
    EXPECT_GT(changed, 2000u) << name;  // the cube and the glass wall cover thousands of pixels
    EXPECT_EQ(off, 0u) << name;
    if (off) {
      (void)save_png(tinted, ::testing::TempDir() + "voxen_tint_" + name + "_tinted.png");
      (void)save_png(expected, ::testing::TempDir() + "voxen_tint_" + name + "_fresh.png");
    }
  }
}

TEST_F(LayerTint, ALayerPastTheRenderersIsRefused) {
  auto scene = TintScene::make(*s_shared, kCubeColour, kGlassColour);
  ASSERT_NE(scene, nullptr);
  const auto layers = static_cast<uint16_t>(scene->registry.textures().size());
  auto s = scene->renderer->set_layer_tint(layers, 0xFF112233u);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("texture layer " + std::to_string(layers)), std::string::npos) << s.error().message;
  EXPECT_FALSE(scene->renderer->set_layer_tint(Renderer::kTintLayers, 0xFF112233u).ok());
  EXPECT_TRUE(scene->renderer->set_layer_tint(static_cast<uint16_t>(layers - 1), 0xFF112233u).ok());
}

TEST(TintedTextures, ArePlainWhiteWithTheColoursAlphaAtEveryMip) {
  auto reg = BlockRegistry::load_default();
  ASSERT_TRUE(reg.ok());
  auto add = [&](const BlockDef& def) { return *reg->add(def); };
  const uint16_t opaque = add(import::vox_block_def(kCubeColour, {}));
  const uint16_t see_through = add(import::vox_block_def(kGlassColour, glass()));
  const TextureSet set = generate_textures(*reg);
  for (const uint16_t id : {opaque, see_through}) {
    const BlockDef& def = (*reg)[id];
    ASSERT_TRUE(def.tinted) << def.name;
    const uint8_t alpha = static_cast<uint8_t>(def.face_color[0] >> 24);
    const TextureLayer& layer = set.layers[def.face_texture_index[0]];
    for (int level = 0; level < kTextureMipLevels; ++level) {
      const std::vector<uint8_t>& px = layer.mips[static_cast<size_t>(level)];
      for (size_t i = 0; i < px.size(); i += 4) {
        ASSERT_EQ(px[i], 255) << def.name << " level " << level;
        ASSERT_EQ(px[i + 1], 255) << def.name << " level " << level;
        ASSERT_EQ(px[i + 2], 255) << def.name << " level " << level;
        ASSERT_EQ(px[i + 3], alpha) << def.name << " level " << level;
      }
    }
  }
  EXPECT_EQ((*reg)[see_through].face_color[0] >> 24, 128u);  // _trans 0.5
}

}  // namespace
