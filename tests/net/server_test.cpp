// The server and its clients in one process on loopback (net/server.h, net/client.h): edits reach the other
// players, a refused placement rolls back, a late joiner sees every earlier edit, a restarted server serves the same
// world, bad messages each disconnect their sender with their reason, and a client that stops reading is dropped
// while the others go on. Every check reads cells, hashes, reasons or counts a user would see.
#include <gtest/gtest.h>

#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <chrono>
#include <filesystem>
#include <functional>
#include <thread>

#include "voxen/net/client.h"
#include "voxen/net/protocol.h"
#include "voxen/net/server.h"
#include "voxen/net/transport.h"
#include "net_test_util.h"

namespace voxen::net {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using namespace testing;

/// The cell a player at spawn can dig: the ground a step away from the spawn column.
BlockPos ground_near(const Client& c) {
  const int64_t x = 2, z = 0;
  for (int64_t y = kMaxY; y > kMinY; --y) {
    const Cell cell = c.world().get(BlockPos{x, y, z});
    if (registry()[cell.id].solid) return BlockPos{x, y, z};
  }
  return BlockPos{x, 0, z};
}

/// A server on a new world (options_for) with Alice joined and holding her view.
struct AliceJoined {
  TempDir dir;
  RunningServer rs{options_for(dir.path)};
  NetIo io;
  std::unique_ptr<Client> a = join(io, rs.port(), "alice");
  AliceJoined() { EXPECT_TRUE(pump({a.get()}, [&] { return a->view_complete(); })); }
};

TEST(NetServer, TheBytesOfConnectionsOpenAtShutdownAreCounted) {
  AliceJoined w;
  ASSERT_FALSE(HasFailure());
  const ServerStats st = w.rs.shutdown();  // alice still connected
  EXPECT_GT(st.bytes_in, 0u);
  EXPECT_GT(st.bytes_out, 25u * 37u) << "25 columns at least, 37 bytes each unedited";
}

TEST(NetServer, AnEditFromOneClientReachesTheOther) {
  TempDir dir;
  RunningServer rs(options_for(dir.path));
  NetIo io;
  auto a = join(io, rs.port(), "alice");
  auto b = join(io, rs.port(), "bob");
  ASSERT_TRUE(pump({a.get(), b.get()}, [&] { return a->view_complete() && b->view_complete() && b->players().size() == 1; }));
  const BlockPos g = ground_near(*a);
  ASSERT_NE(b->world().get(g), kAir);
  ASSERT_TRUE(a->edit(g, kAir));
  EXPECT_EQ(a->world().get(g), kAir);  // predicted at once
  ASSERT_TRUE(pump({a.get(), b.get()}, [&] { return b->world().get(g) == kAir && a->pending() == 0; }));
  EXPECT_EQ(a->counters().edits_accepted, 1u);
  ASSERT_EQ(a->accepted().size(), 1u);
  // Poses travel too: bob sees alice where she says she is.
  a->set_pose(Pose{3.5, a->pose().y, 1.5, 45, 0, 0});
  ASSERT_TRUE(pump({a.get(), b.get()}, [&] {
    auto it = b->players().find(a->welcome().player_id);
    return it != b->players().end() && it->second.has_pose && std::abs(it->second.to.x - 3.5) < 1e-9;
  }));
  EXPECT_EQ(b->players().at(a->welcome().player_id).name, "alice");
}

TEST(NetServer, ARefusedPlacementRollsBackWithinOneRoundTrip) {
  TempDir dir;
  RunningServer rs(options_for(dir.path));
  NetIo io;
  auto a = join(io, rs.port(), "alice");
  auto b = join(io, rs.port(), "bob");
  ASSERT_TRUE(pump({a.get(), b.get()}, [&] { return a->view_complete() && b->view_complete(); }));
  const BlockPos g = ground_near(*a);
  const BlockPos above{g.x, g.y + 1, g.z};
  const Cell stone{registry().id("stone"), 0}, glass{registry().id("glass"), 0};
  // Alice places stone and is acknowledged; bob, who has not heard of it yet, places glass in the same cell.
  ASSERT_TRUE(a->edit(above, stone));
  ASSERT_TRUE(pump({a.get()}, [&] { return a->pending() == 0; }));
  ASSERT_EQ(b->world().get(above), kAir);
  ASSERT_TRUE(b->edit(above, glass));
  EXPECT_EQ(b->world().get(above), glass);  // his prediction
  ASSERT_TRUE(pump({b.get()}, [&] { return b->pending() == 0; }));
  EXPECT_EQ(b->world().get(above), stone);  // rolled back to what the server holds
  EXPECT_EQ(b->counters().refused.at("cell changed"), 1u);
  EXPECT_EQ(b->counters().rolled_back, 1u);
  // Out of reach: a cell 20 blocks away in a held column.
  const BlockPos far{g.x + 20, g.y + 1, g.z};
  ASSERT_TRUE(b->world().find(column_pos_of(far)));
  const Cell before = b->world().get(far);
  ASSERT_TRUE(b->edit(far, glass));
  ASSERT_TRUE(pump({b.get()}, [&] { return b->pending() == 0; }));
  EXPECT_EQ(b->world().get(far), before);
  EXPECT_EQ(b->counters().refused.at("out of reach"), 1u);
  // Into a player's box: bob places stone where alice stands.
  const BlockPos feet{static_cast<int64_t>(std::floor(a->pose().x)), static_cast<int64_t>(std::floor(a->pose().y)),
                      static_cast<int64_t>(std::floor(a->pose().z))};
  if (b->world().get(feet) == kAir) {
    ASSERT_TRUE(b->edit(feet, stone));
    ASSERT_TRUE(pump({b.get()}, [&] { return b->pending() == 0; }));
    EXPECT_EQ(b->world().get(feet), kAir);
    EXPECT_EQ(b->counters().refused.at("overlaps a player"), 1u);
  }
}

TEST(NetServer, ALateJoinerSeesEveryEarlierEditAndTheSimulation) {
  AliceJoined w;
  ASSERT_FALSE(HasFailure());
  const BlockPos g = ground_near(*w.a);
  const Cell sand{registry().id("sand"), 0}, water{registry().id("water"), 0};
  std::vector<BlockPos> dug;
  for (int dz = -2; dz <= 2; ++dz) {
    BlockPos p{g.x + 1, g.y, g.z + dz};
    while (p.y > g.y - 4 && !registry()[w.a->world().get(p).id].solid) --p.y;
    if (w.a->world().get(p) != kAir && w.a->edit(p, kAir)) dug.push_back(p);
  }
  ASSERT_TRUE(w.a->edit(BlockPos{g.x, g.y + 3, g.z}, sand));    // falls
  ASSERT_TRUE(w.a->edit(BlockPos{g.x - 1, g.y + 1, g.z}, water));  // flows
  ASSERT_TRUE(pump({w.a.get()}, [&] { return w.a->pending() == 0; }));
  ASSERT_EQ(w.a->counters().edits_refused, 0u);
  std::this_thread::sleep_for(1500ms);  // the simulation moves the sand and the water (30 ticks)
  w.a->poll(1ms);
  auto c = join(w.io, w.rs.port(), "carol");
  ASSERT_TRUE(pump({w.a.get(), c.get()}, [&] { return c->view_complete(); }));
  for (const BlockPos& p : dug) {
    EXPECT_FALSE(registry()[c->world().get(p).id].solid) << p.x << "," << p.y << "," << p.z;  // dug (water may have flowed in)
    EXPECT_EQ(c->world().get(p), w.a->world().get(p));
  }
  EXPECT_EQ(c->world().get(BlockPos{g.x, g.y + 3, g.z}), kAir);  // the sand fell
  EXPECT_GT(w.a->counters().sim_changes, 0u);
  // Both hold the same cells as the server for every column they hold.
  w.a->query_hashes();
  c->query_hashes();
  ASSERT_TRUE(pump({w.a.get(), c.get()}, [&] { return w.a->hash_done() && c->hash_done(); }));
  EXPECT_GT(c->hash_compared(), 0u);
  EXPECT_TRUE(w.a->hash_mismatches().empty());
  EXPECT_TRUE(c->hash_mismatches().empty());
}

TEST(NetServer, ARestartedServerServesTheSameWorldAndKnowsItsLog) {
  TempDir dir;
  BlockPos g;
  std::vector<std::pair<uint32_t, uint64_t>> acked;
  std::map<ColumnPos, uint64_t> hashes;
  {
    RunningServer rs(options_for(dir.path));
    NetIo io;
    auto a = join(io, rs.port(), "alice");
    ASSERT_TRUE(pump({a.get()}, [&] { return a->view_complete(); }));
    g = ground_near(*a);
    ASSERT_TRUE(a->edit(g, kAir));
    ASSERT_TRUE(a->edit(BlockPos{g.x, g.y + 1, g.z}, Cell{registry().id("glowstone"), 0}));
    ASSERT_TRUE(pump({a.get()}, [&] { return a->pending() == 0; }));
    acked = a->accepted();
    for (const ColumnPos& p : a->world().positions()) hashes[p] = a->world().find(p)->content_hash(false);
    a->leave();
  }
  ASSERT_EQ(acked.size(), 2u);
  RunningServer again(options_for(dir.path));
  NetIo io;
  auto a = join(io, again.port(), "alice");
  EXPECT_EQ(a->welcome().last_client_seq, acked.back().first);  // the log survived: sequence numbers go on
  EXPECT_EQ(a->welcome().server_seq, acked.back().second);
  EXPECT_EQ(a->next_seq(), acked.back().first + 1);
  ASSERT_TRUE(pump({a.get()}, [&] { return a->view_complete(); }));
  EXPECT_EQ(a->world().get(g), kAir);
  for (const auto& [p, h] : hashes)
    if (const Column* col = a->world().find(p)) {
      EXPECT_EQ(col->content_hash(false), h) << p.x << "," << p.z;
    }
  a->query_log();
  ASSERT_TRUE(pump({a.get()}, [&] { return a->log_done(); }));
  ASSERT_EQ(a->log_answer().size(), 2u);
  EXPECT_EQ(a->log_answer()[0].client_seq, acked[0].first);
  EXPECT_EQ(a->log_answer()[1].server_seq, acked[1].second);
}

/// A plain framed connection to the server, speaking no protocol of its own (the test writes the frames).
Result<std::unique_ptr<ClientLink>> raw_link(NetIo& io, uint16_t port) {
  LinkLimits limits;
  limits.max_frame = kMaxServerFrame;
  return ClientLink::connect(io, "127.0.0.1", port, limits, 2000ms);
}

/// A raw connection: sends frames as given and reads until the server closes, returning its Refuse reason.
std::string refusal_after(NetIo& io, uint16_t port, const std::vector<std::string>& frames) {
  auto link = raw_link(io, port);
  if (!link) return "connect failed: " + link.error().to_string();
  for (const std::string& f : frames) (*link)->send(f);
  std::string reason = "(no reason)";
  const auto end = std::chrono::steady_clock::now() + 10s;
  while (std::chrono::steady_clock::now() < end) {
    for (NetEvent& e : (*link)->take(10ms)) {
      if (e.kind == NetEvent::Kind::kClosed) return reason;
      if (e.kind != NetEvent::Kind::kFrame) continue;
      auto m = decode_server(e.text);
      if (m && std::holds_alternative<Refuse>(*m)) reason = std::get<Refuse>(*m).reason;
    }
  }
  return "(not closed)";
}

std::string frame(uint8_t type, const std::string& payload) {
  const uint32_t len = static_cast<uint32_t>(payload.size() + 1);
  std::string f(4, '\0');
  for (int i = 0; i < 4; ++i) f[static_cast<size_t>(i)] = static_cast<char>(len >> (8 * i));
  return f + static_cast<char>(type) + payload;
}

TEST(NetServer, BadMessagesEachGetTheirDisconnectReason) {
  TempDir dir;
  ServerOptions o = options_for(dir.path);
  o.message_rate = 50;
  o.hello_timeout_ms = 500;
  RunningServer rs(o);
  NetIo io;
  const std::string hello = encode(ClientMessage(Hello{kProtocolVersion, "eve", 2}));
  auto has = [](const std::string& s, const std::string& needle) { return s.find(needle) != std::string::npos; };
  std::string r = refusal_after(io, rs.port(), {frame(200, "")});
  EXPECT_TRUE(has(r, "bad message: message unknown (200): not a message a client may send")) << r;
  r = refusal_after(io, rs.port(), {encode(ClientMessage(EditRequest{1, {0, 0, 0}, kAir, kAir}))});
  EXPECT_TRUE(has(r, "message Edit (4) before Hello")) << r;
  std::string huge(4, '\0');
  huge[2] = 1;  // 65536 bytes announced
  r = refusal_after(io, rs.port(), {huge});
  EXPECT_TRUE(has(r, "a frame of 65536 bytes, over the 4096-byte limit")) << r;
  r = refusal_after(io, rs.port(), {std::string(4, '\0')});
  EXPECT_TRUE(has(r, "a frame of length 0")) << r;
  std::string bad_magic = hello;
  bad_magic[5] = 'Q';
  r = refusal_after(io, rs.port(), {bad_magic});
  EXPECT_TRUE(has(r, "not a voxen client")) << r;
  std::string edit_y = encode(ClientMessage(EditRequest{1, {0, 0, 0}, kAir, Cell{1, 0}}));
  edit_y[4 + 13] = static_cast<char>(0x2C);  // y 300
  edit_y[4 + 14] = 1;
  r = refusal_after(io, rs.port(), {hello, edit_y});
  EXPECT_TRUE(has(r, "y 300 outside -128..255")) << r;
  r = refusal_after(io, rs.port(), {hello, hello});
  EXPECT_TRUE(has(r, "a second Hello")) << r;
  std::vector<std::string> flood = {hello};
  for (int i = 0; i < 400; ++i) flood.push_back(encode(ClientMessage(Chat{"spam"})));
  r = refusal_after(io, rs.port(), flood);
  EXPECT_TRUE(has(r, "too many messages: more than 50 a second")) << r;
  r = refusal_after(io, rs.port(), {});
  EXPECT_TRUE(has(r, "no Hello within 500 ms")) << r;
  // A taken name, and a good client still served after all of that.
  auto good = join(io, rs.port(), "eve");
  r = refusal_after(io, rs.port(), {hello});
  EXPECT_TRUE(has(r, "the name 'eve' is taken")) << r;
  ASSERT_TRUE(pump({good.get()}, [&] { return good->view_complete(); }));
  const ServerStats st = rs.shutdown();
  EXPECT_EQ(st.disconnects.at("bad message"), 5u);
}

TEST(NetServer, AClientThatStopsReadingIsDroppedAndTheOthersGoOn) {
  TempDir dir;
  ServerOptions o = options_for(dir.path);
  o.max_queued_bytes = 32 << 10;
  o.stall_ms = 2000;
  o.socket_send_buffer = 4096;
  RunningServer rs(o);
  // The silent one: a plain socket with a small receive buffer that joins and never reads again.
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  int small = 4096;
  ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(rs.port());
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  const std::string hello = encode(ClientMessage(Hello{kProtocolVersion, "silent", 2}));
  ASSERT_EQ(::send(fd, hello.data(), hello.size(), 0), static_cast<ssize_t>(hello.size()));
  NetIo io;
  auto a = join(io, rs.port(), "alice");
  ASSERT_TRUE(pump({a.get()}, [&] { return a->view_complete() && a->players().size() == 1; }));
  // Alice talks (each line goes to everyone, the silent one too) and edits; she is answered throughout.
  const BlockPos g = ground_near(*a);
  bool dropped = false;
  const auto end = std::chrono::steady_clock::now() + 20s;
  int edits = 0;
  auto next = std::chrono::steady_clock::now();
  while (!dropped && std::chrono::steady_clock::now() < end) {
    next += 20ms;
    std::this_thread::sleep_until(next);
    for (int i = 0; i < 3; ++i) a->chat(std::string(200, 'x'));  // 150 lines a second: under the message rate
    const BlockPos p{g.x, g.y + 1 + (edits % 2), g.z};
    if (a->pending() == 0 && a->world().get(p) == kAir) {
      a->edit(p, Cell{registry().id("stone"), 0});
      ++edits;
    } else if (a->pending() == 0) {
      a->edit(p, kAir);
      ++edits;
    }
    a->poll();
    dropped = a->players().empty();  // the silent one left
  }
  ::close(fd);
  ASSERT_TRUE(a->open()) << a->closed_reason();
  EXPECT_TRUE(dropped);
  ASSERT_TRUE(pump({a.get()}, [&] { return a->pending() == 0; }));
  EXPECT_GT(a->counters().edits_accepted, 2u);
  const ServerStats st = rs.shutdown();
  const uint64_t behind = st.disconnects.count("fell behind") ? st.disconnects.at("fell behind") : 0;
  const uint64_t stalled = st.disconnects.count("stalled") ? st.disconnects.at("stalled") : 0;
  EXPECT_EQ(behind + stalled, 1u);
}

TEST(NetServer, AResentSequenceNumberIsNeverAppliedTwice) {
  AliceJoined w;
  ASSERT_FALSE(HasFailure());
  const BlockPos g = ground_near(*w.a);
  const Cell stone{registry().id("stone"), 0};
  ASSERT_EQ(w.a->edit(BlockPos{g.x, g.y + 1, g.z}, stone), 1u);
  ASSERT_TRUE(pump({w.a.get()}, [&] { return w.a->pending() == 0; }));
  w.a->leave();
  // The same name comes back and sends sequence number 1 again, for another (valid) edit: refused as a duplicate.
  auto link = raw_link(w.io, w.rs.port());
  ASSERT_TRUE(link);
  std::optional<Welcome> welcome;
  std::optional<EditResult> result;
  const auto end = std::chrono::steady_clock::now() + 10s;
  (*link)->send(encode(ClientMessage(Hello{kProtocolVersion, "alice", 2})));
  bool sent = false, asked = false;
  while (!result && std::chrono::steady_clock::now() < end) {
    for (NetEvent& e : (*link)->take(10ms)) {
      if (e.kind != NetEvent::Kind::kFrame) continue;
      auto m = decode_server(e.text);
      ASSERT_TRUE(m);
      if (auto* w = std::get_if<Welcome>(&*m)) welcome = *w;
      if (auto* r = std::get_if<EditResult>(&*m)) result = *r;
      if (std::holds_alternative<ColumnData>(*m) && !sent) {
        (*link)->send(encode(ClientMessage(EditRequest{1, BlockPos{g.x, g.y + 1, g.z + 1}, kAir, stone})));
        sent = true;
      }
    }
    if (welcome && !asked) {
      (*link)->send(encode(ClientMessage(RequestColumns{{column_pos_of(g)}})));
      asked = true;
    }
  }
  ASSERT_TRUE(welcome);
  EXPECT_EQ(welcome->last_client_seq, 1u);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->reason, EditRefusal::kDuplicate);
  EXPECT_EQ(result->now, kAir);
  EXPECT_EQ(w.rs.shutdown().edits_applied, 1u);
}

