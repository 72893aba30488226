// The game as a server's client (play/remote.h, `voxen play --connect`), headless, against a server in this process
// on loopback, with a second player as a plain net::Client: an edit made before the game joined, one made while its
// columns are still on their way, and one in a column it draws all show in the game's world; the game's dig
// reaches the other player; a
// placement the server refuses (into the other player's box) shows at once and rolls back; the other player is drawn
// as a box in its colour with its name above it, moving smoothly between pose updates, and no longer once it left;
// chat both ways and the player leaving show above the hotbar. Every check reads cells of the game's
// World, the other client's cells or the frame's pixels.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <memory>
#include <vector>

#include "../net/net_test_util.h"
#include "hud_reader.h"
#include "play_test_util.h"
#include "voxen/play/remote.h"

namespace voxen::play::testing {
namespace {

using namespace std::chrono_literals;
using net::testing::join;
using net::testing::options_for;
using net::testing::pump;
using net::testing::RunningServer;
using net::testing::TempDir;

/// A headless game joined to a server as `name`, on the flat world: feet at (0.5, 1, 0.5) (the ground's top is y = 0),
/// render distance 2 (the client asks for 3 columns), 320 x 180 frames, no far view, no simulation of its own.
struct RemoteGame {
  std::unique_ptr<net::Client> client;
  std::unique_ptr<RemoteWorld> remote;
  std::unique_ptr<PlaySession> session;

