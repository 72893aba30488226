// Persistence benchmarks, single thread: save and load throughput in sections per second (whole paletted sections
// as imported worlds store them, and journals as generated worlds store them), through the codec alone and through
// each backend side by side in one run: RocksDB (WAL through write(2); /rocks_sync also fsyncs each batch) and
// PostgreSQL (/pg: the server's default synchronous_commit = on, each commit flushed to its WAL; /pg_async:
// synchronous_commit = off, which like RocksDB's unsynced WAL survives the client's crash but not the server
// machine's); `voxen world copy` throughput both ways; the packed ColumnStore's pack/unpack per column; and the
// journal's stored bytes per edited column for a few edit patterns (counters, deterministic).
// PostgreSQL: a throwaway server (tests/support/pg_server.sh, Debian's postgresql-15) on a Unix socket in /tmp,
// started on first use and removed at exit, with its default settings (fsync on). The backend benchmarks report wall
// time (UseRealTime): the server's work happens in other processes, which the CPU time of this one does not see.
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
#include "voxen/store/pg_store.h"
#include "voxen/store/rocks_store.h"
#include "voxen/store/world_copy.h"
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

// ---- backends ------------------------------------------------------------------------------------------------

/// The PostgreSQL server of this run: started on first use in a fresh folder under /tmp, removed at exit.
struct PgServer {
  std::string dir;
  PgServer() {
    char tmpl[] = "/tmp/voxen-pg-bench-XXXXXX";
    dir = ::mkdtemp(tmpl);
    const std::string cmd = "bash '" VOXEN_SOURCE_DIR "/tests/support/pg_server.sh' start '" + dir + "' >/dev/null";
    if (std::system(cmd.c_str()) != 0) {
      std::fprintf(stderr, "cannot start a PostgreSQL server (tests/support/pg_server.sh start %s)\n", dir.c_str());
      std::exit(1);
    }
  }
  ~PgServer() { (void)std::system(("bash '" VOXEN_SOURCE_DIR "/tests/support/pg_server.sh' destroy '" + dir + "'").c_str()); }
  /// A world URL on this server; `async` adds synchronous_commit = off through libpq's options parameter.
  std::string url(const std::string& world, bool async) const {
    std::string host;
    for (char c : dir) host += c == '/' ? std::string("%2F") : std::string(1, c);
    return "postgresql://voxen@" + host + "/voxen?world=" + world + (async ? "&options=-csynchronous_commit%3Doff" : "");
  }
};
PgServer& pg_server() {
  static PgServer server;
  return server;
}

enum Backend : int64_t { kRocks = 0, kRocksSync = 1, kPg = 2, kPgAsync = 3 };
const char* backend_name(int64_t b) {
  static const char* const names[] = {"rocks", "rocks_sync", "pg", "pg_async"};
  return names[b];
}

/// A fresh, empty store of one backend (a RocksDB database in a temporary directory, or a new world on the server)
/// and whether its writes ask for fsync; reopen() gives a new handle on the same data (a cold connection or handle).
struct BenchStore {
  Backend backend;
  TempDb tmp;
  std::string world;
  std::unique_ptr<WorldStore> store;
  explicit BenchStore(int64_t b) : backend(static_cast<Backend>(b)) {
    static int n = 0;
    world = "bench" + std::to_string(::getpid()) + "_" + std::to_string(n++);
    open(true);
  }
  bool sync() const { return backend == kRocksSync; }
  void open(bool create) {
    store.reset();
    if (backend == kRocks || backend == kRocksSync) {
      store = open_db(tmp.dir, create);
      return;
    }
    auto url = parse_database_url(pg_server().url(world, backend == kPgAsync));
    auto s = PgWorldStore::open(*url, create ? std::optional<PgWorldStore::PgCreate>(PgWorldStore::PgCreate{"format_version = 1\n", std::nullopt}) : std::nullopt);
    if (!s) {
      std::fprintf(stderr, "%s\n", s.error().to_string().c_str());
      std::exit(1);
    }
    store = std::move(s).value();
  }
  void reopen() {
    if (auto* r = dynamic_cast<RocksWorldStore*>(store.get())) (void)r->flush();
    open(false);
  }
};

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

/// Save: encode + zstd + one batch per column (24 sections): a RocksDB WriteBatch, or one PostgreSQL transaction.
void BM_SaveSections(benchmark::State& state) {
  BenchStore bs(state.range(0));
  state.SetLabel(backend_name(state.range(0)));
  WorldStore* db = bs.store.get();
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
    if (!db->write(ops, bs.sync()).ok()) state.SkipWithError("write failed");
    ++i;
  }
  state.SetItemsProcessed(static_cast<int64_t>(i * kSectionsPerColumn));
}
BENCHMARK(BM_SaveSections)->DenseRange(0, 3)->Unit(benchmark::kMicrosecond)->UseRealTime();

