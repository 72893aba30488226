// Culling benchmarks (the calling thread's CPU time unless said otherwise):
//   - BM_FaceLinks, BM_FindVisible: face_links over every section of the default terrain's columns within render
//     distance 16 of the origin (seed 1, 33 x 33 columns, generated once), and find_visible over that graph from an
//     eye 2 blocks above the ground at the origin and from one in a cave under it, every present section accepted
//     (no frustum: the search's most work). Counters: sections per column box, sections found.
//   - BM_SectionVisibility: cull::section_visibility per non-empty section of the 5 x 5 columns around the origin
//     (what culling adds to a mesh job: links, occluder boxes, full layers).
//   - BM_CullingStages/<k>/<threads>: both stages of a frame (render::FrameCuller::cull: cave culling's search, the
//     occlusion pass) for the k-th of the 20 named cameras of bench/culling_cameras.txt, at render distance 16 in a
//     1280 x 720 frame, the world loaded as `voxen shot` loads it (the columns and sections in view, meshed from the
//     floor up by the column streamer); the section graph is built once, as in play, where it is rebuilt only when a
//     mesh changes. <threads>: 1, the calling thread alone; 2, the calling thread and a pool of one worker (a
//     2-core machine: the main thread and the streamer's pool). The time is the wall clock of the call. Counters:
//     sections in the frustum (the renderer's candidates), hidden by caves, then by occlusion, the share culled,
//     occluder boxes, the process's CPU time per call (cpu_ms; a helper spins between steps, so about threads x
//     the wall clock).
//
// Run (Release): build/voxen_bench_cull --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// Figures and the exact command are recorded in docs/PERFORMANCE.md ("Visibility").
#include <benchmark/benchmark.h>

#include <memory>
#include <vector>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "bench_support.h"
#include "voxen/core/job_pool.h"
#include "voxen/cull/store.h"
#include "voxen/cull/visibility.h"
#include "voxen/mesh/input.h"
#include "voxen/gen/generator.h"
#include "voxen/mesh/baked.h"
#include "voxen/render/frame_culler.h"
#include "voxen/stream/streamer.h"
#include "voxen/stream/view.h"

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

// section_visibility (face links, occluders, full layers) of every non-empty section of the 5 x 5 columns around
// the origin, from padded inputs built beforehand: what it adds to a mesh job per section.
void BM_SectionVisibility(benchmark::State& state) {
  static const auto inputs = [] {
    World w;
    const auto g = make("default", 1);
    std::vector<ColumnPos> pos;
    for (int64_t z = -3; z <= 3; ++z)
      for (int64_t x = -3; x <= 3; ++x) pos.push_back({x, z});
    for (auto& c : gen::generate_columns(*g, pos, nullptr)) w.insert(std::move(c));
    std::vector<std::unique_ptr<mesh::SectionInput>> out;
    for (int64_t z = -2; z <= 2; ++z)
      for (int64_t x = -2; x <= 2; ++x)
        for (int y = 0; y < kSectionsPerColumn; ++y) {
          if (w.find({x, z})->section(y).is_empty()) continue;
          out.push_back(std::make_unique<mesh::SectionInput>());
          mesh::build_section_input(w, {x, y, z}, *out.back());
        }
    return out;
  }();
  const cull::SightTable sight(registry());
  size_t k = 0;
  for (auto _ : state) {
    const double t0 = thread_seconds();
    benchmark::DoNotOptimize(cull::section_visibility(*inputs[k % inputs.size()], sight));
    state.SetIterationTime(thread_seconds() - t0);
    ++k;
  }
  state.counters["sections"] = static_cast<double>(inputs.size());
}

// The named cameras of bench/culling_cameras.txt: name, x, y (a number, or surface+N: N blocks over the ground),
// z, yaw, pitch; seed 1, default generator.
struct NamedCamera {
  std::string name;
  render::Camera camera;
};

const std::vector<NamedCamera>& named_cameras() {
  static const std::vector<NamedCamera> cams = [] {
    std::vector<NamedCamera> out;
    const auto g = make("default", 1);
    std::ifstream in(std::string(VOXEN_SOURCE_DIR) + "/bench/culling_cameras.txt");
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      std::istringstream ls(line);
      NamedCamera c;
      std::string y;
      double x = 0, z = 0, yaw = 0, pitch = 0;
      ls >> c.name >> x >> y >> z >> yaw >> pitch;
      const int64_t bx = static_cast<int64_t>(std::floor(x)), bz = static_cast<int64_t>(std::floor(z));
      double yy = y.rfind("surface+", 0) == 0 ? static_cast<double>(g->surface_y(bx, bz) + 1) + std::stod(y.substr(8))
                                               : std::stod(y);
      const int64_t by = static_cast<int64_t>(std::floor(yy));
      c.camera = render::Camera::at({bx, by, bz}, {x - static_cast<double>(bx), yy - static_cast<double>(by), z - static_cast<double>(bz)});
      c.camera.yaw_deg = yaw;
      c.camera.pitch_deg = pitch;
      c.camera.aspect = 1280.0 / 720.0;
      out.push_back(c);
    }
    return out;
  }();
  return cams;
}

