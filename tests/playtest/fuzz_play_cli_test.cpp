// voxen fuzz-play through the real binary: the seeded input fuzzer (playtest/input_fuzzer.h) plays 2,000 frames on
// two seeds with every invariant holding, and a clean run deletes its recording.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "../play/play_test_util.h"
#include "run_command.h"

namespace voxen::playtest::testing {
namespace {

using voxen::play::testing::temp_dir;
using voxen::testing::run_voxen;

TEST(FuzzPlayCli, FuzzerPlays2000FramesOnTwoSeedsWithEveryInvariantHolding) {
  const std::string dir = temp_dir("fuzz");
  for (const char* seed : {"1", "2"}) {
    // Invariants are checked every frame; drawing every 8th frame keeps the software rasteriser's cost down.
    auto r = run_voxen({"fuzz-play", "--seed", seed, "--frames", "2000", "--headless", "--render-every", "8",
                        "--render-distance", "2", "--out-dir", dir});
    EXPECT_EQ(r.exit_code, 0) << "seed " << seed << ": " << r.err;
    EXPECT_NE(r.out.find("2000 frames"), std::string::npos) << r.out;
    EXPECT_FALSE(std::filesystem::exists(dir + "/fuzz-" + std::string(seed) + ".rec")) << "a clean run deletes its recording";
  }
}

}  // namespace
}  // namespace voxen::playtest::testing
