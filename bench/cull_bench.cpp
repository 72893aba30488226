// Cave culling benchmarks (single thread, the calling thread's CPU time): face_links over every section of the
// default terrain's columns within render distance 16 of the origin (seed 1, 33 x 33 columns, generated once), and
// find_visible over that graph from an eye 2 blocks above the ground at the origin and from one in a cave under it,
// every present section accepted (no frustum: the search's most work). Counters: sections per column box, sections
// found.
//
// Run (Release): build/voxen_bench_cull --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// Figures and the exact command are recorded in docs/PERFORMANCE.md ("Visibility").
#include <benchmark/benchmark.h>

#include <memory>
#include <vector>

#include "bench_support.h"
#include "voxen/cull/visibility.h"
#include "voxen/gen/generator.h"

namespace {

using namespace voxen;
using namespace voxen::benchsupport;

constexpr int kRadius = 16;

struct Area {
  std::vector<std::unique_ptr<Column>> columns;
  cull::SightTable sight{registry()};
  cull::SectionGraph graph;
  std::unique_ptr<gen::Generator> g = make("default", 1);
  Area() {
    std::vector<ColumnPos> pos;
    for (int64_t z = -kRadius; z <= kRadius; ++z)
      for (int64_t x = -kRadius; x <= kRadius; ++x) pos.push_back({x, z});
    columns = gen::generate_columns(*g, pos, nullptr);
    graph.reset({0, 0}, kRadius);
    for (const auto& c : columns)
      for (int y = 0; y < kSectionsPerColumn; ++y)
        graph.set(SectionPos{c->pos().x, y, c->pos().z}, cull::face_links(c->section(y), sight));
  }
  // An air cell at y 0 or below in the origin's column (a cave, under 100 blocks of rock or more here), or 2 blocks
  // above the ground when there is none.
  BlockPos cave_eye() const {
    const Column& c = *columns[static_cast<size_t>(kRadius * (2 * kRadius + 1) + kRadius)];
    for (int z = 0; z < 16; ++z)
      for (int x = 0; x < 16; ++x)
        for (int64_t y = 0; y > kMinY + 8; --y)
          if (c.get(x, y, z).id == kAirId) return {x, y, z};
    return {8, g->surface_y(8, 8) + 2, 8};
  }
};

const Area& area() {
  static const Area a;
  return a;
}

void BM_FaceLinks(benchmark::State& state) {
  const Area& a = area();
  size_t k = 0;
  for (auto _ : state) {
    const Column& c = *a.columns[(k / kSectionsPerColumn) % a.columns.size()];
    const double t0 = thread_seconds();
    benchmark::DoNotOptimize(cull::face_links(c.section(static_cast<int>(k % kSectionsPerColumn)), a.sight));
    state.SetIterationTime(thread_seconds() - t0);
    ++k;
  }
}

void BM_FindVisible(benchmark::State& state) {
  const Area& a = area();
  const BlockPos eye = state.range(0) == 0 ? BlockPos{8, a.g->surface_y(8, 8) + 2, 8} : a.cave_eye();
  std::vector<SectionPos> out;
  for (auto _ : state) {
    out.clear();
    const double t0 = thread_seconds();
    cull::find_visible(a.graph, eye, [](const SectionPos&) { return true; }, out);
    state.SetIterationTime(thread_seconds() - t0);
  }
  state.counters["sections"] = static_cast<double>(a.columns.size() * kSectionsPerColumn);
  state.counters["found"] = static_cast<double>(out.size());
  state.counters["eye_y"] = static_cast<double>(eye.y);
}

}  // namespace

BENCHMARK(BM_FaceLinks)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_FindVisible)->Arg(0)->Arg(1)->UseManualTime()->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
