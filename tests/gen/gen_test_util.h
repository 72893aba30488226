// Helpers shared by the generation tests: the shipped registry, generators by name, areas of columns in a World.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string_view>
#include <vector>

#include "voxen/core/job_pool.h"
#include "voxen/gen/generator.h"
#include "voxen/world/world.h"

namespace voxen::gentest {

inline const BlockRegistry& registry() {
  static const BlockRegistry reg = [] {
    auto r = BlockRegistry::load_default();
    if (!r) ADD_FAILURE() << r.error().to_string();
    return std::move(r).value();
  }();
  return reg;
}

inline uint16_t id(std::string_view name) { return registry().id(name); }

inline std::unique_ptr<gen::Generator> make(std::string_view name, uint64_t seed) {
  auto g = gen::make_generator(name, seed, registry());
  if (!g) {
    ADD_FAILURE() << g.error().to_string();
    return nullptr;
  }
  return std::move(g).value();
}

/// The (2r+1)^2 column positions around `mid`, row by row.
inline std::vector<ColumnPos> area(ColumnPos mid, int r) {
  std::vector<ColumnPos> out;
  for (int dz = -r; dz <= r; ++dz)
    for (int dx = -r; dx <= r; ++dx) out.push_back({mid.x + dx, mid.z + dz});
  return out;
}

/// Generates the columns on the calling thread into a World.
inline World generate_world(const gen::Generator& g, const std::vector<ColumnPos>& positions) {
  World w;
  for (auto& c : gen::generate_columns(g, positions, nullptr)) w.insert(std::move(c));
  return w;
}

/// Counts as ground for surface_y: solid in the registry and not leaves (the definition the generator documents).
inline bool is_ground(Cell c) {
  const BlockDef& d = registry()[c.id];
  return d.solid && d.name.find("leaves") == std::string::npos;
}

/// World y of the top ground cell at column-local (lx, lz), scanning the stored cells from the top.
inline int64_t top_ground(const Column& col, int lx, int lz) {
  for (int64_t y = kMaxY; y >= kMinY; --y)
    if (is_ground(col.get(lx, y, lz))) return y;
  return kMinY - 1;
}

/// True if every cell of two columns is equal (section by section).
inline bool same_cells(const Column& a, const Column& b) {
  for (int s = 0; s < kSectionsPerColumn; ++s)
    if (!a.section(s).same_cells(b.section(s))) return false;
  return true;
}

}  // namespace voxen::gentest
