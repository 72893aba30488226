// Argument limits shared by the commands: --threads takes 0 (the default count) to 256 and anything else is a usage
// error (exit 2), where 100000 used to reach std::terminate (rc 134) when the system refused a thread; an empty
// --world is a usage error, where it used to read as "no --world" and drop the edits unsaved without a word.
#include <gtest/gtest.h>

#include <filesystem>

#include "run_command.h"

namespace voxen {
namespace {

using testing::run_voxen;

TEST(ThreadsOption, ProbeRejectsNegativeAndHugeCountsWithExitTwo) {
  for (const char* n : {"-1", "257", "100000"}) {
    auto r = run_voxen({"probe", "--at", "1,2,3", "--threads", n});
    EXPECT_EQ(r.exit_code, 2) << n << ": " << r.err;
    EXPECT_NE(r.err.find("--threads: must be 0 (default: cores - 1) to 256, got " + std::string(n)), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
  auto ok = run_voxen({"probe", "--at", "1,2,3", "--threads", "2"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

TEST(WorldOption, AnEmptyWorldNameIsAUsageErrorAndNothingIsWritten) {
  const auto before = std::filesystem::current_path();
  auto r = run_voxen({"probe", "--world", "", "--seed", "7", "--edit", "0,100,0=glowstone", "--at", "0,100,0"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--world"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("must name a directory"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_EQ(std::filesystem::current_path(), before);
}

}  // namespace
}  // namespace voxen