/// Load: one column's records (RocksDB: by prefix, after a flush to disk; PostgreSQL: one query on a new
/// connection), unseal + decode every section.
void BM_LoadSections(benchmark::State& state) {
  BenchStore bs(state.range(0));
  state.SetLabel(backend_name(state.range(0)));
  const auto& cols = columns();
  {
    WorldStore* db = bs.store.get();
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
  }
  bs.reopen();
  WorldStore* db = bs.store.get();
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
BENCHMARK(BM_LoadSections)->Arg(kRocks)->Arg(kPg)->Unit(benchmark::kMicrosecond)->UseRealTime();

/// Load in batches, as the session loads what the streamer asks for: all 81 columns in one load_columns call (RocksDB:
/// 81 prefix seeks; PostgreSQL: one query), unseal + decode every section.
void BM_LoadSectionsBatch(benchmark::State& state) {
  BenchStore bs(state.range(0));
  state.SetLabel(backend_name(state.range(0)));
  const auto& cols = columns();
  std::vector<ColumnPos> all;
  {
    WorldStore* db = bs.store.get();
    for (const auto& c : cols) {
      std::vector<WriteOp> ops;
      for (int s = 0; s < kSectionsPerColumn; ++s) {
        PendingRecord r;
        r.key = {RecordKind::kSection, SectionPos{c->pos().x, s, c->pos().z}};
        r.section = c->section(s);
        ops.push_back(encode_record(r));
      }
      (void)db->write(ops, false);
      all.push_back(c->pos());
    }
  }
  bs.reopen();
  WorldStore* db = bs.store.get();
  size_t sections = 0;
  for (auto _ : state) {
    auto recs = db->load_columns(RecordKind::kSection, all);
    for (const auto& col : *recs)
      for (const auto& st : col.sections) {
        auto payload = unseal(st.value, PayloadKind::kSection);
        size_t pos = 0;
        auto s = decode_section(*payload, pos);
        benchmark::DoNotOptimize(s.ok());
        ++sections;
      }
  }
  state.SetItemsProcessed(static_cast<int64_t>(sections));
}
BENCHMARK(BM_LoadSectionsBatch)->Arg(kRocks)->Arg(kPg)->Unit(benchmark::kMillisecond)->UseRealTime();

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

/// Journal save, one record per batch (the house pattern's section at y 70: what one edit's commit writes), per backend.
void BM_SaveJournal(benchmark::State& state) {
  BenchStore bs(state.range(0));
  state.SetLabel(backend_name(state.range(0)));
  WorldStore* db = bs.store.get();
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
    if (!db->write(std::span<const WriteOp>(&op, 1), bs.sync()).ok()) state.SkipWithError("write failed");
    ++i;
  }
  state.SetItemsProcessed(static_cast<int64_t>(i));
  state.counters["cells_per_record"] = static_cast<double>(cells.size());
}
BENCHMARK(BM_SaveJournal)->DenseRange(0, 3)->Unit(benchmark::kMicrosecond)->UseRealTime();

/// voxen world copy of an imported world of 1,296 columns (31,104 section records, as BM_SaveSections stores them),
/// directory -> PostgreSQL (arg 0) and PostgreSQL -> directory (arg 1), verification included; items = records.
void BM_WorldCopy(benchmark::State& state) {
  TempDb tmp;
  const std::string dir = (tmp.dir / "src").string();
  static int n = 0;
  const std::string pg = pg_server().url("copysrc" + std::to_string(::getpid()) + "_" + std::to_string(n++), false);
  {
    OpenOptions o;
    o.dir = dir;
    o.create_seed = 0;
    o.create_kind = WorldKind::kImported;
    auto no_gen = [](const std::string&, uint64_t) -> Result<std::string> { return Error{"none"}; };
    auto s = WorldSession::open(o, registry(), no_gen);
    if (!s) {
      std::fprintf(stderr, "%s\n", s.error().to_string().c_str());
      std::exit(1);
    }
    // 16 copies of the 81 columns side by side: 1,296 columns, 31,104 section records.
    for (int k = 0; k < 16; ++k) {
      std::vector<std::unique_ptr<Column>> moved;
      std::vector<const Column*> cols;
      for (const auto& c : columns()) {
        auto copy = std::make_unique<Column>(ColumnPos{c->pos().x + 100 * k, c->pos().z});
        for (int sct = 0; sct < kSectionsPerColumn; ++sct) copy->section(sct) = c->section(sct);
        cols.push_back(copy.get());
        moved.push_back(std::move(copy));
      }
      (void)(*s)->store_columns(cols);
      (void)(*s)->flush();
    }
    (void)(*s)->close();
  }
  const bool to_dir = state.range(0) == 1;
  if (to_dir) (void)copy_world(dir, pg);
  state.SetLabel(to_dir ? "pg_to_dir" : "dir_to_pg");
  uint64_t records = 0, bytes = 0;
  int k = 0;
  for (auto _ : state) {
    const std::string dst = to_dir ? (tmp.dir / ("dst" + std::to_string(k))).string() : pg + "x" + std::to_string(k);
    ++k;
    auto r = copy_world(to_dir ? pg : dir, dst);
    if (!r) {
      state.SkipWithError(r.error().to_string().c_str());
      break;
    }
    records += r->content.total();
    bytes += r->content.bytes;
    state.PauseTiming();
    (void)remove_world(dst);
    state.ResumeTiming();
  }
  state.SetItemsProcessed(static_cast<int64_t>(records));
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
}
BENCHMARK(BM_WorldCopy)->DenseRange(0, 1)->Unit(benchmark::kMillisecond)->UseRealTime();

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
