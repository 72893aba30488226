// `voxen structures` through the real binary: the documented JSON, the same list on every run, a structure's
// columns through `voxen gen` with the same hash for every thread count, and exit 2 for a bad radius.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "run_command.h"

namespace voxen {
namespace {

using testing::run_voxen;

nlohmann::json parse_json(const std::string& s) {
  auto j = nlohmann::json::parse(s, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << s;
  return j;
}

TEST(StructuresCli, ListsStructuresDeterministicallyWithTheDocumentedKeys) {
  auto a = run_voxen({"structures", "--seed", "1", "--near", "-600,-400", "--radius", "3000", "--json"});
  auto b = run_voxen({"structures", "--seed", "1", "--near", "-600,-400", "--radius", "3000", "--json"});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
  const auto j = parse_json(a.out);
  ASSERT_TRUE(j["structures"].is_array());
  ASSERT_GT(j["structures"].size(), 3u);
  std::set<std::string> kinds;
  int64_t last = -1;
  for (const auto& s : j["structures"]) {
    kinds.insert(s["kind"].get<std::string>());
    const auto& lo = s["box"]["min"];
    const auto& hi = s["box"]["max"];
    for (int k = 0; k < 3; ++k) EXPECT_LE(lo[k].get<int64_t>(), hi[k].get<int64_t>());
    EXPECT_GE(s["distance"].get<int64_t>(), last);  // nearest first
    last = s["distance"].get<int64_t>();
  }
  EXPECT_TRUE(kinds.count("village"));
  EXPECT_TRUE(kinds.count("ziggurat"));
}

TEST(StructuresCli, AVillagesColumnsHashTheSameOnEveryThreadCount) {
  auto list = run_voxen({"structures", "--seed", "1", "--near", "-600,-400", "--radius", "600", "--json"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  nlohmann::json village;
  const nlohmann::json listed = parse_json(list.out);
  for (const auto& s : listed["structures"])
    if (s["kind"] == "village") {
      village = s;
      break;
    }
  ASSERT_FALSE(village.is_null());
  const std::string centre =
      std::to_string(village["origin"][0].get<int64_t>()) + "," + std::to_string(village["origin"][2].get<int64_t>());
  auto one = run_voxen({"gen", "--seed", "1", "--center", centre, "--radius", "2", "--json", "--threads", "1"});
  auto three = run_voxen({"gen", "--seed", "1", "--center", centre, "--radius", "2", "--json", "--threads", "3"});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  ASSERT_EQ(three.exit_code, 0) << three.err;
  const auto j1 = parse_json(one.out), j3 = parse_json(three.out);
  EXPECT_EQ(j1["hash"], j3["hash"]);
  for (const char* name : {"planks", "glass", "oak_stairs", "oak_slab", "gravel"})
    EXPECT_GT(j1["blocks"].value(name, uint64_t{0}), 0u) << name;
}

TEST(StructuresCli, BadRadiusIsExitTwo) {
  auto r = run_voxen({"structures", "--radius", "70000"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--radius"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace voxen
