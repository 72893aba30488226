// voxen import-anvil: a Minecraft Java world (1.13 and later) or one region file into a voxen world (issue 17).
// The world is an imported one (docs/formats/world_store_v1.md: whole sections, no generator): a Minecraft world is
// not the output of any voxen generator, so there is nothing for a journal to be the difference from, and every
// column outside the import reads as air. Importing into an existing imported world adds its columns (a column
// imported again is replaced); a generated world is refused. The columns go to the store through the session's
// write-behind queue as they are made (WorldSession::store_columns), so memory stays bounded by the threads' working
// sets and the queue, whatever the world's size. Reading and mapping: src/import/include/voxen/import/anvil_import.h.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <optional>
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_util.h"
#include "commands.h"
#include "voxen/core/job_pool.h"
#include "voxen/import/anvil_import.h"
#include "voxen/store/pg_store.h"
#include "voxen/store/world_copy.h"
#include "voxen/store/world_session.h"
#include "world_open.h"
#include "world_setup.h"

namespace voxen::app {
namespace {

struct ImportOptions {
  std::string source;
  std::string world;
  int64_t y_offset = 0;
  std::array<int64_t, 2> region{};
  bool region_given = false;
  int threads = 0;
  bool json = false;
};

constexpr size_t kProblemsShown = 20;  // skipped chunks named on stderr; the rest are counted

// Text for a terminal: bytes outside printable ASCII (control characters, escape sequences, other encodings) as \xNN.
std::string printable(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (c >= 0x20 && c < 0x7F) {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      out += buf;
    }
  }
  return out;
}

int run_import(const ImportOptions& o) {
  if (o.region_given)
    for (int64_t v : o.region)
      if (v < -(int64_t{1} << 25) || v >= (int64_t{1} << 25))
        throw UsageError("--region", "region coordinate " + std::to_string(v) + " is out of range (|X|, |Z| < 2^25)");
  const BlockRegistry reg = load_registry();
  auto map = import::MinecraftBlockMap::load_default(reg);
  if (!map) throw RunError("loading the Minecraft block mapping: " + map.error().to_string());

  import::AnvilImportOptions io;
  io.y_offset = o.y_offset;
  if (o.region_given) io.region = std::array<int32_t, 2>{static_cast<int32_t>(o.region[0]), static_cast<int32_t>(o.region[1])};
  io.threads = o.threads > 0 ? o.threads : JobPool::default_thread_count();
  // What to import, before the world is touched: a refused source writes nothing.
  auto plan = import::plan_anvil_import(o.source, io);
  if (!plan) throw RunError("import-anvil: " + plan.error().to_string());

  store::OpenOptions open;
  open.dir = o.world;
  open.create_seed = 0;
  open.create_kind = store::WorldKind::kImported;
  auto no_generator = [](const std::string& name, uint64_t) -> Result<std::string> {
    return Error{"generator '" + name + "': an imported world has none"};
  };
  // A generated world is refused before it is opened (opening one would make its generator to check it).
  auto existing = store::peek_world_meta(o.world);
  if (!existing) throw RunError("import-anvil: " + existing.error().to_string());
  if (*existing && (*existing)->kind == store::WorldKind::kGenerated)
    throw RunError(store::world_display(o.world) + " is a generated world (edits over a voxen generator); import a "
                   "Minecraft world into a new world, or into a world made by import-anvil");
  // A world this command creates is removed again when the import fails (nothing of it was there before).
  const bool database = store::is_database_url(o.world);
  const std::string shown = store::world_display(o.world);  // a URL's password hidden
  std::error_code ec;
  // What to remove again on failure: the folder itself if this command makes it, its contents if it was empty; a
  // database world this command makes.
  const bool made_dir = !database && !std::filesystem::exists(o.world, ec);
  const bool created = database ? !*existing
                                 : made_dir || (std::filesystem::is_directory(o.world, ec) && std::filesystem::is_empty(o.world, ec));
  auto session = store::WorldSession::open(open, reg, no_generator);
  if (!session) throw RunError(session.error().to_string());

  const bool tty = !o.json && ::isatty(STDERR_FILENO);
  const auto start = std::chrono::steady_clock::now();
  auto last = start - std::chrono::seconds(1);
  if (tty) {
    io.progress = [&](uint64_t done, uint64_t total) {
      const auto now = std::chrono::steady_clock::now();
      if (done < total && now - last < std::chrono::milliseconds(100)) return;
      last = now;
      const double s = std::chrono::duration<double>(now - start).count();
      std::fprintf(stderr, "\rimport-anvil: %llu / %llu chunks (%.0f chunks/s)   ", static_cast<unsigned long long>(done),
                   static_cast<unsigned long long>(total), s > 0 ? static_cast<double>(done) / s : 0.0);
      std::fflush(stderr);
    };
  }
  store::WorldSession& ws = **session;
  // At most kInFlight rows wait to be written: each holds up to 32 columns of sections (a few MiB), and the queue's own
  // bound counts batches, not bytes, so without this a writer slower than the readers would let them pile up.
  constexpr uint64_t kInFlight = 4;
  auto sink = [&ws](std::span<const Column* const> columns) -> Status {
    auto t = ws.store_columns(columns);
    if (!t) return t.error();
    if (*t > kInFlight) return ws.wait(*t - kInFlight);
    return Ok{};
  };
  auto report = import::run_anvil_import(*plan, *map, io, sink);
  if (tty) std::fprintf(stderr, "\n");
  // Everything queued is written and the world closed before anything is reported as imported.
  Status closed = ws.close();
  session->reset();
  if (!report) {
    if (made_dir || (database && created)) {
      if (Status rm = store::remove_world(o.world); !rm.ok()) std::fprintf(stderr, "voxen: %s\n", rm.error().to_string().c_str());
    } else if (created) {
      for (const auto& e : std::filesystem::directory_iterator(o.world, ec)) std::filesystem::remove_all(e.path(), ec);
    }
    throw RunError("import-anvil: " + report.error().to_string() + (created ? " (the new world was removed)" : ""));
  }
  if (!closed.ok()) throw RunError("import-anvil: saving the world: " + closed.error().to_string());
  const import::AnvilImportReport& r = *report;

  if (!r.level_dat_error.empty())
    std::fprintf(stderr, "voxen: warning: level.dat not read (%s): the world's name and version are not reported\n",
                 printable(r.level_dat_error).c_str());
  for (const std::string& e : r.region_errors) std::fprintf(stderr, "voxen: warning: region skipped: %s\n", printable(e).c_str());
  for (size_t i = 0; i < r.problems.size() && i < kProblemsShown; ++i)
    std::fprintf(stderr, "voxen: warning: chunk skipped: %s\n", printable(r.problems[i].to_string()).c_str());
  if (r.problems.size() > kProblemsShown)
    std::fprintf(stderr, "voxen: warning: ... and %zu more skipped chunks (counted by reason in the report)\n",
                 r.problems.size() - kProblemsShown);
  const double total_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  // Where the import lies, and a place to start: level.dat's spawn when it is inside, else the middle.
  std::optional<std::array<int64_t, 2>> spawn;
  if (r.chunk_bounds) {
    const auto& b = *r.chunk_bounds;
    const int64_t x0 = int64_t{b[0]} * 16, z0 = int64_t{b[1]} * 16, x1 = int64_t{b[2]} * 16 + 15, z1 = int64_t{b[3]} * 16 + 15;
    if (r.level_spawn && (*r.level_spawn)[0] >= x0 && (*r.level_spawn)[0] <= x1 && (*r.level_spawn)[1] >= z0 &&
        (*r.level_spawn)[1] <= z1)
      spawn = r.level_spawn;
    else
      spawn = std::array<int64_t, 2>{x0 + (x1 - x0) / 2, z0 + (z1 - z0) / 2};
  }
  auto unmapped_kind = [&](const std::string& name) {
    const Cell c = map->map(import::MinecraftBlockState{name, {}}).cell;
    return std::string(reg[c.id].name);
  };
  if (o.json) {
    nlohmann::json j;
    j["source"] = o.source;
    j["source_kind"] = r.source_kind;
    j["world"] = shown;
    if (!r.level_name.empty()) j["level_name"] = r.level_name;
    if (!r.version_name.empty()) j["version_name"] = r.version_name;
    if (!r.level_dat_error.empty()) j["level_dat_error"] = r.level_dat_error;
    if (r.level_data_version >= 0) j["level_data_version"] = r.level_data_version;
    j["regions"] = r.regions;
    j["region_errors"] = r.region_errors;
    j["chunks"] = r.chunks;
    j["chunks_imported"] = r.chunks_imported;
    j["chunks_skipped"] = nlohmann::json::object();
    for (const auto& [k, v] : r.chunks_skipped) j["chunks_skipped"][k] = v;
    j["statuses"] = nlohmann::json::object();
    for (const auto& [k, v] : r.statuses) j["statuses"][k] = v;
    j["relocated"] = r.relocated;
    j["blocks"] = r.blocks;
    j["distinct_states"] = r.distinct_states;
    j["unmapped"] = nlohmann::json::object();
    for (const auto& [k, v] : r.unmapped) j["unmapped"][k] = v;
    j["unmapped_as"] = nlohmann::json::object();  // name -> the fallback block it became (map_<colour> or unknown)
    for (const auto& [k, v] : r.unmapped)
      if (k != import::kOtherNames) j["unmapped_as"][k] = unmapped_kind(k);
    j["clipped_blocks"] = r.clipped_blocks;
    if (r.chunk_bounds) {
      const auto& b = *r.chunk_bounds;
      j["bounds"] = {{"min_x", int64_t{b[0]} * 16}, {"min_z", int64_t{b[1]} * 16}, {"max_x", int64_t{b[2]} * 16 + 15},
                     {"max_z", int64_t{b[3]} * 16 + 15}};
      j["spawn"] = {(*spawn)[0], (*spawn)[1]};
    }
    j["y_offset"] = o.y_offset;
    j["data_versions"] = nlohmann::json::object();
    for (const auto& [k, v] : r.data_versions) j["data_versions"][std::to_string(k)] = v;
    j["seconds"] = r.seconds;
    j["seconds_with_writes"] = total_s;
    j["chunks_per_second"] = r.seconds > 0 ? static_cast<double>(r.chunks_imported) / r.seconds : 0.0;
    j["bytes_read"] = r.bytes_read;
    j["threads"] = io.threads;
    struct rusage ru{};
    ::getrusage(RUSAGE_SELF, &ru);
    j["peak_rss_bytes"] = static_cast<uint64_t>(ru.ru_maxrss) * 1024;  // Linux reports KiB
    nlohmann::json problems = nlohmann::json::array();
    for (const auto& p : r.problems) problems.push_back(p.to_string());
    j["problems"] = problems;
    if (r.problems_not_listed) j["problems_not_listed"] = r.problems_not_listed;
    // Names and paths come from the files: bytes that are not UTF-8 are replaced, never a failure after the import.
    std::printf("%s\n", j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  } else {
    std::printf("source          %s (%s%s%s)\n", printable(o.source).c_str(), r.source_kind.c_str(),
                r.level_name.empty() ? "" : (", \"" + printable(r.level_name) + "\"").c_str(),
                r.version_name.empty() ? "" : (", Minecraft " + r.version_name).c_str());
    std::printf("world           %s\n", printable(shown).c_str());
    std::printf("regions         %llu\n", static_cast<unsigned long long>(r.regions));
    std::printf("chunks          %llu listed, %llu imported\n", static_cast<unsigned long long>(r.chunks),
                static_cast<unsigned long long>(r.chunks_imported));
    for (const auto& [k, v] : r.chunks_skipped)
      std::printf("  skipped       %llu %s\n", static_cast<unsigned long long>(v), k.c_str());
    for (const auto& [k, v] : r.statuses)
      std::printf("  proto-chunks  %llu with status %s (not imported)\n", static_cast<unsigned long long>(v), k.c_str());
    if (r.relocated) std::printf("  relocated     %llu (xPos/zPos differ from the slot)\n", static_cast<unsigned long long>(r.relocated));
    std::printf("blocks          %llu non-air, %llu distinct block states\n", static_cast<unsigned long long>(r.blocks),
                static_cast<unsigned long long>(r.distinct_states));
    std::printf("clipped         %llu blocks outside y -128..255 (y offset %lld)\n",
                static_cast<unsigned long long>(r.clipped_blocks), static_cast<long long>(o.y_offset));
    std::vector<std::pair<std::string, uint64_t>> un(r.unmapped.begin(), r.unmapped.end());
    std::sort(un.begin(), un.end(), [](const auto& a, const auto& b) { return a.second != b.second ? a.second > b.second : a.first < b.first; });
    std::printf("unmapped        %zu name%s (fallback blocks)%s\n", un.size(), un.size() == 1 ? "" : "s", un.empty() ? "" : ":");
    for (size_t i = 0; i < un.size() && i < 10; ++i)
      std::printf("  %-40s %10llu  as %s\n", printable(un[i].first).c_str(), static_cast<unsigned long long>(un[i].second),
                  un[i].first == import::kOtherNames ? "(several)" : unmapped_kind(un[i].first).c_str());
    if (un.size() > 10) std::printf("  ... %zu more (--json lists all)\n", un.size() - 10);
    std::printf("seconds         %.3f (%.0f chunks/s on %d thread%s), %.3f with the writes\n", r.seconds,
                r.seconds > 0 ? static_cast<double>(r.chunks_imported) / r.seconds : 0.0, io.threads,
                io.threads == 1 ? "" : "s", total_s);
    std::printf("bytes read      %llu\n", static_cast<unsigned long long>(r.bytes_read));
    if (r.chunk_bounds) {
      const auto& b = *r.chunk_bounds;
      std::printf("area            x %lld..%lld, z %lld..%lld (world blocks)\n", static_cast<long long>(int64_t{b[0]} * 16),
                  static_cast<long long>(int64_t{b[2]} * 16 + 15), static_cast<long long>(int64_t{b[1]} * 16),
                  static_cast<long long>(int64_t{b[3]} * 16 + 15));
      std::printf("open it with    voxen play --world %s --spawn %lld,%lld\n",
                  (database ? "'" + printable(shown) + "'" : printable(shown)).c_str(),
                  static_cast<long long>((*spawn)[0]), static_cast<long long>((*spawn)[1]));
    }
  }
  // Nothing imported because nothing could be read (every region or chunk failed) is a failure; a world of
  // proto-chunks only, or of empty regions, imports nothing and succeeds.
  if (r.chunks_imported == 0 && (!r.region_errors.empty() || !r.problems.empty() || !r.chunks_skipped.empty())) {
    std::fprintf(stderr, "voxen: error: import-anvil: nothing could be imported (%llu chunks listed, %zu region files "
                         "skipped)\n",
                 static_cast<unsigned long long>(r.chunks), r.region_errors.size());
    return 1;
  }
  return 0;
}

}  // namespace

void add_import_anvil_command(CLI::App& app, RunFn& run) {
  auto o = std::make_shared<ImportOptions>();
  CLI::App* cmd = app.add_subcommand(
      "import-anvil", "import a Minecraft Java world (1.13 or later: level.dat + region/) or one r.X.Z.mca region file into a voxen world");
  cmd->add_option("SRC", o->source, "a Minecraft world folder, a folder of region files, or one .mca file")->required();
  cmd->add_option("--world", o->world, "the voxen world to write (a directory or postgresql://USER@HOST[:PORT]/DB?world=NAME): created when missing or "
                  "empty, or an imported world to add to")
      ->required()
      ->check(world_location_check);
  cmd->add_option("--y-offset", o->y_offset, "voxen y = Minecraft y + N (default 0; -64 fits 1.18's -64..319 into -128..255)")
      ->check(CLI::Range(int64_t{-4096}, int64_t{4096}));
  add_int_pair_option(*cmd, "--region", o->region, "X,Z: import only the region file r.X.Z.mca");
  add_threads_option(*cmd, o->threads, "worker threads reading and converting chunks (default: cores - 1, at least 1)");
  cmd->add_flag("--json", o->json, "print one JSON object");
  cmd->callback([o, cmd, &run] {
    o->region_given = cmd->count("--region") > 0;
    run = [o] { return run_import(*o); };
  });
}

}  // namespace voxen::app
