// A hashed test world for the lighting tests: every cell a pure function of (seed, x, y, z) (core/hash.h), with
// rough ground, holes and tunnels (many small light paths across column and section borders), water, leaves,
// glass, scattered emitters of every colour, a part-covered ceiling at the top of the world and an open pocket
// at the bottom. It is a fixture for stressing light, not terrain generation.
#pragma once

#include <memory>

#include "light_test_util.h"
#include "voxen/core/hash.h"

namespace voxen::lighttest {

/// The cell of the hashed world at a world position.
inline Cell hashed_cell(uint64_t seed, int64_t x, int64_t y, int64_t z) {
  static const Cell stone = block("stone"), water = block("water"), leaves = block("oak_leaves"),
                    glass = block("glass"), torch = block("torch"), glow = block("glowstone"),
                    red = block("red_lamp"), blue = block("blue_lamp"), green = block("green_lamp"),
                    lava = block("lava"), magma = block("magma");
  const uint64_t h = hash3(seed, x, y, z);
  const double u = hash_to_unit(h);
  // Ground height from 28 to 44, changing in 4x4 steps.
  const int64_t ground = 28 + static_cast<int64_t>(hash2(seed ^ 0x51ull, x >> 2, z >> 2) % 17);
  if (y == kMinY) return u < 0.3 ? kAir : stone;
  if (y <= kMinY + 3) {  // an open pocket at the bottom with a few emitters
    if (u < 0.004) return torch;
    if (u < 0.006) return red;
    return u < 0.08 ? stone : kAir;
  }
  if (y >= kMaxY - 1) return u < 0.6 ? stone : kAir;  // a ceiling with holes at the top of the world
  if (y > ground) {
    if (y == ground + 1 && u < 0.03) return torch;
    if (y >= 60 && y <= 62 && (x & 7) < 3 && (z & 7) < 3) return leaves;  // small canopies
    if (y == 61 && (x & 15) == 5 && u < 0.5) return glass;
    return kAir;
  }
  if (y > ground - 3 && (x & 15) > 9 && (z & 15) > 9) return water;  // pools
  // Tunnels: horizontal runs every 6 y through the ground, plus random holes.
  const bool tunnel = (y % 6 == 0 && (((z + y) & 7) == 0 || ((x - y) & 7) == 0)) || u < 0.18;
  if (tunnel) {
    if (u < 0.002) return glow;
    if (u < 0.003) return blue;
    if (u < 0.004) return green;
    if (u < 0.005) return lava;
    if (u < 0.006) return magma;
    if (u < 0.012) return torch;
    return kAir;
  }
  return stone;
}

/// A column of the hashed world (all 384 y), unlit.
inline std::unique_ptr<Column> hashed_column(uint64_t seed, ColumnPos pos) {
  auto c = std::make_unique<Column>(pos);
  for (int s = 0; s < kSectionsPerColumn; ++s) {
    const int base = section_base_y(s);
    if (base > 62 && base + 15 < kMaxY - 1) continue;  // air between the canopies and the ceiling
    for (int y = base; y < base + 16; ++y)
      for (int z = 0; z < 16; ++z)
        for (int x = 0; x < 16; ++x) c->set(x, y, z, hashed_cell(seed, pos.min_x() + x, y, pos.min_z() + z));
    c->section(s).compact();
  }
  return c;
}

/// The hashed world over columns (cx0..cx1) x (cz0..cz1), unlit.
inline World hashed_world(uint64_t seed, int64_t cx0, int64_t cx1, int64_t cz0, int64_t cz1) {
  World w;
  for (int64_t cx = cx0; cx <= cx1; ++cx)
    for (int64_t cz = cz0; cz <= cz1; ++cz) w.insert(hashed_column(seed, {cx, cz}));
  return w;
}

}  // namespace voxen::lighttest
