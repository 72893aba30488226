// A fast flight through the real frame loop (a recording through the real InputHandler, headless, 64 x 36 frames,
// deterministic streaming with four generation and four mesh jobs a frame): at 112 blocks/s, every column within 4
// columns of the eye is drawn once the first ground has loaded, and the holes measurement (HolesObserver attached
// to the game) finds no frame showing sky where ground within 4 columns should be.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "playtest_test_util.h"
#include "voxen/playtest/holes.h"

namespace voxen::playtest::testing {
namespace {

TEST(FastFlight, NeverLeavesNearGroundUndrawn) {
  const std::string dir = temp_dir("jet");
  RecordingHeader h;
  h.seed = 1;
  h.generator = "default";
  h.render_distance = 6;
  h.width = 64;
  h.height = 36;
  // Four generation and four mesh jobs a frame: the near ground must win them over the rest of the view, which
  // loads while the jet is already flying (VoxelBlox's failure: the ring held every worker while the
  // ground within 4 columns went undrawn).
  h.stream_gen = 4;
  h.stream_mesh = 4;
  // A straight line east at 112 blocks/s from frame 0, 10 blocks above the highest generated ground along it.
  const int64_t x0 = 1000, z0 = 300;
  auto gen = gen::make_generator("default", 1, registry());
  ASSERT_TRUE(gen.ok());
  HeightCache heights(**gen, registry());
  int64_t top = kSeaLevel;
  for (int64_t d = 0; d <= 560 + 7 * 16; d += 2) top = std::max(top, heights.top(x0 + d, z0));
  h.start_block = {x0, top + 10, z0};
  h.start_yaw = 90.0;
  h.start_pitch = -20.0;
  h.start_flying = true;
  RecordingBuilder b(h);
  b.fly_speed(0, 112.0).key(0, Key::kW, true);
  const Recording rec = b.finish(300, dir + "/jet.rec");
  MeasuredSession m = open_measured_session(rec.header);
  ASSERT_TRUE(m.session);
  Game& g = m.game();
  HolesObserver& holes = *m.holes;
  constexpr uint64_t kFirstChecked = 30;  // the first frames load the ground round the start
  bool complete_seen = false;
  int frames_checked = 0, undrawn = 0;
  uint64_t near_hole_frames = 0;
  std::string first_undrawn, first_hole;
  const RunResult r = run_events(g, rec.events, rec.frames, 1, true, [&](const FrameReport& rep) {
    complete_seen = complete_seen || g.streamer().view_complete();
    if (rep.frame < kFirstChecked) return true;
    ++frames_checked;
    // Every column whose nearest point lies within 4 columns (64 blocks) of the eye, horizontally.
    const render::Camera cam = g.camera();
    const ColumnPos pc{column_of(cam.block.x), column_of(cam.block.z)};
    for (int64_t dx = -5; dx <= 5; ++dx)
      for (int64_t dz = -5; dz <= 5; ++dz) {
        const ColumnPos c{pc.x + dx, pc.z + dz};
        const glm::dvec3 mn = cam.relative({c.min_x(), 0, c.min_z()});
        const double nx = std::max({mn.x, 0.0, -(mn.x + 16.0)}), nz = std::max({mn.z, 0.0, -(mn.z + 16.0)});
        if (nx * nx + nz * nz > 64.0 * 64.0) continue;
        if (!g.streamer().drawn(c)) {
          if (first_undrawn.empty())
            first_undrawn = "frame " + std::to_string(rep.frame) + ": column " + std::to_string(pc.x + dx) + "," +
                            std::to_string(pc.z + dz) + " state " +
                            std::to_string(static_cast<int>(g.streamer().state({pc.x + dx, pc.z + dz})));
          ++undrawn;
        }
      }
    const HolesResult& hr = holes.result(rep.frame);
    if (hr.measured && hr.near_hole_pixels > 0) {
      ++near_hole_frames;
      if (first_hole.empty())
        first_hole = "frame " + std::to_string(rep.frame) + ": " + std::to_string(hr.near_hole_pixels) + " near / " +
                     std::to_string(hr.hole_pixels) + " hole pixels, ground at " + std::to_string(hr.first_hole.x) + "," +
                     std::to_string(hr.first_hole.y) + "," + std::to_string(hr.first_hole.z) + " below: " +
                     registry()[g.world().get({hr.first_hole.x, hr.first_hole.y - 1, hr.first_hole.z}).id].name;
    }
    return true;
  });
  EXPECT_TRUE(r.failures.empty()) << r.failures.front();
  EXPECT_TRUE(complete_seen);
  EXPECT_EQ(frames_checked, 300 - static_cast<int>(kFirstChecked));
  EXPECT_GT(g.player().feet().x - static_cast<double>(x0), 500.0) << "the flight should have covered 112 blocks/s";
  EXPECT_EQ(undrawn, 0) << first_undrawn;
  EXPECT_EQ(near_hole_frames, 0u) << "frames whose depth buffer shows sky where ground within 4 columns should be; "
                                   << first_hole;
}

}  // namespace
}  // namespace voxen::playtest::testing
