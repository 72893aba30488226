// The game as a client of a voxen server (`voxen play --connect`): RemoteWorld is the game's column source, fed by
// a net::Client (net/client.h), and once a frame it carries what the server said into the Game and the player's
// pose and edits out to the server. The Game itself does not know it plays on a server.
//
// Two worlds, one truth. The client keeps the server's view of each held column (net::Client::world: cells only,
// predictions over the server's cells); the Game keeps its own World (lit, meshed, drawn). RemoteWorld keeps the
// second equal to the first:
//   - arrivals: a column that arrives is copied, and the streamer may load it (ready()/make() hand out the copy;
//     a column not arrived yet is not ready, so the streamer waits for it instead of generating it);
//   - catch-up: the copy was taken when it arrived, and the streamer integrates it frames later (its job runs on a
//     worker); after it is in the Game's World, every cell that differs from the client's column (changes that
//     came in between) is queued on the Game (Game::queue_source_edits). The same catch-up runs when a column
//     arrives again while the Game still holds it (released by the client, then asked for again);
//   - changes: every cell the server changed in a column the Game holds (another player's edit, the simulation, a
//     rollback of this player's refused edit) is queued on the Game, applied at the next frame's start with light
//     and remeshing, never sent back;
//   - the player's edits: the Game applies a dig or placement at once (its prediction) and tells the source
//     (record()), which sends the player's pose as it is at that click first (net::Client::send_pose: the server
//     checks reach and the player's own box against it; a teleport or look of the same frame comes before its
//     clicks) and then the edit (net::Client::edit). The client re-applies its prediction over anything the
//     server sends for that cell until the server answers, and a refusal comes back as a change (the server's
//     cell), so the Game rolls back within one round trip. An edit the client cannot send (a column it does not
//     hold) is rolled back at once, to the cell before the first such edit of the cell, unless the column was
//     compared whole with the client's in the same sync.
// The world simulation runs on the server only (simulates(): the Game makes no Simulator), and blasts and scenarios are off
// (GameConfig::bulk_edits: thousands of edits at once, past the server's edit rate).
// Other players become Figures (Game::set_figures): a 0.6 x 1.8 x 0.6 box at the pose interpolated between
// updates (net::RemotePlayer::at), with the name above it; a player whose last pose is over 2 s old (out of the
// server's pose radius: it refreshes poses every second) is not drawn. Chat lines ("NAME: TEXT") and players joining and leaving
// ("NAME JOINED", "NAME LEFT") go to the HUD's message area (Game::show_message); say() sends a chat line.
// Threads: the main thread calls sync(), ready(), record() and unload(); make() runs on the streamer's JobPool
// workers, and a mutex guards the copies it hands out.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "voxen/net/client.h"
#include "voxen/play/game.h"
#include "voxen/stream/source.h"

namespace voxen::play {

/// What a RemoteWorld did so far.
struct RemoteStats {
  uint64_t frames = 0;             // sync() calls
  uint64_t columns_arrived = 0;    // columns that arrived from the server
  uint64_t columns_caught_up = 0;  // columns compared with the client's after the Game integrated them (or held them
                                   // when they arrived again)
  uint64_t cells_caught_up = 0;    // cells those comparisons found different and queued
  uint64_t changes_queued = 0;     // the server's changes queued on the Game (columns it holds)
  uint64_t edits_sent = 0;         // the player's edits sent to the server
  uint64_t edits_unsent = 0;       // the player's edits the client could not send (rolled back at once)
};

/// The cells of `have` that differ from `want` (same column position; cells only, light ignored), as world-block
/// changes to `want`'s cells, appended to `out` in section, then y, z, x order. Sections with the same cells are
/// skipped whole (Section::same_cells).
void column_differences(const Column& have, const Column& want, std::vector<stream::CellEdit>& out);

class RemoteWorld final : public stream::ColumnSource {
 public:
  /// `client` is connected (net::Client::connect) and must outlive this; nothing else may poll it.
  explicit RemoteWorld(net::Client& client);

  const gen::Generator* generator() const override { return m_client.generator(); }
  /// True: the server runs the world simulation (the Game runs none, whatever its tick rate).
  bool simulates() const override { return true; }
  /// True once the column arrived (a copy is held for the streamer).
  bool ready(ColumnPos pos) const override;
  /// A column the Game dropped: while the client still holds it, a fresh copy of the client's column is kept, so
  /// the streamer can load it again without asking the server.
  Status unload(std::unique_ptr<Column> column) override;
  /// The player's applied edit: sent to the server (see the file comment).
  void record(const Edit& edit, const Column& column) override;

  /// Once before each Game::frame: sends the pose of the game's player (feet, look, flying), polls the connection
  /// (no wait), takes the columns that arrived and were released, catches up the columns the Game integrated since
  /// the last call, queues the server's changes, and sets the figures of the other players at `now`. False once
  /// the connection has closed (the client's closed_reason() says why); the Game is then left as it was.
  bool sync(Game& game, std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now());
  /// "N PLAYERS, M EDITS WAITING" style summary for the HUD: players online (this one included) and edits not
  /// answered yet.
  std::string status() const;
  /// Sends a chat line (1..256 bytes of UTF-8 without control characters; another is not sent). The server drops a
  /// client that says more than 5 lines a second (a burst of 10): pace them.
  void say(const std::string& text) { m_client.chat(text); }
  const RemoteStats& stats() const { return m_stats; }
  net::Client& client() { return m_client; }

 protected:
  /// The held copies of `positions` (moved out; a position without one is left out: the streamer asks again).
  Result<std::vector<std::unique_ptr<Column>>> make(const std::vector<ColumnPos>& positions, JobPool* pool,
                                                    int64_t center_x, int64_t center_z) override;

 private:
  /// Queues on the Game the cells of its column at `pos` that differ from the client's (both must be held).
  void catch_up(Game& game, ColumnPos pos, std::vector<stream::CellEdit>& out);

  net::Client& m_client;
  mutable std::mutex m_mu;  // guards m_copies and m_handed (make() runs on workers)
  std::unordered_map<ColumnPos, std::unique_ptr<Column>, ColumnPosHash> m_copies;  // arrived, not handed out
  std::unordered_set<ColumnPos, ColumnPosHash> m_handed;  // handed out by make(), not caught up yet
  std::vector<stream::CellEdit> m_unsent;                 // the player's edits to roll back (main thread)
  std::map<uint32_t, std::string> m_players;              // the other players at the last sync (joins and leaves)
  const Game* m_game = nullptr;                           // the Game of the last sync (record() reads its player)
  RemoteStats m_stats;
};

/// The 0xAARRGGBB colour a remote player's box is drawn in: one of a few bright colours, by player id.
uint32_t figure_color(uint32_t player_id);

}  // namespace voxen::play
