// The far view's stored nodes (stream/lod_record.h): the payload round-trips, every malformed field is an error
// naming it and its byte offset, and a damaged sealed value never decodes.
#include <gtest/gtest.h>

#include <string>

#include "voxen/stream/lod_record.h"

namespace voxen::stream {
namespace {

mesh::LodQuad quad(int x, int y, int z, int face, int w, int h, int texture = 3) {
  return mesh::pack_lod_quad(mesh::LodQuadFields{x, y, z, face, w, h, texture, 0x1234});
}

LodNodeRecord sample() {
  LodNodeRecord r;
  r.signature = 0x0123456789ABCDEFull;
  r.level = 2;
  r.x = -5;
  r.z = 1LL << 40;
  r.sections.push_back({-1, {quad(0, 0, 0, 2, 16, 16), quad(31, 5, 7, 0, 1, 1)}});
  r.sections.push_back({0, {quad(3, 31, 2, 4, 16, 1)}});
  return r;
}

void put64(std::string& s, size_t at, uint64_t v) {
  for (int i = 0; i < 8; ++i) s[at + static_cast<size_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xFF);
}

TEST(LodRecord, RoundTripsAndTheKeyHoldsTheLevel) {
  const LodNodeRecord r = sample();
  const std::string value = encode_lod_record(r);
  auto back = decode_lod_record(value, 2, -5, 1LL << 40);
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(*back, r);
  const store::RecordKey k = lod_record_key(2, -5, 1LL << 40);
  const auto decoded = store::decode_key(store::encode_key(k));
  ASSERT_TRUE(decoded.has_value());
  EXPECT_EQ(*decoded, k);
  EXPECT_EQ(decoded->kind, store::RecordKind::kLod);
  EXPECT_EQ(decoded->pos.y, 2);
  LodNodeRecord empty;  // a node with nothing to draw (all air, or all under the ground) is a record too
  empty.level = 5;
  auto e = decode_lod_record(encode_lod_record(empty), 5, 0, 0);
  ASSERT_TRUE(e.ok()) << e.error().to_string();
  EXPECT_TRUE(e->sections.empty());
}

TEST(LodRecord, MalformedPayloadsNameTheFieldAndOffset) {
  const std::string good = encode_lod_payload(sample());
  // Header 27 bytes; section -1 at 27 (y 27..34, count 35..38, quads 39..54); section 0 at 55 (quads 67..74).
  struct Case {
    std::string payload;
    std::string expect;
    int64_t offset;
  };
  std::vector<Case> cases;
  cases.push_back({good.substr(0, 20), "truncated header", 20});
  {
    std::string s = good;
    s[8] = 3;
    cases.push_back({s, "level 3, the key says 2", 8});
  }
  {
    std::string s = good;
    put64(s, 9, 7);
    cases.push_back({s, "node (7, 1099511627776), the key says (-5, 1099511627776)", 9});
  }
  {
    std::string s = good;
    s[25] = 9;  // a level-2 node has 3 sections (y -1..1)
    cases.push_back({s, "9 sections, a level-2 node has 3", 25});
  }
  {
    std::string s = good;
    put64(s, 27, 2);
    cases.push_back({s, "section y 2 outside the stack -1..1", 27});
  }
  {
    std::string s = good;
    put64(s, 55, static_cast<uint64_t>(-1));
    cases.push_back({s, "section y -1 does not ascend", 55});
  }
  {
    std::string s = good;
    s[35] = 0;
    s[36] = 0;
    cases.push_back({s, "section y -1: 0 quads", 35});
  }
  {
    std::string s = good;
    put64(s, 39, quad(0, 0, 0, 2, 16, 16).bits | (uint64_t{6} << 15));
    cases.push_back({s, "quad 0: face 6", 39});
  }
  {
    std::string s = good;
    put64(s, 39, quad(0, 0, 0, 2, 16, 16).bits | (uint64_t{1} << 60));
    cases.push_back({s, "quad 0: reserved bits set", 39});
  }
  {
    std::string s = good;
    put64(s, 47, quad(31, 5, 7, 2, 2, 1).bits);  // +Y: U = x, so x 31..32
    cases.push_back({s, "quad 1: leaves the section", 47});
  }
  cases.push_back({good + "x", "1 bytes after the last section", static_cast<int64_t>(good.size())});
  cases.push_back({good.substr(0, 60), "section 1: truncated", 60});
  cases.push_back({good.substr(0, 70), "section y 0: truncated quads", 70});
  for (const Case& c : cases) {
    auto r = decode_lod_payload(c.payload, 2, -5, 1LL << 40);
    ASSERT_FALSE(r.ok()) << c.expect;
    EXPECT_NE(r.error().message.find(c.expect), std::string::npos) << r.error().to_string() << " / want: " << c.expect;
    EXPECT_EQ(r.error().offset, c.offset) << c.expect;
  }
}

TEST(LodRecord, ADamagedValueNeverDecodes) {
  const std::string value = encode_lod_record(sample());
  int refused = 0;
  for (size_t i = 0; i < value.size(); ++i) {
    std::string bad = value;
    bad[i] = static_cast<char>(bad[i] ^ 0x5A);
    auto r = decode_lod_record(bad, 2, -5, 1LL << 40);
    if (!r.ok()) {
      ++refused;
      EXPECT_EQ(r.error().message.rfind("LOD node level 2 at (-5, 1099511627776): ", 0), 0u) << r.error().to_string();
    } else {
      ADD_FAILURE() << "a flipped byte " << i << " decoded";
    }
  }
  EXPECT_EQ(refused, static_cast<int>(value.size()));
  EXPECT_FALSE(decode_lod_record(value.substr(0, value.size() - 3), 2, -5, 1LL << 40).ok());
}

}  // namespace
}  // namespace voxen::stream
