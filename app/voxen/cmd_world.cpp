// voxen world copy SRC DST [--json]: copies a saved world between any two homes, a world directory (RocksDB) or a
// world in PostgreSQL (postgresql://USER@HOST[:PORT]/DB?world=NAME), record by record, and verifies the copy by its
// record counts and content hash (store/world_copy.h). The destination must be new; a failed copy leaves nothing.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_util.h"
#include "commands.h"
#include "voxen/store/world_copy.h"
#include "world_open.h"

namespace voxen::app {
namespace {

struct CopyOptions {
  std::string source, destination;
  bool json = false;
};

const char* kind_name(store::RecordKind k) {
  switch (k) {
    case store::RecordKind::kJournal: return "journal";
    case store::RecordKind::kSection: return "section";
    case store::RecordKind::kLod: return "lod";
    case store::RecordKind::kSimulation: return "simulation";
  }
  return "?";
}

int run_copy(const CopyOptions& o) {
  const bool tty = !o.json && ::isatty(STDERR_FILENO);
  auto last = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  auto progress = [&](uint64_t done, uint64_t total) {
    if (!tty) return;
    const auto now = std::chrono::steady_clock::now();
    if (done < total && now - last < std::chrono::milliseconds(100)) return;
    last = now;
    std::fprintf(stderr, "\rworld copy: %llu / %llu records   ", static_cast<unsigned long long>(done), static_cast<unsigned long long>(total));
    std::fflush(stderr);
  };
  auto r = store::copy_world(o.source, o.destination, progress);
  if (tty) std::fprintf(stderr, "\n");
  if (!r) throw RunError(r.error().to_string());
  const store::WorldContent& c = r->content;
  const double mib = static_cast<double>(c.bytes) / (1024.0 * 1024.0);
  const double per_s = r->seconds > 0 ? static_cast<double>(c.total()) / r->seconds : 0.0;
  if (o.json) {
    nlohmann::json j;
    j["source"] = r->source;
    j["destination"] = r->destination;
    for (const auto& [k, n] : c.records) j["records"][kind_name(k)] = n;
    j["total_records"] = c.total();
    j["bytes"] = c.bytes;
    j["seconds"] = r->seconds;
    j["records_per_s"] = per_s;
    j["mib_per_s"] = r->seconds > 0 ? mib / r->seconds : 0.0;
    j["content_hash"] = c.content_hash;
    j["verified"] = true;
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  std::string kinds;
  for (const auto& [k, n] : c.records) kinds += (kinds.empty() ? "" : ", ") + std::string(kind_name(k)) + " " + std::to_string(n);
  std::printf("copied world %s -> %s\n  %llu record%s (%s), %.2f MiB in %.2f s (%.0f records/s, %.1f MiB/s)\n"
              "  verified: the copy has the same record counts and content hash %s\n",
              r->source.c_str(), r->destination.c_str(), static_cast<unsigned long long>(c.total()), c.total() == 1 ? "" : "s", kinds.c_str(), mib,
              r->seconds, per_s, r->seconds > 0 ? mib / r->seconds : 0.0, c.content_hash.c_str());
  return 0;
}

}  // namespace

void add_world_command(CLI::App& app, RunFn& run) {
  CLI::App* world = app.add_subcommand("world", "manage saved worlds (directories or postgresql:// URLs)");
  world->require_subcommand(1);
  auto o = std::make_shared<CopyOptions>();
  CLI::App* copy = world->add_subcommand(
      "copy", "copy a saved world to a new one, between a world directory and PostgreSQL in either direction "
              "(postgresql://USER@HOST[:PORT]/DB?world=NAME), verifying record counts and content hash");
  copy->add_option("SRC", o->source, "the world to copy: a world directory or a world URL")
      ->required()
      ->check(world_location_check);
  copy->add_option("DST", o->destination, "the new world: a missing or empty directory, or a world URL naming no world yet")
      ->required()
      ->check(world_location_check);
  copy->add_flag("--json", o->json, "print one JSON object");
  copy->callback([o, &run] { run = [o] { return run_copy(*o); }; });
}

}  // namespace voxen::app
