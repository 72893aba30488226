// `voxen sim` through the real command line: every scenario's hash is the same with 1 and 2 threads, a saved world
// stopped half-way and resumed ends with the hash of one uninterrupted run, the border scenario waits and resumes,
// and bad flags are refused naming the flag.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "run_command.h"
#include "voxen/store/rocks_store.h"

namespace voxen {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& name)
      : path(fs::temp_directory_path() / ("voxen_sim_cli_" + name + "_" + std::to_string(::getpid()))) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

nlohmann::json sim_json(std::vector<std::string> args) {
  args.insert(args.begin(), "sim");
  args.push_back("--json");
  const auto r = testing::run_voxen(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  if (r.exit_code != 0) return {};
  return nlohmann::json::parse(r.out);
}

TEST(SimCli, EveryScenarioHashesTheSameWithOneAndTwoThreads) {
  for (const char* name : {"dam-break", "sand-tower", "lava-meets-water", "smoke-room", "border"}) {
    const auto one = sim_json({"--seed", "5", "--scenario", name, "--ticks", "40", "--every", "10", "--threads", "1"});
    const auto two = sim_json({"--seed", "5", "--scenario", name, "--ticks", "40", "--every", "10", "--threads", "2"});
    ASSERT_FALSE(one.is_null());
    EXPECT_EQ(one["hashes"], two["hashes"]) << name;
    EXPECT_EQ(one["final_hash"], two["final_hash"]) << name;
    EXPECT_GT(one["changes_total"].get<uint64_t>(), 0u) << name << ": the scenario moved nothing";
    // Every tick's active sections and changes, not only the hashes.
    for (size_t i = 0; i < one["ticks"].size(); ++i) {
      EXPECT_EQ(one["ticks"][i]["active_sections"], two["ticks"][i]["active_sections"]) << name << " tick " << i + 1;
      EXPECT_EQ(one["ticks"][i]["changes"], two["ticks"][i]["changes"]) << name << " tick " << i + 1;
    }
  }
}

TEST(SimCli, ASavedWorldStoppedHalfWayEndsWithTheUninterruptedHash) {
  TempDir t("resume");
  const std::string w = (t.path / "w").string();
  // lava-meets-water: lava moves on every 3rd tick, so a resumed run must also resume the tick count.
  const auto whole = sim_json({"--seed", "3", "--scenario", "lava-meets-water", "--ticks", "61"});
  const auto first = sim_json({"--world", w, "--seed", "3", "--scenario", "lava-meets-water", "--ticks", "31"});
  ASSERT_FALSE(first.is_null());
  EXPECT_GT(first["pending_sections"].get<uint64_t>(), 0u) << "the flow should still be running at tick 31";
  // The pending sections are counted once each, the same before saving and after reopening.
  EXPECT_EQ(sim_json({"--world", w, "--ticks", "0"})["pending_sections"], first["pending_sections"]);
  const auto rest = sim_json({"--world", w, "--ticks", "30"});
  ASSERT_FALSE(rest.is_null());
  EXPECT_EQ(rest["final_tick"], 61);
  EXPECT_EQ(rest["final_hash"], whole["final_hash"]);
  // And the dam break, stopped after 20 ticks.
  const std::string w2 = (t.path / "w2").string();
  const auto dam = sim_json({"--seed", "3", "--scenario", "dam-break", "--ticks", "50"});
  sim_json({"--world", w2, "--seed", "3", "--scenario", "dam-break", "--ticks", "20"});
  const auto dam_rest = sim_json({"--world", w2, "--ticks", "30"});
  EXPECT_EQ(dam_rest["final_hash"], dam["final_hash"]);
}

TEST(SimCli, TheBorderScenarioWaitsForTheUnloadedColumnThenFlowsOn) {
  const auto r = sim_json({"--seed", "2", "--scenario", "border", "--ticks", "60", "--every", "30"});
  ASSERT_FALSE(r.is_null());
  // Before the column loads (ticks 1..30) cells wait and the flow comes to rest; after it, more changes.
  uint64_t frozen_before = 0, changes_after = 0;
  for (const auto& t : r["ticks"]) {
    if (t["tick"].get<int>() <= 30) frozen_before += t["frozen"].get<uint64_t>();
    else changes_after += t["changes"].get<uint64_t>();
  }
  EXPECT_GT(frozen_before, 0u);
  EXPECT_GT(changes_after, 0u);
  EXPECT_EQ(r["ticks"][29]["active_sections"], 0) << "waiting costs no tick";
}

TEST(SimCli, BadFlagsAreRefusedNamingTheFlag) {
  auto r = testing::run_voxen({"sim", "--scenario", "flood-everything"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--scenario"), std::string::npos) << r.err;
  r = testing::run_voxen({"sim", "--ticks", "-3"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--ticks"), std::string::npos) << r.err;
  r = testing::run_voxen({"sim", "--tick-rate", "nan"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--tick-rate"), std::string::npos) << r.err;
  // A site past the world's reach: refused before anything runs (near int64's edge the structure would wrap).
  r = testing::run_voxen({"sim", "--at", "9223372036854775807,0", "--scenario", "border"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--at"), std::string::npos) << r.err;
}

TEST(SimCli, ADamagedPendingRecordIsAClearErrorNotACrash) {
  TempDir t("damaged");
  const std::string w = (t.path / "w").string();
  sim_json({"--world", w, "--seed", "3", "--scenario", "dam-break", "--ticks", "5"});
  {
    auto db = store::RocksWorldStore::open(t.path / "w" / "db", t.path / "aside", false);
    ASSERT_TRUE(db) << db.error().to_string();
    const store::RecordKey key{store::RecordKind::kSimulation, SectionPos{0, 0, 0}};
    auto got = (*db)->get(key);
    ASSERT_TRUE(got && *got) << "the pending updates were not saved";
    std::string bad = **got;
    bad[bad.size() / 2] = static_cast<char>(bad[bad.size() / 2] ^ 0x5A);
    const store::WriteOp op{key, bad};
    ASSERT_TRUE((*db)->write(std::span<const store::WriteOp>(&op, 1), true).ok());
  }
  const auto r = testing::run_voxen({"sim", "--world", w, "--ticks", "1"});
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.err.find("pending updates"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("kept at"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace voxen
