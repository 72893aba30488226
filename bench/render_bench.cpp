// Renderer benchmarks (Release, headless EGL on llvmpipe): for one fixed shot of the default world (seed 1, the
// tour's plain looking east), the CPU cost per frame of cull + indirect-command building + draw submission with
// the multi-draw-indirect path vs the per-chunk path, at render distance 8, 16 and 24 (every column within the
// distance loaded and meshed, so frustum culling has work to do), and the complete frame (glFinish included).
// Translucent sorting, at the default world's coast (seed 1, -1735, -1920, looking north over the sea): the frame
// where the eye crosses the sea's surface plane, so every section holding water in view is re-sorted and
// rewritten (BM_TranslucentResort), and building the BSP trees of every translucent mesh loaded
// (BM_TranslucentBuild, what set_section adds per mesh).
// The far pass: a frame with 256 synthetic LOD sections out to 8,192 blocks vs the far view off (BM_FarFrame).
// Run: build/voxen_bench_render --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// Counters per frame: cull_ms, sort_ms, build_ms, submit_ms (GL calls; llvmpipe shades vertices inside the draw
// calls), draw_calls, sections (visible), quads, sections_sorted, quads_sorted.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <memory>
#include <thread>

#include "voxen/core/hash.h"
#include "voxen/core/job_pool.h"
#include "voxen/gen/generator.h"
#include "voxen/light/rules.h"
#include "voxen/mesh/baked.h"
#include "voxen/render/platform.h"
#include "voxen/render/renderer.h"
#include "voxen/stream/streamer.h"
#include "voxen/stream/view.h"
#include "voxen/render/translucent_order.h"
#include "voxen/mesh/input.h"
#include "voxen/mesh/mesher.h"

using namespace voxen;
using namespace voxen::render;

namespace {

constexpr int kWidth = 1280, kHeight = 720;

// One loaded world at one render distance, kept while benchmarks of that distance run.
enum class Scene { kPlain, kCoast, kLattice };

// The translucent worst case: glass, water and ice on every other cell (x, y, z even) in y 64..79 everywhere, so
// every face is drawn (6 per block, 3,072 per section) and the eye crosses planes of every section at its height.
class LatticeGenerator : public gen::Generator {
 public:
  explicit LatticeGenerator(const BlockRegistry& r)
      : m_kinds{Cell{r.id("glass"), 0}, Cell{r.id("water"), 0}, Cell{r.id("ice"), 0}} {}
  void generate(Column& out) const override {
    for (int64_t y = 64; y < 80; y += 2)
      for (int z = 0; z < 16; z += 2)
        for (int x = 0; x < 16; x += 2) out.set(x, y, z, m_kinds[static_cast<size_t>((x + y + z) / 2 % 3)]);
  }
  int64_t surface_y(int64_t, int64_t) const override { return 78; }
  std::string_view name() const override { return "lattice"; }
  uint64_t seed() const override { return 0; }

