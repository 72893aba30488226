// Live streaming replays exactly: `voxen play` streams live (what the workers have finished decides what a frame
// integrates, its time decides how much it submits), so two runs of the same input load and draw columns on
// different frames. Each frame's job schedule is recorded (`jobs` lines) and a replay hands it back to the
// streamer, which then integrates and submits exactly the same: after every frame the replay holds the same
// columns, the same world bytes and draws the same pixels as the recorded run, with another worker count. A
// schedule that asks for more than the world holds is refused as a divergence, naming the frame.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "play_test_util.h"
#include "voxen/core/hash.h"
#include "voxen/play/spawn.h"

namespace voxen::play::testing {
namespace {

/// What a frame left behind, compared run against replay.
struct FrameTrace {
  size_t loaded = 0, drawn = 0, gen_in_flight = 0, mesh_in_flight = 0;
  uint64_t world = 0;   // world_hash (every 8th frame: it reads every loaded cell)
  uint64_t pixels = 0;  // hash of the frame's pixels (rendered frames)
  bool operator==(const FrameTrace&) const = default;
};

uint64_t pixels_hash(const render::Image& img) {
  uint64_t h = 0x706978656C73ull;
  for (size_t i = 0; i < img.pixels.size(); i += 8) {
    uint64_t w = 0;
    for (size_t k = i; k < std::min(i + 8, img.pixels.size()); ++k) w = w << 8 | img.pixels[k];
    h = mix64(h ^ w);
  }
  return h;
}

FrameTrace trace(Game& g, const FrameReport& rep) {
  FrameTrace t;
  t.loaded = g.streamer().loaded_count();
  t.drawn = g.streamer().drawn_count();
  t.gen_in_flight = g.streamer().gen_in_flight();
  t.mesh_in_flight = g.streamer().mesh_in_flight();
  if (rep.frame % 8 == 0) t.world = world_hash(g.world());
  if (rep.rendered) t.pixels = pixels_hash(g.read_pixels());
  return t;
}

/// On the default world at render distance 6: standing on the spawn looking down, breaking the block in front at
/// frame 30 and placing one at frame 34, then flying north at 100 blocks/s from frame 38, turning at frame 70, so
/// the schedule meets edits, unloads and new columns.
Recording flight() {
  Recording rec;
  rec.header.seed = 42;
  rec.header.generator = "default";
  rec.header.render_distance = 6;
  rec.header.width = 64;
  rec.header.height = 36;
  auto gen = gen::make_generator(rec.header.generator, rec.header.seed, registry());
  EXPECT_TRUE(gen.ok());
  const std::optional<BlockPos> spawn = gen.ok() ? find_generated_spawn(**gen, registry(), 8, 8) : std::nullopt;
  EXPECT_TRUE(spawn.has_value());
  rec.header.start_block = spawn.value_or(BlockPos{8, 80, 8});
  rec.header.start_pitch = -70.0;
  rec.header.stream_live = true;
  rec.events = {{30, EventKind::kButtonDown, static_cast<int>(MouseButton::kLeft), 0, 0, 0},
                {31, EventKind::kButtonUp, static_cast<int>(MouseButton::kLeft), 0, 0, 0},
                {34, EventKind::kButtonDown, static_cast<int>(MouseButton::kRight), 0, 0, 0},
                {35, EventKind::kButtonUp, static_cast<int>(MouseButton::kRight), 0, 0, 0},
                {37, EventKind::kSetFly, 1, 0, 0, 0},
                {37, EventKind::kFlySpeed, 0, 100.0, 0, 0},
                {37, EventKind::kLook, 0, 0.0, -20.0, 0},
                {38, EventKind::kKeyDown, static_cast<int>(Key::kW), 0, 0, 0},
                {38, EventKind::kKeyDown, static_cast<int>(Key::kSpace), 0, 0, 0},
                {44, EventKind::kKeyUp, static_cast<int>(Key::kSpace), 0, 0, 0},
                {70, EventKind::kLook, 0, 60.0, -30.0, 0},
                {100, EventKind::kKeyUp, static_cast<int>(Key::kW), 0, 0, 0}};
  rec.frames = 110;
  rec.complete = true;
  return rec;
}

std::unique_ptr<PlaySession> open_live(const RecordingHeader& h, int threads) {
  SessionOptions so;
  so.window = false;
  so.threads = threads;
  auto s = PlaySession::open(h, so, registry());
  if (!s) {
    ADD_FAILURE() << "session: " << s.error().to_string();
    return nullptr;
  }
  EXPECT_FALSE((*s)->game().streamer().config().deterministic) << "a `stream live` header streams live";
  return std::move(*s);
}

TEST(LiveReplay, ARecordedLiveRunReplaysToTheSameColumnsWorldAndPixelsEveryFrame) {
  Recording rec = flight();
  // The live run, two workers, frames of a few milliseconds (a renderer's pace): its schedule is recorded.
  std::vector<FrameTrace> live;
  int not_prefix = 0, edits = 0;
  {
    auto s = open_live(rec.header, 2);
    ASSERT_TRUE(s);
    Game& g = s->game();
    const RunResult r = run_events(g, rec.events, rec.frames, 1, true, [&](const FrameReport& rep) {
      live.push_back(trace(g, rep));
      if (!rep.stream.schedule.empty()) rec.schedules[rep.frame] = rep.stream.schedule;
      const auto& in = rep.stream.schedule.integrated;
      for (size_t i = 0; i < in.size(); ++i) not_prefix += in[i] != i;
      edits += rep.edits_applied - rep.sim_changes;  // the player's own edits (the simulation's come on top)
      if (rep.frame % 3 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
      return true;
    });
    ASSERT_TRUE(r.failures.empty()) << r.failures.front();
  }
  ASSERT_EQ(live.size(), rec.frames);
  EXPECT_EQ(edits, 2) << "standing on the spawn, the player breaks a block and places one";
  EXPECT_GT(live.back().drawn, 20u) << "the view was not loaded";
  ASSERT_GT(rec.schedules.size(), 10u);
  // The file format in the loop.
  const std::string path = temp_dir("live_replay") + "/live.rec";
  ASSERT_TRUE(write_recording(path, rec).ok());
  auto back = read_recording(path);
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  ASSERT_EQ(back->schedules, rec.schedules);

  // The replay, one worker and no pause between frames: the same trace frame by frame.
  auto s = open_live(back->header, 1);
  ASSERT_TRUE(s);
  Game& g = s->game();
  size_t frame = 0, differ = 0;
  const RunResult r = run_events(
      g, back->events, back->frames, 1, true,
      [&](const FrameReport& rep) {
        const FrameTrace t = trace(g, rep);
        if (frame < live.size() && !(t == live[frame]) && differ++ < 3)
          ADD_FAILURE() << "frame " << frame << ": replay holds " << t.loaded << " loaded / " << t.drawn << " drawn, world "
                        << t.world << ", pixels " << t.pixels << "; the live run " << live[frame].loaded << " / "
                        << live[frame].drawn << ", " << live[frame].world << ", " << live[frame].pixels;
        EXPECT_EQ(rep.stream.schedule, back->schedules.count(rep.frame) ? back->schedules.at(rep.frame) : stream::FrameSchedule{});
        ++frame;
        return true;
      },
      &back->schedules);
  EXPECT_TRUE(r.failures.empty()) << r.failures.front();
  EXPECT_EQ(frame, live.size());
  EXPECT_EQ(differ, 0u);
  // Informational: how often the live run integrated out of submission order (the pool runs by priority).
  std::printf("live run: %zu frames with a schedule, %d jobs integrated out of submission order\n", rec.schedules.size(), not_prefix);
}

TEST(LiveReplay, AScheduleTheWorldCannotFollowIsADivergenceNamingTheFrame) {
  Recording rec = flight();
  rec.frames = 20;
  // Frame 0 submits a thousand generation jobs: far more columns than render distance 3 wants.
  rec.schedules[0] = stream::FrameSchedule{{}, 1000, 0};
  auto s = open_live(rec.header, 1);
  ASSERT_TRUE(s);
  RunResult r = run_events(s->game(), rec.events, rec.frames, 1, true, nullptr, &rec.schedules);
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_EQ(r.failed_frame, 0u);
  EXPECT_NE(r.failures[0].find("frame 0: streaming: replay diverged from its recording at frame 0: it submits 1000 generation"),
            std::string::npos)
      << r.failures[0];
  // More jobs in flight than live streaming ever holds (a schedule that submits and never integrates would reach it
  // frame by frame, its memory growing with the frames): refused at once.
  rec.schedules.clear();
  rec.schedules[3] = stream::FrameSchedule{{}, 16000, 1000};
  auto s1 = open_live(rec.header, 1);
  ASSERT_TRUE(s1);
  r = run_events(s1->game(), rec.events, rec.frames, 1, true, nullptr, &rec.schedules);
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_EQ(r.failed_frame, 3u);
  EXPECT_NE(r.failures[0].find("it would hold 17000 jobs in flight, more than live streaming ever does (16384)"),
            std::string::npos)
      << r.failures[0];
  // Integrating a job that was never submitted.
  rec.schedules.clear();
  rec.schedules[5] = stream::FrameSchedule{{0}, 0, 0};
  auto s2 = open_live(rec.header, 1);
  ASSERT_TRUE(s2);
  r = run_events(s2->game(), rec.events, rec.frames, 1, true, nullptr, &rec.schedules);
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_EQ(r.failed_frame, 5u);
  EXPECT_NE(r.failures[0].find("it integrates job #0 but only 0 jobs are in flight"), std::string::npos) << r.failures[0];
}

}  // namespace
}  // namespace voxen::play::testing
