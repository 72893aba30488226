// Culling with moving cameras (ARCHITECTURE "Visibility"): the VoxelBlox seed's sister project saw machines blink
// as they crested hills because its CPU occlusion answered for an older frame. voxen culls with the frame's own camera
// and meshes: along the tour's walk, fly_low and jet (the real frame loop, deterministic streaming, a far view), every
// frame drawn with --culling all is, byte for byte, that frame drawn again with culling none; and the stages hid
// sections and LOD sections on the way (so the check is not vacuous).
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>

#include "voxen/play/game.h"
#include "voxen/playtest/tour.h"
#include "playtest_test_util.h"

namespace voxen::playtest::testing {
namespace {

// After each frame the game draws (with its culling), draws it again with none and compares the pixels.
class NoCullingOracle final : public FrameObserver {
 public:
  explicit NoCullingOracle(Game& game) : m_game(game) {}
  void world_rendered(const RenderedFrame& f) override {
    const render::Image culled = f.renderer.read_pixels();
    render::FrameParams none = f.params;
    none.culling.mode = render::CullMode::kNone;
    (void)m_game.renderer().render(none);
    const render::Image plain = m_game.renderer().read_pixels();
    ++frames;
    if (culled == plain) return;
    ++differing;
    if (first.empty()) {
      size_t n = 0;
      for (size_t i = 0; i < culled.pixels.size(); i += 4) n += std::memcmp(&culled.pixels[i], &plain.pixels[i], 4) != 0;
      const BlockPos& b = f.params.camera.block;
      first = "frame " + std::to_string(f.frame) + ": " + std::to_string(n) + " pixels, eye " + std::to_string(b.x) + " " +
              std::to_string(b.y) + " " + std::to_string(b.z);
    }
  }
  uint64_t frames = 0, differing = 0;
  std::string first;

 private:
  Game& m_game;
};

TEST(CullingTour, WalkFlyLowAndJetFramesAreTheFramesOfNoCulling) {
  auto gen = gen::make_generator("default", 1, registry());
  ASSERT_TRUE(gen) << gen.error().to_string();
  GameConfig gc;
  gc.render_distance = 4;
  gc.stream.deterministic = true;
  gc.far.far_distance = 320;
  gc.culling = render::CullMode::kAll;
  HeadlessGame h = open_headless_game(gc, **gen);
  ASSERT_NE(h.game, nullptr);
  Game& g = *h.game;
  g.start({0, (*gen)->surface_y(0, 0) + 1, 0}, {0.5, 0.0, 0.5}, 0.0, 0.0, false);
  NoCullingOracle oracle(g);
  g.add_observer(oracle);
  TourOptions to;
  to.frames = 40;
  to.warmup_frames = 300;
  to.only = {"walk", "fly_low", "jet"};
  const auto report = run_tour(g, **gen, to);
  ASSERT_TRUE(report) << report.error().to_string();
  ASSERT_EQ(report->segments.size(), 3u);
  EXPECT_GE(oracle.frames, 120u);
  EXPECT_EQ(oracle.differing, 0u) << oracle.first;
  double hidden = 0, lod_hidden = 0;
  for (const SegmentReport& s : report->segments) {
    hidden += s.culling.hidden_by_caves.total + s.culling.hidden_by_occlusion.total;
    lod_hidden += s.culling.lod_hidden_by_occlusion.total;
  }
  EXPECT_GT(hidden, 0.0) << "culling hid no section: the check would pass without it";
  std::printf("culling tour: %llu frames compared; sections hidden %.0f, LOD sections hidden %.0f\n",
              static_cast<unsigned long long>(oracle.frames), hidden, lod_hidden);
}

}  // namespace
}  // namespace voxen::playtest::testing
