// Anvil import of the real Minecraft worlds in ../shared/data/anvil (skipped with a message when absent), checked
// against an independent reader written here: its own region walk, its own zlib calls, its own NBT parser and its
// own bit unpacking (128-bit reads, not the importer's two-word reads) count each chunk's non-air blocks and its
// block states. Each world goes through the real command (`voxen import-anvil --json`), the written world is opened
// through the store (as shot and play open it), and every chunk's column must hold exactly the counted non-air cells
// and exactly the voxen cells its states map to. 1.12.2 is refused with the DataVersion named. Plus a picture of an
// imported world against its golden (tests/golden/anvil_gomc_1_18_1.png).
#include <gtest/gtest.h>
#include <zlib.h>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "run_command.h"
#include "voxen/import/minecraft_blocks.h"
#include "voxen/render/image.h"
#include "voxen/render/imgdiff.h"
#include "voxen/store/world_session.h"

namespace voxen {
namespace {

namespace fs = std::filesystem;

const std::string kAnvil = std::string(VOXEN_SHARED_DATA_DIR) + "/anvil/";

// ---- the independent reader ---------------------------------------------------------------------------------

struct Tag {
  uint8_t type = 0;
  int64_t num = 0;
  std::string str;
  std::vector<int64_t> longs;
  std::vector<std::pair<std::string, Tag>> members;  // compound
  std::vector<Tag> items;                            // list
  const Tag* member(const std::string& n) const {
    for (const auto& [k, v] : members)
      if (k == n) return &v;
    return nullptr;
  }
};

struct Cursor {
  const std::vector<uint8_t>& b;
  size_t at = 0;
  uint64_t be(int n) {
    if (at + static_cast<size_t>(n) > b.size()) throw std::runtime_error("truncated NBT");
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v = v << 8 | b[at++];
    return v;
  }
  std::string text() {
    const size_t n = be(2);
    if (at + n > b.size()) throw std::runtime_error("truncated string");
    std::string s(b.begin() + static_cast<ptrdiff_t>(at), b.begin() + static_cast<ptrdiff_t>(at + n));
    at += n;
    return s;
  }
  Tag payload(uint8_t type) {
    Tag t;
    t.type = type;
    switch (type) {
      case 1: t.num = static_cast<int8_t>(be(1)); break;
      case 2: t.num = static_cast<int16_t>(be(2)); break;
      case 3: t.num = static_cast<int32_t>(be(4)); break;
      case 4: t.num = static_cast<int64_t>(be(8)); break;
      case 5: be(4); break;
      case 6: be(8); break;
      case 7: at += static_cast<size_t>(static_cast<int32_t>(be(4))); break;
      case 8: t.str = text(); break;
      case 9: {
        const uint8_t e = static_cast<uint8_t>(be(1));
        const int32_t n = static_cast<int32_t>(be(4));
        for (int32_t i = 0; i < n; ++i) t.items.push_back(payload(e));
        break;
      }
      case 10:
        for (uint8_t k = static_cast<uint8_t>(be(1)); k != 0; k = static_cast<uint8_t>(be(1))) {
          std::string name = text();
          t.members.emplace_back(std::move(name), payload(k));
        }
        break;
      case 11: {
        const int32_t n = static_cast<int32_t>(be(4));
        at += static_cast<size_t>(n) * 4;
        break;
      }
      case 12: {
        const int32_t n = static_cast<int32_t>(be(4));
        for (int32_t i = 0; i < n; ++i) t.longs.push_back(static_cast<int64_t>(be(8)));
        break;
      }
      default: throw std::runtime_error("bad tag type");
    }
    return t;
  }
};

std::vector<uint8_t> inflate_any(const uint8_t* p, size_t n) {
  z_stream z{};
  inflateInit2(&z, 15 + 32);  // zlib or gzip, detected
  std::vector<uint8_t> out(1 << 20);
  z.next_in = const_cast<Bytef*>(p);
  z.avail_in = static_cast<uInt>(n);
  size_t have = 0;
  while (true) {
    z.next_out = out.data() + have;
    z.avail_out = static_cast<uInt>(out.size() - have);
    const int rc = inflate(&z, Z_NO_FLUSH);
    have = out.size() - z.avail_out;
    if (rc == Z_STREAM_END) break;
    if (rc != Z_OK && rc != Z_BUF_ERROR) throw std::runtime_error("inflate failed");
    if (z.avail_out == 0) out.resize(out.size() * 2);
  }
  inflateEnd(&z);
  out.resize(have);
  return out;
}

struct ChunkCount {
  uint64_t non_air = 0;
  std::map<std::string, uint64_t> states;  // "name[k=v,...]" (properties sorted) -> blocks
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> props;  // state -> properties
};

bool air_name(const std::string& n) { return n == "minecraft:air" || n == "minecraft:cave_air" || n == "minecraft:void_air"; }

// Counts every finished chunk of a region: (chunk x, chunk z) -> counts.
std::map<std::pair<int32_t, int32_t>, ChunkCount> count_region(const fs::path& file, int32_t rx, int32_t rz, uint64_t& listed) {
  std::ifstream in(file, std::ios::binary);
  const std::vector<uint8_t> f((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::map<std::pair<int32_t, int32_t>, ChunkCount> out;
  for (int i = 0; i < 1024 && f.size() >= 8192; ++i) {
    const size_t e = static_cast<size_t>(i) * 4;
    const uint32_t sector = (uint32_t{f[e]} << 16) | (uint32_t{f[e + 1]} << 8) | f[e + 2];
    if (sector == 0) continue;
    ++listed;
    const size_t at = static_cast<size_t>(sector) * 4096;
    const uint32_t len = (uint32_t{f[at]} << 24) | (uint32_t{f[at + 1]} << 16) | (uint32_t{f[at + 2]} << 8) | f[at + 3];
    const uint8_t comp = f[at + 4];
    std::vector<uint8_t> nbt = comp == 3 ? std::vector<uint8_t>(f.begin() + static_cast<ptrdiff_t>(at + 5), f.begin() + static_cast<ptrdiff_t>(at + 4 + len))
                                         : inflate_any(&f[at + 5], len - 1);
    Cursor c{nbt};
    c.be(1);
    c.text();
    const Tag root = c.payload(10);
    const int64_t dv = root.member("DataVersion")->num;
    const Tag* level = root.member("Level");
    const Tag& body = level ? *level : root;
    std::string status = body.member("Status") ? body.member("Status")->str : "";
    if (status.rfind("minecraft:", 0) == 0) status = status.substr(10);
    if (status != "full" && status != "postprocessed" && status != "fullchunk") continue;
    ChunkCount& cc = out[{rx * 32 + (i % 32), rz * 32 + (i / 32)}];
    const Tag* secs = body.member(level ? "Sections" : "sections");
    if (!secs) continue;
    for (const Tag& s : secs->items) {
      const Tag* holder = level ? &s : s.member("block_states");
      if (!holder) continue;
      const Tag* pal = holder->member(level ? "Palette" : "palette");
      const Tag* data = holder->member(level ? "BlockStates" : "data");
      if (!pal || pal->items.empty()) continue;
      std::vector<std::string> keys;
      for (const Tag& p : pal->items) {
        std::vector<std::pair<std::string, std::string>> kv;
        if (const Tag* pr = p.member("Properties"))
          for (const auto& [k, v] : pr->members) kv.emplace_back(k, v.str);
        std::sort(kv.begin(), kv.end());
        std::string key = p.member("Name")->str;
        if (!kv.empty()) {
          key += "[";
          for (size_t k = 0; k < kv.size(); ++k) key += (k ? "," : "") + kv[k].first + "=" + kv[k].second;
          key += "]";
        }
        cc.props[key] = kv;
        keys.push_back(key);
      }
      std::vector<uint64_t> n(keys.size(), 0);
      if (!data || data->longs.empty()) {
        n[0] = 4096;
      } else {
        int bits = 4;
        while ((size_t{1} << bits) < keys.size()) ++bits;
        const auto& L = data->longs;
        for (int idx = 0; idx < 4096; ++idx) {
          uint64_t v;
          if (dv < 2529) {
            const uint64_t bit = static_cast<uint64_t>(idx) * static_cast<uint64_t>(bits);
            unsigned __int128 two = static_cast<uint64_t>(L[bit / 64]);
            if (bit / 64 + 1 < L.size()) two |= static_cast<unsigned __int128>(static_cast<uint64_t>(L[bit / 64 + 1])) << 64;
            v = static_cast<uint64_t>(two >> (bit % 64)) & ((uint64_t{1} << bits) - 1);
          } else {
            const int per = 64 / bits;
            v = (static_cast<uint64_t>(L[static_cast<size_t>(idx / per)]) >> ((idx % per) * bits)) & ((uint64_t{1} << bits) - 1);
          }
          ++n.at(v);
        }
      }
      for (size_t k = 0; k < keys.size(); ++k) {
        if (!n[k]) continue;
        cc.states[keys[k]] += n[k];
        if (!air_name(keys[k].substr(0, keys[k].find('[')))) cc.non_air += n[k];
      }
    }
  }
  return out;
}

// ---- the test -------------------------------------------------------------------------------------------------

const BlockRegistry& reg() {
  static const BlockRegistry r = *BlockRegistry::load_default();
  return r;
}

struct World {
  const char* name;
  uint64_t chunks;
};
void PrintTo(const World& w, std::ostream* os) { *os << w.name; }

class RealAnvilWorlds : public ::testing::TestWithParam<World> {};

TEST_P(RealAnvilWorlds, ImportHoldsExactlyWhatAnIndependentReaderCounts) {
  const World& w = GetParam();
  const fs::path src = kAnvil + w.name;
  if (!fs::exists(src)) GTEST_SKIP() << "shared data " << src << " is absent (../shared/data)";
  // The independent count.
  std::map<std::pair<int32_t, int32_t>, ChunkCount> want;
  uint64_t listed = 0;
  for (const auto& e : fs::directory_iterator(src / "region")) {
    int32_t rx = 0, rz = 0;
    if (std::sscanf(e.path().filename().c_str(), "r.%d.%d.mca", &rx, &rz) != 2) continue;
    want.merge(count_region(e.path(), rx, rz, listed));
  }
  ASSERT_EQ(listed, w.chunks);
  // The real command.
  const fs::path dir = fs::temp_directory_path() / ("voxen_anvil_real_" + std::string(w.name) + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const auto r = testing::run_voxen({"import-anvil", src.string(), "--world", dir.string(), "--threads", "2", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["chunks"].get<uint64_t>(), listed);
  EXPECT_EQ(j["chunks_imported"].get<uint64_t>(), want.size());
  uint64_t blocks = 0;
  std::set<std::string> states;
  for (const auto& [pos, cc] : want) {
    blocks += cc.non_air;
    for (const auto& [k, n] : cc.states) states.insert(k);
  }
  EXPECT_EQ(j["blocks"].get<uint64_t>(), blocks);
  EXPECT_EQ(j["distinct_states"].get<uint64_t>(), states.size());
  EXPECT_EQ(j["clipped_blocks"].get<uint64_t>(), 0u);

  // The world as shot and play open it: every chunk's column, non-air cells and distinct cells.
  const auto map = *import::MinecraftBlockMap::load_default(reg());
  store::OpenOptions o;
  o.dir = dir;
  auto session = store::WorldSession::open(o, reg(), [](const std::string&, uint64_t) -> Result<std::string> { return Error{"none"}; });
  ASSERT_TRUE(session.ok()) << session.error().to_string();
  EXPECT_FALSE((*session)->generated());
  std::vector<std::unique_ptr<Column>> cols;
  for (const auto& [pos, cc] : want) cols.push_back(std::make_unique<Column>(ColumnPos{pos.first, pos.second}));
  ASSERT_TRUE((*session)->load(cols).ok());
  size_t checked = 0;
  for (const auto& col : cols) {
    const ChunkCount& cc = want.at({static_cast<int32_t>(col->pos().x), static_cast<int32_t>(col->pos().z)});
    uint64_t non_air = 0;
    std::set<uint32_t> cells;
    for (int s = 0; s < kSectionsPerColumn; ++s) {
      uint32_t buf[kSectionVolume];
      col->section(s).unpack(buf);
      for (uint32_t v : buf)
        if (v != 0) {
          ++non_air;
          cells.insert(v);
        }
    }
    std::set<uint32_t> expected;
    for (const auto& [key, n] : cc.states) {
      const std::string name = key.substr(0, key.find('['));
      if (air_name(name)) continue;
      import::MinecraftBlockState st{name, cc.props.at(key)};
      expected.insert(map.map(st).cell.packed());
    }
    EXPECT_EQ(non_air, cc.non_air) << w.name << " chunk (" << col->pos().x << ", " << col->pos().z << ")";
    EXPECT_EQ(cells, expected) << w.name << " chunk (" << col->pos().x << ", " << col->pos().z << ")";
    ++checked;
  }
  EXPECT_EQ(checked, want.size());
  ASSERT_TRUE((*session)->close().ok());
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(SharedData, RealAnvilWorlds,
                         ::testing::Values(World{"gomc_1.18.1_world", 593}, World{"gomc_1.14.4_world", 529},
                                           World{"mcaselector_1.16.2_debug", 292}, World{"ensgijs_1.13.2", 1},
                                           World{"ensgijs_1.20.4", 5}),
                         [](const ::testing::TestParamInfo<World>& p) {
                           std::string n = p.param.name;
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

TEST(RealAnvilWorlds, OneTwelveIsRefusedNamingItsDataVersion) {
  const fs::path src = kAnvil + "ensgijs_1.12.2_legacy";
  if (!fs::exists(src)) GTEST_SKIP() << "shared data " << src << " is absent (../shared/data)";
  const fs::path dir = fs::temp_directory_path() / ("voxen_anvil_legacy_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const auto r = testing::run_voxen({"import-anvil", (src / "region" / "r.0.0.mca").string(), "--world", dir.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("DataVersion 1343, Minecraft 1.12.2"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("numeric block ids"), std::string::npos) << r.err;
  fs::remove_all(dir);
}

// The 100 most common non-air blocks of the shared worlds (1.13 and later, by block count) each have a voxen block
// of their own (a [blocks] entry), not a map-colour or "unknown" fallback.
TEST(RealAnvilWorlds, TheHundredMostCommonBlocksMapToRealBlocks) {
  if (!fs::exists(kAnvil + "gomc_1.18.1_world")) GTEST_SKIP() << "shared data " << kAnvil << " is absent (../shared/data)";
  std::map<std::string, uint64_t> by_name;
  for (const auto& world : fs::directory_iterator(kAnvil)) {
    if (world.path().filename().string().find("1.12") != std::string::npos || !fs::exists(world.path() / "region")) continue;
    for (const auto& e : fs::directory_iterator(world.path() / "region")) {
      int32_t rx = 0, rz = 0;
      if (std::sscanf(e.path().filename().c_str(), "r.%d.%d.mca", &rx, &rz) != 2) continue;
      uint64_t listed = 0;
      for (const auto& [pos, cc] : count_region(e.path(), rx, rz, listed))
        for (const auto& [key, n] : cc.states) by_name[key.substr(0, key.find('['))] += n;
    }
  }
  std::vector<std::pair<uint64_t, std::string>> ranked;
  for (const auto& [name, n] : by_name)
    if (!air_name(name)) ranked.emplace_back(n, name);
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  ASSERT_GE(ranked.size(), 100u);
  const auto map = *import::MinecraftBlockMap::load_default(reg());
  for (size_t i = 0; i < 100; ++i) {
    EXPECT_TRUE(map.has_block(ranked[i].second)) << "#" << i + 1 << " " << ranked[i].second << " (" << ranked[i].first
                                                 << " blocks) has no [blocks] entry in data/minecraft_blocks.toml";
    EXPECT_FALSE(map.map(import::MinecraftBlockState{ranked[i].second, {}}).fallback) << ranked[i].second;
  }
}

// Peak memory is bounded by the threads' working sets and the writer, not by the world's size: a world of 40 regions
// (each a hard link to the 1.18.1 world's r.0.0.mca under another name: 144 chunks each, imported at their slots and
// counted as relocated) peaks within 25% + 8 MiB of a world of 8 (JSON peak_rss_bytes, the process's maximum RSS).
TEST(RealAnvilWorlds, PeakMemoryDoesNotGrowWithTheWorld) {
  const fs::path region = kAnvil + "gomc_1.18.1_world/region/r.0.0.mca";
  if (!fs::exists(region)) GTEST_SKIP() << "shared data " << region << " is absent (../shared/data)";
  auto peak = [&](int regions) {
    const fs::path base = fs::temp_directory_path() / ("voxen_anvil_mem" + std::to_string(regions) + "_" + std::to_string(::getpid()));
    fs::remove_all(base);
    fs::create_directories(base / "mc" / "region");
    for (int i = 0; i < regions; ++i) {
      const fs::path link = base / "mc" / "region" / ("r." + std::to_string(i % 8) + "." + std::to_string(i / 8) + ".mca");
      std::error_code ec;
      fs::create_hard_link(region, link, ec);
      if (ec) fs::copy_file(region, link);  // another file system
    }
    const auto r = testing::run_voxen({"import-anvil", (base / "mc").string(), "--world", (base / "w").string(), "--threads", "2", "--json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["chunks_imported"].get<uint64_t>(), 144u * static_cast<uint64_t>(regions));
    fs::remove_all(base);
    return j["peak_rss_bytes"].get<double>();
  };
  const double small = peak(8);
  const double large = peak(40);
  EXPECT_LE(large, small * 1.25 + 8.0 * (1 << 20)) << "8 regions: " << small / (1 << 20) << " MiB, 40 regions: " << large / (1 << 20) << " MiB";
}

// A picture of an imported world (the 1.18.1 world: a forested hill) against its golden. Strict on the
// renderer that made the golden, look mode on others (the rule of tests/render/golden_test.cpp). The golden changes only
// with a reason: VOXEN_UPDATE_ANVIL_GOLDEN="why" rewrites it and appends the reason to tests/golden/CHANGELOG.md.
TEST(RealAnvilWorlds, AnImportedWorldDrawsLikeItsGolden) {
  const fs::path src = kAnvil + "gomc_1.18.1_world";
  if (!fs::exists(src)) GTEST_SKIP() << "shared data " << src << " is absent (../shared/data)";
  const std::string golden_dir = std::string(VOXEN_SOURCE_DIR) + "/tests/golden/";
  const std::string name = "anvil_gomc_1_18_1";
  const fs::path dir = fs::temp_directory_path() / ("voxen_anvil_golden_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  auto r = testing::run_voxen({"import-anvil", src.string(), "--world", dir.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string png = (dir / "shot.png").string();
  const std::vector<std::string> shot = {"shot", "--world", dir.string(), "--pos", "-60,110,-60", "--look", "135,-32",
                                         "--size", "320x180", "--render-distance", "8", "--json", "--out"};
  auto with_out = [&](const std::string& out) {
    auto a = shot;
    a.push_back(out);
    return a;
  };
  r = testing::run_voxen(with_out(png));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_GT(j["quads_drawn"].get<uint64_t>(), 1000u);
  const std::string png2 = (dir / "shot2.png").string();
  ASSERT_EQ(testing::run_voxen(with_out(png2)).exit_code, 0);
  auto a = render::load_png(png);
  auto b = render::load_png(png2);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->pixels, b->pixels) << "two shots of one imported world differ";
  const std::string renderer = j["gl_renderer"].get<std::string>();
  if (const char* why = std::getenv("VOXEN_UPDATE_ANVIL_GOLDEN"); why && *why) {
    fs::copy_file(png, golden_dir + name + ".png", fs::copy_options::overwrite_existing);
    std::ofstream(golden_dir + name + ".renderer") << renderer << "\n";
    char date[16];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
    std::ofstream(golden_dir + "CHANGELOG.md", std::ios::app) << "- " << date << " `" << name << "`: " << why << " (" << renderer << ")\n";
  }
  auto golden = render::load_png(golden_dir + name + ".png");
  ASSERT_TRUE(golden.ok()) << golden.error().to_string();
  std::ifstream rin(golden_dir + name + ".renderer");
  std::string recorded;
  std::getline(rin, recorded);
  const bool strict = recorded == renderer;
  const auto d = render::compare_images(*a, *golden, strict ? render::DiffMode::kStrict : render::DiffMode::kLook);
  EXPECT_TRUE(d.pass) << name << " differs from its golden (" << (strict ? "strict" : "look") << " mode): "
                      << d.pixels_differing << " pixels differ; new picture kept at " << png;
  if (d.pass) fs::remove_all(dir);
}

}  // namespace
}  // namespace voxen
