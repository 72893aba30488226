// LOD pyramid benchmarks (single thread, default generator seed 1, lit columns):
//   - BM_MipColumn: build_column_mips of one column (24 sections' mip chains, levels 0..4 packed into bricks: what a
//     worker does), cycling through 16 columns of a 4 x 4 area;
//   - BM_AddColumn: Pyramid::add_column of a column into the pyramid of its 8 neighbours (the mips, the inserts and
//     levels 5 up), then removed again untimed;
//   - BM_BuildArea: a 9 x 9 area of columns added with add_columns (no pool), reported per column, with the memory
//     of the resulting pyramid per LOD section and level as counters;
//   - BM_PropagateEdit: Pyramid::apply_edit after light::apply_edit (untimed) for a stone placed on / removed from
//     the surface, a torch placed on / removed from the surface (a few thousand cells of changed light) and a stone
//     removed from / put back into deep rock.
// Only the measured call is timed (manual timing), with the calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID): the
// 2-core machine is shared, and everything measured runs on this one thread.
//
// Run (Release): build/voxen_bench_lod --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// Figures and the exact command are recorded in docs/PERFORMANCE.md ("LOD pyramid").
#include <benchmark/benchmark.h>

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "bench_support.h"
#include "voxen/gen/generator.h"
#include "voxen/light/light.h"
#include "voxen/lod/pyramid.h"

