// Anvil import on hand-built region files (tests/import/anvil_builder.h), one rule each: every compression type,
// external .mcc chunks, indices that span longs (before 1.16) and that do not (after), a 1.18 section at Y -4, a
// palette of one entry, proto-chunks, the y offset, the block-state mapping, and each bad input with its message.
// The question asked is always the observable one: which cells the imported columns hold, which chunks were skipped
// and what the message says.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <map>
#include <mutex>

#include "anvil_builder.h"
#include "voxen/import/anvil_chunk.h"
#include "voxen/import/anvil_import.h"

namespace voxen {
namespace {

namespace fs = std::filesystem;
using import::AnvilImportOptions;
using import::AnvilImportReport;
using testing::RegionEntry;
using testing::TestSection;

const BlockRegistry& reg() {
  static const BlockRegistry r = *BlockRegistry::load_default();
  return r;
}
const import::MinecraftBlockMap& mc_map() {
  static const import::MinecraftBlockMap m = *import::MinecraftBlockMap::load_default(reg());
  return m;
}

struct Imported {
  AnvilImportReport report;
  std::map<ColumnPos, std::unique_ptr<Column>> columns;
  Cell at(int64_t x, int64_t y, int64_t z) const {
    auto it = columns.find(ColumnPos{x >> 4, z >> 4});
    if (it == columns.end()) return kAir;
    return it->second->get(static_cast<int>(x & 15), y, static_cast<int>(z & 15));
  }
};

// Imports `source` through import_anvil into columns kept in memory (a copy per column handed to the sink).
Imported run_import(const fs::path& source, AnvilImportOptions o = {}) {
  Imported out;
  std::mutex mu;
  auto r = import::import_anvil(source, mc_map(), o, [&](std::span<const Column* const> cols) -> Status {
    std::lock_guard lock(mu);
    for (const Column* c : cols) out.columns[c->pos()] = std::make_unique<Column>(*c);
    return Ok{};
  });
  EXPECT_TRUE(r.ok()) << r.error().to_string();
  if (r) out.report = std::move(r).value();
  return out;
}

fs::path temp_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("voxen_anvil_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// A section with a pattern over a palette of n entries: cell i holds entry (i * 7 + i / 256) % n.
std::vector<uint16_t> pattern(size_t n) {
  std::vector<uint16_t> idx(4096);
  for (size_t i = 0; i < 4096; ++i) idx[i] = static_cast<uint16_t>((i * 7 + i / 256) % n);
  return idx;
}

// Twenty distinct real blocks (5 bits per index: spans longs in the old packing).
std::vector<std::string> twenty_blocks() {
  return {"minecraft:stone",    "minecraft:dirt",         "minecraft:granite",      "minecraft:diorite",
          "minecraft:andesite", "minecraft:gravel",       "minecraft:sand",         "minecraft:clay",
          "minecraft:tuff",     "minecraft:calcite",      "minecraft:coal_ore",     "minecraft:iron_ore",
          "minecraft:gold_ore", "minecraft:diamond_ore",  "minecraft:copper_ore",   "minecraft:lapis_ore",
          "minecraft:bedrock",  "minecraft:obsidian",     "minecraft:netherrack",   "minecraft:end_stone"};
}

Cell cell_of(const std::string& voxen_name, uint8_t state = 0) { return Cell{reg().id(voxen_name), state}; }

// Expected voxen cell at section-local index i of a pattern section over `palette` (plain names only).
Cell pattern_cell(const std::vector<std::string>& palette, int i) {
  const std::string& mc = palette[static_cast<size_t>((i * 7 + i / 256) % static_cast<int>(palette.size()))];
  return cell_of(mc.substr(10));
}

void expect_pattern(const Imported& im, int32_t cx, int32_t cz, int64_t base_y, const std::vector<std::string>& palette) {
  int bad = 0;
  for (int i = 0; i < 4096 && bad < 5; ++i) {
    const Cell want = pattern_cell(palette, i);
    const Cell got = im.at(int64_t{cx} * 16 + (i & 15), base_y + (i >> 8), int64_t{cz} * 16 + ((i >> 4) & 15));
    if (got != want) {
      ADD_FAILURE() << "chunk (" << cx << ", " << cz << ") cell " << i << ": got id " << got.id << ", want " << want.id;
      ++bad;
    }
  }
}

TEST(AnvilRegion, EveryCompressionTypeGivesTheSameCells) {
  const auto pal = twenty_blocks();
  const auto nbt = testing::chunk_nbt(2865, 0, 0, "minecraft:full", {{0, pal, pattern(pal.size())}}, false);
  for (int type : {1, 2, 3, 4}) {
    SCOPED_TRACE("compression " + std::to_string(type));
    const fs::path dir = temp_dir("comp" + std::to_string(type));
    testing::write_file(dir / "r.0.0.mca", testing::region_bytes({{0, static_cast<uint8_t>(type), testing::compress_chunk(nbt, type)}}));
    const Imported im = run_import(dir / "r.0.0.mca");
    EXPECT_EQ(im.report.chunks, 1u);
    EXPECT_EQ(im.report.chunks_imported, 1u);
    expect_pattern(im, 0, 0, 0, pal);
    fs::remove_all(dir);
  }
}

TEST(AnvilRegion, Lz4JavaStreamsOfManyBlocksRawBlocksAndABadChecksum) {
  const auto pal = twenty_blocks();
  const auto nbt = testing::chunk_nbt(3953, 1, 0, "minecraft:full", {{2, pal, pattern(pal.size())}}, false);
  const fs::path dir = temp_dir("lz4");
  // 1 KiB blocks: the chunk's ~2.7 KiB of NBT takes several; raw blocks (method 0x10) in a second chunk.
  auto many = testing::lz4_java_stream(nbt, 1024);
  auto raw = testing::lz4_java_stream(nbt, 1024, true);
  auto bad = many;
  bad[8 + 1 + 4 + 4] ^= 0x01;  // the first block's checksum
  testing::write_file(dir / "r.0.0.mca", testing::region_bytes({{1, 4, many}, {2, 4, raw}, {3, 4, bad}}));
  const Imported im = run_import(dir / "r.0.0.mca");
  EXPECT_EQ(im.report.chunks_imported, 2u);
  expect_pattern(im, 1, 0, 32, pal);
  expect_pattern(im, 2, 0, 32, pal);
  ASSERT_EQ(im.report.problems.size(), 1u);
  EXPECT_EQ(im.report.problems[0].reason, import::ChunkSkipReason::kCorruptData);
  EXPECT_NE(im.report.problems[0].to_string().find("r.0.0.mca chunk (3, 0): corrupt_data: lz4 block at byte 0: checksum mismatch"),
            std::string::npos)
      << im.report.problems[0].to_string();
  fs::remove_all(dir);
}

TEST(AnvilRegion, ExternalChunksReadTheirMccFileAndAMissingOneIsSkipped) {
  const auto pal = twenty_blocks();
  const fs::path dir = temp_dir("mcc");
  // Region (-1, 2): slot 5 is chunk (-27, 64), slot 6 chunk (-26, 64).
  const auto a = testing::chunk_nbt(2865, -27, 64, "minecraft:full", {{1, pal, pattern(pal.size())}}, false);
  const auto b = testing::chunk_nbt(2865, -26, 64, "minecraft:full", {{1, pal, pattern(pal.size())}}, false);
  testing::write_file(dir / "r.-1.2.mca", testing::region_bytes({{5, 2 + 128, {}}, {6, 2 + 128, {}}}));
  testing::write_file(dir / "c.-27.64.mcc", testing::compress_chunk(a, 2));
  const Imported im = run_import(dir / "r.-1.2.mca");
  EXPECT_EQ(im.report.chunks_imported, 1u);
  expect_pattern(im, -27, 64, 16, pal);
  ASSERT_EQ(im.report.problems.size(), 1u);
  EXPECT_NE(im.report.problems[0].to_string().find("r.-1.2.mca chunk (-26, 64): missing_external: c.-26.64.mcc"), std::string::npos)
      << im.report.problems[0].to_string();
  (void)b;
  fs::remove_all(dir);
}

TEST(AnvilChunk, IndicesSpanLongsBeforeOneSixteenAndNotAfter) {
  const auto pal = twenty_blocks();  // 5 bits: 64 % 5 != 0, so the two packings differ
  const fs::path dir = temp_dir("packing");
  const auto old_nbt = testing::chunk_nbt(1976, 0, 0, "full", {{3, pal, pattern(pal.size())}}, true);    // 1.14.4
  const auto new_nbt = testing::chunk_nbt(2578, 1, 0, "full", {{3, pal, pattern(pal.size())}}, true);    // 1.16.2
  // A 1.16 chunk whose data was packed the old way (length 320, not 342): the length decides.
  TestSection odd{3, pal, pattern(pal.size())};
  odd.force_spanning = true;
  const auto odd_nbt = testing::chunk_nbt(2578, 2, 0, "full", {odd}, true);
  testing::write_file(dir / "r.0.0.mca", testing::region_bytes({{0, 2, testing::compress_chunk(old_nbt, 2)},
                                                                 {1, 2, testing::compress_chunk(new_nbt, 2)},
                                                                 {2, 2, testing::compress_chunk(odd_nbt, 2)}}));
  const Imported im = run_import(dir / "r.0.0.mca");
  EXPECT_EQ(im.report.chunks_imported, 3u);
  for (int cx = 0; cx < 3; ++cx) expect_pattern(im, cx, 0, 48, pal);
  fs::remove_all(dir);
}

TEST(AnvilChunk, ASectionAtYMinusFourASingleEntryPaletteAndTheYOffset) {
  const fs::path dir = temp_dir("heights");
  TestSection deep{-4, {"minecraft:deepslate[axis=y]"}, {}};  // one entry, no data
  TestSection top{19, {"minecraft:air", "minecraft:stone"}, pattern(2)};  // y 304..319: past voxen's 255
  const auto nbt = testing::chunk_nbt(2865, 0, 0, "minecraft:full", {deep, top}, false);
  testing::write_file(dir / "r.0.0.mca", testing::region_bytes({{0, 2, testing::compress_chunk(nbt, 2)}}));
  {
    const Imported im = run_import(dir / "r.0.0.mca");
    EXPECT_EQ(im.at(3, -64, 5), cell_of("deepslate"));
    EXPECT_EQ(im.at(3, -49, 5), cell_of("deepslate"));
    EXPECT_EQ(im.at(3, -65, 5), kAir);
    EXPECT_EQ(im.at(3, -48, 5), kAir);
    EXPECT_EQ(im.report.blocks, 4096u);
    EXPECT_EQ(im.report.clipped_blocks, 2048u);  // the stone half of section 19
  }
  {
    AnvilImportOptions o;
    o.y_offset = -64;  // Minecraft -64..319 onto voxen -128..255
    const Imported im = run_import(dir / "r.0.0.mca", o);
    EXPECT_EQ(im.at(0, -128, 0), cell_of("deepslate"));
    EXPECT_EQ(im.at(0, -113, 0), cell_of("deepslate"));
    EXPECT_EQ(im.report.clipped_blocks, 0u);
    EXPECT_EQ(im.report.blocks, 4096u + 2048u);
    int stone = 0;
    for (int i = 0; i < 4096; ++i) stone += im.at(i & 15, 240 + (i >> 8), (i >> 4) & 15) == cell_of("stone");
    EXPECT_EQ(stone, 2048);
  }
  {
    AnvilImportOptions o;
    o.y_offset = -8;  // not a multiple of 16: cells straddle voxen sections
    const Imported im = run_import(dir / "r.0.0.mca", o);
    EXPECT_EQ(im.at(7, -72, 7), cell_of("deepslate"));
    EXPECT_EQ(im.at(7, -57, 7), cell_of("deepslate"));
    EXPECT_EQ(im.at(7, -56, 7), kAir);
    EXPECT_EQ(im.report.blocks, 4096u);  // section 19 now starts at y 296: still wholly above 255
    EXPECT_EQ(im.report.clipped_blocks, 2048u);
  }
  fs::remove_all(dir);
}

TEST(AnvilChunk, ProtoChunksAreCountedByStatusAndLeftOut) {
  const fs::path dir = temp_dir("proto");
  const std::vector<TestSection> s{{0, {"minecraft:stone"}, {}}};
  testing::write_file(dir / "r.0.0.mca",
                      testing::region_bytes({{0, 2, testing::compress_chunk(testing::chunk_nbt(2865, 0, 0, "minecraft:full", s, false), 2)},
                                             {1, 2, testing::compress_chunk(testing::chunk_nbt(2865, 1, 0, "minecraft:carvers", s, false), 2)},
                                             {2, 2, testing::compress_chunk(testing::chunk_nbt(2865, 2, 0, "minecraft:carvers", s, false), 2)},
                                             {3, 2, testing::compress_chunk(testing::chunk_nbt(1631, 3, 0, "postprocessed", s, true), 2)},
                                             {4, 2, testing::compress_chunk(testing::chunk_nbt(1976, 4, 0, "features", s, true), 2)}}));
  const Imported im = run_import(dir / "r.0.0.mca");
  EXPECT_EQ(im.report.chunks, 5u);
  EXPECT_EQ(im.report.chunks_imported, 2u);  // full, and 1.13's postprocessed
  EXPECT_EQ(im.report.statuses, (std::map<std::string, uint64_t>{{"features", 1}, {"minecraft:carvers", 2}}));
  EXPECT_EQ(im.at(1 * 16, 0, 0), kAir);
  EXPECT_EQ(im.at(3 * 16, 0, 0), cell_of("stone"));
  fs::remove_all(dir);
}

TEST(AnvilChunk, PreFlatteningChunksAreRefusedNamingTheDataVersion) {
  const fs::path dir = temp_dir("legacy");
  testing::NbtWriter w;
  w.begin_root().int32("DataVersion", 1343).begin_compound("Level").int32("xPos", 0).int32("zPos", 0).end().end();
  testing::write_file(dir / "r.0.0.mca", testing::region_bytes({{0, 2, testing::compress_chunk(w.bytes(), 2)}}));
  auto r = import::import_anvil(dir / "r.0.0.mca", mc_map(), {}, [](std::span<const Column* const>) -> Status { return Ok{}; });
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("DataVersion 1343, Minecraft 1.12.2"), std::string::npos) << r.error().to_string();
  fs::remove_all(dir);
}

// Each bad input: the chunk is skipped with its reason, the message names region and chunk, the others import.
TEST(AnvilRegion, BadChunksAreSkippedWithTheirReasonAndTheRestImports) {
  const fs::path dir = temp_dir("bad");
  const std::vector<TestSection> s{{0, {"minecraft:stone"}, {}}};
  auto good = [&](int cx) { return testing::compress_chunk(testing::chunk_nbt(2865, cx, 0, "minecraft:full", s, false), 2); };
  TestSection past{0, {"minecraft:stone", "minecraft:dirt"}, std::vector<uint16_t>(4096, 0)};
  past.indices[77] = 9;  // 4 bits: 9 fits, but the palette has 2 entries
  TestSection short_data{0, {"minecraft:stone", "minecraft:dirt"}, {}};
  short_data.raw_data = std::vector<int64_t>(100, 0);
  std::vector<uint8_t> bad_nbt = {10, 0, 0, 3, 0, 11, 'D'};  // truncated
  std::vector<uint8_t> bad_zlib = good(5);
  bad_zlib[bad_zlib.size() / 2] ^= 0xFF;
  bad_zlib[bad_zlib.size() / 2 + 1] ^= 0xFF;
  std::vector<RegionEntry> entries = {
      {0, 2, good(0)},
      {1, 9, good(1)},                                  // unknown compression
      {2, 2, testing::compress_chunk(testing::chunk_nbt(2865, 2, 0, "minecraft:full", {past}, false), 2)},
      {3, 2, testing::compress_chunk(testing::chunk_nbt(2865, 3, 0, "minecraft:full", {short_data}, false), 2)},
      {4, 2, testing::compress_chunk(bad_nbt, 2)},
      {5, 2, bad_zlib},
      {6, 2, good(6)},  // its location is pointed past the end below
      {7, 2, good(7)},  // its length is zeroed below
      {8, 2, good(8)},  // 8 and 9 overlap below
      {9, 2, good(9)},
      {10, 2, good(10)},
  };
  std::vector<uint8_t> bytes = testing::region_bytes(entries);
  auto loc = [&](int i) { return &bytes[static_cast<size_t>(i) * 4]; };
  auto sector_of = [&](int i) { return (uint32_t{loc(i)[0]} << 16) | (uint32_t{loc(i)[1]} << 8) | loc(i)[2]; };
  // 6: sector far past the end.
  loc(6)[0] = 0x7F;
  // 7: length 0.
  std::fill_n(&bytes[sector_of(7) * 4096], 4, 0);
  // 9: starts inside 8's sectors (8 given two sectors).
  loc(8)[3] = 2;
  const uint32_t s8 = sector_of(8);
  loc(9)[0] = static_cast<uint8_t>((s8 + 1) >> 16);
  loc(9)[1] = static_cast<uint8_t>((s8 + 1) >> 8);
  loc(9)[2] = static_cast<uint8_t>(s8 + 1);
  testing::write_file(dir / "r.0.0.mca", bytes);
  const Imported im = run_import(dir / "r.0.0.mca");
  EXPECT_EQ(im.report.chunks, 11u);
  EXPECT_EQ(im.report.chunks_imported, 2u);  // 0 and 10
  EXPECT_EQ(im.at(0, 0, 0), cell_of("stone"));
  EXPECT_EQ(im.at(160, 0, 0), cell_of("stone"));
  std::map<int32_t, std::string> why;
  for (const auto& p : im.report.problems) why[p.chunk_x] = p.to_string();
  const std::map<int32_t, std::string> want = {
      {1, "r.0.0.mca chunk (1, 0): unknown_compression: compression type 9"},
      {2, "r.0.0.mca chunk (2, 0): bad_block_data: sections[0] (Y 0) cell 77 has palette index 9 of a palette of 2"},
      {3, "r.0.0.mca chunk (3, 0): bad_block_data: sections[0] (Y 0) has 100 longs of block-state data"},
      {4, "r.0.0.mca chunk (4, 0): bad_nbt: "},
      {5, "r.0.0.mca chunk (5, 0): corrupt_data: zlib: "},
      {6, "r.0.0.mca chunk (6, 0): sector_past_end: sectors "},
      {7, "r.0.0.mca chunk (7, 0): bad_length: length 0 at byte "},
      {8, "r.0.0.mca chunk (8, 0): overlapping_sectors: sectors "},
      {9, "r.0.0.mca chunk (9, 0): overlapping_sectors: sectors "},
  };
  for (const auto& [cx, text] : want) {
    ASSERT_TRUE(why.count(cx)) << "chunk " << cx << " was not reported";
    EXPECT_EQ(why[cx].rfind(text, 0), 0u) << why[cx];
  }
  EXPECT_EQ(why.size(), want.size());
  EXPECT_EQ(im.report.chunks_skipped.at("overlapping_sectors"), 2u);
  fs::remove_all(dir);
}

TEST(AnvilRegion, NamesAndEmptyFiles) {
  EXPECT_EQ(import::RegionFile::parse_name("r.-3.12.mca"), (std::array<int32_t, 2>{-3, 12}));
  EXPECT_FALSE(import::RegionFile::parse_name("r.00.0.mca"));   // would alias r.0.0.mca
  EXPECT_FALSE(import::RegionFile::parse_name("r.-0.0.mca"));
  EXPECT_FALSE(import::RegionFile::parse_name("r.+1.0.mca"));
  EXPECT_FALSE(import::RegionFile::parse_name("r.33554432.0.mca"));  // 2^25: chunk coordinates past int32
  EXPECT_EQ(import::RegionFile::parse_name("r.-33554432.0.mca"), (std::array<int32_t, 2>{-33554432, 0}));
  EXPECT_FALSE(import::RegionFile::parse_name("r.1.mca"));
  EXPECT_FALSE(import::RegionFile::parse_name("r.a.1.mca"));
  EXPECT_FALSE(import::RegionFile::parse_name("r.1.2.mcr"));
  EXPECT_FALSE(import::RegionFile::parse_name("r.99999999999.0.mca"));
  const fs::path dir = temp_dir("names");
  testing::write_file(dir / "r.0.0.mca", {});                          // Minecraft leaves empty regions
  testing::write_file(dir / "r.1.0.mca", std::vector<uint8_t>(100));   // shorter than the header
  auto empty = import::RegionFile::open(dir / "r.0.0.mca");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->slots().empty());
  auto short_file = import::RegionFile::open(dir / "r.1.0.mca");
  ASSERT_FALSE(short_file.ok());
  EXPECT_NE(short_file.error().to_string().find("r.1.0.mca @ byte 100: shorter (100 bytes) than the 8192-byte header"),
            std::string::npos)
      << short_file.error().to_string();
  // A folder import goes on past the short region and names it, and names a region file it will not read.
  testing::write_file(dir / "r.00.0.mca", {});
  const Imported im = run_import(dir);
  ASSERT_EQ(im.report.region_errors.size(), 2u);
  EXPECT_NE(im.report.region_errors[0].find("r.00.0.mca: not a region name voxen reads"), std::string::npos)
      << im.report.region_errors[0];
  EXPECT_NE(im.report.region_errors[1].find("r.1.0.mca"), std::string::npos);
  // A FIFO named like a region is refused at once, not waited on (opened without blocking).
  ASSERT_EQ(::mkfifo((dir / "r.2.0.mca").c_str(), 0600), 0);
  auto fifo = import::RegionFile::open(dir / "r.2.0.mca");
  ASSERT_FALSE(fifo.ok());
  EXPECT_NE(fifo.error().to_string().find("not a regular file"), std::string::npos) << fifo.error().to_string();
  fs::remove_all(dir);
}

// A palette name that spells another state's canonical form ("minecraft:oak_log[axis=z]" with no properties) is a
// different state: it falls back, and the real oak log keeps its block, in whichever order the chunks are read.
TEST(AnvilChunk, StatesAreIdentifiedByNameAndPropertiesNotByTheirSpelling) {
  const fs::path dir = temp_dir("spelling");
  const auto real_nbt = testing::chunk_nbt(2865, 1, 0, "minecraft:full", {{0, {"minecraft:oak_log[axis=z]"}, {}}}, false);
  // real_nbt's entry has a Properties compound (the builder's "[...]" syntax); this one's name holds the brackets.
  testing::NbtWriter w;
  w.begin_root().int32("DataVersion", 2865).int32("xPos", 0).int32("zPos", 0).string("Status", "minecraft:full");
  w.begin_list("sections", 10, 1).item_compound().byte("Y", 0).begin_compound("block_states");
  w.begin_list("palette", 10, 1).item_compound().string("Name", "minecraft:oak_log[axis=z]").end();
  w.end().end().end();
  testing::write_file(dir / "r.0.0.mca", testing::region_bytes({{0, 2, testing::compress_chunk(w.bytes(), 2)},
                                                                 {1, 2, testing::compress_chunk(real_nbt, 2)}}));
  for (int threads : {1, 2}) {
    AnvilImportOptions o;
    o.threads = threads;
    const Imported im = run_import(dir / "r.0.0.mca", o);
    EXPECT_EQ(im.at(0, 0, 0), cell_of("unknown"));
    EXPECT_EQ(im.at(16, 0, 0), cell_of("oak_log", state::make_axis(2)));
    EXPECT_EQ(im.report.unmapped, (std::map<std::string, uint64_t>{{"minecraft:oak_log[axis=z]", 4096}}));
    EXPECT_EQ(im.report.distinct_states, 2u);
  }
  fs::remove_all(dir);
}

// Hostile chunks are bounded: a tree of more than kMaxChunkTags tags, a palette entry of more than kMaxStateBytes,
// and a repeated section Y (the later one wins, as in Minecraft, and is counted once).
TEST(AnvilChunk, HostileChunksAreBounded) {
  const fs::path dir = temp_dir("hostile");
  testing::NbtWriter many;
  many.begin_root().int32("DataVersion", 2865).begin_list("junk", 10, import::kMaxChunkTags + 1);
  for (size_t i = 0; i <= import::kMaxChunkTags; ++i) many.end();  // empty compounds
  many.end();
  const std::string long_name = "minecraft:" + std::string(import::kMaxStateBytes, 'x');
  const auto long_nbt = testing::chunk_nbt(2865, 1, 0, "minecraft:full", {{0, {long_name}, {}}}, false);
  const auto twice = testing::chunk_nbt(2865, 2, 0, "minecraft:full",
                                        {{0, {"minecraft:stone"}, {}}, {0, {"minecraft:air", "minecraft:dirt"}, pattern(2)}}, false);
  testing::write_file(dir / "r.0.0.mca", testing::region_bytes({{0, 2, testing::compress_chunk(many.bytes(), 2)},
                                                                 {1, 2, testing::compress_chunk(long_nbt, 2)},
                                                                 {2, 2, testing::compress_chunk(twice, 2)}}));
  const Imported im = run_import(dir / "r.0.0.mca");
  ASSERT_EQ(im.report.problems.size(), 2u);
  EXPECT_NE(im.report.problems[0].to_string().find("chunk (0, 0): bad_nbt: byte "), std::string::npos) << im.report.problems[0].to_string();
  EXPECT_NE(im.report.problems[0].to_string().find("more than 2097152 tags"), std::string::npos) << im.report.problems[0].to_string();
  EXPECT_NE(im.report.problems[1].to_string().find("chunk (1, 0): bad_block_data: sections[0] palette[0] is 1034 bytes"),
            std::string::npos)
      << im.report.problems[1].to_string();
  EXPECT_EQ(im.report.blocks, 2048u);
  EXPECT_EQ(im.at(32, 0, 0), kAir);  // the second Y 0 section replaced the stone one: cell 0 is entry 0, air
  EXPECT_EQ(im.at(33, 0, 0), cell_of("dirt"));
  fs::remove_all(dir);
}

// ---- the block-state mapping ---------------------------------------------------------------------------------

import::MinecraftBlockState state_of(const std::string& text) {
  import::MinecraftBlockState s;
  const size_t br = text.find('[');
  s.name = text.substr(0, br);
  if (br != std::string::npos) {
    const std::string props = text.substr(br + 1, text.size() - br - 2);
    size_t at = 0;
    while (at < props.size()) {
      size_t comma = props.find(',', at);
      if (comma == std::string::npos) comma = props.size();
      const std::string kv = props.substr(at, comma - at);
      s.properties.emplace_back(kv.substr(0, kv.find('=')), kv.substr(kv.find('=') + 1));
      at = comma + 1;
    }
  }
  return s;
}

TEST(MinecraftBlocks, PropertiesVoxenRepresentsBecomeStateBits) {
  auto m = [](const std::string& s) { return mc_map().map(state_of(s)); };
  EXPECT_EQ(m("minecraft:oak_log[axis=x]").cell, cell_of("oak_log", state::make_axis(1)));
  EXPECT_EQ(m("minecraft:oak_log[axis=z]").cell, cell_of("oak_log", state::make_axis(2)));
  EXPECT_EQ(m("minecraft:oak_log[axis=y]").cell, cell_of("oak_log", state::make_axis(0)));
  EXPECT_EQ(m("minecraft:oak_stairs[facing=east,half=top,shape=straight,waterlogged=false]").cell,
            cell_of("oak_stairs", state::make_facing(state::kEast, true)));
  EXPECT_EQ(m("minecraft:oak_stairs[facing=west,half=bottom,shape=outer_left]").cell,
            cell_of("oak_stairs", state::make_facing(state::kWest, false)));
  EXPECT_EQ(m("minecraft:oak_slab[type=top]").cell, cell_of("oak_slab", state::kHalfBit));
  EXPECT_EQ(m("minecraft:oak_slab[type=bottom]").cell, cell_of("oak_slab", 0));
  EXPECT_EQ(m("minecraft:oak_slab[type=double]").cell, cell_of("planks"));
  EXPECT_EQ(m("minecraft:water[level=0]").cell, cell_of("water", state::make_fluid(0, false)));
  EXPECT_EQ(m("minecraft:water[level=3]").cell, cell_of("water", state::make_fluid(3, false)));
  EXPECT_EQ(m("minecraft:water[level=9]").cell, cell_of("water", state::make_fluid(1, true)));
  EXPECT_EQ(m("minecraft:lava[level=8]").cell, cell_of("lava", state::make_fluid(0, true)));
  // Waterlogged: a non-solid block becomes water; a solid one stays itself.
  EXPECT_EQ(m("minecraft:pointed_dripstone[waterlogged=true,thickness=tip]").cell, cell_of("water"));
  EXPECT_EQ(m("minecraft:pointed_dripstone[waterlogged=false,thickness=tip]").cell, cell_of("pointed_dripstone"));
  EXPECT_EQ(m("minecraft:oak_stairs[facing=north,half=bottom,waterlogged=true]").cell, cell_of("oak_stairs"));
  EXPECT_FALSE(m("minecraft:stone").fallback);
}

TEST(MinecraftBlocks, UnmappedNamesFallBackToTheirMapColourOrUnknownAndAreCounted) {
  EXPECT_EQ(mc_map().map(state_of("minecraft:lime_wool")).cell, cell_of("map_color_light_green"));
  EXPECT_TRUE(mc_map().map(state_of("minecraft:lime_wool")).fallback);
  EXPECT_EQ(mc_map().map(state_of("minecraft:no_such_block")).cell, cell_of("unknown"));
  EXPECT_EQ(mc_map().map(state_of("somemod:stone")).cell, cell_of("unknown"));  // another namespace
  const fs::path dir = temp_dir("unmapped");
  const auto nbt = testing::chunk_nbt(
      2865, 0, 0, "minecraft:full",
      {{0, {"minecraft:stone", "minecraft:lime_wool", "minecraft:no_such_block", "minecraft:cave_air"}, pattern(4)}}, false);
  testing::write_file(dir / "r.0.0.mca", testing::region_bytes({{0, 2, testing::compress_chunk(nbt, 2)}}));
  const Imported im = run_import(dir / "r.0.0.mca");
  EXPECT_EQ(im.report.unmapped, (std::map<std::string, uint64_t>{{"minecraft:lime_wool", 1024}, {"minecraft:no_such_block", 1024}}));
  EXPECT_EQ(im.report.blocks, 3072u);  // cave_air is air
  EXPECT_EQ(im.report.distinct_states, 4u);
  fs::remove_all(dir);
}

TEST(MinecraftBlocks, MappingFileErrorsNameTheLineAndKey) {
  auto r = import::MinecraftBlockMap::parse("[blocks]\nstone = \"stone\"\ngranite = \"no_such_voxen_block\"\n", "m.toml", reg());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().to_string(), "m.toml:3: [blocks] granite: no block 'no_such_voxen_block' in the registry");
  r = import::MinecraftBlockMap::parse("[map_colors]\nfoo = \"not_a_colour\"\n", "m.toml", reg());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().to_string(), "m.toml:2: [map_colors] foo: no block 'map_not_a_colour' in the registry");
  r = import::MinecraftBlockMap::parse("[other]\n", "m.toml", reg());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().to_string().find("unknown table 'other'"), std::string::npos);
}

}  // namespace
}  // namespace voxen
