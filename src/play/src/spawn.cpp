#include "voxen/play/spawn.h"

#include <algorithm>
#include <map>
#include <memory>
#include <vector>

namespace voxen::play {
namespace {

bool is_foliage(const BlockDef& d) { return d.transparency != Transparency::kOpaque; }

// Free for the player's box: nothing solid and no fluid (plants, torches and air are fine).
bool is_room(const BlockDef& d) { return !d.solid && d.shape != Shape::kFluid; }

int64_t sq(int64_t v) { return v * v; }

}  // namespace

bool is_standing_spot(const Column& column, const BlockRegistry& reg, int64_t x, int64_t y, int64_t z) {
  if (y - 1 < kMinY || y + 1 > kMaxY) return false;
  const int lx = local_of(x), lz = local_of(z);
  const BlockDef& ground = reg[column.get(lx, y - 1, lz).id];
  if (!ground.is_opaque_cube() || is_foliage(ground)) return false;
  return is_room(reg[column.get(lx, y, lz).id]) && is_room(reg[column.get(lx, y + 1, lz).id]);
}

std::optional<int64_t> highest_standing_spot(const Column& column, const BlockRegistry& reg, int64_t x, int64_t z) {
  const int lx = local_of(x), lz = local_of(z);
  // The top non-room cell from above; the spot must stand on it (anything lower is under cover).
  for (int64_t y = kMaxY; y > kMinY; --y) {
    const BlockDef& d = reg[column.get(lx, y, lz).id];
    if (is_room(d)) continue;
    if (is_standing_spot(column, reg, x, y + 1, z)) return y + 1;
    return std::nullopt;
  }
  return std::nullopt;
}

std::optional<BlockPos> find_spawn(const ColumnLookup& columns, const BlockRegistry& reg, int64_t x, int64_t z,
                                   int max_rings) {
  const ColumnPos center{column_of(x), column_of(z)};
  for (int r = 0; r <= max_rings; ++r) {
    // The ring's columns, nearest (centre to the wish) first, ties by position.
    std::vector<std::pair<int64_t, ColumnPos>> ring;
    for (int64_t dx = -r; dx <= r; ++dx)
      for (int64_t dz = -r; dz <= r; ++dz) {
        if (std::max(std::abs(dx), std::abs(dz)) != r) continue;
        const ColumnPos c{center.x + dx, center.z + dz};
        ring.push_back({sq(c.min_x() + 8 - x) + sq(c.min_z() + 8 - z), c});
      }
    std::sort(ring.begin(), ring.end());
    for (const auto& [d2, c] : ring) {
      const Column* col = columns(c);
      if (!col) continue;
      std::vector<std::pair<int64_t, std::pair<int64_t, int64_t>>> cells;
      for (int lz = 0; lz < 16; ++lz)
        for (int lx = 0; lx < 16; ++lx) {
          const int64_t wx = c.min_x() + lx, wz = c.min_z() + lz;
          cells.push_back({sq(wx - x) + sq(wz - z), {wx, wz}});
        }
      std::sort(cells.begin(), cells.end());
      for (const auto& [cd2, xz] : cells)
        if (auto y = highest_standing_spot(*col, reg, xz.first, xz.second)) return BlockPos{xz.first, *y, xz.second};
    }
  }
  return std::nullopt;
}

std::optional<BlockPos> find_generated_spawn(const gen::Generator& generator, const BlockRegistry& reg, int64_t x,
                                             int64_t z, int max_rings) {
  std::unique_ptr<Column> current;
  return find_spawn(
      [&](ColumnPos c) -> const Column* {
        current = std::make_unique<Column>(c);
        generator.generate(*current);
        return current.get();
      },
      reg, x, z, max_rings);
}

std::optional<BlockPos> find_world_spawn(const World& world, const BlockRegistry& reg, int64_t x, int64_t z,
                                         int max_rings) {
  return find_spawn([&](ColumnPos c) { return world.find(c); }, reg, x, z, max_rings);
}

}  // namespace voxen::play
