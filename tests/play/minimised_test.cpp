// A minimised window draws nothing, through the real frame loop, headless, with the platform's shown size forced
// to 0 x 0 (Platform::override_shown_size, what a minimised window reports): no frame is drawn or presented and
// the target's pixels stay as they were while the player walks on, GL reports no error, the simulation and the
// streaming go on exactly as in a run never minimised, and the first frame after the restore is byte for byte the
// frame of that run.
#include <gtest/gtest.h>

#include <epoxy/gl.h>

#include "play_test_util.h"

namespace voxen::play::testing {
namespace {

constexpr double kEyeHeight = 1.62;

TEST(Minimised, NothingIsDrawnAndTheFrameAfterTheRestoreIsTheUnminimisedOne) {
  // The flat world, looking east and down; flying east at 30 blocks/s from frame 10 to 60, so new columns stream
  // in and the view changes while the window is minimised (frames 5 to 44, from before the first view is loaded).
  Recording rec;
  rec.header = flat_header(3.5, 1.0, 5.5, 90.0, pitch_to(1.0 + kEyeHeight, 1.0, 6.0));
  rec.header.start_flying = true;
  rec.events = {{0, EventKind::kFlySpeed, 0, 30.0, 0, 0},
                {10, EventKind::kKeyDown, static_cast<int>(Key::kW), 0, 0, 0},
                {60, EventKind::kKeyUp, static_cast<int>(Key::kW), 0, 0, 0}};
  rec.frames = 70;
  constexpr uint64_t kFrom = 5, kTo = 45;

  // Never minimised: the player's feet after every frame, the pixels of frames kFrom - 1 and kTo and the world
  // at kTo.
  auto a = open_session(rec.header);
  ASSERT_TRUE(a);
  std::vector<glm::dvec3> feet_a;
  render::Image before_a, restored_a;
  uint64_t world_a = 0;
  RunResult ra = run_events(a->game(), rec.events, rec.frames, 1, true, [&](const FrameReport& rep) {
    feet_a.push_back(a->game().player().feet());
    if (rep.frame == kFrom - 1) before_a = a->game().read_pixels();
    if (rep.frame == kTo) {
      restored_a = a->game().read_pixels();
      world_a = world_hash(a->game().world());
    }
    return true;
  });
  ASSERT_TRUE(ra.failures.empty()) << ra.failures.front();

  // Minimised for frames kFrom .. kTo - 1.
  auto m = open_session(rec.header);
  ASSERT_TRUE(m);
  Game& g = m->game();
  std::vector<glm::dvec3> feet_m;
  render::Image before_m, restored_m;
  uint64_t world_m = 0;
  int drawn_while_minimised = 0, frames_minimised = 0, gl_errors = 0;
  bool pixels_kept = true;
  RunResult rm = run_events(g, rec.events, rec.frames, 1, true, [&](const FrameReport& rep) {
    feet_m.push_back(g.player().feet());
    gl_errors += rep.gl_error != 0 ? 1 : 0;
    if (rep.frame == kFrom - 1) {
      before_m = g.read_pixels();
      m->platform().override_shown_size(0, 0);
    } else if (rep.frame >= kFrom && rep.frame < kTo) {
      EXPECT_TRUE(rep.minimised) << "frame " << rep.frame;
      frames_minimised += rep.minimised ? 1 : 0;
      drawn_while_minimised += rep.rendered ? 1 : 0;
      EXPECT_EQ(rep.render.draw_calls, 0u) << "frame " << rep.frame;
      // Nothing drawn into the target: it still holds the last frame drawn before the window was minimised.
      pixels_kept = pixels_kept && g.read_pixels().pixels == before_m.pixels;
      if (rep.frame + 1 == kTo) m->platform().clear_shown_size();
    } else if (rep.frame == kTo) {
      EXPECT_FALSE(rep.minimised);
      EXPECT_TRUE(rep.rendered);
      restored_m = g.read_pixels();
      world_m = world_hash(g.world());
    }
    return true;
  });
  ASSERT_TRUE(rm.failures.empty()) << rm.failures.front();
  EXPECT_EQ(glGetError(), static_cast<GLenum>(GL_NO_ERROR));
  EXPECT_EQ(gl_errors, 0);
  EXPECT_EQ(frames_minimised, static_cast<int>(kTo - kFrom));
  EXPECT_EQ(drawn_while_minimised, 0);
  EXPECT_TRUE(pixels_kept) << "a frame was drawn into the target while the window was minimised";
  ASSERT_EQ(before_m.pixels, before_a.pixels);
  EXPECT_NE(restored_a.pixels, before_a.pixels) << "the walk should change the view, so that kept pixels mean something";
  // The simulation and the streaming did not notice.
  ASSERT_EQ(feet_m.size(), feet_a.size());
  for (size_t i = 0; i < feet_a.size(); ++i)
    if (feet_m[i] != feet_a[i]) {
      ADD_FAILURE() << "frame " << i << ": the player is at x " << feet_m[i].x << ", never minimised at " << feet_a[i].x;
      break;
    }
  EXPECT_EQ(world_m, world_a) << "the world at the restore differs from the run never minimised";
  EXPECT_EQ(world_hash(g.world()), world_hash(a->game().world()));
  ASSERT_EQ(restored_m.width, restored_a.width);
  EXPECT_TRUE(restored_m.pixels == restored_a.pixels) << "the first frame after the restore differs from the run never minimised";
}

}  // namespace
}  // namespace voxen::play::testing
