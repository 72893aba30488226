// Light through the real binary: `voxen probe` reports each cell's light (after edits, updated incrementally) and
// `voxen gen --light` hashes light too, with the same hash for every thread count.
#include <gtest/gtest.h>

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

std::vector<int> rgb_of(const nlohmann::json& cell) { return cell["light"]["block"].get<std::vector<int>>(); }
int sky_of(const nlohmann::json& cell) { return cell["light"]["sky"].get<int>(); }

TEST(LightCli, ProbeReportsSkyAndColouredBlockLightOfTheFlatWorldsTorch) {
  // The flat world has a torch on the ground at (50, 1, 20) of every 64x64 tile.
  auto r = run_voxen({"probe", "--generator", "flat", "--at", "50,1,20", "--at", "51,1,20", "--at", "52,1,20",
                      "--at", "50,-5,20", "--at", "-14,1,20", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto cells = parse_json(r.out)["cells"];
  ASSERT_EQ(cells.size(), 5u);
  EXPECT_EQ(cells[0]["block"], "torch");
  EXPECT_EQ(rgb_of(cells[0]), (std::vector<int>{14, 12, 8}));
  EXPECT_EQ(sky_of(cells[0]), 15);
  EXPECT_EQ(rgb_of(cells[1]), (std::vector<int>{13, 11, 7}));
  EXPECT_EQ(rgb_of(cells[2]), (std::vector<int>{12, 10, 6}));
  EXPECT_EQ(sky_of(cells[3]), 0);  // underground
  EXPECT_EQ(rgb_of(cells[3]), (std::vector<int>{0, 0, 0}));
  EXPECT_EQ(rgb_of(cells[4]), (std::vector<int>{14, 12, 8}));  // the same torch one tile west (x = -14)
}

TEST(LightCli, ProbeEditsUpdateLight) {
  // A stone beside the torch makes the light go around it; a 3x3 roof at y = 5 shades the ground under its centre.
  auto r = run_voxen({"probe", "--generator", "flat", "--edit", "51,1,20=stone", "--at", "52,1,20",
                      "--edit", "0,5,0=stone", "--edit", "1,5,0=stone", "--edit", "2,5,0=stone",
                      "--edit", "0,5,1=stone", "--edit", "1,5,1=stone", "--edit", "2,5,1=stone",
                      "--edit", "0,5,2=stone", "--edit", "1,5,2=stone", "--edit", "2,5,2=stone",
                      "--edit", "1,5,1=red_lamp", "--at", "1,1,1", "--at", "1,6,1", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto cells = parse_json(r.out)["cells"];
  ASSERT_EQ(cells.size(), 3u);
  EXPECT_EQ(rgb_of(cells[0]), (std::vector<int>{10, 8, 4}));  // 4 steps around the stone
  EXPECT_EQ(sky_of(cells[1]), 13);                            // 2 steps in from open sky
  EXPECT_EQ(rgb_of(cells[1]), (std::vector<int>{11, 0, 0}));  // the red lamp in the roof, 4 below it
  EXPECT_EQ(sky_of(cells[2]), 15);                            // on the roof
  EXPECT_EQ(rgb_of(cells[2]), (std::vector<int>{14, 0, 0}));

  auto text = run_voxen({"probe", "--generator", "flat", "--at", "51,1,20"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("sky 15 block 13,11,7"), std::string::npos) << text.out;
}

TEST(LightCli, GenLightHashIsTheSameForEveryThreadCountAndCoversLight) {
  for (const char* generator : {"flat", "default"}) {
    SCOPED_TRACE(generator);
    auto one = run_voxen({"gen", "--generator", generator, "--seed", "5", "--center", "-20,40", "--radius", "2",
                          "--light", "--json", "--threads", "1"});
    auto two = run_voxen({"gen", "--generator", generator, "--seed", "5", "--center", "-20,40", "--radius", "2",
                          "--light", "--json", "--threads", "2"});
    auto three = run_voxen({"gen", "--generator", generator, "--seed", "5", "--center", "-20,40", "--radius", "2",
                            "--light", "--json", "--threads", "3"});
    auto unlit = run_voxen({"gen", "--generator", generator, "--seed", "5", "--center", "-20,40", "--radius", "2",
                            "--json", "--threads", "2"});
    ASSERT_EQ(one.exit_code, 0) << one.err;
    ASSERT_EQ(two.exit_code, 0) << two.err;
    ASSERT_EQ(three.exit_code, 0) << three.err;
    ASSERT_EQ(unlit.exit_code, 0) << unlit.err;
    const auto j1 = parse_json(one.out);
    EXPECT_EQ(j1["hash"], parse_json(two.out)["hash"]);
    EXPECT_EQ(j1["hash"], parse_json(three.out)["hash"]);
    EXPECT_NE(j1["hash"], parse_json(unlit.out)["hash"]);  // light is in the hash
    EXPECT_GE(j1["light_seconds"].get<double>(), 0.0);
    EXPECT_EQ(j1["blocks"], parse_json(unlit.out)["blocks"]);
  }
}

}  // namespace
}  // namespace voxen
