// The world simulation's cost (sim/simulator.h): active cell updates per second on one core while a dam breaks
// over a stone floor, and the tick of a quiet world. docs/PERFORMANCE.md, World simulation, records the figures.
//   build/voxen_bench_sim --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <memory>

#include "voxen/core/job_pool.h"
#include "voxen/sim/scenario.h"
#include "voxen/sim/simulator.h"
#include "voxen/world/block_registry.h"
#include "voxen/world/world.h"

namespace voxen {
namespace {

const BlockRegistry& registry() {
  static const BlockRegistry r = [] {
    auto loaded = BlockRegistry::load_default();
    if (!loaded) std::abort();
    return std::move(*loaded);
  }();
  return r;
}

/// Columns -r..r around the origin: stone up to y 0, air above.
World stone_world(int r) {
  World w;
  const Cell stone{registry().id("stone"), 0};
  for (int64_t cx = -r; cx <= r; ++cx)
    for (int64_t cz = -r; cz <= r; ++cz) {
      auto c = std::make_unique<Column>(ColumnPos{cx, cz});
      for (int s = 0; s < kSectionsPerColumn; ++s)
        if (section_base_y(s) + 15 <= 0) c->section(s).fill(stone);
      for (int z = 0; z < 16; ++z)
        for (int x = 0; x < 16; ++x) c->set(x, 0, z, stone);
      w.insert(std::move(c));
    }
  return w;
}

void apply_changes(World& w, const std::vector<sim::CellChange>& changes) {
  for (const Edit& e : sim::to_edits(w, changes)) w.apply(e);
}

/// The dam-break scenario at (8, 8), placed and woken.
void place_dam(World& w, sim::Simulator& s) {
  auto plan = sim::make_scenario("dam-break", registry(), w, 8, 8);
  if (!plan) std::abort();
  apply_changes(w, plan->cells);
  for (const sim::CellChange& c : plan->cells) s.wake(c.pos);
}

/// One iteration: a fresh dam break (not timed), then `ticks` ticks, each step timed and its changes applied
/// (not timed: the caller's light and meshes are measured elsewhere). Counters: active cells (4096 a section
/// stepped) and ruled cells (those whose rule ran) per second of step time.
void run_dam(benchmark::State& state, JobPool* pool) {
  const int ticks = static_cast<int>(state.range(0));
  uint64_t cells = 0, ruled = 0, changes = 0;
  for (auto _ : state) {
    state.PauseTiming();
    World w = stone_world(3);
    sim::Simulator s(registry(), 1);
    place_dam(w, s);
    state.ResumeTiming();
    for (int t = 0; t < ticks; ++t) {
      sim::TickReport r = s.step(w, pool);
      state.PauseTiming();
      cells += r.cells_evaluated;
      ruled += r.cells_ruled;
      changes += r.changes.size();
      apply_changes(w, r.changes);
      state.ResumeTiming();
    }
  }
  state.counters["active_cells_per_s"] = benchmark::Counter(static_cast<double>(cells), benchmark::Counter::kIsRate);
  state.counters["ruled_cells_per_s"] = benchmark::Counter(static_cast<double>(ruled), benchmark::Counter::kIsRate);
  state.counters["changes_per_tick"] = static_cast<double>(changes) / static_cast<double>(state.iterations() * ticks);
}

void BM_SimDamBreakOneCore(benchmark::State& state) { run_dam(state, nullptr); }
BENCHMARK(BM_SimDamBreakOneCore)->Arg(60)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_SimDamBreakPool(benchmark::State& state) {
  static JobPool pool(0);
  run_dam(state, &pool);
}
BENCHMARK(BM_SimDamBreakPool)->Arg(60)->Unit(benchmark::kMillisecond)->UseRealTime();

/// A quiet world of 49 columns: nothing active or waiting. The tick's whole cost.
void BM_SimQuietTick(benchmark::State& state) {
  World w = stone_world(3);
  sim::Simulator s(registry(), 1);
  for (auto _ : state) benchmark::DoNotOptimize(s.step(w, nullptr));
}
BENCHMARK(BM_SimQuietTick)->Unit(benchmark::kMicrosecond);

/// A settled world after a flow: the lake stands, nothing moves; some sections wait at the world's edge for
/// columns that never load (the flow reached it). The tick checks the waiting columns only.
void BM_SimSettledTick(benchmark::State& state) {
  World w = stone_world(1);
  sim::Simulator s(registry(), 1);
  place_dam(w, s);
  for (int t = 0; t < 400 && s.active_sections() > 0; ++t) apply_changes(w, s.step(w, nullptr).changes);
  state.counters["waiting_sections"] = static_cast<double>(s.waiting_sections());
  state.counters["active_sections"] = static_cast<double>(s.active_sections());
  for (auto _ : state) benchmark::DoNotOptimize(s.step(w, nullptr));
}
BENCHMARK(BM_SimSettledTick)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace voxen

BENCHMARK_MAIN();
