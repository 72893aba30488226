// libFuzzer target for the far view's stored node records (stream/lod_record.h; build with -DVOXEN_FUZZ=ON and
// clang, docs/FUZZING.md). Each input is tried twice: as a raw payload, for the node its own header names (so the
// key check passes and the sections and quads get mutated), and as a sealed value (envelope, zstd frame, checksum).
// A payload must decode or give an Error with a message and a byte offset inside the input, never a crash or a
// sanitizer report; one that decodes must encode back to the same bytes (the format has one spelling).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "voxen/core/error.h"
#include "voxen/stream/lod_record.h"

namespace {

int64_t le64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return static_cast<int64_t>(v);
}

void check(const voxen::Error& e, size_t size) {
  VOXEN_ASSERT(!e.message.empty());
  VOXEN_ASSERT(e.offset >= 0 && static_cast<size_t>(e.offset) <= size);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace voxen::stream;
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  const int level = size > 8 ? data[8] % 9 : 0;
  const int64_t x = size >= 17 ? le64(data + 9) : 0;
  const int64_t z = size >= 25 ? le64(data + 17) : 0;
  auto payload = decode_lod_payload(in, level, x, z);
  if (payload.ok()) {
    VOXEN_ASSERT(encode_lod_payload(*payload) == in);
  } else {
    check(payload.error(), size);
  }
  auto value = decode_lod_record(in, level, x, z);
  if (!value.ok()) VOXEN_ASSERT(!value.error().message.empty());
  return 0;
}
