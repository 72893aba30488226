// voxen world: saved worlds as a whole.
//   copy SRC DST [--json]  copies a saved world between any two homes, a world directory (RocksDB) or a world in
//                          PostgreSQL (postgresql://USER@HOST[:PORT]/DB?world=NAME), record by record, and verifies the
//                          copy by its record counts and content hash (store/world_copy.h). The destination must be new;
//                          a failed copy leaves nothing.
//   list DB-URL [--json]   the worlds of a database: name, records, bytes, created, unfinished, held by whom.
//   remove WORLD           removes a world (a world directory, or a world in a database, unfinished copies too) under
//                          its lock.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_util.h"
#include "commands.h"
#include "voxen/store/pg_store.h"
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
    case store::RecordKind::kEditLog: return "edit_log";
    case store::RecordKind::kCreatures: return "creatures";
  }
  return "?";
}

/// A byte count for people: B, KiB, MiB or GiB with three significant digits.
std::string human_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024.0 && u < 4) {
    bytes /= 1024.0;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : (bytes < 10 ? "%.2f %s" : (bytes < 100 ? "%.1f %s" : "%.0f %s")), bytes, units[u]);
  return buf;
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
  const double bytes_per_s = r->seconds > 0 ? static_cast<double>(c.bytes) / r->seconds : 0.0;
  std::printf("copied world %s -> %s\n  %llu record%s (%s), %s in %.2f s (%.0f records/s, %s/s)\n"
              "  verified: the copy has the same record counts and content hash %s\n",
              r->source.c_str(), r->destination.c_str(), static_cast<unsigned long long>(c.total()), c.total() == 1 ? "" : "s",
              kinds.c_str(), human_bytes(static_cast<double>(c.bytes)).c_str(), r->seconds, per_s, human_bytes(bytes_per_s).c_str(),
              c.content_hash.c_str());
  return 0;
}

struct ListOptions {
  std::string database;
  bool json = false;
};

int run_list(const ListOptions& o) {
  auto url = store::parse_database_url(o.database, false);
  if (!url) throw UsageError("DB", url.error().message);
  auto worlds = store::PgWorldStore::list_worlds(*url);
  if (!worlds) throw RunError(worlds.error().to_string());
  if (o.json) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& w : *worlds)
      j.push_back({{"name", w.name}, {"complete", w.complete}, {"records", w.records}, {"bytes", w.bytes},
                   {"created", w.created}, {"held_by", w.held_by}});
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  if (worlds->empty()) {
    std::printf("no voxen worlds in %s\n", url->display.c_str());
    return 0;
  }
  std::printf("%-32s %10s %12s  %-19s  %s\n", "world", "records", "bytes", "created", "state");
  for (const auto& w : *worlds)
    std::printf("%-32s %10llu %12llu  %-19s  %s\n", w.name.c_str(), static_cast<unsigned long long>(w.records),
                static_cast<unsigned long long>(w.bytes), w.created.c_str(),
                !w.complete ? "unfinished copy" : (w.held_by.empty() ? "" : ("open in " + w.held_by).c_str()));
  return 0;
}

int run_remove(const std::string& world) {
  if (Status s = store::remove_world(world); !s.ok()) throw RunError(s.error().to_string());
  std::printf("removed world %s\n", store::world_display(world).c_str());
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

  auto lo = std::make_shared<ListOptions>();
  CLI::App* list = world->add_subcommand("list", "list the voxen worlds of a PostgreSQL database (records, bytes, created, "
                                                  "unfinished copies, which process has one open)");
  list->add_option("DB", lo->database, "the database: postgresql://USER@HOST[:PORT]/DB (a world= is ignored)")->required();
  list->add_flag("--json", lo->json, "print a JSON array");
  list->callback([lo, &run] { run = [lo] { return run_list(*lo); }; });

  auto ro = std::make_shared<std::string>();
  CLI::App* remove = world->add_subcommand(
      "remove", "remove a saved world whole: a world directory, or a world in PostgreSQL (an unfinished copy too); "
                "refused while another process has it open");
  remove->add_option("WORLD", *ro, "a world directory or a world URL")->required()->check(world_location_check);
  remove->callback([ro, &run] { run = [ro] { return run_remove(*ro); }; });
}

}  // namespace voxen::app
