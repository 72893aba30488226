// Placing scenes into a World: colour blocks (opaque, glass, emissive), stable ids, anchors, cells read back,
// and failures that leave the world and the registry untouched.
#include <gtest/gtest.h>

#include <limits>

#include "voxen/import/vox_place.h"
#include "vox_builder.h"

namespace voxen::import {
namespace {

using testing::VoxBuilder;

BlockRegistry registry() {
  auto r = BlockRegistry::load_default();
  EXPECT_TRUE(r.ok()) << r.error().to_string();
  return std::move(r).value();
}

std::array<std::array<uint8_t, 4>, 256> palette_with(std::initializer_list<std::pair<size_t, std::array<uint8_t, 4>>> e) {
  std::array<std::array<uint8_t, 4>, 256> p{};
  for (auto& c : p) c = {10, 20, 30, 255};
  for (const auto& [index, rgba] : e) p[index - 1] = rgba;  // chunk entry index-1 is colour index `index`
  return p;
}

TEST(VoxBlockDef, OpaqueGlassAndEmissiveColours) {
  VoxMaterial diffuse;
  const BlockDef a = vox_block_def({255, 136, 0, 255}, diffuse);
  EXPECT_EQ(a.name, "vox_ff8800");
  EXPECT_EQ(a.shape, Shape::kCube);
  EXPECT_EQ(a.opacity, 15);
  EXPECT_EQ(a.transparency, Transparency::kOpaque);
  EXPECT_EQ(a.face_color[kFacePosY], 0xFFFF8800u);
  EXPECT_EQ(a.face_texture[kFaceNegZ], "vox_ff8800");  // its own texture, painted in its colour
  EXPECT_FALSE(a.emits());

  VoxMaterial glass;
  glass.present = true;
  glass.type = VoxMaterialType::kGlass;
  glass.trans = 0.75f;
  const BlockDef g = vox_block_def({100, 200, 255, 255}, glass);
  EXPECT_EQ(g.transparency, Transparency::kTranslucent);
  EXPECT_EQ(g.opacity, 0);
  EXPECT_EQ(g.face_color[0] >> 24, 64u);  // round(255 * 0.25)
  EXPECT_EQ(g.name, "vox_64c8ff_t40");
  glass.trans = 0.99f;
  EXPECT_EQ(vox_block_def({1, 2, 3, 255}, glass).face_color[0] >> 24, 48u);  // clamped: glass stays visible

  VoxMaterial emit;
  emit.present = true;
  emit.type = VoxMaterialType::kEmit;
  emit.emit = 1.0f;
  const BlockDef e = vox_block_def({255, 128, 0, 255}, emit);
  EXPECT_EQ(e.emission, (std::array<uint8_t, 3>{15, 8, 0}));
  EXPECT_EQ(e.name, "vox_ff8000_ef80");
  EXPECT_EQ(e.opacity, 15);
  emit.emit = 0.25f;
  emit.flux = 1.0f;  // strength 0.25 * 2 = 0.5
  EXPECT_EQ(vox_block_def({255, 255, 255, 255}, emit).emission, (std::array<uint8_t, 3>{8, 8, 8}));
  emit.emit = 0.01f;
  emit.flux = 0.0f;
  EXPECT_EQ(vox_block_def({0, 0, 40, 255}, emit).emission, (std::array<uint8_t, 3>{0, 0, 1}));
}

/// A material of `type` as a MATL chunk would describe it, other fields at their defaults.
VoxMaterial material_of(VoxMaterialType type) {
  VoxMaterial m;
  m.present = true;
  m.type = type;
  return m;
}

TEST(VoxBlockDef, MediaIsAThinTranslucentVolumeLitThrough) {
  VoxMaterial media = material_of(VoxMaterialType::kMedia);
  media.density = 0.03f;
  const BlockDef a = vox_block_def({230, 230, 235, 255}, media);
  EXPECT_EQ(a.transparency, Transparency::kTranslucent);
  EXPECT_EQ(a.face_color[0] >> 24, 54u);  // round(255 * (1 - exp(-8 * 0.03)))
  EXPECT_EQ(a.opacity, 0);                // a thin cloud lets sky and block light through
  EXPECT_FALSE(a.solid);                  // walked through
  EXPECT_EQ(a.name, "vox_e6e6eb_m360");
  media.density = 0.05f;
  EXPECT_EQ(vox_block_def({230, 230, 235, 255}, media).face_color[0] >> 24, 84u);
  media.density = 1.0f;
  EXPECT_EQ(media_look(media), (MediaLook{255, 4}));  // dense smoke: opaque-looking, takes 4 light levels
  media.density = 0.0f;
  EXPECT_EQ(media_look(media), (MediaLook{16, 0}));  // still a faint haze
  media.density = -1.0f;
  EXPECT_EQ(media_look(media), (MediaLook{16, 0}));
  media.density = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(media_look(media), (MediaLook{16, 0}));
  media.density = std::numeric_limits<float>::infinity();
  EXPECT_EQ(media_look(media), (MediaLook{255, 15}));
  // Old-style glass: the reader's _weight becomes the transparency.
  VoxMaterial glass = material_of(VoxMaterialType::kGlass);
  glass.trans = 0.8f;
  EXPECT_EQ(vox_block_def({0, 0, 0, 255}, glass).face_color[0] >> 24, 51u);  // round(255 * 0.2)
}

TEST(VoxPlace, MediaColoursOfOneLookBecomeOneBlockOfTheirMeanColour) {
  // A row of six cells: two cloud shades (3 cells and 1), a cloud colour of another density, and glass.
  VoxBuilder b;
  b.model(6, 1, 1, {{0, 0, 0, 1}, {1, 0, 0, 1}, {2, 0, 0, 1}, {3, 0, 0, 2}, {4, 0, 0, 3}, {5, 0, 0, 4}});
  b.rgba(palette_with({{1, {200, 200, 200, 255}}, {2, {100, 120, 141, 255}}, {3, {50, 50, 50, 255}},
                       {4, {0, 0, 255, 255}}}));
  b.matl(1, {{"_type", "_media"}, {"_d", "0.04"}});
  b.matl(2, {{"_type", "_media"}, {"_d", "0.04"}, {"_g", "0.5"}});
  b.matl(3, {{"_type", "_media"}, {"_d", "0.5"}});
  b.matl(4, {{"_type", "_glass"}, {"_trans", "0.5"}});
  auto f = read_vox(b.bytes(), "cloud.vox");
  ASSERT_TRUE(f.ok()) << f.error().to_string();
  BlockRegistry reg = registry();
  World world;
  auto stats = apply_vox_placement(world, reg, *f, *plan_vox_placement(*f, {}), true);
  ASSERT_TRUE(stats.ok()) << stats.error().to_string();
  EXPECT_EQ(stats->blocks_added, 3u);
  EXPECT_EQ(stats->cells[1], stats->cells[2]);  // one block: no faces between the two shades
  EXPECT_NE(stats->cells[1], stats->cells[3]);  // another density, another block
  // (3 * 200 + 100) / 4 = 175, (3 * 200 + 120) / 4 = 180, (3 * 200 + 141) / 4 = 185.25.
  const BlockDef& cloud = reg[stats->cells[1].id];
  EXPECT_EQ(cloud.name, "vox_afb4b9_m460");
  EXPECT_EQ(cloud.face_color[0], 0x46AFB4B9u);
  EXPECT_EQ(reg[stats->cells[3].id].name, "vox_323232_mfa2");  // d 0.5: alpha 0xfa, light opacity 2
  EXPECT_EQ(reg[stats->cells[4].id].name, "vox_0000ff_t80");
  // The same file again: the same blocks, no new ones.
  auto again = apply_vox_placement(world, reg, *f, *plan_vox_placement(*f, {}), true);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->blocks_added, 0u);
  EXPECT_EQ(again->cells, stats->cells);
}

VoxBuilder small_scene() {
  VoxBuilder b;
  b.model(3, 1, 2, {{0, 0, 0, 1}, {1, 0, 0, 2}, {2, 0, 1, 3}});
  b.rgba(palette_with({{1, {200, 0, 0, 255}}, {2, {0, 200, 0, 255}}, {3, {0, 0, 200, 255}}}));
  b.matl(2, {{"_type", "_glass"}, {"_trans", "0.5"}});
  b.matl(3, {{"_type", "_emit"}, {"_emit", "1"}});
  return b;
}

TEST(VoxPlace, CellsLandWhereTheSceneSaysWithTheirBlocks) {
  auto f = read_vox(small_scene().bytes(), "s.vox");
  ASSERT_TRUE(f.ok());
  BlockRegistry reg = registry();
  World world;
  VoxPlaceOptions o;
  o.origin = {1000, 64, -2000};
  auto plan = plan_vox_placement(*f, o);
  ASSERT_TRUE(plan.ok());
  auto stats = apply_vox_placement(world, reg, *f, *plan, true);
  ASSERT_TRUE(stats.ok()) << stats.error().to_string();
  EXPECT_EQ(stats->placed_voxels, 3u);
  EXPECT_EQ(stats->blocks_added, 3u);
  // Size (3, 1, 2), pivot (1, 0, 1): voxel (0,0,0) -> scene (-1, 0, -1) -> voxen (-1, -1, -1).
  const Cell red = world.get({999, 63, -2001});
  const Cell green = world.get({1000, 63, -2001});
  const Cell blue = world.get({1001, 64, -2001});
  EXPECT_EQ(reg[red.id].name, "vox_c80000");
  EXPECT_EQ(reg[green.id].transparency, Transparency::kTranslucent);
  EXPECT_EQ(reg[blue.id].emission, (std::array<uint8_t, 3>{0, 0, 12}));
  EXPECT_EQ(stats->cells[1], red);
  EXPECT_EQ(stats->min, (BlockPos{999, 63, -2001}));
  EXPECT_EQ(stats->max, (BlockPos{1001, 64, -2001}));
  // Nothing else: the world holds exactly those three non-air cells.
  int solid = 0;
  for (int64_t x = 990; x < 1010; ++x)
    for (int64_t y = 60; y < 70; ++y)
      for (int64_t z = -2010; z < -1990; ++z) solid += world.get({x, y, z}).id != kAirId;
  EXPECT_EQ(solid, 3);
}

TEST(VoxPlace, IdsStayStableAcrossImportsIntoOneWorld) {
  auto f = read_vox(small_scene().bytes(), "s.vox");
  ASSERT_TRUE(f.ok());
  BlockRegistry reg = registry();
  World world;
  VoxPlaceOptions o;
  auto first = apply_vox_placement(world, reg, *f, *plan_vox_placement(*f, o), true);
  ASSERT_TRUE(first.ok());
  const size_t size_after_first = reg.size();
  o.origin = {500, 0, 500};
  auto second = apply_vox_placement(world, reg, *f, *plan_vox_placement(*f, o), true);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->blocks_added, 0u);
  EXPECT_EQ(reg.size(), size_after_first);
  EXPECT_EQ(first->cells, second->cells);
}

