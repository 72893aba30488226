// The holes measurement (play/holes.h): with nothing drawn, every pixel where a plane of ground lies within the
// render distance is a hole and no other pixel is (checked against rays cast here through each pixel onto the
// plane); with the ground drawn there are none, and a single sky pixel within drawn ground is a crack, on the
// frame's border too. Then through the real frame loop on the flat world: the first frame (nothing drawn yet) has
// about as many holes as the completed view has terrain pixels, and the completed view has none. And the tour's jet
// over a deep sea finds no near hole in a drawn column (the sea bed, unlit, is drawn).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>
#include <utility>

#include "play_test_util.h"
#include "voxen/play/holes.h"
#include "voxen/play/tour.h"

namespace voxen::play::testing {
namespace {

/// Stone up to y = 0 and air above: ground whose top face is the plane y = 1, everywhere.
class PlaneGenerator final : public gen::Generator {
 public:
  explicit PlaneGenerator(const BlockRegistry& r) : m_stone(r.id("stone")) {}
  void generate(Column& out) const override {
    for (int s = 0; s < kSectionsPerColumn; ++s) out.section(s).fill(section_base_y(s) + 15 <= 0 ? Cell{m_stone, 0} : kAir);
    // Section 8 holds y 0..15: stone in its bottom layer only.
    for (int z = 0; z < 16; ++z)
      for (int x = 0; x < 16; ++x) out.set(x, 0, z, Cell{m_stone, 0});
  }
  int64_t surface_y(int64_t, int64_t) const override { return 0; }
  std::string_view name() const override { return "plane"; }
  uint64_t seed() const override { return 0; }

