// The sky's clock in the frame loop (issue 22): with a day length the time of day runs on with the simulation
// time, from the recording's start time, and the frames show it: a sky at dusk darkens as the sun sets.
#include <gtest/gtest.h>

#include "play_test_util.h"

namespace voxen::play::testing {
namespace {

double mean_luminance(const render::Image& img) {
  double sum = 0;
  for (int y = 0; y < img.height; ++y)
    for (int x = 0; x < img.width; ++x) {
      const uint8_t* p = img.at(x, y);
      sum += 0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2];
    }
  return sum / (img.width * img.height);
}

TEST(SkyClock, TheTimeOfDayRunsWithTheSimulationAndTheSkyDarkensAtDusk) {
  // Looking west and up from the flat world (sky only); a day of one minute starting at 17:48: each second of
  // simulation is 24 minutes of the day, so 60 frames of 1/60 s take the sun from above the horizon to below it.
  RecordingHeader h = flat_header(0.5, 1.0, 0.5, 270.0, 30.0);
  h.time_of_day = 17.8;
  h.day_minutes = 1.0;
  auto s = open_session(h);
  ASSERT_TRUE(s);
  Game& g = s->game();
  EXPECT_DOUBLE_EQ(g.time_of_day(), 17.8);
  render::Image first, last;
  RunResult r = run_events(g, {}, 61, 1, true, [&](const FrameReport& rep) {
    if (rep.frame == 2) first = g.read_pixels();  // (frame 0 is drawn before the eye's column has light: a dark sky)
    if (rep.frame == 60) last = g.read_pixels();
    return true;
  });
  ASSERT_TRUE(r.failures.empty()) << r.failures.front();
  EXPECT_NEAR(g.time_of_day(), 17.8 + g.sim_time() / 60.0 * 24.0, 1e-9);
  EXPECT_GT(g.time_of_day(), 18.1);
  std::printf("sky luminance %.1f at %.2f h, %.1f at %.2f h\n", mean_luminance(first), 17.8 + 2.0 / 60.0 * 0.4, mean_luminance(last),
              g.time_of_day());
  EXPECT_LT(mean_luminance(last), 0.75 * mean_luminance(first));

  // Without a day length the clock stands still.
  h.day_minutes = 0.0;
  auto still = open_session(h);
  ASSERT_TRUE(still);
  RunResult r2 = run_events(still->game(), {}, 30, 0, true, [](const FrameReport&) { return true; });
  ASSERT_TRUE(r2.failures.empty());
  EXPECT_DOUBLE_EQ(still->game().time_of_day(), 17.8);
}

TEST(SkyClock, TheTimeWrapsPastMidnight) {
  RecordingHeader h = flat_header(0.5, 1.0, 0.5, 0.0, 0.0);
  h.time_of_day = 23.9;
  h.day_minutes = 1.0;
  auto s = open_session(h);
  ASSERT_TRUE(s);
  RunResult r = run_events(s->game(), {}, 30, 0, true, [](const FrameReport&) { return true; });
  ASSERT_TRUE(r.failures.empty());
  EXPECT_LT(s->game().time_of_day(), 24.0);
  EXPECT_GT(s->game().time_of_day(), 0.0);
  EXPECT_LT(s->game().time_of_day(), 23.0);
}

}  // namespace
}  // namespace voxen::play::testing