TEST(VoxPlace, GroundCentreAnchorPutsTheLowestCellAtOriginY) {
  auto f = read_vox(small_scene().bytes(), "s.vox");
  ASSERT_TRUE(f.ok());
  VoxPlaceOptions o;
  o.anchor = VoxAnchor::kGroundCentre;
  o.origin = {0, 10, 0};
  auto plan = plan_vox_placement(*f, o);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->min.y, 10);
  EXPECT_EQ(plan->min.x + plan->max.x, 0);  // x -1..1 centred
  EXPECT_EQ(plan->min.z, 0);
  EXPECT_EQ(placement_columns(*plan), (std::vector<ColumnPos>{{-1, 0}, {0, 0}}));
}

TEST(VoxPlace, TooTallSceneFailsAndChangesNothing) {
  VoxBuilder b;
  b.model(1, 1, 200, {{0, 0, 0, 1}, {0, 0, 199, 1}});
  auto f = read_vox(b.bytes(), "tall.vox");
  ASSERT_TRUE(f.ok());
  BlockRegistry reg = registry();
  const size_t before = reg.size();
  World world;
  VoxPlaceOptions o;
  o.origin = {0, 200, 0};
  auto plan = plan_vox_placement(*f, o);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.error().message.find("200 blocks tall"), std::string::npos) << plan.error().message;
  EXPECT_EQ(world.column_count(), 0u);
  EXPECT_EQ(reg.size(), before);
}

