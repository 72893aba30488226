// Generation benchmarks: columns per second on one thread (the `default` and `flat` generators), the worker pool,
// surface_y, and the memory of generated cells per column averaged over a radius-8 area (Column::cell_bytes()).
//
// Run (Release): build-gen/voxen_bench_gen --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// Figures and the exact command are recorded in docs/PERFORMANCE.md ("Generation").
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "voxen/core/job_pool.h"
#include "voxen/gen/generator.h"
#include "voxen/gen/structures.h"
#include "voxen/gen/terrain_model.h"

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

// Structures (docs/PERFORMANCE.md, "Structures"): the columns under the nearest village and the nearest ziggurat of
// seed 1 to the origin (range(0): 0 village, 1 ziggurat), whole columns, and the structure part of those columns
// alone (what the generator's place_structures does: find, span, cell_at per cell, with the terrain heights), so a
// column's cost without structures is the first less the second.
std::vector<ColumnPos> structure_columns(int which, std::string* label = nullptr) {
  const gen::StructurePlanner planner(1, registry());
  std::vector<gen::Structure> found;
  planner.find(-4096, -4096, 4096, 4096, found);
  for (const gen::Structure& s : found)
    if ((which == 0 && s.kind == gen::StructureKind::kVillage) || (which == 1 && s.kind == gen::StructureKind::kZiggurat)) {
      std::vector<ColumnPos> out;
      if (label != nullptr)
        *label = std::string(gen::structure_kind_name(s.kind)) + " box " + std::to_string(s.box.x0) + "," +
                 std::to_string(s.box.z0) + ".." + std::to_string(s.box.x1) + "," + std::to_string(s.box.z1);
      for (int64_t cz = s.box.z0 >> 4; cz <= s.box.z1 >> 4; ++cz)
        for (int64_t cx = s.box.x0 >> 4; cx <= s.box.x1 >> 4; ++cx) out.push_back({cx, cz});
      return out;
    }
  std::fprintf(stderr, "no structure of kind %d near the origin\n", which);
  std::exit(1);
}

void BM_GenerateColumnUnderStructure(benchmark::State& state) {
  const auto g = make("default", 1);
  std::string label;
  const std::vector<ColumnPos> positions = structure_columns(static_cast<int>(state.range(0)), &label);
  state.SetLabel(label);
  size_t i = 0;
  for (auto _ : state) {
    Column col(positions[i]);
    g->generate(col);
    benchmark::DoNotOptimize(col.section(12).palette().data());
    i = (i + 1) % positions.size();
  }
  state.counters["columns"] = static_cast<double>(positions.size());
}
BENCHMARK(BM_GenerateColumnUnderStructure)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

void BM_StructureCellsOfColumn(benchmark::State& state) {
  const gen::StructurePlanner planner(1, registry());
  const gen::TerrainModel model(1);
  const std::vector<ColumnPos> positions = structure_columns(static_cast<int>(state.range(0)));
  std::vector<gen::TerrainSample> samples(256);
  std::vector<gen::Structure> found;
  size_t i = 0;
  uint64_t written = 0;
  for (auto _ : state) {
    const ColumnPos p = positions[i];
    state.PauseTiming();  // the generator has the terrain heights already
    model.sample_area(p.min_x(), p.min_z(), 16, 16, samples.data());
    state.ResumeTiming();
    found.clear();
    planner.find(p.min_x(), p.min_z(), p.min_x() + 15, p.min_z() + 15, found);
    for (const gen::Structure& s : found)
      for (int lz = 0; lz < 16; ++lz)
        for (int lx = 0; lx < 16; ++lx) {
          const int ground = samples[static_cast<size_t>(lz * 16 + lx)].height;
          int lo = 0, hi = -1;
          planner.span(s, p.min_x() + lx, p.min_z() + lz, ground, lo, hi);
          for (int y = lo; y <= hi; ++y) {
            Cell c;
            written += planner.cell_at(s, p.min_x() + lx, y, p.min_z() + lz, ground, c);
          }
        }
    benchmark::DoNotOptimize(written);
    i = (i + 1) % positions.size();
  }
}
BENCHMARK(BM_StructureCellsOfColumn)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

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
