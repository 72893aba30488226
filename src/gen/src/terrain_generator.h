// The `default` generator: noise terrain with biomes, caves, ores, trees, plants, water and the deep.
#pragma once

#include <memory>

#include "voxen/gen/generator.h"

namespace voxen::gen {

std::unique_ptr<Generator> make_terrain_generator(uint64_t seed, const BlockRegistry& registry);

}  // namespace voxen::gen
