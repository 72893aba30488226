// libFuzzer target for the network protocol's decoders (net/protocol.h; build with -DVOXEN_FUZZ=ON and clang,
// docs/FUZZING.md). The first byte picks the side (even: a client's message as the server decodes it, odd: a
// server's message as a client decodes it); the rest is a frame body. Any bytes must decode or give an Error naming
// the message, never a crash, a sanitizer report or an allocation past the frame limits; a message that decodes
// encodes back to exactly the bytes it came from (there is one encoding of each message, so nothing unchecked can
// hide in a field), except a Column, whose sections are re-compressed, which must decode again to the same cells.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "voxen/net/protocol.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const bool server = data[0] & 1;
  const std::string_view body(reinterpret_cast<const char*>(data + 1), size - 1);
  if (!server) {
    auto m = voxen::net::decode_client(body);
    if (!m) {
      if (m.error().to_string().empty()) std::abort();
      return 0;
    }
    const std::string again = voxen::net::encode(*m);
    if (std::string_view(again).substr(4) != body) std::abort();
    return 0;
  }
  auto m = voxen::net::decode_server(body);
  if (!m) {
    if (m.error().to_string().empty()) std::abort();
    return 0;
  }
  const std::string again = voxen::net::encode(*m);
  if (std::holds_alternative<voxen::net::ColumnData>(*m)) {
    auto back = voxen::net::decode_server(std::string_view(again).substr(4));
    if (!back || !(*back == *m)) std::abort();
  } else if (std::string_view(again).substr(4) != body) {
    std::abort();
  }
  return 0;
}
