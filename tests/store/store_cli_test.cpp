// Saved worlds through the real binary: `voxen probe --world DIR` creates (with --seed), edits and saves; a second
// run shows the edits; an existing world keeps its seed; a directory that is not a world, a newer world and a locked
// world fail with exit code 1 and nothing written; a corrupt record is reported by column and section, falls back to
// generation and is kept aside; a block missing from the registry shows as 'unknown'; `voxen mem` reports bytes.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "run_command.h"
#include "store_test_util.h"
#include "voxen/store/rocks_store.h"

namespace voxen::store {
namespace {

using testing::OwnedWorld;

using testing::run_voxen;
namespace fs = std::filesystem;

nlohmann::json cells_of(const std::string& out) {
  auto j = nlohmann::json::parse(out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << out;
  return j.is_discarded() ? nlohmann::json() : j["cells"];
}

TEST(ProbeWorld, EditsAreSavedAndShownByTheNextRunStateIncluded) {
  testing::TempDir tmp;
  const std::string w = (tmp.path() / "world").string();
  auto first = run_voxen({"probe", "--world", w, "--seed", "5", "--generator", "flat", "--edit", "3,1,3=bricks", "--edit",
                          "-20,1,-7=stone_stairs:6", "--edit", "0,-128,0=air", "--at", "3,1,3", "--at", "-20,1,-7", "--at",
                          "0,-128,0", "--json", "--threads", "1"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  auto second = run_voxen({"probe", "--world", w, "--at", "3,1,3", "--at", "-20,1,-7", "--at", "0,-128,0", "--json", "--threads", "1"});
  ASSERT_EQ(second.exit_code, 0) << second.err;
  const auto c = cells_of(second.out);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0]["block"], "bricks");
  EXPECT_EQ(c[1]["block"], "stone_stairs");
  EXPECT_EQ(c[1]["state"], 6);
  EXPECT_EQ(c[2]["block"], "air");
  EXPECT_EQ(cells_of(first.out), c);  // light included: the same world either way
  // Without --world the same probe shows plain generation.
  auto plain = run_voxen({"probe", "--generator", "flat", "--at", "3,1,3", "--json"});
  ASSERT_EQ(plain.exit_code, 0);
  EXPECT_EQ(cells_of(plain.out)[0]["block"], "air");
}

TEST(ProbeWorld, AnExistingWorldKeepsItsSeed) {
  testing::TempDir tmp;
  const std::string w = (tmp.path() / "world").string();
  const std::vector<std::string> at = {"--at", "8,40,8", "--at", "100,70,-300", "--at", "-500,20,33", "--json", "--threads", "1"};
  auto seed_a = [&](std::vector<std::string> args) {
    args.insert(args.end(), at.begin(), at.end());
    return run_voxen(args);
  };
  auto made = seed_a({"probe", "--world", w, "--seed", "1234"});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  auto other = seed_a({"probe", "--world", w, "--seed", "999"});
  ASSERT_EQ(other.exit_code, 0) << other.err;
  EXPECT_NE(other.err.find("has seed 1234; --seed 999 is ignored"), std::string::npos) << other.err;
  EXPECT_EQ(cells_of(other.out), cells_of(made.out));
  EXPECT_NE(testing::read_file_bytes(fs::path(w) / "voxen.toml").find("seed = \"1234\""), std::string::npos);
  // The plain generator with the other seed differs somewhere (so the check above means something).
  auto plain_other = seed_a({"probe", "--seed", "999"});
  EXPECT_NE(cells_of(plain_other.out), cells_of(made.out));
}

TEST(ProbeWorld, NotAWorldNewerWorldAndLockedWorldExitOneAndWriteNothing) {
  testing::TempDir tmp;
  // Not a voxen world.
  const fs::path notw = tmp.path() / "docs";
  fs::create_directories(notw);
  std::ofstream(notw / "letter.txt") << "dear";
  auto before = testing::snapshot(notw);
  auto r = run_voxen({"probe", "--world", notw.string(), "--seed", "1", "--at", "0,0,0"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("is not a voxen world"), std::string::npos) << r.err;
  EXPECT_EQ(testing::line_count(r.err), 1);
  EXPECT_EQ(testing::snapshot(notw), before);

  // A world, locked by this process while the binary tries it.
  const fs::path w = tmp.path() / "world";
  ASSERT_EQ(run_voxen({"probe", "--world", w.string(), "--seed", "3", "--generator", "flat", "--edit", "1,1,1=glass", "--at", "1,1,1"}).exit_code, 0);
  {
    OpenOptions o;
    o.dir = w;
    auto held = OwnedWorld::open(o, testing::registry());
    ASSERT_TRUE(held.ok()) << testing::message(held.error());
    before = testing::snapshot(w);
    r = run_voxen({"probe", "--world", w.string(), "--edit", "2,1,1=glass", "--at", "1,1,1"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("locked by another process"), std::string::npos) << r.err;
    EXPECT_EQ(testing::snapshot(w), before);
  }

  // A world from a newer format version.
  std::string meta = testing::read_file_bytes(w / "voxen.toml");
  meta.replace(meta.find("format_version = 1"), 18, "format_version = 7");
  std::ofstream(w / "voxen.toml") << meta;
  before = testing::snapshot(w);
  r = run_voxen({"probe", "--world", w.string(), "--edit", "2,1,1=glass", "--at", "1,1,1"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("format version 7, newer than this build reads (1)"), std::string::npos) << r.err;
  EXPECT_EQ(testing::snapshot(w), before);

  // No world and no --seed: nothing is created.
  r = run_voxen({"probe", "--world", (tmp.path() / "nope").string(), "--at", "0,0,0"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_FALSE(fs::exists(tmp.path() / "nope"));
}

TEST(ProbeWorld, CorruptRecordIsReportedFallsBackAndIsKeptAside) {
  testing::TempDir tmp;
  const fs::path w = tmp.path() / "world";
  auto made = run_voxen({"probe", "--world", w.string(), "--seed", "3", "--generator", "flat", "--edit", "5,2,5=bricks",
                         "--edit", "5,40,5=glass", "--edit", "40,2,5=planks", "--at", "5,2,5"});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  const RecordKey key{RecordKind::kJournal, section_pos_of({5, 2, 5})};
  const std::string garbage = std::string("V\x01\x01\x01\x10\x00\x00\x00", 8) + "this is not zstd";
  {
    auto store = RocksWorldStore::open(w / "db", w / "corrupt", false);
    ASSERT_TRUE(store.ok());
    ASSERT_TRUE((*store)->poke(key, garbage).ok());
  }
  auto r = run_voxen({"probe", "--world", w.string(), "--at", "5,2,5", "--at", "5,40,5", "--at", "40,2,5", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("corrupt record at column (0, 0) section 8 (y 0..15)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("bad zstd frame"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("falls back to generation"), std::string::npos) << r.err;
  const auto c = cells_of(r.out);
  EXPECT_EQ(c[0]["block"], "air");     // generation
  EXPECT_EQ(c[1]["block"], "glass");   // the column's other section
  EXPECT_EQ(c[2]["block"], "planks");  // another column
  ASSERT_TRUE(fs::exists(w / "corrupt" / "j.0.0.8.bin"));
  EXPECT_EQ(testing::read_file_bytes(w / "corrupt" / "j.0.0.8.bin"), garbage);
}

TEST(ProbeWorld, BlockMissingFromTheRegistryShowsAsUnknownAndIsReported) {
  testing::TempDir tmp;
  const fs::path w = tmp.path() / "world";
  ASSERT_EQ(run_voxen({"probe", "--world", w.string(), "--seed", "3", "--generator", "flat", "--edit", "6,3,6=glass",
                       "--edit", "7,3,6=bricks", "--at", "6,3,6"})
                .exit_code,
            0);
  // A registry without glass, in a data folder of its own.
  const fs::path data = tmp.path() / "data";
  fs::create_directories(data);
  std::string text = testing::read_file_bytes(fs::path(VOXEN_SOURCE_DIR) / "data" / "blocks.toml");
  const size_t at = text.find("name = \"glass\"");
  ASSERT_NE(at, std::string::npos);
  const size_t begin = text.rfind("[[block]]", at), end = text.find("[[block]]", at);
  text.erase(begin, end - begin);
  std::ofstream(data / "blocks.toml") << text;
  auto r = run_voxen({"probe", "--world", w.string(), "--at", "6,3,6", "--at", "7,3,6", "--json"},
                     "VOXEN_DATA_DIR=" + data.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto c = cells_of(r.out);
  EXPECT_EQ(c[0]["block"], "unknown");
  EXPECT_EQ(c[1]["block"], "bricks");
  EXPECT_NE(r.err.find("block 'glass' is not in the block registry"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("1 cell of block 'glass'"), std::string::npos) << r.err;
  // With the full registry again, the glass is back.
  r = run_voxen({"probe", "--world", w.string(), "--at", "6,3,6", "--json"});
  EXPECT_EQ(cells_of(r.out)[0]["block"], "glass");
}

TEST(MemCli, ReportsResidentBytesOfCellsLightAndMeshes) {
  auto r = run_voxen({"mem", "--seed", "3", "--render-distance", "2", "--unpacked-radius", "0", "--json", "--threads", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["columns"].get<int>(), 25);
  EXPECT_EQ(j["packed_columns"].get<int>(), 24);
  EXPECT_EQ(j["unpacked_columns"].get<int>(), 1);
  EXPECT_GT(j["cell_bytes"].get<uint64_t>(), 0u);
  EXPECT_GT(j["light_bytes"].get<uint64_t>(), 0u);
  EXPECT_GT(j["mesh_bytes"].get<uint64_t>(), 0u);
  EXPECT_EQ(j["mesh_bytes"].get<uint64_t>() % 4, 0u);  // quad records are 16 or 20 bytes
  EXPECT_LT(j["cell_bytes"].get<uint64_t>(), j["raw_cell_bytes"].get<uint64_t>());
  EXPECT_LT(j["light_bytes"].get<uint64_t>(), j["raw_light_bytes"].get<uint64_t>());
  // Thread count changes nothing but the time.
  auto r2 = run_voxen({"mem", "--seed", "3", "--render-distance", "2", "--unpacked-radius", "0", "--json", "--threads", "2"});
  auto j2 = nlohmann::json::parse(r2.out, nullptr, false);
  for (const char* k : {"columns", "cell_bytes", "light_bytes", "mesh_bytes", "quads"}) EXPECT_EQ(j[k], j2[k]) << k;
}

TEST(MemCli, ReadsASavedWorldAndBadArgumentsExitTwo) {
  testing::TempDir tmp;
  const fs::path w = tmp.path() / "world";
  ASSERT_EQ(run_voxen({"probe", "--world", w.string(), "--seed", "3", "--edit", "0,100,0=glowstone", "--at", "0,100,0"}).exit_code, 0);
  auto saved = run_voxen({"mem", "--world", w.string(), "--render-distance", "1", "--json"});
  auto plain = run_voxen({"mem", "--seed", "3", "--render-distance", "1", "--json"});
  ASSERT_EQ(saved.exit_code, 0) << saved.err;
  auto js = nlohmann::json::parse(saved.out), jp = nlohmann::json::parse(plain.out);
  EXPECT_EQ(js["columns"], 9);
  EXPECT_NE(js["mesh_bytes"], jp["mesh_bytes"]);  // the saved glowstone is meshed
  auto bad = run_voxen({"mem", "--render-distance", "-3"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--render-distance"), std::string::npos);
  for (const char* k : {"-2", "257", "18446744073709551616"}) {
    auto bad_k = run_voxen({"mem", "--render-distance", "1", "--unpacked-radius", k});
    EXPECT_EQ(bad_k.exit_code, 2) << k << ": " << bad_k.err;
    EXPECT_NE(bad_k.err.find("--unpacked-radius"), std::string::npos) << bad_k.err;
  }
}

}  // namespace
}  // namespace voxen::store