 private:
  uint16_t m_stone;
};

/// The horizontal distance at which the ray through frame point (px, py) (pixels, y = 0 at the bottom row) meets
/// the plane y = 1, or infinity when it rises or runs level.
double plane_distance(const render::Camera& cam, int w, int h, double px, double py) {
  const glm::dmat4 inv = glm::inverse(cam.view_projection());
  const glm::dvec4 f = inv * glm::dvec4(px / w * 2.0 - 1.0, py / h * 2.0 - 1.0, 1.0, 1.0);
  const glm::dvec3 d = glm::dvec3(f) / f.w;
  const double ground = cam.relative({0, 1, 0}).y;  // the plane, camera-relative
  if (d.y >= 0.0) return std::numeric_limits<double>::infinity();
  const double t = ground / d.y;
  return t * std::sqrt(d.x * d.x + d.z * d.z);
}

TEST(Holes, WithNothingDrawnEveryGroundPixelWithinTheRenderDistanceIsAHole) {
  PlaneGenerator plane(registry());
  constexpr int kW = 64, kH = 36;
  constexpr double kRadius = 32.0;
  // Looking level-ish (the horizon and ground past the render distance in view), steeply down (ground only) and up
  // (mostly sky), in several directions.
  const std::pair<double, double> views[] = {{270.0, -10.0}, {45.0, -5.0}, {0.0, -60.0}, {135.0, 25.0}};
  for (const auto& [yaw, pitch] : views) {
    SCOPED_TRACE("yaw " + std::to_string(yaw) + " pitch " + std::to_string(pitch));
    HeightCache heights(plane, registry());
    render::Camera cam = render::Camera::at({1000, 2, -300}, {0.5, 0.62, 0.25});
    cam.yaw_deg = yaw;
    cam.pitch_deg = pitch;
    cam.aspect = static_cast<double>(kW) / kH;
    cam.far_plane = 400.0;
    const std::vector<float> sky(static_cast<size_t>(kW * kH), 1.0f);
    // Every column drawn: every hole is then ground a drawn column left out (all lie within the 64-block near
    // distance here).
    const HolesResult r = measure_holes(sky, kW, kH, cam, kRadius, heights, 1, 64.0, [](ColumnPos) { return true; });
    ASSERT_TRUE(r.measured);
    EXPECT_EQ(r.near_hole_pixels, r.hole_pixels);
    EXPECT_EQ(r.drawn_hole_pixels, r.hole_pixels);
    EXPECT_EQ(r.pixels, static_cast<uint64_t>(kW * kH));
    EXPECT_EQ(r.sky_pixels, r.pixels);
    EXPECT_EQ(r.crack_pixels, 0u);
    const std::set<std::pair<int, int>> holes(r.hole_at.begin(), r.hole_at.end());
    ASSERT_EQ(holes.size(), r.hole_pixels);
    // A pixel is surely a hole when its ray and the rays one pixel left, right, up and down meet the plane within
    // the render distance less half a block; it may be one when they do within the distance plus half a block
    // (double rounding at the rim); otherwise it is not.
    size_t sure = 0, ground_near = 0, ground_far = 0;
    for (int y = 0; y < kH; ++y)
      for (int x = 0; x < kW; ++x) {
        double far = 0.0;
        for (const auto& [ox, oy] : {std::pair{0.0, 0.0}, {-1.0, 0.0}, {1.0, 0.0}, {0.0, -1.0}, {0.0, 1.0}})
          far = std::max(far, plane_distance(cam, kW, kH, x + 0.5 + ox, y + 0.5 + oy));
        const bool hole = holes.count({x, y}) > 0;
        const double centre = plane_distance(cam, kW, kH, x + 0.5, y + 0.5);
        if (centre < kRadius - 0.5) ++ground_near;
        if (centre < kRadius + 0.5) ++ground_far;
        if (far < kRadius - 0.5) {
          ++sure;
          EXPECT_TRUE(hole) << "pixel " << x << "," << y << ": ground within " << far << " blocks is not a hole";
        } else if (far > kRadius + 0.5) {
          EXPECT_FALSE(hole) << "pixel " << x << "," << y << ": a hole where the ground lies " << far << " blocks away";
        }
      }
    // "About all of the ground": every pixel whose ray meets the ground within the render distance is a hole or,
    // on the rim, an edge pixel.
    EXPECT_GE(r.hole_pixels, sure);
    EXPECT_GE(r.hole_pixels + r.edge_pixels, ground_near);
    EXPECT_LE(r.hole_pixels + r.edge_pixels, ground_far);
    if (pitch < 0) {
      EXPECT_GT(r.hole_pixels, r.pixels / 4) << "looking down, much of the frame is ground";
    }

    // The same view with the ground drawn (depth under 1 wherever a ray meets the plane, at any distance): none.
    std::vector<float> drawn = sky;
    for (int y = 0; y < kH; ++y)
      for (int x = 0; x < kW; ++x)
        if (std::isfinite(plane_distance(cam, kW, kH, x + 0.5, y + 0.5))) drawn[static_cast<size_t>(y * kW + x)] = 0.5f;
    const HolesResult d = measure_holes(drawn, kW, kH, cam, kRadius, heights);
    EXPECT_TRUE(d.measured);
    EXPECT_EQ(d.hole_pixels, 0u);
  }
}

/// A deep sea: stone up to y = 20, water from 21 to 61, air above. Sky light dies 5 blocks under the surface, so
/// the bed lies 36 blocks below the last lit block.
class SeaGenerator final : public gen::Generator {
 public:
  explicit SeaGenerator(const BlockRegistry& r) : m_stone(r.id("stone")), m_water(r.id("water")) {}
  void generate(Column& out) const override {
    for (int z = 0; z < 16; ++z)
      for (int x = 0; x < 16; ++x)
        for (int64_t y = kMinY; y <= 61; ++y) out.set(x, y, z, Cell{y <= kBed ? m_stone : m_water, 0});
  }
  int64_t surface_y(int64_t, int64_t) const override { return kBed; }
  std::string_view name() const override { return "sea"; }
  uint64_t seed() const override { return 0; }
  static constexpr int64_t kBed = 20;

