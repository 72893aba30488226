// Meshing speed (docs/PERFORMANCE.md, Meshing). Single thread, Release.
//   BM_MeshCulled / BM_MeshGreedy: the fast mesher over every section of a generated, lit area that has any face,
//     from prebuilt padded inputs (each copied into a working buffer first, as a worker's freshly built input is
//     in cache; only the meshing is timed, in thread CPU time); counters: ns per visible unit face and us per
//     meshed section.
//   BM_MeshCulledSurface / BM_MeshGreedySurface: only the sections the terrain surface passes through.
//   BM_MeshGreedyFromWorld: the same with the padded input built from the World each time (what a worker does).
//   BM_BuildInput: building the padded inputs alone.
//   BM_MeshFixedCost: a section with one cube in air (0), solid rock with one hole (1).
//   BM_Reference: the reference mesher, for scale.
//   BM_MeshFluidSeams: one synthetic section where every fluid side meets a partial or see-through block (below).
//   BM_EditToMesh: one block edit (placed or removed in turn at hashed surface positions near column borders),
//     light updated by light::apply_edit, the dirty sections remeshed; time per edit.
// Area: the default generator, seed 1, the 5 x 5 columns around (0, 0) (7 x 7 generated and lit).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <cstdlib>
#include <memory>
#include <vector>

#include "voxen/core/hash.h"
#include "voxen/gen/generator.h"
#include "voxen/light/light.h"
#include "voxen/mesh/baked.h"
#include "voxen/mesh/dirty.h"
#include "voxen/mesh/faces.h"
#include "voxen/mesh/mesher.h"
#include "voxen/mesh/reference.h"

