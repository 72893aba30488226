#include "world_setup.h"

#include "cli_util.h"
#include "seed_option.h"

namespace voxen::app {

void WorldFlags::add_to(CLI::App& cmd) {
  add_seed_option(cmd, seed, "world seed (decimal unsigned 64-bit integer, 0..18446744073709551615)");
  cmd.add_option("--generator", generator, "terrain generator: default | flat")->check(CLI::IsMember({"default", "flat"}));
}

BlockRegistry load_registry() {
  auto reg = BlockRegistry::load_default();
  if (!reg) throw RunError("block registry: " + reg.error().to_string());
  return std::move(reg).value();
}

std::unique_ptr<gen::Generator> make_generator_or_throw(const WorldFlags& flags, const BlockRegistry& reg) {
  auto g = gen::make_generator(flags.generator, flags.seed, reg);
  if (!g) throw UsageError("--generator", g.error().to_string());
  return std::move(g).value();
}

}  // namespace voxen::app
