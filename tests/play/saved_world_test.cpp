// `voxen play --world DIR` through the game path, headless: a saved world opened as `voxen play` opens it
// (stream::SavedWorld as the streamer's column source, which journals the edits), played by a
// recording through the real InputHandler (build, place, dig), committed after each edit frame as the play loop
// does, closed; then a fresh `voxen probe --world DIR` process and a restarted game both show the edits. And the
// HUD's status line, where `voxen play` says whether edits are saved, is read back off the frame's pixels.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "hud_reader.h"
#include "play_test_util.h"
#include "saved_world_util.h"
#include "run_command.h"
#include "voxen/gen/generator.h"

namespace voxen::play::testing {
namespace {

using voxen::testing::run_voxen;

constexpr double kEyeHeight = 1.62;

// The flat world (gen/flat_generator.cpp): planks and cobblestone ground at y = 0 for x, z in 0..15, dirt under it.
TEST(PlaySavedWorld, EditsMadeThroughTheInputPathAreReadBackByAFreshProbe) {
  const std::string dir = temp_dir("saved_world");
  const std::string world = dir + "/world";
  // Feet at (5.5, 1, 5.5) looking east. Stairs (slot 9) on the ground block (10, 0, 5) -> (10, 1, 5), facing east;
  // glowstone (slot 8) on (8, 0, 5) -> (8, 1, 5); then dig the ground block (7, 0, 5). Each aim is the top centre
  // of the ground block, and no earlier edit lies on a later ray.
  const double eye = 1.0 + kEyeHeight;
  RecordingBuilder b(flat_header(5.5, 1.0, 5.5, 90.0, 0.0));
  b.tap(40, Key::k9).look(40, 90.0, pitch_to(eye, 1.0, 5.0)).click(42, MouseButton::kRight);
  b.tap(50, Key::k8).look(50, 90.0, pitch_to(eye, 1.0, 3.0)).click(52, MouseButton::kRight);
  b.look(60, 90.0, pitch_to(eye, 1.0, 2.0)).click(62, MouseButton::kLeft);
  const Recording rec = b.finish(80, dir + "/saved.rec");
  // The generated column (0, 0), for the cells the edits replaced and an untouched neighbour.
  auto flat = gen::make_generator("flat", rec.header.seed, registry());
  ASSERT_TRUE(flat.ok());
  Column generated({0, 0});
  (*flat)->generate(generated);
  ASSERT_TRUE(registry()[generated.get(7, 0, 5).id].is_opaque_cube());
  ASSERT_EQ(generated.get(10, 1, 5), kAir);
  ASSERT_EQ(generated.get(8, 1, 5), kAir);
  const Cell stairs{registry().id("stone_stairs"), state::make_facing(state::kEast, false)};
  {
    auto ws = open_world(world, rec.header.seed, rec.header.generator);
    ASSERT_TRUE(ws);
    stream::SavedWorld& backend = *ws;
    auto s = open_saved_session(rec.header, backend);
    ASSERT_TRUE(s);
    Game& g = s->game();
    int commits = 0;
    const RunResult r = run_events(g, rec.events, rec.frames, 4, true, [&](const FrameReport& rep) {
      EXPECT_TRUE(rep.stream_error.empty()) << rep.stream_error;
      if (rep.edits_applied > 0) {  // as `voxen play` does: queue the frame's edits for the write-behind queue
        EXPECT_TRUE(backend.commit().ok());
        ++commits;
      }
      return true;
    });
    EXPECT_TRUE(r.failures.empty()) << r.failures.front();
    EXPECT_EQ(r.edits_applied, 3u);
    EXPECT_EQ(commits, 3);
    EXPECT_EQ(g.world().get({10, 1, 5}), stairs);
    EXPECT_EQ(g.world().get({8, 1, 5}).id, registry().id("glowstone"));
    EXPECT_EQ(g.world().get({7, 0, 5}), kAir);
    s.reset();  // the game before the saved world closes (cmd_play's order)
    const Status closed = ws->close();
    ASSERT_TRUE(closed.ok()) << closed.error().to_string();
  }

  // A fresh process reads the world back: the placed blocks (state included), the dug cell as air lit by the sky,
  // the glowstone's light recomputed above it (light is never stored), and an untouched neighbour as generated.
  auto p = run_voxen({"probe", "--world", world, "--at", "10,1,5", "--at", "8,1,5", "--at", "8,2,5", "--at", "7,0,5",
                      "--at", "6,0,5", "--json"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  const auto j = nlohmann::json::parse(p.out);
  const auto& cells = j["cells"];
  ASSERT_EQ(cells.size(), 5u) << p.out;
  EXPECT_EQ(cells[0]["block"], "stone_stairs") << p.out;
  EXPECT_EQ(cells[0]["state"], stairs.state) << p.out;
  EXPECT_EQ(cells[1]["block"], "glowstone") << p.out;
  EXPECT_GT(cells[2]["light"]["block"][0].get<int>(), 0) << "the glowstone should light the air above it: " << p.out;
  EXPECT_EQ(cells[3]["block"], "air") << p.out;
  EXPECT_EQ(cells[3]["light"]["sky"], 15) << p.out;
  EXPECT_EQ(cells[4]["block"], registry()[generated.get(6, 0, 5).id].name) << "an untouched cell is as generated: " << p.out;

  // A restart of the game on the same world shows the edits (columns come back through the backend).
  {
    auto ws = open_world(world, std::nullopt, "default");  // an existing world keeps its own generator
    ASSERT_TRUE(ws);
    EXPECT_EQ(ws->session().meta().generator, "flat");
    stream::SavedWorld& backend = *ws;
    auto s = open_saved_session(rec.header, backend);
    ASSERT_TRUE(s);
    const RunResult r = run_events(s->game(), {}, 30, 10, true);
    EXPECT_TRUE(r.failures.empty()) << r.failures.front();
    EXPECT_TRUE(s->game().streamer().loaded({0, 0}));
    EXPECT_EQ(s->game().world().get({10, 1, 5}), stairs);
    EXPECT_EQ(s->game().world().get({8, 1, 5}).id, registry().id("glowstone"));
    EXPECT_EQ(s->game().world().get({7, 0, 5}), kAir);
    s.reset();
    EXPECT_TRUE(ws->close().ok());
  }
}

// `voxen play` sets the status line to say whether edits are saved (app/voxen/cmd_play.cpp); the HUD must draw it
// legibly over the terrain and sky: the text read back from the pixels is the text set.
TEST(PlaySavedWorld, TheStatusLineSayingWhetherEditsAreSavedIsReadableInTheFrame) {
  for (const std::string& status : {std::string("EPHEMERAL WORLD: EDITS ARE NOT SAVED"), std::string("WORLD /TMP/W: EDITS ARE SAVED"),
                                   std::string()}) {
    RecordingHeader h = flat_header(24.5, 1.0, 30.5, 270.0, -10.0);
    h.width = 320;
    h.height = 180;
    SessionOptions so;
    so.window = false;
    so.threads = 2;
    so.game.status = status;
    auto s = PlaySession::open(h, so, registry());
    ASSERT_TRUE(s.ok()) << s.error().to_string();
    Game& g = (*s)->game();
    run_events(g, {}, 20, 19, false);
    EXPECT_EQ(read_status_line(g.read_pixels()), status);
  }
}

}  // namespace
}  // namespace voxen::play::testing
