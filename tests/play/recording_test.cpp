// Input recordings and the input handler: the file format reads back bit for bit, bad files are refused with the
// file and line named, a file cut short (a crash) still reads, and the handler's rules (key repeats, the capturing
// click, the Space double tap, the hotbar) hold.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include "voxen/play/input.h"
#include "voxen/play/recording.h"
#include "run_command.h"

namespace voxen::play {
namespace {

Recording sample() {
  Recording r;
  r.header.seed = 18446744073709551615ull;
  r.header.generator = "flat";
  r.header.render_distance = 3;
  r.header.width = 96;
  r.header.height = 54;
  r.header.fov = 72.5;
  r.header.step = 1.0 / 60.0;
  r.header.stream_lag = 2;
  r.header.stream_gen = 5;
  r.header.stream_mesh = 7;
  r.header.start_block = {-1099511627776, 70, 42};
  r.header.start_frac = {0.1, 0.0, 0.9999999999999999};
  r.header.start_yaw = -33.3;
  r.header.start_pitch = 12.25;
  r.header.start_flying = true;
  auto ev = [&](uint64_t f, EventKind k, int code, double x, double y, double z) {
    r.events.push_back(InputEvent{f, k, code, x, y, z});
  };
  ev(0, EventKind::kKeyDown, static_cast<int>(Key::kW), 0, 0, 0);
  ev(0, EventKind::kMouseMove, 0, 0.1 + 0.2, -1.0 / 3.0, 0);
  ev(3, EventKind::kButtonDown, static_cast<int>(MouseButton::kRight), 0, 0, 0);
  ev(3, EventKind::kScroll, 0, 0, -2.0, 0);
  ev(4, EventKind::kFrameTime, 0, 0.016667, 0, 0);
  ev(5, EventKind::kTeleport, 0, 1e15 + 0.5, -100.25, std::nextafter(3.0, 4.0));
  ev(5, EventKind::kLook, 0, 359.99999, -89.9, 0);
  ev(6, EventKind::kSetFly, 1, 0, 0, 0);
  ev(6, EventKind::kFlySpeed, 0, 112.0, 0, 0);
  ev(7, EventKind::kKeyDown, static_cast<int>(Key::kB), 0, 0, 0);
  ev(8, EventKind::kBlast, kMaxBlastRadius, -4611686018427387904.0 + 0.5, -127.5, 17.25);
  ev(9, EventKind::kKeyUp, static_cast<int>(Key::k9), 0, 0, 0);
  r.frames = 12;
  r.complete = true;
  return r;
}

TEST(Recording, RoundTripsBitForBit) {
  const Recording r = sample();
  const std::string text = format_recording(r);
  auto back = parse_recording(text, "mem.rec");
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(back->header, r.header);
  EXPECT_EQ(back->events, r.events);
  EXPECT_EQ(back->frames, 12u);
  EXPECT_TRUE(back->complete);
  EXPECT_EQ(format_recording(*back), text);
}

TEST(Recording, LiveStreamingSchedulesRoundTripAfterTheirFramesEvents) {
  // A recording of live play (version 2): `stream live` in the header and each frame's job schedule on a `jobs`
  // line after the frame's events; it reads back to the same schedules and the same text. Without them the file is
  // still written as version 1 (older builds read it).
  Recording r = sample();
  // With the world simulation on (the default 20 ticks a second) the file is version 5: older builds would replay
  // it without the simulation. Without it, the version its other fields need.
  EXPECT_EQ(format_recording(r).rfind("voxen-input-recording 5\n", 0), 0u);
  EXPECT_NE(format_recording(r).find("\ntick_rate 20\n"), std::string::npos);
  r.header.tick_rate = 0;
  EXPECT_EQ(format_recording(r).rfind("voxen-input-recording 1\n", 0), 0u);
  r.header.stream_live = true;  // the deterministic fields are then not written: back to their defaults
  r.header.stream_lag = 1;
  r.header.stream_gen = 6;
  r.header.stream_mesh = 6;
  r.schedules[0] = stream::FrameSchedule{{}, 4, 0};
  r.schedules[3] = stream::FrameSchedule{{0, 2, 5}, 0, 7};
  r.schedules[11] = stream::FrameSchedule{{1}, 1, 1};
  const std::string text = format_recording(r);
  EXPECT_EQ(text.rfind("voxen-input-recording 2\n", 0), 0u) << text;
  EXPECT_NE(text.find("\nstream live\n"), std::string::npos) << text;
  EXPECT_NE(text.find("3 scroll -2\n3 jobs 0 7 0 2 5\n4 frame_time"), std::string::npos) << text;
  EXPECT_NE(text.find("11 jobs 1 1 1\nend 12\n"), std::string::npos) << text;
  auto back = parse_recording(text, "live.rec");
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(back->header, r.header);
  EXPECT_EQ(back->events, r.events);
  EXPECT_EQ(back->schedules, r.schedules);
  EXPECT_EQ(format_recording(*back), text);
  // Cut short after a `jobs` line past the last event: the frames covered reach it.
  auto cut = parse_recording(text.substr(0, text.rfind("end ")), "live.rec");
  ASSERT_TRUE(cut.ok()) << cut.error().to_string();
  EXPECT_EQ(cut->frames, 12u);
}

TEST(Recording, TheSkysClockIsVersion6) {
  // `sky HOURS DAY_MINUTES CLOUDS`: written (as version 6) only when it is not the default (10 o'clock, the clock
  // stopped, clouds on), so older builds still read recordings without it; reads back to the same header and text.
  Recording r = sample();
  EXPECT_EQ(format_recording(r).find("\nsky "), std::string::npos);
  r.header.time_of_day = 17.25;
  r.header.day_minutes = 20;
  r.header.clouds = false;
  const std::string text = format_recording(r);
  EXPECT_EQ(text.rfind("voxen-input-recording 6\n", 0), 0u) << text;
  EXPECT_NE(text.find("\nsky 17.25 20 0\n"), std::string::npos) << text;
  auto back = parse_recording(text, "sky.rec");
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(back->header, r.header);
  EXPECT_EQ(format_recording(*back), text);
}

TEST(Recording, FarViewRecordingsAreVersion3) {
  // A live recording with the far view (version 3): `far_distance D` in the header and, on a frame's `jobs` line,
  // `far N` when the far view integrated N results that frame (FarView::update's replay count). Reads back to the
  // same header, schedules and text; a frame that integrated nothing far keeps the version-2 line.
  Recording r = sample();
  r.header.tick_rate = 0;  // no world simulation: the version the far view needs
  r.header.stream_live = true;
  r.header.stream_lag = 1;
  r.header.stream_gen = 6;
  r.header.stream_mesh = 6;
  r.header.far_distance = 4096.5;
  r.schedules[0] = stream::FrameSchedule{{}, 4, 0, 0};
  r.schedules[3] = stream::FrameSchedule{{0, 2}, 0, 7, 12};
  r.schedules[11] = stream::FrameSchedule{{}, 0, 0, 16384};
  const std::string text = format_recording(r);
  EXPECT_EQ(text.rfind("voxen-input-recording 4\n", 0), 0u) << text;
  EXPECT_NE(text.find("\nfar_distance 4096.5\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\n0 jobs 4 0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\n3 jobs 0 7 0 2 far 12\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\n11 jobs 0 0 far 16384\nend 12\n"), std::string::npos) << text;
  auto back = parse_recording(text, "far.rec");
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(back->header, r.header);
  EXPECT_EQ(back->schedules, r.schedules);
  EXPECT_EQ(format_recording(*back), text);
}

TEST(Recording, ACutShortFileStillReads) {
  const Recording r = sample();
  std::string text = format_recording(r);
  text = text.substr(0, text.rfind("end "));  // a crash: no end line
  auto back = parse_recording(text, "crash.rec");
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_FALSE(back->complete);
  EXPECT_EQ(back->frames, 10u);  // the last event's frame + 1
  EXPECT_EQ(back->events.size(), r.events.size());
}

struct BadCase {
  std::string text;
  std::string expect;  // substring of the error, which starts with "bad.rec:LINE:"
};

TEST(Recording, BadFilesNameTheLine) {
  const std::string head =
      "voxen-input-recording 1\nseed 1\ngenerator flat\nrender_distance 2\nsize 64x36\nstart 0 1 0 0.5 0 0.5 0 0 0\n";
  const std::string live =
      "voxen-input-recording 2\nseed 1\ngenerator flat\nrender_distance 2\nsize 64x36\nstream live\nstart 0 1 0 0.5 0 0.5 0 0 0\n";
  const std::string far =
      "voxen-input-recording 4\nseed 1\ngenerator flat\nrender_distance 2\nsize 64x36\nstream live\nstart 0 1 0 0.5 0 0.5 0 0 0\n";
  const BadCase cases[] = {
      {"", "empty file"},
      {"hello\n", "bad.rec:1: not a voxen input recording"},
      {"voxen-input-recording 7\n", "bad.rec:1: recording format version 7 is not supported (this voxen reads versions 1 to 6)"},
      {"voxen-input-recording 5\nseed 1\nsky 12 20 1\n", "bad.rec:3: 'sky' needs recording format version 6"},
      {"voxen-input-recording 6\nsky 25 20 1\n", "bad.rec:2: sky: time of day '25' must be 0..24 hours"},
      {"voxen-input-recording 6\nsky 12 -1 1\n", "bad.rec:2: sky: day length '-1' must be 0..100000 minutes"},
      {"voxen-input-recording 6\nsky 12 20 yes\n", "bad.rec:2: sky: clouds 'yes' must be 1 (on) or 0 (off)"},
      {"voxen-input-recording 6\nsky 12 20\n", "bad.rec:2: 'sky' takes 3 values"},
      {"voxen-input-recording 6\nsky 12 20 1\nsky 12 20 1\n", "bad.rec:3: duplicate header field 'sky'"},
      {"voxen-input-recording 4\nseed 1\ntick_rate 20\n", "bad.rec:3: 'tick_rate' needs recording format version 5"},
      {"voxen-input-recording 3\nfar_distance 4096\n",
       "bad.rec:2: a far view recorded in format version 3 counts the far view's jobs from before real columns"},
      {live + "far_distance 4096\n", "bad.rec:8: 'far_distance' needs recording format version 3"},
      {live + "0 jobs 1 0 far 2\n", "bad.rec:8: 'jobs': 'far' needs recording format version 3"},
      {far + "far_distance -1\n", "bad.rec:8: far_distance '-1' must be 0..65536 blocks"},
      {far + "far_distance 1e9\n", "bad.rec:8: far_distance '1e9' must be 0..65536 blocks"},
      {far + "0 jobs 1 0 far 16385\n", "bad.rec:8: 'jobs': far '16385' is not a number 0..16384"},
      {far + "0 jobs 1 0 far -2\n", "bad.rec:8: 'jobs': far '-2' is not a number 0..16384"},
      {far + "0 jobs 1 0 far\n", "bad.rec:8: 'jobs': position 'far' is not a number"},
      {far + "5 jobs 1 2 far 3 4\n", "bad.rec:8: 'jobs': 'far N' must end the line"},
      {"voxen-input-recording 1\nstream live\n", "bad.rec:2: 'stream live' needs recording format version 2"},
      {head + "0 jobs 1 0\n", "bad.rec:7: 'jobs' line in a recording whose streaming is not 'stream live'"},
      {live + "0 jobs 1\n", "bad.rec:8: 'jobs' takes GEN MESH"},
      {live + "0 jobs 1 2 3 3\n", "bad.rec:8: 'jobs': positions must ascend"},
      {live + "0 jobs 1 2 -3\n", "bad.rec:8: 'jobs': position '-3' is not a number below 16384"},
      {live + "0 jobs 1 2 16384\n", "bad.rec:8: 'jobs': position '16384' is not a number below 16384"},
      {live + "0 jobs 16385 0\n", "bad.rec:8: 'jobs' takes GEN MESH (each 0..16384)"},
      {live + "0 jobs 0 0" + [] {
         std::string many;
         for (int i = 0; i < 16387; ++i) many += " " + std::to_string(i);
         return many;
       }() + "\n", "bad.rec:8: more than 16390 words on one line"},
      {live + "0 jobs 1 0\n0 jobs 1 0\n", "bad.rec:9: a second 'jobs' line for frame 0"},
      {live + "0 jobs 1 0\n0 key_down w\n", "bad.rec:9: event after frame 0's 'jobs' line"},
      {live + "5 jobs 1 0\n4 key_up w\n", "bad.rec:9: frame 4 comes after frame 5"},
      {live + "5 jobs 1 0\nend 5\n", "bad.rec:9: 'end 5' does not cover the last frame with a record, 5"},
      {"voxen-input-recording 1\nseed -4\n", "bad.rec:2: seed '-4'"},
      {"voxen-input-recording 1\nsize 64by36\n", "bad.rec:2: size"},
      {"voxen-input-recording 1\nrender_distance 99\n", "bad.rec:2: render_distance"},
      {"voxen-input-recording 1\nstart 0 1 0 1.5 0 0.5 0 0 0\n", "bad.rec:2: start: fractions"},
      {"voxen-input-recording 1\ncolour blue\n", "bad.rec:2: unknown header field 'colour'"},
      {"voxen-input-recording 1\n0 key_down w\n", "bad.rec:2: frame record before the 'start' line"},
      {head + "0 key_down q\n", "bad.rec:7: unknown key 'q'"},
      {head + "0 jump\n", "bad.rec:7: unknown event kind 'jump'"},
      {head + "0 mouse 1\n", "bad.rec:7: 'mouse' takes 2 arguments"},
      {head + "0 mouse 1 nan\n", "bad.rec:7: 'mouse': 'nan' is not a finite number"},
      {head + "0 button_down thumb\n", "bad.rec:7: unknown mouse button 'thumb'"},
      {head + "5 key_down w\n4 key_up w\n", "bad.rec:8: frame 4 comes after frame 5"},
      {head + "5 key_down w\nend 3\n", "bad.rec:8: 'end 3' does not cover"},
      {head + "end 3\n0 key_down w\n", "bad.rec:8: text after the 'end' line"},
      {head + "0 key_down w\nseed 3\n", "bad.rec:8: header field 'seed' after the first event"},
      {head + "0 set_fly 2\n", "bad.rec:7: 'set_fly' takes 0 or 1"},
      {head + "0 frame_time 5\n", "bad.rec:7: 'frame_time' must be 0..1 seconds"},
      {head + "0 blast 1 2 3\n", "bad.rec:7: 'blast' takes 4 arguments"},
      {head + "0 blast 1 2 3 0\n", "bad.rec:7: 'blast': radius '0' must be a whole number 1..32"},
      {head + "0 blast 1 2 3 33\n", "bad.rec:7: 'blast': radius '33' must be a whole number 1..32"},
      {head + "0 blast 1 2 3 2.5\n", "bad.rec:7: 'blast': radius '2.5' must be a whole number 1..32"},
      {head + "0 blast 1 inf 3 2\n", "bad.rec:7: 'blast': 'inf' is not a finite number"},
      {head + "0 blast 1 9999 3 2\n", "bad.rec:7: 'blast': y is too far outside the world"},
      {head + "0 blast 1e19 2 3 2\n", "bad.rec:7: 'blast': x and z must be within -2^62..2^62 blocks"},
      {"voxen-input-recording 1\nseed 1\n", "no 'start' line"},
  };
  for (const BadCase& c : cases) {
    auto r = parse_recording(c.text, "bad.rec");
    ASSERT_FALSE(r.ok()) << "accepted: " << c.text;
    EXPECT_NE(r.error().to_string().find(c.expect), std::string::npos) << r.error().to_string() << "\nexpected: " << c.expect;
  }
}

// Values that parse as numbers but that the world or the frame loop cannot take, repeated header fields, and
// tokens long enough to flood an error message.
TEST(Recording, HostileValuesAreRefusedNamingTheLine) {
  const std::string head =
      "voxen-input-recording 1\nseed 1\ngenerator flat\nrender_distance 2\nsize 64x36\nstart 0 1 0 0.5 0 0.5 0 0 0\n";
  const BadCase cases[] = {
      {head + "0 teleport 1e300 70 0\n", "bad.rec:7: 'teleport': x and z must be within -2^62..2^62"},
      {head + "0 teleport 0 70 -1e19\n", "bad.rec:7: 'teleport': x and z must be within -2^62..2^62"},
      {head + "0 teleport 4611686018427388928 70 0\n", "bad.rec:7: 'teleport': x and z"},  // 2^62 + 1024
      {head + "0 teleport nan 70 0\n", "bad.rec:7: 'teleport': 'nan' is not a finite number"},
      {head + "0 teleport 0 70 inf\n", "bad.rec:7: 'teleport': 'inf' is not a finite number"},
      {head + "end 10000001\n", "bad.rec:7: 'end 10000001' is more than the 10000000 frames"},
      {head + "end 18446744073709551615\n", "bad.rec:7: 'end 18446744073709551615' is more than the 10000000"},
      {head + "10000000 key_down w\n", "bad.rec:7: frame 10000000 is past the 10000000 frames"},
      {head + "18446744073709551615 key_down w\n", "bad.rec:7: frame 18446744073709551615 is past"},
      {head + "-1 key_down w\n", "bad.rec:7: frame '-1' is negative"},
      {"voxen-input-recording 1\n-5 key_down w\n", "bad.rec:2: frame '-5' is negative"},
      {"voxen-input-recording 1\nseed 1\nseed 2\n", "bad.rec:3: duplicate header field 'seed' (first given on line 2)"},
      {"voxen-input-recording 1\ngenerator flat\n# c\ngenerator default\n", "bad.rec:4: duplicate header field 'generator' (first given on line 2)"},
      {head + "start 0 1 0 0.5 0 0.5 0 0 0\n", "bad.rec:7: duplicate header field 'start' (first given on line 6)"},
      {"voxen-input-recording 1\nsize 64x36\nsize 64x36\n", "bad.rec:3: duplicate header field 'size'"},
      {"voxen-input-recording 1\nstart 4611686018427387905 1 0 0.5 0 0.5 0 0 0\n", "bad.rec:2: start: x and z must be within -2^62..2^62"},
      {"voxen-input-recording 1\ngenerator fl/at\n", "bad.rec:2: generator 'fl/at' is not a generator name"},
  };
  for (const BadCase& c : cases) {  // every case reported, not only the first that fails
    auto r = parse_recording(c.text, "bad.rec");
    EXPECT_FALSE(r.ok()) << "accepted: " << c.text;
    if (!r.ok()) {
      EXPECT_NE(r.error().to_string().find(c.expect), std::string::npos) << r.error().to_string() << "\nexpected: " << c.expect;
    }
  }
  // The bounds themselves are fine: 2^62 exactly, the last frame, `end` at the cap.
  auto ok = parse_recording(head + "9999999 teleport 4611686018427387904 70 -4611686018427387904\nend 10000000\n", "ok.rec");
  ASSERT_TRUE(ok.ok()) << ok.error().to_string();
  EXPECT_EQ(ok->frames, kMaxRecordingFrames);
  EXPECT_EQ(ok->events.at(0).x, kMaxTeleportCoord);
}

TEST(Recording, LongTokensAreQuotedCutShort) {
  const std::string head =
      "voxen-input-recording 1\nseed 1\ngenerator flat\nrender_distance 2\nsize 64x36\nstart 0 1 0 0.5 0 0.5 0 0 0\n";
  const std::string huge(100000, 'q');
  const std::string texts[] = {
      head + "0 key_down " + huge + "\n",       // unknown key
      head + "0 " + huge + "\n",                // unknown event kind
      head + "0 mouse 1 " + huge + "\n",        // not a number
      "voxen-input-recording 1\n" + huge + " 1\n",  // unknown header field
      "voxen-input-recording 1\nseed " + huge + "\n",
      "voxen-input-recording 1\ngenerator " + huge + "\n",
      head + "0 key_down w\n" + huge + "\n",    // header field after the first event
  };
  for (const std::string& t : texts) {
    auto r = parse_recording(t, "long.rec");
    EXPECT_FALSE(r.ok());
    if (r.ok()) continue;
    const std::string msg = r.error().to_string();
    EXPECT_LT(msg.size(), 240u) << msg.substr(0, 300);
    EXPECT_NE(msg.find(std::string(kMaxQuotedToken, 'q') + "...' (100000 characters)"), std::string::npos) << msg.substr(0, 300);
  }
}

TEST(Recording, OnlyRegularFilesOfBoundedSizeAreRead) {
  const std::string dir = ::testing::TempDir() + "/voxen_rec_files_" + std::to_string(::getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir + "/a_dir.rec");
  auto d = read_recording(dir + "/a_dir.rec");
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error().to_string().find(dir + "/a_dir.rec: is a directory"), std::string::npos) << d.error().to_string();
  // /dev/zero never ends: refused by its type before a byte is read.
  auto z = read_recording("/dev/zero");
  ASSERT_FALSE(z.ok());
  EXPECT_NE(z.error().to_string().find("/dev/zero: is not a regular file"), std::string::npos) << z.error().to_string();
  // A (sparse) file one byte over the cap: refused by its size, not read.
  const std::string big = dir + "/big.rec";
  std::ofstream(big) << "voxen-input-recording 1\n";
  std::filesystem::resize_file(big, kMaxRecordingBytes + 1);
  auto b = read_recording(big);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().to_string().find(big + ": the recording is 1073741825 bytes"), std::string::npos) << b.error().to_string();
  // The real file still reads.
  const std::string good = dir + "/good.rec";
  ASSERT_TRUE(write_recording(good, sample()).ok());
  auto g = read_recording(good);
  ASSERT_TRUE(g.ok()) << g.error().to_string();
  EXPECT_EQ(g->events, sample().events);
  std::filesystem::remove_all(dir);
}

