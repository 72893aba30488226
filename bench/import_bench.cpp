// Import speed: reading, evaluating and placing the largest real .vox files (../shared/data/vox), and writing a
// generated region back. Release build; figures in docs/PERFORMANCE.md (Import).
#include <benchmark/benchmark.h>

#include <fstream>
#include <iterator>

#include "voxen/gen/generator.h"
#include "voxen/import/vox_place.h"
#include "voxen/import/vox_write.h"

namespace voxen::import {
namespace {

std::vector<uint8_t> load(const char* name) {
  std::ifstream in(std::string(VOXEN_SOURCE_DIR) + "/../shared/data/vox/" + name, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

const char* kFiles[] = {"mmmm_scene_store8.vox", "bevyvoxscene_study.vox"};

void BM_ReadVox(benchmark::State& state) {
  const auto bytes = load(kFiles[state.range(0)]);
  if (bytes.empty()) return state.SkipWithError("shared data file absent");
  uint64_t voxels = 0;
  for (auto _ : state) {
    auto f = read_vox(bytes, "bench.vox");
    voxels = f->voxel_count();
    benchmark::DoNotOptimize(voxels);
  }
  state.SetLabel(kFiles[state.range(0)]);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes.size()));
  state.counters["voxels"] = static_cast<double>(voxels);
}
BENCHMARK(BM_ReadVox)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

void BM_EvaluateScene(benchmark::State& state) {
  const auto bytes = load(kFiles[state.range(0)]);
  if (bytes.empty()) return state.SkipWithError("shared data file absent");
  const auto f = read_vox(bytes, "bench.vox");
  uint64_t placed = 0;
  for (auto _ : state) {
    auto s = evaluate_scene(*f);
    placed = s->voxels.size();
    benchmark::DoNotOptimize(placed);
  }
  state.SetLabel(kFiles[state.range(0)]);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * placed));
}
BENCHMARK(BM_EvaluateScene)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// Read + evaluate + place into an empty World (columns created), blocks registered in a fresh registry copy.
void BM_ImportIntoWorld(benchmark::State& state) {
  const auto bytes = load(kFiles[state.range(0)]);
  if (bytes.empty()) return state.SkipWithError("shared data file absent");
  const auto base = BlockRegistry::load_default();
  uint64_t placed = 0;
  for (auto _ : state) {
    BlockRegistry reg = *base;
    World world;
    auto f = read_vox(bytes, "bench.vox");
    auto plan = plan_vox_placement(*f, {});
    auto stats = apply_vox_placement(world, reg, *f, *plan, true);
    placed = stats->placed_voxels;
    benchmark::DoNotOptimize(world.column_count());
  }
  state.SetLabel(kFiles[state.range(0)]);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * placed));
}
BENCHMARK(BM_ImportIntoWorld)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// write_vox of a generated 128 x 61 x 128 region (y 40..100) of the default world, seed 1.
void BM_WriteVox(benchmark::State& state) {
  const auto reg = BlockRegistry::load_default();
  auto gen = gen::make_generator("default", 1, *reg);
  std::vector<ColumnPos> cols;
  for (int64_t x = 0; x < 8; ++x)
    for (int64_t z = 0; z < 8; ++z) cols.push_back({x, z});
  World world;
  for (auto& c : gen::generate_columns(**gen, cols, nullptr)) world.insert(std::move(c));
  VoxWriteStats ws;
  for (auto _ : state) {
    auto bytes = write_vox(world, *reg, {0, 40, 0}, {127, 100, 127}, &ws);
    benchmark::DoNotOptimize(bytes->data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * ws.voxels));
  state.counters["voxels"] = static_cast<double>(ws.voxels);
}
BENCHMARK(BM_WriteVox)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace voxen::import
BENCHMARK_MAIN();
