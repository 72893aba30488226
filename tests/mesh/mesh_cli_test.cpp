// `voxen mesh` through the real binary: the JSON keys and the relations between the counts, exact counts on the
// flat world, independence from the thread count, and one-line errors for bad arguments.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "run_command.h"

namespace voxen {
namespace {

using testing::run_voxen;

nlohmann::json run_json(const std::vector<std::string>& args) {
  auto r = run_voxen(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << r.out;
  return j;
}

TEST(MeshCli, CountsOfAGeneratedAreaAreConsistent) {
  const auto j = run_json({"mesh", "--seed", "7", "--center", "100,-40", "--radius", "1", "--json", "--threads", "1"});
  for (const char* key : {"voxels", "cube_triangles", "culled_faces", "greedy_quads", "greedy_quads_no_ao", "bytes", "seconds"})
    ASSERT_TRUE(j.contains(key)) << key;
  const auto voxels = j["voxels"].get<uint64_t>();
  const auto culled = j["culled_faces"].get<uint64_t>();
  const auto greedy = j["greedy_quads"].get<uint64_t>();
  const auto loose = j["greedy_quads_no_ao"].get<uint64_t>();
  const auto bytes = j["bytes"].get<uint64_t>();
  EXPECT_GT(voxels, 9u * 256u * 100u);  // 9 columns of terrain at least 100 blocks deep
  EXPECT_EQ(j["cube_triangles"].get<uint64_t>(), 12 * voxels);
  EXPECT_GT(culled, 0u);
  EXPECT_LE(culled, 6 * voxels);
  EXPECT_LT(greedy, culled);
  EXPECT_LE(loose, greedy);
  EXPECT_GE(bytes, 16 * greedy);
  EXPECT_LE(bytes, 20 * greedy);
  EXPECT_GE(j["seconds"].get<double>(), 0.0);
}

TEST(MeshCli, FlatColumnHasExactCounts) {
  // Column (0, 0) of the flat world: 256 x (bedrock, 124 stone, 3 dirt, a planks/cobblestone checkerboard top) =
  // 33,024 voxels. Its neighbours are generated too, so only the 256 top faces and the 256 bedrock bottoms (the
  // world below is air) show: 512 culled faces. The checkerboard's top faces alternate textures and cannot merge
  // (256 quads); the bedrock bottom, evenly dark, is one quad: 257 either way; 257 x 16 bytes.
  const auto j = run_json({"mesh", "--generator", "flat", "--seed", "3", "--center", "5,5", "--radius", "0", "--json"});
  EXPECT_EQ(j["voxels"].get<uint64_t>(), 33024u);
  EXPECT_EQ(j["culled_faces"].get<uint64_t>(), 512u);
  EXPECT_EQ(j["greedy_quads"].get<uint64_t>(), 257u);
  EXPECT_EQ(j["greedy_quads_no_ao"].get<uint64_t>(), 257u);
  EXPECT_EQ(j["bytes"].get<uint64_t>(), 257u * 16u);
}

TEST(MeshCli, CountsDoNotDependOnTheThreadCount) {
  auto a = run_json({"mesh", "--seed", "21", "--center", "0,0", "--radius", "1", "--json", "--threads", "1"});
  auto b = run_json({"mesh", "--seed", "21", "--center", "0,0", "--radius", "1", "--json", "--threads", "3"});
  for (const char* key : {"voxels", "culled_faces", "greedy_quads", "greedy_quads_no_ao", "bytes"})
    EXPECT_EQ(a[key], b[key]) << key;
}

TEST(MeshCli, BadArgumentsGiveOneLineAndExitCode2) {
  for (const auto& args : std::vector<std::vector<std::string>>{{"mesh", "--radius", "-1"},
                                                                {"mesh", "--radius", "40"},
                                                                {"mesh", "--center", "12"},
                                                                {"mesh", "--threads", "-2"}}) {
    auto r = run_voxen(args);
    EXPECT_EQ(r.exit_code, 2) << args[1];
    EXPECT_EQ(testing::line_count(r.err), 1) << r.err;
    EXPECT_NE(r.err.find(args[1]), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
}

}  // namespace
}  // namespace voxen
