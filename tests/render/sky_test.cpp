// The sky (issue 22): the sun's colour through the air, the turning star sphere, and, through `voxen shot`, the
// pixels of the sun, moon, stars, sunset and clouds. Sky pixels are read from views that show only sky.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "shot_support.h"
#include "voxen/render/renderer.h"

using namespace voxen;
using voxen::testing::run_shot;

namespace {

double luminance(const render::Image& img, int x0, int y0, int x1, int y1) {
  double sum = 0;
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x) {
      const uint8_t* p = img.at(x, y);
      sum += 0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2];
    }
  return sum / ((x1 - x0) * (y1 - y0));
}

// Pixels brighter than `level` (0..255 luminance) that are brighter than all 8 neighbours by 20: point lights, as
// y * width + x.
std::set<int> peaks(const render::Image& img, double level) {
  std::set<int> out;
  auto lum = [&](int x, int y) {
    const uint8_t* p = img.at(x, y);
    return 0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2];
  };
  for (int y = 1; y + 1 < img.height; ++y)
    for (int x = 1; x + 1 < img.width; ++x) {
      const double l = lum(x, y);
      if (l < level) continue;
      bool peak = true;
      for (int dy = -1; dy <= 1 && peak; ++dy)
        for (int dx = -1; dx <= 1; ++dx)
          if ((dx || dy) && lum(x + dx, y + dy) > l - 20.0) peak = false;
      if (peak) out.insert(y * img.width + x);
    }
  return out;
}
int points(const render::Image& img, double level) { return static_cast<int>(peaks(img, level).size()); }

std::vector<std::string> sky_view(const std::string& pos, const std::string& look, const std::string& time) {
  return {"--generator", "flat", "--pos", pos, "--look", look, "--size", "320x180", "--render-distance", "2",
          "--time-of-day", time};
}

}  // namespace

TEST(SunColor, IsWhiteWithTheSunHighAndReddensTowardTheHorizon) {
  EXPECT_EQ(render::sun_color(render::sun_direction(10.0)), glm::vec3(1.0f));
  EXPECT_EQ(render::sun_color(render::sun_direction(12.0)), glm::vec3(1.0f));
  float last_blue = 1.0f, last_green = 1.0f;
  for (double t = 9.0; t >= 6.0; t -= 0.25) {  // the sun going down toward the eastern horizon (morning, backwards)
    const glm::vec3 c = render::sun_color(render::sun_direction(t));
    EXPECT_FLOAT_EQ(c.r, 1.0f) << t;
    EXPECT_LE(c.g, last_green) << t;
    EXPECT_LE(c.b, last_blue) << t;
    EXPECT_LE(c.b, c.g) << t;
    last_blue = c.b;
    last_green = c.g;
  }
  const glm::vec3 horizon = render::sun_color(render::sun_direction(6.0));
  EXPECT_LT(horizon.g, 0.2f);  // red at the horizon
  EXPECT_LT(horizon.b, 0.01f);
  const glm::vec3 low = render::sun_color(render::sun_direction(6.5));  // about 7 degrees up: orange
  EXPECT_GT(low.g, 0.3f);
  EXPECT_LT(low.g, 0.8f);
  EXPECT_EQ(render::sun_color(render::sun_direction(3.0)), horizon);  // below the horizon: the horizon's colour
}

TEST(SkyRotation, HoldsTheSunStillInTheStarsFrame) {
  const glm::dvec3 at_six = render::sun_direction(6.0);
  for (double t = 0.0; t < 24.0; t += 1.5) {
    const glm::dmat3 r = render::sky_rotation(t);
    const glm::dvec3 s = r * render::sun_direction(t);
    EXPECT_NEAR(glm::length(s - at_six), 0.0, 1e-12) << t;
    const glm::dmat3 should_be_one = glm::transpose(r) * r;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) EXPECT_NEAR(should_be_one[i][j], i == j ? 1.0 : 0.0, 1e-12);
  }
  // Two hours later a fixed sky direction has turned by 30 degrees.
  const glm::dvec3 d = glm::normalize(glm::dvec3(0.3, 0.8, -0.5));
  const double turned = std::acos(glm::dot(render::sky_rotation(0.0) * d, render::sky_rotation(2.0) * d));
  EXPECT_GT(turned, 0.0);
  EXPECT_LE(turned, 30.0 * 3.14159265358979323846 / 180.0 + 1e-9);
}

TEST(SkyShot, StarsShineAtNightTurnWithTheSkyAndAreGoneByDay) {
  // Looking up (pitch 60) over the flat world: only sky.
  const auto night = run_shot(sky_view("0,10,0", "30,60", "0"));
  const auto later = run_shot(sky_view("0,10,0", "30,60", "2"));
  const auto day = run_shot(sky_view("0,10,0", "30,60", "12"));
  ASSERT_EQ(night.run.exit_code, 0) << night.run.err;
  ASSERT_EQ(later.run.exit_code, 0) << later.run.err;
  ASSERT_EQ(day.run.exit_code, 0) << day.run.err;
  const int stars = points(night.image, 60.0), stars_later = points(later.image, 60.0);
  std::printf("point lights: %d at midnight, %d at 2 o'clock, %d at noon\n", stars, stars_later, points(day.image, 60.0));
  EXPECT_GT(stars, 40);
  EXPECT_GT(stars_later, 40);
  EXPECT_EQ(points(day.image, 60.0), 0);
  // Two hours turn the sky by 30 degrees: hardly a star is where one was.
  const std::set<int> a = peaks(night.image, 60.0), b = peaks(later.image, 60.0);
  int kept = 0;
  for (int p : a) kept += b.count(p) > 0;
  EXPECT_LT(kept, stars / 10) << "the stars did not move in two hours";
  EXPECT_LT(luminance(night.image, 0, 0, 320, 180), 30.0);
  EXPECT_GT(luminance(day.image, 0, 0, 320, 180), 100.0);
}

