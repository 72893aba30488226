// The fast mesher against the reference mesher, face for face: random noise volumes, hand-made edge cases
// (borders, every shape and state, fluids next to shapes, translucent against translucent, cutout), and generated,
// lit terrain of several seeds and biomes.
#include <gtest/gtest.h>

#include "face_polygons.h"
#include "mesh_test_util.h"
#include "voxen/gen/terrain_model.h"
#include "voxen/mesh/shapes.h"

namespace voxen::mesh {
namespace {

using namespace testing;

TEST(MeshOracle, RandomNoiseVolumesOfEveryBlockKind) {
  const auto palette = palette_of_everything();
  size_t faces = 0;
  int n = 0;
  for (double density : {0.1, 0.5, 0.9})
    for (int grain : {1, 2, 3})
      for (uint64_t seed = 1; seed <= 2; ++seed) {
        faces += expect_matches_reference(noise_input(seed * 7919 + grain, density, grain, palette),
                                          "noise seed " + std::to_string(seed) + " density " + std::to_string(density) +
                                              " grain " + std::to_string(grain));
        ++n;
      }
  EXPECT_GT(faces, 1000u * n / 2);
}

// Fluids of both kinds at every level packed among every shape, state and see-through cube, so fluid sides with
// level and sloping surfaces meet every kind of neighbour side and each other (docs/ARCHITECTURE.md, Fluids): the
// fast mesher equals the reference, and no fluid face shares any area of its plane with another face (another
// fluid's included), nor two translucent faces.
TEST(MeshOracle, FluidsAmongEveryShapeShareNoPlaneArea) {
  std::vector<Cell> palette = palette_of_everything();
  const size_t kinds = palette.size();
  for (size_t i = 0; i < kinds; ++i)  // about half the cells fluid
    if (registry()[palette[i].id].shape == Shape::kFluid) palette.insert(palette.end(), 2, palette[i]);
  size_t fluid_faces = 0;
  for (uint64_t seed = 1; seed <= 6; ++seed)
    for (int grain : {1, 2}) {
      const SectionInput in = noise_input(seed * 131 + grain, 0.8, grain, palette);
      const std::string what = "fluids among shapes, seed " + std::to_string(seed) + " grain " + std::to_string(grain);
      expect_matches_reference(in, what);
      for (bool greedy : {false, true}) {
        MeshScratch scratch;
        SectionMesh mesh;
        mesh_section(baked(), in, {greedy, true}, scratch, mesh);
        const auto faces = plane_faces(mesh);
        EXPECT_TRUE(no_shared_plane_area(faces)) << what << (greedy ? " (greedy)" : " (culled)");
        for (const auto& f : faces) fluid_faces += f.fluid;
      }
    }
  EXPECT_GT(fluid_faces, 5000u);
}

// See-through blocks of many ids packed together: glass, ice, imported translucent colours (ids of their own past
// the shipped blocks), water and lava at every level, among leaves, stone, slabs and stairs (docs/ARCHITECTURE.md,
// Faces and culling): the fast mesher equals the reference, and no two translucent faces, nor a fluid face and any
// other, share area of their plane.
TEST(MeshOracle, TranslucentBlocksOfManyIdsShareNoPlaneArea) {
  const ImportedGlass& g = imported_glass();
  std::vector<Cell> palette;
  for (const char* n : {"glass", "ice", "oak_leaves", "stone"}) palette.push_back(Cell{g.registry.id(n), 0});
  for (uint16_t id : g.ids) palette.insert(palette.end(), 2, Cell{id, 0});
  for (uint8_t st : {0, 5, 2, 7}) {  // facing bits and the half bit
    palette.push_back(Cell{g.registry.id("stone_slab"), static_cast<uint8_t>(st & state::kHalfBit)});
    palette.push_back(Cell{g.registry.id("stone_stairs"), st});
  }
  for (int l = 0; l < 8; l += 3) {
    palette.push_back(Cell{g.registry.id("water"), state::make_fluid(l, l == 6)});
    palette.push_back(Cell{g.registry.id("lava"), state::make_fluid(l, l == 3)});
  }
  size_t translucent_faces = 0;
  for (uint64_t seed = 1; seed <= 4; ++seed)
    for (int grain : {1, 2}) {
      const SectionInput in = noise_input(seed * 977 + grain, 0.7, grain, palette);
      const std::string what = "translucent ids, seed " + std::to_string(seed) + " grain " + std::to_string(grain);
      expect_matches_reference(in, what, g.registry, *g.baked);
      for (bool greedy : {false, true}) {
        MeshScratch scratch;
        SectionMesh mesh;
        mesh_section(*g.baked, in, {greedy, true}, scratch, mesh);
        const auto faces = plane_faces(mesh);
        EXPECT_TRUE(no_shared_plane_area(faces)) << what << (greedy ? " (greedy)" : " (culled)");
        translucent_faces += mesh.translucent.size();
      }
    }
  EXPECT_GT(translucent_faces, 5000u);
}

TEST(MeshOracle, NoiseOfCubesOnlyMergesAndMatches) {
  // Cubes only, in lumps, with light in lumps: the greedy path does most of the work here.
  const std::vector<Cell> cubes = {cell_of("stone"), cell_of("dirt"), cell_of("grass_block"), cell_of("oak_leaves")};
  for (uint64_t seed = 11; seed <= 13; ++seed) {
    const SectionInput in = noise_input(seed, 0.5, 4, cubes);
    expect_matches_reference(in, "cube lumps seed " + std::to_string(seed));
    MeshScratch scratch;
    SectionMesh culled, greedy;
    mesh_section(baked(), in, {false, true}, scratch, culled);
    mesh_section(baked(), in, {true, true}, scratch, greedy);
    EXPECT_LT(greedy.quad_count() * 10, culled.quad_count() * 9) << "lumps of equal light should merge";
  }
}

// A section with one block of every kind placed against every border of the padded box: faces on a border cull
// and shade against the neighbour's cells.
TEST(MeshOracle, EveryKindAtEveryBorderAndCorner) {
  const auto palette = palette_of_everything();
  for (size_t i = 0; i < palette.size(); i += 2) {
    const Cell a = palette[i], b = palette[(i + 1) % palette.size()];
    SectionInput in = noise_input(1000 + i, 0.35, 1, palette);  // random surroundings, padding included
    // One kind at the eight corners of the section, the other at the middle of its six sides and twelve edges.
    for (int y : {0, 15})
      for (int z : {0, 15})
        for (int x : {0, 15}) in.set(x, y, z, a);
    for (int c : {0, 15}) {
      in.set(c, 7, 8, b);
      in.set(8, c, 7, b);
      in.set(7, 8, c, b);
      for (int e : {0, 15}) {
        in.set(7, c, e, b);
        in.set(c, 7, e, b);
        in.set(c, e, 7, b);
      }
    }
    expect_matches_reference(in, "kinds " + std::to_string(i) + " and " + std::to_string(i + 1));
  }
}

// Each shape and state next to each other shape and state (pairs along every axis), with fluids among them.
TEST(MeshOracle, ShapesNextToShapesAndFluids) {
  std::vector<Cell> kinds = palette_of_everything();
  SectionInput in;
  for (int i = 0; i < kPaddedVolume; ++i) in.light[static_cast<size_t>(i)] = make_light(15, 0, 0, 0);
  int placed = 0;
  for (size_t a = 0; a < kinds.size(); a += 1) {
    SectionInput t = in;
    // Row of neighbours around cell (8, 8, 8): every other kind in turn on each side, diagonal included.
    for (size_t b = 0; b < kinds.size(); ++b) {
      const int x = static_cast<int>(b % 4) * 4, z = static_cast<int>(b / 4 % 4) * 4, y = static_cast<int>(b / 16) * 4;
      if (y > 14) break;
      t.set(x, y, z, kinds[a]);
      t.set(x + 1, y, z, kinds[b]);
      t.set(x, y + 1, z, kinds[b]);
      t.set(x, y, z + 1, kinds[(b + 3) % kinds.size()]);
      t.set(x + 1, y + 1, z, kinds[(b + 5) % kinds.size()]);
      t.set(x + 1, y, z + 1, kinds[(b + 7) % kinds.size()]);
      ++placed;
    }
    expect_matches_reference(t, "shape neighbours of kind " + std::to_string(a));
  }
  EXPECT_GT(placed, 100);
}

TEST(MeshOracle, TranslucentAndCutoutNeighbours) {
  SectionInput in;
  // A glass wall against a glass wall, ice against glass, water against glass, leaves against leaves.
  for (int y = 2; y < 6; ++y)
    for (int z = 2; z < 6; ++z) {
      in.set(2, y, z, cell_of("glass"));
      in.set(3, y, z, cell_of("glass"));
      in.set(4, y, z, cell_of("ice"));
      in.set(5, y, z, cell_of("water"));
      in.set(8, y, z, cell_of("oak_leaves"));
      in.set(9, y, z, cell_of("oak_leaves"));
      in.set(10, y, z, cell_of("stone"));
    }
  expect_matches_reference(in, "translucent and cutout walls");
}

// Generated and lit terrain: the flat world and the default generator at several seeds, in every biome.
TEST(MeshOracle, GeneratedTerrainOfSeveralSeedsAndBiomes) {
  struct Case {
    std::string generator;
    uint64_t seed;
    ColumnPos column;
    std::string what;
  };
  std::vector<Case> cases = {{"flat", 1, {2, 1}, "flat pond and shapes"}, {"flat", 1, {0, 0}, "flat checkerboard"}};
  // One column of each biome the default generator makes near the origin for seed 5, and two more seeds.
  const gen::TerrainModel model(5);
  for (int b = 0; b < gen::kBiomeCount; ++b) {
    bool found = false;
    for (int64_t r = 0; r < 40 && !found; ++r)
      for (int64_t i = -r; i <= r && !found; ++i)
        for (const auto& [dx, dz] : {std::pair{i, -r}, std::pair{i, r}, std::pair{-r, i}, std::pair{r, i}}) {
          if (model.sample(dx * 64 + 8, dz * 64 + 8).biome == static_cast<gen::Biome>(b)) {
            cases.push_back({"default", 5, {dx * 4, dz * 4}, std::string(gen::biome_name(static_cast<gen::Biome>(b)))});
            found = true;
            break;
          }
        }
  }
  cases.push_back({"default", 77, {0, 0}, "seed 77"});
  cases.push_back({"default", 123456789, {-3, 5}, "seed 123456789"});
  EXPECT_GE(cases.size(), 8u);
  size_t sections = 0;
  for (const auto& c : cases) {
    auto world = generated_world(c.generator, c.seed, c.column, 1);
    ASSERT_TRUE(world);
    SectionInput in;
    for (int s = 0; s < kSectionsPerColumn; ++s) {
      const SectionPos pos{c.column.x, s, c.column.z};
      if (section_is_skippable(*world, pos)) continue;
      build_section_input(*world, pos, in);
      expect_matches_reference(in, c.what + " section " + std::to_string(s));
      ++sections;
      // The world path (with its buried-section early-out) gives the same mesh as meshing the input directly.
      MeshScratch scratch;
      SectionMesh direct, via_world;
      SectionInput tmp;
      mesh_section(baked(), in, {}, scratch, direct);
      mesh_world_section(baked(), *world, pos, {}, tmp, scratch, via_world);
      EXPECT_TRUE(direct == via_world) << c.what << " section " << s;
    }
  }
  EXPECT_GT(sections, 20u);
}

}  // namespace
}  // namespace voxen::mesh
