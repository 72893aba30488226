// LOD mesher benchmarks (single thread): mesh_lod_section (greedy, bitmask rows) and mesh_lod_section_reference (one
// quad per face) over every LOD section of one level of a Pyramid (levels 0..5) built from 16 x 16 columns of the
// default terrain (seed 1, columns -8..7 in x and z, lit), each section padded with its same-level neighbours' border
// cells as the far view will feed them. One iteration meshes one section (cycling through the level's sections);
// only the mesher call is timed, with the calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID: the 2-core machine is
// shared). Counters: sections of the level, those with at least one quad, quads and 1x1 faces per section (averages
// over all the level's sections).
// Sections of levels 3..5 (256, 512 and 1,024 blocks) reach past the 256 x 256 blocks of columns: their cells there are
// background (air), so they hold less than sections inside a fully loaded (or coarse-terrain) area would.
//
// Run (Release): build/voxen_bench_lod_mesh --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// Figures and the exact command are recorded in docs/PERFORMANCE.md ("LOD meshing").
#include <benchmark/benchmark.h>

#include <memory>
#include <vector>

#include "bench_support.h"
#include "voxen/gen/generator.h"
#include "voxen/light/light.h"
#include "voxen/lod/coarse.h"
#include "voxen/lod/pyramid.h"
#include "voxen/mesh/lod_mesher.h"

namespace {

using namespace voxen;
using namespace voxen::benchsupport;

const lod::Mipper& mipper() {
  static const lod::Mipper m(registry());
  return m;
}
const mesh::LodMeshTables& lod_tables() {
  static const mesh::LodMeshTables t(registry());
  return t;
}

/// A held section of `p` padded with its six same-level neighbours' border cells (background where none is held).
lod::PaddedLodSection padded(const lod::Pyramid& p, const lod::LodSectionPos& pos) {
  lod::PaddedLodSection out;
  out.pos = pos;
  for (int y = -1; y <= 32; ++y)
    for (int z = -1; z <= 32; ++z)
      for (int x = -1; x <= 32; ++x) {
        const int dx = x < 0 ? -1 : x > 31 ? 1 : 0, dy = y < 0 ? -1 : y > 31 ? 1 : 0, dz = z < 0 ? -1 : z > 31 ? 1 : 0;
        if ((dx != 0) + (dy != 0) + (dz != 0) > 1) continue;  // edges and corners: unused
        const lod::LodSectionPos n{pos.level, pos.x + dx, pos.y + dy, pos.z + dz};
        const lod::LodSection* s = p.find(n);
        out.set(x, y, z, s ? s->get(x & 31, y & 31, z & 31) : lod::background_cell(pos.level, n.y * 32 + (y & 31)));
      }
  return out;
}

/// The padded sections of every level of the 16 x 16 columns' pyramid, built once.
const std::vector<std::vector<lod::PaddedLodSection>>& sections() {
  static const std::vector<std::vector<lod::PaddedLodSection>> all = [] {
    std::vector<ColumnPos> positions;
    for (int64_t x = -8; x < 8; ++x)
      for (int64_t z = -8; z < 8; ++z) positions.push_back({x, z});
    const auto g = make("default", 1);
    auto w = std::make_unique<World>();
    for (auto& c : gen::generate_columns(*g, positions, nullptr)) w->insert(std::move(c));
    light::light_columns(*w, table(), positions, nullptr);
    lod::Pyramid p(mipper(), lod::kDefaultLevels);
    p.add_columns(*w, positions, nullptr);
    std::vector<std::vector<lod::PaddedLodSection>> out(lod::kDefaultLevels);
    for (const lod::LodSectionPos& pos : p.positions()) out[static_cast<size_t>(pos.level)].push_back(padded(p, pos));
    return out;
  }();
  return all;
}

void BM_LodMesh(benchmark::State& state, bool reference) {
  const auto& level = sections()[static_cast<size_t>(state.range(0))];
  mesh::LodMesh m;
  size_t quads = 0, faces = 0, nonempty = 0;
  for (const auto& s : level) {
    mesh::mesh_lod_section(s, lod_tables(), m);
    quads += m.quads.size();
    nonempty += m.quads.empty() ? 0 : 1;
    mesh::mesh_lod_section_reference(s, lod_tables(), m);
    faces += m.quads.size();
  }
  size_t i = 0;
  for (auto _ : state) {
    const lod::PaddedLodSection& s = level[i++ % level.size()];
    const double t0 = thread_seconds();
    if (reference)
      mesh::mesh_lod_section_reference(s, lod_tables(), m);
    else
      mesh::mesh_lod_section(s, lod_tables(), m);
    state.SetIterationTime(thread_seconds() - t0);
    benchmark::DoNotOptimize(m.quads.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
  const double n = static_cast<double>(level.size());
  state.counters["sections"] = n;
  state.counters["nonempty"] = static_cast<double>(nonempty);
  state.counters["quads_per_section"] = static_cast<double>(quads) / n;
  state.counters["faces_per_section"] = static_cast<double>(faces) / n;
}
BENCHMARK_CAPTURE(BM_LodMesh, greedy, false)->DenseRange(0, 5)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_LodMesh, reference, true)->DenseRange(0, 5)->UseManualTime()->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
