// libFuzzer target for the world simulation's saved pending updates (sim::Simulator::load_state; the 'p' record's
// payload, docs/formats/world_store_v1.md payload 8; build with -DVOXEN_FUZZ=ON and clang, docs/FUZZING.md). Bytes
// must load or give an Error with a message and a byte offset inside the input, never a crash or a sanitizer
// report; bytes that load must save back to the same bytes (the format has one spelling), and a refused input must
// leave the simulator as it was.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "voxen/core/error.h"
#include "voxen/sim/simulator.h"
#include "voxen/world/block_registry.h"

namespace {

const voxen::BlockRegistry& registry() {
  static const voxen::BlockRegistry r = [] {
    auto loaded = voxen::BlockRegistry::load_default();
    VOXEN_ASSERT(loaded.ok());
    return std::move(*loaded);
  }();
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  voxen::sim::Simulator sim(registry(), 1);
  const voxen::Status r = sim.load_state(in);
  if (!r.ok()) {
    VOXEN_ASSERT(!r.error().message.empty());
    VOXEN_ASSERT(r.error().offset >= 0 && static_cast<size_t>(r.error().offset) <= size);
    VOXEN_ASSERT(sim.tick() == 0 && sim.quiet());
    return 0;
  }
  VOXEN_ASSERT(sim.save_state() == in);
  return 0;
}
