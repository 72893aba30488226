// The ray march in the real frame loop (issue 21): along the tour's walk, dig and place segments (streaming columns in
// and out, edits remeshing sections as the player digs and builds), the game draws with --render-path raymarch and
// --shadows traced; after every frame it draws, the same frame is drawn again by the ray march with ids and by the
// raster path with ids: they name the same cell and face in >= 99.9% of the pixels of every frame, so the store
// followed every load, unload and edit. The sun rays' verdicts agree too.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>

#include "voxen/play/game.h"
#include "voxen/playtest/tour.h"
#include "playtest_test_util.h"

namespace voxen::playtest::testing {
namespace {

class RasterOracle final : public FrameObserver {
 public:
  explicit RasterOracle(Game& game) : m_game(game) {}
  void world_rendered(const RenderedFrame& f) override {
    render::Renderer& r = m_game.renderer();
    render::FrameParams p = f.params;
    p.hit_ids = true;
    (void)r.render(p);
    const std::vector<render::HitId> march = r.read_hit_ids();
    const std::vector<render::ShadowProbe> march_sun = r.read_shadow_probes();
    EXPECT_TRUE(r.set_path(render::RenderPath::kMultiDrawIndirect));
    (void)r.render(p);
    const std::vector<render::HitId> raster = r.read_hit_ids();
    const std::vector<render::ShadowProbe> raster_sun = r.read_shadow_probes();
    EXPECT_TRUE(r.set_path(render::RenderPath::kRayMarch));
    ++frames;
    size_t same = 0, lit_same = 0, lit_both = 0;
    for (size_t i = 0; i < march.size() && i < raster.size(); ++i) {
      same += march[i] == raster[i];
      if (march[i] == raster[i] && march_sun[i].state >= 0 && raster_sun[i].state >= 0) {
        ++lit_both;
        lit_same += march_sun[i].state == raster_sun[i].state;
      }
    }
    surface += static_cast<uint64_t>(std::count_if(raster.begin(), raster.end(), [](const render::HitId& h) { return h.face >= 0; }));
    pixels += raster.size();
    if (march.empty() || same * 1000 < march.size() * 999) {
      ++bad;
      if (first.empty())
        first = "frame " + std::to_string(f.frame) + ": " + std::to_string(same) + " of " + std::to_string(march.size());
    }
    // The sun rays start where each path's surface is (float positions a little apart), so a ray grazing an edge may
    // decide otherwise: counted, and required to be rare.
    sun_compared += lit_both;
    sun_differ += lit_both - lit_same;
  }
  uint64_t frames = 0, bad = 0, surface = 0, pixels = 0, sun_compared = 0, sun_differ = 0;
  std::string first;

 private:
  Game& m_game;
};

TEST(RayMarchTour, WalkDigAndPlaceFramesNameTheRasterPathsCells) {
  auto gen = gen::make_generator("default", 1, registry());
  ASSERT_TRUE(gen) << gen.error().to_string();
  GameConfig gc;
  gc.render_distance = 3;
  gc.stream.deterministic = true;
  gc.far.far_distance = 0;
  gc.render_path = render::RenderPath::kRayMarch;
  gc.shadows = render::Shadows::kTraced;
  HeadlessGame h = open_headless_game(gc, **gen);
  ASSERT_NE(h.game, nullptr);
  Game& g = *h.game;
  ASSERT_EQ(g.renderer().path(), render::RenderPath::kRayMarch);
  g.start({0, (*gen)->surface_y(0, 0) + 1, 0}, {0.5, 0.0, 0.5}, 0.0, 0.0, false);
  RasterOracle oracle(g);
  g.add_observer(oracle);
  TourOptions to;
  to.frames = 12;
  to.warmup_frames = 300;
  to.only = {"walk", "dig", "place"};
  const auto report = run_tour(g, **gen, to);
  ASSERT_TRUE(report) << report.error().to_string();
  ASSERT_EQ(report->segments.size(), 3u);
  uint64_t edits = 0;
  for (const SegmentReport& s : report->segments) edits += s.edits;
  std::printf("ray-march tour: %llu frames, %llu edits; %llu surface pixels of %llu; %llu sun rays compared, %llu differ\n",
              static_cast<unsigned long long>(oracle.frames), static_cast<unsigned long long>(edits),
              static_cast<unsigned long long>(oracle.surface), static_cast<unsigned long long>(oracle.pixels),
              static_cast<unsigned long long>(oracle.sun_compared), static_cast<unsigned long long>(oracle.sun_differ));
  EXPECT_GE(oracle.frames, 36u);
  EXPECT_GT(edits, 0u) << "no edit was made: the store's edit path went unchecked";
  EXPECT_GT(oracle.surface, oracle.pixels / 4);
  EXPECT_EQ(oracle.bad, 0u) << oracle.first;
  EXPECT_GT(oracle.sun_compared, oracle.pixels / 10);
  EXPECT_LE(oracle.sun_differ * 1000, oracle.sun_compared);
}

}  // namespace
}  // namespace voxen::playtest::testing
