// A client of a voxen server (net/server.h): one connection, and the world as this client sees it. Used by the
// headless bots (`voxen bots`, net/bots.h) and by the game (`voxen play --connect`).
//
// Columns: the client asks for the columns within its view radius of its pose (nearest first) and releases those
// past radius + 1. A column arrives as a ColumnData: the client generates it from the world's seed and generator
// (the same fingerprint as the server's, checked on join) and puts the sent sections over it.
//
// Edits are predicted: edit() shows the cell at once and sends it with the next client sequence number. Until its
// EditResult comes back, the prediction is re-applied over anything the server sends for that cell (a ColumnData
// that was on its way before the server applied the edit, another player's edit, a simulation change), so a stale
// snapshot never undoes an edit the server is about to accept. The EditResult carries the server's cell: accepted, the
// cell is the server's; refused, the cell rolls back to the server's within one round trip. Later predictions at the
// same cell are re-applied over it.
//
// Threads: one thread uses a Client (the network thread of its NetIo only moves bytes).
#pragma once
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "voxen/core/error.h"
#include "voxen/gen/generator.h"
#include "voxen/net/protocol.h"
#include "voxen/net/transport.h"
#include "voxen/world/block_registry.h"
#include "voxen/world/edit.h"
#include "voxen/world/world.h"

namespace voxen::net {

/// Generated columns shared by the clients of one process (the bots of `voxen bots` stand near each other), keyed by
/// (generator fingerprint, column). Thread-safe; holds at most `capacity` columns (the oldest go first).
class GeneratedCache {
 public:
  explicit GeneratedCache(size_t capacity = 4096) : m_capacity(capacity) {}
  /// A copy of the generated column at pos.
  std::unique_ptr<Column> get(const gen::Generator& generator, const std::string& fingerprint, ColumnPos pos);

 private:
  struct Key {
    std::string fp;
    ColumnPos pos;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const noexcept { return std::hash<std::string>()(k.fp) ^ ColumnPosHash()(k.pos); }
  };
  size_t m_capacity;
  std::mutex m_mu;
  std::unordered_map<Key, std::shared_ptr<const Column>, KeyHash> m_columns;
  std::deque<Key> m_order;
};

struct ClientOptions {
  std::string name;                                        // 1..32 of [A-Za-z0-9_-], unique on the server
  int view_radius = 8;                                     // columns (the server may grant less)
  std::chrono::milliseconds timeout{5000};                 // to connect and to be welcomed
  size_t max_columns_in_flight = 96;                       // requested, not arrived yet
  bool keep_changes = true;  // keep what take_changes/take_arrived/take_released/take_chat return (a renderer takes
                             // them each frame); false for clients that never take them (bots), so nothing piles up
};

/// Another player as this client sees it.
struct RemotePlayer {
  uint32_t id = 0;
  std::string name;
  Pose from, to;                             // where it was drawn when the last pose came, and that pose
  std::chrono::steady_clock::time_point from_time, to_time;  // to_time = arrival + 50 ms (one update interval)
  bool has_pose = false;
  /// The pose at `now`: moving from `from` to `to` over one update interval, then held at `to` (never beyond it).
  Pose at(std::chrono::steady_clock::time_point now) const;
};

/// Counters of one client.
struct ClientCounters {
  uint64_t edits_sent = 0, edits_accepted = 0, edits_refused = 0, rolled_back = 0;
  std::map<std::string, uint64_t> refused;  // by reason
  uint64_t columns_received = 0, columns_edited_received = 0, remote_edits = 0, sim_changes = 0;
};

class Client {
 public:
  /// Connects, sends Hello and waits for the Welcome; makes the world's generator and checks both fingerprints.
  /// `cache` (may be null) must outlive the client. Errors: the connection fails or times out, the server refuses
  /// (its reason), the registry or generator differs from the server's, the protocol version differs.
  static Result<std::unique_ptr<Client>> connect(NetIo& io, const std::string& host, uint16_t port, const ClientOptions& options,
                                                 const BlockRegistry& registry, GeneratedCache* cache = nullptr);
  ~Client();

  const Welcome& welcome() const { return m_welcome; }
  /// The world as this client sees it (held columns only; light is not computed here).
  World& world() { return m_world; }
  const World& world() const { return m_world; }
  /// The generator of the server's world (null for an imported world).
  const gen::Generator* generator() const { return m_generator.get(); }

  /// Handles every received message (waiting up to `wait` for the first), then sends the pose when due (<= 20 Hz).
  /// False once the connection has closed (closed_reason() says why).
  bool poll(std::chrono::microseconds wait = std::chrono::microseconds(0));
  bool open() const { return m_open; }
  const std::string& closed_reason() const { return m_closed_reason; }

