// The protocol's encoding (net/protocol.h, docs/formats/protocol.md): every message survives a round trip, and the
// decoder refuses what a message can get wrong on its own, naming message, field and byte offset, never reading
// past the end (every truncation of every message is an error, never a crash).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "voxen/core/hash.h"
#include "voxen/net/edit_log.h"
#include "voxen/net/protocol.h"

namespace voxen::net {
namespace {

std::string body_of(const std::string& frame) {
  uint32_t len = 0;
  for (int i = 0; i < 4; ++i) len |= static_cast<uint32_t>(static_cast<uint8_t>(frame[static_cast<size_t>(i)])) << (8 * i);
  EXPECT_EQ(len + 4, frame.size());
  return frame.substr(4);
}

std::vector<ClientMessage> client_samples() {
  return {Hello{kProtocolVersion, "alice_01", 8},
          RequestColumns{{{0, 0}, {-1, 5}, {(kMaxCoordinate >> 4) - 1, -(kMaxCoordinate >> 4)}}},
          ReleaseColumns{{{3, -4}}},
          EditRequest{7, {-17, -128, 33}, Cell{1, 0}, Cell{5, 3}},
          PoseUpdate{Pose{-1.5, 70.25, 1e9, 90.0f, -45.0f, 1}},
          Chat{"hello, w\xC3\xB6rld \xF0\x9F\x99\x82"},
          Leave{},
          LogQuery{12},
          HashQuery{{{1, 2}}}};
}

std::vector<ServerMessage> server_samples() {
  Section s;
  s.set(1, 2, 3, Cell{4, 1});
  s.set(15, 15, 15, Cell{9, 0});
  ColumnData edited{{-2, 7}, 99, (1u << 3) | (1u << 23), {s, Section(Cell{2, 0})}};
  return {Welcome{kProtocolVersion, 3, "my world", 42, "default", "0123456789abcdef", 77, 8, 600, 20, 0.5, 71.0, 0.5, 12, 400},
          Refuse{"the name 'alice' is taken on this server"},
          ColumnData{{1, 1}, 5, 0, {}},
          edited,
          EditResult{7, EditRefusal::kCellChanged, 0, {1, 2, 3}, Cell{1, 0}},
          Edits{{EditEvent{400, 2, {-5, 255, 9}, Cell{3, 0}}, EditEvent{401, 2, {-5, 254, 9}, Cell{0, 0}}}},
          Changes{12, {-1, -1}, {CellChangeLocal{15, 0, -128, Cell{8, 2}}, CellChangeLocal{0, 15, 255, Cell{8, 7}}}},
          Poses{{PlayerPose{2, Pose{1, 2, 3, 4, 5, 0}}}},
          PlayerJoined{4, "bob"},
          PlayerLeft{4, "left"},
          ChatLine{4, "hi"},
          LogEntries{true, {{1, 10}, {2, 11}}},
          Hashes{{ColumnHash{{0, 0}, true, 0xDEADBEEFull}, ColumnHash{{1, 0}, false, 0}}}};
}

TEST(NetProtocol, EveryClientMessageRoundTrips) {
  for (const ClientMessage& m : client_samples()) {
    auto back = decode_client(body_of(encode(m)));
    ASSERT_TRUE(back) << back.error().to_string();
    EXPECT_EQ(*back, m) << "message index " << m.index();
  }
}

TEST(NetProtocol, EveryServerMessageRoundTrips) {
  for (const ServerMessage& m : server_samples()) {
    auto back = decode_server(body_of(encode(m)));
    ASSERT_TRUE(back) << back.error().to_string();
    EXPECT_TRUE(*back == m) << "message index " << m.index();
  }
}

TEST(NetProtocol, EveryTruncationIsAnErrorNamingTheMessage) {
  for (const ClientMessage& m : client_samples()) {
    const std::string body = body_of(encode(m));
    for (size_t n = 0; n < body.size(); ++n) {
      auto r = decode_client(body.substr(0, n));
      ASSERT_FALSE(r) << "message index " << m.index() << " cut to " << n << " bytes decoded";
      if (n > 0) {
        EXPECT_NE(r.error().to_string().find(msg_name(static_cast<uint8_t>(body[0]))), std::string::npos) << r.error().to_string();
      }
    }
    auto longer = decode_client(body + "x");
    ASSERT_FALSE(longer);
    EXPECT_NE(longer.error().to_string().find("1 bytes after the message"), std::string::npos) << longer.error().to_string();
  }
  for (const ServerMessage& m : server_samples()) {
    const std::string body = body_of(encode(m));
    for (size_t n = 0; n < body.size(); ++n) ASSERT_FALSE(decode_server(body.substr(0, n))) << "message index " << m.index() << " cut to " << n;
  }
}

TEST(NetProtocol, FieldsOutOfRangeAreNamedWithTheirOffset) {
  auto expect_error = [](std::string body, const std::string& needle) {
    auto r = decode_client(body);
    ASSERT_FALSE(r) << "decoded: " << needle;
    EXPECT_NE(r.error().to_string().find(needle), std::string::npos) << r.error().to_string();
  };
  // An edit at y 300: y sits after client_seq (4) and x (8), at byte 13 of the body.
  std::string edit = body_of(encode(ClientMessage(EditRequest{1, {0, 0, 0}, kAir, Cell{1, 0}})));
  edit[13] = static_cast<char>(300 & 0xFF);
  edit[14] = static_cast<char>(300 >> 8);
  expect_error(edit, "y 300 outside -128..255 at byte 5");
  // x past 2^59.
  std::string far = body_of(encode(ClientMessage(EditRequest{1, {0, 0, 0}, kAir, Cell{1, 0}})));
  far[12] = 0x40;  // the top byte of x: 2^62
  expect_error(far, "outside the world");
  // Sequence number 0.
  expect_error(body_of(encode(ClientMessage(EditRequest{0, {0, 0, 0}, kAir, Cell{1, 0}}))), "client_seq: 0");
  // A name with a space, a view radius of 0, a wrong magic, another protocol version.
  std::string hello = body_of(encode(ClientMessage(Hello{kProtocolVersion, "ab", 4})));
  std::string spaced = hello;
  spaced[8] = ' ';
  expect_error(spaced, "name: not 1..32 characters");
  std::string radius0 = hello;
  radius0.back() = 0;
  expect_error(radius0, "view_radius: 0 outside 1..32");
  std::string magic = hello;
  magic[1] = 'X';
  expect_error(magic, "not a voxen client");
  std::string version = hello;
  version[5] = 9;
  expect_error(version, "protocol version 9");
  // A pose that is not finite, one far out, a pitch past 90.
  expect_error(body_of(encode(ClientMessage(PoseUpdate{Pose{std::nan(""), 0, 0, 0, 0, 0}}))), "not a finite number");
  expect_error(body_of(encode(ClientMessage(PoseUpdate{Pose{0, 1e6, 0, 0, 0, 0}}))), "position outside the world");
  expect_error(body_of(encode(ClientMessage(PoseUpdate{Pose{0, 0, 0, 0, 95, 0}}))), "pitch out of range");
  // Chat: control characters, bad UTF-8 (an overlong '/', a lone continuation byte, a surrogate), too long.
  expect_error(body_of(encode(ClientMessage(Chat{"a\nb"}))), "not UTF-8 text");
  expect_error(body_of(encode(ClientMessage(Chat{"\xC0\xAF"}))), "not UTF-8 text");
  expect_error(body_of(encode(ClientMessage(Chat{"\x80"}))), "not UTF-8 text");
  expect_error(body_of(encode(ClientMessage(Chat{"\xED\xA0\x80"}))), "not UTF-8 text");
  expect_error(body_of(encode(ClientMessage(Chat{std::string(300, 'a')}))), "300 bytes (1..256)");
  // Column counts: 0, over the cap, more than the bytes left.
  std::string req = body_of(encode(ClientMessage(RequestColumns{{{0, 0}}})));
  std::string zero = req.substr(0, 1) + std::string("\0\0", 2);
  expect_error(zero, "count 0 outside 1..64");
  std::string many = req;
  many[1] = 65;
  expect_error(many, "count 65 outside 1..64");
  std::string short_list = req;
  short_list[1] = 2;
  expect_error(short_list, "count 2 needs 32 bytes, 16 left");
  // Types the client may not send, and the server's decoder refusing client types.
  expect_error(std::string(1, static_cast<char>(MsgType::kWelcome)), "not a message a client may send");
  expect_error(std::string(1, static_cast<char>(200)), "unknown (200)");
  auto r = decode_server(std::string(1, static_cast<char>(MsgType::kEdit)));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().to_string().find("not a message a server may send"), std::string::npos);
}

TEST(NetProtocol, ALongReasonIsCutAtACharacterBoundary) {
  std::string reason = "x";
  for (int i = 0; i < 400; ++i) reason += "\xC3\xA9";  // 'e' with an accent: 2 bytes, so byte 512 falls inside one
  auto back = decode_server(body_of(encode(ServerMessage(Refuse{reason}))));
  ASSERT_TRUE(back) << back.error().to_string();
  const std::string& got = std::get<Refuse>(*back).reason;
  EXPECT_EQ(got.size(), 511u);
  EXPECT_EQ(got, reason.substr(0, 511));
}

TEST(NetProtocol, ColumnSectionsAreCheckedLikeStoredOnes) {
  Section s;
  s.set(0, 0, 0, Cell{3, 0});
  std::string body = body_of(encode(ServerMessage(ColumnData{{0, 0}, 1, 1u, {s}})));
  std::string bad = body;
  bad.back() ^= 0x55;  // inside the zstd frame / checksum
  auto r = decode_server(bad);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().to_string().find("message Column (66): sections:"), std::string::npos) << r.error().to_string();
  // A mask that names two sections while one is sent.
  std::string two = body;
  two[1 + 16 + 8] = 3;
  r = decode_server(two);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().to_string().find("section 1"), std::string::npos) << r.error().to_string();
  // Bits past section 23.
  std::string high = body;
  high[1 + 16 + 8 + 3] = 0x01;
  EXPECT_FALSE(decode_server(high));
}