// Keeps which sections have a non-empty mesh (the renderer's sections).
class SectionSink final : public stream::MeshSink {
 public:
  void set_section(const SectionPos& pos, const mesh::SectionMesh& m) override {
    if (m.empty()) sections.erase(pos);
    else sections.insert(pos);
  }
  void remove_section(const SectionPos& pos) override { sections.erase(pos); }
  std::set<SectionPos> sections;
};

// One camera's view loaded as `voxen shot` loads it (render distance 16), and the renderer's candidates: the sections
// with meshes in the frustum and within the fog end, nearest first.
struct LoadedView {
  static constexpr double kFogEnd = 256.0;
  World world;
  std::unique_ptr<gen::Generator> g = make("default", 1);
  stream::GeneratedSource source{*g};
  SectionSink sink;
  mesh::BakedBlocks baked = mesh::BakedBlocks::bake(registry()).value();
  JobPool pool{2};
  stream::ColumnStreamer streamer{world, sink, source, table(), baked, pool};
  render::Frustum frustum;
  std::vector<render::FrameCuller::Candidate> candidates;

  explicit LoadedView(const render::Camera& cam) : frustum(render::Frustum::from_matrix(cam.view_projection())) {
    if (!streamer.load_view(stream::columns_for_view(cam, kFogEnd, true), &frustum, &cam).ok()) std::abort();
    std::vector<std::pair<double, render::FrameCuller::Candidate>> c;
    for (const SectionPos& p : sink.sections) {
      const glm::dvec3 mn = cam.relative({p.x * kColumnWidth, section_base_y(p.y), p.z * kColumnWidth});
      if (!frustum.intersects_box(mn, glm::dvec3(16.0)) || render::footprint_distance(mn.x, mn.z) > kFogEnd) continue;
      const glm::dvec3 centre = mn + 8.0;
      c.push_back({glm::dot(centre, centre), {p, mn}});
    }
    std::sort(c.begin(), c.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first : a.second.pos < b.second.pos;
    });
    for (const auto& e : c) candidates.push_back(e.second);
  }
};

void BM_CullingStages(benchmark::State& state) {
  const NamedCamera& nc = named_cameras().at(static_cast<size_t>(state.range(0)));
  const int threads = static_cast<int>(state.range(1));
  static std::map<int64_t, std::unique_ptr<LoadedView>> views;
  auto& view = views[state.range(0)];
  if (!view) view = std::make_unique<LoadedView>(nc.camera);
  view->pool.wait_idle();
  state.SetLabel(nc.name);
  render::FrameCuller culler;
  // The calling thread and threads - 1 workers (the renderer's: the main thread and the streamer's pool).
  std::unique_ptr<JobPool> pool = threads > 1 ? std::make_unique<JobPool>(threads - 1) : nullptr;
  render::CullingParams params;
  params.mode = render::CullMode::kAll;
  params.store = &view->streamer.visibility();
  params.pool = pool.get();
  std::vector<uint8_t> keep;
  render::FrameStats st;
  double cpu = 0.0;
  for (auto _ : state) {
    keep.assign(view->candidates.size(), 1);
    st = render::FrameStats{};
    const double c0 = process_seconds();
    const auto t0 = std::chrono::steady_clock::now();
    culler.cull(params, nc.camera, 1280, 720, view->frustum, LoadedView::kFogEnd, view->candidates, keep, st);
    state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    cpu += process_seconds() - c0;
  }
  const double n = static_cast<double>(view->candidates.size());
  state.counters["in_frustum"] = n;
  state.counters["caves"] = st.sections_hidden_by_caves;
  state.counters["occlusion"] = st.sections_hidden_by_occlusion;
  state.counters["culled_pct"] = n > 0 ? 100.0 * (st.sections_hidden_by_caves + st.sections_hidden_by_occlusion) / n : 0.0;
  state.counters["occluders"] = st.occluder_boxes;
  state.counters["eye_near_opaque"] = st.culling_eye_near_opaque;
  state.counters["caves_ms"] = st.caves_ms;
  state.counters["occlusion_ms"] = st.occlusion_ms;
  state.counters["cpu_ms"] = 1e3 * cpu / static_cast<double>(state.iterations());
}

}  // namespace

BENCHMARK(BM_SectionVisibility)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_CullingStages)->ArgsProduct({benchmark::CreateDenseRange(0, 19, 1), {1, 2}})->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FaceLinks)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_FindVisible)->Arg(0)->Arg(1)->UseManualTime()->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
