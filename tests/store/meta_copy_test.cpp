// The database's copy of a world's metadata (issue 13, item 3 b/c): voxen.toml with two block ids swapped, or its
// kind or seed changed, used to open with wrong cells and no warning. The copy (kind, seed, generator, block-id table;
// payload 6) is kept in the database and compared on open: the copy wins (the records were written with it), the
// difference is warned naming the world, each field and both values, voxen.toml is rewritten and its old bytes kept
// in corrupt/. Through the real binary (`voxen probe --world`), and in-process for the codec and the comparison.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "run_command.h"
#include "store_test_util.h"
#include "voxen/store/codec.h"
#include "voxen/store/rocks_store.h"
#include "voxen/store/world_meta.h"

namespace voxen::store {
namespace {

using testing::OwnedWorld;

using testing::message;
using testing::run_voxen;
namespace fs = std::filesystem;

WorldMeta sample_meta() {
  WorldMeta m;
  m.kind = WorldKind::kGenerated;
  m.seed = 18446744073709551615ull;
  m.generator = "default";
  m.generator_fingerprint = "0123456789abcdef";
  m.registry = {{"air", 0}, {"stone", 1}, {"glass", 20}, {"planks", 5}, {"water", 300}};
  return m;
}

TEST(MetaCopy, RoundTripsAndRejectsDamageNamingTheByte) {
  const WorldMeta m = sample_meta();
  const std::string bytes = encode_meta_record(m);
  auto back = decode_meta_record(bytes);
  ASSERT_TRUE(back.ok()) << message(back.error());
  EXPECT_EQ(back->kind, m.kind);
  EXPECT_EQ(back->seed, m.seed);
  EXPECT_EQ(back->generator, m.generator);
  EXPECT_EQ(back->registry, m.registry);
  EXPECT_TRUE(back->generator_fingerprint.empty());  // not part of the copy
  // Every truncation fails, naming a byte offset.
  for (size_t n = 0; n < bytes.size(); ++n) {
    auto r = decode_meta_record(std::string_view(bytes).substr(0, n));
    ASSERT_FALSE(r.ok()) << n;
    EXPECT_NE(r.error().message.find(" at byte "), std::string::npos) << r.error().message;
  }
  EXPECT_NE(decode_meta_record(bytes + "x").error().message.find("1 trailing bytes"), std::string::npos);
  std::string bad_kind = bytes;
  bad_kind[0] = 7;
  EXPECT_NE(decode_meta_record(bad_kind).error().message.find("kind 7"), std::string::npos);
  // A name that is not a block name; a name given twice (the second "planks" renamed "stone").
  std::string bad_name = bytes;
  const size_t at = bad_name.find("planks");
  ASSERT_NE(at, std::string::npos);
  bad_name.replace(at, 6, "Planks");
  EXPECT_NE(decode_meta_record(bad_name).error().message.find("is not [a-z0-9_]+"), std::string::npos);
  WorldMeta two = m;
  two.registry = {{"air", 0}, {"stone", 1}, {"stonf", 2}};
  std::string twice = encode_meta_record(two);
  twice[twice.rfind("stonf") + 4] = 'e';
  EXPECT_NE(decode_meta_record(twice).error().message.find("block 'stone' is given twice"), std::string::npos);
}

TEST(MetaCopy, ComparisonNamesEachFieldWithBothValuesAndTheCopyWins) {
  const WorldMeta copy = sample_meta();
  WorldMeta file = copy;
  EXPECT_TRUE(compare_meta(file, copy).differences.empty());
  EXPECT_FALSE(compare_meta(file, copy).copy_outdated);

  // Two ids swapped.
  file.registry["glass"] = 5;
  file.registry["planks"] = 20;
  auto c = compare_meta(file, copy);
  EXPECT_EQ(c.differences, (std::vector<std::string>{"block 'glass' is 5 in voxen.toml and 20 in the database",
                                                     "block 'planks' is 20 in voxen.toml and 5 in the database"}));
  EXPECT_EQ(c.merged.registry, copy.registry);
  EXPECT_EQ(c.merged.generator_fingerprint, file.generator_fingerprint);

  // Kind, seed and generator changed; a block missing.
  file = copy;
  file.kind = WorldKind::kImported;
  file.seed = 42;
  file.generator = "flat";
  file.registry.erase("water");
  c = compare_meta(file, copy);
  EXPECT_EQ(c.differences, (std::vector<std::string>{
                               "kind is \"imported\" in voxen.toml and \"generated\" in the database",
                               "seed is 42 in voxen.toml and 18446744073709551615 in the database",
                               "generator is 'flat' in voxen.toml and 'default' in the database",
                               "block 'water' is missing in voxen.toml and 300 in the database"}));
  EXPECT_EQ(c.merged.kind, WorldKind::kGenerated);
  EXPECT_EQ(c.merged.seed, copy.seed);
  EXPECT_EQ(c.merged.generator, "default");
  EXPECT_TRUE(c.merged.generator_fingerprint.empty());  // another generator's fingerprint: recomputed on open
  EXPECT_EQ(c.merged.registry, copy.registry);

  // voxen.toml grew (a block saved for the first time, the copy not yet rewritten): not a difference; a grown entry
  // whose id the copy gives to another block was never used by a record and is dropped.
  file = copy;
  file.registry["torch"] = 50;
  c = compare_meta(file, copy);
  EXPECT_TRUE(c.differences.empty());
  EXPECT_TRUE(c.copy_outdated);
  EXPECT_EQ(c.merged.registry.at("torch"), 50);
  file.registry.erase("glass");
  file.registry["sand"] = 20;
  c = compare_meta(file, copy);
  EXPECT_EQ(c.differences, (std::vector<std::string>{"block 'glass' is missing in voxen.toml and 20 in the database"}));
  EXPECT_EQ(c.merged.registry.count("sand"), 0u);
  EXPECT_EQ(c.merged.registry.at("glass"), 20);
}

// A store's copy must agree with the metadata a session is attached with (no voxen.toml to rewrite there).
TEST(MetaCopy, AttachRefusesMetadataThatDiffersFromTheStoresCopy) {
  MemoryWorldStore store;
  WorldMeta meta;
  meta.seed = 3;
  meta.generator = "flat";
  auto gen = *testing::generator_factory()("flat", 3);
  {
    auto s = OwnedWorld::attach(store, meta, testing::registry(), gen);
    ASSERT_TRUE(s.ok()) << message(s.error());
    ASSERT_TRUE(store.get_meta_record()->has_value());  // written on attach
    meta = (*s)->meta();
  }
  WorldMeta other = meta;
  other.seed = 4;
  auto s = OwnedWorld::attach(store, other, testing::registry(), gen);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("seed is 4 in voxen.toml and 3 in the database"), std::string::npos) << s.error().message;
  EXPECT_TRUE(OwnedWorld::attach(store, meta, testing::registry(), gen).ok());
}

/// The cells `voxen probe --world w --at ... --json` prints (block names), its exit code and stderr.
struct Probe {
  int exit_code = -1;
  std::vector<std::string> blocks;
  std::string err;
};
Probe probe(const fs::path& w, const std::vector<std::string>& at) {
  std::vector<std::string> args = {"probe", "--world", w.string(), "--json", "--threads", "1"};
  for (const auto& a : at) args.insert(args.end(), {"--at", a});
  auto r = run_voxen(args);
  Probe p{r.exit_code, {}, r.err};
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  if (!j.is_discarded())
    for (const auto& c : j["cells"]) p.blocks.push_back(c["block"].get<std::string>());
  return p;
}

/// Replaces a line of voxen.toml that matches `pattern` (a whole line) with `line`.
void edit_toml(const fs::path& w, const std::string& pattern, const std::string& line) {
  std::string t = testing::read_file_bytes(w / "voxen.toml");
  const std::string changed = std::regex_replace(t, std::regex("(^|\n)" + pattern + "\n"), "$1" + line + "\n");
  ASSERT_NE(changed, t) << pattern;
  std::ofstream(w / "voxen.toml", std::ios::trunc) << changed;
}

/// The id voxen.toml gives a block.
int toml_id(const fs::path& w, const std::string& name) {
  std::smatch m;
  const std::string t = testing::read_file_bytes(w / "voxen.toml");
  if (!std::regex_search(t, m, std::regex("\n" + name + " = ([0-9]+)\n"))) return -1;
  return std::stoi(m[1]);
}

/// A flat world with glass at (6, 3, 6) and planks at (7, 3, 6) (generation has air there).
fs::path glass_and_planks_world(const fs::path& tmp) {
  const fs::path w = tmp / "world";
  auto r = run_voxen({"probe", "--world", w.string(), "--seed", "3", "--generator", "flat", "--edit", "6,3,6=glass",
                      "--edit", "7,3,6=planks", "--at", "6,3,6"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return w;
}

// The case (b): voxen.toml with the ids of glass and planks swapped showed glass as planks and back.
TEST(MetaCopyCli, SwappedBlockIdsInVoxenTomlAreWarnedAndTheDatabasesIdsUsed) {
  testing::TempDir tmp;
  const fs::path w = glass_and_planks_world(tmp.path());
  const int glass = toml_id(w, "glass"), planks = toml_id(w, "planks");
  ASSERT_GT(glass, 0);
  ASSERT_GT(planks, 0);
  const std::string original = testing::read_file_bytes(w / "voxen.toml");
  edit_toml(w, "glass = [0-9]+", "glass = " + std::to_string(planks));
  edit_toml(w, "planks = [0-9]+", "planks = " + std::to_string(glass));
  const std::string damaged = testing::read_file_bytes(w / "voxen.toml");

  const Probe p = probe(w, {"6,3,6", "7,3,6"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_EQ(p.blocks, (std::vector<std::string>{"glass", "planks"}));
  const std::string want = "world " + w.string() + ": voxen.toml does not match the metadata its database was written with: block 'glass' is " +
                           std::to_string(planks) + " in voxen.toml and " + std::to_string(glass) + " in the database, block 'planks' is " +
                           std::to_string(glass) + " in voxen.toml and " + std::to_string(planks) +
                           " in the database; the database's values are used and voxen.toml is rewritten with them (the old file is kept as " +
                           (w / "corrupt" / "voxen.toml.1").string() + ")";
  EXPECT_NE(p.err.find(want), std::string::npos) << p.err;
  EXPECT_EQ(testing::line_count(p.err), 1) << p.err;
  EXPECT_EQ(testing::read_file_bytes(w / "corrupt" / "voxen.toml.1"), damaged);
  EXPECT_EQ(testing::read_file_bytes(w / "voxen.toml"), original);

  // Mended: the next open says nothing.
  const Probe again = probe(w, {"6,3,6", "7,3,6"});
  EXPECT_EQ(again.blocks, p.blocks);
  EXPECT_EQ(again.err, "");
}

// The case (c): `kind` changed (the generated world read as an imported one: air everywhere), and the seed
// changed (edits over other terrain): both warned, both mended from the database's copy.
TEST(MetaCopyCli, AChangedKindOrSeedIsWarnedAndTheDatabasesValuesUsed) {
  testing::TempDir tmp;
  const fs::path w = glass_and_planks_world(tmp.path());
  const std::vector<std::string> at = {"6,3,6", "7,3,6", "20,0,20", "5,-1,9"};
  const Probe before = probe(w, at);
  ASSERT_EQ(before.exit_code, 0) << before.err;
  ASSERT_EQ(before.blocks.size(), 4u);
  ASSERT_NE(before.blocks[2], "air");  // flat terrain there: an imported reading would show air

  edit_toml(w, "kind = \"generated\"", "kind = \"imported\"");
  Probe p = probe(w, at);
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_EQ(p.blocks, before.blocks);
  EXPECT_NE(p.err.find("world " + w.string() + ": voxen.toml does not match the metadata its database was written with: kind "
                       "is \"imported\" in voxen.toml and \"generated\" in the database;"),
            std::string::npos)
      << p.err;
  EXPECT_NE(testing::read_file_bytes(w / "voxen.toml").find("kind = \"generated\""), std::string::npos);

  edit_toml(w, "seed = \"3\"", "seed = \"4\"");
  p = probe(w, at);
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_EQ(p.blocks, before.blocks);
  EXPECT_NE(p.err.find("seed is 4 in voxen.toml and 3 in the database"), std::string::npos) << p.err;
  EXPECT_NE(p.err.find((w / "corrupt" / "voxen.toml.2").string()), std::string::npos) << p.err;
  EXPECT_EQ(p.err.find("generator"), std::string::npos) << p.err;  // the fingerprint still matches the real seed
  EXPECT_EQ(probe(w, at).err, "");
}

// A voxen.toml copied over from another world (another seed, so another generator fingerprint): the database's values
// win, and the fingerprint is started again from what its seed makes, so the next open says nothing (it used to warn of
// a generator change on every open, comparing the other world's fingerprint with this one's terrain).
TEST(MetaCopyCli, AVoxenTomlFromAnotherWorldIsMendedOnceAndNotWarnedAgain) {
  testing::TempDir tmp;
  const fs::path a = tmp.path() / "a", b = tmp.path() / "b";
  for (const auto& [w, seed] : {std::pair{a, "7"}, std::pair{b, "99"}}) {
    auto r = run_voxen({"probe", "--world", w.string(), "--seed", seed, "--edit", "1,90,1=glass", "--at", "1,90,1"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  fs::copy_file(b / "voxen.toml", a / "voxen.toml", fs::copy_options::overwrite_existing);
  const Probe p = probe(a, {"1,90,1"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_NE(p.err.find("seed is 99 in voxen.toml and 7 in the database"), std::string::npos) << p.err;
  const Probe again = probe(a, {"1,90,1"});
  EXPECT_EQ(again.err, "");
  EXPECT_EQ(again.blocks, (std::vector<std::string>{"glass"}));
  EXPECT_NE(testing::read_file_bytes(a / "voxen.toml").find("seed = \"7\""), std::string::npos);
}

// A damaged copy cannot check voxen.toml: exit 1, one line naming the world, nothing printed.
TEST(MetaCopyCli, ADamagedCopyIsAnErrorNamingTheWorld) {
  testing::TempDir tmp;
  const fs::path w = glass_and_planks_world(tmp.path());
  {
    auto st = RocksWorldStore::open(w / "db", w / "corrupt", false);
    ASSERT_TRUE(st.ok()) << message(st.error());
    auto copy = (*st)->get_meta_record();
    ASSERT_TRUE(copy.ok() && copy->has_value());
    std::string bytes = **copy;
    bytes[bytes.size() - 1] = static_cast<char>(bytes[bytes.size() - 1] ^ 0x40);  // the zstd frame's checksum
    ASSERT_TRUE((*st)->poke(kMetaKey, std::string_view(bytes)).ok());
  }
  const Probe p = probe(w, {"6,3,6"});
  EXPECT_EQ(p.exit_code, 1);
  EXPECT_TRUE(p.blocks.empty());
  EXPECT_NE(p.err.find("world " + w.string() + ": the database's copy of the world's metadata (kind, seed, generator, block ids) "
                       "is damaged"),
            std::string::npos)
      << p.err;
  EXPECT_EQ(testing::line_count(p.err), 1) << p.err;
}

// A world from an older voxen has no copy and no write count: it opens as before, says once that they are recorded
// now, and is checked from then on.
TEST(MetaCopyCli, AWorldFromAnOlderVoxenGetsTheRecordsOnItsFirstOpenAndSaysSo) {
  testing::TempDir tmp;
  const fs::path w = glass_and_planks_world(tmp.path());
  {
    auto st = RocksWorldStore::open(w / "db", w / "corrupt", false);
    ASSERT_TRUE(st.ok()) << message(st.error());
    ASSERT_TRUE((*st)->poke(kMetaKey, std::nullopt).ok());
    ASSERT_TRUE((*st)->poke(kWritesKey, std::nullopt).ok());
  }
  fs::remove(w / "db" / std::string(kWritesFile));
  Probe p = probe(w, {"6,3,6", "7,3,6"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_EQ(p.blocks, (std::vector<std::string>{"glass", "planks"}));
  EXPECT_NE(p.err.find("info: world " + w.string() + ": written by an older voxen: its kind, seed, generator and block ids are "
                       "now recorded in its database too, and its writes counted"),
            std::string::npos)
      << p.err;
  EXPECT_EQ(testing::line_count(p.err), 1) << p.err;
  EXPECT_TRUE(fs::exists(w / "db" / std::string(kWritesFile)));
  // From then on it is checked: a swap is found.
  const int glass = toml_id(w, "glass"), planks = toml_id(w, "planks");
  edit_toml(w, "glass = [0-9]+", "glass = " + std::to_string(planks));
  edit_toml(w, "planks = [0-9]+", "planks = " + std::to_string(glass));
  p = probe(w, {"6,3,6", "7,3,6"});
  EXPECT_EQ(p.blocks, (std::vector<std::string>{"glass", "planks"}));
  EXPECT_NE(p.err.find("block 'glass' is " + std::to_string(planks) + " in voxen.toml"), std::string::npos) << p.err;
}

}  // namespace
}  // namespace voxen::store
