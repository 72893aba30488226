#include "voxen/store/stress.h"

#include "voxen/core/error.h"
#include "voxen/core/hash.h"

namespace voxen::store {

std::vector<ColumnPos> stress_columns() {
  std::vector<ColumnPos> out;
  for (int64_t x = 0; x < 3; ++x)
    for (int64_t z = 0; z < 3; ++z) out.push_back({x, z});
  return out;
}

std::vector<StressEdit> stress_batch(uint64_t seed, uint64_t batch, const BlockRegistry& registry) {
  auto id = [&](const char* name) {
    auto v = registry.find(name);
    VOXEN_ASSERT(v.has_value());
    return *v;
  };
  const uint16_t air = id("air"), stone = id("stone"), bricks = id("bricks"), glass = id("glass"), planks = id("planks"),
                 stairs = id("stone_stairs"), log = id("oak_log"), water = id("water");
  const uint64_t h = hash2(seed, static_cast<int64_t>(batch), -1);
  const int count = 1 + static_cast<int>(h % 24);
  std::vector<StressEdit> out;
  out.reserve(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) {
    const uint64_t a = hash3(seed, static_cast<int64_t>(batch), i, 1);
    const uint64_t b = hash3(seed, static_cast<int64_t>(batch), i, 2);
    const BlockPos p{static_cast<int64_t>(a % 48), -8 + static_cast<int64_t>((a >> 8) % 32), static_cast<int64_t>((a >> 16) % 48)};
    Cell c;
    switch (b % 8) {
      case 0: c = {air, 0}; break;
      case 1: c = {stone, 0}; break;
      case 2: c = {bricks, 0}; break;
      case 3: c = {glass, 0}; break;
      case 4: c = {planks, 0}; break;
      case 5: c = {stairs, state::make_facing(static_cast<int>((b >> 8) & 3), ((b >> 10) & 1) != 0)}; break;
      case 6: c = {log, state::make_axis(static_cast<int>((b >> 8) % 3))}; break;
      default: c = {water, state::make_fluid(static_cast<int>((b >> 8) & 7), ((b >> 11) & 1) != 0)}; break;
    }
    out.push_back({p, c});
  }
  return out;
}

}  // namespace voxen::store
