// The play commands through the real binary: a replay is deterministic (the same recording gives the same world
// and the same final frame bytes, whatever the number of worker threads, and reproduces the run that recorded it),
// and a bad recording is refused naming its line. (The fuzzer's own run: tests/playtest/fuzz_play_cli_test.cpp.)
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "play_test_util.h"
#include "run_command.h"

namespace voxen::play::testing {
namespace {

using voxen::testing::run_voxen;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(PlayCli, ReplayTwiceGivesIdenticalFinalFrames) {
  const std::string dir = temp_dir("replay_twice");
  // A recording with walking, flying, looking, digging and building: the fuzzer's, kept.
  auto fuzz = run_voxen({"fuzz-play", "--seed", "5", "--frames", "400", "--headless", "--render-every", "50",
                         "--render-distance", "2", "--out-dir", dir, "--keep"});
  ASSERT_EQ(fuzz.exit_code, 0) << fuzz.err;
  const std::string rec = dir + "/fuzz-5.rec";
  ASSERT_TRUE(std::filesystem::exists(rec));
  auto a = run_voxen({"replay", rec, "--headless", "--json", "--threads", "1", "--out-dir", dir + "/a"});
  auto b = run_voxen({"replay", rec, "--headless", "--json", "--threads", "3", "--render-every", "7", "--out-dir", dir + "/b"});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  const auto ja = nlohmann::json::parse(a.out), jb = nlohmann::json::parse(b.out);
  EXPECT_EQ(ja["frames"], 400);
  EXPECT_GT(ja["edits_applied"].get<int>(), 0) << "the recording should edit the world";
  EXPECT_EQ(ja["world_hash"], jb["world_hash"]);
  EXPECT_EQ(ja["final_frame_hash"], jb["final_frame_hash"]);
  EXPECT_EQ(ja["feet"], jb["feet"]);
  const std::string fa = slurp(dir + "/a/final.png"), fb = slurp(dir + "/b/final.png");
  ASSERT_FALSE(fa.empty());
  EXPECT_EQ(fa, fb) << "final frames differ";
  // The replay reproduces the run that made the recording.
  EXPECT_NE(fuzz.out.find("player at " + ja["feet"].get<std::string>()), std::string::npos) << fuzz.out << a.out;
}

TEST(PlayCli, BadRecordingIsRefusedNamingTheLine) {
  const std::string dir = temp_dir("bad_rec");
  const std::string path = dir + "/bad.rec";
  std::ofstream(path) << "voxen-input-recording 1\nseed 1\ngenerator flat\nrender_distance 2\nsize 64x36\n"
                         "start 0 1 0 0.5 0 0.5 0 0 0\n0 key_down w\n3 kick left\n";
  auto r = run_voxen({"replay", path, "--headless"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(path + ":8: unknown event kind 'kick'"), std::string::npos) << r.err;
  auto missing = run_voxen({"replay", dir + "/none.rec", "--headless"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("none.rec"), std::string::npos) << missing.err;
  auto gen = run_voxen({"replay", path, "--headless", "--render-every", "0"});
  EXPECT_EQ(gen.exit_code, 2);
  EXPECT_NE(gen.err.find("--render-every"), std::string::npos) << gen.err;
}

}  // namespace
}  // namespace voxen::play::testing
