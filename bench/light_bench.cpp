// Lighting benchmarks (single thread):
//   - full light of one column whose 8 neighbours are loaded and lit: light::light_column (local pass + stitch),
//     and the two parts alone, cycling through 16 sample columns of the default terrain (and the flat world);
//   - a 9x9 area lit from scratch with light::light_columns, reported per column;
//   - one edit through light::apply_edit, the function the game calls: place / remove a torch and place / remove a
//     stone in a lit cave (hand-built: stone with a 24 x 6 x 24 cave lit by torches and a sky shaft, spanning a
//     column corner), and a torch on the default terrain's surface;
//   - an edit storm (the tour's blast, about 13,000 edits) lit as one batch (light::apply_edits) and one at a time.
// Only the measured call is timed (manual timing); the set-up and the undo between iterations are not. The time
// is the calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID): everything measured runs on that one thread, and
// other processes on the shared 2-core machine then do not inflate the figures.
//
// Run (Release): build-light/voxen_bench_light --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// Figures and the exact command are recorded in docs/PERFORMANCE.md ("Lighting").
#include <benchmark/benchmark.h>

#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "bench_support.h"
#include "voxen/gen/generator.h"
#include "voxen/light/light.h"
#include "voxen/mesh/dirty.h"

namespace {

using namespace voxen;
using namespace voxen::benchsupport;

double seconds_since(double t0) { return thread_seconds() - t0; }

/// One sample: a world holding the 8 lit neighbours of `centre`, and the centre column generated but unlit.
struct Sample {
  ColumnPos centre;
  World world;
  Column column;
};

std::vector<std::unique_ptr<Sample>> make_samples(std::string_view generator) {
  const auto g = make(generator, 1);
  std::vector<std::unique_ptr<Sample>> out;
  out.reserve(16);
  for (int i = 0; i < 16; ++i) {  // 16 columns spread over a 2 km square
    auto s = std::make_unique<Sample>();
    s->centre = {static_cast<int64_t>(i % 4) * 37 - 60, static_cast<int64_t>(i / 4) * 41 - 70};
    std::vector<ColumnPos> ring;
    for (int64_t dx = -1; dx <= 1; ++dx)
      for (int64_t dz = -1; dz <= 1; ++dz) {
        const ColumnPos p{s->centre.x + dx, s->centre.z + dz};
        auto c = std::make_unique<Column>(p);
        g->generate(*c);
        if (dx == 0 && dz == 0) {
          s->column = *c;
          continue;
        }
        ring.push_back(p);
        s->world.insert(std::move(c));
      }
    light::light_columns(s->world, table(), ring, nullptr);
    out.push_back(std::move(s));
  }
  return out;
}

// light_column of a column whose 8 neighbours are loaded and lit (unloaded again, untimed, after each).
void BM_LightColumnWithNeighbours(benchmark::State& state, std::string_view generator) {
  auto samples = make_samples(generator);
  size_t i = 0;
  for (auto _ : state) {
    Sample& s = *samples[i++ % samples.size()];
    s.world.insert(std::make_unique<Column>(s.column));
    const double t0 = thread_seconds();
    light::light_column(s.world, table(), s.centre);
    state.SetIterationTime(seconds_since(t0));
    light::unload_column(s.world, table(), s.centre);
  }
}
BENCHMARK_CAPTURE(BM_LightColumnWithNeighbours, default, "default")->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_LightColumnWithNeighbours, flat, "flat")->UseManualTime()->Unit(benchmark::kMicrosecond);

// The local part alone (what a worker thread runs).
void BM_LightColumnLocal(benchmark::State& state, std::string_view generator) {
  auto samples = make_samples(generator);
  std::vector<Column> copies;
  for (auto& s : samples) copies.push_back(s->column);
  size_t i = 0;
  for (auto _ : state) {
    const double t0 = thread_seconds();
    light::light_column_local(copies[i++ % copies.size()], table());
    state.SetIterationTime(seconds_since(t0));
  }
}
BENCHMARK_CAPTURE(BM_LightColumnLocal, default, "default")->UseManualTime()->Unit(benchmark::kMicrosecond);

// The stitch alone (what the main thread runs when a locally lit column arrives).
void BM_Stitch(benchmark::State& state, std::string_view generator) {
  auto samples = make_samples(generator);
  for (auto& s : samples) light::light_column_local(s->column, table());
  size_t i = 0;
  for (auto _ : state) {
    Sample& s = *samples[i++ % samples.size()];
    s.world.insert(std::make_unique<Column>(s.column));
    const double t0 = thread_seconds();
    light::stitch(s.world, table(), s.centre);
    state.SetIterationTime(seconds_since(t0));
    light::unload_column(s.world, table(), s.centre);
  }
}
BENCHMARK_CAPTURE(BM_Stitch, default, "default")->UseManualTime()->Unit(benchmark::kMicrosecond);

