// The far view's coarse terrain path (voxen/lod/coarse.h), single thread, default generator seed 1:
//   - BM_CoarseSection/L: CoarseTerrain::build of one level-L LOD section (32^3 cells and the one-cell border,
//     from the terrain model sampled at the level's resolution), cycling through 8 sections in rows along x at
//     the ground's height (section y = 64 >> (L + 5), so the section holds the surface): four at the origin
//     (mountains) and four from x = 7,296 (a forest, the agreement test's), z = 0;
//   - BM_CoarseFlat/L: the same for the flat generator (a read of its periodic tile pyramid, built once untimed);
//   - BM_CoarseFlatTile: the flat generator's first build(): its 64 x 64 tile generated and lit with its eight
//     neighbours (144 columns) and mipped, once per CoarseTerrain.
//   - BM_FarNode/L/stack: what a far-view job does for one level-L node (the whole stack of LOD sections at one
//     x, z over the world's height): CoarseTerrain::build_stack, the LOD mesher and the skirts, cycling through the
//     same 8 (x, z) as above; BM_FarNode/L/per_section: the same with build() per section (the terrain model
//     sampled again for every section, nothing skipped), the way before build_stack.
// Timed with the calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID): the 2-core machine is shared.
//
// Run (Release): build/voxen_bench_coarse --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// Figures and the exact command are recorded in docs/PERFORMANCE.md ("Coarse terrain").
#include <benchmark/benchmark.h>

#include "bench_support.h"
#include "voxen/lod/coarse.h"
#include "voxen/mesh/lod_mesher.h"
#include "voxen/core/coords.h"

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

void BM_FarNode(benchmark::State& state, bool stack) {
  const int level = static_cast<int>(state.range(0));
  const auto g = make("default", 1);
  const lod::CoarseTerrain coarse(*g, registry(), mipper());
  static const mesh::LodMeshTables tables(registry());
  mesh::LodMesh m;
  size_t quads = 0, sections = 0;
  int64_t i = 0;
  const int64_t span = int64_t{32} << level;
  for (auto _ : state) {
    const double t0 = thread_seconds();
    const int64_t k = i++ % 8;
    const int64_t x = k < 4 ? k - 2 : (int64_t{7296} >> (level + 5)) + k - 4;
    auto one = [&](const lod::PaddedLodSection& padded) {
      mesh::mesh_lod_section(padded, tables, m);
      mesh::append_lod_skirts(padded, tables, m);
      quads += m.quads.size();
      sections += !m.quads.empty();
    };
    if (stack) {
      coarse.build_stack(level, x, 0, one);
    } else {
      for (int64_t y = floor_div(kMinY, span); y <= floor_div(kMaxY, span); ++y) one(coarse.build({level, x, y, 0}));
    }
    state.SetIterationTime(thread_seconds() - t0);
  }
  state.counters["quads_per_node"] = static_cast<double>(quads) / static_cast<double>(state.iterations());
  state.counters["sections_per_node"] = static_cast<double>(sections) / static_cast<double>(state.iterations());
}

BENCHMARK(BM_CoarseSection)->DenseRange(0, 5)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_FarNode, stack, true)->DenseRange(0, 5)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_FarNode, per_section, false)->DenseRange(0, 5)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CoarseFlat)->DenseRange(0, 5, 5)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CoarseFlatTile)->Iterations(3)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace
BENCHMARK_MAIN();
