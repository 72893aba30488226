// `voxen mem` and `voxen view` through the real binary run the column lifecycle's batch mode (docs/ARCHITECTURE.md,
// Column lifecycle): mem slides a window of three rows over the area (the streamer's release() hands the row behind
// back to the source), reads a saved world through its ColumnSource (an edit saved in a column of the first row
// released is in its counts, exactly), and view meshes what load_view meshes: the non-empty sections of the drawn
// columns, not of the ring around them.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../import/vox_builder.h"
#include "cli_temp_dir.h"
#include "run_command.h"

namespace voxen {
namespace {

using testing::run_voxen;
namespace fs = std::filesystem;

nlohmann::json parse(const testing::CommandResult& r) {
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << r.out << r.err;
  return j;
}

TEST(MemBatch, KeepsThreeRowsOfTheAreaLoadedAtMost) {
  // R = 2: rows of 5 columns; the window holds the row meshed and the rows beside it.
  auto r = run_voxen({"mem", "--seed", "3", "--render-distance", "2", "--json", "--threads", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = parse(r);
  EXPECT_EQ(j["columns"].get<int>(), 25);
  EXPECT_EQ(j["window_columns"].get<int>(), 15);
  auto one = run_voxen({"mem", "--seed", "3", "--render-distance", "0", "--json"});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(parse(one)["window_columns"].get<int>(), 1);
  // The text report says it too.
  auto text = run_voxen({"mem", "--seed", "3", "--render-distance", "2"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("window            15 columns unpacked in the World at most while loading"), std::string::npos)
      << text.out;
}

TEST(MemBatch, AnEditSavedInTheWorldIsInItsCountsExactly) {
  testing::TempDir tmp;
  const fs::path w = tmp.path() / "world";
  // Glass in the open air at y 200 of column (-1, 0): the first row of the area, the first one released. Glass is
  // see-through and lets light pass, so it adds its 6 faces (translucent records, 20 bytes each) and nothing else.
  auto made = run_voxen({"probe", "--world", w.string(), "--seed", "3", "--edit", "-10,200,5=glass", "--at", "-10,200,5"});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  auto saved = run_voxen({"mem", "--world", w.string(), "--render-distance", "1", "--json", "--threads", "2"});
  auto plain = run_voxen({"mem", "--seed", "3", "--render-distance", "1", "--json", "--threads", "2"});
  ASSERT_EQ(saved.exit_code, 0) << saved.err;
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  auto js = parse(saved), jp = parse(plain);
  EXPECT_EQ(js["quads"].get<uint64_t>(), jp["quads"].get<uint64_t>() + 6);
  EXPECT_EQ(js["mesh_bytes"].get<uint64_t>(), jp["mesh_bytes"].get<uint64_t>() + 6 * 20);
  EXPECT_EQ(js["light_bytes"], jp["light_bytes"]);
  EXPECT_GT(js["cell_bytes"].get<uint64_t>(), jp["cell_bytes"].get<uint64_t>());  // the section at y 200 holds a palette
  // Handed back to the saved world row by row, the columns load again for the next command (one owner each).
  auto again = run_voxen({"mem", "--world", w.string(), "--render-distance", "1", "--json"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(parse(again)["quads"], js["quads"]);
}

TEST(ViewBatch, MeshesTheNonEmptySectionsOfTheDrawnColumnsOnly) {
  // One voxel: it stands on y = 0 in one column; the ground (y = -1) lies in the 7 x 7 columns around it, and the
  // ring beyond (81 columns loaded) is lit but not meshed. Sections meshed: 49 ground sections (section 7) and the
  // voxel's (section 8).
  testing::VoxBuilder one;
  one.model(1, 1, 1, {{0, 0, 0, 1}});
  const std::string path = ::testing::TempDir() + "/voxen_batch_one.vox";
  {
    std::ofstream f(path, std::ios::binary);
    const auto bytes = one.bytes();
    f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  const std::string env = "ASAN_OPTIONS=detect_leaks=0";  // Mesa's driver leaks at exit (vox_cli_test.cpp)
  auto r = run_voxen({"view", path, "--out", path + ".png", "--size", "64x64", "--json"}, env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = parse(r);
  EXPECT_EQ(j["scene_columns"].get<int>(), 1);
  EXPECT_EQ(j["drawn_columns"].get<int>(), 49);
  EXPECT_EQ(j["loaded_columns"].get<int>(), 81);
  EXPECT_EQ(j["sections_meshed"].get<int>(), 50);
  auto ground = run_voxen({"view", path, "--out", path + ".png", "--size", "64x64", "--json", "--without-scene"}, env);
  ASSERT_EQ(ground.exit_code, 0) << ground.err;
  EXPECT_EQ(parse(ground)["sections_meshed"].get<int>(), 49);
  fs::remove(path);
  fs::remove(path + ".png");
}

}  // namespace
}  // namespace voxen