  RemoteGame(net::NetIo& io, uint16_t port, const std::string& name, double yaw, double pitch) {
    net::ClientOptions co;
    co.name = name;
    co.view_radius = 3;
    auto c = net::Client::connect(io, "127.0.0.1", port, co, registry());
    if (!c) throw std::runtime_error(c.error().to_string());
    client = std::move(*c);
    remote = std::make_unique<RemoteWorld>(*client);
    RecordingHeader h = flat_header(0.5, 1.0, 0.5, yaw, pitch, 2);
    h.seed = client->welcome().seed;
    h.width = 320;
    h.height = 180;
    h.far_distance = 0;  // the tick rate stays the default 20: the Game must still run no simulation of its own
    h.clouds = false;    // the frames compared 10 s apart show what the other player changes, not drifting clouds
    SessionOptions so;
    so.window = false;
    so.threads = 1;
    so.source = remote.get();
    so.game.bulk_edits = false;
    so.game.creatures = false;  // nor walking animals
    auto s = PlaySession::open(h, so, registry());
    if (!s) throw std::runtime_error(s.error().to_string());
    session = std::move(*s);
  }
  Game& game() { return session->game(); }
  /// One frame: the connection synced into the game, then the frame with `events` (their frame numbers set here).
  /// False when the connection closed.
  bool frame(std::vector<InputEvent> events = {}) {
    for (InputEvent& e : events) e.frame = game().frame_number();
    const bool open = remote->sync(game());
    game().frame(events);
    return open;
  }
  /// Frames until `done` holds (true), polling `others` between them, or 20 s pass (false).
  bool until(const std::function<bool()>& done, std::initializer_list<net::Client*> others = {}) {
    const auto end = std::chrono::steady_clock::now() + 20s;
    while (std::chrono::steady_clock::now() < end) {
      if (!frame()) return false;
      for (net::Client* o : others) o->poll();
      if (done()) return true;
    }
    return false;
  }
  bool settled() { return game().streamer().view_complete() && client->pending() == 0; }
};

InputEvent click(MouseButton b, bool down) {
  InputEvent e;
  e.kind = down ? EventKind::kButtonDown : EventKind::kButtonUp;
  e.code = static_cast<int>(b);
  return e;
}

/// A pose with the feet at world (x, y, z), looking north.
net::Pose feet_at(double x, double y, double z) {
  net::Pose p;
  p.x = x;
  p.y = y;
  p.z = z;
  return p;
}

/// Joins `name` (view radius 3) standing at `pose` and waits until it holds its view.
std::unique_ptr<net::Client> join_standing(net::NetIo& io, uint16_t port, const std::string& name, const net::Pose& pose) {
  auto c = join(io, port, name, 3);
  c->set_pose(pose);
  EXPECT_TRUE(pump({c.get()}, [&] { return c->view_complete(); }));
  return c;
}

/// Frames until the game's view is complete and it sees exactly one other player, with a pose.
bool sees_the_other(RemoteGame& g, net::Client* other) {
  return g.until([&] { return g.settled() && g.client->players().size() == 1 && g.client->players().begin()->second.has_pose; }, {other});
}

/// A server with Bob (a net::Client standing at `bob_at`) and then Alice (a headless game looking along yaw, pitch)
/// joined, the game's view complete and Bob seen.
struct BobThenAlice {
  TempDir dir;
  RunningServer rs{options_for(dir.path)};
  net::NetIo io;
  std::unique_ptr<net::Client> bob;
  std::unique_ptr<RemoteGame> alice;
  uint32_t bob_colour = 0;
  BobThenAlice(const net::Pose& bob_at, double yaw, double pitch) {
    bob = join_standing(io, rs.port(), "bob", bob_at);
    alice = std::make_unique<RemoteGame>(io, rs.port(), "alice", yaw, pitch);
    bob_colour = figure_color(bob->welcome().player_id);
    EXPECT_TRUE(sees_the_other(*alice, bob.get()));
  }
};

/// Every column the game holds whose cells differ from the client's (the server's view): "x,z: N cells" each.
std::vector<std::string> differing_columns(RemoteGame& g) {
  std::vector<std::string> out;
  for (const ColumnPos& p : g.game().world().positions()) {
    const Column* want = g.client->world().find(p);
    if (!want) continue;
    std::vector<stream::CellEdit> diff;
    column_differences(*g.game().world().find(p), *want, diff);
    if (!diff.empty()) out.push_back(std::to_string(p.x) + "," + std::to_string(p.z) + ": " + std::to_string(diff.size()) + " cells");
  }
  return out;
}

size_t count_rgb(const render::Image& img, uint32_t argb) {
  size_t n = 0;
  for (size_t i = 0; i + 3 < img.pixels.size(); i += 4)
    n += img.pixels[i] == ((argb >> 16) & 255) && img.pixels[i + 1] == ((argb >> 8) & 255) && img.pixels[i + 2] == (argb & 255);
  return n;
}

TEST(RemotePlay, EditsBeforeAndDuringTheJoinShowAndTheGamesDigReachesTheOtherPlayer) {
  TempDir dir;
  RunningServer rs(options_for(dir.path));
  net::NetIo io;
  auto bob = join(io, rs.port(), "bob", 3);
  ASSERT_TRUE(pump({bob.get()}, [&] { return bob->view_complete(); }));
  // Before the game joins: its column then arrives edited.
  const BlockPos before{3, 0, 1};
  ASSERT_TRUE(bob->edit(before, kAir));
  ASSERT_TRUE(pump({bob.get()}, [&] { return bob->pending() == 0; }));
  ASSERT_EQ(bob->counters().edits_accepted, 1u);

  RemoteGame alice(io, rs.port(), "alice", 0.0, -90.0);
  ASSERT_TRUE(alice.frame());  // the first columns arrive and the streamer starts loading them
  // While the game's columns are on their way (or loaded from a copy taken when they arrived): a cell in the last
  // ring the game draws (column -2), answered before the game polls again.
  const BlockPos during{-17, 0, 3};
  bob->set_pose(feet_at(-16.5, 1.0, 3.5));  // within reach of it
  std::this_thread::sleep_for(60ms);  // poses go out at most every 50 ms: this poll sends it, before the edit
  bob->poll();
  ASSERT_TRUE(bob->edit(during, kAir));
  ASSERT_TRUE(pump({bob.get()}, [&] { return bob->pending() == 0; }));
  ASSERT_EQ(bob->counters().edits_accepted, 2u);
  ASSERT_FALSE(alice.game().world().find(column_pos_of(during)) && alice.game().streamer().drawn(column_pos_of(during)))
      << "the edit should meet the column before the game has drawn it";

  ASSERT_TRUE(alice.until([&] { return alice.settled(); }, {bob.get()}));
  EXPECT_EQ(alice.game().world().get(before), kAir) << "an edit made before the game joined";
  EXPECT_EQ(alice.game().world().get(during), kAir) << "an edit made while the game's columns were arriving";
  EXPECT_EQ(differing_columns(alice), std::vector<std::string>{});
  EXPECT_GE(alice.game().world().column_count(), 25u);
  EXPECT_EQ(alice.game().simulator(), nullptr) << "the server simulates its world; the game must not";

  // Bob digs in a column the game has drawn: the change comes in and the game shows it.
  const BlockPos live{-15, 0, 2};
  ASSERT_TRUE(alice.game().streamer().drawn(column_pos_of(live)));
  ASSERT_NE(alice.game().world().get(live), kAir);
  ASSERT_TRUE(bob->edit(live, kAir));
  ASSERT_TRUE(alice.until([&] { return bob->pending() == 0 && alice.game().world().get(live) == kAir; }, {bob.get()}));

  // The game digs the block under its feet: looking straight down, a left click.
  const BlockPos under{0, 0, 0};
  ASSERT_NE(bob->world().get(under), kAir);
  ASSERT_TRUE(alice.frame({click(MouseButton::kLeft, true), click(MouseButton::kLeft, false)}));
  EXPECT_EQ(alice.game().world().get(under), kAir) << "the dig shows at once";
  ASSERT_TRUE(alice.until([&] { return alice.settled() && bob->world().get(under) == kAir; }, {bob.get()}));
  EXPECT_EQ(alice.client->counters().edits_accepted, 1u);
  EXPECT_EQ(alice.remote->stats().edits_sent, 1u);
  EXPECT_EQ(alice.game().world().get(under), kAir);
  EXPECT_EQ(differing_columns(alice), std::vector<std::string>{});
}

TEST(RemotePlay, APlacementIntoAnotherPlayersBoxShowsAtOnceAndRollsBack) {
  // Bob stands on the ground at (2.5, 1, 0.5); the game looks east and down at the top of the ground block (2, 0, 0),
  // so a right click places stone at (2, 1, 0): inside Bob's box.
  BobThenAlice two(feet_at(2.5, 1.0, 0.5), 90.0, pitch_to(1.0 + 1.62, 1.0, 2.0));
  ASSERT_FALSE(HasFailure());
  auto& bob = two.bob;
  RemoteGame& alice = *two.alice;
  const BlockPos cell{2, 1, 0};
  ASSERT_TRUE(alice.game().target());
  ASSERT_EQ(alice.game().target()->cell, (BlockPos{2, 0, 0}));
  ASSERT_EQ(alice.game().world().get(cell), kAir);

  ASSERT_TRUE(alice.frame({click(MouseButton::kRight, true), click(MouseButton::kRight, false)}));
  EXPECT_NE(alice.game().world().get(cell), kAir) << "the placement shows at once (predicted)";
  ASSERT_TRUE(alice.until([&] { return alice.client->pending() == 0; }, {bob.get()}));
  ASSERT_TRUE(alice.frame());  // the rollback, queued by the last sync, applies at this frame's start
  EXPECT_EQ(alice.game().world().get(cell), kAir) << "refused by the server: rolled back";
  EXPECT_EQ(alice.client->counters().edits_refused, 1u);
  EXPECT_EQ(alice.client->counters().refused.count("overlaps a player"), 1u);
  EXPECT_EQ(bob->world().get(cell), kAir);
  EXPECT_EQ(differing_columns(alice), std::vector<std::string>{});

  // A placement in the frame of a move: the server checks reach from the pose it has, so the pose as it is at the
  // click goes out before the edit (teleported 12 blocks south in the same frame: the pose of the frame's start
  // would be out of reach).
  InputEvent tp;
  tp.kind = EventKind::kTeleport;
  tp.x = 0.5;
  tp.y = 1.0;
  tp.z = 12.5;
  InputEvent look;
  look.kind = EventKind::kLook;
  look.x = 90.0;
  look.y = pitch_to(1.0 + 1.62, 1.0, 2.0);
  ASSERT_TRUE(alice.frame({tp, look, click(MouseButton::kRight, true), click(MouseButton::kRight, false)}));
  ASSERT_EQ(alice.game().player().block, (BlockPos{0, 1, 12}));
  EXPECT_NE(alice.game().world().get(BlockPos{2, 1, 12}), kAir) << "placed (predicted)";
  ASSERT_TRUE(alice.until([&] { return alice.client->pending() == 0; }, {bob.get()}));
  EXPECT_EQ(alice.client->counters().edits_accepted, 1u) << "refused: " << alice.client->counters().refused.size();
  EXPECT_EQ(alice.client->counters().refused.count("out of reach"), 0u);
  ASSERT_TRUE(alice.until([&] { return bob->world().get(BlockPos{2, 1, 12}) != kAir; }, {bob.get()}));
}

TEST(RemotePlay, AnotherPlayerIsABoxWithItsNameUntilItLeavesAndChatShowsAboveTheHotbar) {
  // Bob 4 blocks north of the game's feet, in front of its eye (yaw 0 looks north, -Z).
  BobThenAlice two(feet_at(0.5, 1.0, -3.5), 0.0, -10.0);
  ASSERT_FALSE(HasFailure());
  auto& bob = two.bob;
  RemoteGame& alice = *two.alice;
  const uint32_t colour = two.bob_colour;
  // Two frames more: the pose's interpolation (one 50 ms update interval) has long ended; the figure is where Bob is.
  std::this_thread::sleep_for(60ms);
  ASSERT_TRUE(alice.frame());
  const render::Image with = alice.game().read_pixels();
  // A pose over 2 s old (the server refreshes those in range every second) is a player out of range: not drawn.
  ASSERT_TRUE(alice.remote->sync(alice.game(), std::chrono::steady_clock::now() + 3s));
  alice.game().frame({});
  EXPECT_EQ(count_rgb(alice.game().read_pixels(), colour), 0u) << "a stale figure was drawn";
  // Bob says something, Alice answers; both lines show above the hotbar (the HUD draws capitals).
  bob->chat("hello alice");
  ASSERT_TRUE(alice.until([&] { return read_message_lines(alice.game().read_pixels(), 1)[0] == "BOB: HELLO ALICE"; }, {bob.get()}));
  alice.remote->say("hi bob");
  ASSERT_TRUE(alice.until([&] { return read_message_lines(alice.game().read_pixels(), 2)[1] == "ALICE: HI BOB"; }, {bob.get()}));
  EXPECT_EQ(read_message_lines(alice.game().read_pixels(), 2)[0], "BOB: HELLO ALICE");
  bob->leave();
  ASSERT_TRUE(alice.until([&] { return alice.client->players().empty(); }));
  ASSERT_TRUE(alice.frame());
  EXPECT_EQ(read_message_lines(alice.game().read_pixels(), 3),
            (std::vector<std::string>{"BOB: HELLO ALICE", "ALICE: HI BOB", "BOB LEFT"}));
  // The messages go after 10 s of simulated time; then the frame is compared with the one with Bob in it.
  for (int i = 0; i < 600; ++i) ASSERT_TRUE(alice.frame());
  const render::Image without = alice.game().read_pixels();
  EXPECT_GE(count_rgb(with, colour), 40u) << "the box's edges in Bob's colour";
  EXPECT_EQ(count_rgb(without, colour), 0u);
  EXPECT_GE(count_rgb(with, 0xFFFFFFFF), count_rgb(without, 0xFFFFFFFF) + 10) << "the name tag's white letters";
  // Nothing else changed: every differing pixel is the figure's or its tag's (its colour, white, or the tag's box).
  size_t differing = 0;
  for (size_t i = 0; i < with.pixels.size(); i += 4)
    differing += with.pixels[i] != without.pixels[i] || with.pixels[i + 1] != without.pixels[i + 1] || with.pixels[i + 2] != without.pixels[i + 2];
  EXPECT_GT(differing, 0u);
  EXPECT_LT(differing, static_cast<size_t>(with.width * with.height / 10)) << "only the figure and its tag differ";
}

/// The mean column (pixels from the left) of the pixels in `argb`; -1 when there are none.
double mean_x(const render::Image& img, uint32_t argb) {
  double sum = 0;
  size_t n = 0;
  for (int y = 0; y < img.height; ++y)
    for (int x = 0; x < img.width; ++x) {
      const uint8_t* p = &img.pixels[(static_cast<size_t>(y) * static_cast<size_t>(img.width) + static_cast<size_t>(x)) * 4];
      if (p[0] == ((argb >> 16) & 255) && p[1] == ((argb >> 8) & 255) && p[2] == (argb & 255)) {
        sum += x;
        ++n;
      }
    }
  return n ? sum / static_cast<double>(n) : -1.0;
}

TEST(RemotePlay, AnotherPlayersBoxMovesSmoothlyBetweenPoseUpdates) {
  // Bob 6 blocks north of the game's feet, in front of its eye.
  BobThenAlice two(feet_at(0.5, 1.0, -5.5), 0.0, -10.0);
  ASSERT_FALSE(HasFailure());
  auto& bob = two.bob;
  RemoteGame& alice = *two.alice;
  const uint32_t colour = two.bob_colour;
  auto bobs = [&]() -> const net::RemotePlayer& { return alice.client->players().begin()->second; };
  std::this_thread::sleep_for(60ms);
  ASSERT_TRUE(alice.frame());
  const double start = mean_x(alice.game().read_pixels(), colour);
  ASSERT_GE(start, 0.0) << "Bob's box is in view";

  // Bob steps 3 blocks east in one pose update; the game draws him between the two poses over the update interval.
  bob->set_pose(feet_at(3.5, 1.0, -5.5));
  std::this_thread::sleep_for(60ms);
  bob->poll();
  ASSERT_TRUE(alice.until([&] { return bobs().to.x == 3.5; }, {bob.get()}));
  const net::RemotePlayer moving = bobs();
  ASSERT_TRUE(alice.remote->sync(alice.game(), moving.from_time + (moving.to_time - moving.from_time) / 2));
  alice.game().frame({});
  const double mid = mean_x(alice.game().read_pixels(), colour);
  ASSERT_TRUE(alice.remote->sync(alice.game(), moving.to_time + 1ms));
  alice.game().frame({});
  const double end = mean_x(alice.game().read_pixels(), colour);
  // The pose the box moved from is where the last frame drew it (RemotePlayer::from): the start, unless a frame
  // already drew part of the move (the until() loop's last frame ran before the new pose came in).
  const double from = moving.from.x;
  EXPECT_LT(start, mid);
  EXPECT_LT(mid, end);
  EXPECT_NEAR(mid, (start + end) / 2, (end - start) / 4) << "from x " << from << ": the box halfway at half the interval";
}

}  // namespace
}  // namespace voxen::play::testing
