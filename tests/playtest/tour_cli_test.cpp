// voxen tour's streaming and jet options through the real binary: --stream live runs the live scheduler (paced to
// the step) and says so in the report, --jet-speed sets the jet's speed, and both refuse bad values with exit 2;
// the storm segment's edit storm reaches the report; the village segment runs 200 creatures.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "run_command.h"

namespace voxen {
namespace {

using testing::run_voxen;

// Runs `voxen tour <args> --json FILE` (headless) and returns the report; a failed run fails the test (null json).
nlohmann::json tour_report(std::vector<std::string> args) {
  const std::string json = "/tmp/voxen_tour_report_" + std::to_string(::getpid()) + ".json";
  args.insert(args.begin(), {"tour", "--headless"});
  args.insert(args.end(), {"--json", json});
  const auto r = run_voxen(args);
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  if (r.exit_code != 0) return nullptr;
  std::ifstream in(json);
  nlohmann::json j = nlohmann::json::parse(in);
  std::remove(json.c_str());
  return j;
}

TEST(TourCli, LiveStreamingAndTheJetsSpeedReachTheReport) {
  const std::string json = "/tmp/voxen_tour_cli_" + std::to_string(::getpid()) + ".json";
  const auto r = run_voxen({"tour", "--headless", "--segments", "jet", "--frames", "3", "--render-distance", "2", "--stream",
                            "live", "--jet-speed", "400", "--json", json});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("live streaming"), std::string::npos) << r.out;
  std::ifstream in(json);
  const nlohmann::json j = nlohmann::json::parse(in);
  std::remove(json.c_str());
  EXPECT_EQ(j["stream"], "live");
  ASSERT_EQ(j["segments"].size(), 1u);
  const auto& s = j["segments"][0];
  EXPECT_EQ(s["note"].get<std::string>().rfind("400 blocks/s east", 0), 0u) << s["note"];
  // Flying speeds up towards the fly speed at 20/s: 3 frames reach 7.4 blocks at 400 blocks/s, 2.1 at 112.
  EXPECT_GT(s["distance_blocks"].get<double>(), 6.0);
  EXPECT_TRUE(s["holes"].contains("measurement_ms_per_frame"));
  EXPECT_EQ(s["holes"]["frames_with_near_holes_in_drawn_columns"], 0);
}

// The storm segment: one blast of more than 10,000 edits in the segment's first frame, reported with that frame's
// cost and the next frame's (edit_burst), and no near hole in a drawn column round the crater.
TEST(TourCli, TheStormSegmentBlastsTenThousandBlocksInOneFrame) {
  const std::string json = "/tmp/voxen_tour_storm_" + std::to_string(::getpid()) + ".json";
  const auto r = run_voxen({"tour", "--headless", "--segments", "storm", "--frames", "3", "--render-distance", "2", "--json", json});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  std::ifstream in(json);
  const nlohmann::json j = nlohmann::json::parse(in);
  std::remove(json.c_str());
  ASSERT_EQ(j["segments"].size(), 1u);
  const auto& s = j["segments"][0];
  EXPECT_EQ(s["name"], "storm");
  const auto& burst = s["edit_burst"];
  EXPECT_GE(burst["edits"].get<uint64_t>(), 10000u) << s["note"];
  EXPECT_EQ(s["edits"], burst["edits"]) << "the whole storm in one frame";
  EXPECT_GT(burst["frame_ms"].get<double>(), 0.0);
  EXPECT_GT(burst["next_frame_ms"].get<double>(), 0.0);
  EXPECT_GT(burst["sections_remeshed"].get<uint64_t>(), 0u);
  EXPECT_EQ(s["holes"]["frames_with_near_holes_in_drawn_columns"], 0);
}

TEST(TourCli, TheVillageSegmentRunsTwoHundredCreatures) {
  // Issue 22's creature figure: 200 creatures added in a village, their ticks, bookkeeping and posing per frame.
  const nlohmann::json j = tour_report({"--segments", "village", "--frames", "40", "--render-distance", "3"});
  ASSERT_EQ(j["segments"].size(), 1u);
  const auto& s = j["segments"][0];
  EXPECT_EQ(s["name"], "village");
  const auto& c = s["creatures"];
  EXPECT_GE(c["live"]["p50"].get<double>(), 200.0) << s["note"];
  EXPECT_GT(c["ms"]["mean"].get<double>(), 0.0);
  EXPECT_GT(c["pose_ms"]["mean"].get<double>(), 0.0);
  EXPECT_GT(c["resting_share"].get<double>(), 0.0);
  EXPECT_LT(c["resting_share"].get<double>(), 1.0);
  // Without creatures the segment runs with none.
  const nlohmann::json off = tour_report({"--segments", "village", "--frames", "5", "--render-distance", "2", "--no-creatures"});
  ASSERT_EQ(off["segments"].size(), 1u);
  EXPECT_EQ(off["segments"][0]["creatures"]["live"]["max"].get<double>(), 0.0);
}

TEST(TourCli, BadStreamingModesAndSpeedsAreUsageErrors) {
  for (const auto& args : {std::vector<std::string>{"tour", "--headless", "--stream", "fast"},
                           std::vector<std::string>{"tour", "--headless", "--jet-speed", "0"},
                           std::vector<std::string>{"tour", "--headless", "--jet-speed", "5000"},
                           // the report's file is checked before the tour runs, not after it
                           std::vector<std::string>{"tour", "--headless", "--json", "/tmp"},
                           std::vector<std::string>{"tour", "--headless", "--json", "/nonexistent-voxen-dir/report.json"}}) {
    const auto r = run_voxen(args);
    EXPECT_EQ(r.exit_code, 2) << args[2] << " " << args[3] << ": " << r.err;
    EXPECT_NE(r.err.find(args[2]), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace voxen
