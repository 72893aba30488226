#include "voxen/gen/generator.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <cstdio>

#include "voxen/core/hash.h"

#include "flat_generator.h"
#include "gen_blocks.h"
#include "terrain_generator.h"

namespace voxen::gen {

Result<std::unique_ptr<Generator>> make_generator(std::string_view name, uint64_t seed, const BlockRegistry& registry) {
  // Both generators place only blocks the shipped registry defines; check them up front so a trimmed registry
  // gives an error instead of an abort inside a worker.
  static constexpr std::string_view kNeeded[] = {
      "bedrock", "stone", "dirt", "grass_block", "planks", "cobblestone", "water", "sand", "bricks", "oak_log",
      "glowstone", "torch", "stone_slab", "stone_stairs"};
  for (auto n : kNeeded)
    if (!registry.find(n)) return Error{"generator '" + std::string(name) + "' needs block '" + std::string(n) + "', missing from the registry"};
  if (name == "flat") return make_flat_generator(seed, registry);
  if (name == "default") {
    for (auto n : kTerrainBlockNames)
      if (!registry.find(n)) return Error{"generator 'default' needs block '" + std::string(n) + "', missing from the registry"};
    for (auto n : kStructureBlockNames)
      if (!registry.find(n)) return Error{"generator 'default' needs block '" + std::string(n) + "', missing from the registry"};
    return make_terrain_generator(seed, registry);
  }
  return Error{"unknown generator '" + std::string(name) + "' (expected default or flat)"};
}

std::vector<std::unique_ptr<Column>> generate_columns(const Generator& gen, const std::vector<ColumnPos>& positions,
                                                      JobPool* pool, int64_t center_x, int64_t center_z) {
  std::vector<std::unique_ptr<Column>> out(positions.size());
  for (size_t i = 0; i < positions.size(); ++i) out[i] = std::make_unique<Column>(positions[i]);
  if (!pool) {
    for (auto& c : out) gen.generate(*c);
    return out;
  }
  // Each job writes only its own column, so the result does not depend on which job ran first.
  for (size_t i = 0; i < positions.size(); ++i) {
    const double dx = static_cast<double>(positions[i].min_x() + 8 - center_x);
    const double dz = static_cast<double>(positions[i].min_z() + 8 - center_z);
    Column* col = out[i].get();
    pool->submit(dx * dx + dz * dz, [&gen, col] { gen.generate(*col); });
  }
  pool->wait_idle();
  return out;
}

std::string fingerprint(const Generator& generator, const BlockRegistry& registry) {
  uint64_t h = 0x5EED5EED5EED5EEDull;
  uint32_t buf[kSectionVolume];
  for (const ColumnPos pos : {ColumnPos{0, 0}, ColumnPos{-3, 5}}) {
    Column c(pos);
    generator.generate(c);
    for (int s = 0; s < kSectionsPerColumn; ++s) {
      c.section(s).unpack(buf);
      for (int i = 0; i < kSectionVolume; ++i) {
        const Cell cell = Cell::from_packed(buf[i]);
        // By name, so renumbering the registry does not look like a new generator.
        const uint64_t nh = fnv1a(kFnv1aOffset, registry[cell.id].name);
        h = mix64(h ^ nh ^ (static_cast<uint64_t>(cell.state) << 56));
      }
    }
  }
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
  return out;
}

}  // namespace voxen::gen
