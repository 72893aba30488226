// The data-driven block registry: the shipped file loads with every block the engine needs; bad files give one
// clear error naming the file, the line and the field.
#include <gtest/gtest.h>

#include <string>

#include "voxen/world/block_registry.h"

namespace voxen {
namespace {

const char* kRequired[] = {"air", "stone", "deepslate", "bedrock", "dirt", "grass_block", "sand", "sandstone", "gravel",
                           "snow", "ice", "clay", "water", "lava", "magma", "oak_log", "oak_leaves", "birch_log",
                           "birch_leaves", "spruce_log", "spruce_leaves", "cactus", "tall_grass", "poppy", "dandelion",
                           "coal_ore", "iron_ore", "gold_ore", "diamond_ore", "glass", "torch", "glowstone", "red_lamp",
                           "blue_lamp", "planks", "cobblestone", "bricks", "stone_slab", "stone_stairs", "stone_slope"};

TEST(BlockRegistry, ShippedFileHasEveryRequiredBlock) {
  auto reg = BlockRegistry::load(std::string(VOXEN_SOURCE_DIR) + "/data/blocks.toml");
  ASSERT_TRUE(reg.ok()) << reg.error().to_string();
  for (const char* name : kRequired) EXPECT_TRUE(reg->find(name).has_value()) << name;
  EXPECT_EQ(reg->id("air"), 0);
  EXPECT_TRUE((*reg)[0].is_air());
  const BlockDef& torch = (*reg)[reg->id("torch")];
  EXPECT_EQ(torch.emission, (std::array<uint8_t, 3>{14, 12, 8}));
  EXPECT_EQ(torch.shape, Shape::kCross);
  EXPECT_EQ((*reg)[reg->id("glowstone")].emission, (std::array<uint8_t, 3>{15, 14, 10}));
  EXPECT_EQ((*reg)[reg->id("lava")].emission, (std::array<uint8_t, 3>{15, 9, 4}));
  EXPECT_EQ((*reg)[reg->id("magma")].emission, (std::array<uint8_t, 3>{6, 2, 0}));
  EXPECT_EQ((*reg)[reg->id("red_lamp")].emission, (std::array<uint8_t, 3>{15, 0, 0}));
  EXPECT_EQ((*reg)[reg->id("blue_lamp")].emission, (std::array<uint8_t, 3>{0, 0, 15}));
  EXPECT_EQ((*reg)[reg->id("water")].transparency, Transparency::kTranslucent);
  EXPECT_EQ((*reg)[reg->id("oak_leaves")].transparency, Transparency::kCutout);
  EXPECT_TRUE((*reg)[reg->id("stone")].is_opaque_cube());
  EXPECT_EQ((*reg)[reg->id("stone")].opacity, 15);
  EXPECT_GT((*reg)[reg->id("water")].opacity, 0);
  // Per-face textures resolve to indices into the texture list.
  const BlockDef& grass = (*reg)[reg->id("grass_block")];
  EXPECT_EQ(reg->textures()[grass.face_texture_index[kFacePosY]], "grass_top");
  EXPECT_EQ(reg->textures()[grass.face_texture_index[kFacePosX]], "grass_side");
  EXPECT_EQ(reg->textures()[grass.face_texture_index[kFaceNegY]], "dirt");
}

TEST(BlockRegistry, ParseCellNamesAndStates) {
  auto reg = BlockRegistry::load_default();
  ASSERT_TRUE(reg.ok()) << reg.error().to_string();
  auto c = reg->parse_cell("stone_stairs:6");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->id, reg->id("stone_stairs"));
  EXPECT_EQ(c->state, 6);
  auto bad_name = reg->parse_cell("unobtainium");
  ASSERT_FALSE(bad_name.ok());
  EXPECT_NE(bad_name.error().message.find("unobtainium"), std::string::npos);
  EXPECT_FALSE(reg->parse_cell("stone:1").ok());   // stone uses no state bits
  EXPECT_FALSE(reg->parse_cell("water:x").ok());
  EXPECT_FALSE(reg->parse_cell("water:300").ok());
  EXPECT_TRUE(reg->parse_cell("water:7").ok());
}

constexpr const char* kAirBlock = R"([[block]]
name = "air"
id = 0
opacity = 0
transparency = "translucent"
shape = "none"
)";