TEST(NetServer, AClientThatNeverReleasesCannotKeepTheWorldLoading) {
  TempDir dir;
  RunningServer rs(options_for(dir.path));
  NetIo io;
  auto link = raw_link(io, rs.port());
  ASSERT_TRUE(link);
  (*link)->send(encode(ClientMessage(Hello{kProtocolVersion, "wanderer", 2})));
  // Fifteen jumps of 40 columns, each asking for the 25 columns around where it landed, none ever released.
  for (int k = 1; k <= 15; ++k) {
    const double x = k * 40.0 * 16 + 8;
    (*link)->send(encode(ClientMessage(PoseUpdate{Pose{x, 80, 8, 0, 0, 0}})));
    std::vector<ColumnPos> ask;
    for (int dz = -2; dz <= 2; ++dz)
      for (int dx = -2; dx <= 2; ++dx) ask.push_back(ColumnPos{k * 40 + dx, dz});
    (*link)->send(encode(ClientMessage(RequestColumns{ask})));
  }
  // Wait until the columns of the last place have come, and a while after.
  size_t got = 0;
  const auto end = std::chrono::steady_clock::now() + 10s;
  while (got < 25 && std::chrono::steady_clock::now() < end)
    for (NetEvent& e : (*link)->take(10ms))
      if (e.kind == NetEvent::Kind::kFrame && static_cast<uint8_t>(e.text[0]) == static_cast<uint8_t>(MsgType::kColumn)) ++got;
  std::this_thread::sleep_for(500ms);
  const ServerStats st = rs.shutdown();
  EXPECT_GE(got, 25u);
  // Only the last place's columns (and what loaded before the later poses arrived) are generated, not 15 x 25.
  EXPECT_LE(st.columns_loaded, 100u) << "columns loaded " << st.columns_loaded;
}

}  // namespace
}  // namespace voxen::net