// A 9x9 area of the default terrain lit from scratch (local passes + stitches, one thread); the time is for all 81
// columns, the us_per_column counter for one.
void BM_LightArea9x9(benchmark::State& state) {
  const auto g = make("default", 1);
  std::vector<ColumnPos> positions;
  for (int64_t x = -4; x <= 4; ++x)
    for (int64_t z = -4; z <= 4; ++z) positions.push_back({x + 20, z - 30});
  std::vector<Column> generated;
  for (const ColumnPos& p : positions) {
    generated.emplace_back(p);
    g->generate(generated.back());
  }
  double per_column_us = 0;
  for (auto _ : state) {
    World w;
    for (const Column& c : generated) w.insert(std::make_unique<Column>(c));
    const double t0 = thread_seconds();
    light::light_columns(w, table(), positions, nullptr);
    const double t = seconds_since(t0);
    state.SetIterationTime(t);
    per_column_us += t * 1e6 / static_cast<double>(positions.size());
  }
  state.counters["us_per_column"] = per_column_us / static_cast<double>(std::max<int64_t>(1, state.iterations()));
}
BENCHMARK(BM_LightArea9x9)->UseManualTime()->Unit(benchmark::kMicrosecond);

// The lit cave: 3x3 columns of stone up to y = 64; a cave at x, z -12..11, y 20..25 (around the column corner
// (0, 0)) with 4 torches on its floor and a 1x1 shaft to the sky at (-6, 26..64, 5).
World lit_cave() {
  World w;
  for (int64_t cx = -1; cx <= 1; ++cx)
    for (int64_t cz = -1; cz <= 1; ++cz) {
      auto c = std::make_unique<Column>(ColumnPos{cx, cz});
      for (int s = 0; s < kSectionsPerColumn; ++s)
        if (section_base_y(s) + 15 <= 64) c->section(s).fill(block("stone"));
      for (int y = 64 - 15; y <= 64; ++y)
        for (int z = 0; z < 16; ++z)
          for (int x = 0; x < 16; ++x) c->set(x, y, z, block("stone"));
      w.insert(std::move(c));
    }
  auto set = [&](BlockPos p, Cell c) { w.find(column_pos_of(p))->set(local_of(p.x), p.y, local_of(p.z), c); };
  for (int64_t x = -12; x <= 11; ++x)
    for (int64_t z = -12; z <= 11; ++z)
      for (int64_t y = 20; y <= 25; ++y) set({x, y, z}, kAir);
  for (int64_t y = 26; y <= 64; ++y) set({-6, y, 5}, kAir);
  for (BlockPos p : {BlockPos{-9, 20, -9}, BlockPos{8, 20, -9}, BlockPos{-9, 20, 8}, BlockPos{8, 20, 8}})
    set(p, block("torch"));
  const auto positions = w.positions();
  light::light_columns(w, table(), positions, nullptr);
  return w;
}

/// Times `timed` (an edit placing `cell` at p) and undoes it untimed; `place_first` places it untimed and times
/// the removal instead.
void edit_benchmark(benchmark::State& state, World& w, BlockPos p, Cell cell, bool time_removal) {
  const Cell original = w.get(p);
  size_t changed = 0;
  for (auto _ : state) {
    auto place = w.make_edit(p, cell);
    double t0 = 0;
    if (!time_removal) t0 = thread_seconds();
    const auto r = light::apply_edit(w, table(), *place);
    if (!time_removal) state.SetIterationTime(seconds_since(t0));
    auto undo = w.make_edit(p, original);
    if (time_removal) t0 = thread_seconds();
    const auto u = light::apply_edit(w, table(), *undo);
    if (time_removal) state.SetIterationTime(seconds_since(t0));
    changed = time_removal ? u.light.cells : r.light.cells;
  }
  state.counters["cells_changed"] = static_cast<double>(changed);
}

void BM_EditCaveTorchPlace(benchmark::State& state) {
  World w = lit_cave();
  edit_benchmark(state, w, {0, 21, 0}, block("torch"), false);
}
void BM_EditCaveTorchRemove(benchmark::State& state) {
  World w = lit_cave();
  edit_benchmark(state, w, {0, 21, 0}, block("torch"), true);
}
void BM_EditCaveStonePlace(benchmark::State& state) {
  World w = lit_cave();  // beside the foot of the sky shaft, in its light
  edit_benchmark(state, w, {-5, 20, 5}, block("stone"), false);
}
void BM_EditCaveStoneRemove(benchmark::State& state) {
  World w = lit_cave();
  edit_benchmark(state, w, {-5, 20, 5}, block("stone"), true);
}
BENCHMARK(BM_EditCaveTorchPlace)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_EditCaveTorchRemove)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_EditCaveStonePlace)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_EditCaveStoneRemove)->UseManualTime()->Unit(benchmark::kMicrosecond);

