// `voxen import-anvil` through the real command line on hand-built worlds (anvil_builder.h): the cells it writes as
// `voxen probe --world` reads them back, --region and --y-offset, importing into an existing imported world, the
// JSON keys, and the refusals (a generated world, a missing source, bad flags) with their exit codes and messages.
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "anvil_builder.h"
#include "run_command.h"

namespace voxen {
namespace {

namespace fs = std::filesystem;
using testing::TestSection;

struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& name) : path(fs::temp_directory_path() / ("voxen_anvil_cli_" + name + "_" + std::to_string(::getpid()))) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

// A world folder with two regions: r.0.0 holds chunk (0, 0) (granite at y 0..15, an oak log on its side at y 64)
// and r.-1.0 holds chunk (-1, 0) (diorite at y 0..15); plus a level.dat.
void make_world(const fs::path& dir) {
  std::vector<uint16_t> log_at(4096, 0);
  log_at[static_cast<size_t>(0 * 256 + 2 * 16 + 1)] = 1;  // x 1, y 64 (section 4), z 2
  const auto a = testing::chunk_nbt(2865, 0, 0, "minecraft:full",
                                    {{0, {"minecraft:granite"}, {}}, {4, {"minecraft:air", "minecraft:oak_log[axis=x]"}, log_at}}, false);
  const auto b = testing::chunk_nbt(2865, -1, 0, "minecraft:full", {{0, {"minecraft:diorite"}, {}}}, false);
  testing::write_file(dir / "region" / "r.0.0.mca", testing::region_bytes({{0, 2, testing::compress_chunk(a, 2)}}));
  testing::write_file(dir / "region" / "r.-1.0.mca", testing::region_bytes({{31, 4, testing::compress_chunk(b, 4)}}));
  testing::NbtWriter level;
  level.begin_root().begin_compound("Data").int32("DataVersion", 2865).string("LevelName", "Hand built");
  level.begin_compound("Version").string("Name", "1.18.1").end().end().end();
  testing::write_file(dir / "level.dat", testing::deflate_bytes(level.bytes(), true));
}

std::string probe(const fs::path& world, const std::string& at) {
  const auto r = testing::run_voxen({"probe", "--world", world.string(), "--at", at, "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  return j["cells"][0]["block"].get<std::string>() + ":" + std::to_string(j["cells"][0]["state"].get<int>());
}

TEST(AnvilCli, ImportsAWorldThatProbeReadsBack) {
  TempDir t("world");
  make_world(t.path / "mc");
  const auto r = testing::run_voxen({"import-anvil", (t.path / "mc").string(), "--world", (t.path / "w").string(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  for (const char* key : {"chunks", "chunks_imported", "chunks_skipped", "statuses", "blocks", "distinct_states", "unmapped",
                          "clipped_blocks", "seconds", "bytes_read"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["chunks"], 2);
  EXPECT_EQ(j["chunks_imported"], 2);
  EXPECT_EQ(j["blocks"], 4096 * 2 + 1);
  EXPECT_EQ(j["level_name"], "Hand built");
  EXPECT_EQ(j["source_kind"], "world");
  EXPECT_EQ(j["bounds"], nlohmann::json({{"min_x", -16}, {"min_z", 0}, {"max_x", 15}, {"max_z", 15}}));
  EXPECT_EQ(j["spawn"], nlohmann::json({-1, 7}));  // no SpawnX/SpawnZ in this level.dat: the middle
  EXPECT_EQ(j["version_name"], "1.18.1");
  EXPECT_EQ(r.err.find("import-anvil:"), std::string::npos) << "no progress line off a terminal: " << r.err;
  EXPECT_EQ(probe(t.path / "w", "3,5,7"), "granite:0");
  EXPECT_EQ(probe(t.path / "w", "-16,15,15"), "diorite:0");     // chunk (-1, 0): slot 31 of r.-1.0, LZ4
  EXPECT_EQ(probe(t.path / "w", "1,64,2"), "oak_log:8");       // axis x = 1 << 3
  EXPECT_EQ(probe(t.path / "w", "1,16,2"), "air:0");
  EXPECT_EQ(probe(t.path / "w", "100,5,100"), "air:0");        // outside the import
}

TEST(AnvilCli, RegionAndYOffsetAndAddingToAnImportedWorld) {
  TempDir t("region");
  make_world(t.path / "mc");
  auto r = testing::run_voxen({"import-anvil", (t.path / "mc").string(), "--world", (t.path / "w").string(), "--region", "-1,0",
                               "--y-offset", "-64"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(probe(t.path / "w", "-16,-64,0"), "diorite:0");
  EXPECT_EQ(probe(t.path / "w", "0,-64,0"), "air:0");  // r.0.0 not imported
  // The other region into the same world: both are there.
  r = testing::run_voxen({"import-anvil", (t.path / "mc" / "region" / "r.0.0.mca").string(), "--world", (t.path / "w").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(probe(t.path / "w", "0,0,0"), "granite:0");
  EXPECT_EQ(probe(t.path / "w", "-16,-64,0"), "diorite:0");
  r = testing::run_voxen({"import-anvil", (t.path / "mc").string(), "--world", (t.path / "w").string(), "--region", "5,5"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no region r.5.5.mca"), std::string::npos) << r.err;
}

TEST(AnvilCli, RefusalsAndBadFlags) {
  TempDir t("refuse");
  make_world(t.path / "mc");
  // A generated world.
  auto r = testing::run_voxen({"probe", "--world", (t.path / "gen").string(), "--seed", "3", "--at", "0,0,0"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = testing::run_voxen({"import-anvil", (t.path / "mc").string(), "--world", (t.path / "gen").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("is a generated world"), std::string::npos) << r.err;
  // A missing source, a folder without regions, a file that is not a region.
  r = testing::run_voxen({"import-anvil", (t.path / "nope").string(), "--world", (t.path / "w1").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no such file or folder"), std::string::npos) << r.err;
  fs::create_directories(t.path / "empty");
  r = testing::run_voxen({"import-anvil", (t.path / "empty").string(), "--world", (t.path / "w2").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no region files"), std::string::npos) << r.err;
  r = testing::run_voxen({"import-anvil", (t.path / "mc" / "level.dat").string(), "--world", (t.path / "w3").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("not a region file"), std::string::npos) << r.err;
  // Bad flags: exit 2, naming the flag.
  r = testing::run_voxen({"import-anvil", (t.path / "mc").string(), "--world", (t.path / "w4").string(), "--region", "1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--region"), std::string::npos) << r.err;
  r = testing::run_voxen({"import-anvil", (t.path / "mc").string(), "--world", (t.path / "w4").string(), "--y-offset", "99999"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--y-offset"), std::string::npos) << r.err;
  r = testing::run_voxen({"import-anvil", (t.path / "mc").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--world"), std::string::npos) << r.err;
  // A level.dat older than 1.13 refuses the import before anything is written.
  testing::NbtWriter old;
  old.begin_root().begin_compound("Data").int32("DataVersion", 1343).end().end();
  testing::write_file(t.path / "mc" / "level.dat", testing::deflate_bytes(old.bytes(), true));
  r = testing::run_voxen({"import-anvil", (t.path / "mc").string(), "--world", (t.path / "w5").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("level.dat says DataVersion 1343 (Minecraft 1.12.2)"), std::string::npos) << r.err;
  // Refused before anything is written: none of the refused imports above made a world folder.
  for (const char* w : {"w1", "w2", "w3", "w4", "w5"}) EXPECT_FALSE(fs::exists(t.path / w)) << w;
}

TEST(AnvilCli, NothingReadableFailsAndANewWorldIsRemoved) {
  TempDir t("unreadable");
  // Only a region shorter than its header: nothing could be read, exit 1 (not "0 chunks, fine").
  testing::write_file(t.path / "short" / "region" / "r.0.0.mca", std::vector<uint8_t>(100, 0));
  auto r = testing::run_voxen({"import-anvil", (t.path / "short").string(), "--world", (t.path / "w1").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("shorter (100 bytes) than the 8192-byte header"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nothing could be imported"), std::string::npos) << r.err;
  // Every chunk from before 1.13: refused, and the world this command created is removed again.
  testing::NbtWriter w;
  w.begin_root().int32("DataVersion", 1343).begin_compound("Level").int32("xPos", 0).int32("zPos", 0).end().end();
  testing::write_file(t.path / "old" / "r.0.0.mca", testing::region_bytes({{0, 2, testing::compress_chunk(w.bytes(), 2)}}));
  r = testing::run_voxen({"import-anvil", (t.path / "old" / "r.0.0.mca").string(), "--world", (t.path / "w2").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("DataVersion 1343, Minecraft 1.12.2"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(t.path / "w2"));
  // An empty folder the user made is emptied again, not removed.
  fs::create_directories(t.path / "mine");
  r = testing::run_voxen({"import-anvil", (t.path / "old" / "r.0.0.mca").string(), "--world", (t.path / "mine").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(fs::is_directory(t.path / "mine"));
  EXPECT_TRUE(fs::is_empty(t.path / "mine"));
  // A world that was there before is kept whatever happens.
  make_world(t.path / "mc");
  ASSERT_EQ(testing::run_voxen({"import-anvil", (t.path / "mc").string(), "--world", (t.path / "w3").string()}).exit_code, 0);
  r = testing::run_voxen({"import-anvil", (t.path / "old" / "r.0.0.mca").string(), "--world", (t.path / "w3").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(probe(t.path / "w3", "3,5,7"), "granite:0");
}

TEST(AnvilCli, ADamagedLevelDatAndNamesThatAreNotUtf8) {
  TempDir t("names");
  const fs::path src = t.path / "mc\xff";  // a folder name that is not UTF-8
  make_world(src);
  testing::write_file(src / "level.dat", {});  // what a crash can leave
  const auto r = testing::run_voxen({"import-anvil", src.string(), "--world", (t.path / "w").string(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("warning: level.dat not read"), std::string::npos) << r.err;
  const auto j = nlohmann::json::parse(r.out);  // the invalid byte replaced, not a failure after the import
  EXPECT_EQ(j["chunks_imported"], 2);
  EXPECT_TRUE(j.contains("level_dat_error"));
  EXPECT_EQ(probe(t.path / "w", "3,5,7"), "granite:0");
}

}  // namespace
}  // namespace voxen
