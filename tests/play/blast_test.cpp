// The edit storm (issue 15, "Bad input and limits"): a blast through the real input path and frame loop, over a
// saved world as `voxen play --world` runs it, removes a ball of more than 10,000 blocks in one frame across
// column and section borders and up through the ground, and stays correct: exactly the ball's cells change, the
// light equals the from-scratch oracle and the same edits applied one at a time, and the frame's pixels after it
// equal a fresh game's on the reopened world (the storm's remeshes match meshes built from nothing). The B key
// blasts at the targeted block.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "play_test_util.h"
#include "saved_world_util.h"
#include "voxen/light/light.h"
#include "voxen/light/oracle.h"

namespace voxen::play::testing {
namespace {

constexpr double kEyeHeight = 1.62;

// The flat world (gen/flat_generator.cpp): grass at y 0, dirt -3..-1, stone below. Flying, feet at (24.5, 16,
// 50.5), looking north and down into the crater; the blast at (24, -13, 24), radius 14: x and z 10..38 (columns
// 0..2, across two column borders each way), y -27..1 (sections 6..8), open to the sky through the ground.
TEST(PlayBlast, AnEditStormEqualsTheEditsOneAtATimeAndAFreshLoad) {
  const std::string dir = temp_dir("blast");
  const BlockPos centre{24, -13, 24};
  constexpr int kRadius = 14;
  RecordingHeader h = flat_header(24.5, 16.0, 50.5, 0.0, pitch_to(16.0 + kEyeHeight, -13.0, 26.0), 3);
  h.width = 160;
  h.height = 90;
  RecordingBuilder b(h);
  b.fly(0, true);
  b.add(60, EventKind::kBlast, kRadius, centre.x + 0.5, centre.y + 0.5, centre.z + 0.5);
  const Recording rec = b.finish(90, dir + "/blast.rec");
  RecordingBuilder calm(h);  // the same flight without the blast: the reopened world's view
  calm.fly(0, true);
  const Recording fresh_rec = calm.finish(90, dir + "/calm.rec");
  const light::LightTable table(registry());

  render::Image after_storm;
  {
    auto ws = open_world(dir + "/world", h.seed, "flat");
    ASSERT_TRUE(ws);
    auto s = open_saved_session(rec.header, *ws, /*hud=*/false);
    ASSERT_TRUE(s);
    Game& g = s->game();
    RunResult run = run_events(g, rec.events, 60, 1, true);
    ASSERT_TRUE(run.failures.empty()) << run.failures.front();
    ASSERT_TRUE(g.streamer().view_complete());
    const World before = copy_world(g.world());

    // The ball's cells that hold a block other than bedrock or a fluid, in the order the blast visits them.
    std::vector<Edit> one_at_a_time;
    for (int64_t dy = -kRadius; dy <= kRadius; ++dy)
      for (int64_t dz = -kRadius; dz <= kRadius; ++dz)
        for (int64_t dx = -kRadius; dx <= kRadius; ++dx) {
          if (dx * dx + dy * dy + dz * dz > kRadius * kRadius + kRadius) continue;
          const BlockPos p{centre.x + dx, centre.y + dy, centre.z + dz};
          ASSERT_TRUE(before.find(column_pos_of(p))) << "the ball's columns are loaded";
          const Cell c = before.get(p);
          if (c.id != kAirId) one_at_a_time.push_back(Edit{p, c, kAir, 0});
        }
    ASSERT_GE(one_at_a_time.size(), 10000u) << "an edit storm of at least 10,000 edits";

    run = run_events(g, rec.events, 1, 1, true, [&](const FrameReport& rep) {
      EXPECT_EQ(rep.blasts, 1);
      EXPECT_EQ(static_cast<size_t>(rep.edits_applied), one_at_a_time.size());
      EXPECT_EQ(rep.edits_refused, 0);
      EXPECT_GT(rep.sections_remeshed, 0);
      EXPECT_TRUE(rep.stream_error.empty()) << rep.stream_error;
      return true;
    });
    ASSERT_TRUE(run.failures.empty()) << run.failures.front();
    EXPECT_TRUE(ws->commit().ok());  // as `voxen play` does after a frame with edits

    // Cells: the ball's blocks are air, every other cell as before.
    World reference = copy_world(before);
    for (const Edit& e : one_at_a_time) ASSERT_TRUE(light::apply_edit(reference, table, e).applied);
    size_t cells_differ = 0, light_differs = 0;
    for (const ColumnPos& p : before.positions()) {
      const Column& now = *g.world().find(p);
      const Column& ref = *reference.find(p);
      for (int sy = 0; sy < kSectionsPerColumn; ++sy)
        for (int i = 0; i < kSectionVolume; ++i) {
          cells_differ += now.section(sy).get(i) != ref.section(sy).get(i);
          light_differs += now.light_section(sy).get(i) != ref.light_section(sy).get(i);
        }
    }
    EXPECT_EQ(cells_differ, 0u) << "cells differ from the edits applied one at a time";
    EXPECT_EQ(light_differs, 0u) << "light differs from the edits applied one at a time";
    const light::LightDiff diff = light::verify_light(g.world(), table);
    EXPECT_TRUE(diff.equal()) << diff.to_string();
    EXPECT_EQ(light_sky(g.world().light(centre)), 15) << "the sky comes straight down through the opening";

    run = run_events(g, rec.events, rec.frames - g.frame_number(), 1, true);
    ASSERT_TRUE(run.failures.empty()) << run.failures.front();
    after_storm = g.read_pixels();
    s.reset();
    ASSERT_TRUE(ws->close().ok());
  }

  // A fresh game on the reopened world draws the crater from meshes built from nothing: the same pixels.
  auto ws = open_world(dir + "/world", std::nullopt, "flat");
  ASSERT_TRUE(ws);
  auto s = open_saved_session(rec.header, *ws, /*hud=*/false);
  ASSERT_TRUE(s);
  const RunResult run = run_events(s->game(), fresh_rec.events, fresh_rec.frames, 1, true);
  ASSERT_TRUE(run.failures.empty()) << run.failures.front();
  EXPECT_EQ(s->game().world().get(centre), kAir);
  const render::Image fresh = s->game().read_pixels();
  ASSERT_EQ(fresh.pixels.size(), after_storm.pixels.size());
  size_t differ = 0;
  for (size_t i = 0; i < fresh.pixels.size(); ++i) differ += fresh.pixels[i] != after_storm.pixels[i];
  if (differ) {
    (void)render::save_png(fresh, "/tmp/blast_fresh.png");
    (void)render::save_png(after_storm, "/tmp/blast_storm.png");
  }
  EXPECT_EQ(differ, 0u) << "bytes of the frame after the storm differ from a fresh load of the same world";
  s.reset();
  EXPECT_TRUE(ws->close().ok());
}

// The B key blasts the ball round the targeted block (HandlerConfig::blast_radius), through the handler.
TEST(PlayBlast, TheBKeyBlastsAtTheTarget) {
  InputHandler handler;
  handler.handle({0, EventKind::kKeyDown, static_cast<int>(Key::kB)});
  handler.handle({0, EventKind::kKeyUp, static_cast<int>(Key::kB)});
  handler.handle({0, EventKind::kBlast, 0, 1, 2, 3});                    // radius 0: ignored
  handler.handle({0, EventKind::kBlast, kMaxBlastRadius + 1, 1, 2, 3});  // too big: ignored
  handler.handle({0, EventKind::kBlast, 5, -1.5, 2, 3});
  const Requests r = handler.take_requests();
  ASSERT_EQ(r.blasts.size(), 2u);
  EXPECT_FALSE(r.blasts[0].centre.has_value());
  EXPECT_EQ(r.blasts[0].radius, HandlerConfig{}.blast_radius);
  EXPECT_EQ(r.blasts[1].centre, (std::array<int64_t, 3>{-2, 2, 3}));
  EXPECT_EQ(r.blasts[1].radius, 5);

  // Through the game: looking straight down at the flat world's grass, B clears the ball round (5, 0, 5).
  const std::string dir = temp_dir("blast_key");
  RecordingBuilder b(flat_header(5.5, 1.0, 5.5, 0.0, -90.0));
  b.tap(40, Key::kB);
  const Recording rec = b.finish(41, dir + "/b.rec");
  auto s = open_session(rec.header);
  ASSERT_TRUE(s);
  int edits = 0;
  const RunResult run = run_events(s->game(), rec.events, rec.frames, 1, true, [&](const FrameReport& rep) {
    edits += rep.edits_applied;
    return true;
  });
  ASSERT_TRUE(run.failures.empty()) << run.failures.front();
  EXPECT_GT(edits, 1000);
  EXPECT_EQ(s->game().world().get({5, 0, 5}), kAir);
  EXPECT_EQ(s->game().world().get({5, -8, 5}), kAir);
  EXPECT_NE(s->game().world().get({5, -9, 5}), kAir) << "radius 8: the ball ends 8 below the target";
}

}  // namespace
}  // namespace voxen::play::testing