struct BadCase {
  const char* what;
  std::string text;
  int line;            // expected line in the error
  const char* needle;  // expected text in the error
};

/// Each case is refused with an error naming the file, its line and the field.
template <size_t N>
void expect_refused(const BadCase (&cases)[N]) {
  for (const auto& c : cases) {
    auto reg = BlockRegistry::parse(c.text, "test_blocks.toml");
    ASSERT_FALSE(reg.ok()) << c.what;
    const std::string msg = reg.error().to_string();
    EXPECT_EQ(reg.error().file, "test_blocks.toml") << c.what;
    EXPECT_EQ(reg.error().line, c.line) << c.what << ": " << msg;
    EXPECT_NE(msg.find(c.needle), std::string::npos) << c.what << ": " << msg;
    EXPECT_EQ(msg.rfind("test_blocks.toml:", 0), 0u) << c.what << ": " << msg;
  }
}

TEST(BlockRegistry, ErrorsNameFileLineAndField) {
  const std::string stone_head = std::string(kAirBlock) + "\n[[block]]\nname = \"stone\"\n";  // stone's name on line 9
  const BadCase cases[] = {
      {"unknown field", stone_head + "id = 1\nopacity = 15\ntransparency = \"opaque\"\nshape = \"cube\"\nopacty = 3\n", 14, "'opacty'"},
      {"bad opacity", stone_head + "id = 1\nopacity = 16\ntransparency = \"opaque\"\nshape = \"cube\"\n", 11, "'opacity'"},
      {"bad shape", stone_head + "id = 1\nopacity = 15\ntransparency = \"opaque\"\nshape = \"sphere\"\n", 13, "'shape'"},
      {"bad emission", stone_head + "id = 1\nopacity = 15\ntransparency = \"opaque\"\nshape = \"cube\"\nemission = [1, 2]\n", 14, "'emission'"},
      {"bad colour", stone_head + "id = 1\nopacity = 15\ntransparency = \"opaque\"\nshape = \"cube\"\ncolor = \"red\"\n", 14, "'color'"},
      {"duplicate id", stone_head + "id = 0\nopacity = 15\ntransparency = \"opaque\"\nshape = \"cube\"\n", 10, "'id'"},
      {"duplicate name", stone_head + "id = 1\nopacity = 15\ntransparency = \"opaque\"\nshape = \"cube\"\n\n[[block]]\nname = \"stone\"\nid = 2\nopacity = 15\ntransparency = \"opaque\"\nshape = \"cube\"\n", 16, "duplicate"},
      {"missing field", stone_head + "id = 1\ntransparency = \"opaque\"\nshape = \"cube\"\n", 8, "'opacity' is missing"},
      {"syntax", stone_head + "id = = 1\n", 10, "TOML syntax"},
  };
  expect_refused(cases);
}

