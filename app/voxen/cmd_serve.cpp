// voxen serve --world DIR|URL [--port P] [--bind ADDR]... [--max-players N] [--seed S] [--generator NAME]
//             [--view-radius R] [--tick-rate R] [--threads N] [--seconds S] [--json]
// The multiplayer server (net/server.h): owns the saved world, runs its simulation and serves clients over TCP
// (protocol: docs/formats/protocol.md). Prints "voxen serve: listening on ADDR:PORT ..." on stderr once it listens,
// runs until SIGINT or SIGTERM (or --seconds), commits and closes the world, then prints what it did on stdout
// (ticks and tick time percentiles, edits, columns, players, bytes; --json: one object). Also in `voxen-server`,
// the binary that links no GL.
#include <csignal>
#include <cstdio>
#include <thread>

#include <nlohmann/json.hpp>

#include "cli_util.h"
#include "commands.h"
#include "seed_option.h"
#include "voxen/net/server.h"
#include "world_location.h"
#include "world_setup.h"

namespace voxen::app {

namespace {

std::atomic<bool> g_stop{false};

extern "C" void on_stop_signal(int) { g_stop.store(true); }

struct ServeOptions {
  std::string world;
  uint64_t seed = 1;
  const CLI::Option* seed_option = nullptr;
  std::string generator = "default";
  std::vector<std::string> bind = {"127.0.0.1"};
  int port = 30000;
  int max_players = 32;
  int view_radius = 9;
  int tick_rate = 20;
  int threads = 0;
  double seconds = 0;
  bool json = false;
};

int run_serve(const ServeOptions& o) {
  const BlockRegistry reg = load_registry();
  net::ServerOptions so;
  so.world = o.world;
  if (o.seed_option && o.seed_option->count() > 0) so.create_seed = o.seed;
  so.create_generator = o.generator;
  so.bind = o.bind;
  so.port = static_cast<uint16_t>(o.port);
  so.max_players = o.max_players;
  so.max_view_radius = o.view_radius;
  so.tick_rate = o.tick_rate;
  so.threads = o.threads;
  auto server = net::Server::start(so, reg);
  if (!server) throw RunError("serve: " + server.error().to_string());
  std::string where;
  for (const std::string& e : (*server)->endpoints()) where += (where.empty() ? "" : ", ") + e;
  std::fprintf(stderr, "voxen serve: world '%s' (seed %llu): listening on %s\n", (*server)->world_name().c_str(),
               static_cast<unsigned long long>((*server)->seed()), where.c_str());
  std::fflush(stderr);
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
  std::thread timer;
  if (o.seconds > 0)
    timer = std::thread([s = o.seconds] {
      const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(s);
      while (!g_stop.load() && std::chrono::steady_clock::now() < end) std::this_thread::sleep_for(std::chrono::milliseconds(20));
      g_stop.store(true);
    });
  (*server)->run(g_stop);
  if (timer.joinable()) timer.join();
  Status closed = (*server)->close();
  const net::ServerStats st = (*server)->stats();
  if (o.json) {
    nlohmann::json j;
    j["world"] = (*server)->world_name();
    j["port"] = (*server)->port();
    j["ticks"] = st.ticks;
    j["tick_ms_p50"] = st.tick_ms_p50;
    j["tick_ms_p99"] = st.tick_ms_p99;
    j["tick_ms_max"] = st.tick_ms_max;
    j["slowest_tick"] = st.slowest_tick;
    j["slowest_tick_parts_ms"] = st.slowest_tick_parts;
    j["edits_applied"] = st.edits_applied;
    j["edits_refused"] = st.edits_refused;
    j["sim_changes"] = st.sim_changes;
    j["columns_loaded"] = st.columns_loaded;
    j["columns_sent"] = st.columns_sent;
    j["columns_unloaded"] = st.columns_unloaded;
    j["players_joined"] = st.players_joined;
    j["players_peak"] = st.players_peak;
    j["disconnects"] = st.disconnects;
    j["bytes_in"] = st.bytes_in;
    j["bytes_out"] = st.bytes_out;
    j["log_entries"] = st.log_entries;
    j["commits"] = st.commits;
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf("world              %s\n", (*server)->world_name().c_str());
    std::printf("ticks              %llu (tick ms p50 %.2f, p99 %.2f, max %.2f)\n", static_cast<unsigned long long>(st.ticks), st.tick_ms_p50,
                st.tick_ms_p99, st.tick_ms_max);
    std::string parts;
    for (const auto& [k, v] : st.slowest_tick_parts) parts += (parts.empty() ? "" : ", ") + k + " " + std::to_string(v).substr(0, std::to_string(v).find('.') + 3);
    std::printf("slowest tick       %llu: %s\n", static_cast<unsigned long long>(st.slowest_tick), parts.c_str());
    std::printf("edits applied      %llu\n", static_cast<unsigned long long>(st.edits_applied));
    for (const auto& [why, n] : st.edits_refused) std::printf("edits refused      %llu (%s)\n", static_cast<unsigned long long>(n), why.c_str());
    std::printf("simulation changes %llu\n", static_cast<unsigned long long>(st.sim_changes));
    std::printf("columns            %llu loaded, %llu sent, %llu unloaded\n", static_cast<unsigned long long>(st.columns_loaded),
                static_cast<unsigned long long>(st.columns_sent), static_cast<unsigned long long>(st.columns_unloaded));
    std::printf("players            %llu joined, %llu at most at once\n", static_cast<unsigned long long>(st.players_joined),
                static_cast<unsigned long long>(st.players_peak));
    for (const auto& [why, n] : st.disconnects) std::printf("disconnects        %llu (%s)\n", static_cast<unsigned long long>(n), why.c_str());
    std::printf("bytes              %llu in, %llu out\n", static_cast<unsigned long long>(st.bytes_in), static_cast<unsigned long long>(st.bytes_out));
    std::printf("edit log           %llu entries\n", static_cast<unsigned long long>(st.log_entries));
  }
  if (!closed.ok()) throw RunError("serve: saving the world: " + closed.error().to_string());
  return 0;
}

}  // namespace

void add_serve_command(CLI::App& app, RunFn& run) {
  auto o = std::make_shared<ServeOptions>();
  CLI::App* cmd = app.add_subcommand("serve", "run a multiplayer server on a saved world (no GL, no display)");
  cmd->add_option("--world", o->world, "the world: a directory or postgresql://USER@HOST[:PORT]/DB?world=NAME (created with --seed when missing or empty)")
      ->required()
      ->check(world_location_check);
  o->seed_option = add_seed_option(*cmd, o->seed, "seed of a world created here (an existing world keeps its own)");
  cmd->add_option("--generator", o->generator, "generator of a world created here (default, flat)")->check(CLI::IsMember({"default", "flat"}));
  cmd->add_option("--bind", o->bind, "address to listen on (repeatable; default 127.0.0.1: this machine only; 0.0.0.0 for every IPv4 interface)");
  cmd->add_option("--port", o->port, "TCP port (default 30000; 0: any free port, printed)")->check(CLI::Range(0, 65535));
  cmd->add_option("--max-players", o->max_players, "players at once (1..1024, default 32)")->check(CLI::Range(1, 1024));
  cmd->add_option("--view-radius", o->view_radius, "the most columns around a player it may hold (1..32, default 9: voxen play drawing 8 asks for 9)")->check(CLI::Range(1, 32));
  cmd->add_option("--tick-rate", o->tick_rate, "ticks a second (1..1000, default 20)")->check(CLI::Range(1, 1000));
  add_threads_option(*cmd, o->threads, "workers for generation and simulation");
  cmd->add_option("--seconds", o->seconds, "stop after this many seconds (default: run until SIGINT or SIGTERM)")->check(finite_range(0, 1e9));
  cmd->add_flag("--json", o->json, "print the summary as JSON");
  cmd->callback([o, &run] { run = [o] { return run_serve(*o); }; });
}

}  // namespace voxen::app
