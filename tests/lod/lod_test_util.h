// Helpers for the LOD tests: the shipped registry and its Mipper, lit worlds (generated, or filled by hand), edits
// through the real path (light::apply_edit, then Pyramid::apply_edit) and the oracle check as a gtest assertion.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <vector>

#include "voxen/gen/generator.h"
#include "voxen/light/light.h"
#include "voxen/lod/cell.h"
#include "voxen/lod/oracle.h"
#include "voxen/lod/pyramid.h"
#include "voxen/world/block_registry.h"
#include "voxen/world/world.h"

namespace voxen::lodtest {

/// The shipped registry (data/blocks.toml), loaded once.
inline const BlockRegistry& registry() {
  static const BlockRegistry r = [] {
    auto loaded = BlockRegistry::load_default();
    if (!loaded) {
      ADD_FAILURE() << loaded.error().file << ": " << loaded.error().message;
      std::abort();
    }
    return std::move(loaded.value());
  }();
  return r;
}
inline const light::LightTable& table() {
  static const light::LightTable t(registry());
  return t;
}
inline const lod::Mipper& mipper() {
  static const lod::Mipper m(registry());
  return m;
}
inline Cell block(const char* name) { return Cell{registry().id(name), 0}; }
inline lod::LodCell lod_cell(const char* name, Light light = 0) { return lod::LodCell::make(block(name), light); }

/// Every column position of (cx0..cx1) x (cz0..cz1), x then z.
inline std::vector<ColumnPos> area(int64_t cx0, int64_t cx1, int64_t cz0, int64_t cz1) {
  std::vector<ColumnPos> out;
  for (int64_t cx = cx0; cx <= cx1; ++cx)
    for (int64_t cz = cz0; cz <= cz1; ++cz) out.push_back({cx, cz});
  return out;
}

/// The default generator's columns over (cx0..cx1) x (cz0..cz1), inserted and lit.
inline World generated_world(uint64_t seed, int64_t cx0, int64_t cx1, int64_t cz0, int64_t cz1) {
  auto g = gen::make_generator("default", seed, registry());
  EXPECT_TRUE(g.ok());
  const std::vector<ColumnPos> positions = area(cx0, cx1, cz0, cz1);
  World w;
  for (auto& c : gen::generate_columns(**g, positions, nullptr)) w.insert(std::move(c));
  light::light_columns(w, table(), positions, nullptr);
  return w;
}

/// Columns (cx0..cx1) x (cz0..cz1) of `fill` at y <= fill_top and air above, inserted and lit.
inline World filled_world(int64_t cx0, int64_t cx1, int64_t cz0, int64_t cz1, Cell fill, int64_t fill_top) {
  World w;
  const std::vector<ColumnPos> positions = area(cx0, cx1, cz0, cz1);
  for (const ColumnPos& p : positions) {
    auto c = std::make_unique<Column>(p);
    for (int s = 0; s < kSectionsPerColumn; ++s) {
      const int base = section_base_y(s);
      if (base + 15 <= fill_top) {
        c->section(s).fill(fill);
      } else if (base <= fill_top) {
        for (int64_t y = base; y <= fill_top; ++y)
          for (int z = 0; z < 16; ++z)
            for (int x = 0; x < 16; ++x) c->set(x, y, z, fill);
      }
    }
    w.insert(std::move(c));
  }
  light::light_columns(w, table(), positions, nullptr);
  return w;
}

/// Places `after` at p through the game's path: World + light (light::apply_edit), then the pyramid. Returns the
/// pyramid's report.
inline lod::LodUpdate edit(World& world, lod::Pyramid& pyramid, const BlockPos& p, Cell after) {
  const auto e = world.make_edit(p, after);
  EXPECT_TRUE(e.has_value()) << p.x << ',' << p.y << ',' << p.z;
  if (!e) return {};
  const light::EditResult r = light::apply_edit(world, table(), *e);
  EXPECT_TRUE(r.applied);
  return pyramid.apply_edit(world, *e, r.light);
}

/// A pyramid of every column loaded in `world`, built column by column.
inline lod::Pyramid pyramid_of(const World& world, int levels = lod::kDefaultLevels) {
  lod::Pyramid p(mipper(), levels);
  for (const ColumnPos& pos : world.positions()) p.add_column(*world.find(pos));
  return p;
}

/// Passes when the pyramid equals the from-scratch rebuild of `world`.
inline ::testing::AssertionResult matches_rebuild(const lod::Pyramid& p, const World& world) {
  const lod::PyramidDiff d = lod::verify_pyramid(p, world, mipper());
  if (d.equal()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << d.to_string();
}

}  // namespace voxen::lodtest
