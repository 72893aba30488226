// voxen gen: generates the (2R+1)^2 columns around a world block and reports speed, a content hash and a
// histogram of blocks. The hash is of every cell (id and state) of every column in sorted column order, so it is
// the same for every thread count and every generation order. With --light the columns are also lit (local part
// on the workers, stitched on this thread in sorted order) and the hash covers every cell's light too; the light
// is the unique fixed point over the generated columns, so that hash is thread-count independent as well.
#include <cstdio>
#include <map>

#include <nlohmann/json.hpp>

#include "cli_util.h"
#include "commands.h"
#include "voxen/core/hash.h"
#include "voxen/core/job_pool.h"
#include "voxen/light/light.h"
#include "world_setup.h"

namespace voxen::app {
namespace {

struct GenOptions {
  WorldFlags world;
  std::array<int64_t, 2> center{0, 0};
  int64_t radius = 4;
  int threads = 0;
  bool json = false;
  bool light = false;
};

int run_gen(const GenOptions& o) {
  const auto& c = o.center;
  if (o.radius < 0) throw UsageError("--radius", "must be 0 or more (got " + std::to_string(o.radius) + ")");
  if (o.radius > 256) throw UsageError("--radius", "must be at most 256 (got " + std::to_string(o.radius) + ")");

  const BlockRegistry reg = load_registry();
  const auto generator = make_generator_or_throw(o.world, reg);

  const ColumnPos mid{column_of(c[0]), column_of(c[1])};
  std::vector<ColumnPos> positions;
  for (int64_t dx = -o.radius; dx <= o.radius; ++dx)
    for (int64_t dz = -o.radius; dz <= o.radius; ++dz) positions.push_back({mid.x + dx, mid.z + dz});

  JobPool pool(o.threads);
  Stopwatch sw;
  auto columns = gen::generate_columns(*generator, positions, &pool, c[0], c[1]);
  const double seconds = sw.seconds();
  double light_seconds = 0;
  if (o.light) {
    Stopwatch lsw;
    World world;
    for (auto& col : columns) world.insert(std::move(col));
    light::light_columns(world, light::LightTable(reg), positions, &pool);
    for (size_t i = 0; i < positions.size(); ++i) columns[i] = world.remove(positions[i]);
    light_seconds = lsw.seconds();
  }

  // Hash and histogram in sorted column order (positions are already sorted by x then z).
  uint64_t hash = 0x6A09E667F3BCC908ull;
  std::vector<uint64_t> counts(reg.size(), 0);
  uint32_t buf[kSectionVolume];
  for (const auto& col : columns) {
    hash = mix64(hash ^ hash2(col->content_hash(o.light), col->pos().x, col->pos().z));
    for (int s = 0; s < kSectionsPerColumn; ++s) {
      const Section& sec = col->section(s);
      if (sec.is_uniform()) {
        counts[Cell::from_packed(sec.palette()[0]).id] += kSectionVolume;
        continue;
      }
      sec.unpack(buf);
      for (uint32_t v : buf) counts[Cell::from_packed(v).id]++;
    }
  }
  std::map<std::string, uint64_t> blocks;
  for (size_t id = 0; id < counts.size(); ++id)
    if (counts[id]) blocks[reg[static_cast<uint16_t>(id)].name] = counts[id];

  const double cps = seconds > 0 ? static_cast<double>(columns.size()) / seconds : 0.0;
  if (o.json) {
    nlohmann::json j;
    j["columns"] = columns.size();
    j["seconds"] = seconds;
    j["columns_per_second"] = cps;
    j["hash"] = hex64(hash);
    j["blocks"] = blocks;
    j["threads"] = pool.thread_count();
    j["generator"] = std::string(generator->name());
    j["seed"] = o.world.seed;
    if (o.light) j["light_seconds"] = light_seconds;
    std::printf("%s\n", j.dump().c_str());
  } else {
    std::printf("generator %s, seed %llu, %d worker thread(s)\n", std::string(generator->name()).c_str(),
                static_cast<unsigned long long>(o.world.seed), pool.thread_count());
    std::printf("columns            %zu\n", columns.size());
    std::printf("seconds            %.3f\n", seconds);
    std::printf("columns/second     %.1f\n", cps);
    if (o.light) std::printf("light seconds      %.3f\n", light_seconds);
    std::printf("hash               %s%s\n", hex64(hash).c_str(), o.light ? " (cells and light)" : "");
    std::printf("blocks:\n");
    for (const auto& [name, n] : blocks) std::printf("  %-16s %llu\n", name.c_str(), static_cast<unsigned long long>(n));
  }
  return 0;
}

}  // namespace

void add_gen_command(CLI::App& app, RunFn& run) {
  auto o = std::make_shared<GenOptions>();
  CLI::App* cmd = app.add_subcommand("gen", "generate the columns around a point and report speed, hash and blocks");
  o->world.add_to(*cmd);
  add_int_pair_option(*cmd, "--center", o->center, "world block X,Z at the centre (default 0,0)");
  cmd->add_option("--radius", o->radius, "columns out from the centre column: (2R+1)^2 columns (default 4)");
  add_threads_option(*cmd, o->threads, "worker threads (default: cores - 1, at least 1)");
  cmd->add_flag("--json", o->json, "print one JSON object");
  cmd->add_flag("--light", o->light, "also light the columns and include their light in the hash");
  cmd->callback([o, &run] { run = [o] { return run_gen(*o); }; });
}

}  // namespace voxen::app
