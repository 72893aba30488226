// Argument limits shared by the commands: --threads takes 0 (the default count) to 256 and anything else is a usage
// error (exit 2, CLI11's range check, before any work), where 100000 used to reach std::terminate (rc 134) when the
// system refused a thread; an empty
// --world is a usage error, where it used to read as "no --world" and drop the edits unsaved without a word.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <unistd.h>

#include "run_command.h"

namespace voxen {
namespace {

using testing::run_voxen;

TEST(ThreadsOption, ProbeRejectsNegativeAndHugeCountsWithExitTwo) {
  for (const char* n : {"-1", "257", "100000"}) {
    auto r = run_voxen({"probe", "--at", "1,2,3", "--threads", n});
    EXPECT_EQ(r.exit_code, 2) << n << ": " << r.err;
    EXPECT_NE(r.err.find("--threads: Value " + std::string(n) + " not in range 0 to 256"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
  auto ok = run_voxen({"probe", "--at", "1,2,3", "--threads", "2"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

// Every command with worker threads checks the count the same way, before doing any work.
TEST(ThreadsOption, EveryCommandRejectsHugeCountsWithExitTwo) {
  const std::vector<std::vector<std::string>> commands = {
      {"gen", "--seed", "1", "--center", "0,0", "--radius", "0"},
      {"mesh", "--seed", "1", "--center", "0,0", "--radius", "0"},
      {"mem", "--seed", "1", "--render-distance", "1"},
      {"export-vox", "--seed", "1", "--from", "0,0,0", "--to", "1,1,1", "--out", "/tmp/voxen_threads_unused.vox"},
      {"shot", "--seed", "1", "--pos", "0,100,0", "--out", "/tmp/voxen_threads_unused.png"},
      {"view", "/nonexistent.vox"},
      {"replay", "/nonexistent.rec", "--headless"},
      {"fuzz-play", "--seed", "1", "--frames", "1", "--headless"},
      {"tour", "--headless", "--frames", "1"},
      {"play"},
  };
  for (auto args : commands) {
    args.push_back("--threads");
    args.push_back("100000");
    auto r = run_voxen(args);
    EXPECT_EQ(r.exit_code, 2) << args[0] << ": " << r.err;
    EXPECT_NE(r.err.find("--threads: Value 100000 not in range 0 to 256"), std::string::npos) << args[0] << ": " << r.err;
  }
}

TEST(WorldOption, AnEmptyWorldNameIsAUsageErrorAndNothingIsWritten) {
  // Run in a fresh, empty folder: an empty --world must not become "here" (or anything else) on disk.
  const auto dir = std::filesystem::temp_directory_path() / ("voxen_empty_world_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto r = run_voxen({"probe", "--world", "", "--seed", "7", "--edit", "0,100,0=glowstone", "--at", "0,100,0"},
                     "cd " + testing::shell_quote(dir.string()) + " &&");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--world"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("must name a directory"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_TRUE(std::filesystem::is_empty(dir)) << "something was written in the working folder";
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace voxen
