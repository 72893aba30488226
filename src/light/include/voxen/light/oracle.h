// The lighting oracle: a from-scratch recompute of every loaded column's light, written for clarity and kept
// independent of the fast flood fill (it shares only the rule functions of rules.h), plus comparison helpers.
// Tests require the fast path (light_column, stitch, apply_edit, unload_column) to equal it exactly.
//
// Method: plain iterative relaxation (Gauss-Seidel sweeps, alternating direction) over dense per-column arrays of
// every loaded cell, starting from the sources alone, until a sweep changes nothing. The values only grow and are
// bounded, so it reaches the least fixed point of the rules, which is the only one (rules.h).
// Cost: about (number of sweeps) x 6 x 98,304 neighbour reads per loaded column: slow (tens of ms per column),
// which is fine for tests. Threads: main thread (it owns the World).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "voxen/core/coords.h"
#include "voxen/light/rules.h"
#include "voxen/world/world.h"

namespace voxen::light {

/// Recomputes the light of every loaded column from scratch (unloaded columns dark and opaque) and stores it,
/// replacing whatever light the columns held. Returns the number of relaxation sweeps it took.
int relight_all(World& world, const LightTable& table);

/// The outcome of comparing the light of two worlds holding the same column positions.
struct LightDiff {
  size_t mismatches = 0;      // cells whose light differs
  size_t columns_missing = 0; // columns loaded in one world but not the other
  BlockPos first{};           // the first mismatching cell (sorted column order, then section, then index)
  Light a = 0, b = 0;         // its light in the first and in the second world
  bool equal() const { return mismatches == 0 && columns_missing == 0; }
  /// One line: "equal", or the counts and the first mismatch as "x,y,z: sky S rgb (r,g,b) vs sky S rgb (r,g,b)".
  std::string to_string() const;
};

/// Compares the light of every cell of every column loaded in `a` or `b`.
LightDiff compare_light(const World& a, const World& b);

/// Copies every loaded column of `world`, relights the copy with relight_all and compares it with `world`: equal()
/// when the world's light is exactly what a from-scratch recompute gives.
LightDiff verify_light(const World& world, const LightTable& table);

}  // namespace voxen::light