namespace {

using namespace voxen;
using namespace voxen::benchsupport;

const lod::Mipper& mipper() {
  static const lod::Mipper m(registry());
  return m;
}

std::vector<ColumnPos> area(int64_t cx0, int64_t cz0, int64_t side) {
  std::vector<ColumnPos> out;
  for (int64_t x = 0; x < side; ++x)
    for (int64_t z = 0; z < side; ++z) out.push_back({cx0 + x, cz0 + z});
  return out;
}

/// The default terrain (seed 1) over `positions`, generated and lit.
std::unique_ptr<World> lit_world(const std::vector<ColumnPos>& positions) {
  const auto g = make("default", 1);
  auto w = std::make_unique<World>();
  for (auto& c : gen::generate_columns(*g, positions, nullptr)) w->insert(std::move(c));
  light::light_columns(*w, table(), positions, nullptr);
  return w;
}

void BM_MipColumn(benchmark::State& state) {
  const std::vector<ColumnPos> positions = area(-2, -2, 4);
  const auto w = lit_world(positions);
  size_t i = 0;
  for (auto _ : state) {
    const Column& c = *w->find(positions[i++ % positions.size()]);
    const double t0 = thread_seconds();
    lod::ColumnMips m = lod::build_column_mips(c, mipper());
    state.SetIterationTime(thread_seconds() - t0);
    benchmark::DoNotOptimize(m);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}
BENCHMARK(BM_MipColumn)->UseManualTime()->Unit(benchmark::kMicrosecond);

void BM_AddColumn(benchmark::State& state) {
  const std::vector<ColumnPos> positions = area(-1, -1, 3);
  const auto w = lit_world(positions);
  lod::Pyramid p(mipper());
  for (const ColumnPos& c : positions)
    if (c != ColumnPos{0, 0}) p.add_column(*w->find(c));
  const Column& centre = *w->find({0, 0});
  for (auto _ : state) {
    const double t0 = thread_seconds();
    lod::LodUpdate u = p.add_column(centre);
    state.SetIterationTime(thread_seconds() - t0);
    benchmark::DoNotOptimize(u);
    p.remove_column({0, 0});
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}
BENCHMARK(BM_AddColumn)->UseManualTime()->Unit(benchmark::kMicrosecond);

void BM_BuildArea(benchmark::State& state) {
  const std::vector<ColumnPos> positions = area(-4, -4, 9);
  const auto w = lit_world(positions);
  std::array<size_t, lod::kMaxLevels> sections{}, bytes{}, uniform{};
  size_t total_bytes = 0;
  for (auto _ : state) {
    lod::Pyramid p(mipper());
    const double t0 = thread_seconds();
    p.add_columns(*w, positions, nullptr);
    state.SetIterationTime(thread_seconds() - t0);
    sections = {};
    bytes = {};
    uniform = {};
    for (const lod::LodSectionPos& pos : p.positions()) {
      const lod::LodSection* s = p.find(pos);
      ++sections[static_cast<size_t>(pos.level)];
      bytes[static_cast<size_t>(pos.level)] += s->memory_bytes();
      uniform[static_cast<size_t>(pos.level)] += s->is_uniform() ? 1 : 0;
    }
    total_bytes = p.memory_bytes();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * positions.size()));
  for (int level = 0; level < lod::kDefaultLevels; ++level) {
    const size_t l = static_cast<size_t>(level);
    std::string tag("L");  // appended, not "L" + ...: GCC 12 reports a false -Wrestrict for that
    tag += std::to_string(level);
    state.counters[tag + "_sections"] = static_cast<double>(sections[l]);
    state.counters[tag + "_uniform"] = static_cast<double>(uniform[l]);
    state.counters[tag + "_KiB_per_section"] = static_cast<double>(bytes[l]) / 1024.0 / static_cast<double>(sections[l]);
  }
  state.counters["KiB_per_column"] = static_cast<double>(total_bytes) / 1024.0 / static_cast<double>(positions.size());
  size_t world_bytes = 0;
  for (const ColumnPos& c : positions) world_bytes += w->find(c)->cell_bytes() + w->find(c)->light_bytes();
  state.counters["world_KiB_per_column"] = static_cast<double>(world_bytes) / 1024.0 / static_cast<double>(positions.size());
}
BENCHMARK(BM_BuildArea)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(5);

/// The top cell that is not air at (x, z).
int64_t top_y(const World& w, int64_t x, int64_t z) {
  for (int64_t y = kMaxY; y > kMinY; --y)
    if (w.get({x, y, z}).id != kAirId) return y;
  return kMinY;
}

/// Edits alternating between `a` and `b` at p, each followed by the pyramid's update; only the latter is timed.
void run_edits(benchmark::State& state, World& w, lod::Pyramid& p, const BlockPos& pos, Cell a, Cell b) {
  bool first = true;
  uint32_t levels = 0, cells = 0;
  for (auto _ : state) {
    const auto e = w.make_edit(pos, first ? a : b);
    const light::EditResult r = light::apply_edit(w, table(), *e);
    const double t0 = thread_seconds();
    const lod::LodUpdate u = p.apply_edit(w, *e, r.light);
    state.SetIterationTime(thread_seconds() - t0);
    levels += static_cast<uint32_t>(u.levels);
    for (uint32_t c : u.cells) cells += c;
    first = !first;
  }
  state.counters["levels"] = benchmark::Counter(levels, benchmark::Counter::kAvgIterations);
  state.counters["cells"] = benchmark::Counter(cells, benchmark::Counter::kAvgIterations);
}

void BM_PropagateEdit(benchmark::State& state, int kind) {
  const std::vector<ColumnPos> positions = area(-2, -2, 5);
  auto w = lit_world(positions);
  lod::Pyramid p(mipper());
  p.add_columns(*w, positions, nullptr);
  const int64_t x = 5, z = 6;
  const int64_t ground = top_y(*w, x, z);
  const Cell stone{registry().id("stone"), 0}, torch{registry().id("torch"), 0};
  int64_t deep = -100;
  while (w->get({x, deep, z}) != stone) ++deep;
  switch (kind) {
    case 0: run_edits(state, *w, p, {x, ground + 1, z}, stone, kAir); break;
    case 1: run_edits(state, *w, p, {x, ground + 1, z}, torch, kAir); break;
    default: run_edits(state, *w, p, {x, deep, z}, kAir, stone); break;
  }
}
BENCHMARK_CAPTURE(BM_PropagateEdit, stone_on_surface, 0)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_PropagateEdit, torch_on_surface, 1)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_PropagateEdit, stone_in_deep_rock, 2)->UseManualTime()->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