TEST(BlockRegistry, PhysicsFieldsAreCheckedNamingTheLine) {
  // The simulation's fields (block_registry.h): a fluid needs the fluid shape and level + falling states, a gas the
  // age state and a life, each field its own physics, and quench products must name blocks (resolved at the end).
  const std::string fluid_head = std::string(kAirBlock) +
                                 "\n[[block]]\nname = \"goo\"\nid = 1\nopacity = 2\ntransparency = \"translucent\"\n";  // name on line 9
  const std::string fluid = fluid_head + "shape = \"fluid\"\nstates = [\"level\", \"falling\"\n]\n";
  const BadCase cases[] = {
      {"fluid physics on a cube", fluid_head + "shape = \"cube\"\nphysics = \"fluid\"\n", 14, "'physics'"},
      {"unknown physics", fluid + "physics = \"plasma\"\n", 16, "'physics'"},
      {"flow_drop out of range", fluid + "physics = \"fluid\"\nflow_drop = 9\n", 17, "'flow_drop' must be an integer 1-7"},
      {"flow field without fluid", fluid_head + "shape = \"cube\"\nflow_every = 3\n", 14, "'flow_every' is for physics"},
      {"quench names nothing", fluid + "physics = \"fluid\"\nquench = { source = \"unobtainium\" }\n", 17, "unknown block 'unobtainium'"},
      {"quench field", fluid + "physics = \"fluid\"\nquench = { sideways = \"air\" }\n", 17, "'quench.sideways'"},
      {"gas without age", fluid_head + "shape = \"cube\"\nphysics = \"gas\"\nlife = 5\n", 14, "needs states [\"age\"]"},
      {"gas without life", fluid_head + "shape = \"cube\"\nstates = [\"age\"]\nphysics = \"gas\"\n", 15, "'life' is missing"},
      {"age with another state", fluid_head + "shape = \"cube\"\nstates = [\"age\", \"half\"]\n", 14, "cannot be combined"},
  };
  expect_refused(cases);
  // The shipped registry: water renews, lava quenches to obsidian, cobblestone and stone; smoke lives 100 ticks.
  auto reg = BlockRegistry::load_default();
  ASSERT_TRUE(reg.ok());
  const BlockDef& lava = (*reg)[reg->id("lava")];
  EXPECT_EQ(lava.physics, Physics::kFluid);
  EXPECT_EQ(lava.fluid.quench_source, reg->id("obsidian"));
  EXPECT_EQ(lava.fluid.quench_flowing, reg->id("cobblestone"));
  EXPECT_EQ(lava.fluid.quench_below, reg->id("stone"));
  EXPECT_EQ(lava.fluid.every, 3);
  EXPECT_TRUE((*reg)[reg->id("water")].fluid.renews);
  EXPECT_EQ((*reg)[reg->id("smoke")].life, 100);
  EXPECT_EQ((*reg)[reg->id("smoke")].state_mask, 0xFF);
  EXPECT_EQ((*reg)[reg->id("sand")].physics, Physics::kGranular);
}

TEST(BlockRegistry, DuplicateIdNamesTheOtherBlock) {
  const std::string text = std::string(kAirBlock) +
                           "\n[[block]]\nname = \"stone\"\nid = 1\nopacity = 15\ntransparency = \"opaque\"\nshape = \"cube\"\n"
                           "\n[[block]]\nname = \"dirt\"\nid = 1\nopacity = 15\ntransparency = \"opaque\"\nshape = \"cube\"\n";
  auto reg = BlockRegistry::parse(text, "b.toml");
  ASSERT_FALSE(reg.ok());
  EXPECT_NE(reg.error().message.find("'stone'"), std::string::npos) << reg.error().to_string();
  EXPECT_NE(reg.error().message.find("'dirt'"), std::string::npos) << reg.error().to_string();
}

TEST(BlockRegistry, MissingFileIsAnError) {
  auto reg = BlockRegistry::load("/nonexistent/blocks.toml");
  ASSERT_FALSE(reg.ok());
  EXPECT_NE(reg.error().to_string().find("/nonexistent/blocks.toml"), std::string::npos);
}

TEST(BlockRegistry, RuntimeAdditionsTakeFreshIds) {
  auto reg = BlockRegistry::load_default();
  ASSERT_TRUE(reg.ok());
  const size_t before = reg->size();
  BlockDef d;
  d.name = "vox_color_1";
  d.shape = Shape::kCube;
  d.opacity = 15;
  auto id = reg->add(d);
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(*id, before);
  EXPECT_EQ(reg->find("vox_color_1"), *id);
  EXPECT_FALSE(reg->add(d).ok());  // duplicate name
}

}  // namespace
}  // namespace voxen
