// A seeded stream of edit batches, for the crash test (tests/store/crash_test.cpp) and `voxen store-stress`.
// Batch b is a pure function of (seed, b): its size, positions and cells are hash3(seed, b, i) (core/hash.h), so the
// process that writes the batches and the test that checks the store after a SIGKILL agree on every batch without
// talking. Positions fall in a small fixed area (3 x 3 columns, y -8..23) so batches overwrite each other's cells
// often; cells include block states (stairs facing/half, log axis, fluid level) and air.
// Threads: pure functions.
#pragma once

#include <cstdint>
#include <vector>

#include "voxen/core/coords.h"
#include "voxen/world/block_registry.h"
#include "voxen/world/cell.h"

namespace voxen::store {

struct StressEdit {
  BlockPos pos;
  Cell cell;
};

/// The columns the stream edits: x and z in 0..2.
std::vector<ColumnPos> stress_columns();
/// Batch `batch` of the stream: 1..24 edits. Uses the registry's air, stone, bricks, glass, planks, stone_stairs,
/// oak_log and water (each must exist; VOXEN_ASSERT otherwise).
std::vector<StressEdit> stress_batch(uint64_t seed, uint64_t batch, const BlockRegistry& registry);

}  // namespace voxen::store
