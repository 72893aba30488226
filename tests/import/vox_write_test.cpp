// The .vox writer: export -> import gives back exactly the same cells (a generated world wider than one
// model, and hand-placed blocks with states, glass and light), 256^3 model splitting, and the palette limit.
#include <gtest/gtest.h>

#include "voxen/gen/generator.h"
#include "voxen/import/vox_place.h"
#include "voxen/import/vox_write.h"

namespace voxen::import {
namespace {

BlockRegistry registry() {
  auto r = BlockRegistry::load_default();
  EXPECT_TRUE(r.ok()) << r.error().to_string();
  return std::move(r).value();
}

/// Exports [lo, hi] of `world`, imports it into a fresh world at the scene's own positions, and expects
/// every cell of the region (and a margin of air around it) to match.
void expect_round_trip(const World& world, BlockRegistry& reg, const BlockPos& lo, const BlockPos& hi,
                       uint32_t expect_models_at_least) {
  VoxWriteStats ws;
  auto bytes = write_vox(world, reg, lo, hi, &ws);
  ASSERT_TRUE(bytes.ok()) << bytes.error().to_string();
  EXPECT_GE(ws.models, expect_models_at_least);
  auto file = read_vox(*bytes, "round.vox");
  ASSERT_TRUE(file.ok()) << file.error().to_string();
  EXPECT_EQ(file->voxel_count(), ws.voxels);
  for (const auto& m : file->models) {
    EXPECT_LE(m.size_x, 256u);
    EXPECT_LE(m.size_y, 256u);
    EXPECT_LE(m.size_z, 256u);
  }
  World back;
  const size_t reg_size = reg.size();
  auto plan = plan_vox_placement(*file, {});
  ASSERT_TRUE(plan.ok()) << plan.error().to_string();
  auto stats = apply_vox_placement(back, reg, *file, *plan, true);
  ASSERT_TRUE(stats.ok()) << stats.error().to_string();
  EXPECT_EQ(reg.size(), reg_size);  // every colour mapped back to its own block
  EXPECT_EQ(stats->placed_voxels, ws.voxels);
  uint64_t mismatches = 0, solid = 0;
  for (int64_t x = lo.x - 1; x <= hi.x + 1; ++x)
    for (int64_t z = lo.z - 1; z <= hi.z + 1; ++z)
      for (int64_t y = std::max<int64_t>(lo.y - 1, kMinY); y <= std::min<int64_t>(hi.y + 1, kMaxY); ++y) {
        const bool inside = x >= lo.x && x <= hi.x && y >= lo.y && y <= hi.y && z >= lo.z && z <= hi.z;
        const Cell want = inside ? world.get({x, y, z}) : kAir;
        const Cell got = back.get({x, y, z});
        solid += want.id != kAirId;
        if (want != got && mismatches++ < 5)
          ADD_FAILURE() << "cell " << x << "," << y << "," << z << ": wrote " << want.id << ":" << int(want.state)
                        << ", read back " << got.id << ":" << int(got.state);
      }
  EXPECT_EQ(mismatches, 0u);
  EXPECT_EQ(solid, ws.voxels);
}

TEST(VoxWrite, GeneratedTerrainWiderThanOneModelRoundTrips) {
  BlockRegistry reg = registry();
  auto gen = gen::make_generator("default", 42, reg);
  ASSERT_TRUE(gen.ok()) << gen.error().to_string();
  std::vector<ColumnPos> cols;
  for (int64_t cx = -2; cx <= 18; ++cx) cols.push_back({cx, -1});
  World world;
  for (auto& c : gen::generate_columns(**gen, cols, nullptr)) world.insert(std::move(c));
  // x -20..290 (311 wide: two models along x), z -9..-2, y 30..110.
  expect_round_trip(world, reg, {-20, 30, -9}, {290, 110, -2}, 2);
}

TEST(VoxWrite, StatesGlassAndLightRoundTrip) {
  BlockRegistry reg = registry();
  World world;
  world.insert(std::make_unique<Column>(ColumnPos{0, 0}));
  world.insert(std::make_unique<Column>(ColumnPos{-1, 0}));
  const char* cells[] = {"stone_stairs:6", "stone_stairs:1", "stone_slab:4", "glass", "torch", "water:3",
                         "oak_log:8",      "red_lamp",       "grass_block",  "ice"};
  int i = 0;
  for (const char* name : cells) {
    auto c = reg.parse_cell(name);
    ASSERT_TRUE(c.ok()) << name;
    const BlockPos p{-3 + i, -128 + i * 3, 2 + (i % 3)};
    auto e = world.make_edit(p, *c);
    ASSERT_TRUE(e.has_value());
    world.apply(*e);
    ++i;
  }
  expect_round_trip(world, reg, {-16, -128, 0}, {15, 255, 15}, 1);
}

TEST(VoxWrite, TallRegionSplitsAlongMagicaVoxelZ) {
  BlockRegistry reg = registry();
  World world;
  world.insert(std::make_unique<Column>(ColumnPos{0, 0}));
  const Cell stone{reg.id("stone"), 0};
  world.apply(*world.make_edit({1, -100, 1}, stone));
  world.apply(*world.make_edit({1, 200, 1}, stone));
  VoxWriteStats ws;
  auto bytes = write_vox(world, reg, {0, -128, 0}, {15, 255, 15}, &ws);
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(ws.models, 2u);  // 384 tall: two tiles along MagicaVoxel's Z
  expect_round_trip(world, reg, {0, -128, 0}, {15, 255, 15}, 2);
}

TEST(VoxWrite, EmptyRegionWritesAReadableFileWithoutModels) {
  BlockRegistry reg = registry();
  World world;
  auto bytes = write_vox(world, reg, {0, 0, 0}, {10, 10, 10});
  ASSERT_TRUE(bytes.ok());
  auto f = read_vox(*bytes, "empty.vox");
  ASSERT_TRUE(f.ok()) << f.error().to_string();
  EXPECT_TRUE(f->models.empty());
}

TEST(VoxWrite, MoreThan255DistinctCellsIsAnErrorNamingTheCount) {
  BlockRegistry reg = registry();
  World world;
  world.insert(std::make_unique<Column>(ColumnPos{0, 0}));
  for (int i = 0; i < 300; ++i) {
    BlockDef def;
    def.name = "test_block_" + std::to_string(i);
    def.shape = Shape::kCube;
    def.face_color.fill(0xFF000000u | static_cast<uint32_t>(i));
    auto id = reg.add(def);
    ASSERT_TRUE(id.ok());
    world.apply(*world.make_edit({i % 16, i / 16, 0}, Cell{*id, 0}));
  }
  auto bytes = write_vox(world, reg, {0, 0, 0}, {15, 30, 0});
  ASSERT_FALSE(bytes.ok());
  EXPECT_NE(bytes.error().message.find("300 distinct"), std::string::npos) << bytes.error().message;
  // 255 distinct cells still fit.
  ASSERT_TRUE(write_vox(world, reg, {0, 0, 0}, {14, 16, 0}).ok());
}

TEST(VoxWrite, RegionsPastTheImportersVoxelCapAreRefused) {
  // The default cap is the importer's: whatever write_vox writes, evaluate_scene places.
  EXPECT_EQ(VoxPlaceOptions{}.max_voxels, kMaxSceneVoxels);
  BlockRegistry reg = registry();
  World world;
  world.insert(std::make_unique<Column>(ColumnPos{0, 0}));
  const Cell stone{*reg.find("stone"), 0};
  for (int i = 0; i < 10; ++i) world.apply(*world.make_edit({i, 5, 3}, stone));
  auto over = write_vox(world, reg, {0, 0, 0}, {15, 10, 15}, nullptr, 9);
  ASSERT_FALSE(over.ok());
  EXPECT_NE(over.error().message.find("10 non-air cells"), std::string::npos) << over.error().message;
  EXPECT_NE(over.error().message.find("at most 9"), std::string::npos) << over.error().message;
  // At the cap it writes, and the file reads back under the same cap.
  auto at = write_vox(world, reg, {0, 0, 0}, {15, 10, 15}, nullptr, 10);
  ASSERT_TRUE(at.ok()) << at.error().to_string();
  auto file = read_vox(*at, "cap.vox");
  ASSERT_TRUE(file.ok());
  EXPECT_TRUE(evaluate_scene(*file, 10).ok());
}

}  // namespace
}  // namespace voxen::import
