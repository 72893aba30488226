// Where to put the player: "ask for room and for ground" (VoxelBlox's lesson: "not inside a block" alone
// once put a driver on top of the hill above the tunnel they had just dug).
//
// A standing spot is a cell (x, y, z) for the feet such that:
//   - ground: the cell below is an opaque full cube that is not foliage (no tree tops, no glass, no fluid);
//   - room: the feet cell and the one above it (the 1.8-block box) hold nothing solid and no fluid (plants are fine);
//   - it is the highest such spot of its (x, z) (open to the sky above the ground, not a cave under a hill).
// find_spawn searches outward from a wished (x, z): columns in rings of growing Chebyshev distance, each ring's
// columns by distance then (x, z), each column's cells by distance then (x, z): the first spot found wins, so the
// result is a pure function of the world's cells and the wish.
// Threads: pure given the cells; find_generated_spawn generates columns on the calling thread.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "voxen/core/coords.h"
#include "voxen/gen/generator.h"
#include "voxen/world/block_registry.h"
#include "voxen/world/column.h"
#include "voxen/world/world.h"

namespace voxen::play {

/// Looks up the column at a position, already held by the caller (nullptr when it cannot be had: the search skips
/// it). A read-only view of cells, not a source of columns (those come from stream::ColumnSource).
using ColumnLookup = std::function<const Column*(ColumnPos)>;

/// True if (x, y, z) is a standing spot by the rules above, except the "highest" rule (the caller scans from the
/// top). Reads cells through `column`, which must hold x, z.
bool is_standing_spot(const Column& column, const BlockRegistry& registry, int64_t x, int64_t y, int64_t z);

/// The highest standing spot of (x, z) in `column`, scanning down from the top; nullopt if none.
std::optional<int64_t> highest_standing_spot(const Column& column, const BlockRegistry& registry, int64_t x, int64_t z);

/// Searches outward from (x, z) up to `max_columns` rings of columns. Returns the feet cell.
std::optional<BlockPos> find_spawn(const ColumnLookup& columns, const BlockRegistry& registry, int64_t x, int64_t z,
                                   int max_rings = 64);

/// find_spawn over freshly generated columns (for a new world, before anything is loaded).
std::optional<BlockPos> find_generated_spawn(const gen::Generator& generator, const BlockRegistry& registry, int64_t x,
                                             int64_t z, int max_rings = 64);

/// find_spawn over the loaded columns of a world (unloaded ones are skipped).
std::optional<BlockPos> find_world_spawn(const World& world, const BlockRegistry& registry, int64_t x, int64_t z,
                                         int max_rings = 64);

}  // namespace voxen::play
