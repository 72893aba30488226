// The `flat` generator: a superflat test world whose content repeats every 64 blocks in x and z, for checks that
// compare one place with another (the floating-origin check renders the same relative view at the origin and
// 2^40 blocks out and expects identical pixels). See flat_generator.cpp for the layout of one 64 x 64 tile.
#pragma once

#include <memory>

#include "voxen/gen/generator.h"

namespace voxen::gen {

std::unique_ptr<Generator> make_flat_generator(uint64_t seed, const BlockRegistry& registry);

}  // namespace voxen::gen
