// Renderer benchmarks (Release, headless EGL on llvmpipe): for one fixed shot of the default world (seed 1, the
// tour's plain looking east), the CPU cost per frame of cull + indirect-command building + draw submission with
// the multi-draw-indirect path vs the per-chunk path, at render distance 8, 16 and 24 (every column within the
// distance loaded and meshed, so frustum culling has work to do), and the complete frame (glFinish included).
// Run: build/voxen_bench_render --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// Counters per frame: cull_ms, build_ms, submit_ms (GL calls; llvmpipe shades vertices inside the draw calls),
// draw_calls, sections (visible), quads.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <memory>
#include <thread>

#include "voxen/core/job_pool.h"
#include "voxen/gen/generator.h"
#include "voxen/light/rules.h"
#include "voxen/mesh/baked.h"
#include "voxen/render/platform.h"
#include "voxen/render/renderer.h"
#include "voxen/render/streaming.h"

using namespace voxen;
using namespace voxen::render;

namespace {

constexpr int kWidth = 1280, kHeight = 720;

// One loaded world at one render distance, kept while benchmarks of that distance run.
struct Loaded {
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
  StreamStats stream;
};
std::unique_ptr<Loaded> g_loaded;

Loaded* load(int render_distance) {
  if (g_loaded && g_loaded->render_distance == render_distance) return g_loaded.get();
  g_loaded.reset();
  auto l = std::make_unique<Loaded>();
  l->render_distance = render_distance;
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
  l->generator = std::move(gen::make_generator("default", 1, l->registry)).value();
  l->light = std::make_unique<light::LightTable>(l->registry);
  l->baked = std::make_unique<mesh::BakedBlocks>(std::move(mesh::BakedBlocks::bake(l->registry)).value());
  l->pool = std::make_unique<JobPool>(std::max(1, static_cast<int>(std::thread::hardware_concurrency())));
  l->renderer = std::move(Renderer::create(*l->platform, l->registry)).value();

  Camera cam = Camera::at({-520, l->generator->surface_y(-520, -768) + 3, -768}, {0.5, 0.0, 0.5});
  cam.yaw_deg = 90;
  cam.pitch_deg = -5;
  cam.aspect = static_cast<double>(kWidth) / kHeight;
  const double radius = render_distance * 16.0;
  cam.far_plane = radius * 1.5 + 400;
  WorldStreamer streamer(*l->generator, *l->light, *l->baked, *l->pool);
  l->stream = streamer.load(l->world, *l->renderer, columns_for_view(cam, radius, false), nullptr, &cam);
  l->params.camera = cam;
  l->params.fog_end = radius;
  g_loaded = std::move(l);
  return g_loaded.get();
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
  FrameStats sum;
  int frames = 0;
  for (auto _ : state) {
    const FrameStats st = l->renderer->render(l->params);
    state.PauseTiming();
    l->platform->present();
    state.ResumeTiming();
    sum.cull_ms += st.cull_ms;
    sum.build_ms += st.build_ms;
    sum.submit_ms += st.submit_ms;
    sum.draw_calls = st.draw_calls;
    sum.sections_visible = st.sections_visible;
    sum.quads_drawn = st.quads_drawn;
    ++frames;
  }
  state.counters["cull_ms"] = sum.cull_ms / frames;
  state.counters["build_ms"] = sum.build_ms / frames;
  state.counters["submit_ms"] = sum.submit_ms / frames;
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
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  g_loaded.reset();
  return 0;
}
