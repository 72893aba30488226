// voxen export-vox: generates the columns under a world region and writes the region as a MagicaVoxel .vox file
// (models of at most 256^3 under a scene graph, a palette of the block states used; see
// src/import/include/voxen/import/vox_write.h). Importing the file back at its own positions gives the same cells:
// a region with more non-air cells than the importer places (import::kMaxSceneVoxels) is refused, exit code 1.
// --world DIR exports a saved world's cells (its saved edits over generation) and --edit places blocks first, with
// probe's meaning (app/voxen/world_open.h). The file is written to a temporary name, fsynced and renamed into place,
// and the world (with --world) closed, before the result is printed: what is reported written is on disk.
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_util.h"
#include "commands.h"
#include "voxen/core/job_pool.h"
#include "voxen/import/vox_write.h"
#include "world_open.h"
#include "world_setup.h"

namespace voxen::app {
namespace {

constexpr int64_t kMaxExtent = 1024;  // blocks along x and along z

struct ExportOptions {
  WorldFlags world;
  WorldDirFlag world_dir;
  EditFlag edits;
  BlockPos from;
  BlockPos to;
  std::string out;
  int threads = 0;
  bool json = false;
};

int run_export(const ExportOptions& o) {
  const BlockPos a = o.from, b = o.to;
  const BlockPos lo{std::min(a.x, b.x), std::min(a.y, b.y), std::min(a.z, b.z)};
  const BlockPos hi{std::max(a.x, b.x), std::max(a.y, b.y), std::max(a.z, b.z)};
  // Extents in unsigned arithmetic: hi - lo of two int64 corners (as far apart as -2^63 and 2^63-1) overflows
  // int64 but is exact modulo 2^64, and with hi >= lo the true difference (at most 2^64-1) fits uint64.
  const uint64_t span_x = static_cast<uint64_t>(hi.x) - static_cast<uint64_t>(lo.x);
  const uint64_t span_z = static_cast<uint64_t>(hi.z) - static_cast<uint64_t>(lo.z);
  auto blocks = [](uint64_t span) {  // span + 1 blocks; 2^64 itself does not fit uint64
    return span == UINT64_MAX ? std::string("18446744073709551616") : std::to_string(span + 1);
  };
  if (span_x >= static_cast<uint64_t>(kMaxExtent) || span_z >= static_cast<uint64_t>(kMaxExtent))
    throw UsageError("--to", "the region may span at most " + std::to_string(kMaxExtent) + " blocks along x and z (got " +
                                 blocks(span_x) + " x " + blocks(span_z) + ")");
  if (o.out.empty()) throw UsageError("--out", "required: the .vox file to write");

  const BlockRegistry reg = load_registry();
  const std::vector<EditSpec> edits = o.edits.parse(reg);
  CommandWorld cw(o.world_dir, o.world, reg);  // --world DIR: saved world (journal applied, edits saved)
  cw.add_edits(edits);
  Stopwatch sw;
  std::vector<ColumnPos> positions;
  for (int64_t cx = column_of(lo.x); cx <= column_of(hi.x); ++cx)
    for (int64_t cz = column_of(lo.z); cz <= column_of(hi.z); ++cz) positions.push_back({cx, cz});
  JobPool pool(o.threads);
  const int64_t mid_x = lo.x + static_cast<int64_t>(span_x / 2), mid_z = lo.z + static_cast<int64_t>(span_z / 2);
  cw.load(positions, &pool, mid_x, mid_z);  // generation (and saved edits), then the --edit edits; cells only
  const World& world = cw.world();
  const double generate_ms = sw.ms();

  Stopwatch write_sw;
  import::VoxWriteStats ws;
  auto bytes = import::write_vox(world, reg, lo, hi, &ws);
  if (!bytes) throw RunError("export-vox: " + bytes.error().to_string());
  write_file_durably(o.out, [&](const std::string& temp) -> std::string {
    std::ofstream f(temp, std::ios::binary | std::ios::trunc);
    if (!f) return "cannot open " + temp + " for writing: " + std::strerror(errno);
    f.write(reinterpret_cast<const char*>(bytes->data()), static_cast<std::streamsize>(bytes->size()));
    f.close();
    return f ? std::string() : "writing " + temp + " failed";
  });
  const double write_ms = write_sw.ms();
  cw.close();  // with --world: the edits are committed before anything is reported

  if (o.json) {
    nlohmann::json j;
    j["out"] = o.out;
    j["from"] = {lo.x, lo.y, lo.z};
    j["to"] = {hi.x, hi.y, hi.z};
    j["columns"] = positions.size();
    j["models"] = ws.models;
    j["voxels"] = ws.voxels;
    j["palette"] = ws.palette;
    j["bytes"] = bytes->size();
    j["generate_ms"] = generate_ms;
    j["write_ms"] = write_ms;
    std::printf("%s\n", j.dump().c_str());
  } else {
    std::printf("wrote %s: %u models, %llu voxels, %u palette colours, %zu bytes\n", o.out.c_str(), ws.models,
                static_cast<unsigned long long>(ws.voxels), ws.palette, bytes->size());
    std::printf("ms: generate %.1f (%zu columns)  write %.1f\n", generate_ms, positions.size(), write_ms);
  }
  return 0;
}

}  // namespace

void add_export_vox_command(CLI::App& app, RunFn& run) {
  auto o = std::make_shared<ExportOptions>();
  CLI::App* cmd = app.add_subcommand("export-vox", "write a region of the world (generated, or saved with --world) as a MagicaVoxel .vox file");
  o->world.add_to(*cmd);
  o->world_dir.add_to(*cmd);
  o->edits.add_to(*cmd);
  add_block_pos_option(*cmd, "--from", o->from, "one corner X,Y,Z of the region (world blocks, inclusive)")->required();
  add_block_pos_option(*cmd, "--to", o->to, "the opposite corner X,Y,Z (inclusive; at most 1024 blocks along x and z)")->required();
  cmd->add_option("--out", o->out, "the .vox file to write")->required();
  add_threads_option(*cmd, o->threads, "worker threads for generation (default: cores - 1, at least 1)");
  cmd->add_flag("--json", o->json, "print one JSON object");
  cmd->callback([o, &run] { run = [o] { return run_export(*o); }; });
}

}  // namespace voxen::app