TEST(SkyShot, TheMoonStandsOppositeTheSun) {
  // At midnight the sun is below, tilted north: the moon is up, 20 degrees south of the zenith (yaw 180, pitch 70).
  const auto moon = run_shot(sky_view("0,10,0", "180,70", "0") );
  const auto away = run_shot(sky_view("0,10,0", "0,70", "0"));
  ASSERT_EQ(moon.run.exit_code, 0) << moon.run.err;
  ASSERT_EQ(away.run.exit_code, 0) << away.run.err;
  // The disc at the centre of the picture, about 2 degrees: some 5 pixels across.
  EXPECT_GT(luminance(moon.image, 157, 87, 163, 93), 100.0);
  EXPECT_LT(luminance(away.image, 157, 87, 163, 93), 60.0);
}

TEST(SkyShot, CloudsShowDriftAndRepeatEvery4096BlocksWhereverTheEyeIs) {
  const auto plain = run_shot(sky_view("0,10,0", "0,40", "12"));
  auto args = sky_view("0,10,0", "0,40", "12");
  args.push_back("--no-clouds");
  const auto clear = run_shot(args);
  args = sky_view("0,10,0", "0,40", "12");
  args.insert(args.end(), {"--anim-time", "60"});
  const auto drifted = run_shot(args);
  // 4096 x 7,000 blocks east: the cloud field (and the flat world) the same, the position kept in double.
  const auto far_out = run_shot(sky_view("28672000,10,0", "0,40", "12"));
  for (const auto* r : {&plain, &clear, &drifted, &far_out}) ASSERT_EQ(r->run.exit_code, 0) << r->run.err;
  size_t differ = 0;
  for (size_t i = 0; i < plain.image.pixels.size(); i += 4) differ += plain.image.pixels[i] != clear.image.pixels[i];
  std::printf("%zu of %d pixels change with the clouds\n", differ, 320 * 180);
  EXPECT_GT(differ, 320u * 180u / 10) << "hardly any cloud in view";
  EXPECT_LT(differ, 320u * 180u) << "an overcast sky checks nothing";
  EXPECT_NE(plain.image.pixels, drifted.image.pixels) << "a minute of wind moved nothing";
  EXPECT_EQ(plain.image.pixels, far_out.image.pixels);
}

TEST(SkyShot, CloudsPunchNoHoleInTheTerrainsDepth) {
  // Terrain and sky in one view (the default world's meadow, clouds overhead): the terrain mask, read from the depth
  // buffer, is the same bytes with the cloud layer and without it.
  std::vector<std::string> args = {"--seed", "1", "--pos", "-700,surface,-768", "--look", "90,10", "--size", "320x180",
                                   "--render-distance", "3", "--time-of-day", "12"};
  const std::string with_mask = voxen::testing::temp_path("mask_clouds"), without_mask = voxen::testing::temp_path("mask_clear");
  auto a = args;
  a.insert(a.end(), {"--terrain-mask", with_mask});
  auto b = args;
  b.insert(b.end(), {"--terrain-mask", without_mask, "--no-clouds"});
  const auto with = run_shot(a), without = run_shot(b);
  ASSERT_EQ(with.run.exit_code, 0) << with.run.err;
  ASSERT_EQ(without.run.exit_code, 0) << without.run.err;
  EXPECT_NE(with.image.pixels, without.image.pixels) << "no cloud in view: the check checks nothing";
  auto ma = render::load_png(with_mask), mb = render::load_png(without_mask);
  ASSERT_TRUE(ma.ok() && mb.ok());
  EXPECT_EQ(ma->pixels, mb->pixels);
  EXPECT_EQ(with.json["terrain_pixels"], without.json["terrain_pixels"]);
  EXPECT_GT(with.json["terrain_pixels"].get<uint64_t>(), 320u * 180u / 4);
  std::remove(with_mask.c_str());
  std::remove(without_mask.c_str());
}

TEST(SkyShot, SunsetReddensTheTerrainAndTheSkyTowardTheSun) {
  // The flat world's grass seen from above, once with the sun high and once low in the west.
  auto ratio = [](const render::Image& img, int y0, int y1) {
    double r = 0, b = 0;
    for (int y = y0; y < y1; ++y)
      for (int x = 0; x < img.width; ++x) {
        r += img.at(x, y)[0];
        b += img.at(x, y)[2] + 1.0;
      }
    return r / b;
  };
  const auto noon = run_shot(sky_view("0,10,0", "270,-5", "14"));
  const auto dusk = run_shot(sky_view("0,10,0", "270,-5", "17.7"));
  ASSERT_EQ(noon.run.exit_code, 0) << noon.run.err;
  ASSERT_EQ(dusk.run.exit_code, 0) << dusk.run.err;
  // Rows 0..60: sky toward the west; rows 120..180: the ground in front.
  std::printf("red/blue: sky %.2f -> %.2f, ground %.2f -> %.2f\n", ratio(noon.image, 0, 60), ratio(dusk.image, 0, 60),
              ratio(noon.image, 120, 180), ratio(dusk.image, 120, 180));
  EXPECT_GT(ratio(dusk.image, 0, 60), 1.5 * ratio(noon.image, 0, 60));
  EXPECT_GT(ratio(dusk.image, 120, 180), 1.2 * ratio(noon.image, 120, 180));
}
