// Headless clients for tests and load (`voxen bots`): N bots connect to a server, walk and fly about its spawn,
// dig and place blocks plausibly (the way fuzz-play's input does: a seeded function of (seed, bot, step), never a
// global random stream), then check what the server kept.
//
// Each bot is a net::Client (its own connection and world copy; generated columns are shared through one
// GeneratedCache). All bots run on the calling thread at 20 steps a second; the NetIo thread moves the bytes.
// A bot whose connection closes reconnects under the same name (a server restarted after kill -9 is found again) and
// continues its client sequence numbers after the server's last applied one.
//
// The checks at the end, per bot: every pending edit answered; the server's edit log for its name (LogQuery) holds
// every edit the bot saw acknowledged, with the same server sequence number (else *lost*), and no client sequence
// number twice (else *duplicated*); the content hash of every column the bot holds equals the server's
// (HashQuery, answered in stream order, so both sides describe the same moment).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "voxen/core/error.h"
#include "voxen/world/block_registry.h"

namespace voxen::net {

struct BotOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 0;
  int count = 8;                  // bots, named PREFIX-0 .. PREFIX-(count-1)
  double seconds = 30;            // of walking and editing, then the checks
  int view_radius = 3;            // columns each bot holds around itself
  uint64_t seed = 1;              // of the bots' choices
  std::string prefix = "bot";
  double roam = 40;               // blocks from spawn the bots keep within
  double actions_per_second = 1;  // digs and placements per bot (mean)
  double reconnect_seconds = 30;  // how long a bot keeps trying after its connection closed
  double settle_seconds = 20;     // the most the end checks may take
  bool verify = true;             // run the end checks
};

struct BotReport {
  int bots = 0;
  double seconds = 0;                    // wall time of the run, checks included
  uint64_t edits_sent = 0, edits_accepted = 0, edits_refused = 0, rolled_back = 0;
  std::map<std::string, uint64_t> refused;  // by reason
  uint64_t unanswered = 0;               // edits with no EditResult at the end (connection lost with them in flight)
  uint64_t lost = 0, duplicated = 0;     // acknowledged edits missing from the server's log; client seqs logged twice
  uint64_t log_entries = 0;              // the log entries of the bots' names the server returned
  uint64_t hash_columns = 0, hash_mismatches = 0;
  uint64_t bots_verified = 0;            // bots whose end checks completed
  uint64_t reconnects = 0, connect_failures = 0;
  std::map<std::string, uint64_t> closed;  // why connections closed, by reason
  uint64_t columns_received = 0, remote_edits = 0, sim_changes = 0, remote_players_seen = 0;
  double bytes_down_per_s = 0, bytes_up_per_s = 0;  // mean per connected bot
  double join_ms_p50 = 0, join_ms_max = 0;          // connect to Welcome
  double view_ms_p50 = 0, view_ms_max = 0;          // connect to every column within the view radius held
  double edits_accepted_per_s = 0;
  std::vector<std::string> problems;     // each failed check, named
};

/// Runs the bots against host:port. Errors: no bot could connect at all (the first connection error).
Result<BotReport> run_bots(const BotOptions& options, const BlockRegistry& registry);

}  // namespace voxen::net