TEST(VoxPlace, SceneAtTheEdgeOfTheInt64WorldDoesNotWrap) {
  auto f = read_vox(small_scene().bytes(), "s.vox");  // scene cells x -1..1, y -1..0, z -1 (voxen axes)
  ASSERT_TRUE(f.ok());
  struct Case {
    VoxAnchor anchor;
    BlockPos origin;
    const char* axis;  // nullptr: fits
  };
  const Case cases[] = {
      {VoxAnchor::kGroundCentre, {INT64_MAX, 0, 0}, "x"},
      {VoxAnchor::kGroundCentre, {INT64_MIN, 0, 0}, "x"},
      {VoxAnchor::kGroundCentre, {0, 0, INT64_MIN}, nullptr},  // centred on z: the one cell sits at INT64_MIN
      {VoxAnchor::kGroundCentre, {INT64_MAX - 1, 0, 0}, nullptr},
      {VoxAnchor::kScene, {INT64_MAX, 64, 0}, "x"},
      {VoxAnchor::kScene, {INT64_MAX - 1, 64, 0}, nullptr},
      {VoxAnchor::kScene, {INT64_MIN, 64, 0}, "x"},
      {VoxAnchor::kScene, {INT64_MIN + 1, 64, 0}, nullptr},
      {VoxAnchor::kScene, {0, 64, INT64_MIN}, "z"},
      {VoxAnchor::kScene, {0, 64, INT64_MIN + 1}, nullptr},
      {VoxAnchor::kScene, {0, INT64_MIN, 0}, "y"},
  };
  for (const Case& c : cases) {
    VoxPlaceOptions o;
    o.anchor = c.anchor;
    o.origin = c.origin;
    auto plan = plan_vox_placement(*f, o);
    const std::string where = std::to_string(c.origin.x) + "," + std::to_string(c.origin.y) + "," + std::to_string(c.origin.z);
    if (!c.axis) {
      ASSERT_TRUE(plan.ok()) << where << ": " << plan.error().message;
      EXPECT_LE(plan->min.x, plan->max.x) << where;  // no wrap: the bounds stay ordered
      EXPECT_EQ(plan->max.x - plan->min.x, 2) << where;
      EXPECT_EQ(plan->max.z, plan->min.z) << where;
      continue;
    }
    ASSERT_FALSE(plan.ok()) << where << " placed at x " << plan->min.x << ".." << plan->max.x;
    EXPECT_NE(plan.error().message.find(std::string("the scene does not fit the world's ") + c.axis + " range"),
              std::string::npos)
        << where << ": " << plan.error().message;
  }
}

