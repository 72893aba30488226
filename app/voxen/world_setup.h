// Shared set-up for subcommands that generate a world: the registry and the generator from the common flags.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "voxen/gen/generator.h"
#include "voxen/world/block_registry.h"

namespace voxen::app {

/// The flags every generating command takes: --seed, --generator.
struct WorldFlags {
  uint64_t seed = 1;
  std::string generator = "default";
  /// Adds --seed and --generator to a subcommand.
  void add_to(CLI::App& cmd);
};

/// Loads the default block registry; throws RunError naming the file and line on failure.
BlockRegistry load_registry();
/// Makes the generator named by flags; throws UsageError("--generator", ...) for an unknown name.
std::unique_ptr<gen::Generator> make_generator_or_throw(const WorldFlags& flags, const BlockRegistry& reg);

}  // namespace voxen::app
