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

}  // namespace voxen::render::render_test
