// The multiplayer server (`voxen serve`): one game thread owns the World, the saved world (store::WorldSession),
// the simulation and the edit log; the network thread (net/transport.h) hands it frames through a queue. It links
// no GL: world, gen, sim, store and core only.
//
// What a tick does (tick_rate a second, 20 by default), and what happens between ticks:
// - between ticks, every received frame is decoded (protocol.h) and handled at once, in arrival order: a Hello joins
//   (unique names, max_players), a RequestColumns answers the held columns at once and queues the others for loading,
//   an Edit is validated, applied, logged and broadcast, a Pose is kept, a Chat line goes to everyone;
// - on the tick: the queued columns are generated (on the JobPool) and loaded from the store, then sent; the
//   simulation steps and its changes are applied as edits and sent to the clients holding their columns; poses go to
//   the players within pose_radius of each other; everything changed is committed to the store in one batch; columns
//   no client has held for a while are unloaded; stalled clients are dropped.
// - An accepted edit's EditResult is sent once the batch holding it is committed (WorldSession::committed), so an
//   acknowledged edit survives kill -9 of the server; its log entry is in the same batch (edit_log.h).
//
// Edits are server-authoritative (the client showed it already, its prediction): the server checks, in order, that
// the client sequence number is new for that player name (else kDuplicate: a resend after a reconnect is never
// applied twice), the column is held by the client, the block exists and may be placed (not bedrock or unknown),
// the cell is within reach of the player's last pose (reach + 1 blocks from the eye to the cell's centre), the cell
// is what the client thought, a dig removes a block (not air, a fluid or bedrock), a placement goes into air, a fluid
// or a non-solid plant and a solid block overlaps no player's box. Every refusal is answered at once with the cell as
// the server has it, so the client rolls back within one round trip.
//
// Bad input never stops the server: a frame that breaks the framing or does not decode, a message before Hello, a
// second Hello, more messages or edits a second than the limits, each disconnect that client with a Refuse naming
// the reason. A client whose unsent bytes pass max_queued_bytes, or whose socket has not taken a write for stall_ms,
// is dropped with a reason: the others never wait for it.
#pragma once
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "voxen/core/error.h"
#include "voxen/world/block_registry.h"

namespace voxen::net {

struct ServerOptions {
  std::string world;                          // a world directory or a postgresql:// URL (store::OpenOptions::dir)
  std::optional<uint64_t> create_seed;        // create the world with this seed when missing or empty
  std::string create_generator = "default";
  std::vector<std::string> bind = {"127.0.0.1"};  // addresses to listen on (only these are served)
  uint16_t port = 0;                          // 0: the system picks one (port() tells)
  int max_players = 32;
  int max_view_radius = 9;                    // columns; a client asking for more gets this (9: voxen play at its
                                              // default render distance 8 asks for 9, the ring its drawn columns need)
  int pose_radius = 600;                      // blocks (the voxelG seed's interest radius)
  int tick_rate = 20;                         // ticks a second (1..1000); the simulation steps once a tick
  int threads = 0;                            // JobPool workers for generation and simulation (0: cores - 1)
  double reach = 8.0;                         // blocks, as the game's pick
  double message_rate = 400;                  // messages a second per client (a burst of twice as many passes)
  double edit_rate = 40;                      // edits a second per client (burst twice)
  size_t max_queued_bytes = size_t{8} << 20;  // unsent bytes per client before it is dropped
  int stall_ms = 10000;                       // a write waiting this long drops the client
  int socket_send_buffer = 0;                 // SO_SNDBUF per client socket (0: the system's; tests make it small)
  int hello_timeout_ms = 5000;                // a connection that sends no Hello in this time is dropped
  int silent_ms = 30000;                      // a player that sends nothing this long is dropped (clients send a pose
                                              // at least every 5 s), so a dead connection frees its name
  int unload_after_ticks = 200;               // a column no one holds is unloaded after this many ticks
  bool sync = false;                          // fsync every committed batch (store::OpenOptions::sync)
};

/// What the server did so far.
struct ServerStats {
  uint64_t ticks = 0;
  double tick_ms_p50 = 0, tick_ms_p99 = 0, tick_ms_max = 0;  // a tick's work: its own plus the messages handled since
                                                              // the tick before (not the wait between ticks)
  uint64_t slowest_tick = 0;                                  // which tick was slowest, and its parts (ms)
  double slowest_tick_ms = 0;
  std::map<std::string, double> slowest_tick_parts;
  uint64_t edits_applied = 0;
  std::map<std::string, uint64_t> edits_refused;   // by reason name
  uint64_t sim_changes = 0;
  uint64_t columns_loaded = 0, columns_sent = 0, columns_unloaded = 0;
  uint64_t players_joined = 0, players_peak = 0;
  std::map<std::string, uint64_t> disconnects;     // by reason (a reason's first words)
  uint64_t bytes_in = 0, bytes_out = 0;            // of connections that closed, plus the open ones at stats()
  uint64_t log_entries = 0;                        // the edit log's size (loaded + appended)
  uint64_t commits = 0;
};

class Server {
 public:
  /// Opens (or creates) the world, reads its edit log and simulation state, and listens. Errors: the world cannot be
  /// opened (store messages: locked, not a world, newer format), the edit log is damaged, an address cannot be
  /// listened on.
  static Result<std::unique_ptr<Server>> start(const ServerOptions& options, const BlockRegistry& registry);
  /// close(), logging any error.
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;
  /// The port listened on.
  uint16_t port() const;
  /// "ADDR:PORT" of each listening address.
  std::vector<std::string> endpoints() const;
  /// The world's display name and seed (what a Welcome carries).
  std::string world_name() const;
  uint64_t seed() const;
  /// Runs the game loop on this thread until `stop` is true (checked at least once a tick).
  void run(const std::atomic<bool>& stop);
  ServerStats stats() const;
  /// Tells every client, closes the connections, commits and closes the world. Errors: saving failed (the message
  /// names the columns whose edits are kept or lost, WorldSession::close).
  Status close();

 private:
  struct Impl;
  explicit Server(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> m_impl;
};

/// A 64-bit fingerprint of a block registry: every id's name, shape and solidity. Client and server must agree.
uint64_t registry_fingerprint(const BlockRegistry& registry);

}  // namespace voxen::net