  /// Sets the player's pose (sent by poll at most 20 times a second) and asks for / releases columns around it.
  void set_pose(const Pose& pose);
  const Pose& pose() const { return m_pose; }
  /// Sends the pose now when it changed since it was last sent (not waiting for poll's 50 ms): before an edit, so
  /// the server checks reach and the player's own box against where the player is (the server takes up to 20
  /// poses a second, a burst of 20, and ignores the rest).
  void send_pose();
  /// True when every column within the view radius of the pose is held.
  bool view_complete() const;
  /// Columns held (arrived and not released).
  size_t held() const { return m_world.column_count(); }

  /// Predicts a dig (cell = air) or placement at p: shows it at once and sends it. Returns its client sequence
  /// number, or nullopt when the column is not held or y is out of range (nothing sent).
  std::optional<uint32_t> edit(const BlockPos& p, Cell cell);
  /// Edits sent and not answered yet.
  size_t pending() const { return m_pending.size(); }
  /// (client_seq, server_seq) of every edit the server accepted, in order of acknowledgement.
  const std::vector<std::pair<uint32_t, uint64_t>>& accepted() const { return m_accepted; }
  /// The next client sequence number (continues after the server's last applied one for this name).
  uint32_t next_seq() const { return m_next_seq; }

  /// Cells that changed since the last call (the server's edits and changes, arrivals excluded, predictions and
  /// rollbacks included), for a renderer to relight and remesh; and the columns that arrived or were released.
  std::vector<Edit> take_changes();
  std::vector<ColumnPos> take_arrived();
  std::vector<ColumnPos> take_released();

  void chat(const std::string& text);
  /// Chat lines received: (player name, text).
  std::vector<std::pair<std::string, std::string>> take_chat();
  /// Sends Leave and closes; then waits up to `wait` until the queued frames (Leave among them) are written and the
  /// server has closed its end, so a process exiting right after does not cut them off.
  void leave(std::chrono::milliseconds wait = std::chrono::milliseconds(0));

  /// Asks the server for this name's edit log entries; log_answer() holds them once log_done().
  void query_log();
  bool log_done() const { return m_log_done; }
  const std::vector<LogEntryRef>& log_answer() const { return m_log; }
  /// Asks the server for the hashes of every held column; each answer is compared, as it arrives, with this
  /// client's column (the stream is ordered, so both describe the same moment). hash_done() once all came back.
  void query_hashes();
  bool hash_done() const { return m_hash_waiting == 0; }
  uint64_t hash_compared() const { return m_hash_compared; }
  std::vector<ColumnPos> hash_mismatches() const { return m_hash_mismatch; }

  const std::map<uint32_t, RemotePlayer>& players() const { return m_players; }
  const ClientCounters& counters() const { return m_counters; }
  LinkStats link_stats() const { return m_link->stats(); }
  std::chrono::steady_clock::time_point connected_at() const { return m_connected_at; }

 private:
  struct Prediction {
    uint32_t seq = 0;
    BlockPos pos;
    Cell cell;
  };
  Client(const BlockRegistry& registry) : m_registry(registry) {}
  void handle(ServerMessage& m);
  /// Received events in order: frames decoded and handled, a close or a framing problem recorded.
  void handle_events(std::span<NetEvent> evs);
  void set_cell(const BlockPos& p, Cell c, bool report);
  void reapply(const BlockPos& p);
  void reapply_column(ColumnPos c);
  void update_interest();
  void send(const ClientMessage& m);
  void poll_closed();

  const BlockRegistry& m_registry;
  std::unique_ptr<ClientLink> m_link;
  Welcome m_welcome;
  std::unique_ptr<gen::Generator> m_generator;
  GeneratedCache* m_cache = nullptr;
  ClientOptions m_options;
  World m_world;
  bool m_open = true;
  std::string m_closed_reason;
  Pose m_pose;
  bool m_pose_dirty = false;
  std::chrono::steady_clock::time_point m_pose_sent{};
  std::chrono::steady_clock::time_point m_connected_at{};
  std::unordered_map<ColumnPos, std::chrono::steady_clock::time_point, ColumnPosHash> m_requested;  // asked, not arrived: when
  std::chrono::steady_clock::time_point m_interest_at{};
  size_t m_arrived_since = 0;  // columns arrived since the last update_interest
  std::deque<Prediction> m_pending;
  uint32_t m_next_seq = 1;
  std::vector<std::pair<uint32_t, uint64_t>> m_accepted;
  std::vector<Edit> m_changes;
  std::vector<ColumnPos> m_arrived, m_released;
  std::vector<std::pair<std::string, std::string>> m_chat;
  std::map<uint32_t, RemotePlayer> m_players;
  ClientCounters m_counters;
  bool m_log_done = false;
  std::vector<LogEntryRef> m_log;
  size_t m_hash_waiting = 0;
  uint64_t m_hash_compared = 0;
  std::vector<ColumnPos> m_hash_mismatch;
};

}  // namespace voxen::net
