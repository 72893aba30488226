// voxen sim: runs the world's simulation headless (sim/simulator.h) for a number of ticks around a site, after
// placing a named scenario there (sim/scenario.h) or, without --scenario, resuming what a saved world left pending.
// Prints the world hash (sim::cells_hash of the loaded columns) every --every ticks and at the end, with the active
// sections and cells of each tick; --json prints one object with every tick.
//
// Each tick's changes are edits: lit with light::apply_edits and, with --world, recorded in the world's journal, the
// simulation's pending updates saved beside them (WorldSession::set_sim_state), so a later `voxen sim --world DIR`
// resumes the flow where it stopped and ends with the same hash as one uninterrupted run.
// The border scenario keeps the column east of the site unloaded for the first half of the ticks, then loads it.
#include <algorithm>
#include <cstdio>
#include <set>

#include <nlohmann/json.hpp>

#include "cli_util.h"
#include "commands.h"
#include "voxen/core/job_pool.h"
#include "voxen/light/light.h"
#include "voxen/sim/scenario.h"
#include "voxen/sim/simulator.h"
#include "voxen/world/world.h"
#include "world_open.h"
#include "world_setup.h"

namespace voxen::app {
namespace {

struct SimOptions {
  WorldFlags world;
  WorldDirFlag world_dir;
  std::string scenario;
  int64_t ticks = 100;
  double tick_rate = sim::kDefaultTickRate;
  std::array<int64_t, 2> at{8, 8};
  int radius = 2;
  int64_t every = 10;
  int threads = 0;
  bool json = false;
};

/// Applies cell changes (each position at most once) as edits: lit in one batch, recorded by the source (the
/// journal with --world). Returns the edits applied.
std::vector<Edit> apply_changes(CommandWorld& cw, const light::LightTable& table, std::span<const sim::CellChange> changes) {
  World& world = cw.world();
  const std::vector<Edit> edits = sim::to_edits(world, changes);
  const light::EditsResult r = light::apply_edits(world, table, edits);
  std::vector<Edit> applied;
  applied.reserve(r.count);
  for (size_t i = 0; i < edits.size(); ++i) {
    if (!r.applied[i]) continue;
    cw.source().record(edits[i], *world.find(column_pos_of(edits[i].pos)));
    applied.push_back(edits[i]);
  }
  return applied;
}

int run_sim(const SimOptions& o) {
  const BlockRegistry reg = load_registry();
  CommandWorld cw(o.world_dir, o.world, reg);
  const int64_t sx = o.at[0], sz = o.at[1];
  if (sx < -kWorldReach || sx > kWorldReach || sz < -kWorldReach || sz > kWorldReach)
    throw UsageError("--at", "X and Z must be within -2^62..2^62 blocks (the world's reach)");
  const ColumnPos site{column_of(sx), column_of(sz)};
  const std::optional<ColumnPos> held = o.scenario.empty() ? std::nullopt : sim::scenario_held_back(o.scenario, sx, sz);

  std::set<ColumnPos> area;
  for (int64_t dz = -o.radius; dz <= o.radius; ++dz)
    for (int64_t dx = -o.radius; dx <= o.radius; ++dx) area.insert({site.x + dx, site.z + dz});
  if (!o.scenario.empty())
    for (const ColumnPos& c : sim::scenario_area(o.scenario, sx, sz)) area.insert(c);
  std::vector<ColumnPos> first;
  for (const ColumnPos& c : area)
    if (!held || c != *held) first.push_back(c);

  JobPool pool(o.threads <= 0 ? 0 : std::max(1, o.threads - 1));
  JobPool* sim_pool = o.threads == 1 ? nullptr : &pool;
  const light::LightTable table(reg);
  cw.load(first, &pool, sx, sz);
  light::light_columns(cw.world(), table, first, &pool);

  sim::Simulator simulator(reg, cw.seed());
  if (stream::SavedWorld* saved = cw.saved()) {
    auto state = saved->session().sim_state();
    if (!state) throw RunError("world " + o.world_dir.display() + ": " + state.error().to_string());
    if (*state) {
      if (Status s = simulator.load_state(**state); !s.ok())
        throw RunError("world " + o.world_dir.display() + ": the simulation's pending updates: " + s.error().to_string());
    }
  }

  nlohmann::json out;
  char line[512];
  std::optional<sim::ScenarioPlan> plan;
  if (!o.scenario.empty()) {
    auto made = sim::make_scenario(o.scenario, reg, cw.world(), sx, sz);
    if (!made) throw RunError("scenario " + o.scenario + ": " + made.error().to_string());
    plan = std::move(*made);
    for (const Edit& e : apply_changes(cw, table, plan->cells)) simulator.wake(e.pos);
  }
  std::snprintf(line, sizeof line, "voxen sim: seed %llu, generator %s, %s, %zu columns, %lld ticks at %g Hz (%.2f s)\n",
                static_cast<unsigned long long>(cw.seed()), cw.generator_name().c_str(),
                plan ? ("scenario " + plan->name + " at " + std::to_string(plan->site.x) + "," + std::to_string(plan->site.y) +
                        "," + std::to_string(plan->site.z))
                           .c_str()
                     : (o.world_dir.given() ? "no scenario (the world's pending updates only)"
                                            : "no scenario and no --world: nothing pending, nothing will move"),
                area.size(), static_cast<long long>(o.ticks), o.tick_rate, static_cast<double>(o.ticks) / o.tick_rate);
  // Text lines go out as they come (a long run shows its progress); the last line only after the world is saved.
  auto say = [&](const char* l) {
    if (o.json) return;
    std::fputs(l, stdout);
    std::fflush(stdout);
  };
  say(line);

  nlohmann::json ticks = nlohmann::json::array(), hashes = nlohmann::json::array();
  uint64_t cells = 0, changes = 0;
  double step_ms = 0;
  std::vector<double> step_times;
  const int64_t load_at = o.ticks / 2 + 1;
  for (int64_t t = 1; t <= o.ticks; ++t) {
    if (held && t == load_at) {
      cw.load({*held}, &pool, sx, sz);
      light::light_columns(cw.world(), table, std::vector<ColumnPos>{*held}, &pool);
      std::snprintf(line, sizeof line, "tick %lld: column %lld,%lld loaded\n", static_cast<long long>(t),
                    static_cast<long long>(held->x), static_cast<long long>(held->z));
      say(line);
    }
    const sim::TickReport r = simulator.step(cw.world(), sim_pool);
    apply_changes(cw, table, r.changes);
    cells += r.cells_evaluated;
    changes += r.changes.size();
    step_ms += r.ms;
    step_times.push_back(r.ms);
    ticks.push_back({{"tick", r.tick}, {"active_sections", r.sections_stepped}, {"active_cells", r.cells_evaluated},
                     {"changes", r.changes.size()}, {"deferred", r.deferred_cells}, {"frozen", r.frozen_cells},
                     {"waiting_sections", r.waiting_sections}, {"step_ms", r.ms}});
    if (t % o.every == 0 || t == o.ticks) {
      const std::string h = hex64(sim::cells_hash(cw.world()));
      hashes.push_back({{"tick", r.tick}, {"hash", h}});
      std::snprintf(line, sizeof line,
                    "tick %llu: world hash %s, %zu active sections (%llu cells), %zu changes, %zu waiting\n",
                    static_cast<unsigned long long>(r.tick), h.c_str(), r.sections_stepped,
                    static_cast<unsigned long long>(r.cells_evaluated), r.changes.size(), r.waiting_sections);
      say(line);
    }
  }
  const std::string final_hash = hex64(sim::cells_hash(cw.world()));
  if (stream::SavedWorld* saved = cw.saved()) saved->session().set_sim_state(simulator.save_state());
  cw.close();  // with --world: the edits and the pending updates are committed (durable) when this returns

  std::sort(step_times.begin(), step_times.end());
  const double p99 = step_times.empty() ? 0.0 : step_times[std::min(step_times.size() - 1, step_times.size() * 99 / 100)];
  const double per_s = step_ms > 0 ? static_cast<double>(cells) / (step_ms / 1000.0) : 0.0;
  if (o.json) {
    out = {{"seed", cw.seed()}, {"generator", cw.generator_name()}, {"scenario", plan ? plan->name : ""},
           {"columns", area.size()}, {"tick_rate", o.tick_rate}, {"ticks", ticks}, {"hashes", hashes},
           {"final_hash", final_hash}, {"final_tick", simulator.tick()}, {"active_cells_total", cells},
           {"changes_total", changes}, {"step_ms_total", step_ms}, {"step_ms_p99", p99},
           {"active_cells_per_second", per_s}, {"pending_sections", simulator.pending_sections()}};
    if (plan) out["site"] = {{"x", plan->site.x}, {"y", plan->site.y}, {"z", plan->site.z}};
    std::fputs((out.dump() + "\n").c_str(), stdout);
  } else {
    std::snprintf(line, sizeof line,
                  "done: tick %llu, world hash %s; %llu active cell updates, %llu changes; step %.3f ms/tick mean, %.3f "
                  "p99 (%.2f M cells/s); %zu sections pending\n",
                  static_cast<unsigned long long>(simulator.tick()), final_hash.c_str(), static_cast<unsigned long long>(cells),
                  static_cast<unsigned long long>(changes), o.ticks > 0 ? step_ms / static_cast<double>(o.ticks) : 0.0, p99,
                  per_s / 1e6, simulator.pending_sections());
    std::fputs(line, stdout);
  }
  return 0;
}

}  // namespace

void add_sim_command(CLI::App& app, RunFn& run) {
  auto o = std::make_shared<SimOptions>();
  CLI::App* cmd = app.add_subcommand("sim", "run the world simulation (fluids, falling blocks, smoke) headless for N "
                                            "ticks around a site, after a named scenario or resuming what a saved "
                                            "world left pending");
  o->world.add_to(*cmd);
  o->world_dir.add_to(*cmd);
  std::string names;
  for (const auto& n : sim::scenario_names()) names += (names.empty() ? "" : ", ") + n;
  cmd->add_option("--scenario", o->scenario, "structure to place at the site first: " + names)
      ->check(CLI::IsMember(sim::scenario_names()));
  cmd->add_option("--ticks", o->ticks, "ticks to run (default 100)")->check(CLI::Range(int64_t{0}, int64_t{1000000}));
  cmd->add_option("--tick-rate", o->tick_rate, "ticks per second of world time (default 20; reports only)")
      ->check(finite_range(1.0, 1000.0));
  add_int_pair_option(*cmd, "--at", o->at, "X,Z world block of the site (default 8,8)");
  cmd->add_option("--radius", o->radius, "columns loaded around the site's column (default 2)")->check(CLI::Range(1, 16));
  cmd->add_option("--every", o->every, "print the world hash every K ticks (default 10)")->check(CLI::Range(int64_t{1}, int64_t{1000000}));
  add_threads_option(*cmd, o->threads, "threads stepping the simulation, 0 to 256 (default 0: every core; 1: this thread only)");
  cmd->add_flag("--json", o->json, "print one JSON object");
  cmd->callback([o, &run] { run = [o] { return run_sim(*o); }; });
}

}  // namespace voxen::app
