// The far view's coarse terrain path (voxen/lod/coarse.h), single thread, default generator seed 1:
//   - BM_CoarseSection/L: CoarseTerrain::build of one level-L LOD section (32^3 cells and the one-cell border,
//     from the terrain model sampled at the level's resolution), cycling through 8 sections in rows along x at
//     the ground's height (section y = 64 >> (L + 5), so the section holds the surface): four at the origin
//     (mountains) and four from x = 7,296 (a forest, the agreement test's), z = 0;
//   - BM_CoarseFlat/L: the same for the flat generator (a read of its periodic tile pyramid, built once untimed);
//   - BM_CoarseFlatTile: the flat generator's first build(): its 64 x 64 tile generated and lit with its eight
//     neighbours (144 columns) and mipped, once per CoarseTerrain.
// Timed with the calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID): the 2-core machine is shared.
//
// Run (Release): build/voxen_bench_coarse --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// Figures and the exact command are recorded in docs/PERFORMANCE.md ("Coarse terrain").
#include <benchmark/benchmark.h>

#include "bench_support.h"
#include "voxen/lod/coarse.h"

namespace {

using namespace voxen;
using namespace voxen::benchsupport;

const lod::Mipper& mipper() {
  static const lod::Mipper m(registry());
  return m;
}

void run(benchmark::State& state, const char* kind) {
  const int level = static_cast<int>(state.range(0));
  const auto g = make(kind, 1);
  const lod::CoarseTerrain coarse(*g, registry(), mipper());
  const int64_t y = (int64_t{64} >> level) >> 5;
  benchmark::DoNotOptimize(coarse.build({level, -100, y, 0}));  // warm: scratch buffers, the flat tile
  int64_t i = 0;
  for (auto _ : state) {
    const double t0 = thread_seconds();
    const int64_t k = i++ % 8;
    const int64_t x = k < 4 ? k - 2 : (int64_t{7296} >> (level + 5)) + k - 4;
    lod::PaddedLodSection s = coarse.build({level, x, y, 0});
    benchmark::DoNotOptimize(s.cells.data());
    state.SetIterationTime(thread_seconds() - t0);
  }
}

void BM_CoarseSection(benchmark::State& state) { run(state, "default"); }
void BM_CoarseFlat(benchmark::State& state) { run(state, "flat"); }

void BM_CoarseFlatTile(benchmark::State& state) {
  const auto g = make("flat", 1);
  for (auto _ : state) {
    const double t0 = thread_seconds();
    const lod::CoarseTerrain coarse(*g, registry(), mipper());
    benchmark::DoNotOptimize(coarse.build({0, 0, 0, 0}).cells.data());
    state.SetIterationTime(thread_seconds() - t0);
  }
}

BENCHMARK(BM_CoarseSection)->DenseRange(0, 5)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CoarseFlat)->DenseRange(0, 5, 5)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CoarseFlatTile)->Iterations(3)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace
BENCHMARK_MAIN();
