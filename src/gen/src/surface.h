// Surface blocks of the `default` generator: which blocks cover the rock at each (x, z), by biome, height,
// slope and a small patch noise (gravel and clay patches, snow lines). A pure function of (seed, x, z) and the
// terrain sample there, shared by the column builder and by tree placement (a tree grows only on soil).
#pragma once

#include <cstdint>

#include "column_work.h"
#include "gen_blocks.h"
#include "noise.h"
#include "voxen/gen/terrain_model.h"

namespace voxen::gen {

class SurfaceRules {
 public:
  SurfaceRules(uint64_t seed, const BlockIds& ids);
  /// Layers at world (x, z) whose terrain sample is s; slope is the largest height step to a 4-neighbour.
  SurfaceLayers layers(int64_t x, int64_t z, const TerrainSample& s, int slope) const;

 private:
  const BlockIds& m_ids;
  Fbm2 m_patch;
  uint64_t m_depth_seed;
};

}  // namespace voxen::gen
