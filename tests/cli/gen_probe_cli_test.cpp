// `voxen gen` and `voxen probe` through the real binary: JSON shape, thread-count independence of the hash,
// edits, and one-line errors with exit code 2 for bad arguments.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "run_command.h"

namespace voxen {
namespace {

using testing::line_count;
using testing::run_voxen;

nlohmann::json parse_json(const std::string& s) {
  auto j = nlohmann::json::parse(s, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << s;
  return j;
}

TEST(GenCli, JsonHasTheDocumentedKeysAndCounts) {
  auto r = run_voxen({"gen", "--seed", "7", "--center", "0,0", "--radius", "1", "--json", "--threads", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = parse_json(r.out);
  EXPECT_EQ(j["columns"].get<int>(), 9);
  EXPECT_GE(j["seconds"].get<double>(), 0.0);
  EXPECT_GT(j["columns_per_second"].get<double>(), 0.0);
  EXPECT_EQ(j["hash"].get<std::string>().size(), 16u);
  // Every cell is counted once: 9 columns of 16 x 16 x 384.
  uint64_t total = 0;
  for (auto& [name, n] : j["blocks"].items()) total += n.get<uint64_t>();
  EXPECT_EQ(total, 9u * 16u * 16u * 384u);
  EXPECT_GT(j["blocks"]["stone"].get<uint64_t>(), 0u);
  EXPECT_EQ(j["blocks"]["bedrock"].get<uint64_t>() >= 9u * 256u, true);
}

TEST(GenCli, HashIsTheSameForEveryThreadCountAndDiffersBySeed) {
  auto one = run_voxen({"gen", "--seed", "11", "--center", "-40,70", "--radius", "2", "--json", "--threads", "1"});
  auto two = run_voxen({"gen", "--seed", "11", "--center", "-40,70", "--radius", "2", "--json", "--threads", "2"});
  auto three = run_voxen({"gen", "--seed", "11", "--center", "-40,70", "--radius", "2", "--json", "--threads", "3"});
  auto other = run_voxen({"gen", "--seed", "12", "--center", "-40,70", "--radius", "2", "--json", "--threads", "2"});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  ASSERT_EQ(two.exit_code, 0) << two.err;
  ASSERT_EQ(three.exit_code, 0) << three.err;
  ASSERT_EQ(other.exit_code, 0) << other.err;
  EXPECT_EQ(parse_json(one.out)["hash"], parse_json(two.out)["hash"]);
  EXPECT_EQ(parse_json(one.out)["hash"], parse_json(three.out)["hash"]);
  EXPECT_NE(parse_json(one.out)["hash"], parse_json(other.out)["hash"]);
}

TEST(GenCli, FlatGeneratorIsPeriodicInTheHistogram) {
  // The flat world repeats every 64 blocks: a 4x4-column area at any 64-aligned centre has the same histogram.
  auto a = run_voxen({"gen", "--generator", "flat", "--center", "8,8", "--radius", "1", "--json"});
  auto b = run_voxen({"gen", "--generator", "flat", "--center", "-30000056,30000008", "--radius", "1", "--json"});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(parse_json(a.out)["blocks"], parse_json(b.out)["blocks"]);
}

TEST(ProbeCli, EditsAreAppliedAndReportedWithIdAndState) {
  auto r = run_voxen({"probe", "--generator", "flat", "--edit", "-1,5,-1=stone_stairs:6", "--edit", "0,5,0=glass",
                      "--at", "-1,5,-1", "--at", "0,5,0", "--at", "1,-128,1", "--at", "5,0,5", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = parse_json(r.out);
  ASSERT_EQ(j["cells"].size(), 4u);
  EXPECT_EQ(j["cells"][0]["block"], "stone_stairs");
  EXPECT_EQ(j["cells"][0]["state"], 6);
  EXPECT_EQ(j["cells"][0]["x"], -1);
  EXPECT_EQ(j["cells"][1]["block"], "glass");
  EXPECT_EQ(j["cells"][2]["block"], "bedrock");
  EXPECT_EQ(j["cells"][3]["y"], 0);
  EXPECT_EQ(j["cells"][3]["block"], "planks");  // flat checkerboard: u + v = 10 is even -> planks
}

struct BadArgs {
  std::vector<std::string> args;
  const char* argument;  // the argument the error must name
};

TEST(Cli, BadArgumentsGiveOneLineNamingTheArgumentAndExitTwo) {
  const BadArgs cases[] = {
      {{"gen", "--radius", "-1"}, "--radius"},
      {{"gen", "--center", "1,x"}, "--center"},
      {{"gen", "--center", "1,2,3"}, "--center"},
      {{"gen", "--generator", "moon"}, "--generator"},
      {{"probe", "--at", "0,300,0"}, "--at"},
      {{"probe", "--at", "0,-129,0"}, "--at"},
      {{"probe", "--at", "0,1"}, "--at"},
      {{"probe", "--at", "0,1,0", "--edit", "0,1,0=unobtainium"}, "--edit"},
      {{"probe", "--at", "0,1,0", "--edit", "0,1,0"}, "--edit"},
      {{"probe", "--at", "0,1,0", "--edit", "0,1,0=stone:1"}, "--edit"},
      {{"gen", "--seed", "abc"}, "--seed"},
      {{"frobnicate"}, "frobnicate"},
  };
  for (const auto& c : cases) {
    auto r = run_voxen(c.args);
    std::string joined;
    for (const auto& a : c.args) joined += a + " ";
    EXPECT_EQ(r.exit_code, 2) << joined << "\n" << r.err;
    EXPECT_EQ(line_count(r.err), 1) << joined << "\n" << r.err;
    EXPECT_NE(r.err.find(c.argument), std::string::npos) << joined << "\n" << r.err;
  }
}

}  // namespace
}  // namespace voxen
