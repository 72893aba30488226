// The holes measurement (playtest/holes.h): with nothing drawn, every pixel where a plane of ground lies within the
// render distance is a hole and no other pixel is (checked against rays cast here through each pixel onto the
// plane); with the ground drawn there are none, and a single sky pixel within drawn ground is a crack, on the
// frame's border too. Then through the real frame loop on the flat world, with a HolesObserver attached to the
// game: the first frame (nothing drawn yet) has about as many holes as the completed view has terrain pixels, and
// the completed view has none; the observer's height map follows the game's edits and unloads. And the tour's jet
// over a deep sea finds no near hole in a drawn column (the sea bed, unlit, is drawn).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <utility>

#include "playtest_test_util.h"
#include "voxen/playtest/holes.h"
#include "voxen/playtest/tour.h"
#include "voxen/render/renderer.h"

namespace voxen::playtest::testing {
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

    // Only the columns east of x = 1008 drawn: the drawn-column holes are those whose five rays all meet the plane
    // in such columns (a pixel's margin off the rim of the drawn ground), none on the rim itself.
    auto east = [](ColumnPos c) { return c.x >= column_of(1008); };
    const HolesResult half = measure_holes(sky, kW, kH, cam, kRadius, heights, 1, 64.0, east);
    auto column_hit = [&](double x, double y) {
      const glm::dvec4 f = glm::inverse(cam.view_projection()) * glm::dvec4(x / kW * 2.0 - 1.0, y / kH * 2.0 - 1.0, 1.0, 1.0);
      const glm::dvec3 d = glm::dvec3(f) / f.w;
      const double t = cam.relative({0, 1, 0}).y / d.y;
      return ColumnPos{column_of(static_cast<int64_t>(std::floor(static_cast<double>(cam.block.x) + cam.frac.x + d.x * t))), 0};
    };
    uint64_t inside = 0, centre_inside = 0;
    for (const auto& [x, y] : r.hole_at) {
      bool all = east(column_hit(x + 0.5, y + 0.5));
      centre_inside += all;
      for (const auto& [ox, oy] : {std::pair{-1.0, 0.0}, {1.0, 0.0}, {0.0, -1.0}, {0.0, 1.0}})
        all = all && east(column_hit(x + 0.5 + ox, y + 0.5 + oy));
      inside += all;
    }
    EXPECT_EQ(half.drawn_hole_pixels, inside);
    if (centre_inside > 0 && centre_inside < r.hole_pixels) {
      EXPECT_LT(inside, centre_inside) << "the rim of the drawn ground is left out";
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

// Far holes (FarHolesMeter) over the plane: with only sky read back, a pixel is a far hole when its ray, above the
// ground less the margin at the render radius, passes under it before the far fog end less 64 (the margin: one LOD
// cell of 3 pixels at that distance, at least 2 blocks; here, with y + margin linear in the distance, decided at the
// two ends of the march, with a block's tolerance either way); rays that rise are not; with the far pass's depth
// (Renderer::kFarDepth) everywhere there are none.
TEST(Holes, FarHolesAreSkyWhereTheGroundLiesBeyondTheRenderDistance) {
  PlaneGenerator plane(registry());
  constexpr int kW = 160, kH = 90;
  constexpr double kRadius = 48.0, kFogEnd = 1500.0;
  render::Camera cam = render::Camera::at({-5000, 60, 7000}, {0.5, 0.25, 0.5});
  cam.yaw_deg = 30.0;
  cam.pitch_deg = -25.0;  // rays from 60 degrees down (ground within the render radius) to 10 up
  cam.aspect = static_cast<double>(kW) / kH;
  cam.far_plane = 2000.0;
  const std::vector<float> sky(static_cast<size_t>(kW * kH), 1.0f);
  std::vector<float> far_drawn(sky.size(), render::Renderer::kFarDepth);
  FarHolesMeter meter(plane);
  const double px_per_rad = kH / (2.0 * std::tan(glm::radians(cam.fov_y_deg) * 0.5));
  EXPECT_EQ(meter.measure(far_drawn, kW, kH, cam, kRadius, kFogEnd, 3.0, 1), 0u);
  // The meter counts pixels, so each is checked here through a one-pixel frame of sky at (x, y) and terrain elsewhere.
  uint64_t holes = 0, sure = 0, rising = 0, near = 0;
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x) {
      std::vector<float> one = far_drawn;
      one[static_cast<size_t>(y * kW + x)] = 1.0f;
      const bool hole = meter.measure(one, kW, kH, cam, kRadius, kFogEnd, 3.0, 1) == 1;
      holes += hole;
      const double d = plane_distance(cam, kW, kH, x + 0.5, y + 0.5);
      if (!std::isfinite(d)) {
        ++rising;
        EXPECT_FALSE(hole) << "pixel " << x << "," << y << " looks up";
        continue;
      }
      // The ray's height over the ground (surface_y 0) plus the margin, at horizontal distance h.
      const glm::dvec4 f = glm::inverse(cam.view_projection()) * glm::dvec4((x + 0.5) / kW * 2.0 - 1.0, (y + 0.5) / kH * 2.0 - 1.0, 1.0, 1.0);
      const glm::dvec3 dir = glm::normalize(glm::dvec3(f) / f.w);
      const double horiz = std::sqrt(dir.x * dir.x + dir.z * dir.z);
      auto over = [&](double h) {
        const double t = h / horiz;
        return 60.25 + dir.y * t + std::max(2.0, 3.0 * t / px_per_rad);  // the eye at y 60.25, the ground's top y 0
      };
      if (over(kRadius) < -1.0) {
        ++near;
        EXPECT_FALSE(hole) << "pixel " << x << "," << y << ": the ground " << d << " blocks away is the near field's";
      } else if (over(kRadius) > 1.0 && over(kFogEnd - 64.0 - 40.0) < -1.0) {
        ++sure;
        EXPECT_TRUE(hole) << "pixel " << x << "," << y << ": sky where the ground lies " << d << " blocks away";
      } else if (over(kRadius) > 1.0 && over(kFogEnd - 64.0) > 1.0) {
        EXPECT_FALSE(hole) << "pixel " << x << "," << y << ": the ray stays within the margin over the ground " << d << " blocks away";
      }
    }
  EXPECT_GT(sure, 1000u);
  EXPECT_GT(rising, 1000u);
  EXPECT_GT(near, 100u);
  EXPECT_GE(holes, sure);
  // All at once: the same count.
  EXPECT_EQ(meter.measure(sky, kW, kH, cam, kRadius, kFogEnd, 3.0, 1), holes);
}

/// Ground whose height steps every 128 blocks along x (0, then 40): only surface_y is read (the far holes meter).
class StepGenerator final : public gen::Generator {
 public:
  void generate(Column&) const override {}
  int64_t surface_y(int64_t x, int64_t) const override { return floor_mod(x, 256) < 128 ? 0 : 40; }
  std::string_view name() const override { return "steps"; }
  uint64_t seed() const override { return 0; }
};

// The far holes march is camera-relative: moved by 2^61 blocks (a multiple of the steps' period), the same view of
// the same ground gives the same far holes, where absolute doubles (a step of 512 blocks out there) would not.
TEST(Holes, FarHolesAreTheSameTwoToThe61BlocksOut) {
  StepGenerator steps;
  constexpr int kW = 160, kH = 90;
  render::Camera cam = render::Camera::at({-5000, 60, 7000}, {0.5, 0.25, 0.5});
  cam.yaw_deg = 80.0;  // across the steps
  cam.pitch_deg = -8.0;
  cam.aspect = static_cast<double>(kW) / kH;
  cam.far_plane = 2000.0;
  const std::vector<float> sky(static_cast<size_t>(kW * kH), 1.0f);
  std::vector<std::pair<int, int>> here, there;
  FarHolesMeter a(steps), b(steps);
  const uint64_t n = a.measure(sky, kW, kH, cam, 48.0, 1500.0, 3.0, 1, &here);
  render::Camera far_out = cam;
  far_out.block.x += int64_t{1} << 61;
  far_out.block.z -= int64_t{1} << 61;
  EXPECT_EQ(b.measure(sky, kW, kH, far_out, 48.0, 1500.0, 3.0, 1, &there), n);
  EXPECT_EQ(here, there);
  EXPECT_GT(n, 1000u);
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
  SeaGenerator sea(registry());
  GameConfig gc;
  gc.render_distance = 4;
  gc.stream.deterministic = true;
  HeadlessGame h = open_headless_game(gc, sea);
  ASSERT_NE(h.game, nullptr);
  Game& g = *h.game;
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

// The plain measurement, as it was before the columns within reach were read once per frame and rays skipped
// what stays under them (commit fef0652): the oracle for the fast one. Generated cells only, every ray stepped
// block by block from the eye.
class PlainHeights {
 public:
  PlainHeights(const gen::Generator& g, const BlockRegistry& r) : m_gen(g), m_reg(r) {}
  int64_t top(int64_t x, int64_t z) {
    const Column& c = column(x, z);
    for (int64_t y = kMaxY; y >= kMinY; --y)
      if (m_reg[c.get(local_of(x), y, local_of(z)).id].is_opaque_cube()) return y + 1;
    return kMinY;
  }
  bool ground(int64_t x, int64_t y, int64_t z) {
    return y_in_range(y) && m_reg[column(x, z).get(local_of(x), y, local_of(z)).id].is_opaque_cube();
  }

 private:
  const Column& column(int64_t x, int64_t z) {
    const ColumnPos c{column_of(x), column_of(z)};
    auto& slot = m_cols[c];
    if (!slot) {
      slot = std::make_unique<Column>(c);
      m_gen.generate(*slot);
    }
    return *slot;
  }
  const gen::Generator& m_gen;
  const BlockRegistry& m_reg;
  std::map<ColumnPos, std::unique_ptr<Column>> m_cols;
};

struct PlainHit {
  bool ground = false;
  double distance = 0.0;
  BlockPos cell;
};

PlainHit plain_march(const glm::dvec3& d, const BlockPos& eye, const glm::dvec3& frac, double radius, PlainHeights& heights) {
  const double hlen = std::sqrt(d.x * d.x + d.z * d.z);
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const double top_of_world = static_cast<double>(kMaxY + 1 - eye.y);
  int64_t cell[2] = {0, 0};
  const double o[2] = {frac.x, frac.z}, dd[2] = {d.x, d.z};
  int step[2];
  double t_max[2], t_delta[2];
  for (int a = 0; a < 2; ++a) {
    step[a] = dd[a] > 0 ? 1 : dd[a] < 0 ? -1 : 0;
    t_max[a] = dd[a] > 0 ? (1.0 - o[a]) / dd[a] : dd[a] < 0 ? -o[a] / dd[a] : kInf;
    t_delta[a] = dd[a] != 0 ? std::abs(1.0 / dd[a]) : kInf;
  }
  const double t_limit = hlen > 0 ? radius / hlen : kInf;
  double t0 = 0.0;
  for (;;) {
    const double t1 = std::min({t_max[0], t_max[1], t_limit});
    const int64_t wx = eye.x + cell[0], wz = eye.z + cell[1];
    const double top = static_cast<double>(heights.top(wx, wz) - eye.y);
    const double y0 = frac.y + d.y * t0, y1 = frac.y + d.y * t1;
    if (std::min(y0, y1) < top) {
      const double lo = std::min(y0, y1), hi = std::min(std::max(y0, y1), top - 1e-9);
      const int64_t first = static_cast<int64_t>(std::floor(d.y < 0 ? hi : lo));
      const int64_t last = static_cast<int64_t>(std::floor(d.y < 0 ? lo : hi));
      for (int64_t yb = first;; yb += d.y < 0 ? -1 : 1) {
        if (eye.y + yb < kMinY) break;
        if (heights.ground(wx, eye.y + yb, wz)) {
          double th = t0;
          if (d.y < 0 && y0 > static_cast<double>(yb + 1)) th = (static_cast<double>(yb + 1) - frac.y) / d.y;
          if (d.y > 0 && y0 < static_cast<double>(yb)) th = (static_cast<double>(yb) - frac.y) / d.y;
          return {true, std::max(th, t0) * hlen, {wx, eye.y + yb, wz}};
        }
        if (yb == last) break;
      }
    }
    if (t1 >= t_limit) return {};
    if (d.y >= 0 && y1 > top_of_world) return {};
    const int axis = t_max[0] <= t_max[1] ? 0 : 1;
    t0 = t_max[axis];
    cell[axis] += step[axis];
    t_max[axis] += t_delta[axis];
  }
}

/// The plain measurement of an all-sky frame (every pixel's rays marched): holes, edges, near holes, in pixel order.
HolesResult plain_measure(int w, int h, const render::Camera& camera, double radius, PlainHeights& heights, double near) {
  HolesResult r;
  r.measured = true;
  render::Camera cam = camera;
  cam.aspect = static_cast<double>(w) / h;
  const glm::dmat4 inv = glm::inverse(cam.view_projection());
  for (int py = 0; py < h; ++py)
    for (int px = 0; px < w; ++px) {
      ++r.pixels;
      ++r.sky_pixels;
      auto ray = [&](double ox, double oy) {
        const glm::dvec4 f = inv * glm::dvec4((px + 0.5 + ox) / w * 2.0 - 1.0, (py + 0.5 + oy) / h * 2.0 - 1.0, 1.0, 1.0);
        return plain_march(glm::dvec3(f) / f.w, cam.block, cam.frac, radius, heights);
      };
      const PlainHit hit = ray(0.0, 0.0);
      if (!hit.ground) continue;
      if (!ray(-1.0, 0.0).ground || !ray(1.0, 0.0).ground || !ray(0.0, 1.0).ground || !ray(0.0, -1.0).ground) {
        ++r.edge_pixels;
        continue;
      }
      if (r.hole_pixels == 0) r.first_hole = hit.cell;
      r.hole_at.push_back({px, py});
      ++r.hole_pixels;
      if (hit.distance < near) ++r.near_hole_pixels;
    }
  return r;
}

TEST(Holes, TheMeasurementGivesThePlainMarchsAnswersOverMountainsCavesAndWater) {
  // Default terrain, seed 1: eyes over the highest ground near the spawn, on plains, over the sea and low in a
  // valley, looking down, level and up in several directions; every pixel of a 48 x 27 all-sky frame is marched
  // (its ray and the four around it). Half of the columns are in a World (the same generated cells), so both
  // sources are used. The fast measurement must give the plain one's pixels exactly.
  auto gen = gen::make_generator("default", 1, registry());
  ASSERT_TRUE(gen.ok());
  constexpr int kW = 48, kH = 27;
  constexpr double kRadius = 80.0, kNear = 40.0;
  World world;
  for (int64_t cz = -24; cz <= 24; ++cz)
    for (int64_t cx = -24; cx <= 24; cx += 2) {
      auto c = std::make_unique<Column>(ColumnPos{cx + (cz & 1), cz});
      (*gen)->generate(*c);
      world.insert(std::move(c));
    }
  HeightCache fast(**gen, registry(), 64, &world);  // small: cleared between measurements, never during one
  PlainHeights plain(**gen, registry());
  const std::pair<int64_t, int64_t> places[] = {{0, 0}, {150, -90}, {-200, 170}, {260, 260}, {-300, -40}};
  size_t holes = 0, edges = 0, shrinks = 0;
  for (const auto& [x, z] : places) {
    const int64_t ground = (*gen)->surface_y(x, z);
    for (const double up : {2.5, 30.0}) {
      for (const auto& [yaw, pitch] : {std::pair{0.0, -35.0}, {75.0, -8.0}, {160.0, 0.0}, {250.0, 12.0}, {330.0, -89.0}}) {
        SCOPED_TRACE("at " + std::to_string(x) + "," + std::to_string(z) + " up " + std::to_string(up) + " yaw " +
                     std::to_string(yaw) + " pitch " + std::to_string(pitch));
        render::Camera cam = render::Camera::at({x, ground + static_cast<int64_t>(up), z}, {0.3, up - std::floor(up), 0.7});
        cam.yaw_deg = yaw;
        cam.pitch_deg = pitch;
        cam.far_plane = 400.0;
        const std::vector<float> sky(static_cast<size_t>(kW * kH), 1.0f);
        const size_t cached = fast.columns();
        const HolesResult f = measure_holes(sky, kW, kH, cam, kRadius, fast, 1, kNear);
        shrinks += fast.columns() < cached;  // cleared at the start of this measurement
        if (!f.measured) continue;  // the eye under an overhang
        const HolesResult p = plain_measure(kW, kH, cam, kRadius, plain, kNear);
        EXPECT_EQ(f.pixels, p.pixels);
        EXPECT_EQ(f.hole_pixels, p.hole_pixels);
        EXPECT_EQ(f.edge_pixels, p.edge_pixels);
        EXPECT_EQ(f.near_hole_pixels, p.near_hole_pixels);
        EXPECT_EQ(f.hole_at, p.hole_at);
        if (p.hole_pixels) {
          EXPECT_EQ(f.first_hole, p.first_hole);
        }
        holes += p.hole_pixels;
        edges += p.edge_pixels;
      }
    }
  }
  EXPECT_GT(holes, 5000u) << "the views should show much ground";
  EXPECT_GT(edges, 50u) << "and silhouettes";
  EXPECT_GT(shrinks, 0u) << "a cache over its limit must be cleared between measurements (a long flight would grow it "
                            "without bound)";
}

TEST(Holes, TheCacheFollowsTheWorldsEditsAndUnloads) {
  // A column read from the World shows its edits once the cache is told (forget), and the generated cells again
  // once the World let it go (forget_unloaded).
  auto gen = gen::make_generator("default", 1, registry());
  ASSERT_TRUE(gen.ok());
  World world;
  auto col = std::make_unique<Column>(ColumnPos{0, 0});
  (*gen)->generate(*col);
  world.insert(std::move(col));
  HeightCache heights(**gen, registry(), 1024, &world);
  const int64_t top = heights.top(5, 9);
  ASSERT_GT(top, kMinY);
  auto edit = world.make_edit({5, top - 1, 9}, kAir);  // the top block at (5, 9) goes
  ASSERT_TRUE(edit);
  ASSERT_TRUE(world.apply(*edit));
  EXPECT_EQ(heights.top(5, 9), top) << "not told yet";
  heights.forget({0, 0});
  EXPECT_LT(heights.top(5, 9), top) << "the edit is seen";
  EXPECT_FALSE(heights.ground(5, top - 1, 9));
  world.remove({0, 0});
  heights.forget_unloaded();
  EXPECT_EQ(heights.top(5, 9), top) << "generated again";
  EXPECT_TRUE(heights.ground(5, top - 1, 9));
}

TEST(Holes, TheObserverForgetsWhatTheGameEditsAndUnloads) {
  // Through the real frame loop on the flat world: the click removes the ground block (7, 0, 5), so the observer's
  // height map lowers there; then the player teleports 400 blocks east, where the World lets column (0, 0) go (and
  // its edit with it: nothing is saved), and back, where the column is generated again: the height map must be the
  // generated one, not the edited one it read before the unload.
  const std::string dir = temp_dir("holes_observer");
  const double pitch = pitch_to(1.0 + 1.62, 1.0, 2.0);  // the eye 1.62 over the feet, aiming at (7, 0, 5)'s top
  RecordingBuilder b(flat_header(5.5, 1.0, 5.5, 90.0, pitch));
  b.click(40, MouseButton::kLeft);
  b.add(50, EventKind::kTeleport, 0, 400.5, 1.0, 5.5);
  b.add(70, EventKind::kTeleport, 0, 5.5, 1.0, 5.5);
  const Recording rec = b.finish(110, dir + "/holes_observer.rec");
  MeasuredSession m = open_measured_session(rec.header);
  ASSERT_TRUE(m.session);
  Game& g = m.game();
  HolesObserver& holes = *m.holes;
  run_events(g, rec.events, 40, 4, true);
  ASSERT_TRUE(g.world().find({0, 0}));
  const int64_t generated = holes.heights().top(7, 5);  // read from the World now, before the edit
  const RunResult dig = run_events(g, rec.events, 10, 4, true);
  ASSERT_EQ(dig.edits_applied, 1u);
  ASSERT_EQ(g.world().get({7, 0, 5}), kAir);
  HeightCache fresh(m.session->generator(), registry(), 64, &g.world());
  EXPECT_EQ(holes.heights().top(7, 5), fresh.top(7, 5)) << "the edit should be seen";
  EXPECT_LT(holes.heights().top(7, 5), generated);
  // Away and back, drawing (so measuring) only the first frame, 400 blocks east, and the last: no measurement
  // looks at column (0, 0) while it is gone.
  bool unloaded = false;
  run_events(g, rec.events, 60, 1000, true, [&](const FrameReport&) {
    unloaded = unloaded || !g.world().find({0, 0});
    return true;
  });
  ASSERT_TRUE(unloaded) << "column 0,0 should have been unloaded";
  ASSERT_TRUE(g.world().find({0, 0})) << "column 0,0 should have been loaded again";
  ASSERT_NE(g.world().get({7, 0, 5}), kAir) << "generated again, without the edit";
  EXPECT_EQ(holes.heights().top(7, 5), generated) << "the height map still shows the edit the World lost";
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
  const RecordingHeader header = flat_header(24.5, 1.0, 30.5, 270.0, -10.0);
  MeasuredSession m = open_measured_session(header);
  ASSERT_TRUE(m.session);
  Game& g = m.game();
  HolesObserver& holes = *m.holes;
  HolesResult first, last;
  bool complete = false;
  const RunResult r = run_events(g, {}, 60, 1, true, [&](const FrameReport& rep) {
    if (rep.frame == 0) first = holes.result(rep.frame);
    last = holes.result(rep.frame);
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
}  // namespace voxen::playtest::testing
