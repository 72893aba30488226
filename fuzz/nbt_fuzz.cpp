// libFuzzer target for the NBT reader (build with -DVOXEN_FUZZ=ON and clang; see docs/FUZZING.md).
// Every input must give a root tag or an Error whose message is not empty and whose byte offset lies inside the
// input: never a crash, a sanitizer report, a stack overflow (nesting is limited) or an allocation past a small
// multiple of the input (every length is checked against the bytes left first). A tree that reads is walked whole.
#include <cstddef>
#include <cstdint>
#include <span>

#include "voxen/import/nbt.h"

namespace {

// Visits every tag (so a malformed tree the reader built would show up under the sanitizers); returns their count.
size_t walk(const voxen::import::NbtTag& t) {
  size_t n = 1;
  if (const auto* l = t.list()) {
    for (const auto& item : l->items) {
      VOXEN_ASSERT(item.type == l->element);
      n += walk(item);
    }
  } else if (const auto* c = t.compound()) {
    VOXEN_ASSERT(c->names.size() == c->tags.size());
    for (const auto& child : c->tags) n += walk(child);
  }
  return n;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto r = voxen::import::read_nbt(std::span<const uint8_t>(data, size), "fuzz.nbt");
  if (!r) {
    VOXEN_ASSERT(!r.error().message.empty());
    VOXEN_ASSERT(r.error().offset >= 0 && static_cast<size_t>(r.error().offset) <= size);
    return 0;
  }
  VOXEN_ASSERT(walk(r->tag) <= size);  // every tag costs at least one input byte
  return 0;
}
