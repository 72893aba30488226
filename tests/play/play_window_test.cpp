// `voxen play` itself, the windowed game, run through the real binary in a GLFW window under Xvfb (software GL):
// it opens, streams, draws and quits after --frames; the last frame (--final-screenshot) shows terrain below sky,
// and the HUD's status line tells the player whether edits are saved: "EPHEMERAL WORLD" without --world, the
// world's directory with it (and the world then exists on disk); frames while the window is minimised (the
// --minimised-frames hook) are not drawn and the frame after the restore is the one of a run never minimised; live
// play records its job schedule and replays to one world whatever the worker count; with --connect it plays a
// `voxen serve` process's world (the status line names the server and counts its players, the server saw it join
// and leave), and its bad arguments exit 2 before any window opens; one line says whether there is sound
// (--no-audio, VOXEN_AUDIO=off, no device).
// Skipped where xvfb-run is not installed.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <unistd.h>

#include "../import/anvil_builder.h"
#include "hud_reader.h"
#include "play_test_util.h"
#include "run_command.h"
#include "spawn_process.h"
#include "voxen/render/image.h"

namespace voxen::play::testing {
namespace {

using voxen::testing::run_voxen;

const char* kXvfb = "xvfb-run -a -s '-screen 0 800x600x24'";

bool have_xvfb() { return std::system("command -v xvfb-run >/dev/null 2>&1") == 0; }

/// Runs `voxen play` for `frames` frames in a 480 x 200 window (HUD unit 1 pixel) and returns the final frame;
/// its standard output goes to `out` when given.
render::Image play_frames(const std::string& dir, const std::vector<std::string>& extra, int frames = 40,
                          std::string* out = nullptr) {
  const std::string shot = dir + "/last.png";
  std::vector<std::string> args = {"play", "--size", "480x200", "--render-distance", "2", "--frames", std::to_string(frames),
                                   "--fps", "240", "--threads", "1", "--final-screenshot", shot};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = run_voxen(args, kXvfb);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  if (out) *out = r.out;
  auto img = render::load_png(shot);
  EXPECT_TRUE(img.ok()) << (img.ok() ? "" : img.error().to_string());
  return img.ok() ? std::move(img).value() : render::Image{};
}

/// Share of the frame's bottom half that is not the sky's blue (terrain drawn where the player looks down on it).
double ground_share(const render::Image& img) {
  size_t ground = 0, total = 0;
  for (int y = img.height / 2; y < img.height; ++y)
    for (int x = 0; x < img.width; ++x) {
      const uint8_t* p = &img.pixels[(static_cast<size_t>(y) * static_cast<size_t>(img.width) + static_cast<size_t>(x)) * 4];
      ++total;
      ground += !(p[2] > p[0] + 30 && p[2] > p[1]);  // the sky is clearly bluer than red and at least as blue as green
    }
  return total ? static_cast<double>(ground) / static_cast<double>(total) : 0.0;
}

/// The lines of `out` that start with `prefix`.
std::vector<std::string> lines_starting(const std::string& out, const std::string& prefix) {
  std::vector<std::string> lines;
  size_t at = 0;
  while (at < out.size()) {
    const size_t end = out.find('\n', at);
    const std::string line = out.substr(at, end == std::string::npos ? std::string::npos : end - at);
    if (line.rfind(prefix, 0) == 0) lines.push_back(line);
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return lines;
}

TEST(PlayWindow, OneLineSaysWhetherThereIsSound) {
  if (!have_xvfb()) GTEST_SKIP() << "xvfb-run is not installed (scripts/install-deps.sh installs xvfb)";
  const std::vector<std::string> args = {"play", "--size", "480x200", "--render-distance", "1", "--frames", "3",
                                         "--threads", "1", "--far-distance", "0", "--generator", "flat"};
  auto no_audio = args;
  no_audio.push_back("--no-audio");
  const auto asked = run_voxen(no_audio, kXvfb);
  ASSERT_EQ(asked.exit_code, 0) << asked.out << asked.err;
  EXPECT_EQ(lines_starting(asked.out, "voxen play: audio"), std::vector<std::string>{"voxen play: audio off (--no-audio)"}) << asked.out;
  const auto env = run_voxen(args, std::string("VOXEN_AUDIO=off ") + kXvfb);
  ASSERT_EQ(env.exit_code, 0) << env.out << env.err;
  EXPECT_EQ(lines_starting(env.out, "voxen play: audio"), std::vector<std::string>{"voxen play: audio off (VOXEN_AUDIO=off)"}) << env.out;
  // Whatever this machine has: one line, naming the OpenAL device or saying no device was found; play goes on.
  const auto plain = run_voxen(args, kXvfb);
  ASSERT_EQ(plain.exit_code, 0) << plain.out << plain.err;
  const auto said = lines_starting(plain.out, "voxen play: audio");
  ASSERT_EQ(said.size(), 1u) << plain.out;
  EXPECT_TRUE(said[0] == "voxen play: audio off: no audio device found" || said[0].rfind("voxen play: audio: OpenAL Soft on '", 0) == 0) << said[0];
}

TEST(PlayWindow, WithoutAWorldTheHudSaysEditsAreNotSaved) {
  if (!have_xvfb()) GTEST_SKIP() << "xvfb-run is not installed (scripts/install-deps.sh installs xvfb)";
  const std::string dir = temp_dir("window_ephemeral");
  // Streaming counted in frames (--stream deterministic): live streaming follows the wall clock, and on a loaded
  // machine 40 frames at 240 fps had streamed too few columns for the ground check (a CI run saw 6% ground).
  const render::Image img = play_frames(dir, {"--seed", "3", "--generator", "flat", "--stream", "deterministic"});
  ASSERT_EQ(img.width, 480);
  ASSERT_EQ(img.height, 200);
  EXPECT_EQ(read_status_line(img), "EPHEMERAL WORLD: EDITS ARE NOT SAVED");
  EXPECT_GT(ground_share(img), 0.5) << "the flat world's ground should fill most of the lower half";
}

TEST(PlayWindow, WithAWorldTheHudNamesItAndTheWorldIsCreated) {
  if (!have_xvfb()) GTEST_SKIP() << "xvfb-run is not installed (scripts/install-deps.sh installs xvfb)";
  const std::string dir = temp_dir("window_saved");
  // The HUD draws lower case as capitals and has no glyph for '_': a world path of letters, digits and '/'.
  const std::string world = (std::filesystem::temp_directory_path() / ("vxplay" + std::to_string(::getpid())) / "w").string();
  std::filesystem::remove_all(std::filesystem::path(world).parent_path());
  const render::Image img = play_frames(dir, {"--seed", "3", "--generator", "flat", "--world", world});
  std::string expect = "WORLD " + world + ": ALL EDITS SAVED";  // nothing edited, so nothing waits to be saved
  for (char& c : expect) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  EXPECT_EQ(read_status_line(img), expect);
  EXPECT_TRUE(std::filesystem::exists(world + "/voxen.toml"));
  // The created world keeps its seed: a probe through it reads the flat world's ground.
  const auto probe = run_voxen({"probe", "--world", world, "--at", "0,0,0"});
  EXPECT_EQ(probe.exit_code, 0) << probe.err;
}

// An imported world (voxen import-anvil) has no generator: play draws it to the render distance and nothing beyond (the
// far view, on by default, would draw a "flat" generator's terrain that is not there), and says what it opened.
TEST(PlayWindow, AnImportedWorldShowsNoInventedTerrainBeyondIt) {
  if (!have_xvfb()) GTEST_SKIP() << "xvfb-run is not installed (scripts/install-deps.sh installs xvfb)";
  const std::string dir = temp_dir("window_imported");
  // One Minecraft chunk at (0, 0): stone from y 0 to 63.
  std::vector<voxen::testing::TestSection> sections;
  for (int y = 0; y < 4; ++y) sections.push_back({y, {"minecraft:stone"}, {}});
  const auto nbt = voxen::testing::chunk_nbt(2865, 0, 0, "minecraft:full", sections, false);
  voxen::testing::write_file(dir + "/mc/region/r.0.0.mca",
                             voxen::testing::region_bytes({{0, 2, voxen::testing::compress_chunk(nbt, 2)}}));
  const std::string world = dir + "/w";
  const auto imp = run_voxen({"import-anvil", dir + "/mc", "--world", world});
  ASSERT_EQ(imp.exit_code, 0) << imp.err;
  std::string out;
  const auto r = run_voxen({"play", "--size", "480x200", "--render-distance", "2", "--frames", "30", "--fps", "240",
                            "--threads", "1", "--world", world, "--spawn", "8,8", "--stream", "deterministic",
                            "--final-screenshot", dir + "/last.png"},
                           kXvfb);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("imported world, no generator"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("no far view"), std::string::npos) << r.err;
  auto img = render::load_png(dir + "/last.png");
  ASSERT_TRUE(img.ok());
  // Standing on a 16 x 16 island looking at the horizon: the island's far edge is 8 blocks away, so the rows just below
  // the horizon show the void beyond it (sky colour), not a plain running to the fog.
  size_t sky = 0, total = 0;
  for (int y = img->height / 2 + 2; y < img->height / 2 + 20; ++y)
    for (int x = 0; x < img->width; ++x) {
      const uint8_t* p = &img->pixels[(static_cast<size_t>(y) * static_cast<size_t>(img->width) + static_cast<size_t>(x)) * 4];
      ++total;
      sky += p[2] > p[0] + 30 && p[2] > p[1];
    }
  EXPECT_GT(static_cast<double>(sky) / static_cast<double>(total), 0.9) << "terrain drawn beyond the imported chunk";
}

TEST(PlayWindow, LivePlayRecordsItsScheduleAndReplaysToOneWorldWhateverTheWorkers) {
  if (!have_xvfb()) GTEST_SKIP() << "xvfb-run is not installed (scripts/install-deps.sh installs xvfb)";
  // `voxen play` streams live and --record keeps each frame's job schedule: the file says `stream live` and has
  // `jobs` lines, and `voxen replay` follows them to the same world with one worker as with three. The far view is
  // on by default (4,096 blocks): the file is version 3, its `jobs` lines say how many far-view nodes each frame
  // integrated, and the replays' last frames, far view included, are the same picture.
  const std::string dir = temp_dir("window_live_record");
  const std::string rec = dir + "/live.rec";
  play_frames(dir, {"--seed", "5", "--record", rec}, 30);  // render distance 2
  std::ifstream in(rec);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // 6: play's sky clock runs (a 20-minute day from 10 o'clock: the `sky` line); the world simulates (5).
  EXPECT_EQ(text.rfind("voxen-input-recording 6\n", 0), 0u) << text.substr(0, 200);
  EXPECT_NE(text.find("\nsky 10 20 1\n"), std::string::npos);
  EXPECT_NE(text.find("\nfar_distance 4096\n"), std::string::npos);
  EXPECT_NE(text.find("\ntick_rate 20\n"), std::string::npos);
  EXPECT_NE(text.find("\nstream live\n"), std::string::npos);
  EXPECT_NE(text.find(" jobs "), std::string::npos) << "no frame's schedule was recorded";
  EXPECT_NE(text.find(" far "), std::string::npos) << "no frame integrated far-view nodes";
  std::string hashes[2], frames[2];
  for (int i = 0; i < 2; ++i) {
    const auto r = run_voxen({"replay", "--headless", "--json", "--threads", i ? "3" : "1", rec});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    const size_t at = r.out.find("\"world_hash\"");
    ASSERT_NE(at, std::string::npos) << r.out;
    hashes[i] = r.out.substr(at, 32);
    const size_t fat = r.out.find("\"final_frame_hash\"");
    ASSERT_NE(fat, std::string::npos) << r.out;
    frames[i] = r.out.substr(fat, 40);
  }
  EXPECT_EQ(hashes[0], hashes[1]);
  EXPECT_EQ(frames[0], frames[1]);
}

TEST(PlayWindow, AMinimisedWindowDrawsNothingAndTheRestoredFrameIsTheSame) {
  if (!have_xvfb()) GTEST_SKIP() << "xvfb-run is not installed (scripts/install-deps.sh installs xvfb)";
  // Standing still on the flat world for 60 frames; once never minimised, once minimised (the window's
  // framebuffer reported 0 x 0) for frames 10 to 49. Streaming is counted in frames, so both runs hold the same
  // world at the end (--stream deterministic: live streaming follows the wall clock), and the last frame, drawn
  // after the restore, is the same bytes.
  const std::string dir = temp_dir("window_minimised");
  std::filesystem::create_directories(dir + "/a");
  std::filesystem::create_directories(dir + "/b");
  std::string out_a, out_b;
  // Live play times its frames by the wall clock, so what moves by itself (the sky's clock, drifting clouds,
  // walking animals) would differ between the runs: the sky stands still, clear, and no animals spawn.
  const std::vector<std::string> still = {"--seed", "3", "--generator", "flat", "--stream", "deterministic",
                                          "--day-minutes", "0", "--no-clouds", "--no-creatures"};
  std::vector<std::string> minimised = still;
  minimised.insert(minimised.end(), {"--minimised-frames", "10,50"});
  const render::Image a = play_frames(dir + "/a", still, 60, &out_a);
  const render::Image b = play_frames(dir + "/b", minimised, 60, &out_b);
  EXPECT_NE(out_a.find("played 60 frames: 60 drawn, 0 minimised (not drawn); no GL error"), std::string::npos) << out_a;
  EXPECT_NE(out_b.find("played 60 frames: 20 drawn, 40 minimised (not drawn); no GL error"), std::string::npos) << out_b;
  ASSERT_EQ(a.width, 480);
  ASSERT_EQ(b.width, 480);
  EXPECT_GT(ground_share(a), 0.5);
  EXPECT_TRUE(a.pixels == b.pixels) << "the frame after the restore differs from the run never minimised";
  // A malformed range is a usage error.
  const auto bad = run_voxen({"play", "--frames", "1", "--minimised-frames", "9,3"}, kXvfb);
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find("--minimised-frames"), std::string::npos) << bad.err;
}

TEST(PlayWindow, ConnectedToAServerItDrawsTheServersWorldAndNamesTheServer) {
  if (!have_xvfb()) GTEST_SKIP() << "xvfb-run is not installed (scripts/install-deps.sh installs xvfb)";
  using voxen::testing::slurp;
  const std::string dir = temp_dir("window_connect");
  const std::filesystem::path sout = dir + "/serve.out", serr = dir + "/serve.err";
  pid_t server = voxen::testing::spawn(VOXEN_SERVER_BINARY,
                                       {"serve", "--world", dir + "/world", "--seed", "3", "--generator", "flat", "--port", "0",
                                        "--threads", "1"},
                                       sout, serr);
  voxen::testing::KillOnExit guard{server};
  ASSERT_GT(server, 0);
  const uint16_t port = voxen::testing::wait_listening(serr, 1);
  ASSERT_NE(port, 0) << slurp(serr);
  const std::string where = "127.0.0.1:" + std::to_string(port);
  std::string out;
  const render::Image img = play_frames(dir, {"--connect", where, "--name", "alice", "--stream", "deterministic"}, 60, &out);
  EXPECT_NE(out.find("connected to " + where + " as alice"), std::string::npos) << out;
  EXPECT_EQ(read_status_line(img), "SERVER " + where + ": 1 PLAYER");
  EXPECT_GT(ground_share(img), 0.5) << "the flat world's ground, as the server sent it";
  // Ctrl-C in the terminal ends play as closing the window does: its summary, and Leave to the server.
  const std::string pout = dir + "/play.out", perr = dir + "/play.err";
  pid_t play = voxen::testing::spawn("/bin/sh",
                                     {"-c", std::string("exec ") + kXvfb + " " + VOXEN_BINARY + " play --connect " + where +
                                                " --name bob --size 480x200 --render-distance 2 --threads 1 --frames 1000000"},
                                     pout, perr);
  voxen::testing::KillOnExit play_guard{play};
  ASSERT_GT(play, 0);
  for (int i = 0; i < 3000 && slurp(pout).find("close the window to quit") == std::string::npos; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_NE(slurp(pout).find("close the window to quit"), std::string::npos) << slurp(perr);
  const pid_t game = voxen::testing::child_named(play, "voxen");  // xvfb-run's child
  ASSERT_GT(game, 0);
  ASSERT_EQ(kill(game, SIGINT), 0);
  EXPECT_EQ(voxen::testing::wait_exit(play), 0) << slurp(perr);
  play = -1;
  EXPECT_NE(slurp(pout).find("edits sent"), std::string::npos) << slurp(pout);

  kill(server, SIGINT);
  EXPECT_EQ(voxen::testing::wait_exit(server), 0) << slurp(serr);
  server = -1;
  const std::string stats = slurp(sout);
  EXPECT_NE(stats.find("2 joined"), std::string::npos) << stats;
  EXPECT_NE(stats.find("2 (left)"), std::string::npos) << "both games said Leave on exit: " << stats;
}

TEST(PlayWindow, ConnectWithBadArgumentsExits2BeforeAWindowAndToAClosedPortExits1) {
  using voxen::testing::run_voxen;
  auto r = run_voxen({"play", "--name", "alice"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("give --connect HOST:PORT too"), std::string::npos) << r.err;
  r = run_voxen({"play", "--connect", "127.0.0.1:1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--name"), std::string::npos) << r.err;
  r = run_voxen({"play", "--connect", "127.0.0.1:1", "--name", "bad name"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("'bad name' must be 1..32 characters"), std::string::npos) << r.err;
  r = run_voxen({"play", "--connect", "localhost", "--name", "alice"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  r = run_voxen({"play", "--connect", "127.0.0.1:1", "--name", "alice", "--world", temp_dir("connect_world") + "/w"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("the world is the server's"), std::string::npos) << r.err;
  r = run_voxen({"play", "--connect", "127.0.0.1:1", "--name", "alice", "--record", temp_dir("connect_rec") + "/r.vxr"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("not on a server"), std::string::npos) << r.err;
  // A server granting a view radius of 1: play cannot draw (a drawn column needs the ring round it): exit 1.
  {
    const std::string dir = temp_dir("connect_radius1");
    pid_t server = voxen::testing::spawn(VOXEN_SERVER_BINARY,
                                         {"serve", "--world", dir + "/world", "--seed", "3", "--generator", "flat", "--port", "0",
                                          "--view-radius", "1", "--threads", "1"},
                                         dir + "/serve.out", dir + "/serve.err");
    voxen::testing::KillOnExit guard{server};
    ASSERT_GT(server, 0);
    const uint16_t port = voxen::testing::wait_listening(dir + "/serve.err", 1);
    ASSERT_NE(port, 0);
    r = run_voxen({"play", "--connect", "127.0.0.1:" + std::to_string(port), "--name", "alice"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("grants a view radius of 1 column: play needs 2 or more"), std::string::npos) << r.err;
    kill(server, SIGINT);
    EXPECT_EQ(voxen::testing::wait_exit(server), 0);
    server = -1;
  }
  r = run_voxen({"play", "--connect", "127.0.0.1:1:2", "--name", "alice"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("an IPv6 address goes in brackets"), std::string::npos) << r.err;
  // Nothing listens on port 1: no window, exit 1 naming the server.
  r = run_voxen({"play", "--connect", "127.0.0.1:1", "--name", "alice"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("connecting to 127.0.0.1:1"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace voxen::play::testing
