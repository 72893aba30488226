// Helpers for the LOD tests: the shipped registry and its Mipper, lit worlds (generated, or filled by hand), edits
// through the real path (light::apply_edit, then Pyramid::apply_edit) and the oracle check as a gtest assertion.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "../light/light_test_util.h"
#include "voxen/gen/generator.h"
#include "voxen/light/light.h"
#include "voxen/lod/cell.h"
#include "voxen/lod/oracle.h"
#include "voxen/lod/pyramid.h"
#include "voxen/world/world.h"

namespace voxen::lodtest {

// The shipped registry, its light table and blocks by name: the lighting tests' helpers.
using lighttest::block;
using lighttest::registry;
using lighttest::table;

inline const lod::Mipper& mipper() {
  static const lod::Mipper m(registry());
  return m;
}
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
  World w = lighttest::make_world(cx0, cx1, cz0, cz1, fill, fill_top);
  lighttest::light_all(w);
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