 private:
  Cell m_kinds[3];
};

struct Loaded {
  Scene scene = Scene::kPlain;
  int render_distance = 0;
  std::unique_ptr<Platform> platform;
  BlockRegistry registry;
  std::unique_ptr<gen::Generator> generator;
  std::unique_ptr<light::LightTable> light;
  std::unique_ptr<mesh::BakedBlocks> baked;
  std::unique_ptr<JobPool> pool;
  World world;
  std::unique_ptr<Renderer> renderer;
  FrameParams params;
  stream::StreamStats stream;
};
std::unique_ptr<Loaded> g_loaded;

Loaded* load(int render_distance, Scene scene = Scene::kPlain) {
  if (g_loaded && g_loaded->render_distance == render_distance && g_loaded->scene == scene) return g_loaded.get();
  g_loaded.reset();
  auto l = std::make_unique<Loaded>();
  l->render_distance = render_distance;
  l->scene = scene;
  PlatformConfig pc;
  pc.width = kWidth;
  pc.height = kHeight;
  auto p = make_egl_headless_platform(pc);
  if (!p) {
    std::fprintf(stderr, "%s\n", p.error().message.c_str());
    return nullptr;
  }
  l->platform = std::move(p).value();
  l->registry = std::move(BlockRegistry::load_default()).value();
  if (scene == Scene::kLattice) l->generator = std::make_unique<LatticeGenerator>(l->registry);
  else l->generator = std::move(gen::make_generator("default", 1, l->registry)).value();
  l->light = std::make_unique<light::LightTable>(l->registry);
  l->baked = std::make_unique<mesh::BakedBlocks>(std::move(mesh::BakedBlocks::bake(l->registry)).value());
  l->pool = std::make_unique<JobPool>(std::max(1, static_cast<int>(std::thread::hardware_concurrency())));
  l->renderer = std::move(Renderer::create(*l->platform, l->registry)).value();

  Camera cam = Camera::at({-520, l->generator->surface_y(-520, -768) + 3, -768}, {0.5, 0.0, 0.5});
  cam.yaw_deg = 90;
  cam.pitch_deg = -5;
  if (scene == Scene::kLattice) {
    // Inside the lattice's layer, looking along it.
    cam = Camera::at({5, 69, 5}, {0.5, 0.75, 0.5});
    cam.yaw_deg = 30;
    cam.pitch_deg = -5;
  } else if (scene == Scene::kCoast) {
    // Just above the sea (sea level 62: the surface of its top water cells is at 62 + 7/8).
    cam = Camera::at({-1735, 63, -1920}, {0.5, 0.25, 0.5});
    cam.yaw_deg = 15;
    cam.pitch_deg = -8;
  }
  cam.aspect = static_cast<double>(kWidth) / kHeight;
  const double radius = render_distance * 16.0;
  cam.far_plane = radius * 1.5 + 400;
  stream::GeneratedSource source(*l->generator);
  stream::ColumnStreamer streamer(l->world, *l->renderer, source, *l->light, *l->baked, *l->pool);
  l->stream = *streamer.load_view(stream::columns_for_view(cam, radius, false), nullptr, &cam);
  l->params.camera = cam;
  l->params.fog_end = radius;
  g_loaded = std::move(l);
  return g_loaded.get();
}

// Per-frame means over a benchmark's timed frames, and the last frame's counts.
struct FrameMeans {
  double cull_ms = 0, sort_ms = 0, build_ms = 0, submit_ms = 0;
  double sections_sorted = 0, quads_sorted = 0, pending = 0;
  FrameStats last;
};

// The timed loop: render() with `even` and `odd` frame parameters in turn, timed; present() (glFinish headless)
// outside the timing. Sets the cull_ms, sort_ms, build_ms and submit_ms counters (means per frame).
FrameMeans timed_frames(benchmark::State& state, Loaded& l, const FrameParams& even, const FrameParams& odd) {
  FrameMeans m;
  int frames = 0;
  for (auto _ : state) {
    m.last = l.renderer->render(frames % 2 ? odd : even);
    state.PauseTiming();
    l.platform->present();
    state.ResumeTiming();
    m.cull_ms += m.last.cull_ms;
    m.sort_ms += m.last.sort_ms;
    m.build_ms += m.last.build_ms;
    m.submit_ms += m.last.submit_ms;
    m.sections_sorted += m.last.sections_sorted;
    m.quads_sorted += static_cast<double>(m.last.quads_sorted);
    m.pending += m.last.sections_sort_pending;
    ++frames;
  }
  for (double* v : {&m.cull_ms, &m.sort_ms, &m.build_ms, &m.submit_ms, &m.sections_sorted, &m.quads_sorted, &m.pending})
    *v /= std::max(frames, 1);
  state.counters["cull_ms"] = m.cull_ms;
  state.counters["sort_ms"] = m.sort_ms;
  state.counters["build_ms"] = m.build_ms;
  state.counters["submit_ms"] = m.submit_ms;
  return m;
}

// CPU time of one frame's cull + build + submit (render()); the frame is then finished (present() = glFinish
// headless) outside the timed region.
void BM_FrameCpu(benchmark::State& state) {
  Loaded* l = load(static_cast<int>(state.range(1)));
  if (!l) return state.SkipWithError("no EGL context");
  const RenderPath path = state.range(0) ? RenderPath::kPerChunk : RenderPath::kMultiDrawIndirect;
  l->renderer->set_path(path);
  l->renderer->render(l->params);  // warm: shaders compiled, buffers sized
  l->platform->present();
  const FrameMeans m = timed_frames(state, *l, l->params, l->params);
  const FrameStats& sum = m.last;
  state.counters["draw_calls"] = sum.draw_calls;
  state.counters["sections"] = sum.sections_visible;
  state.counters["sections_loaded"] = static_cast<double>(l->renderer->section_count());
  state.counters["quads"] = static_cast<double>(sum.quads_drawn);
  state.SetLabel(std::string(to_string(path)) + " rd " + std::to_string(l->render_distance));
}

// The complete frame: render() and glFinish (llvmpipe rasterises on its threads).
void BM_FrameComplete(benchmark::State& state) {
  Loaded* l = load(static_cast<int>(state.range(1)));
  if (!l) return state.SkipWithError("no EGL context");
  const RenderPath path = state.range(0) ? RenderPath::kPerChunk : RenderPath::kMultiDrawIndirect;
  l->renderer->set_path(path);
  l->renderer->render(l->params);
  l->platform->present();
  for (auto _ : state) {
    l->renderer->render(l->params);
    l->platform->present();
  }
  state.SetLabel(std::string(to_string(path)) + " rd " + std::to_string(l->render_distance));
}

// The frame after the eye crossed a plane of every section at its height (the lattice's y = 70 faces, the eye
// alternately 1/4 block above and below): every visible section re-sorts its translucent quads and rewrites its
// span. Timed: the whole render() call. sort_ms is the re-sorting and rewriting alone.
void BM_TranslucentResort(benchmark::State& state) {
  Loaded* l = load(static_cast<int>(state.range(0)), Scene::kLattice);
  if (!l) return state.SkipWithError("no EGL context");
  l->renderer->set_path(RenderPath::kMultiDrawIndirect);
  FrameParams above = l->params, below = l->params;
  above.camera.block.y = 70;
  above.camera.frac.y = 0.25;
  below.camera.block.y = 69;
  below.camera.frac.y = 0.75;
  below.sort_budget_quads = above.sort_budget_quads = static_cast<uint64_t>(state.range(1));
  l->renderer->render(above);
  l->platform->present();
  const FrameMeans m = timed_frames(state, *l, below, above);
  state.counters["sections_sorted"] = m.sections_sorted;
  state.counters["quads_sorted"] = m.quads_sorted;
  state.counters["pending"] = m.pending;
  const FrameStats& sum = m.last;
  state.counters["sections"] = sum.sections_visible;
  state.SetLabel("lattice rd " + std::to_string(l->render_distance) +
                 (state.range(1) ? " budget " + std::to_string(state.range(1)) : std::string(" no budget")));
}

// Building the BSP tree of every translucent mesh loaded (meshed once, outside the timing): the coast (ocean
// and shore, arg 0) or the lattice (arg 1).
void BM_TranslucentBuild(benchmark::State& state) {
  const Scene scene = state.range(1) ? Scene::kLattice : Scene::kCoast;
  Loaded* l = load(static_cast<int>(state.range(0)), scene);
  if (!l) return state.SkipWithError("no EGL context");
  std::vector<std::vector<mesh::FluidQuad>> meshes;
  {
    mesh::MeshScratch scratch;
    auto input = std::make_unique<mesh::SectionInput>();
    mesh::SectionMesh m;
    for (const ColumnPos& c : l->world.positions())
      for (int s = 0; s < kSectionsPerColumn; ++s) {
        mesh::mesh_world_section(*l->baked, l->world, {c.x, s, c.z}, mesh::MeshOptions{}, *input, scratch, m);
        if (!m.translucent.empty()) meshes.push_back(m.translucent);
      }
  }
  size_t quads = 0, out_quads = 0, splits = 0, unseparated = 0;
  for (const auto& m : meshes) quads += m.size();
  TranslucentOrder order;
  for (auto _ : state) {
    out_quads = splits = unseparated = 0;
    for (const auto& m : meshes) {
      order.build(m);
      out_quads += order.quads().size();
      splits += order.split_count();
      unseparated += order.unseparated_quads();
    }
  }
  state.counters["meshes"] = static_cast<double>(meshes.size());
  state.counters["quads"] = static_cast<double>(quads);
  state.counters["splits"] = static_cast<double>(splits);
  state.counters["unseparated"] = static_cast<double>(unseparated);
  state.counters["quads_per_s"] = benchmark::Counter(static_cast<double>(quads), benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(std::string(scene == Scene::kLattice ? "lattice" : "coast") + " rd " + std::to_string(l->render_distance));
}

// The far pass (issue 15) at render distance 8: 256 synthetic LOD sections of levels 2..6 in square rings around
// the eye out to 8,192 blocks (level 2: the 8 x 8 sections around the eye's; levels 3..6: 8 x 8 minus the middle
// 4 x 4 the level below covers), each a height field of 1,024 one-cell top faces (y 60..99 from a hash of the
// cell), the near columns of the render distance masked. Arguments: {far (0 off, 1 on)}. Timed: render() and
// glFinish. Counters: far_build_ms (LOD culling, the mask, per-draw data and commands), lod_sections, lod_quads,
// lod_draw_calls, draw_calls.
void BM_FarFrame(benchmark::State& state) {
  Loaded* l = load(8);
  if (!l) return state.SkipWithError("no EGL context");
  l->renderer->set_path(RenderPath::kMultiDrawIndirect);
  const Camera& cam = l->params.camera;
  static std::vector<lod::LodSectionPos> sections;
  static std::vector<ColumnPos> near_columns;
  if (sections.empty()) {
    const uint16_t tex = l->registry[l->registry.id("stone")].face_texture_index[2];
    std::vector<mesh::LodQuad> quads;
    for (int level = 2; level <= 6; ++level) {
      const int64_t size = int64_t{32} << level;
      const int64_t cx = cam.block.x >= 0 ? cam.block.x / size : -((-cam.block.x + size - 1) / size);
      const int64_t cz = cam.block.z >= 0 ? cam.block.z / size : -((-cam.block.z + size - 1) / size);
      for (int64_t dx = -4; dx < 4; ++dx)
        for (int64_t dz = -4; dz < 4; ++dz) {
          if (level > 2 && dx >= -2 && dx < 2 && dz >= -2 && dz < 2) continue;
          const lod::LodSectionPos pos{level, cx + dx, 0, cz + dz};
          quads.clear();
          for (int x = 0; x < 32; ++x)
            for (int z = 0; z < 32; ++z) {
              const int64_t y_block = 60 + static_cast<int64_t>(hash3(7, pos.x * 32 + x, level, pos.z * 32 + z) % 40);
              const int cell_y = std::min(31, static_cast<int>(y_block >> level));
              quads.push_back(mesh::pack_lod_quad({x, cell_y, z, 2, 1, 1, tex, 0xF000}));
            }
          l->renderer->set_lod_section(pos, quads);
          sections.push_back(pos);
        }
    }
    near_columns = stream::columns_for_view(cam, l->params.fog_end, false);
  }
  FrameParams fp = l->params;
  if (state.range(0)) {
    fp.far.fog_end = 8192;
    fp.far.draw = sections;
    fp.far.near_columns = near_columns;
  }
  l->renderer->render(fp);
  l->platform->present();
  double far_ms = 0;
  int frames = 0;
  FrameStats st;
  for (auto _ : state) {
    st = l->renderer->render(fp);
    l->platform->present();
    far_ms += st.far_build_ms;
    ++frames;
  }
  state.counters["far_build_ms"] = far_ms / std::max(frames, 1);
  state.counters["lod_sections"] = st.lod_sections_drawn;
  state.counters["lod_quads"] = static_cast<double>(st.lod_quads);
  state.counters["lod_draw_calls"] = st.lod_draw_calls;
  state.counters["draw_calls"] = st.draw_calls;
  state.SetLabel(state.range(0) ? "far on, 8192" : "far off");
}

}  // namespace

// Registered by hand so each render distance's world is built once: for each distance, both paths of both
// benchmarks. Arguments: {path (0 mdi, 1 per-chunk), render distance}.
int main(int argc, char** argv) {
  for (int rd : {8, 16, 24}) {
    for (int path : {0, 1})
      benchmark::RegisterBenchmark("BM_FrameCpu", BM_FrameCpu)->Args({path, rd})->Unit(benchmark::kMillisecond)->UseRealTime();
    for (int path : {0, 1})
      benchmark::RegisterBenchmark("BM_FrameComplete", BM_FrameComplete)->Args({path, rd})->Unit(benchmark::kMillisecond)->UseRealTime();
  }
  // Translucent sorting: the coast at 8 and 16 (build), the lattice at 4 (build, re-sort with and without a budget).
  for (int rd : {8, 16})
    benchmark::RegisterBenchmark("BM_TranslucentBuild", BM_TranslucentBuild)->Args({rd, 0})->Unit(benchmark::kMillisecond)->UseRealTime();
  benchmark::RegisterBenchmark("BM_TranslucentBuild", BM_TranslucentBuild)->Args({4, 1})->Unit(benchmark::kMillisecond)->UseRealTime();
  for (int budget : {0, 32768})
    benchmark::RegisterBenchmark("BM_TranslucentResort", BM_TranslucentResort)->Args({4, budget})->Unit(benchmark::kMillisecond)->UseRealTime();
  for (int far : {0, 1})
    benchmark::RegisterBenchmark("BM_FarFrame", BM_FarFrame)->Args({far})->Unit(benchmark::kMillisecond)->UseRealTime();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  g_loaded.reset();
  return 0;
}
