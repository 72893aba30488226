// Terrain generation: a pure function of (seed, int64 column coordinates).
//
// A Generator fills a Column with its generated cells. The result depends only on the seed and the column's
// position: any column regenerates byte-identically in any order, on any thread, after any unload. There is no
// random stream; every random choice is a hash of (seed, coordinates) (voxen/core/hash.h). Features that cross
// column borders (trees) are decided from their own origin's coordinates, so either column places them the same.
//
// Space: world blocks, Y up, y in [kMinY, kMaxY]; sea level kSeaLevel (62).
// Threads: generate() and surface_y() are const and safe to call concurrently.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "voxen/core/error.h"
#include "voxen/core/job_pool.h"
#include "voxen/world/block_registry.h"
#include "voxen/world/column.h"

namespace voxen::gen {

class Generator {
 public:
  virtual ~Generator() = default;
  /// Fills all 24 sections of `out` (whose pos() says where it is) with generated cells. Light is not touched.
  virtual void generate(Column& out) const = 0;
  /// World y of the top solid (non-air, non-fluid, non-plant, non-leaves) block at world (x, z) as generated;
  /// the camera's "surface" and the spawn point stand on it. Logs and cacti count. Agrees with generate()'s cells.
  virtual int64_t surface_y(int64_t x, int64_t z) const = 0;
  /// "default" or "flat".
  virtual std::string_view name() const = 0;
  /// The seed this generator was made with.
  virtual uint64_t seed() const = 0;
};

/// Makes a generator by name ("default" or "flat"). Errors: an unknown name, or a registry missing a block the
/// generator places (named in the message).
Result<std::unique_ptr<Generator>> make_generator(std::string_view name, uint64_t seed, const BlockRegistry& registry);

/// Generates the given columns on `pool` (or on the calling thread when pool is null), nearest to `center`
/// (world block x, z) first. Returns the columns in the same order as `positions`; output is byte-identical
/// whatever the pool size or the order in which jobs ran.
std::vector<std::unique_ptr<Column>> generate_columns(const Generator& gen, const std::vector<ColumnPos>& positions,
                                                      JobPool* pool, int64_t center_x = 0, int64_t center_z = 0);

/// Hash of what a generator makes at two fixed columns ((0, 0) and (-3, 5)), by block name and state, as 16 hex
/// digits: a saved world records it at creation and warns on open when its generator's output has changed
/// (store::GeneratorFingerprint). Renumbering the registry does not change it.
std::string fingerprint(const Generator& generator, const BlockRegistry& registry);

}  // namespace voxen::gen
