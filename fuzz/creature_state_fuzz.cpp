// libFuzzer target for the game's saved creatures (play::Creatures::load_state; the 'c' record's payload,
// docs/formats/world_store_v1.md payload 10; build with -DVOXEN_FUZZ=ON and clang, docs/FUZZING.md). Bytes must load
// or give an Error with a message and a byte offset inside the input, never a crash or a sanitizer report; bytes
// that load must save back to the same bytes (the format has one spelling), and a refused input must leave the
// creatures as they were.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "voxen/core/error.h"
#include "voxen/play/creatures.h"
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
  voxen::play::Creatures creatures(1, registry());
  const uint64_t empty = creatures.state_hash();
  const voxen::Status r = creatures.load_state(in);
  if (!r.ok()) {
    VOXEN_ASSERT(!r.error().message.empty());
    VOXEN_ASSERT(r.error().offset >= 0 && static_cast<size_t>(r.error().offset) <= size);
    VOXEN_ASSERT(creatures.state_hash() == empty);
    return 0;
  }
  VOXEN_ASSERT(creatures.save_state() == in);
  return 0;
}
