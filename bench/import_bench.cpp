// Import speed: reading, evaluating and placing the largest real .vox files (../shared/data/vox), and writing a
// generated region back; Anvil import of the shared Minecraft regions (../shared/data/anvil) on one thread, whole
// (read, decompress, NBT, decode, map into columns; the store's writes are another thread's and left out) and by
// stage. Release build; figures in docs/PERFORMANCE.md (Import).
#include <benchmark/benchmark.h>

#include <fstream>
#include <iterator>

#include "voxen/gen/generator.h"
#include "voxen/import/anvil_chunk.h"
#include "voxen/import/anvil_import.h"
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
namespace voxen::import::anvil_bench {

const char* kRegions[] = {"gomc_1.18.1_world/region/r.0.0.mca", "gomc_1.14.4_world/region/r.0.0.mca"};
std::string region_path(int i) { return std::string(VOXEN_SOURCE_DIR) + "/../shared/data/anvil/" + kRegions[i]; }

const BlockRegistry& registry() {
  static const BlockRegistry r = *BlockRegistry::load_default();
  return r;
}
const MinecraftBlockMap& block_map() {
  static const MinecraftBlockMap m = *MinecraftBlockMap::load_default(registry());
  return m;
}

// The whole import of one region on one thread into a sink that drops the columns: chunks/s.
void BM_AnvilImportRegion(benchmark::State& state) {
  const std::string path = region_path(static_cast<int>(state.range(0)));
  if (!std::ifstream(path).good()) return state.SkipWithError("shared data file absent");
  AnvilImportOptions o;
  o.threads = 1;
  uint64_t chunks = 0;
  for (auto _ : state) {
    auto r = import_anvil(path, block_map(), o, [](std::span<const Column* const>) -> Status { return Ok{}; });
    chunks = r->chunks_imported;
  }
  state.SetLabel(kRegions[state.range(0)]);
  state.counters["chunks"] = static_cast<double>(chunks);
  state.counters["chunks_per_s"] = benchmark::Counter(static_cast<double>(chunks), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_AnvilImportRegion)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

// Stages over the same region, each over every chunk: 0 read + decompress, 1 NBT, 2 decode, 3 map into a column.
void BM_AnvilStage(benchmark::State& state) {
  const std::string path = region_path(0);
  if (!std::ifstream(path).good()) return state.SkipWithError("shared data file absent");
  auto file = RegionFile::open(path);
  std::vector<ChunkBytes> bytes;
  std::vector<NbtRoot> roots;
  std::vector<AnvilChunk> chunks;
  for (const RegionSlot& s : file->slots()) {
    bytes.push_back(file->read_chunk(s));
    roots.push_back(*read_nbt(bytes.back().nbt, "bench"));
    chunks.push_back(*decode_chunk(roots.back().tag));
  }
  BlockStateCache cache(block_map());
  const int stage = static_cast<int>(state.range(0));
  for (auto _ : state) {
    for (size_t i = 0; i < chunks.size(); ++i) {
      if (stage == 0) benchmark::DoNotOptimize(file->read_chunk(file->slots()[i]).nbt.size());
      if (stage == 1) benchmark::DoNotOptimize(read_nbt(bytes[i].nbt, "bench")->name.size());
      if (stage == 2) benchmark::DoNotOptimize(decode_chunk(roots[i].tag)->sections.size());
      if (stage == 3) {
        Column col(ColumnPos{0, 0});
        benchmark::DoNotOptimize(convert_chunk(chunks[i], cache, 0, col).blocks);
      }
    }
  }
  static const char* kNames[] = {"read+decompress", "nbt", "decode", "map"};
  state.SetLabel(kNames[stage]);
  state.counters["chunks_per_s"] =
      benchmark::Counter(static_cast<double>(chunks.size()), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_AnvilStage)->DenseRange(0, 3)->Unit(benchmark::kMillisecond);

}  // namespace voxen::import::anvil_bench

BENCHMARK_MAIN();