namespace voxen::mesh {
namespace {

struct Area {
  BlockRegistry reg;
  std::unique_ptr<BakedBlocks> baked;
  std::unique_ptr<light::LightTable> table;
  std::unique_ptr<gen::Generator> gen;
  World world;
  std::vector<ColumnPos> inner;
  std::vector<SectionPos> sections;                   // inner sections with at least one face
  std::vector<std::unique_ptr<SectionInput>> inputs;  // their padded inputs
  size_t unit_faces = 0;                              // visible unit faces over those sections
  std::vector<size_t> surface;                        // indices of the sections the terrain surface passes through
  size_t surface_faces = 0;
};

Area& area() {
  static Area* a = [] {
    auto* out = new Area;
    auto reg = BlockRegistry::load_default();
    if (!reg) {
      std::fprintf(stderr, "%s\n", reg.error().message.c_str());
      std::exit(1);
    }
    out->reg = std::move(reg).value();
    out->baked = std::make_unique<BakedBlocks>(std::move(BakedBlocks::bake(out->reg)).value());
    out->table = std::make_unique<light::LightTable>(out->reg);
    out->gen = std::move(gen::make_generator("default", 1, out->reg)).value();
    std::vector<ColumnPos> all;
    for (int64_t dx = -3; dx <= 3; ++dx)
      for (int64_t dz = -3; dz <= 3; ++dz) {
        all.push_back({dx, dz});
        if (std::abs(dx) <= 2 && std::abs(dz) <= 2) out->inner.push_back({dx, dz});
      }
    for (auto& col : gen::generate_columns(*out->gen, all, nullptr)) out->world.insert(std::move(col));
    light::light_columns(out->world, *out->table, all, nullptr);
    MeshScratch scratch;
    SectionMesh mesh;
    for (const ColumnPos c : out->inner)
      for (int s = 0; s < kSectionsPerColumn; ++s) {
        auto in = std::make_unique<SectionInput>();
        const SectionPos sp{c.x, s, c.z};
        mesh_world_section(*out->baked, out->world, sp, {false, true}, *in, scratch, mesh);
        if (mesh.empty()) continue;
        out->unit_faces += mesh.quad_count();
        // A surface section holds the generator's surface height of some (x, z) of its column.
        bool surface = false;
        for (int64_t x = c.min_x(); x < c.min_x() + 16 && !surface; ++x)
          for (int64_t z = c.min_z(); z < c.min_z() + 16 && !surface; ++z)
            surface = section_of_y(out->gen->surface_y(x, z)) == s;
        if (surface) {
          out->surface.push_back(out->sections.size());
          out->surface_faces += mesh.quad_count();
        }
        out->sections.push_back(sp);
        out->inputs.push_back(std::move(in));
      }
    return out;
  }();
  return *a;
}

void report(benchmark::State& state, const Area& a) {
  state.counters["ns_per_face"] =
      benchmark::Counter(static_cast<double>(a.unit_faces) * 1e-9, benchmark::Counter::kIsIterationInvariantRate |
                                                                         benchmark::Counter::kInvert);
  state.counters["us_per_section"] =
      benchmark::Counter(static_cast<double>(a.sections.size()) * 1e-6,
                         benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.counters["faces"] = static_cast<double>(a.unit_faces);
  state.counters["sections"] = static_cast<double>(a.sections.size());
}

double thread_cpu_ns() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
}

// Meshes the sections with indices `which`: each input is first copied into a working buffer (as a worker builds
// its input right before meshing it, so the input is in cache), then meshed; only the meshing is timed (thread CPU
// time). Counters: ns per visible unit face and us per section of the meshing alone.
void mesh_timed(benchmark::State& state, MeshOptions opt, const std::vector<size_t>& which, size_t faces) {
  Area& a = area();
  MeshScratch scratch;
  SectionMesh mesh;
  auto hot = std::make_unique<SectionInput>();
  double ns = 0;
  size_t iterations = 0, quads = 0;
  for (auto _ : state) {
    quads = 0;
    for (size_t i : which) {
      *hot = *a.inputs[i];
      const double t0 = thread_cpu_ns();
      mesh_section(*a.baked, *hot, opt, scratch, mesh);
      ns += thread_cpu_ns() - t0;
      quads += mesh.quad_count();
    }
    ++iterations;
    benchmark::DoNotOptimize(quads);
  }
  const double per_iteration = ns / static_cast<double>(iterations ? iterations : 1);
  state.counters["ns_per_face"] = per_iteration / static_cast<double>(faces);
  state.counters["us_per_section"] = per_iteration * 1e-3 / static_cast<double>(which.size());
  state.counters["faces"] = static_cast<double>(faces);
  state.counters["sections"] = static_cast<double>(which.size());
  state.counters["quads"] = static_cast<double>(quads);
}

std::vector<size_t> all_sections(const Area& a) {
  std::vector<size_t> out(a.inputs.size());
  for (size_t i = 0; i < out.size(); ++i) out[i] = i;
  return out;
}

void BM_MeshCulled(benchmark::State& state) { mesh_timed(state, {false, true}, all_sections(area()), area().unit_faces); }
void BM_MeshGreedy(benchmark::State& state) { mesh_timed(state, {true, true}, all_sections(area()), area().unit_faces); }
// Only the sections the terrain surface passes through (hills, shores, plants, water surfaces).
void BM_MeshCulledSurface(benchmark::State& state) { mesh_timed(state, {false, true}, area().surface, area().surface_faces); }
void BM_MeshGreedySurface(benchmark::State& state) { mesh_timed(state, {true, true}, area().surface, area().surface_faces); }

void BM_MeshGreedyFromWorld(benchmark::State& state) {
  Area& a = area();
  MeshScratch scratch;
  SectionMesh mesh;
  auto in = std::make_unique<SectionInput>();
  for (auto _ : state) {
    size_t quads = 0;
    for (const SectionPos& sp : a.sections) {
      mesh_world_section(*a.baked, a.world, sp, {}, *in, scratch, mesh);
      quads += mesh.quad_count();
    }
    benchmark::DoNotOptimize(quads);
  }
  report(state, a);
}

void BM_BuildInput(benchmark::State& state) {
  Area& a = area();
  auto in = std::make_unique<SectionInput>();
  for (auto _ : state) {
    for (const SectionPos& sp : a.sections) {
      build_section_input(a.world, sp, *in);
      benchmark::DoNotOptimize(in->cells[100]);
    }
  }
  report(state, a);
}

void BM_Reference(benchmark::State& state) {
  Area& a = area();
  for (auto _ : state) {
    size_t n = 0;
    for (const auto& in : a.inputs) n += reference_mesh(a.reg, *in).size();
    benchmark::DoNotOptimize(n);
  }
  report(state, a);
}

void BM_EditToMesh(benchmark::State& state) {
  Area& a = area();
  MeshScratch scratch;
  SectionMesh mesh;
  auto in = std::make_unique<SectionInput>();
  const Cell blocks[] = {Cell{a.reg.id("stone"), 0}, Cell{a.reg.id("glowstone"), 0}, Cell{a.reg.id("glass"), 0}};
  uint64_t i = 0;
  size_t dirty_total = 0;
  std::vector<double> us;  // each edit's own time (thread CPU time), for the median
  for (auto _ : state) {
    // A hashed surface position in the inner area; even steps place a block on the surface, odd steps remove it
    // again (so the world stays the same over the run).
    const uint64_t h = hash1(0xED17, static_cast<int64_t>(i / 2));
    const int64_t x = static_cast<int64_t>(h % 80) - 40, z = static_cast<int64_t>((h >> 8) % 80) - 40;
    const int64_t y = a.gen->surface_y(x, z) + 1;
    const Cell after = (i % 2 == 0) ? blocks[(h >> 20) % 3] : kAir;
    ++i;
    const double t0 = thread_cpu_ns();
    const auto edit = a.world.make_edit({x, y, z}, after);
    if (!edit) continue;
    const light::EditResult res = light::apply_edit(a.world, *a.table, *edit);
    const auto dirty = sections_dirtied_by(*edit, res.light.dirty_sections());
    for (const SectionPos& sp : dirty) mesh_world_section(*a.baked, a.world, sp, {}, *in, scratch, mesh);
    us.push_back((thread_cpu_ns() - t0) * 1e-3);
    dirty_total += dirty.size();
  }
  std::sort(us.begin(), us.end());
  state.counters["dirty_sections_per_edit"] = static_cast<double>(dirty_total) / static_cast<double>(i ? i : 1);
  if (!us.empty()) {
    state.counters["median_us"] = us[us.size() / 2];
    state.counters["p99_us"] = us[us.size() * 99 / 100];
  }
}

// The fixed cost of a section: one stone cube in air (arg 0), or solid stone with one air cell (arg 1).
void BM_MeshFixedCost(benchmark::State& state) {
  Area& a = area();
  auto in = std::make_unique<SectionInput>();
  in->light.fill(make_light(15, 0, 0, 0));
  const Cell stone{a.reg.id("stone"), 0};
  if (state.range(0) == 1) {
    in->cells.fill(stone.packed());
    in->set(5, 6, 5, kAir);
  } else {
    in->set(5, 5, 5, stone);
  }
  MeshScratch scratch;
  SectionMesh mesh;
  for (auto _ : state) {
    mesh_section(*a.baked, *in, {}, scratch, mesh);
    benchmark::DoNotOptimize(mesh.opaque.data());
  }
  state.counters["quads"] = static_cast<double>(mesh.quad_count());
}

// Fluid seams (issue 12's rule on every fluid face): layers y 4..6 of one section over a stone floor, a checkerboard
// of water (levels from the cell's hash, so surfaces slope) and, between, slabs, stairs and slopes in every state,
// glass and oak leaves. Greedy meshing in thread CPU time; counters: ns per visible unit face, fluid quads.
void BM_MeshFluidSeams(benchmark::State& state) {
  Area& a = area();
  std::vector<Cell> solids = {Cell{a.reg.id("glass"), 0}, Cell{a.reg.id("oak_leaves"), 0},
                              Cell{a.reg.id("stone_slab"), 0}, Cell{a.reg.id("stone_slab"), 4}};
  for (uint8_t s = 0; s < 8; ++s) {
    solids.push_back(Cell{a.reg.id("stone_stairs"), s});
    solids.push_back(Cell{a.reg.id("stone_slope"), s});
  }
  auto in = std::make_unique<SectionInput>();
  in->light.fill(make_light(15, 0, 0, 0));
  for (int z = -1; z <= 16; ++z)
    for (int x = -1; x <= 16; ++x) {
      in->set(x, 3, z, Cell{a.reg.id("stone"), 0});
      for (int y = 4; y <= 6; ++y) {
        const uint64_t h = hash3(0xF1D, x, y, z);
        in->set(x, y, z, (x + y + z) % 2 == 0 ? Cell{a.reg.id("water"), static_cast<uint8_t>(h % 8)}
                                              : solids[(h >> 8) % solids.size()]);
      }
    }
  MeshScratch scratch;
  SectionMesh mesh;
  mesh_section(*a.baked, *in, {false, true}, scratch, mesh);
  const size_t faces = unit_face_count(mesh);
  double ns = 0;
  size_t iterations = 0;
  for (auto _ : state) {
    const double t0 = thread_cpu_ns();
    mesh_section(*a.baked, *in, {}, scratch, mesh);
    ns += thread_cpu_ns() - t0;
    ++iterations;
    benchmark::DoNotOptimize(mesh.translucent.data());
  }
  state.counters["ns_per_face"] = ns / static_cast<double>(iterations ? iterations : 1) / static_cast<double>(faces);
  state.counters["faces"] = static_cast<double>(faces);
  state.counters["fluid_quads"] = static_cast<double>(mesh.translucent.size());
}

BENCHMARK(BM_MeshFixedCost)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_MeshFluidSeams)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_MeshCulled)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MeshGreedy)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MeshCulledSurface)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MeshGreedySurface)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MeshGreedyFromWorld)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BuildInput)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Reference)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_EditToMesh)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace voxen::mesh

BENCHMARK_MAIN();
