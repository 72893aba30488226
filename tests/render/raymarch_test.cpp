// The ray-march path and traced shadows (issue 21) in-process, against the raster path as the oracle: the same
// world, the same camera. The primary-hit oracle: the raster path's id buffer (the cell and face of each pixel's
// nearest opaque fragment) and the ray march's ids agree in >= 99.9% of the pixels. The colour images agree by the
// look rule. The shadows: a CPU per-cell DDA (trace_cells) from each pixel's sun-ray origin gives the GPU's
// lit/shadowed state, pixel for pixel, on both paths.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "voxen/render/imgdiff.h"
#include "voxen/render/renderer.h"
#include "voxen/stream/streamer.h"
#include "voxen/stream/view.h"
#include "voxen/trace/dda.h"
#include "voxen/trace/occupancy.h"
#include "gl_suite.h"

using namespace voxen;
using namespace voxen::render;

namespace {

using render_test::kHeight;
using render_test::kWidth;

constexpr double kRadius = 48.0;  // render distance 3
constexpr char kDefaultGenerator[] = "default";

struct Frame {
  Image image;
  std::vector<HitId> ids;
  std::vector<ShadowProbe> probes;
  FrameStats stats;
};

class RayMarch : public render_test::SharedGlTest<kDefaultGenerator> {
 protected:
  void SetUp() override {
    SharedGlTest::SetUp();
    if (HasFatalFailure()) return;
    RendererOptions ro;
    ro.trace = true;
    renderer = render_test::make_renderer(*s_shared, ro);
    ASSERT_NE(renderer, nullptr);
    ASSERT_TRUE(renderer->traces());
    source = std::make_unique<stream::GeneratedSource>(*s_shared->generator);
  }
  void load_around(int64_t x, int64_t z) {
    streamer.reset();
    renderer->clear();
    world = std::make_unique<World>();
    streamer = std::make_unique<stream::ColumnStreamer>(*world, *renderer, *source, *s_shared->light, *s_shared->baked,
                                                        *s_shared->pool);
    const Camera at = Camera::at({x, 64, z});
    ASSERT_TRUE(streamer->load_view(stream::columns_for_view(at, kRadius, false)).ok());
  }
  static Camera camera(BlockPos eye, glm::dvec3 frac, double yaw, double pitch) {
    Camera c = Camera::at(eye, frac);
    c.yaw_deg = yaw;
    c.pitch_deg = pitch;
    c.aspect = static_cast<double>(kWidth) / kHeight;
    return c;
  }
  Frame draw(const Camera& cam, RenderPath path, Shadows shadows = Shadows::kNone, double time_of_day = 10.0, bool beam = true) {
    EXPECT_TRUE(renderer->set_path(path));
    FrameParams fp;
    fp.camera = cam;
    fp.fog_end = kRadius;
    fp.time_of_day = time_of_day;
    fp.eye_sky_light = light_sky(world->light(cam.block));
    fp.shadows = shadows;
    fp.beam = beam;
    fp.hit_ids = true;
    fp.step_stats = path == RenderPath::kRayMarch;
    Frame f;
    f.stats = renderer->render(fp);
    f.image = renderer->read_pixels();
    f.ids = renderer->read_hit_ids();
    f.probes = renderer->read_shadow_probes();
    return f;
  }

