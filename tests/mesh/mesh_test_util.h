// Shared helpers of the mesh tests: the registry and baked table, worlds built by hand or generated and lit, random
// volumes, and the fast-versus-reference comparison.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "voxen/core/hash.h"
#include "voxen/gen/generator.h"
#include "voxen/import/vox_place.h"
#include "voxen/light/light.h"
#include "voxen/mesh/baked.h"
#include "voxen/mesh/faces.h"
#include "voxen/mesh/input.h"
#include "voxen/mesh/mesher.h"
#include "voxen/mesh/reference.h"
#include "voxen/world/block_registry.h"
#include "voxen/world/world.h"

namespace voxen::mesh::testing {

/// The shipped registry (data/blocks.toml), loaded once.
inline const BlockRegistry& registry() {
  static const BlockRegistry reg = [] {
    auto r = BlockRegistry::load_default();
    if (!r) {
      ADD_FAILURE() << r.error().file << ": " << r.error().message;
      std::abort();
    }
    return std::move(r).value();
  }();
  return reg;
}

inline const BakedBlocks& baked() {
  static const BakedBlocks b = [] {
    auto r = BakedBlocks::bake(registry());
    if (!r) std::abort();
    return std::move(r).value();
  }();
  return b;
}

inline Cell cell_of(const std::string& name, uint8_t state = 0) { return Cell{registry().id(name), state}; }

/// Compares two sorted unit-face lists; on a difference, names the first few faces in one and not the other.
inline ::testing::AssertionResult same_faces(const std::vector<FaceRecord>& fast, const std::vector<FaceRecord>& ref) {
  if (fast == ref) return ::testing::AssertionSuccess();
  std::vector<FaceRecord> only_fast, only_ref;
  std::set_difference(fast.begin(), fast.end(), ref.begin(), ref.end(), std::back_inserter(only_fast));
  std::set_difference(ref.begin(), ref.end(), fast.begin(), fast.end(), std::back_inserter(only_ref));
  auto r = ::testing::AssertionFailure();
  r << "fast " << fast.size() << " unit faces, reference " << ref.size() << "; " << only_fast.size()
    << " only in fast, " << only_ref.size() << " only in reference";
  for (size_t i = 0; i < only_fast.size() && i < 6; ++i) r << "\n  fast only: " << only_fast[i].to_string();
  for (size_t i = 0; i < only_ref.size() && i < 6; ++i) r << "\n  ref only:  " << only_ref[i].to_string();
  return r;
}

/// Meshes `in` with the fast mesher culled and greedy, and requires both, split back into unit faces, to equal the
/// reference mesher's faces exactly. Returns the number of unit faces. The registry and its baked table are the
/// shipped ones unless given.
inline size_t expect_matches_reference(const SectionInput& in, const std::string& what,
                                       const BlockRegistry& reg = registry(), const BakedBlocks& blocks = baked()) {
  MeshScratch scratch;
  SectionMesh culled, greedy;
  mesh_section(blocks, in, MeshOptions{false, true}, scratch, culled);
  mesh_section(blocks, in, MeshOptions{true, true}, scratch, greedy);
  const std::vector<FaceRecord> ref = reference_mesh(reg, in);
  EXPECT_TRUE(same_faces(unit_faces(culled), ref)) << what << " (culled)";
  EXPECT_TRUE(same_faces(unit_faces(greedy), ref)) << what << " (greedy)";
  EXPECT_LE(greedy.quad_count(), culled.quad_count()) << what;
  EXPECT_EQ(unit_face_count(greedy), ref.size()) << what;
  // Merging without the lighting rule covers the same faces with no more quads.
  SectionMesh loose;
  mesh_section(blocks, in, MeshOptions{true, false}, scratch, loose);
  EXPECT_EQ(unit_face_count(loose), ref.size()) << what << " (no lighting rule)";
  EXPECT_LE(loose.quad_count(), greedy.quad_count()) << what;
  return ref.size();
}

/// Every block kind and state worth meshing: cubes of each transparency, slabs, stairs, slopes (all states),
/// crosses, water and lava at every level, falling or not, logs on each axis.
inline std::vector<Cell> palette_of_everything() {
  std::vector<Cell> out;
  for (const char* n : {"stone", "grass_block", "dirt", "oak_leaves", "glass", "ice", "glowstone", "sand"})
    out.push_back(cell_of(n));
  for (int a = 0; a < 3; ++a) out.push_back(cell_of("oak_log", state::make_axis(a)));
  out.push_back(cell_of("stone_slab", 0));
  out.push_back(cell_of("stone_slab", state::kHalfBit));
  for (int s = 0; s < 8; ++s) {
    out.push_back(cell_of("stone_stairs", static_cast<uint8_t>(s)));
    out.push_back(cell_of("stone_slope", static_cast<uint8_t>(s)));
    out.push_back(cell_of("grass_slope", static_cast<uint8_t>(s)));
  }
  for (const char* n : {"tall_grass", "torch", "poppy"}) out.push_back(cell_of(n));
  for (int l = 0; l < 8; ++l) {
    out.push_back(cell_of("water", state::make_fluid(l, false)));
    out.push_back(cell_of("water", state::make_fluid(l, l % 3 == 0)));
    out.push_back(cell_of("lava", state::make_fluid(l, false)));
  }
  return out;
}

/// The shipped registry with translucent colours added as a .vox import adds them (import::vox_block_def, glass
/// material: translucent cubes with ids past the shipped ones), and its baked table.
struct ImportedGlass {
  BlockRegistry registry;
  std::unique_ptr<BakedBlocks> baked;
  std::vector<uint16_t> ids;  // the added blocks, in id order
};
inline const ImportedGlass& imported_glass() {
  static const ImportedGlass g = [] {
    ImportedGlass out;
    out.registry = registry();
    import::VoxMaterial glass;
    glass.present = true;
    glass.type = import::VoxMaterialType::kGlass;
    glass.trans = 0.4f;
    for (const import::VoxRgba c : {import::VoxRgba{200, 40, 40, 255}, import::VoxRgba{40, 200, 40, 255},
                                    import::VoxRgba{40, 40, 200, 255}}) {
      auto id = out.registry.add(import::vox_block_def(c, glass));
      if (!id) std::abort();
      out.ids.push_back(id.value());
    }
    auto b = BakedBlocks::bake(out.registry);
    if (!b) std::abort();
    out.baked = std::make_unique<BakedBlocks>(std::move(b).value());
    return out;
  }();
  return g;
}

/// A random padded volume: each cell air with probability 1 - density, else a random entry of `palette`; cells are
/// chosen per block of `grain`^3 cells (grain 1: independent; larger: lumps that let faces merge). Light: sky from
/// a coarse random field, block light random per lump. Everything from hash3(seed, ...).
inline SectionInput noise_input(uint64_t seed, double density, int grain, const std::vector<Cell>& palette) {
  SectionInput in;
  for (int y = -1; y <= 16; ++y)
    for (int z = -1; z <= 16; ++z)
      for (int x = -1; x <= 16; ++x) {
        const int64_t gx = (x + 16) / grain, gy = (y + 16) / grain, gz = (z + 16) / grain;
        const uint64_t h = hash3(seed, gx, gy, gz);
        Cell c = kAir;
        if (hash_to_unit(h) < density) c = palette[(h >> 20) % palette.size()];
        in.set(x, y, z, c);
        const uint64_t hl = hash3(seed ^ 0x5bd1e995u, gx, gy, gz);
        const int sky = static_cast<int>((hl >> 8) % 16);
        const int r = (hl >> 12) % 4 == 0 ? static_cast<int>((hl >> 16) % 16) : 0;
        const int g = static_cast<int>((hl >> 24) % 16) / 2;
        const int b = static_cast<int>((hl >> 32) % 16) / 3;
        in.set_light(x, y, z, make_light(sky, r, g, b));
      }
  return in;
}

/// Generates the (2r+1)^2 columns around column `mid` with `generator_name`, inserts and lights them.
inline std::unique_ptr<World> generated_world(const std::string& generator_name, uint64_t seed, ColumnPos mid, int r) {
  auto gen = gen::make_generator(generator_name, seed, registry());
  if (!gen) {
    ADD_FAILURE() << gen.error().message;
    return nullptr;
  }
  std::vector<ColumnPos> positions;
  for (int64_t dx = -r; dx <= r; ++dx)
    for (int64_t dz = -r; dz <= r; ++dz) positions.push_back({mid.x + dx, mid.z + dz});
  auto world = std::make_unique<World>();
  for (auto& col : gen::generate_columns(**gen, positions, nullptr)) world->insert(std::move(col));
  const light::LightTable table(registry());
  light::light_columns(*world, table, positions, nullptr);
  return world;
}

/// A world of `n` x `n` empty (air) columns from column (x0, z0), with light 0 everywhere (tests set what they
/// need).
inline std::unique_ptr<World> empty_world(int64_t x0, int64_t z0, int n) {
  auto world = std::make_unique<World>();
  for (int64_t x = x0; x < x0 + n; ++x)
    for (int64_t z = z0; z < z0 + n; ++z) world->insert(std::make_unique<Column>(ColumnPos{x, z}));
  return world;
}

}  // namespace voxen::mesh::testing
