// Helpers for the lighting tests: hand-built worlds (columns filled by hand, boxes carved), lighting through the
// real API, edits through light::apply_edit, and copies for comparing against fresh worlds and the oracle.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "voxen/light/light.h"
#include "voxen/light/oracle.h"
#include "voxen/world/block_registry.h"
#include "voxen/world/world.h"

namespace voxen::lighttest {

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
inline Cell block(const char* name) { return Cell{registry().id(name), 0}; }

/// A world of the columns (cx0..cx1) x (cz0..cz1), every cell `fill` at y <= fill_top and air above. Unlit.
inline World make_world(int64_t cx0, int64_t cx1, int64_t cz0, int64_t cz1, Cell fill, int64_t fill_top) {
  World w;
  for (int64_t cx = cx0; cx <= cx1; ++cx)
    for (int64_t cz = cz0; cz <= cz1; ++cz) {
      auto c = std::make_unique<Column>(ColumnPos{cx, cz});
      for (int s = 0; s < kSectionsPerColumn; ++s) {
        const int base = section_base_y(s);
        if (base + 15 <= fill_top) {
          c->section(s).fill(fill);
        } else if (base <= fill_top) {
          for (int y = base; y <= fill_top; ++y)
            for (int z = 0; z < 16; ++z)
              for (int x = 0; x < 16; ++x) c->set(x, y, z, fill);
        }
      }
      w.insert(std::move(c));
    }
  return w;
}

/// Sets every cell of the box lo..hi (inclusive, world blocks) in loaded columns, without touching light.
inline void fill_box(World& w, BlockPos lo, BlockPos hi, Cell c) {
  for (int64_t x = lo.x; x <= hi.x; ++x)
    for (int64_t z = lo.z; z <= hi.z; ++z) {
      Column* col = w.find(column_pos_of({x, 0, z}));
      if (!col) continue;
      for (int64_t y = lo.y; y <= hi.y; ++y) col->set(local_of(x), y, local_of(z), c);
    }
}
inline void set_cell(World& w, BlockPos p, Cell c) { fill_box(w, p, p, c); }

/// Lights every loaded column from scratch through the fast path (local part, then stitch in sorted order).
inline void light_all(World& w, JobPool* pool = nullptr) {
  const auto positions = w.positions();
  light::light_columns(w, table(), positions, pool);
}

/// Places a block through the game's edit path (World::make_edit + light::apply_edit).
inline light::EditResult edit(World& w, BlockPos p, Cell c) {
  auto e = w.make_edit(p, c);
  EXPECT_TRUE(e.has_value()) << "edit outside the loaded world at " << p.x << "," << p.y << "," << p.z;
  if (!e) return {};
  return light::apply_edit(w, table(), *e);
}

/// A deep copy of every loaded column (cells and light).
inline World clone(const World& w) {
  World out;
  for (const ColumnPos& p : w.positions()) out.insert(std::make_unique<Column>(*w.find(p)));
  return out;
}

/// The block-light triple and sky light at a position.
struct Rgb {
  int r, g, b;
  friend bool operator==(const Rgb&, const Rgb&) = default;
};
inline Rgb rgb(const World& w, BlockPos p) {
  const Light l = w.light(p);
  return {light_r(l), light_g(l), light_b(l)};
}
inline int sky(const World& w, BlockPos p) { return light_sky(w.light(p)); }
inline std::ostream& operator<<(std::ostream& os, const Rgb& c) {
  return os << "(" << c.r << ", " << c.g << ", " << c.b << ")";
}

/// EXPECT that the world's light equals a from-scratch recompute by the oracle.
#define EXPECT_MATCHES_ORACLE(world)                                            \
  do {                                                                          \
    const auto _d = ::voxen::light::verify_light((world), ::voxen::lighttest::table()); \
    EXPECT_TRUE(_d.equal()) << _d.to_string();                                  \
  } while (0)

/// EXPECT that two worlds hold the same light in every cell.
#define EXPECT_SAME_LIGHT(a, b)                                 \
  do {                                                          \
    const auto _d = ::voxen::light::compare_light((a), (b));    \
    EXPECT_TRUE(_d.equal()) << _d.to_string();                  \
  } while (0)

}  // namespace voxen::lighttest