TEST(Recording, ReplayOfANonRegularFileFailsFastNamingIt) {
  const std::string dir = ::testing::TempDir() + "/voxen_rec_cli_" + std::to_string(::getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir + "/x.rec");
  auto r = voxen::testing::run_voxen({"replay", dir + "/x.rec", "--headless"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(dir + "/x.rec: is a directory"), std::string::npos) << r.err;
  EXPECT_EQ(voxen::testing::line_count(r.err), 1) << r.err;
  auto z = voxen::testing::run_voxen({"replay", "/dev/zero", "--headless"});
  EXPECT_EQ(z.exit_code, 1);
  EXPECT_NE(z.err.find("/dev/zero: is not a regular file"), std::string::npos) << z.err;
  std::filesystem::remove_all(dir);
}

InputEvent key(Key k, bool down, uint64_t f = 0) {
  return {f, down ? EventKind::kKeyDown : EventKind::kKeyUp, static_cast<int>(k), 0, 0, 0};
}

TEST(InputHandler, KeyRepeatsAndReleases) {
  InputHandler h;
  h.handle(key(Key::kW, true));
  h.handle(key(Key::kW, true));  // a repeat: still held, nothing more
  EXPECT_TRUE(h.controls().held_key(Key::kW));
  h.handle(key(Key::kW, false));
  EXPECT_FALSE(h.controls().held_key(Key::kW));
  h.handle(key(Key::kF, true));
  h.handle(key(Key::kF, true));  // a repeat of F must not toggle flying twice
  EXPECT_TRUE(h.take_requests().toggle_fly);
}

TEST(InputHandler, SpaceDoubleTapTogglesFlyingWithinTheWindow) {
  InputHandler h;
  h.begin_frame(0, 0.0);
  h.handle(key(Key::kSpace, true));
  h.handle(key(Key::kSpace, false));
  h.begin_frame(10, 10.0 / 60.0);
  h.handle(key(Key::kSpace, true));
  EXPECT_TRUE(h.take_requests().toggle_fly);
  h.handle(key(Key::kSpace, false));
  h.begin_frame(60, 1.0);  // a third press long after: no toggle
  h.handle(key(Key::kSpace, true));
  h.handle(key(Key::kSpace, false));
  h.begin_frame(100, 100.0 / 60.0);  // and a fourth 0.67 s later: outside the 0.3 s window
  h.handle(key(Key::kSpace, true));
  EXPECT_FALSE(h.take_requests().toggle_fly);
}

TEST(InputHandler, TheCapturingClickDoesNothingElse) {
  InputHandler h;
  h.handle(key(Key::kEscape, true));
  EXPECT_FALSE(h.controls().cursor_captured);
  h.handle({0, EventKind::kMouseMove, 0, 100.0, 0.0, 0.0});  // released: no look change
  EXPECT_EQ(h.controls().yaw, 0.0);
  h.handle({0, EventKind::kButtonDown, static_cast<int>(MouseButton::kLeft), 0, 0, 0});
  EXPECT_TRUE(h.controls().cursor_captured);
  EXPECT_EQ(h.take_requests().breaks, 0);
  h.handle({0, EventKind::kButtonUp, static_cast<int>(MouseButton::kLeft), 0, 0, 0});
  h.handle({0, EventKind::kButtonDown, static_cast<int>(MouseButton::kLeft), 0, 0, 0});
  EXPECT_EQ(h.take_requests().breaks, 1);
  h.handle({0, EventKind::kMouseMove, 0, 100.0, -1000.0, 0.0});
  EXPECT_DOUBLE_EQ(h.controls().yaw, 15.0);
  EXPECT_DOUBLE_EQ(h.controls().pitch, 89.9);  // clamped
}

TEST(InputHandler, HotbarByKeysAndWheel) {
  InputHandler h;
  h.handle(key(Key::k7, true));
  EXPECT_EQ(h.controls().slot, 6);
  h.handle({0, EventKind::kScroll, 0, 0.0, -1.0, 0.0});
  EXPECT_EQ(h.controls().slot, 7);
  h.handle({0, EventKind::kScroll, 0, 0.0, -1.0, 0.0});
  h.handle({0, EventKind::kScroll, 0, 0.0, -1.0, 0.0});
  EXPECT_EQ(h.controls().slot, 0);  // wraps
  h.handle({0, EventKind::kScroll, 0, 0.0, 1.0, 0.0});
  EXPECT_EQ(h.controls().slot, 8);
}

TEST(InputHandler, IgnoresOutOfRangeAndNonFiniteEvents) {
  InputHandler h;
  h.handle({0, EventKind::kKeyDown, 999, 0, 0, 0});
  h.handle({0, EventKind::kMouseMove, 0, std::numeric_limits<double>::quiet_NaN(), 0, 0});
  h.handle({0, EventKind::kFrameTime, 0, -1.0, 0, 0});
  EXPECT_EQ(h.controls().held.count(), 0u);
  EXPECT_EQ(h.controls().yaw, 0.0);
  EXPECT_DOUBLE_EQ(h.controls().frame_seconds, 1.0 / 60.0);
}

}  // namespace
}  // namespace voxen::play
