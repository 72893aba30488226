// Shared by the in-process render test suites: one headless EGL context (320x180, Mesa llvmpipe), the block
// registry with its light table and baked mesh tables, a generator and a 2-thread pool, made once per suite.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "voxen/core/job_pool.h"
#include "voxen/gen/generator.h"
#include "voxen/light/rules.h"
#include "voxen/mesh/baked.h"
#include "voxen/render/platform.h"
#include "voxen/render/renderer.h"
#include "voxen/stream/source.h"
#include "voxen/stream/streamer.h"
#include "voxen/stream/view.h"
#include "voxen/world/block_registry.h"

namespace voxen::render::render_test {

inline constexpr int kWidth = 320, kHeight = 180;

struct GlSuite {
  std::unique_ptr<Platform> platform;
  BlockRegistry registry;
  std::unique_ptr<light::LightTable> light;
  std::unique_ptr<mesh::BakedBlocks> baked;
  std::unique_ptr<gen::Generator> generator;  // `generator_name` with seed 1; null when the name is empty
  std::unique_ptr<JobPool> pool;
};

/// Makes a suite's shared state; on a failure it is reported (ADD_FAILURE, with the error) and null returned.
inline std::unique_ptr<GlSuite> make_gl_suite(const std::string& generator_name) {
  auto s = std::make_unique<GlSuite>();
  PlatformConfig pc;
  pc.width = kWidth;
  pc.height = kHeight;
  auto p = make_egl_headless_platform(pc);
  if (!p) {
    ADD_FAILURE() << p.error().message;
    return nullptr;
  }
  s->platform = std::move(p).value();
  auto reg = BlockRegistry::load_default();
  if (!reg) {
    ADD_FAILURE() << reg.error().message;
    return nullptr;
  }
  s->registry = std::move(reg).value();
  s->light = std::make_unique<light::LightTable>(s->registry);
  auto baked = mesh::BakedBlocks::bake(s->registry);
  if (!baked) {
    ADD_FAILURE() << baked.error().message;
    return nullptr;
  }
  s->baked = std::make_unique<mesh::BakedBlocks>(std::move(baked).value());
  if (!generator_name.empty()) {
    auto gen = gen::make_generator(generator_name, 1, s->registry);
    if (!gen) {
      ADD_FAILURE() << gen.error().message;
      return nullptr;
    }
    s->generator = std::move(gen).value();
  }
  s->pool = std::make_unique<JobPool>(2);
  return s;
}

/// A renderer on the suite's context (the registry's textures); null, with the failure reported, when it cannot be
/// made.
inline std::unique_ptr<Renderer> make_renderer(const GlSuite& s, const RendererOptions& options = {}) {
  auto r = Renderer::create(*s.platform, s.registry, options);
  if (!r.ok()) {
    ADD_FAILURE() << r.error().message;
    return nullptr;
  }
  return std::move(r).value();
}

/// The generator name of a suite without one (SharedGlTest<kNoGenerator>).
inline constexpr char kNoGenerator[] = "";

/// A fixture whose test suite shares one GlSuite made with the generator `kGenerator` (a name for
/// gen::make_generator, or kNoGenerator): made before the suite's first test, deleted after its last; each test
/// starts by requiring it was made.
template <const char* kGenerator>
class SharedGlTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { s_shared = make_gl_suite(kGenerator).release(); }
  static void TearDownTestSuite() {
    delete s_shared;
    s_shared = nullptr;
  }
  void SetUp() override {
    ASSERT_NE(s_shared, nullptr);
    ASSERT_NE(s_shared->platform, nullptr);
  }
  inline static GlSuite* s_shared = nullptr;
};

/// A SharedGlTest with a renderer (`options()`), the generator's columns as the source and a world streamed around a
/// point: load_around(x, z) drops what the renderer held and loads, lights and meshes every column within
/// `kRadius` blocks of world block (x, z) whole (no frustum), so all the cameras near it draw from one state.
template <const char* kGenerator>
class StreamedGlTest : public SharedGlTest<kGenerator> {
 public:
  static constexpr double kRadius = 48.0;  // render distance 3

  void SetUp() override {
    SharedGlTest<kGenerator>::SetUp();
    if (::testing::Test::HasFatalFailure()) return;
    renderer = make_renderer(*this->s_shared, options());
    ASSERT_NE(renderer, nullptr);
    source = std::make_unique<stream::GeneratedSource>(*this->s_shared->generator);
  }
  virtual RendererOptions options() const { return {}; }
  void load_around(int64_t x, int64_t z) {
    streamer.reset();
    renderer->clear();
    world = std::make_unique<World>();
    streamer = std::make_unique<stream::ColumnStreamer>(*world, *renderer, *source, *this->s_shared->light,
                                                        *this->s_shared->baked, *this->s_shared->pool);
    const Camera at = Camera::at({x, 64, z});
    ASSERT_TRUE(streamer->load_view(stream::columns_for_view(at, kRadius, false)).ok());
  }
  /// A camera at eye + frac looking (yaw, pitch) degrees, with the suite's frame aspect.
  static Camera camera(BlockPos eye, glm::dvec3 frac, double yaw, double pitch) {
    Camera c = Camera::at(eye, frac);
    c.yaw_deg = yaw;
    c.pitch_deg = pitch;
    c.aspect = static_cast<double>(kWidth) / kHeight;
    return c;
  }

  std::unique_ptr<Renderer> renderer;
  std::unique_ptr<stream::GeneratedSource> source;
  std::unique_ptr<World> world;
  std::unique_ptr<stream::ColumnStreamer> streamer;
};

}  // namespace voxen::render::render_test
