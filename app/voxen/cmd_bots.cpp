// voxen bots --connect HOST:PORT [--count N] [--seconds S] [--view R] [--seed S] [--name PREFIX] [--roam B]
//            [--actions-per-second A] [--reconnect-seconds S] [--no-verify] [--json]
// Headless clients for load and tests (net/bots.h): N bots join, walk, fly, dig and place for S seconds, then check
// that the server logged every edit it acknowledged exactly once and that every column they hold hashes as the
// server's. Prints edits (sent, accepted, refused by reason, rolled back), lost / duplicated edits, hash mismatches,
// bytes per second per client (down / up), join and view-complete times. Exit 1 when a check failed or no bot could
// connect, 2 for bad arguments.
#include <cstdio>

#include <nlohmann/json.hpp>

#include "cli_util.h"
#include "commands.h"
#include "seed_option.h"
#include "voxen/net/bots.h"
#include "voxen/net/protocol.h"
#include "voxen/net/transport.h"
#include "world_setup.h"

namespace voxen::app {

namespace {

struct BotsCli {
  std::string connect;
  net::BotOptions bots;
  bool no_verify = false;
  bool json = false;
};

int run_bots_command(BotsCli o) {
  auto hp = net::parse_host_port(o.connect);
  if (!hp) throw UsageError("--connect", hp.error().to_string());
  o.bots.host = hp->first;
  o.bots.port = hp->second;
  o.bots.verify = !o.no_verify;
  if (!net::valid_name(o.bots.prefix + "-" + std::to_string(o.bots.count - 1)))
    throw UsageError("--name", "'" + o.bots.prefix + "': bot names PREFIX-N must be 1..32 characters of A-Z a-z 0-9 _ -");
  const BlockRegistry reg = load_registry();
  auto r = net::run_bots(o.bots, reg);
  if (!r) throw RunError("bots: " + r.error().to_string());
  const net::BotReport& b = *r;
  const bool ok = b.problems.empty() && b.lost == 0 && b.duplicated == 0 && b.hash_mismatches == 0;
  if (o.json) {
    nlohmann::json j;
    j["bots"] = b.bots;
    j["seconds"] = b.seconds;
    j["edits_sent"] = b.edits_sent;
    j["edits_accepted"] = b.edits_accepted;
    j["edits_accepted_per_s"] = b.edits_accepted_per_s;
    j["edits_refused"] = b.edits_refused;
    j["refused"] = b.refused;
    j["rolled_back"] = b.rolled_back;
    j["unanswered"] = b.unanswered;
    j["lost"] = b.lost;
    j["duplicated"] = b.duplicated;
    j["log_entries"] = b.log_entries;
    j["hash_columns"] = b.hash_columns;
    j["hash_mismatches"] = b.hash_mismatches;
    j["bots_verified"] = b.bots_verified;
    j["reconnects"] = b.reconnects;
    j["connect_failures"] = b.connect_failures;
    j["closed"] = b.closed;
    j["columns_received"] = b.columns_received;
    j["remote_edits"] = b.remote_edits;
    j["sim_changes"] = b.sim_changes;
    j["remote_players_seen"] = b.remote_players_seen;
    j["bytes_down_per_s"] = b.bytes_down_per_s;
    j["bytes_up_per_s"] = b.bytes_up_per_s;
    j["join_ms_p50"] = b.join_ms_p50;
    j["join_ms_max"] = b.join_ms_max;
    j["view_ms_p50"] = b.view_ms_p50;
    j["view_ms_max"] = b.view_ms_max;
    j["problems"] = b.problems;
    j["ok"] = ok;
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf("bots               %d for %.1f s (%llu verified, %llu reconnects)\n", b.bots, b.seconds,
                static_cast<unsigned long long>(b.bots_verified), static_cast<unsigned long long>(b.reconnects));
    std::printf("edits              %llu sent, %llu accepted (%.1f/s), %llu refused, %llu rolled back, %llu unanswered\n",
                static_cast<unsigned long long>(b.edits_sent), static_cast<unsigned long long>(b.edits_accepted), b.edits_accepted_per_s,
                static_cast<unsigned long long>(b.edits_refused), static_cast<unsigned long long>(b.rolled_back),
                static_cast<unsigned long long>(b.unanswered));
    for (const auto& [why, n] : b.refused) std::printf("  refused          %llu (%s)\n", static_cast<unsigned long long>(n), why.c_str());
    std::printf("lost / duplicated  %llu / %llu (of %llu log entries)\n", static_cast<unsigned long long>(b.lost),
                static_cast<unsigned long long>(b.duplicated), static_cast<unsigned long long>(b.log_entries));
    std::printf("column hashes      %llu compared, %llu differ\n", static_cast<unsigned long long>(b.hash_columns),
                static_cast<unsigned long long>(b.hash_mismatches));
    std::printf("bytes/s per client %.0f down, %.0f up\n", b.bytes_down_per_s, b.bytes_up_per_s);
    std::printf("join ms            p50 %.1f, max %.1f; view complete ms p50 %.1f, max %.1f\n", b.join_ms_p50, b.join_ms_max, b.view_ms_p50,
                b.view_ms_max);
    std::printf("seen               %llu columns, %llu remote edits, %llu simulation changes, %llu other players\n",
                static_cast<unsigned long long>(b.columns_received), static_cast<unsigned long long>(b.remote_edits),
                static_cast<unsigned long long>(b.sim_changes), static_cast<unsigned long long>(b.remote_players_seen));
    for (const std::string& p : b.problems) std::printf("problem: %s\n", p.c_str());
    std::printf("%s\n", ok ? "PASS" : "FAIL");
  }
  return ok ? 0 : 1;
}

}  // namespace

void add_bots_command(CLI::App& app, RunFn& run) {
  auto o = std::make_shared<BotsCli>();
  CLI::App* cmd = app.add_subcommand("bots", "headless clients that walk, dig and place on a server, then check what it kept");
  cmd->add_option("--connect", o->connect, "the server, HOST:PORT")->required();
  cmd->add_option("--count", o->bots.count, "bots (1..1024, default 8)")->check(CLI::Range(1, 1024));
  cmd->add_option("--seconds", o->bots.seconds, "seconds of play before the checks (default 30)")->check(finite_range(0, 86400));
  cmd->add_option("--view", o->bots.view_radius, "columns each bot holds around itself (1..32, default 3)")->check(CLI::Range(1, 32));
  add_seed_option(*cmd, o->bots.seed, "seed of the bots' choices (default 1)");
  cmd->add_option("--name", o->bots.prefix, "name prefix: bots are PREFIX-0, PREFIX-1, ... (default bot)");
  cmd->add_option("--roam", o->bots.roam, "blocks from spawn the bots keep within (default 40)")->check(finite_range(1, 100000));
  cmd->add_option("--actions-per-second", o->bots.actions_per_second, "digs and placements a second per bot (default 1)")
      ->check(finite_range(0, 40));
  cmd->add_option("--reconnect-seconds", o->bots.reconnect_seconds, "how long a bot keeps reconnecting (default 30)")->check(finite_range(0, 3600));
  cmd->add_flag("--no-verify", o->no_verify, "skip the end checks");
  cmd->add_flag("--json", o->json, "print the report as JSON");
  cmd->callback([o, &run] { run = [o] { return run_bots_command(*o); }; });
}

}  // namespace voxen::app
