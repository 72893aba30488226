// voxen probe: generates the columns around the probed positions, places the --edit edits in order (world_open.h:
// EditFlag, CommandWorld::add_edits), lights them (light is a function of the cells, so lighting after the edits is
// exact) and prints the cell (block name, id, state) and its light (sky 0-15, block light [r, g, b] 0-15 each) at
// each --at position. JSON: each cell gains "light": {"sky": S, "block": [R, G, B]} (nested because "block" already
// names the block).
// With --world DIR the columns come from a saved world (its saved edits over generation) and --edit edits are saved
// to it (app/voxen/world_open.h), so a later probe of the same world shows them; the result is printed only after the
// world is closed, i.e. once the edits are committed (a SIGKILL after the line appears loses none of them).
#include <algorithm>
#include <cstdio>
#include <set>

#include <nlohmann/json.hpp>

#include "cli_util.h"
#include "commands.h"
#include "voxen/core/job_pool.h"
#include "voxen/light/light.h"
#include "voxen/world/world.h"
#include "world_open.h"
#include "world_setup.h"

namespace voxen::app {
namespace {

struct ProbeOptions {
  WorldFlags world;
  WorldDirFlag world_dir;
  EditFlag edits;
  std::vector<BlockPos> at;
  int threads = 0;
  bool json = false;
};

int run_probe(const ProbeOptions& o) {
  if (o.at.empty()) throw UsageError("--at", "at least one --at X,Y,Z is required");
  const BlockRegistry reg = load_registry();

  const std::vector<EditSpec> edits = o.edits.parse(reg);

  CommandWorld cw(o.world_dir, o.world, reg);  // --world DIR: saved world (journal applied, edits saved)
  cw.add_edits(edits);

  // Every column holding a probe or an edit, with its 8 neighbours (light crosses column borders).
  std::set<ColumnPos> needed;
  auto need = [&](const BlockPos& p) {
    const ColumnPos c = column_pos_of(p);
    for (int dx = -1; dx <= 1; ++dx)
      for (int dz = -1; dz <= 1; ++dz) needed.insert({c.x + dx, c.z + dz});
  };
  for (const auto& e : edits) need(e.pos);
  for (const auto& p : o.at) need(p);
  const std::vector<ColumnPos> positions(needed.begin(), needed.end());

  JobPool pool(o.threads);
  cw.load(positions, &pool, o.at[0].x, o.at[0].z);  // the edits are placed as their columns load
  World& world = cw.world();
  // Light every column (local part on the pool, stitched in sorted order): each probed column has its 8
  // neighbours loaded, so its light is final.
  const light::LightTable light_table(reg);
  light::light_columns(world, light_table, positions, &pool);

  std::string text;
  nlohmann::json cells = nlohmann::json::array();
  for (const auto& p : o.at) {
    const Cell c = world.get(p);
    const BlockDef& def = reg[c.id];
    const Light l = world.light(p);
    if (o.json) {
      cells.push_back({{"x", p.x}, {"y", p.y}, {"z", p.z}, {"block", def.name}, {"id", c.id}, {"state", c.state},
                       {"light", {{"sky", light_sky(l)}, {"block", nlohmann::json::array({light_r(l), light_g(l), light_b(l)})}}}});
    } else {
      char line[160];  // the numbers; the block name is appended whole
      std::snprintf(line, sizeof line, "%lld,%lld,%lld  ", static_cast<long long>(p.x), static_cast<long long>(p.y),
                    static_cast<long long>(p.z));
      text += line + def.name;
      std::snprintf(line, sizeof line, " (id %u, state %u)  sky %d block %d,%d,%d\n", c.id, c.state, light_sky(l),
                    light_r(l), light_g(l), light_b(l));
      text += line;
    }
  }
  if (o.json) text = nlohmann::json{{"cells", cells}}.dump() + "\n";
  cw.close();  // with --world: the edits are committed (durable) when this returns; only then is the result printed
  std::fputs(text.c_str(), stdout);
  return 0;
}

}  // namespace

void add_probe_command(CLI::App& app, RunFn& run) {
  auto o = std::make_shared<ProbeOptions>();
  CLI::App* cmd = app.add_subcommand("probe", "apply edits to the generated, lit world and print the cells and their light at positions");
  o->world.add_to(*cmd);
  o->world_dir.add_to(*cmd);
  o->edits.add_to(*cmd);
  add_block_pos_list_option(*cmd, "--at", o->at, "X,Y,Z world block to print (repeatable)");
  add_threads_option(*cmd, o->threads, "worker threads, 0 to 256 (default 0: cores - 1, at least 1)");
  cmd->add_flag("--json", o->json, "print one JSON object");
  cmd->callback([o, &run] { run = [o] { return run_probe(*o); }; });
}

}  // namespace voxen::app
