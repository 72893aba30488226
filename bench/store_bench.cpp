// Persistence benchmarks, single thread: save and load throughput in sections per second (whole paletted sections
// as imported worlds store them, and journals as generated worlds store them), through the codec alone and through
// RocksDB; the packed ColumnStore's pack/unpack per column; and the journal's stored bytes per edited column for a
// few edit patterns (counters, deterministic).
//
// Sections come from the `default` generator (seed 1, the 81 columns of radius 4 around the origin: 1,944 sections,
// of which the uniform ones are part of the mix as in a real world).
//
// Run (Release): build-store/voxen_bench_store --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// Figures and the exact command are in docs/PERFORMANCE.md ("Persistence").
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <vector>

#include "voxen/core/hash.h"
#include "voxen/gen/generator.h"
#include "voxen/light/light.h"
#include "voxen/store/codec.h"
#include "voxen/store/column_store.h"
#include "voxen/store/rocks_store.h"
#include "voxen/store/world_session.h"
#include "voxen/stream/saved_world.h"
#include "voxen/store/write_queue.h"

namespace {

using namespace voxen;
using namespace voxen::store;
namespace fs = std::filesystem;

const BlockRegistry& registry() {
  static const BlockRegistry reg = [] {
    auto r = BlockRegistry::load_default();
    if (!r) {
      std::fprintf(stderr, "block registry: %s\n", r.error().to_string().c_str());
      std::exit(1);
    }
    return std::move(r).value();
  }();
  return reg;
}

std::unique_ptr<gen::Generator> make_gen(std::string_view name = "default", uint64_t seed = 1) {
  auto g = gen::make_generator(name, seed, registry());
  if (!g) {
    std::fprintf(stderr, "%s\n", g.error().to_string().c_str());
    std::exit(1);
  }
  return std::move(g).value();
}

std::vector<ColumnPos> area(int r) {
  std::vector<ColumnPos> out;
  for (int x = -r; x <= r; ++x)
    for (int z = -r; z <= r; ++z) out.push_back({x, z});
  return out;
}

/// The generated columns of radius 4 around the origin (lit, for the ColumnStore benchmarks).
const std::vector<std::unique_ptr<Column>>& columns() {
  static const std::vector<std::unique_ptr<Column>> cols = [] {
    const auto g = make_gen();
    World w;
    const auto pos = area(4);
    for (auto& c : gen::generate_columns(*g, pos, nullptr)) w.insert(std::move(c));
    const light::LightTable table(registry());
    light::light_columns(w, table, pos, nullptr);
    std::vector<std::unique_ptr<Column>> out;
    for (const ColumnPos& p : pos) out.push_back(w.remove(p));
    return out;
  }();
  return cols;
}

/// A fresh directory for a database, removed at exit of the benchmark.
struct TempDb {
  fs::path dir;
  TempDb() {
    std::string tmpl = (fs::temp_directory_path() / "voxen_store_bench_XXXXXX").string();
    dir = ::mkdtemp(tmpl.data());
  }
  ~TempDb() { fs::remove_all(dir); }
};

std::unique_ptr<RocksWorldStore> open_db(const fs::path& dir, bool create) {
  auto s = RocksWorldStore::open(dir / "db", dir / "corrupt", create);
  if (!s) {
    std::fprintf(stderr, "%s\n", s.error().to_string().c_str());
    std::exit(1);
  }
  return std::move(s).value();
}

// ---- whole sections (imported worlds) --------------------------------------------------------------------------

void BM_SectionEncode(benchmark::State& state) {
  const auto& cols = columns();
  size_t i = 0, bytes = 0;
  std::string payload;
  for (auto _ : state) {
    const Column& c = *cols[i / kSectionsPerColumn % cols.size()];
    payload.clear();
    encode_section(c.section(static_cast<int>(i % kSectionsPerColumn)), payload);
    std::string v = seal(PayloadKind::kSection, payload);
    bytes += v.size();
    benchmark::DoNotOptimize(v.data());
    ++i;
  }
  state.SetItemsProcessed(static_cast<int64_t>(i));
  state.counters["stored_bytes_per_section"] = static_cast<double>(bytes) / static_cast<double>(i);
}
BENCHMARK(BM_SectionEncode);

void BM_SectionDecode(benchmark::State& state) {
  std::vector<std::string> values;
  for (const auto& c : columns())
    for (int s = 0; s < kSectionsPerColumn; ++s) {
      std::string payload;
      encode_section(c->section(s), payload);
      values.push_back(seal(PayloadKind::kSection, payload));
    }
  size_t i = 0;
  for (auto _ : state) {
    auto p = unseal(values[i % values.size()], PayloadKind::kSection);
    size_t pos = 0;
    auto s = decode_section(*p, pos);
    benchmark::DoNotOptimize(s.ok());
    ++i;
  }
  state.SetItemsProcessed(static_cast<int64_t>(i));
}
BENCHMARK(BM_SectionDecode);

/// Save: encode + zstd + one RocksDB WriteBatch per column (24 sections), WAL on, no fsync.
void BM_SaveSectionsRocks(benchmark::State& state) {
  TempDb tmp;
  auto db = open_db(tmp.dir, true);
  const auto& cols = columns();
  size_t i = 0;
  for (auto _ : state) {
    const Column& c = *cols[i % cols.size()];
    std::vector<WriteOp> ops;
    for (int s = 0; s < kSectionsPerColumn; ++s) {
      PendingRecord r;
      // A new column position each time, so the database grows as a real save does.
      r.key = {RecordKind::kSection, SectionPos{static_cast<int64_t>(i), s, 7}};
      r.section = c.section(s);
      ops.push_back(encode_record(r));
    }
    if (!db->write(ops, false).ok()) state.SkipWithError("write failed");
    ++i;
  }
  state.SetItemsProcessed(static_cast<int64_t>(i * kSectionsPerColumn));
}
BENCHMARK(BM_SaveSectionsRocks)->Unit(benchmark::kMicrosecond);

/// Load: one column's records by prefix from RocksDB (after a flush to disk), unseal + decode every section.
void BM_LoadSectionsRocks(benchmark::State& state) {
  TempDb tmp;
  const auto& cols = columns();
  {
    auto db = open_db(tmp.dir, true);
    for (size_t i = 0; i < cols.size(); ++i) {
      std::vector<WriteOp> ops;
      for (int s = 0; s < kSectionsPerColumn; ++s) {
        PendingRecord r;
        r.key = {RecordKind::kSection, SectionPos{cols[i]->pos().x, s, cols[i]->pos().z}};
        r.section = cols[i]->section(s);
        ops.push_back(encode_record(r));
      }
      (void)db->write(ops, false);
    }
    (void)db->flush();
  }
  auto db = open_db(tmp.dir, false);
  size_t i = 0, sections = 0;
  for (auto _ : state) {
    const ColumnPos p = cols[i % cols.size()]->pos();
    auto recs = db->load_columns(RecordKind::kSection, std::span<const ColumnPos>(&p, 1));
    for (const auto& st : (*recs)[0].sections) {
      auto payload = unseal(st.value, PayloadKind::kSection);
      size_t pos = 0;
      auto s = decode_section(*payload, pos);
      benchmark::DoNotOptimize(s.ok());
      ++sections;
    }
    ++i;
  }
  state.SetItemsProcessed(static_cast<int64_t>(sections));
}
BENCHMARK(BM_LoadSectionsRocks)->Unit(benchmark::kMicrosecond);

// ---- journals (generated worlds) -------------------------------------------------------------------------------

/// Edit patterns on one column, as (world position, cell) lists: what a player does in one place.
enum Pattern { kOneBlock, kHouse, kScattered, kExcavation };
const char* pattern_name(int p) {
  static const char* names[] = {"one_block", "house_7x7x5", "scattered_100", "excavation_16x16x10"};
  return names[p];
}
std::vector<std::pair<BlockPos, Cell>> pattern_edits(int pattern, ColumnPos c) {
  const BlockRegistry& reg = registry();
  const Cell planks{*reg.find("planks"), 0}, glass{*reg.find("glass"), 0}, stairs{*reg.find("stone_stairs"), 1};
  std::vector<std::pair<BlockPos, Cell>> out;
  const int64_t x0 = c.min_x(), z0 = c.min_z();
  switch (pattern) {
    case kOneBlock:
      out.push_back({{x0 + 3, 70, z0 + 3}, planks});
      break;
    case kHouse:  // walls of planks with glass windows and a stair roof edge: 7x7 footprint, 5 high
      for (int y = 0; y < 5; ++y)
        for (int x = 0; x < 7; ++x)
          for (int z = 0; z < 7; ++z) {
            const bool wall = x == 0 || x == 6 || z == 0 || z == 6;
            if (!wall && y < 4) continue;
            const Cell cell = y == 4 ? stairs : (y == 2 && (x == 3 || z == 3)) ? glass : planks;
            out.push_back({{x0 + 4 + x, 70 + y, z0 + 4 + z}, cell});
          }
      break;
    case kScattered:
      for (int i = 0; i < 100; ++i) {
        const uint64_t h = hash2(99, c.x * 1000 + i, c.z);
        out.push_back({{x0 + static_cast<int64_t>(h & 15), -100 + static_cast<int64_t>((h >> 4) % 300), z0 + static_cast<int64_t>((h >> 16) & 15)},
                       (h >> 32) & 1 ? planks : glass});
      }
      break;
    default:  // dig a 16x16x10 pit: air
      for (int y = 0; y < 10; ++y)
        for (int x = 0; x < 16; ++x)
          for (int z = 0; z < 16; ++z) out.push_back({{x0 + x, 40 + y, z0 + z}, kAir});
      break;
  }
  return out;
}

/// Journal bytes per edited column: applies a pattern to each of 25 columns through a WorldSession over an
/// in-memory store and sums the stored values and keys. The counters are the result; the time is incidental.
void BM_JournalBytesPerEditedColumn(benchmark::State& state) {
  const int pattern = static_cast<int>(state.range(0));
  std::shared_ptr<gen::Generator> shared = make_gen();
  double bytes_per_column = 0, cells_per_column = 0;
  for (auto _ : state) {
    MemoryWorldStore mem;
    WorldMeta meta;
    meta.seed = 1;
    meta.generator = "default";
    auto s = std::move(WorldSession::attach(mem, meta, registry())).value();
    stream::SavedWorld source(*s, shared.get());
    World world;
    const auto cols = area(2);
    auto loaded = source.load(cols);
    for (auto& c : *loaded) world.insert(std::move(c));
    size_t changed = 0;
    for (const ColumnPos& c : cols)
      for (const auto& [p, cell] : pattern_edits(pattern, c)) {
        if (world.get(p) == cell) continue;
        const auto e = world.make_edit(p, cell);
        if (!e || !world.apply(*e)) continue;
        source.record(*e, *world.find(c));  // as stream::ColumnStreamer::apply_edit tells the source
        ++changed;
      }
    (void)s->close();
    size_t total = 0;
    const std::vector<RecordKey> keys = *mem.list(RecordKind::kJournal);
    for (const RecordKey& k : keys) {
      const std::optional<std::string> v = *mem.get(k);
      total += kKeySize + v->size();
    }
    bytes_per_column = static_cast<double>(total) / static_cast<double>(cols.size());
    cells_per_column = static_cast<double>(changed) / static_cast<double>(cols.size());
  }
  state.SetLabel(pattern_name(pattern));
  state.counters["journal_bytes_per_column"] = bytes_per_column;
  state.counters["changed_cells_per_column"] = cells_per_column;
}
BENCHMARK(BM_JournalBytesPerEditedColumn)->DenseRange(0, 3)->Unit(benchmark::kMillisecond)->Iterations(1);

/// Journal save and load through RocksDB, per section record (the house pattern: 2-3 sections per column).
void BM_SaveJournalRocks(benchmark::State& state) {
  TempDb tmp;
  auto db = open_db(tmp.dir, true);
  std::vector<JournalCell> cells;
  for (const auto& [p, c] : pattern_edits(kHouse, {0, 0}))
    if (section_of_y(p.y) == section_of_y(70))
      cells.push_back({static_cast<uint16_t>(section_index(local_of(p.x), static_cast<int>(p.y - section_base_y(section_of_y(p.y))), local_of(p.z))), c});
  std::sort(cells.begin(), cells.end(), [](auto& a, auto& b) { return a.index < b.index; });
  cells.erase(std::unique(cells.begin(), cells.end(), [](auto& a, auto& b) { return a.index == b.index; }), cells.end());
  size_t i = 0;
  for (auto _ : state) {
    PendingRecord r;
    r.key = {RecordKind::kJournal, SectionPos{static_cast<int64_t>(i), 9, 0}};
    r.journal = cells;
    const WriteOp op = encode_record(r);
    if (!db->write(std::span<const WriteOp>(&op, 1), false).ok()) state.SkipWithError("write failed");
    ++i;
  }
  state.SetItemsProcessed(static_cast<int64_t>(i));
  state.counters["cells_per_record"] = static_cast<double>(cells.size());
}
BENCHMARK(BM_SaveJournalRocks)->Unit(benchmark::kMicrosecond);

/// A whole column load through the saved world (stream::SavedWorld::load): generate (default generator) + read the journal + apply it.
void BM_SessionLoadEditedColumn(benchmark::State& state) {
  TempDb tmp;
  const fs::path dir = tmp.dir / "world";
  const auto cols = area(3);
  {
    OpenOptions o;
    o.dir = dir;
    o.create_seed = 1;
    auto s = std::move(stream::SavedWorld::open(o, registry())).value();
    World world;
    auto loaded = s->load(cols);
    for (auto& c : *loaded) world.insert(std::move(c));
    for (const ColumnPos& c : cols)
      for (const auto& [p, cell] : pattern_edits(kHouse, c))
        if (auto e = world.make_edit(p, cell); e && world.apply(*e)) s->record(*e, *world.find(c));
    (void)s->close();
  }
  OpenOptions o;
  o.dir = dir;
  auto s = std::move(stream::SavedWorld::open(o, registry())).value();
  size_t i = 0;
  for (auto _ : state) {
    const ColumnPos c = cols[i % cols.size()];
    auto loaded = s->load({c});
    state.PauseTiming();
    for (auto& col : *loaded) (void)s->unload(std::move(col));
    state.ResumeTiming();
    ++i;
  }
  state.SetItemsProcessed(static_cast<int64_t>(i));
}
BENCHMARK(BM_SessionLoadEditedColumn)->Unit(benchmark::kMicrosecond);

// ---- ColumnStore -----------------------------------------------------------------------------------------------

void BM_PackColumn(benchmark::State& state) {
  const auto& cols = columns();
  size_t i = 0, bytes = 0, raw = 0;
  for (auto _ : state) {
    const Column& c = *cols[i % cols.size()];
    PackedColumn p = pack_column(c);
    bytes += p.cells.size() + p.light.size();
    raw += c.cell_bytes() + c.light_bytes();
    benchmark::DoNotOptimize(p.cells.data());
    ++i;
  }
  state.SetItemsProcessed(static_cast<int64_t>(i));
  state.counters["packed_bytes_per_column"] = static_cast<double>(bytes) / static_cast<double>(i);
  state.counters["unpacked_bytes_per_column"] = static_cast<double>(raw) / static_cast<double>(i);
}
BENCHMARK(BM_PackColumn)->Unit(benchmark::kMicrosecond);

void BM_UnpackColumn(benchmark::State& state) {
  std::vector<PackedColumn> packed;
  for (const auto& c : columns()) packed.push_back(pack_column(*c));
  size_t i = 0;
  for (auto _ : state) {
    auto c = unpack_column(packed[i % packed.size()]);
    benchmark::DoNotOptimize(c.ok());
    ++i;
  }
  state.SetItemsProcessed(static_cast<int64_t>(i));
}
BENCHMARK(BM_UnpackColumn)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
