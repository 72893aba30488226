// The frame loop's observer hook (play/game.h FrameObserver), through a recording run by the real InputHandler and
// frame loop on the flat world (headless, 64 x 36): an applied edit is told with its cell, a refused one is not; the
// streaming is told every frame with the frame's statistics and the streamer in its new state; the rendered world
// only on drawn frames, after the streaming and before the HUD (the pixels read back in the callback are the
// world's alone, the frame's final pixels add the HUD), with the camera and frame size it was drawn with; a removed
// observer is told nothing more, and no observer costs nothing in FrameReport::observer_ms.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "play_test_util.h"

namespace voxen::play::testing {
namespace {

/// Writes down every call, in order ("edit F", "stream F", "render F").
class Log final : public FrameObserver {
 public:
  void edit_applied(uint64_t frame, const Edit& edit) override {
    calls.push_back("edit " + std::to_string(frame));
    edits.push_back(edit);
  }
  void streamed(uint64_t frame, const stream::StreamFrameStats& stats, const stream::ColumnStreamer& streamer) override {
    calls.push_back("stream " + std::to_string(frame));
    integrated.push_back(stats.columns_integrated);
    loaded.push_back(streamer.loaded_count());
  }
  void world_rendered(const RenderedFrame& f) override {
    calls.push_back("render " + std::to_string(f.frame));
    camera_block = f.params.camera.block;
    camera_yaw = f.params.camera.yaw_deg;
    width = f.width;
    height = f.height;
    world_pixels = f.renderer.read_pixels();
    const std::vector<float> depth = f.renderer.read_depth();
    ground_pixels = static_cast<size_t>(std::count_if(depth.begin(), depth.end(), [](float d) { return d < 1.0f; }));
  }

  std::vector<std::string> calls;
  std::vector<Edit> edits;
  std::vector<int> integrated;
  std::vector<size_t> loaded;
  BlockPos camera_block;
  double camera_yaw = 0;
  int width = 0, height = 0;
  render::Image world_pixels;
  size_t ground_pixels = 0;
};

TEST(FrameObserver, IsToldOfEditsStreamingAndTheRenderedWorldAtTheFramesFixedPoints) {
  const std::string dir = temp_dir("observer");
  // A placement into the feet's cell refused at frame 40, a stone placed at (7, 1, 5) at frame 52.
  const Recording rec = place_self_recording(dir + "/observer.rec");
  auto s = open_session(rec.header);
  ASSERT_TRUE(s);
  Game& g = s->game();
  Log log;
  g.add_observer(log);
  std::vector<std::string> expected;
  std::vector<int> integrated;
  std::vector<size_t> loaded;
  const RunResult r = run_events(g, rec.events, rec.frames, 4, true, [&](const FrameReport& rep) {
    const std::string f = std::to_string(rep.frame);
    for (int i = 0; i < rep.edits_applied; ++i) expected.push_back("edit " + f);
    expected.push_back("stream " + f);
    if (rep.rendered) expected.push_back("render " + f);
    integrated.push_back(rep.stream.columns_integrated);
    loaded.push_back(g.streamer().loaded_count());
    return true;
  });
  ASSERT_TRUE(r.failures.empty()) << r.failures.front();
  EXPECT_EQ(r.edits_refused, 1u);
  ASSERT_EQ(r.edits_applied, 1u);
  EXPECT_EQ(log.calls, expected) << "edits, then the streaming, then (drawn frames only) the rendered world";
  EXPECT_NE(std::find(log.calls.begin(), log.calls.end(), "render 0"), log.calls.end());
  EXPECT_EQ(std::find(log.calls.begin(), log.calls.end(), "render 1"), log.calls.end()) << "frame 1 is not drawn";
  // The applied edit, as the World holds it now.
  ASSERT_EQ(log.edits.size(), 1u);
  EXPECT_EQ(log.edits[0].pos, (BlockPos{7, 1, 5}));
  EXPECT_EQ(log.edits[0].before, kAir);
  EXPECT_EQ(log.edits[0].after, g.world().get({7, 1, 5}));
  EXPECT_EQ(log.edits[0].after.id, registry().id("stone"));
  // The streaming's statistics are the frame's, and the streamer is in the state the frame left it in.
  EXPECT_EQ(log.integrated, integrated);
  EXPECT_EQ(log.loaded, loaded);
  // The last frame (drawn): the camera and size it was drawn with, the world drawn, the HUD not yet.
  EXPECT_EQ(log.camera_block, g.camera().block);
  EXPECT_EQ(log.camera_yaw, g.camera().yaw_deg);
  EXPECT_EQ(log.width, 64);
  EXPECT_EQ(log.height, 36);
  EXPECT_GT(log.ground_pixels, 64u * 36u / 4u) << "the ground should be drawn when the observer is told";
  const render::Image final_pixels = g.read_pixels();
  ASSERT_EQ(log.world_pixels.pixels.size(), final_pixels.pixels.size());
  EXPECT_FALSE(log.world_pixels.pixels == final_pixels.pixels) << "the HUD (crosshair, hotbar) is drawn after the observer";
}

TEST(FrameObserver, ARemovedObserverIsToldNothingMoreAndNoneCostNothing) {
  auto s = open_session(flat_header(5.5, 1.0, 5.5, 0.0, -10.0));
  ASSERT_TRUE(s);
  Game& g = s->game();
  Log kept, removed;
  g.add_observer(kept);
  g.add_observer(removed);
  run_events(g, {}, 3, 1, true);
  g.remove_observer(removed);
  run_events(g, {}, 2, 1, true);
  EXPECT_EQ(kept.calls.size(), 10u) << "a streaming and a rendered world call each of 5 frames";
  EXPECT_EQ(removed.calls.size(), 6u) << "3 frames only";
  g.remove_observer(kept);
  const FrameReport rep = g.frame({});
  EXPECT_EQ(kept.calls.size(), 10u);
  EXPECT_EQ(rep.observer_ms, 0.0) << "no observer, no observer time";
}

}  // namespace
}  // namespace voxen::play::testing
