// Generation benchmarks: columns per second on one thread (the `default` and `flat` generators), the worker pool,
// surface_y, and the memory of generated cells per column averaged over a radius-8 area (Column::cell_bytes()).
//
// Run (Release): build-gen/voxen_bench_gen --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// Figures and the exact command are recorded in docs/PERFORMANCE.md ("Generation").
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "voxen/core/job_pool.h"
#include "voxen/gen/generator.h"

namespace {

using namespace voxen;

const BlockRegistry& registry() {
  static const BlockRegistry reg = [] {
    auto r = BlockRegistry::load_default();
    if (!r) {
      std::fprintf(stderr, "block registry: %s\n", r.error().to_string().c_str());
      std::exit(1);
    }
    return std::move(r).value();
  }();
  return reg;
}

std::unique_ptr<gen::Generator> make(std::string_view name, uint64_t seed) {
  auto g = gen::make_generator(name, seed, registry());
  if (!g) {
    std::fprintf(stderr, "%s\n", g.error().to_string().c_str());
    std::exit(1);
  }
  return std::move(g).value();
}

// The (2r+1)^2 columns around a column, row by row.
std::vector<ColumnPos> area(ColumnPos mid, int r) {
  std::vector<ColumnPos> out;
  for (int dz = -r; dz <= r; ++dz)
    for (int dx = -r; dx <= r; ++dx) out.push_back({mid.x + dx, mid.z + dz});
  return out;
}

// Places the benchmarks sample: the origin and two places far out (different biomes for seed 1).
const ColumnPos kCentres[] = {{0, 0}, {312, 187}, {-4100, 2900}};

// One column per iteration, cycling through radius-8 areas around kCentres; reports columns/s and the average
// cell bytes of the generated columns.
void generate_single_thread(benchmark::State& state, std::string_view name) {
  const auto g = make(name, 1);
  std::vector<ColumnPos> positions;
  for (const ColumnPos& c : kCentres)
    for (const ColumnPos& p : area(c, 8)) positions.push_back(p);
  size_t i = 0;
  for (auto _ : state) {
    Column col(positions[i]);
    g->generate(col);
    benchmark::DoNotOptimize(col.section(12).palette().data());
    i = (i + 1) % positions.size();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
  state.counters["columns_per_s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

void BM_GenerateColumnDefault(benchmark::State& state) { generate_single_thread(state, "default"); }
void BM_GenerateColumnFlat(benchmark::State& state) { generate_single_thread(state, "flat"); }
BENCHMARK(BM_GenerateColumnDefault)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_GenerateColumnFlat)->Unit(benchmark::kMicrosecond);

// Average Column::cell_bytes() over the radius-8 area (289 columns) around one of kCentres (range(0) picks it).
void BM_CellBytesRadius8(benchmark::State& state) {
  const auto g = make("default", 1);
  const auto positions = area(kCentres[state.range(0)], 8);
  double avg = 0;
  for (auto _ : state) {
    size_t total = 0;
    for (const ColumnPos& p : positions) {
      Column col(p);
      g->generate(col);
      total += col.cell_bytes();
    }
    avg = static_cast<double>(total) / static_cast<double>(positions.size());
  }
  state.counters["bytes_per_column"] = avg;
}
BENCHMARK(BM_CellBytesRadius8)->DenseRange(0, 2)->Unit(benchmark::kMillisecond)->Iterations(1);

// generate_columns on a pool of range(0) workers, radius 8 around the origin.
void BM_GenerateColumnsPool(benchmark::State& state) {
  const auto g = make("default", 1);
  JobPool pool(static_cast<int>(state.range(0)));
  const auto positions = area({0, 0}, 8);
  for (auto _ : state) {
    auto cols = gen::generate_columns(*g, positions, &pool);
    benchmark::DoNotOptimize(cols.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * positions.size()));
  state.counters["columns_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations() * positions.size()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_GenerateColumnsPool)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_SurfaceY(benchmark::State& state) {
  const auto g = make("default", 1);
  int64_t x = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(g->surface_y(x, 37));
    x += 16;
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}
BENCHMARK(BM_SurfaceY)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