  std::unique_ptr<Renderer> renderer;
  std::unique_ptr<stream::GeneratedSource> source;
  std::unique_ptr<World> world;
  std::unique_ptr<stream::ColumnStreamer> streamer;
};

// Pixels of a and b differing by more than the look rule's tolerance in some channel (image rows top first; ids
// bottom first).
struct Breakdown {
  size_t failing = 0, failing_same_id = 0;
};
Breakdown breakdown(const Frame& a, const Frame& b) {
  Breakdown out;
  const LookRule rule;
  for (int y = 0; y < a.image.height; ++y)
    for (int x = 0; x < a.image.width; ++x) {
      const uint8_t *p = a.image.at(x, y), *q = b.image.at(x, y);
      bool fail = false;
      for (int c = 0; c < 3; ++c) fail = fail || std::abs(int(p[c]) - int(q[c])) > rule.channel_tolerance;
      if (!fail) continue;
      ++out.failing;
      const size_t i = static_cast<size_t>(a.image.height - 1 - y) * static_cast<size_t>(a.image.width) + static_cast<size_t>(x);
      if (a.ids[i] == b.ids[i]) {
        ++out.failing_same_id;
        if (out.failing_same_id <= 6)
          std::printf("  same-id fail at %d,%d: cell %d,%d,%d face %d: raster %d %d %d march %d %d %d\n", x, y, a.ids[i].x,
                      a.ids[i].y, a.ids[i].z, a.ids[i].face, p[0], p[1], p[2], q[0], q[1], q[2]);
      }
    }
  return out;
}

TEST_F(RayMarch, NamesTheRasterPathsCellAndFaceInNearlyEveryPixel) {
  load_around(0, 0);
  struct View {
    int64_t x, z;
    double yaw, pitch;
  };
  const View views[] = {{0, 0, 30.0, -45.0}, {8, -20, 200.0, -20.0}, {-30, 10, 100.0, -10.0}, {20, 20, 300.0, -60.0}};
  for (const View& v : views) {
    Camera c = camera({v.x, 0, v.z}, glm::dvec3(0.5, 0.62, 0.5), v.yaw, v.pitch);
    c.block.y = s_shared->generator->surface_y(v.x, v.z) + 3;
    const Frame raster = draw(c, RenderPath::kMultiDrawIndirect);
    const Frame march = draw(c, RenderPath::kRayMarch);
    ASSERT_EQ(raster.ids.size(), march.ids.size());
    size_t same = 0, surface = 0;
    for (size_t i = 0; i < raster.ids.size(); ++i) {
      if (raster.ids[i].face >= 0) ++surface;
      if (raster.ids[i] == march.ids[i]) ++same;
    }
    const DiffResult d = compare_images(raster.image, march.image, DiffMode::kLook);
    const Breakdown b = breakdown(raster, march);
    std::printf("view %lld,%lld: surface %zu, same id %zu of %zu, steps mean %.1f p99 %u; look failing %llu (same id %zu), blob %llu\n",
                (long long)v.x, (long long)v.z, surface, same, raster.ids.size(), march.stats.steps_mean, march.stats.steps_p99,
                (unsigned long long)d.pixels_failing, b.failing_same_id, (unsigned long long)d.largest_blob);
    (void)save_png(raster.image, "/tmp/rm/t_raster_" + std::to_string(v.x) + ".png");
    (void)save_png(march.image, "/tmp/rm/t_march_" + std::to_string(v.x) + ".png");
    EXPECT_GT(surface, raster.ids.size() / 4);
    EXPECT_GE(same * 1000, raster.ids.size() * 999);
  }
}

// The CPU reference of the shadow pass: from each pixel's sun-ray origin (as the GPU used it, float, from the eye's
// block) a plain per-cell DDA (trace_cells) over the occupancy of the drawn columns' cells, toward the same (float)
// sun, as far as the GPU follows it. Returns the pixels compared; every mismatch is counted in `mismatched`.
size_t compare_shadows(const std::vector<ShadowProbe>& probes, const trace::OccupancyMap& map, const Camera& cam,
                       double time_of_day, double reach, size_t& mismatched, size_t& shadowed) {
  const glm::dvec3 sun = glm::dvec3(glm::vec3(sun_direction(time_of_day)));
  size_t compared = 0;
  for (const ShadowProbe& p : probes) {
    if (p.state < 0) continue;
    ++compared;
    const glm::dvec3 o(p.x, p.y, p.z);
    const glm::dvec3 f = glm::floor(o);
    trace::Ray ray;
    ray.block = {cam.block.x + static_cast<int64_t>(f.x), cam.block.y + static_cast<int64_t>(f.y), cam.block.z + static_cast<int64_t>(f.z)};
    ray.frac = o - f;
    ray.dir = sun;
    const bool cpu_shadow = trace::trace_cells(map, ray, reach, trace::Layer::kShadow).has_value();
    if (cpu_shadow) ++shadowed;
    if (cpu_shadow != (p.state == 0.0f)) ++mismatched;
  }
  return compared;
}

TEST_F(RayMarch, TracedShadowsMatchAPerCellDdaOnTheCpuPixelForPixel) {
  load_around(-700, -768);  // the default_plain golden's meadow: trees, grass, flowers
  const trace::OccupancyTable table(s_shared->registry);
  trace::OccupancyMap map(table);
  for (const ColumnPos& c : streamer->drawn_columns()) map.set_column(*world->find(c));
  struct View {
    int64_t x, z;
    double yaw, pitch, time;
  };
  const View views[] = {{-700, -768, 80.0, -12.0, 16.0}, {-690, -760, 200.0, -30.0, 7.5}, {-712, -775, 300.0, -50.0, 12.5}};
  size_t total_shadowed = 0;
  for (const View& v : views) {
    Camera c = camera({v.x, 0, v.z}, glm::dvec3(0.5, 0.62, 0.5), v.yaw, v.pitch);
    c.block.y = s_shared->generator->surface_y(v.x, v.z) + 3;
    for (const RenderPath path : {RenderPath::kMultiDrawIndirect, RenderPath::kRayMarch}) {
      const Frame f = draw(c, path, Shadows::kTraced, v.time);
      size_t mismatched = 0, shadowed = 0;
      const size_t compared = compare_shadows(f.probes, map, c, v.time, 256.0, mismatched, shadowed);
      std::printf("view %lld,%lld %s: %zu sun rays, %zu in shadow, %zu differ from the CPU\n", (long long)v.x,
                  (long long)v.z, std::string(to_string(path)).c_str(), compared, shadowed, mismatched);
      (void)save_png(f.image, "/tmp/rm/s_" + std::string(to_string(path)) + std::to_string(v.x) + ".png");
      EXPECT_GT(compared, f.probes.size() / 10);
      EXPECT_EQ(mismatched, 0u);
      total_shadowed += shadowed;
    }
  }
  EXPECT_GT(total_shadowed, 1000u);  // the comparison saw shadows, not only sunlit ground
}

}  // namespace