TEST(NetProtocol, RandomBytesNeverCrashTheDecoders) {
  // A seeded stream of mutations of real messages (the fuzz target runs this for minutes; this is its smoke test).
  std::vector<std::string> seeds;
  for (const ClientMessage& m : client_samples()) seeds.push_back(body_of(encode(m)));
  for (const ServerMessage& m : server_samples()) seeds.push_back(body_of(encode(m)));
  size_t decoded = 0;
  for (uint64_t i = 0; i < 20000; ++i) {
    HashStream h(hash1(7, static_cast<int64_t>(i)));
    std::string b = seeds[h.below(seeds.size())];
    const int flips = 1 + static_cast<int>(h.below(4));
    for (int k = 0; k < flips && !b.empty(); ++k) b[h.below(b.size())] = static_cast<char>(h.below(256));
    if (h.below(4) == 0) b.resize(h.below(b.size() + 1));
    decoded += decode_client(b).ok();
    decoded += decode_server(b).ok();
  }
  EXPECT_GT(decoded, 0u);  // some mutations stay valid messages; none may crash
}

TEST(NetEditLog, PagesRoundTripAndDamageIsNamed) {
  std::vector<LogEntry> entries = {{5, "alice", 1, {1, 2, 3}, Cell{1, 0}, kAir}, {6, "bob", 9, {-1, -128, -3}, kAir, Cell{4, 2}}};
  const std::string page = encode_log_page(entries);
  auto back = decode_log_page(page);
  ASSERT_TRUE(back) << back.error().to_string();
  EXPECT_EQ(*back, entries);
  for (size_t n = 0; n < page.size(); ++n) EXPECT_FALSE(decode_log_page(page.substr(0, n))) << n;
  std::string gap = page;
  gap[10 + 8 + 1 + 5 + 4 + 8 + 2 + 8 + 3 + 3] = 7;  // the second entry's server_seq: 7 does not follow 5
  auto r = decode_log_page(gap);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().to_string().find("does not follow"), std::string::npos) << r.error().to_string();
}

}  // namespace
}  // namespace voxen::net