 private:
  uint16_t m_stone, m_water;
};

TEST(Holes, TheTourFindsNoNearHoleInADrawnColumnOverADeepSea) {
  // The tour's jet (112 blocks/s, 10 blocks over the water, looking 15 degrees down) over the deep sea at render
  // distance 4, through the real frame loop: the sea bed, seen through the water but unlit, must be drawn, so no
  // frame may show sky where a drawn column's bed should be (before the sight floor, the bed section was never
  // meshed and every such frame did).
  render::PlatformConfig pc;
  pc.width = 160;
  pc.height = 90;
  auto platform = render::make_egl_headless_platform(pc);
  ASSERT_TRUE(platform) << platform.error().to_string();
  JobPool pool(2);
  World world;
  SeaGenerator sea(registry());
  GameConfig gc;
  gc.render_distance = 4;
  gc.stream.deterministic = true;
  gc.measure_holes = true;
  auto game = Game::create(gc, **platform, registry(), sea, pool, world);
  ASSERT_TRUE(game) << game.error().to_string();
  Game& g = **game;
  g.start({0, 62, 0}, {0.5, 0.0, 0.5}, 90.0, -15.0, true);
  TourOptions to;
  to.frames = 30;
  to.only = {"jet"};
  const auto report = run_tour(g, sea, to);
  ASSERT_TRUE(report) << report.error().to_string();
  ASSERT_EQ(report->segments.size(), 1u);
  const SegmentReport& s = report->segments[0];
  ASSERT_TRUE(s.warmup_complete);
  ASSERT_EQ(s.holes_frames, 30u) << "every frame is measured (the eye is over the water)";
  EXPECT_EQ(s.drawn_hole_frames, 0u) << s.first_drawn_hole;
  // The bed's section is drawn under the eye (the bed's top face).
  const ColumnPos eye = column_pos_of(g.player().block);
  EXPECT_TRUE(g.renderer().opaque_span({eye.x, section_of_y(SeaGenerator::kBed), eye.z}))
      << "no mesh for the sea bed under the eye, column " << eye.x << "," << eye.z;
}

TEST(Holes, ASingleSkyPixelInDrawnGroundIsACrackOnTheFramesBorderToo) {
  // Looking steeply down on the plane: every pixel's ray meets it within a few blocks. The ground drawn everywhere
  // but one pixel inside the frame, one on each side of its border and one in a corner: all six are cracks (a
  // sub-pixel gap between quads), none a hole, since what lies beyond the border is not known to be sky.
  PlaneGenerator plane(registry());
  constexpr int kW = 64, kH = 36;
  HeightCache heights(plane, registry());
  render::Camera cam = render::Camera::at({1000, 2, -300}, {0.5, 0.62, 0.25});
  cam.yaw_deg = 0.0;
  cam.pitch_deg = -60.0;
  cam.aspect = static_cast<double>(kW) / kH;
  cam.far_plane = 400.0;
  std::vector<float> drawn(static_cast<size_t>(kW * kH), 0.5f);
  const std::pair<int, int> gaps[] = {{30, 20}, {kW - 1, 17}, {0, 9}, {40, 0}, {25, kH - 1}, {kW - 1, kH - 1}};
  for (const auto& [x, y] : gaps) drawn[static_cast<size_t>(y * kW + x)] = 1.0f;
  const HolesResult r = measure_holes(drawn, kW, kH, cam, 32.0, heights);
  ASSERT_TRUE(r.measured);
  EXPECT_EQ(r.sky_pixels, std::size(gaps));
  EXPECT_EQ(r.crack_pixels, std::size(gaps));
  EXPECT_EQ(r.hole_pixels, 0u) << "first at pixel " << (r.hole_at.empty() ? -1 : r.hole_at[0].first) << ","
                               << (r.hole_at.empty() ? -1 : r.hole_at[0].second);
  // Two sky pixels side by side are not a crack: missing ground, a hole.
  drawn[static_cast<size_t>(20 * kW + 31)] = 1.0f;
  const HolesResult two = measure_holes(drawn, kW, kH, cam, 32.0, heights);
  EXPECT_EQ(two.hole_pixels, 2u);
}

TEST(Holes, TheFirstFrameIsAllHolesAndTheCompletedViewHasNone) {
  // The flat world looking west over plain grass and the horizon, render distance 2 (32 blocks).
  auto s = open_session(flat_header(24.5, 1.0, 30.5, 270.0, -10.0), /*measure_holes=*/true);
  ASSERT_TRUE(s);
  Game& g = s->game();
  HolesResult first, last;
  bool complete = false;
  const RunResult r = run_events(g, {}, 60, 1, true, [&](const FrameReport& rep) {
    if (rep.frame == 0) first = rep.holes;
    last = rep.holes;
    complete = g.streamer().view_complete();
    return true;
  });
  ASSERT_TRUE(r.failures.empty()) << r.failures.front();
  ASSERT_TRUE(complete);
  ASSERT_TRUE(first.measured);
  ASSERT_TRUE(last.measured);
  EXPECT_EQ(first.sky_pixels, first.pixels) << "nothing is drawn in the first frame";
  EXPECT_GT(last.sky_pixels, 0u) << "the sky should be in view, so that no holes means something";
  const uint64_t terrain = last.pixels - last.sky_pixels;
  EXPECT_GT(terrain, last.pixels / 4);
  EXPECT_EQ(last.hole_pixels, 0u) << "the completed view shows sky where ground should be, first at "
                                  << last.first_hole.x << "," << last.first_hole.y << "," << last.first_hole.z;
  // The first frame's holes are the completed view's terrain within the render distance: no more than the
  // terrain pixels, and all but the rim and the drawn ground past 32 blocks near the horizon.
  EXPECT_LE(first.hole_pixels, terrain);
  EXPECT_GE(first.hole_pixels * 10, terrain * 8) << first.hole_pixels << " holes, " << terrain << " terrain pixels";
}

}  // namespace
}  // namespace voxen::play::testing