/// The (2 radius + 1)^2 columns of `g` round column (5, 5), generated and lit; their positions in `positions`.
World lit_square(const gen::Generator& g, int64_t radius, std::vector<ColumnPos>& positions) {
  World w;
  positions.clear();
  for (int64_t x = -radius; x <= radius; ++x)
    for (int64_t z = -radius; z <= radius; ++z) {
      positions.push_back({x + 5, z + 5});
      auto c = std::make_unique<Column>(ColumnPos{x + 5, z + 5});
      g.generate(*c);
      w.insert(std::move(c));
    }
  light::light_columns(w, table(), positions, nullptr);
  return w;
}

// A torch placed on / removed from the default terrain's surface (sky and block light both present).
void BM_EditSurfaceTorch(benchmark::State& state, bool removal) {
  const auto g = make("default", 1);
  std::vector<ColumnPos> positions;
  World w = lit_square(*g, 1, positions);
  const int64_t x = 5 * 16 + 15, z = 5 * 16 + 8;  // on the column border x = 95/96
  edit_benchmark(state, w, {x, g->surface_y(x, z) + 1, z}, block("torch"), removal);
}
BENCHMARK_CAPTURE(BM_EditSurfaceTorch, place, false)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_EditSurfaceTorch, remove, true)->UseManualTime()->Unit(benchmark::kMicrosecond);

// An edit storm: the tour's blast (a ball of radius 14, dx^2 + dy^2 + dz^2 <= 14^2 + 14, every block but bedrock
// and fluids to air) centred 10 blocks under the default terrain's ground, in 5 x 5 lit columns: light for all its
// edits as one batch (light::apply_edits, what the game's blast calls) and one edit at a time (apply_edit each),
// with the section remeshes each way would ask for (mesh::sections_dirtied_by, counted untimed).
// The world is restored untimed between iterations.
void BM_EditStorm(benchmark::State& state, bool batch) {
  const auto g = make("default", 1);
  std::vector<ColumnPos> positions;
  const World lit = lit_square(*g, 2, positions);
  const int64_t cx = 5 * 16 + 8, cz = 5 * 16 + 8, cy = g->surface_y(cx, cz) - 10, r = 14;
  std::vector<Edit> edits;
  for (int64_t dy = -r; dy <= r; ++dy)
    for (int64_t dz = -r; dz <= r; ++dz)
      for (int64_t dx = -r; dx <= r; ++dx) {
        if (dx * dx + dy * dy + dz * dz > r * r + r) continue;
        const BlockPos p{cx + dx, cy + dy, cz + dz};
        const Cell c = lit.get(p);
        if (c.id == kAirId || c.id == block("bedrock").id || c.id == block("water").id || c.id == block("lava").id) continue;
        edits.push_back(Edit{p, c, kAir, 0});
      }
  size_t changed = 0, remeshes = 0;
  for (auto _ : state) {
    World w;
    for (const ColumnPos& p : positions) w.insert(std::make_unique<Column>(*lit.find(p)));
    std::vector<light::LightChanges> changes;
    const double t0 = thread_seconds();
    if (batch) {
      changes.push_back(light::apply_edits(w, table(), edits).light);
    } else {
      for (const Edit& e : edits) changes.push_back(light::apply_edit(w, table(), e).light);
    }
    state.SetIterationTime(seconds_since(t0));
    // What the streamer would remesh (untimed): once for the batch's dirty set, or each edit's own set.
    changed = remeshes = 0;
    for (size_t i = 0; i < changes.size(); ++i) {
      changed += changes[i].cells;
      const std::span<const Edit> its = batch ? std::span<const Edit>(edits) : std::span<const Edit>(&edits[i], 1);
      remeshes += mesh::sections_dirtied_by(its, changes[i].dirty_sections()).size();
    }
  }
  state.counters["edits"] = static_cast<double>(edits.size());
  state.counters["cells_changed"] = static_cast<double>(changed);
  state.counters["section_remeshes"] = static_cast<double>(remeshes);
}
BENCHMARK_CAPTURE(BM_EditStorm, batch, true)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_EditStorm, one_at_a_time, false)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
