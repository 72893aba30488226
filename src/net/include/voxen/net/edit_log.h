// The server's edit log: every edit a multiplayer server accepted, in server order, kept in the world's store
// beside the cells (records of kind 'e', payload 9: docs/formats/world_store_v1.md and docs/formats/protocol.md).
// The voxelG seed keeps its log in memory only; voxen writes each page in the same atomic batch as the journals of
// the edits it names (WorldSession::put_log_record), so after a crash the log on disk names exactly the edits whose
// cells are on disk, and an acknowledged edit (acknowledged only once committed) is in both.
//
// A page holds up to kPageEntries entries with consecutive server sequence numbers; its key is ('e', column
// (first server_seq, 0), section 0). The open page is rewritten by each commit until it is full.
// Page bytes (little-endian): "VXLOG" (5 bytes), uint8 version 1, uint32 count, then count entries of
//   uint64 server_seq, uint8 name length N (1..32), N bytes player name, uint32 client_seq,
//   int64 x, int16 y, int64 z, uint16 before id, uint8 before state, uint16 after id, uint8 after state
// Block ids are the server's registry ids (data/blocks.toml) at the time of the edit.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "voxen/core/coords.h"
#include "voxen/core/error.h"
#include "voxen/store/world_session.h"
#include "voxen/store/world_store.h"
#include "voxen/world/cell.h"

namespace voxen::net {

/// One accepted edit.
struct LogEntry {
  uint64_t server_seq = 0;
  std::string player;
  uint32_t client_seq = 0;
  BlockPos pos;
  Cell before, after;
  friend bool operator==(const LogEntry&, const LogEntry&) = default;
};

inline constexpr size_t kPageEntries = 256;

/// A page's bytes (see the file comment).
std::string encode_log_page(const std::vector<LogEntry>& entries);
/// Parses a page. Errors (naming the byte offset): a wrong magic or version, a truncated page, bytes after the last
/// entry, a bad name, y out of range, sequence numbers that are not consecutive.
Result<std::vector<LogEntry>> decode_log_page(std::string_view bytes);

/// The log of one open world: what is on disk plus what was appended since, with an index by player name.
class EditLog {
 public:
  /// Reads every page of the store, in order. Errors: a page that does not unseal or decode (its bytes are kept
  /// aside; the message names the page's first sequence number), a page that does not follow the one before.
  Status load(store::WorldStore& store);
  /// The last server sequence number given (0 for an empty log).
  uint64_t last_seq() const { return m_last_seq; }
  /// The highest client sequence number applied for a player name (0: none).
  uint32_t last_client_seq(const std::string& player) const;
  /// Appends an accepted edit, giving it the next server sequence number (returned).
  uint64_t append(LogEntry entry);
  /// Queues the open page (and any page filled since the last call) with the session's next commit.
  Status stage(store::WorldSession& session);
  /// (client_seq, server_seq) of every entry of a player with client_seq > after, in server order.
  std::vector<std::pair<uint32_t, uint64_t>> entries_of(const std::string& player, uint32_t after) const;
  /// Entries loaded and appended.
  uint64_t size() const { return m_count; }

 private:
  uint64_t m_last_seq = 0;
  uint64_t m_count = 0;
  std::vector<LogEntry> m_open;      // the open page's entries (first seq = m_open_first)
  uint64_t m_open_first = 1;
  std::vector<std::pair<uint64_t, std::vector<LogEntry>>> m_unstaged_full;  // filled pages not yet staged
  bool m_open_dirty = false;
  std::unordered_map<std::string, std::vector<std::pair<uint32_t, uint64_t>>> m_by_player;
};

}  // namespace voxen::net