TEST(VoxPlace, MissingColumnIsAnErrorWhenColumnsAreNotCreated) {
  auto f = read_vox(small_scene().bytes(), "s.vox");
  ASSERT_TRUE(f.ok());
  BlockRegistry reg = registry();
  const size_t before = reg.size();
  World world;
  world.insert(std::make_unique<Column>(ColumnPos{0, -1}));
  VoxPlaceOptions o;
  o.origin = {16, 0, 0};  // x 15..17: columns 0 and 1; only column (0, -1) exists
  auto plan = plan_vox_placement(*f, o);
  ASSERT_TRUE(plan.ok());
  auto r = apply_vox_placement(world, reg, *f, *plan, false);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("not loaded"), std::string::npos);
  EXPECT_EQ(world.column_count(), 1u);
  EXPECT_EQ(reg.size(), before);
  for (int64_t x = 0; x < 16; ++x) EXPECT_EQ(world.get({x, -1, -1}).id, kAirId);
}

TEST(VoxPlace, VoxenBlockNamesMapBackToRegistryCells) {
  VoxBuilder b;
  b.model(4, 1, 1, {{0, 0, 0, 1}, {1, 0, 0, 2}, {2, 0, 0, 3}, {3, 0, 0, 4}});
  b.matl(1, {{"_type", "_diffuse"}, {"_voxen_block", "stone_stairs:5"}});
  b.matl(2, {{"_voxen_block", "air"}});          // never air: falls back to the colour block
  b.matl(3, {{"_voxen_block", "no_such_block"}});  // unknown here: falls back too
  b.matl(4, {{"_voxen_block", "stone:9"}});        // a state stone does not use: falls back
  auto f = read_vox(b.bytes(), "names.vox");
  ASSERT_TRUE(f.ok());
  BlockRegistry reg = registry();
  World world;
  auto stats = apply_vox_placement(world, reg, *f, *plan_vox_placement(*f, {}), true);
  ASSERT_TRUE(stats.ok()) << stats.error().to_string();
  EXPECT_EQ(stats->cells[1], (Cell{reg.id("stone_stairs"), 5}));
  for (int i = 2; i <= 4; ++i) {
    EXPECT_NE(stats->cells[static_cast<size_t>(i)].id, kAirId);
    EXPECT_EQ(reg[stats->cells[static_cast<size_t>(i)].id].name.rfind("vox_", 0), 0u) << i;
  }
  EXPECT_EQ(stats->blocks_added, 3u);  // default palette: indices 2, 3, 4 are three different colours
}

TEST(VoxPlace, OverwritesTerrainButEmptyVoxelsDoNotCarve) {
  auto f = read_vox(small_scene().bytes(), "s.vox");
  ASSERT_TRUE(f.ok());
  BlockRegistry reg = registry();
  World world;
  auto col = std::make_unique<Column>(ColumnPos{-1, -1});
  const Cell stone{reg.id("stone"), 0};
  for (int x = 0; x < 16; ++x)
    for (int z = 0; z < 16; ++z) col->set(x, -1, z, stone);
  world.insert(std::move(col));
  auto plan = plan_vox_placement(*f, {});
  ASSERT_TRUE(plan.ok());
  ASSERT_TRUE(apply_vox_placement(world, reg, *f, *plan, true).ok());
  EXPECT_NE(world.get({-1, -1, -1}), stone);  // the red voxel replaced stone
  EXPECT_EQ(world.get({-2, -1, -1}), stone);  // untouched beside it
  EXPECT_EQ(world.get({-1, -1, -2}), stone);
}

}  // namespace
}  // namespace voxen::import
